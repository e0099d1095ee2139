//! The one walk over the kernel IR's trees: the children of an expression, the expressions and
//! nested statements of a statement. Passes that look at or rewrite every node
//! (`kernel::lower::order`, `kernel::lower::lanes`, …) call these rather than spelling the
//! match over every variant again.

use super::{ArrayRef, AtomicOp, KExpr, KStmt, LValue};

impl KExpr {
    /// Calls `f` on each expression directly inside this one, in order: an array's index, the
    /// operands, a call's arguments.
    pub fn for_each_child(&self, f: &mut dyn FnMut(&KExpr)) {
        match self {
            KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
            KExpr::Load(a) => f(&a.index),
            KExpr::Unary(_, a) | KExpr::Cast(_, a) => f(a),
            KExpr::Binary(_, a, b) => {
                f(a);
                f(b);
            }
            KExpr::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            KExpr::Call(_, args) => args.iter().for_each(f),
        }
    }

    /// [`KExpr::for_each_child`], the children mutable.
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut KExpr)) {
        match self {
            KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
            KExpr::Load(a) => f(&mut a.index),
            KExpr::Unary(_, a) | KExpr::Cast(_, a) => f(a),
            KExpr::Binary(_, a, b) => {
                f(a);
                f(b);
            }
            KExpr::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            KExpr::Call(_, args) => args.iter_mut().for_each(f),
        }
    }

    /// Whether this expression or one inside it satisfies `p` (outermost first).
    pub fn any(&self, p: &dyn Fn(&KExpr) -> bool) -> bool {
        if p(self) {
            return true;
        }
        let mut found = false;
        self.for_each_child(&mut |c| found = found || c.any(p));
        found
    }
}

impl KStmt {
    /// Calls `f` on every top expression of this statement and of the statements inside it, in
    /// the order they are written: a declaration's value, an assignment's element index then
    /// value, a condition before its branches, a `for`'s initialisation, condition, step, body;
    /// an atomic's or vector access's element index before its operands.
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&KExpr)) {
        let all = |ss: &[KStmt], f: &mut dyn FnMut(&KExpr)| ss.iter().for_each(|s| s.walk_exprs(f));
        match self {
            KStmt::Decl { init, .. } => {
                if let Some(e) = init {
                    f(e)
                }
            }
            KStmt::Assign { target, value, .. } => {
                if let LValue::Elem(a) = target {
                    f(&a.index);
                }
                f(value);
            }
            KStmt::Expr(e) => f(e),
            KStmt::If { cond, then, els } => {
                f(cond);
                all(then, f);
                all(els, f);
            }
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                all(init, f);
                if let Some(c) = cond {
                    f(c);
                }
                all(step, f);
                all(body, f);
            }
            KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
                f(cond);
                all(body, f);
            }
            KStmt::Block(b) => all(b, f),
            KStmt::Atomic { target, op, .. } => {
                f(&target.index);
                match op {
                    AtomicOp::Read => {}
                    AtomicOp::Write(e) | AtomicOp::Update { value: e, .. } => f(e),
                }
            }
            KStmt::VecLoad { src, .. } => f(&src.index),
            KStmt::VecStore { dst, values, .. } => {
                f(&dst.index);
                values.iter().for_each(f);
            }
            KStmt::DeclArray(_)
            | KStmt::Break
            | KStmt::Continue
            | KStmt::Barrier
            | KStmt::Comment(_) => {}
        }
    }

    /// [`KStmt::walk_exprs`], the expressions mutable.
    pub fn walk_exprs_mut(&mut self, f: &mut dyn FnMut(&mut KExpr)) {
        let all = |ss: &mut [KStmt], f: &mut dyn FnMut(&mut KExpr)| {
            ss.iter_mut().for_each(|s| s.walk_exprs_mut(f))
        };
        let arr = |a: &mut ArrayRef, f: &mut dyn FnMut(&mut KExpr)| f(&mut a.index);
        match self {
            KStmt::Decl { init, .. } => {
                if let Some(e) = init {
                    f(e)
                }
            }
            KStmt::Assign { target, value, .. } => {
                if let LValue::Elem(a) = target {
                    arr(a, f);
                }
                f(value);
            }
            KStmt::Expr(e) => f(e),
            KStmt::If { cond, then, els } => {
                f(cond);
                all(then, f);
                all(els, f);
            }
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                all(init, f);
                if let Some(c) = cond {
                    f(c);
                }
                all(step, f);
                all(body, f);
            }
            KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
                f(cond);
                all(body, f);
            }
            KStmt::Block(b) => all(b, f),
            KStmt::Atomic { target, op, .. } => {
                arr(target, f);
                match op {
                    AtomicOp::Read => {}
                    AtomicOp::Write(e) | AtomicOp::Update { value: e, .. } => f(e),
                }
            }
            KStmt::VecLoad { src, .. } => arr(src, f),
            KStmt::VecStore { dst, values, .. } => {
                arr(dst, f);
                values.iter_mut().for_each(f);
            }
            KStmt::DeclArray(_)
            | KStmt::Break
            | KStmt::Continue
            | KStmt::Barrier
            | KStmt::Comment(_) => {}
        }
    }

    /// Calls `f` on each statement directly inside this one, in order (a branch's, a loop's
    /// initialisation, step and body, a block's).
    pub fn for_each_child(&self, f: &mut dyn FnMut(&KStmt)) {
        match self {
            KStmt::If { then, els, .. } => then.iter().chain(els).for_each(f),
            KStmt::For {
                init, step, body, ..
            } => init.iter().chain(step).chain(body).for_each(f),
            KStmt::While { body, .. } | KStmt::DoWhile { body, .. } | KStmt::Block(body) => {
                body.iter().for_each(f)
            }
            _ => {}
        }
    }

    /// Whether this statement or one inside it satisfies `p` (outermost first).
    pub fn any(&self, p: &dyn Fn(&KStmt) -> bool) -> bool {
        if p(self) {
            return true;
        }
        let mut found = false;
        self.for_each_child(&mut |c| found = found || c.any(p));
        found
    }
}
