//! Run time: buffers, lock-step execution of whole blocks with active masks, memory and bank
//! accounting, the checker's hooks, and the launch of a kernel or a module.

use super::*;

mod access;

// ---------------------------------------------------------------------------------------------
// Run time
// ---------------------------------------------------------------------------------------------

const MULTI: u64 = 1 << 63;
/// `GBuf::foot`'s bits: read, written, undefined before the launch.
const READ: u8 = 1;
const WRITTEN: u8 = 2;
const UNDEFINED: u8 = 4;

struct GBuf {
    data: Vec<AtomicU64>,
    elem: Scalar,
    size: u64,
    base: u64,
    /// Bit 0: read, bit 1: written (footprint); bit 2, under the checker: undefined before the
    /// launch (`SimOptions::undefined`).
    foot: Vec<AtomicU8>,
    /// Checker shadows: last writer (global thread + 1) and first reader (+1, `MULTI` if more).
    wr: Vec<AtomicU64>,
    rd: Vec<AtomicU64>,
    /// Buffer index in the caller's slice.
    src: usize,
}

struct Env<'a> {
    p: &'a Program,
    globals: Vec<GBuf>,
    platform: &'a SimPlatform,
    opts: &'a SimOptions,
    grid: [u32; 3],
    block: [u32; 3],
    threads: usize,
    params: Vec<u64>,
    /// Whether blocks record their sector streams (the platform has caches), and the most
    /// sectors one block records.
    record: bool,
    stream_cap: usize,
}

impl Env<'_> {
    fn thread_of(&self, g: u64) -> ThreadId {
        let n = self.threads as u64;
        let (b, t) = (g / n, g % n);
        let unl = |x: u64, d: [u32; 3]| {
            let d0 = d[0].max(1) as u64;
            let d1 = d[1].max(1) as u64;
            [
                (x % d0) as u32,
                ((x / d0) % d1) as u32,
                (x / (d0 * d1)) as u32,
            ]
        };
        ThreadId {
            block: unl(b, self.grid),
            thread: unl(t, self.block),
        }
    }
}

type Mask = Vec<u64>;

fn any(m: &[u64]) -> bool {
    m.iter().any(|&w| w != 0)
}

fn bit(m: &[u64], t: usize) -> bool {
    m[t / 64] >> (t % 64) & 1 != 0
}

fn for_each(m: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in m.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let b = x.trailing_zeros() as usize;
            f(w * 64 + b);
            x &= x - 1;
        }
    }
}

struct Blk<'a, 'e> {
    env: &'a Env<'e>,
    n: usize,
    group: [u32; 3],
    block_linear: u64,
    lid: [Vec<u64>; 3],
    regs: Vec<Vec<u64>>,
    privs: Vec<Vec<u64>>,
    shared: Vec<Vec<u64>>,
    sh_init: Vec<Vec<bool>>,
    sh_w: Vec<Vec<u32>>,
    sh_r: Vec<Vec<u32>>,
    sh_epoch: Vec<Vec<u32>>,
    epoch: u32,
    loops: Vec<(Mask, Mask)>,
    old: Vec<u64>,
    pool: Vec<Vec<u64>>,
    full: Mask,
    counts: Vec<AccessCounts>,
    instructions: u64,
    flops: u64,
    findings: Vec<Finding>,
    seen: HashMap<(FindingKind, usize), usize>,
    iterations: u64,
    /// The block's sector stream for the cache replay (when `Env::record`), or, without
    /// caches, what DRAM sees directly.
    stream: cache::BlockStream,
    direct: cache::CacheCounts,
}

const NO_ACC: usize = usize::MAX;

