//! Compute regions → kernel IR and host plan (the baseline translation, `--opt naive`).
//!
//! Decisions taken here (and only here): which loops go to the grid (the maximal perfectly
//! nested chain of parallel loops from the root, at most three, the innermost on x), the block
//! shape, guards for partial blocks and triangular domains, privatized scalars, reductions
//! (work-group tree in local memory, partial results finished on the host), buffers and
//! transfers.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::{self, DepInfo};
use crate::diag::{Diag, Diags, FileId, SourceMap, Span};
use crate::front::ast::{
    self, BinOp, CType, Expr, ExprKind, ForInit, Scalar, Stmt, StmtKind, UnOp,
};
use crate::front::pragma_ast::{DataKind, RedOp, SubArray};
use crate::front::preprocess::PpOutput;
use crate::ir::lower::{array_shape, DataAst, RegionAst, Symbol};
use crate::ir::{Bound, LoopId, Poly, Region};
use crate::kernel::*;

/// Context shared by the lowering of all regions of a file.
pub struct Ctx<'a> {
    pub sources: &'a SourceMap,
    pub pp: &'a PpOutput,
    pub main: FileId,
}

/// Default work-group shapes of the baseline, by number of grid dimensions.
/// x is a full warp (32) so that a row of threads reads 128 contiguous bytes of floats.
pub const BLOCK_1D: [u32; 3] = [256, 1, 1];
pub const BLOCK_2D: [u32; 3] = [32, 8, 1];
pub const BLOCK_3D: [u32; 3] = [32, 4, 2];

/// Lowers one compute region: appends its kernels to `module` and returns its host region.
pub fn lower_region(
    ctx: &Ctx,
    r: &RegionAst,
    deps: &DepInfo,
    index: usize,
    module: &mut Module,
    diags: &mut Diags,
) -> Option<HostRegion> {
    let replace = replace_range(
        ctx,
        r.dir.span,
        r.ir.share.as_ref().map(|s| s.span),
        r.stmt_span,
        diags,
    )?;
    let origin = origin(ctx.sources, r.dir.span);
    let mut launches = Vec::new();
    for (k, &root) in r.ir.roots.iter().enumerate() {
        let name = format!("{}_r{}_k{}", sanitize(&r.ir.func), index, k);
        let mut kb = KernelBuilder::new(r, deps, root);
        let Some((kernel, launch)) = kb.build(name, origin.clone(), module.kernels.len(), diags)
        else {
            continue;
        };
        module.kernels.push(kernel);
        launches.push(launch);
    }
    let buffers = region_buffers(ctx, r, diags);
    Some(HostRegion {
        replace,
        keep_body: None,
        buffers,
        launches,
        origin,
    })
}

