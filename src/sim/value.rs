//! Values and the arithmetic of OpenCL C.
//!
//! Every value is 64 bits of a lane, interpreted by the static type of the expression that made
//! it ([`Ty`], the types left after the integer promotions):
//! - `I32`: an `int` sign-extended to 64 bits; `U32`: an `unsigned int` zero-extended;
//!   `I64`/`U64`: the bits; `F32`: the bits of an `f32` in the low half; `F64`: the bits.
//! - Narrower storage types (`char`, `unsigned char`, `short`, `_Bool`) are stored normalized
//!   (wrapped to their range, sign- or zero-extended), which is already their `I32` value.
//!
//! Float arithmetic is done in `f32` (never through `f64`); integer arithmetic wraps (signed
//! overflow is undefined in C; the GPUs wrap); integer division truncates toward zero; division
//! by zero gives 0 (the checker reports it); shift counts are masked to the width (OpenCL C).

use crate::kernel::math::{MathFn, Real};
use crate::vocab::{BinOp, Scalar};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl Ty {
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
}

/// The type a value of storage type `s` has in expressions (after the integer promotions).
pub fn ty_of(s: Scalar) -> Ty {
    match s {
        Scalar::Bool
        | Scalar::Char
        | Scalar::SChar
        | Scalar::UChar
        | Scalar::Short
        | Scalar::UShort
        | Scalar::Int => Ty::I32,
        Scalar::UInt => Ty::U32,
        Scalar::Long | Scalar::LongLong => Ty::I64,
        Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => Ty::U64,
        Scalar::Float => Ty::F32,
        Scalar::Double => Ty::F64,
    }
}

/// C's usual arithmetic conversions of two promoted types.
pub fn common(a: Ty, b: Ty) -> Ty {
    if a == Ty::F64 || b == Ty::F64 {
        return Ty::F64;
    }
    if a == Ty::F32 || b == Ty::F32 {
        return Ty::F32;
    }
    let wide = |t: Ty| matches!(t, Ty::I64 | Ty::U64);
    let uns = |t: Ty| matches!(t, Ty::U32 | Ty::U64);
    match (wide(a), wide(b)) {
        (true, false) => a,
        (false, true) => b,
        (w, _) => match (uns(a) || uns(b), w) {
            (true, true) => Ty::U64,
            (true, false) => Ty::U32,
            (false, true) => Ty::I64,
            (false, false) => Ty::I32,
        },
    }
}

/// Converts a value of type `from` to type `to`.
pub fn convert(v: u64, from: Ty, to: Ty) -> u64 {
    if from == to {
        return v;
    }
    match (from, to) {
        (Ty::F32, Ty::F64) => (f32::from_bits(v as u32) as f64).to_bits(),
        (Ty::F64, Ty::F32) => (f64::from_bits(v) as f32).to_bits() as u64,
        (_, Ty::F32) => {
            let f = match from {
                Ty::U64 => v as f32,
                _ => v as i64 as f32,
            };
            f.to_bits() as u64
        }
        (_, Ty::F64) => {
            let f = match from {
                Ty::U64 => v as f64,
                _ => v as i64 as f64,
            };
            f.to_bits()
        }
        (Ty::F32 | Ty::F64, _) => {
            let f = if from == Ty::F32 {
                f32::from_bits(v as u32) as f64
            } else {
                f64::from_bits(v)
            };
            let i = if to == Ty::U64 || to == Ty::U32 {
                if f < 0.0 {
                    f as i64 as u64
                } else {
                    f as u64
                }
            } else {
                f as i64 as u64
            };
            wrap_int(i, to)
        }
        _ => wrap_int(v, to),
    }
}

fn wrap_int(v: u64, to: Ty) -> u64 {
    match to {
        Ty::I32 => v as i32 as i64 as u64,
        Ty::U32 => v as u32 as u64,
        _ => v,
    }
}

/// Truth value of `v` of type `t` (C: compares unequal to 0).
pub fn truth(v: u64, t: Ty) -> bool {
    match t {
        Ty::F32 => f32::from_bits(v as u32) != 0.0,
        Ty::F64 => f64::from_bits(v) != 0.0,
        _ => v != 0,
    }
}

