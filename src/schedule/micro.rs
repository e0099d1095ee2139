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
//! **Vector reads of the tiles** ([`vector_tiles`], shapes with [`Shape::vector`]): on an
//! H200 both micro-tiles stalled mostly on shared-memory loads (Nsight Compute,
//! `docs/gpu/h200-2026-11-28b/`): an 8×8 tile's 16 scalar reads per `k` are 16 wavefronts of
//! the SM's shared-memory pipe (one per clock) against 64 warp multiply-adds (16 clocks of an
//! H100's 128 FP32 lanes), so the pipe, not the arithmetic, sets the pace. A work-item whose
//! rows and columns come in runs of V adjacent outputs ([`super::WorkShape::vector`]: `l·V +
//! (b mod V) + (b / V)·V·L`) reads each run as one aligned vector (`float4`: V = 16 bytes /
//! element): the `B` tile row-major, the `A` tile stored k-major (transposed, its columns
//! padded so that the copy's stores spread over the banks) so that a run of rows is
//! contiguous too. An 8×8 tile then makes 4 vector reads per `k`, 6 wavefronts (the `A`
//! reads are broadcasts, the `B` reads 256 contiguous bytes per warp) instead of 16; the
//! copies of a run stay coalesced (a warp's 16 work-items along x store 256 contiguous bytes
//! per row). The runs are a schedule decision like the cyclic columns: kernel lowering reads
//! the tiles as vectors where this module recorded it (`StagedArray::vector_reads`).
//!
//! What it does not do (yet): double-buffered k tiles, vector loads in the cooperative copy.

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
    /// The staged tiles are read as vectors ([`vector_tiles`]): rows and columns in runs of
    /// [`VECTOR_BYTES`] / element size.
    pub vector: bool,
}

impl Shape {
    /// How the work-items read the staged tiles, in words.
    pub fn reads(&self) -> &'static str {
        if self.vector {
            "tiles read as vectors"
        } else {
            "tiles read by element"
        }
    }

    /// The grid points a block covers.
    pub fn block(&self) -> [u32; 3] {
        [
            self.launched[0] * self.cols,
            self.launched[1] * self.rows,
            self.launched[2],
        ]
    }
}

/// The block shapes tried: 16×16 work-items with 8×8 outputs each (a block tile of 128×128),
/// 32×8 with 8 rows × 4 columns (128 columns × 64 rows), 16×16 with 4×4 (64×64); each with its
/// tiles read as vectors and with element reads ([`shapes`]).
const BLOCKS: [([u32; 3], u32, u32); 3] =
    [([16, 16, 1], 8, 8), ([32, 8, 1], 8, 4), ([16, 16, 1], 4, 4)];

/// Bytes of one vector read of a tile (`float4`, `double2`, `int4`: CUDA's widest load).
pub const VECTOR_BYTES: u32 = 16;

/// Every shape tried, in the order the model breaks ties: each block of [`BLOCKS`] with
/// vector reads, then each with element reads.
pub fn shapes() -> Vec<Shape> {
    [true, false]
        .into_iter()
        .flat_map(|vector| {
            BLOCKS.map(|(launched, rows, cols)| Shape {
                launched,
                rows,
                cols,
                vector,
            })
        })
        .collect()
}

