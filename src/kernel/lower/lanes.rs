//! Reductions across lanes (`schedule::lanes`): the built kernel of a one-loop grid, rewritten
//! so that each row of a block computes one output and its lanes share the inner reduction loop.
//!
//! Applied to the finished kernel IR of the schedule's grid loop (`build.rs` hands it over):
//!
//! ```text
//! header (i = global id; declarations)      header (i = global id along y)
//! if (i < N) {                              lane = local id x; row = local id y
//!     pre  (float sum = 0;)                 pre's declarations, without their values
//!     for (j = lo; j < hi; j++)             T lane_sum = identity;
//!         sum += A[i*M + j] * x[j];         if (i < N) { pre (sum = 0;)
//!     post (y[i] = sum;)                        for (j = lo + lane; j < hi; j += L)
//! }                                                 lane_sum += A[i*M + j] * x[j]; }
//!                                           red[row*L + lane] = lane_sum; barrier
//!                                           tree over the L lanes of the row (barriers)
//!                                           if (i < N && lane == 0) { sum = sum + red[row*L];
//!                                                                     post }
//! ```
//!
//! **Invariants:** the shape it needs is checked on the kernel IR, and where it does not hold
//! the rewrite is refused (the caller builds the next candidate): the inner loop `for (j = lo;
//! j < hi or <= hi; j += 1)` at the top of the guarded row (blocks unwrapped); its body writes
//! only the reduction scalars (each only as `s op= e`, `s = s op e`, `s = e op s`, `s =
//! fmax(s, e)`…, with the operator the schedule proved, `e` not reading `s`) and scalars it
//! declares, never memory, never `break`s, holds no barrier; the statements before it store no
//! memory (every lane runs them); the statements after it (lane 0 only) do not read `j`. Every
//! barrier is at the top of the kernel body: rows past the grid's extent and lanes past the
//! loop's take part in every one.

use crate::kernel::*;
use crate::schedule::lanes::Lanes;
use crate::vocab::{BinOp, RedOp, Scalar};

use std::collections::BTreeSet;

use super::reduce::{combine, identity};
use super::walk::{hoist_decls, VarTable};

const LANE: &str = "accshare_lane";
const ROW: &str = "accshare_row";
const STEP: &str = "accshare_ls";

/// The name of the local array of the lane copies of `v`.
fn red_array(v: &str) -> String {
    format!("{LANES_TREE}{v}")
}

/// The name of lane copy of `v`.
fn lane_copy(v: &str) -> String {
    format!("accshare_lane_{v}")
}

/// The kernel's scalars of the schedule's loop across lanes ([`Lanes::inner`]), found once
/// where the builder lowers that loop, by the names in scope there: its iterator, and each
/// reduction scalar of [`Lanes::vars`], in order (`None` where the code built so far names
/// none).
pub(super) struct LanesAt {
    iter: Option<Handle<KVar>>,
    vars: Vec<Option<Handle<KVar>>>,
}

impl LanesAt {
    /// The scalars `vars` (the builder's, at loop `l.inner`) has for `l`'s loop of `ir`.
    pub(super) fn find(vars: &VarTable, ir: &crate::ir::Region, l: &Lanes) -> LanesAt {
        LanesAt {
            iter: vars.lookup(&ir.loops[l.inner].var),
            vars: l.vars.iter().map(|v| vars.lookup(&v.name)).collect(),
        }
    }
}

/// Rewrites `kernel` (built from the schedule whose `lanes` is `l`, one grid loop on x) and its
/// launch to run the inner loop across lanes, `at` its scalars (`None`: the builder did not
/// lower the loop); `Err` says why the shape is not the one needed.
pub(super) fn apply(
    kernel: &mut Kernel,
    launch: &mut Launch,
    l: &Lanes,
    at: Option<LanesAt>,
) -> Result<(), String> {
    fits(kernel, launch, l)?;
    let vars = VarTable::holding(std::mem::take(&mut kernel.vars));
    let out = rewrite(kernel, launch, (l, at.as_ref()), &vars);
    kernel.vars = vars.take();
    out
}

/// A reduction scalar of the inner loop: the schedule's, the kernel's scalar it is where the
/// loop runs, and its lane copy.
struct Red<'l> {
    v: &'l crate::schedule::lanes::LaneVar,
    var: Handle<KVar>,
    copy: Handle<KVar>,
}

/// Whether `var` is a scalar the inner loop sees declared in the row's statements before it
/// (`pre`) or at the kernel's top (`header`), or a parameter.
fn visible(kernel: &Kernel, scopes: [&[KStmt]; 2], var: Handle<KVar>) -> bool {
    scopes
        .iter()
        .flat_map(|ss| ss.iter())
        .any(|s| matches!(s, KStmt::Decl { var: v, .. } if *v == var))
        || kernel
            .params
            .iter()
            .any(|p| matches!(p.kind, KParamKind::Scalar { var: v, .. } if v == var))
}