/// Converts a value of type `from` for storage in an object of type `to` (assignment).
pub fn to_scalar(v: u64, from: Ty, to: Scalar) -> u64 {
    match to {
        Scalar::Bool => truth(v, from) as u64,
        Scalar::Char | Scalar::SChar => convert(v, from, Ty::I64) as i8 as i64 as u64,
        Scalar::UChar => convert(v, from, Ty::I64) as u8 as u64,
        Scalar::Short => convert(v, from, Ty::I64) as i16 as i64 as u64,
        Scalar::UShort => convert(v, from, Ty::I64) as u16 as u64,
        _ => convert(v, from, ty_of(to)),
    }
}

/// The result type of `op` on operands of types `a` and `b`, and the type both operands are
/// converted to before the operation.
pub fn bin_types(op: BinOp, a: Ty, b: Ty) -> (Ty, Ty) {
    match op {
        BinOp::Shl | BinOp::Shr => (a, a),
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
            (Ty::I32, common(a, b))
        }
        BinOp::LogAnd | BinOp::LogOr => (Ty::I32, Ty::I32),
        _ => {
            let c = common(a, b);
            (c, c)
        }
    }
}

macro_rules! int_lanes {
    ($op:expr, $a:expr, $b:expr, $t:ty, $ut:ty, $store:expr, $zero:expr) => {{
        let st = $store;
        for (x, y) in $a.iter_mut().zip($b.iter()) {
            let p = *x as $t;
            let q = *y as $t;
            let r: $t = match $op {
                BinOp::Add => p.wrapping_add(q),
                BinOp::Sub => p.wrapping_sub(q),
                BinOp::Mul => p.wrapping_mul(q),
                BinOp::Div => {
                    if q == 0 {
                        $zero
                    } else {
                        p.wrapping_div(q)
                    }
                }
                BinOp::Rem => {
                    if q == 0 {
                        $zero
                    } else {
                        p.wrapping_rem(q)
                    }
                }
                BinOp::BitAnd => p & q,
                BinOp::BitOr => p | q,
                BinOp::BitXor => p ^ q,
                BinOp::Lt => (p < q) as $t,
                BinOp::Gt => (p > q) as $t,
                BinOp::Le => (p <= q) as $t,
                BinOp::Ge => (p >= q) as $t,
                BinOp::Eq => (p == q) as $t,
                BinOp::Ne => (p != q) as $t,
                _ => $zero,
            };
            *x = st(r);
        }
    }};
}

macro_rules! float_lanes {
    ($op:expr, $a:expr, $b:expr, $load:expr, $store:expr) => {{
        let (ld, st) = ($load, $store);
        for (x, y) in $a.iter_mut().zip($b.iter()) {
            let p = ld(*x);
            let q = ld(*y);
            *x = match $op {
                BinOp::Add => st(p + q),
                BinOp::Sub => st(p - q),
                BinOp::Mul => st(p * q),
                BinOp::Div => st(p / q),
                BinOp::Rem => st(p % q),
                BinOp::Lt => (p < q) as u64,
                BinOp::Gt => (p > q) as u64,
                BinOp::Le => (p <= q) as u64,
                BinOp::Ge => (p >= q) as u64,
                BinOp::Eq => (p == q) as u64,
                BinOp::Ne => (p != q) as u64,
                _ => 0,
            };
        }
    }};
}

/// `a[i] = a[i] op b[i]` for every lane; both operands already converted to `t` (for shifts, `a`
/// is of type `t` and `b` of type `bt`). Comparisons leave 0/1 (`I32`).
pub fn bin_lanes(op: BinOp, t: Ty, bt: Ty, a: &mut [u64], b: &[u64]) {
    if matches!(op, BinOp::Shl | BinOp::Shr) {
        let bits: u64 = if matches!(t, Ty::I32 | Ty::U32) {
            32
        } else {
            64
        };
        for (x, y) in a.iter_mut().zip(b.iter()) {
            let n = (convert(*y, bt, Ty::U64) & (bits - 1)) as u32;
            *x = match (op, t) {
                (BinOp::Shl, Ty::I32) => ((*x as i32).wrapping_shl(n)) as i64 as u64,
                (BinOp::Shl, Ty::U32) => ((*x as u32).wrapping_shl(n)) as u64,
                (BinOp::Shl, _) => x.wrapping_shl(n),
                (_, Ty::I32) => ((*x as i32) >> n) as i64 as u64,
                (_, Ty::U32) => ((*x as u32) >> n) as u64,
                (_, Ty::I64) => ((*x as i64) >> n) as u64,
                _ => *x >> n,
            };
        }
        return;
    }
    let cmp = matches!(
        op,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
    );
    match t {
        Ty::I32 => int_lanes!(
            op,
            a,
            b,
            i32,
            u32,
            |r: i32| if cmp {
                r as u32 as u64
            } else {
                r as i64 as u64
            },
            0
        ),
        Ty::U32 => int_lanes!(op, a, b, u32, u32, |r: u32| r as u64, 0),
        Ty::I64 => int_lanes!(op, a, b, i64, u64, |r: i64| r as u64, 0),
        Ty::U64 => int_lanes!(op, a, b, u64, u64, |r: u64| r, 0),
        Ty::F32 => float_lanes!(
            op,
            a,
            b,
            |v: u64| f32::from_bits(v as u32),
            |r: f32| r.to_bits() as u64
        ),
        Ty::F64 => float_lanes!(op, a, b, f64::from_bits, |r: f64| r.to_bits()),
    }
}

