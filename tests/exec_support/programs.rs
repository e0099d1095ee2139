//! The example and corpus programs, compiled by `cc` (the sequential reference) and through
//! accshare at a given optimization level (OpenCL, run on the test machine's device), at their
//! default sizes and at sizes that are not multiples of any block size; every dumped array must
//! match. Shared by the execution tests of each optimization level.

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

/// Every `.c` file of `examples/` and `tests/corpus/`, sorted; with `ACCSHARE_ONLY=text` set,
/// only those whose name contains `text` (for working on one program).
pub fn programs() -> Vec<PathBuf> {
    let only = std::env::var("ACCSHARE_ONLY").unwrap_or_default();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["examples", "tests/corpus"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let wanted = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().contains(only.as_str()));
            if p.extension().is_some_and(|x| x == "c") && wanted {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// `#ifndef NAME` / `#define NAME <integer>` pairs: the program's size knobs.
pub fn size_macros(text: &str) -> Vec<(String, i64)> {
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

/// Compiles `src` through accshare at `opt` with `defines`, runs it, and compares its dump with
/// the sequential program's.
pub fn check_program(
    src: &Path,
    defines: &[(String, String)],
    tag: &str,
    opt: &driver::OptOptions,
) -> Result<(), String> {
    check_variants(src, defines, tag, &[("", opt.clone())])
}

/// The sequential program once, then every variant (label, options) through accshare on the
/// OpenCL device; every dump must match the sequential one. The error names the variant.
pub fn check_variants(
    src: &Path,
    defines: &[(String, String)],
    tag: &str,
    variants: &[(&str, driver::OptOptions)],
) -> Result<(), String> {
    check_variants_with_env(src, defines, tag, variants, &[])
}

/// [`check_variants`], running the accshare builds with extra environment variables (e.g.
/// `ACCSHARE_NO_ZERO_COPY=1`, the copying path on a device that shares host memory).
pub fn check_variants_with_env(
    src: &Path,
    defines: &[(String, String)],
    tag: &str,
    variants: &[(&str, driver::OptOptions)],
    env: &[(&str, &str)],
) -> Result<(), String> {
    let dir = super::scratch_dir(tag);
    let defs: Vec<(&str, &str)> = defines
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let seq = dir.join("seq");
    super::compile_c(src, &seq, &defs, false)?;
    let expected = super::run(&seq)?;
    for (vi, (label, opt)) in variants.iter().enumerate() {
        let named = |e: String| {
            if label.is_empty() {
                e
            } else {
                format!("[{}] {}", label, e)
            }
        };
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
        let out =
            driver::compile_with(src, &opts, opt, &mut sources, &mut diags).ok_or_else(|| {
                named(format!(
                    "accshare failed:\n{}",
                    diag::render(&sources, &diags.0)
                ))
            })?;
        let vdir = dir.join(format!("v{}", vi));
        let paths = driver::write(&out, src, &vdir.join("out"), Target::OpenCl).map_err(named)?;
        let c_file = paths
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "c"))
            .ok_or("no .c output")?;
        // The output keeps the program's `#include "…"` lines: compile a copy next to the
        // source's headers.
        let local_copy = vdir.join(src.file_name().ok_or("name")?);
        std::fs::copy(c_file, &local_copy).map_err(|e| e.to_string())?;
        if let Some(parent) = src.parent() {
            for e in std::fs::read_dir(parent)
                .map_err(|e| e.to_string())?
                .flatten()
            {
                if e.path().extension().is_some_and(|x| x == "h") {
                    let _ = std::fs::copy(e.path(), vdir.join(e.file_name()));
                }
            }
        }
        let gpu = vdir.join("gpu");
        super::compile_c(&local_copy, &gpu, &defs, true).map_err(named)?;
        let actual = super::run_ok_with_env(&gpu, env).map_err(named)?;
        super::compare_dumps(&expected, &actual, 1e-4, 1e-5).map_err(named)?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Runs every program at its default sizes and at odd sizes (about half the default, plus 3);
/// panics listing every mismatch. Skips visibly (or fails under ACCSHARE_REQUIRE_DEVICES=1)
/// without an OpenCL device.
pub fn all_match_sequential(opt: &driver::OptOptions, tag: &str) {
    if let Err(why) = super::opencl_available() {
        super::skip_or_fail(&why);
        return;
    }
    let mut failures = Vec::new();
    let mut runs = 0;
    for (i, p) in programs().iter().enumerate() {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        let odd: Vec<(String, String)> = size_macros(&text)
            .iter()
            .filter(|(_, v)| *v >= 8)
            .map(|(n, v)| (n.clone(), (v / 2 + 3).to_string()))
            .collect();
        let mut variants: Vec<Vec<(String, String)>> = vec![Vec::new()];
        if !odd.is_empty() {
            variants.push(odd);
        }
        for (j, defs) in variants.iter().enumerate() {
            runs += 1;
            if let Err(e) = check_program(p, defs, &format!("{}-{}-{}", tag, i, j), opt) {
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
