use std::path::PathBuf;

use super::*;
use crate::diag::render;
use crate::front::ast::{
    BinOp, Block, Designator, ExprKind, ForInit, FunctionDef, Initializer, Param, Stmt, StmtKind,
    TagKind,
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
        CType::Tagged { kind, name } => format!("{} {name}", format!("{kind:?}").to_lowercase()),
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
        CType::Struct(d) => format!(
            "struct {}{}",
            d.tag,
            d.typedef
                .as_ref()
                .map(|t| format!(" (typedef {t})"))
                .unwrap_or_default()
        ),
        CType::Function {
            ret,
            params,
            variadic,
        } => {
            let mut ps: Vec<String> = params.iter().map(ty).collect();
            if *variadic {
                ps.push("...".into());
            }
            format!("fn({}) -> {}", ps.join(", "), ty(ret))
        }
    }
}

/// An initializer as an S-expression: `{1 (.x = 2) ([3] = {4})}`.
fn isx(i: &Initializer) -> String {
    match i {
        Initializer::Expr(e) => sx(e),
        Initializer::List(items, _) => {
            let items: Vec<String> = items.iter().map(isx).collect();
            format!("{{{}}}", items.join(" "))
        }
        Initializer::Designated {
            designators, init, ..
        } => {
            let ds: String = designators
                .iter()
                .map(|d| match d {
                    Designator::Field(f) => format!(".{}", f.name),
                    Designator::Index(e) => format!("[{}]", sx(e)),
                    Designator::Range(a, b) => format!("[{} ... {}]", sx(a), sx(b)),
                })
                .collect();
            format!("({ds} = {})", isx(init))
        }
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
        ExprKind::IndirectCall(f, args) => {
            let args: Vec<String> = args.iter().map(sx).collect();
            format!("(call* {} {})", sx(f), args.join(" "))
        }
        ExprKind::CompoundLit(t, items) => {
            let items: Vec<String> = items.iter().map(isx).collect();
            format!("(lit {} {{{}}})", ty(t), items.join(" "))
        }
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
    let e = expr_of("a *= b % c").unwrap();
    let ExprKind::Assign(Some(BinOp::Mul), _, rhs) = &e.kind else {
        panic!("{e:?}")
    };
    assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::Rem, _, _)));
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
    // A call through a pointer parses (host code); compute regions refuse it.
    assert_eq!(ex("(*f)(x)"), "(call* (* f) x)");
    assert_eq!(ex("(f)(x)"), "(call f x)");
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

// ---------------------------------------------------------------------------------------------
// Statements

#[test]
fn loop_forms() {
    let b = body(
        "void f(int n, float *a) {\n\
         for (int i = 0; i < n; i++) a[i] = 0;\n\
         for (i = 0; i < n; ++i) { }\n\
         for (;;) break;\n\
         while (n > 0) n--;\n\
         do { n++; } while (n < 10);\n\
         do continue; while (0);\n\
         }",
    );
    let s = &b.stmts;
    assert_eq!(s.len(), 6);
    let StmtKind::For {
        init: ForInit::Decl(d),
        cond: Some(c),
        step: Some(st),
        body,
    } = &s[0].kind
    else {
        panic!("{:?}", s[0])
    };
    assert_eq!(d.declarators[0].name.name, "i");
    assert_eq!(ty(&d.declarators[0].ty), "int");
    assert!(matches!(d.declarators[0].init, Some(Initializer::Expr(_))));
    assert_eq!(sx(c), "(< i n)");
    assert_eq!(sx(st), "(post++ i)");
    let StmtKind::Expr(e) = &body.kind else {
        panic!("{body:?}")
    };
    assert_eq!(sx(e), "(= ([] a i) 0)");
    let StmtKind::For {
        init: ForInit::Expr(i),
        step: Some(st),
        body,
        ..
    } = &s[1].kind
    else {
        panic!("{:?}", s[1])
    };
    assert_eq!(sx(i), "(= i 0)");
    assert_eq!(sx(st), "(pre++ i)");
    assert!(matches!(&body.kind, StmtKind::Block(b) if b.stmts.is_empty()));
    assert!(matches!(
        &s[2].kind,
        StmtKind::For { init: ForInit::None, cond: None, step: None, body }
            if body.kind == StmtKind::Break
    ));
    let StmtKind::While { cond, body } = &s[3].kind else {
        panic!("{:?}", s[3])
    };
    assert_eq!(sx(cond), "(> n 0)");
    assert!(matches!(&body.kind, StmtKind::Expr(e) if sx(e) == "(post-- n)"));
    let StmtKind::DoWhile { body, cond } = &s[4].kind else {
        panic!("{:?}", s[4])
    };
    assert_eq!(sx(cond), "(< n 10)");
    assert!(matches!(&body.kind, StmtKind::Block(b) if b.stmts.len() == 1));
    assert!(matches!(
        &s[5].kind,
        StmtKind::DoWhile { body, .. } if body.kind == StmtKind::Continue
    ));
}

#[test]
fn other_statements() {
    let b = body(
        "int f(int x) {\n\
         ;\n\
         if (x) return 1; else if (x < 0) return -1; else { x = 2; }\n\
         if (x) if (x > 1) x = 0; else x = 1;\n\
         { int y = x, z[3] = {1, 2, 3}; }\n\
         return;\n\
         }",
    );
    let s = &b.stmts;
    assert_eq!(s.len(), 5);
    assert_eq!(s[0].kind, StmtKind::Empty);
    let StmtKind::If {
        cond,
        then,
        els: Some(els),
    } = &s[1].kind
    else {
        panic!("{:?}", s[1])
    };
    assert_eq!(sx(cond), "x");
    assert!(matches!(&then.kind, StmtKind::Return(Some(e)) if sx(e) == "1"));
    assert!(matches!(&els.kind, StmtKind::If { els: Some(_), .. }));
    // The dangling `else` belongs to the inner `if`.
    let StmtKind::If {
        then, els: None, ..
    } = &s[2].kind
    else {
        panic!("{:?}", s[2])
    };
    assert!(matches!(&then.kind, StmtKind::If { els: Some(_), .. }));
    let StmtKind::Block(inner) = &s[3].kind else {
        panic!("{:?}", s[3])
    };
    let StmtKind::Decl(d) = &inner.stmts[0].kind else {
        panic!("{inner:?}")
    };
    let names: Vec<String> = d
        .declarators
        .iter()
        .map(|d| format!("{}: {}", d.name.name, ty(&d.ty)))
        .collect();
    assert_eq!(names, ["y: int", "z: arr(int, 3)"]);
    assert!(matches!(
        &d.declarators[1].init,
        Some(Initializer::List(l, _)) if l.len() == 3
    ));
    assert_eq!(s[4].kind, StmtKind::Return(None));
}

