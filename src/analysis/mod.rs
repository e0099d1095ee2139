//! Analyses of the loop-nest IR: dependences (which loops may run in parallel), and later reuse
//! and coalescing.
//!
//! Invariant: analyses only read the IR; their results are data that later stages consume.

pub mod dependence;
pub mod mapping;
