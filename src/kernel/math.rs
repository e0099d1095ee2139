//! The math functions a kernel may call ([`MathFn`]): the C99 math library for `double` and its
//! `f` variants for `float`, `abs`/`labs`/`llabs`, and integer `min`/`max`. A call names one of
//! them, never a string: an unknown function cannot reach a back end or the simulator.
//!
//! The C99 signature ([`MathFn::params`], [`MathFn::ret`]) is what every consumer respects: back
//! ends convert the arguments to the parameter types so the call means what it means in C, the
//! simulator computes in the precision of the variant.

use std::fmt;

use super::KExpr;
use crate::vocab::{BinOp, Scalar};

/// A C99 real function, without its precision (`Sqrt` is `sqrt` and `sqrtf`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Real {
    Acos,
    Asin,
    Atan,
    Cos,
    Sin,
    Tan,
    Acosh,
    Asinh,
    Atanh,
    Cosh,
    Sinh,
    Tanh,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log10,
    Log2,
    Log1p,
    Logb,
    Cbrt,
    Fabs,
    Sqrt,
    Erf,
    Erfc,
    Lgamma,
    Tgamma,
    Ceil,
    Floor,
    Nearbyint,
    Rint,
    Round,
    Trunc,
    Atan2,
    Pow,
    Hypot,
    Fmod,
    Remainder,
    Copysign,
    Nextafter,
    Fdim,
    Fmax,
    Fmin,
    Fma,
    Ldexp,
    Scalbn,
    Scalbln,
    Ilogb,
    Lrint,
    Lround,
    Llrint,
    Llround,
}

/// The real functions of one real argument and result (`sqrt`), in the order of C99's §7.12.
pub const REAL1: &[Real] = &[
    Real::Acos,
    Real::Asin,
    Real::Atan,
    Real::Cos,
    Real::Sin,
    Real::Tan,
    Real::Acosh,
    Real::Asinh,
    Real::Atanh,
    Real::Cosh,
    Real::Sinh,
    Real::Tanh,
    Real::Exp,
    Real::Exp2,
    Real::Expm1,
    Real::Log,
    Real::Log10,
    Real::Log2,
    Real::Log1p,
    Real::Logb,
    Real::Cbrt,
    Real::Fabs,
    Real::Sqrt,
    Real::Erf,
    Real::Erfc,
    Real::Lgamma,
    Real::Tgamma,
    Real::Ceil,
    Real::Floor,
    Real::Nearbyint,
    Real::Rint,
    Real::Round,
    Real::Trunc,
];

/// The real functions of two real arguments and a real result (`pow`).
pub const REAL2: &[Real] = &[
    Real::Atan2,
    Real::Pow,
    Real::Hypot,
    Real::Fmod,
    Real::Remainder,
    Real::Copysign,
    Real::Nextafter,
    Real::Fdim,
    Real::Fmax,
    Real::Fmin,
];

/// The others, whose signatures mix types (`ldexp(double, int)`, `ilogb(double) -> int`).
const MIXED: &[Real] = &[
    Real::Fma,
    Real::Ldexp,
    Real::Scalbn,
    Real::Scalbln,
    Real::Ilogb,
    Real::Lrint,
    Real::Lround,
    Real::Llrint,
    Real::Llround,
];

impl Real {
    /// The C99 name of the `double` version (`sqrt`).
    pub fn name(self) -> &'static str {
        match self {
            Real::Acos => "acos",
            Real::Asin => "asin",
            Real::Atan => "atan",
            Real::Cos => "cos",
            Real::Sin => "sin",
            Real::Tan => "tan",
            Real::Acosh => "acosh",
            Real::Asinh => "asinh",
            Real::Atanh => "atanh",
            Real::Cosh => "cosh",
            Real::Sinh => "sinh",
            Real::Tanh => "tanh",
            Real::Exp => "exp",
            Real::Exp2 => "exp2",
            Real::Expm1 => "expm1",
            Real::Log => "log",
            Real::Log10 => "log10",
            Real::Log2 => "log2",
            Real::Log1p => "log1p",
            Real::Logb => "logb",
            Real::Cbrt => "cbrt",
            Real::Fabs => "fabs",
            Real::Sqrt => "sqrt",
            Real::Erf => "erf",
            Real::Erfc => "erfc",
            Real::Lgamma => "lgamma",
            Real::Tgamma => "tgamma",
            Real::Ceil => "ceil",
            Real::Floor => "floor",
            Real::Nearbyint => "nearbyint",
            Real::Rint => "rint",
            Real::Round => "round",
            Real::Trunc => "trunc",
            Real::Atan2 => "atan2",
            Real::Pow => "pow",
            Real::Hypot => "hypot",
            Real::Fmod => "fmod",
            Real::Remainder => "remainder",
            Real::Copysign => "copysign",
            Real::Nextafter => "nextafter",
            Real::Fdim => "fdim",
            Real::Fmax => "fmax",
            Real::Fmin => "fmin",
            Real::Fma => "fma",
            Real::Ldexp => "ldexp",
            Real::Scalbn => "scalbn",
            Real::Scalbln => "scalbln",
            Real::Ilogb => "ilogb",
            Real::Lrint => "lrint",
            Real::Lround => "lround",
            Real::Llrint => "llrint",
            Real::Llround => "llround",
        }
    }

    /// The function whose `double` version is called `name`.
    pub fn from_name(name: &str) -> Option<Real> {
        REAL1
            .iter()
            .chain(REAL2)
            .chain(MIXED)
            .copied()
            .find(|r| r.name() == name)
    }
}

