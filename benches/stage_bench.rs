//! Naive vs `--opt share` on PoCL, side by side: `cargo bench --bench stage_bench`.
//!
//! Each benchmark program is compiled three ways at a larger size — naive, share with one output
//! per work-item (`--ilp 1`) and share as compiled by default (several rows per work-item where
//! accshare chooses it) — built with `cc -O2 -lOpenCL` and run `REPS` times; the generated host
//! code is patched so that every kernel launch is timed between two `clFinish` calls (kernel
//! time only, without transfers or program build). The table shows the best kernel time of each,
//! the ratios naive / share and share ilp=1 / share, and whether all outputs are the same bytes. Set `ACCSHARE_BENCH_REPS` to change the number of runs, `ACCSHARE_BENCH_ONLY` to a
//! comma list of example names to run a subset.

use std::path::Path;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver::{self, OptLevel, OptOptions};
use accshare::runtime::bench;

/// (name, source under the crate root, sizes).
type Case = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const CASES: &[Case] = &[
    ("mt", "examples/mt.c", &[("N", "2048"), ("M", "2048")]),
    (
        "mt_out",
        "tests/corpus/share_write_transpose.c",
        &[("N", "2048"), ("M", "2048")],
    ),
    (
        "gemm",
        "examples/gemm.c",
        &[("NI", "512"), ("NJ", "512"), ("NK", "512")],
    ),
    ("mv", "examples/mv.c", &[("N", "4096"), ("M", "4096")]),
    ("gauss", "examples/gauss.c", &[("H", "2048"), ("W", "2048")]),
    (
        "hotspot",
        "examples/hotspot.c",
        &[("ROWS", "1024"), ("COLS", "1024"), ("STEPS", "100")],
    ),
    (
        "conv3x3",
        "examples/conv3x3.c",
        &[("H", "2048"), ("W", "2048")],
    ),
];

/// Global-memory sectors of every run of `src` on the simulator (a100-like), per array.
fn sim_sectors(
    src: &Path,
    opt: OptLevel,
    dir: &Path,
) -> Result<std::collections::BTreeMap<String, u64>, String> {
    use accshare::sim::{trace, SimOptions, SimPlatform};
    let text = std::fs::read_to_string(src).map_err(|e| e.to_string())?;
    let defs: Vec<(String, Option<String>)> = SIM_SIZE
        .iter()
        .filter(|(n, _)| text.contains(&format!("#ifndef {}", n)))
        .map(|(a, b)| (a.to_string(), Some(b.to_string())))
        .collect();
    let pp = accshare::front::preprocess::PpOptions {
        defines: defs,
        include_dirs: Vec::new(),
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: pp.clone(),
    };
    let oo = OptOptions {
        opt,
        platform: None,
        ilp: None,
    };
    let out = driver::compile_with(src, &opts, &oo, &mut sources, &mut diags)
        .ok_or_else(|| diag::render(&sources, &diags.0))?;
    let sim_opts = SimOptions {
        check: true,
        ..Default::default()
    };
    let (rep, _) = trace::run_module(
        src,
        &out.module,
        &pp,
        &SimPlatform::nvidia(),
        &sim_opts,
        dir,
    )
    .map_err(|e| e.to_string())?;
    let mut m = std::collections::BTreeMap::new();
    for r in &rep.runs {
        if !r.findings.is_empty() {
            return Err(format!("{} checker findings", r.findings.len()));
        }
        for (a, c) in r.stats.accesses.iter().zip(&r.stats.counts) {
            if a.space == accshare::kernel::Space::Global {
                *m.entry(a.array.clone()).or_insert(0) += c.sectors;
            }
        }
    }
    Ok(m)
}

/// Sizes for the simulator table (small: every thread is simulated).
const SIM_SIZE: &[(&str, &str)] = &[
    ("N", "128"),
    ("M", "128"),
    ("NI", "128"),
    ("NJ", "128"),
    ("NK", "128"),
    ("H", "128"),
    ("W", "128"),
    ("ROWS", "128"),
    ("COLS", "128"),
    ("STEPS", "2"),
];

fn main() {
    let reps: usize = std::env::var("ACCSHARE_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let only: Option<Vec<String>> = std::env::var("ACCSHARE_BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("accshare-bench-{}", std::process::id()));
    println!(
        "naive vs --opt share on PoCL, kernel time (best of {} runs)",
        reps
    );
    println!(
        "{:<9} {:<28} {:>10} {:>14} {:>10} {:>8} {:>8}  same output",
        "program", "size", "naive ms", "share ilp=1 ms", "share ms", "n/share", "ilp gain"
    );
    let platform = match std::env::var("ACCSHARE_BENCH_PLATFORM") {
        Ok(name) => Some(accshare::model::Platform::load(&name).expect("ACCSHARE_BENCH_PLATFORM")),
        Err(_) => None,
    };
    let variants = bench::default_variants(platform);
    for (name, path, defs) in CASES {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let src = root.join(path);
        let dir = tmp.join(name);
        let _ = std::fs::create_dir_all(&dir);
        let size = defs
            .iter()
            .map(|(a, b)| format!("{}={}", a, b))
            .collect::<Vec<_>>()
            .join(" ");
        let opts = bench::BenchOptions {
            defines: defs
                .iter()
                .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                .collect(),
            include_dirs: Vec::new(),
            reps,
        };
        let rows = bench::bench(&src, &opts, &variants, &dir);
        let res: Vec<&Result<bench::Timing, String>> = rows.iter().map(|r| &r.result).collect();
        match (res[0], res[1], res[2]) {
            (Ok(n), Ok(s1), Ok(s)) => println!(
                "{:<9} {:<28} {:>10.3} {:>14.3} {:>10.3} {:>7.2}x {:>7.2}x  {}",
                name,
                size,
                n.kernel * 1e3,
                s1.kernel * 1e3,
                s.kernel * 1e3,
                n.kernel / s.kernel,
                s1.kernel / s.kernel,
                if bench::all_agree(&rows) { "yes" } else { "NO" }
            ),
            (a, b, c) => {
                for e in [a, b, c].into_iter().filter_map(|r| r.as_ref().err()) {
                    println!("{:<9} error: {}", name, e);
                }
            }
        }
    }
    if std::env::var("ACCSHARE_BENCH_NO_SIM").is_err() {
        println!();
        println!("global-memory sectors on the simulator (a100-like, sizes 128, hotspot 2 steps), per array");
        for (name, path, _) in CASES {
            if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
                continue;
            }
            let src = root.join(path);
            let dir = tmp.join(format!("sim-{}", name));
            let n = sim_sectors(&src, OptLevel::Naive, &dir.join("n"));
            let s = sim_sectors(&src, OptLevel::Share, &dir.join("s"));
            match (n, s) {
                (Ok(n), Ok(s)) => {
                    let tn: u64 = n.values().sum();
                    let ts: u64 = s.values().sum();
                    let per: Vec<String> = n
                        .iter()
                        .map(|(a, v)| format!("{} {}->{}", a, v, s.get(a).copied().unwrap_or(0)))
                        .collect();
                    println!(
                        "{:<9} total {:>9} -> {:>9} ({:.2}x fewer)   {}",
                        name,
                        tn,
                        ts,
                        tn as f64 / ts.max(1) as f64,
                        per.join(", ")
                    );
                }
                (a, b) => {
                    for e in [a, b].into_iter().filter_map(|r| r.err()) {
                        println!("{:<9} error: {}", name, e);
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
