//! Short words (seed 004, van den Braak et al., §V-B): 8- and 16-bit accesses at consecutive
//! addresses along x grouped into vector accesses.
//!
//! A work-item of a kernel that reads or writes `unsigned char`/`char`/`short`/`unsigned short`
//! arrays with unit stride along its x iterator computes [`Words::width`] *consecutive* outputs
//! along x (a blocked coarsening, the seed's "inter-thread grouping": the x copies are `x`,
//! `x + 1`, …, not the cyclic columns of a register micro-tile), so that the bytes its copies
//! touch are adjacent: the copies' stores become one vector store of `width` lanes (`uchar4`,
//! `short2`) and the loads of each row of an input one vector load of the span they cover
//! (gauss's `in[i+di][j-2 .. j+5]`: one `uchar8` for 20 byte loads). Kernel lowering applies it
//! (`kernel::lower`): a work-item whose outputs are all inside the loop bounds runs the grouped
//! code, one at an edge (a width that is not a multiple of `width`) the scalar copies under their
//! own guards. This module decides which kernels, which arrays and which width, or why not.
//!
//! Default: on under `--opt share` for every kernel that has no register micro-tile and is not
//! staged, except a loop-free nest on a CPU device, which its OpenCL compiler already
//! vectorises across work-items (`NoWords::LoopFreeOnCpu`); `--words on` groups that one too,
//! `--words off` turns grouping off. The width is 4 bytes per output row of a work-item
//! (4 lanes of 8 bits, 2 of 16), the width the seed groups to and CUDA's `uchar4`/`short2`.
//!
//! Staged kernels read their short words from local memory; what is grouped there is the
//! cooperative copy of each 8/16-bit tile ([`tile_copy`], recorded on
//! `StagedArray::copy_words`, applied by `kernel::lower::staged`): a work-item moves 4 bytes
//! of a tile row (`uchar4`, `short2`) with one vector load and one vector store instead of one
//! element, the groups of the whole tile spread over the block in their flat order (walked
//! with coordinates carried from one group to the next, no division per group). Elements
//! past a row's last whole group, and groups that cross the edge of the range the program
//! touches, are copied element by element under the scalar copy's guards. Alignment: OpenCL's
//! `vloadn`/`vstoren` need only the element's alignment (OpenCL C 1.2 §6.12.7), CUDA's vector
//! types a 4-byte one, checked at run time by the back end (element accesses where it fails;
//! short-word tiles are declared `__align__(4)`); the schedule records whether every vector is
//! word-aligned ([`TileWords::aligned`]) and refuses a tile whose start along x is a constant
//! non-multiple of the width in every block ([`TileWordsRejection::Unaligned`]), whose every
//! vector would straddle two words. On by default under `--opt share` (also with `--ilp`),
//! off with `--words off`.

use std::fmt;

use crate::analysis::dependence::DepInfo;
use crate::ir::{LoopId, Region};
use crate::vocab::Scalar;

use super::{coarsenable, Coarsening, Schedule};

/// Whether `e` is a short word: an 8- or 16-bit integer (not `_Bool`).
pub fn is_short_word(e: Scalar) -> bool {
    matches!(e.size(), 1 | 2) && e != Scalar::Bool
}

/// The most lanes of one vector access (OpenCL's widest vector type, `uchar16`).
pub const MAX_LANES: u32 = 16;

/// Bytes a work-item's grouped store covers (the seed's 32-bit word).
pub const WORD_BYTES: u32 = 4;

/// The grouping of a kernel's short-word accesses.
#[derive(Clone, Debug, PartialEq)]
pub struct Words {
    /// Consecutive outputs along x per work-item (the lanes of a grouped store).
    pub width: u32,
    /// Consecutive outputs along y per work-item: 1 for short words; `width` for a transposed
    /// vector tile ([`transposed`]), whose rows are adjacent too, so that an array read along
    /// y is loaded as vectors along y.
    pub rows: u32,
    /// The arrays whose accesses are grouped.
    pub arrays: Vec<WordArray>,
    /// Short-word arrays of the kernel that are not grouped, and why.
    pub rejected: Vec<(String, WordsRejection)>,
}

