//! Execution tests of the host back end alone: a hand-written C program, a hand-built host plan
//! and hand-written OpenCL kernels (the kernel printer is tested elsewhere) are assembled by
//! `output::assemble`, compiled with `cc -lOpenCL`, run on the available OpenCL device (PoCL in
//! CI) and compared with the sequential program. Also: the runtime's error messages, and the
//! CUDA target's `.c` checked as C and its `.cu` as C++ against a mock CUDA runtime header.

mod exec_support;

use std::ops::Range;
use std::path::{Path, PathBuf};

use accshare::back::output::{assemble, device_file, write_outputs};
use accshare::back::Target;
use accshare::front::ast::Scalar;
use accshare::front::pragma_ast::RedOp;
use accshare::kernel::{
    Buffer, HostArg, HostExpr, HostReduction, HostRegion, KParam, Kernel, Launch, Module,
};

const PROGRAM: &str = r#"/* host_exec.c - vector add, two reductions, a 2-D grid with scalar arguments of several
 * types, and a data region around a time loop with two compute regions. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef TSTEPS
#define TSTEPS 7
#endif
#ifndef ROWS
#define ROWS 37
#endif
#ifndef COLS
#define COLS 23
#endif

static void dump_float(const char *name, const float *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%.9g\n", (double)a[k]);
}

static void dump_int(const char *name, const int *a, long n)
{
    long k;
    printf("== %s %ld\n", name, n);
    for (k = 0; k < n; k++)
        printf("%d\n", a[k]);
}

