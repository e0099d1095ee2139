//! Syntactic recognisers over the AST: canonical loops, reduction shapes, affine forms, array
//! shapes.

use super::*;
use crate::diag::SourceMap;
use crate::front::ast::{self, CType, Expr, ExprKind, ForInit, Stmt, StmtKind};
use crate::front::pragma_ast::{AccDirective, ClauseKind, Construct, DataKind};
use crate::vocab::{BinOp, UnOp};

use super::scope::Scope;

/// Converts an integer expression to a polynomial; `is_sym` says which identifiers may appear.
pub fn expr_poly(e: &Expr, is_sym: &dyn Fn(&str) -> bool) -> Option<Poly> {
    match &e.kind {
        ExprKind::Int { value, .. } => i64::try_from(*value).ok().map(Poly::constant),
        ExprKind::Char(c) => Some(Poly::constant(*c)),
        ExprKind::Ident(n) if is_sym(n) => Some(Poly::var(n)),
        ExprKind::Unary(UnOp::Neg, a) => expr_poly(a, is_sym)?.neg(),
        ExprKind::Unary(UnOp::Plus, a) => expr_poly(a, is_sym),
        ExprKind::Cast(t, a) if matches!(t.unqualified(), CType::Scalar(s) if !s.is_float()) => {
            expr_poly(a, is_sym)
        }
        ExprKind::Binary(op, a, b) => {
            let (pa, pb) = (expr_poly(a, is_sym)?, expr_poly(b, is_sym)?);
            match op {
                BinOp::Add => pa.add(&pb),
                BinOp::Sub => pa.sub(&pb),
                BinOp::Mul => pa.mul(&pb),
                BinOp::Shl => pb
                    .as_const()
                    .filter(|k| (0..31).contains(k))
                    .and_then(|k| pa.scale(1 << k)),
                // Exact division of constants only (C truncation makes the rest non-affine).
                BinOp::Div => match (pa.as_const(), pb.as_const()) {
                    (Some(x), Some(y)) if y != 0 => x.checked_div(y).map(Poly::constant),
                    _ => None,
                },
                BinOp::Rem => match (pa.as_const(), pb.as_const()) {
                    (Some(x), Some(y)) if y != 0 => x.checked_rem(y).map(Poly::constant),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

pub(super) fn poly_of_const_expr(e: &Expr, scope: &Scope) -> Option<Poly> {
    expr_poly(e, &|n: &str| {
        scope
            .get(n)
            .is_some_and(|s| matches!(s.ty.unqualified(), CType::Scalar(k) if !k.is_float()))
    })
}

/// The element type, per-dimension extents and pointer-ness of an array-like type.
pub fn array_shape(ty: &CType) -> Option<(Scalar, Vec<Option<Expr>>, bool)> {
    let mut extents = Vec::new();
    let mut cur = ty.unqualified();
    let mut is_pointer = false;
    let mut first = true;
    loop {
        match cur {
            CType::Pointer { to, .. } if first => {
                extents.push(None);
                is_pointer = true;
                cur = to.unqualified();
            }
            CType::Array { elem, len } => {
                extents.push(len.as_deref().cloned());
                cur = elem.unqualified();
            }
            CType::Scalar(s) if !extents.is_empty() => return Some((*s, extents, is_pointer)),
            // An array of structs of `k` scalar fields of one type is, in memory, an array of
            // that scalar with one more dimension of extent `k` (no padding): its fields are
            // the last subscript (`a[i].im` is element `[i][1]`), so dependence analysis tells
            // fields apart and transfers count the struct's bytes.
            CType::Struct(d) if !extents.is_empty() => {
                let (s, fields) = d.scalar_fields().ok()?;
                extents.push(Some(Expr::new(
                    ExprKind::Int {
                        value: fields.len() as u64,
                        suffix: Default::default(),
                        radix: 10,
                    },
                    d.span,
                )));
                return Some((s, extents, is_pointer));
            }
            _ => return None,
        }
        first = false;
    }
}

pub(super) fn is_const_elem(ty: &CType) -> bool {
    match ty {
        CType::Const(t) => matches!(t.as_ref(), CType::Scalar(_)) || is_const_elem(t),
        CType::Pointer { to, .. } => is_const_elem(to),
        CType::Array { elem, .. } => is_const_elem(elem),
        _ => false,
    }
}

pub(super) fn const_u32(e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Int { value, .. } => u32::try_from(*value).ok(),
        _ => None,
    }
}

pub(super) fn is_single_loop(body: &Stmt) -> bool {
    match &body.kind {
        StmtKind::For { .. } => true,
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Loop => is_single_loop(body),
        StmtKind::Block(b) => {
            let real = statements(b);
            real.len() == 1 && is_single_loop(real[0])
        }
        _ => false,
    }
}

/// The scalars the statements before a loop body's one inner loop assign, where they may run
/// again in every iteration of the inner loops ([`crate::ir::Loop::prefix`]): each is `x = e;`
/// or a declaration `T x = e;` of a scalar, `e` pure ([`Expr::is_pure`], no address taken) and
/// reading no scalar the prefix assigns at or after it nor one the inner loop assigns, and the
/// inner loop assigns none of them. `None` where the body is not such statements and then one loop (a perfect body too).
pub(super) fn sinkable_prefix(body: &Stmt) -> Option<Vec<String>> {
    let StmtKind::Block(b) = &body.kind else {
        return None;
    };
    let real = statements(b);
    let (inner, before) = real.split_last()?;
    if before.is_empty() || !is_single_loop(inner) {
        return None;
    }
    // (name, value) in order.
    let mut defs: Vec<(String, &Expr)> = Vec::new();
    for s in before {
        match &s.kind {
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Assign(None, lhs, rhs) => match &lhs.kind {
                    ExprKind::Ident(x) => defs.push((x.clone(), rhs)),
                    _ => return None,
                },
                _ => return None,
            },
            StmtKind::Decl(d) => {
                for dec in &d.declarators {
                    let (CType::Scalar(_), Some(ast::Initializer::Expr(e))) =
                        (dec.ty.unqualified(), &dec.init)
                    else {
                        return None;
                    };
                    defs.push((dec.name.name.clone(), e));
                }
            }
            _ => return None,
        }
    }
    for (k, (_, e)) in defs.iter().enumerate() {
        let mut address = false;
        e.walk(&mut |x| address |= matches!(x.kind, ExprKind::Unary(UnOp::AddrOf, _)));
        let reads = e.idents();
        // A value the inner loop changes (its iterator too) would differ when recomputed.
        if !e.is_pure()
            || address
            || defs[k..].iter().any(|(n, _)| reads.contains(n))
            || reads.iter().any(|n| inner.assigns(n))
        {
            return None;
        }
    }
    let names: Vec<String> = defs.into_iter().map(|(n, _)| n).collect();
    if names.iter().any(|n| inner.assigns(n)) {
        return None;
    }
    Some(names)
}

/// A block's statements other than empty ones and standalone directives.
fn statements(b: &ast::Block) -> Vec<&Stmt> {
    b.stmts
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Empty | StmtKind::AccStandalone(_)))
        .collect()
}

/// The span of a `for (…)` header: from `for` to the closing parenthesis.
pub(super) fn trim_header(sources: &SourceMap, span: Span) -> Span {
    let text = sources.snippet(span);
    let mut depth = 0i32;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Span {
                        hi: span.lo + i as u32 + 1,
                        ..span
                    };
                }
            }
            _ => {}
        }
    }
    span
}

