//! Why an array the partition engine chose stays in global memory (the staging pass's reasons;
//! `explain` prints them after "not staged by --opt share:").

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Unstaged {
    /// The kernel has no grid loop.
    SingleThread,
    /// The engine's block has a different number of dimensions than the grid, or a zero extent.
    BlockMismatch,
    /// The engine's block has more work-items than staged code supports.
    BlockTooLarge {
        threads: u64,
        max: u64,
    },
    NotInRegion,
    NotReferenced,
    Atomic,
    /// Written, interleaved along its last dimension (`x[stride*i + k]`), and referenced
    /// through `subscript`, which is not `stride` times the same grid index plus a constant:
    /// its references could name one element through two residues.
    WrittenInterleavedStrides {
        subscript: String,
        stride: i64,
    },
    /// Written, and its references name different elements.
    WrittenThroughDifferentElements,
    /// Written through `subscript`, which is not a grid index plus a constant.
    WrittenNotPerWorkItem {
        subscript: String,
    },
    /// Written at an element that does not depend on every grid index.
    WrittenShared,
    InnerExtentUnknown,
    ExtentUnknownConditional,
    NotEveryDimension,
    /// A subscript of `access` is not affine.
    NonAffineAccess {
        access: String,
    },
    NonAffineSubscript {
        subscript: String,
    },
    SymbolicCoefficient {
        subscript: String,
    },
    NotGridPlusConstants {
        subscript: String,
    },
    /// `iterator` in `subscript` is neither a grid index, the strip-mined loop nor a window.
    NotTileable {
        iterator: String,
        subscript: String,
    },
    /// `subscript` depends on `name`, which is not an iterator of the kernel.
    NotAnIterator {
        subscript: String,
        name: String,
    },
    TwoStripLoops,
    OtherStripLoop,
    GridRange,
    StripRange,
    /// The target's local memory is its global memory (a CPU device).
    LocalMemoryIsGlobal,
    /// On `platform` (its L1 caches global loads) the model estimates the staged kernel less
    /// than [`crate::schedule::gain::MARGIN`] faster than the unstaged one (`speedup`: the
    /// unstaged estimate over the staged one).
    NoGain {
        platform: String,
        speedup: f64,
    },
    /// The tiles of the array (`bytes`) do not fit in `limit` bytes beside the others.
    DoesNotFit {
        tiles: usize,
        bytes: u64,
        limit: u64,
    },
}

impl fmt::Display for Unstaged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Unstaged::*;
        match self {
            SingleThread => f.write_str("the kernel runs on a single thread"),
            BlockMismatch => f.write_str("the engine's block does not match the kernel's grid mapping"),
            BlockTooLarge { threads, max } => write!(
                f,
                "the engine's block has {threads} threads, more than the {max} the staged code supports"
            ),
            NotInRegion => f.write_str("not an array of the region"),
            NotReferenced => f.write_str("not referenced in this kernel"),
            Atomic => f.write_str("it is accessed by `#pragma acc atomic`: atomics stay in global memory"),
            WrittenInterleavedStrides { subscript, stride } => write!(
                f,
                "written in the kernel and interleaved by {stride} along its last dimension, but referenced through `{subscript}`, which is not {stride} times the same grid index plus a constant: a written residue's tile needs every reference to name its elements alone"
            ),
            WrittenThroughDifferentElements => f.write_str(
                "written in the kernel, and its references name different elements: a written tile needs every reference to name the work-item's own element",
            ),
            WrittenNotPerWorkItem { subscript } => write!(
                f,
                "written in the kernel through `{subscript}`, which is not a grid index plus a constant: a written tile needs one element per work-item"
            ),
            WrittenShared => f.write_str(
                "written in the kernel at an element that does not depend on every grid index: work-items would share it",
            ),
            InnerExtentUnknown => f.write_str("an inner extent of the array is unknown"),
            ExtentUnknownConditional => f.write_str(
                "its extent is unknown and the kernel has conditional code: the tile loads could leave the array",
            ),
            NotEveryDimension => f.write_str("a reference does not subscript every dimension"),
            NonAffineAccess { access } => write!(f, "a subscript is not affine ({access})"),
            NonAffineSubscript { subscript } => write!(f, "subscript `{subscript}` is not affine"),
            SymbolicCoefficient { subscript } => {
                write!(f, "subscript `{subscript}` has a symbolic coefficient")
            }
            NotGridPlusConstants { subscript } => {
                write!(f, "subscript `{subscript}` is not a grid index plus constants")
            }
            NotTileable { iterator, subscript } => write!(
                f,
                "`{iterator}` in subscript `{subscript}` is neither a grid index, a strip-mined loop nor a short constant loop"
            ),
            NotAnIterator { subscript, name } => write!(
                f,
                "subscript `{subscript}` depends on `{name}`, which is not an iterator of the kernel"
            ),
            TwoStripLoops => f.write_str("its references are strip-mined along two loops"),
            OtherStripLoop => {
                f.write_str("another staged array is strip-mined along a different loop")
            }
            GridRange => f.write_str("the range of a grid index cannot be computed"),
            StripRange => f.write_str("the range of the strip-mined loop cannot be computed"),
            LocalMemoryIsGlobal => f.write_str(
                "the target's local memory is its global memory (a CPU device): a tile saves no memory traffic and its barriers split the work-item loops",
            ),
            NoGain { platform, speedup } => write!(
                f,
                "on {platform} the model estimates the staged kernel {speedup:.2}x as fast as the unstaged one, under the {:.2}x that staging must gain: the L1 serves this reuse (`accshare explain` shows both estimates)",
                crate::schedule::gain::MARGIN
            ),
            DoesNotFit { tiles, bytes, limit } => write!(
                f,
                "its tile{} ({bytes} B) does not fit in {limit} B of shared memory with the others",
                if *tiles > 1 { "s" } else { "" }
            ),
        }
    }
}
