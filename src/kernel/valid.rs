//! The kernel-IR validator (naga's `valid/` is the model): checks, without running anything,
//! the invariants every kernel the lowering produces must hold. The driver runs it on every
//! kernel of every compilation, release builds included, and any failure is an internal error
//! naming the kernel: a lowering bug must stop the build, never reach generated code.
//!
//! What it checks:
//! - **Names**: every scalar is a handle of the kernel's scalars, declared before use
//!   (parameters, declarations, `for` initializers, vector lanes, in scope), and its name, where
//!   the printer writes it, names it: not another scalar of the same name declared in the same
//!   scope or in a nested one (the back ends print names, so two scalars that a use could
//!   confuse are an error here, never merged in the output); every scalar parameter is a
//!   parameter scalar of its name and type; every array reference is a handle of the kernel's
//!   arrays naming, by the array's kind, a buffer parameter (global), a local array (local) or
//!   a private array declared in scope (private); every buffer parameter's array is a buffer of
//!   its name and element type; no store into a read-only buffer.
//! - **Uniform barriers**: no [`KStmt::Barrier`] under control flow that depends on the thread
//!   (a condition, loop bound or `break`/`continue` that reads a thread id, a value loaded from
//!   memory, or a variable assigned from one). Such a barrier deadlocks or races on a GPU.
//! - **Tiles in bounds**: every index into a local array, written as a linear form over the
//!   thread and group ids, the loop iterators and constants, lies in `0..len` over the whole
//!   range of those values (thread ids range over the block, iterators over their constant
//!   bounds). Indices this reasoning cannot bound are counted in [`Report::unproven`], not
//!   rejected; an index it bounds outside the tile is an error.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{
    ArrayRef, AtomicCapture, AtomicOp, Builtin, Handle, KArray, KExpr, KParamKind, KStmt, KVar,
    Kernel, LValue, Space, VarKind,
};
use crate::vocab::{BinOp, Scalar};

/// A broken invariant.
#[derive(Clone, Debug, PartialEq)]
pub enum Invalid {
    UndeclaredVar(String),
    /// A scalar whose name, where it is used or declared, names another scalar (declared in
    /// the same scope, or in a nested one that hides it).
    NameClash(String),
    /// A scalar parameter that is not a parameter scalar of its name and type, or a declaration
    /// of a parameter.
    ParamMismatch(String),
    /// A vector access whose lanes the targets cannot load at once (2, 4, 8 or 16 lanes of a
    /// scalar type other than `_Bool`).
    VectorShape {
        array: String,
        lanes: usize,
    },
    UnknownArray {
        array: String,
        space: Space,
    },
    /// A reference whose handle names none of the kernel's arrays (its position).
    ForeignArray(String),
    StoreToReadOnly(String),
    /// A reference to `array` that names a field its buffer's elements do not have, or names
    /// no field of a buffer of structs.
    FieldMismatch {
        array: String,
    },
    /// An atomic statement on a private array (a private element needs no atomic).
    AtomicOnPrivate(String),
    BarrierInDivergentFlow,
    TileIndexOutOfBounds {
        array: String,
        lo: i64,
        hi: i64,
        len: u32,
    },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::UndeclaredVar(v) => write!(f, "`{v}` is used but not declared in scope"),
            Invalid::NameClash(v) => {
                write!(f, "two scalars named `{v}` are visible at once")
            }
            Invalid::ParamMismatch(v) => {
                write!(f, "`{v}` does not match its scalar parameter")
            }
            Invalid::VectorShape { array, lanes } => write!(
                f,
                "a vector access of {lanes} lanes of `{array}` (2, 4, 8 or 16 lanes of a scalar type other than `_Bool`)"
            ),
            Invalid::UnknownArray { array, space } => {
                write!(f, "`{array}` is not a {space:?} array of the kernel")
            }
            Invalid::ForeignArray(h) => write!(f, "`{h}` is none of the kernel's arrays"),
            Invalid::StoreToReadOnly(a) => write!(f, "store into the read-only buffer `{a}`"),
            Invalid::FieldMismatch { array } => write!(
                f,
                "a reference to `{array}` whose field does not match the buffer's element type"
            ),
            Invalid::AtomicOnPrivate(a) => write!(f, "an atomic on the private array `{a}`"),
            Invalid::BarrierInDivergentFlow => {
                write!(f, "a barrier under control flow that depends on the thread")
            }
            Invalid::TileIndexOutOfBounds { array, lo, hi, len } => write!(
                f,
                "an index of the local array `{array}` ranges over {lo}..={hi}, outside 0..{len}"
            ),
        }
    }
}

