//! The commands that run kernels on devices: `run`, `bench` and `tune`.

use super::*;
use crate::runtime::measure::Device;

/// The devices `--devices` names: `all` (every OpenCL device, and every CUDA device when the
/// NVIDIA driver loads; an error when there is none), `none`, or a comma list of `opencl:N` and
/// `cuda:N`. A device that does not exist is a usage error (exit 2); a CUDA device on a machine
/// without the driver is not (exit 1, as `run --device cuda:N`).
fn bench_devices(spec: &str) -> Result<Vec<(Device, String)>, i32> {
    use crate::model::device::DeviceName;
    match spec.trim() {
        "none" => Ok(Vec::new()),
        "all" => crate::runtime::measure::all_devices().map_err(|why| {
            eprintln!(
                "error: `bench --devices all`: no device to measure on: {}",
                why
            );
            1
        }),
        list => {
            let mut out: Vec<(Device, String)> = Vec::new();
            for item in list.split(',').map(str::trim) {
                let device = match item.parse::<DeviceName>() {
                    Ok(n) => match Device::of(n) {
                        Some(d) => d,
                        None => {
                            eprintln!("error: `--devices sim`: the simulator's times are the model's estimates (`--platforms`); `--devices` takes `opencl:N` and `cuda:N`");
                            return Err(2);
                        }
                    },
                    Err(e) => {
                        eprintln!("error: `--devices`: {}", e);
                        return Err(2);
                    }
                };
                if out.iter().any(|(d, _)| *d == device) {
                    continue;
                }
                match device.facts() {
                    Ok(f) => out.push((device, format!("{} ({})", f.name, f.platform))),
                    Err(e) => {
                        eprintln!("error: `--devices`: {}: {}", device.name(), e);
                        return Err(e.exit_code());
                    }
                }
            }
            Ok(out)
        }
    }
}

/// The platforms `--platforms` names: `all` (every shipped description), `none`, or a comma
/// list of names or files.
fn bench_platforms(spec: &str) -> Result<Vec<crate::model::Platform>, i32> {
    let names: Vec<String> = match spec.trim() {
        "none" => Vec::new(),
        "all" => crate::model::platform::BUILTIN
            .iter()
            .map(|(n, _)| n.to_string())
            .collect(),
        list => list.split(',').map(|s| s.trim().to_string()).collect(),
    };
    names
        .iter()
        .map(|n| {
            PlatformArgs {
                platform: n.clone(),
            }
            .load()
        })
        .collect()
}

/// `bench`: every level of every kernel of every program, measured and estimated. Exit 1 when
/// a program does not compile or run, or a level failed or computed wrong results.
pub(super) fn bench(args: &BenchArgs) -> i32 {
    use crate::runtime::bench::{self, report};
    let platform = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let platforms = match bench_platforms(&args.platforms) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let devices = match bench_devices(&args.devices) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if devices.is_empty() && platforms.is_empty() {
        eprintln!("error: `--devices none --platforms none`: nothing to measure or estimate");
        return 2;
    }
    let opts = bench::BenchOptions {
        pp: args.input.pp_options(),
        platform: platform.clone(),
        devices: devices.iter().map(|(d, _)| *d).collect(),
        platforms: platforms.clone(),
        reps: args.reps as usize,
        sample: args.sample,
        work_dir: std::env::temp_dir().join(format!("accshare-bench-{}", std::process::id())),
    };
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut programs = Vec::new();
    let mut code = 0;
    for file in &args.files {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let r = bench::bench_file(file, &opts, &mut sources, &mut diags, &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.what.to_string());
        });
        bar.suspend(|| code = code.max(finish(&sources, &diags)));
        match r {
            Ok(p) => programs.push(p),
            Err(bench::BenchError::Compile) => code = code.max(1),
            Err(bench::BenchError::Run(e)) => {
                bar.suspend(|| eprintln!("error: {}: {}", file.display(), e));
                code = code.max(1);
            }
        }
    }
    bar.finish_and_clear();
    let r = bench::BenchReport {
        version: 1,
        compiled_for: platform.name.clone(),
        reps: args.reps as usize,
        devices: devices
            .iter()
            .map(|(d, name)| bench::DeviceInfo {
                device: d.name(),
                name: name.clone(),
            })
            .collect(),
        platforms: platforms.iter().map(|p| p.name.clone()).collect(),
        programs,
    };
    match args.format {
        BenchFormat::Table if r.programs.is_empty() => {}
        BenchFormat::Table => print!("{}", report::table(&r)),
        BenchFormat::Csv => print!("{}", report::csv(&r)),
        BenchFormat::Json => println!("{}", report::json(&r)),
    }
    if let Some(path) = &args.plot {
        if let Err(e) = bench::plot::svg(&r, path) {
            eprintln!("error: `--plot`: {}", e);
            code = code.max(1);
        }
    }
    let failures = report::failures(&r);
    for f in &failures {
        eprintln!("error: {}", f);
    }
    if failures.is_empty() {
        code
    } else {
        1
    }
}

