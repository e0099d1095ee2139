//! The kernel view the engine works on: one loop nest (a region root), its mapping to the grid
//! (the paper's schedule φ and placement Q), representative trip counts, and every array
//! reference as a numeric affine function of normalized iteration counters.
//!
//! Problem sizes that are symbols (`n`, `rows`) take a representative value (`Options::sizes`,
//! else `Options::default_size`); sizes written as macros are already constants here, because
//! the preprocessor expanded them (so `-D N=…` changes them).

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::DepInfo;
use crate::front::pragma_ast::TbDim;
use crate::ir::{AccessId, LoopId, Poly, Region, StmtId};

/// Options of the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Value of a symbolic problem size that `sizes` does not give.
    pub default_size: i64,
    /// Values of symbolic sizes, by name.
    pub sizes: BTreeMap<String, i64>,
    /// How many next-best configurations to keep.
    pub alternatives: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            default_size: 4096,
            sizes: BTreeMap::new(),
            alternatives: 3,
        }
    }
}

/// An affine subscript in normalized counters: `base + Σ coef[l]·t_l`, where iteration `t_l` of
/// loop `l` runs `0..trip[l]` (the iterator is `start_l + step_l·t_l`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lin {
    pub coef: BTreeMap<LoopId, i64>,
    pub base: i64,
}

/// References of one array with the same access function in the same loops (counted once:
/// `C[i][j]` read and written by one statement is one reference class).
#[derive(Clone, Debug, PartialEq)]
pub struct RefClass {
    pub array: String,
    pub accesses: Vec<AccessId>,
    pub stmts: Vec<StmtId>,
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    pub dims: Vec<Lin>,
    pub writes: bool,
    /// As written (`A[i][k]`).
    pub text: String,
}

/// One kernel's nest.
#[derive(Clone, Debug)]
pub struct Nest {
    pub root: LoopId,
    /// Every loop of the nest, outer before inner.
    pub loops: Vec<LoopId>,
    /// Loops on the grid, outermost first, with their block dimension (innermost on x).
    pub mapped: Vec<(LoopId, TbDim)>,
    pub trip: BTreeMap<LoopId, i64>,
    /// Loops whose bounds depend on outer iterators (counts use the bounding box).
    pub triangular: Vec<LoopId>,
    pub refs: Vec<RefClass>,
    /// Arrays with a non-affine subscript somewhere in the nest.
    pub nonaffine: BTreeSet<String>,
    /// Symbols that were given a representative value.
    pub sizes_used: BTreeMap<String, i64>,
    /// Row-major element strides per array (numeric, representative).
    pub strides: BTreeMap<String, Vec<i64>>,
    /// Extents per array dimension when known.
    pub extents: BTreeMap<String, Vec<Option<i64>>>,
    pub elem_bytes: BTreeMap<String, i64>,
    pub var: BTreeMap<LoopId, String>,
    /// Arrays of structs: their last dimension is the field (`ArrayInfo::record`), which a
    /// warp's reference does not walk (the warp reads one field of consecutive structs).
    pub records: BTreeSet<String>,
}

impl Nest {
    pub fn tb_of(&self, l: LoopId) -> Option<TbDim> {
        self.mapped.iter().find(|(m, _)| *m == l).map(|(_, d)| *d)
    }
    pub fn loop_of(&self, d: TbDim) -> Option<LoopId> {
        self.mapped.iter().find(|(_, t)| *t == d).map(|(l, _)| *l)
    }
    pub fn is_mapped(&self, l: LoopId) -> bool {
        self.tb_of(l).is_some()
    }
    /// A reference's dimensions without the field of an array of structs (the struct's index,
    /// which is what consecutive work-items walk).
    pub fn struct_dims<'r>(&self, r: &'r RefClass) -> &'r [Lin] {
        match r.dims.split_last() {
            Some((_, rest)) if self.records.contains(&r.array) && !rest.is_empty() => rest,
            _ => &r.dims[..],
        }
    }
    pub fn trip_of(&self, l: LoopId) -> i64 {
        self.trip.get(&l).copied().unwrap_or(1)
    }
    pub fn name(&self, l: LoopId) -> &str {
        self.var.get(&l).map(|s| s.as_str()).unwrap_or("?")
    }
    /// Sequential loops (the schedule φ).
    pub fn sequential(&self) -> Vec<LoopId> {
        self.loops
            .iter()
            .copied()
            .filter(|l| !self.is_mapped(*l))
            .collect()
    }
}

/// Representative values of symbols.
pub struct Env<'a> {
    pub opts: &'a Options,
    pub used: BTreeMap<String, i64>,
}