/// One array whose accesses along x are grouped.
#[derive(Clone, Debug, PartialEq)]
pub struct WordArray {
    pub name: String,
    pub elem: Scalar,
    /// Read (loads grouped: up to `max_lanes` per vector) and/or written (stores of `width`).
    pub loads: bool,
    pub stores: bool,
    /// The widest vector load: the span of the x offsets one row of the array is read at, plus
    /// the work-item's other outputs (gauss: offsets −2..2, 4 outputs: 8), rounded down to
    /// what OpenCL can load at once (2, 4, 8, 16).
    pub max_lanes: u32,
    /// Accessed at consecutive addresses along y (a transposed vector tile's column loads);
    /// else along x.
    pub along_y: bool,
}

/// Why a kernel's short-word array is not grouped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WordsRejection {
    /// A reference does not walk the array's last dimension with unit stride along the
    /// direction `along` names (or another subscript depends on it): neighbouring outputs do
    /// not touch adjacent addresses.
    NotConsecutive { access: String, along: Along },
    /// Read and written by the nest: loads grouped across outputs could cross a store.
    ReadAndWritten,
    /// A compound assignment (`+=`) or atomic update of an element.
    Update,
    /// A reference in a statement under a condition (a transposed vector tile): each copy of
    /// the statement runs under its own condition, so its copies' accesses stay apart, and a
    /// conditional store has no vector form (OpenCL has no masked `vstoren`).
    Conditional { access: String },
}

/// Along which grid dimension an array's references must be consecutive to be grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Along {
    /// Short words: along x.
    X,
    /// A transposed vector tile ([`transposed`]): every reference along x, or every one along y
    /// (`WordArray::along_y`); this reference is along neither.
    XOrY,
    /// A transposed vector tile: this reference is consecutive along y, another reference of
    /// the same array along x, and the array's vectors are taken in one direction.
    YNotX,
}

impl fmt::Display for WordsRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WordsRejection::NotConsecutive { access, along } => match along {
                Along::X => write!(
                    f,
                    "`{}` is not at consecutive addresses along x (non-consecutive)",
                    access
                ),
                Along::XOrY => write!(
                    f,
                    "`{}` is not at consecutive addresses along x or along y (non-consecutive)",
                    access
                ),
                Along::YNotX => write!(
                    f,
                    "`{}` is at consecutive addresses along y, other references of the array \
                     along x: its vectors are along one of them (non-consecutive)",
                    access
                ),
            },
            WordsRejection::ReadAndWritten => {
                write!(
                    f,
                    "read and written by the nest: grouped loads could cross a store"
                )
            }
            WordsRejection::Update => write!(f, "updated in place (`op=` or atomic)"),
            WordsRejection::Conditional { access } => write!(
                f,
                "`{}` is under a condition each output evaluates apart: its copies cannot share a vector",
                access
            ),
        }
    }
}

/// Why a kernel gets no short-word grouping at all (`explain`'s note).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoWords {
    /// No 8- or 16-bit array is accessed by the nest.
    NoShortWords,
    /// No loop on x, or its step is not 1.
    NoUnitStrideX,
    /// Reductions of the grid loops or atomics: one output per work-item.
    NotCoarsenable,
    /// The block's x extent is not a multiple of the width.
    Block(u32),
    /// Every short-word array was rejected.
    AllRejected,
    /// A loop-free nest on a CPU device, whose OpenCL compiler vectorises it across
    /// work-items already.
    LoopFreeOnCpu,
    /// A transposed vector tile ([`transposed`]) that would scatter (its only array accessed
    /// along y is written) or cover a non-rectangular domain, on a grid of `outputs` known
    /// outputs, fewer than `least` ([`SMALL_TILE_OUTPUTS`], [`SMALL_TILE_OUTPUTS_IRREGULAR`]).
    SmallTile {
        outputs: u64,
        least: u64,
        rectangular: bool,
    },
    /// A transposed vector tile ([`transposed`]) whose only access along y and strided along x
    /// (`access`) is under a condition each output evaluates apart.
    ConditionalTile { access: String },
}

