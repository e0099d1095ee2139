//! A kernel's schedule space: the points a tuner measures ([`space`]) and the one its cache
//! brings back ([`apply`]).
//!
//! A point is a [`Variant`]: which of the partition engine's configurations is staged (its best,
//! or the best for another block shape), or nothing staged and then any block shape; and the
//! rows per work-item. Every variant is built by the same functions as the model's choice
//! (`stage::plan`, [`rows_per_work_item`]), so a variant is legal exactly when the model's
//! choice would be: the space adds no transformation, only choices.
//!
//! One thing the model decides that a variant may undo: on devices whose local memory is global
//! memory the model stages nothing (`Unstaged::LocalMemoryIsGlobal`), because on average it
//! does not pay; a variant may stage there, since for some kernels it does (gemm on PoCL).

use std::fmt;
use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use super::{rows_per_work_item, ColLayout, KernelSchedule, Schedule, ShapeRequest, WorkShape};
use crate::analysis::dependence::DepInfo;
use crate::ir::lower::RegionAst;
use crate::partition::KernelPlan;

/// One point of a kernel's schedule space.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The engine configuration staged: 0 its best, `i` its `i`-th alternative (the best for
    /// another block shape); `None` stages nothing.
    pub config: Option<usize>,
    /// Work-items per block along x, y, z before rows per work-item ([`Schedule::block`]).
    pub block: [u32; 3],
    /// Rows of the block each work-item computes.
    pub ilp: u32,
    /// Columns of the block each work-item computes (cyclically).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cols: u32,
    /// Where a work-item's columns lie ([`ColLayout`]; unstaged tiles only).
    #[serde(default, skip_serializing_if = "is_cyclic")]
    pub layout: ColLayout,
    /// Arrays the configuration stages that this variant leaves in global memory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
    /// The skew of the diagonal block order ([`super::order`]), 0 for the linear order (the
    /// default, and what cache entries written before this field mean).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub diagonal: u32,
    /// The model's grouping into vector accesses ([`super::words`]: short words, or a
    /// transposed vector tile) on this variant's tile: an unstaged variant whose rows, columns
    /// and layout are the grouping's. `false` for entries written before the field, which then
    /// rebuild the tile with element accesses.
    #[serde(default, skip_serializing_if = "is_false")]
    pub words: bool,
    /// The inner reduction loop across lanes ([`super::lanes`]): `block` is then `[lanes, rows,
    /// 1]`, unstaged, one output per row. `false` for entries written before the field.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lanes: bool,
    /// A staged 2-D register micro-tile ([`super::micro`]): the configuration's block grown to
    /// `block`, its strip `ktile` iterations long, the unguarded copy for whole tiles; 0 for the
    /// configuration's own block and strip (and for entries written before the field).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ktile: u32,
    /// A micro-tile whose staged tiles are read as vectors of this many elements
    /// ([`WorkShape::vector`]); 1 (and 0, entries written before the field): element reads.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub vector: u32,
}

