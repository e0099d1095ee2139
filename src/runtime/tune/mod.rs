//! `accshare tune`: each kernel's schedule space measured on an OpenCL or a CUDA device
//! ([`super::measure::Device`]).
//!
//! For every kernel of a program the tuner takes the schedule space (`schedule::variant::space`:
//! the model's choice, the baseline, other block shapes, each configuration the partition engine
//! kept with each number of rows per work-item), compiles the whole program once per variant
//! (only that kernel changes), and runs the sequential program once, instrumented to record the
//! launches of every variant (`sim::trace::instrument_variants`). Each variant is then replayed
//! on the device from the program's own data: a first replay, built without floating-point
//! contraction as the sequential program is, checks every region instance against the
//! sequential program (a variant that differs is a bug of accshare, reported and never
//! chosen); the next ones, built as compiled, time the kernel with device events (median of
//! `reps`). The
//! model's choice and the baseline are always timed; the others while the budget lasts, in the
//! model's order. The fastest, the model's choice and the baseline are then timed again in
//! turn (one replay of each per round, [`confirm`]), so that a drift of the machine's speed
//! between two measurements does not decide the choice. The fastest verified variant of each kernel goes into the cache ([`cache`]),
//! which later compilations for that device read.

pub mod cache;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::back::Target;
use crate::diag::{Diags, SourceMap};
use crate::driver::{self, OptOptions};
use crate::front::preprocess::PpOptions;
use crate::kernel::Module;
use crate::model::Platform;
use crate::schedule::tuned::{self, TunedKernel};
use crate::schedule::variant::{self, Variant};
use crate::schedule::{RegionSchedule, Schedule};
use crate::sim::trace::{self, Compare, Launcher, Select};

use super::measure::Device;

/// What `tune` is asked to do.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub pp: PpOptions,
    /// The platform the partition engine sizes for (the device's own description by default).
    pub platform: Platform,
    /// Time for measuring variants beyond the model's choice and the baseline.
    pub budget: Duration,
    /// Timed replays per variant (after one that verifies); the median is kept.
    pub reps: usize,
    /// Where the traced program is built.
    pub work_dir: PathBuf,
}

/// One variant of a kernel, and what its runs gave.
#[derive(Clone, Debug)]
pub struct Trial {
    pub variant: Variant,
    /// Median kernel seconds per program run (`None`: not timed, see `outcome`).
    pub seconds: Option<f64>,
    pub outcome: Outcome,
}

/// How a variant's measurement ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Verified and timed.
    Timed,
    /// Verified and timed once (those seconds): the run took more than [`CUTOFF`] times the
    /// best so far.
    Slow(f64),
    /// It generates the same kernel as an earlier variant (its index in the trials).
    SameAs(usize),
    /// Not measured: the budget ran out.
    OverBudget,
    /// Its outputs differ from the sequential program's (a bug of accshare: reported).
    Wrong(String),
    /// It did not compile, build or run (the reason).
    Failed(String),
}

/// The measurements of one kernel.
#[derive(Clone, Debug)]
pub struct KernelTune {
    pub name: String,
    /// `file:line` of its compute construct.
    pub origin: String,
    pub fingerprint: String,
    pub size_class: Option<u32>,
    /// The variants, the model's choice first.
    pub trials: Vec<Trial>,
}

