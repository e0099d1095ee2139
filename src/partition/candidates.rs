//! Seeds and candidate selection (§3.2.1 "Candidate Selection").
//!
//! Seeds are the arrays of the region's `share` pragma and of its OpenACC `cache` directives.
//! The candidate set is the transitive closure of the seeds' references in an undirected graph
//! whose vertices are the references of the kernel and whose edges are dependences. The paper
//! does not say which dependences; its example adds `C` to gemm's set "as it depends on both A
//! and B", although no array dependence links them: the value of `C[i][j]` flows from `A` and
//! `B` through the scalar `sum`. So the edges used here are the dependences that carry values:
//! - within a statement: every reference it reads flows into its target (so the references of
//!   one statement are connected);
//! - between statements through a scalar: one writes `v`, the other reads it (`sum` in gemm);
//! - between statements through an array: one writes the array, the other accesses it.
//!
//! Read-read pairs (input "dependences") are not edges: they carry no value. Without any seed,
//! every array of the region is a candidate, as the paper says. A region without hints gets
//! seeds induced per kernel ([`super::induce`]); only a kernel none of whose arrays has one is
//! left without seeds.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::diag::Span;
use crate::ir::{Region, StmtId, Target};
use crate::vocab::share::{PartDim, PartExpr, PartExprKind, PartOp};

use super::nest::Nest;

#[derive(Clone, Debug, PartialEq)]
pub enum SeedOrigin {
    Share,
    Cache,
    /// Induced from the references of a region without hints ([`super::induce`]).
    Induced,
}

/// One dimension of a seed partition.
#[derive(Clone, Debug, PartialEq)]
pub enum SeedDim {
    /// `*`: the parameter `k{n}` (index into [`Seeds::params`]).
    Star(usize),
    Expr(PartExpr),
    /// From `cache(...)`: the extent is the hull of the thread block's references.
    Derived,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Seed {
    pub array: String,
    pub dims: Vec<SeedDim>,
    pub coalesce: bool,
    pub origin: SeedOrigin,
    pub span: Span,
}

/// A `*` parameter of the pragma: `k1, k2, …` in pragma order.
#[derive(Clone, Debug, PartialEq)]
pub struct StarParam {
    pub name: String,
    pub array: String,
    pub dim: usize,
}

/// The seeds of a region and their parameters (kept per region: each region solves its own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seeds {
    pub seeds: Vec<Seed>,
    pub params: Vec<StarParam>,
}

impl Seeds {
    pub fn of_region(region: &Region) -> Seeds {
        let mut out = Seeds::default();
        if let Some(sp) = &region.share {
            for spec in &sp.specs {
                let mut dims = Vec::new();
                for (d, pd) in spec.dims.iter().enumerate() {
                    match pd {
                        PartDim::Star(_) => {
                            let n = out.params.len() + 1;
                            out.params.push(StarParam {
                                name: format!("k{}", n),
                                array: spec.array.clone(),
                                dim: d,
                            });
                            dims.push(SeedDim::Star(n - 1));
                        }
                        PartDim::Expr(e) => dims.push(SeedDim::Expr(e.clone())),
                    }
                }
                out.seeds.push(Seed {
                    array: spec.array.clone(),
                    dims,
                    coalesce: spec.coalesce,
                    origin: SeedOrigin::Share,
                    span: spec.span,
                });
            }
        }
        for c in &region.cache {
            if out.seeds.iter().any(|s| s.array == c.array) {
                continue;
            }
            out.seeds.push(Seed {
                array: c.array.clone(),
                dims: (0..c.rank).map(|_| SeedDim::Derived).collect(),
                coalesce: false,
                origin: SeedOrigin::Cache,
                span: c.span,
            });
        }
        out
    }

    pub fn get(&self, array: &str) -> Option<&Seed> {
        self.seeds.iter().find(|s| s.array == array)
    }

    /// `B[*][TB_X]`-style text of a seed, with parameter names for `*`.
    pub fn show(&self, s: &Seed) -> String {
        let mut out = s.array.clone();
        for d in &s.dims {
            out.push('[');
            match d {
                SeedDim::Star(p) => {
                    out.push_str(self.params.get(*p).map(|p| p.name.as_str()).unwrap_or("*"))
                }
                SeedDim::Expr(e) => out.push_str(&show_part(e)),
                SeedDim::Derived => out.push_str("hull"),
            }
            out.push(']');
        }
        if s.coalesce {
            out.push_str(":coalesce");
        }
        out
    }
}

/// Text of a partition expression (`TB_Y + 4`).
pub fn show_part(e: &PartExpr) -> String {
    match &e.kind {
        PartExprKind::Int(v) => v.to_string(),
        PartExprKind::Tb(d) => d.name().to_string(),
        PartExprKind::Bin(op, a, b) => {
            let o = match op {
                PartOp::Add => "+",
                PartOp::Sub => "-",
                PartOp::Mul => "*",
                PartOp::Div => "/",
            };
            let wrap = |x: &PartExpr| match x.kind {
                PartExprKind::Bin(..) => format!("({})", show_part(x)),
                _ => show_part(x),
            };
            format!("{} {} {}", wrap(a), o, wrap(b))
        }
    }
}

/// An array of the candidate set and why it is there.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub array: String,
    pub seed: bool,
    pub reason: String,
}

