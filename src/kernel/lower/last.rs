//! Scalars declared outside a compute region and assigned inside it get the value the
//! sequential program leaves in them. OpenACC makes such scalars firstprivate in `parallel`
//! (the host keeps its old value), which silently differs from the sequential program when the
//! value is used afterwards; accshare copies the sequential final value back instead:
//!
//! * a kernel that runs on one work-item (no loop on the grid: top-level statements, sequential
//!   nests) loads the variable from a one-element buffer and stores it back at its end;
//! * a scalar each iteration of the grid loops assigns before using (privatized) is stored by the
//!   work-item that runs the sequentially last iteration (`lastprivate`), when that iteration is
//!   known: the scalar is assigned unconditionally in the body of the innermost grid loop and no
//!   grid loop's bounds depend on another's.
//!
//! A scalar the work-items share through `#pragma acc atomic` lives in that buffer for the whole
//! kernel (`kernel::lower::atomic`). Otherwise, when the function reads the scalar outside the
//! region, the region is refused with a located error. The host passes the variable's value in
//! the buffer and reads it back ([`HostArg::LastValue`]), so a kernel that assigns nothing leaves
//! it unchanged.

use super::build::KernelBuilder;
use super::staged::StageError;
use super::*;
use crate::ir::{Expr, Handle, Stmt};
use crate::vocab::BinOp;

/// A scalar whose final value a kernel stores: its name, type and buffer parameter.
pub(super) struct LastValue {
    pub var: String,
    pub ty: Scalar,
    pub buffer: String,
}

