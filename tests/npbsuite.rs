//! Self-verifying scientific applications in the style of the OpenACC C ports of the NAS
//! Parallel Benchmarks (NPB3.3-ACC-C): `tests/npbsuite/<BM>/` holds one benchmark, several C
//! files (`<bm>.c` and, for SP, one file per routine) with its `npbparams.h` (class S, and
//! NPB's W and A under `-DCLASS_W` / `-DCLASS_A`, which `benches/npb-classes.sh` runs); the
//! files every benchmark shares (`c_print_results.c`, `c_timers.c`, `wtime.c`, `randdp.c` and
//! their headers, `type.h`) are in `tests/npbsuite/common/`. Each program checks its own result
//! against reference values, as NPB does, and prints `VERIFICATION SUCCESSFUL` only when right.
//! The programs hold their data on the device in a data region of `main` that spans many
//! functions (and, for SP, many files), which find the arrays with `present` clauses.
//!
//! Every benchmark is built by `cc` (all its `.c` files and the common ones, `-I common -I <BM>`),
//! the sequential reference, which must verify; then every file is compiled through accshare
//! (in process, OpenCL) and the generated files are built together against OpenCL (one runtime
//! state per program, so the present table spans the files) and run on the test machine's
//! device, for each of `naive`, the default (`share`), `share --ilp 2`, `pocl-cpu` and `h100` (the
//! platforms the kernels are compiled for). A variant passes
//! when the device program prints `VERIFICATION SUCCESSFUL` and the same output as the
//! sequential program: every line but those with timings (`time`, `Mop/s`), numbers within
//! NPB's relative tolerance of 1e-8 (any two below 1e-9, values at rounding level, match).
//! Each benchmark's outcome is one of
//!
//! - `pass`: every variant verified and printed what the sequential program prints;
//! - `refused`: accshare stopped with errors, which must carry a `file:line:col` location;
//! - `FAIL`: accshare panicked, or the generated program does not build with `cc`, crashes,
//!   times out, does not verify or prints something else. Never acceptable.
//!
//! The refused benchmarks must be exactly those listed in `tests/npbsuite/REFUSED` (one name
//! per line, `#` comments). `ACCSHARE_ONLY=text` runs only the benchmarks whose name contains
//! `text`. Without an OpenCL device the test prints `SKIP: …` and passes, unless
//! `ACCSHARE_REQUIRE_DEVICES=1`.

mod exec_support;

use exec_support::suite::{self, accshare_compile, Compiled, Outcome};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use accshare::driver;

/// The line every benchmark prints when its verification succeeds.
const VERIFIED: &str = "VERIFICATION SUCCESSFUL";

/// NPB's tolerance on verified values.
const REL_TOL: f64 = 1e-8;
/// Values at most this large are at rounding level (the relative errors of verified values,
/// the residuals of converged iterations): they depend on the order of floating-point
/// operations, and any two of them match.
const NOISE: f64 = 1e-9;

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npbsuite")
}

/// The benchmarks: every directory `tests/npbsuite/<BM>/` holding `<bm>.c` (`bm` in lower
/// case), sorted, filtered by `ACCSHARE_ONLY`.
fn benchmarks() -> Vec<String> {
    let only = std::env::var("ACCSHARE_ONLY").unwrap_or_default();
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(suite_dir()) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let main = e.path().join(format!("{}.c", name.to_lowercase()));
            if main.is_file() && name.contains(only.as_str()) {
                v.push(name);
            }
        }
    }
    v.sort();
    v
}

