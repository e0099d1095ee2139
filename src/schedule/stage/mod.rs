//! Which partitions of a kernel can be staged in shared memory exactly, and their tiles.
//!
//! The engine ([`crate::partition`]) chooses the arrays and the block; this pass checks that each
//! chosen array can be staged without changing the program's meaning and computes, per array
//! dimension, the tile: which index moves it (a grid index, the strip-mined sequential loop, or
//! nothing), the constant offsets around it (`in[i + di][j - 1]`: the halo), the tile extent
//! and the range of global indices the program can touch (loads outside it are skipped, so no
//! global access is ever out of bounds). Anything it cannot stage stays in global memory with a
//! reason.
//!
//! Accepted shapes, per dimension of a staged reference: `c + x + Σ a·w` where `x` is at most one
//! of the grid iterators (coefficient 1, loop step 1) or the strip-mined loop, and the `w` are
//! iterators of short loops with constant bounds and step ±1 (the filter loops of a stencil).
//! The strip-mined loop is a sequential loop of step 1 at the top level of the innermost grid
//! loop's body, with bounds that do not depend on any iterator (gemm's `k`, mv's `j`).
//! The last dimension of a plain array may also be `c·x + k` with a constant `c > 1` (the
//! interleaved form, `x[2*i + 1]`): one tile per residue `k mod c`. An array of structs gets one
//! tile per referenced field: the field, the IR's last dimension, is a constant of every
//! reference and the tiles are the struct index's. A written array of either form is written
//! part by part (`write_parts`): each written field or residue through a tile of its own,
//! stored back field by field (residue by residue); a field or residue only read is a read tile,
//! one not referenced has none, so nothing the kernel does not write is ever stored.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::mapping::{strip_candidate, window};
use crate::diag::Span;
use crate::ir::expr::{Expr, Exprs};
use crate::ir::lower::RegionAst;
use crate::ir::stmt::{Init, Stmt};
use crate::ir::Handle;
use crate::ir::{LoopId, Poly, Region};
use crate::partition::KernelPlan;
use crate::schedule::words;
use crate::vocab::{BinOp, Scalar};

pub mod bank;
mod unstaged;
pub use bank::{Aos, BankChoice, Banks, Layout, Technique};

pub use unstaged::Unstaged;

/// Shared memory a staged kernel may use (the CUDA static limit).
pub const SMEM_LIMIT: u64 = 48 * 1024;
/// Most threads per block of a staged kernel (CUDA's limit).
pub const MAX_THREADS: u64 = 1024;
/// Strip size when the engine did not choose one.
pub const DEFAULT_STRIP: u32 = 32;

/// The platform as staged code can use it: blocks of at most [`MAX_THREADS`] work-items and
/// [`SMEM_LIMIT`] bytes of shared memory (the same kernel source is emitted for CUDA, whose
/// static shared arrays and blocks stop there), whatever larger figures a device reports (PoCL
/// offers 4096-thread work-groups and 512 KiB of local memory). The partition engine plans with
/// this, so that what it chooses can be staged.
pub fn code_platform(p: &crate::model::Platform) -> crate::model::Platform {
    let mut q = p.clone();
    q.max_threads_per_block = q.max_threads_per_block.min(MAX_THREADS as u32);
    for d in &mut q.max_block_dims {
        *d = (*d).min(q.max_threads_per_block);
    }
    q.smem_per_block = q.smem_per_block.min(SMEM_LIMIT);
    q
}

/// Choices of the staging that are not the partition engine's: what `accshare bench` turns off to
/// measure each optimization on its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StageOptions {
    /// Apply the bank-conflict techniques ([`bank::decide`]: padding, transpose) where a
    /// warp's accesses to a tile conflict (the default); off, every tile is laid out row-major
    /// at its extent.
    pub bank_padding: bool,
    /// Order the blocks diagonally where the channel model says it spreads the first wave over
    /// the memory channels (`schedule::order`, the default); off, every kernel is linear.
    pub block_order: bool,
    /// The banks the techniques are chosen for (the platform's; NVIDIA's by default).
    pub banks: Banks,
    /// Floating-point reductions may be reassociated (`--reassociate`): the access reorder
    /// ([`bank::Technique::Reorder`]) then also applies to `float`/`double` reductions, whose
    /// sums change in the last bits. Off by default: integer reductions only (exact).
    pub reassociate: bool,
    /// `--micro`: every gemm-like nest gets the fastest 2-D register micro-tile by the model
    /// (`schedule::micro`), whatever its comparison with the other schedules says.
    pub micro: bool,
    /// A micro-tile may read its staged tiles as vectors (`schedule::micro::vector_tiles`;
    /// the default); off (`--vector-tiles off`), only the shapes with element reads are tried.
    pub vector_tiles: bool,
    /// A work-item's rows may be adjacent where its outputs read overlapping rows
    /// (`schedule::rows`; the default); off (`--adjacent-rows off`), a launched block apart.
    pub adjacent_rows: bool,
}

impl Default for StageOptions {
    fn default() -> Self {
        StageOptions {
            bank_padding: true,
            block_order: true,
            banks: Banks::default(),
            reassociate: false,
            micro: false,
            vector_tiles: true,
            adjacent_rows: true,
        }
    }
}

/// A loop mapped to the grid: its iterator is `min + GlobalId(dim)·step` (`max - …` descending).
#[derive(Clone, Debug)]
pub struct GridLoop {
    pub loop_id: LoopId,
    pub dim: u8,
    /// Smallest and largest value of the iterator over the grid.
    pub min: Poly,
    pub max: Poly,
}

/// What moves one dimension of a tile from block to block / strip to strip.
#[derive(Clone, Debug, PartialEq)]
pub enum Primary {
    /// Nothing: the tile covers the constant range `[lo, hi]` (a filter array).
    Fixed,
    /// A grid iterator: the tile starts at the block's first iterate (`min + group·TB`).
    Grid { dim: u8, min: Poly },
    /// The strip-mined loop: the tile starts at the strip's first iterate.
    Strip,
}

#[derive(Clone, Debug)]
pub struct TileDim {
    pub primary: Primary,
    /// Offsets of the references around the primary index (inclusive).
    pub lo: i64,
    pub hi: i64,
    /// Elements of the tile along this dimension.
    pub extent: u32,
    /// Global indices the program can touch along this dimension (inclusive).
    pub range: (Poly, Poly),
    /// The array's extent along this dimension, when known.
    pub array_extent: Option<Poly>,
}

