//! Back ends: print the kernel IR as OpenCL C or CUDA C++, and the host plan as C host code.
//!
//! Invariant: back ends never decide. Everything they print (shapes, guards, barriers, local
//! arrays, indices) is in the kernel IR; they only choose the target's spelling.

pub mod c_like;
pub mod cuda;
pub mod host;
pub mod opencl;
pub mod output;
#[cfg(test)]
pub(crate) mod samples;
