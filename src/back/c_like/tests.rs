use super::*;
use crate::back::cuda::Cuda;
use crate::back::opencl::OpenCl;
use crate::back::tests::samples::*;
use crate::kernel::Space;

/// A printer with `a b c d i j: int`, `u: unsigned`, `l: long`, `x y: float`, `z: double`,
/// `A: float[]` in scope.
fn env(d: &dyn Dialect) -> Printer<'_> {
    let mut p = Printer::new(d);
    // The arrays of the expressions and statements written before (by name).
    p.arrays = crate::kernel::testing::take();
    p.vars = crate::kernel::testing::vars_snapshot();
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
    let (a, b, c) = (
        || crate::kernel::testing::var("a"),
        || crate::kernel::testing::var("b"),
        || crate::kernel::testing::var("c"),
    );
    assert_eq!(both(&mul(add(a(), b()), c())), "(a + b) * c");
    assert_eq!(both(&add(a(), mul(b(), c()))), "a + b * c");
    assert_eq!(both(&add(mul(a(), b()), c())), "a * b + c");
    let sub = |x, y| KExpr::bin(BinOp::Sub, x, y);
    assert_eq!(both(&sub(sub(a(), b()), c())), "a - b - c");
    assert_eq!(both(&sub(a(), sub(b(), c()))), "a - (b - c)");
    assert_eq!(both(&add(a(), add(b(), c()))), "a + (b + c)");
    assert_eq!(
        both(&KExpr::bin(BinOp::Div, a(), mul(b(), c()))),
        "a / (b * c)"
    );
    assert_eq!(
        both(&KExpr::bin(BinOp::Rem, mul(a(), b()), c())),
        "a * b % c"
    );
}

#[test]
fn unary_operators_never_glue_into_other_tokens() {
    assert_eq!(both(&un(UnOp::Neg, KExpr::int(-1))), "-(-1)");
    assert_eq!(
        both(&un(
            UnOp::Neg,
            un(UnOp::Neg, crate::kernel::testing::var("a"))
        )),
        "-(-a)"
    );
    assert_eq!(
        both(&un(
            UnOp::Plus,
            un(UnOp::Plus, crate::kernel::testing::var("a"))
        )),
        "+(+a)"
    );
    assert_eq!(
        both(&un(
            UnOp::Neg,
            un(UnOp::BitNot, crate::kernel::testing::var("a"))
        )),
        "-~a"
    );
    assert_eq!(
        both(&KExpr::bin(
            BinOp::Sub,
            crate::kernel::testing::var("a"),
            KExpr::int(-1)
        )),
        "a - -1"
    );
    assert_eq!(
        both(&un(
            UnOp::Neg,
            add(
                crate::kernel::testing::var("a"),
                crate::kernel::testing::var("b")
            )
        )),
        "-(a + b)"
    );
    assert_eq!(
        both(&un(
            UnOp::Not,
            lt(
                crate::kernel::testing::var("a"),
                crate::kernel::testing::var("b")
            )
        )),
        "!(a < b)"
    );
    assert_eq!(
        both(&mul(KExpr::int(-2), crate::kernel::testing::var("a"))),
        "-2 * a"
    );
    assert_eq!(both(&un(UnOp::Neg, flt(-1.5))), "-(-1.5f)");
    assert_eq!(
        both(&un(UnOp::Neg, KExpr::int(i32::MIN as i64))),
        "-(-2147483647 - 1)"
    );
}

#[test]
fn casts() {
    let (a, b) = (
        || crate::kernel::testing::var("a"),
        || crate::kernel::testing::var("b"),
    );
    assert_eq!(both(&cast(Scalar::Float, add(a(), b()))), "(float)(a + b)");
    assert_eq!(both(&add(cast(Scalar::Float, a()), b())), "(float)a + b");
    assert_eq!(both(&cast(Scalar::Int, un(UnOp::Neg, a()))), "(int)-a");
    assert_eq!(
        both(&cast(
            Scalar::Float,
            cast(Scalar::Int, crate::kernel::testing::var("z"))
        )),
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
    let v = |n: &str| crate::kernel::testing::var(n);
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
        both(&add(c(v("a"), v("b"), v("c")), KExpr::int(1))),
        "(a ? b : c) + 1"
    );
    assert_eq!(
        both(&c(KExpr::bin(BinOp::LogOr, v("a"), v("b")), v("c"), v("d"))),
        "a || b ? c : d"
    );
}

