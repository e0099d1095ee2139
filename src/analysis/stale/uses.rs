//! The names a function declares, and the arrays a statement reads and writes on the host.

use super::*;

/// Every name a function declares (parameters and locals), with how many times.
#[derive(Default)]
pub(super) struct Decls {
    pub(super) names: BTreeMap<String, (CType, Scope, usize)>,
    /// `goto` or a label: the control flow is not the statements'.
    pub(super) gives_up: bool,
}

impl Decls {
    pub(super) fn add(&mut self, name: &str, ty: &CType, scope: Scope) {
        let e = self
            .names
            .entry(name.to_string())
            .or_insert((ty.clone(), scope, 0));
        e.2 += 1;
    }

    pub(super) fn decl(&mut self, d: &ast::Declaration) {
        if d.storage == Storage::Typedef {
            return;
        }
        let scope = if d.storage == Storage::None {
            Scope::Local
        } else {
            Scope::Shared
        };
        for dec in &d.declarators {
            self.add(&dec.name.name, &dec.ty, scope);
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Block(b) => b.stmts.iter().for_each(|s| self.stmt(s)),
            StmtKind::If { then, els, .. } => {
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::For { init, body, .. } => {
                if let ForInit::Decl(d) = init {
                    self.decl(d);
                }
                self.stmt(body);
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => self.stmt(body),
            StmtKind::Acc { body, .. } => self.stmt(body),
            StmtKind::Unsupported { what, body, .. } => {
                if what == "goto" || what.starts_with("label") {
                    self.gives_up = true;
                }
                if let Some(b) = body {
                    self.stmt(b);
                }
            }
            _ => {}
        }
    }
}

/// The arrays whose address flows somewhere else than a call's argument (`p = a`, `a + 1`,
/// `&a[i]`, a row `A[i]` of a 2-D array), and those handed to functions of the program.
pub(super) struct Uses<'a> {
    pub(super) arrays: &'a BTreeMap<String, (usize, Scope)>,
    pub(super) escaped: BTreeSet<String>,
    pub(super) passed: BTreeSet<String>,
    /// Pointers given another value than a fresh allocation (`float *x = y;`): they may name
    /// memory the device already holds.
    pub(super) aliased: BTreeSet<String>,
}

/// `malloc(…)`, `calloc(…)`, `aligned_alloc(…)`, cast or not: memory nobody else names.
pub(super) fn fresh(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Cast(_, a) => fresh(a),
        ExprKind::Call(f, _) => matches!(f.name.as_str(), "malloc" | "calloc" | "aligned_alloc"),
        _ => false,
    }
}

