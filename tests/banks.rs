//! Bank conflicts after the default level (`--opt share`), on shipped platforms: every shared
//! access of a representative set of examples and corpus programs has degree 1 in the
//! simulator (`accshare analyze`), or `explain` says why a residual conflict is kept; and each
//! technique the decision tree chooses is reached from C input, with the degree the tree
//! computed statically before it and the simulator's after.

mod exec_support;

use std::process::Command;

fn accshare() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_accshare"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = accshare().args(args).output().expect("run accshare");
    assert!(
        out.status.success(),
        "accshare {:?} failed:\n{}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// (kernel, largest shared bank-conflict degree) of every kernel `analyze` simulates.
fn degrees(file: &str, platform: &str) -> Vec<(String, u64)> {
    let v = json(&[
        "analyze",
        "--format",
        "json",
        "--sample",
        "4",
        "--platform",
        platform,
        file,
    ]);
    v["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            (
                k["kernel"].as_str().unwrap_or("?").to_string(),
                k["bank_conflict_degree"]["max"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// The tiles' bank decisions `explain` reports, over every kernel of every region.
fn bank_decisions(file: &str, platform: &str) -> Vec<serde_json::Value> {
    let v = json(&["explain", "--format", "json", "--platform", platform, file]);
    let mut out = Vec::new();
    for r in v["regions"].as_array().expect("regions") {
        for k in r["kernels"].as_array().expect("kernels") {
            if let Some(b) = k["bank"].as_array() {
                out.extend(b.iter().cloned());
            }
        }
    }
    out
}

/// The programs whose tiles conflicted before (flat copies into padded rows on AMD's
/// half-wavefronts, a halo row, 8-byte elements, partially active warps of doubles), and two
/// that need each technique; on the platforms that differ (NVIDIA Ampere and Kepler, AMD GCN).
#[test]
fn shared_accesses_are_conflict_free_after_the_default_level() {
    let files = [
        "examples/mt.c",
        "examples/mv.c",
        "tests/corpus/cache_stencil2d.c",
        "tests/corpus/private_temporaries.c",
        "tests/corpus/share_write_accumulate.c",
        "tests/corpus/bank_transpose_pairs.c",
        "tests/corpus/bank_mv_double.c",
        "tests/corpus/bank_reorder_int.c",
    ];
    let mut bad = Vec::new();
    for platform in ["a100", "gtx690", "hd7850"] {
        for f in files {
            for (k, d) in degrees(f, platform) {
                if d > 1 {
                    bad.push(format!("{} on {}: {} degree {}", f, platform, k, d));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "residual bank conflicts:\n{}",
        bad.join("\n")
    );
}

/// Padding and transpose are each chosen for a real program, with the path of the tree, a
/// degree above 1 before and 1 after (statically), and the simulator agreeing after.
#[test]
fn each_technique_is_reached_from_c_and_explained() {
    let cases = [
        // A column-walked tile one row taller than the block: transposed on NVIDIA (no pad, the
        // copy's stores conflict-free); on AMD's 64-wide blocks a transposed store would be
        // 4-way, so padding.
        (
            "tests/corpus/bank_transpose_pairs.c",
            "a100",
            "in",
            "transpose",
        ),
        (
            "tests/corpus/bank_transpose_pairs.c",
            "hd7850",
            "in",
            "padding",
        ),
        ("tests/corpus/bank_mv_double.c", "gtx690", "A", "padding"),
        ("examples/mt.c", "a100", "in", "padding"),
    ];
    for (file, platform, array, technique) in cases {
        let ds = bank_decisions(file, platform);
        let t = ds
            .iter()
            .find(|t| t["array"] == array)
            .unwrap_or_else(|| panic!("{file} on {platform}: no decision for `{array}`: {ds:?}"));
        assert_eq!(t["technique"], technique, "{file} on {platform}: {t}");
        assert!(t["degree_before"].as_u64().unwrap() > 1, "{t}");
        assert_eq!(t["degree_after"], 1, "{t}");
        let path = t["path"].as_array().unwrap();
        assert!(path.iter().any(|s| s.as_str().unwrap().starts_with("AoS")));
        assert!(path.iter().any(|s| s
            .as_str()
            .unwrap()
            .starts_with("2-D strided reference: yes")));
        assert_eq!(t["transposed"], technique == "transpose", "{t}");
        assert_eq!(
            t["extra_bytes"].as_u64().unwrap() > 0,
            technique == "padding",
            "{t}"
        );
        for (k, d) in degrees(file, platform) {
            assert_eq!(d, 1, "{file} on {platform}: {k}");
        }
    }
}

/// Largest shared bank-conflict degree and shared wavefronts the simulator counts for `file` on
/// `platform` at the default level, with the bank-conflict techniques on or off (what `accshare
/// bench` measures as `+bank` and `+share`).
fn simulated(file: &str, platform: &str, techniques: bool) -> (u32, u64) {
    let p = accshare::model::Platform::load(platform).expect("platform");
    simulated_on(file, p, techniques, false)
}

/// [`simulated`] on a platform description, with `--reassociate` or not. The replay compares
/// every written array with the sequential program's and the checker must stay silent.
fn simulated_on(
    file: &str,
    p: accshare::model::Platform,
    techniques: bool,
    reassociate: bool,
) -> (u32, u64) {
    use accshare::diag::{self, Diags, SourceMap};
    use accshare::driver;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join(file);
    let platform = p.name.clone();
    let sim = accshare::sim::SimPlatform::from_platform(&p);
    let oo = driver::OptOptions::share().for_platform(p);
    let staging = accshare::schedule::stage::StageOptions {
        bank_padding: techniques,
        reassociate,
        ..Default::default()
    };
    let pp = accshare::front::preprocess::PpOptions::default();
    let opts = driver::Options {
        target: accshare::back::Target::OpenCl,
        pp: pp.clone(),
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let s = driver::schedule_with(
        &src,
        &pp,
        &oo,
        &staging,
        &Default::default(),
        &mut sources,
        &mut diags,
    )
    .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let out = driver::lower(&s, &s.schedules, &opts, &sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let work = std::env::temp_dir().join(format!(
        "accshare-banks-{}-{}-{}-{}-{}",
        std::process::id(),
        platform,
        techniques,
        reassociate,
        src.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let sim_opts = accshare::sim::SimOptions {
        check: true,
        ..Default::default()
    };
    let (replay, report) =
        accshare::sim::trace::run_module(&src, &out.module, &pp, &sim, &sim_opts, &work)
            .expect("simulates");
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        replay.mismatches.is_empty(),
        "{file}: {:?}",
        replay.mismatches
    );
    assert!(
        replay.runs.iter().all(|r| r.findings.is_empty()),
        "{file} on {platform}: checker findings"
    );
    let max = report.kernels.iter().map(|k| k.bank_max).max().unwrap_or(0);
    let waves = report.kernels.iter().map(|k| k.shared_wavefronts).sum();
    (max, waves)
}

/// The simulator sees the drop: without the techniques the tiles conflict, with them every
/// shared access has degree 1 and the kernels take fewer shared wavefronts (the results are
/// the sequential program's, and the checker is silent, both ways).
#[test]
fn the_simulator_shows_the_degree_drop() {
    for (file, platform) in [
        ("tests/corpus/bank_transpose_pairs.c", "a100"),
        ("tests/corpus/bank_transpose_pairs.c", "hd7850"),
        ("tests/corpus/bank_mv_double.c", "gtx690"),
    ] {
        let (d0, w0) = simulated(file, platform, false);
        let (d1, w1) = simulated(file, platform, true);
        println!("{file} on {platform}: degree {d0} → {d1}, shared wavefronts {w0} → {w1}");
        assert!(
            d0 > 1,
            "{file} on {platform}: degree {d0} without the techniques"
        );
        assert_eq!(d1, 1, "{file} on {platform}");
        assert!(w1 < w0, "{file} on {platform}: wavefronts {w0} → {w1}");
    }
}

/// `accshare explain` as text, with extra arguments.
fn explain_text(file: &str, platform: &str, extra: &[&str]) -> String {
    let out = accshare()
        .args(["explain", "--platform", platform])
        .args(extra)
        .arg(file)
        .output()
        .expect("run accshare");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The decision `explain --format json` reports for the tile of `array`.
fn decision(file: &str, platform: &str, array: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["explain", "--format", "json", "--platform", platform];
    args.extend_from_slice(extra);
    args.push(file);
    let v = json(&args);
    v["regions"]
        .as_array()
        .expect("regions")
        .iter()
        .flat_map(|r| r["kernels"].as_array().cloned().unwrap_or_default())
        .flat_map(|k| k["bank"].as_array().cloned().unwrap_or_default())
        .find(|t| t["array"] == array)
        .unwrap_or_else(|| panic!("{file} on {platform}: no decision for `{array}`"))
}

/// Access reorder (Table 1): an integer reduction over a tile row read by column is rotated per
/// work-item instead of padded (same degree, no extra shared memory) on NVIDIA; on hd7850 the
/// engine strip-mines by 16, a rotation by `lx mod 16` leaves lanes `x` and `x + 16` of a
/// 32-lane phase in one bank (2-way), so padding stays and the tree says why. The simulator
/// sees the drop and the replay matches the sequential program.
#[test]
fn access_reorder_is_reached_for_an_integer_reduction() {
    let file = "tests/corpus/bank_reorder_int.c";
    for (platform, technique) in [
        ("a100", "access reorder"),
        ("gtx690", "access reorder"),
        ("hd7850", "padding"),
    ] {
        let t = decision(file, platform, "A", &[]);
        assert_eq!(t["technique"], technique, "{platform}: {t}");
        assert!(t["degree_before"].as_u64().unwrap() > 1, "{t}");
        assert_eq!(t["degree_after"], 1, "{t}");
        assert_eq!(
            t["extra_bytes"].as_u64().unwrap() > 0,
            technique == "padding",
            "{t}"
        );
        assert_eq!(t["transposed"], false, "{t}");
        let path = t["path"].as_array().unwrap();
        let step = if technique == "padding" {
            "associative operation over a row: yes (s (+)) but rotated reads take degree 2"
        } else {
            "associative operation over a row: yes (s (+); integer reduction"
        };
        assert!(
            path.iter().any(|s| s.as_str().unwrap().starts_with(step)),
            "{t}"
        );
        let text = explain_text(file, platform, &[]);
        assert_eq!(
            text.contains("access reorder: each work-item runs the 32 iterates of strip-mined loop `j` from its local x mod 32 on (reduction into `s` (+)): integer, the result is exact"),
            technique != "padding",
            "{text}"
        );
        let (d0, w0) = simulated(file, platform, false);
        let (d1, w1) = simulated(file, platform, true);
        println!("{file} on {platform}: degree {d0} → {d1}, shared wavefronts {w0} → {w1}");
        assert!(d0 > 1, "{platform}: degree {d0} without the techniques");
        assert_eq!(d1, 1, "{platform}");
        assert!(w1 < w0, "{platform}: wavefronts {w0} → {w1}");
    }
    insta::assert_snapshot!(
        "explain_bank_reorder_int_a100",
        explain_text(file, "a100", &[])
    );
    let out = accshare()
        .args(["--platform", "a100", "--emit", "kernel", file])
        .output()
        .expect("run accshare");
    assert!(out.status.success());
    insta::assert_snapshot!(
        "kernel_bank_reorder_int_a100",
        String::from_utf8_lossy(&out.stdout).to_string()
    );
}

/// A floating-point reduction is not reassociated by default (padding stays, and the tree says
/// why), and is under `--reassociate` (explain says that sums may change); the simulated replay
/// with `--reassociate` still matches the sequential program within the comparison's tolerance.
#[test]
fn floating_point_reductions_are_reordered_only_under_reassociate() {
    let file = "tests/corpus/bank_mv_double.c";
    let t = decision(file, "a100", "A", &[]);
    assert_eq!(t["technique"], "padding", "{t}");
    assert!(
        t["path"].as_array().unwrap().iter().any(|s| s
            .as_str()
            .unwrap()
            .contains("reassociation not allowed (--reassociate)")),
        "{t}"
    );
    let t = decision(file, "a100", "A", &["--reassociate"]);
    assert_eq!(t["technique"], "access reorder", "{t}");
    assert_eq!(t["degree_after"], 1, "{t}");
    assert_eq!(t["extra_bytes"], 0, "{t}");
    let text = explain_text(file, "a100", &["--reassociate"]);
    assert!(
        text.contains("floating point reassociated under --reassociate"),
        "{text}"
    );
    let p = accshare::model::Platform::load("a100").unwrap();
    let (d, w) = simulated_on(file, p, true, true);
    println!("{file} on a100 with --reassociate: degree {d}, shared wavefronts {w}");
    assert_eq!(d, 1);
}

/// Kepler's 8-byte bank mode: `gtx690` declares `bank_modes = [4, 8]`; a kernel staging
/// `double` tiles runs in 8-byte mode (the schedule's choice, in explain), the CUDA host code
/// sets it, and the simulator counts fewer shared wavefronts than in the default 4-byte mode at
/// degree 1 both ways. Platforms without the mode keep their banks.
#[test]
fn kepler_runs_double_tiles_in_eight_byte_bank_mode() {
    let file = "tests/corpus/bank_mv_double.c";
    let t = decision(file, "gtx690", "A", &[]);
    assert_eq!(t["bank_width"], 8, "{t}");
    assert_eq!(t["degree_after"], 1, "{t}");
    for platform in ["a100", "hd7850"] {
        let t = decision(file, platform, "A", &[]);
        assert!(t["bank_width"].is_null(), "{platform}: {t}");
    }
    let text = explain_text(file, "gtx690", &[]);
    assert!(
        text.contains("bank mode: 8-byte banks (the platform's default is 4 bytes), set by the CUDA host code"),
        "{text}"
    );
    // An int tile gains nothing from 8-byte banks: the default mode stays.
    let t = decision("tests/corpus/bank_reorder_int.c", "gtx690", "A", &[]);
    assert!(t["bank_width"].is_null(), "{t}");
    let kepler = accshare::model::Platform::load("gtx690").unwrap();
    let mut four = kepler.clone();
    four.bank_modes = vec![4];
    let (d8, w8) = simulated_on(file, kepler, true, false);
    let (d4, w4) = simulated_on(file, four, true, false);
    println!("{file} on gtx690: 4-byte mode degree {d4}, {w4} wavefronts; 8-byte mode degree {d8}, {w8} wavefronts");
    assert_eq!((d4, d8), (1, 1));
    assert!(w8 < w4, "{w4} → {w8}");
    // The CUDA host code sets the mode before the launch, and the kernels compile with NVRTC.
    let out = accshare()
        .args(["--platform", "gtx690", "--target", "cuda", "-o"])
        .arg(std::env::temp_dir().join(format!("accshare-banks-cuda-{}", std::process::id())))
        .arg(file)
        .output()
        .expect("run accshare");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = std::env::temp_dir().join(format!("accshare-banks-cuda-{}", std::process::id()));
    let cu = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "cu"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a .cu file");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        cu.contains("cudaFuncSetSharedMemConfig(mv_double_r0_k0, cudaSharedMemBankSizeEightByte);"),
        "{cu}"
    );
}

/// The CUDA kernels of the programs that need each technique compile with NVRTC (skipped
/// visibly without it).
#[test]
fn bank_technique_kernels_compile_with_nvrtc() {
    use accshare::runtime::nvrtc::{self, CompileOutcome};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Ok(out) = Command::new("bash")
        .arg(root.join(".ci/nvrtc-libdir.sh"))
        .output()
    {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !dir.is_empty() {
            let _ = nvrtc::preload(std::path::Path::new(&dir));
        }
    }
    for (file, platform) in [
        ("tests/corpus/bank_reorder_int.c", "a100"),
        ("tests/corpus/bank_mv_double.c", "gtx690"),
    ] {
        let out = accshare()
            .args([
                "--platform",
                platform,
                "--target",
                "cuda",
                "--emit",
                "kernel",
                file,
            ])
            .output()
            .expect("run accshare");
        assert!(out.status.success());
        let src = String::from_utf8(out.stdout).unwrap();
        match nvrtc::compile_cuda(&src, "compute_75") {
            Ok(CompileOutcome::Skipped(why)) => {
                exec_support::skip_or_fail(&format!("no NVRTC: {why}"));
                return;
            }
            Ok(CompileOutcome::Compiled { ptx, .. }) => assert!(ptx.contains(".entry"), "{file}"),
            o => panic!("{file}: {o:?}\n{src}"),
        }
    }
}

/// The programs of the techniques compute what `cc` computes, on the OpenCL device, for the
/// platforms whose schedules differ, at their default sizes (partial tiles and a partial last
/// strip) and at sizes that fill every tile.
#[test]
fn bank_technique_programs_match_cc_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bad = Vec::new();
    for file in [
        "tests/corpus/bank_reorder_int.c",
        "tests/corpus/bank_mv_double.c",
    ] {
        for platform in ["a100", "gtx690", "hd7850"] {
            for defines in [vec![], vec![("N", "64"), ("M", "96")]] {
                let defs: Vec<(String, String)> = defines
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect();
                let opt = accshare::driver::OptOptions::share()
                    .for_platform(accshare::model::Platform::load(platform).unwrap());
                let tag = format!("banks-{}-{}-{}", platform, defs.len(), file.len());
                if let Err(e) =
                    exec_support::programs::check_program(&root.join(file), &defs, &tag, &opt)
                {
                    bad.push(format!("{file} on {platform} {defines:?}: {e}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
