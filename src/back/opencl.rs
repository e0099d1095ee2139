//! OpenCL C 1.2 kernel printer.
//!
//! Spelling choices (the decisions are all in the kernel IR):
//! - built-ins are `int`: `(int)get_global_id(0)` (see [`Builtin`]);
//! - `size_t` is `ulong` everywhere (`size_t` kernel parameters are illegal, and the host's is
//!   64-bit), `long long` is `long`; `_Bool` is `bool` in private memory but `uchar` as a kernel
//!   parameter or buffer element (`bool` is illegal there; the host's `_Bool` is one byte), and
//!   stores to such objects are normalised with `(bool)`;
//! - C99 math functions become the OpenCL overloads (`sqrtf` → `sqrt`, `fmaxf` → `fmax`,
//!   `nearbyint` → `rint`, `lrintf(x)` → `(long)rint(x)`, `abs(i)` → `(int)abs(i)`), with
//!   arguments converted to the C99 parameter types;
//! - infinities and NaNs are the `INFINITY`/`NAN` macros (cast to `double` for doubles);
//! - atomics are `atomic_add`/`atomic_sub`/`atomic_and`/`atomic_or`/`atomic_xor`/`atomic_xchg`
//!   on 32-bit integers, `atom_add`/`atom_sub`/`atom_xchg` on 64-bit ones
//!   (`cl_khr_int64_base_atomics`, enabled when used), and a compare-and-swap loop on the bits
//!   (`atomic_cmpxchg` on `uint`, `atom_cmpxchg` on `ulong`, `as_uint`/`as_float`) for the rest:
//!   floats, `double`, `*`, `/`, shifts, 64-bit `& | ^`;
//! - kernel names are printed as the IR gives them (the host looks kernels up by name); other
//!   names that OpenCL reserves (`local`, `half`, `float4`, `barrier`, …) are renamed.

use crate::back::c_like::{
    self, CasSpelling, Dialect, MathSpelling, TypeUse, PREC_PRIMARY, PREC_UNARY,
};
use crate::kernel::math::{MathFn, Real};
use crate::kernel::{Builtin, KParamKind, Kernel, Module, Space};
use crate::vocab::{BinOp, Scalar};

/// The OpenCL C 1.2 dialect.
pub struct OpenCl;

const KEYWORDS: &[&str] = &[
    "__global",
    "global",
    "__local",
    "local",
    "__constant",
    "constant",
    "__private",
    "private",
    "__kernel",
    "kernel",
    "__read_only",
    "read_only",
    "__write_only",
    "write_only",
    "__read_write",
    "read_write",
    "__generic",
    "generic",
    "pipe",
    "uniform",
    "bool",
    "true",
    "false",
    "half",
    "quad",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "complex",
    "imaginary",
    "vec_step",
    "get_work_dim",
    "get_global_size",
    "get_global_id",
    "get_local_size",
    "get_local_id",
    "get_num_groups",
    "get_group_id",
    "get_global_offset",
    "barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "INFINITY",
    "NAN",
    "HUGE_VAL",
    "HUGE_VALF",
    "MAXFLOAT",
];

/// Prefixes of the macros OpenCL C predefines (`M_PI`, `FLT_MAX`, `INT_MAX`, `CLK_…`).
const MACRO_PREFIXES: &[&str] = &[
    "M_", "FLT_", "DBL_", "CHAR_", "SCHAR_", "UCHAR_", "SHRT_", "USHRT_", "INT_", "UINT_", "LONG_",
    "ULONG_", "CL_", "CLK_", "FP_", "__",
];

const VECTOR_BASES: &[&str] = &[
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half",
    "bool", "quad",
];

impl Dialect for OpenCl {
    fn scalar(&self, s: Scalar, at: TypeUse) -> &'static str {
        match s {
            Scalar::Bool if at == TypeUse::Private => "bool",
            Scalar::Bool | Scalar::UChar => "uchar",
            Scalar::Char | Scalar::SChar => "char",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long | Scalar::LongLong => "long",
            Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => "ulong",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    fn long_suffix(&self, s: Scalar) -> &'static str {
        if s.is_signed() {
            "L"
        } else {
            "UL"
        }
    }

