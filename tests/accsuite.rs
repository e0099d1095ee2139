//! OpenACC programs written the way published benchmark suites write them (PolyBench/ACC above
//! all, a few in the style of Rodinia and the OpenACC tutorials): `tests/accsuite/<name>/<name>.c`
//! with its `<name>.h` of dataset sizes, built with the flags such a suite's build uses
//! (`-I utilities -I <name> -DMINI_DATASET`; `#include <polybench.h>` is found through `-I`
//! only).
//!
//! Every program is built by `cc` (the sequential reference) and through accshare (in process,
//! OpenCL, run on the test machine's device) at two dataset sizes and several optimization
//! levels; every dumped array must match. Each program's outcome is one of
//!
//! - `pass`: every variant printed what the sequential program prints;
//! - `refused`: accshare stopped with errors, which must carry a `file:line:col` location;
//! - `FAIL`: accshare panicked, or the generated program does not build with `cc`, crashes,
//!   times out or prints something else. Never acceptable.
//!
//! The refused programs must be exactly those listed in `tests/accsuite/REFUSED` (one name per
//! line, `#` comments), so that the list says what the compiler cannot do yet and shrinks as it
//! learns. `ACCSHARE_ONLY=text` runs only the programs whose name contains `text`;
//! `ACCSHARE_SUITE_QUICK=1` runs the larger size at the default level only. At the smaller size
//! the programs are also staged as for `a100` with 4 rows per work-item, where stencils lay
//! their rows out adjacent (`schedule::rows`).

mod exec_support;

use exec_support::suite::{self, accshare_compile, Compiled, Outcome};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use accshare::driver;

/// The dataset sizes every program is run at (`-D<size>`).
const SIZES: [&str; 2] = ["MINI_DATASET", "SMALL_DATASET"];

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/accsuite")
}

/// Every program directory `tests/accsuite/<name>/` holding `<name>.c`, sorted by name, filtered
/// by `ACCSHARE_ONLY`.
fn programs() -> Vec<String> {
    let only = std::env::var("ACCSHARE_ONLY").unwrap_or_default();
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(suite_dir()) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().join(format!("{}.c", name)).is_file() && name.contains(only.as_str()) {
                v.push(name);
            }
        }
    }
    v.sort();
    v
}

/// The optimization variants of one size: (label, options).
fn variants(size: &str) -> Vec<(&'static str, driver::OptOptions)> {
    let naive = driver::OptOptions::default();
    let share = driver::OptOptions::share();
    let ilp2 = driver::OptOptions::share().with_rows(2);
    // Sized for a CPU device: contiguous register micro-tiles with an unguarded copy for
    // whole tiles, wherever a nest reuses operands across outputs.
    let cpu = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"));
    // Staged as on a GPU whose L1 does not cache global loads, 4 rows per work-item: the
    // stencils' rows adjacent (`schedule::rows`), their tap loops unrolled.
    let a100 = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("a100").expect("a100"))
        .with_rows(4);
    let quick = std::env::var("ACCSHARE_SUITE_QUICK").is_ok_and(|v| v == "1");
    if size == SIZES[0] {
        vec![
            ("naive", naive),
            ("share", share),
            ("share --ilp 2", ilp2),
            ("pocl-cpu", cpu),
            ("a100 --ilp 4", a100),
        ]
    } else if !quick {
        vec![
            ("naive", naive),
            ("share", share),
            ("share --ilp 2", ilp2),
            ("pocl-cpu", cpu),
        ]
    } else {
        vec![("share", share)]
    }
}

/// The include directories of a program, as its build passes them.
fn include_dirs(name: &str) -> Vec<PathBuf> {
    vec![suite_dir().join("utilities"), suite_dir().join(name)]
}

