//! Printing C expressions and types back to C source text.
//!
//! Used for the canonical form of pragmas (`Display` of [`crate::front::pragma_ast`]) and by the
//! back ends to emit host and kernel code, so the output must mean exactly what the tree means:
//! parentheses are inserted where C's precedence and associativity require them (and, as for
//! `gcc -Wparentheses`, around `&&` inside `||`, around `+`/`-` inside shifts and around
//! comparisons and arithmetic inside `&`, `^`, `|`), and nowhere else.

use crate::front::ast::{CType, Designator, Expr, ExprKind, Initializer, IntSuffix, UnOp};

/// Precedence levels (higher binds tighter).
const P_COMMA: u8 = 1;
const P_ASSIGN: u8 = 2;
const P_COND: u8 = 3;
const P_UNARY: u8 = 15;
const P_POSTFIX: u8 = 16;

/// The precedence of the expression's top-level operator.
fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ident(_) | ExprKind::Int { .. } | ExprKind::Char(_) | ExprKind::Str(_) => 17,
        ExprKind::Float { value, .. } => {
            if value.is_sign_negative() && !value.is_nan() {
                P_UNARY
            } else {
                17
            }
        }
        ExprKind::Index(..)
        | ExprKind::Call(..)
        | ExprKind::IndirectCall(..)
        | ExprKind::CompoundLit(..)
        | ExprKind::Member { .. } => P_POSTFIX,
        ExprKind::IncDec { prefix: false, .. } => P_POSTFIX,
        ExprKind::IncDec { prefix: true, .. }
        | ExprKind::Unary(..)
        | ExprKind::Cast(..)
        | ExprKind::SizeofType(_)
        | ExprKind::SizeofExpr(_) => P_UNARY,
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Cond(..) => P_COND,
        ExprKind::Assign(..) => P_ASSIGN,
        ExprKind::Comma(..) => P_COMMA,
    }
}

/// Prints a C expression with the parentheses its tree needs.
pub fn expr_to_c(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, 0);
    out
}

/// Writes `e`, parenthesized if its precedence is below `min`.
fn write_expr(out: &mut String, e: &Expr, min: u8) {
    // Recursion follows the tree's depth, which the parsers bound.
    let p = prec(e);
    if p < min {
        out.push('(');
        write_bare(out, e);
        out.push(')');
    } else {
        write_bare(out, e);
    }
}

