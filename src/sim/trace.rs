//! Running a program's regions on the simulator with the program's own data.
//!
//! [`instrument`] rewrites the user's main file so that, compiled by a C compiler and run, it
//! executes sequentially (pragmas ignored) and writes a trace: just before each compute region
//! of the host plan, the host arrays its launches use (element counts and host pointers from the
//! plan's buffers), the value of every scalar launch argument and launch extent (the plan's C
//! expressions, evaluated by the C compiler in the user's scope) and the reduction variables;
//! just after the region, the arrays and reduction variables again. [`replay`] runs each region
//! instance's launches on the simulator from the "before" state and compares with the "after"
//! state of the sequential run. The trace file is named by the macro `ACCSHARE_TRACE` (a string
//! literal, e.g. `-DACCSHARE_TRACE='"trace.bin"'`).
//!
//! Every region instance (each time step of a stencil, say) is checked from the true sequential
//! state, and no C expression evaluator is needed. Buffers that live across regions are
//! checked per region, which covers the kernels and launches but not the host's transfer
//! schedule; the trace marks where data constructs begin and end (`data:N`, `dend:N`), so that
//! the replay follows which device elements nothing defined yet ([`super::undefined`]) and the
//! simulator's checker reports kernels that read them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use super::host::{self, combine_partials};
use super::undefined::DeviceCopies;
use super::*;
use crate::back::host::host_expr;
use crate::kernel::{Buffer, HostArg, HostRegion, Launch, Module};

mod instrument;
pub use instrument::{
    build_and_trace, build_and_trace_variants, instrument, instrument_resolved, instrument_variants,
};

/// The buffer (element type, count, host pointer) of `name` as seen from `region`: its own, or
/// that of the data construct holding it.
pub fn buffer_info<'m>(m: &'m Module, region: &'m HostRegion, name: &str) -> Option<&'m Buffer> {
    // The innermost data construct around the region that holds the array, else any buffer of
    // that name (a caller's data construct).
    let enclosing = m
        .host
        .iter()
        .filter(|h| {
            h.keep_body.as_ref().is_some_and(|body| {
                body.start <= region.replace.start && region.replace.end <= body.end
            })
        })
        .filter_map(|h| {
            let body = h.keep_body.as_ref()?;
            let b = h.buffers.iter().find(|b| b.array == name)?;
            Some((body.end - body.start, b))
        })
        .min_by_key(|(len, _)| *len)
        .map(|(_, b)| b);
    region
        .buffers
        .iter()
        .find(|b| b.array == name)
        .or(enclosing)
        .or_else(|| {
            m.host
                .iter()
                .flat_map(|h| h.buffers.iter())
                .find(|b| b.array == name)
        })
}

/// The arrays a region's launches use, in first-use order.
pub fn region_arrays(r: &HostRegion) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in &r.launches {
        for a in &l.args {
            if let HostArg::Buffer(n) = a {
                if !v.contains(n) {
                    v.push(n.clone());
                }
            }
        }
    }
    v
}

