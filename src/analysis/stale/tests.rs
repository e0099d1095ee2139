//! Small programs: each bug is warned where it is certain, and nothing where the analysis
//! cannot be sure.

use crate::diag::{Diags, SourceMap};

/// The messages of the data-bug warnings for a C text (one per line).
fn warnings(src: &str) -> Vec<String> {
    let mut sources = SourceMap::new();
    let f = sources.add(
        "t.c".to_string(),
        std::path::PathBuf::from("t.c"),
        src.to_string(),
    );
    let mut diags = Diags::new();
    let parsed = crate::front::load_source(f, &Default::default(), &mut sources, &mut diags);
    assert!(
        !diags.has_errors(),
        "{}",
        crate::diag::render(&sources, &diags.0)
    );
    let regions = crate::ir::lower::find_regions(&parsed.tu, &sources, &mut diags);
    let mut out = Diags::new();
    let host = crate::ir::lower::lower_host(&parsed, &regions);
    super::check(&host, &regions, &sources, &mut out);
    out.0
        .iter()
        .map(|d| {
            let (l, c) = d.primary_span().map_or((0, 0), |s| sources.line_col(s));
            format!("{l}:{c}: {}", d.message)
        })
        .collect()
}

fn kinds(src: &str) -> Vec<&'static str> {
    warnings(src)
        .iter()
        .map(|m| {
            if m.contains("host's stale copy") {
                "host"
            } else if m.contains("device's stale copy") {
                "device"
            } else if m.contains("before anything wrote it") {
                "uninit"
            } else {
                "other"
            }
        })
        .collect()
}

const HEAD: &str = "#include <stdio.h>\n#define N 64\n";

#[test]
fn stale_host_read_after_kernel() {
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
    );
    let w = warnings(&src);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("10:24:"), "{w:?}");
    assert_eq!(kinds(&src), ["host"]);
}

#[test]
fn update_self_silences() {
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
#pragma acc update self(a[0:N])
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
    );
    assert!(warnings(&src).is_empty());
}

#[test]
fn conditional_update_silences() {
    let src = format!(
        "{HEAD}void f(int c) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
        if (c) {{
#pragma acc update self(a)
        }}
        printf(\"%f\\n\", a[3]);
    }}
}}
"
    );
    assert!(warnings(&src).is_empty());
}

#[test]
fn time_loop_with_periodic_update() {
    // Printing every 10 steps after an update: no warning; the read outside the `if` is one.
    let src = format!(
        "{HEAD}void f(int steps) {{
    float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a) create(b)
    for (int t = 0; t < steps; t++) {{
#pragma acc parallel loop
        for (int i = 1; i < N - 1; i++) b[i] = a[i - 1] + a[i + 1];
#pragma acc parallel loop
        for (int i = 1; i < N - 1; i++) a[i] = b[i];
        if (t % 10 == 0) {{
#pragma acc update self(a)
            printf(\"%f\\n\", a[1]);
        }}
    }}
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
}

#[test]
fn loop_carried_stale_read() {
    // The host reads `a` at the top of each step; from the second step on, a kernel wrote it:
    // warned from the loop's back edge.
    let src = format!(
        "{HEAD}void f(int steps) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    for (int t = 0; t < steps; t++) {{
        printf(\"%f\\n\", a[0]);
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] += 1;
    }}
}}
"
    );
    assert_eq!(kinds(&src), ["host"]);
    // A `while` loop whose body may not run, reading after it: the kernel may not have run.
    let w = format!(
        "{HEAD}void f(int steps) {{
    float a[N];
    int t = 0;
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        while (t < steps) {{
#pragma acc parallel loop
            for (int i = 0; i < N; i++) a[i] += 1;
            t++;
        }}
        printf(\"%f\\n\", a[0]);
    }}
}}
"
    );
    assert!(warnings(&w).is_empty(), "{:?}", warnings(&w));
}

#[test]
fn released_without_copy_out() {
    // `exit data delete` after a kernel wrote `a`: the host's copy stays stale.
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc enter data copyin(a)
#pragma acc parallel loop present(a)
    for (int i = 0; i < N; i++) a[i] = 2 * a[i];
#pragma acc exit data delete(a)
    printf(\"%f\\n\", a[3]);
    return 0;
}}
"
    );
    let w = warnings(&src);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("released without copying it back"), "{w:?}");
    // Copied out: nothing.
    let out = src.replace("exit data delete(a)", "exit data copyout(a)");
    assert!(warnings(&out).is_empty());
    // A later compute construct makes its own copy.
    let again = src.replace(
        "    printf(",
        "#pragma acc parallel loop copy(a)\n    for (int i = 0; i < N; i++) a[i] += 1;\n    printf(",
    );
    assert!(warnings(&again).is_empty(), "{:?}", warnings(&again));
}

