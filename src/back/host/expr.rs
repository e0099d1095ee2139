//! Host expressions ([`HostExpr`]) as C: the counts, launch sizes and scalar arguments the host
//! code computes in the user's function.

use crate::ir::expr::{SizeOf, TypeName};
use crate::ir::{Expr, Exprs, Handle};
use crate::kernel::{HostExpr, HostOp};
use crate::vocab::{Scalar, UnOp};

/// C text of `e`, with the parentheses C's precedence needs (and those around the user's own
/// expressions, whatever they are).
pub fn host_expr(e: &HostExpr) -> String {
    let mut out = String::new();
    write(&mut out, e);
    out
}

/// Binding strength: 2 for `*` `/`, 1 for `+` `-`, 3 for what never needs parentheses.
fn prec(e: &HostExpr) -> u8 {
    match e {
        HostExpr::Bin(HostOp::Mul | HostOp::Div, ..) => 2,
        HostExpr::Bin(HostOp::Add | HostOp::Sub, ..) => 1,
        HostExpr::Int(v) if *v < 0 => 0,
        _ => 3,
    }
}

fn write(out: &mut String, e: &HostExpr) {
    match e {
        HostExpr::Int(v) => out.push_str(&v.to_string()),
        HostExpr::Var(n) => out.push_str(n),
        HostExpr::Ir(d) => match &d.exprs[d.root] {
            Expr::Var(_) | Expr::Int { .. } => out.push_str(&print_ir(&d.exprs, d.root)),
            _ => {
                out.push('(');
                out.push_str(&print_ir(&d.exprs, d.root));
                out.push(')');
            }
        },
        HostExpr::Long(x) => {
            out.push_str("((long)");
            paren(out, x, true);
            out.push(')');
        }
        HostExpr::Bin(op, a, b) => {
            let p = prec(e);
            // Left-associative: the right operand needs parentheses at equal strength too.
            paren(out, a, prec(a) < p);
            out.push_str(match op {
                HostOp::Add => " + ",
                HostOp::Sub => " - ",
                HostOp::Mul => " * ",
                HostOp::Div => " / ",
            });
            paren(out, b, prec(b) <= p);
        }
        HostExpr::Max(a, b) => {
            out.push('(');
            paren(out, a, true);
            out.push_str(" > ");
            paren(out, b, true);
            out.push_str(" ? ");
            paren(out, a, true);
            out.push_str(" : ");
            paren(out, b, true);
            out.push(')');
        }
    }
}

fn paren(out: &mut String, e: &HostExpr, needed: bool) {
    if needed && prec(e) < 3 {
        out.push('(');
        write(out, e);
        out.push(')');
    } else {
        write(out, e);
    }
}

/// C text of the IR's expression `e` of `exprs`, with the parentheses C's precedence needs and
/// those `gcc -Wparentheses` asks for (as the front end prints the user's expressions). Only
/// expressions the IR holds whole are given here ([`Exprs::printable`]); a part it does not hold
/// prints as `0`.
pub fn print_ir(exprs: &Exprs, e: Handle<Expr>) -> String {
    let mut out = String::new();
    IrC { exprs }.write(&mut out, e, 0);
    out
}