impl<'a, 'e> Blk<'a, 'e> {
    fn new(env: &'a Env<'e>) -> Self {
        let p = env.p;
        let n = env.threads;
        let [bx, by, _] = env.block;
        let (bx, by) = (bx as usize, by as usize);
        let lid = [
            (0..n).map(|t| (t % bx) as u64).collect(),
            (0..n).map(|t| ((t / bx) % by) as u64).collect(),
            (0..n).map(|t| (t / (bx * by)) as u64).collect(),
        ];
        let mut regs = vec![vec![0u64; n]; p.nregs];
        for (i, ps) in p.params.iter().enumerate() {
            if let ParamSlot::Reg(r, _) = ps {
                regs[*r] = vec![env.params[i]; n];
            }
        }
        let words = n.div_ceil(64);
        let mut full = vec![0u64; words];
        for t in 0..n {
            full[t / 64] |= 1 << (t % 64);
        }
        let check = env.opts.check;
        let sh = |x: u32| if check { x } else { 0 };
        Blk {
            env,
            n,
            group: [0; 3],
            block_linear: 0,
            lid,
            regs,
            privs: p
                .privs
                .iter()
                .map(|(_, l)| vec![0u64; *l as usize * n])
                .collect(),
            shared: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0u64; *l as usize])
                .collect(),
            sh_init: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![false; sh(*l) as usize])
                .collect(),
            sh_w: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            sh_r: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            sh_epoch: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            epoch: 1,
            loops: Vec::new(),
            old: vec![0; n],
            pool: Vec::new(),
            full,
            counts: vec![AccessCounts::default(); p.accesses.len()],
            instructions: 0,
            flops: 0,
            findings: Vec::new(),
            seen: HashMap::new(),
            iterations: 0,
            stream: cache::BlockStream::default(),
            direct: cache::CacheCounts::default(),
        }
    }

    fn reset(&mut self, group: [u32; 3], linear: u64) {
        self.group = group;
        self.block_linear = linear;
        // Shared memory starts undefined; registers keep nothing between blocks that matters
        // (declarations assign before use in lowered code; the checker tracks shared only).
        for (i, v) in self.sh_init.iter_mut().enumerate() {
            v.iter_mut().for_each(|x| *x = false);
            self.sh_epoch[i].iter_mut().for_each(|x| *x = 0);
        }
        self.epoch = 1;
        self.iterations = 0;
        for (i, ps) in self.env.p.params.iter().enumerate() {
            if let ParamSlot::Reg(r, _) = ps {
                let v = self.env.params[i];
                self.regs[*r].iter_mut().for_each(|x| *x = v);
            }
        }
    }

    fn take(&mut self) -> Vec<u64> {
        match self.pool.pop() {
            Some(v) => v,
            None => vec![0; self.n],
        }
    }

    fn give(&mut self, v: Vec<u64>) {
        self.pool.push(v);
    }

    fn tid(&self, t: usize) -> ThreadId {
        ThreadId {
            block: self.group,
            thread: [
                self.lid[0][t] as u32,
                self.lid[1][t] as u32,
                self.lid[2][t] as u32,
            ],
        }
    }

    fn find(
        &mut self,
        kind: FindingKind,
        acc: usize,
        t: usize,
        other: Option<ThreadId>,
        detail: String,
    ) {
        let c = self.seen.entry((kind, acc)).or_insert(0);
        *c += 1;
        if *c > self.env.opts.max_findings {
            return;
        }
        self.findings.push(Finding {
            kind,
            kernel: self.env.p.name.clone(),
            access: self.env.p.accesses.get(acc).map(|a| a.label.clone()),
            thread: self.tid(t),
            other,
            detail,
        });
    }

    fn warps(&self) -> usize {
        self.n.div_ceil(self.env.platform.warp as usize)
    }

    fn warp_bits(&self, m: &[u64], w: usize) -> u64 {
        let ws = self.env.platform.warp as usize;
        if ws >= 64 {
            m[w]
        } else {
            let per = 64 / ws;
            (m[w / per] >> ((w % per) * ws)) & ((1u64 << ws) - 1)
        }
    }

    fn active_warps(&self, m: &[u64]) -> u64 {
        (0..self.warps())
            .filter(|&w| self.warp_bits(m, w) != 0)
            .count() as u64
    }

    // ---- expressions ------------------------------------------------------------------------

    fn eval(&mut self, e: &CExpr, m: &[u64]) -> Vec<u64> {
        match &e.node {
            Node::Const(c) => {
                let mut v = self.take();
                v.fill(*c);
                v
            }
            Node::Reg(r) => {
                let mut v = self.take();
                v.copy_from_slice(&self.regs[*r]);
                v
            }
            Node::Old => {
                let mut v = self.take();
                v.copy_from_slice(&self.old);
                v
            }
            Node::Builtin(b) => self.builtin(*b),
            Node::Load { acc, mem, idx } => {
                let ix = self.eval(idx, m);
                let out = self.load(*acc, *mem, &ix, idx.ty, m);
                self.give(ix);
                out
            }
            Node::Neg(a)
            | Node::Not(a)
            | Node::BitNot(a)
            | Node::Conv(a)
            | Node::ToScalar(a, _) => {
                let mut v = self.eval(a, m);
                unary_lanes(&e.node, a.ty, e.ty, &mut v);
                v
            }
            Node::Bin(op, a, b) => self.eval_bin(*op, a, b, m),
            Node::And(a, b) => self.eval_logic(true, a, b, m),
            Node::Or(a, b) => self.eval_logic(false, a, b, m),
            Node::Cond(c, a, b) => self.eval_cond(c, a, b, m),
            Node::Math(f, args) => self.eval_math(f, args, e.ty, m),
        }
    }

    /// Every lane's value of a built-in (its thread's and block's coordinates).
    #[inline]
    fn builtin(&mut self, b: Builtin) -> Vec<u64> {
        let mut v = self.take();
        let env = self.env;
        match b {
            Builtin::LocalId(d) => v.copy_from_slice(&self.lid[d.min(2) as usize]),
            Builtin::GroupId(d) => v.fill(self.group[d.min(2) as usize] as u64),
            Builtin::LocalSize(d) => v.fill(env.block[d.min(2) as usize] as u64),
            Builtin::NumGroups(d) => v.fill(env.grid[d.min(2) as usize] as u64),
            Builtin::GlobalId(d) => {
                let d = d.min(2) as usize;
                let base = self.group[d] as u64 * env.block[d] as u64;
                for (x, l) in v.iter_mut().zip(self.lid[d].iter()) {
                    *x = base + l;
                }
            }
        }
        v
    }

    /// Counts one floating-point operation per active lane of `m`.
    #[inline]
    fn add_flops(&mut self, m: &[u64]) {
        self.flops += m.iter().map(|w| w.count_ones() as u64).sum::<u64>();
    }

    /// A binary operator on every lane; the checker reports an integer division by zero of an
    /// active lane.
    #[inline]
    fn eval_bin(&mut self, op: BinOp, a: &CExpr, b: &CExpr, m: &[u64]) -> Vec<u64> {
        let mut va = self.eval(a, m);
        let vb = self.eval(b, m);
        if matches!(op, BinOp::Div | BinOp::Rem) && !a.ty.is_float() && self.env.opts.check {
            let mut zero = None;
            for_each(m, |t| {
                if vb[t] == 0 && zero.is_none() {
                    zero = Some(t);
                }
            });
            if let Some(t) = zero {
                self.find(FindingKind::DivisionByZero, NO_ACC, t, None, String::new());
            }
        }
        if a.ty.is_float() {
            self.add_flops(m);
        }
        value::bin_lanes(op, a.ty, b.ty, &mut va, &vb);
        self.give(vb);
        va
    }

    /// `a && b` (`is_and`) or `a || b`: `b` is evaluated only on the lanes `a` does not decide.
    #[inline]
    fn eval_logic(&mut self, is_and: bool, a: &CExpr, b: &CExpr, m: &[u64]) -> Vec<u64> {
        let mut va = self.eval(a, m);
        let mut m2 = m.to_vec();
        for (t, x) in va.iter_mut().enumerate() {
            let tv = truth(*x, a.ty);
            *x = tv as u64;
            if tv != is_and {
                m2[t / 64] &= !(1 << (t % 64));
            }
        }
        if any(&m2) {
            let vb = self.eval(b, &m2);
            for_each(&m2, |t| va[t] = truth(vb[t], b.ty) as u64);
            self.give(vb);
        }
        va
    }

    /// `c ? a : b`: each side is evaluated on the lanes that take it only.
    #[inline]
    fn eval_cond(&mut self, c: &CExpr, a: &CExpr, b: &CExpr, m: &[u64]) -> Vec<u64> {
        let vc = self.eval(c, m);
        let mut mt = m.to_vec();
        let mut mf = m.to_vec();
        for t in 0..self.n {
            if truth(vc[t], c.ty) {
                mf[t / 64] &= !(1 << (t % 64));
            } else {
                mt[t / 64] &= !(1 << (t % 64));
            }
        }
        let mut va = if any(&mt) {
            self.eval(a, &mt)
        } else {
            self.take()
        };
        if any(&mf) {
            let vb = self.eval(b, &mf);
            for_each(&mf, |t| va[t] = vb[t]);
            self.give(vb);
        }
        self.give(vc);
        va
    }

    /// A math function of type `t` on every lane.
    #[inline]
    fn eval_math(&mut self, f: &MathImpl, args: &[CExpr], t: Ty, m: &[u64]) -> Vec<u64> {
        let mut vs: Vec<Vec<u64>> = args.iter().map(|a| self.eval(a, m)).collect();
        let mut out = self.take();
        for (i, o) in out.iter_mut().enumerate().take(self.n) {
            *o = math_lane(f, t, &vs, i);
        }
        if t.is_float() {
            self.add_flops(m);
        }
        for v in vs.drain(..) {
            self.give(v);
        }
        out
    }
}