#[test]
fn unsupported_statements() {
    let b = body(
        "void f(int x) {\n\
         switch (x) { case 1: x = 2; break; default: x = 3; }\n\
         goto out;\n\
         out: x = 4;\n\
         }",
    );
    let what: Vec<&str> = b
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Unsupported { what, .. } => what.as_str(),
            _ => "other",
        })
        .collect();
    assert_eq!(what.first(), Some(&"switch"));
    assert!(what.contains(&"goto"), "{what:?}");
    assert!(what.iter().all(|w| *w != "other"), "{what:?}");
    let StmtKind::Unsupported { body: Some(sw), .. } = &b.stmts[0].kind else {
        panic!("{:?}", b.stmts[0])
    };
    let StmtKind::Block(sw) = &sw.kind else {
        panic!("{sw:?}")
    };
    let inner: Vec<&str> = sw
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Unsupported { what, .. } => what.as_str(),
            StmtKind::Break => "break",
            _ => "other",
        })
        .collect();
    assert!(inner.contains(&"case"), "{inner:?}");
    assert!(inner.contains(&"default"), "{inner:?}");
}

#[test]
fn pragma_statements() {
    let b = body(
        "void f(int n, float *a) {\n\
         #pragma acc kernels\n\
         for (int i = 0; i < n; i++) a[i] = 0;\n\
         #pragma omp barrier\n\
         }",
    );
    assert_eq!(b.stmts.len(), 3);
    assert_eq!(b.stmts[0].kind, StmtKind::Pragma(0));
    assert!(matches!(b.stmts[1].kind, StmtKind::For { .. }));
    assert_eq!(b.stmts[2].kind, StmtKind::Pragma(1));
}

// ---------------------------------------------------------------------------------------------
// Declarations

#[test]
fn declarators() {
    let unit = ok(
        "void f(float *restrict a, const float *x, float A[N][M], int n, int m,\n\
                   float B[n][m], float C[][M], float (*D)[M], int, float *const p,\n\
                   unsigned long long u, long double *ld);\n\
                   void g(void) { }\n\
                   void h(float *restrict a, const float *x, float A[N][M], float (*D)[M]) { }",
    );
    // Prototypes are outside the subset.
    assert_eq!(kinds(&unit), ["opaque", "fn", "fn"]);
    let g = function(&unit, "g");
    assert!(g.params.is_empty());
    assert_eq!(ty(&g.ret), "void");
    let h = function(&unit, "h");
    assert_eq!(
        params(h),
        [
            "a: ptr restrict(float)",
            "x: ptr(const(float))",
            "A: arr(arr(float, M), N)",
            "D: ptr(arr(float, M))",
        ]
    );
}

#[test]
fn function_parameters() {
    let unit = ok(
        "static inline float f(float B[n][m], float C[][M], int, float *const p,\n\
                   unsigned long long u, const int k) { return 0; }\n\
                   extern void g(int n) { }",
    );
    let f = function(&unit, "f");
    assert_eq!(f.storage, Storage::Static);
    assert!(f.is_inline);
    assert_eq!(ty(&f.ret), "float");
    assert_eq!(
        params(f),
        [
            "B: arr(arr(float, m), n)",
            "C: arr(arr(float, M))",
            "_: int",
            "p: ptr const(float)",
            "u: unsigned long long(u)",
            "k: const(int)",
        ]
        .map(|s| s.replace("unsigned long long(u)", "unsigned long long"))
    );
    let g = function(&unit, "g");
    assert_eq!(g.storage, Storage::Extern);
    assert!(!g.is_inline);
}

#[test]
fn file_scope_declarations() {
    let unit = ok("static float A[100][200];\n\
                   int n = 10, m, *p;\n\
                   const double eps = 1e-6;\n\
                   float w[3] = {0.25f, 0.5f, 0.25f};\n\
                   int grid[2][2] = {{1, 2}, {3, 4}};\n\
                   struct S s;\n\
                   extern int count;\n\
                   int long unsigned x;\n\
                   char const *name;");
    assert_eq!(
        decl_types(&unit),
        [
            "A: arr(arr(float, 200), 100)",
            "n: int",
            "m: int",
            "p: ptr(int)",
            "eps: const(double)",
            "w: arr(float, 3)",
            "grid: arr(arr(int, 2), 2)",
            "s: struct S",
            "count: int",
            "x: unsigned long",
            "name: ptr(const(char))",
        ]
    );
    let storages: Vec<Storage> = unit
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Decl(d) => Some(d.storage),
            _ => None,
        })
        .collect();
    assert_eq!(storages[0], Storage::Static);
    assert_eq!(storages[6], Storage::Extern);
    let ItemKind::Decl(d) = &unit.items[4].kind else {
        panic!()
    };
    let Some(Initializer::List(rows, _)) = &d.declarators[0].init else {
        panic!("{d:?}")
    };
    assert!(
        matches!(&rows[..], [Initializer::List(a, _), Initializer::List(b, _)]
        if a.len() == 2 && b.len() == 2)
    );
    let ItemKind::Decl(d) = &unit.items[5].kind else {
        panic!()
    };
    assert_eq!(
        d.declarators[0].ty,
        CType::Tagged {
            kind: TagKind::Struct,
            name: "S".to_string()
        }
    );
}

#[test]
fn typedef_hack() {
    let unit = ok("typedef float DATA_TYPE;\n\
                   typedef struct { int x; } P;\n\
                   DATA_TYPE a[10];\n\
                   P *q;\n\
                   void f(DATA_TYPE *x, size_t n) {\n\
                     DATA_TYPE t = (DATA_TYPE)n;\n\
                     typedef int T;\n\
                     T y = (T)t;\n\
                   }\n\
                   int T;\n\
                   void g(void) { x = (T) * y; }");
    assert_eq!(
        kinds(&unit),
        ["decl", "decl", "decl", "decl", "fn", "decl", "fn"]
    );
    let ItemKind::Decl(d) = &unit.items[0].kind else {
        panic!()
    };
    assert_eq!(d.storage, Storage::Typedef);
    assert_eq!(
        decl_types(&unit),
        [
            "DATA_TYPE: float",
            "P: struct ",
            "a: arr(float, 10)",
            "q: ptr(struct  (typedef P))",
            "T: int"
        ]
    );
    let f = function(&unit, "f");
    assert_eq!(params(f), ["x: ptr(float)", "n: size_t"]);
    let StmtKind::Decl(t) = &f.body.stmts[0].kind else {
        panic!("{f:?}")
    };
    let Some(Initializer::Expr(e)) = &t.declarators[0].init else {
        panic!()
    };
    assert_eq!(sx(e), "(cast float n)");
    let StmtKind::Decl(y) = &f.body.stmts[2].kind else {
        panic!("{f:?}")
    };
    // Block-scope typedefs are type names but are not resolved.
    assert_eq!(ty(&y.declarators[0].ty), "named T");
    // `T` is a typedef only inside `f`'s body: in `g`, `(T) * y` is a multiplication.
    let g = function(&unit, "g");
    let StmtKind::Expr(e) = &g.body.stmts[0].kind else {
        panic!("{g:?}")
    };
    assert_eq!(sx(e), "(= x (* T y))");
}