impl KernelBuilder<'_> {
    /// Adds the loads and stores of the scalars whose final value must reach the host to `body`
    /// (`guard`: the conditions under which a work-item runs an iteration); returns them. A
    /// staged kernel that needs a `lastprivate` store sets `stage_error` (the baseline does it).
    pub(super) fn last_values(
        &mut self,
        guard: &[KExpr],
        body: &mut Vec<KStmt>,
        diags: &mut Diags,
    ) -> Vec<LastValue> {
        let ir = self.ir();
        let mut out = Vec::new();
        let nest = self.nest_loops();
        // Loop variables declared outside the region: private in every work-item.
        for &l in &nest {
            let lp = &ir.loops[l];
            if lp.var != crate::ir::lower::ONCE_VAR
                && self.r.scope.contains_key(&lp.var)
                && self.r.read_outside.contains(&lp.var)
            {
                diags.push(
                    Diag::error(
                        lp.header_span,
                        format!(
                            "the value of `{}` after the compute region is not computed",
                            lp.var
                        ),
                    )
                    .label(format!("`{}` is declared outside the region", lp.var))
                    .note("loop variables are private to each work-item of a compute region")
                    .help(format!(
                        "declare `{v}` in the loop (`for (int {v} = …)`), or assign it after the region before reading it",
                        v = lp.var
                    )),
                );
            }
        }
        let single = self.mapped.is_empty();
        for (name, info) in &ir.scalars {
            if !info.written
                || info.local.is_some()
                || self.reductions.iter().any(|(_, n, _)| n == name)
                || nest.iter().any(|&l| ir.loops[l].var == *name)
                || !self.assigned_in_nest(name)
            {
                continue;
            }
            let buffer = format!("accshare_last_{}", name);
            let array = self.array(&buffer, info.ty, ArrayKind::Buffer);
            let slot = KExpr::Load(ArrayRef {
                array,
                index: Box::new(KExpr::int(0)),
                field: None,
            });
            let store = KStmt::Assign {
                target: LValue::Elem(ArrayRef {
                    array,
                    index: Box::new(KExpr::int(0)),
                    field: None,
                }),
                op: None,
                value: KExpr::Var(self.resolve(name)),
            };
            if single {
                // The body's free uses of `name` are of this declaration.
                let var = self.declare_free(name, info.ty);
                body.insert(
                    0,
                    KStmt::Decl {
                        var,
                        init: Some(slot),
                    },
                );
                body.push(store);
                self.locals.insert(name.clone(), info.ty);
            } else if self.privatized.contains(name) {
                match self.last_iteration(name) {
                    // A kernel computing several outputs per work-item has no one last
                    // iteration per work-item: like a staged one, it leaves this to the
                    // baseline.
                    Ok(last) if self.staging().is_none() && self.rows() * self.cols() == 1 => {
                        let cond = guard
                            .iter()
                            .cloned()
                            .chain(last)
                            .reduce(|a, b| KExpr::bin(BinOp::LogAnd, a, b))
                            .unwrap_or(KExpr::int(1));
                        body.push(KStmt::If {
                            cond,
                            then: vec![store],
                            els: Vec::new(),
                        });
                    }
                    Ok(_) => {
                        self.stage_error = Some(StageError::FinalValueUnstaged(name.clone()));
                        continue;
                    }
                    Err(why) => {
                        if self.used_after(name) {
                            diags.push(self.no_final_value(name, &why));
                        }
                        continue;
                    }
                }
            } else if self.shared_atomic_scalar(name) {
                // Shared by the work-items, updated atomically in the buffer itself
                // (`kernel::lower::atomic`): the host reads it back.
            } else {
                // Not private and not a reduction on a grid loop: the parameter check in
                // `build` reports it.
                continue;
            }
            out.push(LastValue {
                var: name.clone(),
                ty: info.ty,
                buffer,
            });
        }
        out
    }

    /// The value of `name` after this kernel may be read: by the function outside the region,
    /// or by another kernel of the region.
    fn used_after(&self, name: &str) -> bool {
        let ir = self.ir();
        let nest = self.nest_loops();
        self.r.read_outside.contains(name)
            || ir.scalar_refs.iter().any(|r| {
                r.name == name
                    && r.kind != crate::ir::AccessKind::Write
                    && !r.loops.first().is_some_and(|l| nest.contains(l))
            })
    }

    /// The loops of this kernel's nest (the root and every loop inside it).
    fn nest_loops(&self) -> Vec<LoopId> {
        self.ir().nest(self.root)
    }

    /// `name` is assigned by a statement of this kernel's nest.
    pub(super) fn assigned_in_nest(&self, name: &str) -> bool {
        let ir = self.ir();
        let nest = self.nest_loops();
        ir.scalar_refs.iter().any(|r| {
            r.name == name
                && r.kind != crate::ir::AccessKind::Read
                && r.loops.first().is_some_and(|l| nest.contains(l))
        })
    }

    /// The conditions that hold only in the work-item running the sequentially last iteration
    /// of the grid loops, if `name` is assigned in every iteration and that work-item is known.
    fn last_iteration(&mut self, name: &str) -> Result<Vec<KExpr>, String> {
        let ir = self.ir();
        let vars: Vec<&str> = self
            .mapped
            .iter()
            .map(|m| ir.loops[m.loop_id].var.as_str())
            .collect();
        let mut conds = Vec::new();
        for m in self.mapped {
            let lp = &ir.loops[m.loop_id];
            let (Some(lo), Some(hi)) = (lp.lower.affine(), lp.upper.affine()) else {
                return Err(format!("the bounds of loop `{}` are not affine", lp.var));
            };
            if vars.iter().any(|v| lo.mentions(v) || hi.mentions(v)) {
                return Err(format!(
                    "the bounds of loop `{}` depend on another parallel loop",
                    lp.var
                ));
            }
            // The last iteration is the one whose next value fails the condition.
            let next = KExpr::bin(BinOp::Add, self.var(&lp.var), KExpr::int(lp.step));
            let upper = self.bound_expr(&lp.upper, lp.ty);
            let op = if lp.step > 0 { BinOp::Ge } else { BinOp::Le };
            conds.push(KExpr::bin(op, next, upper));
        }
        let inner = self
            .mapped
            .last()
            .map(|m| m.loop_id)
            .ok_or("no loop is on the grid")?;
        let code = &ir.code;
        let body = match code.loop_stmt(inner).map(|s| &code.stmts[s]) {
            Some(Stmt::For { body, .. }) => *body,
            _ => return Err("the innermost parallel loop was not found".to_string()),
        };
        if assigns_unconditionally(ir, body, name) {
            Ok(conds)
        } else {
            Err(format!(
                "`{}` is not assigned in every iteration of the parallel loops",
                name
            ))
        }
    }

    fn no_final_value(&self, name: &str, why: &str) -> Diag {
        let ir = self.ir();
        let span = ir
            .scalar_refs
            .iter()
            .find(|r| r.name == name && r.kind != crate::ir::AccessKind::Read)
            .map(|r| r.span)
            .unwrap_or(self.r.dir.span);
        Diag::error(
            span,
            format!(
                "the value `{}` has after the compute region cannot be computed",
                name
            ),
        )
        .label(format!(
            "`{}` is declared outside the region and read after it",
            name
        ))
        .note(format!(
            "the sequential program leaves in `{}` the value of its last iteration, and {}",
            name, why
        ))
        .help(format!(
            "declare `{}` inside the loop if its value is not needed after the region",
            name
        ))
    }
}

/// `s` assigns `name` with `=` at its top level (not under a condition or in an inner loop).
fn assigns_unconditionally(ir: &crate::ir::Region, s: Handle<Stmt>, name: &str) -> bool {
    match &ir.code.stmts[s] {
        Stmt::Block(b) => b.iter().any(|s| assigns_unconditionally(ir, *s, name)),
        Stmt::Expr(e) => match &ir.exprs[*e] {
            Expr::Assign { target, .. } => matches!(&ir.exprs[*target], Expr::Var(n) if n == name),
            _ => false,
        },
        _ => false,
    }
}
