//! The compilation pipeline, stage by stage: front end → IR → dependences → partition engine and
//! schedules → kernel IR and host plan → back ends → output text.

use std::path::{Path, PathBuf};

use crate::analysis::dependence::{self, DepInfo};
use crate::back::{output, Target};
use crate::diag::{Diags, SourceMap, Span};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::{find_regions, Regions};
use crate::kernel::lower::{lower_data, lower_region, lower_standalone, Ctx};
use crate::kernel::Module;
use crate::schedule::tuned::Tuned;
pub use crate::schedule::OptLevel;
pub use crate::schedule::ShapeRequest;
use crate::schedule::{stage, RegionSchedule};

#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub pp: PpOptions,
}

/// Optimization settings (kept apart from [`Options`] so existing callers are unaffected).
#[derive(Clone, Debug, Default)]
pub struct OptOptions {
    pub opt: OptLevel,
    /// The platform the partition engine sizes for (`None`: the default, `model::platform::DEFAULT_PLATFORM`).
    pub platform: Option<crate::model::Platform>,
    /// The outputs per work-item asked for (`--ilp RY[xRX]`; accshare's choice by default),
    /// passed to the schedule as it is.
    pub shape: ShapeRequest,
    /// Short-word grouping into vector accesses (`--words on|off`; `None`: accshare's choice,
    /// on; `schedule::words`).
    pub words: Option<bool>,
}

impl OptOptions {
    /// `--opt` `opt`, everything else accshare's choice (the default platform).
    pub fn new(opt: OptLevel) -> OptOptions {
        OptOptions {
            opt,
            ..OptOptions::default()
        }
    }

    /// `--opt share`, everything else accshare's choice.
    pub fn share() -> OptOptions {
        OptOptions::new(OptLevel::Share)
    }

    /// These options compiling for `platform`.
    pub fn for_platform(self, platform: crate::model::Platform) -> OptOptions {
        OptOptions {
            platform: Some(platform),
            ..self
        }
    }

    /// These options with `rows` × `cols` outputs per work-item asked for (`--ilp RYxRX`).
    ///
    /// # Panics
    /// When either is 0.
    pub fn with_shape(self, rows: u32, cols: u32) -> OptOptions {
        OptOptions {
            shape: ShapeRequest::tile(rows, cols),
            ..self
        }
    }

    /// These options with `rows` rows per work-item asked for, the columns accshare's choice.
    ///
    /// # Panics
    /// When `rows` is 0.
    pub fn with_rows(self, rows: u32) -> OptOptions {
        OptOptions {
            shape: ShapeRequest::rows(rows),
            ..self
        }
    }
}

/// What one compilation produced.
#[derive(Clone, Debug)]
pub struct Output {
    /// The loop-nest IR of every region (`--emit ir`).
    pub ir_text: String,
    /// The kernels in the target language (`--emit kernel`, the `.cl` file).
    pub kernel_source: String,
    /// The host translation unit, C for both targets (`--emit host`, the `.c` file).
    pub host_source: String,
    /// The file written next to it: the `.cl` (= `kernel_source`) or the `.cu` (the kernels,
    /// their launch functions and the CUDA runtime calls the `.c` makes).
    pub device_source: String,
    pub module: Module,
    /// Per kernel (as in `module.kernels`): the span of its compute construct and the array
    /// references of its region (array name, span), for diagnostics about kernels.
    pub kernel_sources: Vec<(Span, Vec<(String, Span)>)>,
    /// Shadow copies of the program's headers that include `<openacc.h>`, written beside the
    /// `.c` (`back::headers`).
    pub headers: Vec<crate::back::headers::Header>,
}

/// A file up to its schedules: what `explain` reports, what kernel lowering applies.
pub struct Scheduled {
    pub parsed: crate::front::Parsed,
    pub regions: Regions,
    /// Per compute region: its dependences and its schedules.
    pub deps: Vec<DepInfo>,
    pub schedules: Vec<RegionSchedule>,
}