#[test]
fn stale_device_read_after_host_write() {
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copyin(a) copyout(b)
    {{
        a[0] = 5;
#pragma acc parallel loop
        for (int i = 0; i < N; i++) b[i] = a[i];
    }}
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["device"], "{:?}", warnings(&src));
    let fixed = src.replace("a[0] = 5;", "a[0] = 5;\n#pragma acc update device(a[0:1])");
    assert!(warnings(&fixed).is_empty());
}

#[test]
fn uninitialized_copyout_read() {
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copyout(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
    }}
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["uninit"], "{:?}", warnings(&src));
    // Written first: no warning.
    let ok = src.replace("a[i] = 2 * a[i];", "a[i] = 2 * i;");
    assert!(warnings(&ok).is_empty());
    // The compute construct's own clause.
    let own = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc parallel loop copyout(a)
    for (int i = 0; i < N; i++) a[i] += 1;
    return 0;
}}
"
    );
    assert_eq!(kinds(&own), ["uninit"]);
}

#[test]
fn copyout_of_a_parameter_in_a_routine_called_inside_data_is_not_warned() {
    // `a` may already be present (the caller's data region): `copyout` then copies nothing.
    let src = format!(
        "{HEAD}void g(float *a) {{
#pragma acc data copyout(a[0:N])
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] += 1;
    }}
}}
int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    g(a);
    return 0;
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
    // Called outside any data region: certain.
    let outside = src.replace("#pragma acc data copy(a)\n", "");
    assert_eq!(kinds(&outside), ["uninit"]);
}

