//! The device runtimes, in-process, used by tests and by the commands that run generated code:
//! building OpenCL C on the installed OpenCL platform (`opencl3`), compiling CUDA C++ with NVRTC
//! (cudarc), listing devices; `run`, `tune` and `bench` replay a program's kernels on a device from
//! its own data.
//!
//! A missing runtime is not an error: builds report `Skipped(reason)`. Tests print `SKIP: …` and
//! pass then, unless [`require_devices`] (`ACCSHARE_REQUIRE_DEVICES=1`).

pub mod args;
pub mod bench;
pub mod clbuild;
pub mod cuda_run;
pub mod devices;
pub mod measure;
pub mod nvrtc;
pub mod run;
pub mod tune;

/// True if `ACCSHARE_REQUIRE_DEVICES=1`: a missing runtime must fail the tests.
pub fn require_devices() -> bool {
    std::env::var("ACCSHARE_REQUIRE_DEVICES").is_ok_and(|v| v == "1")
}
