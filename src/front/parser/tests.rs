use std::path::PathBuf;

use super::*;
use crate::diag::render;
use crate::front::ast::{
    BinOp, Block, ExprKind, ForInit, FunctionDef, Initializer, Param, StmtKind, TagKind,
};
use crate::front::lexer::{lex, RawKind};
use crate::front::preprocess::PragmaLine;

// ---------------------------------------------------------------------------------------------
// Helpers

/// Lexes `src` into a `PpOutput` without preprocessing: newlines are dropped and `#pragma`
/// lines become `Pragma` tokens.
fn pp(src: &str) -> (SourceMap, PpOutput) {
    let mut sources = SourceMap::new();
    let file = sources.add("test.c", PathBuf::from("test.c"), src.to_string());
    let raw = lex(src);
    let tok = |i: usize| {
        let r = raw[i];
        let kind = match r.kind {
            RawKind::Ident => PpKind::Ident,
            RawKind::Number => PpKind::Number,
            RawKind::Char => PpKind::Char,
            RawKind::Str => PpKind::Str,
            _ => PpKind::Punct,
        };
        PpToken {
            kind,
            text: src[r.lo..r.hi].to_string(),
            span: Span::new(file, r.lo, r.hi),
            expansion: None,
            space_before: false,
        }
    };
    let mut out = PpOutput::default();
    let mut i = 0;
    let mut line_start = true;
    while i < raw.len() {
        let r = raw[i];
        if r.kind == RawKind::Newline {
            line_start = true;
            i += 1;
            continue;
        }
        let is_pragma = line_start
            && r.kind == RawKind::Hash
            && raw.get(i + 1).is_some_and(|n| &src[n.lo..n.hi] == "pragma");
        line_start = false;
        if is_pragma {
            let mut j = i + 2;
            let mut tokens = Vec::new();
            while j < raw.len() && raw[j].kind != RawKind::Newline {
                tokens.push(tok(j));
                j += 1;
            }
            let end = raw[j - 1].hi;
            let span = match (tokens.first(), tokens.last()) {
                (Some(a), Some(b)) => a.span.to(b.span),
                _ => Span::new(file, end, end),
            };
            let line_span = Span::new(file, r.lo, end);
            let idx = out.pragmas.len() as u32;
            out.pragmas.push(PragmaLine {
                span,
                tokens,
                line_span,
            });
            out.tokens.push(PpToken {
                kind: PpKind::Pragma(idx),
                text: String::new(),
                span: line_span,
                expansion: None,
                space_before: false,
            });
            i = j;
            continue;
        }
        out.tokens.push(tok(i));
        i += 1;
    }
    (sources, out)
}

/// Parses a translation unit; returns it, the diagnostics rendered, and the sources.
fn tu(src: &str) -> (TranslationUnit, String, SourceMap) {
    let (sources, out) = pp(src);
    let mut diags = Diags::new();
    let unit = parse_translation_unit(&out, &sources, &mut diags);
    let text = render(&sources, &diags.0);
    (unit, text, sources)
}

/// Parses a translation unit that must have no diagnostics.
fn ok(src: &str) -> TranslationUnit {
    let (unit, text, _) = tu(src);
    assert_eq!(text, "", "unexpected diagnostics for {src}");
    unit
}

