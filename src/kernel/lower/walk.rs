//! Small helpers over the kernel IR: flattening, literals, free names.

use std::collections::BTreeSet;

use crate::diag::Span;
use crate::ir::Poly;
use crate::vocab::{BinOp, Scalar, UnOp};

use super::*;

/// The scalars of the kernel being built ([`Kernel::vars`]) and the C names in scope where
/// the builder is, shared by the builder and the passes it runs (the copies of a coarsened
/// computation, staging's walks and tiles), which add to it while the builder holds it.
#[derive(Clone, Default)]
pub(crate) struct VarTable(std::rc::Rc<std::cell::RefCell<Table>>);

#[derive(Default)]
pub(crate) struct Table {
    vars: Arena<KVar>,
    /// The names declared in each scope, innermost last: each declaration is a scalar of its
    /// own (a name declared again in a nested scope is another one).
    scopes: Vec<std::collections::BTreeMap<String, Handle<KVar>>>,
    /// The names used but declared nowhere in the kernel: its scalar parameters (of kind
    /// [`VarKind::Param`] until [`VarTable::declare_free`] declares one).
    free: std::collections::BTreeMap<String, Handle<KVar>>,
    /// The copies of scalars made for several outputs per work-item (`kernel::lower::ilp`):
    /// copy `f` of each, made on first use.
    copies: std::collections::BTreeMap<(Handle<KVar>, u32), Handle<KVar>>,
}

impl VarTable {
    /// A table holding `vars` (a finished kernel's, for a pass that rewrites it), no name in
    /// scope.
    pub(crate) fn holding(vars: Arena<KVar>) -> VarTable {
        let t = VarTable::default();
        t.0.borrow_mut().vars = vars;
        t
    }

    /// Adds a scalar; its handle.
    pub(crate) fn add(&self, name: &str, ty: Scalar, kind: VarKind) -> Handle<KVar> {
        new_var(&mut self.0.borrow_mut().vars, name, ty, kind)
    }

    /// A new private scalar `name` of type `ty` declared in the innermost scope (hiding an
    /// outer one of that name from here on).
    pub(crate) fn fresh(&self, name: &str, ty: Scalar) -> Handle<KVar> {
        let h = self.add(name, ty, VarKind::Private);
        self.bind(name, h);
        h
    }

    /// `name` names `h` in the innermost scope from here on.
    pub(crate) fn bind(&self, name: &str, h: Handle<KVar>) {
        let mut t = self.0.borrow_mut();
        if t.scopes.is_empty() {
            t.scopes.push(Default::default());
        }
        if let Some(s) = t.scopes.last_mut() {
            s.insert(name.to_string(), h);
        }
    }

    /// The scalar `name` names where the builder is: the innermost declaration of it, else
    /// the kernel's free scalar of that name (a parameter, typed when the parameters are made),
    /// made on first use.
    pub(crate) fn resolve(&self, name: &str) -> Handle<KVar> {
        let mut t = self.0.borrow_mut();
        if let Some(&h) = t.scopes.iter().rev().find_map(|s| s.get(name)) {
            return h;
        }
        if let Some(&h) = t.free.get(name) {
            return h;
        }
        let h = new_var(&mut t.vars, name, Scalar::Int, VarKind::Param);
        t.free.insert(name.to_string(), h);
        h
    }

    /// The scalar `name` names where the builder is, as [`VarTable::resolve`] finds it, without
    /// making a free one: `None` where the code built so far names none.
    pub(crate) fn lookup(&self, name: &str) -> Option<Handle<KVar>> {
        let t = self.0.borrow();
        let found = t.scopes.iter().rev().find_map(|s| s.get(name));
        found.or_else(|| t.free.get(name)).copied()
    }

    /// Declares, in the innermost scope, the scalar `name` the code built so far names without
    /// a declaration (a private copy whose declaration goes before that code), of type `ty`.
    pub(crate) fn declare_free(&self, name: &str, ty: Scalar) -> Handle<KVar> {
        let found = self.0.borrow_mut().free.remove(name);
        let Some(h) = found else {
            return self.fresh(name, ty);
        };
        self.set(h, ty, VarKind::Private);
        self.bind(name, h);
        h
    }

    pub(crate) fn push_scope(&self) {
        self.0.borrow_mut().scopes.push(Default::default());
    }

    pub(crate) fn pop_scope(&self) {
        self.0.borrow_mut().scopes.pop();
    }

    /// The private scalar `name` that lowering makes (an `accshare_` name: one scalar per name
    /// in the kernel however many times it is declared), of type `ty`.
    pub(crate) fn named(&self, name: &str, ty: Scalar) -> Handle<KVar> {
        let mut t = self.0.borrow_mut();
        let found = t
            .vars
            .iter()
            .find(|(_, v)| v.name == name && v.kind == VarKind::Private)
            .map(|(h, _)| h);
        found.unwrap_or_else(|| new_var(&mut t.vars, name, ty, VarKind::Private))
    }

