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
        ["decl", "opaque", "decl", "decl", "fn", "decl", "fn"]
    );
    let ItemKind::Decl(d) = &unit.items[0].kind else {
        panic!()
    };
    assert_eq!(d.storage, Storage::Typedef);
    assert_eq!(
        decl_types(&unit),
        [
            "DATA_TYPE: float",
            "a: arr(float, 10)",
            "q: ptr(named P)",
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
        ["opaque", "pragma", "opaque", "decl", "opaque", "opaque", "opaque", "decl", "fn", "fn"]
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
