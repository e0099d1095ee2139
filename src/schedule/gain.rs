//! Whether staging pays on a GPU whose L1 caches global loads (issue 27: "never slower than
//! naive").
//!
//! The seed paper measured its gains on GPUs whose L1 did not cache global loads (GTX 690, HD
//! 7850): there every reuse the block does not stage goes to the L2 or DRAM, and staging wins by
//! construction. On GPUs since Volta (and Fermi, and AMD's GCN) the L1 serves much of what
//! staging was for: a stencil's neighbours, a broadcast operand, a row shared by the warps of a
//! block. An H100 ran the staged mv 3× slower and the staged hotspot 1.25× slower than the
//! unstaged kernels (`../shared/data/h100-2026-11-27.md`). So on a platform whose file carries
//! the L1 facts ([`crate::model::platform::Timing::l1_model`]: `l1_latency_cycles`,
//! `l1_lines_per_clock`), the schedule estimates both kernels with the register model's terms
//! ([`super::regs`]) and keeps the staged one only when it is at least [`MARGIN`] faster. (The
//! outputs per work-item of the staged kernel are still chosen by the register model without
//! these facts, as the paper's GPUs were; the H100 ran transpose's 4 rows per work-item at its
//! copy bandwidth.)
//!
//! What the L1 model adds to the register model's terms (all per output, cycles of one SM):
//! - **L1 hits** ([`L1::miss`]): an unstaged read in the sequential loop misses the L1 once per
//!   sector its work-item walks (`stride × element / sector` of the loads, when the stride
//!   along the loop is under a sector), and once for the warps of the block that read the same
//!   element (a reference without the y grid index is read by every row of warps: it misses
//!   for one of them). A loop-free nest's references to one array at constant distances miss
//!   once per element of the block's footprint (the block plus the references' spread). Only
//!   misses count as memory traffic. An iteration waits for an L1 hit unless one of its loads
//!   misses (`l1 + P(miss) · (latency − l1)`); a loop-free nest waits for a miss (the first
//!   touch of its elements).
//! - **The L1's lines** ([`L1::lines`]): a warp request takes a clock per distinct 128-byte line
//!   it touches: 1 for a coalesced or broadcast reference, 32 for one whose lanes are rows
//!   apart (mv's `A[i][j]` with `i` on x). This is what makes an uncoalesced kernel slow even
//!   when the L1 serves it.
//! - **The copy's loads**: a strip of a staged kernel waits for the loads of its cooperative copy
//!   [`COPY_LOADS_IN_FLIGHT`] at a time (the H100's staged mv at 7673f8a, 33 guarded loads per
//!   work-item and strip indexed by `/` and `%`, ran at about one DRAM latency per load; without
//!   the divisions, an H200 ran it at about one latency per two loads).
//! - **SM fill**: the blocks a grid of known size gives an SM (at most the resident ones) are
//!   all that hide each other's latency, and only the SMs that get a block share the bandwidth
//!   (mv's 32 or 64 blocks on 132 SMs).

use crate::ir::{Access, Region};
use crate::model::Platform;
use crate::vocab::Scalar;

use super::regs::{self, FactorCandidate};
use super::Schedule;

/// How much faster than the unstaged kernel the model must estimate a staged one for the
/// schedule to stage (a clear gain: the model's error on the H100 is larger than a few percent).
pub const MARGIN: f64 = 1.10;

/// Loads of a cooperative copy a work-item has in flight at once: each strip of a staged
/// kernel waits `latency × ⌈copy loads / this⌉` for its tiles. A copy loop starts at the
/// work-item's row of the tile (`for (r = threadIdx.y; r < 128; r += 16)`): its trip count is not
/// a constant, so the compiler unrolls it only partly. Calibrated on an H200 (2026-11-28,
/// `docs/model.md`, "H200"): the staged mv (32 loads per work-item and strip, 4 warps per SM)
/// ran at about 8400 cycles per strip, 16 latencies of the platform's 500 cycles; and 8×8
/// register micro-tiles (16 loads per strip) ran 1.23× faster than 4×4 ones (8 loads), which one
/// latency per load (the H100 calibration, whose copies still divided) ranked the other way.
pub const COPY_LOADS_IN_FLIGHT: f64 = 2.0;

/// Bytes of an L1 line (128 on every platform with the L1 facts).
pub const LINE: f64 = 128.0;

