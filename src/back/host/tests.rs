use std::collections::BTreeSet;
use std::ops::Range;

use super::*;
use crate::back::output::assemble;
use crate::back::Target;
use crate::kernel::{Buffer, HostExpr, HostReduction, KParam, Kernel, Launch};

/// The byte range of the region whose pragma line contains `pragma` and whose statement ends
/// with the first `last` after it.
fn range(text: &str, pragma: &str, last: &str) -> Range<usize> {
    range_at(text, 0, pragma, last)
}

/// [`range`], searching for the pragma from byte `from`.
fn range_at(text: &str, from: usize, pragma: &str, last: &str) -> Range<usize> {
    let p = from + text[from..].find(pragma).expect("pragma in text");
    let start = text[..p].rfind('\n').map_or(0, |i| i + 1);
    let end = p + text[p..].find(last).expect("end in text") + last.len();
    start..end
}

fn buf(name: &str, ro: bool) -> KParam {
    crate::kernel::testing::buffer(name, Scalar::Float, ro, None)
}

fn scalar(name: &str, ty: Scalar) -> KParam {
    crate::kernel::testing::param(name, ty)
}

/// Parameter `i` of `k`, a scalar, becomes one of type `ty`.
fn set_scalar(k: &mut Kernel, i: usize, ty: Scalar) {
    if let KParamKind::Scalar { var, ty: t } = &mut k.params[i].kind {
        *t = ty;
        k.vars[*var].ty = ty;
    }
}

fn kernel(name: &str, params: Vec<KParam>, dims: u8, block: [u32; 3], origin: &str) -> Kernel {
    Kernel {
        name: name.to_string(),
        arrays: crate::kernel::testing::take(),
        vars: crate::kernel::testing::take_vars(),
        params,
        locals: Vec::new(),
        dims,
        block,
        body: Vec::new(),
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: origin.to_string(),
    }
}

