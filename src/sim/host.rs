//! Running the host plan's launches on the simulator, with arrays addressed by name.

use std::collections::BTreeMap;

use super::value::{self, to_scalar, truth, ty_of, Ty};
use super::*;
use crate::kernel::{HostArg, KExpr, KStmt, Kernel, LValue, Launch, Module, Space};
use crate::vocab::BinOp;
use crate::vocab::RedOp;

/// Work-groups needed to cover `extent` work-items per dimension (the host rounds up).
pub fn grid_for(kernel: &Kernel, extent: [u64; 3]) -> [u32; 3] {
    let mut g = [1u32; 3];
    for d in 0..3 {
        let b = kernel.block[d].max(1) as u64;
        g[d] = extent[d].div_ceil(b).clamp(1, u32::MAX as u64) as u32;
    }
    g
}

/// What a launch returns besides its statistics: the partial results of its reductions.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchOutcome {
    pub run: RunResult,
    /// Per reduction of the launch: its variable and the partial results (one per work-group).
    pub partials: Vec<(String, BufData)>,
    /// Per last value of the launch: its variable and its buffer after the launch.
    pub last_values: Vec<(String, BufData)>,
}

/// The global arrays kernel `k` copies into local memory: the value of a store into a local
/// array that loads one, or a vector load of one in a kernel with local arrays (the narrow
/// tiles' copies load vectors and store their lanes).
fn tiled_arrays(k: &Kernel) -> std::collections::BTreeSet<String> {
    use crate::ir::Handle;
    use crate::kernel::KArray;
    // The global arrays `e` loads, at any depth.
    fn loads(k: &Kernel, e: &KExpr, out: &mut Vec<Handle<KArray>>) {
        if let KExpr::Load(r) = e {
            if k.arrays[r.array].space() == Space::Global {
                out.push(r.array);
            }
        }
        e.for_each_child(&mut |c| loads(k, c, out));
    }
    fn walk(k: &Kernel, s: &KStmt, out: &mut Vec<Handle<KArray>>) {
        match s {
            KStmt::Assign {
                target: LValue::Elem(r),
                value,
                ..
            } if k.arrays[r.array].space() == Space::Local => loads(k, value, out),
            KStmt::VecLoad { src, .. } if k.arrays[src.array].space() == Space::Global => {
                out.push(src.array)
            }
            _ => s.for_each_child(&mut |c| walk(k, c, out)),
        }
    }
    let mut out = Vec::new();
    if !k.locals.is_empty() {
        k.body.iter().for_each(|s| walk(k, s, &mut out));
    }
    out.into_iter().map(|h| k.arrays[h].name.clone()).collect()
}

