use super::*;
use crate::diag::render;
use std::sync::atomic::{AtomicUsize, Ordering};

fn run_opts(src: &str, opts: &PpOptions) -> (SourceMap, PpOutput, Diags) {
    let mut sm = SourceMap::new();
    let main = sm.add("t.c", PathBuf::from("t.c"), src.to_string());
    let mut d = Diags::new();
    let out = preprocess(&mut sm, main, opts, &mut d);
    (sm, out, d)
}

fn run(src: &str) -> (SourceMap, PpOutput, Diags) {
    run_opts(src, &PpOptions::default())
}

/// The output tokens separated by single spaces (pragmas as `#pragma<i>`).
fn spell(out: &PpOutput) -> String {
    let v: Vec<String> = out
        .tokens
        .iter()
        .map(|t| match t.kind {
            PpKind::Pragma(i) => format!("#pragma{i}"),
            _ => t.text.clone(),
        })
        .collect();
    v.join(" ")
}

/// The tokens of `s` separated by single spaces.
fn norm(s: &str) -> String {
    let v: Vec<&str> = lex(s)
        .iter()
        .filter(|t| t.kind != RawKind::Newline)
        .map(|t| &s[t.lo..t.hi])
        .collect();
    v.join(" ")
}

/// Preprocesses `src`, asserts there is no diagnostic and returns the spelled output.
fn ok(src: &str) -> String {
    let (sm, out, d) = run(src);
    assert!(
        d.is_empty(),
        "unexpected diagnostics:\n{}",
        render(&sm, &d.0)
    );
    spell(&out)
}

fn rendered(src: &str) -> String {
    let (sm, _, d) = run(src);
    render(&sm, &d.0)
}

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    let d = std::env::temp_dir().join(format!("accshare-pp-{}-{}-{}", std::process::id(), tag, n));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// Preprocesses the file at `path` (read from disk).
fn run_file(path: &Path, opts: &PpOptions) -> (SourceMap, PpOutput, Diags) {
    let mut sm = SourceMap::new();
    let text = std::fs::read_to_string(path).unwrap();
    let main = sm.add(path.to_string_lossy(), path.to_path_buf(), text);
    let mut d = Diags::new();
    let out = preprocess(&mut sm, main, opts, &mut d);
    (sm, out, d)
}

// ----- object-like and function-like macros

#[test]
fn object_like() {
    assert_eq!(ok("#define N 1024\nint a[N];"), "int a [ 1024 ] ;");
    assert_eq!(ok("#define A B\n#define B 7\nA"), "7");
    assert_eq!(ok("#define E\nx E y"), "x y");
    assert_eq!(ok("#define N 1\n#undef N\nN"), "N");
    // A macro defined after a use does not apply to it.
    assert_eq!(ok("N\n#define N 2\nN"), "N 2");
    // Line continuation in a definition.
    assert_eq!(ok("#define L a \\\n  b\nL"), "a b");
}

#[test]
fn function_like() {
    let src = "#define M 1024\n#define IDX(i,j) ((i)*M+(j))\nA[IDX(a+1, b)] = IDX(IDX(0,1), c);";
    assert_eq!(
        ok(src),
        norm("A[((a+1)*1024+(b))] = ((((0)*1024+(1)))*1024+(c));")
    );
    assert_eq!(ok("#define F() 42\nF() F ( ) F"), "42 42 F");
    // Commas inside parentheses do not split arguments.
    assert_eq!(
        ok("#define MAX(a,b) ((a)>(b)?(a):(b))\nMAX((x,y), f(1,2))"),
        norm("(((x,y))>(f(1,2))?((x,y)):(f(1,2)))")
    );
    // Arguments spanning lines, and a name followed by `(` on the next line.
    assert_eq!(
        ok("#define ADD(a,b) a+b\nADD(1,\n  2)\nADD\n(3, 4)"),
        "1 + 2 3 + 4"
    );
    // A function-like macro name not followed by `(` is not expanded.
    assert_eq!(ok("#define f(x) x\nint f; f = 1;"), "int f ; f = 1 ;");
    // ... not even when the `(` is after a directive.
    assert_eq!(ok("#define f(x) [x]\nf\n#define g 1\n(2)"), "f ( 2 )");
    // Empty arguments.
    assert_eq!(
        ok("#define F(a,b) <a|b>\nF(,) F(1,) F(,2)"),
        "< | > < 1 | > < | 2 >"
    );
    // Arguments are expanded before substitution.
    assert_eq!(ok("#define N 3\n#define SQ(x) x*x\nSQ(N)"), "3 * 3");
    // A macro expanding to the name of a function-like macro picks up the `(` after it.
    assert_eq!(ok("#define f(x) [x]\n#define g f\ng(1)"), "[ 1 ]");
}