/// Why a statement was reached from the seeds.
#[derive(Clone, Debug)]
enum Reach {
    Seed(String),
    From(StmtId, String),
}

/// The candidate set of one kernel, in order of the arrays' names.
pub fn select(region: &Region, nest: &Nest, seeds: &Seeds) -> Vec<Candidate> {
    let arrays: BTreeSet<String> = nest
        .refs
        .iter()
        .map(|r| r.array.clone())
        .chain(nest.nonaffine.iter().cloned())
        .collect();
    if seeds.seeds.is_empty() {
        return arrays
            .into_iter()
            .map(|a| Candidate {
                array: a,
                seed: false,
                reason: "no share pragma: every array of the region is a candidate".into(),
            })
            .collect();
    }
    // Statements of the nest and the arrays each one references.
    let stmts: Vec<StmtId> = region
        .stmts
        .iter()
        .filter(|s| s.loops.first() == Some(&nest.root))
        .map(|s| s.id)
        .collect();
    let mut arrays_of: BTreeMap<StmtId, BTreeSet<String>> = BTreeMap::new();
    let mut writes_of: BTreeMap<StmtId, BTreeSet<String>> = BTreeMap::new();
    for a in &region.accesses {
        if stmts.contains(&a.stmt) {
            arrays_of.entry(a.stmt).or_default().insert(a.array.clone());
            if a.writes() {
                writes_of.entry(a.stmt).or_default().insert(a.array.clone());
            }
        }
    }
    // Scalars written / read by each statement.
    let mut sw: BTreeMap<StmtId, BTreeSet<String>> = BTreeMap::new();
    let mut sr: BTreeMap<StmtId, BTreeSet<String>> = BTreeMap::new();
    for s in &region.stmts {
        if let Target::Scalar(v) = &s.target {
            sw.entry(s.id).or_default().insert(v.clone());
        }
    }
    for r in &region.scalar_refs {
        if let Some(s) = r.stmt {
            match r.kind {
                crate::ir::AccessKind::Read => {
                    sr.entry(s).or_default().insert(r.name.clone());
                }
                crate::ir::AccessKind::Write => {
                    sw.entry(s).or_default().insert(r.name.clone());
                }
                crate::ir::AccessKind::ReadWrite => {
                    sr.entry(s).or_default().insert(r.name.clone());
                    sw.entry(s).or_default().insert(r.name.clone());
                }
            }
        }
    }
    let empty = BTreeSet::new();
    let edge = |a: StmtId, b: StmtId| -> Option<String> {
        let (wa, wb) = (sw.get(&a).unwrap_or(&empty), sw.get(&b).unwrap_or(&empty));
        let (ra, rb) = (sr.get(&a).unwrap_or(&empty), sr.get(&b).unwrap_or(&empty));
        if let Some(v) = wa.intersection(rb).chain(wb.intersection(ra)).next() {
            return Some(format!("scalar `{}`", v));
        }
        let (xa, xb) = (
            arrays_of.get(&a).unwrap_or(&empty),
            arrays_of.get(&b).unwrap_or(&empty),
        );
        let (ya, yb) = (
            writes_of.get(&a).unwrap_or(&empty),
            writes_of.get(&b).unwrap_or(&empty),
        );
        if let Some(v) = ya.intersection(xb).chain(yb.intersection(xa)).next() {
            return Some(format!("array `{}`", v));
        }
        None
    };
    let mut reach: BTreeMap<StmtId, Reach> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for &s in &stmts {
        if let Some(seed) = arrays_of
            .get(&s)
            .and_then(|xs| xs.iter().find(|x| seeds.get(x).is_some()))
        {
            reach.insert(s, Reach::Seed(seed.clone()));
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        for &t in &stmts {
            if reach.contains_key(&t) {
                continue;
            }
            if let Some(via) = edge(s, t) {
                reach.insert(t, Reach::From(s, via));
                queue.push_back(t);
            }
        }
    }
    let path = |mut s: StmtId| -> String {
        let mut parts = vec![format!("S{}", s)];
        let mut guard = 0;
        while let Some(Reach::From(p, via)) = reach.get(&s) {
            parts.push(format!("{} from S{}", via, p));
            s = *p;
            guard += 1;
            if guard > stmts.len() {
                break;
            }
        }
        if let Some(Reach::Seed(a)) = reach.get(&s) {
            parts.push(format!("which references seed `{}`", a));
        }
        parts.join(", ")
    };
    let mut out = Vec::new();
    for a in arrays {
        if let Some(seed) = seeds.get(&a) {
            out.push(Candidate {
                array: a.clone(),
                seed: true,
                reason: match seed.origin {
                    SeedOrigin::Share => "seed (share pragma)".into(),
                    SeedOrigin::Cache => "seed (cache directive)".into(),
                    SeedOrigin::Induced => "seed (induced: no share pragma)".into(),
                },
            });
            continue;
        }
        let first = stmts
            .iter()
            .find(|s| reach.contains_key(s) && arrays_of.get(s).is_some_and(|x| x.contains(&a)));
        if let Some(&s) = first {
            out.push(Candidate {
                array: a.clone(),
                seed: false,
                reason: format!("referenced in {}", path(s)),
            });
        }
    }
    out
}
