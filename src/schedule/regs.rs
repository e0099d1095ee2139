//! Registers per work-item and the outputs per work-item chosen under register pressure (seed
//! 002, issue 14; issue 12's register-pressure model; the seed paper's §3.3.2 search over the
//! legal factors, with a model in place of the timing runs).
//!
//! **The estimate** ([`estimate`]) is taken from the schedule's own inputs, the nest's accesses
//! and the outputs per work-item (RY×RX), not from the kernel IR: the schedule stage decides, and
//! may not read what a later stage builds. It counts the values a work-item keeps live across the
//! innermost sequential loop of the nest, in 32-bit registers (a `double` or a 64-bit integer
//! counts 2), after Carr–Kennedy scalar replacement as seed 002's §5.6 does, but per output:
//! - *accumulators*: every scalar the nest assigns, one copy per output (RY·RX copies);
//! - *operand fragments*: every value read in the innermost sequential loop, as many copies as
//!   the lowering loads (`kernel::lower::ilp` loads an operand the outputs of a column share
//!   once per column: RX copies; one the outputs of a row share once per row: RY copies; one
//!   that depends on neither once; any other once per output), all live together because the
//!   copies' loads are independent and are issued back to back;
//! - *addresses*: two per global array (a 64-bit base), one per staged tile (a 32-bit shared
//!   address), one per reference inside the sequential loop (its running offset);
//! - *loop counters*: one per loop of the nest (grid iterators included) and one for the
//!   strip-mined loop of a staged kernel;
//! - *the copy* of each staged tile: its index, and its loads in flight (the tile's
//!   elements per work-item, at most [`COPY_IN_FLIGHT`]: ptxas unrolls the copy loop);
//! - a fixed [`BASE_REGISTERS`] for the thread and block indices, their products with the block
//!   sizes, and the temporaries every kernel has (calibrated against `ptxas -v`: the smallest
//!   kernels accshare emits, a copy or a `saxpy`, use 8 registers on sm_75 and sm_80).
//!
//! **A nest without a sequential loop** (a stencil, a copy, a transpose) has no loop to keep
//! values live across: the estimate is what is live while the loads are in flight. The outputs
//! are computed one after the other: *operands* are one load per distinct element one output
//! reads (a reference the statement repeats, hotspot's `temp[r][c]` four times, is loaded once)
//! and one value in flight per other output; *addresses* are the arrays' (two per global array,
//! one per tile: every reference is at a constant distance from its array's, no running
//! offsets) and each tile's origin (one per dimension, computed before the copy and used by the
//! compute); *counters* are the grid coordinates, and each output's guard when there are
//! several (the lowering computes them all before the first output). Without a tile, the thread
//! and block indices and their products are dead once the grid coordinates are formed, before
//! the first load: [`BASE_REGISTERS`] is then a floor under the total (`base` is what it adds),
//! not a term added to it. A staged kernel keeps them (its copy and the tile's origins use them).
//! Naive hotspot is estimated at 14 registers, as `ptxas -v` counts (35 before: its 9 reads, 10
//! running offsets and the base all added).
//!
//! Live ranges are not computed: a value counted is live at the loop's back edge (or at the
//! loads, without a loop). `ptxas` both rematerialises (fewer registers) and schedules loads
//! early (more), so the estimate is a model; `tests/regs.rs` compares it with `ptxas -v` on the
//! examples (tolerance there).
//!
//! **The choice** ([`choose`]) of the outputs per work-item of a staged kernel on a GPU (local
//! memory of its own): every power-of-two factor RY that divides the block's rows and RX that
//! divides its columns is a candidate (§3.3.2: the legal factors). A candidate is rejected when
//! its estimate exceeds the platform's registers per thread (it would spill), when the block's x
//! extent falls under a warp (the rows of a warp would no longer be one coalesced request), or
//! when fewer than [`super::MIN_ILP_THREADS`] work-items remain. Among the others the model's
//! time per output is the largest of three terms (cycles of one SM per output):
//! - *issue*: the warp instructions per output, `I(RY,RX) / (RY·RX)` per iteration of the
//!   sequential loop (loads of the fragments, one arithmetic instruction per operand read, two
//!   for the loop), over the SM's issue rate (`timing.issue_per_clock`);
//! - *latency*: each strip of a staged kernel waits once, at the barrier after the tile copy, for
//!   a global load (`timing.latency_cycles`); the blocks resident on the SM (limited by threads,
//!   blocks, shared memory and **registers**, [`Platform::occupancy`]) hide it for each other:
//!   `max(B·C, C + L) / (B·P)` for a block computing P outputs in C cycles;
//! - *memory*: the global bytes per output (the tiles' copies, the other references) over the
//!   SM's share of the DRAM bandwidth;
//! - *shared*: the shared-memory wavefronts per output of the tiles' reads (a warp's load takes
//!   one per banks × bank width bytes of distinct addresses, in the kernel's bank mode; a read
//!   independent of x is a broadcast; times the tile's conflict degree after the bank pass)
//!   over the SM's `timing.shared_per_clock`. An H200 found Gauss's staged kernel bound by its 25 shared
//!   loads per output; with adjacent rows ([`super::rows`]) the copies of a work-item load
//!   the rows they share once, and the loads and instructions are counted so.
//!
//! The fastest wins; candidates within [`TIE`] of it are a tie, broken for the factor accshare
//! chose before this model ([`super::default_rows`]), then for the fewest registers.

