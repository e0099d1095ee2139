//! The schedule's model of a GPU whose L1 caches global loads against the first real-GPU
//! measurement (`../shared/data/h100-2026-11-27.md`, an H100 SXM, Nsight Compute kernel times at
//! the GPU sizes, accshare 7673f8a): the five kernels of `benches/five` naive (`--opt naive`)
//! and staged (`--platform h100`, 7673f8a's default). The model (`schedule::gain`) must stage
//! exactly those that were faster (its speed-up on the measured side of the 1.10x margin), and estimate the unstaged kernels within ±35 % of their measured time (transpose
//! excepted: see docs/model.md, "H100").

use std::path::PathBuf;
use std::process::Command;

fn five(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches/five")
        .join(file)
}

/// The measured kernel: file, sizes, naive µs, 7673f8a's staged µs.
struct Measured {
    file: &'static str,
    sizes: &'static [&'static str],
    naive_us: f64,
    staged_us: f64,
}

const H100: &[Measured] = &[
    Measured {
        file: "transpose.c",
        sizes: &["-DN=8192"],
        naive_us: 1192.0,
        staged_us: 194.0,
    },
    Measured {
        file: "gemm_share.c",
        sizes: &["-DNI=2048", "-DNJ=2048", "-DNK=2048"],
        naive_us: 3031.0,
        staged_us: 2119.0,
    },
    Measured {
        file: "mv.c",
        sizes: &["-DN=8192", "-DM=8192"],
        naive_us: 1354.0,
        staged_us: 4037.0,
    },
    Measured {
        file: "gauss.c",
        sizes: &["-DH=4096", "-DW=4096"],
        naive_us: 110.0,
        staged_us: 83.0,
    },
    Measured {
        file: "hotspot.c",
        sizes: &["-DROWS=4096", "-DCOLS=4096", "-DSTEPS=1"],
        naive_us: 79.0,
        staged_us: 100.0,
    },
];

/// (staged µs, unstaged µs, staged kept) from `explain`'s note on the H100's file.
fn estimate(m: &Measured) -> (f64, f64, bool) {
    estimate_on(m, "h100")
}

/// (staged µs, unstaged µs, staged kept) from `explain`'s note on `platform`.
fn estimate_on(m: &Measured, platform: &str) -> (f64, f64, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_accshare"))
        .arg("explain")
        .arg(five(m.file))
        .args(["--platform", platform, "-DREPS=1"])
        .args(m.sizes)
        .output()
        .expect("run accshare");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let note = text
        .lines()
        .find(|l| l.contains(&format!("staged vs unstaged on {platform}")))
        .unwrap_or_else(|| panic!("{}: no comparison in explain:\n{text}", m.file));
    // "... loads): staged RY×RX ~T us, ..., unstaged ~T us, ...".
    let us = |after: &str| -> f64 {
        let at = note.find(after).unwrap_or_else(|| panic!("{note}")) + after.len();
        let rest = &note[at..];
        let t = &rest[rest.find('~').unwrap_or_else(|| panic!("{note}")) + 1..];
        let end = t.find(" us").unwrap_or_else(|| panic!("{note}"));
        t[..end].parse().unwrap_or_else(|_| panic!("{note}"))
    };
    (
        us("global loads): staged "),
        us(", unstaged "),
        note.ends_with(": staged"),
    )
}

