//! `#pragma acc atomic` in a kernel: a [`KStmt::Atomic`] on the element when other work-items
//! may touch it (an element of a buffer, or a scalar of the function the iterations share, kept
//! in a one-element buffer: `accshare_last_<name>`, which the host fills with the variable's
//! value and reads back, see [`super::last`]); plain statements when the location belongs to
//! the work-item (a private array, a variable declared in the loop, a privatized scalar, a
//! reduction's accumulator, or a kernel that runs on one work-item).

use super::build::KernelBuilder;
use super::*;
use crate::ir::{Expr, Handle, Stmt};
use crate::vocab::{AtomicKind, AtomicUpdate};

/// An atomic statement of the region, over its expressions.
type AtomicForm = crate::vocab::AtomicForm<Handle<Expr>>;

/// The variable a capture goes through (declared in a block of its own).
const CAPTURE: &str = "accshare_cap";

impl KernelBuilder<'_> {
    pub(super) fn atomic(
        &mut self,
        _kind: AtomicKind,
        form: Option<&AtomicForm>,
        body: Handle<Stmt>,
    ) -> Vec<KStmt> {
        let Some(form) = form else {
            // Reported by `front::region::validate`.
            return self.stmt(body);
        };
        let exprs = self.exprs();
        let target = match &exprs[form.x] {
            Expr::Var(n) if self.shared_atomic_scalar(n) => {
                let ty = self.ir().scalars.get(n).map_or(Scalar::Int, |s| s.ty);
                let array = self.array(&format!("accshare_last_{}", n), ty, ArrayKind::Buffer);
                Some((
                    ArrayRef {
                        array,
                        index: Box::new(KExpr::int(0)),
                        field: None,
                    },
                    ty,
                ))
            }
            Expr::Var(_) => None,
            _ => match self.lvalue(form.x) {
                // Reading an array no work-item writes needs no atomic.
                Some(LValue::Elem(r))
                    if form.update == AtomicUpdate::Read
                        && self.arrays[r.array].space() == Space::Global
                        && !self
                            .ir()
                            .arrays
                            .get(&self.arrays[r.array].name)
                            .is_some_and(|a| a.written) =>
                {
                    return self.atomic_plain(form, LValue::Elem(r));
                }
                Some(LValue::Elem(r)) if self.arrays[r.array].space() != Space::Private => {
                    let ty = self.element_type(&r);
                    Some((r, ty))
                }
                Some(lv) => return self.atomic_plain(form, lv),
                None => return Vec::new(),
            },
        };
        let Some((target, ty)) = target else {
            let lv = LValue::Var(match &exprs[form.x] {
                Expr::Var(n) => self.resolve(n),
                _ => self.resolve(""),
            });
            return self.atomic_plain(form, lv);
        };
        let op = match &form.update {
            AtomicUpdate::Read => AtomicOp::Read,
            AtomicUpdate::Write(e) => AtomicOp::Write(self.expr(*e)),
            AtomicUpdate::Op {
                op,
                value,
                reversed,
            } => AtomicOp::Update {
                op: *op,
                value: self.expr(*value),
                reversed: *reversed,
            },
        };
        let Some((v, after)) = &form.capture else {
            return vec![KStmt::Atomic {
                target,
                ty,
                op,
                capture: None,
            }];
        };
        let Some(v) = self.lvalue(*v) else {
            return Vec::new();
        };
        let cap = self.fresh(CAPTURE, ty);
        vec![KStmt::Block(vec![
            KStmt::Decl {
                var: cap,
                init: None,
            },
            KStmt::Atomic {
                target,
                ty,
                op,
                capture: Some(AtomicCapture {
                    var: cap,
                    after: *after,
                }),
            },
            KStmt::Assign {
                target: v,
                op: None,
                value: KExpr::Var(cap),
            },
        ])]
    }

    /// The element type of a buffer or tile.
    fn element_type(&self, r: &ArrayRef) -> Scalar {
        let name = &self.arrays[r.array].name;
        let tile = self
            .staging()
            .and_then(|s| s.arrays.iter().find(|a| a.local == *name))
            .map(|a| a.elem);
        tile.or_else(|| self.ir().arrays.get(name).map(|a| a.elem))
            .unwrap_or(Scalar::Int)
    }

    /// The construct on a location of the work-item's own: the statements as written.
    fn atomic_plain(&mut self, form: &AtomicForm, x: LValue) -> Vec<KStmt> {
        let current = match &x {
            LValue::Var(n) => KExpr::Var(*n),
            LValue::Elem(r) => KExpr::Load(r.clone()),
        };
        let update = match &form.update {
            AtomicUpdate::Read => None,
            AtomicUpdate::Write(e) => Some(KStmt::Assign {
                target: x.clone(),
                op: None,
                value: self.expr(*e),
            }),
            AtomicUpdate::Op {
                op,
                value,
                reversed: false,
            } => Some(KStmt::Assign {
                target: x.clone(),
                op: Some(*op),
                value: self.expr(*value),
            }),
            AtomicUpdate::Op {
                op,
                value,
                reversed: true,
            } => Some(KStmt::Assign {
                target: x.clone(),
                op: None,
                value: KExpr::bin(*op, self.expr(*value), current.clone()),
            }),
        };
        let copy = match &form.capture {
            Some((v, after)) => self.lvalue(*v).map(|v| {
                (
                    KStmt::Assign {
                        target: v,
                        op: None,
                        value: current,
                    },
                    *after,
                )
            }),
            None => None,
        };
        let mut out = Vec::new();
        if let Some((c, false)) = &copy {
            out.push(c.clone());
        }
        out.extend(update);
        if let Some((c, true)) = copy {
            out.push(c);
        }
        out
    }

    /// `name` is a scalar of the function (declared outside the region) that the work-items of
    /// this kernel share and use only in atomic statements: it lives in a one-element buffer.
    pub(super) fn shared_atomic_scalar(&self, name: &str) -> bool {
        let ir = self.ir();
        if self.mapped.is_empty()
            || ir.scalars.get(name).is_none_or(|s| s.local.is_some())
            || self.privatized.contains(name)
            || self.reductions.iter().any(|(_, n, _)| n == name)
            || self.locals.contains_key(name)
            || !self.assigned_in_nest(name)
        {
            return false;
        }
        let nest = ir.nest(self.root);
        ir.scalar_refs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.name == name && r.loops.first().is_some_and(|l| nest.contains(l)))
            .all(|(i, _)| ir.is_atomic_ref(i))
    }
}