#[test]
fn shifts_comparisons_and_bitwise_mixes_get_parentheses() {
    let (a, b, c) = (
        || crate::kernel::testing::var("a"),
        || crate::kernel::testing::var("b"),
        || crate::kernel::testing::var("c"),
    );
    assert_eq!(
        both(&lt(KExpr::bin(BinOp::Shl, a(), KExpr::int(1)), b())),
        "a << 1 < b"
    );
    assert_eq!(
        both(&KExpr::bin(BinOp::Shl, a(), lt(b(), c()))),
        "a << (b < c)"
    );
    assert_eq!(
        both(&KExpr::bin(
            BinOp::Shl,
            add(a(), KExpr::int(1)),
            KExpr::int(2)
        )),
        "(a + 1) << 2"
    );
    assert_eq!(
        both(&KExpr::bin(BinOp::Shr, a(), mul(b(), c()))),
        "a >> (b * c)"
    );
    assert_eq!(
        both(&KExpr::bin(
            BinOp::Shl,
            KExpr::bin(BinOp::Shl, a(), b()),
            c()
        )),
        "a << b << c"
    );
    let band = |x, y| KExpr::bin(BinOp::BitAnd, x, y);
    let bor = |x, y| KExpr::bin(BinOp::BitOr, x, y);
    let bxor = |x, y| KExpr::bin(BinOp::BitXor, x, y);
    assert_eq!(both(&bor(band(a(), b()), c())), "(a & b) | c");
    assert_eq!(both(&band(band(a(), b()), c())), "a & b & c");
    assert_eq!(both(&bxor(a(), bor(b(), c()))), "a ^ (b | c)");
    assert_eq!(both(&band(a(), add(b(), c()))), "a & (b + c)");
    assert_eq!(
        both(&KExpr::bin(
            BinOp::Eq,
            band(a(), KExpr::int(1)),
            KExpr::int(0)
        )),
        "(a & 1) == 0"
    );
    assert_eq!(
        both(&band(KExpr::bin(BinOp::Eq, a(), b()), c())),
        "(a == b) & c"
    );
    let or = |x, y| KExpr::bin(BinOp::LogOr, x, y);
    assert_eq!(both(&or(and(a(), b()), c())), "(a && b) || c");
    assert_eq!(both(&and(or(a(), b()), c())), "(a || b) && c");
    assert_eq!(both(&or(or(a(), b()), c())), "a || b || c");
    assert_eq!(both(&and(bor(a(), b()), c())), "(a | b) && c");
    assert_eq!(both(&and(lt(a(), b()), lt(b(), c()))), "a < b && b < c");
    assert_eq!(
        both(&KExpr::bin(BinOp::Eq, lt(a(), b()), lt(c(), a()))),
        "(a < b) == (c < a)"
    );
}

