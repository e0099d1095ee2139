//! Target descriptions for the partition engine's profit model (the paper's Table 3 and
//! today's GPUs): see [`platform`].

pub mod device;
pub mod memory;
pub mod platform;

pub use memory::WarpMemory;
pub use platform::{list_platforms, Platform};
