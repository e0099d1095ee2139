//! `accshare bench`: what each optimization gives, kernel by kernel, measured on devices and
//! estimated by the model.
//!
//! A program is compiled at four cumulative **levels** ([`Level`]): the baseline (`--opt
//! naive`), staged in shared memory with one row per work-item and no padding (`+share`), the
//! same with the rows padded against bank conflicts as the compiler chooses (`+bank`), and the
//! default compilation, with the rows per work-item it chooses (`+ILP`). The sequential program
//! is run once, instrumented to record the launches of every level
//! (`sim::trace::build_and_trace_variants`); then
//!
//! - on each device (`opencl:N`, or `cuda:N` with the kernels printed as CUDA and compiled by
//!   NVRTC: [`super::measure::Device`]), each kernel of each level is verified against the
//!   sequential program and timed from the program's own data by the tuner's measurement
//!   ([`super::tune::prepare_kernel`]: a replay without floating-point contraction compared with
//!   the sequential results, a warm-up), then timed: `reps` rounds of one event-timed replay of
//!   each level in turn, the median per level, so that the levels' ratios are measured side by
//!   side even when the machine's speed drifts during the run. A level whose
//!   kernel is the same as the previous level's is not measured again (`same_as`). A level that
//!   differs from the sequential program is a failed row, never a time;
//! - on each platform description, each level is compiled for that platform and replayed on the
//!   simulator, and the time is the *model estimate* `accshare analyze` prints (`docs/model.md`)
//!   (`sim::analyze`, `KernelReport::estimate_us`);
//! - a kernel is **memory-bound** on a device when moving its compulsory bytes (every input read
//!   once, every output written once, as the simulator counts them on the device's own
//!   description) at the device's measured copy speed takes longer than its floating-point
//!   operations at the device's peak: its arithmetic intensity (flops per compulsory byte) is
//!   below the ridge point of a roofline whose bandwidth is the measured copy bandwidth. For
//!   those, every level is also reported as a fraction of the copy: `copy_time / kernel_time`,
//!   the copy kernel (`out[i] = in[i]`, [`super::measure::CopyTimer`]: OpenCL's or CUDA's,
//!   timed in the same rounds as the levels) moving the same bytes on the same device. On a platform description the same
//!   test uses the description's bandwidth and peak.

pub mod plot;
pub mod report;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::back::Target;
use crate::diag::{Diags, SourceMap};
use crate::driver::{self, OptLevel, OptOptions, ShapeRequest};
use crate::front::preprocess::PpOptions;
use crate::kernel::Module;
use crate::model::Platform;
use crate::schedule::stage::StageOptions;
use crate::sim::trace::{self, Select, SimLauncher};
use crate::sim::{SimOptions, SimPlatform};

use super::measure::Device;
use super::tune::{self, Outcome};

/// One level of optimization; each includes the ones before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Level {
    /// `--opt naive`: every array in global memory.
    #[serde(rename = "naive")]
    Naive,
    /// Staged in shared memory, one row per work-item, tile rows not padded.
    #[serde(rename = "+share")]
    Share,
    /// `+share` with the rows padded against bank conflicts as the compiler chooses.
    #[serde(rename = "+bank")]
    Bank,
    /// The default compilation: `+bank` with the rows per work-item the compiler chooses.
    #[serde(rename = "+ILP")]
    Ilp,
}

impl Level {
    pub const ALL: [Level; 4] = [Level::Naive, Level::Share, Level::Bank, Level::Ilp];

    pub fn label(self) -> &'static str {
        match self {
            Level::Naive => "naive",
            Level::Share => "+share",
            Level::Bank => "+bank",
            Level::Ilp => "+ILP",
        }
    }

    /// The compilation of this level for `platform`.
    pub fn options(self, platform: &Platform) -> (OptOptions, StageOptions) {
        // One output per work-item below +ILP (rows and columns).
        let one = ShapeRequest::tile(1, 1);
        let (opt, shape, bank_padding) = match self {
            Level::Naive => (OptLevel::Naive, ShapeRequest::default(), true),
            Level::Share => (OptLevel::Share, one, false),
            Level::Bank => (OptLevel::Share, one, true),
            Level::Ilp => (OptLevel::Share, ShapeRequest::default(), true),
        };
        (
            OptOptions {
                opt,
                platform: Some(platform.clone()),
                shape,
                words: None,
            },
            // The paper's "+bank" step avoids bank and channel conflicts (§3.3.1): the block
            // order comes with the padding.
            StageOptions {
                bank_padding,
                block_order: bank_padding,
                ..Default::default()
            },
        )
    }
}