/// The `.c` files of a directory, sorted.
fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "c"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The source files of a benchmark, each with the folder (`common` or the benchmark's name)
/// it comes from.
fn sources(bm: &str) -> Vec<(&'static str, PathBuf)> {
    let mut v: Vec<(&'static str, PathBuf)> = c_files(&suite_dir().join("common"))
        .into_iter()
        .map(|p| ("common", p))
        .collect();
    v.extend(
        c_files(&suite_dir().join(bm))
            .into_iter()
            .map(|p| ("bench", p)),
    );
    v
}

/// The include directories of a benchmark, as NPB's makefiles pass them.
fn include_dirs(bm: &str) -> Vec<PathBuf> {
    vec![suite_dir().join("common"), suite_dir().join(bm)]
}

/// `cc -O2 -std=gnu99 -I… srcs… -o out -lm [-lOpenCL]`.
fn cc(srcs: &[PathBuf], out: &Path, incs: &[PathBuf], opencl: bool) -> Result<(), String> {
    let mut cmd = std::process::Command::new("cc");
    cmd.args(["-O2", "-std=gnu99"]);
    for d in incs {
        cmd.arg(format!("-I{}", d.display()));
    }
    cmd.args(srcs).arg("-o").arg(out).arg("-lm");
    if opencl {
        cmd.arg("-lOpenCL");
    }
    let o = cmd.output().map_err(|e| format!("cannot run cc: {}", e))?;
    if !o.status.success() {
        return Err(format!(
            "cc failed ({}):\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

fn src_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
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

/// The first error of rendered diagnostics and its location (warnings and notes skipped).
fn first_error(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().collect();
    let Some(i) = lines.iter().position(|l| l.starts_with("error")) else {
        return lines
            .iter()
            .find(|l| !l.trim().is_empty())
            .map_or("(no diagnostic)".to_string(), |l| l.trim().to_string());
    };
    let at = lines[i + 1..]
        .iter()
        .take(2)
        .find_map(|l| l.trim().strip_prefix("┌─").or(l.trim().strip_prefix("-->")))
        .map(|l| {
            let l = l.trim();
            // Keep the file name only: the suite's paths are long.
            l.rsplit('/').next().unwrap_or(l).to_string()
        });
    match at {
        Some(at) => format!("{} ({})", lines[i].trim(), at),
        None => lines[i].trim().to_string(),
    }
}

/// A line cut into text and numbers (`-1.5E-02`, `42`), so that numbers printed side by side
/// (`%20.13E%20.13E`) are told apart.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Number(&'a str),
}

fn pieces(line: &str) -> Vec<Piece<'_>> {
    let b = line.as_bytes();
    let digit = |i: usize| i < b.len() && b[i].is_ascii_digit();
    let mut out = Vec::new();
    let (mut i, mut text_start) = (0, 0);
    while i < b.len() {
        let starts = digit(i)
            || (b[i] == b'.' && digit(i + 1))
            || ((b[i] == b'-' || b[i] == b'+')
                && (digit(i + 1) || (i + 2 < b.len() && b[i + 1] == b'.' && digit(i + 2))));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        if b[i] == b'-' || b[i] == b'+' {
            i += 1;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                j += 1;
            }
            if digit(j) {
                while digit(j) {
                    j += 1;
                }
                i = j;
            }
        }
        if text_start < start {
            out.push(Piece::Text(line[text_start..start].trim()));
        }
        out.push(Piece::Number(&line[start..i]));
        text_start = i;
    }
    if text_start < b.len() {
        out.push(Piece::Text(line[text_start..].trim()));
    }
    out.retain(|p| *p != Piece::Text(""));
    out
}

/// The lines of a benchmark's output that must not depend on where it ran: all but timings.
fn stable_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            !l.contains("time") && !l.contains("mop/s") && !l.trim().is_empty()
        })
        .collect()
}

/// Compares the output of the device program with the sequential one: the same lines, the
/// same text, numbers within the tolerances. Reports the first difference.
fn compare_outputs(expected: &str, actual: &str) -> Result<(), String> {
    let (e, a) = (stable_lines(expected), stable_lines(actual));
    for (n, (x, y)) in e.iter().zip(&a).enumerate() {
        let (px, py) = (pieces(x), pieces(y));
        let same = px.len() == py.len()
            && px.iter().zip(&py).all(|(p, q)| match (p, q) {
                (Piece::Number(u), Piece::Number(v)) => {
                    match (u.parse::<f64>(), v.parse::<f64>()) {
                        (Ok(u), Ok(v)) => {
                            (u.abs() <= NOISE && v.abs() <= NOISE)
                                || (u - v).abs() <= REL_TOL * u.abs().max(v.abs())
                        }
                        _ => u == v,
                    }
                }
                _ => p == q,
            });
        if !same {
            return Err(format!(
                "line {} of the output differs:\n  sequential: {}\n  device:     {}",
                n + 1,
                x.trim(),
                y.trim()
            ));
        }
    }
    if e.len() != a.len() {
        return Err(format!(
            "the sequential program printed {} lines, the device program {} (first extra: {:?})",
            e.len(),
            a.len(),
            if e.len() > a.len() {
                e[a.len()]
            } else {
                a[e.len()]
            }
        ));
    }
    Ok(())
}