/// Lowers a `data` construct to its host region.
pub fn lower_data(ctx: &Ctx, d: &DataAst, diags: &mut Diags) -> Option<HostRegion> {
    let replace = replace_range(ctx, d.dir.span, None, d.stmt_span, diags)?;
    let mut buffers = Vec::new();
    let enclosing: BTreeSet<String> = d
        .data
        .iter()
        .flat_map(|s| crate::ir::lower::data_clauses(&s.dir).map(|(_, v)| v.name.name.clone()))
        .collect();
    for (kind, var) in crate::ir::lower::data_clauses(&d.dir) {
        if enclosing.contains(&var.name.name) {
            continue;
        }
        let Some(sym) = d.scope.get(&var.name.name) else {
            diags.push(Diag::error(
                var.name.span,
                format!("`{}` is not declared here", var.name.name),
            ));
            continue;
        };
        let (copy_in, copy_out) = match kind {
            DataKind::Copy => (true, true),
            DataKind::CopyIn => (true, false),
            DataKind::CopyOut => (false, true),
            DataKind::Create => (false, false),
            DataKind::Present => {
                diags.push(Diag::error(
                    var.span,
                    format!(
                        "`{}` is declared present but no enclosing data construct holds it",
                        var.name.name
                    ),
                ));
                continue;
            }
            other => {
                diags.push(Diag::error(
                    var.span,
                    format!(
                        "the `{}` clause is not supported on a data construct",
                        other.name()
                    ),
                ));
                continue;
            }
        };
        let Some((elem, count)) = clause_extent(ctx, sym, var, diags) else {
            continue;
        };
        buffers.push(Buffer {
            array: var.name.name.clone(),
            elem,
            count,
            host_ptr: format!("({} *)({})", elem.c_name(), var.name.name),
            copy_in,
            copy_out,
        });
    }
    Some(HostRegion {
        replace,
        keep_body: Some(d.body_span.range()),
        buffers,
        launches: Vec::new(),
        origin: origin(ctx.sources, d.dir.span),
    })
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
    let line_start = |s: Span| {
        ctx.pp
            .pragmas
            .iter()
            .find(|p| p.span == s || p.span.contains(s))
            .map(|p| p.line_span.lo)
    };
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

/// The element type and C element-count expression of a data-clause variable.
fn clause_extent(
    ctx: &Ctx,
    sym: &Symbol,
    var: &SubArray,
    diags: &mut Diags,
) -> Option<(Scalar, String)> {
    let Some((elem, extents, _)) = array_shape(&sym.ty) else {
        diags.push(Diag::error(
            var.name.span,
            format!("`{}` is not an array or a pointer", var.name.name),
        ));
        return None;
    };
    if !var.dims.is_empty() {
        let mut parts = Vec::new();
        for (i, d) in var.dims.iter().enumerate() {
            if let Some(st) = &d.start {
                if !matches!(st.kind, ExprKind::Int { value: 0, .. }) {
                    diags.push(
                        Diag::error(
                            st.span,
                            "subarrays that do not start at 0 are not supported",
                        )
                        .help(format!(
                            "transfer the whole array: `{}[0:…]`",
                            var.name.name
                        )),
                    );
                    return None;
                }
            }
            match (&d.len, extents.get(i).and_then(|e| e.as_ref())) {
                (Some(len), _) => parts.push(format!("({})", ctx.sources.snippet(len.span))),
                (None, Some(ext)) => parts.push(format!("({})", ctx.sources.snippet(ext.span))),
                (None, None) => {
                    diags.push(
                        Diag::error(d.span, "the length of this dimension is unknown")
                            .help("write `[0:length]`"),
                    );
                    return None;
                }
            }
        }
        // Dimensions the clause does not mention are whole.
        for ext in extents.iter().skip(var.dims.len()) {
            match ext {
                Some(e) => parts.push(format!("({})", ctx.sources.snippet(e.span))),
                None => return None,
            }
        }
        return Some((elem, parts.join(" * ")));
    }
    let mut parts = Vec::new();
    for e in &extents {
        match e {
            Some(e) => parts.push(format!("({})", ctx.sources.snippet(e.span))),
            None => {
                diags.push(
                    Diag::error(
                        var.span,
                        format!("the size of `{}` is unknown", var.name.name),
                    )
                    .help(format!("give its extent: `{}[0:n]`", var.name.name)),
                );
                return None;
            }
        }
    }
    Some((elem, parts.join(" * ")))
}

/// The buffers a compute region creates: its arrays that no enclosing data construct holds.
fn region_buffers(ctx: &Ctx, r: &RegionAst, diags: &mut Diags) -> Vec<Buffer> {
    let present: BTreeSet<String> = r
        .data
        .iter()
        .flat_map(|s| crate::ir::lower::data_clauses(&s.dir).map(|(_, v)| v.name.name.clone()))
        .collect();
    let clauses: BTreeMap<String, (DataKind, &SubArray)> = crate::ir::lower::data_clauses(&r.dir)
        .map(|(k, v)| (v.name.name.clone(), (k, v)))
        .collect();
    let mut out = Vec::new();
    for a in r.ir.arrays.values() {
        if present.contains(&a.name) {
            continue;
        }
        let Some(sym) = r.scope.get(&a.name) else {
            continue;
        };
        let (copy_in, copy_out, count) = match clauses.get(&a.name) {
            Some((kind, var)) => {
                let (i, o) = match kind {
                    DataKind::Copy => (true, true),
                    DataKind::CopyIn => (true, false),
                    DataKind::CopyOut => (false, true),
                    DataKind::Create => (false, false),
                    DataKind::Present => {
                        diags.push(Diag::error(
                            var.span,
                            format!(
                                "`{}` is declared present but no enclosing data construct holds it",
                                a.name
                            ),
                        ));
                        continue;
                    }
                    other => {
                        diags.push(Diag::error(
                            var.span,
                            format!("the `{}` clause is not supported", other.name()),
                        ));
                        continue;
                    }
                };
                let Some((_, count)) = clause_extent(ctx, sym, var, diags) else {
                    continue;
                };
                (i, o, count)
            }
            None => {
                let count = match footprint(&r.ir, a) {
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
                            .with_label(r.dir.span, "in this compute region")
                            .help(format!(
                                "add a data clause with its extent, e.g. `copy({}[0:n])`",
                                a.name
                            )),
                        );
                        continue;
                    }
                };
                (a.read || a.written, a.written, count)
            }
        };
        out.push(Buffer {
            array: a.name.clone(),
            elem: a.elem,
            count,
            host_ptr: format!("({} *)({})", a.elem.c_name(), a.name),
            copy_in,
            copy_out,
        });
    }
    out
}