static void vec(int n, const float *a, const float *b, float *c, double *sum, int *mx)
{
    int i;
    double s = 0.0;
    int m = -1;
#pragma acc kernels loop independent copyin(a[0:n], b[0:n]) copyout(c[0:n])
    for (i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    #pragma acc kernels loop reduction(+:s) reduction(max:m) copyin(c[0:n])
    for (i = 0; i < n; i++) {
        s += c[i];
        if ((int)(c[i] * 100.0f) % 97 > m)
            m = (int)(c[i] * 100.0f) % 97;
    }
    *sum = s;
    *mx = m;
}

static void grid2(int rows, int cols, long scale, float bias, int *g)
{
    int i, j;
#pragma acc kernels loop independent copyout(g[0:rows * cols])
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
            g[i * cols + j] = (int)(i * scale + j) + (int)bias;
}

static void smooth(int n, int steps, float *u, float *v)
{
    int t, i;
#pragma acc data copy(u[0:n]) create(v[0:n])
    {
        for (t = 0; t < steps; t++) {
#pragma acc kernels loop independent
            for (i = 1; i < n - 1; i++)
                v[i] = 0.25f * u[i - 1] + 0.5f * u[i] + 0.25f * u[i + 1];
#pragma acc kernels loop independent
            for (i = 1; i < n - 1; i++)
                u[i] = v[i];
        }
    }
}

int main(void)
{
    int n = N, i, mx = 0;
    double sum = 0.0;
    float *a = (float *)malloc((n + 1) * sizeof(float));
    float *b = (float *)malloc((n + 1) * sizeof(float));
    float *c = (float *)malloc((n + 1) * sizeof(float));
    float *u = (float *)malloc((n + 1) * sizeof(float));
    float *v = (float *)malloc((n + 1) * sizeof(float));
    int *g = (int *)malloc((ROWS * COLS + 1) * sizeof(int));

    if (!a || !b || !c || !u || !v || !g)
        return 1;
    for (i = 0; i < n; i++) {
        a[i] = (float)((i * 7) % 17) / 17.0f;
        b[i] = (float)((i * 3) % 11) / 11.0f;
        u[i] = (float)((i * 5) % 13);
        v[i] = 0.0f;
    }
    vec(n, a, b, c, &sum, &mx);
    grid2(ROWS, COLS, 1000L, 2.5f, g);
    smooth(n, TSTEPS, u, v);

    dump_float("c", c, n);
    printf("== sum 1\n%.17g\n", sum);
    dump_int("mx", &mx, 1);
    dump_int("g", g, (long)ROWS * COLS);
    dump_float("u", u, n);
    free(a);
    free(b);
    free(c);
    free(u);
    free(v);
    free(g);
    return 0;
}
"#;

const OPENCL_KERNELS: &str = r#"#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Every buffer parameter is followed by its element offset (accshare's kernel ABI).

// host_exec.c: c = a + b
__kernel void vec_r0_k0(__global const float *restrict a, long accshare_off_a, __global const float *restrict b, long accshare_off_b,
                        __global float *restrict c, long accshare_off_c, int n)
{
    a += accshare_off_a;
    b += accshare_off_b;
    c += accshare_off_c;
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// "sum" and "max", one partial per work-group
__kernel void vec_r1_k0(__global const float *restrict c, long accshare_off_c, int n,
                        __global double *restrict accshare_part_s, long accshare_off_accshare_part_s, __global int *restrict accshare_part_m, long accshare_off_accshare_part_m)
{
    c += accshare_off_c;
    accshare_part_s += accshare_off_accshare_part_s;
    accshare_part_m += accshare_off_accshare_part_m;
    __local double red_s[256];
    __local int red_m[256];
    int i = get_global_id(0);
    int lid = get_local_id(0);
    double s = 0.0;
    int m = -2147483647 - 1;
    if (i < n) {
        s += c[i];
        if ((int)(c[i] * 100.0f) % 97 > m)
            m = (int)(c[i] * 100.0f) % 97;
    }
    red_s[lid] = s;
    red_m[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int st = 128; st > 0; st >>= 1) {
        if (lid < st) {
            red_s[lid] += red_s[lid + st];
            red_m[lid] = max(red_m[lid], red_m[lid + st]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        accshare_part_s[get_group_id(0)] = red_s[0];
        accshare_part_m[get_group_id(0)] = red_m[0];
    }
}

__kernel void grid2_r2_k0(__global int *restrict g, long accshare_off_g, int rows, int cols, long scale, float bias)
{
    g += accshare_off_g;
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i < rows && j < cols)
        g[i * cols + j] = (int)(i * scale + j) + (int)bias;
}

__kernel void smooth_r3_k0(__global const float *restrict u, long accshare_off_u, __global float *restrict v, long accshare_off_v, int n)
{
    u += accshare_off_u;
    v += accshare_off_v;
    int i = 1 + get_global_id(0);
    if (i < n - 1)
        v[i] = 0.25f * u[i - 1] + 0.5f * u[i] + 0.25f * u[i + 1];
}

__kernel void smooth_r4_k0(__global const float *restrict v, long accshare_off_v, __global float *restrict u, long accshare_off_u, int n)
{
    v += accshare_off_v;
    u += accshare_off_u;
    int i = 1 + get_global_id(0);
    if (i < n - 1)
        u[i] = v[i];
}
"#;

/// The byte range from the start of the line holding the `nth` occurrence of `pragma` to the
/// end of the first `last` after it.
fn region_range(text: &str, pragma: &str, nth: usize, last: &str) -> Range<usize> {
    let mut p = 0;
    for k in 0..=nth {
        let from = if k == 0 { 0 } else { p + 1 };
        p = from + text[from..].find(pragma).expect("pragma");
    }
    let start = text[..p].rfind('\n').map_or(0, |i| i + 1);
    let end = p + text[p..].find(last).expect("statement end") + last.len();
    start..end
}

fn param_buf(name: &str, elem: Scalar, read_only: bool) -> KParam {
    accshare::kernel::testing::buffer(name, elem, read_only, None)
}

fn param_scalar(name: &str, ty: Scalar) -> KParam {
    accshare::kernel::testing::param(name, ty)
}

fn kernel(name: &str, params: Vec<KParam>, dims: u8, block: [u32; 3]) -> Kernel {
    Kernel {
        name: name.into(),
        arrays: accshare::kernel::testing::snapshot(),
        vars: accshare::kernel::testing::vars_snapshot(),
        params,
        locals: Vec::new(),
        dims,
        block,
        body: Vec::new(),
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: "host_exec.c".into(),
    }
}

fn buffer(array: &str, elem: Scalar, count: HostExpr, copy_in: bool, copy_out: bool) -> Buffer {
    Buffer {
        array: array.into(),
        elem,
        count,
        copy_in,
        zero: false,
        copy_out,
        whole_array: false,
        present: false,
        start: None,
        scalar: false,
        rows: None,
    }
}

fn scalar_arg(expr: &str, ty: Scalar) -> HostArg {
    HostArg::Scalar {
        expr: HostExpr::var(expr),
        ty,
    }
}

fn one_d(e: HostExpr) -> [HostExpr; 3] {
    [e, HostExpr::Int(1), HostExpr::Int(1)]
}

fn n() -> HostExpr {
    HostExpr::var("n")
}

/// The host plan of [`PROGRAM`], as the kernel lowering would produce it.
fn module(text: &str) -> Module {
    let f = Scalar::Float;
    let mut vec_red = kernel(
        "vec_r1_k0",
        vec![
            param_buf("c", f, true),
            param_scalar("n", Scalar::Int),
            param_buf("accshare_part_s", Scalar::Double, false),
            param_buf("accshare_part_m", Scalar::Int, false),
        ],
        1,
        [256, 1, 1],
    );
    vec_red.uses_double = true;
    let data_start = text.find("#pragma acc data").expect("data pragma");
    let body_start = data_start + text[data_start..].find("    {").expect("body") + 4;
    let body_end = text.find("    }\n}\n\nint main").expect("body end") + 5;
    let smooth_launch = |k: usize, first: &str, second: &str| Launch {
        kernel: k,
        args: vec![
            HostArg::Buffer(first.into()),
            HostArg::Buffer(second.into()),
            scalar_arg("n", Scalar::Int),
        ],
        stride: None,
        extent: one_d(n() - HostExpr::Int(1) - HostExpr::Int(1)),
        reductions: Vec::new(),
    };
    Module {
        kernels: vec![
            kernel(
                "vec_r0_k0",
                vec![
                    param_buf("a", f, true),
                    param_buf("b", f, true),
                    param_buf("c", f, false),
                    param_scalar("n", Scalar::Int),
                ],
                1,
                [256, 1, 1],
            ),
            vec_red,
            kernel(
                "grid2_r2_k0",
                vec![
                    param_buf("g", Scalar::Int, false),
                    param_scalar("rows", Scalar::Int),
                    param_scalar("cols", Scalar::Int),
                    param_scalar("scale", Scalar::Long),
                    param_scalar("bias", Scalar::Float),
                ],
                2,
                [16, 4, 1],
            ),
            kernel(
                "smooth_r3_k0",
                vec![
                    param_buf("u", f, true),
                    param_buf("v", f, false),
                    param_scalar("n", Scalar::Int),
                ],
                1,
                [256, 1, 1],
            ),
            kernel(
                "smooth_r4_k0",
                vec![
                    param_buf("v", f, true),
                    param_buf("u", f, false),
                    param_scalar("n", Scalar::Int),
                ],
                1,
                [64, 1, 1],
            ),
        ],
        host: vec![
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: region_range(
                    text,
                    "#pragma acc kernels loop independent copyin",
                    0,
                    "b[i];",
                ),
                keep_body: None,
                quiet_body: false,
                buffers: vec![
                    buffer("a", f, n(), true, false),
                    buffer("b", f, n(), true, false),
                    buffer("c", f, n(), false, true),
                ],
                launches: vec![Launch {
                    kernel: 0,
                    args: vec![
                        HostArg::Buffer("a".into()),
                        HostArg::Buffer("b".into()),
                        HostArg::Buffer("c".into()),
                        scalar_arg("n", Scalar::Int),
                    ],
                    stride: None,
                    extent: one_d(n()),
                    reductions: Vec::new(),
                }],
                origin: "host_exec.c:48".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: region_range(
                    text,
                    "#pragma acc kernels loop reduction",
                    0,
                    "% 97;\n    }",
                ),
                keep_body: None,
                quiet_body: false,
                buffers: vec![buffer("c", f, n(), true, false)],
                launches: vec![Launch {
                    kernel: 1,
                    args: vec![
                        HostArg::Buffer("c".into()),
                        scalar_arg("n", Scalar::Int),
                        HostArg::Partials(0),
                        HostArg::Partials(1),
                    ],
                    stride: None,
                    extent: one_d(n()),
                    reductions: vec![
                        HostReduction {
                            var: "s".into(),
                            ty: Scalar::Double,
                            op: RedOp::Add,
                        },
                        HostReduction {
                            var: "m".into(),
                            ty: Scalar::Int,
                            op: RedOp::Max,
                        },
                    ],
                }],
                origin: "host_exec.c:51".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: region_range(
                    text,
                    "#pragma acc kernels loop independent copyout(g",
                    0,
                    "(int)bias;",
                ),
                keep_body: None,
                quiet_body: false,
                buffers: vec![buffer(
                    "g",
                    Scalar::Int,
                    HostExpr::var("rows") * HostExpr::var("cols"),
                    false,
                    true,
                )],
                launches: vec![Launch {
                    kernel: 2,
                    args: vec![
                        HostArg::Buffer("g".into()),
                        scalar_arg("rows", Scalar::Int),
                        scalar_arg("cols", Scalar::Int),
                        scalar_arg("scale", Scalar::Long),
                        scalar_arg("bias", Scalar::Float),
                    ],
                    stride: None,
                    extent: [
                        HostExpr::var("cols"),
                        HostExpr::var("rows"),
                        HostExpr::Int(1),
                    ],
                    reductions: Vec::new(),
                }],
                origin: "host_exec.c:64".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: data_start..body_end,
                keep_body: Some(body_start..body_end),
                quiet_body: false,
                buffers: vec![
                    buffer("u", f, n(), true, true),
                    buffer("v", f, n(), false, false),
                ],
                launches: Vec::new(),
                origin: "host_exec.c:73".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: region_range(
                    text,
                    "#pragma acc kernels loop independent\n            for",
                    0,
                    "1];",
                ),
                keep_body: None,
                quiet_body: false,
                buffers: Vec::new(),
                launches: vec![smooth_launch(3, "u", "v")],
                origin: "host_exec.c:77".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: region_range(
                    text,
                    "#pragma acc kernels loop independent\n            for",
                    1,
                    "v[i];",
                ),
                keep_body: None,
                quiet_body: false,
                buffers: Vec::new(),
                launches: vec![smooth_launch(4, "v", "u")],
                origin: "host_exec.c:80".into(),
                aliases: Vec::new(),
            },
        ],
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write test file");
    p
}

/// Warnings the generated code must not cause. The user's loop variables do become unused once
/// their loops moved into kernels: that is not the generated code's doing.
const STRICT: &[&str] = &[
    "-Wall",
    "-Wextra",
    "-Wno-unused-variable",
    "-Wno-unused-parameter",
];

/// Builds the OpenCL program (through `assemble` + `write_outputs`) and returns the executable.
/// With `strict`, the build must print no warning (see [`STRICT`]).
fn build(
    dir: &Path,
    text: &str,
    m: &Module,
    kernels: &str,
    defines: &[(&str, &str)],
    strict: bool,
) -> Result<PathBuf, String> {
    let input = write(dir, "host_exec.c", text);
    let host = assemble(text, m, kernels, Target::OpenCl, &Default::default());
    let paths = write_outputs(
        &dir.join("out"),
        "host_exec",
        &input,
        &host,
        kernels,
        Target::OpenCl,
        &[],
    )
    .map_err(|e| e.to_string())?;
    assert_eq!(
        paths,
        vec![dir.join("out/host_exec.c"), dir.join("out/host_exec.cl")]
    );
    let exe = dir.join("gpu");
    let flags: &[&str] = if strict { STRICT } else { &[] };
    let warnings = exec_support::compile_c_with(&paths[0], &exe, defines, true, flags)?;
    if !warnings.trim().is_empty() {
        return Err(format!(
            "the generated program compiles with warnings:\n{}",
            warnings
        ));
    }
    Ok(exe)
}

#[test]
fn assembled_program_matches_the_sequential_program() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let m = module(PROGRAM);
    let variants: &[&[(&str, &str)]] = &[
        &[],
        // Sizes that are not multiples of any block size, many work-groups in the reduction.
        &[
            ("N", "100003"),
            ("ROWS", "5"),
            ("COLS", "301"),
            ("TSTEPS", "3"),
        ],
        // Stencil extent 0 and -1: launches skipped; a single element.
        &[("N", "2")],
        &[("N", "1")],
        // Nothing at all: zero-byte buffers, every launch skipped, reductions keep their value.
        &[("N", "0"), ("ROWS", "0")],
    ];
    let mut failures = Vec::new();
    for (k, defines) in variants.iter().enumerate() {
        let dir = exec_support::scratch_dir(&format!("host-exec-{}", k));
        let result = (|| -> Result<(), String> {
            let seq_src = write(&dir, "seq.c", PROGRAM);
            let seq = dir.join("seq");
            exec_support::compile_c(&seq_src, &seq, defines, false)?;
            let expected = exec_support::run(&seq)?;
            // Constant sizes of 0 make GCC's flow analysis chatty about the test program itself.
            let exe = build(&dir, PROGRAM, &m, OPENCL_KERNELS, defines, k == 0)?;
            let actual = exec_support::run(&exe)?;
            exec_support::compare_dumps(&expected, &actual, 1e-5, 1e-6)?;
            // The dumps are not trivially empty.
            if !actual.contains("== u ") || !actual.contains("== sum 1") {
                return Err(format!("unexpected output:\n{}", actual));
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                let _ = std::fs::remove_dir_all(&dir);
            }
            Err(e) => failures.push(format!("{:?}: {}", defines, e)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A program with one compute region, for the error paths of the runtime.
const SMALL: &str = r#"#include <stdio.h>
int main(void)
{
    float x[10];
    int i, n = 10;
#pragma acc kernels loop independent
    for (i = 0; i < n; i++)
        x[i] = (float)i;
    printf("== x 10\n");
    for (i = 0; i < n; i++)
        printf("%.9g\n", (double)x[i]);
    return 0;
}
"#;

fn small_module(kernel_name: &str, block: u32) -> Module {
    Module {
        kernels: vec![kernel(
            kernel_name,
            vec![
                param_buf("x", Scalar::Float, false),
                param_scalar("n", Scalar::Int),
            ],
            1,
            [block, 1, 1],
        )],
        host: vec![HostRegion {
            data_ops: Vec::new(),
            device_scalars: Vec::new(),
            if_clause: None,
            fallback: None,
            replace: region_range(SMALL, "#pragma acc kernels", 0, "(float)i;"),
            keep_body: None,
            quiet_body: false,
            buffers: vec![buffer("x", Scalar::Float, HostExpr::Int(10), false, true)],
            launches: vec![Launch {
                kernel: 0,
                args: vec![HostArg::Buffer("x".into()), scalar_arg("n", Scalar::Int)],
                stride: None,
                extent: one_d(n()),
                reductions: Vec::new(),
            }],
            origin: "small.c:6".into(),
            aliases: Vec::new(),
        }],
    }
}

const SMALL_KERNEL: &str = "__kernel void small_k0(__global float *restrict x, long accshare_off_x, int n)\n\
{\n    x += accshare_off_x;\n    int i = get_global_id(0);\n    if (i < n)\n        x[i] = (float)i;\n}\n";

#[test]
fn runtime_device_selection_and_error_messages() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("host-exec-errors");
    let expected: String = std::iter::once("== x 10".to_string())
        .chain((0..10).map(|i| i.to_string()))
        .collect::<Vec<_>>()
        .join("\n");

    // A working build: verbose mode names the device; the device can be chosen by index or by
    // a case-insensitive part of its name.
    let ok = build(
        &dir,
        SMALL,
        &small_module("small_k0", 4),
        SMALL_KERNEL,
        &[],
        true,
    )
    .unwrap();
    let (code, out, err) = exec_support::run_with_env(&ok, &[("ACCSHARE_VERBOSE", "1")]).unwrap();
    assert_eq!(code, Some(0), "{}", err);
    exec_support::compare_dumps(&expected, &out, 0.0, 0.0).unwrap();
    let line = err
        .lines()
        .find(|l| l.starts_with("accshare: running on "))
        .unwrap_or_else(|| panic!("no device line in {:?}", err));
    let device = line
        .trim_start_matches("accshare: running on ")
        .rsplit_once(" (")
        .map(|(d, _)| d.to_string())
        .unwrap();
    let part: String = device.chars().take(6).collect::<String>().to_uppercase();
    for sel in ["0", part.as_str()] {
        let (code, out, err) =
            exec_support::run_with_env(&ok, &[("ACCSHARE_DEVICE", sel), ("ACCSHARE_VERBOSE", "1")])
                .unwrap();
        assert_eq!(code, Some(0), "ACCSHARE_DEVICE={}: {}", sel, err);
        assert!(
            err.contains(&format!("accshare: running on {} (", device)),
            "{}",
            err
        );
        exec_support::compare_dumps(&expected, &out, 0.0, 0.0).unwrap();
    }
    // Verbose mode says whether buffers may be the host's arrays (zero-copy): on for a device
    // sharing host memory (PoCL's CPU device), off under ACCSHARE_NO_ZERO_COPY.
    let zc = err
        .lines()
        .find(|l| l.starts_with("accshare: zero-copy buffers: "))
        .unwrap_or_else(|| panic!("no zero-copy line in {:?}", err));
    if device.starts_with("pthread") || device.starts_with("cpu") {
        assert_eq!(zc, "accshare: zero-copy buffers: on");
    }
    let (code, out, err) = exec_support::run_with_env(
        &ok,
        &[("ACCSHARE_NO_ZERO_COPY", "1"), ("ACCSHARE_VERBOSE", "1")],
    )
    .unwrap();
    assert_eq!(code, Some(0), "{}", err);
    exec_support::compare_dumps(&expected, &out, 0.0, 0.0).unwrap();
    assert!(
        err.lines()
            .any(|l| l == "accshare: zero-copy buffers: off (ACCSHARE_NO_ZERO_COPY)")
            || err.contains("zero-copy buffers: off (the device does not share host memory)"),
        "{}",
        err
    );
    // Quiet without ACCSHARE_VERBOSE.
    let (_, _, err) = exec_support::run_with_env(&ok, &[]).unwrap();
    assert!(err.is_empty(), "{}", err);

    // No such device: the error lists the devices.
    for sel in ["no-such-device-xyz", "999"] {
        let (code, _, err) = exec_support::run_with_env(&ok, &[("ACCSHARE_DEVICE", sel)]).unwrap();
        assert_eq!(code, Some(1));
        assert!(
            err.starts_with(&format!(
                "accshare: ACCSHARE_DEVICE={} matches no OpenCL device (give an index or a part of the name)\naccshare: OpenCL devices:\naccshare:   0: ",
                sel
            )),
            "{}",
            err
        );
    }

    // A kernel that does not build: the build log is printed.
    let broken = "__kernel void small_k0(__global float *x, int n) { x[0] = undeclared_thing; }\n";
    let exe = build(&dir, SMALL, &small_module("small_k0", 4), broken, &[], true).unwrap();
    let (code, _, err) = exec_support::run_with_env(&exe, &[]).unwrap();
    assert_eq!(code, Some(1));
    // (The OpenCL compiler may print to stderr itself before.)
    assert!(
        err.contains("accshare: clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11) at small.c:6\naccshare: build log:\n"),
        "{}",
        err
    );
    assert!(err.contains("undeclared_thing"), "{}", err);

    // A kernel name the program does not define.
    let exe = build(
        &dir,
        SMALL,
        &small_module("missing_k0", 4),
        SMALL_KERNEL,
        &[],
        true,
    )
    .unwrap();
    let (code, _, err) = exec_support::run_with_env(&exe, &[]).unwrap();
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "accshare: clCreateKernel(missing_k0) failed: CL_INVALID_KERNEL_NAME (-46) at small.c:6\n"
    );

    // A work-group larger than any device allows.
    let exe = build(
        &dir,
        SMALL,
        &small_module("small_k0", 1 << 24),
        SMALL_KERNEL,
        &[],
        true,
    )
    .unwrap();
    let (code, _, err) = exec_support::run_with_env(&exe, &[]).unwrap();
    assert_eq!(code, Some(1));
    assert!(
        err.contains("accshare: clEnqueueNDRangeKernel(small_k0) failed: CL_INVALID_WORK_")
            && err.trim_end().ends_with("at small.c:6"),
        "{}",
        err
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ACCSHARE_PROFILE=1`: at exit, a table on stderr of every kernel (region, launches, device
/// times), by total time, then the copies by direction; unset or `0`, nothing at all.
#[test]
fn profile_table_names_every_kernel_with_its_launches() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("host-exec-profile");
    let exe = build(&dir, PROGRAM, &module(PROGRAM), OPENCL_KERNELS, &[], true).unwrap();
    let (code, plain, err) = exec_support::run_with_env(&exe, &[]).unwrap();
    assert_eq!(code, Some(0), "{}", err);
    assert!(err.is_empty(), "{}", err);
    let (code, _, err) = exec_support::run_with_env(&exe, &[("ACCSHARE_PROFILE", "0")]).unwrap();
    assert_eq!(code, Some(0), "{}", err);
    assert!(err.is_empty(), "{}", err);
    // With copies (ACCSHARE_NO_ZERO_COPY) and without (a device sharing host memory).
    for env in [
        &[("ACCSHARE_PROFILE", "1")][..],
        &[("ACCSHARE_PROFILE", "1"), ("ACCSHARE_NO_ZERO_COPY", "1")][..],
    ] {
        let (code, out, err) = exec_support::run_with_env(&exe, env).unwrap();
        assert_eq!(code, Some(0), "{}", err);
        // The program's output is the same.
        assert_eq!(out, plain);
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines.len() >= 7
                && lines[0].starts_with("accshare: profile: 5 kernels, 17 launches, ")
                && lines[0].contains(" ms on "),
            "{}",
            err
        );
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            [
                "accshare:",
                "kernel",
                "region",
                "launches",
                "total",
                "ms",
                "mean",
                "us",
                "min",
                "us",
                "max",
                "us",
                "%"
            ],
            "{}",
            err
        );
        let mut rows: Vec<(String, String, u32, f64)> = lines[2..7]
            .iter()
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                assert_eq!((f.len(), f[0]), (9, "accshare:"), "{}", l);
                (
                    f[1].to_string(),
                    f[2].to_string(),
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                )
            })
            .collect();
        // Sorted by total time, longest first.
        assert!(rows.windows(2).all(|w| w[0].3 >= w[1].3), "{}", err);
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        let got: Vec<(&str, &str, u32)> = rows
            .iter()
            .map(|(k, o, n, _)| (k.as_str(), o.as_str(), *n))
            .collect();
        assert_eq!(
            got,
            [
                ("grid2_r2_k0", "host_exec.c:64", 1),
                ("smooth_r3_k0", "host_exec.c:77", 7),
                ("smooth_r4_k0", "host_exec.c:80", 7),
                ("vec_r0_k0", "host_exec.c:48", 1),
                ("vec_r1_k0", "host_exec.c:51", 1),
            ],
            "{}",
            err
        );
        // Then the copies, when there are any.
        let copies = &lines[7..];
        if env.len() == 2 {
            assert!(
                copies.len() == 2
                    && copies
                        .iter()
                        .any(|l| l.starts_with("accshare: host to device: "))
                    && copies
                        .iter()
                        .any(|l| l.starts_with("accshare: device to host: ")),
                "{}",
                err
            );
        }
        assert!(
            copies
                .iter()
                .all(|l| l.contains(" copies, ") && l.ends_with(" ms")),
            "{}",
            err
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mock of the CUDA runtime API, enough to check the generated `.cu` as C++.
const MOCK_CUDA: &str = r#"#pragma once
#include <stddef.h>
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct cudaDeviceProp { char name[256]; size_t totalGlobalMem; int pageableMemoryAccess; };
extern const dim3 threadIdx, blockIdx, blockDim, gridDim;
cudaError_t cudaGetDeviceCount(int *);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *, int);
cudaError_t cudaSetDevice(int);
cudaError_t cudaGetDevice(int *);
cudaError_t cudaMemGetInfo(size_t *, size_t *);
cudaError_t cudaDriverGetVersion(int *);
cudaError_t cudaRuntimeGetVersion(int *);
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaFree(void *);
typedef struct CUstream_st *cudaStream_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMemoryPoolsSupported = 115 };
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
cudaError_t cudaMallocAsync(void **, size_t, cudaStream_t);
cudaError_t cudaFreeAsync(void *, cudaStream_t);
cudaError_t cudaDeviceGetAttribute(int *, enum cudaDeviceAttr, int);
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *, int);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, enum cudaMemPoolAttr, void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, enum cudaMemcpyKind);
typedef struct CUevent_st *cudaEvent_t;
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
#define CUDART_CB
typedef void (*cudaHostFn_t)(void *);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void *);
cudaError_t cudaGetLastError(void);
cudaError_t cudaDeviceSynchronize(void);
const char *cudaGetErrorName(cudaError_t);
const char *cudaGetErrorString(cudaError_t);
#define __global__
#define __shared__ static
#define __restrict__ __restrict
void __syncthreads(void);
"#;

const CUDA_KERNELS: &str = r#"__global__ void vec_r0_k0(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
__global__ void vec_r1_k0(const float *__restrict__ c, int n, double *__restrict__ accshare_part_s, int *__restrict__ accshare_part_m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        accshare_part_s[blockIdx.x] = c[i];
        accshare_part_m[blockIdx.x] = (int)c[i];
    }
}
__global__ void grid2_r2_k0(int *__restrict__ g, int rows, int cols, long scale, float bias)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols)
        g[i * cols + j] = (int)(i * scale + j) + (int)bias;
}
__global__ void smooth_r3_k0(const float *__restrict__ u, float *__restrict__ v, int n)
{
    int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        v[i] = 0.25f * u[i - 1] + 0.5f * u[i] + 0.25f * u[i + 1];
}
__global__ void smooth_r4_k0(const float *__restrict__ v, float *__restrict__ u, int n)
{
    int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        u[i] = v[i];
}
"#;

/// The CUDA target's two files: the `.c` must be C (compiled by `cc` with strict warnings,
/// including no CUDA header), the `.cu` valid C++ against a mock of the CUDA runtime once the
/// launch syntax is dropped (nvcc itself compiles it in tests/cuda_nvcc.rs).
#[test]
fn cuda_host_code_is_c_and_the_cu_is_cpp_against_a_mock_runtime() {
    let gxx = std::process::Command::new("g++").arg("--version").output();
    if !gxx.is_ok_and(|o| o.status.success()) {
        exec_support::skip_or_fail("no C++ compiler (`g++`) to check the CUDA host code");
        return;
    }
    let dir = exec_support::scratch_dir("host-exec-cuda");
    let input = write(&dir, "host_exec.c", PROGRAM);
    let m = module(PROGRAM);
    let c = assemble(PROGRAM, &m, CUDA_KERNELS, Target::Cuda, &Default::default());
    let cu = device_file(&m, CUDA_KERNELS, Target::Cuda);
    let paths = write_outputs(
        &dir.join("out"),
        "host_exec",
        &input,
        &c,
        &cu,
        Target::Cuda,
        &[],
    )
    .unwrap();
    assert_eq!(
        paths,
        vec![dir.join("out/host_exec.c"), dir.join("out/host_exec.cu")]
    );
    assert!(c.contains("accshare_launch_vec_r1_k0(accshare_grid, accshare_d_c, accshare_a1, accshare_p0, accshare_p1, \"host_exec.c:"));
    assert!(!c.contains("#include <cuda") && !c.contains("<<<"), "{}", c);
    assert!(cu.contains("    vec_r1_k0<<<dim3(accshare_grid[0], accshare_grid[1], accshare_grid[2]), dim3(256, 1, 1)>>>(accshare_a0, accshare_a1, accshare_a2, accshare_a3);\n"), "{}", cu);
    // The program's text is only in the .c.
    assert!(!cu.contains("dump_float"));
    // The .c is C: compiled (not linked) by cc with strict warnings, no CUDA header around.
    let o = std::process::Command::new("cc")
        .args(["-std=c99", "-pedantic", "-c", "-o"])
        .arg(dir.join("host_exec.o"))
        .args(STRICT)
        .arg(&paths[0])
        .output()
        .unwrap();
    let diags = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && diags.trim().is_empty(),
        "cc:\n{}",
        diags
    );
    // Without nvcc: drop the launch syntax and compile the .cu as C++ against the mock header.
    let mut plain = String::new();
    let mut rest = cu.as_str();
    while let Some(at) = rest.find("<<<") {
        plain.push_str(&rest[..at]);
        let end = rest[at..].find(">>>").expect("launch syntax is closed");
        rest = &rest[at + end + 3..];
    }
    plain.push_str(rest);
    write(&dir, "cuda_runtime.h", MOCK_CUDA);
    let src = write(&dir, "host_exec.cpp", &plain);
    let o = std::process::Command::new("g++")
        .args(["-std=c++14", "-fsyntax-only"])
        .args(STRICT)
        .arg(format!("-I{}", dir.display()))
        .arg(&src)
        .output()
        .unwrap();
    let diags = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && diags.trim().is_empty(),
        "g++:\n{}",
        diags
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_dumps_reports_mismatches() {
    let e = "== A 3\n1\n2.5\n-7\n== B 1\n0.125\n";
    assert_eq!(exec_support::compare_dumps(e, e, 0.0, 0.0), Ok(()));
    // Floating values within tolerance; integers must be exact.
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.5000001\n-7\n== B 1\n0.125\n", 1e-6, 0.0),
        Ok(())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.5\n-8\n== B 1\n0.125\n", 1.0, 1.0),
        Err("array `A` differs at index 2: expected -7, got -8 (1 of 3 elements differ)".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.6\n-7\n== B 1\n0.125\n", 1e-3, 1e-3),
        Err("array `A` differs at index 1: expected 2.5, got 2.6 (1 of 3 elements differ)".into())
    );
    // An integer-looking float (`%.9g` of 3.0) still compares with the tolerance.
    assert_eq!(
        exec_support::compare_dumps("== X 1\n3\n", "== X 1\n3.00000001\n", 1e-6, 0.0),
        Ok(())
    );
    assert_eq!(
        exec_support::compare_dumps("== X 2\nnan\ninf\n", "== X 2\nnan\ninf\n", 0.0, 0.0),
        Ok(())
    );
    assert_eq!(
        exec_support::compare_dumps("== X 1\ninf\n", "== X 1\n-inf\n", 1.0, 1.0),
        Err("array `X` differs at index 0: expected inf, got -inf (1 of 1 elements differ)".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.5\n-7\n", 0.0, 0.0),
        Err("array `B` is missing from the output (arrays: [\"A\"])".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.5\n-7\n== B 1\n0.125\n== C 0\n", 0.0, 0.0),
        Err("unexpected array `C` in the output (expected [\"A\", \"B\"])".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 2\n1\n2.5\n== B 1\n0.125\n", 0.0, 0.0),
        Err("array `A`: expected 3 elements, got 2".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A 3\n1\n2.5\n== B 1\n0.125\n", 0.0, 0.0),
        Err("array `A` (actual output): header says 3 elements but 2 values follow".into())
    );
    assert_eq!(
        exec_support::compare_dumps(e, "== A\n", 0.0, 0.0),
        Err("actual output: line 1: malformed header `== A`".into())
    );
}

#[test]
fn prelude_is_warning_free_and_iso_c99() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("host-exec-prelude");
    // A long kernel source (several literals), quotes, backslashes and `??` in it.
    let mut kernels = String::from(OPENCL_KERNELS);
    for i in 0..400 {
        kernels.push_str(&format!(
            "// filler {} \"quoted\" \\ back ??= slash ??/\n",
            i
        ));
    }
    let m = Module {
        kernels: module(PROGRAM).kernels,
        host: Vec::new(),
    };
    for (k, text) in ["int main(void)\n{\n    return 0;\n}\n", PROGRAM]
        .iter()
        .enumerate()
    {
        let m = if k == 0 { m.clone() } else { module(PROGRAM) };
        let src = write(
            &dir,
            &format!("p{}.c", k),
            &assemble(text, &m, &kernels, Target::OpenCl, &Default::default()),
        );
        for std in ["-std=gnu99", "-std=c99"] {
            let o = std::process::Command::new("cc")
                .args([std, "-pedantic", "-fsyntax-only", "-Wall", "-Wextra"])
                .args(if k == 0 { &[][..] } else { &STRICT[2..] })
                .arg(&src)
                .output()
                .unwrap();
            let diags = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && diags.trim().is_empty(),
                "cc {} on {}:\n{}",
                std,
                src.display(),
                diags
            );
        }
    }
    // The embedded source is the kernel source, byte for byte: run a program that prints it.
    let text = "#include <stdio.h>\nint main(void)\n{\n    unsigned i;\n    for (i = 0; i < ACCSHARE_NSOURCE; i++)\n        fputs(accshare_source[i], stdout);\n    return 0;\n}\n";
    let src = write(
        &dir,
        "dump.c",
        &assemble(text, &m, &kernels, Target::OpenCl, &Default::default()),
    );
    let exe = dir.join("dump");
    exec_support::compile_c(&src, &exe, &[], true).unwrap();
    assert_eq!(exec_support::run(&exe).unwrap(), kernels);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runtime's pool of device buffers: a buffer freed and asked for again at the same size is
/// reused, not created again (`clCreateBuffer` counted through the linker's `--wrap`);
/// `ACCSHARE_POOL=0` turns the pool off.
#[test]
fn freed_buffers_are_reused_at_the_same_size() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let dir = exec_support::scratch_dir("host-exec-pool");
    let text = r#"#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
static int creates;
cl_mem __real_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *h, cl_int *e);
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t n, void *h, cl_int *e)
{
    creates++;
    return __real_clCreateBuffer(c, f, n, h, e);
}
int main(void)
{
    cl_mem a = accshare_alloc(4096, "a", "pool.c:1"), b, c;
    accshare_release(a, "a", "pool.c:2");
    b = accshare_alloc(4096, "b", "pool.c:3");
    c = accshare_alloc(2048, "c", "pool.c:4");
    accshare_release(b, "b", "pool.c:5");
    accshare_release(c, "c", "pool.c:6");
    b = accshare_alloc(2048, "b", "pool.c:7");
    c = accshare_alloc(4096, "c", "pool.c:8");
    a = accshare_alloc(4096, "a", "pool.c:9");
    printf("%d\n", creates);
    return 0;
}
"#;
    let m = Module {
        kernels: module(PROGRAM).kernels,
        host: Vec::new(),
    };
    let src = write(
        &dir,
        "pool.c",
        &assemble(
            text,
            &m,
            OPENCL_KERNELS,
            Target::OpenCl,
            &Default::default(),
        ),
    );
    let exe = dir.join("pool");
    exec_support::compile_c_with(&src, &exe, &[], true, &["-Wl,--wrap=clCreateBuffer"]).unwrap();
    // a; c (2048); the last 4096 (the pool held one of that size, `c` took it).
    assert_eq!(exec_support::run(&exe).unwrap(), "3\n");
    let off = exec_support::run_ok_with_env(&exe, &[("ACCSHARE_POOL", "0")]).unwrap();
    assert_eq!(off, "6\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A subarray that starts past 0 on the CUDA target: the host pointer is the section's first
/// element, the device pointer the kernels get is moved back by the section's start (kernels
/// index with the host's indices), and the `.c` is still C. (The OpenCL side runs in
/// `tests/exec.rs` through `tests/corpus/subarray_start.c`.)
#[test]
fn cuda_sections_are_indexed_with_the_hosts_indices() {
    use accshare::diag::{self, Diags, SourceMap};
    use accshare::driver;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("tests/corpus/subarray_start.c");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: Default::default(),
    };
    let out = driver::compile(&src, &opts, &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let c = &out.host_source;
    let lines = [
        "const size_t accshare_s_u = (size_t)(lo);",
        "float *const accshare_h_u = (float *)(u) + accshare_s_u;",
        "float *accshare_d_u = (float *)((char *)accshare_enter(accshare_h_u, accshare_nb_u, 1, 0, 0, \"u\", \"subarray_start.c:51\", &accshare_o_u) + accshare_o_u);",
        "accshare_o_u -= accshare_s_u * sizeof(float);",
        "accshare_d_u -= accshare_s_u;",
    ];
    let mut at = 0;
    for l in lines {
        let found = c[at..]
            .find(l)
            .unwrap_or_else(|| panic!("no `{l}` after byte {at} in:\n{c}"));
        at += found + l.len();
    }
    assert!(
        c.contains("accshare_update((float *)(v) + ((37 + 2)), "),
        "{c}"
    );
    let dir = exec_support::scratch_dir("host-exec-cuda-sections");
    let file = write(&dir, "subarray_start.c", c);
    let o = std::process::Command::new("cc")
        .args(["-std=c99", "-c", "-o"])
        .arg(dir.join("subarray_start.o"))
        .arg(format!("-I{}", root.join("tests/corpus").display()))
        .args(STRICT)
        .arg(&file)
        .output()
        .unwrap();
    let diags = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "cc:\n{}", diags);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Scalars in data clauses on the CUDA target (the OpenCL side runs in `tests/exec.rs` through
/// `tests/corpus/zero_copy_scalars.c`): a data construct's scalar is a one-element entry at its
/// address, `update self` of one moves one element, and a compute region inside works on a host
/// variable shadowing the user's, loaded from the device copy before the launches and stored
/// back into it after them; the `.c` is still C.
#[test]
fn cuda_scalars_in_data_clauses_use_their_device_copies() {
    use accshare::diag::{self, Diags, SourceMap};
    use accshare::driver;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("tests/corpus/zero_copy_scalars.c");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: Default::default(),
    };
    let out = driver::compile(&src, &opts, &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let c = &out.host_source;
    let lines = [
        // `data … copy(mx, prod)`: one element at the variable's address.
        "int *const accshare_h_mx = (int *)&mx;",
        "int *accshare_d_mx = (int *)((char *)accshare_enter(accshare_h_mx, accshare_nb_mx, 1, 0, 0, \"mx\", ",
        // The `reduction(max:mx)` region inside: the device copy's value, combined, stored back.
        "int *const accshare_hs_mx = (int *)&mx;",
        "int mx;",
        "accshare_scalar_get(accshare_hs_mx, &mx, sizeof(int), \"mx\", ",
        "if (accshare_r[accshare_g] > mx) mx = accshare_r[accshare_g];",
        "accshare_scalar_put(accshare_hs_mx, &mx, sizeof(int), \"mx\", ",
        "accshare_exit(accshare_h_mx, 1, 0, \"mx\", ",
        // `update self(count)`.
        "accshare_update((int *)&count, ((1) > 0 ? (size_t)(1) * sizeof(int) : 0), 1, 0, \"count\", ",
    ];
    let mut at = 0;
    for l in lines {
        let found = c[at..]
            .find(l)
            .unwrap_or_else(|| panic!("no `{l}` after byte {at} in:\n{c}"));
        at += found + l.len();
    }
    let dir = exec_support::scratch_dir("host-exec-cuda-scalars");
    let file = write(&dir, "zero_copy_scalars.c", c);
    let o = std::process::Command::new("cc")
        .args(["-std=c99", "-c", "-o"])
        .arg(dir.join("zero_copy_scalars.o"))
        .arg(format!("-I{}", root.join("tests/corpus").display()))
        .args(STRICT)
        .arg(&file)
        .output()
        .unwrap();
    let diags = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && diags.trim().is_empty(),
        "cc:\n{}",
        diags
    );
    let _ = std::fs::remove_dir_all(&dir);
}