/// A declaration of `name` (empty: the type name of a cast) with type `t`, as C writes it
/// (`const float *`, `struct s *restrict`, `double (*a)[8]`), as the front end prints the
/// user's types.
pub fn type_to_c(t: &TypeName, name: &str) -> String {
    let mut decl = name.to_string();
    let mut t = t;
    // Constness that applies to the next base type (`const float`).
    let mut leading_const = false;
    loop {
        match t {
            TypeName::Const(inner) => {
                if matches!(**inner, TypeName::Pointer { .. }) {
                    // `T *const p`.
                    decl = format!("const {decl}").trim_end().to_string();
                } else {
                    leading_const = true;
                }
                t = inner;
            }
            TypeName::Pointer {
                to,
                is_const,
                is_restrict,
            } => {
                let mut p = String::from("*");
                if *is_const {
                    p.push_str("const");
                }
                if *is_restrict {
                    if *is_const {
                        p.push(' ');
                    }
                    p.push_str("restrict");
                }
                if !decl.is_empty() {
                    if p.len() > 1 {
                        p.push(' ');
                    }
                    p.push_str(&decl);
                }
                decl = p;
                if matches!(strip_const(to), TypeName::Array { .. }) {
                    decl = format!("({decl})");
                }
                t = to;
            }
            TypeName::Array { elem, len } => {
                decl.push('[');
                if let Some(len) = len {
                    decl.push_str(&print_ir(&len.exprs, len.root));
                }
                decl.push(']');
                t = elem;
            }
            base => {
                let base = match base {
                    TypeName::Void => "void".to_string(),
                    TypeName::Scalar(s) => s.c_name().to_string(),
                    TypeName::Named(n) => n.clone(),
                    TypeName::Tagged { keyword, tag } => format!("{keyword} {tag}"),
                    TypeName::Pointer { .. } | TypeName::Const(_) | TypeName::Array { .. } => {
                        String::new()
                    }
                };
                let base = if leading_const {
                    format!("const {base}")
                } else {
                    base
                };
                return if decl.is_empty() {
                    base
                } else {
                    format!("{base} {decl}")
                };
            }
        }
    }
}

/// `t` without the `const`s at its top.
fn strip_const(t: &TypeName) -> &TypeName {
    match t {
        TypeName::Const(i) => strip_const(i),
        t => t,
    }
}

/// Precedence levels (higher binds tighter), as C has them.
const P_COMMA: u8 = 1;
const P_ASSIGN: u8 = 2;
const P_COND: u8 = 3;
const P_UNARY: u8 = 15;
const P_POSTFIX: u8 = 16;
const P_ATOM: u8 = 17;

/// The C suffix of an integer constant of type `ty`.
fn int_suffix(ty: Scalar) -> &'static str {
    match ty {
        Scalar::UInt => "u",
        Scalar::Long => "l",
        Scalar::ULong | Scalar::SizeT => "ul",
        Scalar::LongLong => "ll",
        Scalar::ULongLong => "ull",
        _ => "",
    }
}

struct IrC<'a> {
    exprs: &'a Exprs,
}