fn function<'a>(unit: &'a TranslationUnit, name: &str) -> &'a FunctionDef {
    unit.items
        .iter()
        .find_map(|i| match &i.kind {
            ItemKind::Function(f) if f.name.name == name => Some(f),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no function `{name}` in {unit:?}"))
}

/// Body statements of the only function of `void f(...) { body }`.
fn body(src: &str) -> Block {
    let unit = ok(src);
    match unit.items.as_slice() {
        [Item {
            kind: ItemKind::Function(f),
            ..
        }] => f.body.clone(),
        other => panic!("expected one function, got {other:?}"),
    }
}

/// Parses one expression with `parse_expr`.
fn expr_of(src: &str) -> Result<Expr, String> {
    let (sources, out) = pp(src);
    let mut diags = Diags::new();
    let e = parse_expr(&out.tokens, &mut diags);
    match e {
        Some(e) if diags.is_empty() => Ok(e),
        _ => Err(render(&sources, &diags.0)),
    }
}

/// The first line of a rendered error.
fn first_line(r: Result<Expr, String>) -> String {
    match r {
        Ok(e) => format!("no error: {e:?}"),
        Err(d) => d.lines().next().unwrap_or("").to_string(),
    }
}

fn ex(src: &str) -> String {
    match expr_of(src) {
        Ok(e) => sx(&e),
        Err(d) => panic!("{src}: {d}"),
    }
}

/// A type as a compact string: `ptr(arr(float, M))`.
fn ty(t: &CType) -> String {
    match t {
        CType::Void => "void".into(),
        CType::Scalar(s) => s.c_name().into(),
        CType::Named(n) => format!("named {n}"),
        CType::Tagged { kind, name } => format!("{kind:?} {name}").to_lowercase(),
        CType::Pointer {
            to,
            is_const,
            is_restrict,
        } => format!(
            "ptr{}{}({})",
            if *is_const { " const" } else { "" },
            if *is_restrict { " restrict" } else { "" },
            ty(to)
        ),
        CType::Array { elem, len } => match len {
            Some(l) => format!("arr({}, {})", ty(elem), sx(l)),
            None => format!("arr({})", ty(elem)),
        },
        CType::Const(t) => format!("const({})", ty(t)),
    }
}

/// An expression as an S-expression.
fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Int { value, .. } => value.to_string(),
        ExprKind::Float { value, single } => format!("{value}{}", if *single { "f" } else { "" }),
        ExprKind::Char(c) => format!("'{c}'"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Unary(op, a) => format!("({} {})", op.c_op(), sx(a)),
        ExprKind::IncDec { inc, prefix, arg } => format!(
            "({}{} {})",
            if *prefix { "pre" } else { "post" },
            if *inc { "++" } else { "--" },
            sx(arg)
        ),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.c_op(), sx(a), sx(b)),
        ExprKind::Assign(op, a, b) => {
            format!("({}= {} {})", op.map_or("", |o| o.c_op()), sx(a), sx(b))
        }
        ExprKind::Cond(c, a, b) => format!("(? {} {} {})", sx(c), sx(a), sx(b)),
        ExprKind::Cast(t, a) => format!("(cast {} {})", ty(t), sx(a)),
        ExprKind::SizeofType(t) => format!("(sizeof {})", ty(t)),
        ExprKind::SizeofExpr(a) => format!("(sizeof {})", sx(a)),
        ExprKind::Index(a, i) => format!("([] {} {})", sx(a), sx(i)),
        ExprKind::Call(f, args) => {
            let args: Vec<String> = args.iter().map(sx).collect();
            format!("(call {} {})", f.name, args.join(" "))
        }
        ExprKind::Member { base, field, arrow } => format!(
            "({} {} {})",
            if *arrow { "->" } else { "." },
            sx(base),
            field.name
        ),
        ExprKind::Comma(a, b) => format!("(, {} {})", sx(a), sx(b)),
    }
}

fn params(f: &FunctionDef) -> Vec<String> {
    f.params
        .iter()
        .map(|p: &Param| {
            format!(
                "{}: {}",
                p.name.as_ref().map_or("_", |n| n.name.as_str()),
                ty(&p.ty)
            )
        })
        .collect()
}

fn decl_types(unit: &TranslationUnit) -> Vec<String> {
    unit.items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Decl(d) => Some(d),
            _ => None,
        })
        .flat_map(|d| d.declarators.iter())
        .map(|d| format!("{}: {}", d.name.name, ty(&d.ty)))
        .collect()
}

