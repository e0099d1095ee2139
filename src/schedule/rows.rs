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

use super::Schedule;
#[cfg(test)]
use super::WorkShape;

/// The narrowest launched block along x whose warps lie within one launched row: the warp of
/// every GPU accshare targets is at least 32 lanes, and AMD's 64-wide waves access the local
/// memory by halves of 32.
pub const MIN_LAUNCHED_X: u32 = 32;

/// Most iterations of an inner sequential loop of constant trip count that adjacent rows unroll
/// (a filter's taps: [`super::stage::StageSpec::unroll_loop`]), so that loads common to
/// different iterations of different outputs are loaded once.
pub const UNROLLED_TRIPS: i64 = 16;

/// Lays the rows of staged schedule `s` out adjacent where that lets its outputs share reads
/// (see the module header): several rows per work-item, a plan that allows it
/// ([`super::stage::StageSpec::adjacent_rows`], `--adjacent-rows`), element reads (not a micro-tile's
/// vector runs, not short-word groups), no lanes or grid stride, and a launched block at least
/// [`MIN_LAUNCHED_X`] wide.
pub fn lay_out(ir: &Region, s: &mut Schedule) {
    let adjacent = s.shape.rows.get() > 1
        && s.staged().is_some_and(|st| st.adjacent_rows)
        && s.shape.vector <= 1
        && s.shape.layout == super::ColLayout::Cyclic
        && s.words.is_none()
        && s.lanes.is_none()
        && s.stride.is_none()
        && s.launch_block()[0] >= MIN_LAUNCHED_X
        && rows_overlap(ir, s);
    s.shape.adjacent_rows = adjacent;
    // The inner loop the shared reads move along, unrolled where its trip count is small.
    let unroll = adjacent
        .then(|| super::regs::inner_sequential(ir, s))
        .flatten()
        .filter(|&l| unrolled_trips(ir, l).is_some())
        // Not the strip-mined loop: lowering builds it over one strip.
        .filter(|&l| {
            s.staged()
                .and_then(|st| st.strip.as_ref())
                .is_none_or(|x| x.loop_id != l)
        });
    if let Some(st) = s.stage.as_mut() {
        st.unroll_loop = unroll;
    }
}

/// The trip count of loop `l` where it is a constant of at most [`UNROLLED_TRIPS`].
fn unrolled_trips(ir: &Region, l: LoopId) -> Option<i64> {
    crate::analysis::mapping::trip(ir, l).filter(|t| (1..=UNROLLED_TRIPS).contains(t))
}

/// Whether two outputs of nest `s.root` adjacent along y (fewer than `s.shape.rows` rows apart)
/// read a common row of some array: reads of one array whose y subscripts (those on the y grid
/// loop's iterator, with a constant coefficient `c`) differ by a multiple of `c` under `c · RY`,
/// or move along a sequential loop of the nest by such a step.
pub fn rows_overlap(ir: &Region, s: &Schedule) -> bool {
    let Some(y) = s.grid.iter().find(|g| g.dim == 1) else {
        return false;
    };
    let yvar = ir.loops[y.loop_id].var.as_str();
    let reach = s.shape.rows.get() as i64;
    let grid: Vec<_> = s.grid.iter().map(|g| g.loop_id).collect();
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
                    return true;
                }
            }
            for (arr, c2, r2) in &rests {
                if *arr == a.array && *c2 == c {
                    if let Some(d) = rest.sub(r2).and_then(|d| d.as_const()) {
                        if overlaps(d) {
                            return true;
                        }
                    }
                }
            }
            rests.push((a.array.as_str(), c, rest));
        }
    }
    false
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
/// and, where the schedule unrolls `inner` ([`super::stage::StageSpec::unroll_loop`]), at each
/// of its iterations; equal elements count once (the device
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
            .map(|g| (ir.loops[g.loop_id].var.clone(), ir.loops[g.loop_id].step))
    };
    let (y, x) = (var(1), var(0));
    // The unrolled loop's iterator with its step, and its iterations (1 without one).
    let unrolled = inner
        .filter(|&l| s.staged().is_some_and(|st| st.unroll_loop == Some(l)))
        .and_then(|l| {
            Some((
                ir.loops[l].var.clone(),
                ir.loops[l].step,
                unrolled_trips(ir, l)?,
            ))
        });
    let (tap, iterations) = match unrolled {
        Some((var, step, trips)) => (Some((var, step)), trips),
        None => (None, 1),
    };
    let shift = |p: &Poly, v: &Option<(String, i64)>, by: i64| -> Option<Poly> {
        match v {
            Some((name, step)) if p.mentions(name) => {
                let moved = Poly::var(name).add(&Poly::constant(by * step))?;
                p.substitute(name, &moved)
            }
            _ => Some(p.clone()),
        }
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
                        .map(|p| shift(&shift(&shift(p.as_ref()?, &y, dy)?, &x, dx)?, &tap, m))
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
