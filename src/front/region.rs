//! Attaches pragmas to the statements they annotate, validates the OpenACC regions, and
//! summarizes them for `accshare check`.
//!
//! [`attach`] turns the parser's `StmtKind::Pragma` statements into [`StmtKind::Acc`] (a construct
//! and the statement it applies to, with the `share` partitions written before it) and
//! [`StmtKind::AccStandalone`]. [`validate`] checks what later stages rely on: compute regions hold
//! only the supported subset, clause and `share` names are arrays of the function with the right
//! number of dimensions. [`summarize`] describes each compute region in one line.
//!
//! Every walk here is bounded by [`MAX_DEPTH`]: trees deeper than that (which the parser already
//! rejects) are not descended into, so no input can overflow the stack.

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use crate::diag::{Diag, Diags, SourceMap, Span};
use crate::front::ast::{
    Block, CType, Declaration, Expr, ExprKind, ForInit, FunctionDef, Ident, Initializer, ItemKind,
    Stmt, StmtKind, Storage, TranslationUnit,
};
use crate::front::pragma::{ctype_to_c, did_you_mean};
use crate::front::pragma_ast::{
    AccDirective, ArraySpec, Clause, ClauseKind, Construct, DataKind, Pragma, SharePragma,
};

/// Deepest statement nesting the walks descend into (the parser allows 256 nested brackets, so
/// only hand-made trees reach it).
pub const MAX_DEPTH: usize = 300;

/// The functions a compute region may call: C99 math for `float` and `double` (with their `f`
/// variants) and `abs`, `min`, `max`.
pub const MATH_FUNCTIONS: &[&str] = &[
    "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs", "fmin",
    "fmax", "fmod", "floor", "ceil", "round", "trunc", "sin", "cos", "tan", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "hypot", "copysign",
];

/// Whether `name` is a function a compute region may call (see [`MATH_FUNCTIONS`]).
pub fn is_math_function(name: &str) -> bool {
    if matches!(name, "abs" | "min" | "max") {
        return true;
    }
    MATH_FUNCTIONS.contains(&name)
        || name
            .strip_suffix('f')
            .is_some_and(|base| MATH_FUNCTIONS.contains(&base))
}

/// Whether a directive applies to the statement that follows it.
fn takes_body(c: &Construct) -> bool {
    c.is_compute()
        || matches!(
            c,
            Construct::Loop | Construct::Data | Construct::HostData | Construct::Atomic
        )
}

// =============================================================================================
// Attachment.

/// Replaces the pragma statements of every function by the constructs they stand for.
///
/// A directive that takes a statement (compute constructs, `loop`, `data`, `host_data`,
/// `atomic`) takes the next one; consecutive directives nest (`data` then `kernels loop` then
/// the `for`). `share` pragmas attach to the compute construct that follows them, merged if
/// there are several. `scop` and foreign pragmas disappear.
pub fn attach(tu: &mut TranslationUnit, pragmas: &[Pragma], diags: &mut Diags) {
    let mut a = Attacher { pragmas, diags };
    for item in &mut tu.items {
        match &mut item.kind {
            ItemKind::Function(f) => a.block(&mut f.body, 0),
            ItemKind::Pragma(i) => match pragmas.get(*i as usize) {
                Some(Pragma::Acc(d))
                    if !matches!(d.construct, Construct::Routine | Construct::Declare) =>
                {
                    a.diags.push(
                        Diag::warning(
                            d.construct_span,
                            format!(
                                "`#pragma acc {}` outside a function is ignored",
                                d.construct.name()
                            ),
                        )
                        .label("not inside a function"),
                    );
                }
                Some(Pragma::Share(s)) => a.diags.push(
                    Diag::warning(s.span, "`#pragma acc share` outside a function is ignored")
                        .label("not inside a function"),
                ),
                _ => {}
            },
            _ => {}
        }
    }
}

/// A pragma waiting for the statement it applies to.
enum Pending {
    Dir(AccDirective, Span),
    Share(SharePragma, Span),
}

struct Attacher<'a> {
    pragmas: &'a [Pragma],
    diags: &'a mut Diags,
}

