//! The names a function declares, and the arrays a statement reads and writes on the host.

use super::*;
use crate::ir::expr::Exprs;
use crate::ir::host::{Declared, Storage};

/// Every name a function declares (parameters and locals), with how many times.
#[derive(Default)]
pub(super) struct Decls {
    pub(super) names: BTreeMap<String, (VarShape, Scope, usize)>,
    /// `goto` or a label: the control flow is not the statements'.
    pub(super) gives_up: bool,
}

impl Decls {
    pub(super) fn add(&mut self, name: &str, shape: VarShape, scope: Scope) {
        let e = self
            .names
            .entry(name.to_string())
            .or_insert((shape, scope, 0));
        e.2 += 1;
    }

    pub(super) fn decl(&mut self, storage: Storage, vars: &[Declared]) {
        if storage == Storage::Typedef {
            return;
        }
        let scope = if storage == Storage::Auto {
            Scope::Local
        } else {
            Scope::Shared
        };
        for v in vars {
            self.add(&v.var.name, v.var.shape, scope);
        }
    }

    pub(super) fn stmt(&mut self, f: &HostFunction, s: Handle<HostStmt>) {
        match &f.stmts[s] {
            HostStmt::Decl { storage, vars } => self.decl(*storage, vars),
            HostStmt::Block(b) => b.iter().for_each(|s| self.stmt(f, *s)),
            HostStmt::If { accept, reject, .. } => {
                self.stmt(f, *accept);
                if let Some(e) = reject {
                    self.stmt(f, *e);
                }
            }
            HostStmt::For { init, body, .. } => {
                if let Some(HostStmt::Decl { storage, vars }) = init.map(|i| &f.stmts[i]) {
                    self.decl(*storage, vars);
                }
                self.stmt(f, *body);
            }
            HostStmt::While { body, .. } | HostStmt::DoWhile { body, .. } => self.stmt(f, *body),
            HostStmt::Acc { body, .. } => self.stmt(f, *body),
            HostStmt::Unstructured { kind, body, .. } => {
                if kind.jumps() {
                    self.gives_up = true;
                }
                if let Some(b) = body {
                    self.stmt(f, *b);
                }
            }
            _ => {}
        }
    }
}

/// The arrays whose address flows somewhere else than a call's argument (`p = a`, `a + 1`,
/// `&a[i]`, a row `A[i]` of a 2-D array), and those handed to functions of the program.
pub(super) struct Uses<'a> {
    pub(super) f: &'a HostFunction,
    pub(super) arrays: &'a BTreeMap<String, (usize, Scope)>,
    pub(super) escaped: BTreeSet<String>,
    pub(super) passed: BTreeSet<String>,
    /// Pointers given another value than a fresh allocation (`float *x = y;`): they may name
    /// memory the device already holds.
    pub(super) aliased: BTreeSet<String>,
}

/// `malloc(…)`, `calloc(…)`, `aligned_alloc(…)`, cast or not: memory nobody else names.
pub(super) fn fresh(x: &Exprs, e: Handle<Expr>) -> bool {
    match &x[e] {
        Expr::Cast { arg, .. } | Expr::CastOther { arg, .. } => fresh(x, *arg),
        Expr::Call { function, .. } => {
            matches!(function.as_str(), "malloc" | "calloc" | "aligned_alloc")
        }
        _ => false,
    }
}

