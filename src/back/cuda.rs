//! CUDA C++ kernel printer.
//!
//! Spelling choices (the decisions are all in the kernel IR):
//! - kernels are `extern "C" __global__` (unmangled names for the host) with
//!   `__launch_bounds__(threads per block)`;
//! - built-ins are `int`: `(int)threadIdx.x`, `(int)(blockIdx.x * blockDim.x + threadIdx.x)`
//!   (see [`Builtin`]); a dimension above 2 reads as OpenCL's out-of-range values (ids 0, sizes
//!   1);
//! - `size_t` is `unsigned long long`; `_Bool` is `bool` (one byte, like the host's);
//! - C99 math function names are kept (CUDA has them all), with arguments converted to the C99
//!   parameter types so that C++ overloading picks the C99 function (`sqrt(x)` with a `float x`
//!   → `sqrt((double)x)`);
//! - infinities and NaNs are bit patterns (`__int_as_float(0x7f800000)`): NVRTC has no
//!   `INFINITY` without headers;
//! - atomics are `atomicAdd`/`atomicSub`/`atomicAnd`/`atomicOr`/`atomicXor`/`atomicExch`
//!   where CUDA has them for the type (64-bit integers through `unsigned long long *`, `double`
//!   `atomicAdd` under `#if __CUDA_ARCH__ >= 600`), else a compare-and-swap loop on the bits
//!   (`atomicCAS`, `__float_as_uint`, `__double_as_longlong`);
//! - names that C++ or CUDA reserve (`new`, `class`, `threadIdx`, `sqrtf`, …) are renamed;
//!   kernel names are printed as the IR gives them.

use crate::back::c_like::{
    self, CasSpelling, Dialect, MathSpelling, TypeUse, CPP_KEYWORDS, PREC_PRIMARY, PREC_UNARY,
};
use crate::kernel::{Builtin, KParamKind, Kernel, MathFn, Module, Space};
use crate::vocab::{BinOp, Scalar};

/// The CUDA C++ dialect.
pub struct Cuda;

const BUILTIN_VARS: &[&str] = &["threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"];

impl Dialect for Cuda {
    fn scalar(&self, s: Scalar, _at: TypeUse) -> &'static str {
        match s {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::SChar => "signed char",
            Scalar::UChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UShort => "unsigned short",
            Scalar::Int => "int",
            Scalar::UInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::ULong => "unsigned long",
            Scalar::LongLong => "long long",
            Scalar::ULongLong | Scalar::SizeT => "unsigned long long",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    fn long_suffix(&self, s: Scalar) -> &'static str {
        match s {
            Scalar::Long => "L",
            Scalar::ULong => "UL",
            Scalar::LongLong => "LL",
            _ => "ULL",
        }
    }

    fn builtin(&self, b: Builtin) -> String {
        let axis = |d: u8| match d {
            0 => Some("x"),
            1 => Some("y"),
            2 => Some("z"),
            _ => None,
        };
        let (var, d, outside) = match b {
            Builtin::LocalId(d) => ("threadIdx", d, "0"),
            Builtin::GroupId(d) => ("blockIdx", d, "0"),
            Builtin::LocalSize(d) => ("blockDim", d, "1"),
            Builtin::NumGroups(d) => ("gridDim", d, "1"),
            Builtin::GlobalId(d) => match axis(d) {
                Some(a) => return format!("(int)(blockIdx.{a} * blockDim.{a} + threadIdx.{a})"),
                None => return "0".to_string(),
            },
        };
        match axis(d) {
            Some(a) => format!("(int){var}.{a}"),
            None => outside.to_string(),
        }
    }