/// The lines of an output around its verification, for a failure message.
fn verification_excerpt(out: &str) -> String {
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("VERIFICATION") || l.contains("Verification being"))
        .unwrap_or(lines.len().saturating_sub(8));
    lines[at.saturating_sub(3)..(at + 12).min(lines.len())].join("\n")
}

/// The optimization variants: (label, options).
fn variants() -> Vec<(&'static str, driver::OptOptions)> {
    let naive = driver::OptOptions::default();
    let share = driver::OptOptions::share();
    let ilp2 = driver::OptOptions::share().with_rows(2);
    // Sized for a CPU device: contiguous register micro-tiles with an unguarded copy for
    // whole tiles, wherever a nest reuses operands across outputs.
    let cpu = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"));
    // Compiled for the H100, as `benches/gpu.sh` compiles (the schedules the L1 model decides:
    // loops across lanes, CG's CSR products among them; staging kept only where it gains),
    // run here on the OpenCL device.
    let h100 = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("h100").expect("h100"));
    vec![
        ("naive", naive),
        ("share", share),
        ("share --ilp 2", ilp2),
        ("pocl-cpu", cpu),
        ("h100", h100),
    ]
}

/// One benchmark: its outcome per variant (empty when the sequential program itself fails, in
/// `overall`), and the outcome of the benchmark: `FAIL` if a variant fails, else `refused` if
/// one is refused, else `pass`.
struct Report {
    per_variant: Vec<(&'static str, Outcome)>,
    overall: Outcome,
}

fn run_variant(bm: &str, opt: &driver::OptOptions, vdir: &Path, expected: &str) -> Outcome {
    let incs = include_dirs(bm);
    let mut outputs = Vec::new();
    let mut refusals = Vec::new();
    for (folder, src) in sources(bm) {
        let out_dir = vdir.join("out").join(folder);
        match accshare_compile(
            &src,
            accshare::front::preprocess::PpOptions {
                defines: Vec::new(),
                include_dirs: incs.clone(),
            },
            opt,
            &out_dir,
        ) {
            Compiled::Ok(c) => outputs.push(c),
            Compiled::Broken(e) => return Outcome::Fail(e),
            Compiled::Refused(rendered) => {
                if !has_location(&rendered) {
                    return Outcome::Fail(format!(
                        "{} refused without a file:line:col location:\n{}",
                        src_name(&src),
                        rendered
                    ));
                }
                refusals.push(first_error(&rendered));
            }
        }
    }
    if let Some(first) = refusals.first() {
        let more = if refusals.len() > 1 {
            format!(" (and {} more files)", refusals.len() - 1)
        } else {
            String::new()
        };
        return Outcome::Refused(format!("{}{}", first, more));
    }
    let gpu = vdir.join("gpu");
    if let Err(e) = cc(&outputs, &gpu, &incs, true) {
        return Outcome::Fail(format!("the generated program does not build: {}", e));
    }
    let actual = match exec_support::run(&gpu) {
        Ok(o) => o,
        Err(e) => return Outcome::Fail(format!("the generated program fails: {}", e)),
    };
    if !actual.contains(VERIFIED) {
        return Outcome::Fail(format!(
            "the device program does not verify:\n{}",
            verification_excerpt(&actual)
        ));
    }
    if let Err(e) = compare_outputs(expected, &actual) {
        return Outcome::Fail(format!("verified, but prints other values: {}", e));
    }
    Outcome::Pass
}

fn check_benchmark(bm: &str, scratch: &Path) -> Report {
    let fail = |why: String| Report {
        per_variant: Vec::new(),
        overall: Outcome::Fail(why),
    };
    let dir = scratch.join(bm);
    let _ = std::fs::create_dir_all(&dir);
    let seq = dir.join("seq");
    let srcs: Vec<PathBuf> = sources(bm).into_iter().map(|(_, p)| p).collect();
    if let Err(e) = cc(&srcs, &seq, &include_dirs(bm), false) {
        return fail(format!("the sequential program does not build: {}", e));
    }
    let expected = match exec_support::run(&seq) {
        Ok(o) => o,
        Err(e) => return fail(format!("the sequential program fails: {}", e)),
    };
    if !expected.contains(VERIFIED) {
        return fail(format!(
            "the sequential program does not verify:\n{}",
            verification_excerpt(&expected)
        ));
    }
    let mut per_variant = Vec::new();
    for (vi, (label, opt)) in variants().iter().enumerate() {
        let vdir = dir.join(format!("v{}", vi));
        per_variant.push((*label, run_variant(bm, opt, &vdir, &expected)));
    }
    let overall = per_variant
        .iter()
        .find(|(_, o)| matches!(o, Outcome::Fail(_)))
        .or_else(|| {
            per_variant
                .iter()
                .find(|(_, o)| matches!(o, Outcome::Refused(_)))
        })
        .map(|(label, o)| match o {
            Outcome::Fail(d) => Outcome::Fail(format!("[{}] {}", label, d)),
            Outcome::Refused(d) => Outcome::Refused(format!("{} [{}]", d, label)),
            Outcome::Pass => Outcome::Pass,
        })
        .unwrap_or(Outcome::Pass);
    Report {
        per_variant,
        overall,
    }
}

#[test]
fn npb_programs_verify_on_the_device_or_are_refused_with_a_location() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let names = benchmarks();
    assert!(
        !names.is_empty(),
        "no benchmarks under {}",
        suite_dir().display()
    );
    let scratch = exec_support::scratch_dir("npbsuite");

