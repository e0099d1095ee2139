//! Host code for the build step (OpenCL C host code, CUDA runtime host code).
