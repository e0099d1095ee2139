//! One schedule per kernel: every decision kernel lowering applies, taken here and only here.
//!
//! For each loop nest of a compute region this stage decides, in one value ([`Schedule`]):
//! - the **grid mapping** (placement Q): which loops go to the grid, on which dimension, and the
//!   range of each mapped iterator (`analysis::mapping` says which loops may go);
//! - the **block shape** (work-items per block; the baseline's comes from the partition engine's
//!   `default_block`, a `vector_length` clause, or the staging plan);
//! - the **staging** ([`stage`]): the tiles in shared memory, their layout against bank
//!   conflicts (padding or transpose, [`stage::bank`]), the strip-mined loop, what is loaded and
//!   stored back (`--opt share`);
//! - the **outputs per work-item** (§3.3.2's ILP factor along y, and along x the columns of a
//!   register micro-tile: RY×RX outputs per work-item);
//! - the **short words** ([`words`], seed 004): 8/16-bit arrays read or written at consecutive
//!   addresses along x, grouped into vector accesses by consecutive outputs per work-item.
//! - **reductions across lanes** ([`lanes`]): a nest whose one grid loop cannot fill the device
//!   runs its inner reduction loop across the lanes of a work-group, where the model predicts a
//!   clear gain over the naive kernel.
//! - **grid-stride reductions** ([`stride`]): a kernel reducing over its grid loops launches
//!   about one wave of work-groups, each work-item accumulating many elements before the tree.
//!
//! A kernel gets its candidate schedules in order of preference ([`KernelSchedule`]): the
//! engine's staging with the chosen rows per work-item, the same with one row, then the baseline
//! (nothing staged), which always applies. Kernel lowering builds the first candidate it can
//! (a staged body can still fail to build, e.g. a `lastprivate` store it cannot order, and says
//! why); it never decides anything itself. `explain` reads the same values, and a tuner varies
//! them.

use std::num::NonZeroU32;

use crate::analysis::dependence::DepInfo;
use crate::diag::{Diag, Diags};
use crate::ir::lower::RegionAst;
use crate::ir::{LoopId, Poly, Region};
use crate::model::Platform;
use crate::partition::{KernelPlan, RegionPlan};

pub mod gain;
pub mod lanes;
pub mod micro;
pub mod order;
pub mod regs;
pub mod rows;
pub mod stage;
pub mod stride;
pub mod tuned;
pub mod variant;
pub mod words;

#[cfg(test)]
pub(crate) mod tests;

pub use order::{BlockOrder, ChannelModel};
pub use stage::{GridLoop, StageSpec};

/// How much the compiler optimizes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    /// The baseline translation: every array in global memory.
    #[default]
    Naive,
    /// Stage the partitions the engine chose in shared memory.
    Share,
}

/// What the schedules of a compilation are chosen for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub opt: OptLevel,
    /// The platform the partition engine sizes for, as staged code can use it
    /// ([`stage::code_platform`]); `None` under [`OptLevel::Naive`].
    pub platform: Option<Platform>,
    /// The outputs per work-item asked for (`--ilp RY[xRX]`; accshare's choice by default).
    pub shape: ShapeRequest,
    /// The engine's options (values of symbolic sizes).
    pub engine: crate::partition::Options,
    /// The staging's own choices (padding against bank conflicts).
    pub stage: stage::StageOptions,
    /// Short-word grouping ([`words`]): `None` is accshare's choice (on), `Some(false)` off.
    pub words: Option<bool>,
}

/// The outputs per work-item asked for (`--ilp RY[xRX]`, `accshare bench`'s levels, tests):
/// rows × columns of a work-item's micro-tile, each `None` where accshare chooses. The one
/// request every layer passes down unchanged (`driver::OptOptions::shape`,
/// [`Options::shape`], [`Coarsening::shape`]); what the schedule makes of it is a
/// [`WorkShape`]. The CLI always asks for both (`--ilp 2` is 2×1); a request of rows alone
/// leaves the columns of an unstaged register tile to accshare.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ShapeRequest {
    /// Rows per work-item (RY).
    pub rows: Option<NonZeroU32>,
    /// Columns per work-item (RX).
    pub cols: Option<NonZeroU32>,
}

impl ShapeRequest {
    /// `rows` × `cols` outputs per work-item (`--ilp RYxRX`).
    ///
    /// # Panics
    /// When either is 0.
    pub fn tile(rows: u32, cols: u32) -> ShapeRequest {
        ShapeRequest {
            rows: Some(factor(rows)),
            cols: Some(factor(cols)),
        }
    }

    /// `rows` rows per work-item, the columns accshare's choice.
    ///
    /// # Panics
    /// When `rows` is 0.
    pub fn rows(rows: u32) -> ShapeRequest {
        ShapeRequest {
            rows: Some(factor(rows)),
            cols: None,
        }
    }

    /// Whether anything is asked for (rows or columns).
    pub fn is_asked(&self) -> bool {
        self.rows.is_some() || self.cols.is_some()
    }

    /// Rows × columns asked for, 1 where accshare would choose.
    pub fn or_one(&self) -> (u32, u32) {
        (
            self.rows.map_or(1, NonZeroU32::get),
            self.cols.map_or(1, NonZeroU32::get),
        )
    }
}

/// `n`, which is not 0 (outputs per work-item).
fn factor(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).expect("outputs per work-item are at least 1")
}

/// The shape of a kernel's work: the block of the grid a thread block covers, and the micro-tile
/// of it each work-item computes (rows × columns, laid out as `layout` says). The schedule makes
/// it; everyone else reads it, and [`WorkShape::launch_block`] is the one conversion to the
/// work-items a block launches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WorkShape {
    /// Grid points per block along x, y, z *before* outputs per work-item.
    pub block: [u32; 3],
    /// Rows of the block each work-item computes (RY of its micro-tile).
    pub rows: NonZeroU32,
    /// Columns of the block each work-item computes (RX of its micro-tile).
    pub cols: NonZeroU32,
    /// Where a work-item's columns lie in its block.
    pub layout: ColLayout,
    /// A micro-tile whose staged tiles are read as vectors ([`micro`]): a work-item's copies
    /// along x and along y come in runs of `vector` adjacent outputs, the runs a launched
    /// block × `vector` apart (`l·V + (b mod V) + (b / V)·V·L`), so that the copies of a run
    /// read consecutive, aligned elements of a tile. 1: no runs (cyclic or contiguous copies as
    /// `layout` says).
    pub vector: u32,
    /// A work-item's rows are adjacent (`ly·RY + a`) rather than a launched block apart: its
    /// outputs read overlapping rows of a tile, which the device compiler then loads once for
    /// all of them ([`rows`]).
    pub adjacent_rows: bool,
}

impl WorkShape {
    /// One output per work-item, columns cyclic.
    pub fn plain(block: [u32; 3]) -> WorkShape {
        WorkShape {
            block,
            rows: NonZeroU32::MIN,
            cols: NonZeroU32::MIN,
            layout: ColLayout::Cyclic,
            vector: 1,
            adjacent_rows: false,
        }
    }