/// The reduction scalars of `l` where the inner loop runs (`at`'s, each [`visible`] there),
/// with their lane copies.
fn reductions<'l>(
    vars: &VarTable,
    kernel: &Kernel,
    (l, at): (&'l Lanes, &LanesAt),
    scopes: [&[KStmt]; 2],
) -> Result<Vec<Red<'l>>, String> {
    l.vars
        .iter()
        .zip(&at.vars)
        .map(|(v, var)| {
            let var = var
                .filter(|h| visible(kernel, scopes, *h))
                .ok_or_else(|| format!("`{}` is not declared", v.name))?;
            let copy = vars.named(&lane_copy(&vars.name(var)), v.ty);
            Ok(Red { v, var, copy })
        })
        .collect()
}

/// Errs where a scalar the loop's body `lbody` assigns, other than its reductions, is read by
/// the statements after the loop (`post`): its value there would be one lane's.
fn private_not_read_after(
    lbody: &[KStmt],
    post: &[KStmt],
    reds: &[Red],
    vars: &VarTable,
) -> Result<(), String> {
    let mut assigned = Vec::new();
    for s in lbody {
        assigned_in(s, &mut assigned);
    }
    assigned.retain(|v| !reds.iter().any(|x| x.var == *v));
    match assigned
        .iter()
        .find(|v| post.iter().any(|s| stmt_mentions(s, **v)))
    {
        Some(v) => Err(format!("`{}` is read after the loop", vars.name(*v))),
        None => Ok(()),
    }
}

/// [`apply`], the kernel's scalars in `vars`.
fn rewrite(
    kernel: &mut Kernel,
    launch: &mut Launch,
    (l, at): (&Lanes, Option<&LanesAt>),
    vars: &VarTable,
) -> Result<(), String> {
    let mut body = std::mem::take(&mut kernel.body);
    // The grid loop goes from x to y.
    for s in &mut body {
        remap_stmt(s);
    }
    let trailing = last_value_stores(kernel, launch, &mut body);
    let Some(KStmt::If { cond, then, els }) = body.pop() else {
        return Err("the row is not guarded".into());
    };
    if !els.is_empty() {
        return Err("the row's guard has an else branch".into());
    }
    let header = body;
    let mut declared: BTreeSet<String> = BTreeSet::new();
    for s in &header {
        if let KStmt::Decl { var, .. } = s {
            declared.insert(vars.name(*var));
        }
    }
    let row = unwrap_blocks(then);
    let (at, pos, j) = at
        .and_then(|at| {
            let j = at.iter?;
            let pos = row.iter().position(|s| loop_of(s, j))?;
            Some((at, pos, j))
        })
        .ok_or_else(|| format!("loop `{}` is not at the top of the row", l.var))?;
    let pre = &row[..pos];
    let post = &row[pos + 1..];
    let KStmt::For {
        unroll: _,
        init,
        cond: Some(lcond),
        step,
        body: lbody,
    } = &row[pos]
    else {
        return Err("the inner loop has no condition".into());
    };
    // Statements every lane runs: no memory stores, no barriers.
    if pre.iter().any(|s| !quiet(&kernel.arrays, s)) {
        return Err("a statement before the loop stores memory".into());
    }
    // The row's statements after the loop and the final values stored after the row run in
    // lane 0 (which holds the reductions' results): they may not read the loop's iterator.
    let after: Vec<KStmt> = post.iter().chain(&trailing).cloned().collect();
    if after.iter().any(|s| stmt_mentions(s, j) || has_barrier(s)) {
        return Err(format!(
            "a statement after the loop reads `{}`",
            vars.name(j)
        ));
    }
    let reds = &reductions(vars, kernel, (l, at), [pre, &header])?[..];
    // The loop: j = lo; j < hi (or <=); j += 1.
    let new_init = strided_header(init, lcond, step, (j, reds), vars)?;
    // The body: reductions and scalars private to an iteration only (the schedule's analysis
    // proved every other scalar it assigns written before read in each iteration); their values
    // after the loop are a lane's, so nothing after the loop may read them.
    let mut new_body = Vec::new();
    for s in lbody {
        new_body.push(rewrite_body(s, (j, reds), vars)?);
    }
    private_not_read_after(lbody, &after, reds, vars)?;
    // Declarations before the loop are hoisted out of the guard (the statements after the
    // loop read them under a guard of their own).
    let mut hoisted = Vec::new();
    let mut pre_stmts = vars
        .with(|v| {
            hoist_decls(
                pre.iter().cloned(),
                (&kernel.arrays, v),
                &mut declared,
                false,
                &mut hoisted,
            )
        })
        .map_err(|name| format!("`{name}` is declared twice"))?;
    let (lanes, rows) = (l.lanes as i64, l.rows as i64);
    let mut out = header;
    out.push(KStmt::Comment(format!(
        "loop `{}` across {lanes} lanes, one output per row of {lanes}, {rows} per block",
        vars.name(j)
    )));
    for (n, d) in [(LANE, 0u8), (ROW, 1u8)] {
        out.push(KStmt::Decl {
            var: vars.named(n, Scalar::Int),
            init: Some(KExpr::Builtin(Builtin::LocalId(d))),
        });
    }
    out.extend(hoisted);
    for r in reds {
        out.push(KStmt::Decl {
            var: r.copy,
            init: Some(identity(r.v.op, r.v.ty)),
        });
    }
    // Loads that do not depend on the row are read once per block: through local memory.
    let shared = if l.rows > 1 {
        shared_loads(&new_body, j, lcond, &init[..], kernel)
    } else {
        Vec::new()
    };
    if shared.is_empty() {
        pre_stmts.push(KStmt::For {
            unroll: false,
            init: new_init,
            cond: Some(lcond.clone()),
            step: vec![KStmt::Assign {
                target: LValue::Var(j),
                op: Some(BinOp::Add),
                value: KExpr::int(lanes),
            }],
            body: new_body,
        });
        out.push(KStmt::If {
            cond: cond.clone(),
            then: pre_stmts,
            els: Vec::new(),
        });
    } else {
        out.push(KStmt::If {
            cond: cond.clone(),
            then: pre_stmts,
            els: Vec::new(),
        });
        out.extend(strip_with_shared_loads(
            (kernel, vars),
            (l, j),
            &cond,
            &init[..],
            lcond,
            new_body,
            &shared,
        ));
    }
    // The tree over the lanes of each row.
    let arrays = lane_tree((kernel, vars), l, reds, &mut out);
    // Lane 0 combines the row's result into the scalar and runs the rest of the row.
    out.push(lane_zero(vars, (l, reds), &arrays, cond, post));
    // The final values, stored by lane 0 of the row that runs the last iteration.
    if !trailing.is_empty() {
        out.push(KStmt::If {
            cond: KExpr::bin(BinOp::Eq, vars.int(LANE), KExpr::int(0)),
            then: trailing,
            els: Vec::new(),
        });
    }
    kernel.body = out;
    kernel.dims = 2;
    kernel.block = [l.lanes, l.rows, 1];
    let rows_extent = std::mem::replace(&mut launch.extent[0], HostExpr::Int(lanes));
    launch.extent[1] = rows_extent;
    Ok(())
}

