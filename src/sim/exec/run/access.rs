//! Loads and stores of a block: the requests the memory model counts (sectors, lines, bank
//! conflicts) and the checker's bounds, race and initialization checks.

use super::*;
use crate::kernel::MAX_VECTOR;

impl<'a, 'e> Blk<'a, 'e> {
    pub(super) fn index(v: u64, t: Ty) -> i64 {
        match t {
            Ty::U64 if v > i64::MAX as u64 => i64::MAX,
            _ => v as i64,
        }
    }

    // ---- memory -----------------------------------------------------------------------------

    /// One warp request per warp with active lanes, each lane touching `width` consecutive
    /// elements from its index (1, or a vector access); `store`: a store or an atomic (the
    /// sectors become dirty in the L2).
    #[allow(clippy::too_many_arguments)]
    fn global_request(
        &mut self,
        acc: usize,
        g: usize,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
        store: bool,
        width: usize,
    ) {
        let env = self.env;
        let buf = &env.globals[g];
        let (sector, line) = (env.platform.sector as u64, env.platform.line as u64);
        let ws = env.platform.warp as usize;
        let width = width.clamp(1, MAX_VECTOR);
        let mut addrs = [0u64; 64 * MAX_VECTOR];
        let mut secs = [0u64; 64 * MAX_VECTOR];
        for w in 0..self.warps() {
            let bits = self.warp_bits(m, w);
            if bits == 0 {
                continue;
            }
            let mut k = 0;
            let mut active = 0;
            let mut x = bits;
            while x != 0 {
                let l = x.trailing_zeros() as usize;
                x &= x - 1;
                let t = w * ws + l;
                let i = Self::index(ix[t], ity);
                for e in 0..width as i64 {
                    addrs[k] = buf
                        .base
                        .wrapping_add((i.wrapping_add(e) as u64).wrapping_mul(buf.size));
                    k += 1;
                }
                active += 1;
            }
            let a = &mut addrs[..k];
            a.sort_unstable();
            let mut u = 0;
            let (mut sectors, mut lines) = (0u64, 0u64);
            let (mut last_s, mut last_l) = (u64::MAX, u64::MAX);
            let mut prev = u64::MAX;
            for &ad in a.iter() {
                if ad == prev {
                    continue;
                }
                prev = ad;
                u += 1;
                // Elements never straddle a sector: sizes are powers of two ≤ 8 and aligned.
                if ad / sector != last_s {
                    last_s = ad / sector;
                    secs[sectors as usize] = last_s << 1 | store as u64;
                    sectors += 1;
                }
                if ad / line != last_l {
                    last_l = ad / line;
                    lines += 1;
                }
            }
            if env.record {
                let cap = env.stream_cap;
                self.stream
                    .push(secs[..sectors as usize].iter().copied(), cap);
            } else {
                self.direct.sectors += sectors;
                if store {
                    self.direct.dram_writes += sectors;
                } else {
                    self.direct.dram_reads += sectors;
                }
                self.direct.l2_sectors += sectors;
            }
            let bytes = u as u64 * buf.size;
            let c = &mut self.counts[acc];
            c.requests += 1;
            c.lanes += active as u64;
            c.sectors += sectors;
            c.lines += lines;
            let min_s = bytes.div_ceil(sector);
            c.min_sectors += min_s;
            c.min_lines += bytes.div_ceil(line);
            c.bytes += bytes;
            if u == 1 {
                c.broadcast_requests += 1;
            }
            let min_l = bytes.div_ceil(line);
            if sectors > min_s || lines > min_l {
                if a[k - 1] - a[0] + buf.size == bytes {
                    c.misaligned_requests += 1;
                } else {
                    c.strided_requests += 1;
                }
            }
        }
    }