// ---------------------------------------------------------------------------------------------
// Items

const PROGRAM: &str = "\
#include <stdio.h>
#include <stdlib.h>
#pragma once
struct point { float x, y; };
typedef struct point point_t;
int (*callback)(int, float);
float apply(float (*fn)(float), float x);
enum color { RED, GREEN };
static float A[64][64];
void scale(int n, float *restrict a, float s)
{
#pragma acc kernels copy(a[0:n])
    for (int i = 0; i < n; i++)
        a[i] *= s;
}
int main(int argc, char **argv)
{
    int n = 64;
    float *a = (float *)malloc(n * sizeof(float));
    if (!a) { return 1; }
    for (int i = 0; i < n; i++) a[i] = (float)i;
    scale(n, a, 2.0f);
    printf(\"%d\\n\", n);
    free(a);
    return 0;
}
";

#[test]
fn chunking_whole_program() {
    let (unit, text, sources) = tu(PROGRAM);
    assert_eq!(text, "");
    assert_eq!(
        kinds(&unit),
        // The `#include` lines (not preprocessed here) end at the pragma.
        ["opaque", "pragma", "opaque", "decl", "decl", "opaque", "opaque", "decl", "fn", "fn"]
    );
    let snippets: Vec<&str> = unit.items.iter().map(|i| sources.snippet(i.span)).collect();
    assert_eq!(snippets[2], "struct point { float x, y; };");
    assert_eq!(snippets[4], "int (*callback)(int, float);");
    assert_eq!(snippets[5], "float apply(float (*fn)(float), float x);");
    assert_eq!(snippets[6], "enum color { RED, GREEN };");
    let scale = function(&unit, "scale");
    assert_eq!(scale.body.stmts[0].kind, StmtKind::Pragma(1));
    let main = function(&unit, "main");
    assert_eq!(params(main), ["argc: int", "argv: ptr(ptr(char))"]);
    let StmtKind::Expr(e) = &main.body.stmts[5].kind else {
        panic!("{main:?}")
    };
    assert_eq!(sx(e), "(call printf \"%d\\n\" n)");
    let StmtKind::Decl(d) = &main.body.stmts[1].kind else {
        panic!("{main:?}")
    };
    let Some(Initializer::Expr(e)) = &d.declarators[0].init else {
        panic!()
    };
    assert_eq!(
        sx(e),
        "(cast ptr(float) (call malloc (* n (sizeof float))))"
    );
}

#[test]
fn annotated_syntax_error() {
    let src = "void f(int n, float *a)\n{\n#pragma acc kernels\n    for (int i = 0; i < n; i++)\n        a[i] = (a[i] + 1;\n}\nvoid g(void) { }\n";
    let (unit, text, _) = tu(src);
    assert_eq!(kinds(&unit), ["opaque", "fn"]);
    assert_eq!(
        text,
        "\
error: expected one of `)`, `,`, found `;`
  ┌─ test.c:5:25
  │
5 │         a[i] = (a[i] + 1;
  │                         ^ unexpected token

"
    );
}

#[test]
fn unannotated_errors_are_silent() {
    let (unit, text, _) =
        tu("void f(int n) { n = (n + 1; }\n#pragma omp parallel\nvoid g(void) { g( }\nint x;");
    assert_eq!(kinds(&unit), ["opaque", "pragma", "opaque", "decl"]);
    assert_eq!(text, "");
    // A non-`acc` pragma inside the item does not make it annotated either.
    let (unit, text, _) = tu("void f(int n) {\n#pragma omp parallel for\nn = (n + 1;\n}\n");
    assert_eq!(kinds(&unit), ["opaque"]);
    assert_eq!(text, "");
}

#[test]
fn two_errors_in_two_annotated_functions() {
    let src = "\
void f(int n, float *a) {
#pragma acc kernels
  for (int i = 0; i < n; i++) a[i] = a[i] a[i];
}
void g(int n, float *a) {
#pragma acc parallel loop
  for (int i = 0; i < n i++) a[i] = 0;
}
void h(void) { }
";
    let (unit, text, _) = tu(src);
    assert_eq!(kinds(&unit), ["opaque", "opaque", "fn"]);
    assert_eq!(
        text,
        "\
error: expected `;`, found `a`
  ┌─ test.c:3:43
  │
3 │   for (int i = 0; i < n; i++) a[i] = a[i] a[i];
  │                                           ^ unexpected token

error: expected `;`, found `i`
  ┌─ test.c:7:25
  │
7 │   for (int i = 0; i < n i++) a[i] = 0;
  │                         ^ unexpected token

"
    );
}

// ---------------------------------------------------------------------------------------------
// Limits

/// Runs `f` on a thread with an 8 MB stack (the size of a main thread).
fn on_8mb_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn depth_limit() {
    let text = on_8mb_stack(|| {
        let n = 5000;
        let src = format!(
            "void f(int x) {{\n#pragma acc kernels\nx = {}x{};\n}}\nint y;",
            "(".repeat(n),
            ")".repeat(n)
        );
        let (unit, text, _) = tu(&src);
        assert_eq!(kinds(&unit), ["opaque", "decl"]);
        text
    });
    assert_eq!(text.matches("error").count(), 1, "{text}");
    assert!(
        text.starts_with("error: too deeply nested\n  ┌─ test.c:3:260\n"),
        "{text}"
    );
    assert!(
        text.ends_with("^ more than 256 nested parentheses, brackets and braces\n\n"),
        "{text}"
    );
    // Exactly at the limit still parses.
    let ok_src = format!(
        "int y = {}1{};",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    let (unit, text, _) = on_8mb_stack(move || {
        let (u, t, _) = tu(&ok_src);
        (u, t, ())
    });
    assert_eq!(text, "");
    assert_eq!(kinds(&unit), ["decl"]);
}

#[test]
fn complexity_limit() {
    let text = on_8mb_stack(|| {
        let src = format!("int y = 1{};\nint z = 2;", " + 1".repeat(MAX_OPS + 1));
        let (unit, text, _) = tu(&src);
        assert_eq!(kinds(&unit), ["opaque", "decl"]);
        text
    });
    // `=` is the first operator: the 4,097th is the 4,096th `+`.
    assert_eq!(text.matches("error").count(), 1, "{text}");
    assert!(
        text.starts_with("error: expression too complex\n  ┌─ test.c:1:16391\n"),
        "{text}"
    );
    assert!(
        text.ends_with("^ more than 4096 operators in one statement\n\n"),
        "{text}"
    );
    // Many short statements are fine.
    let src = format!("void f(int x) {{ {} }}", "x = x + 1 + 2;".repeat(2000));
    let (unit, text, _) = tu(&src);
    assert_eq!(text, "");
    assert_eq!(kinds(&unit), ["fn"]);
}

#[test]
fn max_size_ast_drops_and_prints_on_8mb_stack() {
    on_8mb_stack(|| {
        let src = format!(
            "int y = {}1{}{};",
            "(".repeat(MAX_NESTING - 1),
            " - 1".repeat(MAX_OPS - MAX_NESTING),
            ")".repeat(MAX_NESTING - 1)
        );
        let (unit, text, _) = tu(&src);
        assert_eq!(text, "");
        assert_eq!(kinds(&unit), ["decl"]);
        let printed = format!("{unit:?}");
        assert!(printed.len() > 10_000);
        let e = expr_of(&src[8..src.len() - 1]).unwrap();
        assert!(format!("{e:?}").len() > 10_000);
        drop(e);
        drop(unit);
    });
}

// ---------------------------------------------------------------------------------------------
// Robustness and real programs

#[test]
fn random_token_soups_do_not_panic() {
    const WORDS: &[&str] = &[
        "int",
        "float",
        "void",
        "typedef",
        "struct",
        "static",
        "const",
        "restrict",
        "for",
        "while",
        "do",
        "if",
        "else",
        "return",
        "switch",
        "case",
        "goto",
        "sizeof",
        "size_t",
        "x",
        "y",
        "T",
        "0",
        "1.5f",
        "0x1F",
        "08",
        "1.2.3",
        "'a'",
        "\"s\"",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ";",
        ",",
        "=",
        "+",
        "*",
        "-",
        "++",
        "?",
        ":",
        "->",
        ".",
        "&",
        "<",
        "<<=",
        "\n#pragma acc kernels\n",
        "\n#pragma acc loop\n",
        "\n#pragma omp parallel\n",
        "volatile",
        "enum",
        "union",
        "long",
        "...",
        "__attribute__",
        "__extension__",
        "_Static_assert",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    on_8mb_stack(move || {
        let mut errors = 0;
        for _ in 0..2000 {
            let len = (next() % 60) as usize;
            let mut src = String::new();
            for _ in 0..len {
                let w = WORDS[(next() % WORDS.len() as u64) as usize];
                src.push_str(w);
                src.push(' ');
            }
            let (unit, text, _) = tu(&src);
            errors += text.matches("error").count();
            drop(unit);
            let _ = expr_of(&src);
        }
        // Some soups are annotated and fail: the errors are reported.
        assert!(errors > 0);
    });
}

#[test]
fn examples_and_corpus_parse() {
    use crate::front::preprocess::{preprocess, PpOptions};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "tests/corpus"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        names.sort();
        files.extend(names);
    }
    assert!(files.len() >= 20, "{files:?}");
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let mut sources = SourceMap::new();
        let name = path.display().to_string();
        let file = sources.add(&name, path.clone(), src.clone());
        let mut diags = Diags::new();
        let out = preprocess(&mut sources, file, &PpOptions::default(), &mut diags);
        let unit = parse_translation_unit(&out, &sources, &mut diags);
        assert_eq!(render(&sources, &diags.0), "", "{name}");
        let annotated: Vec<&Item> = unit
            .items
            .iter()
            .filter(|i| {
                out.pragmas.iter().any(|p| {
                    p.tokens.first().is_some_and(|t| t.text == "acc")
                        && p.span.file == i.span.file
                        && i.span.lo <= p.span.lo
                        && p.span.hi <= i.span.hi
                })
            })
            .collect();
        assert!(!annotated.is_empty(), "{name}: no annotated item");
        for item in annotated {
            // `#pragma acc routine` stands at file scope, before its function.
            if matches!(item.kind, ItemKind::Pragma(_))
                && sources.snippet(item.span).contains("routine")
            {
                continue;
            }
            assert!(
                matches!(item.kind, ItemKind::Function(_)),
                "{name}: annotated item is not a function: {}",
                sources.snippet(item.span)
            );
        }
    }
}

#[test]
fn token_conversion() {
    assert_eq!(ex("0x1p4"), "16");
    assert_eq!(ex("0x1.8p1f"), "3f");
    assert_eq!(ex("1E2"), "100");
    assert_eq!(ex("'\\x41' + '\\101' + '\\''"), "(+ (+ '65' '65') '39')");
    assert_eq!(ex("(_Bool)x"), "(cast _Bool x)");
    assert!(matches!(
        expr_of("42UL").unwrap().kind,
        ExprKind::Int {
            value: 42,
            suffix: crate::front::ast::IntSuffix {
                unsigned: true,
                longs: 1
            },
            radix: 10
        }
    ));
    assert_eq!(
        expr_of("99999999999999999999999").unwrap_err(),
        "\
error: integer literal is too large
  ┌─ test.c:1:1
  │
1 │ 99999999999999999999999
  │ ^^^^^^^^^^^^^^^^^^^^^^^

"
    );
    assert_eq!(first_line(expr_of("1e")), "error: exponent has no digits");
    assert_eq!(
        first_line(expr_of("0x")),
        "error: missing digits after the `0x` prefix"
    );
    assert_eq!(
        first_line(expr_of("12abc")),
        "error: invalid suffix `abc` on integer literal"
    );
}

// ---------------------------------------------------------------------------------------------
// Host code of annotated functions: the C99/C11 (and GNU) of real programs, which must parse
// (and reach the output as written) around the compute regions

const HOST_PRELUDE: &str = "\
typedef struct { double real, imag; } dcomplex;
typedef struct point { int x, y; } point_t;
struct inner { double c; int tag; };
struct outer { struct inner b; int q[4]; };
typedef double (*unary_fn)(double);
typedef float row8_t[8];
";

/// The statements `body` holds in an annotated function (a compute region follows them); the
/// function must parse without diagnostics.
fn host(body: &str) -> Vec<Stmt> {
    let src = format!(
        "{HOST_PRELUDE}void f(int n, float *restrict a)\n{{\n{body}\n\
         #pragma acc parallel loop\n    for (int i = 0; i < n; i++) a[i] = 0;\n}}\n"
    );
    let unit = ok(&src);
    let f = function(&unit, "f");
    let k = f.body.stmts.len() - 2;
    assert!(matches!(f.body.stmts[k].kind, StmtKind::Pragma(_)));
    f.body.stmts[..k].to_vec()
}

/// `name: type` of every declarator of the declaration statements.
fn local_decls(stmts: &[Stmt]) -> Vec<String> {
    stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Decl(d) => Some(d),
            _ => None,
        })
        .flat_map(|d| d.declarators.iter())
        .map(|d| format!("{}: {}", d.name.name, ty(&d.ty)))
        .collect()
}

