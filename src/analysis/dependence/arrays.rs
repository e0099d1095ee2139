//! Dependence test between two references to the same array, for one loop `L`.
//!
//! The question is posed as an integer system (see [`super::system`]): one variable per
//! iterator of the loops around `L` (shared by both references: they are fixed), and one per
//! iterator of `L` and the loops inside it for each reference; the loop bounds (triangular ones
//! included, non-unit steps through an extra variable); the order of the two iterations of `L`;
//! and one equation per subscript. Per-dimension ZIV/SIV/GCD tests, the Banerjee bounds test and
//! the distance of uniformly generated references are all special cases of solving it.
//!
//! Subscripts whose coefficients are parameters (`r*cols + c`) are *delinearised*: in
//! `μ·P + Q = 0` where `μ` is a parameter monomial, `P` has constant coefficients and the loop
//! bounds keep `Q` within `(-2μ, 2μ)`, `P` is `-1`, `0` or `1`, each case giving two equations
//! with smaller coefficients (`0 ≤ c < cols` makes `r*cols + c` a 2-D access).

use std::collections::{BTreeMap, BTreeSet};

use super::system::{self, sign, Budget, Lin, Sign, System, Tri, Var};
use crate::ir::poly::Monomial;
use crate::ir::{Access, LoopId, Poly, Region};

/// `Σ coeffs[v]·v + konst` with coefficients that are polynomials over parameters.
#[derive(Clone, Debug, Default, PartialEq)]
struct Aff {
    coeffs: BTreeMap<Var, Poly>,
    konst: Poly,
}

impl Aff {
    fn var(v: Var) -> Aff {
        let mut a = Aff::default();
        a.coeffs.insert(v, Poly::constant(1));
        a
    }

    fn add(&self, o: &Aff) -> Option<Aff> {
        let mut out = self.clone();
        for (v, c) in &o.coeffs {
            let e = out.coeffs.entry(*v).or_default();
            *e = e.add(c)?;
            if e.is_zero() {
                out.coeffs.remove(v);
            }
        }
        out.konst = out.konst.add(&o.konst)?;
        Some(out)
    }

    fn mul_poly(&self, k: &Poly) -> Option<Aff> {
        let mut out = Aff {
            coeffs: BTreeMap::new(),
            konst: self.konst.mul(k)?,
        };
        for (v, c) in &self.coeffs {
            let p = c.mul(k)?;
            if !p.is_zero() {
                out.coeffs.insert(*v, p);
            }
        }
        Some(out)
    }

    fn sub(&self, o: &Aff) -> Option<Aff> {
        self.add(&o.mul_poly(&Poly::constant(-1))?)
    }

    fn substitute(&self, v: Var, by: &Aff) -> Option<Aff> {
        let Some(c) = self.coeffs.get(&v) else {
            return Some(self.clone());
        };
        let mut rest = self.clone();
        rest.coeffs.remove(&v);
        rest.add(&by.mul_poly(c)?)
    }

    /// The same expression when every coefficient is an integer.
    fn to_lin(&self) -> Option<Lin> {
        let mut l = Lin::constant(self.konst.clone());
        for (v, c) in &self.coeffs {
            l.coeffs.insert(*v, c.as_const()?);
        }
        Some(l)
    }
}

fn mono_poly(m: &[String], c: i64) -> Option<Poly> {
    let mut p = Poly::constant(c);
    for s in m {
        p = p.mul(&Poly::var(s))?;
    }
    Some(p)
}

/// `m / mu` when `mu` divides `m` as a multiset of symbols.
fn mono_div(m: &Monomial, mu: &Monomial) -> Option<Monomial> {
    let mut rest = m.clone();
    for s in mu {
        let i = rest.iter().position(|r| r == s)?;
        rest.remove(i);
    }
    Some(rest)
}

/// Splits `p` into `mu·p1 + p0` where no term of `p0` is a multiple of `mu`.
fn split_by(p: &Poly, mu: &Monomial) -> Option<(Poly, Poly)> {
    let (mut p1, mut p0) = (Poly::zero(), Poly::zero());
    for (m, c) in p.terms() {
        match mono_div(m, mu) {
            Some(q) => p1 = p1.add(&mono_poly(&q, c)?)?,
            None => p0 = p0.add(&mono_poly(m, c)?)?,
        }
    }
    Some((p1, p0))
}

