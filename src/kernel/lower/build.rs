//! Building one kernel from its schedule: iterators of the grid loops, guards, private scalars,
//! the body.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::{self, DepInfo};
use crate::diag::{Diag, Diags};
use crate::ir::expr::{Expr, Exprs, SizeOf};
use crate::ir::lower::RegionAst;
use crate::ir::stmt::{Code, Init, Local, LocalType, Stmt};
use crate::ir::{Bound, Handle, LoopId, Poly, Region};
use crate::vocab::RedOp;
use crate::vocab::{BinOp, Scalar, UnOp};

use crate::schedule::{GridLoop, Schedule, StageSpec};

use super::staged::local_index;

use super::reduce::{identity, reduction_epilogue};
use super::walk::*;
use super::*;

// ---------------------------------------------------------------------------------------------
// Kernel construction
// ---------------------------------------------------------------------------------------------

/// The prefix of the parameter that carries a `firstprivate` scalar's value into the kernel.
const FIRSTPRIVATE: &str = "accshare_fp_";

/// The loop of a grid-stride kernel (`schedule::stride`) around a work-item's iterations:
/// `for (t = start; cond; t += step) { decl; … }`, `decl` declaring the outermost grid loop's
/// iterator from `t`.
pub(super) struct StrideLoop {
    t: Handle<KVar>,
    start: KExpr,
    cond: KExpr,
    step: KExpr,
    decl: KStmt,
}

impl StrideLoop {
    /// The loop around `body`.
    fn around(self, body: Vec<KStmt>) -> KStmt {
        KStmt::For {
            unroll: false,
            init: vec![KStmt::Decl {
                var: self.t,
                init: Some(self.start),
            }],
            cond: Some(self.cond),
            step: vec![KStmt::Assign {
                target: LValue::Var(self.t),
                op: Some(BinOp::Add),
                value: self.step,
            }],
            body: std::iter::once(self.decl).chain(body).collect(),
        }
    }
}

pub(super) struct KernelBuilder<'a> {
    pub(super) r: &'a RegionAst,
    pub(super) deps: &'a DepInfo,
    pub(super) root: LoopId,
    /// The schedule this kernel applies.
    pub(super) sched: &'a Schedule,
    /// Its grid loops (`sched.grid`).
    pub(super) mapped: &'a [GridLoop],
    /// Names declared inside the kernel (locals, iterators) → type.
    pub(super) locals: BTreeMap<String, Scalar>,
    /// Private arrays declared in the kernel → (elem, extents).
    pub(super) private_arrays: BTreeMap<String, Vec<u32>>,
    /// Scalars from outside the region that each thread keeps privately.
    pub(super) privatized: BTreeSet<String>,
    pub(super) reductions: Vec<(RedOp, String, Scalar)>,
    pub(super) errors: Vec<Diag>,
    /// Why the staged body could not be built (the caller tries the next candidate schedule).
    pub(super) stage_error: Option<super::staged::StageError>,
    /// Scalars with one copy per output (set when the computation is coarsened).
    pub(super) ilp_renamed: BTreeSet<Handle<KVar>>,
    /// Private arrays with one copy per output (set alike).
    pub(super) ilp_renamed_arrays: BTreeSet<Handle<KArray>>,
    /// The arrays the kernel's code names so far (the kernel's [`Kernel::arrays`]).
    pub(super) arrays: Arena<KArray>,
    /// The scalars the kernel's code names so far (the kernel's [`Kernel::vars`]), and the
    /// names in scope where the builder is.
    pub(super) vars: VarTable,
    /// The kernel's scalars of the schedule's loop across lanes (`sched.lanes`), found where
    /// the builder lowers that loop.
    pub(super) lanes_at: Option<super::lanes::LanesAt>,
}

impl<'a> KernelBuilder<'a> {
    pub(super) fn new(r: &'a RegionAst, deps: &'a DepInfo, sched: &'a Schedule) -> Self {
        KernelBuilder {
            r,
            deps,
            root: sched.root,
            sched,
            mapped: &sched.grid,
            locals: BTreeMap::new(),
            private_arrays: BTreeMap::new(),
            privatized: BTreeSet::new(),
            reductions: Vec::new(),
            errors: Vec::new(),
            stage_error: None,
            ilp_renamed: BTreeSet::new(),
            ilp_renamed_arrays: BTreeSet::new(),
            arrays: Arena::new(),
            vars: VarTable::default(),
            lanes_at: None,
        }
    }

    /// [`VarTable::fresh`].
    pub(super) fn fresh(&mut self, name: &str, ty: Scalar) -> Handle<KVar> {
        self.vars.fresh(name, ty)
    }

    /// [`VarTable::resolve`].
    pub(super) fn resolve(&mut self, name: &str) -> Handle<KVar> {
        self.vars.resolve(name)
    }

    /// A read of [`VarTable::resolve`]`(name)`.
    pub(super) fn var(&mut self, name: &str) -> KExpr {
        KExpr::Var(self.vars.resolve(name))
    }

    /// [`VarTable::declare_free`].
    pub(super) fn declare_free(&mut self, name: &str, ty: Scalar) -> Handle<KVar> {
        self.vars.declare_free(name, ty)
    }