/// The initializers of the declarators of a declaration statement.
fn inits(s: &Stmt) -> Vec<String> {
    let StmtKind::Decl(d) = &s.kind else {
        panic!("not a declaration: {s:?}")
    };
    d.declarators
        .iter()
        .map(|d| d.init.as_ref().map_or("-".to_string(), isx))
        .collect()
}

/// The expression of an expression statement.
fn stmt_expr(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Expr(e) => sx(e),
        other => panic!("not an expression statement: {other:?}"),
    }
}

#[test]
fn compound_literals() {
    let s = host(
        "dcomplex z = (dcomplex){1.0, 2.0};\n\
         z = (dcomplex){z.real / 2.0, z.imag / n};\n\
         point_t p = (point_t){.y = 2, .x = 1,};\n\
         int *q = (int[]){1, 2, 3};\n\
         double r = (dcomplex){0}.real + (double)(dcomplex){1, 2}.imag;\n\
         size_t s = sizeof (int[2]){0, 1} + sizeof (dcomplex){} + sizeof(dcomplex);\n\
         struct inner in = (struct inner){.c = (dcomplex){3, 4}.real, .tag = (int){5}};",
    );
    assert_eq!(inits(&s[0]), ["(lit struct  (typedef dcomplex) {1 2})"]);
    assert_eq!(
        stmt_expr(&s[1]),
        "(= z (lit struct  (typedef dcomplex) {(/ (. z real) 2) (/ (. z imag) n)}))"
    );
    assert_eq!(
        inits(&s[2]),
        ["(lit struct point (typedef point_t) {(.y = 2) (.x = 1)})"]
    );
    assert_eq!(inits(&s[3]), ["(lit arr(int) {1 2 3})"]);
    assert_eq!(
        inits(&s[4]),
        ["(+ (. (lit struct  (typedef dcomplex) {0}) real) (cast double (. (lit struct  (typedef dcomplex) {1 2}) imag)))"]
    );
    assert_eq!(
        inits(&s[5]),
        ["(+ (+ (sizeof (lit arr(int, 2) {0 1})) (sizeof (lit struct  (typedef dcomplex) {}))) (sizeof struct  (typedef dcomplex)))"]
    );
    assert_eq!(
        inits(&s[6]),
        ["(lit struct inner {(.c = (. (lit struct  (typedef dcomplex) {3 4}) real)) (.tag = (lit int {5}))})"]
    );
    // NPB's `dcmplx_div2(chk, (double)(NTOTAL))`, expanded.
    let s = host(
        "dcomplex chk; chk = (dcomplex){(chk).real/((double)(64)), (chk).imag/((double)(64))};",
    );
    assert_eq!(
        stmt_expr(&s[1]),
        "(= chk (lit struct  (typedef dcomplex) {(/ (. chk real) (cast double 64)) (/ (. chk imag) (cast double 64))}))"
    );
    // The span of a compound literal covers the type and the braces.
    let (sources, out) = pp("(int[]){1, 2}[1] + x");
    let mut diags = Diags::new();
    let e = parse_expr(&out.tokens, &mut diags).unwrap();
    let ExprKind::Binary(_, l, _) = &e.kind else {
        panic!("{e:?}")
    };
    let ExprKind::Index(lit, _) = &l.kind else {
        panic!("{l:?}")
    };
    assert_eq!(sources.snippet(lit.span), "(int[]){1, 2}");
    assert!(diags.is_empty());
    // At file scope, `= (T){…}` is an initializer, not a function body.
    let unit = ok("typedef struct { double re, im; } c_t;
                   static c_t zero = (c_t){0.0, 0.0};
                   int *p = (int[]){1, 2}, q = 3;
                   void f(void) { }");
    assert_eq!(kinds(&unit), ["decl", "decl", "decl", "fn"]);
    assert_eq!(
        decl_types(&unit),
        [
            "c_t: struct ",
            "zero: struct  (typedef c_t)",
            "p: ptr(int)",
            "q: int"
        ]
    );
}

#[test]
fn designated_initializers() {
    let s = host(
        "point_t p = {.x = 1, .y = 2};\n\
         int arr[5] = {[2] = 7, [4] = 9, 10};\n\
         struct outer o = {.b.c = 1.0, .q[1] = 2, .b = {.tag = 3}};\n\
         int r[8] = {[0 ... 3] = 1, [n - 1] = 2};\n\
         point_t pts[3] = {{1, 2}, [2] = {.y = 6}, };",
    );
    assert_eq!(inits(&s[0]), ["{(.x = 1) (.y = 2)}"]);
    assert_eq!(inits(&s[1]), ["{([2] = 7) ([4] = 9) 10}"]);
    assert_eq!(
        inits(&s[2]),
        ["{(.b.c = 1) (.q[1] = 2) (.b = {(.tag = 3)})}"]
    );
    assert_eq!(inits(&s[3]), ["{([0 ... 3] = 1) ([(- n 1)] = 2)}"]);
    assert_eq!(inits(&s[4]), ["{{1 2} ([2] = {(.y = 6)})}"]);
    // A designated element's span runs from its first designator to the end of its value.
    let unit = ok("void f(void) { int v[4] = {[1] = 2 + 3}; }");
    let StmtKind::Decl(d) = &function(&unit, "f").body.stmts[0].kind else {
        panic!()
    };
    let Some(Initializer::List(items, _)) = &d.declarators[0].init else {
        panic!("{d:?}")
    };
    let Initializer::Designated { span, .. } = &items[0] else {
        panic!("{items:?}")
    };
    assert_eq!((span.lo, span.hi), (27, 38));
}

#[test]
fn storage_classes_and_qualifiers_of_locals() {
    let s = host(
        "static int calls = 0;\n\
         const int k = 3;\n\
         volatile int v = 0;\n\
         int *volatile vp = 0;\n\
         volatile float *const vq = 0;\n\
         register int r = 4;\n\
         static const double ref[3] = {1.0, 2.0, 3.0};\n\
         extern int counter;\n\
         float *restrict pa = a;\n\
         const volatile unsigned long cv = 1;",
    );
    assert_eq!(
        local_decls(&s),
        [
            "calls: int",
            "k: const(int)",
            "v: int",
            "vp: ptr(int)",
            "vq: ptr const(float)",
            "r: int",
            "ref: arr(const(double), 3)",
            "counter: int",
            "pa: ptr restrict(float)",
            "cv: const(unsigned long)",
        ]
    );
    let storage = |i: usize| match &s[i].kind {
        StmtKind::Decl(d) => d.storage,
        other => panic!("{other:?}"),
    };
    assert_eq!(storage(0), Storage::Static);
    assert_eq!(storage(5), Storage::None);
    assert_eq!(storage(6), Storage::Static);
    assert_eq!(storage(7), Storage::Extern);
}

#[test]
fn tags_and_typedefs_inside_functions() {
    let s = host(
        "struct local { int a; float b; } loc = {1, 2.0f};\n\
         struct bits { int a : 3, : 0; unsigned b : 4; struct { int u, v; }; union { int i; float f; }; };\n\
         struct bits bs;\n\
         struct { int a; } anon;\n\
         union u { int i; float f; } un;\n\
         enum color { RED, GREEN = 5, BLUE, } col = GREEN;\n\
         enum { ONLY };\n\
         typedef struct { int a; } ls_t;\n\
         ls_t v = {RED};\n\
         typedef enum { NO, YES } yes_no;\n\
         yes_no yn = YES;\n\
         typedef int myint, *myptr;\n\
         myint mi = (myint)3;\n\
         myptr mp = &mi;\n\
         struct empty {} e;",
    );
    assert_eq!(
        local_decls(&s),
        [
            "loc: struct local",
            "bs: struct bits",
            "anon: struct ",
            "un: union u",
            "col: enum color",
            "ls_t: struct ",
            "v: named ls_t",
            "yes_no: enum ",
            "yn: named yes_no",
            "myint: int",
            "myptr: ptr(int)",
            "mi: named myint",
            "mp: named myptr",
            "e: struct empty",
        ]
    );
    // `struct bits { … };` and `enum { ONLY };` declare no object.
    for i in [1, 6] {
        let StmtKind::Decl(d) = &s[i].kind else {
            panic!("{:?}", s[i])
        };
        assert!(d.declarators.is_empty(), "{d:?}");
    }
    assert_eq!(inits(&s[12]), ["(cast named myint 3)"]);
    // At file scope, a definition without a declarator stays opaque; with one it is a
    // declaration.
    let unit = ok("struct S { int a; };\nstruct T { int b; } t;\nenum { A, B };\n");
    assert_eq!(kinds(&unit), ["opaque", "decl", "opaque"]);
}

#[test]
fn function_pointers() {
    let s = host(
        "unary_fn fp = twice;\n\
         double (*fp2)(double) = twice;\n\
         double (*tab[2])(double) = {twice, twice};\n\
         int (*cmp)(const void *, const void *);\n\
         int (*logf_)(const char *fmt, ...);\n\
         void (*cb)(void), (*cb2)();\n\
         double twice(double);\n\
         struct ops { double (*f)(double); } o = {twice};\n\
         double r = fp(1.0) + fp2(2.0) + (*fp)(3.0) + tab[1](4.0) + o.f(5.0) + (fp)(6.0);\n\
         (*cb)();",
    );
    assert_eq!(
        local_decls(&s),
        [
            "fp: named unary_fn",
            "fp2: ptr(fn(double) -> double)",
            "tab: arr(ptr(fn(double) -> double), 2)",
            "cmp: ptr(fn(ptr(const(void)), ptr(const(void))) -> int)",
            "logf_: ptr(fn(ptr(const(char)), ...) -> int)",
            "cb: ptr(fn() -> void)",
            "cb2: ptr(fn() -> void)",
            "twice: fn(double) -> double",
            "o: struct ops",
            "r: double",
        ]
    );
    assert_eq!(
        inits(&s[8]),
        ["(+ (+ (+ (+ (+ (call fp 1) (call fp2 2)) (call* (* fp) 3)) (call* ([] tab 1) 4)) (call* (. o f) 5)) (call fp 6))"]
    );
    assert_eq!(stmt_expr(&s[9]), "(call* (* cb) )");
    // Parameters of function pointer type.
    let unit = ok(
        "void g(int n, float *a, double (*h)(double), int cmp(const void *, const void *)) {\n\
         #pragma acc kernels\n\
         for (int i = 0; i < n; i++) a[i] = 0;\n}",
    );
    assert_eq!(
        params(function(&unit, "g")),
        [
            "n: int",
            "a: ptr(float)",
            "h: ptr(fn(double) -> double)",
            "cmp: fn(ptr(const(void)), ptr(const(void))) -> int",
        ]
    );
    // A variadic definition holding a region is refused; elsewhere it is opaque.
    let (unit, text, _) = tu("int v(int n, ...) {\n#pragma acc kernels\nn++;\nreturn n;\n}\nint w(int n, ...) { return n; }");
    assert_eq!(kinds(&unit), ["opaque", "opaque"]);
    assert!(
        text.starts_with(
            "error: variadic function definitions are not supported\n  ┌─ test.c:1:5\n"
        ),
        "{text}"
    );
}

#[test]
fn sizeof_and_casts_of_host_types() {
    let s = host(
        "size_t s1 = sizeof(dcomplex) + sizeof(int[4]) + sizeof(struct inner) + sizeof(unary_fn);\n\
         size_t s2 = sizeof s1 + sizeof(a) / sizeof(a[0]) + sizeof *a + sizeof(long double);\n\
         float (*rows)[8] = (float (*)[8])a;\n\
         row8_t *rows2 = (row8_t *)a;\n\
         struct outer *po = (struct outer *)malloc(sizeof *po);\n\
         double d = (double)(size_t)3 + (long double)1;\n\
         void *vp = (void *)(double (*)(double))0;",
    );
    assert_eq!(
        inits(&s[0]),
        ["(+ (+ (+ (sizeof struct  (typedef dcomplex)) (sizeof arr(int, 4))) (sizeof struct inner)) (sizeof named unary_fn))"]
    );
    assert_eq!(
        inits(&s[1]),
        ["(+ (+ (+ (sizeof s1) (/ (sizeof a) (sizeof ([] a 0)))) (sizeof (* a))) (sizeof named long double))"]
    );
    assert_eq!(inits(&s[2]), ["(cast ptr(arr(float, 8)) a)"]);
    // `row8_t` is a typedef of a type of the subset: resolved.
    assert_eq!(inits(&s[3]), ["(cast ptr(arr(float, 8)) a)"]);
    assert_eq!(
        inits(&s[4]),
        ["(cast ptr(struct outer) (call malloc (sizeof (* po))))"]
    );
    assert_eq!(
        inits(&s[5]),
        ["(+ (cast double (cast size_t 3)) (cast named long double 1))"]
    );
    assert_eq!(
        inits(&s[6]),
        ["(cast ptr(void) (cast ptr(fn(double) -> double) 0))"]
    );
}

#[test]
fn host_control_flow() {
    let s = host(
        "int m = n > 4 ? n : 4, t;\n\
         for (t = 0, m = m + 0; t < 2; t++, m--) ;\n\
         if (n < 0) goto fail;\n\
         switch (n) {\n\
         case 1: m++;\n\
         case 3: m += 2; break;\n\
         case 4: case 5: { m = 1; } break;\n\
         case 6 ... 8: m = 2;\n\
         default: m = 0;\n\
         }\n\
         do { t--; } while (t > 0);\n\
         fail: ;",
    );
    assert_eq!(inits(&s[0]), ["(? (> n 4) n 4)", "-"]);
    let StmtKind::For { init, step, .. } = &s[1].kind else {
        panic!("{:?}", s[1])
    };
    assert!(matches!(init, ForInit::Expr(e) if sx(e) == "(, (= t 0) (= m (+ m 0)))"));
    assert_eq!(
        step.as_ref().map(sx).as_deref(),
        Some("(, (post++ t) (post-- m))")
    );
    let what = |s: &Stmt| match &s.kind {
        StmtKind::Unsupported { what, .. } => what.clone(),
        StmtKind::If { then, .. } => match &then.kind {
            StmtKind::Unsupported { what, .. } => format!("if {what}"),
            _ => "if".into(),
        },
        StmtKind::DoWhile { .. } => "do".into(),
        _ => "other".into(),
    };
    let kinds: Vec<String> = s[2..].iter().map(what).collect();
    assert_eq!(kinds, ["if goto", "switch", "do", "label"]);
    let StmtKind::Unsupported { body: Some(sw), .. } = &s[3].kind else {
        panic!()
    };
    let StmtKind::Block(sw) = &sw.kind else {
        panic!("{sw:?}")
    };
    let cases: Vec<String> = sw.stmts.iter().map(what).collect();
    assert_eq!(
        cases,
        ["case", "case", "other", "case", "other", "case", "default"]
    );
}

#[test]
fn host_literals_and_types() {
    let s = host(
        "const char *msg = \"hello, \" \"world\\n\";\n\
         char c1 = '\\n', c2 = '\\x41', c3 = '\\'', c4 = '\\0', c5 = '\\\\';\n\
         float f1 = 1e-3f;\n\
         double h1 = 0x1p3, h2 = 0x1.8p-1;\n\
         unsigned long ul = 10UL;\n\
         long long ll = 077LL;\n\
         long double ld = 1.5L;\n\
         _Bool b1 = 1;\n\
         unsigned char uc = 0xFFu;\n\
         const char *w = u8\"x\" \"y\";",
    );
    assert_eq!(
        local_decls(&s),
        [
            "msg: ptr(const(char))",
            "c1: char",
            "c2: char",
            "c3: char",
            "c4: char",
            "c5: char",
            "f1: float",
            "h1: double",
            "h2: double",
            "ul: unsigned long",
            "ll: long long",
            "ld: named long double",
            "b1: _Bool",
            "uc: unsigned char",
            "w: ptr(const(char))",
        ]
    );
    assert_eq!(inits(&s[0]), ["\"hello, world\\n\""]);
    assert_eq!(inits(&s[1]), ["'10'", "'65'", "'39'", "'0'", "'92'"]);
    assert_eq!(inits(&s[2]), ["0.001f"]);
    assert_eq!(inits(&s[3]), ["8", "0.75"]);
    assert_eq!(inits(&s[6]), ["1.5"]);
    assert_eq!(inits(&s[9]), ["\"xy\""]);
    let StmtKind::Decl(d) = &s[5].kind else {
        panic!()
    };
    assert!(matches!(
        &d.declarators[0].init,
        Some(Initializer::Expr(Expr {
            kind: ExprKind::Int {
                value: 63,
                radix: 8,
                suffix: crate::front::ast::IntSuffix {
                    unsigned: false,
                    longs: 2
                }
            },
            ..
        }))
    ));
}

#[test]
fn gnu_attributes_and_extensions() {
    let s = host(
        "int aligned_v __attribute__((aligned(16))) = 0;\n\
         __attribute__((unused)) int unused_v = 0;\n\
         struct __attribute__((packed)) pk { char c; int i __attribute__((aligned(4))); } pkv;\n\
         __extension__ long long ext = 1;\n\
         typedef int __attribute__((aligned(8))) aint;\n\
         aint q = 2;\n\
         double sq(double) __attribute__((const));",
    );
    assert_eq!(
        local_decls(&s),
        [
            "aligned_v: int",
            "unused_v: int",
            "pkv: struct pk",
            "ext: long long",
            "aint: int",
            "q: named aint",
            "sq: fn(double) -> double",
        ]
    );
    // Errors after a dropped attribute point at the right token.
    let (_, text, _) = tu(
        "void f(int n, float *a) {\n  int x __attribute__((unused)) = (1 +;\n\
         #pragma acc kernels\n  for (int i = 0; i < n; i++) a[i] = 0;\n}",
    );
    assert!(
        text.starts_with("error: expected expression, found `;`\n  ┌─ test.c:2:39\n"),
        "{text}"
    );
    // An attribute never closed swallows the rest of the item: an error, not a panic.
    let (unit, text, _) =
        tu("void f(int n, float *a) {\n#pragma acc kernels\n  int x __attribute__((a;\n}\nint y;");
    assert_eq!(kinds(&unit), ["opaque", "decl"]);
    assert!(text.starts_with("error: "), "{text}");
}

#[test]
fn host_calls_members_and_pragmas() {
    let s = host(
        "printf(\"%d %s\\n\", n, \"x\");\n\
         fprintf(stderr, \"%f\\n\", 1.0);\n\
         if (n > 1000000) exit(1);\n\
         struct node { struct outer r[3]; struct node *next; } nd, *np = &nd;\n\
         nd.r[0].b.c = 1.0;\n\
         np->r[1].b.tag = 2;\n\
         np->next->r[2].q[1] = 3;\n\
         printf(\"%s\\n\", __func__);\n\
         #pragma omp parallel for\n\
         for (int i = 0; i < n; i++) a[i] = 1;\n\
         _Static_assert(sizeof(int) == 4, \"int\" \" is 4 bytes\");\n\
         _Static_assert(1);",
    );
    assert_eq!(stmt_expr(&s[0]), "(call printf \"%d %s\\n\" n \"x\")");
    assert_eq!(stmt_expr(&s[1]), "(call fprintf stderr \"%f\\n\" 1)");
    assert_eq!(
        local_decls(&s[3..4]),
        ["nd: struct node", "np: ptr(struct node)"]
    );
    assert_eq!(stmt_expr(&s[4]), "(= (. (. ([] (. nd r) 0) b) c) 1)");
    assert_eq!(stmt_expr(&s[5]), "(= (. (. ([] (-> np r) 1) b) tag) 2)");
    assert_eq!(
        stmt_expr(&s[6]),
        "(= ([] (. ([] (-> (-> np next) r) 2) q) 1) 3)"
    );
    assert_eq!(stmt_expr(&s[7]), "(call printf \"%s\\n\" __func__)");
    assert!(matches!(s[8].kind, StmtKind::Pragma(0)));
    assert!(matches!(s[9].kind, StmtKind::For { .. }));
    // `_Static_assert` declares nothing, at block scope and at file scope.
    for st in &s[10..12] {
        assert!(
            matches!(&st.kind, StmtKind::Decl(d) if d.declarators.is_empty()),
            "{st:?}"
        );
    }
    let unit = ok("_Static_assert(sizeof(long) == 8, \"LP64\");\nint x;");
    assert_eq!(kinds(&unit), ["opaque", "decl"]);
}

/// The new trees print back as C (`front::pragma::print`, used by diagnostics and back ends).
#[test]
fn host_constructs_print_back() {
    use crate::front::pragma::{ctype_to_c, expr_to_c};
    for (src, printed) in [
        ("(int[]){1, [2] = 3, {4}}", "(int []){1, [2] = 3, {4}}"),
        (
            "(struct S){.a.b = 1, [0 ... 3] = 2}.a",
            "(struct S){.a.b = 1, [0 ... 3] = 2}.a",
        ),
        ("(*fp)(x, y)", "(*fp)(x, y)"),
        ("tab[1](x) + o.f(2)", "tab[1](x) + o.f(2)"),
        ("-(float){1}", "-(float){1}"),
    ] {
        let e = expr_of(src).unwrap_or_else(|d| panic!("{src}: {d}"));
        assert_eq!(expr_to_c(&e), printed);
    }
    let s = host(
        "double (*fp)(double);\n\
         int (*cmp)(const void *, const void *);\n\
         double (*tab[2])(double);\n\
         int (*log)(const char *, ...);\n\
         void (*cb)(void);\n\
         float (*(*rows)(int))[8];",
    );
    let printed: Vec<String> = s
        .iter()
        .map(|st| match &st.kind {
            StmtKind::Decl(d) => ctype_to_c(&d.declarators[0].ty, &d.declarators[0].name.name),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        printed,
        [
            "double (*fp)(double)",
            "int (*cmp)(const void *, const void *)",
            "double (*tab[2])(double)",
            "int (*log)(const char *, ...)",
            "void (*cb)(void)",
            "float (*(*rows)(int))[8]",
        ]
    );
}

/// Types of the system headers accshare does not read (the timing code around regions), and
/// the C11 specifiers that mean nothing to it.
#[test]
fn system_header_types_and_ignored_specifiers() {
    let src = "void f(int n, float *a) {\n\
               clock_t t0 = clock(); time_t now = time(NULL); va_list ap; wchar_t wc = L'x';\n\
               uintmax_t um = 0; ssize_t got = -1; div_t q;\n\
               _Alignas(16) float buf[4]; static _Thread_local int tl = 0; __thread int t2;\n\
               #pragma acc kernels\n\
               for (int i = 0; i < n; i++) a[i] = 0;\n}";
    let (sources, mut out) = pp(src);
    out.system_includes = [
        "<time.h>",
        "<stdarg.h>",
        "<stddef.h>",
        "<stdint.h>",
        "<unistd.h>",
        "<stdlib.h>",
    ]
    .iter()
    .map(|h| (h.to_string(), Span::default()))
    .collect();
    let mut diags = Diags::new();
    let unit = parse_translation_unit(&out, &sources, &mut diags);
    assert_eq!(render(&sources, &diags.0), "");
    let f = function(&unit, "f");
    assert_eq!(
        local_decls(&f.body.stmts),
        [
            "t0: long",
            "now: long",
            "ap: named va_list",
            "wc: int",
            "um: unsigned long",
            "got: long",
            "q: named div_t",
            "buf: arr(float, 4)",
            "tl: int",
            "t2: int",
        ]
    );
    // Without the header, `clock_t` is not a type name.
    let (_, text, _) = tu(src);
    assert!(
        text.starts_with("error: expected one of `;`, `:`, found `t0`"),
        "{text}"
    );
}

/// Struct definitions keep their members (issue 14: kernels index arrays of structs): tags
/// defined at file scope and typedefs of structs resolve at later uses, in declarations,
/// parameters and through pointers; the members the kernels cannot index are told apart.
#[test]
fn struct_definitions_keep_members() {
    let unit = ok("typedef struct { float re, im; } cpx;\n\
                   struct pt { float x, y, z; };\n\
                   struct pt p[10][4];\n\
                   cpx a[8];\n\
                   typedef struct pt pt_t;\n\
                   pt_t q[3];\n\
                   struct bits { unsigned a : 3; float w; };\n\
                   struct holder { float *ptr; struct pt n; float v[2]; int k; };\n\
                   struct late l[2];\n\
                   void f(const cpx *c, struct pt *r) { a[0].re = c[1].im + r[2].x; }");
    assert_eq!(
        decl_types(&unit),
        [
            "cpx: struct ",
            "p: arr(arr(struct pt, 4), 10)",
            "a: arr(struct  (typedef cpx), 8)",
            "pt_t: struct pt",
            "q: arr(struct pt (typedef pt_t), 3)",
            "l: arr(struct late, 2)",
        ]
    );
    let decl = |i: usize| match &unit.items[i].kind {
        ItemKind::Decl(d) => d.declarators[0].ty.clone(),
        k => panic!("{k:?}"),
    };
    // `cpx a[8]`: two float fields, named as the host names the type.
    let cpx = decl(3);
    let d = cpx.base_struct().expect("struct");
    let (elem, names) = d.scalar_fields().expect("scalar fields");
    assert_eq!(elem, Scalar::Float);
    assert_eq!(
        names.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
        ["re", "im"]
    );
    assert_eq!(d.c_name(), "cpx");
    // `struct pt p[10][4]`: the tag.
    let p = decl(2);
    let d = p.base_struct().expect("struct");
    assert_eq!(d.c_name(), "struct pt");
    assert_eq!(d.scalar_fields().expect("fields").1.len(), 3);
    let ItemKind::Opaque = unit.items[6].kind else {
        panic!("{:?}", unit.items[6].kind)
    };
    let f = function(&unit, "f");
    let [Param { ty: c, .. }, Param { ty: r, .. }] = &f.params[..] else {
        panic!("{:?}", f.params)
    };
    assert_eq!(ty(c), "ptr(const(struct  (typedef cpx)))");
    assert_eq!(ty(r), "ptr(struct pt)");
    let StmtKind::Expr(e) = &f.body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(
        sx(e),
        "(= (. ([] a 0) re) (+ (. ([] c 1) im) (. ([] r 2) x)))"
    );
}

/// What `StructDef::scalar_fields` refuses: bit-fields, pointers, nested structs, arrays,
/// unions, anonymous members and fields of different types, each at its member.
#[test]
fn struct_members_outside_the_kernel_subset() {
    let cases = [
        ("struct s { unsigned a : 3; float w; };", "a bit-field"),
        ("struct s { float *p; float w; };", "a pointer inside a struct"),
        ("struct t { float x; }; struct s { struct t n; float w; };", "a nested struct"),
        ("struct s { float v[2]; float w; };", "an array inside a struct"),
        ("struct s { union { int i; float f; } u; float w; };", "a union inside a struct"),
        ("struct s { struct { int i; }; float w; };", "an anonymous struct or union member"),
        (
            "struct s { int id; float w; };",
            "a `float` member after `int` ones (the fields of a struct in a kernel must have one type)",
        ),
    ];
    for (src, what) in cases {
        let unit = ok(&format!("{src}\nstruct s arr[4];"));
        let ItemKind::Decl(d) = &unit.items.last().expect("item").kind else {
            panic!("{src}")
        };
        let def = d.declarators[0].ty.base_struct().expect("struct").clone();
        let err = def.scalar_fields().expect_err(src);
        assert_eq!(err.what, what, "{src}");
    }
}