fn buffer(array: &str, count: &str, copy_in: bool, copy_out: bool) -> Buffer {
    Buffer {
        array: array.to_string(),
        elem: Scalar::Float,
        count: HostExpr::var(count),
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

const VADD: &str = "\
#include <stdio.h>

void vadd(int n, const float *a, const float *b, float *c, double *sum)
{
    int i;
    double s = 0.0;
#pragma acc kernels loop independent copyin(a[0:n], b[0:n]) copyout(c[0:n])
    for (i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    #pragma acc kernels loop reduction(+:s)
    for (i = 0; i < n; i++)
        s += c[i];
    *sum = s;
}
";

fn vadd_module() -> Module {
    let text = VADD;
    let mut k1 = kernel(
        "vadd_r1_k0",
        vec![
            buf("c", true),
            scalar("n", Scalar::Int),
            crate::kernel::testing::buffer("accshare_part_s", Scalar::Double, false, None),
        ],
        1,
        [256, 1, 1],
        "vadd.c:10",
    );
    k1.uses_double = true;
    Module {
        kernels: vec![
            kernel(
                "vadd_r0_k0",
                vec![
                    buf("a", true),
                    buf("b", true),
                    buf("c", false),
                    scalar("n", Scalar::Int),
                ],
                1,
                [256, 1, 1],
                "vadd.c:7",
            ),
            k1,
        ],
        host: vec![
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: range(text, "kernels loop independent copyin", "b[i];"),
                keep_body: None,
                quiet_body: false,
                buffers: vec![
                    buffer("a", "n", true, false),
                    buffer("b", "n", true, false),
                    buffer("c", "n", false, true),
                ],
                launches: vec![Launch {
                    kernel: 0,
                    args: vec![
                        HostArg::Buffer("a".into()),
                        HostArg::Buffer("b".into()),
                        HostArg::Buffer("c".into()),
                        HostArg::Scalar {
                            expr: HostExpr::var("n"),
                            ty: Scalar::Int,
                        },
                    ],
                    stride: None,
                    extent: [HostExpr::var("n"), HostExpr::Int(1), HostExpr::Int(1)],
                    reductions: Vec::new(),
                }],
                origin: "vadd.c:7".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: range(text, "reduction(+:s)", "c[i];"),
                keep_body: None,
                quiet_body: false,
                buffers: vec![buffer("c", "n", true, false)],
                launches: vec![Launch {
                    kernel: 1,
                    args: vec![
                        HostArg::Buffer("c".into()),
                        HostArg::Scalar {
                            expr: HostExpr::var("n"),
                            ty: Scalar::Int,
                        },
                        HostArg::Partials(0),
                    ],
                    stride: None,
                    extent: [HostExpr::var("n"), HostExpr::Int(1), HostExpr::Int(1)],
                    reductions: vec![HostReduction {
                        var: "s".into(),
                        ty: Scalar::Double,
                        op: RedOp::Add,
                    }],
                }],
                origin: "vadd.c:10".into(),
                aliases: Vec::new(),
            },
        ],
    }
}

const SMOOTH: &str = "\
void smooth(int n, int steps, float *u, float *v)
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
";

fn smooth_module() -> Module {
    let text = SMOOTH;
    let data_start = text.find("#pragma acc data").unwrap();
    let body_start = text[data_start..].find("    {").unwrap() + data_start + 4;
    let body_end = text.rfind("    }\n}").unwrap() + 5;
    let first = text.find("#pragma acc kernels").unwrap();
    let second = first + 1 + text[first + 1..].find("#pragma acc kernels").unwrap();
    let launch = |k: usize| Launch {
        kernel: k,
        args: vec![
            HostArg::Buffer(if k == 0 { "u" } else { "v" }.into()),
            HostArg::Buffer(if k == 0 { "v" } else { "u" }.into()),
            HostArg::Scalar {
                expr: HostExpr::var("n"),
                ty: Scalar::Int,
            },
        ],
        stride: None,
        extent: [
            HostExpr::var("n") - HostExpr::Int(1) - HostExpr::Int(1),
            HostExpr::Int(1),
            HostExpr::Int(1),
        ],
        reductions: Vec::new(),
    };
    Module {
        kernels: vec![
            kernel(
                "smooth_r0_k0",
                vec![buf("u", true), buf("v", false), scalar("n", Scalar::Int)],
                1,
                [256, 1, 1],
                "smooth.c:7",
            ),
            kernel(
                "smooth_r1_k0",
                vec![buf("v", true), buf("u", false), scalar("n", Scalar::Int)],
                1,
                [256, 1, 1],
                "smooth.c:10",
            ),
        ],
        // Deliberately not sorted: nesting is by containment, not by order.
        host: vec![
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: range_at(text, second, "kernels", "v[i];"),
                keep_body: None,
                quiet_body: false,
                buffers: Vec::new(),
                launches: vec![launch(1)],
                origin: "smooth.c:10".into(),
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
                buffers: vec![buffer("u", "n", true, true), buffer("v", "n", false, false)],
                launches: Vec::new(),
                origin: "smooth.c:4".into(),
                aliases: Vec::new(),
            },
            HostRegion {
                data_ops: Vec::new(),
                device_scalars: Vec::new(),
                if_clause: None,
                fallback: None,
                replace: range_at(text, first, "kernels", "1];"),
                keep_body: None,
                quiet_body: false,
                buffers: Vec::new(),
                launches: vec![launch(0)],
                origin: "smooth.c:7".into(),
                aliases: Vec::new(),
            },
        ],
    }
}

/// The assembled output without the prelude (the runtime is tested by compiling it).
fn program_part(out: &str) -> &str {
    let marker = "/* ---- end of the accshare prelude ---- */\n\n";
    let at = out.find(marker).expect("prelude end marker");
    &out[at + marker.len()..]
}

#[test]
fn compute_regions_opencl() {
    let m = vadd_module();
    let out = assemble(
        VADD,
        &m,
        "__kernel void vadd_r0_k0() {}\n",
        Target::OpenCl,
        &Default::default(),
    );
    insta::assert_snapshot!(program_part(&out));
}

#[test]
fn compute_regions_cuda() {
    let m = vadd_module();
    let out = assemble(
        VADD,
        &m,
        "__global__ void vadd_r0_k0() {}\n",
        Target::Cuda,
        &Default::default(),
    );
    insta::assert_snapshot!(program_part(&out));
}

#[test]
fn data_region_with_nested_compute_regions_opencl() {
    let m = smooth_module();
    let out = assemble(SMOOTH, &m, "", Target::OpenCl, &Default::default());
    insta::assert_snapshot!(program_part(&out));
}

#[test]
fn data_region_with_nested_compute_regions_cuda() {
    let m = smooth_module();
    let out = assemble(SMOOTH, &m, "", Target::Cuda, &Default::default());
    insta::assert_snapshot!(program_part(&out));
}

#[test]
fn region_code_of_compute_region_is_one_block() {
    let m = vadd_module();
    let code = region_code(&m, &m.host[0], "  ", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(code.close.is_empty());
    assert!(code
        .open
        .starts_with("  { /* accshare: compute region at vadd.c:7 */\n"));
    assert!(code.open.ends_with("\n  }"));
    // Through the present table: in for a and b, out for c only; every buffer left.
    assert_eq!(code.open.matches("accshare_enter(").count(), 3);
    assert!(code.open.contains(
        "cl_mem accshare_d_a = accshare_enter(accshare_h_a, accshare_nb_a, 1, 0, 1, \"a\", \"vadd.c:7\", &accshare_o_a);"
    ));
    assert!(code.open.contains(
        "cl_mem accshare_d_c = accshare_enter(accshare_h_c, accshare_nb_c, 0, 0, 1, \"c\", \"vadd.c:7\", &accshare_o_c);"
    ));
    assert_eq!(code.open.matches("accshare_exit(").count(), 3);
    assert!(code
        .open
        .contains("accshare_exit(accshare_h_c, 1, 0, \"c\", \"vadd.c:7\");"));
    assert!(code
        .open
        .contains("accshare_exit(accshare_h_a, 0, 0, \"a\", \"vadd.c:7\");"));
    // The host address is the array's, cast to the element type.
    assert!(code
        .open
        .contains("float *const accshare_h_a = (float *)(a);\n"));
}

/// Zero-copy is asked for only where it cannot change what the program sees: `copy`,
/// `copyout` and a `copyin` no kernel writes; never a written `copyin`, a `create`, the buffer
/// of a data construct whose host code could see it, or CUDA's.
#[test]
fn buffers_share_host_memory_only_where_openacc_cannot_tell() {
    let mut m = vadd_module();
    // The first region's kernel now also writes `a` (copyin) and `d` (create), reads `e`
    // (create).
    m.kernels[0].params[0] = buf("a", false);
    for (name, ro) in [("d", false), ("e", true)] {
        m.kernels[0].params.push(buf(name, ro));
        m.host[0].launches[0]
            .args
            .push(HostArg::Buffer(name.to_string()));
        m.host[0].buffers.push(buffer(name, "n", false, false));
    }
    let code = region_code(&m, &m.host[0], "", Target::OpenCl, &BTreeSet::new()).unwrap();
    let flag = |a: &str| {
        let at = code
            .open
            .find(&format!("accshare_enter(accshare_h_{a}, accshare_nb_{a}, "))
            .expect("enter");
        let args: Vec<&str> = code.open[at..].split(", ").skip(2).take(3).collect();
        args[2].to_string()
    };
    assert_eq!(flag("a"), "0", "a written copyin copies");
    assert_eq!(flag("b"), "1", "a read-only copyin shares");
    assert_eq!(flag("c"), "1", "copyout shares");
    assert_eq!(flag("d"), "0", "a written create never shares");
    assert_eq!(flag("e"), "0", "a create never shares");
    let cuda = region_code(&m, &m.host[0], "", Target::Cuda, &BTreeSet::new()).unwrap();
    assert!(!cuda.open.contains(", 0, 1, \""), "{}", cuda.open);
    let s = smooth_module();
    let dr = s
        .host
        .iter()
        .find(|r| r.keep_body.is_some())
        .expect("a data region");
    let data = region_code(&s, dr, "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(data.open.contains("accshare_enter("));
    assert!(!data.open.contains(", 0, 1, \""), "{}", data.open);
    // A data construct whose host code cannot see its arrays shares its `copy` (the kernels
    // inside write `u`: a `copy` shares either way), never its `create`.
    let mut q = smooth_module();
    for r in q.host.iter_mut().filter(|r| r.keep_body.is_some()) {
        r.quiet_body = true;
    }
    let dr = q.host.iter().find(|r| r.keep_body.is_some()).unwrap();
    let data = region_code(&q, dr, "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(
        data.open
            .contains("accshare_enter(accshare_h_u, accshare_nb_u, 1, 0, 1, "),
        "{}",
        data.open
    );
    assert!(
        data.open
            .contains("accshare_enter(accshare_h_v, accshare_nb_v, 0, 0, 0, "),
        "{}",
        data.open
    );
    // A quiet data construct's `copyin` is shared only if no kernel inside writes it.
    for b in q.host[1].buffers.iter_mut() {
        b.copy_out = false;
    }
    let dr = q.host.iter().find(|r| r.keep_body.is_some()).unwrap();
    let data = region_code(&q, dr, "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(
        data.open
            .contains("accshare_enter(accshare_h_u, accshare_nb_u, 1, 0, 0, "),
        "{}",
        data.open
    );
}

#[test]
fn reduction_operators_combine_with_c_semantics() {
    let mut m = vadd_module();
    let cases = [
        (RedOp::Add, "s = s + accshare_r[accshare_g];"),
        (RedOp::Mul, "s = s * accshare_r[accshare_g];"),
        (RedOp::BitAnd, "s = s & accshare_r[accshare_g];"),
        (RedOp::BitOr, "s = s | accshare_r[accshare_g];"),
        (RedOp::BitXor, "s = s ^ accshare_r[accshare_g];"),
        (RedOp::LogAnd, "s = s && accshare_r[accshare_g];"),
        (RedOp::LogOr, "s = s || accshare_r[accshare_g];"),
        (
            RedOp::Max,
            "if (accshare_r[accshare_g] > s) s = accshare_r[accshare_g];",
        ),
        (
            RedOp::Min,
            "if (accshare_r[accshare_g] < s) s = accshare_r[accshare_g];",
        ),
    ];
    for (op, expected) in cases {
        m.host[1].launches[0].reductions[0].op = op;
        let code = region_code(&m, &m.host[1], "", Target::OpenCl, &BTreeSet::new()).unwrap();
        assert!(code.open.contains(expected), "{:?}:\n{}", op, code.open);
    }
}

#[test]
fn scalar_arguments_use_the_kernel_parameter_type() {
    let mut m = vadd_module();
    set_scalar(&mut m.kernels[0], 3, Scalar::ULongLong);
    m.host[0].launches[0].args[3] = HostArg::Scalar {
        expr: HostExpr::var("n") * HostExpr::Int(2),
        ty: Scalar::ULongLong,
    };
    let code = region_code(&m, &m.host[0], "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(code
        .open
        .contains("const unsigned long long accshare_a3 = (n * 2);"));
    assert!(code.open.contains(
        // after three buffers, each followed by its offset
        "accshare_arg(accshare_k, 6, sizeof(accshare_a3), &accshare_a3, \"vadd_r0_k0\", \"vadd.c:7\");"
    ));
    set_scalar(&mut m.kernels[0], 3, Scalar::Bool);
    // The .c is C for both targets.
    let cuda = region_code(&m, &m.host[0], "", Target::Cuda, &BTreeSet::new()).unwrap();
    assert!(cuda.open.contains("const _Bool accshare_a3 = (n * 2);"));
    assert!(cuda.open.contains(
        "accshare_launch_vadd_r0_k0(accshare_grid, accshare_d_a, accshare_d_b, accshare_d_c, accshare_a3, \"vadd.c:7\");"
    ));
}

#[test]
fn two_and_three_dimensional_launches() {
    let mut m = vadd_module();
    m.kernels[0].dims = 2;
    m.kernels[0].block = [32, 8, 1];
    m.host[0].launches[0].extent = [HostExpr::var("m"), HostExpr::var("n"), HostExpr::Int(1)];
    let code = region_code(&m, &m.host[0], "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(code
        .open
        .contains("const long long accshare_e1 = (long long)(n);"));
    assert!(code
        .open
        .contains("if (accshare_e0 > 0 && accshare_e1 > 0) {"));
    assert!(code
        .open
        .contains("const size_t accshare_lws[2] = {32, 8};"));
    assert!(code.open.contains(
        "const size_t accshare_gws[2] = {accshare_round_up(accshare_e0, 32), accshare_round_up(accshare_e1, 8)};"
    ));
    assert!(code
        .open
        .contains("accshare_launch(accshare_k, 2, accshare_gws, accshare_lws,"));
    m.kernels[0].dims = 3;
    m.kernels[0].block = [32, 4, 2];
    m.host[0].launches[0].extent = [HostExpr::var("m"), HostExpr::var("n"), HostExpr::var("p")];
    let cuda = region_code(&m, &m.host[0], "", Target::Cuda, &BTreeSet::new()).unwrap();
    assert!(cuda.open.contains(
        "const unsigned accshare_grid[3] = {accshare_blocks(accshare_e0, 32), accshare_blocks(accshare_e1, 4), accshare_blocks(accshare_e2, 2)};"
    ));
    // The block shape is the launch function's (in the .cu).
    let cu = cuda_unit(&m, "");
    assert!(cu.contains(
        "    vadd_r0_k0<<<dim3(accshare_grid[0], accshare_grid[1], accshare_grid[2]), dim3(32, 4, 2)>>>(accshare_a0, accshare_a1, accshare_a2, accshare_a3);\n"
    ), "{}", cu);
    // The partials count is the number of work-groups over all dimensions.
    let red = region_code(&m, &m.host[1], "", Target::OpenCl, &BTreeSet::new()).unwrap();
    assert!(red
        .open
        .contains("const size_t accshare_groups = (accshare_gws[0] / 256);"));
}

#[test]
fn inconsistent_plans_are_errors_not_panics() {
    let m = vadd_module();
    let none = BTreeSet::new();
    let mut bad = m.clone();
    bad.host[0].launches[0].kernel = 7;
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "region at vadd.c:7 launches kernel #7 but the module has 2 kernels"
    );
    let mut bad = m.clone();
    bad.host[0].launches[0].args.pop();
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "launch of `vadd_r0_k0` at vadd.c:7 passes 3 arguments for 4 parameters"
    );
    let mut bad = m.clone();
    bad.host[0].buffers.remove(0);
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "launch of `vadd_r0_k0` at vadd.c:7 uses the buffer of `a`, which no region holds"
    );
    // ... unless an enclosing data construct holds it.
    let enclosing: BTreeSet<String> = ["a".to_string()].into_iter().collect();
    assert!(region_code(&bad, &bad.host[0], "", Target::OpenCl, &enclosing).is_ok());
    let mut bad = m.clone();
    bad.host[1].launches[0].args[2] = HostArg::Partials(3);
    assert_eq!(
        region_code(&bad, &bad.host[1], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "launch of `vadd_r1_k0` at vadd.c:10 passes the partials of reduction #3 of 1"
    );
    let mut bad = m.clone();
    bad.host[1].launches[0].reductions[0].ty = Scalar::Float;
    assert_eq!(
        region_code(&bad, &bad.host[1], "", Target::OpenCl, &none).unwrap_err().to_string(),
        "launch of `vadd_r1_k0` at vadd.c:10: the partials of `s` are double in the kernel but float on the host"
    );
    let mut bad = m.clone();
    bad.host[0].launches[0].args.swap(0, 3);
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "launch of `vadd_r0_k0` at vadd.c:7: argument 0 does not match parameter `a`"
    );
    let mut bad = m.clone();
    bad.host[0].launches[0].extent[1] = HostExpr::var("n");
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "launch of `vadd_r0_k0` at vadd.c:7 uses dimension 1 of a 1-D kernel"
    );
    let mut bad = m;
    bad.host[0].buffers.push(buffer("a", "n", true, false));
    assert_eq!(
        region_code(&bad, &bad.host[0], "", Target::OpenCl, &none)
            .unwrap_err()
            .to_string(),
        "region at vadd.c:7 lists buffer `a` twice"
    );
}

