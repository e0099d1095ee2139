//! Hand-built kernel modules for the back ends' snapshot and compilation tests.

use crate::kernel::testing::{self, local_in};
use crate::kernel::{
    ArrayRef, Builtin, KExpr, KParam, KStmt, Kernel, LValue, MathFn, Module, Space,
};
use crate::vocab::{BinOp, Scalar, UnOp};

pub fn lit(v: i64, t: Scalar) -> KExpr {
    KExpr::Int(v, t)
}

pub fn flt(v: f64) -> KExpr {
    KExpr::Float(v, true)
}

pub fn dbl(v: f64) -> KExpr {
    KExpr::Float(v, false)
}

pub fn add(a: KExpr, b: KExpr) -> KExpr {
    KExpr::bin(BinOp::Add, a, b)
}

pub fn mul(a: KExpr, b: KExpr) -> KExpr {
    KExpr::bin(BinOp::Mul, a, b)
}

pub fn lt(a: KExpr, b: KExpr) -> KExpr {
    KExpr::bin(BinOp::Lt, a, b)
}

pub fn and(a: KExpr, b: KExpr) -> KExpr {
    KExpr::bin(BinOp::LogAnd, a, b)
}

pub fn un(op: UnOp, a: KExpr) -> KExpr {
    KExpr::Unary(op, Box::new(a))
}

pub fn cast(t: Scalar, a: KExpr) -> KExpr {
    KExpr::Cast(t, Box::new(a))
}

pub fn cond(c: KExpr, a: KExpr, b: KExpr) -> KExpr {
    KExpr::Cond(Box::new(c), Box::new(a), Box::new(b))
}

pub fn call(f: &str, args: Vec<KExpr>) -> KExpr {
    let f = MathFn::from_c_name(f).unwrap_or_else(|| panic!("`{f}` is not a math function"));
    KExpr::Call(f, args)
}

pub fn aref(a: &str, space: Space, i: KExpr) -> ArrayRef {
    ArrayRef::elem(testing::array(a, space), i)
}

pub fn gload(a: &str, i: KExpr) -> KExpr {
    KExpr::Load(aref(a, Space::Global, i))
}

pub fn lload(a: &str, i: KExpr) -> KExpr {
    KExpr::Load(aref(a, Space::Local, i))
}

pub fn lid(d: u8) -> KExpr {
    KExpr::Builtin(Builtin::LocalId(d))
}

pub fn gid(d: u8) -> KExpr {
    KExpr::Builtin(Builtin::GlobalId(d))
}

pub fn group(d: u8) -> KExpr {
    KExpr::Builtin(Builtin::GroupId(d))
}

pub fn decl(n: &str, ty: Scalar, init: KExpr) -> KStmt {
    testing::decl(n, ty, Some(init))
}

pub fn set(n: &str, v: KExpr) -> KStmt {
    KStmt::Assign {
        target: testing::lvar(n),
        op: None,
        value: v,
    }
}

pub fn set_op(n: &str, op: BinOp, v: KExpr) -> KStmt {
    KStmt::Assign {
        target: testing::lvar(n),
        op: Some(op),
        value: v,
    }
}

pub fn store(a: &str, space: Space, i: KExpr, v: KExpr) -> KStmt {
    KStmt::Assign {
        target: LValue::Elem(aref(a, space, i)),
        op: None,
        value: v,
    }
}

pub fn store_op(a: &str, space: Space, i: KExpr, op: BinOp, v: KExpr) -> KStmt {
    KStmt::Assign {
        target: LValue::Elem(aref(a, space, i)),
        op: Some(op),
        value: v,
    }
}

pub fn if_(c: KExpr, then: Vec<KStmt>) -> KStmt {
    KStmt::If {
        cond: c,
        then,
        els: Vec::new(),
    }
}

pub fn buf(n: &str, elem: Scalar, read_only: bool) -> KParam {
    testing::buffer(n, elem, read_only, None)
}

pub fn scalar(n: &str, t: Scalar) -> KParam {
    testing::param(n, t)
}

fn kernel(name: &str, params: Vec<KParam>, block: [u32; 3], body: Vec<KStmt>) -> Kernel {
    Kernel {
        name: name.to_string(),
        arrays: testing::take(),
        vars: testing::take_vars(),
        params,
        locals: Vec::new(),
        dims: block.iter().filter(|&&b| b > 1).count().max(1) as u8,
        block,
        body,
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: format!("{name}.c:1"),
    }
}

