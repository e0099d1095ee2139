//! Naive vs `--opt share` on PoCL, side by side: `cargo bench --bench stage_bench`.
//!
//! Each benchmark program is compiled three ways at a larger size — naive, share with one output
//! per work-item (`--ilp 1`) and share as compiled by default (several rows per work-item where
//! accshare chooses it) — built with `cc -O2 -lOpenCL` and run `REPS` times; the generated host
//! code is patched so that every kernel launch is timed between two `clFinish` calls (kernel
//! time only, without transfers or program build). The table shows the best kernel time of each,
//! the ratios naive / share and share ilp=1 / share, and whether all outputs are the same bytes. Set `ACCSHARE_BENCH_REPS` to change the number of runs, `ACCSHARE_BENCH_ONLY` to a
//! comma list of example names to run a subset.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use accshare::back::output::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver::{self, OptLevel, OptOptions};

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

const TIMER: &str = r#"
/* ---- accshare bench: kernel timing ---- */
#include <time.h>
static double accshare_bench_seconds = 0.0;
static void accshare_bench_report(void)
{
    fprintf(stderr, "ACCSHARE_BENCH_KERNEL_SECONDS %.9f\n", accshare_bench_seconds);
}
static void accshare_launch_timed(cl_kernel k, cl_uint dims, const size_t *global, const size_t *local, const char *kname, const char *origin)
{
    static int registered = 0;
    struct timespec a, b;
    if (!registered) {
        registered = 1;
        atexit(accshare_bench_report);
    }
    clFinish(accshare_queue);
    clock_gettime(CLOCK_MONOTONIC, &a);
    accshare_launch(k, dims, global, local, kname, origin);
    clFinish(accshare_queue);
    clock_gettime(CLOCK_MONOTONIC, &b);
    accshare_bench_seconds += (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}
"#;

const MARK: &str = "/* ---- end of the accshare prelude ---- */";

fn build(
    src: &Path,
    defs: &[(&str, &str)],
    opt: OptLevel,
    ilp: Option<u32>,
    dir: &Path,
) -> Result<PathBuf, String> {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: accshare::front::preprocess::PpOptions {
            defines: defs
                .iter()
                .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    let platform = match std::env::var("ACCSHARE_BENCH_PLATFORM") {
        Ok(name) => Some(accshare::model::Platform::load(&name)?),
        Err(_) => None,
    };
    let oo = OptOptions { opt, platform, ilp };
    let out = driver::compile_with(src, &opts, &oo, &mut sources, &mut diags)
        .ok_or_else(|| diag::render(&sources, &diags.0))?;
    let host = out.host_source;
    let at = host.find(MARK).ok_or("no prelude marker")? + MARK.len();
    let patched = format!("{}{}{}", &host[..at], TIMER, &host[at..]).replace(
        "accshare_launch(accshare_k",
        "accshare_launch_timed(accshare_k",
    );
    let tag = format!(
        "{}{}",
        format!("{:?}", opt).to_lowercase(),
        ilp.map(|f| f.to_string()).unwrap_or_default()
    );
    let c = dir.join(format!("{}.c", tag));
    std::fs::write(&c, patched).map_err(|e| e.to_string())?;
    let exe = dir.join(tag);
    let mut cmd = Command::new("cc");
    cmd.args(["-O2", "-std=gnu99"]);
    if let Some(p) = src.parent() {
        cmd.arg(format!("-I{}", p.display()));
    }
    for (a, b) in defs {
        cmd.arg(format!("-D{}={}", a, b));
    }
    cmd.arg(&c).arg("-o").arg(&exe).args(["-lm", "-lOpenCL"]);
    let o = cmd.output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(exe)
}

/// (kernel seconds, wall seconds, stdout)
fn run(exe: &Path) -> Result<(f64, f64, Vec<u8>), String> {
    let t = Instant::now();
    let o = Command::new(exe).output().map_err(|e| e.to_string())?;
    let wall = t.elapsed().as_secs_f64();
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let k = err
        .lines()
        .find_map(|l| l.strip_prefix("ACCSHARE_BENCH_KERNEL_SECONDS "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or("no kernel time printed")?;
    Ok((k, wall, o.stdout))
}

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
    )?;
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
        let mut res = Vec::new();
        for (opt, ilp) in [
            (OptLevel::Naive, None),
            (OptLevel::Share, Some(1)),
            (OptLevel::Share, None),
        ] {
            let r = build(&src, defs, opt, ilp, &dir).and_then(|exe| {
                let mut best: Option<(f64, f64, Vec<u8>)> = None;
                for _ in 0..reps {
                    let x = run(&exe)?;
                    best = Some(match best {
                        Some(b) if b.0 <= x.0 => (b.0, b.1.min(x.1), b.2),
                        Some(b) => (x.0, x.1.min(b.1), x.2),
                        None => x,
                    });
                }
                best.ok_or_else(|| "no run".to_string())
            });
            res.push(r);
        }
        match (&res[0], &res[1], &res[2]) {
            (Ok(n), Ok(s1), Ok(s)) => println!(
                "{:<9} {:<28} {:>10.3} {:>14.3} {:>10.3} {:>7.2}x {:>7.2}x  {}",
                name,
                size,
                n.0 * 1e3,
                s1.0 * 1e3,
                s.0 * 1e3,
                n.0 / s.0,
                s1.0 / s.0,
                if n.2 == s.2 && n.2 == s1.2 {
                    "yes"
                } else {
                    "NO"
                }
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