/// The L1 facts of one schedule (see the module header).
#[derive(Clone, Debug)]
pub struct L1 {
    /// Blocks the grid gives one SM at most (infinite when the grid's size is unknown).
    pub blocks_per_sm: f64,
    /// SMs that get a block.
    pub busy_sms: f64,
    /// Loads of the cooperative copy per work-item and strip (staged schedules).
    pub copy_loads: f64,
    /// Iterations of the sequential loop per strip (`None`: no strip, the tiles are copied
    /// once).
    strip: Option<f64>,
    /// Cycles an iteration of the sequential loop waits for its unstaged loads.
    pub iteration_latency: f64,
    /// Per access (`AccessId` order): the fraction of its loads that miss the L1, and the lines
    /// one warp request touches.
    miss: Vec<f64>,
    lines: Vec<f64>,
}

impl L1 {
    /// The facts of schedule `s` on `p`; `None` where the platform has no L1 model.
    pub fn of(ir: &Region, s: &Schedule, p: &Platform) -> Option<L1> {
        if !(p.timing.l1_model() && p.cache.l1_global_loads) {
            return None;
        }
        let warp = p.warp_size.max(1) as f64;
        let sector = p.sector_bytes.max(1) as f64;
        let launch = s.launch_block();
        let threads = launch.iter().product::<u32>().max(1) as f64;
        let outputs_per_block = threads * s.shape.outputs() as f64;
        let sms = p.sm_count.max(1) as f64;
        let (blocks_per_sm, busy_sms) = match regs::grid_outputs(s) {
            Some(n) => {
                let blocks = (n / outputs_per_block).ceil().max(1.0);
                ((blocks / sms).ceil(), blocks.min(sms))
            }
            None => (f64::INFINITY, sms),
        };
        let copy_loads = s.staged().map_or(0.0, |st| {
            st.arrays
                .iter()
                // The elements the copy moves (a padded row's pad is not copied).
                .map(|t| {
                    let elements: u32 = t.dims.iter().map(|d| d.extent).product();
                    (elements as f64 / threads).ceil()
                })
                .sum()
        });
        let var = |dim: u8| {
            s.grid
                .iter()
                .find(|g| g.dim == dim)
                .map(|g| ir.loops[g.loop_id].var.as_str())
        };
        let (x, y) = (var(0), var(1));
        let inner = regs::inner_sequential(ir, s).map(|l| ir.loops[l].var.as_str());
        let in_nest = |a: &Access| a.loops.first() == Some(&s.root);
        let elem = |a: &Access| {
            let t = ir.arrays.get(&a.array).map_or(Scalar::Float, |i| i.elem);
            t.size().max(1) as f64
        };
        let mut miss = vec![1.0; ir.accesses.len()];
        let mut lines = vec![1.0; ir.accesses.len()];
        for (i, a) in ir.accesses.iter().enumerate() {
            if !in_nest(a) {
                continue;
            }
            let e = elem(a);
            // Lines of one warp request: the lanes walk x.
            lines[i] = match x.map(|x| stride(ir, a, x)) {
                Some(Some(0)) | None => 1.0,
                Some(Some(st)) => (warp * st.unsigned_abs() as f64 * e / LINE)
                    .ceil()
                    .clamp(1.0, warp),
                Some(None) => warp,
            };
            miss[i] = match inner {
                Some(v) if a.loops.iter().any(|l| ir.loops[*l].var == v) => {
                    // Along the sequential loop: a new sector every `sector / (stride · e)`
                    // iterations.
                    let along = match stride(ir, a, v) {
                        Some(0) => 0.0,
                        Some(st) => (st.unsigned_abs() as f64 * e / sector).min(1.0),
                        None => 1.0,
                    };
                    // Across the rows of warps: one of them misses.
                    let rows = if launch[0] as f64 >= warp && launch[1] > 1 {
                        launch[1] as f64
                    } else {
                        1.0
                    };
                    let shared = match y.map(|y| {
                        a.subscripts
                            .iter()
                            .any(|p| p.as_ref().is_none_or(|p| p.mentions(y)))
                    }) {
                        Some(false) => 1.0 / rows,
                        _ => 1.0,
                    };
                    along * shared
                }
                _ => footprint(ir, s, a, launch, x, y),
            };
        }
        let mut hit = 1.0;
        if let Some(v) = inner {
            for (i, a) in ir.accesses.iter().enumerate() {
                let staged = s
                    .staged()
                    .is_some_and(|st| st.arrays.iter().any(|t| t.name == a.array));
                if in_nest(a)
                    && a.reads()
                    && !staged
                    && a.loops.iter().any(|l| ir.loops[*l].var == v)
                {
                    hit *= 1.0 - miss[i];
                }
            }
        }
        let l1 = p.timing.l1_latency_cycles as f64;
        let lat = p.timing.latency_cycles as f64;
        Some(L1 {
            blocks_per_sm,
            busy_sms,
            copy_loads: copy_loads.max(1.0),
            strip: s
                .staged()
                .and_then(|st| st.strip.as_ref())
                .map(|x| x.size.max(1) as f64),
            iteration_latency: l1 + (1.0 - hit) * (lat - l1).max(0.0),
            miss,
            lines,
        })
    }

