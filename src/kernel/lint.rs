//! The coalescing lint: a static classification of every global access from its flat index.
//!
//! The abstract value of an integer expression (after GPUDrano, seed 003, with the corrections of
//! the digest) is either ⊤ (depends on data, or assigned under a thread-dependent branch) or
//! `Σ_d c_d · local_id(d) + u`: a coefficient per thread dimension (x, y **and** z), each a known
//! rational (quasi-affine `/` and `%` by constants keep a fractional coefficient, so
//! `tid/4*4` is stride 1, not ⊤) or a symbolic non-zero uniform value (`N`), plus a uniform part
//! `u` of which we know, when we can, the exact value and the residue modulo 128 elements.
//!
//! The verdict of an access lays the lanes of the block's first warp out over (x, y, z) as the
//! hardware does (x fastest), computes the sectors that warp touches with the uniform part at 0,
//! and compares with the minimum for the bytes requested:
//! - all lanes on one element: *broadcast*;
//! - more sectors than the minimum: *uncoalesced-by-stride* (a symbolic stride along a dimension
//!   that varies inside the warp is one too);
//! - otherwise the uniform part decides: a multiple of the sector (in elements) is *coalesced*,
//!   a known other residue is *uncoalesced-by-alignment*, an unknown one is *unknown*;
//! - ⊤: *unknown*.
//!
//! Stride-1 `double` is minimal (2 lines, 8 sectors for 32 lanes): coalesced, unlike GPUDrano's
//! `k > 4` rule.

use std::collections::HashMap;

use super::access::{AccessInfo, AccessKind};
use super::{ArrayRef, AtomicOp, Builtin, KExpr, KParamKind, KStmt, Kernel, LValue, Space};
use crate::front::ast::{BinOp, UnOp};
use crate::model::WarpMemory;

const MODULUS: i64 = 128;

#[derive(Copy, Clone, Debug, PartialEq)]
enum Co {
    K(f64),
    Sym,
}