/// Recognises `for (v = lb; v < ub; v += c)` and its variants. Returns the iterator, its type,
/// the lower bound, the exclusive upper-bound expression, an adjustment to add to it (`<=` → +1,
/// `>=` → -1), and the step.
pub(super) fn canonical(
    init: &ForInit,
    cond: Option<&Expr>,
    step: Option<&Expr>,
    scope: &Scope,
) -> Option<(String, Scalar, Expr, Expr, i64, i64)> {
    let (var, ty, lower) = match init {
        ForInit::Decl(d) if d.declarators.len() == 1 => {
            let dec = &d.declarators[0];
            let Some(ast::Initializer::Expr(e)) = &dec.init else {
                return None;
            };
            let CType::Scalar(s) = dec.ty.unqualified() else {
                return None;
            };
            (dec.name.name.clone(), *s, e.clone())
        }
        ForInit::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, rhs),
            ..
        }) => {
            let ExprKind::Ident(n) = &lhs.kind else {
                return None;
            };
            let ty = match scope.get(n).map(|s| s.ty.unqualified()) {
                Some(CType::Scalar(s)) => *s,
                _ => return None,
            };
            (n.clone(), ty, (**rhs).clone())
        }
        _ => return None,
    };
    if ty.is_float() {
        return None;
    }
    let stepc = step_const(step?, &var)?;
    let cond = cond?;
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    let is_var = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if *n == var);
    let (op, bound) = if is_var(a) {
        (*op, (**b).clone())
    } else if is_var(b) {
        let flipped = match op {
            BinOp::Lt => BinOp::Gt,
            BinOp::Gt => BinOp::Lt,
            BinOp::Le => BinOp::Ge,
            BinOp::Ge => BinOp::Le,
            _ => return None,
        };
        (flipped, (**a).clone())
    } else {
        return None;
    };
    if bound_mentions(&bound, &var) {
        return None;
    }
    let adj = match (op, stepc > 0) {
        (BinOp::Lt, true) | (BinOp::Gt, false) => 0,
        (BinOp::Le, true) => 1,
        (BinOp::Ge, false) => -1,
        _ => return None,
    };
    Some((var, ty, lower, bound, adj, stepc))
}