/// What the validator found in one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub errors: Vec<Invalid>,
    /// Local-array indices proven in bounds.
    pub proven: usize,
    /// Local-array indices the linear reasoning cannot bound (not errors).
    pub unproven: usize,
}

/// Validates one kernel.
pub fn validate(k: &Kernel) -> Report {
    let mut v = Validator {
        k,
        scopes: vec![Vec::new()],
        private_scopes: vec![BTreeSet::new()],
        thread_vars: thread_dependent_vars(&k.body),
        defs: BTreeMap::new(),
        ranges: BTreeMap::new(),
        assigned: assigned_vars(&k.body),
        report: Report::default(),
    };
    for p in &k.params {
        if let KParamKind::Scalar { var, ty } = &p.kind {
            let ok = v
                .known_var(*var)
                .is_some_and(|x| x.name == p.name && x.ty == *ty && x.kind == VarKind::Param);
            if !ok {
                v.error(Invalid::ParamMismatch(p.name.clone()));
            }
        }
        let var = match &p.kind {
            KParamKind::Scalar { var, .. } => Some(*var),
            KParamKind::Buffer { .. } => None,
        };
        v.declare(&p.name, var);
        if let KParamKind::Buffer { array, elem, .. } = &p.kind {
            let ok = v.known_handle(*array).is_some_and(|a| {
                a.name == p.name && a.elem == *elem && a.kind == super::ArrayKind::Buffer
            });
            if !ok {
                v.error(Invalid::UnknownArray {
                    array: p.name.clone(),
                    space: Space::Global,
                });
            }
        }
    }
    for &l in &k.locals {
        if !v
            .known_handle(l)
            .is_some_and(|a| matches!(a.kind, super::ArrayKind::Local { .. }))
        {
            v.error(Invalid::UnknownArray {
                array: v.name(l),
                space: Space::Local,
            });
        }
    }
    v.block(&k.body, false);
    v.report
}

struct Validator<'k> {
    k: &'k Kernel,
    /// The names declared in each scope, in order: a scalar's with its handle, an array's
    /// (parameters, private arrays) with none.
    scopes: Vec<Vec<(String, Option<Handle<KVar>>)>>,
    /// The private arrays declared in each scope of `scopes` but the first (their names are in
    /// `scopes`).
    private_scopes: Vec<BTreeSet<Handle<KArray>>>,
    /// Variables whose value may differ between the threads of a block.
    thread_vars: BTreeSet<Handle<KVar>>,
    /// Variables defined once by a linear initializer: their linear form.
    defs: BTreeMap<Handle<KVar>, Lin>,
    /// Loop iterators with constant bounds (and the offsets of loops from their start): their
    /// range.
    ranges: BTreeMap<Atom, (i64, i64)>,
    /// How many times each variable is assigned (declaration initializers included).
    assigned: BTreeMap<Handle<KVar>, usize>,
    report: Report,
}

