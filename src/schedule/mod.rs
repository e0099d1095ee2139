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
//!
//! A kernel gets its candidate schedules in order of preference ([`KernelSchedule`]): the
//! engine's staging with the chosen rows per work-item, the same with one row, then the baseline
//! (nothing staged), which always applies. Kernel lowering builds the first candidate it can
//! (a staged body can still fail to build, e.g. a `lastprivate` store it cannot order, and says
//! why); it never decides anything itself. `explain` reads the same values, and a tuner varies
//! them.

use crate::analysis::dependence::DepInfo;
use crate::diag::{Diag, Diags};
use crate::ir::lower::RegionAst;
use crate::ir::{LoopId, Poly, Region};
use crate::model::Platform;
use crate::partition::{KernelPlan, RegionPlan};

pub mod order;
pub mod stage;
pub mod tuned;
pub mod variant;
pub mod words;

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
    /// Rows per work-item (`--ilp RY[xRX]`); `None`: accshare's choice.
    pub ilp: Option<u32>,
    /// Columns per work-item (`--ilp RYxRX`); `None`: accshare's choice.
    pub cols: Option<u32>,
    /// The engine's options (values of symbolic sizes).
    pub engine: crate::partition::Options,
    /// The staging's own choices (padding against bank conflicts).
    pub stage: stage::StageOptions,
    /// Short-word grouping ([`words`]): `None` is accshare's choice (on), `Some(false)` off.
    pub words: Option<bool>,
}

/// Every decision of one kernel.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The loop nest the kernel runs.
    pub root: LoopId,
    /// Loops mapped to the grid, outermost first (empty: the nest runs on one work-item).
    pub grid: Vec<GridLoop>,
    /// Work-items per block along x, y, z *before* rows per work-item: the rows of the grid a
    /// block covers. The launched block is [`Schedule::launch_block`].
    pub block: [u32; 3],
    /// The staging plan (`--opt share` with an engine plan for this nest); it may stage no
    /// array, and then says why in `rejected`.
    pub stage: Option<StageSpec>,
    /// Rows of the block each work-item computes (RY of its micro-tile).
    pub ilp: u32,
    /// Columns of the block each work-item computes (RX of its micro-tile), cyclically: the
    /// work-item at `lx` computes `lx + b·block[0]/cols`, so x stays coalesced; with
    /// [`Schedule::words`], consecutively: `cols·lx + b` (the lanes of a vector access).
    pub cols: u32,
    /// Short-word grouping ([`words`]): `cols` = its width, the x copies consecutive.
    pub words: Option<words::Words>,
    /// The order in which the blocks take their tiles ([`order`]: diagonal against channel
    /// conflicts).
    pub block_order: BlockOrder,
    /// The channel model's verdict behind `block_order` (platforms with `[channels]` only).
    pub channels: Option<ChannelModel>,
}

impl Schedule {
    /// The staging plan, when it stages at least one array.
    pub fn staged(&self) -> Option<&StageSpec> {
        self.stage.as_ref().filter(|s| !s.arrays.is_empty())
    }

