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
use crate::kernel::{Buffer, HostArg, HostExpr, HostRegion, Launch, Module};

const PRELUDE: &str = r#"#include <stdio.h>
#include <string.h>
static FILE *accshare_tf;
static void accshare_w(const char *tag, const void *p, long bytes)
{
    long n = (long)strlen(tag);
    if (!accshare_tf)
        accshare_tf = fopen(ACCSHARE_TRACE, "wb");
    if (!accshare_tf)
        return;
    fwrite(&n, sizeof n, 1, accshare_tf);
    fwrite(tag, 1, (size_t)n, accshare_tf);
    fwrite(&bytes, sizeof bytes, 1, accshare_tf);
    if (bytes > 0)
        fwrite(p, 1, (size_t)bytes, accshare_tf);
    fflush(accshare_tf);
}
/* The host blocks the program's data clauses name, newest last: a `present` array whose length
   the clause does not give is traced to the end of the block holding it. */
static struct { const char *p; long n; } accshare_pt[4096];
static int accshare_np;
static void accshare_reg(const void *p, long bytes)
{
    int i;
    if (!p || bytes <= 0)
        return;
    for (i = 0; i < accshare_np; i++)
        if (accshare_pt[i].p == (const char *)p) {
            accshare_pt[i].n = bytes;
            return;
        }
    if (accshare_np < 4096) {
        accshare_pt[accshare_np].p = (const char *)p;
        accshare_pt[accshare_np].n = bytes;
        accshare_np++;
    }
}
static long accshare_len(const void *p)
{
    const char *q = (const char *)p;
    int i;
    for (i = accshare_np - 1; i >= 0; i--)
        if (q >= accshare_pt[i].p && q < accshare_pt[i].p + accshare_pt[i].n)
            return (long)(accshare_pt[i].p + accshare_pt[i].n - q);
    return 0;
}
"#;

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

/// The user's main file with trace writes around every compute region.
pub fn instrument(text: &str, m: &Module) -> Result<String, TraceError> {
    instrument_variants(text, &[m])
}

/// [`instrument`] for several compilations of one file that differ only in their schedules
/// (`accshare tune`'s variants): the arrays are written once, each variant's launch arguments
/// and extents under its index, so that one run of the sequential program serves them all
/// ([`Select::variant`]).
pub fn instrument_variants(text: &str, modules: &[&Module]) -> Result<String, TraceError> {
    instrument_resolved(text, modules, &[])
}