fn write_bare(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::Int {
            value,
            suffix,
            radix,
        } => out.push_str(&int_literal(*value, *suffix, *radix)),
        ExprKind::Float { value, single } => out.push_str(&float_literal(*value, *single)),
        ExprKind::Char(c) => out.push_str(&char_literal(*c)),
        ExprKind::Str(s) => out.push_str(&string_literal(s)),
        ExprKind::Unary(op, a) => {
            out.push_str(op.c_op());
            let mut inner = String::new();
            write_expr(&mut inner, a, P_UNARY);
            // `- -x`, `+ +x`, `& &x`: never glue two operator characters into another token.
            let first = inner.chars().next();
            let clash = matches!(
                (op, first),
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
        ExprKind::IncDec { inc, prefix, arg } => {
            let op = if *inc { "++" } else { "--" };
            if *prefix {
                out.push_str(op);
                let mut inner = String::new();
                write_expr(&mut inner, arg, P_UNARY);
                if inner.starts_with(['+', '-']) {
                    out.push('(');
                    out.push_str(&inner);
                    out.push(')');
                } else {
                    out.push_str(&inner);
                }
            } else {
                write_expr(out, arg, P_POSTFIX);
                out.push_str(op);
            }
        }
        ExprKind::Binary(op, l, r) => {
            let p = op.precedence();
            let lmin = match &l.kind {
                ExprKind::Binary(lop, ..) if op.wants_parens_around(*lop) => 18,
                _ => p,
            };
            let rmin = match &r.kind {
                ExprKind::Binary(rop, ..) if op.wants_parens_around(*rop) => 18,
                _ => p + 1,
            };
            write_expr(out, l, lmin);
            out.push(' ');
            out.push_str(op.c_op());
            out.push(' ');
            write_expr(out, r, rmin);
        }
        ExprKind::Assign(op, l, r) => {
            write_expr(out, l, P_UNARY);
            out.push(' ');
            if let Some(op) = op {
                out.push_str(op.c_op());
            }
            out.push_str("= ");
            // Right associative.
            write_expr(out, r, P_ASSIGN);
        }
        ExprKind::Cond(c, a, b) => {
            write_expr(out, c, P_COND + 1);
            out.push_str(" ? ");
            // The middle operand is parsed as a full expression.
            write_expr(out, a, P_COMMA + 1);
            out.push_str(" : ");
            write_expr(out, b, P_COND);
        }
        ExprKind::Cast(ty, a) => {
            out.push('(');
            out.push_str(&ctype_to_c(ty, ""));
            out.push(')');
            write_expr(out, a, P_UNARY);
        }
        ExprKind::SizeofType(ty) => {
            out.push_str("sizeof(");
            out.push_str(&ctype_to_c(ty, ""));
            out.push(')');
        }
        ExprKind::SizeofExpr(a) => {
            out.push_str("sizeof(");
            write_expr(out, a, 0);
            out.push(')');
        }
        ExprKind::Index(a, i) => {
            write_expr(out, a, P_POSTFIX);
            out.push('[');
            write_expr(out, i, 0);
            out.push(']');
        }
        ExprKind::Call(f, args) => {
            out.push_str(&f.name);
            write_args(out, args);
        }
        ExprKind::IndirectCall(f, args) => {
            write_expr(out, f, P_POSTFIX);
            write_args(out, args);
        }
        ExprKind::CompoundLit(ty, items) => {
            out.push('(');
            out.push_str(&ctype_to_c(ty, ""));
            out.push(')');
            write_braces(out, items);
        }
        ExprKind::Member { base, field, arrow } => {
            write_expr(out, base, P_POSTFIX);
            out.push_str(if *arrow { "->" } else { "." });
            out.push_str(&field.name);
        }
        ExprKind::Comma(a, b) => {
            write_expr(out, a, P_COMMA);
            out.push_str(", ");
            write_expr(out, b, P_COMMA + 1);
        }
    }
}

fn write_args(out: &mut String, args: &[Expr]) {
    out.push('(');
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_expr(out, a, P_ASSIGN);
    }
    out.push(')');
}

/// `{a, .x = b, [2] = {c}}`.
fn write_braces(out: &mut String, items: &[Initializer]) {
    out.push('{');
    for (k, i) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_init(out, i);
    }
    out.push('}');
}

fn write_init(out: &mut String, i: &Initializer) {
    match i {
        Initializer::Expr(e) => write_expr(out, e, P_ASSIGN),
        Initializer::List(items, _) => write_braces(out, items),
        Initializer::Designated {
            designators, init, ..
        } => {
            for d in designators {
                match d {
                    Designator::Field(f) => {
                        out.push('.');
                        out.push_str(&f.name);
                    }
                    Designator::Index(e) => {
                        out.push('[');
                        write_expr(out, e, P_COND);
                        out.push(']');
                    }
                    Designator::Range(a, b) => {
                        out.push('[');
                        write_expr(out, a, P_COND);
                        out.push_str(" ... ");
                        write_expr(out, b, P_COND);
                        out.push(']');
                    }
                }
            }
            out.push_str(" = ");
            write_init(out, init);
        }
    }
}

/// `42`, `0x2Au`, `017L`, `10ull`.
pub fn int_literal(value: u64, suffix: IntSuffix, radix: u32) -> String {
    let mut s = match radix {
        16 => format!("0x{value:X}"),
        8 if value != 0 => format!("0{value:o}"),
        _ => value.to_string(),
    };
    if suffix.unsigned {
        s.push('u');
    }
    match suffix.longs {
        0 => {}
        1 => s.push('l'),
        _ => s.push_str("ll"),
    }
    s
}

/// A C floating literal that reads back as exactly `value` (`1.0`, `0.1f`, `1e+30`).
pub fn float_literal(value: f64, single: bool) -> String {
    if value.is_nan() {
        return "NAN".to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-INFINITY" } else { "INFINITY" }.to_string();
    }
    let mut s = if single && (value as f32) as f64 == value {
        shortest(format!("{}", value as f32), format!("{:e}", value as f32))
    } else {
        shortest(format!("{value}"), format!("{value:e}"))
    };
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    }
    if single {
        s.push('f');
    }
    s
}