/// Why a program cannot be instrumented, built or traced ([`instrument`], [`build_and_trace`],
/// [`run_module`]).
#[derive(Debug)]
pub enum TraceError {
    /// [`instrument_variants`] was given no module.
    NoModule,
    /// The variants of [`instrument_variants`] do not have the same regions.
    VariantsDiffer,
    /// A region's launches use an array without a buffer in the host plan.
    NoBuffer(String),
    /// A region's boundary (a byte offset) is outside the file.
    BoundaryOutside(usize),
    /// The source file cannot be read.
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Writing the traced program, or running it, failed.
    Io(std::io::Error),
    /// The C compiler `cc` cannot be run.
    CannotRun { cc: String, error: std::io::Error },
    /// The C compiler `cc` rejected the traced program (its standard error).
    CompileFailed { cc: String, stderr: String },
    /// The traced program did not exit successfully.
    Exited(std::process::ExitStatus),
    /// The traced program wrote no trace.
    NoTrace(std::io::Error),
    /// The replay of the trace failed.
    Replay(ReplayError),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::NoModule => write!(f, "no module to instrument"),
            TraceError::VariantsDiffer => write!(f, "the variants do not have the same regions"),
            TraceError::NoBuffer(a) => write!(f, "no buffer for `{}`", a),
            TraceError::BoundaryOutside(p) => {
                write!(f, "region boundary {} is outside the file", p)
            }
            TraceError::Read { path, error } => write!(f, "{}: {}", path.display(), error),
            TraceError::Io(error) => write!(f, "{}", error),
            TraceError::CannotRun { cc, error } => write!(f, "cannot run `{}`: {}", cc, error),
            TraceError::CompileFailed { cc, stderr } => {
                write!(f, "`{}` failed on the traced program:\n{}", cc, stderr)
            }
            TraceError::Exited(status) => write!(f, "the traced program exited with {}", status),
            TraceError::NoTrace(error) => write!(f, "no trace: {}", error),
            TraceError::Replay(e) => write!(f, "{}", e),
        }
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TraceError::Read { error, .. }
            | TraceError::Io(error)
            | TraceError::CannotRun { error, .. }
            | TraceError::NoTrace(error) => Some(error),
            TraceError::Replay(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ReplayError> for TraceError {
    fn from(e: ReplayError) -> Self {
        TraceError::Replay(e)
    }
}

/// The trace's records, `(tag, data)`, borrowed from `bytes` (a trace can hold gigabytes of
/// arrays: they are converted once, where a replay needs them, never copied here).
fn parse(bytes: &[u8]) -> Vec<(std::borrow::Cow<'_, str>, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0usize;
    let rd = |i: usize| -> Option<u64> {
        Some(u64::from_le_bytes(
            bytes.get(i..i.checked_add(8)?)?.try_into().ok()?,
        ))
    };
    while let Some(n) = rd(i) {
        let Some(n) = usize::try_from(n).ok().filter(|&n| n < 4096) else {
            break;
        };
        let Some(tag) = bytes.get(i + 8..i + 8 + n) else {
            break;
        };
        let Some(len) = rd(i + 8 + n).and_then(|l| usize::try_from(l).ok()) else {
            break;
        };
        let start = i + 16 + n;
        let Some(data) = start.checked_add(len).and_then(|e| bytes.get(start..e)) else {
            break;
        };
        out.push((String::from_utf8_lossy(tag), data));
        i = start + len;
    }
    out
}

fn scalar_arg(bytes: &[u8], ty: Scalar) -> Option<ArgValue> {
    buf_arg(&BufData::from_le_bytes(ty, bytes)?)
}

/// The first element of `b` as an argument value.
fn buf_arg(b: &BufData) -> Option<ArgValue> {
    Some(match b {
        BufData::I64(x) => ArgValue::Int(*x.first()?),
        BufData::U64(x) => ArgValue::Int(*x.first()? as i64),
        BufData::F32(_) | BufData::F64(_) => ArgValue::Float(b.get_f64(0)?),
        _ => ArgValue::Int(b.get_f64(0)? as i64),
    })
}

/// What [`replay`] found.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    /// Every launch, in order (feed them to [`analyze`]).
    pub runs: Vec<RunResult>,
    /// Region instances replayed.
    pub instances: usize,
    /// Differences from the sequential run (empty when sampling: outputs are then partial).
    pub mismatches: Vec<String>,
    /// Instances whose arrays were compared within a relative 1e-5 rather than bit for bit
    /// (under [`Compare::Exact`]): launches after a floating-point reduction computed from its
    /// sum, which the kernels add in another order than the sequential program.
    pub reordered: usize,
    /// On a device: each launch's kernel and its event-timed seconds, in order.
    pub kernel_seconds: Vec<(usize, f64)>,
    /// Instances whose outputs were not compared, and why: two of their arrays are one host
    /// array (`f(r, r)` into `present(a[…], b[…])`), one device copy, which the replay's
    /// buffers (one per name) are not.
    pub aliased: Vec<String>,
}

