//! Which loops of a nest go to the grid: the placement Q of the paper's notation (the iterators
//! mapped to thread coordinates); the other iterators are the schedule φ (run in order by each
//! thread). Kernel lowering and the partition engine both take the decision from here.

use crate::analysis::dependence::{self, DepInfo};
use crate::ir::{Bound, LoopId, Region};

/// The loops of nest `root` mapped to the grid, outermost first, with their grid dimension
/// (0 = x): the maximal perfectly nested chain of parallel loops starting at the root, at most
/// three, the innermost on x (consecutive threads walk the innermost loop, which usually walks
/// the last array dimension: coalesced).
pub fn grid_mapping(region: &Region, deps: &DepInfo, root: LoopId) -> Vec<(LoopId, u8)> {
    let mut chain: Vec<LoopId> = Vec::new();
    let mut cur = Some(root);
    while let Some(l) = cur {
        let Some(lp) = region.loops.get(l.index()) else {
            break;
        };
        if chain.len() == 3
            || !dependence::is_parallel(deps, region, l)
            || !mappable(region, l, &chain)
        {
            break;
        }
        chain.push(l);
        cur = if lp.perfect && lp.children.len() == 1 {
            Some(lp.children[0])
        } else {
            None
        };
    }
    let n = chain.len();
    chain
        .into_iter()
        .enumerate()
        .map(|(i, l)| (l, (n - 1 - i) as u8))
        .collect()
}

/// A loop can go to the grid if its bounds are affine with constant coefficients on the
/// iterators of the loops already mapped, and a descending loop's start does not vary with them.
fn mappable(region: &Region, l: LoopId, chain: &[LoopId]) -> bool {
    let lp = &region.loops[l];
    let outer: Vec<&str> = chain
        .iter()
        .filter_map(|&c| region.loops.get(c.index()).map(|x| x.var.as_str()))
        .collect();
    let ok = |b: &Bound| match b.affine() {
        Some(p) => outer.iter().all(|v| match p.split(v) {
            Some((coef, _)) => coef.as_const().is_some(),
            None => false,
        }),
        None => false,
    };
    if !ok(&lp.lower) || !ok(&lp.upper) {
        return false;
    }
    lp.step > 0
        || outer
            .iter()
            .all(|v| !lp.lower.affine().is_some_and(|p| p.mentions(v)))
}

/// Longest loop with constant bounds whose iterator counts as a constant offset (a stencil's
/// filter loop): its references are staged with a halo instead of strip-mined.
pub const MAX_WINDOW: i64 = 64;

/// A short loop with constant bounds and step ±1 (at most [`MAX_WINDOW`] iterations, at least
/// one): `(min, max)` of its iterator.
pub fn window(region: &Region, l: LoopId) -> Option<(i64, i64)> {
    let lp = &region.loops[l];
    let lo = lp.lower.affine()?.as_const()?;
    let up = lp.upper.affine()?.as_const()?;
    let (min, max) = match lp.step {
        1 => (lo, up - 1),
        -1 => (up + 1, lo),
        _ => return None,
    };
    (min <= max && max - min < MAX_WINDOW).then_some((min, max))
}

/// The strip-mine candidate of a nest whose innermost grid loop is `inner`: loop `l` is a
/// sequential loop of step 1 directly (and unconditionally) in `inner`'s body, whose bounds
/// mention no iterator, and that is not a [`window`] (gemm's `k`, mv's `j`). The partition engine
/// makes its dimensions `*` parameters; staging strip-mines it.
pub fn strip_candidate(region: &Region, inner: LoopId, l: LoopId) -> bool {
    let lp = &region.loops[l];
    let invariant = |b: &Bound| {
        b.affine().is_some_and(|p| {
            p.symbols()
                .iter()
                .all(|s| !region.loops.iter().any(|o| o.var == *s))
        })
    };
    lp.parent == Some(inner)
        && !lp.conditional
        && lp.step == 1
        && invariant(&lp.lower)
        && invariant(&lp.upper)
        && window(region, l).is_none()
}
