//! `accshare bench`: one program compiled several ways — the baseline (`--opt naive`), staged
//! with one output per work-item (`--opt share --ilp 1`) and as compiled by default — each built
//! with the C compiler against the OpenCL library and run side by side on the OpenCL device
//! (`ACCSHARE_DEVICE` picks one, as for any generated program). The generated host code is
//! patched so that every kernel launch is timed between two `clFinish` calls: kernel time only,
//! without transfers or the program build. Each variant runs `reps` times and keeps its best
//! time; the report gives ratios to the first variant and whether every variant printed the same
//! output (a difference is a miscompilation, reported as an error).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::back::Target;
use crate::diag::{self, Diags, SourceMap};
use crate::driver::{self, OptLevel, OptOptions};

/// One way of compiling the program.
#[derive(Clone, Debug)]
pub struct Variant {
    pub label: String,
    pub opt: OptOptions,
}

/// naive, share with one row per work-item, share as compiled by default.
pub fn default_variants(platform: Option<crate::model::Platform>) -> Vec<Variant> {
    let v = |label: &str, opt: OptLevel, ilp: Option<u32>| Variant {
        label: label.to_string(),
        opt: OptOptions {
            opt,
            platform: platform.clone(),
            ilp,
        },
    };
    vec![
        v("naive", OptLevel::Naive, None),
        v("share --ilp 1", OptLevel::Share, Some(1)),
        v("share", OptLevel::Share, None),
    ]
}

#[derive(Clone, Debug, Default)]
pub struct BenchOptions {
    /// `-D NAME=VALUE` for accshare and the C compiler.
    pub defines: Vec<(String, Option<String>)>,
    pub include_dirs: Vec<PathBuf>,
    /// Runs per variant (the best is kept).
    pub reps: usize,
}

/// The best of a variant's runs.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Seconds in kernels (summed over the program's launches).
    pub kernel: f64,
    /// Seconds of the whole program.
    pub wall: f64,
    pub stdout: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct Row {
    pub label: String,
    pub result: Result<Timing, String>,
}

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
const KERNEL_SECONDS: &str = "ACCSHARE_BENCH_KERNEL_SECONDS ";

