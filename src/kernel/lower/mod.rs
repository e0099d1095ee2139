//! Compute regions → kernel IR and host plan (the baseline translation, `--opt naive`).
//!
//! Decisions taken here (and only here): which loops go to the grid (the maximal perfectly
//! nested chain of parallel loops from the root, at most three, the innermost on x), the block
//! shape, guards for partial blocks and triangular domains, privatized scalars, reductions
//! (work-group tree in local memory, partial results finished on the host), buffers and
//! transfers.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::DepInfo;
use crate::diag::{Diag, Diags, FileId, SourceMap, Span};
use crate::front::preprocess::PpOutput;
use crate::ir::directive::{DataVar, Directive};
use crate::ir::lower::{DataAst, RegionAst, Symbol};
use crate::ir::Detached;
use crate::ir::{LoopId, Poly, Region};
use crate::kernel::*;
use crate::schedule::{RegionSchedule, Schedule};
use crate::vocab::Scalar;
use crate::vocab::{Construct, DataKind};

mod atomic;
mod build;
mod ilp;
mod lanes;
mod last;
mod order;
mod reduce;
mod staged;
mod walk;

use build::KernelBuilder;
pub use walk::poly_to_kexpr;

/// Context shared by the lowering of all regions of a file.
pub struct Ctx<'a> {
    pub sources: &'a SourceMap,
    pub pp: &'a PpOutput,
    pub main: FileId,
}

/// The name of kernel `k` of compute region `index` (region `r`): `{function}_r{index}_k{k}`.
pub fn kernel_name(r: &RegionAst, index: usize, k: usize) -> String {
    format!("{}_r{}_k{}", sanitize(&r.ir.func), index, k)
}

/// Lowers one compute region with its schedules: appends its kernels to `module` and returns
/// its host region. Each kernel is built from the first of its candidate schedules that can be
/// built (the last, the baseline, always can); the schedules decide, this applies.
pub fn lower_region(
    ctx: &Ctx,
    r: &RegionAst,
    deps: &DepInfo,
    index: usize,
    sched: &RegionSchedule,
    module: &mut Module,
    diags: &mut Diags,
) -> Option<HostRegion> {
    let replace = replace_range(
        ctx,
        r.directive.span,
        r.ir.share.as_ref().map(|s| s.span),
        r.stmt_span,
        diags,
    )?;
    let origin = origin(ctx.sources, r.directive.span);
    let mut launches = Vec::new();
    for (k, ks) in sched.kernels.iter().enumerate() {
        let name = kernel_name(r, index, k);
        let mut built = None;
        let mut unstaged = None;
        for (c, s) in ks.candidates.iter().enumerate() {
            let last = c + 1 == ks.candidates.len();
            let mut tmp = Diags::new();
            let mut kb = KernelBuilder::new(r, deps, s);
            let res = kb.build(name.clone(), origin.clone(), module.kernels.len(), &mut tmp);
            if kb.stage_error.is_none() || last {
                diags.extend(tmp);
                // The schedule's block order, applied to the finished kernel.
                built = res.map(|(mut k, l)| {
                    order::apply(&mut k, s.block_order);
                    (k, l)
                });
                // The user's `share` pragma asked for staging the kernel does not get.
                if let (Some(why), Some(sp), None) = (&unstaged, &r.ir.share, s.staged()) {
                    diags.push(
                        Diag::warning(
                            sp.span,
                            format!("kernel `{name}` does not stage this pragma's partitions: {why}"),
                        )
                        .note("the kernel keeps its arrays in global memory: it computes the same values, more slowly"),
                    );
                } else if let (Some(sp), None, None) = (&r.ir.share, s.staged(), unstaged) {
                    if let Some(why) = unstaged_by_choice(ks, s) {
                        diags.push(
                            Diag::warning(
                                sp.span,
                                format!("kernel `{name}` does not stage this pragma's partitions: {why}"),
                            )
                            .note("`accshare explain` shows the estimates; `accshare tune` measures the staged and unstaged kernels on a device"),
                        );
                    }
                }
                break;
            }
            unstaged = unstaged.or(kb.stage_error);
        }
        let Some((kernel, launch)) = built else {
            continue;
        };
        module.kernels.push(kernel);
        launches.push(launch);
    }
    let buffers = region_buffers(r, diags);
    let if_clause = if_clause(&r.directive, diags);
    Some(HostRegion {
        replace,
        keep_body: None,
        quiet_body: false,
        buffers,
        launches,
        data_ops: Vec::new(),
        device_scalars: device_scalars(r),
        fallback: if_clause
            .as_ref()
            .map(|_| statement_after_pragma(ctx, r.directive.span, r.stmt_span)),
        if_clause,
        origin,
        aliases: r.directive.aliases.clone(),
    })
}