/// The kernel is one a row per work-item could become: no reductions of its own, one grid
/// dimension, and a power of two of lanes (final values of scalars are stored after the row,
/// [`last_value_stores`]).
fn fits(kernel: &Kernel, launch: &Launch, l: &Lanes) -> Result<(), String> {
    if !launch.reductions.is_empty()
        || launch
            .args
            .iter()
            .any(|a| matches!(a, HostArg::Partials(_)))
    {
        return Err("the kernel has reductions of its own".into());
    }
    if kernel.dims != 1 || !l.lanes.is_power_of_two() {
        return Err("the lanes are not a power of two".into());
    }
    Ok(())
}

/// The statements at the end of `body` that store final values of scalars
/// (`kernel::lower::last`: `if (last iteration) accshare_last_s[0] = s;`), taken off it in
/// order.
fn last_value_stores(kernel: &Kernel, launch: &Launch, body: &mut Vec<KStmt>) -> Vec<KStmt> {
    let last: Vec<Handle<KArray>> = launch
        .args
        .iter()
        .zip(&kernel.params)
        .filter_map(|(a, p)| match (a, &p.kind) {
            (HostArg::LastValue { .. }, KParamKind::Buffer { array, .. }) => Some(*array),
            _ => None,
        })
        .collect();
    let stores_last = |s: &KStmt| {
        match s {
        KStmt::If { then, els, .. } if els.is_empty() => then.iter().all(|t| {
            matches!(t, KStmt::Assign { target: LValue::Elem(r), .. } if last.contains(&r.array))
        }),
        _ => false,
    }
    };
    let mut out = Vec::new();
    while body.last().is_some_and(stores_last) {
        out.extend(body.pop());
    }
    out.reverse();
    out
}

/// Lane 0 of each row combines the row's result into each reduction's scalar, then runs the
/// statements after the loop (`post`), where the row is in the grid (`cond`).
fn lane_zero(
    vars: &VarTable,
    (l, reds): (&Lanes, &[Red]),
    arrays: &[Handle<KArray>],
    cond: KExpr,
    post: &[KStmt],
) -> KStmt {
    let lanes = l.lanes as i64;
    let mut last = Vec::new();
    for (r, &red_v) in reds.iter().zip(arrays) {
        last.push(KStmt::Assign {
            target: LValue::Var(r.var),
            op: None,
            value: combine(
                r.v.op,
                r.v.ty,
                KExpr::Var(r.var),
                KExpr::Load(red(red_v, slot_of(vars, lanes, KExpr::int(0)))),
            ),
        });
    }
    last.extend(post.iter().cloned());
    KStmt::If {
        cond: KExpr::bin(
            BinOp::LogAnd,
            cond,
            KExpr::bin(BinOp::Eq, vars.int(LANE), KExpr::int(0)),
        ),
        then: last,
        els: Vec::new(),
    }
}