    // Benchmarks are independent: run them on a few threads (the device runs on the CPU).
    let results = suite::run_each(&names, 2, |name| check_benchmark(name, &scratch));

    // The summary table: the outcome of every variant, then the first problem.
    let labels: Vec<&str> = variants().iter().map(|(l, _)| *l).collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(5).max(9);
    let mut table = format!("{:<width$}  {:<7}", "benchmark", "outcome");
    for l in &labels {
        table.push_str(&format!("  {:<13}", l));
    }
    table.push_str("  detail\n");
    for (name, r) in &results {
        table.push_str(&format!("{:<width$}  {:<7}", name, r.overall.word()));
        for l in &labels {
            let word = r
                .per_variant
                .iter()
                .find(|(v, _)| v == l)
                .map_or("-", |(_, o)| o.word());
            table.push_str(&format!("  {:<13}", word));
        }
        table.push_str(&format!("  {}\n", r.overall.detail()));
    }
    let count = |f: fn(&Outcome) -> bool| results.iter().filter(|(_, r)| f(&r.overall)).count();
    table.push_str(&format!(
        "{} benchmarks: {} pass, {} refused, {} FAIL\n",
        results.len(),
        count(|o| matches!(o, Outcome::Pass)),
        count(|o| matches!(o, Outcome::Refused(_))),
        count(|o| matches!(o, Outcome::Fail(_)))
    ));
    println!("{}", table);

    let mut problems = Vec::new();
    for (name, r) in &results {
        if let Outcome::Fail(d) = &r.overall {
            problems.push(format!("FAIL {}: {}", name, d));
        }
    }

    // The refused benchmarks must be exactly those listed (among those that ran).
    let refused: BTreeSet<String> = results
        .iter()
        .filter(|(_, r)| matches!(r.overall, Outcome::Refused(_)))
        .map(|(n, _)| n.clone())
        .collect();
    problems.extend(suite::refused_list_problems(
        &suite_dir().join("REFUSED"),
        "tests/npbsuite/REFUSED",
        &names,
        &refused,
    ));
    if problems.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(problems.is_empty(), "{}\n{}", table, problems.join("\n\n"));
}

