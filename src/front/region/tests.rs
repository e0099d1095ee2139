use std::path::PathBuf;

use super::*;
use crate::diag::render;
use crate::front::parser::parse_translation_unit;
use crate::front::pragma::{expr_to_c, parse_pragma};
use crate::front::preprocess::{preprocess, PpOptions};

/// A C text through the preprocessor, the parser and the pragma parser (file `t.c`).
struct Parsed {
    sources: SourceMap,
    tu: TranslationUnit,
    pragmas: Vec<Pragma>,
    diags: Diags,
}

fn parse(text: &str) -> Parsed {
    let mut sources = SourceMap::new();
    let f = sources.add("t.c", PathBuf::from("t.c"), text.to_string());
    let mut diags = Diags::new();
    let pp = preprocess(&mut sources, f, &PpOptions::default(), &mut diags);
    let tu = parse_translation_unit(&pp, &sources, &mut diags);
    let pragmas = pp
        .pragmas
        .iter()
        .map(|l| parse_pragma(l, &sources, &pp.int_macros, &mut diags))
        .collect();
    Parsed {
        sources,
        tu,
        pragmas,
        diags,
    }
}

/// Parses C text, attaches and validates; returns the tree, the summaries and the rendered
/// diagnostics of all stages.
fn run(text: &str) -> (TranslationUnit, Vec<RegionSummary>, String) {
    let mut p = parse(text);
    attach(&mut p.tu, &p.pragmas, &mut p.diags);
    validate(&p.tu, &p.sources, &mut p.diags);
    p.diags.sort();
    let s = summarize(&p.tu, &p.sources);
    (p.tu, s, render(&p.sources, &p.diags.0))
}

/// (name, C source, `accshare check` lines, rendered diagnostics).
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "goto_in_kernel",
        r#"#define N 256
void first_negative_sum(float out[N], float A[N][N])
{
    int i, j;
#pragma acc parallel loop copyin(A[0:N][0:N]) copyout(out[0:N])
    for (i = 0; i < N; i++) {
        float s = 0.0f;
        for (j = 0; j < N; j++) {
            if (A[i][j] < 0.0f)
                goto done;
            s += A[i][j];
        }
    done:
        out[i] = s;
    }
}
"#,
        r#"t.c:6:5: first_negative_sum: parallel loop | loops i > j | data copyin(A) copyout(out)"#,
        r#"error: `goto` is not supported inside a compute region
   ┌─ t.c:10:17
   │
 5 │ #pragma acc parallel loop copyin(A[0:N][0:N]) copyout(out[0:N])
   │             ------------- inside this compute construct
   ·
10 │                 goto done;
   │                 ^^^^ not supported in a kernel
   │
   = note: a compute region becomes a GPU kernel; its control flow must be structured (`if`, loops, `break`, `continue`)

