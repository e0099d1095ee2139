//! Iteration-domain split (§3.2.1 "Seed Array Partition", "Iteration Domain Split").
//!
//! Each reference of a seed array, inverted through its access function, splits the iteration
//! domain into tiles: the subspace `IS_Akl`. Loops on the grid are always tiled by the block
//! (`TB_X`/`TB_Y`/`TB_Z`: one iteration per thread, as the baseline mapping places them); a
//! seed dimension written `*` tiles the sequential loop its subscript walks with the parameter
//! of that `*`; a seed dimension written as an expression tiles that sequential loop with the
//! extent the expression leaves after the other terms' spread (`in[TB_Y+4]` over `i + di`,
//! `di` in `-2..=2`, gives `i` a tile of `TB_Y`), or, over a loop on the grid, fixes the block
//! size when it is a constant (`A[16][*]` over `i` on y gives `TB_Y = 16`).
//!
//! Compatible subspaces are intersected into candidate partition plans `IS_m`: two subspaces
//! are compatible when they tile every common loop identically or one of them with `*`.
//! Intersecting two `*` on the same loop makes their parameters one (the paper's gemm keeps
//! `k1` and `k2` apart, but both tile the same loop `k` of `IS_AB`, so the partitions of `A`
//! and `B` only "conform" (are accessed in the same iterations) when `k1 = k2`; its own
//! solution sets both to 32).

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::ir::LoopId;
use crate::vocab::share::{PartExpr, PartExprKind, PartOp, TbDim};

use super::candidates::{show_part, Seed, SeedDim, SeedOrigin, Seeds};
use super::nest::Nest;

/// A tile extent as a function of the parameters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TExpr {
    Const(i64),
    Tb(TbDim),
    /// A `*` parameter (index into `Seeds::params`; resolved through the plan's classes).
    K(usize),
    Bin(PartOpT, Box<TExpr>, Box<TExpr>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PartOpT {
    Add,
    Sub,
    Mul,
    Div,
}

/// Values of the parameters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Assign {
    pub tb: [i64; 3],
    /// Value per parameter class representative.
    pub k: BTreeMap<usize, i64>,
}

impl Assign {
    pub fn tb(&self, d: TbDim) -> i64 {
        self.tb[tb_index(d)]
    }
}

pub fn tb_index(d: TbDim) -> usize {
    match d {
        TbDim::X => 0,
        TbDim::Y => 1,
        TbDim::Z => 2,
    }
}

impl TExpr {
    pub fn from_part(e: &PartExpr) -> TExpr {
        match &e.kind {
            PartExprKind::Int(v) => TExpr::Const(*v),
            PartExprKind::Tb(d) => TExpr::Tb(*d),
            PartExprKind::Bin(op, a, b) => TExpr::Bin(
                match op {
                    PartOp::Add => PartOpT::Add,
                    PartOp::Sub => PartOpT::Sub,
                    PartOp::Mul => PartOpT::Mul,
                    PartOp::Div => PartOpT::Div,
                },
                Box::new(TExpr::from_part(a)),
                Box::new(TExpr::from_part(b)),
            ),
        }
    }

    pub fn mentions_tb(&self) -> bool {
        match self {
            TExpr::Tb(_) => true,
            TExpr::Bin(_, a, b) => a.mentions_tb() || b.mentions_tb(),
            _ => false,
        }
    }

    /// Value under `a` (`rep` maps a parameter to its class). `None` on overflow, division by
    /// zero or an unassigned parameter.
    pub fn eval(&self, a: &Assign, rep: &dyn Fn(usize) -> usize) -> Option<i64> {
        match self {
            TExpr::Const(v) => Some(*v),
            TExpr::Tb(d) => Some(a.tb(*d)),
            TExpr::K(p) => a.k.get(&rep(*p)).copied(),
            TExpr::Bin(op, x, y) => {
                let (x, y) = (x.eval(a, rep)?, y.eval(a, rep)?);
                match op {
                    PartOpT::Add => x.checked_add(y),
                    PartOpT::Sub => x.checked_sub(y),
                    PartOpT::Mul => x.checked_mul(y),
                    PartOpT::Div => x.checked_div(y),
                }
            }
        }
    }