impl Co {
    fn is_zero(self) -> bool {
        self == Co::K(0.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Av {
    Top,
    Lin {
        co: [Co; 3],
        /// Exact uniform part, if known.
        k: Option<i64>,
        /// Uniform part modulo a power of two (`m == 1`: nothing known).
        res: Res,
    },
}

/// `r` modulo `m`, `m` a power of two at most [`MODULUS`].
#[derive(Copy, Clone, Debug, PartialEq)]
struct Res {
    r: i64,
    m: i64,
}

const NO_RES: Res = Res { r: 0, m: 1 };

/// The largest power of two (≤ MODULUS) dividing `r`.
fn pow2(r: i64) -> i64 {
    if r == 0 {
        MODULUS
    } else {
        (1i64 << r.trailing_zeros().min(7)).min(MODULUS)
    }
}

impl Res {
    fn exact(k: i64) -> Res {
        Res {
            r: k.rem_euclid(MODULUS),
            m: MODULUS,
        }
    }
    fn new(r: i64, m: i64) -> Res {
        let m = m.clamp(1, MODULUS);
        Res {
            r: r.rem_euclid(m),
            m,
        }
    }
    fn add(self, o: Res, sign: i64) -> Res {
        Res::new(self.r + sign * o.r, self.m.min(o.m))
    }
    fn mul(self, o: Res) -> Res {
        let m = (self.m * pow2(o.r))
            .min(o.m * pow2(self.r))
            .min(self.m * o.m);
        Res::new(self.r * o.r, m)
    }
    fn join(self, o: Res) -> Res {
        let mut m = self.m.min(o.m);
        while m > 1 && self.r % m != o.r % m {
            m /= 2;
        }
        Res::new(self.r, m)
    }
}

fn uni(k: Option<i64>) -> Av {
    Av::Lin {
        co: [Co::K(0.0); 3],
        k,
        res: k.map(Res::exact).unwrap_or(NO_RES),
    }
}

fn unknown() -> Av {
    uni(None)
}

impl Av {
    fn uniform(&self) -> bool {
        matches!(self, Av::Lin { co, .. } if co.iter().all(|c| c.is_zero()))
    }
    fn konst(&self) -> Option<i64> {
        match self {
            Av::Lin { k, .. } if self.uniform() => *k,
            _ => None,
        }
    }
}

fn join(a: &Av, b: &Av) -> Av {
    if a == b {
        return a.clone();
    }
    match (a, b) {
        (
            Av::Lin {
                co: c1, res: r1, ..
            },
            Av::Lin {
                co: c2, res: r2, ..
            },
        ) if c1 == c2 => Av::Lin {
            co: *c1,
            k: None,
            res: r1.join(*r2),
        },
        _ => Av::Top,
    }
}

fn add(a: &Av, b: &Av, sign: f64) -> Av {
    match (a, b) {
        (
            Av::Lin {
                co: c1,
                k: k1,
                res: r1,
            },
            Av::Lin {
                co: c2,
                k: k2,
                res: r2,
            },
        ) => {
            let mut co = [Co::K(0.0); 3];
            for d in 0..3 {
                co[d] = match (c1[d], c2[d]) {
                    (Co::K(x), Co::K(y)) => Co::K(x + sign * y),
                    (Co::Sym, Co::K(0.0)) => Co::Sym,
                    (Co::K(0.0), Co::Sym) => Co::Sym,
                    _ => return Av::Top,
                };
            }
            let s = sign as i64;
            Av::Lin {
                co,
                k: match (k1, k2) {
                    (Some(x), Some(y)) => x.checked_add(s * y),
                    _ => None,
                },
                res: r1.add(*r2, s),
            }
        }
        _ => Av::Top,
    }
}

/// `a * b` where `b` is uniform.
fn scale(a: &Av, b: &Av) -> Av {
    let (Av::Lin { co, k, res }, Av::Lin { k: kb, res: rb, .. }) = (a, b) else {
        return Av::Top;
    };
    let mut out = [Co::K(0.0); 3];
    for d in 0..3 {
        out[d] = match (co[d], kb) {
            (c, _) if c.is_zero() => Co::K(0.0),
            (_, Some(0)) => Co::K(0.0),
            (Co::K(x), Some(v)) => Co::K(x * *v as f64),
            _ => Co::Sym,
        };
    }
    let res = res.mul(*rb);
    Av::Lin {
        co: out,
        k: match (k, kb) {
            (Some(x), Some(y)) => x.checked_mul(*y),
            _ => None,
        },
        res,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Coalesced,
    Broadcast,
    UncoalescedStride,
    UncoalescedAlignment,
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Coalesced => "coalesced",
            Verdict::Broadcast => "broadcast",
            Verdict::UncoalescedStride => "uncoalesced-by-stride",
            Verdict::UncoalescedAlignment => "uncoalesced-by-alignment",
            Verdict::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LintItem {
    /// The kernel's origin (`file:line` of its compute construct).
    pub origin: String,
    pub access: AccessInfo,
    pub verdict: Verdict,
    /// Why, in words (strides per dimension, residue).
    pub reason: String,
}

impl LintItem {
    /// The warning text for uncoalesced accesses, with advice.
    pub fn message(&self) -> Option<(String, String)> {
        let what = format!("{} {}", self.access.kind.name(), self.access.label);
        match self.verdict {
            Verdict::UncoalescedStride => Some((
                format!("uncoalesced {}: {}", what, self.reason),
                format!(
                    "stage `{}` through shared memory with `#pragma acc share({}[..]:coalesce)`, or map the loop that walks its last dimension to x",
                    self.access.array, self.access.array
                ),
            )),
            Verdict::UncoalescedAlignment => Some((
                format!("misaligned {}: {}", what, self.reason),
                "pad rows to a multiple of 128 bytes, or stage the tile with a `share` clause"
                    .to_string(),
            )),
            _ => None,
        }
    }
}

struct Walker<'k> {
    kernel: &'k Kernel,
    env: Vec<HashMap<String, Av>>,
    next: usize,
    /// Per access number: the abstract value of its index (at the last visit).
    found: Vec<Option<Av>>,
    /// Per access number: the reference and what it does (at the first visit).
    refs: Vec<Option<(ArrayRef, AccessKind)>>,
}

impl Walker<'_> {
    /// Records access `id`: the abstract value of its index, and (once) what it is.
    fn record(&mut self, id: usize, r: &ArrayRef, kind: AccessKind, idx: Av) {
        if self.found.len() <= id {
            self.found.resize(id + 1, None);
            self.refs.resize(id + 1, None);
        }
        self.found[id] = Some(idx);
        if self.refs[id].is_none() {
            self.refs[id] = Some((r.clone(), kind));
        }
    }

    fn get(&self, n: &str) -> Av {
        self.env
            .iter()
            .rev()
            .find_map(|s| s.get(n))
            .cloned()
            .unwrap_or_else(unknown)
    }

    fn set(&mut self, n: &str, v: Av) {
        for s in self.env.iter_mut().rev() {
            if let Some(x) = s.get_mut(n) {
                *x = v;
                return;
            }
        }
        if let Some(s) = self.env.last_mut() {
            s.insert(n.to_string(), v);
        }
    }

    fn expr(&mut self, e: &KExpr) -> Av {
        match e {
            KExpr::Var(n) => self.get(n),
            KExpr::Int(v, _) => uni(Some(*v)),
            KExpr::Float(..) => unknown(),
            KExpr::Load(r) => {
                self.next += 1; // numbered, recorded below
                let id = self.next - 1;
                let idx = self.expr(&r.index);
                self.record(id, r, AccessKind::Load, idx.clone());
                if idx.uniform() {
                    unknown()
                } else {
                    Av::Top
                }
            }
            KExpr::Unary(op, a) => {
                let a = self.expr(a);
                match op {
                    UnOp::Plus => a,
                    UnOp::Neg => add(&uni(Some(0)), &a, -1.0),
                    _ if a.uniform() => unknown(),
                    _ => Av::Top,
                }
            }
            KExpr::Binary(op, a, b) => {
                let a = self.expr(a);
                let b = self.expr(b);
                bin(*op, a, b)
            }
            KExpr::Cond(c, a, b) => {
                let c = self.expr(c);
                let a = self.expr(a);
                let b = self.expr(b);
                if a == b {
                    a
                } else if c.uniform() {
                    join(&a, &b)
                } else {
                    Av::Top
                }
            }
            KExpr::Cast(_, a) => self.expr(a),
            KExpr::Call(_, args) => {
                let vs: Vec<Av> = args.iter().map(|a| self.expr(a)).collect();
                if vs.iter().all(Av::uniform) {
                    unknown()
                } else {
                    Av::Top
                }
            }
            KExpr::Builtin(b) => self.builtin(*b),
        }
    }
}

fn bin(op: BinOp, a: Av, b: Av) -> Av {
    match op {
        BinOp::Add => add(&a, &b, 1.0),
        BinOp::Sub => add(&a, &b, -1.0),
        BinOp::Mul if b.uniform() => scale(&a, &b),
        BinOp::Mul if a.uniform() => scale(&b, &a),
        BinOp::Shl if b.konst().is_some_and(|s| (0..32).contains(&s)) => {
            let s = b.konst().unwrap_or(0);
            scale(&a, &uni(Some(1 << s)))
        }
        BinOp::Div | BinOp::Shr => {
            let c = match (op, b.konst()) {
                (BinOp::Div, Some(c)) if c > 0 => c,
                (BinOp::Shr, Some(s)) if (0..32).contains(&s) => 1 << s,
                _ => {
                    return if a.uniform() && b.uniform() {
                        unknown()
                    } else {
                        Av::Top
                    }
                }
            };
            match a {
                Av::Lin { co, k, .. } => {
                    let mut out = co;
                    for x in out.iter_mut() {
                        if let Co::K(v) = x {
                            *x = Co::K(*v / c as f64);
                        }
                    }
                    let k = k.map(|v| v / c);
                    Av::Lin {
                        co: out,
                        k,
                        res: k.map(Res::exact).unwrap_or(NO_RES),
                    }
                }
                Av::Top => Av::Top,
            }
        }
        BinOp::Rem => match (a, b.konst()) {
            (Av::Lin { co, k, res }, Some(c)) if c > 0 => Av::Lin {
                co,
                k: k.map(|v| v % c),
                res: match k {
                    Some(v) => Res::exact(v % c),
                    None if pow2(c) == c || c % MODULUS == 0 => Res::new(res.r, res.m.min(c)),
                    None => NO_RES,
                },
            },
            (a, _) if a.uniform() && b.uniform() => unknown(),
            _ => Av::Top,
        },
        _ if a.uniform() && b.uniform() => unknown(),
        _ => Av::Top,
    }
}

impl Walker<'_> {
    fn builtin(&self, b: Builtin) -> Av {
        {
            {
                let block = self.kernel.block;
                match b {
                    Builtin::LocalId(d) => {
                        let mut co = [Co::K(0.0); 3];
                        co[d.min(2) as usize] = Co::K(1.0);
                        Av::Lin {
                            co,
                            k: Some(0),
                            res: Res::exact(0),
                        }
                    }
                    Builtin::LocalSize(d) => uni(Some(block[d.min(2) as usize] as i64)),
                    Builtin::GroupId(_) | Builtin::NumGroups(_) => unknown(),
                    Builtin::GlobalId(d) => {
                        let d = d.min(2) as usize;
                        let mut co = [Co::K(0.0); 3];
                        co[d] = Co::K(1.0);
                        Av::Lin {
                            co,
                            k: None,
                            // group * block size: a multiple of the block size's power of two
                            res: Res::new(0, pow2(block[d] as i64)),
                        }
                    }
                }
            }
        }
    }

    /// Names assigned (not declared) in statements.
    fn assigned(v: &[KStmt], out: &mut Vec<String>) {
        for s in v {
            match s {
                KStmt::Assign {
                    target: LValue::Var(n),
                    ..
                } => out.push(n.clone()),
                KStmt::Atomic {
                    capture: Some(c), ..
                } => out.push(c.var.clone()),
                KStmt::If { then, els, .. } => {
                    Self::assigned(then, out);
                    Self::assigned(els, out);
                }
                KStmt::For {
                    init, step, body, ..
                } => {
                    Self::assigned(init, out);
                    Self::assigned(step, out);
                    Self::assigned(body, out);
                }
                KStmt::While { body, .. } | KStmt::DoWhile { body, .. } => {
                    Self::assigned(body, out)
                }
                KStmt::Block(b) => Self::assigned(b, out),
                _ => {}
            }
        }
    }

    fn stmts(&mut self, v: &[KStmt]) {
        for s in v {
            self.stmt(s);
        }
    }

    fn scoped(&mut self, v: &[KStmt]) {
        self.env.push(HashMap::new());
        self.stmts(v);
        self.env.pop();
    }

    fn snapshot(&self) -> Vec<HashMap<String, Av>> {
        self.env.clone()
    }

    /// Joins the current environment with `other` (same scopes) pointwise.
    fn join_env(&mut self, other: &[HashMap<String, Av>], divergent: bool) {
        for (s, o) in self.env.iter_mut().zip(other.iter()) {
            for (k, v) in s.iter_mut() {
                if let Some(w) = o.get(k) {
                    if v != w {
                        *v = if divergent { Av::Top } else { join(v, w) };
                    }
                }
            }
        }
    }

    fn taint(&mut self, names: &[String]) {
        for n in names {
            if self.env.iter().any(|s| s.contains_key(n)) {
                self.set(n, Av::Top);
            }
        }
    }

    fn looping(&mut self, cond: Option<&KExpr>, body: &[KStmt], step: &[KStmt], test_first: bool) {
        let start = self.next;
        let mut divergent = false;
        for _ in 0..3 {
            self.next = start;
            let before = self.snapshot();
            if test_first {
                if let Some(c) = cond {
                    divergent |= !self.expr(c).uniform();
                }
            }
            self.scoped(body);
            self.stmts(step);
            if !test_first {
                if let Some(c) = cond {
                    divergent |= !self.expr(c).uniform();
                }
            }
            self.join_env(&before, false);
        }
        if divergent {
            let mut names = Vec::new();
            Self::assigned(body, &mut names);
            Self::assigned(step, &mut names);
            self.taint(&names);
        }
    }

    fn stmt(&mut self, s: &KStmt) {
        match s {
            KStmt::Decl {
                name, init, len, ..
            } => {
                let v = match (init, len) {
                    (Some(e), _) => self.expr(e),
                    (None, None) => unknown(),
                    (None, Some(_)) => return,
                };
                if let Some(sc) = self.env.last_mut() {
                    sc.insert(name.clone(), v);
                }
            }
            KStmt::Assign { target, op, value } => match target {
                LValue::Var(n) => {
                    let v = self.expr(value);
                    let v = match op {
                        None => v,
                        Some(op) => bin(*op, self.get(n), v),
                    };
                    self.set(n, v);
                }
                LValue::Elem(r) => {
                    let id = self.next;
                    self.next += 1;
                    let idx = self.expr(&r.index);
                    let kind = if op.is_some() {
                        AccessKind::Update
                    } else {
                        AccessKind::Store
                    };
                    self.record(id, r, kind, idx);
                    let _ = self.expr(value);
                }
            },
            KStmt::Expr(e) => {
                let _ = self.expr(e);
            }
            KStmt::If { cond, then, els } => {
                let c = self.expr(cond);
                let divergent = !c.uniform();
                let before = self.snapshot();
                self.scoped(then);
                let after_then = self.snapshot();
                self.env = before;
                self.scoped(els);
                self.join_env(&after_then, divergent);
            }
            KStmt::For {
                init,
                cond,
                step,
                body,
            } => {
                self.env.push(HashMap::new());
                self.stmts(init);
                self.looping(cond.as_ref(), body, step, true);
                self.env.pop();
            }
            KStmt::While { cond, body } => self.looping(Some(cond), body, &[], true),
            KStmt::DoWhile { body, cond } => self.looping(Some(cond), body, &[], false),
            KStmt::Block(b) => self.scoped(b),
            KStmt::Atomic {
                target,
                op,
                capture,
                ..
            } => {
                // Numbered as the simulator numbers it: the element, then the operands.
                let id = self.next;
                self.next += 1;
                let idx = self.expr(&target.index);
                let kind = match op {
                    AtomicOp::Read => AccessKind::Load,
                    _ => AccessKind::Update,
                };
                self.record(id, target, kind, idx);
                for e in s.atomic_operands().into_iter().skip(1) {
                    let _ = self.expr(e);
                }
                if let Some(c) = capture {
                    self.set(&c.var, unknown());
                }
            }
            KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => {}
        }
    }
}

/// A global access to an array that is not a buffer parameter of its kernel (the validator
/// rejects such kernels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBuffer {
    pub kernel: String,
    pub array: String,
}

impl std::fmt::Display for UnknownBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kernel `{}`: `{}` is not a buffer parameter",
            self.kernel, self.array
        )
    }
}