/// Element count of an array in a region: the product of its extents if all are known, else
/// (a pointer) one past the largest flat index any access can reach, derived from the loop
/// bounds (parameters are assumed non-negative).
fn footprint(region: &Region, a: &crate::ir::ArrayInfo) -> Option<String> {
    if a.extents.iter().all(Option::is_some) {
        let parts: Vec<String> = a
            .extents
            .iter()
            .flatten()
            .map(|p| format!("({})", p))
            .collect();
        return Some(parts.join(" * "));
    }
    if a.extents.len() != 1 {
        // `A[][M]` / `(*A)[M]`: rows from the accesses, times the known row size.
        let rest: Option<Vec<String>> = a.extents[1..]
            .iter()
            .map(|e| e.as_ref().map(|p| format!("({})", p)))
            .collect();
        let rows = max_index(region, a, 0)?;
        return Some(format!("(({}) + 1) * {}", rows, rest?.join(" * ")));
    }
    max_index(region, a, 0).map(|m| format!("({}) + 1", m))
}

/// The largest value subscript `dim` of array `a` takes, as C text.
fn max_index(region: &Region, a: &crate::ir::ArrayInfo, dim: usize) -> Option<String> {
    let mut maxes = Vec::new();
    for acc in region.accesses.iter().filter(|x| x.array == a.name) {
        let p = acc.subscripts.get(dim)?.as_ref()?;
        maxes.push(poly_extreme(region, p, &acc.loops, true)?);
    }
    let mut it = maxes.into_iter().map(|p| format!("({})", p));
    let first = it.next()?;
    Some(it.fold(first, |acc, x| {
        format!("({} > {} ? {} : {})", acc, x, acc, x)
    }))
}

/// The maximum (or minimum) of `p` over the iteration domain of `loops`, by substituting each
/// iterator (innermost first) with the bound that maximizes the term. Needs every iterator's
/// coefficient to have a known sign.
fn poly_extreme(region: &Region, p: &Poly, loops: &[LoopId], max: bool) -> Option<Poly> {
    let mut cur = p.clone();
    for &l in loops.iter().rev() {
        let lp = &region.loops[l];
        let (coef, _) = cur.split(&lp.var)?;
        if coef.is_zero() {
            continue;
        }
        let nonneg = coef.terms().all(|(_, c)| c >= 0);
        let nonpos = coef.terms().all(|(_, c)| c <= 0);
        if !nonneg && !nonpos {
            return None;
        }
        let up = max == nonneg;
        let (lo, hi) = (lp.lower.affine()?, lp.upper.affine()?);
        // Ascending loops run over [lower, upper - 1]; descending over [upper + 1, lower].
        let value = match (lp.step > 0, up) {
            (true, true) => hi.sub(&Poly::constant(1))?,
            (true, false) => lo.clone(),
            (false, true) => lo.clone(),
            (false, false) => hi.add(&Poly::constant(1))?,
        };
        cur = cur.substitute(&lp.var, &value)?;
    }
    Some(cur)
}