    /// This block with `rows` × `cols` outputs per work-item.
    ///
    /// # Panics
    /// When either is 0.
    pub fn with_tile(self, rows: u32, cols: u32) -> WorkShape {
        WorkShape {
            rows: factor(rows),
            cols: factor(cols),
            ..self
        }
    }

    /// Rows × columns per work-item.
    pub fn tile(&self) -> (u32, u32) {
        (self.rows.get(), self.cols.get())
    }

    /// Work-items per block as launched: a block's rows are run by `block[1] / rows` rows of
    /// work-items, its columns by `block[0] / cols` columns.
    pub fn launch_block(&self) -> [u32; 3] {
        [
            self.block[0] / self.cols,
            self.block[1] / self.rows,
            self.block[2],
        ]
    }

    /// Outputs per work-item (`rows · cols`).
    pub fn outputs(&self) -> u32 {
        self.rows.get() * self.cols.get()
    }
}

/// Every decision of one kernel.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The loop nest the kernel runs.
    pub root: LoopId,
    /// Loops mapped to the grid, outermost first (empty: the nest runs on one work-item).
    pub grid: Vec<GridLoop>,
    /// The block of the grid each thread block covers and how its work-items split it.
    pub shape: WorkShape,
    /// The staging plan (`--opt share` with an engine plan for this nest); it may stage no
    /// array, and then says why in `rejected`.
    pub stage: Option<StageSpec>,
    /// The coarsened computation also gets an unguarded copy, run by the work-items whose
    /// outputs all lie inside the grid (`if (every output in range) { … } else { guarded }`).
    /// Edge guards inside the inner loop keep C compilers from vectorising a micro-tile's
    /// outputs: PoCL runs gemm 1024³ with a contiguous 4×16 tile in 4.7 s with them, 0.7 s
    /// with the unguarded copy. In a staged kernel ([`micro`]) the copies are of the part
    /// between two barriers (`if (accshare_full) { … } else { … }` around each), so that every
    /// work-item still reaches every barrier through the same code.
    pub full_tile_path: bool,
    /// Short-word grouping ([`words`]): `cols` = its width, the x copies consecutive
    /// ([`ColLayout::Contiguous`]); for a transposed vector tile also `ilp` = its rows, the y
    /// copies consecutive ([`Schedule::rows_adjacent`]).
    pub words: Option<words::Words>,
    /// The order in which the blocks take their tiles ([`order`]: diagonal against channel
    /// conflicts).
    pub block_order: BlockOrder,
    /// The channel model's verdict behind `block_order` (platforms with `[channels]` only).
    pub channels: Option<ChannelModel>,
    /// The inner reduction loop runs across the lanes of a work-group ([`lanes`]): the block is
    /// then `shape.block = [lanes, rows, 1]`, lanes along x, one output of the grid loop per
    /// row of the block along y.
    pub lanes: Option<lanes::Lanes>,
    /// The outermost grid loop strides over a grid of at most a few work-groups per compute
    /// unit ([`stride`]): reduction kernels, each work-item accumulating several elements
    /// before the work-group's tree.
    pub stride: Option<stride::GridStride>,
}

impl Schedule {
    /// Whether a work-item's rows are adjacent (`y·RY + r`: a transposed vector tile of
    /// [`words`], or [`WorkShape::adjacent_rows`]) rather than a launched block apart.
    pub fn rows_adjacent(&self) -> bool {
        self.shape.rows.get() > 1
            && (self.shape.adjacent_rows || self.words.as_ref().is_some_and(|w| w.rows > 1))
    }

    /// The runs of adjacent copies along grid dimension `dim`: `R` where all `R` copies are
    /// adjacent (`l·R + b`: the columns of [`ColLayout::Contiguous`], the rows of
    /// [`Self::rows_adjacent`]), [`WorkShape::vector`] for a micro-tile read as vectors, 1
    /// where the copies are a launched block apart (`l + b·TB/R`).
    pub fn copy_run(&self, dim: u8) -> u32 {
        let (rows, cols) = self.shape.tile();
        let f = match dim {
            0 => cols,
            1 => rows,
            _ => return 1,
        };
        let adjacent = match dim {
            0 => self.shape.layout == ColLayout::Contiguous,
            _ => self.rows_adjacent(),
        };
        if adjacent {
            f
        } else if self.shape.vector > 1 && f % self.shape.vector == 0 {
            self.shape.vector
        } else {
            1
        }
    }

    /// The distance, in grid points of dimension `dim`, of a work-item's copy `b` along it from
    /// its copy 0 (see [`Self::copy_run`]): `(b mod V) + (b / V)·V·L` for runs of `V` and `L`
    /// launched work-items along `dim`.
    pub fn copy_offset(&self, dim: u8, b: u32) -> u32 {
        let run = self.copy_run(dim);
        let launched = self.shape.launch_block()[dim as usize];
        b % run + (b / run) * run * launched
    }

    /// With [`Self::full_tile_path`], whether the work-items at an edge compute their outputs
    /// one after another, each whole under its own guard (`if (ok0) { copy 0 } if (ok1) { copy
    /// 1 } …`), instead of the copies interleaved statement by statement under per-statement
    /// guards: for contiguous tiles (the CPU's) of at least [`SERIAL_EDGE_OUTPUTS`] outputs. On a
    /// CPU the interleaved edge copy of a large tile runs scalar with a guard per statement per
    /// output, and the edges then cost more than the rest of the grid: PoCL, gemm 128×128×120
    /// with a 4×16 tile (one partial column of tiles) 1.72 ms interleaved, 0.40 ms serial,
    /// against 0.15 ms at 128×128×128; the 67×101×83 corpus gemm 0.11× the naive kernel
    /// interleaved, 3.0× serial. Small tiles keep the interleaved copy, whose few guards cost
    /// less than the serial copies' loops: mv's 4 columns 0.9 ms interleaved, 5.5–6.3 ms serial
    /// (no edge at all: the serial copy's presence alone stops PoCL's vectorisation); a 3-D
    /// sum's 1×8 tile 64–82 ms against 96–101 ms (one run each, machine loaded). A GPU's tiles
    /// are cyclic: an edge warp runs one path for all its lanes, and the interleaving is its ILP.
    pub fn serial_edges(&self) -> bool {
        self.shape.layout == ColLayout::Contiguous && self.shape.outputs() >= SERIAL_EDGE_OUTPUTS
    }

