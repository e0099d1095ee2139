//! CUDA C++ kernel printer.