/// A math function a kernel may call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `abs(int)`.
    Abs,
    /// `labs(long)`.
    Labs,
    /// `llabs(long long)`.
    Llabs,
    /// Integer minimum and maximum (not C99): the arguments take their common type.
    Min,
    Max,
    /// A C99 real function on `float` (`single`: `sqrtf`) or `double` (`sqrt`).
    Real(Real, bool),
}

/// The call `f(args)`, with the exact rewrites C compilers make of it: `pow(x, 2)` is `x * x`
/// and `pow(x, 1)` is `x` (in the function's precision). Both are exact: the product is the
/// correctly rounded square, which C99 does not ask of `pow`; GCC and Clang rewrite them so, so
/// the sequential program computes them so too. A general `pow` costs tens of instructions
/// (half of NPB MG's device time on PoCL went to `pow(r, 2.0)` of its norm).
pub fn call(f: MathFn, mut args: Vec<KExpr>) -> KExpr {
    if let (MathFn::Real(Real::Pow, single), 2) = (&f, args.len()) {
        let n = match args[1] {
            KExpr::Float(v, _) if v == 1.0 || v == 2.0 => Some(v as i64),
            KExpr::Int(v, _) if v == 1 || v == 2 => Some(v),
            _ => None,
        };
        if let Some(n) = n {
            let t = if *single {
                Scalar::Float
            } else {
                Scalar::Double
            };
            args.truncate(1);
            let x = KExpr::Cast(t, Box::new(args.pop().expect("one argument")));
            return if n == 1 {
                x
            } else {
                KExpr::bin(BinOp::Mul, x.clone(), x)
            };
        }
    }
    KExpr::Call(f, args)
}

impl MathFn {
    /// The function C calls `name` (`sqrtf`, `fmax`, `abs`, `min`), if a kernel may call it.
    pub fn from_c_name(name: &str) -> Option<MathFn> {
        match name {
            "abs" => return Some(MathFn::Abs),
            "labs" => return Some(MathFn::Labs),
            "llabs" => return Some(MathFn::Llabs),
            "min" => return Some(MathFn::Min),
            "max" => return Some(MathFn::Max),
            _ => {}
        }
        if let Some(r) = name.strip_suffix('f').and_then(Real::from_name) {
            return Some(MathFn::Real(r, true));
        }
        Real::from_name(name).map(|r| MathFn::Real(r, false))
    }