    /// Fits an unstaged block to the grid's known extents: along a grid dimension whose
    /// iterations are a compile-time constant `E`, the launched work-items are cut to the power
    /// of two that covers `E` with this schedule's outputs per work-item, and the next grid
    /// dimension gets the work-items cut (up to what covers its own extent), so the block keeps
    /// its size. Without it a CPU runs the idle work-items of every block: the corpus's
    /// `acc[p][q]` update over `q < 9` ran a 32-wide block (23 of 32 work-items idle) and a
    /// 16-column tile (every work-item at an edge) at 0.74× its naive kernel; PoCL, 16×8 blocks
    /// 1.6× faster than 32×8 (kernel time, one run). A `vector_length` the program asks for
    /// is kept.
    ///
    /// Where every grid extent is known and the fitted blocks number fewer than `min_groups`
    /// (the device's cores, twice over so that an edge block does not leave one idle), the
    /// block is halved, in the dimension that gains the most blocks, until they do or the
    /// block is as small as it may be ([`CPU_MIN_BLOCK_X`] work-items along x, one along the
    /// others). A register tile grows the area a block covers: without this, 300 outputs of a
    /// 1-D line tile (2 per work-item, 256 work-items) were one block, one of the two cores of
    /// this project's PoCL device idle (the corpus's `bank_mv_double` at 0.91× its naive
    /// kernel, which had two blocks). A kernel of fewer than [`CPU_MIN_SPLIT_WORK`] known
    /// iterations is not split for more blocks: waking another core costs it more than the
    /// core saves.
    pub fn fit_to_extents(&mut self, ir: &Region, min_groups: u32) {
        if vector_length(ir, &self.grid).is_some() {
            return;
        }
        let per_item = [self.shape.cols.get(), self.shape.rows.get(), 1];
        let mut b = self.launch_block();
        let cover = |d: usize| {
            known_extent(ir, &self.grid, d as u8)
                .map(|e| e.div_ceil(per_item[d]).next_power_of_two())
        };
        for d in 0..3 {
            let Some(need) = cover(d) else { continue };
            if b[d] <= need {
                continue;
            }
            let cut = b[d] / need;
            b[d] = need;
            if let Some(n) = (d + 1..3).find(|&n| self.grid.iter().any(|g| g.dim as usize == n)) {
                let cap = cover(n).unwrap_or(u32::MAX).max(b[n]);
                b[n] = b[n].saturating_mul(cut).min(cap);
            }
        }
        let extents: Option<Vec<(usize, u32)>> = self
            .grid
            .iter()
            .map(|g| known_extent(ir, &self.grid, g.dim).map(|e| (g.dim as usize, e)))
            .collect();
        let split = min_groups > 1 && known_work(ir, self).is_none_or(|w| w >= CPU_MIN_SPLIT_WORK);
        if let Some(extents) = extents.filter(|_| split) {
            let groups = |b: &[u32; 3]| -> u64 {
                extents
                    .iter()
                    .map(|&(d, e)| e.div_ceil(b[d] * per_item[d]) as u64)
                    .product()
            };
            let floor = |d: usize| if d == 0 { CPU_MIN_BLOCK_X } else { 1 };
            while groups(&b) < min_groups as u64 {
                let halved = |d: usize| {
                    let mut h = b;
                    h[d] /= 2;
                    h
                };
                let Some(d) = extents
                    .iter()
                    .map(|&(d, _)| d)
                    .filter(|&d| b[d] / 2 >= floor(d))
                    .max_by_key(|&d| (groups(&halved(d)), b[d]))
                else {
                    break;
                };
                b = halved(d);
            }
        }
        self.shape.block = [b[0] * per_item[0], b[1] * per_item[1], b[2]];
    }

    /// The staging plan, when it stages at least one array.
    pub fn staged(&self) -> Option<&StageSpec> {
        self.stage.as_ref().filter(|s| !s.arrays.is_empty())
    }

    /// Work-items per block as launched ([`WorkShape::launch_block`]).
    pub fn launch_block(&self) -> [u32; 3] {
        self.shape.launch_block()
    }
}

/// How the RX columns of a work-item's micro-tile are spread over its block (`lx` its x local
/// id, `TB_X` the block's columns).
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ColLayout {
    /// Columns `lx + b·TB_X/RX`: consecutive work-items touch consecutive elements, so loads
    /// and stores stay coalesced (GPUs).
    #[default]
    Cyclic,
    /// Columns `lx·RX + b`: a work-item's outputs are adjacent, so the device compiler turns
    /// its RX loads, multiply-adds and stores into SIMD vectors (CPU devices, where a
    /// work-item is a loop iteration and coalescing means nothing).
    Contiguous,
}

/// The candidate schedules of one kernel, best first; the last never stages (the baseline).
#[derive(Clone, Debug)]
pub struct KernelSchedule {
    pub root: LoopId,
    pub candidates: Vec<Schedule>,
    /// Whether the preferred schedule is the model's or was measured (`accshare tune`).
    pub origin: tuned::Origin,
    /// The loops that could go on x with the memory sectors a warp touches for each
    /// (`analysis::mapping::mapping_costs`; empty with fewer than two grid loops).
    pub mapping: Vec<(LoopId, String, u64)>,
    /// The search of the outputs per work-item under register pressure ([`regs::choose`]) of a
    /// staged kernel on a GPU: every legal factor with its registers, occupancy and time.
    pub coarsening: Option<regs::FactorChoice>,
    /// The short-word grouping of the unstaged kernel ([`words::decide`]), or why none; `None`
    /// where it was not considered (`--words off`, `--opt naive`, an `--ilp` tile).
    pub words: Option<Result<words::Words, words::NoWords>>,
    /// Staged short-word tiles get grouped copies ([`words::tile_copy`]): also in the staged
    /// variants of the schedule space (`variant::apply`).
    pub tile_words: bool,
    /// The model's comparison of the staged schedule with the unstaged one on a GPU whose L1
    /// caches global loads ([`gain`]); `None` where it was not made.
    pub gain: Option<gain::Gain>,
    /// Whether the inner reduction loop runs across lanes ([`lanes::decide`]; the first
    /// candidate then applies it), or why not; `None` where it was not considered.
    pub lanes: Option<Result<lanes::Lanes, lanes::NoLanes>>,
    /// The model's verdict on a 2-D register micro-tile of the staged nest ([`micro::offer`]);
    /// `None` where none was considered.
    pub micro: Option<micro::Offer>,
}

impl KernelSchedule {
    /// The schedule accshare prefers (what `explain` reports).
    pub fn preferred(&self) -> &Schedule {
        &self.candidates[0]
    }

    /// The schedule that stages nothing, always buildable (the last candidate).
    pub fn baseline(&self) -> &Schedule {
        &self.candidates[self.candidates.len() - 1]
    }
}

/// The schedules of one compute region, and the engine's plan they come from.
#[derive(Clone, Debug)]
pub struct RegionSchedule {
    /// The partition engine's plan (`None` under [`OptLevel::Naive`]).
    pub plan: Option<RegionPlan>,
    /// One entry per nest of the region (`Region::roots`), in order; a nest whose grid cannot
    /// be mapped has no entry (its error is in the diagnostics).
    pub kernels: Vec<KernelSchedule>,
}

