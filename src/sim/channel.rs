//! Memory channels: how the global traffic of the blocks that run together spreads over the
//! DRAM channels (partitions), the seed paper's *channel conflicts* (§3.3.1, §4.2.3) and NVIDIA's
//! *partition camping*.
//!
//! Global memory is interleaved over `count` channels, `interleave_bytes` at a time (the
//! platform file's `[channels]`: `channel = (address / interleave) % count`). The blocks that
//! camp on a channel are the ones resident together, and those are the first *wave* of a
//! launch: the first `SMs × resident blocks per SM` blocks in launch order (the hardware
//! dispatches blocks in increasing linear index). Each of those blocks' sector streams (per warp
//! request, in program order, [`super::cache::BlockStream`]) is cut into *steps*: step `r` is
//! requests `r·w .. (r+1)·w` of every block of the wave, `w` the warps of a block (a block's
//! warps issue their requests together; the simulator records them warp after warp), the
//! requests that are in flight together when the blocks advance at the same pace. The channel loads of a step are the sectors of its
//! requests per channel; a step's time is its busiest channel's load, against the mean load a
//! channel would carry if the step were spread evenly. The **imbalance** of the wave is
//! `Σ_steps max_channel / Σ_steps (sectors / count)`: 1 when every step spreads evenly, `count`
//! when every step hits a single channel. The time estimate charges it on the DRAM term
//! (`channel = dram × imbalance`, `docs/model.md`).
//!
//! The sectors counted are the ones the requests touch (before any L1): on the platforms with a
//! channel model (GCN, Kepler) each channel has its own L2 slice, so this is the traffic a
//! channel's L2 slice and controller see.

use crate::model::platform::Channels;

use super::cache::BlockStream;

/// The first wave's traffic per channel, and the step-wise busiest and mean loads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChannelCounts {
    /// Blocks in the wave (simulated ones: when sampling, those of the wave that ran).
    pub wave_blocks: u64,
    /// Sectors per channel over the wave.
    pub sectors: Vec<u64>,
    /// Σ over steps of the busiest channel's sectors.
    pub busiest: u64,
    /// Σ over steps of the sectors (the mean load of a step is this over the channel count).
    pub total: u64,
}

impl ChannelCounts {
    /// Busiest channel load over the mean, step by step (1.0 without traffic).
    pub fn imbalance(&self) -> f64 {
        let n = self.sectors.len().max(1) as f64;
        if self.total == 0 {
            1.0
        } else {
            self.busiest as f64 * n / self.total as f64
        }
    }

    /// Adds another launch's counts (same channel count).
    pub fn add(&mut self, o: &ChannelCounts) {
        if self.sectors.len() < o.sectors.len() {
            self.sectors.resize(o.sectors.len(), 0);
        }
        for (a, b) in self.sectors.iter_mut().zip(&o.sectors) {
            *a += b;
        }
        self.wave_blocks += o.wave_blocks;
        self.busiest += o.busiest;
        self.total += o.total;
    }
}

/// The channel counts of the blocks of `streams` (each with its linear block index, in launch
/// order) that are in the first wave (`wave` blocks); `sector` is the sector size in bytes,
/// `window` the requests of a block in flight together (its warps).
pub fn wave_counts(
    streams: &[(u64, &BlockStream)],
    wave: u64,
    sector: u32,
    window: usize,
    ch: &Channels,
) -> ChannelCounts {
    let window = window.max(1);
    let n = ch.count.get() as usize;
    let mut c = ChannelCounts {
        sectors: vec![0; n],
        ..Default::default()
    };
    let wave_streams: Vec<&BlockStream> = streams
        .iter()
        .filter(|(b, _)| *b < wave)
        .map(|(_, s)| *s)
        .collect();
    c.wave_blocks = wave_streams.len() as u64;
    let steps = wave_streams
        .iter()
        .map(|s| s.ends.len().div_ceil(window))
        .max()
        .unwrap_or(0);
    let mut load = vec![0u64; n];
    for r in 0..steps {
        load.iter_mut().for_each(|x| *x = 0);
        for s in &wave_streams {
            let (first, last) = (r * window, ((r + 1) * window).min(s.ends.len()));
            if first >= last {
                continue;
            }
            let from = if first == 0 {
                0
            } else {
                s.ends[first - 1] as usize
            };
            for &e in &s.sectors[from..s.ends[last - 1] as usize] {
                let addr = (e >> 1) * sector as u64;
                load[ch.of(addr) as usize] += 1;
            }
        }
        let sum: u64 = load.iter().sum();
        c.total += sum;
        c.busiest += load.iter().copied().max().unwrap_or(0);
        for (a, b) in c.sectors.iter_mut().zip(&load) {
            *a += b;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    fn ch(count: u32) -> Channels {
        Channels {
            count: NonZeroU32::new(count).unwrap(),
            interleave_bytes: NonZeroU32::new(256).unwrap(),
        }
    }

    fn stream(addrs: &[&[u64]]) -> BlockStream {
        let mut s = BlockStream::default();
        for req in addrs {
            s.push(req.iter().map(|a| (a / 64) << 1), usize::MAX);
        }
        s
    }

    #[test]
    fn camping_and_spreading() {
        // Four blocks whose every request hits the same channel: imbalance = count.
        let same: Vec<BlockStream> = (0..4)
            .map(|b| stream(&[&[b * 2048], &[b * 2048 + 64]]))
            .collect();
        let v: Vec<(u64, &BlockStream)> = same
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u64, s))
            .collect();
        let c = wave_counts(&v, 4, 64, 1, &ch(8));
        // A window of two requests: the same.
        assert_eq!(wave_counts(&v, 4, 64, 2, &ch(8)).imbalance(), 8.0);
        assert_eq!(c.wave_blocks, 4);
        assert_eq!(c.imbalance(), 8.0);
        assert_eq!(c.sectors[0], 8);
        // Blocks 256 bytes apart: one channel each, spread over 4 of 8 channels.
        let spread: Vec<BlockStream> = (0..8).map(|b| stream(&[&[b * 256]])).collect();
        let v: Vec<(u64, &BlockStream)> = spread
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u64, s))
            .collect();
        assert_eq!(wave_counts(&v, 8, 64, 1, &ch(8)).imbalance(), 1.0);
        // Only the first wave counts.
        assert_eq!(wave_counts(&v, 2, 64, 1, &ch(8)).wave_blocks, 2);
        assert_eq!(wave_counts(&v, 2, 64, 1, &ch(8)).imbalance(), 4.0);
        // One block whose two requests go to two channels: one step of two requests spreads
        // them (imbalance 8 × 1 / 2), two steps of one do not.
        let one = [stream(&[&[0], &[256]])];
        let v: Vec<(u64, &BlockStream)> = vec![(0, &one[0])];
        assert_eq!(wave_counts(&v, 1, 64, 1, &ch(8)).imbalance(), 8.0);
        assert_eq!(wave_counts(&v, 1, 64, 2, &ch(8)).imbalance(), 4.0);
    }
}