use crate::ir::{LoopId, Region};
use crate::model::platform::{Occupancy, OccupancyLimit};
use crate::model::Platform;
use crate::vocab::Scalar;

use super::Schedule;

/// Registers every kernel uses whatever it computes (thread and block indices, block sizes,
/// temporaries): the smallest kernels accshare emits use 8 on sm_80 (`ptxas -v`).
pub const BASE_REGISTERS: u32 = 8;

/// Relative difference of the model's times under which two candidates are a tie.
pub const TIE: f64 = 0.05;

/// Largest factor per dimension the search tries: the largest of the paper's Table 4 (its best
/// ILP factors over five kernels and four GPUs, gemm's 8 on the GTX 690, GTX TITAN and C2050).
pub const MAX_FACTOR: u32 = 8;

/// The estimate of one schedule's registers per work-item, by kind (32-bit registers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegEstimate {
    pub accumulators: u32,
    pub operands: u32,
    pub addresses: u32,
    pub counters: u32,
    /// The cooperative copy of the staged tiles: its index, and its loads in flight.
    pub copy: u32,
    pub base: u32,
}

/// Loads of a tile's cooperative copy a work-item keeps in flight at most (ptxas unrolls the
/// copy loop and issues its loads before the stores).
pub const COPY_IN_FLIGHT: u32 = 4;

impl RegEstimate {
    pub fn total(&self) -> u32 {
        self.accumulators + self.operands + self.addresses + self.counters + self.copy + self.base
    }
}

/// 32-bit registers a value of type `t` takes.
fn words(t: Scalar) -> u32 {
    match t {
        Scalar::Double
        | Scalar::Long
        | Scalar::ULong
        | Scalar::LongLong
        | Scalar::ULongLong
        | Scalar::SizeT => 2,
        _ => 1,
    }
}

/// The nest's innermost sequential loop (the deepest loop of the nest that is not on the grid
/// and holds a statement), if any.
pub(super) fn inner_sequential(ir: &Region, s: &Schedule) -> Option<LoopId> {
    let grid: Vec<LoopId> = s.grid.iter().map(|g| g.loop_id).collect();
    ir.stmts
        .iter()
        .filter(|st| st.loops.first() == Some(&s.root))
        .filter_map(|st| st.loops.iter().rev().find(|l| !grid.contains(l)).copied())
        .max_by_key(|l| ir.loops[*l].depth)
}

/// How many copies of a read the lowering keeps for RY×RX outputs: see the module header.
pub(super) fn copies(ir: &Region, s: &Schedule, a: &crate::ir::Access) -> u32 {
    let on = |d: u8| s.grid.iter().find(|g| g.dim == d).map(|g| g.loop_id);
    let mentions = |l: Option<LoopId>| {
        l.is_some_and(|l| {
            let v = &ir.loops[l].var;
            a.subscripts
                .iter()
                .any(|p| p.as_ref().is_none_or(|p| p.mentions(v)))
        })
    };
    let (ry, rx) = s.shape.tile();
    match (mentions(on(1)), mentions(on(0))) {
        (false, false) => 1,
        (false, true) => rx,
        (true, false) => ry,
        (true, true) => ry * rx,
    }
}