/// Schedules every nest of a compute region (region `index` of the file).
pub fn schedule_region(
    r: &RegionAst,
    deps: &DepInfo,
    index: usize,
    opts: &Options,
    diags: &mut Diags,
) -> RegionSchedule {
    let plan = match (opts.opt, &opts.platform) {
        (OptLevel::Share, Some(p)) => Some(crate::partition::analyze_region(
            &r.ir,
            deps,
            index,
            p,
            &opts.engine,
        )),
        _ => None,
    };
    let local_is_global = opts
        .platform
        .as_ref()
        .is_some_and(|p| p.local_memory == crate::model::platform::LocalMemory::Global);
    // The bank-conflict techniques are chosen for the platform's banks.
    let mut stage_options = opts.stage;
    if let Some(p) = &opts.platform {
        stage_options.banks = stage::Banks::of(p);
    }
    let mut kernels = Vec::new();
    for &root in &r.ir.roots {
        let staging = plan
            .as_ref()
            .and_then(|p| p.kernels.iter().find(|k| k.root == root))
            .map(|kp| Staging {
                plan: kp,
                local_is_global,
                options: stage_options,
            });
        let asked = opts.shape.is_asked();
        let ilp = Coarsening {
            shape: opts.shape,
            // Register tiles without staging: asked for, or where local memory is global
            // memory (the CPU's register and cache blocking).
            unstaged: opts.opt == OptLevel::Share && (asked || local_is_global),
            cpu: local_is_global,
            // Short words: by default under `--opt share`, unless `--ilp` asks for a tile.
            words: opts.opt == OptLevel::Share && opts.words != Some(false) && !asked,
            words_asked: opts.words == Some(true),
            tile_words: opts.opt == OptLevel::Share && opts.words != Some(false),
            fit: opts.opt == OptLevel::Share && local_is_global,
            groups: match &opts.platform {
                Some(p) if local_is_global => p.sm_count.saturating_mul(2),
                _ => 0,
            },
        };
        if let Some(mut ks) = schedule_kernel(r, deps, root, staging, ilp, diags) {
            if let Some(p) = opts.platform.as_ref().filter(|_| !local_is_global) {
                let forced = asked;
                choose_factor(r, deps, &mut ks, p, forced, diags);
                if !forced {
                    keep_staging_if_faster(&r.ir, &mut ks, p);
                }
                if let Some(kp) = staging
                    .map(|s| s.plan)
                    .filter(|_| !forced || opts.stage.micro)
                {
                    let want = forced.then(|| opts.shape.or_one());
                    ks.micro = micro::offer(r, deps, &mut ks, kp, &stage_options, p, want);
                }
            }
            // The block order against channel conflicts, on the engine's model of the nest.
            let nest = staging.and_then(|s| s.plan.nest.as_ref());
            if let (Some(p), Some(nest), true) = (&opts.platform, nest, opts.stage.block_order) {
                for s in &mut ks.candidates {
                    order::decide(s, nest, deps, p);
                }
            }
            // The inner reduction loop across lanes, where the model predicts a clear gain
            // over the naive kernel.
            if let Some(p) = opts
                .platform
                .as_ref()
                .filter(|_| opts.opt == OptLevel::Share)
            {
                across_lanes(&r.ir, deps, &mut ks, p, opts.stage.reassociate);
            }
            // Reduction kernels stride over a grid of about one wave of work-groups.
            if let Some(p) = &opts.platform {
                for s in &mut ks.candidates {
                    s.stride = stride::decide(deps, s, opts.opt, p);
                }
            }
            kernels.push(ks);
        }
    }
    RegionSchedule { plan, kernels }
}

/// The outputs per work-item of a staged kernel on a GPU, chosen under register pressure
/// ([`regs::choose`]): the first staged candidate takes the model's factor unless `forced`
/// (`--ilp`), which keeps the factor asked for and warns when its estimate spills.
fn choose_factor(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &mut KernelSchedule,
    p: &Platform,
    forced: bool,
    diags: &mut Diags,
) {
    let Some(first) = ks.candidates.iter().position(|c| c.staged().is_some()) else {
        return;
    };
    let staged = ks.candidates[first].clone();
    if !coarsenable(&r.ir, deps, &staged.grid, staged.root) {
        return;
    }
    let previous = if forced {
        (default_rows(staged.shape.block), 1)
    } else {
        staged.shape.tile()
    };
    let mut choice = regs::choose(&r.ir, &staged, p, previous);
    if forced {
        let asked = regs::candidate(&r.ir, &staged, p);
        if let regs::Verdict::Spills { max } = asked.verdict {
            diags.push(
                Diag::warning(
                    r.ir.loops[staged.root].header_span,
                    format!(
                        "{}×{} outputs per work-item need about {} registers per work-item, more than {} allows ({max}): the kernel will spill to local memory",
                        staged.shape.rows,
                        staged.shape.cols,
                        asked.registers.total(),
                        p.name
                    ),
                )
                .help(format!(
                    "the model would choose {}×{} (`accshare explain`)",
                    choice.chosen.0, choice.chosen.1
                )),
            );
        }
        choice.forced = Some(staged.shape.tile());
        if !choice
            .candidates
            .iter()
            .any(|c| (c.rows, c.cols) == staged.shape.tile())
        {
            choice.candidates.push(asked);
        }
        ks.coarsening = Some(choice);
        return;
    }
    // The staged candidates again, built as `schedule_kernel` builds them, with the factor
    // chosen.
    let (rows, cols) = choice.chosen;
    let end = first
        + ks.candidates[first..]
            .iter()
            .take_while(|c| c.staged().is_some())
            .count();
    ks.candidates
        .splice(first..end, staged_candidates(&r.ir, &staged, rows, cols));
    ks.coarsening = Some(choice);
}

/// Puts the schedule that runs the inner reduction loop across lanes first where
/// [`lanes::decide`] takes it (a tuned kernel keeps its measured schedule); records the
/// verdict for `explain`, except where the nest has no inner loop to consider or the platform
/// no model to decide with.
fn across_lanes(
    ir: &Region,
    deps: &DepInfo,
    ks: &mut KernelSchedule,
    p: &Platform,
    reassociate: bool,
) {
    let base = ks.baseline().clone();
    let verdict = lanes::decide(ir, deps, &base, p, reassociate);
    if let Ok(l) = &verdict {
        ks.candidates.insert(
            0,
            Schedule {
                shape: WorkShape::plain([l.lanes, l.rows, 1]),
                stage: None,
                full_tile_path: false,
                words: None,
                block_order: BlockOrder::Linear,
                channels: None,
                lanes: Some(l.clone()),
                stride: None,
                ..base
            },
        );
        ks.coarsening = None;
    }
    // Not reported where it could not apply: a nest without its shape, a platform without the
    // model — unless a loop of the nest asks for lanes (`loop vector`), which the user would
    // otherwise see ignored without a word.
    let asked = ir.loops[base.root]
        .children
        .iter()
        .any(|&c| ir.loops[c].lanes_asked);
    let silent = match &verdict {
        Err(lanes::NoLanes::Shape(_)) => true,
        Err(lanes::NoLanes::NoModel(_)) => !asked,
        _ => false,
    };
    if !silent {
        ks.lanes = Some(verdict);
    }
}