/// Why a [`Launcher`] could not run a launch.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchError {
    /// The simulator failed.
    Sim(SimError),
    /// An OpenCL call failed: the call as printed (`clSetKernelArg 3`, ``clCreateKernel `k` ``)
    /// and the error's name.
    Cl { call: String, error: &'static str },
    /// A CUDA driver call failed: the call as printed (``cuModuleGetFunction `k` ``) and the
    /// error's name (`CUDA_ERROR_LAUNCH_FAILED`).
    Cuda { call: String, error: String },
    /// The launch names a kernel the module does not have.
    NoKernel(usize),
    /// No value for scalar argument `index` of `kernel`.
    NoArgValue { index: usize, kernel: String },
    /// No data for the array.
    NoData(String),
    /// The host plan does not know the array's length, so the replay has no data for `kernel`.
    UnknownLength { array: String, kernel: String },
    /// A partials buffer whose reduction the launch does not have.
    PartialsWithoutReduction,
    /// A scalar argument for a buffer parameter.
    ScalarForBuffer(String),
    /// A buffer argument for a scalar parameter.
    BufferForScalar(String),
    /// A buffer read back from the device is shorter than its contents.
    TruncatedBuffer,
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::Sim(e) => write!(f, "{}", e),
            LaunchError::Cl { call, error } => write!(f, "{}: {}", call, error),
            LaunchError::Cuda { call, error } => write!(f, "{}: {}", call, error),
            LaunchError::NoKernel(k) => write!(f, "no kernel {}", k),
            LaunchError::NoArgValue { index, kernel } => {
                write!(f, "no value for argument {} of `{}`", index, kernel)
            }
            LaunchError::NoData(a) => write!(f, "no data for `{}`", a),
            LaunchError::UnknownLength { array, kernel } => write!(
                f,
                "`{}` has no known length in the host plan (`deviceptr`, or `present` without one): the replay has no data to run `{}` on",
                array, kernel
            ),
            LaunchError::PartialsWithoutReduction => {
                write!(f, "a partials buffer without its reduction")
            }
            LaunchError::ScalarForBuffer(p) => write!(f, "a scalar passed for buffer `{}`", p),
            LaunchError::BufferForScalar(p) => write!(f, "a buffer passed for scalar `{}`", p),
            LaunchError::TruncatedBuffer => write!(f, "a truncated buffer"),
        }
    }
}

impl std::error::Error for LaunchError {}

/// What runs the launches of a replay: the simulator ([`SimLauncher`]) or a device.
pub trait Launcher {
    /// Who runs them, for messages (`simulator`, `opencl:0`).
    fn name(&self) -> String;
    /// Runs one launch on the arrays (by the user's names, updated in place); `scalar(i, ty)`
    /// is the value of the launch's argument `i`, `extent` the work-items per dimension.
    fn launch(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError>;

    /// [`Launcher::launch`] knowing, by array, the elements of the device copies that no copy
    /// or kernel defined yet (`undefined`; a launcher that checks reads of them updates it
    /// with what the launch wrote). A device cannot tell: by default, `launch`.
    fn launch_tracking(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        undefined: &mut BTreeMap<String, Vec<bool>>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let _ = undefined;
        self.launch(m, launch, arrays, scalar, extent)
    }
}

/// What one launch gave back.
#[derive(Clone, Debug, PartialEq)]
pub struct Launched {
    /// Per reduction of the launch: its variable and the partial results (one per work-group).
    pub partials: Vec<(String, BufData)>,
    /// Per last value of the launch (`HostArg::LastValue`): its variable and the value its
    /// buffer holds after the launch (what the host code assigns to the variable).
    pub last_values: Vec<(String, BufData)>,
    /// The simulator's statistics (`None` on a device).
    pub run: Option<RunResult>,
    /// Time the kernel took on the device (event-timed), seconds (`None` on the simulator).
    pub seconds: Option<f64>,
}

/// The simulator as a [`Launcher`].
pub struct SimLauncher<'a> {
    pub platform: &'a SimPlatform,
    pub opts: &'a SimOptions,
}

