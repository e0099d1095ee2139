//! Reductions across lanes (issue 27 item 3, `schedule::lanes`, `kernel::lower::lanes`): the
//! programs of `tests/lanes/` compiled for an H100 run their inner reduction loops across the
//! lanes of a work-group where legal and allowed, and compute what `cc` computes (on this
//! machine's OpenCL device, and in the simulator's replay); the ones that must not be
//! transformed are not. Their values are small integers, so every order of the sums gives the
//! same bits and outputs compare exactly.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::front::preprocess::PpOptions;
use accshare::schedule::stage::StageOptions;
use accshare::sim::{trace, SimOptions, SimPlatform};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lanes")
        .join(format!("{name}.c"))
}

fn h100() -> accshare::model::Platform {
    accshare::model::Platform::load("h100").expect("h100")
}

fn pp(defines: &[(&str, &str)]) -> PpOptions {
    PpOptions {
        defines: defines
            .iter()
            .map(|(n, v)| (n.to_string(), Some(v.to_string())))
            .collect(),
        include_dirs: Vec::new(),
    }
}

/// `name` compiled for the H100 (`--reassociate` as asked), for `target`.
fn compile(
    name: &str,
    defines: &[(&str, &str)],
    reassociate: bool,
    target: Target,
) -> driver::Output {
    let src = program(name);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target,
        pp: pp(defines),
    };
    let oo = driver::OptOptions::share().for_platform(h100());
    let staging = StageOptions {
        reassociate,
        ..Default::default()
    };
    driver::compile_staged(
        &src,
        &opts,
        &oo,
        &staging,
        &Default::default(),
        &mut sources,
        &mut diags,
    )
    .unwrap_or_else(|| panic!("{name}:\n{}", diag::render(&sources, &diags.0)))
}

/// Kernels of the output that run a loop across lanes.
fn across_lanes(out: &driver::Output) -> usize {
    out.module
        .kernels
        .iter()
        .filter(|k| {
            k.locals
                .iter()
                .any(|&l| k.arrays[l].name.starts_with("accshare_lanes_"))
        })
        .count()
}