    fn barrier(&self) -> &'static str {
        "__syncthreads();"
    }

    fn math(&self, f: &MathFn) -> Option<MathSpelling> {
        Some(MathSpelling {
            name: f.c_name(),
            ret_cast: None,
        })
    }

    fn non_finite(&self, v: f64, single: bool) -> (String, u8) {
        let bits = match (v.is_nan(), single) {
            (true, true) => "__int_as_float(0x7fffffff)",
            (false, true) => "__int_as_float(0x7f800000)",
            (true, false) => "__longlong_as_double(0x7ff8000000000000LL)",
            (false, false) => "__longlong_as_double(0x7ff0000000000000LL)",
        };
        if v.is_nan() || v > 0.0 {
            (bits.to_string(), PREC_PRIMARY)
        } else {
            (format!("-{bits}"), PREC_UNARY)
        }
    }

    fn is_reserved(&self, name: &str) -> bool {
        CPP_KEYWORDS.contains(&name)
            || BUILTIN_VARS.contains(&name)
            || name.starts_with("__")
            || MathFn::from_c_name(name).is_some()
    }

    /// `atomicAdd`/`atomicSub`/`atomicAnd`/`atomicOr`/`atomicXor`/`atomicExch` on `int` and
    /// `unsigned int`; on 64-bit integers through `unsigned long long *` (no `atomicSub`);
    /// `atomicAdd` and `atomicExch` on `float`; `atomicAdd` on `double` from sm_60.
    fn atomic_native(&self, ty: Scalar, _space: Space, op: Option<BinOp>) -> Option<String> {
        let f = match op {
            None => "atomicExch",
            Some(BinOp::Add) => "atomicAdd",
            Some(BinOp::Sub) => "atomicSub",
            Some(BinOp::BitAnd) => "atomicAnd",
            Some(BinOp::BitOr) => "atomicOr",
            Some(BinOp::BitXor) => "atomicXor",
            // A minimum or maximum (`x = x < v ? x : v`): integers of `x`'s type only.
            Some(BinOp::Lt | BinOp::Le) => "atomicMin",
            Some(BinOp::Gt | BinOp::Ge) => "atomicMax",
            _ => return None,
        };
        let compare = matches!(op, Some(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge));
        match ty {
            Scalar::Int | Scalar::UInt => Some(format!("{f}({{p}}, {{v}})")),
            Scalar::Float | Scalar::Double if compare => None,
            // `atomicMin(unsigned long long *)` compares unsigned: not for signed 64-bit.
            Scalar::Long | Scalar::LongLong if compare => None,
            Scalar::Float | Scalar::Double => match op {
                None if ty == Scalar::Float => Some("atomicExch({p}, {v})".to_string()),
                Some(BinOp::Add) => Some("atomicAdd({p}, {v})".to_string()),
                Some(BinOp::Sub) => Some("atomicAdd({p}, -({v}))".to_string()),
                _ => None,
            },
            Scalar::ULongLong | Scalar::SizeT if op != Some(BinOp::Sub) => {
                Some(format!("{f}({{p}}, {{v}})"))
            }
            // The old value comes back as an `unsigned long long`, converted where it is used.
            Scalar::Long | Scalar::ULong | Scalar::LongLong if op != Some(BinOp::Sub) => Some(
                format!("{f}((unsigned long long *){{p}}, (unsigned long long)({{v}}))"),
            ),
            _ => None,
        }
    }

    fn atomic_native_guard(&self, ty: Scalar, _op: Option<BinOp>) -> Option<&'static str> {
        (ty == Scalar::Double).then_some("__CUDA_ARCH__ >= 600")
    }

    /// `atomicCAS` on `unsigned int` or `unsigned long long`, with `__float_as_uint` and
    /// `__double_as_longlong` for the bits of floats.
    fn atomic_cas(&self, ty: Scalar, _space: Space) -> CasSpelling {
        let bits = if ty.size() == 8 {
            "unsigned long long"
        } else {
            "unsigned int"
        };
        let (to_bits, from_bits) = match ty {
            Scalar::Float => (
                "__float_as_uint({x})".to_string(),
                "__uint_as_float({x})".to_string(),
            ),
            Scalar::Double => (
                "(unsigned long long)__double_as_longlong({x})".to_string(),
                "__longlong_as_double((long long){x})".to_string(),
            ),
            t => (
                format!("({bits}){{x}}"),
                format!("({}){{x}}", self.scalar(t, TypeUse::Private)),
            ),
        };
        CasSpelling {
            bits: bits.to_string(),
            ptr: format!("{bits} *"),
            cas: "atomicCAS".to_string(),
            to_bits,
            from_bits,
        }
    }

    fn atomic_load_ptr(&self, ty: Scalar, _space: Space) -> String {
        format!("volatile {} *", self.scalar(ty, TypeUse::Global))
    }

    /// CUDA's vector types need their own alignment (`uchar4`: 4 bytes), which the kernel
    /// cannot prove for every row of an image whose width is not a multiple of 4: the lanes
    /// are loaded as 4-byte vectors (`uchar4`, `char4`, `short2`, `ushort2`; 2 bytes for a
    /// 2-lane 8-bit vector; 16-byte `float4`, `int4`, `double2` of a transposed vector tile)
    /// where the address is aligned at run time, else element by element.
    ///
    /// An `aligned` load (a micro-tile's vector read of its tile) is one vector load with no
    /// check: `float4 v = *(const float4 *)&t[…];`.
    fn vector_load(
        &self,
        elem: Scalar,
        lane_ty: &str,
        vector: &str,
        lanes: &[String],
        addr: &str,
        _space: Space,
        aligned: bool,
    ) -> Vec<String> {
        if aligned {
            if let Some((chunk, vt, _)) = cuda_chunk(elem, lanes.len()) {
                if chunk == lanes.len() {
                    let mut out = vec![format!("{vt} {vector} = *(const {vt} *)({addr});")];
                    for (k, l) in lanes.iter().enumerate() {
                        out.push(format!("{lane_ty} {l} = {vector}.{};", COMPONENTS[k]));
                    }
                    return out;
                }
            }
        }
        let mut out = vec![format!("{lane_ty} {};", lanes.join(", "))];
        out.push("{".to_string());
        out.push(format!("    const {lane_ty} *accshare_p = {addr};"));
        let Some((chunk, vt, align)) = cuda_chunk(elem, lanes.len()) else {
            for (k, l) in lanes.iter().enumerate() {
                out.push(format!("    {l} = accshare_p[{k}];"));
            }
            out.push("}".to_string());
            return out;
        };
        out.push(format!(
            "    if (((unsigned long long)accshare_p & {}ull) == 0) {{",
            align - 1
        ));
        for (c, group) in lanes.chunks(chunk).enumerate() {
            out.push(format!(
                "        {vt} accshare_c{c} = *(const {vt} *)(accshare_p + {});",
                c * chunk
            ));
            for (k, l) in group.iter().enumerate() {
                out.push(format!("        {l} = accshare_c{c}.{};", COMPONENTS[k]));
            }
        }
        out.push("    } else {".to_string());
        for (k, l) in lanes.iter().enumerate() {
            out.push(format!("        {l} = accshare_p[{k}];"));
        }
        out.push("    }".to_string());
        out.push("}".to_string());
        out
    }

    fn vector_store(&self, elem: Scalar, addr: &str, values: &[String]) -> Vec<String> {
        let t = self.scalar(elem, TypeUse::Private);
        let mut out = vec!["{".to_string()];
        out.push(format!("    {t} *accshare_p = {addr};"));
        for (k, v) in values.iter().enumerate() {
            out.push(format!("    {t} accshare_s{k} = {v};"));
        }
        let Some((chunk, vt, align)) = cuda_chunk(elem, values.len()) else {
            for k in 0..values.len() {
                out.push(format!("    accshare_p[{k}] = accshare_s{k};"));
            }
            out.push("}".to_string());
            return out;
        };
        out.push(format!(
            "    if (((unsigned long long)accshare_p & {}ull) == 0) {{",
            align - 1
        ));
        for c in 0..values.len().div_ceil(chunk) {
            let args: Vec<String> = (c * chunk..((c + 1) * chunk).min(values.len()))
                .map(|k| format!("accshare_s{k}"))
                .collect();
            out.push(format!(
                "        *({vt} *)(accshare_p + {}) = make_{vt}({});",
                c * chunk,
                args.join(", ")
            ));
        }
        out.push("    } else {".to_string());
        for k in 0..values.len() {
            out.push(format!("        accshare_p[{k}] = accshare_s{k};"));
        }
        out.push("    }".to_string());
        out.push("}".to_string());
        out
    }
}

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// The CUDA vector a vector access of `n` lanes is made of: lanes per chunk (up to 4 bytes of
/// short words, 16 of wider elements), its type, and the alignment in bytes every chunk has
/// when the first has it; `None` for an element CUDA has no vector of (element accesses).
fn cuda_chunk(elem: Scalar, n: usize) -> Option<(usize, String, u64)> {
    let size = elem.size().max(1) as usize;
    // Short words move 4-byte vectors (the seed's word); 32- and 64-bit elements of a
    // transposed vector tile 16-byte ones (`float4`, `double2`).
    let bytes = if size < 4 { 4 } else { 16 };
    let chunk = (bytes / size).clamp(1, 4).min(n.max(1));
    let base = match elem {
        Scalar::UChar | Scalar::Bool => "uchar",
        Scalar::Char | Scalar::SChar => "char",
        Scalar::Short => "short",
        Scalar::UShort => "ushort",
        Scalar::Int => "int",
        Scalar::UInt => "uint",
        Scalar::Float => "float",
        Scalar::Double => "double",
        Scalar::Long | Scalar::LongLong if size == 8 => "longlong",
        Scalar::ULong | Scalar::ULongLong | Scalar::SizeT if size == 8 => "ulonglong",
        _ => return None,
    };
    (chunk >= 2).then(|| (chunk, format!("{base}{chunk}"), (chunk * size) as u64))
}