    /// One shared-memory request per warp with active lanes, each lane touching `width`
    /// consecutive elements from its index (1, or a vector access: one instruction, as on the
    /// hardware, not one per element). The banks serve the warp in phases of at most
    /// `shared_lanes` lanes that together touch at most `banks × bank width` bytes (CUDA
    /// Programming Guide: 8 bytes per lane, half-warps; 16 bytes, quarter-warps); a phase takes
    /// as many wavefronts as its busiest bank has distinct words, and lanes of different phases
    /// never conflict.
    fn shared_request(
        &mut self,
        acc: usize,
        s: usize,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
        width: usize,
    ) {
        let env = self.env;
        let (elem, _, base) = env.p.shared[s];
        let size = elem.size() as u64;
        let lane_bytes = size.max(1) * width.clamp(1, MAX_VECTOR) as u64;
        // The kernel's bank mode (set by its host code: Kepler's 8-byte banks), else the
        // platform's default width.
        let bw = env.p.bank_width.unwrap_or(env.platform.bank_width).max(1) as u64;
        let banks = env.platform.banks as usize;
        let ws = env.platform.warp as usize;
        // Lanes the banks serve together: as many as the banks hold the lanes' bytes (a 64-bit
        // access of a warp on 32 banks of 4 bytes: two half-warps), at most the platform's
        // lanes per cycle (half a 64-wide AMD wavefront). A 128-bit access of a 32-wide warp
        // is served by half-warps too, each in as many wavefronts as its busiest bank needs:
        // Nsight Compute on an H100 and an A10 counts 2 wavefronts for an `LDS.128` whose
        // half-warps each read one address (quarter-warp phases would take 4), 8 for one whose
        // half-warps read the same 16 addresses 32 bytes apart (4-way within each half)
        // (NVIDIA developer forum, "Discrepancy in LDS.128 wavefronts: does SMEM broadcast
        // across quarter-warps?"). Other widths and warps keep the banks' own phases.
        let mut phase = ((banks as u64 * bw) / lane_bytes).max(1) as usize;
        if lane_bytes >= 16 && ws == 32 {
            phase = phase.max(ws / 2);
        }
        let group = (env.platform.shared_lanes as usize)
            .min(phase)
            .clamp(1, ws.max(1));
        let mut words: Vec<u64> = Vec::with_capacity(128);
        let mut per_bank = vec![0u32; banks];
        for w in 0..self.warps() {
            let bits = self.warp_bits(m, w);
            if bits == 0 {
                continue;
            }
            let (mut waves, mut min_waves, mut degree, mut k, mut nbytes) =
                (0u64, 0u64, 1u32, 0u64, 0u64);
            for g in (0..ws).step_by(group) {
                let mask = if group >= 64 {
                    u64::MAX
                } else {
                    ((1u64 << group) - 1) << g
                };
                let mut x = bits & mask;
                if x == 0 {
                    continue;
                }
                words.clear();
                while x != 0 {
                    let l = x.trailing_zeros() as usize;
                    x &= x - 1;
                    k += 1;
                    let t = w * ws + l;
                    let i = Self::index(ix[t], ity);
                    let b = base.wrapping_add((i as u64).wrapping_mul(size));
                    let mut wd = b / bw;
                    while wd <= (b + lane_bytes - 1) / bw {
                        words.push(wd);
                        wd += 1;
                    }
                }
                words.sort_unstable();
                words.dedup();
                per_bank.iter_mut().for_each(|x| *x = 0);
                for wd in &words {
                    per_bank[(*wd % banks as u64) as usize] += 1;
                }
                // Distinct words in the busiest bank; the banks serve at least
                // `ceil(words / banks)` wavefronts for these words (8-byte elements on 4-byte
                // banks take two without any conflict).
                let w_g = per_bank.iter().copied().max().unwrap_or(1).max(1) as u64;
                let min_g = (words.len() as u64).div_ceil(banks as u64).max(1);
                waves += w_g;
                min_waves += min_g;
                nbytes += words.len() as u64 * bw;
                degree = degree.max(w_g.div_ceil(min_g) as u32);
            }
            let c = &mut self.counts[acc];
            c.requests += 1;
            c.lanes += k;
            c.bytes += nbytes;
            c.wavefronts += waves;
            c.min_wavefronts += min_waves;
            c.max_degree = c.max_degree.max(degree);
        }
    }

