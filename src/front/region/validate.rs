//! Validation: compute regions hold only the supported subset; clause and `share` names are
//! arrays of the function with the right number of dimensions.

use super::*;

/// A name visible at some point of a function.
#[derive(Clone, Debug)]
struct Sym {
    name: String,
    /// `None` when the name comes from text accshare did not parse (an opaque item).
    ty: Option<CType>,
    span: Span,
}

/// Number of dimensions of an array or pointer type (`float A[n][m]` and `float (*A)[M]`: 2;
/// `float *p`: 1; scalars: 0).
pub fn array_dims(ty: &CType) -> usize {
    let mut n = 0;
    let mut t = ty;
    loop {
        match t {
            CType::Const(i) => t = i,
            CType::Array { elem, .. } => {
                n += 1;
                t = elem;
            }
            CType::Pointer { to, .. } => {
                n += 1;
                t = to;
            }
            _ => return n,
        }
    }
}

/// The type, unless it is built on a typedef name accshare did not resolve (its dimensions are
/// unknown then: no check relies on it).
fn known_type(ty: &CType) -> Option<CType> {
    let mut t = ty;
    loop {
        match t {
            CType::Const(i) => t = i,
            CType::Array { elem, .. } => t = elem,
            CType::Pointer { to, .. } => t = to,
            CType::Named(_) => return None,
            _ => return Some(ty.clone()),
        }
    }
}

/// `long double`, or arrays of / pointers to it (host code only, see [`CType::Named`]).
fn is_long_double(ty: &CType) -> bool {
    match ty {
        CType::Const(t) | CType::Pointer { to: t, .. } | CType::Array { elem: t, .. } => {
            is_long_double(t)
        }
        CType::Named(n) => n == "long double",
        _ => false,
    }
}

fn is_array_like(ty: &CType) -> bool {
    matches!(
        ty.unqualified(),
        CType::Array { .. } | CType::Pointer { .. }
    )
}

/// Checks the compute regions and the names in clauses and `share` (see the module docs).
pub fn validate(tu: &TranslationUnit, sources: &SourceMap, diags: &mut Diags) {
    validate_with_routines(tu, sources, &BTreeSet::new(), diags)
}

/// [`validate`], where calls of `routines` (functions marked `acc routine` that could not be
/// inlined, already reported) are not reported again.
pub fn validate_with_routines(
    tu: &TranslationUnit,
    sources: &SourceMap,
    routines: &BTreeSet<String>,
    diags: &mut Diags,
) {
    let mut globals: Vec<Sym> = Vec::new();
    // Names declared in text accshare keeps as is (opaque items): visible, type unknown.
    let mut opaque: HashSet<String> = HashSet::new();
    for item in &tu.items {
        match &item.kind {
            ItemKind::Decl(d) if d.storage != Storage::Typedef => {
                for dec in &d.declarators {
                    globals.push(Sym {
                        name: dec.name.name.clone(),
                        ty: known_type(&dec.ty),
                        span: dec.name.span,
                    });
                }
            }
            ItemKind::Opaque => {
                for w in words(sources.snippet(item.span)) {
                    if !opaque.contains(w) {
                        opaque.insert(w.to_string());
                    }
                }
            }
            ItemKind::Function(f) => {
                let mut v = Validator {
                    func: f,
                    sources,
                    globals: &globals,
                    opaque: &opaque,
                    scopes: vec![params(f)],
                    compute: None,
                    loops: 0,
                    member_reported: false,
                    goto_reported: false,
                    labels: Vec::new(),
                    calls_reported: BTreeSet::new(),
                    routines,
                    diags,
                };
                v.block(&f.body, 0);
            }
            _ => {}
        }
    }
}

/// The identifiers of a text (for opaque items).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

fn params(f: &FunctionDef) -> Vec<Sym> {
    f.params
        .iter()
        .filter_map(|p| {
            p.name.as_ref().map(|n| Sym {
                name: n.name.clone(),
                ty: known_type(&p.ty),
                span: n.span,
            })
        })
        .collect()
}

