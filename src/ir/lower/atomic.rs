//! `#pragma acc atomic` in the IR: the construct's statements, in program order, each marked
//! atomic on its location (`Statement::atomic`). An update is one statement reading and writing
//! `x` (`x op= e`); a read or a capture adds the copy `v = x`, also atomic on `x`. A reversed
//! update (`x = e - x`) keeps no operator, so that it is not taken for a reduction.

use super::*;
use crate::front::pragma_ast::AtomicKind;
use crate::front::region::{atomic_form, AtomicUpdate};

impl RegionBuilder<'_> {
    pub(super) fn atomic(&mut self, kind: AtomicKind, body: &Stmt) {
        let Ok(form) = atomic_form(kind, body) else {
            // Reported by `front::region::validate`.
            self.body(body);
            return;
        };
        let span = body.span;
        let capture = form.capture.as_ref();
        if let Some((v, false)) = capture {
            self.atomic_copy(v, &form.x, span);
        }
        match &form.update {
            AtomicUpdate::Read => {}
            AtomicUpdate::Write(e) => {
                self.reads(e);
                let id = StmtId(self.region.stmts.len());
                self.write_lvalue(&form.x, None, span);
                self.mark_atomic(id);
            }
            AtomicUpdate::Op {
                op,
                value,
                reversed,
            } => {
                self.reads(value);
                let id = StmtId(self.region.stmts.len());
                self.read_lvalue(&form.x, id);
                self.write_lvalue(&form.x, Some(*op), span);
                self.mark_atomic(id);
                // A reversed update, or a minimum/maximum, is not an operator a reduction
                // could take.
                if *reversed || matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge) {
                    if let Some(st) = self.region.stmts.get_mut(id.index()) {
                        st.op = None;
                    }
                }
            }
        }
        if let Some((v, true)) = capture {
            self.atomic_copy(v, &form.x, span);
        }
    }

    /// Statement `id` (just pushed) updates its target atomically.
    fn mark_atomic(&mut self, id: StmtId) {
        if let Some(st) = self.region.stmts.get_mut(id.index()) {
            if !matches!(&st.target, Target::Scalar(n) if n.is_empty()) {
                st.atomic = Some(st.target.clone());
            }
        }
    }

    /// `v = x`, reading `x` atomically.
    fn atomic_copy(&mut self, v: &Expr, x: &Expr, span: Span) {
        let id = StmtId(self.region.stmts.len());
        let before = self.region.accesses.len();
        self.reads(x);
        let location = match &x.kind {
            ExprKind::Ident(n) => Some(Target::Scalar(n.clone())),
            // The location is recorded after the reads of its subscripts.
            _ => (self.region.accesses.len() > before)
                .then(|| Target::Array(AccessId(self.region.accesses.len() - 1))),
        };
        self.write_lvalue(v, None, span);
        if let Some(st) = self.region.stmts.get_mut(id.index()) {
            st.atomic = location;
        }
    }
}