/// The type of a kernel parameter as the kernel spells it, without `__restrict__` (the launch
/// functions' parameters, see [`crate::back::host::cuda_unit`]).
pub fn param_type(kind: &KParamKind) -> String {
    let d = Cuda;
    match kind {
        KParamKind::Buffer {
            elem,
            read_only,
            record,
            ..
        } => format!(
            "{}{} *",
            if *read_only { "const " } else { "" },
            match record {
                Some(r) => c_like::record_name(&d, r),
                None => d.scalar(*elem, TypeUse::Global).to_string(),
            }
        ),
        KParamKind::Scalar { ty: t, .. } => d.scalar(*t, TypeUse::Param).to_string(),
    }
}

fn param(k: &crate::kernel::KParam) -> String {
    let d = Cuda;
    let name = c_like::spell_ident(&d, &k.name);
    match &k.kind {
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
            format!("{c}{ty} *__restrict__ {name}")
        }
        KParamKind::Scalar { ty: t, .. } => format!("{} {name}", d.scalar(*t, TypeUse::Param)),
    }
}

fn print_kernel(out: &mut String, k: &Kernel) {
    let d = Cuda;
    for l in c_like::comment_lines(&format!("kernel {} from {}", k.name, k.origin)) {
        out.push_str(&l);
        out.push('\n');
    }
    if let Some(w) = k.bank_width {
        out.push_str(&format!(
            "/* runs with {w}-byte shared-memory banks (cudaFuncSetSharedMemConfig in its launch function) */\n"
        ));
    }
    let threads: u64 = k.block.iter().map(|&b| u64::from(b)).product();
    out.push_str(&format!(
        "extern \"C\" __global__ void __launch_bounds__({threads})\n"
    ));
    let params: Vec<String> = k.params.iter().map(param).collect();
    out.push_str(&c_like::signature(&k.name, &params, ""));
    for &h in &k.locals {
        let l = &k.arrays[h];
        // A tile of short words starts on a word, so that its vector accesses (the grouped
        // tile copies) can be taken: a `__shared__ unsigned char` array has byte alignment.
        // A tile read as aligned vectors starts on the vector's size.
        let align = match k.vector_alignment(h) {
            0 if l.elem.size() < 4 => "__align__(4) ".to_string(),
            0 => String::new(),
            bytes => format!("__align__({bytes}) "),
        };
        out.push_str(&format!(
            "    __shared__ {}{} {}[{}];\n",
            align,
            d.scalar(l.elem, TypeUse::Local),
            c_like::spell_ident(&d, &l.name),
            l.elements().unwrap_or(0)
        ));
    }
    if !k.locals.is_empty() && !k.body.is_empty() {
        out.push('\n');
    }
    out.push_str(&c_like::kernel_body(&d, k));
    out.push_str("}\n");
}

