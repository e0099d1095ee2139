//! The global-memory geometry a warp's accesses are counted against: lanes per warp, the
//! transaction unit (sector) and the cache line. A model of the device, read by the coalescing
//! lint (`kernel::lint`) and given by the simulator's platforms.

use super::Platform;

/// Lanes per warp and the sector and line sizes in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WarpMemory {
    pub warp: u32,
    pub sector: u32,
    pub line: u32,
}

impl From<&Platform> for WarpMemory {
    fn from(p: &Platform) -> Self {
        WarpMemory {
            warp: p.warp_size,
            sector: p.sector_bytes,
            line: p.transaction_bytes,
        }
    }
}
