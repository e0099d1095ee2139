//! The data-bug warnings (`analysis::stale`: stale host copy, stale device copy, uninitialized
//! device copy), measured.
//!
//! - **Precision**: every example, corpus, error-case, suite (accsuite at both dataset sizes,
//!   npbsuite file by file, with their `-I`/`-D` flags) and generated differential program is
//!   compiled; the only warnings of these kinds are the two bugs
//!   `tests/corpus/zero_copy_data_updates.c` plants on purpose (it checks that OpenACC's copies
//!   stay apart) and the three bad inputs of `tests/errors/` written to show them.
//! - **Recall**: `tests/data_bugs/*.c` are correct programs of the suites with one bug planted
//!   (its first comment says which kind, the program it comes from, its flags and the change);
//!   a planted bug is found when the program gets more warnings of its kind than the original.
//!   The programs found and missed are pinned, and the figures are in `docs/data-warnings.md`.

mod exec_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use accshare::diag::{self, Diags, SourceMap};
use accshare::front::preprocess::PpOptions;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Host code reads an array a kernel wrote.
    Host,
    /// A kernel reads an array host code wrote.
    Device,
    /// A kernel reads an array nothing wrote on the device.
    Uninit,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The data-bug warnings of one program: (kind, `file:line:col`), and the whole rendered text.
fn data_warnings(file: &Path, pp: &PpOptions) -> (Vec<(Kind, String)>, String) {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let Some(parsed) = accshare::front::load(file, pp, &mut sources, &mut diags) else {
        return (Vec::new(), format!("{} unreadable", file.display()));
    };
    if diags.has_errors() {
        return (Vec::new(), String::new());
    }
    let regions = accshare::ir::lower::find_regions(&parsed.tu, &sources, &mut diags);
    let mut out = Diags::new();
    let host = accshare::ir::lower::lower_host(&parsed, &regions);
    accshare::analysis::stale::check(&host, &regions, &sources, &mut out);
    let found = out
        .0
        .iter()
        .filter_map(|d| {
            let kind = if d.message.contains("host's stale copy") {
                Kind::Host
            } else if d.message.contains("device's stale copy") {
                Kind::Device
            } else if d.message.contains("before anything wrote it") {
                Kind::Uninit
            } else {
                return None;
            };
            let at = d
                .primary_span()
                .map(|s| sources.location(s))
                .unwrap_or_default();
            Some((kind, at))
        })
        .collect();
    (found, diag::render(&sources, &out.0))
}

fn pp(defines: &[&str], includes: &[PathBuf]) -> PpOptions {
    PpOptions {
        defines: defines.iter().map(|d| (d.to_string(), None)).collect(),
        include_dirs: includes.to_vec(),
    }
}

fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every program of the project, with the flags its tests compile it with.
fn programs() -> Vec<(PathBuf, PpOptions)> {
    let r = root();
    let mut v = Vec::new();
    for dir in [
        "examples",
        "tests/corpus",
        "tests/errors",
        "tests/fma",
        "tests/vectile",
        "tests/words",
    ] {
        for f in c_files(&r.join(dir)) {
            v.push((f, PpOptions::default()));
        }
    }
    let suite = r.join("tests/accsuite");
    let mut names: Vec<_> = std::fs::read_dir(&suite)
        .expect("tests/accsuite")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| suite.join(n).join(format!("{n}.c")).is_file())
        .collect();
    names.sort();
    for n in names {
        let incs = [suite.join("utilities"), suite.join(&n)];
        for size in ["MINI_DATASET", "SMALL_DATASET"] {
            v.push((suite.join(&n).join(format!("{n}.c")), pp(&[size], &incs)));
        }
    }
    let npb = r.join("tests/npbsuite");
    for e in std::fs::read_dir(&npb).expect("tests/npbsuite").flatten() {
        let bm = e.path();
        if !bm.is_dir() || bm.ends_with("common") {
            continue;
        }
        for f in c_files(&bm) {
            v.push((f, pp(&[], &[npb.join("common"), bm.clone()])));
        }
    }
    v
}

