//! Adjacent rows: where the outputs of a staged kernel's work-item read overlapping rows (a
//! stencil: Gauss's `in[i + di][…]`, hotspot's `temp[r ± 1][c]`), its RY rows are laid out next
//! to each other (`ly·RY + a`) instead of a launched block apart (`ly + a·TB_Y/RY`), so that
//! the rows its copies read overlap and the device compiler loads each element of the tile once
//! for all of them.
//!
//! Gauss 5×5 on sm_90 (`nvcc -O3`, 4 rows per work-item, the unguarded copy): 100 shared loads
//! and 211 instructions for the work-item's 4 outputs with cyclic rows (each output loads its
//! 25 neighbours), 40 shared loads and 103 instructions with adjacent rows (the 8 rows the four
//! outputs read, 5 elements each; `ptxas` folds the common loads and row sums of the unrolled
//! filter loop). An H200 found that kernel bound by its shared-memory loads.
//!
//! Only the rows move: a warp's lanes still run along x over consecutive elements (coalesced,
//! the banks as the staging planned them), as long as a warp stays within one launched row of
//! work-items (a launched block at least [`MIN_LAUNCHED_X`] wide; narrower, a warp would span
//! rows `RY` apart, whose bank pattern the staging did not plan). Kernels whose reads do not
//! overlap along y (gemm's `A[i][k]`, a transpose) keep the cyclic rows: adjacency gains them
//! nothing.

use crate::ir::{Access, LoopId, Poly, Region};

use super::stage::Unrolled;
use super::Schedule;
#[cfg(test)]
use super::WorkShape;

/// The narrowest launched block along x whose warps lie within one launched row: the warp of
/// every GPU accshare targets is at least 32 lanes, and AMD's 64-wide waves access the local
/// memory by halves of 32.
pub const MIN_LAUNCHED_X: u32 = 32;

/// Most iterations, all together, of the inner sequential loops that adjacent rows unroll (a
/// filter's taps: [`super::stage::StageSpec::unroll_loops`]; 5×5 written as two loops is 25), so
/// that loads common to different iterations of different outputs are loaded once.
pub const UNROLLED_TRIPS: i64 = 32;

/// Lays the rows of staged schedule `s` out adjacent where that lets its outputs share reads
/// (see the module header): several rows per work-item, a plan that allows it
/// ([`super::stage::StageSpec::adjacent_rows`], `--adjacent-rows`), element reads (not a micro-tile's
/// vector runs, not short-word groups), no lanes or grid stride, and a launched block at least
/// [`MIN_LAUNCHED_X`] wide.
pub fn lay_out(ir: &Region, s: &mut Schedule) {
    let eligible = s.shape.rows.get() > 1
        && s.staged().is_some_and(|st| st.adjacent_rows)
        && s.shape.vector <= 1
        && s.shape.layout == super::ColLayout::Cyclic
        && s.words.is_none()
        && s.lanes.is_none()
        && s.stride.is_none()
        && s.launch_block()[0] >= MIN_LAUNCHED_X;
    let overlap = eligible.then(|| overlap(ir, s)).flatten();
    s.shape.adjacent_rows = overlap.is_some();
    let unroll = overlap
        .map(|along| unrolled(ir, s, &along))
        .unwrap_or_default();
    if let Some(st) = s.stage.as_mut() {
        st.unroll_loops = unroll;
    }
}

