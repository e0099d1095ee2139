//! `accshare bench`'s outputs: an aligned table (times and ratios to naive), CSV (one line per
//! kernel, device or platform, and level) and JSON (`docs/bench-json.md`).

use super::{BenchReport, Level, LevelEstimate, SimCounts, Status};

/// A time with a unit that keeps three or four significant digits.
pub fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{:.3} s", s)
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.2} us", s * 1e6)
    }
}

/// One cell of the table: the time and its speed-up over naive, or why there is none; `same`
/// marks a level whose kernel is the previous level's (its time repeated, `=`).
fn cell(status: &Status, seconds: Option<f64>, speedup: Option<f64>, same: bool) -> String {
    let mark = if same { '=' } else { ' ' };
    match (status, seconds) {
        (Status::Ok, Some(s)) => format!(
            "{:>10} {:>6}{}",
            fmt_time(s),
            speedup.map(|x| format!("{:.2}x", x)).unwrap_or_default(),
            mark
        ),
        (Status::Wrong, _) => format!("{:>17}{}", "WRONG", mark),
        _ => format!("{:>17}{}", "failed", mark),
    }
}

/// A fraction as a percentage with two significant digits or more.
fn percent(f: f64) -> String {
    if f < 0.1 {
        format!("{:.1}%", f * 100.0)
    } else {
        format!("{:.0}%", f * 100.0)
    }
}

/// The report as aligned text: per program, per kernel, a row per device (measured) and per
/// platform (model estimate), a column per level with its time and its speed-up over naive;
/// under a memory-bound kernel's device row, each level's fraction of the copy bandwidth.
pub fn table(r: &BenchReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "measured: kernels compiled for {}, verified against the sequential program, median of {} event-timed run(s) after a warm-up; model: the time estimate of `accshare analyze`\n",
        r.compiled_for, r.reps
    ));
    out.push_str("`=`: the same kernel as the level before (not measured again); `% of copy`: the copy bandwidth a memory-bound kernel reaches\n");
    for d in &r.devices {
        out.push_str(&format!("{}: {}\n", d.device, d.name));
    }
    let name_w = r
        .programs
        .iter()
        .flat_map(|p| p.kernels.iter().map(|k| k.kernel.len()))
        .max()
        .unwrap_or(6)
        .max(6);
    let on_w = r
        .devices
        .iter()
        .map(|d| d.device.len())
        .chain(r.platforms.iter().map(|p| p.len() + 8))
        .max()
        .unwrap_or(8)
        .max(12);
    for p in &r.programs {
        out.push_str(&format!("\n{}\n", p.file));
        out.push_str(&format!("{:<name_w$}  {:<on_w$}", "kernel", "on"));
        for l in Level::ALL {
            out.push_str(&format!("  {:>17} ", l.label()));
        }
        out.push('\n');
        for k in &p.kernels {
            let mut first = true;
            let mut name = || {
                let n = if first { k.kernel.as_str() } else { "" };
                first = false;
                n.to_string()
            };
            for m in &k.measured {
                out.push_str(&format!("{:<name_w$}  {:<on_w$}", name(), m.device));
                for l in &m.levels {
                    out.push_str(&format!(
                        "  {}",
                        cell(&l.status, l.seconds, l.speedup, l.same_as.is_some())
                    ));
                }
                out.push('\n');
                if m.levels.iter().any(|l| l.copy_fraction.is_some()) {
                    out.push_str(&format!("{:<name_w$}  {:<on_w$}", "", "  % of copy"));
                    for l in &m.levels {
                        let f = l
                            .copy_fraction
                            .map(percent)
                            .unwrap_or_else(|| "-".to_string());
                        out.push_str(&format!("  {:>17} ", f));
                    }
                    out.push('\n');
                }
            }
            for m in &k.model {
                out.push_str(&format!(
                    "{:<name_w$}  {:<on_w$}",
                    name(),
                    format!("{} (model)", m.platform)
                ));
                for l in &m.levels {
                    out.push_str(&format!(
                        "  {}",
                        cell(&l.status, l.seconds, l.speedup, false)
                    ));
                }
                out.push('\n');
                out.push_str(&count_rows(&m.levels, name_w, on_w));
            }
        }
    }
    // The cells end in a mark column, blank on most lines.
    out.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