    pub fn show(&self, name: &dyn Fn(usize) -> String) -> String {
        match self {
            TExpr::Const(v) => v.to_string(),
            TExpr::Tb(d) => d.name().to_string(),
            TExpr::K(p) => name(*p),
            TExpr::Bin(op, a, b) => {
                let o = match op {
                    PartOpT::Add => "+",
                    PartOpT::Sub => "-",
                    PartOpT::Mul => "*",
                    PartOpT::Div => "/",
                };
                let w = |x: &TExpr| match x {
                    TExpr::Bin(..) => format!("({})", x.show(name)),
                    _ => x.show(name),
                };
                format!("{} {} {}", w(a), o, w(b))
            }
        }
    }
}

/// How a subspace tiles one sequential loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Tile {
    Star(usize),
    Expr(TExpr),
}

/// One iteration subspace `IS_Akl` (or an intersection of them: a plan `IS_m`).
#[derive(Clone, Debug, PartialEq)]
pub struct Subspace {
    /// The seed references it comes from (`A[i][k]`).
    pub from: Vec<String>,
    /// Tiles of sequential loops.
    pub tiles: BTreeMap<LoopId, Tile>,
    /// Block sizes the seed fixes.
    pub fixed_tb: BTreeMap<TbDim, i64>,
    /// Parameter classes: `class[p]` is the representative of parameter `p`.
    pub class: Vec<usize>,
    /// Classes bound to an expression by an intersection.
    pub bound: BTreeMap<usize, TExpr>,
    /// Remarks on the seed (mismatches, `*` over a loop on the grid, …).
    pub notes: Vec<String>,
    /// The same remarks with the span of the seed they are about (for diagnostics).
    pub warnings: Vec<(Span, String)>,
}

impl Subspace {
    pub fn rep(&self, p: usize) -> usize {
        let mut p = p;
        let mut guard = 0;
        while let Some(&q) = self.class.get(p) {
            if q == p || guard > self.class.len() {
                break;
            }
            p = q;
            guard += 1;
        }
        p
    }

    /// The tile of a sequential loop in a chunk (`None`: the whole loop).
    pub fn tile(&self, l: LoopId) -> Option<TExpr> {
        match self.tiles.get(&l)? {
            Tile::Star(p) => {
                let r = self.rep(*p);
                Some(self.bound.get(&r).cloned().unwrap_or(TExpr::K(r)))
            }
            Tile::Expr(e) => Some(e.clone()),
        }
    }

    /// Free parameter classes (the `*` that remain parameters), sorted.
    pub fn free_params(&self) -> Vec<usize> {
        let mut v: Vec<usize> = Vec::new();
        for t in self.tiles.values() {
            if let Tile::Star(p) = t {
                let r = self.rep(*p);
                if !self.bound.contains_key(&r) && !v.contains(&r) {
                    v.push(r);
                }
            }
        }
        v.sort();
        v
    }

    /// The paper's notation: `i : [0 : 256 : TB_Y], k : [0 : 256 : k2]`.
    pub fn show(&self, nest: &Nest, seeds: &Seeds) -> String {
        let name = |p: usize| {
            seeds
                .params
                .get(p)
                .map(|x| x.name.clone())
                .unwrap_or_else(|| format!("k{}", p + 1))
        };
        let mut parts = Vec::new();
        for &l in &nest.loops {
            let size = if let Some(d) = nest.tb_of(l) {
                match self.fixed_tb.get(&d) {
                    Some(v) => format!("{} = {}", d.name(), v),
                    None => d.name().to_string(),
                }
            } else {
                match self.tiles.get(&l) {
                    Some(Tile::Star(p)) => {
                        let r = self.rep(*p);
                        match self.bound.get(&r) {
                            Some(e) => e.show(&name),
                            None => name(r),
                        }
                    }
                    Some(Tile::Expr(e)) => e.show(&name),
                    None => continue,
                }
            };
            parts.push(format!(
                "{} : [0 : {} : {}]",
                nest.name(l),
                nest.trip_of(l),
                size
            ));
        }
        if parts.is_empty() {
            "(whole domain)".into()
        } else {
            parts.join(", ")
        }
    }
}

