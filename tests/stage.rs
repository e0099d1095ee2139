//! `--opt share`: every example and corpus program through the shared-memory staging, run on PoCL
//! and compared with the sequential program at default and odd sizes; every staged kernel replayed
//! on the simulator with the checker (no race, out-of-bounds or uninitialized shared read);
//! snapshots of the staged kernels; the CUDA compiled with NVRTC where available.

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

fn share() -> driver::OptOptions {
    driver::OptOptions {
        opt: driver::OptLevel::Share,
        platform: None,
    }
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
    let out = driver::compile_with(src, &opts, &share(), &mut sources, &mut diags)
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
fn share_programs_match_sequential_on_opencl() {
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
            if let Err(e) = check_program(p, defs, &format!("share-{}-{}", i, j)) {
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

const STAGED: &[&str] = &["gemm", "mt", "mv", "gauss", "hotspot", "conv3x3"];

fn compile_share(src: &Path, target: Target, defines: &[(String, String)]) -> driver::Output {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.clone(), Some(b.clone())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    match driver::compile_with(src, &opts, &share(), &mut sources, &mut diags) {
        Some(o) => o,
        None => panic!(
            "accshare failed on {}:\n{}",
            src.display(),
            diag::render(&sources, &diags.0)
        ),
    }
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(format!("{}.c", name))
}

/// The paper's benchmarks and the convolution get shared-memory kernels.
#[test]
fn benchmarks_are_staged() {
    for n in STAGED {
        let out = compile_share(&example(n), Target::OpenCl, &[]);
        let staged: Vec<&str> = out
            .module
            .kernels
            .iter()
            .flat_map(|k| k.locals.iter().map(|l| l.name.as_str()))
            .filter(|l| l.starts_with("accshare_sh_"))
            .collect();
        assert!(!staged.is_empty(), "{}: nothing staged", n);
        assert!(out.kernel_source.contains("barrier(CLK_LOCAL_MEM_FENCE)"));
    }
    // Naive stays naive.
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let out = driver::compile(&example("gemm"), &opts, &mut sources, &mut diags).expect("gemm");
    assert!(out.module.kernels.iter().all(|k| k.locals.is_empty()));
}

#[test]
fn staged_kernels_snapshots() {
    for n in STAGED {
        for (t, tag) in [(Target::OpenCl, "cl"), (Target::Cuda, "cu")] {
            let out = compile_share(&example(n), t, &[]);
            insta::assert_snapshot!(format!("stage_{}_{}", n, tag), out.kernel_source);
        }
    }
}

#[test]
fn staged_cuda_compiles_with_nvrtc() {
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    let require = accshare::runtime::require_devices();
    let mut failures = Vec::new();
    for n in STAGED {
        let cu = compile_share(&example(n), Target::Cuda, &[]).kernel_source;
        match compile_cuda(&cu, "compute_75") {
            Ok(CompileOutcome::Compiled { log, ptx }) => {
                if !log.trim().is_empty() {
                    failures.push(format!("{} (NVRTC warnings):\n{}", n, log));
                }
                // The tiles are in shared memory in the PTX (`.shared .align 4 .b8 …[bytes]`).
                let shared: Vec<&str> = ptx
                    .lines()
                    .filter(|l| {
                        l.contains(".shared") && l.contains(".b8") && l.contains("accshare_sh_")
                    })
                    .collect();
                if shared.is_empty() {
                    failures.push(format!("{}: no shared tile in the PTX", n));
                }
                println!("{}: {}", n, shared.join(" | ").replace('\t', " "));
            }
            Ok(CompileOutcome::Skipped(why)) => {
                assert!(!require, "NVRTC required but unavailable: {}", why);
                println!("SKIP: NVRTC compile of {}: {}", n, why);
            }
            Ok(CompileOutcome::Failed(log)) => failures.push(format!("{}:\n{}\n{}", n, log, cu)),
            Err(e) => failures.push(format!("{}: {}", n, e)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every program under `--opt share` replayed on the simulator with the checker, at a small
/// size and at an odd one: results equal to the sequential program, no finding.
#[test]
fn staged_kernels_pass_the_simulator_checker() {
    use accshare::sim::{trace, SimOptions, SimPlatform};
    let mut failures = Vec::new();
    let mut staged_runs = 0;
    for (i, p) in programs().iter().enumerate() {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        for odd in [false, true] {
            let defines: Vec<(String, String)> = size_macros(&text)
                .into_iter()
                .filter_map(|(n, v)| match odd {
                    true if v >= 8 => Some((n, (v / 8 + 3).to_string())),
                    false if v >= 64 => Some((n, "64".to_string())),
                    _ => None,
                })
                .collect();
            let out = compile_share(p, Target::OpenCl, &defines);
            if out.module.kernels.iter().all(|k| k.locals.is_empty()) {
                continue;
            }
            staged_runs += 1;
            let pp = accshare::front::preprocess::PpOptions {
                defines: defines
                    .iter()
                    .map(|(a, b)| (a.clone(), Some(b.clone())))
                    .collect(),
                include_dirs: Vec::new(),
            };
            let dir = tmpdir(&format!("sim-{}-{}", i, odd));
            let sim_opts = SimOptions {
                check: true,
                ..Default::default()
            };
            let res =
                trace::run_module(p, &out.module, &pp, &SimPlatform::nvidia(), &sim_opts, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            match res {
                Err(e) => failures.push(format!("{} {:?}: {}", p.display(), defines, e)),
                Ok((rep, _)) => {
                    if !rep.mismatches.is_empty() {
                        failures.push(format!(
                            "{} {:?}: {}",
                            p.display(),
                            defines,
                            rep.mismatches.join("\n")
                        ));
                    }
                    for r in &rep.runs {
                        for f in &r.findings {
                            failures.push(format!("{} {:?}: {}", p.display(), defines, f));
                        }
                    }
                }
            }
        }
    }
    assert!(staged_runs >= 12, "only {} staged runs", staged_runs);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
