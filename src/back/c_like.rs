//! The printer shared by the C-family kernel back ends (OpenCL C and CUDA C++).
//!
//! A [`Dialect`] supplies the target's spelling of the few things that differ: scalar types (per
//! use: parameter, global or local buffer element, private variable), integer literal suffixes,
//! thread built-ins, the barrier, math functions, non-finite floats and reserved identifiers.
//! [`Printer`] does the rest: expressions with minimal parentheses, statements, indentation.
//!
//! The printer reproduces C99 semantics in the target language. Where the same text would mean
//! something else there, it spells the C meaning out, which needs the C type of expressions: the
//! printer keeps a scope of declared names (parameters, local arrays, declarations) and infers
//! types with C's promotions and usual arithmetic conversions. That is spelling, not deciding:
//! - math function arguments are converted to the C99 parameter type when their type differs
//!   (`sqrtf(i)` → `sqrt((float)i)` in OpenCL, where `sqrt(int)` is ambiguous; `sqrt(x)` with a
//!   `float x` → `sqrt((double)x)` in CUDA, where C++ would pick the `float` overload); literal
//!   arguments are converted in place (`powf(x, 2)` → `pow(x, 2.0f)`);
//! - a result whose target type differs from C99's is cast back (`abs(i)` → `(int)abs(i)` in
//!   OpenCL, whose `abs` returns `uint`);
//! - a store to a `_Bool` object that the target keeps in a `uchar` is normalised
//!   (`B[i] = (bool)(x);`);
//! - identifiers that are keywords or reserved names of the target (`local`, `new`, `threadIdx`,
//!   or the name of a function the printer calls) are spelled `accshare_id_<name>`.
//!
//! Parentheses are minimal for C's grammar, plus the ones compilers warn about: operands of
//! different operators among `&`, `^`, `|`, `&&`, `||` are parenthesised, as are arithmetic and
//! comparison operands of bitwise operators, arithmetic operands of shifts, comparisons inside
//! comparisons, and a conditional in the condition or middle operand of another.

use std::borrow::Cow;

use crate::front::ast::{BinOp, Scalar, UnOp};
use crate::kernel::{ArrayRef, Builtin, KExpr, KParamKind, KStmt, Kernel, LValue};

/// Where a scalar type is spelled; OpenCL spells some types differently per use (`bool` cannot be
/// a kernel parameter or live in a buffer).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeUse {
    /// A by-value kernel parameter.
    Param,
    /// The element type of a global buffer.
    Global,
    /// The element type of a local (shared) array.
    Local,
    /// Private variables and arrays, and casts.
    Private,
}

/// How a target spells a C99 math function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MathSpelling {
    pub name: String,
    /// Cast the result to this type (the target's function returns another type than C99's).
    pub ret_cast: Option<Scalar>,
}

/// The spelling of one target language.
pub trait Dialect {
    /// The type name of `s` at a use.
    fn scalar(&self, s: Scalar, at: TypeUse) -> &'static str;
    /// The suffix of an integer literal of a 64-bit type (`L`, `UL`, `LL`, `ULL`).
    fn long_suffix(&self, s: Scalar) -> &'static str;
    /// A thread built-in as an expression of type `int` at cast (unary) precedence, e.g.
    /// `(int)get_local_id(0)` or `(int)threadIdx.x`.
    fn builtin(&self, b: Builtin) -> String;
    /// The barrier statement, with its semicolon.
    fn barrier(&self) -> &'static str;
    /// The target's spelling of the known C99 math function `sig`; `None` if it has none (the
    /// call is then printed as written).
    fn math(&self, sig: &MathSig) -> Option<MathSpelling>;
    /// A non-finite value (`v` is infinite or NaN) as an expression, and its precedence
    /// ([`PREC_PRIMARY`] or [`PREC_UNARY`]).
    fn non_finite(&self, v: f64, single: bool) -> (String, u8);
    /// True if `name` cannot be used as a variable name in the target.
    fn is_reserved(&self, name: &str) -> bool;
}

// Precedence levels of C (higher binds tighter).
pub const PREC_COND: u8 = 3;
pub const PREC_LOR: u8 = 4;
pub const PREC_LAND: u8 = 5;
pub const PREC_BOR: u8 = 6;
pub const PREC_BXOR: u8 = 7;
pub const PREC_BAND: u8 = 8;
pub const PREC_EQ: u8 = 9;
pub const PREC_REL: u8 = 10;
pub const PREC_SHIFT: u8 = 11;
pub const PREC_ADD: u8 = 12;
pub const PREC_MUL: u8 = 13;
pub const PREC_UNARY: u8 = 15;
pub const PREC_PRIMARY: u8 = 16;

pub fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => PREC_MUL,
        BinOp::Add | BinOp::Sub => PREC_ADD,
        BinOp::Shl | BinOp::Shr => PREC_SHIFT,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => PREC_REL,
        BinOp::Eq | BinOp::Ne => PREC_EQ,
        BinOp::BitAnd => PREC_BAND,
        BinOp::BitXor => PREC_BXOR,
        BinOp::BitOr => PREC_BOR,
        BinOp::LogAnd => PREC_LAND,
        BinOp::LogOr => PREC_LOR,
    }
}

fn is_arith(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Add | BinOp::Sub
    )
}

fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::Shr)
}