    /// Runs `f` in a nested scope (a block, a loop's header and body).
    pub(super) fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.vars.push_scope();
        let out = f(self);
        self.vars.pop_scope();
        out
    }

    /// The array `name` of the kernel in the space of `kind`: the one already named so, else a
    /// new one of elements `elem`.
    pub(super) fn array(&mut self, name: &str, elem: Scalar, kind: ArrayKind) -> Handle<KArray> {
        let space = kind.space();
        if let Some(h) = self.find_array(name, space) {
            return h;
        }
        self.arrays.append(
            KArray {
                name: name.to_string(),
                elem,
                kind,
            },
            crate::diag::Span::default(),
        )
    }

    /// Copy `f` of a private array the computation's copies rename (`ilp::copy_name`).
    pub(super) fn array_copy(&mut self, h: Handle<KArray>, f: u32) -> Handle<KArray> {
        let a = self.arrays[h].clone();
        self.array(&super::ilp::copy_name(&a.name, f), a.elem, a.kind)
    }

    /// The array `name` in `space`, where the kernel names one.
    pub(super) fn find_array(&self, name: &str, space: Space) -> Option<Handle<KArray>> {
        self.arrays
            .iter()
            .find(|(_, a)| a.name == name && a.space() == space)
            .map(|(h, _)| h)
    }

    /// Rows per work-item (the schedule's shape; 1: one output per work-item).
    pub(super) fn rows(&self) -> u32 {
        self.sched.shape.rows.get()
    }

    /// Columns per work-item (the schedule's shape).
    pub(super) fn cols(&self) -> u32 {
        self.sched.shape.cols.get()
    }

    /// The staging the schedule applies, when it stages at least one array.
    pub(super) fn staging(&self) -> Option<&'a StageSpec> {
        self.sched.staged()
    }

    pub(super) fn ir(&self) -> &'a Region {
        &self.r.ir
    }

    pub(super) fn build(
        &mut self,
        name: String,
        origin: String,
        kernel_index: usize,
        diags: &mut Diags,
    ) -> Option<(Kernel, Launch)> {
        let ir = self.ir();
        let dims = self.mapped.len().max(1) as u8;
        let block = self.sched.shape.block;
        self.warn_if_sequential(diags);
        self.collect_private_scalars();
        let mut body = Vec::new();
        let (guard, extent, stride_loop) = self.grid_iterators(&mut body);
        self.declare_private_scalars(&mut body);
        // Iterators of the region's other loops that are declared outside the region.
        self.declare_outer_iterators(&mut body);
        // What a work-item runs per iteration of a grid-stride loop starts here.
        let per_iteration = body.len();
        // The loop nest's code, under the guard.
        let root_stmt = self.code().loop_stmt(self.root);
        let mut locals = Vec::new();
        let all_guards = guard.clone();
        let cond = guard
            .into_iter()
            .reduce(|a, b| KExpr::bin(BinOp::LogAnd, a, b));
        if self.staging().is_some() {
            if let Err(why) = self.staged_body(cond, root_stmt, block, &mut body, &mut locals) {
                self.stage_error = Some(why);
                return None;
            }
            body = self.declare_row_copies(body);
        } else {
            let inner = root_stmt.map(|s| self.stmt(s)).unwrap_or_default();
            match self.coarsen(&[&inner]) {
                Err(why) => {
                    self.stage_error = Some(why);
                    return None;
                }
                // A register micro-tile without staging.
                Ok(Some(c)) => {
                    self.row_guards(&cond, Some(&c), &mut body);
                    // Work-items whose outputs are all in range run an unguarded copy.
                    let oks = super::staged::row_oks(&self.vars, c.f);
                    let full = oks
                        .iter()
                        .cloned()
                        .reduce(|a, b| KExpr::bin(BinOp::LogAnd, a, b));
                    match full {
                        Some(full) if self.sched.full_tile_path && cond.is_some() => {
                            let edge = if self.sched.serial_edges() {
                                c.serial(&inner, &oks)
                            } else {
                                self.computation(&cond, Some(&c), inner.clone())
                            };
                            body.push(KStmt::If {
                                cond: full,
                                then: self.computation(&None, Some(&c), inner),
                                els: edge,
                            })
                        }
                        _ => body.extend(self.computation(&cond, Some(&c), inner)),
                    }
                    body = self.declare_row_copies(body);
                }
                Ok(None) => match cond {
                    None => body.extend(inner),
                    Some(cond) => body.push(KStmt::If {
                        cond,
                        then: inner,
                        els: Vec::new(),
                    }),
                },
            }
        }
        // The work-items a block launches.
        let block = self.sched.launch_block();
        // Scalars whose final value the host needs.
        let last_values = self.last_values(&all_guards, &mut body, diags);
        if self.stage_error.is_some() {
            return None;
        }
        if let Some(l) = stride_loop {
            if self.staging().is_some() || self.sched.lanes.is_some() {
                // `schedule::stride::decide` strides neither.
                self.stage_error = Some(super::staged::StageError::Stride);
                return None;
            }
            let each = body.split_off(per_iteration);
            body.push(l.around(each));
        }
        // Reductions: tree in local memory, one partial per work-group.
        let params_extra = self.reduction_trees(block, &mut body, &mut locals);
        for e in std::mem::take(&mut self.errors) {
            diags.push(e);
        }
        let (params, args, reductions) =
            self.parameters(&body, &locals, last_values, params_extra, diags);
        let uses_double = params.iter().any(|p| match &p.kind {
            KParamKind::Buffer { elem, .. } | KParamKind::Scalar { ty: elem, .. } => {
                *elem == Scalar::Double
            }
        }) || self.locals.values().any(|t| *t == Scalar::Double)
            || self
                .vars
                .with(|vars| body.iter().any(|s| stmt_uses_double(vars, s)));
        let mut kernel = Kernel {
            name,
            arrays: std::mem::take(&mut self.arrays),
            vars: self.vars.take(),
            params,
            locals,
            dims,
            block,
            body,
            uses_double,
            bank_width: self.staging().and_then(|s| s.bank_mode).map(|m| m.width),
            registers: Some(crate::schedule::regs::estimate(ir, self.sched).total()),
            origin,
        };
        let mut launch = Launch {
            kernel: kernel_index,
            args,
            extent,
            reductions,
            stride: self.sched.stride,
        };
        // The inner reduction loop across lanes (`schedule::lanes`), on the finished kernel.
        if let Some(l) = &self.sched.lanes {
            let at = self.lanes_at.take();
            if let Err(why) = super::lanes::apply(&mut kernel, &mut launch, l, at) {
                self.stage_error = Some(super::staged::StageError::Lanes(why));
                return None;
            }
        }
        Some((kernel, launch))
    }

    /// The work-group trees of the kernel's reductions at the end of `body` (their local arrays
    /// added to `locals`); the partial-result buffers they write, for the parameters.
    fn reduction_trees(
        &mut self,
        block: [u32; 3],
        body: &mut Vec<KStmt>,
        locals: &mut Vec<Handle<KArray>>,
    ) -> Vec<(String, Scalar, usize)> {
        let threads = block[0] * block[1] * block[2];
        let mut params_extra = Vec::new();
        for (i, (op, v, ty)) in self.reductions.clone().into_iter().enumerate() {
            let arr = format!("accshare_red_{}", v);
            let part = format!("accshare_part_{}", v);
            let arr = self.array(&arr, ty, ArrayKind::Local { len: threads });
            locals.push(arr);
            let part_array = self.array(&part, ty, ArrayKind::Buffer);
            let var = self.resolve(&v);
            body.extend(reduction_epilogue(
                (arr, part_array),
                (&self.vars, var),
                op,
                ty,
                threads,
            ));
            params_extra.push((part, ty, i));
        }
        params_extra
    }

    /// Warns when the nest runs on one work-item (its reason, and what would make it parallel).
    fn warn_if_sequential(&self, diags: &mut Diags) {
        let ir = self.ir();
        // A loop of a `parallel` construct with a proven dependence already has its warning
        // (`dependence::check_claims`), which says the nest runs on one work-item.
        let warned = ir.loops[self.root].marking == crate::ir::Marking::Implicit
            && matches!(
                self.deps.loops[self.root].verdict,
                dependence::Verdict::Carried(_)
            );
        let once = ir.loops[self.root].var == crate::ir::lower::ONCE_VAR;
        if once && !ir.loops[self.root].children.is_empty() {
            diags.push(
                Diag::warning(
                    ir.loops[self.root].span,
                    "these statements at the top level of the compute region run on one work-item",
                )
                .note("statements that are not loops run once, in program order, so that the program computes what its sequential version computes; the loops inside them run sequentially")
                .help("put a `loop` directive on a loop at the top level of the region to run it in parallel"),
            );
        } else if self.mapped.is_empty()
            && !warned
            && !once
            // `seq` on the outermost loop is the user's choice (`explain` lists the loop).
            && ir.loops[self.root].marking != crate::ir::Marking::Seq
        {
            let lp = &ir.loops[self.root];
            let bounds: Vec<String> = [&lp.lower, &lp.upper]
                .into_iter()
                .filter_map(|b| match b {
                    crate::ir::Bound::NonAffine(e) => Some(ir.exprs.display(*e).to_string()),
                    crate::ir::Bound::Affine(_) => None,
                })
                .collect();
            diags.push(
                Diag::warning(lp.header_span, format!("loop `{}` is not parallel: this loop nest runs on a single GPU thread", lp.var))
                    .note(match &self.deps.loops[self.root].verdict {
                        dependence::Verdict::Carried(_) => "it carries a dependence".to_string(),
                        dependence::Verdict::Unknown(why) => format!("its independence cannot be proven: {}", why),
                        dependence::Verdict::Independent if !bounds.is_empty() => format!(
                            "its bounds cannot size the grid: `{}` is not an affine expression of the function's scalars",
                            bounds.join("`, `")
                        ),
                        dependence::Verdict::Independent => "its bounds cannot be mapped to the grid".to_string(),
                    })
                    .help("mark the loop `independent` if its iterations are independent, or move a sequential outer loop out of the compute region"),
            );
        }
    }

    /// Scalars each work-item keeps: the privatized scalars and reductions of the grid loops.
    fn collect_private_scalars(&mut self) {
        let ir = self.ir();
        for m in self.mapped {
            let ld = &self.deps.loops[m.loop_id];
            for v in ld.privatized.iter().chain(&ir.loops[m.loop_id].private) {
                self.privatized.insert(v.clone());
            }
            for (op, v) in &ld.reductions {
                if self.reductions.iter().any(|(_, n, _)| n == v) {
                    continue;
                }
                let ty = ir.scalars.get(v).map(|s| s.ty).unwrap_or(Scalar::Float);
                self.reductions.push((*op, v.clone(), ty));
            }
        }
    }

    /// Declares the iterators of the grid loops; returns the guard (each iterator inside its
    /// loop's bounds) and the number of work-items per grid dimension.
    fn grid_iterators(
        &mut self,
        body: &mut Vec<KStmt>,
    ) -> (Vec<KExpr>, [HostExpr; 3], Option<StrideLoop>) {
        let ir = self.ir();
        let mut stride_loop = None;
        let block = self.sched.shape.block;
        let (rows, cols) = (self.rows(), self.cols());
        let factor = |d: u8| match d {
            0 => cols,
            1 => rows,
            _ => 1,
        };
        let mut guard: Vec<KExpr> = Vec::new();
        let mut extent = [HostExpr::Int(1), HostExpr::Int(1), HostExpr::Int(1)];
        for idx in 0..self.mapped.len() {
            let m = &self.mapped[idx];
            let lp = &ir.loops[m.loop_id];
            let (min, max) = (&m.min, &m.max);
            let s = lp.step.unsigned_abs() as i64;
            // Several outputs per work-item along this dimension: the first of a work-item is
            // the block's first plus its local id (the others are `ilp::copy_name`, declared by
            // `declare_row_copies`).
            let t = if factor(m.dim) > 1 {
                // Contiguous columns: the work-item's first is `lx·RX` into its block; adjacent
                // rows (a transposed vector tile) `ly·RY`; runs of V (a micro-tile read as
                // vectors) `l·V`.
                let lid = KExpr::Builtin(Builtin::LocalId(m.dim));
                let lid = match self.sched.copy_run(m.dim) {
                    1 => lid,
                    run => KExpr::bin(BinOp::Mul, lid, KExpr::int(run as i64)),
                };
                KExpr::bin(
                    BinOp::Add,
                    KExpr::bin(
                        BinOp::Mul,
                        KExpr::Builtin(Builtin::GroupId(m.dim)),
                        KExpr::int(block[m.dim as usize] as i64),
                    ),
                    lid,
                )
            } else {
                KExpr::Builtin(Builtin::GlobalId(m.dim))
            };
            // The outermost grid loop of a grid-stride kernel (`schedule::stride`): its
            // iterator is declared in the loop over `t`, which starts at the global id.
            let strided = self.sched.stride.filter(|g| idx == 0 && g.dim == m.dim);
            let (t, stride_var) = match strided {
                Some(_) => {
                    let v = self.vars.add("accshare_t", Scalar::Long, VarKind::Private);
                    (KExpr::Var(v), Some((v, t)))
                }
                None => (t, None),
            };
            let scaled = if s == 1 {
                t
            } else {
                KExpr::bin(BinOp::Mul, t, KExpr::int(s))
            };
            let init = if lp.step > 0 && min.is_zero() {
                scaled
            } else if lp.step > 0 {
                KExpr::bin(BinOp::Add, self.poly_expr(min, lp.ty), scaled)
            } else {
                KExpr::bin(BinOp::Sub, self.poly_expr(max, lp.ty), scaled)
            };
            let first = init.clone();
            let init = Some(cast_if(lp.ty, init));
            let h = self.fresh(&lp.var, lp.ty);
            let decl = KStmt::Decl { var: h, init };
            let upper = self.bound_expr(&lp.upper, lp.ty);
            let var = KExpr::Var(h);
            if let Some((t_var, start)) = stride_var {
                // The loop runs while the iterator `t` stands for is in its bounds (the
                // outermost grid loop's lower bound depends on no other grid loop).
                let cmp = if lp.step > 0 { BinOp::Lt } else { BinOp::Gt };
                let step = KExpr::bin(
                    BinOp::Mul,
                    KExpr::Builtin(Builtin::NumGroups(m.dim)),
                    KExpr::int(block[m.dim as usize] as i64),
                );
                stride_loop = Some(StrideLoop {
                    t: t_var,
                    start,
                    cond: KExpr::bin(cmp, first, upper.clone()),
                    step,
                    decl,
                });
            } else {
                body.push(decl);
                guard.push(KExpr::bin(
                    if lp.step > 0 { BinOp::Lt } else { BinOp::Gt },
                    var.clone(),
                    upper,
                ));
            }
            self.locals.insert(lp.var.clone(), lp.ty);
            let lower = self.bound_expr(&lp.lower, lp.ty);
            let lower_varies = lp.lower.affine().is_some_and(|p| {
                self.mapped[..idx]
                    .iter()
                    .any(|o| p.mentions(&ir.loops[o.loop_id].var))
            });
            if lower_varies {
                let cmp = if lp.step > 0 { BinOp::Ge } else { BinOp::Le };
                guard.push(KExpr::bin(cmp, var.clone(), lower.clone()));
            }
            if s != 1 && lower_varies {
                let diff = KExpr::bin(BinOp::Sub, var.clone(), lower);
                guard.push(KExpr::bin(
                    BinOp::Eq,
                    KExpr::bin(BinOp::Rem, diff, KExpr::int(s)),
                    KExpr::int(0),
                ));
            }
            // Threads needed: ceil((max - min + 1) / s).
            let span = max.sub(min).and_then(|d| d.add(&Poly::constant(s)));
            extent[m.dim as usize] = match span {
                Some(p) if s == 1 => host_poly(ir, &p),
                Some(p) => host_poly(ir, &p) / HostExpr::Int(s),
                None => HostExpr::Int(0),
            };
            let f = factor(m.dim);
            if f > 1 {
                // Whole blocks of `block[d]` rows (columns), each run by `block[d] / f`
                // work-items.
                let d = m.dim as usize;
                extent[d] = std::mem::replace(&mut extent[d], HostExpr::Int(0))
                    .round_up(block[d] as i64)
                    / HostExpr::Int(f as i64);
            }
        }
        (guard, extent, stride_loop)
    }

    /// Private copies of scalars (a `firstprivate` one starts from the host's value, passed as
    /// `accshare_fp_<name>`) and reduction accumulators.
    fn declare_private_scalars(&mut self, body: &mut Vec<KStmt>) {
        let ir = self.ir();
        for v in self.privatized.clone() {
            // A reduction of another grid loop (`reduction(+:t)` on `x`, `t` assigned before
            // its use in each iteration of `y`): its accumulator, declared below, is the copy.
            if self.reductions.iter().any(|(_, n, _)| *n == v) {
                continue;
            }
            if let Some(info) = ir.scalars.get(&v) {
                if info.local.is_none() {
                    let first = self
                        .mapped
                        .iter()
                        .any(|m| ir.loops[m.loop_id].firstprivate.contains(&v));
                    let init = first.then(|| self.var(&format!("{}{}", FIRSTPRIVATE, v)));
                    let var = self.fresh(&v, info.ty);
                    body.push(KStmt::Decl { var, init });
                    self.locals.insert(v.clone(), info.ty);
                }
            }
        }
        for (op, v, ty) in self.reductions.clone() {
            let var = self.fresh(&v, ty);
            body.push(KStmt::Decl {
                var,
                init: Some(identity(op, ty)),
            });
            self.locals.insert(v, ty);
        }
    }

    /// The kernel's parameters and the launch's arguments: every free variable and every global
    /// array the body uses, the last-value buffers and the reductions' partial results.
    fn parameters(
        &mut self,
        body: &[KStmt],
        locals: &[Handle<KArray>],
        last_values: Vec<super::last::LastValue>,
        params_extra: Vec<(String, Scalar, usize)>,
        diags: &mut Diags,
    ) -> (Vec<KParam>, Vec<HostArg>, Vec<HostReduction>) {
        let ir = self.ir();
        let mut arrays = BTreeSet::new();
        let mut vars = BTreeSet::new();
        for s in body {
            free_names_stmt(s, &mut arrays, &mut vars);
        }
        // The global arrays, in name order.
        let arrays: BTreeMap<String, Handle<KArray>> = arrays
            .into_iter()
            .filter(|&h| self.arrays[h].space() == Space::Global)
            .map(|h| (self.arrays[h].name.clone(), h))
            .collect();
        // The free scalars (declared nowhere in the kernel), in name order.
        let free: BTreeMap<String, Handle<KVar>> = vars
            .into_iter()
            .filter(|&h| self.vars.get(h).kind == VarKind::Param)
            .map(|h| (self.vars.name(h), h))
            .filter(|(n, _)| !locals.iter().any(|&l| self.arrays[l].name == *n))
            .collect();
        let mut params = Vec::new();
        let mut args = Vec::new();
        for (a, &h) in &arrays {
            let Some(info) = ir.arrays.get(a) else {
                continue;
            };
            params.push(KParam {
                name: a.clone(),
                kind: KParamKind::Buffer {
                    array: h,
                    elem: info.elem,
                    read_only: !info.written,
                    record: info.record.as_ref().map(|d| record(d, a)),
                },
            });
            args.push(HostArg::Buffer(a.clone()));
        }
        for (v, &h) in &free {
            if self.locals.contains_key(v) || self.private_arrays.contains_key(v) {
                continue;
            }
            if let Some((ty, a)) = self.scalar_param(v, diags) {
                self.vars.set(h, ty, VarKind::Param);
                params.push(KParam {
                    name: v.clone(),
                    kind: KParamKind::Scalar { var: h, ty },
                });
                args.push(a);
            }
        }
        for lv in last_values {
            let array = self.array(&lv.buffer, lv.ty, ArrayKind::Buffer);
            params.push(KParam {
                name: lv.buffer,
                kind: KParamKind::Buffer {
                    array,
                    elem: lv.ty,
                    read_only: false,
                    record: None,
                },
            });
            args.push(HostArg::LastValue {
                var: lv.var,
                ty: lv.ty,
            });
        }
        let mut reductions = Vec::new();
        for (part, ty, i) in params_extra {
            let array = self.array(&part, ty, ArrayKind::Buffer);
            params.push(KParam {
                name: part,
                kind: KParamKind::Buffer {
                    array,
                    elem: ty,
                    read_only: false,
                    record: None,
                },
            });
            args.push(HostArg::Partials(i));
            let (op, v, _) = &self.reductions[i];
            reductions.push(HostReduction {
                var: v.clone(),
                ty,
                op: *op,
            });
        }
        (params, args, reductions)
    }

    /// The type and argument of the parameter of free scalar `v` (a region invariant, a
    /// firstprivate copy, a variable of the user's function), or a located error where it
    /// cannot be one.
    fn scalar_param(&self, v: &str, diags: &mut Diags) -> Option<(Scalar, HostArg)> {
        let ir = self.ir();
        let user = v.strip_prefix(FIRSTPRIVATE).unwrap_or(v);
        // A region invariant standing for a bound: the host computes it.
        if ir.invariants.iter().any(|i| i.name == *v) {
            return Some((
                Scalar::Long,
                HostArg::Scalar {
                    expr: host_symbol(ir, v),
                    ty: Scalar::Long,
                },
            ));
        }
        let Some(ty) = self.r.scope.get(user).and_then(|s| s.scalar()) else {
            diags.push(Diag::error(
                self.r.dir.span,
                format!("`{}` is used in the region but its type is unknown", v),
            ));
            return None;
        };
        if user != v {
            return Some((
                ty,
                HostArg::Scalar {
                    expr: HostExpr::var(user),
                    ty,
                },
            ));
        }
        if ir
            .scalars
            .get(v)
            .is_some_and(|s| s.written && s.local.is_none())
            && self.assigned_in_nest(v)
            && !self.reductions.iter().any(|(_, n, _)| n == v)
        {
            let span = ir
                .scalar_refs
                .iter()
                .find(|r| r.name == v && r.kind != crate::ir::AccessKind::Read)
                .map(|r| r.span)
                .unwrap_or(self.r.dir.span);
            diags.push(
                Diag::error(
                    span,
                    format!(
                        "`{}` is assigned in the compute region but declared outside it",
                        v
                    ),
                )
                .note("its value would not be visible after the region")
                .help(format!(
                    "declare `{}` inside the loop, or use a `reduction` clause",
                    v
                )),
            );
            return None;
        }
        Some((
            ty,
            HostArg::Scalar {
                expr: HostExpr::var(v),
                ty,
            },
        ))
    }

    fn declare_outer_iterators(&mut self, body: &mut Vec<KStmt>) {
        let ir = self.ir();
        let mut stack = vec![self.root];
        while let Some(l) = stack.pop() {
            let lp = &ir.loops[l];
            stack.extend(lp.children.iter().copied());
            if self.locals.contains_key(&lp.var) {
                continue;
            }
            // Declared outside the region (e.g. `int i, j;` at the top of the function).
            if self.r.scope.contains_key(&lp.var) && !self.mapped.iter().any(|m| m.loop_id == l) {
                let var = self.fresh(&lp.var, lp.ty);
                body.push(KStmt::Decl { var, init: None });
                self.locals.insert(lp.var.clone(), lp.ty);
            }
        }
    }

    pub(super) fn poly_expr(&mut self, p: &Poly, ty: Scalar) -> KExpr {
        self.vars.poly(p, ty)
    }

    pub(super) fn bound_expr(&mut self, b: &Bound, ty: Scalar) -> KExpr {
        match b {
            Bound::Affine(p) => self.poly_expr(p, ty),
            Bound::NonAffine(_) => KExpr::int(0),
        }
    }

    /// Loop `id` is on the grid (its iterations are the work-items).
    pub(super) fn is_mapped_loop(&self, id: LoopId) -> bool {
        self.mapped.iter().any(|m| m.loop_id == id)
    }

    /// The region's code.
    pub(super) fn code(&self) -> &'a Code {
        &self.r.ir.code
    }

    /// The region's expressions.
    pub(super) fn exprs(&self) -> &'a Exprs {
        &self.r.ir.exprs
    }

    // ---- statements -------------------------------------------------------------------------

    pub(super) fn stmt(&mut self, s: Handle<Stmt>) -> Vec<KStmt> {
        let code = self.code();
        match &code.stmts[s] {
            Stmt::For {
                id,
                init,
                cond,
                step,
                body,
            } => {
                if id.is_some_and(|id| self.is_mapped_loop(id)) {
                    return self.stmt(*body);
                }
                let (id, init, cond, step, body) = (*id, *init, *cond, *step, *body);
                self.scoped(|b| {
                    let kinit = init.map(|i| b.stmt(i)).unwrap_or_default();
                    let kcond = cond.map(|c| b.expr(c));
                    let kstep = step.map(|e| b.effect(e)).unwrap_or_default();
                    let kbody = b.scoped(|b| b.stmt(body));
                    let sched = b.sched;
                    if let (Some(id), Some(l)) = (id, &sched.lanes) {
                        if l.inner == id {
                            b.lanes_at = Some(super::lanes::LanesAt::find(&b.vars, b.ir(), l));
                        }
                    }
                    // The schedule unrolls this loop (`StageSpec::unroll_loops`).
                    let unroll = id.is_some_and(|id| {
                        sched
                            .staged()
                            .is_some_and(|st| st.unroll_loops.iter().any(|u| u.loop_id == id))
                    });
                    vec![KStmt::For {
                        unroll,
                        init: kinit,
                        cond: kcond,
                        step: kstep,
                        body: kbody,
                    }]
                })
            }
            Stmt::Atomic { kind, form, body } => self.atomic(*kind, form.as_ref(), *body),
            Stmt::Directive { body } => self.stmt(*body),
            Stmt::Empty | Stmt::Unsupported => {
                // `return`, `goto`, `switch`: reported by front::region::validate.
                Vec::new()
            }
            Stmt::Block(b) => {
                // A block without declarations is printed flat: its scope is the enclosing one.
                if b.iter().any(|s| matches!(code.stmts[*s], Stmt::Locals(_))) {
                    let out = self.scoped(|this| b.iter().flat_map(|s| this.stmt(*s)).collect());
                    vec![KStmt::Block(out)]
                } else {
                    b.iter().flat_map(|s| self.stmt(*s)).collect()
                }
            }
            Stmt::Locals(d) => self.decl(d),
            Stmt::Expr(e) => self.effect(*e),
            Stmt::If {
                cond,
                accept,
                reject,
            } => vec![KStmt::If {
                cond: self.expr(*cond),
                then: self.scoped(|b| b.stmt(*accept)),
                els: reject
                    .map(|e| self.scoped(|b| b.stmt(e)))
                    .unwrap_or_default(),
            }],
            Stmt::While { cond, body } => vec![KStmt::While {
                cond: self.expr(*cond),
                body: self.scoped(|b| b.stmt(*body)),
            }],
            Stmt::DoWhile { body, cond } => vec![KStmt::DoWhile {
                body: self.scoped(|b| b.stmt(*body)),
                cond: self.expr(*cond),
            }],
            Stmt::Break => vec![KStmt::Break],
            Stmt::Continue => vec![KStmt::Continue],
        }
    }

    pub(super) fn decl(&mut self, d: &[Local]) -> Vec<KStmt> {
        let mut out = Vec::new();
        for dec in d {
            match &dec.ty {
                LocalType::Scalar(s) => {
                    // In C the name is the new scalar's from its declarator on, its
                    // initializer included (`int t = t;` reads the new `t`).
                    self.locals.insert(dec.name.clone(), *s);
                    let var = self.fresh(&dec.name, *s);
                    let init = match dec.init {
                        Init::Expr(e) => Some(self.expr(e)),
                        Init::List(sp) => {
                            self.errors.push(Diag::error(
                                sp,
                                "initializer lists are not supported inside a compute region",
                            ));
                            None
                        }
                        Init::None => None,
                    };
                    out.push(KStmt::Decl { var, init });
                }
                LocalType::Array { elem, extents } => {
                    let mut dims = Vec::new();
                    for e in extents {
                        match e {
                            Some(n) if (1..=65536).contains(n) => dims.push(*n as u32),
                            _ => {
                                self.errors.push(Diag::error(
                                    dec.span,
                                    "a private array inside a compute region needs constant extents (at most 65536 elements)",
                                ));
                                return out;
                            }
                        }
                    }
                    let len: u32 = dims.iter().product();
                    if dec.init != Init::None {
                        self.errors.push(Diag::error(
                            dec.span,
                            "initializers of private arrays are not supported",
                        ));
                    }
                    self.private_arrays.insert(dec.name.clone(), dims);
                    let a = self.array(&dec.name, *elem, ArrayKind::Private { len });
                    out.push(KStmt::DeclArray(a));
                }
                LocalType::Other => self.errors.push(Diag::error(
                    dec.span,
                    "this declaration is not supported inside a compute region",
                )),
            }
        }
        out
    }

    /// An expression statement.
    pub(super) fn effect(&mut self, e: Handle<Expr>) -> Vec<KStmt> {
        match &self.exprs()[e] {
            Expr::Assign { op, target, value } => {
                let value = self.expr(*value);
                match self.lvalue(*target) {
                    Some(target) => vec![KStmt::Assign {
                        target,
                        op: *op,
                        value,
                    }],
                    None => Vec::new(),
                }
            }
            Expr::IncDec { inc, arg, .. } => match self.lvalue(*arg) {
                Some(target) => vec![KStmt::Assign {
                    target,
                    op: Some(if *inc { BinOp::Add } else { BinOp::Sub }),
                    value: KExpr::int(1),
                }],
                None => Vec::new(),
            },
            Expr::Comma { left, right } => {
                let mut v = self.effect(*left);
                v.extend(self.effect(*right));
                v
            }
            _ => vec![KStmt::Expr(self.expr(e))],
        }
    }

    pub(super) fn lvalue(&mut self, e: Handle<Expr>) -> Option<LValue> {
        match &self.exprs()[e] {
            Expr::Var(n) => Some(LValue::Var(self.resolve(n))),
            _ => match self.expr(e) {
                KExpr::Load(r) => Some(LValue::Elem(r)),
                // A whole struct (`c[i] = …` on an array of structs): refused by the IR
                // lowering, at this reference.
                _ if self.whole_struct(e) => None,
                _ => {
                    self.errors.push(Diag::error(
                        self.exprs().span(e),
                        "this assignment target is not supported inside a compute region",
                    ));
                    None
                }
            },
        }
    }

    /// `a[i]` naming a whole element of an array of structs.
    fn whole_struct(&self, e: Handle<Expr>) -> bool {
        let exprs = self.exprs();
        let mut cur = e;
        while let Expr::Index { base, .. } = &exprs[cur] {
            cur = *base;
        }
        matches!(&exprs[cur], Expr::Var(n)
            if matches!(exprs[e], Expr::Index { .. })
                && self.r.scope.get(n).is_some_and(|s| s.ty.base_struct().is_some()))
    }

    // ---- expressions ------------------------------------------------------------------------

    pub(super) fn expr(&mut self, e: Handle<Expr>) -> KExpr {
        let exprs = self.exprs();
        let span = exprs.span(e);
        match &exprs[e] {
            Expr::Var(n) => self.var(n),
            Expr::Int { value, ty } => KExpr::Int(*value as i64, *ty),
            Expr::Float { value, ty } => KExpr::Float(*value, *ty == Scalar::Float),
            Expr::Unary {
                op: UnOp::Deref, ..
            }
            | Expr::Index { .. } => self.access(e),
            Expr::Member {
                base, arrow: false, ..
            } if matches!(exprs[*base], Expr::Index { .. }) => self.access(e),
            Expr::Unary {
                op: UnOp::AddrOf, ..
            } => {
                self.errors.push(Diag::error(
                    span,
                    "taking an address is not supported inside a compute region",
                ));
                KExpr::int(0)
            }
            Expr::Unary { op, arg } => KExpr::Unary(*op, Box::new(self.expr(*arg))),
            Expr::Binary { op, left, right } => {
                KExpr::bin(*op, self.expr(*left), self.expr(*right))
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => KExpr::Cond(
                Box::new(self.expr(*cond)),
                Box::new(self.expr(*accept)),
                Box::new(self.expr(*reject)),
            ),
            Expr::Cast { ty, arg } => KExpr::Cast(*ty, Box::new(self.expr(*arg))),
            Expr::CastOther { arg, .. } => {
                self.errors.push(Diag::error(
                    span,
                    "only casts to arithmetic types are supported inside a compute region",
                ));
                self.expr(*arg)
            }
            Expr::Sizeof { size: Some(n), .. } => KExpr::Int(*n as i64, Scalar::SizeT),
            Expr::Sizeof { size: None, of } => {
                self.errors.push(Diag::error(
                    span,
                    if matches!(of, SizeOf::Type(_)) {
                        "`sizeof` of this type is not supported inside a compute region"
                    } else {
                        "`sizeof` of this expression is not supported inside a compute region"
                    },
                ));
                KExpr::Int(0, Scalar::SizeT)
            }
            Expr::Call {
                function,
                name_span,
                args,
            } => {
                let args = args.iter().map(|a| self.expr(*a)).collect();
                math_call(function, *name_span, args, &mut self.errors)
            }
            Expr::Str(_) => {
                self.errors.push(Diag::error(
                    span,
                    "string literals are not supported inside a compute region",
                ));
                KExpr::int(0)
            }
            Expr::Assign { .. } | Expr::IncDec { .. } | Expr::Comma { .. } => {
                // Reported by the IR lowering.
                KExpr::int(0)
            }
            // Reported by front::region::validate.
            Expr::Member { .. } | Expr::Opaque { .. } => KExpr::int(0),
        }
    }

    /// `A[e1][e2]…` → a flat access.
    pub(super) fn access(&mut self, e: Handle<Expr>) -> KExpr {
        let exprs = self.exprs();
        let span = exprs.span(e);
        // The subscripts, last first (`None`: the `0` of `*p`).
        let mut subs: Vec<Option<Handle<Expr>>> = Vec::new();
        let (mut cur, member) = match &exprs[e] {
            Expr::Member { base, field, .. } => (*base, Some(field)),
            _ => (e, None),
        };
        loop {
            match &exprs[cur] {
                Expr::Index { base, index } => {
                    subs.push(Some(*index));
                    cur = *base;
                }
                Expr::Unary {
                    op: UnOp::Deref,
                    arg,
                } if subs.is_empty() => {
                    subs.push(None);
                    cur = *arg;
                    break;
                }
                _ => break,
            }
        }
        subs.reverse();
        let Expr::Var(name) = &exprs[cur] else {
            return KExpr::int(0);
        };
        let ksubs: Vec<KExpr> = subs
            .iter()
            .map(|s| match s {
                Some(s) => self.expr(*s),
                None => KExpr::int(0),
            })
            .collect();
        if let Some(dims) = self.private_arrays.get(name).cloned() {
            let extents: Vec<KExpr> = dims.iter().map(|d| KExpr::int(*d as i64)).collect();
            let Some(array) = self.find_array(name, Space::Private) else {
                return KExpr::int(0);
            };
            return KExpr::Load(ArrayRef {
                array,
                index: Box::new(flatten(ksubs, &extents)),
                field: None,
            });
        }
        let Some(info) = self.ir().arrays.get(name) else {
            return KExpr::int(0);
        };
        // A field of an array of structs: the IR's last dimension (the IR lowering checked the
        // struct and the field, and refused the region otherwise).
        let mut ksubs = ksubs;
        let mut field = None;
        if let Some(def) = &info.record {
            let fields = &def.fields;
            let Some(index) = member.and_then(|m| fields.iter().position(|f| f == m)) else {
                return KExpr::int(0);
            };
            field = Some(Field {
                name: fields[index].clone(),
                index: index as u32,
                count: fields.len() as u32,
            });
            ksubs.push(KExpr::int(index as i64));
        }
        let mut extents = Vec::new();
        for (i, ext) in info.extents.iter().enumerate().skip(1) {
            match ext {
                Some(p) => extents.push(self.poly_expr(p, Scalar::Int)),
                None => {
                    self.errors.push(Diag::error(
                        span,
                        format!("the extent of dimension {} of `{}` is unknown, so this access cannot be flattened", i + 1, name),
                    ));
                    extents.push(KExpr::int(1));
                }
            }
        }
        if let Some(a) = self.staging().and_then(|s| s.tile_of(name, span)) {
            // A field's tile (AoS → SoA) is indexed by the struct's index alone.
            let tile_subs = match (&a.field, &field) {
                (Some(tf), Some(f)) if tf.index == f.index => {
                    Some(ksubs[..ksubs.len() - 1].to_vec())
                }
                // An interleaved last dimension (`x[2*i + 1]`): the tile's index is the
                // subscript less the residue over the stride, `i` (exact, from the IR's form).
                (None, None) => match a.interleave {
                    None => Some(ksubs.clone()),
                    Some(il) => self
                        .ir()
                        .accesses
                        .iter()
                        .find(|x| x.array == *name && x.span == span)
                        .and_then(|x| x.subscripts.last().cloned().flatten())
                        .and_then(|p| p.sub(&Poly::constant(il.residue as i64)))
                        .and_then(|p| p.div_exact(il.stride as i64))
                        .map(|q| {
                            let mut k = ksubs.clone();
                            k.pop();
                            k.push(self.poly_expr(&q, Scalar::Int));
                            k
                        }),
                },
                _ => None,
            };
            if let Some(ksubs) = tile_subs.filter(|k| k.len() == a.dims.len()) {
                let array = self.array(&a.local, a.elem, ArrayKind::Local { len: a.len() });
                return KExpr::Load(ArrayRef {
                    array,
                    index: Box::new(local_index(&self.vars, a, ksubs)),
                    field: None,
                });
            }
            if a.written {
                // A reference of a written tile left in global memory would be overwritten by
                // the tile's store-back: never generate it.
                self.errors.push(Diag::error(
                    span,
                    format!(
                        "internal error: this reference of `{}` cannot be indexed in its written tile `{}`",
                        name, a.local
                    ),
                ));
            }
        }
        let mut full = vec![KExpr::int(0)];
        full.extend(extents);
        if field.is_some() {
            // The struct's index: the subscripts without the field, over the extents without
            // the field's.
            ksubs.pop();
            full.pop();
        }
        let array = self.array(name, info.elem, ArrayKind::Buffer);
        KExpr::Load(ArrayRef {
            array,
            index: Box::new(flatten(ksubs, &full[1..])),
            field,
        })
    }
}

/// The kernel's struct type of an array of structs the IR accepted.
/// An anonymous struct without a `typedef` (`struct { float x, y; } p[N];`) gets a name of its
/// own in the kernel (`accshare_p_t`), with the same members.
fn record(def: &crate::ir::Record, array: &str) -> crate::kernel::Record {
    crate::kernel::Record {
        name: match &def.typedef {
            Some(t) => crate::kernel::RecordName::Typedef(t.clone()),
            None if def.tag.is_empty() => {
                crate::kernel::RecordName::Typedef(format!("accshare_{array}_t"))
            }
            None => crate::kernel::RecordName::Tag(def.tag.clone()),
        },
        elem: def.elem,
        fields: def.fields.clone(),
    }
}
