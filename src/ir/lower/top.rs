//! Statements at the top level of a compute region that are not loops (`b[0] = 1.0;` between the
//! loops of a `parallel` region). OpenACC runs them redundantly in every gang, which gives the
//! sequential program's result only because every gang writes the same values; accshare runs
//! each group of consecutive such statements once, on one work-item, in program order: it wraps
//! them in a one-trip `seq` loop (`for (int accshare_once = 0; accshare_once < 1; …)`) that the
//! rest of the pipeline lowers like any sequential nest.

use crate::diag::Span;
use crate::front::ast::{
    self, Block, CType, Declaration, Declarator, Expr, ExprKind, ForInit, Ident, Initializer,
    IntSuffix, Stmt, StmtKind, Storage,
};
use crate::front::pragma_ast::{AccDirective, Clause, ClauseKind, Construct};
use crate::vocab::{BinOp, Scalar};

/// The iterator of the one-trip loops (a reserved name: generated code owns `accshare_*`).
pub const ONCE_VAR: &str = "accshare_once";

/// The region body with every run of consecutive top-level statements that are not loops,
/// declarations or directives wrapped in a one-trip `seq` loop. Bodies without such statements
/// come back unchanged.
pub(super) fn wrap_top_level(body: &Stmt) -> Stmt {
    let StmtKind::Block(b) = &body.kind else {
        return if stays(body) {
            body.clone()
        } else {
            once_loop(vec![body.clone()])
        };
    };
    let mut stmts = Vec::new();
    let mut run: Vec<Stmt> = Vec::new();
    for s in &b.stmts {
        if stays(s) {
            if !run.is_empty() {
                stmts.push(once_loop(std::mem::take(&mut run)));
            }
            stmts.push(match &s.kind {
                StmtKind::Block(_) => wrap_top_level(s),
                _ => s.clone(),
            });
        } else {
            run.push(s.clone());
        }
    }
    if !run.is_empty() {
        stmts.push(once_loop(run));
    }
    Stmt {
        kind: StmtKind::Block(Block {
            stmts,
            span: b.span,
        }),
        span: body.span,
    }
}

/// Statements the region lowering handles itself: loops (with their `loop` directives), nested
/// blocks, declarations (refused there with a diagnostic), empty statements and directives.
fn stays(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::For { .. }
        | StmtKind::Block(_)
        | StmtKind::Decl(_)
        | StmtKind::Empty
        | StmtKind::AccStandalone(_) => true,
        StmtKind::Acc { dir, .. } => dir.construct == Construct::Loop,
        _ => false,
    }
}

/// `#pragma acc loop seq` / `for (int accshare_once = 0; accshare_once < 1; accshare_once++)
/// { stmts }`, spanning the statements.
fn once_loop(stmts: Vec<Stmt>) -> Stmt {
    let span = stmts
        .iter()
        .map(|s| s.span)
        .reduce(|a, b| Span {
            lo: a.lo.min(b.lo),
            hi: a.hi.max(b.hi),
            ..a
        })
        .unwrap_or_default();
    let expr = |kind| Expr { kind, span };
    let var = || expr(ExprKind::Ident(ONCE_VAR.to_string()));
    let int = |value| {
        expr(ExprKind::Int {
            value,
            suffix: IntSuffix::default(),
            radix: 10,
        })
    };
    let init = ForInit::Decl(Declaration {
        storage: Storage::None,
        declarators: vec![Declarator {
            name: Ident {
                name: ONCE_VAR.to_string(),
                span,
            },
            ty: CType::Scalar(Scalar::Int),
            init: Some(Initializer::Expr(int(0))),
            span,
        }],
        span,
    });
    let for_stmt = Stmt {
        kind: StmtKind::For {
            init,
            cond: Some(expr(ExprKind::Binary(
                BinOp::Lt,
                Box::new(var()),
                Box::new(int(1)),
            ))),
            step: Some(expr(ExprKind::IncDec {
                inc: true,
                prefix: false,
                arg: Box::new(var()),
            })),
            body: Box::new(Stmt {
                kind: StmtKind::Block(ast::Block { stmts, span }),
                span,
            }),
        },
        span,
    };
    Stmt {
        kind: StmtKind::Acc {
            dir: AccDirective {
                construct: Construct::Loop,
                construct_span: span,
                clauses: vec![Clause {
                    kind: ClauseKind::Seq,
                    span,
                }],
                cache: Vec::new(),
                span,
            },
            share: None,
            body: Box::new(for_stmt),
        },
        span,
    }
}