impl Launcher for SimLauncher<'_> {
    fn name(&self) -> String {
        "simulator".to_string()
    }

    fn launch(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let mut none = BTreeMap::new();
        self.launch_tracking(m, launch, arrays, &mut none, scalar, extent)
    }

    fn launch_tracking(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        undefined: &mut BTreeMap<String, Vec<bool>>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let (platform, opts) = (self.platform, self.opts);
        let o =
            host::run_launch_tracking(m, launch, arrays, undefined, scalar, extent, platform, opts)
                .map_err(LaunchError::Sim)?;
        Ok(Launched {
            partials: o.partials,
            last_values: o.last_values,
            run: Some(o.run),
            seconds: None,
        })
    }
}

/// Replays a trace written by a program built from [`instrument`]'s output on the simulator.
/// Reductions are compared within a relative 1e-5 (the tree order differs from the sequential
/// one); arrays must be bit-identical.
pub fn replay(
    m: &Module,
    trace: &[u8],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<Replay, ReplayError> {
    let compare = opts.sample_blocks.is_none().then_some(Compare::Exact);
    replay_with(m, trace, compare, &mut SimLauncher { platform, opts })
}

/// How a replay's arrays are compared with the sequential program's.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Compare {
    /// Bit for bit (the simulator computes what C computes).
    Exact,
    /// Floating-point elements within a relative `tolerance` (at least that much of 1.0):
    /// OpenCL allows a device to contract `a * b + c` into a fused multiply-add, whose rounding
    /// differs from the sequential program's. Integers stay exact.
    Relative(f64),
}

/// [`replay`] with the launches run by `launcher`; outputs are compared with the sequential
/// run as `compare` says (`None`: not compared).
pub fn replay_with(
    m: &Module,
    trace: &[u8],
    compare: Option<Compare>,
    launcher: &mut dyn Launcher,
) -> Result<Replay, ReplayError> {
    replay_select(m, trace, compare, &Select::default(), launcher)
}

