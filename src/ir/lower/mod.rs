//! AST → loop-nest IR.
//!
//! [`find_regions`] walks every function, keeping a scope of declarations, and lowers each
//! compute construct it meets (also inside host loops and `data` constructs) to a [`Region`].
//! What cannot be represented is a diagnostic naming the construct.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::diag::{Diag, Diags, SourceMap};
use crate::front::ast::{self, CType, Expr, ExprKind, ForInit, Stmt, StmtKind};
use crate::front::pragma_ast::{AccDirective, ClauseKind, Construct};
use crate::vocab::{BinOp, UnOp};

mod atomic;
mod code;
pub mod expr;
pub mod host;
mod inherit;
mod interchange;
mod live;
mod members;
mod quiet;
mod scope;
mod syntax;
mod top;

pub use host::lower_host;
pub use interchange::interchange;
use scope::*;
pub use scope::{Scope, Symbol};
use syntax::*;
pub use syntax::{array_shape, data_clauses, expr_poly, zeroed_arrays};
pub use top::ONCE_VAR;

/// A data construct enclosing a region, as seen by the region.
#[derive(Clone, Debug, PartialEq)]
pub struct DataScope {
    pub dir: AccDirective,
    /// The directive as the host plan reads it.
    pub directive: crate::ir::directive::Directive,
    /// The statement the construct applies to.
    pub body_span: Span,
}

/// A compute region together with what code generation needs from the AST.
#[derive(Clone, Debug)]
pub struct RegionAst {
    pub ir: Region,
    pub dir: AccDirective,
    /// The directive as the host plan reads it.
    pub directive: crate::ir::directive::Directive,
    /// The statement the construct applies to (the `for` of a combined construct).
    pub body: Stmt,
    /// Symbols visible at the construct.
    pub scope: BTreeMap<String, Symbol>,
    /// Enclosing data constructs, outermost first.
    pub data: Vec<DataScope>,
    /// The whole annotated statement (pragma through body).
    pub stmt_span: Span,
    /// Names the enclosing function reads outside this region (see `live.rs`): the scalars
    /// whose value after the region may be used.
    pub read_outside: BTreeSet<String>,
}

/// An annotated `data` construct (for the host plan).
#[derive(Clone, Debug)]
pub struct DataAst {
    pub dir: AccDirective,
    /// The directive as the host plan reads it.
    pub directive: crate::ir::directive::Directive,
    pub body_span: Span,
    pub scope: BTreeMap<String, Symbol>,
    pub data: Vec<DataScope>,
    pub stmt_span: Span,
    /// The body's host code touches no memory but named scalars (`quiet::host_code_is_quiet`): only kernels read
    /// and write the construct's arrays while it lives.
    pub quiet_body: bool,
}

/// An executable data directive (`update`, `enter data`, `exit data`), for the host plan.
#[derive(Clone, Debug)]
pub struct StandaloneAst {
    pub dir: AccDirective,
    /// The directive as the host plan reads it.
    pub directive: crate::ir::directive::Directive,
    pub scope: BTreeMap<String, Symbol>,
    /// The pragma statement.
    pub stmt_span: Span,
}

/// All compute and data constructs of a translation unit, in source order.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    pub compute: Vec<RegionAst>,
    pub data: Vec<DataAst>,
    pub standalone: Vec<StandaloneAst>,
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
                    rows: false,
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
                            rows: false,
                        });
                    }
                }
                let mut w = Walker {
                    func: &f.name.name,
                    func_body: &f.body,
                    sources,
                    diags,
                    out: &mut out,
                    data: Vec::new(),
                    members: BTreeMap::new(),
                    aliases: Vec::new(),
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

struct Walker<'a> {
    func: &'a str,
    func_body: &'a ast::Block,
    sources: &'a SourceMap,
    diags: &'a mut Diags,
    out: &'a mut Regions,
    data: Vec<DataScope>,
    /// The struct members enclosing constructs name through variables (`data.a` → `data_a`).
    members: BTreeMap<String, String>,
    /// The member variables the construct being walked declares, for its directive.
    aliases: Vec<crate::ir::directive::MemberAlias>,
}