/// Why the schedule `s` accshare chose for kernel `ks` stages nothing although the region's
/// `share` pragma asks for tiles: a measurement (`accshare tune`), the model's comparison with
/// the unstaged kernel on a GPU whose L1 caches global loads, or the inner reduction loop run
/// across lanes. `None` where none of them decided (the engine staged nothing for this kernel:
/// `explain` says why).
fn unstaged_by_choice(ks: &crate::schedule::KernelSchedule, s: &Schedule) -> Option<String> {
    if let crate::schedule::tuned::Origin::Tuned { device, .. } = &ks.origin {
        return Some(format!(
            "`accshare tune` measured an unstaged schedule fastest on {device}"
        ));
    }
    match (&ks.gain, &s.lanes) {
        (Some(g), _) if !g.stage => Some(format!(
            "on {} the model estimates the staged kernel {:.2}x as fast as the unstaged one (under its {:.2}x margin): the L1 cache serves the reuse the tiles are for",
            g.platform,
            g.speedup,
            crate::schedule::gain::MARGIN
        )),
        (_, Some(_)) => Some(
            "its inner reduction loop runs across the lanes of a work-group instead (docs/lanes.md)"
                .to_string(),
        ),
        _ => None,
    }
}

/// Lowers a `data` construct to its host region.
pub fn lower_data(ctx: &Ctx, d: &DataAst, diags: &mut Diags) -> Option<HostRegion> {
    let replace = replace_range(ctx, d.directive.span, None, d.stmt_span, diags)?;
    if let Some((span, _)) = &d.directive.if_clause {
        diags.push(
            Diag::error(*span, "the `if` clause of a `data` construct is not supported")
                .label("not supported")
                .note("where it does not hold, the construct's data clauses must not act, and the compute constructs inside must make their own copies; accshare's host code does not do that yet")
                .help("use `enter data … if(…)` / `exit data … if(…)` around the body instead"),
        );
        return None;
    }
    let mut buffers = Vec::new();
    let enclosing: BTreeSet<&str> = d
        .data
        .iter()
        .flat_map(|s| s.directive.data_names())
        .collect();
    let zeroed = &d.directive.zeroed;
    for (kind, var) in &d.directive.data {
        let kind = *kind;
        if enclosing.contains(var.name.as_str()) {
            continue;
        }
        let Some(sym) = d.scope.get(&var.name) else {
            diags.push(Diag::error(
                var.name_span,
                format!("`{}` is not declared here", var.name),
            ));
            continue;
        };
        let Some((copy_in, copy_out, present)) = transfers(kind) else {
            diags.push(Diag::error(
                var.span,
                format!(
                    "the `{}` clause is not supported on a data construct",
                    kind.name()
                ),
            ));
            continue;
        };
        if let Some(elem) = scalar_var(sym, var) {
            buffers.push(scalar_buffer(
                var,
                elem,
                (copy_in, copy_out, present),
                zeroed.contains(&var.name),
            ));
            continue;
        }
        let Some((elem, count, start)) = clause_extent_or_present(sym, var, present, diags) else {
            continue;
        };
        let partial = copy_out && partial_rows(sym, var);
        let zero = zeroed.contains(&var.name);
        if zero && partial {
            zero_partial_rows(var, diags);
            continue;
        }
        buffers.push(Buffer {
            array: var.name.clone(),
            elem,
            whole_array: sym.is_true_array() && var.dims.is_empty() && count.is_some(),
            count: count.unwrap_or(HostExpr::Int(0)),
            copy_in: copy_in || partial,
            zero,
            copy_out,
            present,
            start,
            scalar: false,
            rows: rows_of(sym, Some(var), diags),
        });
    }
    Some(HostRegion {
        replace,
        keep_body: Some(d.body_span.range()),
        quiet_body: d.quiet_body,
        buffers,
        launches: Vec::new(),
        data_ops: Vec::new(),
        device_scalars: Vec::new(),
        if_clause: None,
        fallback: None,
        origin: origin(ctx.sources, d.directive.span),
        aliases: d.directive.aliases.clone(),
    })
}

