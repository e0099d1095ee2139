//! Finding the optimal partition (§3.2.3): enumerate the legal parameter space of each plan
//! (block sizes that are powers of two within the platform's limits, `*` parameters as powers
//! of two up to the loop they tile, and the loop's full range), evaluate the profit of every
//! combination of the arrays worth staging, keep the best under the constraints.
//!
//! Constraints (numbers as in the paper):
//! - (9) `Σ |DS_A|·elem ≤ θ_s·SMSize`, and ≤ the per-block maximum of the platform;
//! - (10) `TBSize ≤ TBSizeMax`, each block extent ≤ the platform's maximum in that dimension;
//! - (11) threads per SM. The paper writes `TBSize·SMSize/Σ DS_A ≤ TSizeMax`, which, read
//!   literally, asks shared memory to be *large* enough to keep the SM's thread count down —
//!   its own gemm solution breaks it (32×32 threads, 12 KB: 4 blocks by shared memory, 4096
//!   threads > 2048). The hardware instead caps resident blocks at `min(SMSize/smem,
//!   TSizeMax/TBSize, max blocks)`; the constraint that must hold is that at least one block
//!   fits, and the slack reported is `TSizeMax − TBSize·resident blocks`.
//! - (15) `TB_X ≥ warp size` when a reference coalesces along x (so a warp reads whole rows);
//! - (16), ours: `TBSize ≥ warp size` (or the grid's points, if fewer), so that no warp runs
//!   with idle lanes: the paper's profit, bytes saved over the kernel, otherwise favours
//!   1-thread blocks for nests that coalesce along no loop;
//! - array bounds: every staged partition fits in its array, every `*` lies in `1..=trip`.
//!
//! Ties are broken, in order, by more resident threads per SM, fewer chunk steps (larger `*`
//! tiles: fewer loads and barriers), less shared memory, then larger TB_X, TB_Y, TB_Z, then
//! larger parameters — deterministic whatever the enumeration order.

use std::collections::BTreeMap;

use crate::model::Platform;
use crate::vocab::share::TbDim;

use super::features::{self, Adjacency, ArrayTb, ChunkShape};
use super::nest::Nest;
use super::subspace::{tb_index, Assign, Subspace, Tile};

/// One constraint of the chosen configuration with its slack.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    /// `(9)`, `(10)`, …
    pub id: String,
    pub what: String,
    pub lhs: i64,
    /// `<=` or `>=`.
    pub op: &'static str,
    pub rhs: i64,
}

impl Constraint {
    pub fn slack(&self) -> i64 {
        if self.op == "<=" {
            self.rhs - self.lhs
        } else {
            self.lhs - self.rhs
        }
    }
    pub fn holds(&self) -> bool {
        self.slack() >= 0
    }
}

/// A configuration: parameters, staged arrays, profit.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Index of the plan (`IS_m`).
    pub plan: usize,
    pub assign: Assign,
    /// Arrays placed in shared memory, by name.
    pub staged: Vec<String>,
    /// Candidate partitions (per chunk) of every array worth staging.
    pub shapes: BTreeMap<String, ChunkShape>,
    /// Features of every candidate array at this block shape.
    pub features: BTreeMap<String, ArrayTb>,
    /// (reuse term, coalescing term) per block, bytes, of every array worth staging.
    pub gains: BTreeMap<String, (i64, i64)>,
    /// Bytes of global traffic saved over the whole kernel (Σ per block × blocks).
    pub profit: i64,
    pub profit_per_block: i64,
    pub smem: i64,
    pub threads: i64,
    pub resident_blocks: i64,
    pub blocks: i64,
    pub chunks: i64,
    pub constraints: Vec<Constraint>,
}

impl Choice {
    fn key(&self) -> (i64, i64, i64, i64, [i64; 3], Vec<i64>) {
        (
            self.profit,
            self.resident_blocks * self.threads,
            -self.chunks,
            -self.smem,
            self.assign.tb,
            self.assign.k.values().copied().collect(),
        )
    }
    /// True if `self` ranks before `other`.
    pub fn better(&self, other: &Choice) -> bool {
        self.key() > other.key()
    }
}

