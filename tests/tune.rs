//! `accshare tune`: every variant of a kernel's schedule space computes what the sequential
//! program computes (checked on the simulator, which needs no device), and on an OpenCL device
//! the command measures, records the fastest in its cache, and later compilations use it.

mod exec_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use accshare::diag::{Diags, SourceMap};
use accshare::front::preprocess::PpOptions;
use accshare::model::Platform;
use accshare::runtime::tune::{self, Outcome, TuneOptions};
use accshare::sim::trace::{Launcher, SimLauncher};
use accshare::sim::{SimOptions, SimPlatform};

fn accshare(cache: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_accshare"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("ACCSHARE_CACHE_DIR", cache);
    c
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name)
}

/// The tuner's whole space for `file` with the simulator as the device: every variant is
/// compiled, replayed from the program's own data and compared with the sequential program.
fn tune_on_simulator(file: &str, platform: &str) -> Vec<tune::KernelTune> {
    let p = Platform::load(platform).expect("platform");
    let sim = SimPlatform::from_platform(&p);
    let sim_opts = SimOptions::default();
    let opts = tune_options(p, 1, &format!("tune-{}", file.replace('.', "_")));
    let mut launch = |_: &str, _strict: bool| -> Result<Box<dyn Launcher + '_>, String> {
        Ok(Box::new(SimLauncher {
            platform: &sim,
            opts: &sim_opts,
        }))
    };
    run_tune(file, &opts, &mut launch).unwrap_or_else(|e| panic!("{}: {}", file, e))
}

/// The options of a tuning run on `platform` with `reps` timed replays per variant, its
/// program built in the scratch directory `tag`.
fn tune_options(platform: Platform, reps: usize, tag: &str) -> TuneOptions {
    TuneOptions {
        pp: PpOptions {
            include_dirs: vec![corpus("")],
            ..Default::default()
        },
        platform,
        budget: Duration::from_secs(3600),
        reps,
        work_dir: exec_support::scratch_dir(tag),
    }
}

/// `tune_with` on the corpus program `file` with the launcher `launch`; an error with its
/// diagnostics rendered.
fn run_tune(
    file: &str,
    opts: &TuneOptions,
    launch: &mut tune::MakeLauncher,
) -> Result<Vec<tune::KernelTune>, String> {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    tune::tune_with(
        &corpus(file),
        opts,
        accshare::back::Target::OpenCl,
        1024,
        launch,
        &|_| {},
        &mut sources,
        &mut diags,
        &mut |_| {},
    )
    .map_err(|e| {
        format!(
            "{:?}\n{}",
            e,
            accshare::diag::render(&sources, &diags.iter().cloned().collect::<Vec<_>>())
        )
    })
}

/// A launcher on the simulator whose timed launches (not the verifying ones) report 1 µs each,
/// except the first `slow`, which report 3 µs: a slow minute of a shared machine.
struct Drifting<'a> {
    sim: SimLauncher<'a>,
    clock: &'a std::cell::Cell<usize>,
    slow: usize,
    timed: bool,
}

impl Launcher for Drifting<'_> {
    fn name(&self) -> String {
        "drifting simulator".to_string()
    }

    fn launch(
        &mut self,
        m: &accshare::kernel::Module,
        launch: &accshare::kernel::Launch,
        arrays: &mut std::collections::BTreeMap<String, accshare::sim::BufData>,
        scalar: &dyn Fn(usize, accshare::front::ast::Scalar) -> Option<accshare::sim::ArgValue>,
        extent: [u64; 3],
    ) -> Result<accshare::sim::trace::Launched, accshare::sim::trace::LaunchError> {
        let mut l = self.sim.launch(m, launch, arrays, scalar, extent)?;
        if self.timed {
            let n = self.clock.get();
            self.clock.set(n + 1);
            l.seconds = Some(if n < self.slow { 3e-6 } else { 1e-6 });
        }
        Ok(l)
    }
}

/// The model's choice is timed first; a slow spell of the machine during its measurement made
/// it look 3× slower than variants that are in truth as fast. The finalists are timed again in
/// turn, and the model's choice is kept (every variant takes 1 µs once the spell is over).
#[test]
fn a_slow_spell_during_one_measurement_does_not_decide_the_choice() {
    let p = Platform::load("gtx690").expect("platform");
    let sim = SimPlatform::from_platform(&p);
    let sim_opts = SimOptions::default();
    let reps = 3;
    let opts = tune_options(p, reps, "tune-drift");
    let clock = std::cell::Cell::new(0);
    let mut launch = |_: &str, strict: bool| -> Result<Box<dyn Launcher + '_>, String> {
        Ok(Box::new(Drifting {
            sim: SimLauncher {
                platform: &sim,
                opts: &sim_opts,
            },
            clock: &clock,
            // The model's choice: one launch per replay, `reps` replays.
            slow: reps,
            timed: !strict,
        }))
    };
    let kernels = match run_tune("share_transpose_rect.c", &opts, &mut launch) {
        Ok(k) => k,
        Err(e) => {
            // The tracing needs a C compiler.
            exec_support::skip_or_fail(&format!("the tuner's replay: {}", e));
            return;
        }
    };
    let k = &kernels[0];
    assert!(k.trials.len() >= 3, "{:?}", k.trials);
    assert_eq!(k.trials[0].seconds, Some(1e-6), "{:?}", k.trials);
    assert_eq!(k.best(), Some(0), "{:?}", k.trials);
}

