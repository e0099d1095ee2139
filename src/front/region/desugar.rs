//! Rewrites, inside compute regions (routines inlined), forms the kernels do not take into
//! equivalent ones they do:
//!
//! - a chain of assignments as a statement, `s += c[i] = a[i] + b[i];`, becomes one statement per
//!   assignment, innermost first (`c[i] = a[i] + b[i]; s += c[i];`): the value of an assignment
//!   is its target's new value, read back from the target (which must have no side effects);
//! - a `switch` becomes an `if`/`else if` chain: each `case` runs its statements and those of the
//!   cases it falls through to, up to a `break`; `default` is the last `else`. The controlling
//!   expression is evaluated once per comparison (it must have no side effects; no branch runs
//!   before the one that matches). A `switch` this cannot express (a `break` inside an `if` of a
//!   case, statements before the first label, a declaration among a case's statements) stays,
//!   and `validate` reports it;
//! - a scalar declared at the top level of a `parallel` construct (private to each gang) that
//!   one loop alone uses, a loop whose iterations are independent (not `seq`), is declared in
//!   that loop's body instead (private to each iteration: the gangs' values as if each iteration
//!   ran on a gang of its own). Its initializer, if any, must be a constant expression or the
//!   loop must follow the declaration, must have no side effects and must not name the loop's
//!   variable;
//! - `acc_on_device(t)` is `t != acc_device_host && t != acc_device_none` (the runtime's model:
//!   every other device type names the devices accshare runs on, as `acc_get_num_devices` counts
//!   them), the `acc_device_*` constants spelled as their values.

use super::*;
use crate::vocab::BinOp;

/// Rewrites the compute regions of every function of `tu`.
pub fn desugar(tu: &mut TranslationUnit) {
    for item in &mut tu.items {
        if let ItemKind::Function(f) = &mut item.kind {
            for s in &mut f.body.stmts {
                walk(s, false, 0);
            }
        }
    }
}

fn walk(s: &mut Stmt, inside: bool, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let inside =
        inside || matches!(&s.kind, StmtKind::Acc { dir, .. } if dir.construct.is_compute());
    if inside {
        rewrite(s);
    }
    if let StmtKind::Acc { dir, body, .. } = &mut s.kind {
        if dir.construct == Construct::Parallel {
            if let StmtKind::Block(b) = &mut body.kind {
                sink_declarations(b);
            }
        }
    }
    match &mut s.kind {
        StmtKind::Block(b) => b.stmts.iter_mut().for_each(|x| walk(x, inside, depth + 1)),
        StmtKind::If { then, els, .. } => {
            walk(then, inside, depth + 1);
            if let Some(e) = els {
                walk(e, inside, depth + 1);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Acc { body, .. }
        | StmtKind::Unsupported {
            body: Some(body), ..
        } => walk(body, inside, depth + 1),
        _ => {}
    }
}

/// Rewrites `s` itself when it is an assignment chain or a `switch` that can be rewritten.
fn rewrite(s: &mut Stmt) {
    on_device_stmt(s);
    let new = match &s.kind {
        StmtKind::Expr(e) => assignment_chain(e, s.span),
        StmtKind::Unsupported {
            what,
            body: Some(body),
            args,
        } if what == "switch" && args.len() == 1 => switch_chain(&args[0], body, s.span),
        _ => None,
    };
    if let Some(kind) = new {
        s.kind = kind;
    }
}

/// Whether evaluating `e` changes nothing (no assignment, `++`/`--` or call).
fn pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Assign(..)
        | ExprKind::IncDec { .. }
        | ExprKind::Call(..)
        | ExprKind::IndirectCall(..)
        | ExprKind::CompoundLit(..)
        | ExprKind::Comma(..) => false,
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::SizeofExpr(a)
        | ExprKind::Member { base: a, .. } => pure(a),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => pure(a) && pure(b),
        ExprKind::Cond(a, b, c) => pure(a) && pure(b) && pure(c),
        _ => true,
    }
}

/// `t1 op1= t2 op2= … = e;` as one statement per assignment, when the chain has at least two
/// and every target but the first is pure.
fn assignment_chain(e: &Expr, span: Span) -> Option<StmtKind> {
    let mut links: Vec<(&Expr, Option<BinOp>, &Expr)> = Vec::new();
    let mut cur = e;
    while let ExprKind::Assign(op, target, value) = &cur.kind {
        links.push((cur, *op, target));
        cur = value;
    }
    if links.len() < 2 || links[1..].iter().any(|(_, _, t)| !pure(t)) {
        return None;
    }
    let mut stmts = Vec::new();
    let mut value = cur.clone();
    for (whole, op, target) in links.into_iter().rev() {
        stmts.push(Stmt {
            kind: StmtKind::Expr(Expr::new(
                ExprKind::Assign(op, Box::new(target.clone()), Box::new(value)),
                whole.span,
            )),
            span: whole.span,
        });
        value = target.clone();
    }
    Some(StmtKind::Block(Block { stmts, span }))
}