    /// Copy `f` of the scalar `h` for output `f` of a work-item (`ilp::copy_name`; copy 0 is
    /// `h` itself): a scalar of its own, of `h`'s type.
    pub(crate) fn copy(&self, h: Handle<KVar>, f: u32) -> Handle<KVar> {
        if f == 0 {
            return h;
        }
        let mut t = self.0.borrow_mut();
        if let Some(&c) = t.copies.get(&(h, f)) {
            return c;
        }
        let v = t.vars[h].clone();
        let name = super::ilp::copy_name(&v.name, f);
        let c = new_var(&mut t.vars, &name, v.ty, VarKind::Private);
        t.copies.insert((h, f), c);
        c
    }

    /// A read of the `int` scalar [`VarTable::named`]`(name)`.
    pub(crate) fn int(&self, name: &str) -> KExpr {
        KExpr::Var(self.named(name, Scalar::Int))
    }

    pub(crate) fn get(&self, h: Handle<KVar>) -> KVar {
        self.0.borrow().vars[h].clone()
    }

    pub(crate) fn name(&self, h: Handle<KVar>) -> String {
        self.0.borrow().vars[h].name.clone()
    }

    /// Sets the type and kind of `h`.
    pub(crate) fn set(&self, h: Handle<KVar>, ty: Scalar, kind: VarKind) {
        let mut t = self.0.borrow_mut();
        t.vars[h].ty = ty;
        t.vars[h].kind = kind;
    }

    /// Runs `f` on the scalars.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Arena<KVar>) -> T) -> T {
        f(&self.0.borrow().vars)
    }

    /// A polynomial over parameters and iterators in scope ([`poly_to_kexpr`]).
    pub(crate) fn poly(&self, p: &Poly, ty: Scalar) -> KExpr {
        poly_to_kexpr(p, ty, &mut |s| self.resolve(s))
    }

    /// The scalars, emptied (the kernel's when it is finished).
    pub(crate) fn take(&self) -> Arena<KVar> {
        std::mem::take(&mut self.0.borrow_mut().vars)
    }
}

/// `((s0 * E1 + s1) * E2 + s2)…`
pub(super) fn flatten(subs: Vec<KExpr>, extents: &[KExpr]) -> KExpr {
    let mut it = subs.into_iter();
    let Some(mut acc) = it.next() else {
        return KExpr::int(0);
    };
    for (s, ext) in it.zip(extents.iter()) {
        acc = KExpr::bin(BinOp::Add, KExpr::bin(BinOp::Mul, acc, ext.clone()), s);
    }
    acc
}

/// A polynomial over parameters/iterators as a kernel expression of type `ty`, each symbol the
/// scalar `sym` resolves it to.
pub fn poly_to_kexpr(p: &Poly, ty: Scalar, sym: &mut dyn FnMut(&str) -> Handle<KVar>) -> KExpr {
    let mut acc: Option<KExpr> = None;
    let mut constant = 0i64;
    for (m, c) in p.terms() {
        if m.is_empty() {
            constant = c;
            continue;
        }
        let mut term: Option<KExpr> = None;
        for s in m {
            let v = KExpr::Var(sym(s));
            term = Some(match term {
                None => v,
                Some(t) => KExpr::bin(BinOp::Mul, t, v),
            });
        }
        let Some(mut term) = term else { continue };
        let (neg, abs) = (c < 0, c.unsigned_abs() as i64);
        if abs != 1 {
            term = KExpr::bin(BinOp::Mul, KExpr::int(abs), term);
        }
        acc = Some(match (acc, neg) {
            (None, false) => term,
            (None, true) => KExpr::Unary(UnOp::Neg, Box::new(term)),
            (Some(a), false) => KExpr::bin(BinOp::Add, a, term),
            (Some(a), true) => KExpr::bin(BinOp::Sub, a, term),
        });
    }
    let lit = |v: i64| KExpr::Int(v, if ty == Scalar::Int { Scalar::Int } else { ty });
    match acc {
        None => lit(constant),
        Some(a) if constant == 0 => a,
        Some(a) if constant > 0 => KExpr::bin(BinOp::Add, a, lit(constant)),
        Some(a) => KExpr::bin(BinOp::Sub, a, lit(constant.saturating_neg())),
    }
}

pub(super) fn cast_if(ty: Scalar, e: KExpr) -> KExpr {
    if ty == Scalar::Int {
        e
    } else {
        KExpr::Cast(ty, Box::new(e))
    }
}