"#,
    ),
    (
        "struct_in_kernel",
        r#"struct point { float x; float y; };
void norms(int n, const struct point *pts, float *r2)
{
#pragma acc parallel loop copyin(pts[0:n]) copyout(r2[0:n])
    for (int i = 0; i < n; i++)
        r2[i] = (pts + i)->x * pts[i].x + pts[i].y * pts[i].y;
}
"#,
        r#"t.c:5:5: norms: parallel loop | loops i | data copyin(pts) copyout(r2)"#,
        r#"error: `->` on an expression is not supported inside a compute region
  ┌─ t.c:6:17
  │
4 │ #pragma acc parallel loop copyin(pts[0:n]) copyout(r2[0:n])
  │             ------------- inside this compute construct
5 │     for (int i = 0; i < n; i++)
6 │         r2[i] = (pts + i)->x * pts[i].x + pts[i].y * pts[i].y;
  │                 ^^^^^^^^^^^^ member access through a pointer that is not a variable
  │
  = help: index the array of structs instead: `p[i].x`

"#,
    ),
    (
        "share_unknown_array",
        r#"void mv(float y[512], float A[512][512], float x[512])
{
    int i, j;
#pragma acc share(Q[TB_X])
#pragma acc kernels loop independent copyin(A[0:512][0:512], x[0:512]) copyout(y[0:512])
    for (i = 0; i < 512; i++) {
        float s = 0.0f;
        for (j = 0; j < 512; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}
"#,
        r#"t.c:6:5: mv: kernels loop independent | loops i[independent] > j | share Q[TB_X] | data copyin(A,x) copyout(y)"#,
        r#"error: `Q` in share clause is not an array of function `mv`
  ┌─ t.c:4:19
  │
4 │ #pragma acc share(Q[TB_X])
  │                   ^ not declared here
  │
  = note: the arrays here are: A, x, y

"#,
    ),
    (
        "share_typo",
        r#"void mv(float y[512], float A[512][512], float x[512])
{
    int i;
#pragma acc share(AA[TB_X][*])
#pragma acc kernels loop independent
    for (i = 0; i < 512; i++)
        y[i] = A[i][0];
}
"#,
        r#"t.c:6:5: mv: kernels loop independent | loops i[independent] | share AA[TB_X][*]"#,
        r#"error: `AA` in share clause is not an array of function `mv`
  ┌─ t.c:4:19
  │
4 │ #pragma acc share(AA[TB_X][*])
  │                   ^^ not declared here
  │
  = note: the arrays here are: A, x, y
  = help: did you mean `A`?

"#,
    ),
    (
        "share_dims",
        r#"void blur(float B[128][128], float A[128][128])
{
    int i, j;
#pragma acc share(A[TB_Y][TB_X][4])
#pragma acc kernels loop independent copyin(A[0:128][0:128]) copyout(B[0:128][0:128])
    for (i = 1; i < 127; i++) {
#pragma acc loop independent
        for (j = 1; j < 127; j++)
            B[i][j] = 0.25f * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    }
}
"#,
        r#"t.c:6:5: blur: kernels loop independent | loops i[independent] > j[independent] | share A[TB_Y][TB_X][4] | data copyin(A) copyout(B)"#,
        r#"error: share region for `A` has 3 extents but `A` has 2 dimensions
  ┌─ t.c:4:19
  │
1 │ void blur(float B[128][128], float A[128][128])
  │                                    - declared as `float A[128][128]`
  ·
4 │ #pragma acc share(A[TB_Y][TB_X][4])
  │                   ^^^^^^^^^^^^^^^^ 3 extents
  │
  = help: give one extent per dimension: a size (`TB_X`, `TB_Y + 2`, …) or `*`, e.g. `A[*][*]`

"#,
    ),
    (
        "share_scalar",
        r#"void f(int n, float s, float *x)
{
#pragma acc share(s[TB_X])
#pragma acc parallel loop
    for (int i = 0; i < n; i++)
        x[i] = s;
}
"#,
        r#"t.c:5:5: f: parallel loop | loops i | share s[TB_X]"#,
        r#"error: `s` in share clause is not an array
  ┌─ t.c:3:19
  │
1 │ void f(int n, float s, float *x)
  │                     - declared as `float s`
2 │ {
3 │ #pragma acc share(s[TB_X])
  │                   ^ only arrays and pointers can be partitioned

"#,
    ),
    (
        "share_ptr_to_array",
        r#"void f(int n, float (*A)[64], float *x)
{
#pragma acc share(A[TB_Y][*], x[TB_X])
#pragma acc share(B_missing[*])
#pragma acc kernels loop independent
    for (int i = 0; i < n; i++)
        x[i] = A[i][0];
}
"#,
        r#"t.c:6:5: f: kernels loop independent | loops i[independent] | share A[TB_Y][*], x[TB_X], B_missing[*]"#,
        r#"error: `B_missing` in share clause is not an array of function `f`
  ┌─ t.c:4:19
  │
4 │ #pragma acc share(B_missing[*])
  │                   ^^^^^^^^^ not declared here
  │
  = note: the arrays here are: A, x

"#,
    ),
    (
        "share_merge_twice",
        r#"void f(int n, float *x, float *y)
{
#pragma acc share(x[TB_X])
#pragma acc share(y[*], x[*])
#pragma acc kernels loop independent
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}
"#,
        r#"t.c:6:5: f: kernels loop independent | loops i[independent] | share x[TB_X], y[*]"#,
        r#"error: `x` is partitioned twice
  ┌─ t.c:4:25
  │
3 │ #pragma acc share(x[TB_X])
  │                   - first partition
4 │ #pragma acc share(y[*], x[*])
  │                         ^ second partition

"#,
    ),
    (
        "share_not_compute",
        r#"void f(int n, float *x)
{
#pragma acc share(x[TB_X])
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
#pragma acc share(x[TB_X])
#pragma acc loop
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
#pragma acc share(x[*])
}
"#,
        r#""#,
        r#"error: `share` must annotate an OpenACC compute construct
  ┌─ t.c:3:9
  │
3 │ #pragma acc share(x[TB_X])
  │         ^^^^^^^^^^^^^^^^^^ this `share`
4 │     for (int i = 0; i < n; i++)
  │     --- followed by this statement, which is not a compute construct
  │
  = help: write `#pragma acc share(…)` right before `#pragma acc kernels loop` or another compute construct

error: `share` must annotate an OpenACC compute construct
  ┌─ t.c:6:9
  │
6 │ #pragma acc share(x[TB_X])
  │         ^^^^^^^^^^^^^^^^^^ this `share`
7 │ #pragma acc loop
  │             ---- followed by `loop`, which is not a compute construct
  │
  = help: write `#pragma acc share(…)` right before `#pragma acc kernels loop` or another compute construct

error: `share` must annotate an OpenACC compute construct
   ┌─ t.c:10:9
   │
10 │ #pragma acc share(x[*])
   │         ^^^^^^^^^^^^^^^ this `share`
11 │ }
   │ - followed by the end of the block
   │
   = help: write `#pragma acc share(…)` right before `#pragma acc kernels loop` or another compute construct

"#,
    ),
    (
        "loop_needs_for",
        r#"void f(int n, float *x)
{
#pragma acc kernels loop independent
    {
        for (int i = 0; i < n; i++)
            x[i] = 0.0f;
    }
#pragma acc loop seq
    x[0] = 1.0f;
#pragma acc parallel loop
#pragma acc data copy(x[0:n])
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}
"#,
        r#""#,
        r#"error: `#pragma acc kernels loop` must be followed by a `for` loop
  ┌─ t.c:3:13
  │
3 │ #pragma acc kernels loop independent
  │             ^^^^^^^^^^^^ this directive applies to the next statement
4 │     {
  │     - this is not a `for` loop

error: `#pragma acc loop` must be followed by a `for` loop
  ┌─ t.c:8:13
  │
8 │ #pragma acc loop seq
  │             ^^^^ this directive applies to the next statement
9 │     x[0] = 1.0f;
  │     ------------ this is not a `for` loop

error: `#pragma acc parallel loop` must be followed by a `for` loop
   ┌─ t.c:10:13
   │
10 │ #pragma acc parallel loop
   │             ^^^^^^^^^^^^^ this directive applies to the next statement
11 │ #pragma acc data copy(x[0:n])
   │             ---- followed by `data`, not by a `for` loop

"#,
    ),
    (
        "nothing_to_apply",
        r#"void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
#pragma acc kernels
}
"#,
        r#""#,
        r#"error: `#pragma acc kernels` has no statement to apply to
  ┌─ t.c:5:13
  │
5 │ #pragma acc kernels
  │             ^^^^^^^ expected a statement after this directive
6 │ }
  │ - followed by the end of the block

"#,
    ),
    (
        "directive_then_standalone",
        r#"void f(int n, float *x)
{
#pragma acc parallel loop
#pragma acc update host(x[0:n])
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}
"#,
        r#""#,
        r#"error: `#pragma acc parallel loop` has no statement to apply to
  ┌─ t.c:3:13
  │
3 │ #pragma acc parallel loop
  │             ^^^^^^^^^^^^^ expected a statement after this directive
4 │ #pragma acc update host(x[0:n])
  │ ------------------------------- followed by `#pragma acc update`

"#,
    ),
    (
        "collapse",
        r#"void f(int n, float A[64][64][64])
{
#pragma acc parallel loop collapse(3) copy(A)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j][0] = 0.0f;
            for (int k = 0; k < n; k++)
                A[i][j][k] = 1.0f;
        }
#pragma acc parallel loop collapse(2) copy(A)
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            A[i][j][0] = 0.0f;
    }
}
"#,
        r#"t.c:4:5: f: parallel loop collapse(3) | loops i[collapse(3)] > j > k | data copy(A)
