//! The parser's tokens and their conversion from preprocessing tokens.
//!
//! The preprocessor hands over identifiers, numbers, character and string literals and
//! punctuators as spelled. This module turns them into [`Tok`]s: keywords are recognized,
//! numbers get their value and suffix, character and string literals their decoded value.
//! Whether an identifier names a type (the "lexer hack") is decided by `front::parser`, which
//! knows the `typedef`s seen so far.

use std::fmt;

use crate::front::ast::IntSuffix;

/// An integer literal: value, suffix and radix (10, 16, 8 or 2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub suffix: IntSuffix,
    pub radix: u32,
}

/// A floating-point literal; `single` for an `f`/`F` suffix.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FloatLit {
    pub value: f64,
    pub single: bool,
}

/// A token of the C grammar (`grammar/c.lalrpop`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Synthetic first token selecting the start symbol: a top-level item.
    StartItem,
    /// Synthetic first token selecting the start symbol: one assignment expression.
    StartExpr,
    Ident(String),
    /// An identifier that names a type (`size_t`, a `typedef` name).
    TypeName(String),
    IntLit(IntLit),
    FloatLit(FloatLit),
    CharLit(i64),
    /// A string literal's decoded value (escapes processed).
    StrLit(String),
    /// A `#pragma` line (index into the preprocessor's pragma table).
    Pragma(u32),
    /// Anything the grammar does not know (`_Atomic`, `_Generic`, stray `#`, …).
    Other(String),

    // Keywords.
    KwVoid,
    KwChar,
    KwShort,
    KwInt,
    KwLong,
    KwFloat,
    KwDouble,
    KwSigned,
    KwUnsigned,
    KwBool,
    KwConst,
    KwRestrict,
    /// `volatile`: accepted and ignored (host code keeps its text).
    KwVolatile,
    KwStatic,
    KwExtern,
    KwTypedef,
    KwInline,
    /// `auto` / `register`: accepted and ignored.
    KwAuto,
    KwStruct,
    KwUnion,
    KwEnum,
    KwIf,
    KwElse,
    KwFor,
    KwWhile,
    KwDo,
    KwReturn,
    KwBreak,
    KwContinue,
    KwGoto,
    KwSwitch,
    KwCase,
    KwDefault,
    KwSizeof,
    KwStaticAssert,

    // Punctuators.
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Dot,
    Arrow,
    PlusPlus,
    MinusMinus,
    Amp,
    Star,
    Plus,
    Minus,
    Tilde,
    Bang,
    Slash,
    Percent,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Caret,
    Pipe,
    AmpAmp,
    PipePipe,
    Question,
    Colon,
    Semi,
    Comma,
    Assign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    PlusAssign,
    MinusAssign,
    ShlAssign,
    ShrAssign,
    AmpAssign,
    CaretAssign,
    PipeAssign,
    /// `...` (variadic parameter lists; GNU case ranges and range designators).
    Ellipsis,
}

/// The keyword an identifier spells, if any. C keywords outside the subset (`_Atomic`,
/// `_Generic`, …) become [`Tok::Other`] so that they are never taken for names.
pub fn keyword(s: &str) -> Option<Tok> {
    Some(match s {
        "void" => Tok::KwVoid,
        "char" => Tok::KwChar,
        "short" => Tok::KwShort,
        "int" => Tok::KwInt,
        "long" => Tok::KwLong,
        "float" => Tok::KwFloat,
        "double" => Tok::KwDouble,
        "signed" | "__signed" | "__signed__" => Tok::KwSigned,
        "unsigned" => Tok::KwUnsigned,
        "_Bool" => Tok::KwBool,
        "const" | "__const" | "__const__" => Tok::KwConst,
        "restrict" | "__restrict" | "__restrict__" => Tok::KwRestrict,
        "volatile" | "__volatile" | "__volatile__" => Tok::KwVolatile,
        "static" => Tok::KwStatic,
        "extern" => Tok::KwExtern,
        "typedef" => Tok::KwTypedef,
        "inline" | "__inline" | "__inline__" => Tok::KwInline,
        "auto" | "register" => Tok::KwAuto,
        "struct" => Tok::KwStruct,
        "union" => Tok::KwUnion,
        "enum" => Tok::KwEnum,
        "if" => Tok::KwIf,
        "else" => Tok::KwElse,
        "for" => Tok::KwFor,
        "while" => Tok::KwWhile,
        "do" => Tok::KwDo,
        "return" => Tok::KwReturn,
        "break" => Tok::KwBreak,
        "continue" => Tok::KwContinue,
        "goto" => Tok::KwGoto,
        "switch" => Tok::KwSwitch,
        "case" => Tok::KwCase,
        "default" => Tok::KwDefault,
        "sizeof" => Tok::KwSizeof,
        "_Static_assert" => Tok::KwStaticAssert,
        "_Atomic" | "_Alignas" | "_Alignof" | "_Complex" | "_Generic" | "_Imaginary"
        | "_Noreturn" | "_Thread_local" => Tok::Other(s.to_string()),
        _ => return None,
    })
}