#[test]
fn precision_on_every_program() {
    let mut warned = Vec::new();
    let mut count = 0;
    for (file, opts) in programs() {
        count += 1;
        let (found, text) = data_warnings(&file, &opts);
        let rel = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (k, at) in found {
            warned.push((rel.clone(), k, at, text.clone()));
        }
    }
    let dir = exec_support::scratch_dir("data-warnings");
    let generated = 300;
    for seed in 1..=generated {
        let src = dir.join(format!("gen_{seed}.c"));
        std::fs::write(&src, exec_support::generate::program(seed)).expect("write");
        count += 1;
        let (found, text) = data_warnings(&src, &PpOptions::default());
        for (k, at) in found {
            warned.push((format!("generated seed {seed}"), k, at, text.clone()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{count} compilations, {} data-bug warnings", warned.len());
    // The bugs `zero_copy_data_updates.c` plants on purpose (its header says so): the host's
    // read of `a` before `update host` after `bump`'s kernel wrote it (found through the
    // callee's summary), a host write the device does not see, and device values of a
    // `create` array that never reach the host.
    // And the three bad inputs of `tests/errors/` that assert these warnings.
    let expected = [
        (Kind::Host, "zero_copy_data_updates.c:41:24"),
        (Kind::Device, "zero_copy_data_updates.c:54:20"),
        (Kind::Host, "zero_copy_data_updates.c:72:19"),
        (Kind::Host, "errors/stale_host_read.c:41:66"),
        (Kind::Device, "errors/stale_device_read.c:13:20"),
        (Kind::Uninit, "errors/uninit_copyout.c:10:20"),
    ];
    let got: Vec<(Kind, String)> = warned.iter().map(|w| (w.1, w.2.clone())).collect();
    let unexpected: Vec<_> = warned
        .iter()
        .filter(|w| {
            !expected
                .iter()
                .any(|(k, at)| *k == w.1 && w.2.ends_with(at))
        })
        .map(|w| format!("{}: {:?} at {}\n{}", w.0, w.1, w.2, w.3))
        .collect();
    assert!(
        unexpected.is_empty(),
        "false alarms?\n{}",
        unexpected.join("\n")
    );
    assert_eq!(got.len(), expected.len(), "{got:?}");
}

/// A planted program's header: (kind, the original program, flags).
fn header(text: &str) -> (Kind, PathBuf, Vec<String>) {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.split_once(&format!("{name}: ")).map(|(_, v)| v.trim()))
            .unwrap_or("")
            .trim_end_matches("*/")
            .trim()
            .to_string()
    };
    let kind = match field("planted").as_str() {
        "host" => Kind::Host,
        "device" => Kind::Device,
        "uninit" => Kind::Uninit,
        k => panic!("unknown planted kind `{k}`"),
    };
    let flags = field("flags")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    (kind, root().join(field("from")), flags)
}

fn pp_of_flags(flags: &[String]) -> PpOptions {
    let mut o = PpOptions::default();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if f == "-I" {
            if let Some(d) = it.next() {
                o.include_dirs.push(root().join(d));
            }
        } else if let Some(d) = f.strip_prefix("-D") {
            o.defines.push((d.to_string(), None));
        }
    }
    o
}

#[test]
fn recall_on_planted_bugs() {
    let mut found: BTreeMap<Kind, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for file in c_files(&root().join("tests/data_bugs")) {
        let text = std::fs::read_to_string(&file).expect("read");
        let (kind, from, flags) = header(&text);
        let opts = pp_of_flags(&flags);
        let (planted, rendered) = data_warnings(&file, &opts);
        let (original, _) = data_warnings(&from, &opts);
        let n = |v: &[(Kind, String)]| v.iter().filter(|w| w.0 == kind).count();
        let name = file
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let e = found.entry(kind).or_default();
        if n(&planted) > n(&original) {
            e.0.push(name.clone());
        } else {
            e.1.push(name.clone());
        }
        // A planted program gets no warning of another kind than the original's.
        for k in [Kind::Host, Kind::Device, Kind::Uninit] {
            if k != kind {
                let c = |v: &[(Kind, String)]| v.iter().filter(|w| w.0 == k).count();
                assert_eq!(c(&planted), c(&original), "{name}: {k:?}\n{rendered}");
            }
        }
    }
    let (mut hit, mut all) = (0, 0);
    for (k, (yes, no)) in &found {
        println!(
            "{k:?}: {}/{} found; missed: {no:?}",
            yes.len(),
            yes.len() + no.len()
        );
        hit += yes.len();
        all += yes.len() + no.len();
    }
    println!("recall {hit}/{all}");
    let missed: Vec<&String> = found.values().flat_map(|(_, no)| no).collect();
    // Missed, and why: `zero_copy_no_update_host`'s stale reads of `a` come from the same
    // kernel write (`bump`'s) as the read its original makes on purpose before `update host`,
    // and the analysis warns once per array and kernel write: the planted program gets the
    // original's warning, no more; `jacobi2d_create`'s first kernel writes part of `B` (arrays
    // are whole to the analysis).
    assert_eq!(
        missed,
        ["zero_copy_no_update_host", "jacobi2d_create"],
        "{found:?}"
    );
    assert_eq!(all, 16);
}

/// The simulator's checker (`accshare run --device sim`) follows the device copies along the
/// program's run (`sim::undefined`) and reports a kernel's read of an element no copy, `update
/// device` or kernel defined: every planted `uninit` bug, with the access; the originals get no
/// such finding. (It finds `jacobi2d_create`, whose first kernel writes only `B`'s interior,
/// which the static analysis misses: it sees arrays whole.)
#[test]
fn the_simulator_reports_reads_of_undefined_device_memory() {
    const FINDING: &str = "finding: read of device memory that no copy or kernel wrote";
    let run = |file: &Path, flags: &[String]| -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_accshare"))
            .current_dir(root())
            .arg("run")
            .arg(file)
            .args(flags)
            .args(["--opt", "naive", "--device", "sim"])
            .output()
            .expect("run accshare");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut planted = 0;
    for file in c_files(&root().join("tests/data_bugs")) {
        let text = std::fs::read_to_string(&file).expect("read");
        let (kind, from, flags) = header(&text);
        if kind != Kind::Uninit {
            continue;
        }
        planted += 1;
        let bug = run(&file, &flags);
        let line = bug.lines().find(|l| l.starts_with(FINDING));
        assert!(line.is_some(), "{}:\n{bug}", file.display());
        // The finding names the access and the element.
        assert!(
            line.is_some_and(|l| l.contains(" at ") && l.contains("(element ")),
            "{bug}"
        );
        let original = run(&from, &flags);
        assert!(
            !original.contains(FINDING) && original.contains("results identical"),
            "{}:\n{original}",
            from.display()
        );
    }
    assert_eq!(planted, 5);
}