fn module(k: Kernel) -> Module {
    Module {
        kernels: vec![k],
        host: Vec::new(),
    }
}

/// `C[i] = A[i] + B[i]` over `n` elements.
pub fn vector_add() -> Module {
    let i = || testing::var("i");
    module(kernel(
        "vadd_r0_k0",
        vec![
            buf("C", Scalar::Float, false),
            buf("A", Scalar::Float, true),
            buf("B", Scalar::Float, true),
            scalar("n", Scalar::Int),
        ],
        [256, 1, 1],
        vec![
            decl("i", Scalar::Int, gid(0)),
            if_(
                lt(i(), testing::var("n")),
                vec![store(
                    "C",
                    Space::Global,
                    i(),
                    add(gload("A", i()), gload("B", i())),
                )],
            ),
        ],
    ))
}

/// A 16×16 tiled `C = A × B` (`n`×`n`), tiles of A and B in local memory.
pub fn tiled_matmul() -> Module {
    let (tx, ty, row, col, k0, k) = (
        || testing::var("tx"),
        || testing::var("ty"),
        || testing::var("row"),
        || testing::var("col"),
        || testing::var("k0"),
        || testing::var("k"),
    );
    let n = || testing::var("n");
    let tile = |r: KExpr, c: KExpr| add(mul(r, KExpr::int(16)), c);
    let stage = vec![
        KStmt::Comment("stage one tile of A and one of B".to_string()),
        KStmt::If {
            cond: and(lt(row(), n()), lt(add(k0(), tx()), n())),
            then: vec![store(
                "As",
                Space::Local,
                tile(ty(), tx()),
                gload("A", add(mul(row(), n()), add(k0(), tx()))),
            )],
            els: vec![store("As", Space::Local, tile(ty(), tx()), flt(0.0))],
        },
        store(
            "Bs",
            Space::Local,
            tile(ty(), tx()),
            cond(
                and(lt(add(k0(), ty()), n()), lt(col(), n())),
                gload("B", add(mul(add(k0(), ty()), n()), col())),
                flt(0.0),
            ),
        ),
        KStmt::Barrier,
        KStmt::For {
            unroll: false,
            init: vec![decl("k", Scalar::Int, KExpr::int(0))],
            cond: Some(lt(k(), KExpr::int(16))),
            step: vec![set_op("k", BinOp::Add, KExpr::int(1))],
            body: vec![set_op(
                "sum",
                BinOp::Add,
                mul(lload("As", tile(ty(), k())), lload("Bs", tile(k(), tx()))),
            )],
        },
        KStmt::Barrier,
    ];
    let mut kern = kernel(
        "matmul_r0_k0",
        vec![
            buf("C", Scalar::Float, false),
            buf("A", Scalar::Float, true),
            buf("B", Scalar::Float, true),
            scalar("n", Scalar::Int),
        ],
        [16, 16, 1],
        vec![
            decl("tx", Scalar::Int, lid(0)),
            decl("ty", Scalar::Int, lid(1)),
            decl("row", Scalar::Int, add(mul(group(1), KExpr::int(16)), ty())),
            decl("col", Scalar::Int, add(mul(group(0), KExpr::int(16)), tx())),
            decl("sum", Scalar::Float, flt(0.0)),
            KStmt::For {
                unroll: false,
                init: vec![decl("k0", Scalar::Int, KExpr::int(0))],
                cond: Some(lt(k0(), n())),
                step: vec![set_op("k0", BinOp::Add, KExpr::int(16))],
                body: stage,
            },
            if_(
                and(lt(row(), n()), lt(col(), n())),
                vec![store(
                    "C",
                    Space::Global,
                    add(mul(row(), n()), col()),
                    testing::var("sum"),
                )],
            ),
        ],
    );
    local_in(&mut kern, "As", Scalar::Float, 256);
    local_in(&mut kern, "Bs", Scalar::Float, 256);
    module(kern)
}