/// A unary operator or conversion (`node`: `Neg`, `Not`, `BitNot`, `Conv` or `ToScalar`) from
/// the operand's type `from` to the result's `to`, on every lane of `v` in place.
#[inline]
fn unary_lanes(node: &Node, from: Ty, to: Ty, v: &mut [u64]) {
    match node {
        Node::Neg(_) => {
            for x in v.iter_mut() {
                *x = match to {
                    Ty::I32 => (*x as i32).wrapping_neg() as i64 as u64,
                    Ty::U32 => (*x as u32).wrapping_neg() as u64,
                    Ty::I64 | Ty::U64 => x.wrapping_neg(),
                    Ty::F32 => (-f32::from_bits(*x as u32)).to_bits() as u64,
                    Ty::F64 => (-f64::from_bits(*x)).to_bits(),
                };
            }
        }
        Node::Not(_) => {
            for x in v.iter_mut() {
                *x = !truth(*x, from) as u64;
            }
        }
        Node::BitNot(_) => {
            for x in v.iter_mut() {
                *x = convert(!*x, Ty::U64, to);
            }
        }
        Node::Conv(_) => {
            for x in v.iter_mut() {
                *x = convert(*x, from, to);
            }
        }
        Node::ToScalar(_, s) => {
            for x in v.iter_mut() {
                *x = to_scalar(*x, from, *s);
            }
        }
        _ => unreachable!("not a unary operator"),
    }
}

/// Lane `i` of a math function of type `t` of the arguments' values `vs`.
#[inline]
fn math_lane(f: &MathImpl, t: Ty, vs: &[Vec<u64>], i: usize) -> u64 {
    let lf = |x: u64| f32::from_bits(x as u32);
    let ld = f64::from_bits;
    match (f, t) {
        (MathImpl::F1(_, g), Ty::F32) => g(lf(vs[0][i])).to_bits() as u64,
        (MathImpl::F1(g, _), _) => g(ld(vs[0][i])).to_bits(),
        (MathImpl::F2(_, g), Ty::F32) => g(lf(vs[0][i]), lf(vs[1][i])).to_bits() as u64,
        (MathImpl::F2(g, _), _) => g(ld(vs[0][i]), ld(vs[1][i])).to_bits(),
        (MathImpl::F3(_, g), Ty::F32) => {
            g(lf(vs[0][i]), lf(vs[1][i]), lf(vs[2][i])).to_bits() as u64
        }
        (MathImpl::F3(g, _), _) => g(ld(vs[0][i]), ld(vs[1][i]), ld(vs[2][i])).to_bits(),
        (MathImpl::IAbs, Ty::F32) => lf(vs[0][i]).abs().to_bits() as u64,
        (MathImpl::IAbs, Ty::F64) => ld(vs[0][i]).abs().to_bits(),
        (MathImpl::IAbs, _) => convert((vs[0][i] as i64).wrapping_abs() as u64, Ty::I64, t),
        (MathImpl::IMin | MathImpl::IMax, _) => {
            let mut a = [vs[0][i]];
            value::bin_lanes(BinOp::Lt, t, t, &mut a, &[vs[1][i]]);
            let lt = a[0] != 0;
            if lt == matches!(f, MathImpl::IMin) {
                vs[0][i]
            } else {
                vs[1][i]
            }
        }
    }
}

impl<'a, 'e> Blk<'a, 'e> {
    fn exec_list(&mut self, v: &[CStmt], mut m: Mask) -> Mask {
        for s in v {
            if !any(&m) {
                break;
            }
            m = self.exec(s, m);
        }
        m
    }

    fn truth_masks(&mut self, cond: &CExpr, m: &[u64]) -> Mask {
        let vc = self.eval(cond, m);
        let mut t = m.to_vec();
        for_each(m, |i| {
            if !truth(vc[i], cond.ty) {
                t[i / 64] &= !(1 << (i % 64));
            }
        });
        self.give(vc);
        t
    }

    /// Counts a statement's warp instructions (`cost` per warp with active lanes in `m`).
    #[inline]
    fn charge(&mut self, cost: Cost, m: &[u64]) {
        self.instructions +=
            cost.get(self.env.platform.timing.address_folding) as u64 * self.active_warps(m);
    }

