//! AST expressions → the IR's expressions ([`crate::ir::expr`]).

use std::collections::BTreeMap;

use crate::front::ast::{self, CType, ExprKind};
use crate::ir::arena::Handle;
use crate::ir::expr::{Expr, Exprs, SizeOf, TypeName};
use crate::ir::host::{Initializer, Opaque};
use crate::vocab::Scalar;

/// The C type of an integer literal (C99 6.4.4.1, LP64).
pub fn int_literal_type(value: u64, suffix: ast::IntSuffix, radix: u32) -> Scalar {
    let fits_int = value <= i32::MAX as u64;
    let fits_uint = value <= u32::MAX as u64;
    let fits_long = value <= i64::MAX as u64;
    match (suffix.unsigned, suffix.longs) {
        (false, 0) if fits_int => Scalar::Int,
        (false, 0) if radix != 10 && fits_uint => Scalar::UInt,
        (false, 0) | (false, 1) if fits_long => Scalar::Long,
        (false, 2) if fits_long => Scalar::LongLong,
        (true, 0) if fits_uint => Scalar::UInt,
        (true, 0) | (true, 1) => Scalar::ULong,
        (true, _) => Scalar::ULongLong,
        _ => Scalar::ULong,
    }
}

/// `e` appended to `exprs` (its operands first); its handle. `sizeof` a variable is of unknown
/// size ([`lower_expr_sized`] knows the variables in scope).
pub fn lower_expr(exprs: &mut Exprs, e: &ast::Expr) -> Handle<Expr> {
    lower_expr_sized(exprs, e, &|_| None)
}

/// [`lower_expr`], with `size_of(name)` the size in bytes of variable `name` (for `sizeof x`).
pub fn lower_expr_sized(
    exprs: &mut Exprs,
    e: &ast::Expr,
    size_of: &dyn Fn(&str) -> Option<u64>,
) -> Handle<Expr> {
    lower_expr_parts(exprs, e, size_of, None)
}

/// The parts of the opaque expressions of the host code, by handle ([`crate::ir::host`]).
pub type Parts = BTreeMap<Handle<Expr>, Opaque>;

/// [`lower_expr_sized`], keeping in `parts` (when given) the lowered parts of the opaque
/// expressions (calls through pointers, compound literals).
pub fn lower_expr_parts(
    exprs: &mut Exprs,
    e: &ast::Expr,
    size_of: &dyn Fn(&str) -> Option<u64>,
    mut parts: Option<&mut Parts>,
) -> Handle<Expr> {
    if let (Some(p), ExprKind::IndirectCall(..) | ExprKind::CompoundLit(..)) = (&mut parts, &e.kind)
    {
        return opaque_parts(exprs, e, size_of, p);
    }
    let mut sub = |x: &ast::Expr| lower_expr_parts(exprs, x, size_of, parts.as_deref_mut());
    let lowered = match &e.kind {
        ExprKind::Ident(v) => Expr::Var(v.clone()),
        ExprKind::Int {
            value,
            suffix,
            radix,
        } => Expr::Int {
            value: *value,
            ty: int_literal_type(*value, *suffix, *radix),
        },
        ExprKind::Char(c) => Expr::Int {
            value: *c as u64,
            ty: Scalar::Int,
        },
        ExprKind::Float { value, single } => Expr::Float {
            value: *value,
            ty: if *single {
                Scalar::Float
            } else {
                Scalar::Double
            },
        },
        ExprKind::Unary(op, a) => Expr::Unary {
            op: *op,
            arg: sub(a),
        },
        ExprKind::Binary(op, l, r) => {
            let left = sub(l);
            Expr::Binary {
                op: *op,
                left,
                right: sub(r),
            }
        }
        ExprKind::Cond(c, a, b) => {
            let cond = sub(c);
            let accept = sub(a);
            Expr::Select {
                cond,
                accept,
                reject: sub(b),
            }
        }
        ExprKind::Cast(t, a) => match t.unqualified() {
            CType::Scalar(ty) => Expr::Cast {
                ty: *ty,
                arg: sub(a),
            },
            other => Expr::CastOther {
                ty: type_name(other),
                arg: sub(a),
            },
        },
        ExprKind::Index(b, i) => {
            let base = sub(b);
            Expr::Index {
                base,
                index: sub(i),
            }
        }
        ExprKind::Call(f, args) => Expr::Call {
            function: f.name.clone(),
            name_span: f.span,
            args: args.iter().map(sub).collect(),
        },
        ExprKind::Assign(op, t, v) => {
            let target = sub(t);
            Expr::Assign {
                op: *op,
                target,
                value: sub(v),
            }
        }
        ExprKind::IncDec { inc, prefix, arg } => Expr::IncDec {
            inc: *inc,
            prefix: *prefix,
            arg: sub(arg),
        },
        ExprKind::Comma(l, r) => {
            let left = sub(l);
            Expr::Comma {
                left,
                right: sub(r),
            }
        }
        ExprKind::Member { base, field, arrow } => Expr::Member {
            base: sub(base),
            field: field.name.clone(),
            arrow: *arrow,
        },
        ExprKind::SizeofType(t) => Expr::Sizeof {
            size: sizeof_type(t),
            of: SizeOf::Type(type_name(t)),
        },
        ExprKind::SizeofExpr(a) => Expr::Sizeof {
            size: match &a.kind {
                ExprKind::Ident(n) => size_of(n),
                _ => None,
            },
            of: SizeOf::Expr(sub(a)),
        },
        ExprKind::Str(s) => Expr::Str(s.clone()),
        ExprKind::IndirectCall(..) | ExprKind::CompoundLit(..) => {
            let mut names = Vec::new();
            names_in(e, &mut names);
            Expr::Opaque {
                span: e.span,
                names,
            }
        }
    };
    exprs.append(lowered, e.span)
}