impl KernelTune {
    /// The fastest verified trial.
    pub fn fastest(&self) -> Option<usize> {
        self.trials
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((i, t.seconds?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// The trial chosen: the fastest, unless the model's choice is within [`NOISE`] of it (a
    /// difference that small is as likely the device's noise as the schedule).
    pub fn best(&self) -> Option<usize> {
        let fastest = self.fastest()?;
        let f = self.trials[fastest].seconds?;
        match self.trials.first().and_then(|m| m.seconds) {
            Some(m) if m <= f * (1.0 + NOISE) => Some(0),
            _ => Some(fastest),
        }
    }

    /// The cache entry of this kernel (`None` when no variant ran).
    pub fn entry(&self, file: &str) -> Option<TunedKernel> {
        let best = &self.trials[self.best()?];
        let model = self.trials.first()?;
        Some(TunedKernel {
            fingerprint: self.fingerprint.clone(),
            size_class: self.size_class,
            name: self.name.clone(),
            file: file.to_string(),
            variant: best.variant.clone(),
            seconds: best.seconds?,
            model: model.variant.clone(),
            model_seconds: model.seconds,
        })
    }
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The device as the cache names it.
    pub device: String,
    pub kernels: Vec<KernelTune>,
    pub seconds: f64,
}

/// Why a program cannot be tuned.
#[derive(Clone, Debug)]
pub enum TuneError {
    /// It does not compile (the diagnostics are in the caller's `Diags`).
    Compile,
    /// The device or the traced program failed.
    Run(String),
}

/// The model's choice is kept unless a variant is faster by more than this fraction.
pub const NOISE: f64 = 0.03;

/// A variant whose first (verifying) run is this many times slower than the best so far is not
/// timed again. The first run includes the device's warm-up, so it is, if anything, slower.
pub const CUTOFF: f64 = 1.5;

/// Makes the launcher of a variant from its kernel source;
/// `strict` asks for the arithmetic of the sequential program: no contraction of `a * b + c`
/// into a fused multiply-add (the verifying run; the timed runs allow it, as compiled kernels do).
pub type MakeLauncher<'l> = dyn FnMut(&str, bool) -> Result<Box<dyn Launcher + 'l>, String> + 'l;

/// Progress of a run: `total` variants to consider, `done` so far, what is being measured.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub what: &'a str,
}

/// The program compiled with one kernel scheduled as `variant`.
struct Candidate {
    /// Its index in the kernel's trials.
    trial: usize,
    variant: Variant,
    module: Module,
    source: String,
}

/// Measures every kernel of `file` on `device`; see the module's documentation.
pub fn tune(
    file: &Path,
    device: Device,
    opts: &TuneOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
    progress: &mut dyn FnMut(Progress),
) -> Result<TuneReport, TuneError> {
    let start = Instant::now();
    let facts = device
        .facts()
        .map_err(|e| TuneError::Run(format!("{}: {}", device.name(), e)))?;
    let max_threads = u32::try_from(facts.max_work_group).unwrap_or(u32::MAX);
    let mut launch = |source: &str, strict: bool| device.launcher(source, strict);
    let kernels = tune_with(
        file,
        opts,
        device.target(),
        max_threads,
        &mut launch,
        &|sources: &[&str]| device.prebuild(sources),
        sources,
        diags,
        progress,
    )?;
    Ok(TuneReport {
        device: cache::device_key(&facts),
        kernels,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// [`tune`] with the launches run by the launchers `launch` makes from a variant's kernel
/// source, printed for `target` (a device, or the simulator in tests: every variant is checked
/// against the sequential program either way); `max_threads` is the largest block the launcher
/// takes. `prebuild` is given every variant's kernel source first, before the budget starts:
/// it may build them all at once ([`Device::prebuild`]) so that `launch` does not build them
/// one by one within the budget.
#[allow(clippy::too_many_arguments)]
pub fn tune_with<'l>(
    file: &Path,
    opts: &TuneOptions,
    target: Target,
    max_threads: u32,
    launch: &mut MakeLauncher<'l>,
    prebuild: &dyn Fn(&[&str]),
    sources: &mut SourceMap,
    diags: &mut Diags,
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<KernelTune>, TuneError> {
    let oo = OptOptions::share().for_platform(opts.platform.clone());
    let engine = crate::partition::Options::default();
    let s =
        driver::schedule(file, &opts.pp, &oo, &engine, sources, diags).ok_or(TuneError::Compile)?;
    let dopts = driver::Options {
        target,
        pp: opts.pp.clone(),
    };
    let base = driver::lower(&s, &s.schedules, &dopts, sources, diags).ok_or(TuneError::Compile)?;
    let kernels = compile_variants(&s, &dopts, max_threads, sources);

    // One run of the sequential program records every variant's launches.
    let mut modules: Vec<&Module> = vec![&base.module];
    for (_, cands) in &kernels {
        modules.extend(cands.iter().map(|c| &c.module));
    }
    let traced = trace::build_and_trace_variants(
        file,
        &modules,
        &opts.pp.defines,
        &opts.pp.include_dirs,
        &[],
        &opts.work_dir,
    );
    let _ = std::fs::remove_dir_all(&opts.work_dir);
    let trace = traced.map_err(|e| TuneError::Run(e.to_string()))?;
    let all: Vec<&str> = kernels
        .iter()
        .flat_map(|(_, cands)| cands.iter().map(|c| c.source.as_str()))
        .collect();
    prebuild(&all);

    // The budget counts from here: compiling the variants, tracing the program and building
    // the kernels are fixed costs, the same for any budget.
    let start = Instant::now();
    let total: usize = kernels.iter().map(|(_, c)| c.len()).sum();
    let mut done = 0;
    let mut index = 1; // the variant's index in `modules`
    let mut out = Vec::new();
    for (mut kt, cands) in kernels {
        for (n, c) in cands.iter().enumerate() {
            let what = format!("{}: {}", kt.name, c.variant);
            progress(Progress {
                done,
                total,
                what: &what,
            });
            // The model's choice and the baseline always; the rest within the budget.
            let best = kt.fastest().and_then(|b| kt.trials[b].seconds);
            let t = &mut kt.trials[c.trial];
            if n >= 2 && start.elapsed() > opts.budget {
                t.outcome = Outcome::OverBudget;
            } else {
                let measured = measure(c, &kt.name, index, &trace, opts.reps, best, launch);
                match measured {
                    Ok(secs) => t.seconds = Some(secs),
                    Err(o) => t.outcome = o,
                }
            }
            done += 1;
            index += 1;
        }
        confirm(
            &mut kt,
            &cands,
            index - cands.len(),
            &trace,
            opts.reps,
            launch,
        );
        out.push(kt);
    }
    progress(Progress {
        done,
        total,
        what: "",
    });
    Ok(out)
}

/// Times the finalists of kernel `kt` again, in turn: the fastest variant, the model's choice
/// and the baseline, `reps` rounds of one replay each, their medians replacing the times of
/// their first measurement (`first` is the trace index of `cands[0]`). Each variant was first
/// timed on its own, one after the other, and a drift of the machine's speed between two of
/// them (other work on a shared host) would decide the choice; timed in turn, the drift falls
/// on all of them alike. Fewer than two timed finalists: nothing to compare. A finalist that
/// fails now keeps its first time.
fn confirm(
    kt: &mut KernelTune,
    cands: &[Candidate],
    first: usize,
    trace: &[u8],
    reps: usize,
    launch: &mut MakeLauncher,
) {
    let Some(fastest) = kt.fastest() else {
        return;
    };
    let mut finalists: Vec<usize> = vec![fastest];
    for t in [0, 1] {
        if !finalists.contains(&t) && kt.trials.get(t).is_some_and(|t| t.seconds.is_some()) {
            finalists.push(t);
        }
    }
    if finalists.len() < 2 {
        return;
    }
    let mut timed = Vec::new();
    for &t in &finalists {
        let Some((ci, c)) = cands.iter().enumerate().find(|(_, c)| c.trial == t) else {
            continue;
        };
        if let Ok(p) = prepare_kernel(
            &c.module,
            &c.source,
            &kt.name,
            first + ci,
            trace,
            false,
            launch,
        ) {
            timed.push((t, p, Vec::new()));
        }
    }
    for _ in 0..reps.max(1) {
        for (_, p, times) in timed.iter_mut() {
            if let Ok(s) = p.time() {
                times.push(s);
            }
        }
    }
    for (t, _, times) in timed {
        if times.len() == reps.max(1) {
            kt.trials[t].seconds = Some(median(times));
        }
    }
}

/// Every variant of every kernel of `s` compiled, nothing run: the trials a tuning run would
/// measure (`Outcome::Timed` for each distinct kernel, which is not yet timed).
pub fn compile_space(
    s: &driver::Scheduled,
    dopts: &driver::Options,
    max_threads: u32,
    sources: &SourceMap,
) -> Vec<KernelTune> {
    compile_variants(s, dopts, max_threads, sources)
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// Every variant of every kernel of `s`, compiled (variants that generate the same kernel as
/// an earlier one are not compiled twice: their trial says which).
fn compile_variants(
    s: &driver::Scheduled,
    dopts: &driver::Options,
    max_threads: u32,
    sources: &SourceMap,
) -> Vec<(KernelTune, Vec<Candidate>)> {
    let mut kernels = Vec::new();
    for (ri, ((r, d), rs)) in s
        .regions
        .compute
        .iter()
        .zip(&s.deps)
        .zip(&s.schedules)
        .enumerate()
    {
        for (ki, ks) in rs.kernels.iter().enumerate() {
            let plan = rs
                .plan
                .as_ref()
                .and_then(|p| p.kernels.iter().find(|k| k.root == ks.root));
            let mut kt = KernelTune {
                name: crate::kernel::lower::kernel_name(r, ri, ki),
                origin: sources.location(r.dir.span),
                fingerprint: tuned::fingerprint(r, ks.root, sources),
                size_class: tuned::size_class(ks.baseline()),
                trials: Vec::new(),
            };
            let mut cands: Vec<Candidate> = Vec::new();
            for (v, sched) in variant::space(r, d, ks, plan, max_threads) {
                let schedules = with_kernel(&s.schedules, ri, ki, sched);
                let mut scratch = Diags::new();
                let outcome = match driver::lower(s, &schedules, dopts, sources, &mut scratch) {
                    Some(out) => {
                        let k = find_kernel(&out.module, &kt.name);
                        match cands
                            .iter()
                            .position(|c| find_kernel(&c.module, &kt.name) == k)
                        {
                            Some(j) => Outcome::SameAs(cands[j].trial),
                            None => {
                                cands.push(Candidate {
                                    trial: kt.trials.len(),
                                    variant: v.clone(),
                                    module: out.module,
                                    source: out.kernel_source,
                                });
                                Outcome::Timed
                            }
                        }
                    }
                    None => Outcome::Failed("it does not compile".to_string()),
                };
                kt.trials.push(Trial {
                    variant: v,
                    seconds: None,
                    outcome,
                });
            }
            kernels.push((kt, cands));
        }
    }
    kernels
}

/// The schedules with kernel `ki` of region `ri` scheduled as `s` alone (the baseline kept as
/// its fallback when `s` stages).
fn with_kernel(
    schedules: &[RegionSchedule],
    ri: usize,
    ki: usize,
    s: Schedule,
) -> Vec<RegionSchedule> {
    let mut out = schedules.to_vec();
    let ks = &mut out[ri].kernels[ki];
    let base = ks.baseline().clone();
    ks.candidates = if s.staged().is_some() {
        vec![s, base]
    } else {
        vec![s]
    };
    out
}

/// Kernel `name` of a module (two variants that generate the same kernel are measured once).
fn find_kernel<'m>(m: &'m Module, name: &str) -> Option<&'m crate::kernel::Kernel> {
    m.kernels.iter().find(|k| k.name == name)
}

/// Verifies candidate `c` (variant `index` of the trace) and times kernel `name`: median of
/// `reps` replays of its region, seconds per program run ([`measure_kernel`]). When the first
/// timed replay takes more than [`CUTOFF`] times the `best` time so far, that one time is kept
/// (the variant cannot win, and timing it again would only spend the budget).
fn measure(
    c: &Candidate,
    name: &str,
    index: usize,
    trace: &[u8],
    reps: usize,
    best: Option<f64>,
    launch: &mut MakeLauncher,
) -> Result<f64, Outcome> {
    let timing = Timing {
        reps,
        warmup: false,
        limit: best.map(|b| CUTOFF * b),
    };
    measure_kernel(&c.module, &c.source, name, index, trace, &timing, launch)
}

/// How [`measure_kernel`] times a kernel.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Timing {
    /// Timed replays; the median is kept.
    pub reps: usize,
    /// One untimed replay on the timing build first (the device's warm-up).
    pub warmup: bool,
    /// When the first timed replay takes longer than this (seconds), stop there
    /// ([`Outcome::Slow`] with that time).
    pub limit: Option<f64>,
}

/// Verifies kernel `name` of `module` (variant `variant` of the trace, its kernels printed as
/// `source`) against the sequential program, then times it: the median of `timing.reps`
/// replays of its region on the device, seconds per program run (its launches summed)
/// ([`prepare_kernel`], then [`Prepared::time`] `timing.reps` times).
pub fn measure_kernel(
    module: &Module,
    source: &str,
    name: &str,
    variant: usize,
    trace: &[u8],
    timing: &Timing,
    launch: &mut MakeLauncher,
) -> Result<f64, Outcome> {
    let mut p = prepare_kernel(module, source, name, variant, trace, timing.warmup, launch)?;
    let mut times = Vec::new();
    for _ in 0..timing.reps.max(1) {
        let t = p.time()?;
        if times.is_empty() && timing.limit.is_some_and(|l| t > l) {
            return Err(Outcome::Slow(t));
        }
        times.push(t);
    }
    Ok(median(times))
}

/// The median of `times` (not empty).
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// A kernel verified against the sequential program and ready to be timed on the device
/// ([`prepare_kernel`]): its launcher, built as compiled, and the region instances it replays.
pub struct Prepared<'m, 'l> {
    module: &'m Module,
    name: &'m str,
    trace: &'m [u8],
    select: Select,
    launcher: Box<dyn Launcher + 'l>,
}

impl Prepared<'_, '_> {
    /// One timed replay of the kernel's region: its launches' event-timed seconds, summed.
    pub fn time(&mut self) -> Result<f64, Outcome> {
        let r = trace::replay_select(
            self.module,
            self.trace,
            None,
            &self.select,
            self.launcher.as_mut(),
        )
        .map_err(|e| Outcome::Failed(e.to_string()))?;
        Ok(r.kernel_seconds
            .iter()
            .filter(|(k, _)| {
                self.module
                    .kernels
                    .get(*k)
                    .is_some_and(|k| k.name == self.name)
            })
            .map(|(_, t)| t)
            .sum())
    }
}

/// Kernel `name` of `module` (variant `variant` of the trace, its kernels printed as `source`)
/// verified against the sequential program and built for timing, after one untimed replay
/// where `warmup` (the device's warm-up).
///
/// The verifying replay runs the kernels without floating-point contraction, as the sequential
/// program is traced (`-ffp-contract=off`): a fused multiply-add is allowed in OpenCL, but its
/// rounding differs, and in a stencil with cancellation (hotspot's `t_n + t_s - 2 t`) that
/// difference exceeds any tolerance that would still catch a wrong schedule. So the variant is
/// checked against the sequential program's arithmetic (within a relative 1e-5, for math
/// functions), and timed as compiled. A difference is [`Outcome::Wrong`]; a kernel that does
/// not build or run, [`Outcome::Failed`].
pub fn prepare_kernel<'m, 'l>(
    module: &'m Module,
    source: &str,
    name: &'m str,
    variant: usize,
    trace: &'m [u8],
    warmup: bool,
    launch: &mut MakeLauncher<'l>,
) -> Result<Prepared<'m, 'l>, Outcome> {
    let Some(region) = module.host.iter().position(|h| {
        h.launches
            .iter()
            .any(|l| module.kernels.get(l.kernel).is_some_and(|k| k.name == name))
    }) else {
        return Err(Outcome::Failed("the kernel is not launched".to_string()));
    };
    let select = Select {
        variant,
        region: Some(region),
        max_instances: None,
    };
    let mut strict = launch(source, true).map_err(Outcome::Failed)?;
    let checked = trace::replay_select(
        module,
        trace,
        Some(Compare::Relative(1e-5)),
        &select,
        strict.as_mut(),
    )
    .map_err(|e| Outcome::Failed(e.to_string()))?;
    drop(strict);
    if let Some(m) = checked.mismatches.first() {
        return Err(Outcome::Wrong(m.clone()));
    }
    let mut p = Prepared {
        module,
        name,
        trace,
        select,
        launcher: launch(source, false).map_err(Outcome::Failed)?,
    };
    if warmup {
        p.time()?;
    }
    Ok(p)
}

/// The report as a table: per kernel, every variant with its time and its speed-up over the
/// model's choice; `*` marks the one recorded ([`KernelTune::best`]), `m` the model's choice.
pub fn text(r: &TuneReport, file: &Path) -> String {
    let variants: usize = r.kernels.iter().map(|k| k.trials.len()).sum();
    let mut out = format!(
        "{}: {}: {} kernel(s), {} variant(s), {:.1} s\n",
        r.device,
        file.display(),
        r.kernels.len(),
        variants,
        r.seconds
    );
    for k in &r.kernels {
        let class = k
            .size_class
            .map(|c| format!(", about 2^{} grid points", c))
            .unwrap_or_default();
        out.push_str(&format!("\n{} ({}){}\n", k.name, k.origin, class));
        let best = k.best();
        let model = k.trials.first().and_then(|t| t.seconds);
        for (i, t) in k.trials.iter().enumerate() {
            let mark = match (Some(i) == best, i == 0) {
                (true, true) => "*m",
                (true, false) => "* ",
                (false, true) => " m",
                (false, false) => "  ",
            };
            let shown = match t.outcome {
                Outcome::Slow(s) => Some(s),
                _ => t.seconds,
            };
            let (time, ratio) = match (shown, model) {
                (Some(s), Some(m)) => (format!("{:.6} s", s), format!("{:.2}×", m / s.max(1e-12))),
                (Some(s), None) => (format!("{:.6} s", s), String::new()),
                (None, _) => ("-".to_string(), String::new()),
            };
            let why = match &t.outcome {
                Outcome::Timed => String::new(),
                Outcome::Slow(_) => format!(": one run (over {}× the best so far)", CUTOFF),
                Outcome::SameAs(j) => format!(": the same kernel as #{}", j + 1),
                Outcome::OverBudget => ": not measured (budget)".to_string(),
                Outcome::Wrong(m) => format!(": WRONG RESULTS, not used: {}", m),
                Outcome::Failed(m) => format!(": failed: {}", m),
            };
            out.push_str(&format!(
                "  {} #{:<3} {:>12} {:>8}  {}{}\n",
                mark,
                i + 1,
                time,
                ratio,
                t.variant,
                why
            ));
        }
    }
    out
}