/// Why a trace cannot be replayed.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// A record where a region instance should begin.
    UnexpectedRecord(String),
    /// The trace names a region the module does not have.
    UnknownRegion,
    /// A launch uses an array without a buffer in the host plan.
    NoBuffer,
    /// The array's contents before the region are not in the trace.
    ArrayNotInTrace(String),
    /// The array's contents after the region are not in the trace.
    ArrayAfterNotInTrace(String),
    /// An array in the trace is shorter than its element type.
    TruncatedArray,
    /// A launch extent is not in the trace.
    NoExtent,
    /// A launch extent in the trace is not 8 bytes.
    BadExtent,
    /// A reduction variable is not in the trace.
    NoReductionVariable,
    /// A reduction variable in the trace has no value of its type.
    BadReductionVariable,
    /// A launch of region instance `instance` (from 1) of the region at `origin` failed.
    Launch {
        origin: String,
        instance: usize,
        error: LaunchError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::UnexpectedRecord(r) => write!(f, "unexpected trace record `{}`", r),
            ReplayError::UnknownRegion => {
                write!(f, "the trace names a region the module does not have")
            }
            ReplayError::NoBuffer => write!(f, "no buffer"),
            ReplayError::ArrayNotInTrace(a) => write!(f, "`{}` is not in the trace", a),
            ReplayError::ArrayAfterNotInTrace(a) => {
                write!(f, "`{}` after the region is not in the trace", a)
            }
            ReplayError::TruncatedArray => write!(f, "truncated array in the trace"),
            ReplayError::NoExtent => write!(f, "launch extent not in the trace"),
            ReplayError::BadExtent => write!(f, "bad extent"),
            ReplayError::NoReductionVariable => write!(f, "reduction variable not in the trace"),
            ReplayError::BadReductionVariable => write!(f, "bad reduction variable"),
            ReplayError::Launch {
                origin,
                instance,
                error,
            } => write!(f, "{} (instance {}): {}", origin, instance, error),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Launch { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Which part of a trace a replay runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Select {
    /// The variant `m` is, in [`instrument_variants`]' list (0 for [`instrument`]).
    pub variant: usize,
    /// Only the instances of this region (index into `m.host`).
    pub region: Option<usize>,
    /// At most this many region instances (after `region`'s filter).
    pub max_instances: Option<usize>,
}

/// [`replay_with`] of the instances `select` picks, with variant `select.variant`'s launches.
pub fn replay_select(
    m: &Module,
    trace: &[u8],
    compare: Option<Compare>,
    select: &Select,
    launcher: &mut dyn Launcher,
) -> Result<Replay, ReplayError> {
    let who = launcher.name();
    let recs = parse(trace);
    let mut res = Replay::default();
    let mut device = DeviceCopies::default();
    let mut i = 0;
    while i < recs.len() {
        if let Some((enter, ri)) = data_construct(&recs[i].0) {
            let region = m.host.get(ri).ok_or(ReplayError::UnknownRegion)?;
            device.data_construct(region, enter);
            i += 1;
            continue;
        }
        let ri = region_begin(&recs[i].0)?;
        let region = m.host.get(ri).ok_or(ReplayError::UnknownRegion)?;
        i += 1;
        let before = records_until(&recs, &mut i, "mid");
        let after = records_until(&recs, &mut i, "end");
        device.data_ops(region);
        if select.region.is_some_and(|r| r != ri)
            || select.max_instances.is_some_and(|n| res.instances >= n)
        {
            continue;
        }
        res.instances += 1;
        let site = Site {
            region,
            instance: res.instances,
            who: &who,
        };
        let mut arrays = instance_arrays(m, region, &before)?;
        let mut undefined = device.enter_compute(region, &arrays);
        let (set, reordered) = run_launches(
            m,
            &site,
            select.variant,
            &before,
            (&mut arrays, &mut undefined),
            launcher,
            &mut res,
        )?;
        device.leave_compute(region, undefined);
        if let Some((a, b)) = aliased_arrays(m, region, &before, &arrays) {
            res.aliased.push(format!(
                "{} (instance {}): `{}` and `{}` are one host array (one device copy), which the replay gives two buffers: its outputs are not compared",
                region.origin, site.instance, a, b
            ));
            continue;
        }
        let Some(how) = compare else {
            continue;
        };
        // Bit-identical arrays cannot be asked of values computed from a reordered sum (the
        // reduction itself is compared within 1e-5 below): the same tolerance then.
        let how = match how {
            Compare::Exact if reordered => {
                res.reordered += 1;
                Compare::Relative(1e-5)
            }
            how => how,
        };
        compare_arrays(m, &site, how, &arrays, &after, &mut res.mismatches)?;
        compare_reductions(&site, &set, &after, &mut res.mismatches)?;
    }
    Ok(res)
}

/// Two arrays of the instance whose host bytes overlap (the trace's `P:` records: their
/// addresses; the arrays' lengths), if any.
fn aliased_arrays(
    m: &Module,
    region: &HostRegion,
    before: &Records,
    arrays: &BTreeMap<String, BufData>,
) -> Option<(String, String)> {
    let spans: Vec<(&String, u64, u64)> = (arrays.iter())
        .filter_map(|(a, data)| {
            let p = u64::from_le_bytes(before.get(&format!("P:{}", a))?.get(..8)?.try_into().ok()?);
            let elem = buffer_info(m, region, a)?.elem.size() as u64;
            Some((a, p, p + data.len() as u64 * elem))
        })
        .filter(|(_, lo, hi)| lo < hi)
        .collect();
    for (i, (a, lo, hi)) in spans.iter().enumerate() {
        for (b, lo2, hi2) in &spans[i + 1..] {
            if lo < hi2 && lo2 < hi {
                return Some(((*a).clone(), (*b).clone()));
            }
        }
    }
    None
}

/// The trace's records of one instance (before or after it), by tag.
type Records<'t> = BTreeMap<String, &'t [u8]>;

/// A region instance being replayed, for messages: its region, its number (from 1) and who
/// runs its launches.
struct Site<'a> {
    region: &'a HostRegion,
    instance: usize,
    who: &'a str,
}

/// A data construct's entry (`data:N`, true) or exit (`dend:N`) record: (entry, region).
fn data_construct(tag: &str) -> Option<(bool, usize)> {
    let (enter, n) = match tag.split_once(':')? {
        ("data", n) => (true, n),
        ("dend", n) => (false, n),
        _ => return None,
    };
    Some((enter, n.parse().ok()?))
}

/// The region index of a `begin:` record's tag.
fn region_begin(tag: &str) -> Result<usize, ReplayError> {
    tag.strip_prefix("begin:")
        .and_then(|x| x.parse::<usize>().ok())
        .ok_or_else(|| ReplayError::UnexpectedRecord(tag.to_string()))
}

/// The records from `*i` up to the next one tagged `end` (or the trace's end), which `*i` then
/// passes.
fn records_until<'t>(
    recs: &[(std::borrow::Cow<'_, str>, &'t [u8])],
    i: &mut usize,
    end: &str,
) -> Records<'t> {
    let mut out = BTreeMap::new();
    while *i < recs.len() && recs[*i].0 != end {
        out.insert(recs[*i].0.to_string(), recs[*i].1);
        *i += 1;
    }
    *i += 1;
    out
}