/// `run`: every region instance of the program replayed on the simulator, an OpenCL device or
/// a CUDA device, and compared with the sequential program.
pub(super) fn run_regions(args: &RunArgs) -> i32 {
    use crate::model::device::DeviceName;
    let tuned = match args.tuned.load(&args.platform.platform) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let device = match args.device.parse::<DeviceName>() {
        Ok(DeviceName::Sim) => {
            return simulate(
                (&args.file, &args.link),
                &args.input,
                &args.platform,
                args.opts,
                None,
                None,
                args.reassociate,
                &tuned,
            )
        }
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: `--device`: {}", e);
            return 2;
        }
    };
    let loaded = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let pp = args.input.pp_options();
    let cuda = matches!(device, DeviceName::Cuda(_));
    let opts = driver::Options {
        target: if cuda {
            crate::back::Target::Cuda
        } else {
            crate::back::Target::OpenCl
        },
        pp: pp.clone(),
    };
    let oo = args.opts.options(Some(loaded));
    let staging = crate::schedule::stage::StageOptions {
        reassociate: args.reassociate,
        ..Default::default()
    };
    let out = driver::compile_staged(
        &args.file,
        &opts,
        &oo,
        &staging,
        &tuned,
        &mut sources,
        &mut diags,
    );
    let code = finish(&sources, &diags);
    let Some(out) = out else { return code.max(1) };
    // The kernels on the device; `strict`: without contracting `a * b + c` into fused
    // multiply-adds (`#pragma OPENCL FP_CONTRACT OFF`, NVRTC's `--fmad=false`).
    let open = |strict: bool| -> Result<Box<dyn crate::sim::trace::Launcher>, String> {
        match device {
            DeviceName::Cuda(n) => {
                let extra: &[&str] = if strict { &["--fmad=false"] } else { &[] };
                crate::runtime::cuda_run::CudaLauncher::new(n, &out.kernel_source, extra)
                    .map(|l| Box::new(l) as Box<dyn crate::sim::trace::Launcher>)
                    .map_err(|e| e.to_string())
            }
            DeviceName::Sim => Err("the simulator runs no kernel source".to_string()),
            DeviceName::OpenCl(n) => {
                let src = if strict {
                    format!("#pragma OPENCL FP_CONTRACT OFF\n{}", out.kernel_source)
                } else {
                    out.kernel_source.clone()
                };
                crate::runtime::run::OpenClLauncher::new(n, &src)
                    .map(|l| Box::new(l) as Box<dyn crate::sim::trace::Launcher>)
                    .map_err(|e| e.to_string())
            }
        }
    };
    let mut launcher = match open(false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}: {}", device, e);
            return 1;
        }
    };
    let work = std::env::temp_dir().join(format!("accshare-run-{}", std::process::id()));
    let result = crate::sim::trace::build_and_trace_variants(
        &args.file,
        &[&out.module],
        &pp.defines,
        &pp.include_dirs,
        &args.link,
        &work,
    )
    .and_then(|trace| {
        // Floating-point outputs within a relative 1e-5: OpenCL and CUDA let a device fuse
        // `a * b + c`.
        let compare = Some(crate::sim::trace::Compare::Relative(1e-5));
        let r = crate::sim::trace::replay_with(&out.module, &trace, compare, &mut *launcher)?;
        // Differences beyond that, in stencils with cancellation, can still be the rounding of
        // fused multiply-adds: the same kernels built without contraction (the arithmetic of
        // the traced sequential program) tell them apart from wrong results.
        let fma_only = !r.mismatches.is_empty()
            && open(true)
                .ok()
                .and_then(|mut strict| {
                    crate::sim::trace::replay_with(&out.module, &trace, compare, &mut *strict).ok()
                })
                .is_some_and(|s| s.mismatches.is_empty());
        Ok((r, fma_only))
    });
    let _ = std::fs::remove_dir_all(&work);
    let (replay, fma_only) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", e);
            return 1;
        }
    };
    let name = device.to_string();
    for a in &replay.aliased {
        eprintln!("note: {}", a);
    }
    print!("{}", device_run_text(&out.module, &replay, &name, fma_only));
    if replay.mismatches.is_empty() {
        0
    } else if fma_only {
        for m in &replay.mismatches {
            eprintln!("warning: {}", m);
        }
        if cuda {
            eprintln!("note: compiled with NVRTC's `--fmad=false` every output is equal to the sequential program's: the differences are the rounding of fused multiply-adds, which CUDA allows");
        } else {
            eprintln!("note: built with `#pragma OPENCL FP_CONTRACT OFF` every output is equal to the sequential program's: the differences are the rounding of fused multiply-adds, which OpenCL allows");
        }
        0
    } else {
        for m in &replay.mismatches {
            eprintln!("error: {}", m);
        }
        1
    }
}

