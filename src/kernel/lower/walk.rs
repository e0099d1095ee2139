//! Small helpers over the kernel IR: flattening, literals, free names.

use std::collections::BTreeSet;

use crate::diag::Span;
use crate::ir::Poly;
use crate::vocab::{BinOp, Scalar, UnOp};

use super::*;

/// `((s0 * E1 + s1) * E2 + s2)…`
pub(super) fn flatten(subs: Vec<KExpr>, extents: &[KExpr]) -> KExpr {
    let mut it = subs.into_iter();
    let Some(mut acc) = it.next() else {
        return KExpr::int(0);
    };
    for (s, ext) in it.zip(extents.iter()) {
        acc = KExpr::bin(BinOp::Add, KExpr::bin(BinOp::Mul, acc, ext.clone()), s);
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
                Some(t) => KExpr::bin(BinOp::Mul, t, v),
            });
        }
        let Some(mut term) = term else { continue };
        let (neg, abs) = (c < 0, c.unsigned_abs() as i64);
        if abs != 1 {
            term = KExpr::bin(BinOp::Mul, KExpr::int(abs), term);
        }
        acc = Some(match (acc, neg) {
            (None, false) => term,
            (None, true) => KExpr::Unary(UnOp::Neg, Box::new(term)),
            (Some(a), false) => KExpr::bin(BinOp::Add, a, term),
            (Some(a), true) => KExpr::bin(BinOp::Sub, a, term),
        });
    }
    let lit = |v: i64| KExpr::Int(v, if ty == Scalar::Int { Scalar::Int } else { ty });
    match acc {
        None => lit(constant),
        Some(a) if constant == 0 => a,
        Some(a) if constant > 0 => KExpr::bin(BinOp::Add, a, lit(constant)),
        Some(a) => KExpr::bin(BinOp::Sub, a, lit(constant.saturating_neg())),
    }
}

pub(super) fn cast_if(ty: Scalar, e: KExpr) -> KExpr {
    if ty == Scalar::Int {
        e
    } else {
        KExpr::Cast(ty, Box::new(e))
    }
}

pub(super) fn free_names_expr(
    e: &KExpr,
    arrays: &mut BTreeSet<String>,
    vars: &mut BTreeSet<String>,
) {
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

pub(super) fn free_names_stmt(
    s: &KStmt,
    arrays: &mut BTreeSet<String>,
    vars: &mut BTreeSet<String>,
) {
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
        KStmt::Atomic {
            target, capture, ..
        } => {
            free_names_expr(&KExpr::Load(target.clone()), arrays, vars);
            for e in s.atomic_operands().into_iter().skip(1) {
                free_names_expr(e, arrays, vars);
            }
            if let Some(c) = capture {
                vars.insert(c.var.clone());
            }
        }
        KStmt::VecLoad { lanes, src, .. } => {
            free_names_expr(&KExpr::Load(src.clone()), arrays, vars);
            for l in lanes {
                vars.insert(format!("\0decl:{}", l));
            }
        }
        KStmt::VecStore { dst, values, .. } => {
            free_names_expr(&KExpr::Load(dst.clone()), arrays, vars);
            for v in values {
                free_names_expr(v, arrays, vars);
            }
        }
        KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => {}
    }
}

/// A call of C function `f` in a kernel: the math function of that name (region validation
/// lets no other call through, and `acc routine` functions are inlined before), else an error.
pub(super) fn math_call(f: &str, span: Span, args: Vec<KExpr>, errors: &mut Vec<Diag>) -> KExpr {
    match MathFn::from_c_name(f) {
        Some(m) => KExpr::Call(m, args),
        None => {
            errors.push(Diag::error(
                span,
                format!(
                    "call to `{}` inside a compute region: not a math function a kernel can call",
                    f
                ),
            ));
            KExpr::int(0)
        }
    }
}

pub(super) fn expr_uses_double(e: &KExpr) -> bool {
    match e {
        KExpr::Float(_, single) => !single,
        KExpr::Cast(t, a) => *t == Scalar::Double || expr_uses_double(a),
        KExpr::Load(r) => expr_uses_double(&r.index),
        KExpr::Unary(_, a) => expr_uses_double(a),
        KExpr::Binary(_, a, b) => expr_uses_double(a) || expr_uses_double(b),
        KExpr::Cond(a, b, c) => expr_uses_double(a) || expr_uses_double(b) || expr_uses_double(c),
        KExpr::Call(f, args) => {
            // C99 double-precision math functions (`sqrt`, `exp`, …) compute in double.
            f.real_type() == Some(Scalar::Double) || args.iter().any(expr_uses_double)
        }
        KExpr::Var(_) | KExpr::Int(..) | KExpr::Builtin(_) => false,
    }
}

pub(super) fn stmt_uses_double(s: &KStmt) -> bool {
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
        KStmt::Atomic { ty, .. } => {
            *ty == Scalar::Double || s.atomic_operands().into_iter().any(expr_uses_double)
        }
        KStmt::VecLoad { src, .. } => expr_uses_double(&src.index),
        KStmt::VecStore { dst, values, .. } => {
            expr_uses_double(&dst.index) || values.iter().any(expr_uses_double)
        }
        _ => false,
    }
}