/// The inclusive range of a loop variable, over variables created before it.
#[derive(Clone, Debug, Default)]
struct Range {
    min: Option<Aff>,
    max: Option<Aff>,
}

/// The iterators in scope at a reference: name and variable, outermost first.
type Scope = Vec<(String, Var)>;

/// The variables and constraints of one pair of references.
struct Space<'r> {
    region: &'r Region,
    /// Region iterator names (an iterator that is not bound by a reference's own loops is not
    /// a parameter).
    iters: BTreeSet<&'r str>,
    ranges: Vec<Option<Range>>,
    geqs: Vec<Lin>,
    eqs: Vec<Lin>,
    /// False when a constraint had to be left out (the system is then a relaxation).
    exact: bool,
    reasons: Vec<String>,
}

impl<'r> Space<'r> {
    fn new_var(&mut self, range: Option<Range>) -> Var {
        self.ranges.push(range);
        self.ranges.len() - 1
    }

    fn inexact(&mut self, why: String) {
        self.exact = false;
        if !self.reasons.contains(&why) {
            self.reasons.push(why);
        }
    }

    /// A polynomial over iterators in `scope` (innermost last) and parameters.
    fn to_aff(&self, p: &Poly, scope: &[(String, Var)]) -> Option<Aff> {
        let mut out = Aff::default();
        for (m, c) in p.terms() {
            let mut var: Option<(Var, usize)> = None;
            for (i, s) in m.iter().enumerate() {
                if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == s) {
                    if var.is_some() {
                        return None;
                    }
                    var = Some((*v, i));
                } else if self.iters.contains(s.as_str()) {
                    // An iterator of a loop that does not enclose this reference.
                    return None;
                }
            }
            match var {
                Some((v, i)) => {
                    let mut rest = m.clone();
                    rest.remove(i);
                    let coef = mono_poly(&rest, c)?;
                    let e = out.coeffs.entry(v).or_default();
                    *e = e.add(&coef)?;
                    if e.is_zero() {
                        out.coeffs.remove(&v);
                    }
                }
                None => out.konst = out.konst.add(&mono_poly(m, c)?)?,
            }
        }
        Some(out)
    }

    /// Creates the variable of loop `l` with its bounds, resolved in `scope`.
    fn loop_var(&mut self, l: LoopId, scope: &[(String, Var)]) -> Var {
        let region = self.region;
        let Some(lp) = region.loops.get(l.index()) else {
            let v = self.new_var(None);
            self.inexact("the loop structure is inconsistent".into());
            return v;
        };
        let start = lp.lower.affine().and_then(|p| self.to_aff(p, scope));
        let end = lp.upper.affine().and_then(|p| self.to_aff(p, scope));
        let one = Poly::constant(1);
        let (min, max) = if lp.step > 0 {
            (
                start.clone(),
                end.and_then(|e| e.sub(&Aff::default().add_const(&one)?)),
            )
        } else {
            (
                end.and_then(|e| e.add(&Aff::default().add_const(&one)?)),
                start.clone(),
            )
        };
        let v = self.new_var(Some(Range {
            min: min.clone(),
            max: max.clone(),
        }));
        let me = Aff::var(v);
        let mut complete = true;
        if let Some(c) = min.and_then(|m| me.sub(&m)).and_then(|a| a.to_lin()) {
            self.geqs.push(c);
        } else {
            complete = false;
        }
        if let Some(c) = max.and_then(|m| m.sub(&me)).and_then(|a| a.to_lin()) {
            self.geqs.push(c);
        } else {
            complete = false;
        }
        if lp.step.unsigned_abs() > 1 {
            // v = start + step·t, t ≥ 0.
            match start.and_then(|s| me.sub(&s)).and_then(|a| a.to_lin()) {
                Some(mut e) => {
                    let t = self.new_var(None);
                    e.coeffs.insert(t, -lp.step);
                    self.eqs.push(e);
                    self.geqs.push(Lin::var(t));
                }
                None => complete = false,
            }
        }
        if !complete {
            self.inexact(format!(
                "the bounds of loop `{}` are not affine with constant coefficients",
                lp.var
            ));
        }
        v
    }

    /// Extreme value of `e` over the loop ranges (inner variables replaced by their bounds).
    fn extreme(&self, e: &Aff, max: bool) -> Option<Poly> {
        let mut e = e.clone();
        for _ in 0..64 {
            let Some((&v, coef)) = e.coeffs.iter().next_back() else {
                return Some(e.konst);
            };
            let up = match sign(coef) {
                Sign::Pos => max,
                Sign::Neg => !max,
                Sign::Zero => {
                    e.coeffs.remove(&v);
                    continue;
                }
                Sign::Unknown => return None,
            };
            let r = self.ranges.get(v)?.as_ref()?;
            let b = if up { r.max.as_ref()? } else { r.min.as_ref()? };
            e = e.substitute(v, b)?;
        }
        None
    }

    /// The alternatives (each a list of equalities with integer coefficients) equivalent to
    /// `d = 0` within the loop bounds; `None` when `d` cannot be brought to that form.
    fn expand(&self, d: &Aff, depth: u32) -> Option<Vec<Vec<Lin>>> {
        if let Some(l) = d.to_lin() {
            return Some(vec![vec![l]]);
        }
        if depth >= 3 {
            return None;
        }
        let mu: Monomial = d
            .coeffs
            .values()
            .flat_map(|c| c.terms().map(|(m, _)| m.clone()))
            .filter(|m| !m.is_empty())
            .max_by_key(|m| (m.len(), m.clone()))?;
        let mu_p = mono_poly(&mu, 1)?;
        let mut p = Lin::default();
        let mut q = Aff::default();
        for (v, c) in &d.coeffs {
            let (c1, c0) = split_by(c, &mu)?;
            let k = c1.as_const()?;
            if k != 0 {
                p.coeffs.insert(*v, k);
            }
            if !c0.is_zero() {
                q.coeffs.insert(*v, c0);
            }
        }
        let (k1, k0) = split_by(&d.konst, &mu)?;
        p.konst = k1;
        q.konst = k0;
        let qmin = self.extreme(&q, false)?;
        let qmax = self.extreme(&q, true)?;
        let two_mu = mu_p.scale(2)?;
        // μ·P = -Q with -2μ < Q < 2μ: P ∈ {-1, 0, 1}.
        if sign(&two_mu.sub(&qmax)?) != Sign::Pos || sign(&qmin.add(&two_mu)?) != Sign::Pos {
            return None;
        }
        let mut alts = Vec::new();
        for k in [-1i64, 0, 1] {
            let k_mu = mu_p.scale(k)?;
            // Q = -kμ must lie in [qmin, qmax].
            if sign(&qmin.add(&k_mu)?) == Sign::Pos || sign(&k_mu.add(&qmax)?.neg()?) == Sign::Pos {
                continue;
            }
            let eq_p = p.sub(&Lin::constant(Poly::constant(k)))?;
            let mut qk = q.clone();
            qk.konst = qk.konst.add(&k_mu)?;
            for mut alt in self.expand(&qk, depth + 1)? {
                alt.insert(0, eq_p.clone());
                alts.push(alt);
            }
        }
        Some(alts)
    }
}

