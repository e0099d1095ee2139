//! Attachment: the parser's pragma statements become the constructs they stand for.

use super::*;

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
                    // `declare` in a function: a data construct over the rest of the block.
                    Some(Pragma::Acc(d))
                        if d.construct == Construct::Declare && chain.is_empty() =>
                    {
                        let rest: Vec<Stmt> = queue.drain(..).collect();
                        let rest = self.stmts(rest, end, depth);
                        out.push(self.declare_scope(d, s.span, rest, end));
                        continue;
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

    /// A `declare` directive in a function (at `span`), followed by the statements `rest` of its
    /// block (already attached): its data live from the directive to the end of the block
    /// (OpenACC: the end of the scope), so it is a `data` construct whose body is `rest`. A
    /// statement that leaves the block early (`return`, `goto`, a `break`/`continue` of a loop
    /// around it) would skip the end of that lifetime: an error. `end` is the block's closing
    /// brace.
    fn declare_scope(&mut self, d: &AccDirective, span: Span, rest: Vec<Stmt>, end: Span) -> Stmt {
        let (Some(first), Some(last)) = (rest.first(), rest.last()) else {
            self.diags.push(
                Diag::warning(
                    d.construct_span,
                    "`declare` at the end of its block has no effect",
                )
                .with_label(end, "its data would live until here"),
            );
            return Stmt {
                kind: StmtKind::Empty,
                span,
            };
        };
        let body_span = first.span.to(last.span);
        let mut exits = Vec::new();
        for st in &rest {
            early_exits(st, false, 0, &mut exits);
        }
        for (at, what) in exits {
            self.diags.push(
                Diag::error(
                    at,
                    format!("`{what}` leaves the scope of a function-scope `declare` before its data are released"),
                )
                .with_label(d.construct_span, "the data of this `declare` live until the end of its block")
                .note("accshare releases them (and copies `copy`/`copyout` data back) where the block ends")
                .help("end the block normally, or put the directive in a block that ends before the jump"),
            );
        }
        let mut dir = d.clone();
        dir.construct = Construct::Data;
        Stmt {
            kind: StmtKind::Acc {
                dir,
                share: None,
                body: Box::new(Stmt {
                    kind: StmtKind::Block(Block {
                        stmts: rest,
                        span: body_span,
                    }),
                    span: body_span,
                }),
            },
            span: span.to(body_span),
        }
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
                if let ClauseKind::Collapse { n, force } = c.kind {
                    let before = self.diags.0.len();
                    if force {
                        body = self.sink_intervening(c, n, body);
                    }
                    // Code that could not move was reported: the nest is not checked again.
                    if self.diags.0.len() == before {
                        self.check_collapse(&d, c, n, &body);
                    }
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

    /// `collapse(force:n)`: the code between the `n` loops (before and after each inner loop in
    /// its enclosing loop's body) runs in each iteration of the innermost loop, as OpenACC 3.3
    /// says; it is moved there, leaving `n` tightly nested loops. Code that cannot move stays
    /// (with an error): a loop, a directive, a `break`/`continue`/`return`, or a name the inner
    /// loop's header reads.
    fn sink_intervening(&mut self, c: &Clause, n: u32, s: Stmt) -> Stmt {
        if n <= 1 {
            return s;
        }
        let Stmt {
            kind:
                StmtKind::For {
                    init,
                    cond,
                    step,
                    body,
                },
            span,
        } = s
        else {
            return s;
        };
        let rebuild = |body: Stmt| Stmt {
            kind: StmtKind::For {
                init,
                cond,
                step,
                body: Box::new(body),
            },
            span,
        };
        // The body: code before the inner loop, the loop, code after it.
        let (body_span, block_span, mut stmts) = match body.kind {
            StmtKind::Block(b) => (body.span, b.span, b.stmts),
            kind => {
                let one = Stmt {
                    kind,
                    span: body.span,
                };
                let inner = self.sink_intervening(c, n - 1, one);
                return rebuild(inner);
            }
        };
        stmts.retain(|x| !matches!(x.kind, StmtKind::Empty));
        let loops: Vec<usize> = (0..stmts.len())
            .filter(|&i| matches!(stmts[i].kind, StmtKind::For { .. }))
            .collect();
        let [at] = loops[..] else {
            // No inner loop, or several: `check_collapse` reports the nest.
            return rebuild(Stmt {
                kind: StmtKind::Block(Block {
                    stmts,
                    span: block_span,
                }),
                span: body_span,
            });
        };
        let after = stmts.split_off(at + 1);
        let inner = stmts.pop().expect("the inner loop");
        let before = stmts;
        // The inner loops first (their own code moved), then this level's code, into the
        // innermost body.
        let mut inner = self.sink_intervening(c, n - 1, inner);
        if before.is_empty() && after.is_empty() {
            return rebuild(inner);
        }
        let mut header = Vec::new();
        nest_headers(&inner, n - 1, &mut header);
        let mut ok = true;
        for x in before.iter().chain(after.iter()) {
            if let Some((sp, why)) = unmovable(x, &header, 0) {
                ok = false;
                self.diags.push(
                    Diag::error(
                        sp,
                        format!(
                            "this code between the loops of `collapse(force:{n})` cannot run in each iteration of the inner loop: {why}"
                        ),
                    )
                    .with_label(c.span, "collapsed here")
                    .note("`force` runs the code between collapsed loops in each iteration of the innermost loop"),
                );
            }
        }
        if ok {
            if let Some(slot) = innermost_body(&mut inner, n - 1) {
                let old = std::mem::replace(
                    slot.as_mut(),
                    Stmt {
                        kind: StmtKind::Empty,
                        span: body_span,
                    },
                );
                let mut moved = before;
                moved.push(old);
                moved.extend(after);
                **slot = Stmt {
                    kind: StmtKind::Block(Block {
                        stmts: moved,
                        span: block_span,
                    }),
                    span: body_span,
                };
                return rebuild(inner);
            }
            return rebuild(inner);
        }
        let mut stmts = before;
        stmts.push(inner);
        stmts.extend(after);
        rebuild(Stmt {
            kind: StmtKind::Block(Block {
                stmts,
                span: block_span,
            }),
            span: body_span,
        })
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

/// The statements of `s` that leave the block it is in (`return`, `goto`, and `break` or
/// `continue` outside a loop or `switch` of `s`), with their names.
fn early_exits(s: &Stmt, in_loop: bool, depth: usize, out: &mut Vec<(Span, &'static str)>) {
    if depth > MAX_DEPTH {
        return;
    }
    match &s.kind {
        StmtKind::Return(_) => out.push((s.span, "return")),
        StmtKind::Break if !in_loop => out.push((s.span, "break")),
        StmtKind::Continue if !in_loop => out.push((s.span, "continue")),
        StmtKind::Unsupported { what, body, .. } => {
            if what == "goto" {
                out.push((s.span, "goto"));
            }
            if let Some(b) = body {
                early_exits(b, in_loop || what == "switch", depth + 1, out);
            }
        }
        StmtKind::Block(b) => {
            for st in &b.stmts {
                early_exits(st, in_loop, depth + 1, out);
            }
        }
        StmtKind::If { then, els, .. } => {
            early_exits(then, in_loop, depth + 1, out);
            if let Some(e) = els {
                early_exits(e, in_loop, depth + 1, out);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. } => early_exits(body, true, depth + 1, out),
        StmtKind::Acc { body, .. } => early_exits(body, in_loop, depth + 1, out),
        _ => {}
    }
}

/// The identifiers an expression mentions.
fn idents(e: &Expr, out: &mut Vec<String>) {
    out.extend(e.idents())
}

/// Where `e` writes a name of `header` (or calls a function, which might), and what it does.
fn written_or_called(e: &Expr, header: &[String]) -> Option<(Span, String)> {
    // The variable an assignment writes: the base of its target (`c` of `c[x * n]`).
    let target = |t: &Expr| {
        let mut base = t;
        while let ExprKind::Index(a, _)
        | ExprKind::Member { base: a, .. }
        | ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a) = &base.kind
        {
            base = a;
        }
        match &base.kind {
            ExprKind::Ident(n) if header.contains(n) => Some((
                t.span,
                format!("it assigns `{n}`, which the inner loop's header reads"),
            )),
            _ => None,
        }
    };
    match &e.kind {
        ExprKind::Assign(_, a, b) => target(a)
            .or_else(|| written_or_called(a, header))
            .or_else(|| written_or_called(b, header)),
        ExprKind::IncDec { arg, .. } => target(arg).or_else(|| written_or_called(arg, header)),
        ExprKind::Call(f, args) => {
            if !is_math_function(&f.name) {
                return Some((
                    e.span,
                    format!(
                        "it calls `{}`, which might change what the inner loop's header reads",
                        f.name
                    ),
                ));
            }
            args.iter().find_map(|a| written_or_called(a, header))
        }
        ExprKind::IndirectCall(..) => Some((e.span, "it calls a function".to_string())),
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::SizeofExpr(a)
        | ExprKind::Member { base: a, .. } => written_or_called(a, header),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Comma(a, b) => {
            written_or_called(a, header).or_else(|| written_or_called(b, header))
        }
        ExprKind::Cond(a, b, c) => written_or_called(a, header)
            .or_else(|| written_or_called(b, header))
            .or_else(|| written_or_called(c, header)),
        _ => None,
    }
}

/// Why the statement `s`, between collapsed loops, cannot move into the innermost loop's body
/// (at which span), if it cannot: `header` are the names the inner loop's header reads.
fn unmovable(s: &Stmt, header: &[String], depth: usize) -> Option<(Span, String)> {
    if depth > MAX_DEPTH {
        return Some((s.span, "it is nested too deeply".to_string()));
    }
    let mentions = |e: &Expr| written_or_called(e, header);
    match &s.kind {
        StmtKind::Empty => None,
        StmtKind::Expr(e) => mentions(e),
        StmtKind::Decl(d) => d.declarators.iter().find_map(|dec| {
            if header.contains(&dec.name.name) {
                return Some((
                    dec.name.span,
                    format!(
                        "it declares `{}`, which the inner loop's header reads",
                        dec.name.name
                    ),
                ));
            }
            match &dec.init {
                Some(Initializer::Expr(e)) => mentions(e),
                _ => None,
            }
        }),
        StmtKind::Block(b) => b.stmts.iter().find_map(|x| unmovable(x, header, depth + 1)),
        StmtKind::If { cond, then, els } => mentions(cond)
            .or_else(|| unmovable(then, header, depth + 1))
            .or_else(|| els.as_ref().and_then(|e| unmovable(e, header, depth + 1))),
        StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. } => {
            Some((stmt_head(s), "it is a loop".to_string()))
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => {
            Some((s.span, "it leaves the loop it is in".to_string()))
        }
        StmtKind::Acc { .. } | StmtKind::AccStandalone(_) | StmtKind::Pragma(_) => {
            Some((s.span, "it is a directive".to_string()))
        }
        StmtKind::Unsupported { what, .. } => Some((s.span, format!("it is a `{what}`"))),
    }
}

/// The names the headers of the `levels` tightly nested loops from `s` declare or read.
fn nest_headers(s: &Stmt, levels: u32, out: &mut Vec<String>) {
    let mut cur = s;
    for _ in 0..levels {
        let StmtKind::For {
            init,
            cond,
            step,
            body,
        } = &cur.kind
        else {
            return;
        };
        match init {
            ForInit::Decl(d) => {
                for dec in &d.declarators {
                    out.push(dec.name.name.clone());
                    if let Some(Initializer::Expr(e)) = &dec.init {
                        idents(e, out);
                    }
                }
            }
            ForInit::Expr(e) => idents(e, out),
            ForInit::None => {}
        }
        for e in cond.iter().chain(step.iter()) {
            idents(e, out);
        }
        cur = tight_inner(body);
    }
}

/// The body of the innermost of the `levels` tightly nested loops from `s`.
fn innermost_body(s: &mut Stmt, levels: u32) -> Option<&mut Box<Stmt>> {
    let StmtKind::For { body, .. } = &mut s.kind else {
        return None;
    };
    if levels <= 1 {
        return Some(body);
    }
    let only = match &body.kind {
        StmtKind::Block(b) => {
            let mut idx =
                (0..b.stmts.len()).filter(|&i| !matches!(b.stmts[i].kind, StmtKind::Empty));
            let (Some(only), None) = (idx.next(), idx.next()) else {
                return None;
            };
            Some(only)
        }
        _ => None,
    };
    match only {
        Some(i) => match &mut body.kind {
            StmtKind::Block(b) => innermost_body(&mut b.stmts[i], levels - 1),
            _ => None,
        },
        None => innermost_body(body.as_mut(), levels - 1),
    }
}