#[test]
fn integer_literals_carry_their_type() {
    assert_eq!(both(&KExpr::int(0)), "0");
    assert_eq!(both(&KExpr::int(-5)), "-5");
    assert_eq!(both(&KExpr::int(i32::MIN as i64)), "(-2147483647 - 1)");
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
        both(&add(
            crate::kernel::testing::var("a"),
            lit(5_000_000_000, Scalar::Int)
        )),
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
    let (x, i) = (
        || crate::kernel::testing::var("x"),
        || crate::kernel::testing::var("i"),
    );
    assert_eq!(cl(&call("sqrtf", vec![x()])), "sqrt(x)");
    assert_eq!(cl(&call("sqrtf", vec![i()])), "sqrt((float)i)");
    assert_eq!(cl(&call("sqrt", vec![x()])), "sqrt((double)x)");
    assert_eq!(
        cl(&call("sqrt", vec![crate::kernel::testing::var("z")])),
        "sqrt(z)"
    );
    assert_eq!(cl(&call("fabsf", vec![x()])), "fabs(x)");
    assert_eq!(
        cl(&call("fminf", vec![x(), crate::kernel::testing::var("y")])),
        "fmin(x, y)"
    );
    assert_eq!(
        cl(&call("fmaxf", vec![x(), KExpr::int(0)])),
        "fmax(x, 0.0f)"
    );
    assert_eq!(cl(&call("powf", vec![x(), dbl(0.5)])), "pow(x, 0.5f)");
    assert_eq!(cl(&call("expf", vec![add(x(), i())])), "exp(x + i)");
    assert_eq!(cl(&call("erff", vec![x()])), "erf(x)");
    assert_eq!(
        cl(&call("erf", vec![crate::kernel::testing::var("z")])),
        "erf(z)"
    );
    assert_eq!(cl(&call("nearbyintf", vec![x()])), "rint(x)");
    assert_eq!(
        cl(&call("ldexpf", vec![x(), crate::kernel::testing::var("l")])),
        "ldexp(x, (int)l)"
    );
    assert_eq!(cl(&call("lrintf", vec![x()])), "(long)rint(x)");
    assert_eq!(cl(&call("abs", vec![i()])), "(int)abs(i)");
    assert_eq!(cl(&call("abs", vec![x()])), "(int)abs((int)x)");
    assert_eq!(cl(&call("labs", vec![i()])), "(long)abs((long)i)");
    assert_eq!(
        cl(&add(call("abs", vec![i()]), KExpr::int(1))),
        "(int)abs(i) + 1"
    );
    assert_eq!(
        cl(&call("min", vec![i(), crate::kernel::testing::var("j")])),
        "min(i, j)"
    );
    assert_eq!(
        cl(&call("max", vec![i(), crate::kernel::testing::var("u")])),
        "max((uint)i, u)"
    );
    assert_eq!(cl(&call("max", vec![i(), KExpr::int(-1)])), "max(i, -1)");
    assert_eq!(
        cl(&call(
            "max",
            vec![crate::kernel::testing::var("l"), KExpr::int(1)]
        )),
        "max(l, 1L)"
    );
    // A call names a `MathFn` (no unknown name reaches a printer); a wrong arity, or a function
    // OpenCL lacks, is printed with its C name as written.
    assert_eq!(cl(&call("sqrtf", vec![x(), i()])), "sqrtf(x, i)");
    assert_eq!(cl(&call("scalblnf", vec![x(), i()])), "scalblnf(x, i)");
    // Arguments of unknown type are converted.
    assert_eq!(
        cl(&call("sinf", vec![crate::kernel::testing::var("unknown")])),
        "sin((float)unknown)"
    );
}

