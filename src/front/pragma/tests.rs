use super::*;
use crate::diag::render;
use std::path::PathBuf;

/// Parses `#pragma <text>` in a file `t.c`; returns the pragma and the rendered diagnostics.
fn run_with(text: &str, macros: &[(String, i64)]) -> (Pragma, String) {
    let src = format!("#pragma {text}\n");
    let mut sm = SourceMap::new();
    let f = sm.add("t.c", PathBuf::from("t.c"), src.clone());
    let line = PragmaLine {
        span: Span::new(f, 8, 8 + text.len()),
        tokens: Vec::new(),
        line_span: Span::new(f, 0, src.len() - 1),
    };
    let mut diags = Diags::new();
    let p = parse_pragma(&line, &sm, macros, &mut diags);
    (p, render(&sm, &diags.0))
}

fn run(text: &str) -> (Pragma, String) {
    run_with(text, &[])
}

/// Parses without diagnostics and returns the canonical form.
fn canon(text: &str) -> String {
    let (p, d) = run(text);
    assert_eq!(d, "", "unexpected diagnostics for `{text}`");
    p.to_string()
}

/// Asserts that `text` prints as `expected` and that `expected` is a fixed point.
fn round_trip(text: &str, expected: &str) {
    assert_eq!(canon(text), expected, "canonical form of `{text}`");
    assert_eq!(canon(expected), expected, "re-parsing `{expected}`");
}

fn acc(text: &str) -> AccDirective {
    match run(text).0 {
        Pragma::Acc(d) => d,
        p => panic!("`{text}` gave {p:?}"),
    }
}

fn share(text: &str) -> SharePragma {
    match run(text).0 {
        Pragma::Share(s) => s,
        p => panic!("`{text}` gave {p:?}"),
    }
}

#[test]
fn non_acc_pragmas() {
    assert_eq!(run("scop"), (Pragma::Scop, String::new()));
    assert_eq!(run("endscop"), (Pragma::Scop, String::new()));
    assert_eq!(run("omp parallel for"), (Pragma::Foreign, String::new()));
    assert_eq!(run("once"), (Pragma::Foreign, String::new()));
    assert_eq!(run("GCC unroll 4"), (Pragma::Foreign, String::new()));
    assert_eq!(run(""), (Pragma::Foreign, String::new()));
    assert_eq!(run("accx kernels"), (Pragma::Foreign, String::new()));
    assert_eq!(run("(((garbage"), (Pragma::Foreign, String::new()));
}

#[test]
fn constructs() {
    let cases = [
        ("acc kernels", Construct::Kernels),
        ("acc parallel", Construct::Parallel),
        ("acc serial", Construct::Serial),
        ("acc kernels loop", Construct::KernelsLoop),
        ("acc parallel loop", Construct::ParallelLoop),
        ("acc serial loop", Construct::SerialLoop),
        ("acc loop", Construct::Loop),
        ("acc data copy(a)", Construct::Data),
        ("acc enter data copyin(a[0:n])", Construct::EnterData),
        (
            "acc exit data copyout(a[0:n]) delete(b)",
            Construct::ExitData,
        ),
        ("acc update host(a[0:n]) device(b)", Construct::Update),
        ("acc wait", Construct::Wait),
        ("acc wait(1, 2) async(3)", Construct::Wait),
        ("acc routine seq", Construct::Routine),
        ("acc atomic", Construct::Atomic(AtomicKind::Update)),
        ("acc atomic capture", Construct::Atomic(AtomicKind::Capture)),
        ("acc host_data", Construct::HostData),
        ("acc declare copyin(a)", Construct::Declare),
        ("acc cache(a[0:16], b[i])", Construct::Cache),
    ];
    for (text, c) in cases {
        let d = acc(text);
        assert_eq!(d.construct, c, "{text}");
        round_trip(text, text);
    }
    // The words of the construct, for messages.
    let d = acc("acc  kernels   loop independent");
    assert_eq!(d.construct_span.lo, 8 + 5);
    assert_eq!(d.construct_span.hi, 8 + 19);
    assert_eq!(d.span.hi - d.span.lo, 31);
    let d = acc("acc cache(a[0:16])");
    assert_eq!(d.construct_span.hi - d.construct_span.lo, 5);
    assert_eq!(d.cache.len(), 1);
    assert_eq!(d.cache[0].name.name, "a");
    round_trip("acc atomic update", "acc atomic");
    round_trip("acc routine(foo) seq", "acc routine seq");
    round_trip("acc cache(readonly: a[0:n])", "acc cache(a[0:n])");
    // Words glued together are not constructs.
    assert_eq!(
        run("acc kernelsloop").1.lines().next(),
        Some("warning: unknown OpenACC directive `kernelsloop` ignored")
    );
}