/// Registers per work-item of schedule `s` (see the module header).
pub fn estimate(ir: &Region, s: &Schedule) -> RegEstimate {
    let f = s.shape.outputs();
    let in_nest = |loops: &[LoopId]| loops.first() == Some(&s.root);
    let inner = inner_sequential(ir, s);
    // Accumulators: the scalars the nest assigns, one copy per output.
    let mut accumulators = 0;
    for (name, info) in &ir.scalars {
        let assigned = ir.stmts.iter().any(|st| {
            in_nest(&st.loops) && matches!(&st.target, crate::ir::Target::Scalar(n) if n == name)
        });
        if assigned && !ir.loops.iter().any(|l| l.var == *name) {
            accumulators += f * words(info.ty);
        }
    }
    // Operand fragments and running offsets: the reads of the innermost sequential loop, all
    // copies live together, and one running offset per reference of the loop. Without a
    // sequential loop (a stencil) there is nothing to run across: the outputs are computed one
    // after the other, each from one load per distinct element it reads (a reference repeated
    // in the statement is loaded once), with one value in flight per other output; every
    // address is the array's, at a constant distance.
    let mut operands = 0;
    let mut offsets = 0;
    let mut distinct: Vec<&crate::ir::Access> = Vec::new();
    for a in ir.accesses.iter() {
        if !in_nest(&a.loops) || inner.is_some_and(|l| !a.loops.contains(&l)) {
            continue;
        }
        let elem = ir.arrays.get(&a.array).map_or(Scalar::Float, |i| i.elem);
        match inner {
            Some(_) => {
                offsets += 1;
                if a.reads() && !(s.shape.adjacent_rows && a.is_affine()) {
                    operands += copies(ir, s, a) * words(elem);
                }
            }
            None => {
                // An element is known to be the same only through affine subscripts.
                let seen = a.is_affine()
                    && distinct
                        .iter()
                        .any(|d| d.array == a.array && d.subscripts == a.subscripts);
                if a.reads() && !seen {
                    distinct.push(a);
                    operands += words(elem);
                }
            }
        }
    }
    if inner.is_none() {
        operands += f - 1;
    } else if s.shape.adjacent_rows {
        // Adjacent rows ([`super::rows`]): the elements the copies load, each once.
        for (name, n) in super::rows::distinct_loads_per_array(ir, s, inner) {
            let elem = ir.arrays.get(name).map_or(Scalar::Float, |i| i.elem);
            operands += n.ceil() as u32 * words(elem);
        }
    }
    // Addresses: a 64-bit base per global array, a shared address per tile.
    let mut arrays: Vec<&str> = ir
        .accesses
        .iter()
        .filter(|a| in_nest(&a.loops))
        .map(|a| a.array.as_str())
        .collect();
    arrays.sort_unstable();
    arrays.dedup();
    let tiles = s.staged().map_or(0, |st| st.arrays.len() as u32);
    // Without a sequential loop a tile's references are at the work-item's coordinates less the
    // tile's origin (its row and column, computed before the copy): no running offset covers it.
    let origins = match (inner, s.staged()) {
        (None, Some(st)) => st.arrays.iter().map(|t| t.dims.len() as u32).sum(),
        _ => 0,
    };
    let addresses = 2 * arrays.len() as u32 + tiles + origins + offsets;
    // Counters: every loop of the nest, the strip loop of a staged kernel.
    let mut loops: Vec<LoopId> = ir
        .stmts
        .iter()
        .filter(|st| in_nest(&st.loops))
        .flat_map(|st| st.loops.iter().copied())
        .collect();
    loops.sort_unstable();
    loops.dedup();
    let strip = u32::from(s.staged().is_some_and(|st| st.strip.is_some()));
    let counters = loops
        .iter()
        .filter(|l| ir.loops[**l].var != crate::ir::lower::ONCE_VAR)
        .count() as u32
        + strip;
    // The cooperative copy of each tile: its index, and the loads in flight (the tile's
    // elements per work-item, at most COPY_IN_FLIGHT).
    let threads = s.launch_block().iter().product::<u32>().max(1);
    let copy = s.staged().map_or(0, |st| {
        st.arrays
            .iter()
            .map(|t| 1 + t.len().div_ceil(threads).clamp(1, COPY_IN_FLIGHT))
            .sum()
    });
    // Without a sequential loop, the guard of each output when there are several (the lowering
    // computes them all before the first output).
    let guards = if inner.is_none() && f > 1 { f } else { 0 };
    let mut e = RegEstimate {
        accumulators,
        operands,
        addresses,
        counters: counters + guards,
        copy,
        base: BASE_REGISTERS,
    };
    // A loop-free kernel without a tile: the thread and block indices and their products are
    // dead once the grid coordinates (the counters) are formed, before the first load, so the
    // base is a floor under what is live at the loads, not added to it.
    if inner.is_none() && s.staged().is_none() {
        e.base = BASE_REGISTERS.saturating_sub(e.total() - e.base);
    }
    e
}