/// Compiles `src` as `v` asks (OpenCL), patches the host code to time kernels, and builds it
/// with `cc -O2` into `dir`. Returns the executable.
pub fn build(src: &Path, opts: &BenchOptions, v: &Variant, dir: &Path) -> Result<PathBuf, String> {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let dopts = driver::Options {
        target: Target::OpenCl,
        pp: crate::front::preprocess::PpOptions {
            defines: opts.defines.clone(),
            include_dirs: opts.include_dirs.clone(),
        },
    };
    let out = driver::compile_with(src, &dopts, &v.opt, &mut sources, &mut diags)
        .ok_or_else(|| diag::render(&sources, &diags.0))?;
    let host = out.host_source;
    let at = host
        .find(MARK)
        .ok_or("the host code has no prelude marker")?
        + MARK.len();
    let patched = format!("{}{}{}", &host[..at], TIMER, &host[at..]).replace(
        "accshare_launch(accshare_k",
        "accshare_launch_timed(accshare_k",
    );
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {}", dir.display(), e))?;
    let tag: String = v
        .label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let c = dir.join(format!("{}.c", tag));
    std::fs::write(&c, patched).map_err(|e| format!("{}: {}", c.display(), e))?;
    let exe = dir.join(&tag);
    let mut cmd = Command::new("cc");
    cmd.args(["-O2", "-std=gnu99"]);
    if let Some(p) = src.parent() {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        cmd.arg(format!("-I{}", p.display()));
    }
    for d in &opts.include_dirs {
        cmd.arg(format!("-I{}", d.display()));
    }
    for (a, b) in &opts.defines {
        match b {
            Some(b) => cmd.arg(format!("-D{}={}", a, b)),
            None => cmd.arg(format!("-D{}", a)),
        };
    }
    cmd.arg(&c).arg("-o").arg(&exe).args(["-lm", "-lOpenCL"]);
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run the C compiler `cc`: {}", e))?;
    if !o.status.success() {
        return Err(format!(
            "cc failed on {}:\n{}",
            c.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(exe)
}

/// Runs `exe` once.
fn run_once(exe: &Path) -> Result<Timing, String> {
    let t = Instant::now();
    let o = Command::new(exe)
        .output()
        .map_err(|e| format!("{}: {}", exe.display(), e))?;
    let wall = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        return Err(format!(
            "the program failed ({}):\n{}",
            o.status,
            err.trim_end()
        ));
    }
    let kernel = err
        .lines()
        .find_map(|l| l.strip_prefix(KERNEL_SECONDS))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    Ok(Timing {
        kernel,
        wall,
        stdout: o.stdout,
    })
}

/// Runs `exe` `reps` times (at least once) and keeps the best kernel time and the best wall time.
pub fn run_best(exe: &Path, reps: usize) -> Result<Timing, String> {
    let mut best: Option<Timing> = None;
    for _ in 0..reps.max(1) {
        let x = run_once(exe)?;
        best = Some(match best {
            None => x,
            Some(b) => {
                if b.stdout != x.stdout {
                    return Err("two runs of the same program printed different output".into());
                }
                Timing {
                    kernel: b.kernel.min(x.kernel),
                    wall: b.wall.min(x.wall),
                    stdout: b.stdout,
                }
            }
        });
    }
    best.ok_or_else(|| "no run".to_string())
}

/// Builds and runs every variant, in order, side by side (variant by variant, each `reps`
/// times).
pub fn bench(src: &Path, opts: &BenchOptions, variants: &[Variant], dir: &Path) -> Vec<Row> {
    variants
        .iter()
        .map(|v| Row {
            label: v.label.clone(),
            result: build(src, opts, v, dir).and_then(|exe| run_best(&exe, opts.reps)),
        })
        .collect()
}

/// The report: kernel and wall time per variant, the ratio of the first variant's kernel time
/// to each, and whether each printed what the first printed.
pub fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<16} {:>12} {:>10} {:>10}  {}\n",
        "variant", "kernel ms", "wall s", "speedup", "same output"
    );
    let first = rows.first().and_then(|r| r.result.as_ref().ok());
    for r in rows {
        match &r.result {
            Ok(t) => {
                let ratio = first
                    .filter(|_| t.kernel > 0.0)
                    .map(|f| format!("{:.2}x", f.kernel / t.kernel))
                    .unwrap_or_else(|| "-".into());
                let same = match first {
                    Some(f) if f.stdout == t.stdout => "yes",
                    Some(_) => "NO",
                    None => "-",
                };
                out.push_str(&format!(
                    "{:<16} {:>12.3} {:>10.2} {:>10}  {}\n",
                    r.label,
                    t.kernel * 1e3,
                    t.wall,
                    ratio,
                    same
                ));
            }
            Err(e) => out.push_str(&format!("{:<16} error: {}\n", r.label, e)),
        }
    }
    out
}

/// True if every variant ran and printed the same output as the first.
pub fn all_agree(rows: &[Row]) -> bool {
    let Some(Ok(first)) = rows.first().map(|r| &r.result) else {
        return false;
    };
    rows.iter()
        .all(|r| matches!(&r.result, Ok(t) if t.stdout == first.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, kernel: f64, out: &str) -> Row {
        Row {
            label: label.into(),
            result: Ok(Timing {
                kernel,
                wall: 0.5,
                stdout: out.as_bytes().to_vec(),
            }),
        }
    }

    #[test]
    fn the_table_gives_ratios_to_the_first_variant_and_flags_different_output() {
        let rows = vec![
            row("naive", 0.004, "1\n"),
            row("share", 0.001, "1\n"),
            row("bad", 0.002, "2\n"),
            Row {
                label: "broken".into(),
                result: Err("cc failed".into()),
            },
        ];
        assert_eq!(
            table(&rows),
            "variant             kernel ms     wall s    speedup  same output\n\
             naive                   4.000       0.50      1.00x  yes\n\
             share                   1.000       0.50      4.00x  yes\n\
             bad                     2.000       0.50      2.00x  NO\n\
             broken           error: cc failed\n"
        );
        assert!(!all_agree(&rows));
        assert!(all_agree(&rows[..2]));
    }
}
