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
        cols: None,
        words: None,
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

/// Both ways of holding data on a device that shares host memory (PoCL's CPU device reports
/// `CL_DEVICE_HOST_UNIFIED_MEMORY`): zero-copy buffers on the user's arrays (the default there)
/// and device copies (`ACCSHARE_NO_ZERO_COPY=1`). `tests/corpus/zero_copy_*.c` check OpenACC's
/// data semantics (a written `copyin` array, `create` arrays, `update` between kernels, host code
/// inside data regions), with a few corpus programs (pointers into present arrays, device-only
/// memory) and an example; every run must match the sequential program. The generated code says
/// which path it takes under ACCSHARE_VERBOSE=1.
#[test]
fn data_semantics_with_and_without_zero_copy() {
    use std::path::Path;
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut progs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("tests/corpus"))
        .expect("tests/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "c")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("zero_copy_"))
        })
        .collect();
    progs.sort();
    assert!(progs.len() >= 2, "{:?}", progs);
    for extra in [
        "tests/corpus/present_parts.c",
        "tests/corpus/vadd_1d.c",
        "tests/corpus/share_write_accumulate.c",
        "examples/mv.c",
    ] {
        progs.push(root.join(extra));
    }
    let naive = driver::OptOptions {
        opt: driver::OptLevel::Naive,
        platform: None,
        ilp: None,
        cols: None,
        words: None,
    };
    let default = driver::OptOptions {
        opt: driver::OptLevel::Share,
        platform: None,
        ilp: None,
        cols: None,
        words: None,
    };
    let variants = [("naive", naive), ("default", default)];
    let mut failures = Vec::new();
    for (i, p) in progs.iter().enumerate() {
        for (j, env) in [
            vec![("ACCSHARE_VERBOSE", "0")],
            vec![("ACCSHARE_NO_ZERO_COPY", "1")],
        ]
        .iter()
        .enumerate()
        {
            let tag = format!("zc-{}-{}", i, j);
            if let Err(e) =
                exec_support::programs::check_variants_with_env(p, &[], &tag, &variants, env)
            {
                failures.push(format!("{} {:?}: {}", p.display(), env, e));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