/// The loops adjacent rows unroll: the nest's innermost sequential loop and the loops around it
/// up to the outermost one the rows' shared reads move along (`along`: `di` of a filter written
/// `for di … for dj …`; the innermost loop alone where none does), outermost first, where
/// each has a constant trip count and all together at most [`UNROLLED_TRIPS`] iterations;
/// otherwise the innermost ones that do. Never the strip-mined loop: lowering builds it over
/// one strip.
fn unrolled(ir: &Region, s: &Schedule, along: &[LoopId]) -> Vec<Unrolled> {
    let Some(inner) = super::regs::inner_sequential(ir, s) else {
        return Vec::new();
    };
    let grid: Vec<LoopId> = s.grid.iter().map(|g| g.loop_id).collect();
    let strip = s
        .staged()
        .and_then(|st| st.strip.as_ref())
        .map(|x| x.loop_id);
    // The sequential loops from `inner` outwards within the nest.
    let mut chain = vec![inner];
    while let Some(p) = ir.loops[*chain.last().unwrap()].parent {
        if grid.contains(&p) || !in_nest(ir, s.root, p) {
            break;
        }
        chain.push(p);
    }
    let reach = chain
        .iter()
        .rposition(|l| along.contains(l))
        .map_or(1, |i| i + 1);
    let mut iterations = 1;
    let mut loops = Vec::new();
    for &l in &chain[..reach] {
        match crate::analysis::mapping::trip(ir, l) {
            Some(trips)
                if trips >= 1 && iterations * trips <= UNROLLED_TRIPS && strip != Some(l) =>
            {
                iterations *= trips;
                loops.push(Unrolled {
                    loop_id: l,
                    var: ir.loops[l].var.clone(),
                    trips,
                });
            }
            _ => break,
        }
    }
    loops.reverse();
    loops
}

/// Whether loop `l` is `root` or inside it.
fn in_nest(ir: &Region, root: LoopId, l: LoopId) -> bool {
    let mut at = Some(l);
    while let Some(x) = at {
        if x == root {
            return true;
        }
        at = ir.loops[x].parent;
    }
    false
}

/// Whether two outputs of nest `s.root` adjacent along y (fewer than `s.shape.rows` rows apart)
/// read a common row of some array: see [`overlap`].
pub fn rows_overlap(ir: &Region, s: &Schedule) -> bool {
    overlap(ir, s).is_some()
}

/// Where two outputs of nest `s.root` adjacent along y (fewer than `s.shape.rows` rows apart)
/// read a common row of some array, the sequential loops of the nest the common rows move
/// along (empty where they differ by constants only); `None` where they read none. Reads of
/// one array overlap where their y subscripts (those on the y grid loop's iterator, with a
/// constant coefficient `c`) differ by a multiple of `c` under `c · RY`, or one moves along a
/// sequential loop of the nest by such a step.
fn overlap(ir: &Region, s: &Schedule) -> Option<Vec<LoopId>> {
    let y = s.grid.iter().find(|g| g.dim == 1)?;
    let yvar = ir.loops[y.loop_id].var.as_str();
    let reach = s.shape.rows.get() as i64;
    let grid: Vec<_> = s.grid.iter().map(|g| g.loop_id).collect();
    let mut found = false;
    let mut along = Vec::new();
    // Per array: the y subscripts' coefficient and the rest of each subscript.
    let mut rests: Vec<(&str, i64, Poly)> = Vec::new();
    for a in nest_reads(ir, s) {
        for p in a.subscripts.iter().flatten() {
            let Some((coef, rest)) = p.split(yvar) else {
                continue;
            };
            let Some(c) = coef.as_const().filter(|&c| c != 0) else {
                continue;
            };
            let overlaps = |d: i64| d != 0 && d % c == 0 && (d / c).abs() < reach;
            // Along a sequential loop of the nest: steps of its coefficient.
            for l in a.loops.iter().filter(|l| !grid.contains(l)) {
                let lp = &ir.loops[*l];
                let Some((k, _)) = rest.split(&lp.var) else {
                    continue;
                };
                let Some(k) = k.as_const().filter(|&k| k != 0) else {
                    continue;
                };
                let trips = crate::analysis::mapping::trip(ir, *l).unwrap_or(i64::MAX);
                let step = k * lp.step;
                if (1..trips.min(reach * c.abs() + 1)).any(|m| overlaps(step * m)) {
                    found = true;
                    if !along.contains(l) {
                        along.push(*l);
                    }
                }
            }
            for (arr, c2, r2) in &rests {
                if *arr == a.array && *c2 == c {
                    if let Some(d) = rest.sub(r2).and_then(|d| d.as_const()) {
                        found |= overlaps(d);
                    }
                }
            }
            rests.push((a.array.as_str(), c, rest));
        }
    }
    found.then_some(along)
}

/// The affine reads of nest `s.root`.
fn nest_reads<'a>(ir: &'a Region, s: &Schedule) -> impl Iterator<Item = &'a Access> {
    let root = s.root;
    ir.accesses
        .iter()
        .filter(move |a| a.reads() && a.loops.first() == Some(&root) && a.is_affine())
}