/// True for the spellings [`keyword`] recognizes.
pub fn is_keyword(s: &str) -> bool {
    keyword(s).is_some()
}

/// The punctuator a spelling denotes; unknown ones (`#`, `##`) are [`Tok::Other`].
pub fn punct(s: &str) -> Tok {
    match s {
        "(" => Tok::LParen,
        ")" => Tok::RParen,
        "[" => Tok::LBracket,
        "]" => Tok::RBracket,
        "{" => Tok::LBrace,
        "}" => Tok::RBrace,
        "." => Tok::Dot,
        "->" => Tok::Arrow,
        "++" => Tok::PlusPlus,
        "--" => Tok::MinusMinus,
        "&" => Tok::Amp,
        "*" => Tok::Star,
        "+" => Tok::Plus,
        "-" => Tok::Minus,
        "~" => Tok::Tilde,
        "!" => Tok::Bang,
        "/" => Tok::Slash,
        "%" => Tok::Percent,
        "<<" => Tok::Shl,
        ">>" => Tok::Shr,
        "<" => Tok::Lt,
        ">" => Tok::Gt,
        "<=" => Tok::Le,
        ">=" => Tok::Ge,
        "==" => Tok::EqEq,
        "!=" => Tok::Ne,
        "^" => Tok::Caret,
        "|" => Tok::Pipe,
        "&&" => Tok::AmpAmp,
        "||" => Tok::PipePipe,
        "?" => Tok::Question,
        ":" => Tok::Colon,
        ";" => Tok::Semi,
        "," => Tok::Comma,
        "=" => Tok::Assign,
        "*=" => Tok::StarAssign,
        "/=" => Tok::SlashAssign,
        "%=" => Tok::PercentAssign,
        "+=" => Tok::PlusAssign,
        "-=" => Tok::MinusAssign,
        "<<=" => Tok::ShlAssign,
        ">>=" => Tok::ShrAssign,
        "&=" => Tok::AmpAssign,
        "^=" => Tok::CaretAssign,
        "|=" => Tok::PipeAssign,
        "..." => Tok::Ellipsis,
        other => Tok::Other(other.to_string()),
    }
}

/// Why a literal token is not a valid C literal; [`fmt::Display`] gives the message of the
/// diagnostic at the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiteralError {
    /// `0x` or `0b` with no digits after it (the prefix as written).
    MissingDigits(String),
    /// A decimal digit outside an octal (`radix` 8) or binary (2) literal's digits.
    InvalidDigit {
        digit: char,
        radix: u32,
    },
    /// The suffix of an integer literal (from the first character that is not a digit).
    IntSuffix(String),
    IntTooLarge,
    /// The literal as written.
    DecimalPoints(String),
    /// The literal as written.
    Invalid(String),
    ExponentDigits,
    FloatSuffix(String),
    HexFloatExponent,
    IncompleteEscape,
    HexEscapeDigits,
    IncompleteUcn,
    EscapeRange,
    HexEscapeRange,
    InvalidUcn,
    MalformedChar,
    EmptyChar,
    MalformedString,
}