t.c:11:5: f: parallel loop collapse(2) | loops i[collapse(2)] > j | data copy(A)"#,
        r#"error: `collapse(3)` needs 3 tightly nested `for` loops, but there are only 2
  ┌─ t.c:3:27
  │
3 │ #pragma acc parallel loop collapse(3) copy(A)
  │                           ^^^^^^^^^^^ on `#pragma acc parallel loop`
4 │     for (int i = 0; i < n; i++)
5 │         for (int j = 0; j < n; j++) {
  │                                     - the loop nest ends here
  │
  = note: tightly nested: each loop's body is exactly the next `for` loop

"#,
    ),
    (
        "collapse_force",
        r#"void f(int n, float *a, float *c)
{
#pragma acc parallel loop collapse(force:2) copyin(a[0:n]) copyout(c[0:10*n])
    for (int x = 0; x < 10; x++) {
        float t = a[x] * 2.0f;
        for (int y = 0; y < n; y++)
            c[x * n + y] = t;
        c[x * n] += 1.0f;
    }
#pragma acc parallel loop collapse(force:2) copy(c[0:10*n])
    for (int x = 0; x < 10; x++) {
        n = n - 1;
        for (int y = 0; y < n; y++)
            c[x * n + y] = 0.0f;
    }
}
"#,
        r#"t.c:4:5: f: parallel loop collapse(force:2) | loops x[collapse(force:2)] > y | data copyin(a) copyout(c)
t.c:11:5: f: parallel loop collapse(force:2) | loops x[collapse(force:2)] > y | data copy(c)"#,
        r#"error: this code between the loops of `collapse(force:2)` cannot run in each iteration of the inner loop: it assigns `n`, which the inner loop's header reads
   ┌─ t.c:12:9
   │
10 │ #pragma acc parallel loop collapse(force:2) copy(c[0:10*n])
   │                           ----------------- collapsed here
11 │     for (int x = 0; x < 10; x++) {
12 │         n = n - 1;
   │         ^
   │
   = note: `force` runs the code between collapsed loops in each iteration of the innermost loop

"#,
    ),
    (
        "return_call_nested",
        r#"float g(float v);
void f(int n, float *x)
{
#pragma acc parallel loop copy(x[0:n])
    for (int i = 0; i < n; i++) {
        x[i] = sqrtf(x[i]) + fmaxf(x[i], 0.0f) + exp(1.0) + min(1, 2);
        x[i] = g(x[i]) + g(x[i]);
        if (x[i] < 0.0f)
            return;
#pragma acc kernels
        x[i] = 0.0f;
        switch (i) { default: x[i] = 1.0f; }
    }
}
"#,
        r#"t.c:5:5: f: parallel loop | loops i | data copy(x)"#,
        r#"error: call to `g` inside a compute region: only math functions are supported
  ┌─ t.c:7:16
  │
4 │ #pragma acc parallel loop copy(x[0:n])
  │             ------------- inside this compute construct
  ·
7 │         x[i] = g(x[i]) + g(x[i]);
  │                ^ not a math function
  │
  = note: the C99 math functions (`sqrt`, `expf`, `fmaxf`, …) and `abs`, `min`, `max` can be called in a kernel

error: `return` is not supported inside a compute region
  ┌─ t.c:9:13
  │
4 │ #pragma acc parallel loop copy(x[0:n])
  │             ------------- inside this compute construct
  ·
9 │             return;
  │             ^^^^^^ `return` here

error: compute construct `kernels` nested inside a compute region
   ┌─ t.c:10:13
   │
 4 │ #pragma acc parallel loop copy(x[0:n])
   │             ------------- inside this compute construct
   ·
10 │ #pragma acc kernels
   │             ^^^^^^^ nested compute construct
   │
   = note: compute constructs cannot be nested; use `#pragma acc loop` for inner loops

error: `switch` is not supported inside a compute region
   ┌─ t.c:12:9
   │
 4 │ #pragma acc parallel loop copy(x[0:n])
   │             ------------- inside this compute construct
   ·
12 │         switch (i) { default: x[i] = 1.0f; }
   │         ^^^^^^ not supported in a kernel
   │
   = note: a compute region becomes a GPU kernel; its control flow must be structured (`if`, loops, `break`, `continue`)

"#,
    ),
    (
        "loop_conflicts",
        r#"void f(int n, float *x)
{
#pragma acc kernels loop independent seq
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
#pragma acc parallel loop auto copy(x[0:n])
    for (int i = 0; i < n; i++) {
#pragma acc loop seq auto
        for (int j = 0; j < n; j++)
            x[i] = x[i] + 1.0f;
    }
}
"#,
        r#"t.c:4:5: f: kernels loop independent seq | loops i[independent seq]
t.c:7:5: f: parallel loop auto | loops i[auto] > j[seq auto] | data copy(x)"#,
        r#"error: loop marked both `independent` and `seq`
  ┌─ t.c:3:38
  │
3 │ #pragma acc kernels loop independent seq
  │                          ----------- ^^^ `seq` here
  │                          │            
  │                          `independent` here
  │
  = help: a loop is either `independent` (parallel), `seq` (sequential) or `auto` (the compiler decides)

error: loop marked both `seq` and `auto`
  ┌─ t.c:8:22
  │
8 │ #pragma acc loop seq auto
  │                  --- ^^^^ `auto` here
  │                  │    
  │                  `seq` here
  │
  = help: a loop is either `independent` (parallel), `seq` (sequential) or `auto` (the compiler decides)

"#,
    ),
    (
        "names",
        r#"float G[100];
void f(int n, float *x, float M[10][10])
{
    float t;
    float sum = 0.0f;
#pragma acc data copy(x[0:n], G) create(y[0:n])
    {
#pragma acc parallel loop private(t, tt) reduction(+:sum, total) copyin(M[0:10][0:10][0:1], n[0:1])
        for (int i = 0; i < n; i++) {
            t = x[i];
            sum += t;
        }
    }
#pragma acc update host(xx[0:n])
}
"#,
        r#"t.c:9:9: f: parallel loop private(t, tt) reduction(+:sum, total) | loops i[private(t, tt) reduction(+:sum, total)] | data copyin(M,n) | in data copy(x,G) create(y)"#,
        r#"error: `y` in `create` clause is not a variable of function `f`
  ┌─ t.c:6:41
  │
6 │ #pragma acc data copy(x[0:n], G) create(y[0:n])
  │                                         ^ not declared here
  │
  = note: the arrays here are: G, M, x

error: `tt` in `private` clause is not a variable of function `f`
  ┌─ t.c:8:38
  │
8 │ #pragma acc parallel loop private(t, tt) reduction(+:sum, total) copyin(M[0:10][0:10][0:1], n[0:1])
  │                                      ^^ not declared here
  │
  = help: did you mean `t`?

error: `total` in `reduction` clause is not a variable of function `f`
  ┌─ t.c:8:59
  │
8 │ #pragma acc parallel loop private(t, tt) reduction(+:sum, total) copyin(M[0:10][0:10][0:1], n[0:1])
  │                                                           ^^^^^ not declared here

error: `M` has 2 dimensions but 3 subscripts are given
  ┌─ t.c:8:73
  │
2 │ void f(int n, float *x, float M[10][10])
  │                               - declared as `float M[10][10]`
  ·
8 │ #pragma acc parallel loop private(t, tt) reduction(+:sum, total) copyin(M[0:10][0:10][0:1], n[0:1])
  │                                                                         ^ 3 subscripts

error: `n` is not an array but has subscripts here
  ┌─ t.c:8:93
  │
2 │ void f(int n, float *x, float M[10][10])
  │            - declared as `int n`
  ·
8 │ #pragma acc parallel loop private(t, tt) reduction(+:sum, total) copyin(M[0:10][0:10][0:1], n[0:1])
  │                                                                                             ^ 1 subscript

error: `xx` in `update host` clause is not a variable of function `f`
   ┌─ t.c:14:25
   │
14 │ #pragma acc update host(xx[0:n])
   │                         ^^ not declared here
   │
   = note: the arrays here are: G, M, x
   = help: did you mean `x`?

"#,
    ),
    (
        "cache",
        r#"void f(int n, float *x, float *y)
{
#pragma acc cache(x[0:16])
#pragma acc parallel loop copyin(x[0:n]) copyout(y[0:n])
    for (int i = 1; i < n; i++) {
#pragma acc cache(x[i:2])
        y[i] = x[i] + x[i - 1];
#pragma acc update host(y[0:n])
    }
}
"#,
        r#"t.c:5:5: f: parallel loop | loops i | data copyin(x) copyout(y)"#,
        r#"warning: `#pragma acc cache` outside a loop of a compute region is ignored
  ┌─ t.c:3:13
  │
3 │ #pragma acc cache(x[0:16])
  │             ^^^^^ not inside a loop of a compute region

error: `#pragma acc update` cannot be used inside a compute region
  ┌─ t.c:8:13
  │
4 │ #pragma acc parallel loop copyin(x[0:n]) copyout(y[0:n])
  │             ------------- inside this compute construct
  ·
8 │ #pragma acc update host(y[0:n])
  │             ^^^^^^ a host directive

"#,
    ),
    (
        "file_scope",
        r#"#pragma acc routine seq
#pragma acc kernels
#pragma acc share(A[*])
float A[10];
#pragma omp declare simd
"#,
        r#""#,
        r#"warning: `#pragma acc kernels` outside a function is ignored
  ┌─ t.c:2:13
  │
2 │ #pragma acc kernels
  │             ^^^^^^^ not inside a function

warning: `#pragma acc share` outside a function is ignored
  ┌─ t.c:3:9
  │
3 │ #pragma acc share(A[*])
  │         ^^^^^^^^^^^^^^^ not inside a function

"#,
    ),
];