impl Validator<'_> {
    fn error(&mut self, e: Invalid) {
        if !self.report.errors.contains(&e) {
            self.report.errors.push(e);
        }
    }

    /// The array `h` names, when it is one of the kernel's.
    fn known_handle(&self, h: Handle<KArray>) -> Option<&KArray> {
        (h.index() < self.k.arrays.len()).then(|| &self.k.arrays[h])
    }

    /// The space of the array `h`, when it is one of the kernel's.
    fn space(&self, h: Handle<KArray>) -> Option<Space> {
        self.known_handle(h).map(KArray::space)
    }

    /// The name of the array `h` (its position where it is none of the kernel's).
    fn name(&self, h: Handle<KArray>) -> String {
        self.known_handle(h)
            .map_or_else(|| format!("{h:?}"), |a| a.name.clone())
    }

    /// The scalar `h` names, when it is one of the kernel's.
    fn known_var(&self, h: Handle<KVar>) -> Option<&KVar> {
        (h.index() < self.k.vars.len()).then(|| &self.k.vars[h])
    }

    /// A use of the scalar `h`: declared in scope, and its name names it there.
    fn use_var(&mut self, h: Handle<KVar>) {
        let Some(name) = self.known_var(h).map(|x| x.name.clone()) else {
            return self.error(Invalid::UndeclaredVar(format!("{h:?}")));
        };
        let innermost = self
            .scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v);
        match innermost {
            Some(Some(v)) if v == h => {}
            _ if !self.scopes.iter().flatten().any(|(_, v)| *v == Some(h)) => {
                self.error(Invalid::UndeclaredVar(name))
            }
            _ => self.error(Invalid::NameClash(name)),
        }
    }

    /// Declares `name` (the scalar `var`, or an array) in the innermost scope: an error where
    /// that scope already names something else so.
    fn declare(&mut self, name: &str, var: Option<Handle<KVar>>) {
        let Some(s) = self.scopes.last_mut() else {
            return;
        };
        let clash = s
            .iter()
            .any(|(n, v)| n == name && (v.is_none() || *v != var));
        s.push((name.to_string(), var));
        if clash {
            self.error(Invalid::NameClash(name.to_string()));
        }
    }

    /// Declares the private scalar `h`.
    fn declare_var(&mut self, h: Handle<KVar>) {
        match self.known_var(h).map(|x| (x.name.clone(), x.kind)) {
            Some((name, VarKind::Private)) => self.declare(&name, Some(h)),
            Some((name, VarKind::Param)) => self.error(Invalid::ParamMismatch(name)),
            None => self.error(Invalid::UndeclaredVar(format!("{h:?}"))),
        }
    }

    /// `divergent`: inside control flow that depends on the thread.
    fn block(&mut self, stmts: &[KStmt], divergent: bool) {
        self.scopes.push(Vec::new());
        self.private_scopes.push(BTreeSet::new());
        for s in stmts {
            self.stmt(s, divergent);
        }
        self.scopes.pop();
        self.private_scopes.pop();
    }

    fn stmt(&mut self, s: &KStmt, divergent: bool) {
        match s {
            KStmt::Decl { var, init } => self.decl(*var, init.as_ref()),
            KStmt::DeclArray(a) => {
                match self.known_handle(*a).map(|x| (x.name.clone(), x.space())) {
                    Some((name, Space::Private)) => {
                        if let Some(s) = self.private_scopes.last_mut() {
                            s.insert(*a);
                        }
                        self.declare(&name, None);
                    }
                    _ => self.error(Invalid::UnknownArray {
                        array: self.name(*a),
                        space: Space::Private,
                    }),
                }
            }
            KStmt::Assign { target, op, value } => self.assign(target, op.is_none(), value),
            KStmt::Expr(e) => self.expr(e),
            KStmt::If { cond, then, els } => {
                self.expr(cond);
                let d = divergent || self.thread_dependent(cond);
                self.block(then, d);
                self.block(els, d);
            }
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => self.for_loop(init, cond.as_ref(), step, body, divergent),
            KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
                let d = divergent
                    || self.thread_dependent(cond)
                    || exits_divergently(body, &self.thread_vars);
                if matches!(s, KStmt::While { .. }) {
                    self.expr(cond);
                    self.block(body, d);
                } else {
                    self.block(body, d);
                    self.expr(cond);
                }
            }
            KStmt::Barrier => {
                if divergent {
                    self.error(Invalid::BarrierInDivergentFlow);
                }
            }
            KStmt::Block(b) => self.block(b, divergent),
            KStmt::Atomic {
                target,
                op,
                capture,
                ..
            } => self.atomic(s, target, op, capture.as_ref()),
            KStmt::VecLoad {
                lanes, src, elem, ..
            } => {
                self.vector_shape(&self.name(src.array), *elem, lanes.len());
                self.array_ref(src);
                for l in lanes {
                    self.declare_var(*l);
                }
            }
            KStmt::VecStore { dst, values, elem } => {
                self.vector_shape(&self.name(dst.array), *elem, values.len());
                for v in values {
                    self.expr(v);
                }
                self.array_ref(dst);
                self.store_target(dst);
            }
            KStmt::Break | KStmt::Continue | KStmt::Comment(_) => {}
        }
    }

    /// A declaration: checks its initializer, records the linear form (or the range) of a
    /// variable defined once, and declares the name.
    fn decl(&mut self, var: Handle<KVar>, init: Option<&KExpr>) {
        // In C the name is the new scalar's from its declarator on, its initializer included.
        self.declare_var(var);
        if let Some(e) = init {
            self.expr(e);
            if self.assigned.get(&var) == Some(&1) {
                if let Some(l) = self.lin(e) {
                    self.defs.insert(var, l);
                } else if let Some(r) = self.interval(e) {
                    // Not linear (`(r + lx) % 32`) but bounded: an atom with a range.
                    self.ranges.insert(Atom::Var(var), r);
                }
            }
        }
    }

    /// An assignment (`plain`: `=`, not a compound `op=`): checks the value and the target,
    /// and records the linear form of a variable assigned once.
    fn assign(&mut self, target: &LValue, plain: bool, value: &KExpr) {
        self.expr(value);
        match target {
            LValue::Var(v) => {
                self.use_var(*v);
                // Assigned once (declared without a value): uses after this point see
                // this value (a use before it sees no definition, hence no bound).
                if self.assigned.get(v) == Some(&1) && plain {
                    if let Some(l) = self.lin(value) {
                        self.defs.insert(*v, l);
                    }
                }
            }
            LValue::Elem(r) => {
                self.array_ref(r);
                self.store_target(r);
            }
        }
    }

    /// A store into `r`: an error when it is a read-only global buffer.
    fn store_target(&mut self, r: &ArrayRef) {
        if self.space(r.array) == Some(Space::Global) && self.read_only(r.array) {
            self.error(Invalid::StoreToReadOnly(self.name(r.array)));
        }
    }

    /// A `for` loop: its own scope for the initializer, the iterator's definition and range
    /// while the body is checked, and the body divergent when the loop's control or exits
    /// depend on the thread.
    fn for_loop(
        &mut self,
        init: &[KStmt],
        cond: Option<&KExpr>,
        step: &[KStmt],
        body: &[KStmt],
        divergent: bool,
    ) {
        self.scopes.push(Vec::new());
        self.private_scopes.push(BTreeSet::new());
        for s in init {
            self.stmt(s, divergent);
        }
        if let Some(c) = cond {
            self.expr(c);
        }
        let iter = self.loop_iter(init, cond, step, body);
        if let Some((v, def, r)) = &iter {
            match def {
                Some(l) => {
                    self.defs.insert(*v, l.clone());
                }
                None => {
                    self.ranges.insert(Atom::Var(*v), *r);
                }
            }
            self.ranges.insert(Atom::Offset(*v), *r);
        }
        let d = divergent
            || cond.is_some_and(|c| self.thread_dependent(c))
            || init
                .iter()
                .chain(step)
                .any(|s| self.stmt_thread_dependent(s))
            || exits_divergently(body, &self.thread_vars);
        self.block(body, d);
        for s in step {
            self.stmt(s, d);
        }
        if let Some((v, _, _)) = &iter {
            self.ranges.remove(&Atom::Var(*v));
            self.defs.remove(v);
            self.ranges.remove(&Atom::Offset(*v));
        }
        self.scopes.pop();
        self.private_scopes.pop();
    }

    /// An atomic statement `s` (on `target`, doing `op`, capturing into `capture`): its
    /// operands, its target (no store into a read-only buffer unless it only reads, never a
    /// private array) and its capture variable.
    fn atomic(
        &mut self,
        s: &KStmt,
        target: &ArrayRef,
        op: &AtomicOp,
        capture: Option<&AtomicCapture>,
    ) {
        for e in s.atomic_operands().into_iter().skip(1) {
            self.expr(e);
        }
        self.array_ref(target);
        if !matches!(op, AtomicOp::Read) {
            self.store_target(target);
        }
        if self.space(target.array) == Some(Space::Private) {
            self.error(Invalid::AtomicOnPrivate(self.name(target.array)));
        }
        if let Some(c) = capture {
            self.use_var(c.var);
        }
    }

    fn vector_shape(&mut self, array: &str, elem: Scalar, lanes: usize) {
        if elem == Scalar::Bool || ![2, 4, 8, 16].contains(&lanes) {
            self.error(Invalid::VectorShape {
                array: array.to_string(),
                lanes,
            });
        }
    }

    fn read_only(&self, h: Handle<KArray>) -> bool {
        self.k.params.iter().any(|p| {
            matches!(
                p.kind,
                KParamKind::Buffer {
                    array,
                    read_only: true,
                    ..
                } if array == h
            )
        })
    }

    fn array_ref(&mut self, r: &ArrayRef) {
        self.expr(&r.index);
        let Some(space) = self.space(r.array) else {
            self.error(Invalid::ForeignArray(self.name(r.array)));
            return;
        };
        let known = match space {
            Space::Global => self.k.buffer_param(r.array).is_some(),
            Space::Local => self.k.locals.contains(&r.array),
            Space::Private => self.private_scopes.iter().any(|s| s.contains(&r.array)),
        };
        if !known {
            self.error(Invalid::UnknownArray {
                array: self.name(r.array),
                space,
            });
            return;
        }
        // A field exactly on buffers of structs, and one of their fields.
        let record = self.k.params.iter().find_map(|p| match &p.kind {
            KParamKind::Buffer { array, record, .. }
                if *array == r.array && space == Space::Global =>
            {
                record.as_ref()
            }
            _ => None,
        });
        let field_ok = match (record, &r.field) {
            (None, None) => true,
            (Some(rec), Some(f)) => {
                f.count as usize == rec.fields.len()
                    && rec.fields.get(f.index as usize) == Some(&f.name)
            }
            _ => false,
        };
        if !field_ok {
            self.error(Invalid::FieldMismatch {
                array: self.name(r.array),
            });
            return;
        }
        if space == Space::Local {
            let len = self.k.arrays[r.array].elements().unwrap_or(0);
            let range = self
                .lin(&r.index)
                .and_then(|l| self.range(&l))
                .or_else(|| self.interval(&r.index));
            match range {
                Some((lo, hi)) if lo >= 0 && hi < i64::from(len) => self.report.proven += 1,
                Some((lo, hi)) => self.error(Invalid::TileIndexOutOfBounds {
                    array: self.name(r.array),
                    lo,
                    hi,
                    len,
                }),
                None => self.report.unproven += 1,
            }
        }
    }

    fn expr(&mut self, e: &KExpr) {
        match e {
            KExpr::Var(v) => self.use_var(*v),
            KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
            KExpr::Load(r) => self.array_ref(r),
            KExpr::Unary(_, a) | KExpr::Cast(_, a) => self.expr(a),
            KExpr::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            KExpr::Cond(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            KExpr::Call(_, args) => {
                for a in args {
                    self.expr(a);
                }
            }
        }
    }

    fn thread_dependent(&self, e: &KExpr) -> bool {
        expr_thread_dependent(e, &self.thread_vars)
    }

    fn stmt_thread_dependent(&self, s: &KStmt) -> bool {
        match s {
            KStmt::Decl { init: Some(e), .. } => self.thread_dependent(e),
            KStmt::Assign { value, target, .. } => {
                self.thread_dependent(value)
                    || matches!(target, LValue::Var(v) if self.thread_vars.contains(v))
            }
            _ => false,
        }
    }

    /// The linear form of an integer expression over atoms, substituting variables defined once.
    fn lin(&self, e: &KExpr) -> Option<Lin> {
        Some(match e {
            KExpr::Int(v, _) => Lin::constant(*v),
            KExpr::Cast(_, a) => self.lin(a)?,
            KExpr::Var(v) => match self.defs.get(v) {
                Some(l) => l.clone(),
                None => Lin::atom(Atom::Var(*v)),
            },
            KExpr::Builtin(Builtin::GlobalId(d)) => {
                let size = i64::from(*self.k.block.get(usize::from(*d))?);
                Lin::atom(Atom::Group(*d))
                    .scale(size)
                    .add(&Lin::atom(Atom::Local(*d)))
            }
            KExpr::Builtin(Builtin::LocalId(d)) => Lin::atom(Atom::Local(*d)),
            KExpr::Builtin(Builtin::GroupId(d)) => Lin::atom(Atom::Group(*d)),
            KExpr::Builtin(Builtin::LocalSize(d)) => {
                Lin::constant(i64::from(*self.k.block.get(usize::from(*d))?))
            }
            KExpr::Unary(crate::vocab::UnOp::Neg, a) => self.lin(a)?.scale(-1),
            KExpr::Binary(op, a, b) => {
                let (x, y) = (self.lin(a)?, self.lin(b)?);
                match op {
                    BinOp::Add => x.add(&y),
                    BinOp::Sub => x.add(&y.scale(-1)),
                    BinOp::Mul => match (x.as_const(), y.as_const()) {
                        (Some(c), _) => y.scale(c),
                        (_, Some(c)) => x.scale(c),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// The range of a linear form over the ranges of its atoms.
    fn range(&self, l: &Lin) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (l.c, l.c);
        for (a, &k) in &l.terms {
            let (alo, ahi) = match a {
                Atom::Local(d) => (0, i64::from(*self.k.block.get(usize::from(*d))?) - 1),
                Atom::Var(_) | Atom::Offset(_) => *self.ranges.get(a)?,
                Atom::Group(_) => return None,
            };
            let (p, q) = (k.checked_mul(alo)?, k.checked_mul(ahi)?);
            lo = lo.checked_add(p.min(q))?;
            hi = hi.checked_add(p.max(q))?;
        }
        Some((lo, hi))
    }

    /// `for (v = a; v < b; v += c)` (also `<=`, and `>`/`>=` with `c < 0`; a condition may be a
    /// conjunction of such bounds) where the body does not assign `v`: the range of `v` when `a`
    /// and `b` have ranges (`None` definition), or else, when `b - a` is a constant (`for (k =
    /// kk; k < kk + 64; k++)`), `v` defined as `a + δ` with `δ` ranging over `0..b - a`.
    #[allow(clippy::type_complexity)]
    fn loop_iter(
        &self,
        init: &[KStmt],
        cond: Option<&KExpr>,
        step: &[KStmt],
        body: &[KStmt],
    ) -> Option<(Handle<KVar>, Option<Lin>, (i64, i64))> {
        let (v, start) = match init {
            [KStmt::Decl {
                var: name,
                init: Some(e),
            }] => (name, e),
            [KStmt::Assign {
                target: LValue::Var(name),
                op: None,
                value,
            }] => (name, value),
            _ => return None,
        };
        let [KStmt::Assign {
            target: LValue::Var(sv),
            op: Some(sop),
            value: sval,
        }] = step
        else {
            return None;
        };
        if sv != v || assigned_vars(body).contains_key(v) {
            return None;
        }
        let c = self.lin(sval)?.as_const()?;
        let up = match sop {
            BinOp::Add => c > 0,
            BinOp::Sub => c < 0,
            _ => return None,
        };
        let start = self.lin(start)?;
        let mut best: Option<(Option<Lin>, (i64, i64))> = None;
        for (op, rhs) in conjuncts(cond?, *v) {
            let bound = self.lin(rhs)?;
            let (adj_up, adj_down) = match op {
                BinOp::Lt => (1, 0),
                BinOp::Le => (0, 0),
                BinOp::Gt => (0, 1),
                BinOp::Ge => (0, 0),
                _ => continue,
            };
            if up != matches!(op, BinOp::Lt | BinOp::Le) {
                continue;
            }
            // A constant trip span from the start (`k < kk + 64`) keeps the correlation with
            // the start that tile offsets need; otherwise the numeric range.
            let span = bound.clone().add(&start.clone().scale(-1)).as_const();
            let candidate = match span {
                Some(d) => {
                    let r = if up {
                        (0, d - adj_up)
                    } else {
                        (d + adj_down, 0)
                    };
                    let def = start.clone().add(&Lin::atom(Atom::Offset(*v)));
                    (Some(def), r)
                }
                None => {
                    let (s, b) = (self.range(&start), self.range(&bound));
                    let Some((s, b)) = s.zip(b) else { continue };
                    let r = if up {
                        (s.0, b.1 - adj_up)
                    } else {
                        (b.0 + adj_down, s.1)
                    };
                    (None, r)
                }
            };
            best = match best {
                // Two numeric bounds: their intersection.
                Some((None, r)) if candidate.0.is_none() => {
                    Some((None, (r.0.max(candidate.1 .0), r.1.min(candidate.1 .1))))
                }
                Some(b @ (Some(_), _)) => Some(b),
                _ => Some(candidate),
            };
        }
        let (def, r) = best?;
        Some((*v, def, r))
    }

    /// The range of an integer expression by interval arithmetic (no correlation between the
    /// parts: used when it is not linear, e.g. `l / 7 * 7 + l % 7`).
    fn interval(&self, e: &KExpr) -> Option<(i64, i64)> {
        if let Some(r) = self.lin(e).and_then(|l| self.range(&l)) {
            return Some(r);
        }
        let KExpr::Binary(op, a, b) = e else {
            return match e {
                KExpr::Cast(_, a) => self.interval(a),
                _ => None,
            };
        };
        let (x, y) = (self.interval(a)?, self.interval(b)?);
        let constant = (y.0 == y.1).then_some(y.0);
        Some(match op {
            BinOp::Add => (x.0.checked_add(y.0)?, x.1.checked_add(y.1)?),
            BinOp::Sub => (x.0.checked_sub(y.1)?, x.1.checked_sub(y.0)?),
            BinOp::Mul => {
                let c = constant?;
                let (p, q) = (x.0.checked_mul(c)?, x.1.checked_mul(c)?);
                (p.min(q), p.max(q))
            }
            BinOp::Div if x.0 >= 0 && constant.is_some_and(|c| c > 0) => {
                let c = constant?;
                (x.0 / c, x.1 / c)
            }
            BinOp::Rem if x.0 >= 0 && constant.is_some_and(|c| c > 0) => {
                let c = constant?;
                if x.1 < c {
                    x
                } else {
                    (0, c - 1)
                }
            }
            _ => return None,
        })
    }
}

/// The bounds `v op e` of a loop condition (a conjunction), with `v` on the left.
fn conjuncts(c: &KExpr, v: Handle<KVar>) -> Vec<(BinOp, &KExpr)> {
    match c {
        KExpr::Binary(BinOp::LogAnd, a, b) => {
            let mut out = conjuncts(a, v);
            out.extend(conjuncts(b, v));
            out
        }
        KExpr::Binary(op, lhs, rhs) if matches!(lhs.as_ref(), KExpr::Var(x) if *x == v) => {
            vec![(*op, rhs.as_ref())]
        }
        _ => Vec::new(),
    }
}

/// An atom of a linear form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Atom {
    Local(u8),
    Group(u8),
    Var(Handle<KVar>),
    /// `v - start` of a loop of iterator `v` whose bounds are symbolic.
    Offset(Handle<KVar>),
}

/// `c + Σ k·atom`.
#[derive(Clone, Debug, PartialEq)]
struct Lin {
    terms: BTreeMap<Atom, i64>,
    c: i64,
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            c,
        }
    }

    fn atom(a: Atom) -> Lin {
        Lin {
            terms: BTreeMap::from([(a, 1)]),
            c: 0,
        }
    }

    fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.c)
    }

    fn add(mut self, o: &Lin) -> Lin {
        for (a, k) in &o.terms {
            *self.terms.entry(a.clone()).or_insert(0) += k;
        }
        self.terms.retain(|_, k| *k != 0);
        self.c = self.c.wrapping_add(o.c);
        self
    }

    fn scale(mut self, s: i64) -> Lin {
        for k in self.terms.values_mut() {
            *k = k.wrapping_mul(s);
        }
        self.terms.retain(|_, k| *k != 0);
        self.c = self.c.wrapping_mul(s);
        self
    }
}