impl Env<'_> {
    fn value(&mut self, sym: &str) -> i64 {
        let v = self
            .opts
            .sizes
            .get(sym)
            .copied()
            .unwrap_or(self.opts.default_size);
        self.used.insert(sym.to_string(), v);
        v
    }

    /// A polynomial as a numeric affine form over `iters`: (coefficients, constant). `None` if
    /// a monomial holds two iterators or the arithmetic overflows.
    pub fn linear(&mut self, p: &Poly, iters: &[String]) -> Option<(BTreeMap<String, i64>, i64)> {
        let mut coef: BTreeMap<String, i64> = BTreeMap::new();
        let mut c0: i64 = 0;
        for (m, c) in p.terms() {
            let mut it: Option<&String> = None;
            let mut k: i64 = c;
            for s in m {
                if iters.contains(s) {
                    if it.is_some() {
                        return None;
                    }
                    it = Some(s);
                } else {
                    k = k.checked_mul(self.value(s))?;
                }
            }
            match it {
                Some(v) => {
                    let e = coef.entry(v.clone()).or_insert(0);
                    *e = e.checked_add(k)?;
                }
                None => c0 = c0.checked_add(k)?,
            }
        }
        coef.retain(|_, v| *v != 0);
        Some((coef, c0))
    }

    pub fn eval(&mut self, p: &Poly) -> Option<i64> {
        let (c, v) = self.linear(p, &[])?;
        if c.is_empty() {
            Some(v)
        } else {
            None
        }
    }
}

/// The loops mapped to the grid, as the baseline kernel lowering (`kernel::lower`) chooses
/// them: the maximal chain of parallel loops from the root, perfectly nested, at most three,
/// whose bounds are affine with constant coefficients on the loops already chosen; the
/// innermost goes on x. (The decision is `analysis::mapping::grid_mapping`, shared with kernel lowering.)
pub fn grid_mapping(region: &Region, deps: &DepInfo, root: LoopId) -> Vec<(LoopId, TbDim)> {
    crate::analysis::mapping::grid_mapping(region, deps, root)
        .into_iter()
        .map(|(l, d)| {
            let dim = match d {
                0 => TbDim::X,
                1 => TbDim::Y,
                _ => TbDim::Z,
            };
            (l, dim)
        })
        .collect()
}

/// Why the engine cannot size a nest (its loop is named by its iterator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NestError {
    /// A bound is not affine in the outer iterators.
    NonAffineBounds(String),
    ZeroStep(String),
    /// The trip count does not fit 64 bits.
    RangeTooLarge(String),
}

impl std::fmt::Display for NestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NestError::NonAffineBounds(v) => write!(f, "the bounds of loop `{v}` are not affine"),
            NestError::ZeroStep(v) => write!(f, "loop `{v}` has step 0"),
            NestError::RangeTooLarge(v) => write!(f, "the range of loop `{v}` is too large"),
        }
    }
}