/// Bit pattern of a literal.
pub fn int_const(v: i64, s: Scalar) -> u64 {
    to_scalar(v as u64, Ty::I64, s)
}

pub fn f64_of(v: u64, t: Ty) -> f64 {
    match t {
        Ty::F32 => f32::from_bits(v as u32) as f64,
        Ty::F64 => f64::from_bits(v),
        Ty::U32 | Ty::U64 => v as f64,
        _ => v as i64 as f64,
    }
}

/// How the simulator computes a math function: in `f32` for the `…f` names and in `f64`
/// otherwise; `abs`, `min`, `max` on integers.
#[derive(Copy, Clone, Debug)]
pub enum MathImpl {
    F1(fn(f64) -> f64, fn(f32) -> f32),
    F2(fn(f64, f64) -> f64, fn(f32, f32) -> f32),
    F3(fn(f64, f64, f64) -> f64, fn(f32, f32, f32) -> f32),
    IAbs,
    IMin,
    IMax,
}

/// The implementation of a math function and whether it is the `float` version; `None` for
/// the functions the simulator does not implement (`erf`, `lgamma`, `ldexp`, …).
pub fn math_fn(f: &MathFn) -> Option<(MathImpl, bool)> {
    let (r, single) = match f {
        MathFn::Abs | MathFn::Labs | MathFn::Llabs => return Some((MathImpl::IAbs, false)),
        MathFn::Min => return Some((MathImpl::IMin, false)),
        MathFn::Max => return Some((MathImpl::IMax, false)),
        MathFn::Real(r, single) => (r, *single),
    };
    let f = match r {
        Real::Fabs => MathImpl::F1(f64::abs, f32::abs),
        Real::Sqrt => MathImpl::F1(f64::sqrt, f32::sqrt),
        Real::Exp => MathImpl::F1(f64::exp, f32::exp),
        Real::Exp2 => MathImpl::F1(f64::exp2, f32::exp2),
        Real::Expm1 => MathImpl::F1(f64::exp_m1, f32::exp_m1),
        Real::Log => MathImpl::F1(f64::ln, f32::ln),
        Real::Log2 => MathImpl::F1(f64::log2, f32::log2),
        Real::Log10 => MathImpl::F1(f64::log10, f32::log10),
        Real::Log1p => MathImpl::F1(f64::ln_1p, f32::ln_1p),
        Real::Sin => MathImpl::F1(f64::sin, f32::sin),
        Real::Cos => MathImpl::F1(f64::cos, f32::cos),
        Real::Tan => MathImpl::F1(f64::tan, f32::tan),
        Real::Asin => MathImpl::F1(f64::asin, f32::asin),
        Real::Acos => MathImpl::F1(f64::acos, f32::acos),
        Real::Atan => MathImpl::F1(f64::atan, f32::atan),
        Real::Sinh => MathImpl::F1(f64::sinh, f32::sinh),
        Real::Cosh => MathImpl::F1(f64::cosh, f32::cosh),
        Real::Tanh => MathImpl::F1(f64::tanh, f32::tanh),
        Real::Floor => MathImpl::F1(f64::floor, f32::floor),
        Real::Ceil => MathImpl::F1(f64::ceil, f32::ceil),
        Real::Round => MathImpl::F1(f64::round, f32::round),
        Real::Trunc => MathImpl::F1(f64::trunc, f32::trunc),
        Real::Cbrt => MathImpl::F1(f64::cbrt, f32::cbrt),
        Real::Pow => MathImpl::F2(f64::powf, f32::powf),
        Real::Fmax => MathImpl::F2(f64::max, f32::max),
        Real::Fmin => MathImpl::F2(f64::min, f32::min),
        Real::Fmod => MathImpl::F2(|a, b| a % b, |a, b| a % b),
        Real::Atan2 => MathImpl::F2(f64::atan2, f32::atan2),
        Real::Hypot => MathImpl::F2(f64::hypot, f32::hypot),
        Real::Copysign => MathImpl::F2(f64::copysign, f32::copysign),
        Real::Fma => MathImpl::F3(f64::mul_add, f32::mul_add),
        _ => return None,
    };
    Some((f, single))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> u64 {
        v as u64
    }

    #[test]
    fn conversions_follow_c() {
        assert_eq!(common(Ty::I32, Ty::U32), Ty::U32);
        assert_eq!(common(Ty::I64, Ty::U32), Ty::I64);
        assert_eq!(common(Ty::U64, Ty::I32), Ty::U64);
        assert_eq!(common(Ty::I32, Ty::F32), Ty::F32);
        assert_eq!(common(Ty::F32, Ty::F64), Ty::F64);
        // (unsigned char)300 == 44; (char)200 == -56; (_Bool)0.5 == 1
        assert_eq!(to_scalar(i(300), Ty::I32, Scalar::UChar), 44);
        assert_eq!(to_scalar(i(200), Ty::I32, Scalar::Char) as i64, -56);
        assert_eq!(to_scalar(0.5f32.to_bits() as u64, Ty::F32, Scalar::Bool), 1);
        // -1 converted to unsigned int is 4294967295
        assert_eq!(convert(i(-1), Ty::I32, Ty::U32), 4294967295);
        // (int)-2.7f == -2
        assert_eq!(
            convert((-2.7f32).to_bits() as u64, Ty::F32, Ty::I32) as i64,
            -2
        );
    }

    #[test]
    fn integer_arithmetic_truncates_and_wraps() {
        let mut a = vec![i(-7), i(7), i(i32::MAX as i64), i(5)];
        let b = vec![i(2), i(-2), i(1), i(0)];
        bin_lanes(BinOp::Div, Ty::I32, Ty::I32, &mut a, &b);
        assert_eq!(a, vec![i(-3), i(-3), i(i32::MAX as i64), 0]);
        let mut a = vec![i(-7), i(i32::MAX as i64)];
        bin_lanes(BinOp::Rem, Ty::I32, Ty::I32, &mut a, &[i(2), i(1)]);
        assert_eq!(a, vec![i(-1), 0]);
        let mut a = vec![i(i32::MAX as i64)];
        bin_lanes(BinOp::Add, Ty::I32, Ty::I32, &mut a, &[1]);
        assert_eq!(a, vec![i(i32::MIN as i64)]);
        // unsigned comparison: (unsigned)-1 > 1
        let mut a = vec![convert(i(-1), Ty::I32, Ty::U32)];
        bin_lanes(BinOp::Gt, Ty::U32, Ty::U32, &mut a, &[1]);
        assert_eq!(a, vec![1]);
        // -8 >> 1 == -4 (arithmetic); 1 << 33 masked to 1 << 1 in OpenCL
        let mut a = vec![i(-8), 1];
        bin_lanes(BinOp::Shr, Ty::I32, Ty::I32, &mut a[..1], &[1]);
        bin_lanes(BinOp::Shl, Ty::I32, Ty::I32, &mut a[1..], &[33]);
        assert_eq!(a, vec![i(-4), 2]);
    }

    #[test]
    fn float_stays_float() {
        // 16777216f + 1f == 16777216f in f32 (it would be 16777217 through f64 and back... no:
        // rounding happens once either way); use a sum whose f64 detour differs.
        let x = 0.1f32;
        let y = 0.2f32;
        let mut a = vec![x.to_bits() as u64];
        bin_lanes(BinOp::Add, Ty::F32, Ty::F32, &mut a, &[y.to_bits() as u64]);
        assert_eq!(f32::from_bits(a[0] as u32), x + y);
        let mut a = vec![16777216f32.to_bits() as u64];
        bin_lanes(
            BinOp::Add,
            Ty::F32,
            Ty::F32,
            &mut a,
            &[1f32.to_bits() as u64],
        );
        assert_eq!(f32::from_bits(a[0] as u32), 16777216f32);
    }
}