#[test]
fn escape_quotes_backslashes_newlines_and_controls() {
    assert_eq!(c_escape("a\"b\\c\nd\te\r"), "a\\\"b\\\\c\\nd\\te\\r");
    assert_eq!(c_escape("x\u{1}9"), "x\\0019");
    assert_eq!(c_escape("é"), "\\303\\251");
    // No trigraph survives: `??=` would be `#` in C99.
    assert_eq!(c_escape("a ??= b ? c : d"), "a ?\\?= b ? c : d");
    assert_eq!(c_string("gemm.c:14"), "\"gemm.c:14\"");
}

/// Decodes the C string literals this module emits (the escapes `c_escape` produces).
fn decode(lits: &[String]) -> String {
    let mut bytes = Vec::new();
    for lit in lits {
        let inner = lit
            .strip_prefix('"')
            .and_then(|l| l.strip_suffix('"'))
            .expect("quoted literal")
            .as_bytes();
        let mut i = 0;
        while i < inner.len() {
            if inner[i] == b'\\' {
                let c = inner[i + 1];
                match c {
                    b'n' => bytes.push(b'\n'),
                    b't' => bytes.push(b'\t'),
                    b'r' => bytes.push(b'\r'),
                    b'\\' | b'"' | b'?' => bytes.push(c),
                    b'0'..=b'7' => {
                        let s = std::str::from_utf8(&inner[i + 1..i + 4]).unwrap();
                        bytes.push(u8::from_str_radix(s, 8).unwrap());
                        i += 2;
                    }
                    _ => panic!("unexpected escape {}", c as char),
                }
                i += 2;
            } else {
                assert_ne!(inner[i], b'"', "unescaped quote in {}", lit);
                assert_ne!(inner[i], b'\n', "raw newline in {}", lit);
                bytes.push(inner[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(bytes).unwrap()
}

#[test]
fn source_chunks_round_trip_and_respect_the_literal_limit() {
    let mut src = String::from(
        "__kernel void k(__global float *a) {\n  a[0] = 1.0f; /* \"q\" \\ ??= */\n}\n",
    );
    // A very long line, and many short ones.
    src.push_str(&"x = x + 1; ".repeat(1000));
    src.push('\n');
    for i in 0..2000 {
        src.push_str(&format!(
            "// line {} with a \"quote\" and a \\ backslash é\n",
            i
        ));
    }
    let chunks = c_source_chunks(&src, MAX_LITERAL);
    assert!(chunks.len() > 10);
    for chunk in &chunks {
        let len: usize = chunk.iter().map(|l| l.len() - 2).sum();
        assert!(len <= MAX_LITERAL, "chunk of {} characters", len);
        for lit in chunk {
            assert!(!lit[1..lit.len() - 1].contains("??"), "trigraph in {}", lit);
        }
    }
    let all: Vec<String> = chunks.into_iter().flatten().collect();
    assert_eq!(decode(&all), src);
    // A `??` pair split across two literals is fine (no trigraph across tokens), and still
    // decodes back.
    let q = "?".repeat(50);
    let chunks = c_source_chunks(&q, 16);
    let all: Vec<String> = chunks.into_iter().flatten().collect();
    assert_eq!(decode(&all), q);
    // Empty source: one empty literal (clCreateProgramWithSource needs a count ≥ 1).
    assert_eq!(
        c_source_chunks("", MAX_LITERAL),
        vec![vec!["\"\"".to_string()]]
    );
}

#[test]
fn opencl_prelude_tables() {
    let m = vadd_module();
    let p = prelude(&m, "__kernel void k(void)\n{\n}\n", Target::OpenCl);
    assert!(p.starts_with("/* Generated by accshare"));
    assert!(p.contains("#define CL_TARGET_OPENCL_VERSION 120\n"));
    assert!(p.contains("#include <CL/cl.h>\n"));
    assert!(p.contains(
        "static const char *accshare_source[] = {\n    \"__kernel void k(void)\\n\"\n    \"{\\n\"\n    \"}\\n\",\n};\n"
    ));
    assert!(p.contains("#define ACCSHARE_NSOURCE ((cl_uint)1)\n"));
    assert!(p.contains("#define ACCSHARE_NKERNELS 2\n"));
    assert!(p.contains("#define ACCSHARE_USES_DOUBLE 1\n"));
    assert!(!p.contains(TABLES_MARKER));
    // No kernels at all: the cache still has a (valid, non-empty) array.
    let p = prelude(&Module::default(), "", Target::OpenCl);
    assert!(p.contains("#define ACCSHARE_NKERNELS 1\n"));
    assert!(p.contains("#define ACCSHARE_USES_DOUBLE 0\n"));
}

#[test]
fn cuda_prelude_declares_what_the_cu_defines() {
    let mut m = vadd_module();
    set_scalar(&mut m.kernels[0], 3, Scalar::SizeT);
    set_scalar(&mut m.kernels[1], 1, Scalar::Bool);
    // The .c: C declarations, no CUDA.
    let p = prelude(&m, "__global__ void k(void) {}", Target::Cuda);
    assert!(p.starts_with("/* Generated by accshare"));
    assert!(
        !p.contains("cuda_runtime.h") && !p.contains("__global__"),
        "{}",
        p
    );
    assert!(p.contains(
        "\nvoid *accshare_alloc(size_t bytes, const char *array, const char *origin);\n"
    ));
    assert!(p.contains(
        "\nvoid accshare_launch_vadd_r0_k0(const unsigned *, const float *, const float *, float *, size_t, const char *);\n"
    ), "{}", p);
    assert!(p.contains(
        "\nvoid accshare_launch_vadd_r1_k0(const unsigned *, const float *, _Bool, double *, const char *);\n"
    ), "{}", p);
    // The .cu: the runtime, then the kernels, then the launch functions with the kernels'
    // own spelling of the types.
    let cu = cuda_unit(&m, "__global__ void k(void) {}");
    let rt = cu.find("#include <cuda_runtime.h>").unwrap();
    let init = cu
        .find("ACCSHARE_API void accshare_init(const char *origin)")
        .unwrap();
    let k = cu.find("__global__ void k(void) {}\n").unwrap();
    let l = cu
        .find("\nextern \"C\" void accshare_launch_vadd_r0_k0(const unsigned *accshare_grid, const float *accshare_a0, const float *accshare_a1, float *accshare_a2, unsigned long long accshare_a3, const char *accshare_origin)\n{\n")
        .unwrap_or_else(|| panic!("{}", cu));
    assert!(rt < init && init < k && k < l);
    assert!(cu.contains("extern \"C\" void accshare_launch_vadd_r1_k0(const unsigned *accshare_grid, const float *accshare_a0, bool accshare_a1, double *accshare_a2, const char *accshare_origin)\n"));
    assert!(cu
        .ends_with("    accshare_launched(\"vadd_r1_k0\", accshare_origin, accshare_timed);\n}\n"));
    // No kernels: nothing to declare or define.
    let p = prelude(&Module::default(), "", Target::Cuda);
    assert!(!p.contains("accshare_launch_"));
    assert!(!cuda_unit(&Module::default(), "").contains("accshare_launch_"));
}

#[test]
fn identifiers_and_comments_are_sanitized() {
    assert_eq!(ident("A"), "A");
    assert_eq!(ident("s.a"), "s_a");
    assert_eq!(comment_safe("x*/y\nz"), "x* /y z");
}

/// The allocation of an array a `char`/`short` atomic updates: its bytes in whole 32-bit
/// words (the word holding its last element inside the buffer); arrays without such atomics
/// keep `accshare_enter` and their exact size, and the words part of the prelude is absent.
#[test]
fn narrow_atomic_buffers_are_allocated_in_whole_words() {
    assert_eq!(word_alloc_bytes(0), 0);
    assert_eq!(word_alloc_bytes(1), 4);
    assert_eq!(word_alloc_bytes(5), 8); // unsigned char h[5]
    assert_eq!(word_alloc_bytes(6), 8); // short s[3]
    assert_eq!(word_alloc_bytes(8), 8);
    assert_eq!(word_alloc_bytes(10), 12); // short s[1:5]
    use crate::diag::{Diags, SourceMap};
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/atomic_narrow_tail.c");
    let opts = crate::driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let out = crate::driver::compile(&src, &opts, &mut SourceMap::new(), &mut Diags::new())
        .expect("compiles");
    let narrow = narrow_atomic_arrays(&out.module);
    let names: Vec<&str> = narrow.iter().map(String::as_str).collect();
    assert_eq!(names, ["c7", "h5", "h9", "s3", "s5"]);
    for a in names {
        assert!(
            out.host_source
                .contains(&format!("accshare_d_{a} = accshare_enter_words(")),
            "{a}"
        );
    }
    assert!(out.host_source.contains("accshare_word_bytes(bytes)"));
    let plain = crate::driver::compile(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/vadd_1d.c"),
        &opts,
        &mut SourceMap::new(),
        &mut Diags::new(),
    )
    .expect("compiles");
    assert!(narrow_atomic_arrays(&plain.module).is_empty());
    assert!(!plain.host_source.contains("accshare_enter_words"));
}
