//! The statements of `#pragma acc atomic` (OpenACC 3.3 §2.12) that accshare compiles, recognized
//! once here for the validator (which reports the others with their location), the IR lowering
//! and the kernel lowering.
//!
//! - `update` (the default): `x++`, `x--`, `++x`, `--x`, `x op= e`, `x = x op e`, `x = e op x`,
//!   with `op` one of `+ - * / & | ^ << >>` and `e` not reading `x`;
//! - `read`: `v = x;` — `write`: `x = e;`;
//! - `capture`: `v = x++;` (and the other increments), `v = x op= e;`, `v = x = x op e;`, or a
//!   block of two statements `{v = x; upd;}` / `{upd; v = x;}` where `upd` is an update or a
//!   write of `x`.
//!
//! `x` is an array element (`a[i]`, `a[k][j]`, `*p`) or a scalar; `v` an lvalue other than `x`.
//!
//! Minimum and maximum (OpenACC 3.x's `x = min(x, e)`, which C spells) are updates too:
//! `x = x < e ? x : e` and the other orders of a conditional that picks `x` or `e` by comparing
//! them (`<`, `>`, `<=`, `>=`), `x = fminf(x, e)` / `fmaxf` / `fmin` / `fmax` (either argument
//! order), and `if (e > x) x = e;` / `if (x < e) x = e;` (and `<`, `<=`, `>=`). They are
//! [`AtomicUpdate::Op`] with a comparison as `op`: `x = x op e ? x : e` (`reversed`:
//! `x = e op x ? e : x`), which is what the conditional computes; `fminf(x, e)` is taken as
//! `e < x ? e : x` (the same unless `x` is a NaN).

use crate::diag::{Diag, Span};
use crate::front::ast::{BinOp, Expr, ExprKind, IntSuffix, Stmt, StmtKind, UnOp};
use crate::front::pragma::expr_to_c;
use crate::front::pragma_ast::AtomicKind;

/// What an atomic statement does to its location `x` (the syntax tree's expressions).
pub type AtomicUpdate = crate::vocab::AtomicUpdate<Expr>;

/// One recognized atomic statement.
pub type AtomicForm = crate::vocab::AtomicForm<Expr>;

/// The operators of OpenACC's atomic update.
pub fn is_atomic_op(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
            | BinOp::Shl
            | BinOp::Shr
    )
}

fn commutative(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
    )
}

/// An lvalue an atomic construct can name: a variable, an array element or `*p`.
pub fn is_location(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(_) => true,
        ExprKind::Index(b, _) => is_location(b),
        ExprKind::Unary(UnOp::Deref, a) => matches!(a.kind, ExprKind::Ident(_)),
        _ => false,
    }
}

/// `a` and `b` are the same lvalue (the same text).
fn same(a: &Expr, b: &Expr) -> bool {
    expr_to_c(a) == expr_to_c(b)
}