    fn builtin(&self, b: Builtin) -> String {
        let (f, d) = match b {
            Builtin::LocalId(d) => ("get_local_id", d),
            Builtin::GroupId(d) => ("get_group_id", d),
            Builtin::LocalSize(d) => ("get_local_size", d),
            Builtin::NumGroups(d) => ("get_num_groups", d),
            Builtin::GlobalId(d) => ("get_global_id", d),
        };
        format!("(int){f}({d})")
    }

    fn barrier(&self) -> &'static str {
        "barrier(CLK_LOCAL_MEM_FENCE);"
    }

    fn math(&self, f: &MathFn) -> Option<MathSpelling> {
        let (name, ret_cast) = match f {
            MathFn::Abs | MathFn::Labs | MathFn::Llabs => ("abs", f.ret()),
            MathFn::Real(r, _) => match r {
                Real::Nearbyint => ("rint", None),
                Real::Scalbn => ("ldexp", None),
                Real::Scalbln => return None,
                Real::Lrint | Real::Llrint => ("rint", f.ret()),
                Real::Lround | Real::Llround => ("round", f.ret()),
                _ => (f.base(), None),
            },
            MathFn::Min | MathFn::Max => (f.base(), None),
        };
        Some(MathSpelling {
            name: name.to_string(),
            ret_cast,
        })
    }

    fn non_finite(&self, v: f64, single: bool) -> (String, u8) {
        let m = if v.is_nan() { "NAN" } else { "INFINITY" };
        let m = if single {
            m.to_string()
        } else {
            format!("(double){m}")
        };
        if v.is_nan() || v > 0.0 {
            let p = if single { PREC_PRIMARY } else { PREC_UNARY };
            (m, p)
        } else {
            (format!("-{m}"), PREC_UNARY)
        }
    }

    fn is_reserved(&self, name: &str) -> bool {
        KEYWORDS.contains(&name)
            || MACRO_PREFIXES.iter().any(|p| name.starts_with(p))
            || VECTOR_BASES.iter().any(|b| {
                name.strip_prefix(b)
                    .is_some_and(|n| matches!(n, "2" | "3" | "4" | "8" | "16"))
            })
            || matches!(name, "min" | "max" | "abs" | "ldexp" | "ilogb" | "fma")
            || MathFn::from_c_name(name).is_some_and(|f| f.base() == name)
    }

    /// The OpenCL 1.2 atomic functions: `atomic_*` on 32-bit integers (`atomic_min`/`atomic_max`
    /// for a minimum or maximum; and `atomic_xchg` on `float`), `atom_add`/`atom_sub`/`atom_xchg` on 64-bit integers
    /// (`cl_khr_int64_base_atomics`, enabled by [`print_module`]).
    fn atomic_native(&self, ty: Scalar, _space: Space, op: Option<BinOp>) -> Option<String> {
        let wide = ty.size() == 8;
        let f = match (ty, op) {
            (Scalar::Float, None) => "atomic_xchg",
            (Scalar::Float | Scalar::Double, _) => return None,
            (_, None) if wide => "atom_xchg",
            (_, None) => "atomic_xchg",
            (_, Some(BinOp::Add)) if wide => "atom_add",
            (_, Some(BinOp::Add)) => "atomic_add",
            (_, Some(BinOp::Sub)) if wide => "atom_sub",
            (_, Some(BinOp::Sub)) => "atomic_sub",
            (_, Some(BinOp::BitAnd)) if !wide => "atomic_and",
            (_, Some(BinOp::BitOr)) if !wide => "atomic_or",
            (_, Some(BinOp::BitXor)) if !wide => "atomic_xor",
            // Minimum and maximum of 32-bit integers (64-bit ones need the extended atomics:
            // a compare-and-swap loop).
            (Scalar::Int | Scalar::UInt, Some(BinOp::Lt | BinOp::Le)) => "atomic_min",
            (Scalar::Int | Scalar::UInt, Some(BinOp::Gt | BinOp::Ge)) => "atomic_max",
            _ => return None,
        };
        Some(format!("{f}({{p}}, {{v}})"))
    }

    /// `atomic_cmpxchg` on `uint`, `atom_cmpxchg` on `ulong` (`cl_khr_int64_base_atomics`).
    fn atomic_cas(&self, ty: Scalar, space: Space) -> CasSpelling {
        let (bits, cas) = if ty.size() == 8 {
            ("ulong", "atom_cmpxchg")
        } else {
            ("uint", "atomic_cmpxchg")
        };
        let (to_bits, from_bits) = match ty {
            Scalar::Float => ("as_uint({x})".to_string(), "as_float({x})".to_string()),
            Scalar::Double => ("as_ulong({x})".to_string(), "as_double({x})".to_string()),
            t => (
                format!("({bits}){{x}}"),
                format!("({}){{x}}", self.scalar(t, TypeUse::Private)),
            ),
        };
        CasSpelling {
            bits: bits.to_string(),
            ptr: format!("volatile {} {bits} *", address_space(space)),
            cas: cas.to_string(),
            to_bits,
            from_bits,
        }
    }

    fn atomic_load_ptr(&self, ty: Scalar, space: Space) -> String {
        format!(
            "volatile {} {} *",
            address_space(space),
            self.scalar(ty, TypeUse::Global)
        )
    }

    /// `uchar8 v = vload8(0, p);` then one lane per component (`vloadn` needs only the
    /// element's alignment).
    ///
    /// An `aligned` load (a micro-tile's vector read of its tile) dereferences a vector
    /// pointer instead, so that the compiler may take one wide load without proving the
    /// alignment itself: `float4 v = *(const __local float4 *)&t[…];`.
    fn vector_load(
        &self,
        _elem: Scalar,
        lane_ty: &str,
        vector: &str,
        lanes: &[String],
        addr: &str,
        space: Space,
        aligned: bool,
    ) -> Vec<String> {
        let n = lanes.len();
        let load = if aligned && matches!(n, 2 | 4 | 8 | 16) {
            format!("*(const {} {lane_ty}{n} *)({addr})", address_space(space))
        } else {
            format!("vload{n}(0, {addr})")
        };
        let mut out = vec![format!("{lane_ty}{n} {vector} = {load};")];
        for (k, l) in lanes.iter().enumerate() {
            out.push(format!("{lane_ty} {l} = {vector}.s{k:x};"));
        }
        out
    }

    /// `vstore4((uchar4)(a, b, c, d), 0, p);`
    fn vector_store(&self, elem: Scalar, addr: &str, values: &[String]) -> Vec<String> {
        let n = values.len();
        let t = self.scalar(elem, TypeUse::Private);
        vec![format!(
            "vstore{n}(({t}{n})({}), 0, {addr});",
            values.join(", ")
        )]
    }
}

