//! accshare: pragma-directed shared-memory-centric optimization of C loop nests for GPUs.
//!
//! See `ARCHITECTURE.md` for the code map and the invariants of each layer.

pub mod analysis;
pub mod back;
pub mod cli;
pub mod diag;
pub mod driver;
pub mod explain;
pub mod front;
pub mod ir;
pub mod kernel;
pub mod model;
pub mod partition;
pub mod runtime;
pub mod schedule;
pub mod sim;
pub mod vocab;