#[test]
fn the_l1_model_orders_the_h100_measurements() {
    let mut report = Vec::new();
    for m in H100 {
        let (staged, unstaged, kept) = estimate(m);
        let faster = m.naive_us / m.staged_us > 1.0;
        report.push(format!(
            "{}: naive {:.0} us (model {:.0}, {:.2}x), staged {:.0} us (model {:.0}), speed-up measured {:.2}x, model {:.2}x, staged {}",
            m.file,
            m.naive_us,
            unstaged,
            unstaged / m.naive_us,
            m.staged_us,
            staged,
            m.naive_us / m.staged_us,
            unstaged / staged,
            kept
        ));
        // The staged kernel is kept exactly where the H100 ran it faster than naive.
        assert_eq!(kept, faster, "{}", report.join("\n"));
        // The model's speed-up on the measured side of the margin (hotspot: 1.06x, a tie under
        // the 1.10x margin, against 0.79x measured).
        assert_eq!(unstaged / staged >= 1.10, faster, "{}", report.join("\n"));
        // The unstaged estimate within ±35 % (transpose: within 5x under, see docs/model.md).
        let ratio = unstaged / m.naive_us;
        let (lo, hi) = if m.file == "transpose.c" {
            (0.2, 1.35)
        } else {
            (0.65, 1.35)
        };
        assert!(
            (lo..=hi).contains(&ratio),
            "{}: unstaged estimate {unstaged:.0} us against {:.0} us measured\n{}",
            m.file,
            m.naive_us,
            report.join("\n")
        );
    }
    eprintln!("{}", report.join("\n"));
}

/// The same five kernels on an H200 (`docs/gpu/h200-2026-11-28b/`, benches/gpu-programs.sh:
/// CUDA events around each launch, minimum of 5, accshare's code of 2026-11-28): naive µs and
/// the staged kernel's µs (the engine's staged schedule, as `--platform a100` compiles it, which
/// stages all five; gemm: `gemm.c`, 4 rows of a 32×32 tile, k strips of 64).
const H200: &[Measured] = &[
    Measured {
        file: "transpose.c",
        sizes: &["-DN=8192"],
        naive_us: 346.8,
        staged_us: 239.9,
    },
    Measured {
        file: "gemm.c",
        sizes: &["-DNI=2048", "-DNJ=2048", "-DNK=2048"],
        naive_us: 2492.9,
        staged_us: 1723.3,
    },
    Measured {
        file: "mv.c",
        sizes: &["-DN=8192", "-DM=8192"],
        naive_us: 1125.9,
        staged_us: 1088.3,
    },
    Measured {
        file: "gauss.c",
        sizes: &["-DH=4096", "-DW=4096"],
        naive_us: 116.5,
        staged_us: 99.0,
    },
    Measured {
        file: "hotspot.c",
        sizes: &["-DROWS=4096", "-DCOLS=4096", "-DSTEPS=1"],
        naive_us: 98.2,
        staged_us: 119.6,
    },
];

/// On the H200 (`--platform h200`), whose copies no longer divide: the staged kernel is kept
/// where it ran clearly faster (over 1.10x) and not where it ran clearly slower (under 0.95x);
/// mv's 1.03x is a tie either verdict may take. (Its event times include ~30 µs of launch per
/// kernel, so the estimates are not held to ±35 % here: the H100's Nsight times above are.)
#[test]
fn the_l1_model_orders_the_h200_measurements() {
    let mut report = Vec::new();
    for m in H200 {
        let (staged, unstaged, kept) = estimate_on(m, "h200");
        let measured = m.naive_us / m.staged_us;
        report.push(format!(
            "{}: measured {:.2}x, model {:.2}x (staged {staged:.0} us, unstaged {unstaged:.0} us), staged {kept}",
            m.file,
            measured,
            unstaged / staged
        ));
        if measured > 1.10 {
            assert!(kept, "{}", report.join("\n"));
        }
        if measured < 0.95 {
            assert!(!kept, "{}", report.join("\n"));
        }
    }
    eprintln!("{}", report.join("\n"));
}

