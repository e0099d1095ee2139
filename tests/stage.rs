//! `--opt share`: every example and corpus program through the shared-memory staging, run on PoCL
//! and compared with the sequential program at default and odd sizes; every staged kernel replayed
//! on the simulator with the checker (no race, out-of-bounds or uninitialized shared read);
//! snapshots of the staged kernels; the CUDA compiled with NVRTC where available.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

/// `--opt share` on the `a100` file: the engine's staging as the paper chose it (that file has no
/// L1 model, so nothing vetoes a staged kernel). The default platform (`h100`) stages only where
/// its L1 model predicts a clear gain; `h100_programs_match_sequential_on_opencl` runs those.
fn share() -> driver::OptOptions {
    driver::OptOptions::share().for_platform(accshare::model::Platform::load("a100").expect("a100"))
}

#[test]
fn share_programs_match_sequential_on_opencl() {
    exec_support::programs::all_match_sequential(&share(), "share");
}

/// The same with two rows per work-item everywhere it applies (the default is up to four).
#[test]
fn share_programs_with_two_rows_per_work_item_match_sequential_on_opencl() {
    let opt = share().with_rows(2);
    exec_support::programs::all_match_sequential(&opt, "share-ilp2");
}

/// Register micro-tiles without staging (a CPU platform, where nothing is staged): 4×4 outputs
/// per work-item in every kernel that can have several, rows cyclic and columns contiguous,
/// edge guards per output and an unguarded copy for whole tiles (the odd sizes leave partial
/// tiles).
#[test]
fn unstaged_micro_tiles_match_sequential_on_opencl() {
    let opt = share()
        .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"))
        .with_shape(4, 4);
    exec_support::programs::all_match_sequential(&opt, "tile4x4");
}

/// The defaults for a CPU device: contiguous micro-tiles (16 floats or 8 doubles wide, 4 rows
/// in 2-D grids, 4 columns in 1-D ones) wherever a nest reuses operands across outputs, with an
/// unguarded copy for the work-items whose outputs are all in range.
#[test]
fn cpu_default_micro_tiles_match_sequential_on_opencl() {
    let opt = share().for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"));
    exec_support::programs::all_match_sequential(&opt, "cpu-default");
}

/// The schedules for the H100 (`benches/gpu.sh`'s platform: staging kept only where the L1
/// model estimates a gain, loops across lanes where it or the program's `loop vector` asks,
/// grid-stride reductions), run on this machine's OpenCL device.
#[test]
fn h100_programs_match_sequential_on_opencl() {
    let opt = share().for_platform(accshare::model::Platform::load("h100").expect("h100"));
    exec_support::programs::all_match_sequential(&opt, "h100");
}