fn expr_thread_dependent(e: &KExpr, vars: &BTreeSet<Handle<KVar>>) -> bool {
    match e {
        KExpr::Var(v) => vars.contains(v),
        KExpr::Int(..) | KExpr::Float(..) => false,
        KExpr::Builtin(b) => matches!(b, Builtin::LocalId(_) | Builtin::GlobalId(_)),
        // A value in memory may differ between threads (a uniform load is not worth proving).
        KExpr::Load(_) => true,
        KExpr::Unary(_, a) | KExpr::Cast(_, a) => expr_thread_dependent(a, vars),
        KExpr::Binary(_, a, b) => expr_thread_dependent(a, vars) || expr_thread_dependent(b, vars),
        KExpr::Cond(c, a, b) => [c, a, b].iter().any(|x| expr_thread_dependent(x, vars)),
        KExpr::Call(_, args) => args.iter().any(|a| expr_thread_dependent(a, vars)),
    }
}

/// The variables that may hold different values in the threads of a block: assigned from a
/// thread-dependent value, or assigned under thread-dependent control flow (a fixpoint).
fn thread_dependent_vars(body: &[KStmt]) -> BTreeSet<Handle<KVar>> {
    let mut vars = BTreeSet::new();
    loop {
        let before = vars.len();
        collect_thread_vars(body, false, &mut vars);
        if vars.len() == before {
            return vars;
        }
    }
}

