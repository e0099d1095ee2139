//! Execution tests: every example and corpus program is compiled twice — as written by `cc`
//! (the sequential reference) and through accshare (OpenCL, run on PoCL) — at its default sizes
//! and at sizes that are not multiples of any block size; every output array must match.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::output::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["examples", "tests/corpus"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "c") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// `#ifndef NAME` / `#define NAME <integer>` pairs: the program's size knobs.
fn size_macros(text: &str) -> Vec<(String, i64)> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for w in lines.windows(2) {
        let Some(name) = w[0].strip_prefix("#ifndef ") else {
            continue;
        };
        let name = name.trim();
        let Some(rest) = w[1].strip_prefix("#define ") else {
            continue;
        };
        let mut it = rest.split_whitespace();
        if it.next() != Some(name) {
            continue;
        }
        if let Some(v) = it.next().and_then(|v| v.parse::<i64>().ok()) {
            out.push((name.to_string(), v));
        }
    }
    out
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("accshare-exec-{}-{}", std::process::id(), tag));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Compiles `src` through accshare with `defines`, runs it, and compares with the sequential run.
fn check_program(src: &Path, defines: &[(String, String)], tag: &str) -> Result<(), String> {
    let dir = tmpdir(tag);
    let defs: Vec<(&str, &str)> = defines
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    // Sequential reference.
    let seq = dir.join("seq");
    exec_support::compile_c(src, &seq, &defs, false)?;
    let expected = exec_support::run(&seq)?;
    // Through accshare.
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.clone(), Some(b.clone())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    let out = driver::compile(src, &opts, &mut sources, &mut diags)
        .ok_or_else(|| format!("accshare failed:\n{}", diag::render(&sources, &diags.0)))?;
    let paths = driver::write(&out, src, &dir.join("out"), Target::OpenCl)?;
    let c_file = paths
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .ok_or("no .c output")?;
    // The output keeps the program's `#include "…"` lines: compile it with the source's folder on
    // the include path (compile_c adds the source's own folder).
    let local_copy = dir.join(src.file_name().ok_or("name")?);
    std::fs::copy(c_file, &local_copy).map_err(|e| e.to_string())?;
    if let Some(parent) = src.parent() {
        for e in std::fs::read_dir(parent)
            .map_err(|e| e.to_string())?
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "h") {
                let _ = std::fs::copy(e.path(), dir.join(e.file_name()));
            }
        }
    }
    let gpu = dir.join("gpu");
    exec_support::compile_c(&local_copy, &gpu, &defs, true)?;
    let actual = exec_support::run(&gpu)?;
    exec_support::compare_dumps(&expected, &actual, 1e-4, 1e-5)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn programs_match_sequential_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, p) in programs().iter().enumerate() {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let knobs = size_macros(&text);
        let mut variants: Vec<Vec<(String, String)>> = vec![Vec::new()];
        // Odd sizes: about half the default, plus 3 (never a multiple of a power-of-two block).
        let odd: Vec<(String, String)> = knobs
            .iter()
            .filter(|(_, v)| *v >= 8)
            .map(|(n, v)| (n.clone(), (v / 2 + 3).to_string()))
            .collect();
        if !odd.is_empty() {
            variants.push(odd);
        }
        for (j, defs) in variants.iter().enumerate() {
            runs += 1;
            if let Err(e) = check_program(p, defs, &format!("{}-{}", i, j)) {
                failures.push(format!("{} {:?}: {}", p.display(), defs, e));
            }
        }
    }
    assert!(runs > 0, "no programs found");
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        runs,
        failures.join("\n\n")
    );
    println!("{} runs matched the sequential programs", runs);
}
