//! The memory-model report: per static access and per kernel, in text and JSON.
//!
//! Definitions (all counts are per warp request, summed over the launch):
//! - *global transactions*: distinct sectors (`SimPlatform::sector` bytes, 32 on NVIDIA) a
//!   request touches; *lines*: distinct `SimPlatform::line` (128-byte) lines;
//! - *minimum*: `ceil(distinct bytes requested / sector)` (and `/ line`): what a perfectly
//!   coalesced request for the same bytes would need; the ratio is transactions / minimum;
//! - *compulsory transactions* of a kernel: the distinct sectors holding an element it reads,
//!   plus those holding an element it writes (every input read once, every output written once);
//! - *wavefronts* of a shared request (one per warp, a vector access included: each lane
//!   touching its vector's bytes): per group of lanes the banks serve together (at most
//!   `SimPlatform::shared_lanes`: a warp on NVIDIA, half a 64-wide wavefront on AMD; and at most
//!   as many as touch `banks × bank width` bytes: half-warps for 8 bytes per lane), the largest
//!   number of distinct bank-width words that fall in one bank (several lanes reading the same
//!   word is a broadcast); the *minimum* for the same words is `ceil(words / banks)` per group;
//! - *bank-conflict degree*: wavefronts over that minimum, relative to what the hardware can do
//!   (consecutive 8-byte elements on 4-byte banks take two wavefronts and have degree 1);
//! - *occupancy*: resident warps per multiprocessor over the maximum, limited by threads, blocks,
//!   shared memory and registers per multiprocessor (`SimPlatform::occupancy`, the model's
//!   arithmetic: registers per work-item rounded up to the allocation unit; the kernel's count
//!   is the schedule's estimate, or a measured one, `SimOptions::measured_registers`; CPU
//!   devices have no register file that limits); the report names the limit;
//! - *L1 hits*, *L2 sectors*, *DRAM sectors*: the global requests' sectors replayed through the
//!   platform's caches after the launch ([`super::cache`]): loads an L1 served, sectors that
//!   reached the L2 (L1 misses and every store), and the sectors DRAM read (L2 misses of loads)
//!   plus wrote (dirty sectors evicted or flushed at the end of the launch). Without caches in
//!   the platform file, every sector is a DRAM sector;
//! - *time*: a **model estimate**, never a measurement: the largest of the terms
//!   `dram` (DRAM sector bytes / bandwidth), `l2` (L2 sector bytes / L2 bandwidth), `shared`
//!   (wavefronts / (SMs × wavefronts per clock × clock)), `issue` (warp instructions / (SMs ×
//!   issue rate × clock)), `latency` (Little's law with one load in flight per warp: global
//!   warp requests that read × latency / (warps in flight × clock), warps in flight = resident
//!   blocks of the launch × warps per block; stores do not stall a warp) and
//!   `flops` (flops / peak), and on platforms with a channel model `channel` (the `dram` term
//!   times the first wave's channel imbalance, [`super::channel`]: the busiest channel sets the
//!   pace); the report names the largest (`bound`). Rates come from the
//!   platform file's `[timing]` and `[cache]` (`docs/model.md` says what the model ignores).

use serde::Serialize;

use super::*;
use crate::kernel::lint::Verdict;

#[derive(Clone, Debug, PartialEq)]
pub struct AccessStats {
    pub info: AccessInfo,
    pub counts: AccessCounts,
}

impl AccessStats {
    /// Transactions over the minimum (1.0 is perfectly coalesced); 0 when never executed.
    pub fn ratio(&self) -> f64 {
        if self.counts.min_sectors == 0 {
            0.0
        } else {
            self.counts.sectors as f64 / self.counts.min_sectors as f64
        }
    }

