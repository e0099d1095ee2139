//! The memory-model report: per static access and per kernel, in text and JSON.
//!
//! Definitions (all counts are per warp request, summed over the launch):
//! - *global transactions*: distinct sectors (`SimPlatform::sector` bytes, 32 on NVIDIA) a
//!   request touches; *lines*: distinct `SimPlatform::line` (128-byte) lines;
//! - *minimum*: `ceil(distinct bytes requested / sector)` (and `/ line`): what a perfectly
//!   coalesced request for the same bytes would need; the ratio is transactions / minimum;
//! - *compulsory transactions* of a kernel: the distinct sectors holding an element it reads,
//!   plus those holding an element it writes (every input read once, every output written once);
//! - *bank-conflict degree* of a shared request: the largest number of distinct bank-width words
//!   that fall in one bank (several lanes reading the same word is a broadcast, degree 1); it is
//!   the number of wavefronts the request takes;
//! - *occupancy*: resident warps per multiprocessor over the maximum, limited by threads, blocks
//!   and shared memory per multiprocessor (registers are not modelled);
//! - *time*: a roofline **model estimate**, `max(global sector bytes / bandwidth, flops / peak)`;
//!   it ignores caches, latency and overlap and is never a measurement.

use super::*;

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

    /// Mean bank-conflict degree of a shared access.
    pub fn mean_degree(&self) -> f64 {
        if self.counts.requests == 0 {
            0.0
        } else {
            self.counts.wavefronts as f64 / self.counts.requests as f64
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
                    k.bank_max = k.bank_max.max(a.counts.max_degree);
                }
                Space::Private => {}
            }
        }
        k.bank_mean = if k.shared_requests == 0 {
            0.0
        } else {
            k.shared_wavefronts as f64 / k.shared_requests as f64
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

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_f(x: f64) -> String {
    if x.is_finite() {
        let s = format!("{:.4}", x);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s.is_empty() || s == "-" {
            "0".to_string()
        } else {
            s.to_string()
        }
    } else {
        "null".to_string()
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Local => "shared",
        Space::Private => "private",
    }
}

impl Report {
    pub fn render_json(&self) -> String {
        let mut o = String::new();
        o.push_str(&format!(
            "{{\n  \"platform\": {},\n  \"kernels\": [",
            json_str(&self.platform)
        ));
        for (ki, k) in self.kernels.iter().enumerate() {
            o.push_str(if ki == 0 { "\n" } else { ",\n" });
            o.push_str(&format!(
                "    {{\n      \"kernel\": {},\n      \"launches\": {},\n      \"block\": [{}, {}, {}],\n      \"blocks\": {},\n      \"blocks_simulated\": {},\n      \"global_transactions\": {},\n      \"global_lines\": {},\n      \"min_transactions\": {},\n      \"compulsory_transactions\": {},\n      \"shared_wavefronts\": {},\n      \"bank_conflict_degree\": {{\"max\": {}, \"mean\": {}}},\n      \"instructions\": {},\n      \"flops\": {},\n      \"occupancy\": {},\n      \"model_estimate_us\": {},\n      \"accesses\": [",
                json_str(&k.kernel),
                k.launches,
                k.block[0],
                k.block[1],
                k.block[2],
                k.blocks_total,
                k.blocks_simulated,
                k.global_transactions,
                k.global_lines,
                k.min_transactions,
                k.compulsory_transactions,
                k.shared_wavefronts,
                k.bank_max,
                json_f(k.bank_mean),
                k.instructions,
                k.flops,
                json_f(k.occupancy),
                json_f(k.estimate_us),
            ));
            for (ai, a) in k.accesses.iter().enumerate() {
                o.push_str(if ai == 0 { "\n" } else { ",\n" });
                let c = &a.counts;
                o.push_str(&format!(
                    "        {{\"id\": {}, \"label\": {}, \"array\": {}, \"space\": \"{}\", \"kind\": \"{}\", \"requests\": {}",
                    a.info.id,
                    json_str(&a.info.label),
                    json_str(&a.info.array),
                    space_name(a.info.space),
                    a.info.kind.name(),
                    c.requests
                ));
                match a.info.space {
                    Space::Global => o.push_str(&format!(
                        ", \"global_transactions\": {}, \"lines\": {}, \"min_transactions\": {}, \"min_lines\": {}, \"ratio\": {}",
                        c.sectors,
                        c.lines,
                        c.min_sectors,
                        c.min_lines,
                        json_f(a.ratio())
                    )),
                    Space::Local => o.push_str(&format!(
                        ", \"bank_conflict_degree\": {{\"max\": {}, \"mean\": {}}}, \"wavefronts\": {}",
                        c.max_degree,
                        json_f(a.mean_degree()),
                        c.wavefronts
                    )),
                    Space::Private => {}
                }
                o.push('}');
            }
            o.push_str("\n      ]\n    }");
        }
        o.push_str("\n  ],\n  \"findings\": [");
        for (i, f) in self.findings.iter().enumerate() {
            o.push_str(if i == 0 { "\n" } else { ",\n" });
            o.push_str(&format!("    {}", json_str(&f.to_string())));
        }
        o.push_str("\n  ]\n}\n");
        o
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