/// Builds the nest of `root`, or says why the engine cannot size it (a non-affine loop bound).
pub fn build(
    region: &Region,
    deps: &DepInfo,
    root: LoopId,
    opts: &Options,
) -> Result<Nest, NestError> {
    let mut env = Env {
        opts,
        used: BTreeMap::new(),
    };
    // Loops of the nest, outer before inner (IR arena order is outer before inner).
    let mut loops = Vec::new();
    let mut stack = vec![root];
    while let Some(l) = stack.pop() {
        loops.push(l);
        if let Some(lp) = region.loops.get(l.index()) {
            for &c in lp.children.iter().rev() {
                stack.push(c);
            }
        }
    }
    let mapped = grid_mapping(region, deps, root);
    let mut range: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut trip = BTreeMap::new();
    let mut start = BTreeMap::new();
    let mut triangular = Vec::new();
    let mut var = BTreeMap::new();
    let all_iters: Vec<String> = loops.iter().map(|&l| region.loops[l].var.clone()).collect();
    for &l in &loops {
        let lp = &region.loops[l];
        var.insert(l, lp.var.clone());
        let (Some(lo), Some(hi)) = (lp.lower.affine(), lp.upper.affine()) else {
            return Err(NestError::NonAffineBounds(lp.var.clone()));
        };
        let extreme = |env: &mut Env, p: &Poly, max: bool, tri: &mut bool| -> Option<i64> {
            let (coef, c0) = env.linear(p, &all_iters)?;
            let mut v = c0 as i128;
            for (it, c) in coef {
                let &(mn, mx) = range.get(&it)?;
                *tri = true;
                let pick = if (c > 0) == max { mx } else { mn };
                v += c as i128 * pick as i128;
            }
            i64::try_from(v).ok()
        };
        let mut tri = false;
        let step = lp.step;
        let (first, last) = if step > 0 {
            let a = extreme(&mut env, lo, false, &mut tri);
            let b = extreme(&mut env, hi, true, &mut tri).and_then(|b| b.checked_sub(1));
            (a, b)
        } else {
            let a = extreme(&mut env, lo, true, &mut tri);
            let b = extreme(&mut env, hi, false, &mut tri).and_then(|b| b.checked_add(1));
            (a, b)
        };
        let (Some(first), Some(last)) = (first, last) else {
            return Err(NestError::NonAffineBounds(lp.var.clone()));
        };
        if step == 0 {
            return Err(NestError::ZeroStep(lp.var.clone()));
        }
        let span = if step > 0 {
            last.checked_sub(first)
        } else {
            first.checked_sub(last)
        };
        let (Some(span), Some(abs)) = (span, step.checked_abs()) else {
            return Err(NestError::RangeTooLarge(lp.var.clone()));
        };
        let n = if span < 0 { 0 } else { span / abs + 1 };
        if tri {
            triangular.push(l);
        }
        let (mn, mx) = if step > 0 {
            (first, last)
        } else {
            (last, first)
        };
        range.insert(lp.var.clone(), (mn, mx.max(mn)));
        trip.insert(l, n.max(1));
        start.insert(l, (first, step));
    }
    // Arrays: strides, extents, element sizes.
    let mut strides = BTreeMap::new();
    let mut extents = BTreeMap::new();
    let mut elem_bytes = BTreeMap::new();
    let mut records = BTreeSet::new();
    for (name, a) in &region.arrays {
        if a.record.is_some() {
            records.insert(name.clone());
        }
        let ext: Vec<Option<i64>> = a
            .extents
            .iter()
            .map(|e| e.as_ref().and_then(|p| env.eval(p)).filter(|v| *v > 0))
            .collect();
        let mut st = vec![1i64; ext.len()];
        for d in (0..ext.len().saturating_sub(1)).rev() {
            let e = ext[d + 1].unwrap_or(opts.default_size);
            st[d] = st[d + 1].saturating_mul(e);
        }
        strides.insert(name.clone(), st);
        extents.insert(name.clone(), ext);
        elem_bytes.insert(name.clone(), a.elem.size().max(1) as i64);
    }
    // References.
    let in_nest: BTreeSet<LoopId> = loops.iter().copied().collect();
    let mut refs: Vec<RefClass> = Vec::new();
    let mut nonaffine = BTreeSet::new();
    for acc in &region.accesses {
        if acc.loops.first() != Some(&root) {
            continue;
        }
        let mut dims = Vec::new();
        let mut ok = acc.is_affine();
        for sub in acc.subscripts.iter().flatten() {
            match env.linear(sub, &all_iters) {
                Some((coef, c0)) => {
                    let mut lin = Lin {
                        coef: BTreeMap::new(),
                        base: c0,
                    };
                    for (it, c) in coef {
                        // The innermost enclosing loop with this iterator.
                        let Some(&l) = acc
                            .loops
                            .iter()
                            .rev()
                            .find(|&&l| region.loops[l].var == it && in_nest.contains(&l))
                        else {
                            ok = false;
                            break;
                        };
                        let (s0, st) = start[&l];
                        lin.base = lin.base.saturating_add(c.saturating_mul(s0));
                        lin.coef.insert(l, c.saturating_mul(st));
                    }
                    dims.push(lin);
                }
                None => ok = false,
            }
        }
        if !ok {
            nonaffine.insert(acc.array.clone());
            continue;
        }
        let loops_in: Vec<LoopId> = acc
            .loops
            .iter()
            .copied()
            .filter(|l| in_nest.contains(l))
            .collect();
        if let Some(r) = refs
            .iter_mut()
            .find(|r| r.array == acc.array && r.dims == dims && r.loops == loops_in)
        {
            r.accesses.push(acc.id);
            if !r.stmts.contains(&acc.stmt) {
                r.stmts.push(acc.stmt);
            }
            r.writes |= acc.writes();
        } else {
            refs.push(RefClass {
                array: acc.array.clone(),
                accesses: vec![acc.id],
                stmts: vec![acc.stmt],
                loops: loops_in,
                dims,
                writes: acc.writes(),
                text: region.fmt_access(acc.id),
            });
        }
    }
    Ok(Nest {
        root,
        loops,
        mapped,
        trip,
        triangular,
        refs,
        nonaffine,
        sizes_used: env.used,
        strides,
        extents,
        elem_bytes,
        var,
        records,
    })
}
