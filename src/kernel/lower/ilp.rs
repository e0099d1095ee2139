//! Several outputs per work-item (the paper's §3.3.2, "ILP enhancement", and the register
//! tiles of hand-written gemm kernels): a kernel whose block covers `TB_Y` rows and `TB_X`
//! columns is launched with `TB_Y / RY` rows and `TB_X / RX` columns of work-items, and each
//! work-item computes the RY×RX outputs `(ly + a·TB_Y/RY, lx + b·TB_X/RX)` (`a < RY`, `b < RX`)
//! of its block — a cyclic distribution in both directions, so consecutive work-items along x
//! still touch consecutive elements (loads and stores stay coalesced) and the tile loads keep
//! their shape. The cooperative parts of a staged kernel (tile loads and stores, barriers) are
//! not changed (their loops stride by the launched block); the computation between barriers is
//! replicated and *jammed*: loops and conditions that are the same for every copy run once with
//! the copies' statements interleaved inside, everything else is copied per output, each copy
//! under its own edge guard.
//!
//! Loads that several copies make at the same address are made once into a register
//! ([`Coarsen::jam`]): gemm's `B[k][j]` once per column of the micro-tile and `A[i][k]` once per
//! row, so an RY×RX tile makes RY + RX loads for RY·RX multiply-adds (the outer-product update);
//! a filter weight once for all.
//!
//! This is Algorithm 1 of the paper, with its "array expansion" done by copying: every scalar
//! the computation assigns or declares gets one scalar of its own per copy (named
//! `accshare_ilp1_s`, [`VarTable::copy`]), the y iterator one per row of the micro-tile and the
//! x iterator one per column; the copies of one thread are iterations of parallel loops, so
//! interleaving them is legal.
//!
//! Where the paper departs: it searches the factor by running every candidate on the device;
//! accshare picks it from the block shape ([`crate::schedule`]) so that compilation stays
//! deterministic and offline, `--ilp RY[xRX]` overrides it, and `accshare tune` measures.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::walk::VarTable;
use crate::kernel::{
    Arena, ArrayKind, ArrayRef, AtomicCapture, AtomicOp, Handle, KArray, KExpr, KStmt, KVar,
    LValue, VarKind,
};
use crate::vocab::{BinOp, Scalar};

/// The name of copy `f` of a renamed variable (copy 0 keeps the program's name).
pub(super) fn copy_name(v: &str, f: u32) -> String {
    if f == 0 {
        v.to_string()
    } else {
        format!("accshare_ilp{}_{}", f, v)
    }
}

pub(super) struct Coarsen {
    /// Outputs per work-item (`rows · cols`); copy `f` is row `f / cols`, column `f % cols`.
    pub f: u32,
    cols: u32,
    /// The y iterator (one copy per row) and the x iterator (one copy per column).
    y: Option<Handle<KVar>>,
    x: Option<Handle<KVar>>,
    /// Scalars with one copy per output: the grid iterators and every scalar the computation
    /// assigns or declares (outside `for` headers).
    pub renamed: BTreeSet<Handle<KVar>>,
    /// The private arrays the computation declares (one copy per output).
    renamed_arr: BTreeSet<Handle<KArray>>,
    /// The kernel's scalars (the copies are made there).
    vars: VarTable,
    /// Element types of the arrays whose loads may be shared by the copies (never written by
    /// the computation).
    shareable: BTreeMap<Handle<KArray>, Scalar>,
    /// The kernel's arrays when the coarsening was made (their names).
    arrays: Arena<KArray>,
    /// The copies `1..f` of each private array the copies rename ([`Self::set_array_copies`]).
    array_copies: BTreeMap<Handle<KArray>, Vec<Handle<KArray>>>,
    /// Temporaries made so far.
    temps: Cell<u32>,
    /// Short words (`schedule::words`): the arrays whose accesses the consecutive x copies
    /// (and y copies, [`Self::rows_adjacent`]) group into vector accesses.
    words: BTreeMap<Handle<KArray>, WordArray>,
    /// Whether the y copies are adjacent rows (`y + 1`, …: a transposed vector tile), not a
    /// launched block apart.
    rows_adjacent: bool,
    /// The distance of each x copy and each y copy from copy 0, in iterations, where
    /// [`Self::linear`] may read a copy's iterator as copy 0's plus it (empty: not read so).
    offsets: [Vec<i64>; 2],
    /// Local tiles a register micro-tile reads as aligned vectors of this many elements
    /// (`schedule::micro::vector_tiles`): copy 0's element of a run is aligned.
    vector_tiles: BTreeMap<Handle<KArray>, u32>,
}

/// An array whose short-word accesses are grouped (from the schedule's
/// [`crate::schedule::words::WordArray`]).
#[derive(Clone, Debug)]
struct WordArray {
    elem: Scalar,
    loads: bool,
    stores: bool,
    max_lanes: u32,
}

/// An integer expression as a sum of atoms (printed) times coefficients, plus a constant.
type Linear = (BTreeMap<String, i64>, i64);

/// A row of grouped loads: the array and the terms of the index without its constant.
type RowKey = (Handle<KArray>, BTreeMap<String, i64>);

fn expr_vars(e: &KExpr, out: &mut BTreeSet<Handle<KVar>>) {
    if let KExpr::Var(v) = e {
        out.insert(*v);
    }
    e.for_each_child(&mut |c| expr_vars(c, out));
}

/// Scalars (and private arrays, into `arrays`) assigned or declared by statements (not
/// counting `for` headers), and the iterators that `for` headers assign without declaring.
fn assigned(
    arrays: &mut BTreeSet<Handle<KArray>>,
    stmts: &[KStmt],
    out: &mut BTreeSet<Handle<KVar>>,
    headers: &mut BTreeSet<Handle<KVar>>,
) {
    for s in stmts {
        match s {
            KStmt::DeclArray(a) => {
                arrays.insert(*a);
            }
            KStmt::Decl { var, .. } => {
                out.insert(*var);
            }
            KStmt::Assign {
                target: LValue::Var(v),
                ..
            } => {
                out.insert(*v);
            }
            KStmt::Atomic {
                capture: Some(c), ..
            } => {
                out.insert(c.var);
            }
            KStmt::For {
                init, step, body, ..
            } => {
                for h in init.iter().chain(step) {
                    if let KStmt::Assign {
                        target: LValue::Var(v),
                        ..
                    } = h
                    {
                        headers.insert(*v);
                    }
                }
                assigned(arrays, body, out, headers);
            }
            KStmt::If { then, els, .. } => {
                assigned(arrays, then, out, headers);
                assigned(arrays, els, out, headers);
            }
            KStmt::While { body, .. } | KStmt::DoWhile { body, .. } | KStmt::Block(body) => {
                assigned(arrays, body, out, headers)
            }
            _ => {}
        }
    }
}

/// Arrays stored to by statements.
fn stored(stmts: &[KStmt], out: &mut BTreeSet<Handle<KArray>>) {
    for s in stmts {
        match s {
            KStmt::Assign {
                target: LValue::Elem(r),
                ..
            }
            | KStmt::Atomic { target: r, .. } => {
                out.insert(r.array);
            }
            s => s.for_each_child(&mut |c| stored(std::slice::from_ref(c), out)),
        }
    }
}

fn has_jump(stmts: &[KStmt]) -> bool {
    stmts.iter().any(|s| match s {
        KStmt::Break | KStmt::Continue => true,
        KStmt::If { then, els, .. } => has_jump(then) || has_jump(els),
        KStmt::Block(b) => has_jump(b),
        // Jumps inside a nested loop leave only that loop.
        _ => false,
    })
}