/// A label of a `switch`: its values (one, or a GNU range), or `default`.
enum Label<'a> {
    Case(&'a [Expr]),
    Default,
}

/// The `if` chain a `switch (cond) body` stands for, when it can be written so.
fn switch_chain(cond: &Expr, body: &Stmt, span: Span) -> Option<StmtKind> {
    if !pure(cond) {
        return None;
    }
    let items: &[Stmt] = match &body.kind {
        StmtKind::Block(b) => &b.stmts,
        _ => std::slice::from_ref(body),
    };
    // The cases: their labels and statements, in order.
    let mut cases: Vec<(Vec<Label<'_>>, Vec<&Stmt>)> = Vec::new();
    for item in items {
        let mut s = item;
        let mut labels = Vec::new();
        while let StmtKind::Unsupported {
            what,
            body: Some(b),
            args,
        } = &s.kind
        {
            match what.as_str() {
                "case" if !args.is_empty() => labels.push(Label::Case(args)),
                "default" => labels.push(Label::Default),
                _ => break,
            }
            s = b;
        }
        if !labels.is_empty() {
            cases.push((labels, Vec::new()));
        }
        match cases.last_mut() {
            Some((_, stmts)) => stmts.push(s),
            None if matches!(s.kind, StmtKind::Empty) => {}
            // Statements before the first label.
            None => return None,
        }
    }
    // What each case runs: its statements and the following cases' up to a `break`.
    let mut runs: Vec<Vec<Stmt>> = Vec::new();
    for (_, stmts) in &cases {
        for s in stmts {
            if matches!(s.kind, StmtKind::Decl(_)) || breaks_inside(s, 0) {
                return None;
            }
        }
    }
    for i in 0..cases.len() {
        let mut run = Vec::new();
        'cases: for (_, stmts) in &cases[i..] {
            for s in stmts {
                if matches!(s.kind, StmtKind::Break) {
                    break 'cases;
                }
                run.push((*s).clone());
            }
        }
        runs.push(run);
    }
    let block = |stmts: Vec<Stmt>| Stmt {
        kind: StmtKind::Block(Block { stmts, span }),
        span,
    };
    let mut chain: Option<Stmt> = cases
        .iter()
        .position(|(labels, _)| labels.iter().any(|l| matches!(l, Label::Default)))
        .map(|d| block(runs[d].clone()));
    for (i, (labels, _)) in cases.iter().enumerate().rev() {
        let tests: Vec<Expr> = labels
            .iter()
            .filter_map(|l| match l {
                Label::Case(v) => Some(case_test(cond, v)),
                Label::Default => None,
            })
            .collect();
        let Some(test) = tests
            .into_iter()
            .reduce(|a, b| bin(BinOp::LogOr, a, b, cond.span))
        else {
            continue;
        };
        chain = Some(Stmt {
            kind: StmtKind::If {
                cond: test,
                then: Box::new(block(runs[i].clone())),
                els: chain.map(Box::new),
            },
            span,
        });
    }
    Some(chain.map_or(StmtKind::Empty, |c| c.kind))
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span)
}

/// `cond == v`, or `cond >= lo && cond <= hi` for a GNU range.
fn case_test(cond: &Expr, values: &[Expr]) -> Expr {
    match values {
        [lo, hi] => bin(
            BinOp::LogAnd,
            bin(BinOp::Ge, cond.clone(), lo.clone(), lo.span),
            bin(BinOp::Le, cond.clone(), hi.clone(), hi.span),
            lo.span,
        ),
        [v, ..] => bin(BinOp::Eq, cond.clone(), v.clone(), v.span),
        [] => cond.clone(),
    }
}