/// Why a candidate of the search lost.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The model's choice.
    Chosen,
    /// The estimate exceeds the registers one thread may have: it would spill.
    Spills { max: u32 },
    /// The block's x extent would be narrower than a warp.
    NarrowX { warp: u32 },
    /// Fewer work-items per block than [`super::MIN_ILP_THREADS`].
    FewThreads,
    /// Legal, but the model's time is larger than the chosen one's (or a tie it lost).
    Slower,
}

impl Verdict {
    pub fn text(&self) -> String {
        match self {
            Verdict::Chosen => "chosen".to_string(),
            Verdict::Spills { max } => {
                format!("rejected: more registers than a thread may have ({max}): it would spill")
            }
            Verdict::NarrowX { warp } => format!(
                "rejected: fewer than a warp ({warp}) of work-items along x: rows would not coalesce"
            ),
            Verdict::FewThreads => format!(
                "rejected: fewer than {} work-items per block",
                super::MIN_ILP_THREADS
            ),
            Verdict::Slower => "slower".to_string(),
        }
    }
}

/// One candidate of the search: RY×RX outputs per work-item with what the model says of it.
#[derive(Clone, Debug, PartialEq)]
pub struct FactorCandidate {
    pub rows: u32,
    pub cols: u32,
    /// The rows are adjacent ([`super::rows`]).
    pub adjacent_rows: bool,
    /// Work-items per launched block.
    pub threads: u32,
    pub registers: RegEstimate,
    pub occupancy: Occupancy,
    /// The model's time, cycles of one SM per output (the largest term), and its bound.
    pub cycles_per_output: f64,
    pub bound: &'static str,
    /// The model's time of the whole kernel, microseconds, when the grid's size is a constant.
    pub time_us: Option<f64>,
    pub verdict: Verdict,
}

/// The search of one kernel: its candidates in the order tried, and why the chosen one won.
#[derive(Clone, Debug, PartialEq)]
pub struct FactorChoice {
    pub platform: String,
    pub candidates: Vec<FactorCandidate>,
    /// The chosen (RY, RX).
    pub chosen: (u32, u32),
    /// The factor accshare chose before this model (the tie-break).
    pub previous: (u32, u32),
    pub why: String,
    /// The factor `--ilp` forced instead of the model's choice.
    pub forced: Option<(u32, u32)>,
}

/// Outputs of the grid (product of the mapped loops' trip counts) when they are constants.
pub(super) fn grid_outputs(s: &Schedule) -> Option<f64> {
    let mut n = 1.0;
    for g in &s.grid {
        let span = g.max.sub(&g.min)?;
        let c = span.as_const()?;
        n *= (c + 1).max(0) as f64;
    }
    Some(n)
}

/// The model's terms for schedule `s` with registers `regs` (cycles of one SM per output).
/// On a platform with the L1 facts ([`crate::model::platform::Timing::l1_model`]) the terms are
/// those of [`super::gain`]'s model (L1 hits, the L1's lines per clock, the SMs the grid fills,
/// the copy's loads); elsewhere the model the paper's GPUs were calibrated with.
fn model(
    ir: &Region,
    s: &Schedule,
    p: &Platform,
    occ: &Occupancy,
    l1: Option<super::gain::L1>,
) -> (f64, &'static str) {
    let n = NestCounts::new(ir, s, p);
    let issue_term = n.instr_per_output / (n.warp * n.issue);
    let latency_term = latency_term(&n, p, occ, l1.as_ref());
    let memory_term = memory_term(&n, p, l1.as_ref());
    let l1_term = match &l1 {
        Some(l1) => l1_term(&n, p, l1),
        None => 0.0,
    };
    let shared_term = if p.timing.shared_per_clock > 0.0 {
        n.shared_wavefronts_per_output / p.timing.shared_per_clock
    } else {
        0.0
    };
    [
        ("issue", issue_term),
        ("shared", shared_term),
        ("latency", latency_term),
        ("memory", memory_term),
        ("l1", l1_term),
    ]
    .into_iter()
    .fold((0.0, "issue"), |b, (n, t)| if t > b.0 { (t, n) } else { b })
}