/// The register micro-tile `explain` reports for gemm at `n`³ on `platform`: the chosen block
/// tile (`"128×128"`) and every tile's estimate in µs.
fn micro_choice(n: u32, platform: &str) -> (String, Vec<(String, f64)>) {
    let d = |v: &str| format!("-D{v}={n}");
    let out = Command::new(env!("CARGO_BIN_EXE_accshare"))
        .arg("explain")
        .arg(five("gemm.c"))
        .args([
            "--platform",
            platform,
            "-DREPS=1",
            &d("NI"),
            &d("NJ"),
            &d("NK"),
        ])
        .output()
        .expect("run accshare");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let note = text
        .lines()
        .find(|l| l.contains("register micro-tile on"))
        .unwrap_or_else(|| panic!("no micro-tile verdict in explain:\n{text}"))
        .to_string();
    let tile = |s: &str| s.split_whitespace().next().unwrap_or("").to_string();
    let us = |s: &str| -> f64 {
        let t = &s[s.find('~').unwrap_or_else(|| panic!("{note}")) + 1..];
        t[..t.find(" us").unwrap_or_else(|| panic!("{note}"))]
            .parse()
            .unwrap_or_else(|_| panic!("{note}"))
    };
    let head = &note[note.find("block tile ").unwrap_or_else(|| panic!("{note}")) + 11..];
    let chosen = tile(head);
    let mut all = vec![(chosen.clone(), us(head))];
    if let Some(at) = note.find("other block tiles: ") {
        for part in note[at + 19..].split("), ") {
            if part.contains('~') {
                all.push((tile(part), us(part)));
            }
        }
    }
    let taken = note.contains(": chosen (");
    (if taken { chosen } else { "none".to_string() }, all)
}

/// gemm's micro-tiles on an H200 (`docs/gpu/h200-2026-11-28b/`, CUDA events, minimum of 5):
/// at 2048³ 8×8 outputs per work-item (128×128 tiles) 904 µs, 8×4 1035, 4×4 1092; at 4096³ 7055,
/// 7919, 8146; at 1024³, where 128×128 tiles leave half the SMs idle, 4×4 229 µs and 8×8 362.
/// The model must take the tile the GPU ran fastest, on both Hopper files.
#[test]
fn the_micro_tile_is_the_one_the_h200_ran_fastest() {
    for platform in ["h100", "h200"] {
        for (n, fastest) in [(2048, "128×128"), (4096, "128×128")] {
            let (chosen, all) = micro_choice(n, platform);
            assert_eq!(chosen, fastest, "{platform} {n}: {all:?}");
        }
        let (_, all) = micro_choice(1024, platform);
        let t = |tile: &str| all.iter().find(|(s, _)| s == tile).map(|x| x.1);
        let (small, large) = (t("64×64").expect("4×4"), t("128×128").expect("8×8"));
        assert!(small < large, "{platform} 1024: {all:?}");
    }
}

/// `analyze`'s instruction count on a platform whose compiler folds address arithmetic
/// (`timing.address_folding`, the H100's file) leaves out the additions and multiplications of
/// the subscripts: the same kernel on the same file without it issues more.
#[test]
fn address_folding_drops_subscript_arithmetic_from_the_issue_count() {
    let dir = std::env::temp_dir().join(format!("accshare-gain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let h100 = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("platforms/h100.toml"),
    )
    .expect("platforms/h100.toml");
    assert!(h100.contains("address_folding = true"));
    let unfolded = dir.join("h100-unfolded.toml");
    std::fs::write(
        &unfolded,
        h100.replace("address_folding = true", "address_folding = false"),
    )
    .expect("write platform");
    let instructions = |platform: &str| -> u64 {
        let out = Command::new(env!("CARGO_BIN_EXE_accshare"))
            .arg("analyze")
            .arg(five("gemm_share.c"))
            .args(["--platform", platform, "--format", "json", "--ilp", "4"])
            .args(["-DREPS=1", "-DNI=64", "-DNJ=64", "-DNK=64"])
            .output()
            .expect("run accshare");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["kernels"][0]["instructions"]
            .as_u64()
            .expect("instructions")
    };
    let folded = instructions("h100");
    let counted = instructions(unfolded.to_str().expect("utf-8 path"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        (folded as f64) < 0.8 * counted as f64,
        "folded {folded}, counted {counted}"
    );
}