/// Whether `s` holds a `break` of the `switch` it is in other than as a statement of its own
/// (inside an `if` or a block): the `if` chain has no place to leave from.
fn breaks_inside(s: &Stmt, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match &s.kind {
        StmtKind::Break => depth > 0,
        StmtKind::Block(b) => b.stmts.iter().any(|x| breaks_inside(x, depth + 1)),
        StmtKind::If { then, els, .. } => {
            breaks_inside(then, depth + 1)
                || els.as_ref().is_some_and(|e| breaks_inside(e, depth + 1))
        }
        StmtKind::Acc { body, .. } => breaks_inside(body, depth + 1),
        // A label inside a case's statements (`case` in a nested block): not rewritten.
        StmtKind::Unsupported { what, body, .. } => {
            matches!(what.as_str(), "case" | "default")
                || (what != "switch" && body.as_ref().is_some_and(|b| breaks_inside(b, depth + 1)))
        }
        // Loops and nested switches own their `break`s.
        _ => false,
    }
}

/// Moves the declarations at the top level of a `parallel` construct's block into the one loop
/// that uses them, where they can move (see the module's documentation).
fn sink_declarations(b: &mut Block) {
    let mut i = 0;
    while i < b.stmts.len() {
        if let Some(j) = sink_target(&b.stmts, i) {
            let decl = b.stmts.remove(i);
            let target = &mut b.stmts[j - 1];
            let for_stmt = match &mut target.kind {
                StmtKind::Acc { body, .. } => body.as_mut(),
                _ => target,
            };
            if let StmtKind::For { body, .. } = &mut for_stmt.kind {
                let span = body.span;
                let old = std::mem::replace(
                    body.as_mut(),
                    Stmt {
                        kind: StmtKind::Empty,
                        span,
                    },
                );
                **body = Stmt {
                    kind: StmtKind::Block(Block {
                        stmts: vec![decl, old],
                        span,
                    }),
                    span,
                };
            }
            continue;
        }
        i += 1;
    }
}

/// The index of the loop the declaration `stmts[i]` can move into, if it can.
fn sink_target(stmts: &[Stmt], i: usize) -> Option<usize> {
    let StmtKind::Decl(d) = &stmts[i].kind else {
        return None;
    };
    if d.storage != Storage::None
        || d.declarators.is_empty()
        || d.declarators
            .iter()
            .any(|x| !matches!(x.ty, CType::Scalar(_)))
    {
        return None;
    }
    let names: Vec<&str> = d.declarators.iter().map(|x| x.name.name.as_str()).collect();
    let users: Vec<usize> = (0..stmts.len())
        .filter(|&j| j != i && stmt_mentions(&stmts[j], &names, 0))
        .collect();
    let [j] = users[..] else {
        return None;
    };
    if j < i {
        return None;
    }
    let for_stmt = match &stmts[j].kind {
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Loop => {
            let named = dir.clauses.iter().any(|c| match &c.kind {
                ClauseKind::Seq => true,
                ClauseKind::Private(_) => false,
                k => {
                    let text = ClauseText(k).to_string();
                    names.iter().any(|n| mentions_word(&text, n))
                }
            });
            if named {
                return None;
            }
            body.as_ref()
        }
        _ => &stmts[j],
    };
    let StmtKind::For { init, .. } = &for_stmt.kind else {
        return None;
    };
    let loop_vars: Vec<&str> = match init {
        ForInit::Decl(d) => d.declarators.iter().map(|x| x.name.name.as_str()).collect(),
        _ => Vec::new(),
    };
    for dec in &d.declarators {
        match &dec.init {
            None => {}
            Some(Initializer::Expr(e)) => {
                let mut used = Vec::new();
                names_in(e, &mut used);
                if !pure(e)
                    || used.iter().any(|u| loop_vars.contains(&u.as_str()))
                    || (!used.is_empty() && j != i + 1)
                {
                    return None;
                }
            }
            Some(_) => return None,
        }
    }
    Some(j)
}

/// A clause as text (to find a name among its arguments).
struct ClauseText<'a>(&'a ClauseKind);

impl fmt::Display for ClauseText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Whether `text` has `word` as a whole identifier.
fn mentions_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

/// The identifiers `e` names; a non-empty compound literal also gives the empty name
/// (conservatively: any name at all).
fn names_in(e: &Expr, out: &mut Vec<String>) {
    e.walk(&mut |x| match &x.kind {
        ExprKind::Ident(n) => out.push(n.clone()),
        ExprKind::CompoundLit(_, inits) if !inits.is_empty() => out.push(String::new()),
        _ => {}
    })
}