#[derive(Clone, Debug)]
pub struct StagedArray {
    pub name: String,
    /// The `__local` array's name.
    pub local: String,
    pub elem: Scalar,
    pub dims: Vec<TileDim>,
    /// Row length of the flattened tile (the last dimension's extent, or more: padding).
    pub row_len: u32,
    /// Stored column-major (a 2-D tile read by column; [`bank::Technique::Transpose`]).
    pub transposed: bool,
    /// Elements after each stored column of a transposed tile ([`Layout::col_pad`]).
    pub col_pad: u32,
    /// A register micro-tile reads the tile as aligned vectors of this many elements along
    /// its grid dimension (`schedule::micro::vector_tiles`); 1: element reads.
    pub vector_reads: u32,
    /// The bank-conflict decision that chose the layout, with the tree's path.
    pub bank: BankChoice,
    /// Spans of the references rewritten to use the tile.
    pub accesses: Vec<Span>,
    /// Written through the tile: the kernel stores the tile back to global memory at its end
    /// (a field's or residue's tile: when the kernel writes that field or residue).
    pub written: bool,
    /// The tile is loaded from global memory before use (always for read-only tiles; for
    /// written tiles when the kernel reads what the tile holds or may leave an element
    /// unwritten).
    pub load: bool,
    /// The tile holds one field of an array of structs (AoS → SoA): `dims` are the struct's
    /// index without the field, the copy reads that field of each struct.
    pub field: Option<TileField>,
    /// The tile holds one residue of an interleaved last dimension (`x[2*i]`, `x[2*i + 1]`: the
    /// interleaved form of AoS → SoA): element `t` of the last dimension is global index
    /// `stride·(origin + t) + residue`; that dimension's offsets and range count strides.
    pub interleave: Option<Interleave>,
    /// The grouping of the tile's cooperative copies into vector accesses of short words
    /// ([`crate::schedule::words::tile_copy`]), or why none; `None` for 32/64-bit tiles or where
    /// not considered (`--words off`).
    pub copy_words: Option<Result<words::TileWords, words::TileWordsRejection>>,
}

/// One residue of an interleaved dimension ([`StagedArray::interleave`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Interleave {
    pub stride: u32,
    pub residue: u32,
}

impl Interleave {
    /// The elements the tile holds, `2·i + 1` (`2·i` for residue 0).
    pub fn elements(&self) -> String {
        match self.residue {
            0 => format!("{}·i", self.stride),
            k => format!("{}·i + {}", self.stride, k),
        }
    }
}

/// The field of an array of structs a tile holds ([`StagedArray::field`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileField {
    pub name: String,
    /// Position of the field in the struct, and the struct's number of fields.
    pub index: u32,
    pub count: u32,
}

impl StagedArray {
    /// Elements of the local array (with the padded row).
    pub fn len(&self) -> u32 {
        bank::len(&self.dims, self.layout())
    }
    /// The layout in shared memory: row length, transposed or not.
    pub fn layout(&self) -> Layout {
        Layout {
            row_len: self.row_len,
            transposed: self.transposed,
            col_pad: self.col_pad,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn uses_strip(&self) -> bool {
        self.dims.iter().any(|d| d.primary == Primary::Strip)
    }
    /// Local strides per dimension (row-major with rows of `row_len`, or column-major for a
    /// transposed 2-D tile): the tile's index map.
    pub fn strides(&self) -> Vec<u32> {
        bank::strides(&self.dims, self.layout())
    }
}

/// The strip-mined sequential loop.
#[derive(Clone, Debug)]
pub struct Strip {
    pub loop_id: LoopId,
    pub var: String,
    /// Iterations per strip (`k1`).
    pub size: u32,
}

/// A loop of the nest the device compiler unrolls fully ([`StageSpec::unroll_loops`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrolled {
    pub loop_id: LoopId,
    /// Its iterator, as `explain` names it.
    pub var: String,
    /// Its constant trip count.
    pub trips: i64,
}

/// The staging decisions for one kernel.
#[derive(Clone, Debug, Default)]
pub struct StageSpec {
    pub block: [u32; 3],
    pub strip: Option<Strip>,
    pub arrays: Vec<StagedArray>,
    /// Arrays the engine chose that stay in global memory, with the reason.
    pub rejected: Vec<(String, Unstaged)>,
    /// The strip-mined loop runs rotated in every work-item (access reorder against bank
    /// conflicts): work-item `lx` runs the strip's `n` iterates from `(lx mod n)` on, wrapping.
    pub reorder: Option<Reorder>,
    /// The kernel runs with the shared memory in a wider bank mode than the platform's default
    /// (Kepler's 8-byte banks), set by the host before the launch.
    pub bank_mode: Option<BankMode>,
    /// The k tile of a 2-D register micro-tile's plan (`schedule::micro`: the engine's block
    /// grown, its strip at most this long); 0 for the engine's own block and strip.
    pub micro_ktile: u32,
    /// The strip-mined loop runs whole strips (its trip count a known multiple of the strip, so
    /// the loop over one strip needs no test of the loop's end) and the unguarded copy of a
    /// micro-tile's computation unrolls it fully (`#pragma unroll`): set by
    /// `schedule::micro::vector_tiles` where the tiles are read as vectors.
    pub unroll_strip: bool,
    /// The work-items' rows may be laid out adjacent where their reads overlap
    /// (`schedule::rows`; `StageOptions::adjacent_rows`, `--adjacent-rows`).
    pub adjacent_rows: bool,
    /// Inner sequential loops of the nest the device compiler unrolls fully (`#pragma unroll`),
    /// outermost first, each inside the one before and the last the nest's innermost sequential
    /// loop: set with adjacent rows (`schedule::rows::lay_out`) for the loops of a few constant
    /// iterations the rows' shared reads move along (a filter's `di` and the `dj` inside it), so
    /// that loads common to different iterations of different rows are made once. Left to
    /// itself, nvcc unrolled Gauss's 5-tap loop for 4 rows per work-item but not for 8.
    pub unroll_loops: Vec<Unrolled>,
}

/// A bank mode chosen for a kernel ([`StageOptions::banks`]' `wide`): the tiles' techniques
/// decided again for the wider banks, taken when the kernel's first-warp wavefronts drop (at no
/// higher degree, or at equal wavefronts with less shared memory).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BankMode {
    /// Bank width of the mode (bytes), and the platform's default.
    pub width: u32,
    pub default_width: u32,
    /// Largest degree and wavefronts of the first warp over the kernel's tiles, with the tiles'
    /// techniques, in the default mode and in this one; shared memory of the tiles in both.
    pub degree_default: u32,
    pub waves_default: u64,
    pub degree: u32,
    pub waves: u64,
    pub bytes_default: u64,
    pub bytes: u64,
}