#[test]
fn loop_clauses() {
    for text in [
        "acc loop independent",
        "acc loop seq",
        "acc loop auto",
        "acc loop gang",
        "acc loop gang(4)",
        "acc loop worker",
        "acc loop worker(8)",
        "acc loop vector",
        "acc loop vector(128)",
        "acc parallel num_gangs(4) num_workers(8) vector_length(128)",
        "acc loop collapse(2)",
        "acc loop tile(8, 8)",
        "acc parallel loop private(a, b) firstprivate(x)",
        "acc kernels if(c) async",
        "acc kernels async(1) wait",
        "acc kernels wait(1, q)",
        "acc parallel num_gangs(n, n, 2)",
        "acc loop tile(*, 4)",
        "acc loop tile(*)",
    ] {
        round_trip(text, text);
    }
    // OpenACC 3.3's modifiers: the gangs' dimension (accshare maps gang loops onto its own
    // grid), `force`, a device's queues (every wait holds already: accshare
    // runs each construct to its end).
    round_trip("acc loop gang(dim:2)", "acc loop gang");
    round_trip("acc loop collapse(force:2)", "acc loop collapse(force:2)");
    round_trip(
        "acc loop collapse( force : 3 )",
        "acc loop collapse(force:3)",
    );
    round_trip(
        "acc wait(devnum:0 : queues:1, 2) async(2)",
        "acc wait(1, 2) async(2)",
    );
    round_trip("acc kernels wait(queues: q)", "acc kernels wait(q)");
    round_trip("acc kernels wait(devnum: d: q)", "acc kernels wait(q)");
    round_trip(
        "acc loop gang(num:4) vector(length: 64)",
        "acc loop gang(4) vector(64)",
    );
    round_trip(
        "acc parallel loop gang, vector(128),copyin(a)",
        "acc parallel loop gang vector(128) copyin(a)",
    );
    let d = acc("acc parallel loop collapse(3) vector(128) independent");
    assert_eq!(d.clauses.len(), 3);
    assert_eq!(
        d.clauses[0].kind,
        ClauseKind::Collapse { n: 3, force: false }
    );
    assert!(d.has(|k| matches!(k, ClauseKind::Independent)));
    let ClauseKind::Vector(Some(e)) = &d.clauses[1].kind else {
        panic!("{:?}", d.clauses[1])
    };
    assert_eq!(expr_to_c(e), "128");
    // The clause span covers the clause and its arguments.
    assert_eq!(
        d.clauses[1].span.hi - d.clauses[1].span.lo,
        "vector(128)".len() as u32
    );
}

#[test]
fn reductions() {
    let ops = [
        ("+", RedOp::Add),
        ("*", RedOp::Mul),
        ("max", RedOp::Max),
        ("min", RedOp::Min),
        ("&", RedOp::BitAnd),
        ("|", RedOp::BitOr),
        ("^", RedOp::BitXor),
        ("&&", RedOp::LogAnd),
        ("||", RedOp::LogOr),
    ];
    for (s, op) in ops {
        let text = format!("acc loop reduction({s}:x, y)");
        let d = acc(&text);
        let ClauseKind::Reduction { op: got, vars } = &d.clauses[0].kind else {
            panic!("{:?}", d.clauses)
        };
        assert_eq!(*got, op);
        assert_eq!(
            vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            ["x", "y"]
        );
        round_trip(&text, &text);
    }
    round_trip("acc loop reduction( max : m )", "acc loop reduction(max:m)");
    // A part of an array (`c[0:10]`, an element `e[x]`) reduces the array: the loops that
    // update it run in order.
    round_trip(
        "acc parallel loop reduction(+:c[0:10], e[x])",
        "acc parallel loop reduction(+:c, e)",
    );
}

#[test]
fn data_clauses() {
    let kinds = [
        ("copy", DataKind::Copy),
        ("copyin", DataKind::CopyIn),
        ("copyout", DataKind::CopyOut),
        ("create", DataKind::Create),
        ("present", DataKind::Present),
        ("deviceptr", DataKind::DevicePtr),
        ("no_create", DataKind::NoCreate),
        ("delete", DataKind::Delete),
        ("host", DataKind::Host),
        ("device", DataKind::Device),
        ("self", DataKind::Host),
        ("pcopy", DataKind::Copy),
        ("pcopyin", DataKind::CopyIn),
        ("pcopyout", DataKind::CopyOut),
        ("pcreate", DataKind::Create),
        ("present_or_copy", DataKind::Copy),
        ("present_or_copyin", DataKind::CopyIn),
        ("present_or_copyout", DataKind::CopyOut),
        ("present_or_create", DataKind::Create),
    ];
    for (w, k) in kinds {
        // A construct each kind applies to (`data ` and `update` have the same length).
        let c = match k {
            DataKind::Host | DataKind::Device => "update",
            DataKind::Delete => "exit data",
            _ => "data",
        };
        let text = format!("acc {c} {w}(a)");
        let d = acc(&text);
        let at = text.find('(').unwrap() + 1 + 8;
        assert_eq!(
            d.clauses[0].kind,
            ClauseKind::Data {
                kind: k,
                vars: vec![SubArray {
                    name: Ident {
                        name: "a".into(),
                        span: Span::new(0, at, at + 1),
                    },
                    dims: vec![],
                    span: Span::new(0, at, at + 1),
                }],
                zero: false,
            },
            "{w}"
        );
    }
    round_trip(
        "acc kernels loop independent copyin(A[0:n][0:m])",
        "acc kernels loop independent copyin(A[0:n][0:m])",
    );
    round_trip(
        "acc data copyin( a , b[ 0 : n ] ) copyout(c[:n], d[i], e[2:], f[:])",
        "acc data copyin(a, b[0:n]) copyout(c[:n], d[i], e[2:], f[:])",
    );
    round_trip(
        "acc data create(zero: a[0:n]) copyout( zero :b)",
        "acc data create(zero: a[0:n]) copyout(zero: b)",
    );
    round_trip(
        "acc data copyin(readonly: a[0:n])",
        "acc data copyin(a[0:n])",
    );
    round_trip("acc update self(a)", "acc update host(a)");
    let d = acc("acc data copyout(c[:n], d[i], e[2:])");
    let ClauseKind::Data { vars, .. } = &d.clauses[0].kind else {
        panic!()
    };
    let r = &vars[0].dims[0];
    assert!(r.start.is_none() && r.len.is_some() && !r.single);
    let r = &vars[1].dims[0];
    assert!(r.start.is_some() && r.len.is_none() && r.single);
    let r = &vars[2].dims[0];
    assert!(r.start.is_some() && r.len.is_none() && !r.single);
}

