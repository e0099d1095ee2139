//! The mechanics of interchanging two perfectly nested loops of a region (the decision, and the
//! proof that it is legal, are the analysis stage's: `analysis::interchange`).
//!
//! `for (i…) { for (j…) body }` becomes `for (j…) { for (i…) body }`: the two `for` headers
//! trade places, the directives stay where they are. The outer directive (the combined
//! construct's or the outer `loop`'s) applies to `j` afterwards; the inner one applies to `i`,
//! without the clauses that said something about `j`'s iterations (`independent`, `seq`,
//! `auto`, `gang`, `worker`, `vector`).
//!
//! Spans: the new outer `for` spans from `j`'s `for` to the end of the nest and the new inner one
//! from `i`'s `for` to the end of `j`'s body, so that each header span (from `for` to the
//! closing parenthesis) is the loop's own header in the source, messages point at the right
//! text, and the two statements keep distinct spans (code generation finds loops by span).

use super::*;

/// The region with loop `outer` and its only child `inner` interchanged, lowered again; `None`
/// when the nest is not of that shape or lowering the result reports an error.
pub fn interchange(
    r: &RegionAst,
    outer: LoopId,
    inner: LoopId,
    sources: &SourceMap,
) -> Option<RegionAst> {
    let (o, i) = (
        r.ir.loops.get(outer.index())?,
        r.ir.loops.get(inner.index())?,
    );
    if i.parent != Some(outer) || has_tile(&r.dir) {
        return None;
    }
    let mut body = r.body.clone();
    if !swap_at(&mut body, o.span, i.span) {
        return None;
    }
    // The symbols visible at the construct (those the region names), as a scope to lower in.
    let mut scope = Scope::default();
    scope.push();
    for s in r.scope.values() {
        scope.declare(s.clone());
    }
    let mut scratch = Diags::default();
    let ir = RegionBuilder::new(&r.ir.func, &r.dir, r.ir.share.clone(), &scope, sources)
        .build(&body, &mut scratch);
    if scratch.has_errors() {
        return None;
    }
    Some(RegionAst {
        ir,
        body,
        ..r.clone()
    })
}

/// Finds the `for` statement spanning `outer` inside `s` and interchanges it with its child.
fn swap_at(s: &mut Stmt, outer: Span, inner: Span) -> bool {
    if s.span == outer && matches!(s.kind, StmtKind::For { .. }) {
        return swap_for(s, inner);
    }
    match &mut s.kind {
        StmtKind::Block(b) => b.stmts.iter_mut().any(|x| swap_at(x, outer, inner)),
        StmtKind::Acc { dir, body, .. } => {
            !(body.span == outer && has_tile(dir)) && swap_at(body, outer, inner)
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. } => swap_at(body, outer, inner),
        StmtKind::If { then, els, .. } => {
            swap_at(then, outer, inner) || els.as_mut().is_some_and(|e| swap_at(e, outer, inner))
        }
        _ => false,
    }
}

/// The only statement of a loop body that is not empty or a standalone directive, through
/// blocks.
fn only_stmt(s: &mut Stmt) -> Option<&mut Stmt> {
    if !matches!(s.kind, StmtKind::Block(_)) {
        return Some(s);
    }
    let StmtKind::Block(b) = &mut s.kind else {
        return None;
    };
    let mut real = b
        .stmts
        .iter_mut()
        .filter(|s| !matches!(s.kind, StmtKind::Empty | StmtKind::AccStandalone(_)));
    let first = real.next()?;
    if real.next().is_some() {
        return None;
    }
    only_stmt(first)
}

/// `tile(…)` ties the two loops together: they are not interchanged.
fn has_tile(dir: &AccDirective) -> bool {
    dir.has(|c| matches!(c, ClauseKind::Tile(_)))
}

/// Clauses of the inner directive that describe the inner loop's iterations, dropped when the
/// directive moves to the other loop.
fn about_iterations(k: &ClauseKind) -> bool {
    matches!(
        k,
        ClauseKind::Independent
            | ClauseKind::Seq
            | ClauseKind::Auto
            | ClauseKind::Gang(_)
            | ClauseKind::Worker(_)
            | ClauseKind::Vector(_)
    )
}

fn swap_for(s: &mut Stmt, inner: Span) -> bool {
    let outer_span = s.span;
    let StmtKind::For {
        init: oi,
        cond: oc,
        step: os,
        body: ob,
    } = &mut s.kind
    else {
        return false;
    };
    let Some(wrapper) = only_stmt(ob) else {
        return false;
    };
    let f = match &mut wrapper.kind {
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Loop => {
            if body.span != inner || has_tile(dir) {
                return false;
            }
            dir.clauses.retain(|c| !about_iterations(&c.kind));
            &mut **body
        }
        StmtKind::For { .. } => wrapper,
        _ => return false,
    };
    if f.span != inner {
        return false;
    }
    let inner_span = f.span;
    let StmtKind::For {
        init: ii,
        cond: ic,
        step: is,
        body: ib,
    } = &mut f.kind
    else {
        return false;
    };
    std::mem::swap(oi, ii);
    std::mem::swap(oc, ic);
    std::mem::swap(os, is);
    let inner_body_lo = ib.span.lo;
    f.span = Span {
        lo: outer_span.lo,
        ..inner_span
    };
    ob.span = Span {
        lo: ob.span.lo.max(inner_body_lo),
        ..ob.span
    };
    s.span = Span {
        lo: inner_span.lo,
        ..outer_span
    };
    true
}