/// Does a reference coalesce along x (so that (15) applies)?
pub fn needs_wide_x(nest: &Nest) -> bool {
    let Some(x) = nest.loop_of(TbDim::X) else {
        return false;
    };
    nest.refs.iter().any(|r| {
        features::adjacency(nest, r) == Adjacency::Coalesced
            && nest
                .struct_dims(r)
                .last()
                .is_some_and(|d| d.coef.get(&x).is_some_and(|c| c.abs() == 1))
    })
}

fn pow2_upto(lo: i64, hi: i64) -> Vec<i64> {
    let mut v = Vec::new();
    let mut x = 1i64;
    while x <= hi {
        if x >= lo {
            v.push(x);
        }
        x *= 2;
    }
    v
}

fn pow2_ceil(n: i64) -> i64 {
    let mut x = 1i64;
    while x < n && x < (1 << 40) {
        x *= 2;
    }
    x
}

/// Values of each block dimension (x, y, z) that the enumeration tries, and the lower bound on
/// TB_X from (15).
pub fn tb_domain(nest: &Nest, plan: &Subspace, p: &Platform) -> ([Vec<i64>; 3], i64) {
    let mut out: [Vec<i64>; 3] = [vec![1], vec![1], vec![1]];
    let mut x_min = 1;
    for &(l, d) in &nest.mapped {
        let i = tb_index(d);
        let hi = (p.max_block_dims[i] as i64)
            .min(p.max_threads_per_block as i64)
            .min(pow2_ceil(nest.trip_of(l)));
        let lo = if d == TbDim::X && needs_wide_x(nest) {
            x_min = (p.warp_size as i64).min(pow2_ceil(nest.trip_of(l)));
            x_min
        } else {
            1
        };
        out[i] = match plan.fixed_tb.get(&d) {
            Some(v) => vec![*v],
            None => pow2_upto(lo, hi),
        };
    }
    (out, x_min)
}

/// Values of each free `*` class.
pub fn k_domain(nest: &Nest, plan: &Subspace) -> BTreeMap<usize, Vec<i64>> {
    let mut out = BTreeMap::new();
    for r in plan.free_params() {
        let trip = plan
            .tiles
            .iter()
            .filter(|(_, t)| matches!(t, Tile::Star(p) if plan.rep(*p) == r))
            .map(|(l, _)| nest.trip_of(*l))
            .max()
            .unwrap_or(1)
            .max(1);
        // Powers of two up to 4096 (larger tiles only grow shared memory), and the whole loop.
        let mut v = pow2_upto(1, trip.min(4096));
        if !v.contains(&trip) {
            v.push(trip);
        }
        out.insert(r, v);
    }
    out
}

/// What the search needs to know about the arrays.
pub struct Arrays<'a> {
    /// Arrays that may be staged (candidates not rejected for a static reason).
    pub eligible: &'a [String],
    /// Arrays whose features are reported (all candidates).
    pub reported: &'a [String],
    pub coalesce_hint: &'a dyn Fn(&str) -> bool,
}

