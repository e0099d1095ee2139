//! Reductions: identities, combining operators, the work-group tree.

use crate::kernel::math::{MathFn, Real};
use crate::vocab::RedOp;
use crate::vocab::{BinOp, Scalar, UnOp};

use super::*;

pub(super) fn identity(op: RedOp, ty: Scalar) -> KExpr {
    let int = |v: i64| KExpr::Int(v, ty);
    match op {
        RedOp::Add | RedOp::BitOr | RedOp::BitXor | RedOp::LogOr => {
            if ty.is_float() {
                KExpr::Float(0.0, ty == Scalar::Float)
            } else {
                int(0)
            }
        }
        RedOp::Mul | RedOp::LogAnd => {
            if ty.is_float() {
                KExpr::Float(1.0, ty == Scalar::Float)
            } else {
                int(1)
            }
        }
        RedOp::BitAnd => KExpr::Unary(UnOp::BitNot, Box::new(KExpr::Int(0, ty))),
        RedOp::Max | RedOp::Min => {
            let max = op == RedOp::Max;
            if ty.is_float() {
                KExpr::Float(
                    if max {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    },
                    ty == Scalar::Float,
                )
            } else {
                let (lo, hi) = int_range(ty);
                int(if max { lo } else { hi })
            }
        }
    }
}

pub(super) fn int_range(ty: Scalar) -> (i64, i64) {
    match ty {
        Scalar::Bool => (0, 1),
        Scalar::Char | Scalar::SChar => (i8::MIN as i64, i8::MAX as i64),
        Scalar::UChar => (0, u8::MAX as i64),
        Scalar::Short => (i16::MIN as i64, i16::MAX as i64),
        Scalar::UShort => (0, u16::MAX as i64),
        Scalar::Int => (i32::MIN as i64, i32::MAX as i64),
        Scalar::UInt => (0, u32::MAX as i64),
        Scalar::Long | Scalar::LongLong => (i64::MIN, i64::MAX),
        _ => (0, i64::MAX),
    }
}

/// Combines `a` and `b` with a reduction operator.
pub(super) fn combine(op: RedOp, ty: Scalar, a: KExpr, b: KExpr) -> KExpr {
    let bin = |o: BinOp| KExpr::bin(o, a.clone(), b.clone());
    match op {
        RedOp::Add => bin(BinOp::Add),
        RedOp::Mul => bin(BinOp::Mul),
        RedOp::BitAnd => bin(BinOp::BitAnd),
        RedOp::BitOr => bin(BinOp::BitOr),
        RedOp::BitXor => bin(BinOp::BitXor),
        RedOp::LogAnd => bin(BinOp::LogAnd),
        RedOp::LogOr => bin(BinOp::LogOr),
        RedOp::Max | RedOp::Min => {
            if ty.is_float() {
                let f = if op == RedOp::Max {
                    Real::Fmax
                } else {
                    Real::Fmin
                };
                KExpr::Call(MathFn::Real(f, ty == Scalar::Float), vec![a, b])
            } else {
                let cmp = if op == RedOp::Max {
                    BinOp::Gt
                } else {
                    BinOp::Lt
                };
                KExpr::Cond(
                    Box::new(KExpr::bin(cmp, a.clone(), b.clone())),
                    Box::new(a),
                    Box::new(b),
                )
            }
        }
    }
}

/// The work-group tree reduction of `var` through local array `arr`, then the partial result of
/// the group to `part[group]`. Every thread reaches every barrier (no barrier under a
/// thread-dependent condition). Its own scalars are new ones of `vars`.
pub(super) fn reduction_epilogue(
    (arr, part): (Handle<KArray>, Handle<KArray>),
    (vars, var): (&super::walk::VarTable, Handle<KVar>),
    op: RedOp,
    ty: Scalar,
    threads: u32,
) -> Vec<KStmt> {
    let lid_var = vars.add("accshare_lid", Scalar::Int, VarKind::Private);
    let s_var = vars.add("accshare_s", Scalar::Int, VarKind::Private);
    let name = vars.name(var);
    let lid = || KExpr::Var(lid_var);
    let local = |i: KExpr| ArrayRef {
        array: arr,
        index: Box::new(i),
        field: None,
    };
    let b = Box::new;
    let linear_local = KExpr::Binary(
        BinOp::Add,
        b(KExpr::Builtin(Builtin::LocalId(0))),
        b(KExpr::Binary(
            BinOp::Mul,
            b(KExpr::Builtin(Builtin::LocalSize(0))),
            b(KExpr::Binary(
                BinOp::Add,
                b(KExpr::Builtin(Builtin::LocalId(1))),
                b(KExpr::Binary(
                    BinOp::Mul,
                    b(KExpr::Builtin(Builtin::LocalSize(1))),
                    b(KExpr::Builtin(Builtin::LocalId(2))),
                )),
            )),
        )),
    );
    let linear_group = KExpr::Binary(
        BinOp::Add,
        b(KExpr::Builtin(Builtin::GroupId(0))),
        b(KExpr::Binary(
            BinOp::Mul,
            b(KExpr::Builtin(Builtin::NumGroups(0))),
            b(KExpr::Binary(
                BinOp::Add,
                b(KExpr::Builtin(Builtin::GroupId(1))),
                b(KExpr::Binary(
                    BinOp::Mul,
                    b(KExpr::Builtin(Builtin::NumGroups(1))),
                    b(KExpr::Builtin(Builtin::GroupId(2))),
                )),
            )),
        )),
    );
    let s = || KExpr::Var(s_var);
    vec![
        KStmt::Comment(format!(
            "reduction of `{}`: tree in local memory, one partial per work-group",
            name
        )),
        KStmt::Block(vec![
            KStmt::Decl {
                var: lid_var,
                init: Some(linear_local),
            },
            KStmt::Assign {
                target: LValue::Elem(local(lid())),
                op: None,
                value: KExpr::Var(var),
            },
            KStmt::Barrier,
            KStmt::For {
                unroll: false,
                init: vec![KStmt::Decl {
                    var: s_var,
                    init: Some(KExpr::Int((threads / 2) as i64, Scalar::Int)),
                }],
                cond: Some(KExpr::Binary(BinOp::Gt, b(s()), b(KExpr::int(0)))),
                step: vec![KStmt::Assign {
                    target: LValue::Var(s_var),
                    op: Some(BinOp::Shr),
                    value: KExpr::int(1),
                }],
                body: vec![
                    KStmt::If {
                        cond: KExpr::Binary(BinOp::Lt, b(lid()), b(s())),
                        then: vec![KStmt::Assign {
                            target: LValue::Elem(local(lid())),
                            op: None,
                            value: combine(
                                op,
                                ty,
                                KExpr::Load(local(lid())),
                                KExpr::Load(local(KExpr::Binary(BinOp::Add, b(lid()), b(s())))),
                            ),
                        }],
                        els: Vec::new(),
                    },
                    KStmt::Barrier,
                ],
            },
            KStmt::If {
                cond: KExpr::Binary(BinOp::Eq, b(lid()), b(KExpr::int(0))),
                then: vec![KStmt::Assign {
                    target: LValue::Elem(ArrayRef {
                        array: part,
                        index: b(linear_group),
                        field: None,
                    }),
                    op: None,
                    value: KExpr::Load(local(KExpr::int(0))),
                }],
                els: Vec::new(),
            },
        ]),
    ]
}