/// What the model's terms ([`model`]) share of schedule `s`'s nest: its outputs per
/// work-item, the platform's issue rate, the innermost sequential loop and its instructions.
struct NestCounts<'a> {
    ir: &'a Region,
    s: &'a Schedule,
    /// Outputs per work-item.
    f: f64,
    /// The warp's width and the instructions issued per clock.
    warp: f64,
    issue: f64,
    /// The innermost sequential loop, and its iterations (64 when unknown, 1 without one).
    inner: Option<LoopId>,
    trips: f64,
    /// Instructions per iteration of the sequential loop (or of the body when there is none),
    /// and per output.
    per_iter: f64,
    instr_per_output: f64,
    /// Shared-memory wavefronts per output of the reads of staged tiles.
    shared_wavefronts_per_output: f64,
    /// Work-items of the launched block, and the outputs it computes.
    threads: f64,
    outputs_per_block: f64,
}

impl<'a> NestCounts<'a> {
    /// The counts of schedule `s` of region `ir` on platform `p`.
    fn new(ir: &'a Region, s: &'a Schedule, p: &Platform) -> Self {
        let f = s.shape.outputs() as f64;
        let warp = p.warp_size.max(1) as f64;
        let issue = if p.timing.issue_per_clock > 0.0 {
            p.timing.issue_per_clock
        } else {
            1.0
        };
        let inner = inner_sequential(ir, s);
        // Instructions per iteration of the sequential loop (or of the body when there is none).
        let mut loads: f64 = 0.0;
        let mut reads: f64 = 0.0;
        let mut outside = 0.0;
        // Shared-memory wavefronts per iteration of the staged tiles' reads.
        let mut shared_wavefronts = 0.0;
        let tile = |a: &crate::ir::Access| {
            s.staged().and_then(|st| {
                st.arrays
                    .iter()
                    .find(|t| t.name == a.array && t.accesses.contains(&a.span))
            })
        };
        let x_var = s
            .grid
            .iter()
            .find(|g| g.dim == 0)
            .map(|g| ir.loops[g.loop_id].var.as_str());
        let launched_x = s.launch_block()[0].max(1) as f64;
        // The wavefronts of one warp's load of a tile: its distinct addresses' bytes over what
        // the banks serve a clock (banks × width, in the kernel's bank mode: Kepler's 8-byte
        // mode serves a warp's doubles at once); the lanes of a row read one address where
        // the read is independent of x (a broadcast).
        let width = s
            .staged()
            .and_then(|st| st.bank_mode.as_ref())
            .map_or(p.bank_width, |m| m.width);
        let per_wavefront = (p.banks.max(1) * width.max(1)) as f64;
        // Times the wavefronts of a conflict-free read: the tile's conflict degree as the bank
        // pass left it (the largest over its references and its copy; 1 after padding).
        let degree =
            |a: &crate::ir::Access| tile(a).map_or(1, |t| t.bank.degree_after.max(1)) as f64;
        let wavefronts = |a: &crate::ir::Access, vector: u32| {
            let elem = ir.arrays.get(&a.array).map_or(4, |i| i.elem.size().max(1)) as f64;
            let on_x = x_var.is_some_and(|x| {
                a.subscripts
                    .iter()
                    .any(|p| p.as_ref().is_none_or(|p| p.mentions(x)))
            });
            let lanes = if on_x {
                warp
            } else {
                (warp / launched_x).max(1.0)
            };
            (lanes * elem * vector as f64 / per_wavefront)
                .ceil()
                .max(1.0)
                * degree(a)
        };
        // Adjacent rows ([`super::rows`]): the affine reads the copies share are loaded once.
        let shared_by_copies =
            |a: &crate::ir::Access| s.shape.adjacent_rows && a.reads() && a.is_affine();
        let in_nest = |a: &&crate::ir::Access| a.loops.first() == Some(&s.root);
        let here = |a: &crate::ir::Access| inner.is_none_or(|l| a.loops.contains(&l));
        for a in ir.accesses.iter().filter(in_nest) {
            if !here(a) {
                outside += f;
                continue;
            }
            if a.reads() {
                reads += 1.0;
            }
            if shared_by_copies(a) {
                continue;
            }
            // A tile read as vectors (`micro::vector_tiles`): one load per run of copies.
            let vector = tile(a).map_or(1, |t| t.vector_reads.max(1));
            let n = (copies(ir, s, a) as f64 / vector as f64).ceil();
            loads += n;
            if a.reads() && tile(a).is_some() {
                shared_wavefronts += n * wavefronts(a, vector);
            }
        }
        if s.shape.adjacent_rows {
            // Per array: its reads' distinct elements over the copies.
            for (name, n) in super::rows::distinct_loads_per_array(ir, s, inner) {
                loads += n;
                let first = ir.accesses.iter().filter(in_nest).find(|a| {
                    a.array == name && here(a) && shared_by_copies(a) && tile(a).is_some()
                });
                if let Some(a) = first {
                    shared_wavefronts += n * wavefronts(a, 1);
                }
            }
        }
        let trips = inner
            .and_then(|l| {
                let lp = &ir.loops[l];
                let c = lp.upper.affine()?.sub(lp.lower.affine()?)?.as_const()?;
                Some((c as f64 / lp.step.unsigned_abs().max(1) as f64).max(1.0))
            })
            .unwrap_or(if inner.is_some() { 64.0 } else { 1.0 });
        let per_iter = loads + f * reads.max(1.0) + if inner.is_some() { 2.0 } else { 0.0 };
        let threads = (s.launch_block().iter().product::<u32>()).max(1) as f64;
        NestCounts {
            ir,
            s,
            f,
            warp,
            issue,
            inner,
            trips,
            per_iter,
            instr_per_output: (per_iter * trips + outside) / f,
            shared_wavefronts_per_output: shared_wavefronts * trips / f / warp,
            threads,
            outputs_per_block: threads * f,
        }
    }

