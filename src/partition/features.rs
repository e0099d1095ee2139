//! Features of a candidate partition plan (§3.2.2): ReuseSize, the ReuseSet, the adjacency
//! constraints that decide the CoalesceSet, CoalesceTran, and the per-chunk candidate
//! partitions (rectangular hulls) with their shared-memory size.
//!
//! Units and the places where this departs from the paper's text (each for a stated reason):
//! - Counts are per thread block over its whole life: the block's tile of the loops on the grid
//!   times the whole range of the sequential loops (the paper's `IS_m` with `*` at full extent,
//!   which is how its gemm numbers are computed: `|DS'_A| = TB_Y·n`).
//! - `ReuseSize_A` (2) = accesses − distinct elements: the number of accesses a copy in shared
//!   memory serves again. References with the same access function in the same loops count
//!   once (`C[i][j]` read and written by one statement: the paper's "no reuse for C").
//! - `CoalesceTran_A` (7) counts unique transaction-size segments per *warp* and time step
//!   (the paper's `Unique` over "each concurrent access"; per warp because a warp is what
//!   issues one memory instruction — GPUDrano's definition, see notes/digest-000-003). For
//!   gemm at `TB_X = 32` this is the paper's `TB_Y·n`.
//! - The profit term of an array is the global traffic staging it saves, in bytes: `ReuseSize`
//!   times the element size (the paper's (12) multiplies by 4 for floats too: its `8 =
//!   2 arrays × 4 bytes`), plus `TranSize` times the transactions staging saves beyond those
//!   (baseline transactions − those of loading the partition row by row − reuse already
//!   counted). The paper's (8) adds `TranSize·CoalesceTran` in full, which counts a reused,
//!   uncoalesced array's traffic twice and never charges the load into shared memory (so a
//!   transpose would prefer 1024×1 blocks that coalesce nothing).

use std::collections::BTreeMap;

use crate::ir::LoopId;
use crate::model::Platform;
use crate::vocab::share::TbDim;

use super::nest::{Nest, RefClass};
use super::subspace::{tb_index, Assign, Subspace};

/// The adjacency constraints (4) and (5) for one reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Adjacency {
    /// Consecutive threads along x read consecutive elements (or the reference does not move
    /// along its last dimension at all).
    Coalesced,
    /// (4) violated: adjacent elements are read at different time stamps φ (by these
    /// sequential loops).
    Time(Vec<LoopId>),
    /// (5) violated: adjacent elements are not read by adjacent threads.
    Space(String),
}

impl Adjacency {
    pub fn show(&self, nest: &Nest) -> String {
        match self {
            Adjacency::Coalesced => "coalesced".into(),
            Adjacency::Time(ls) => format!(
                "violates the time constraint (4): adjacent elements are read at different times φ = {}",
                ls.iter().map(|l| nest.name(*l)).collect::<Vec<_>>().join(", ")
            ),
            Adjacency::Space(s) => format!("violates the space constraint (5): {}", s),
        }
    }
}

pub fn adjacency(nest: &Nest, r: &RefClass) -> Adjacency {
    // An array of structs: the field (its last dimension, a constant) is not walked; the
    // struct's index is the reference's last dimension (`a[i].re` is coalesced along `i`: a
    // warp's fields read together every byte of consecutive structs).
    let dims = nest.struct_dims(r);
    let Some(last) = dims.last() else {
        return Adjacency::Coalesced;
    };
    let x = nest.loop_of(TbDim::X);
    if let Some(x) = x {
        let in_last = last.coef.get(&x).copied().unwrap_or(0);
        let elsewhere = dims[..dims.len() - 1]
            .iter()
            .any(|d| d.coef.get(&x).is_some_and(|c| *c != 0));
        if in_last.abs() == 1 && !elsewhere {
            return Adjacency::Coalesced;
        }
        if in_last != 0 || elsewhere {
            let stride: i64 = r
                .dims
                .iter()
                .enumerate()
                .map(|(d, lin)| {
                    lin.coef.get(&x).copied().unwrap_or(0)
                        * nest
                            .strides
                            .get(&r.array)
                            .and_then(|s| s.get(d))
                            .copied()
                            .unwrap_or(1)
                })
                .sum();
            return Adjacency::Space(format!(
                "threads adjacent along x (`{}`) are {} elements apart",
                nest.name(x),
                stride.abs()
            ));
        }
    }
    let walkers: Vec<LoopId> = last
        .coef
        .iter()
        .filter(|(_, c)| c.abs() == 1)
        .map(|(l, _)| *l)
        .collect();
    let seq: Vec<LoopId> = walkers
        .iter()
        .copied()
        .filter(|l| !nest.is_mapped(*l) && nest.trip_of(*l) > 1)
        .collect();
    if !seq.is_empty() {
        return Adjacency::Time(seq);
    }
    if let Some(l) = walkers.iter().find(|l| nest.is_mapped(**l)) {
        return Adjacency::Space(format!(
            "adjacent elements go to threads along {} (`{}`), not along x",
            nest.tb_of(*l).map(|d| d.name()).unwrap_or("?"),
            nest.name(*l)
        ));
    }
    Adjacency::Coalesced
}