/// A nest whose inner reduction loop can run across lanes (mv with a `reduction` clause on the
/// inner loop, on an H100): the tuner's space has it in several blocks besides the model's
/// choice, each built by `variant::apply` (which also rebuilds a tuned variant from the cache's
/// record) and verified against the sequential program.
#[test]
fn variants_across_lanes_are_in_the_space_and_verified() {
    if exec_support::compile_c(
        &corpus("vadd_1d.c"),
        &exec_support::scratch_dir("tune-cc-lanes").join("probe"),
        &[],
        false,
    )
    .is_err()
    {
        exec_support::skip_or_fail("the tuner's replay needs a C compiler (`cc`)");
        return;
    }
    let kernels = tune_on_simulator("../lanes/mv_clause.c", "h100");
    let k = &kernels[0];
    let lanes: Vec<_> = k.trials.iter().filter(|t| t.variant.lanes).collect();
    assert!(lanes.len() >= 4, "{:?}", k.trials);
    assert!(
        k.trials[0].variant.lanes,
        "the model's choice: {}",
        k.trials[0].variant
    );
    for t in &k.trials {
        assert!(
            matches!(t.outcome, Outcome::Timed | Outcome::SameAs(_)),
            "{}: {:?}",
            t.variant,
            t.outcome
        );
    }
    assert!(
        lanes
            .iter()
            .any(|t| t.variant.block == [64, 4, 1] && t.outcome == Outcome::Timed),
        "{:?}",
        lanes
    );
    assert!(lanes[0].variant.to_string().contains("across 32 lanes"));
}

/// Every point of the schedule space (block shapes, each configuration the engine kept, each
/// number of rows per work-item, staging where the model would not) is a correct program:
/// the tuner may pick any of them.
#[test]
fn every_variant_computes_what_the_sequential_program_computes() {
    if exec_support::compile_c(
        &corpus("vadd_1d.c"),
        &exec_support::scratch_dir("tune-cc").join("probe"),
        &[],
        false,
    )
    .is_err()
    {
        exec_support::skip_or_fail("the tuner's replay needs a C compiler (`cc`)");
        return;
    }
    let mut staged = 0;
    let mut timed = 0;
    for (file, platform) in [
        ("plain_gemm.c", "pocl-cpu"),
        ("plain_stencil.c", "hd7850"),
        ("share_transpose_rect.c", "gtx690"),
        ("share_mvt.c", "a100"),
        ("syrk_upper.c", "a100"),
        ("share_write_triangle.c", "a100"),
        ("share_row_tile.c", "hd7850"),
        ("stencil3d_7pt.c", "a100"),
        ("reduce_sum_int.c", "a100"),
    ] {
        let kernels = tune_on_simulator(file, platform);
        assert!(!kernels.is_empty(), "{}: no kernel", file);
        for k in &kernels {
            assert!(k.trials.len() >= 2, "{} {}: {:?}", file, k.name, k.trials);
            for t in &k.trials {
                match &t.outcome {
                    Outcome::Timed => {
                        timed += 1;
                        staged += t.variant.config.is_some() as usize;
                    }
                    Outcome::SameAs(j) => assert!(
                        matches!(k.trials[*j].outcome, Outcome::Timed),
                        "{} {}: {} is the same as an untimed trial",
                        file,
                        k.name,
                        t.variant
                    ),
                    o => panic!("{} {}: {}: {:?}", file, k.name, t.variant, o),
                }
            }
            assert!(k.best().is_some(), "{} {}", file, k.name);
        }
    }
    // The space is not trivial: many variants, staged ones among them.
    assert!(timed >= 60, "{} variants timed", timed);
    assert!(staged >= 15, "{} staged variants timed", staged);
}

