//! `run --device cuda:N` up to the launch, on a machine without a GPU: the CUDA kernels of
//! examples and corpus programs compile with NVRTC to PTX holding each kernel's `.entry` (what
//! `CudaLauncher` loads), and the launch plans of real replays (`runtime::cuda_run::plan_launch`
//! fed by the trace of the sequential program, the simulator running each launch meanwhile) have
//! the grid `back::host` computes for CUDA, the kernel's block, and one argument per kernel
//! parameter, in order, of the C type `back::cuda` prints in the kernel's signature.
//!
//! NVRTC is found through `LD_LIBRARY_PATH` (`.ci/test.sh`) or the directory
//! `.ci/nvrtc-libdir.sh` prints; without it the PTX test prints `SKIP: …` and passes, unless
//! `ACCSHARE_REQUIRE_DEVICES=1`.

mod exec_support;

use std::collections::BTreeMap;
use std::path::Path;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::front::ast::Scalar;
use accshare::kernel::{Launch, Module};
use accshare::runtime::cuda_run::{plan_launch, CudaArg, CudaLaunchPlan, CudaScalar};
use accshare::runtime::nvrtc::{self, CompileOutcome};
use accshare::sim::trace::{self, LaunchError, Launched, Launcher, SimLauncher};
use accshare::sim::{ArgValue, BufData, SimOptions, SimPlatform};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The program compiled for `--target cuda` with `defines`.
fn compile(file: &str, defines: &[(&str, &str)]) -> driver::Output {
    compile_with(file, defines, &driver::OptOptions::default())
}

fn compile_with(file: &str, defines: &[(&str, &str)], opt: &driver::OptOptions) -> driver::Output {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    driver::compile_with(&root().join(file), &opts, opt, &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{file}:\n{}", diag::render(&sources, &diags.0)))
}

#[test]
fn the_cuda_kernels_compile_to_ptx_with_each_kernels_entry() {
    exec_support::find_nvrtc();
    let programs = [
        "examples/mt.c",
        "examples/jacobi.c",
        "examples/gemm.c",
        "examples/saxpy_ptr.c",
        "examples/hotspot.c",
        "tests/corpus/reduce_sum_int.c",
        "tests/corpus/reduce_max_fmaxf.c",
        "tests/corpus/scalar_args_casts.c",
        "tests/corpus/atomic_histogram.c",
        "tests/corpus/threshold_u8.c",
        "tests/corpus/heat1d_double.c",
        "tests/corpus/atomic_minmax.c",
        "tests/corpus/subarray_start.c",
        "tests/corpus/reduce_grid_stride.c",
    ];
    for file in programs {
        let out = compile(file, &[]);
        assert!(!out.module.kernels.is_empty(), "{file}");
        match nvrtc::compile_cuda(&out.kernel_source, "compute_75") {
            Ok(CompileOutcome::Skipped(why)) => {
                exec_support::skip_or_fail(&format!("no NVRTC: {why}"));
                return;
            }
            Ok(CompileOutcome::Compiled { ptx, .. }) => {
                for k in &out.module.kernels {
                    assert!(
                        ptx.contains(&format!(".entry {}(", k.name)),
                        "{file}: no `.entry {}(` in the PTX",
                        k.name
                    );
                }
            }
            o => panic!("{file}: {o:?}\n{}", out.kernel_source),
        }
    }
    // The strict build `run` retries with (no fused multiply-adds) compiles too.
    let out = compile("examples/jacobi.c", &[]);
    match nvrtc::compile_cuda_with(&out.kernel_source, "compute_75", &["--fmad=false"]) {
        Ok(CompileOutcome::Compiled { ptx, .. }) => assert!(!ptx.contains("fma.rn.f32"), "{ptx}"),
        o => panic!("{o:?}"),
    }
}

/// Plans every launch it is given, then lets the simulator run it.
struct Planner<'a> {
    sim: SimLauncher<'a>,
    plans: Vec<(CudaLaunchPlan, [u64; 3], [u64; 3])>,
}

impl Launcher for Planner<'_> {
    fn name(&self) -> String {
        "planner".to_string()
    }

    fn launch(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let units = self.sim.platform.sms;
        let plan = plan_launch(m, launch, arrays, scalar, extent, units)?;
        // The blocks the grid needs, and those launched (fewer for a grid-stride kernel).
        let k = &m.kernels[launch.kernel];
        let needed: [u64; 3] =
            std::array::from_fn(|d| extent[d].div_ceil(u64::from(k.block[d].max(1))).max(1));
        let launched = launch.stride.map_or(needed, |s| s.launched(needed, units));
        self.plans.push((plan, extent, launched));
        self.sim.launch(m, launch, arrays, scalar, extent)
    }
}

