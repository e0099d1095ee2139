//! 2-D register tiles of staged gemm-like nests (issue 27, item 4).
//!
//! The engine's staged block (gemm: 32×32 outputs, k strips of 64) with 4 rows per work-item
//! reads one shared word per multiply-add and a half: every row's `A[i][k]` is its own
//! broadcast, and `B[k][j]` is shared only by the 4 rows. A fast SGEMM instead gives each
//! work-item an RY×RX micro-tile of a much larger block tile, so that at each `k` it reads RY
//! values of the `A` tile and RX of the `B` tile into registers and does RY·RX multiply-adds:
//! `(RY + RX) / (RY·RX)` shared reads per multiply-add, a quarter for 8×8.
//!
//! This module builds that schedule from the engine's own plan: the best configuration's
//! block grown to the micro-tile's area (`tb` × (RX, RY)), its strip shortened to
//! [`K_TILE`] so that both tiles fit shared memory, staged by the same `stage::plan`
//! (`stage::plan_tiled`, which counts the launched work-items, not the grid points), the
//! columns cyclic (a warp's loads and stores stay coalesced, its `B` reads consecutive and its
//! `A` reads broadcasts), and the unguarded copy of the computation between barriers for the
//! work-items whose outputs are all in range ([`super::Schedule::full_tile_path`]). It is a
//! point of the tuner's space (`variant::Variant::ktile`) and the model's choice where
//! [`offer`] estimates it [`super::gain::MARGIN`] faster than both the staged schedule the model
//! had and the unstaged kernel (the "never slower than naive" rule).
//!
//! What it does not do (yet): vector loads of the shared tiles (`float4`), a transposed
//! (k-major) `A` tile, contiguous columns, double-buffered k tiles.

use super::{coarsenable, gain, operand_reuse, stage, KernelSchedule, Schedule, WorkShape};
use crate::analysis::dependence::DepInfo;
use crate::ir::lower::RegionAst;
use crate::model::Platform;
use crate::partition::KernelPlan;

/// Iterations of the strip-mined loop per tile of a micro-tiled schedule: the k tile of a
/// hand-written SGEMM (8–16); 16 keeps 128×16 + 16×128 floats (16 KiB) in shared memory.
pub const K_TILE: u32 = 16;

/// One micro-tile shape: the launched block and the outputs per work-item.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Shape {
    /// Work-items per block as launched.
    pub launched: [u32; 3],
    /// Rows per work-item (RY).
    pub rows: u32,
    /// Columns per work-item (RX, cyclic).
    pub cols: u32,
}

impl Shape {
    /// The grid points a block covers.
    pub fn block(&self) -> [u32; 3] {
        [
            self.launched[0] * self.cols,
            self.launched[1] * self.rows,
            self.launched[2],
        ]
    }
}

/// The shapes tried: 16×16 work-items with 8×8 outputs each (a block tile of 128×128), 32×8
/// with 8 rows × 4 columns (128 columns × 64 rows), 16×16 with 4×4 (64×64).
pub const SHAPES: [Shape; 3] = [
    Shape {
        launched: [16, 16, 1],
        rows: 8,
        cols: 8,
    },
    Shape {
        launched: [32, 8, 1],
        rows: 8,
        cols: 4,
    },
    Shape {
        launched: [16, 16, 1],
        rows: 4,
        cols: 4,
    },
];

/// Whether nest `base` is gemm-like: a 2-D grid that may be coarsened, reading inside a
/// sequential loop one operand shared by the outputs of a column and one shared by those of a
/// row (`A[i][k]`, `B[k][j]`).
pub fn gemm_like(r: &RegionAst, deps: &DepInfo, base: &Schedule) -> bool {
    let on = |d: u8| base.grid.iter().find(|g| g.dim == d).map(|g| g.loop_id);
    let (y, x) = (on(1), on(0));
    if base.grid.len() != 2 || y.is_none() || x.is_none() {
        return false;
    }
    if !coarsenable(&r.ir, deps, &base.grid, base.root) {
        return false;
    }
    let (indep_y, indep_x) = operand_reuse(&r.ir, base, y, x);
    indep_y && indep_x
}

/// The engine's plan `kp` with its best configuration's block grown to `block` and its tile
/// parameters (the strip) at most `ktile`.
pub fn plan(kp: &KernelPlan, block: [u32; 3], ktile: u32) -> Option<KernelPlan> {
    let mut kp = kp.clone();
    let best = kp.best.as_mut()?;
    for (d, b) in block.iter().enumerate() {
        if best.assign.tb[d] > 1 || *b > 1 {
            best.assign.tb[d] = i64::from(*b);
        }
    }
    for v in best.assign.k.values_mut() {
        *v = (*v).min(i64::from(ktile)).max(1);
    }
    kp.block = best.assign.tb;
    Some(kp)
}