/// `cc -O2 -std=gnu99 -I… -D<size> src -o out -lm [-lOpenCL]`.
fn cc(src: &Path, out: &Path, incs: &[PathBuf], size: &str, opencl: bool) -> Result<(), String> {
    let mut cmd = std::process::Command::new("cc");
    cmd.args(["-O2", "-std=gnu99"]);
    for d in incs {
        cmd.arg(format!("-I{}", d.display()));
    }
    cmd.arg(format!("-D{}", size));
    cmd.arg(src).arg("-o").arg(out).arg("-lm");
    if opencl {
        cmd.arg("-lOpenCL");
    }
    let o = cmd.output().map_err(|e| format!("cannot run cc: {}", e))?;
    if !o.status.success() {
        return Err(format!(
            "cc failed on {} ({}):\n{}",
            src.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

/// Whether rendered diagnostics locate the problem: a `….c:LINE:COL` or `….h:LINE:COL`.
fn has_location(rendered: &str) -> bool {
    rendered.split_whitespace().any(|w| {
        let mut parts = w.rsplitn(3, ':');
        let (Some(col), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        let num = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
        num(col) && num(line) && (file.ends_with(".c") || file.ends_with(".h"))
    })
}

/// The first error line of rendered diagnostics (warnings and notes skipped).
fn first_error(rendered: &str) -> String {
    rendered
        .lines()
        .find(|l| l.starts_with("error"))
        .or_else(|| rendered.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("(no diagnostic)")
        .trim()
        .to_string()
}

/// Runs one program at every size and variant. A failure anywhere makes the program `FAIL`;
/// otherwise a refusal anywhere makes it `refused`.
fn check_program(name: &str, scratch: &Path) -> Outcome {
    let src = suite_dir().join(name).join(format!("{}.c", name));
    let incs = include_dirs(name);
    let mut refused: Option<String> = None;
    for size in SIZES {
        let dir = scratch.join(format!("{}-{}", name, size));
        let _ = std::fs::create_dir_all(&dir);
        let seq = dir.join("seq");
        if let Err(e) = cc(&src, &seq, &incs, size, false) {
            return Outcome::Fail(format!(
                "{}: the sequential program does not build: {}",
                size, e
            ));
        }
        let expected = match exec_support::run(&seq) {
            Ok(o) => o,
            Err(e) => {
                return Outcome::Fail(format!("{}: the sequential program fails: {}", size, e))
            }
        };
        for (vi, (label, opt)) in variants(size).iter().enumerate() {
            let at = format!("{} {}", size, label);
            let vdir = dir.join(format!("v{}", vi));
            let c_file = match accshare_compile(
                &src,
                accshare::front::preprocess::PpOptions {
                    defines: vec![(size.to_string(), None)],
                    include_dirs: incs.clone(),
                },
                opt,
                &vdir.join("out"),
            ) {
                Compiled::Ok(c) => c,
                Compiled::Broken(e) => return Outcome::Fail(format!("[{}] {}", at, e)),
                Compiled::Refused(rendered) => {
                    if !has_location(&rendered) {
                        return Outcome::Fail(format!(
                            "[{}] refused without a file:line:col location:\n{}",
                            at, rendered
                        ));
                    }
                    if refused.is_none() {
                        refused = Some(format!("{} ({})", first_error(&rendered), at));
                    }
                    continue;
                }
            };
            let gpu = vdir.join("gpu");
            if let Err(e) = cc(&c_file, &gpu, &incs, size, true) {
                return Outcome::Fail(format!(
                    "[{}] the generated program does not build: {}",
                    at, e
                ));
            }
            let actual = match exec_support::run(&gpu) {
                Ok(o) => o,
                Err(e) => {
                    return Outcome::Fail(format!("[{}] the generated program fails: {}", at, e))
                }
            };
            if let Err(e) = exec_support::compare_dumps(&expected, &actual, 1e-4, 1e-5) {
                return Outcome::Fail(format!("[{}] wrong result: {}", at, e));
            }
        }
    }
    match refused {
        Some(r) => Outcome::Refused(r),
        None => Outcome::Pass,
    }
}

#[test]
fn benchmark_suite_programs_match_sequential_or_are_refused_with_a_location() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let names = programs();
    assert!(
        !names.is_empty(),
        "no programs under {}",
        suite_dir().display()
    );
    let scratch = exec_support::scratch_dir("accsuite");

    // Programs are independent: run them on a few threads (the device runs on the CPU).
    let results = suite::run_each(&names, 4, |name| check_program(name, &scratch));

    // The summary table.
    let width = names.iter().map(|n| n.len()).max().unwrap_or(8).max(7);
    let mut table = format!("{:<width$}  {:<7}  detail\n", "program", "outcome");
    for (name, outcome) in &results {
        table.push_str(&format!(
            "{:<width$}  {:<7}  {}\n",
            name,
            outcome.word(),
            outcome.detail()
        ));
    }
    let count = |f: fn(&Outcome) -> bool| results.iter().filter(|(_, o)| f(o)).count();
    let passed = count(|o| matches!(o, Outcome::Pass));
    let refused_n = count(|o| matches!(o, Outcome::Refused(_)));
    let failed = count(|o| matches!(o, Outcome::Fail(_)));
    table.push_str(&format!(
        "{} programs: {} pass, {} refused, {} FAIL\n",
        results.len(),
        passed,
        refused_n,
        failed
    ));
    println!("{}", table);

    let mut problems = Vec::new();
    for (name, outcome) in &results {
        if let Outcome::Fail(d) = outcome {
            problems.push(format!("FAIL {}: {}", name, d));
        }
    }

    // The refused programs must be exactly those listed (among those that ran).
    let refused: BTreeSet<String> = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Refused(_)))
        .map(|(n, _)| n.clone())
        .collect();
    problems.extend(suite::refused_list_problems(
        &suite_dir().join("REFUSED"),
        "tests/accsuite/REFUSED",
        &names,
        &refused,
    ));
    if problems.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(problems.is_empty(), "{}\n{}", table, problems.join("\n\n"));
}

/// `matstats` puts its `reduction` clauses on the outer gang loops only (OpenACC 2.6 style): its
/// CUDA kernels compile with NVRTC at every level (the OpenCL ones run in the test above).
#[test]
fn outer_loop_reductions_compile_for_cuda_with_nvrtc() {
    let name = "matstats";
    let src = suite_dir().join(name).join(format!("{}.c", name));
    for (label, opt) in variants(SIZES[0]) {
        let mut sources = accshare::diag::SourceMap::new();
        let mut diags = accshare::diag::Diags::new();
        let opts = driver::Options {
            target: accshare::back::Target::Cuda,
            pp: accshare::front::preprocess::PpOptions {
                defines: vec![(SIZES[1].to_string(), None)],
                include_dirs: include_dirs(name),
            },
        };
        let out = driver::compile_with(&src, &opts, &opt, &mut sources, &mut diags).unwrap_or_else(
            || {
                panic!(
                    "{} {}:\n{}",
                    name,
                    label,
                    accshare::diag::render(&sources, &diags.0)
                )
            },
        );
        if !exec_support::nvrtc_compiles(&format!("{} {}", name, label), &out.kernel_source) {
            return;
        }
    }
}