/// The host arrays the region's launches use, as the trace recorded them before the instance.
fn instance_arrays(
    m: &Module,
    region: &HostRegion,
    before: &Records,
) -> Result<BTreeMap<String, BufData>, ReplayError> {
    let mut arrays = BTreeMap::new();
    for a in region_arrays(region) {
        let b = buffer_info(m, region, &a).ok_or(ReplayError::NoBuffer)?;
        let data = before
            .get(&format!("A:{}", a))
            .ok_or_else(|| ReplayError::ArrayNotInTrace(a.clone()))?;
        arrays.insert(
            a.clone(),
            BufData::from_le_bytes(b.elem, data).ok_or(ReplayError::TruncatedArray)?,
        );
    }
    Ok(arrays)
}

/// Runs the instance's launches (variant `vi`) on `arrays`, adding their runs and times to
/// `res`. Returns the host scalars the launches set (last values read back, reductions
/// finished), and whether a floating-point reduction finished before the last launch.
fn run_launches(
    m: &Module,
    site: &Site,
    vi: usize,
    before: &Records,
    (arrays, undefined): (
        &mut BTreeMap<String, BufData>,
        &mut BTreeMap<String, Vec<bool>>,
    ),
    launcher: &mut dyn Launcher,
    res: &mut Replay,
) -> Result<(BTreeMap<String, BufData>, bool), ReplayError> {
    let region = site.region;
    // The host's scalars this instance's launches have set so far (last values read back,
    // reductions finished): a later launch's argument naming one gets the value the host
    // code would pass, not the one the trace recorded before the region (gramschmidt's
    // `nrm = 0` kernel, then its reduction, then `R[k][k] = sqrt(nrm)`).
    let mut set: BTreeMap<String, BufData> = BTreeMap::new();
    // A floating-point reduction finished before the instance's last launch: the launches
    // after it compute from a sum in another order than the sequential program's.
    let mut reordered = false;
    for (li, l) in region.launches.iter().enumerate() {
        let scalar = |ai: usize, ty: Scalar| {
            match l.args.get(ai) {
                Some(HostArg::Scalar { expr, .. }) if !set.is_empty() => {
                    if let Some(v) = expr.variable().and_then(|v| set.get(v)) {
                        return buf_arg(v);
                    }
                    if set.keys().any(|v| expr.mentions(v)) {
                        // Computed from a value the region changed: not known here.
                        return None;
                    }
                }
                Some(HostArg::LastValue { var, .. }) => {
                    if let Some(v) = set.get(var) {
                        return buf_arg(v);
                    }
                }
                _ => {}
            }
            scalar_arg(before.get(&format!("S:{}:{}:{}", vi, li, ai))?, ty)
        };
        let extent = launch_extent(before, vi, li)?;
        let outcome = launcher
            .launch_tracking(m, l, arrays, undefined, &scalar, extent)
            .map_err(|error| ReplayError::Launch {
                origin: region.origin.clone(),
                instance: site.instance,
                error,
            })?;
        for (var, value) in &outcome.last_values {
            set.insert(var.clone(), value.clone());
        }
        // A kernel that sums floating-point values across lanes (`kernel::lower::lanes`).
        reordered |= m
            .kernels
            .get(l.kernel)
            .is_some_and(crate::kernel::Kernel::reorders_floats);
        for (red, (_, parts)) in l.reductions.iter().zip(outcome.partials.iter()) {
            // A value the region set (the same variable: the same type), else the host's.
            let init = match set.get(&red.var) {
                Some(v) => v.raw_value(0),
                None => host_reduction_value(before, red.ty, &red.var)?,
            };
            let value = combine_partials(red.op, red.ty, init, parts);
            reordered |= red.ty.is_float() && li + 1 < region.launches.len();
            let mut b = BufData::zeroed(red.ty, 1);
            b.set_raw(0, value);
            set.insert(red.var.clone(), b);
        }
        if let Some(run) = outcome.run {
            res.runs.push(run);
        }
        if let Some(t) = outcome.seconds {
            res.kernel_seconds.push((l.kernel, t));
        }
    }
    Ok((set, reordered))
}