fn is_cmp(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

fn is_bitwise(op: BinOp) -> bool {
    matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
}

fn is_logical(op: BinOp) -> bool {
    matches!(op, BinOp::LogAnd | BinOp::LogOr)
}

/// Parentheses C does not need but compilers warn about (or readers trip over).
fn extra_parens(parent: BinOp, child: BinOp) -> bool {
    if (is_bitwise(parent) || is_logical(parent))
        && (is_bitwise(child) || is_logical(child))
        && parent != child
    {
        return true;
    }
    if is_bitwise(parent) && (is_arith(child) || is_shift(child) || is_cmp(child)) {
        return true;
    }
    if is_shift(parent) && is_arith(child) {
        return true;
    }
    is_cmp(parent) && is_cmp(child)
}

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
fn int_value(v: i64, ty: Scalar) -> i128 {
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
// C99 math functions
// ---------------------------------------------------------------------------------------------

/// A known C99 math function (or the integer `min`/`max` the lowering uses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MathSig {
    /// The C99 name as written (`sqrtf`).
    pub c99: String,
    /// The name without the `f` of the float variant (`sqrt`).
    pub base: String,
    /// Parameter types; `None` for `min`/`max`, whose arguments take their common type.
    pub args: Option<Vec<Scalar>>,
    /// The arity (2 for `min`/`max`).
    pub arity: usize,
    /// The result type; `None` for `min`/`max` (the common type).
    pub ret: Option<Scalar>,
}

pub const REAL1: &[&str] = &[
    "acos",
    "asin",
    "atan",
    "cos",
    "sin",
    "tan",
    "acosh",
    "asinh",
    "atanh",
    "cosh",
    "sinh",
    "tanh",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "logb",
    "cbrt",
    "fabs",
    "sqrt",
    "erf",
    "erfc",
    "lgamma",
    "tgamma",
    "ceil",
    "floor",
    "nearbyint",
    "rint",
    "round",
    "trunc",
];

pub const REAL2: &[&str] = &[
    "atan2",
    "pow",
    "hypot",
    "fmod",
    "remainder",
    "copysign",
    "nextafter",
    "fdim",
    "fmax",
    "fmin",
];

/// The signature of a C99 math function, by name.
pub fn c99_math(name: &str) -> Option<MathSig> {
    let sig = |base: &str, args: Vec<Scalar>, ret: Scalar| MathSig {
        c99: name.to_string(),
        base: base.to_string(),
        arity: args.len(),
        args: Some(args),
        ret: Some(ret),
    };
    match name {
        "abs" => return Some(sig(name, vec![Scalar::Int], Scalar::Int)),
        "labs" => return Some(sig(name, vec![Scalar::Long], Scalar::Long)),
        "llabs" => return Some(sig(name, vec![Scalar::LongLong], Scalar::LongLong)),
        "min" | "max" => {
            return Some(MathSig {
                c99: name.to_string(),
                base: name.to_string(),
                args: None,
                arity: 2,
                ret: None,
            })
        }
        _ => {}
    }
    let known = |b: &str| {
        REAL1.contains(&b)
            || REAL2.contains(&b)
            || matches!(
                b,
                "fma"
                    | "ldexp"
                    | "scalbn"
                    | "scalbln"
                    | "ilogb"
                    | "lrint"
                    | "lround"
                    | "llrint"
                    | "llround"
            )
    };
    let (base, t) = match name.strip_suffix('f') {
        Some(b) if known(b) => (b, Scalar::Float),
        _ if known(name) => (name, Scalar::Double),
        _ => return None,
    };
    Some(if REAL1.contains(&base) {
        sig(base, vec![t], t)
    } else if REAL2.contains(&base) {
        sig(base, vec![t, t], t)
    } else {
        match base {
            "fma" => sig(base, vec![t, t, t], t),
            "ldexp" | "scalbn" => sig(base, vec![t, Scalar::Int], t),
            "scalbln" => sig(base, vec![t, Scalar::Long], t),
            "ilogb" => sig(base, vec![t], Scalar::Int),
            "lrint" | "lround" => sig(base, vec![t], Scalar::Long),
            _ => sig(base, vec![t], Scalar::LongLong), // llrint, llround
        }
    })
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

// ---------------------------------------------------------------------------------------------
// The printer
// ---------------------------------------------------------------------------------------------

/// What the printer knows about a name in scope.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sym {
    pub ty: Scalar,
    pub array: bool,
    /// Where its type is spelled (decides how `_Bool` is stored).
    pub at: TypeUse,
}

pub struct Printer<'d> {
    d: &'d dyn Dialect,
    out: String,
    depth: usize,
    scopes: Vec<Vec<(String, Sym)>>,
}

impl<'d> Printer<'d> {
    pub fn new(d: &'d dyn Dialect) -> Self {
        Printer {
            d,
            out: String::new(),
            depth: 0,
            scopes: vec![Vec::new()],
        }
    }

    /// A printer with the kernel's parameters and local arrays in scope, indented one level.
    pub fn for_kernel(d: &'d dyn Dialect, k: &Kernel) -> Self {
        let mut p = Printer::new(d);
        for prm in &k.params {
            let sym = match &prm.kind {
                KParamKind::Buffer { elem, .. } => Sym {
                    ty: *elem,
                    array: true,
                    at: TypeUse::Global,
                },
                KParamKind::Scalar(t) => Sym {
                    ty: *t,
                    array: false,
                    at: TypeUse::Param,
                },
            };
            p.declare(&prm.name, sym);
        }
        for l in &k.locals {
            p.declare(
                &l.name,
                Sym {
                    ty: l.elem,
                    array: true,
                    at: TypeUse::Local,
                },
            );
        }
        p.depth = 1;
        p
    }