/// The iteration subspaces of every seed reference (ISSet), in order.
pub fn split(nest: &Nest, seeds: &Seeds) -> Vec<Subspace> {
    let nparams = seeds.params.len();
    let mut out = Vec::new();
    for seed in &seeds.seeds {
        let refs: Vec<&super::nest::RefClass> =
            nest.refs.iter().filter(|r| r.array == seed.array).collect();
        for r in &refs {
            let mut is = Subspace {
                from: vec![r.text.clone()],
                tiles: BTreeMap::new(),
                fixed_tb: BTreeMap::new(),
                class: (0..nparams).collect(),
                bound: BTreeMap::new(),
                notes: Vec::new(),
                warnings: Vec::new(),
            };
            // An array of structs is named by the struct's index (`share(x[*])`); its field,
            // the IR's last dimension, is a constant of every reference and tiles no loop.
            let record = nest.records.contains(&r.array) && seed.dims.len() + 1 == r.dims.len();
            if seed.dims.len() != r.dims.len() && !record {
                is.notes.push(format!(
                    "the partition of `{}` has {} dimension(s) but `{}` has {}: its shape is taken from the references",
                    seed.array,
                    seed.dims.len(),
                    r.text,
                    r.dims.len()
                ));
                is.warnings = warnings(seed, &is.notes);
                out.push(is);
                continue;
            }
            for (d, (sd, lin)) in seed.dims.iter().zip(&r.dims).enumerate() {
                let seq: Vec<LoopId> = lin
                    .coef
                    .keys()
                    .copied()
                    .filter(|l| !nest.is_mapped(*l) && nest.trip_of(*l) > 1)
                    .collect();
                let grid: Vec<LoopId> = lin
                    .coef
                    .keys()
                    .copied()
                    .filter(|l| nest.is_mapped(*l))
                    .collect();
                // The sequential loop a partition dimension tiles: the longest one (innermost on
                // ties).
                let main_seq = seq
                    .iter()
                    .copied()
                    .max_by_key(|l| (nest.trip_of(*l), nest.loops.iter().position(|x| x == l)));
                // Spread of the other terms of this dimension over all references of the array.
                let spread_without = |skip: LoopId| -> i64 {
                    let mut s = 0i64;
                    for (l, c) in &lin.coef {
                        if *l != skip && !nest.is_mapped(*l) {
                            s = s.saturating_add(c.abs().saturating_mul(nest.trip_of(*l) - 1));
                        }
                    }
                    let bases: Vec<i64> = refs
                        .iter()
                        .filter(|o| o.dims.get(d).is_some_and(|x| x.coef == lin.coef))
                        .filter_map(|o| o.dims.get(d).map(|x| x.base))
                        .collect();
                    let (mn, mx) = (
                        bases.iter().min().copied().unwrap_or(0),
                        bases.iter().max().copied().unwrap_or(0),
                    );
                    s.saturating_add(mx.saturating_sub(mn))
                };
                match sd {
                    SeedDim::Derived => {}
                    SeedDim::Star(p) => match main_seq {
                        Some(l) if grid.is_empty() => {
                            is.tiles.insert(l, Tile::Star(*p));
                        }
                        _ => is.notes.push(format!(
                            "`*` in dimension {} of `{}`: `{}` walks no sequential loop there alone, so the extent follows the thread block",
                            d + 1,
                            seed.array,
                            r.text
                        )),
                    },
                    SeedDim::Expr(e) => {
                        let te = TExpr::from_part(e);
                        if let (Some(l), true) = (main_seq, grid.is_empty()) {
                            // extent = |c|·(T − 1) + 1 + spread  ⇒  T = (P − 1 − spread)/|c| + 1
                            let c = lin.coef.get(&l).copied().unwrap_or(1).abs().max(1);
                            let rest = spread_without(l);
                            let mut t = TExpr::Bin(
                                PartOpT::Sub,
                                Box::new(te.clone()),
                                Box::new(TExpr::Const(1 + rest)),
                            );
                            if c != 1 {
                                t = TExpr::Bin(PartOpT::Div, Box::new(t), Box::new(TExpr::Const(c)));
                            }
                            t = simplify(TExpr::Bin(PartOpT::Add, Box::new(t), Box::new(TExpr::Const(1))));
                            is.tiles.insert(l, Tile::Expr(t));
                        } else if let [g] = grid.as_slice() {
                            let dim = nest.tb_of(*g).unwrap_or(TbDim::X);
                            let c = lin.coef.get(g).copied().unwrap_or(1).abs().max(1);
                            let rest = spread_without(*g);
                            if !te.mentions_tb() {
                                let p = te.eval(&Assign { tb: [1, 1, 1], k: BTreeMap::new() }, &|x| x);
                                match p.map(|p| (p - 1 - rest, p)) {
                                    Some((num, _)) if num >= 0 && num % c == 0 => {
                                        is.fixed_tb.insert(dim, num / c + 1);
                                    }
                                    _ => is.notes.push(format!(
                                        "dimension {} of `{}` is `{}`, which no block size along {} yields for `{}`: the partition is the hull of the references",
                                        d + 1, seed.array, show_part(e), dim.name(), r.text
                                    )),
                                }
                            } else {
                                // Compare with the hull along this dimension at two sample blocks.
                                let hull = |tb: i64| c * (tb - 1) + 1 + rest;
                                let same = [8i64, 32].iter().all(|&v| {
                                    let a = Assign { tb: [v, v * 2, v / 4 + 1], k: BTreeMap::new() };
                                    let tbv = a.tb(dim);
                                    te.eval(&a, &|x| x) == Some(hull(tbv))
                                });
                                if !same {
                                    let expect = if rest + 1 - c == 0 && c == 1 {
                                        dim.name().to_string()
                                    } else if c == 1 {
                                        format!("{} + {}", dim.name(), rest)
                                    } else {
                                        format!("{}*({} - 1) + {}", c, dim.name(), 1 + rest)
                                    };
                                    is.notes.push(format!(
                                        "dimension {} of `{}` is `{}` but a thread block's references span `{}`: the candidate partition is that hull",
                                        d + 1, seed.array, show_part(e), expect
                                    ));
                                }
                            }
                        }
                    }
                }
            }
            is.warnings = warnings(seed, &is.notes);
            out.push(is);
        }
    }
    out
}