/// Evaluates every legal configuration of one plan; returns the best configuration of each
/// block shape, best first, and the number of parameter combinations evaluated.
pub fn search(
    nest: &Nest,
    plan: &Subspace,
    plan_idx: usize,
    arrays: &Arrays,
    p: &Platform,
) -> (Vec<Choice>, u64) {
    let (tbd, x_min) = tb_domain(nest, plan, p);
    let kd = k_domain(nest, plan);
    let kclasses: Vec<usize> = kd.keys().copied().collect();
    let budget = p.smem_budget() as i64;
    let mut per_shape: Vec<Choice> = Vec::new();
    let mut evaluated: u64 = 0;
    for &tx in &tbd[0] {
        for &ty in &tbd[1] {
            for &tz in &tbd[2] {
                let tb = [tx, ty, tz];
                let threads = tx * ty * tz;
                if threads > p.max_threads_per_block as i64 {
                    continue;
                }
                let feats: BTreeMap<String, ArrayTb> = arrays
                    .reported
                    .iter()
                    .map(|a| {
                        (
                            a.clone(),
                            features::array_tb(nest, a, &tb, p, (arrays.coalesce_hint)(a)),
                        )
                    })
                    .collect();
                let blocks: i64 = nest
                    .mapped
                    .iter()
                    .map(|(l, d)| {
                        let t = tb[tb_index(*d)];
                        features::ceil_div(nest.trip_of(*l), t)
                    })
                    .fold(1i64, |a, b| a.saturating_mul(b));
                let mut best: Option<Choice> = None;
                // Odometer over the k classes.
                let mut idx = vec![0usize; kclasses.len()];
                loop {
                    evaluated += 1;
                    let assign = Assign {
                        tb,
                        k: kclasses
                            .iter()
                            .zip(&idx)
                            .map(|(c, i)| (*c, kd[c][*i]))
                            .collect(),
                    };
                    if let Some(c) = evaluate(
                        nest, plan, plan_idx, arrays, p, &assign, &feats, blocks, budget, x_min,
                    ) {
                        if best.as_ref().is_none_or(|b| c.better(b)) {
                            best = Some(c);
                        }
                    }
                    let mut d = 0;
                    let mut done = true;
                    while d < idx.len() {
                        idx[d] += 1;
                        if idx[d] < kd[&kclasses[d]].len() {
                            done = false;
                            break;
                        }
                        idx[d] = 0;
                        d += 1;
                    }
                    if done {
                        break;
                    }
                }
                if let Some(b) = best {
                    per_shape.push(b);
                }
            }
        }
    }
    per_shape.sort_by_key(|c| std::cmp::Reverse(c.key()));
    (per_shape, evaluated)
}

/// The profit over the whole kernel: the per-block profit times the number of blocks, counting
/// a partial block at the end of a loop as the fraction of it that runs (per-block counts use
/// full tiles, so counting partial blocks whole would favour blocks that overhang the domain).
fn scaled_profit(nest: &Nest, assign: &Assign, per_block: i64) -> i64 {
    let mut num: i128 = per_block as i128;
    let mut den: i128 = 1;
    for (l, d) in &nest.mapped {
        let trip = nest.trip_of(*l).max(1) as i128;
        let t = (assign.tb[tb_index(*d)] as i128).min(trip).max(1);
        num = num.saturating_mul(trip);
        den = den.saturating_mul(t);
    }
    i64::try_from(num / den.max(1)).unwrap_or(i64::MAX)
}

#[allow(clippy::too_many_arguments)]
fn evaluate(
    nest: &Nest,
    plan: &Subspace,
    plan_idx: usize,
    arrays: &Arrays,
    p: &Platform,
    assign: &Assign,
    feats: &BTreeMap<String, ArrayTb>,
    blocks: i64,
    budget: i64,
    x_min: i64,
) -> Option<Choice> {
    let threads = assign.tb.iter().product::<i64>();
    let (shapes, gains, worth) = partitions(nest, plan, arrays, p, assign, feats);
    let staged = best_subset(worth, &shapes, budget);
    let smem: i64 = staged
        .iter()
        .filter_map(|a| shapes.get(a))
        .fold(0i64, |s, c| s.saturating_add(c.bytes));
    let per_block: i64 = staged
        .iter()
        .filter_map(|a| gains.get(a))
        .map(|g| g.0 + g.1)
        .fold(0i64, |a, b| a.saturating_add(b));
    let chunks: i64 = staged
        .iter()
        .filter_map(|a| shapes.get(a))
        .fold(0i64, |s, c| s.saturating_add(c.chunks));
    let resident = p.resident_blocks(threads as u64, smem as u64) as i64;
    let mut constraints = platform_constraints(p, threads, smem, resident, budget);
    constraints.extend(block_constraints(nest, p, assign, x_min));
    constraints.extend(bounds_constraints(nest, &staged, &shapes));
    if constraints.iter().any(|c| !c.holds()) {
        return None;
    }
    Some(Choice {
        plan: plan_idx,
        assign: assign.clone(),
        staged,
        shapes,
        features: feats.clone(),
        gains,
        profit: scaled_profit(nest, assign, per_block),
        profit_per_block: per_block,
        smem,
        threads,
        resident_blocks: resident,
        blocks,
        chunks,
        constraints,
    })
}

