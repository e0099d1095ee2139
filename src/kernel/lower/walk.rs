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

/// The free names of `e`: the global arrays it reads into `arrays`, its scalars and the names
/// of its other arrays (`names` holds the kernel's arrays) into `vars`.
pub(super) fn free_names_expr(
    e: &KExpr,
    names: &Arena<KArray>,
    arrays: &mut BTreeSet<Handle<KArray>>,
    vars: &mut BTreeSet<String>,
) {
    match e {
        KExpr::Var(v) => {
            vars.insert(v.clone());
        }
        KExpr::Load(r) => {
            if r.space == Space::Global {
                arrays.insert(r.array);
            } else {
                vars.insert(names[r.array].name.clone());
            }
        }
        _ => {}
    }
    e.for_each_child(&mut |c| free_names_expr(c, names, arrays, vars));
}

pub(super) fn free_names_stmt(
    s: &KStmt,
    names: &Arena<KArray>,
    arrays: &mut BTreeSet<Handle<KArray>>,
    vars: &mut BTreeSet<String>,
) {
    let all = |v: &[KStmt], arrays: &mut BTreeSet<Handle<KArray>>, vars: &mut BTreeSet<String>| {
        v.iter()
            .for_each(|s| free_names_stmt(s, names, arrays, vars))
    };
    match s {
        KStmt::Decl { name, init, .. } => {
            if let Some(e) = init {
                free_names_expr(e, names, arrays, vars);
            }
            // Declared in the kernel: never a parameter (names are unique per kernel scope
            // chain in the code the lowering produces).
            vars.insert(format!("\0decl:{}", name));
        }
        KStmt::DeclArray(a) => {
            vars.insert(format!("\0decl:{}", names[*a].name));
        }
        KStmt::Assign { target, value, .. } => {
            match target {
                LValue::Var(v) => {
                    vars.insert(v.clone());
                }
                LValue::Elem(r) => free_names_expr(&KExpr::Load(r.clone()), names, arrays, vars),
            }
            free_names_expr(value, names, arrays, vars);
        }
        KStmt::Expr(e) => free_names_expr(e, names, arrays, vars),
        KStmt::If { cond, then, els } => {
            free_names_expr(cond, names, arrays, vars);
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
                free_names_expr(c, names, arrays, vars);
            }
            all(step, arrays, vars);
            all(body, arrays, vars);
        }
        KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
            free_names_expr(cond, names, arrays, vars);
            all(body, arrays, vars);
        }
        KStmt::Block(b) => all(b, arrays, vars),
        KStmt::Atomic {
            target, capture, ..
        } => {
            free_names_expr(&KExpr::Load(target.clone()), names, arrays, vars);
            for e in s.atomic_operands().into_iter().skip(1) {
                free_names_expr(e, names, arrays, vars);
            }
            if let Some(c) = capture {
                vars.insert(c.var.clone());
            }
        }
        KStmt::VecLoad { lanes, src, .. } => {
            free_names_expr(&KExpr::Load(src.clone()), names, arrays, vars);
            for l in lanes {
                vars.insert(format!("\0decl:{}", l));
            }
        }
        KStmt::VecStore { dst, values, .. } => {
            free_names_expr(&KExpr::Load(dst.clone()), names, arrays, vars);
            for v in values {
                free_names_expr(v, names, arrays, vars);
            }
        }
        KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => {}
    }
}

/// A call of C function `f` in a kernel: the math function of that name (region validation
/// lets no other call through, and `acc routine` functions are inlined before), else an error.
pub(super) fn math_call(f: &str, span: Span, args: Vec<KExpr>, errors: &mut Vec<Diag>) -> KExpr {
    match MathFn::from_c_name(f) {
        Some(m) => crate::kernel::math::call(m, args),
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
    e.any(&|x| match x {
        KExpr::Float(_, single) => !single,
        KExpr::Cast(t, _) => *t == Scalar::Double,
        // C99 double-precision math functions (`sqrt`, `exp`, …) compute in double.
        KExpr::Call(f, _) => f.real_type() == Some(Scalar::Double),
        _ => false,
    })
}

pub(super) fn stmt_uses_double(s: &KStmt) -> bool {
    let typed_double = s.any(&|t| {
        matches!(
            t,
            KStmt::Decl {
                ty: Scalar::Double,
                ..
            } | KStmt::Atomic {
                ty: Scalar::Double,
                ..
            }
        )
    });
    let mut found = typed_double;
    s.walk_exprs(&mut |e| found = found || expr_uses_double(e));
    found
}
/// Hoists the declarations of `pre` (statements that run under a guard) into `hoisted`, for
/// every work-item to declare them, and returns what still runs under the guard: the other
/// statements, and the declarations' values as assignments, in order. With `keep_constants` a
/// literal value (it reads nothing) stays on its declaration. `taken` holds the names already
/// declared where the declarations go; `Err` names one `pre` would declare again.
pub(super) fn hoist_decls(
    pre: impl IntoIterator<Item = KStmt>,
    names: &Arena<KArray>,
    taken: &mut BTreeSet<String>,
    keep_constants: bool,
    hoisted: &mut Vec<KStmt>,
) -> Result<Vec<KStmt>, String> {
    let mut guarded = Vec::new();
    for s in pre {
        match s {
            KStmt::DeclArray(a) => {
                if !taken.insert(names[a].name.clone()) {
                    return Err(names[a].name.clone());
                }
                hoisted.push(KStmt::DeclArray(a));
            }
            KStmt::Decl { name, ty, init } => {
                if !taken.insert(name.clone()) {
                    return Err(name);
                }
                let constant =
                    keep_constants && matches!(init, Some(KExpr::Int(..) | KExpr::Float(..)));
                hoisted.push(KStmt::Decl {
                    name: name.clone(),
                    ty,
                    init: if constant { init.clone() } else { None },
                });
                if let (Some(v), false) = (init, constant) {
                    guarded.push(KStmt::Assign {
                        target: LValue::Var(name),
                        op: None,
                        value: v,
                    });
                }
            }
            other => guarded.push(other),
        }
    }
    Ok(guarded)
}
