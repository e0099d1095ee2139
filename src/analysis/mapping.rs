//! Which loops of a nest go to the grid: the placement Q of the paper's notation (the iterators
//! mapped to thread coordinates); the other iterators are the schedule φ (run in order by each
//! thread). Kernel lowering and the partition engine both take the decision from here.

use crate::analysis::dependence::{self, DepInfo};
use crate::ir::{Bound, LoopId, Region};

/// The loops of nest `root` mapped to the grid, outermost first, with their grid dimension
/// (0 = x): the maximal perfectly nested chain of parallel loops starting at the root, at most
/// three. Consecutive threads of a warp differ in x, so the loop on x decides which accesses
/// are coalesced: by default the innermost (which usually walks the last array dimension);
/// another loop of the chain when [`mapping_costs`] counts fewer memory sectors for it (seed
/// 000's thread-geometry permutation: `B[j][i]` in a nest `i { j { … } }`). The others keep
/// their order on y and z.
pub fn grid_mapping(region: &Region, deps: &DepInfo, root: LoopId) -> Vec<(LoopId, u8)> {
    let chain = grid_chain(region, deps, root);
    let x = mapping_costs(region, deps, root)
        .into_iter()
        .min_by_key(|c| c.sectors)
        .map(|c| c.x)
        .filter(|_| permutable(region, &chain));
    dims(
        &chain,
        x.unwrap_or_else(|| chain.last().copied().unwrap_or(root)),
    )
}

/// The grid dimension of each loop of `chain` with `x` on x, the others from the innermost
/// outwards on y and z.
fn dims(chain: &[LoopId], x: LoopId) -> Vec<(LoopId, u8)> {
    let mut next = 1u8;
    let mut out: Vec<(LoopId, u8)> = chain.iter().map(|&l| (l, 0)).collect();
    for (l, d) in out.iter_mut().rev() {
        if *l != x {
            *d = next;
            next += 1;
        }
    }
    out
}

/// The chain of loops that go to the grid (outermost first), before the choice of x.
fn grid_chain(region: &Region, deps: &DepInfo, root: LoopId) -> Vec<LoopId> {
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
        // A body that is one loop, perhaps after statements each work-item may run again
        // (`Loop::prefix`: kernel lowering emits them before the inner loop's body).
        cur = if (lp.perfect || lp.prefix.is_some()) && lp.children.len() == 1 {
            Some(lp.children[0])
        } else {
            None
        };
    }
    chain
}

/// Whether x may go to another loop than the innermost: not when the user's `share` pragma or
/// `cache` directive names block dimensions (`TB_X` means the innermost loop's), nor when a
/// loop's `vector_length` asks for a block along that loop.
fn permutable(region: &Region, chain: &[LoopId]) -> bool {
    region.share.is_none()
        && region.cache.is_empty()
        && chain.len() > 1
        && chain.iter().all(|&l| region.loops[l].vector_len.is_none())
}

/// One candidate loop for x and what a warp's accesses cost with it there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MappingCost {
    pub x: LoopId,
    /// Memory sectors (32 bytes) one warp (32 consecutive x) touches, summed over the nest's
    /// affine array references, each weighted by how often a thread runs it (the constant trip
    /// counts of its loops outside the grid; 16 for a loop whose trip count is not constant).
    pub sectors: u64,
}

/// Lanes of a warp and bytes of a memory sector in the mapping's count: the geometry of NVIDIA
/// GPUs since Fermi and of AMD's (whose 64-wide wavefronts are two such halves). The choice
/// of x depends only on which loop makes accesses contiguous, not on these exact values.
const WARP: u64 = 32;
const SECTOR: u64 = 32;

/// Sectors per warp of every candidate loop for x (the loops of the grid chain, innermost
/// first); empty when the chain has fewer than two loops.
pub fn mapping_costs(region: &Region, deps: &DepInfo, root: LoopId) -> Vec<MappingCost> {
    let chain = grid_chain(region, deps, root);
    if chain.len() < 2 {
        return Vec::new();
    }
    chain
        .iter()
        .rev()
        .map(|&x| {
            let var = region.loops[x].var.as_str();
            let sectors = region
                .accesses
                .iter()
                .filter(|a| a.loops.first() == Some(&root) && a.is_affine())
                .map(|a| {
                    let elem = region.arrays.get(&a.array).map_or(4, |i| i.elem.size()) as u64;
                    let weight: u64 = a
                        .loops
                        .iter()
                        .filter(|l| !chain.contains(l))
                        .map(|&l| trip(region, l).unwrap_or(16).clamp(1, 1 << 16) as u64)
                        .fold(1u64, |w, t| w.saturating_mul(t));
                    warp_sectors(a, var, elem).saturating_mul(weight)
                })
                .fold(0u64, u64::saturating_add);
            MappingCost { x, sectors }
        })
        .collect()
}

/// Sectors one warp touches for reference `a` when consecutive lanes differ by one in `var`.
fn warp_sectors(a: &crate::ir::Access, var: &str, elem: u64) -> u64 {
    let Some((last, rows)) = a.subscripts.split_last() else {
        return 1;
    };
    let coef = |p: &Option<crate::ir::Poly>| p.as_ref().and_then(|p| p.split(var)).map(|(c, _)| c);
    if rows
        .iter()
        .any(|s| coef(s).is_some_and(|c| c.as_const() != Some(0)))
    {
        return WARP;
    }
    match coef(last).map(|c| c.as_const()) {
        None | Some(Some(0)) => 1,
        Some(Some(c)) => (WARP * c.unsigned_abs() * elem).div_ceil(SECTOR).min(WARP),
        Some(None) => WARP,
    }
}

/// The trip count of loop `l` when its bounds are constants.
pub(crate) fn trip(region: &Region, l: LoopId) -> Option<i64> {
    let lp = &region.loops[l];
    let lo = lp.lower.affine()?.as_const()?;
    let hi = lp.upper.affine()?.as_const()?;
    let step = lp.step.unsigned_abs().max(1) as i64;
    let n = if lp.step > 0 { hi - lo } else { lo - hi }.max(0);
    Some((n + step - 1) / step)
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