struct Validator<'a, 'd> {
    func: &'a FunctionDef,
    sources: &'a SourceMap,
    /// File-scope declarations before the function.
    globals: &'a [Sym],
    /// Names in opaque file-scope text.
    opaque: &'a HashSet<String>,
    /// Visible names of the function (parameters, then blocks), outermost scope first.
    scopes: Vec<Vec<Sym>>,
    /// The construct words of the enclosing compute construct.
    compute: Option<Span>,
    /// `for` loops open inside the current compute region.
    loops: usize,
    /// One member-access error per region is enough.
    member_reported: bool,
    /// A `goto` was reported in this region: its labels need no error of their own.
    goto_reported: bool,
    /// Label errors of this region, held back until the region ends (see `goto_reported`).
    labels: Vec<Diag>,
    /// Functions already reported in this region.
    calls_reported: BTreeSet<String>,
    /// `acc routine` functions (their calls were inlined or reported).
    routines: &'d BTreeSet<String>,
    diags: &'d mut Diags,
}

impl Validator<'_, '_> {
    fn lookup(&self, name: &str) -> Option<Sym> {
        let local = self
            .scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|s| s.name == name);
        if let Some(s) = local.or_else(|| self.globals.iter().rev().find(|s| s.name == name)) {
            return Some(s.clone());
        }
        self.opaque.contains(name).then(|| Sym {
            name: name.to_string(),
            ty: None,
            span: self.func.span,
        })
    }

    fn declare(&mut self, d: &Declaration) {
        if d.storage == Storage::Typedef {
            return;
        }
        if let Some(scope) = self.scopes.last_mut() {
            for dec in &d.declarators {
                scope.push(Sym {
                    name: dec.name.name.clone(),
                    ty: known_type(&dec.ty),
                    span: dec.name.span,
                });
            }
        }
    }

    /// The visible arrays and pointers, sorted.
    fn arrays(&self) -> Vec<String> {
        // Later declarations shadow earlier ones.
        let mut visible: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
        for s in self.globals.iter().chain(self.scopes.iter().flatten()) {
            visible.insert(&s.name, s.ty.as_ref().is_some_and(is_array_like));
        }
        let names: BTreeSet<&str> = visible
            .into_iter()
            .filter(|(_, array)| *array)
            .map(|(n, _)| n)
            .collect();
        names.into_iter().map(str::to_string).collect()
    }

    fn block(&mut self, b: &Block, depth: usize) {
        self.scopes.push(Vec::new());
        for s in &b.stmts {
            self.stmt(s, depth + 1);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &s.kind {
            StmtKind::Decl(d) => {
                if let Some(outer) = self.compute {
                    for dec in &d.declarators {
                        if is_long_double(&dec.ty) {
                            self.diags.push(
                                Diag::error(
                                    dec.span,
                                    "`long double` is not supported inside a compute region",
                                )
                                .label("declared `long double`")
                                .with_label(outer, "inside this compute construct")
                                .help("use `double`"),
                            );
                        }
                        if let Some(init) = &dec.init {
                            self.init(init, depth);
                        }
                    }
                }
                self.declare(d);
            }
            StmtKind::Expr(e) => self.expr(e, depth),
            StmtKind::Block(b) => self.block(b, depth),
            StmtKind::If { cond, then, els } => {
                self.expr(cond, depth);
                self.stmt(then, depth + 1);
                if let Some(e) = els {
                    self.stmt(e, depth + 1);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(Vec::new());
                match init {
                    ForInit::Decl(d) => {
                        if self.compute.is_some() {
                            for dec in &d.declarators {
                                if let Some(i) = &dec.init {
                                    self.init(i, depth);
                                }
                            }
                        }
                        self.declare(d);
                    }
                    ForInit::Expr(e) => self.expr(e, depth),
                    ForInit::None => {}
                }
                if let Some(c) = cond {
                    self.expr(c, depth);
                }
                if let Some(st) = step {
                    self.expr(st, depth);
                }
                let inside = self.compute.is_some();
                if inside {
                    self.loops += 1;
                }
                self.stmt(body, depth + 1);
                if inside {
                    self.loops -= 1;
                }
                self.scopes.pop();
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, depth);
                self.stmt(body, depth + 1);
            }
            StmtKind::Return(e) => {
                if let Some(outer) = self.compute {
                    self.diags.push(
                        Diag::error(
                            stmt_word(s, 6),
                            "`return` is not supported inside a compute region",
                        )
                        .label("`return` here")
                        .with_label(outer, "inside this compute construct"),
                    );
                }
                if let Some(e) = e {
                    self.expr(e, depth);
                }
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty | StmtKind::Pragma(_) => {}
            StmtKind::Unsupported { what, body, .. } => {
                // `case`/`default` are only inside a `switch`, which is reported.
                let reported = matches!(what.as_str(), "case" | "default");
                if let Some(outer) = self.compute.filter(|_| !reported) {
                    let msg = match what.as_str() {
                        "label" | "labels" => {
                            "labels are not supported inside a compute region".to_string()
                        }
                        w => format!("`{w}` is not supported inside a compute region"),
                    };
                    let at = match body {
                        // `done:` — the label, without the statement it labels.
                        Some(b) if what.starts_with("label") => {
                            let head = Span {
                                hi: b.span.lo.max(s.span.lo),
                                ..s.span
                            };
                            let text = self.sources.snippet(head);
                            Span {
                                hi: head.lo + text.trim_end().len() as u32,
                                ..head
                            }
                        }
                        _ => stmt_word(s, what.len()),
                    };
                    let d = Diag::error(at, msg)
                        .label("not supported in a kernel")
                        .with_label(outer, "inside this compute construct")
                        .note("a compute region becomes a GPU kernel; its control flow must be structured (`if`, loops, `break`, `continue`)");
                    if what.starts_with("label") {
                        self.labels.push(d);
                    } else {
                        self.goto_reported |= what == "goto";
                        self.diags.push(d);
                    }
                }
                if let Some(b) = body {
                    self.stmt(b, depth + 1);
                }
            }
            StmtKind::Acc { dir, share, body } => self.acc(dir, share.as_ref(), body, depth),
            StmtKind::AccStandalone(d) => self.standalone(d),
        }
    }

    fn init(&mut self, i: &Initializer, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match i {
            Initializer::Expr(e) => self.expr(e, depth),
            Initializer::List(l, _) => {
                for x in l {
                    self.init(x, depth + 1);
                }
            }
            Initializer::Designated { init, .. } => self.init(init, depth + 1),
        }
    }

    fn acc(&mut self, dir: &AccDirective, share: Option<&SharePragma>, body: &Stmt, depth: usize) {
        self.clauses(dir);
        if !dir.construct.is_compute() {
            if let (Construct::Atomic(kind), Some(_)) = (&dir.construct, self.compute) {
                self.atomic(*kind, dir, body);
            }
            self.stmt(body, depth + 1);
            return;
        }
        if let Some(outer) = self.compute {
            self.diags.push(
                Diag::error(
                    dir.construct_span,
                    format!(
                        "compute construct `{}` nested inside a compute region",
                        dir.construct.name()
                    ),
                )
                .label("nested compute construct")
                .with_label(outer, "inside this compute construct")
                .note(
                    "compute constructs cannot be nested; use `#pragma acc loop` for inner loops",
                ),
            );
            self.stmt(body, depth + 1);
            return;
        }
        if let Some(sh) = share {
            self.share(sh);
        }
        self.compute = Some(dir.construct_span);
        self.loops = 0;
        self.member_reported = false;
        self.goto_reported = false;
        self.calls_reported.clear();
        self.scopes.push(Vec::new());
        self.stmt(body, depth + 1);
        self.scopes.pop();
        self.compute = None;
        // A label the reported `goto`s jump to is part of the same problem.
        let labels = std::mem::take(&mut self.labels);
        if !self.goto_reported {
            for d in labels {
                self.diags.push(d);
            }
        }
    }

    /// An `atomic` construct inside a compute region: one of the forms accshare compiles, on a
    /// location of a type the targets have atomics for.
    fn atomic(&mut self, kind: AtomicKind, dir: &AccDirective, body: &Stmt) {
        let form = match super::atomic_form(kind, body) {
            Ok(f) => f,
            Err(d) => {
                self.diags
                    .push(d.with_label(dir.construct_span, "in this atomic construct"));
                return;
            }
        };
        if let ExprKind::Member { .. } = &form.x.kind {
            self.diags.push(
                Diag::error(
                    form.x.span,
                    "`#pragma acc atomic` on a field of a struct is not supported",
                )
                .label("a struct field")
                .with_label(dir.construct_span, "in this atomic construct")
                .help("keep the updated values in an array of scalars"),
            );
            return;
        }
        let mut base = &form.x;
        while let ExprKind::Index(b, _) | ExprKind::Unary(_, b) = &base.kind {
            base = b;
        }
        let ExprKind::Ident(name) = &base.kind else {
            return;
        };
        let Some(elem) = self
            .lookup(name)
            .and_then(|s| s.ty)
            .and_then(|t| t.base_scalar())
        else {
            return;
        };
        if elem == Scalar::Bool {
            let x = crate::front::pragma::expr_to_c(&form.x);
            self.diags.push(
                Diag::error(
                    form.x.span,
                    format!(
                        "`#pragma acc atomic` on a `{}` is not supported",
                        elem.c_name()
                    ),
                )
                .label(format!("`{}` is a `{}`", x, elem.c_name()))
                .with_label(dir.construct_span, "in this atomic construct")
                .note("accshare compiles atomics on integers (`char` and `short` too) and floating-point values, not on `_Bool`")
                .help("keep the flags in an array of `char` or `int`"),
            );
        }
    }

    fn standalone(&mut self, d: &AccDirective) {
        self.clauses(d);
        for s in &d.cache {
            self.array_name(&s.name, "`cache`", Some(s.dims.len()));
        }
        match d.construct {
            Construct::Cache if self.compute.is_none() || self.loops == 0 => {
                self.diags.push(
                    Diag::warning(
                        d.construct_span,
                        "`#pragma acc cache` outside a loop of a compute region is ignored",
                    )
                    .label("not inside a loop of a compute region"),
                );
            }
            Construct::Update | Construct::EnterData | Construct::ExitData | Construct::Wait => {
                if let Some(outer) = self.compute {
                    self.diags.push(
                        Diag::error(
                            d.construct_span,
                            format!(
                                "`#pragma acc {}` cannot be used inside a compute region",
                                d.construct.name()
                            ),
                        )
                        .label("a host directive")
                        .with_label(outer, "inside this compute construct"),
                    );
                }
            }
            _ => {}
        }
    }

    /// Checks clause names and conflicting loop clauses.
    fn clauses(&mut self, d: &AccDirective) {
        for c in &d.clauses {
            match &c.kind {
                ClauseKind::Data { kind, vars, .. } => {
                    let what = match kind {
                        DataKind::Host | DataKind::Device => format!("`update {}`", kind.name()),
                        _ => format!("`{}`", kind.name()),
                    };
                    for v in vars {
                        match v.member_base() {
                            // A struct member: its variable must be visible; `ir::lower`
                            // checks the path against the struct's type.
                            Some((base, _)) => self.array_name(
                                &Ident {
                                    name: base.to_string(),
                                    span: v.name.span,
                                },
                                &what,
                                None,
                            ),
                            None => self.array_name(&v.name, &what, Some(v.dims.len())),
                        }
                    }
                }
                ClauseKind::Private(vs) | ClauseKind::FirstPrivate(vs) => {
                    for v in vs {
                        self.var_name(v, c.kind.name());
                    }
                }
                ClauseKind::Reduction { vars, .. } => {
                    for v in vars {
                        self.var_name(v, "reduction");
                    }
                }
                _ => {}
            }
        }
        let find = |pred: fn(&ClauseKind) -> bool| d.clauses.iter().find(|c| pred(&c.kind));
        let ind = find(|k| matches!(k, ClauseKind::Independent));
        let seq = find(|k| matches!(k, ClauseKind::Seq));
        let auto = find(|k| matches!(k, ClauseKind::Auto));
        let pairs = [(ind, seq), (ind, auto), (seq, auto)];
        for (a, b) in pairs {
            if let (Some(a), Some(b)) = (a, b) {
                let (first, second) = if a.span.lo <= b.span.lo {
                    (a, b)
                } else {
                    (b, a)
                };
                self.diags.push(
                    Diag::error(
                        second.span,
                        format!(
                            "loop marked both `{}` and `{}`",
                            first.kind.name(),
                            second.kind.name()
                        ),
                    )
                    .label(format!("`{}` here", second.kind.name()))
                    .with_label(first.span, format!("`{}` here", first.kind.name()))
                    .help("a loop is either `independent` (parallel), `seq` (sequential) or `auto` (the compiler decides)"),
                );
            }
        }
    }

    /// A name in a data clause, `cache` or `share` must be visible; `dims` is the number of
    /// subscripts written, checked against the array's dimensions.
    fn array_name(&mut self, name: &Ident, what: &str, dims: Option<usize>) {
        match self.lookup(&name.name) {
            // A data clause takes scalars too (one-element device copies); `cache` only arrays.
            None if what == "`cache`" => self.unknown_array(name, &format!("{what} clause")),
            None => self.unknown_name(name, &format!("{what} clause"), "a variable"),
            Some(sym) => {
                let (Some(ty), Some(n)) = (&sym.ty, dims) else {
                    return;
                };
                let have = array_dims(ty);
                if n > have {
                    let d = if have == 0 {
                        Diag::error(
                            name.span,
                            format!("`{}` is not an array but has subscripts here", name.name),
                        )
                        .label(format!("{n} subscript{}", plural(n)))
                        .with_label(
                            sym.span,
                            format!("declared as `{}`", ctype_to_c(ty, &sym.name)),
                        )
                    } else {
                        Diag::error(
                            name.span,
                            format!(
                                "`{}` has {} dimension{} but {n} subscripts are given",
                                name.name,
                                have,
                                plural(have)
                            ),
                        )
                        .label(format!("{n} subscripts"))
                        .with_label(
                            sym.span,
                            format!("declared as `{}`", ctype_to_c(ty, &sym.name)),
                        )
                    };
                    self.diags.push(d);
                }
            }
        }
    }

    fn unknown_array(&mut self, name: &Ident, context: &str) {
        self.unknown_name(name, context, "an array");
    }

    /// `name` in `context` is not visible; `noun` says what it should be (`an array`).
    fn unknown_name(&mut self, name: &Ident, context: &str, noun: &str) {
        let arrays = self.arrays();
        let mut d = Diag::error(
            name.span,
            format!(
                "`{}` in {context} is not {noun} of function `{}`",
                name.name, self.func.name.name
            ),
        )
        .label("not declared here");
        if arrays.is_empty() {
            d = d.note(format!(
                "function `{}` has no arrays or pointers in scope here",
                self.func.name.name
            ));
        } else {
            d = d.note(format!("the arrays here are: {}", list_names(&arrays)));
        }
        if let Some(s) = did_you_mean(&name.name, arrays.iter().map(String::as_str)) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diags.push(d);
    }

    /// A variable in `private`/`reduction` must be visible.
    fn var_name(&mut self, v: &Ident, clause: &str) {
        if self.lookup(&v.name).is_some() {
            return;
        }
        let mut names: BTreeSet<&str> = BTreeSet::new();
        for s in self.scopes.iter().flatten() {
            names.insert(&s.name);
        }
        let mut d = Diag::error(
            v.span,
            format!(
                "`{}` in `{clause}` clause is not a variable of function `{}`",
                v.name, self.func.name.name
            ),
        )
        .label("not declared here");
        if let Some(s) = did_you_mean(&v.name, names.iter().copied()) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diags.push(d);
    }

    fn share(&mut self, sh: &SharePragma) {
        for spec in &sh.specs {
            self.share_spec(spec);
        }
    }

    fn share_spec(&mut self, spec: &ArraySpec) {
        let name = &spec.array;
        let Some(sym) = self.lookup(&name.name) else {
            self.unknown_array(name, "share clause");
            return;
        };
        let Some(ty) = &sym.ty else {
            return;
        };
        if !is_array_like(ty) {
            self.diags.push(
                Diag::error(
                    name.span,
                    format!("`{}` in share clause is not an array", name.name),
                )
                .label("only arrays and pointers can be partitioned")
                .with_label(
                    sym.span,
                    format!("declared as `{}`", ctype_to_c(ty, &sym.name)),
                ),
            );
            return;
        }
        let have = array_dims(ty);
        let given = spec.dims.len();
        if have != given {
            self.diags.push(
                Diag::error(
                    spec.span,
                    format!(
                        "share region for `{}` has {given} extent{} but `{}` has {have} dimension{}",
                        name.name,
                        plural(given),
                        name.name,
                        plural(have)
                    ),
                )
                .label(format!("{given} extent{}", plural(given)))
                .with_label(sym.span, format!("declared as `{}`", ctype_to_c(ty, &sym.name)))
                .help(format!(
                    "give one extent per dimension: a size (`TB_X`, `TB_Y + 2`, …) or `*`{}",
                    if have > 0 {
                        format!(", e.g. `{}{}`", name.name, "[*]".repeat(have))
                    } else {
                        String::new()
                    }
                )),
            );
        }
    }

    /// Checks an expression inside a compute region: member accesses and calls. Iterative (an
    /// expression may be thousands of operators long), in source order.
    fn expr(&mut self, e: &Expr, _depth: usize) {
        let Some(outer) = self.compute else {
            return;
        };
        let mut work: Vec<&Expr> = vec![e];
        while let Some(e) = work.pop() {
            let first = work.len();
            match &e.kind {
                ExprKind::Member { base, arrow, .. } => {
                    // `a[i].x` (an element of an array of structs) is checked against the
                    // struct's type by the IR lowering; anything else is refused here.
                    let element = matches!(base.kind, ExprKind::Index(..));
                    // `data.a`, `p->a`, `s.in.n`: a member reached from a variable through
                    // members only, which `ir::lower` names through a variable of its own.
                    let named = !element && on_variable(e);
                    if !named && (*arrow || !element) && !self.member_reported {
                        self.member_reported = true;
                        let d = if *arrow {
                            Diag::error(
                                e.span,
                                "`->` on an expression is not supported inside a compute region",
                            )
                            .label("member access through a pointer that is not a variable")
                            .with_label(outer, "inside this compute construct")
                            .help("index the array of structs instead: `p[i].x`")
                        } else if matches!(base.kind, ExprKind::Member { .. }) {
                            Diag::error(
                                e.span,
                                "a member of a member (nested structs) is not supported inside a compute region",
                            )
                            .label("member of a struct member")
                            .with_label(outer, "inside this compute construct")
                            .help("kernels index arrays of structs of scalar fields: `a[i].x`")
                        } else {
                            Diag::error(
                                e.span,
                                "struct member access inside a compute region must name a field of an array element",
                            )
                            .label("not an element of an array of structs")
                            .with_label(outer, "inside this compute construct")
                            .help("kernels index arrays of structs of scalar fields: `a[i].x`")
                        };
                        self.diags.push(d);
                    }
                    work.push(base);
                }
                ExprKind::Call(f, args) => {
                    if !is_math_function(&f.name)
                        && !self.routines.contains(&f.name)
                        && self.calls_reported.insert(f.name.clone())
                    {
                        self.diags.push(
                            Diag::error(
                                f.span,
                                format!(
                                    "call to `{}` inside a compute region: only math functions are supported",
                                    f.name
                                ),
                            )
                            .label("not a math function")
                            .with_label(outer, "inside this compute construct")
                            .note("the C99 math functions (`sqrt`, `expf`, `fmaxf`, …) and `abs`, `min`, `max` can be called in a kernel"),
                        );
                    }
                    work.extend(args.iter());
                }
                ExprKind::IndirectCall(f, args) => {
                    self.diags.push(
                        Diag::error(
                            f.span,
                            "call through a function pointer inside a compute region",
                        )
                        .label("not a function name")
                        .with_label(outer, "inside this compute construct")
                        .note("a kernel can call the C99 math functions and `acc routine` functions, by name"),
                    );
                    work.extend(args.iter());
                }
                ExprKind::CompoundLit(..) => self.diags.push(
                    Diag::error(
                        e.span,
                        "compound literals are not supported inside a compute region",
                    )
                    .label("compound literal")
                    .with_label(outer, "inside this compute construct")
                    .help("assign the members or elements one by one"),
                ),
                ExprKind::Ident(_)
                | ExprKind::Int { .. }
                | ExprKind::Float { .. }
                | ExprKind::Char(_)
                | ExprKind::Str(_)
                | ExprKind::SizeofType(_) => {}
                ExprKind::Unary(_, a)
                | ExprKind::IncDec { arg: a, .. }
                | ExprKind::Cast(_, a)
                | ExprKind::SizeofExpr(a) => work.push(a),
                ExprKind::Binary(_, a, b)
                | ExprKind::Assign(_, a, b)
                | ExprKind::Index(a, b)
                | ExprKind::Comma(a, b) => work.extend([&**a, &**b]),
                ExprKind::Cond(a, b, c) => work.extend([&**a, &**b, &**c]),
            }
            // Children were pushed left to right: reverse them so the leftmost comes out first.
            work[first..].reverse();
        }
    }
}

/// The first `len` bytes of a statement (its keyword).
fn stmt_word(s: &Stmt, len: usize) -> Span {
    Span {
        hi: s.span.hi.min(s.span.lo + len as u32),
        ..s.span
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `A, B, C` (at most 12 names).
fn list_names(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(12)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 12 {
        s.push_str(&format!(" and {} more", names.len() - 12));
    }
    s
}

/// `data.a`, `p->a`, `s.in.a`: a member chain whose innermost base is a variable.
fn on_variable(e: &Expr) -> bool {
    let mut e = e;
    while let ExprKind::Member { base, .. } = &e.kind {
        e = base;
    }
    matches!(e.kind, ExprKind::Ident(_))
}