/// An opaque expression of the host code (a call through a pointer, a compound literal): its
/// parts, then itself; its parts recorded in `parts`.
fn opaque_parts(
    exprs: &mut Exprs,
    e: &ast::Expr,
    size_of: &dyn Fn(&str) -> Option<u64>,
    parts: &mut Parts,
) -> Handle<Expr> {
    let lowered = match &e.kind {
        ExprKind::IndirectCall(callee, args) => {
            let callee = lower_expr_parts(exprs, callee, size_of, Some(parts));
            Opaque::IndirectCall {
                callee,
                args: args
                    .iter()
                    .map(|a| lower_expr_parts(exprs, a, size_of, Some(parts)))
                    .collect(),
            }
        }
        ExprKind::CompoundLit(_, inits) => Opaque::CompoundLit {
            inits: inits
                .iter()
                .map(|i| lower_init(exprs, i, size_of, parts))
                .collect(),
        },
        _ => unreachable!("only calls through pointers and compound literals are opaque parts"),
    };
    let mut names = Vec::new();
    names_in(e, &mut names);
    let h = exprs.append(
        Expr::Opaque {
            span: e.span,
            names,
        },
        e.span,
    );
    parts.insert(h, lowered);
    h
}

/// An initializer of the host code, its expressions lowered into `exprs`.
pub fn lower_init(
    exprs: &mut Exprs,
    i: &ast::Initializer,
    size_of: &dyn Fn(&str) -> Option<u64>,
    parts: &mut Parts,
) -> Initializer {
    match i {
        ast::Initializer::Expr(e) => {
            Initializer::Expr(lower_expr_parts(exprs, e, size_of, Some(parts)))
        }
        ast::Initializer::List(v, _) => Initializer::List(
            v.iter()
                .map(|i| lower_init(exprs, i, size_of, parts))
                .collect(),
        ),
        ast::Initializer::Designated {
            designators, init, ..
        } => {
            let mut indices = Vec::new();
            for d in designators {
                match d {
                    ast::Designator::Field(_) => {}
                    ast::Designator::Index(e) => {
                        indices.push(lower_expr_parts(exprs, e, size_of, Some(parts)))
                    }
                    ast::Designator::Range(a, b) => {
                        indices.push(lower_expr_parts(exprs, a, size_of, Some(parts)));
                        indices.push(lower_expr_parts(exprs, b, size_of, Some(parts)));
                    }
                }
            }
            Initializer::Designated {
                indices,
                init: Box::new(lower_init(exprs, init, size_of, parts)),
            }
        }
    }
}

/// `e` in an arena of its own: an expression of the user's function the host plan evaluates
/// (a data clause's bounds, an `if` clause, an extent of a declaration).
pub fn detach_user(e: &ast::Expr) -> crate::ir::Detached {
    let mut exprs = Exprs::new();
    let root = lower_expr(&mut exprs, e);
    crate::ir::Detached { exprs, root }
}

/// The IR's name of type `t`, where it has one (not for arrays and functions).
pub fn type_name(t: &CType) -> Option<TypeName> {
    name_of(t, false)
}

/// The IR's name of the type `t` of a variable the host code declares (a struct member's,
/// [`crate::ir::directive::MemberAlias`]): [`type_name`], arrays too (what a pointer points
/// to); not for functions, nor for a struct without a name.
pub fn declared_type(t: &CType) -> Option<TypeName> {
    name_of(t, true)
}

/// [`type_name`]; `arrays`: [`declared_type`].
fn name_of(t: &CType, arrays: bool) -> Option<TypeName> {
    Some(match t {
        CType::Void => TypeName::Void,
        CType::Scalar(s) => TypeName::Scalar(*s),
        CType::Named(n) => TypeName::Named(n.clone()),
        CType::Tagged { kind, name } => TypeName::Tagged {
            keyword: match kind {
                ast::TagKind::Struct => "struct",
                ast::TagKind::Union => "union",
                ast::TagKind::Enum => "enum",
            },
            tag: name.clone(),
        },
        CType::Struct(d) if d.typedef.is_some() || !d.tag.is_empty() => TypeName::Named(d.c_name()),
        CType::Pointer {
            to,
            is_const,
            is_restrict,
        } => TypeName::Pointer {
            to: Box::new(name_of(to, arrays)?),
            is_const: *is_const,
            is_restrict: *is_restrict,
        },
        CType::Const(inner) => TypeName::Const(Box::new(name_of(inner, arrays)?)),
        CType::Array { elem, len } if arrays => TypeName::Array {
            elem: Box::new(name_of(elem, arrays)?),
            len: len.as_ref().map(|e| Box::new(detach_user(e))),
        },
        CType::Struct(_) | CType::Array { .. } | CType::Function { .. } => return None,
    })
}

/// The size in bytes of a scalar, pointer or constant-extent array type (LP64).
pub fn sizeof_type(t: &CType) -> Option<u64> {
    match t.unqualified() {
        CType::Scalar(s) => Some(s.size() as u64),
        CType::Pointer { .. } => Some(8),
        CType::Array { elem, len } => {
            let n = len
                .as_ref()
                .and_then(|e| crate::ir::lower::expr_poly(e, &|_| false))
                .and_then(|p| p.as_const())?;
            sizeof_type(elem)?.checked_mul(u64::try_from(n).ok()?)
        }
        _ => None,
    }
}

/// Every identifier `e` names (variables, arrays, called functions, members' bases).
fn names_in(e: &ast::Expr, out: &mut Vec<String>) {
    e.walk(&mut |x| match &x.kind {
        ExprKind::Ident(v) => out.push(v.clone()),
        ExprKind::Call(f, _) => out.push(f.name.clone()),
        _ => {}
    })
}