/// [`instrument_variants`] leaving out the ranges `cuts` of `text`
/// ([`crate::back::output::sequential_cuts`]: the conditional groups the regions cut, resolved
/// as accshare's preprocessor took them, so that the code inserted at a region's ends is not
/// in a branch the C compiler skips).
pub fn instrument_resolved(
    text: &str,
    modules: &[&Module],
    cuts: &[std::ops::Range<usize>],
) -> Result<String, TraceError> {
    let Some(m) = modules.first() else {
        return Err(TraceError::NoModule);
    };
    if modules.iter().any(|v| v.host.len() != m.host.len()) {
        return Err(TraceError::VariantsDiffer);
    }
    // (position, nesting order at one position, text): at one position, the end of an
    // enclosing data construct is inserted first, so that it ends up after what follows.
    let mut inserts: Vec<(usize, u8, String)> = Vec::new();
    for (ri, r) in m.host.iter().enumerate() {
        if r.keep_body.is_some() {
            // A data construct's lifetime, for the device copies its clauses create
            // (`undefined::DeviceCopies`), and the blocks they name.
            inserts.push((
                r.replace.start,
                1,
                format!(
                    "{{ accshare_w(\"data:{}\", 0, 0);\n{}",
                    ri,
                    registrations(r)
                ),
            ));
            inserts.push((
                r.replace.end,
                0,
                format!("\naccshare_w(\"dend:{}\", 0, 0); }}\n", ri),
            ));
            continue;
        }
        let mut dump_arrays = String::new();
        for a in region_arrays(r) {
            let b = buffer_info(m, r, &a).ok_or_else(|| TraceError::NoBuffer(a.clone()))?;
            // A section that starts past 0 (`copyin(u[lo:n])`) is traced from element 0 to its
            // end: the replay's buffers start at the array's start, and kernels index with the
            // host's indices. An array of unknown length (`present` or `deviceptr` in a
            // callee): to the end of the block a data clause named before.
            let count = match &b.start {
                Some(st) => format!("({}) + ({})", host_expr(st), host_expr(&b.count)),
                None if b.count == HostExpr::Int(0) => format!(
                    "accshare_len({}) / (long)sizeof({})",
                    crate::back::host::host_ptr(b.elem.c_name(), &b.array),
                    b.elem.c_name()
                ),
                None => host_expr(&b.count),
            };
            dump_arrays.push_str(&format!(
                "accshare_w(\"A:{}\", {}, (long)({}) * (long)sizeof({}));\n",
                a,
                crate::back::host::host_ptr(b.elem.c_name(), &b.array),
                count,
                b.elem.c_name()
            ));
        }
        let mut vars = String::new();
        for l in &r.launches {
            for red in &l.reductions {
                vars.push_str(&format!(
                    "accshare_w(\"V:{}\", &{}, (long)sizeof {});\n",
                    red.var, red.var, red.var
                ));
            }
        }
        let mut before = format!(
            "{{ accshare_w(\"begin:{}\", 0, 0);\n{}{}{}",
            ri,
            registrations(r),
            dump_arrays,
            vars
        );
        for (vi, v) in modules.iter().enumerate() {
            for (li, l) in v.host[ri].launches.iter().enumerate() {
                for (ai, a) in l.args.iter().enumerate() {
                    let (e, ty) = match a {
                        HostArg::Scalar { expr, ty } => (host_expr(expr), ty),
                        HostArg::LastValue { var, ty } => (var.clone(), ty),
                        _ => continue,
                    };
                    before.push_str(&format!(
                        "{{ {t} accshare_v = ({t})({e}); accshare_w(\"S:{vi}:{li}:{ai}\", &accshare_v, (long)sizeof accshare_v); }}\n",
                        t = ty.c_name(),
                    ));
                }
                for (d, e) in l.extent.iter().enumerate() {
                    before.push_str(&format!(
                        "{{ long accshare_v = (long)({}); accshare_w(\"E:{}:{}:{}\", &accshare_v, 8); }}\n",
                        host_expr(e),
                        vi,
                        li,
                        d
                    ));
                }
            }
        }
        before.push_str("accshare_w(\"mid\", 0, 0);\n");
        let after = format!("\n{}{}accshare_w(\"end\", 0, 0); }}\n", dump_arrays, vars);
        inserts.push((r.replace.start, 1, before));
        inserts.push((r.replace.end, 1, after));
    }
    // A cut is applied before an insertion at its start (it does not take the inserted text).
    for c in cuts {
        if inserts.iter().any(|(p, _, _)| c.start < *p && *p < c.end) {
            return Err(TraceError::BoundaryOutside(c.start));
        }
        inserts.push((c.start, 0, String::new()));
    }
    inserts.sort_by_key(|(p, order, s)| (std::cmp::Reverse(*p), !s.is_empty(), *order));
    let mut out = text.to_string();
    for (p, _, s) in inserts {
        if p > out.len() || !out.is_char_boundary(p) {
            return Err(TraceError::BoundaryOutside(p));
        }
        if s.is_empty() {
            if let Some(c) = cuts.iter().find(|c| c.start == p) {
                if c.end > out.len() || !out.is_char_boundary(c.end) {
                    return Err(TraceError::BoundaryOutside(c.end));
                }
                out.replace_range(c.clone(), "");
            }
            continue;
        }
        out.insert_str(p, &s);
    }
    Ok(format!("{}{}", PRELUDE, out))
}