/// Lowers an executable data directive (`update`, `enter data`, `exit data`) to its host
/// region: one present-table action per array, in clause order.
pub fn lower_standalone(
    ctx: &Ctx,
    d: &crate::ir::lower::StandaloneAst,
    diags: &mut Diags,
) -> Option<HostRegion> {
    let replace = replace_range(ctx, d.directive.span, None, d.stmt_span, diags)?;
    let finalize = d.directive.finalize;
    let if_present = d.directive.if_present;
    let zeroed = &d.directive.zeroed;
    let mut data_ops = Vec::new();
    for (kind, var) in &d.directive.data {
        let kind = *kind;
        let op = match (&d.directive.construct, kind) {
            (Construct::Update, DataKind::Host) => DataOpKind::Update {
                to_host: true,
                if_present,
            },
            (Construct::Update, DataKind::Device) => DataOpKind::Update {
                to_host: false,
                if_present,
            },
            (Construct::EnterData, DataKind::CopyIn) => DataOpKind::Enter {
                copy_in: true,
                zero: false,
            },
            (Construct::EnterData, DataKind::Create) => DataOpKind::Enter {
                copy_in: false,
                zero: zeroed.contains(&var.name),
            },
            (Construct::ExitData, DataKind::CopyOut) => DataOpKind::Exit {
                copy_out: true,
                finalize,
            },
            (Construct::ExitData, DataKind::Delete) => DataOpKind::Exit {
                copy_out: false,
                finalize,
            },
            (c, k) => {
                diags.push(Diag::error(
                    var.span,
                    format!(
                        "the `{}` clause is not supported on `{}`",
                        k.name(),
                        c.name()
                    ),
                ));
                continue;
            }
        };
        let Some(sym) = d.scope.get(&var.name) else {
            diags.push(Diag::error(
                var.name_span,
                format!("`{}` is not declared here", var.name),
            ));
            continue;
        };
        // A scalar: one element at its address.
        if let Some(elem) = scalar_var(sym, var) {
            data_ops.push(DataOp {
                array: var.name.clone(),
                elem,
                count: HostExpr::Int(1),
                start: None,
                kind: op,
                scalar: true,
                rows: None,
            });
            continue;
        }
        // Whole rows would overwrite the host's elements outside the subarray.
        let copies_out = matches!(
            op,
            DataOpKind::Update { .. } | DataOpKind::Exit { copy_out: true, .. }
        );
        if copies_out && partial_rows(sym, var) {
            diags.push(
                Diag::error(
                    var.span,
                    format!(
                        "`{}` takes part of an inner dimension: its elements are not contiguous",
                        var.name
                    ),
                )
                .note("accshare transfers whole rows; here that would overwrite the host's elements outside the subarray")
                .help("transfer whole rows (`[0:n][0:M]` with `M` the declared extent), or update the rows one at a time"),
            );
            continue;
        }
        // Leaving needs only the address; entering and updating need the size.
        let sized = !matches!(op, DataOpKind::Exit { .. });
        let Some((elem, count, start)) = clause_extent_or_present(sym, var, !sized, diags) else {
            continue;
        };
        data_ops.push(DataOp {
            array: var.name.clone(),
            elem,
            count: count.unwrap_or(HostExpr::Int(0)),
            start,
            kind: op,
            scalar: false,
            rows: rows_of(sym, Some(var), diags),
        });
    }
    Some(HostRegion {
        replace,
        keep_body: None,
        quiet_body: false,
        buffers: Vec::new(),
        launches: Vec::new(),
        data_ops,
        device_scalars: Vec::new(),
        if_clause: if_clause(&d.directive, diags),
        fallback: None,
        origin: origin(ctx.sources, d.directive.span),
        aliases: d.directive.aliases.clone(),
    })
}