impl Variant {
    /// The variant's block and micro-tile as the schedule keeps them (`None` with 0 rows or
    /// columns: a cache entry no accshare writes).
    pub fn shape(&self) -> Option<WorkShape> {
        Some(WorkShape {
            block: self.block,
            rows: NonZeroU32::new(self.ilp)?,
            cols: NonZeroU32::new(self.cols)?,
            layout: self.layout,
            vector: self.vector.max(1),
            adjacent_rows: false,
        })
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn one() -> u32 {
    1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_cyclic(l: &ColLayout) -> bool {
    *l == ColLayout::Cyclic
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.config {
            None => write!(f, "global memory")?,
            Some(0) => write!(f, "staged")?,
            Some(i) => write!(f, "staged (alternative {})", i)?,
        }
        let b = self.block;
        match b {
            [x, 1, 1] => write!(f, ", block {}", x)?,
            [x, y, 1] => write!(f, ", block {}×{}", x, y)?,
            [x, y, z] => write!(f, ", block {}×{}×{}", x, y, z)?,
        }
        if self.cols > 1 {
            write!(f, ", {}×{} outputs per work-item", self.ilp, self.cols)?;
            if self.layout == ColLayout::Contiguous {
                write!(f, " (adjacent columns)")?;
            }
        } else if self.ilp > 1 {
            write!(f, ", {} rows per work-item", self.ilp)?;
        }
        if self.words {
            write!(f, ", vector accesses")?;
        }
        if self.ktile > 0 {
            write!(f, ", k tile {}", self.ktile)?;
        }
        if self.vector > 1 {
            write!(f, ", tiles read as {}-element vectors", self.vector)?;
        }
        if !self.skip.is_empty() {
            write!(f, ", {} in global memory", self.skip.join(", "))?;
        }
        if self.diagonal > 0 {
            write!(f, ", diagonal block order (skew {})", self.diagonal)?;
        }
        if self.lanes {
            write!(f, ", the inner reduction across {} lanes", self.block[0])?;
        }
        Ok(())
    }
}

/// Why a variant does not apply to a kernel (a cache entry written for other code, or by
/// another version of accshare).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// The engine has no such configuration (or no plan: `--opt naive`).
    NoConfig(usize),
    /// The configuration stages nothing in this kernel.
    NothingStaged,
    /// The block is not the configuration's, or does not fit the grid or the device.
    Block,
    /// The rows or columns per work-item do not divide the block, or the kernel cannot have
    /// several.
    Rows,
    /// An array to leave in global memory that the configuration does not stage (its name).
    Skip(String),
    /// A diagonal block order for a kernel whose grid has fewer than two dimensions.
    Order,
    /// Vector accesses where the model groups none, or on another tile than the model's
    /// grouping (or a staged variant).
    Words,
    /// The inner reduction loop across lanes where the nest cannot run so, or in a block that
    /// is not `[power-of-two lanes, rows, 1]` with one output per work-item.
    Lanes,
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::NoConfig(i) => {
                write!(f, "the partition engine has no configuration {}", i)
            }
            VariantError::NothingStaged => write!(f, "the configuration stages no array"),
            VariantError::Block => write!(f, "the block shape does not fit this kernel"),
            VariantError::Lanes => write!(
                f,
                "the inner reduction loop cannot run across the lanes of this block"
            ),
            VariantError::Rows => {
                write!(f, "the outputs per work-item do not fit this kernel")
            }
            VariantError::Skip(a) => write!(f, "the configuration does not stage `{}`", a),
            VariantError::Order => write!(f, "a diagonal block order needs a 2-D grid"),
            VariantError::Words => write!(
                f,
                "the vector accesses are not the grouping accshare chooses for this kernel"
            ),
        }
    }
}

/// The variant a schedule is (the model's choice stages the engine's best configuration).
pub fn variant_of(s: &Schedule) -> Variant {
    Variant {
        config: s.staged().map(|_| 0),
        block: s.shape.block,
        ilp: s.shape.rows.get(),
        cols: s.shape.cols.get(),
        layout: s.shape.layout,
        skip: Vec::new(),
        diagonal: match s.block_order {
            super::BlockOrder::Linear => 0,
            super::BlockOrder::Diagonal { skew } => skew,
        },
        words: s.words.is_some(),
        lanes: s.lanes.is_some(),
        ktile: s.staged().map_or(0, |st| st.micro_ktile),
        vector: s.shape.vector,
    }
}

/// Block shapes tried for an unstaged kernel with `dims` grid dimensions: the usual shapes of
/// hand-written kernels, wide along x (coalescing) first.
fn unstaged_blocks(dims: usize) -> &'static [[u32; 3]] {
    match dims {
        0 => &[[1, 1, 1]],
        1 => &[
            [256, 1, 1],
            [128, 1, 1],
            [64, 1, 1],
            [512, 1, 1],
            [1024, 1, 1],
            [32, 1, 1],
        ],
        2 => &[
            [32, 8, 1],
            [16, 16, 1],
            [64, 4, 1],
            [32, 4, 1],
            [128, 2, 1],
            [16, 8, 1],
            [8, 8, 1],
            [256, 1, 1],
            [32, 16, 1],
            [64, 8, 1],
        ],
        _ => &[
            [32, 4, 2],
            [32, 8, 1],
            [16, 8, 2],
            [64, 2, 2],
            [16, 4, 4],
            [8, 8, 4],
        ],
    }
}

/// Rows per work-item tried for a staged configuration.
const ROWS: [u32; 4] = [1, 2, 4, 8];

