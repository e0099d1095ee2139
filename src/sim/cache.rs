//! The caches of the memory model: per-SM L1s and the chip's L2, replayed after a launch.
//!
//! Blocks run on worker threads in any order, so the caches are not simulated while they run.
//! Each simulated block records its *sector stream* instead: per warp request, in program
//! order, the distinct sectors it touches and whether it stores ([`BlockStream`]). After the
//! launch, [`replay`] feeds the streams through the caches in a fixed order, so the counts are
//! the same whatever the number of workers:
//!
//! - block `i` (the `i`-th simulated block, in block-index order) runs on SM `i % sms`;
//! - an SM holds up to `resident` blocks at once (the occupancy); when one finishes, its SM's
//!   next block takes its place;
//! - each step, every SM in turn issues one warp request, taking its resident blocks in
//!   rotation; a request goes through the SM's L1 (loads only, when the platform caches global
//!   loads there; a store invalidates the sector) and its L1 misses and stores through the L2,
//!   which therefore sees all SMs' traffic interleaved request by request.
//!
//! Caches are sectored (a line of `line` bytes holds `line / sector` sectors, filled one by one),
//! set-associative with LRU replacement and a hashed set index. The L2 is write-back and allocates on a store without
//! reading DRAM (NVIDIA's L2 keeps byte masks); dirty sectors are written to DRAM when evicted
//! and at the end of the launch (the cache is flushed: kernels start cold).
//!
//! Memory is bounded: a launch records at most [`STREAM_BUDGET`] sectors; beyond
//! `STREAM_BUDGET / blocks` per block, a block's stream is cut at a request boundary and the
//! counts of the replayed part are scaled to the block's whole traffic (`Replay::coverage`).

use crate::model::platform::Caches;

/// Sectors one launch may record (8 bytes each: 128 MiB).
pub const STREAM_BUDGET: usize = 1 << 24;

/// The sector stream of one block: `sectors[ends[r-1]..ends[r]]` is request `r`; an entry is
/// `sector << 1 | store`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockStream {
    pub sectors: Vec<u64>,
    pub ends: Vec<u32>,
    /// Sectors of requests not recorded (past the per-block budget).
    pub dropped: u64,
}

impl BlockStream {
    /// Records one request's sectors (`sector << 1 | store` each), unless the block's budget
    /// is spent (a block's first request is always recorded: at most 64 sectors).
    pub fn push(&mut self, entries: impl ExactSizeIterator<Item = u64>, cap: usize) {
        let n = entries.len();
        if self.dropped > 0 || (!self.ends.is_empty() && self.sectors.len() + n > cap) {
            self.dropped += n as u64;
            return;
        }
        self.sectors.extend(entries);
        self.ends.push(self.sectors.len() as u32);
    }
}

/// What the caches saw in a launch (before scaling to sampled blocks).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheCounts {
    /// Sectors the warp requests touched (the report's global transactions).
    pub sectors: u64,
    /// Loads served by an L1.
    pub l1_hits: u64,
    /// Sectors that reached the L2 (L1 misses and stores), and those it served.
    pub l2_sectors: u64,
    pub l2_hits: u64,
    /// DRAM sectors read (L2 misses of loads) and written (dirty sectors evicted or flushed).
    pub dram_reads: u64,
    pub dram_writes: u64,
    /// Warp requests that load, and the sum of their latencies (cycles): each waits for its
    /// slowest sector, at the latency of the level that served it ([`Latencies`]).
    pub load_requests: u64,
    pub load_cycles: u64,
}

impl CacheCounts {
    pub fn add(&mut self, o: &CacheCounts) {
        self.sectors += o.sectors;
        self.l1_hits += o.l1_hits;
        self.l2_sectors += o.l2_sectors;
        self.l2_hits += o.l2_hits;
        self.dram_reads += o.dram_reads;
        self.dram_writes += o.dram_writes;
        self.load_requests += o.load_requests;
        self.load_cycles += o.load_cycles;
    }

    pub fn scale(&mut self, f: f64) {
        for x in [
            &mut self.sectors,
            &mut self.l1_hits,
            &mut self.l2_sectors,
            &mut self.l2_hits,
            &mut self.dram_reads,
            &mut self.dram_writes,
            &mut self.load_requests,
            &mut self.load_cycles,
        ] {
            *x = (*x as f64 * f).round() as u64;
        }
    }

    pub fn dram(&self) -> u64 {
        self.dram_reads + self.dram_writes
    }
}

