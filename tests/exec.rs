//! Execution tests of the baseline (`--opt naive`): every example and corpus program is compiled
//! twice — as written by `cc` (the sequential reference) and through accshare (OpenCL, run on
//! PoCL) — at its default sizes and at sizes that are not multiples of any block size; every
//! output array must match.

mod exec_support;

use accshare::driver;

#[test]
fn programs_match_sequential_on_opencl() {
    let naive = driver::OptOptions {
        opt: driver::OptLevel::Naive,
        platform: None,
        ilp: None,
    };
    exec_support::programs::all_match_sequential(&naive, "naive");
}

/// One program of two annotated files: a `data` region in one, a `present`/`pcopy` clause in a
/// function of the other. The present table is one for the program (OpenACC's semantics), so the
/// callee works on the device copy and nothing stale is copied back.
#[test]
fn data_regions_reach_functions_in_other_files() {
    use accshare::back::Target;
    use accshare::diag::{self, Diags, SourceMap};
    use std::process::Command;
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("two-files");
    let a = "#include <stdio.h>\n#define N 64\nvoid scale(int n, float *a);\n\
             int main(void)\n{\n    float a[N];\n    for (int i = 0; i < N; i++) a[i] = i;\n\
             #pragma acc data copy(a)\n    {\n\
             #pragma acc parallel loop present(a)\n\
             \x20       for (int i = 0; i < N; i++) a[i] += 1.0f;\n        scale(N, a);\n    }\n\
             \x20   double s = 0;\n    for (int i = 0; i < N; i++) s += a[i];\n\
             \x20   printf(\"%g\\n\", s);\n    return 0;\n}\n";
    let b = "void scale(int n, float *a)\n{\n#pragma acc parallel loop pcopy(a[0:n])\n\
             \x20   for (int i = 0; i < n; i++)\n        a[i] = 2.0f * a[i];\n}\n";
    let mut outs = Vec::new();
    let mut srcs = Vec::new();
    for (stem, text) in [("a", a), ("b", b)] {
        let src = dir.join(format!("{}.c", stem));
        std::fs::write(&src, text).unwrap();
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target: Target::OpenCl,
            pp: Default::default(),
        };
        let out = driver::compile(&src, &opts, &mut sources, &mut diags)
            .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
        let paths = driver::write(&out, &src, &dir.join("out"), Target::OpenCl).unwrap();
        outs.extend(
            paths
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "c")),
        );
        srcs.push(src);
    }
    let build = |files: &[std::path::PathBuf], exe: &str, opencl: bool| {
        let mut cc = Command::new("cc");
        cc.args(files).arg("-o").arg(dir.join(exe)).arg("-lm");
        if opencl {
            cc.arg("-lOpenCL");
        }
        let o = cc.output().expect("cc");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        exec_support::run(&dir.join(exe)).expect("run")
    };
    let expected = build(&srcs, "seq", false);
    let actual = build(&outs, "gpu", true);
    assert_eq!(actual, expected);
    assert_eq!(expected.trim(), "4160");
    let _ = std::fs::remove_dir_all(&dir);
}
