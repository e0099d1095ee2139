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

use crate::kernel::{
    Arena, ArrayRef, AtomicCapture, AtomicOp, Builtin, Handle, KArray, KExpr, KParamKind, KStmt,
    KVar, Kernel, LValue, MathFn, Space,
};
use crate::vocab::{BinOp, Scalar, UnOp};

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
    /// The target's spelling of the math function `f`; `None` if it has none (the call is then
    /// printed with its C name).
    fn math(&self, f: &MathFn) -> Option<MathSpelling>;
    /// A non-finite value (`v` is infinite or NaN) as an expression, and its precedence
    /// ([`PREC_PRIMARY`] or [`PREC_UNARY`]).
    fn non_finite(&self, v: f64, single: bool) -> (String, u8);
    /// True if `name` cannot be used as a variable name in the target.
    fn is_reserved(&self, name: &str) -> bool;
    /// The target's atomic function computing `x op= v` (`op` = `None`: storing `v`) on an
    /// element of type `ty`, as a template of a call returning the old value (converted to `ty`
    /// where it is assigned): `{p}` is the element's address, `{v}` the operand (already of
    /// type `ty`). `None`: the target has
    /// none (a compare-and-swap loop does it).
    fn atomic_native(&self, ty: Scalar, space: Space, op: Option<BinOp>) -> Option<String>;
    /// A preprocessor condition under which [`Dialect::atomic_native`] exists (`None`: always).
    fn atomic_native_guard(&self, _ty: Scalar, _op: Option<BinOp>) -> Option<&'static str> {
        None
    }
    /// The compare-and-swap the target has for elements of type `ty`.
    fn atomic_cas(&self, ty: Scalar, space: Space) -> CasSpelling;
    /// The type of a pointer through which an element of type `ty` is read atomically
    /// (`volatile __global float *`).
    fn atomic_load_ptr(&self, ty: Scalar, space: Space) -> String;
    /// The lines of a vector load ([`KStmt::VecLoad`]) of `lanes.len()` elements of type `elem`
    /// from `addr` (the address of the first, in `space`): they declare the lanes (and may
    /// declare `vector`); `lane_ty` is how a lane's type is spelled. `aligned`: the address is
    /// a multiple of the vector's size.
    #[allow(clippy::too_many_arguments)]
    fn vector_load(
        &self,
        elem: Scalar,
        lane_ty: &str,
        vector: &str,
        lanes: &[String],
        addr: &str,
        space: Space,
        aligned: bool,
    ) -> Vec<String>;
    /// The lines of a vector store of `values` (expressions already of type `elem`) to `addr`
    /// and the elements after it.
    fn vector_store(&self, elem: Scalar, addr: &str, values: &[String]) -> Vec<String>;
}

/// A target's compare-and-swap on the bits of an element: `cas(ptr, expected, new)` returns the
/// bits it found. The conversions are templates over `{x}`, always a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CasSpelling {
    /// The unsigned type of the bits (`uint`, `unsigned long long`).
    pub bits: String,
    /// The pointer type `cas` takes (`volatile __global uint *`).
    pub ptr: String,
    pub cas: String,
    /// The element's bits from a value of its type (`as_uint({x})`).
    pub to_bits: String,
    /// The value from its bits (`as_float({x})`).
    pub from_bits: String,
}

/// Names of the temporaries of an atomic statement (in a block of their own).
const ATOMIC_OLD: &str = "accshare_old";
const ATOMIC_NEW: &str = "accshare_new";

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

mod c99;
use c99::int_value;
pub use c99::*;

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
    /// The arrays of the kernel printed (their names).
    arrays: Arena<KArray>,
    /// The scalars of the kernel printed (their names), and the printer's own (`accshare_old`).
    vars: Arena<KVar>,
}

impl<'d> Printer<'d> {
    pub fn new(d: &'d dyn Dialect) -> Self {
        Printer {
            d,
            out: String::new(),
            depth: 0,
            scopes: vec![Vec::new()],
            arrays: Arena::new(),
            vars: Arena::new(),
        }
    }