impl Aff {
    fn add_const(&self, k: &Poly) -> Option<Aff> {
        let mut out = self.clone();
        out.konst = out.konst.add(k)?;
        Some(out)
    }
}

/// One dimension of a reference, for the quick pre-test.
#[derive(Clone, Debug)]
pub(super) struct QuickDim {
    /// Gcd of the (constant) coefficients of the iterators of `L` and the loops inside it.
    gcd: i64,
    /// The coefficient of `L`'s iterator when no other of those iterators occurs.
    l_only: Option<i64>,
    /// The other non-constant terms (outer iterators, parameters).
    rest: Poly,
    konst: i64,
}

/// Per dimension (`None`: the dimension cannot be used).
pub(super) type QuickDims = Vec<Option<QuickDim>>;

pub(super) fn quick_dims(region: &Region, l: LoopId, acc: &Access) -> QuickDims {
    let names: Vec<&str> = match acc.loops.iter().position(|&x| x == l) {
        Some(p) => acc.loops[p..]
            .iter()
            .filter_map(|&x| region.loops.get(x.index()).map(|lp| lp.var.as_str()))
            .collect(),
        None => return vec![None; acc.subscripts.len()],
    };
    let lvar = names.first().copied().unwrap_or("");
    let split = |p: &Poly| -> Option<QuickDim> {
        let mut d = QuickDim {
            gcd: 0,
            l_only: None,
            rest: Poly::zero(),
            konst: p.constant_term(),
        };
        let mut others = false;
        for (m, c) in p.terms() {
            if m.iter().any(|s| names.contains(&s.as_str())) {
                if m.len() != 1 {
                    return None;
                }
                d.gcd = system::gcd(d.gcd, c);
                // The innermost binding wins: `lvar` only if no inner loop reuses the name.
                if m[0] == lvar && names.iter().filter(|n| **n == lvar).count() == 1 {
                    d.l_only = Some(c);
                } else {
                    others = true;
                }
            } else if !m.is_empty() {
                d.rest = d.rest.add(&mono_poly(m, c)?)?;
            }
        }
        if others {
            d.l_only = None;
        }
        Some(d)
    };
    acc.subscripts
        .iter()
        .map(|s| s.as_ref().and_then(split))
        .collect()
}

