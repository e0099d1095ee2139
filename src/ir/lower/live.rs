//! Which names a function reads outside one of its compute regions: the scalars whose value
//! after the region may matter (their sequential final value must then reach the host).
//!
//! A read counts wherever it is (before the region too: the region may sit in a loop), except
//! after an unconditional `x = e;` earlier in the same block or an enclosing one (and after the
//! region, not before it), and inside a
//! `for` whose initialisation assigns the name (`for (i = 0; …)` with `int i;` at the top of
//! the function: every read in that loop sees the new value). A plain assignment `x = e` does
//! not read `x`. Over-approximating is safe: it only asks for a final value that would not be
//! used.

use std::collections::BTreeSet;

use crate::diag::Span;
use crate::front::ast::{Block, Designator, Expr, ExprKind, ForInit, Initializer, Stmt, StmtKind};

/// The names read in `body` outside the statement spanning `region`.
pub(super) fn read_outside(body: &Block, region: Span) -> BTreeSet<String> {
    let mut w = Reads {
        region,
        killed: Vec::new(),
        out: BTreeSet::new(),
    };
    for s in &body.stmts {
        w.stmt(s);
    }
    w.out
}

struct Reads {
    region: Span,
    /// Names assigned unconditionally before the current point: by the initialisations of the
    /// enclosing `for` loops and by `x = e;` statements earlier in the enclosing blocks.
    killed: Vec<String>,
    out: BTreeSet<String>,
}

impl Reads {
    fn read(&mut self, name: &str) {
        if !self.killed.iter().any(|k| k == name) {
            self.out.insert(name.to_string());
        }
    }

    /// A statement whose assignments do not outlive it (a branch, a loop body).
    fn scoped(&mut self, s: &Stmt) {
        let depth = self.killed.len();
        self.stmt(s);
        self.killed.truncate(depth);
    }

    fn stmt(&mut self, s: &Stmt) {
        if s.span == self.region {
            // A read after the region sees what the region left, whatever was assigned before
            // it (`last = -1;` before the region kills nothing after it).
            self.killed.clear();
            return;
        }
        match &s.kind {
            StmtKind::Decl(d) => {
                for dec in &d.declarators {
                    if let Some(i) = &dec.init {
                        self.init(i);
                    }
                }
            }
            StmtKind::Expr(e) => {
                self.expr(e);
                if let ExprKind::Assign(None, lhs, _) = &e.kind {
                    if let ExprKind::Ident(n) = &lhs.kind {
                        self.killed.push(n.clone());
                    }
                }
            }
            StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Block(b) => {
                let depth = self.killed.len();
                b.stmts.iter().for_each(|s| self.stmt(s));
                self.killed.truncate(depth);
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.scoped(then);
                if let Some(e) = els {
                    self.scoped(e);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let depth = self.killed.len();
                match init {
                    ForInit::Decl(d) => {
                        for dec in &d.declarators {
                            if let Some(i) = &dec.init {
                                self.init(i);
                            }
                        }
                    }
                    ForInit::Expr(e) => {
                        self.expr(e);
                        if let ExprKind::Assign(None, lhs, _) = &e.kind {
                            if let ExprKind::Ident(n) = &lhs.kind {
                                self.killed.push(n.clone());
                            }
                        }
                    }
                    ForInit::None => {}
                }
                for e in cond.iter().chain(step.iter()) {
                    self.expr(e);
                }
                self.scoped(body);
                self.killed.truncate(depth);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond);
                self.scoped(body);
            }
            StmtKind::Acc { body, .. } => self.scoped(body),
            StmtKind::Unsupported { body: Some(b), .. } => self.scoped(b),
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Empty
            | StmtKind::Pragma(_)
            | StmtKind::AccStandalone(_)
            | StmtKind::Unsupported { body: None, .. } => {}
        }
    }

    fn init(&mut self, i: &Initializer) {
        match i {
            Initializer::Expr(e) => self.expr(e),
            Initializer::List(items, _) => items.iter().for_each(|i| self.init(i)),
            Initializer::Designated {
                designators, init, ..
            } => {
                for d in designators {
                    match d {
                        Designator::Field(_) => {}
                        Designator::Index(e) => self.expr(e),
                        Designator::Range(a, b) => {
                            self.expr(a);
                            self.expr(b);
                        }
                    }
                }
                self.init(init);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(n) => self.read(n),
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_) => {}
            ExprKind::Assign(None, lhs, rhs) => {
                if !matches!(lhs.kind, ExprKind::Ident(_)) {
                    self.expr(lhs);
                }
                self.expr(rhs);
            }
            ExprKind::Assign(Some(_), a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::IncDec { arg: a, .. }
            | ExprKind::Member { base: a, .. } => self.expr(a),
            ExprKind::Cond(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::Call(_, args) => args.iter().for_each(|a| self.expr(a)),
            ExprKind::IndirectCall(f, args) => {
                std::iter::once(&**f).chain(args).for_each(|a| self.expr(a))
            }
            ExprKind::CompoundLit(_, items) => items.iter().for_each(|i| self.init(i)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names `f`'s body reads outside its statement `#k` (counting top-level statements).
    fn reads(src: &str, k: usize) -> Vec<String> {
        let f = super::super::parse_function(src);
        read_outside(&f.body, f.body.stmts[k].span)
            .into_iter()
            .collect()
    }

    #[test]
    fn assignments_and_loop_inits_hide_later_reads() {
        let src = "void f(int n, float *a) { int i, k; float t, u, w;\n\
                   for (k = 0; k < n; k++) a[k] = 0;\n\
                   for (i = 0; i < n; i++) { k = i * 2; t = a[k]; a[i] = t; }\n\
                   if (n) u = 1; a[0] = u;\n\
                   while (n--) { a[1] = w; w = 2; }\n}";
        // Statement #1 is the first loop: `k` is assigned before every read elsewhere, `t` too;
        // `u`'s assignment is conditional and `w` is read before it is assigned.
        assert_eq!(reads(src, 1), ["a", "n", "u", "w"]);
    }
}