/// Lays the strip-staged tiles of a micro-tiled plan out for reads as vectors, where the
/// work-item's `rows` × `cols` outputs come in runs of V = [`VECTOR_BYTES`] / (the widest
/// element of those tiles): a tile read by the runs along x (`B[k][j]`) keeps its rows
/// row-major, their length rounded up to a multiple of V; one read by the runs along y
/// (`A[i][k]`) is stored k-major (transposed), each stored column padded to a multiple of V,
/// and by V more where it would be a multiple of 32 elements (the copy stores a column's
/// elements a column apart: 32 banks apart would serialise them). Returns V and records it on
/// each such tile (`vector_reads`), and whether the loop over one strip is unrolled
/// ([`whole_strips`]); `None` where no tile qualifies. A tile qualifies when it
/// is a read-only 2-D tile of the strip and one grid dimension whose loop steps by 1 and whose
/// references share one offset (so that a run's first element is at a multiple of V from the
/// tile's row), its extent the block's along that dimension, and V divides the work-item's
/// outputs along it.
pub fn vector_tiles(
    ir: &crate::ir::Region,
    grid: &[stage::GridLoop],
    spec: &mut stage::StageSpec,
    rows: u32,
    cols: u32,
) -> Option<u32> {
    use stage::Primary;
    let widest = spec
        .arrays
        .iter()
        .filter(|a| a.uses_strip())
        .map(|a| a.elem.size())
        .max()?;
    let v = VECTOR_BYTES / widest.max(1);
    if v < 2 {
        return None;
    }
    let block = spec.block;
    let mut any = false;
    for a in spec.arrays.iter_mut() {
        if a.dims.len() != 2 || a.written || a.field.is_some() || a.interleave.is_some() {
            continue;
        }
        // The dimension moved by a grid loop (`g`) and the strip's.
        let on_grid = |t: &stage::TileDim| match &t.primary {
            Primary::Grid { dim, .. } if t.lo == t.hi => Some(*dim),
            _ => None,
        };
        let (g, dim) = match (on_grid(&a.dims[0]), on_grid(&a.dims[1])) {
            (Some(d), None) if a.dims[1].primary == Primary::Strip => (0usize, d),
            (None, Some(d)) if a.dims[0].primary == Primary::Strip => (1usize, d),
            _ => continue,
        };
        let factor = match dim {
            0 => cols,
            1 => rows,
            _ => continue,
        };
        let step_one = grid
            .iter()
            .find(|l| l.dim == dim)
            .is_some_and(|l| ir.loops[l.loop_id].step == 1);
        if !step_one || factor % v != 0 || a.dims[g].extent != block[dim as usize] {
            continue;
        }
        if g == 1 {
            a.transposed = false;
            a.col_pad = 0;
            a.row_len = a.row_len.max(a.dims[1].extent).next_multiple_of(v);
        } else {
            let ext = a.dims[0].extent;
            let mut col = ext.next_multiple_of(v);
            if col % 32 == 0 {
                col += v;
            }
            a.transposed = true;
            a.col_pad = col - ext;
            a.row_len = a.dims[1].extent;
        }
        a.bank.layout = a.layout();
        a.bank.path.push(format!(
            "read as {v}-element vectors by a register micro-tile: {} (the degrees above are the element reads')",
            if a.transposed {
                format!("stored k-major, columns of {} elements", a.strides()[1])
            } else {
                format!("rows of {} elements", a.row_len)
            }
        ));
        a.vector_reads = v;
        any = true;
    }
    spec.unroll_strip = any && whole_strips(ir, spec);
    any.then_some(v)
}

/// Whether the strip-mined loop of `spec` runs a whole number of strips: it steps by 1 between
/// bounds whose difference is a constant multiple of the strip. Where the tiles are read as
/// vectors, [`vector_tiles`] then has the micro-tile's unguarded copy unroll its loop over one
/// strip (`StageSpec::unroll_strip`): that loop runs exactly the strip's iterations, a constant
/// the device compiler unrolls, so that the loads of one `k` are issued while the multiply-adds
/// of the one before run (an 8×8 tile at 2048³ on sm_90 runs 16 × (4 `LDS.128` + 64 `FFMA`)
/// without the loop's ~12 instructions per `k`, at 128 registers as before), as hand-written
/// SGEMM kernels unroll their k tile. With element reads unrolled, ptxas took 129 registers for
/// 8×8 (one block of 256 work-items per SM instead of two) and 116 for 8×4: those keep their
/// loop.
fn whole_strips(ir: &crate::ir::Region, spec: &stage::StageSpec) -> bool {
    let Some(strip) = &spec.strip else {
        return false;
    };
    let lp = &ir.loops[strip.loop_id];
    let trips = lp
        .upper
        .affine()
        .zip(lp.lower.affine())
        .and_then(|(u, l)| u.sub(l))
        .and_then(|d| d.as_const());
    lp.step == 1 && trips.is_some_and(|n| n > 0 && n % i64::from(strip.size.max(1)) == 0)
}

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
    if spec.arrays.is_empty() || !strip_staged || spec.block != block {
        return None;
    }
    let vector = if shape.vector {
        vector_tiles(&r.ir, &base.grid, &mut spec, shape.rows, shape.cols)?
    } else {
        1
    };
    if spec.smem_bytes() > stage::SMEM_LIMIT {
        return None;
    }
    Some(Schedule {
        shape: WorkShape {
            vector,
            ..WorkShape::plain(block).with_tile(shape.rows, shape.cols)
        },
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
    /// Every shape estimated, in [`shapes`] order, with the model's estimate of it (the
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
    for shape in shapes() {
        if want.is_some_and(|w| w != (shape.rows, shape.cols)) || shape.vector && !opts.vector_tiles
        {
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
