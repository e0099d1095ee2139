//! Reductions across lanes (issue 27 item 3): a nest whose one parallel loop cannot fill the
//! device runs its inner reduction loop across the lanes of a work-group.
//!
//! mv (`for i: sum = 0; for j: sum += A[i][j]*x[j]; y[i] = sum;`) gives a GPU only N
//! work-items, each walking a row alone: consecutive work-items read addresses a row apart, and
//! 4,096 rows leave most of an H100's 132 SMs idle. Across lanes, a block is L lanes (x) × R
//! rows (y): row `r` of the block computes one output of the parallel loop, lane `t` runs the
//! inner loop's iterations `lower + t, lower + t + L, …` (coalesced reads of the row) into its
//! own copy of each reduction scalar (from the operator's identity), a tree in local memory
//! combines the L copies, and lane 0 combines the result into the scalar (whose value before
//! the loop every lane computed) and runs the statements after the loop.
//!
//! Legality (the schedule's part, on the loop-nest IR; lowering checks the kernel IR's shape
//! again, `kernel::lower::lanes`, and takes the next candidate where it does not hold): one
//! grid loop, whose body holds exactly one loop, unconditional, of step 1 with affine bounds,
//! proven to carry no dependence but the reductions of scalars private to the row, with an
//! associative operator. Integer reductions are exact; a floating-point one is reordered only
//! where a `reduction` clause on the inner loop names it, or under `--reassociate`. A `seq`
//! inner loop is the user's request for sequential execution: only under `--reassociate`.
//!
//! Decision: on a GPU platform whose file carries the L1 facts (the model of the unstaged
//! kernel, [`super::regs::candidate_with_l1`]), the kernel runs across lanes where the model
//! estimates it at least [`super::gain::MARGIN`] faster than the naive kernel (issue 27 item 2:
//! never slower than naive), or where the inner loop's own directive asks for `vector` or
//! `worker` parallelism (OpenACC's `loop vector reduction(+:sum)` of a CSR product: the user's
//! request, honoured as NVHPC does, also where the bounds are not affine and the model has no
//! sizes; on such platforms only, as the model's choice). `vector_length(n)` (lanes) and `num_workers(n)` (rows), on the loops or on the
//! `parallel` construct, are honoured where written.

use crate::analysis::dependence::{DepInfo, Verdict};
use crate::ir::{LoopId, Marking, Region};
use crate::model::Platform;
use crate::vocab::{RedOp, Scalar};

use super::gain::MARGIN;
use super::Schedule;

/// Lanes per row by default: a warp, so that one request reads 128 contiguous bytes of a row.
pub const DEFAULT_LANES: u32 = 32;
/// Work-items per block by default (rows = this / lanes, halved while the grid would leave an
/// SM without a block): the more rows a block has, the fewer times the loads every row makes
/// alike (mv's `x[j]`) are read, once per block through local memory.
pub const DEFAULT_THREADS: u32 = 512;

/// Most blocks along y of a CUDA grid (the rows of the grid loop go on y).
pub const MAX_GRID_Y: u64 = 65_535;

/// Why a floating-point reduction may be reordered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// An integer (or boolean) reduction: reordering is exact.
    Exact,
    /// A `reduction` clause on the inner loop names the scalar.
    Clause,
    /// `--reassociate`.
    Reassociate,
}

/// One reduction scalar of the inner loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneVar {
    pub op: RedOp,
    /// The scalar as the region's IR identifies it (its key in [`Region::scalars`], its name in
    /// the dependence analysis' reductions: the IR has no other identity for a scalar); kernel
    /// lowering resolves it to the kernel's scalar once, where it lowers loop [`Lanes::inner`]
    /// (`kernel::lower::lanes::LanesAt`).
    pub name: String,
    pub ty: Scalar,
    pub allowed: Allowed,
}

/// The decision to run loop `inner` across the lanes of a work-group.
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes {
    /// The inner reduction loop (a child of the kernel's only grid loop).
    pub inner: LoopId,
    /// Its iterator's name, for messages (`explain`): kernel lowering finds the loop and its
    /// iterator by `inner`.
    pub var: String,
    /// Lanes per row (block x; a power of two).
    pub lanes: u32,
    /// Rows per block (block y).
    pub rows: u32,
    pub vars: Vec<LaneVar>,
    /// The model's estimates (microseconds) of the naive kernel and of this one (0 where the
    /// user asked for it and the sizes are unknown: see [`Lanes::asked`]).
    pub naive_us: f64,
    pub lanes_us: f64,
    /// Taken because the inner loop's directive asks for `vector`/`worker` lanes (OpenACC's
    /// `loop vector reduction(+:s)`), not by the model.
    pub asked: bool,
}

