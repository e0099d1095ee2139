//! Assembles the output files: the user's text with regions replaced, plus the kernels.