/// What `bench` is asked to do for each program.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub pp: PpOptions,
    /// The platform the partition engine sizes the measured kernels for.
    pub platform: Platform,
    /// The devices to measure on.
    pub devices: Vec<Device>,
    /// The platform descriptions to estimate on.
    pub platforms: Vec<Platform>,
    /// Timed replays per level (after a warm-up); the median is kept.
    pub reps: usize,
    /// Simulate only this many blocks per launch for the estimates (`analyze --sample`).
    pub sample: Option<usize>,
    /// Where the traced program is built (removed afterwards).
    pub work_dir: PathBuf,
}

/// How a level's measurement or estimate ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified against the sequential program (measurements) and timed, or estimated.
    Ok,
    /// Its outputs differ from the sequential program's (a bug of accshare).
    Wrong,
    /// It did not compile, build or run.
    Failed,
}

/// One level of one kernel on one device.
#[derive(Clone, Debug, Serialize)]
pub struct LevelTime {
    pub level: Level,
    pub status: Status,
    /// Median kernel seconds per program run (its launches summed); `None` unless `ok`.
    pub seconds: Option<f64>,
    /// Naive's time over this one.
    pub speedup: Option<f64>,
    /// The kernel is the same as this earlier level's: its measurement is reused.
    pub same_as: Option<Level>,
    /// `copy_seconds / seconds`, for memory-bound kernels.
    pub copy_fraction: Option<f64>,
    /// Why it is not `ok`.
    pub error: Option<String>,
}

/// The arithmetic intensity of a kernel against a roofline's ridge point.
#[derive(Clone, Debug, Serialize)]
pub struct Roofline {
    /// Floating-point operations per program run (the simulator's count).
    pub flops: u64,
    /// Bytes every input read once and every output written once take (compulsory sectors
    /// times the sector size).
    pub compulsory_bytes: u64,
    /// flops / compulsory bytes.
    pub intensity: f64,
    /// Peak flops over bandwidth (flop per byte); `None` when the bandwidth is unknown.
    pub ridge: Option<f64>,
    /// `intensity < ridge`.
    pub memory_bound: bool,
}

impl Roofline {
    /// `bandwidth` in bytes per second, `peak` in flop per second.
    fn new(flops: u64, compulsory_bytes: u64, peak: f64, bandwidth: f64) -> Roofline {
        let intensity = flops as f64 / compulsory_bytes.max(1) as f64;
        let ridge = (bandwidth > 0.0 && peak > 0.0).then(|| peak / bandwidth);
        Roofline {
            flops,
            compulsory_bytes,
            intensity,
            ridge,
            memory_bound: ridge.is_some_and(|r| intensity < r),
        }
    }
}

/// A kernel measured on one device.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// `opencl:N` or `cuda:N`.
    pub device: String,
    pub levels: Vec<LevelTime>,
    /// The copy kernel moving the kernel's compulsory bytes on this device, median seconds.
    pub copy_seconds: Option<f64>,
    /// Against the device's peak (its description) and measured copy bandwidth.
    pub roofline: Option<Roofline>,
}

/// One level of one kernel as the model estimates it.
#[derive(Clone, Debug, Serialize)]
pub struct LevelEstimate {
    pub level: Level,
    pub status: Status,
    /// The model estimate (`accshare analyze`, `docs/model.md`), seconds.
    pub seconds: Option<f64>,
    pub speedup: Option<f64>,
    /// What the simulator counted for this level (what each technique changes).
    pub counts: Option<SimCounts>,
    pub error: Option<String>,
}

