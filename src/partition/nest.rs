//! The kernel view the engine works on: one loop nest (a region root), its mapping to the grid
//! (the paper's schedule φ and placement Q), representative trip counts, and every array
//! reference as a numeric affine function of normalized iteration counters.
//!
//! Problem sizes that are symbols (`n`, `rows`) take a representative value (`Options::sizes`,
//! else `Options::default_size`); sizes written as macros are already constants here, because
//! the preprocessor expanded them (so `-D N=…` changes them).

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::dependence::DepInfo;
use crate::ir::{AccessId, LoopId, Poly, Region, StmtId};
use crate::vocab::share::TbDim;

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
    let loops = nest_loops(region, root);
    let mapped = grid_mapping(region, deps, root);
    let all_iters: Vec<String> = loops.iter().map(|&l| region.loops[l].var.clone()).collect();
    let bounds = loop_bounds(region, &loops, &all_iters, &mut env)?;
    let layouts = array_layouts(region, &mut env);
    let (refs, nonaffine) =
        reference_classes(region, root, &loops, &all_iters, &bounds.start, &mut env);
    Ok(Nest {
        root,
        loops,
        mapped,
        trip: bounds.trip,
        triangular: bounds.triangular,
        refs,
        nonaffine,
        sizes_used: env.used,
        strides: layouts.strides,
        extents: layouts.extents,
        elem_bytes: layouts.elem_bytes,
        var: bounds.var,
        records: layouts.records,
    })
}

/// The loops of the nest of `root`, outer before inner (IR arena order is outer before inner).
fn nest_loops(region: &Region, root: LoopId) -> Vec<LoopId> {
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
    loops
}

/// What [`loop_bounds`] finds of each loop of a nest.
struct LoopBounds {
    /// Iterations of each loop (at least 1).
    trip: BTreeMap<LoopId, i64>,
    /// Each loop's first value and step.
    start: BTreeMap<LoopId, (i64, i64)>,
    /// Loops whose bounds depend on outer loops.
    triangular: Vec<LoopId>,
    /// Each loop's variable.
    var: BTreeMap<LoopId, String>,
}

/// The trip count, first value and step of each loop of `loops` (outer before inner, over the
/// iterators `all_iters`), a bound that depends on outer loops taken at their extremes (the
/// bounding box of the domain); an error names the first loop that cannot be sized.
fn loop_bounds(
    region: &Region,
    loops: &[LoopId],
    all_iters: &[String],
    env: &mut Env,
) -> Result<LoopBounds, NestError> {
    let mut range: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut out = LoopBounds {
        trip: BTreeMap::new(),
        start: BTreeMap::new(),
        triangular: Vec::new(),
        var: BTreeMap::new(),
    };
    for &l in loops {
        let lp = &region.loops[l];
        out.var.insert(l, lp.var.clone());
        let (Some(lo), Some(hi)) = (lp.lower.affine(), lp.upper.affine()) else {
            return Err(NestError::NonAffineBounds(lp.var.clone()));
        };
        let mut tri = false;
        let step = lp.step;
        let mut at = |p: &Poly, max: bool| extreme(env, p, max, &mut tri, &range, all_iters);
        let (first, last) = if step > 0 {
            let a = at(lo, false);
            let b = at(hi, true).and_then(|b| b.checked_sub(1));
            (a, b)
        } else {
            let a = at(lo, true);
            let b = at(hi, false).and_then(|b| b.checked_add(1));
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
            out.triangular.push(l);
        }
        let (mn, mx) = if step > 0 {
            (first, last)
        } else {
            (last, first)
        };
        range.insert(lp.var.clone(), (mn, mx.max(mn)));
        out.trip.insert(l, n.max(1));
        out.start.insert(l, (first, step));
    }
    Ok(out)
}