/// On a platform with the L1 facts, the staged candidates stay only where the model estimates
/// them at least [`gain::MARGIN`] faster than the unstaged kernel; otherwise the unstaged
/// kernel (the last candidate) is preferred and each array the engine chose says why.
fn keep_staging_if_faster(ir: &Region, ks: &mut KernelSchedule, p: &Platform) {
    if !(p.timing.l1_model() && p.cache.l1_global_loads) {
        return;
    }
    let Some(staged) = ks.candidates.iter().find(|c| c.staged().is_some()).cloned() else {
        return;
    };
    let g = gain::compare(ir, &staged, ks.baseline(), p);
    if !g.stage {
        ks.candidates.retain(|c| c.staged().is_none());
        let last = ks.candidates.len() - 1;
        let mut spec = staged.stage.clone().unwrap_or_default();
        let why = stage::Unstaged::NoGain {
            platform: p.name.clone(),
            speedup: g.speedup,
        };
        spec.unstage_all(why, ks.candidates[last].shape.block);
        ks.candidates[last].stage = Some(spec);
        ks.coarsening = None;
    }
    ks.gain = Some(g);
}

/// What staging a kernel starts from: the engine's plan, and whether the target's local memory
/// is its global memory.
#[derive(Copy, Clone, Debug)]
pub struct Staging<'a> {
    pub plan: &'a KernelPlan,
    /// Local memory is global memory (CPU OpenCL devices): a tile saves no memory traffic and
    /// its barriers split the work-item loops, so nothing is staged (each array the plan chose
    /// says why in `explain`).
    pub local_is_global: bool,
    /// The staging's own choices.
    pub options: stage::StageOptions,
}

/// The outputs per work-item asked for, and whether unstaged kernels get a register tile.
#[derive(Copy, Clone, Debug, Default)]
pub struct Coarsening {
    /// The outputs per work-item asked for ([`Options::shape`]).
    pub shape: ShapeRequest,
    /// Unstaged kernels are coarsened too (a register micro-tile without shared memory).
    pub unstaged: bool,
    /// The target is a CPU device (local memory is global memory): the unstaged micro-tiles of
    /// 2-D grids are [`ColLayout::Contiguous`], as wide as [`CPU_TILE_BYTES`], in small blocks.
    pub cpu: bool,
    /// Unstaged kernels without a register tile group their short words ([`words`]).
    pub words: bool,
    /// `--words on`: grouped wherever legal, also where accshare would not by default (a
    /// loop-free nest on a CPU device).
    pub words_asked: bool,
    /// Staged tiles of short words are copied a vector per work-item
    /// ([`words::tile_copy`]): under `--opt share` unless `--words off`, with or without
    /// `--ilp`.
    pub tile_words: bool,
    /// Unstaged blocks are fitted to the grid's known extents ([`Schedule::fit_to_extents`]):
    /// under `--opt share` on CPU devices.
    pub fit: bool,
    /// Blocks a fitted grid of known extents keeps at least: twice the device's compute units
    /// (0 or 1: no minimum).
    pub groups: u32,
}

/// The candidates of nest `root`: staged as the engine planned (`staging`) with the outputs per
/// work-item asked for (`ilp`) or chosen, staged with one output, unstaged with a register
/// micro-tile (where `ilp.unstaged`), and the baseline.
pub fn schedule_kernel(
    r: &RegionAst,
    deps: &DepInfo,
    root: LoopId,
    staging: Option<Staging>,
    ilp: Coarsening,
    diags: &mut Diags,
) -> Option<KernelSchedule> {
    let ir = &r.ir;
    let grid = grid_loops(ir, deps, root, diags)?;
    let mut baseline = Schedule {
        root,
        shape: WorkShape::plain(baseline_block(ir, &grid)),
        grid,
        stage: None,
        full_tile_path: false,
        words: None,
        block_order: BlockOrder::Linear,
        channels: None,
        lanes: None,
        stride: None,
    };
    if ilp.fit {
        baseline.fit_to_extents(ir, ilp.groups);
    }
    let mut candidates = Vec::new();
    if let Some(st) = staging {
        let mut spec = stage::plan_with(r, root, &baseline.grid, st.plan, &st.options);
        if st.local_is_global {
            spec.unstage_all(stage::Unstaged::LocalMemoryIsGlobal, baseline.shape.block);
        }
        if ilp.tile_words {
            let block = spec.block;
            for a in &mut spec.arrays {
                a.copy_words = words::tile_copy(ir, a, block);
            }
        }
        if spec.arrays.is_empty() {
            // Nothing to stage: the baseline (perhaps with a register tile), with the plan's
            // reasons.
            let baseline = Schedule {
                stage: Some(spec),
                ..baseline.clone()
            };
            candidates.extend(unstaged_tile(ir, deps, &baseline, ilp));
            candidates.push(baseline);
        } else {
            let f = rows_per_work_item(ir, deps, &baseline.grid, root, spec.block, ilp.shape.rows);
            let c = cols_per_work_item(ir, deps, &baseline.grid, root, spec.block, ilp.shape.cols);
            let staged = Schedule {
                shape: WorkShape {
                    block: spec.block,
                    ..baseline.shape
                },
                stage: Some(spec),
                full_tile_path: true,
                ..baseline.clone()
            };
            candidates.extend(staged_candidates(ir, &staged, f, c));
            candidates.extend(unstaged_tile(ir, deps, &baseline, ilp));
            candidates.push(baseline);
        }
    } else {
        candidates.extend(unstaged_tile(ir, deps, &baseline, ilp));
        candidates.push(baseline);
    }
    let mapping = crate::analysis::mapping::mapping_costs(ir, deps, root)
        .into_iter()
        .map(|c| (c.x, ir.loops[c.x].var.clone(), c.sectors))
        .collect();
    let words = ilp.words.then(|| {
        let base = &candidates[candidates.len() - 1];
        words::decide(ir, deps, base, ilp)
    });
    Some(KernelSchedule {
        root,
        candidates,
        origin: tuned::Origin::Model,
        mapping,
        coarsening: None,
        words,
        tile_words: ilp.tile_words,
        gain: None,
        lanes: None,
        micro: None,
    })
}

/// The staged candidates of a kernel staged as `staged`: with `rows` × `cols` outputs per
/// work-item where that is more than one, then with one output per work-item.
fn staged_candidates(ir: &Region, staged: &Schedule, rows: u32, cols: u32) -> Vec<Schedule> {
    let with = |rows, cols| {
        let mut s = Schedule {
            shape: staged.shape.with_tile(rows, cols),
            ..staged.clone()
        };
        rows::lay_out(ir, &mut s);
        s
    };
    let mut out = Vec::new();
    if rows * cols > 1 {
        out.push(with(rows, cols));
    }
    out.push(with(1, 1));
    out
}

