//! Channel conflicts (partition camping, the seed paper's §3.3.1 and §4.2.3): the simulator's
//! channel imbalance of mt and mv on hd7850 with the linear and the diagonal block order, the
//! diagonal kernels on PoCL against `cc`, the explain text, and no change on platforms without a
//! channel model.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::schedule::stage::StageOptions;
use accshare::sim::{trace, Report, SimOptions, SimPlatform};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{}.c", name))
}

fn pp(defines: &[(&str, &str)]) -> accshare::front::preprocess::PpOptions {
    accshare::front::preprocess::PpOptions {
        defines: defines
            .iter()
            .map(|(a, b)| (a.to_string(), Some(b.to_string())))
            .collect(),
        include_dirs: Vec::new(),
    }
}

/// Compiles `name` at the default level for `platform`, with the block order on or off.
fn compile(
    name: &str,
    defines: &[(&str, &str)],
    platform: &str,
    block_order: bool,
    target: Target,
) -> driver::Output {
    let src = example(name);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opt = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load(platform).expect("platform"));
    let staging = StageOptions {
        block_order,
        ..Default::default()
    };
    let s = driver::schedule_with(
        &src,
        &pp(defines),
        &opt,
        &staging,
        &Default::default(),
        &mut sources,
        &mut diags,
    )
    .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let opts = driver::Options {
        target,
        pp: pp(defines),
    };
    driver::lower(&s, &s.schedules, &opts, &sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)))
}