fn address_space(space: Space) -> &'static str {
    match space {
        Space::Local => "__local",
        _ => "__global",
    }
}

fn param(k: &crate::kernel::KParam) -> Vec<String> {
    let d = OpenCl;
    let name = c_like::spell_ident(&d, &k.name);
    match &k.kind {
        // Every buffer comes with the element offset of the array in it (non-zero when the
        // host passed a part of an array on the device, `present(p[0:n])` on `&u[k]`).
        KParamKind::Buffer {
            elem,
            read_only,
            record,
            ..
        } => {
            let c = if *read_only { "const " } else { "" };
            let ty = match record {
                Some(r) => c_like::record_name(&d, r),
                None => d.scalar(*elem, TypeUse::Global).to_string(),
            };
            vec![
                format!("__global {c}{ty} *restrict {name}"),
                format!("const long {}", offset_param(&name)),
            ]
        }
        KParamKind::Scalar { ty: t, .. } => {
            vec![format!("const {} {name}", d.scalar(*t, TypeUse::Param))]
        }
    }
}

/// The offset parameter of buffer `name`.
fn offset_param(name: &str) -> String {
    format!("accshare_off_{}", name)
}

fn print_kernel(out: &mut String, k: &Kernel) {
    let d = OpenCl;
    for l in c_like::comment_lines(&format!("kernel {} from {}", k.name, k.origin)) {
        out.push_str(&l);
        out.push('\n');
    }
    if let Some(w) = k.bank_width {
        out.push_str(&format!(
            "/* scheduled for {w}-byte shared-memory banks, which OpenCL cannot select: the device runs its default mode */\n"
        ));
    }
    let [x, y, z] = k.block;
    out.push_str(&format!(
        "__kernel __attribute__((reqd_work_group_size({x}, {y}, {z})))\n"
    ));
    let params: Vec<String> = k.params.iter().flat_map(param).collect();
    out.push_str(&c_like::signature(
        &format!("void {}", k.name),
        &params,
        "void",
    ));
    for &h in &k.locals {
        let l = &k.arrays[h];
        // A tile read as aligned vectors starts on the vector's size.
        let align = match k.vector_alignment(h) {
            0 => String::new(),
            bytes => format!(" __attribute__((aligned({bytes})))"),
        };
        out.push_str(&format!(
            "    __local {} {}[{}]{};\n",
            d.scalar(l.elem, TypeUse::Local),
            c_like::spell_ident(&d, &l.name),
            l.elements().unwrap_or(0),
            align
        ));
    }
    let offsets: Vec<String> = k
        .params
        .iter()
        .filter(|p| matches!(p.kind, KParamKind::Buffer { .. }))
        .map(|p| {
            let name = c_like::spell_ident(&d, &p.name);
            format!("    {name} += {};\n", offset_param(&name))
        })
        .collect();
    if !offsets.is_empty() {
        out.push_str(&offsets.concat());
    }
    if (!k.locals.is_empty() || !offsets.is_empty()) && !k.body.is_empty() {
        out.push('\n');
    }
    out.push_str(&c_like::kernel_body(&d, k));
    out.push_str("}\n");
}

