//! Support for execution tests: find an OpenCL device, compile C programs, run them with a
//! timeout, compare their array dumps. Used by integration tests as `mod exec_support;`.
//!
//! Dump format (printed by the example and corpus programs): a header line `== NAME COUNT`,
//! then one value per line; integers are compared exactly, floating values (anything with a
//! `.`, an exponent, `inf` or `nan`) with a tolerance.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Time limit of [`run`].
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// `Ok` when a C compiler is present, `-lOpenCL` links and an OpenCL device is found (checked
/// once per test binary).
pub fn opencl_available() -> Result<(), String> {
    static CACHE: OnceLock<Result<(), String>> = OnceLock::new();
    CACHE.get_or_init(probe_opencl).clone()
}

fn probe_opencl() -> Result<(), String> {
    match Command::new("cc").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => return Err("no C compiler (`cc`) found".to_string()),
    }
    let dir = scratch_dir("probe");
    let src = dir.join("probe.c");
    let exe = dir.join("probe");
    std::fs::write(&src, PROBE).map_err(|e| format!("cannot write {}: {}", src.display(), e))?;
    compile_c(&src, &exe, &[], true)
        .map_err(|e| format!("cannot build an OpenCL program: {}", e))?;
    let out = run(&exe).map_err(|e| format!("no OpenCL device: {}", e))?;
    let _ = std::fs::remove_dir_all(&dir);
    let devices: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("devices "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    if devices == 0 {
        return Err(format!(
            "no OpenCL device found (probe printed {:?})",
            out.trim()
        ));
    }
    Ok(())
}

const PROBE: &str = r#"#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
int main(void)
{
    cl_platform_id p[16];
    cl_uint np = 0, i, total = 0;
    if (clGetPlatformIDs(16, p, &np) != CL_SUCCESS)
        np = 0;
    for (i = 0; i < np && i < 16; i++) {
        cl_uint n = 0;
        if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 0, NULL, &n) == CL_SUCCESS)
            total += n;
    }
    printf("devices %u\n", (unsigned)total);
    return 0;
}
"#;

/// Prints `SKIP: <reason>` and returns, unless `ACCSHARE_REQUIRE_DEVICES=1`: then panics.
pub fn skip_or_fail(reason: &str) {
    if std::env::var("ACCSHARE_REQUIRE_DEVICES").is_ok_and(|v| v == "1") {
        panic!("ACCSHARE_REQUIRE_DEVICES=1 but: {}", reason);
    }
    println!("SKIP: {}", reason);
    eprintln!("SKIP: {}", reason);
}

/// Loads NVRTC from `.ci/nvrtc-libdir.sh`'s directory if `LD_LIBRARY_PATH` does not have it.
pub fn find_nvrtc() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/nvrtc-libdir.sh");
    if let Ok(out) = Command::new("bash").arg(script).output() {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !dir.is_empty() {
            let _ = accshare::runtime::nvrtc::preload(Path::new(&dir));
        }
    }
}

/// Compiles the CUDA kernels `text` (from `what`) with NVRTC for `compute_75` and asserts that
/// NVRTC accepts them without a warning. `false` when NVRTC is missing (after a visible skip,
/// or a failure under `ACCSHARE_REQUIRE_DEVICES=1`): the caller stops there.
pub fn nvrtc_compiles(what: &str, text: &str) -> bool {
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    find_nvrtc();
    match compile_cuda(text, "compute_75") {
        Ok(CompileOutcome::Compiled { log, .. }) => {
            assert!(log.trim().is_empty(), "{what}: {log}");
            true
        }
        Ok(CompileOutcome::Skipped(why)) => {
            skip_or_fail(&format!("NVRTC unavailable: {why}"));
            false
        }
        Ok(CompileOutcome::Failed(log)) => panic!("NVRTC rejected {what}:\n{log}\n{text}"),
        Err(e) => panic!("{e}"),
    }
}