/// A struct member in a clause keeps its whole path as its name (`ir::lower` names it through
/// a variable of its own); `attach`/`detach` are accepted without a warning.
#[test]
fn struct_members_in_clauses() {
    round_trip(
        "acc data copyin(data.a[0:n], p -> b[0:p->n]) copyout(s.in.v)",
        "acc data copyin(data.a[0:n], p->b[0:p->n]) copyout(s.in.v)",
    );
    let d = acc("acc enter data copyin(data.a[0:n], p->b)");
    let ClauseKind::Data { vars, .. } = &d.clauses[0].kind else {
        panic!()
    };
    assert_eq!(vars[0].name.name, "data.a");
    assert_eq!(vars[0].name.span, Span::new(0, 30, 36));
    assert_eq!(vars[0].member_base(), Some(("data", ".a")));
    assert_eq!(vars[0].dims.len(), 1);
    assert_eq!(vars[1].member_base(), Some(("p", "->b")));
    let (p, d) = run("acc enter data copyin(data) attach(data.a, data.b)");
    assert_eq!(
        (p.to_string().as_str(), d.as_str()),
        ("acc enter data copyin(data)", "")
    );
    let (p, d) = run("acc exit data detach(data.a)");
    assert_eq!((p.to_string().as_str(), d.as_str()), ("acc exit data", ""));
}

#[test]
fn blanks_comments_and_continuations() {
    round_trip(
        "acc kernels /* a comment */ copy(a) // tail",
        "acc kernels copy(a)",
    );
    round_trip("acc kernels \\\n   copy(a)", "acc kernels copy(a)");
    round_trip("acc\tparallel\tloop\tseq", "acc parallel loop seq");
}

#[test]
fn ignored_openacc_clauses() {
    assert_eq!(
        canon("acc parallel default(present) async"),
        "acc parallel async"
    );
    let (p, d) = run("acc parallel loop device_type(nvidia) gang");
    assert_eq!(p.to_string(), "acc parallel loop gang");
    assert_eq!(
        d,
        "warning: clause `device_type` is not supported by accshare and is ignored
  ┌─ t.c:1:27
  │
1 │ #pragma acc parallel loop device_type(nvidia) gang
  │                           ^^^^^^^^^^^^^^^^^^^ ignored

"
    );
    assert_eq!(
        canon("acc update host(a) if_present"),
        "acc update host(a) if_present"
    );
    assert_eq!(
        canon("acc exit data delete(a) finalize"),
        "acc exit data delete(a) finalize"
    );
}

#[test]
fn vendor_clause_spellings_are_warnings() {
    let (p, d) = run("acc parallel loop gang[1] num_gangs[0](n) copy(a)");
    assert_eq!(p.to_string(), "acc parallel loop copy(a)");
    assert_eq!(
        d,
        "warning: `gang[1]` is not an OpenACC clause; it is ignored
  ┌─ t.c:1:27
  │
1 │ #pragma acc parallel loop gang[1] num_gangs[0](n) copy(a)
  │                           ^^^^^^^ a vendor spelling
  │
  = note: OpenACC writes clause arguments in parentheses: `gang`, `num_gangs(n)`

warning: `num_gangs[0](n)` is not an OpenACC clause; it is ignored
  ┌─ t.c:1:35
  │
1 │ #pragma acc parallel loop gang[1] num_gangs[0](n) copy(a)
  │                                   ^^^^^^^^^^^^^^^ a vendor spelling
  │
  = note: OpenACC writes clause arguments in parentheses: `gang`, `num_gangs(n)`

"
    );
}

#[test]
fn macro_expanded_clause_arguments() {
    // `copyin(A[0:N])` where the preprocessor expanded `N` to `1024`.
    let text = "acc kernels copyin(A[0:N])";
    let src = format!("#pragma {text}\n");
    let mut sm = SourceMap::new();
    let f = sm.add("t.c", PathBuf::from("t.c"), src.clone());
    let mut tokens = lex_tokens(text, f, 8);
    for t in &mut tokens {
        if t.text == "N" {
            t.kind = PpKind::Number;
            t.text = "1024".into();
            t.expansion = Some(0);
        }
    }
    let line = PragmaLine {
        span: Span::new(f, 8, 8 + text.len()),
        tokens,
        line_span: Span::new(f, 0, src.len() - 1),
    };
    let mut diags = Diags::new();
    let p = parse_pragma(&line, &sm, &[], &mut diags);
    assert!(diags.is_empty());
    assert_eq!(p.to_string(), "acc kernels copyin(A[0:1024])");
    let Pragma::Acc(d) = p else { panic!() };
    let ClauseKind::Data { vars, .. } = &d.clauses[0].kind else {
        panic!()
    };
    // The expression keeps the span of the macro use.
    let len = vars[0].dims[0].len.as_ref().unwrap();
    assert_eq!(sm.snippet(len.span), "N");
}