/// The access reorder of a kernel's strip-mined loop ([`bank::Technique::Reorder`]): legal
/// because every statement of the loop is an associative, commutative reduction into a scalar
/// (or writes a scalar private to one iterate), so each work-item computes the same values in
/// another order.
#[derive(Clone, Debug, PartialEq)]
pub struct Reorder {
    /// The reductions, `s (op)` each.
    pub reductions: Vec<(String, crate::vocab::RedOp)>,
    /// Every reduction is over integers (the result is exact); else floating-point sums change
    /// order, allowed by `--reassociate` only.
    pub exact: bool,
}

impl StageSpec {
    /// Stages nothing after all: every array the plan staged is rejected for `why` (once per
    /// name: an AoS array's field tiles share one), no strip, the unstaged kernel's `block`.
    pub fn unstage_all(&mut self, why: Unstaged, block: [u32; 3]) {
        let mut names: Vec<String> = self.arrays.drain(..).map(|a| a.name).collect();
        names.dedup();
        for a in names {
            if !self.rejected.iter().any(|(n, _)| *n == a) {
                self.rejected.push((a, why.clone()));
            }
        }
        self.strip = None;
        self.block = block;
    }

    /// The (first) tile of an array.
    pub fn array(&self, name: &str) -> Option<&StagedArray> {
        self.arrays.iter().find(|a| a.name == name)
    }
    /// The tile the reference at `span` reads or writes.
    pub fn tile_of(&self, name: &str, span: Span) -> Option<&StagedArray> {
        self.arrays
            .iter()
            .find(|a| a.name == name && a.accesses.contains(&span))
    }
    pub fn smem_bytes(&self) -> u64 {
        self.arrays
            .iter()
            .map(|a| a.len() as u64 * a.elem.size() as u64)
            .sum()
    }
}

/// One reference's view of one dimension.
struct DimRef {
    primary: Primary,
    strip: Option<LoopId>,
    lo: i64,
    hi: i64,
    /// The grid index's coefficient (`c` of `c·i + k`, the last dimension only) and the
    /// residue `k mod c`; `lo`/`hi` then count strides of `c`.
    stride: i64,
    residue: i64,
}