/// Classifies the global accesses of a kernel (others are not listed), numbered as
/// [`super::access`] says, against the memory geometry of `memory` (a platform).
pub fn lint_kernel(
    kernel: &Kernel,
    memory: impl Into<WarpMemory>,
) -> Result<Vec<LintItem>, UnknownBuffer> {
    let memory = memory.into();
    let mut w = Walker {
        kernel,
        env: vec![HashMap::new()],
        next: 0,
        found: Vec::new(),
        refs: Vec::new(),
    };
    w.scoped(&kernel.body);
    let mut out = Vec::new();
    for (id, r) in w.refs.iter().enumerate() {
        let Some((r, kind)) = r else {
            continue;
        };
        if r.space != Space::Global {
            continue;
        }
        let elem = kernel
            .params
            .iter()
            .find_map(|p| match p.kind {
                KParamKind::Buffer { elem, .. } if p.name == r.array => Some(elem),
                _ => None,
            })
            .ok_or_else(|| UnknownBuffer {
                kernel: kernel.name.clone(),
                array: r.array.clone(),
            })?;
        let av = w.found.get(id).cloned().flatten().unwrap_or(Av::Top);
        let (verdict, reason) = classify(&av, elem.size() as u64, kernel.block, &memory);
        out.push(LintItem {
            origin: kernel.origin.clone(),
            access: AccessInfo::new(&kernel.name, id, r, *kind, elem),
            verdict,
            reason,
        });
    }
    Ok(out)
}