/// What [`partitions`] finds: each array's partition and gain, and the arrays worth staging.
type Partitions = (
    BTreeMap<String, ChunkShape>,
    BTreeMap<String, (i64, i64)>,
    Vec<(String, i64)>,
);

/// The partition (chunk shape) and gain of each eligible array of `arrays` with reuse or
/// coalescing under `assign`, and the arrays worth staging with their gains: a positive gain
/// and a partition that fits in the array.
fn partitions(
    nest: &Nest,
    plan: &Subspace,
    arrays: &Arrays,
    p: &Platform,
    assign: &Assign,
    feats: &BTreeMap<String, ArrayTb>,
) -> Partitions {
    let mut shapes = BTreeMap::new();
    let mut gains = BTreeMap::new();
    let mut worth: Vec<(String, i64)> = Vec::new();
    for a in arrays.eligible {
        let Some(f) = feats.get(a) else { continue };
        if !(f.in_reuse_set || f.in_coalesce_set) {
            continue;
        }
        let c = features::chunk_shape(nest, plan, a, assign, p);
        let elem = nest.elem_bytes.get(a).copied().unwrap_or(4);
        let g = features::gain(f, &c, elem, p);
        // Array bounds: the partition must fit in the array.
        let fits = nest
            .extents
            .get(a)
            .map(|ext| {
                ext.iter()
                    .zip(&c.extents)
                    .all(|(e, x)| e.is_none_or(|e| *x <= e))
            })
            .unwrap_or(true);
        shapes.insert(a.clone(), c);
        gains.insert(a.clone(), g);
        if g.0 + g.1 > 0 && fits {
            worth.push((a.clone(), g.0 + g.1));
        }
    }
    (shapes, gains, worth)
}

/// The best subset of the arrays `worth` staging that fits in `budget` bytes (of partitions
/// `shapes`): the most gain, then the least shared memory; arrays ordered by gain, at most 12
/// considered.
fn best_subset(
    mut worth: Vec<(String, i64)>,
    shapes: &BTreeMap<String, ChunkShape>,
    budget: i64,
) -> Vec<String> {
    worth.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    worth.truncate(12);
    let m = worth.len();
    let mut best_mask = 0usize;
    let mut best_val: (i64, i64) = (0, 0);
    for mask in 0..(1usize << m) {
        let mut prof = 0i64;
        let mut sm = 0i64;
        for (i, (a, g)) in worth.iter().enumerate() {
            if mask & (1 << i) != 0 {
                prof = prof.saturating_add(*g);
                sm = sm.saturating_add(shapes.get(a).map(|c| c.bytes).unwrap_or(0));
            }
        }
        if sm > budget {
            continue;
        }
        if (prof, -sm) > best_val {
            best_val = (prof, -sm);
            best_mask = mask;
        }
    }
    worth
        .iter()
        .enumerate()
        .filter(|(i, _)| best_mask & (1 << i) != 0)
        .map(|(_, (a, _))| a.clone())
        .collect()
}