#[test]
fn collapse_macro() {
    let (p, d) = run_with("acc loop collapse(DEPTH)", &[("DEPTH".into(), 2)]);
    assert_eq!(d, "");
    assert_eq!(p.to_string(), "acc loop collapse(2)");
}

// ---------------------------------------------------------------------------------------------
// share

#[test]
fn share_forms() {
    round_trip(
        "acc share(B[*][TB_X], A[TB_Y][*]:coalesce)",
        "acc share(B[*][TB_X], A[TB_Y][*]:coalesce)",
    );
    round_trip(
        "acc share( in [ TB_Y+2 ][TB_X+2] )",
        "acc share(in[TB_Y + 2][TB_X + 2])",
    );
    round_trip(
        "acc share(A[TB_Y*2+1][(TB_X+2)*2])",
        "acc share(A[TB_Y * 2 + 1][(TB_X + 2) * 2])",
    );
    round_trip(
        "acc share(A[TB_X-(2-1)][64/TB_Z])",
        "acc share(A[TB_X - (2 - 1)][64 / TB_Z])",
    );
    round_trip("acc share(A[(TB_X)][((4))])", "acc share(A[TB_X][4])");
    round_trip("acc share(A[0x10][16u])", "acc share(A[16][16])");
    round_trip("acc share(x[*])", "acc share(x[*])");
    round_trip("acc share(A)", "acc share(A)");
    let s = share("acc share(B[*][TB_X], A[TB_Y][*]:coalesce)");
    assert_eq!(s.specs.len(), 2);
    assert!(!s.specs[0].coalesce && s.specs[1].coalesce);
    assert!(matches!(s.specs[0].dims[0], PartDim::Star(_)));
    assert_eq!(
        s.specs[1].dims[0],
        PartDim::Expr(PartExpr {
            kind: PartExprKind::Tb(TbDim::Y),
            span: Span::new(0, 8 + 24, 8 + 28),
        })
    );
    // Precedence: `TB_Y + 2 * 3` is `TB_Y + (2 * 3)`.
    let s = share("acc share(A[TB_Y+2*3])");
    let PartDim::Expr(e) = &s.specs[0].dims[0] else {
        panic!()
    };
    assert!(matches!(e.kind, PartExprKind::Bin(PartOp::Add, _, _)));
    assert_eq!(e.eval([16, 8, 1]), Some(14));
    assert_eq!(e.const_value(), None);
}

#[test]
fn share_int_macros() {
    let m = [("BLOCK".to_string(), 16), ("HALO".to_string(), 2)];
    let (p, d) = run_with("acc share(A[BLOCK+HALO][TB_X*BLOCK])", &m);
    assert_eq!(d, "");
    assert_eq!(p.to_string(), "acc share(A[16 + 2][TB_X * 16])");
    let Pragma::Share(s) = p else { panic!() };
    let PartDim::Expr(e) = &s.specs[0].dims[0] else {
        panic!()
    };
    assert_eq!(e.const_value(), Some(18));
}

/// Every diagnostic of the pragma language, rendered: (pragma text, canonical form of what is
/// kept, diagnostics).
#[test]
fn diagnostics() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"acc parallel loop fancy(3) copy(x[0:n])"#,
            r#"acc parallel loop fancy copy(x[0:n])"#,
            r#"warning: unknown clause `fancy` ignored
  ┌─ t.c:1:27
  │
1 │ #pragma acc parallel loop fancy(3) copy(x[0:n])
  │                           ^^^^^ unknown clause