/// A sectored, set-associative LRU cache of `sector`-byte sectors in `line`-byte lines.
#[derive(Clone, Debug)]
pub struct Cache {
    sets: usize,
    ways: usize,
    /// Sectors per line (at most 64).
    per_line: u32,
    /// Per set, `ways` entries, most recently used first: (line tag, valid mask, dirty mask).
    lines: Vec<(u64, u64, u64)>,
    used: Vec<u8>,
}

/// Result of one sector access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub hit: bool,
    /// Dirty sectors of the line this access evicted.
    pub written_back: u32,
}

impl Cache {
    /// `None` when `bytes` is 0 (no cache). Sizes are rounded to what fits: at least one set of
    /// `ways` lines, lines of at least one sector and at most 64.
    pub fn new(bytes: u32, line: u32, ways: u32, sector: u32) -> Option<Cache> {
        if bytes == 0 {
            return None;
        }
        let sector = sector.max(1);
        let line = line.clamp(sector, sector * 64);
        let ways = ways.max(1) as usize;
        let sets = (bytes as usize / (line as usize * ways)).max(1);
        Some(Cache {
            sets,
            ways,
            per_line: line / sector,
            lines: vec![(u64::MAX, 0, 0); sets * ways],
            used: vec![0; sets],
        })
    }

    fn locate(&self, sector: u64) -> (u64, usize, u64) {
        let line = sector / self.per_line as u64;
        let bit = 1u64 << (sector % self.per_line as u64);
        // GPUs hash addresses over cache slices and sets, so that power-of-two strides (rows
        // of a matrix) do not all fall in a few sets: a multiplicative (Fibonacci) hash.
        let h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        (line, (h % self.sets as u64) as usize, bit)
    }

    /// Reads (`write` false) or writes a sector: a hit or a fill, the line moved to the front.
    /// A write marks the sector dirty (write-back, allocated without a read).
    pub fn access(&mut self, sector: u64, write: bool) -> Access {
        let (tag, set, bit) = self.locate(sector);
        let base = set * self.ways;
        let used = self.used[set] as usize;
        let row = &mut self.lines[base..base + self.ways];
        let dirty = if write { bit } else { 0 };
        if let Some(p) = row[..used].iter().position(|e| e.0 == tag) {
            let mut e = row[p];
            let hit = e.1 & bit != 0;
            e.1 |= bit;
            e.2 |= dirty;
            row.copy_within(0..p, 1);
            row[0] = e;
            return Access {
                hit,
                written_back: 0,
            };
        }
        let (n, written_back) = if used < self.ways {
            self.used[set] += 1;
            (used, 0)
        } else {
            (self.ways - 1, row[self.ways - 1].2.count_ones())
        };
        row.copy_within(0..n, 1);
        row[0] = (tag, bit, dirty);
        Access {
            hit: false,
            written_back,
        }
    }

    /// Drops a sector if present (a store passing a write-through, no-allocate L1).
    pub fn invalidate(&mut self, sector: u64) {
        let (tag, set, bit) = self.locate(sector);
        let base = set * self.ways;
        let used = self.used[set] as usize;
        if let Some(e) = self.lines[base..base + used]
            .iter_mut()
            .find(|e| e.0 == tag)
        {
            e.1 &= !bit;
            e.2 &= !bit;
        }
    }

    /// Dirty sectors still held (written back when the launch ends).
    pub fn dirty(&self) -> u64 {
        self.lines.iter().map(|e| e.2.count_ones() as u64).sum()
    }
}

/// Cycles a load waits when an L1 (`[0]`), the L2 (`[1]`) or DRAM (`[2]`) serves it.
pub type Latencies = [u32; 3];

