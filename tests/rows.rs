//! Adjacent rows per work-item in staged stencils (`schedule::rows`, `--adjacent-rows`): the
//! stencils of the examples, the benchmarks and the corpus (programs in the style of Rodinia,
//! PolyBench and the CUDA samples, not written for this layout), with 2, 4 and 8 rows per
//! work-item, run on PoCL against the sequential program compiled by `cc` and replayed on the
//! simulator with its checker; the layout taken only where the reads overlap along y.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::schedule::stage::StageOptions;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A program, its defines, and the platform it is compiled for.
type Case = (PathBuf, Vec<(&'static str, &'static str)>, &'static str);

/// Staged stencils whose outputs read overlapping rows, with their defines, and the platform
/// that stages them (`a100`: no L1 model; the default `h100` keeps some of them unstaged).
fn stencils() -> Vec<Case> {
    let r = root();
    vec![
        (
            r.join("benches/five/gauss.c"),
            vec![("H", "70"), ("W", "101")],
            "h100",
        ),
        (
            r.join("benches/five/gauss.c"),
            vec![("H", "128"), ("W", "128")],
            "h100",
        ),
        (r.join("examples/gauss.c"), Vec::new(), "a100"),
        (
            r.join("benches/five/hotspot.c"),
            vec![("ROWS", "67"), ("COLS", "93"), ("STEPS", "2")],
            "a100",
        ),
        (r.join("examples/conv3x3.c"), Vec::new(), "a100"),
        (r.join("examples/jacobi.c"), Vec::new(), "a100"),
        (r.join("tests/corpus/rows_jacobi.c"), Vec::new(), "h100"),
        (r.join("tests/corpus/column_walk.c"), Vec::new(), "h100"),
        (r.join("tests/corpus/cache_stencil2d.c"), Vec::new(), "a100"),
        (r.join("tests/corpus/plain_stencil.c"), Vec::new(), "a100"),
        (
            r.join("tests/corpus/share_stencil_border.c"),
            Vec::new(),
            "a100",
        ),
        (r.join("tests/corpus/stencil3d_7pt.c"), Vec::new(), "a100"),
    ]
}

/// Rows per work-item (`--ilp`).
const ROWS: [u32; 3] = [2, 4, 8];

fn pp(defines: &[(&str, &str)]) -> accshare::front::preprocess::PpOptions {
    accshare::front::preprocess::PpOptions {
        defines: defines
            .iter()
            .map(|(a, b)| (a.to_string(), Some(b.to_string())))
            .collect(),
        include_dirs: Vec::new(),
    }
}

fn options(platform: &str, rows: u32, adjacent_rows: bool) -> (driver::OptOptions, StageOptions) {
    let oo = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load(platform).expect("platform"))
        .with_shape(rows, 1);
    let staging = StageOptions {
        adjacent_rows,
        ..Default::default()
    };
    (oo, staging)
}

/// `src` compiled for `platform` with `rows` rows per work-item and adjacent rows on or off.
fn compile(
    src: &Path,
    defines: &[(&str, &str)],
    platform: &str,
    rows: u32,
    adjacent_rows: bool,
    target: Target,
) -> driver::Output {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target,
        pp: pp(defines),
    };
    let (oo, staging) = options(platform, rows, adjacent_rows);
    match driver::compile_staged(
        src,
        &opts,
        &oo,
        &staging,
        &Default::default(),
        &mut sources,
        &mut diags,
    ) {
        Some(out) => out,
        None => panic!("{}: {}", src.display(), diag::render(&sources, &diags.0)),
    }
}

/// Whether some kernel of `src` (its preferred schedule) lays its rows out adjacent.
fn adjacent(
    src: &Path,
    defines: &[(&str, &str)],
    platform: &str,
    rows: u32,
    adjacent_rows: bool,
) -> bool {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let (oo, staging) = options(platform, rows, adjacent_rows);
    let s = driver::schedule_with(
        src,
        &pp(defines),
        &oo,
        &staging,
        &Default::default(),
        &mut sources,
        &mut diags,
    )
    .unwrap_or_else(|| panic!("{}: {}", src.display(), diag::render(&sources, &diags.0)));
    s.schedules
        .iter()
        .flat_map(|r| r.kernels.iter())
        .any(|k| k.preferred().shape.adjacent_rows)
}