/// The inner loop's initialisation started at the lane (`j = lo + lane`), after checking that
/// the loop is `for (j = lo; j < hi or <= hi; j += 1)` with `hi` not reading a reduction.
fn strided_header(
    init: &[KStmt],
    lcond: &KExpr,
    step: &[KStmt],
    (j, reds): (Handle<KVar>, &[Red]),
    vars: &VarTable,
) -> Result<Vec<KStmt>, String> {
    let new_init = match init {
        [KStmt::Assign {
            target: LValue::Var(v),
            op: None,
            value,
        }] if *v == j => vec![KStmt::Assign {
            target: LValue::Var(*v),
            op: None,
            value: KExpr::bin(BinOp::Add, value.clone(), vars.int(LANE)),
        }],
        [KStmt::Decl {
            var,
            init: Some(value),
        }] if *var == j => vec![KStmt::Decl {
            var: *var,
            init: Some(KExpr::bin(BinOp::Add, value.clone(), vars.int(LANE))),
        }],
        _ => return Err("the inner loop's initialisation is not `j = lo`".into()),
    };
    match lcond {
        KExpr::Binary(BinOp::Lt | BinOp::Le, a, hi)
            if matches!(&**a, KExpr::Var(v) if *v == j)
                && !reds.iter().any(|r| expr_mentions(hi, r.var)) => {}
        _ => return Err("the inner loop's condition is not `j < hi`".into()),
    }
    let unit = |e: &KExpr| matches!(e, KExpr::Int(1, _));
    match step {
        [KStmt::Assign {
            target: LValue::Var(v),
            op: Some(BinOp::Add),
            value,
        }] if *v == j && unit(value) => {}
        _ => return Err("the inner loop's step is not `j += 1`".into()),
    }
    Ok(new_init)
}

/// Each lane's copies into local memory, then the tree over the lanes of each row (barriers
/// between its levels), appended to `out`; the local arrays go to `kernel`, and their handles,
/// one per reduction of `l`, are returned.
fn lane_tree(
    (kernel, vars): (&mut Kernel, &VarTable),
    l: &Lanes,
    reds: &[Red],
    out: &mut Vec<KStmt>,
) -> Vec<Handle<KArray>> {
    let lanes = l.lanes as i64;
    let mut arrays = Vec::new();
    for r in reds {
        let red_v = kernel.local(&red_array(&vars.name(r.var)), r.v.ty, l.lanes * l.rows);
        arrays.push(red_v);
        out.push(KStmt::Assign {
            target: LValue::Elem(red(red_v, slot_of(vars, lanes, vars.int(LANE)))),
            op: None,
            value: KExpr::Var(r.copy),
        });
    }
    out.push(KStmt::Barrier);
    let step = vars.named(STEP, Scalar::Int);
    let s = || KExpr::Var(step);
    let mut tree = Vec::new();
    for (r, &red_v) in reds.iter().zip(&arrays) {
        let here = red(red_v, slot_of(vars, lanes, vars.int(LANE)));
        let there = red(
            red_v,
            slot_of(vars, lanes, KExpr::bin(BinOp::Add, vars.int(LANE), s())),
        );
        tree.push(KStmt::Assign {
            target: LValue::Elem(here.clone()),
            op: None,
            value: combine(r.v.op, r.v.ty, KExpr::Load(here), KExpr::Load(there)),
        });
    }
    out.push(halving(
        step,
        lanes / 2,
        vec![
            KStmt::If {
                cond: KExpr::bin(BinOp::Lt, vars.int(LANE), s()),
                then: tree,
                els: Vec::new(),
            },
            KStmt::Barrier,
        ],
    ));
    arrays
}

/// Element `LANE + off` of row `ROW` of the local arrays of `l`'s lane copies.
fn slot_of(vars: &VarTable, lanes: i64, off: KExpr) -> KExpr {
    KExpr::bin(
        BinOp::Add,
        KExpr::bin(BinOp::Mul, vars.int(ROW), KExpr::int(lanes)),
        off,
    )
}

/// Element `i` of the local array `red_v` of a reduction's lane copies.
fn red(red_v: Handle<KArray>, i: KExpr) -> ArrayRef {
    ArrayRef::elem(red_v, i)
}

const STRIP: &str = "accshare_jj";
const SUB: &str = "accshare_js";
const INDEX: &str = "accshare_jx";

/// The local array of shared load `k`.
fn shared_array(k: usize) -> String {
    format!("accshare_lanes_ld{k}")
}

/// The loop's first value (its initialisation's) and the type of `j` where the loop declares it.
fn loop_start(init: &[KStmt]) -> (KExpr, bool) {
    match init {
        [KStmt::Decl { init: Some(v), .. }] => (v.clone(), true),
        [KStmt::Assign { value, .. }] => (value.clone(), false),
        _ => (KExpr::int(0), false),
    }
}