/// The grid loops of nest `root` (`analysis::mapping`) with the range of each iterator over the
/// grid; `None` (with an error) when a mapped loop's range cannot be computed.
fn grid_loops(
    ir: &Region,
    deps: &DepInfo,
    root: LoopId,
    diags: &mut Diags,
) -> Option<Vec<GridLoop>> {
    let mapped = crate::analysis::mapping::grid_mapping(ir, deps, root);
    let mut grid: Vec<GridLoop> = Vec::new();
    let mut ok = true;
    for (loop_id, dim) in mapped {
        let outer: Vec<LoopId> = grid.iter().map(|g| g.loop_id).collect();
        match iter_range(ir, loop_id, &outer) {
            Some((min, max)) => grid.push(GridLoop {
                loop_id,
                dim,
                min,
                max,
            }),
            None => {
                ok = false;
                diags.push(Diag::error(
                    ir.loops[loop_id].header_span,
                    "the bounds of this loop cannot be mapped to the grid",
                ));
            }
        }
    }
    ok.then_some(grid)
}

/// Iterations of grid dimension `dim` where they are a compile-time constant.
fn known_extent(ir: &Region, grid: &[GridLoop], dim: u8) -> Option<u32> {
    let g = grid.iter().find(|g| g.dim == dim)?;
    let span = g.max.sub(&g.min)?.as_const()?;
    let step = ir.loops[g.loop_id].step.unsigned_abs().max(1);
    u32::try_from(u64::try_from(span).ok()? / step + 1).ok()
}

/// Interval `[min, max]` of loop `l`'s iterator over the grid whose outer mapped loops are
/// `outer` (polynomials in parameters).
fn iter_range(ir: &Region, l: LoopId, outer: &[LoopId]) -> Option<(Poly, Poly)> {
    let lp = &ir.loops[l];
    let lo = lp.lower.affine()?;
    let hi = lp.upper.affine()?;
    let one = Poly::constant(1);
    if lp.step > 0 {
        let min = ir.extreme(lo, outer, false)?;
        let max = ir.extreme(&hi.sub(&one)?, outer, true)?;
        Some((min, max))
    } else {
        let min = ir.extreme(&hi.add(&one)?, outer, false)?;
        let max = ir.extreme(lo, outer, true)?;
        Some((min, max))
    }
}

/// The block of an unstaged kernel: the engine's default shape for its grid, or `[v, 1, 1]` for
/// a `vector_length(v)` on the innermost grid loop (a power of two up to 1024).
fn baseline_block(ir: &Region, grid: &[GridLoop]) -> [u32; 3] {
    match vector_length(ir, grid) {
        Some(v) => [v, 1, 1],
        None => crate::partition::default_block(grid.len()),
    }
}

/// The `vector_length(v)` of the innermost grid loop, where it is a power of two up to 1024.
fn vector_length(ir: &Region, grid: &[GridLoop]) -> Option<u32> {
    grid.last()
        .and_then(|g| ir.loops[g.loop_id].vector_len)
        .filter(|v| v.is_power_of_two() && (1..=1024).contains(v))
}

/// Least work-items per block a kernel with several rows per work-item keeps (two warps).
pub const MIN_ILP_THREADS: u32 = 64;
/// Most rows per work-item chosen by default.
pub const MAX_ILP: u32 = 4;

/// Rows per work-item of a staged kernel (§3.3.2): after staging, a block of `TB_Y` rows is run
/// by `TB_Y / F` rows of work-items, each computing F outputs along y (x stays one output per
/// work-item, so accesses stay coalesced).
///
/// By default F is the largest power of two up to [`MAX_ILP`] that divides `TB_Y` and leaves at
/// least [`MIN_ILP_THREADS`] work-items per block: 4 is the classic register-tiling depth (the
/// CUDA SDK's transpose and the usual 32×8 gemm), enough independent work to hide latency
/// without the register pressure of 8. The paper instead times every factor on the device; a
/// compiler that runs offline cannot, and `--ilp N` asks for N (reduced to a power of two that
/// divides `TB_Y`). Always 1 with fewer than two grid dimensions, with reductions of the grid
/// loops (their trees assume one value per work-item) or with atomic statements.
pub fn rows_per_work_item(
    ir: &Region,
    deps: &DepInfo,
    grid: &[GridLoop],
    root: LoopId,
    block: [u32; 3],
    request: Option<NonZeroU32>,
) -> u32 {
    if grid.len() < 2 || !coarsenable(ir, deps, grid, root) {
        return 1;
    }
    match request {
        Some(want) => dividing_factor(want, block[1]),
        None => default_rows(block),
    }
}

/// Whether a kernel may compute several outputs per work-item: not with reductions of its grid
/// loops (their trees assume one value per work-item) or atomic statements.
pub(crate) fn coarsenable(ir: &Region, deps: &DepInfo, grid: &[GridLoop], root: LoopId) -> bool {
    let reductions = grid
        .iter()
        .any(|g| !deps.loops[g.loop_id].reductions.is_empty());
    let atomic = ir
        .stmts
        .iter()
        .any(|s| s.atomic.is_some() && s.loops.first() == Some(&root));
    !grid.is_empty() && !reductions && !atomic
}

/// The largest power of two up to `want` (at most 64) that divides `extent`.
fn dividing_factor(want: NonZeroU32, extent: u32) -> u32 {
    let want = want.get().min(64);
    let mut f = 1;
    while f * 2 <= want && extent % (f * 2) == 0 {
        f *= 2;
    }
    f
}

/// Columns per work-item of a staged kernel (RX of a register micro-tile): work-item `lx`
/// computes the columns `lx + b·TB_X/RX`, cyclically, so consecutive work-items still touch
/// consecutive elements. Only where asked for (`--ilp RYxRX`, `accshare tune`): on a GPU the
/// block's x extent is what coalesces, and the model's staged blocks are as narrow as a warp.
pub fn cols_per_work_item(
    ir: &Region,
    deps: &DepInfo,
    grid: &[GridLoop],
    root: LoopId,
    block: [u32; 3],
    request: Option<NonZeroU32>,
) -> u32 {
    match request {
        Some(want) if coarsenable(ir, deps, grid, root) => dividing_factor(want, block[0]),
        _ => 1,
    }
}

/// Outputs per work-item of an unstaged register micro-tile by default: 4 rows where the nest
/// reads, inside a sequential loop, an operand shared by the outputs of a column (one that
/// depends on the x iterator but not on y: gemm's `B[k][j]`), 4 columns where it reads one
/// shared by the outputs of a row (on y but not x: `A[i][k]`; in a 1-D grid any operand
/// independent of x, mv's `x[j]`). A stencil, whose every read depends on both, gets none:
/// its neighbours' loads are not the same address. Measured on PoCL (CPU, kernel time, one
/// run each): gemm 1024³ 3.6× faster than the naive kernel with 4×4 cyclic, mv 7.3× with 4
/// columns. A CPU takes other defaults: [`CPU_TILE_BYTES`] wide rows in a 2-D grid,
/// [`CPU_LINE_TILE`] copies in a 1-D one.
pub const TILE_DEFAULT: u32 = 4;