/// The work-items per dimension of launch `li` of variant `vi`, as the trace recorded them.
fn launch_extent(before: &Records, vi: usize, li: usize) -> Result<[u64; 3], ReplayError> {
    let mut extent = [1u64; 3];
    for (d, e) in extent.iter_mut().enumerate() {
        let b = before
            .get(&format!("E:{}:{}:{}", vi, li, d))
            .ok_or(ReplayError::NoExtent)?;
        let v = i64::from_le_bytes((*b).try_into().map_err(|_| ReplayError::BadExtent)?);
        *e = v.max(0) as u64;
    }
    Ok(extent)
}

/// The raw value of the host's reduction variable `var` (of type `ty`) before the instance.
fn host_reduction_value(before: &Records, ty: Scalar, var: &str) -> Result<u64, ReplayError> {
    let b = before
        .get(&format!("V:{}", var))
        .ok_or(ReplayError::NoReductionVariable)?;
    Ok(BufData::from_le_bytes(ty, b)
        .filter(|b| !b.is_empty())
        .ok_or(ReplayError::BadReductionVariable)?
        .raw_value(0))
}

/// Whether a replayed element `g` differs from the sequential one `w` under `how` (`float`:
/// a floating-point array).
fn differs(how: Compare, w: Option<f64>, g: Option<f64>, float: bool) -> bool {
    match (how, w, g) {
        (Compare::Relative(t), Some(w), Some(g)) if float => {
            !((w - g).abs() <= t * w.abs().max(1.0) || (w.is_nan() && g.is_nan()))
        }
        _ => w.map(f64::to_bits) != g.map(f64::to_bits),
    }
}