impl Lanes {
    /// The naive estimate over this one.
    pub fn speedup(&self) -> f64 {
        if self.lanes_us > 0.0 {
            self.naive_us / self.lanes_us
        } else {
            1.0
        }
    }
}

/// Why a kernel does not run a loop across lanes (`explain`).
#[derive(Clone, Debug, PartialEq)]
pub enum NoLanes {
    /// Not one grid loop, or no single inner loop under it.
    Shape(&'static str),
    /// The inner loop carries a dependence other than reductions, or has none.
    NotReduction(String),
    /// A floating-point reduction the user did not allow to reorder.
    FloatOrder(String),
    /// The inner loop is `seq` and `--reassociate` was not given.
    Seq(String),
    /// The model's sizes are unknown.
    UnknownSize,
    /// More blocks along y than CUDA launches (65,535).
    GridY(u64),
    /// The platform has no model of the naive kernel (no L1 facts) or is a CPU device.
    NoModel(String),
    /// The model does not predict a clear gain.
    NoGain {
        platform: String,
        naive_us: f64,
        lanes_us: f64,
    },
}

impl std::fmt::Display for NoLanes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoLanes::Shape(s) => write!(f, "{s}"),
            NoLanes::NotReduction(s) => write!(f, "{s}"),
            NoLanes::FloatOrder(v) => write!(
                f,
                "`{v}` is a floating-point sum: running it across lanes reorders it; allow it with a `reduction` clause on the inner loop or --reassociate"
            ),
            NoLanes::Seq(l) => write!(
                f,
                "loop `{l}` is marked `seq` (sequential by request): only --reassociate runs it across lanes"
            ),
            NoLanes::UnknownSize => write!(f, "the trip counts are not known at compile time"),
            NoLanes::GridY(b) => write!(
                f,
                "its {b} blocks along y are more than a CUDA grid holds ({MAX_GRID_Y})"
            ),
            NoLanes::NoModel(p) => write!(f, "{p} has no model of the naive kernel (L1 timing) or is a CPU device: a `loop vector`/`worker` request is honoured on platforms with one (`--platform h100`)"),
            NoLanes::NoGain {
                platform,
                naive_us,
                lanes_us,
            } => write!(
                f,
                "on {platform} the model estimates it ~{lanes_us:.1} us, the naive kernel ~{naive_us:.1} us: {:.2}x as fast, under the {MARGIN:.2}x margin",
                naive_us / lanes_us.max(1e-9)
            ),
        }
    }
}

/// Whether, and how, the nest of `base` (the baseline schedule) runs its inner reduction loop
/// across lanes on `p`; `reassociate`: `--reassociate`.
pub fn decide(
    ir: &Region,
    deps: &DepInfo,
    base: &Schedule,
    p: &Platform,
    reassociate: bool,
) -> Result<Lanes, NoLanes> {
    // Where the platform has no model of the naive kernel (no L1 facts: `a100`,
    // CPU devices) nothing runs across lanes, asked for or not: the same kernels also run on
    // CPU OpenCL devices, where a tree per row costs more than it saves (NPB CG class W on this
    // project's PoCL: 0.45 s → 1.38 s with its products across lanes).
    if p.local_memory == crate::model::platform::LocalMemory::Global
        || !(p.timing.l1_model() && p.cache.l1_global_loads)
    {
        return Err(NoLanes::NoModel(p.name.clone()));
    }
    let mut spec = legal(ir, deps, base, reassociate)?;
    let root = &ir.loops[base.root];
    let inner = &ir.loops[spec.inner];
    let Some((n, m)) = sizes(ir, base, spec.inner) else {
        return if inner.lanes_asked {
            Ok(asked(spec, root, inner, p))
        } else {
            Err(NoLanes::UnknownSize)
        };
    };
    let lanes = inner
        .vector_len
        .or(root.vector_len)
        .filter(|v| v.is_power_of_two() && (2..=p.max_threads_per_block).contains(v))
        .unwrap_or(DEFAULT_LANES.min(p.max_threads_per_block));
    let rows = root
        .workers
        .filter(|w| *w >= 1 && w * lanes <= p.max_threads_per_block)
        .unwrap_or_else(|| {
            let mut r = (DEFAULT_THREADS.min(p.max_threads_per_block) / lanes).max(1);
            while r > 1 && (n / r as f64).ceil() < p.sm_count as f64 {
                r /= 2;
            }
            r
        });
    spec.lanes = lanes;
    spec.rows = rows;
    let blocks_y = (n / rows as f64).ceil() as u64;
    if blocks_y > MAX_GRID_Y {
        return Err(NoLanes::GridY(blocks_y));
    }
    // The register model's estimate of the naive kernel, but never under one L1 latency per
    // iteration of the reduction loop per wave of its warps (that model times one sequential
    // loop: a loop nested in the reduction loop escapes it).
    let naive = super::regs::candidate_with_l1(ir, base, p)
        .time_us
        .ok_or(NoLanes::UnknownSize)?
        .max(naive_floor(base, p, n, m));
    spec.naive_us = naive;
    spec.lanes_us = estimate(ir, base, &spec, p, n, m);
    if inner.lanes_asked {
        spec.asked = true;
        return Ok(spec);
    }
    if spec.speedup() < MARGIN {
        return Err(NoLanes::NoGain {
            platform: p.name.clone(),
            naive_us: spec.naive_us,
            lanes_us: spec.lanes_us,
        });
    }
    Ok(spec)
}