/// Bytes of a row of a CPU micro-tile ([`ColLayout::Contiguous`]): two 256-bit (one 512-bit)
/// SIMD registers, 16 floats or 8 doubles per row (narrower elements count as 4 bytes: they
/// are computed in `int`). With 4 rows that is 8 vector accumulators,
/// which fit the 16 registers of AVX2 as well as the 32 of AVX-512 (PoCL, gemm 1024³ on this
/// project's AVX-512 machine, kernel time of contiguous tiles: 4×4 1.34 s, 4×8 0.90 s, 4×16
/// 0.76 s, 8×16 0.51 s, the last spilling on AVX2; `accshare tune` tries 8×16).
pub const CPU_TILE_BYTES: u32 = 64;

/// Outputs per work-item of a CPU micro-tile in a 1-D grid (mv's rows): 2 cyclic copies, not
/// [`TILE_DEFAULT`]. The copies of a 1-D tile read rows a launched block apart, and with 4 of
/// them LLVM's SLP vectoriser (PoCL's compiler) packs their loads into one `vgatherqps` per
/// iteration, which is slow on x86 (microcoded on AMD, and on Intel since the Gather Data
/// Sampling mitigation); with 2 it keeps them scalar. Which factor the cost model packs depends
/// on the addresses (mv with constant extents gathers with 8 copies, not with 4), so the default
/// is the factor that never did. PoCL, kernel time against the naive kernel, best of 3 in one
/// run (loaded machine): atax's `A·x` on a VLA at 1610×2010 1.78× with 2 copies, 0.74× with 4;
/// at 2048² 5.8× and 0.69×; mv 4096² with constant extents 1.57× and 2.57× (8 copies, which
/// gather: 1.08×); k-means' assignment at 150000 points 1.7–2.3× with 2 (`accshare bench`, two
/// runs), 0.48× with 4 in the corpus run before. `accshare tune` tries the other factors.
pub const CPU_LINE_TILE: u32 = 2;

/// Fewest work-items along x a block fitted to a small grid is cut to
/// ([`Schedule::fit_to_extents`]): the 8 lanes PoCL's work-group vectoriser packs (AVX2 floats).
pub const CPU_MIN_BLOCK_X: u32 = 8;

/// Fewest iterations (known at compile time, [`known_work`]) of a kernel whose block
/// [`Schedule::fit_to_extents`] halves for more blocks than the grid fills. PoCL, this
/// project's 2-core machine, `accshare bench --reps 21`, the levels timed in turn: the
/// corpus's `column_stats` `sq`/`hist` update (45 columns × 67 rows, 3015 iterations) ran at
/// 0.83–0.85× its naive kernel in three runs with six blocks of 8 work-items against one of
/// 256, where `bank_mv_double` (300 rows × 200, 60000) gained 1.57× from its second block.
pub const CPU_MIN_SPLIT_WORK: u64 = 1 << 14;

/// The smallest contiguous tile whose edges run serially ([`Schedule::serial_edges`]).
pub const SERIAL_EDGE_OUTPUTS: u32 = 16;

/// Work-items per block of a 2-D CPU micro-tile: 8×8 (with 4×16 tiles a block covers 128
/// columns × 32 rows, so gemm's `B` panel of a block stays in L2: 8×8 0.76 s against 0.93–1.29
/// s for 32×8 launched blocks in the same measurement).
pub const CPU_TILE_BLOCK: [u32; 3] = [8, 8, 1];
/// The unstaged kernel with more than one output per work-item: a register micro-tile where
/// there is one, else short words grouped where there are any.
fn unstaged_tile(
    ir: &Region,
    deps: &DepInfo,
    baseline: &Schedule,
    ilp: Coarsening,
) -> Option<Schedule> {
    let words = || {
        ilp.words
            .then(|| words::tile(ir, deps, baseline, ilp))
            .flatten()
    };
    let fit = |mut t: Schedule| {
        if ilp.fit {
            t.fit_to_extents(ir, ilp.groups);
        }
        t
    };
    let tile = match register_tile(ir, deps, baseline, ilp) {
        // A CPU tile taken for SIMD lanes alone (no operand shared across its outputs) gives
        // way to short words, which make the same adjacent outputs' bytes vector accesses.
        Some(t) if !ilp.shape.is_asked() && !reuses_operands(ir, baseline) => words().or(Some(t)),
        Some(t) => Some(t),
        None => words(),
    };
    tile.map(fit)
}

/// Whether the nest reads an operand that several outputs of a register tile would share.
fn reuses_operands(ir: &Region, baseline: &Schedule) -> bool {
    let on = |d: u8| baseline.grid.iter().find(|g| g.dim == d).map(|g| g.loop_id);
    let (indep_y, indep_x) = operand_reuse(ir, baseline, on(1), on(0));
    indep_y || indep_x
}

/// The unstaged kernel with a register micro-tile (RY×RX outputs per work-item, the block
/// grown by the same factors), when `ilp` asks for one (or `ilp.unstaged` and the nest reuses
/// operands across outputs, see [`TILE_DEFAULT`]). On a GPU the launched block is the
/// baseline's and the columns are cyclic; on a CPU ([`Coarsening::cpu`]) with a 2-D grid the
/// columns are contiguous, [`CPU_TILE_BYTES`] wide by default, in blocks of [`CPU_TILE_BLOCK`].
fn register_tile(
    ir: &Region,
    deps: &DepInfo,
    baseline: &Schedule,
    ilp: Coarsening,
) -> Option<Schedule> {
    if !ilp.unstaged || !coarsenable(ir, deps, &baseline.grid, baseline.root) {
        return None;
    }
    let on = |d: u8| baseline.grid.iter().find(|g| g.dim == d).map(|g| g.loop_id);
    let (y, x) = (on(1), on(0));
    let (indep_y, indep_x) = operand_reuse(ir, baseline, y, x);
    // A CPU's row of outputs is a SIMD vector. Not in a 1-D grid, whose outputs are
    // independent dot products (mv): PoCL runs mv 4096² in 12 ms with 4 cyclic rows per
    // work-item, 32 ms naive and 114 ms with 4 adjacent rows (kernel time, one run).
    let wide = ilp.cpu && y.is_some();
    let default_cols = if wide {
        (CPU_TILE_BYTES / widest_element(ir, baseline.root).max(4)).max(1)
    } else if ilp.cpu {
        CPU_LINE_TILE
    } else {
        TILE_DEFAULT
    };
    // On a CPU, PoCL vectorises a nest without inner loops across work-items by itself (its
    // work-item loop is then the innermost loop); one with a sequential loop inside is run one
    // work-item at a time, and only adjacent outputs of one work-item become SIMD lanes. So
    // there a CPU tile pays without operand reuse too: the 5×5 u8 Gauss filter 2.7× faster
    // with 1×16, while hotspot's and transpose's loop-free bodies gain nothing (PoCL, region
    // time, one run each).
    let lanes = wide && has_inner_loop(ir, baseline);
    let pick =
        |req: Option<NonZeroU32>, present: bool, reuse: bool, default: u32| match (req, present) {
            (_, false) => 1,
            (Some(n), true) => n.get().min(64).next_power_of_two().min(64),
            (None, true) if reuse => default,
            (None, true) => 1,
        };
    // Rows pay with an operand the rows of a column share (independent of y), columns with one
    // the columns of a row share (independent of x).
    let rows = pick(ilp.shape.rows, y.is_some(), indep_y, TILE_DEFAULT);
    // Columns taken for SIMD lanes alone (no operand shared along a row) are 4: a stencil's
    // taps each load the tile's whole row, and wider rows were slower (PoCL, 1800×1400, kernel
    // time against the naive kernel, three runs each: a 3×3 convolution with a filter array
    // 1.2–1.6× with 4 columns, 0.6–1.0× with 8 or 16; a 9-point smoothing 1.7–2.3× with 4,
    // 0.8–1.4× with 16).
    let lane_cols = if indep_x { default_cols } else { TILE_DEFAULT };
    let cols = pick(ilp.shape.cols, x.is_some(), indep_x || lanes, lane_cols);
    // A default tile is no wider (taller) than the grid's known extent along x (y): the
    // largest power of two within it, so that most work-items are whole tiles.
    let within =
        |n: u32, req: Option<NonZeroU32>, dim: u8| match known_extent(ir, &baseline.grid, dim) {
            Some(e) if ilp.fit && req.is_none() && e < n => 1 << e.max(1).ilog2(),
            _ => n,
        };
    let (rows, cols) = (
        within(rows, ilp.shape.rows, 1),
        within(cols, ilp.shape.cols, 0),
    );
    if rows * cols <= 1 {
        return None;
    }
    let mut block = if wide {
        [
            CPU_TILE_BLOCK[0],
            CPU_TILE_BLOCK[1],
            baseline.shape.block[2],
        ]
    } else {
        baseline.shape.block
    };
    block[0] *= cols;
    block[1] *= rows;
    let layout = if wide {
        ColLayout::Contiguous
    } else {
        ColLayout::Cyclic
    };
    Some(Schedule {
        shape: WorkShape {
            layout,
            ..WorkShape::plain(block)
        }
        .with_tile(rows, cols),
        full_tile_path: true,
        ..baseline.clone()
    })
}