    /// The request of one access of `width` elements per lane from its index, as
    /// [`Self::global_request`] and [`Self::shared_request`] count it (private arrays make
    /// none).
    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        acc: usize,
        mem: Mem,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
        store: bool,
        width: usize,
    ) {
        match mem {
            Mem::Global(g) => self.global_request(acc, g, ix, ity, m, store, width),
            Mem::Shared(s) => self.shared_request(acc, s, ix, ity, m, width),
            Mem::Private(_) => {}
        }
    }

    /// Reports the first out-of-bounds index `i` (of lane `t`) of an access to `what` (`a
    /// buffer`, `a shared array`, ...) of `len` elements.
    fn out_of_bounds(&mut self, acc: usize, (t, i): (usize, i64), what: &str, len: usize) {
        self.find(
            FindingKind::OutOfBounds,
            acc,
            t,
            None,
            format!("index {} of {} of {} elements", i, what, len),
        );
    }

    /// The checker's shadows (last writer, readers) of element `i` of shared array `s`, cleared
    /// first when the element was last touched before the current barrier epoch.
    #[inline]
    fn shared_shadows(&mut self, s: usize, i: usize) -> (u32, u32) {
        if self.sh_epoch[s][i] != self.epoch {
            self.sh_epoch[s][i] = self.epoch;
            self.sh_w[s][i] = 0;
            self.sh_r[s][i] = 0;
        }
        (self.sh_w[s][i], self.sh_r[s][i])
    }

    pub(super) fn load(
        &mut self,
        acc: usize,
        mem: Mem,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
    ) -> Vec<u64> {
        self.load_elements(acc, mem, ix, ity, m, true)
    }

    /// A vector load ([`crate::kernel::KStmt::VecLoad`]): one request of `width` consecutive
    /// elements per lane from its index (global or shared memory; private arrays make no
    /// requests), then the elements, checked as `width` element loads.
    pub(super) fn load_vector(
        &mut self,
        acc: usize,
        mem: Mem,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
        width: usize,
    ) -> Vec<Vec<u64>> {
        self.request(acc, mem, ix, ity, m, false, width);
        (0..width)
            .map(|k| {
                let ik = Self::offset(ix, ity, k);
                self.load_elements(acc, mem, &ik, Ty::I64, m, false)
            })
            .collect()
    }

    /// A vector store: one request of `values.len()` elements per lane (global or shared
    /// memory), then the element stores, checked as such.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_vector(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        ix: &[u64],
        ity: Ty,
        values: &[(Vec<u64>, Ty)],
        m: &[u64],
    ) {
        self.request(acc, mem, ix, ity, m, true, values.len());
        for (k, (v, vt)) in values.iter().enumerate() {
            let ik = Self::offset(ix, ity, k);
            self.store_elements(acc, mem, elem, &ik, Ty::I64, v, *vt, m, false);
        }
    }

    /// The indices `ix + k` (as 64-bit signed integers).
    fn offset(ix: &[u64], ity: Ty, k: usize) -> Vec<u64> {
        ix.iter()
            .map(|&i| Self::index(i, ity).wrapping_add(k as i64) as u64)
            .collect()
    }

    /// Element loads of the active lanes (after their request when `request`).
    fn load_elements(
        &mut self,
        acc: usize,
        mem: Mem,
        ix: &[u64],
        ity: Ty,
        m: &[u64],
        request: bool,
    ) -> Vec<u64> {
        if request {
            self.request(acc, mem, ix, ity, m, false, 1);
        }
        let mut out = self.take();
        match mem {
            Mem::Global(g) => self.load_global(acc, g, (ix, ity), m, &mut out),
            Mem::Shared(s) => self.load_shared(acc, s, (ix, ity), m, &mut out),
            Mem::Private(p) => self.load_private(acc, p, (ix, ity), m, &mut out),
        }
        out
    }

    /// Element loads from global buffer `g` into `out` (0 out of bounds); the footprint
    /// records them, and the checker's shadows the readers (a race: an element another thread
    /// wrote).
    fn load_global(
        &mut self,
        acc: usize,
        g: usize,
        (ix, ity): (&[u64], Ty),
        m: &[u64],
        out: &mut [u64],
    ) {
        let check = self.env.opts.check;
        let env = self.env;
        let buf = &env.globals[g];
        let len = buf.data.len() as i64;
        let tpb = env.threads as u64;
        let mut oob = None;
        let mut race = None;
        let mut undefined = None;
        for_each(m, |t| {
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                out[t] = 0;
                if oob.is_none() {
                    oob = Some((t, i));
                }
                return;
            }
            let i = i as usize;
            out[t] = buf.data[i].load(Relaxed);
            let was = buf.foot[i].fetch_or(READ, Relaxed);
            if check {
                if was & (UNDEFINED | WRITTEN) == UNDEFINED {
                    undefined.get_or_insert((t, i));
                }
                let me = self.block_linear * tpb + t as u64 + 1;
                let w = buf.wr[i].load(Relaxed);
                if w != 0 && w != me && race.is_none() {
                    race = Some((t, w - 1, i));
                }
                let r = buf.rd[i].load(Relaxed);
                if r == 0 {
                    buf.rd[i].store(me, Relaxed);
                } else if r & !MULTI != me {
                    buf.rd[i].store(r | MULTI, Relaxed);
                }
            }
        });
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a buffer", buf.data.len());
        }
        if let Some((t, i)) = undefined {
            self.undefined_read(acc, t, i);
        }
        if let Some((t, o, i)) = race {
            let other = env.thread_of(o);
            self.find(
                FindingKind::GlobalRace,
                acc,
                t,
                Some(other),
                format!("element {} read here was written by the other thread", i),
            );
        }
    }

    /// Element loads from shared array `s` into `out` (0 out of bounds); the checker reports
    /// elements not written in the block and ones another thread wrote since the last barrier.
    fn load_shared(
        &mut self,
        acc: usize,
        s: usize,
        (ix, ity): (&[u64], Ty),
        m: &[u64],
        out: &mut [u64],
    ) {
        let check = self.env.opts.check;
        let len = self.shared[s].len() as i64;
        let mut oob = None;
        let mut uninit = None;
        let mut race = None;
        for t in 0..self.n {
            if !bit(m, t) {
                continue;
            }
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                out[t] = 0;
                oob.get_or_insert((t, i));
                continue;
            }
            let i = i as usize;
            out[t] = self.shared[s][i];
            if check {
                if !self.sh_init[s][i] {
                    uninit.get_or_insert((t, i));
                }
                let (w, r) = self.shared_shadows(s, i);
                let me = t as u32 + 1;
                if w != 0 && w != me {
                    race.get_or_insert((t, w as usize - 1, i));
                }
                if r == 0 {
                    self.sh_r[s][i] = me;
                } else if r & 0x7fff_ffff != me {
                    self.sh_r[s][i] = r | 0x8000_0000;
                }
            }
        }
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a shared array", self.shared[s].len());
        }
        if let Some((t, i)) = uninit {
            self.find(
                FindingKind::UninitializedShared,
                acc,
                t,
                None,
                format!("element {} was not written in this block", i),
            );
        }
        if let Some((t, o, i)) = race {
            let other = self.tid(o);
            self.find(
                FindingKind::SharedRace,
                acc,
                t,
                Some(other),
                format!(
                    "element {} read here was written by the other thread since the last barrier",
                    i
                ),
            );
        }
    }

    /// Element loads from private array `p` (each lane its own copy) into `out` (0 out of
    /// bounds).
    fn load_private(
        &mut self,
        acc: usize,
        p: usize,
        (ix, ity): (&[u64], Ty),
        m: &[u64],
        out: &mut [u64],
    ) {
        let len = self.env.p.privs[p].1 as i64;
        let mut oob = None;
        for t in 0..self.n {
            if !bit(m, t) {
                continue;
            }
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                out[t] = 0;
                oob.get_or_insert((t, i));
                continue;
            }
            out[t] = self.privs[p][t * len as usize + i as usize];
        }
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a private array", len as usize);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        ix: &[u64],
        ity: Ty,
        v: &[u64],
        vt: Ty,
        m: &[u64],
    ) {
        self.store_elements(acc, mem, elem, ix, ity, v, vt, m, true)
    }

    /// Element stores of the active lanes' values `v` (of type `vt`) as `elem` (after their
    /// request when `request`).
    #[allow(clippy::too_many_arguments)]
    fn store_elements(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        ix: &[u64],
        ity: Ty,
        v: &[u64],
        vt: Ty,
        m: &[u64],
        request: bool,
    ) {
        if request {
            self.request(acc, mem, ix, ity, m, true, 1);
        }
        match mem {
            Mem::Global(g) => self.store_global(acc, (g, elem), (ix, ity), (v, vt), m),
            Mem::Shared(s) => self.store_shared(acc, (s, elem), (ix, ity), (v, vt), m),
            Mem::Private(p) => self.store_private(acc, (p, elem), (ix, ity), (v, vt), m),
        }
    }

    /// Element stores into global buffer `g` (of `elem`); the footprint records them, and the
    /// checker's shadows the writer (a race: an element another thread read or wrote).
    fn store_global(
        &mut self,
        acc: usize,
        (g, elem): (usize, Scalar),
        (ix, ity): (&[u64], Ty),
        (v, vt): (&[u64], Ty),
        m: &[u64],
    ) {
        let check = self.env.opts.check;
        let env = self.env;
        let buf = &env.globals[g];
        let len = buf.data.len() as i64;
        let tpb = env.threads as u64;
        let mut oob = None;
        let mut race = None;
        for_each(m, |t| {
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                oob.get_or_insert((t, i));
                return;
            }
            let i = i as usize;
            buf.data[i].store(to_scalar(v[t], vt, elem), Relaxed);
            buf.foot[i].fetch_or(WRITTEN, Relaxed);
            if check {
                let me = self.block_linear * tpb + t as u64 + 1;
                let w = buf.wr[i].swap(me, Relaxed);
                if w != 0 && w != me {
                    race.get_or_insert((t, Some(w - 1), "written"));
                }
                let r = buf.rd[i].load(Relaxed);
                if r != 0 && r & !MULTI != me {
                    race.get_or_insert((t, Some((r & !MULTI) - 1), "read"));
                } else if r & MULTI != 0 {
                    race.get_or_insert((t, None, "read"));
                }
            }
        });
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a buffer", buf.data.len());
        }
        if let Some((t, o, what)) = race {
            let other = o.map(|o| env.thread_of(o));
            self.find(
                FindingKind::GlobalRace,
                acc,
                t,
                other,
                format!(
                    "the element written here is also {} by another thread in this launch",
                    what
                ),
            );
        }
    }

    /// Element stores into shared array `s` (of `elem`); the checker marks them written and
    /// reports elements another thread read or wrote since the last barrier.
    fn store_shared(
        &mut self,
        acc: usize,
        (s, elem): (usize, Scalar),
        (ix, ity): (&[u64], Ty),
        (v, vt): (&[u64], Ty),
        m: &[u64],
    ) {
        let check = self.env.opts.check;
        let len = self.shared[s].len() as i64;
        let mut oob = None;
        let mut race = None;
        for t in 0..self.n {
            if !bit(m, t) {
                continue;
            }
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                oob.get_or_insert((t, i));
                continue;
            }
            let i = i as usize;
            self.shared[s][i] = to_scalar(v[t], vt, elem);
            if check {
                self.sh_init[s][i] = true;
                let (w, r) = self.shared_shadows(s, i);
                let me = t as u32 + 1;
                if w != 0 && w != me {
                    race.get_or_insert((t, Some(w as usize - 1), i, "written"));
                }
                if r != 0 && r & 0x7fff_ffff != me {
                    race.get_or_insert((t, Some((r & 0x7fff_ffff) as usize - 1), i, "read"));
                } else if r & 0x8000_0000 != 0 {
                    race.get_or_insert((t, None, i, "read"));
                }
                self.sh_w[s][i] = me;
            }
        }
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a shared array", self.shared[s].len());
        }
        if let Some((t, o, i, what)) = race {
            let other = o.map(|o| self.tid(o));
            self.find(
                FindingKind::SharedRace,
                acc,
                t,
                other,
                format!(
                    "element {} written here was also {} by another thread since the last barrier",
                    i, what
                ),
            );
        }
    }

    /// Element stores into private array `p` (of `elem`; each lane its own copy).
    fn store_private(
        &mut self,
        acc: usize,
        (p, elem): (usize, Scalar),
        (ix, ity): (&[u64], Ty),
        (v, vt): (&[u64], Ty),
        m: &[u64],
    ) {
        let len = self.env.p.privs[p].1 as i64;
        let mut oob = None;
        for t in 0..self.n {
            if !bit(m, t) {
                continue;
            }
            let i = Self::index(ix[t], ity);
            if i < 0 || i >= len {
                oob.get_or_insert((t, i));
                continue;
            }
            self.privs[p][t * len as usize + i as usize] = to_scalar(v[t], vt, elem);
        }
        if let Some(at) = oob {
            self.out_of_bounds(acc, at, "a private array", len as usize);
        }
    }

    /// An atomic statement: each active lane in turn reads its element and stores the new
    /// value at once (a compare-and-swap on global memory, shared with the blocks other host
    /// threads run). Returns, per lane, the element's value (of type `ty_of(elem)`) before the
    /// update, or after it when `after`. One request per warp is counted, and the checker's race
    /// shadows are left alone: atomics do not race with each other.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        (ix, ity): (&[u64], Ty),
        v: Option<(&[u64], Ty)>,
        op: AtomicCOp,
        after: bool,
        m: &[u64],
    ) -> Vec<u64> {
        let et = ty_of(elem);
        let new_value = |old: u64, t: usize| -> u64 {
            match (op, v) {
                (AtomicCOp::Read, _) | (_, None) => old,
                (AtomicCOp::Write, Some((v, vt))) => to_scalar(v[t], vt, elem),
                (AtomicCOp::Update(op, reversed), Some((v, vt))) => {
                    let ((a, at), (b, bt)) = if reversed {
                        ((v[t], vt), (old, et))
                    } else {
                        ((old, et), (v[t], vt))
                    };
                    let (rt, ot) = bin_types(op, at, bt);
                    let shift = matches!(op, BinOp::Shl | BinOp::Shr);
                    let mut x = [if shift { a } else { convert(a, at, ot) }];
                    let y = [if shift { b } else { convert(b, bt, ot) }];
                    value::bin_lanes(op, ot, if shift { bt } else { ot }, &mut x, &y);
                    if matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge) {
                        // A minimum or maximum: `a op b ? a : b`, in the operands' common type.
                        let (p, pt) = if x[0] != 0 { (a, at) } else { (b, bt) };
                        return to_scalar(convert(p, pt, ot), ot, elem);
                    }
                    to_scalar(x[0], rt, elem)
                }
            }
        };
        let mut out = self.take();
        let mut oob = None;
        let mut undefined = None;
        match mem {
            Mem::Global(g) => {
                self.request(acc, mem, ix, ity, m, true, 1);
                let buf = &self.env.globals[g];
                let len = buf.data.len() as i64;
                for_each(m, |t| {
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        oob.get_or_insert((t, i, len));
                        return;
                    }
                    let cell = &buf.data[i as usize];
                    let mut old = cell.load(Relaxed);
                    let new = loop {
                        let new = new_value(old, t);
                        if op == AtomicCOp::Read {
                            break new;
                        }
                        match cell.compare_exchange(old, new, Relaxed, Relaxed) {
                            Ok(_) => break new,
                            Err(seen) => old = seen,
                        }
                    };
                    let was = buf.foot[i as usize].fetch_or(
                        if op == AtomicCOp::Read {
                            READ
                        } else {
                            READ | WRITTEN
                        },
                        Relaxed,
                    );
                    // An update reads the element (a histogram on a `create` array).
                    if op != AtomicCOp::Write && was & (UNDEFINED | WRITTEN) == UNDEFINED {
                        undefined.get_or_insert((t, i as usize));
                    }
                    out[t] = if after { new } else { old };
                });
            }
            Mem::Shared(s) => {
                self.request(acc, mem, ix, ity, m, true, 1);
                let len = self.shared[s].len() as i64;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        oob.get_or_insert((t, i, len));
                        continue;
                    }
                    let i = i as usize;
                    let old = self.shared[s][i];
                    let new = new_value(old, t);
                    if op != AtomicCOp::Read {
                        self.shared[s][i] = new;
                        self.sh_init[s][i] = true;
                    }
                    out[t] = if after { new } else { old };
                }
            }
            Mem::Private(p) => {
                let len = self.env.p.privs[p].1 as i64;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        oob.get_or_insert((t, i, len));
                        continue;
                    }
                    let at = t * len as usize + i as usize;
                    let old = self.privs[p][at];
                    let new = new_value(old, t);
                    self.privs[p][at] = new;
                    out[t] = if after { new } else { old };
                }
            }
        }
        if let Some((t, i, len)) = oob {
            self.out_of_bounds(acc, (t, i), "an array", len as usize);
        }
        if let Some((t, i)) = undefined {
            self.undefined_read(acc, t, i);
        }
        out
    }

    /// Reports work-item `t`'s read of element `i` of a global buffer that nothing defined
    /// (`SimOptions::undefined`; the bit is only set under the checker).
    fn undefined_read(&mut self, acc: usize, t: usize, i: usize) {
        self.find(
            FindingKind::UndefinedGlobal,
            acc,
            t,
            None,
            format!(
                "element {}: no data clause (`copyout`, `create`) or `update device` copied it in, and no kernel wrote it before",
                i
            ),
        );
    }

    // ---- statements -------------------------------------------------------------------------
}
