//! The syntax tree of a region's statement → the IR's statements ([`crate::ir::stmt`]).

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::front::ast::{self, CType, ForInit, StmtKind};
use crate::front::pragma_ast::Construct;
use crate::front::region::atomic_form;
use crate::ir::arena::Handle;
use crate::ir::expr::{Expr, Exprs};
use crate::ir::lower::expr::{lower_expr_sized, sizeof_type};
use crate::ir::lower::{array_shape, expr_poly};
use crate::ir::stmt::{Code, Init, Local, LocalType, Stmt};
use crate::ir::LoopId;

/// Lowers `body` (the construct's statement) into a [`Code`] whose expressions go to
/// `exprs`. `loops`: the region's loops by the span of their `for`; `outer_size(name)`: the
/// size in bytes of a variable declared outside the region (for `sizeof`).
pub fn lower_code(
    exprs: &mut Exprs,
    body: &ast::Stmt,
    loops: &BTreeMap<Span, LoopId>,
    outer_size: &dyn Fn(&str) -> Option<u64>,
) -> Code {
    let mut l = CodeLowering {
        exprs,
        code: Code::default(),
        loop_spans: loops,
        sizes: BTreeMap::new(),
        outer_size,
    };
    let top = l.stmt(body);
    l.code.body = Some(top);
    l.code
}

struct CodeLowering<'a> {
    exprs: &'a mut Exprs,
    code: Code,
    loop_spans: &'a BTreeMap<Span, LoopId>,
    /// Sizes of the variables the region declared so far.
    sizes: BTreeMap<String, Option<u64>>,
    outer_size: &'a dyn Fn(&str) -> Option<u64>,
}

impl CodeLowering<'_> {
    fn expr(&mut self, e: &ast::Expr) -> Handle<Expr> {
        let (sizes, outer) = (&self.sizes, self.outer_size);
        let size_of = |n: &str| match sizes.get(n) {
            Some(s) => *s,
            None => outer(n),
        };
        lower_expr_sized(self.exprs, e, &size_of)
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Handle<Stmt> {
        let lowered = match &s.kind {
            StmtKind::Decl(d) => Stmt::Locals(self.decl(d)),
            StmtKind::Expr(e) => Stmt::Expr(self.expr(e)),
            StmtKind::Block(b) => Stmt::Block(b.stmts.iter().map(|x| self.stmt(x)).collect()),
            StmtKind::If { cond, then, els } => Stmt::If {
                cond: self.expr(cond),
                accept: self.stmt(then),
                reject: els.as_ref().map(|e| self.stmt(e)),
            },
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let init = match init {
                    ForInit::None => None,
                    ForInit::Decl(d) => {
                        let locals = Stmt::Locals(self.decl(d));
                        Some(self.code.stmts.append(locals, d.span))
                    }
                    ForInit::Expr(e) => {
                        let h = Stmt::Expr(self.expr(e));
                        Some(self.code.stmts.append(h, e.span))
                    }
                };
                Stmt::For {
                    id: self.loop_spans.get(&s.span).copied(),
                    init,
                    cond: cond.as_ref().map(|c| self.expr(c)),
                    step: step.as_ref().map(|c| self.expr(c)),
                    body: self.stmt(body),
                }
            }
            StmtKind::While { cond, body } => Stmt::While {
                cond: self.expr(cond),
                body: self.stmt(body),
            },
            StmtKind::DoWhile { body, cond } => {
                let body = self.stmt(body);
                Stmt::DoWhile {
                    body,
                    cond: self.expr(cond),
                }
            }
            StmtKind::Acc { dir, body, .. } => match dir.construct {
                Construct::Atomic(kind) => {
                    let form = atomic_form(kind, body)
                        .ok()
                        .map(|f| f.map(|e| self.expr(e)));
                    Stmt::Atomic {
                        kind,
                        form,
                        body: self.stmt(body),
                    }
                }
                _ => Stmt::Directive {
                    body: self.stmt(body),
                },
            },
            StmtKind::Break => Stmt::Break,
            StmtKind::Continue => Stmt::Continue,
            StmtKind::AccStandalone(_) | StmtKind::Empty | StmtKind::Pragma(_) => Stmt::Empty,
            StmtKind::Return(_) | StmtKind::Unsupported { .. } => Stmt::Unsupported,
        };
        let h = self.code.stmts.append(lowered, s.span);
        if let Stmt::For { id: Some(id), .. } = &self.code.stmts[h] {
            self.code.loops.insert(*id, h);
        }
        h
    }

    fn decl(&mut self, d: &ast::Declaration) -> Vec<Local> {
        let mut out = Vec::new();
        for dec in &d.declarators {
            let ty = match dec.ty.unqualified() {
                CType::Scalar(s) => LocalType::Scalar(*s),
                CType::Array { .. } => match array_shape(&dec.ty) {
                    Some((elem, extents, false)) => LocalType::Array {
                        elem,
                        extents: extents
                            .iter()
                            .map(|e| {
                                e.as_ref()
                                    .and_then(|e| expr_poly(e, &|_| false))
                                    .and_then(|p| p.as_const())
                            })
                            .collect(),
                    },
                    _ => LocalType::Other,
                },
                _ => LocalType::Other,
            };
            let init = match &dec.init {
                None => Init::None,
                Some(ast::Initializer::Expr(e)) => Init::Expr(self.expr(e)),
                Some(
                    ast::Initializer::List(_, sp) | ast::Initializer::Designated { span: sp, .. },
                ) => Init::List(*sp),
            };
            self.sizes
                .insert(dec.name.name.clone(), sizeof_type(&dec.ty));
            out.push(Local {
                name: dec.name.name.clone(),
                ty,
                init,
                span: dec.span,
            });
        }
        out
    }
}