/// The simulator's counts under a platform's row, a row each: shared wavefronts (with the
/// largest bank-conflict degree), global transactions and, where the platform models channels,
/// the channel imbalance.
fn count_rows(levels: &[LevelEstimate], name_w: usize, on_w: usize) -> String {
    let counts: Vec<Option<&SimCounts>> = levels.iter().map(|l| l.counts.as_ref()).collect();
    if counts.iter().all(Option::is_none) {
        return String::new();
    }
    type Cell = fn(&SimCounts) -> Option<String>;
    let mut rows: Vec<(&str, Cell)> = vec![
        ("  shared wavefronts", |c| {
            Some(match c.bank_max {
                0 => "0".to_string(),
                d => format!("{} ({}-way)", c.shared_wavefronts, d),
            })
        }),
        ("  global transactions", |c| {
            Some(c.global_transactions.to_string())
        }),
    ];
    if counts
        .iter()
        .flatten()
        .any(|c| c.channel_imbalance.is_some())
    {
        rows.push(("  channel imbalance", |c| {
            c.channel_imbalance.map(|i| format!("{:.2}", i))
        }));
    }
    let mut out = String::new();
    for (label, f) in rows {
        out.push_str(&format!("{:<name_w$}  {:<on_w$}", "", label));
        for c in &counts {
            let v = c.and_then(f).unwrap_or_else(|| "-".to_string());
            out.push_str(&format!("  {:>17} ", v));
        }
        out.push('\n');
    }
    out
}

/// The CSV header of [`csv`].
pub const CSV_HEADER: &str = "file,kernel,source,on,level,status,seconds,speedup,same_as,memory_bound,copy_seconds,copy_fraction,shared_wavefronts,bank_max,global_transactions,channel_imbalance,flops";

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(x: Option<f64>) -> String {
    x.map(|v| format!("{:e}", v)).unwrap_or_default()
}

fn status(s: &Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::Wrong => "wrong",
        Status::Failed => "failed",
    }
}

/// The report as CSV ([`CSV_HEADER`]): one line per program, kernel, device (`source`
/// `measured`) or platform (`model`), and level; empty fields where a value does not apply.
/// `flops` is the simulator's count of the kernel's floating-point operations per program run
/// (its roofline's), the same on every level.
pub fn csv(r: &BenchReport) -> String {
    let mut out = format!("{}\n", CSV_HEADER);
    for p in &r.programs {
        for k in &p.kernels {
            for m in &k.measured {
                let bound = m
                    .roofline
                    .as_ref()
                    .map(|r| r.memory_bound.to_string())
                    .unwrap_or_default();
                let flops = m
                    .roofline
                    .as_ref()
                    .map(|r| r.flops.to_string())
                    .unwrap_or_default();
                for l in &m.levels {
                    out.push_str(&format!(
                        "{},{},measured,{},{},{},{},{},{},{},{},{},,,,,{}\n",
                        field(&p.file),
                        field(&k.kernel),
                        field(&m.device),
                        l.level.label(),
                        status(&l.status),
                        num(l.seconds),
                        num(l.speedup),
                        l.same_as.map(|s| s.label()).unwrap_or_default(),
                        bound,
                        num(m.copy_seconds),
                        num(l.copy_fraction),
                        flops,
                    ));
                }
            }
            for m in &k.model {
                let bound = m
                    .roofline
                    .as_ref()
                    .map(|r| r.memory_bound.to_string())
                    .unwrap_or_default();
                let flops = m
                    .roofline
                    .as_ref()
                    .map(|r| r.flops.to_string())
                    .unwrap_or_default();
                for l in &m.levels {
                    let c = l.counts.as_ref();
                    out.push_str(&format!(
                        "{},{},model,{},{},{},{},{},,{},,,{},{},{},{},{}\n",
                        field(&p.file),
                        field(&k.kernel),
                        field(&m.platform),
                        l.level.label(),
                        status(&l.status),
                        num(l.seconds),
                        num(l.speedup),
                        bound,
                        c.map(|c| c.shared_wavefronts.to_string())
                            .unwrap_or_default(),
                        c.map(|c| c.bank_max.to_string()).unwrap_or_default(),
                        c.map(|c| c.global_transactions.to_string())
                            .unwrap_or_default(),
                        num(c.and_then(|c| c.channel_imbalance)),
                        flops,
                    ));
                }
            }
        }
    }
    out
}

/// The report as JSON (`docs/bench-json.md`), pretty-printed.
pub fn json(r: &BenchReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{}\"}}", e))
}