/// Without a device: every benchmark has its class parameters, and every name in `REFUSED`
/// is a benchmark of the suite.
#[test]
fn npb_suite_is_complete() {
    let all: Vec<String> = std::fs::read_dir(suite_dir())
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir() && e.file_name() != "common")
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(all.len() >= 4, "too few benchmarks: {:?}", all);
    for bm in &all {
        let dir = suite_dir().join(bm);
        assert!(
            dir.join(format!("{}.c", bm.to_lowercase())).is_file(),
            "{} has no {}.c",
            bm,
            bm.to_lowercase()
        );
        assert!(
            dir.join("npbparams.h").is_file(),
            "{} has no npbparams.h",
            bm
        );
    }
    for name in suite::refused_list(&suite_dir().join("REFUSED")) {
        assert!(
            all.contains(&name),
            "tests/npbsuite/REFUSED lists `{}`, which is not a benchmark",
            name
        );
    }
}

/// NPB's larger classes, chosen by `-DCLASS_W` / `-DCLASS_A` in every `npbparams.h`
/// (`benches/npb-classes.sh` builds, runs and times them): each benchmark's files compile with
/// accshare at both classes as they do at class S (no device, nothing run). The generated host
/// files keep `#include "npbparams.h"`: `cc` needs the same `-DCLASS_…` as accshare.
#[test]
fn npb_classes_w_and_a_compile() {
    let refused = suite::refused_list(&suite_dir().join("REFUSED"));
    let names: Vec<String> = benchmarks()
        .into_iter()
        .filter(|b| !refused.contains(b))
        .collect();
    let scratch = exec_support::scratch_dir("npbclasses");
    let results = suite::run_each(&names, 2, |bm| {
        let params =
            std::fs::read_to_string(suite_dir().join(bm).join("npbparams.h")).unwrap_or_default();
        for class in ["CLASS_W", "CLASS_A"] {
            if !params.contains(class) {
                return Err(format!("{}/npbparams.h has no {}", bm, class));
            }
        }
        let opt = driver::OptOptions::share();
        for class in ["CLASS_W", "CLASS_A"] {
            for src in c_files(&suite_dir().join(bm)) {
                let pp = accshare::front::preprocess::PpOptions {
                    defines: vec![(class.to_string(), None)],
                    include_dirs: include_dirs(bm),
                };
                match accshare_compile(&src, pp, &opt, &scratch.join(bm).join(class)) {
                    Compiled::Ok(_) => {}
                    Compiled::Refused(r) => {
                        return Err(format!(
                            "{} refused at -D{}: {}",
                            src_name(&src),
                            class,
                            first_error(&r)
                        ))
                    }
                    Compiled::Broken(e) => return Err(format!("{} at -D{}: {}", bm, class, e)),
                }
            }
        }
        Ok(())
    });
    let problems: Vec<String> = results.into_iter().filter_map(|(_, r)| r.err()).collect();
    if problems.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn output_comparison_tells_numbers_apart() {
    assert_eq!(
        pieces(" FAILURE:  1 2.7E-02-1.5e+00"),
        vec![
            Piece::Text("FAILURE:"),
            Piece::Number("1"),
            Piece::Number("2.7E-02"),
            Piece::Number("-1.5e+00"),
        ]
    );
    assert!(compare_outputs(
        " Zeta is 8.5971775078648E+00\n",
        " Zeta is 8.5971775078650E+00\n"
    )
    .is_ok());
    assert!(compare_outputs(" Zeta is 8.59717750E+00\n", " Zeta is 8.59717760E+00\n").is_err());
    assert!(compare_outputs(" x 1.0E-15\n Time = 1.0\n", " x 3.0E-12\n Time = 9.0\n").is_ok());
    assert!(compare_outputs(" x 1.0E-5\n", " x 1.0001E-5\n").is_err());
    assert!(compare_outputs("  3   17\n", "  3   18\n").is_err());
    assert!(compare_outputs("a\nb\n", "a\n").is_err());
    assert!(has_location("  ┌─ /x/MG/mg.c:442:28"));
    assert!(!has_location("error: something"));
}