// ---------------------------------------------------------------------------------------------
// Kernel construction
// ---------------------------------------------------------------------------------------------

struct Mapped {
    loop_id: LoopId,
    dim: u8,
}

struct KernelBuilder<'a> {
    r: &'a RegionAst,
    deps: &'a DepInfo,
    root: LoopId,
    mapped: Vec<Mapped>,
    /// Names declared inside the kernel (locals, iterators) → type.
    locals: BTreeMap<String, Scalar>,
    /// Private arrays declared in the kernel → (elem, extents).
    private_arrays: BTreeMap<String, Vec<u32>>,
    /// Scalars from outside the region that each thread keeps privately.
    privatized: BTreeSet<String>,
    reductions: Vec<(RedOp, String, Scalar)>,
    errors: Vec<Diag>,
}

impl<'a> KernelBuilder<'a> {
    fn new(r: &'a RegionAst, deps: &'a DepInfo, root: LoopId) -> Self {
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
        }
    }

    fn ir(&self) -> &'a Region {
        &self.r.ir
    }

    /// The chain of loops mapped to the grid, outermost first.
    fn choose_mapping(&mut self) {
        let ir = self.ir();
        let mut chain: Vec<LoopId> = Vec::new();
        let mut cur = Some(self.root);
        while let Some(l) = cur {
            if chain.len() == 3
                || !dependence::is_parallel(self.deps, ir, l)
                || !self.mappable(l, &chain)
            {
                break;
            }
            chain.push(l);
            let lp = &ir.loops[l];
            cur = if lp.perfect && lp.children.len() == 1 {
                Some(lp.children[0])
            } else {
                None
            };
        }
        let n = chain.len();
        self.mapped = chain
            .into_iter()
            .enumerate()
            .map(|(i, l)| Mapped {
                loop_id: l,
                dim: (n - 1 - i) as u8,
            })
            .collect();
    }

    /// A loop can go to the grid if its bounds are affine with constant coefficients on the
    /// iterators of the loops already mapped.
    fn mappable(&self, l: LoopId, chain: &[LoopId]) -> bool {
        let ir = self.ir();
        let lp = &ir.loops[l];
        let outer: Vec<&str> = chain.iter().map(|&c| ir.loops[c].var.as_str()).collect();
        let ok = |b: &Bound| match b.affine() {
            Some(p) => outer.iter().all(|v| match p.split(v) {
                Some((coef, _)) => coef.as_const().is_some(),
                None => false,
            }),
            None => false,
        };
        if !ok(&lp.lower) || !ok(&lp.upper) {
            return false;
        }
        // A descending loop whose start varies with an outer mapped iterator is not mapped.
        lp.step > 0
            || outer
                .iter()
                .all(|v| !lp.lower.affine().is_some_and(|p| p.mentions(v)))
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

    fn build(
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
            let t = KExpr::Builtin(Builtin::GlobalId(m.dim));
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
        let inner = match root_stmt {
            Some(s) => self.stmt(s),
            None => Vec::new(),
        };
        if guard.is_empty() {
            body.extend(inner);
        } else {
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
        let mut locals = Vec::new();
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
        let mut full = vec![KExpr::Int(0, Scalar::Int)];
        full.extend(extents);
        KExpr::Load(ArrayRef {
            array: name.clone(),
            space: Space::Global,
            index: Box::new(flatten(ksubs, &full[1..])),
        })
    }
}

/// `((s0 * E1 + s1) * E2 + s2)…`
fn flatten(subs: Vec<KExpr>, extents: &[KExpr]) -> KExpr {
    let mut it = subs.into_iter();
    let Some(mut acc) = it.next() else {
        return KExpr::Int(0, Scalar::Int);
    };
    for (s, ext) in it.zip(extents.iter()) {
        acc = KExpr::Binary(
            BinOp::Add,
            Box::new(KExpr::Binary(
                BinOp::Mul,
                Box::new(acc),
                Box::new(ext.clone()),
            )),
            Box::new(s),
        );
    }
    acc
}

/// A polynomial over parameters/iterators as a kernel expression of type `ty`.
pub fn poly_to_kexpr(p: &Poly, ty: Scalar) -> KExpr {
    let mut acc: Option<KExpr> = None;
    let mut constant = 0i64;
    for (m, c) in p.terms() {
        if m.is_empty() {
            constant = c;
            continue;
        }
        let mut term: Option<KExpr> = None;
        for s in m {
            let v = KExpr::Var(s.clone());
            term = Some(match term {
                None => v,
                Some(t) => KExpr::Binary(BinOp::Mul, Box::new(t), Box::new(v)),
            });
        }
        let Some(mut term) = term else { continue };
        let (neg, abs) = (c < 0, c.unsigned_abs() as i64);
        if abs != 1 {
            term = KExpr::Binary(
                BinOp::Mul,
                Box::new(KExpr::Int(abs, Scalar::Int)),
                Box::new(term),
            );
        }
        acc = Some(match (acc, neg) {
            (None, false) => term,
            (None, true) => KExpr::Unary(UnOp::Neg, Box::new(term)),
            (Some(a), false) => KExpr::Binary(BinOp::Add, Box::new(a), Box::new(term)),
            (Some(a), true) => KExpr::Binary(BinOp::Sub, Box::new(a), Box::new(term)),
        });
    }
    let lit = |v: i64| KExpr::Int(v, if ty == Scalar::Int { Scalar::Int } else { ty });
    match acc {
        None => lit(constant),
        Some(a) if constant == 0 => a,
        Some(a) if constant > 0 => KExpr::Binary(BinOp::Add, Box::new(a), Box::new(lit(constant))),
        Some(a) => KExpr::Binary(
            BinOp::Sub,
            Box::new(a),
            Box::new(lit(constant.saturating_neg())),
        ),
    }
}

fn cast_if(ty: Scalar, e: KExpr) -> KExpr {
    if ty == Scalar::Int {
        e
    } else {
        KExpr::Cast(ty, Box::new(e))
    }
}

/// The C type of an integer literal (C99 6.4.4.1, LP64).
fn int_literal_type(value: u64, suffix: ast::IntSuffix, radix: u32) -> Scalar {
    let fits_int = value <= i32::MAX as u64;
    let fits_uint = value <= u32::MAX as u64;
    let fits_long = value <= i64::MAX as u64;
    match (suffix.unsigned, suffix.longs) {
        (false, 0) if fits_int => Scalar::Int,
        (false, 0) if radix != 10 && fits_uint => Scalar::UInt,
        (false, 0) | (false, 1) if fits_long => Scalar::Long,
        (false, 2) if fits_long => Scalar::LongLong,
        (true, 0) if fits_uint => Scalar::UInt,
        (true, 0) | (true, 1) => Scalar::ULong,
        (true, _) => Scalar::ULongLong,
        _ => Scalar::ULong,
    }
}

fn sizeof_type(t: &CType) -> Option<u64> {
    match t.unqualified() {
        CType::Scalar(s) => Some(s.size() as u64),
        CType::Pointer { .. } => Some(8),
        CType::Array { elem, len } => {
            let n = len
                .as_ref()
                .and_then(|e| crate::ir::lower::expr_poly(e, &|_| false))
                .and_then(|p| p.as_const())?;
            sizeof_type(elem)?.checked_mul(u64::try_from(n).ok()?)
        }
        _ => None,
    }
}

/// The identity of a reduction operator for a type.
fn identity(op: RedOp, ty: Scalar) -> KExpr {
    let int = |v: i64| KExpr::Int(v, ty);
    match op {
        RedOp::Add | RedOp::BitOr | RedOp::BitXor | RedOp::LogOr => {
            if ty.is_float() {
                KExpr::Float(0.0, ty == Scalar::Float)
            } else {
                int(0)
            }
        }
        RedOp::Mul | RedOp::LogAnd => {
            if ty.is_float() {
                KExpr::Float(1.0, ty == Scalar::Float)
            } else {
                int(1)
            }
        }
        RedOp::BitAnd => KExpr::Unary(UnOp::BitNot, Box::new(KExpr::Int(0, ty))),
        RedOp::Max | RedOp::Min => {
            let max = op == RedOp::Max;
            if ty.is_float() {
                KExpr::Float(
                    if max {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    },
                    ty == Scalar::Float,
                )
            } else {
                let (lo, hi) = int_range(ty);
                int(if max { lo } else { hi })
            }
        }
    }
}

fn int_range(ty: Scalar) -> (i64, i64) {
    match ty {
        Scalar::Bool => (0, 1),
        Scalar::Char | Scalar::SChar => (i8::MIN as i64, i8::MAX as i64),
        Scalar::UChar => (0, u8::MAX as i64),
        Scalar::Short => (i16::MIN as i64, i16::MAX as i64),
        Scalar::UShort => (0, u16::MAX as i64),
        Scalar::Int => (i32::MIN as i64, i32::MAX as i64),
        Scalar::UInt => (0, u32::MAX as i64),
        Scalar::Long | Scalar::LongLong => (i64::MIN, i64::MAX),
        _ => (0, i64::MAX),
    }
}

/// Combines `a` and `b` with a reduction operator.
fn combine(op: RedOp, ty: Scalar, a: KExpr, b: KExpr) -> KExpr {
    let bin = |o: BinOp| KExpr::Binary(o, Box::new(a.clone()), Box::new(b.clone()));
    match op {
        RedOp::Add => bin(BinOp::Add),
        RedOp::Mul => bin(BinOp::Mul),
        RedOp::BitAnd => bin(BinOp::BitAnd),
        RedOp::BitOr => bin(BinOp::BitOr),
        RedOp::BitXor => bin(BinOp::BitXor),
        RedOp::LogAnd => bin(BinOp::LogAnd),
        RedOp::LogOr => bin(BinOp::LogOr),
        RedOp::Max | RedOp::Min => {
            if ty.is_float() {
                let f = match (op == RedOp::Max, ty == Scalar::Float) {
                    (true, true) => "fmaxf",
                    (true, false) => "fmax",
                    (false, true) => "fminf",
                    (false, false) => "fmin",
                };
                KExpr::Call(f.to_string(), vec![a, b])
            } else {
                let cmp = if op == RedOp::Max {
                    BinOp::Gt
                } else {
                    BinOp::Lt
                };
                KExpr::Cond(
                    Box::new(KExpr::Binary(cmp, Box::new(a.clone()), Box::new(b.clone()))),
                    Box::new(a),
                    Box::new(b),
                )
            }
        }
    }
}

/// The work-group tree reduction of `var` through local array `arr`, then the partial result of
/// the group to `part[group]`. Every thread reaches every barrier (no barrier under a
/// thread-dependent condition).
fn reduction_epilogue(
    arr: &str,
    part: &str,
    var: &str,
    op: RedOp,
    ty: Scalar,
    threads: u32,
) -> Vec<KStmt> {
    let lid = || KExpr::Var("accshare_lid".to_string());
    let local = |i: KExpr| ArrayRef {
        array: arr.to_string(),
        space: Space::Local,
        index: Box::new(i),
    };
    let b = Box::new;
    let linear_local = KExpr::Binary(
        BinOp::Add,
        b(KExpr::Builtin(Builtin::LocalId(0))),
        b(KExpr::Binary(
            BinOp::Mul,
            b(KExpr::Builtin(Builtin::LocalSize(0))),
            b(KExpr::Binary(
                BinOp::Add,
                b(KExpr::Builtin(Builtin::LocalId(1))),
                b(KExpr::Binary(
                    BinOp::Mul,
                    b(KExpr::Builtin(Builtin::LocalSize(1))),
                    b(KExpr::Builtin(Builtin::LocalId(2))),
                )),
            )),
        )),
    );
    let linear_group = KExpr::Binary(
        BinOp::Add,
        b(KExpr::Builtin(Builtin::GroupId(0))),
        b(KExpr::Binary(
            BinOp::Mul,
            b(KExpr::Builtin(Builtin::NumGroups(0))),
            b(KExpr::Binary(
                BinOp::Add,
                b(KExpr::Builtin(Builtin::GroupId(1))),
                b(KExpr::Binary(
                    BinOp::Mul,
                    b(KExpr::Builtin(Builtin::NumGroups(1))),
                    b(KExpr::Builtin(Builtin::GroupId(2))),
                )),
            )),
        )),
    );
    let s = || KExpr::Var("accshare_s".to_string());
    vec![
        KStmt::Comment(format!(
            "reduction of `{}`: tree in local memory, one partial per work-group",
            var
        )),
        KStmt::Block(vec![
            KStmt::Decl {
                name: "accshare_lid".to_string(),
                ty: Scalar::Int,
                len: None,
                init: Some(linear_local),
            },
            KStmt::Assign {
                target: LValue::Elem(local(lid())),
                op: None,
                value: KExpr::Var(var.to_string()),
            },
            KStmt::Barrier,
            KStmt::For {
                init: vec![KStmt::Decl {
                    name: "accshare_s".to_string(),
                    ty: Scalar::Int,
                    len: None,
                    init: Some(KExpr::Int((threads / 2) as i64, Scalar::Int)),
                }],
                cond: Some(KExpr::Binary(
                    BinOp::Gt,
                    b(s()),
                    b(KExpr::Int(0, Scalar::Int)),
                )),
                step: vec![KStmt::Assign {
                    target: LValue::Var("accshare_s".to_string()),
                    op: Some(BinOp::Shr),
                    value: KExpr::Int(1, Scalar::Int),
                }],
                body: vec![
                    KStmt::If {
                        cond: KExpr::Binary(BinOp::Lt, b(lid()), b(s())),
                        then: vec![KStmt::Assign {
                            target: LValue::Elem(local(lid())),
                            op: None,
                            value: combine(
                                op,
                                ty,
                                KExpr::Load(local(lid())),
                                KExpr::Load(local(KExpr::Binary(BinOp::Add, b(lid()), b(s())))),
                            ),
                        }],
                        els: Vec::new(),
                    },
                    KStmt::Barrier,
                ],
            },
            KStmt::If {
                cond: KExpr::Binary(BinOp::Eq, b(lid()), b(KExpr::Int(0, Scalar::Int))),
                then: vec![KStmt::Assign {
                    target: LValue::Elem(ArrayRef {
                        array: part.to_string(),
                        space: Space::Global,
                        index: b(linear_group),
                    }),
                    op: None,
                    value: KExpr::Load(local(KExpr::Int(0, Scalar::Int))),
                }],
                els: Vec::new(),
            },
        ]),
    ]
}

/// Finds the `for` statement with the given span inside `s`.
fn find_loop(s: &Stmt, span: Span) -> Option<&Stmt> {
    if s.span == span && matches!(s.kind, StmtKind::For { .. }) {
        return Some(s);
    }
    match &s.kind {
        StmtKind::Block(b) => b.stmts.iter().find_map(|x| find_loop(x, span)),
        StmtKind::Acc { body, .. } => find_loop(body, span),
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. } => find_loop(body, span),
        StmtKind::If { then, els, .. } => {
            find_loop(then, span).or_else(|| els.as_ref().and_then(|e| find_loop(e, span)))
        }
        _ => None,
    }
}