fn collect_thread_vars(stmts: &[KStmt], divergent: bool, vars: &mut BTreeSet<Handle<KVar>>) {
    for s in stmts {
        match s {
            KStmt::Decl { var, init } => {
                if divergent
                    || init
                        .as_ref()
                        .is_some_and(|e| expr_thread_dependent(e, vars))
                {
                    vars.insert(*var);
                }
            }
            KStmt::Assign {
                target: LValue::Var(v),
                value,
                ..
            } => {
                if divergent || expr_thread_dependent(value, vars) {
                    vars.insert(*v);
                }
            }
            KStmt::Assign { .. } | KStmt::Expr(_) | KStmt::DeclArray(_) => {}
            KStmt::If { cond, then, els } => {
                let d = divergent || expr_thread_dependent(cond, vars);
                collect_thread_vars(then, d, vars);
                collect_thread_vars(els, d, vars);
            }
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                collect_thread_vars(init, divergent, vars);
                let d = divergent
                    || cond
                        .as_ref()
                        .is_some_and(|c| expr_thread_dependent(c, vars))
                    || exits_divergently(body, vars);
                collect_thread_vars(body, d, vars);
                collect_thread_vars(step, d, vars);
            }
            KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
                let d =
                    divergent || expr_thread_dependent(cond, vars) || exits_divergently(body, vars);
                collect_thread_vars(body, d, vars);
            }
            KStmt::Block(b) => collect_thread_vars(b, divergent, vars),
            // A captured value comes from memory.
            KStmt::Atomic {
                capture: Some(c), ..
            } => {
                vars.insert(c.var);
            }
            KStmt::Atomic { .. } | KStmt::VecStore { .. } => {}
            // Lanes come from memory.
            KStmt::VecLoad { lanes, .. } => vars.extend(lanes.iter().copied()),
            KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => {}
        }
    }
}