/// The standard output of `accshare ARGS… FILE` (the binary under test), which must succeed.
pub fn accshare_stdout(args: &[&str], file: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_accshare"))
        .args(args)
        .arg(file)
        .output()
        .expect("accshare runs");
    assert!(
        out.status.success(),
        "accshare {args:?} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `cc -O2 -std=gnu99 -I<dir of src> -DNAME=VALUE… src -o out -lm [-lOpenCL]`.
pub fn compile_c(
    src: &Path,
    out: &Path,
    defines: &[(&str, &str)],
    opencl: bool,
) -> Result<(), String> {
    compile_c_with(src, out, defines, opencl, &[]).map(|_| ())
}

/// [`compile_c`] with extra compiler flags (e.g. `-Wall -Wextra`); returns what the compiler
/// printed (its warnings) on success.
pub fn compile_c_with(
    src: &Path,
    out: &Path,
    defines: &[(&str, &str)],
    opencl: bool,
    extra: &[&str],
) -> Result<String, String> {
    let mut cmd = Command::new("cc");
    cmd.args(["-O2", "-std=gnu99"]);
    cmd.args(extra);
    if let Some(dir) = src.parent().filter(|d| !d.as_os_str().is_empty()) {
        cmd.arg(format!("-I{}", dir.display()));
    }
    for (name, value) in defines {
        if value.is_empty() {
            cmd.arg(format!("-D{}", name));
        } else {
            cmd.arg(format!("-D{}={}", name, value));
        }
    }
    cmd.arg(src).arg("-o").arg(out).arg("-lm");
    if opencl {
        cmd.arg("-lOpenCL");
    }
    let o = cmd.output().map_err(|e| format!("cannot run cc: {}", e))?;
    let diagnostics = String::from_utf8_lossy(&o.stderr).into_owned();
    if !o.status.success() {
        return Err(format!(
            "cc failed on {} ({}):\n{}",
            src.display(),
            o.status,
            diagnostics
        ));
    }
    Ok(diagnostics)
}

/// Runs `exe` (no arguments) with a 120 s timeout; its stdout if it exits with status 0.
pub fn run(exe: &Path) -> Result<String, String> {
    run_ok_with_env(exe, &[])
}

/// [`run`] with extra environment variables.
pub fn run_ok_with_env(exe: &Path, env: &[(&str, &str)]) -> Result<String, String> {
    run_with_env(exe, env).and_then(|(code, out, err)| {
        if code == Some(0) {
            Ok(out)
        } else {
            Err(format!(
                "{} exited with {}:\n{}",
                exe.display(),
                code.map_or("a signal".to_string(), |c| format!("status {}", c)),
                err
            ))
        }
    })
}

/// Runs `exe` with extra environment variables and the 120 s timeout; returns the exit code
/// (`None` if killed by a signal), stdout and stderr whatever the status.
pub fn run_with_env(
    exe: &Path,
    env: &[(&str, &str)],
) -> Result<(Option<i32>, String, String), String> {
    let mut cmd = Command::new(exe);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {}", exe.display(), e))?;
    // Read both pipes on threads so a chatty program cannot block on a full pipe.
    let mut so = child.stdout.take();
    let mut se = child.stderr.take();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = so.as_mut() {
            let _ = p.read_to_end(&mut s);
        }
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = se.as_mut() {
            let _ = p.read_to_end(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > RUN_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{} timed out after {} s",
                    exe.display(),
                    RUN_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {}: {}", exe.display(), e)),
        }
    };
    let out = t_out.join().unwrap_or_default();
    let err = t_err.join().unwrap_or_default();
    Ok((
        status.code(),
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    ))
}

/// A fresh temporary directory for one test (`<tmp>/accshare-<tag>-<pid>`).
pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("accshare-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::create_dir_all(&d);
    d
}

struct Section<'a> {
    name: &'a str,
    /// Declared element count (`None` for values before the first header).
    count: Option<usize>,
    values: Vec<(usize, &'a str)>,
}

fn parse_dump(text: &str) -> Result<Vec<Section<'_>>, String> {
    let mut sections: Vec<Section> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(h) = line.strip_prefix("==") {
            let mut it = h.split_whitespace();
            let (Some(name), Some(count), None) = (it.next(), it.next(), it.next()) else {
                return Err(format!("line {}: malformed header `{}`", ln + 1, line));
            };
            let count = count
                .parse()
                .map_err(|_| format!("line {}: malformed element count in `{}`", ln + 1, line))?;
            sections.push(Section {
                name,
                count: Some(count),
                values: Vec::new(),
            });
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if sections.is_empty() {
            sections.push(Section {
                name: "(before the first header)",
                count: None,
                values: Vec::new(),
            });
        }
        if let Some(s) = sections.last_mut() {
            s.values.push((ln + 1, line));
        }
    }
    Ok(sections)
}

fn is_floating(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    l.contains('.') || l.contains('e') || l.contains("inf") || l.contains("nan")
}

/// Whether two dump values match: integers exactly, floating values within
/// `|a - b| <= abs_tol + rel_tol * max(|a|, |b|)` (NaN matches NaN, infinities must be equal).
fn values_match(e: &str, a: &str, rel_tol: f64, abs_tol: f64) -> bool {
    if e == a {
        return true;
    }
    if !is_floating(e) && !is_floating(a) {
        return false;
    }
    let (Ok(x), Ok(y)) = (e.parse::<f64>(), a.parse::<f64>()) else {
        return false;
    };
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x.is_infinite() || y.is_infinite() {
        return x == y;
    }
    (x - y).abs() <= abs_tol + rel_tol * x.abs().max(y.abs())
}

/// Compares two dumps section by section: the same arrays in the same order, the same counts,
/// every value matching (see the module doc). Reports the first mismatch.
pub fn compare_dumps(
    expected: &str,
    actual: &str,
    rel_tol: f64,
    abs_tol: f64,
) -> Result<(), String> {
    let exp = parse_dump(expected).map_err(|e| format!("expected output: {}", e))?;
    let act = parse_dump(actual).map_err(|e| format!("actual output: {}", e))?;
    let exp_names: Vec<&str> = exp.iter().map(|s| s.name).collect();
    let act_names: Vec<&str> = act.iter().map(|s| s.name).collect();
    for n in &exp_names {
        if !act_names.contains(n) {
            return Err(format!(
                "array `{}` is missing from the output (arrays: {:?})",
                n, act_names
            ));
        }
    }
    for n in &act_names {
        if !exp_names.contains(n) {
            return Err(format!(
                "unexpected array `{}` in the output (expected {:?})",
                n, exp_names
            ));
        }
    }
    if exp_names != act_names {
        return Err(format!(
            "arrays in a different order: expected {:?}, got {:?}",
            exp_names, act_names
        ));
    }
    for (e, a) in exp.iter().zip(&act) {
        if e.count != a.count {
            return Err(format!(
                "array `{}`: expected {} elements, got {}",
                e.name,
                e.count.unwrap_or(0),
                a.count.unwrap_or(0)
            ));
        }
        for s in [e, a] {
            if let Some(c) = s.count {
                if c != s.values.len() {
                    let which = if std::ptr::eq(s, e) {
                        "expected"
                    } else {
                        "actual"
                    };
                    return Err(format!(
                        "array `{}` ({} output): header says {} elements but {} values follow",
                        s.name,
                        which,
                        c,
                        s.values.len()
                    ));
                }
            }
        }
        if e.values.len() != a.values.len() {
            return Err(format!(
                "`{}`: expected {} values, got {}",
                e.name,
                e.values.len(),
                a.values.len()
            ));
        }
        let mut bad = 0;
        let mut first = None;
        for (i, ((_, x), (_, y))) in e.values.iter().zip(&a.values).enumerate() {
            if !values_match(x, y, rel_tol, abs_tol) {
                bad += 1;
                if first.is_none() {
                    first = Some((i, *x, *y));
                }
            }
        }
        if let Some((i, x, y)) = first {
            return Err(format!(
                "array `{}` differs at index {}: expected {}, got {} ({} of {} elements differ)",
                e.name,
                i,
                x,
                y,
                bad,
                e.values.len()
            ));
        }
    }
    Ok(())
}
pub mod generate;
pub mod programs;
pub mod ptxas;
pub mod suite;

/// Replays `module` (compiled from `src` with preprocessor options `pp`) on the simulator
/// (NVIDIA's banks) with its checker, in a scratch folder named after `tag`: the problems
/// found, each prefixed with `what` (results unequal to the sequential program's, races,
/// out-of-bounds or uninitialised shared reads, misaligned vectors); empty when none.
pub fn sim_check(
    src: &Path,
    module: &accshare::kernel::Module,
    pp: &accshare::front::preprocess::PpOptions,
    tag: &str,
    what: &str,
) -> Vec<String> {
    use accshare::sim::{trace, SimOptions, SimPlatform};
    let dir = scratch_dir(tag);
    let sim_opts = SimOptions {
        check: true,
        ..Default::default()
    };
    let res = trace::run_module(src, module, pp, &SimPlatform::nvidia(), &sim_opts, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let mut failures = Vec::new();
    match res {
        Err(e) => failures.push(format!("{what}: {e}")),
        Ok((rep, _)) => {
            if !rep.mismatches.is_empty() {
                failures.push(format!("{what}: {}", rep.mismatches.join("\n")));
            }
            for r in &rep.runs {
                for f in &r.findings {
                    failures.push(format!("{what}: {f}"));
                }
            }
        }
    }
    failures
}

/// Builds the program accshare generated from `src` (its host source `host`, already in `dir`)
/// with `src`'s headers copied beside it, against OpenCL, and runs it: its output.
pub fn run_generated(
    src: &Path,
    host: &Path,
    dir: &Path,
    defines: &[(&str, &str)],
) -> Result<String, String> {
    for e in std::fs::read_dir(src.parent().ok_or("dir")?)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "h") {
            let _ = std::fs::copy(e.path(), dir.join(e.file_name()));
        }
    }
    let gpu = dir.join("gpu");
    compile_c(host, &gpu, defines, true)?;
    run(&gpu)
}
