//! The programs of the five-kernel benchmark (`benches/five/*.c`, run by `benches/five.sh`) are
//! correct through accshare: each is built by `cc` (the sequential reference) and through
//! accshare (in process, OpenCL, run on the test machine's device) at small sizes that are not
//! multiples of any block size, `--opt naive`, the default and sized for the device itself
//! (`--platform opencl:0`, without the tune cache); with `-DDUMP` every output array is printed
//! and must match. No time is measured here: the benchmark is a script, not a test.
//! `ACCSHARE_ONLY=text` runs only the programs whose name contains `text`.

mod exec_support;

use exec_support::suite::{accshare_compile, Compiled};

use std::path::{Path, PathBuf};

use accshare::driver;

/// Small sizes, none a multiple of a block size (partial tiles at every edge), one region
/// repetition, and the dumps on stdout.
const DEFINES: [(&str, &str); 12] = [
    ("N", "67"),
    ("M", "61"),
    ("NI", "37"),
    ("NJ", "53"),
    ("NK", "45"),
    ("H", "43"),
    ("W", "71"),
    ("ROWS", "45"),
    ("COLS", "59"),
    ("STEPS", "3"),
    ("REPS", "2"),
    ("DUMP", ""),
];

fn five_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/five")
}

/// Every `benches/five/*.c`, sorted, filtered by `ACCSHARE_ONLY`.
fn programs() -> Vec<PathBuf> {
    let only = std::env::var("ACCSHARE_ONLY").unwrap_or_default();
    let mut v: Vec<PathBuf> = std::fs::read_dir(five_dir())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "c"))
                .filter(|p| p.to_string_lossy().contains(only.as_str()))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn variants() -> Vec<(&'static str, driver::OptOptions)> {
    let mut v = vec![
        ("--opt naive", driver::OptOptions::default()),
        ("default", driver::OptOptions::share()),
    ];
    match accshare::model::Platform::load("opencl:0") {
        Ok(p) => v.push((
            "--platform opencl:0",
            driver::OptOptions::share().for_platform(p),
        )),
        Err(e) => eprintln!("no --platform opencl:0 variant: {}", e),
    }
    v
}

/// Runs one program at every variant; the problems found.
fn check(src: &Path, scratch: &Path) -> Vec<String> {
    let name = src.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = scratch.join(&name);
    let _ = std::fs::create_dir_all(&dir);
    let inc = format!("-I{}", five_dir().display());
    let seq = dir.join("seq");
    if let Err(e) = exec_support::compile_c_with(src, &seq, &DEFINES, false, &[&inc]) {
        return vec![format!(
            "{}: the sequential program does not build: {}",
            name, e
        )];
    }
    let expected = match exec_support::run(&seq) {
        Ok(o) => o,
        Err(e) => return vec![format!("{}: the sequential program fails: {}", name, e)],
    };
    assert!(
        expected.contains("== "),
        "{}: the sequential program printed no dump",
        name
    );
    let pp = accshare::front::preprocess::PpOptions {
        defines: DEFINES
            .iter()
            .map(|(n, v)| (n.to_string(), (!v.is_empty()).then(|| v.to_string())))
            .collect(),
        include_dirs: vec![five_dir()],
    };
    let mut problems = Vec::new();
    for (i, (label, opt)) in variants().iter().enumerate() {
        let vdir = dir.join(format!("v{}", i));
        let c_file = match accshare_compile(src, pp.clone(), opt, &vdir.join("out")) {
            Compiled::Ok(c) => c,
            Compiled::Refused(r) => {
                problems.push(format!("{} [{}]: refused:\n{}", name, label, r));
                continue;
            }
            Compiled::Broken(e) => {
                problems.push(format!("{} [{}]: {}", name, label, e));
                continue;
            }
        };
        let exe = vdir.join("gpu");
        if let Err(e) = exec_support::compile_c_with(&c_file, &exe, &DEFINES, true, &[&inc]) {
            problems.push(format!(
                "{} [{}]: the generated program does not build: {}",
                name, label, e
            ));
            continue;
        }
        match exec_support::run(&exe) {
            Err(e) => problems.push(format!(
                "{} [{}]: the generated program fails: {}",
                name, label, e
            )),
            Ok(actual) => {
                if let Err(e) = exec_support::compare_dumps(&expected, &actual, 1e-4, 1e-5) {
                    problems.push(format!("{} [{}]: wrong result: {}", name, label, e));
                }
            }
        }
    }
    problems
}

#[test]
fn five_benchmark_programs_match_sequential_at_small_sizes() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let progs = programs();
    if std::env::var("ACCSHARE_ONLY").is_err() {
        let names: Vec<String> = progs
            .iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        for want in ["transpose", "gemm", "gemm_share", "mv", "gauss", "hotspot"] {
            assert!(
                names.iter().any(|n| n == want),
                "benches/five/{}.c is missing",
                want
            );
        }
    }
    let scratch = exec_support::scratch_dir("five");
    let mut problems = Vec::new();
    for p in &progs {
        problems.extend(check(p, &scratch));
    }
    if problems.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