    /// Work-items per block as launched: a block's rows are run by `block[1] / ilp` rows of
    /// work-items, its columns by `block[0] / cols` columns.
    pub fn launch_block(&self) -> [u32; 3] {
        [
            self.block[0] / self.cols.max(1),
            self.block[1] / self.ilp.max(1),
            self.block[2],
        ]
    }
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
    /// The short-word grouping of the unstaged kernel ([`words::decide`]), or why none; `None`
    /// where it was not considered (`--words off`, `--opt naive`, an `--ilp` tile).
    pub words: Option<Result<words::Words, words::NoWords>>,
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
        let ilp = Coarsening {
            rows: opts.ilp,
            cols: opts.cols,
            // Register tiles without staging: asked for, or where local memory is global
            // memory (the CPU's register and cache blocking).
            unstaged: opts.opt == OptLevel::Share
                && (opts.ilp.is_some() || opts.cols.is_some() || local_is_global),
            // Short words: by default under `--opt share`, unless `--ilp` asks for a tile.
            words: opts.opt == OptLevel::Share
                && opts.words != Some(false)
                && opts.ilp.is_none()
                && opts.cols.is_none(),
        };
        if let Some(mut ks) = schedule_kernel(r, deps, root, staging, ilp, diags) {
            // The block order against channel conflicts, on the engine's model of the nest.
            let nest = staging.and_then(|s| s.plan.nest.as_ref());
            if let (Some(p), Some(nest), true) = (&opts.platform, nest, opts.stage.block_order) {
                for s in &mut ks.candidates {
                    order::decide(s, nest, deps, p);
                }
            }
            kernels.push(ks);
        }
    }
    RegionSchedule { plan, kernels }
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
    /// Rows per work-item (`None`: accshare's choice).
    pub rows: Option<u32>,
    /// Columns per work-item (`None`: accshare's choice).
    pub cols: Option<u32>,
    /// Unstaged kernels are coarsened too (a register micro-tile without shared memory).
    pub unstaged: bool,
    /// Unstaged kernels without a register tile group their short words ([`words`]).
    pub words: bool,
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
    let baseline = Schedule {
        root,
        block: baseline_block(ir, &grid),
        grid,
        stage: None,
        ilp: 1,
        cols: 1,
        words: None,
        block_order: BlockOrder::Linear,
        channels: None,
    };
    let mut candidates = Vec::new();
    if let Some(st) = staging {
        let mut spec = stage::plan_with(r, root, &baseline.grid, st.plan, &st.options);
        if st.local_is_global {
            let mut names: Vec<String> = spec.arrays.drain(..).map(|a| a.name).collect();
            names.dedup();
            for a in names {
                spec.rejected
                    .push((a, stage::Unstaged::LocalMemoryIsGlobal));
            }
            spec.strip = None;
            spec.block = baseline.block;
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
            let f = rows_per_work_item(ir, deps, &baseline.grid, root, spec.block, ilp.rows);
            let c = cols_per_work_item(ir, deps, &baseline.grid, root, spec.block, ilp.cols);
            let staged = Schedule {
                block: spec.block,
                stage: Some(spec),
                ilp: f,
                cols: c,
                ..baseline.clone()
            };
            if f * c > 1 {
                candidates.push(staged.clone());
            }
            candidates.push(Schedule {
                ilp: 1,
                cols: 1,
                ..staged
            });
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
        words::decide(ir, deps, base)
    });
    Some(KernelSchedule {
        root,
        candidates,
        origin: tuned::Origin::Model,
        mapping,
        words,
    })
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
    if let Some(v) = grid.last().and_then(|g| ir.loops[g.loop_id].vector_len) {
        if v.is_power_of_two() && (1..=1024).contains(&v) {
            return [v, 1, 1];
        }
    }
    crate::partition::default_block(grid.len())
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
    request: Option<u32>,
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
fn dividing_factor(want: u32, extent: u32) -> u32 {
    let want = want.clamp(1, 64);
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
    request: Option<u32>,
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
/// run each): gemm 1024³ 3.6× faster than the naive kernel with 4×4, mv 7.3× with 4 columns.
pub const TILE_DEFAULT: u32 = 4;

/// The unstaged kernel with more than one output per work-item: a register micro-tile where
/// there is one, else short words grouped where there are any.
fn unstaged_tile(
    ir: &Region,
    deps: &DepInfo,
    baseline: &Schedule,
    ilp: Coarsening,
) -> Option<Schedule> {
    register_tile(ir, deps, baseline, ilp)
        .or_else(|| ilp.words.then(|| words::tile(ir, deps, baseline)).flatten())
}

/// The unstaged kernel with a register micro-tile (RY×RX outputs per work-item, the block
/// grown by the same factors so that the launched block is the baseline's), when `ilp` asks
/// for one (or `ilp.unstaged` and the nest reuses operands across outputs, see
/// [`TILE_DEFAULT`]).
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
    let pick = |req: Option<u32>, present: bool, reuse: bool| match (req, present) {
        (_, false) => 1,
        (Some(n), true) => n.clamp(1, 64).next_power_of_two().min(64),
        (None, true) if reuse => TILE_DEFAULT,
        (None, true) => 1,
    };
    // Rows pay with an operand the rows of a column share (independent of y), columns with one
    // the columns of a row share (independent of x).
    let rows = pick(ilp.rows, y.is_some(), indep_y);
    let cols = pick(ilp.cols, x.is_some(), indep_x);
    if rows * cols <= 1 {
        return None;
    }
    let mut block = baseline.block;
    block[0] *= cols;
    block[1] *= rows;
    Some(Schedule {
        block,
        ilp: rows,
        cols,
        ..baseline.clone()
    })
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
    let mut f = 1;
    while f < MAX_ILP
        && block[1] % (f * 2) == 0
        && block[0] * (block[1] / (f * 2)) * block[2] >= MIN_ILP_THREADS
    {
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