    /// Mean bank-conflict degree of a shared access: wavefronts over the fewest the hardware
    /// needs for the same words.
    pub fn mean_degree(&self) -> f64 {
        if self.counts.min_wavefronts == 0 {
            0.0
        } else {
            self.counts.wavefronts as f64 / self.counts.min_wavefronts as f64
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelReport {
    pub kernel: String,
    pub launches: u64,
    pub block: [u32; 3],
    pub blocks_total: u64,
    pub blocks_simulated: u64,
    pub accesses: Vec<AccessStats>,
    pub instructions: u64,
    pub flops: u64,
    pub global_transactions: u64,
    pub global_lines: u64,
    pub min_transactions: u64,
    pub compulsory_transactions: u64,
    pub shared_requests: u64,
    pub shared_wavefronts: u64,
    pub bank_max: u32,
    pub bank_mean: f64,
    pub shared_bytes: u32,
    pub blocks_per_sm: u32,
    pub occupancy: f64,
    /// What limits `blocks_per_sm`.
    pub limited_by: crate::model::platform::OccupancyLimit,
    /// Registers per work-item the occupancy counted (`None`: not counted, on a CPU device or
    /// for a kernel without a count).
    pub registers: Option<u32>,
    /// Global warp requests (loads, stores and atomics), and those that read (loads and
    /// atomics: what a warp waits for; stores do not stall it).
    pub global_requests: u64,
    pub global_load_requests: u64,
    /// What the caches saw: L1 hits, L2 sectors, DRAM sectors read and written.
    pub l1_hits: u64,
    pub l2_sectors: u64,
    pub dram_reads: u64,
    pub dram_writes: u64,
    /// Loading warp requests the caches replayed, and the sum of their latencies (cycles, each
    /// at the level that served its slowest sector); 0 without a cache replay.
    pub replayed_loads: u64,
    pub load_cycles: u64,
    /// The first wave's traffic per memory channel, summed over launches (platforms with
    /// `[channels]` only).
    pub channels: Option<super::channel::ChannelCounts>,
    /// The terms of the estimate, microseconds.
    pub terms: Terms,
    /// Model estimate, microseconds: the largest term.
    pub estimate_us: f64,
}

/// The terms of the time estimate, microseconds (0 when the platform gives no rate for one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Terms {
    pub dram: f64,
    pub l2: f64,
    pub shared: f64,
    pub issue: f64,
    pub latency: f64,
    pub flops: f64,
    /// Lines of the global requests over the L1s' lines per clock (0 on platforms without
    /// `timing.l1_lines_per_clock`).
    pub l1: f64,
    /// DRAM traffic at the pace of the busiest memory channel: `dram` × the channel imbalance
    /// (0 on platforms without a channel model).
    pub channel: f64,
}

impl Terms {
    /// (name, microseconds) of every term, in the order the report lists them.
    pub fn all(&self) -> [(&'static str, f64); 8] {
        [
            ("dram", self.dram),
            ("channel", self.channel),
            ("l1", self.l1),
            ("l2", self.l2),
            ("shared", self.shared),
            ("issue", self.issue),
            ("latency", self.latency),
            ("flops", self.flops),
        ]
    }

    /// The largest term: what bounds the kernel (the first listed on a tie).
    pub fn bound(&self) -> (&'static str, f64) {
        self.all()
            .into_iter()
            .fold(("dram", 0.0), |b, t| if t.1 > b.1 { t } else { b })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub platform: String,
    /// The platform gives the L1's lines per clock: the report shows the `l1` term.
    pub l1_lines: bool,
    pub kernels: Vec<KernelReport>,
    pub findings: Vec<Finding>,
}

/// Builds the report from the launches of a run (launches of the same kernel are summed).
pub fn analyze(runs: &[RunResult], platform: &SimPlatform) -> Report {
    let mut kernels: Vec<KernelReport> = Vec::new();
    let mut findings = Vec::new();
    for r in runs {
        findings.extend(r.findings.iter().cloned());
        let s = &r.stats;
        let pos = match kernels.iter().position(|k| k.kernel == s.kernel) {
            Some(p) => p,
            None => {
                kernels.push(KernelReport {
                    kernel: s.kernel.clone(),
                    launches: 0,
                    block: s.block,
                    blocks_total: 0,
                    blocks_simulated: 0,
                    accesses: s
                        .accesses
                        .iter()
                        .map(|a| AccessStats {
                            info: a.clone(),
                            counts: AccessCounts::default(),
                        })
                        .collect(),
                    instructions: 0,
                    flops: 0,
                    global_transactions: 0,
                    global_lines: 0,
                    min_transactions: 0,
                    compulsory_transactions: 0,
                    shared_requests: 0,
                    shared_wavefronts: 0,
                    bank_max: 0,
                    bank_mean: 0.0,
                    shared_bytes: s.shared_bytes,
                    blocks_per_sm: 0,
                    occupancy: 0.0,
                    limited_by: crate::model::platform::OccupancyLimit::Threads,
                    registers: s.registers,
                    global_requests: 0,
                    global_load_requests: 0,
                    l1_hits: 0,
                    l2_sectors: 0,
                    dram_reads: 0,
                    dram_writes: 0,
                    replayed_loads: 0,
                    load_cycles: 0,
                    channels: None,
                    terms: Terms::default(),
                    estimate_us: 0.0,
                });
                kernels.len() - 1
            }
        };
        let k = &mut kernels[pos];
        k.launches += 1;
        k.blocks_total += s.blocks_total;
        k.blocks_simulated += s.blocks_simulated;
        k.instructions += s.instructions;
        k.flops += s.flops;
        k.l1_hits += s.cache.l1_hits;
        k.l2_sectors += s.cache.l2_sectors;
        k.dram_reads += s.cache.dram_reads;
        k.dram_writes += s.cache.dram_writes;
        k.replayed_loads += s.cache.load_requests;
        k.load_cycles += s.cache.load_cycles;
        if let Some(c) = &s.channels {
            k.channels.get_or_insert_with(Default::default).add(c);
        }
        for (a, c) in k.accesses.iter_mut().zip(s.counts.iter()) {
            a.counts.add(c);
        }
        k.compulsory_transactions += s
            .footprints
            .iter()
            .map(|f| f.read_sectors + f.written_sectors)
            .sum::<u64>();
    }
    for k in &mut kernels {
        let mut shared_min_wavefronts = 0u64;
        for a in &k.accesses {
            match a.info.space {
                Space::Global => {
                    k.global_requests += a.counts.requests;
                    if a.info.kind != AccessKind::Store {
                        k.global_load_requests += a.counts.requests;
                    }
                    k.global_transactions += a.counts.sectors;
                    k.global_lines += a.counts.lines;
                    k.min_transactions += a.counts.min_sectors;
                }
                Space::Local => {
                    k.shared_requests += a.counts.requests;
                    k.shared_wavefronts += a.counts.wavefronts;
                    shared_min_wavefronts += a.counts.min_wavefronts;
                    k.bank_max = k.bank_max.max(a.counts.max_degree);
                }
                Space::Private => {}
            }
        }
        k.bank_mean = if shared_min_wavefronts == 0 {
            0.0
        } else {
            k.shared_wavefronts as f64 / shared_min_wavefronts as f64
        };
        let threads: u32 = k.block.iter().map(|&b| b.max(1)).product();
        let warp = platform.warp.max(1);
        let warps = threads.div_ceil(warp);
        let o = platform.occupancy(threads, k.shared_bytes, k.registers);
        k.blocks_per_sm = o.blocks.min(u32::MAX as u64) as u32;
        k.occupancy = o.fraction;
        k.limited_by = o.limit;
        k.terms = terms(k, platform, warps);
        k.estimate_us = k.terms.bound().1;
    }
    Report {
        platform: platform.name.clone(),
        l1_lines: platform.timing.l1_lines_per_clock > 0.0,
        kernels,
        findings,
    }
}

/// The terms of the time estimate of a kernel whose counts are summed (see the module header).
fn terms(k: &KernelReport, p: &SimPlatform, warps: u32) -> Terms {
    let t = &p.timing;
    let mhz = p.clock_mhz.max(1.0);
    let sms = p.sms.max(1) as f64;
    let per = |x: u64, rate: f64| {
        if rate > 0.0 {
            x as f64 / rate
        } else {
            0.0
        }
    };
    let sector = p.sector as f64;
    // Warps in flight in one launch: its blocks, at most the resident ones on every SM.
    let launches = k.launches.max(1);
    let blocks = (k.blocks_total / launches).min(p.sms as u64 * k.blocks_per_sm.max(1) as u64);
    let in_flight = (blocks * warps as u64) as f64;
    // The SMs that get a block of a launch: only they issue, serve shared memory and the L1.
    let busy = ((k.blocks_total / launches).max(1) as f64).min(sms);
    // Cycles a loading request waits: the caches' mean by level where they were replayed.
    let wait = if k.replayed_loads > 0 {
        k.load_cycles as f64 / k.replayed_loads as f64
    } else {
        t.latency_cycles as f64
    };
    // bytes / (GB/s × 1e3) = microseconds
    let dram = per(k.dram_reads + k.dram_writes, p.bandwidth_gbs * 1e3 / sector);
    Terms {
        dram,
        channel: k.channels.as_ref().map_or(0.0, |c| dram * c.imbalance()),
        l1: per(k.global_lines, busy * t.l1_lines_per_clock * mhz),
        l2: per(k.l2_sectors, p.cache.l2_bandwidth_gbs * 1e3 / sector),
        shared: per(k.shared_wavefronts, busy * t.shared_per_clock * mhz),
        issue: per(k.instructions, busy * t.issue_per_clock * mhz),
        latency: if t.latency_cycles > 0 && in_flight > 0.0 {
            k.global_load_requests as f64 * wait / (in_flight * mhz)
        } else {
            0.0
        },
        flops: per(k.flops, p.gflops * 1e3),
    }
}

/// A ratio or time as the report shows it: rounded to 4 decimals.
fn round4(x: f64) -> f64 {
    if x.is_finite() {
        format!("{:.4}", x).parse().unwrap_or(x)
    } else {
        x
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Local => "shared",
        Space::Private => "private",
    }
}

/// The JSON of `accshare analyze --format json`: these structs, in field order.
#[derive(Serialize)]
struct ReportJson<'a> {
    platform: &'a str,
    kernels: Vec<KernelJson<'a>>,
    findings: Vec<String>,
}

#[derive(Serialize)]
struct KernelJson<'a> {
    kernel: &'a str,
    launches: u64,
    block: [u32; 3],
    blocks: u64,
    blocks_simulated: u64,
    global_transactions: u64,
    global_lines: u64,
    min_transactions: u64,
    compulsory_transactions: u64,
    shared_wavefronts: u64,
    bank_conflict_degree: DegreeJson,
    instructions: u64,
    flops: u64,
    occupancy: f64,
    blocks_per_sm: u32,
    /// `threads`, `blocks`, `shared memory` or `registers`.
    limited_by: &'static str,
    /// Registers per work-item counted (`null`: not counted).
    registers: Option<u32>,
    model_estimate_us: f64,
    global_requests: u64,
    l1_hits: u64,
    l2_sectors: u64,
    dram_sectors: u64,
    dram_reads: u64,
    dram_writes: u64,
    bound: &'static str,
    terms_us: TermsJson,
    /// Only on platforms with a channel model.
    #[serde(skip_serializing_if = "Option::is_none")]
    channels: Option<ChannelsJson>,
    accesses: Vec<AccessJson<'a>>,
}

#[derive(Serialize)]
struct ChannelsJson {
    imbalance: f64,
    wave_blocks: u64,
    sectors: Vec<u64>,
}

#[derive(Serialize)]
struct TermsJson {
    dram: f64,
    /// Only on platforms with a channel model.
    #[serde(skip_serializing_if = "Option::is_none")]
    channel: Option<f64>,
    /// Only on platforms with `timing.l1_lines_per_clock`.
    #[serde(skip_serializing_if = "Option::is_none")]
    l1: Option<f64>,
    l2: f64,
    shared: f64,
    issue: f64,
    latency: f64,
    flops: f64,
}

#[derive(Serialize)]
struct DegreeJson {
    max: u32,
    mean: f64,
}

/// An access; the global keys only for a global access, the shared keys only for a shared one.
#[derive(Serialize)]
struct AccessJson<'a> {
    id: usize,
    label: &'a str,
    array: &'a str,
    space: &'static str,
    kind: &'static str,
    requests: u64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    global: Option<GlobalJson>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    shared: Option<SharedJson>,
}

#[derive(Serialize)]
struct GlobalJson {
    global_transactions: u64,
    lines: u64,
    min_transactions: u64,
    min_lines: u64,
    ratio: f64,
}

#[derive(Serialize)]
struct SharedJson {
    bank_conflict_degree: DegreeJson,
    wavefronts: u64,
}

impl Report {
    /// The report as pretty-printed JSON (one object; keys in `docs/analyze-json.md`).
    pub fn render_json(&self) -> String {
        let kernels = self
            .kernels
            .iter()
            .map(|k| KernelJson {
                kernel: &k.kernel,
                launches: k.launches,
                block: k.block,
                blocks: k.blocks_total,
                blocks_simulated: k.blocks_simulated,
                global_transactions: k.global_transactions,
                global_lines: k.global_lines,
                min_transactions: k.min_transactions,
                compulsory_transactions: k.compulsory_transactions,
                shared_wavefronts: k.shared_wavefronts,
                bank_conflict_degree: DegreeJson {
                    max: k.bank_max,
                    mean: round4(k.bank_mean),
                },
                instructions: k.instructions,
                flops: k.flops,
                occupancy: round4(k.occupancy),
                blocks_per_sm: k.blocks_per_sm,
                limited_by: k.limited_by.name(),
                registers: k.registers,
                model_estimate_us: round4(k.estimate_us),
                global_requests: k.global_requests,
                l1_hits: k.l1_hits,
                l2_sectors: k.l2_sectors,
                dram_sectors: k.dram_reads + k.dram_writes,
                dram_reads: k.dram_reads,
                dram_writes: k.dram_writes,
                bound: k.terms.bound().0,
                terms_us: TermsJson {
                    dram: round4(k.terms.dram),
                    channel: k.channels.as_ref().map(|_| round4(k.terms.channel)),
                    l1: self.l1_lines.then(|| round4(k.terms.l1)),
                    l2: round4(k.terms.l2),
                    shared: round4(k.terms.shared),
                    issue: round4(k.terms.issue),
                    latency: round4(k.terms.latency),
                    flops: round4(k.terms.flops),
                },
                channels: k.channels.as_ref().map(|c| ChannelsJson {
                    imbalance: round4(c.imbalance()),
                    wave_blocks: c.wave_blocks,
                    sectors: c.sectors.clone(),
                }),
                accesses: k
                    .accesses
                    .iter()
                    .map(|a| {
                        let c = &a.counts;
                        AccessJson {
                            id: a.info.id,
                            label: &a.info.label,
                            array: &a.info.array,
                            space: space_name(a.info.space),
                            kind: a.info.kind.name(),
                            requests: c.requests,
                            global: (a.info.space == Space::Global).then(|| GlobalJson {
                                global_transactions: c.sectors,
                                lines: c.lines,
                                min_transactions: c.min_sectors,
                                min_lines: c.min_lines,
                                ratio: round4(a.ratio()),
                            }),
                            shared: (a.info.space == Space::Local).then(|| SharedJson {
                                bank_conflict_degree: DegreeJson {
                                    max: c.max_degree,
                                    mean: round4(a.mean_degree()),
                                },
                                wavefronts: c.wavefronts,
                            }),
                        }
                    })
                    .collect(),
            })
            .collect();
        let report = ReportJson {
            platform: &self.platform,
            kernels,
            findings: self.findings.iter().map(|f| f.to_string()).collect(),
        };
        // Plain structs of strings and numbers: serializing to a String cannot fail.
        let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
        s.push('\n');
        s
    }