fn kinds(unit: &TranslationUnit) -> Vec<&'static str> {
    unit.items
        .iter()
        .map(|i| match i.kind {
            ItemKind::Function(_) => "fn",
            ItemKind::Decl(_) => "decl",
            ItemKind::Opaque => "opaque",
            ItemKind::Pragma(_) => "pragma",
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Expressions

#[test]
fn precedence_and_associativity() {
    assert_eq!(ex("a + b * c"), "(+ a (* b c))");
    assert_eq!(ex("a * b + c"), "(+ (* a b) c)");
    assert_eq!(ex("a - b - c"), "(- (- a b) c)");
    assert_eq!(ex("a = b = c"), "(= a (= b c))");
    assert_eq!(ex("a += b -= c"), "(+= a (-= b c))");
    assert_eq!(ex("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(
        ex("a || b && c | d ^ e & f"),
        "(|| a (&& b (| c (^ d (& e f)))))"
    );
    assert_eq!(ex("a == b < c << d + e"), "(== a (< b (<< c (+ d e))))");
    assert_eq!(ex("a != b >= c >> d"), "(!= a (>= b (>> c d)))");
    assert_eq!(ex("a % b / c"), "(/ (% a b) c)");
    assert_eq!(ex("c ? x = 1 : y"), "(? c (= x 1) y)");
    assert_eq!(ex("a <<= 1"), "(<<= a 1)");
    assert_eq!(ex("x |= y ^= z"), "(|= x (^= y z))");
}

#[test]
fn unary_postfix_casts() {
    assert_eq!(ex("-x[i]"), "(- ([] x i))");
    assert_eq!(ex("*p++"), "(* (post++ p))");
    assert_eq!(ex("++*p"), "(pre++ (* p))");
    assert_eq!(ex("!~a--"), "(! (~ (post-- a)))");
    assert_eq!(ex("&a[i][j]"), "(& ([] ([] a i) j))");
    assert_eq!(ex("(float)x + y"), "(+ (cast float x) y)");
    assert_eq!(ex("(x) + y"), "(+ x y)");
    assert_eq!(ex("(x + y) * z"), "(* (+ x y) z)");
    assert_eq!(ex("(float *)p"), "(cast ptr(float) p)");
    assert_eq!(ex("(unsigned char)c"), "(cast unsigned char c)");
    assert_eq!(
        ex("(const float *)(void *)p"),
        "(cast ptr(const(float)) (cast ptr(void) p))"
    );
    assert_eq!(ex("(float (*)[M])p"), "(cast ptr(arr(float, M)) p)");
    assert_eq!(ex("(int)-x"), "(cast int (- x))");
    assert_eq!(ex("sizeof(float) * n"), "(* (sizeof float) n)");
    assert_eq!(ex("sizeof x"), "(sizeof x)");
    assert_eq!(ex("sizeof (x)"), "(sizeof x)");
    assert_eq!(ex("sizeof a[0]"), "(sizeof ([] a 0))");
    assert_eq!(ex("(size_t)n"), "(cast size_t n)");
    assert_eq!(ex("s.x + p->y"), "(+ (. s x) (-> p y))");
    assert_eq!(ex("f(a, b + 1, g())"), "(call f a (+ b 1) (call g ))");
    assert_eq!(ex("x--"), "(post-- x)");
    assert_eq!(ex("--x"), "(pre-- x)");
    assert_eq!(ex("'a' + '\\n'"), "(+ '97' '10')");
    assert_eq!(ex("\"ab\" \"c\\n\""), "\"abc\\n\"");
}

#[test]
fn expression_spans() {
    let (sources, out) = pp("a + b * c");
    let mut diags = Diags::new();
    let e = parse_expr(&out.tokens, &mut diags).unwrap();
    assert_eq!(sources.snippet(e.span), "a + b * c");
    let ExprKind::Binary(_, a, m) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(sources.snippet(a.span), "a");
    assert_eq!(sources.snippet(m.span), "b * c");
    let (sources, out) = pp("(a + b) * c");
    let e = parse_expr(&out.tokens, &mut diags).unwrap();
    let ExprKind::Binary(_, a, _) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(sources.snippet(e.span), "(a + b) * c");
    assert_eq!(sources.snippet(a.span), "a + b");
    let (sources, out) = pp("x = (float)y[i]++");
    let e = parse_expr(&out.tokens, &mut diags).unwrap();
    let ExprKind::Assign(_, _, c) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(sources.snippet(c.span), "(float)y[i]++");
    assert!(diags.is_empty());
}

#[test]
fn parse_expr_errors() {
    assert_eq!(
        expr_of("a b").unwrap_err(),
        "\
error: expected operator, found `b`
  ┌─ test.c:1:3
  │
1 │ a b
  │   ^ unexpected token

"
    );
    assert_eq!(
        first_line(expr_of("a, b")),
        "error: expected end of input, found `,`"
    );
    assert_eq!(
        first_line(expr_of("a +")),
        "error: expected expression, found end of input"
    );
    assert_eq!(
        first_line(expr_of("(a")),
        "error: expected one of `)`, `,`, found end of input"
    );
    assert_eq!(
        first_line(expr_of("f(a b)")),
        "error: expected one of `)`, `,`, found `b`"
    );
    assert_eq!(
        first_line(expr_of("a[1 2]")),
        "error: expected one of `]`, `,`, found `2`"
    );
    assert_eq!(
        first_line(expr_of("c ? a b")),
        "error: expected one of `,`, `:`, found `b`"
    );
    assert_eq!(
        expr_of("(*f)(x)").unwrap_err(),
        "\
error: only calls to named functions are supported
  ┌─ test.c:1:1
  │
1 │ (*f)(x)
  │ ^^^^

"
    );
    let mut diags = Diags::new();
    assert_eq!(parse_expr(&[], &mut diags), None);
    assert_eq!(diags.0.len(), 1);
    assert_eq!(diags.0[0].message, "expected expression");
}

// ---------------------------------------------------------------------------------------------
// Numbers

#[test]
fn number_literals() {
    assert_eq!(ex("0x1F"), "31");
    assert_eq!(ex("017"), "15");
    assert_eq!(ex("1e-5f"), "0.00001f");
    assert_eq!(ex(".5"), "0.5");
    assert_eq!(ex("1."), "1");
    let e = expr_of("10ull").unwrap();
    assert_eq!(
        e.kind,
        ExprKind::Int {
            value: 10,
            suffix: crate::front::ast::IntSuffix {
                unsigned: true,
                longs: 2
            },
            radix: 10
        }
    );
    let e = expr_of("0xFFu").unwrap();
    assert!(matches!(
        e.kind,
        ExprKind::Int {
            value: 255,
            radix: 16,
            ..
        }
    ));
    let e = expr_of("2.5f").unwrap();
    assert_eq!(
        e.kind,
        ExprKind::Float {
            value: 2.5,
            single: true
        }
    );
}

#[test]
fn malformed_numbers() {
    let (unit, text, _) = tu("int a = 08;\ndouble b = 1.2.3;\n");
    assert_eq!(kinds(&unit), ["decl", "decl"]);
    assert_eq!(
        text,
        "\
error: invalid digit `8` in octal literal
  ┌─ test.c:1:9
  │
1 │ int a = 08;
  │         ^^

error: too many decimal points in number `1.2.3`
  ┌─ test.c:2:12
  │
2 │ double b = 1.2.3;
  │            ^^^^^

"
    );
}