/// ZIV, GCD and zero-distance strong SIV tests on one dimension at a time, without building a
/// system: a cheap way to set aside most independent pairs. `true` when independence is proven.
pub(super) fn quick_independent(a: &QuickDims, b: &QuickDims) -> bool {
    a.iter().zip(b).any(|(da, db)| match (da, db) {
        (Some(x), Some(y)) if x.rest == y.rest => {
            let Some(k) = x.konst.checked_sub(y.konst) else {
                return false;
            };
            let g = system::gcd(x.gcd, y.gcd);
            if g == 0 {
                return k != 0;
            }
            if k % g != 0 {
                return true;
            }
            // c·L + r = c·L' + r forces L = L'.
            k == 0 && x.l_only.is_some() && x.l_only == y.l_only && x.l_only != Some(0)
        }
        _ => false,
    })
}

/// The outcome for one order of the two iterations of `L`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Direction {
    pub tri: Tri,
    /// Iterations of `L` between the two references, when the subscripts fix it.
    pub distance: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct PairResult {
    /// `a` in an earlier iteration of `L` than `b`.
    pub a_first: Direction,
    /// `b` in an earlier iteration (not tested when `a` and `b` are the same reference).
    pub b_first: Direction,
    /// Why a `Maybe` could not be decided.
    pub reason: Option<String>,
}

const MAX_ALTERNATIVES: usize = 64;

/// Tests whether `a` and `b` (same array, at least one writing) may touch the same element in
/// two different iterations of loop `l`, the loops around `l` being fixed.
pub(super) fn test_pair(region: &Region, l: LoopId, a: &Access, b: &Access) -> PairResult {
    let no = Direction {
        tri: Tri::No,
        distance: None,
    };
    let (Some(pa), Some(pb)) = (
        a.loops.iter().position(|&x| x == l),
        b.loops.iter().position(|&x| x == l),
    ) else {
        return PairResult {
            a_first: no.clone(),
            b_first: no,
            reason: None,
        };
    };
    let Some(lp) = region.loops.get(l.index()) else {
        return PairResult::maybe(a, b, "the loop structure is inconsistent".into());
    };
    if pa != pb || a.loops[..pa] != b.loops[..pb] || a.subscripts.len() != b.subscripts.len() {
        return PairResult::maybe(
            a,
            b,
            format!(
                "`{}` and `{}` have different shapes",
                region.fmt_access(a.id),
                region.fmt_access(b.id)
            ),
        );
    }
    let (mut sp, scope_a, scope_b) = Space::for_pair(region, pa, a, b);
    let (la, lb) = (scope_a[pa].1, scope_b[pb].1);
    if runs_conditionally(region, pa, a) || runs_conditionally(region, pa, b) {
        sp.inexact(format!(
            "`{}` and `{}` may refer to the same element, but only under a condition",
            region.fmt_access(a.id),
            region.fmt_access(b.id)
        ));
    }
    let dims = sp.subscript_equations(a, b, &scope_a, &scope_b);
    let Some(combos) = combine_alternatives(&dims) else {
        return PairResult::maybe(
            a,
            b,
            format!(
                "the dependence test between `{}` and `{}` is too complex",
                region.fmt_access(a.id),
                region.fmt_access(b.id)
            ),
        );
    };
    let mut budget = Budget(50_000);
    let mut a_first = sp.direction(&combos, lp.step, la, lb, &mut budget);
    let mut b_first = if a.id == b.id {
        no
    } else {
        sp.direction(&combos, lp.step, lb, la, &mut budget)
    };
    let mut reason = None;
    for d in [&mut a_first, &mut b_first] {
        if d.tri == Tri::Yes && !sp.exact {
            d.tri = Tri::Maybe;
        }
    }
    if a_first.tri == Tri::Maybe || b_first.tri == Tri::Maybe {
        reason = Some(sp.reasons.first().cloned().unwrap_or_else(|| {
            format!(
                "whether `{}` and `{}` refer to the same element in different iterations of `{}` depends on the values of the parameters",
                region.fmt_access(a.id),
                region.fmt_access(b.id),
                lp.var
            )
        }));
    }
    PairResult {
        a_first,
        b_first,
        reason,
    }
}