/// A barrier or an atomic statement (several rows per work-item keep to plain computations).
fn has_barrier(stmts: &[KStmt]) -> bool {
    stmts.iter().any(|s| match s {
        KStmt::Barrier | KStmt::Atomic { .. } => true,
        KStmt::If { then, els, .. } => has_barrier(then) || has_barrier(els),
        KStmt::For { body, .. }
        | KStmt::While { body, .. }
        | KStmt::DoWhile { body, .. }
        | KStmt::Block(body) => has_barrier(body),
        _ => false,
    })
}

/// Why a computation cannot be coarsened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoarsenError {
    /// The computation holds a barrier or an atomic.
    Barrier,
    /// A loop that differs between copies has an iterator the copies would share.
    SharedIterator(String),
}

impl fmt::Display for CoarsenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoarsenError::Barrier => write!(f, "the computation holds a barrier or an atomic"),
            CoarsenError::SharedIterator(v) => {
                write!(f, "loop iterator `{}` would be shared by the copies", v)
            }
        }
    }
}

impl std::error::Error for CoarsenError {}

impl Coarsen {
    /// The copies for the computation `pieces` of a kernel computing `rows` outputs along its
    /// y iterator `y` and `cols` along its x iterator `x`, or why the computation cannot be
    /// coarsened.
    /// `arrays`: the kernel's arrays (those the computation reads among them); `vars`: its
    /// scalars.
    pub fn new(
        (rows, y): (u32, Option<Handle<KVar>>),
        (cols, x): (u32, Option<Handle<KVar>>),
        pieces: &[&[KStmt]],
        (arrays, vars): (&Arena<KArray>, &VarTable),
    ) -> Result<Coarsen, CoarsenError> {
        let mut renamed = BTreeSet::new();
        let mut renamed_arr = BTreeSet::new();
        let mut headers = BTreeSet::new();
        let mut written = BTreeSet::new();
        for p in pieces {
            if has_barrier(p) {
                return Err(CoarsenError::Barrier);
            }
            assigned(&mut renamed_arr, p, &mut renamed, &mut headers);
            stored(p, &mut written);
        }
        let y = y.filter(|_| rows > 1);
        let x = x.filter(|_| cols > 1);
        renamed.extend(y.iter().chain(&x).copied());
        let shareable = arrays
            .iter()
            .filter(|(h, a)| {
                !matches!(a.kind, ArrayKind::Private { .. })
                    && !written.contains(h)
                    && !renamed_arr.contains(h)
            })
            .map(|(h, a)| (h, a.elem))
            .collect();
        let c = Coarsen {
            f: rows.max(1) * cols.max(1),
            cols: cols.max(1),
            y,
            x,
            renamed,
            renamed_arr,
            vars: vars.clone(),
            shareable,
            arrays: arrays.clone(),
            array_copies: BTreeMap::new(),
            temps: Cell::new(0),
            words: BTreeMap::new(),
            rows_adjacent: false,
            offsets: [(0..cols.max(1) as i64).collect(), Vec::new()],
            vector_tiles: BTreeMap::new(),
        };
        // A loop that differs between copies runs once per copy; its iterator must then be its
        // own (declared in its header) or renamed, or the copies would share it.
        for p in pieces {
            c.check_shared_iterators(p, &headers)?;
        }
        Ok(c)
    }