/// `e` reads the lvalue `x` somewhere.
fn mentions(e: &Expr, x: &Expr) -> bool {
    if same(e, x) {
        return true;
    }
    let text = expr_to_c(e);
    let xt = expr_to_c(x);
    // Sub-expressions are substrings of the text; a match at identifier boundaries is a use.
    let bytes = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut from = 0;
    while let Some(i) = text[from..].find(&xt) {
        let at = from + i;
        let end = at + xt.len();
        let before = at == 0 || !ident(bytes[at - 1]);
        let after = end >= bytes.len() || !(ident(bytes[end]) || bytes[end] == b'[');
        if before && after {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `1` at the span of `e` (the value of `x++`).
fn one(span: Span) -> Expr {
    Expr::new(
        ExprKind::Int {
            value: 1,
            suffix: IntSuffix::default(),
            radix: 10,
        },
        span,
    )
}

/// An update expression: its location, the update, and whether its value is the new value of
/// `x` (`++x`, `x += e`) or the old one (`x++`).
fn update_expr(e: &Expr) -> Result<(Expr, AtomicUpdate, bool), Diag> {
    match &e.kind {
        ExprKind::IncDec { inc, prefix, arg } if is_location(arg) => Ok((
            (**arg).clone(),
            AtomicUpdate::Op {
                op: if *inc { BinOp::Add } else { BinOp::Sub },
                value: one(e.span),
                reversed: false,
            },
            *prefix,
        )),
        ExprKind::Assign(Some(op), x, value) if is_location(x) => {
            if !is_atomic_op(*op) {
                return Err(bad_op(e.span, op.c_op()));
            }
            reads_x(value, x)?;
            Ok((
                (**x).clone(),
                AtomicUpdate::Op {
                    op: *op,
                    value: (**value).clone(),
                    reversed: false,
                },
                true,
            ))
        }
        ExprKind::Assign(None, x, rhs) if is_location(x) && min_max(x, rhs).is_some() => {
            let Some((op, value, reversed)) = min_max(x, rhs) else {
                unreachable!("checked by the guard")
            };
            reads_x(value, x)?;
            Ok((
                (**x).clone(),
                AtomicUpdate::Op {
                    op,
                    value: value.clone(),
                    reversed,
                },
                true,
            ))
        }
        ExprKind::Assign(None, x, rhs) if is_location(x) => match &rhs.kind {
            ExprKind::Binary(op, a, b) if same(a, x) || same(b, x) => {
                if !is_atomic_op(*op) {
                    return Err(bad_op(rhs.span, op.c_op()));
                }
                let (value, reversed) = if same(a, x) {
                    (b, false)
                } else {
                    (a, !commutative(*op))
                };
                reads_x(value, x)?;
                Ok((
                    (**x).clone(),
                    AtomicUpdate::Op {
                        op: *op,
                        value: (**value).clone(),
                        reversed,
                    },
                    true,
                ))
            }
            ExprKind::Call(f, args) if args.iter().any(|a| same(a, x)) => {
                Err(bad_op(rhs.span, &f.name))
            }
            _ if mentions(rhs, x) => Err(unsupported(
                e.span,
                AtomicKind::Update,
                "`x` must be one operand of the operator, or of a minimum or maximum (`x = x < e ? x : e`)",
            )),
            _ => Ok(((**x).clone(), AtomicUpdate::Write((**rhs).clone()), true)),
        },
        _ => Err(unsupported(
            e.span,
            AtomicKind::Update,
            "expected `x++`, `x--`, `x op= e`, `x = x op e` or `x = e op x`",
        )),
    }
}

/// A comparison that can pick a minimum or a maximum.
fn is_comparison(op: BinOp) -> bool {
    matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge)
}

/// The comparison that holds when its operands are swapped (`a < b` is `b > a`).
fn swapped(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Gt => BinOp::Lt,
        BinOp::Le => BinOp::Ge,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// `rhs` of `x = rhs` as a minimum or maximum of `x` and a value: `(op, value, reversed)` of
/// [`AtomicUpdate::Op`], meaning `x = x op value ? x : value` (`reversed`: `value op x ? value :
/// x`). Takes `c ? x : e` / `c ? e : x` with `c` comparing `x` and `e` in either order, and
/// `fmin`/`fminf`/`fmax`/`fmaxf` of `x` and `e`.
fn min_max<'e>(x: &Expr, rhs: &'e Expr) -> Option<(BinOp, &'e Expr, bool)> {
    match &rhs.kind {
        ExprKind::Cond(c, t, f) => {
            let ExprKind::Binary(op, a, b) = &c.kind else {
                return None;
            };
            if !is_comparison(*op) {
                return None;
            }
            // Written as `l op r ? l : r` (with `l`, `r` the operands of the comparison), or
            // `l op r ? r : l`, which is `r swapped(op) l ? r : l`.
            let (op, first, second) = if same(t, a) && same(f, b) {
                (*op, &**a, &**b)
            } else if same(t, b) && same(f, a) {
                (swapped(*op), &**b, &**a)
            } else {
                return None;
            };
            if same(first, x) && !mentions(second, x) {
                Some((op, second, false))
            } else if same(second, x) && !mentions(first, x) {
                Some((op, first, true))
            } else {
                None
            }
        }
        ExprKind::Call(f, args) if args.len() == 2 => {
            let op = match f.name.as_str() {
                "fmin" | "fminf" => BinOp::Lt,
                "fmax" | "fmaxf" => BinOp::Gt,
                _ => return None,
            };
            let value = if same(&args[0], x) {
                &args[1]
            } else if same(&args[1], x) {
                &args[0]
            } else {
                return None;
            };
            // `fminf(x, e)` keeps `x` unless `e` is smaller: `e < x ? e : x`.
            (!mentions(value, x)).then_some((op, value, true))
        }
        _ => None,
    }
}

/// `if (c) x = e;` with `c` comparing `x` and `e`: the update `x = c ? e : x`, as
/// [`min_max`] reads it.
fn conditional_update(s: &Stmt) -> Option<(Expr, AtomicUpdate)> {
    let StmtKind::If {
        cond,
        then,
        els: None,
    } = &s.kind
    else {
        return None;
    };
    let assign = match &then.kind {
        StmtKind::Expr(e) => e,
        StmtKind::Block(b) if b.stmts.len() == 1 => match &b.stmts[0].kind {
            StmtKind::Expr(e) => e,
            _ => return None,
        },
        _ => return None,
    };
    let ExprKind::Assign(None, x, e) = &assign.kind else {
        return None;
    };
    if !is_location(x) {
        return None;
    }
    let rhs = Expr::new(
        ExprKind::Cond(Box::new(cond.clone()), e.clone(), x.clone()),
        assign.span,
    );
    let (op, value, reversed) = min_max(x, &rhs)?;
    Some((
        (**x).clone(),
        AtomicUpdate::Op {
            op,
            value: value.clone(),
            reversed,
        },
    ))
}

fn reads_x(value: &Expr, x: &Expr) -> Result<(), Diag> {
    if mentions(value, x) {
        return Err(Diag::error(
            value.span,
            format!(
                "the operand of an atomic update reads `{}` again",
                expr_to_c(x)
            ),
        )
        .label("reads the location the construct updates")
        .note(
            "OpenACC's atomic update reads the location once: `x op= e` with `e` not reading `x`",
        ));
    }
    Ok(())
}

fn bad_op(span: Span, op: &str) -> Diag {
    Diag::error(
        span,
        format!("`{}` is not an operator of `#pragma acc atomic update`", op),
    )
    .label("not an atomic operation")
    .note("OpenACC's atomic update is `x op= e`, `x = x op e`, `x = e op x`, `x++`, `x--`, `++x` or `--x`, with `op` one of `+ - * / & | ^ << >>`, or a minimum or maximum: `x = x < e ? x : e`, `x = fmaxf(x, e)`, `if (e > x) x = e;`")
}

fn unsupported(span: Span, kind: AtomicKind, expected: &str) -> Diag {
    Diag::error(
        span,
        format!(
            "this statement is not a form of `#pragma acc atomic {}`",
            kind.name()
        ),
    )
    .label(expected.to_string())
}

/// The expression statements of an atomic construct's body (a statement, or a block of them).
fn expressions(body: &Stmt) -> Option<Vec<&Expr>> {
    match &body.kind {
        StmtKind::Expr(e) => Some(vec![e]),
        StmtKind::Block(b) => b
            .stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Expr(e) => Some(e),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `v = x` with both lvalues: (`v`, `x`).
fn plain_copy(e: &Expr) -> Option<(&Expr, &Expr)> {
    match &e.kind {
        ExprKind::Assign(None, v, x) if is_location(v) && is_location(x) && !same(v, x) => {
            Some((v, x))
        }
        _ => None,
    }
}

/// Recognizes the statement of an `atomic` construct of kind `kind`.
pub fn atomic_form(kind: AtomicKind, body: &Stmt) -> Result<AtomicForm, Diag> {
    if kind == AtomicKind::Update {
        let one = match &body.kind {
            StmtKind::Block(b) if b.stmts.len() == 1 => &b.stmts[0],
            _ => body,
        };
        if let Some((x, update)) = conditional_update(one) {
            return Ok(AtomicForm {
                kind,
                x,
                update,
                capture: None,
            });
        }
    }
    let Some(exprs) = expressions(body) else {
        return Err(unsupported(
            body.span,
            kind,
            "an atomic construct applies to one expression statement",
        ));
    };
    let whole = body.span;
    match (kind, exprs.as_slice()) {
        (AtomicKind::Read, [e]) => read_form(e),
        (AtomicKind::Write, [e]) => write_form(e),
        (AtomicKind::Update, [e]) => update_form(e),
        (AtomicKind::Capture, [e]) => capture_form(e),
        (AtomicKind::Capture, [a, b]) => capture_block_form(a, b, whole),
        _ => Err(unsupported(
            whole,
            kind,
            if kind == AtomicKind::Capture {
                "a block of an atomic capture holds two statements"
            } else {
                "an atomic construct applies to one expression statement"
            },
        )),
    }
}

/// `atomic read`: `v = x;`.
fn read_form(e: &Expr) -> Result<AtomicForm, Diag> {
    let kind = AtomicKind::Read;
    match plain_copy(e) {
        Some((v, x)) => Ok(AtomicForm {
            kind,
            x: x.clone(),
            update: AtomicUpdate::Read,
            capture: Some((v.clone(), false)),
        }),
        None => Err(unsupported(
            e.span,
            kind,
            "expected `v = x;` with `x` a variable or an array element",
        )),
    }
}

/// `atomic write`: `x = e;`, with `e` not reading `x`.
fn write_form(e: &Expr) -> Result<AtomicForm, Diag> {
    let kind = AtomicKind::Write;
    match &e.kind {
        ExprKind::Assign(None, x, value) if is_location(x) => {
            if mentions(value, x) {
                return Err(unsupported(
                    e.span,
                    kind,
                    "the value of an atomic write must not read `x` (use `atomic update`)",
                ));
            }
            Ok(AtomicForm {
                kind,
                x: (**x).clone(),
                update: AtomicUpdate::Write((**value).clone()),
                capture: None,
            })
        }
        _ => Err(unsupported(e.span, kind, "expected `x = e;`")),
    }
}

/// `atomic update`: an update expression of `x` that reads it.
fn update_form(e: &Expr) -> Result<AtomicForm, Diag> {
    let kind = AtomicKind::Update;
    let (x, update, _) = update_expr(e)?;
    if matches!(update, AtomicUpdate::Write(_)) {
        return Err(unsupported(
            e.span,
            kind,
            "this assignment does not read `x`: it is an `atomic write`",
        ));
    }
    Ok(AtomicForm {
        kind,
        x,
        update,
        capture: None,
    })
}

/// `atomic capture` of one statement: `v = x++;`, `v = x op= e;` and the like.
fn capture_form(e: &Expr) -> Result<AtomicForm, Diag> {
    let kind = AtomicKind::Capture;
    let (v, rhs) = match &e.kind {
        ExprKind::Assign(None, v, rhs)
            if is_location(v) && !matches!(rhs.kind, ExprKind::Ident(_) | ExprKind::Index(..)) =>
        {
            (v, rhs)
        }
        _ => {
            return Err(unsupported(
                e.span,
                kind,
                "expected `v = x++;`, `v = x op= e;` or a block `{v = x; x op= e;}`",
            ))
        }
    };
    let not_update = || {
        unsupported(
            rhs.span,
            kind,
            "expected `x++`, `x--`, `++x`, `--x` or `x op= e` after `v =`",
        )
    };
    let (x, update, after) = update_expr(rhs).map_err(|_| not_update())?;
    if matches!(update, AtomicUpdate::Write(_)) || same(v, &x) {
        return Err(not_update());
    }
    Ok(AtomicForm {
        kind,
        x,
        update,
        capture: Some(((**v).clone(), after)),
    })
}

/// `atomic capture` of a block of two statements `a` and `b` (`whole`): `{v = x; upd;}` (the
/// value before) or `{upd; v = x;}` (the value after).
fn capture_block_form(a: &Expr, b: &Expr, whole: Span) -> Result<AtomicForm, Diag> {
    let kind = AtomicKind::Capture;
    let try_order = |copy: &Expr, upd: &Expr, after: bool| {
        let (v, x) = plain_copy(copy)?;
        let (ux, update, _) = update_expr(upd).ok()?;
        (same(&ux, x) && !same(v, x) && !mentions(v, x)).then(|| AtomicForm {
            kind,
            x: ux,
            update,
            capture: Some((v.clone(), after)),
        })
    };
    if let Some(f) = try_order(a, b, false).or_else(|| try_order(b, a, true)) {
        return Ok(f);
    }
    // A copy and an update of two different locations.
    for (copy, upd) in [(a, b), (b, a)] {
        if let (Some((_, x)), Ok((ux, _, _))) = (plain_copy(copy), update_expr(upd)) {
            if !same(x, &ux) {
                return Err(Diag::error(
                    ux.span,
                    "the two statements of this `atomic capture` name different locations",
                )
                .label(format!("updates `{}`", expr_to_c(&ux)))
                .with_label(x.span, format!("reads `{}`", expr_to_c(x)))
                .note("an atomic capture reads and updates one location: `{v = x; x op= e;}` or `{x op= e; v = x;}`"));
            }
        }
    }
    Err(unsupported(
        whole,
        kind,
        "expected `{v = x; x op= e;}` or `{x op= e; v = x;}` on the same `x`",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diags, SourceMap};
    use crate::front::ast::ItemKind;
    use crate::front::parser::parse_translation_unit;
    use crate::front::preprocess::{preprocess, PpOptions};

    /// The first statement of a function whose body is `src`.
    fn stmt(src: &str) -> Stmt {
        let mut sources = SourceMap::new();
        let f = sources.add(
            "t.c",
            std::path::PathBuf::from("t.c"),
            format!("void f(void) {{ {src} }}\n"),
        );
        let mut diags = Diags::new();
        let pp = preprocess(&mut sources, f, &PpOptions::default(), &mut diags);
        let tu = parse_translation_unit(&pp, &sources, &mut diags);
        match &tu.items[0].kind {
            ItemKind::Function(f) => f.body.stmts[0].clone(),
            k => panic!("{k:?}"),
        }
    }

    fn form(kind: AtomicKind, src: &str) -> Result<AtomicForm, String> {
        atomic_form(kind, &stmt(src)).map_err(|d| d.message.clone())
    }

    fn op_of(f: &AtomicForm) -> (BinOp, String, bool) {
        match &f.update {
            AtomicUpdate::Op {
                op,
                value,
                reversed,
            } => (*op, expr_to_c(value), *reversed),
            u => panic!("not an update: {u:?}"),
        }
    }

    #[test]
    fn update_forms() {
        let u = AtomicKind::Update;
        for (src, x, op, value, reversed) in [
            ("h[k[i]]++;", "h[k[i]]", BinOp::Add, "1", false),
            ("--c;", "c", BinOp::Sub, "1", false),
            ("a[i] += w[i] * 2;", "a[i]", BinOp::Add, "w[i] * 2", false),
            ("a[i] = a[i] * s;", "a[i]", BinOp::Mul, "s", false),
            ("a[i] = s + a[i];", "a[i]", BinOp::Add, "s", false),
            ("a[i] = s - a[i];", "a[i]", BinOp::Sub, "s", true),
            ("m[j] = m[j] ^ bits;", "m[j]", BinOp::BitXor, "bits", false),
            ("*p <<= 2;", "*p", BinOp::Shl, "2", false),
            // Minimum and maximum: `x = x op e ? x : e` (reversed: `e op x ? e : x`).
            ("m[j] = m[j] < e ? m[j] : e;", "m[j]", BinOp::Lt, "e", false),
            ("m[j] = e > m[j] ? e : m[j];", "m[j]", BinOp::Gt, "e", true),
            ("m[j] = m[j] < e ? e : m[j];", "m[j]", BinOp::Gt, "e", true),
            (
                "m[j] = e <= m[j] ? m[j] : e;",
                "m[j]",
                BinOp::Ge,
                "e",
                false,
            ),
            ("x = fmaxf(x, w[i]);", "x", BinOp::Gt, "w[i]", true),
            ("x = fmin(w[i] * 2, x);", "x", BinOp::Lt, "w[i] * 2", true),
            ("if (e > m[j]) m[j] = e;", "m[j]", BinOp::Gt, "e", true),
            ("if (m[j] < e) { m[j] = e; }", "m[j]", BinOp::Gt, "e", true),
            ("if (m[j] > e) m[j] = e;", "m[j]", BinOp::Lt, "e", true),
        ] {
            let f = form(u, src).unwrap();
            assert_eq!(expr_to_c(&f.x), x, "{src}");
            assert_eq!(op_of(&f), (op, value.to_string(), reversed), "{src}");
            assert!(f.capture.is_none());
        }
    }

    #[test]
    fn refused_update_forms_say_why() {
        let u = AtomicKind::Update;
        assert_eq!(
            form(u, "x = pow(x, e);").unwrap_err(),
            "`pow` is not an operator of `#pragma acc atomic update`"
        );
        // Not a minimum or maximum: the other branch is not the compared value, the condition
        // reads `x` in the value, an `else`.
        for src in [
            "x = x > e ? x : 0;",
            "x = x > e + x ? x : e + x;",
            "if (e > x) x = e; else x = 0;",
            "if (e > x) x = 2 * e;",
        ] {
            assert!(form(u, src).is_err(), "{src}");
        }
        assert_eq!(
            form(u, "x %= 3;").unwrap_err(),
            "`%` is not an operator of `#pragma acc atomic update`"
        );
        assert_eq!(
            form(u, "a[i] += a[i];").unwrap_err(),
            "the operand of an atomic update reads `a[i]` again"
        );
        assert_eq!(
            form(u, "x = 3;").unwrap_err(),
            "this statement is not a form of `#pragma acc atomic update`"
        );
        assert_eq!(
            form(u, "if (x) x++;").unwrap_err(),
            "this statement is not a form of `#pragma acc atomic update`"
        );
        assert!(form(u, "x = x + 1 + y;").is_err());
    }

    #[test]
    fn read_write_and_capture_forms() {
        let f = form(AtomicKind::Read, "v = a[i];").unwrap();
        assert_eq!(f.update, AtomicUpdate::Read);
        assert_eq!(expr_to_c(&f.capture.unwrap().0), "v");
        let f = form(AtomicKind::Write, "a[i] = v + 1;").unwrap();
        assert!(matches!(f.update, AtomicUpdate::Write(_)));
        assert!(form(AtomicKind::Write, "a[i] = a[i] + 1;").is_err());
        assert!(form(AtomicKind::Read, "v = a[i] + 1;").is_err());

        let c = AtomicKind::Capture;
        for (src, x, after) in [
            ("v = n[k]++;", "n[k]", false),
            ("v = ++n[k];", "n[k]", true),
            ("v = n[k] += 4;", "n[k]", true),
            ("{ v = n[k]; n[k] += 4; }", "n[k]", false),
            ("{ n[k] = n[k] * 2; out[i] = n[k]; }", "n[k]", true),
            ("{ v = c; c = 7; }", "c", false),
        ] {
            let f = form(c, src).unwrap();
            assert_eq!(expr_to_c(&f.x), x, "{src}");
            assert_eq!(f.capture.as_ref().map(|c| c.1), Some(after), "{src}");
        }
        assert_eq!(
            form(c, "{ v = n[k]; m[k] += 4; }").unwrap_err(),
            "the two statements of this `atomic capture` name different locations"
        );
        for src in [
            "v = n[k];",
            "{ v = n[k]; n[k] = pow(n[k], 2); }",
            "{ v = n[k]; n[k]++; w = 1; }",
            "n[k]++;",
        ] {
            assert_eq!(
                form(c, src).unwrap_err(),
                "this statement is not a form of `#pragma acc atomic capture`",
                "{src}"
            );
        }
        // The location of the update: `v` gets `x`, not the other way round.
        let f = form(c, "{ v = n[k]; n[k]--; }").unwrap();
        assert!(matches!(f.x.kind, ExprKind::Index(..)));
    }
}