impl fmt::Display for LiteralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiteralError::MissingDigits(prefix) => {
                write!(f, "missing digits after the `{prefix}` prefix")
            }
            LiteralError::InvalidDigit { digit, radix } => {
                let base = if *radix == 2 { "binary" } else { "octal" };
                write!(f, "invalid digit `{digit}` in {base} literal")
            }
            LiteralError::IntSuffix(s) => write!(f, "invalid suffix `{s}` on integer literal"),
            LiteralError::IntTooLarge => f.write_str("integer literal is too large"),
            LiteralError::DecimalPoints(t) => write!(f, "too many decimal points in number `{t}`"),
            LiteralError::Invalid(t) => write!(f, "invalid number `{t}`"),
            LiteralError::ExponentDigits => f.write_str("exponent has no digits"),
            LiteralError::FloatSuffix(s) => {
                write!(f, "invalid suffix `{s}` on floating-point literal")
            }
            LiteralError::HexFloatExponent => {
                f.write_str("hexadecimal floating-point literal requires an exponent")
            }
            LiteralError::IncompleteEscape => f.write_str("incomplete escape sequence"),
            LiteralError::HexEscapeDigits => f.write_str("`\\x` used with no following hex digits"),
            LiteralError::IncompleteUcn => f.write_str("incomplete universal character name"),
            LiteralError::EscapeRange => f.write_str("escape sequence out of range"),
            LiteralError::HexEscapeRange => f.write_str("hex escape sequence out of range"),
            LiteralError::InvalidUcn => f.write_str("invalid universal character name"),
            LiteralError::MalformedChar => f.write_str("malformed character literal"),
            LiteralError::EmptyChar => f.write_str("empty character constant"),
            LiteralError::MalformedString => f.write_str("malformed string literal"),
        }
    }
}

/// Converts a preprocessing number (`42`, `0x1Fu`, `1e-5f`, `.5`, `0x1.8p3`) to a literal token.
/// The error is for a diagnostic at the token.
pub fn number(text: &str) -> Result<Tok, LiteralError> {
    let b = text.as_bytes();
    let is_hex = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    if is_hex {
        let body = &text[2..];
        if body.contains(['.', 'p', 'P']) {
            return hex_float(text, body);
        }
        return int_literal(text, body, 16);
    }
    let is_bin = b.len() >= 2 && b[0] == b'0' && (b[1] == b'b' || b[1] == b'B');
    if is_bin {
        return int_literal(text, &text[2..], 2);
    }
    // A decimal float has a `.` or an exponent before any suffix letter.
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let rest = &text[digits_end..];
    if text[..digits_end].contains('.') || rest.starts_with(['e', 'E']) {
        return dec_float(text);
    }
    if text.starts_with('0') && text.len() > 1 {
        int_literal(text, &text[1..], 8)
    } else {
        int_literal(text, text, 10)
    }
}

fn int_literal(text: &str, body: &str, radix: u32) -> Result<Tok, LiteralError> {
    let digits_end = body
        .find(|c: char| !c.is_ascii_alphanumeric() || matches!(c, 'u' | 'U' | 'l' | 'L'))
        .unwrap_or(body.len());
    let (digits, suffix_text) = body.split_at(digits_end);
    if digits.is_empty() && radix != 8 {
        let prefix = &text[..2];
        return Err(LiteralError::MissingDigits(prefix.to_string()));
    }
    let mut value: u64 = 0;
    for c in digits.chars() {
        let d = match c.to_digit(radix) {
            Some(d) => d,
            None => {
                return Err(match radix {
                    8 | 2 if c.is_ascii_digit() => LiteralError::InvalidDigit { digit: c, radix },
                    _ => LiteralError::IntSuffix(digits[digit_pos(digits, c)..].to_string()),
                })
            }
        };
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(LiteralError::IntTooLarge)?;
    }
    let suffix =
        int_suffix(suffix_text).ok_or_else(|| LiteralError::IntSuffix(suffix_text.to_string()))?;
    Ok(Tok::IntLit(IntLit {
        value,
        suffix,
        radix,
    }))
}

fn digit_pos(digits: &str, c: char) -> usize {
    digits.find(c).unwrap_or(0)
}

fn int_suffix(s: &str) -> Option<IntSuffix> {
    let mut unsigned = false;
    let mut rest = s;
    if let Some(r) = rest.strip_prefix(['u', 'U']) {
        unsigned = true;
        rest = r;
    }
    let longs = if rest.starts_with("ll") || rest.starts_with("LL") {
        rest = &rest[2..];
        2
    } else if rest.starts_with(['l', 'L']) {
        rest = &rest[1..];
        1
    } else {
        0
    };
    if !unsigned {
        if let Some(r) = rest.strip_prefix(['u', 'U']) {
            unsigned = true;
            rest = r;
        }
    }
    rest.is_empty().then_some(IntSuffix { unsigned, longs })
}

/// Splits a float suffix (`f`, `F`, `l`, `L` or none) off; `Some(single)`.
fn float_suffix(s: &str) -> Option<bool> {
    match s {
        "" | "l" | "L" => Some(false),
        "f" | "F" => Some(true),
        _ => None,
    }
}