#[test]
fn calls_and_aliases_silence() {
    let base = |host: &str| {
        format!(
            "{HEAD}void show(float *p);
int main(void) {{
    float a[N];
    float *p;
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
        {host}
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
        )
    };
    assert_eq!(kinds(&base(";")), ["host"]);
    assert!(warnings(&base("show(a);")).is_empty());
    assert!(warnings(&base("p = a; p[3] = 1;")).is_empty());
    assert!(warnings(&base("show(&a[0]);")).is_empty());
    assert!(warnings(&base("a[3] = 0;")).is_empty());
}

#[test]
fn pointer_swap_is_not_followed() {
    let src = format!(
        "{HEAD}#include <stdlib.h>
int main(void) {{
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *t;
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a[0:N], b[0:N])
    for (int s = 0; s < 4; s++) {{
#pragma acc parallel loop present(a[0:N], b[0:N])
        for (int i = 0; i < N; i++) b[i] = a[i] + 1;
        t = a; a = b; b = t;
        printf(\"%f\\n\", a[0]);
    }}
    return 0;
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
}

#[test]
fn malloc_arrays_are_followed() {
    let src = format!(
        "{HEAD}#include <stdlib.h>
int main(void) {{
    float *a;
    a = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a[0:N])
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
        printf(\"%f\\n\", a[3]);
    }}
    free(a);
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["host"]);
}

#[test]
fn globals_forget_at_unknown_calls() {
    let src = format!(
        "{HEAD}float a[N];
void step(void);
int main(void) {{
#pragma acc data copy(a)
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] = i;
        step();
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
}

#[test]
fn enter_exit_data() {
    let src = format!(
        "{HEAD}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc enter data copyin(a)
#pragma acc parallel loop present(a)
    for (int i = 0; i < N; i++) a[i] = 2 * a[i];
    printf(\"%f\\n\", a[3]);
#pragma acc exit data copyout(a)
    printf(\"%f\\n\", a[3]);
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["host"], "{:?}", warnings(&src));
}

#[test]
fn compute_if_clause_and_switch_silence() {
    let src = format!(
        "{HEAD}void f(int c) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
#pragma acc parallel loop if(c)
        for (int i = 0; i < N; i++) a[i] = 2 * a[i];
        printf(\"%f\\n\", a[3]);
    }}
}}
"
    );
    assert!(warnings(&src).is_empty());
}

#[test]
fn a_local_pointer_to_other_memory_may_be_present() {
    let src = format!(
        "{HEAD}void g(float *y) {{
    float *x = y;
#pragma acc parallel loop copyout(x[0:N])
    for (int i = 0; i < N; i++) x[i] += 1;
}}
int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    g(a);
    return 0;
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
    // A fresh allocation is certainly not on the device.
    let fresh = src.replace(
        "float *x = y;",
        "float *x = (float *)malloc(N * sizeof(float));",
    );
    assert_eq!(kinds(&fresh), ["uninit"]);
}

// --- calls: the summaries of the file's functions ---------------------------------------------

/// The rendered data-bug warnings of a C text.
fn rendered(src: &str) -> String {
    let mut sources = SourceMap::new();
    let f = sources.add(
        "t.c".to_string(),
        std::path::PathBuf::from("t.c"),
        src.to_string(),
    );
    let mut diags = Diags::new();
    let parsed = crate::front::load_source(f, &Default::default(), &mut sources, &mut diags);
    let regions = crate::ir::lower::find_regions(&parsed.tu, &sources, &mut diags);
    let mut out = Diags::new();
    let host = crate::ir::lower::lower_host(&parsed, &regions);
    super::check(&host, &regions, &sources, &mut out);
    crate::diag::render(&sources, &out.0)
}

const BUMP: &str = "static void bump(float *p)
{
#pragma acc parallel loop present(p[0:N])
    for (int i = 0; i < N; i++) p[i] += 1;
}
";

#[test]
fn a_callee_kernel_writes_the_array_the_caller_reads() {
    let src = format!(
        "{HEAD}{BUMP}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        bump(a);
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
    );
    let w = warnings(&src);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("14:24:"), "{w:?}");
    assert_eq!(kinds(&src), ["host"]);
    // The label points at the callee's kernel write.
    let r = rendered(&src);
    assert!(
        r.contains("6 │     for (int i = 0; i < N; i++) p[i] += 1;"),
        "{r}"
    );
    assert!(r.contains("a kernel writes `a` on the device here"), "{r}");
    // `&a[0]` is the array too.
    assert_eq!(kinds(&src.replace("bump(a);", "bump(&a[0]);")), ["host"]);
    // `update self` after the call, or in the callee after its kernel: nothing.
    let upd = src.replace("bump(a);", "bump(a);\n#pragma acc update self(a)");
    assert!(warnings(&upd).is_empty(), "{:?}", warnings(&upd));
    let inner = src.replace(
        "p[i] += 1;\n",
        "p[i] += 1;\n#pragma acc update self(p[0:N])\n",
    );
    assert!(warnings(&inner).is_empty(), "{:?}", warnings(&inner));
    // Through two calls.
    let two = src
        .replace(
            "int main",
            "static void step(float *q) { bump(q); }\nint main",
        )
        .replace("bump(a);", "step(a);");
    assert_eq!(kinds(&two), ["host"]);
}

#[test]
fn a_callee_reads_the_host_copy_of_a_released_array() {
    let src = format!(
        "{HEAD}static void show(const float *q, int n)
{{
    for (int i = 0; i < n; i++)
        printf(\"%f\\n\", q[i]);
}}
int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc enter data copyin(a)
#pragma acc parallel loop present(a)
    for (int i = 0; i < N; i++) a[i] = 2 * a[i];
#pragma acc exit data delete(a)
    show(a, N);
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["host"]);
    let r = rendered(&src);
    for want in [
        "warning: host code reads `a`, which a kernel wrote on the device, but the device copy was released without copying it back",
        "15 │     show(a, N);",
        "│          ^ calls `show`, which reads the host's copy of `a`",
        "`show` reads `q` (`a` here) on the host here",
        "the device copy of `a` is released here, not copied out",
        "= note: the read is in `show`, line 6, which this call runs",
    ] {
        assert!(r.contains(want), "{want}\n{r}");
    }
    // Copied out: nothing.
    let out = src.replace("exit data delete(a)", "exit data copyout(a)");
    assert!(warnings(&out).is_empty(), "{:?}", warnings(&out));
}

#[test]
fn a_callee_kernel_reads_what_the_caller_wrote() {
    let src = format!(
        "{HEAD}{BUMP}int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        a[0] = 5;
        bump(a);
    }}
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["device"]);
    let r = rendered(&src);
    assert!(
        r.contains("a kernel of `bump` reads `p` (`a` here) here"),
        "{r}"
    );
    assert!(
        r.contains("calls `bump`, which runs a kernel that reads the device's copy of `a`"),
        "{r}"
    );
    let upd = src.replace("a[0] = 5;", "a[0] = 5;\n#pragma acc update device(a)");
    assert!(warnings(&upd).is_empty(), "{:?}", warnings(&upd));
}

#[test]
fn a_callee_kernel_writes_a_global() {
    let src = format!(
        "{HEAD}float g[N];
static void bumpg(void)
{{
#pragma acc parallel loop present(g)
    for (int i = 0; i < N; i++) g[i] += 1;
}}
int main(void) {{
    for (int i = 0; i < N; i++) g[i] = i;
#pragma acc data copy(g)
    {{
        bumpg();
        printf(\"%f\\n\", g[3]);
    }}
    return 0;
}}
"
    );
    assert_eq!(kinds(&src), ["host"]);
}

#[test]
fn calls_the_analysis_cannot_follow_forget() {
    let caller = |call: &str| {
        format!(
            "{HEAD}{BUMP}static void twice(float *x, float *y) {{ bump(x); bump(y); }}
static void rec(float *p, int k)
{{
#pragma acc parallel loop present(p[0:N])
    for (int i = 0; i < N; i++) p[i] += 1;
    if (k > 0) rec(p, k - 1);
}}
static void keep(float *p)
{{
    float *x = p;
#pragma acc parallel loop present(x[0:N])
    for (int i = 0; i < N; i++) x[i] += 1;
}}
void unknown(float *p);
int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        {call};
        printf(\"%f\\n\", a[3]);
    }}
    return 0;
}}
"
        )
    };
    // Recursion, an array passed twice, a pointer the callee copies, an unknown callee, an
    // address that is not the array's start.
    for call in [
        "rec(a, 3)",
        "twice(a, a)",
        "keep(a)",
        "unknown(a)",
        "bump(a + 1)",
    ] {
        let src = caller(call);
        assert!(warnings(&src).is_empty(), "{call}: {:?}", warnings(&src));
    }
    assert_eq!(kinds(&caller("bump(a)")), ["host"]);
}

#[test]
fn a_global_pointer_may_name_the_callers_array() {
    // `touch` updates the host copy through a global pointer, which may be `a`.
    let src = format!(
        "{HEAD}float *gp;
static void touch(void)
{{
#pragma acc update self(gp[0:N])
}}
void f(float *a)
{{
#pragma acc data copy(a[0:N])
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) a[i] += 1;
        touch();
        printf(\"%f\\n\", a[3]);
    }}
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
    // A callee that names no global pointer leaves the caller's parameter alone.
    let quiet = src.replace("update self(gp[0:N])", "wait");
    assert_eq!(kinds(&quiet), ["host"]);
}

#[test]
fn a_callee_releases_a_copy_it_made() {
    // The callee's `data copyin` holds `p` while its kernel writes it, then releases it: the
    // caller's host copy stays stale.
    let src = format!(
        "{HEAD}static void work(float *p)
{{
#pragma acc data copyin(p[0:N])
    {{
#pragma acc parallel loop
        for (int i = 0; i < N; i++) p[i] += 1;
    }}
}}
int main(void) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        work(a);
#pragma acc update self(a)
    }}
    work(a);
    printf(\"%f\\n\", a[3]);
    return 0;
}}
"
    );
    let w = warnings(&src);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("20:20:"), "{w:?}");
    assert!(w[0].contains("released without copying it back"), "{w:?}");
    // `copy` in the callee copies it back.
    let copy = src.replace("data copyin(p[0:N])", "data copy(p[0:N])");
    assert!(warnings(&copy).is_empty(), "{:?}", warnings(&copy));
}

#[test]
fn a_call_that_may_not_run_joins() {
    // `c && bump(a)`-like: the call under a condition may not run, so the kernel may not have
    // written `a`; a read the callee makes is still one.
    let src = format!(
        "{HEAD}{BUMP}int f(int c) {{
    float a[N];
    for (int i = 0; i < N; i++) a[i] = i;
#pragma acc data copy(a)
    {{
        if (c) bump(a);
        printf(\"%f\\n\", a[3]);
        c = c > 1 ? (bump(a), 1) : 0;
        printf(\"%f\\n\", a[4]);
    }}
    return c;
}}
"
    );
    assert!(warnings(&src).is_empty(), "{:?}", warnings(&src));
}