    /// The accesses of the schedule's nest.
    fn accesses(&self) -> impl Iterator<Item = &'a crate::ir::Access> + '_ {
        let root = self.s.root;
        self.ir
            .accesses
            .iter()
            .filter(move |a| a.loops.first() == Some(&root))
    }

    /// Access `a` is in the innermost sequential loop (or there is none).
    fn here(&self, a: &crate::ir::Access) -> bool {
        self.inner.is_none_or(|l| a.loops.contains(&l))
    }

    /// Access `a` reads or writes a staged array.
    fn is_staged(&self, a: &crate::ir::Access) -> bool {
        self.s
            .staged()
            .is_some_and(|st| st.arrays.iter().any(|t| t.name == a.array))
    }
}

/// Latency: one global latency per strip (staged) or per iteration (unstaged), hidden by the
/// resident blocks (staged) or warps (unstaged). With the L1 facts: an unstaged iteration
/// waits for an L1 hit unless one of its loads misses, a strip waits for each of its copy's
/// loads in turn, and only the blocks the grid gives an SM hide each other.
fn latency_term(
    n: &NestCounts,
    p: &Platform,
    occ: &Occupancy,
    l1: Option<&super::gain::L1>,
) -> f64 {
    let (s, trips, threads, warp) = (n.s, n.trips, n.threads, n.warp);
    let lat = p.timing.latency_cycles as f64;
    if !(lat > 0.0 && occ.blocks > 0) {
        return 0.0;
    }
    let per_block = |resident: f64| match l1 {
        Some(l1) => resident.min(l1.blocks_per_sm),
        None => resident,
    };
    let (phases, hiders, wait) = match s.staged() {
        Some(st) => {
            let strip = st.strip.as_ref().map_or(1.0, |x| x.size.max(1) as f64);
            match l1 {
                // The copy's loads, [`super::gain::COPY_LOADS_IN_FLIGHT`] at a time, once per
                // strip (once without one).
                Some(l1) => (
                    l1.strips(trips),
                    per_block(occ.blocks as f64),
                    lat * (l1.copy_loads / super::gain::COPY_LOADS_IN_FLIGHT).ceil(),
                ),
                None => ((trips / strip).ceil().max(1.0), occ.blocks as f64, lat),
            }
        }
        None => {
            let wait = match l1 {
                Some(l1) if n.inner.is_some() => l1.iteration_latency,
                _ => lat,
            };
            let blocks = per_block(occ.blocks as f64);
            (trips, blocks * (threads / warp).max(1.0), wait)
        }
    };
    let block_cycles = threads / warp * n.per_iter * trips / n.issue;
    let per_phase = block_cycles / phases;
    let waves = match s.staged() {
        Some(_) => hiders,
        None => hiders / (threads / warp).max(1.0),
    };
    phases * (waves * per_phase).max(per_phase + wait) / (waves * n.outputs_per_block)
}