/// Whether `e` reads only literals and the kernel's scalar parameters (so every work-item of
/// the block computes the same value).
fn uniform(e: &KExpr, kernel: &Kernel, allow: Option<Handle<KVar>>) -> bool {
    match e {
        KExpr::Var(v) => {
            allow == Some(*v)
                || kernel
                    .params
                    .iter()
                    .any(|p| matches!(p.kind, KParamKind::Scalar { var, .. } if var == *v))
        }
        KExpr::Int(..) | KExpr::Float(..) => true,
        KExpr::Load(_) | KExpr::Builtin(_) => false,
        KExpr::Unary(_, a) | KExpr::Cast(_, a) => uniform(a, kernel, allow),
        KExpr::Binary(_, a, b) => uniform(a, kernel, allow) && uniform(b, kernel, allow),
        KExpr::Cond(a, b, c) => [a, b, c].iter().all(|x| uniform(x, kernel, allow)),
        KExpr::Call(_, args) => args.iter().all(|a| uniform(a, kernel, allow)),
    }
}

/// The loads of the inner loop's body that every row of the block makes alike: of a read-only
/// buffer of scalars, at an index of `j` and the kernel's scalar parameters only, in every
/// iteration (a statement at the top of the body, outside conditional operators; a body without
/// `continue`), in a loop whose bounds are uniform. Empty where there is none.
fn shared_loads(
    body: &[KStmt],
    j: Handle<KVar>,
    lcond: &KExpr,
    init: &[KStmt],
    kernel: &Kernel,
) -> Vec<ArrayRef> {
    let KExpr::Binary(_, _, hi) = lcond else {
        return Vec::new();
    };
    let (lo, _) = loop_start(init);
    if !uniform(hi, kernel, None) || !uniform(&lo, kernel, None) {
        return Vec::new();
    }
    if body
        .iter()
        .any(|s| s.any(&|t| matches!(t, KStmt::Continue)))
    {
        return Vec::new();
    }
    fn collect(e: &KExpr, j: Handle<KVar>, kernel: &Kernel, out: &mut Vec<ArrayRef>) {
        match e {
            KExpr::Load(a) => {
                let read_only = kernel.params.iter().any(|p| {
                    matches!(
                        p.kind,
                        KParamKind::Buffer {
                            array,
                            read_only: true,
                            record: None,
                            ..
                        } if array == a.array
                    )
                });
                if kernel.arrays[a.array].space() == Space::Global
                    && a.field.is_none()
                    && read_only
                    && expr_mentions(&a.index, j)
                    && uniform(&a.index, kernel, Some(j))
                    && !out.contains(a)
                {
                    out.push(a.clone());
                }
            }
            // Operands that may not be evaluated in every iteration.
            KExpr::Cond(..) | KExpr::Binary(BinOp::LogAnd | BinOp::LogOr, ..) => {}
            KExpr::Unary(_, a) | KExpr::Cast(_, a) => collect(a, j, kernel, out),
            KExpr::Binary(_, a, b) => {
                collect(a, j, kernel, out);
                collect(b, j, kernel, out);
            }
            KExpr::Call(_, args) => args.iter().for_each(|a| collect(a, j, kernel, out)),
            KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
        }
    }
    let mut out = Vec::new();
    for s in body {
        match s {
            KStmt::Assign { value, .. } => collect(value, j, kernel, &mut out),
            KStmt::Decl { init: Some(e), .. } => collect(e, j, kernel, &mut out),
            _ => {}
        }
    }
    out.truncate(4);
    out
}