impl fmt::Display for NoWords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoWords::NoShortWords => write!(f, "no 8- or 16-bit array"),
            NoWords::NoUnitStrideX => write!(f, "no grid loop on x with step 1"),
            NoWords::NotCoarsenable => write!(
                f,
                "one output per work-item (reductions of the grid loops or atomics)"
            ),
            NoWords::Block(b) => write!(
                f,
                "the block's x extent {} is not a multiple of the width",
                b
            ),
            NoWords::AllRejected => {
                write!(f, "no short-word array is accessed consecutively along x")
            }
            NoWords::SmallTile {
                outputs,
                least,
                rectangular,
            } => write!(
                f,
                "transposed vector tile not used: {} on a grid of {} outputs (fewer than {}), where the tile's edge copies and fewer work-groups cost more than its vectors save",
                if *rectangular {
                    "its array accessed along y is only written (the tile replaces a scatter)"
                } else {
                    "the loop bounds make the domain non-rectangular"
                },
                outputs,
                least
            ),
            NoWords::ConditionalTile { access } => write!(
                f,
                "transposed vector tile not used: `{}` is under a condition each output evaluates apart, so its copies cannot share a vector (a conditional store has no vector form) and the gather or scatter stays",
                access
            ),
            NoWords::LoopFreeOnCpu => write!(
                f,
                "a loop-free nest on a CPU device: its OpenCL compiler vectorises it across work-items already"
            ),
        }
    }
}

/// The short-word grouping of the unstaged kernel `base` (its grid and block), or why none;
/// where there is none, a transposed vector tile ([`transposed`]) if one applies.
pub fn decide(
    ir: &Region,
    deps: &DepInfo,
    base: &Schedule,
    ilp: Coarsening,
) -> Result<Words, NoWords> {
    short_words(ir, deps, base, ilp).or_else(|why| match transposed(ir, deps, base, ilp) {
        Ok(t) => small_tile(ir, base, &t).map_or(Ok(t.words), Err),
        Err(no) => Err(no.unwrap_or(why)),
    })
}

/// Fewest outputs (grid points, known at compile time) for which a transposed vector tile that
/// replaces a scatter is used; four times as many ([`SMALL_TILE_OUTPUTS_IRREGULAR`]) where the
/// domain is not rectangular, whose bounding box the grid covers. Measured on PoCL (this
/// project's 2-core AVX-512 machine, `accshare bench`, `--reps 21` with the levels timed in
/// turn, three runs each; tile kernel against naive): a `float` transpose written along y
/// (`out[j][i] = in[i][j]`, `j` on x) 0.60–0.84× at 77², 1.09–1.19× at 128², 1.52–1.91× at
/// 256²; the conditional store of a 67×45 one 0.33–0.80×; a lower-triangular one (`j` from
/// `i`) 0.34–0.41× at 77², 0.72–1.01× at 256², 1.09–1.22× at 512², 1.19–1.35× at 1024², and
/// read along y 0.50–0.61× at 77², 0.69–1.12× at 256², 1.04–1.15× at 1024². A rectangular
/// tile that replaces a gather wins at every size measured (61×101: 1.9×). Unknown extents
/// keep the tile: it is made for the large ones.
pub const SMALL_TILE_OUTPUTS: u64 = 1 << 16;
/// [`SMALL_TILE_OUTPUTS`] for a non-rectangular domain (a triangle fills half its box).
pub const SMALL_TILE_OUTPUTS_IRREGULAR: u64 = 1 << 18;

