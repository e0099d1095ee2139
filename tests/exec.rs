//! Execution tests of the baseline (`--opt naive`): every example and corpus program is compiled
//! twice — as written by `cc` (the sequential reference) and through accshare (OpenCL, run on
//! PoCL) — at its default sizes and at sizes that are not multiples of any block size; every
//! output array must match.

mod exec_support;

use accshare::driver;

#[test]
fn programs_match_sequential_on_opencl() {
    let naive = driver::OptOptions::default();
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
/// memory, data moved by the runtime API) and an example; every run must match the sequential program. The generated code says
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
        "tests/corpus/runtime_api.c",
        "tests/corpus/vadd_1d.c",
        "tests/corpus/share_write_accumulate.c",
        "examples/mv.c",
    ] {
        progs.push(root.join(extra));
    }
    let naive = driver::OptOptions::default();
    let default = driver::OptOptions::share();
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

/// `#include <openacc.h>` in headers of the program, not in the main file (the way ports of
/// large suites write it): `sub/a.h` (`#pragma once`) includes `b.h`, which includes
/// `<openacc.h>`, and `c.h`, which does not. The output carries shadow copies of `a.h` and `b.h`
/// whose includes resolve to the prelude's runtime (the C compiler's own `openacc.h`, GCC's here,
/// redeclares `acc_device_t` beside it), naming `c.h` by its path; the program calls the runtime
/// API from the header and matches the sequential program on both targets' host code.
#[test]
fn openacc_h_included_by_a_header_resolves_to_the_prelude() {
    use accshare::back::Target;
    use accshare::diag::{self, Diags, SourceMap};
    use std::process::Command;
    let dir = exec_support::scratch_dir("openacc-header");
    let sub = dir.join("src/sub");
    std::fs::create_dir_all(&sub).unwrap();
    let files = [
        (
            "src/sub/a.h",
            "#pragma once\n#include \"b.h\"\n#include \"c.h\"\n",
        ),
        (
            "src/sub/b.h",
            "#ifndef B_H\n#define B_H\n#ifdef _OPENACC\n#include <openacc.h>\n\
             static int devices(void) { return acc_get_num_devices(acc_device_not_host) > 0; }\n\
             #else\nstatic int devices(void) { return 1; }\n#endif\n#endif\n",
        ),
        ("src/sub/c.h", "#define N 100\n"),
        (
            "src/main.c",
            "#include <stdio.h>\n#include \"sub/a.h\"\n#include \"sub/a.h\"\nfloat x[N];\n\
             int main(void)\n{\n#pragma acc parallel loop copyout(x)\n\
             \x20   for (int i = 0; i < N; i++) x[i] = 0.5f * i;\n\
             \x20   double s = 0;\n    for (int i = 0; i < N; i++) s += x[i];\n\
             \x20   printf(\"%g %d\\n\", s, devices());\n    return 0;\n}\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let src = dir.join("src/main.c");
    let cc = |args: &[&std::ffi::OsStr]| {
        let o = Command::new("cc").args(args).output().expect("cc");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let seq = dir.join("seq");
    cc(&[src.as_os_str(), "-o".as_ref(), seq.as_os_str()]);
    let expected = exec_support::run(&seq).expect("run");
    assert_eq!(expected.trim(), "2475 1");
    for target in [Target::OpenCl, Target::Cuda] {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target,
            pp: Default::default(),
        };
        let out = driver::compile(&src, &opts, &mut sources, &mut diags)
            .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
        let out_dir = dir.join(format!("out-{}", target.name()));
        let paths = driver::write(&out, &src, &out_dir, target).unwrap();
        let headers: Vec<String> = paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "h"))
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(headers.len(), 2, "{headers:?}");
        assert!(
            headers.iter().any(|h| h.starts_with("a.accshare-")),
            "{headers:?}"
        );
        assert!(
            headers.iter().any(|h| h.starts_with("b.accshare-")),
            "{headers:?}"
        );
        let main_c = out_dir.join("main.c");
        let text = std::fs::read_to_string(&main_c).unwrap();
        assert_eq!(text.matches("#include \"a.accshare-").count(), 2);
        if target == Target::Cuda {
            // The CUDA host code needs the `.cu` object to link: compiling it is the check.
            let obj = out_dir.join("main.o");
            cc(&[
                "-c".as_ref(),
                main_c.as_os_str(),
                "-o".as_ref(),
                obj.as_os_str(),
            ]);
            continue;
        }
        if let Err(why) = exec_support::opencl_available() {
            exec_support::skip_or_fail(&why);
            continue;
        }
        let exe = out_dir.join("prog");
        cc(&[
            main_c.as_os_str(),
            "-o".as_ref(),
            exe.as_os_str(),
            "-lOpenCL".as_ref(),
            "-lm".as_ref(),
        ]);
        assert_eq!(exec_support::run(&exe).expect("run"), expected);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scalar in a `reduction` clause of a loop nest that each iteration of an inner loop assigns
/// before accumulating into it (`temp = 0; … temp += …; d[…] = temp;`, the way the conformance
/// suite's `tile` tests use `reduction(+:temp)`): privatized in the inner loop and the reduction's
/// accumulator in the kernel, it is declared once there (it was declared twice, which the
/// OpenCL compiler refuses). The reduced value itself is OpenACC's (the sum of the copies), not
/// the sequential program's last one, so only the array is compared.
#[test]
fn reduction_variable_assigned_in_each_iteration() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("reduction-assigned");
    let src = dir.join("reduction_assigned.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#define N 70\n\
         static double a[N], b[N], d2[N * N];\n\
         int main(void)\n{\n    double temp = 0.0;\n\
         \x20   for (int i = 0; i < N; i++) { a[i] = i % 13; b[i] = i % 7 - 3; }\n\
         #pragma acc data copyin(a, b) copyout(d2)\n    {\n\
         #pragma acc kernels loop tile(*, *) reduction(+:temp)\n\
         \x20       for (int x = 0; x < N; ++x)\n\
         \x20           for (int y = 0; y < N; ++y) {\n\
         \x20               temp = 0;\n\
         \x20               for (int z = 0; z < 4; ++z)\n\
         \x20                   temp += a[x] * b[y] + z;\n\
         \x20               d2[x * N + y] = temp;\n\
         \x20           }\n    }\n\
         \x20   printf(\"== d2 %d\\n\", N * N);\n\
         \x20   for (int i = 0; i < N * N; i++) printf(\"%.9g\\n\", d2[i]);\n\
         \x20   return 0;\n}\n",
    )
    .unwrap();
    for opt in [driver::OptLevel::Naive, driver::OptLevel::Share] {
        let o = driver::OptOptions::new(opt);
        exec_support::programs::check_program(&src, &[], &format!("red-assigned-{opt:?}"), &o)
            .unwrap_or_else(|e| panic!("{opt:?}: {e}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
