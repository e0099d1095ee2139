//! The code of one kernel launch inside a region: extents, grid, arguments, the launch, and
//! what is read back after it (partial reductions, last values).

use super::*;

/// One launch of `region`: the kernel's extents, grid and arguments, the launch, and what is
/// read back after it, in a block skipped when an extent is ≤ 0; or why the plan is
/// inconsistent.
pub(super) fn launch_code(
    g: &mut Gen,
    module: &Module,
    region: &HostRegion,
    launch: &crate::kernel::Launch,
    own: &BTreeSet<String>,
    enclosing: &BTreeSet<String>,
) -> Result<(), HostPlanError> {
    let (kernel, dims) = launched_kernel(module, region, launch)?;
    let block: Vec<u32> = (0..dims).map(|d| kernel.block[d].max(1)).collect();
    let kname = c_string(&kernel.name);
    g.line(&format!(
        "{{ /* launch {}: work-groups of {} */",
        comment_safe(&kernel.name),
        block
            .iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(" x ")
    ));
    g.push();
    extent_code(g, launch, &block);
    g.push();
    grid_code(g, launch, &kname, &block);
    if !launch.reductions.is_empty() {
        partials_code(g, launch, &block);
    }
    let cuda_args = args_code(g, kernel, region, launch, &kname, own, enclosing)?;
    launch_call(g, kernel, &kname, dims, cuda_args);
    after_launch(g, launch);
    g.pop();
    g.line("}");
    g.pop();
    g.line("}");
    Ok(())
}

/// The kernel `launch` starts and its number of grid dimensions, or why the plan is
/// inconsistent (no such kernel, an argument count that differs from its parameters', an extent
/// or a block size beyond its dimensions).
fn launched_kernel<'m>(
    module: &'m Module,
    region: &HostRegion,
    launch: &crate::kernel::Launch,
) -> Result<(&'m crate::kernel::Kernel, usize), HostPlanError> {
    let Some(kernel) = module.kernels.get(launch.kernel) else {
        return Err(HostPlanError::NoKernel {
            region: region.origin.clone(),
            kernel: launch.kernel,
            count: module.kernels.len(),
        });
    };
    if launch.args.len() != kernel.params.len() {
        return Err(HostPlanError::ArgCount {
            kernel: kernel.name.clone(),
            region: region.origin.clone(),
            args: launch.args.len(),
            params: kernel.params.len(),
        });
    }
    let dims = usize::from(kernel.dims.clamp(1, 3));
    for d in dims..3 {
        if !launch.extent[d].is_int(1) || kernel.block[d] > 1 {
            return Err(HostPlanError::Dimension {
                kernel: kernel.name.clone(),
                region: region.origin.clone(),
                dim: d,
                dims,
            });
        }
    }
    Ok((kernel, dims))
}

/// The launch's extents `accshare_e<d>` and the test that opens the block launching only when
/// every one is positive (the caller closes it). Along the dimension of a grid-stride kernel
/// (`schedule::stride`) the extent is what the grid needs, `accshare_n<d>`, cut to a few
/// work-groups per compute unit of the device.
fn extent_code(g: &mut Gen, launch: &crate::kernel::Launch, block: &[u32]) {
    let dims = block.len();
    let strided = launch
        .stride
        .map(|s| usize::from(s.dim))
        .filter(|&d| d < dims);
    for (d, e) in launch.extent.iter().enumerate().take(dims) {
        let name = if strided == Some(d) { "n" } else { "e" };
        g.line(&format!(
            "const long long accshare_{}{} = (long long)({});",
            name,
            d,
            host_expr(e)
        ));
    }
    if let (Some(d), Some(s)) = (strided, launch.stride) {
        let others: Vec<String> = (0..dims)
            .filter(|&o| o != d)
            .map(|o| format!("((accshare_e{o} + {b} - 1) / {b})", b = block[o]))
            .collect();
        let others = if others.is_empty() {
            "1".to_string()
        } else {
            others.join(" * ")
        };
        let origin = g.origin.clone();
        g.line(&format!(
            "const long long accshare_e{d} = accshare_stride_items(accshare_n{d}, {}, {}, {}, {});",
            block[d], others, s.groups_per_unit, origin
        ));
    }
    let cond: Vec<String> = (0..dims).map(|d| format!("accshare_e{} > 0", d)).collect();
    g.line(&format!("if ({}) {{", cond.join(" && ")));
}