/// Staged kernels with a 2×2 micro-tile (2 rows, 2 cyclic columns per work-item): the tile
/// loads stride by the narrower launched block.
#[test]
fn staged_micro_tiles_match_sequential_on_opencl() {
    let opt = share().with_shape(2, 2);
    exec_support::programs::all_match_sequential(&opt, "share-2x2");
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
            .flat_map(|k| k.locals.iter().map(|&l| k.arrays[l].name.as_str()))
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
    // A written tile: the transposed output stored back row by row (and a loaded-first one).
    for n in ["share_write_transpose", "share_write_accumulate"] {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpus")
            .join(format!("{}.c", n));
        let out = compile_share(&src, Target::OpenCl, &[]);
        insta::assert_snapshot!(format!("stage_{}_cl", n), out.kernel_source);
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
    for (i, p) in exec_support::programs::programs().iter().enumerate() {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        // Memory only the device holds (`acc_malloc`, `deviceptr`) is not in the host memory the
        // simulator replays regions from (tests/sim.rs says the same); the execution tests run
        // such programs on the device.
        if text.contains("deviceptr(") {
            continue;
        }
        for odd in [false, true] {
            let defines: Vec<(String, String)> = exec_support::programs::size_macros(&text)
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
            let dir = exec_support::scratch_dir(&format!("sim-{}-{}", i, odd));
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
    assert!(
        staged_runs >= 12 || std::env::var("ACCSHARE_ONLY").is_ok(),
        "only {} staged runs",
        staged_runs
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// On a device whose local memory is its global memory (a CPU: the `pocl-cpu` platform, or
/// `opencl:N` of such a device) nothing is staged: every example's kernels are the naive
/// translation's, or, where operands are shared across outputs (gemm, mv) or the body has an
/// inner loop, the naive kernel with a register micro-tile (several outputs per work-item, no
/// local memory), or for a transpose (mt) a transposed vector tile.
#[test]
fn nothing_is_staged_where_local_memory_is_global_memory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cpu = accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu");
    assert_eq!(
        cpu.local_memory,
        accshare::model::platform::LocalMemory::Global
    );
    for name in STAGED {
        let src = root.join(format!("examples/{}.c", name));
        let kernels = |opt: driver::OptOptions| {
            let mut sources = SourceMap::new();
            let mut diags = Diags::new();
            let opts = driver::Options {
                target: Target::OpenCl,
                pp: Default::default(),
            };
            driver::compile_with(&src, &opts, &opt, &mut sources, &mut diags)
                .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)))
                .kernel_source
        };
        let on_cpu = kernels(share().for_platform(cpu.clone()));
        assert!(!on_cpu.contains("__local"), "{}: {}", name, on_cpu);
        let naive = kernels(driver::OptOptions::default());
        // gemm and mv reuse operands across outputs; conv3x3 and gauss run an inner loop, which
        // PoCL does not vectorise across work-items: SIMD lanes within a work-item; mt reads a
        // column-walked array: a transposed vector tile.
        let tiled = matches!(*name, "gemm" | "mv" | "conv3x3" | "gauss" | "mt");
        if tiled {
            if *name == "mt" {
                assert!(
                    on_cpu.contains("vload4(0, &in[") && on_cpu.contains("vstore4("),
                    "{}: {}",
                    name,
                    on_cpu
                );
            } else if *name == "gauss" {
                // 8-bit data: short words (seed 004) group the bytes into vectors; with
                // `--words off`, the contiguous tile of scalar columns.
                assert!(on_cpu.contains("vload8"), "{}: {}", name, on_cpu);
                let off = kernels(driver::OptOptions {
                    words: Some(false),
                    ..share().for_platform(cpu.clone())
                });
                assert!(off.contains("accshare_ilp1_"), "{}: {}", name, off);
                assert!(!off.contains("vload"), "{}: {}", name, off);
            } else {
                assert!(on_cpu.contains("accshare_ilp1_"), "{}: {}", name, on_cpu);
            }
            // `--ilp 1` turns the micro-tile off: the naive kernels again.
            let one = kernels(share().for_platform(cpu.clone()).with_shape(1, 1));
            assert_eq!(one, naive, "{}", name);
        } else {
            assert_eq!(on_cpu, naive, "{}", name);
        }
        // On a GPU the same file is staged.
        assert!(kernels(share()).contains("__local"), "{}", name);
    }
}

/// Register micro-tiles compile as CUDA (NVRTC), staged and unstaged.
#[test]
fn micro_tile_cuda_compiles_with_nvrtc() {
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    let require = accshare::runtime::require_devices();
    let cpu = accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu");
    let mut failures = Vec::new();
    for n in ["gemm", "mv", "conv3x3"] {
        for platform in [None, Some(cpu.clone())] {
            let opt = driver::OptOptions {
                platform: platform.clone(),
                ..share().with_shape(2, 2)
            };
            let mut sources = SourceMap::new();
            let mut diags = Diags::new();
            let opts = driver::Options {
                target: Target::Cuda,
                pp: Default::default(),
            };
            let out = driver::compile_with(&example(n), &opts, &opt, &mut sources, &mut diags)
                .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
            let cu = out.kernel_source;
            assert!(
                cu.contains("accshare_ilp1_"),
                "{}: no micro-tile\n{}",
                n,
                cu
            );
            match compile_cuda(&cu, "compute_75") {
                Ok(CompileOutcome::Compiled { log, .. }) if log.trim().is_empty() => {}
                Ok(CompileOutcome::Compiled { log, .. }) => {
                    failures.push(format!("{} (NVRTC warnings):\n{}", n, log))
                }
                Ok(CompileOutcome::Skipped(why)) => {
                    assert!(!require, "NVRTC required but unavailable: {}", why);
                    println!("SKIP: NVRTC compile of {}: {}", n, why);
                    return;
                }
                Ok(CompileOutcome::Failed(log)) => {
                    failures.push(format!("{}:\n{}\n{}", n, log, cu))
                }
                Err(e) => failures.push(format!("{}: {}", n, e)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