/// The simulator's report of `name` on `platform` (every region instance of the program).
fn analyze(name: &str, defines: &[(&str, &str)], platform: &str, block_order: bool) -> Report {
    let out = compile(name, defines, platform, block_order, Target::OpenCl);
    let p = SimPlatform::from_platform(&accshare::model::Platform::load(platform).unwrap());
    let dir = std::env::temp_dir().join(format!(
        "accshare-chan-{}-{}-{}-{}",
        std::process::id(),
        name,
        platform,
        block_order
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let (_, report) = trace::run_module(
        &example(name),
        &out.module,
        &pp(defines),
        &p,
        &SimOptions::default(),
        &dir,
    )
    .unwrap_or_else(|e| panic!("{}: {}", name, e));
    let _ = std::fs::remove_dir_all(&dir);
    report
}

fn imbalance(r: &Report) -> f64 {
    r.kernels[0]
        .channels
        .as_ref()
        .expect("hd7850 has a channel model")
        .imbalance()
}

fn time(r: &Report) -> f64 {
    r.kernels.iter().map(|k| k.estimate_us).sum()
}

/// The paper reports 2.0× for mt and mv on HD 7850 from avoiding channel conflicts alone. mt's
/// read of `in[j][i]` walks columns: with rows of 2048 floats (8 KiB, a multiple of 8 channels ×
/// 256 B) every block of a linear first wave reads one channel; the diagonal order spreads them.
/// mv has a one-dimensional grid: the diagonal order is the identity and the schedule keeps the
/// linear order (its camping, every block walking the same columns of A at once, would need the
/// reduction's start rotated per block, which reorders the floating-point sums).
#[test]
fn imbalance_of_mt_and_mv_on_hd7850() {
    let mt = [("N", "1024"), ("M", "1024")];
    let lin = analyze("mt", &mt, "hd7850", false);
    let diag = analyze("mt", &mt, "hd7850", true);
    let mv = [("N", "2048"), ("M", "1024")];
    let mv_lin = analyze("mv", &mv, "hd7850", false);
    let mv_diag = analyze("mv", &mv, "hd7850", true);
    println!(
        "mt 1024²: imbalance linear {:.2} → diagonal {:.2}; estimate {:.1} → {:.1} us ({:.2}x; bound {} → {})",
        imbalance(&lin),
        imbalance(&diag),
        time(&lin),
        time(&diag),
        time(&lin) / time(&diag),
        lin.kernels[0].terms.bound().0,
        diag.kernels[0].terms.bound().0,
    );
    println!(
        "mv 2048x1024: imbalance linear {:.2} → diagonal {:.2}; estimate {:.1} → {:.1} us ({:.2}x)",
        imbalance(&mv_lin),
        imbalance(&mv_diag),
        time(&mv_lin),
        time(&mv_diag),
        time(&mv_lin) / time(&mv_diag),
    );
    // mt: the first wave camps linearly and spreads diagonally; the estimate follows.
    assert!(imbalance(&lin) >= 4.0, "{}", imbalance(&lin));
    assert!(
        imbalance(&diag) <= imbalance(&lin) * 0.75,
        "{} vs {}",
        imbalance(&diag),
        imbalance(&lin)
    );
    assert!(imbalance(&diag) < 1.5, "{}", imbalance(&diag));
    assert!(time(&diag) < time(&lin));
    // The same work: the same global transactions, only in another order.
    assert_eq!(
        lin.kernels[0].global_transactions,
        diag.kernels[0].global_transactions
    );
    // mv: camps, and is left linear (the same report).
    assert!(imbalance(&mv_lin) >= 4.0, "{}", imbalance(&mv_lin));
    assert_eq!(mv_lin.render_json(), mv_diag.render_json());
}

/// The diagonal order is in the generated kernels (both targets) and only where the platform
/// has a channel model.
#[test]
fn diagonal_order_is_applied_through_the_kernel_ir() {
    let mt = [("N", "1024"), ("M", "1024")];
    let cl = compile("mt", &mt, "hd7850", true, Target::OpenCl).kernel_source;
    assert!(
        cl.contains("accshare_by = ((int)get_group_id(1) + (int)get_group_id(0) % (int)get_num_groups(1) * "),
        "{cl}"
    );
    assert!(
        !cl.contains("get_group_id(1) *") && !cl.contains("get_global_id(1)"),
        "{cl}"
    );
    let cu = compile("mt", &mt, "gtx690", true, Target::Cuda).kernel_source;
    assert!(
        cu.contains("accshare_by = ((int)blockIdx.y + (int)blockIdx.x % (int)gridDim.y * "),
        "{cu}"
    );
    for p in ["a100", "pocl-cpu"] {
        let on = compile("mt", &mt, p, true, Target::OpenCl).kernel_source;
        let off = compile("mt", &mt, p, false, Target::OpenCl).kernel_source;
        assert_eq!(on, off, "{p}");
        assert!(!on.contains("accshare_by"), "{p}");
    }
}

/// No channel model, no change: the report of a platform without `[channels]` has no channel
/// counts and no channel term.
#[test]
fn platforms_without_channels_are_unchanged() {
    let mt = [("N", "256"), ("M", "128")];
    let r = analyze("mt", &mt, "a100", true);
    assert!(r
        .kernels
        .iter()
        .all(|k| k.channels.is_none() && k.terms.channel == 0.0));
    assert!(!r.render_text().contains("channel"));
    assert!(!r.render_json().contains("channel"));
}

/// The explain text of mt on hd7850: the block order, why, and the modelled imbalance.
#[test]
fn explain_text_of_the_block_order() {
    let src = example("mt");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opt = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("hd7850").unwrap());
    let pp = pp(&[("N", "1024"), ("M", "1024")]);
    let s = driver::schedule(
        &src,
        &pp,
        &opt,
        &Default::default(),
        &mut sources,
        &mut diags,
    )
    .expect("schedules");
    let p = accshare::model::Platform::load("hd7850").unwrap();
    let text =
        accshare::explain::report(&s.schedules, &sources, &p, accshare::explain::Format::Text);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("block order") || l.contains("note: --opt share"))
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
    let json =
        accshare::explain::report(&s.schedules, &sources, &p, accshare::explain::Format::Json);
    assert!(
        json.contains(r#""block_order":{"order":"diagonal""#),
        "{json}"
    );
    assert!(json.contains("\"imbalance_linear\""), "{json}");
}

/// The diagonal-ordered kernels compute what the sequential C computes (PoCL against `cc`), at a
/// square size and at a non-square one with a partial block along x.
#[test]
fn diagonal_kernels_match_the_sequential_c_on_pocl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let opt = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("hd7850").unwrap());
    for (n, m) in [("1024", "1024"), ("2056", "512")] {
        let defines = [("N", n), ("M", m)];
        // The kernel really is diagonal at these sizes.
        let cl = compile("mt", &defines, "hd7850", true, Target::OpenCl).kernel_source;
        assert!(cl.contains("accshare_by"), "mt {n}x{m}:\n{cl}");
        let defs: Vec<(String, String)> = defines
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        exec_support::programs::check_program(
            &example("mt"),
            &defs,
            &format!("chan-mt-{n}-{m}"),
            &opt,
        )
        .unwrap_or_else(|e| panic!("mt {n}x{m}: {e}"));
    }
}

/// The diagonal-ordered CUDA kernel (gtx690) compiles with NVRTC, without warnings.
#[test]
fn diagonal_cuda_compiles_with_nvrtc() {
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    let cu = compile(
        "mt",
        &[("N", "1024"), ("M", "1024")],
        "gtx690",
        true,
        Target::Cuda,
    )
    .kernel_source;
    assert!(cu.contains("accshare_by"), "{cu}");
    match compile_cuda(&cu, "compute_75") {
        Ok(CompileOutcome::Compiled { log, .. }) => assert!(log.trim().is_empty(), "{log}"),
        Ok(CompileOutcome::Skipped(why)) => {
            assert!(
                !accshare::runtime::require_devices(),
                "NVRTC required but unavailable: {why}"
            );
            eprintln!("skipped: NVRTC unavailable: {why}");
        }
        Ok(CompileOutcome::Failed(log)) => panic!("NVRTC rejected the kernel:\n{log}\n{cu}"),
        Err(e) => panic!("{e}"),
    }
}