/// The distinct elements the copies of one work-item of `s` load per iteration of the nest's
/// innermost sequential loop `inner` (per output computed once, without one), from the affine
/// reads `reads`: each read is evaluated at every copy's grid point (`Schedule::copy_offset`)
/// and, where the schedule unrolls `inner` and the loops around it
/// ([`super::stage::StageSpec::unroll_loops`]), at each of their iterations; equal elements count once (the device
/// compiler loads them once: the reads are of tiles and read-only arrays, and nothing the
/// kernel stores in between aliases them).
pub fn distinct_loads<'a>(
    ir: &Region,
    s: &Schedule,
    inner: Option<LoopId>,
    reads: impl Iterator<Item = &'a Access>,
) -> f64 {
    let (rows, cols) = s.shape.tile();
    let var = |dim: u8| {
        s.grid
            .iter()
            .find(|g| g.dim == dim)
            .map(|g| (ir.loops[g.loop_id].var.as_str(), ir.loops[g.loop_id].step))
    };
    let (y, x) = (var(1), var(0));
    // The unrolled loops (none where they do not end at `inner`).
    let unrolled: &[Unrolled] = s
        .staged()
        .map(|st| st.unroll_loops.as_slice())
        .filter(|u| inner.is_some() && u.last().map(|u| u.loop_id) == inner)
        .unwrap_or_default();
    let iterations: i64 = unrolled.iter().map(|u| u.trips).product();
    let shift = |p: &Poly, v: Option<(&str, i64)>, by: i64| -> Option<Poly> {
        match v {
            Some((name, step)) if p.mentions(name) => {
                let moved = Poly::var(name).add(&Poly::constant(by * step))?;
                p.substitute(name, &moved)
            }
            _ => Some(p.clone()),
        }
    };
    // Iteration `m` of the unrolled loops together (the innermost fastest) moves each
    // loop's iterator by its own number of steps.
    let at_iteration = |p: &Poly, m: i64| -> Option<Poly> {
        let mut rest = m;
        let mut p = p.clone();
        for u in unrolled.iter().rev() {
            let step = ir.loops[u.loop_id].step;
            p = shift(&p, Some((u.var.as_str(), step)), rest % u.trips)?;
            rest /= u.trips;
        }
        Some(p)
    };
    let mut seen: std::collections::BTreeSet<(&str, Vec<Poly>)> = Default::default();
    let mut opaque = 0.0;
    for a in reads {
        for r in 0..rows {
            for c in 0..cols {
                let dy = s.copy_offset(1, r) as i64;
                let dx = s.copy_offset(0, c) as i64;
                for m in 0..iterations {
                    let at: Option<Vec<Poly>> = a
                        .subscripts
                        .iter()
                        .map(|p| at_iteration(&shift(&shift(p.as_ref()?, y, dy)?, x, dx)?, m))
                        .collect();
                    match at {
                        Some(at) => {
                            seen.insert((a.array.as_str(), at));
                        }
                        None => opaque += 1.0,
                    }
                }
            }
        }
    }
    (seen.len() as f64 + opaque) / iterations as f64
}

/// Per array the nest of `s` reads with affine subscripts inside its innermost sequential loop
/// `inner` (anywhere in the nest, without one), in the order first read: the distinct elements
/// those reads load per iteration over the copies of a work-item ([`distinct_loads`]).
pub fn distinct_loads_per_array<'a>(
    ir: &'a Region,
    s: &Schedule,
    inner: Option<LoopId>,
) -> Vec<(&'a str, f64)> {
    let reads = |name: Option<&'a str>| {
        nest_reads(ir, s).filter(move |a| {
            inner.is_none_or(|l| a.loops.contains(&l)) && name.is_none_or(|n| a.array == n)
        })
    };
    let mut names: Vec<&'a str> = Vec::new();
    for a in reads(None) {
        if !names.contains(&a.array.as_str()) {
            names.push(&a.array);
        }
    }
    names
        .into_iter()
        .map(|n| (n, distinct_loads(ir, s, inner, reads(Some(n)))))
        .collect()
}

#[cfg(test)]
pub(super) mod tests;