/// The grid: for OpenCL the kernel `accshare_k` and the local and global work sizes
/// (`accshare_lws`, `accshare_gws`: the extents rounded up to whole work-groups); for CUDA the
/// grid in blocks (`accshare_grid`), the launch function having the block shape.
fn grid_code(g: &mut Gen, launch: &crate::kernel::Launch, kname: &str, block: &[u32]) {
    let dims = block.len();
    match g.target {
        Target::OpenCl => {
            let origin = g.origin.clone();
            g.line(&format!(
                "cl_kernel accshare_k = accshare_kernel({}, {}, {});",
                launch.kernel, kname, origin
            ));
            g.line(&format!(
                "const size_t accshare_lws[{}] = {{{}}};",
                dims,
                block
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            g.line(&format!(
                "const size_t accshare_gws[{}] = {{{}}};",
                dims,
                block
                    .iter()
                    .enumerate()
                    .map(|(d, b)| format!("accshare_round_up(accshare_e{}, {})", d, b))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Target::Cuda => {
            // The grid in blocks; the launch function (in the .cu) has the block shape.
            let mut grid: Vec<String> = (0..dims)
                .map(|d| format!("accshare_blocks(accshare_e{}, {})", d, block[d]))
                .collect();
            while grid.len() < 3 {
                grid.push("1".to_string());
            }
            g.line(&format!(
                "const unsigned accshare_grid[3] = {{{}}};",
                grid.join(", ")
            ));
        }
    }
}

/// The number of work-groups (`accshare_groups`) and a device buffer `accshare_p<i>` of one
/// partial result per work-group for each reduction of the launch.
fn partials_code(g: &mut Gen, launch: &crate::kernel::Launch, block: &[u32]) {
    let origin = g.origin.clone();
    let groups = match g.target {
        Target::OpenCl => block
            .iter()
            .enumerate()
            .map(|(d, b)| format!("(accshare_gws[{}] / {})", d, b))
            .collect::<Vec<_>>()
            .join(" * "),
        Target::Cuda => {
            "(size_t)accshare_grid[0] * accshare_grid[1] * accshare_grid[2]".to_string()
        }
    };
    g.line(&format!("const size_t accshare_groups = {};", groups));
    for (i, r) in launch.reductions.iter().enumerate() {
        let ty = host_type(r.ty);
        let what = c_string(&format!("partials of {}", r.var));
        let bytes = format!("accshare_groups * sizeof({})", ty);
        alloc_line(g, &format!("accshare_p{}", i), ty, &bytes, &what, &origin);
    }
}

/// The kernel's arguments: for OpenCL set on `accshare_k` one by one, every buffer parameter
/// followed by its element offset (see `back::opencl`: the array's `accshare_o_<name>` over its
/// element size, signed: negative for a section that starts past 0; 0 for the buffers the launch
/// makes itself); for CUDA returned, for the launch
/// function's call. An argument that does not fit the plan is an `Err`.
fn args_code(
    g: &mut Gen,
    kernel: &crate::kernel::Kernel,
    region: &HostRegion,
    launch: &crate::kernel::Launch,
    kname: &str,
    own: &BTreeSet<String>,
    enclosing: &BTreeSet<String>,
) -> Result<Vec<String>, HostPlanError> {
    let origin = g.origin.clone();
    let mut cuda_args = Vec::new();
    let mut cl_index = 0usize;
    for (i, (arg, param)) in launch.args.iter().zip(&kernel.params).enumerate() {
        let value = arg_value(g, kernel, region, launch, i, arg, param, own, enclosing)?;
        match g.target {
            Target::OpenCl => {
                g.line(&format!(
                    "accshare_arg(accshare_k, {i}, sizeof({v}), &{v}, {k}, {o});",
                    i = cl_index,
                    v = value,
                    k = kname,
                    o = origin
                ));
                cl_index += 1;
                if let KParamKind::Buffer { elem, record, .. } = &param.kind {
                    let off = match (arg, record) {
                        // An array of structs: the offset counts its structs (of `k` fields).
                        (HostArg::Buffer(a), Some(r)) => format!(
                            "(cl_long)accshare_o_{} / (cl_long)(sizeof({}) * {})",
                            ident(a),
                            host_type(*elem),
                            r.fields.len()
                        ),
                        (HostArg::Buffer(a), None) => format!(
                            "(cl_long)accshare_o_{} / (cl_long)sizeof({})",
                            ident(a),
                            host_type(*elem)
                        ),
                        _ => "(cl_long)0".to_string(),
                    };
                    g.line(&format!(
                        "{{ const cl_long accshare_off = {off}; accshare_arg(accshare_k, {i}, sizeof(accshare_off), &accshare_off, {k}, {o}); }}",
                        off = off,
                        i = cl_index,
                        k = kname,
                        o = origin
                    ));
                    cl_index += 1;
                }
            }
            Target::Cuda => cuda_args.push(value),
        }
    }
    Ok(cuda_args)
}

/// The launch itself: `accshare_launch` of `accshare_k` (OpenCL), or the kernel's launch
/// function called with the grid, `cuda_args` and the region (CUDA).
fn launch_call(
    g: &mut Gen,
    kernel: &crate::kernel::Kernel,
    kname: &str,
    dims: usize,
    cuda_args: Vec<String>,
) {
    let origin = g.origin.clone();
    match g.target {
        Target::OpenCl => g.line(&format!(
            "accshare_launch(accshare_k, {}, accshare_gws, accshare_lws, {}, {});",
            dims, kname, origin
        )),
        Target::Cuda => {
            let mut args = vec!["accshare_grid".to_string()];
            args.extend(cuda_args);
            args.push(origin);
            g.line(&format!("{}({});", launcher_name(kernel), args.join(", ")));
        }
    }
}

/// After a launch: the final values of scalars the kernel assigned read back, and the
/// reductions' partial results combined into the user's variables.
fn after_launch(g: &mut Gen, launch: &crate::kernel::Launch) {
    let origin = g.origin.clone();
    // Final values of scalars the kernel assigned.
    for (i, arg) in launch.args.iter().enumerate() {
        if let HostArg::LastValue { var, ty } = arg {
            let what = c_string(&format!("final value of {}", var));
            g.line(&format!(
                "accshare_read(accshare_l{i}, &accshare_lh{i}, sizeof({t}), {w}, {o});",
                i = i,
                t = host_type(*ty),
                w = what,
                o = origin
            ));
            g.line(&format!("{} = accshare_lh{};", var, i));
            g.line(&format!(
                "accshare_release(accshare_l{}, {}, {});",
                i, what, origin
            ));
        }
    }
    // Reductions: read the partials, combine into the user's variable.
    for (i, r) in launch.reductions.iter().enumerate() {
        let ty = host_type(r.ty);
        let what = c_string(&format!("partials of {}", r.var));
        g.line("{");
        g.push();
        g.line(&format!(
            "{t} *const accshare_r = ({t} *)accshare_host_alloc(accshare_groups * sizeof({t}), {o});",
            t = ty,
            o = origin
        ));
        g.line("size_t accshare_g;");
        g.line(&format!(
            "accshare_read(accshare_p{}, accshare_r, accshare_groups * sizeof({}), {}, {});",
            i, ty, what, origin
        ));
        g.line("for (accshare_g = 0; accshare_g < accshare_groups; accshare_g++)");
        let v = &r.var;
        let p = "accshare_r[accshare_g]";
        let combine = match r.op {
            RedOp::Max => format!("if ({p} > {v}) {v} = {p};", p = p, v = v),
            RedOp::Min => format!("if ({p} < {v}) {v} = {p};", p = p, v = v),
            op => format!("{v} = {v} {o} {p};", v = v, o = op.name(), p = p),
        };
        g.line(&format!("{}{}", STEP, combine));
        g.line("free(accshare_r);");
        g.line(&format!(
            "accshare_release(accshare_p{}, {}, {});",
            i, what, origin
        ));
        g.pop();
        g.line("}");
    }
}

/// The host expression a launch passes for argument `i` (declaring what it needs: a scalar's
/// typed copy, a last value's one-element buffer), or why the plan is inconsistent.
#[allow(clippy::too_many_arguments)]
fn arg_value(
    g: &mut Gen,
    kernel: &crate::kernel::Kernel,
    region: &HostRegion,
    launch: &crate::kernel::Launch,
    i: usize,
    arg: &HostArg,
    param: &crate::kernel::KParam,
    own: &BTreeSet<String>,
    enclosing: &BTreeSet<String>,
) -> Result<String, HostPlanError> {
    Ok(match (arg, &param.kind) {
        (HostArg::Buffer(a), KParamKind::Buffer { .. }) => {
            if !own.contains(a) && !enclosing.contains(a) {
                return Err(HostPlanError::BufferNotHeld {
                    kernel: kernel.name.clone(),
                    region: region.origin.clone(),
                    array: a.clone(),
                });
            }
            format!("accshare_d_{}", ident(a))
        }
        (HostArg::Scalar { expr, .. }, KParamKind::Scalar { ty, .. }) => {
            // The kernel's parameter type decides the bytes passed.
            g.line(&format!(
                "const {} accshare_a{} = ({});",
                host_type(*ty),
                i,
                host_expr(expr)
            ));
            format!("accshare_a{}", i)
        }
        (HostArg::LastValue { var, ty }, KParamKind::Buffer { elem, .. }) => {
            if ty != elem {
                return Err(HostPlanError::LastValueType {
                    kernel: kernel.name.clone(),
                    region: region.origin.clone(),
                    var: var.clone(),
                    kernel_ty: *elem,
                    host_ty: *ty,
                });
            }
            let words = narrow_atomic_params(kernel).contains(&param.name);
            last_value_arg(g, i, var, *ty, words)
        }
        (HostArg::Partials(r), KParamKind::Buffer { elem, .. }) => {
            let Some(red) = launch.reductions.get(*r) else {
                return Err(HostPlanError::NoReduction {
                    kernel: kernel.name.clone(),
                    region: region.origin.clone(),
                    reduction: *r,
                    count: launch.reductions.len(),
                });
            };
            if red.ty != *elem {
                return Err(HostPlanError::PartialsType {
                    kernel: kernel.name.clone(),
                    region: region.origin.clone(),
                    var: red.var.clone(),
                    kernel_ty: *elem,
                    host_ty: red.ty,
                });
            }
            format!("accshare_p{}", r)
        }
        _ => {
            return Err(HostPlanError::ArgMismatch {
                kernel: kernel.name.clone(),
                region: region.origin.clone(),
                index: i,
                param: param.name.clone(),
            })
        }
    })
}

/// Argument `i` carrying the final value of scalar `var` out of the kernel: a one-element
/// buffer `accshare_l<i>` holding the value `var` has before the launch (`accshare_lh<i>`);
/// with `words` (a `char` or `short` atomic updates it: a compare-and-swap on its 32-bit word)
/// the buffer is one word ([`word_alloc_bytes`]).
fn last_value_arg(g: &mut Gen, i: usize, var: &str, ty: Scalar, words: bool) -> String {
    let origin = g.origin.clone();
    let t = host_type(ty);
    let what = c_string(&format!("final value of {}", var));
    g.line(&format!(
        "{t} accshare_lh{i} = ({t})({v});",
        t = t,
        i = i,
        v = var
    ));
    let bytes = if words {
        format!("((sizeof({}) + 3) & ~(size_t)3)", t)
    } else {
        format!("sizeof({})", t)
    };
    alloc_line(g, &format!("accshare_l{}", i), t, &bytes, &what, &origin);
    g.line(&format!(
        "accshare_write(accshare_l{i}, &accshare_lh{i}, sizeof({t}), {w}, {o});",
        i = i,
        t = t,
        w = what,
        o = origin
    ));
    format!("accshare_l{}", i)
}
