//! Transformations between the partition engine and the kernel IR (`--opt share`).
//!
//! [`stage`] decides, for one kernel, which of the arrays the engine chose can be staged in
//! shared memory exactly (tile shapes, origins, the strip-mined loop); the kernel builder
//! (`kernel::lower`) then emits the cooperative loads, the barriers and the rewritten references.

pub mod stage;

/// How much the compiler optimizes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    /// The baseline translation: every array in global memory.
    #[default]
    Naive,
    /// Stage the partitions the engine chose in shared memory.
    Share,
}