/// `accshare tune` on the OpenCL device: verifies and times the variants, records the fastest;
/// `explain`, `run` and compilations for that device then use it, `--no-tuned` does not; an
/// entry that no longer applies is a located warning.
#[test]
fn tune_records_the_fastest_variant_and_compilations_use_it() {
    let cache = exec_support::scratch_dir("tune-cache");
    for (args, what) in [
        (
            vec!["--device", "sim"],
            "error: `--device sim`: accshare tunes on devices (`opencl:N`, `cuda:N`)",
        ),
        (
            vec!["--budget=-1"],
            "error: `--budget -1`: expected a number of seconds",
        ),
    ] {
        let out = accshare(&cache)
            .args(["tune", "tests/corpus/plain_gemm.c"])
            .args(args)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}", err);
        assert!(err.contains(what), "{}", err);
    }
    let out = accshare(&cache)
        .args(["explain", "examples/gemm.c", "--tuned", "sim"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", err);
    assert!(
        err.contains("error: `--tuned sim`: the tune cache holds devices (`opencl:N`, `cuda:N`)"),
        "{}",
        err
    );
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&format!("`accshare tune` needs an OpenCL device: {}", why));
        return;
    }

    // A budget of 0 s: the model's choice and the baseline are measured, the rest not.
    let gemm = ["tests/corpus/plain_gemm.c", "-I", "tests/corpus"];
    let out = accshare(&cache)
        .arg("tune")
        .args(gemm)
        .args(["--budget", "0", "--reps", "1"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains(": tests/corpus/plain_gemm.c: 1 kernel(s), "),
        "{}",
        text
    );
    assert!(
        lines[2].starts_with("gemm_r0_k0 (tests/corpus/plain_gemm.c:20:9), about 2^12 grid points"),
        "{}",
        text
    );
    let trials: Vec<&str> = lines.iter().copied().filter(|l| l.contains(" #")).collect();
    assert!(trials.len() > 10, "{}", text);
    assert!(
        trials[0].starts_with("  *m #1 ") || trials[0].starts_with("   m #1 "),
        "{}",
        text
    );
    assert!(trials[1].contains(" s "), "{}", text);
    assert!(trials[2..]
        .iter()
        .all(|l| l.ends_with(": not measured (budget)") || l.contains(": the same kernel as #")));
    assert!(
        text.contains("accshare: 1 kernel(s) recorded in "),
        "{}",
        text
    );
    let chosen = trials
        .iter()
        .find(|l| l.starts_with("  *"))
        .and_then(|l| l.split("×  ").nth(1))
        .expect("a chosen variant")
        .to_string();

    // The cache: one entry, for this device.
    let json = std::fs::read_to_string(cache.join("tune.json")).expect("cache file");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["version"], 1);
    let entries = v["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{}", json);
    assert_eq!(entries[0]["name"], "gemm_r0_k0");
    assert_eq!(entries[0]["size_class"], 12);

    // `explain` for the device says where the schedule comes from; `--no-tuned` does not.
    let explain = |extra: &[&str]| {
        let out = accshare(&cache)
            .arg("explain")
            .args(gemm)
            .args(["--platform", "opencl:0"])
            .args(extra)
            .output()
            .expect("run");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let note = format!("(accshare tune cache): {}, ", chosen);
    assert!(explain(&[]).contains(&note), "{}\n{}", note, explain(&[]));
    assert!(!explain(&["--no-tuned"]).contains("accshare tune cache"));

    // The tuned program runs on the device and computes what the sequential one computes.
    let out = accshare(&cache)
        .arg("run")
        .args(gemm)
        .args(["--device", "opencl:0", "--tuned"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("every output equal to the sequential program's"),
        "{}",
        text
    );

    // An entry this compiler cannot apply: a warning at the loop nest, the model's schedule.
    // A staged variant of one output per work-item in a plain block, so that the configuration
    // is the only thing wrong with it, whatever the tuner chose.
    let mut e = entries[0].clone();
    e["variant"] = serde_json::json!({"config": 9, "block": [32, 8, 1], "ilp": 1});
    let file = serde_json::json!({"version": 1, "entries": [e]});
    std::fs::write(cache.join("tune.json"), file.to_string()).expect("write");
    let out = accshare(&cache)
        .args(gemm)
        .args(["--tuned", "--emit", "kernel"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}", err);
    assert!(
        err.contains("warning: the schedule `accshare tune` measured for this loop nest on "),
        "{}",
        err
    );
    assert!(
        err.contains("does not apply: the partition engine has no configuration 9"),
        "{}",
        err
    );
    assert!(err.contains("tests/corpus/plain_gemm.c:21:5"), "{}", err);
    let _ = std::fs::remove_dir_all(&cache);
}

/// A device may fuse `a * b - d` (OpenCL allows it): with cancellation the rounding differs
/// from the sequential program's by far more than any tolerance. `run` and `tune` check such
/// kernels again built without contraction: equal there, it is rounding, not a wrong result.
#[test]
fn fused_multiply_add_rounding_is_not_a_wrong_result() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&format!("`accshare run` needs an OpenCL device: {}", why));
        return;
    }
    let cache = exec_support::scratch_dir("tune-fma");
    let out = accshare(&cache)
        .args(["run", "tests/fma/fma_cancel.c", "--device", "opencl:0"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}{}", text, err);
    // PoCL contracts; a device that does not gives equal outputs outright.
    if !text.contains("every output equal to the sequential program's") {
        assert!(
            text.contains("outputs equal to the sequential program's up to the rounding of fused multiply-adds"),
            "{}",
            text
        );
        assert!(
            err.contains("warning: fma_cancel.c:18 (instance 1): `c` differs at "),
            "{}",
            err
        );
        assert!(
            err.contains("note: built with `#pragma OPENCL FP_CONTRACT OFF` every output is equal to the sequential program's"),
            "{}",
            err
        );
    }
    let out = accshare(&cache)
        .args([
            "tune",
            "tests/fma/fma_cancel.c",
            "--budget",
            "0",
            "--reps",
            "1",
            "--dry-run",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("WRONG"), "{}", text);
    assert!(
        !cache.join("tune.json").exists(),
        "--dry-run wrote the cache"
    );
    let _ = std::fs::remove_dir_all(&cache);
}