/// Iterations of the nest's body when every trip count is known: the grid's points times the
/// most iterations of the loops inside the grid around any one reference (`None` where a trip
/// count is not a constant).
fn known_work(ir: &Region, s: &Schedule) -> Option<u64> {
    let outputs = s
        .grid
        .iter()
        .map(|g| known_extent(ir, &s.grid, g.dim).map(u64::from))
        .product::<Option<u64>>()?;
    let mut inner = 1u64;
    for a in ir
        .accesses
        .iter()
        .filter(|a| a.loops.first() == Some(&s.root))
    {
        let mut n = 1u64;
        for l in a
            .loops
            .iter()
            .filter(|l| !s.grid.iter().any(|g| g.loop_id == **l))
        {
            let t = crate::analysis::mapping::trip(ir, *l)?;
            n = n.saturating_mul(u64::try_from(t).unwrap_or(0));
        }
        inner = inner.max(n);
    }
    Some(outputs.saturating_mul(inner))
}

/// Whether an access of the nest lies inside a loop that is not mapped to the grid.
fn has_inner_loop(ir: &Region, s: &Schedule) -> bool {
    ir.accesses.iter().any(|a| {
        a.loops.first() == Some(&s.root)
            && a.loops
                .iter()
                .any(|l| !s.grid.iter().any(|g| g.loop_id == *l))
    })
}

/// The size in bytes of the widest element the nest `root` reads or writes.
fn widest_element(ir: &Region, root: LoopId) -> u32 {
    ir.accesses
        .iter()
        .filter(|a| a.loops.first() == Some(&root))
        .filter_map(|a| ir.arrays.get(&a.array))
        .map(|a| a.elem.size())
        .max()
        .unwrap_or(4)
}

/// Whether the nest reads, inside a sequential loop of the nest, an affine operand independent
/// of the y iterator (the outputs of a column share it) and one independent of the x iterator
/// (the outputs of a row share it).
fn operand_reuse(ir: &Region, s: &Schedule, y: Option<LoopId>, x: Option<LoopId>) -> (bool, bool) {
    let grid: Vec<LoopId> = s.grid.iter().map(|g| g.loop_id).collect();
    let (mut indep_y, mut indep_x) = (false, false);
    for a in ir.accesses.iter() {
        if !a.reads() || a.loops.first() != Some(&s.root) || !a.is_affine() {
            continue;
        }
        let seq: Vec<&str> = a
            .loops
            .iter()
            .filter(|l| !grid.contains(l))
            .map(|l| ir.loops[*l].var.as_str())
            .collect();
        let mentions = |l: Option<LoopId>| {
            l.is_some_and(|l| {
                let v = &ir.loops[l].var;
                a.subscripts.iter().flatten().any(|p| p.mentions(v))
            })
        };
        let streams = a
            .subscripts
            .iter()
            .flatten()
            .any(|p| seq.iter().any(|v| p.mentions(v)));
        if !streams {
            continue;
        }
        // An operand that depends on neither (a filter weight) is shared by every output
        // whatever the tile: it asks for no tile of its own, except along x in a 1-D grid.
        indep_y |= !mentions(y) && mentions(x);
        indep_x |= !mentions(x) && (y.is_none() || mentions(y));
    }
    (indep_y, indep_x)
}

/// The default rows per work-item of a staged block (see [`rows_per_work_item`]).
pub fn default_rows(block: [u32; 3]) -> u32 {
    let threads = |rows| {
        let shape = WorkShape::plain(block).with_tile(rows, 1);
        shape.launch_block().iter().product::<u32>()
    };
    let mut f = 1;
    while f < MAX_ILP && block[1] % (f * 2) == 0 && threads(f * 2) >= MIN_ILP_THREADS {
        f *= 2;
    }
    f
}

/// The schedule φ and placement Q of every statement of a region (the paper's notation): Q the
/// iterators mapped to the grid (thread coordinates), φ the iterators each thread runs
/// sequentially (time). Printed after the IR by `--emit ir`.
pub fn phi_q_text(ir: &Region, rs: &RegionSchedule) -> String {
    const DIM: [&str; 3] = ["x", "y", "z"];
    let mut out = String::new();
    for ks in &rs.kernels {
        let grid = &ks.preferred().grid;
        for s in ir
            .stmts
            .iter()
            .filter(|s| s.loops.first() == Some(&ks.root))
        {
            let q: Vec<String> = s
                .loops
                .iter()
                .filter_map(|l| grid.iter().find(|g| g.loop_id == *l))
                .map(|g| format!("{}→{}", ir.loops[g.loop_id].var, DIM[g.dim as usize % 3]))
                .collect();
            let phi: Vec<&str> = s
                .loops
                .iter()
                .filter(|l| !grid.iter().any(|g| g.loop_id == **l))
                .map(|l| ir.loops[*l].var.as_str())
                .collect();
            out.push_str(&format!(
                "  S{}: φ = ({}), Q = ({})\n",
                s.id,
                phi.join(", "),
                q.join(", ")
            ));
        }
    }
    out
}