    /// Writes lane values `v` of type `ty`, as `s`, into the active lanes of register `slot`.
    #[inline]
    fn set_reg(&mut self, slot: usize, s: Scalar, v: &[u64], ty: Ty, m: &[u64]) {
        let reg = &mut self.regs[slot];
        for_each(m, |t| reg[t] = to_scalar(v[t], ty, s));
    }

    fn exec(&mut self, s: &CStmt, m: Mask) -> Mask {
        match s {
            CStmt::SetReg {
                slot,
                s,
                value,
                cost,
            } => {
                self.charge(*cost, &m);
                let v = self.eval(value, &m);
                self.set_reg(*slot, *s, &v, value.ty, &m);
                self.give(v);
                m
            }
            CStmt::Store {
                acc,
                mem,
                elem,
                idx,
                value,
                rmw,
                cost,
            } => {
                self.charge(*cost, &m);
                let ix = self.eval(idx, &m);
                if *rmw {
                    let old = self.load(*acc, *mem, &ix, idx.ty, &m);
                    self.old.copy_from_slice(&old);
                    self.give(old);
                }
                let v = self.eval(value, &m);
                self.store(*acc, *mem, *elem, &ix, idx.ty, &v, value.ty, &m);
                self.give(v);
                self.give(ix);
                m
            }
            CStmt::VecLoad {
                acc,
                mem,
                idx,
                slots,
                cost,
                aligned,
            } => {
                self.charge(*cost, &m);
                self.exec_vec_load(*acc, *mem, idx, slots, *aligned, &m);
                m
            }
            CStmt::VecStore {
                acc,
                mem,
                elem,
                idx,
                values,
                cost,
            } => {
                self.charge(*cost, &m);
                self.exec_vec_store(*acc, *mem, *elem, idx, values, &m);
                m
            }
            CStmt::Eval(e, cost) => {
                self.charge(*cost, &m);
                let v = self.eval(e, &m);
                self.give(v);
                m
            }
            CStmt::If {
                cond,
                then,
                els,
                cost,
            } => {
                self.charge(*cost, &m);
                self.exec_if(cond, then, els, &m)
            }
            CStmt::Loop {
                cond,
                step,
                body,
                test_first,
                cost,
            } => {
                self.exec_loop(cond.as_ref(), step, body, *test_first, *cost, &m);
                m
            }
            CStmt::Break => self.leave(&m, true),
            CStmt::Continue => self.leave(&m, false),
            CStmt::Barrier => {
                self.barrier(&m);
                m
            }
            CStmt::Seq(v) => self.exec_list(v, m),
            CStmt::Atomic {
                acc,
                mem,
                elem,
                idx,
                value,
                op,
                capture,
                cost,
            } => {
                self.charge(*cost, &m);
                let target = (*acc, *mem, *elem);
                self.exec_atomic(target, idx, value.as_ref(), *op, *capture, &m);
                m
            }
        }
    }

    /// A vector load into the registers `slots` (see [`CStmt::VecLoad`]).
    /// With `aligned` the checker reports an active lane whose element is not a multiple of
    /// the vector's length from the array's start.
    fn exec_vec_load(
        &mut self,
        acc: usize,
        mem: Mem,
        idx: &CExpr,
        slots: &[(usize, Scalar)],
        aligned: bool,
        m: &[u64],
    ) {
        let ix = self.eval(idx, m);
        if aligned && self.env.opts.check {
            let width = slots.len() as i64;
            let mut bad = None;
            for_each(m, |t| {
                let i = Self::index(ix[t], idx.ty);
                if bad.is_none() && i.rem_euclid(width) != 0 {
                    bad = Some((t, i));
                }
            });
            if let Some((t, i)) = bad {
                let detail = format!("element {i} is not a multiple of {width}");
                self.find(FindingKind::MisalignedVector, acc, t, None, detail);
            }
        }
        let lanes = self.load_vector(acc, mem, &ix, idx.ty, m, slots.len());
        for ((slot, s), v) in slots.iter().zip(lanes) {
            self.set_reg(*slot, *s, &v, ty_of(*s), m);
            self.give(v);
        }
        self.give(ix);
    }

    /// A vector store of `values` (see [`CStmt::VecStore`]).
    fn exec_vec_store(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: &CExpr,
        values: &[CExpr],
        m: &[u64],
    ) {
        let ix = self.eval(idx, m);
        let vs: Vec<(Vec<u64>, Ty)> = values.iter().map(|v| (self.eval(v, m), v.ty)).collect();
        self.store_vector(acc, mem, elem, &ix, idx.ty, &vs, m);
        for (v, _) in vs {
            self.give(v);
        }
        self.give(ix);
    }

    /// Both branches of an `if`, each on the lanes that take it; returns the lanes that come
    /// out of either.
    fn exec_if(&mut self, cond: &CExpr, then: &[CStmt], els: &[CStmt], m: &[u64]) -> Mask {
        let t = self.truth_masks(cond, m);
        let f: Mask = m.iter().zip(t.iter()).map(|(a, b)| a & !b).collect();
        let mut r1 = if any(&t) { self.exec_list(then, t) } else { t };
        let r2 = if any(&f) { self.exec_list(els, f) } else { f };
        for (a, b) in r1.iter_mut().zip(r2.iter()) {
            *a |= b;
        }
        r1
    }

    /// A loop, run until no lane is active (or the iteration limit); the lanes of `m` all
    /// come out of it.
    fn exec_loop(
        &mut self,
        cond: Option<&CExpr>,
        step: &[CStmt],
        body: &[CStmt],
        test_first: bool,
        cost: Cost,
        m: &[u64],
    ) {
        let zero = vec![0u64; m.len()];
        self.loops.push((zero.clone(), zero));
        let mut act = m.to_vec();
        if test_first {
            if let Some(c) = cond {
                act = self.loop_test(c, cost, &act);
            }
        }
        while any(&act) {
            if self.past_iteration_limit(&act) {
                break;
            }
            let mut r = self.exec_list(body, act);
            if let Some((_, cont)) = self.loops.last_mut() {
                for (a, c) in r.iter_mut().zip(cont.iter_mut()) {
                    *a |= *c;
                    *c = 0;
                }
            }
            act = self.exec_list(step, r);
            if let Some(c) = cond {
                act = self.loop_test(c, cost, &act);
            }
        }
        self.loops.pop();
    }