/// `sum += in[i]`: one partial sum per work-group, by a tree in local memory.
pub fn reduction() -> Module {
    let l = || testing::var("accshare_lid");
    let s = || testing::var("accshare_s");
    let red = "accshare_red_sum";
    let mut kern = kernel(
        "sum_r0_k0",
        vec![
            buf("in", Scalar::Float, true),
            scalar("n", Scalar::Int),
            buf("accshare_part_sum", Scalar::Float, false),
        ],
        [256, 1, 1],
        vec![
            decl("sum", Scalar::Float, flt(0.0)),
            decl("i", Scalar::Int, gid(0)),
            if_(
                lt(testing::var("i"), testing::var("n")),
                vec![set_op("sum", BinOp::Add, gload("in", testing::var("i")))],
            ),
            KStmt::Comment("reduction of sum (+) in local memory".to_string()),
            decl("accshare_lid", Scalar::Int, lid(0)),
            store(red, Space::Local, l(), testing::var("sum")),
            KStmt::Barrier,
            KStmt::For {
                unroll: false,
                init: vec![decl("accshare_s", Scalar::Int, KExpr::int(128))],
                cond: Some(KExpr::bin(BinOp::Gt, s(), KExpr::int(0))),
                step: vec![set_op("accshare_s", BinOp::Shr, KExpr::int(1))],
                body: vec![
                    if_(
                        lt(l(), s()),
                        vec![store_op(
                            red,
                            Space::Local,
                            l(),
                            BinOp::Add,
                            lload(red, add(l(), s())),
                        )],
                    ),
                    KStmt::Barrier,
                ],
            },
            if_(
                KExpr::bin(BinOp::Eq, l(), KExpr::int(0)),
                vec![store(
                    "accshare_part_sum",
                    Space::Global,
                    group(0),
                    lload(red, KExpr::int(0)),
                )],
            ),
        ],
    );
    local_in(&mut kern, red, Scalar::Float, 256);
    module(kern)
}

/// Double precision: `y[i] = a * x[i] + y[i]`, clamped, with a square root and an infinity.
pub fn double_axpy() -> Module {
    let i = || testing::var("i");
    let mut kern = kernel(
        "daxpy_r0_k0",
        vec![
            buf("y", Scalar::Double, false),
            buf("x", Scalar::Double, true),
            scalar("a", Scalar::Double),
            scalar("n", Scalar::Long),
        ],
        [256, 1, 1],
        vec![
            decl("i", Scalar::Long, cast(Scalar::Long, gid(0))),
            if_(
                lt(i(), testing::var("n")),
                vec![
                    decl(
                        "v",
                        Scalar::Double,
                        add(mul(testing::var("a"), gload("x", i())), gload("y", i())),
                    ),
                    KStmt::If {
                        cond: KExpr::bin(BinOp::Gt, testing::var("v"), dbl(1e300)),
                        then: vec![set("v", dbl(f64::INFINITY))],
                        els: vec![set(
                            "v",
                            call(
                                "fmax",
                                vec![call("sqrt", vec![testing::var("v")]), dbl(0.5)],
                            ),
                        )],
                    },
                    store("y", Space::Global, i(), testing::var("v")),
                ],
            ),
        ],
    );
    kern.uses_double = true;
    module(kern)
}

/// `unsigned char` pixels: invert those above a threshold, keep the others.
pub fn uchar_threshold() -> Module {
    let i = || testing::var("i");
    let p = || testing::var("p");
    module(kernel(
        "thresh_r0_k0",
        vec![
            buf("out", Scalar::UChar, false),
            buf("img", Scalar::UChar, true),
            scalar("t", Scalar::UChar),
            scalar("count", Scalar::SizeT),
        ],
        [256, 1, 1],
        vec![
            decl("i", Scalar::SizeT, cast(Scalar::SizeT, gid(0))),
            if_(
                lt(i(), testing::var("count")),
                vec![
                    decl("p", Scalar::UChar, gload("img", i())),
                    store(
                        "out",
                        Space::Global,
                        i(),
                        cond(
                            KExpr::bin(BinOp::Gt, p(), testing::var("t")),
                            cast(Scalar::UChar, KExpr::bin(BinOp::Sub, KExpr::int(255), p())),
                            p(),
                        ),
                    ),
                ],
            ),
        ],
    ))
}

