//! Analyses of the loop-nest IR: dependences (which loops may run in parallel), and later reuse
//! and coalescing; and of the host code around regions: data bugs (`stale`: stale and
//! uninitialized copies of arrays in data regions).
//!
//! Invariant: analyses only read the IR; their results are data that later stages consume. The
//! one exception is [`interchange`], which, when it proves an interchange legal, has the region
//! lowered again (through `ir::lower`, an earlier stage) and analyzes the result.

pub mod dependence;
pub mod interchange;
pub mod mapping;
pub mod stale;
