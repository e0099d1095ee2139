//! AST → loop-nest IR.
//!
//! [`find_regions`] walks every function, keeping a scope of declarations, and lowers each
//! compute construct it meets (also inside host loops and `data` constructs) to a [`Region`].
//! What cannot be represented is a diagnostic naming the construct.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::diag::{Diag, Diags, SourceMap};
use crate::front::ast::{self, BinOp, CType, Expr, ExprKind, ForInit, Stmt, StmtKind, UnOp};
use crate::front::pragma_ast::{AccDirective, ClauseKind, Construct, DataKind};

/// A declared name visible at some point of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub ty: CType,
    pub span: Span,
    /// A function parameter (arrays as parameters are pointers in C).
    pub param: bool,
    /// Declared at file scope.
    pub global: bool,
}

/// The scope chain while walking a function.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    frames: Vec<BTreeMap<String, Symbol>>,
}

impl Scope {
    pub fn push(&mut self) {
        self.frames.push(BTreeMap::new());
    }
    pub fn pop(&mut self) {
        self.frames.pop();
    }
    pub fn declare(&mut self, s: Symbol) {
        if self.frames.is_empty() {
            self.push();
        }
        if let Some(f) = self.frames.last_mut() {
            f.insert(s.name.clone(), s);
        }
    }
    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }
    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.lookup(name)
    }

    /// The visible symbols among `names`, with the symbols their types mention (the extents of
    /// `float A[n][m]`), by name. Regions keep only these: copying the whole scope per region
    /// would be quadratic in files with many functions.
    pub fn restricted(&self, names: &BTreeSet<String>) -> BTreeMap<String, Symbol> {
        let mut out = BTreeMap::new();
        let mut todo: Vec<String> = names.iter().cloned().collect();
        while let Some(n) = todo.pop() {
            if out.contains_key(&n) {
                continue;
            }
            if let Some(sym) = self.lookup(&n) {
                let mut more = BTreeSet::new();
                type_names(&sym.ty, &mut more);
                todo.extend(more);
                out.insert(n, sym.clone());
            }
        }
        out
    }
}

/// A data construct enclosing a region, as seen by the region.
#[derive(Clone, Debug, PartialEq)]
pub struct DataScope {
    pub dir: AccDirective,
    /// The statement the construct applies to.
    pub body_span: Span,
}

/// A compute region together with what code generation needs from the AST.
#[derive(Clone, Debug)]
pub struct RegionAst {
    pub ir: Region,
    pub dir: AccDirective,
    /// The statement the construct applies to (the `for` of a combined construct).
    pub body: Stmt,
    /// Symbols visible at the construct.
    pub scope: BTreeMap<String, Symbol>,
    /// Enclosing data constructs, outermost first.
    pub data: Vec<DataScope>,
    /// The whole annotated statement (pragma through body).
    pub stmt_span: Span,
}

/// An annotated `data` construct (for the host plan).
#[derive(Clone, Debug)]
pub struct DataAst {
    pub dir: AccDirective,
    pub body_span: Span,
    pub scope: BTreeMap<String, Symbol>,
    pub data: Vec<DataScope>,
    pub stmt_span: Span,
}

/// All compute and data constructs of a translation unit, in source order.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    pub compute: Vec<RegionAst>,
    pub data: Vec<DataAst>,
}

/// Finds and lowers every compute region of the translation unit.
pub fn find_regions(tu: &ast::TranslationUnit, sources: &SourceMap, diags: &mut Diags) -> Regions {
    let mut out = Regions::default();
    let mut scope = Scope::default();
    scope.push();
    for item in &tu.items {
        match &item.kind {
            ast::ItemKind::Decl(d) => declare_all(&mut scope, d, false, true),
            ast::ItemKind::Function(f) => {
                scope.declare(Symbol {
                    name: f.name.name.clone(),
                    ty: f.ret.clone(),
                    span: f.name.span,
                    param: false,
                    global: true,
                });
                scope.push();
                for p in &f.params {
                    if let Some(n) = &p.name {
                        scope.declare(Symbol {
                            name: n.name.clone(),
                            ty: p.ty.clone(),
                            span: n.span,
                            param: true,
                            global: false,
                        });
                    }
                }
                let mut w = Walker {
                    func: &f.name.name,
                    sources,
                    diags,
                    out: &mut out,
                    data: Vec::new(),
                };
                for s in &f.body.stmts {
                    w.stmt(s, &mut scope);
                }
                scope.pop();
            }
            _ => {}
        }
    }
    out
}