/// Why transposed tile `t` of the kernel `base` is not used: a scatter on a grid of fewer than
/// [`SMALL_TILE_OUTPUTS`] known outputs, or a non-rectangular domain on one of fewer than
/// [`SMALL_TILE_OUTPUTS_IRREGULAR`].
fn small_tile(ir: &Region, base: &Schedule, t: &Transposed) -> Option<NoWords> {
    let rectangular = base.grid.iter().all(|g| {
        let lp = &ir.loops[g.loop_id];
        base.grid.iter().all(|o| {
            let v = ir.loops[o.loop_id].var.as_str();
            [&lp.lower, &lp.upper]
                .iter()
                .all(|b| b.affine().is_some_and(|p| !p.mentions(v)))
        })
    });
    if t.gathers && rectangular {
        return None;
    }
    let outputs = [0u8, 1, 2]
        .into_iter()
        .filter(|&d| base.grid.iter().any(|g| g.dim == d))
        .map(|d| super::known_extent(ir, &base.grid, d).map(u64::from))
        .product::<Option<u64>>()?;
    let least = if rectangular {
        SMALL_TILE_OUTPUTS
    } else {
        SMALL_TILE_OUTPUTS_IRREGULAR
    };
    (outputs < least).then_some(NoWords::SmallTile {
        outputs,
        least,
        rectangular,
    })
}

/// A transposed vector tile ([`transposed`]) and whether an array it accesses along y and
/// strided along x is read (it replaces a gather; else only scatters).
pub struct Transposed {
    pub words: Words,
    pub gathers: bool,
}

/// Bytes of one vector of a transposed vector tile: 16, an SSE register, 4 floats (the vector
/// of the measurement in [`transposed`]; wider tiles did not pay there).
pub const VECTOR_TILE_BYTES: u32 = 16;

