//! Which loops go to the grid: independent claims are trusted unless a dependence contradicts
//! them (an error), unmarked loops in `kernels` are parallel only when proven independent, and a
//! nest whose outer loop is sequential runs on one thread with a warning.

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

fn compile(name: &str, src: &str) -> (Option<driver::Output>, String) {
    let dir = std::env::temp_dir().join(format!("accshare-mapping-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    std::fs::write(&path, src).expect("write");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let out = driver::compile(&path, &opts, &mut sources, &mut diags);
    (out, diag::render(&sources, &diags.0))
}

#[test]
fn unmarked_loops_in_kernels_are_parallel_only_when_proven() {
    let src = "void f(int n, float A[n][n], float B[n][n]) {\n\
               #pragma acc kernels\n\
               {\n\
               for (int i = 0; i < n; i++)\n\
                 for (int j = 0; j < n; j++)\n\
                   B[i][j] = A[i][j] * 2.0f;\n\
               for (int i = 1; i < n; i++)\n\
                 for (int j = 0; j < n; j++)\n\
                   A[i][j] = A[i - 1][j] + 1.0f;\n\
               }\n}\n";
    let (out, diags) = compile("auto.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    let k = &out.module.kernels;
    assert_eq!(k.len(), 2);
    // First nest: both loops proven independent → a 2-D grid.
    assert_eq!(k[0].dims, 2, "{}", out.kernel_source);
    // Second nest: `i` carries a dependence and `j` none in any iteration of `i`: the loops are
    // interchanged, `j` runs on a 1-D grid and `i` in order in each work-item.
    assert_eq!(k[1].dims, 1);
    assert_eq!(k[1].block, [256, 1, 1], "{}", out.kernel_source);
    assert!(
        diags.contains("note: loops `i` and `j` interchanged"),
        "{}",
        diags
    );
    assert!(!diags.contains("loop `i` is not parallel"), "{}", diags);
}

#[test]
fn a_contradicted_independent_claim_is_an_error_naming_both_references() {
    let src = "void f(int n, float *a) {\n\
               #pragma acc parallel loop independent\n\
               for (int i = 1; i < n; i++)\n\
                 a[i] = a[i - 1] + 1.0f;\n}\n";
    let (out, diags) = compile("claim.c", src);
    assert!(out.is_none());
    assert!(
        diags.contains("error: loop `i` is marked independent but carries a dependence"),
        "{}",
        diags
    );
    assert!(
        diags.contains("a[i]") && diags.contains("a[i - 1]"),
        "{}",
        diags
    );
}

#[test]
fn an_implicitly_independent_loop_with_a_dependence_runs_sequentially_with_a_warning() {
    // `parallel loop` without `independent`: OpenACC's default, not the user's claim.
    let src = "void f(int n, float *a) {\n\
               #pragma acc parallel loop\n\
               for (int i = 1; i < n; i++)\n\
                 a[i] = a[i - 1] + 1.0f;\n}\n";
    let (out, diags) = compile("implicit.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    assert!(
        diags.contains(
            "warning: loop `i` carries a dependence: this loop nest runs on one work-item"
        ),
        "{}",
        diags
    );
    assert!(!diags.contains("error"), "{}", diags);
    assert_eq!(out.module.kernels[0].block, [1, 1, 1]);
}

#[test]
fn innermost_parallel_loop_goes_to_x_and_triangles_are_guarded() {
    let src = "void f(int n, float A[n][n]) {\n\
               #pragma acc parallel loop collapse(2)\n\
               for (int i = 0; i < n; i++)\n\
                 for (int j = i; j < n; j++)\n\
                   A[i][j] = A[i][j] + 1.0f;\n}\n";
    let (out, diags) = compile("tri.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    let cl = &out.kernel_source;
    assert!(cl.contains("int j = (int)get_global_id(0)"), "{}", cl);
    assert!(cl.contains("int i = (int)get_global_id(1)"), "{}", cl);
    assert!(
        cl.contains("j >= i"),
        "triangular lower bound must be guarded:\n{}",
        cl
    );
}

#[test]
fn the_loop_walking_the_last_dimension_goes_to_x_without_hints() {
    // Fortran-style order: the outer loop walks the contiguous dimension. With `i` on x every
    // warp would touch 32 rows; seed 000's permutation puts `j` on x.
    let src = "void f(int n, int m, float A[n][m], float B[n][m]) {\n\
               #pragma acc parallel loop collapse(2)\n\
               for (int j = 0; j < m; j++)\n\
                 for (int i = 0; i < n; i++)\n\
                   B[i][j] = 2.0f * A[i][j];\n}\n";
    let (out, diags) = compile("colwalk.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    let cl = &out.kernel_source;
    assert!(cl.contains("int j = (int)get_global_id(0)"), "{}", cl);
    assert!(cl.contains("int i = (int)get_global_id(1)"), "{}", cl);
}

#[test]
fn a_triangular_column_walk_keeps_its_guard_with_x_permuted() {
    let src = "void f(int n, float A[n][n]) {\n\
               #pragma acc parallel loop collapse(2)\n\
               for (int j = 0; j < n; j++)\n\
                 for (int i = 0; i <= j; i++)\n\
                   A[i][j] = A[i][j] + 1.0f;\n}\n";
    let (out, diags) = compile("coltri.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    let cl = &out.kernel_source;
    assert!(cl.contains("int j = (int)get_global_id(0)"), "{}", cl);
    assert!(cl.contains("int i = (int)get_global_id(1)"), "{}", cl);
    assert!(cl.contains("i < j + 1") || cl.contains("i <= j"), "{}", cl);
}

#[test]
fn share_pragmas_and_vector_lengths_keep_the_innermost_loop_on_x() {
    // `TB_X` in a `share` pragma names the innermost loop's block dimension, and
    // `vector_length` asks for a block along the loop it is on: neither is permuted.
    for (name, pragma) in [
        (
            "share.c",
            "#pragma acc share(A[TB_Y][TB_X])\n#pragma acc parallel loop collapse(2)\n",
        ),
        (
            "vlen.c",
            "#pragma acc parallel loop collapse(2) vector_length(64)\n",
        ),
    ] {
        let src = format!(
            "void f(int n, int m, float A[n][m], float B[n][m]) {{\n{}\
             for (int j = 0; j < m; j++)\n\
               for (int i = 0; i < n; i++)\n\
                 B[i][j] = 2.0f * A[i][j];\n}}\n",
            pragma
        );
        let (out, diags) = compile(name, &src);
        let out = out.unwrap_or_else(|| panic!("{}", diags));
        let cl = &out.kernel_source;
        assert!(
            cl.contains("int i = (int)get_global_id(0)"),
            "{}: {}",
            name,
            cl
        );
    }
}

/// A nest perfect but for scalar statements between the headers (NPB MG's `rprj3`): the inner
/// loops go to the grid and each work-item runs the statements; not where the function reads
/// such a scalar after the region, nor where the inner loop assigns it, nor where a statement
/// reads an array or calls a function.
#[test]
fn statements_between_loop_headers_run_in_every_work_item() {
    let src = "void f(int n, int d, double in[2 * n + 3][2 * n + 3], double out[n][n]) {\n\
               int j2, j1, i2, i1;\n\
               #pragma acc parallel loop gang\n\
               for (j2 = 1; j2 < n - 1; j2++) {\n\
                 i2 = 2 * j2 - d;\n\
                 #pragma acc loop vector\n\
                 for (j1 = 1; j1 < n - 1; j1++) {\n\
                   i1 = 2 * j1 - d;\n\
                   out[j2][j1] = in[i2 + 1][i1 + 1] + in[i2][i1];\n\
                 }\n\
               }\n\
               }\n";
    let (out, diags) = compile("prefix.c", src);
    let out = out.unwrap_or_else(|| panic!("{}", diags));
    assert_eq!(out.module.kernels[0].dims, 2, "{}", out.kernel_source);
    assert!(
        out.kernel_source.contains("i2 = 2 * j2 - d;"),
        "{}",
        out.kernel_source
    );
    // Read after the region, assigned by the inner loop, or computed from an array or a
    // call: the inner loop stays in each work-item.
    let kept = [
        ("x = 2 * a;", "", "s[0] = x;\n}\n"),
        ("x = 2 * a;", "x = 0;", "}\n"),
        ("x = s[a];", "", "}\n"),
        ("x = (int)sqrt((double)a);", "", "}\n"),
    ];
    for (k, (prefix, extra, tail)) in kept.iter().enumerate() {
        let src = format!(
            "#include <math.h>\nvoid f(int n, int *s, float A[n][n]) {{\n\
             int x;\n\
             #pragma acc parallel loop copy(A[0:n][0:n], s[0:n])\n\
             for (int a = 0; a < n; a++) {{\n\
               {prefix}\n\
               #pragma acc loop\n\
               for (int b = 0; b < n; b++) {{\n\
                 {extra}\n\
                 A[a][b] = (float)(x + b);\n\
               }}\n\
             }}\n\
             {tail}"
        );
        let (out, diags) = compile(&format!("kept{k}.c"), &src);
        if let Some(out) = out {
            assert_eq!(
                out.module.kernels[0].dims, 1,
                "{prefix} {extra}\n{}",
                out.kernel_source
            );
        } else {
            // The inner loop's own writes of `x` make it carry a dependence: refused or
            // sequential, never sunk.
            assert!(diags.contains("x"), "{prefix} {extra}: {diags}");
        }
    }
}
