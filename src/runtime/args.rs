//! A launch's arguments resolved from a replay's host data, without a device: what the OpenCL
//! launcher (`runtime::run`) and the CUDA one (`runtime::cuda_run`) both need before they make
//! buffers. Each argument of the kernel, in parameter order, is either a scalar in the
//! simulator's raw representation of its type, or a buffer with its contents (borrowed from the
//! replay's arrays where it is one) and the user array it is read back into when the kernel
//! writes it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::kernel::{HostArg, KParamKind, Kernel, Launch, Module};
use crate::sim::host::{grid_for, raw_from_f64, raw_from_i64};
use crate::sim::trace::LaunchError;
use crate::sim::{ArgValue, BufData};
use crate::vocab::Scalar;

/// One argument of a launch.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg<'a> {
    /// A scalar parameter of type `ty`, its value in the simulator's raw representation.
    Scalar { ty: Scalar, raw: u64 },
    /// A pointer parameter: a buffer holding `data` (elements of `elem`), read back into the
    /// user array `write_back` names after the launch.
    Buffer {
        elem: Scalar,
        data: Cow<'a, BufData>,
        write_back: Option<String>,
    },
}

/// A launch resolved on the host.
#[derive(Clone, Debug)]
pub struct Args<'a> {
    pub kernel: &'a Kernel,
    /// Blocks per dimension (`sim::host::grid_for`: 1 beyond the kernel's dimensions).
    pub grid: [u32; 3],
    /// The arguments, in the kernel's parameter order.
    pub args: Vec<Arg<'a>>,
    /// Per reduction of the launch: its variable and the argument holding its partials (one
    /// element per block).
    pub partials: Vec<(String, usize)>,
    /// Per last value of the launch: its variable and the argument holding it (read back after
    /// the launch, as the host code does).
    pub last_values: Vec<(String, usize)>,
}

/// Resolves `launch` of module `m` on the host data a replay gives (`arrays` by the user's
/// names, `scalar(i, ty)` the value of argument `i`, `extent` the work-items per dimension) for
/// a device of `units` compute units (a grid-stride kernel's grid depends on them).
pub fn resolve<'a>(
    m: &'a Module,
    launch: &Launch,
    arrays: &'a BTreeMap<String, BufData>,
    scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
    extent: [u64; 3],
    units: u32,
) -> Result<Args<'a>, LaunchError> {
    let k = m
        .kernels
        .get(launch.kernel)
        .ok_or(LaunchError::NoKernel(launch.kernel))?;
    let mut grid = grid_for(k, extent);
    if let Some(stride) = launch.stride {
        let launched = stride.launched(grid.map(u64::from), units);
        grid = launched.map(|g| g.clamp(1, u64::from(u32::MAX)) as u32);
    }
    let groups: usize = grid.iter().map(|&g| g as usize).product();
    let value = |i: usize, ty: Scalar| -> Result<u64, LaunchError> {
        match scalar(i, ty) {
            Some(ArgValue::Int(v)) => Ok(raw_from_i64(v, ty)),
            Some(ArgValue::Float(v)) => Ok(raw_from_f64(v, ty)),
            _ => Err(LaunchError::NoArgValue {
                index: i,
                kernel: k.name.clone(),
            }),
        }
    };
    let mut args = Vec::new();
    let mut partials = Vec::new();
    let mut last_values = Vec::new();
    for (i, (a, p)) in launch.args.iter().zip(&k.params).enumerate() {
        match (a, &p.kind) {
            (HostArg::Scalar { .. }, KParamKind::Scalar { ty, .. }) => args.push(Arg::Scalar {
                ty: *ty,
                raw: value(i, *ty)?,
            }),
            (
                _,
                KParamKind::Buffer {
                    elem, read_only, ..
                },
            ) => {
                let (data, write_back) = match a {
                    HostArg::Buffer(name) => {
                        let d = arrays
                            .get(name)
                            .ok_or_else(|| LaunchError::NoData(name.clone()))?;
                        // A kernel must never reach past its buffers in this process: an array
                        // the host plan cannot size (`deviceptr`, `present` without a length)
                        // has no data in the trace to run on.
                        if d.is_empty() {
                            return Err(LaunchError::UnknownLength {
                                array: name.clone(),
                                kernel: k.name.clone(),
                            });
                        }
                        (Cow::Borrowed(d), (!read_only).then(|| name.clone()))
                    }
                    HostArg::Partials(r) => {
                        let red = launch
                            .reductions
                            .get(*r)
                            .ok_or(LaunchError::PartialsWithoutReduction)?;
                        partials.push((red.var.clone(), args.len()));
                        (Cow::Owned(BufData::zeroed(*elem, groups)), None)
                    }
                    HostArg::LastValue { var, ty } => {
                        last_values.push((var.clone(), args.len()));
                        let mut d = BufData::zeroed(*elem, 1);
                        d.set_raw(0, value(i, *ty)?);
                        (Cow::Owned(d), None)
                    }
                    HostArg::Scalar { .. } => {
                        return Err(LaunchError::ScalarForBuffer(p.name.clone()))
                    }
                };
                args.push(Arg::Buffer {
                    elem: *elem,
                    data,
                    write_back,
                });
            }
            (HostArg::Buffer(_) | HostArg::Partials(_) | HostArg::LastValue { .. }, _) => {
                return Err(LaunchError::BufferForScalar(p.name.clone()))
            }
        }
    }
    Ok(Args {
        kernel: k,
        grid,
        args,
        partials,
        last_values,
    })
}