/// Attachment and validation of whole functions: the summaries and every diagnostic, rendered.
#[test]
fn regions_and_diagnostics() {
    assert_eq!(CASES.len(), 19);
    let mut failures = Vec::new();
    for (name, src, summary, diags) in CASES {
        let (_, s, d) = run(src);
        let s: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        let s = s.join("\n");
        if s != *summary || d != *diags {
            failures.push(format!("{name}:\n{s}\n{d}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The statements of the first function.
fn body(tu: &TranslationUnit) -> &[Stmt] {
    for it in &tu.items {
        if let ItemKind::Function(f) = &it.kind {
            return &f.body.stmts;
        }
    }
    panic!("no function")
}

fn acc_parts(s: &Stmt) -> (&AccDirective, &Option<SharePragma>, &Stmt) {
    match &s.kind {
        StmtKind::Acc { dir, share, body } => (dir, share, body),
        k => panic!("not an Acc statement: {k:?}"),
    }
}

const GEMM: &str = r#"void gemm(int n, float A[64][64], float B[64][64], float C[64][64])
{
    int i, j, k;
#pragma scop
#pragma acc data copyin(A[0:n][0:n], B[0:n][0:n]) copy(C[0:n][0:n])
    {
#pragma acc share(B[*][TB_X])
#pragma acc share(A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent
#pragma GCC ivdep
        for (i = 0; i < n; i++) {
#pragma acc loop independent
            for (j = 0; j < n; j++) {
                float s = 0.0f;
#pragma acc loop seq
                for (k = 0; k < n; k++)
                    s += A[i][k] * B[k][j];
                C[i][j] = s;
            }
        }
#pragma acc update host(C[0:n][0:n])
    }
#pragma endscop
}
"#;

#[test]
fn attaches_nested_constructs_and_shares() {
    let (tu, summaries, diags) = run(GEMM);
    assert_eq!(diags, "");
    let stmts = body(&tu);
    // decl, scop (Empty), data, endscop (Empty)
    assert_eq!(stmts.len(), 4, "{stmts:#?}");
    assert!(matches!(stmts[1].kind, StmtKind::Empty));
    assert!(matches!(stmts[3].kind, StmtKind::Empty));
    let (data, share, data_body) = acc_parts(&stmts[2]);
    assert_eq!(data.construct, Construct::Data);
    assert!(share.is_none());
    let StmtKind::Block(b) = &data_body.kind else {
        panic!()
    };
    // The two shares, the foreign pragma and the construct became one statement.
    assert_eq!(b.stmts.len(), 2);
    let (kl, share, for_i) = acc_parts(&b.stmts[0]);
    assert_eq!(kl.construct, Construct::KernelsLoop);
    let share = share.as_ref().expect("share attached");
    assert_eq!(
        share
            .specs
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        ["B[*][TB_X]", "A[TB_Y][*]:coalesce"]
    );
    // The merged share keeps the first pragma's span (where the output replacement starts).
    assert_eq!(share.span.lo as usize, GEMM.find("acc share(B").unwrap());
    assert!(matches!(for_i.kind, StmtKind::For { .. }));
    // The statement spans the directive to the end of the loop.
    let text = &GEMM[b.stmts[0].span.range()];
    assert!(
        text.starts_with("#pragma acc kernels loop") || text.starts_with("acc kernels loop"),
        "{text}"
    );
    assert!(
        text.ends_with("C[i][j] = s;\n            }\n        }"),
        "{text}"
    );
    assert!(
        matches!(b.stmts[1].kind, StmtKind::AccStandalone(ref d) if d.construct == Construct::Update)
    );
    // Inner loop directives wrap their `for`.
    let StmtKind::For { body: bi, .. } = &for_i.kind else {
        panic!()
    };
    let StmtKind::Block(bi) = &bi.kind else {
        panic!()
    };
    let (lj, _, for_j) = acc_parts(&bi.stmts[0]);
    assert_eq!(lj.construct, Construct::Loop);
    assert!(matches!(for_j.kind, StmtKind::For { .. }));
    assert_eq!(
        summaries.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ["t.c:11:9: gemm: kernels loop independent | loops i[independent] > j[independent] > k[seq] | share B[*][TB_X], A[TB_Y][*]:coalesce | in data copyin(A,B) copy(C)"]
    );
    let s = &summaries[0];
    assert_eq!(s.func, "gemm");
    assert_eq!(s.loops[0].var, "i");
    assert_eq!(s.loops[0].inner[0].inner[0].marks, ["seq"]);
}

#[test]
fn pragma_in_a_single_statement_body() {
    let src = r#"void f(int n, float A[8][8])
{
#pragma acc parallel loop copy(A)
    for (int i = 0; i < n; i++)
#pragma acc loop vector(128)
        for (int j = 0; j < n; j++)
            A[i][j] = 0.0f;
}
"#;
    let (tu, s, d) = run(src);
    assert_eq!(d, "");
    let (_, _, for_i) = acc_parts(&body(&tu)[0]);
    let StmtKind::For { body: inner, .. } = &for_i.kind else {
        panic!()
    };
    let StmtKind::Block(b) = &inner.kind else {
        panic!("{inner:?}")
    };
    assert_eq!(b.stmts.len(), 1);
    let (l, _, _) = acc_parts(&b.stmts[0]);
    assert_eq!(l.to_string(), "acc loop vector(128)");
    assert_eq!(
        s[0].to_string(),
        "t.c:4:5: f: parallel loop | loops i > j[vector(128)] | data copy(A)"
    );
}

#[test]
fn sibling_loops_and_plain_kernels() {
    let src = r#"void f(int n, float *a, float *b)
{
#pragma acc kernels copyin(a[0:n]) copyout(b[0:n]) async(1)
    {
        for (int i = 0; i < n; i++)
            b[i] = a[i];
        for (int i = 0; i < n; i++) {
#pragma acc loop gang
            for (int j = 0; j < n; j++)
                b[j] = b[j] + 1.0f;
            for (int k = 0; k < n; k++)
                b[k] = b[k] * 2.0f;
        }
    }
}
"#;
    let (_, s, d) = run(src);
    assert_eq!(d, "");
    assert_eq!(
        s[0].to_string(),
        "t.c:4:5: f: kernels async(1) | loops {i, i > {j[gang], k}} | data copyin(a) copyout(b)"
    );
}

#[test]
fn valid_examples_have_no_diagnostics() {
    for src in [
        r#"void mv(int n, float y[512], float A[512][512], float x[512])
{
    int i, j;
#pragma acc share(A[TB_X][*]:coalesce, x[*])
#pragma acc kernels loop independent copyin(A[0:512][0:512], x[0:512]) copyout(y[0:512])
    for (i = 0; i < 512; i++) {
        float s = 0.0f;
        for (j = 0; j < 512; j++)
            s += A[i][j] * x[j];
        y[i] = fmaxf(s, 0.0f);
    }
}
"#,
        r#"float G[16][16];
void f(int n, const float *restrict in, float (*out)[16])
{
#pragma acc share(in[TB_X + 2], G[TB_Y][TB_X])
#pragma acc parallel loop collapse(2) copyin(in[0:n], G) copyout(out[0:n][0:16]) private(n)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 16; j++)
            out[i][j] = in[i] + G[i % 16][j];
}
"#,
    ] {
        let (_, s, d) = run(src);
        assert_eq!(d, "", "{src}");
        assert_eq!(s.len(), 1);
    }
}

#[test]
fn math_functions() {
    for f in [
        "sqrt", "sqrtf", "expf", "fminf", "fmax", "tanhf", "log10", "abs", "min", "max",
    ] {
        assert!(is_math_function(f), "{f}");
    }
    for f in ["printf", "malloc", "rsqrtf", "f", "sqrtff", "g"] {
        assert!(!is_math_function(f), "{f}");
    }
}

#[test]
fn dimensions() {
    let (tu, _, _) = run("void f(float *p, float A[2][3], float (*B)[4], int n, float **q) { }\n");
    let ItemKind::Function(f) = &tu.items[0].kind else {
        panic!()
    };
    let dims: Vec<usize> = f.params.iter().map(|p| array_dims(&p.ty)).collect();
    assert_eq!(dims, [1, 2, 2, 0, 2]);
}

/// Trees deeper than the parser allows (built by hand) are not descended past `MAX_DEPTH`, and
/// long expressions are walked without recursion: no stack overflow.
#[test]
fn deep_trees_do_not_overflow() {
    let mut p = parse(
        "void f(int n, float *x) {\n#pragma acc parallel loop\nfor (int i = 0; i < n; i++) x[i] = g(x[i]);\n}\n",
    );
    let ItemKind::Function(f) = &mut p.tu.items[0].kind else {
        panic!()
    };
    // The loop body: 100,000 nested blocks around `x[i] = g(x[i]) + x[i] + … (100,000 times)`.
    let StmtKind::Pragma(_) = f.body.stmts[0].kind else {
        panic!("{:?}", f.body.stmts[0].kind)
    };
    let StmtKind::For { body, .. } = &mut f.body.stmts[1].kind else {
        panic!()
    };
    let StmtKind::Expr(e) = &body.kind else {
        panic!()
    };
    let mut e = e.clone();
    let span = e.span;
    for _ in 0..100_000 {
        e = Expr::new(
            ExprKind::Binary(
                crate::front::ast::BinOp::Add,
                Box::new(e),
                Box::new(Expr::new(ExprKind::Ident("n".into()), span)),
            ),
            span,
        );
    }
    let mut s = Stmt {
        kind: StmtKind::Expr(e),
        span,
    };
    for _ in 0..100_000 {
        s = Stmt {
            kind: StmtKind::Block(Block {
                stmts: vec![s],
                span,
            }),
            span,
        };
    }
    **body = s;
    let mut diags = Diags::new();
    attach(&mut p.tu, &p.pragmas, &mut diags);
    validate(&p.tu, &p.sources, &mut diags);
    let _ = summarize(&p.tu, &p.sources);
    // The call is deeper than the statement bound: not looked at, and nothing crashed.
    assert!(diags.is_empty(), "{}", render(&p.sources, &diags.0));
    // Dropping such trees recurses: leak them rather than overflow the test's stack.
    std::mem::forget(p);
    // A long expression at a reachable depth is checked completely.
    let mut p = parse(
        "void f(int n, float *x) {\n#pragma acc parallel loop\nfor (int i = 0; i < n; i++) x[i] = g(x[i]);\n}\n",
    );
    let ItemKind::Function(f) = &mut p.tu.items[0].kind else {
        panic!()
    };
    let StmtKind::For { body, .. } = &mut f.body.stmts[1].kind else {
        panic!()
    };
    let StmtKind::Expr(e) = &mut body.kind else {
        panic!()
    };
    let mut deep = e.clone();
    for _ in 0..100_000 {
        deep = Expr::new(
            ExprKind::Binary(
                crate::front::ast::BinOp::Add,
                Box::new(deep),
                Box::new(Expr::new(ExprKind::Ident("n".into()), span)),
            ),
            span,
        );
    }
    *e = deep;
    let mut diags = Diags::new();
    attach(&mut p.tu, &p.pragmas, &mut diags);
    validate(&p.tu, &p.sources, &mut diags);
    assert_eq!(diags.0.len(), 1);
    assert!(diags.0[0].message.starts_with("call to `g`"));
    // Dropping such trees recurses: leak them rather than overflow the test's stack.
    std::mem::forget(p);
}

/// `for (…)` / `#pragma acc loop` / `for (…)` without braces, several levels deep: the parser
/// sees each pragma line as a loop body and the inner loop as the next statement; attachment
/// puts them back together, whether or not the parser grouped them.
#[test]
fn pragmas_in_unbraced_loop_nests() {
    let src = r#"void f(int n, float A[8][8][8])
{
#pragma acc parallel loop copy(A)
    for (int i = 0; i < n; i++)
#pragma acc loop independent
#pragma unroll
        for (int j = 0; j < n; j++)
#pragma acc loop seq
            for (int k = 0; k < n; k++)
                A[i][j][k] = 0.0f;
    A[0][0][0] = 1.0f;
}
"#;
    {
        let mut p = parse(src);
        attach(&mut p.tu, &p.pragmas, &mut p.diags);
        validate(&p.tu, &p.sources, &mut p.diags);
        assert_eq!(render(&p.sources, &p.diags.0), "");
        let stmts = body(&p.tu);
        assert_eq!(stmts.len(), 2, "{stmts:#?}");
        let (_, _, for_i) = acc_parts(&stmts[0]);
        // The outer loop's span now covers the whole nest.
        assert!(src[for_i.span.range()].ends_with("A[i][j][k] = 0.0f;"));
        assert!(src[stmts[0].span.range()].ends_with("A[i][j][k] = 0.0f;"));
        let s = summarize(&p.tu, &p.sources);
        assert_eq!(
            s[0].to_string(),
            "t.c:4:5: f: parallel loop | loops i > j[independent] > k[seq] | data copy(A)"
        );
    }
}

/// A label with no `goto` in the region is an error of its own.
#[test]
fn label_without_goto() {
    let src = "void f(int n, float *x)\n{\n#pragma acc parallel loop\n    for (int i = 0; i < n; i++) {\n    here:\n        x[i] = 0.0f;\n    }\n}\n";
    let (_, _, d) = run(src);
    assert_eq!(
        d,
        "error: labels are not supported inside a compute region
  ┌─ t.c:5:5
  │
3 │ #pragma acc parallel loop
  │             ------------- inside this compute construct
4 │     for (int i = 0; i < n; i++) {
5 │     here:
  │     ^^^^^ not supported in a kernel
  │
  = note: a compute region becomes a GPU kernel; its control flow must be structured (`if`, loops, `break`, `continue`)

"
    );
}

/// Host C that passes through outside compute regions (compound literals, calls through
/// function pointers, `long double`) is refused inside one, with a location.
#[test]
fn host_c99_inside_a_region() {
    let src = "typedef struct { double re, im; } cplx;\n\
               void f(int n, double *x, double (*g)(double))\n{\n\
               \x20   cplx c = (cplx){1.0, 2.0};\n\
               \x20   long double s = (long double)c.re;\n\
               #pragma acc parallel loop copy(x[0:n])\n\
               \x20   for (int i = 0; i < n; i++) {\n\
               \x20       long double t = x[i];\n\
               \x20       x[i] = (*g)(x[i]) + (cplx){x[i], 0.0}.re;\n\
               \x20   }\n\
               }\n";
    let (_, _, d) = run(src);
    let firsts: Vec<&str> = d
        .lines()
        .filter(|l| l.starts_with("error") || l.contains("┌─"))
        .collect();
    assert_eq!(
        firsts,
        [
            "error: `long double` is not supported inside a compute region",
            "  ┌─ t.c:8:21",
            "error: call through a function pointer inside a compute region",
            "  ┌─ t.c:9:17",
            "error: struct member access inside a compute region must name a field of an array element",
            "  ┌─ t.c:9:29",
            "error: compound literals are not supported inside a compute region",
            "  ┌─ t.c:9:29",
        ],
        "{d}"
    );
}

/// Inside compute regions, a `switch` becomes an `if` chain and a chain of assignments one
/// statement per assignment (`desugar`); a `switch` that leaves from inside an `if`, and a
/// chain whose inner target has side effects, stay and are reported where they are. Host code
/// is left as written.
#[test]
fn switches_and_assignment_chains_in_compute_regions() {
    let text = r#"void f(int n, int *k, float *a, float *c)
{
    float s = 0.0f;
#pragma acc parallel loop copyin(k[0:n]) copy(a[0:n], c[0:n]) reduction(+:s)
    for (int i = 0; i < n; i++) {
        switch (k[i]) {
        case 0:
        case 1:
            c[i] = 1.0f;
            break;
        case 2:
            a[i] = 2.0f;
        default:
            c[i] = a[i];
        }
        s += c[i] = a[i] + 1.0f;
    }
#pragma acc parallel loop copyin(k[0:n]) copy(c[0:n])
    for (int i = 0; i < n; i++) {
        switch (k[i]) {
        case 0:
            if (c[i] > 0.0f)
                break;
            c[i] = 1.0f;
        }
        c[i] += a[k[i]++] = 1.0f;
    }
    switch (n) { case 0: s = c[0] = 1.0f; }
}
"#;
    let mut p = parse(text);
    attach(&mut p.tu, &p.pragmas, &mut p.diags);
    desugar(&mut p.tu);
    validate(&p.tu, &p.sources, &mut p.diags);
    p.diags.sort();
    let d = render(&p.sources, &p.diags.0);
    // (The chain `c[i] += a[k[i]++] = …` is reported by the IR's lowering.)
    assert_eq!(
        d,
        r#"error: `switch` is not supported inside a compute region
   ┌─ t.c:20:9
   │
18 │ #pragma acc parallel loop copyin(k[0:n]) copy(c[0:n])
   │             ------------- inside this compute construct
19 │     for (int i = 0; i < n; i++) {
20 │         switch (k[i]) {
   │         ^^^^^^ not supported in a kernel
   │
   = note: a compute region becomes a GPU kernel; its control flow must be structured (`if`, loops, `break`, `continue`)

"#
    );
    let b = body(&p.tu);
    // The first region's loop body: the `if` chain (case 0 or 1; case 2, falling through to
    // default; default), then the chain as two statements.
    let (_, _, l) = acc_parts(&b[1]);
    let StmtKind::For { body: lb, .. } = &l.kind else {
        panic!("{l:?}")
    };
    let StmtKind::Block(lb) = &lb.kind else {
        panic!()
    };
    let StmtKind::If { cond, els, .. } = &lb.stmts[0].kind else {
        panic!("{:?}", lb.stmts[0])
    };
    assert_eq!(expr_to_c(cond), "k[i] == 0 || k[i] == 1");
    let Some(els) = els else { panic!() };
    let StmtKind::If {
        cond,
        then,
        els: Some(default),
    } = &els.kind
    else {
        panic!("{els:?}")
    };
    assert_eq!(expr_to_c(cond), "k[i] == 2");
    let StmtKind::Block(fall) = &then.kind else {
        panic!()
    };
    assert_eq!(fall.stmts.len(), 2);
    let StmtKind::Block(only) = &default.kind else {
        panic!()
    };
    assert_eq!(only.stmts.len(), 1);
    let StmtKind::Block(chain) = &lb.stmts[1].kind else {
        panic!("{:?}", lb.stmts[1])
    };
    let texts: Vec<String> = chain
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Expr(e) => expr_to_c(e),
            k => format!("{k:?}"),
        })
        .collect();
    assert_eq!(texts, ["c[i] = a[i] + 1.0f", "s += c[i]"]);
    // Host code keeps its `switch`.
    assert!(matches!(
        b.last().map(|s| &s.kind),
        Some(StmtKind::Unsupported { what, .. }) if what == "switch"
    ));
}

/// `acc_on_device(t)` in a compute region: true for every device type but the host and none
/// (`acc_device_*` spelled as their values); host code keeps its call.
#[test]
fn acc_on_device_in_compute_regions() {
    let text = r#"void f(int n, int t, int *v)
{
#pragma acc parallel loop copy(v[0:n])
    for (int i = 0; i < n; i++)
        v[i] = acc_on_device(acc_device_host) + acc_on_device(t);
    v[0] = acc_on_device(t);
}
"#;
    let mut p = parse(text);
    attach(&mut p.tu, &p.pragmas, &mut p.diags);
    desugar(&mut p.tu);
    validate(&p.tu, &p.sources, &mut p.diags);
    assert_eq!(render(&p.sources, &p.diags.0), "");
    let b = body(&p.tu);
    let (_, _, l) = acc_parts(&b[0]);
    let StmtKind::For { body: lb, .. } = &l.kind else {
        panic!("{l:?}")
    };
    let StmtKind::Expr(e) = &lb.kind else {
        panic!("{lb:?}")
    };
    assert_eq!(
        expr_to_c(e),
        "v[i] = (2 != 2 && 2 != 0) + (t != 2 && t != 0)"
    );
    let StmtKind::Expr(e) = &b[1].kind else {
        panic!("{:?}", b[1])
    };
    assert_eq!(expr_to_c(e), "v[0] = acc_on_device(t)");
}