/// Runs the pipeline up to the schedules (front end, IR, dependences and interchange, the
/// partition engine under `--opt share`, one schedule per kernel). `engine` sizes symbolic
/// problem sizes. Returns `None` when the front end reported errors (in `diags`).
pub fn schedule(
    file: &Path,
    pp: &PpOptions,
    opt: &OptOptions,
    engine: &crate::partition::Options,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Scheduled> {
    schedule_with(
        file,
        pp,
        opt,
        &stage::StageOptions::default(),
        engine,
        sources,
        diags,
    )
}

/// [`schedule`] with the staging's own choices as `staging` says (`accshare bench` turns the
/// padding against bank conflicts off to measure it).
pub fn schedule_with(
    file: &Path,
    pp: &PpOptions,
    opt: &OptOptions,
    staging: &stage::StageOptions,
    engine: &crate::partition::Options,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Scheduled> {
    let platform = match (&opt.opt, &opt.platform) {
        (OptLevel::Naive, _) => None,
        (OptLevel::Share, Some(p)) => Some(stage::code_platform(p)),
        (OptLevel::Share, None) => {
            crate::model::Platform::load(crate::model::platform::DEFAULT_PLATFORM)
                .ok()
                .map(|p| stage::code_platform(&p))
        }
    };
    let sopts = crate::schedule::Options {
        opt: opt.opt,
        platform,
        shape: opt.shape,
        engine: engine.clone(),
        stage: *staging,
        words: opt.words,
    };
    let parsed = crate::front::load(file, pp, sources, diags)?;
    if diags.has_errors() {
        return None;
    }
    let mut regions = find_regions(&parsed.tu, sources, diags);
    let host = crate::ir::lower::lower_host(&parsed, &regions);
    crate::analysis::stale::check(&host, &regions, sources, diags);
    let deps: Vec<DepInfo> = regions
        .compute
        .iter_mut()
        .map(|r| crate::analysis::interchange::analyze(r, sources, diags))
        .collect();
    let mut schedules = Vec::new();
    for (i, (r, d)) in regions.compute.iter().zip(&deps).enumerate() {
        for e in dependence::check_claims(&r.ir, d, Some(sources)) {
            diags.push(e);
        }
        schedules.push(crate::schedule::schedule_region(r, d, i, &sopts, diags));
    }
    Some(Scheduled {
        parsed,
        regions,
        deps,
        schedules,
    })
}

/// `accshare explain`: the pipeline up to the schedules, for `platform` (as if `--opt share`),
/// reported by [`crate::explain::report`]. `None` when the front end reported errors.
#[allow(clippy::too_many_arguments)]
pub fn explain(
    file: &Path,
    pp: &PpOptions,
    platform: &crate::model::Platform,
    format: crate::explain::Format,
    engine: &crate::partition::Options,
    tuned: &Tuned,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<String> {
    explain_with(
        file,
        pp,
        platform,
        format,
        engine,
        &stage::StageOptions::default(),
        tuned,
        sources,
        diags,
    )
}

/// [`explain`] with the staging's own choices as `staging` says (`--reassociate`).
#[allow(clippy::too_many_arguments)]
pub fn explain_with(
    file: &Path,
    pp: &PpOptions,
    platform: &crate::model::Platform,
    format: crate::explain::Format,
    engine: &crate::partition::Options,
    staging: &stage::StageOptions,
    tuned: &Tuned,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<String> {
    let opt = OptOptions::share().for_platform(platform.clone());
    let mut s = schedule_with(file, pp, &opt, staging, engine, sources, diags)?;
    apply_tuned(&mut s, tuned, sources, diags);
    // The plans are made, and the budget reported, for the platform as staged code can use it.
    Some(crate::explain::report(
        &s.schedules,
        sources,
        &stage::code_platform(platform),
        format,
    ))
}

/// Compiles a file. Returns `None` when there are errors (they are in `diags`).
pub fn compile(
    file: &Path,
    opts: &Options,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    compile_with(file, opts, &OptOptions::default(), sources, diags)
}

/// [`compile`] at an optimization level (`--opt share` stages partitions in shared memory).
pub fn compile_with(
    file: &Path,
    opts: &Options,
    opt: &OptOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    compile_tuned(file, opts, opt, &Tuned::default(), sources, diags)
}

/// [`compile_with`], with the kernels `tuned` has a measured schedule for scheduled as measured
/// (`accshare tune`'s cache; `schedule::tuned`).
pub fn compile_tuned(
    file: &Path,
    opts: &Options,
    opt: &OptOptions,
    tuned: &Tuned,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    compile_staged(
        file,
        opts,
        opt,
        &stage::StageOptions::default(),
        tuned,
        sources,
        diags,
    )
}

/// [`compile_tuned`] with the staging's own choices as `staging` says (`--reassociate`).
pub fn compile_staged(
    file: &Path,
    opts: &Options,
    opt: &OptOptions,
    staging: &stage::StageOptions,
    tuned: &Tuned,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    let mut s = schedule_with(
        file,
        &opts.pp,
        opt,
        staging,
        &crate::partition::Options::default(),
        sources,
        diags,
    )?;
    apply_tuned(&mut s, tuned, sources, diags);
    lower(&s, &s.schedules, opts, sources, diags)
}

/// Replaces the schedules of the kernels `tuned` knows with the measured ones.
pub fn apply_tuned(s: &mut Scheduled, tuned: &Tuned, sources: &SourceMap, diags: &mut Diags) {
    if tuned.is_empty() {
        return;
    }
    for ((r, d), rs) in s
        .regions
        .compute
        .iter()
        .zip(&s.deps)
        .zip(s.schedules.iter_mut())
    {
        crate::schedule::tuned::apply(r, d, rs, tuned, sources, diags);
    }
}

/// Lowers a scheduled file with `schedules` (one per compute region, as in `s.schedules`, or a
/// variation of them) to kernels and host code, and prints them.
pub fn lower(
    s: &Scheduled,
    schedules: &[RegionSchedule],
    opts: &Options,
    sources: &SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    let Scheduled {
        parsed,
        regions,
        deps,
        ..
    } = s;
    let ctx = Ctx {
        sources,
        pp: &parsed.pp,
        main: parsed.main,
    };
    let mut module = Module::default();
    let mut ir_text = String::new();
    let mut kernel_sources = Vec::new();
    for (i, ((r, deps), sched)) in regions.compute.iter().zip(deps).zip(schedules).enumerate() {
        ir_text.push_str(&format!("// {}\n{}\n", sources.location(r.ir.span), r.ir));
        ir_text.push_str("  schedule φ and placement Q:\n");
        ir_text.push_str(&crate::schedule::phi_q_text(&r.ir, sched));
        ir_text.push('\n');
        let before = module.kernels.len();
        if let Some(h) = lower_region(&ctx, r, deps, i, sched, &mut module, diags) {
            module.host.push(h);
        }
        let refs: Vec<(String, Span)> =
            r.ir.accesses
                .iter()
                .map(|a| (a.array.clone(), a.span))
                .collect();
        for _ in before..module.kernels.len() {
            kernel_sources.push((r.dir.span, refs.clone()));
        }
    }
    for d in &regions.data {
        if let Some(h) = lower_data(&ctx, d, diags) {
            module.host.push(h);
        }
    }
    for d in &regions.standalone {
        if let Some(h) = lower_standalone(&ctx, d, diags) {
            module.host.push(h);
        }
    }
    // Every kernel is validated (`kernel::valid`): a broken invariant is a lowering bug, and
    // stops the build rather than reach generated code. (After an error nothing is generated;
    // a refused region may have left a partial kernel behind.)
    let valid_kernels = if diags.has_errors() {
        0
    } else {
        module.kernels.len()
    };
    for (k, (span, _)) in module.kernels[..valid_kernels].iter().zip(&kernel_sources) {
        for e in crate::kernel::valid::validate(k).errors {
            diags.push(
                crate::diag::Diag::error(
                    *span,
                    format!(
                        "internal error: the generated kernel `{}` is invalid: {e}",
                        k.name
                    ),
                )
                .note("this is a bug in accshare; please report it with this file"),
            );
        }
    }
    module.host.sort_by_key(|h| h.replace.start);
    diags.sort();
    if diags.has_errors() {
        return None;
    }
    let kernel_source = match opts.target {
        Target::OpenCl => crate::back::opencl::print_module(&module),
        Target::Cuda => crate::back::cuda::print_module(&module),
    };
    let shadows = crate::back::headers::shadows(sources, parsed.main, &parsed.pp);
    let rewrites = output::Rewrites {
        conditionals: output::main_conditionals(&parsed.pp, parsed.main),
        includes: shadows.main_edits,
    };
    let host_source = output::assemble(
        sources.text(parsed.main),
        &module,
        &kernel_source,
        opts.target,
        &rewrites,
    );
    let device_source = output::device_file(&module, &kernel_source, opts.target);
    Some(Output {
        ir_text,
        kernel_source,
        host_source,
        device_source,
        module,
        kernel_sources,
        headers: shadows.headers,
    })
}

/// Writes the output files of a compilation into `dir`.
pub fn write(
    out: &Output,
    input: &Path,
    dir: &Path,
    target: Target,
) -> Result<Vec<PathBuf>, String> {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    output::write_outputs(
        dir,
        &stem,
        input,
        &out.host_source,
        &out.device_source,
        target,
        &out.headers,
    )
    .map_err(|e| e.to_string())
}

/// The coalescing lint over every kernel of a compilation: a warning per uncoalesced global
/// access (a note per access whose index depends on data, saying so), at the array's reference in the C source when the region has only one reference to
/// that array, else at the compute construct (the message names the access).
pub fn lint(out: &Output, platform: &crate::sim::SimPlatform) -> Vec<crate::diag::Diag> {
    let mut diags = Vec::new();
    for (k, kernel) in out.module.kernels.iter().enumerate() {
        let Some((construct, refs)) = out.kernel_sources.get(k) else {
            continue;
        };
        let Ok(items) = crate::kernel::lint::lint_kernel(kernel, platform) else {
            continue;
        };
        for item in items {
            let same: Vec<&Span> = refs
                .iter()
                .filter(|(a, _)| *a == item.access.array)
                .map(|(_, s)| s)
                .collect();
            if let Some(note) = item.unknown_note() {
                let span = match same.as_slice() {
                    [one] => **one,
                    _ => *construct,
                };
                diags.push(crate::diag::Diag::info(span, note).label("no static verdict"));
                continue;
            }
            let Some((msg, help)) = item.message() else {
                continue;
            };
            let mut d = match same.as_slice() {
                [one] => crate::diag::Diag::warning(**one, msg).label("uncoalesced"),
                _ => crate::diag::Diag::warning(*construct, msg)
                    .label(format!("in a kernel of this region ({})", kernel.name)),
            };
            // The data the index comes from: at its reference when it has one, and in a note.
            if let Some((array, text)) = &item.data {
                let at: Vec<&Span> = refs
                    .iter()
                    .filter(|(a, _)| a == array)
                    .map(|(_, s)| s)
                    .collect();
                if let ([one], false) = (at.as_slice(), array == &item.access.array) {
                    d = d.with_label(**one, "the index depends on the data loaded here");
                }
                d = d.note(if item.verdict == crate::kernel::lint::Verdict::UncoalescedData {
                    format!(
                        "the index depends on {} loaded from `{}`, a different value per lane: the lint sees no data, so this holds unless the data gives neighbouring lanes neighbouring elements",
                        text, array
                    )
                } else {
                    format!(
                        "the index's base is {} loaded from `{}`, the same for every lane of a warp: the lanes' strides are exact, whether the base is aligned is up to the data",
                        text, array
                    )
                });
            }
            diags.push(d.help(help));
        }
    }
    diags
}