impl Attacher<'_> {
    fn block(&mut self, b: &mut Block, depth: usize) {
        let stmts = std::mem::take(&mut b.stmts);
        // The closing brace, for "the block ends here".
        let end = Span {
            file: b.span.file,
            lo: b.span.hi.saturating_sub(1).max(b.span.lo),
            hi: b.span.hi,
        };
        b.stmts = self.stmts(stmts, end, depth);
    }

    /// Attaches the pragmas of a statement list; `end` is where the list ends.
    fn stmts(&mut self, stmts: Vec<Stmt>, end: Span, depth: usize) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut chain: Vec<Pending> = Vec::new();
        let mut queue: std::collections::VecDeque<Stmt> = stmts.into();
        while let Some(mut s) = queue.pop_front() {
            if let StmtKind::Pragma(i) = s.kind {
                match self.pragmas.get(i as usize) {
                    Some(Pragma::Share(sh)) => chain.push(Pending::Share(sh.clone(), s.span)),
                    Some(Pragma::Acc(d)) if takes_body(&d.construct) => {
                        chain.push(Pending::Dir(d.clone(), s.span))
                    }
                    Some(Pragma::Acc(d)) => {
                        if !chain.is_empty() {
                            let what = format!("`#pragma acc {}`", d.construct.name());
                            self.unfollowed(std::mem::take(&mut chain), s.span, &what);
                        }
                        out.push(Stmt {
                            kind: StmtKind::AccStandalone(d.clone()),
                            span: s.span,
                        });
                    }
                    // `scop`, foreign pragmas: dropped (between a directive and its statement,
                    // skipped).
                    _ => {
                        if chain.is_empty() {
                            out.push(Stmt {
                                kind: StmtKind::Empty,
                                span: s.span,
                            });
                        }
                    }
                }
                continue;
            }
            // `for (…)` / `#pragma acc loop` / `for (…)`: the parser sees the pragma line as the
            // loop's body and the inner loop as the next statement; the pragma and the
            // statements after it up to a real one become the body.
            while let Some(next) = queue.pop_front() {
                if let Some(next) = self.absorb(&mut s, next, depth) {
                    queue.push_front(next);
                    break;
                }
            }
            self.stmt(&mut s, depth + 1);
            if chain.is_empty() {
                out.push(s);
            } else {
                let built = self.build(std::mem::take(&mut chain), s);
                out.push(built);
            }
        }
        if !chain.is_empty() {
            self.unfollowed(chain, end, "the end of the block");
        }
        out
    }

    /// Whether a statement is a pragma line that needs the statement after it (anything but a
    /// standalone OpenACC directive).
    fn needs_stmt(&self, s: &Stmt) -> bool {
        match s.kind {
            StmtKind::Pragma(i) => !matches!(
                self.pragmas.get(i as usize),
                Some(Pragma::Acc(d)) if !takes_body(&d.construct)
            ),
            _ => false,
        }
    }

    /// If a single-statement position at the end of `s` (a loop body, the last branch, a
    /// labelled statement) holds a pragma line, puts `next` after it there (in a block of their
    /// own) and extends the spans; otherwise gives `next` back.
    fn absorb(&mut self, s: &mut Stmt, next: Stmt, depth: usize) -> Option<Stmt> {
        if depth > MAX_DEPTH {
            return Some(next);
        }
        let hi = next.span.hi;
        let done = match &mut s.kind {
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::Unsupported {
                body: Some(body), ..
            } => self.absorb_slot(body, next, depth),
            StmtKind::If {
                els: Some(body), ..
            } => self.absorb_slot(body, next, depth),
            StmtKind::If { then, .. } => self.absorb_slot(then, next, depth),
            // A block made here (see `absorb_slot`) is open at its end.
            StmtKind::Block(b) if is_pragma_block(b) => match b.stmts.last_mut() {
                Some(last) if self.needs_stmt(last) => {
                    b.stmts.push(next);
                    b.span.hi = b.span.hi.max(hi);
                    None
                }
                Some(last) => self.absorb(last, next, depth + 1),
                None => Some(next),
            },
            _ => Some(next),
        };
        if done.is_none() {
            s.span.hi = s.span.hi.max(hi);
            if let StmtKind::Block(b) = &mut s.kind {
                b.span.hi = b.span.hi.max(hi);
            }
        }
        done
    }

    fn absorb_slot(&mut self, slot: &mut Stmt, next: Stmt, depth: usize) -> Option<Stmt> {
        if !self.needs_stmt(slot) {
            return self.absorb(slot, next, depth + 1);
        }
        let span = slot.span.to(next.span);
        let pragma = std::mem::replace(
            slot,
            Stmt {
                kind: StmtKind::Empty,
                span,
            },
        );
        *slot = Stmt {
            kind: StmtKind::Block(Block {
                stmts: vec![pragma, next],
                span,
            }),
            span,
        };
        None
    }

    /// Attaches the pragmas inside a statement.
    fn stmt(&mut self, s: &mut Stmt, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &mut s.kind {
            StmtKind::Block(b) => self.block(b, depth),
            StmtKind::If { then, els, .. } => {
                self.sub(then, depth);
                if let Some(e) = els {
                    self.sub(e, depth);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::DoWhile { body, .. } => self.sub(body, depth),
            StmtKind::Unsupported { body: Some(b), .. } => self.sub(b, depth),
            StmtKind::Acc { body, .. } => self.sub(body, depth),
            _ => {}
        }
    }

    /// A statement in a single-statement position (a loop body, a branch).
    fn sub(&mut self, s: &mut Box<Stmt>, depth: usize) {
        let span = s.span;
        let taken = std::mem::replace(
            s.as_mut(),
            Stmt {
                kind: StmtKind::Empty,
                span,
            },
        );
        let mut list = self.stmts(vec![taken], span, depth);
        **s = match list.len() {
            0 => Stmt {
                kind: StmtKind::Empty,
                span,
            },
            1 => list.pop().unwrap_or(Stmt {
                kind: StmtKind::Empty,
                span,
            }),
            _ => Stmt {
                kind: StmtKind::Block(Block { stmts: list, span }),
                span,
            },
        };
    }

    /// Merges consecutive `share` pragmas into one (the first one's span, for output
    /// replacement); an array partitioned twice is an error.
    fn merge(&mut self, shares: Vec<(SharePragma, Span)>) -> SharePragma {
        let mut merged: Option<SharePragma> = None;
        for (sh, _) in shares {
            match &mut merged {
                None => merged = Some(sh),
                Some(m) => {
                    for spec in sh.specs {
                        if let Some(prev) = m.specs.iter().find(|p| p.array.name == spec.array.name)
                        {
                            self.diags.push(
                                Diag::error(
                                    spec.array.span,
                                    format!("`{}` is partitioned twice", spec.array.name),
                                )
                                .label("second partition")
                                .with_label(prev.array.span, "first partition"),
                            );
                        } else {
                            m.specs.push(spec);
                        }
                    }
                }
            }
        }
        merged.unwrap_or(SharePragma {
            specs: Vec::new(),
            span: Span::default(),
        })
    }

    /// Gives each `share` to the compute construct after it; returns the directives with their
    /// shares, and the shares no compute construct follows.
    #[allow(clippy::type_complexity)]
    fn assign_shares(
        &mut self,
        chain: Vec<Pending>,
    ) -> (
        Vec<(AccDirective, Span, Option<SharePragma>)>,
        Vec<(SharePragma, Span)>,
    ) {
        let mut shares: Vec<(SharePragma, Span)> = Vec::new();
        let mut dirs = Vec::new();
        for p in chain {
            match p {
                Pending::Share(sh, sp) => shares.push((sh, sp)),
                Pending::Dir(d, sp) => {
                    let share = if d.construct.is_compute() && !shares.is_empty() {
                        Some(self.merge(std::mem::take(&mut shares)))
                    } else {
                        None
                    };
                    dirs.push((d, sp, share));
                }
            }
        }
        (dirs, shares)
    }

    fn stray_shares(&mut self, shares: Vec<(SharePragma, Span)>, next: Span, next_what: &str) {
        for (sh, sp) in shares {
            let at = if sh.span == Span::default() {
                sp
            } else {
                sh.span
            };
            self.diags.push(
                Diag::error(at, "`share` must annotate an OpenACC compute construct")
                    .label("this `share`")
                    .with_label(next, next_what.to_string())
                    .help("write `#pragma acc share(…)` right before `#pragma acc kernels loop` or another compute construct"),
            );
        }
    }

    /// Directives with no statement after them (`at` is what comes instead).
    fn unfollowed(&mut self, chain: Vec<Pending>, at: Span, instead: &str) {
        let (dirs, shares) = self.assign_shares(chain);
        if !shares.is_empty() {
            self.stray_shares(shares, at, &format!("followed by {instead}"));
        }
        for (d, _, _) in dirs {
            self.diags.push(
                Diag::error(
                    d.construct_span,
                    format!(
                        "`#pragma acc {}` has no statement to apply to",
                        d.construct.name()
                    ),
                )
                .label("expected a statement after this directive")
                .with_label(at, format!("followed by {instead}")),
            );
        }
    }

    /// Builds the constructs of a chain of pragmas around the statement `s` that follows them.
    fn build(&mut self, chain: Vec<Pending>, s: Stmt) -> Stmt {
        let (dirs, shares) = self.assign_shares(chain);
        if !shares.is_empty() {
            // The next thing after the last share: a directive that is no compute construct, or
            // the statement.
            let next = dirs
                .iter()
                .find(|(_, sp, _)| shares.last().is_some_and(|(_, ssp)| sp.lo > ssp.lo));
            match next {
                Some((d, _, _)) => {
                    let msg = format!(
                        "followed by `{}`, which is not a compute construct",
                        d.construct.name()
                    );
                    let at = d.construct_span;
                    self.stray_shares(shares, at, &msg);
                }
                None => self.stray_shares(
                    shares,
                    stmt_head(&s),
                    "followed by this statement, which is not a compute construct",
                ),
            }
        }
        let mut body = s;
        for (d, sp, share) in dirs.into_iter().rev() {
            if d.construct.is_loop() && !matches!(body.kind, StmtKind::For { .. }) {
                let what = match &body.kind {
                    StmtKind::Acc { dir, .. } => {
                        format!(
                            "followed by `{}`, not by a `for` loop",
                            dir.construct.name()
                        )
                    }
                    _ => "this is not a `for` loop".to_string(),
                };
                let at = match &body.kind {
                    StmtKind::Acc { dir, .. } => dir.construct_span,
                    _ => stmt_head(&body),
                };
                self.diags.push(
                    Diag::error(
                        d.construct_span,
                        format!(
                            "`#pragma acc {}` must be followed by a `for` loop",
                            d.construct.name()
                        ),
                    )
                    .label("this directive applies to the next statement")
                    .with_label(at, what),
                );
                continue;
            }
            for c in &d.clauses {
                if let ClauseKind::Collapse(n) = c.kind {
                    self.check_collapse(&d, c, n, &body);
                }
            }
            let span = sp.to(body.span);
            body = Stmt {
                kind: StmtKind::Acc {
                    dir: d,
                    share,
                    body: Box::new(body),
                },
                span,
            };
        }
        body
    }

    /// `collapse(n)` needs `n` tightly nested `for` loops.
    fn check_collapse(&mut self, d: &AccDirective, c: &Clause, n: u32, body: &Stmt) {
        let mut cur = body;
        let mut found = 0u32;
        let mut last_loop = body;
        while found < n {
            let StmtKind::For { body: inner, .. } = &cur.kind else {
                break;
            };
            found += 1;
            last_loop = cur;
            if found == n {
                break;
            }
            cur = tight_inner(inner);
        }
        if found < n {
            let mut diag = Diag::error(
                c.span,
                format!(
                    "`collapse({n})` needs {n} tightly nested `for` loops, but there {}",
                    if found == 1 {
                        "is only 1".to_string()
                    } else {
                        format!("are only {found}")
                    }
                ),
            )
            .label(format!("on `#pragma acc {}`", d.construct.name()));
            if found > 0 {
                let at = if std::ptr::eq(cur, last_loop) {
                    stmt_head(last_loop)
                } else {
                    stmt_head(cur)
                };
                diag = diag.with_label(at, "the loop nest ends here");
            }
            diag = diag.note("tightly nested: each loop's body is exactly the next `for` loop");
            self.diags.push(diag);
        }
    }
}

/// A block that starts with a pragma line (no brace): made by [`Attacher::absorb_slot`] (or by
/// a parser that groups a pragma with its statement).
fn is_pragma_block(b: &Block) -> bool {
    b.stmts
        .first()
        .is_some_and(|f| f.span.lo == b.span.lo && matches!(f.kind, StmtKind::Pragma(_)))
}

/// The statement directly inside a loop body: the only statement of a block, or the body itself.
fn tight_inner(s: &Stmt) -> &Stmt {
    match &s.kind {
        StmtKind::Block(b) => {
            let mut it = b
                .stmts
                .iter()
                .filter(|x| !matches!(x.kind, StmtKind::Empty));
            match (it.next(), it.next()) {
                (Some(only), None) => only,
                _ => s,
            }
        }
        _ => s,
    }
}

/// A short span at the start of a statement (its first line), for labels.
fn stmt_head(s: &Stmt) -> Span {
    match &s.kind {
        StmtKind::For { .. } | StmtKind::While { .. } => Span {
            hi: s.span.hi.min(s.span.lo + 3),
            ..s.span
        },
        StmtKind::Block(_) => Span {
            hi: s.span.hi.min(s.span.lo + 1),
            ..s.span
        },
        _ => s.span,
    }
}

// =============================================================================================
// Validation.

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

fn is_array_like(ty: &CType) -> bool {
    matches!(
        ty.unqualified(),
        CType::Array { .. } | CType::Pointer { .. }
    )
}

/// Checks the compute regions and the names in clauses and `share` (see the module docs).
pub fn validate(tu: &TranslationUnit, sources: &SourceMap, diags: &mut Diags) {
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
                if self.compute.is_some() {
                    for dec in &d.declarators {
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
            StmtKind::Unsupported { what, body } => {
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
        }
    }

    fn acc(&mut self, dir: &AccDirective, share: Option<&SharePragma>, body: &Stmt, depth: usize) {
        self.clauses(dir);
        if !dir.construct.is_compute() {
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
                ClauseKind::Data { kind, vars } => {
                    let what = match kind {
                        DataKind::Host | DataKind::Device => format!("`update {}`", kind.name()),
                        _ => format!("`{}`", kind.name()),
                    };
                    for v in vars {
                        self.array_name(&v.name, &what, Some(v.dims.len()));
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
            None => self.unknown_array(name, &format!("{what} clause")),
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
        let arrays = self.arrays();
        let mut d = Diag::error(
            name.span,
            format!(
                "`{}` in {context} is not an array of function `{}`",
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
                ExprKind::Member { base, .. } => {
                    if !self.member_reported {
                        self.member_reported = true;
                        self.diags.push(
                            Diag::error(
                                e.span,
                                "struct member access is not supported inside a compute region",
                            )
                            .label("member access")
                            .with_label(outer, "inside this compute construct")
                            .help("pass the fields as separate arrays (structure of arrays)"),
                        );
                    }
                    work.push(base);
                }
                ExprKind::Call(f, args) => {
                    if !is_math_function(&f.name) && self.calls_reported.insert(f.name.clone()) {
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

// =============================================================================================
// Summaries (`accshare check`).

/// One compute region, as `accshare check` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSummary {
    /// The enclosing function.
    pub func: String,
    /// `file:line:col` of the statement the construct applies to.
    pub location: String,
    /// The construct and its clauses other than data clauses (`kernels loop independent`).
    pub construct: String,
    /// The `for` loops of the region, as a forest.
    pub loops: Vec<LoopSummary>,
    /// The `share` partitions (`A[TB_Y][*]:coalesce`).
    pub share: Vec<String>,
    /// The construct's data clauses, names only, grouped by kind (`copyin(A,B)`).
    pub data: Vec<String>,
    /// The data clauses of each enclosing `data` construct, outermost first.
    pub enclosing: Vec<Vec<String>>,
}

/// One `for` loop of a region: its variable, its OpenACC marking and the loops inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopSummary {
    pub var: String,
    /// The loop clauses that apply to it (`independent`, `gang`, `vector(128)`, …); empty when the
    /// loop carries no directive.
    pub marks: Vec<String>,
    pub inner: Vec<LoopSummary>,
}

impl fmt::Display for LoopSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.var)?;
        if !self.marks.is_empty() {
            write!(f, "[{}]", self.marks.join(" "))?;
        }
        write_forest(f, &self.inner, true)
    }
}

fn write_forest(f: &mut fmt::Formatter<'_>, loops: &[LoopSummary], nested: bool) -> fmt::Result {
    match loops {
        [] => Ok(()),
        [one] => {
            if nested {
                f.write_str(" > ")?;
            }
            write!(f, "{one}")
        }
        many => {
            if nested {
                f.write_str(" > ")?;
            }
            f.write_str("{")?;
            for (k, l) in many.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{l}")?;
            }
            f.write_str("}")
        }
    }
}

impl fmt::Display for RegionSummary {
    /// `gemm.c:14:5: gemm: kernels loop independent | loops i[independent] > j[independent] >
    /// k[seq] | share B[*][TB_X], A[TB_Y][*]:coalesce | data copyin(A,B) copy(C)`; sibling loops
    /// print as `i > {j, k}`, and each enclosing `data` construct adds `| in data copy(u)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.func, self.construct)?;
        if !self.loops.is_empty() {
            f.write_str(" | loops ")?;
            write_forest(f, &self.loops, false)?;
        }
        if !self.share.is_empty() {
            write!(f, " | share {}", self.share.join(", "))?;
        }
        if !self.data.is_empty() {
            write!(f, " | data {}", self.data.join(" "))?;
        }
        for d in &self.enclosing {
            write!(f, " | in data {}", d.join(" "))?;
        }
        Ok(())
    }
}

/// Describes every compute region of the translation unit, in source order.
pub fn summarize(tu: &TranslationUnit, sources: &SourceMap) -> Vec<RegionSummary> {
    let mut out = Vec::new();
    for item in &tu.items {
        if let ItemKind::Function(f) = &item.kind {
            let mut data: Vec<&AccDirective> = Vec::new();
            for s in &f.body.stmts {
                summarize_stmt(s, &f.name.name, sources, &mut data, &mut out, 0);
            }
        }
    }
    out
}

fn summarize_stmt<'a>(
    s: &'a Stmt,
    func: &str,
    sources: &SourceMap,
    data: &mut Vec<&'a AccDirective>,
    out: &mut Vec<RegionSummary>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let rec = |s: &'a Stmt, data: &mut Vec<&'a AccDirective>, out: &mut Vec<RegionSummary>| {
        summarize_stmt(s, func, sources, data, out, depth + 1)
    };
    match &s.kind {
        StmtKind::Block(b) => {
            for x in &b.stmts {
                rec(x, data, out);
            }
        }
        StmtKind::If { then, els, .. } => {
            rec(then, data, out);
            if let Some(e) = els {
                rec(e, data, out);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. } => rec(body, data, out),
        StmtKind::Unsupported { body: Some(b), .. } => rec(b, data, out),
        StmtKind::Acc { dir, share, body } if dir.construct.is_compute() => {
            let first = if dir.construct.is_loop() {
                Some(dir)
            } else {
                None
            };
            out.push(RegionSummary {
                func: func.to_string(),
                location: sources.location(body.span),
                construct: construct_text(dir),
                loops: loop_forest(body, first, 0),
                share: share
                    .as_ref()
                    .map(|s| s.specs.iter().map(|x| x.to_string()).collect())
                    .unwrap_or_default(),
                data: data_text(dir),
                enclosing: data.iter().map(|d| data_text(d)).collect(),
            });
        }
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Data => {
            data.push(dir);
            rec(body, data, out);
            data.pop();
        }
        StmtKind::Acc { body, .. } => rec(body, data, out),
        _ => {}
    }
}

/// `kernels loop independent`: the construct and its clauses except data clauses.
fn construct_text(d: &AccDirective) -> String {
    let mut s = d.construct.name().to_string();
    for c in &d.clauses {
        if !matches!(c.kind, ClauseKind::Data { .. }) {
            s.push(' ');
            s.push_str(&c.to_string());
        }
    }
    s
}

/// `copyin(A,B) copy(C)`: the data clauses' names grouped by kind, in order of appearance.
fn data_text(d: &AccDirective) -> Vec<String> {
    let mut groups: Vec<(DataKind, Vec<String>)> = Vec::new();
    for c in &d.clauses {
        if let ClauseKind::Data { kind, vars } = &c.kind {
            let names = vars.iter().map(|v| v.name.name.clone());
            match groups.iter_mut().find(|g| g.0 == *kind) {
                Some(g) => g.1.extend(names),
                None => groups.push((*kind, names.collect())),
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, names)| format!("{}({})", k.name(), names.join(",")))
        .collect()
}

/// The clauses of a loop directive that describe how its loop runs.
fn loop_marks(d: &AccDirective) -> Vec<String> {
    d.clauses
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                ClauseKind::Independent
                    | ClauseKind::Seq
                    | ClauseKind::Auto
                    | ClauseKind::Gang(_)
                    | ClauseKind::Worker(_)
                    | ClauseKind::Vector(_)
                    | ClauseKind::Collapse(_)
                    | ClauseKind::Tile(_)
                    | ClauseKind::Reduction { .. }
                    | ClauseKind::Private(_)
                    | ClauseKind::FirstPrivate(_)
            )
        })
        .map(|c| c.to_string())
        .collect()
}

/// The `for` loops under `s`; `dir` is the loop directive that applies to the first one.
fn loop_forest(s: &Stmt, dir: Option<&AccDirective>, depth: usize) -> Vec<LoopSummary> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    match &s.kind {
        StmtKind::For {
            init, cond, body, ..
        } => vec![LoopSummary {
            var: loop_var(init, cond.as_ref()),
            marks: dir.map(loop_marks).unwrap_or_default(),
            inner: loop_forest(body, None, depth + 1),
        }],
        StmtKind::Acc { dir: d, body, .. } if d.construct == Construct::Loop => {
            loop_forest(body, Some(d), depth + 1)
        }
        StmtKind::Acc { body, .. } => loop_forest(body, None, depth + 1),
        StmtKind::Block(b) => b
            .stmts
            .iter()
            .flat_map(|x| loop_forest(x, None, depth + 1))
            .collect(),
        StmtKind::If { then, els, .. } => {
            let mut v = loop_forest(then, None, depth + 1);
            if let Some(e) = els {
                v.extend(loop_forest(e, None, depth + 1));
            }
            v
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            loop_forest(body, None, depth + 1)
        }
        StmtKind::Unsupported { body: Some(b), .. } => loop_forest(b, None, depth + 1),
        _ => Vec::new(),
    }
}

/// The variable a `for` loop counts with (`?` if there is none to see).
fn loop_var(init: &ForInit, cond: Option<&Expr>) -> String {
    match init {
        ForInit::Decl(d) => {
            if let Some(dec) = d.declarators.first() {
                return dec.name.name.clone();
            }
        }
        ForInit::Expr(e) => {
            let mut e = e;
            // `i = 0, j = 0`: the first one.
            while let ExprKind::Comma(a, _) = &e.kind {
                e = a;
            }
            if let ExprKind::Assign(_, l, _) = &e.kind {
                if let ExprKind::Ident(n) = &l.kind {
                    return n.clone();
                }
            }
        }
        ForInit::None => {}
    }
    if let Some(Expr {
        kind: ExprKind::Binary(_, l, _),
        ..
    }) = cond
    {
        if let ExprKind::Ident(n) = &l.kind {
            return n.clone();
        }
    }
    "?".to_string()
}

#[cfg(test)]
mod tests;