/// Whether `s` (its directives' clauses included) names one of `names`.
fn stmt_mentions(s: &Stmt, names: &[&str], depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let expr = |e: &Expr| {
        let mut v = Vec::new();
        names_in(e, &mut v);
        v.iter()
            .any(|n| n.is_empty() || names.contains(&n.as_str()))
    };
    let dir = |d: &AccDirective| {
        let text = d.to_string();
        names.iter().any(|n| mentions_word(&text, n))
    };
    let decl = |d: &Declaration| {
        d.declarators.iter().any(|x| {
            names.contains(&x.name.name.as_str())
                || match &x.init {
                    Some(Initializer::Expr(e)) => expr(e),
                    Some(_) => true,
                    None => false,
                }
        })
    };
    match &s.kind {
        StmtKind::Decl(d) => decl(d),
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr(e),
        StmtKind::Block(b) => b.stmts.iter().any(|x| stmt_mentions(x, names, depth + 1)),
        StmtKind::If { cond, then, els } => {
            expr(cond)
                || stmt_mentions(then, names, depth + 1)
                || els
                    .as_ref()
                    .is_some_and(|e| stmt_mentions(e, names, depth + 1))
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            (match init {
                ForInit::Decl(d) => decl(d),
                ForInit::Expr(e) => expr(e),
                ForInit::None => false,
            }) || cond.as_ref().is_some_and(expr)
                || step.as_ref().is_some_and(expr)
                || stmt_mentions(body, names, depth + 1)
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr(cond) || stmt_mentions(body, names, depth + 1)
        }
        StmtKind::Acc { dir: d, body, .. } => dir(d) || stmt_mentions(body, names, depth + 1),
        StmtKind::AccStandalone(d) => dir(d),
        StmtKind::Unsupported { body, args, .. } => {
            args.iter().any(expr)
                || body
                    .as_ref()
                    .is_some_and(|b| stmt_mentions(b, names, depth + 1))
        }
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Empty
        | StmtKind::Pragma(_) => false,
    }
}

/// The values of OpenACC's `acc_device_t` (the prelude's `openacc.h`).
fn device_constant(name: &str) -> Option<u64> {
    Some(match name {
        "acc_device_none" => 0,
        "acc_device_default" => 1,
        "acc_device_host" => 2,
        "acc_device_not_host" => 3,
        "acc_device_nvidia" => 4,
        "acc_device_radeon" => 5,
        _ => return None,
    })
}

/// Rewrites the `acc_on_device(t)` calls in the expressions of statement `s` itself (not its
/// sub-statements, which `walk` visits).
fn on_device_stmt(s: &mut Stmt) {
    match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => on_device(e),
        StmtKind::If { cond, .. }
        | StmtKind::While { cond, .. }
        | StmtKind::DoWhile { cond, .. } => on_device(cond),
        StmtKind::For {
            init, cond, step, ..
        } => {
            match init {
                ForInit::Expr(e) => on_device(e),
                ForInit::Decl(d) => decl_on_device(d),
                ForInit::None => {}
            }
            for e in cond.iter_mut().chain(step.iter_mut()) {
                on_device(e);
            }
        }
        StmtKind::Decl(d) => decl_on_device(d),
        _ => {}
    }
}

fn decl_on_device(d: &mut Declaration) {
    for x in &mut d.declarators {
        if let Some(Initializer::Expr(e)) = &mut x.init {
            on_device(e);
        }
    }
}

/// `acc_on_device(t)` in `e` as `(t != 2 && t != 0)` (`t` without side effects, its
/// `acc_device_*` names as their values).
fn on_device(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Call(f, args) if f.name == "acc_on_device" && args.len() == 1 => {
            let mut t = args[0].clone();
            spell_devices(&mut t);
            if !pure(&t) {
                return;
            }
            let sp = e.span;
            let int = |v: u64| {
                Expr::new(
                    ExprKind::Int {
                        value: v,
                        suffix: Default::default(),
                        radix: 10,
                    },
                    sp,
                )
            };
            *e = bin(
                BinOp::LogAnd,
                bin(BinOp::Ne, t.clone(), int(2), sp),
                bin(BinOp::Ne, t, int(0), sp),
                sp,
            );
        }
        _ => e.for_each_child_mut(&mut on_device),
    }
}

/// The `acc_device_*` names in `e` as their values.
fn spell_devices(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Ident(n) => {
            if let Some(v) = device_constant(n) {
                e.kind = ExprKind::Int {
                    value: v,
                    suffix: Default::default(),
                    radix: 10,
                };
            }
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => spell_devices(a),
        ExprKind::Binary(_, a, b) => {
            spell_devices(a);
            spell_devices(b);
        }
        ExprKind::Cond(a, b, c) => {
            spell_devices(a);
            spell_devices(b);
            spell_devices(c);
        }
        _ => {}
    }
}