/// The reduction operator of `s op= e`, `s = s op e`, `s = e op s`, `s = fmaxf(s, e)` … when `e`
/// does not mention `s` (see [`Statement::reduction`]).
pub(super) fn reduction_shape(lhs: &Expr, op: Option<BinOp>, rhs: &Expr) -> Option<RedOp> {
    let ExprKind::Ident(s) = &lhs.kind else {
        return None;
    };
    let red = |op: BinOp| match op {
        BinOp::Add | BinOp::Sub => Some(RedOp::Add),
        BinOp::Mul => Some(RedOp::Mul),
        BinOp::BitAnd => Some(RedOp::BitAnd),
        BinOp::BitOr => Some(RedOp::BitOr),
        BinOp::BitXor => Some(RedOp::BitXor),
        BinOp::LogAnd => Some(RedOp::LogAnd),
        BinOp::LogOr => Some(RedOp::LogOr),
        _ => None,
    };
    if let Some(op) = op {
        return if expr_mentions(rhs, s) { None } else { red(op) };
    }
    match &rhs.kind {
        ExprKind::Binary(bop, _, _) => {
            let r = red(*bop)?;
            // The operands of a chain of the same operator (`+`/`-` together): `s` must be
            // exactly one of them, not subtracted, and no other operand may mention it.
            let mut leaves: Vec<(&Expr, bool)> = Vec::new();
            let mut stack: Vec<(&Expr, bool)> = vec![(rhs, false)];
            while let Some((e, negated)) = stack.pop() {
                match &e.kind {
                    ExprKind::Binary(o, a, b) if red(*o) == Some(r) && leaves.len() < 256 => {
                        stack.push((a, negated));
                        stack.push((b, negated ^ (*o == BinOp::Sub)));
                    }
                    _ => leaves.push((e, negated)),
                }
            }
            let is_s = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == s);
            let selves: Vec<&(&Expr, bool)> = leaves.iter().filter(|(e, _)| is_s(e)).collect();
            let ok = selves.len() == 1
                && !selves[0].1
                && leaves.iter().all(|(e, _)| is_s(e) || !expr_mentions(e, s));
            ok.then_some(r)
        }
        ExprKind::Call(f, args) if args.len() == 2 => {
            let r = match f.name.as_str() {
                "fmaxf" | "fmax" | "max" => RedOp::Max,
                "fminf" | "fmin" | "min" => RedOp::Min,
                _ => return None,
            };
            let is_s = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == s);
            let ok = (is_s(&args[0]) && !expr_mentions(&args[1], s))
                || (is_s(&args[1]) && !expr_mentions(&args[0], s));
            ok.then_some(r)
        }
        ExprKind::Cond(c, x, y) => minmax_select(s, c, x, y),
        _ => None,
    }
}

/// `Max` or `Min` when `c ? x : y` picks the larger or the smaller of the scalar `s` and an
/// expression `e` that does not mention it: `c` compares them (`e > s`, `s < e`, `>=`, `<=`,
/// either order) and the branches are the two of them (`e > s ? e : s` is `Max`,
/// `s < e ? s : e` is `Min`). `if (c) s = e;` is `s = c ? e : s`.
pub(super) fn minmax_select(s: &str, c: &Expr, x: &Expr, y: &Expr) -> Option<RedOp> {
    let ExprKind::Binary(cmp, l, r) = &c.kind else {
        return None;
    };
    // The comparison holds when its left operand is the larger.
    let left_larger = match cmp {
        BinOp::Gt | BinOp::Ge => true,
        BinOp::Lt | BinOp::Le => false,
        _ => return None,
    };
    let is_s = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == s);
    let e = match (is_s(l), is_s(r)) {
        (true, false) => r,
        (false, true) => l,
        _ => return None,
    };
    if expr_mentions(e, s) {
        return None;
    }
    let same = |a: &Expr, b: &Expr| {
        crate::front::pragma::expr_to_c(a) == crate::front::pragma::expr_to_c(b)
    };
    let picks_left = if same(x, l) && same(y, r) {
        true
    } else if same(x, r) && same(y, l) {
        false
    } else {
        return None;
    };
    Some(if left_larger == picks_left {
        RedOp::Max
    } else {
        RedOp::Min
    })
}

