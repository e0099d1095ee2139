//! The command line as a user meets it: exit codes, messages, output files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn accshare() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_accshare"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// True when an OpenCL device can build kernels; else prints `SKIP: WHAT needs …` (or fails under
/// `ACCSHARE_REQUIRE_DEVICES=1`).
fn opencl_or_skip(what: &str) -> bool {
    match accshare::runtime::clbuild::opencl_available() {
        Ok(()) => true,
        Err(why) => {
            assert!(
                !accshare::runtime::require_devices(),
                "no OpenCL device: {}",
                why
            );
            eprintln!("SKIP: {} needs an OpenCL device: {}", what, why);
            false
        }
    }
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("accshare-cli-{}-{}", std::process::id(), tag));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn usage_errors_exit_2() {
    let out = accshare().output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = accshare()
        .args(["--target", "vulkan", "examples/gemm.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value 'vulkan'"), "{}", err);
    // A micro-tile larger than the registers can hold, and a malformed one.
    for (ilp, why) in [
        ("16x8", "16×8 is 128 outputs per work-item; at most 64"),
        ("4x0", "`0` is not a number from 1 to 64"),
    ] {
        let out = accshare()
            .args(["examples/gemm.c", "--ilp", ilp])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "--ilp {}", ilp);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{}", err);
    }
}