    /// The name without the `f` of the `float` variant (`sqrt` for `sqrtf`; `abs`, `min`).
    pub fn base(&self) -> &'static str {
        match self {
            MathFn::Abs => "abs",
            MathFn::Labs => "labs",
            MathFn::Llabs => "llabs",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Real(r, _) => r.name(),
        }
    }

    /// The C name (`sqrtf`).
    pub fn c_name(&self) -> String {
        match self {
            MathFn::Real(r, true) => format!("{}f", r.name()),
            f => f.base().to_string(),
        }
    }

    /// The real type a real function computes in (`float` for the `f` variants), `None` for the
    /// integer functions.
    pub fn real_type(&self) -> Option<Scalar> {
        match self {
            MathFn::Real(_, true) => Some(Scalar::Float),
            MathFn::Real(_, false) => Some(Scalar::Double),
            _ => None,
        }
    }

    /// The C99 parameter types; `None` for `min`/`max`, whose arguments take their common type.
    pub fn params(&self) -> Option<Vec<Scalar>> {
        let t = match self {
            MathFn::Abs => return Some(vec![Scalar::Int]),
            MathFn::Labs => return Some(vec![Scalar::Long]),
            MathFn::Llabs => return Some(vec![Scalar::LongLong]),
            MathFn::Min | MathFn::Max => return None,
            MathFn::Real(_, true) => Scalar::Float,
            MathFn::Real(_, false) => Scalar::Double,
        };
        let MathFn::Real(r, _) = self else {
            return None;
        };
        Some(match r {
            r if REAL1.contains(r) => vec![t],
            r if REAL2.contains(r) => vec![t, t],
            Real::Fma => vec![t, t, t],
            Real::Ldexp | Real::Scalbn => vec![t, Scalar::Int],
            Real::Scalbln => vec![t, Scalar::Long],
            _ => vec![t], // ilogb, lrint, lround, llrint, llround
        })
    }

    /// The number of arguments.
    pub fn arity(&self) -> usize {
        self.params().map_or(2, |p| p.len())
    }

    /// The C99 result type; `None` for `min`/`max` (the common type of the arguments).
    pub fn ret(&self) -> Option<Scalar> {
        match self {
            MathFn::Abs => Some(Scalar::Int),
            MathFn::Labs => Some(Scalar::Long),
            MathFn::Llabs => Some(Scalar::LongLong),
            MathFn::Min | MathFn::Max => None,
            MathFn::Real(r, _) => Some(match r {
                Real::Ilogb => Scalar::Int,
                Real::Lrint | Real::Lround => Scalar::Long,
                Real::Llrint | Real::Llround => Scalar::LongLong,
                _ => self.real_type()?,
            }),
        }
    }
}

impl fmt::Display for MathFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.c_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pow(x, 2)` and `pow(x, 1)` become the product and the operand in the call's precision;
    /// other exponents (and a variable one) stay calls.
    #[test]
    fn exact_powers_are_rewritten() {
        let x = || crate::kernel::testing::var("x");
        let pow = MathFn::Real(Real::Pow, false);
        let powf = MathFn::Real(Real::Pow, true);
        let sq = |t| {
            let c = KExpr::Cast(t, Box::new(x()));
            KExpr::bin(BinOp::Mul, c.clone(), c)
        };
        assert_eq!(
            call(pow.clone(), vec![x(), KExpr::Float(2.0, false)]),
            sq(Scalar::Double)
        );
        assert_eq!(
            call(pow.clone(), vec![x(), KExpr::int(2)]),
            sq(Scalar::Double)
        );
        assert_eq!(
            call(powf.clone(), vec![x(), KExpr::Float(2.0, true)]),
            sq(Scalar::Float)
        );
        assert_eq!(
            call(pow.clone(), vec![x(), KExpr::int(1)]),
            KExpr::Cast(Scalar::Double, Box::new(x()))
        );
        for e in [
            KExpr::Float(3.0, false),
            KExpr::Float(0.5, false),
            crate::kernel::testing::var("n"),
        ] {
            let args = vec![x(), e];
            assert_eq!(
                call(pow.clone(), args.clone()),
                KExpr::Call(pow.clone(), args)
            );
        }
        let args = vec![x(), KExpr::Float(2.0, false)];
        let hypot = MathFn::Real(Real::Hypot, false);
        assert_eq!(call(hypot.clone(), args.clone()), KExpr::Call(hypot, args));
    }

    #[test]
    fn names_round_trip() {
        for r in REAL1.iter().chain(REAL2).chain(MIXED) {
            for single in [false, true] {
                let f = MathFn::Real(*r, single);
                assert_eq!(MathFn::from_c_name(&f.c_name()), Some(f));
            }
        }
        for n in ["abs", "labs", "llabs", "min", "max"] {
            assert_eq!(MathFn::from_c_name(n).unwrap().c_name(), n);
        }
        // `erf` ends with an `f` but is the double version.
        assert_eq!(
            MathFn::from_c_name("erf"),
            Some(MathFn::Real(Real::Erf, false))
        );
        for n in ["printf", "rsqrtf", "sqrtff", "f", ""] {
            assert_eq!(MathFn::from_c_name(n), None, "{n}");
        }
    }

    #[test]
    fn signatures() {
        let f = MathFn::from_c_name("ldexpf").unwrap();
        assert_eq!(f.params(), Some(vec![Scalar::Float, Scalar::Int]));
        assert_eq!(f.ret(), Some(Scalar::Float));
        assert_eq!(
            MathFn::from_c_name("llround").unwrap().ret(),
            Some(Scalar::LongLong)
        );
        assert_eq!(MathFn::from_c_name("fma").unwrap().arity(), 3);
        assert_eq!(MathFn::Max.arity(), 2);
        assert_eq!(MathFn::Max.params(), None);
    }
}