/// The whole `#pragma` line (from `#` to the end of the line) holding the pragma text `s`.
fn pragma_line(ctx: &Ctx, s: Span) -> Option<Span> {
    ctx.pp
        .pragmas
        .iter()
        .find(|p| p.span == s || p.span.contains(s))
        .map(|p| p.line_span)
}

/// The text of an annotated statement after its directive's `#pragma` line (from the next
/// line on): what runs on the host as written.
fn statement_after_pragma(ctx: &Ctx, dir_span: Span, stmt_span: Span) -> std::ops::Range<usize> {
    let text = ctx.sources.text(ctx.main);
    let after = pragma_line(ctx, dir_span).map_or(stmt_span.lo as usize, |line| {
        let end = line.hi as usize;
        text.get(end..)
            .and_then(|rest| rest.find('\n'))
            .map_or(end, |k| end + k + 1)
    });
    let lo = after.max(stmt_span.lo as usize).min(stmt_span.hi as usize);
    lo..stmt_span.hi as usize
}

/// `copyout(zero: a[0:n][0:k])` of part of an inner dimension: the buffer holds whole rows,
/// copied in so that copying them out keeps the host's other elements; a zeroed copy would not.
fn zero_partial_rows(var: &DataVar, diags: &mut Diags) {
    diags.push(
        Diag::error(
            var.span,
            format!(
                "`zero:` on `{}`, which takes part of an inner dimension, is not supported",
                var.name
            ),
        )
        .note("accshare transfers whole rows; zeroing them would overwrite the host's elements outside the subarray on the way out")
        .help("name whole rows, or zero the array in a compute region"),
    );
}

/// A construct's `if(…)` clause, as the host evaluates it.
fn if_clause(dir: &Directive, diags: &mut Diags) -> Option<HostExpr> {
    dir.if_clause.as_ref().map(|(_, e)| user(e, diags))
}

/// An expression of the user's function the host evaluates (a clause's bounds, an `if` clause,
/// a declared extent), as the IR holds it. A part the generated host code cannot spell (a
/// compound literal, a call through a pointer, a cast to an array or function type) is an
/// error at it.
fn user(d: &Detached, diags: &mut Diags) -> HostExpr {
    if let Some(part) = d.exprs.unprintable(d.root) {
        diags.push(
            Diag::error(
                d.exprs.span(part),
                "accshare cannot spell this expression in the generated host code",
            )
            .note(
                "the host evaluates this expression before the construct's transfers and launches",
            ),
        );
    }
    HostExpr::Ir(Box::new(d.clone()))
}

/// What a data clause moves when it makes the array's device copy: `(copy_in, copy_out,
/// present)`; `present` only looks the array up (a caller's data construct or an `enter data`
/// holds it: the present table knows). `None` for clauses that make no buffer.
fn transfers(kind: DataKind) -> Option<(bool, bool, bool)> {
    Some(match kind {
        DataKind::Copy => (true, true, false),
        DataKind::CopyIn => (true, false, false),
        DataKind::CopyOut => (false, true, false),
        DataKind::Create => (false, false, false),
        // `deviceptr(p)`: device memory from `acc_malloc`, which the present table holds.
        DataKind::Present | DataKind::DevicePtr => (false, false, true),
        _ => return None,
    })
}

