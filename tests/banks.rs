//! Bank conflicts after the default level (`--opt share`), on shipped platforms: every shared
//! access of a representative set of examples and corpus programs has degree 1 in the
//! simulator (`accshare analyze`), or `explain` says why a residual conflict is kept; and each
//! technique the decision tree chooses is reached from C input, with the degree the tree
//! computed statically before it and the simulator's after.

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
    use accshare::diag::{self, Diags, SourceMap};
    use accshare::driver;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join(file);
    let p = accshare::model::Platform::load(platform).expect("platform");
    let sim = accshare::sim::SimPlatform::from_platform(&p);
    let oo = driver::OptOptions {
        opt: driver::OptLevel::Share,
        platform: Some(p),
        ilp: None,
        cols: None,
        words: None,
    };
    let staging = accshare::schedule::stage::StageOptions {
        bank_padding: techniques,
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
        "accshare-banks-{}-{}-{}",
        std::process::id(),
        platform,
        techniques
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