/// Memory: global bytes per output over the SM's share of the bandwidth.
fn memory_term(n: &NestCounts, p: &Platform, l1: Option<&super::gain::L1>) -> f64 {
    let (ir, s, trips, f) = (n.ir, n.s, n.trips, n.f);
    let mut bytes = 0.0;
    for a in n.accesses() {
        let elem = ir.arrays.get(&a.array).map_or(Scalar::Float, |i| i.elem);
        let here = n.here(a);
        if let Some(l1) = l1 {
            // Element bytes; a tile's are its copies' (once per strip for the block's
            // outputs), counted at the array's first reference.
            let b = elem.size().max(1) as f64;
            bytes += if n.is_staged(a) {
                let first = n.accesses().find(|o| o.array == a.array);
                if first.map(|o| o.id) == Some(a.id) {
                    let phases = l1.strips(trips);
                    s.staged().map_or(0.0, |st| {
                        st.arrays
                            .iter()
                            .filter(|t| t.name == a.array)
                            .map(|t| t.len() as f64)
                            .sum::<f64>()
                    }) * b
                        * phases
                        / n.outputs_per_block
                } else {
                    0.0
                }
            } else if a.reads() {
                // What the L1 does not serve.
                b * if here { trips } else { 1.0 } * copies(ir, s, a) as f64 / f * l1.miss(a.id)
            } else {
                b * if here { trips } else { 1.0 } * copies(ir, s, a) as f64 / f
            };
            continue;
        }
        let b = words(elem) as f64 * 4.0;
        bytes += match (n.is_staged(a), here) {
            // A tile is copied once per block: the block's outputs share it.
            (true, true) => {
                b * trips * (s.shape.block[0].max(1) + s.shape.block[1].max(1)) as f64
                    / (s.shape.block[0].max(1) * s.shape.block[1].max(1)) as f64
            }
            (true, false) | (false, false) => b,
            (false, true) => b * trips * copies(ir, s, a) as f64 / f,
        };
    }
    // The SMs that share the bandwidth: those the grid gives a block.
    let busy = l1.map_or(p.sm_count.max(1) as f64, |l1| l1.busy_sms);
    let per_sm = p.bandwidth_gbs * 1e3 / (busy * p.clock_mhz.max(1) as f64);
    if per_sm > 0.0 {
        bytes / per_sm
    } else {
        0.0
    }
}

/// The L1's lines (with the L1 facts `l1`): a warp request takes a clock per line it touches.
fn l1_term(n: &NestCounts, p: &Platform, l1: &super::gain::L1) -> f64 {
    let (ir, s, trips) = (n.ir, n.s, n.trips);
    let mut lines = 0.0;
    for a in n.accesses() {
        let k = if n.here(a) { trips } else { 1.0 };
        lines += if n.is_staged(a) {
            // The copy: coalesced rows of the tile (counted with the memory term's
            // bytes below).
            0.0
        } else {
            k * l1.lines(a.id) * copies(ir, s, a) as f64 / n.f / n.warp
        };
    }
    let copied: f64 = s.staged().map_or(0.0, |st| {
        let e = |t: &super::stage::StagedArray| {
            ir.arrays.get(&t.name).map_or(4, |i| i.elem.size().max(1)) as f64
        };
        st.arrays.iter().map(|t| t.len() as f64 * e(t)).sum()
    });
    lines += copied * l1.strips(trips) / n.outputs_per_block / super::gain::LINE;
    lines / p.timing.l1_lines_per_clock
}

/// One candidate of the search for `s` (its `ilp` and `cols` set), by the model the factors
/// are chosen with (without the L1 facts: the factor search is the paper-calibrated model's).
pub fn candidate(ir: &Region, s: &Schedule, p: &Platform) -> FactorCandidate {
    candidate_with(ir, s, p, None)
}

/// `s` estimated with the L1 facts of platform `p` where it has them ([`super::gain`]).
pub fn candidate_with_l1(ir: &Region, s: &Schedule, p: &Platform) -> FactorCandidate {
    candidate_with(ir, s, p, super::gain::L1::of(ir, s, p))
}

