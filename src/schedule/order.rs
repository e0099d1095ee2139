//! The order in which a kernel's blocks take their tiles: linear or diagonal, against channel
//! conflicts (the seed paper's §3.3.1, last paragraph, and §4.2.3; NVIDIA's *partition camping*).
//!
//! Global memory is interleaved over the memory channels (`[channels]` of the platform file:
//! `channel = (address / interleave) % count`). The blocks that run at once are the first wave
//! of the launch, in increasing linear block index: along x first. When consecutive blocks along
//! x touch addresses a multiple of `count × interleave` bytes apart (blocks that walk the columns
//! of a row-major matrix whose rows are a large power of two long: mt's read, mv's band), they
//! all wait on one channel while the others idle.
//!
//! The diagonal order gives block `(bx, by)` of the launch the tile `(bx, (by + s·bx) mod gy)`:
//! the placement matrix Q = [[1, 0], [s, 1]] (the paper's diagonal remapping, s = 1, skewed)
//! applied to the block coordinates, modulo the grid's height. The blocks of the first wave,
//! consecutive along x, then take tiles that move along x *and* y, a diagonal of the tile grid,
//! so both the row-walking and the column-walking references of a transpose spread over the
//! channels. The skew `s` (a power of two up to [`MAX_SKEW`], the one the model finds best, the
//! smallest on a tie) matters when a tile is narrower than a channel's interleave: with tiles of
//! 4 floats (16 B) and 256-byte interleave, s = 1 moves 16 consecutive blocks within one
//! channel's 256 bytes, s = 16 moves each block to the next channel.
//! (Rotating x by y instead, `bx' = (bx + by) mod gx`, leaves the first row of blocks, most of a
//! wave on a wide grid, in place: it does not spread the first wave.)
//!
//! The decision is taken here, with a static model of the first wave ([`wave_imbalance`]): for
//! each reference of the nest (one step of every block: the requests in flight together when
//! the blocks advance at the same pace), the distinct sectors each block of the wave touches with
//! its sequential loops at their first iteration, per channel; the imbalance is `Σ max channel /
//! Σ mean channel` over the references (1: spread evenly; `count`: one channel). Diagonal is
//! chosen when the platform declares channels, the grid has two dimensions, the blocks walk
//! columns (a reference whose block-to-block stride along x is a multiple of `count ×
//! interleave`) and the model's imbalance drops by at least [`MIN_GAIN`]. The simulator measures
//! the same quantity on the kernel it runs (`sim::channel`); it never feeds back.

use std::collections::BTreeSet;

use crate::analysis::dependence::DepInfo;
use crate::model::Platform;
use crate::partition::nest::Nest;

use super::{GridLoop, Schedule};

/// The order of the blocks of a launch.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum BlockOrder {
    /// Block `(bx, by)` takes tile `(bx, by)`.
    #[default]
    Linear,
    /// Block `(bx, by)` takes tile `(bx, (by + skew·bx) mod gy)`.
    Diagonal { skew: u32 },
}

impl BlockOrder {
    pub fn name(self) -> &'static str {
        match self {
            BlockOrder::Linear => "linear",
            BlockOrder::Diagonal { .. } => "diagonal",
        }
    }
}

/// The largest skew of the diagonal order the model tries.
pub const MAX_SKEW: u32 = 64;

/// The imbalance must drop by this fraction for the diagonal order to be chosen.
pub const MIN_GAIN: f64 = 0.10;

/// Why a kernel keeps or changes its block order.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderReason {
    /// The blocks walk columns and the diagonal order spreads the first wave.
    Spreads,
    /// A grid of one dimension: the diagonal order is the identity.
    OneDimensional,
    /// Reductions over the grid loops: their partial results are combined in block order.
    Reduction,
    /// No reference's block-to-block stride along x falls in the same channel.
    NoColumnWalk,
    /// The model's imbalance does not drop by [`MIN_GAIN`].
    NoGain,
}