impl PairResult {
    /// Undecided in both orders (only one order for a reference with itself), for `why`.
    fn maybe(a: &Access, b: &Access, why: String) -> PairResult {
        PairResult {
            a_first: Direction {
                tri: Tri::Maybe,
                distance: None,
            },
            b_first: Direction {
                tri: if a.id == b.id { Tri::No } else { Tri::Maybe },
                distance: None,
            },
            reason: Some(why),
        }
    }
}

/// Whether `acc` may not run in every iteration of its loops inside the loop at position `pa`
/// (its statement or one of those loops is conditional).
fn runs_conditionally(region: &Region, pa: usize, acc: &Access) -> bool {
    region
        .stmts
        .get(acc.stmt.index())
        .is_none_or(|s| s.conditional)
        || acc.loops[pa + 1..]
            .iter()
            .any(|&x| region.loops.get(x.index()).is_none_or(|x| x.conditional))
}

/// The cartesian product of the alternatives of the dimensions (each combination a list of
/// equations), or `None` beyond [`MAX_ALTERNATIVES`].
fn combine_alternatives(dims: &[Vec<Vec<Lin>>]) -> Option<Vec<Vec<Lin>>> {
    let mut combos: Vec<Vec<Lin>> = vec![Vec::new()];
    for alts in dims {
        let mut next = Vec::new();
        for c in &combos {
            for alt in alts {
                let mut n = c.clone();
                n.extend(alt.iter().cloned());
                next.push(n);
            }
        }
        combos = next;
        if combos.len() > MAX_ALTERNATIVES {
            return None;
        }
    }
    Some(combos)
}

impl<'r> Space<'r> {
    /// The space of a pair whose common loops around `L` are `a.loops[..pa]`: one variable per
    /// loop around `L` (shared), one per loop from `L` inward for each reference; with the
    /// iterator scopes of `a` and `b` (name and variable, outermost first).
    fn for_pair(
        region: &'r Region,
        pa: usize,
        a: &Access,
        b: &Access,
    ) -> (Space<'r>, Scope, Scope) {
        let mut sp = Space {
            region,
            iters: region.loops.iter().map(|x| x.var.as_str()).collect(),
            ranges: Vec::new(),
            geqs: Vec::new(),
            eqs: Vec::new(),
            exact: true,
            reasons: Vec::new(),
        };
        let name = |o: LoopId| {
            region
                .loops
                .get(o.index())
                .map_or(String::new(), |x| x.var.clone())
        };
        // Loops around L: one variable for both references.
        let mut shared: Vec<(String, Var)> = Vec::new();
        for &o in &a.loops[..pa] {
            let v = sp.loop_var(o, &shared);
            shared.push((name(o), v));
        }
        let side = |acc: &Access, sp: &mut Space| -> Scope {
            let mut scope = shared.clone();
            for &o in &acc.loops[pa..] {
                let v = sp.loop_var(o, &scope);
                scope.push((name(o), v));
            }
            scope
        };
        let scope_a = side(a, &mut sp);
        let scope_b = side(b, &mut sp);
        (sp, scope_a, scope_b)
    }