/// [`clause_extent`], except that an array only looked up in the present table (`lookup`) may
/// have no known size: the count is then `None`.
fn clause_extent_or_present(
    sym: &Symbol,
    var: &DataVar,
    lookup: bool,
    diags: &mut Diags,
) -> Option<(Scalar, Option<HostExpr>, Option<HostExpr>)> {
    if lookup {
        let Some((elem, _, _)) = sym.shape() else {
            diags.push(not_an_array(sym, var));
            return None;
        };
        let mut tmp = Diags::new();
        return Some(match clause_extent(sym, var, &mut tmp) {
            Some((e, count, start)) if !tmp.has_errors() => (e, Some(count), start),
            _ => {
                // The address still matters: a section's start is where the lookup goes
                // (`exit data delete(v[N:n])`).
                match var.dims.first().and_then(|d| d.start_past_zero()) {
                    Some(st) if var.dims.len() == 1 => (elem, None, Some(user(st, diags))),
                    Some(_) => {
                        diags.extend(tmp);
                        return None;
                    }
                    None => (elem, None, None),
                }
            }
        });
    }
    clause_extent(sym, var, diags).map(|(e, count, start)| (e, Some(count), start))
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn origin(sources: &SourceMap, span: Span) -> String {
    let (l, _) = sources.line_col(span);
    let name = sources.name(span.file);
    let short = std::path::Path::new(name)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    format!("{}:{}", short, l)
}

/// The byte range of the main file an annotated statement occupies: from the start of its first
/// pragma line (the `share` line if there is one) to the end of the statement.
fn replace_range(
    ctx: &Ctx,
    dir_span: Span,
    share_span: Option<Span>,
    stmt_span: Span,
    diags: &mut Diags,
) -> Option<std::ops::Range<usize>> {
    let line_start = |s: Span| pragma_line(ctx, s).map(|l| l.lo);
    let mut lo = line_start(dir_span)?;
    if let Some(s) = share_span.and_then(line_start) {
        lo = lo.min(s);
    }
    if dir_span.file != ctx.main || stmt_span.file != ctx.main || stmt_span.hi < lo {
        diags.push(
            Diag::error(
                dir_span,
                "an annotated region must be written in the main file, not in a header or a macro",
            )
            .note("accshare replaces the region's text in its output"),
        );
        return None;
    }
    Some(lo as usize..stmt_span.hi as usize)
}

/// A subarray that takes part of an inner dimension (`b[0:n][0:k]` of `b[N][M]`, `k` not `M`):
/// its elements are not contiguous, so the buffer holds whole rows ([`clause_extent`]). Copying
/// whole rows out would overwrite the host's elements outside the subarray with whatever the
/// device holds there, so a clause that copies out also copies in (the device then holds the
/// host's values there, and they come back unchanged), and `update`/`exit data` are refused.
fn partial_rows(sym: &Symbol, var: &DataVar) -> bool {
    let Some((_, extents, _)) = sym.shape() else {
        return false;
    };
    var.dims.iter().enumerate().skip(1).any(|(i, d)| {
        let past_zero = d.start_past_zero().is_some();
        past_zero
            || match (&d.len, extents.get(i).and_then(|e| e.as_ref())) {
                (Some(len), Some(ext)) => !len.same(ext),
                _ => false,
            }
    })
}

/// The element type, C element-count expression and first element of a data-clause variable,
/// printed from the macro-expanded declaration or clause (never the source text, which may be a
/// macro call). A subarray that starts past 0 in its first dimension (`u[lo:n]`, `a[2:n][0:M]`)
/// gives its start in elements (`lo`, `2 * M`): only the section goes to the device. A start
/// past 0 in an inner dimension takes part of the rows ([`partial_rows`]): whole rows go.
fn clause_extent(
    sym: &Symbol,
    var: &DataVar,
    diags: &mut Diags,
) -> Option<(Scalar, HostExpr, Option<HostExpr>)> {
    let Some((elem, extents, _)) = sym.shape() else {
        diags.push(not_an_array(sym, var));
        return None;
    };
    if !var.dims.is_empty() {
        let mut parts = Vec::new();
        for (i, d) in var.dims.iter().enumerate() {
            match (&d.len, extents.get(i).and_then(|e| e.as_ref())) {
                // An inner dimension is transferred whole (the rows are contiguous only so);
                // see `partial_rows`.
                (Some(_), Some(ext)) if i > 0 => parts.push(user(ext, diags)),
                (Some(len), _) => parts.push(user(len, diags)),
                // `u[lo:]`: to the end of the dimension.
                (None, Some(ext)) => match d.start_past_zero().filter(|_| i == 0) {
                    Some(st) => parts.push(HostExpr::Bin(
                        HostOp::Sub,
                        Box::new(user(ext, diags)),
                        Box::new(user(st, diags)),
                    )),
                    None => parts.push(user(ext, diags)),
                },
                (None, None) => {
                    diags.push(
                        Diag::error(d.span, "the length of this dimension is unknown")
                            .help("write `[start:length]`"),
                    );
                    return None;
                }
            }
        }
        // Dimensions the clause does not mention are whole.
        let mut row = Vec::new();
        for ext in extents.iter().skip(var.dims.len()) {
            match ext {
                Some(e) => row.push(user(e, diags)),
                None => return None,
            }
        }
        parts.extend(row);
        // The first element: the first dimension's start times the elements of a row (the
        // inner dimensions' declared extents).
        let start = match var.dims[0].start_past_zero() {
            None => None,
            Some(st) => {
                let mut factors = vec![user(st, diags)];
                for ext in extents.iter().skip(1) {
                    match ext {
                        Some(e) => factors.push(user(e, diags)),
                        None => {
                            diags.push(
                                Diag::error(
                                    st.exprs.span(st.root),
                                    format!(
                                        "the rows of `{}` have no known size, so this start has no address",
                                        var.name
                                    ),
                                )
                                .help(format!("start at 0: `{}[0:…]`", var.name)),
                            );
                            return None;
                        }
                    }
                }
                Some(HostExpr::product(factors))
            }
        };
        return Some((elem, HostExpr::product(parts), start));
    }
    let mut parts = Vec::new();
    for e in &extents {
        match e {
            Some(e) => parts.push(user(e, diags)),
            None => {
                diags.push(
                    Diag::error(var.span, format!("the size of `{}` is unknown", var.name))
                        .help(format!("give its extent: `{}[0:n]`", var.name)),
                );
                return None;
            }
        }
    }
    Some((elem, HostExpr::product(parts), None))
}

/// The buffers a compute region creates: its arrays that no enclosing data construct holds.
fn region_buffers(r: &RegionAst, diags: &mut Diags) -> Vec<Buffer> {
    let present: BTreeSet<&str> = r
        .data
        .iter()
        .flat_map(|s| s.directive.data_names())
        .collect();
    let clauses: BTreeMap<String, (DataKind, &DataVar)> = r
        .directive
        .data
        .iter()
        .map(|(k, v)| (v.name.clone(), (*k, v)))
        .collect();
    let zeroed = &r.directive.zeroed;
    let mut out = Vec::new();
    // Scalars in the construct's own data clauses: one-element device copies, which the region
    // uses through `device_scalars`.
    for (name, (kind, var)) in &clauses {
        let Some(sym) = r
            .scope
            .get(name)
            .filter(|_| !present.contains(name.as_str()))
        else {
            continue;
        };
        let Some(elem) = scalar_var(sym, var) else {
            continue;
        };
        match transfers(*kind) {
            Some(t) => out.push(scalar_buffer(var, elem, t, zeroed.contains(name))),
            None => diags.push(Diag::error(
                var.span,
                format!("the `{}` clause is not supported", kind.name()),
            )),
        }
    }
    for a in r.ir.arrays.values() {
        if present.contains(a.name.as_str()) {
            continue;
        }
        let Some(sym) = r.scope.get(&a.name) else {
            continue;
        };
        let (copy_in, copy_out, count, whole, present, start) = match clauses.get(&a.name) {
            Some((kind, var)) => {
                let Some((i, o, p)) = transfers(*kind) else {
                    diags.push(Diag::error(
                        var.span,
                        format!("the `{}` clause is not supported", kind.name()),
                    ));
                    continue;
                };
                let Some((_, count, start)) = clause_extent_or_present(sym, var, p, diags) else {
                    continue;
                };
                let whole = var.dims.is_empty() && count.is_some();
                if o && partial_rows(sym, var) && zeroed.contains(&a.name) {
                    zero_partial_rows(var, diags);
                    continue;
                }
                let i = i || (o && partial_rows(sym, var));
                (i, o, count.unwrap_or(HostExpr::Int(0)), whole, p, start)
            }
            None => {
                let (count, start) = match footprint(&r.ir, a) {
                    Some(c) => c,
                    None => {
                        diags.push(
                            Diag::error(
                                a.decl_span,
                                format!(
                                    "cannot determine how many elements of `{}` the region uses",
                                    a.name
                                ),
                            )
                            .with_label(r.directive.span, "in this compute region")
                            .help(format!(
                                "add a data clause with its extent, e.g. `copy({}[0:n])`",
                                a.name
                            )),
                        );
                        continue;
                    }
                };
                (
                    a.read || a.written,
                    a.written,
                    count,
                    a.extents.iter().all(Option::is_some),
                    false,
                    start,
                )
            }
        };
        out.push(Buffer {
            array: a.name.clone(),
            elem: a.elem,
            count,
            zero: !copy_in && zeroed.contains(&a.name),
            copy_in,
            copy_out,
            present,
            whole_array: whole && sym.is_true_array(),
            rows: rows_of(sym, clauses.get(&a.name).map(|(_, v)| *v), diags),
            start,
            scalar: false,
        });
    }
    out
}

/// The element type of a data clause's variable when it is a scalar named without subscripts
/// (`copy(sum)`): a one-element object with a device copy of its own.
fn scalar_var(sym: &Symbol, var: &DataVar) -> Option<Scalar> {
    sym.scalar().filter(|_| var.dims.is_empty())
}

/// The device copy of a scalar in a data clause: `(copy_in, copy_out, present)` as
/// [`transfers`] gives them; `zero` for `copyout(zero: x)`/`create(zero: x)`.
fn scalar_buffer(var: &DataVar, elem: Scalar, t: (bool, bool, bool), zero: bool) -> Buffer {
    let (copy_in, copy_out, present) = t;
    Buffer {
        array: var.name.clone(),
        elem,
        count: HostExpr::Int(1),
        copy_in,
        zero: zero && !copy_in,
        copy_out,
        present,
        whole_array: false,
        start: None,
        scalar: true,
        rows: None,
    }
}

/// The scalars compute region `r` uses through their device copies: those a data clause of the
/// construct or of an enclosing data construct of the function names, declared outside the
/// region, and not `private`/`firstprivate` to it (see [`DeviceScalar`]).
fn device_scalars(r: &RegionAst) -> Vec<DeviceScalar> {
    let private: BTreeSet<&str> = r.directive.private.iter().map(String::as_str).collect();
    let named: BTreeSet<String> = r
        .data
        .iter()
        .map(|d| &d.directive)
        .chain(std::iter::once(&r.directive))
        .flat_map(|dir| {
            dir.data
                .iter()
                .filter(|(_, v)| v.dims.is_empty())
                .map(|(_, v)| v.name.clone())
        })
        .collect();
    let mut out = Vec::new();
    for name in named {
        let (Some(info), Some(sym)) = (r.ir.scalars.get(&name), r.scope.get(&name)) else {
            continue;
        };
        if info.local.is_some() || private.contains(name.as_str()) {
            continue;
        }
        let Some(ty) = sym.scalar() else {
            continue;
        };
        out.push(DeviceScalar {
            var: name,
            ty,
            written: info.written,
        });
    }
    out
}

/// The rows of a data clause's array of pointers to rows ([`Symbol::rows`]), the first one
/// where the clause `var` starts past row 0.
fn rows_of(sym: &Symbol, var: Option<&DataVar>, diags: &mut Diags) -> Option<Rows> {
    if !sym.rows {
        return None;
    }
    let (_, extents, _) = sym.shape()?;
    let len = extents.get(1)?.as_ref()?;
    Some(Rows {
        len: user(len, diags),
        first: var
            .and_then(|v| v.dims.first())
            .and_then(|d| d.start_past_zero())
            .map(|s| user(s, diags)),
    })
}

/// Why a data clause's variable has no device copy: an array of pointers whose clause does not
/// give the bounds of its rows (OpenACC's deep copy of a pointer-to-pointer subarray, which
/// accshare makes only for `a[lo:n][0:m]`, see [`Symbol::rows`]), or anything else that is
/// neither an array, a pointer nor a scalar.
fn not_an_array(sym: &Symbol, var: &DataVar) -> Diag {
    let name = &var.name;
    let decl = sym.declaration();
    if sym.holds_pointers() {
        if sym.pointer_levels() > 2 {
            return Diag::error(
                var.name_span,
                format!("`{name}` is an array of pointers to pointers: copying the arrays they point to is not supported"),
            )
            .label(format!("declared as `{decl}`"))
            .note("accshare copies arrays of pointers to rows of scalars (`T **`, one level of pointers below the array), not pointers to pointers to pointers")
            .help(format!("allocate the inner levels of `{name}` as contiguous arrays"));
        }
        return Diag::error(
            var.name_span,
            format!("`{name}` is an array of pointers: copying the arrays they point to needs the bounds of every dimension"),
        )
        .label(format!("declared as `{decl}`"))
        .note("OpenACC copies each row of a pointer-to-pointer subarray and attaches it (a deep copy); accshare does it for rows of one length, from element 0: `a[lo:n][0:m]`")
        .help(format!("give the rows' bounds: `{name}[0:n][0:m]`"));
    }
    Diag::error(
        var.name_span,
        format!("`{name}` is not an array, a pointer or a scalar"),
    )
    .label(format!("declared as `{decl}`"))
}

/// Element count of an array in a region: the product of its extents if all are known, else
/// (a pointer) the rows from the smallest to the largest first subscript any access can reach,
/// derived from the loop bounds (parameters are assumed non-negative), with the first of them
/// (in elements) where every access's smallest first subscript is the same non-constant form
/// (`p[i]` for `lo <= i < hi`: a section starting at `lo`, which finds the part of the array a
/// caller's data construct holds; otherwise from element 0).
fn footprint(region: &Region, a: &crate::ir::ArrayInfo) -> Option<(HostExpr, Option<HostExpr>)> {
    let extents: Option<Vec<HostExpr>> = a
        .extents
        .iter()
        .map(|e| e.as_ref().map(|p| host_poly(region, p)))
        .collect();
    if let Some(all) = extents {
        return Some((HostExpr::product(all), None));
    }
    // `A[][M]` / `(*A)[M]`: rows from the accesses, times the known row sizes.
    let rest: Vec<HostExpr> = a.extents[1..]
        .iter()
        .map(|e| e.as_ref().map(|p| host_poly(region, p)))
        .collect::<Option<_>>()?;
    let end = max_index(region, a, 0)? + HostExpr::Int(1);
    match min_index(region, a) {
        Some(first) => {
            let first = host_poly(region, &first);
            let rows = HostExpr::Bin(HostOp::Sub, Box::new(end), Box::new(first.clone()));
            let count = HostExpr::product(std::iter::once(rows).chain(rest.iter().cloned()));
            let start = HostExpr::product(std::iter::once(first).chain(rest));
            Some((count, Some(start)))
        }
        None => Some((HostExpr::product(std::iter::once(end).chain(rest)), None)),
    }
}

/// The smallest first subscript of array `a`, when every access reaches the same one and it is
/// not a constant (a constant start would be 0 or a fixed few elements: not worth a section).
fn min_index(region: &Region, a: &crate::ir::ArrayInfo) -> Option<Poly> {
    let mut min: Option<Poly> = None;
    for acc in region.accesses.iter().filter(|x| x.array == a.name) {
        let p = acc.subscripts.first()?.as_ref()?;
        let m = region.extreme(p, &acc.loops, false)?;
        match &min {
            Some(prev) if *prev != m => return None,
            _ => min = Some(m),
        }
    }
    min.filter(|m| m.as_const().is_none())
}

/// The largest value subscript `dim` of array `a` takes.
fn max_index(region: &Region, a: &crate::ir::ArrayInfo, dim: usize) -> Option<HostExpr> {
    let mut maxes = Vec::new();
    for acc in region.accesses.iter().filter(|x| x.array == a.name) {
        let p = acc.subscripts.get(dim)?.as_ref()?;
        let m = region.extreme(p, &acc.loops, true)?;
        if !maxes.contains(&m) {
            maxes.push(m);
        }
    }
    maxes
        .iter()
        .map(|m| host_poly(region, m))
        .reduce(|a, b| HostExpr::Max(Box::new(a), Box::new(b)))
}

/// An affine form the host evaluates: region invariants spelled as the expressions they stand
/// for, other symbols as the function's variables.
pub(super) fn host_poly(ir: &Region, p: &Poly) -> HostExpr {
    HostExpr::from_poly(p, &|x| host_symbol(ir, x))
}

/// A symbol of a bound as the host spells it: a region invariant (`accshare_inv_N`) is the
/// expression it stands for, as a `long`; anything else is the function's variable.
pub(super) fn host_symbol(ir: &Region, x: &str) -> HostExpr {
    match ir.invariants.iter().find(|i| i.name == x) {
        Some(i) => HostExpr::Long(Box::new(HostExpr::Ir(Box::new(ir.exprs.detach(i.expr))))),
        None => HostExpr::var(x),
    }
}