/// The schedule space of kernel `ks` (from [`super::schedule_kernel`]), the model's choice
/// first, then the baseline, then the other variants (the model's vector accesses in other
/// blocks, staged configurations with their default rows and unstaged block shapes in turn,
/// register micro-tiles, then the other rows); `plan` is the engine's plan of the nest (`None`
/// under `--opt naive`), `max_threads` the device's largest block. Each variant comes with its
/// schedule.
pub fn space(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &KernelSchedule,
    plan: Option<&KernelPlan>,
    max_threads: u32,
) -> Vec<(Variant, Schedule)> {
    let mut out: Vec<(Variant, Schedule)> = Vec::new();
    let mut push = |v: Variant, s: Schedule| {
        if !out.iter().any(|(w, _)| *w == v) {
            out.push((v, s));
        }
    };
    let preferred = ks.preferred();
    push(variant_of(preferred), preferred.clone());
    let base = ks.baseline();
    push(variant_of(base), base.clone());
    let dims = base.grid.len();
    let fixed_block = base
        .grid
        .last()
        .is_some_and(|g| r.ir.loops[g.loop_id].vector_len.is_some());
    let unstaged: Vec<Variant> = unstaged_blocks(dims)
        .iter()
        .filter(|_| !fixed_block)
        .map(|&block| plain(None, block, 1, 1, ColLayout::Cyclic))
        .collect();
    let mut tiles = micro_tiles(&unstaged, dims);
    if !fixed_block {
        tiles.extend(contiguous_tiles(dims));
    }
    let near = match preferred.words.as_ref().filter(|_| !fixed_block) {
        Some(w) => vector_variants(w, dims),
        None => Vec::new(),
    };
    let (staged_default, staged_other) = match plan {
        Some(kp) => staged_variants(r, deps, ks, kp),
        None => (Vec::new(), Vec::new()),
    };
    // A budget that stops early has then sampled both kinds of schedule: staged and unstaged
    // variants alternate, the less likely rows come last.
    let mut order = near;
    let (mut a, mut b) = (staged_default.into_iter(), unstaged.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => break,
            (x, y) => order.extend(x.into_iter().chain(y)),
        }
    }
    // The inner reduction loop across lanes in other blocks, where the nest can run so.
    order.extend(LANE_BLOCKS.iter().map(|&block| Variant {
        lanes: true,
        ..plain(None, block, 1, 1, ColLayout::Cyclic)
    }));
    order.extend(tiles);
    order.extend(staged_other);
    for v in order {
        if let Ok(s) = apply_with_limit(r, deps, ks, plan, &v, max_threads) {
            push(v, s);
        }
    }
    out
}

/// A variant of configuration `config` (`None`: unstaged) in block `block` with `ilp` rows and
/// `cols` columns per work-item laid out as `layout`: no array skipped, the linear block order,
/// element accesses.
fn plain(
    config: Option<usize>,
    block: [u32; 3],
    ilp: u32,
    cols: u32,
    layout: ColLayout,
) -> Variant {
    Variant {
        config,
        block,
        ilp,
        cols,
        layout,
        skip: Vec::new(),
        diagonal: 0,
        words: false,
        lanes: false,
        ktile: 0,
        vector: 1,
    }
}

/// Blocks `[lanes, rows, 1]` tried for the inner reduction loop across lanes.
const LANE_BLOCKS: [[u32; 3]; 7] = [
    [32, 8, 1],
    [32, 4, 1],
    [32, 16, 1],
    [64, 4, 1],
    [64, 8, 1],
    [128, 2, 1],
    [256, 1, 1],
];

/// The inner reduction loop of `ks`'s nest across the lanes of variant `v`'s block, where the
/// schedule found the nest can run so (whether or not the model predicted a gain).
fn lanes_schedule(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &KernelSchedule,
    v: &Variant,
    max_threads: u32,
) -> Result<Schedule, VariantError> {
    use super::lanes::NoLanes;
    let legal = matches!(
        ks.lanes,
        Some(Ok(_) | Err(NoLanes::NoGain { .. } | NoLanes::UnknownSize))
    );
    let [lanes, rows, z] = v.block;
    let threads = u64::from(lanes) * u64::from(rows);
    if !legal
        || v.config.is_some()
        || (v.ilp, v.cols, z) != (1, 1, 1)
        || !lanes.is_power_of_two()
        || lanes < 2
        || rows == 0
        || threads > u64::from(max_threads.min(crate::schedule::stage::MAX_THREADS as u32))
    {
        return Err(VariantError::Lanes);
    }
    let base = ks.baseline();
    // Legal as the schedule found it (under the options it was made with); the clause or
    // `--reassociate` that allowed it is not asked again.
    let mut l = super::lanes::legal(&r.ir, deps, base, true).map_err(|_| VariantError::Lanes)?;
    l.lanes = lanes;
    l.rows = rows;
    Ok(Schedule {
        shape: WorkShape::plain([lanes, rows, 1]),
        stage: None,
        full_tile_path: false,
        words: None,
        block_order: super::BlockOrder::Linear,
        channels: None,
        lanes: Some(l),
        stride: None,
        ..base.clone()
    })
}

