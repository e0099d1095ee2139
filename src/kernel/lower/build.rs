//! Building one kernel: grid mapping, guards, private scalars, the body.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::{self, DepInfo};
use crate::diag::{Diag, Diags, Span};
use crate::front::ast::{
    self, BinOp, CType, Expr, ExprKind, ForInit, Scalar, Stmt, StmtKind, UnOp,
};
use crate::front::pragma_ast::RedOp;
use crate::ir::lower::{array_shape, RegionAst};
use crate::ir::{Bound, LoopId, Poly, Region};

use crate::partition::KernelPlan;
use crate::transform::stage::{self, GridLoop, Primary, StageSpec, StagedArray, TileDim};

use super::reduce::{identity, reduction_epilogue};
use super::walk::*;
use super::*;

// ---------------------------------------------------------------------------------------------
// Kernel construction
// ---------------------------------------------------------------------------------------------

pub(super) struct Mapped {
    pub(super) loop_id: LoopId,
    pub(super) dim: u8,
}

pub(super) struct KernelBuilder<'a> {
    r: &'a RegionAst,
    deps: &'a DepInfo,
    root: LoopId,
    pub(super) mapped: Vec<Mapped>,
    /// Names declared inside the kernel (locals, iterators) → type.
    locals: BTreeMap<String, Scalar>,
    /// Private arrays declared in the kernel → (elem, extents).
    private_arrays: BTreeMap<String, Vec<u32>>,
    /// Scalars from outside the region that each thread keeps privately.
    privatized: BTreeSet<String>,
    reductions: Vec<(RedOp, String, Scalar)>,
    errors: Vec<Diag>,
    /// `--opt share`: the engine's plan for this kernel.
    kplan: Option<&'a KernelPlan>,
    /// The staging decisions (`Some` once `build` has run with a plan).
    pub(super) stage: Option<StageSpec>,
    /// Why the staged body could not be built (the caller falls back to the baseline).
    pub(super) stage_error: Option<String>,
    /// Rows per work-item asked for (`--ilp`); `None`: the staging plan's choice.
    pub(super) ilp_request: Option<u32>,
    /// Rows per work-item of the built kernel (1: one output per work-item).
    pub(super) ilp: u32,
    /// Variables with one copy per row (set when the staged body is coarsened).
    ilp_renamed: BTreeSet<String>,
}

impl<'a> KernelBuilder<'a> {
    pub(super) fn new(r: &'a RegionAst, deps: &'a DepInfo, root: LoopId) -> Self {
        KernelBuilder {
            r,
            deps,
            root,
            mapped: Vec::new(),
            locals: BTreeMap::new(),
            private_arrays: BTreeMap::new(),
            privatized: BTreeSet::new(),
            reductions: Vec::new(),
            errors: Vec::new(),
            kplan: None,
            stage: None,
            stage_error: None,
            ilp_request: None,
            ilp: 1,
            ilp_renamed: BTreeSet::new(),
        }
    }

    /// Stage the arrays the engine chose for this kernel (`--opt share`).
    pub(super) fn with_plan(mut self, kp: &'a KernelPlan) -> Self {
        self.kplan = Some(kp);
        self
    }

    /// Ask for `f` rows per work-item (`--ilp`), instead of the staging plan's choice.
    pub(super) fn with_ilp(mut self, f: Option<u32>) -> Self {
        self.ilp_request = f;
        self
    }

    /// Rows per work-item: the request or the plan's choice, reduced to a power of two dividing
    /// the block's height; 1 without staging, with fewer than two grid dimensions, or with
    /// reductions (their trees assume one value per work-item).
    fn choose_ilp(&self, block: [u32; 3]) -> u32 {
        let Some(spec) = self.staging() else { return 1 };
        if self.mapped.len() < 2 || !self.reductions.is_empty() {
            return 1;
        }
        let want = self.ilp_request.unwrap_or(spec.ilp).clamp(1, 64);
        let mut f = 1;
        while f * 2 <= want && block[1] % (f * 2) == 0 {
            f *= 2;
        }
        f
    }

    fn staging(&self) -> Option<&StageSpec> {
        self.stage.as_ref().filter(|s| !s.arrays.is_empty())
    }

    /// Runs the staging analysis (after the mapping is chosen).
    fn plan_staging(&mut self) {
        let Some(kp) = self.kplan else { return };
        let mut grid = Vec::new();
        for i in 0..self.mapped.len() {
            let Some((min, max)) = self.iter_box(i) else {
                return;
            };
            grid.push(GridLoop {
                loop_id: self.mapped[i].loop_id,
                dim: self.mapped[i].dim,
                min,
                max,
            });
        }
        self.stage = Some(stage::plan(self.r, self.root, &grid, kp));
    }

    /// The chosen staging, computed without building the kernel (for `explain`).
    pub(super) fn staging_only(&mut self) -> Option<StageSpec> {
        self.choose_mapping();
        self.plan_staging();
        self.stage.clone()
    }

