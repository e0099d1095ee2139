//! Host expressions ([`HostExpr`]) as C: the counts, launch sizes and scalar arguments the host
//! code computes in the user's function.

use crate::front::ast::ExprKind;
use crate::front::pragma::expr_to_c;
use crate::kernel::{HostExpr, HostOp};

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
        HostExpr::User(x) => match &x.kind {
            ExprKind::Ident(_) | ExprKind::Int { .. } => out.push_str(&expr_to_c(x)),
            _ => {
                out.push('(');
                out.push_str(&expr_to_c(x));
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

#[cfg(test)]
mod tests {
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