/// The loop across lanes as the user's directives ask for it, where the model has no sizes:
/// `vector_length` lanes per row (a warp by default), `num_workers` rows per block (else
/// [`DEFAULT_THREADS`] over the lanes).
fn asked(mut spec: Lanes, root: &crate::ir::Loop, inner: &crate::ir::Loop, p: &Platform) -> Lanes {
    spec.lanes = inner
        .vector_len
        .or(root.vector_len)
        .filter(|v| v.is_power_of_two() && (2..=p.max_threads_per_block).contains(v))
        .unwrap_or(DEFAULT_LANES.min(p.max_threads_per_block));
    spec.rows = root
        .workers
        .filter(|w| *w >= 1 && w * spec.lanes <= p.max_threads_per_block)
        .unwrap_or((DEFAULT_THREADS.min(p.max_threads_per_block) / spec.lanes).max(1));
    spec.asked = true;
    spec
}

/// The legality of running the inner loop of `base`'s nest across lanes (sizes unset).
pub fn legal(
    ir: &Region,
    deps: &DepInfo,
    base: &Schedule,
    reassociate: bool,
) -> Result<Lanes, NoLanes> {
    if base.grid.len() != 1 || base.grid[0].loop_id != base.root || base.staged().is_some() {
        return Err(NoLanes::Shape(
            "the nest does not have exactly one grid loop",
        ));
    }
    let root = base.root;
    let rd = &deps.loops[root];
    let [inner] = ir.loops[root].children[..] else {
        return Err(NoLanes::Shape(
            "the grid loop does not hold exactly one inner loop",
        ));
    };
    let lp = &ir.loops[inner];
    // Bounds that are not affine (CSR rows, `k = rowstr[j]; k < rowstr[j + 1]`) leave the
    // model without sizes: such a loop runs across lanes only where the user asks for it.
    let affine = lp.lower.affine().is_some() && lp.upper.affine().is_some();
    if lp.conditional || lp.step != 1 || !(affine || lp.lanes_asked) {
        return Err(NoLanes::Shape(
            "the inner loop is conditional, of a step other than 1, or of non-affine bounds",
        ));
    }
    if !rd.reductions.is_empty() {
        return Err(NoLanes::Shape("the grid loop has reductions of its own"));
    }
    let ld = &deps.loops[inner];
    if ld.verdict != Verdict::Independent {
        return Err(NoLanes::NotReduction(format!(
            "loop `{}` carries a dependence other than reductions",
            lp.var
        )));
    }
    if ld.reductions.is_empty() {
        return Err(NoLanes::NotReduction(format!(
            "loop `{}` reduces no scalar",
            lp.var
        )));
    }
    if lp.marking == Marking::Seq && !reassociate {
        return Err(NoLanes::Seq(lp.var.clone()));
    }
    let mut vars = Vec::new();
    for (op, v) in &ld.reductions {
        let info = ir.scalars.get(v);
        // Private to the row: declared in the grid loop's body, or privatized by it.
        let private = info.is_some_and(|s| s.local == Some(Some(root)))
            || rd.privatized.contains(v)
            || ir.loops[root].private.contains(v);
        if !private {
            return Err(NoLanes::NotReduction(format!(
                "`{v}` is not private to an iteration of loop `{}`",
                ir.loops[root].var
            )));
        }
        let ty = info.map_or(Scalar::Float, |s| s.ty);
        let allowed = if !ty.is_float() {
            Allowed::Exact
        } else if lp.reductions.iter().any(|(o, n)| o == op && n == v) {
            Allowed::Clause
        } else if reassociate {
            Allowed::Reassociate
        } else {
            return Err(NoLanes::FloatOrder(v.clone()));
        };
        vars.push(LaneVar {
            op: *op,
            name: v.clone(),
            ty,
            allowed,
        });
    }
    Ok(Lanes {
        inner,
        var: lp.var.clone(),
        lanes: DEFAULT_LANES,
        rows: 1,
        vars,
        naive_us: 0.0,
        lanes_us: 0.0,
        asked: false,
    })
}

