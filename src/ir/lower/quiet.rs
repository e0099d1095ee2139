//! Whether the host code of a `data` construct's body can observe its arrays.
//!
//! A data construct's buffers live while its body runs, and the host code in the body (time
//! loops, scalar bookkeeping between kernels) runs with them. OpenACC's semantics are copies:
//! host code that reads or writes an array element between two kernels sees the host copy, not
//! the device's. Where the device shares host memory, the back end may give a buffer the user's
//! array itself (zero-copy) only if no host code can tell the difference: the body is *quiet*
//! when its host code touches no memory but named scalars. Then only the kernels read and write
//! the arrays while the construct lives, exactly as inside a compute construct.
//!
//! Quiet host code: declarations, expressions, `if`, loops, blocks, `break`, `continue`, `wait`
//! and non-OpenACC pragmas, whose expressions have no subscript, no `*p`, no `->`, and call
//! nothing but the pure functions of `<math.h>` (a user function may touch any array through a
//! global or an alias); compute constructs without an `if` clause (the device runs them); nested
//! data constructs and orphaned `loop`s whose bodies are quiet. Everything else is not: `update`,
//! `enter data` and `exit data` (they exist to move data between the two copies), `host_data`
//! (it hands device addresses to host code), a compute construct with an `if` clause (it may
//! run on the host), `return` (it leaves the construct without its exit), `goto` and `switch`.
//! Pointer assignments (`tmp = a; a = b; b = tmp;`) are quiet: they move no element.

use crate::front::ast::{Declaration, Expr, ExprKind, ForInit, Initializer, Stmt, StmtKind};
use crate::front::pragma_ast::{ClauseKind, Construct};
use crate::vocab::UnOp;

/// The functions a quiet body may call: `<math.h>`'s, which read and write no memory through
/// their arguments (`frexp`, `modf` and the like, which store through a pointer, are not here).
const PURE: &[&str] = &[
    "sqrt", "sqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "log", "logf", "log2",
    "log2f", "log10", "log10f", "pow", "powf", "fabs", "fabsf", "abs", "labs", "sin", "sinf",
    "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2",
    "atan2f", "sinh", "cosh", "tanh", "floor", "floorf", "ceil", "ceilf", "round", "roundf",
    "trunc", "truncf", "fmin", "fminf", "fmax", "fmaxf", "fmod", "fmodf", "hypot", "hypotf",
];

/// Whether the host code of `s` (a data construct's body) touches no memory but named scalars.
pub fn host_code_is_quiet(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Decl(d) => decl(d),
        StmtKind::Expr(e) => expr(e),
        StmtKind::Block(b) => b.stmts.iter().all(host_code_is_quiet),
        StmtKind::If { cond, then, els } => {
            expr(cond) && host_code_is_quiet(then) && els.as_deref().is_none_or(host_code_is_quiet)
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            let init = match init {
                ForInit::None => true,
                ForInit::Decl(d) => decl(d),
                ForInit::Expr(e) => expr(e),
            };
            init && cond.as_ref().is_none_or(expr)
                && step.as_ref().is_none_or(expr)
                && host_code_is_quiet(body)
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr(cond) && host_code_is_quiet(body)
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Empty | StmtKind::Pragma(_) => true,
        StmtKind::Return(_) | StmtKind::Unsupported { .. } => false,
        StmtKind::Acc { dir, body, .. } => {
            if dir.construct.is_compute() {
                !dir.has(|k| matches!(k, ClauseKind::If(_)))
            } else {
                matches!(dir.construct, Construct::Data | Construct::Loop)
                    && host_code_is_quiet(body)
            }
        }
        StmtKind::AccStandalone(dir) => matches!(dir.construct, Construct::Wait),
    }
}

fn decl(d: &Declaration) -> bool {
    d.declarators
        .iter()
        .all(|v| v.init.as_ref().is_none_or(init))
}

fn init(i: &Initializer) -> bool {
    match i {
        Initializer::Expr(e) => expr(e),
        Initializer::List(items, _) => items.iter().all(init),
        Initializer::Designated { init: i, .. } => init(i),
    }
}

fn expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(_)
        | ExprKind::Int { .. }
        | ExprKind::Float { .. }
        | ExprKind::Char(_)
        | ExprKind::Str(_)
        | ExprKind::SizeofType(_)
        | ExprKind::SizeofExpr(_) => true,
        ExprKind::Unary(UnOp::Deref, _) | ExprKind::Index(..) | ExprKind::IndirectCall(..) => false,
        ExprKind::Member { base, arrow, .. } => !arrow && expr(base),
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::IncDec { arg: a, .. } => expr(a),
        ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) | ExprKind::Comma(a, b) => {
            expr(a) && expr(b)
        }
        ExprKind::Cond(a, b, c) => expr(a) && expr(b) && expr(c),
        ExprKind::Call(f, args) => PURE.contains(&f.name.as_str()) && args.iter().all(expr),
        ExprKind::CompoundLit(_, items) => items.iter().all(init),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the body of the `data` construct in `body` (code of a function) is quiet.
    fn quiet(body: &str) -> bool {
        let src = format!(
            "#include <stdio.h>\n#include <math.h>\n\
             void f(int n, float *a, float *b) {{ int t; float s; float *tmp;\n\
             #pragma acc data copy(a[0:n]) create(b[0:n])\n{{ {} }} }}\n",
            body
        );
        let f = super::super::parse_function(&src);
        let data = f
            .body
            .stmts
            .iter()
            .find_map(|s| match &s.kind {
                StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Data => Some(body),
                _ => None,
            })
            .expect("a data construct");
        host_code_is_quiet(data)
    }

    #[test]
    fn kernels_loops_and_scalars_are_quiet() {
        assert!(quiet(
            "for (t = 0; t < 10; t++) {\n#pragma acc parallel loop\n\
             for (int i = 0; i < n; i++) b[i] = a[i];\n\
             s = sqrtf(s + 1.0f); tmp = a; a = b; b = tmp; }"
        ));
    }

    #[test]
    fn element_access_calls_and_updates_are_not() {
        assert!(!quiet("s = a[0];"));
        assert!(!quiet("*b = 1.0f;"));
        assert!(!quiet("printf(\"%f\", s);"));
        assert!(!quiet("\n#pragma acc update host(a[0:n])\n"));
        assert!(!quiet("if (s > 0) return;"));
        assert!(!quiet(
            "\n#pragma acc parallel loop if(n > 100)\nfor (int i = 0; i < n; i++) b[i] = 0;"
        ));
    }
}
