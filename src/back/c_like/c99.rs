//! What C99 says that every printer must respect: integer promotions and the usual arithmetic
//! conversions, and the spelling of literals and comments (the math library's signatures are
//! [`crate::kernel::MathFn`]'s).

use super::*;

// ---------------------------------------------------------------------------------------------
// C types
// ---------------------------------------------------------------------------------------------

/// C's integer promotion.
pub fn promote(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool
        | Scalar::Char
        | Scalar::SChar
        | Scalar::UChar
        | Scalar::Short
        | Scalar::UShort => Scalar::Int,
        s => s,
    }
}

/// Conversion rank of a promoted integer type.
fn rank(s: Scalar) -> u8 {
    match s {
        Scalar::Int | Scalar::UInt => 1,
        Scalar::Long | Scalar::ULong | Scalar::SizeT => 2,
        Scalar::LongLong | Scalar::ULongLong => 3,
        _ => 0,
    }
}

fn to_unsigned(s: Scalar) -> Scalar {
    match s {
        Scalar::Int => Scalar::UInt,
        Scalar::Long => Scalar::ULong,
        Scalar::LongLong => Scalar::ULongLong,
        s => s,
    }
}

/// C's usual arithmetic conversions (LP64: `long`, `long long` and `size_t` are 64-bit).
pub fn usual(a: Scalar, b: Scalar) -> Scalar {
    if a == Scalar::Double || b == Scalar::Double {
        return Scalar::Double;
    }
    if a == Scalar::Float || b == Scalar::Float {
        return Scalar::Float;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if rank(a) >= rank(b) { a } else { b };
    }
    let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
    if rank(u) >= rank(s) {
        u
    } else if s.size() > u.size() {
        s
    } else {
        to_unsigned(s)
    }
}

/// The value of integer literal `v` of type `ty` as C sees it (`v` holds the bit pattern for
/// unsigned 64-bit types; out-of-range values wrap like a conversion).
pub(super) fn int_value(v: i64, ty: Scalar) -> i128 {
    if ty == Scalar::Bool {
        return i128::from(v != 0);
    }
    let bits = ty.size() * 8;
    let u = (v as u64 as u128) & ((1u128 << bits) - 1);
    if ty.is_signed() && u >= 1u128 << (bits - 1) {
        u as i128 - (1i128 << bits)
    } else {
        u as i128
    }
}

// ---------------------------------------------------------------------------------------------
// Literals and comments
// ---------------------------------------------------------------------------------------------

/// The shortest decimal text that reads back as `v` (finite), as a C floating literal without
/// suffix: it always has a `.` or an exponent.
pub fn float_digits(v: f64, single: bool) -> String {
    let a = v.abs();
    let plain = a == 0.0 || (1e-4..1e16).contains(&a);
    let s = match (single, plain) {
        (true, true) => format!("{}", v as f32),
        (true, false) => format!("{:e}", v as f32),
        (false, true) => format!("{}", v),
        (false, false) => format!("{:e}", v),
    };
    if s.contains(['.', 'e']) {
        s
    } else {
        s + ".0"
    }
}

/// Comment text as `// …` lines: line breaks start new comment lines, and no line ends with a
/// backslash (which would splice the next line into the comment).
pub fn comment_lines(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n")
        .split(['\n', '\r'])
        .map(|l| {
            let l = l.trim_end();
            let mut s = if l.is_empty() {
                "//".to_string()
            } else {
                format!("// {l}")
            };
            if s.ends_with('\\') || s.ends_with("??/") {
                s.push_str(" .");
            }
            s
        })
        .collect()
}
