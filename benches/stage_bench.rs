//! The levels of `accshare bench` on the first OpenCL device (PoCL on CI), at larger sizes:
//! `cargo bench --bench stage_bench`.
//!
//! Each benchmark program is measured by `runtime::bench` — naive, `+share` (staged, one row per
//! work-item, no padding), `+bank` (padded against bank conflicts) and `+ILP` (the default
//! compilation) — each kernel verified against the sequential program and event-timed (median of
//! `ACCSHARE_BENCH_REPS` replays, default 3, after a warm-up), the partitions sized for
//! `ACCSHARE_BENCH_PLATFORM` (default a100). `ACCSHARE_BENCH_ONLY` is a comma list of example
//! names to run a subset.

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
    let oo = OptOptions::new(opt);
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
    let platform = accshare::model::Platform::load(
        &std::env::var("ACCSHARE_BENCH_PLATFORM").unwrap_or_else(|_| "a100".to_string()),
    )
    .expect("ACCSHARE_BENCH_PLATFORM");
    let devices: Vec<(usize, String)> = match accshare::runtime::devices::opencl_devices() {
        Ok(d) if !d.is_empty() => vec![(d[0].0, format!("{} ({})", d[0].1.name, d[0].1.platform))],
        _ => {
            println!("SKIP: no OpenCL device: the levels are only estimated");
            Vec::new()
        }
    };
    let mut programs = Vec::new();
    for (name, path, defs) in CASES {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let opts = bench::BenchOptions {
            pp: accshare::front::preprocess::PpOptions {
                defines: defs
                    .iter()
                    .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                    .collect(),
                include_dirs: Vec::new(),
            },
            platform: platform.clone(),
            devices: devices
                .iter()
                .map(|(i, _)| accshare::runtime::measure::Device::OpenCl(*i))
                .collect(),
            platforms: Vec::new(),
            reps,
            sample: None,
            work_dir: tmp.join(name),
        };
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        match bench::bench_file(
            &root.join(path),
            &opts,
            &mut sources,
            &mut diags,
            &mut |_| {},
        ) {
            Ok(p) => programs.push(p),
            Err(bench::BenchError::Compile) => {
                println!("{:<9} error:\n{}", name, diag::render(&sources, &diags.0))
            }
            Err(bench::BenchError::Run(e)) => println!("{:<9} error: {}", name, e),
        }
    }
    let report = bench::BenchReport {
        version: 1,
        compiled_for: platform.name.clone(),
        reps,
        devices: devices
            .iter()
            .map(|(i, name)| bench::DeviceInfo {
                device: format!("opencl:{}", i),
                name: name.clone(),
            })
            .collect(),
        platforms: Vec::new(),
        programs,
    };
    print!("{}", bench::report::table(&report));
    for f in bench::report::failures(&report) {
        println!("error: {}", f);
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