fn free_names_expr(e: &KExpr, arrays: &mut BTreeSet<String>, vars: &mut BTreeSet<String>) {
    match e {
        KExpr::Var(v) => {
            vars.insert(v.clone());
        }
        KExpr::Load(r) => {
            if r.space == Space::Global {
                arrays.insert(r.array.clone());
            } else {
                vars.insert(r.array.clone());
            }
            free_names_expr(&r.index, arrays, vars);
        }
        KExpr::Unary(_, a) | KExpr::Cast(_, a) => free_names_expr(a, arrays, vars),
        KExpr::Binary(_, a, b) => {
            free_names_expr(a, arrays, vars);
            free_names_expr(b, arrays, vars);
        }
        KExpr::Cond(a, b, c) => {
            free_names_expr(a, arrays, vars);
            free_names_expr(b, arrays, vars);
            free_names_expr(c, arrays, vars);
        }
        KExpr::Call(_, args) => args.iter().for_each(|a| free_names_expr(a, arrays, vars)),
        KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
    }
}

fn free_names_stmt(s: &KStmt, arrays: &mut BTreeSet<String>, vars: &mut BTreeSet<String>) {
    let all = |v: &[KStmt], arrays: &mut BTreeSet<String>, vars: &mut BTreeSet<String>| {
        v.iter().for_each(|s| free_names_stmt(s, arrays, vars))
    };
    match s {
        KStmt::Decl { name, init, .. } => {
            if let Some(e) = init {
                free_names_expr(e, arrays, vars);
            }
            // Declared in the kernel: never a parameter (names are unique per kernel scope
            // chain in the code the lowering produces).
            vars.insert(format!("\0decl:{}", name));
        }
        KStmt::Assign { target, value, .. } => {
            match target {
                LValue::Var(v) => {
                    vars.insert(v.clone());
                }
                LValue::Elem(r) => free_names_expr(&KExpr::Load(r.clone()), arrays, vars),
            }
            free_names_expr(value, arrays, vars);
        }
        KStmt::Expr(e) => free_names_expr(e, arrays, vars),
        KStmt::If { cond, then, els } => {
            free_names_expr(cond, arrays, vars);
            all(then, arrays, vars);
            all(els, arrays, vars);
        }
        KStmt::For {
            init,
            cond,
            step,
            body,
        } => {
            all(init, arrays, vars);
            if let Some(c) = cond {
                free_names_expr(c, arrays, vars);
            }
            all(step, arrays, vars);
            all(body, arrays, vars);
        }
        KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
            free_names_expr(cond, arrays, vars);
            all(body, arrays, vars);
        }
        KStmt::Block(b) => all(b, arrays, vars),
        KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => {}
    }
}