fn declare_all(scope: &mut Scope, d: &ast::Declaration, param: bool, global: bool) {
    if d.storage == ast::Storage::Typedef {
        return;
    }
    for dec in &d.declarators {
        scope.declare(Symbol {
            name: dec.name.name.clone(),
            ty: dec.ty.clone(),
            span: dec.name.span,
            param,
            global,
        });
    }
}

struct Walker<'a> {
    func: &'a str,
    sources: &'a SourceMap,
    diags: &'a mut Diags,
    out: &'a mut Regions,
    data: Vec<DataScope>,
}

impl Walker<'_> {
    fn stmt(&mut self, s: &Stmt, scope: &mut Scope) {
        match &s.kind {
            StmtKind::Decl(d) => declare_all(scope, d, false, false),
            StmtKind::Block(b) => {
                scope.push();
                for s in &b.stmts {
                    self.stmt(s, scope);
                }
                scope.pop();
            }
            StmtKind::If { then, els, .. } => {
                self.stmt(then, scope);
                if let Some(e) = els {
                    self.stmt(e, scope);
                }
            }
            StmtKind::For { init, body, .. } => {
                scope.push();
                if let ForInit::Decl(d) = init {
                    declare_all(scope, d, false, false);
                }
                self.stmt(body, scope);
                scope.pop();
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => self.stmt(body, scope),
            StmtKind::Acc { dir, share, body } => {
                if dir.construct.is_compute() {
                    let ir = RegionBuilder::new(self.func, dir, share.clone(), scope, self.sources)
                        .build(body, self.diags);
                    let mut names = BTreeSet::new();
                    stmt_names(s, &mut names);
                    let visible = scope.restricted(&names);
                    self.out.compute.push(RegionAst {
                        ir,
                        dir: dir.clone(),
                        body: (**body).clone(),
                        scope: visible,
                        data: self.data.clone(),
                        stmt_span: s.span,
                    });
                } else if dir.construct == Construct::Data {
                    self.out.data.push(DataAst {
                        dir: dir.clone(),
                        body_span: body.span,
                        scope: {
                            let mut names = BTreeSet::new();
                            directive_names(dir, &mut names);
                            scope.restricted(&names)
                        },
                        data: self.data.clone(),
                        stmt_span: s.span,
                    });
                    self.data.push(DataScope {
                        dir: dir.clone(),
                        body_span: body.span,
                    });
                    self.stmt(body, scope);
                    self.data.pop();
                } else {
                    // `loop` outside a compute construct, host_data, atomic: the statement runs
                    // on the host as written.
                    if dir.construct == Construct::Loop {
                        self.diags.push(
                            Diag::warning(
                                dir.construct_span,
                                "`loop` outside a compute construct is ignored",
                            )
                            .help("use `#pragma acc parallel loop` or `#pragma acc kernels loop`"),
                        );
                    }
                    self.stmt(body, scope);
                }
            }
            _ => {}
        }
    }
}

/// Builds the IR of one region.
struct RegionBuilder<'a> {
    region: Region,
    scope: &'a Scope,
    sources: &'a SourceMap,
    /// Loops currently open, outermost first.
    open: Vec<LoopId>,
    /// Depth of conditional control flow inside the innermost open loop.
    cond_depth: usize,
    /// Names declared inside the region: name → enclosing loop.
    locals: BTreeMap<String, Option<LoopId>>,
    /// The `#pragma acc loop` directive applying to the next `for` we lower.
    pending: Option<AccDirective>,
    errors: Vec<Diag>,
}

impl<'a> RegionBuilder<'a> {
    fn new(
        func: &str,
        dir: &AccDirective,
        share: Option<crate::front::pragma_ast::SharePragma>,
        scope: &'a Scope,
        sources: &'a SourceMap,
    ) -> Self {
        RegionBuilder {
            region: Region {
                func: func.to_string(),
                construct: dir.construct.clone(),
                span: dir.span,
                share,
                cache: Vec::new(),
                arrays: BTreeMap::new(),
                scalars: BTreeMap::new(),
                loops: Vec::new(),
                stmts: Vec::new(),
                accesses: Vec::new(),
                scalar_refs: Vec::new(),
                roots: Vec::new(),
            },
            scope,
            sources,
            open: Vec::new(),
            cond_depth: 0,
            locals: BTreeMap::new(),
            pending: if dir.construct.is_loop() {
                Some(dir.clone())
            } else {
                None
            },
            errors: Vec::new(),
        }
    }