    /// One equation (or set of alternatives) per dimension: `a`'s subscript equals `b`'s.
    /// A dimension that cannot be written so is left out, making the space inexact.
    fn subscript_equations(
        &mut self,
        a: &Access,
        b: &Access,
        scope_a: &[(String, Var)],
        scope_b: &[(String, Var)],
    ) -> Vec<Vec<Vec<Lin>>> {
        let region = self.region;
        let mut dims: Vec<Vec<Vec<Lin>>> = Vec::new();
        for (sa, sb) in a.subscripts.iter().zip(&b.subscripts) {
            let (Some(sa), Some(sb)) = (sa, sb) else {
                let which = if sa.is_none() { a } else { b };
                self.inexact(format!(
                    "a subscript of `{}` is not an affine function of the loop iterators",
                    region.fmt_access(which.id)
                ));
                continue;
            };
            let d = match (self.to_aff(sa, scope_a), self.to_aff(sb, scope_b)) {
                (Some(fa), Some(fb)) => fa.sub(&fb),
                _ => None,
            };
            match d.and_then(|d| self.expand(&d, 0)) {
                Some(alts) => dims.push(alts),
                None => self.inexact(format!(
                    "the subscripts of `{}` and `{}` have symbolic coefficients that cannot be compared",
                    region.fmt_access(a.id),
                    region.fmt_access(b.id)
                )),
            }
        }
        dims
    }

    /// The system of one combination of subscript equations, with `extra` as one more
    /// inequality.
    fn system(&self, combo: &[Lin], extra: Lin) -> System {
        let mut eqs = self.eqs.clone();
        eqs.extend(combo.iter().cloned());
        let mut geqs = self.geqs.clone();
        geqs.push(extra);
        System {
            eqs,
            geqs,
            nvars: self.ranges.len(),
        }
    }

    /// Whether the iteration of `L` of variable `first` may come before the one of `second`
    /// (loop step `step`) with the subscripts equal, and the distance when it is fixed.
    fn direction(
        &self,
        combos: &[Vec<Lin>],
        step: i64,
        first: Var,
        second: Var,
        budget: &mut Budget,
    ) -> Direction {
        // `first` runs in an earlier iteration of L.
        let dir = if step > 0 {
            Lin::var(second).sub(&Lin::var(first))
        } else {
            Lin::var(first).sub(&Lin::var(second))
        }
        .and_then(|d| d.add(&Lin::constant(Poly::constant(-1))));
        let Some(dir) = dir else {
            return Direction {
                tri: Tri::Maybe,
                distance: None,
            };
        };
        let track = Lin::var(second).sub(&Lin::var(first)).unwrap_or_default();
        let mut tri = Tri::No;
        let mut dists: BTreeSet<Option<i64>> = BTreeSet::new();
        for combo in combos {
            let (r, t) = system::solve(self.system(combo, dir.clone()), track.clone(), budget);
            if r != Tri::No {
                let d = if t.is_constant() {
                    t.konst
                        .as_const()
                        .and_then(|d| d.checked_div(step))
                        .map(i64::abs)
                } else {
                    None
                };
                dists.insert(d);
            }
            tri = tri.or(r);
            if tri == Tri::Yes && dists.len() > 1 {
                break;
            }
        }
        let mut distance = match (dists.len(), dists.iter().next()) {
            (1, Some(d)) => *d,
            _ => None,
        };
        // Not fixed by the subscripts: is it one iteration anyway (bounds)?
        if tri == Tri::Yes && distance.is_none() && self.never_farther(combos, step, &dir, budget) {
            distance = Some(1);
        }
        Direction { tri, distance }
    }

    /// Whether the subscripts are never equal in two iterations of `L` at least two steps apart
    /// in the order `dir` (then a dependence in that order has distance one).
    fn never_farther(
        &self,
        combos: &[Vec<Lin>],
        step: i64,
        dir: &Lin,
        budget: &mut Budget,
    ) -> bool {
        let two = step
            .checked_abs()
            .filter(|s| *s <= 1 << 20)
            .and_then(|s| dir.add(&Lin::constant(Poly::constant(1 - 2 * s))));
        let Some(two) = two else {
            return false;
        };
        let farther = combos
            .iter()
            .map(|combo| system::solve(self.system(combo, two.clone()), Lin::default(), budget).0);
        farther.fold(Tri::No, Tri::or) == Tri::No
    }
}