impl std::fmt::Display for OrderReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OrderReason::Spreads => {
                "consecutive blocks walk columns into one channel; the diagonal order spreads the first wave"
            }
            OrderReason::OneDimensional => "a one-dimensional grid: the diagonal order is the identity",
            OrderReason::Reduction => {
                "the grid loops reduce: partial results are combined in block order"
            }
            OrderReason::NoColumnWalk => "consecutive blocks do not walk columns into one channel",
            OrderReason::NoGain => "the diagonal order does not lower the imbalance enough",
        })
    }
}

/// The channel model's verdict for one schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelModel {
    /// Blocks in the first wave (SMs × resident blocks, at most the grid).
    pub wave: u64,
    /// Modelled imbalance of the first wave in each order (the diagonal one with `skew`).
    pub linear: f64,
    pub diagonal: f64,
    pub skew: u32,
    /// The reference whose consecutive blocks along x camp on one channel, and their stride in
    /// bytes.
    pub column_walk: Option<(String, i64)>,
    pub reason: OrderReason,
}

/// Decides the block order of `s` (a candidate of nest `nest`) on platform `p`: sets
/// `s.block_order` and `s.channels`. Nothing changes on a platform without `[channels]`.
pub fn decide(s: &mut Schedule, nest: &Nest, deps: &DepInfo, p: &Platform) {
    s.block_order = BlockOrder::Linear;
    s.channels = None;
    let Some(ch) = &p.channels else { return };
    let model = |reason, linear, (diagonal, skew), wave, column_walk| ChannelModel {
        wave,
        linear,
        diagonal,
        skew,
        column_walk,
        reason,
    };
    let gx = grid_blocks(nest, &s.grid, s.shape.block, 0);
    let gy = grid_blocks(nest, &s.grid, s.shape.block, 1);
    let launch = s.launch_block();
    let threads: u64 = launch.iter().map(|&b| b.max(1) as u64).product();
    let smem: u64 = s
        .staged()
        .map(|st| {
            st.arrays
                .iter()
                .map(|a| a.len() as u64 * a.elem.size() as u64)
                .sum()
        })
        .unwrap_or(0);
    let grid_blocks_total = gx * gy.max(1);
    let wave = (p.sm_count as u64 * p.resident_blocks(threads, smem).max(1)).min(grid_blocks_total);
    if s.grid.len() < 2 {
        let lin = wave_imbalance(nest, s, p, BlockOrder::Linear, gx, gy, wave);
        s.channels = Some(model(
            OrderReason::OneDimensional,
            lin,
            (lin, 1),
            wave,
            None,
        ));
        return;
    }
    if s.grid
        .iter()
        .any(|g| !deps.loops[g.loop_id].reductions.is_empty())
    {
        s.channels = Some(model(OrderReason::Reduction, 0.0, (0.0, 1), wave, None));
        return;
    }
    let lin = wave_imbalance(nest, s, p, BlockOrder::Linear, gx, gy, wave);
    let walk = column_walk(
        nest,
        s,
        ch.count.get() as i64 * ch.interleave_bytes.get() as i64,
    );
    // The best skew, the smallest on a tie (modelled only when the blocks walk columns).
    let mut diag = (lin, 1);
    if walk.is_some() {
        diag.0 = f64::INFINITY;
        let mut skew = 1;
        while skew <= MAX_SKEW && (skew == 1 || (skew as u64) < gy) {
            let d = wave_imbalance(nest, s, p, BlockOrder::Diagonal { skew }, gx, gy, wave);
            if d < diag.0 - 1e-9 {
                diag = (d, skew);
            }
            skew *= 2;
        }
    }
    let reason = if walk.is_none() {
        OrderReason::NoColumnWalk
    } else if diag.0 > lin * (1.0 - MIN_GAIN) {
        OrderReason::NoGain
    } else {
        s.block_order = BlockOrder::Diagonal { skew: diag.1 };
        OrderReason::Spreads
    };
    s.channels = Some(model(reason, lin, diag, wave, walk));
}

/// Blocks of the grid along `dim` (1 when the grid has no such dimension).
fn grid_blocks(nest: &Nest, grid: &[GridLoop], block: [u32; 3], dim: u8) -> u64 {
    grid.iter()
        .find(|g| g.dim == dim)
        .map_or(1, |g| {
            (nest.trip_of(g.loop_id).max(0) as u64).div_ceil(block[dim as usize].max(1) as u64)
        })
        .max(1)
}

