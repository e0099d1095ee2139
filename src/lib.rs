//! accshare: pragma-directed shared-memory-centric optimization of C loop nests for GPUs.
//!
//! See `ARCHITECTURE.md` for the code map and the invariants of each layer.

// rust-version 1.85 (for opencl3) lets clippy suggest `Option::is_none_or` (Rust 1.82) where the
// code says `map_or(true, …)` or `!….is_some_and(!…)`. The remaining sites are in src/kernel/,
// src/transform/ and src/partition/, which are being restructured on another branch: fix them
// there and remove this.
#![allow(clippy::unnecessary_map_or, clippy::nonminimal_bool)]

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
pub mod sim;
pub mod transform;