/// Every level that is not `ok`, as `error:` lines (file, kernel, where, level, why).
pub fn failures(r: &BenchReport) -> Vec<String> {
    let mut out = Vec::new();
    for p in &r.programs {
        for k in &p.kernels {
            for m in &k.measured {
                for l in m.levels.iter().filter(|l| l.status != Status::Ok) {
                    out.push(format!(
                        "{}: {} {} on {}: {}{}",
                        p.file,
                        k.kernel,
                        l.level.label(),
                        m.device,
                        if l.status == Status::Wrong {
                            "results differ from the sequential program's (a bug of accshare): "
                        } else {
                            ""
                        },
                        l.error.as_deref().unwrap_or("failed")
                    ));
                }
            }
            for m in &k.model {
                for l in m.levels.iter().filter(|l| l.status != Status::Ok) {
                    out.push(format!(
                        "{}: {} {} on {} (model): {}",
                        p.file,
                        k.kernel,
                        l.level.label(),
                        m.platform,
                        l.error.as_deref().unwrap_or("failed")
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    fn level(level: Level, s: Option<f64>, status: Status) -> LevelTime {
        LevelTime {
            level,
            status,
            seconds: s,
            speedup: s.map(|s| 0.004 / s),
            same_as: None,
            copy_fraction: s.map(|s| 0.001 / s),
            error: None,
        }
    }

    fn report() -> BenchReport {
        BenchReport {
            version: 1,
            compiled_for: "a100".into(),
            reps: 5,
            devices: vec![DeviceInfo {
                device: "opencl:0".into(),
                name: "cpu".into(),
            }],
            platforms: vec!["a100".into()],
            programs: vec![ProgramBench {
                file: "mt.c".into(),
                kernels: vec![KernelBench {
                    kernel: "mt_r0_k0".into(),
                    origin: "mt.c:3:5".into(),
                    measured: vec![Measured {
                        device: "opencl:0".into(),
                        levels: vec![
                            level(Level::Naive, Some(0.004), Status::Ok),
                            level(Level::Share, Some(0.002), Status::Ok),
                            level(Level::Bank, None, Status::Wrong),
                            LevelTime {
                                same_as: Some(Level::Share),
                                ..level(Level::Ilp, Some(0.001), Status::Ok)
                            },
                        ],
                        copy_seconds: Some(0.001),
                        roofline: None,
                    }],
                    model: vec![Modelled {
                        platform: "a100".into(),
                        levels: Level::ALL
                            .iter()
                            .map(|&l| LevelEstimate {
                                level: l,
                                status: Status::Ok,
                                seconds: Some(2e-6),
                                speedup: Some(1.0),
                                // The bank techniques (+bank) take the degree from 32 to 1.
                                counts: Some(SimCounts {
                                    shared_wavefronts: match l {
                                        Level::Naive => 0,
                                        Level::Share => 3200,
                                        _ => 100,
                                    },
                                    bank_max: match l {
                                        Level::Naive => 0,
                                        Level::Share => 32,
                                        _ => 1,
                                    },
                                    global_transactions: 800,
                                    channel_imbalance: (l >= Level::Bank).then_some(1.25),
                                }),
                                error: None,
                            })
                            .collect(),
                        roofline: None,
                    }],
                }],
            }],
        }
    }

    #[test]
    fn the_table_gives_times_ratios_and_failures_per_level() {
        let t = table(&report());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[4].split_whitespace().collect::<Vec<_>>(), ["mt.c"]);
        assert_eq!(
            lines[5].split_whitespace().collect::<Vec<_>>(),
            ["kernel", "on", "naive", "+share", "+bank", "+ILP"]
        );
        assert_eq!(
            lines[6].split_whitespace().collect::<Vec<_>>(),
            [
                "mt_r0_k0", "opencl:0", "4.000", "ms", "1.00x", "2.000", "ms", "2.00x", "WRONG",
                "1.000", "ms", "4.00x="
            ]
        );
        assert_eq!(
            lines[7].split_whitespace().collect::<Vec<_>>(),
            ["%", "of", "copy", "25%", "50%", "-", "100%"]
        );
        assert!(lines[8].contains("a100 (model)") && lines[8].contains("2.00 us"));
        assert_eq!(
            lines[9].split_whitespace().collect::<Vec<_>>(),
            [
                "shared",
                "wavefronts",
                "0",
                "3200",
                "(32-way)",
                "100",
                "(1-way)",
                "100",
                "(1-way)"
            ]
        );
        assert_eq!(
            lines[10].split_whitespace().collect::<Vec<_>>(),
            ["global", "transactions", "800", "800", "800", "800"]
        );
        assert_eq!(
            lines[11].split_whitespace().collect::<Vec<_>>(),
            ["channel", "imbalance", "-", "-", "1.25", "1.25"]
        );
        assert_eq!(failures(&report()).len(), 1);
        assert_eq!(
            (percent(0.0123), percent(0.5)),
            ("1.2%".to_string(), "50%".to_string())
        );
    }

    #[test]
    fn csv_has_one_line_per_level() {
        let c = csv(&report());
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines.len(), 1 + 8);
        assert_eq!(
            lines[1],
            "mt.c,mt_r0_k0,measured,opencl:0,naive,ok,4e-3,1e0,,,1e-3,2.5e-1,,,,,"
        );
        assert!(lines[3].starts_with("mt.c,mt_r0_k0,measured,opencl:0,+bank,wrong,,"));
        assert!(
            lines[4].contains(",+ILP,ok,1e-3,4e0,+share,"),
            "{}",
            lines[4]
        );
        assert_eq!(
            lines[5],
            "mt.c,mt_r0_k0,model,a100,naive,ok,2e-6,1e0,,,,,0,0,800,,"
        );
        assert_eq!(
            lines[7],
            "mt.c,mt_r0_k0,model,a100,+bank,ok,2e-6,1e0,,,,,100,1,800,1.25e0,"
        );
    }
}