/// The platform's constraints on a block of `threads` work-items with `smem` bytes of shared
/// memory (`resident` of them per SM): (9) the shared-memory budget, (10) the block size and
/// (11) the threads and blocks per SM.
fn platform_constraints(
    p: &Platform,
    threads: i64,
    smem: i64,
    resident: i64,
    budget: i64,
) -> Vec<Constraint> {
    vec![
        Constraint {
            id: "(9)".into(),
            what: format!(
                "shared memory per block ≤ θ_s·SMSize = {}·{} (and ≤ the per-block maximum {})",
                p.theta_s, p.smem_per_sm, p.smem_per_block
            ),
            lhs: smem,
            op: "<=",
            rhs: budget,
        },
        Constraint {
            id: "(10)".into(),
            what: "threads per block ≤ TBSizeMax".into(),
            lhs: threads,
            op: "<=",
            rhs: p.max_threads_per_block as i64,
        },
        Constraint {
            id: "(11)".into(),
            what: format!(
                "threads per SM (TBSize × {} resident blocks) ≤ TSizeMax",
                resident
            ),
            lhs: threads * resident,
            op: "<=",
            rhs: p.max_threads_per_sm as i64,
        },
        Constraint {
            id: "(11)".into(),
            what: "resident blocks per SM ≥ 1".into(),
            lhs: resident,
            op: ">=",
            rhs: 1,
        },
    ]
}

/// The constraints on the block's shape `assign`: (10) each mapped dimension within the
/// platform's maximum extent, (15) TB_X at least `x_min` where a reference coalesces along x,
/// and (16) at least a warp of work-items.
fn block_constraints(nest: &Nest, p: &Platform, assign: &Assign, x_min: i64) -> Vec<Constraint> {
    let threads = assign.tb.iter().product::<i64>();
    let mut constraints = Vec::new();
    for &(_, d) in &nest.mapped {
        let i = tb_index(d);
        constraints.push(Constraint {
            id: "(10)".into(),
            what: format!("{} ≤ the platform's maximum block extent", d.name()),
            lhs: assign.tb[i],
            op: "<=",
            rhs: p.max_block_dims[i] as i64,
        });
    }
    if x_min > 1 {
        constraints.push(Constraint {
            id: "(15)".into(),
            what: "TB_X ≥ warp size: a reference coalesces along x".into(),
            lhs: assign.tb[0],
            op: ">=",
            rhs: x_min,
        });
    }
    // (16), not in the paper: a block of fewer threads than a warp leaves the other lanes of
    // its warp idle. The paper's profit is bytes saved over the kernel, and a 1-thread block's
    // copy is the cheapest there is, so without this a nest that coalesces along no loop gets
    // 1-thread blocks (`a[i][j]` with `i` on x: TB_X = 1 "saved" 21,504 B against 12,432 B for
    // TB_X = 8, with 1/32 of every warp at work). Implied by (15) where that holds.
    let points = nest
        .mapped
        .iter()
        .map(|(l, _)| nest.trip_of(*l).max(1))
        .fold(1i64, |a, b| a.saturating_mul(b));
    let floor = (p.warp_size as i64).min(pow2_ceil(points));
    if floor > x_min {
        constraints.push(Constraint {
            id: "(16)".into(),
            what: "threads per block ≥ warp size: fewer leave lanes of the warp idle".into(),
            lhs: threads,
            op: ">=",
            rhs: floor,
        });
    }
    constraints
}

/// The bounds constraints: each known dimension of each staged array's partition (`shapes`)
/// within the array's extent.
fn bounds_constraints(
    nest: &Nest,
    staged: &[String],
    shapes: &BTreeMap<String, ChunkShape>,
) -> Vec<Constraint> {
    let mut constraints = Vec::new();
    for a in staged {
        if let (Some(ext), Some(c)) = (nest.extents.get(a), shapes.get(a)) {
            for (d, (e, x)) in ext.iter().zip(&c.extents).enumerate() {
                if let Some(e) = e {
                    constraints.push(Constraint {
                        id: "bounds".into(),
                        what: format!(
                            "dimension {} of the partition of `{}` ≤ the array's extent",
                            d + 1,
                            a
                        ),
                        lhs: *x,
                        op: "<=",
                        rhs: *e,
                    });
                }
            }
        }
    }
    constraints
}
