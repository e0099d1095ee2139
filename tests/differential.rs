//! Differential tests on programs nobody wrote: a seeded generator writes random annotated C
//! programs of the supported subset — 2-D grids with `independent` loops, sequential reduction
//! loops, stencil offsets, transposed reads and writes, read-modify-write and conditional
//! stores, private scalars, float/double/int, with and without `share` pragmas — and each is
//! compiled by `cc` (the reference) and through accshare six ways (naive, share, share with
//! one and with two rows per work-item, share with the decisions for a CPU device,
//! `pocl-cpu`: register tiles of adjacent outputs, transposed vector tiles, blocks fitted to
//! extents, and staged as for `a100` with 4 rows per work-item: adjacent rows), run on the
//! OpenCL device and compared.
//!
//! A failure prints the seed and the whole program. `ACCSHARE_DIFF_SEEDS=a..b` runs other seeds.

mod exec_support;

use accshare::driver::{OptLevel, OptOptions};
use exec_support::generate::program;

#[test]
fn generated_programs_match_sequential_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let seeds: std::ops::Range<u64> = std::env::var("ACCSHARE_DIFF_SEEDS")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once("..")?;
            Some(a.parse().ok()?..b.parse().ok()?)
        })
        .unwrap_or(1..13);
    let cpu = OptOptions::share()
        .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"));
    let a100 = OptOptions::share()
        .for_platform(accshare::model::Platform::load("a100").expect("a100"))
        .with_rows(4);
    let variants = [
        ("naive", OptOptions::new(OptLevel::Naive)),
        ("share", OptOptions::share()),
        ("share --ilp 1", OptOptions::share().with_rows(1)),
        ("share --ilp 2", OptOptions::share().with_rows(2)),
        ("share --platform pocl-cpu", cpu),
        // Staged as on a GPU whose L1 does not cache global loads, 4 rows per work-item:
        // adjacent where the rows' reads overlap (`schedule::rows`), inner loops unrolled.
        ("share --platform a100 --ilp 4", a100),
    ];
    let dir = exec_support::scratch_dir("differential");
    let mut failures = Vec::new();
    let mut staged = 0;
    let count = seeds.end.saturating_sub(seeds.start);
    for seed in seeds {
        let text = program(seed);
        let src = dir.join(format!("gen_{}.c", seed));
        std::fs::write(&src, &text).expect("write the program");
        if text.contains("#pragma acc share") {
            staged += 1;
        }
        if let Err(e) =
            exec_support::programs::check_variants(&src, &[], &format!("diff-{}", seed), &variants)
        {
            failures.push(format!("seed {}: {}\n{}", seed, e, text));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{} generated programs ({} with a share pragma), {} variants each",
        count,
        staged,
        variants.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_generator_is_deterministic_and_varied() {
    assert_eq!(program(7), program(7));
    let all: Vec<String> = (1..25).map(program).collect();
    for needle in [
        "ot[j][i] += ",
        "if (",
        "#pragma acc share(",
        "for (int kk = 0",
        "bt[j][kk]",
        "tin[",
        "double",
        "int o[N][M]",
        ":coalesce",
        "for (int j = i;",
        "#pragma acc parallel\n",
        "ARR2D(o, N, M)",
        "rs[i] = rs[i] + in[i][j];",
        "cs[j] = cs[j] * ",
        "for (int j = 2; j < M - 2; j++) {\n#pragma acc loop independent\n        for (int i = 2;",
    ] {
        assert!(
            all.iter().any(|p| p.contains(needle)),
            "no generated program has `{}`",
            needle
        );
    }
    assert!(all.iter().any(|p| !p.contains("#pragma acc share(")));
}