/// The micro-tiled staged schedule of shape `shape` with k tiles of `ktile`, built from `base`
/// (the kernel's baseline) and the engine's plan `kp`; `None` where the nest is not gemm-like,
/// the plan stages nothing with a strip, the tiles do not fit [`stage::SMEM_LIMIT`] or the
/// factors do not divide the block.
pub fn schedule(
    r: &RegionAst,
    deps: &DepInfo,
    base: &Schedule,
    kp: &KernelPlan,
    opts: &stage::StageOptions,
    shape: Shape,
    ktile: u32,
) -> Option<Schedule> {
    if !gemm_like(r, deps, base) {
        return None;
    }
    let block = shape.block();
    let kp = plan(kp, block, ktile)?;
    let mut spec = stage::plan_tiled(r, base.root, &base.grid, &kp, opts, shape.rows * shape.cols);
    spec.micro_ktile = ktile;
    let strip_staged = spec.strip.is_some() && spec.arrays.iter().any(|a| a.uses_strip());
    if spec.arrays.is_empty()
        || !strip_staged
        || spec.block != block
        || spec.smem_bytes() > stage::SMEM_LIMIT
    {
        return None;
    }
    Some(Schedule {
        shape: WorkShape::plain(block).with_tile(shape.rows, shape.cols),
        stage: Some(spec),
        full_tile_path: true,
        stride: None,
        ..base.clone()
    })
}

/// The model's verdict on a micro-tiled schedule (what `explain` shows).
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// The shape estimated fastest, and its k tile.
    pub shape: Shape,
    pub ktile: u32,
    /// Its estimate against the schedule the model preferred before, and against the unstaged
    /// kernel (each > 1: the micro-tile is faster).
    pub over_preferred: gain::Gain,
    pub over_unstaged: gain::Gain,
    /// Whether it became the preferred schedule.
    pub taken: bool,
    /// Every shape estimated, in [`SHAPES`] order, with the model's estimate of it (the
    /// fastest is `shape`).
    pub tried: Vec<(Shape, crate::schedule::regs::FactorCandidate)>,
}

/// On a GPU (platform `p`, which must carry the L1 facts the comparison needs): the fastest
/// micro-tiled schedule of a gemm-like kernel by the model; it becomes the first candidate
/// where it is estimated [`gain::MARGIN`] faster than both the preferred schedule and the
/// unstaged one, or wherever `opts.micro` (`--micro`) asks for it (`want`: only the shape of
/// these rows and columns, `--micro --ilp RYxRX`). Returns the verdict (`None` where no shape
/// applies).
pub fn offer(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &mut KernelSchedule,
    kp: &KernelPlan,
    opts: &stage::StageOptions,
    p: &Platform,
    want: Option<(u32, u32)>,
) -> Option<Offer> {
    let l1_facts = p.timing.l1_model() && p.cache.l1_global_loads;
    if !(opts.micro || l1_facts) {
        return None;
    }
    let base = ks.baseline().clone();
    let mut best: Option<(Shape, Schedule, gain::Gain)> = None;
    let mut tried = Vec::new();
    for shape in SHAPES {
        if want.is_some_and(|w| w != (shape.rows, shape.cols)) {
            continue;
        }
        let threads: u32 = shape.launched.iter().product();
        if threads > p.max_threads_per_block {
            continue;
        }
        let Some(s) = schedule(r, deps, &base, kp, opts, shape, K_TILE) else {
            continue;
        };
        let g = gain::compare(&r.ir, &s, &base, p);
        if g.staged.occupancy.spills || g.staged.occupancy.fraction <= 0.0 {
            continue;
        }
        tried.push((shape, g.staged.clone()));
        if best.as_ref().is_none_or(|(_, _, b)| g.speedup > b.speedup) {
            best = Some((shape, s, g));
        }
    }
    let (shape, s, over_unstaged) = best?;
    let over_preferred = gain::compare(&r.ir, &s, ks.preferred(), p);
    let taken = opts.micro
        || over_unstaged.speedup >= gain::MARGIN && over_preferred.speedup >= gain::MARGIN;
    if taken {
        ks.candidates.insert(0, s);
    }
    Some(Offer {
        shape,
        ktile: K_TILE,
        over_preferred,
        over_unstaged,
        taken,
        tried,
    })
}