    /// A loop's condition, charged: the lanes of `act` that go round again.
    #[inline]
    fn loop_test(&mut self, cond: &CExpr, cost: Cost, act: &[u64]) -> Mask {
        self.charge(cost, act);
        self.truth_masks(cond, act)
    }

    /// Counts one more loop iteration of the block; past the limit, reports it (once, on the
    /// first active lane of `act`) and says so.
    fn past_iteration_limit(&mut self, act: &[u64]) -> bool {
        self.iterations += 1;
        let max = self.env.opts.max_iterations;
        if self.iterations <= max {
            return false;
        }
        if self.iterations == max + 1 {
            let t = (0..self.n).find(|&t| bit(act, t)).unwrap_or(0);
            let detail = format!("{} loop iterations", max);
            self.find(FindingKind::IterationLimit, NO_ACC, t, None, detail);
        }
        true
    }

    /// `break` (`brk`) or `continue`: the lanes of `m` leave for the innermost loop's exit or
    /// its next iteration; none stays active.
    fn leave(&mut self, m: &[u64], brk: bool) -> Mask {
        if let Some((exit, cont)) = self.loops.last_mut() {
            let to = if brk { exit } else { cont };
            for (a, b) in to.iter_mut().zip(m.iter()) {
                *a |= b;
            }
        }
        vec![0; m.len()]
    }

    /// A barrier: the checker reports a block that does not reach it whole, and the shared
    /// memory's race epoch moves on.
    fn barrier(&mut self, m: &[u64]) {
        self.instructions += self.active_warps(m);
        if m != self.full {
            let missing = (0..self.n).find(|&t| !bit(m, t));
            let arrived = (0..self.n).find(|&t| bit(m, t));
            if let (Some(t), Some(o)) = (missing, arrived) {
                let other = self.tid(o);
                self.find(
                    FindingKind::PartialBarrier,
                    NO_ACC,
                    t,
                    Some(other),
                    "the first thread does not reach the barrier the second one waits at"
                        .to_string(),
                );
            }
        }
        self.epoch = self.epoch.wrapping_add(1).max(1);
    }

    /// An atomic statement on the element `idx` of `(acc, mem, elem)`, its value captured
    /// into a register when `capture` says so (see [`CStmt::Atomic`]).
    fn exec_atomic(
        &mut self,
        (acc, mem, elem): (usize, Mem, Scalar),
        idx: &CExpr,
        value: Option<&CExpr>,
        op: AtomicCOp,
        capture: Option<(usize, Scalar, bool)>,
        m: &[u64],
    ) {
        let ix = self.eval(idx, m);
        let v = value.map(|e| (self.eval(e, m), e.ty));
        let after = capture.is_some_and(|c| c.2);
        let operand = v.as_ref().map(|(x, t)| (x.as_slice(), *t));
        let got = self.atomic(acc, mem, elem, (&ix, idx.ty), operand, op, after, m);
        if let Some((slot, s, _)) = capture {
            self.set_reg(slot, s, &got, ty_of(elem), m);
        }
        self.give(got);
        if let Some((x, _)) = v {
            self.give(x);
        }
        self.give(ix);
    }
}

/// The blocks to simulate and how many blocks of the grid each stands for.
///
/// Without a sample, every block once. With a sample of `k`, a lattice over the grid's
/// dimensions (about `k` blocks: `k^(1/D)` indices along each of the `D` dimensions longer
/// than one block): along each dimension its first and last index stand for themselves (the
/// blocks where guards cut warps and halos leave the array: a verdict must see them), and
/// evenly spaced interior indices stand for the interior blocks between them, so that scaling
/// each block's counts by its weight estimates the whole grid without over-counting the
/// edges. Sorted by linear index (the launch order the cache replay follows).
fn chosen_blocks(grid: [u32; 3], sample: Option<usize>) -> (Vec<u64>, Vec<f64>) {
    let g = grid.map(|g| g.max(1) as u64);
    let total = g[0] * g[1] * g[2];
    let k = match sample {
        Some(k) if (k as u64) < total && k > 0 => k,
        _ => return ((0..total).collect(), vec![1.0; total as usize]),
    };
    let long = g.iter().filter(|&&n| n > 1).count().max(1) as i32;
    let per_dim = ((k as f64).powf(1.0 / long as f64).round() as u64).max(1);
    let axes = g.map(|n| axis_sample(n, per_dim));
    let mut chosen = Vec::new();
    for (z, wz) in &axes[2] {
        for (y, wy) in &axes[1] {
            for (x, wx) in &axes[0] {
                chosen.push((x + g[0] * (y + g[1] * z), wx * wy * wz));
            }
        }
    }
    chosen.sort_by_key(|&(b, _)| b);
    chosen.into_iter().unzip()
}

/// `m` indices of `0..n` with the number of indices each stands for: `0` and `n - 1` for
/// themselves, `m - 2` evenly spaced interior ones for the `n - 2` between them (all of them
/// when `n ≤ m`; the first alone when `m` is 1).
fn axis_sample(n: u64, m: u64) -> Vec<(u64, f64)> {
    if n <= m.max(2) {
        return (0..n).map(|i| (i, 1.0)).collect();
    }
    if m <= 1 {
        return vec![(0, n as f64)];
    }
    let inner = m - 2;
    let mut v = vec![(0, 1.0)];
    if inner == 0 {
        // Only the two ends: the first stands for all but the last.
        v[0].1 = (n - 1) as f64;
    } else {
        let w = (n - 2) as f64 / inner as f64;
        for j in 0..inner {
            // The middle of the j-th of `inner` equal strata of 1..n-1.
            let at = 1 + ((2 * j + 1) * (n - 2)) / (2 * inner);
            v.push((at, w));
        }
    }
    v.push((n - 1, 1.0));
    v
}