/// A transposed vector tile (memory-access transformation; seed 004's index grouping extended
/// to 32- and 64-bit data): on a CPU device, a loop-free 2-D nest that reads an array at
/// consecutive addresses along **y** and a stride apart along x (a transpose's `in[j][i]` with
/// `j` on x), or writes one so (`out[j][i] = in[i][j]`). The device's compiler vectorises such
/// a body across work-items, along x, and makes that access a gather (a scatter), slow on x86
/// (microcoded on AMD, and on Intel since the Gather Data Sampling mitigation). Here each
/// work-item computes a `W×W` tile of adjacent outputs (W = [`VECTOR_TILE_BYTES`] / the widest
/// element, 2 to 4): the arrays accessed along y are loaded (stored) as vectors along y (one
/// `vload4` per column of the tile), those accessed along x as vectors along x, and the
/// copies' values are exchanged in registers. PoCL, 4096² `float` transpose, kernel time as a
/// fraction of a copy kernel of the same bytes (one run, hand-written kernels): naive 22–54 %
/// (32×8 or 16×16 work-groups), through a local tile 10–19 %, the same 4×4 tile as scalar code
/// 34 %, as vectors 48–95 % (56–62 % in the run that also measured 2×2 vectors, 35 %, and
/// 8×8, 34–45 %; in a later measurement, through pyopencl with the copy kernel in the same
/// rounds, 8×8 was 1.18× the 4×4 one: docs/benchmarks-results.md). `Err(None)` where it does
/// not apply (a GPU, whose lanes coalesce along x instead; an inner loop, where the compiler
/// does not vectorise across work-items; no such access); `Err(Some(_))` where the only such
/// access is under a condition (its copies cannot share a vector).
pub fn transposed(
    ir: &Region,
    deps: &DepInfo,
    base: &Schedule,
    ilp: Coarsening,
) -> Result<Transposed, Option<NoWords>> {
    if !ilp.cpu || super::has_inner_loop(ir, base) {
        return Err(None);
    }
    let root = base.root;
    let on = |d: u8| base.grid.iter().find(|g| g.dim == d);
    let (Some(x), Some(y)) = (on(0), on(1)) else {
        return Err(None);
    };
    if ir.loops[x.loop_id].step != 1 || ir.loops[y.loop_id].step != 1 {
        return Err(None);
    }
    if !coarsenable(ir, deps, &base.grid, root) {
        return Err(None);
    }
    let (xv, yv) = (
        ir.loops[x.loop_id].var.as_str(),
        ir.loops[y.loop_id].var.as_str(),
    );
    let arrays = nest_arrays(ir, root, |_| true);
    let Some(widest) = arrays.iter().map(|(_, e)| e.size()).max() else {
        return Err(None);
    };
    let width = (VECTOR_TILE_BYTES / widest.max(1)).clamp(2, 4);
    let atomics = atomic_targets(ir);
    let mut out = Words {
        width,
        rows: width,
        arrays: Vec::new(),
        rejected: Vec::new(),
    };
    // Whether an array is accessed along y and strided along x (the access the tile is for: a
    // gather, or a scatter when it is the store), and whether one such is read.
    let (mut across, mut gathers) = (false, false);
    // The first such array left out for a condition.
    let mut conditional_across: Option<String> = None;
    for (name, elem) in arrays {
        let refs = nest_refs(ir, root, name);
        let (loads, stores) = (
            refs.iter().any(|a| a.reads()),
            refs.iter().any(|a| a.writes()),
        );
        let along = |v: &str| refs.iter().all(|a| x_offset(a, v).is_some());
        let conditional = refs
            .iter()
            .find(|a| ir.stmts.get(a.stmt.index()).is_some_and(|s| s.conditional));
        let why = rejection(&refs, name, &atomics)
            .or_else(|| {
                conditional.map(|a| WordsRejection::Conditional {
                    access: ir.fmt_access(a.id),
                })
            })
            .or_else(|| {
                (!along(xv) && !along(yv)).then(|| {
                    // A reference along neither direction; else the references mix both.
                    let neither = refs
                        .iter()
                        .find(|a| x_offset(a, xv).is_none() && x_offset(a, yv).is_none());
                    let (a, along) = match neither {
                        Some(a) => (a, Along::XOrY),
                        None => (
                            refs.iter()
                                .find(|a| x_offset(a, xv).is_none())
                                .unwrap_or(&refs[0]),
                            Along::YNotX,
                        ),
                    };
                    WordsRejection::NotConsecutive {
                        access: ir.fmt_access(a.id),
                        along,
                    }
                })
            });
        let strided_x = refs
            .iter()
            .any(|a| a.subscripts.iter().flatten().any(|p| p.mentions(xv)));
        if let Some(why) = why {
            if let (WordsRejection::Conditional { access }, true, None) = (
                &why,
                !along(xv) && along(yv) && strided_x,
                &conditional_across,
            ) {
                conditional_across = Some(access.clone());
            }
            out.rejected.push((name.to_string(), why));
            continue;
        }
        let v = if along(xv) { xv } else { yv };
        if v == yv && strided_x {
            across = true;
            gathers |= loads;
        }
        out.arrays.push(WordArray {
            name: name.to_string(),
            elem,
            loads,
            stores,
            max_lanes: max_lanes(&refs, v, width),
            along_y: v == yv,
        });
    }
    if across {
        Ok(Transposed {
            words: out,
            gathers,
        })
    } else {
        Err(conditional_across.map(|access| NoWords::ConditionalTile { access }))
    }
}

/// The arrays (not of structs: their fields interleave) the nest `root` accesses whose element
/// satisfies `keep`, by name.
fn nest_arrays(ir: &Region, root: LoopId, keep: impl Fn(Scalar) -> bool) -> Vec<(&str, Scalar)> {
    let mut v: Vec<(&str, Scalar)> = ir
        .accesses
        .iter()
        .filter(|a| a.loops.first() == Some(&root))
        .filter_map(|a| {
            ir.arrays
                .get(&a.array)
                .filter(|i| i.record.is_none())
                .map(|i| (a.array.as_str(), i.elem))
        })
        .filter(|(_, e)| keep(*e))
        .collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v.dedup();
    v
}