#[test]
fn math_functions_in_cuda() {
    let (x, i) = (
        || crate::kernel::testing::var("x"),
        || crate::kernel::testing::var("i"),
    );
    assert_eq!(cu(&call("sqrtf", vec![x()])), "sqrtf(x)");
    assert_eq!(cu(&call("sqrt", vec![x()])), "sqrt((double)x)");
    assert_eq!(
        cu(&call("fminf", vec![x(), KExpr::int(1)])),
        "fminf(x, 1.0f)"
    );
    assert_eq!(
        cu(&call("fmin", vec![x(), crate::kernel::testing::var("z")])),
        "fmin((double)x, z)"
    );
    assert_eq!(cu(&call("abs", vec![i()])), "abs(i)");
    assert_eq!(cu(&call("abs", vec![x()])), "abs((int)x)");
    assert_eq!(cu(&call("lrintf", vec![x()])), "lrintf(x)");
    assert_eq!(
        cu(&call("min", vec![i(), crate::kernel::testing::var("u")])),
        "min((unsigned int)i, u)"
    );
    assert_eq!(
        cu(&call("scalblnf", vec![x(), i()])),
        "scalblnf(x, (long)i)"
    );
    assert_eq!(
        cu(&call(
            "min",
            vec![KExpr::int(-1), crate::kernel::testing::var("u")]
        )),
        "min(4294967295u, u)"
    );
    assert_eq!(
        cu(&call("llabs", vec![lit(-1, Scalar::ULong)])),
        "llabs(-1LL)"
    );
    assert_eq!(
        cl(&call(
            "max",
            vec![crate::kernel::testing::var("l"), lit(-1, Scalar::ULong)]
        )),
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
        cl(&mul(b(Builtin::GroupId(0)), KExpr::int(16))),
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
        cu(&gload("A", add(b(Builtin::GlobalId(0)), KExpr::int(1)))),
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
    assert_eq!(
        cl(&crate::kernel::testing::var("local")),
        "accshare_id_local"
    );
    assert_eq!(
        cl(&crate::kernel::testing::var("float4")),
        "accshare_id_float4"
    );
    assert_eq!(cl(&crate::kernel::testing::var("M_PI")), "accshare_id_M_PI");
    assert_eq!(cl(&crate::kernel::testing::var("min")), "accshare_id_min");
    assert_eq!(cl(&crate::kernel::testing::var("sqrt")), "accshare_id_sqrt");
    assert_eq!(cl(&crate::kernel::testing::var("new")), "new");
    assert_eq!(cl(&crate::kernel::testing::var("float4x")), "float4x");
    assert_eq!(cu(&crate::kernel::testing::var("new")), "accshare_id_new");
    assert_eq!(
        cu(&crate::kernel::testing::var("threadIdx")),
        "accshare_id_threadIdx"
    );
    assert_eq!(
        cu(&crate::kernel::testing::var("sqrtf")),
        "accshare_id_sqrtf"
    );
    assert_eq!(cu(&crate::kernel::testing::var("local")), "local");
    assert_eq!(
        cu(&gload("class", crate::kernel::testing::var("this"))),
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
        unroll: false,
        init: vec![
            decl("k", Scalar::Int, KExpr::int(0)),
            decl("f", Scalar::Float, flt(1.0)),
        ],
        cond: Some(lt(crate::kernel::testing::var("k"), KExpr::int(4))),
        step: vec![set_op("k", BinOp::Add, KExpr::int(1))],
        body: vec![set_op("f", BinOp::Mul, flt(0.5))],
    };
    assert_eq!(
        print_stmts(&OpenCl, &[mixed]),
        "{\n    int k = 0;\n    float f = 1.0f;\n    for (; k < 4; k += 1) {\n        f *= 0.5f;\n    }\n}\n"
    );
    let assigns = KStmt::For {
        unroll: false,
        init: vec![set("a", KExpr::int(0)), set("b", KExpr::int(1))],
        cond: None,
        step: vec![],
        body: vec![KStmt::Break],
    };
    assert_eq!(
        print_stmts(&Cuda, &[assigns]),
        "for (a = 0, b = 1;;) {\n    break;\n}\n"
    );
    let bad_step = KStmt::For {
        unroll: false,
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
            set_op("a", BinOp::LogAnd, crate::kernel::testing::var("b")),
            set_op("a", BinOp::Shl, KExpr::int(2)),
            store(
                "A",
                Space::Global,
                KExpr::int(0),
                crate::kernel::testing::var("x"),
            ),
            KStmt::Expr(call("sinf", vec![crate::kernel::testing::var("x")])),
            KStmt::DeclArray(crate::kernel::testing::private("p", Scalar::Bool, 8)),
            crate::kernel::testing::decl("q", Scalar::UShort, None),
        ],
    );
    assert_eq!(
        s,
        "a = a && b;\na <<= 2;\nA[0] = x;\nsin(x);\nbool p[8];\nushort q;\n"
    );
}

#[test]
fn bool_buffers_store_normalised_values_in_opencl_only() {
    let v = || crate::kernel::testing::var("v");
    let params = vec![buf("B", Scalar::Bool, false), scalar("v", Scalar::Int)];
    let l = crate::kernel::testing::array("L", Space::Local);
    let mut k = Kernel {
        name: "k".to_string(),
        params,
        arrays: Arena::new(),
        vars: Arena::new(),
        locals: vec![l],
        dims: 1,
        block: [4, 1, 1],
        body: vec![
            store("B", Space::Global, KExpr::int(0), v()),
            store("L", Space::Local, KExpr::int(0), v()),
            store_op("B", Space::Global, KExpr::int(1), BinOp::BitAnd, v()),
            decl("p", Scalar::Bool, v()),
            set("p", KExpr::int(2)),
        ],
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: String::new(),
    };
    k.arrays = crate::kernel::testing::take();
    k.vars = crate::kernel::testing::take_vars();
    k.arrays[l].elem = Scalar::Bool;
    k.arrays[l].kind = crate::kernel::ArrayKind::Local { len: 4 };
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
    let block = KStmt::Block(vec![decl("x", Scalar::Int, KExpr::int(1))]);
    let sqrt = call("sqrtf", vec![crate::kernel::testing::var("x")]);
    let mut p = env(&OpenCl);
    p.stmts(&[block]);
    assert_eq!(p.expr(&sqrt), "sqrt(x)");
}