/// Replays the streams of a launch's simulated blocks (in block-index order) through `sms`
/// L1s and one L2, `resident` blocks at a time per SM (see the module documentation).
/// Returns the counts of the replayed requests scaled to every recorded block's whole traffic.
pub fn replay(
    streams: &[BlockStream],
    caches: &Caches,
    sector: u32,
    sms: u32,
    resident: u32,
    latencies: Latencies,
) -> CacheCounts {
    let sms = sms.max(1) as usize;
    let resident = resident.max(1) as usize;
    let mut l1: Vec<Option<Cache>> = (0..sms)
        .map(|_| {
            if caches.l1_global_loads {
                Cache::new(caches.l1_bytes, caches.l1_line, caches.l1_ways, sector)
            } else {
                None
            }
        })
        .collect();
    let mut l2 = Cache::new(caches.l2_bytes, caches.l2_line, caches.l2_ways, sector);
    let mut c = CacheCounts::default();
    // Per SM: its blocks still to start, and the resident ones (block, next request).
    let mut queued: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); sms];
    for i in 0..streams.len() {
        queued[i % sms].push_back(i);
    }
    let mut running: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sms];
    let mut turn = vec![0usize; sms];
    let refill = |q: &mut std::collections::VecDeque<usize>, r: &mut Vec<(usize, usize)>| {
        while r.len() < resident {
            match q.pop_front() {
                Some(b) => r.push((b, 0)),
                None => break,
            }
        }
    };
    for s in 0..sms {
        refill(&mut queued[s], &mut running[s]);
    }
    let mut live = running.iter().filter(|r| !r.is_empty()).count();
    while live > 0 {
        for s in 0..sms {
            if running[s].is_empty() {
                continue;
            }
            let k = turn[s] % running[s].len();
            let (b, r) = running[s][k];
            let st = &streams[b];
            let from = if r == 0 { 0 } else { st.ends[r - 1] as usize };
            let to = st.ends.get(r).map_or(from, |&e| e as usize);
            // The level that served the request's slowest loaded sector (None: no load).
            let mut level: Option<usize> = None;
            for &e in &st.sectors[from..to] {
                let (sec, store) = (e >> 1, e & 1 == 1);
                c.sectors += 1;
                if let Some(l1) = &mut l1[s] {
                    if store {
                        l1.invalidate(sec);
                    } else if l1.access(sec, false).hit {
                        c.l1_hits += 1;
                        level = level.max(Some(0));
                        continue;
                    }
                }
                c.l2_sectors += 1;
                match &mut l2 {
                    Some(l2) => {
                        let a = l2.access(sec, store);
                        c.dram_writes += a.written_back as u64;
                        if a.hit {
                            c.l2_hits += 1;
                            if !store {
                                level = level.max(Some(1));
                            }
                        } else if !store {
                            c.dram_reads += 1;
                            level = level.max(Some(2));
                        }
                    }
                    None if store => c.dram_writes += 1,
                    None => {
                        c.dram_reads += 1;
                        level = level.max(Some(2));
                    }
                }
            }
            if let Some(l) = level {
                c.load_requests += 1;
                c.load_cycles += latencies[l] as u64;
            }
            if r + 1 >= st.ends.len() {
                running[s].remove(k);
                refill(&mut queued[s], &mut running[s]);
                if running[s].is_empty() {
                    live -= 1;
                }
            } else {
                running[s][k].1 = r + 1;
                turn[s] = k + 1;
            }
        }
    }
    if let Some(l2) = &l2 {
        c.dram_writes += l2.dirty();
    }
    // Blocks cut at the budget: the replayed part stands for the whole.
    let dropped: u64 = streams.iter().map(|s| s.dropped).sum();
    if dropped > 0 && c.sectors > 0 {
        let f = (c.sectors + dropped) as f64 / c.sectors as f64;
        c.scale(f);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(reqs: &[&[u64]]) -> BlockStream {
        let mut s = BlockStream::default();
        for r in reqs {
            s.push(r.iter().copied(), usize::MAX);
        }
        s
    }

    #[test]
    fn lru_hits_and_misses_on_a_hand_made_stream() {
        // One set of 2 ways of 4-sector lines (sector 32, line 128, 256 bytes): pure LRU.
        let mut c = Cache::new(256, 128, 2, 32).unwrap();
        let hit = |c: &mut Cache, s| c.access(s, false).hit;
        assert!(!hit(&mut c, 0)); // line 0
        assert!(hit(&mut c, 0));
        assert!(!hit(&mut c, 1)); // same line, another sector: a sector miss
        assert!(hit(&mut c, 1));
        assert!(!hit(&mut c, 8)); // line 2
        assert!(hit(&mut c, 0)); // line 0 is the most recent now
        assert!(!hit(&mut c, 16)); // line 4 evicts line 2, the least recent
        assert!(hit(&mut c, 0));
        assert!(!hit(&mut c, 8)); // line 2 again evicts line 4
        assert!(hit(&mut c, 0) && hit(&mut c, 1) && hit(&mut c, 8));
        assert!(!hit(&mut c, 16));
        // Many sets: a power-of-two stride of lines does not fall in one set (hashed index).
        let mut c = Cache::new(64 * 1024, 128, 4, 32).unwrap();
        for round in 0..2 {
            for r in 0..64u64 {
                assert_eq!(hit(&mut c, r * 128), round == 1, "row {}", r);
            }
        }
        // Write-back: a dirty line evicted writes its dirty sectors.
        let mut c = Cache::new(128, 128, 1, 32).unwrap();
        assert_eq!(c.access(0, true).written_back, 0);
        c.access(1, true);
        assert_eq!(c.dirty(), 2);
        let a = c.access(4, false);
        assert_eq!((a.hit, a.written_back), (false, 2));
        assert_eq!(c.dirty(), 0);
        c.access(4, true);
        c.invalidate(4);
        assert_eq!(c.dirty(), 0);
        assert!(!c.access(4, false).hit);
    }

    #[test]
    fn replay_counts_reuse_across_blocks_and_write_back() {
        let caches = Caches {
            l2_bytes: 4096,
            l2_bandwidth_gbs: 1.0,
            ..Caches::default()
        };
        // Two blocks read the same 4 sectors; one writes 2 others twice.
        let a = stream(&[&[0, 2, 4, 6], &[21, 23]]);
        let b = stream(&[&[0, 2, 4, 6], &[21, 23]]);
        let c = replay(&[a.clone(), b.clone()], &caches, 32, 2, 1, [1, 2, 3]);
        assert_eq!(c.sectors, 12);
        assert_eq!(c.l2_sectors, 12);
        assert_eq!(c.dram_reads, 4);
        assert_eq!(c.dram_writes, 2);
        assert_eq!(c.l2_hits, 12 - 4 - 2);
        // Without an L2 every sector goes to DRAM.
        let c = replay(
            &[a.clone(), b.clone()],
            &Caches::default(),
            32,
            2,
            1,
            [1, 2, 3],
        );
        assert_eq!((c.dram_reads, c.dram_writes), (8, 4));
        // An L1 that caches loads serves the second read of a block on the same SM.
        let l1 = Caches {
            l1_bytes: 1024,
            l1_global_loads: true,
            ..caches
        };
        let c = replay(&[a, b], &l1, 32, 1, 2, [1, 2, 3]);
        assert_eq!(c.l1_hits, 4);
        assert_eq!(c.l2_sectors, 8);
    }

    #[test]
    fn a_load_waits_for_the_level_that_served_its_slowest_sector() {
        // One block on one SM: request 1 reads sectors 0 and 1 (DRAM), request 2 sector 0 again
        // (L1), request 3 stores sector 4 (no wait), request 4 reads sectors 0 and 4 (the L1
        // holds 0; 4 was stored, so the L2 serves it).
        let s = stream(&[
            &[0 << 1, 1 << 1],
            &[0 << 1],
            &[4 << 1 | 1],
            &[0 << 1, 4 << 1],
        ]);
        let caches = Caches {
            l1_bytes: 1024,
            l1_global_loads: true,
            l2_bytes: 4096,
            ..Caches::default()
        };
        let c = replay(&[s], &caches, 32, 1, 1, [10, 200, 500]);
        assert_eq!(c.load_requests, 3);
        assert_eq!(c.load_cycles, 500 + 10 + 200);
    }

    #[test]
    fn the_l1_is_what_shared_memory_leaves() {
        let c = Caches {
            l1_bytes: 28 * 1024,
            l1_shared_bytes: 256 * 1024,
            shared_carveouts_kib: vec![0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
            ..Caches::default()
        };
        assert_eq!(c.l1_for(0), 256 * 1024);
        assert_eq!(c.l1_for(17024), 224 * 1024);
        assert_eq!(c.l1_for(228 * 1024), 28 * 1024);
        // Without a unified size the file's L1 stands.
        let fixed = Caches {
            l1_bytes: 28 * 1024,
            ..Caches::default()
        };
        assert_eq!(fixed.l1_for(0), 28 * 1024);
    }

    #[test]
    fn budget_cuts_streams_and_scales() {
        let mut s = BlockStream::default();
        s.push([0u64, 2].into_iter(), 3);
        s.push([4u64, 6].into_iter(), 3);
        s.push([8u64].into_iter(), 3);
        assert_eq!((s.sectors.len(), s.dropped), (2, 3));
        let mut t = BlockStream::default();
        t.push([0u64, 2].into_iter(), 1);
        assert_eq!((t.sectors.len(), t.dropped), (2, 0));
        let c = replay(&[s], &Caches::default(), 32, 1, 1, [1, 2, 3]);
        assert_eq!(c.sectors, 5);
        assert_eq!(c.dram_reads, 5);
    }
}