    /// Strips of the sequential loop's `trips` iterations (1 without a strip).
    pub fn strips(&self, trips: f64) -> f64 {
        self.strip.map_or(1.0, |k| (trips / k).ceil().max(1.0))
    }

    /// The fraction of access `a`'s loads that miss the L1.
    pub fn miss(&self, a: crate::ir::AccessId) -> f64 {
        self.miss.get(a.index()).copied().unwrap_or(1.0)
    }

    /// The 128-byte lines one warp request of access `a` touches.
    pub fn lines(&self, a: crate::ir::AccessId) -> f64 {
        self.lines.get(a.index()).copied().unwrap_or(1.0)
    }
}

/// Elements between what consecutive values of `var` read through `a` (`None`: not a constant,
/// or an extent it crosses is unknown).
pub fn stride(ir: &Region, a: &Access, var: &str) -> Option<i64> {
    let info = ir.arrays.get(&a.array)?;
    let mut total = 0i64;
    let mut row = 1i64;
    for (d, sub) in a.subscripts.iter().enumerate().rev() {
        let sub = sub.as_ref()?;
        if sub.mentions(var) {
            let c = sub.split(var)?.0.as_const()?;
            total = total.checked_add(c.checked_mul(row)?)?;
        }
        if d > 0 {
            let ext = info.extents.get(d)?.as_ref()?.as_const()?;
            row = row.checked_mul(ext)?;
        }
    }
    Some(total)
}

/// The fraction of a loop-free reference's loads that miss the L1: the block's footprint of the
/// references to the same array that lie at constant distances from `a` (the block's extent
/// plus their spread, per dimension walked by x or y), over the loads of those references.
fn footprint(
    ir: &Region,
    s: &Schedule,
    a: &Access,
    launch: [u32; 3],
    x: Option<&str>,
    y: Option<&str>,
) -> f64 {
    let Some(subs) = a.subscripts.iter().cloned().collect::<Option<Vec<_>>>() else {
        return 1.0;
    };
    let group: Vec<Vec<i64>> = ir
        .accesses
        .iter()
        .filter(|b| b.loops.first() == Some(&s.root) && b.array == a.array && b.reads())
        .filter_map(|b| {
            (b.subscripts.len() == subs.len())
                .then(|| {
                    b.subscripts
                        .iter()
                        .zip(&subs)
                        .map(|(p, q)| p.as_ref()?.sub(q)?.as_const())
                        .collect::<Option<Vec<i64>>>()
                })
                .flatten()
        })
        .collect();
    let refs = group.len().max(1) as f64;
    let mut footprint = 1.0;
    for (d, q) in subs.iter().enumerate() {
        let extent = match (x, y) {
            (Some(x), _) if q.mentions(x) => launch[0] as f64,
            (_, Some(y)) if q.mentions(y) => launch[1] as f64,
            _ => 1.0,
        };
        let lo = group.iter().map(|o| o[d]).min().unwrap_or(0);
        let hi = group.iter().map(|o| o[d]).max().unwrap_or(0);
        footprint *= extent + (hi - lo) as f64;
    }
    let loads = refs * (launch[0] * launch[1]) as f64;
    (footprint / loads).min(1.0)
}

/// The model's estimates of a staged schedule and of the unstaged one, and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Gain {
    pub platform: String,
    pub staged: FactorCandidate,
    pub unstaged: FactorCandidate,
    /// The unstaged estimate over the staged one (> 1: staging is faster).
    pub speedup: f64,
    /// Whether the staged schedule is kept (`speedup ≥ MARGIN`).
    pub stage: bool,
}

/// Compares `staged` with `unstaged` on `p` (a platform with the L1 facts): by the kernels'
/// times where the grid's size is known (the SMs each fills differ), else per output.
pub fn compare(ir: &Region, staged: &Schedule, unstaged: &Schedule, p: &Platform) -> Gain {
    let st = regs::candidate_with_l1(ir, staged, p);
    let un = regs::candidate_with_l1(ir, unstaged, p);
    let speedup = match (st.time_us, un.time_us) {
        (Some(a), Some(b)) if a > 0.0 => b / a,
        _ if st.cycles_per_output > 0.0 => un.cycles_per_output / st.cycles_per_output,
        _ => 1.0,
    };
    Gain {
        platform: p.name.clone(),
        stage: speedup >= MARGIN,
        staged: st,
        unstaged: un,
        speedup,
    }
}