/// The kernel times of a device run: launches and event-timed seconds per kernel.
fn device_run_text(
    m: &crate::kernel::Module,
    r: &crate::sim::trace::Replay,
    device: &str,
    fma_only: bool,
) -> String {
    let mut out = format!(
        "{}: {} region instance(s){}, {} launch(es), {}\n",
        device,
        r.instances,
        match r.aliased.len() {
            0 => String::new(),
            n => format!(" ({} not compared: aliased arrays)", n),
        },
        r.kernel_seconds.len(),
        if r.mismatches.is_empty() {
            "every output equal to the sequential program's (floating point within a relative 1e-5)"
        } else if fma_only {
            "outputs equal to the sequential program's up to the rounding of fused multiply-adds"
        } else {
            "OUTPUTS DIFFER from the sequential program's"
        }
    );
    for (ki, k) in m.kernels.iter().enumerate() {
        let times: Vec<f64> = r
            .kernel_seconds
            .iter()
            .filter(|(i, _)| *i == ki)
            .map(|(_, t)| *t)
            .collect();
        if times.is_empty() {
            continue;
        }
        let total: f64 = times.iter().sum();
        out.push_str(&format!(
            "  {}: {} launch(es), {:.3} ms in the kernel (event-timed)\n",
            k.name,
            times.len(),
            total * 1e3
        ));
    }
    out
}

/// `tune`: measures every kernel's variants on the device, prints them, records the fastest
/// in the tune cache. Exit 1 when the program does not compile or run, or a variant computed
/// wrong results (a bug of accshare, reported).
pub(super) fn tune(args: &TuneArgs) -> i32 {
    use crate::model::device::DeviceName;
    use crate::runtime::tune::{self, cache};
    let device = match args.device.parse::<DeviceName>().map(Device::of) {
        Ok(Some(d)) => d,
        Ok(None) => {
            eprintln!(
                "error: `--device {}`: accshare tunes on devices (`opencl:N`, `cuda:N`): the simulator's times are the model's estimates",
                args.device
            );
            return 2;
        }
        Err(e) => {
            eprintln!("error: `--device`: {}", e);
            return 2;
        }
    };
    if !(args.budget.is_finite() && args.budget >= 0.0) {
        eprintln!(
            "error: `--budget {}`: expected a number of seconds",
            args.budget
        );
        return 2;
    }
    // The device first: a CUDA device on a machine without the driver is refused as `run
    // --device cuda:N` refuses it (exit 1).
    if let Err(e) = device.facts() {
        eprintln!("error: {}: {}", device.name(), e);
        return e.exit_code();
    }
    let platform = match (&args.platform, device) {
        (Some(name), _) => PlatformArgs {
            platform: name.clone(),
        }
        .load(),
        (None, Device::OpenCl(n)) => PlatformArgs {
            platform: format!("opencl:{}", n),
        }
        .load(),
        (None, Device::Cuda(_)) => device.description().map_err(|e| {
            eprintln!("error: {}: {}", device.name(), e);
            1
        }),
    };
    let platform = match platform {
        Ok(p) => p,
        Err(code) => return code,
    };
    let opts = tune::TuneOptions {
        pp: args.input.pp_options(),
        platform,
        budget: std::time::Duration::from_secs_f64(args.budget),
        reps: args.reps as usize,
        work_dir: std::env::temp_dir().join(format!("accshare-tune-{}", std::process::id())),
    };
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} variants {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let report = tune::tune(
        &args.file,
        device,
        &opts,
        &mut sources,
        &mut diags,
        &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.what.to_string());
        },
    );
    bar.finish_and_clear();
    let code = finish(&sources, &diags);
    let report = match report {
        Ok(r) => r,
        Err(tune::TuneError::Compile) => return code.max(1),
        Err(tune::TuneError::Run(e)) => {
            eprintln!("error: {}", e);
            return 1;
        }
    };
    print!("{}", tune::text(&report, &args.file));
    let file = args.file.display().to_string();
    let entries: Vec<_> = report
        .kernels
        .iter()
        .filter_map(|k| k.entry(&file))
        .collect();
    let wrong = report.kernels.iter().any(|k| {
        k.trials
            .iter()
            .any(|t| matches!(t.outcome, tune::Outcome::Wrong(_)))
    });
    if !args.dry_run && !entries.is_empty() {
        let Some(path) = cache::path() else {
            eprintln!("error: no cache directory: set ACCSHARE_CACHE_DIR, XDG_CACHE_HOME or HOME");
            return 1;
        };
        let mut c = match cache::load(&path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "warning: the tune cache is unreadable and is replaced: {}",
                    e
                );
                cache::CacheFile::default()
            }
        };
        let n = entries.len();
        c.record(&report.device, entries);
        if let Err(e) = cache::save(&path, &c) {
            eprintln!("error: {}", e);
            return 1;
        }
        println!("accshare: {} kernel(s) recorded in {}", n, path.display());
    }
    if wrong {
        eprintln!("error: a variant computed results different from the sequential program's (a bug of accshare; it was not chosen)");
        1
    } else {
        code
    }
}