    fn build(mut self, body: &Stmt, diags: &mut Diags) -> Region {
        self.top(body);
        // A subscript or bound that mentions a scalar assigned inside the region is not affine.
        let written: Vec<String> = self
            .region
            .scalars
            .values()
            .filter(|s| s.written)
            .map(|s| s.name.clone())
            .collect();
        for a in &mut self.region.accesses {
            for sub in &mut a.subscripts {
                if sub
                    .as_ref()
                    .is_some_and(|p| written.iter().any(|w| p.mentions(w)))
                {
                    *sub = None;
                }
            }
        }
        for l in &mut self.region.loops {
            for b in [&mut l.lower, &mut l.upper] {
                if let Bound::Affine(p) = b {
                    if written.iter().any(|w| p.mentions(w)) {
                        *b = Bound::NonAffine(p.to_string());
                    }
                }
            }
        }
        for e in self.errors {
            diags.push(e);
        }
        self.region
    }

    /// A top-level statement of the region: loops become roots.
    fn top(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) => {
                for s in &b.stmts {
                    self.top(s);
                }
            }
            StmtKind::For { .. } => {
                if let Some(l) = self.for_loop(s) {
                    self.region.roots.push(l);
                }
            }
            StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Loop => {
                self.pending = Some(dir.clone());
                self.top(body);
            }
            StmtKind::AccStandalone(d) if d.construct == Construct::Cache => {
                self.region.cache.extend(d.cache.iter().cloned());
            }
            StmtKind::Empty | StmtKind::AccStandalone(_) => {}
            StmtKind::Decl(d) => {
                self.errors.push(
                    Diag::error(
                        d.span,
                        "declarations at the top level of a compute region are not supported",
                    )
                    .help(
                        "declare the variable inside the loop that uses it, or before the region",
                    ),
                );
            }
            _ => {
                self.errors.push(
                    Diag::error(
                        s.span,
                        "only loops are supported at the top level of a compute region",
                    )
                    .label("this statement is not a loop")
                    .help("move this statement out of the region, or into the loop"),
                );
            }
        }
    }

    /// Lowers a `for` statement; returns its loop id if it is in canonical form.
    fn for_loop(&mut self, s: &Stmt) -> Option<LoopId> {
        let StmtKind::For {
            init,
            cond,
            step,
            body,
        } = &s.kind
        else {
            return None;
        };
        let dir = self.pending.take();
        let header_span = Span {
            hi: body.span.lo.max(s.span.lo),
            ..s.span
        };
        let header_span = trim_header(self.sources, header_span);
        let canon = canonical(init, cond.as_ref(), step.as_ref(), self.scope);
        let Some((var, ty, lower_e, upper_e, inclusive_adj, step_c)) = canon else {
            // Not canonical: runs sequentially as written.
            if let Some(d) = &dir {
                if d.has(|c| {
                    matches!(
                        c,
                        ClauseKind::Independent | ClauseKind::Gang(_) | ClauseKind::Vector(_)
                    )
                }) || d.construct != Construct::Loop
                {
                    self.errors.push(
                        Diag::error(header_span, "this loop cannot be parallelized: it is not in canonical form")
                            .note("accshare parallelizes loops of the form `for (i = lb; i < ub; i += c)` (also `<=`, `>`, `>=`, `++`, `--`, `-=`) with a constant step")
                            .help("mark it `seq`, or rewrite the loop header"),
                    );
                }
            }
            self.cond_depth += 1;
            if let ForInit::Expr(e) = init {
                self.expr_effects(e);
            }
            if let ForInit::Decl(d) = init {
                self.decl(d);
            }
            if let Some(c) = cond {
                self.reads(c);
            }
            self.body(body);
            if let Some(e) = step {
                self.expr_effects(e);
            }
            self.cond_depth -= 1;
            return None;
        };
        let iters = self.open_iters();
        let lower = self.bound(&lower_e, &iters, 0);
        let upper = self.bound(&upper_e, &iters, inclusive_adj);
        let id = self.region.loops.len();
        let parent = self.open.last().copied();
        let mut marking = if self.region.construct == Construct::Parallel
            || self.region.construct == Construct::ParallelLoop
        {
            Marking::Independent
        } else {
            Marking::Auto
        };
        let (mut vector_len, mut collapse, mut reductions, mut private) =
            (None, 1, Vec::new(), Vec::new());
        match &dir {
            Some(d) => {
                for c in &d.clauses {
                    match &c.kind {
                        ClauseKind::Independent => marking = Marking::Independent,
                        ClauseKind::Seq => marking = Marking::Seq,
                        ClauseKind::Auto => marking = Marking::Auto,
                        ClauseKind::Vector(Some(e)) | ClauseKind::VectorLength(e) => {
                            vector_len = const_u32(e)
                        }
                        ClauseKind::Collapse(n) => collapse = *n,
                        ClauseKind::Reduction { op, vars } => {
                            reductions.extend(vars.iter().map(|v| (*op, v.name.clone())))
                        }
                        ClauseKind::Private(v) | ClauseKind::FirstPrivate(v) => {
                            private.extend(v.iter().map(|v| v.name.clone()))
                        }
                        _ => {}
                    }
                }
            }
            None => {
                // A loop without a directive inside a `parallel` construct runs redundantly in
                // OpenACC; accshare runs it sequentially in each thread, like `seq`.
                if matches!(
                    self.region.construct,
                    Construct::Parallel | Construct::ParallelLoop
                ) {
                    marking = Marking::Seq;
                }
            }
        }
        // An enclosing collapse(n) covers this loop too.
        if let Some(p) = parent {
            let pl = &self.region.loops[p];
            if pl.collapse > 1 && pl.perfect_candidate() {
                marking = pl.marking;
                collapse = pl.collapse - 1;
            }
        }
        self.region.loops.push(Loop {
            id,
            var: var.clone(),
            ty,
            parent,
            depth: self.open.len(),
            lower,
            upper,
            step: step_c,
            children: Vec::new(),
            perfect: is_single_loop(body),
            marking,
            conditional: self.cond_depth > 0,
            vector_len,
            collapse,
            reductions,
            private,
            span: s.span,
            header_span,
        });
        if let Some(p) = parent {
            self.region.loops[p].children.push(id);
        }
        self.open.push(id);
        let saved = self.cond_depth;
        self.cond_depth = 0;
        if let ForInit::Decl(d) = init {
            // The iterator itself is not a region scalar.
            for dec in &d.declarators {
                self.locals.insert(dec.name.name.clone(), Some(id));
            }
        }
        self.body(body);
        self.cond_depth = saved;
        self.open.pop();
        Some(id)
    }

    fn open_iters(&self) -> Vec<String> {
        self.open
            .iter()
            .map(|&l| self.region.loops[l].var.clone())
            .collect()
    }

    fn bound(&mut self, e: &Expr, iters: &[String], adj: i64) -> Bound {
        match self
            .poly(e, iters)
            .and_then(|p| p.add(&Poly::constant(adj)))
        {
            Some(p) if p.is_affine_in(iters) => Bound::Affine(p),
            _ => {
                self.reads(e);
                Bound::NonAffine(self.sources.snippet(e.span).to_string())
            }
        }
    }

    fn body(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) => {
                for s in &b.stmts {
                    self.body(s);
                }
            }
            StmtKind::For { .. } => {
                self.for_loop(s);
            }
            StmtKind::Acc { dir, body, .. } => {
                if dir.construct == Construct::Loop {
                    self.pending = Some(dir.clone());
                    self.body(body);
                } else {
                    self.errors.push(Diag::error(
                        dir.construct_span,
                        format!(
                            "`{}` inside a compute region is not supported",
                            dir.construct.name()
                        ),
                    ));
                }
            }
            StmtKind::AccStandalone(d) => {
                if d.construct == Construct::Cache {
                    self.region.cache.extend(d.cache.iter().cloned());
                }
            }
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) => self.expr_effects(e),
            StmtKind::If { cond, then, els } => {
                self.reads(cond);
                self.cond_depth += 1;
                self.body(then);
                if let Some(e) = els {
                    self.body(e);
                }
                self.cond_depth -= 1;
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.cond_depth += 1;
                self.reads(cond);
                self.body(body);
                self.cond_depth -= 1;
            }
            StmtKind::Break | StmtKind::Continue => {
                // Leaves the innermost loop: everything after it in that loop is conditional.
                self.cond_depth += 1;
            }
            StmtKind::Empty | StmtKind::Pragma(_) => {}
            StmtKind::Return(_) | StmtKind::Unsupported { .. } => {
                // Diagnosed by front::region::validate.
            }
        }
    }

    fn decl(&mut self, d: &ast::Declaration) {
        for dec in &d.declarators {
            let loop_id = self.open.last().copied();
            self.locals.insert(dec.name.name.clone(), loop_id);
            if let Some(s) = dec.ty.base_scalar() {
                if !matches!(dec.ty.unqualified(), CType::Scalar(_)) {
                    // A private array: not tracked as a region array.
                    continue;
                }
                self.region.scalars.insert(
                    dec.name.name.clone(),
                    ScalarInfo {
                        name: dec.name.name.clone(),
                        ty: s,
                        decl_span: dec.name.span,
                        written: false,
                        local: Some(loop_id),
                    },
                );
            } else {
                self.errors.push(Diag::error(
                    dec.span,
                    format!(
                        "the type of `{}` is not supported inside a compute region",
                        dec.name.name
                    ),
                ));
            }
            if let Some(ast::Initializer::Expr(e)) = &dec.init {
                self.reads(e);
                self.scalar_write(&dec.name.name, None, dec.name.span, true);
                self.push_stmt(Target::Scalar(dec.name.name.clone()), None, dec.span);
            }
        }
    }

    fn push_stmt(&mut self, target: Target, op: Option<BinOp>, span: Span) -> StmtId {
        let id = self.region.stmts.len();
        self.region.stmts.push(Statement {
            id,
            loops: self.open.clone(),
            conditional: self.cond_depth > 0,
            span,
            target,
            op,
            reduction: None,
        });
        id
    }

    /// An expression evaluated for its effects (an expression statement).
    fn expr_effects(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                let stmt_id = self.region.stmts.len();
                self.reads(rhs);
                if op.is_some() {
                    self.read_lvalue(lhs, stmt_id);
                }
                self.write_lvalue(lhs, *op, e.span);
                if let Some(st) = self.region.stmts.get_mut(stmt_id) {
                    st.reduction = reduction_shape(lhs, *op, rhs);
                }
            }
            ExprKind::IncDec { arg, .. } => {
                let stmt_id = self.region.stmts.len();
                self.read_lvalue(arg, stmt_id);
                self.write_lvalue(arg, Some(BinOp::Add), e.span);
            }
            ExprKind::Comma(a, b) => {
                self.expr_effects(a);
                self.expr_effects(b);
            }
            _ => self.reads(e),
        }
    }

    fn read_lvalue(&mut self, lhs: &Expr, stmt: StmtId) {
        if let ExprKind::Ident(n) = &lhs.kind {
            self.scalar_ref(n, AccessKind::Read, Some(stmt), lhs.span);
        }
    }

    fn write_lvalue(&mut self, lhs: &Expr, op: Option<BinOp>, span: Span) {
        match &lhs.kind {
            ExprKind::Ident(n) => {
                let stmt = self.region.stmts.len();
                self.scalar_write(n, Some(stmt), lhs.span, false);
                self.push_stmt(Target::Scalar(n.clone()), op, span);
            }
            ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) => {
                let stmt = self.region.stmts.len();
                let kind = if op.is_some() {
                    AccessKind::ReadWrite
                } else {
                    AccessKind::Write
                };
                match self.array_access(lhs, kind, stmt) {
                    Some(a) => {
                        self.push_stmt(Target::Array(a), op, span);
                    }
                    None => {
                        self.push_stmt(Target::Scalar(String::new()), op, span);
                    }
                }
            }
            _ => {
                self.errors.push(Diag::error(
                    lhs.span,
                    "this assignment target is not supported inside a compute region",
                ));
            }
        }
    }

    fn scalar_write(&mut self, n: &str, stmt: Option<StmtId>, span: Span, init: bool) {
        if self.is_iter(n) && !init {
            self.errors.push(
                Diag::error(
                    span,
                    format!("the loop iterator `{}` is assigned inside its loop", n),
                )
                .note("accshare needs loops whose iterator changes only in the loop header"),
            );
            return;
        }
        self.scalar_ref(n, AccessKind::Write, stmt, span);
    }

    fn is_iter(&self, n: &str) -> bool {
        self.open.iter().any(|&l| self.region.loops[l].var == n)
    }

    fn scalar_ref(&mut self, n: &str, kind: AccessKind, stmt: Option<StmtId>, span: Span) {
        if self.is_iter(n) {
            return;
        }
        // Loop iterators of finished loops used later are plain scalars.
        if !self.region.scalars.contains_key(n) {
            let Some(sym) = self.scope.get(n) else { return };
            let Some(s) = sym.ty.base_scalar() else {
                return;
            };
            if !matches!(sym.ty.unqualified(), CType::Scalar(_)) {
                return;
            }
            self.region.scalars.insert(
                n.to_string(),
                ScalarInfo {
                    name: n.to_string(),
                    ty: s,
                    decl_span: sym.span,
                    written: false,
                    local: None,
                },
            );
        }
        if kind != AccessKind::Read {
            if let Some(s) = self.region.scalars.get_mut(n) {
                s.written = true;
            }
        }
        self.region.scalar_refs.push(ScalarRef {
            name: n.to_string(),
            kind,
            stmt,
            loops: self.open.clone(),
            conditional: self.cond_depth > 0,
            span,
        });
    }

    /// Records every read in an expression.
    fn reads(&mut self, e: &Expr) {
        let stmt = self.region.stmts.len();
        match &e.kind {
            ExprKind::Ident(n) => self.scalar_ref(n, AccessKind::Read, Some(stmt), e.span),
            ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) => {
                self.array_access(e, AccessKind::Read, stmt);
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::SizeofExpr(a) => self.reads(a),
            ExprKind::Binary(op, a, b) => {
                self.reads(a);
                if matches!(op, BinOp::LogAnd | BinOp::LogOr) {
                    self.cond_depth += 1;
                    self.reads(b);
                    self.cond_depth -= 1;
                } else {
                    self.reads(b);
                }
            }
            ExprKind::Cond(c, a, b) => {
                self.reads(c);
                self.cond_depth += 1;
                self.reads(a);
                self.reads(b);
                self.cond_depth -= 1;
            }
            ExprKind::Call(_, args) => {
                for a in args {
                    self.reads(a);
                }
            }
            ExprKind::Assign(..) | ExprKind::IncDec { .. } | ExprKind::Comma(..) => {
                self.errors.push(
                    Diag::error(
                        e.span,
                        "assignments inside expressions are not supported in a compute region",
                    )
                    .help("write the assignment as its own statement"),
                );
            }
            ExprKind::Member { .. } => {} // diagnosed by front::region::validate
            _ => {}
        }
    }

    /// Records an array access `A[e1][e2]…` (or `*p`); returns its id.
    fn array_access(&mut self, e: &Expr, kind: AccessKind, stmt: StmtId) -> Option<AccessId> {
        let mut subs: Vec<&Expr> = Vec::new();
        let mut cur = e;
        let deref_zero;
        loop {
            match &cur.kind {
                ExprKind::Index(base, idx) => {
                    subs.push(idx);
                    cur = base;
                }
                ExprKind::Unary(UnOp::Deref, inner) if subs.is_empty() => {
                    deref_zero = Expr::new(
                        ExprKind::Int {
                            value: 0,
                            suffix: Default::default(),
                            radix: 10,
                        },
                        e.span,
                    );
                    subs.push(&deref_zero);
                    cur = inner;
                    // `*p` is `p[0]`; `*(p + i)` is not supported (pointer arithmetic).
                    if !matches!(cur.kind, ExprKind::Ident(_)) {
                        self.errors.push(
                            Diag::error(
                                e.span,
                                "pointer arithmetic is not supported inside a compute region",
                            )
                            .help("write `p[i]` instead of `*(p + i)`"),
                        );
                        return None;
                    }
                    break;
                }
                _ => break,
            }
        }
        subs.reverse();
        let ExprKind::Ident(name) = &cur.kind else {
            self.errors.push(Diag::error(
                cur.span,
                "only named arrays can be subscripted inside a compute region",
            ));
            return None;
        };
        let Some(sym) = self.scope.get(name.as_str()).cloned() else {
            if self.locals.contains_key(name) {
                self.errors
                    .push(Diag::error(cur.span, format!("`{}` is not an array", name)));
            }
            return None;
        };
        let Some((elem, extents, is_pointer)) = array_shape(&sym.ty) else {
            self.errors.push(Diag::error(
                cur.span,
                format!("`{}` is not an array or a pointer", name),
            ));
            return None;
        };
        if subs.len() != extents.len() {
            self.errors.push(
                Diag::error(
                    e.span,
                    format!(
                        "`{}` has {} dimension{} but is used with {} subscript{}",
                        name,
                        extents.len(),
                        if extents.len() == 1 { "" } else { "s" },
                        subs.len(),
                        if subs.len() == 1 { "" } else { "s" }
                    ),
                )
                .note("inside a compute region every array reference must name one element"),
            );
            return None;
        }
        for s in &subs {
            self.reads(s);
        }
        let iters = self.open_iters();
        let subscripts: Vec<Option<Poly>> = subs
            .iter()
            .map(|s| self.poly(s, &iters).filter(|p| p.is_affine_in(&iters)))
            .collect();
        let info = self
            .region
            .arrays
            .entry(name.clone())
            .or_insert_with(|| ArrayInfo {
                name: name.clone(),
                elem,
                extents: extents
                    .iter()
                    .map(|x| x.as_ref().and_then(|e| poly_of_const_expr(e, self.scope)))
                    .collect(),
                is_const: is_const_elem(&sym.ty),
                is_pointer,
                decl_span: sym.span,
                written: false,
                read: false,
            });
        if kind != AccessKind::Read {
            info.written = true;
        }
        if kind != AccessKind::Write {
            info.read = true;
        }
        let id = self.region.accesses.len();
        self.region.accesses.push(Access {
            id,
            array: name.clone(),
            kind,
            subscripts,
            loops: self.open.clone(),
            stmt,
            span: e.span,
        });
        Some(id)
    }

    /// An integer expression as a polynomial over iterators and parameters.
    fn poly(&self, e: &Expr, iters: &[String]) -> Option<Poly> {
        expr_poly(e, &|n: &str| {
            if iters.iter().any(|i| i == n) {
                return true;
            }
            // A parameter: an integer scalar from outside the region, or declared in the region
            // (the caller rejects polynomials of scalars the region writes).
            if self.locals.contains_key(n) {
                return true;
            }
            self.scope
                .get(n)
                .is_some_and(|s| matches!(s.ty.unqualified(), CType::Scalar(k) if !k.is_float()))
        })
    }
}