    pub fn declare(&mut self, name: &str, sym: Sym) {
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), sym));
        }
    }

    fn lookup(&self, name: &str) -> Option<Sym> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// The text printed so far.
    pub fn finish(self) -> String {
        self.out
    }

    /// Appends one line at the current indentation.
    pub fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A name as the target spells it.
    pub fn ident<'a>(&self, name: &'a str) -> Cow<'a, str> {
        spell_ident(self.d, name)
    }

    // ----- types ---------------------------------------------------------------------------

    /// The C type of `e`, after integer promotion; `None` if unknown.
    pub fn type_of(&self, e: &KExpr) -> Option<Scalar> {
        match e {
            KExpr::Var(n) => self.lookup(n).map(|s| promote(s.ty)),
            KExpr::Int(_, t) => Some(promote(*t)),
            KExpr::Float(_, single) => Some(if *single {
                Scalar::Float
            } else {
                Scalar::Double
            }),
            KExpr::Load(r) => self.lookup(&r.array).map(|s| promote(s.ty)),
            KExpr::Unary(UnOp::Not, _) => Some(Scalar::Int),
            KExpr::Unary(UnOp::Neg | UnOp::Plus | UnOp::BitNot, a) => self.type_of(a),
            KExpr::Unary(UnOp::Deref | UnOp::AddrOf, _) => None,
            KExpr::Binary(op, a, b) => {
                if is_cmp(*op) || is_logical(*op) {
                    Some(Scalar::Int)
                } else if is_shift(*op) {
                    self.type_of(a)
                } else {
                    Some(usual(self.type_of(a)?, self.type_of(b)?))
                }
            }
            KExpr::Cond(_, a, b) => Some(usual(self.type_of(a)?, self.type_of(b)?)),
            KExpr::Cast(t, _) => Some(promote(*t)),
            KExpr::Call(f, args) => {
                let sig = c99_math(f)?;
                match sig.ret {
                    Some(t) => Some(t),
                    None => self.common_type(args),
                }
            }
            KExpr::Builtin(_) => Some(Scalar::Int),
        }
    }

    fn common_type(&self, args: &[KExpr]) -> Option<Scalar> {
        let mut t: Option<Scalar> = None;
        for a in args {
            let at = self.type_of(a)?;
            t = Some(match t {
                None => at,
                Some(t) => usual(t, at),
            });
        }
        t
    }

    /// `e` converted to `to` the way C converts a function argument: unchanged if it already has
    /// that type, literals converted in place, otherwise a cast.
    fn convert(&self, e: &KExpr, to: Scalar) -> KExpr {
        if self.type_of(e) == Some(promote(to)) && to == promote(to) {
            return e.clone();
        }
        match e {
            KExpr::Int(v, t) if !t.is_float() => {
                let n = int_value(*v, *t);
                if to.is_float() {
                    let limit: i128 = if to == Scalar::Float {
                        1 << 24
                    } else {
                        1 << 53
                    };
                    if n.abs() <= limit {
                        return KExpr::Float(n as f64, to == Scalar::Float);
                    }
                } else if to != Scalar::Bool {
                    return KExpr::Int(int_value(n as i64, to) as i64, to);
                }
            }
            KExpr::Float(v, _) if to.is_float() => {
                let v = if to == Scalar::Float {
                    f64::from(*v as f32)
                } else {
                    *v
                };
                return KExpr::Float(v, to == Scalar::Float);
            }
            _ => {}
        }
        KExpr::Cast(to, Box::new(e.clone()))
    }

    // ----- expressions ---------------------------------------------------------------------

    /// `e` as text, with minimal parentheses.
    pub fn expr(&self, e: &KExpr) -> String {
        self.expr_prec(e).0
    }

    /// `e` as text and its precedence.
    pub fn expr_prec(&self, e: &KExpr) -> (String, u8) {
        match e {
            KExpr::Var(n) => (self.ident(n).into_owned(), PREC_PRIMARY),
            KExpr::Int(v, t) => self.int_lit(*v, *t),
            KExpr::Float(v, single) => self.float_lit(*v, *single),
            KExpr::Load(r) => (self.array_ref(r), PREC_PRIMARY),
            KExpr::Unary(op, a) => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Deref => "*",
                    UnOp::AddrOf => "&",
                };
                let (t, p) = self.expr_prec(a);
                // `- -x` must not become `--x` (nor `& &x` `&&x`).
                let glue =
                    matches!(op, UnOp::Neg | UnOp::Plus | UnOp::AddrOf) && t.starts_with(sym);
                let t = if p < PREC_UNARY || glue {
                    format!("({t})")
                } else {
                    t
                };
                (format!("{sym}{t}"), PREC_UNARY)
            }
            KExpr::Binary(op, a, b) => {
                let p = binop_prec(*op);
                let (lt, lp) = self.expr_prec(a);
                let (rt, rp) = self.expr_prec(b);
                let extra =
                    |x: &KExpr| matches!(x, KExpr::Binary(c, _, _) if extra_parens(*op, *c));
                let lt = paren_if(lt, lp < p || extra(a));
                let rt = paren_if(rt, rp <= p || extra(b));
                (format!("{lt} {} {rt}", op.c_op()), p)
            }
            KExpr::Cond(c, a, b) => {
                let (ct, cp) = self.expr_prec(c);
                let (at, ap) = self.expr_prec(a);
                let (bt, bp) = self.expr_prec(b);
                let ct = paren_if(ct, cp <= PREC_COND);
                let at = paren_if(at, ap <= PREC_COND);
                let bt = paren_if(bt, bp < PREC_COND);
                (format!("{ct} ? {at} : {bt}"), PREC_COND)
            }
            KExpr::Cast(t, a) => {
                let (at, ap) = self.expr_prec(a);
                let at = paren_if(at, ap < PREC_UNARY);
                (
                    format!("({}){at}", self.d.scalar(*t, TypeUse::Private)),
                    PREC_UNARY,
                )
            }
            KExpr::Call(f, args) => self.call(f, args),
            KExpr::Builtin(b) => (self.d.builtin(*b), PREC_UNARY),
        }
    }

    fn array_ref(&self, r: &ArrayRef) -> String {
        format!("{}[{}]", self.ident(&r.array), self.expr(&r.index))
    }

    fn int_lit(&self, v: i64, ty: Scalar) -> (String, u8) {
        if ty.is_float() {
            return self.float_lit(v as f64, ty == Scalar::Float);
        }
        let n = int_value(v, ty);
        // The value the IR holds (a bit pattern for unsigned 64-bit types).
        let raw = if !ty.is_signed() && ty.size() == 8 {
            i128::from(v as u64)
        } else {
            i128::from(v)
        };
        if ty != Scalar::Bool && n != raw {
            // Out of range for its type: C converts it; make that visible.
            let wide = if i32::try_from(v).is_ok() {
                Scalar::Int
            } else {
                Scalar::Long
            };
            let (t, _) = self.int_lit(v, wide);
            let name = self.d.scalar(ty, TypeUse::Private);
            return (format!("({name}){t}"), PREC_UNARY);
        }
        let (suffix, min) = match ty {
            Scalar::UInt => ("u", None),
            Scalar::Long | Scalar::LongLong => (self.d.long_suffix(ty), Some(i128::from(i64::MIN))),
            Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => (self.d.long_suffix(ty), None),
            // `int` and the types that promote to it.
            _ => ("", Some(i128::from(i32::MIN))),
        };
        if Some(n) == min {
            // `-2147483648` is `-(2147483648)`, a wider type: spell the minimum as an expression.
            return (format!("(-{}{suffix} - 1)", -(n + 1)), PREC_PRIMARY);
        }
        let p = if n < 0 { PREC_UNARY } else { PREC_PRIMARY };
        (format!("{n}{suffix}"), p)
    }

    fn float_lit(&self, v: f64, single: bool) -> (String, u8) {
        let v = if single { f64::from(v as f32) } else { v };
        if !v.is_finite() {
            return self.d.non_finite(v, single);
        }
        let mut s = float_digits(v, single);
        if single {
            s.push('f');
        }
        let p = if s.starts_with('-') {
            PREC_UNARY
        } else {
            PREC_PRIMARY
        };
        (s, p)
    }

    fn call(&self, f: &str, args: &[KExpr]) -> (String, u8) {
        let plain = |name: &str, args: &[KExpr]| {
            let a: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
            format!("{name}({})", a.join(", "))
        };
        let Some(sig) = c99_math(f).filter(|s| s.arity == args.len()) else {
            return (plain(f, args), PREC_PRIMARY);
        };
        let Some(sp) = self.d.math(&sig) else {
            return (plain(f, args), PREC_PRIMARY);
        };
        let conv: Vec<KExpr> = match &sig.args {
            Some(tys) => args
                .iter()
                .zip(tys)
                .map(|(a, t)| self.convert(a, *t))
                .collect(),
            None => match self.common_type(args) {
                Some(t) => args.iter().map(|a| self.convert(a, t)).collect(),
                None => args.to_vec(),
            },
        };
        let text = plain(&sp.name, &conv);
        match sp.ret_cast {
            Some(t) => (
                format!("({}){text}", self.d.scalar(t, TypeUse::Private)),
                PREC_UNARY,
            ),
            None => (text, PREC_PRIMARY),
        }
    }

    // ----- statements ----------------------------------------------------------------------

    pub fn stmts(&mut self, ss: &[KStmt]) {
        for s in ss {
            self.stmt(s);
        }
    }

    /// Statements in a `{ … }` whose opening line the caller printed.
    fn body(&mut self, ss: &[KStmt]) {
        self.depth += 1;
        self.push_scope();
        self.stmts(ss);
        self.pop_scope();
        self.depth -= 1;
    }

    /// A declaration without the semicolon; declares the name.
    fn decl(&mut self, name: &str, ty: Scalar, len: Option<u32>, init: Option<&KExpr>) -> String {
        let t = self.d.scalar(ty, TypeUse::Private);
        let n = self.ident(name).into_owned();
        let text = match (len, init) {
            (Some(len), _) => format!("{t} {n}[{len}]"),
            (None, Some(e)) => format!("{t} {n} = {}", self.expr(e)),
            (None, None) => format!("{t} {n}"),
        };
        self.declare(
            name,
            Sym {
                ty,
                array: len.is_some(),
                at: TypeUse::Private,
            },
        );
        text
    }

    /// An assignment as an expression (no semicolon).
    fn assign(&self, target: &LValue, op: Option<BinOp>, value: &KExpr) -> String {
        let (t, sym) = match target {
            LValue::Var(n) => (self.ident(n).into_owned(), self.lookup(n)),
            LValue::Elem(r) => (self.array_ref(r), self.lookup(&r.array)),
        };
        // `_Bool` kept in another type (OpenCL `uchar` buffers): normalise what is stored.
        let normalise = sym.is_some_and(|s| {
            s.ty == Scalar::Bool
                && self.d.scalar(Scalar::Bool, s.at)
                    != self.d.scalar(Scalar::Bool, TypeUse::Private)
        });
        let compound = op.filter(|o| !is_cmp(*o) && !is_logical(*o));
        let current = || match target {
            LValue::Var(n) => KExpr::Var(n.clone()),
            LValue::Elem(r) => KExpr::Load(r.clone()),
        };
        match (op, compound, normalise) {
            (None, _, false) => format!("{t} = {}", self.expr(value)),
            (Some(o), Some(_), false) => format!("{t} {}= {}", o.c_op(), self.expr(value)),
            (None, _, true) => {
                let v = KExpr::Cast(Scalar::Bool, Box::new(value.clone()));
                format!("{t} = {}", self.expr(&v))
            }
            (Some(o), _, norm) => {
                let mut v = KExpr::Binary(o, Box::new(current()), Box::new(value.clone()));
                if norm {
                    v = KExpr::Cast(Scalar::Bool, Box::new(v));
                }
                format!("{t} = {}", self.expr(&v))
            }
        }
    }

    /// A statement that can appear in a `for` header's step, as an expression.
    fn step_expr(&self, s: &KStmt) -> Option<String> {
        match s {
            KStmt::Assign { target, op, value } => Some(self.assign(target, *op, value)),
            KStmt::Expr(e) => Some(self.expr(e)),
            _ => None,
        }
    }

    pub fn stmt(&mut self, s: &KStmt) {
        match s {
            KStmt::Decl {
                name,
                ty,
                len,
                init,
            } => {
                let d = self.decl(name, *ty, *len, init.as_ref());
                self.line(&format!("{d};"));
            }
            KStmt::Assign { target, op, value } => {
                let a = self.assign(target, *op, value);
                self.line(&format!("{a};"));
            }
            KStmt::Expr(e) => {
                let e = self.expr(e);
                self.line(&format!("{e};"));
            }
            KStmt::If { cond, then, els } => {
                let c = self.expr(cond);
                self.line(&format!("if ({c}) {{"));
                self.body(then);
                let mut els = els;
                loop {
                    match els.as_slice() {
                        [] => break,
                        [KStmt::If {
                            cond,
                            then,
                            els: e2,
                        }] => {
                            let c = self.expr(cond);
                            self.line(&format!("}} else if ({c}) {{"));
                            self.body(then);
                            els = e2;
                        }
                        other => {
                            self.line("} else {");
                            self.body(other);
                            break;
                        }
                    }
                }
                self.line("}");
            }
            KStmt::For {
                init,
                cond,
                step,
                body,
            } => self.for_loop(init, cond.as_ref(), step, body),
            KStmt::While { cond, body } => {
                let c = self.expr(cond);
                self.line(&format!("while ({c}) {{"));
                self.body(body);
                self.line("}");
            }
            KStmt::DoWhile { body, cond } => {
                self.line("do {");
                self.body(body);
                let c = self.expr(cond);
                self.line(&format!("}} while ({c});"));
            }
            KStmt::Break => self.line("break;"),
            KStmt::Continue => self.line("continue;"),
            KStmt::Barrier => {
                let b = self.d.barrier();
                self.line(b);
            }
            KStmt::Block(b) => {
                self.line("{");
                self.body(b);
                self.line("}");
            }
            KStmt::Comment(c) => {
                for l in comment_lines(c) {
                    self.line(&l);
                }
            }
        }
    }

    fn for_loop(&mut self, init: &[KStmt], cond: Option<&KExpr>, step: &[KStmt], body: &[KStmt]) {
        // The init list fits in the header if it is one declaration (several declarators of one
        // scalar type) or a list of expressions; otherwise it goes before the loop, in a block
        // that keeps its scope.
        let decl_ty = |s: &KStmt| match s {
            KStmt::Decl { ty, len: None, .. } => Some(*ty),
            _ => None,
        };
        let all_decls = init
            .first()
            .and_then(decl_ty)
            .is_some_and(|t| init.iter().all(|s| decl_ty(s) == Some(t)));
        let all_exprs = init
            .iter()
            .all(|s| matches!(s, KStmt::Assign { .. } | KStmt::Expr(_)));
        let hoist = !all_decls && !all_exprs;
        self.push_scope();
        if hoist {
            self.line("{");
            self.depth += 1;
            self.stmts(init);
        }
        let init_text = if hoist {
            String::new()
        } else if all_decls {
            let mut parts = Vec::new();
            let mut ty_name = "";
            for s in init {
                if let KStmt::Decl {
                    name,
                    ty,
                    len,
                    init,
                } = s
                {
                    ty_name = self.d.scalar(*ty, TypeUse::Private);
                    let d = self.decl(name, *ty, *len, init.as_ref());
                    // Drop the type name from every declarator.
                    parts.push(d[ty_name.len()..].trim_start().to_string());
                }
            }
            format!("{ty_name} {}", parts.join(", "))
        } else {
            let parts: Vec<String> = init.iter().filter_map(|s| self.step_expr(s)).collect();
            parts.join(", ")
        };
        let cond_text = cond.map(|c| self.expr(c)).unwrap_or_default();
        let steps: Vec<Option<String>> = step.iter().map(|s| self.step_expr(s)).collect();
        if steps.iter().any(Option::is_none) {
            // Not expressible in C: fail loudly at compile time rather than print wrong code.
            self.out
                .push_str("#error \"accshare: a for-loop step that is not an expression\"\n");
        }
        let step_text = steps.into_iter().flatten().collect::<Vec<_>>().join(", ");
        let header = format!("for ({init_text}; {cond_text}; {step_text}) {{")
            .replace(" ;", ";")
            .replace("; )", ";)");
        self.line(&header);
        self.body(body);
        self.line("}");
        if hoist {
            self.depth -= 1;
            self.line("}");
        }
        self.pop_scope();
    }
}

