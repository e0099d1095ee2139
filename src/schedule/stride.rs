//! Grid-stride reduction kernels: a kernel that reduces over its grid loops (`reduction(+:s)`
//! on a parallel loop, NPB's norms, dot products) finishes with a tree in local memory per
//! work-group and one partial result per work-group that the host combines. With one element
//! per work-item, a kernel over `n` elements runs `n / 256` trees of `log2(256)` barrier steps
//! and writes as many partials: on this project's PoCL device a quarter of NPB MG's class-A time
//! was `norm2u3`'s trees. CUB, Thrust and every hand-written GPU reduction instead launch about
//! one wave of work-groups and let each work-item accumulate many elements first (the
//! *grid-stride loop*), so that the tree and the partial are paid once per resident work-group.
//!
//! accshare does the same: the outermost grid loop of such a kernel becomes
//! `for (t = global id; the iterator of t is in range; t += work-groups × block)` around the
//! work-item's iteration (the other grid loops keep one iteration per work-item, so accesses
//! along x stay coalesced), and the host launches at most [`GridStride::groups_per_unit`]
//! work-groups per compute unit of the device it runs on (`CL_DEVICE_MAX_COMPUTE_UNITS`, the
//! CUDA multiprocessor count, asked at run time: one binary fills a 2-core CPU and a 132-SM GPU
//! alike), the work-groups one compute unit holds at once on the platform compiled for (its
//! threads over the block's, at most its resident blocks; registers and shared memory do not
//! limit these kernels: one accumulator per reduction and one tree). Where
//! the grid needs fewer work-groups than that, the loop runs once and the launch is the one
//! without it.
//!
//! Where it applies ([`decide`]): under `--opt share`, to kernels with a reduction of a grid
//! loop, no staged tile (the loop's trip count differs between the work-items of the last
//! groups, and a staged body's barriers must be reached by all), and no reduction across lanes
//! (whose block is already one output per row). The reduction's order changes with the device
//! (each work-item's partial sum is over a different set of elements), as it already changes
//! with the block: reductions of floating-point values are reordered only where OpenACC's
//! `reduction` clause allows it, which is every reduction of a grid loop.

use super::{OptLevel, Schedule};
use crate::analysis::dependence::DepInfo;
use crate::model::Platform;

/// The outermost grid loop strides over the grid (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridStride {
    /// The grid dimension of the outermost grid loop, whose work-groups the host caps.
    pub dim: u8,
    /// Work-groups launched per compute unit of the device, at most (the whole grid's).
    pub groups_per_unit: u32,
}

impl GridStride {
    /// The work-groups launched per dimension, from those the grid needs (`groups`) and the
    /// device's compute units: dimension [`Self::dim`] is cut so that the whole grid has at most
    /// `units ×` [`Self::groups_per_unit`] work-groups (at least one along it). What the host
    /// code computes (`accshare_stride_groups` in the preludes) and the simulator replays.
    pub fn launched(&self, groups: [u64; 3], units: u32) -> [u64; 3] {
        let d = usize::from(self.dim.min(2));
        let cap = u64::from(units.max(1)) * u64::from(self.groups_per_unit.max(1));
        let others: u64 = (0..3)
            .filter(|&o| o != d)
            .map(|o| groups[o].max(1))
            .product();
        let mut out = groups;
        out[d] = groups[d].min((cap / others).max(1));
        out
    }
}

/// The grid stride of schedule `s` of a kernel compiled with `opt` for platform `p`, or `None`
/// where it does not apply (see the module's documentation).
pub fn decide(deps: &DepInfo, s: &Schedule, opt: OptLevel, p: &Platform) -> Option<GridStride> {
    let reduces = s
        .grid
        .iter()
        .any(|g| !deps.loops[g.loop_id].reductions.is_empty());
    let outermost = s.grid.first()?;
    if opt != OptLevel::Share || !reduces || s.staged().is_some() || s.lanes.is_some() {
        return None;
    }
    let threads: u32 = s.launch_block().iter().product();
    Some(GridStride {
        dim: outermost.dim,
        groups_per_unit: (p.max_threads_per_sm / threads.max(1))
            .min(p.max_blocks_per_sm)
            .max(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stride_dimension_takes_what_the_others_leave() {
        let s = GridStride {
            dim: 1,
            groups_per_unit: 8,
        };
        // 2 units × 8 = 16 groups: 4 along x leave 4 along y.
        assert_eq!(s.launched([4, 1000, 1], 2), [4, 4, 1]);
        // Fewer needed than the cap: unchanged.
        assert_eq!(s.launched([4, 3, 1], 2), [4, 3, 1]);
        // The others alone exceed the cap: one along the stride dimension.
        assert_eq!(s.launched([100, 1000, 1], 2), [100, 1, 1]);
        let x = GridStride {
            dim: 0,
            groups_per_unit: 8,
        };
        assert_eq!(x.launched([3907, 1, 1], 132), [1056, 1, 1]);
    }
}