impl<'a> Uses<'a> {
    fn followed<'e>(&self, e: &'e Expr) -> Option<&'e String> {
        match e {
            Expr::Var(x) if self.arrays.contains_key(x) => Some(x),
            _ => None,
        }
    }

    pub(super) fn decl(&mut self, vars: &[Declared]) {
        for v in vars {
            if let Some(i) = &v.init {
                if self.arrays.contains_key(&v.var.name)
                    && !matches!(i, Initializer::Expr(e) if fresh(&self.f.exprs, *e))
                {
                    self.aliased.insert(v.var.name.clone());
                }
                self.init(i);
            }
        }
    }

    pub(super) fn stmt(&mut self, s: Handle<HostStmt>) {
        let f = self.f;
        match &f.stmts[s] {
            HostStmt::Decl { vars, .. } => self.decl(vars),
            HostStmt::Expr(e) | HostStmt::Return(Some(e)) => self.expr(*e),
            HostStmt::Block(b) => b.iter().for_each(|s| self.stmt(*s)),
            HostStmt::If {
                cond,
                accept,
                reject,
            } => {
                self.test(*cond);
                self.stmt(*accept);
                if let Some(e) = reject {
                    self.stmt(*e);
                }
            }
            HostStmt::For {
                init,
                cond,
                step,
                body,
            } => {
                match init.map(|i| &f.stmts[i]) {
                    Some(HostStmt::Decl { vars, .. }) => self.decl(vars),
                    Some(HostStmt::Expr(e)) => self.expr(*e),
                    _ => {}
                }
                cond.iter().chain(step.iter()).for_each(|e| self.expr(*e));
                self.stmt(*body);
            }
            HostStmt::While { cond, body } | HostStmt::DoWhile { body, cond } => {
                self.expr(*cond);
                self.stmt(*body);
            }
            HostStmt::Acc { body, .. } => self.stmt(*body),
            HostStmt::Unstructured { body: Some(b), .. } => self.stmt(*b),
            _ => {}
        }
    }

    pub(super) fn init(&mut self, i: &Initializer) {
        match i {
            Initializer::Expr(e) => self.expr(*e),
            Initializer::List(v) => v.iter().for_each(|i| self.init(i)),
            Initializer::Designated { init, .. } => self.init(init),
        }
    }

    /// An index chain on a followed array: its name and number of subscripts.
    pub(super) fn chain(&self, e: Handle<Expr>) -> Option<(&'a str, usize)> {
        let f: &'a HostFunction = self.f;
        let x = &f.exprs;
        let mut cur = e;
        let mut n = 0;
        while let Expr::Index { base, .. } = &x[cur] {
            cur = *base;
            n += 1;
        }
        self.followed(&x[cur]).map(|v| (v.as_str(), n))
    }

    /// Evaluates the subscripts of an index chain.
    fn subscripts(&mut self, e: Handle<Expr>) {
        let f = self.f;
        let mut cur = e;
        while let Expr::Index { base, index } = &f.exprs[cur] {
            self.expr(*index);
            cur = *base;
        }
    }

    pub(super) fn expr(&mut self, e: Handle<Expr>) {
        let f = self.f;
        match &f.exprs[e] {
            Expr::Var(x) => {
                if self.arrays.contains_key(x) {
                    self.escaped.insert(x.clone());
                }
            }
            // A null test (`!a`, `a == NULL`, `a && b`) reads the pointer, it does not copy it.
            Expr::Unary { op: UnOp::Not, arg } => self.test(*arg),
            Expr::Binary {
                op: BinOp::Eq | BinOp::Ne | BinOp::LogAnd | BinOp::LogOr,
                left,
                right,
            } => {
                self.test(*left);
                self.test(*right);
            }
            Expr::Index { base, index } => {
                if let Some((x, n)) = self.chain(e) {
                    if self.arrays.get(x).is_some_and(|(d, _)| *d != n) {
                        self.escaped.insert(x.to_string());
                    }
                    self.subscripts(e);
                } else {
                    self.expr(*base);
                    self.expr(*index);
                }
            }
            // A pointer assigned (`a = malloc(…)`) names other memory: the analysis forgets
            // its facts there; its old value does not flow anywhere.
            Expr::Assign { target, value, .. } => {
                match self.followed(&f.exprs[*target]) {
                    Some(x) => {
                        if !fresh(&f.exprs, *value) {
                            self.aliased.insert(x.clone());
                        }
                    }
                    None => self.expr(*target),
                }
                self.expr(*value);
            }
            Expr::Sizeof { .. } => {}
            // `&a[i]` outside a call's argument: an address into the array.
            Expr::Unary {
                op: UnOp::AddrOf,
                arg,
            } if self.chain(*arg).is_some() => {
                if let Some((x, _)) = self.chain(*arg) {
                    self.escaped.insert(x.to_string());
                }
                self.arg(*arg);
            }
            Expr::Call { function, args, .. } => self.call(function, args),
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::CastOther { arg, .. }
            | Expr::IncDec { arg, .. }
            | Expr::Member { base: arg, .. } => self.expr(*arg),
            Expr::Binary { left, right, .. } | Expr::Comma { left, right } => {
                self.expr(*left);
                self.expr(*right);
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                self.expr(*cond);
                self.expr(*accept);
                self.expr(*reject);
            }
            Expr::Opaque { .. } => match f.opaque.get(&e) {
                Some(Opaque::IndirectCall { callee, args }) => {
                    self.expr(*callee);
                    args.iter().for_each(|a| self.expr(*a));
                }
                Some(Opaque::CompoundLit { inits }) => inits.iter().for_each(|i| self.init(i)),
                None => {}
            },
            Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) => {}
        }
    }

    /// A call of `function` by name with `args`.
    fn call(&mut self, function: &str, args: &[Handle<Expr>]) {
        let f = self.f;
        let value_fn = PRINTS.contains(&function) || PURE.contains(&function);
        let program = !value_fn && !LIBC.contains(&function);
        for a in args {
            match self.followed(&f.exprs[*a]) {
                // The array itself, or an element's address, handed to the callee.
                Some(x) => {
                    if program {
                        self.passed.insert(x.clone());
                    }
                }
                None => {
                    let mut names = BTreeSet::new();
                    f.walk(*a, &mut |h| {
                        if let Some(x) = self.followed(&f.exprs[h]) {
                            names.insert(x.clone());
                        }
                    });
                    if program {
                        self.passed.extend(names.iter().cloned());
                    }
                    // An address computed in the argument is the callee's business:
                    // the call forgets the array's facts.
                    if !value_fn {
                        self.arg(*a);
                    } else {
                        self.expr(*a);
                    }
                }
            }
        }
    }

    /// An operand of a test: a followed array's name there is a null test.
    pub(super) fn test(&mut self, e: Handle<Expr>) {
        if self.followed(&self.f.exprs[e]).is_none() {
            self.expr(e);
        }
    }

    /// An argument of a call to a function that may keep what it receives only while it runs:
    /// addresses of followed arrays in it (`a + k`, `&a[i]`, `A[i]`) do not escape; anything
    /// else is looked at as usual.
    pub(super) fn arg(&mut self, e: Handle<Expr>) {
        let f = self.f;
        match &f.exprs[e] {
            Expr::Var(x) if self.arrays.contains_key(x) => {}
            Expr::Unary {
                op: UnOp::AddrOf,
                arg,
            }
            | Expr::Cast { arg, .. }
            | Expr::CastOther { arg, .. } => self.arg(*arg),
            Expr::Binary {
                op: BinOp::Add | BinOp::Sub,
                left,
                right,
            } => {
                self.arg(*left);
                self.expr(*right);
            }
            Expr::Index { .. } if self.chain(e).is_some() => self.subscripts(e),
            _ => self.expr(e),
        }
    }
}