/// The simulator's counts of one level of one kernel on a platform description, summed over
/// its launches (`accshare analyze` prints the same per kernel).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimCounts {
    /// Shared-memory wavefronts (a conflict-free warp access takes one per phase).
    pub shared_wavefronts: u64,
    /// Largest bank-conflict degree of a shared access (0 without shared accesses).
    pub bank_max: u32,
    /// Global-memory transactions (sectors).
    pub global_transactions: u64,
    /// The first wave's busiest memory channel over the mean (platforms with `[channels]`).
    pub channel_imbalance: Option<f64>,
}

impl SimCounts {
    fn of(k: &crate::sim::KernelReport) -> SimCounts {
        SimCounts {
            shared_wavefronts: k.shared_wavefronts,
            bank_max: k.bank_max,
            global_transactions: k.global_transactions,
            channel_imbalance: k.channels.as_ref().map(|c| c.imbalance()),
        }
    }
}

/// A kernel estimated on one platform description.
#[derive(Clone, Debug, Serialize)]
pub struct Modelled {
    pub platform: String,
    pub levels: Vec<LevelEstimate>,
    /// The naive level against the description's bandwidth and peak.
    pub roofline: Option<Roofline>,
}

/// One kernel of a program.
#[derive(Clone, Debug, Serialize)]
pub struct KernelBench {
    pub kernel: String,
    /// `file:line:col` of its compute construct.
    pub origin: String,
    pub measured: Vec<Measured>,
    pub model: Vec<Modelled>,
}

/// One program.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramBench {
    pub file: String,
    pub kernels: Vec<KernelBench>,
}

impl ProgramBench {
    /// True when every level of every kernel was verified and timed (or estimated).
    pub fn all_ok(&self) -> bool {
        self.kernels.iter().all(|k| {
            k.measured
                .iter()
                .all(|m| m.levels.iter().all(|l| l.status == Status::Ok))
                && k.model
                    .iter()
                    .all(|m| m.levels.iter().all(|l| l.status == Status::Ok))
        })
    }
}

/// Why a program cannot be benchmarked.
#[derive(Clone, Debug)]
pub enum BenchError {
    /// It does not compile (the diagnostics are in the caller's `Diags`).
    Compile,
    /// The traced program failed.
    Run(String),
}

/// Progress of a run: `total` steps, `done` so far, what is being done.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub what: &'a str,
}

/// Compiles `file` at `level` for `platform` (OpenCL; a CUDA device prints the same module as
/// CUDA, [`Device::source`]). `None` when it does not compile (the diagnostics are in
/// `diags`).
pub fn compile_level(
    file: &Path,
    pp: &PpOptions,
    level: Level,
    platform: &Platform,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<driver::Output> {
    let (oo, staging) = level.options(platform);
    let s = driver::schedule_with(
        file,
        pp,
        &oo,
        &staging,
        &crate::partition::Options::default(),
        sources,
        diags,
    )?;
    let dopts = driver::Options {
        target: Target::OpenCl,
        pp: pp.clone(),
    };
    driver::lower(&s, &s.schedules, &dopts, sources, diags)
}

/// Kernel `name` of a module.
fn find_kernel<'m>(m: &'m Module, name: &str) -> Option<&'m crate::kernel::Kernel> {
    m.kernels.iter().find(|k| k.name == name)
}

