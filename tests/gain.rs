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

/// (staged µs, unstaged µs, staged kept) from `explain`'s note.
fn estimate(m: &Measured) -> (f64, f64, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_accshare"))
        .arg("explain")
        .arg(five(m.file))
        .args(["--platform", "h100", "-DREPS=1"])
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
        .find(|l| l.contains("staged vs unstaged on h100"))
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