"#,
        ),
        (
            r#"acc parallel loop copyn(x[0:n])"#,
            r#"acc parallel loop copyn"#,
            r#"warning: unknown clause `copyn` ignored
  ┌─ t.c:1:27
  │
1 │ #pragma acc parallel loop copyn(x[0:n])
  │                           ^^^^^ unknown clause
  │
  = help: did you mean `copyin`?

"#,
        ),
        (
            r#"acc kernels loop indepedent"#,
            r#"acc kernels loop indepedent"#,
            r#"warning: unknown clause `indepedent` ignored
  ┌─ t.c:1:26
  │
1 │ #pragma acc kernels loop indepedent
  │                          ^^^^^^^^^^ unknown clause
  │
  = help: did you mean `independent`?

"#,
        ),
        (
            r#"acc kernels loop share(A[TB_X])"#,
            r#"acc kernels loop share"#,
            r#"warning: unknown clause `share` ignored
  ┌─ t.c:1:26
  │
1 │ #pragma acc kernels loop share(A[TB_X])
  │                          ^^^^^ unknown clause
  │
  = help: `share` is a directive of its own: write `#pragma acc share(…)` on the line before the compute construct

"#,
        ),
        (
            r#"acc frobnicate"#,
            r#"(foreign pragma)"#,
            r#"warning: unknown OpenACC directive `frobnicate` ignored
  ┌─ t.c:1:13
  │
1 │ #pragma acc frobnicate
  │             ^^^^^^^^^^ unknown directive

"#,
        ),
        (
            r#"acc kernal loop"#,
            r#"(foreign pragma)"#,
            r#"warning: unknown OpenACC directive `kernal` ignored
  ┌─ t.c:1:13
  │
1 │ #pragma acc kernal loop
  │             ^^^^^^ unknown directive
  │
  = help: did you mean `kernels`?

"#,
        ),
        (
            r#"acc parallel loop copyin(A[0:n copyin(B[0:n]) copyout(C[0:n])"#,
            r#"acc parallel loop"#,
            r#"error: malformed `copyin` clause: expected `]` after `A[0:n`
  ┌─ t.c:1:40
  │
1 │ #pragma acc parallel loop copyin(A[0:n copyin(B[0:n]) copyout(C[0:n])
  │                                   -    ^^^^^^ expected `]`
  │                                   │     
  │                                   unclosed `[`

"#,
        ),
        (
            r#"acc kernels copyin(A[0:n"#,
            r#"acc kernels"#,
            r#"error: malformed `copyin` clause: expected `]` before end of pragma line
  ┌─ t.c:1:33
  │
1 │ #pragma acc kernels copyin(A[0:n
  │                           - -   ^ expected `]`
  │                           │ │   
  │                           │ unclosed `[`
  │                           unclosed `(` of `copyin`

"#,
        ),
        (
            r#"acc share(A[TB_Y+2][TB_X+2]"#,
            r#"acc share()"#,
            r#"error: malformed `share` directive: expected `)` before end of pragma line
  ┌─ t.c:1:36
  │
1 │ #pragma acc share(A[TB_Y+2][TB_X+2]
  │                  -                 ^ expected `)`
  │                  │                 
  │                  unclosed `(` of `share`

"#,
        ),
        (
            r#"acc share(in[TB_X][TB_Y]:colaesce)"#,
            r#"acc share(in[TB_X][TB_Y])"#,
            r#"error: unknown share modifier `colaesce`
  ┌─ t.c:1:34
  │
1 │ #pragma acc share(in[TB_X][TB_Y]:colaesce)
  │                                  ^^^^^^^^ unknown modifier
  │
  = help: did you mean `coalesce`?

"#,
        ),
        (
            r#"acc share(in[TB_X][TB_Y]:banana)"#,
            r#"acc share(in[TB_X][TB_Y])"#,
            r#"error: unknown share modifier `banana`
  ┌─ t.c:1:34
  │
1 │ #pragma acc share(in[TB_X][TB_Y]:banana)
  │                                  ^^^^^^ unknown modifier
  │
  = note: the only modifier is `coalesce`

"#,
        ),
        (
            r#"acc share(A[TB_Q][*])"#,
            r#"acc share()"#,
            r#"error: `TB_Q` is not a partition size: expected an integer, `TB_X`, `TB_Y`, `TB_Z` or `*`
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[TB_Q][*])
  │                     ^^^^ not a partition size
  │
  = help: the thread-block sizes are `TB_X`, `TB_Y` and `TB_Z`

"#,
        ),
        (
            r#"acc share(A[BLOK][*])"#,
            r#"acc share()"#,
            r#"error: `BLOK` is not a partition size: expected an integer, `TB_X`, `TB_Y`, `TB_Z` or `*`
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[BLOK][*])
  │                     ^^^^ not a partition size
  │
  = help: did you mean `BLOCK`?

"#,
        ),
        (
            r#"acc share(A[4/0])"#,
            r#"acc share()"#,
            r#"error: division by zero in a partition size
  ┌─ t.c:1:23
  │
1 │ #pragma acc share(A[4/0])
  │                       ^ this is zero

"#,
        ),
        (
            r#"acc share(A[TB_X/(2-2)])"#,
            r#"acc share()"#,
            r#"error: division by zero in a partition size
  ┌─ t.c:1:26
  │
1 │ #pragma acc share(A[TB_X/(2-2)])
  │                          ^^^^^ this is zero

"#,
        ),
        (
            r#"acc share(A[2-4])"#,
            r#"acc share()"#,
            r#"error: partition size `2 - 4` is negative (-2)
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[2-4])
  │                     ^^^ a partition size must be positive

"#,
        ),
        (
            r#"acc share(A[-4])"#,
            r#"acc share()"#,
            r#"error: a partition size cannot be negative
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[-4])
  │                     ^ negative sign
  │
  = help: partition sizes are positive: an integer, `TB_X`, `TB_Y`, `TB_Z` or `*`

"#,
        ),
        (
            r#"acc share(A[TB_X-TB_X])"#,
            r#"acc share()"#,
            r#"error: partition size `TB_X - TB_X` is not positive for any thread-block size
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[TB_X-TB_X])
  │                     ^^^^^^^^^ a partition size must be positive

"#,
        ),
        (
            r#"acc share(A[99999999999999999999])"#,
            r#"acc share()"#,
            r#"error: invalid integer `99999999999999999999` in a partition size
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[99999999999999999999])
  │                     ^^^^^^^^^^^^^^^^^^^^ not an integer

