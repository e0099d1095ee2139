//! Back ends: print the kernel IR as OpenCL C or CUDA C++, and the host plan as C host code.
//!
//! Invariant: back ends never decide. Everything they print (shapes, guards, barriers, local
//! arrays, indices) is in the kernel IR; they only choose the target's spelling.

pub mod c_like;
pub mod cuda;
pub mod headers;
pub mod host;
pub mod opencl;
pub mod output;
/// Test support of the back ends' unit tests (not part of the library): hand-built kernel
/// modules for snapshot and compilation tests (`tests/samples.rs`).
#[cfg(test)]
pub(crate) mod tests {
    pub(crate) mod samples;
}

/// The kernel language (and host API) of the output.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// OpenCL C 1.2 kernels, C host code on the OpenCL API: `FILE.c` + `FILE.cl`.
    OpenCl,
    /// CUDA C++ kernels, launch functions and CUDA runtime calls in `FILE.cu`, C host code
    /// calling them in `FILE.c`.
    Cuda,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::OpenCl => "opencl",
            Target::Cuda => "cuda",
        }
    }

    /// Extension of the host translation unit (C for both targets).
    pub fn host_extension(self) -> &'static str {
        "c"
    }

    /// Extension of the file written next to it: the kernels (`cl`), or the kernels and the
    /// CUDA side of the host code (`cu`).
    pub fn device_extension(self) -> &'static str {
        match self {
            Target::OpenCl => "cl",
            Target::Cuda => "cu",
        }
    }
}