#[test]
fn stringify_and_paste() {
    let (_, out, d) = run("#define S(x) #x\nS(  a  +   \"b\\n\" ) S() S(  'c'  )");
    assert!(d.is_empty());
    let texts: Vec<&str> = out.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, vec![r#""a + \"b\\n\"""#, r#""""#, r#""'c'""#]);
    assert_eq!(
        ok("#define CAT(a,b) a##b\nCAT(x, 1) CAT(,y) CAT(z,) CAT(,)"),
        "x1 y z"
    );
    // A pasted name is rescanned.
    assert_eq!(ok("#define CAT(a,b) a ## b\n#define xy 42\nCAT(x,y)"), "42");
    // Operands of ## are not expanded first.
    assert_eq!(ok("#define CAT(a,b) a ## b\n#define N 1\nCAT(N, 2)"), "N2");
    assert_eq!(
        ok("#define CAT(a,b) a ## b\n#define X(a,b) CAT(a,b)\n#define N 1\nX(N, 2)"),
        "12"
    );
    assert_eq!(
        ok("#define OP(a,b) a ## = b\nOP(+,y) OP(<<,1)"),
        "+= y <<= 1"
    );
}

#[test]
fn bad_paste_is_an_error_and_keeps_tokens() {
    let (sm, out, d) = run("#define CAT(a,b) a##b\nCAT(+,-)");
    assert_eq!(spell(&out), "+ -");
    assert_eq!(
        render(&sm, &d.0),
        "error: pasting `+` and `-` does not give a valid preprocessing token\n  \
         ┌─ t.c:2:1\n  │\n2 │ CAT(+,-)\n  │ ^^^^^^^^\n\n"
    );
}

#[test]
fn variadic() {
    assert_eq!(
        ok("#define P(fmt, ...) printf(fmt, __VA_ARGS__)\nP(\"a\", 1, (2, 3))"),
        norm("printf(\"a\", 1, (2, 3))")
    );
    assert_eq!(
        ok("#define Q(fmt, ...) f(fmt, ## __VA_ARGS__)\nQ(\"a\") Q(\"b\", 1)"),
        norm("f(\"a\") f(\"b\", 1)")
    );
    assert_eq!(
        ok("#define R(fmt, args...) g(fmt, args)\nR(x, 1, 2)"),
        norm("g(x, 1, 2)")
    );
    assert_eq!(
        ok("#define V(...) [__VA_ARGS__]\nV() V(a) V(a,b)"),
        norm("[] [a] [a,b]")
    );
    // A variadic macro may omit the variable arguments entirely.
    assert_eq!(ok("#define W(a, ...) a:__VA_ARGS__\nW(1)"), "1 :");
}

/// C99 6.10.3.5 EXAMPLE 3.
#[test]
fn standard_example_3() {
    let src = r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
"#;
    let want = r#"f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { "hello", "" };"#;
    assert_eq!(ok(src), norm(want));
}

/// C99 6.10.3.5 EXAMPLES 4, 5 and 7 (without the `@` and `\n` outside strings, which are not
/// tokens for this lexer).
#[test]
fn standard_examples_4_5_7() {
    let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: ), s);
glue(HIGH, LOW);
xglue(HIGH, LOW)
#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };
#undef debug
#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
    let want = r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ":", s);
"hello";
"hello" ", world"
int j[] = { 123, 45, 67, 89, 10, 11, 12, };
fprintf(stderr, "Flag");
fprintf(stderr, "X = %d\n", x);
puts("The first, second, and third items.");
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
    assert_eq!(ok(src), norm(want));
}

#[test]
fn recursion_terminates() {
    assert_eq!(ok("#define foo foo\nfoo"), "foo");
    assert_eq!(ok("#define a b\n#define b a\na b"), "a b");
    assert_eq!(ok("#define f(x) f(x)\nf(1)"), "f ( 1 )");
    assert_eq!(ok("#define f(x) g(x)\n#define g(x) f(x)\nf(1)"), "f ( 1 )");
    // C99 6.10.3.4: a painted name stays unexpanded later on.
    assert_eq!(ok("#define foo(x) bar x\nfoo(foo) (2)"), "bar foo ( 2 )");
    // A mutually recursive pair in a chain.
    assert_eq!(ok("#define A B + A\n#define B A\nA"), "A + A");
}

#[test]
fn exponential_expansion_stops() {
    let mut src = String::new();
    for i in 0..30 {
        src.push_str(&format!("#define M{} M{} M{}\n", i, i + 1, i + 1));
    }
    src.push_str("int x = M0;\nint y = 1;\n");
    let (sm, out, d) = run(&src);
    assert_eq!(d.error_count(), 1, "{}", render(&sm, &d.0));
    assert!(render(&sm, &d.0).contains("error: macro expansion too large"));
    // Work goes on after the error.
    assert!(spell(&out).ends_with("int y = 1 ;"));
    assert!(out.tokens.len() < 2 * MAX_EXPANSION_TOKENS);

    // The same blow-up through arguments.
    let mut src = String::from("#define D(x) x x\n");
    src.push_str(&"D(".repeat(40));
    src.push('1');
    src.push_str(&")".repeat(40));
    src.push_str("\nend\n");
    let (sm, out, d) = run(&src);
    assert_eq!(d.error_count(), 1, "{}", render(&sm, &d.0));
    assert_eq!(out.tokens.last().map(|t| t.text.as_str()), Some("end"));
}

#[test]
fn deep_argument_nesting_is_bounded() {
    let mut src = String::from("#define F(x) (x)\n");
    src.push_str(&"F(".repeat(2000));
    src.push('1');
    src.push_str(&")".repeat(2000));
    src.push_str("\nend\n");
    let (sm, out, d) = run(&src);
    let r = render(&sm, &d.0);
    assert!(
        r.contains("error: macro arguments nested too deeply"),
        "{r}"
    );
    assert_eq!(d.error_count(), 1);
    assert_eq!(out.tokens.last().map(|t| t.text.as_str()), Some("end"));
    // 50 levels are fine.
    let mut src = String::from("#define F(x) x\n");
    src.push_str(&"F(".repeat(50));
    src.push('1');
    src.push_str(&")".repeat(50));
    assert_eq!(ok(&src), "1");
}

#[test]
fn unterminated_arguments() {
    let r = rendered("#define F(x) x\nint a = F(1,\n");
    assert_eq!(
        r,
        "error: unterminated argument list invoking macro `F`\n  ┌─ t.c:2:9\n  │\n2 │ int a = F(1,\n  \
         │         ^ the `(` of this macro use is never closed\n\n"
    );
}

