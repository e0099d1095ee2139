//! The coalescing lint: a static classification of every global access of a kernel.
//!
//! GPUDrano (seed 003) reasons on an abstract affine form of the index; its `/` and `%` cannot
//! be both exact and sound (a staged tile copy `(o + l / W) * W + l % W` is contiguous in `l`,
//! which no affine form shows), and its verdicts inside sequential loops only see one iteration.
//! This lint instead *evaluates* the kernel, without its data, for every lane of a few
//! representative blocks (the first ones, and every block holding a bound the kernel's guards
//! compare with, where edge rows and a staged tile's last columns are) with C's integer
//! semantics, and lays each evaluated request out as the memory system does, exactly as the
//! simulator counts it (`sim::exec::run::access`):
//! - built-ins get their values for those blocks; integer scalar parameters are bound to
//!   representative values, twice: once to a multiple of 128 (`1024`) and once to an odd value
//!   (`1001`, the rows of an array of that length are not aligned), so that an access that is
//!   uncoalesced for *some* run-time size is reported, with the value that shows it;
//! - sequential loops run their first [`ITERATIONS`] iterations (every lane its own), so
//!   accesses whose alignment changes from one iteration to the next are seen;
//! - a value loaded from memory, or computed from one, is *data*: a symbol (`c·s + k`, hash-consed
//!   per block, so that lanes that load one address, or compute one operation on equal operands,
//!   hold one symbol). An index whose lanes in a warp share one symbol has a *uniform* unknown
//!   base (a CSR row start `rowstr[j]` with `j` the same over the warp, plus `tx`): its strides
//!   are exact, and it is laid out for every alignment the base can have (modulo a line): coalesced
//!   if it is for all of them, else uncoalesced, the reason naming the load and saying that the
//!   data decides the alignment. An index whose lanes hold different symbols (a gather
//!   `src[idx[i]]`, a histogram's `hist[b]`) is *per lane*: `uncoalesced-by-data`, flagged, the
//!   reason naming the load (no data can be known statically; it is coalesced only for data that
//!   gives neighbouring lanes neighbouring elements). A floating-point index, or one from a
//!   variable without a value, is the only `unknown` verdict;
//! - a branch on data runs both ways, and an access that lanes take under it over more than one
//!   sector is uncoalesced (a data-dependent subset of the lanes uses part of each sector: the
//!   simulator counts it so), unless every lane of the warp runs under the same symbolic
//!   condition (a loop between loaded bounds that are uniform over the warp: all lanes run or
//!   none does). This can be a false alarm when the data makes the condition true for nearly all
//!   lanes (`(k >= 0) ? w[i] … : 0` with few negative `k`): only the data can tell.
//!
//! A request is a warp's active lanes at one execution of the access. It is uncoalesced when it
//! touches more sectors or lines than the fewest that hold its distinct bytes: by *alignment*
//! when those bytes are contiguous, else by *stride*. A request with one active lane moves one
//! element in one sector, which is the fewest there is: coalesced (a broadcast), here and in the
//! simulator; a lint that called it uncoalesced would warn about an access the hardware serves
//! with its minimum (edge rows of a guarded grid), so both count it as minimal.
//! The verdict of an access: uncoalesced (by stride or by alignment, whichever more requests
//! are) if any evaluated request is, else uncoalesced by data if a request indexed by data per
//! lane, else uncoalesced by stride if lanes took it under a per-lane condition on data, else
//! `unknown` if an index was not known, else broadcast if every request read one element, else
//! coalesced.

use std::collections::HashMap;

use super::access::{AccessInfo, AccessKind};
use super::{
    Arena, ArrayRef, AtomicCapture, AtomicOp, Builtin, Handle, KArray, KExpr, KParamKind, KStmt,
    KVar, Kernel, LValue, Space,
};
use crate::model::WarpMemory;
use crate::vocab::{BinOp, Scalar, UnOp};

/// Iterations of each sequential loop the evaluation runs per entry.
const ITERATIONS: usize = 16;
/// Statements executed per evaluated block, at most (a bound on the lint's time).
const BUDGET: usize = 4000;
/// Blocks evaluated per grid dimension, at most.
const GROUPS: usize = 12;
/// The representative values of integer scalar parameters.
const BINDINGS: [i64; 2] = [1024, 1001];

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Coalesced,
    Broadcast,
    UncoalescedStride,
    UncoalescedAlignment,
    /// Lanes of a warp index with values loaded from memory that differ per lane (a gather
    /// `src[idx[i]]`, a histogram's `hist[b]`): uncoalesced unless the data is sequential.
    UncoalescedData,
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Coalesced => "coalesced",
            Verdict::Broadcast => "broadcast",
            Verdict::UncoalescedStride => "uncoalesced-by-stride",
            Verdict::UncoalescedAlignment => "uncoalesced-by-alignment",
            Verdict::UncoalescedData => "uncoalesced-by-data",
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
    /// The array whose loaded values the index depends on ([`Verdict::UncoalescedData`], or a
    /// verdict that holds only for some alignment of a loaded base), with the load's label.
    pub data: Option<(String, String)>,
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
            Verdict::UncoalescedData => Some((
                format!(
                    "uncoalesced {} unless the data is sequential: {}",
                    what, self.reason
                ),
                "sort or bin the data so that neighbouring lanes read neighbouring elements, or give each warp one index (a warp-wide row) and let its lanes walk it along x"
                    .to_string(),
            )),
            _ => None,
        }
    }

    /// The note for an access without a static verdict (its index depends on data): why.
    pub fn unknown_note(&self) -> Option<String> {
        (self.verdict == Verdict::Unknown).then(|| {
            format!(
                "no coalescing verdict for {} {}: {}",
                self.access.kind.name(),
                self.access.label,
                self.reason
            )
        })
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

/// Why a lane's value is not known statically.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Why {
    /// Loaded by the access of that number, or computed from such a value.
    Load(usize),
    /// A floating-point value (a cast or a math function).
    Float,
    /// A variable declared without a value, a name bound to nothing, or an undefined operation.
    Unset,
}

/// A lane's value: known, or `c * s + k` for a value `s` the lint does not know: a value loaded
/// from memory (data) or an operation on such values. Symbols are hash-consed per evaluated
/// block ([`Exec::intern`]): one load of one address, or one operation on equal operands, is one
/// symbol, so lanes that hold the same symbol hold the same value. An index whose lanes in a
/// warp share one symbol with one coefficient has a *uniform* unknown base (`a[rowstr[j] + tx]`
/// for `j` the same over the warp): its strides are known and only its alignment is not; lanes
/// that hold different symbols (or some a symbol, some not) index *per lane* by data.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum V {
    K(i64),
    S { s: u32, c: i64, k: i64 },
}

impl V {
    /// `self * mul + add`, without new symbols.
    fn affine(self, mul: i64, add: i64) -> V {
        match self {
            V::K(x) => V::K(x.wrapping_mul(mul).wrapping_add(add)),
            V::S { .. } if mul == 0 => V::K(add),
            V::S { s, c, k } => V::S {
                s,
                c: c.wrapping_mul(mul),
                k: k.wrapping_mul(mul).wrapping_add(add),
            },
        }
    }

    /// `b - a` when it is known (both known, or one symbol with one coefficient).
    fn diff(a: V, b: V) -> Option<i64> {
        match (a, b) {
            (V::K(x), V::K(y)) => Some(y.wrapping_sub(x)),
            (V::S { s, c, k: x }, V::S { s: s2, c: c2, k: y }) if s == s2 && c == c2 => {
                Some(y.wrapping_sub(x))
            }
            _ => None,
        }
    }
}