/// The plain form unless it is long (`100000000000000000000`), then the exponent form.
fn shortest(plain: String, exp: String) -> String {
    if plain.len() > 17 && exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}

/// `'a'`, `'\n'`, `'\x7f'`; values outside a byte print as numbers.
pub fn char_literal(c: i64) -> String {
    let byte = if (-128..0).contains(&c) { c + 256 } else { c };
    if !(0..=255).contains(&byte) {
        return c.to_string();
    }
    let b = byte as u8;
    let body = match b {
        b'\'' => "\\'".to_string(),
        b'\\' => "\\\\".to_string(),
        b'\n' => "\\n".to_string(),
        b'\t' => "\\t".to_string(),
        b'\r' => "\\r".to_string(),
        0 => "\\0".to_string(),
        0x20..=0x7e => (b as char).to_string(),
        _ => format!("\\x{b:02x}"),
    };
    format!("'{body}'")
}

/// A C string literal with the needed escapes.
pub fn string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    let mut prev_hex = false;
    for b in s.bytes() {
        let hex_digit_after_hex = prev_hex && b.is_ascii_hexdigit();
        prev_hex = false;
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e if !hex_digit_after_hex => out.push(b as char),
            _ => {
                out.push_str(&format!("\\x{b:02x}"));
                prev_hex = true;
            }
        }
    }
    out.push('"');
    out
}