/// Every statement kind, literal edge cases, conversions, `_Bool` buffers and reserved names.
pub fn statements() -> Module {
    let i = || testing::var("i");
    let j = || testing::var("j");
    let body = vec![
        KStmt::Comment("every statement kind\nline two ends with a backslash \\".to_string()),
        decl("i", Scalar::Int, gid(0)),
        KStmt::DeclArray(testing::private("t", Scalar::Float, 4)),
        decl("local", Scalar::Int, KExpr::int(i32::MIN as i64)),
        decl("new", Scalar::Long, lit(i64::MIN, Scalar::Long)),
        decl("u", Scalar::UInt, lit(4_000_000_000, Scalar::UInt)),
        decl("big", Scalar::SizeT, lit(-1, Scalar::SizeT)),
        decl("m", Scalar::Int, call("min", vec![i(), testing::var("n")])),
        decl(
            "flag",
            Scalar::Bool,
            KExpr::bin(BinOp::Ne, i(), KExpr::int(0)),
        ),
        KStmt::For {
            unroll: false,
            init: vec![
                decl("j", Scalar::Int, KExpr::int(0)),
                decl("q", Scalar::Int, un(UnOp::Neg, KExpr::int(-1))),
            ],
            cond: Some(lt(j(), KExpr::int(4))),
            step: vec![
                set_op("j", BinOp::Add, KExpr::int(1)),
                set_op("q", BinOp::Sub, KExpr::int(1)),
            ],
            body: vec![store(
                "t",
                Space::Private,
                j(),
                call(
                    "sqrtf",
                    vec![cast(Scalar::Float, add(j(), testing::var("q")))],
                ),
            )],
        },
        KStmt::For {
            unroll: false,
            init: vec![
                decl("a", Scalar::Int, KExpr::int(0)),
                decl("b", Scalar::Float, flt(1e-5)),
            ],
            cond: None,
            step: vec![set_op("a", BinOp::Add, KExpr::int(1))],
            body: vec![
                KStmt::If {
                    cond: KExpr::bin(BinOp::Ge, testing::var("a"), KExpr::int(3)),
                    then: vec![KStmt::Break],
                    els: vec![KStmt::If {
                        cond: KExpr::bin(BinOp::Eq, testing::var("a"), KExpr::int(1)),
                        then: vec![KStmt::Continue],
                        els: vec![set_op("b", BinOp::Mul, flt(2.0))],
                    }],
                },
                store_op(
                    "t",
                    Space::Private,
                    KExpr::int(0),
                    BinOp::Add,
                    testing::var("b"),
                ),
            ],
        },
        KStmt::While {
            cond: KExpr::bin(BinOp::Gt, testing::var("u"), lit(1, Scalar::UInt)),
            body: vec![set_op("u", BinOp::Shr, lit(1, Scalar::UInt))],
        },
        KStmt::DoWhile {
            body: vec![set_op("m", BinOp::Sub, KExpr::int(1))],
            cond: KExpr::bin(
                BinOp::LogOr,
                KExpr::bin(BinOp::Gt, testing::var("m"), KExpr::int(0)),
                and(testing::var("flag"), lt(testing::var("m"), KExpr::int(-4))),
            ),
        },
        KStmt::Block(vec![
            decl("x", Scalar::Float, lload("t", KExpr::int(0))),
            set(
                "x",
                add(
                    call("fmaxf", vec![testing::var("x"), flt(f64::NEG_INFINITY)]),
                    call("powf", vec![testing::var("x"), KExpr::int(2)]),
                ),
            ),
            set("local", call("abs", vec![testing::var("local")])),
            store(
                "out",
                Space::Global,
                i(),
                add(
                    testing::var("x"),
                    cast(
                        Scalar::Float,
                        KExpr::bin(
                            BinOp::BitOr,
                            KExpr::bin(BinOp::BitAnd, testing::var("local"), KExpr::int(255)),
                            KExpr::bin(
                                BinOp::Shl,
                                add(testing::var("m"), KExpr::int(1)),
                                KExpr::int(2),
                            ),
                        ),
                    ),
                ),
            ),
        ]),
        store("flags", Space::Global, i(), testing::var("m")),
        store_op(
            "flags",
            Space::Global,
            i(),
            BinOp::BitOr,
            testing::var("flag"),
        ),
        decl(
            "sz",
            Scalar::Int,
            cast(
                Scalar::Int,
                add(
                    testing::var("big"),
                    cast(Scalar::SizeT, testing::var("new")),
                ),
            ),
        ),
        KStmt::Expr(call("fabsf", vec![testing::var("sz")])),
    ];
    module(kernel(
        "stmts_r0_k0",
        vec![
            buf("out", Scalar::Float, false),
            buf("flags", Scalar::Bool, false),
            scalar("n", Scalar::Int),
        ],
        [64, 1, 1],
        body,
    ))
}