    pub fn render_text(&self) -> String {
        let mut o = format!("platform: {}\n", self.platform);
        for k in &self.kernels {
            o.push_str(&format!(
                "\nkernel {} ({} launch{}, block {}x{}x{}, {} blocks{})\n",
                k.kernel,
                k.launches,
                if k.launches == 1 { "" } else { "es" },
                k.block[0],
                k.block[1],
                k.block[2],
                k.blocks_total,
                if k.blocks_simulated < k.blocks_total {
                    format!(", {} simulated, counts scaled", k.blocks_simulated)
                } else {
                    String::new()
                }
            ));
            let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
            o.push_str(&format!(
                "  global: {} transactions ({} lines), minimum {} ({:.2}x), compulsory {} ({:.2}x)\n",
                k.global_transactions,
                k.global_lines,
                k.min_transactions,
                ratio(k.global_transactions, k.min_transactions),
                k.compulsory_transactions,
                ratio(k.global_transactions, k.compulsory_transactions),
            ));
            if k.shared_requests > 0 {
                o.push_str(&format!(
                    "  shared: {} requests, {} wavefronts, bank-conflict degree max {} mean {:.2}\n",
                    k.shared_requests, k.shared_wavefronts, k.bank_max, k.bank_mean
                ));
            }
            o.push_str(&format!(
                "  {} warp instructions, {} flops, occupancy {:.0}% ({} blocks/SM, limited by {}{})\n",
                k.instructions,
                k.flops,
                k.occupancy * 100.0,
                k.blocks_per_sm,
                k.limited_by.name(),
                k.registers
                    .map(|r| format!("; {} registers per work-item", r))
                    .unwrap_or_default()
            ));
            o.push_str(&format!(
                "  caches: {} L1 hits, {} L2 sectors, {} DRAM sectors ({} read, {} written)\n",
                k.l1_hits,
                k.l2_sectors,
                k.dram_reads + k.dram_writes,
                k.dram_reads,
                k.dram_writes
            ));
            if let Some(c) = &k.channels {
                o.push_str(&format!(
                    "  channels: imbalance {:.2} over the first wave ({} blocks; sectors per channel {})\n",
                    c.imbalance(),
                    c.wave_blocks,
                    c.sectors
                        .iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
            o.push_str(&format!(
                "  time: {:.1} us (model estimate, bound: {}; {})\n",
                k.estimate_us,
                k.terms.bound().0,
                k.terms
                    .all()
                    .iter()
                    .filter(|(n, _)| *n != "channel" || k.channels.is_some())
                    .filter(|(n, _)| *n != "l1" || self.l1_lines)
                    .map(|(n, t)| format!("{} {:.1}", n, t))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            for a in &k.accesses {
                let c = &a.counts;
                match a.info.space {
                    Space::Global => o.push_str(&format!(
                        "    {} {}: {} requests, {} transactions / minimum {} ({:.2}x), {} lines\n",
                        a.info.kind.name(),
                        a.info.label,
                        c.requests,
                        c.sectors,
                        c.min_sectors,
                        a.ratio(),
                        c.lines
                    )),
                    Space::Local => o.push_str(&format!(
                        "    {} {}: {} requests, bank-conflict degree max {} mean {:.2}\n",
                        a.info.kind.name(),
                        a.info.label,
                        c.requests,
                        c.max_degree,
                        a.mean_degree()
                    )),
                    Space::Private => {}
                }
            }
        }
        if !self.findings.is_empty() {
            o.push_str("\nchecker:\n");
            for f in &self.findings {
                o.push_str(&format!("  {}\n", f));
            }
        }
        o
    }
}

/// The coalescing lint's verdict the simulator's counts give an access (None if it never ran):
/// where the lint commits to a verdict, the counts agree (`tests/sim.rs`).
pub fn dynamic_verdict(c: &AccessCounts) -> Option<Verdict> {
    if c.requests == 0 {
        return None;
    }
    Some(if c.broadcast_requests == c.requests {
        Verdict::Broadcast
    } else if c.sectors <= c.min_sectors && c.lines <= c.min_lines {
        Verdict::Coalesced
    } else if c.strided_requests >= c.misaligned_requests {
        Verdict::UncoalescedStride
    } else {
        Verdict::UncoalescedAlignment
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_every_control_character() {
        let r = Report {
            l1_lines: false,
            platform: "p\r\t\"\\\u{1}".into(),
            kernels: Vec::new(),
            findings: Vec::new(),
        };
        let json = r.render_json();
        assert!(
            json.contains(r#""platform": "p\r\t\"\\\u0001""#),
            "{}",
            json
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["platform"], "p\r\t\"\\\u{1}");
        assert_eq!((round4(1.0 / 3.0), round4(2.0)), (0.3333, 2.0));
    }
}