type Val = Result<V, Why>;

/// What a symbol stands for (its hash-consing key).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The value the execution `serial` of a load read at that index.
    Load(u64, V),
    /// A value of one lane only (an atomic's capture, a load at an unknown address).
    Lane(u64, usize),
    Op(BinOp, V, V),
    Un(UnOp, V),
    Cast(Scalar, V),
    /// `abs` (0), `min` (1), `max` (2).
    Call(u8, V, V),
    /// `c ? a : b`.
    Sel(V, V, V),
    /// A variable after a branch on `c`: (c, before, after `then`, after `else`).
    Phi(V, V, V, V),
}

/// Every [`ArrayRef`] of a kernel numbered as [`super::access`] numbers them (pre-order, an
/// assignment's target before its value, an atomic's element before its operands).
struct Numbering<'k> {
    /// The kernel's arrays.
    arrays: &'k Arena<KArray>,
    /// The kernel's scalars.
    vars: &'k Arena<KVar>,
    ids: HashMap<*const ArrayRef, usize>,
    refs: Vec<(&'k ArrayRef, AccessKind)>,
}

impl<'k> Numbering<'k> {
    fn add(&mut self, r: &'k ArrayRef, kind: AccessKind) {
        self.ids.insert(r as *const ArrayRef, self.refs.len());
        self.refs.push((r, kind));
    }

    fn expr(&mut self, e: &'k KExpr) {
        match e {
            KExpr::Load(r) => {
                self.add(r, AccessKind::Load);
                self.expr(&r.index);
            }
            KExpr::Unary(_, a) | KExpr::Cast(_, a) => self.expr(a),
            KExpr::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            KExpr::Cond(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            KExpr::Call(_, args) => args.iter().for_each(|a| self.expr(a)),
            KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
        }
    }

    fn stmts(&mut self, v: &'k [KStmt]) {
        v.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &'k KStmt) {
        match s {
            KStmt::Decl { init, .. } => {
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            KStmt::Assign { target, op, value } => {
                if let LValue::Elem(r) = target {
                    let kind = if op.is_some() {
                        AccessKind::Update
                    } else {
                        AccessKind::Store
                    };
                    self.add(r, kind);
                    self.expr(&r.index);
                }
                self.expr(value);
            }
            KStmt::Expr(e) => self.expr(e),
            KStmt::If { cond, then, els } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(els);
            }
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                self.stmts(init);
                if let Some(c) = cond {
                    self.expr(c);
                }
                self.stmts(body);
                self.stmts(step);
            }
            KStmt::While { cond, body } => {
                self.expr(cond);
                self.stmts(body);
            }
            KStmt::DoWhile { body, cond } => {
                self.stmts(body);
                self.expr(cond);
            }
            KStmt::Block(b) => self.stmts(b),
            KStmt::Atomic { target, op, .. } => {
                let kind = match op {
                    AtomicOp::Read => AccessKind::Load,
                    _ => AccessKind::Update,
                };
                self.add(target, kind);
                s.atomic_operands().into_iter().for_each(|e| self.expr(e));
            }
            KStmt::VecLoad { src, .. } => {
                self.add(src, AccessKind::Load);
                self.expr(&src.index);
            }
            KStmt::VecStore { dst, values, .. } => {
                self.add(dst, AccessKind::Store);
                self.expr(&dst.index);
                values.iter().for_each(|e| self.expr(e));
            }
            KStmt::DeclArray(_)
            | KStmt::Break
            | KStmt::Continue
            | KStmt::Barrier
            | KStmt::Comment(_) => {}
        }
    }
}

/// The first uncoalesced request of an access, for the reason.
#[derive(Clone, Debug)]
struct Bad {
    sectors: u64,
    lines: u64,
    min_sectors: u64,
    min_lines: u64,
    /// Warps of that execution of the access whose request was uncoalesced, of those active.
    bad_warps: usize,
    warps: usize,
    /// Bytes past the `span`-byte boundary the first one starts at.
    off: i64,
    span: u64,
    strides: String,
    /// The index has a uniform base loaded from data, and the request is uncoalesced for some
    /// of its alignments, not all: the load.
    base: Option<Why>,
}

/// What the evaluated requests of one access did.
#[derive(Clone, Debug, Default)]
struct Stats {
    requests: u64,
    broadcast: u64,
    strided: u64,
    misaligned: u64,
    /// A request with a lane whose index is not known: why.
    data: Option<Why>,
    /// A request whose lanes index by data, per lane: the load the index comes from.
    per_lane: Option<Why>,
    first_bad: Option<Bad>,
    /// The strides of the first request with two distinct elements.
    strides: Option<String>,
    /// Requests over more than one sector by lanes some of which run it under a condition on
    /// data, and that condition: a data-dependent subset of the lanes leaves part of every
    /// sector unused (the simulator counts those as strided).
    divergent: u64,
    divergent_why: Option<Why>,
}

struct Exec<'a, 'k> {
    kernel: &'k Kernel,
    num: &'a Numbering<'k>,
    /// Element size in bytes per access number (0: not a global access).
    sizes: &'a [u64],
    mem: &'a WarpMemory,
    block: [usize; 3],
    threads: usize,
    group: [i64; 3],
    /// The value of integer scalar parameters.
    param: i64,
    env: Vec<HashMap<Handle<KVar>, Vec<Val>>>,
    brk: Vec<bool>,
    cont: Vec<bool>,
    /// Per lane: the condition on data under which it runs here, if it does, and the symbol
    /// that stands for every such condition it runs under (`None`: not one the lint names).
    maybe: Vec<Option<(Why, Option<V>)>>,
    steps: usize,
    stats: &'a mut [Stats],
    /// The symbols of this block: their keys, and the load each one comes from.
    syms: HashMap<Key, u32>,
    origin: Vec<usize>,
    /// Executions of loads so far.
    serial: u64,
}

fn truthy(v: &Val) -> Option<bool> {
    match v {
        Ok(V::K(x)) => Some(*x != 0),
        _ => None,
    }
}

fn arith(op: BinOp, a: i64, b: i64) -> Val {
    int_arith(op, a, b).map(V::K)
}

fn int_arith(op: BinOp, a: i64, b: i64) -> Result<i64, Why> {
    let bool_ = |c: bool| Ok(c as i64);
    let r = match op {
        BinOp::Mul => Some(a.wrapping_mul(b)),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem => a.checked_rem(b),
        BinOp::Add => Some(a.wrapping_add(b)),
        BinOp::Sub => Some(a.wrapping_sub(b)),
        BinOp::Shl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
        BinOp::Shr => u32::try_from(b).ok().and_then(|s| a.checked_shr(s)),
        BinOp::Lt => return bool_(a < b),
        BinOp::Gt => return bool_(a > b),
        BinOp::Le => return bool_(a <= b),
        BinOp::Ge => return bool_(a >= b),
        BinOp::Eq => return bool_(a == b),
        BinOp::Ne => return bool_(a != b),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::BitOr => Some(a | b),
        BinOp::LogAnd => return bool_(a != 0 && b != 0),
        BinOp::LogOr => return bool_(a != 0 || b != 0),
    };
    r.ok_or(Why::Unset)
}