/// Runs one launch of the host plan. `arrays` holds the device buffers by the user's array
/// names (updated in place); `scalar(i, ty)` gives the value of the launch's argument `i` (a
/// scalar, or a last value's variable) as the host computed it; `extent` is the launch's
/// `extent` evaluated.
pub fn run_launch(
    module: &Module,
    launch: &Launch,
    arrays: &mut BTreeMap<String, BufData>,
    scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
    extent: [u64; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<LaunchOutcome, SimError> {
    let mut none = BTreeMap::new();
    run_launch_tracking(
        module, launch, arrays, &mut none, scalar, extent, platform, opts,
    )
}

/// [`run_launch`] under the checker with, by array name, the elements of the device copies
/// that nothing defined yet (`undefined`, updated: what the launch wrote is defined after it).
/// The checker reports a kernel's read of one (`FindingKind::UndefinedGlobal`).
#[allow(clippy::too_many_arguments)]
pub fn run_launch_tracking(
    module: &Module,
    launch: &Launch,
    arrays: &mut BTreeMap<String, BufData>,
    undefined: &mut BTreeMap<String, Vec<bool>>,
    scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
    extent: [u64; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<LaunchOutcome, SimError> {
    let kernel = module
        .kernels
        .get(launch.kernel)
        .ok_or_else(|| SimError::BadArgs(format!("no kernel {}", launch.kernel)))?;
    let mut grid = grid_for(kernel, extent);
    if let Some(stride) = launch.stride {
        // A grid-stride kernel's host launches a few work-groups per compute unit.
        let launched = stride.launched(grid.map(u64::from), platform.sms);
        grid = launched.map(|g| g.clamp(1, u64::from(u32::MAX)) as u32);
    }
    let groups = grid.iter().map(|&g| g as usize).product::<usize>();
    let mut bufs: Vec<BufData> = Vec::new();
    let mut names: Vec<Option<String>> = Vec::new();
    let mut args = Vec::new();
    let mut partial_slots = Vec::new();
    let mut last_slots = Vec::new();
    let restore =
        |bufs: Vec<BufData>, names: &[Option<String>], arrays: &mut BTreeMap<String, BufData>| {
            for (b, n) in bufs.into_iter().zip(names.iter()) {
                if let Some(n) = n {
                    arrays.insert(n.clone(), b);
                }
            }
        };
    for (i, (a, p)) in launch.args.iter().zip(kernel.params.iter()).enumerate() {
        match a {
            HostArg::Buffer(name) => match arrays.remove(name) {
                Some(b) => {
                    args.push(ArgValue::Buffer(bufs.len()));
                    bufs.push(b);
                    names.push(Some(name.clone()));
                }
                None => {
                    restore(bufs, &names, arrays);
                    return Err(SimError::BadArgs(format!("no buffer for `{}`", name)));
                }
            },
            HostArg::Partials(i) => {
                let Some(r) = launch.reductions.get(*i) else {
                    restore(bufs, &names, arrays);
                    return Err(SimError::BadArgs(format!("no reduction {}", i)));
                };
                args.push(ArgValue::Buffer(bufs.len()));
                partial_slots.push((r.var.clone(), bufs.len()));
                bufs.push(BufData::zeroed(r.ty, groups));
                names.push(None);
            }
            HostArg::LastValue { var, ty } => {
                // The variable's value before the launch; the kernel may store another, which
                // the host code assigns to the variable (and the replay too: `last_values`).
                last_slots.push((var.clone(), bufs.len()));
                let mut b = BufData::zeroed(*ty, 1);
                match scalar(i, *ty) {
                    Some(ArgValue::Int(v)) => b.set_raw(0, v as u64),
                    Some(ArgValue::Float(v)) => match &mut b {
                        BufData::F32(x) => x[0] = v as f32,
                        BufData::F64(x) => x[0] = v,
                        _ => b.set_raw(0, v as i64 as u64),
                    },
                    _ => {}
                }
                args.push(ArgValue::Buffer(bufs.len()));
                bufs.push(b);
                names.push(None);
            }
            HostArg::Scalar { expr, ty } => match scalar(i, *ty) {
                Some(v) => args.push(v),
                None => {
                    restore(bufs, &names, arrays);
                    return Err(SimError::BadArgs(format!(
                        "no value for the argument `{}` of `{}` (parameter `{}`)",
                        crate::back::host::host_expr(expr),
                        kernel.name,
                        p.name
                    )));
                }
            },
        }
    }
    // A staged kernel copies whole tiles into local memory, elements it overwrites before
    // reading them too: those copies are not the program's reads. Its tiled arrays are left
    // out (and taken as defined after it); `--opt naive` checks them.
    let tiled = tiled_arrays(kernel);
    for t in &tiled {
        undefined.remove(t);
    }
    let tracked: BTreeMap<usize, Vec<bool>> = (names.iter().enumerate())
        .filter_map(|(i, n)| Some((i, undefined.get(n.as_ref()?)?.clone())))
        .filter(|(_, u)| u.iter().any(|&x| x))
        .collect();
    let r = if opts.check && !tracked.is_empty() {
        let opts = SimOptions {
            undefined: tracked,
            ..opts.clone()
        };
        run_kernel(
            module,
            launch.kernel,
            &args,
            &mut bufs,
            grid,
            platform,
            &opts,
        )
    } else {
        run_kernel(
            module,
            launch.kernel,
            &args,
            &mut bufs,
            grid,
            platform,
            opts,
        )
    };
    if let Ok(r) = &r {
        for (i, still) in &r.undefined {
            if let Some(Some(n)) = names.get(*i) {
                undefined.insert(n.clone(), still.clone());
            }
        }
    }
    let partials = partial_slots
        .iter()
        .map(|(v, i)| (v.clone(), bufs[*i].clone()))
        .collect();
    let last_values = last_slots
        .iter()
        .map(|(v, i)| (v.clone(), bufs[*i].clone()))
        .collect();
    restore(bufs, &names, arrays);
    Ok(LaunchOutcome {
        run: r?,
        partials,
        last_values,
    })
}

/// The host's end of a reduction: `init op p0 op p1 …` in the variable's type. Values are the
/// simulator's raw representation of `ty` (see [`value`]); use [`raw_from_f64`] and
/// [`f64_from_raw`] to convert.
pub fn combine_partials(op: RedOp, ty: Scalar, init: u64, partials: &BufData) -> u64 {
    let t = ty_of(ty);
    let mut acc = init;
    for i in 0..partials.len() {
        let p = partials.raw(i);
        acc = match op {
            RedOp::LogAnd => (truth(acc, t) && truth(p, t)) as u64,
            RedOp::LogOr => (truth(acc, t) || truth(p, t)) as u64,
            RedOp::Max | RedOp::Min => {
                let mut a = vec![acc];
                value::bin_lanes(BinOp::Lt, t, t, &mut a, &[p]);
                let lt = a[0] != 0;
                if lt == (op == RedOp::Max) {
                    p
                } else {
                    acc
                }
            }
            _ => {
                let bop = match op {
                    RedOp::Add => BinOp::Add,
                    RedOp::Mul => BinOp::Mul,
                    RedOp::BitAnd => BinOp::BitAnd,
                    RedOp::BitOr => BinOp::BitOr,
                    _ => BinOp::BitXor,
                };
                let mut a = vec![acc];
                value::bin_lanes(bop, t, t, &mut a, &[p]);
                a[0]
            }
        };
        acc = to_scalar(acc, t, ty);
    }
    acc
}

pub fn raw_from_f64(v: f64, ty: Scalar) -> u64 {
    if ty.is_float() {
        to_scalar(v.to_bits(), Ty::F64, ty)
    } else {
        to_scalar(v as i64 as u64, Ty::I64, ty)
    }
}

/// An integer as C converts it to `ty`, in the simulator's raw representation.
pub fn raw_from_i64(v: i64, ty: Scalar) -> u64 {
    to_scalar(v as u64, Ty::I64, ty)
}

pub fn f64_from_raw(v: u64, ty: Scalar) -> f64 {
    value::f64_of(v, ty_of(ty))
}