impl IrC<'_> {
    fn prec(&self, e: Handle<Expr>) -> u8 {
        match &self.exprs[e] {
            Expr::Int { value, ty } if ty.is_signed() && (*value as i64) < 0 => P_UNARY,
            Expr::Float { value, .. } if value.is_sign_negative() && !value.is_nan() => P_UNARY,
            Expr::Var(_)
            | Expr::Int { .. }
            | Expr::Float { .. }
            | Expr::Str(_)
            | Expr::Opaque { .. } => P_ATOM,
            Expr::Index { .. } | Expr::Call { .. } | Expr::Member { .. } => P_POSTFIX,
            Expr::IncDec { prefix: false, .. } => P_POSTFIX,
            Expr::IncDec { prefix: true, .. }
            | Expr::Unary { .. }
            | Expr::Cast { .. }
            | Expr::CastOther { .. }
            | Expr::Sizeof { .. } => P_UNARY,
            Expr::Binary { op, .. } => op.precedence(),
            Expr::Select { .. } => P_COND,
            Expr::Assign { .. } => P_ASSIGN,
            Expr::Comma { .. } => P_COMMA,
        }
    }

    fn write(&self, out: &mut String, e: Handle<Expr>, min: u8) {
        if self.prec(e) < min {
            out.push('(');
            self.write_bare(out, e);
            out.push(')');
        } else {
            self.write_bare(out, e);
        }
    }

    fn write_bare(&self, out: &mut String, e: Handle<Expr>) {
        match &self.exprs[e] {
            Expr::Var(n) => out.push_str(n),
            Expr::Int { value, ty } => {
                if ty.is_signed() {
                    out.push_str(&(*value as i64).to_string());
                } else {
                    out.push_str(&value.to_string());
                }
                out.push_str(int_suffix(*ty));
            }
            Expr::Float { value, ty } => out.push_str(&crate::front::pragma::float_literal(
                *value,
                *ty == Scalar::Float,
            )),
            Expr::Unary { op, arg } => {
                out.push_str(op.c_op());
                let mut inner = String::new();
                self.write(&mut inner, *arg, P_UNARY);
                // `- -x`, `+ +x`, `& &x`: never glue two operator characters into another token.
                let clash = matches!(
                    (op, inner.chars().next()),
                    (UnOp::Neg, Some('-')) | (UnOp::Plus, Some('+')) | (UnOp::AddrOf, Some('&'))
                );
                if clash {
                    out.push('(');
                    out.push_str(&inner);
                    out.push(')');
                } else {
                    out.push_str(&inner);
                }
            }
            Expr::IncDec { inc, prefix, arg } => {
                let op = if *inc { "++" } else { "--" };
                if *prefix {
                    out.push_str(op);
                    let mut inner = String::new();
                    self.write(&mut inner, *arg, P_UNARY);
                    if inner.starts_with(['+', '-']) {
                        out.push('(');
                        out.push_str(&inner);
                        out.push(')');
                    } else {
                        out.push_str(&inner);
                    }
                } else {
                    self.write(out, *arg, P_POSTFIX);
                    out.push_str(op);
                }
            }
            Expr::Binary { op, left, right } => {
                let p = op.precedence();
                let clear = |h: Handle<Expr>, otherwise: u8| match &self.exprs[h] {
                    Expr::Binary { op: child, .. } if op.wants_parens_around(*child) => 18,
                    _ => otherwise,
                };
                self.write(out, *left, clear(*left, p));
                out.push(' ');
                out.push_str(op.c_op());
                out.push(' ');
                self.write(out, *right, clear(*right, p + 1));
            }
            Expr::Assign { op, target, value } => {
                self.write(out, *target, P_UNARY);
                out.push(' ');
                if let Some(op) = op {
                    out.push_str(op.c_op());
                }
                out.push_str("= ");
                self.write(out, *value, P_ASSIGN);
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                self.write(out, *cond, P_COND + 1);
                out.push_str(" ? ");
                self.write(out, *accept, P_COMMA + 1);
                out.push_str(" : ");
                self.write(out, *reject, P_COND);
            }
            Expr::Cast { ty, arg } => {
                out.push('(');
                out.push_str(ty.c_name());
                out.push(')');
                self.write(out, *arg, P_UNARY);
            }
            Expr::Index { base, index } => {
                self.write(out, *base, P_POSTFIX);
                out.push('[');
                self.write(out, *index, 0);
                out.push(']');
            }
            Expr::Call { function, args, .. } => {
                out.push_str(function);
                out.push('(');
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.write(out, *a, P_ASSIGN);
                }
                out.push(')');
            }
            Expr::Member { base, field, arrow } => {
                self.write(out, *base, P_POSTFIX);
                out.push_str(if *arrow { "->" } else { "." });
                out.push_str(field);
            }
            Expr::Comma { left, right } => {
                self.write(out, *left, P_COMMA);
                out.push_str(", ");
                self.write(out, *right, P_COMMA + 1);
            }
            Expr::Sizeof {
                of: SizeOf::Expr(a),
                ..
            } => {
                out.push_str("sizeof(");
                self.write(out, *a, 0);
                out.push(')');
            }
            Expr::Sizeof {
                of: SizeOf::Type(Some(t)),
                ..
            } => {
                out.push_str("sizeof(");
                out.push_str(&type_to_c(t, ""));
                out.push(')');
            }
            Expr::CastOther { ty: Some(t), arg } => {
                out.push('(');
                out.push_str(&type_to_c(t, ""));
                out.push(')');
                self.write(out, *arg, P_UNARY);
            }
            Expr::Str(s) => out.push_str(&crate::front::pragma::string_literal(s)),
            // Not printable (`Exprs::printable`): never given here.
            Expr::CastOther { ty: None, .. }
            | Expr::Sizeof {
                of: SizeOf::Type(None),
                ..
            }
            | Expr::Opaque { .. } => out.push('0'),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::Span;
    use crate::vocab::BinOp;

    /// `e` lowered into a fresh arena and printed back.
    fn round_trip(x: &mut crate::ir::Exprs, parts: Vec<crate::ir::Expr>) -> String {
        let mut last = None;
        for p in parts {
            last = Some(x.append(p, Span::default()));
        }
        super::print_ir(x, last.unwrap())
    }

    #[test]
    fn ir_expressions_print_as_c_with_the_parentheses_they_need() {
        use crate::ir::Expr;
        let mut x = crate::ir::Exprs::new();
        let g = x.append(Expr::Var("g".into()), Span::default());
        let two = x.append(
            Expr::Int {
                value: 2,
                ty: Scalar::Long,
            },
            Span::default(),
        );
        let idx = x.append(
            Expr::Index {
                base: g,
                index: two,
            },
            Span::default(),
        );
        let a = x.append(Expr::Var("a".into()), Span::default());
        let b = x.append(Expr::Var("b".into()), Span::default());
        let sum = x.append(
            Expr::Binary {
                op: BinOp::Add,
                left: a,
                right: b,
            },
            Span::default(),
        );
        let shl = x.append(
            Expr::Binary {
                op: BinOp::Shl,
                left: idx,
                right: sum,
            },
            Span::default(),
        );
        assert_eq!(super::print_ir(&x, shl), "g[2l] << (a + b)");
        let prod = round_trip(
            &mut x,
            vec![Expr::Binary {
                op: BinOp::Mul,
                left: sum,
                right: idx,
            }],
        );
        assert_eq!(prod, "(a + b) * g[2l]");
        let minus_one = x.append(
            Expr::Int {
                value: (-1i64) as u64,
                ty: Scalar::Int,
            },
            Span::default(),
        );
        let neg = round_trip(
            &mut x,
            vec![Expr::Unary {
                op: UnOp::Neg,
                arg: minus_one,
            }],
        );
        assert_eq!(neg, "-(-1)");
        let cast = round_trip(
            &mut x,
            vec![Expr::Cast {
                ty: Scalar::Double,
                arg: sum,
            }],
        );
        assert_eq!(cast, "(double)(a + b)");
    }

    use super::*;
    use crate::ir::Poly;

    #[test]
    fn precedence_and_associativity() {
        let n = || HostExpr::var("n");
        let e = (n() + HostExpr::Int(1)) * HostExpr::Int(2);
        assert_eq!(host_expr(&e), "(n + 1) * 2");
        let e = HostExpr::bin(
            HostOp::Sub,
            n(),
            HostExpr::bin(HostOp::Sub, n(), HostExpr::Int(1)),
        );
        assert_eq!(host_expr(&e), "n - (n - 1)");
        let e = n() * n() / HostExpr::Int(4);
        assert_eq!(host_expr(&e), "n * n / 4");
        let e = n() / (n() * HostExpr::Int(4));
        assert_eq!(host_expr(&e), "n / (n * 4)");
        assert_eq!(host_expr(&n().round_up(32)), "(n + 31) / 32 * 32");
        let e = HostExpr::Max(Box::new(n()), Box::new(n() + HostExpr::Int(1)));
        assert_eq!(host_expr(&e), "(n > (n + 1) ? n : (n + 1))");
        let e = HostExpr::Long(Box::new(n() + HostExpr::Int(-1)));
        assert_eq!(host_expr(&e), "((long)(n + (-1)))");
    }

    #[test]
    fn affine_forms() {
        let p = Poly::var("n")
            .mul(&Poly::var("m"))
            .and_then(|p| p.sub(&Poly::var("k").mul(&Poly::constant(2))?))
            .and_then(|p| p.sub(&Poly::constant(3)))
            .unwrap();
        let e = HostExpr::from_poly(&p, &|s| HostExpr::var(s));
        assert_eq!(host_expr(&e), "0 - 2 * k + m * n - 3");
        let e = HostExpr::from_poly(&Poly::constant(-5), &|s| HostExpr::var(s));
        assert_eq!(host_expr(&e), "-5");
    }
}