/// The inner loop in strips of `lanes × rows` iterations: each work-item loads one element of
/// every shared load into local memory, then each row runs the strip's iterations in `rows`
/// steps of `lanes`, reading the shared loads from local memory. The strip loop and its
/// barriers are uniform; rows past the grid and iterations past the loop only skip the body.
#[allow(clippy::too_many_arguments)]
fn strip_with_shared_loads(
    (kernel, vars): (&mut Kernel, &VarTable),
    (l, j): (&Lanes, Handle<KVar>),
    row_ok: &KExpr,
    init: &[KStmt],
    lcond: &KExpr,
    body: Vec<KStmt>,
    shared: &[ArrayRef],
) -> Vec<KStmt> {
    let (lanes, rows) = (l.lanes as i64, l.rows as i64);
    let KExpr::Binary(cmp, _, hi) = lcond else {
        unreachable!("shared_loads checked the condition")
    };
    let (lo, j_declared) = loop_start(init);
    let below = |e: KExpr| KExpr::bin(*cmp, e, (**hi).clone());
    let linear = KExpr::bin(
        BinOp::Add,
        KExpr::bin(BinOp::Mul, vars.int(ROW), KExpr::int(lanes)),
        vars.int(LANE),
    );
    let (index, strip_v, sub) = (
        vars.named(INDEX, Scalar::Int),
        vars.named(STRIP, Scalar::Int),
        vars.named(SUB, Scalar::Int),
    );
    let mut copy = vec![KStmt::Decl {
        var: index,
        init: Some(KExpr::bin(BinOp::Add, KExpr::Var(strip_v), linear.clone())),
    }];
    let mut loads = Vec::new();
    let mut locals = Vec::new();
    for (k, a) in shared.iter().enumerate() {
        let elem = kernel
            .params
            .iter()
            .find_map(|p| match &p.kind {
                KParamKind::Buffer { array, elem, .. } if *array == a.array => Some(*elem),
                _ => None,
            })
            .unwrap_or(Scalar::Float);
        let local = kernel.local(&shared_array(k), elem, l.lanes * l.rows);
        locals.push(local);
        let mut src = a.clone();
        src.index = Box::new(rename(&a.index, j, index));
        loads.push(KStmt::Assign {
            target: LValue::Elem(ArrayRef::elem(local, linear.clone())),
            op: None,
            value: KExpr::Load(src),
        });
    }
    copy.push(KStmt::If {
        cond: below(KExpr::Var(index)),
        then: loads,
        els: Vec::new(),
    });
    // The body, reading the shared loads from local memory.
    let at = KExpr::bin(
        BinOp::Add,
        KExpr::bin(BinOp::Mul, KExpr::Var(sub), KExpr::int(lanes)),
        vars.int(LANE),
    );
    let mut body = body;
    for s in &mut body {
        s.walk_exprs_mut(&mut |e| replace_loads(e, shared, &locals, &at));
    }
    let jv = KExpr::bin(BinOp::Add, KExpr::Var(strip_v), at.clone());
    let set_j = if j_declared {
        KStmt::Decl {
            var: j,
            init: Some(jv),
        }
    } else {
        KStmt::Assign {
            target: LValue::Var(j),
            op: None,
            value: jv,
        }
    };
    let step = KStmt::count_up(
        sub,
        KExpr::int(0),
        KExpr::int(rows),
        KExpr::int(1),
        vec![
            set_j,
            KStmt::If {
                cond: KExpr::bin(BinOp::LogAnd, row_ok.clone(), below(KExpr::Var(j))),
                then: body,
                els: Vec::new(),
            },
        ],
    );
    let mut strip = copy;
    strip.push(KStmt::Barrier);
    strip.push(step);
    strip.push(KStmt::Barrier);
    vec![count_up_cmp(
        strip_v,
        lo,
        *cmp,
        (**hi).clone(),
        KExpr::int(lanes * rows),
        strip,
    )]
}

/// Every load of `shared[k]` in `e` becomes element `at` of its local array `locals[k]`.
fn replace_loads(e: &mut KExpr, shared: &[ArrayRef], locals: &[Handle<KArray>], at: &KExpr) {
    if let KExpr::Load(a) = e {
        if let Some(k) = shared.iter().position(|s| s == a) {
            *e = KExpr::load(locals[k], at.clone());
            return;
        }
    }
    e.for_each_child_mut(&mut |c| replace_loads(c, shared, locals, at));
}

/// `for (int var = init; var cmp bound; var += step) { body }`.
fn count_up_cmp(
    var: Handle<KVar>,
    init: KExpr,
    cmp: BinOp,
    bound: KExpr,
    step: KExpr,
    body: Vec<KStmt>,
) -> KStmt {
    let mut f = KStmt::count_up(var, init, bound.clone(), step, body);
    if let KStmt::For { cond, .. } = &mut f {
        *cond = Some(KExpr::bin(cmp, KExpr::Var(var), bound));
    }
    f
}

/// `for (int var = start; var > 0; var >>= 1) { body }`.
fn halving(var: Handle<KVar>, start: i64, body: Vec<KStmt>) -> KStmt {
    KStmt::For {
        unroll: false,
        init: vec![KStmt::Decl {
            var,
            init: Some(KExpr::int(start)),
        }],
        cond: Some(KExpr::bin(BinOp::Gt, KExpr::Var(var), KExpr::int(0))),
        step: vec![KStmt::Assign {
            target: LValue::Var(var),
            op: Some(BinOp::Shr),
            value: KExpr::int(1),
        }],
        body,
    }
}

/// The statements of a row with its blocks opened (`{ { a; b; } }` → `a; b;`).
fn unwrap_blocks(ss: Vec<KStmt>) -> Vec<KStmt> {
    let mut out = Vec::new();
    for s in ss {
        match s {
            KStmt::Block(b) => out.extend(unwrap_blocks(b)),
            s => out.push(s),
        }
    }
    out
}

/// Whether `s` is a loop whose initialisation sets the scalar `j` (its iterator).
fn loop_of(s: &KStmt, j: Handle<KVar>) -> bool {
    match s {
        KStmt::For { init, .. } => init.iter().any(|i| match i {
            KStmt::Assign {
                target: LValue::Var(v),
                ..
            }
            | KStmt::Decl { var: v, .. } => *v == j,
            _ => false,
        }),
        _ => false,
    }
}

/// The grid's x becomes y: the rows of the block.
fn remap_stmt(s: &mut KStmt) {
    s.walk_exprs_mut(&mut remap_expr);
}