/// Benchmarks one program; see the module's documentation. Its diagnostics (those of the
/// default compilation for `opts.platform`) go to `diags`.
pub fn bench_file(
    file: &Path,
    opts: &BenchOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
    progress: &mut dyn FnMut(Progress),
) -> Result<ProgramBench, BenchError> {
    let (outputs, estimated) = compile_levels(file, opts, sources, diags)?;

    // The kernels, as the naive compilation names them.
    let kernels: Vec<(String, String)> = outputs[0]
        .module
        .kernels
        .iter()
        .zip(&outputs[0].kernel_sources)
        .map(|(k, (span, _))| (k.name.clone(), sources.location(*span)))
        .collect();

    // One run of the sequential program records the launches of every compilation: the
    // measured levels are variants 0..4, platform `p`'s levels 4 + 4p ...
    let mut modules: Vec<&Module> = outputs.iter().map(|o| &o.module).collect();
    for levels in &estimated {
        modules.extend(levels.iter().map(|o| &o.module));
    }
    let mut steps = Steps {
        done: 0,
        total: opts.devices.len() * (1 + Level::ALL.len() * kernels.len())
            + opts.platforms.len() * Level::ALL.len()
            + 1,
        progress,
    };
    steps.step(&format!("{}: tracing the program", file.display()));
    let traced = trace::build_and_trace_variants(
        file,
        &modules,
        &opts.pp.defines,
        &opts.pp.include_dirs,
        &[],
        &opts.work_dir,
    );
    let _ = std::fs::remove_dir_all(&opts.work_dir);
    let trace = traced.map_err(|e| BenchError::Run(e.to_string()))?;

    let mut out: Vec<KernelBench> = kernels
        .iter()
        .map(|(name, origin)| KernelBench {
            kernel: name.clone(),
            origin: origin.clone(),
            measured: Vec::new(),
            model: Vec::new(),
        })
        .collect();

    let ctx = Ctx {
        file,
        opts,
        trace: &trace,
        sim_opts: SimOptions {
            sample_blocks: opts.sample,
            ..Default::default()
        },
    };

    // The model's estimates.
    for (pi, (p, levels)) in opts.platforms.iter().zip(&estimated).enumerate() {
        let plat = SimPlatform::from_platform(p);
        let reports = ctx.estimate(p, pi, levels, &plat, &mut steps);
        for k in &mut out {
            k.model.push(modelled(&k.kernel, &p.name, &reports, &plat));
        }
    }

    // The measurements.
    for &device in &opts.devices {
        let measured = ctx.measure_device(device, &outputs, &kernels, &mut steps);
        for (k, m) in out.iter_mut().zip(measured) {
            k.measured.push(m);
        }
    }
    steps.finish();
    Ok(ProgramBench {
        file: file.display().to_string(),
        kernels: out,
    })
}

/// Compiles `file` at every level: for `opts.platform` (naive, +share, +bank, then the default
/// compilation, whose diagnostics go to `diags`), and for each of `opts.platforms`.
#[allow(clippy::type_complexity)]
fn compile_levels(
    file: &Path,
    opts: &BenchOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Result<(Vec<driver::Output>, Vec<Vec<driver::Output>>), BenchError> {
    // The default compilation reports its diagnostics; the others would repeat them.
    let mut compile = |level: Level, platform: &Platform, report: bool| {
        let mut scratch = Diags::new();
        let d = if report { &mut *diags } else { &mut scratch };
        let out = compile_level(file, &opts.pp, level, platform, sources, d);
        if out.is_none() && !report {
            diags.0.extend(scratch.0);
        }
        out
    };
    let mut outputs: Vec<driver::Output> = Vec::new();
    let default = compile(Level::Ilp, &opts.platform, true).ok_or(BenchError::Compile)?;
    for level in [Level::Naive, Level::Share, Level::Bank] {
        outputs.push(compile(level, &opts.platform, false).ok_or(BenchError::Compile)?);
    }
    outputs.push(default);
    let mut estimated: Vec<Vec<driver::Output>> = Vec::new();
    for p in &opts.platforms {
        let mut levels = Vec::new();
        for level in Level::ALL {
            levels.push(compile(level, p, false).ok_or(BenchError::Compile)?);
        }
        estimated.push(levels);
    }
    Ok((outputs, estimated))
}

/// The steps of one program's benchmark, each reported to `progress` as it starts.
struct Steps<'p> {
    done: usize,
    total: usize,
    progress: &'p mut dyn FnMut(Progress),
}

impl Steps<'_> {
    /// Reports that step `what` starts.
    fn step(&mut self, what: &str) {
        (self.progress)(Progress {
            done: self.done,
            total: self.total,
            what,
        });
        self.done += 1;
    }

    /// Reports that every step is done.
    fn finish(&mut self) {
        (self.progress)(Progress {
            done: self.total,
            total: self.total,
            what: "",
        });
    }
}