/// Features of one array for one block shape (independent of the `*` parameters).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ArrayTb {
    /// Accesses in the block's subspace.
    pub accesses: i64,
    /// Distinct elements: `|DS_A|` over the block's life.
    pub distinct: i64,
    /// `ReuseSize_A` (2).
    pub reuse: i64,
    pub in_reuse_set: bool,
    pub in_coalesce_set: bool,
    /// `CoalesceTran_A` (7): transactions of the references in the CoalesceSet.
    pub coalesce_tran: i64,
    /// Transactions of all references of the array in the baseline.
    pub baseline_tran: i64,
    /// The distinct-element count is an upper bound (overlapping images of different shapes).
    pub approx: bool,
}

/// The candidate partition of one array in one chunk (a step of the tiled sequential loops).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ChunkShape {
    pub extents: Vec<i64>,
    /// The hull's first element (array subscripts) for the first block and chunk: the block's
    /// partition starts here plus each reference's linear part times the block's origin.
    pub origin: Vec<i64>,
    pub bytes: i64,
    /// Chunks per block life.
    pub chunks: i64,
    /// Transactions to load the partition into shared memory over the block's life.
    pub staged_tran: i64,
}

fn life_tile(nest: &Nest, l: LoopId, tb: &[i64; 3]) -> i64 {
    match nest.tb_of(l) {
        Some(d) => tb[tb_index(d)].min(nest.trip_of(l)).max(1),
        None => nest.trip_of(l).max(1),
    }
}

/// The tile of loop `l` in one chunk under `plan`.
pub fn chunk_tile(nest: &Nest, plan: &Subspace, l: LoopId, a: &Assign) -> i64 {
    let trip = nest.trip_of(l).max(1);
    match nest.tb_of(l) {
        Some(d) => a.tb(d).min(trip).max(1),
        None => match plan.tile(l) {
            Some(e) => e
                .eval(a, &|p| plan.rep(p))
                .map(|v| v.clamp(1, trip))
                .unwrap_or(trip),
            None => trip,
        },
    }
}

fn box_of(r: &RefClass, tile: &dyn Fn(LoopId) -> i64) -> Vec<(i64, i64, i64)> {
    // Per dimension: (lo, hi, stride g) with g = 0 for a single point.
    r.dims
        .iter()
        .map(|lin| {
            let (mut lo, mut hi, mut g) = (lin.base, lin.base, 0i64);
            for (&l, &c) in &lin.coef {
                let t = tile(l);
                if t > 1 && c != 0 {
                    let span = c.saturating_mul(t - 1);
                    if span < 0 {
                        lo = lo.saturating_add(span);
                    } else {
                        hi = hi.saturating_add(span);
                    }
                    g = gcd(g, c.abs());
                }
            }
            (lo, hi, g)
        })
        .collect()
}

/// `⌈a / b⌉` for `a ≥ 0`, `b > 0`, without overflow.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    let b = b.max(1);
    a / b + i64::from(a % b != 0)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Number of points of one reference's image (exact when every loop feeds one dimension).
fn image_count(r: &RefClass, bx: &[(i64, i64, i64)], tile: &dyn Fn(LoopId) -> i64) -> i64 {
    let mut per_dim: i64 = 1;
    for (d, &(lo, hi, g)) in bx.iter().enumerate() {
        let n = if g == 0 {
            1
        } else {
            hi.saturating_sub(lo) / g + 1
        };
        let cap: i64 = r.dims[d]
            .coef
            .iter()
            .filter(|(_, c)| **c != 0)
            .map(|(l, _)| tile(*l))
            .fold(1i64, |a, b| a.saturating_mul(b));
        per_dim = per_dim.saturating_mul(n.min(cap));
    }
    let mut all: Vec<LoopId> = r.dims.iter().flat_map(|d| d.coef.keys().copied()).collect();
    all.sort();
    all.dedup();
    let iters = all
        .iter()
        .map(|l| tile(*l))
        .fold(1i64, |a, b| a.saturating_mul(b));
    per_dim.min(iters)
}