/// The module's kernels as CUDA C++ (compiles with NVRTC without headers).
pub fn print_module(m: &Module) -> String {
    let mut out = String::from("// CUDA C++ kernels generated by accshare.\n");
    let records = c_like::record_decls(&Cuda, m);
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
    use crate::runtime::nvrtc::{tests::compile_or_skip, CompileOutcome};

    #[test]
    fn snapshots() {
        for (name, m) in samples::all() {
            insta::assert_snapshot!(format!("cuda_{name}"), print_module(&m));
        }
    }

    #[test]
    fn signature_qualifiers_and_launch_bounds() {
        let s = print_module(&samples::vector_add());
        assert!(s.contains(
            "extern \"C\" __global__ void __launch_bounds__(256)\nvadd_r0_k0(\
             float *__restrict__ C, const float *__restrict__ A, \
             const float *__restrict__ B, int n) {\n"
        ));
        let s = print_module(&samples::tiled_matmul());
        assert!(s.contains("__launch_bounds__(256)"));
        assert!(s.contains("    __shared__ float As[256];\n"));
        assert!(s.contains("__syncthreads();"));
        assert!(s.contains("int tx = (int)threadIdx.x;"));
        assert!(s.contains("int row = (int)blockIdx.y * 16 + ty;"));
        let s = print_module(&samples::vector_add());
        assert!(s.contains("int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);"));
    }

    #[test]
    fn atomics_use_cuda_functions_where_they_compute_what_c_computes() {
        let s = print_module(&samples::atomics());
        for line in [
            "atomicAdd(&h[key[i]], 1);",
            "c = atomicSub(&h[key[i]], 2);",
            "atomicOr(&u[key[i]], 4u);",
            "atomicAdd(&f[key[i]], w[i]);",
            "atomicAdd(&f[key[i]], -(1.0f));",
            "atomicExch(&f[key[i]], 2.5f);",
            "#if __CUDA_ARCH__ >= 600",
            "atomicAdd(&g[key[i]], (double)w[i]);",
            "atomicAdd((unsigned long long *)&l[key[i]], (unsigned long long)((long)i));",
            "z = atomicAdd(&s[key[i]], 1ULL);",
            "atomicAdd(&cnt[0], 1);",
            "c = *(volatile int *)&h[key[i]];",
        ] {
            assert!(s.contains(line), "{line}\n{s}");
        }
        // `float += double` rounds once in C: a compare-and-swap loop computes it.
        assert!(
            s.contains("accshare_new = (float)(accshare_old + 0.1);"),
            "{s}"
        );
        assert!(s.contains("accshare_new = 10 - accshare_old;"), "{s}");
    }

    /// Before sm_60 `atomicAdd(double *)` does not exist: the compare-and-swap loop replaces it.
    #[test]
    fn double_atomics_compile_before_and_after_sm_60() {
        crate::runtime::nvrtc::tests::find_nvrtc_for_tests();
        let src = print_module(&samples::atomics());
        for (arch, native) in [("compute_52", false), ("compute_75", true)] {
            match crate::runtime::nvrtc::compile_cuda(&src, arch) {
                Ok(CompileOutcome::Compiled { ptx, .. }) => {
                    assert_eq!(ptx.contains("atom.global.add.f64"), native, "{arch}");
                    assert!(ptx.contains("atom.global.cas.b64"), "{arch}");
                }
                Ok(CompileOutcome::Skipped(r)) => {
                    assert!(
                        !crate::runtime::require_devices(),
                        "ACCSHARE_REQUIRE_DEVICES=1 but NVRTC is missing: {r}"
                    );
                    return;
                }
                o => panic!("{arch}: {o:?}\n{src}"),
            }
        }
    }

    /// Compiles every sample to PTX with NVRTC; NVRTC must not warn.
    #[test]
    fn every_sample_compiles_with_nvrtc() {
        for (name, m) in samples::all() {
            let src = print_module(&m);
            match compile_or_skip(&src) {
                None => return,
                Some(CompileOutcome::Compiled { ptx, log }) => {
                    for k in &m.kernels {
                        assert!(
                            ptx.contains(&format!(".entry {}(", k.name)),
                            "{name}: {ptx}"
                        );
                    }
                    assert_eq!(log, "", "{name} compiles with warnings:\n{src}");
                }
                Some(o) => panic!("{name} does not compile: {o:?}\n{src}"),
            }
        }
    }
}