    fn check_shared_iterators(
        &self,
        stmts: &[KStmt],
        headers: &BTreeSet<Handle<KVar>>,
    ) -> Result<(), CoarsenError> {
        for s in stmts {
            match s {
                KStmt::For { init, body, .. } => {
                    if !self.uniform_loop(s) {
                        for h in init {
                            if let KStmt::Assign {
                                target: LValue::Var(v),
                                ..
                            } = h
                            {
                                if !self.renamed.contains(v) && headers.contains(v) {
                                    return Err(CoarsenError::SharedIterator(self.vars.name(*v)));
                                }
                            }
                        }
                    }
                    self.check_shared_iterators(body, headers)?;
                }
                KStmt::If { then, els, .. } => {
                    self.check_shared_iterators(then, headers)?;
                    self.check_shared_iterators(els, headers)?;
                }
                KStmt::While { body, .. } | KStmt::DoWhile { body, .. } | KStmt::Block(body) => {
                    self.check_shared_iterators(body, headers)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn uniform(&self, e: &KExpr) -> bool {
        let mut vs = BTreeSet::new();
        expr_vars(e, &mut vs);
        vs.iter().all(|v| !self.renamed.contains(v))
    }

    fn uniform_stmt(&self, s: &KStmt) -> bool {
        match s {
            KStmt::Decl { var, init } => {
                !self.renamed.contains(var) && init.as_ref().is_none_or(|e| self.uniform(e))
            }
            KStmt::Assign {
                target: LValue::Var(v),
                value,
                ..
            } => !self.renamed.contains(v) && self.uniform(value),
            KStmt::Expr(e) => self.uniform(e),
            _ => false,
        }
    }

    /// A loop every copy runs the same way: its header mentions no renamed variable and its body
    /// does not leave it early.
    fn uniform_loop(&self, s: &KStmt) -> bool {
        let KStmt::For {
            unroll: _,
            init,
            cond,
            step,
            body,
        } = s
        else {
            return false;
        };
        init.iter().chain(step).all(|h| self.uniform_stmt(h))
            && cond.as_ref().is_none_or(|c| self.uniform(c))
            && !has_jump(body)
    }

    /// The computation for all copies, copy `f` under the edge guard `guards[f]`.
    pub fn jam(&self, stmts: &[KStmt], guard: Option<&[KExpr]>) -> Vec<KStmt> {
        self.jam_in(stmts, guard, false)
    }

    /// The computation for all copies one after another, copy `f` whole (its own block) under
    /// the edge guard `guards[f]` (`Schedule::serial_edges`).
    pub fn serial(&self, stmts: &[KStmt], guards: &[KExpr]) -> Vec<KStmt> {
        (0..self.f)
            .zip(guards)
            .map(|(f, g)| KStmt::If {
                cond: g.clone(),
                then: vec![KStmt::Block(
                    stmts.iter().map(|s| self.stmt(s, f)).collect(),
                )],
                els: Vec::new(),
            })
            .collect()
    }

    /// [`Self::jam`], or with `words` (no guards: every copy in bounds) [`Self::jam_words`]:
    /// the copies of each simple statement then go through [`Self::group`].
    fn jam_in(&self, stmts: &[KStmt], guard: Option<&[KExpr]>, words: bool) -> Vec<KStmt> {
        // The copies of one simple statement, grouped or each under its guard.
        let emit = |copies: Vec<KStmt>, group: bool, out: &mut Vec<KStmt>| {
            if words && group {
                self.group(copies, out);
            } else {
                for (f, c) in copies.into_iter().enumerate() {
                    out.extend(self.guarded(guard, f as u32, vec![c]));
                }
            }
        };
        let mut out = Vec::new();
        for s in stmts {
            match s {
                KStmt::For {
                    unroll,
                    init,
                    cond,
                    step,
                    body,
                } if self.uniform_loop(s) => out.push(KStmt::For {
                    unroll: *unroll,
                    init: init.clone(),
                    cond: cond.clone(),
                    step: step.clone(),
                    body: self.jam_in(body, guard, words),
                }),
                KStmt::If { cond, then, els } if self.uniform(cond) => out.push(KStmt::If {
                    cond: cond.clone(),
                    then: self.jam_in(then, guard, words),
                    els: self.jam_in(els, guard, words),
                }),
                KStmt::Block(b) => out.push(KStmt::Block(self.jam_in(b, guard, words))),
                KStmt::Comment(_) => out.push(s.clone()),
                KStmt::DeclArray(a) => {
                    for f in 0..self.f {
                        out.push(KStmt::DeclArray(self.array_copy(*a, f)));
                    }
                }
                KStmt::Decl { var, init } => {
                    for f in 0..self.f {
                        out.push(KStmt::Decl {
                            var: self.name(*var, f),
                            init: None,
                        });
                    }
                    if let Some(e) = init {
                        let sets = (0..self.f)
                            .map(|f| KStmt::Assign {
                                target: LValue::Var(self.name(*var, f)),
                                op: None,
                                value: self.expr(e, f),
                            })
                            .collect();
                        emit(sets, true, &mut out);
                    }
                }
                KStmt::Assign { .. } | KStmt::Expr(_) => {
                    let copies = self.share_loads(s, guard, &mut out);
                    emit(copies, true, &mut out);
                }
                _ => {
                    for f in 0..self.f {
                        out.extend(self.guarded(guard, f, vec![self.stmt(s, f)]));
                    }
                }
            }
        }
        out
    }

    /// Loads that several copies of a simple statement make at the same address (gemm's
    /// `B[k][j]` for the copies of one column, `A[i][k]` for those of one row, a filter weight
    /// for all) are made once into a register before the copies, under the union of the guards
    /// of the copies that read it (so a load happens only where the program would make it), and
    /// those copies read the register. Only arrays the computation never stores are shared;
    /// loads under `?:`, `&&` and `||` stay where they are. Returns the statement of each copy.
    fn share_loads(&self, s: &KStmt, guard: Option<&[KExpr]>, out: &mut Vec<KStmt>) -> Vec<KStmt> {
        let mut loads: Vec<KExpr> = Vec::new();
        self.stmt_loads(s, &mut loads);
        // regs[f]: (load of copy f as written, register) for the loads copy f shares.
        let mut regs: Vec<Vec<(KExpr, Handle<KVar>)>> = vec![Vec::new(); self.f as usize];
        // Registers loaded unguarded from a tile read as vectors: (register, its load, copy
        // 0's load), for `vector_regs`.
        let mut vector_cands: Vec<(Handle<KVar>, ArrayRef, ArrayRef)> = Vec::new();
        for load in &loads {
            let copies: Vec<KExpr> = (0..self.f).map(|f| self.expr(load, f)).collect();
            let mut seen: Vec<usize> = Vec::new();
            for (f, e) in copies.iter().enumerate() {
                if seen.contains(&f) {
                    continue;
                }
                let group: Vec<usize> = (f..copies.len()).filter(|&g| copies[g] == *e).collect();
                seen.extend(&group);
                if group.len() < 2 {
                    continue;
                }
                let n = self.temps.get();
                self.temps.set(n + 1);
                let ty = match load {
                    KExpr::Load(r) => self.shareable.get(&r.array).copied(),
                    _ => None,
                }
                .unwrap_or(Scalar::Float);
                let name = self
                    .vars
                    .add(&format!("accshare_reg{}", n), ty, VarKind::Private);
                let any = guard.and_then(|g| {
                    group
                        .iter()
                        .filter_map(|&c| g.get(c).cloned())
                        .reduce(|a, b| KExpr::bin(BinOp::LogOr, a, b))
                });
                match any {
                    None => {
                        if let (KExpr::Load(r), KExpr::Load(r0)) = (e, load) {
                            if self.vector_tiles.contains_key(&r.array) && r.field.is_none() {
                                vector_cands.push((name, r.clone(), r0.clone()));
                            }
                        }
                        out.push(KStmt::Decl {
                            var: name,
                            init: Some(e.clone()),
                        })
                    }
                    Some(g) => {
                        out.push(KStmt::Decl {
                            var: name,
                            init: None,
                        });
                        out.push(KStmt::If {
                            cond: g,
                            then: vec![KStmt::Assign {
                                target: LValue::Var(name),
                                op: None,
                                value: e.clone(),
                            }],
                            els: Vec::new(),
                        });
                    }
                }
                for &c in &group {
                    regs[c].push((load.clone(), name));
                }
            }
        }
        self.vector_regs(&vector_cands, out);
        (0..self.f)
            .map(|f| {
                let rewrite = |e: &KExpr| self.replace_loads(e, &regs[f as usize]);
                let shared = match s {
                    KStmt::Assign { target, op, value } => KStmt::Assign {
                        target: match target {
                            LValue::Elem(r) => LValue::Elem(ArrayRef {
                                array: r.array,
                                index: Box::new(rewrite(&r.index)),
                                field: r.field.clone(),
                            }),
                            t => t.clone(),
                        },
                        op: *op,
                        value: rewrite(value),
                    },
                    KStmt::Expr(e) => KStmt::Expr(rewrite(e)),
                    other => other.clone(),
                };
                self.stmt(&shared, f)
            })
            .collect()
    }

    /// The registers of `cands` (register, its load, copy 0's load) that hold the `V`
    /// consecutive elements of an aligned run of a tile read as vectors
    /// ([`Self::vector_tiles`]) loaded by one aligned vector load instead: the run's element
    /// indices differ only in their constants, `c`, `c + 1`, …, `c + V - 1`, with `c` a
    /// multiple of `V` away from copy 0's (whose element starts a run: the schedule laid the
    /// tile out so). The vector load takes the place of the run's first declaration in `out`;
    /// the others are removed.
    fn vector_regs(&self, cands: &[(Handle<KVar>, ArrayRef, ArrayRef)], out: &mut Vec<KStmt>) {
        // (array, terms, copy 0's constant) → (constant, register, load) of each register.
        type Key = (Handle<KArray>, BTreeMap<String, i64>, i64);
        type Run = Vec<(i64, Handle<KVar>, ArrayRef)>;
        let mut rows: Vec<(Key, Run)> = Vec::new();
        for (reg, r, r0) in cands {
            let (Some((terms, c)), Some((terms0, c0))) =
                (self.linear(&r.index), self.linear(&r0.index))
            else {
                continue;
            };
            if terms != terms0 {
                continue;
            }
            let key = (r.array, terms, c0);
            match rows.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push((c, *reg, r.clone())),
                None => rows.push((key, vec![(c, *reg, r.clone())])),
            }
        }
        for ((array, _, c0), regs) in rows {
            let v = i64::from(self.vector_tiles[&array]);
            let elem = self.arrays[array].elem;
            let mut starts: Vec<i64> = regs
                .iter()
                .map(|(c, ..)| *c)
                .filter(|c| (c - c0).rem_euclid(v) == 0)
                .collect();
            starts.sort_unstable();
            starts.dedup();
            for start in starts {
                let lanes: Option<Vec<&(i64, Handle<KVar>, ArrayRef)>> = (0..v)
                    .map(|k| regs.iter().find(|(c, ..)| *c == start + k))
                    .collect();
                let Some(lanes) = lanes else { continue };
                let names: Vec<Handle<KVar>> = lanes.iter().map(|(_, n, _)| *n).collect();
                let declared =
                    |s: &KStmt| matches!(s, KStmt::Decl { var, .. } if names.contains(var));
                let Some(at) = out.iter().position(declared) else {
                    continue;
                };
                let k = self.temps.get();
                self.temps.set(k + 1);
                let vector = self
                    .vars
                    .add(&format!("accshare_v{}", k), elem, VarKind::Private);
                out[at] = KStmt::VecLoad {
                    vector,
                    lanes: names.clone(),
                    elem,
                    src: lanes[0].2.clone(),
                    aligned: true,
                };
                let mut i = 0;
                out.retain(|s| {
                    i += 1;
                    i - 1 == at || !declared(s)
                });
            }
        }
    }

    /// The same coarsening, whose registers from the local tiles `tiles` (name, V) are loaded
    /// as aligned vectors of V elements where V consecutive copies read consecutive elements;
    /// `offsets`: the distance of each x copy and each y copy from copy 0, in iterations.
    pub fn with_vector_tiles(mut self, tiles: &[(String, u32)], offsets: [Vec<i64>; 2]) -> Coarsen {
        for (name, v) in tiles {
            for (h, _) in self.arrays.iter().filter(|(_, a)| a.name == *name) {
                if self.shareable.contains_key(&h) {
                    self.vector_tiles.insert(h, *v);
                }
            }
        }
        if !self.vector_tiles.is_empty() {
            self.offsets = offsets;
        }
        self
    }

    /// The loads of shareable arrays in a simple statement, in order, each once.
    fn stmt_loads(&self, s: &KStmt, out: &mut Vec<KExpr>) {
        match s {
            KStmt::Assign { target, value, .. } => {
                if let LValue::Elem(r) = target {
                    self.loads(&r.index, out);
                }
                self.loads(value, out);
            }
            KStmt::Expr(e) => self.loads(e, out),
            _ => {}
        }
    }

    fn loads(&self, e: &KExpr, out: &mut Vec<KExpr>) {
        let mut refs = Vec::new();
        unconditional_loads(e, &|r| self.shareable.contains_key(&r.array), &mut refs);
        for r in refs {
            let l = KExpr::Load(r.clone());
            if !out.contains(&l) {
                out.push(l);
            }
        }
    }

    /// `e` with the loads of `regs` replaced by their registers (where [`Self::loads`] finds
    /// them).
    fn replace_loads(&self, e: &KExpr, regs: &[(KExpr, Handle<KVar>)]) -> KExpr {
        replace_unconditional_loads(e, &|r| {
            if !self.shareable.contains_key(&r.array) {
                return None;
            }
            let l = KExpr::Load(r.clone());
            Some(match regs.iter().find(|(x, _)| *x == l) {
                Some((_, n)) => KExpr::Var(*n),
                None => l,
            })
        })
    }

    fn guarded(&self, guard: Option<&[KExpr]>, f: u32, stmts: Vec<KStmt>) -> Vec<KStmt> {
        match guard.and_then(|g| g.get(f as usize)) {
            Some(g) => vec![KStmt::If {
                cond: g.clone(),
                then: stmts,
                els: Vec::new(),
            }],
            None => stmts,
        }
    }

    /// Copy `f` of the scalar `v` (itself unless the copies rename it).
    fn name(&self, v: Handle<KVar>, f: u32) -> Handle<KVar> {
        if self.y == Some(v) {
            self.vars.copy(v, f / self.cols)
        } else if self.x == Some(v) {
            self.vars.copy(v, f % self.cols)
        } else if self.renamed.contains(&v) {
            self.vars.copy(v, f)
        } else {
            v
        }
    }

    /// Copy `f` of an expression.
    pub fn expr(&self, e: &KExpr, f: u32) -> KExpr {
        match e {
            KExpr::Var(v) => KExpr::Var(self.name(*v, f)),
            KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => e.clone(),
            KExpr::Load(r) => KExpr::Load(self.aref(r, f)),
            KExpr::Unary(op, a) => KExpr::Unary(*op, Box::new(self.expr(a, f))),
            KExpr::Cast(t, a) => KExpr::Cast(*t, Box::new(self.expr(a, f))),
            KExpr::Binary(op, a, b) => KExpr::bin(*op, self.expr(a, f), self.expr(b, f)),
            KExpr::Cond(a, b, c) => KExpr::Cond(
                Box::new(self.expr(a, f)),
                Box::new(self.expr(b, f)),
                Box::new(self.expr(c, f)),
            ),
            KExpr::Call(n, args) => {
                KExpr::Call(n.clone(), args.iter().map(|a| self.expr(a, f)).collect())
            }
        }
    }

    /// Copy `f` of the array `a` (itself unless the copies rename it).
    fn array_copy(&self, a: Handle<KArray>, f: u32) -> Handle<KArray> {
        match self.array_copies.get(&a) {
            Some(copies) if f > 0 => copies[f as usize - 1],
            _ => a,
        }
    }

    fn aref(&self, r: &ArrayRef, f: u32) -> ArrayRef {
        ArrayRef {
            array: self.array_copy(r.array, f),
            index: Box::new(self.expr(&r.index, f)),
            field: r.field.clone(),
        }
    }

    /// Copy `f` of a statement (whole).
    pub fn stmt(&self, s: &KStmt, f: u32) -> KStmt {
        let block = |b: &[KStmt]| b.iter().map(|x| self.stmt(x, f)).collect::<Vec<_>>();
        match s {
            KStmt::DeclArray(a) => KStmt::DeclArray(self.array_copy(*a, f)),
            KStmt::Decl { var, init } => KStmt::Decl {
                var: self.name(*var, f),
                init: init.as_ref().map(|e| self.expr(e, f)),
            },
            KStmt::Assign { target, op, value } => KStmt::Assign {
                target: match target {
                    LValue::Var(v) => LValue::Var(self.name(*v, f)),
                    LValue::Elem(r) => LValue::Elem(self.aref(r, f)),
                },
                op: *op,
                value: self.expr(value, f),
            },
            KStmt::Expr(e) => KStmt::Expr(self.expr(e, f)),
            KStmt::If { cond, then, els } => KStmt::If {
                cond: self.expr(cond, f),
                then: block(then),
                els: block(els),
            },
            KStmt::For {
                unroll,
                init,
                cond,
                step,
                body,
            } => KStmt::For {
                unroll: *unroll,
                init: block(init),
                cond: cond.as_ref().map(|c| self.expr(c, f)),
                step: block(step),
                body: block(body),
            },
            KStmt::While { cond, body } => KStmt::While {
                cond: self.expr(cond, f),
                body: block(body),
            },
            KStmt::DoWhile { body, cond } => KStmt::DoWhile {
                body: block(body),
                cond: self.expr(cond, f),
            },
            KStmt::Block(b) => KStmt::Block(block(b)),
            KStmt::Atomic {
                target,
                ty,
                op,
                capture,
            } => KStmt::Atomic {
                target: self.aref(target, f),
                ty: *ty,
                op: match op {
                    AtomicOp::Read => AtomicOp::Read,
                    AtomicOp::Write(e) => AtomicOp::Write(self.expr(e, f)),
                    AtomicOp::Update {
                        op,
                        value,
                        reversed,
                    } => AtomicOp::Update {
                        op: *op,
                        value: self.expr(value, f),
                        reversed: *reversed,
                    },
                },
                capture: capture.as_ref().map(|c| AtomicCapture {
                    var: self.name(c.var, f),
                    after: c.after,
                }),
            },
            KStmt::VecLoad {
                vector,
                lanes,
                elem,
                src,
                aligned,
            } => KStmt::VecLoad {
                vector: self.vars.copy(*vector, f),
                lanes: lanes.iter().map(|&l| self.vars.copy(l, f)).collect(),
                elem: *elem,
                src: self.aref(src, f),
                aligned: *aligned,
            },
            KStmt::VecStore { dst, elem, values } => KStmt::VecStore {
                dst: self.aref(dst, f),
                elem: *elem,
                values: values.iter().map(|v| self.expr(v, f)).collect(),
            },
            KStmt::Break | KStmt::Continue | KStmt::Barrier | KStmt::Comment(_) => s.clone(),
        }
    }

    // ---- short words ----------------------------------------------------------------------

    /// The same coarsening, grouping the short-word accesses of `words` (the schedule's: its
    /// `width` consecutive x copies, and its `rows` consecutive y copies, or one row).
    pub fn with_words(mut self, words: &crate::schedule::words::Words) -> Coarsen {
        let rows = self.f / self.cols;
        if self.x.is_none()
            || self.cols != words.width
            || rows != words.rows.max(1)
            || (rows > 1) != self.y.is_some()
        {
            return self;
        }
        self.rows_adjacent = rows > 1;
        if self.rows_adjacent {
            self.offsets[1] = (0..rows as i64).collect();
        }
        let mut grouped = BTreeMap::new();
        for a in &words.arrays {
            for (h, _) in self.arrays.iter().filter(|(_, k)| k.name == a.name) {
                let shareable = self.shareable.contains_key(&h);
                if shareable || a.stores {
                    grouped.insert(
                        h,
                        WordArray {
                            elem: a.elem,
                            loads: a.loads && shareable,
                            stores: a.stores,
                            max_lanes: a.max_lanes,
                        },
                    );
                }
            }
        }
        self.words = grouped;
        self
    }

    /// The private arrays the copies rename ([`Self::renamed_arrays`]), each with
    /// its copies `1..f` (the caller's, which declares them).
    /// `arrays`: the kernel's arrays, the copies included.
    pub fn set_array_copies(
        &mut self,
        copies: BTreeMap<Handle<KArray>, Vec<Handle<KArray>>>,
        arrays: &Arena<KArray>,
    ) {
        self.array_copies = copies;
        self.arrays = arrays.clone();
    }

    /// The private arrays the copies rename.
    pub fn renamed_arrays(&self) -> Vec<Handle<KArray>> {
        self.arrays
            .iter()
            .filter(|(h, a)| {
                matches!(a.kind, ArrayKind::Private { .. }) && self.renamed_arr.contains(h)
            })
            .map(|(h, _)| h)
            .collect()
    }

    /// Whether this coarsening groups short words.
    pub fn groups_words(&self) -> bool {
        !self.words.is_empty()
    }

    /// The computation for all copies with every copy inside the bounds (no guards), the
    /// short-word accesses of the copies of each statement grouped: the loads of one row into
    /// vector loads of the span they cover, the stores of the copies into one vector store.
    pub fn jam_words(&self, stmts: &[KStmt]) -> Vec<KStmt> {
        self.jam_in(stmts, None, true)
    }

    /// The linear form of an integer index, the x copies `accshare_ilp{b}_x` read as `x + b`.
    fn linear(&self, e: &KExpr) -> Option<Linear> {
        let atom = |e: &KExpr| {
            let mut m = BTreeMap::new();
            let text = self
                .vars
                .with(|vars| crate::kernel::access::print_expr(e, (&self.arrays, vars), 0));
            m.insert(text, 1);
            Some((m, 0))
        };
        match e {
            KExpr::Int(v, _) => Some((BTreeMap::new(), *v)),
            KExpr::Var(v) => {
                for (it, offsets) in [(self.x, &self.offsets[0]), (self.y, &self.offsets[1])] {
                    let Some(it) = it else { continue };
                    for (b, off) in offsets.iter().enumerate().skip(1) {
                        if *v == self.vars.copy(it, b as u32) {
                            let mut m = BTreeMap::new();
                            m.insert(self.vars.name(it), 1);
                            return Some((m, *off));
                        }
                    }
                }
                atom(e)
            }
            KExpr::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (mut ta, ca) = self.linear(a)?;
                let (tb, cb) = self.linear(b)?;
                let sign = if *op == BinOp::Add { 1 } else { -1 };
                for (k, v) in tb {
                    *ta.entry(k).or_insert(0) += sign * v;
                }
                ta.retain(|_, v| *v != 0);
                Some((ta, ca.checked_add(sign * cb)?))
            }
            KExpr::Binary(BinOp::Mul, a, b) => {
                let (ta, ca) = self.linear(a)?;
                let (tb, cb) = self.linear(b)?;
                let (terms, c, k) = match (ta.is_empty(), tb.is_empty()) {
                    (true, _) => (tb, cb, ca),
                    (_, true) => (ta, ca, cb),
                    _ => return atom(e),
                };
                let terms = terms
                    .into_iter()
                    .map(|(n, v)| v.checked_mul(k).map(|v| (n, v)))
                    .collect::<Option<BTreeMap<_, _>>>()?;
                Some((terms, c.checked_mul(k)?))
            }
            KExpr::Unary(crate::vocab::UnOp::Neg, a) => {
                let (t, c) = self.linear(a)?;
                Some((t.into_iter().map(|(n, v)| (n, -v)).collect(), -c))
            }
            KExpr::Cast(t, a) if t.size() >= 4 && !matches!(t, Scalar::Float | Scalar::Double) => {
                self.linear(a)
            }
            _ => atom(e),
        }
    }

    /// The unconditional loads of grouped arrays in an expression, in order.
    fn word_loads(&self, e: &KExpr, out: &mut Vec<ArrayRef>) {
        let mut refs = Vec::new();
        unconditional_loads(e, &|r| self.grouped_load(r), &mut refs);
        out.extend(refs.into_iter().cloned());
    }

    fn grouped_load(&self, r: &ArrayRef) -> bool {
        self.words.get(&r.array).is_some_and(|w| w.loads)
    }

    /// `e` with the loads [`Self::word_loads`] finds replaced by their lanes.
    fn replace_words(&self, e: &KExpr, lanes: &[(ArrayRef, Handle<KVar>)]) -> KExpr {
        replace_unconditional_loads(e, &|r| {
            if !self.grouped_load(r) {
                return None;
            }
            Some(match lanes.iter().find(|(l, _)| l == r) {
                Some((_, n)) => KExpr::Var(*n),
                None => KExpr::Load(r.clone()),
            })
        })
    }

    /// The copies of one simple statement with their short-word loads grouped into vector
    /// loads (emitted first) and, where the copies store consecutive elements of a grouped
    /// array, one vector store.
    fn group(&self, copies: Vec<KStmt>, out: &mut Vec<KStmt>) {
        // Every load of a grouped array the copies make unconditionally.
        let mut loads: Vec<ArrayRef> = Vec::new();
        for c in &copies {
            match c {
                KStmt::Assign { target, value, .. } => {
                    if let LValue::Elem(r) = target {
                        self.word_loads(&r.index, &mut loads);
                    }
                    self.word_loads(value, &mut loads);
                }
                KStmt::Expr(e) => self.word_loads(e, &mut loads),
                _ => {}
            }
        }
        // Rows: (array, the index without its constant) → (offset, load) of each load.
        let mut rows: Vec<(RowKey, Vec<(i64, ArrayRef)>)> = Vec::new();
        for r in loads {
            let Some((terms, c)) = self.linear(&r.index) else {
                continue;
            };
            let key = (r.array, terms);
            match rows.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => {
                    if !v.iter().any(|(_, l)| *l == r) {
                        v.push((c, r));
                    }
                }
                None => rows.push((key, vec![(c, r)])),
            }
        }
        let mut lanes: Vec<(ArrayRef, Handle<KVar>)> = Vec::new();
        for ((array, _), refs) in rows {
            let Some(w) = self.words.get(&array) else {
                continue;
            };
            // Runs of consecutive offsets (rows of a flattened array share the index's terms
            // and lie a row apart: each row is a run of its own).
            let mut offsets: Vec<i64> = refs.iter().map(|(c, _)| *c).collect();
            offsets.sort_unstable();
            offsets.dedup();
            let mut runs: Vec<(i64, i64)> = Vec::new();
            for c in offsets {
                match runs.last_mut() {
                    Some((_, hi)) if c - *hi <= 1 => *hi = c,
                    _ => runs.push((c, c)),
                }
            }
            for (lo, hi) in runs {
                let mut start = lo;
                while start <= hi {
                    // The widest vector inside [start, hi] (every lane between two elements the
                    // program reads is inside the array).
                    let room = (hi - start + 1) as u32;
                    let n = [16u32, 8, 4, 2]
                        .into_iter()
                        .find(|&n| n <= room && n <= w.max_lanes)
                        .unwrap_or(1);
                    let inside: Vec<&(i64, ArrayRef)> = refs
                        .iter()
                        .filter(|(c, _)| *c >= start && *c < start + n as i64)
                        .collect();
                    if n < 2 || inside.len() < 2 {
                        start += 1;
                        continue;
                    }
                    let k = self.temps.get();
                    self.temps.set(k + 1);
                    let vector = format!("accshare_w{}", k);
                    let names: Vec<Handle<KVar>> = (0..n)
                        .map(|l| {
                            let name = format!("{}_{}", vector, l);
                            self.vars.add(&name, w.elem, VarKind::Private)
                        })
                        .collect();
                    let vector = self.vars.add(&vector, w.elem, VarKind::Private);
                    let (c0, r0) = inside[0];
                    let index = match start - c0 {
                        0 => (*r0.index).clone(),
                        d => KExpr::Binary(
                            if d > 0 { BinOp::Add } else { BinOp::Sub },
                            r0.index.clone(),
                            Box::new(KExpr::Int(d.abs(), Scalar::Int)),
                        ),
                    };
                    out.push(KStmt::VecLoad {
                        vector,
                        lanes: names.clone(),
                        elem: w.elem,
                        src: ArrayRef {
                            array: r0.array,
                            index: Box::new(index),
                            field: None,
                        },
                        aligned: false,
                    });
                    for (c, r) in inside {
                        lanes.push((r.clone(), names[(c - start) as usize]));
                    }
                    start += n as i64;
                }
            }
        }
        let copies: Vec<KStmt> = copies
            .into_iter()
            .map(|c| match c {
                KStmt::Assign { target, op, value } => KStmt::Assign {
                    target: match target {
                        LValue::Elem(r) => LValue::Elem(ArrayRef {
                            index: Box::new(self.replace_words(&r.index, &lanes)),
                            ..r
                        }),
                        t => t,
                    },
                    op,
                    value: self.replace_words(&value, &lanes),
                },
                KStmt::Expr(e) => KStmt::Expr(self.replace_words(&e, &lanes)),
                other => other,
            })
            .collect();
        self.vector_stores(copies, out);
    }

    /// The copies of one statement, those that store consecutive elements of a grouped array
    /// (plain `=`) as vector stores of 2, 4, 8 or 16 lanes: the x copies of a row, or the y
    /// copies of a column of a transposed vector tile. The copies compute independent outputs,
    /// and a grouped array that is written is never read by the nest, so their order is free.
    fn vector_stores(&self, copies: Vec<KStmt>, out: &mut Vec<KStmt>) {
        // (key, offset, element, value) of each copy's store into a grouped array.
        type Slot<'c> = (RowKey, i64, &'c ArrayRef, &'c KExpr);
        let slots: Vec<Option<Slot>> = copies
            .iter()
            .map(|c| {
                let KStmt::Assign {
                    target: LValue::Elem(r),
                    op: None,
                    value,
                } = c
                else {
                    return None;
                };
                self.words.get(&r.array).filter(|w| w.stores)?;
                let (terms, off) = self.linear(&r.index)?;
                Some(((r.array, terms), off, r, value))
            })
            .collect();
        let mut keys: Vec<&RowKey> = Vec::new();
        for (k, ..) in slots.iter().flatten() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let mut stored = vec![false; copies.len()];
        for key in keys {
            // (offset, copy) of the stores under this key, by offset.
            let mut at: Vec<(i64, usize)> = slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.as_ref().filter(|s| s.0 == *key).map(|s| (s.1, i)))
                .collect();
            at.sort_unstable();
            let mut start = 0;
            while start < at.len() {
                // The run of consecutive offsets from `start`, cut to a vector's lanes.
                let mut end = start + 1;
                while end < at.len() && at[end].0 == at[end - 1].0 + 1 {
                    end += 1;
                }
                let n = [16usize, 8, 4, 2]
                    .into_iter()
                    .find(|&n| n <= end - start)
                    .unwrap_or(1);
                let run: Vec<&Slot> = at[start..start + n]
                    .iter()
                    .filter_map(|&(_, i)| slots[i].as_ref())
                    .collect();
                if let (true, Some(first), Some(w)) = (n >= 2, run.first(), self.words.get(&key.0))
                {
                    out.push(KStmt::VecStore {
                        dst: first.2.clone(),
                        elem: w.elem,
                        values: run.iter().map(|s| s.3.clone()).collect(),
                    });
                    at[start..start + n]
                        .iter()
                        .for_each(|&(_, i)| stored[i] = true);
                }
                start += n;
            }
        }
        out.extend(
            copies
                .into_iter()
                .zip(stored)
                .filter(|(_, s)| !s)
                .map(|(c, _)| c),
        );
    }
}