fn dec_float(text: &str) -> Result<Tok, LiteralError> {
    let mant_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let mant = &text[..mant_end];
    if mant.matches('.').count() > 1 {
        return Err(LiteralError::DecimalPoints(text.to_string()));
    }
    if !mant.bytes().any(|c| c.is_ascii_digit()) {
        return Err(LiteralError::Invalid(text.to_string()));
    }
    let mut rest = &text[mant_end..];
    let mut exp = "";
    if let Some(r) = rest.strip_prefix(['e', 'E']) {
        let sign_len = usize::from(r.starts_with(['+', '-']));
        let digits_len = r[sign_len..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(r.len() - sign_len);
        if digits_len == 0 {
            return Err(LiteralError::ExponentDigits);
        }
        exp = &r[..sign_len + digits_len];
        rest = &r[sign_len + digits_len..];
    }
    if rest.contains('.') {
        return Err(LiteralError::DecimalPoints(text.to_string()));
    }
    let single = float_suffix(rest).ok_or_else(|| LiteralError::FloatSuffix(rest.to_string()))?;
    let mut norm = String::with_capacity(text.len() + 2);
    if mant.starts_with('.') {
        norm.push('0');
    }
    norm.push_str(mant);
    if mant.ends_with('.') {
        norm.push('0');
    }
    if !exp.is_empty() {
        norm.push('e');
        norm.push_str(exp);
    }
    let value: f64 = norm
        .parse()
        .map_err(|_| LiteralError::Invalid(text.to_string()))?;
    Ok(Tok::FloatLit(FloatLit { value, single }))
}

fn hex_float(text: &str, body: &str) -> Result<Tok, LiteralError> {
    let mant_end = body
        .find(|c: char| !(c.is_ascii_hexdigit() || c == '.'))
        .unwrap_or(body.len());
    let mant = &body[..mant_end];
    if mant.matches('.').count() > 1 {
        return Err(LiteralError::DecimalPoints(text.to_string()));
    }
    if !mant.bytes().any(|c| c.is_ascii_hexdigit()) {
        return Err(LiteralError::MissingDigits("0x".to_string()));
    }
    let Some(r) = body[mant_end..].strip_prefix(['p', 'P']) else {
        return Err(LiteralError::HexFloatExponent);
    };
    let sign_len = usize::from(r.starts_with(['+', '-']));
    let digits_len = r[sign_len..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(r.len() - sign_len);
    if digits_len == 0 {
        return Err(LiteralError::ExponentDigits);
    }
    let rest = &r[sign_len + digits_len..];
    let single = float_suffix(rest).ok_or_else(|| LiteralError::FloatSuffix(rest.to_string()))?;
    // Saturate the exponent: anything this large is already 0 or infinity.
    let mut exp: i64 = 0;
    for c in r[sign_len..sign_len + digits_len].bytes() {
        exp = (exp * 10 + i64::from(c - b'0')).min(100_000);
    }
    if r.starts_with('-') {
        exp = -exp;
    }
    let mut value = 0f64;
    let mut frac_digits: i64 = 0;
    let mut seen_point = false;
    for c in mant.chars() {
        if c == '.' {
            seen_point = true;
            continue;
        }
        value = value * 16.0 + f64::from(c.to_digit(16).unwrap_or(0));
        if seen_point {
            frac_digits += 1;
        }
    }
    let e = (exp - 4 * frac_digits).clamp(-4000, 4000) as i32;
    if value != 0.0 {
        value = value * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
    }
    Ok(Tok::FloatLit(FloatLit { value, single }))
}

/// Decodes the escapes of a literal's body into code units (bytes for plain literals, code
/// points for prefixed ones). The error is a message.
fn decode(body: &str, wide: bool) -> Result<Vec<u32>, LiteralError> {
    let mut out = Vec::new();
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            if wide {
                out.push(c as u32);
            } else {
                let mut buf = [0u8; 4];
                out.extend(c.encode_utf8(&mut buf).bytes().map(u32::from));
            }
            continue;
        }
        let Some(e) = it.next() else {
            return Err(LiteralError::IncompleteEscape);
        };
        let v = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            'e' | 'E' => 27,
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                v
            }
            'x' => {
                let mut v: u64 = 0;
                let mut n = 0;
                while let Some(d) = it.peek().and_then(|c| c.to_digit(16)) {
                    v = (v << 4 | u64::from(d)).min(u64::from(u32::MAX) + 1);
                    n += 1;
                    it.next();
                }
                if n == 0 {
                    return Err(LiteralError::HexEscapeDigits);
                }
                u32::try_from(v).map_err(|_| LiteralError::HexEscapeRange)?
            }
            'u' | 'U' => {
                let len = if e == 'u' { 4 } else { 8 };
                let mut v = 0u32;
                for _ in 0..len {
                    match it.next().and_then(|c| c.to_digit(16)) {
                        Some(d) => v = v << 4 | d,
                        None => return Err(LiteralError::IncompleteUcn),
                    }
                }
                if !wide {
                    let c = char::from_u32(v).ok_or(LiteralError::InvalidUcn)?;
                    let mut buf = [0u8; 4];
                    out.extend(c.encode_utf8(&mut buf).bytes().map(u32::from));
                    continue;
                }
                v
            }
            other => other as u32,
        };
        if !wide && v > 0xff {
            return Err(LiteralError::EscapeRange);
        }
        out.push(v);
    }
    Ok(out)
}