fn remap_expr(e: &mut KExpr) {
    if let KExpr::Builtin(b) = e {
        *b = match *b {
            Builtin::LocalId(0) => Builtin::LocalId(1),
            Builtin::GroupId(0) => Builtin::GroupId(1),
            Builtin::LocalSize(0) => Builtin::LocalSize(1),
            Builtin::NumGroups(0) => Builtin::NumGroups(1),
            Builtin::GlobalId(0) => Builtin::GlobalId(1),
            b => b,
        };
    }
    e.for_each_child_mut(&mut remap_expr);
}

/// Whether `e` reads the variable `v` (without copying `e`: it is asked of every expression of
/// the row's statements).
fn expr_mentions(e: &KExpr, v: Handle<KVar>) -> bool {
    e.any(&|x| matches!(x, KExpr::Var(x) if *x == v))
}

fn stmt_mentions(s: &KStmt, v: Handle<KVar>) -> bool {
    let mut found = false;
    let assigns = |s: &KStmt| match s {
        KStmt::Assign {
            target: LValue::Var(x),
            ..
        } => *x == v,
        KStmt::Decl { var, .. } => *var == v,
        KStmt::VecLoad { lanes, .. } => lanes.contains(&v),
        KStmt::Atomic {
            capture: Some(c), ..
        } => c.var == v,
        _ => false,
    };
    found |= s.any(&assigns);
    s.walk_exprs(&mut |e| found |= expr_mentions(e, v));
    found
}

fn has_barrier(s: &KStmt) -> bool {
    s.any(&|s| matches!(s, KStmt::Barrier))
}

/// Stores no memory but private arrays, and holds no barrier.
fn quiet(arrays: &Arena<KArray>, s: &KStmt) -> bool {
    !s.any(&|s| match s {
        KStmt::Assign {
            target: LValue::Elem(a),
            ..
        } => arrays[a.array].space() != Space::Private,
        KStmt::Atomic { .. } | KStmt::VecStore { .. } | KStmt::Barrier => true,
        _ => false,
    })
}

/// The scalars `s` declares or assigns (at any depth).
fn assigned_in(s: &KStmt, out: &mut Vec<Handle<KVar>>) {
    match s {
        KStmt::Decl { var, .. } => out.push(*var),
        KStmt::Assign {
            target: LValue::Var(v),
            ..
        } => out.push(*v),
        KStmt::VecLoad { lanes, .. } => out.extend(lanes.iter().copied()),
        KStmt::Atomic {
            capture: Some(c), ..
        } => out.push(c.var),
        _ => {}
    }
    s.for_each_child(&mut |c| assigned_in(c, out));
}

/// A statement of the inner loop's body with every reduction scalar replaced by its lane copy;
/// `Err` where the statement does what a lane may not (see the module's invariants).
fn rewrite_body(
    s: &KStmt,
    (j, reds): (Handle<KVar>, &[Red]),
    vars: &VarTable,
) -> Result<KStmt, String> {
    let all = |b: &[KStmt]| -> Result<Vec<KStmt>, String> {
        b.iter().map(|s| rewrite_body(s, (j, reds), vars)).collect()
    };
    Ok(match s {
        KStmt::Assign {
            target: LValue::Var(v),
            op,
            value,
        } => {
            if let Some(r) = reds.iter().find(|r| r.var == *v) {
                let (rv, name) = (r.v, &r.v.name);
                let e = update_operand(rv.op, *v, *op, value)
                    .ok_or_else(|| format!("`{name}` is updated with another operator"))?;
                if reds.iter().any(|x| expr_mentions(&e, x.var)) {
                    return Err(format!("the update of `{name}` reads a reduction scalar"));
                }
                let copy = r.copy;
                // `copy op= e` in the operator's own form.
                let value = match (*op, rv.op) {
                    (Some(o), _) => {
                        return Ok(KStmt::Assign {
                            target: LValue::Var(copy),
                            op: Some(o),
                            value: e,
                        })
                    }
                    (None, RedOp::Max | RedOp::Min) => rename(value, *v, copy),
                    (None, o) => combine(o, rv.ty, KExpr::Var(copy), e),
                };
                KStmt::Assign {
                    target: LValue::Var(copy),
                    op: None,
                    value,
                }
            } else if *v == j {
                return Err(format!("the inner loop assigns `{}`", vars.name(j)));
            } else {
                check_reads(s, reds)?;
                s.clone()
            }
        }
        KStmt::Assign { .. } | KStmt::Atomic { .. } | KStmt::VecStore { .. } => {
            return Err("the inner loop stores memory".into())
        }
        KStmt::Break => return Err("the inner loop breaks".into()),
        KStmt::Barrier => return Err("the inner loop holds a barrier".into()),
        KStmt::If { cond, then, els } => {
            if reds.iter().any(|x| expr_mentions(cond, x.var)) {
                return Err("a condition reads a reduction scalar".into());
            }
            KStmt::If {
                cond: cond.clone(),
                then: all(then)?,
                els: all(els)?,
            }
        }
        KStmt::Block(b) => KStmt::Block(all(b)?),
        KStmt::For { .. } | KStmt::While { .. } | KStmt::DoWhile { .. } => {
            // Nested loops: only their own scalars, no reductions inside.
            if reds.iter().any(|x| stmt_mentions(s, x.var))
                || s.any(&|t| {
                    matches!(t, KStmt::Assign { target: LValue::Var(v), .. } if *v == j)
                        || matches!(
                            t,
                            KStmt::Assign {
                                target: LValue::Elem(_),
                                ..
                            } | KStmt::Atomic { .. }
                                | KStmt::VecStore { .. }
                                | KStmt::Barrier
                        )
                })
            {
                return Err("a loop inside the inner loop writes what it may not".into());
            }
            s.clone()
        }
        KStmt::Decl { .. } | KStmt::VecLoad { .. } | KStmt::Expr(_) | KStmt::Continue => {
            check_reads(s, reds)?;
            s.clone()
        }
        KStmt::Comment(_) | KStmt::DeclArray(_) => s.clone(),
    })
}