/// The remarks on a seed as warnings at its span; none for an induced seed (the user wrote
/// nothing to warn about: `explain` shows the remarks).
fn warnings(seed: &Seed, notes: &[String]) -> Vec<(Span, String)> {
    if seed.origin == SeedOrigin::Induced {
        return Vec::new();
    }
    notes.iter().map(|n| (seed.span, n.clone())).collect()
}

fn simplify(e: TExpr) -> TExpr {
    // (x - c) + 1  →  x - (c - 1), and x - 0 → x, x + 0 → x.
    match e {
        TExpr::Bin(PartOpT::Add, a, b) => {
            let a = simplify(*a);
            let b = simplify(*b);
            match (&a, &b) {
                (TExpr::Bin(PartOpT::Sub, x, y), TExpr::Const(one)) => {
                    if let TExpr::Const(c) = **y {
                        let k = c - one;
                        if k == 0 {
                            return (**x).clone();
                        }
                        if k < 0 {
                            return TExpr::Bin(PartOpT::Add, x.clone(), Box::new(TExpr::Const(-k)));
                        }
                        return TExpr::Bin(PartOpT::Sub, x.clone(), Box::new(TExpr::Const(k)));
                    }
                    TExpr::Bin(PartOpT::Add, Box::new(a), Box::new(b))
                }
                (_, TExpr::Const(0)) => a,
                _ => TExpr::Bin(PartOpT::Add, Box::new(a), Box::new(b)),
            }
        }
        other => other,
    }
}