/// Prints a declaration of `name` with type `ty` (`float (*A)[64]`, `const float *restrict x`);
/// with an empty `name`, the abstract type (`float (*)[64]`) as in casts and `sizeof`.
pub fn ctype_to_c(ty: &CType, name: &str) -> String {
    let mut decl = name.to_string();
    let mut ty = ty;
    // Constness that applies to the next base type (`const float`).
    let mut leading_const = false;
    loop {
        match ty {
            CType::Const(inner) => {
                match inner.as_ref() {
                    // `T *const p`.
                    CType::Pointer { .. } => {
                        decl = format!("const {decl}").trim_end().to_string();
                    }
                    // `const` on an array applies to its elements; on a base type it leads.
                    _ => leading_const = true,
                }
                ty = inner;
            }
            CType::Pointer {
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
                if matches!(
                    strip_const(to),
                    CType::Array { .. } | CType::Function { .. }
                ) {
                    decl = format!("({decl})");
                }
                ty = to;
            }
            CType::Array { elem, len } => {
                decl.push('[');
                if let Some(len) = len {
                    decl.push_str(&expr_to_c(len));
                }
                decl.push(']');
                ty = elem;
            }
            CType::Function {
                ret,
                params,
                variadic,
            } => {
                let mut ps: Vec<String> = params.iter().map(|p| ctype_to_c(p, "")).collect();
                if *variadic {
                    ps.push("...".to_string());
                } else if ps.is_empty() {
                    ps.push("void".to_string());
                }
                decl = format!("{decl}({})", ps.join(", "));
                ty = ret;
            }
            base => {
                let base = match base {
                    CType::Void => "void".to_string(),
                    CType::Scalar(s) => s.c_name().to_string(),
                    CType::Named(n) => n.clone(),
                    CType::Tagged { kind, name } => {
                        let k = match kind {
                            crate::front::ast::TagKind::Struct => "struct",
                            crate::front::ast::TagKind::Union => "union",
                            crate::front::ast::TagKind::Enum => "enum",
                        };
                        format!("{k} {name}")
                    }
                    CType::Struct(d) => d.c_name(),
                    _ => String::new(),
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

fn strip_const(t: &CType) -> &CType {
    match t {
        CType::Const(i) => strip_const(i),
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::front::ast::{Ident, Scalar};
    use crate::vocab::BinOp;

    fn id(n: &str) -> Expr {
        Expr::new(ExprKind::Ident(n.into()), Span::default())
    }
    fn int(v: u64) -> Expr {
        Expr::new(
            ExprKind::Int {
                value: v,
                suffix: IntSuffix::default(),
                radix: 10,
            },
            Span::default(),
        )
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::new(
            ExprKind::Binary(op, Box::new(a), Box::new(b)),
            Span::default(),
        )
    }
    fn un(op: UnOp, a: Expr) -> Expr {
        Expr::new(ExprKind::Unary(op, Box::new(a)), Span::default())
    }
    fn float(v: f64, single: bool) -> Expr {
        Expr::new(ExprKind::Float { value: v, single }, Span::default())
    }

    #[test]
    fn precedence_and_associativity() {
        use BinOp::*;
        let e = bin(Mul, bin(Add, id("a"), id("b")), id("c"));
        assert_eq!(expr_to_c(&e), "(a + b) * c");
        let e = bin(Add, id("a"), bin(Mul, id("b"), id("c")));
        assert_eq!(expr_to_c(&e), "a + b * c");
        let e = bin(Sub, id("a"), bin(Sub, id("b"), id("c")));
        assert_eq!(expr_to_c(&e), "a - (b - c)");
        let e = bin(Sub, bin(Sub, id("a"), id("b")), id("c"));
        assert_eq!(expr_to_c(&e), "a - b - c");
        let e = bin(Div, id("a"), bin(Mul, id("b"), id("c")));
        assert_eq!(expr_to_c(&e), "a / (b * c)");
        let e = bin(LogOr, bin(LogAnd, id("a"), id("b")), id("c"));
        assert_eq!(expr_to_c(&e), "(a && b) || c");
        let e = bin(Shl, id("a"), bin(Add, id("b"), int(1)));
        assert_eq!(expr_to_c(&e), "a << (b + 1)");
        let e = bin(BitAnd, id("a"), bin(Eq, id("b"), int(1)));
        assert_eq!(expr_to_c(&e), "a & (b == 1)");
        let e = bin(Lt, bin(Add, id("i"), int(1)), id("n"));
        assert_eq!(expr_to_c(&e), "i + 1 < n");
    }

    #[test]
    fn unary_cast_index_call() {
        let e = un(UnOp::Neg, un(UnOp::Neg, id("x")));
        assert_eq!(expr_to_c(&e), "-(-x)");
        let e = un(UnOp::Neg, bin(BinOp::Add, id("a"), id("b")));
        assert_eq!(expr_to_c(&e), "-(a + b)");
        let e = un(UnOp::Neg, float(-1.5, false));
        assert_eq!(expr_to_c(&e), "-(-1.5)");
        let e = bin(BinOp::Sub, id("a"), float(-1.5, false));
        assert_eq!(expr_to_c(&e), "a - -1.5");
        let cast = Expr::new(
            ExprKind::Cast(
                CType::Scalar(Scalar::Float),
                Box::new(bin(BinOp::Add, id("i"), int(1))),
            ),
            Span::default(),
        );
        assert_eq!(expr_to_c(&cast), "(float)(i + 1)");
        let idx = Expr::new(
            ExprKind::Index(
                Box::new(Expr::new(
                    ExprKind::Index(Box::new(id("A")), Box::new(id("i"))),
                    Span::default(),
                )),
                Box::new(bin(BinOp::Add, id("j"), int(1))),
            ),
            Span::default(),
        );
        assert_eq!(expr_to_c(&idx), "A[i][j + 1]");
        let deref_idx = Expr::new(
            ExprKind::Index(Box::new(un(UnOp::Deref, id("p"))), Box::new(int(0))),
            Span::default(),
        );
        assert_eq!(expr_to_c(&deref_idx), "(*p)[0]");
        let call = Expr::new(
            ExprKind::Call(
                Ident {
                    name: "fmaxf".into(),
                    span: Span::default(),
                },
                vec![
                    id("a"),
                    Expr::new(
                        ExprKind::Comma(Box::new(id("b")), Box::new(id("c"))),
                        Span::default(),
                    ),
                ],
            ),
            Span::default(),
        );
        assert_eq!(expr_to_c(&call), "fmaxf(a, (b, c))");
        let cond = Expr::new(
            ExprKind::Cond(
                Box::new(bin(BinOp::Lt, id("a"), id("b"))),
                Box::new(id("a")),
                Box::new(Expr::new(
                    ExprKind::Cond(Box::new(id("c")), Box::new(id("d")), Box::new(id("e"))),
                    Span::default(),
                )),
            ),
            Span::default(),
        );
        assert_eq!(expr_to_c(&cond), "a < b ? a : c ? d : e");
        let asg = Expr::new(
            ExprKind::Assign(
                Some(BinOp::Add),
                Box::new(id("s")),
                Box::new(bin(BinOp::Mul, id("a"), id("b"))),
            ),
            Span::default(),
        );
        assert_eq!(expr_to_c(&asg), "s += a * b");
        let inc = Expr::new(
            ExprKind::IncDec {
                inc: true,
                prefix: false,
                arg: Box::new(id("i")),
            },
            Span::default(),
        );
        assert_eq!(expr_to_c(&inc), "i++");
        let mem = Expr::new(
            ExprKind::Member {
                base: Box::new(Expr::new(
                    ExprKind::Index(Box::new(id("pts")), Box::new(id("i"))),
                    Span::default(),
                )),
                field: Ident {
                    name: "x".into(),
                    span: Span::default(),
                },
                arrow: false,
            },
            Span::default(),
        );
        assert_eq!(expr_to_c(&mem), "pts[i].x");
    }

    #[test]
    fn literals() {
        let s = |unsigned, longs| IntSuffix { unsigned, longs };
        assert_eq!(int_literal(42, s(false, 0), 10), "42");
        assert_eq!(int_literal(255, s(true, 0), 16), "0xFFu");
        assert_eq!(int_literal(8, s(false, 1), 8), "010l");
        assert_eq!(int_literal(0, s(false, 0), 8), "0");
        assert_eq!(int_literal(7, s(true, 2), 10), "7ull");
        assert_eq!(float_literal(1.0, false), "1.0");
        assert_eq!(float_literal(0.1, false), "0.1");
        assert_eq!(float_literal(0.1f32 as f64, true), "0.1f");
        assert_eq!(float_literal(2.5, true), "2.5f");
        assert_eq!(float_literal(1e30, false), "1e30");
        assert_eq!(float_literal(1e-7, false), "0.0000001");
        assert_eq!(float_literal(1.5e-300, false), "1.5e-300");
        assert_eq!("1e30".parse::<f64>().ok(), Some(1e30));
        assert_eq!(char_literal('a' as i64), "'a'");
        assert_eq!(char_literal('\'' as i64), "'\\''");
        assert_eq!(char_literal(-1), "'\\xff'");
        assert_eq!(char_literal(10), "'\\n'");
        assert_eq!(string_literal("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(string_literal("\u{1}a"), "\"\\x01\\x61\"");
    }

    #[test]
    fn types() {
        let f = CType::Scalar(Scalar::Float);
        let arr = CType::Array {
            elem: Box::new(f.clone()),
            len: Some(Box::new(int(64))),
        };
        let ptr_arr = CType::Pointer {
            to: Box::new(arr.clone()),
            is_const: false,
            is_restrict: false,
        };
        assert_eq!(ctype_to_c(&ptr_arr, "A"), "float (*A)[64]");
        assert_eq!(ctype_to_c(&ptr_arr, ""), "float (*)[64]");
        let two = CType::Array {
            elem: Box::new(arr),
            len: Some(Box::new(id("N"))),
        };
        assert_eq!(ctype_to_c(&two, "B"), "float B[N][64]");
        let cptr = CType::Pointer {
            to: Box::new(CType::Const(Box::new(f.clone()))),
            is_const: false,
            is_restrict: true,
        };
        assert_eq!(ctype_to_c(&cptr, "x"), "const float *restrict x");
        assert_eq!(ctype_to_c(&cptr, ""), "const float *restrict");
        let pc = CType::Pointer {
            to: Box::new(f),
            is_const: true,
            is_restrict: false,
        };
        assert_eq!(ctype_to_c(&pc, "p"), "float *const p");
        assert_eq!(ctype_to_c(&CType::Scalar(Scalar::UInt), ""), "unsigned int");
    }
}