fn expr_uses_double(e: &KExpr) -> bool {
    match e {
        KExpr::Float(_, single) => !single,
        KExpr::Cast(t, a) => *t == Scalar::Double || expr_uses_double(a),
        KExpr::Load(r) => expr_uses_double(&r.index),
        KExpr::Unary(_, a) => expr_uses_double(a),
        KExpr::Binary(_, a, b) => expr_uses_double(a) || expr_uses_double(b),
        KExpr::Cond(a, b, c) => expr_uses_double(a) || expr_uses_double(b) || expr_uses_double(c),
        KExpr::Call(f, args) => {
            // C99 double-precision math functions (`sqrt`, `exp`, …) compute in double.
            let double_fn = !f.ends_with('f') && !matches!(f.as_str(), "abs" | "min" | "max");
            double_fn || args.iter().any(expr_uses_double)
        }
        KExpr::Var(_) | KExpr::Int(..) | KExpr::Builtin(_) => false,
    }
}

fn stmt_uses_double(s: &KStmt) -> bool {
    let any = |v: &[KStmt]| v.iter().any(stmt_uses_double);
    match s {
        KStmt::Decl { ty, init, .. } => {
            *ty == Scalar::Double || init.as_ref().is_some_and(expr_uses_double)
        }
        KStmt::Assign { value, target, .. } => {
            expr_uses_double(value)
                || matches!(target, LValue::Elem(r) if expr_uses_double(&r.index))
        }
        KStmt::Expr(e) => expr_uses_double(e),
        KStmt::If { cond, then, els } => expr_uses_double(cond) || any(then) || any(els),
        KStmt::For {
            init,
            cond,
            step,
            body,
        } => any(init) || cond.as_ref().is_some_and(expr_uses_double) || any(step) || any(body),
        KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
            expr_uses_double(cond) || any(body)
        }
        KStmt::Block(b) => any(b),
        _ => false,
    }
}