#[test]
fn wrong_argument_count() {
    let r = rendered("#define F(a, b) a+b\nF(1)\nok");
    assert_eq!(
        r,
        "error: macro `F` expects 2 arguments, found 1\n  ┌─ t.c:2:1\n  │\n1 │ #define F(a, b) a+b\n  \
         │         - macro defined here\n2 │ F(1)\n  │ ^^^^\n\n"
    );
    let (_, out, _) = run("#define F(a, b) a+b\nF(1)\nok");
    assert_eq!(spell(&out), "ok");
}

#[test]
fn directives_inside_arguments() {
    let src = "#define F(x) [x]\nF(1\n#ifdef NOPE\n+2\n#else\n+3\n#endif\n)";
    assert_eq!(ok(src), "[ 1 + 3 ]");
}

#[test]
fn define_errors() {
    let r = rendered(
        "#define 3 x\n#define F(a,a) a\n#define G(a) #b\n#define H ## x\n#define defined 1\n",
    );
    assert!(r.contains("error: macro name must be an identifier"), "{r}");
    assert!(r.contains("error: duplicate macro parameter `a`"), "{r}");
    assert!(
        r.contains("error: `#` is not followed by a macro parameter"),
        "{r}"
    );
    assert!(
        r.contains("error: `##` cannot appear at either end of a macro expansion"),
        "{r}"
    );
    assert!(
        r.contains("error: `defined` cannot be used as a macro name"),
        "{r}"
    );
    let (_, _, d) =
        run("#define 3 x\n#define F(a,a) a\n#define G(a) #b\n#define H ## x\n#define defined 1\n");
    assert_eq!(d.error_count(), 5);
}

#[test]
fn redefinition() {
    // Same body (whitespace amount is irrelevant): no warning.
    assert_eq!(ok("#define N (1 +  2)\n#define N (1 + 2)\nN"), "( 1 + 2 )");
    let (sm, out, d) = run("#define N 1\n#define N 2\nN");
    assert_eq!(spell(&out), "2");
    assert!(!d.has_errors());
    assert_eq!(
        render(&sm, &d.0),
        "warning: macro `N` redefined\n  ┌─ t.c:2:9\n  │\n1 │ #define N 1\n  │         - previous definition\n\
         2 │ #define N 2\n  │         ^ redefined here\n\n"
    );
}

// ----- conditionals

#[test]
fn conditionals() {
    let src = "#define A 2\n#if A == 2\nyes\n#else\nno\n#endif\n\
               #ifdef A\nd1\n#endif\n#ifndef A\nd2\n#endif\n\
               #if defined(B) || defined A\nd3\n#endif\n\
               #if 0\nx0\n#elif A > 5\nx1\n#elif A\nx2\n#else\nx3\n#endif\n\
               #if 0\n#if 1\nin\n#endif\n#else\nout\n#endif";
    assert_eq!(ok(src), "yes d1 d3 x2 out");
}

#[test]
fn inactive_blocks_are_not_diagnosed() {
    let src = "#if 0\n#foo\n#error no\n#include \"nope.h\"\n#if 1/0\n#endif\n'x\n\"y\n@\n#else\nok\n#endif\n\
               #if 1\nok2\n#elif 1/0\n#endif";
    assert_eq!(ok(src), "ok ok2");
}

#[test]
fn if_expressions() {
    let cases = [
        ("1 + 2 * 3 == 7", true),
        ("(1 + 2) * 3 == 9", true),
        ("-1 > 0u", true),
        ("-1 > 0", false),
        ("-1 < 0", true),
        ("0xffffffffffffffff == -1", true),
        ("18446744073709551615 > 0", true),
        ("1 ? 2 : 0", true),
        ("0 ? 1 : 0", false),
        ("0 && 1/0", false),
        ("1 || 1/0", true),
        ("1 ? 1 : 1/0", true),
        ("'A' == 65", true),
        ("'\\377' < 0", true),
        ("'\\n' == 10 && '\\x41' == 'A' && '\\0' == 0", true),
        ("'ab' == 24930", true),
        ("010 == 8 && 0x10 == 16 && 0b101 == 5", true),
        ("1 << 62 > 0 && (1 << 63) < 0 && (-16 >> 2) == -4", true),
        (
            "10 / 3 == 3 && -7 / 2 == -3 && -7 % 2 == -1 && 7u % 4 == 3",
            true,
        ),
        ("~0 == -1 && !0 == 1 && !5 == 0", true),
        ("UNKNOWN == 0 && !UNKNOWN", true),
        ("(1, 0)", false),
        ("1000000L * 1000000LL == 1000000000000", true),
        ("3 & 5 | 8 ^ 1", true),
        ("(2 >= 2) + (2 <= 1) + (1 != 2) == 2", true),
    ];
    for (e, want) in cases {
        let src = format!("#if {e}\nT\n#else\nF\n#endif");
        let got = ok(&src);
        assert_eq!(got, if want { "T" } else { "F" }, "#if {e}");
    }
}