/// The references of the nest `root` to `name`.
fn nest_refs<'r>(ir: &'r Region, root: LoopId, name: &str) -> Vec<&'r crate::ir::Access> {
    ir.accesses
        .iter()
        .filter(|a| a.array == name && a.loops.first() == Some(&root))
        .collect()
}

/// The arrays atomic statements update.
fn atomic_targets(ir: &Region) -> Vec<&str> {
    ir.stmts
        .iter()
        .filter(|s| s.atomic.is_some())
        .filter_map(|s| match &s.target {
            crate::ir::Target::Array(a) => Some(ir.accesses[*a].array.as_str()),
            crate::ir::Target::Scalar(_) => None,
        })
        .collect()
}

/// Why an array cannot be grouped whatever its addresses: updated in place, or read and written.
fn rejection(refs: &[&crate::ir::Access], name: &str, atomics: &[&str]) -> Option<WordsRejection> {
    let (reads, writes) = (
        refs.iter().any(|a| a.reads()),
        refs.iter().any(|a| a.writes()),
    );
    if refs
        .iter()
        .any(|a| a.kind == crate::ir::AccessKind::ReadWrite)
        || atomics.contains(&name)
    {
        Some(WordsRejection::Update)
    } else if reads && writes {
        Some(WordsRejection::ReadAndWritten)
    } else {
        None
    }
}

/// The widest vector load of an array read along `v` with `width` consecutive copies: the
/// span of the offsets one row of it is read at, plus the other copies, rounded down to what
/// OpenCL loads at once (2, 4, 8, 16).
fn max_lanes(refs: &[&crate::ir::Access], v: &str, width: u32) -> u32 {
    // The offsets each row of the array is read at (rows: the other subscripts).
    let mut rows: Vec<(Vec<String>, i64, i64)> = Vec::new();
    for a in refs.iter().filter(|a| a.reads()) {
        let Some((row, c)) = x_offset(a, v) else {
            continue;
        };
        let mut key: Vec<String> = a.subscripts[..a.subscripts.len() - 1]
            .iter()
            .flatten()
            .map(|p| p.to_c())
            .collect();
        key.push(row);
        match rows.iter_mut().find(|r| r.0 == key) {
            Some(r) => {
                r.1 = r.1.min(c);
                r.2 = r.2.max(c);
            }
            None => rows.push((key, c, c)),
        }
    }
    let span = rows
        .iter()
        .map(|(_, lo, hi)| (hi - lo + 1) as u32 + width - 1)
        .max()
        .unwrap_or(width);
    [16u32, 8, 4, 2]
        .into_iter()
        .find(|&n| n <= span)
        .unwrap_or(2)
        .min(MAX_LANES)
}

/// [`decide`] for 8- and 16-bit arrays (seed 004).
fn short_words(
    ir: &Region,
    deps: &DepInfo,
    base: &Schedule,
    ilp: Coarsening,
) -> Result<Words, NoWords> {
    let root = base.root;
    let arrays = nest_arrays(ir, root, is_short_word);
    if arrays.is_empty() {
        return Err(NoWords::NoShortWords);
    }
    let Some(x) = base.grid.iter().find(|g| g.dim == 0) else {
        return Err(NoWords::NoUnitStrideX);
    };
    if ir.loops[x.loop_id].step != 1 {
        return Err(NoWords::NoUnitStrideX);
    }
    if !coarsenable(ir, deps, &base.grid, root) {
        return Err(NoWords::NotCoarsenable);
    }
    let xv = ir.loops[x.loop_id].var.as_str();
    let narrowest = arrays.iter().map(|(_, e)| e.size()).min().unwrap_or(1);
    let width = WORD_BYTES / narrowest;
    if base.shape.block[0] % width != 0 {
        return Err(NoWords::Block(base.shape.block[0]));
    }
    let atomics = atomic_targets(ir);
    let mut out = Words {
        width,
        rows: 1,
        arrays: Vec::new(),
        rejected: Vec::new(),
    };
    for (name, elem) in arrays {
        let refs = nest_refs(ir, root, name);
        let (loads, stores) = (
            refs.iter().any(|a| a.reads()),
            refs.iter().any(|a| a.writes()),
        );
        let why = rejection(&refs, name, &atomics).or_else(|| {
            refs.iter().find(|a| x_offset(a, xv).is_none()).map(|a| {
                WordsRejection::NotConsecutive {
                    access: ir.fmt_access(a.id),
                    along: Along::X,
                }
            })
        });
        if let Some(why) = why {
            out.rejected.push((name.to_string(), why));
            continue;
        }
        out.arrays.push(WordArray {
            name: name.to_string(),
            elem,
            loads,
            stores,
            max_lanes: max_lanes(&refs, xv, width),
            along_y: false,
        });
    }
    if out.arrays.is_empty() {
        return Err(NoWords::AllRejected);
    }
    // A loop-free nest on a CPU device: its OpenCL compiler already vectorises such a body
    // across work-items, and the grouped copies (a vector per work-item, an edge path) stop it.
    // PoCL, kernel time against the naive kernel, one run each: a 3×3 u8 blur 0.11×, a `short`
    // sharpen 0.80×, a u8 threshold 0.27× with words; the 5×5 u8 Gauss filter, whose
    // sequential filter loops PoCL does not vectorise across, 2.8× with them.
    if ilp.cpu && !ilp.words_asked && !super::has_inner_loop(ir, base) {
        return Err(NoWords::LoopFreeOnCpu);
    }
    Ok(out)
}