/// The loads `pick` selects that `e` makes unconditionally (not under the right operand of
/// `&&`/`||` or a branch of `?:`), in order; the index of a load not picked is searched too.
fn unconditional_loads<'e>(
    e: &'e KExpr,
    pick: &dyn Fn(&ArrayRef) -> bool,
    out: &mut Vec<&'e ArrayRef>,
) {
    match e {
        KExpr::Load(r) if pick(r) => out.push(r),
        KExpr::Load(r) => unconditional_loads(&r.index, pick, out),
        KExpr::Unary(_, a) | KExpr::Cast(_, a) => unconditional_loads(a, pick, out),
        KExpr::Binary(BinOp::LogAnd | BinOp::LogOr, a, _) | KExpr::Cond(a, _, _) => {
            unconditional_loads(a, pick, out)
        }
        KExpr::Binary(_, a, b) => {
            unconditional_loads(a, pick, out);
            unconditional_loads(b, pick, out);
        }
        KExpr::Call(_, args) => args.iter().for_each(|a| unconditional_loads(a, pick, out)),
        KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => {}
    }
}

/// `e` with each load [`unconditional_loads`] would visit replaced by what `with` returns for
/// it (`None`: kept, its index rewritten).
fn replace_unconditional_loads(e: &KExpr, with: &dyn Fn(&ArrayRef) -> Option<KExpr>) -> KExpr {
    let go = |x: &KExpr| replace_unconditional_loads(x, with);
    match e {
        KExpr::Load(r) => match with(r) {
            Some(x) => x,
            None => KExpr::Load(ArrayRef {
                array: r.array,
                index: Box::new(go(&r.index)),
                field: r.field.clone(),
            }),
        },
        KExpr::Unary(op, a) => KExpr::Unary(*op, Box::new(go(a))),
        KExpr::Cast(t, a) => KExpr::Cast(*t, Box::new(go(a))),
        KExpr::Binary(op @ (BinOp::LogAnd | BinOp::LogOr), a, b) => {
            KExpr::Binary(*op, Box::new(go(a)), b.clone())
        }
        KExpr::Binary(op, a, b) => KExpr::bin(*op, go(a), go(b)),
        KExpr::Cond(a, b, c) => KExpr::Cond(Box::new(go(a)), b.clone(), c.clone()),
        KExpr::Call(n, args) => KExpr::Call(n.clone(), args.iter().map(go).collect()),
        KExpr::Var(_) | KExpr::Int(..) | KExpr::Float(..) | KExpr::Builtin(_) => e.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::testing::{self, elem, load};
    use crate::kernel::Space;

    /// A table of the thread's scalars (the test's), for a coarsening.
    fn tvars() -> VarTable {
        VarTable::holding(testing::vars_snapshot())
    }

    /// The thread's table of scalars becomes `c`'s (the copies included), so that the test
    /// names the copies by name.
    fn sync(c: &Coarsen) {
        testing::set_vars(c.vars.with(|v| v.clone()));
    }

    /// The thread's table of arrays with the element types `elems` set.
    fn table(elems: &[(&str, Space, Scalar)]) -> Arena<KArray> {
        for (n, sp, _) in elems {
            testing::array(n, *sp);
        }
        let mut t = testing::snapshot();
        for (n, sp, e) in elems {
            let h = testing::array(n, *sp);
            t[h].elem = *e;
        }
        t
    }

    fn kloop(bound: KExpr, body: Vec<KStmt>) -> KStmt {
        KStmt::For {
            unroll: false,
            init: vec![KStmt::Assign {
                target: testing::lvar("k"),
                op: None,
                value: KExpr::int(0),
            }],
            cond: Some(KExpr::bin(BinOp::Lt, testing::var("k"), bound)),
            step: vec![KStmt::Assign {
                target: testing::lvar("k"),
                op: Some(BinOp::Add),
                value: KExpr::int(1),
            }],
            body,
        }
    }
    /// `s += A[i*n + k] * B[k]` (A and B tiles).
    fn update() -> KStmt {
        KStmt::Assign {
            target: testing::lvar("s"),
            op: Some(BinOp::Add),
            value: KExpr::bin(
                BinOp::Mul,
                load(
                    "A",
                    Space::Local,
                    KExpr::bin(BinOp::Add, testing::var("i"), testing::var("k")),
                ),
                load("B", Space::Local, testing::var("k")),
            ),
        }
    }
    fn arrays() -> Arena<KArray> {
        table(&[
            ("A", Space::Local, Scalar::Float),
            ("B", Space::Local, Scalar::Float),
        ])
    }

    #[test]
    fn a_uniform_loop_is_jammed_and_its_shared_load_made_once() {
        let body = vec![kloop(testing::var("n"), vec![update()])];
        let guards = [testing::var("ok0"), testing::var("ok1")];
        let c = Coarsen::new(
            (2, Some(testing::v("i"))),
            (1, None),
            &[&body],
            (&arrays(), &tvars()),
        )
        .unwrap();
        assert!(c.renamed.contains(&testing::v("s")) && c.renamed.contains(&testing::v("i")));
        assert!(!c.renamed.contains(&testing::v("k")));
        let out = c.jam(&body, Some(&guards));
        sync(&c);
        assert_eq!(out.len(), 1, "one loop: {:?}", out);
        let KStmt::For { body: jammed, .. } = &out[0] else {
            panic!("not a loop: {:?}", out)
        };
        // reg decl, its guarded load, then one guarded update per row.
        assert_eq!(jammed.len(), 4, "{:#?}", jammed);
        let KStmt::If { cond, then, .. } = &jammed[1] else {
            panic!("{:?}", jammed[1])
        };
        assert_eq!(
            cond,
            &KExpr::bin(BinOp::LogOr, testing::var("ok0"), testing::var("ok1"))
        );
        assert_eq!(
            then[0],
            KStmt::Assign {
                target: testing::lvar("accshare_reg0"),
                op: None,
                value: load("B", Space::Local, testing::var("k")),
            }
        );
        let KStmt::If { cond, then, .. } = &jammed[3] else {
            panic!("{:?}", jammed[3])
        };
        assert_eq!(cond, &testing::var("ok1"));
        assert_eq!(
            then[0],
            KStmt::Assign {
                target: testing::lvar("accshare_ilp1_s"),
                op: Some(BinOp::Add),
                value: KExpr::bin(
                    BinOp::Mul,
                    load(
                        "A",
                        Space::Local,
                        KExpr::bin(
                            BinOp::Add,
                            testing::var("accshare_ilp1_i"),
                            testing::var("k")
                        )
                    ),
                    testing::var("accshare_reg0"),
                ),
            }
        );
    }

    #[test]
    fn a_loop_whose_bound_differs_per_row_runs_once_per_row() {
        // for (int q = 0; q < i; q++) s += …: the bound depends on the row.
        let lp = KStmt::For {
            unroll: false,
            init: vec![testing::decl("q", Scalar::Int, Some(KExpr::int(0)))],
            cond: Some(KExpr::bin(BinOp::Lt, testing::var("q"), testing::var("i"))),
            step: vec![KStmt::Assign {
                target: testing::lvar("q"),
                op: Some(BinOp::Add),
                value: KExpr::int(1),
            }],
            body: vec![update()],
        };
        let body = vec![lp];
        let c = Coarsen::new(
            (4, Some(testing::v("i"))),
            (1, None),
            &[&body],
            (&arrays(), &tvars()),
        )
        .unwrap();
        let out = c.jam(&body, None);
        sync(&c);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|s| matches!(s, KStmt::For { .. })));
    }

    #[test]
    fn shared_iterators_and_barriers_prevent_coarsening() {
        // for (k = 0; k < i; k++): `k` is declared outside and the loop differs per row.
        let body = vec![kloop(testing::var("i"), vec![update()])];
        assert_eq!(
            Coarsen::new(
                (2, Some(testing::v("i"))),
                (1, None),
                &[&body],
                (&arrays(), &tvars())
            )
            .err(),
            Some(CoarsenError::SharedIterator("k".into()))
        );
        let body = vec![update(), KStmt::Barrier];
        assert_eq!(
            Coarsen::new(
                (2, Some(testing::v("i"))),
                (1, None),
                &[&body],
                (&arrays(), &tvars())
            )
            .err()
            .map(|e| e.to_string())
            .as_deref(),
            Some("the computation holds a barrier or an atomic")
        );
    }

    #[test]
    fn stored_arrays_are_not_shared_between_rows() {
        // C[k] = C[k] + 1 inside a jammed loop: the load must stay per row.
        let st = KStmt::Assign {
            target: LValue::Elem(elem(
                "B",
                Space::Local,
                KExpr::bin(BinOp::Add, testing::var("i"), testing::var("k")),
            )),
            op: None,
            value: load("B", Space::Local, testing::var("k")),
        };
        let body = vec![kloop(testing::var("n"), vec![st])];
        let c = Coarsen::new(
            (2, Some(testing::v("i"))),
            (1, None),
            &[&body],
            (&arrays(), &tvars()),
        )
        .unwrap();
        let out = c.jam(&body, None);
        sync(&c);
        let KStmt::For { body: jammed, .. } = &out[0] else {
            panic!()
        };
        assert_eq!(jammed.len(), 2, "{:#?}", jammed);
    }
    /// `out[j] = in[j - 1] + in[j + 1]` with 4 consecutive x copies (short words): the copies'
    /// loads cover offsets −1..4, one vector of 4 lanes and one of 2; the stores one vector.
    #[test]
    fn short_words_group_loads_by_runs_and_stores_into_one_vector() {
        use crate::schedule::words::{WordArray as W, Words};
        let at = |d: i64| {
            let op = if d < 0 { BinOp::Sub } else { BinOp::Add };
            load(
                "in",
                Space::Global,
                KExpr::bin(op, testing::var("j"), KExpr::int(d.abs())),
            )
        };
        let st = KStmt::Assign {
            target: LValue::Elem(elem("out", Space::Global, testing::var("j"))),
            op: None,
            value: KExpr::bin(BinOp::Add, at(-1), at(1)),
        };
        let arrays = table(&[
            ("in", Space::Global, Scalar::UChar),
            ("out", Space::Global, Scalar::UChar),
        ]);
        let words = Words {
            width: 4,
            rows: 1,
            arrays: vec![
                W {
                    name: "in".into(),
                    elem: Scalar::UChar,
                    loads: true,
                    stores: false,
                    max_lanes: 8,
                    along_y: false,
                },
                W {
                    name: "out".into(),
                    elem: Scalar::UChar,
                    loads: false,
                    stores: true,
                    max_lanes: 4,
                    along_y: false,
                },
            ],
            rejected: Vec::new(),
        };
        let body = vec![st];
        let c = Coarsen::new(
            (1, None),
            (4, Some(testing::v("j"))),
            &[&body],
            (&arrays, &tvars()),
        )
        .unwrap()
        .with_words(&words);
        assert!(c.groups_words());
        let out = c.jam_words(&body);
        sync(&c);
        let lanes: Vec<(usize, &KExpr)> = out
            .iter()
            .filter_map(|s| match s {
                KStmt::VecLoad { lanes, src, .. } => Some((lanes.len(), src.index.as_ref())),
                _ => None,
            })
            .collect();
        assert_eq!(
            lanes,
            [
                (4, &KExpr::bin(BinOp::Sub, testing::var("j"), KExpr::int(1))),
                (
                    2,
                    &KExpr::bin(BinOp::Add, testing::var("accshare_ilp2_j"), KExpr::int(1))
                ),
            ],
            "{:#?}",
            out
        );
        let Some(KStmt::VecStore { dst, values, .. }) = out.last() else {
            panic!("{:#?}", out)
        };
        assert_eq!((arrays[dst.array].name.as_str(), values.len()), ("out", 4));
        // Copy 3 reads offsets 2 and 4: lane 3 of the first vector, lane 1 of the second.
        assert_eq!(
            values[3],
            KExpr::bin(
                BinOp::Add,
                testing::var("accshare_w0_3"),
                testing::var("accshare_w1_1")
            )
        );
    }

    /// `s += A[i + k] * B[j + k]`, gemm's update.
    fn outer_product_update() -> KStmt {
        KStmt::Assign {
            target: testing::lvar("s"),
            op: Some(BinOp::Add),
            value: KExpr::bin(
                BinOp::Mul,
                load(
                    "A",
                    Space::Local,
                    KExpr::bin(BinOp::Add, testing::var("i"), testing::var("k")),
                ),
                load(
                    "B",
                    Space::Local,
                    KExpr::bin(BinOp::Add, testing::var("j"), testing::var("k")),
                ),
            ),
        }
    }

    /// `s += A[i + k] * B[j + k]`: a 2×2 micro-tile loads `A` once per row, `B` once per column.
    #[test]
    fn a_micro_tile_loads_each_row_and_column_operand_once() {
        let body = vec![kloop(testing::var("n"), vec![outer_product_update()])];
        let c = Coarsen::new(
            (2, Some(testing::v("i"))),
            (2, Some(testing::v("j"))),
            &[&body],
            (&arrays(), &tvars()),
        )
        .unwrap();
        assert_eq!(c.f, 4);
        let out = c.jam(&body, None);
        sync(&c);
        let KStmt::For { body: jammed, .. } = &out[0] else {
            panic!("{:?}", out)
        };
        // Four registers (A per row, B per column), then four updates.
        assert_eq!(jammed.len(), 8, "{:#?}", jammed);
        let regs: Vec<&KExpr> = jammed[..4]
            .iter()
            .map(|s| match s {
                KStmt::Decl { init: Some(e), .. } => e,
                other => panic!("{:?}", other),
            })
            .collect();
        assert_eq!(
            regs,
            [
                &load(
                    "A",
                    Space::Local,
                    KExpr::bin(BinOp::Add, testing::var("i"), testing::var("k"))
                ),
                &load(
                    "A",
                    Space::Local,
                    KExpr::bin(
                        BinOp::Add,
                        testing::var("accshare_ilp1_i"),
                        testing::var("k")
                    )
                ),
                &load(
                    "B",
                    Space::Local,
                    KExpr::bin(BinOp::Add, testing::var("j"), testing::var("k"))
                ),
                &load(
                    "B",
                    Space::Local,
                    KExpr::bin(
                        BinOp::Add,
                        testing::var("accshare_ilp1_j"),
                        testing::var("k")
                    )
                ),
            ]
        );
        // Copy 3 is row 1, column 1: its own accumulator, A's second row, B's second column.
        assert_eq!(
            jammed[7],
            KStmt::Assign {
                target: testing::lvar("accshare_ilp3_s"),
                op: Some(BinOp::Add),
                value: KExpr::bin(
                    BinOp::Mul,
                    testing::var("accshare_reg1"),
                    testing::var("accshare_reg3")
                ),
            }
        );
    }

    /// The serial edge copy of a 2×2 tile: four guarded blocks, copy `f` whole (its loop, its
    /// own accumulator and operands) under guard `f`, in order.
    #[test]
    fn serial_edges_run_each_copy_whole_under_its_guard() {
        let body = vec![kloop(testing::var("n"), vec![outer_product_update()])];
        let c = Coarsen::new(
            (2, Some(testing::v("i"))),
            (2, Some(testing::v("j"))),
            &[&body],
            (&arrays(), &tvars()),
        )
        .unwrap();
        let guards: Vec<KExpr> = (0..4).map(|f| testing::var(format!("ok{}", f))).collect();
        let out = c.serial(&body, &guards);
        sync(&c);
        assert_eq!(out.len(), 4, "{:#?}", out);
        for (f, s) in out.iter().enumerate() {
            let KStmt::If { cond, then, els } = s else {
                panic!("{:#?}", s)
            };
            assert_eq!(cond, &guards[f]);
            assert!(els.is_empty());
            assert_eq!(then, &vec![KStmt::Block(vec![c.stmt(&body[0], f as u32)])]);
        }
        // Copy 3 is row 1, column 1, with its own accumulator and no shared registers.
        let KStmt::If { then, .. } = &out[3] else {
            panic!()
        };
        let KStmt::Block(b) = &then[0] else { panic!() };
        let KStmt::For { body: inner, .. } = &b[0] else {
            panic!("{:#?}", b)
        };
        assert_eq!(
            inner[0],
            KStmt::Assign {
                target: testing::lvar("accshare_ilp3_s"),
                op: Some(BinOp::Add),
                value: KExpr::bin(
                    BinOp::Mul,
                    load(
                        "A",
                        Space::Local,
                        KExpr::bin(
                            BinOp::Add,
                            testing::var("accshare_ilp1_i"),
                            testing::var("k")
                        )
                    ),
                    load(
                        "B",
                        Space::Local,
                        KExpr::bin(
                            BinOp::Add,
                            testing::var("accshare_ilp1_j"),
                            testing::var("k")
                        )
                    ),
                ),
            }
        );
    }
}