/// Compares the replayed `arrays` with the sequential program's after the instance; each
/// array that differs adds a line to `mismatches`.
fn compare_arrays(
    m: &Module,
    site: &Site,
    how: Compare,
    arrays: &BTreeMap<String, BufData>,
    after: &Records,
    mismatches: &mut Vec<String>,
) -> Result<(), ReplayError> {
    for (name, got) in arrays {
        let b = buffer_info(m, site.region, name).ok_or(ReplayError::NoBuffer)?;
        let Some(want) = after
            .get(&format!("A:{}", name))
            .and_then(|d| BufData::from_le_bytes(b.elem, d))
        else {
            return Err(ReplayError::ArrayAfterNotInTrace(name.clone()));
        };
        let float = b.elem.is_float();
        let bad: Vec<usize> = if &want == got {
            Vec::new()
        } else if want.len() != got.len() {
            vec![want.len().min(got.len())]
        } else {
            (0..want.len())
                .filter(|&k| differs(how, want.get_f64(k), got.get_f64(k), float))
                .collect()
        };
        if !bad.is_empty() {
            let k = bad.first().copied().unwrap_or(0);
            mismatches.push(format!(
                "{} (instance {}): `{}` differs at {} elements, first [{}]: sequential {:?}, {} {:?}",
                site.region.origin,
                site.instance,
                name,
                bad.len(),
                k,
                want.get_f64(k),
                site.who,
                got.get_f64(k)
            ));
        }
    }
    Ok(())
}

/// Compares the reductions the launches finished (`set`) with the sequential program's after
/// the instance, within a relative 1e-5; each that differs adds a line to `mismatches`.
fn compare_reductions(
    site: &Site,
    set: &BTreeMap<String, BufData>,
    after: &Records,
    mismatches: &mut Vec<String>,
) -> Result<(), ReplayError> {
    for l in &site.region.launches {
        for red in &l.reductions {
            let want = after
                .get(&format!("V:{}", red.var))
                .and_then(|b| BufData::from_le_bytes(red.ty, b))
                .and_then(|b| b.get_f64(0))
                .ok_or(ReplayError::NoReductionVariable)?;
            let got = set
                .get(&red.var)
                .and_then(|v| v.get_f64(0))
                .unwrap_or(f64::NAN);
            if (want - got).abs() > 1e-5 * want.abs().max(1.0) {
                mismatches.push(format!(
                    "{} (instance {}): reduction `{}`: sequential {}, {} {}",
                    site.region.origin, site.instance, red.var, want, site.who, got
                ));
            }
        }
    }
    Ok(())
}

/// Everything `accshare run --device sim` and `accshare analyze` need for one compiled file:
/// builds and runs the traced program, replays every region instance on the simulator (compared
/// with the sequential run unless sampling), and builds the memory-model report.
pub fn run_module(
    src: &std::path::Path,
    module: &Module,
    pp: &crate::front::preprocess::PpOptions,
    platform: &SimPlatform,
    opts: &SimOptions,
    work_dir: &std::path::Path,
) -> Result<(Replay, Report), TraceError> {
    run_module_linked(src, &[], module, pp, platform, opts, work_dir)
}

/// [`run_module`] for a program whose other translation units `link` are compiled into the
/// traced build ([`build_and_trace_variants`]).
pub fn run_module_linked(
    src: &std::path::Path,
    link: &[PathBuf],
    module: &Module,
    pp: &crate::front::preprocess::PpOptions,
    platform: &SimPlatform,
    opts: &SimOptions,
    work_dir: &std::path::Path,
) -> Result<(Replay, Report), TraceError> {
    let (defs, incs) = (&pp.defines, &pp.include_dirs);
    let trace = build_and_trace_variants(src, &[module], defs, incs, link, work_dir)?;
    let rep = replay(module, &trace, platform, opts)?;
    let report = analyze(&rep.runs, platform);
    Ok((rep, report))
}