#[test]
fn input_errors_exit_1_with_location() {
    let out = accshare()
        .args(["check", "tests/errors/coalesce_typo.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tests/errors/coalesce_typo.c:6:34"), "{}", err);
    assert!(
        err.contains("error: aborting due to 1 previous error"),
        "{}",
        err
    );
    let out = accshare()
        .args(["check", "no/such/file.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn warnings_exit_0() {
    let out = accshare()
        .args(["check", "tests/errors/unknown_clause.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warning: unknown clause `fancy` ignored")
    );
}

#[test]
fn check_prints_one_line_per_region() {
    let out = accshare()
        .args(["check", "examples/hotspot.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 2, "{}", text);
    assert!(
        text.starts_with("examples/hotspot.c:48:13: hotspot: kernels loop independent"),
        "{}",
        text
    );
}

#[test]
fn defines_reach_the_preprocessor() {
    let out = accshare()
        .args(["examples/gemm.c", "--emit", "ir", "-D", "NI=100"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("loop L0 i in [0, 100)"));
}

#[test]
fn writes_outputs_and_never_the_input() {
    let dir = tmpdir("out");
    let out = accshare()
        .args(["examples/saxpy_ptr.c", "--target", "opencl", "-o"])
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("saxpy_ptr.c").is_file() && dir.join("saxpy_ptr.cl").is_file());
    let out = accshare()
        .args(["examples/saxpy_ptr.c", "--target", "cuda", "-o"])
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    // The C host code and the CUDA side.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("saxpy_ptr.c\n") && stderr.contains("saxpy_ptr.cu\n"),
        "{}",
        stderr
    );
    let c = std::fs::read_to_string(dir.join("saxpy_ptr.c")).expect("read .c");
    let cu = std::fs::read_to_string(dir.join("saxpy_ptr.cu")).expect("read .cu");
    assert!(!c.contains("cuda_runtime.h") && !c.contains("<<<"), "{}", c);
    assert!(c.contains("accshare_launch_"), "{}", c);
    assert!(
        cu.contains("#include <cuda_runtime.h>")
            && cu.contains("extern \"C\" void accshare_launch_")
    );
    assert!(!cu.contains("int main("), "{}", cu);
    // An output directory that is the input's own folder would overwrite the input: refused.
    let input = dir.join("mine.c");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/saxpy_ptr.c"),
        &input,
    )
    .expect("copy");
    let before = std::fs::read(&input).expect("read");
    let out = accshare()
        .arg(&input)
        .arg("-o")
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to overwrite the input file"));
    assert_eq!(std::fs::read(&input).expect("read"), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lint_warns_at_the_uncoalesced_reference() {
    let out = accshare()
        .args(["check", "--lint", "examples/mt.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: uncoalesced load"), "{}", err);
    assert!(err.contains("examples/mt.c:33:25"), "{}", err);
    assert!(
        err.contains("help: stage `in` through shared memory"),
        "{}",
        err
    );
    // gemm's references are coalesced or broadcast in the baseline mapping: no warning.
    let out = accshare()
        .args(["check", "--lint", "examples/gemm.c"])
        .output()
        .expect("run");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// An index loaded per lane (a gather) is `uncoalesced-by-data`, with the load it comes from
/// labelled and named in a note; a loaded base the same for the whole warp (a row start) is
/// classified by its strides, and misaligned unless the data aligns it.
#[test]
fn lint_warns_about_indices_that_depend_on_data() {
    let out = accshare()
        .args(["check", "--lint", "tests/corpus/gather_index.c"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let expected = "\
warning: uncoalesced load gather_r0_k0#3 src[k] unless the data is sequential: the lanes of a warp index with values loaded by `idx[i]`, one per lane: a warp touches as many sectors as the data spreads its indices over
   ┌─ tests/corpus/gather_index.c:17:36
   │
16 │         int k = idx[i];
   │                 ------ the index depends on the data loaded here
17 │         out[i] = (k >= 0) ? w[i] * src[k] : 0.0f;
   │                                    ^^^^^^ uncoalesced
   │
   = note: the index depends on `idx[i]` loaded from `idx`, a different value per lane: the lint sees no data, so this holds unless the data gives neighbouring lanes neighbouring elements
   = help: sort or bin the data so that neighbouring lanes read neighbouring elements, or give each warp one index (a warp-wide row) and let its lanes walk it along x
";
    assert!(err.contains(expected), "{}", err);
    assert!(!err.contains("no static verdict"), "{}", err);

    let dir = tmpdir("lint-rows");
    let src = dir.join("rows.c");
    std::fs::write(
        &src,
        r#"#define R 64
#define W 32
void rows(float out[R][W], const float a[R * W + 64], const int start[R])
{
#pragma acc parallel loop copyin(a[0:R*W+64], start[0:R]) copyout(out[0:R][0:W])
    for (int j = 0; j < R; j++) {
#pragma acc loop
        for (int t = 0; t < W; t++)
            out[j][t] = a[start[j] + t];
    }
}
"#,
    )
    .expect("write");
    let out = accshare()
        .args(["check", "--lint"])
        .arg(&src)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    for line in [
        "warning: misaligned load rows_r0_k0#1 a[start[j] + t]: stride 4 B along x but 8 of the 8 warps of a block start 4 B past a 128-byte boundary (its base is the value `start[j]` loads, the same for the whole warp: uncoalesced unless the data puts it on a 128-byte boundary)",
        "9 │             out[j][t] = a[start[j] + t];\n  │                         ^^^^^^^^^^^^^^^\n  │                         │ │\n  │                         │ the index depends on the data loaded here\n  │                         uncoalesced\n",
        "  = note: the index's base is `start[j]` loaded from `start`, the same for every lane of a warp: the lanes' strides are exact, whether the base is aligned is up to the data",
        "  = help: pad rows to a multiple of 128 bytes, or stage the tile with a `share` clause",
    ] {
        assert!(err.contains(line), "{}\n---\n{}", line, err);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_and_platforms() {
    let out = accshare().args(["platforms"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("gtx690"));
    let out = accshare()
        .args([
            "explain",
            "examples/gemm.c",
            "--platform",
            "gtx690",
            "--format",
            "json",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(
        json.contains("\"block\": [32, 32, 1]") || json.contains("\"block\":[32,32,1]"),
        "{}",
        json
    );
    let out = accshare()
        .args(["explain", "examples/gemm.c", "--platform", "no-such-gpu"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// `accshare run examples/jacobi.c` at a small size on `device` and `opt`: its standard output,
/// after checking that it exits 0.
fn run_small_jacobi(device: &str, opt: &str) -> String {
    let out = accshare()
        .args([
            "run",
            "examples/jacobi.c",
            "--device",
            device,
            "--opt",
            opt,
            "-D",
            "N=40",
            "-D",
            "TSTEPS=3",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn run_on_the_simulator_matches_the_sequential_program() {
    let text = run_small_jacobi("sim", "share");
    assert!(
        text.contains("results identical to the sequential program, no findings"),
        "{}",
        text
    );
}

/// `accshare run` on gramschmidt (issue 28 §2): a region sets `nrm = 0` in one kernel (a last
/// value), reduces into it in the next, and passes it to a third (`R[k][k] = sqrt(nrm)`). The
/// replay once gave the third the value `nrm` had before the region, and reported mismatches the
/// whole program never had. Now every instance matches, on the simulator (arrays computed from
/// the reordered sum within 1e-5, and said so) and on an OpenCL device.
#[test]
fn run_threads_host_scalars_between_the_launches_of_a_region() {
    let args = |device: &'static str| {
        [
            "run",
            "tests/accsuite/gramschmidt/gramschmidt.c",
            "-I",
            "tests/accsuite/utilities",
            "-I",
            "tests/accsuite/gramschmidt",
            "-D",
            "MINI_DATASET",
            "--device",
            device,
        ]
    };
    let out = accshare().args(args("sim")).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.ends_with("40 region instance(s), 100 launch(es) simulated on h100: results identical to the sequential program (20 instance(s) within a relative 1e-5: they compute from a floating-point reduction, summed in another order), no findings\n"),
        "{text}"
    );
    if !opencl_or_skip("run --device opencl:0 on gramschmidt") {
        return;
    }
    let out = accshare().args(args("opencl:0")).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("opencl:0: 40 region instance(s), 100 launch(es), every output equal to the sequential program's"),
        "{text}"
    );
}

/// `run --device cuda:0` is a right command on a machine without the NVIDIA driver (this one):
/// exit 1 with a message saying so, not a usage error and not a panic.
#[test]
fn run_on_cuda_without_a_driver_says_so() {
    if accshare::runtime::cuda_run::driver_present() {
        println!("SKIP: this machine has a CUDA driver");
        return;
    }
    let out = accshare()
        .args([
            "run",
            "examples/mt.c",
            "--device",
            "cuda:0",
            "-D",
            "N=40",
            "-D",
            "M=24",
        ])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", err);
    // After the compiler's warnings (at this size the model declines `mt.c`'s share pragma).
    assert!(
        err.ends_with(&format!("\nerror: cuda:0: {}\n", NO_DRIVER)),
        "{err}"
    );
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

/// What every command says of `cuda:N` on a machine without the NVIDIA driver.
const NO_DRIVER: &str = "no CUDA driver on this machine (libcuda.so cannot be loaded): CUDA \
     kernels run only on a machine with an NVIDIA GPU and its driver (`accshare devices` lists \
     the devices here: `sim`, `opencl:N`)";

/// `bench --devices cuda:0` (alone or in a list) and `tune --device cuda:0` are right commands
/// on a machine without the NVIDIA driver (this one): exit 1 with the message `run --device
/// cuda:0` gives, before anything is compiled or run, not a usage error and not a panic; a
/// device name that is not one stays a usage error.
#[test]
fn bench_and_tune_on_cuda_without_a_driver_say_so() {
    if accshare::runtime::cuda_run::driver_present() {
        println!("SKIP: this machine has a CUDA driver");
        return;
    }
    for devices in ["cuda:0", "opencl:0,cuda:0", "cuda:0,opencl:0"] {
        let out = accshare()
            .args(["bench", "examples/mt.c", "--devices", devices])
            .args(["--platforms", "none", "-D", "N=40", "-D", "M=24"])
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        if devices != "cuda:0" && err.contains("error: `--devices`: opencl:0:") {
            println!("SKIP: {devices}: no OpenCL device");
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{devices}: {err}");
        assert_eq!(
            err,
            format!("error: `--devices`: cuda:0: {}\n", NO_DRIVER),
            "{devices}"
        );
        assert!(out.stdout.is_empty(), "{devices}");
    }
    let out = accshare()
        .args(["tune", "tests/corpus/plain_gemm.c", "--device", "cuda:0"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err, format!("error: cuda:0: {}\n", NO_DRIVER));
    assert!(out.stdout.is_empty());
    // The tune cache of a CUDA device needs its name from the driver.
    let out = accshare()
        .args(["explain", "examples/gemm.c", "--tuned", "cuda:0"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err, format!("error: `--tuned`: cuda:0: {}\n", NO_DRIVER));
    for (args, what) in [
        (
            ["bench", "examples/mt.c", "--devices", "cuda:x"],
            "error: `--devices`: `cuda:x`: expected `cuda:N` with N a device number\n",
        ),
        (
            ["tune", "examples/mt.c", "--device", "sim"],
            "error: `--device sim`: accshare tunes on devices (`opencl:N`, `cuda:N`): the \
             simulator's times are the model's estimates\n",
        ),
    ] {
        let out = accshare().args(args).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err, what);
    }
}

/// `run --device opencl:0` runs every region instance's kernels on the device, in-process, and
/// compares the outputs with the sequential program's, at each optimization level; unknown
/// names are usage errors.
#[test]
fn run_on_an_opencl_device_matches_the_sequential_program() {
    let out = accshare()
        .args(["run", "examples/mt.c", "--device", "gpu"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", err);
    assert!(err.contains("`gpu`"), "{}", err);
    if !opencl_or_skip("run --device opencl:0") {
        return;
    }
    for opt in ["naive", "share"] {
        let text = run_small_jacobi("opencl:0", opt);
        assert!(
            text.starts_with("opencl:0: 6 region instance(s), 6 launch(es), every output equal to the sequential program's"),
            "{}",
            text
        );
        assert!(text.contains("jacobi_2d_r0_k0: 3 launch(es), "), "{}", text);
        assert!(text.contains(" ms in the kernel (event-timed)"), "{}", text);
    }
    // Device-only memory (`acc_malloc` + `deviceptr`; `malloc` in the sequential build): the
    // traced build learns its length from the heap block, and the run compares it (before, it
    // had no data in the trace and was refused).
    let out = accshare()
        .args([
            "run",
            "tests/corpus/present_parts.c",
            "-I",
            "tests/corpus",
            "--device",
            "opencl:0",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("opencl:0: 7 region instance(s), 6 launch(es), every output equal to the sequential program's"),
        "{text}"
    );
}

/// `accshare bench`'s usage errors exit 2 without running anything: the simulator as a
/// device, an unknown format, an unknown platform, zero repetitions.
#[test]
fn bench_usage_errors() {
    let run = |args: &[&str]| {
        let out = accshare()
            .arg("bench")
            .arg("examples/mt.c")
            .args(args)
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--devices", "sim"]);
    assert_eq!(code, Some(2), "{}", err);
    assert!(
        err.starts_with("error: `--devices sim`: the simulator's times are the model's estimates"),
        "{}",
        err
    );
    let (code, err) = run(&["--format", "bogus"]);
    assert_eq!(code, Some(2), "{}", err);
    assert!(
        err.contains("invalid value 'bogus' for '--format"),
        "{}",
        err
    );
    let (code, _) = run(&["--platforms", "nosuch", "--devices", "none"]);
    assert_eq!(code, Some(2));
    let (code, _) = run(&["--reps", "0"]);
    assert_eq!(code, Some(2));
    let (code, _) = run(&["--devices", "none", "--platforms", "none"]);
    assert_eq!(code, Some(2));
    let out = accshare().arg("bench").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// `accshare bench --devices none`: the model's estimates only (no device, no kernel built),
/// as a table and as CSV; a file that does not compile is reported with diagnostics, exit 1.
#[test]
fn bench_estimates_every_level_per_platform() {
    let bench = |args: &[&str]| {
        accshare()
            .args(["bench", "examples/mt.c", "-D", "N=70", "-D", "M=45"])
            .args(["--devices", "none", "--platforms", "a100,pocl-cpu"])
            .args(args)
            .output()
            .expect("run")
    };
    let out = bench(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let header = text
        .lines()
        .find(|l| l.starts_with("kernel "))
        .expect("a header");
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["kernel", "on", "naive", "+share", "+bank", "+ILP"]
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("(model)")).collect();
    assert_eq!(rows.len(), 2, "{}", text);
    assert!(rows[0].starts_with("transpose_r0_k0 ") && rows[0].contains("a100 (model)"));
    assert!(rows[1].contains("pocl-cpu (model)"), "{}", text);
    for r in &rows {
        assert_eq!(r.matches("1.00x").count().min(1), 1, "{}", r);
        assert_eq!(r.matches(" us ").count(), 4, "{}", r);
    }
    // Under a platform's row, the simulator's counts per level: mt's tile conflicts 32-way
    // until the bank technique (`+bank`) pads it.
    let lines: Vec<&str> = text.lines().collect();
    let a100 = lines
        .iter()
        .position(|l| l.contains("a100 (model)"))
        .unwrap();
    let waves: Vec<&str> = lines[a100 + 1].split_whitespace().collect();
    assert_eq!(waves[..3], ["shared", "wavefronts", "0"], "{}", text);
    assert!(lines[a100 + 1].contains("(32-way)"), "{}", text);
    assert!(lines[a100 + 1].ends_with("(1-way)"), "{}", text);
    assert!(lines[a100 + 2]
        .trim_start()
        .starts_with("global transactions"));
    let out = bench(&["--format", "csv"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "file,kernel,source,on,level,status,seconds,speedup,same_as,memory_bound,copy_seconds,copy_fraction,shared_wavefronts,bank_max,global_transactions,channel_imbalance,flops"
    );
    assert_eq!(lines.len(), 1 + 2 * 4, "{}", text);
    let levels: Vec<&str> = lines[1..5]
        .iter()
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(levels, ["naive", "+share", "+bank", "+ILP"]);
    assert!(lines[1].starts_with("examples/mt.c,transpose_r0_k0,model,a100,naive,ok,"));

    let dir = tmpdir("bench-bad");
    let bad = dir.join("bad.c");
    std::fs::write(
        &bad,
        "void f(float *a)\n{\n#pragma acc kernels loop independent copy(a[0:10])\n    for (int i = 0; i < 10; i++)\n        a[i] = ;\n}\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let out = accshare()
        .args(["bench", "--devices", "none", "--platforms", "a100"])
        .arg(&bad)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: expected expression, found `;`") && err.contains("bad.c:5:16"),
        "{}",
        err
    );
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `accshare bench` on the OpenCL device: every level measured and verified, as JSON with the
/// fields `docs/bench-json.md` documents, and the SVG chart naming the kernel.
#[test]
fn bench_measures_every_level_on_the_device() {
    if !opencl_or_skip("bench") {
        return;
    }
    let dir = tmpdir("bench");
    let svg = dir.join("bench.svg");
    let out = accshare()
        .args(["bench", "examples/mt.c", "-D", "N=70", "-D", "M=45"])
        .args([
            "--devices",
            "opencl:0",
            "--platforms",
            "a100",
            "--reps",
            "1",
        ])
        .args(["--format", "json", "--plot"])
        .arg(&svg)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["version"], 1);
    assert_eq!(v["compiled_for"], "h100");
    assert_eq!(v["reps"], 1);
    assert_eq!(v["devices"][0]["device"], "opencl:0");
    assert_eq!(v["platforms"], serde_json::json!(["a100"]));
    let p = &v["programs"][0];
    assert_eq!(p["file"], "examples/mt.c");
    let k = &p["kernels"][0];
    assert_eq!(k["kernel"], "transpose_r0_k0");
    assert!(k["origin"].as_str().unwrap().starts_with("examples/mt.c:"));
    let m = &k["measured"][0];
    assert_eq!(m["device"], "opencl:0");
    let levels: Vec<&str> = m["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["naive", "+share", "+bank", "+ILP"]);
    for l in m["levels"].as_array().unwrap() {
        assert_eq!(l["status"], "ok", "{}", l);
        assert!(l["seconds"].as_f64().unwrap() > 0.0, "{}", l);
        assert!(l["speedup"].as_f64().is_some(), "{}", l);
        assert!(l.get("same_as").is_some() && l.get("copy_fraction").is_some());
    }
    assert_eq!(m["levels"][0]["speedup"], 1.0);
    assert!(m["copy_seconds"].as_f64().unwrap() > 0.0);
    let roof = &m["roofline"];
    for f in [
        "flops",
        "compulsory_bytes",
        "intensity",
        "ridge",
        "memory_bound",
    ] {
        assert!(roof.get(f).is_some(), "{} in {}", f, roof);
    }
    // A transpose does no arithmetic: memory-bound, so each level is a fraction of the copy.
    assert_eq!(roof["memory_bound"], true);
    assert!(m["levels"][3]["copy_fraction"].as_f64().unwrap() > 0.0);
    let e = &k["model"][0];
    assert_eq!(e["platform"], "a100");
    assert_eq!(e["levels"].as_array().unwrap().len(), 4);
    assert!(e["levels"][3]["seconds"].as_f64().unwrap() > 0.0);
    let chart = std::fs::read_to_string(&svg).expect("the SVG is written");
    assert!(
        chart.starts_with("<svg"),
        "{}",
        &chart[..chart.len().min(200)]
    );
    assert!(chart.contains("transpose_r0_k0 @ opencl:0"));
    assert!(chart.contains("transpose_r0_k0 @ a100"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `accshare devices` lists what generated code can run on; never fails for a missing runtime.
#[test]
fn devices_lists_opencl_and_cuda() {
    let out = accshare().arg("devices").output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("OpenCL ("), "{}", text);
    assert!(text.contains("\nCUDA:\n"), "{}", text);
    assert!(text.ends_with("\nSimulator:\n  sim        accshare's SIMT simulator (run --device sim; always available)\n"), "{}", text);
    if accshare::runtime::require_devices() {
        assert!(text.contains("\n  opencl:0 "), "{}", text);
    }
}

/// `--platform opencl:N` queries the N-th OpenCL device; `device:N` names the same device, and a
/// device the machine does not have is a usage error naming it.
#[test]
fn platform_opencl_n_and_its_alias_device_n() {
    let explain = |platform: &str| {
        accshare()
            .args(["explain", "examples/gemm.c", "--platform", platform])
            .output()
            .expect("run")
    };
    let out = explain("opencl:99999");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: "), "{}", err);
    let out = explain("opencl:x");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected `opencl:N`"), "{}", err);
    if !opencl_or_skip("--platform opencl:0") {
        return;
    }
    let out = explain("opencl:99999");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no OpenCL device opencl:99999"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = explain("opencl:0");
    let b = explain("device:0");
    assert_eq!(
        a.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    assert_eq!(a.stdout, b.stdout);
    assert!(String::from_utf8_lossy(&a.stdout).contains("opencl:0"));
}

/// Without an OpenCL platform (the ICD loader pointed at an empty vendor directory) every
/// command that wants a device says so and exits cleanly: no panic, no C compiler involved.
#[test]
fn no_opencl_platform_is_a_clean_error() {
    let empty = tmpdir("no-icd");
    let run = |args: &[&str]| {
        accshare()
            .args(args)
            .env("OCL_ICD_VENDORS", &empty)
            .output()
            .expect("run")
    };
    let out = run(&["devices"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("  none: ")),
        "{}",
        text
    );
    let out = run(&["explain", "examples/gemm.c", "--platform", "opencl:0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: no OpenCL "), "{}", err);
    let out = run(&["bench", "examples/mt.c", "--platforms", "none"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: `bench --devices all`: no device to measure on: no OpenCL "),
        "{}",
        err
    );
    let _ = std::fs::remove_dir_all(&empty);
}

/// `accshare run` on a program whose pragmas are chosen by preprocessor conditionals around
/// the region (crpl-heat: `#ifndef CRPL_COMP` / `#pragma acc parallel loop` / `#elif` /
/// `#pragma acc kernels loop` / `#endif`, and a data construct under `#ifdef _OPENACC`): the
/// traced sequential build resolves the groups a region cuts as accshare's preprocessor took
/// them (before, the code inserted at the region's start fell in a skipped branch and the
/// traced program did not compile). Both choices of the pragmas replay.
#[test]
fn run_replays_regions_whose_pragmas_conditionals_choose() {
    for extra in [None, Some("CRPL_COMP=0")] {
        let mut cmd = accshare();
        cmd.args([
            "run",
            "tests/accsuite/crpl-heat/crpl-heat.c",
            "-I",
            "tests/accsuite/utilities",
            "-I",
            "tests/accsuite/crpl-heat",
            "-D",
            "MINI_DATASET",
            "--device",
            "sim",
        ]);
        if let Some(d) = extra {
            cmd.args(["-D", d]);
        }
        let out = cmd.output().expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.ends_with("13 region instance(s), 13 launch(es) simulated on h100: results identical to the sequential program, no findings\n"),
            "{extra:?}: {text}"
        );
    }
}

/// `accshare run` on programs whose compute regions name arrays of unknown length: `present`
/// pointers in a callee of the function holding the data (accsuite hotspot's
/// `single_iteration`, kmeans' `enter data` in `main`), a `deviceptr` to an array the API made
/// present. The traced build records the blocks every data clause names, and traces such an
/// array to the end of its block: before, it was traced as 0 elements and its kernels' accesses
/// reported out of bounds (issue 28 §2).
#[test]
fn run_learns_the_length_of_present_arrays_from_the_data_clauses_before() {
    let suite = |n: &str| {
        vec![
            format!("tests/accsuite/{n}/{n}.c"),
            "-I".into(),
            "tests/accsuite/utilities".into(),
            "-I".into(),
            format!("tests/accsuite/{n}"),
            "-D".into(),
            "MINI_DATASET".into(),
        ]
    };
    for args in [
        suite("hotspot"),
        suite("kmeans"),
        vec!["tests/corpus/runtime_api.c".into()],
    ] {
        let out = accshare()
            .arg("run")
            .args(&args)
            .args(["--device", "sim"])
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {text}");
        assert!(
            text.trim_end()
                .ends_with("results identical to the sequential program, no findings"),
            "{args:?}: {text}"
        );
    }
}

/// `accshare run` on a program that allocates and frees heap blocks in a loop (5000 of them,
/// more than the traced build's table of blocks holds) before its scratch array, `malloc`ed in
/// the sequential build and named by `deviceptr`: `free` drops a block from the table, so the
/// scratch array's length is still known (it was traced as 0 elements: its accesses were
/// reported out of bounds).
#[test]
fn run_finds_heap_blocks_after_many_allocations() {
    let dir = tmpdir("heap-loop");
    let src = dir.join("heap_loop.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENACC
#include <openacc.h>
#endif
#define N 1000
static void step(double *restrict a, int n)
{
    double *w;
    int i;
#ifdef _OPENACC
    w = (double *)acc_malloc(n * sizeof(double));
#else
    w = (double *)malloc(n * sizeof(double));
#endif
#pragma acc data present(a[0:n]) deviceptr(w)
    {
#pragma acc parallel loop
        for (i = 0; i < n; i++)
            w[i] = a[i] * 0.5;
#pragma acc parallel loop
        for (i = 0; i < n; i++)
            a[i] = w[i] + w[n - 1 - i];
    }
#ifdef _OPENACC
    acc_free(w);
#else
    free(w);
#endif
}
int main(void)
{
    static double a[N];
    double s = 0.0;
    int i, k;
    for (k = 0; k < 5000; k++) {
        char *t = malloc(16 + k % 7);
        t[0] = (char)k;
        s += t[0];
        free(t);
    }
    for (i = 0; i < N; i++)
        a[i] = i % 17;
#pragma acc data copy(a)
    step(a, N);
    for (i = 0; i < N; i++)
        s += a[i];
    printf("%.3f\n", s);
    return 0;
}
"#,
    )
    .expect("write");
    let out = accshare()
        .arg("run")
        .arg(&src)
        .args(["--device", "sim"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.trim_end()
            .ends_with("results identical to the sequential program, no findings"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `accshare run` on a program that keeps 5000 heap blocks (more than the traced build's table
/// of blocks holds: it drops its oldest ones) and then allocates, frees and allocates again its
/// scratch array, `malloc`ed in the sequential build and named by `deviceptr`, smaller each
/// time (the allocator gives the freed address back): each instance finds its newest block.
#[test]
fn run_finds_reused_heap_blocks_after_the_table_fills() {
    let dir = tmpdir("heap-reuse");
    let src = dir.join("heap_reuse.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENACC
#include <openacc.h>
#endif
#define N 1000
static char *kept[5000];
static void step(double *restrict a, int n)
{
    double *w;
    int i;
#ifdef _OPENACC
    w = (double *)acc_malloc(n * sizeof(double));
#else
    w = (double *)malloc(n * sizeof(double));
#endif
#pragma acc data present(a[0:n]) deviceptr(w)
    {
#pragma acc parallel loop
        for (i = 0; i < n; i++)
            w[i] = a[i] * 0.5;
#pragma acc parallel loop
        for (i = 0; i < n; i++)
            a[i] = w[i] + w[n - 1 - i];
    }
#ifdef _OPENACC
    acc_free(w);
#else
    free(w);
#endif
}
int main(void)
{
    static double a[N];
    double s = 0.0;
    int i, k;
    for (k = 0; k < 5000; k++) {
        kept[k] = malloc(16 + k % 7);
        kept[k][0] = (char)k;
    }
    for (i = 0; i < N; i++)
        a[i] = i % 17;
#pragma acc data copy(a)
    for (k = 0; k < 3; k++)
        step(a, N - 100 * k);
    for (i = 0; i < N; i++)
        s += a[i];
    for (k = 0; k < 5000; k++) {
        s += kept[k][0];
        free(kept[k]);
    }
    printf("%.3f\n", s);
    return 0;
}
"#,
    )
    .expect("write");
    let out = accshare()
        .arg("run")
        .arg(&src)
        .args(["--device", "sim"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.trim_end()
            .ends_with("results identical to the sequential program, no findings"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `accshare run --link` on the NPB-style suite (`tests/npbsuite`): the benchmarks' other
/// translation units (timers, random numbers, printing) are compiled into the traced build, and
/// every region of the main file replays. MG passes one grid as two arguments (`resid(u, r,
/// r)`: `present(ov[…], or[…])` of one host array, one device copy), which the replay's
/// buffers (one per name) are not: those instances are run but not compared, and said so.
/// Its scratch grids come from `malloc` in the sequential build (`acc_malloc` under OpenACC,
/// named by `deviceptr`): the traced build learns their length.
#[test]
fn run_links_the_other_translation_units_and_says_where_arrays_alias() {
    let common = "tests/npbsuite/common";
    let mut link = Vec::new();
    for f in ["c_print_results.c", "c_timers.c", "randdp.c", "wtime.c"] {
        link.push("--link".to_string());
        link.push(format!("{common}/{f}"));
    }
    let run = |bm: &str, main: &str| {
        let out = accshare()
            .arg("run")
            .arg(format!("tests/npbsuite/{bm}/{main}"))
            .args(["-I", common, "-I", &format!("tests/npbsuite/{bm}")])
            .args(&link)
            .args(["--device", "sim"])
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{bm}: {text}");
        text
    };
    let is = run("IS", "is.c");
    assert!(
        is.ends_with("70 region instance(s), 57 launch(es) simulated on h100: results identical to the sequential program, no findings\n"),
        "{is}"
    );
    let mg = run("MG", "mg.c");
    assert!(
        mg.ends_with("496 region instance(s) (15 not compared: aliased arrays), 494 launch(es) simulated on h100: results identical to the sequential program, no findings\n"),
        "{mg}"
    );
    assert!(
        mg.contains("note: mg.c:553 (instance 47): `or` and `ov` are one host array (one device copy), which the replay gives two buffers: its outputs are not compared"),
        "{mg}"
    );
}