/// Runs one launch of `module.kernels[kernel]` over `grid` work-groups.
///
/// `args` has one entry per kernel parameter; buffer parameters name an element of `buffers`,
/// which are read and updated in place (their element types must match the parameters').
pub fn run_kernel(
    module: &Module,
    kernel: usize,
    args: &[ArgValue],
    buffers: &mut [BufData],
    grid: [u32; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let k = module
        .kernels
        .get(kernel)
        .ok_or_else(|| SimError::BadArgs(format!("no kernel {}", kernel)))?;
    let p = compile(k)?;
    run_program(&p, args, buffers, grid, platform, opts)
}

/// Runs a compiled kernel (see [`run_kernel`]).
pub fn run_program(
    p: &Program,
    args: &[ArgValue],
    buffers: &mut [BufData],
    grid: [u32; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let threads = check_launch(p, args, platform)?;
    let (params, globals) = bind_args(p, args, buffers, opts)?;
    let total = grid.iter().map(|&g| g as u64).product::<u64>();
    let (chosen, weights) = chosen_blocks(grid, opts.sample_blocks);
    let caches = &platform.cache;
    let env = Env {
        p,
        globals,
        platform,
        opts,
        grid,
        block: [p.block[0].max(1), p.block[1].max(1), p.block[2].max(1)],
        threads,
        params,
        // The channel model reads the streams too.
        record: caches.l2_bytes > 0
            || (caches.l1_global_loads && caches.l1_bytes > 0)
            || platform.channels.is_some(),
        stream_cap: cache::STREAM_BUDGET / chosen.len().max(1),
    };
    // Each block's counts are scaled by its weight as it ends (see `chosen_blocks`).
    let mut sum = Part::merge(simulate_blocks(&env, &chosen, &weights), p.accesses.len());
    // Registers count only where the platform has a register file that limits (GPUs).
    let registers = opts
        .measured_registers
        .get(&p.name)
        .copied()
        .or(p.registers)
        .filter(|_| platform.registers.is_some());
    let occupancy = platform.occupancy(threads as u32, p.shared_bytes, registers);
    let blocks_per_sm = occupancy.blocks.min(u32::MAX as u64) as u32;
    let mut channels = None;
    if env.record {
        let streams = std::mem::take(&mut sum.streams);
        (sum.cache, channels) = replay_streams(&env, streams, &chosen, blocks_per_sm);
    }
    let mut findings = std::mem::take(&mut sum.findings);
    findings.sort_by(|a, b| (a.kind, &a.access, a.thread).cmp(&(b.kind, &b.access, b.thread)));
    // The cache replay and the footprints follow the sampled blocks' streams in launch
    // order, unweighted: they scale by the blocks the sample stands for.
    let scale = if chosen.is_empty() {
        1.0
    } else {
        total as f64 / chosen.len() as f64
    };
    if env.record && scale != 1.0 {
        sum.cache.scale(scale);
    }
    let sector = platform.sector as u64;
    let footprints = (env.globals.iter().enumerate())
        .map(|(g, buf)| footprint(buf, &p.globals[g].1, sector, scale))
        .collect();
    write_back(&env.globals, buffers);
    // What is still undefined: what was, and the kernel did not write.
    let undefined = (env.globals.iter())
        .filter(|g| opts.check && opts.undefined.contains_key(&g.src))
        .map(|g| {
            let still = g
                .foot
                .iter()
                .map(|f| f.load(Relaxed) & (UNDEFINED | WRITTEN) == UNDEFINED);
            (g.src, still.collect())
        })
        .collect();
    if !opts.check {
        if let Some(f) = findings.iter().find(|f| {
            matches!(
                f.kind,
                FindingKind::OutOfBounds
                    | FindingKind::PartialBarrier
                    | FindingKind::IterationLimit
            )
        }) {
            return Err(SimError::Fault(Box::new(f.clone())));
        }
    }
    Ok(RunResult {
        stats: LaunchStats {
            kernel: p.name.clone(),
            block: env.block,
            grid,
            blocks_total: total,
            blocks_simulated: chosen.len() as u64,
            accesses: p.accesses.clone(),
            counts: sum.counts,
            instructions: sum.instructions,
            flops: sum.flops,
            footprints,
            shared_bytes: p.shared_bytes,
            blocks_per_sm,
            registers,
            limited_by: occupancy.limit,
            cache: sum.cache,
            channels,
        },
        findings,
        undefined,
    })
}

/// Checks that the platform's warp size, the argument count and the block size are ones the
/// simulator runs; returns the threads of a block.
fn check_launch(p: &Program, args: &[ArgValue], platform: &SimPlatform) -> Result<usize, SimError> {
    if !(platform.warp.is_power_of_two() && (1..=64).contains(&platform.warp)) {
        return Err(SimError::BadArgs(format!(
            "warp size {} (the simulator supports powers of two up to 64)",
            platform.warp
        )));
    }
    if args.len() != p.params.len() {
        return Err(SimError::BadArgs(format!(
            "kernel `{}` takes {} arguments, {} given",
            p.name,
            p.params.len(),
            args.len()
        )));
    }
    let threads = p
        .block
        .iter()
        .map(|&b| b.max(1) as usize)
        .product::<usize>();
    if threads == 0 || threads > 4096 {
        return Err(SimError::BadArgs(format!("block of {} threads", threads)));
    }
    Ok(threads)
}

/// The kernel's arguments bound to its parameters: the scalars' values (one per parameter,
/// 0 for buffers) and the global buffers, copied from `buffers` and laid out in one address
/// space.
fn bind_args(
    p: &Program,
    args: &[ArgValue],
    buffers: &[BufData],
    opts: &SimOptions,
) -> Result<(Vec<u64>, Vec<GBuf>), SimError> {
    let mut params = vec![0u64; args.len()];
    let mut globals = Vec::new();
    let mut base = 0u64;
    for (i, (ps, a)) in p.params.iter().zip(args).enumerate() {
        match (ps, a) {
            (ParamSlot::Reg(_, s), ArgValue::Int(v)) => {
                params[i] = to_scalar(*v as u64, Ty::I64, *s)
            }
            (ParamSlot::Reg(_, s), ArgValue::Float(v)) => {
                params[i] = to_scalar(v.to_bits(), Ty::F64, *s)
            }
            (ParamSlot::Global(g), ArgValue::Buffer(b)) => {
                let (elem, name) = &p.globals[*g];
                let data = buffers.get(*b).ok_or_else(|| {
                    SimError::BadArgs(format!("buffer {} for `{}` does not exist", b, name))
                })?;
                if !data.matches(*elem) {
                    return Err(SimError::BadArgs(format!(
                        "buffer {} for `{}` does not hold {}",
                        b,
                        name,
                        elem.c_name()
                    )));
                }
                if globals.iter().any(|x: &GBuf| x.src == *b) {
                    return Err(SimError::BadArgs(format!(
                        "buffer {} is passed twice (accshare gives each array its own buffer)",
                        b
                    )));
                }
                let n = data.len();
                let shadow = if opts.check { n } else { 0 };
                let undefined = opts.undefined.get(b).filter(|_| opts.check);
                let foot0 = |j: usize| match undefined {
                    Some(u) if u.get(j).copied().unwrap_or(false) => UNDEFINED,
                    _ => 0,
                };
                globals.push(GBuf {
                    data: (0..n).map(|j| AtomicU64::new(data.raw(j))).collect(),
                    elem: *elem,
                    size: elem.size() as u64,
                    base,
                    foot: (0..n).map(|j| AtomicU8::new(foot0(j))).collect(),
                    wr: (0..shadow).map(|_| AtomicU64::new(0)).collect(),
                    rd: (0..shadow).map(|_| AtomicU64::new(0)).collect(),
                    src: *b,
                });
                // Buffers are 256-byte aligned, as cudaMalloc / clCreateBuffer give them.
                base = (base + n as u64 * elem.size() as u64).div_ceil(256) * 256 + 256;
            }
            _ => {
                return Err(SimError::BadArgs(format!(
                    "argument {} of `{}` has the wrong kind",
                    i, p.name
                )))
            }
        }
    }
    Ok((params, globals))
}

/// What the blocks one worker simulated gave, or the sum over the workers.
#[derive(Default)]
struct Part {
    counts: Vec<AccessCounts>,
    instructions: u64,
    flops: u64,
    findings: Vec<Finding>,
    /// The blocks' sector streams (when `Env::record`), by index into the chosen blocks.
    streams: Vec<(usize, cache::BlockStream)>,
    /// Without recording, what DRAM saw directly; after the cache replay, the replay's counts.
    cache: cache::CacheCounts,
}

impl Part {
    /// The sum of the workers' parts, with `accesses` access counters.
    fn merge(parts: Vec<Part>, accesses: usize) -> Part {
        let mut sum = Part {
            counts: vec![AccessCounts::default(); accesses],
            ..Part::default()
        };
        for part in parts {
            for (a, b) in sum.counts.iter_mut().zip(part.counts.iter()) {
                a.add(b);
            }
            sum.instructions += part.instructions;
            sum.flops += part.flops;
            sum.findings.extend(part.findings);
            sum.streams.extend(part.streams);
            sum.cache.add(&part.cache);
        }
        sum
    }

    /// Adds what `blk` counted in the block it just ran, `weight` times (the blocks of the
    /// grid it stands for), and clears its counters for the next block.
    fn add_block(&mut self, blk: &mut Blk, weight: f64) {
        if self.counts.len() < blk.counts.len() {
            self.counts
                .resize(blk.counts.len(), AccessCounts::default());
        }
        for (a, c) in self.counts.iter_mut().zip(blk.counts.iter_mut()) {
            let mut c = std::mem::take(c);
            if weight != 1.0 {
                c.scale(weight);
            }
            a.add(&c);
        }
        let w = |x: &mut u64| {
            let v = std::mem::take(x);
            if weight == 1.0 {
                v
            } else {
                (v as f64 * weight).round() as u64
            }
        };
        self.instructions += w(&mut blk.instructions);
        self.flops += w(&mut blk.flops);
        let mut direct = std::mem::take(&mut blk.direct);
        if weight != 1.0 {
            direct.scale(weight);
        }
        self.cache.add(&direct);
    }
}

/// How many host threads simulate the blocks: one under the checker, else `opts.threads` or
/// the machine's parallelism, at most 64 and at most one per block.
fn worker_count(opts: &SimOptions, blocks: usize) -> usize {
    if opts.check {
        1
    } else {
        opts.threads
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            })
            .clamp(1, 64)
            .min(blocks.max(1))
    }
}