/// Intersects compatible subspaces into candidate partition plans (`IS_m`), greedily in
/// order: each subspace joins the first plan it is compatible with, else starts a new one.
/// Without seeds there is one plan: the blocks alone.
pub fn plans(nest: &Nest, seeds: &Seeds, set: &[Subspace]) -> Vec<Subspace> {
    let mut out: Vec<Subspace> = Vec::new();
    for is in set {
        let mut merged = false;
        for p in out.iter_mut() {
            if let Some(m) = intersect(p, is) {
                *p = m;
                merged = true;
                break;
            }
        }
        if !merged {
            out.push(is.clone());
        }
    }
    if out.is_empty() {
        out.push(Subspace {
            from: Vec::new(),
            tiles: BTreeMap::new(),
            fixed_tb: BTreeMap::new(),
            class: (0..seeds.params.len()).collect(),
            bound: BTreeMap::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
        });
    }
    let _ = nest;
    out
}

/// The intersection of two subspaces, or `None` when they are not compatible.
pub fn intersect(a: &Subspace, b: &Subspace) -> Option<Subspace> {
    let mut m = a.clone();
    // Bring b's parameter classes in.
    for p in 0..b.class.len() {
        let rb = b.rep(p);
        if rb != p {
            union(&mut m, p, rb);
        }
    }
    for (r, e) in &b.bound {
        let rm = m.rep(*r);
        match m.bound.get(&rm) {
            Some(x) if x != e => return None,
            _ => {
                m.bound.insert(rm, e.clone());
            }
        }
    }
    for (d, v) in &b.fixed_tb {
        match m.fixed_tb.get(d) {
            Some(x) if x != v => return None,
            _ => {
                m.fixed_tb.insert(*d, *v);
            }
        }
    }
    for (l, tb) in &b.tiles {
        match (m.tiles.get(l).cloned(), tb) {
            (None, t) => {
                m.tiles.insert(*l, t.clone());
            }
            (Some(Tile::Star(x)), Tile::Star(y)) => union(&mut m, x, *y),
            (Some(Tile::Star(x)), Tile::Expr(e)) => {
                let r = m.rep(x);
                match m.bound.get(&r) {
                    Some(f) if f != e => return None,
                    _ => {
                        m.bound.insert(r, e.clone());
                    }
                }
                m.tiles.insert(*l, Tile::Expr(e.clone()));
            }
            (Some(Tile::Expr(e)), Tile::Star(y)) => {
                let r = m.rep(*y);
                match m.bound.get(&r) {
                    Some(f) if *f != e => return None,
                    _ => {
                        m.bound.insert(r, e.clone());
                    }
                }
            }
            (Some(Tile::Expr(e)), Tile::Expr(f)) => {
                if e != *f {
                    return None;
                }
            }
        }
    }
    // A bound class may now be bound twice through a union: check.
    let reps: Vec<(usize, TExpr)> = m
        .bound
        .iter()
        .map(|(r, e)| (m.rep(*r), e.clone()))
        .collect();
    let mut nb: BTreeMap<usize, TExpr> = BTreeMap::new();
    for (r, e) in reps {
        match nb.get(&r) {
            Some(x) if *x != e => return None,
            _ => {
                nb.insert(r, e);
            }
        }
    }
    m.bound = nb;
    for f in &b.from {
        if !m.from.contains(f) {
            m.from.push(f.clone());
        }
    }
    for n in &b.notes {
        if !m.notes.contains(n) {
            m.notes.push(n.clone());
        }
    }
    for w in &b.warnings {
        if !m.warnings.contains(w) {
            m.warnings.push(w.clone());
        }
    }
    Some(m)
}

fn union(m: &mut Subspace, x: usize, y: usize) {
    let (rx, ry) = (m.rep(x), m.rep(y));
    if rx == ry {
        return;
    }
    let (lo, hi) = if rx < ry { (rx, ry) } else { (ry, rx) };
    if let Some(c) = m.class.get_mut(hi) {
        *c = lo;
    }
    if let Some(e) = m.bound.remove(&hi) {
        m.bound.entry(lo).or_insert(e);
    }
}