/// What the estimates and measurements of one program read: the program, the options, the
/// trace of every compilation's launches and the simulator's options.
struct Ctx<'a> {
    file: &'a Path,
    opts: &'a BenchOptions,
    trace: &'a [u8],
    sim_opts: SimOptions,
}

impl Ctx<'_> {
    /// The simulator's reports of each level compiled for platform `p` (the `pi`-th of
    /// `opts.platforms`; its levels are the trace's variants 4 + 4 `pi` ...).
    fn estimate(
        &self,
        p: &Platform,
        pi: usize,
        levels: &[driver::Output],
        plat: &SimPlatform,
        steps: &mut Steps,
    ) -> Vec<Result<crate::sim::Report, String>> {
        let mut reports = Vec::new();
        for (li, o) in levels.iter().enumerate() {
            steps.step(&format!(
                "{}: {} on {} (model)",
                self.file.display(),
                Level::ALL[li].label(),
                p.name
            ));
            reports.push(simulate(
                &o.module,
                self.trace,
                4 + 4 * pi + li,
                plat,
                &self.sim_opts,
            ));
        }
        reports
    }

    /// Each kernel's measurements on `device`, at every level (`outputs`), with the copy
    /// kernel of its compulsory bytes.
    fn measure_device(
        &self,
        device: Device,
        outputs: &[driver::Output],
        kernels: &[(String, String)],
        steps: &mut Steps,
    ) -> Vec<Measured> {
        let name = device.name();
        steps.step(&format!(
            "{}: compulsory traffic on {}",
            self.file.display(),
            name
        ));
        // The compulsory traffic and the flops, on the device's own description.
        let described = device.description().map(|p| SimPlatform::from_platform(&p));
        let traffic = described.and_then(|plat| {
            simulate(&outputs[0].module, self.trace, 0, &plat, &self.sim_opts).map(|r| (plat, r))
        });
        let mut launch = |source: &str, strict: bool| device.launcher(source, strict);
        // Each level's kernels in the device's language.
        let level_sources: Vec<_> = outputs
            .iter()
            .map(|o| device.source(&o.module, &o.kernel_source))
            .collect();
        device.prebuild(&level_sources.iter().map(|s| s.as_ref()).collect::<Vec<_>>());
        let mut measured = Vec::new();
        for (kname, _) in kernels {
            // Each level that generates a kernel of its own is verified and built first; the
            // timed replays then go round the levels (naive, +share, … , naive, …), so that a
            // drift of the machine's speed during the run (other work on a shared host, clock
            // changes) falls on every level alike instead of on the level measured last.
            let (mut levels, mut timed) =
                self.prepare_levels(&name, kname, outputs, &level_sources, &mut launch, steps);
            // The copy kernel of the kernel's compulsory bytes, timed in the same rounds: the
            // yardstick of a memory-bound kernel's fraction of the copy bandwidth.
            let bytes = traffic.as_ref().ok().and_then(|(plat, rep)| {
                let x = rep.kernels.iter().find(|x| x.kernel == *kname)?;
                Some(x.compulsory_transactions * u64::from(plat.sector))
            });
            let mut copy = bytes.and_then(|b| device.copy_timer(b).ok());
            let copy_times = time_rounds(self.opts.reps, &mut copy, &mut timed, &mut levels);
            share_results(&mut levels);
            let copied = copy.map(|_| tune::median(copy_times));
            let (copy_seconds, roofline) = match (&traffic, copied) {
                (Ok((plat, rep)), Some(c)) => copy_bound(kname, plat, rep, c, &mut levels),
                _ => (None, None),
            };
            measured.push(Measured {
                device: name.clone(),
                levels,
                copy_seconds,
                roofline,
            });
        }
        measured
    }

    /// Kernel `kname` at every level on device `device` (its name): a level whose kernel is
    /// the same as an earlier level's reuses it (`same_as`); the others are verified and
    /// built, ready to be timed (or failed).
    #[allow(clippy::type_complexity)]
    fn prepare_levels<'m, 'l>(
        &'m self,
        device: &str,
        kname: &'m str,
        outputs: &'m [driver::Output],
        level_sources: &[std::borrow::Cow<str>],
        launch: &mut tune::MakeLauncher<'l>,
        steps: &mut Steps,
    ) -> (Vec<LevelTime>, Vec<(usize, tune::Prepared<'m, 'l>)>) {
        let mut levels: Vec<LevelTime> = Vec::new();
        let mut timed = Vec::new();
        for (li, level) in Level::ALL.into_iter().enumerate() {
            steps.step(&format!(
                "{}: {} {} on {}",
                self.file.display(),
                kname,
                level.label(),
                device
            ));
            let m = &outputs[li].module;
            let same = (0..li).rev().find(|&j| {
                find_kernel(&outputs[j].module, kname) == find_kernel(m, kname)
                    && find_kernel(m, kname).is_some()
            });
            let mut lt = LevelTime {
                level,
                status: Status::Ok,
                seconds: None,
                speedup: None,
                same_as: None,
                copy_fraction: None,
                error: None,
            };
            if let Some(j) = same {
                lt.same_as = Some(levels[j].same_as.unwrap_or(Level::ALL[j]));
            } else {
                let prepared = tune::prepare_kernel(
                    m,
                    &level_sources[li],
                    kname,
                    li,
                    self.trace,
                    true,
                    launch,
                );
                match prepared {
                    Ok(p) => timed.push((li, p)),
                    Err(o) => lt.record(Err(o)),
                }
            }
            levels.push(lt);
        }
        (levels, timed)
    }
}