/// The coordinates of the block of linear index `b` in `grid`.
fn block_group(b: u64, grid: [u32; 3]) -> [u32; 3] {
    let g0 = grid[0].max(1) as u64;
    let g1 = grid[1].max(1) as u64;
    [
        (b % g0) as u32,
        ((b / g0) % g1) as u32,
        (b / (g0 * g1)) as u32,
    ]
}

/// Runs the `chosen` blocks on the workers (each takes the next block until none is left);
/// returns each worker's part.
fn simulate_blocks(env: &Env, chosen: &[u64], weights: &[f64]) -> Vec<Part> {
    let workers = worker_count(env.opts, chosen.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Part>> = Mutex::new(Vec::new());
    let work = || {
        let mut blk = Blk::new(env);
        let mut part = Part::default();
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(&b) = chosen.get(i) else { break };
            blk.reset(block_group(b, env.grid), b);
            let full = blk.full.clone();
            let _ = blk.exec_list(&env.p.body, full);
            part.add_block(&mut blk, weights.get(i).copied().unwrap_or(1.0));
            if env.record {
                part.streams.push((i, std::mem::take(&mut blk.stream)));
            }
        }
        part.findings = blk.findings;
        if let Ok(mut r) = results.lock() {
            r.push(part);
        }
    };
    if workers == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    results.into_inner().unwrap_or_default()
}