/// True if the statement holds control flow that may skip a reference.
fn has_conditional(ir: &Region, s: Handle<Stmt>) -> bool {
    fn expr(x: &Exprs, e: Handle<Expr>) -> bool {
        match &x[e] {
            Expr::Select { .. }
            | Expr::Binary {
                op: BinOp::LogAnd | BinOp::LogOr,
                ..
            } => true,
            Expr::Binary { left, right, .. } | Expr::Comma { left, right } => {
                expr(x, *left) || expr(x, *right)
            }
            Expr::Assign { target, value, .. } => expr(x, *target) || expr(x, *value),
            Expr::Index { base, index } => expr(x, *base) || expr(x, *index),
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::CastOther { arg, .. }
            | Expr::IncDec { arg, .. } => expr(x, *arg),
            Expr::Call { args, .. } => args.iter().any(|a| expr(x, *a)),
            _ => false,
        }
    }
    let (code, x) = (&ir.code, &ir.exprs);
    match &code.stmts[s] {
        Stmt::If { .. }
        | Stmt::While { .. }
        | Stmt::DoWhile { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Unsupported => true,
        Stmt::Block(b) => b.iter().any(|s| has_conditional(ir, *s)),
        Stmt::Directive { body } | Stmt::Atomic { body, .. } => has_conditional(ir, *body),
        Stmt::For {
            init,
            cond,
            step,
            body,
            ..
        } => {
            let i = init.is_some_and(|i| match &code.stmts[i] {
                Stmt::Expr(e) => expr(x, *e),
                Stmt::Locals(d) => d
                    .iter()
                    .any(|l| matches!(l.init, Init::Expr(e) if expr(x, e))),
                _ => false,
            });
            i || cond.is_some_and(|c| expr(x, c))
                || step.is_some_and(|c| expr(x, c))
                || has_conditional(ir, *body)
        }
        Stmt::Expr(e) => expr(x, *e),
        Stmt::Locals(d) => d.iter().any(|l| match l.init {
            Init::Expr(e) => expr(x, e),
            Init::List(_) => true,
            Init::None => false,
        }),
        Stmt::Empty => false,
    }
}

fn in_nest(ir: &Region, root: LoopId, l: LoopId) -> bool {
    ir.loop_path(l).first() == Some(&root)
}

/// Decides the staging of one kernel. `grid` is the schedule's mapping (outermost first).
pub fn plan(r: &RegionAst, root: LoopId, grid: &[GridLoop], kp: &KernelPlan) -> StageSpec {
    plan_with(r, root, grid, kp, &StageOptions::default())
}

/// [`plan`] with the staging's own choices as `opts` says (padding against bank conflicts).
/// Where the platform has a wider bank mode (Kepler: 8 bytes) and a tile's elements are that
/// wide, the tiles are decided again for the wider banks and the mode taken when the kernel's
/// first-warp wavefronts drop ([`BankMode`]).
pub fn plan_with(
    r: &RegionAst,
    root: LoopId,
    grid: &[GridLoop],
    kp: &KernelPlan,
    opts: &StageOptions,
) -> StageSpec {
    plan_tiled(r, root, grid, kp, opts, 1)
}

/// [`plan_with`] for a block whose work-items compute `outputs` outputs each (a register
/// micro-tile, `schedule::micro`): the block may cover up to `outputs` ×
/// [`MAX_THREADS`] grid points, since it launches `1/outputs` as many work-items.
pub fn plan_tiled(
    r: &RegionAst,
    root: LoopId,
    grid: &[GridLoop],
    kp: &KernelPlan,
    opts: &StageOptions,
    outputs: u32,
) -> StageSpec {
    let mut spec = plan_banks(r, root, grid, kp, opts, outputs);
    spec.adjacent_rows = opts.adjacent_rows;
    let wide = opts.banks.wide;
    if !opts.bank_padding
        || wide <= opts.banks.width
        || !spec.arrays.iter().any(|a| a.elem.size() >= wide)
    {
        return spec;
    }
    let mut o = *opts;
    o.banks.width = wide;
    o.banks.wide = 0;
    let mut w = plan_banks(r, root, grid, kp, &o, outputs);
    w.adjacent_rows = opts.adjacent_rows;
    let total = |s: &StageSpec| {
        s.arrays.iter().fold((1u32, 0u64), |(d, n), a| {
            (d.max(a.bank.degree_after), n + a.bank.wavefronts_after)
        })
    };
    let staged = |s: &StageSpec| s.arrays.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    let (d4, n4) = total(&spec);
    let (d8, n8) = total(&w);
    let (b4, b8) = (spec.smem_bytes(), w.smem_bytes());
    let better = staged(&w) == staged(&spec) && d8 <= d4 && (n8 < n4 || (n8 == n4 && b8 < b4));
    if !better {
        return spec;
    }
    w.bank_mode = Some(BankMode {
        width: wide,
        default_width: opts.banks.width,
        degree_default: d4,
        waves_default: n4,
        degree: d8,
        waves: n8,
        bytes_default: b4,
        bytes: b8,
    });
    w
}

/// [`plan_with`] for one bank mode (`opts.banks`), `outputs` per work-item.
fn plan_banks(
    r: &RegionAst,
    root: LoopId,
    grid: &[GridLoop],
    kp: &KernelPlan,
    opts: &StageOptions,
    outputs: u32,
) -> StageSpec {
    let ir = &r.ir;
    let mut spec = StageSpec {
        block: [1, 1, 1],
        ..Default::default()
    };
    let Some(best) = &kp.best else {
        return spec;
    };
    let nest_dims = kp.nest.as_ref().map(|n| n.mapped.len()).unwrap_or(0);
    let mut block = [1u32; 3];
    for g in grid {
        let d = g.dim as usize;
        block[d] = u32::try_from(kp.block[d]).unwrap_or(0);
    }
    let threads: u64 = block.iter().map(|&b| b as u64).product::<u64>() / outputs.max(1) as u64;
    let why = if grid.is_empty() {
        Some(Unstaged::SingleThread)
    } else if nest_dims != grid.len() || block.contains(&0) {
        Some(Unstaged::BlockMismatch)
    } else if threads > MAX_THREADS {
        Some(Unstaged::BlockTooLarge {
            threads,
            max: MAX_THREADS,
        })
    } else {
        None
    };
    let Some(inner) = grid.last().map(|g| g.loop_id).filter(|_| why.is_none()) else {
        for a in &best.staged {
            spec.rejected
                .push((a.clone(), why.clone().unwrap_or(Unstaged::SingleThread)));
        }
        return spec;
    };
    spec.block = block;
    let code = &ir.code;
    let root_stmt = code.loop_stmt(root);
    // The loops at the top level of the innermost grid loop's body.
    let top: Vec<LoopId> = code
        .loop_stmt(inner)
        .map(|s| {
            code.body_stmts(s)
                .into_iter()
                .filter_map(|x| match code.stmts[code.unwrap_directives(x)] {
                    Stmt::For { id, .. } => id,
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let kernel = KernelView {
        ir,
        root,
        inner,
        grid,
        block,
        top,
        conditional: root_stmt.is_none_or(|s| has_conditional(ir, s)),
        tiles: kp.chosen_tiles(),
        bank_padding: opts.bank_padding,
        banks: opts.banks,
    };
    let mut bytes = 0u64;
    for name in &best.staged {
        match kernel.stage_array(name, spec.strip.as_ref(), bytes) {
            Ok((tiles, strip)) => {
                bytes += tiles
                    .iter()
                    .map(|t| t.len() as u64 * t.elem.size() as u64)
                    .sum::<u64>();
                if spec.strip.is_none() {
                    spec.strip = strip;
                }
                spec.arrays.extend(tiles);
            }
            Err(why) => spec.rejected.push((name.clone(), why)),
        }
    }
    if opts.bank_padding {
        decide_reorder(ir, &mut spec, opts);
    }
    spec
}

/// Whether the strip-mined loop `l` may run its iterates in another order in each work-item:
/// every statement in it is a reduction `s op= e` into a scalar declared outside it (one
/// operator per scalar, read nowhere else in the loop, not conditional, not atomic) or writes a
/// scalar private to one iterate; nothing in it writes an array. Returns the reductions and
/// whether they are all over integers.
fn reorderable(ir: &Region, l: LoopId) -> Option<Reorder> {
    use crate::ir::Target;
    let inside = |loops: &[LoopId]| loops.contains(&l);
    let private = |name: &str| {
        ir.scalars
            .get(name)
            .and_then(|i| i.local.flatten())
            .is_some_and(|d| ir.loop_path(d).contains(&l))
    };
    let mut reductions: Vec<(String, crate::vocab::RedOp)> = Vec::new();
    for st in ir.stmts.iter().filter(|s| inside(&s.loops[..])) {
        if st.atomic.is_some() {
            return None;
        }
        match (&st.target, st.reduction) {
            (Target::Scalar(n), _) if private(n) => {}
            (Target::Scalar(n), Some(op)) if !st.conditional => {
                match reductions.iter().find(|(m, _)| m == n) {
                    Some((_, o)) if *o != op => return None,
                    Some(_) => {}
                    None => reductions.push((n.clone(), op)),
                }
            }
            _ => return None,
        }
    }
    if reductions.is_empty() {
        return None;
    }
    // A reduction's scalar is read and written by its own statements only.
    for r in ir.scalar_refs.iter().filter(|r| inside(&r.loops[..])) {
        if reductions.iter().any(|(n, _)| *n == r.name) {
            let own = r.stmt.is_some_and(|id| {
                matches!(&ir.stmts[id].target, Target::Scalar(n) if *n == r.name)
                    && ir.stmts[id].reduction.is_some()
            });
            if !own {
                return None;
            }
        }
    }
    let exact = reductions
        .iter()
        .all(|(n, _)| ir.scalars.get(n).is_some_and(|i| !i.ty.is_float()));
    Some(Reorder { reductions, exact })
}

/// The access reorder (Table 1, the tree's "associative operation" branch), for the whole
/// kernel: the strip-mined loop is rotated per work-item when it is legal ([`reorderable`];
/// floating point only under [`StageOptions::reassociate`]) and every tile the loop walks, laid
/// out at its extent and read rotated, takes no more wavefronts and no higher degree than with
/// the techniques the tree chose per tile, and saves something (wavefronts, or the padding's
/// shared memory). Tiles that do not use the strip are not affected.
fn decide_reorder(ir: &Region, spec: &mut StageSpec, opts: &StageOptions) {
    let Some(strip_loop) = spec.strip.as_ref().map(|s| s.loop_id) else {
        return;
    };
    let strip_tiles: Vec<usize> = (0..spec.arrays.len())
        .filter(|&i| spec.arrays[i].uses_strip())
        .collect();
    if !strip_tiles
        .iter()
        .any(|&i| spec.arrays[i].bank.degree_before > 1)
    {
        return;
    }
    let note = |spec: &mut StageSpec, text: String| {
        for &i in &strip_tiles {
            if spec.arrays[i].bank.degree_before > 1 {
                spec.arrays[i].bank.path.push(text.clone());
            }
        }
    };
    let Some(r) = reorderable(ir, strip_loop) else {
        note(
            spec,
            "associative operation over a row: no (the strip-mined loop does more than reduce into scalars) → not access reorder".to_string(),
        );
        return;
    };
    if !r.exact && !opts.reassociate {
        note(
            spec,
            "associative operation over a row: floating-point reduction, reassociation not allowed (--reassociate) → not access reorder".to_string(),
        );
        return;
    }
    let (mut cur, mut rot) = ((1u32, 0u64, 0u64), (1u32, 0u64));
    let mut rotated = Vec::new();
    for &i in &strip_tiles {
        let a = &spec.arrays[i];
        let (elem, refs) = (a.elem.size(), a.accesses.len());
        let (d, w) = bank::layout_cost(
            &a.dims,
            a.layout(),
            spec.block,
            elem,
            &opts.banks,
            refs,
            false,
        );
        cur = (cur.0.max(d), cur.1 + w, cur.2 + a.bank.extra_bytes);
        let natural = Layout {
            row_len: a.dims.last().map(|d| d.extent).unwrap_or(1),
            transposed: false,
            col_pad: 0,
        };
        let (d, w) = bank::layout_cost(&a.dims, natural, spec.block, elem, &opts.banks, refs, true);
        rot = (rot.0.max(d), rot.1 + w);
        rotated.push((i, natural, d, w));
    }
    let ops: Vec<String> = r
        .reductions
        .iter()
        .map(|(n, o)| format!("{} ({})", n, o.name()))
        .collect();
    let better = rot.0 <= cur.0 && rot.1 <= cur.1 && (rot.1 < cur.1 || cur.2 > 0);
    if !better {
        note(
            spec,
            format!(
                "associative operation over a row: yes ({}) but rotated reads take degree {} ({} wavefronts) against degree {} ({} wavefronts) → not access reorder",
                ops.join(", "), rot.0, rot.1, cur.0, cur.1
            ),
        );
        return;
    }
    let order = if r.exact {
        "integer reduction: exact in any order".to_string()
    } else {
        "floating-point reduction reassociated (--reassociate): sums may differ in the last bits"
            .to_string()
    };
    for (i, layout, d, w) in rotated {
        let a = &mut spec.arrays[i];
        let b = &mut a.bank;
        if b.degree_before > 1 || b.technique != Technique::None {
            b.path.push(format!(
                "associative operation over a row: yes ({}; {}) → access reorder: the strip-mined loop starts at lx mod n in each work-item, degree {} ({} wavefronts) against {} ({} wavefronts, {} B) with the tiles' own techniques",
                ops.join(", "), order, rot.0, rot.1, cur.0, cur.1, cur.2
            ));
            b.technique = Technique::Reorder;
            b.why = format!(
                "reads of the strip rotated per work-item ({}), no padding",
                order
            );
        } else {
            b.path.push(format!(
                "access reorder of the kernel's strip-mined loop: read rotated at degree {}",
                d
            ));
        }
        b.layout = layout;
        b.degree_after = d;
        b.wavefronts_after = w;
        b.extra_bytes = 0;
        a.row_len = layout.row_len;
        a.transposed = false;
        a.col_pad = 0;
    }
    spec.reorder = Some(r);
}

/// One array's references in a kernel, as [`KernelView::stage_array`] stages them.
struct ArrayRefs<'a> {
    name: &'a str,
    info: &'a crate::ir::ArrayInfo,
    /// Its references in the kernel's nest.
    accs: Vec<&'a crate::ir::Access>,
    /// An array of structs: the struct's C name and the names of its scalar fields.
    fields: Option<(String, Vec<String>)>,
}

impl ArrayRefs<'_> {
    /// The struct a tile of field `field` or of an interleaved residue `interleave` is taken
    /// from: a field's tile and an interleaved residue's (never both: only plain arrays
    /// interleave) are AoS → SoA, and the decision tree's verdict is taken against the struct
    /// tiled as it is.
    fn aos(&self, field: &Option<TileField>, interleave: Option<Interleave>) -> Option<bank::Aos> {
        match (&self.fields, field, interleave) {
            (Some((record, _)), Some(f), _) => Some(bank::Aos {
                what: format!("field `{}` of `{}`", f.name, record),
                count: f.count,
            }),
            (_, None, Some(il)) => Some(bank::Aos {
                what: format!(
                    "`{}[{}]` of the interleaved `{}`",
                    self.name,
                    il.elements(),
                    self.name
                ),
                count: il.stride,
            }),
            _ => None,
        }
    }
}

/// A group of references that read one tile: each dimension's view (the window the union of
/// the references'), the references' spans, and the field of a struct they name.
type RefGroup = (Vec<DimRef>, Vec<Span>, Option<u32>);

/// What the staging of one kernel's arrays needs to know about the kernel.
struct KernelView<'a> {
    ir: &'a Region,
    root: LoopId,
    /// The innermost grid loop.
    inner: LoopId,
    grid: &'a [GridLoop],
    block: [u32; 3],
    /// The loops at the top level of the innermost grid loop's body.
    top: Vec<LoopId>,
    /// The nest holds conditional code.
    conditional: bool,
    /// The engine's tile sizes of sequential loops.
    tiles: BTreeMap<LoopId, i64>,
    /// Apply the bank-conflict techniques ([`StageOptions::bank_padding`]).
    bank_padding: bool,
    banks: Banks,
}

impl KernelView<'_> {
    /// The tiles of array `name` (one per group of references that agree on which index moves
    /// every dimension) and the strip-mined loop they use, given the strip-mined loop of the
    /// arrays staged before (`strip`) and the shared memory they use (`bytes`).
    fn stage_array(
        &self,
        name: &str,
        strip: Option<&Strip>,
        bytes: u64,
    ) -> Result<(Vec<StagedArray>, Option<Strip>), Unstaged> {
        let arr = self.array_refs(name)?;
        let info = arr.info;
        let (mut groups, my_strip) = self.group_references(&arr)?;
        let k = match (my_strip, strip) {
            (Some(l), Some(s)) if s.loop_id != l => return Err(Unstaged::OtherStripLoop),
            (_, Some(s)) => s.size,
            (Some(l), None) => self.strip_size(l),
            (None, None) => 0,
        };
        // Fields in their struct's order (residues of an interleaved dimension in order), each
        // field's groups in order of appearance.
        let residue = |g: &RefGroup| {
            g.0.last()
                .filter(|x| x.stride > 1)
                .map(|x| (x.stride, x.residue))
        };
        groups.sort_by_key(|g| (g.2, residue(g)));
        let keys: Vec<_> = groups.iter().map(|g| (g.2, residue(g))).collect();
        let several: Vec<bool> = keys
            .iter()
            .map(|k| keys.iter().filter(|x| *x == k).count() > 1)
            .collect();
        let mut tiles = Vec::new();
        let mut used = 0u64;
        for (gi, group) in groups.into_iter().enumerate() {
            let (mut tile, size) = self.tile(&arr, group, my_strip, k, bytes + used)?;
            used += size;
            if several[gi] {
                tile.local = format!("{}_{}", tile.local, gi);
            }
            tiles.push(tile);
        }
        let b: u64 = tiles
            .iter()
            .map(|sa| sa.len() as u64 * info.elem.size() as u64)
            .sum();
        if bytes + b > SMEM_LIMIT {
            return Err(Unstaged::DoesNotFit {
                tiles: tiles.len(),
                bytes: b,
                limit: SMEM_LIMIT,
            });
        }
        let strip = my_strip.filter(|_| strip.is_none()).map(|l| Strip {
            loop_id: l,
            var: self.ir.loops[l].var.clone(),
            size: k,
        });
        Ok((tiles, strip))
    }

    /// The references of array `name` in the kernel, checked as a whole: the array is
    /// referenced, never atomically, every written part is written through the work-item's own
    /// element, and its extents are known where the staging needs them.
    fn array_refs<'s>(&'s self, name: &'s str) -> Result<ArrayRefs<'s>, Unstaged> {
        let ir = self.ir;
        let info = ir.arrays.get(name).ok_or(Unstaged::NotInRegion)?;
        let accs: Vec<_> = ir
            .accesses
            .iter()
            .filter(|a| a.array == name && a.loops.first() == Some(&self.root))
            .collect();
        if accs.is_empty() {
            return Err(Unstaged::NotReferenced);
        }
        if accs.iter().any(|a| ir.is_atomic_access(a.id)) {
            return Err(Unstaged::Atomic);
        }
        let written = accs.iter().any(|a| a.writes());
        // An array of structs is staged as one tile per referenced field (AoS → SoA): the
        // field, the IR's last dimension, is a constant of every reference, and the tiles are
        // those of the struct's index.
        let fields: Option<(String, Vec<String>)> = info
            .record
            .as_ref()
            .map(|def| (def.name(), def.fields.clone()));
        if written {
            // Written through tiles part by part: a field of an array of structs, a residue of
            // an interleaved last dimension, else the whole array. Every written part names
            // the work-item's own element; a part only read is staged as a read tile (its
            // elements are not written by the kernel: other fields, other residues).
            let (parts, stride) = write_parts(ir, self.grid, &accs, fields.is_some())?;
            for part in parts.iter().filter(|p| p.iter().any(|a| a.writes())) {
                write_through_shape(ir, self.grid, part, stride)?;
            }
        }
        if info.extents.iter().skip(1).any(Option::is_none) {
            return Err(Unstaged::InnerExtentUnknown);
        }
        if info.extents.iter().any(Option::is_none) && self.conditional {
            return Err(Unstaged::ExtentUnknownConditional);
        }
        Ok(ArrayRefs {
            name,
            info,
            accs,
            fields,
        })
    }

    /// Groups the references of `arr` by the tile they read: references that agree on which
    /// index moves every dimension (and, for structs, on the field) form one group, the window
    /// of each dimension the union of theirs; with the strip-mined loop they use, if any.
    fn group_references(
        &self,
        arr: &ArrayRefs,
    ) -> Result<(Vec<RefGroup>, Option<LoopId>), Unstaged> {
        let ir = self.ir;
        let rank = arr.info.extents.len();
        // Each reference's view of each dimension; references that agree on which index moves
        // every dimension (and, for structs, on the field) form one group, and each group gets
        // its own tile (syrk's `A[i][k]` and `A[j][k]`: a tile of rows for the block's `i` and
        // one for its `j`).
        let mut groups: Vec<RefGroup> = Vec::new();
        let mut my_strip: Option<LoopId> = None;
        for a in &arr.accs {
            if a.subscripts.len() != rank {
                return Err(Unstaged::NotEveryDimension);
            }
            let (subs, field) = match &arr.fields {
                Some((_, names)) => {
                    let f = a.subscripts[rank - 1]
                        .as_ref()
                        .and_then(Poly::as_const)
                        .and_then(|c| u32::try_from(c).ok())
                        .filter(|&c| (c as usize) < names.len())
                        .ok_or_else(|| Unstaged::NonAffineAccess {
                            access: ir.fmt_access(a.id),
                        })?;
                    (&a.subscripts[..rank - 1], Some(f))
                }
                None => (&a.subscripts[..], None),
            };
            let mut view: Vec<DimRef> = Vec::with_capacity(rank);
            for (d, sub) in subs.iter().enumerate() {
                let p = sub.as_ref().ok_or_else(|| Unstaged::NonAffineAccess {
                    access: ir.fmt_access(a.id),
                })?;
                // Interleaved (`x[2*i + 1]`) only along the last dimension of a plain array.
                let last = arr.fields.is_none() && d + 1 == subs.len();
                let x = self.dim_ref(a, p, last)?;
                if let Some(l) = x.strip {
                    if my_strip.is_some_and(|m| m != l) {
                        return Err(Unstaged::TwoStripLoops);
                    }
                    my_strip = Some(l);
                }
                view.push(x);
            }
            let same = |g: &[DimRef]| {
                g.iter().zip(&view).all(|(x, y)| {
                    x.primary == y.primary
                        && x.strip == y.strip
                        && x.stride == y.stride
                        && x.residue == y.residue
                })
            };
            match groups.iter_mut().find(|(g, _, f)| *f == field && same(g)) {
                Some((g, spans, _)) => {
                    for (x, y) in g.iter_mut().zip(&view) {
                        x.lo = x.lo.min(y.lo);
                        x.hi = x.hi.max(y.hi);
                    }
                    spans.push(a.span);
                }
                None => groups.push((view, vec![a.span], field)),
            }
        }
        Ok((groups, my_strip))
    }

    /// The tile of one group of references of `arr` (named without the group's index), with
    /// the shared memory it takes (its elements and its padding), given the strip-mined loop
    /// `strip` of `k` iterations and the shared memory the tiles before it use (`before`).
    fn tile(
        &self,
        arr: &ArrayRefs,
        (dims, spans, field): RefGroup,
        strip: Option<LoopId>,
        k: u32,
        before: u64,
    ) -> Result<(StagedArray, u64), Unstaged> {
        let (name, info) = (arr.name, arr.info);
        let interleave = dims.last().filter(|x| x.stride > 1).map(|x| Interleave {
            stride: x.stride as u32,
            residue: x.residue as u32,
        });
        let mut tdims = Vec::new();
        for (d, x) in dims.into_iter().enumerate() {
            let (extent, range) = self.tile_extent(&x, strip, k)?;
            tdims.push(TileDim {
                primary: x.primary,
                lo: x.lo,
                hi: x.hi,
                extent,
                range,
                array_extent: info.extents.get(d).cloned().flatten(),
            });
        }
        // Shared memory left for padding: the limit less the tiles of earlier arrays, this
        // array's tiles at their extents, and the padding of its earlier tiles.
        let natural: u64 =
            tdims.iter().map(|d| d.extent as u64).product::<u64>() * info.elem.size() as u64;
        let spare = SMEM_LIMIT.saturating_sub(before + natural);
        let mut choice = bank::decide(
            &tdims,
            self.block,
            info.elem.size(),
            spans.len(),
            &self.banks,
            spare,
            self.bank_padding,
        );
        let tile_field = match (&arr.fields, field) {
            (Some((_, names)), Some(f)) => Some(TileField {
                name: names[f as usize].clone(),
                index: f,
                count: names.len() as u32,
            }),
            _ => None,
        };
        if let Some(aos) = arr.aos(&tile_field, interleave) {
            choice = bank::aos_to_soa(
                choice,
                &tdims,
                self.block,
                info.elem.size(),
                spans.len(),
                &self.banks,
                aos,
            );
        }
        let size = natural + choice.extra_bytes;
        // Written through this tile when one of its references writes (one field or
        // residue of an array written part by part); loaded first when read or when an
        // element may stay unwritten.
        let mine: Vec<&crate::ir::Access> = arr
            .accs
            .iter()
            .copied()
            .filter(|a| spans.contains(&a.span))
            .collect();
        let tile_written = mine.iter().any(|a| a.writes());
        let load = !tile_written || needs_preload(self.ir, self.grid, &mine, self.conditional);
        let local = match (&tile_field, interleave) {
            (Some(f), _) => format!("accshare_sh_{}_{}", name, f.name),
            (None, Some(il)) => format!("accshare_sh_{}_r{}", name, il.residue),
            (None, None) => format!("accshare_sh_{}", name),
        };
        let tile = StagedArray {
            name: name.to_string(),
            local,
            elem: info.elem,
            dims: tdims,
            row_len: choice.layout.row_len,
            transposed: choice.layout.transposed,
            col_pad: choice.layout.col_pad,
            vector_reads: 1,
            bank: choice,
            accesses: spans,
            written: tile_written,
            load,
            field: tile_field,
            interleave,
            copy_words: None,
        };
        Ok((tile, size))
    }

    /// How reference `a` moves one dimension of its array (subscript `p`): by a grid index, by
    /// the strip-mined loop, or by nothing, plus constant offsets and short windows.
    fn dim_ref(
        &self,
        a: &crate::ir::Access,
        p: &Poly,
        interleavable: bool,
    ) -> Result<DimRef, Unstaged> {
        let ir = self.ir;
        let subscript = || p.to_c();
        let mut primary = Primary::Fixed;
        let mut sl = None;
        let mut lo = p.constant_term();
        let mut hi = lo;
        let mut stride = 1i64;
        let mut windowed = false;
        for sym in p.symbols() {
            let (coef, _) = p.split(sym).ok_or_else(|| Unstaged::NonAffineSubscript {
                subscript: subscript(),
            })?;
            let c = coef
                .as_const()
                .ok_or_else(|| Unstaged::SymbolicCoefficient {
                    subscript: subscript(),
                })?;
            let grid_loop = self.grid.iter().find(|g| ir.loops[g.loop_id].var == sym);
            let nest_loop = a
                .loops
                .iter()
                .copied()
                .find(|&l| ir.loops[l].var == sym && in_nest(ir, self.root, l));
            if let Some(g) = grid_loop {
                // `c·i + k` with a constant c > 1 (the interleaved form): one tile per residue.
                let interleaved = interleavable && c > 1;
                if (c != 1 && !interleaved)
                    || ir.loops[g.loop_id].step != 1
                    || primary != Primary::Fixed
                {
                    return Err(Unstaged::NotGridPlusConstants {
                        subscript: subscript(),
                    });
                }
                stride = c;
                primary = Primary::Grid {
                    dim: g.dim,
                    min: g.min.clone(),
                };
            } else if let Some(l) = nest_loop {
                if c == 1
                    && primary == Primary::Fixed
                    && strip_candidate(ir, self.inner, l)
                    && self.top.contains(&l)
                {
                    primary = Primary::Strip;
                    sl = Some(l);
                } else if let Some((wmin, wmax)) = window(ir, l) {
                    windowed = true;
                    let (x, y) = (c * wmin, c * wmax);
                    lo += x.min(y);
                    hi += x.max(y);
                } else {
                    return Err(Unstaged::NotTileable {
                        iterator: sym.to_string(),
                        subscript: subscript(),
                    });
                }
            } else {
                return Err(Unstaged::NotAnIterator {
                    subscript: subscript(),
                    name: sym.to_string(),
                });
            }
        }
        if stride > 1 {
            if windowed || lo != hi {
                return Err(Unstaged::NotGridPlusConstants {
                    subscript: subscript(),
                });
            }
            // `c·(i + off) + k`: offsets in strides, the residue apart.
            return Ok(DimRef {
                primary,
                strip: sl,
                lo: lo.div_euclid(stride),
                hi: lo.div_euclid(stride),
                stride,
                residue: lo.rem_euclid(stride),
            });
        }
        Ok(DimRef {
            primary,
            strip: sl,
            lo,
            hi,
            stride: 1,
            residue: 0,
        })
    }

    /// Iterations per strip of loop `l`: the engine's tile size (else [`DEFAULT_STRIP`]), at
    /// most the loop's constant trip count.
    fn strip_size(&self, l: LoopId) -> u32 {
        let t = self.tiles.get(&l).copied().unwrap_or(0);
        let mut k = if (1..=256).contains(&t) {
            t as u32
        } else {
            DEFAULT_STRIP
        };
        let lp = &self.ir.loops[l];
        if let (Some(a), Some(b)) = (
            lp.lower.affine().and_then(Poly::as_const),
            lp.upper.affine().and_then(Poly::as_const),
        ) {
            if b > a {
                k = k.min((b - a) as u32);
            }
        }
        k.max(1)
    }

    /// The extent of a tile dimension and the global indices it covers.
    fn tile_extent(
        &self,
        x: &DimRef,
        strip: Option<LoopId>,
        k: u32,
    ) -> Result<(u32, (Poly, Poly)), Unstaged> {
        let span = (x.hi - x.lo) as u32;
        Ok(match &x.primary {
            Primary::Fixed => (span + 1, (Poly::constant(x.lo), Poly::constant(x.hi))),
            Primary::Grid { dim, .. } => {
                let g = self
                    .grid
                    .iter()
                    .find(|g| g.dim == *dim)
                    .ok_or(Unstaged::GridRange)?;
                let (Some(a), Some(b)) = (
                    g.min.add(&Poly::constant(x.lo)),
                    g.max.add(&Poly::constant(x.hi)),
                ) else {
                    return Err(Unstaged::GridRange);
                };
                (self.block[*dim as usize] + span, (a, b))
            }
            Primary::Strip => {
                let lp = &self.ir.loops[strip.ok_or(Unstaged::StripRange)?];
                let r = lp.lower.affine().zip(lp.upper.affine()).and_then(|(a, b)| {
                    Some((
                        a.add(&Poly::constant(x.lo))?,
                        b.add(&Poly::constant(x.hi - 1))?,
                    ))
                });
                (k + span, r.ok_or(Unstaged::StripRange)?)
            }
        })
    }
}

/// The parts of a written array that are written through tiles of their own, and the stride of
/// the last dimension's grid index in every reference (1 unless interleaved).
///
/// An array of structs is written field by field (the field, the IR's last dimension, is a
/// constant of every reference): fields touch disjoint bytes, so a field only read is a read
/// tile whatever the written fields do. A plain array whose last subscript is `c·i + k` (`i` a
/// grid index, a constant `c > 1`: the interleaved form) is written residue by residue: every
/// reference must then be `c·i + k` with the same `c` and `i` (else two references could name
/// one element through different residues), and residues `k mod c` are disjoint elements.
fn write_parts<'a>(
    ir: &Region,
    grid: &[GridLoop],
    accs: &[&'a crate::ir::Access],
    record: bool,
) -> Result<(Vec<Vec<&'a crate::ir::Access>>, i64), Unstaged> {
    let mut parts: BTreeMap<i64, Vec<&crate::ir::Access>> = BTreeMap::new();
    let last = |a: &crate::ir::Access| a.subscripts.last().cloned().flatten();
    if record {
        for a in accs {
            let f =
                last(a)
                    .and_then(|p| p.as_const())
                    .ok_or_else(|| Unstaged::NonAffineAccess {
                        access: ir.fmt_access(a.id),
                    })?;
            parts.entry(f).or_default().push(a);
        }
        return Ok((parts.into_values().collect(), 1));
    }
    // The grid index and its constant coefficient > 1 in a last subscript, if any.
    let interleaved = |p: &Poly| -> Option<(String, i64)> {
        p.symbols().into_iter().find_map(|sym| {
            let c = p.split(sym)?.0.as_const()?;
            let g = grid.iter().any(|g| ir.loops[g.loop_id].var == sym);
            (g && c > 1).then(|| (sym.to_string(), c))
        })
    };
    let Some((var, stride)) = accs
        .iter()
        .find_map(|a| last(a).and_then(|p| interleaved(&p)))
    else {
        return Ok((vec![accs.to_vec()], 1));
    };
    for a in accs {
        let p = last(a).ok_or_else(|| Unstaged::NonAffineAccess {
            access: ir.fmt_access(a.id),
        })?;
        let same = p
            .split(&var)
            .and_then(|(c, _)| c.as_const())
            .is_some_and(|c| c == stride);
        if !same {
            return Err(Unstaged::WrittenInterleavedStrides {
                subscript: p.to_c(),
                stride,
            });
        }
        parts
            .entry(p.constant_term().rem_euclid(stride))
            .or_default()
            .push(a);
    }
    Ok((parts.into_values().collect(), stride))
}

/// Why a written array (or one written part of it, [`write_parts`]) cannot be written through
/// a tile, if it cannot.
///
/// Write-through is exact when every reference names the same element, `c + x` per dimension
/// with `x` a distinct grid index (or nothing), and every grid index appears: then each
/// work-item owns one element of its block's tile, the tiles of different blocks are disjoint,
/// and storing the tile back after a barrier writes what the baseline writes. In the last
/// dimension of an interleaved part the grid index has coefficient `stride` (`2·i + 1`: one
/// element of the residue's tile per work-item).
fn write_through_shape(
    ir: &Region,
    grid: &[GridLoop],
    accs: &[&crate::ir::Access],
    stride: i64,
) -> Result<(), Unstaged> {
    let first = &accs[0].subscripts;
    if accs.iter().any(|a| &a.subscripts != first) {
        return Err(Unstaged::WrittenThroughDifferentElements);
    }
    let mut used = BTreeSet::new();
    let rank = first.len();
    for (d, p) in first.iter().enumerate() {
        let Some(p) = p else { continue };
        let want = if d + 1 == rank { stride } else { 1 };
        for sym in p.symbols() {
            let g = grid.iter().find(|g| ir.loops[g.loop_id].var == sym);
            let unit = p
                .split(sym)
                .and_then(|(c, _)| c.as_const())
                .is_some_and(|c| c == want);
            match g {
                Some(g) if unit && used.insert(g.dim) => {}
                _ => {
                    return Err(Unstaged::WrittenNotPerWorkItem {
                        subscript: p.to_c(),
                    })
                }
            }
        }
    }
    if used.len() != grid.len() {
        return Err(Unstaged::WrittenShared);
    }
    Ok(())
}

/// A written tile must be loaded first when the kernel reads the array or when some element
/// of the tile may not be written (conditional code, a write inside a sequential loop that may
/// not run, a non-rectangular grid): the store-back then writes the loaded value unchanged.
fn needs_preload(
    ir: &Region,
    grid: &[GridLoop],
    accs: &[&crate::ir::Access],
    conditional: bool,
) -> bool {
    let iters: BTreeSet<&str> = ir.loops.iter().map(|l| l.var.as_str()).collect();
    // `GridLoop::min/max` are the grid's bounding box: whether the domain is a box shows in the
    // loops' own bounds (`for (j = i; …)` is a triangle whose box holds unwritten elements).
    let rectangular = grid.iter().all(|g| {
        let lp = &ir.loops[g.loop_id];
        [&lp.lower, &lp.upper].iter().all(|b| {
            b.affine()
                .is_some_and(|p| p.symbols().iter().all(|s| !iters.contains(s)))
        })
    });
    conditional
        || !rectangular
        || accs.iter().any(|a| a.reads())
        || accs
            .iter()
            .any(|a| a.writes() && a.loops.len() != grid.len())
}

/// Reasons, by array, for explain: staged arrays map to `None`.
pub fn summary(spec: &StageSpec) -> BTreeMap<String, Option<String>> {
    let mut out = BTreeMap::new();
    for a in &spec.arrays {
        out.insert(a.name.clone(), None);
    }
    for (a, why) in &spec.rejected {
        out.insert(a.clone(), Some(why.to_string()));
    }
    out
}

#[cfg(test)]
mod tests;