/// Distinct elements touched by `refs` over tiles `tile`: (count, approximate?).
pub fn distinct(refs: &[&RefClass], tile: &dyn Fn(LoopId) -> i64) -> (i64, bool) {
    if refs.is_empty() {
        return (0, false);
    }
    let boxes: Vec<Vec<(i64, i64, i64)>> = refs.iter().map(|r| box_of(r, tile)).collect();
    let counts: Vec<i64> = refs
        .iter()
        .zip(&boxes)
        .map(|(r, b)| image_count(r, b, tile))
        .collect();
    if refs.len() == 1 {
        return (counts[0], false);
    }
    let ndim = boxes[0].len();
    let same_shape = refs.iter().all(|r| {
        r.dims.len() == ndim
            && r.dims
                .iter()
                .zip(&refs[0].dims)
                .all(|(a, b)| a.coef == b.coef)
    });
    let congruent = (0..ndim).all(|d| {
        let g = boxes[0][d].2;
        g <= 1
            || boxes
                .iter()
                .all(|b| (b[d].0 - boxes[0][d].0).rem_euclid(g) == 0)
    });
    let exact_boxes = refs.iter().zip(&boxes).zip(&counts).all(|((_, b), c)| {
        let vol = b
            .iter()
            .map(|&(lo, hi, g)| {
                if g == 0 {
                    1
                } else {
                    hi.saturating_sub(lo) / g + 1
                }
            })
            .fold(1i64, |a, x| a.saturating_mul(x));
        vol == *c
    });
    let hull_vol = (0..ndim)
        .map(|d| {
            let lo = boxes.iter().map(|b| b[d].0).min().unwrap_or(0);
            let hi = boxes.iter().map(|b| b[d].1).max().unwrap_or(0);
            hi.saturating_sub(lo).saturating_add(1)
        })
        .fold(1i64, |a, x| a.saturating_mul(x));
    let approx_count = counts
        .iter()
        .fold(0i64, |a, c| a.saturating_add(*c))
        .min(hull_vol);
    if !(same_shape && congruent && exact_boxes) {
        return (approx_count, true);
    }
    // Union of boxes by coordinate compression (in units of each dimension's stride).
    let unit: Vec<i64> = (0..ndim).map(|d| boxes[0][d].2.max(1)).collect();
    let scaled: Vec<Vec<(i64, i64)>> = boxes
        .iter()
        .map(|b| {
            b.iter()
                .enumerate()
                .map(|(d, &(lo, hi, _))| (lo.div_euclid(unit[d]), hi.div_euclid(unit[d]) + 1))
                .collect()
        })
        .collect();
    let mut cuts: Vec<Vec<i64>> = Vec::new();
    let mut cells: i64 = 1;
    for d in 0..ndim {
        let mut c: Vec<i64> = scaled.iter().flat_map(|b| [b[d].0, b[d].1]).collect();
        c.sort();
        c.dedup();
        cells = cells.saturating_mul((c.len() as i64 - 1).max(1));
        cuts.push(c);
    }
    if cells > 20_000 {
        return (approx_count, true);
    }
    let mut total: i64 = 0;
    let mut idx = vec![0usize; ndim];
    loop {
        let mut inside = false;
        let mut vol: i64 = 1;
        let mut valid = true;
        for d in 0..ndim {
            if cuts[d].len() < 2 {
                valid = false;
                break;
            }
            vol = vol.saturating_mul(cuts[d][idx[d] + 1] - cuts[d][idx[d]]);
        }
        if valid {
            for b in &scaled {
                if (0..ndim).all(|d| b[d].0 <= cuts[d][idx[d]] && cuts[d][idx[d] + 1] <= b[d].1) {
                    inside = true;
                    break;
                }
            }
            if inside {
                total = total.saturating_add(vol);
            }
        }
        // Odometer.
        let mut d = 0;
        loop {
            if d == ndim {
                return (total.max(if ndim == 0 { 1 } else { 0 }), false);
            }
            idx[d] += 1;
            if idx[d] + 1 < cuts[d].len() {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
    }
}

/// True when the references of an array move differently with the loops on the grid in
/// dimension `d` (`A[i][k]` and `A[j][k]` with `i`, `j` on the grid): their images in one block
/// are then apart by a distance that depends on the block (the two row bands of `syrk`), so no
/// hull taken at one block's origin bounds them.
pub fn grid_skew(nest: &Nest, refs: &[&RefClass], d: usize) -> bool {
    let grid_coefs = |r: &RefClass| -> Vec<(LoopId, i64)> {
        r.dims
            .get(d)
            .map(|lin| {
                lin.coef
                    .iter()
                    .filter(|(l, c)| nest.is_mapped(**l) && **c != 0)
                    .map(|(l, c)| (*l, *c))
                    .collect()
            })
            .unwrap_or_default()
    };
    let Some(first) = refs.first() else {
        return false;
    };
    let f = grid_coefs(first);
    refs.iter().any(|r| grid_coefs(r) != f)
}

/// Transactions one reference issues per block over its life in the baseline: unique
/// segments per warp at one time step, times the time steps.
pub fn warp_transactions(nest: &Nest, r: &RefClass, tb: &[i64; 3], p: &Platform) -> i64 {
    let steps: i64 = r
        .loops
        .iter()
        .filter(|l| !nest.is_mapped(**l))
        .map(|l| nest.trip_of(*l).max(1))
        .fold(1i64, |a, b| a.saturating_mul(b));
    let elem = nest.elem_bytes.get(&r.array).copied().unwrap_or(4);
    let strides = nest.strides.get(&r.array).cloned().unwrap_or_default();
    let tran = p.transaction_bytes.max(1) as i64;
    let warp = p.warp_size.max(1) as i64;
    let threads = tb[0] * tb[1] * tb[2];
    let lx = nest.loop_of(TbDim::X);
    let ly = nest.loop_of(TbDim::Y);
    let lz = nest.loop_of(TbDim::Z);
    let mut total: i64 = 0;
    let mut cur_warp = -1i64;
    let mut segs: Vec<i64> = Vec::new();
    for tid in 0..threads {
        let (tx, ty, tz) = (tid % tb[0], (tid / tb[0]) % tb[1], tid / (tb[0] * tb[1]));
        let w = tid / warp;
        if w != cur_warp {
            segs.sort_unstable();
            segs.dedup();
            total += segs.len() as i64;
            segs.clear();
            cur_warp = w;
        }
        let mut t: BTreeMap<LoopId, i64> = BTreeMap::new();
        let mut idle = false;
        for (l, v) in [(lx, tx), (ly, ty), (lz, tz)] {
            if let Some(l) = l {
                if v >= nest.trip_of(l) {
                    idle = true;
                }
                t.insert(l, v);
            }
        }
        if idle {
            continue;
        }
        let mut off: i64 = 0;
        for (d, lin) in r.dims.iter().enumerate() {
            let mut s = lin.base;
            for (l, c) in &lin.coef {
                s = s.saturating_add(c.saturating_mul(t.get(l).copied().unwrap_or(0)));
            }
            off = off.saturating_add(s.saturating_mul(strides.get(d).copied().unwrap_or(1)));
        }
        segs.push(off.saturating_mul(elem).div_euclid(tran));
    }
    segs.sort_unstable();
    segs.dedup();
    total += segs.len() as i64;
    total.saturating_mul(steps)
}

/// Per-array features for one block shape.
pub fn array_tb(
    nest: &Nest,
    array: &str,
    tb: &[i64; 3],
    p: &Platform,
    coalesce_hint: bool,
) -> ArrayTb {
    let refs: Vec<&RefClass> = nest.refs.iter().filter(|r| r.array == array).collect();
    let tile = |l: LoopId| life_tile(nest, l, tb);
    let accesses = refs
        .iter()
        .map(|r| {
            r.loops
                .iter()
                .map(|l| tile(*l))
                .fold(1i64, |a, b| a.saturating_mul(b))
        })
        .fold(0i64, |a, b| a.saturating_add(b));
    let skew = (0..refs.first().map_or(0, |r| r.dims.len())).any(|d| grid_skew(nest, &refs, d));
    let (distinct, approx) = if skew {
        // The references' images lie apart in a typical block: count them separately.
        let n = refs
            .iter()
            .map(|r| distinct(std::slice::from_ref(r), &tile).0)
            .fold(0i64, |a, b| a.saturating_add(b));
        (n, true)
    } else {
        distinct(&refs, &tile)
    };
    let reuse = (accesses - distinct).max(0);
    let in_reuse_set = reuse > 0 && reuse as f64 >= p.theta_r * distinct as f64;
    let mut coalesce_tran = 0i64;
    let mut baseline_tran = 0i64;
    let mut in_coalesce_set = coalesce_hint;
    for r in &refs {
        let t = warp_transactions(nest, r, tb, p);
        baseline_tran = baseline_tran.saturating_add(t);
        let bad = adjacency(nest, r) != Adjacency::Coalesced;
        in_coalesce_set |= bad;
        // With `:coalesce` the check is skipped and every reference counts (§3.2.2).
        if bad || coalesce_hint {
            coalesce_tran = coalesce_tran.saturating_add(t);
        }
    }
    ArrayTb {
        accesses,
        distinct,
        reuse,
        in_reuse_set,
        in_coalesce_set,
        coalesce_tran,
        baseline_tran,
        approx,
    }
}

/// The candidate partition of `array` in one chunk: the rectangular hull (1) of its
/// references' images of the chunk's tiles.
pub fn chunk_shape(
    nest: &Nest,
    plan: &Subspace,
    array: &str,
    a: &Assign,
    p: &Platform,
) -> ChunkShape {
    let refs: Vec<&RefClass> = nest.refs.iter().filter(|r| r.array == array).collect();
    let tile = |l: LoopId| chunk_tile(nest, plan, l, a);
    // Over the whole range of the grid loops: for dimensions whose references are skewed.
    let whole = |l: LoopId| {
        if nest.is_mapped(l) {
            nest.trip_of(l).max(1)
        } else {
            chunk_tile(nest, plan, l, a)
        }
    };
    let ndim = refs.first().map(|r| r.dims.len()).unwrap_or(0);
    let mut extents = vec![1i64; ndim];
    let mut origin = vec![0i64; ndim];
    for (d, e) in extents.iter_mut().enumerate() {
        let mut lo = i64::MAX;
        let mut hi = i64::MIN;
        let skew = grid_skew(nest, &refs, d);
        for r in &refs {
            let bx = if skew {
                box_of(r, &whole)
            } else {
                box_of(r, &tile)
            };
            if let Some(b) = bx.get(d) {
                lo = lo.min(b.0);
                hi = hi.max(b.1);
            }
        }
        if lo <= hi {
            *e = hi.saturating_sub(lo).saturating_add(1);
            origin[d] = lo;
        }
    }
    let elem = nest.elem_bytes.get(array).copied().unwrap_or(4);
    let bytes = extents.iter().fold(elem, |acc, e| acc.saturating_mul(*e));
    // Chunks: steps of the tiled sequential loops this array's references walk.
    let mut loops: Vec<LoopId> = refs.iter().flat_map(|r| r.loops.iter().copied()).collect();
    loops.sort();
    loops.dedup();
    let mut chunks: i64 = 1;
    for l in loops {
        if nest.is_mapped(l) {
            continue;
        }
        let t = tile(l);
        let trip = nest.trip_of(l).max(1);
        if t < trip {
            chunks = chunks.saturating_mul(ceil_div(trip, t));
        }
    }
    let tran = p.transaction_bytes.max(1) as i64;
    // An array of structs is staged one field at a time (AoS → SoA): each field's copy of a
    // row of structs reads the row's bytes (every field's), once per field.
    let (row_dims, copies) = match extents.last() {
        Some(&fields) if nest.records.contains(array) && ndim >= 2 => (ndim - 2, fields),
        _ => (ndim.saturating_sub(1), 1),
    };
    let rows: i64 = extents
        .iter()
        .take(row_dims)
        .fold(1i64, |a, e| a.saturating_mul(*e));
    let row_bytes = extents[row_dims.min(extents.len())..]
        .iter()
        .fold(elem, |a, e| a.saturating_mul(*e));
    let per_chunk = rows
        .saturating_mul(ceil_div(row_bytes, tran))
        .saturating_mul(copies.max(1));
    ChunkShape {
        extents,
        origin,
        bytes,
        chunks,
        staged_tran: per_chunk.saturating_mul(chunks),
    }
}

/// Bytes of global traffic one block saves by staging the array (its profit term, see the
/// module comment): `(ReuseSize·elem if in the ReuseSet) + TranSize·(saved transactions
/// beyond that, if in the CoalesceSet)`. Returns (reuse term, coalescing term).
pub fn gain(f: &ArrayTb, c: &ChunkShape, elem: i64, p: &Platform) -> (i64, i64) {
    let tran = p.transaction_bytes.max(1) as i64;
    let reuse_bytes = if f.in_reuse_set {
        f.reuse.saturating_mul(elem)
    } else {
        0
    };
    let co = if f.in_coalesce_set {
        let counted = ceil_div(reuse_bytes, tran);
        f.baseline_tran
            .saturating_sub(c.staged_tran)
            .saturating_sub(counted)
            .max(0)
    } else {
        0
    };
    (reuse_bytes, co.saturating_mul(tran))
}