"#,
        ),
        (
            r#"acc share(A[4611686018427387904*4])"#,
            r#"acc share()"#,
            r#"error: partition size `4611686018427387904 * 4` overflows
  ┌─ t.c:1:21
  │
1 │ #pragma acc share(A[4611686018427387904*4])
  │                     ^^^^^^^^^^^^^^^^^^^^^ too large

"#,
        ),
        (
            r#"acc share()"#,
            r#"acc share()"#,
            r#"error: empty `share` directive
  ┌─ t.c:1:18
  │
1 │ #pragma acc share()
  │                  ^^ expected at least one array partition
  │
  = help: partition an array like this: `share(A[TB_Y][*])`

"#,
        ),
        (
            r#"acc share(A[TB_X], A[*])"#,
            r#"acc share(A[TB_X])"#,
            r#"error: `A` is partitioned twice
  ┌─ t.c:1:28
  │
1 │ #pragma acc share(A[TB_X], A[*])
  │                   -        ^ second partition
  │                   │         
  │                   first partition

"#,
        ),
        (
            r#"acc share(A[TB_X],)"#,
            r#"acc share()"#,
            r#"error: malformed `share` directive: expected an array name after `A[TB_X],`
  ┌─ t.c:1:27
  │
1 │ #pragma acc share(A[TB_X],)
  │                           ^ expected an array name

"#,
        ),
        (
            r#"acc share(A[TB_X]) copy(a)"#,
            r#"acc share()"#,
            r#"error: expected end of pragma line, found `copy`
  ┌─ t.c:1:28
  │
1 │ #pragma acc share(A[TB_X]) copy(a)
  │                            ^^^^ expected end of pragma line

"#,
        ),
        (
            r#"acc kernels )"#,
            r#"acc kernels"#,
            r#"error: expected a clause or end of pragma line, found `)`
  ┌─ t.c:1:21
  │
1 │ #pragma acc kernels )
  │                     ^ expected a clause or end of pragma line

"#,
        ),
        (
            r#"acc"#,
            r#"(foreign pragma)"#,
            r#"error: expected an OpenACC directive before end of pragma line
  ┌─ t.c:1:12
  │
1 │ #pragma acc
  │            ^ expected an OpenACC directive

"#,
        ),
        (
            r#"acc enter copyin(a)"#,
            r#"(foreign pragma)"#,
            r#"error: expected `data`, found `copyin`
  ┌─ t.c:1:19
  │
1 │ #pragma acc enter copyin(a)
  │                   ^^^^^^ expected `data`

"#,
        ),
        (
            r#"acc loop reduction(foo:x)"#,
            r#"acc loop"#,
            r#"error: malformed `reduction` clause: expected a reduction operator (`+`, `*`, `max`, `min`, `&`, `|`, `^`, `&&` or `||`), found `foo`
  ┌─ t.c:1:28
  │
1 │ #pragma acc loop reduction(foo:x)
  │                            ^^^ expected a reduction operator (`+`, `*`, `max`, `min`, `&`, `|`, `^`, `&&` or `||`)

"#,
        ),
        (
            r#"acc loop reduction(+ x)"#,
            r#"acc loop"#,
            r#"error: malformed `reduction` clause: expected `:` after `+`
  ┌─ t.c:1:30
  │
1 │ #pragma acc loop reduction(+ x)
  │                              ^ expected `:`

"#,
        ),
        (
            r#"acc loop collapse(0)"#,
            r#"acc loop"#,
            r#"error: `collapse` needs a positive integer constant
  ┌─ t.c:1:27
  │
1 │ #pragma acc loop collapse(0)
  │                           ^ expected a positive integer

"#,
        ),
        (
            r#"acc loop collapse(n)"#,
            r#"acc loop"#,
            r#"error: `collapse` needs a positive integer constant
  ┌─ t.c:1:27
  │
1 │ #pragma acc loop collapse(n)
  │                           ^ expected a positive integer

"#,
        ),
        (
            r#"acc data copyin(a[])"#,
            r#"acc data copyin(a[])"#,
            r#"error: empty subscript in a subarray
  ┌─ t.c:1:26
  │
1 │ #pragma acc data copyin(a[])
  │                          ^^ expected an element or a range
  │
  = help: write `a[i]` for one element or `a[start:length]` for a range

"#,
        ),
        (
            r#"acc loop private(t[0:4])"#,
            r#"acc loop private(t)"#,
            r#"warning: subarray bounds in `private` are ignored
  ┌─ t.c:1:26
  │
1 │ #pragma acc loop private(t[0:4])
  │                          ^^^^^^ the whole `t` is private

"#,
        ),
        (
            r#"acc kernels num_gangs()"#,
            r#"acc kernels"#,
            r#"error: malformed `num_gangs` clause: expected an expression, found `)`
  ┌─ t.c:1:31
  │
1 │ #pragma acc kernels num_gangs()
  │                               ^ expected an expression

"#,
        ),
        (
            r#"acc kernels num_gangs(4 5)"#,
            r#"acc kernels"#,
            r#"error: malformed `num_gangs` clause: expected `)` after `4`
  ┌─ t.c:1:33
  │
1 │ #pragma acc kernels num_gangs(4 5)
  │                              -  ^ expected `)`
  │                              │   
  │                              unclosed `(` of `num_gangs`

"#,
        ),
        (
            r#"acc kernels copyin(1)"#,
            r#"acc kernels"#,
            r#"error: malformed `copyin` clause: expected an array name, found `1`
  ┌─ t.c:1:28
  │
1 │ #pragma acc kernels copyin(1)
  │                            ^ expected an array name

"#,
        ),
        (
            r#"acc kernels copy(a) @"#,
            r#"acc kernels"#,
            r#"error: expected a clause or end of pragma line, found `@`
  ┌─ t.c:1:29
  │
1 │ #pragma acc kernels copy(a) @
  │                             ^ expected a clause or end of pragma line

"#,
        ),
        (
            r#"acc loop copyin(a) gang"#,
            r#"acc loop gang"#,
            r#"warning: clause `copyin` does not apply to `#pragma acc loop` and is ignored
  ┌─ t.c:1:18
  │
1 │ #pragma acc loop copyin(a) gang
  │                  ^^^^^^^^^ ignored
  │
  = help: data clauses belong on the compute construct (`kernels`, `parallel`) or on a `data` construct

"#,
        ),
        (
            r#"acc data copyin(a[0:n], b) copyout(a[1:n])"#,
            r#"acc data copyin(a[0:n], b) copyout(a[1:n])"#,
            r#"error: `a` appears in more than one data clause
  ┌─ t.c:1:44
  │
1 │ #pragma acc data copyin(a[0:n], b) copyout(a[1:n])
  │                         -                  ^ again here
  │                         │                   
  │                         first here

"#,
        ),
        (
            r#"acc kernels private(t) num_gangs(4)"#,
            r#"acc kernels num_gangs(4)"#,
            r#"warning: clause `private` does not apply to `#pragma acc kernels` and is ignored
  ┌─ t.c:1:21
  │
1 │ #pragma acc kernels private(t) num_gangs(4)
  │                     ^^^^^^^^^^ ignored

"#,
        ),
        (
            r#"acc atomic update seq"#,
            r#"acc atomic"#,
            r#"warning: clause `seq` does not apply to `#pragma acc atomic` and is ignored
  ┌─ t.c:1:27
  │
1 │ #pragma acc atomic update seq
  │                           ^^^ ignored

"#,
        ),
    ];
    let mut failures = Vec::new();
    for (text, display, expected) in cases {
        let (p, d) = run_with(text, &[("BLOCK".into(), 16)]);
        if p.to_string() != *display || d != *expected {
            failures.push(format!("`{text}`:\n{p}\n{d}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "acc share(A[{}TB_X{}])",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let (p, d) = run(&text);
    assert!(d.starts_with("error: pragma too deeply nested\n"), "{d}");
    assert_eq!(d.matches("error").count(), 1);
    assert_eq!(p.to_string(), "acc share()");
    let text = format!("acc kernels loop if({}", "[(".repeat(10_000));
    let (p, d) = run(&text);
    assert!(d.starts_with("error: pragma too deeply nested\n"), "{d}");
    assert_eq!(p.to_string(), "acc kernels loop");
    // At the limit, the text still parses.
    let text = format!(
        "acc share(A[{}TB_X{}])",
        "(".repeat(MAX_NESTING - 2),
        ")".repeat(MAX_NESTING - 2)
    );
    assert_eq!(canon(&text), "acc share(A[TB_X])");
}

#[test]
fn long_flat_chains_do_not_crash() {
    for text in [
        format!("acc kernels if({}x)", "(int)".repeat(3000)),
        format!("acc kernels if({}x)", "sizeof ".repeat(3000)),
        format!("acc kernels if({}x)", "- ".repeat(5000)),
        format!("acc kernels if({}b)", "a + ".repeat(5000)),
        format!("acc share(A[{}1])", "TB_X + ".repeat(5000)),
        format!("acc kernels if({}b)", "a + ".repeat(50_000)),
        format!("acc kernels {}", "copy(a) ".repeat(2000)),
    ] {
        let (p, _) = run(&text);
        assert!(matches!(p, Pragma::Acc(_) | Pragma::Share(_)), "{p:?}");
    }
}

/// xorshift64*: a deterministic PRNG for the randomized tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// 2,000 random and mutated pragmas: no panic, every label inside the pragma text, and every
/// pragma accepted without diagnostics prints to a canonical form that reads back the same.
#[test]
fn random_pragmas_never_panic() {
    let seeds = [
        "acc kernels loop independent copyin(A[0:n][0:m]) copyout(B[0:n][0:m])",
        "acc share(B[*][TB_X], A[TB_Y][*]:coalesce)",
        "acc share(in[(TB_Y+2)*2][TB_X/2-1])",
        "acc parallel loop gang vector(128) reduction(max:m) private(t) collapse(2)",
        "acc data copy(u[0:n]) create(v[:n]) present(w)",
        "acc update host(a[i]) device(b) async(1) wait(2, 3)",
        "acc cache(a[0:16]) ",
        "acc loop tile(8, 8) seq auto worker(4) if(c) num_gangs(g)",
        "acc enter data copyin(a) ",
        "acc wait(1) async",
        "scop",
        "omp parallel for",
    ];
    let pieces = [
        "(",
        ")",
        "[",
        "]",
        ",",
        ":",
        "*",
        "+",
        "-",
        "/",
        " ",
        "TB_X",
        "TB_Q",
        "coalesce",
        "copyin",
        "0",
        "n",
        "4",
        "\\\n",
        "/*",
        "*/",
        "\"",
        "'",
        "é",
        "#",
        "acc",
        "share",
        "loop",
        "&&",
        "?",
        "sizeof",
        "(float)",
        "->",
        ".",
        "max",
        "99999999999999999999",
        "\t",
        "//",
        "kernels",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..2000 {
        let mut text: String = if round % 10 == 9 {
            // Pure noise.
            (0..rng.below(60))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect()
        } else {
            seeds[rng.below(seeds.len())].to_string()
        };
        for _ in 0..1 + rng.below(4) {
            let cuts: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let a = cuts[rng.below(cuts.len())];
            let b = cuts[rng.below(cuts.len())];
            let (lo, hi) = (a.min(b), a.max(b));
            match rng.below(4) {
                0 => text.insert_str(a, pieces[rng.below(pieces.len())]),
                1 => {
                    let mut end = hi.min(lo + 6);
                    while !text.is_char_boundary(end) {
                        end += 1;
                    }
                    text.replace_range(lo..end, "")
                }
                2 => {
                    let dup = text[lo..hi].to_string();
                    text.insert_str(hi, &dup);
                }
                _ => text.truncate(hi),
            }
        }
        if !text.starts_with("acc") && rng.below(2) == 0 {
            text = format!("acc {text}");
        }
        let src = format!("#pragma {text}\n");
        let mut sm = SourceMap::new();
        let f = sm.add("t.c", PathBuf::from("t.c"), src.clone());
        let line = PragmaLine {
            span: Span::new(f, 8, 8 + text.len()),
            tokens: Vec::new(),
            line_span: Span::new(f, 0, src.len() - 1),
        };
        let mut diags = Diags::new();
        let p = parse_pragma(&line, &sm, &[("BLOCK".into(), 16)], &mut diags);
        for d in diags.iter() {
            for l in &d.labels {
                assert!(
                    line.span.contains(l.span),
                    "label {:?} outside the pragma `{text}`: {}",
                    l.span,
                    d.message
                );
            }
            assert!(
                !d.message.contains("Rule::") && !d.message.contains("_expr"),
                "{}",
                d.message
            );
        }
        let _ = render(&sm, &diags.0);
        if diags.is_empty() && matches!(p, Pragma::Acc(_) | Pragma::Share(_)) {
            let shown = p.to_string();
            let (again, d2) = run_with(&shown, &[("BLOCK".into(), 16)]);
            assert_eq!(d2, "", "`{text}` printed as `{shown}` which does not parse");
            assert_eq!(again.to_string(), shown, "`{text}`");
        }
    }
}

/// With the real preprocessor: clause arguments are macro-expanded, `share` sizes use the
/// integer macros, and spans point at the macro uses.
#[test]
fn through_the_preprocessor() {
    use crate::front::preprocess::{preprocess, PpOptions};
    let src = "#define N 1024\n#define BLOCK 16\n#define ARR A\n#pragma acc kernels copyin(ARR[0:N]) num_gangs(N)\n#pragma acc share(A[BLOCK][TB_X])\n";
    let mut sm = SourceMap::new();
    let f = sm.add("t.c", PathBuf::from("t.c"), src.to_string());
    let mut diags = Diags::new();
    let pp = preprocess(&mut sm, f, &PpOptions::default(), &mut diags);
    assert!(diags.is_empty(), "{}", render(&sm, &diags.0));
    assert_eq!(pp.pragmas.len(), 2);
    let p: Vec<Pragma> = pp
        .pragmas
        .iter()
        .map(|l| parse_pragma(l, &sm, &pp.int_macros, &mut diags))
        .collect();
    assert!(diags.is_empty(), "{}", render(&sm, &diags.0));
    assert_eq!(
        p[0].to_string(),
        "acc kernels copyin(A[0:1024]) num_gangs(1024)"
    );
    assert_eq!(p[1].to_string(), "acc share(A[16][TB_X])");
    let Pragma::Acc(d) = &p[0] else { panic!() };
    let ClauseKind::Data { vars, .. } = &d.clauses[0].kind else {
        panic!()
    };
    assert_eq!(sm.snippet(vars[0].name.span), "ARR");
    assert_eq!(sm.snippet(vars[0].dims[0].len.as_ref().unwrap().span), "N");
}

/// Every pragma of the example programs and the corpus parses without a diagnostic (but the
/// warning `tests/corpus/clauses_twice.c` is written to get), and its canonical form parses
/// back to the same form.
#[test]
fn pragmas_of_examples_and_corpus() {
    use crate::front::preprocess::{preprocess, PpOptions};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for dir in ["examples", "tests/corpus"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().and_then(|x| x.to_str()) != Some("c") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut sm = SourceMap::new();
            let f = sm.add(path.display().to_string(), path.clone(), text);
            let mut diags = Diags::new();
            let pp = preprocess(&mut sm, f, &PpOptions::default(), &mut diags);
            let mut pd = Diags::new();
            for line in &pp.pragmas {
                let p = parse_pragma(line, &sm, &pp.int_macros, &mut pd);
                if let Pragma::Acc(_) | Pragma::Share(_) = p {
                    count += 1;
                    let shown = p.to_string();
                    let (again, d) = run_with(&shown, &pp.int_macros);
                    assert_eq!(d, "", "{shown}");
                    assert_eq!(again.to_string(), shown);
                }
            }
            pd.0.retain(|d| !d.message.contains("appears in two data clauses"));
            assert!(pd.is_empty(), "{}", render(&sm, &pd.0));
        }
    }
    assert!(count > 50, "only {count} pragmas found");
}
