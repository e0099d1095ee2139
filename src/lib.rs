//! accshare: pragma-directed shared-memory-centric optimization of C loop nests for GPUs.
//!
//! See `ARCHITECTURE.md` for the code map and the invariants of each layer.

pub mod diag;
pub mod front;
pub mod kernel;
pub mod back;