    /// A printer with the kernel's parameters and local arrays in scope, indented one level.
    pub fn for_kernel(d: &'d dyn Dialect, k: &Kernel) -> Self {
        let mut p = Printer::new(d);
        p.arrays = k.arrays.clone();
        p.vars = k.vars.clone();
        for prm in &k.params {
            let sym = match &prm.kind {
                KParamKind::Buffer { elem, .. } => Sym {
                    ty: *elem,
                    array: true,
                    at: TypeUse::Global,
                },
                KParamKind::Scalar { ty, .. } => Sym {
                    ty: *ty,
                    array: false,
                    at: TypeUse::Param,
                },
            };
            p.declare(&prm.name, sym);
        }
        for &h in &k.locals {
            let l = &k.arrays[h];
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

    /// The name of the scalar `v` (`kernel::valid` checked that it names `v` where it is
    /// printed), as the target spells it.
    pub fn var_ident(&self, v: Handle<KVar>) -> String {
        self.ident(&self.vars[v].name).into_owned()
    }

    /// What the printer knows about the scalar `v` in scope.
    fn var_sym(&self, v: Handle<KVar>) -> Option<Sym> {
        self.lookup(&self.vars[v].name)
    }

    // ----- types ---------------------------------------------------------------------------

    /// The C type of `e`, after integer promotion; `None` if unknown.
    pub fn type_of(&self, e: &KExpr) -> Option<Scalar> {
        match e {
            KExpr::Var(n) => self.var_sym(*n).map(|s| promote(s.ty)),
            KExpr::Int(_, t) => Some(promote(*t)),
            KExpr::Float(_, single) => Some(if *single {
                Scalar::Float
            } else {
                Scalar::Double
            }),
            KExpr::Load(r) => self.lookup(self.array_name(r)).map(|s| promote(s.ty)),
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
            KExpr::Call(f, args) => match f.ret() {
                Some(t) => Some(t),
                None => self.common_type(args),
            },
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
            KExpr::Var(n) => (self.var_ident(*n), PREC_PRIMARY),
            KExpr::Int(v, t) => self.int_lit(*v, *t),
            KExpr::Float(v, single) => self.float_lit(*v, *single),
            KExpr::Load(r) => (self.array_ref(r), PREC_PRIMARY),
            KExpr::Unary(op, a) => {
                let sym = op.c_op();
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

    /// The name of the array `r` accesses.
    fn array_name(&self, r: &ArrayRef) -> &str {
        &self.arrays[r.array].name
    }

    fn array_ref(&self, r: &ArrayRef) -> String {
        match &r.field {
            None => format!(
                "{}[{}]",
                self.ident(self.array_name(r)),
                self.expr(&r.index)
            ),
            Some(f) => format!(
                "{}[{}].{}",
                self.ident(self.array_name(r)),
                self.expr(&r.index),
                self.ident(&f.name)
            ),
        }
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

    fn call(&self, f: &MathFn, args: &[KExpr]) -> (String, u8) {
        let plain = |name: &str, args: &[KExpr]| {
            let a: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
            format!("{name}({})", a.join(", "))
        };
        let sp = match self.d.math(f) {
            Some(sp) if f.arity() == args.len() => sp,
            _ => return (plain(&f.c_name(), args), PREC_PRIMARY),
        };
        let conv: Vec<KExpr> = match &f.params() {
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
            LValue::Var(n) => (self.var_ident(*n), self.var_sym(*n)),
            LValue::Elem(r) => (self.array_ref(r), self.lookup(self.array_name(r))),
        };
        // `_Bool` kept in another type (OpenCL `uchar` buffers): normalise what is stored.
        let normalise = sym.is_some_and(|s| {
            s.ty == Scalar::Bool
                && self.d.scalar(Scalar::Bool, s.at)
                    != self.d.scalar(Scalar::Bool, TypeUse::Private)
        });
        let compound = op.filter(|o| !is_cmp(*o) && !is_logical(*o));
        let current = || match target {
            LValue::Var(n) => KExpr::Var(*n),
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
            KStmt::Decl { var, init } => {
                let v = self.vars[*var].clone();
                let d = self.decl(&v.name, v.ty, None, init.as_ref());
                self.line(&format!("{d};"));
            }
            KStmt::DeclArray(a) => {
                let a = self.arrays[*a].clone();
                let d = self.decl(&a.name, a.elem, a.elements(), None);
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
            KStmt::If { cond, then, els } => self.if_chain(cond, then, els),
            KStmt::For {
                unroll,
                init,
                cond,
                step,
                body,
            } => self.for_loop(init, cond.as_ref(), step, body, *unroll),
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
            KStmt::Atomic {
                target,
                ty,
                op,
                capture,
            } => self.atomic(target, *ty, op, capture.as_ref()),
            KStmt::VecLoad {
                vector,
                lanes,
                elem,
                src,
                aligned,
            } => {
                let addr = format!("&{}", self.array_ref(src));
                let lane_ty = self.d.scalar(*elem, TypeUse::Private);
                let names: Vec<String> = lanes.iter().map(|l| self.var_ident(*l)).collect();
                let v = self.var_ident(*vector);
                let space = self.arrays[src.array].space();
                let lines = self
                    .d
                    .vector_load(*elem, lane_ty, &v, &names, &addr, space, *aligned);
                for l in lines {
                    self.line(&l);
                }
                for &l in lanes {
                    let name = self.vars[l].name.clone();
                    self.declare(
                        &name,
                        Sym {
                            ty: *elem,
                            array: false,
                            at: TypeUse::Private,
                        },
                    );
                }
            }
            KStmt::VecStore { dst, elem, values } => {
                let addr = format!("&{}", self.array_ref(dst));
                let vs: Vec<String> = values
                    .iter()
                    .map(|v| match v {
                        KExpr::Cast(t, _) if t == elem => self.expr(v),
                        _ => self.expr(&KExpr::Cast(*elem, Box::new(v.clone()))),
                    })
                    .collect();
                for l in self.d.vector_store(*elem, &addr, &vs) {
                    self.line(&l);
                }
            }
        }
    }

    /// An `if`, with an `else` that is a lone `if` printed as `else if` (repeatedly).
    fn if_chain(&mut self, cond: &KExpr, then: &[KStmt], els: &[KStmt]) {
        let c = self.expr(cond);
        self.line(&format!("if ({c}) {{"));
        self.body(then);
        let mut els = els;
        loop {
            match els {
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

    /// An atomic statement: the target's atomic function when it computes what C computes,
    /// else a compare-and-swap loop on the element's bits.
    fn atomic(
        &mut self,
        target: &ArrayRef,
        ty: Scalar,
        op: &AtomicOp,
        capture: Option<&AtomicCapture>,
    ) {
        let d = self.d;
        let space = self.arrays[target.array].space();
        let addr = format!("&{}", self.array_ref(target));
        let cap = capture.map(|c| (self.var_ident(c.var), c.after));
        let tname = d.scalar(ty, TypeUse::Private);
        // The new value, as an expression of the old one in `accshare_old`.
        self.push_scope();
        self.declare(
            ATOMIC_OLD,
            Sym {
                ty,
                array: false,
                at: TypeUse::Private,
            },
        );
        let old_var = crate::kernel::new_var(
            &mut self.vars,
            ATOMIC_OLD,
            ty,
            crate::kernel::VarKind::Private,
        );
        let old = || Box::new(KExpr::Var(old_var));
        let (native_op, native_value, new) = match op {
            AtomicOp::Read => {
                self.pop_scope();
                if let Some((v, _)) = cap {
                    let ptr = d.atomic_load_ptr(ty, space);
                    self.line(&format!("{v} = *({ptr}){addr};"));
                }
                return;
            }
            AtomicOp::Write(e) => {
                let v = self.expr(&self.convert(e, ty));
                (None, Some(v.clone()), v)
            }
            AtomicOp::Update {
                op,
                value,
                reversed,
            } => {
                // C computes `x op v` in the usual arithmetic type and converts the result to
                // `x`'s type; a native atomic computes in `x`'s type. They agree when the
                // operand converts to `x`'s type the way the usual conversions would convert it.
                // A minimum or maximum (`x = x op v ? x : v`, a comparison as `op`) is the
                // native one on integers only of `x`'s own type (then the order of the operands
                // and `<` or `<=` do not matter).
                let compare = matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge);
                let exact = if compare {
                    !ty.is_float() && self.type_of(value) == Some(ty)
                } else {
                    !*reversed
                        && self.type_of(value).is_some_and(|vt| match ty {
                            Scalar::Float => vt != Scalar::Double,
                            Scalar::Double => true,
                            _ => !vt.is_float(),
                        })
                };
                let native_value = exact.then(|| self.expr(&self.convert(value, ty)));
                let v = Box::new(value.clone());
                let (a, b) = if *reversed { (v, old()) } else { (old(), v) };
                let e = if compare {
                    KExpr::Cond(Box::new(KExpr::Binary(*op, a.clone(), b.clone())), a, b)
                } else {
                    KExpr::Binary(*op, a, b)
                };
                // Converted back to `x`'s type where the operation's type differs.
                let new = if self.type_of(&e) == Some(ty) {
                    self.expr(&e)
                } else {
                    self.expr(&KExpr::Cast(ty, Box::new(e)))
                };
                (Some(*op), native_value, new)
            }
        };
        self.pop_scope();
        // `char` and `short` have no atomic functions: a compare-and-swap loop on the 32-bit
        // word that holds them.
        let native = native_value.filter(|_| ty.size() >= 4).and_then(|v| {
            d.atomic_native(ty, space, native_op)
                .map(|t| t.replace("{p}", &addr).replace("{v}", &v))
        });
        let guard = native
            .as_ref()
            .and_then(|_| d.atomic_native_guard(ty, native_op));
        if let (Some(call), Some(g)) = (&native, guard) {
            self.line(&format!("#if {g}"));
            self.atomic_native_lines(call, tname, &new, cap.as_ref());
            self.line("#else");
            self.atomic_cas_lines(ty, space, &addr, &new, cap.as_ref());
            self.line("#endif");
        } else if let Some(call) = &native {
            self.atomic_native_lines(call, tname, &new, cap.as_ref());
        } else {
            self.atomic_cas_lines(ty, space, &addr, &new, cap.as_ref());
        }
    }

    fn atomic_native_lines(
        &mut self,
        call: &str,
        tname: &str,
        new: &str,
        cap: Option<&(String, bool)>,
    ) {
        match cap {
            None => self.line(&format!("{call};")),
            Some((v, false)) => self.line(&format!("{v} = {call};")),
            Some((v, true)) => {
                self.line("{");
                self.depth += 1;
                self.line(&format!("{tname} {ATOMIC_OLD} = {call};"));
                self.line(&format!("{v} = {new};"));
                self.depth -= 1;
                self.line("}");
            }
        }
    }

    fn atomic_cas_lines(
        &mut self,
        ty: Scalar,
        space: Space,
        addr: &str,
        new: &str,
        cap: Option<&(String, bool)>,
    ) {
        if ty.size() < 4 {
            return self.atomic_cas_narrow_lines(ty, space, addr, new, cap);
        }
        let c = self.d.atomic_cas(ty, space);
        let tname = self.d.scalar(ty, TypeUse::Private);
        let (ptr, prev, seen) = ("accshare_p", "accshare_prev", "accshare_seen");
        self.line("{");
        self.depth += 1;
        self.line(&format!("{}{ptr} = ({}){addr};", c.ptr, c.ptr));
        self.line(&format!("{} {prev}, {seen} = *{ptr};", c.bits));
        self.line(&format!("{tname} {ATOMIC_OLD}, {ATOMIC_NEW};"));
        self.line("do {");
        self.depth += 1;
        self.line(&format!("{prev} = {seen};"));
        self.line(&format!(
            "{ATOMIC_OLD} = {};",
            c.from_bits.replace("{x}", prev)
        ));
        self.line(&format!("{ATOMIC_NEW} = {new};"));
        self.line(&format!(
            "{seen} = {}({ptr}, {prev}, {});",
            c.cas,
            c.to_bits.replace("{x}", ATOMIC_NEW)
        ));
        self.depth -= 1;
        self.line(&format!("}} while ({seen} != {prev});"));
        if let Some((v, after)) = cap {
            let which = if *after { ATOMIC_NEW } else { ATOMIC_OLD };
            self.line(&format!("{v} = {which};"));
        }
        self.depth -= 1;
        self.line("}");
    }

    /// The compare-and-swap loop of a `char` or `short` element: on the aligned 32-bit word
    /// holding it (little-endian: the element's bits are at 8 × its byte offset in the word),
    /// the other bytes of the word kept as they are.
    fn atomic_cas_narrow_lines(
        &mut self,
        ty: Scalar,
        space: Space,
        addr: &str,
        new: &str,
        cap: Option<&(String, bool)>,
    ) {
        let c = self.d.atomic_cas(Scalar::UInt, space);
        let tname = self.d.scalar(ty, TypeUse::Private);
        let bits = c.bits.as_str();
        let ones = if ty.size() == 1 { "0xffu" } else { "0xffffu" };
        let (ptr, prev, seen, sh, mask) = (
            "accshare_p",
            "accshare_prev",
            "accshare_seen",
            "accshare_sh",
            "accshare_mask",
        );
        self.line("{");
        self.depth += 1;
        self.line(&format!(
            "{}{ptr} = ({})((size_t)({addr}) & ~(size_t)3);",
            c.ptr, c.ptr
        ));
        self.line(&format!(
            "const {bits} {sh} = ({bits})(((size_t)({addr}) & 3) * 8);"
        ));
        self.line(&format!("const {bits} {mask} = {ones} << {sh};"));
        self.line(&format!("{bits} {prev}, {seen} = *{ptr};"));
        self.line(&format!("{tname} {ATOMIC_OLD}, {ATOMIC_NEW};"));
        self.line("do {");
        self.depth += 1;
        self.line(&format!("{prev} = {seen};"));
        self.line(&format!(
            "{ATOMIC_OLD} = ({tname})(({prev} & {mask}) >> {sh});"
        ));
        self.line(&format!("{ATOMIC_NEW} = {new};"));
        self.line(&format!(
            "{seen} = {}({ptr}, {prev}, ({prev} & ~{mask}) | ((({bits}){ATOMIC_NEW} << {sh}) & {mask}));",
            c.cas
        ));
        self.depth -= 1;
        self.line(&format!("}} while ({seen} != {prev});"));
        if let Some((v, after)) = cap {
            let which = if *after { ATOMIC_NEW } else { ATOMIC_OLD };
            self.line(&format!("{v} = {which};"));
        }
        self.depth -= 1;
        self.line("}");
    }

    /// `unroll`: `#pragma unroll` before the loop (CUDA, and OpenCL C's compilers: NVIDIA's,
    /// AMD's, clang's for PoCL), which unrolls a loop of constant trip count fully.
    fn for_loop(
        &mut self,
        init: &[KStmt],
        cond: Option<&KExpr>,
        step: &[KStmt],
        body: &[KStmt],
        unroll: bool,
    ) {
        // The init list fits in the header if it is one declaration (several declarators of one
        // scalar type) or a list of expressions; otherwise it goes before the loop, in a block
        // that keeps its scope.
        let decl_ty = |s: &KStmt| match s {
            KStmt::Decl { var, .. } => Some(self.vars[*var].ty),
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
                if let KStmt::Decl { var, init } = s {
                    let v = self.vars[*var].clone();
                    ty_name = self.d.scalar(v.ty, TypeUse::Private);
                    let d = self.decl(&v.name, v.ty, None, init.as_ref());
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
        if unroll {
            self.line("#pragma unroll");
        }
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
/// The declarations of the struct types of the module's buffers, each once, in the order the
/// kernels first use them: the host's members in the host's order, so that the kernels see the
/// bytes of the host's array of structs as the host lays them out (`typedef struct { float re;
/// float im; } cpx;`, `struct pt { float x; float y; float z; };`).
pub fn record_decls(d: &dyn Dialect, m: &crate::kernel::Module) -> String {
    let mut seen: Vec<&crate::kernel::Record> = Vec::new();
    for k in &m.kernels {
        for r in k.records() {
            if !seen.contains(&r) {
                seen.push(r);
            }
        }
    }
    let mut out = String::new();
    for r in seen {
        let ty = d.scalar(r.elem, TypeUse::Global);
        let members: String = r
            .fields
            .iter()
            .map(|f| format!(" {} {};", ty, spell_ident(d, f)))
            .collect();
        match &r.name {
            crate::kernel::RecordName::Typedef(n) => {
                out.push_str(&format!(
                    "typedef struct {{{members} }} {};\n",
                    spell_ident(d, n)
                ));
            }
            crate::kernel::RecordName::Tag(t) => {
                out.push_str(&format!("struct {} {{{members} }};\n", spell_ident(d, t)));
            }
        }
    }
    out
}

/// The spelling of a struct type at a use (`cpx`, `struct pt`).
pub fn record_name(d: &dyn Dialect, r: &crate::kernel::Record) -> String {
    match &r.name {
        crate::kernel::RecordName::Typedef(n) => spell_ident(d, n).into_owned(),
        crate::kernel::RecordName::Tag(t) => format!("struct {}", spell_ident(d, t)),
    }
}

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
mod tests;