fn cast(t: Scalar, v: i64) -> Val {
    Ok(V::K(match t {
        Scalar::Bool => (v != 0) as i64,
        Scalar::Char | Scalar::SChar => v as i8 as i64,
        Scalar::UChar => v as u8 as i64,
        Scalar::Short => v as i16 as i64,
        Scalar::UShort => v as u16 as i64,
        Scalar::Int => v as i32 as i64,
        Scalar::UInt => v as u32 as i64,
        Scalar::Float | Scalar::Double => return Err(Why::Float),
        _ => v,
    }))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn and(m: &[bool], f: impl Fn(usize) -> bool) -> Vec<bool> {
    m.iter().enumerate().map(|(t, &a)| a && f(t)).collect()
}

impl<'k> Exec<'_, 'k> {
    /// The symbol of `key` (coefficient 1), new if no lane made it yet, from the load `origin`.
    fn intern(&mut self, key: Key, origin: usize) -> V {
        let next = self.origin.len() as u32;
        let s = *self.syms.entry(key).or_insert(next);
        if s == next {
            self.origin.push(origin);
        }
        V::S { s, c: 1, k: 0 }
    }

    fn source(&self, v: V) -> Option<usize> {
        match v {
            V::S { s, .. } => self.origin.get(s as usize).copied(),
            V::K(_) => None,
        }
    }

    /// Why a value is not known statically, if it is not.
    fn why(&self, v: &Val) -> Option<Why> {
        match v {
            Err(w) => Some(*w),
            Ok(v) => self.source(*v).map(Why::Load),
        }
    }

    /// `a op b` on lane values: exact on known values, linear in one symbol where C's
    /// arithmetic is (`+`, `-`, `*` by a constant, comparisons of a symbol with itself plus a
    /// constant), else a new symbol for the operation on those operands.
    fn binop(&mut self, op: BinOp, a: Val, b: Val) -> Val {
        let (a, b) = (a?, b?);
        if let (V::K(x), V::K(y)) = (a, b) {
            return arith(op, x, y);
        }
        let lin = match (op, a, b) {
            (BinOp::Add, V::K(x), v) | (BinOp::Add, v, V::K(x)) => Some(v.affine(1, x)),
            (BinOp::Sub, v, V::K(x)) => Some(v.affine(1, x.wrapping_neg())),
            (BinOp::Sub, V::K(x), v) => Some(v.affine(-1, x)),
            (BinOp::Mul, V::K(x), v) | (BinOp::Mul, v, V::K(x)) => Some(v.affine(x, 0)),
            (
                BinOp::Add | BinOp::Sub,
                V::S { s, c, k },
                V::S {
                    s: s2,
                    c: c2,
                    k: k2,
                },
            ) if s == s2 => {
                let (c, k) = if op == BinOp::Add {
                    (c.wrapping_add(c2), k.wrapping_add(k2))
                } else {
                    (c.wrapping_sub(c2), k.wrapping_sub(k2))
                };
                Some(if c == 0 { V::K(k) } else { V::S { s, c, k } })
            }
            (BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne, _, _) => {
                // b - a, when known, decides the comparison.
                V::diff(a, b).map(|d| {
                    V::K(match op {
                        BinOp::Lt => d > 0,
                        BinOp::Gt => d < 0,
                        BinOp::Le => d >= 0,
                        BinOp::Ge => d <= 0,
                        BinOp::Eq => d == 0,
                        _ => d != 0,
                    } as i64)
                })
            }
            _ => None,
        };
        if let Some(v) = lin {
            return Ok(v);
        }
        let origin = self.source(a).or(self.source(b)).unwrap_or(0);
        Ok(self.intern(Key::Op(op, a, b), origin))
    }

    /// C's cast on a lane value: a symbol keeps its form through casts that do not narrow it
    /// below 32 bits (an index computation), and is a new symbol through narrower ones.
    fn cast_val(&mut self, t: Scalar, v: Val) -> Val {
        match v? {
            V::K(x) => cast(t, x),
            s if t.is_float() || t.size() >= 4 => Ok(s),
            s => {
                let origin = self.source(s).unwrap_or(0);
                Ok(self.intern(Key::Cast(t, s), origin))
            }
        }
    }

    /// Lane `t` runs from here under the condition `c`, which is not known.
    fn enter(&mut self, t: usize, c: &Val) {
        let Some(w) = self.why(c) else { return };
        let sym = c.ok();
        self.maybe[t] = Some(match self.maybe[t] {
            None => (w, sym),
            Some((w0, Some(prev))) => match sym {
                Some(c) => {
                    let origin = self.source(prev).unwrap_or(0);
                    (
                        w0,
                        Some(self.intern(Key::Op(BinOp::LogAnd, prev, c), origin)),
                    )
                }
                None => (w0, None),
            },
            Some((w0, None)) => (w0, None),
        });
    }

    fn coord(&self, t: usize) -> [usize; 3] {
        let [bx, by, _] = self.block;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }

    fn var(&self, n: Handle<KVar>) -> Vec<Val> {
        if let Some(v) = self.env.iter().rev().find_map(|s| s.get(&n)) {
            return v.clone();
        }
        let v = self.kernel.params.iter().find_map(|p| match p.kind {
            KParamKind::Scalar { var, ty: t } if var == n => Some(if t.is_float() {
                Err(Why::Float)
            } else {
                Ok(V::K(self.param))
            }),
            _ => None,
        });
        vec![v.unwrap_or(Err(Why::Unset)); self.threads]
    }

    fn set(&mut self, n: Handle<KVar>, v: Vec<Val>, m: &[bool]) {
        let threads = self.threads;
        let slot = match self.env.iter().rposition(|s| s.contains_key(&n)) {
            Some(i) => self.env[i].get_mut(&n),
            None => self
                .env
                .last_mut()
                .map(|s| s.entry(n).or_insert_with(|| vec![Err(Why::Unset); threads])),
        };
        if let Some(slot) = slot {
            for (t, x) in v.into_iter().enumerate() {
                if m[t] {
                    slot[t] = x;
                }
            }
        }
    }

    fn builtin(&self, b: Builtin) -> Vec<Val> {
        (0..self.threads)
            .map(|t| {
                let c = self.coord(t);
                Ok(V::K(match b {
                    Builtin::LocalId(d) => c[d.min(2) as usize] as i64,
                    Builtin::GroupId(d) => self.group[d.min(2) as usize],
                    Builtin::LocalSize(d) => self.block[d.min(2) as usize] as i64,
                    Builtin::NumGroups(_) => 3,
                    Builtin::GlobalId(d) => {
                        let d = d.min(2) as usize;
                        self.group[d] * self.block[d] as i64 + c[d] as i64
                    }
                }))
            })
            .collect()
    }

    fn eval(&mut self, e: &'k KExpr, m: &[bool]) -> Vec<Val> {
        let n = self.threads;
        match e {
            KExpr::Var(v) => self.var(*v),
            KExpr::Int(v, _) => vec![Ok(V::K(*v)); n],
            KExpr::Float(..) => vec![Err(Why::Float); n],
            KExpr::Load(r) => {
                let id = self.num.ids[&(r as *const ArrayRef)];
                let idx = scalar_index(r, self.eval(&r.index, m));
                self.request(id, &idx, m, 1);
                self.loaded(id, &idx, m, 0)
            }
            KExpr::Unary(op, a) => {
                let a = self.eval(a, m);
                a.into_iter()
                    .map(|v| {
                        let v = v?;
                        match (op, v) {
                            (UnOp::Plus, v) => Ok(v),
                            (UnOp::Neg, v) => Ok(v.affine(-1, 0)),
                            (UnOp::Not, V::K(x)) => Ok(V::K((x == 0) as i64)),
                            (UnOp::BitNot, V::K(x)) => Ok(V::K(!x)),
                            (UnOp::Not | UnOp::BitNot, v) => {
                                let origin = self.source(v).unwrap_or(0);
                                Ok(self.intern(Key::Un(*op, v), origin))
                            }
                            (UnOp::Deref | UnOp::AddrOf, _) => Err(Why::Unset),
                        }
                    })
                    .collect()
            }
            KExpr::Binary(op, a, b) => {
                let a = self.eval(a, m);
                // `&&` and `||` evaluate their right operand only where C does.
                let mb = match op {
                    BinOp::LogAnd => and(m, |t| truthy(&a[t]) != Some(false)),
                    BinOp::LogOr => and(m, |t| truthy(&a[t]) != Some(true)),
                    _ => m.to_vec(),
                };
                let b = self.eval(b, &mb);
                a.into_iter()
                    .zip(b)
                    .map(|(x, y)| match (op, truthy(&x)) {
                        (BinOp::LogAnd, Some(false)) => Ok(V::K(0)),
                        (BinOp::LogOr, Some(true)) => Ok(V::K(1)),
                        _ => self.binop(*op, x, y),
                    })
                    .collect()
            }
            KExpr::Cond(c, a, b) => {
                let c = self.eval(c, m);
                let outer = self.maybe.clone();
                for t in 0..n {
                    if m[t] && truthy(&c[t]).is_none() {
                        self.enter(t, &c[t]);
                    }
                }
                let a = self.eval(a, &and(m, |t| truthy(&c[t]) != Some(false)));
                let b = self.eval(b, &and(m, |t| truthy(&c[t]) != Some(true)));
                self.maybe = outer;
                (0..n)
                    .map(|t| match (c[t], a[t], b[t]) {
                        (Ok(V::K(0)), _, b) => b,
                        (Ok(V::K(_)), a, _) => a,
                        (_, a, b) if a == b => a,
                        (Ok(cv), Ok(av), Ok(bv)) => {
                            let origin = self.source(cv).unwrap_or(0);
                            Ok(self.intern(Key::Sel(cv, av, bv), origin))
                        }
                        (c, _, _) => Err(self.why(&c).unwrap_or(Why::Unset)),
                    })
                    .collect()
            }
            KExpr::Cast(ty, a) => {
                let a = self.eval(a, m);
                a.into_iter().map(|v| self.cast_val(*ty, v)).collect()
            }
            KExpr::Call(f, args) => {
                let vs: Vec<Vec<Val>> = args.iter().map(|a| self.eval(a, m)).collect();
                (0..n)
                    .map(|t| {
                        let arg = |i: usize| vs.get(i).map_or(Err(Why::Unset), |v| v[t]);
                        let (tag, a, b) = match f {
                            super::math::MathFn::Abs
                            | super::math::MathFn::Labs
                            | super::math::MathFn::Llabs => (0, arg(0)?, V::K(0)),
                            super::math::MathFn::Min => (1, arg(0)?, arg(1)?),
                            super::math::MathFn::Max => (2, arg(0)?, arg(1)?),
                            super::math::MathFn::Real(..) => return Err(Why::Float),
                        };
                        match (a, b) {
                            (V::K(x), V::K(y)) => Ok(V::K(match tag {
                                0 => x.wrapping_abs(),
                                1 => x.min(y),
                                _ => x.max(y),
                            })),
                            _ => {
                                let origin = self.source(a).or(self.source(b)).unwrap_or(0);
                                Ok(self.intern(Key::Call(tag, a, b), origin))
                            }
                        }
                    })
                    .collect()
            }
            KExpr::Builtin(b) => self.builtin(*b),
        }
    }

    /// The values the lanes `m` read by the access `id` at `idx` (`offset` elements past it):
    /// one symbol per address, the same for the lanes that read one address.
    fn loaded(&mut self, id: usize, idx: &[Val], m: &[bool], offset: i64) -> Vec<Val> {
        self.serial += 1;
        let serial = self.serial;
        (0..self.threads)
            .map(|t| {
                if !m[t] {
                    return Err(Why::Load(id));
                }
                let key = match idx[t] {
                    Ok(v) => Key::Load(serial, v.affine(1, offset)),
                    Err(_) => Key::Lane(serial, t),
                };
                Ok(self.intern(key, id))
            })
            .collect()
    }

    /// The strides of an index between neighbouring lanes along x, y and z, in words.
    fn strides(&self, idx: &[Val], m: &[bool], size: u64) -> String {
        let dims = ["x", "y", "z"];
        let step = [1, self.block[0], self.block[0] * self.block[1]];
        let mut parts = Vec::new();
        for d in 0..3 {
            if self.block[d] < 2 {
                continue;
            }
            let pair = (0..self.threads).find_map(|t| {
                let u = t + step[d];
                let ok = self.coord(t)[d] + 1 < self.block[d] && u < self.threads;
                match (ok && m[t] && m[u], idx[t], idx.get(u)) {
                    (true, Ok(a), Some(Ok(b))) => V::diff(a, *b),
                    _ => None,
                }
            });
            if let Some(s) = pair.filter(|s| *s != 0) {
                parts.push(format!("{} B along {}", s * size as i64, dims[d]));
            }
        }
        if parts.is_empty() {
            "no thread dependence".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// One request per warp with active lanes, counted as the simulator counts it.
    /// The request of access `id` by the lanes `m` of every warp, each lane touching `width`
    /// consecutive elements from its index (a vector access: [`KStmt::VecLoad`]).
    ///
    /// Lanes whose indices share one unknown base (`c * s + k`, the same `s` and `c`) are laid
    /// out for every alignment that base can have (`c * s * size` modulo a line): the request is
    /// coalesced if it is for all of them, uncoalesced for the first that is not. Lanes that
    /// index by different unknowns are a per-lane data-dependent request.
    fn request(&mut self, id: usize, idx: &[Val], m: &[bool], width: u64) {
        let size = self.sizes.get(id).copied().unwrap_or(0);
        if size == 0 {
            return;
        }
        let (sector, line) = (self.mem.sector as i64, self.mem.line as i64);
        let ws = (self.mem.warp as usize).max(1);
        let (mut warps, mut bad_warps, mut first_bad) = (0, 0, None);
        for w in 0..self.threads.div_ceil(ws) {
            let lanes: Vec<usize> = (w * ws..((w + 1) * ws).min(self.threads))
                .filter(|&t| m[t])
                .collect();
            if lanes.is_empty() {
                continue;
            }
            if let Some(why) = lanes.iter().find_map(|&t| idx[t].err()) {
                self.stats[id].data.get_or_insert(why);
                continue;
            }
            let vals: Vec<V> = lanes.iter().filter_map(|&t| idx[t].ok()).collect();
            // The unknown base the lanes share, if any: (coefficient, symbol).
            let base = match vals[0] {
                V::K(_) => None,
                V::S { s, c, .. } => Some((s, c)),
            };
            let uniform = vals.iter().all(|v| match (v, base) {
                (V::K(_), None) => true,
                (V::S { s, c, .. }, Some(b)) => (*s, *c) == b,
                _ => false,
            });
            if !uniform {
                let why = vals.iter().find_map(|&v| self.source(v)).unwrap_or(0);
                let st = &mut self.stats[id];
                st.per_lane.get_or_insert(Why::Load(why));
                st.requests += 1;
                continue;
            }
            warps += 1;
            let cond = {
                let first = self.maybe[lanes[0]];
                let same = lanes.iter().all(|&t| self.maybe[t] == first);
                match first {
                    // Every lane under one condition on data: all run or none does.
                    Some((_, Some(_))) if same => None,
                    _ => lanes.iter().find_map(|&t| self.maybe[t].map(|(w, _)| w)),
                }
            };
            let offsets: Vec<i64> = vals
                .iter()
                .map(|v| match v {
                    V::K(x) | V::S { k: x, .. } => *x,
                })
                .collect();
            // The byte shifts the base can add modulo a line: multiples of gcd(c * size, line).
            let shifts: Vec<i64> = match base {
                None => vec![0],
                Some((_, c)) => {
                    let step = gcd((c.unsigned_abs() * size) as i64, line).max(1);
                    (0..line).step_by(step as usize).collect()
                }
            };
            let mut addrs: Vec<i64> = offsets
                .iter()
                .flat_map(|&i| {
                    (0..width as i64).map(move |k| i.wrapping_add(k).wrapping_mul(size as i64))
                })
                .collect();
            addrs.sort_unstable();
            addrs.dedup();
            let layout = |shift: i64| {
                let count = |unit: i64| {
                    let mut v: Vec<i64> = addrs
                        .iter()
                        .map(|a| a.wrapping_add(shift).div_euclid(unit))
                        .collect();
                    v.dedup();
                    v.len() as u64
                };
                (count(sector), count(line))
            };
            let bytes = addrs.len() as u64 * size;
            let (min_s, min_l) = (bytes.div_ceil(sector as u64), bytes.div_ceil(line as u64));
            let laid: Vec<(i64, u64, u64)> = shifts
                .iter()
                .map(|&sh| {
                    let (s, l) = layout(sh);
                    (sh, s, l)
                })
                .collect();
            let bad_at = laid.iter().position(|&(_, s, l)| s > min_s || l > min_l);
            let (shift, sectors, lines) = laid[bad_at.unwrap_or(0)];
            let st = &mut self.stats[id];
            st.requests += 1;
            // One distinct element (one active lane, or all on one): one sector, the fewest.
            if addrs.len() == 1 {
                st.broadcast += 1;
                continue;
            }
            if sectors > 1 {
                if let Some(w) = cond {
                    st.divergent += 1;
                    st.divergent_why.get_or_insert(w);
                }
            }
            if st.strides.is_none() {
                let s = self.strides(idx, m, size);
                self.stats[id].strides = Some(s);
            }
            if bad_at.is_some() {
                let first = addrs[0] + shift;
                let contiguous = addrs[addrs.len() - 1] - addrs[0] + size as i64 == bytes as i64;
                // Uncoalesced for some alignments of the loaded base, not all: say which load.
                let partly =
                    base.is_some() && laid.iter().any(|&(_, s, l)| s <= min_s && l <= min_l);
                let from = vals.iter().find_map(|&v| self.source(v)).map(Why::Load);
                let st = &mut self.stats[id];
                if contiguous {
                    st.misaligned += 1;
                } else {
                    st.strided += 1;
                }
                bad_warps += 1;
                if first_bad.is_none() {
                    let span = bytes.next_power_of_two().min(line as u64);
                    first_bad = Some(Bad {
                        sectors,
                        lines,
                        min_sectors: min_s,
                        min_lines: min_l,
                        bad_warps: 0,
                        warps: 0,
                        off: first.rem_euclid(span as i64),
                        span,
                        strides: String::new(),
                        base: from.filter(|_| partly),
                    });
                }
            }
        }
        if let Some(mut b) = first_bad {
            if self.stats[id].first_bad.is_none() {
                b.bad_warps = bad_warps;
                b.warps = warps;
                b.strides = self.strides(idx, m, size);
                self.stats[id].first_bad = Some(b);
            }
        }
    }

    fn stmts(&mut self, v: &'k [KStmt], m: &[bool]) {
        for s in v {
            if self.steps >= BUDGET {
                return;
            }
            let eff = and(m, |t| !self.brk[t] && !self.cont[t]);
            if !eff.iter().any(|&a| a) {
                return;
            }
            self.steps += 1;
            self.stmt(s, &eff);
        }
    }

    fn scoped(&mut self, v: &'k [KStmt], m: &[bool]) {
        self.env.push(HashMap::new());
        self.stmts(v, m);
        self.env.pop();
    }

    /// A loop: `init` done; at most [`ITERATIONS`] iterations, every lane its own.
    fn looping(
        &mut self,
        cond: Option<&'k KExpr>,
        body: &'k [KStmt],
        step: &'k [KStmt],
        test_first: bool,
        m: &[bool],
    ) {
        let n = self.threads;
        let saved = (
            std::mem::replace(&mut self.brk, vec![false; n]),
            std::mem::replace(&mut self.cont, vec![false; n]),
        );
        let mut live = m.to_vec();
        let outer = self.maybe.clone();
        for i in 0..ITERATIONS {
            if let Some(c) = cond.filter(|_| test_first || i > 0) {
                let c = self.eval(c, &live);
                live = and(&live, |t| truthy(&c[t]) != Some(false));
                for t in 0..n {
                    if live[t] && truthy(&c[t]).is_none() {
                        self.enter(t, &c[t]);
                    }
                }
            }
            if !live.iter().any(|&a| a) || self.steps >= BUDGET {
                break;
            }
            self.scoped(body, &live);
            live = and(&live, |t| !self.brk[t]);
            self.cont = vec![false; n];
            self.stmts(step, &live);
        }
        (self.brk, self.cont) = saved;
        self.maybe = outer;
    }

    fn stmt(&mut self, s: &'k KStmt, m: &[bool]) {
        match s {
            KStmt::Decl { var, init } => self.decl(*var, init.as_ref(), m),
            KStmt::Assign { target, op, value } => match target {
                LValue::Var(name) => self.assign_var(*name, *op, value, m),
                LValue::Elem(r) => {
                    self.scalar_request(r, m);
                    let _ = self.eval(value, m);
                }
            },
            KStmt::Expr(e) => {
                let _ = self.eval(e, m);
            }
            KStmt::If { cond, then, els } => self.branch(cond, then, els, m),
            KStmt::For {
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                self.env.push(HashMap::new());
                self.stmts(init, m);
                self.looping(cond.as_ref(), body, step, true, m);
                self.env.pop();
            }
            KStmt::While { cond, body } => self.looping(Some(cond), body, &[], true, m),
            KStmt::DoWhile { body, cond } => self.looping(Some(cond), body, &[], false, m),
            KStmt::Block(b) => self.scoped(b, m),
            KStmt::Atomic {
                target, capture, ..
            } => self.atomic(s, target, capture.as_ref(), m),
            KStmt::VecLoad { lanes, src, .. } => {
                let id = self.access_id(src);
                let idx = self.eval(&src.index, m);
                self.request(id, &idx, m, lanes.len() as u64);
                for (j, l) in lanes.iter().enumerate() {
                    let v = self.loaded(id, &idx, m, j as i64);
                    if let Some(sc) = self.env.last_mut() {
                        sc.insert(*l, v);
                    }
                }
            }
            KStmt::VecStore { dst, values, .. } => {
                let id = self.access_id(dst);
                let idx = self.eval(&dst.index, m);
                self.request(id, &idx, m, values.len() as u64);
                for v in values {
                    let _ = self.eval(v, m);
                }
            }
            KStmt::Break => {
                for (x, &a) in self.brk.iter_mut().zip(m) {
                    *x |= a;
                }
            }
            KStmt::Continue => {
                for (x, &a) in self.cont.iter_mut().zip(m) {
                    *x |= a;
                }
            }
            KStmt::DeclArray(_) | KStmt::Barrier | KStmt::Comment(_) => {}
        }
    }

    /// The number [`Numbering`] gave the access `r`.
    fn access_id(&self, r: &ArrayRef) -> usize {
        self.num.ids[&(r as *const ArrayRef)]
    }

    /// One request of the lanes `m` for the element of `r` each indexes; its access number.
    fn scalar_request(&mut self, r: &'k ArrayRef, m: &[bool]) -> usize {
        let id = self.access_id(r);
        let idx = scalar_index(r, self.eval(&r.index, m));
        self.request(id, &idx, m, 1);
        id
    }

    /// A scalar declaration: the lanes `m` hold its initializer's value (unset without one),
    /// the others nothing.
    fn decl(&mut self, name: Handle<KVar>, init: Option<&'k KExpr>, m: &[bool]) {
        let n = self.threads;
        let v = match init {
            Some(e) => self.eval(e, m),
            None => vec![Err(Why::Unset); n],
        };
        let v = (0..n)
            .map(|t| if m[t] { v[t] } else { Err(Why::Unset) })
            .collect();
        if let Some(sc) = self.env.last_mut() {
            sc.insert(name, v);
        }
    }

    /// `name = value` (or `name op= value`) on the lanes `m`.
    fn assign_var(&mut self, name: Handle<KVar>, op: Option<BinOp>, value: &'k KExpr, m: &[bool]) {
        let v = self.eval(value, m);
        let v = match op {
            None => v,
            Some(op) => {
                let old = self.var(name);
                old.into_iter()
                    .zip(v)
                    .map(|(a, b)| self.binop(op, a, b))
                    .collect()
            }
        };
        self.set(name, v, m);
    }

    /// An `if`: each side on the lanes that may take it, the lanes whose condition is data
    /// entering it, and then the variables those lanes assigned merged ([`Self::merge`]).
    fn branch(&mut self, cond: &'k KExpr, then: &'k [KStmt], els: &'k [KStmt], m: &[bool]) {
        let n = self.threads;
        let c = self.eval(cond, m);
        let unsure: Vec<usize> = (0..n)
            .filter(|&t| m[t] && truthy(&c[t]).is_none())
            .collect();
        let before = if unsure.is_empty() {
            None
        } else {
            Some(self.env.clone())
        };
        let outer = self.maybe.clone();
        for &t in &unsure {
            self.enter(t, &c[t]);
        }
        self.scoped(then, &and(m, |t| truthy(&c[t]) != Some(false)));
        let mid = before.as_ref().map(|_| self.env.clone());
        self.scoped(els, &and(m, |t| truthy(&c[t]) != Some(true)));
        self.maybe = outer;
        if let (Some(before), Some(mid)) = (before, mid) {
            self.merge(&c, &unsure, &before, &mid);
        }
    }

    /// After an `if` on `c`: for the lanes `unsure` that branched on data, what either side
    /// assigned is a function of the condition and of what each side left (one symbol for
    /// equal inputs). `before`: the scopes before the branch; `mid`: after `then`.
    fn merge(
        &mut self,
        c: &[Val],
        unsure: &[usize],
        before: &[HashMap<Handle<KVar>, Vec<Val>>],
        mid: &[HashMap<Handle<KVar>, Vec<Val>>],
    ) {
        let mut env = std::mem::take(&mut self.env);
        for ((s, b), md) in env.iter_mut().zip(before.iter()).zip(mid.iter()) {
            for (k, v) in s.iter_mut() {
                let (Some(old), Some(mv)) = (b.get(k), md.get(k)) else {
                    continue;
                };
                for &t in unsure {
                    if v[t] == old[t] && mv[t] == old[t] {
                        continue;
                    }
                    v[t] = match (c[t], old[t], mv[t], v[t]) {
                        (Ok(cv), Ok(o), Ok(a), Ok(e)) => {
                            let origin = self.source(cv).unwrap_or(0);
                            Ok(self.intern(Key::Phi(cv, o, a, e), origin))
                        }
                        _ => Err(self.why(&c[t]).unwrap_or(Why::Unset)),
                    };
                }
            }
        }
        self.env = env;
    }

    /// An atomic statement `s` on `target`: one request, its operands, and the capture
    /// variable (each lane its own value).
    fn atomic(
        &mut self,
        s: &'k KStmt,
        target: &'k ArrayRef,
        capture: Option<&'k AtomicCapture>,
        m: &[bool],
    ) {
        let n = self.threads;
        let id = self.scalar_request(target, m);
        for e in s.atomic_operands().into_iter().skip(1) {
            let _ = self.eval(e, m);
        }
        if let Some(c) = capture {
            // An atomic returns each lane its own value.
            self.serial += 1;
            let serial = self.serial;
            let v = (0..n)
                .map(|t| Ok(self.intern(Key::Lane(serial, t), id)))
                .collect();
            self.set(c.var, v, m);
        }
    }
}

/// Classifies the global accesses of a kernel (others are not listed), numbered as
/// [`super::access`] says, against the memory geometry of `memory` (a platform).
pub fn lint_kernel(
    kernel: &Kernel,
    memory: impl Into<WarpMemory>,
) -> Result<Vec<LintItem>, UnknownBuffer> {
    let memory = memory.into();
    let mut num = Numbering {
        arrays: &kernel.arrays,
        vars: &kernel.vars,
        ids: HashMap::new(),
        refs: Vec::new(),
    };
    num.stmts(&kernel.body);
    let mut sizes = vec![0u64; num.refs.len()];
    let mut elems = vec![None; num.refs.len()];
    for (id, (r, _)) in num.refs.iter().enumerate() {
        if kernel.arrays[r.array].space() != Space::Global {
            continue;
        }
        let elem = kernel
            .params
            .iter()
            .find_map(|p| match p.kind {
                KParamKind::Buffer { array, elem, .. } if array == r.array => Some(elem),
                _ => None,
            })
            .ok_or_else(|| UnknownBuffer {
                kernel: kernel.name.clone(),
                array: kernel.arrays[r.array].name.clone(),
            })?;
        sizes[id] = elem.size() as u64;
        elems[id] = Some(elem);
    }
    let block = kernel.block.map(|b| b.max(1) as usize);
    let threads = block[0] * block[1] * block[2];
    let mut bounds = Vec::new();
    compared_stmts(&kernel.body, false, &mut bounds);
    // Integer scalar parameters: the second binding matters only if there is one.
    let int_params: Vec<&str> = kernel
        .params
        .iter()
        .filter_map(|p| match p.kind {
            KParamKind::Scalar { ty: t, .. } if !t.is_float() => Some(p.name.as_str()),
            _ => None,
        })
        .collect();
    let bindings = if int_params.is_empty() {
        &BINDINGS[..1]
    } else {
        &BINDINGS[..]
    };
    let mut per_binding = Vec::new();
    for &param in bindings {
        let groups = representative_groups(kernel, &bounds, param);
        let mut stats = vec![Stats::default(); num.refs.len()];
        for &gz in &groups[2] {
            for &gy in &groups[1] {
                for &gx in &groups[0] {
                    let mut ex = Exec {
                        kernel,
                        num: &num,
                        sizes: &sizes,
                        mem: &memory,
                        block,
                        threads,
                        group: [gx, gy, gz],
                        param,
                        env: vec![HashMap::new()],
                        brk: vec![false; threads],
                        cont: vec![false; threads],
                        maybe: vec![None; threads],
                        steps: 0,
                        stats: &mut stats,
                        syms: HashMap::new(),
                        origin: Vec::new(),
                        serial: 0,
                    };
                    ex.stmts(&kernel.body, &vec![true; threads]);
                }
            }
        }
        per_binding.push(stats);
    }
    let mut out = Vec::new();
    for (id, (r, kind)) in num.refs.iter().enumerate() {
        let Some(elem) = elems[id] else {
            continue;
        };
        let (verdict, reason, data) = verdict(&per_binding, id, &num, &int_params);
        out.push(LintItem {
            origin: kernel.origin.clone(),
            access: AccessInfo::new(
                &kernel.name,
                (&kernel.arrays, &kernel.vars),
                id,
                r,
                *kind,
                elem,
            ),
            verdict,
            reason,
            data,
        });
    }
    Ok(out)
}

/// The C text of access `src` (`idx[i]`) and its array.
fn load_text(num: &Numbering, src: usize) -> (String, String) {
    let (r, _) = num.refs[src];
    let label = AccessInfo::new(
        "",
        (num.arrays, num.vars),
        src,
        r,
        AccessKind::Load,
        Scalar::Int,
    )
    .label;
    let text = label.split_once(' ').map_or(label.as_str(), |(_, t)| t);
    (num.arrays[r.array].name.clone(), format!("`{}`", text))
}

/// An access's verdict, its reason, and the load its index depends on where that decides it.
fn verdict(
    per_binding: &[Vec<Stats>],
    id: usize,
    num: &Numbering,
    int_params: &[&str],
) -> (Verdict, String, Option<(String, String)>) {
    let space = |src: usize| match num.arrays[num.refs[src].0.array].space() {
        Space::Global => "global",
        Space::Local => "shared",
        Space::Private => "private",
    };
    let describe = |why: Why| match why {
        Why::Load(src) => {
            let (_, text) = load_text(num, src);
            format!(
                "on data: the value {} loads from {} memory",
                text,
                space(src)
            )
        }
        Why::Float => "on a floating-point value".to_string(),
        Why::Unset => "on a variable without a value".to_string(),
    };
    let source = |why: Why| match why {
        Why::Load(src) => Some(load_text(num, src)),
        _ => None,
    };
    for (b, stats) in per_binding.iter().enumerate() {
        let st = &stats[id];
        let Some(bad) = &st.first_bad else {
            continue;
        };
        let when = if b == 0 {
            String::new()
        } else {
            let names: Vec<String> = int_params.iter().map(|n| format!("`{}`", n)).collect();
            format!(
                " (when {} {} {}, not a multiple of 128: rows of that length do not start on a boundary)",
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" },
                BINDINGS[b]
            )
        };
        let data = bad.base.and_then(source);
        let base = match &data {
            Some((_, text)) => format!(
                " (its base is the value {} loads, the same for the whole warp: uncoalesced unless the data puts it on a {}-byte boundary)",
                text, bad.span
            ),
            None => String::new(),
        };
        return if st.strided >= st.misaligned {
            (
                Verdict::UncoalescedStride,
                format!(
                    "stride {}: a warp touches {} sectors in {} lines where {} in {} would do{}{}",
                    bad.strides, bad.sectors, bad.lines, bad.min_sectors, bad.min_lines, when, base
                ),
                data,
            )
        } else {
            (
                Verdict::UncoalescedAlignment,
                format!(
                    "stride {} but {} of the {} warps of a block start {} B past a {}-byte boundary{}{}",
                    bad.strides, bad.bad_warps, bad.warps, bad.off, bad.span, when, base
                ),
                data,
            )
        };
    }
    let st = &per_binding[0][id];
    if let Some(why) = per_binding.iter().find_map(|s| s[id].per_lane) {
        let data = source(why);
        let text = data
            .as_ref()
            .map_or_else(|| "data".to_string(), |(_, t)| t.clone());
        return (
            Verdict::UncoalescedData,
            format!(
                "the lanes of a warp index with values loaded by {}, one per lane: a warp touches as many sectors as the data spreads its indices over",
                text
            ),
            data,
        );
    }
    if let Some(why) = st.divergent_why.filter(|_| st.divergent > 0) {
        return (
            Verdict::UncoalescedStride,
            format!(
                "stride {}, but lanes take it under a condition {}: a data-dependent subset of a warp's lanes uses part of each of its sectors",
                st.strides.as_deref().unwrap_or("no thread dependence"),
                describe(why)
            ),
            None,
        );
    }
    if let Some(why) = per_binding.iter().find_map(|s| s[id].data) {
        let what = describe(why);
        return (
            Verdict::Unknown,
            format!("the index depends {}: no static verdict", what),
            source(why),
        );
    }
    if st.requests == 0 {
        return (
            Verdict::Unknown,
            "no lane of the evaluated blocks reaches it".to_string(),
            None,
        );
    }
    if st.broadcast == st.requests {
        return (
            Verdict::Broadcast,
            "every lane of a warp reads one element".to_string(),
            None,
        );
    }
    (
        Verdict::Coalesced,
        format!(
            "stride {}",
            st.strides.as_deref().unwrap_or("no thread dependence")
        ),
        None,
    )
}

/// The blocks evaluated along each dimension: the first ones (0..=2 along x, 0..=1 along y and
/// z), and the blocks that hold the bounds the kernel compares with (`i < 101`: the last row of
/// a guarded grid, where edge rows start), the smallest first, at most [`GROUPS`] per dimension.
fn representative_groups(kernel: &Kernel, bounds: &[i64], param: i64) -> [Vec<i64>; 3] {
    let mut out: [Vec<i64>; 3] = Default::default();
    for (d, g) in out.iter_mut().enumerate() {
        if d >= kernel.dims.max(1) as usize {
            g.push(0);
            continue;
        }
        let b = kernel.block[d].max(1) as i64;
        g.extend(if d == 0 { 0..3 } else { 0..2 });
        let mut edges: Vec<i64> = bounds
            .iter()
            .chain(std::iter::once(&param))
            // A block may cover several rows per lane (`--ilp`, staged tiles): 1, 2, 4 or 8.
            .flat_map(|&c| {
                [1, 2, 4, 8]
                    .into_iter()
                    .flat_map(move |f| [(c - 1).div_euclid(b * f), c.div_euclid(b * f)])
            })
            // Every edge block not already evaluated: along y and z the first ones are 0 and 1
            // only, so an edge block 2 (a staged tile's last columns) is one of these.
            .filter(|&x| (0..1 << 20).contains(&x) && !g.contains(&x))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        g.extend(edges.into_iter().take(GROUPS - g.len()));
    }
    out
}

/// Integer literals inside the operands of comparisons (the bounds of guards and loops).
fn compared(e: &KExpr, inside: bool, out: &mut Vec<i64>) {
    match e {
        KExpr::Int(v, _) if inside && *v > 0 => out.push(*v),
        KExpr::Binary(op, a, b) => {
            let cmp = inside
                || matches!(
                    op,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                );
            compared(a, cmp, out);
            compared(b, cmp, out);
        }
        KExpr::Unary(_, a) | KExpr::Cast(_, a) => compared(a, inside, out),
        KExpr::Cond(c, a, b) => {
            compared(c, inside, out);
            compared(a, inside, out);
            compared(b, inside, out);
        }
        _ => {}
    }
}

fn compared_stmts(v: &[KStmt], inside: bool, out: &mut Vec<i64>) {
    for s in v {
        match s {
            KStmt::Decl { init: Some(e), .. } | KStmt::Expr(e) => compared(e, inside, out),
            KStmt::Assign { value, .. } => compared(value, inside, out),
            KStmt::If { cond, then, els } => {
                compared(cond, inside, out);
                compared_stmts(then, inside, out);
                compared_stmts(els, inside, out);
            }
            KStmt::For {
                init, cond, body, ..
            } => {
                compared_stmts(init, inside, out);
                if let Some(c) = cond {
                    compared(c, inside, out);
                }
                compared_stmts(body, inside, out);
            }
            KStmt::While { cond, body } | KStmt::DoWhile { body, cond } => {
                compared(cond, inside, out);
                compared_stmts(body, inside, out);
            }
            KStmt::Block(b) => compared_stmts(b, inside, out),
            _ => {}
        }
    }
}

/// Each lane's index of the scalar `r` names ([`ArrayRef::scalar_index`]), from its `index`.
fn scalar_index(r: &ArrayRef, idx: Vec<Val>) -> Vec<Val> {
    match &r.field {
        None => idx,
        Some(f) => idx
            .into_iter()
            .map(|v| v.map(|i| i.affine(f.count as i64, f.index as i64)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::testing;

    /// An element of the global array `a` (by name, [`testing::array`]).
    fn gload(a: &str, i: KExpr) -> KExpr {
        KExpr::Load(ArrayRef::elem(testing::array(a, Space::Global), i))
    }

    fn store(a: &str, i: KExpr, v: KExpr) -> KStmt {
        KStmt::Assign {
            target: LValue::Elem(ArrayRef::elem(testing::array(a, Space::Global), i)),
            op: None,
            value: v,
        }
    }
    /// `out[gx] = a[i]`: an access to `a` for `lint_a`.
    fn copy_a(i: KExpr) -> KStmt {
        store("out", gx(), gload("a", i))
    }
    fn decl(n: &str, v: KExpr) -> KStmt {
        testing::decl(n, Scalar::Int, Some(v))
    }
    fn lid(d: u8) -> KExpr {
        KExpr::Builtin(Builtin::LocalId(d))
    }
    /// The row of the block: the same for every lane of a warp (the block is 32 wide).
    fn row() -> KExpr {
        KExpr::Builtin(Builtin::GroupId(1))
    }
    fn gx() -> KExpr {
        KExpr::Builtin(Builtin::GlobalId(0))
    }

    /// The verdicts of the accesses to `a`, in a 32×4 kernel over `a`, `idx` (int) and `out`.
    fn lint_a(body: Vec<KStmt>) -> Vec<LintItem> {
        let buf = |n: &str, elem| testing::buffer(n, elem, false, None);
        let params = vec![
            buf("a", Scalar::Float),
            buf("idx", Scalar::Int),
            buf("out", Scalar::Float),
        ];
        let k = Kernel {
            name: "k".to_string(),
            arrays: testing::take(),
            vars: testing::take_vars(),
            params,
            locals: Vec::new(),
            dims: 2,
            block: [32, 4, 1],
            body,
            uses_double: false,
            bank_width: None,
            registers: None,
            origin: "test".to_string(),
        };
        let mem = WarpMemory {
            warp: 32,
            sector: 32,
            line: 128,
        };
        let items = lint_kernel(&k, mem).unwrap();
        items
            .into_iter()
            .filter(|i| i.access.array == "a")
            .collect()
    }

    #[test]
    fn a_per_lane_loaded_index_is_uncoalesced_by_data() {
        // a gather: out[i] = a[idx[i]]
        let it = lint_a(vec![copy_a(gload("idx", gx()))]);
        assert_eq!(it[0].verdict, Verdict::UncoalescedData);
        assert_eq!(
            it[0].data,
            Some(("idx".to_string(), "`idx[get_global_id(0)]`".to_string()))
        );
        assert!(it[0].reason.contains("one per lane"), "{}", it[0].reason);
        // a histogram: b = idx[i]; a[b] (the lint cannot know that idx is sorted)
        let it = lint_a(vec![
            decl("b", gload("idx", gx())),
            store("a", testing::var("b"), KExpr::int(1)),
        ]);
        assert_eq!(it[0].verdict, Verdict::UncoalescedData);
    }

    #[test]
    fn a_uniform_loaded_base_is_classified_over_its_alignments() {
        let k = || decl("k", gload("idx", row()));
        // k the same for the whole warp: `a[k]` is a broadcast
        let it = lint_a(vec![k(), copy_a(testing::var("k"))]);
        assert_eq!(it[0].verdict, Verdict::Broadcast, "{}", it[0].reason);
        // `a[k + tx]`: unit stride, coalesced only when the data aligns k (CSR rows do not)
        let it = lint_a(vec![
            k(),
            copy_a(KExpr::bin(BinOp::Add, testing::var("k"), lid(0))),
        ]);
        assert_eq!(it[0].verdict, Verdict::UncoalescedAlignment);
        assert!(
            it[0].reason.contains("`idx[get_group_id(1)]`"),
            "{}",
            it[0].reason
        );
        assert!(it[0].data.is_some());
        // `a[32 * k + tx]`: every base is a multiple of 128 bytes: coalesced, exactly
        let base = KExpr::bin(BinOp::Mul, KExpr::int(32), testing::var("k"));
        let it = lint_a(vec![k(), copy_a(KExpr::bin(BinOp::Add, base, lid(0)))]);
        assert_eq!(it[0].verdict, Verdict::Coalesced, "{}", it[0].reason);
        // `a[k + 2 * tx]`: strided whatever k is
        let it = lint_a(vec![
            k(),
            copy_a(KExpr::bin(
                BinOp::Add,
                testing::var("k"),
                KExpr::bin(BinOp::Mul, KExpr::int(2), lid(0)),
            )),
        ]);
        assert_eq!(it[0].verdict, Verdict::UncoalescedStride);
        assert_eq!(it[0].data, None, "{}", it[0].reason);
    }

    #[test]
    fn a_loop_between_uniform_loaded_bounds_is_not_divergent() {
        // for (j = idx[row]; j < idx[row + 1]; j++) out[i] = a[j] (a warp-wide CSR row)
        let lp = KStmt::For {
            unroll: false,
            init: vec![decl("j", gload("idx", row()))],
            cond: Some(KExpr::bin(
                BinOp::Lt,
                testing::var("j"),
                gload("idx", KExpr::bin(BinOp::Add, row(), KExpr::int(1))),
            )),
            step: vec![KStmt::Assign {
                target: testing::lvar("j"),
                op: Some(BinOp::Add),
                value: KExpr::int(1),
            }],
            body: vec![copy_a(KExpr::bin(
                BinOp::Add,
                testing::var("j"),
                KExpr::bin(BinOp::Mul, KExpr::int(0), lid(0)),
            ))],
        };
        let it = lint_a(vec![lp]);
        assert_eq!(it[0].verdict, Verdict::Broadcast, "{}", it[0].reason);
        // the same loop per lane (j from idx[i]): the accesses index by data per lane
        let lp = KStmt::For {
            unroll: false,
            init: vec![decl("j", gload("idx", gx()))],
            cond: Some(KExpr::bin(BinOp::Lt, testing::var("j"), KExpr::int(1000))),
            step: vec![KStmt::Assign {
                target: testing::lvar("j"),
                op: Some(BinOp::Add),
                value: KExpr::int(1),
            }],
            body: vec![copy_a(testing::var("j"))],
        };
        let it = lint_a(vec![lp]);
        assert_eq!(it[0].verdict, Verdict::UncoalescedData);
    }
}