/// Register micro-tiles without staging: the first block shapes of `unstaged` (a grid of
/// `dims` dimensions), each with a few tiles (the launched block is the shape; the variant's
/// block is the area its work-items cover).
fn micro_tiles(unstaged: &[Variant], dims: usize) -> Vec<Variant> {
    let mut tiles = Vec::new();
    for v in unstaged.iter().take(3) {
        let shapes: &[(u32, u32)] = match dims {
            1 => &[(1, 4), (1, 2), (1, 8)],
            _ => &[(4, 4), (2, 2), (4, 2), (2, 4), (8, 4)],
        };
        for &(rows, cols) in shapes {
            tiles.push(Variant {
                block: [v.block[0] * cols, v.block[1] * rows, v.block[2]],
                ilp: rows,
                cols,
                ..v.clone()
            });
        }
    }
    tiles
}

/// Contiguous tiles (a CPU's SIMD rows, `ColLayout::Contiguous`) in small blocks, where a grid
/// of `dims` dimensions has the loops they need (`apply` refuses the others).
fn contiguous_tiles(dims: usize) -> Vec<Variant> {
    let (blocks, shapes): (&[[u32; 3]], &[(u32, u32)]) = match dims {
        0 => (&[], &[]),
        1 => (&[[64, 1, 1], [256, 1, 1]], &[(1, 4), (1, 8), (1, 16)]),
        2 => (
            &[[8, 8, 1], [16, 8, 1]],
            &[(4, 16), (8, 16), (4, 8), (8, 8), (2, 16)],
        ),
        _ => (&[[8, 8, 2]], &[(4, 16), (4, 8)]),
    };
    let mut tiles = Vec::new();
    for block in blocks {
        for &(rows, cols) in shapes {
            tiles.push(plain(
                None,
                [block[0] * cols, block[1] * rows, block[2]],
                rows,
                cols,
                ColLayout::Contiguous,
            ));
        }
    }
    tiles
}

/// The model's grouping into vector accesses `w` (a transposed vector tile, short words) on its
/// own tile in other blocks of a grid of `dims` dimensions: the block's footprint is the
/// device's question too (how many rows of a column-walked array one sweep of a block's x
/// touches). Measured first: they are the model's choice but for the block.
fn vector_variants(w: &super::words::Words, dims: usize) -> Vec<Variant> {
    let blocks: &[[u32; 3]] = match dims {
        1 => &[[64, 1, 1], [128, 1, 1], [256, 1, 1]],
        _ => &[[8, 8, 1], [16, 8, 1], [16, 16, 1], [8, 32, 1], [64, 4, 1]],
    };
    blocks
        .iter()
        .map(|block| Variant {
            words: true,
            ..plain(
                None,
                [block[0] * w.width, block[1] * w.rows, block[2]],
                w.rows,
                w.width,
                ColLayout::Contiguous,
            )
        })
        .collect()
}

/// The staged variants of the engine's configurations of plan `kp`: those with their default
/// rows, and the others (other rows, the diagonal block order, each staged array left in
/// global memory, a 2-D register micro-tile).
fn staged_variants(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &KernelSchedule,
    kp: &KernelPlan,
) -> (Vec<Variant>, Vec<Variant>) {
    let base = ks.baseline();
    let mut staged_default = Vec::new();
    let mut staged_other = Vec::new();
    for config in 0..=kp.alternatives.len() {
        let Some(block) = staged_block(r, ks, kp, config) else {
            continue;
        };
        let default = rows_per_work_item(&r.ir, deps, &base.grid, ks.root, block, None);
        for ilp in ROWS {
            let v = plain(Some(config), block, ilp, 1, ColLayout::Cyclic);
            if ilp == default {
                // The diagonal block order (the paper's, skew 1, and the preferred
                // schedule's skew when the channel model chose one) where the grid has
                // two dimensions: partition camping is the device's question too.
                if base.grid.len() >= 2 {
                    let mut skews = vec![1];
                    if let super::BlockOrder::Diagonal { skew } = ks.preferred().block_order {
                        skews.push(skew);
                    }
                    skews.dedup();
                    for skew in skews {
                        staged_other.push(Variant {
                            diagonal: skew,
                            ..v.clone()
                        });
                    }
                }
                staged_default.push(v);
            } else {
                staged_other.push(v);
            }
        }
        // Each staged array left in global memory in turn (the engine's best
        // configuration, default rows): which arrays pay is the device's question too.
        if config == 0 {
            let staged = staged_arrays(r, ks, kp, config);
            if staged.len() > 1 {
                for a in staged {
                    staged_other.push(Variant {
                        skip: vec![a],
                        ..plain(Some(config), block, default, 1, ColLayout::Cyclic)
                    });
                }
            }
            // A 2-D register micro-tile of the staged configuration.
            if default > 1 {
                staged_other.push(plain(Some(config), block, default, 2, ColLayout::Cyclic));
            }
            // The larger block tiles of a gemm-like nest's micro-tiles (`micro`).
            if super::micro::gemm_like(r, deps, base) {
                let kc = with_config(kp, config, &[]).ok();
                for shape in super::micro::shapes() {
                    for ktile in [super::micro::K_TILE, 8] {
                        // The width of the vector reads, where the shape's tiles take them.
                        let vector = match shape.vector {
                            false => 1,
                            true => {
                                let opts = super::stage::StageOptions::default();
                                let s = kc.as_ref().and_then(|kc| {
                                    super::micro::schedule(r, deps, base, kc, &opts, shape, ktile)
                                });
                                match s {
                                    Some(s) => s.shape.vector,
                                    None => continue,
                                }
                            }
                        };
                        staged_other.push(Variant {
                            ktile,
                            vector,
                            ..plain(
                                Some(config),
                                shape.block(),
                                shape.rows,
                                shape.cols,
                                ColLayout::Cyclic,
                            )
                        });
                    }
                }
            }
        }
    }
    (staged_default, staged_other)
}