/// A `break` or `continue` of this loop (not of a loop inside it) under thread-dependent control
/// flow: the loop's trip count depends on the thread.
fn exits_divergently(body: &[KStmt], vars: &BTreeSet<Handle<KVar>>) -> bool {
    fn walk(stmts: &[KStmt], divergent: bool, vars: &BTreeSet<Handle<KVar>>) -> bool {
        stmts.iter().any(|s| match s {
            KStmt::Break | KStmt::Continue => divergent,
            KStmt::If { cond, then, els } => {
                let d = divergent || expr_thread_dependent(cond, vars);
                walk(then, d, vars) || walk(els, d, vars)
            }
            KStmt::Block(b) => walk(b, divergent, vars),
            _ => false,
        })
    }
    walk(body, false, vars)
}

/// How many times each variable is assigned (declaration initializers and loop steps included).
fn assigned_vars(body: &[KStmt]) -> BTreeMap<Handle<KVar>, usize> {
    fn walk(stmts: &[KStmt], out: &mut BTreeMap<Handle<KVar>, usize>) {
        for s in stmts {
            match s {
                KStmt::Decl { var, init } => {
                    *out.entry(*var).or_insert(0) += usize::from(init.is_some());
                }
                KStmt::Assign {
                    target: LValue::Var(v),
                    ..
                } => *out.entry(*v).or_insert(0) += 1,
                KStmt::Atomic {
                    capture: Some(c), ..
                } => *out.entry(c.var).or_insert(0) += 1,
                KStmt::VecLoad { lanes, .. } => {
                    for l in lanes {
                        *out.entry(*l).or_insert(0) += 1;
                    }
                }
                KStmt::If { then, els, .. } => {
                    walk(then, out);
                    walk(els, out);
                }
                KStmt::For {
                    init, step, body, ..
                } => {
                    walk(init, out);
                    walk(body, out);
                    walk(step, out);
                }
                KStmt::While { body, .. } | KStmt::DoWhile { body, .. } | KStmt::Block(body) => {
                    walk(body, out)
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(body, &mut out);
    out
}

#[cfg(test)]
mod tests;