/// `reps` rounds (at least one) of one timed replay of the copy kernel (dropped when it fails)
/// and of each prepared level in turn (dropped, its failure recorded, when it fails). Records
/// each level's median in `levels`; gives the copy's times.
fn time_rounds(
    reps: usize,
    copy: &mut Option<super::measure::CopyTimer>,
    timed: &mut Vec<(usize, tune::Prepared)>,
    levels: &mut [LevelTime],
) -> Vec<f64> {
    let mut copy_times = Vec::new();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); levels.len()];
    for _ in 0..reps.max(1) {
        if let Some(c) = copy {
            match c.time() {
                Ok(t) => copy_times.push(t),
                Err(_) => *copy = None,
            }
        }
        let mut failed = Vec::new();
        for (k, (li, p)) in timed.iter_mut().enumerate() {
            match p.time() {
                Ok(t) => times[*li].push(t),
                Err(o) => {
                    levels[*li].record(Err(o));
                    failed.push(k);
                }
            }
        }
        for k in failed.into_iter().rev() {
            timed.remove(k);
        }
    }
    for (li, _) in timed.iter() {
        levels[*li].record(Ok(tune::median(std::mem::take(&mut times[*li]))));
    }
    copy_times
}

/// Gives each level that reuses an earlier level's kernel (`same_as`) that level's result,
/// then every level its speed-up over naive.
fn share_results(levels: &mut [LevelTime]) {
    for li in 0..levels.len() {
        if let Some(j) = levels[li]
            .same_as
            .and_then(|l| Level::ALL.iter().position(|&x| x == l))
        {
            let (status, seconds, error) = (
                levels[j].status.clone(),
                levels[j].seconds,
                levels[j].error.clone(),
            );
            let lt = &mut levels[li];
            (lt.status, lt.seconds, lt.error) = (status, seconds, error);
        }
    }
    let naive = levels[0].seconds;
    for l in levels.iter_mut() {
        l.speedup = ratio(naive, l.seconds);
    }
}