#[test]
fn every_stencil_takes_adjacent_rows_and_off_keeps_them_apart() {
    for (src, defines, platform) in stencils() {
        for rows in ROWS {
            assert!(
                adjacent(&src, &defines, platform, rows, true),
                "{} {rows} rows: not adjacent",
                src.display()
            );
            assert!(
                !adjacent(&src, &defines, platform, rows, false),
                "{} {rows} rows: adjacent",
                src.display()
            );
        }
    }
    // No overlap along y: gemm and the transpose keep their rows a launched block apart.
    for f in ["examples/gemm.c", "examples/mt.c"] {
        assert!(!adjacent(&root().join(f), &[], "a100", 4, true), "{f}");
    }
}

/// The filter's tap loop is unrolled (`#pragma unroll`) with adjacent rows, in CUDA and OpenCL.
#[test]
fn the_tap_loop_is_unrolled_with_adjacent_rows() {
    let src = root().join("benches/five/gauss.c");
    for target in [Target::Cuda, Target::OpenCl] {
        let on = compile(&src, &[], "h100", 4, true, target);
        assert!(
            on.kernel_source.contains("#pragma unroll"),
            "{}",
            on.kernel_source
        );
        let off = compile(&src, &[], "h100", 4, false, target);
        assert!(
            !off.kernel_source.contains("#pragma unroll"),
            "{}",
            off.kernel_source
        );
    }
}

/// A filter written as two tap loops (`for di … for dj …`, conv3x3) has both unrolled: the rows
/// the outputs share move along `di`, the outer one.
#[test]
fn both_tap_loops_of_a_two_loop_filter_are_unrolled() {
    let src = root().join("examples/conv3x3.c");
    for target in [Target::Cuda, Target::OpenCl] {
        let on = compile(&src, &[], "a100", 4, true, target);
        let k = on.kernel_source.replace(char::is_whitespace, "");
        for tap in ["di", "dj"] {
            assert_eq!(
                k.matches(&format!("#pragmaunrollfor({tap}=-1;")).count(),
                k.matches(&format!("for({tap}=-1;")).count(),
                "{tap} rolled somewhere: {}",
                on.kernel_source
            );
        }
        assert!(
            k.contains("#pragmaunrollfor(di=-1;"),
            "{}",
            on.kernel_source
        );
    }
}

/// Compiles `src` to an OpenCL program, runs it on the OpenCL device and compares its output
/// with the sequential program's.
fn check_opencl(
    src: &Path,
    defines: &[(&str, &str)],
    platform: &str,
    rows: u32,
    tag: &str,
) -> Result<(), String> {
    let dir = exec_support::scratch_dir(tag);
    let seq = dir.join("seq");
    exec_support::compile_c(src, &seq, defines, false)?;
    let expected = exec_support::run(&seq)?;
    let out = compile(src, defines, platform, rows, true, Target::OpenCl);
    let stem = src
        .file_stem()
        .ok_or("name")?
        .to_string_lossy()
        .into_owned();
    let local = dir.join(format!("{stem}.c"));
    std::fs::write(&local, &out.host_source).map_err(|e| e.to_string())?;
    let actual = exec_support::run_generated(src, &local, &dir, defines)?;
    let untimed = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("time"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    exec_support::compare_dumps(&untimed(&expected), &untimed(&actual), 1e-4, 1e-5)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

#[test]
fn adjacent_rows_match_sequential_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let mut failures = Vec::new();
    for (i, (src, defines, platform)) in stencils().iter().enumerate() {
        for rows in ROWS {
            if let Err(e) = check_opencl(src, defines, platform, rows, &format!("rows-{i}-{rows}"))
            {
                failures.push(format!("{} {:?} {rows} rows: {e}", src.display(), defines));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Replayed on the simulator with its checker (no race, out-of-bounds or uninitialised shared
/// read), results equal to the sequential program's.
#[test]
fn adjacent_rows_pass_the_simulator_checker() {
    let mut failures = Vec::new();
    for (i, (src, defines, platform)) in stencils().iter().enumerate() {
        for rows in ROWS {
            let out = compile(src, defines, platform, rows, true, Target::OpenCl);
            let what = format!("{} {:?} {rows} rows", src.display(), defines);
            let tag = format!("rows-sim-{i}-{rows}");
            failures.extend(exec_support::sim_check(
                src,
                &out.module,
                &pp(defines),
                &tag,
                &what,
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