/// The constant offset `c` along x of an access whose last subscript is `x + r + c` (`r` free
/// of x and of constants: the row, printed) and whose other subscripts do not mention x.
fn x_offset(a: &crate::ir::Access, x: &str) -> Option<(String, i64)> {
    let subs: Vec<&crate::ir::Poly> = a
        .subscripts
        .iter()
        .map(|s| s.as_ref())
        .collect::<Option<_>>()?;
    let (last, rest) = subs.split_last()?;
    if rest.iter().any(|p| p.mentions(x)) {
        return None;
    }
    let (coef, other) = last.split(x)?;
    if coef.as_const() != Some(1) {
        return None;
    }
    // The rest may hold other iterators (the row's `di`): only its constant is the offset.
    let c = other.constant_term();
    let row = other.sub(&crate::ir::Poly::constant(c))?;
    Some((row.to_c(), c))
}

/// The candidate schedule with short words: the unstaged `baseline` with `width` consecutive
/// outputs along x per work-item, and `rows` consecutive along y (a transposed vector tile;
/// its block grown by both so that the launched block is the baseline's).
pub fn tile(ir: &Region, deps: &DepInfo, baseline: &Schedule, ilp: Coarsening) -> Option<Schedule> {
    let mut s = baseline.clone();
    // Decided on the launched block: the grown one must stay a multiple of the width.
    let w = decide(ir, deps, baseline, ilp).ok()?;
    s.shape.block[0] *= w.width;
    s.shape.block[1] *= w.rows;
    s.shape = s.shape.with_tile(w.rows, w.width);
    s.shape.layout = super::ColLayout::Contiguous;
    // The grouped copies run only where every output is in range: the unguarded copy of a
    // whole tile.
    s.full_tile_path = true;
    s.words = Some(w);
    Some(s)
}

/// The grouping of a staged tile's cooperative copies (global memory ↔ the tile): each
/// work-item moves [`TileWords::width`] consecutive elements of a tile row with one vector load
/// and one vector store (4 bytes) instead of one element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileWords {
    /// Consecutive elements of a tile row per vector access ([`WORD_BYTES`] bytes).
    pub width: u32,
    /// Every vector starts at a multiple of the width in its array and in the tile (with
    /// word-aligned buffers): the tile's global start along x, the array's row pitch and the
    /// tile's row length are multiples of it. Otherwise some vectors are not word-aligned:
    /// OpenCL's `vloadn`/`vstoren` need only the element's alignment, CUDA's vector types are
    /// taken where the address is aligned at run time, element accesses elsewhere.
    pub aligned: bool,
}