/// The outputs of the grid loop and the trips of the inner loop, where both are constants.
fn sizes(ir: &Region, base: &Schedule, inner: LoopId) -> Option<(f64, f64)> {
    let g = &base.grid[0];
    let n = g.max.sub(&g.min)?.as_const()? + 1;
    let lp = &ir.loops[inner];
    let lo = ir
        .extreme(lp.lower.affine()?, &[base.root], false)?
        .as_const()?;
    let hi = ir
        .extreme(lp.upper.affine()?, &[base.root], true)?
        .as_const()?;
    Some((n.max(1) as f64, (hi - lo).max(1) as f64))
}

/// The least time (microseconds) of the naive kernel: every work-item runs the `m` iterations
/// of the reduction loop, each at least an L1 hit's latency, and an SM's warps overlap.
fn naive_floor(base: &Schedule, p: &Platform, n: f64, m: f64) -> f64 {
    let block = base.launch_block();
    let threads = block.iter().product::<u32>().max(1) as u64;
    let warp = p.warp_size.max(1) as f64;
    let sms = p.sm_count.max(1) as f64;
    let resident_warps =
        p.resident_blocks(threads, 0).max(1) as f64 * (threads as f64 / warp).ceil();
    let warps = (n / warp).ceil();
    let blocks = (n / threads as f64).ceil().max(1.0);
    let busy = blocks.min(sms);
    let per_sm = (warps / busy).ceil();
    let waves = (per_sm / resident_warps).ceil().max(1.0);
    let l1 = p.timing.level_latency(0).max(1) as f64;
    waves * m * l1 / p.clock_mhz.max(1) as f64
}

/// The model's time (microseconds) of the kernel across lanes: the larger of its DRAM time (what
/// the grid loop's rows read once, what they share read once) and its latency time (each warp
/// waits one latency per strip of L iterations; the warps an SM holds overlap), plus the trees.
fn estimate(ir: &Region, base: &Schedule, l: &Lanes, p: &Platform, n: f64, m: f64) -> f64 {
    let root = base.root;
    let row = &ir.loops[root].var;
    let threads = (l.lanes * l.rows) as u64;
    let smem: u64 = l.vars.iter().map(|v| v.ty.size() as u64 * threads).sum();
    let sms = p.sm_count.max(1) as f64;
    let blocks = (n / l.rows as f64).ceil().max(1.0);
    let resident = p.resident_blocks(threads, smem).max(1) as f64;
    let per_sm = (blocks / sms).ceil().min(resident).max(1.0);
    let busy = blocks.min(sms);
    let warp = p.warp_size.max(1) as f64;
    let warps_per_row = (l.lanes as f64 / warp).ceil();
    let in_flight = per_sm * l.rows as f64 * warps_per_row;
    // Bytes: a reference that moves with the row is read once per row; one that does not, once.
    let mut bytes = 0.0;
    for a in &ir.accesses {
        if !a.loops.contains(&l.inner) {
            continue;
        }
        let e = ir
            .arrays
            .get(&a.array)
            .map_or(4.0, |i| i.elem.size().max(1) as f64);
        let per_row = a
            .subscripts
            .iter()
            .any(|s| s.as_ref().is_none_or(|s| s.mentions(row)));
        bytes += if per_row { n * m * e } else { m * e };
    }
    let clock = p.clock_mhz.max(1) as f64; // cycles per microsecond
    let dram_us = bytes / (p.bandwidth_gbs.max(1.0) * 1e3);
    let latency = p.timing.latency_cycles.max(1) as f64;
    let strips = (m / l.lanes as f64).ceil();
    let rows_per_sm = (n / busy).ceil();
    let latency_us = rows_per_sm * warps_per_row * strips * latency / in_flight.max(1.0) / clock;
    // The tree: log2(L) steps of a barrier and a shared load/store, per wave of blocks.
    let waves = (blocks / (busy * per_sm)).ceil();
    let tree_us = waves * (l.lanes as f64).log2() * 2.0 * latency / 8.0 / clock;
    dram_us.max(latency_us) + tree_us
}