fn classify(av: &Av, size: u64, block: [u32; 3], p: &WarpMemory) -> (Verdict, String) {
    let Av::Lin { co, res, .. } = av else {
        return (
            Verdict::Unknown,
            "the index depends on loaded data or on a thread-dependent branch".to_string(),
        );
    };
    let b = [
        block[0].max(1) as u64,
        block[1].max(1) as u64,
        block[2].max(1) as u64,
    ];
    let lanes = (p.warp as u64).min(b[0] * b[1] * b[2]);
    let coords = |l: u64| [l % b[0], (l / b[0]) % b[1], l / (b[0] * b[1])];
    let dims = ["x", "y", "z"];
    let mut varies = [false; 3];
    for l in 0..lanes {
        let c = coords(l);
        for d in 0..3 {
            varies[d] |= c[d] != 0;
        }
    }
    let describe = || {
        let mut parts = Vec::new();
        for d in 0..3 {
            match co[d] {
                Co::K(0.0) => {}
                Co::K(v) => parts.push(format!("{} B along {}", v * size as f64, dims[d])),
                Co::Sym => parts.push(format!("a run-time stride along {}", dims[d])),
            }
        }
        if parts.is_empty() {
            "no thread dependence".to_string()
        } else {
            parts.join(", ")
        }
    };
    for d in 0..3 {
        if varies[d] && co[d] == Co::Sym {
            return (
                Verdict::UncoalescedStride,
                format!(
                    "stride {} (one warp spans {} values of {})",
                    describe(),
                    lanes.min(b[d]),
                    dims[d]
                ),
            );
        }
    }
    let mut elems: Vec<i64> = (0..lanes)
        .map(|l| {
            let c = coords(l);
            let mut x = 0.0;
            for d in 0..3 {
                if let Co::K(v) = co[d] {
                    x += v * c[d] as f64;
                }
            }
            x.floor() as i64
        })
        .collect();
    elems.sort_unstable();
    elems.dedup();
    if elems.len() == 1 {
        return (
            Verdict::Broadcast,
            "every lane of a warp reads one element".to_string(),
        );
    }
    let sector = p.sector as i64;
    let mut sectors: Vec<i64> = elems
        .iter()
        .map(|e| (e * size as i64).div_euclid(sector))
        .collect();
    sectors.dedup();
    let line = p.line as i64;
    let mut lines: Vec<i64> = elems
        .iter()
        .map(|e| (e * size as i64).div_euclid(line))
        .collect();
    lines.dedup();
    let bytes = elems.len() as u64 * size;
    let min = bytes.div_ceil(p.sector as u64);
    let min_lines = bytes.div_ceil(p.line as u64);
    if sectors.len() as u64 > min || lines.len() as u64 > min_lines {
        return (
            Verdict::UncoalescedStride,
            format!(
                "stride {}: a warp touches {} sectors in {} lines where {} in {} would do",
                describe(),
                sectors.len(),
                lines.len(),
                min,
                min_lines
            ),
        );
    }
    // Alignment: the start of every warp of the block (the uniform part plus the first lane's
    // thread offsets) against the line, in elements.
    // A warp's bytes fit the fewest sectors and lines when its start is aligned to the
    // smaller of the line and the power of two that holds them.
    let span = bytes.next_power_of_two().min(p.line as u64);
    let m = (span / size).clamp(1, MODULUS as u64) as i64;
    let warps = (b[0] * b[1] * b[2]).div_ceil(lanes.max(1));
    let (mut misaligned, mut unknown_w, mut first_bad) = (0u64, 0u64, None);
    for w in 0..warps {
        let c = coords(w * lanes);
        let mut off = 0.0;
        let mut sym = false;
        for d in 0..3 {
            match co[d] {
                Co::K(v) => off += v * c[d] as f64,
                Co::Sym if c[d] != 0 => sym = true,
                Co::Sym => {}
            }
        }
        if sym || off.fract() != 0.0 {
            unknown_w += 1;
            continue;
        }
        let start = Res::new(res.r + off as i64, res.m);
        if start.m >= m {
            if start.r % m != 0 {
                misaligned += 1;
                first_bad.get_or_insert(start.r % m);
            }
        } else if start.r != 0 {
            misaligned += 1;
            first_bad.get_or_insert(start.r);
        } else {
            unknown_w += 1;
        }
    }
    if misaligned > 0 {
        (
            Verdict::UncoalescedAlignment,
            format!(
                "stride {} but {} of the {} warps of a block start {} B past a {}-byte boundary",
                describe(),
                misaligned,
                warps,
                first_bad.unwrap_or(0) * size as i64,
                span
            ),
        )
    } else if unknown_w > 0 {
        (
            Verdict::Unknown,
            format!(
                "stride {}; the alignment of the start depends on run-time values",
                describe()
            ),
        )
    } else {
        (Verdict::Coalesced, format!("stride {}", describe()))
    }
}
