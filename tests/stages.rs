//! Snapshot tests of each stage's output for every example: the loop-nest IR, the OpenCL and
//! CUDA kernels, and (for one example each) the whole OpenCL host file and the CUDA `.c`/`.cu`.
//! The CUDA kernels are also compiled with NVRTC and the OpenCL kernels built by the OpenCL
//! runtime.

use std::path::Path;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

fn compile(rel: &str, target: Target) -> driver::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).expect("cd");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target,
        pp: Default::default(),
    };
    match driver::compile(Path::new(rel), &opts, &mut sources, &mut diags) {
        Some(o) => o,
        None => panic!("{} failed:\n{}", rel, diag::render(&sources, &diags.0)),
    }
}

fn examples() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<String> = std::fs::read_dir(root.join("examples"))
        .expect("examples")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    v.sort();
    v
}

#[test]
fn ir_of_examples() {
    for n in examples() {
        let out = compile(&format!("examples/{}", n), Target::OpenCl);
        insta::assert_snapshot!(format!("ir_{}", n.trim_end_matches(".c")), out.ir_text);
    }
}

#[test]
fn opencl_kernels_of_examples() {
    for n in examples() {
        let out = compile(&format!("examples/{}", n), Target::OpenCl);
        insta::assert_snapshot!(
            format!("opencl_{}", n.trim_end_matches(".c")),
            out.kernel_source
        );
    }
}

#[test]
fn cuda_kernels_of_examples() {
    for n in examples() {
        let out = compile(&format!("examples/{}", n), Target::Cuda);
        insta::assert_snapshot!(
            format!("cuda_{}", n.trim_end_matches(".c")),
            out.kernel_source
        );
    }
}

#[test]
fn host_code_of_hotspot() {
    let out = compile("examples/hotspot.c", Target::OpenCl);
    insta::assert_snapshot!(out.host_source);
}

/// The CUDA target's two files for one example: the `.c` (C: the C prelude declaring the
/// `.cu`'s functions, then the program calling them) and the `.cu` from its kernels on (the
/// kernels and their launch functions; the runtime before them is compiled in cuda_nvcc.rs).
#[test]
fn cuda_files_of_saxpy_ptr() {
    let out = compile("examples/saxpy_ptr.c", Target::Cuda);
    insta::assert_snapshot!("cuda_host_saxpy_ptr", out.host_source);
    let marker = "/* ---- kernels ---- */\n";
    let at = out
        .device_source
        .find(marker)
        .expect("the .cu has a kernels section");
    insta::assert_snapshot!(
        "cuda_device_saxpy_ptr",
        &out.device_source[at + marker.len()..]
    );
}

/// Every example's kernels are accepted by the real compilers: the OpenCL runtime (PoCL here)
/// and NVRTC. A missing runtime is a visible skip, or a failure under ACCSHARE_REQUIRE_DEVICES=1.
#[test]
fn kernels_of_examples_compile_with_real_compilers() {
    use accshare::runtime::clbuild::{build_opencl_source, BuildOutcome};
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    let require = accshare::runtime::require_devices();
    let mut failures = Vec::new();
    for n in examples() {
        let rel = format!("examples/{}", n);
        let cl = compile(&rel, Target::OpenCl).kernel_source;
        match build_opencl_source(&cl) {
            Ok(BuildOutcome::Built) => {}
            Ok(BuildOutcome::Skipped(why)) => {
                assert!(!require, "OpenCL required but unavailable: {}", why);
                println!("SKIP: OpenCL build of {}: {}", rel, why);
            }
            Ok(BuildOutcome::Failed(log)) => {
                failures.push(format!("{} (OpenCL):\n{}\n{}", rel, log, cl))
            }
            Err(e) => failures.push(format!("{} (OpenCL): {}", rel, e)),
        }
        let cu = compile(&rel, Target::Cuda).kernel_source;
        match compile_cuda(&cu, "compute_75") {
            Ok(CompileOutcome::Compiled { log, .. }) => {
                if !log.trim().is_empty() {
                    failures.push(format!("{} (NVRTC warnings):\n{}", rel, log));
                }
            }
            Ok(CompileOutcome::Skipped(why)) => {
                assert!(!require, "NVRTC required but unavailable: {}", why);
                println!("SKIP: NVRTC compile of {}: {}", rel, why);
            }
            Ok(CompileOutcome::Failed(log)) => {
                failures.push(format!("{} (NVRTC):\n{}\n{}", rel, log, cu))
            }
            Err(e) => failures.push(format!("{} (NVRTC): {}", rel, e)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The parsed AST of every example's annotated functions (spans left out: the check summaries
/// and diagnostics snapshots cover positions), with pragmas attached to their statements.
#[test]
fn ast_of_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for n in examples() {
        let rel = format!("examples/{}", n);
        std::env::set_current_dir(root).expect("cd");
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let parsed = accshare::front::load(
            Path::new(&rel),
            &Default::default(),
            &mut sources,
            &mut diags,
        )
        .expect("readable");
        assert!(!diags.has_errors(), "{}", diag::render(&sources, &diags.0));
        let mut text = String::new();
        for item in &parsed.tu.items {
            if let accshare::front::ast::ItemKind::Function(f) = &item.kind {
                let dbg = format!("{:#?}", f);
                if !dbg.contains("Acc {") {
                    continue;
                }
                text.push_str(&strip_spans(&dbg));
                text.push('\n');
            }
        }
        insta::assert_snapshot!(format!("ast_{}", n.trim_end_matches(".c")), text);
    }
}

/// Removes `span: Span { … },` blocks from pretty Debug output.
fn strip_spans(dbg: &str) -> String {
    let mut out = String::new();
    let mut skip = 0usize;
    for line in dbg.lines() {
        let t = line.trim_start();
        if skip > 0 {
            if t.starts_with('}') {
                skip -= 1;
            }
            continue;
        }
        if (t.starts_with("span: Span {") || t.starts_with("construct_span: Span {"))
            && !t.ends_with("},")
        {
            skip = 1;
            continue;
        }
        if t.starts_with("span: Span") || t.starts_with("construct_span: Span") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The kernels of reductions over grid loops (`schedule::stride`): the outermost grid loop a
/// grid-stride loop around each work-item's iterations, the accumulators before it, the tree
/// after it; for both targets (the CUDA ones compiled by NVRTC in `cuda_launch.rs`).
#[test]
fn kernels_of_grid_stride_reductions() {
    for (target, name) in [(Target::OpenCl, "opencl"), (Target::Cuda, "cuda")] {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target,
            pp: Default::default(),
        };
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/reduce_grid_stride.c");
        let out = driver::compile_with(
            &file,
            &opts,
            &driver::OptOptions::share(),
            &mut sources,
            &mut diags,
        )
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
        insta::assert_snapshot!(format!("grid_stride_{name}"), out.kernel_source);
    }
}