/// Every C99 math function the printers know (but `scalbln`, which OpenCL lacks), in float and
/// double, with arguments of other types, plus non-finite literals.
pub fn math() -> Module {
    use crate::kernel::math::{REAL1, REAL2};
    let mut body = vec![
        decl("f", Scalar::Float, testing::var("x")),
        decl("z", Scalar::Double, testing::var("dx")),
        decl("i", Scalar::Int, gid(0)),
        decl("u", Scalar::UInt, cast(Scalar::UInt, testing::var("n"))),
        decl("l", Scalar::Long, cast(Scalar::Long, testing::var("n"))),
        decl("acc", Scalar::Float, flt(0.0)),
        decl("dacc", Scalar::Double, dbl(0.0)),
    ];
    let mut fsum = |e: KExpr| body.push(set_op("acc", BinOp::Add, e));
    for f in REAL1.iter().map(|r| r.name()) {
        fsum(call(&format!("{f}f"), vec![testing::var("f")]));
        fsum(call(&format!("{f}f"), vec![testing::var("i")]));
    }
    for f in REAL2.iter().map(|r| r.name()) {
        fsum(call(
            &format!("{f}f"),
            vec![testing::var("f"), KExpr::int(2)],
        ));
    }
    fsum(call(
        "fmaf",
        vec![testing::var("f"), testing::var("i"), dbl(0.5)],
    ));
    fsum(call("ldexpf", vec![testing::var("f"), testing::var("l")]));
    fsum(call("scalbnf", vec![testing::var("f"), KExpr::int(3)]));
    for f in ["ilogbf", "lrintf", "lroundf", "llrintf", "llroundf"] {
        fsum(call(f, vec![testing::var("f")]));
    }
    fsum(call("abs", vec![testing::var("f")]));
    fsum(call("labs", vec![testing::var("i")]));
    fsum(call("llabs", vec![testing::var("l")]));
    fsum(call("min", vec![testing::var("i"), testing::var("u")]));
    fsum(call("max", vec![testing::var("l"), KExpr::int(-1)]));
    fsum(flt(f64::NAN));
    fsum(flt(f64::NEG_INFINITY));
    let mut dsum = |e: KExpr| body.push(set_op("dacc", BinOp::Add, e));
    for f in REAL1.iter().map(|r| r.name()) {
        dsum(call(f, vec![testing::var("z")]));
        dsum(call(f, vec![testing::var("f")]));
    }
    for f in REAL2.iter().map(|r| r.name()) {
        dsum(call(f, vec![testing::var("z"), testing::var("i")]));
    }
    dsum(call(
        "fma",
        vec![testing::var("z"), testing::var("f"), KExpr::int(1)],
    ));
    dsum(call("ldexp", vec![testing::var("z"), testing::var("u")]));
    for f in ["ilogb", "lrint", "lround", "llrint", "llround"] {
        dsum(call(f, vec![testing::var("z")]));
    }
    dsum(dbl(f64::INFINITY));
    dsum(dbl(f64::NAN));
    body.push(store(
        "out",
        Space::Global,
        testing::var("i"),
        testing::var("acc"),
    ));
    body.push(store(
        "dout",
        Space::Global,
        testing::var("i"),
        testing::var("dacc"),
    ));
    let mut k = kernel(
        "math_r0_k0",
        vec![
            buf("out", Scalar::Float, false),
            buf("dout", Scalar::Double, false),
            scalar("x", Scalar::Float),
            scalar("dx", Scalar::Double),
            scalar("n", Scalar::Int),
        ],
        [32, 1, 1],
        body,
    );
    k.uses_double = true;
    module(k)
}