/// Whether an expression mentions the identifier `name` anywhere.
pub(super) fn expr_mentions(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => n == name,
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::SizeofExpr(a)
        | ExprKind::IncDec { arg: a, .. } => expr_mentions(a, name),
        ExprKind::Binary(_, a, b)
        | ExprKind::Assign(_, a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Comma(a, b) => expr_mentions(a, name) || expr_mentions(b, name),
        ExprKind::Cond(a, b, c) => {
            expr_mentions(a, name) || expr_mentions(b, name) || expr_mentions(c, name)
        }
        ExprKind::Call(_, args) => args.iter().any(|a| expr_mentions(a, name)),
        ExprKind::Member { base, .. } => expr_mentions(base, name),
        _ => false,
    }
}

pub(super) fn bound_mentions(e: &Expr, var: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => n == var,
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => bound_mentions(a, var),
        ExprKind::Binary(_, a, b) => bound_mentions(a, var) || bound_mentions(b, var),
        ExprKind::Cond(a, b, c) => {
            bound_mentions(a, var) || bound_mentions(b, var) || bound_mentions(c, var)
        }
        ExprKind::Call(_, args) => args.iter().any(|a| bound_mentions(a, var)),
        ExprKind::Index(a, b) => bound_mentions(a, var) || bound_mentions(b, var),
        ExprKind::Int { .. }
        | ExprKind::Float { .. }
        | ExprKind::Char(_)
        | ExprKind::SizeofType(_) => false,
        _ => true,
    }
}

pub(super) fn step_const(e: &Expr, var: &str) -> Option<i64> {
    let is_var = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == var);
    let int = |e: &Expr| match &e.kind {
        ExprKind::Int { value, .. } => i64::try_from(*value).ok().filter(|v| *v != 0),
        _ => None,
    };
    match &e.kind {
        ExprKind::IncDec { inc, arg, .. } if is_var(arg) => Some(if *inc { 1 } else { -1 }),
        ExprKind::Assign(Some(BinOp::Add), l, r) if is_var(l) => int(r),
        ExprKind::Assign(Some(BinOp::Sub), l, r) if is_var(l) => int(r).map(|v| -v),
        ExprKind::Assign(None, l, r) if is_var(l) => match &r.kind {
            ExprKind::Binary(BinOp::Add, a, b) if is_var(a) => int(b),
            ExprKind::Binary(BinOp::Add, a, b) if is_var(b) => int(a),
            ExprKind::Binary(BinOp::Sub, a, b) if is_var(a) => int(b).map(|v| -v),
            _ => None,
        },
        _ => None,
    }
}

/// The arrays a directive's data clauses name with the `zero:` modifier.
pub fn zeroed_arrays(dir: &AccDirective) -> std::collections::BTreeSet<String> {
    dir.clauses
        .iter()
        .flat_map(|c| match &c.kind {
            ClauseKind::Data {
                vars, zero: true, ..
            } => vars.iter().map(|v| v.name.name.clone()).collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .collect()
}

/// Data-clause lookups shared by the host plan.
pub fn data_clauses(
    dir: &AccDirective,
) -> impl Iterator<Item = (DataKind, &crate::front::pragma_ast::SubArray)> {
    dir.clauses.iter().flat_map(|c| match &c.kind {
        ClauseKind::Data { kind, vars, .. } => vars.iter().map(|v| (*kind, v)).collect::<Vec<_>>(),
        _ => Vec::new(),
    })
}

/// The IR's form of directive `dir` for the host plan ([`crate::ir::directive`]).
pub fn directive(dir: &AccDirective) -> crate::ir::directive::Directive {
    use crate::ir::directive::{DataVar, Directive, Section};
    use crate::ir::lower::expr::detach_user;
    let data = data_clauses(dir)
        .map(|(kind, v)| {
            (
                kind,
                DataVar {
                    name: v.name.name.clone(),
                    name_span: v.name.span,
                    dims: v
                        .dims
                        .iter()
                        .map(|d| Section {
                            start: d.start.as_ref().map(detach_user),
                            len: d.len.as_ref().map(detach_user),
                            span: d.span,
                        })
                        .collect(),
                    span: v.span,
                },
            )
        })
        .collect();
    Directive {
        construct: dir.construct.clone(),
        span: dir.span,
        data,
        if_clause: dir.clauses.iter().find_map(|c| match &c.kind {
            ClauseKind::If(e) => Some((c.span, detach_user(e))),
            _ => None,
        }),
        finalize: dir.has(|k| matches!(k, ClauseKind::Finalize)),
        if_present: dir.has(|k| matches!(k, ClauseKind::IfPresent)),
        zeroed: zeroed_arrays(dir),
        private: dir
            .clauses
            .iter()
            .flat_map(|c| match &c.kind {
                ClauseKind::Private(vs) | ClauseKind::FirstPrivate(vs) => {
                    vs.iter().map(|v| v.name.clone()).collect::<Vec<_>>()
                }
                _ => Vec::new(),
            })
            .collect(),
        aliases: Vec::new(),
    }
}