/// The byte offset of reference `r` of the nest at the given loop counters (`None` when the
/// array's strides or element size are unknown).
fn byte_offset(nest: &Nest, r: usize, counter: &dyn Fn(crate::ir::LoopId) -> i64) -> Option<i64> {
    let rc = &nest.refs[r];
    let strides = nest.strides.get(&rc.array)?;
    let elem = *nest.elem_bytes.get(&rc.array)?;
    if strides.len() != rc.dims.len() {
        return None;
    }
    let mut off = 0i64;
    for (lin, st) in rc.dims.iter().zip(strides) {
        let mut v = lin.base;
        for (l, c) in &lin.coef {
            v = v.checked_add(c.checked_mul(counter(*l))?)?;
        }
        off = off.checked_add(v.checked_mul(*st)?)?;
    }
    off.checked_mul(elem)
}

/// The first reference whose consecutive blocks along x are a multiple of `period` bytes apart
/// (`count × interleave`: the same channel) and at least `period` apart, with that stride.
fn column_walk(nest: &Nest, s: &Schedule, period: i64) -> Option<(String, i64)> {
    let x = s.grid.iter().find(|g| g.dim == 0)?;
    let bx = s.shape.block[0] as i64;
    (0..nest.refs.len()).find_map(|r| {
        let a = byte_offset(nest, r, &|_| 0)?;
        let b = byte_offset(nest, r, &|l| if l == x.loop_id { bx } else { 0 })?;
        let d = (b - a).abs();
        (d >= period && d % period == 0).then(|| (nest.refs[r].text.clone(), d))
    })
}

/// The modelled imbalance of the first `wave` blocks in `order` (see the module documentation).
pub fn wave_imbalance(
    nest: &Nest,
    s: &Schedule,
    p: &Platform,
    order: BlockOrder,
    gx: u64,
    gy: u64,
    wave: u64,
) -> f64 {
    let Some(ch) = &p.channels else { return 1.0 };
    let n = ch.count.get() as usize;
    let sector = p.sector_bytes.max(1) as i64;
    let dim_loop = |d: u8| s.grid.iter().find(|g| g.dim == d).map(|g| g.loop_id);
    let (lx, ly) = (dim_loop(0), dim_loop(1));
    let [bw, bh, _] = s.shape.block;
    let (mut busiest, mut total) = (0u64, 0u64);
    for r in 0..nest.refs.len() {
        let mut load = vec![0u64; n];
        for b in 0..wave {
            let (bx, by) = (b % gx, (b / gx) % gy.max(1));
            let by = match order {
                BlockOrder::Linear => by,
                BlockOrder::Diagonal { skew } => {
                    let gy = gy.max(1);
                    (by + (bx % gy) * skew as u64 % gy) % gy
                }
            };
            let mut sectors = BTreeSet::new();
            for ty in 0..bh.max(1) as i64 {
                for tx in 0..bw.max(1) as i64 {
                    let cx = bx as i64 * bw as i64 + tx;
                    let cy = by as i64 * bh as i64 + ty;
                    let out = |l: Option<crate::ir::LoopId>, c: i64| {
                        l.is_some_and(|l| c >= nest.trip_of(l))
                    };
                    if out(lx, cx) || out(ly, cy) {
                        continue;
                    }
                    let counter = |l| {
                        if Some(l) == lx {
                            cx
                        } else if Some(l) == ly {
                            cy
                        } else {
                            0
                        }
                    };
                    if let Some(off) = byte_offset(nest, r, &counter) {
                        sectors.insert(off.div_euclid(sector));
                    }
                }
            }
            let (il, cn) = (ch.interleave_bytes.get() as i64, n as i64);
            for sec in sectors {
                load[(sec * sector).div_euclid(il).rem_euclid(cn) as usize] += 1;
            }
        }
        busiest += load.iter().copied().max().unwrap_or(0);
        total += load.iter().sum::<u64>();
    }
    if total == 0 {
        1.0
    } else {
        busiest as f64 * n as f64 / total as f64
    }
}