/// The launch plans of every launch of the program's replay (sizes from `defines`), each
/// checked against the kernel and the CUDA source's signature.
fn plans(file: &str, defines: &[(&str, &str)], tag: &str) -> (driver::Output, Vec<CudaLaunchPlan>) {
    plans_with(file, defines, tag, &driver::OptOptions::default())
}

/// [`plans`] of the program compiled with `opt`.
fn plans_with(
    file: &str,
    defines: &[(&str, &str)],
    tag: &str,
    opt: &driver::OptOptions,
) -> (driver::Output, Vec<CudaLaunchPlan>) {
    let out = compile_with(file, defines, opt);
    let work =
        std::env::temp_dir().join(format!("accshare-cuda-plan-{}-{tag}", std::process::id()));
    let defs: Vec<(String, Option<String>)> = defines
        .iter()
        .map(|(a, b)| (a.to_string(), Some(b.to_string())))
        .collect();
    let trace = trace::build_and_trace(&root().join(file), &out.module, &defs, &[], &work)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let _ = std::fs::remove_dir_all(&work);
    let platform = SimPlatform::nvidia();
    let opts = SimOptions::default();
    let mut planner = Planner {
        sim: SimLauncher {
            platform: &platform,
            opts: &opts,
        },
        plans: Vec::new(),
    };
    let r = trace::replay_with(
        &out.module,
        &trace,
        Some(trace::Compare::Exact),
        &mut planner,
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(r.mismatches.is_empty(), "{file}: {:?}", r.mismatches);
    assert!(!planner.plans.is_empty(), "{file}: no launch");
    for (plan, extent, launched) in &planner.plans {
        check_plan(&out, plan, *extent, *launched);
    }
    (out, planner.plans.into_iter().map(|(p, _, _)| p).collect())
}

/// The parameter types of `kernel` as the CUDA source prints its signature.
fn printed_param_types(source: &str, kernel: &str) -> Vec<String> {
    let start = source
        .find(&format!("\n{kernel}("))
        .unwrap_or_else(|| panic!("no signature of {kernel}"))
        + kernel.len()
        + 2;
    let end = start + source[start..].find(')').expect("closing parenthesis");
    source[start..end]
        .split(',')
        .map(|p| {
            let p = p.trim();
            match p.find("*__restrict__ ") {
                Some(i) => p[..i + 1].to_string(),
                None => p[..p.rfind(' ').expect("a named parameter")].to_string(),
            }
        })
        .collect()
}

fn c_size(c_type: &str) -> usize {
    match c_type {
        "bool" | "char" | "signed char" | "unsigned char" => 1,
        "short" | "unsigned short" => 2,
        "int" | "unsigned int" | "float" => 4,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "double" => 8,
        t => panic!("unexpected scalar parameter type `{t}`"),
    }
}

fn check_plan(out: &driver::Output, plan: &CudaLaunchPlan, extent: [u64; 3], launched: [u64; 3]) {
    let k = out
        .module
        .kernels
        .iter()
        .find(|k| k.name == plan.function)
        .expect("the planned function is a kernel");
    let dims = usize::from(k.dims.clamp(1, 3));
    for (d, &e) in extent.iter().enumerate() {
        if d < dims {
            let b = k.block[d].max(1);
            assert_eq!(plan.block[d], b, "{}: block {d}", k.name);
            assert!(launched[d] <= e.div_ceil(u64::from(b)).max(1));
            assert_eq!(u64::from(plan.grid[d]), launched[d], "{}: grid {d}", k.name);
        } else {
            assert_eq!((plan.grid[d], plan.block[d]), (1, 1), "{}: dim {d}", k.name);
        }
    }
    assert_eq!(plan.shared_bytes, 0, "static __shared__ arrays only");
    let printed = printed_param_types(&out.kernel_source, &k.name);
    assert_eq!(plan.args.len(), printed.len(), "{}", k.name);
    for (i, (a, t)) in plan.args.iter().zip(&printed).enumerate() {
        match a {
            CudaArg::Scalar { c_type, value } => {
                assert_eq!(c_type, t, "{}: argument {i}", k.name);
                assert_eq!(value.size(), c_size(t), "{}: argument {i}", k.name);
            }
            CudaArg::Buffer {
                c_type,
                elem,
                data,
                len,
                ..
            } => {
                assert_eq!(c_type, t, "{}: argument {i}", k.name);
                assert!(t.ends_with('*'), "{}: argument {i}", k.name);
                assert_eq!(*len, data.len());
                assert_eq!(
                    data.to_le_bytes().len(),
                    len * elem.size() as usize,
                    "{}: argument {i}",
                    k.name
                );
            }
        }
    }
}

fn scalars(plan: &CudaLaunchPlan) -> Vec<(String, CudaScalar)> {
    plan.args
        .iter()
        .filter_map(|a| match a {
            CudaArg::Scalar { c_type, value } => Some((c_type.clone(), *value)),
            CudaArg::Buffer { .. } => None,
        })
        .collect()
}

fn buffers(plan: &CudaLaunchPlan) -> Vec<(String, usize, Option<String>)> {
    plan.args
        .iter()
        .filter_map(|a| match a {
            CudaArg::Buffer {
                c_type,
                len,
                write_back,
                ..
            } => Some((c_type.clone(), *len, write_back.clone())),
            CudaArg::Scalar { .. } => None,
        })
        .collect()
}

/// The transpose of a 40 x 24 matrix: a 2-D grid covering the 24 x 40 output.
#[test]
fn the_plan_of_mt_covers_the_output() {
    let (out, plans) = plans("examples/mt.c", &[("N", "40"), ("M", "24")], "mt");
    assert_eq!(plans.len(), 1);
    let p = &plans[0];
    let k = &out.module.kernels[0];
    assert_eq!(p.function, k.name);
    assert_eq!(k.dims, 2);
    // j (40 columns of `out`) is x, i (24 rows) is y.
    let b = [k.block[0], k.block[1]];
    assert_eq!(p.block, [b[0], b[1], 1]);
    assert_eq!(p.grid, [40u32.div_ceil(b[0]), 24u32.div_ceil(b[1]), 1]);
    let bufs = buffers(p);
    assert!(
        bufs.contains(&("float *".to_string(), 40 * 24, Some("out".to_string()))),
        "{bufs:?}"
    );
    assert!(
        bufs.contains(&("const float *".to_string(), 40 * 24, None)),
        "{bufs:?}"
    );
}

/// `mix(n, m, A, F, shift, scale, mask)`: `int`, `float` and `unsigned int` scalars with the
/// values the host passed, in the kernel's parameter order.
#[test]
fn the_plan_of_scalar_arguments_keeps_their_c_types() {
    let (_, plans) = plans(
        "tests/corpus/scalar_args_casts.c",
        &[("N", "13"), ("M", "9")],
        "scalars",
    );
    assert_eq!(plans.len(), 1);
    let s = scalars(&plans[0]);
    for want in [
        ("int".to_string(), CudaScalar::I32(3)),
        ("float".to_string(), CudaScalar::F32(0.75)),
        ("unsigned int".to_string(), CudaScalar::U32(5)),
    ] {
        assert!(s.contains(&want), "{want:?} in {s:?}");
    }
    // In the kernel's parameter order (`m`, `mask`, `n`, `scale`, `shift`: by name), which is
    // not the C function's.
    assert_eq!(
        s,
        [
            ("int".to_string(), CudaScalar::I32(9)),
            ("unsigned int".to_string(), CudaScalar::U32(5)),
            ("int".to_string(), CudaScalar::I32(13)),
            ("float".to_string(), CudaScalar::F32(0.75)),
            ("int".to_string(), CudaScalar::I32(3)),
        ]
    );
}

/// A grid of more blocks than a wave (`schedule::stride`, `--opt share`): one wave is launched (the
/// simulator's 80 SMs × the 8 blocks of 256 threads an `a100` SM holds), and the partials
/// follow the launched blocks.
#[test]
fn the_plan_of_a_large_reduction_launches_one_wave() {
    let (_, plans) = plans_with(
        "tests/corpus/reduce_sum_int.c",
        &[("N", "1000000")],
        "reduce-wave",
        &driver::OptOptions::share(),
    );
    assert_eq!(plans.len(), 1);
    let p = &plans[0];
    assert_eq!(p.grid, [80 * 8, 1, 1], "{p:?}");
    let (_, i) = &p.partials[0];
    match &p.args[*i] {
        CudaArg::Buffer { len, .. } => assert_eq!(*len, 640),
        a => panic!("{a:?}"),
    }
}

/// `reduction(+:sum)`: a partials buffer of one `int` per block, not written back to an array.
#[test]
fn the_plan_of_a_reduction_has_one_partial_per_block() {
    let (_, plans) = plans("tests/corpus/reduce_sum_int.c", &[("N", "1000")], "reduce");
    for p in &plans {
        assert_eq!(p.partials.len(), 1, "{p:?}");
        let (var, i) = &p.partials[0];
        assert_eq!(var, "sum");
        let blocks = p.grid.iter().map(|&g| g as usize).product::<usize>();
        assert!(blocks > 1, "{:?}", p.grid);
        match &p.args[*i] {
            CudaArg::Buffer {
                c_type,
                len,
                write_back,
                ..
            } => {
                assert_eq!(c_type, "int *");
                assert_eq!(*len, blocks);
                assert_eq!(*write_back, None);
            }
            a => panic!("{a:?}"),
        }
    }
}