impl Uses<'_> {
    pub(super) fn decl(&mut self, d: &ast::Declaration) {
        for dec in &d.declarators {
            if let Some(i) = &dec.init {
                if self.arrays.contains_key(&dec.name.name)
                    && !matches!(i, Initializer::Expr(e) if fresh(e))
                {
                    self.aliased.insert(dec.name.name.clone());
                }
                self.init(i);
            }
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Block(b) => b.stmts.iter().for_each(|s| self.stmt(s)),
            StmtKind::If { cond, then, els } => {
                self.test(cond);
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match init {
                    ForInit::Decl(d) => self.decl(d),
                    ForInit::Expr(e) => self.expr(e),
                    ForInit::None => {}
                }
                cond.iter().chain(step.iter()).for_each(|e| self.expr(e));
                self.stmt(body);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond);
                self.stmt(body);
            }
            StmtKind::Acc { body, .. } => self.stmt(body),
            StmtKind::Unsupported { body: Some(b), .. } => self.stmt(b),
            _ => {}
        }
    }

    pub(super) fn init(&mut self, i: &Initializer) {
        match i {
            Initializer::Expr(e) => self.expr(e),
            Initializer::List(v, _) => v.iter().for_each(|i| self.init(i)),
            Initializer::Designated { init, .. } => self.init(init),
        }
    }

    /// An index chain on a followed array: its name and number of subscripts.
    pub(super) fn chain<'e>(&self, e: &'e Expr) -> Option<(&'e str, usize)> {
        let mut cur = e;
        let mut n = 0;
        while let ExprKind::Index(base, _) = &cur.kind {
            cur = base;
            n += 1;
        }
        match &cur.kind {
            ExprKind::Ident(x) if self.arrays.contains_key(x) => Some((x, n)),
            _ => None,
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(x) => {
                if self.arrays.contains_key(x) {
                    self.escaped.insert(x.clone());
                }
            }
            // A null test (`!a`, `a == NULL`, `a && b`) reads the pointer, it does not copy it.
            ExprKind::Unary(UnOp::Not, a) => self.test(a),
            ExprKind::Binary(BinOp::Eq | BinOp::Ne | BinOp::LogAnd | BinOp::LogOr, a, b) => {
                self.test(a);
                self.test(b);
            }
            ExprKind::Index(..) => {
                if let Some((x, n)) = self.chain(e) {
                    if self.arrays.get(x).is_some_and(|(d, _)| *d != n) {
                        self.escaped.insert(x.to_string());
                    }
                    let mut cur = e;
                    while let ExprKind::Index(b, i) = &cur.kind {
                        self.expr(i);
                        cur = b;
                    }
                } else if let ExprKind::Index(a, b) = &e.kind {
                    self.expr(a);
                    self.expr(b);
                }
            }
            // A pointer assigned (`a = malloc(…)`) names other memory: the analysis forgets
            // its facts there; its old value does not flow anywhere.
            ExprKind::Assign(_, lhs, rhs) => {
                match &lhs.kind {
                    ExprKind::Ident(x) if self.arrays.contains_key(x) => {
                        if !fresh(rhs) {
                            self.aliased.insert(x.clone());
                        }
                    }
                    _ => self.expr(lhs),
                }
                self.expr(rhs);
            }
            ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) => {}
            // `&a[i]` outside a call's argument: an address into the array.
            ExprKind::Unary(UnOp::AddrOf, a) if self.chain(a).is_some() => {
                if let Some((x, _)) = self.chain(a) {
                    self.escaped.insert(x.to_string());
                }
                self.arg(a);
            }
            ExprKind::Call(f, args) => {
                let value_fn = PRINTS.contains(&f.name.as_str()) || PURE.contains(&f.name.as_str());
                for a in args {
                    match &a.kind {
                        // The array itself, or an element's address, handed to the callee.
                        ExprKind::Ident(x) if self.arrays.contains_key(x) => {
                            if !value_fn && !LIBC.contains(&f.name.as_str()) {
                                self.passed.insert(x.clone());
                            }
                        }
                        _ => {
                            let mut names = BTreeSet::new();
                            a.walk(&mut |e| {
                                if let ExprKind::Ident(x) = &e.kind {
                                    if self.arrays.contains_key(x) {
                                        names.insert(x.clone());
                                    }
                                }
                            });
                            if !value_fn && !LIBC.contains(&f.name.as_str()) {
                                self.passed.extend(names.iter().cloned());
                            }
                            // An address computed in the argument is the callee's business:
                            // the call forgets the array's facts.
                            if !value_fn {
                                self.arg(a);
                            } else {
                                self.expr(a);
                            }
                        }
                    }
                }
            }
            _ => {
                let mut children = Vec::new();
                match &e.kind {
                    ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => children.push(&**a),
                    ExprKind::IncDec { arg, .. } => children.push(&**arg),
                    ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
                        children.push(&**a);
                        children.push(&**b);
                    }
                    ExprKind::Cond(a, b, c) => {
                        children.push(&**a);
                        children.push(&**b);
                        children.push(&**c);
                    }
                    ExprKind::IndirectCall(c, args) => {
                        children.push(&**c);
                        children.extend(args.iter());
                    }
                    ExprKind::Member { base, .. } => children.push(&**base),
                    ExprKind::CompoundLit(_, inits) => {
                        inits.iter().for_each(|i| self.init(i));
                    }
                    _ => {}
                }
                for c in children {
                    self.expr(c);
                }
            }
        }
    }

    /// An operand of a test: a followed array's name there is a null test.
    pub(super) fn test(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(x) if self.arrays.contains_key(x) => {}
            _ => self.expr(e),
        }
    }

    /// An argument of a call to a function that may keep what it receives only while it runs:
    /// addresses of followed arrays in it (`a + k`, `&a[i]`, `A[i]`) do not escape; anything
    /// else is looked at as usual.
    pub(super) fn arg(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(x) if self.arrays.contains_key(x) => {}
            ExprKind::Unary(UnOp::AddrOf, a) => self.arg(a),
            ExprKind::Cast(_, a) => self.arg(a),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                self.arg(a);
                self.expr(b);
            }
            ExprKind::Index(..) if self.chain(e).is_some() => {
                let mut cur = e;
                while let ExprKind::Index(b, i) = &cur.kind {
                    self.expr(i);
                    cur = b;
                }
            }
            _ => self.expr(e),
        }
    }
}