/// The scalars `e` names into `vars`, the arrays (of any space) it reads into
/// `arrays`.
pub(super) fn free_names_expr(
    e: &KExpr,
    arrays: &mut BTreeSet<Handle<KArray>>,
    vars: &mut BTreeSet<Handle<KVar>>,
) {
    match e {
        KExpr::Var(v) => {
            vars.insert(*v);
        }
        KExpr::Load(r) => {
            arrays.insert(r.array);
        }
        _ => {}
    }
    e.for_each_child(&mut |c| free_names_expr(c, arrays, vars));
}

/// The scalars `s` names (declares, reads, assigns) into `vars`, the arrays (of any
/// space) it reads or writes into `arrays`.
pub(super) fn free_names_stmt(
    s: &KStmt,
    arrays: &mut BTreeSet<Handle<KArray>>,
    vars: &mut BTreeSet<Handle<KVar>>,
) {
    s.walk_exprs(&mut |e| free_names_expr(e, arrays, vars));
    let mut stmt = |s: &KStmt| match s {
        KStmt::Decl { var, .. } => {
            vars.insert(*var);
        }
        KStmt::Assign { target, .. } => match target {
            LValue::Var(v) => {
                vars.insert(*v);
            }
            LValue::Elem(r) => {
                arrays.insert(r.array);
            }
        },
        KStmt::Atomic {
            target, capture, ..
        } => {
            arrays.insert(target.array);
            if let Some(c) = capture {
                vars.insert(c.var);
            }
        }
        KStmt::VecLoad { lanes, src, .. } => {
            arrays.insert(src.array);
            vars.extend(lanes.iter().copied());
        }
        KStmt::VecStore { dst, .. } => {
            arrays.insert(dst.array);
        }
        _ => {}
    };
    fn each(s: &KStmt, f: &mut dyn FnMut(&KStmt)) {
        f(s);
        s.for_each_child(&mut |c| each(c, f));
    }
    each(s, &mut stmt);
}

/// A call of C function `f` in a kernel: the math function of that name (region validation
/// lets no other call through, and `acc routine` functions are inlined before), else an error.
pub(super) fn math_call(f: &str, span: Span, args: Vec<KExpr>, errors: &mut Vec<Diag>) -> KExpr {
    match MathFn::from_c_name(f) {
        Some(m) => crate::kernel::math::call(m, args),
        None => {
            errors.push(Diag::error(
                span,
                format!(
                    "call to `{}` inside a compute region: not a math function a kernel can call",
                    f
                ),
            ));
            KExpr::int(0)
        }
    }
}

pub(super) fn expr_uses_double(e: &KExpr) -> bool {
    e.any(&|x| match x {
        KExpr::Float(_, single) => !single,
        KExpr::Cast(t, _) => *t == Scalar::Double,
        // C99 double-precision math functions (`sqrt`, `exp`, …) compute in double.
        KExpr::Call(f, _) => f.real_type() == Some(Scalar::Double),
        _ => false,
    })
}

pub(super) fn stmt_uses_double(vars: &Arena<KVar>, s: &KStmt) -> bool {
    let typed_double = s.any(&|t| {
        matches!(t, KStmt::Decl { var, .. } if vars[*var].ty == Scalar::Double)
            || matches!(
                t,
                KStmt::Atomic {
                    ty: Scalar::Double,
                    ..
                }
            )
    });
    let mut found = typed_double;
    s.walk_exprs(&mut |e| found = found || expr_uses_double(e));
    found
}
/// Hoists the declarations of `pre` (statements that run under a guard) into `hoisted`, for
/// every work-item to declare them, and returns what still runs under the guard: the other
/// statements, and the declarations' values as assignments, in order. With `keep_constants` a
/// literal value (it reads nothing) stays on its declaration. `taken` holds the names already
/// declared where the declarations go; `Err` names one `pre` would declare again.
pub(super) fn hoist_decls(
    pre: impl IntoIterator<Item = KStmt>,
    (names, vars): (&Arena<KArray>, &Arena<KVar>),
    taken: &mut BTreeSet<String>,
    keep_constants: bool,
    hoisted: &mut Vec<KStmt>,
) -> Result<Vec<KStmt>, String> {
    let mut guarded = Vec::new();
    for s in pre {
        match s {
            KStmt::DeclArray(a) => {
                if !taken.insert(names[a].name.clone()) {
                    return Err(names[a].name.clone());
                }
                hoisted.push(KStmt::DeclArray(a));
            }
            KStmt::Decl { var, init } => {
                let name = &vars[var].name;
                if !taken.insert(name.clone()) {
                    return Err(name.clone());
                }
                let constant =
                    keep_constants && matches!(init, Some(KExpr::Int(..) | KExpr::Float(..)));
                hoisted.push(KStmt::Decl {
                    var,
                    init: if constant { init.clone() } else { None },
                });
                if let (Some(v), false) = (init, constant) {
                    guarded.push(KStmt::Assign {
                        target: LValue::Var(var),
                        op: None,
                        value: v,
                    });
                }
            }
            other => guarded.push(other),
        }
    }
    Ok(guarded)
}
