//! Transposed vector tiles (`schedule::words::transposed`): on a CPU device a loop-free 2-D
//! nest that accesses an array along y and a stride apart along x (a transpose) computes a
//! W×W tile of adjacent outputs per work-item, loading and storing vectors along both
//! directions instead of the gathers (scatters) the device's compiler makes across work-items.
//!
//! - the programs (`tests/vectile/*.c`: a float transpose-add with a data region, a `double`
//!   transpose whose strided access is the store, an 8-bit rotation) compute what `cc`
//!   computes, on the OpenCL device, at two sizes, one of them not a multiple of the tile (the
//!   edge work-items run the scalar copies);
//! - the kernel text (OpenCL and CUDA) is pinned, and the CUDA kernels compile with NVRTC;
//! - `explain` says what was grouped along which direction, and a GPU platform gets no tile.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn programs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/vectile"))
        .expect("tests/vectile")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 3, "{v:?}");
    v
}

fn opts() -> driver::OptOptions {
    driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"))
}

fn compile(src: &Path, defines: &[(String, String)], target: Target) -> String {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let o = driver::Options {
        target,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.clone(), Some(b.clone())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    let out = driver::compile_with(src, &o, &opts(), &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    out.kernel_source
}

/// Two sizes per program: none of the first a multiple of 4 or 2, the second multiples of 4.
/// The transpose that scatters (`transpose_store_double.c`) is tiled from 2^16 outputs on
/// (`schedule::words::SMALL_TILE_OUTPUTS`).
fn sizes() -> [Vec<(String, String)>; 2] {
    let d = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    [
        d(&[
            ("NI", "45"),
            ("NJ", "70"),
            ("ROWS", "293"),
            ("COLS", "257"),
            ("H", "45"),
            ("W", "71"),
        ]),
        d(&[
            ("NI", "64"),
            ("NJ", "132"),
            ("ROWS", "384"),
            ("COLS", "256"),
            ("H", "36"),
            ("W", "128"),
        ]),
    ]
}

#[test]
fn vector_tiles_equal_cc_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let mut problems = Vec::new();
    for src in programs() {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        for (k, defines) in sizes().iter().enumerate() {
            let text = compile(&src, defines, Target::OpenCl);
            assert!(
                text.contains("vload") && text.contains("vstore"),
                "{name}: no vector tile:\n{text}"
            );
            let tag = format!("vectile-{name}-{k}");
            if let Err(e) = exec_support::programs::check_program(&src, defines, &tag, &opts()) {
                problems.push(format!("{name} {defines:?}: {e}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn kernel_text_is_pinned() {
    let tadd = root().join("tests/vectile/transpose_add.c");
    let store = root().join("tests/vectile/transpose_store_double.c");
    let [small, _] = sizes();
    insta::assert_snapshot!(
        "transpose_add_opencl",
        compile(&tadd, &small, Target::OpenCl)
    );
    insta::assert_snapshot!(
        "transpose_store_double_cuda",
        compile(&store, &small, Target::Cuda)
    );
}

#[test]
fn cuda_kernels_compile_with_nvrtc() {
    for src in programs() {
        let text = compile(&src, &[], Target::Cuda);
        assert!(text.contains("accshare_p"), "{text}");
        if !exec_support::nvrtc_compiles(&src.display().to_string(), &text) {
            return;
        }
    }
}

fn explain(src: &Path, platform: &str) -> String {
    exec_support::accshare_stdout(&["explain", "--platform", platform], src)
}

#[test]
fn explain_says_which_arrays_go_along_which_direction() {
    let tadd = root().join("tests/vectile/transpose_add.c");
    let text = explain(&tadd, "pocl-cpu");
    let want = "transposed vector tile: 4×4 adjacent outputs per work-item (rows and columns), so that an array accessed along y is accessed as vectors along y instead of gathered or scattered across work-items (block [128, 32, 1] launched as [32, 8, 1]); `A` (float) loads grouped per column into vectors of up to 4 lanes, `B` (float) loads grouped per row into vectors of up to 4 lanes, `C` (float) stores grouped per row into vectors of 4 lanes";
    assert!(text.contains(want), "{text}");
    let store = root().join("tests/vectile/transpose_store_double.c");
    let text = explain(&store, "pocl-cpu");
    assert!(
        text.contains("transposed vector tile: 2×2 adjacent outputs per work-item")
            && text.contains("`out` (double) stores grouped per column into vectors of 2 lanes"),
        "{text}"
    );
    // A GPU's work-items coalesce along x: no tile.
    let text = explain(&tadd, "a100");
    assert!(!text.contains("transposed vector tile"), "{text}");
}