/// The cache replay of the blocks' sector `streams`, in block order whatever the workers did,
/// and the channel model's counts of the first wave (when the platform has channels).
fn replay_streams(
    env: &Env,
    mut streams: Vec<(usize, cache::BlockStream)>,
    chosen: &[u64],
    blocks_per_sm: u32,
) -> (cache::CacheCounts, Option<channel::ChannelCounts>) {
    let (p, platform) = (env.p, env.platform);
    streams.sort_by_key(|(i, _)| *i);
    let mut channels = None;
    if let Some(ch) = &platform.channels {
        // The first wave: the blocks resident at once, in launch (linear index) order.
        let wave = platform.sms as u64 * blocks_per_sm.max(1) as u64;
        let wave_streams: Vec<(u64, &cache::BlockStream)> =
            streams.iter().map(|(i, s)| (chosen[*i], s)).collect();
        channels = Some(channel::wave_counts(
            &wave_streams,
            wave,
            platform.sector,
            env.threads.div_ceil(platform.warp.max(1) as usize),
            ch,
        ));
    }
    let streams: Vec<cache::BlockStream> = streams.into_iter().map(|(_, s)| s).collect();
    // The L1 is what the resident blocks' shared memory leaves of a unified storage.
    let mut caches = platform.cache.clone();
    caches.l1_bytes = caches.l1_for(p.shared_bytes as u64 * blocks_per_sm.max(1) as u64);
    let t = &platform.timing;
    let counts = cache::replay(
        &streams,
        &caches,
        platform.sector,
        platform.sms,
        blocks_per_sm,
        [t.level_latency(0), t.level_latency(1), t.level_latency(2)],
    );
    (counts, channels)
}

/// The footprint of global buffer `buf` (array `array`) in `sector`-byte sectors, scaled to
/// the whole grid (`scale`) and then capped by the buffer itself.
fn footprint(buf: &GBuf, array: &str, sector: u64, scale: f64) -> Footprint {
    let mut f = Footprint {
        array: array.to_string(),
        elem_size: buf.size as u32,
        ..Default::default()
    };
    let (mut last_r, mut last_w) = (u64::MAX, u64::MAX);
    for (i, x) in buf.foot.iter().enumerate() {
        let bits = x.load(Relaxed);
        let sec = (buf.base + i as u64 * buf.size) / sector;
        if bits & 1 != 0 {
            f.read_elems += 1;
            if sec != last_r {
                last_r = sec;
                f.read_sectors += 1;
            }
        }
        if bits & 2 != 0 {
            f.written_elems += 1;
            if sec != last_w {
                last_w = sec;
                f.written_sectors += 1;
            }
        }
    }
    if scale != 1.0 {
        let s = |x: &mut u64| *x = ((*x as f64) * scale).round() as u64;
        s(&mut f.read_elems);
        s(&mut f.read_sectors);
        s(&mut f.written_elems);
        s(&mut f.written_sectors);
        // Blocks share data (a row of B serves every block of a gemm column): a scaled
        // footprint is capped by the buffer itself.
        let n = buf.data.len() as u64;
        let all_sectors = if n == 0 {
            0
        } else {
            (buf.base + n * buf.size - 1) / sector - buf.base / sector + 1
        };
        f.read_elems = f.read_elems.min(n);
        f.written_elems = f.written_elems.min(n);
        f.read_sectors = f.read_sectors.min(all_sectors);
        f.written_sectors = f.written_sectors.min(all_sectors);
    }
    f
}

/// Writes the global buffers back into the caller's.
fn write_back(globals: &[GBuf], buffers: &mut [BufData]) {
    for buf in globals {
        let dst = &mut buffers[buf.src];
        for (i, x) in buf.data.iter().enumerate() {
            dst.set_raw(i, x.load(Relaxed));
        }
        let _ = buf.elem;
    }
}

#[cfg(test)]
mod tests {
    use super::chosen_blocks;

    /// A sample holds every dimension's first and last blocks, and its weights add up to the
    /// grid, without a block twice.
    #[test]
    fn a_sample_holds_the_edges_and_stands_for_the_whole_grid() {
        for (grid, k) in [
            ([100, 1, 1], 10),
            ([64, 256, 1], 16),
            ([24, 16, 1], 16),
            ([5, 7, 9], 27),
            ([3, 1000, 1], 10),
            ([1000, 1, 1], 2),
            ([1000, 1, 1], 1),
        ] {
            let (chosen, weights) = chosen_blocks(grid, Some(k));
            let total = grid.iter().map(|&g| g as u64).product::<u64>();
            let sum: f64 = weights.iter().sum();
            assert!((sum - total as f64).abs() < 1e-6, "{grid:?} {k}: {sum}");
            assert!(
                chosen.windows(2).all(|w| w[0] < w[1]),
                "{grid:?}: {chosen:?}"
            );
            assert!(chosen.len() <= 2 * k, "{grid:?} {k}: {}", chosen.len());
            if k >= 2 {
                let last = [grid[0] - 1, grid[1] - 1, grid[2] - 1];
                let at = |x: u32, y: u32, z: u32| {
                    x as u64 + grid[0] as u64 * (y as u64 + grid[1] as u64 * z as u64)
                };
                for b in [
                    at(0, 0, 0),
                    at(last[0], last[1], last[2]),
                    at(0, last[1], 0),
                ] {
                    assert!(chosen.contains(&b), "{grid:?} {k}: {b} not in {chosen:?}");
                }
            }
        }
        // No sample, or one as large as the grid: every block once.
        let (all, w) = chosen_blocks([4, 3, 1], Some(12));
        assert_eq!(all, (0..12).collect::<Vec<u64>>());
        assert!(w.iter().all(|&w| w == 1.0));
        assert_eq!(chosen_blocks([4, 3, 1], None).0.len(), 12);
    }
}