/// `#pragma acc atomic` on every element type and operator class: the targets' atomic
/// functions where they compute what C computes, compare-and-swap loops elsewhere (floats in
/// OpenCL, `*`, a reversed `-`, shifts, a `float` updated with a `double`), captures before
/// and after, an atomic read and write, and an atomic on a local array.
pub fn atomics() -> Module {
    use crate::kernel::{AtomicCapture, AtomicOp};
    let at = |a: &str, ty: Scalar, op: AtomicOp, cap: Option<(&str, bool)>| KStmt::Atomic {
        target: aref(a, Space::Global, gload("key", testing::var("i"))),
        ty,
        op,
        capture: cap.map(|(v, after)| AtomicCapture {
            var: testing::v(v),
            after,
        }),
    };
    let upd = |op: BinOp, value: KExpr| AtomicOp::Update {
        op,
        value,
        reversed: false,
    };
    let mut body = vec![
        decl("i", Scalar::Int, gid(0)),
        testing::decl("c", Scalar::Int, None),
        testing::decl("d", Scalar::Double, None),
        testing::decl("z", Scalar::SizeT, None),
        at("h", Scalar::Int, upd(BinOp::Add, KExpr::int(1)), None),
        at(
            "h",
            Scalar::Int,
            upd(BinOp::Sub, KExpr::int(2)),
            Some(("c", false)),
        ),
        at(
            "h",
            Scalar::Int,
            upd(BinOp::Mul, KExpr::int(3)),
            Some(("c", true)),
        ),
        at(
            "h",
            Scalar::Int,
            AtomicOp::Update {
                op: BinOp::Sub,
                value: KExpr::int(10),
                reversed: true,
            },
            None,
        ),
        at("h", Scalar::Int, upd(BinOp::Shl, KExpr::int(1)), None),
        at("h", Scalar::Int, AtomicOp::Read, Some(("c", false))),
        at(
            "u",
            Scalar::UInt,
            upd(BinOp::BitOr, lit(4, Scalar::UInt)),
            None,
        ),
        at(
            "f",
            Scalar::Float,
            upd(BinOp::Add, gload("w", testing::var("i"))),
            None,
        ),
        at("f", Scalar::Float, upd(BinOp::Sub, KExpr::int(1)), None),
        at("f", Scalar::Float, upd(BinOp::Add, dbl(0.1)), None),
        at("f", Scalar::Float, AtomicOp::Write(flt(2.5)), None),
        at(
            "g",
            Scalar::Double,
            upd(BinOp::Add, gload("w", testing::var("i"))),
            None,
        ),
        at(
            "g",
            Scalar::Double,
            upd(BinOp::Sub, dbl(0.5)),
            Some(("d", true)),
        ),
        at("g", Scalar::Double, upd(BinOp::Mul, dbl(1.5)), None),
        at("l", Scalar::Long, upd(BinOp::Add, testing::var("i")), None),
        at(
            "l",
            Scalar::Long,
            upd(BinOp::BitXor, lit(7, Scalar::Long)),
            None,
        ),
        at(
            "l",
            Scalar::Long,
            AtomicOp::Write(lit(-1, Scalar::Long)),
            None,
        ),
        at(
            "s",
            Scalar::SizeT,
            upd(BinOp::Add, KExpr::int(1)),
            Some(("z", false)),
        ),
        store(
            "out",
            Space::Global,
            testing::var("i"),
            add(testing::var("c"), cast(Scalar::Int, testing::var("z"))),
        ),
        store("dout", Space::Global, testing::var("i"), testing::var("d")),
    ];
    body.push(KStmt::Atomic {
        target: aref("cnt", Space::Local, KExpr::int(0)),
        ty: Scalar::Int,
        op: upd(BinOp::Add, KExpr::int(1)),
        capture: None,
    });
    let mut k = kernel(
        "atomics_r0_k0",
        vec![
            buf("h", Scalar::Int, false),
            buf("u", Scalar::UInt, false),
            buf("f", Scalar::Float, false),
            buf("g", Scalar::Double, false),
            buf("l", Scalar::Long, false),
            buf("s", Scalar::SizeT, false),
            buf("key", Scalar::Int, true),
            buf("w", Scalar::Float, true),
            buf("out", Scalar::Int, false),
            buf("dout", Scalar::Double, false),
        ],
        [64, 1, 1],
        body,
    );
    local_in(&mut k, "cnt", Scalar::Int, 1);
    k.uses_double = true;
    module(k)
}

/// All sample modules, by name.
pub fn all() -> Vec<(&'static str, Module)> {
    vec![
        ("vector_add", vector_add()),
        ("tiled_matmul", tiled_matmul()),
        ("reduction", reduction()),
        ("double_axpy", double_axpy()),
        ("uchar_threshold", uchar_threshold()),
        ("statements", statements()),
        ("math", math()),
        ("atomics", atomics()),
    ]
}
