//! Data dependences of a compute region.