fn candidate_with(
    ir: &Region,
    s: &Schedule,
    p: &Platform,
    l1: Option<super::gain::L1>,
) -> FactorCandidate {
    let registers = estimate(ir, s);
    let threads = s.launch_block().iter().product::<u32>();
    let smem = s.staged().map_or(0, |st| st.smem_bytes());
    let occupancy = p.occupancy(threads as u64, smem, registers.total());
    let busy = l1
        .as_ref()
        .map_or(p.sm_count.max(1) as f64, |l1| l1.busy_sms);
    let (cycles, bound) = model(ir, s, p, &occupancy, l1);
    let time_us = grid_outputs(s).map(|n| n / busy * cycles / p.clock_mhz.max(1) as f64);
    let verdict = if occupancy.spills {
        Verdict::Spills {
            max: p.max_registers_per_thread,
        }
    } else if s.shape.cols.get() > 1 && s.launch_block()[0] < p.warp_size {
        Verdict::NarrowX { warp: p.warp_size }
    } else if s.shape.outputs() > 1 && threads < super::MIN_ILP_THREADS {
        Verdict::FewThreads
    } else {
        Verdict::Slower
    };
    FactorCandidate {
        rows: s.shape.rows.get(),
        cols: s.shape.cols.get(),
        adjacent_rows: s.shape.adjacent_rows,
        threads,
        registers,
        occupancy,
        cycles_per_output: cycles,
        bound,
        time_us,
        verdict,
    }
}

/// The search over the legal factors of staged schedule `staged` (its `ilp` and `cols` are
/// replaced) on platform `p`: see the module header. `previous` is the factor chosen without
/// the model (the tie-break).
pub fn choose(ir: &Region, staged: &Schedule, p: &Platform, previous: (u32, u32)) -> FactorChoice {
    let factors = |extent: u32, least: u32| {
        let mut v = vec![1];
        while v[v.len() - 1] < MAX_FACTOR
            && extent % (v[v.len() - 1] * 2) == 0
            && extent / (v[v.len() - 1] * 2) >= least
        {
            v.push(v[v.len() - 1] * 2);
        }
        v
    };
    let mut candidates = Vec::new();
    // Columns only while a warp's work-items still span a row (coalescing along x).
    for &rows in &factors(staged.shape.block[1], 1) {
        for &cols in &factors(staged.shape.block[0], p.warp_size) {
            let mut s = Schedule {
                shape: staged.shape.with_tile(rows, cols),
                ..staged.clone()
            };
            super::rows::lay_out(ir, &mut s);
            candidates.push(candidate(ir, &s, p));
        }
    }
    let legal = |c: &FactorCandidate| c.verdict == Verdict::Slower;
    let best = candidates
        .iter()
        .filter(|c| legal(c))
        .map(|c| c.cycles_per_output)
        .fold(f64::INFINITY, f64::min);
    let tied = |c: &FactorCandidate| legal(c) && c.cycles_per_output <= best * (1.0 + TIE);
    let winner = candidates
        .iter()
        .position(|c| tied(c) && (c.rows, c.cols) == previous)
        .or_else(|| {
            candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| tied(c))
                .min_by_key(|(_, c)| (c.registers.total(), c.rows * c.cols))
                .map(|(i, _)| i)
        });
    let (chosen, why) = match winner {
        Some(i) => {
            let c = &candidates[i];
            let why = if (c.rows, c.cols) == previous
                && c.cycles_per_output > best * (1.0 + f64::EPSILON)
            {
                format!(
                    "within {:.0} % of the fastest ({:.3} cycles/output): kept the previous default",
                    TIE * 100.0,
                    best
                )
            } else if (c.rows, c.cols) == previous {
                "the fastest legal candidate (the previous default)".to_string()
            } else {
                format!(
                    "the fastest legal candidate ({} bound, {:.3} cycles/output; {} registers, occupancy {:.0} % limited by {})",
                    c.bound,
                    c.cycles_per_output,
                    c.registers.total(),
                    c.occupancy.fraction * 100.0,
                    c.occupancy.limit.name()
                )
            };
            ((c.rows, c.cols), why)
        }
        // Every factor spills: one output per work-item (the candidate with no tile).
        None => (
            (1, 1),
            "every candidate is rejected: one output per work-item".to_string(),
        ),
    };
    for c in &mut candidates {
        if (c.rows, c.cols) == chosen {
            c.verdict = Verdict::Chosen;
        }
    }
    FactorChoice {
        platform: p.name.clone(),
        candidates,
        chosen,
        previous,
        why,
        forced: None,
    }
}

/// Whether the register file limits a candidate's occupancy (for reports).
pub fn register_limited(c: &FactorCandidate) -> bool {
    c.occupancy.limit == OccupancyLimit::Registers
}

#[cfg(test)]
mod tests;