/// The model's grouping into vector accesses (the first candidate that has one), for unstaged
/// variant `v` launched as `launched`: its tile must be the grouping's (rows, columns,
/// adjacent), and the launched block's x extent a multiple of the width, as
/// [`super::words::decide`] requires of the block it decides on.
fn model_words(
    ks: &KernelSchedule,
    v: &Variant,
    launched: [u32; 3],
) -> Result<super::words::Words, VariantError> {
    let w = ks
        .candidates
        .iter()
        .find_map(|c| c.words.clone())
        .ok_or(VariantError::Words)?;
    let fits = v.layout == ColLayout::Contiguous
        && (v.ilp, v.cols) == (w.rows, w.width)
        && launched[0] % w.width == 0;
    if fits {
        Ok(w)
    } else {
        Err(VariantError::Words)
    }
}

/// The block of engine configuration `config` when it stages something in this kernel.
fn staged_block(
    r: &RegionAst,
    ks: &KernelSchedule,
    kp: &KernelPlan,
    config: usize,
) -> Option<[u32; 3]> {
    let kp = with_config(kp, config, &[]).ok()?;
    let spec = super::stage::plan(r, ks.root, &ks.baseline().grid, &kp);
    (!spec.arrays.is_empty()).then_some(spec.block)
}

/// The arrays configuration `config` stages in this kernel (each once).
fn staged_arrays(
    r: &RegionAst,
    ks: &KernelSchedule,
    kp: &KernelPlan,
    config: usize,
) -> Vec<String> {
    let Ok(kp) = with_config(kp, config, &[]) else {
        return Vec::new();
    };
    let spec = super::stage::plan(r, ks.root, &ks.baseline().grid, &kp);
    let mut names: Vec<String> = spec.arrays.into_iter().map(|a| a.name).collect();
    names.dedup();
    names
}

/// The engine's plan with configuration `config` as its choice, the arrays `skip` left out.
fn with_config(
    kp: &KernelPlan,
    config: usize,
    skip: &[String],
) -> Result<KernelPlan, VariantError> {
    let mut choice = if config == 0 {
        kp.best.clone()
    } else {
        kp.alternatives.get(config - 1).cloned()
    }
    .ok_or(VariantError::NoConfig(config))?;
    for a in skip {
        if !choice.staged.contains(a) {
            return Err(VariantError::Skip(a.clone()));
        }
    }
    choice.staged.retain(|a| !skip.contains(a));
    let mut kp = kp.clone();
    kp.block = choice.assign.tb;
    kp.best = Some(choice);
    Ok(kp)
}

/// The schedule of variant `v` of kernel `ks` (see [`space`]).
pub fn apply(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &KernelSchedule,
    plan: Option<&KernelPlan>,
    v: &Variant,
) -> Result<Schedule, VariantError> {
    apply_with_limit(
        r,
        deps,
        ks,
        plan,
        v,
        crate::schedule::stage::MAX_THREADS as u32,
    )
}