/// The traced build's registrations of the host blocks region `r`'s data clauses (of known
/// length, `present` ones too) and `enter data` actions name (`accshare_reg`), for the arrays
/// of unknown length later.
fn registrations(r: &HostRegion) -> String {
    let reg = |array: &str, elem: Scalar, start: &Option<HostExpr>, count: &HostExpr| {
        let n = match start {
            Some(st) => format!("({}) + ({})", host_expr(st), host_expr(count)),
            None => host_expr(count),
        };
        format!(
            "accshare_reg({}, (long)({}) * (long)sizeof({}));\n",
            crate::back::host::host_ptr(elem.c_name(), array),
            n,
            elem.c_name()
        )
    };
    let mut s = String::new();
    for b in (r.buffers.iter()).filter(|b| !b.scalar && b.count != HostExpr::Int(0)) {
        s.push_str(&reg(&b.array, b.elem, &b.start, &b.count));
    }
    for op in r.data_ops.iter().filter(|op| !op.scalar) {
        if matches!(op.kind, crate::kernel::DataOpKind::Enter { .. }) {
            s.push_str(&reg(&op.array, op.elem, &op.start, &op.count));
        }
    }
    s
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

/// The ranges of the main file `text` its instrumented copy leaves out: the conditional groups
/// `m`'s regions cut, resolved as accshare's preprocessor took them (run again here with the
/// compilation's `defines` and `include_dirs`; its diagnostics were the compilation's).
fn sequential_cuts(
    src: &std::path::Path,
    text: &str,
    m: &Module,
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
) -> Vec<std::ops::Range<usize>> {
    let mut sources = crate::diag::SourceMap::new();
    let mut diags = crate::diag::Diags::new();
    let main = sources.add(
        src.display().to_string(),
        src.to_path_buf(),
        text.to_string(),
    );
    let opts = crate::front::preprocess::PpOptions {
        defines: defines.to_vec(),
        include_dirs: include_dirs.to_vec(),
    };
    let pp = crate::front::preprocess::preprocess(&mut sources, main, &opts, &mut diags);
    let groups = crate::back::output::main_conditionals(&pp, main);
    crate::back::output::sequential_cuts(text, &m.host, &groups)
}

/// Builds the instrumented program with the C compiler (`$CC`, default `cc`) in `work_dir`, runs
/// it, and returns the trace. `defines` are the `-D` options the program was compiled with by
/// accshare; the source's folder and `include_dirs` are on the include path.
pub fn build_and_trace(
    src: &std::path::Path,
    module: &Module,
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
    work_dir: &std::path::Path,
) -> Result<Vec<u8>, TraceError> {
    build_and_trace_variants(src, &[module], defines, include_dirs, work_dir)
}

/// [`build_and_trace`] for the variants of [`instrument_variants`]: one run of the sequential
/// program records the launches of them all.
pub fn build_and_trace_variants(
    src: &std::path::Path,
    modules: &[&Module],
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
    work_dir: &std::path::Path,
) -> Result<Vec<u8>, TraceError> {
    use std::process::{Command, Stdio};
    let text = std::fs::read_to_string(src).map_err(|error| TraceError::Read {
        path: src.to_path_buf(),
        error,
    })?;
    std::fs::create_dir_all(work_dir).map_err(TraceError::Io)?;
    let c = work_dir.join("accshare_traced.c");
    let exe = work_dir.join("accshare_traced");
    let trace = work_dir.join("accshare_trace.bin");
    let _ = std::fs::remove_file(&trace);
    let cuts = match modules.first() {
        Some(m) => sequential_cuts(src, &text, m, defines, include_dirs),
        None => Vec::new(),
    };
    std::fs::write(&c, instrument_resolved(&text, modules, &cuts)?).map_err(TraceError::Io)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut cmd = Command::new(&cc);
    cmd.args(["-std=gnu99", "-O1", "-ffp-contract=off", "-w"])
        .arg(format!("-DACCSHARE_TRACE=\"{}\"", trace.display()));
    if let Some(dir) = src.parent() {
        cmd.arg("-I").arg(if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        });
    }
    for d in include_dirs {
        cmd.arg("-I").arg(d);
    }
    for (n, v) in defines {
        match v {
            Some(v) => cmd.arg(format!("-D{}={}", n, v)),
            None => cmd.arg(format!("-D{}", n)),
        };
    }
    let out = cmd
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .map_err(|error| TraceError::CannotRun {
            cc: cc.clone(),
            error,
        })?;
    if !out.status.success() {
        return Err(TraceError::CompileFailed {
            cc,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let st = Command::new(&exe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(TraceError::Io)?;
    if !st.success() {
        return Err(TraceError::Exited(st));
    }
    std::fs::read(&trace).map_err(TraceError::NoTrace)
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
    let trace = build_and_trace(src, module, &pp.defines, &pp.include_dirs, work_dir)?;
    let rep = replay(module, &trace, platform, opts)?;
    let report = analyze(&rep.runs, platform);
    Ok((rep, report))
}