/// The module's kernels as one OpenCL C 1.2 translation unit.
pub fn print_module(m: &Module) -> String {
    let mut out = String::from("// OpenCL C 1.2 kernels generated by accshare.\n");
    if m.uses_double() {
        out.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    if m.kernels.iter().any(|k| k.uses_atomic(|t| t.size() == 8)) {
        out.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
    }
    let records = c_like::record_decls(&OpenCl, m);
    if !records.is_empty() {
        out.push('\n');
        out.push_str(&records);
    }
    for k in &m.kernels {
        out.push('\n');
        print_kernel(&mut out, k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back::tests::samples;
    use crate::runtime::clbuild::{build_opencl_source_with_options, BuildOutcome};

    #[test]
    fn snapshots() {
        for (name, m) in samples::all() {
            insta::assert_snapshot!(format!("opencl_{name}"), print_module(&m));
        }
    }

    #[test]
    fn fp64_pragma_iff_a_kernel_uses_double() {
        let pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable";
        assert!(print_module(&samples::double_axpy()).contains(pragma));
        assert!(!print_module(&samples::vector_add()).contains(pragma));
        let empty = print_module(&Module::default());
        assert_eq!(empty, "// OpenCL C 1.2 kernels generated by accshare.\n");
    }

    #[test]
    fn int64_atomics_pragma_iff_a_kernel_has_a_64_bit_atomic() {
        let pragma = "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable";
        assert!(print_module(&samples::atomics()).contains(pragma));
        assert!(!print_module(&samples::math()).contains(pragma));
    }

    #[test]
    fn atomics_use_opencl_functions_or_compare_and_swap() {
        let s = print_module(&samples::atomics());
        for line in [
            "atomic_add(&h[key[i]], 1);",
            "c = atomic_sub(&h[key[i]], 2);",
            "atomic_or(&u[key[i]], 4u);",
            "atomic_xchg(&f[key[i]], 2.5f);",
            "atom_add(&l[key[i]], (long)i);",
            "atom_xchg(&l[key[i]], -1L);",
            "z = atom_add(&s[key[i]], 1UL);",
            "atomic_add(&cnt[0], 1);",
            "c = *(volatile __global int *)&h[key[i]];",
            // No float atomics in OpenCL 1.2: the bits are compared and swapped.
            "volatile __global uint *accshare_p = (volatile __global uint *)&f[key[i]];",
            "accshare_old = as_float(accshare_prev);",
            "accshare_seen = atomic_cmpxchg(accshare_p, accshare_prev, as_uint(accshare_new));",
            "accshare_seen = atom_cmpxchg(accshare_p, accshare_prev, as_ulong(accshare_new));",
        ] {
            assert!(s.contains(line), "{line}\n{s}");
        }
        // A capture after a native update recomputes the new value from the old one.
        assert!(s.contains("accshare_new = accshare_old * 3;"), "{s}");
        assert!(s.contains("c = accshare_new;"), "{s}");
        assert!(s.contains("d = accshare_new;"), "{s}");
        // 64-bit `^` needs the extended atomics: a compare-and-swap loop instead.
        assert!(s.contains("accshare_new = accshare_old ^ 7L;"), "{s}");
    }

    #[test]
    fn signature_qualifiers_and_attributes() {
        let s = print_module(&samples::vector_add());
        assert!(s.contains(
            "__kernel __attribute__((reqd_work_group_size(256, 1, 1)))\nvoid vadd_r0_k0(\n    \
             __global float *restrict C,\n    const long accshare_off_C,\n    \
             __global const float *restrict A,\n    const long accshare_off_A,\n    \
             __global const float *restrict B,\n    const long accshare_off_B,\n    \
             const int n\n) {\n    C += accshare_off_C;\n"
        ));
        let s = print_module(&samples::tiled_matmul());
        assert!(s.contains("    __local float As[256];\n    __local float Bs[256];\n"));
        assert!(s.contains("barrier(CLK_LOCAL_MEM_FENCE);"));
        assert!(s.contains("// kernel matmul_r0_k0 from matmul_r0_k0.c:1\n"));
    }

    #[test]
    fn bool_and_size_t_are_legal_kernel_parameter_types() {
        let s = print_module(&samples::statements());
        assert!(s.contains("__global uchar *restrict flags"), "{s}");
        assert!(s.contains("flags[i] = (bool)m;"), "{s}");
        assert!(s.contains("flags[i] = (bool)(flags[i] | flag);"), "{s}");
        let s = print_module(&samples::uchar_threshold());
        assert!(s.contains("const ulong count"), "{s}");
        assert!(s.contains("const uchar t"), "{s}");
    }

    /// Builds every sample with the machine's OpenCL runtime, warnings as errors.
    #[test]
    fn every_sample_builds_with_the_opencl_runtime() {
        for (name, m) in samples::all() {
            let src = print_module(&m);
            match build_opencl_source_with_options(&src, "-cl-std=CL1.2 -Werror") {
                Ok(BuildOutcome::Built) => {}
                Ok(BuildOutcome::Failed(log)) => panic!("{name} does not build:\n{log}\n{src}"),
                Ok(BuildOutcome::Skipped(r)) => {
                    assert!(
                        !crate::runtime::require_devices(),
                        "ACCSHARE_REQUIRE_DEVICES=1 but no OpenCL device: {r}"
                    );
                    eprintln!("SKIP: no OpenCL device ({r})");
                    return;
                }
                Err(e) => panic!("{e}"),
            }
        }
    }
}