fn apply_with_limit(
    r: &RegionAst,
    deps: &DepInfo,
    ks: &KernelSchedule,
    plan: Option<&KernelPlan>,
    v: &Variant,
    max_threads: u32,
) -> Result<Schedule, VariantError> {
    if v.lanes {
        return lanes_schedule(r, deps, ks, v, max_threads);
    }
    let base = ks.baseline();
    let used = |d: usize| base.grid.iter().any(|g| g.dim as usize == d);
    let shape = match v.shape() {
        Some(s) if v.block[1] % s.rows == 0 && v.block[0] % s.cols == 0 => s,
        _ => return Err(VariantError::Rows),
    };
    let block_order = match v.diagonal {
        0 => super::BlockOrder::Linear,
        _ if base.grid.len() < 2 => return Err(VariantError::Order),
        skew => super::BlockOrder::Diagonal { skew },
    };
    let launched = shape.launch_block();
    let threads: u64 = launched.iter().map(|&b| b as u64).product();
    if v.block.contains(&0)
        || (0..3).any(|d| !used(d) && v.block[d] != 1)
        || threads > max_threads.min(crate::schedule::stage::MAX_THREADS as u32) as u64
    {
        return Err(VariantError::Block);
    }
    let Some(config) = v.config else {
        if let Some(a) = v.skip.first() {
            return Err(VariantError::Skip(a.clone()));
        }
        // A register micro-tile: rows need a grid loop on y, columns one on x.
        if v.ilp * v.cols > 1 {
            let coarsenable = super::coarsenable(&r.ir, deps, &base.grid, ks.root);
            if !coarsenable || (v.ilp > 1 && !used(1)) || (v.cols > 1 && !used(0)) {
                return Err(VariantError::Rows);
            }
        }
        let words = if v.words {
            Some(model_words(ks, v, launched)?)
        } else {
            None
        };
        // A grid-stride kernel keeps about one wave of the variant's blocks.
        let threads = |b: [u32; 3]| b.iter().product::<u32>().max(1);
        let stride = base.stride.map(|g| super::stride::GridStride {
            groups_per_unit: (g.groups_per_unit * threads(base.launch_block())
                / threads(shape.launch_block()))
            .max(1),
            ..g
        });
        return Ok(Schedule {
            shape,
            stage: None,
            full_tile_path: v.ilp * v.cols > 1,
            words,
            block_order,
            channels: None,
            stride,
            ..base.clone()
        });
    };
    if v.words {
        return Err(VariantError::Words);
    }
    // Staged tiles keep their columns cyclic (the tile loads assume it).
    if v.layout != ColLayout::Cyclic {
        return Err(VariantError::Rows);
    }
    let kp = with_config(plan.ok_or(VariantError::NoConfig(config))?, config, &v.skip)?;
    let (kp, outputs) = match v.ktile {
        0 => (kp, 1),
        k => {
            if !super::micro::gemm_like(r, deps, base) {
                return Err(VariantError::Rows);
            }
            let kp = super::micro::plan(&kp, v.block, k).ok_or(VariantError::NothingStaged)?;
            (kp, v.ilp * v.cols)
        }
    };
    let mut spec =
        super::stage::plan_tiled(r, ks.root, &base.grid, &kp, &Default::default(), outputs);
    if v.vector > 1 {
        let (rows, cols) = (v.ilp, v.cols);
        let got = super::micro::vector_tiles(&r.ir, &base.grid, &mut spec, rows, cols);
        if v.ktile == 0 || got != Some(v.vector) {
            return Err(VariantError::Rows);
        }
    }
    if v.ktile > 0 && spec.smem_bytes() > super::stage::SMEM_LIMIT {
        return Err(VariantError::Block);
    }
    spec.micro_ktile = v.ktile;
    if spec.arrays.is_empty() {
        return Err(VariantError::NothingStaged);
    }
    if ks.tile_words {
        let block = spec.block;
        for a in &mut spec.arrays {
            a.copy_words = super::words::tile_copy(&r.ir, a, block);
        }
    }
    if spec.block != v.block {
        return Err(VariantError::Block);
    }
    let asked = ShapeRequest {
        rows: Some(shape.rows),
        cols: Some(shape.cols),
    };
    let f = rows_per_work_item(&r.ir, deps, &base.grid, ks.root, spec.block, asked.rows);
    let c = super::cols_per_work_item(&r.ir, deps, &base.grid, ks.root, spec.block, asked.cols);
    if f != v.ilp || c != v.cols {
        return Err(VariantError::Rows);
    }
    let mut s = Schedule {
        shape: WorkShape {
            block: spec.block,
            ..shape
        },
        stage: Some(spec),
        full_tile_path: true,
        block_order,
        channels: None,
        stride: None,
        ..base.clone()
    };
    super::rows::lay_out(&r.ir, &mut s);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dependence;
    use crate::diag::{Diags, SourceMap};
    use crate::front::preprocess::PpOptions;
    use crate::ir::lower::find_regions;
    use crate::model::Platform;

    const GEMM: &str = "
void gemm(float C[256][256], float A[256][256], float B[256][256])
{
#pragma acc parallel loop copyin(A, B) copy(C)
for (int i = 0; i < 256; i++)
  #pragma acc loop
  for (int j = 0; j < 256; j++) {
    float s = 0;
    for (int k = 0; k < 256; k++)
      s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
}
";

    /// The space of the first kernel of `src` on `platform` (with its schedule and plan).
    fn space_of(src: &str, platform: &str) -> (Vec<(Variant, Schedule)>, KernelSchedule) {
        space_with(src, platform, Default::default())
    }

    /// [`space_of`] with the coarsening options `ilp` (a CPU device's: `cpu_share`).
    fn space_with(
        src: &str,
        platform: &str,
        ilp: crate::schedule::Coarsening,
    ) -> (Vec<(Variant, Schedule)>, KernelSchedule) {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let main = sources.add("t.c", "t.c".into(), src.to_string());
        let parsed =
            crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
        let rs = find_regions(&parsed.tu, &sources, &mut diags);
        assert!(!diags.has_errors());
        let r = &rs.compute[0];
        let d = dependence::analyze(&r.ir);
        // As the driver does: the platform as staged code can use it.
        let p = crate::schedule::stage::code_platform(&Platform::load(platform).unwrap());
        let rp = crate::partition::analyze_region(&r.ir, &d, 0, &p, &Default::default());
        let kp = &rp.kernels[0];
        let staging = crate::schedule::Staging {
            plan: kp,
            local_is_global: p.local_memory == crate::model::platform::LocalMemory::Global,
            options: Default::default(),
        };
        let ks = crate::schedule::schedule_kernel(r, &d, kp.root, Some(staging), ilp, &mut diags)
            .unwrap();
        let sp = space(r, &d, &ks, Some(kp), 1024);
        // Every variant rebuilds to the schedule the space gave.
        for (v, s) in &sp {
            let again = apply(r, &d, &ks, Some(kp), v).unwrap();
            assert_eq!(
                (again.shape.block, again.shape.rows),
                (s.shape.block, s.shape.rows),
                "{}",
                v
            );
            assert_eq!(again.staged().is_some(), v.config.is_some(), "{}", v);
            assert_eq!(again.words, s.words, "{}", v);
        }
        // Errors name what does not fit.
        let bad = |v: Variant| apply(r, &d, &ks, Some(kp), &v).unwrap_err();
        let plain = Variant {
            config: None,
            block: [32, 8, 1],
            ilp: 1,
            cols: 1,
            layout: ColLayout::Cyclic,
            skip: Vec::new(),
            diagonal: 0,
            words: false,
            lanes: false,
            ktile: 0,
            vector: 1,
        };
        assert_eq!(
            bad(Variant {
                ilp: 3,
                ..plain.clone()
            }),
            VariantError::Rows
        );
        assert_eq!(
            bad(Variant {
                block: [32, 8, 2],
                ..plain.clone()
            }),
            VariantError::Block
        );
        assert_eq!(
            bad(Variant {
                skip: vec!["C".to_string()],
                ..plain.clone()
            }),
            VariantError::Skip("C".to_string())
        );
        assert_eq!(
            bad(Variant {
                config: Some(99),
                ..plain
            }),
            VariantError::NoConfig(99)
        );
        (sp, ks)
    }

    #[test]
    fn the_space_tries_the_diagonal_block_order_of_2d_grids() {
        let (sp, _) = space_of(GEMM, "gtx690");
        let diag: Vec<&(Variant, Schedule)> = sp.iter().filter(|(v, _)| v.diagonal > 0).collect();
        assert!(!diag.is_empty());
        for (v, s) in diag {
            assert_eq!(
                s.block_order,
                crate::schedule::BlockOrder::Diagonal { skew: v.diagonal }
            );
            assert!(v.to_string().contains("diagonal block order (skew"), "{v}");
        }
        // Cache entries written before the field read as the linear order.
        let v: Variant = serde_json::from_str(r#"{"config":0,"block":[32,32,1],"ilp":4}"#).unwrap();
        assert_eq!(v.diagonal, 0);
        assert!(!serde_json::to_string(&v).unwrap().contains("diagonal"));
    }

    #[test]
    fn the_space_starts_with_the_model_and_the_baseline_and_has_no_duplicates() {
        let (sp, ks) = space_of(GEMM, "a100");
        assert_eq!(sp[0].0, variant_of(ks.preferred()));
        assert_eq!(sp[1].0, variant_of(ks.baseline()));
        assert!(sp[0].0.config.is_some(), "{}", sp[0].0);
        for (i, (v, _)) in sp.iter().enumerate() {
            assert!(!sp[..i].iter().any(|(w, _)| w == v), "{} twice", v);
        }
        let staged = sp.iter().filter(|(v, _)| v.config.is_some()).count();
        // gemm stages A and B: each left in global memory in turn.
        let skips: Vec<String> = sp.iter().flat_map(|(v, _)| v.skip.clone()).collect();
        assert_eq!(skips, ["A", "B"], "{:?}", skips);
        let only_b = sp.iter().find(|(v, _)| v.skip == ["A"]).unwrap();
        let names: Vec<&str> = only_b
            .1
            .staged()
            .unwrap()
            .arrays
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert!(names.iter().all(|n| *n == "B"), "{:?}", names);
        assert!(
            only_b.0.to_string().ends_with(", A in global memory"),
            "{}",
            only_b.0
        );
        let configs: std::collections::BTreeSet<_> = sp.iter().map(|(v, _)| v.config).collect();
        assert!(staged >= 6 && configs.len() >= 3, "{:?}", configs);
        assert_eq!(
            sp[0].0.to_string(),
            format!(
                "staged, block {}×{}, {} rows per work-item",
                sp[0].0.block[0], sp[0].0.block[1], sp[0].0.ilp
            )
        );
    }

    /// Where local memory is global the model stages nothing, but the space still holds the
    /// staged variants (they pay for some kernels there).
    #[test]
    fn staging_stays_in_the_space_where_the_model_declines_it() {
        let (sp, _) = space_of(GEMM, "pocl-cpu");
        assert_eq!(sp[0].0.config, None);
        assert!(sp.iter().any(|(v, _)| v.config == Some(0)));
        assert_eq!(sp[0].0.to_string(), "global memory, block 32×8");
    }

    /// A transpose on a CPU device: the model's transposed vector tile.
    const TRANSPOSE: &str = "
void t(float out[512][384], float in[384][512])
{
#pragma acc parallel loop copyin(in) copyout(out)
for (int i = 0; i < 512; i++)
  #pragma acc loop
  for (int j = 0; j < 384; j++)
    out[i][j] = in[j][i];
}
";

    #[test]
    fn the_models_vector_accesses_are_tried_in_other_blocks_and_come_back_from_the_cache() {
        let (sp, ks) = space_with(TRANSPOSE, "pocl-cpu", crate::schedule::tests::cpu_share());
        let w = ks
            .preferred()
            .words
            .clone()
            .expect("a transposed vector tile");
        assert_eq!((w.rows, w.width), (4, 4));
        // The model's variant says so, and rebuilds with the grouping (as a cache entry would).
        assert!(sp[0].0.words, "{}", sp[0].0);
        assert_eq!(
            sp[0].0.to_string(),
            "global memory, block 128×32, 4×4 outputs per work-item (adjacent columns), vector accesses"
        );
        // The same tile in other blocks.
        let blocks: Vec<[u32; 3]> = sp
            .iter()
            .filter(|(v, _)| v.words)
            .map(|(v, _)| v.block)
            .collect();
        assert_eq!(
            blocks,
            [
                [128, 32, 1],
                [32, 32, 1],
                [64, 32, 1],
                [64, 64, 1],
                [32, 128, 1],
                [256, 16, 1]
            ]
        );
        // The same tile without the grouping is another variant.
        assert!(sp
            .iter()
            .any(|(v, s)| !v.words && v.cols == 4 && v.ilp == 4 && s.words.is_none()));
        // Refused: the grouping on another tile, or on a staged variant.
        let (r, d) = crate::schedule::tests::first_region(TRANSPOSE);
        let other = Variant {
            ilp: 2,
            block: [128, 16, 1],
            ..sp[0].0.clone()
        };
        assert_eq!(
            apply(&r, &d, &ks, None, &other).unwrap_err(),
            VariantError::Words
        );
        let cyclic = Variant {
            layout: ColLayout::Cyclic,
            ..sp[0].0.clone()
        };
        assert_eq!(
            apply(&r, &d, &ks, None, &cyclic).unwrap_err(),
            VariantError::Words
        );
    }
}