/// Why a staged short-word tile is copied one element per work-item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TileWordsRejection {
    /// The tile holds one field of an array of structs or one residue of an interleaved
    /// dimension: consecutive elements of a tile row are not adjacent in global memory.
    Strided,
    /// The tile is stored transposed: consecutive elements of a global row are not adjacent in
    /// the tile.
    Transposed,
    /// A tile row holds fewer elements than one vector.
    Narrow { extent: u32, width: u32 },
    /// The tile's global start along x is `offset` elements past a multiple of the width in
    /// every block: every vector would straddle two words.
    Unaligned { offset: i64, width: u32 },
}

impl fmt::Display for TileWordsRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileWordsRejection::Strided => write!(
                f,
                "its tile holds a field or a residue (AoS → SoA): a tile row is not adjacent in global memory"
            ),
            TileWordsRejection::Transposed => write!(
                f,
                "its tile is stored transposed: a global row is not adjacent in the tile"
            ),
            TileWordsRejection::Narrow { extent, width } => write!(
                f,
                "its tile rows hold {} elements, fewer than a vector of {}",
                extent, width
            ),
            TileWordsRejection::Unaligned { offset, width } => write!(
                f,
                "its tile starts {} element{} past a multiple of {} along x (unaligned): every vector would straddle two words",
                offset,
                if *offset == 1 { "" } else { "s" },
                width
            ),
        }
    }
}

/// The grouping of the cooperative copies of staged tile `a` of a kernel whose blocks are
/// `block` (the logical block, whose x extent places the tile's origins): `None` for a tile of
/// 32- or 64-bit elements, else the width or why not.
///
/// The width is [`WORD_BYTES`] per vector (4 lanes of 8 bits, 2 of 16). A tile row of any length
/// is grouped: the elements of a row past its last whole vector, and those outside the range
/// the program touches, are copied one by one under their guards. Refused: tiles whose rows are
/// not adjacent in global memory or in the tile, rows narrower than a vector, and tiles whose
/// global start along x is a constant non-multiple of the width in every block (`j` from 0 with
/// a halo of 1: each vector would straddle two words; CUDA would take its element path
/// everywhere).
pub fn tile_copy(
    ir: &Region,
    a: &crate::schedule::stage::StagedArray,
    block: [u32; 3],
) -> Option<Result<TileWords, TileWordsRejection>> {
    use crate::schedule::stage::Primary;
    if !is_short_word(a.elem) {
        return None;
    }
    let width = WORD_BYTES / a.elem.size();
    let x = a.dims.last()?;
    if a.field.is_some() || a.interleave.is_some() {
        return Some(Err(TileWordsRejection::Strided));
    }
    if a.transposed {
        return Some(Err(TileWordsRejection::Transposed));
    }
    if x.extent < width {
        return Some(Err(TileWordsRejection::Narrow {
            extent: x.extent,
            width,
        }));
    }
    // The tile's global start along x: a constant offset past a multiple of the width in every
    // block, or not known to be.
    let w = width as i64;
    let start = match &x.primary {
        Primary::Fixed => Some(x.lo),
        Primary::Grid { dim, min } => {
            let b = block.get(*dim as usize).copied().unwrap_or(1) as i64;
            min.as_const().filter(|_| b % w == 0).map(|m| m + x.lo)
        }
        Primary::Strip => None,
    };
    if let Some(off) = start.map(|s| s.rem_euclid(w)).filter(|&o| o != 0) {
        return Some(Err(TileWordsRejection::Unaligned { offset: off, width }));
    }
    let pitch_ok = a.dims.len() == 1
        || ir
            .arrays
            .get(&a.name)
            .and_then(|i| i.extents.last().cloned().flatten())
            .and_then(|p| p.as_const())
            .is_some_and(|p| p % w == 0);
    let aligned = start.is_some() && pitch_ok && a.row_len % width == 0;
    Some(Ok(TileWords { width, aligned }))
}

#[cfg(test)]
mod tests;