fn paren_if(s: String, cond: bool) -> String {
    if cond {
        format!("({s})")
    } else {
        s
    }
}

/// `name` as the target spells it: reserved names become `accshare_id_<name>`.
pub fn spell_ident<'a>(d: &dyn Dialect, name: &'a str) -> Cow<'a, str> {
    if d.is_reserved(name) {
        Cow::Owned(format!("accshare_id_{name}"))
    } else {
        Cow::Borrowed(name)
    }
}

/// Keywords of C++ that are not keywords of C99 (a C variable may be called `new` or `class`).
pub const CPP_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "bitand",
    "bitor",
    "bool",
    "catch",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "delete",
    "dynamic_cast",
    "explicit",
    "export",
    "false",
    "friend",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "reinterpret_cast",
    "requires",
    "static_assert",
    "static_cast",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typeid",
    "typename",
    "using",
    "virtual",
    "wchar_t",
    "xor",
    "xor_eq",
];

/// The signature and local-array lines are the back end's; this prints a kernel's body.
pub fn kernel_body(d: &dyn Dialect, k: &Kernel) -> String {
    let mut p = Printer::for_kernel(d, k);
    p.stmts(&k.body);
    p.finish()
}

/// `head(p1, p2, …) {` on one line if it fits in 100 columns, else one parameter per line.
/// `empty` is the parameter list of a kernel without parameters (`void` in C, nothing in C++).
pub fn signature(head: &str, params: &[String], empty: &str) -> String {
    let one = format!("{head}({}) {{", params.join(", "));
    if params.is_empty() {
        return format!("{head}({empty}) {{\n");
    }
    if one.len() <= 100 {
        return one + "\n";
    }
    let mut s = format!("{head}(\n");
    for (i, p) in params.iter().enumerate() {
        let sep = if i + 1 < params.len() { "," } else { "" };
        s.push_str(&format!("    {p}{sep}\n"));
    }
    s.push_str(") {\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back::cuda::Cuda;
    use crate::back::opencl::OpenCl;
    use crate::back::samples::*;
    use crate::kernel::Space;

    /// A printer with `a b c d i j: int`, `u: unsigned`, `l: long`, `x y: float`, `z: double`,
    /// `A: float[]` in scope.
    fn env(d: &dyn Dialect) -> Printer<'_> {
        let mut p = Printer::new(d);
        let s = |ty| Sym {
            ty,
            array: false,
            at: TypeUse::Private,
        };
        for n in ["a", "b", "c", "d", "i", "j"] {
            p.declare(n, s(Scalar::Int));
        }
        p.declare("u", s(Scalar::UInt));
        p.declare("l", s(Scalar::Long));
        p.declare("x", s(Scalar::Float));
        p.declare("y", s(Scalar::Float));
        p.declare("z", s(Scalar::Double));
        p.declare(
            "A",
            Sym {
                ty: Scalar::Float,
                array: true,
                at: TypeUse::Global,
            },
        );
        p
    }

    fn cl(e: &KExpr) -> String {
        env(&OpenCl).expr(e)
    }

    fn cu(e: &KExpr) -> String {
        env(&Cuda).expr(e)
    }

    fn both(e: &KExpr) -> String {
        let (a, b) = (cl(e), cu(e));
        assert_eq!(a, b, "the dialects differ");
        a
    }

    #[test]
    fn arithmetic_precedence_and_associativity() {
        let (a, b, c) = (|| var("a"), || var("b"), || var("c"));
        assert_eq!(both(&mul(add(a(), b()), c())), "(a + b) * c");
        assert_eq!(both(&add(a(), mul(b(), c()))), "a + b * c");
        assert_eq!(both(&add(mul(a(), b()), c())), "a * b + c");
        let sub = |x, y| bin(BinOp::Sub, x, y);
        assert_eq!(both(&sub(sub(a(), b()), c())), "a - b - c");
        assert_eq!(both(&sub(a(), sub(b(), c()))), "a - (b - c)");
        assert_eq!(both(&add(a(), add(b(), c()))), "a + (b + c)");
        assert_eq!(both(&bin(BinOp::Div, a(), mul(b(), c()))), "a / (b * c)");
        assert_eq!(both(&bin(BinOp::Rem, mul(a(), b()), c())), "a * b % c");
    }

    #[test]
    fn unary_operators_never_glue_into_other_tokens() {
        assert_eq!(both(&un(UnOp::Neg, int(-1))), "-(-1)");
        assert_eq!(both(&un(UnOp::Neg, un(UnOp::Neg, var("a")))), "-(-a)");
        assert_eq!(both(&un(UnOp::Plus, un(UnOp::Plus, var("a")))), "+(+a)");
        assert_eq!(both(&un(UnOp::Neg, un(UnOp::BitNot, var("a")))), "-~a");
        assert_eq!(both(&bin(BinOp::Sub, var("a"), int(-1))), "a - -1");
        assert_eq!(both(&un(UnOp::Neg, add(var("a"), var("b")))), "-(a + b)");
        assert_eq!(both(&un(UnOp::Not, lt(var("a"), var("b")))), "!(a < b)");
        assert_eq!(both(&mul(int(-2), var("a"))), "-2 * a");
        assert_eq!(both(&un(UnOp::Neg, flt(-1.5))), "-(-1.5f)");
        assert_eq!(
            both(&un(UnOp::Neg, int(i32::MIN as i64))),
            "-(-2147483647 - 1)"
        );
    }

    #[test]
    fn casts() {
        let (a, b) = (|| var("a"), || var("b"));
        assert_eq!(both(&cast(Scalar::Float, add(a(), b()))), "(float)(a + b)");
        assert_eq!(both(&add(cast(Scalar::Float, a()), b())), "(float)a + b");
        assert_eq!(both(&cast(Scalar::Int, un(UnOp::Neg, a()))), "(int)-a");
        assert_eq!(
            both(&cast(Scalar::Float, cast(Scalar::Int, var("z")))),
            "(float)(int)z"
        );
        assert_eq!(
            both(&cast(Scalar::Int, cond(a(), b(), a()))),
            "(int)(a ? b : a)"
        );
        assert_eq!(cl(&cast(Scalar::UChar, a())), "(uchar)a");
        assert_eq!(cu(&cast(Scalar::UChar, a())), "(unsigned char)a");
        assert_eq!(cl(&cast(Scalar::SizeT, a())), "(ulong)a");
        assert_eq!(cu(&cast(Scalar::SizeT, a())), "(unsigned long long)a");
        assert_eq!(cl(&cast(Scalar::Bool, a())), "(bool)a");
        assert_eq!(cl(&cast(Scalar::LongLong, a())), "(long)a");
        assert_eq!(cu(&cast(Scalar::LongLong, a())), "(long long)a");
    }

    #[test]
    fn conditionals_nest_readably() {
        let v = |n: &str| var(n);
        let c = |a, b, e| cond(a, b, e);
        assert_eq!(both(&c(v("a"), v("b"), v("c"))), "a ? b : c");
        assert_eq!(
            both(&c(v("a"), v("b"), c(v("c"), v("d"), v("i")))),
            "a ? b : c ? d : i"
        );
        assert_eq!(
            both(&c(v("a"), c(v("b"), v("c"), v("d")), v("i"))),
            "a ? (b ? c : d) : i"
        );
        assert_eq!(
            both(&c(c(v("a"), v("b"), v("c")), v("d"), v("i"))),
            "(a ? b : c) ? d : i"
        );
        assert_eq!(
            both(&add(c(v("a"), v("b"), v("c")), int(1))),
            "(a ? b : c) + 1"
        );
        assert_eq!(
            both(&c(bin(BinOp::LogOr, v("a"), v("b")), v("c"), v("d"))),
            "a || b ? c : d"
        );
    }

    #[test]
    fn shifts_comparisons_and_bitwise_mixes_get_parentheses() {
        let (a, b, c) = (|| var("a"), || var("b"), || var("c"));
        assert_eq!(both(&lt(bin(BinOp::Shl, a(), int(1)), b())), "a << 1 < b");
        assert_eq!(both(&bin(BinOp::Shl, a(), lt(b(), c()))), "a << (b < c)");
        assert_eq!(
            both(&bin(BinOp::Shl, add(a(), int(1)), int(2))),
            "(a + 1) << 2"
        );
        assert_eq!(both(&bin(BinOp::Shr, a(), mul(b(), c()))), "a >> (b * c)");
        assert_eq!(
            both(&bin(BinOp::Shl, bin(BinOp::Shl, a(), b()), c())),
            "a << b << c"
        );
        let band = |x, y| bin(BinOp::BitAnd, x, y);
        let bor = |x, y| bin(BinOp::BitOr, x, y);
        let bxor = |x, y| bin(BinOp::BitXor, x, y);
        assert_eq!(both(&bor(band(a(), b()), c())), "(a & b) | c");
        assert_eq!(both(&band(band(a(), b()), c())), "a & b & c");
        assert_eq!(both(&bxor(a(), bor(b(), c()))), "a ^ (b | c)");
        assert_eq!(both(&band(a(), add(b(), c()))), "a & (b + c)");
        assert_eq!(
            both(&bin(BinOp::Eq, band(a(), int(1)), int(0))),
            "(a & 1) == 0"
        );
        assert_eq!(both(&band(bin(BinOp::Eq, a(), b()), c())), "(a == b) & c");
        let or = |x, y| bin(BinOp::LogOr, x, y);
        assert_eq!(both(&or(and(a(), b()), c())), "(a && b) || c");
        assert_eq!(both(&and(or(a(), b()), c())), "(a || b) && c");
        assert_eq!(both(&or(or(a(), b()), c())), "a || b || c");
        assert_eq!(both(&and(bor(a(), b()), c())), "(a | b) && c");
        assert_eq!(both(&and(lt(a(), b()), lt(b(), c()))), "a < b && b < c");
        assert_eq!(
            both(&bin(BinOp::Eq, lt(a(), b()), lt(c(), a()))),
            "(a < b) == (c < a)"
        );
    }

    #[test]
    fn integer_literals_carry_their_type() {
        assert_eq!(both(&int(0)), "0");
        assert_eq!(both(&int(-5)), "-5");
        assert_eq!(both(&int(i32::MIN as i64)), "(-2147483647 - 1)");
        assert_eq!(both(&lit(4_000_000_000, Scalar::UInt)), "4000000000u");
        assert_eq!(both(&lit(5, Scalar::Long)), "5L");
        assert_eq!(
            both(&lit(i64::MIN, Scalar::Long)),
            "(-9223372036854775807L - 1)"
        );
        assert_eq!(cl(&lit(5, Scalar::LongLong)), "5L");
        assert_eq!(cu(&lit(5, Scalar::LongLong)), "5LL");
        assert_eq!(
            cu(&lit(i64::MIN, Scalar::LongLong)),
            "(-9223372036854775807LL - 1)"
        );
        assert_eq!(both(&lit(5, Scalar::ULong)), "5UL");
        assert_eq!(cl(&lit(-1, Scalar::ULongLong)), "18446744073709551615UL");
        assert_eq!(cu(&lit(-1, Scalar::ULongLong)), "18446744073709551615ULL");
        assert_eq!(cl(&lit(8, Scalar::SizeT)), "8UL");
        assert_eq!(cu(&lit(8, Scalar::SizeT)), "8ULL");
        // Types narrower than `int` are `int` after promotion; values wrap like a conversion.
        assert_eq!(both(&lit(7, Scalar::Bool)), "1");
        assert_eq!(both(&lit(-1, Scalar::Char)), "-1");
        assert_eq!(both(&lit(255, Scalar::UChar)), "255");
        // Out-of-range values are converted visibly.
        assert_eq!(cl(&lit(300, Scalar::UChar)), "(uchar)300");
        assert_eq!(cu(&lit(65535, Scalar::Short)), "(short)65535");
        assert_eq!(cl(&lit(5_000_000_000, Scalar::Int)), "(int)5000000000L");
        assert_eq!(cl(&lit(-1, Scalar::UInt)), "(uint)-1");
        assert_eq!(
            both(&add(var("a"), lit(5_000_000_000, Scalar::Int))),
            "a + (int)5000000000L"
        );
        assert_eq!(both(&lit(3, Scalar::Float)), "3.0f");
    }

    #[test]
    fn float_literals_are_shortest_round_trip_c_literals() {
        assert_eq!(both(&flt(1.0)), "1.0f");
        assert_eq!(both(&flt(0.1)), "0.1f");
        assert_eq!(both(&flt(1e-5)), "1e-5f");
        assert_eq!(both(&flt(-0.0)), "-0.0f");
        assert_eq!(both(&flt(16_777_217.0)), "16777216.0f");
        assert_eq!(both(&flt(3.4028234663852886e38)), "3.4028235e38f");
        assert_eq!(both(&dbl(3.0)), "3.0");
        assert_eq!(both(&dbl(0.1)), "0.1");
        assert_eq!(both(&dbl(1e300)), "1e300");
        assert_eq!(both(&dbl(1.5e-7)), "1.5e-7");
        assert_eq!(both(&dbl(1e16)), "1e16");
        assert_eq!(both(&dbl(123456789012345.6)), "123456789012345.6");
        assert_eq!(both(&dbl(5e-324)), "5e-324");
        for v in [
            0.1,
            1.0 / 3.0,
            2.5e-38,
            6.02214076e23,
            1e-45,
            0.0001,
            9999.999,
        ] {
            let s = float_digits(v, false);
            assert_eq!(s.parse::<f64>(), Ok(v), "{s}");
            let s = float_digits(v, true);
            assert_eq!(s.parse::<f32>(), Ok(v as f32), "{s}");
            assert!(s.contains(['.', 'e']), "{s}");
        }
    }

    #[test]
    fn non_finite_floats_use_no_inf_or_nan_text() {
        assert_eq!(cl(&flt(f64::INFINITY)), "INFINITY");
        assert_eq!(cl(&flt(f64::NEG_INFINITY)), "-INFINITY");
        assert_eq!(cl(&flt(f64::NAN)), "NAN");
        assert_eq!(cl(&dbl(f64::INFINITY)), "(double)INFINITY");
        assert_eq!(cl(&dbl(f64::NEG_INFINITY)), "-(double)INFINITY");
        assert_eq!(cl(&un(UnOp::Neg, flt(f64::NEG_INFINITY))), "-(-INFINITY)");
        assert_eq!(cu(&flt(f64::INFINITY)), "__int_as_float(0x7f800000)");
        assert_eq!(cu(&flt(f64::NEG_INFINITY)), "-__int_as_float(0x7f800000)");
        assert_eq!(cu(&flt(f64::NAN)), "__int_as_float(0x7fffffff)");
        assert_eq!(
            cu(&dbl(f64::NAN)),
            "__longlong_as_double(0x7ff8000000000000LL)"
        );
        assert_eq!(
            cu(&dbl(1e308 * 10.0)),
            "__longlong_as_double(0x7ff0000000000000LL)"
        );
        // A double too large for a float becomes an infinity when it is a `float` literal.
        assert_eq!(cl(&flt(1e300)), "INFINITY");
    }

    #[test]
    fn math_functions_in_opencl() {
        let (x, i) = (|| var("x"), || var("i"));
        assert_eq!(cl(&call("sqrtf", vec![x()])), "sqrt(x)");
        assert_eq!(cl(&call("sqrtf", vec![i()])), "sqrt((float)i)");
        assert_eq!(cl(&call("sqrt", vec![x()])), "sqrt((double)x)");
        assert_eq!(cl(&call("sqrt", vec![var("z")])), "sqrt(z)");
        assert_eq!(cl(&call("fabsf", vec![x()])), "fabs(x)");
        assert_eq!(cl(&call("fminf", vec![x(), var("y")])), "fmin(x, y)");
        assert_eq!(cl(&call("fmaxf", vec![x(), int(0)])), "fmax(x, 0.0f)");
        assert_eq!(cl(&call("powf", vec![x(), dbl(0.5)])), "pow(x, 0.5f)");
        assert_eq!(cl(&call("expf", vec![add(x(), i())])), "exp(x + i)");
        assert_eq!(cl(&call("erff", vec![x()])), "erf(x)");
        assert_eq!(cl(&call("erf", vec![var("z")])), "erf(z)");
        assert_eq!(cl(&call("nearbyintf", vec![x()])), "rint(x)");
        assert_eq!(cl(&call("ldexpf", vec![x(), var("l")])), "ldexp(x, (int)l)");
        assert_eq!(cl(&call("lrintf", vec![x()])), "(long)rint(x)");
        assert_eq!(cl(&call("abs", vec![i()])), "(int)abs(i)");
        assert_eq!(cl(&call("abs", vec![x()])), "(int)abs((int)x)");
        assert_eq!(cl(&call("labs", vec![i()])), "(long)abs((long)i)");
        assert_eq!(cl(&add(call("abs", vec![i()]), int(1))), "(int)abs(i) + 1");
        assert_eq!(cl(&call("min", vec![i(), var("j")])), "min(i, j)");
        assert_eq!(cl(&call("max", vec![i(), var("u")])), "max((uint)i, u)");
        assert_eq!(cl(&call("max", vec![i(), int(-1)])), "max(i, -1)");
        assert_eq!(cl(&call("max", vec![var("l"), int(1)])), "max(l, 1L)");
        // Unknown names and arities are printed as written.
        assert_eq!(cl(&call("my_fn", vec![x(), i()])), "my_fn(x, i)");
        assert_eq!(cl(&call("sqrtf", vec![x(), i()])), "sqrtf(x, i)");
        assert_eq!(cl(&call("scalblnf", vec![x(), i()])), "scalblnf(x, i)");
        // Arguments of unknown type are converted.
        assert_eq!(
            cl(&call("sinf", vec![var("unknown")])),
            "sin((float)unknown)"
        );
    }

    #[test]
    fn math_functions_in_cuda() {
        let (x, i) = (|| var("x"), || var("i"));
        assert_eq!(cu(&call("sqrtf", vec![x()])), "sqrtf(x)");
        assert_eq!(cu(&call("sqrt", vec![x()])), "sqrt((double)x)");
        assert_eq!(cu(&call("fminf", vec![x(), int(1)])), "fminf(x, 1.0f)");
        assert_eq!(cu(&call("fmin", vec![x(), var("z")])), "fmin((double)x, z)");
        assert_eq!(cu(&call("abs", vec![i()])), "abs(i)");
        assert_eq!(cu(&call("abs", vec![x()])), "abs((int)x)");
        assert_eq!(cu(&call("lrintf", vec![x()])), "lrintf(x)");
        assert_eq!(
            cu(&call("min", vec![i(), var("u")])),
            "min((unsigned int)i, u)"
        );
        assert_eq!(
            cu(&call("scalblnf", vec![x(), i()])),
            "scalblnf(x, (long)i)"
        );
        assert_eq!(
            cu(&call("min", vec![int(-1), var("u")])),
            "min(4294967295u, u)"
        );
        assert_eq!(
            cu(&call("llabs", vec![lit(-1, Scalar::ULong)])),
            "llabs(-1LL)"
        );
        assert_eq!(
            cl(&call("max", vec![var("l"), lit(-1, Scalar::ULong)])),
            "max((ulong)l, 18446744073709551615UL)"
        );
    }

    #[test]
    fn builtins_are_int_expressions() {
        let b = |b| KExpr::Builtin(b);
        assert_eq!(cl(&b(Builtin::LocalId(1))), "(int)get_local_id(1)");
        assert_eq!(cl(&b(Builtin::NumGroups(2))), "(int)get_num_groups(2)");
        assert_eq!(cl(&b(Builtin::LocalSize(0))), "(int)get_local_size(0)");
        assert_eq!(
            cl(&mul(b(Builtin::GroupId(0)), int(16))),
            "(int)get_group_id(0) * 16"
        );
        assert_eq!(cu(&b(Builtin::LocalId(0))), "(int)threadIdx.x");
        assert_eq!(cu(&b(Builtin::GroupId(1))), "(int)blockIdx.y");
        assert_eq!(cu(&b(Builtin::LocalSize(2))), "(int)blockDim.z");
        assert_eq!(cu(&b(Builtin::NumGroups(0))), "(int)gridDim.x");
        assert_eq!(
            cu(&b(Builtin::GlobalId(1))),
            "(int)(blockIdx.y * blockDim.y + threadIdx.y)"
        );
        assert_eq!(
            cu(&KExpr::Load(aref(
                "A",
                Space::Global,
                add(b(Builtin::GlobalId(0)), int(1))
            ))),
            "A[(int)(blockIdx.x * blockDim.x + threadIdx.x) + 1]"
        );
        assert_eq!(cu(&b(Builtin::LocalId(3))), "0");
        assert_eq!(cu(&b(Builtin::LocalSize(3))), "1");
        assert_eq!(
            cl(&call("sqrtf", vec![b(Builtin::LocalId(0))])),
            "sqrt((float)(int)get_local_id(0))"
        );
    }

    #[test]
    fn reserved_identifiers_are_renamed() {
        assert_eq!(cl(&var("local")), "accshare_id_local");
        assert_eq!(cl(&var("float4")), "accshare_id_float4");
        assert_eq!(cl(&var("M_PI")), "accshare_id_M_PI");
        assert_eq!(cl(&var("min")), "accshare_id_min");
        assert_eq!(cl(&var("sqrt")), "accshare_id_sqrt");
        assert_eq!(cl(&var("new")), "new");
        assert_eq!(cl(&var("float4x")), "float4x");
        assert_eq!(cu(&var("new")), "accshare_id_new");
        assert_eq!(cu(&var("threadIdx")), "accshare_id_threadIdx");
        assert_eq!(cu(&var("sqrtf")), "accshare_id_sqrtf");
        assert_eq!(cu(&var("local")), "local");
        assert_eq!(
            cu(&KExpr::Load(aref("class", Space::Global, var("this")))),
            "accshare_id_class[accshare_id_this]"
        );
    }

    #[test]
    fn comments_cannot_escape_their_line() {
        assert_eq!(
            comment_lines("a\r\nb\\\rc ??/\n"),
            vec!["// a", "// b\\ .", "// c ??/ .", "//"]
        );
    }

    #[test]
    fn usual_arithmetic_conversions() {
        use Scalar::*;
        assert_eq!(usual(Int, UInt), UInt);
        assert_eq!(usual(Long, UInt), Long);
        assert_eq!(usual(LongLong, ULong), ULongLong);
        assert_eq!(usual(Char, UChar), Int);
        assert_eq!(usual(SizeT, Int), SizeT);
        assert_eq!(usual(Float, Long), Float);
        assert_eq!(usual(Float, Double), Double);
        assert_eq!(usual(Bool, Short), Int);
    }

    fn print_stmts(d: &dyn Dialect, ss: &[KStmt]) -> String {
        let mut p = env(d);
        p.stmts(ss);
        p.finish()
    }

    #[test]
    fn for_headers_hoist_what_does_not_fit() {
        let mixed = KStmt::For {
            init: vec![
                decl("k", Scalar::Int, int(0)),
                decl("f", Scalar::Float, flt(1.0)),
            ],
            cond: Some(lt(var("k"), int(4))),
            step: vec![set_op("k", BinOp::Add, int(1))],
            body: vec![set_op("f", BinOp::Mul, flt(0.5))],
        };
        assert_eq!(
            print_stmts(&OpenCl, &[mixed]),
            "{\n    int k = 0;\n    float f = 1.0f;\n    for (; k < 4; k += 1) {\n        f *= 0.5f;\n    }\n}\n"
        );
        let assigns = KStmt::For {
            init: vec![set("a", int(0)), set("b", int(1))],
            cond: None,
            step: vec![],
            body: vec![KStmt::Break],
        };
        assert_eq!(
            print_stmts(&Cuda, &[assigns]),
            "for (a = 0, b = 1;;) {\n    break;\n}\n"
        );
        let bad_step = KStmt::For {
            init: vec![],
            cond: None,
            step: vec![KStmt::Barrier],
            body: vec![],
        };
        let s = print_stmts(&OpenCl, &[bad_step]);
        assert!(s.starts_with("#error"), "{s}");
    }

    #[test]
    fn assignments() {
        let s = print_stmts(
            &OpenCl,
            &[
                set_op("a", BinOp::LogAnd, var("b")),
                set_op("a", BinOp::Shl, int(2)),
                store("A", Space::Global, int(0), var("x")),
                KStmt::Expr(call("sinf", vec![var("x")])),
                KStmt::Decl {
                    name: "p".to_string(),
                    ty: Scalar::Bool,
                    len: Some(8),
                    init: None,
                },
                KStmt::Decl {
                    name: "q".to_string(),
                    ty: Scalar::UShort,
                    len: None,
                    init: None,
                },
            ],
        );
        assert_eq!(
            s,
            "a = a && b;\na <<= 2;\nA[0] = x;\nsin(x);\nbool p[8];\nushort q;\n"
        );
    }

    #[test]
    fn bool_buffers_store_normalised_values_in_opencl_only() {
        let k = Kernel {
            name: "k".to_string(),
            params: vec![buf("B", Scalar::Bool, false), scalar("v", Scalar::Int)],
            locals: vec![crate::kernel::LocalArray {
                name: "L".to_string(),
                elem: Scalar::Bool,
                len: 4,
            }],
            dims: 1,
            block: [4, 1, 1],
            body: vec![
                store("B", Space::Global, int(0), var("v")),
                store("L", Space::Local, int(0), var("v")),
                store_op("B", Space::Global, int(1), BinOp::BitAnd, var("v")),
                decl("p", Scalar::Bool, var("v")),
                set("p", int(2)),
            ],
            uses_double: false,
            origin: String::new(),
        };
        assert_eq!(
            kernel_body(&OpenCl, &k),
            "    B[0] = (bool)v;\n    L[0] = (bool)v;\n    B[1] = (bool)(B[1] & v);\n    \
             bool p = v;\n    p = 2;\n"
        );
        assert_eq!(
            kernel_body(&Cuda, &k),
            "    B[0] = v;\n    L[0] = v;\n    B[1] &= v;\n    bool p = v;\n    p = 2;\n"
        );
    }

    #[test]
    fn scopes_end_with_their_block() {
        // `x` is an `int` inside the block only: afterwards the outer `float x` is seen again.
        let mut p = env(&OpenCl);
        p.stmts(&[KStmt::Block(vec![decl("x", Scalar::Int, int(1))])]);
        assert_eq!(p.expr(&call("sqrtf", vec![var("x")])), "sqrt(x)");
    }
}