/// The least (`max` false) or greatest value of bound `p` over the ranges `range` of the outer
/// loops' iterators; `tri` is set when `p` depends on one of them.
fn extreme(
    env: &mut Env,
    p: &Poly,
    max: bool,
    tri: &mut bool,
    range: &BTreeMap<String, (i64, i64)>,
    all_iters: &[String],
) -> Option<i64> {
    let (coef, c0) = env.linear(p, all_iters)?;
    let mut v = c0 as i128;
    for (it, c) in coef {
        let &(mn, mx) = range.get(&it)?;
        *tri = true;
        let pick = if (c > 0) == max { mx } else { mn };
        v += c as i128 * pick as i128;
    }
    i64::try_from(v).ok()
}

/// What [`array_layouts`] finds of the region's arrays.
struct ArrayLayouts {
    /// Elements between consecutive indices of each dimension.
    strides: BTreeMap<String, Vec<i64>>,
    /// Each dimension's extent, where it evaluates to a positive number.
    extents: BTreeMap<String, Vec<Option<i64>>>,
    /// Bytes of an element.
    elem_bytes: BTreeMap<String, i64>,
    /// Arrays of structs.
    records: BTreeSet<String>,
}

/// The strides, extents and element sizes of the region's arrays (an unknown inner extent
/// taken as the options' default size), and which arrays hold structs.
fn array_layouts(region: &Region, env: &mut Env) -> ArrayLayouts {
    let mut out = ArrayLayouts {
        strides: BTreeMap::new(),
        extents: BTreeMap::new(),
        elem_bytes: BTreeMap::new(),
        records: BTreeSet::new(),
    };
    for (name, a) in &region.arrays {
        if a.record.is_some() {
            out.records.insert(name.clone());
        }
        let ext: Vec<Option<i64>> = a
            .extents
            .iter()
            .map(|e| e.as_ref().and_then(|p| env.eval(p)).filter(|v| *v > 0))
            .collect();
        let mut st = vec![1i64; ext.len()];
        for d in (0..ext.len().saturating_sub(1)).rev() {
            let e = ext[d + 1].unwrap_or(env.opts.default_size);
            st[d] = st[d + 1].saturating_mul(e);
        }
        out.strides.insert(name.clone(), st);
        out.extents.insert(name.clone(), ext);
        out.elem_bytes
            .insert(name.clone(), a.elem.size().max(1) as i64);
    }
    out
}

/// The references of the nest of `root` (its loops `loops`, over the iterators `all_iters`,
/// each loop's first value and step in `start`) grouped into classes of the same subscripts
/// in the same loops, and the arrays some reference of which is not affine in the nest's loops.
fn reference_classes(
    region: &Region,
    root: LoopId,
    loops: &[LoopId],
    all_iters: &[String],
    start: &BTreeMap<LoopId, (i64, i64)>,
    env: &mut Env,
) -> (Vec<RefClass>, BTreeSet<String>) {
    let in_nest: BTreeSet<LoopId> = loops.iter().copied().collect();
    let mut refs: Vec<RefClass> = Vec::new();
    let mut nonaffine = BTreeSet::new();
    for acc in &region.accesses {
        if acc.loops.first() != Some(&root) {
            continue;
        }
        let Some(dims) = reference_dims(region, acc, all_iters, &in_nest, start, env) else {
            nonaffine.insert(acc.array.clone());
            continue;
        };
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
    (refs, nonaffine)
}

/// Each subscript of access `acc` as an affine form over the loops of the nest (`in_nest`,
/// normalized by each loop's first value and step in `start`), or `None` when one is not
/// affine in them (every subscript is still evaluated: the sizes it uses are recorded).
fn reference_dims(
    region: &Region,
    acc: &crate::ir::Access,
    all_iters: &[String],
    in_nest: &BTreeSet<LoopId>,
    start: &BTreeMap<LoopId, (i64, i64)>,
    env: &mut Env,
) -> Option<Vec<Lin>> {
    let mut dims = Vec::new();
    let mut ok = acc.is_affine();
    for sub in acc.subscripts.iter().flatten() {
        match env.linear(sub, all_iters) {
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
    ok.then_some(dims)
}
