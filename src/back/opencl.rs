//! OpenCL C 1.2 kernel printer.
