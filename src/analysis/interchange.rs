//! Loop interchange of a sequential outer loop with a parallel inner one.
//!
//! Real OpenACC programs put `acc loop` on loops that carry a dependence whose parallel loop is
//! the inner one: a column sum `for (i…) for (j…) mean[j] += data[i][j];` under
//! `parallel loop` on `i`. The dependence makes `i` sequential, and as the outermost loop it
//! leaves the whole nest on one work-item. When every dependence of the nest joins iterations
//! with the same `j` (the direction vectors are all `(*, =)`), running `j` outside `i` keeps
//! the order of every dependence, so the program still computes what its sequential version
//! computes — bit for bit: each `mean[j]` is summed in the same order — and `j` runs on the
//! grid. OpenACC leaves this to the implementation; we do it where it is proven.
//!
//! The rule, for a loop `i` that would run sequentially, perfectly nested in the loops around
//! it (so that `j` can join the grid; the legality is local to `i` and `j`): `i` is perfectly
//! nested with its only child `j`; neither loop has `collapse`, `tile`,
//! `reduction` or `private` clauses; `j` is not marked `seq`; both loops' bounds are affine and
//! `j`'s do not mention `i`. The interchanged region is lowered again and analyzed; it is kept
//! when `j`, now outside `i`, is proven independent (the analysis of a loop fixes only the
//! loops outside it, so this proves that no dependence has a non-zero `j` distance, which is
//! also what makes the interchange legal).

use super::dependence::{self, is_parallel, DepInfo};
use crate::diag::{Diag, Diags, SourceMap};
use crate::ir::lower::{interchange, RegionAst};
use crate::ir::{Bound, LoopId, Marking, Region};

/// Analyzes the region's dependences, interchanging loops as the module describes (the region
/// is rewritten in place; a note says so for each interchange). Returns the dependences of
/// the final region.
pub fn analyze(r: &mut RegionAst, sources: &SourceMap, diags: &mut Diags) -> DepInfo {
    let mut deps = dependence::analyze(&r.ir);
    // Each attempt analyzes the whole region again: a region deeper than any real program's
    // nests (or with very many loops) is left as it is, and the attempts are bounded, so that
    // the cost stays a small multiple of one analysis (a 28-deep nest from the fuzzer took
    // seconds per attempt).
    if r.ir.loops.len() > MAX_LOOPS || r.ir.loops.iter().any(|l| l.depth >= MAX_DEPTH) {
        return deps;
    }
    let mut attempts = 0;
    for _ in 0..r.ir.loops.len() {
        if attempts >= MAX_ATTEMPTS {
            break;
        }
        let Some((next, next_deps, note)) = candidates(&r.ir, &deps)
            .into_iter()
            .take(MAX_ATTEMPTS - attempts)
            .find_map(|(i, j)| {
                attempts += 1;
                try_one(r, &deps, i, j, sources)
            })
        else {
            break;
        };
        *r = next;
        deps = next_deps;
        diags.push(note);
    }
    deps
}

/// Regions with more loops than this are not interchanged.
const MAX_LOOPS: usize = 64;
/// Regions with a loop this deep (or deeper) are not interchanged.
const MAX_DEPTH: usize = 8;
/// Interchanges tried per region (each re-lowers and re-analyzes it).
const MAX_ATTEMPTS: usize = 8;

/// Pairs (outer, only child) that the rule admits, outer loops first.
fn candidates(ir: &Region, deps: &DepInfo) -> Vec<(LoopId, LoopId)> {
    let mut out = Vec::new();
    for o in &ir.loops {
        let (Some(&j), 1) = (o.children.first(), o.children.len()) else {
            continue;
        };
        let Some(inner) = ir.loops.get(j.index()) else {
            continue;
        };
        // `j` can join the grid only when the loops around `i` are perfectly nested.
        let perfect_around = ir
            .loop_path(o.id)
            .into_iter()
            .filter(|&a| a != o.id)
            .all(|a| ir.loops.get(a.index()).is_some_and(|l| l.perfect));
        let clean = |l: &crate::ir::Loop| {
            l.collapse <= 1 && l.reductions.is_empty() && l.private.is_empty()
        };
        let affine = |b: &Bound| matches!(b, Bound::Affine(_));
        let mentions_i = |b: &Bound| matches!(b, Bound::Affine(p) if p.mentions(&o.var));
        if perfect_around
            && !is_parallel(deps, ir, o.id)
            && matches!(o.marking, Marking::Implicit | Marking::Auto)
            && o.perfect
            && !inner.conditional
            && inner.marking != Marking::Seq
            && clean(o)
            && clean(inner)
            && [&o.lower, &o.upper, &inner.lower, &inner.upper]
                .into_iter()
                .all(affine)
            && !mentions_i(&inner.lower)
            && !mentions_i(&inner.upper)
        {
            out.push((o.id, j));
        }
    }
    out
}

/// Interchanges `i` and `j` and keeps the result when `j` is proven independent outside `i`.
fn try_one(
    r: &RegionAst,
    deps: &DepInfo,
    i: LoopId,
    j: LoopId,
    sources: &SourceMap,
) -> Option<(RegionAst, DepInfo, Diag)> {
    let next = interchange(r, i, j, sources)?;
    let next_deps = dependence::analyze(&next.ir);
    let (old_i, old_j) = (r.ir.loops.get(i.index())?, r.ir.loops.get(j.index())?);
    // The new outer loop takes the old outer loop's place in the arena (loops are numbered
    // outer before inner, in program order).
    let new_j = next.ir.loops.get(i.index())?;
    if new_j.var != old_j.var
        || next_deps.loops.get(i.index())?.verdict != dependence::Verdict::Independent
        || !is_parallel(&next_deps, &next.ir, i)
    {
        return None;
    }
    let why = match &deps.loops.get(i.index())?.verdict {
        dependence::Verdict::Carried(_) => "carries a dependence",
        _ => "is not proven independent",
    };
    let note = Diag::info(
        old_i.header_span,
        format!(
            "loops `{}` and `{}` interchanged: `{}` runs in parallel, `{}` in order in each work-item",
            old_i.var, old_j.var, old_j.var, old_i.var
        ),
    )
    .label(format!("`{}` {why}", old_i.var))
    .with_label(
        old_j.header_span,
        format!(
            "no dependence joins different iterations of `{}`",
            old_j.var
        ),
    )
    .note(format!(
        "every dependence of the nest is between iterations of `{}` with the same `{}`, so running `{}` outside keeps the order of each one: the program computes what its sequential version computes",
        old_i.var, old_j.var, old_j.var
    ));
    Some((next, next_deps, note))
}