#[test]
fn if_expression_errors() {
    let cases = [
        ("1/0", "error: division by zero in `#if`"),
        ("1 %0", "error: division by zero in `#if`"),
        ("(1", "error: missing `)` in `#if` expression"),
        (
            "1 +",
            "error: expected value in `#if` expression, found end of line",
        ),
        ("1 2", "error: missing binary operator before `2`"),
        ("1.5", "error: floating constant in `#if` expression"),
        (
            "08",
            "error: invalid integer constant `08` in `#if` expression",
        ),
        (
            "99999999999999999999",
            "error: integer constant `99999999999999999999` is too large",
        ),
        (
            "\"s\"",
            "error: expected value in `#if` expression, found `\"s\"`",
        ),
        ("1 ? 2", "error: expected `:` in `#if` expression"),
        ("defined", "error: expected macro name after `defined`"),
        ("", "error: `#if` with no expression"),
    ];
    for (e, want) in cases {
        let src = format!("#if {e}\nT\n#else\nF\n#endif");
        let (sm, out, d) = run(&src);
        let r = render(&sm, &d.0);
        assert!(r.starts_with(want), "#if {e}: {r}");
        assert_eq!(d.error_count(), 1, "#if {e}: {r}");
        // An erroneous condition is false.
        assert_eq!(spell(&out), "F", "#if {e}");
    }
    assert_eq!(
        rendered("#define Z 0\n#if 1 / Z\n#endif"),
        "error: division by zero in `#if`\n  ┌─ t.c:2:7\n  │\n2 │ #if 1 / Z\n  │       ^\n\n"
    );
    let r = rendered(&format!("#if {}1\n#endif", "(".repeat(5000)));
    assert!(
        r.starts_with("error: `#if` expression nested too deeply"),
        "{r}"
    );
}

#[test]
fn conditional_structure_errors() {
    assert_eq!(
        rendered("int a;\n#endif\n"),
        "error: `#endif` without `#if`\n  ┌─ t.c:2:1\n  │\n2 │ #endif\n  │ ^^^^^^\n\n"
    );
    assert_eq!(
        rendered("#if 1\nint a;\n"),
        "error: unterminated `#if`\n  ┌─ t.c:1:1\n  │\n1 │ #if 1\n  │ ^^^ no matching `#endif`\n\n"
    );
    let r =
        rendered("#if 1\n#else\n#else\n#endif\n#if 0\n#else\n#elif 1\n#endif\n#else\n#elif 1\n");
    assert!(r.contains("error: `#else` after `#else`"), "{r}");
    assert!(r.contains("error: `#elif` after `#else`"), "{r}");
    assert!(r.contains("error: `#else` without `#if`"), "{r}");
    assert!(r.contains("error: `#elif` without `#if`"), "{r}");
    let r = rendered("#ifdef\n#endif\n#ifndef 3\n#endif\n#endif junk\n");
    assert!(
        r.contains("error: expected macro name after `#ifdef`"),
        "{r}"
    );
    assert!(r.contains("error: macro name must be an identifier"), "{r}");
}

#[test]
fn many_nested_ifs() {
    let n = 5000;
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!("#if {}\n", i % 7 != 3));
    }
    src.push_str("deep\n");
    src.push_str(&"#endif\n".repeat(n));
    src.push_str("after\n");
    assert_eq!(
        ok(&src.replace("true", "1").replace("false", "1")),
        "deep after"
    );
    assert_eq!(ok(&src.replace("true", "1").replace("false", "0")), "after");
    // Unterminated: one error per open conditional, no crash.
    let src = "#ifdef X\n".repeat(n);
    let (_, _, d) = run(&src);
    assert_eq!(d.error_count(), n);
}

// ----- includes