impl Loop {
    fn perfect_candidate(&self) -> bool {
        self.perfect
    }
}

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

fn poly_of_const_expr(e: &Expr, scope: &Scope) -> Option<Poly> {
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
            _ => return None,
        }
        first = false;
    }
}

fn is_const_elem(ty: &CType) -> bool {
    match ty {
        CType::Const(t) => matches!(t.as_ref(), CType::Scalar(_)) || is_const_elem(t),
        CType::Pointer { to, .. } => is_const_elem(to),
        CType::Array { elem, .. } => is_const_elem(elem),
        _ => false,
    }
}

fn const_u32(e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Int { value, .. } => u32::try_from(*value).ok(),
        _ => None,
    }
}

fn is_single_loop(body: &Stmt) -> bool {
    match &body.kind {
        StmtKind::For { .. } => true,
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Loop => is_single_loop(body),
        StmtKind::Block(b) => {
            let real: Vec<&Stmt> = b
                .stmts
                .iter()
                .filter(|s| !matches!(s.kind, StmtKind::Empty | StmtKind::AccStandalone(_)))
                .collect();
            real.len() == 1 && is_single_loop(real[0])
        }
        _ => false,
    }
}

/// The span of a `for (…)` header: from `for` to the closing parenthesis.
fn trim_header(sources: &SourceMap, span: Span) -> Span {
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
fn canonical(
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
fn reduction_shape(lhs: &Expr, op: Option<BinOp>, rhs: &Expr) -> Option<RedOp> {
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
        _ => None,
    }
}

/// Whether an expression mentions the identifier `name` anywhere.
fn expr_mentions(e: &Expr, name: &str) -> bool {
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

fn bound_mentions(e: &Expr, var: &str) -> bool {
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

fn step_const(e: &Expr, var: &str) -> Option<i64> {
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

/// Data-clause lookups shared by the host plan.
pub fn data_clauses(
    dir: &AccDirective,
) -> impl Iterator<Item = (DataKind, &crate::front::pragma_ast::SubArray)> {
    dir.clauses.iter().flat_map(|c| match &c.kind {
        ClauseKind::Data { kind, vars } => vars.iter().map(|v| (*kind, v)).collect::<Vec<_>>(),
        _ => Vec::new(),
    })
}

/// Identifiers a type mentions (array extents).
fn type_names(t: &CType, out: &mut BTreeSet<String>) {
    match t {
        CType::Pointer { to, .. } | CType::Const(to) => type_names(to, out),
        CType::Array { elem, len } => {
            if let Some(e) = len {
                expr_names(e, out);
            }
            type_names(elem, out);
        }
        _ => {}
    }
}

/// Identifiers an expression mentions.
fn expr_names(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::SizeofExpr(a)
        | ExprKind::IncDec { arg: a, .. }
        | ExprKind::Member { base: a, .. } => expr_names(a, out),
        ExprKind::Binary(_, a, b)
        | ExprKind::Assign(_, a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Comma(a, b) => {
            expr_names(a, out);
            expr_names(b, out);
        }
        ExprKind::Cond(a, b, c) => {
            expr_names(a, out);
            expr_names(b, out);
            expr_names(c, out);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| expr_names(a, out)),
        _ => {}
    }
}

/// Identifiers a directive's clauses mention.
fn directive_names(d: &AccDirective, out: &mut BTreeSet<String>) {
    for c in &d.clauses {
        match &c.kind {
            ClauseKind::Data { vars, .. } => vars.iter().for_each(|v| {
                out.insert(v.name.name.clone());
                for r in &v.dims {
                    r.start
                        .iter()
                        .chain(r.len.iter())
                        .for_each(|e| expr_names(e, out));
                }
            }),
            ClauseKind::Private(v)
            | ClauseKind::FirstPrivate(v)
            | ClauseKind::Reduction { vars: v, .. } => v.iter().for_each(|i| {
                out.insert(i.name.clone());
            }),
            _ => {}
        }
    }
    for v in &d.cache {
        out.insert(v.name.name.clone());
    }
}

/// Identifiers a statement mentions (with its directives and declarations).
fn stmt_names(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Decl(d) => decl_names(d, out),
        StmtKind::Expr(e) => expr_names(e, out),
        StmtKind::Block(b) => b.stmts.iter().for_each(|s| stmt_names(s, out)),
        StmtKind::If { cond, then, els } => {
            expr_names(cond, out);
            stmt_names(then, out);
            if let Some(e) = els {
                stmt_names(e, out);
            }
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            match init {
                ForInit::Decl(d) => decl_names(d, out),
                ForInit::Expr(e) => expr_names(e, out),
                ForInit::None => {}
            }
            cond.iter()
                .chain(step.iter())
                .for_each(|e| expr_names(e, out));
            stmt_names(body, out);
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr_names(cond, out);
            stmt_names(body, out);
        }
        StmtKind::Return(Some(e)) => expr_names(e, out),
        StmtKind::Acc { dir, share, body } => {
            directive_names(dir, out);
            if let Some(sh) = share {
                sh.specs.iter().for_each(|a| {
                    out.insert(a.array.name.clone());
                });
            }
            stmt_names(body, out);
        }
        StmtKind::AccStandalone(d) => directive_names(d, out),
        StmtKind::Unsupported { body: Some(b), .. } => stmt_names(b, out),
        _ => {}
    }
}

fn decl_names(d: &ast::Declaration, out: &mut BTreeSet<String>) {
    for dec in &d.declarators {
        type_names(&dec.ty, out);
        if let Some(ast::Initializer::Expr(e)) = &dec.init {
            expr_names(e, out);
        }
    }
}