    fn ir(&self) -> &'a Region {
        &self.r.ir
    }

    /// The loops mapped to the grid (`analysis::mapping`).
    pub(super) fn choose_mapping(&mut self) {
        self.mapped = crate::analysis::mapping::grid_mapping(self.ir(), self.deps, self.root)
            .into_iter()
            .map(|(loop_id, dim)| Mapped { loop_id, dim })
            .collect();
    }

    /// Interval `[min, max]` of a mapped loop's iterator over the grid (polynomials in parameters).
    fn iter_box(&self, idx: usize) -> Option<(Poly, Poly)> {
        let ir = self.ir();
        let lp = &ir.loops[self.mapped[idx].loop_id];
        let outer: Vec<LoopId> = self.mapped[..idx].iter().map(|m| m.loop_id).collect();
        let lo = lp.lower.affine()?;
        let hi = lp.upper.affine()?;
        if lp.step > 0 {
            let min = poly_extreme(ir, lo, &outer, false)?;
            let max = poly_extreme(ir, &hi.sub(&Poly::constant(1))?, &outer, true)?;
            Some((min, max))
        } else {
            let min = poly_extreme(ir, &hi.add(&Poly::constant(1))?, &outer, false)?;
            let max = poly_extreme(ir, lo, &outer, true)?;
            Some((min, max))
        }
    }

    pub(super) fn build(
        &mut self,
        name: String,
        origin: String,
        kernel_index: usize,
        diags: &mut Diags,
    ) -> Option<(Kernel, Launch)> {
        self.choose_mapping();
        let ir = self.ir();
        let dims = self.mapped.len().max(1) as u8;
        let mut block = match self.mapped.len() {
            0 => [1, 1, 1],
            1 => BLOCK_1D,
            2 => BLOCK_2D,
            _ => BLOCK_3D,
        };
        if let Some(inner) = self.mapped.last() {
            if let Some(v) = ir.loops[inner.loop_id].vector_len {
                if v.is_power_of_two() && (1..=1024).contains(&v) {
                    block = [v, 1, 1];
                }
            }
        }
        self.plan_staging();
        if let Some(spec) = self.staging() {
            block = spec.block;
        }
        if self.mapped.is_empty() {
            let lp = &ir.loops[self.root];
            diags.push(
                Diag::warning(lp.header_span, format!("loop `{}` is not parallel: this loop nest runs on a single GPU thread", lp.var))
                    .note(match &self.deps.loops[self.root].verdict {
                        dependence::Verdict::Carried(_) => "it carries a dependence".to_string(),
                        dependence::Verdict::Unknown(why) => format!("its independence cannot be proven: {}", why),
                        dependence::Verdict::Independent => "it is marked `seq` or its bounds cannot be mapped to the grid".to_string(),
                    })
                    .help("mark the loop `independent` if its iterations are independent, or move a sequential outer loop out of the compute region"),
            );
        }
        // Scalars each thread keeps: privatized and reductions of the mapped loops.
        for m in &self.mapped {
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
        let ilp = self.choose_ilp(block);
        self.ilp = ilp;
        let mut body = Vec::new();
        // Iterators of the mapped loops, and the guard.
        let mut guard: Vec<KExpr> = Vec::new();
        let mut extent = ["1".to_string(), "1".to_string(), "1".to_string()];
        for idx in 0..self.mapped.len() {
            let m = &self.mapped[idx];
            let lp = &ir.loops[m.loop_id];
            let Some((min, max)) = self.iter_box(idx) else {
                self.errors.push(Diag::error(
                    lp.header_span,
                    "the bounds of this loop cannot be mapped to the grid",
                ));
                continue;
            };
            let s = lp.step.unsigned_abs() as i64;
            // Several rows per work-item: the first row of a work-item is the block's first row
            // plus its local id (the others are `ilp::copy_name` below).
            let t = if m.dim == 1 && ilp > 1 {
                KExpr::Binary(
                    BinOp::Add,
                    Box::new(KExpr::Binary(
                        BinOp::Mul,
                        Box::new(KExpr::Builtin(Builtin::GroupId(1))),
                        Box::new(KExpr::Int(block[1] as i64, Scalar::Int)),
                    )),
                    Box::new(KExpr::Builtin(Builtin::LocalId(1))),
                )
            } else {
                KExpr::Builtin(Builtin::GlobalId(m.dim))
            };
            let scaled = if s == 1 {
                t
            } else {
                KExpr::Binary(
                    BinOp::Mul,
                    Box::new(t),
                    Box::new(KExpr::Int(s, Scalar::Int)),
                )
            };
            let init = if lp.step > 0 && min.is_zero() {
                scaled
            } else if lp.step > 0 {
                KExpr::Binary(
                    BinOp::Add,
                    Box::new(self.poly_expr(&min, lp.ty)),
                    Box::new(scaled),
                )
            } else {
                KExpr::Binary(
                    BinOp::Sub,
                    Box::new(self.poly_expr(&max, lp.ty)),
                    Box::new(scaled),
                )
            };
            body.push(KStmt::Decl {
                name: lp.var.clone(),
                ty: lp.ty,
                len: None,
                init: Some(cast_if(lp.ty, init)),
            });
            self.locals.insert(lp.var.clone(), lp.ty);
            let var = KExpr::Var(lp.var.clone());
            let lower = self.bound_expr(&lp.lower, lp.ty);
            let upper = self.bound_expr(&lp.upper, lp.ty);
            let lower_varies = lp.lower.affine().is_some_and(|p| {
                self.mapped[..idx]
                    .iter()
                    .any(|o| p.mentions(&ir.loops[o.loop_id].var))
            });
            if lp.step > 0 {
                guard.push(KExpr::Binary(
                    BinOp::Lt,
                    Box::new(var.clone()),
                    Box::new(upper),
                ));
                if lower_varies {
                    guard.push(KExpr::Binary(
                        BinOp::Ge,
                        Box::new(var.clone()),
                        Box::new(lower.clone()),
                    ));
                }
            } else {
                guard.push(KExpr::Binary(
                    BinOp::Gt,
                    Box::new(var.clone()),
                    Box::new(upper),
                ));
                if lower_varies {
                    guard.push(KExpr::Binary(
                        BinOp::Le,
                        Box::new(var.clone()),
                        Box::new(lower.clone()),
                    ));
                }
            }
            if s != 1 && lower_varies {
                let diff = KExpr::Binary(BinOp::Sub, Box::new(var.clone()), Box::new(lower));
                guard.push(KExpr::Binary(
                    BinOp::Eq,
                    Box::new(KExpr::Binary(
                        BinOp::Rem,
                        Box::new(diff),
                        Box::new(KExpr::Int(s, Scalar::Int)),
                    )),
                    Box::new(KExpr::Int(0, Scalar::Int)),
                ));
            }
            // Threads needed: ceil((max - min + 1) / s).
            let span = max.sub(&min).and_then(|d| d.add(&Poly::constant(s)));
            extent[m.dim as usize] = match span {
                Some(p) if s == 1 => p.to_c(),
                Some(p) => format!("({}) / {}", p.to_c(), s),
                None => "0".to_string(),
            };
            if m.dim == 1 && ilp > 1 {
                // Whole blocks of `block[1]` rows, each run by `block[1] / ilp` work-items.
                extent[1] = format!(
                    "(({}) + {}) / {} * {}",
                    extent[1],
                    block[1] - 1,
                    block[1],
                    block[1] / ilp
                );
            }
        }
        // Private copies of scalars, reduction accumulators.
        for v in self.privatized.clone() {
            if let Some(info) = ir.scalars.get(&v) {
                if info.local.is_none() {
                    body.push(KStmt::Decl {
                        name: v.clone(),
                        ty: info.ty,
                        len: None,
                        init: None,
                    });
                    self.locals.insert(v.clone(), info.ty);
                }
            }
        }
        for (op, v, ty) in self.reductions.clone() {
            body.push(KStmt::Decl {
                name: v.clone(),
                ty,
                len: None,
                init: Some(identity(op, ty)),
            });
            self.locals.insert(v, ty);
        }
        // Iterators of the region's other loops that are declared outside the region.
        self.declare_outer_iterators(&mut body);
        // The loop nest's code.
        let root_stmt = find_loop(&self.r.body, ir.loops[self.root].span);
        let mut locals = Vec::new();
        if self.staging().is_some() {
            let cond = guard
                .into_iter()
                .reduce(|a, b| KExpr::Binary(BinOp::LogAnd, Box::new(a), Box::new(b)));
            if let Err(why) = self.staged_body(cond, root_stmt, block, &mut body, &mut locals) {
                self.stage_error = Some(why);
                return None;
            }
            if self.ilp > 1 {
                body = self.declare_row_copies(body, block);
                block[1] /= self.ilp;
            }
        } else if guard.is_empty() {
            let inner = match root_stmt {
                Some(s) => self.stmt(s),
                None => Vec::new(),
            };
            body.extend(inner);
        } else {
            let inner = match root_stmt {
                Some(s) => self.stmt(s),
                None => Vec::new(),
            };
            let cond = guard
                .into_iter()
                .reduce(|a, b| KExpr::Binary(BinOp::LogAnd, Box::new(a), Box::new(b)))
                .unwrap_or(KExpr::Int(1, Scalar::Int));
            body.push(KStmt::If {
                cond,
                then: inner,
                els: Vec::new(),
            });
        }
        // Reductions: tree in local memory, one partial per work-group.
        let threads = block[0] * block[1] * block[2];
        let mut params_extra = Vec::new();
        for (i, (op, v, ty)) in self.reductions.clone().into_iter().enumerate() {
            let arr = format!("accshare_red_{}", v);
            let part = format!("accshare_part_{}", v);
            locals.push(LocalArray {
                name: arr.clone(),
                elem: ty,
                len: threads,
            });
            body.extend(reduction_epilogue(&arr, &part, &v, op, ty, threads));
            params_extra.push((part, ty, i));
        }
        for e in std::mem::take(&mut self.errors) {
            diags.push(e);
        }
        // Parameters: every free variable and every global array the body uses.
        let mut arrays = BTreeSet::new();
        let mut vars = BTreeSet::new();
        for s in &body {
            free_names_stmt(s, &mut arrays, &mut vars);
        }
        let declared: BTreeSet<String> = vars
            .iter()
            .filter_map(|v| v.strip_prefix("\0decl:").map(str::to_string))
            .chain(locals.iter().map(|l| l.name.clone()))
            .collect();
        vars.retain(|v| !v.starts_with('\0') && !declared.contains(v));
        let mut params = Vec::new();
        let mut args = Vec::new();
        for a in &arrays {
            let Some(info) = ir.arrays.get(a) else {
                continue;
            };
            params.push(KParam {
                name: a.clone(),
                kind: KParamKind::Buffer {
                    elem: info.elem,
                    read_only: !info.written,
                },
            });
            args.push(HostArg::Buffer(a.clone()));
        }
        for v in &vars {
            if self.locals.contains_key(v) || self.private_arrays.contains_key(v) {
                continue;
            }
            let Some(ty) = self.r.scope.get(v).and_then(|s| match s.ty.unqualified() {
                CType::Scalar(k) => Some(*k),
                _ => None,
            }) else {
                diags.push(Diag::error(
                    self.r.dir.span,
                    format!("`{}` is used in the region but its type is unknown", v),
                ));
                continue;
            };
            if ir
                .scalars
                .get(v)
                .is_some_and(|s| s.written && s.local.is_none())
                && !self.reductions.iter().any(|(_, n, _)| n == v)
            {
                let span = ir
                    .scalar_refs
                    .iter()
                    .find(|r| &r.name == v && r.kind != crate::ir::AccessKind::Read)
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
                continue;
            }
            params.push(KParam {
                name: v.clone(),
                kind: KParamKind::Scalar(ty),
            });
            args.push(HostArg::Scalar {
                expr: v.clone(),
                ty,
            });
        }
        let mut reductions = Vec::new();
        for (part, ty, i) in params_extra {
            params.push(KParam {
                name: part,
                kind: KParamKind::Buffer {
                    elem: ty,
                    read_only: false,
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
        let uses_double = params.iter().any(|p| match &p.kind {
            KParamKind::Buffer { elem, .. } | KParamKind::Scalar(elem) => *elem == Scalar::Double,
        }) || self.locals.values().any(|t| *t == Scalar::Double)
            || body.iter().any(stmt_uses_double);
        let kernel = Kernel {
            name,
            params,
            locals,
            dims,
            block,
            body,
            uses_double,
            origin,
        };
        let launch = Launch {
            kernel: kernel_index,
            args,
            extent,
            reductions,
        };
        Some((kernel, launch))
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
                body.push(KStmt::Decl {
                    name: lp.var.clone(),
                    ty: lp.ty,
                    len: None,
                    init: None,
                });
                self.locals.insert(lp.var.clone(), lp.ty);
            }
        }
    }

    fn poly_expr(&self, p: &Poly, ty: Scalar) -> KExpr {
        poly_to_kexpr(p, ty)
    }

    fn bound_expr(&self, b: &Bound, ty: Scalar) -> KExpr {
        match b {
            Bound::Affine(p) => self.poly_expr(p, ty),
            Bound::NonAffine(_) => KExpr::Int(0, Scalar::Int),
        }
    }

    fn is_mapped_loop(&self, span: Span) -> bool {
        self.mapped
            .iter()
            .any(|m| self.ir().loops[m.loop_id].span == span)
    }

    // ---- statements -------------------------------------------------------------------------

    fn stmt(&mut self, s: &Stmt) -> Vec<KStmt> {
        match &s.kind {
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                if self.is_mapped_loop(s.span) {
                    return self.stmt(body);
                }
                let mut kinit = Vec::new();
                match init {
                    ForInit::None => {}
                    ForInit::Decl(d) => kinit.extend(self.decl(d)),
                    ForInit::Expr(e) => kinit.extend(self.effect(e)),
                }
                let kcond = cond.as_ref().map(|c| self.expr(c));
                let kstep = step.as_ref().map(|e| self.effect(e)).unwrap_or_default();
                let kbody = self.stmt(body);
                vec![KStmt::For {
                    init: kinit,
                    cond: kcond,
                    step: kstep,
                    body: kbody,
                }]
            }
            StmtKind::Acc { body, .. } => self.stmt(body),
            StmtKind::AccStandalone(_) | StmtKind::Empty | StmtKind::Pragma(_) => Vec::new(),
            StmtKind::Block(b) => {
                let mut out = Vec::new();
                for s in &b.stmts {
                    out.extend(self.stmt(s));
                }
                if b.stmts.iter().any(|s| matches!(s.kind, StmtKind::Decl(_))) {
                    vec![KStmt::Block(out)]
                } else {
                    out
                }
            }
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) => self.effect(e),
            StmtKind::If { cond, then, els } => vec![KStmt::If {
                cond: self.expr(cond),
                then: self.stmt(then),
                els: els.as_ref().map(|e| self.stmt(e)).unwrap_or_default(),
            }],
            StmtKind::While { cond, body } => vec![KStmt::While {
                cond: self.expr(cond),
                body: self.stmt(body),
            }],
            StmtKind::DoWhile { body, cond } => vec![KStmt::DoWhile {
                body: self.stmt(body),
                cond: self.expr(cond),
            }],
            StmtKind::Break => vec![KStmt::Break],
            StmtKind::Continue => vec![KStmt::Continue],
            StmtKind::Return(_) | StmtKind::Unsupported { .. } => {
                // Reported by front::region::validate.
                Vec::new()
            }
        }
    }

    fn decl(&mut self, d: &ast::Declaration) -> Vec<KStmt> {
        let mut out = Vec::new();
        for dec in &d.declarators {
            match dec.ty.unqualified() {
                CType::Scalar(s) => {
                    let init = match &dec.init {
                        Some(ast::Initializer::Expr(e)) => Some(self.expr(e)),
                        Some(ast::Initializer::List(_, sp)) => {
                            self.errors.push(Diag::error(
                                *sp,
                                "initializer lists are not supported inside a compute region",
                            ));
                            None
                        }
                        None => None,
                    };
                    self.locals.insert(dec.name.name.clone(), *s);
                    out.push(KStmt::Decl {
                        name: dec.name.name.clone(),
                        ty: *s,
                        len: None,
                        init,
                    });
                }
                CType::Array { .. } => {
                    let Some((elem, extents, false)) = array_shape(&dec.ty) else {
                        self.errors.push(Diag::error(
                            dec.span,
                            "this declaration is not supported inside a compute region",
                        ));
                        continue;
                    };
                    let mut dims = Vec::new();
                    for e in &extents {
                        match e
                            .as_ref()
                            .and_then(|e| crate::ir::lower::expr_poly(e, &|_| false))
                            .and_then(|p| p.as_const())
                        {
                            Some(n) if (1..=65536).contains(&n) => dims.push(n as u32),
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
                    if dec.init.is_some() {
                        self.errors.push(Diag::error(
                            dec.span,
                            "initializers of private arrays are not supported",
                        ));
                    }
                    self.private_arrays.insert(dec.name.name.clone(), dims);
                    out.push(KStmt::Decl {
                        name: dec.name.name.clone(),
                        ty: elem,
                        len: Some(len),
                        init: None,
                    });
                }
                _ => self.errors.push(Diag::error(
                    dec.span,
                    "this declaration is not supported inside a compute region",
                )),
            }
        }
        out
    }

    /// An expression statement.
    fn effect(&mut self, e: &Expr) -> Vec<KStmt> {
        match &e.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                let value = self.expr(rhs);
                match self.lvalue(lhs) {
                    Some(target) => vec![KStmt::Assign {
                        target,
                        op: *op,
                        value,
                    }],
                    None => Vec::new(),
                }
            }
            ExprKind::IncDec { inc, arg, .. } => match self.lvalue(arg) {
                Some(target) => vec![KStmt::Assign {
                    target,
                    op: Some(if *inc { BinOp::Add } else { BinOp::Sub }),
                    value: KExpr::Int(1, Scalar::Int),
                }],
                None => Vec::new(),
            },
            ExprKind::Comma(a, b) => {
                let mut v = self.effect(a);
                v.extend(self.effect(b));
                v
            }
            _ => vec![KStmt::Expr(self.expr(e))],
        }
    }

    fn lvalue(&mut self, e: &Expr) -> Option<LValue> {
        match &e.kind {
            ExprKind::Ident(n) => Some(LValue::Var(n.clone())),
            _ => match self.expr(e) {
                KExpr::Load(r) => Some(LValue::Elem(r)),
                _ => {
                    self.errors.push(Diag::error(
                        e.span,
                        "this assignment target is not supported inside a compute region",
                    ));
                    None
                }
            },
        }
    }

    // ---- expressions ------------------------------------------------------------------------

    fn expr(&mut self, e: &Expr) -> KExpr {
        match &e.kind {
            ExprKind::Ident(n) => KExpr::Var(n.clone()),
            ExprKind::Int {
                value,
                suffix,
                radix,
            } => {
                let ty = int_literal_type(*value, *suffix, *radix);
                KExpr::Int(*value as i64, ty)
            }
            ExprKind::Float { value, single } => KExpr::Float(*value, *single),
            ExprKind::Char(c) => KExpr::Int(*c, Scalar::Int),
            ExprKind::Unary(UnOp::Deref, _) | ExprKind::Index(..) => self.access(e),
            ExprKind::Unary(UnOp::AddrOf, _) => {
                self.errors.push(Diag::error(
                    e.span,
                    "taking an address is not supported inside a compute region",
                ));
                KExpr::Int(0, Scalar::Int)
            }
            ExprKind::Unary(op, a) => KExpr::Unary(*op, Box::new(self.expr(a))),
            ExprKind::Binary(op, a, b) => {
                KExpr::Binary(*op, Box::new(self.expr(a)), Box::new(self.expr(b)))
            }
            ExprKind::Cond(c, a, b) => KExpr::Cond(
                Box::new(self.expr(c)),
                Box::new(self.expr(a)),
                Box::new(self.expr(b)),
            ),
            ExprKind::Cast(t, a) => match t.unqualified() {
                CType::Scalar(s) => KExpr::Cast(*s, Box::new(self.expr(a))),
                _ => {
                    self.errors.push(Diag::error(
                        e.span,
                        "only casts to arithmetic types are supported inside a compute region",
                    ));
                    self.expr(a)
                }
            },
            ExprKind::SizeofType(t) => match sizeof_type(t) {
                Some(n) => KExpr::Int(n as i64, Scalar::SizeT),
                None => {
                    self.errors.push(Diag::error(
                        e.span,
                        "`sizeof` of this type is not supported inside a compute region",
                    ));
                    KExpr::Int(0, Scalar::SizeT)
                }
            },
            ExprKind::SizeofExpr(a) => {
                let size = match &a.kind {
                    ExprKind::Ident(n) => self
                        .locals
                        .get(n)
                        .map(|s| s.size() as u64)
                        .or_else(|| self.r.scope.get(n).and_then(|s| sizeof_type(&s.ty))),
                    _ => None,
                };
                match size {
                    Some(n) => KExpr::Int(n as i64, Scalar::SizeT),
                    None => {
                        self.errors.push(Diag::error(
                            e.span,
                            "`sizeof` of this expression is not supported inside a compute region",
                        ));
                        KExpr::Int(0, Scalar::SizeT)
                    }
                }
            }
            ExprKind::Call(f, args) => {
                KExpr::Call(f.name.clone(), args.iter().map(|a| self.expr(a)).collect())
            }
            ExprKind::Str(_) => {
                self.errors.push(Diag::error(
                    e.span,
                    "string literals are not supported inside a compute region",
                ));
                KExpr::Int(0, Scalar::Int)
            }
            ExprKind::Assign(..) | ExprKind::IncDec { .. } | ExprKind::Comma(..) => {
                // Reported by the IR lowering.
                KExpr::Int(0, Scalar::Int)
            }
            ExprKind::Member { .. } => KExpr::Int(0, Scalar::Int),
        }
    }

    /// `A[e1][e2]…` → a flat access.
    fn access(&mut self, e: &Expr) -> KExpr {
        let mut subs: Vec<&Expr> = Vec::new();
        let mut cur = e;
        let zero = Expr::new(
            ExprKind::Int {
                value: 0,
                suffix: Default::default(),
                radix: 10,
            },
            e.span,
        );
        loop {
            match &cur.kind {
                ExprKind::Index(b, i) => {
                    subs.push(i);
                    cur = b;
                }
                ExprKind::Unary(UnOp::Deref, inner) if subs.is_empty() => {
                    subs.push(&zero);
                    cur = inner;
                    break;
                }
                _ => break,
            }
        }
        subs.reverse();
        let ExprKind::Ident(name) = &cur.kind else {
            return KExpr::Int(0, Scalar::Int);
        };
        let ksubs: Vec<KExpr> = subs.iter().map(|s| self.expr(s)).collect();
        if let Some(dims) = self.private_arrays.get(name).cloned() {
            let extents: Vec<KExpr> = dims
                .iter()
                .map(|d| KExpr::Int(*d as i64, Scalar::Int))
                .collect();
            return KExpr::Load(ArrayRef {
                array: name.clone(),
                space: Space::Private,
                index: Box::new(flatten(ksubs, &extents)),
            });
        }
        let Some(info) = self.ir().arrays.get(name) else {
            return KExpr::Int(0, Scalar::Int);
        };
        let mut extents = Vec::new();
        for (i, ext) in info.extents.iter().enumerate().skip(1) {
            match ext {
                Some(p) => extents.push(poly_to_kexpr(p, Scalar::Int)),
                None => {
                    self.errors.push(Diag::error(
                        e.span,
                        format!("the extent of dimension {} of `{}` is unknown, so this access cannot be flattened", i + 1, name),
                    ));
                    extents.push(KExpr::Int(1, Scalar::Int));
                }
            }
        }
        if let Some(a) = self.staging().and_then(|s| s.array(name)) {
            if a.accesses.contains(&e.span) && ksubs.len() == a.dims.len() {
                return KExpr::Load(ArrayRef {
                    array: a.local.clone(),
                    space: Space::Local,
                    index: Box::new(local_index(a, ksubs)),
                });
            }
        }
        let mut full = vec![KExpr::Int(0, Scalar::Int)];
        full.extend(extents);
        KExpr::Load(ArrayRef {
            array: name.clone(),
            space: Space::Global,
            index: Box::new(flatten(ksubs, &full[1..])),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Shared-memory staging (`--opt share`)
// ---------------------------------------------------------------------------------------------

fn int(v: i64) -> KExpr {
    KExpr::Int(v, Scalar::Int)
}

fn bin(op: BinOp, a: KExpr, b: KExpr) -> KExpr {
    KExpr::Binary(op, Box::new(a), Box::new(b))
}

fn origin_name(a: &StagedArray, d: usize) -> String {
    format!("accshare_o_{}_{}", a.name, d)
}

const TID: &str = "accshare_tid";

/// Whether row `f` of a work-item's rows is inside the iteration space.
fn row_ok(f: u32) -> String {
    format!("accshare_ok{}", f)
}
const STRIP: &str = "accshare_kk";

/// `Σ (s_d - origin_d) · stride_d`: where a reference finds its element in the tile.
fn local_index(a: &StagedArray, subs: Vec<KExpr>) -> KExpr {
    let strides = a.strides();
    let mut acc: Option<KExpr> = None;
    for (d, s) in subs.into_iter().enumerate() {
        let off = bin(BinOp::Sub, s, KExpr::Var(origin_name(a, d)));
        let st = strides.get(d).copied().unwrap_or(1);
        let term = if st == 1 {
            off
        } else {
            bin(BinOp::Mul, off, int(st as i64))
        };
        acc = Some(match acc {
            None => term,
            Some(x) => bin(BinOp::Add, x, term),
        });
    }
    acc.unwrap_or(int(0))
}

/// The first global index of a tile dimension.
fn origin_expr(td: &TileDim, block: [u32; 3]) -> KExpr {
    let lo = int(td.lo);
    let plus = |e: KExpr| match td.lo {
        0 => e,
        v if v < 0 => bin(BinOp::Sub, e, int(-v)),
        _ => bin(BinOp::Add, e, int(td.lo)),
    };
    match &td.primary {
        Primary::Fixed => lo,
        Primary::Grid { dim, min } => {
            let start = bin(
                BinOp::Mul,
                KExpr::Builtin(Builtin::GroupId(*dim)),
                int(block[*dim as usize] as i64),
            );
            // `min + lo` folded into one polynomial when it can be.
            match min.add(&Poly::constant(td.lo)) {
                Some(p) if p.is_zero() => start,
                Some(p) => match p.as_const() {
                    Some(c) if c > 0 => bin(BinOp::Add, start, int(c)),
                    Some(c) => bin(BinOp::Sub, start, int(c.saturating_neg())),
                    None => bin(BinOp::Add, poly_to_kexpr(&p, Scalar::Int), start),
                },
                None if min.is_zero() => plus(start),
                None => plus(bin(BinOp::Add, poly_to_kexpr(min, Scalar::Int), start)),
            }
        }
        Primary::Strip => plus(KExpr::Var(STRIP.to_string())),
    }
}

/// Which way a cooperative copy moves a tile.
#[derive(Clone, Copy, PartialEq)]
enum Dir {
    /// Global memory into the tile.
    Load,
    /// The tile back to global memory (a written tile).
    Store,
}

/// One element's copy between the tile and global memory.
fn copy(dir: Dir, local: ArrayRef, global: ArrayRef) -> KStmt {
    let (to, from) = match dir {
        Dir::Load => (local, global),
        Dir::Store => (global, local),
    };
    KStmt::Assign {
        target: LValue::Elem(to),
        op: None,
        value: KExpr::Load(from),
    }
}

/// The cooperative, coalesced copy of a tile: work-item `t` of the block copies elements
/// `t, t + threads, …` of the tile in row-major order (consecutive work-items, consecutive
/// elements of a row), skipping elements outside the range the program can touch.
fn tile_copy(a: &StagedArray, block: [u32; 3], global_extents: &[KExpr], dir: Dir) -> KStmt {
    if loads_2d(a, block) {
        return tile_copy_2d(a, block, global_extents, dir);
    }
    let threads = block[0] * block[1] * block[2];
    let l = KExpr::Var("accshare_l".to_string());
    let total: i64 = a.dims.iter().map(|d| d.extent as i64).product();
    let strides = a.strides();
    let mut conds = Vec::new();
    let mut gsubs = Vec::new();
    let mut lidx: Option<KExpr> = None;
    for (d, td) in a.dims.iter().enumerate() {
        let inner: i64 = a.dims[d + 1..].iter().map(|x| x.extent as i64).product();
        let q = if inner == 1 {
            l.clone()
        } else {
            bin(BinOp::Div, l.clone(), int(inner))
        };
        let r = if d == 0 {
            q
        } else {
            bin(BinOp::Rem, q, int(td.extent as i64))
        };
        let g = bin(BinOp::Add, KExpr::Var(origin_name(a, d)), r.clone());
        in_range(td, &g, &mut conds);
        gsubs.push(g);
        let st = strides.get(d).copied().unwrap_or(1);
        let term = if st == 1 {
            r
        } else {
            bin(BinOp::Mul, r, int(st as i64))
        };
        lidx = Some(match lidx {
            None => term,
            Some(x) => bin(BinOp::Add, x, term),
        });
    }
    let cond = conds
        .into_iter()
        .reduce(|x, y| bin(BinOp::LogAnd, x, y))
        .unwrap_or(int(1));
    let store = copy(
        dir,
        ArrayRef {
            array: a.local.clone(),
            space: Space::Local,
            index: Box::new(lidx.unwrap_or(int(0))),
        },
        ArrayRef {
            array: a.name.clone(),
            space: Space::Global,
            index: Box::new(flatten(gsubs, global_extents)),
        },
    );
    KStmt::For {
        init: vec![KStmt::Decl {
            name: "accshare_l".to_string(),
            ty: Scalar::Int,
            len: None,
            init: Some(KExpr::Var(TID.to_string())),
        }],
        cond: Some(bin(BinOp::Lt, l.clone(), int(total))),
        step: vec![KStmt::Assign {
            target: LValue::Var("accshare_l".to_string()),
            op: Some(BinOp::Add),
            value: int(threads as i64),
        }],
        body: vec![KStmt::If {
            cond,
            then: vec![store],
            els: Vec::new(),
        }],
    }
}

/// `g` is inside the range the program touches along `td` (and inside the array).
fn in_range(td: &TileDim, g: &KExpr, conds: &mut Vec<KExpr>) {
    let rmin = td.range.0.as_const();
    let rmax = td.range.1.as_const();
    conds.push(bin(
        BinOp::Ge,
        g.clone(),
        poly_to_kexpr(&td.range.0, Scalar::Int),
    ));
    conds.push(bin(
        BinOp::Le,
        g.clone(),
        poly_to_kexpr(&td.range.1, Scalar::Int),
    ));
    if rmin.map_or(true, |v| v < 0) {
        conds.push(bin(BinOp::Ge, g.clone(), int(0)));
    }
    if let Some(ext) = &td.array_extent {
        let holds = matches!((rmax, ext.as_const()), (Some(a), Some(b)) if a < b);
        if !holds {
            conds.push(bin(BinOp::Lt, g.clone(), poly_to_kexpr(ext, Scalar::Int)));
        }
    }
}

/// 2-D tiles are loaded row by row by 2-D blocks; everything else through a flat index.
fn loads_2d(a: &StagedArray, block: [u32; 3]) -> bool {
    a.dims.len() == 2 && block[1] > 1 && block[2] == 1
}

/// The copy of a 2-D tile by a 2-D block: rows strided by the block's height, columns by its
/// width (consecutive work-items of a row copy consecutive elements; no division).
fn tile_copy_2d(a: &StagedArray, block: [u32; 3], global_extents: &[KExpr], dir: Dir) -> KStmt {
    let (rv, cv) = ("accshare_r".to_string(), "accshare_c".to_string());
    let (r, c) = (KExpr::Var(rv.clone()), KExpr::Var(cv.clone()));
    let g0 = bin(BinOp::Add, KExpr::Var(origin_name(a, 0)), r.clone());
    let g1 = bin(BinOp::Add, KExpr::Var(origin_name(a, 1)), c.clone());
    let mut conds = Vec::new();
    in_range(&a.dims[0], &g0, &mut conds);
    in_range(&a.dims[1], &g1, &mut conds);
    let cond = conds
        .into_iter()
        .reduce(|x, y| bin(BinOp::LogAnd, x, y))
        .unwrap_or(int(1));
    let lidx = bin(
        BinOp::Add,
        bin(BinOp::Mul, r.clone(), int(a.row_len as i64)),
        c.clone(),
    );
    let store = copy(
        dir,
        ArrayRef {
            array: a.local.clone(),
            space: Space::Local,
            index: Box::new(lidx),
        },
        ArrayRef {
            array: a.name.clone(),
            space: Space::Global,
            index: Box::new(flatten(vec![g0, g1], global_extents)),
        },
    );
    let lp = |v: &str, e: &KExpr, dim: u8, n: u32, step: u32, body: Vec<KStmt>| KStmt::For {
        init: vec![KStmt::Decl {
            name: v.to_string(),
            ty: Scalar::Int,
            len: None,
            init: Some(KExpr::Builtin(Builtin::LocalId(dim))),
        }],
        cond: Some(bin(BinOp::Lt, e.clone(), int(n as i64))),
        step: vec![KStmt::Assign {
            target: LValue::Var(v.to_string()),
            op: Some(BinOp::Add),
            value: int(step as i64),
        }],
        body,
    };
    let inner = lp(
        &cv,
        &c,
        0,
        a.dims[1].extent,
        block[0],
        vec![KStmt::If {
            cond,
            then: vec![store],
            els: Vec::new(),
        }],
    );
    lp(&rv, &r, 1, a.dims[0].extent, block[1], vec![inner])
}

fn guarded(cond: &Option<KExpr>, stmts: Vec<KStmt>) -> Vec<KStmt> {
    if stmts.is_empty() {
        return stmts;
    }
    match cond {
        Some(c) => vec![KStmt::If {
            cond: c.clone(),
            then: stmts,
            els: Vec::new(),
        }],
        None => vec![KStmt::Block(stmts)],
    }
}

impl<'a> KernelBuilder<'a> {
    /// Global extents of dimensions 1.. of an array (for flattening).
    fn global_extents(&self, name: &str) -> Option<Vec<KExpr>> {
        let info = self.ir().arrays.get(name)?;
        info.extents
            .iter()
            .skip(1)
            .map(|e| e.as_ref().map(|p| poly_to_kexpr(p, Scalar::Int)))
            .collect()
    }

    /// Copies of the top-level declarations of renamed variables, one per extra row: the y
    /// iterator of row `f` is the first row's plus `f` times the launched block's height.
    fn declare_row_copies(&self, body: Vec<KStmt>, block: [u32; 3]) -> Vec<KStmt> {
        let ir = self.ir();
        let Some(y) = self.mapped.iter().find(|m| m.dim == 1) else {
            return body;
        };
        let lp = &ir.loops[y.loop_id];
        let rows = (block[1] / self.ilp) as i64 * lp.step.unsigned_abs() as i64;
        let op = if lp.step > 0 { BinOp::Add } else { BinOp::Sub };
        let mut out = Vec::new();
        for st in body {
            let mut extra = Vec::new();
            if let KStmt::Decl {
                name,
                ty,
                len,
                init,
            } = &st
            {
                for f in 1..self.ilp {
                    if *name == lp.var {
                        extra.push(KStmt::Decl {
                            name: super::ilp::copy_name(name, f),
                            ty: *ty,
                            len: None,
                            init: Some(KExpr::Binary(
                                op,
                                Box::new(KExpr::Var(name.clone())),
                                Box::new(KExpr::Int(rows * f as i64, Scalar::Int)),
                            )),
                        });
                    } else if self.ilp_renamed.contains(name) {
                        extra.push(KStmt::Decl {
                            name: super::ilp::copy_name(name, f),
                            ty: *ty,
                            len: *len,
                            init: init.clone(),
                        });
                    }
                }
            }
            out.push(st);
            out.extend(extra);
        }
        out
    }

    /// The computation under the edge guard: once, or jammed for several rows per work-item
    /// (row `f` under `accshare_ok{f}`, see [`Self::row_guards`]).
    fn computation(
        &self,
        cond: &Option<KExpr>,
        coarsen: Option<&super::ilp::Coarsen>,
        stmts: Vec<KStmt>,
    ) -> Vec<KStmt> {
        match coarsen {
            Some(c) if !stmts.is_empty() => {
                let guards: Option<Vec<KExpr>> = cond
                    .as_ref()
                    .map(|_| (0..c.f).map(|f| KExpr::Var(row_ok(f))).collect());
                vec![KStmt::Block(c.jam(&stmts, guards.as_deref()))]
            }
            _ => guarded(cond, stmts),
        }
    }

    /// `int accshare_ok{f} = <the edge guard of row f>;` once per row, before the computation.
    fn row_guards(
        &self,
        cond: &Option<KExpr>,
        coarsen: Option<&super::ilp::Coarsen>,
        body: &mut Vec<KStmt>,
    ) {
        if let (Some(c), Some(g)) = (coarsen, cond) {
            for f in 0..c.f {
                body.push(KStmt::Decl {
                    name: row_ok(f),
                    ty: Scalar::Int,
                    len: None,
                    init: Some(c.expr(g, f)),
                });
            }
        }
    }

    /// The coarsening of the computation `pieces`, when the kernel computes several rows per
    /// work-item.
    fn coarsen(&mut self, pieces: &[&[KStmt]]) -> Result<Option<super::ilp::Coarsen>, String> {
        if self.ilp <= 1 {
            return Ok(None);
        }
        let ir = self.ir();
        let y = self
            .mapped
            .iter()
            .find(|m| m.dim == 1)
            .map(|m| ir.loops[m.loop_id].var.clone())
            .ok_or("no grid loop on y")?;
        // Element types of what the computation may load: the tiles and the global arrays.
        let mut arrays: BTreeMap<String, Scalar> =
            ir.arrays.iter().map(|(n, a)| (n.clone(), a.elem)).collect();
        if let Some(spec) = self.staging() {
            for a in &spec.arrays {
                arrays.insert(a.local.clone(), a.elem);
            }
        }
        let c = super::ilp::Coarsen::new(self.ilp, &y, pieces, &arrays)
            .map_err(|why| format!("several rows per work-item: {}", why))?;
        self.ilp_renamed = c.renamed.clone();
        Ok(Some(c))
    }

    /// The staged kernel body: tile origins, cooperative loads and barriers run by every
    /// work-item; only the computation is guarded.
    fn staged_body(
        &mut self,
        cond: Option<KExpr>,
        root_stmt: Option<&Stmt>,
        block: [u32; 3],
        body: &mut Vec<KStmt>,
        locals: &mut Vec<LocalArray>,
    ) -> Result<(), String> {
        let Some(spec) = self.staging().cloned() else {
            return Err("nothing to stage".to_string());
        };
        let Some(root_stmt) = root_stmt else {
            return Err("the loop nest was not found".to_string());
        };
        // The block as launched (fewer rows with several rows per work-item); tile origins use
        // the logical `block`.
        let launched = [block[0], block[1] / self.ilp.max(1), block[2]];
        let mut tid = KExpr::Builtin(Builtin::LocalId(0));
        if launched[1] > 1 || launched[2] > 1 {
            tid = bin(
                BinOp::Add,
                tid,
                bin(
                    BinOp::Mul,
                    KExpr::Builtin(Builtin::LocalId(1)),
                    int(launched[0] as i64),
                ),
            );
        }
        if launched[2] > 1 {
            tid = bin(
                BinOp::Add,
                tid,
                bin(
                    BinOp::Mul,
                    KExpr::Builtin(Builtin::LocalId(2)),
                    int((launched[0] * launched[1]) as i64),
                ),
            );
        }
        body.push(KStmt::Comment(format!(
            "shared-memory staging: {}",
            spec.arrays
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
        if spec.arrays.iter().any(|a| !loads_2d(a, launched)) {
            body.push(KStmt::Decl {
                name: TID.to_string(),
                ty: Scalar::Int,
                len: None,
                init: Some(tid),
            });
        }
        let mut extents = BTreeMap::new();
        for a in &spec.arrays {
            let Some(ext) = self.global_extents(&a.name) else {
                return Err(format!("the extents of `{}` are unknown", a.name));
            };
            extents.insert(a.name.clone(), ext);
            locals.push(LocalArray {
                name: a.local.clone(),
                elem: a.elem,
                len: a.len(),
            });
            for (d, td) in a.dims.iter().enumerate() {
                let init = (td.primary != Primary::Strip).then(|| origin_expr(td, block));
                body.push(KStmt::Decl {
                    name: origin_name(a, d),
                    ty: Scalar::Int,
                    len: None,
                    init,
                });
            }
        }
        let mut once = Vec::new();
        for a in spec.arrays.iter().filter(|a| a.load && !a.uses_strip()) {
            once.push(KStmt::Comment(format!(
                "load the tile of `{}` ({})",
                a.name,
                a.dims
                    .iter()
                    .map(|d| d.extent.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            )));
            once.push(tile_copy(a, launched, &extents[&a.name], Dir::Load));
        }
        if !once.is_empty() {
            body.extend(once);
            body.push(KStmt::Barrier);
        }
        let strip = spec
            .strip
            .clone()
            .filter(|_| spec.arrays.iter().any(|a| a.uses_strip()));
        let Some(strip) = strip else {
            let inner = self.stmt(root_stmt);
            let coarsen = self.coarsen(&[&inner])?;
            self.row_guards(&cond, coarsen.as_ref(), body);
            body.extend(self.computation(&cond, coarsen.as_ref(), inner));
            store_back(&spec, launched, &extents, body);
            return Ok(());
        };
        // Strip-mine the sequential loop at the top of the innermost grid loop's body.
        let ir = self.ir();
        let inner_id = self
            .mapped
            .last()
            .map(|m| m.loop_id)
            .ok_or("no grid loop")?;
        let inner_for =
            find_loop(&self.r.body, ir.loops[inner_id].span).ok_or("grid loop not found")?;
        let stmts = stage::body_stmts(inner_for);
        let slp = &ir.loops[strip.loop_id];
        let idx = stmts
            .iter()
            .position(|s| stage::unwrap_acc(s).span == slp.span)
            .ok_or("the strip-mined loop is not at the top of the grid loop's body")?;
        let strip_for = stage::unwrap_acc(stmts[idx]);
        let StmtKind::For {
            init: sinit,
            body: sbody,
            ..
        } = &strip_for.kind
        else {
            return Err("the strip-mined loop is not a `for`".to_string());
        };
        let declared_in_init = matches!(sinit, ForInit::Decl(_));
        let mut pre = Vec::new();
        for s in &stmts[..idx] {
            pre.extend(self.stmt(s));
        }
        let inner_body = self.stmt(sbody);
        let mut post = Vec::new();
        for s in &stmts[idx + 1..] {
            post.extend(self.stmt(s));
        }
        // The strip loop's iterator is not visible after it in the staged code.
        let (mut arrs, mut vars) = (BTreeSet::new(), BTreeSet::new());
        for s in &post {
            free_names_stmt(s, &mut arrs, &mut vars);
        }
        if vars.contains(&strip.var) {
            return Err(format!(
                "`{}` is used after the strip-mined loop",
                strip.var
            ));
        }
        let lower = self.bound_expr(&slp.lower, Scalar::Int);
        let upper = self.bound_expr(&slp.upper, Scalar::Int);
        // Names already declared at the top of the kernel or used by the guard and bounds.
        let mut taken: BTreeSet<String> = body
            .iter()
            .filter_map(|s| match s {
                KStmt::Decl { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        for e in cond.iter().chain([&lower, &upper]) {
            let mut a = BTreeSet::new();
            free_names_expr(e, &mut a, &mut taken);
        }
        let mut pre_guarded = Vec::new();
        for s in pre {
            match s {
                KStmt::Decl {
                    name,
                    ty,
                    len,
                    init,
                } => {
                    if taken.contains(&name) || name == strip.var {
                        return Err(format!("`{}` would be declared twice", name));
                    }
                    taken.insert(name.clone());
                    body.push(KStmt::Decl {
                        name: name.clone(),
                        ty,
                        len,
                        init: None,
                    });
                    if let Some(v) = init {
                        pre_guarded.push(KStmt::Assign {
                            target: LValue::Var(name),
                            op: None,
                            value: v,
                        });
                    }
                }
                other => pre_guarded.push(other),
            }
        }
        let kk = KExpr::Var(STRIP.to_string());
        let k = KExpr::Var(strip.var.clone());
        let size = int(strip.size as i64);
        let mut per_strip = Vec::new();
        for a in spec.arrays.iter().filter(|a| a.uses_strip()) {
            for (d, td) in a.dims.iter().enumerate() {
                if td.primary == Primary::Strip {
                    per_strip.push(KStmt::Assign {
                        target: LValue::Var(origin_name(a, d)),
                        op: None,
                        value: origin_expr(td, block),
                    });
                }
            }
        }
        for a in spec.arrays.iter().filter(|a| a.uses_strip()) {
            per_strip.push(KStmt::Comment(format!(
                "load the tile of `{}` ({})",
                a.name,
                a.dims
                    .iter()
                    .map(|d| d.extent.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            )));
            per_strip.push(tile_copy(a, launched, &extents[&a.name], Dir::Load));
        }
        per_strip.push(KStmt::Barrier);
        let kinit = if declared_in_init {
            KStmt::Decl {
                name: strip.var.clone(),
                ty: slp.ty,
                len: None,
                init: Some(kk.clone()),
            }
        } else {
            KStmt::Assign {
                target: LValue::Var(strip.var.clone()),
                op: None,
                value: kk.clone(),
            }
        };
        let strip_loop = KStmt::For {
            init: vec![kinit],
            cond: Some(bin(
                BinOp::LogAnd,
                bin(BinOp::Lt, k.clone(), upper.clone()),
                bin(
                    BinOp::Lt,
                    k.clone(),
                    bin(BinOp::Add, kk.clone(), size.clone()),
                ),
            )),
            step: vec![KStmt::Assign {
                target: LValue::Var(strip.var.clone()),
                op: Some(BinOp::Add),
                value: int(1),
            }],
            body: inner_body,
        };
        let coarsen = self.coarsen(&[&pre_guarded, std::slice::from_ref(&strip_loop), &post])?;
        self.row_guards(&cond, coarsen.as_ref(), body);
        body.extend(self.computation(&cond, coarsen.as_ref(), pre_guarded));
        per_strip.extend(self.computation(&cond, coarsen.as_ref(), vec![strip_loop]));
        per_strip.push(KStmt::Barrier);
        body.push(KStmt::For {
            init: vec![KStmt::Decl {
                name: STRIP.to_string(),
                ty: Scalar::Int,
                len: None,
                init: Some(lower),
            }],
            cond: Some(bin(BinOp::Lt, kk.clone(), upper)),
            step: vec![KStmt::Assign {
                target: LValue::Var(STRIP.to_string()),
                op: Some(BinOp::Add),
                value: size,
            }],
            body: per_strip,
        });
        body.extend(self.computation(&cond, coarsen.as_ref(), post));
        store_back(&spec, launched, &extents, body);
        Ok(())
    }
}

/// After the computation, every work-item waits for the block and the written tiles are stored
/// back, coalesced, to global memory.
fn store_back(
    spec: &StageSpec,
    block: [u32; 3],
    extents: &BTreeMap<String, Vec<KExpr>>,
    body: &mut Vec<KStmt>,
) {
    let mut stores = Vec::new();
    for a in spec.arrays.iter().filter(|a| a.written) {
        stores.push(KStmt::Comment(format!(
            "store the tile of `{}` ({})",
            a.name,
            a.dims
                .iter()
                .map(|d| d.extent.to_string())
                .collect::<Vec<_>>()
                .join("x")
        )));
        stores.push(tile_copy(a, block, &extents[&a.name], Dir::Store));
    }
    if !stores.is_empty() {
        body.push(KStmt::Barrier);
        body.extend(stores);
    }
}