#[test]
fn includes() {
    let dir = temp_dir("inc");
    write(&dir, "a.h", "#include \"sub/b.h\"\nint a;\n");
    write(&dir, "sub/b.h", "#include \"c.h\"\nint b = B;\n");
    write(&dir, "sub/c.h", "#define B 2\n");
    let idir = dir.join("idir");
    write(&idir, "d.h", "#ifndef D_H\n#define D_H\nint d;\n#endif\n");
    write(&dir, "e.h", "#pragma once\nint e;\n");
    let main = write(
        &dir,
        "main.c",
        "#include \"a.h\"\n#include <stdio.h>\n#include \"d.h\"\n#include \"d.h\"\n\
         #include \"e.h\"\n#include \"e.h\"\n#define HDR \"a.h\"\nint m;\n",
    );
    let opts = PpOptions {
        include_dirs: vec![idir.clone()],
        ..Default::default()
    };
    let (sm, out, d) = run_file(&main, &opts);
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    assert_eq!(
        spell(&out),
        "int b = 2 ; int a ; int d ; #pragma0 int e ; int m ;"
    );
    assert_eq!(out.system_includes.len(), 1);
    assert_eq!(out.system_includes[0].0, "stdio.h");
    assert_eq!(sm.snippet(out.system_includes[0].1), "#include <stdio.h>");
    // Tokens of an included file carry that file's spans; the file is named by its path.
    let b = out.tokens.iter().find(|t| t.text == "b").unwrap();
    assert_eq!(sm.name(b.span.file), dir.join("sub/b.h").to_string_lossy());
    assert_eq!(sm.snippet(b.span), "b");
    assert_eq!(b.expansion, None);
    let dtok = out.tokens.iter().find(|t| t.text == "d").unwrap();
    assert_eq!(sm.name(dtok.span.file), idir.join("d.h").to_string_lossy());
    // A header included twice is read once.
    let d_files = (0..sm.len())
        .filter(|&f| sm.name(f).ends_with("d.h"))
        .count();
    assert_eq!(d_files, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn angle_include_searches_include_dirs_only() {
    // `cc -I utilities` finds `<polybench.h>` there; the including file's own directory is not
    // searched for `<…>`, and a header found nowhere stays a system include.
    let dir = temp_dir("angle");
    let util = dir.join("utilities");
    write(
        &util,
        "polybench.h",
        "#define POLYBENCH_2D(v, a, b, x, y) v[a][b]\n",
    );
    write(&dir, "local.h", "int local_only;\n");
    let main = write(
        &dir,
        "m.c",
        "#include <polybench.h>\n#include <local.h>\nfloat POLYBENCH_2D(A, 4, 5, n, m);\n",
    );
    let opts = PpOptions {
        include_dirs: vec![util.clone()],
        ..Default::default()
    };
    let (sm, out, d) = run_file(&main, &opts);
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    assert_eq!(spell(&out), "float A [ 4 ] [ 5 ] ;");
    let sys: Vec<&str> = out.system_includes.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(sys, ["local.h"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn standard_header_macros_without_the_headers() {
    // `<float.h>` and `<limits.h>` are not on any `-I` path: accshare knows their macros.
    let dir = temp_dir("sysmac");
    let main = write(
        &dir,
        "m.c",
        "#include <float.h>\n#include <limits.h>\n#include <float.h>\nFLT_MAX INT_MAX\n",
    );
    let (sm, out, d) = run_file(&main, &PpOptions::default());
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    assert_eq!(spell(&out), "3.40282347e+38F 2147483647");
    let sys: Vec<&str> = out.system_includes.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(sys, ["float.h", "limits.h", "float.h"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn include_with_macro_name() {
    let dir = temp_dir("incm");
    write(&dir, "x.h", "int x;\n");
    let main = write(
        &dir,
        "m.c",
        "#define HDR \"x.h\"\n#include HDR\n#define SYS <sys/types.h>\n#include SYS\n",
    );
    let (sm, out, d) = run_file(&main, &PpOptions::default());
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    assert_eq!(spell(&out), "int x ;");
    assert_eq!(out.system_includes[0].0, "sys/types.h");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_include() {
    let dir = temp_dir("miss");
    let main = write(&dir, "m.c", "#include \"nope.h\"\nint x;\n");
    let opts = PpOptions {
        include_dirs: vec![PathBuf::from("/nonexistent/inc")],
        ..Default::default()
    };
    let (sm, out, d) = run_file(&main, &opts);
    let name = main.to_string_lossy();
    let pad = " ".repeat(name.len());
    let _ = pad;
    assert_eq!(
        render(&sm, &d.0),
        format!(
            "error: cannot find include file `nope.h`\n  ┌─ {name}:1:10\n  │\n1 │ #include \"nope.h\"\n  \
             │          ^^^^^^^^ not found\n  │\n  = note: searched in: `{}`, `/nonexistent/inc`\n\n",
            dir.display()
        )
    );
    assert_eq!(spell(&out), "int x ;");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn include_depth_and_bombs() {
    let dir = temp_dir("deep");
    write(&dir, "self.h", "#include \"self.h\"\nx\n");
    let main = write(&dir, "m.c", "#include \"self.h\"\nend\n");
    let (sm, out, d) = run_file(&main, &PpOptions::default());
    let r = render(&sm, &d.0);
    assert!(r.contains("error: #include nested too deeply"), "{r}");
    assert_eq!(d.error_count(), 1, "{r}");
    assert_eq!(
        out.tokens.iter().filter(|t| t.text == "x").count(),
        MAX_INCLUDE_DEPTH
    );
    assert_eq!(out.tokens.last().map(|t| t.text.as_str()), Some("end"));

    // A file including itself twice would take 2^64 steps: the include count stops it.
    write(&dir, "bomb.h", "#include \"bomb.h\"\n#include \"bomb.h\"\n");
    let main = write(&dir, "b.c", "#include \"bomb.h\"\nend\n");
    let t = std::time::Instant::now();
    let (sm, out, d) = run_file(&main, &PpOptions::default());
    assert!(t.elapsed().as_secs() < 60);
    let r = render(&sm, &d.0);
    assert!(r.contains("error: too many `#include`s"), "{r}");
    assert!(d.error_count() <= 3, "{r}");
    assert_eq!(out.tokens.last().map(|t| t.text.as_str()), Some("end"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unterminated_if_in_include() {
    let dir = temp_dir("uif");
    write(&dir, "u.h", "#if 1\nint u;\n");
    let main = write(&dir, "m.c", "#include \"u.h\"\n#endif\nint m;\n");
    let (sm, out, d) = run_file(&main, &PpOptions::default());
    let r = render(&sm, &d.0);
    assert!(r.contains("error: unterminated `#if`"), "{r}");
    assert!(r.contains("error: `#endif` without `#if`"), "{r}");
    assert_eq!(spell(&out), "int u ; int m ;");
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- spans and expansions

#[test]
fn expansion_spans() {
    let src = "#define N 1024\n#define MAX(a,b) ((a)>(b)?(a):(b))\nint x[N];\ny = MAX(N, z);\n";
    let (sm, out, d) = run(src);
    assert!(d.is_empty());
    let t1024 = &out.tokens[3];
    assert_eq!(t1024.text, "1024");
    assert_eq!(sm.snippet(t1024.span), "N");
    let e = &out.expansions[t1024.expansion.unwrap() as usize];
    assert_eq!(e.name, "N");
    assert_eq!(sm.snippet(e.def_span), "N");
    assert_eq!(sm.line_col(e.def_span), (1, 9));
    assert_eq!(e.use_span, t1024.span);
    // Not from a macro: own span, no expansion.
    assert_eq!(out.tokens[0].expansion, None);
    assert_eq!(sm.snippet(out.tokens[0].span), "int");
    // Every token of MAX(N, z) — including `z` and the nested N — carries the whole use.
    let eq = out.tokens.iter().position(|t| t.text == "=").unwrap();
    let from_max = &out.tokens[eq + 1..out.tokens.len() - 1];
    assert!(from_max.len() > 10);
    for t in from_max {
        assert_eq!(sm.snippet(t.span), "MAX(N, z)");
        let e = &out.expansions[t.expansion.unwrap() as usize];
        assert_eq!(e.name, "MAX");
    }
    assert!(from_max.iter().any(|t| t.text == "1024"));
    assert_eq!(out.tokens.last().unwrap().expansion, None);
    // Whitespace before an expansion is the macro name's.
    assert!(from_max[0].space_before);
}

#[test]
fn predefined_macros() {
    let src =
        "__LINE__\n#if __STDC__ && __STDC_VERSION__ >= 199901L && __ACCSHARE__\nstd\n#endif\n\
               #ifdef _OPENACC\nacc\n#endif\n__FILE__ __LINE__\n#define L __LINE__\nL";
    // `_OPENACC` is defined, as OpenACC compilers do (the output defines it too).
    assert_eq!(ok(src), "1 std acc \"t.c\" 8 10");
}

#[test]
fn command_line_defines() {
    let opts = PpOptions {
        defines: vec![
            ("N".to_string(), Some("64".to_string())),
            ("FOO".to_string(), None),
            ("SQ(x)".to_string(), Some("((x)*(x))".to_string())),
        ],
        ..Default::default()
    };
    let (sm, out, d) = run_opts("#if FOO\nint a[N]; SQ(2)\n#endif\n#define N 128\n", &opts);
    assert_eq!(spell(&out), norm("int a[64]; ((2)*(2))"));
    let n = out.tokens.iter().find(|t| t.text == "64").unwrap();
    let e = &out.expansions[n.expansion.unwrap() as usize];
    assert_eq!(sm.name(e.def_span.file), "<command line>");
    assert_eq!(sm.snippet(e.def_span), "N");
    assert_eq!(
        render(&sm, &d.0),
        "warning: macro `N` redefined\n  ┌─ t.c:4:9\n  │\n4 │ #define N 128\n  │         ^ redefined here\n  \
         │\n  ┌─ <command line>:1:3\n  │\n1 │ -DN=64\n  │   - previous definition\n\n"
    );
    assert_eq!(
        out.int_macros,
        vec![("FOO".to_string(), 1), ("N".to_string(), 128)]
    );
}

#[test]
fn int_macros() {
    let src = "#define N 1024\n#define M (-1)\n#define P ((16))\n#define X (a+1)\n#define F(x) 3\n\
               #define H 0x10u\n#define G 7\n#undef G\n#define Q N\n#define R (1)+(2)\n";
    let (_, out, d) = run(src);
    assert!(d.is_empty());
    assert_eq!(
        out.int_macros,
        vec![
            ("N".to_string(), 1024),
            ("M".to_string(), -1),
            ("P".to_string(), 16),
            ("H".to_string(), 16)
        ]
    );
}

// ----- pragmas

#[test]
fn pragma_lines() {
    let src =
        "#define N 8\n#define V vector_length(N)\nint a;\n  #  pragma acc parallel loop V  // c\n\
               #pragma omp parallel for num_threads(N)\n#pragma\nint b;\n";
    let (sm, out, d) = run(src);
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    assert_eq!(spell(&out), "int a ; #pragma0 #pragma1 #pragma2 int b ;");
    let p = &out.pragmas[0];
    assert_eq!(sm.snippet(p.span), "acc parallel loop V");
    assert_eq!(
        sm.snippet(p.line_span),
        "#  pragma acc parallel loop V  // c"
    );
    let texts: Vec<&str> = p.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["acc", "parallel", "loop", "vector_length", "(", "8", ")"]
    );
    for t in &p.tokens[3..] {
        assert_eq!(sm.snippet(t.span), "V");
        assert!(p.span.contains(t.span));
        assert_eq!(out.expansions[t.expansion.unwrap() as usize].name, "V");
    }
    assert_eq!(p.tokens[0].expansion, None);
    assert_eq!(sm.snippet(p.tokens[1].span), "parallel");
    let tok = &out.tokens[3];
    assert_eq!(tok.kind, PpKind::Pragma(0));
    assert_eq!(tok.span, p.line_span);
    // Not `acc`: as written.
    let q = &out.pragmas[1];
    let texts: Vec<&str> = q.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["omp", "parallel", "for", "num_threads", "(", "N", ")"]
    );
    assert!(q.tokens.iter().all(|t| t.expansion.is_none()));
    // An empty pragma.
    assert!(out.pragmas[2].tokens.is_empty());
    assert_eq!(sm.snippet(out.pragmas[2].line_span), "#pragma");
}

#[test]
fn pragma_operator_is_dropped() {
    let (sm, out, d) = run("a _Pragma(\"acc loop\") b");
    assert_eq!(spell(&out), "a b");
    assert!(render(&sm, &d.0).starts_with("warning: `_Pragma` operator is ignored"));
}

// ----- diagnostics

#[test]
fn diag_unterminated_comment() {
    assert_eq!(
        rendered("int a; /* never\nclosed\n"),
        "error: unterminated comment\n  ┌─ t.c:1:8\n  │\n1 │ int a; /* never\n  │        ^^ comment starts here\n\n"
    );
    // Even in an inactive block (it swallows the `#endif`).
    let r = rendered("#if 0\n/* x\n#endif\n");
    assert!(r.contains("error: unterminated comment"), "{r}");
    assert!(r.contains("error: unterminated `#if`"), "{r}");
}

#[test]
fn diag_lexical() {
    let (sm, out, d) = run("a @ b \"open\nc 'x\nd\n");
    assert_eq!(spell(&out), "a b c d");
    assert_eq!(
        render(&sm, &d.0),
        "error: unexpected character `@`\n  ┌─ t.c:1:3\n  │\n1 │ a @ b \"open\n  │   ^\n\n\
         error: unterminated string literal\n  ┌─ t.c:1:7\n  │\n1 │ a @ b \"open\n  │       ^^^^^ missing closing `\"`\n\n\
         error: unterminated character constant\n  ┌─ t.c:2:3\n  │\n2 │ c 'x\n  │   ^^ missing closing `'`\n\n"
    );
}

#[test]
fn diag_unknown_directive() {
    assert_eq!(
        rendered("#foo bar\n"),
        "error: unknown preprocessor directive `#foo`\n  ┌─ t.c:1:1\n  │\n1 │ #foo bar\n  │ ^^^^\n\n"
    );
}

#[test]
fn diag_error_and_warning_directives() {
    assert_eq!(
        rendered("#ifndef N\n#error N must be defined\n#endif\n#warning careful\n"),
        "error: N must be defined\n  ┌─ t.c:2:1\n  │\n2 │ #error N must be defined\n  │ ^^^^^^^^^^^^^^^^^^^^^^^^\n\n\
         warning: careful\n  ┌─ t.c:4:1\n  │\n4 │ #warning careful\n  │ ^^^^^^^^^^^^^^^^\n\n"
    );
}

#[test]
fn keeps_going_after_errors() {
    let (sm, out, d) = run("#foo\nint a;\n#error stop\nint b;\n#endif\nint c;\n");
    assert_eq!(d.error_count(), 3, "{}", render(&sm, &d.0));
    assert_eq!(spell(&out), "int a ; int b ; int c ;");
}

// ----- robustness

/// A deterministic pseudo-random byte generator (xorshift).
fn garbage(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn binary_garbage_does_not_panic() {
    for seed in 1..20u64 {
        let bytes = garbage(4000, seed);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (sm, _, d) = run(&text);
        let _ = render(&sm, &d.0);
    }
    // Garbage made of preprocessor-relevant characters.
    let alphabet = b"#()\n ,.\"'\\/*#ABdefinx01_<>";
    for seed in 1..200u64 {
        let bytes: Vec<u8> = garbage(600, seed)
            .into_iter()
            .map(|b| alphabet[b as usize % alphabet.len()])
            .collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let text = format!("#define A(x) x##x #x A\n#define B A(B)\n{text}");
        let (sm, _, d) = run(&text);
        let _ = render(&sm, &d.0);
    }
}

#[test]
fn lexical_errors_are_capped() {
    let (_, _, d) = run(&"@ ".repeat(10_000));
    assert_eq!(d.error_count(), MAX_LEX_ERRORS_PER_FILE + 1);
}

#[test]
fn large_input_is_fast() {
    // 10 MB in release builds, 1 MB in debug builds.
    let target = if cfg!(debug_assertions) {
        1 << 20
    } else {
        10 << 20
    };
    let mut src = String::from(
        "#define N 1024\n#define IDX(i,j) ((i)*N+(j))\n#define MIN(a,b) ((a)<(b)?(a):(b))\n",
    );
    let mut i = 0;
    while src.len() < target {
        src.push_str(&format!(
            "/* block {i} */\n#ifdef NOPE\nnever here {i}\n#else\n\
             for (int i = 0; i < N; i++) {{ a[IDX(i, {i})] = MIN(b[i], \"s\" ) + 1.5e-3f; }}\n#endif\n"
        ));
        i += 1;
    }
    let t = std::time::Instant::now();
    let (_, out, d) = run(&src);
    let secs = t.elapsed().as_secs_f64();
    assert!(d.is_empty());
    assert!(out.tokens.len() > i * 50);
    eprintln!(
        "preprocessed {} bytes, {} tokens in {secs:.3}s",
        src.len(),
        out.tokens.len()
    );
    let limit = if cfg!(debug_assertions) { 30.0 } else { 2.0 };
    assert!(secs < limit, "{} bytes took {secs:.2}s", src.len());
}

#[test]
fn unterminated_comment_on_directive_lines() {
    for src in [
        "#if 0\n#else /* open\n",
        "#define X 1 /* open\n",
        "#error /* open\n",
    ] {
        let r = rendered(src);
        assert_eq!(
            r.matches("error: unterminated comment").count(),
            1,
            "{src:?}: {r}"
        );
    }
}

#[test]
fn one_error_for_a_bad_macro_in_if() {
    let r = rendered("#define F(x) x\n#if F(1\n#endif\n");
    assert!(
        r.starts_with("error: unterminated argument list invoking macro `F`"),
        "{r}"
    );
    assert_eq!(r.matches("error").count(), 1, "{r}");
}

/// The shape of PolyBench's headers and kernels.
#[test]
fn polybench_style() {
    let src = r#"#ifndef _GEMM_H
# define _GEMM_H
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(LARGE_DATASET)
#  define LARGE_DATASET
# endif
# if !defined(NI) && !defined(NJ)
#  ifdef MINI_DATASET
#   define NI 20
#   define NJ 25
#  endif
#  ifdef LARGE_DATASET
#   define NI 1000
#   define NJ 1100
#  endif
# endif
# define POLYBENCH_LOOP_BOUND(x,y) x
# define _PB_NI POLYBENCH_LOOP_BOUND(NI,ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ,nj)
# ifndef DATA_TYPE_IS_INT
#  define DATA_TYPE_IS_DOUBLE
# endif
# ifdef DATA_TYPE_IS_DOUBLE
#  define DATA_TYPE double
#  define SCALAR_VAL(x) x
# endif
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[dim1][dim2]
#endif /* !_GEMM_H */
static void kernel_gemm(int ni, int nj, DATA_TYPE POLYBENCH_2D(C,NI,NJ,ni,nj))
{
  int i, j;
#pragma scop
  #pragma acc parallel loop collapse(2) copy(C[0:NI][0:NJ])
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= SCALAR_VAL(1.5);
#pragma endscop
}
"#;
    let (sm, out, d) = run(src);
    assert!(d.is_empty(), "{}", render(&sm, &d.0));
    let want = r#"static void kernel_gemm(int ni, int nj, double C[1000][1100])
{
  int i, j;
#pragma0
  #pragma1
  for (i = 0; i < 1000; i++)
    for (j = 0; j < 1100; j++)
      C[i][j] *= 1.5;
#pragma2
}"#;
    assert_eq!(spell(&out), norm(want).replace("# pragma", "#pragma"));
    let acc: Vec<&str> = out.pragmas[1]
        .tokens
        .iter()
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        acc.join(" "),
        "acc parallel loop collapse ( 2 ) copy ( C [ 0 : 1000 ] [ 0 : 1100 ] )"
    );
    assert_eq!(
        out.int_macros,
        vec![("NI".to_string(), 1000), ("NJ".to_string(), 1100)]
    );
    // `_PB_NI` expands through two macros: the token shows the outermost use.
    let t = out
        .tokens
        .iter()
        .find(|t| t.text == "1000" && sm.snippet(t.span) == "_PB_NI");
    assert!(t.is_some());
}

#[test]
fn line_of_a_multi_line_use() {
    assert_eq!(ok("#define F(x) __LINE__ x\nF(a\n+\nb)"), "4 a + b");
    assert_eq!(ok("#define F(x, y) __LINE__ x\nF(a\n,\nb)"), "4 a");
}

/// Random soups of preprocessor pieces: no panic, no hang, output bounded.
#[test]
fn token_soup_fuzz() {
    let pieces = [
        "\n#define ",
        "\n#undef ",
        "\n#if ",
        "\n#ifdef ",
        "\n#elif ",
        "\n#else\n",
        "\n#endif\n",
        "\n#pragma acc ",
        "\n#include ",
        "\n#",
        "A",
        "B",
        "F",
        "G",
        "(",
        ")",
        ",",
        "##",
        "#",
        "...",
        "__VA_ARGS__",
        "1",
        "0",
        "\n",
        " ",
        "/*",
        "*/",
        "\"",
        "'",
        "defined",
        "x",
        "+",
        "/",
        "?",
        ":",
        "__LINE__",
        "_Pragma",
        "<",
        ">",
        "\\\n",
        "F(",
        "A(x)",
        "G(x,...)",
        "-1",
        "0x",
        "'a'",
    ];
    let start = std::time::Instant::now();
    for seed in 1..1500u64 {
        let bytes = garbage(250, seed);
        let mut src = String::new();
        for b in bytes {
            src.push_str(pieces[b as usize % pieces.len()]);
        }
        let (sm, out, d) = run(&src);
        let _ = render(&sm, &d.0);
        assert!(out.tokens.len() < 4 * MAX_EXPANSION_TOKENS, "seed {seed}");
    }
    assert!(start.elapsed().as_secs() < 120);
}

#[test]
fn total_expansion_is_bounded() {
    // Each use of A produces 2^14 tokens; 1000 uses exceed a total limit of 1,000,000.
    let mut src = String::new();
    for i in 0..14 {
        src.push_str(&format!("#define M{} M{} M{}\n", i, i + 1, i + 1));
    }
    src.push_str("#define M14 +1\n");
    src.push_str(&"M0\n#if M0\n#endif\n".repeat(1000));
    src.push_str("end\n");
    let mut sm = SourceMap::new();
    let main = sm.add("t.c", PathBuf::from("t.c"), src);
    let mut d = Diags::new();
    let out = preprocess_limited(&mut sm, main, &PpOptions::default(), &mut d, 1_000_000);
    let r = render(&sm, &d.0);
    assert!(
        r.starts_with("error: too much macro expansion in this file"),
        "{r}"
    );
    assert_eq!(d.error_count(), 1, "{r}");
    assert!(out.tokens.len() < 2_100_000);
    assert_eq!(out.tokens.last().map(|t| t.text.as_str()), Some("end"));
}

#[test]
fn expansion_spans_across_context_ends() {
    let (sm, out, d) = run("#define f(x) [x]\n#define g f\n#define E\ng(1) E y\n");
    assert!(d.is_empty());
    assert_eq!(spell(&out), "[ 1 ] y");
    for t in &out.tokens[..3] {
        assert_eq!(sm.snippet(t.span), "g(1)");
        let e = &out.expansions[t.expansion.unwrap() as usize];
        assert_eq!((e.name.as_str(), e.use_span), ("g", t.span));
    }
    let y = &out.tokens[3];
    assert_eq!((sm.snippet(y.span), y.expansion), ("y", None));
    assert!(y.space_before);
}

#[test]
fn conditional_groups_record_their_lines_and_the_branch_taken() {
    let src = "#define X 2\n#ifndef X\na\n#elif X == 2\nb\n#if 0\n#if 1\n#endif\n#else\nc\n#endif\n#else\nd\n#endif\n";
    let (sm, out, d) = run(src);
    assert!(!d.has_errors());
    let show: Vec<(Vec<&str>, Option<usize>)> = out
        .conditionals
        .iter()
        .map(|g| (g.lines.iter().map(|l| sm.snippet(*l)).collect(), g.taken))
        .collect();
    // The `#if 1` in the skipped `#if 0` branch is not a group of its own.
    assert_eq!(
        show,
        vec![
            (
                vec!["#ifndef X", "#elif X == 2", "#else", "#endif"],
                Some(1)
            ),
            (vec!["#if 0", "#else", "#endif"], Some(1)),
        ]
    );
}