/// The program's output through `cc` and through accshare (OpenCL on this machine's device),
/// and the simulator's replay of every launch against the sequential run.
fn matches_sequential(name: &str, reassociate: bool, lanes: usize) {
    let defines: [(&str, &str); 0] = [];
    let out = compile(name, &defines, reassociate, Target::OpenCl);
    assert_eq!(
        across_lanes(&out),
        lanes,
        "{name}: kernels across lanes\n{}",
        out.kernel_source
    );
    // The simulator (always available).
    let src = program(name);
    let dir = exec_support::scratch_dir(&format!("lanes-{name}-{reassociate}"));
    let (rep, _) = trace::run_module(
        &src,
        &out.module,
        &pp(&defines),
        &SimPlatform::from_platform(&h100()),
        &SimOptions::default(),
        &dir.join("sim"),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(rep.instances > 0, "{name}: no region replayed");
    assert!(rep.mismatches.is_empty(), "{name}: {:?}", rep.mismatches);
    // The device.
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let paths = driver::write(&out, &src, &dir.join("out"), Target::OpenCl).unwrap();
    let host = paths
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .expect("a .c file");
    exec_support::compile_c(&src, &dir.join("seq"), &defines, false).unwrap();
    exec_support::compile_c(host, &dir.join("gpu"), &defines, true).unwrap();
    let expected = exec_support::run(&dir.join("seq")).unwrap();
    let actual = exec_support::run(&dir.join("gpu")).unwrap();
    assert_eq!(actual, expected, "{name}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mv_with_a_reduction_clause_runs_across_lanes() {
    matches_sequential("mv_clause", false, 1);
}

#[test]
fn mv_seq_runs_across_lanes_only_under_reassociate() {
    matches_sequential("mv_seq", false, 0);
    matches_sequential("mv_seq", true, 1);
}

#[test]
fn integer_mv_is_exact_across_lanes() {
    matches_sequential("mv_int", false, 1);
}

#[test]
fn row_and_column_sums_run_across_lanes() {
    matches_sequential("rowsum", false, 2);
}

#[test]
fn max_reduction_runs_across_lanes() {
    matches_sequential("dotmax", false, 1);
}

#[test]
fn privatized_scalars_and_inner_loops_run_across_lanes() {
    matches_sequential("nested", false, 1);
}

/// CSR products (NPB CG's `loop worker vector reduction(+:sum)`, bounds not affine): across
/// lanes because the loop asks for it, the function's scalars stored by lane 0 of the last row;
/// not where the program reads a scalar the loop assigns (`last`) after the region.
#[test]
fn csr_products_run_across_lanes_where_the_loop_asks() {
    matches_sequential("csr", false, 2);
}

#[test]
fn a_scalar_read_in_the_loop_is_not_a_reduction() {
    matches_sequential("scalar_read", true, 0);
}

/// The OpenCL kernel of mv across lanes.
#[test]
fn mv_kernel_snapshot() {
    let out = compile("mv_clause", &[], false, Target::OpenCl);
    insta::assert_snapshot!(out.kernel_source);
}

/// The CUDA kernel compiles where NVRTC is present (the OpenCL one is run above).
#[test]
fn mv_across_lanes_in_cuda() {
    let out = compile("mv_clause", &[], false, Target::Cuda);
    for local in ["accshare_lanes_red_sum[128];", "accshare_lanes_ld0[128];"] {
        assert!(out
            .device_source
            .contains(&format!("__shared__ float {local}")));
    }
    assert!(out.device_source.contains("__syncthreads();"));
    exec_support::find_nvrtc();
    exec_support::nvrtc_compiles("mv across lanes", &out.kernel_source);
}

/// `explain` says the loop runs across lanes, and why its floating-point sum may be reordered.
#[test]
fn explain_says_why() {
    let text =
        exec_support::accshare_stdout(&["explain", "--platform", "h100"], &program("mv_clause"));
    assert!(text.contains("across lanes"), "{text}");
    assert!(text.contains("reduction(+:sum)"), "{text}");
    let text = exec_support::accshare_stdout(
        &["explain", "--platform", "h100", "--reassociate"],
        &program("mv_seq"),
    );
    assert!(text.contains("--reassociate"), "{text}");
    let text =
        exec_support::accshare_stdout(&["explain", "--platform", "h100"], &program("mv_seq"));
    assert!(text.contains("not across lanes"), "{text}");
    // A loop that asks for lanes says why it is not across them on a platform without the L1
    // timing, and that its request is honoured on the default (`h100`) when the sizes are
    // unknown.
    let text = exec_support::accshare_stdout(&["explain", "--platform", "a100"], &program("csr"));
    assert!(
        text.contains("reduction loop not across lanes: a100 has no model of the naive kernel (L1 timing) or is a CPU device: a `loop vector`/`worker` request is honoured on platforms with one (`--platform h100`)"),
        "{text}"
    );
    let text = exec_support::accshare_stdout(&["explain", "--platform", "h100"], &program("csr"));
    assert!(
        text.contains("asked for by the loop's `vector`/`worker` directive (the model has no sizes: bounds not known at compile time)"),
        "{text}"
    );
}

/// The simulator on benches/five/mv.c at 4096×4096 on an H100: before (the naive kernel, or
/// `loop seq` without --reassociate) and after (--reassociate). Issue 27's targets: at least 16
/// warps per SM; global transactions close to compulsory (x is read once per row: see
/// `docs/lanes.md`).
#[test]
fn mv_4096_in_the_simulator() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/five/mv.c");
    let defines = [("N", "4096"), ("M", "4096"), ("REPS", "1")];
    let p = h100();
    let sim = SimPlatform::from_platform(&p);
    let mut rows = Vec::new();
    for reassociate in [false, true] {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target: Target::OpenCl,
            pp: pp(&defines),
        };
        let oo = driver::OptOptions::share().for_platform(p.clone());
        let staging = StageOptions {
            reassociate,
            ..Default::default()
        };
        let out = driver::compile_staged(
            &src,
            &opts,
            &oo,
            &staging,
            &Default::default(),
            &mut sources,
            &mut diags,
        )
        .expect("compiles");
        let dir = exec_support::scratch_dir(&format!("lanes-mv4096-{reassociate}"));
        let (_, report) = trace::run_module(
            &src,
            &out.module,
            &pp(&defines),
            &sim,
            &SimOptions::default(),
            &dir,
        )
        .expect("replays");
        let _ = std::fs::remove_dir_all(&dir);
        let k = &report.kernels[0];
        let threads: u32 = k.block.iter().product();
        let warps_per_block = threads.div_ceil(p.warp_size) as u64;
        // Warps per SM over the whole device: the grid's warps spread over the SMs, at most
        // what the occupancy lets one SM hold.
        let warps_per_sm = (k.blocks_total * warps_per_block)
            .min(k.blocks_per_sm as u64 * warps_per_block * p.sm_count as u64)
            as f64
            / p.sm_count as f64;
        let ratio = k.global_transactions as f64 / k.compulsory_transactions as f64;
        println!(
            "mv 4096x4096 h100 {}: block {:?}, {} blocks, {:.1} warps/SM, global transactions {} = {:.2}x compulsory {}, DRAM sectors {}, model {:.1} us",
            if reassociate { "across lanes" } else { "naive" },
            k.block,
            k.blocks_total,
            warps_per_sm,
            k.global_transactions,
            ratio,
            k.compulsory_transactions,
            k.dram_reads + k.dram_writes,
            k.estimate_us
        );
        rows.push((warps_per_sm, ratio, k.estimate_us));
    }
    let (before, after) = (rows[0], rows[1]);
    assert!(before.0 < 16.0, "naive: {} warps per SM", before.0);
    assert!(after.0 >= 16.0, "across lanes: {} warps per SM", after.0);
    assert!(after.1 <= 1.1, "across lanes: {:.2}x compulsory", after.1);
    assert!(
        after.2 * 5.0 < before.2,
        "{:.1} us vs {:.1} us",
        after.2,
        before.2
    );
}

/// `run --reassociate` replays mv across lanes in the simulator: its floating-point sums are
/// reordered, so the comparison with the sequential program allows the last bits.
#[test]
fn run_replays_a_reordered_float_sum() {
    let mv = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/five/mv.c");
    let text = exec_support::accshare_stdout(
        &[
            "run",
            "--device",
            "sim",
            "--platform",
            "h100",
            "--reassociate",
            "-DN=300",
            "-DM=1000",
            "-DREPS=1",
        ],
        &mv,
    );
    let out = compile(
        "../../benches/five/mv",
        &[("N", "300"), ("M", "1000"), ("REPS", "1")],
        true,
        Target::OpenCl,
    );
    assert_eq!(across_lanes(&out), 1, "{}", out.kernel_source);
    assert!(out.module.kernels[0].reorders_floats());
    println!("{text}");
}