/// Errs where `s` reads a reduction scalar (only its update may).
fn check_reads(s: &KStmt, reds: &[Red]) -> Result<(), String> {
    match reds.iter().find(|x| stmt_mentions(s, x.var)) {
        Some(x) => Err(format!(
            "the inner loop reads `{}` outside its update",
            x.v.name
        )),
        None => Ok(()),
    }
}

/// The operand `e` of an update of `v` with reduction operator `op`: `v op= e`, `v = v op e`,
/// `v = e op v`, `v = fmax(v, e)` (and `min`, `fmin`, `max`); `v -= e` for a sum. `None` for any
/// other form.
fn update_operand(
    op: RedOp,
    v: Handle<KVar>,
    assign: Option<BinOp>,
    value: &KExpr,
) -> Option<KExpr> {
    let is_v = |e: &KExpr| matches!(e, KExpr::Var(x) if *x == v);
    let bin = match op {
        RedOp::Add => Some(BinOp::Add),
        RedOp::Mul => Some(BinOp::Mul),
        RedOp::BitAnd => Some(BinOp::BitAnd),
        RedOp::BitOr => Some(BinOp::BitOr),
        RedOp::BitXor => Some(BinOp::BitXor),
        RedOp::LogAnd => Some(BinOp::LogAnd),
        RedOp::LogOr => Some(BinOp::LogOr),
        RedOp::Max | RedOp::Min => None,
    };
    match assign {
        Some(a) if Some(a) == bin || (op == RedOp::Add && a == BinOp::Sub) => {
            (!expr_mentions(value, v)).then(|| value.clone())
        }
        Some(_) => None,
        None => {
            let e = match (value, bin) {
                (KExpr::Binary(o, a, b), Some(want)) if *o == want => {
                    if is_v(a) {
                        (**b).clone()
                    } else if is_v(b) {
                        (**a).clone()
                    } else {
                        return None;
                    }
                }
                (KExpr::Cond(c, a, b), None) => {
                    // `v = x > y ? x : y` (the larger: max) and its mirrors; `<`: the smaller.
                    let KExpr::Binary(cmp, x, y) = &**c else {
                        return None;
                    };
                    let larger = match cmp {
                        BinOp::Gt | BinOp::Ge => a == x && b == y,
                        BinOp::Lt | BinOp::Le => a == y && b == x,
                        _ => return None,
                    };
                    let smaller = match cmp {
                        BinOp::Gt | BinOp::Ge => a == y && b == x,
                        BinOp::Lt | BinOp::Le => a == x && b == y,
                        _ => return None,
                    };
                    let picks = if op == RedOp::Max { larger } else { smaller };
                    if !picks {
                        return None;
                    }
                    if is_v(x) {
                        (**y).clone()
                    } else if is_v(y) {
                        (**x).clone()
                    } else {
                        return None;
                    }
                }
                (KExpr::Call(f, args), None) if args.len() == 2 && minmax(f) == Some(op) => {
                    if is_v(&args[0]) {
                        args[1].clone()
                    } else if is_v(&args[1]) {
                        args[0].clone()
                    } else {
                        return None;
                    }
                }
                _ => return None,
            };
            (!expr_mentions(&e, v)).then_some(e)
        }
    }
}

/// The reduction a two-argument math function is.
fn minmax(f: &MathFn) -> Option<RedOp> {
    use crate::kernel::math::Real;
    match f {
        MathFn::Max | MathFn::Real(Real::Fmax, _) => Some(RedOp::Max),
        MathFn::Min | MathFn::Real(Real::Fmin, _) => Some(RedOp::Min),
        _ => None,
    }
}

/// `e` with the scalar `from` replaced by `to`.
fn rename(e: &KExpr, from: Handle<KVar>, to: Handle<KVar>) -> KExpr {
    let mut e = e.clone();
    fn go(e: &mut KExpr, from: Handle<KVar>, to: Handle<KVar>) {
        if let KExpr::Var(x) = e {
            if *x == from {
                *x = to;
            }
        }
        e.for_each_child_mut(&mut |c| go(c, from, to));
    }
    go(&mut e, from, to);
    e
}