/// `a / b` when both are known and `b` is positive.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Variant `variant` of the trace replayed on the simulator for `platform`, and the memory
/// model's report of it (what `accshare analyze` prints).
fn simulate(
    m: &Module,
    trace: &[u8],
    variant: usize,
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<crate::sim::Report, String> {
    let select = Select {
        variant,
        ..Default::default()
    };
    let mut launcher = SimLauncher { platform, opts };
    let rep =
        trace::replay_select(m, trace, None, &select, &mut launcher).map_err(|e| e.to_string())?;
    Ok(crate::sim::analyze(&rep.runs, platform))
}

/// Kernel `kernel`'s estimates on platform `platform` from the simulator's reports of each level
/// (`reports[i]` for `Level::ALL[i]`), with speed-ups over naive and its roofline.
fn modelled(
    kernel: &str,
    platform: &str,
    reports: &[Result<crate::sim::Report, String>],
    plat: &SimPlatform,
) -> Modelled {
    let mut levels = Vec::new();
    for (li, r) in reports.iter().enumerate() {
        let level = Level::ALL[li];
        let est = match r {
            Ok(rep) => match rep.kernels.iter().find(|x| x.kernel == kernel) {
                Some(x) => Ok((x.estimate_us * 1e-6, SimCounts::of(x))),
                None => Err("the kernel is not launched".to_string()),
            },
            Err(e) => Err(e.clone()),
        };
        levels.push(match est {
            Ok((s, counts)) => LevelEstimate {
                level,
                status: Status::Ok,
                seconds: Some(s),
                speedup: None,
                counts: Some(counts),
                error: None,
            },
            Err(e) => LevelEstimate {
                level,
                status: Status::Failed,
                seconds: None,
                speedup: None,
                counts: None,
                error: Some(e),
            },
        });
    }
    let naive = levels[0].seconds;
    for l in &mut levels {
        l.speedup = ratio(naive, l.seconds);
    }
    let roofline = reports[0].as_ref().ok().and_then(|rep| {
        let x = rep.kernels.iter().find(|x| x.kernel == kernel)?;
        Some(Roofline::new(
            x.flops,
            x.compulsory_transactions * u64::from(plat.sector),
            plat.gflops * 1e9,
            plat.bandwidth_gbs * 1e9,
        ))
    });
    Modelled {
        platform: platform.to_string(),
        levels,
        roofline,
    }
}

impl LevelTime {
    /// Records what the tuner's measurement of this level gave.
    fn record(&mut self, measured: Result<f64, Outcome>) {
        match measured {
            Ok(s) => self.seconds = Some(s),
            Err(Outcome::Wrong(e)) => {
                self.status = Status::Wrong;
                self.error = Some(e);
            }
            Err(o) => {
                self.status = Status::Failed;
                self.error = Some(match o {
                    Outcome::Failed(e) => e,
                    other => format!("{:?}", other),
                });
            }
        }
    }
}

/// Memory-bound: the copy of kernel `kernel`'s compulsory bytes (from `rep`, simulated on the
/// device's own description `plat`) at the speed of the device's copy kernel (`c` seconds for
/// those bytes, timed in turn with the levels) takes longer than its flops at peak. Gives the
/// copy's seconds and the roofline; for a memory-bound kernel each level's fraction of the copy
/// bandwidth goes into `levels`.
fn copy_bound(
    kernel: &str,
    plat: &SimPlatform,
    rep: &crate::sim::Report,
    c: f64,
    levels: &mut [LevelTime],
) -> (Option<f64>, Option<Roofline>) {
    let Some(x) = rep.kernels.iter().find(|x| x.kernel == kernel) else {
        return (None, None);
    };
    let bytes = x.compulsory_transactions * u64::from(plat.sector);
    let r = Roofline::new(x.flops, bytes, plat.gflops * 1e9, bytes as f64 / c);
    if r.memory_bound {
        for l in levels.iter_mut() {
            l.copy_fraction = l.seconds.map(|s| c / s.max(1e-12));
        }
    }
    (Some(c), Some(r))
}

/// Every program's results, and what they were measured with (the JSON document).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The schema's version (`docs/bench-json.md`).
    pub version: u32,
    /// The platform the measured kernels were compiled for.
    pub compiled_for: String,
    /// Timed replays per level.
    pub reps: usize,
    pub devices: Vec<DeviceInfo>,
    /// The platform descriptions estimated on.
    pub platforms: Vec<String>,
    pub programs: Vec<ProgramBench>,
}

/// A device measured on.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    /// `opencl:N` or `cuda:N`.
    pub device: String,
    /// Its name and platform (OpenCL's, or `CUDA driver`).
    pub name: String,
}
