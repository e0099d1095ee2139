//! The memory-model report: per static access and per kernel, in text and JSON.
//!
//! Definitions (all counts are per warp request, summed over the launch):
//! - *global transactions*: distinct sectors (`SimPlatform::sector` bytes, 32 on NVIDIA) a
//!   request touches; *lines*: distinct `SimPlatform::line` (128-byte) lines;
//! - *minimum*: `ceil(distinct bytes requested / sector)` (and `/ line`): what a perfectly
//!   coalesced request for the same bytes would need; the ratio is transactions / minimum;
//! - *compulsory transactions* of a kernel: the distinct sectors holding an element it reads,
//!   plus those holding an element it writes (every input read once, every output written once);
//! - *wavefronts* of a shared request: per group of lanes the banks serve together
//!   (`SimPlatform::shared_lanes`: a warp on NVIDIA, half a 64-wide wavefront on AMD), the largest
//!   number of distinct bank-width words that fall in one bank (several lanes reading the same
//!   word is a broadcast); the *minimum* for the same words is `ceil(words / banks)` per group;
//! - *bank-conflict degree*: wavefronts over that minimum, relative to what the hardware can do
//!   (consecutive 8-byte elements on 4-byte banks take two wavefronts and have degree 1);
//! - *occupancy*: resident warps per multiprocessor over the maximum, limited by threads, blocks
//!   and shared memory per multiprocessor (registers are not modelled);
//! - *time*: a roofline **model estimate**, `max(global sector bytes / bandwidth, flops / peak)`;
//!   it ignores caches, latency and overlap and is never a measurement.

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
    /// Roofline model estimate, microseconds.
    pub estimate_us: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub platform: String,
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
        let by_threads = platform.max_threads_per_sm / (warps * warp).max(1);
        let by_shared = platform
            .shared_per_sm
            .checked_div(k.shared_bytes)
            .unwrap_or(u32::MAX);
        k.blocks_per_sm = by_threads.min(platform.max_blocks_per_sm).min(by_shared);
        k.occupancy = (k.blocks_per_sm * warps * warp) as f64 / platform.max_threads_per_sm as f64;
        let bytes = k.global_transactions as f64 * platform.sector as f64;
        let t_mem = bytes / (platform.bandwidth_gbs * 1e3);
        let t_flop = k.flops as f64 / (platform.gflops * 1e3);
        k.estimate_us = t_mem.max(t_flop);
    }
    Report {
        platform: platform.name.clone(),
        kernels,
        findings,
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
    model_estimate_us: f64,
    accesses: Vec<AccessJson<'a>>,
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
                model_estimate_us: round4(k.estimate_us),
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
                "  {} warp instructions, {} flops, occupancy {:.0}% ({} blocks/SM)\n",
                k.instructions,
                k.flops,
                k.occupancy * 100.0,
                k.blocks_per_sm
            ));
            o.push_str(&format!(
                "  time: {:.1} us (model estimate: roofline, no caches)\n",
                k.estimate_us
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