impl Walker<'_> {
    fn stmt(&mut self, s: &Stmt, scope: &mut Scope) {
        if matches!(s.kind, StmtKind::Acc { .. } | StmtKind::AccStandalone(_)) {
            if let Some(m) = members::rewrite(s, scope, &self.members, self.diags) {
                scope.push();
                for sym in m.symbols {
                    scope.declare(sym);
                }
                let saved = self.members.clone();
                for a in &m.aliases {
                    self.members.insert(a.member(), a.name.clone());
                }
                self.aliases = m.aliases;
                let compute =
                    matches!(&m.stmt.kind, StmtKind::Acc { dir, .. } if dir.construct.is_compute());
                if !(m.failed && compute) {
                    self.construct(&m.stmt, scope);
                }
                self.aliases.clear();
                self.members = saved;
                scope.pop();
                return;
            }
        }
        self.construct(s, scope);
    }

    /// The IR's form of directive `dir`, with the member variables its statement declares.
    fn directive(&mut self, dir: &AccDirective) -> crate::ir::directive::Directive {
        let mut d = directive(dir);
        d.aliases = std::mem::take(&mut self.aliases);
        d
    }

    fn construct(&mut self, s: &Stmt, scope: &mut Scope) {
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
            StmtKind::AccStandalone(dir)
                if matches!(
                    dir.construct,
                    Construct::Update | Construct::EnterData | Construct::ExitData
                ) =>
            {
                let mut names = BTreeSet::new();
                directive_names(dir, &mut names);
                scope.push();
                declare_rows(scope, dir);
                let ir_dir = self.directive(dir);
                self.out.standalone.push(StandaloneAst {
                    dir: dir.clone(),
                    directive: ir_dir,
                    scope: scope.restricted(&names),
                    stmt_span: s.span,
                });
                scope.pop();
            }
            StmtKind::Acc { dir, share, body } => {
                if dir.construct.is_compute() {
                    // Arrays of pointers to rows its clauses give the bounds of.
                    scope.push();
                    declare_rows(scope, dir);
                    let body = top::wrap_top_level(body);
                    let ir = RegionBuilder::new(
                        self.func,
                        dir,
                        share.as_ref().map(share_request),
                        scope,
                        self.sources,
                    )
                    .build(&body, self.diags);
                    let mut names = BTreeSet::new();
                    stmt_names(s, &mut names);
                    let visible = scope.restricted(&names);
                    let ir_dir = self.directive(dir);
                    // A scalar in a data clause of the construct or of an enclosing data
                    // construct has a device copy that outlives the region (an `update self`,
                    // a later region, the copy out read it): the region's final value must
                    // reach it.
                    let mut read_outside = live::read_outside(self.func_body, s.span);
                    read_outside.extend(
                        self.data
                            .iter()
                            .map(|d| &d.dir)
                            .chain(std::iter::once(dir))
                            .flat_map(|d| data_clauses(d).map(|(_, v)| v.name.name.clone())),
                    );
                    let mut ir = ir;
                    keep_private_prefixes(&mut ir, &read_outside);
                    self.out.compute.push(RegionAst {
                        ir,
                        dir: dir.clone(),
                        directive: ir_dir,
                        body,
                        scope: visible,
                        data: self.data.clone(),
                        stmt_span: s.span,
                        read_outside,
                    });
                    scope.pop();
                } else if dir.construct == Construct::Data {
                    // Arrays of pointers to rows its clauses give the bounds of, for the
                    // construct and its body.
                    scope.push();
                    declare_rows(scope, dir);
                    let ir_dir = self.directive(dir);
                    self.out.data.push(DataAst {
                        dir: dir.clone(),
                        directive: ir_dir,
                        body_span: body.span,
                        scope: {
                            let mut names = BTreeSet::new();
                            directive_names(dir, &mut names);
                            scope.restricted(&names)
                        },
                        data: self.data.clone(),
                        stmt_span: s.span,
                        quiet_body: quiet::host_code_is_quiet(body),
                    });
                    self.data.push(DataScope {
                        dir: dir.clone(),
                        directive: directive(dir),
                        body_span: body.span,
                    });
                    self.stmt(body, scope);
                    self.data.pop();
                    scope.pop();
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

/// The IR's form of a `share` pragma.
fn share_request(p: &crate::front::pragma_ast::SharePragma) -> Share {
    Share {
        specs: p
            .specs
            .iter()
            .map(|a| ShareSpec {
                array: a.array.name.clone(),
                dims: a.dims.clone(),
                coalesce: a.coalesce,
                span: a.span,
            })
            .collect(),
        span: p.span,
    }
}

/// The IR's form of an array a `cache` directive names.
fn cached(v: &crate::front::pragma_ast::SubArray) -> Cached {
    Cached {
        array: v.name.name.clone(),
        rank: v.dims.len(),
        span: v.span,
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
    /// The scopes open at this point, outermost first: each loop body and each piece of
    /// conditional control flow (a branch, a `while` body, the right of `&&`/`||`, the arms of
    /// `?:`) gets a fresh id (see
    /// [`ScalarRef::scopes`]).
    scopes: Vec<u32>,
    next_scope: u32,
    /// Names declared inside the region: name → enclosing loop.
    locals: BTreeMap<String, Option<LoopId>>,
    /// The `#pragma acc loop` directive applying to the next `for` we lower.
    pending: Option<AccDirective>,
    errors: Vec<Diag>,
    /// Bounds that are not affine: (loop, upper?, the expression, the adjustment of `<=`).
    non_affine: Vec<(LoopId, bool, Expr, i64)>,
    /// The construct's own `vector_length` and `num_workers` (a `parallel` above its loops).
    construct_lanes: (Option<u32>, Option<u32>),
}

impl<'a> RegionBuilder<'a> {
    fn new(
        func: &str,
        dir: &AccDirective,
        share: Option<Share>,
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
                invariants: Vec::new(),
                exprs: Exprs::new(),
                code: Code::default(),
            },
            scope,
            sources,
            open: Vec::new(),
            cond_depth: 0,
            scopes: Vec::new(),
            next_scope: 0,
            locals: BTreeMap::new(),
            pending: if dir.construct.is_loop() {
                Some(dir.clone())
            } else {
                None
            },
            errors: Vec::new(),
            non_affine: Vec::new(),
            construct_lanes: if dir.construct.is_loop() {
                (None, None)
            } else {
                construct_lanes(dir)
            },
        }
    }

    fn build(mut self, body: &Stmt, diags: &mut Diags) -> Region {
        self.top(body);
        let loops = self.region.loops.iter().map(|l| (l.span, l.id)).collect();
        let scope = self.scope;
        self.region.code = code::lower_code(&mut self.region.exprs, body, &loops, &|n| {
            scope.get(n).and_then(|s| expr::sizeof_type(&s.ty))
        });
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
        let exprs = &mut self.region.exprs;
        for l in &mut self.region.loops {
            for b in [&mut l.lower, &mut l.upper] {
                if let Bound::Affine(p) = b {
                    if written.iter().any(|w| p.mentions(w)) {
                        *b = Bound::NonAffine(exprs.poly(p, l.span));
                    }
                }
            }
        }
        self.hoist_invariant_bounds();
        for e in self.errors {
            diags.push(e);
        }
        self.region
    }

    /// Bounds that are not affine but cannot change during the region (they read only scalars
    /// and arrays the region does not write, and no iterator or region local) become parameters
    /// of their own ([`Region::invariants`]): the loop keeps an affine bound, so it can go to the
    /// grid; the host computes the value before the region.
    fn hoist_invariant_bounds(&mut self) {
        // The expressions of the invariants so far, as written (an expression written twice is
        // one invariant).
        let mut written: Vec<Expr> = Vec::new();
        for (l, upper, e, adj) in std::mem::take(&mut self.non_affine) {
            if !self.invariant(&e) {
                continue;
            }
            let name = match written.iter().position(|w| *w == e) {
                Some(i) => self.region.invariants[i].name.clone(),
                None => {
                    let h = expr::lower_expr(&mut self.region.exprs, &e);
                    if !self.region.exprs.printable(h) {
                        continue;
                    }
                    let name = format!("accshare_inv_{}", self.region.invariants.len());
                    written.push(e.clone());
                    self.region.invariants.push(Invariant {
                        name: name.clone(),
                        expr: h,
                    });
                    self.region.scalars.insert(
                        name.clone(),
                        ScalarInfo {
                            name: name.clone(),
                            ty: ast::Scalar::Long,
                            decl_span: e.span,
                            written: false,
                            local: None,
                        },
                    );
                    name
                }
            };
            let Some(p) = Poly::var(&name).add(&Poly::constant(adj)) else {
                continue;
            };
            // The host reads it now: its array references are no longer the kernel's (they are
            // reads, never a statement's target; the others are renumbered).
            self.region.accesses.retain(|a| !e.span.contains(a.span));
            let renumber: BTreeMap<AccessId, AccessId> = self
                .region
                .accesses
                .iter()
                .enumerate()
                .map(|(i, a)| (a.id, AccessId(i)))
                .collect();
            for a in &mut self.region.accesses {
                a.id = renumber[&a.id];
            }
            for st in &mut self.region.stmts {
                if let Target::Array(a) = &mut st.target {
                    if let Some(&n) = renumber.get(a) {
                        *a = n;
                    }
                }
            }
            if let Some(lp) = self.region.loops.get_mut(l.index()) {
                *(if upper { &mut lp.upper } else { &mut lp.lower }) = Bound::Affine(p);
            }
        }
    }

    /// Whether an expression has the same value everywhere in the region.
    fn invariant(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Char(_) => true,
            ExprKind::Ident(n) => {
                !self.locals.contains_key(n)
                    && !self.region.loops.iter().any(|l| &l.var == n)
                    && !self.region.scalars.get(n).is_some_and(|s| s.written)
                    && self
                        .scope
                        .get(n)
                        .is_some_and(|s| matches!(s.ty.unqualified(), CType::Scalar(_)))
            }
            ExprKind::Index(a, i) => {
                let base_ok = match &a.kind {
                    ExprKind::Ident(n) => {
                        !self.locals.contains_key(n)
                            && self.region.arrays.get(n).is_some_and(|x| !x.written)
                    }
                    ExprKind::Index(..) => self.invariant(a),
                    _ => false,
                };
                base_ok && self.invariant(i)
            }
            ExprKind::Unary(op, a) => {
                matches!(op, UnOp::Neg | UnOp::Plus | UnOp::Not | UnOp::BitNot) && self.invariant(a)
            }
            ExprKind::Cast(_, a) => self.invariant(a),
            ExprKind::Binary(_, a, b) => self.invariant(a) && self.invariant(b),
            ExprKind::Cond(c, a, b) => self.invariant(c) && self.invariant(a) && self.invariant(b),
            _ => false,
        }
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
                self.region.cache.extend(d.cache.iter().map(cached));
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
            self.not_canonical(dir.as_ref(), header_span);
            self.sequential_loop(init, cond.as_ref(), step.as_ref(), body);
            return None;
        };
        let iters = self.open_iters();
        let lower = self.bound(&lower_e, &iters, 0, false);
        let upper = self.bound(&upper_e, &iters, inclusive_adj, true);
        let id = LoopId(self.region.loops.len());
        let parent = self.open.last().copied();
        let clauses = self.loop_clauses(dir.as_ref(), parent);
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
            prefix: sinkable_prefix(body),
            marking: clauses.marking,
            conditional: self.cond_depth > 0,
            vector_len: clauses.vector_len,
            workers: clauses.workers,
            lanes_asked: clauses.lanes_asked,
            collapse: clauses.collapse,
            reductions: clauses.reductions,
            inherited: Vec::new(),
            private: clauses.private,
            firstprivate: clauses.firstprivate,
            span: s.span,
            header_span,
        });
        if let Some(p) = parent {
            self.region.loops[p].children.push(id);
        }
        self.open.push(id);
        let saved = self.cond_depth;
        self.cond_depth = 0;
        let saved_scopes = self.scopes.len();
        self.push_scope();
        if let ForInit::Decl(d) = init {
            // The iterator itself is not a region scalar.
            for dec in &d.declarators {
                self.locals.insert(dec.name.name.clone(), Some(id));
            }
        }
        self.body(body);
        if dir.is_some() {
            self.inherit_reductions(id);
        }
        self.cond_depth = saved;
        self.scopes.truncate(saved_scopes);
        self.open.pop();
        Some(id)
    }

    /// A loop not in canonical form: an error when its directive `dir` asks for it to be
    /// parallelized (`independent`, `gang`, `vector`, or a compute construct's loop).
    fn not_canonical(&mut self, dir: Option<&AccDirective>, header_span: Span) {
        if let Some(d) = dir {
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
    }

    /// Lowers a loop that runs sequentially as written (not in canonical form): its parts in
    /// the order they run, all conditional.
    fn sequential_loop(
        &mut self,
        init: &ForInit,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
    ) {
        self.enter_cond();
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
        self.leave_cond();
    }

    /// What a canonical loop's directive `dir` (or its absence) and an enclosing `collapse`
    /// (of the loop `parent`) say about it.
    fn loop_clauses(&self, dir: Option<&AccDirective>, parent: Option<LoopId>) -> LoopClauses {
        let mut c = LoopClauses {
            marking: if self.region.construct == Construct::Parallel
                || self.region.construct == Construct::ParallelLoop
            {
                Marking::Implicit
            } else {
                Marking::Auto
            },
            vector_len: None,
            workers: None,
            lanes_asked: false,
            collapse: 1,
            reductions: Vec::new(),
            private: Vec::new(),
            firstprivate: Vec::new(),
        };
        // The construct's `vector_length`/`num_workers` (`#pragma acc parallel
        // vector_length(32)` above a `loop gang`): the outermost loops' unless their own
        // directive says otherwise.
        if parent.is_none() {
            (c.vector_len, c.workers) = self.construct_lanes;
        }
        match dir {
            Some(d) => {
                for cl in &d.clauses {
                    match &cl.kind {
                        ClauseKind::Independent => c.marking = Marking::Independent,
                        ClauseKind::Seq => c.marking = Marking::Seq,
                        ClauseKind::Auto => c.marking = Marking::Auto,
                        ClauseKind::Vector(Some(e)) => {
                            c.vector_len = const_u32(e);
                            c.lanes_asked = true;
                        }
                        ClauseKind::VectorLength(e) => c.vector_len = const_u32(e),
                        ClauseKind::NumWorkers(e) => c.workers = const_u32(e),
                        ClauseKind::Worker(_) | ClauseKind::Vector(_) => c.lanes_asked = true,
                        ClauseKind::Collapse { n, .. } => c.collapse = *n,
                        ClauseKind::Reduction { op, vars } => c
                            .reductions
                            .extend(vars.iter().map(|v| (*op, v.name.clone()))),
                        ClauseKind::Private(v) => {
                            c.private.extend(v.iter().map(|v| v.name.clone()))
                        }
                        ClauseKind::FirstPrivate(v) => {
                            c.private.extend(v.iter().map(|v| v.name.clone()));
                            c.firstprivate.extend(v.iter().map(|v| v.name.clone()));
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
                    c.marking = Marking::Seq;
                }
            }
        }
        // An enclosing collapse(n) covers this loop too.
        if let Some(p) = parent {
            let pl = &self.region.loops[p];
            if pl.collapse > 1 && pl.perfect_candidate() {
                c.marking = pl.marking;
                c.collapse = pl.collapse - 1;
            }
        }
        c
    }

    fn open_iters(&self) -> Vec<String> {
        self.open
            .iter()
            .map(|&l| self.region.loops[l].var.clone())
            .collect()
    }

    fn bound(&mut self, e: &Expr, iters: &[String], adj: i64, upper: bool) -> Bound {
        match self
            .poly(e, iters)
            .and_then(|p| p.add(&Poly::constant(adj)))
        {
            Some(p) if p.is_affine_in(iters) => {
                // The scalars a bound reads are uses, before the loop starts (privatization
                // must see them).
                self.reads(e);
                Bound::Affine(p)
            }
            _ => {
                self.reads(e);
                self.non_affine
                    .push((LoopId(self.region.loops.len()), upper, e.clone(), adj));
                Bound::NonAffine(expr::lower_expr(&mut self.region.exprs, e))
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
                } else if let Construct::Atomic(kind) = dir.construct {
                    self.atomic(kind, body);
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
                    self.region.cache.extend(d.cache.iter().map(cached));
                }
            }
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) => self.expr_effects(e),
            StmtKind::If { cond, then, els } => {
                self.reads(cond);
                let start = self.region.scalar_refs.len();
                let first_stmt = self.region.stmts.len();
                self.enter_cond();
                let then_scope = self.scopes.last().copied();
                self.body(then);
                self.leave_cond();
                if els.is_none() {
                    self.if_minmax(cond, then, first_stmt);
                }
                if let Some(e) = els {
                    // A scope of its own: a write in one branch does not run before the other.
                    let mid = self.region.scalar_refs.len();
                    self.enter_cond();
                    let else_scope = self.scopes.last().copied();
                    self.body(e);
                    self.leave_cond();
                    // A scalar both branches assign (plainly, at their top level) is assigned
                    // by the `if` as a whole: recorded as one more write in the enclosing scope,
                    // without a statement (`if (c) t = a; else t = -a;` then a use of `t`).
                    let top_writes = |range: std::ops::Range<usize>, scope: Option<u32>| {
                        let depth = self.scopes.len() + 1;
                        self.region.scalar_refs[range]
                            .iter()
                            .filter(|r| {
                                r.kind == AccessKind::Write
                                    && r.scopes.len() == depth
                                    && r.scopes.last().copied() == scope
                            })
                            .map(|r| r.name.clone())
                            .collect::<BTreeSet<String>>()
                    };
                    let both: Vec<String> = top_writes(start..mid, then_scope)
                        .intersection(&top_writes(mid..self.region.scalar_refs.len(), else_scope))
                        .cloned()
                        .collect();
                    for name in both {
                        self.region.scalar_refs.push(ScalarRef {
                            name,
                            kind: AccessKind::Write,
                            stmt: None,
                            loops: self.open.clone(),
                            conditional: self.cond_depth > 0,
                            scopes: self.scopes.clone(),
                            span: s.span,
                        });
                    }
                }
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.enter_cond();
                self.reads(cond);
                self.body(body);
                self.leave_cond();
            }
            StmtKind::Break | StmtKind::Continue => {
                // Leaves the innermost loop: everything after it in that loop is conditional.
                // (No scope of its own: a write after it still runs before the uses after it
                // in the same iteration, and uses outside the loop are in an outer scope.)
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
                    // `double *row = a[i]` of an array of pointers to rows: diagnosed as a
                    // reference with too few subscripts.
                    if let Some(ast::Initializer::Expr(e)) = &dec.init {
                        if self.row_pointer(e) {
                            self.reads(e);
                        }
                    }
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
        let id = StmtId(self.region.stmts.len());
        self.region.stmts.push(Statement {
            id,
            loops: self.open.clone(),
            conditional: self.cond_depth > 0,
            span,
            target,
            op,
            reduction: None,
            atomic: None,
        });
        id
    }

    /// `if (e > s) s = e;` (and the other forms [`minmax_select`] knows), the `if` without
    /// `else` around exactly one plain assignment: a `max`/`min` update of `s`, recorded on that
    /// statement (`first`, the statement the condition's reads are attributed to).
    fn if_minmax(&mut self, cond: &Expr, then: &Stmt, first: usize) {
        let mut st = then;
        while let StmtKind::Block(b) = &st.kind {
            match b.stmts.as_slice() {
                [one] => st = one,
                _ => return,
            }
        }
        let StmtKind::Expr(e) = &st.kind else {
            return;
        };
        let ExprKind::Assign(None, lhs, rhs) = &e.kind else {
            return;
        };
        let ExprKind::Ident(s) = &lhs.kind else {
            return;
        };
        if self.region.stmts.len() != first + 1 {
            return;
        }
        let op = minmax_select(s, cond, rhs, lhs);
        if let Some(stmt) = self.region.stmts.get_mut(first) {
            if stmt.reduction.is_none() && matches!(&stmt.target, Target::Scalar(n) if n == s) {
                stmt.reduction = op;
            }
        }
    }

    /// An expression evaluated for its effects (an expression statement).
    fn expr_effects(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                let stmt_id = StmtId(self.region.stmts.len());
                self.reads(rhs);
                if op.is_some() {
                    self.read_lvalue(lhs, stmt_id);
                }
                self.write_lvalue(lhs, *op, e.span);
                if let Some(st) = self.region.stmts.get_mut(stmt_id.index()) {
                    st.reduction = reduction_shape(lhs, *op, rhs);
                }
            }
            ExprKind::IncDec { arg, .. } => {
                let stmt_id = StmtId(self.region.stmts.len());
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
                let stmt = StmtId(self.region.stmts.len());
                self.scalar_write(n, Some(stmt), lhs.span, false);
                self.push_stmt(Target::Scalar(n.clone()), op, span);
            }
            ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) | ExprKind::Member { .. } => {
                let stmt = StmtId(self.region.stmts.len());
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
            scopes: self.scopes.clone(),
            span,
        });
    }

    fn push_scope(&mut self) {
        self.scopes.push(self.next_scope);
        self.next_scope += 1;
    }

    /// Enters conditional control flow (a fresh scope).
    fn enter_cond(&mut self) {
        self.cond_depth += 1;
        self.push_scope();
    }

    fn leave_cond(&mut self) {
        self.cond_depth -= 1;
        self.scopes.pop();
    }

    /// Records every read in an expression.
    fn reads(&mut self, e: &Expr) {
        let stmt = StmtId(self.region.stmts.len());
        match &e.kind {
            ExprKind::Ident(n) => self.scalar_ref(n, AccessKind::Read, Some(stmt), e.span),
            ExprKind::Index(..) | ExprKind::Unary(UnOp::Deref, _) => {
                self.array_access(e, AccessKind::Read, stmt);
            }
            // `a[i].x`: a field of an array element (other member accesses are diagnosed by
            // front::region::validate).
            ExprKind::Member {
                base, arrow: false, ..
            } if matches!(base.kind, ExprKind::Index(..)) => {
                self.array_access(e, AccessKind::Read, stmt);
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::SizeofExpr(a) => self.reads(a),
            ExprKind::Binary(op, a, b) => {
                self.reads(a);
                if matches!(op, BinOp::LogAnd | BinOp::LogOr) {
                    self.enter_cond();
                    self.reads(b);
                    self.leave_cond();
                } else {
                    self.reads(b);
                }
            }
            ExprKind::Cond(c, a, b) => {
                self.reads(c);
                self.enter_cond();
                self.reads(a);
                self.leave_cond();
                self.enter_cond();
                self.reads(b);
                self.leave_cond();
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
        let (base, field) = match &e.kind {
            ExprKind::Member {
                base,
                field,
                arrow: false,
            } => (&**base, Some(field)),
            ExprKind::Member { .. } => return None, // diagnosed by front::region::validate
            _ => (e, None),
        };
        let (mut subs, cur, deref) = self.peel_subscripts(e, base)?;
        let deref_zero;
        if deref {
            // `*p` is `p[0]`.
            deref_zero = int_literal(0, e.span);
            subs.push(&deref_zero);
        }
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
        let record = sym.ty.base_struct().cloned();
        let field_index = self.member_field(e, name, &sym, record.as_deref(), field)?;
        let Some((elem, extents, is_pointer)) = array_shape(&sym.ty) else {
            self.errors.push(if sym.holds_pointers() {
                Diag::error(
                    cur.span,
                    format!(
                        "`{}` is an array of pointers, which a compute region cannot index",
                        name
                    ),
                )
                .note("accshare copies the rows of an array of pointers (`T **`) to the device only where a data clause of the construct, or of an enclosing `data` construct, gives every bound, the rows from 0; compute regions then index it as a 2-D array")
                .help(format!("name it with its bounds, e.g. `present({name}[0:n][0:m])` (or `copyin`, `copy`, …)"))
            } else {
                Diag::error(cur.span, format!("`{}` is not an array or a pointer", name))
            });
            return None;
        };
        // The field is the last dimension of an array of structs.
        let field_sub;
        if let Some(f) = field_index {
            field_sub = int_literal(f as u64, e.span);
            subs.push(&field_sub);
        }
        if subs.len() != extents.len() {
            let mut d = rank_mismatch(e, name, extents.len(), subs.len());
            if sym.rows && subs.len() < extents.len() {
                d = d.note(format!("`{name}` is an array of pointers to rows: its device copy is the rows one after another, with no pointers, so a compute region indexes its elements (`{name}[i][j]`) and cannot take a row as a pointer"));
            }
            self.errors.push(d);
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
                record: record.as_deref().and_then(|d| {
                    let (elem, fields) = d.scalar_fields().ok()?;
                    Some(Record {
                        tag: d.tag.clone(),
                        typedef: d.typedef.clone(),
                        elem,
                        fields: fields.iter().map(|f| f.name.clone()).collect(),
                    })
                }),
            });
        if kind != AccessKind::Read {
            info.written = true;
        }
        if kind != AccessKind::Write {
            info.read = true;
        }
        let id = AccessId(self.region.accesses.len());
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

    /// `e` is a row of an array of pointers to rows taken as a pointer (`a[i]`,
    /// [`Symbol::rows`]).
    fn row_pointer(&self, e: &Expr) -> bool {
        let ExprKind::Index(base, _) = &e.kind else {
            return false;
        };
        matches!(&base.kind, ExprKind::Ident(n) if self.scope.get(n).is_some_and(|s| s.rows))
    }

    /// The subscripts of the reference `e` (`base`: `e` without its member), outer first, and
    /// the expression they index; `true` for a `*p` (no subscripts: the caller adds `0`).
    /// `None` (diagnosed) for pointer arithmetic.
    fn peel_subscripts<'e>(
        &mut self,
        e: &Expr,
        base: &'e Expr,
    ) -> Option<(Vec<&'e Expr>, &'e Expr, bool)> {
        let mut subs: Vec<&Expr> = Vec::new();
        let mut cur = base;
        let mut deref = false;
        loop {
            match &cur.kind {
                ExprKind::Index(base, idx) => {
                    subs.push(idx);
                    cur = base;
                }
                ExprKind::Unary(UnOp::Deref, inner) if subs.is_empty() => {
                    deref = true;
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
        Some((subs, cur, deref))
    }

    /// The index of the member `field` a reference `e` to the array `name` (declared as
    /// `sym`, of the structs `record` if any) names: `Some(None)` without one, `None`
    /// (diagnosed) for a member of an array of unions or of scalars, or a wrong member.
    fn member_field(
        &mut self,
        e: &Expr,
        name: &str,
        sym: &Symbol,
        record: Option<&ast::StructDef>,
        field: Option<&ast::Ident>,
    ) -> Option<Option<usize>> {
        match (record, field) {
            (Some(def), _) => match struct_field(def, name, e, field) {
                Ok(f) => Some(Some(f)),
                Err(d) => {
                    self.errors.push(*d);
                    None
                }
            },
            (None, Some(f)) => {
                let union = matches!(
                    innermost_type(&sym.ty),
                    CType::Tagged {
                        kind: ast::TagKind::Union,
                        ..
                    }
                );
                self.errors.push(if union {
                    Diag::error(
                        e.span,
                        format!("`{}` is an array of unions: unions are not supported inside a compute region", name),
                    )
                    .label("member of a union")
                    .with_label(sym.span, "declared here")
                    .help("use a struct of scalar fields, or an array of the member's type")
                } else {
                    Diag::error(
                        f.span,
                        format!(
                            "`{}` is not an array of structs: it has no member `{}`",
                            name, f.name
                        ),
                    )
                    .label("not a member")
                    .with_label(sym.span, "declared here")
                });
                None
            }
            (None, None) => Some(None),
        }
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

/// Clears [`Loop::prefix`] where a scalar the prefix assigns is read after its nest (by the
/// function, `read_outside`, or by another statement of the region outside the loop): when an
/// inner loop runs no iteration, the work-items that compute the prefix do not exist, so its
/// final value would not be the sequential one.
fn keep_private_prefixes(ir: &mut Region, read_outside: &BTreeSet<String>) {
    for l in 0..ir.loops.len() {
        let Some(names) = &ir.loops[l].prefix else {
            continue;
        };
        let id = ir.loops[l].id;
        let escapes = names.iter().any(|n| {
            read_outside.contains(n)
                || ir.scalar_refs.iter().any(|r| {
                    r.name == *n && r.kind != crate::ir::AccessKind::Write && !r.loops.contains(&id)
                })
        });
        if escapes {
            ir.loops[l].prefix = None;
        }
    }
}

impl Loop {
    fn perfect_candidate(&self) -> bool {
        self.perfect
    }
}

/// The index of the field `a[…].field` names in the struct `def` (the element type of `name`),
/// or the located error: a struct kernels cannot index (a member that is not a scalar of the
/// struct's one field type), a member it does not have, the whole struct (`a[i]` without a
/// field).
fn struct_field(
    def: &ast::StructDef,
    name: &str,
    e: &Expr,
    field: Option<&ast::Ident>,
) -> Result<usize, Box<Diag>> {
    let ty = def.c_name();
    let fields = match def.scalar_fields() {
        Ok((_, fields)) => fields,
        Err(p) => {
            return Err(Box::new(
                Diag::error(
                    e.span,
                    format!(
                        "`{}` is an array of `{}`, which has {}: not supported inside a compute region",
                        name, ty, p.what
                    ),
                )
                .label("element of the array of structs")
                .with_label(p.span, "this member")
                .note("kernels index arrays of structs whose members are all scalars of one type (`struct { float re, im; }`)"),
            ))
        }
    };
    let Some(field) = field else {
        return Err(Box::new(
            Diag::error(
                e.span,
                format!(
                    "`{}` is an array of `{}`: a whole struct cannot be read or assigned inside a compute region",
                    name, ty
                ),
            )
            .label("a whole struct")
            .help(format!(
                "read or assign its fields one by one (`.{}`, …)",
                fields[0].name
            )),
        ));
    };
    match fields.iter().position(|f| f.name == field.name) {
        Some(i) => Ok(i),
        None => Err(Box::new(
            Diag::error(
                field.span,
                format!("`{}` has no member named `{}`", ty, field.name),
            )
            .label("unknown member")
            .with_label(def.span, "the struct is defined here")
            .note(format!(
                "its members are {}",
                fields
                    .iter()
                    .map(|f| format!("`{}`", f.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        )),
    }
}

/// The type at the bottom of pointers, arrays and qualifiers.
fn innermost_type(ty: &CType) -> &CType {
    match ty {
        CType::Const(t) => innermost_type(t),
        CType::Pointer { to, .. } => innermost_type(to),
        CType::Array { elem, .. } => innermost_type(elem),
        t => t,
    }
}

/// The integer literal `value` (a subscript the lowering adds: `*p`'s `0`, a member's index).
fn int_literal(value: u64, span: Span) -> Expr {
    Expr::new(
        ExprKind::Int {
            value,
            suffix: Default::default(),
            radix: 10,
        },
        span,
    )
}

/// The error for a reference `e` to the array `name` of `dims` dimensions with `subs`
/// subscripts.
fn rank_mismatch(e: &Expr, name: &str, dims: usize, subs: usize) -> Diag {
    Diag::error(
        e.span,
        format!(
            "`{}` has {} dimension{} but is used with {} subscript{}",
            name,
            dims,
            if dims == 1 { "" } else { "s" },
            subs,
            if subs == 1 { "" } else { "s" }
        ),
    )
    .note("inside a compute region every array reference must name one element")
}

/// What a canonical loop's directive and an enclosing `collapse` say about it
/// ([`RegionBuilder::loop_clauses`]): the fields of its [`Loop`] they set.
/// A compute construct's `vector_length` and `num_workers`, where constants.
fn construct_lanes(dir: &AccDirective) -> (Option<u32>, Option<u32>) {
    let mut out = (None, None);
    for cl in &dir.clauses {
        match &cl.kind {
            ClauseKind::VectorLength(e) => out.0 = const_u32(e),
            ClauseKind::NumWorkers(e) => out.1 = const_u32(e),
            _ => {}
        }
    }
    out
}

struct LoopClauses {
    marking: Marking,
    vector_len: Option<u32>,
    workers: Option<u32>,
    lanes_asked: bool,
    collapse: u32,
    reductions: Vec<(RedOp, String)>,
    private: Vec<String>,
    firstprivate: Vec<String>,
}

/// The first function defined in the C source `src` (a file `t.c`), for the tests of the
/// passes that read a function's body (`live`, `quiet`).
#[cfg(test)]
fn parse_function(src: &str) -> ast::FunctionDef {
    let mut sm = SourceMap::new();
    let mut d = Diags::new();
    let main = sm.add(
        "t.c".to_string(),
        std::path::PathBuf::from("t.c"),
        src.to_string(),
    );
    let parsed = crate::front::load_source(main, &Default::default(), &mut sm, &mut d);
    parsed
        .tu
        .items
        .into_iter()
        .find_map(|i| match i.kind {
            ast::ItemKind::Function(f) => Some(f),
            _ => None,
        })
        .expect("a function")
}