/// Splits a literal's prefix (`L`, `u`, `U`, `u8`) and quotes off; `(wide, body)`.
fn literal_body(text: &str, quote: char) -> Option<(bool, &str)> {
    let start = text.find(quote)?;
    let prefix = &text[..start];
    let body = text[start + 1..].strip_suffix(quote)?;
    let wide = matches!(prefix, "L" | "u" | "U");
    Some((wide, body))
}

/// The value of a character literal (`'a'`, `'\n'`, `'\x41'`, `L'x'`). Plain single-byte
/// literals are sign-extended as `char` is signed on the targets; multi-character constants
/// get GCC's value.
pub fn char_value(text: &str) -> Result<i64, LiteralError> {
    let (wide, body) = literal_body(text, '\'').ok_or(LiteralError::MalformedChar)?;
    let units = decode(body, wide)?;
    match units.as_slice() {
        [] => Err(LiteralError::EmptyChar),
        [u] if wide => Ok(i64::from(*u)),
        [u] => Ok(i64::from(*u as u8 as i8)),
        many => {
            let mut v: u32 = 0;
            for u in many {
                v = v << 8 | (u & 0xff);
            }
            Ok(i64::from(v as i32))
        }
    }
}

/// The decoded value of a string literal's body. Escaped bytes that are not valid UTF-8 on
/// their own (`"\xff"`) become the code point of the same value.
pub fn str_value(text: &str) -> Result<String, LiteralError> {
    let (wide, body) = literal_body(text, '"').ok_or(LiteralError::MalformedString)?;
    let units = decode(body, wide)?;
    if wide {
        return Ok(units
            .iter()
            .map(|&u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect());
    }
    let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => e.into_bytes().into_iter().map(char::from).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal's value or the text of its error.
    fn msg<T>(r: Result<T, LiteralError>) -> Result<T, String> {
        r.map_err(|e| e.to_string())
    }

    fn int(text: &str) -> (u64, IntSuffix, u32) {
        match number(text) {
            Ok(Tok::IntLit(i)) => (i.value, i.suffix, i.radix),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn float(text: &str) -> (f64, bool) {
        match number(text) {
            Ok(Tok::FloatLit(f)) => (f.value, f.single),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn suf(unsigned: bool, longs: u8) -> IntSuffix {
        IntSuffix { unsigned, longs }
    }

    #[test]
    fn integers() {
        assert_eq!(int("42"), (42, suf(false, 0), 10));
        assert_eq!(int("0"), (0, suf(false, 0), 10));
        assert_eq!(int("0x1Fu"), (31, suf(true, 0), 16));
        assert_eq!(int("017"), (15, suf(false, 0), 8));
        assert_eq!(int("10UL"), (10, suf(true, 1), 10));
        assert_eq!(int("10lu"), (10, suf(true, 1), 10));
        assert_eq!(int("10ll"), (10, suf(false, 2), 10));
        assert_eq!(int("10ULL"), (10, suf(true, 2), 10));
        assert_eq!(int("10llu"), (10, suf(true, 2), 10));
        assert_eq!(int("0b101"), (5, suf(false, 0), 2));
        assert_eq!(int("18446744073709551615"), (u64::MAX, suf(false, 0), 10));
        assert_eq!(int("0xffffffffffffffff"), (u64::MAX, suf(false, 0), 16));
    }

    #[test]
    fn bad_integers() {
        assert_eq!(
            msg(number("08")),
            Err("invalid digit `8` in octal literal".to_string())
        );
        assert_eq!(
            msg(number("18446744073709551616")),
            Err("integer literal is too large".to_string())
        );
        assert_eq!(
            msg(number("10lL")),
            Err("invalid suffix `lL` on integer literal".to_string())
        );
        assert_eq!(
            msg(number("10uu")),
            Err("invalid suffix `uu` on integer literal".to_string())
        );
        assert_eq!(
            msg(number("12abc")),
            Err("invalid suffix `abc` on integer literal".to_string())
        );
        assert_eq!(
            msg(number("0x")),
            Err("missing digits after the `0x` prefix".to_string())
        );
        assert_eq!(
            msg(number("0xg")),
            Err("invalid suffix `g` on integer literal".to_string())
        );
    }

    #[test]
    fn floats() {
        assert_eq!(float("1e-5f"), (1e-5, true));
        assert_eq!(float(".5"), (0.5, false));
        assert_eq!(float("1."), (1.0, false));
        assert_eq!(float("1.5L"), (1.5, false));
        assert_eq!(float("2.5E+3"), (2500.0, false));
        assert_eq!(float("1.e2"), (100.0, false));
        assert_eq!(float("0x1.8p3"), (12.0, false));
        assert_eq!(float("0x10p-4f"), (1.0, true));
        assert_eq!(float("0x.8p1"), (1.0, false));
        assert_eq!(float("1e99999").0, f64::INFINITY);
    }

    #[test]
    fn bad_floats() {
        assert_eq!(
            msg(number("1.2.3")),
            Err("too many decimal points in number `1.2.3`".to_string())
        );
        assert_eq!(msg(number("1e")), Err("exponent has no digits".to_string()));
        assert_eq!(
            msg(number("1e+f")),
            Err("exponent has no digits".to_string())
        );
        assert_eq!(
            msg(number("1.5q")),
            Err("invalid suffix `q` on floating-point literal".to_string())
        );
        assert_eq!(
            msg(number("0x1.8")),
            Err("hexadecimal floating-point literal requires an exponent".to_string())
        );
        assert_eq!(
            msg(number("1e5.5")),
            Err("too many decimal points in number `1e5.5`".to_string())
        );
    }

    #[test]
    fn chars_and_strings() {
        assert_eq!(msg(char_value("'a'")), Ok(97));
        assert_eq!(msg(char_value("'\\n'")), Ok(10));
        assert_eq!(msg(char_value("'\\0'")), Ok(0));
        assert_eq!(msg(char_value("'\\x41'")), Ok(65));
        assert_eq!(msg(char_value("'\\''")), Ok(39));
        assert_eq!(msg(char_value("'\\377'")), Ok(-1));
        assert_eq!(msg(char_value("L'\\x100'")), Ok(256));
        assert_eq!(msg(char_value("'ab'")), Ok(0x6162));
        assert_eq!(
            msg(char_value("''")),
            Err("empty character constant".to_string())
        );
        assert_eq!(
            msg(char_value("'\\x100'")),
            Err("escape sequence out of range".to_string())
        );
        assert_eq!(msg(str_value("\"%d\\n\"")), Ok("%d\n".into()));
        assert_eq!(msg(str_value("\"a\\\"b\"")), Ok("a\"b".into()));
        assert_eq!(msg(str_value("\"\\xff\"")), Ok("\u{ff}".into()));
        assert_eq!(msg(str_value("\"é\"")), Ok("é".into()));
        assert_eq!(msg(str_value("u8\"x\"")), Ok("x".into()));
    }

    #[test]
    fn keywords_and_puncts() {
        assert_eq!(keyword("unsigned"), Some(Tok::KwUnsigned));
        assert_eq!(keyword("__restrict__"), Some(Tok::KwRestrict));
        assert_eq!(keyword("volatile"), Some(Tok::KwVolatile));
        assert_eq!(keyword("_Atomic"), Some(Tok::Other("_Atomic".into())));
        assert_eq!(keyword("size_t"), None);
        assert_eq!(punct("<<="), Tok::ShlAssign);
        assert_eq!(punct("..."), Tok::Ellipsis);
        assert_eq!(punct("#"), Tok::Other("#".into()));
    }
}
