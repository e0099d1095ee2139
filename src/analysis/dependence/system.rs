//! Integer linear systems with symbolic constants, and a small exact-when-possible solver.
//!
//! A system is a conjunction of `Σ aᵢ·xᵢ + c = 0` and `Σ aᵢ·xᵢ + c ≥ 0` with integer
//! coefficients `aᵢ` and a constant `c` that is a polynomial over the program's parameters
//! (`n - 1`). Parameters are non-negative integers assumed *large*: a polynomial is judged by the
//! sign it has once every parameter is at least some bound (see [`sign`]).
//!
//! The solver is a reduced Omega test: equalities are eliminated exactly (unit coefficients by
//! substitution, the others with Pugh's `mod^` step), inequalities by Fourier–Motzkin, which is
//! exact for integers when the eliminated variable has unit coefficients on one side; otherwise
//! the real shadow (infeasible ⇒ no solution) and the dark shadow (feasible ⇒ a solution) are
//! both tried. Whatever it cannot decide is [`Tri::Maybe`]. Work is bounded by a budget.

use std::collections::BTreeMap;

use crate::ir::poly::Monomial;
use crate::ir::Poly;

pub type Var = usize;

/// The outcome of a decision: proven no, proven yes (for large parameters), or undecided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tri {
    No,
    Maybe,
    Yes,
}

impl Tri {
    /// Disjunction.
    pub fn or(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
            (Tri::No, Tri::No) => Tri::No,
            _ => Tri::Maybe,
        }
    }
}

/// The sign of a polynomial over parameters once the parameters are large.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sign {
    Zero,
    Pos,
    Neg,
    Unknown,
}

/// `small` divides `big` as a multiset of symbols, strictly.
fn dominated(small: &Monomial, big: &Monomial) -> bool {
    if big.len() <= small.len() {
        return false;
    }
    let mut rest: Vec<&String> = big.iter().collect();
    for s in small {
        match rest.iter().position(|r| *r == s) {
            Some(i) => {
                rest.swap_remove(i);
            }
            None => return false,
        }
    }
    true
}

/// `p ≥ 0` once the parameters are large: every negative term is dominated by a positive term
/// of strictly higher degree that it divides (`n·m - 3·n`, `n - 1`).
pub fn eventually_ge0(p: &Poly) -> bool {
    let pos: Vec<&Monomial> = p.terms().filter(|(_, c)| *c > 0).map(|(m, _)| m).collect();
    p.terms()
        .filter(|(_, c)| *c < 0)
        .all(|(m, _)| pos.iter().any(|big| dominated(m, big)))
}

/// `p > 0` once the parameters are large.
pub fn eventually_pos(p: &Poly) -> bool {
    !p.is_zero() && eventually_ge0(p) && p.terms().any(|(_, c)| c > 0)
}

pub fn sign(p: &Poly) -> Sign {
    if p.is_zero() {
        Sign::Zero
    } else if eventually_pos(p) {
        Sign::Pos
    } else if p.neg().is_some_and(|n| eventually_pos(&n)) {
        Sign::Neg
    } else {
        Sign::Unknown
    }
}

/// `Σ coeffs[v]·v + konst`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lin {
    pub coeffs: BTreeMap<Var, i64>,
    pub konst: Poly,
}

impl Lin {
    pub fn constant(p: Poly) -> Lin {
        Lin {
            coeffs: BTreeMap::new(),
            konst: p,
        }
    }

    pub fn var(v: Var) -> Lin {
        let mut l = Lin::default();
        l.coeffs.insert(v, 1);
        l
    }

    pub fn coeff(&self, v: Var) -> i64 {
        self.coeffs.get(&v).copied().unwrap_or(0)
    }

    pub fn is_constant(&self) -> bool {
        self.coeffs.is_empty()
    }

    pub fn add(&self, o: &Lin) -> Option<Lin> {
        let mut out = self.clone();
        for (v, c) in &o.coeffs {
            let e = out.coeffs.entry(*v).or_insert(0);
            *e = e.checked_add(*c)?;
            if *e == 0 {
                out.coeffs.remove(v);
            }
        }
        out.konst = out.konst.add(&o.konst)?;
        Some(out)
    }

    pub fn scale(&self, k: i64) -> Option<Lin> {
        if k == 0 {
            return Some(Lin::default());
        }
        let mut out = Lin {
            coeffs: BTreeMap::new(),
            konst: self.konst.scale(k)?,
        };
        for (v, c) in &self.coeffs {
            out.coeffs.insert(*v, c.checked_mul(k)?);
        }
        Some(out)
    }

    pub fn sub(&self, o: &Lin) -> Option<Lin> {
        self.add(&o.scale(-1)?)
    }

    /// Replaces `v` by `by`.
    pub fn substitute(&self, v: Var, by: &Lin) -> Option<Lin> {
        let c = self.coeff(v);
        if c == 0 {
            return Some(self.clone());
        }
        let mut rest = self.clone();
        rest.coeffs.remove(&v);
        rest.add(&by.scale(c)?)
    }

    fn gcd_coeffs(&self) -> i64 {
        self.coeffs.values().fold(0, |g, c| gcd(g, *c))
    }
}

/// Greatest common divisor of the magnitudes (`gcd(0, 0) = 0`; a result beyond `i64::MAX`,
/// possible only for `i64::MIN`, is reported as 1).
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    i64::try_from(a).unwrap_or(1)
}

/// Coefficients beyond this magnitude make the solver give up (keeps every product and
/// `abs` far from overflow).
const MAX_COEFF: u64 = 1 << 40;

fn too_big(l: &Lin) -> bool {
    l.coeffs.values().any(|c| c.unsigned_abs() > MAX_COEFF)
}

/// `a mod^ m`: the representative of `a` modulo `m` in `(-m/2, m/2]`.
fn mod_hat(a: i64, m: i64) -> i64 {
    let r = a.rem_euclid(m);
    if 2 * r > m {
        r - m
    } else {
        r
    }
}

/// `p mod^ m` term by term (congruent to `p` modulo `m` for integer parameters).
fn poly_mod_hat(p: &Poly, m: i64) -> Option<Poly> {
    let mut out = Poly::zero();
    for (mono, c) in p.terms() {
        let r = mod_hat(c, m);
        let mut t = Poly::constant(r);
        for s in mono {
            t = t.mul(&Poly::var(s))?;
        }
        out = out.add(&t)?;
    }
    Some(out)
}

/// `⌊p / g⌋` when it is a polynomial again (every non-constant coefficient divisible by `g`).
fn poly_floor_div(p: &Poly, g: i64) -> Option<Poly> {
    let c0 = p.constant_term();
    let rest = p.sub(&Poly::constant(c0))?.div_exact(g)?;
    rest.add(&Poly::constant(c0.div_euclid(g)))
}

/// A conjunction of equalities and inequalities over `nvars` variables.
#[derive(Clone, Debug, Default)]
pub struct System {
    pub eqs: Vec<Lin>,
    pub geqs: Vec<Lin>,
    pub nvars: usize,
}

/// Bounds the work of one decision.
pub struct Budget(pub u32);

impl Budget {
    fn spend(&mut self, n: usize) -> bool {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        if self.0 < n {
            self.0 = 0;
            false
        } else {
            self.0 -= n;
            true
        }
    }
}

/// Most inequalities a Fourier–Motzkin step may produce before giving up.
const MAX_GEQS: usize = 400;

/// Decides whether the system has an integer solution; also returns `track` rewritten by the
/// equality eliminations (so a difference of two variables that the equalities fix becomes a
/// constant).
pub fn solve(mut sys: System, mut track: Lin, budget: &mut Budget) -> (Tri, Lin) {
    let mut undetermined = false;
    let mut rounds = 0;
    loop {
        rounds += 1;
        if rounds > 200
            || !budget.spend(1 + sys.eqs.len() + sys.geqs.len())
            || sys.eqs.iter().chain(&sys.geqs).any(too_big)
        {
            return (Tri::Maybe, track);
        }
        // Drop trivial equalities; normalize by the gcd (GCD test).
        let mut pick: Option<usize> = None;
        let mut i = 0;
        while i < sys.eqs.len() {
            let e = &sys.eqs[i];
            if e.is_constant() {
                match sign(&e.konst) {
                    Sign::Zero => {}
                    Sign::Pos | Sign::Neg => return (Tri::No, track),
                    Sign::Unknown => undetermined = true,
                }
                sys.eqs.swap_remove(i);
                continue;
            }
            let g = e.gcd_coeffs();
            if g > 1 {
                match e.konst.div_exact(g) {
                    Some(k) => {
                        let mut n = e.clone();
                        for c in n.coeffs.values_mut() {
                            *c /= g;
                        }
                        n.konst = k;
                        sys.eqs[i] = n;
                    }
                    None if e.konst.as_const().is_some() => return (Tri::No, track),
                    None => {
                        // Divisibility depends on the parameters: relax.
                        undetermined = true;
                        sys.eqs.swap_remove(i);
                        continue;
                    }
                }
            }
            let e = &sys.eqs[i];
            let unit = e.coeffs.values().any(|c| c.unsigned_abs() == 1);
            let better = match pick {
                None => true,
                Some(p) => unit && !sys.eqs[p].coeffs.values().any(|c| c.unsigned_abs() == 1),
            };
            if better {
                pick = Some(i);
            }
            i += 1;
        }
        let Some(p) = pick else { break };
        let e = sys.eqs[p].clone();
        let (var, by) = if let Some((&v, &c)) = e.coeffs.iter().find(|(_, c)| c.unsigned_abs() == 1)
        {
            // c·v + rest = 0  ⇒  v = -c·rest (c = ±1).
            let mut rest = e.clone();
            rest.coeffs.remove(&v);
            match rest.scale(-c) {
                Some(by) => (v, by),
                None => return (Tri::Maybe, track),
            }
        } else {
            // Pugh's step: with a_k of least magnitude and m = |a_k| + 1, introduce σ with
            // m·σ = Σ (aᵢ mod^ m)·xᵢ + (c mod^ m), which defines x_k.
            let Some((&k, &ak)) = e.coeffs.iter().min_by_key(|(_, c)| c.unsigned_abs()) else {
                break;
            };
            let m = ak.abs() + 1;
            let sg = ak.signum();
            let sigma = sys.nvars;
            sys.nvars += 1;
            let mut by = Lin::default();
            by.coeffs.insert(sigma, -sg * m);
            for (&v, &c) in &e.coeffs {
                if v != k {
                    let r = sg * mod_hat(c, m);
                    if r != 0 {
                        by.coeffs.insert(v, r);
                    }
                }
            }
            match poly_mod_hat(&e.konst, m).and_then(|k| k.scale(sg)) {
                Some(k) => by.konst = k,
                None => return (Tri::Maybe, track),
            }
            (k, by)
        };
        let sub = |l: &Lin| l.substitute(var, &by);
        let eqs: Option<Vec<Lin>> = sys.eqs.iter().map(sub).collect();
        let geqs: Option<Vec<Lin>> = sys.geqs.iter().map(sub).collect();
        match (eqs, geqs, sub(&track)) {
            (Some(eqs), Some(geqs), Some(t)) => {
                sys.eqs = eqs;
                sys.geqs = geqs;
                track = t;
            }
            _ => return (Tri::Maybe, track),
        }
    }
    let r = fourier_motzkin(sys.geqs, undetermined, budget, 0);
    (r, track)
}

/// Normalizes inequalities: evaluates constant ones, divides by the gcd of the coefficients
/// (rounding the constant down), keeps the tightest of parallel ones. `None` when one is false.
fn normalize(geqs: Vec<Lin>, undetermined: &mut bool) -> Option<Vec<Lin>> {
    let mut by_coeffs: BTreeMap<BTreeMap<Var, i64>, Vec<Poly>> = BTreeMap::new();
    for mut c in geqs {
        if c.is_constant() {
            match sign(&c.konst) {
                Sign::Zero | Sign::Pos => {}
                Sign::Neg => return None,
                Sign::Unknown => *undetermined = true,
            }
            continue;
        }
        let g = c.gcd_coeffs();
        if g > 1 {
            if let Some(k) = poly_floor_div(&c.konst, g) {
                for v in c.coeffs.values_mut() {
                    *v /= g;
                }
                c.konst = k;
            }
        }
        let ks = by_coeffs.entry(c.coeffs).or_default();
        // Keep the tightest constants (the smallest); incomparable ones stay.
        let mut keep = true;
        ks.retain(|k| match k.sub(&c.konst).map(|d| sign(&d)) {
            Some(Sign::Zero) | Some(Sign::Neg) => {
                keep = false;
                true
            }
            Some(Sign::Pos) => false,
            _ => true,
        });
        if keep {
            ks.push(c.konst);
        }
    }
    let mut out = Vec::new();
    for (coeffs, ks) in by_coeffs {
        for k in ks {
            out.push(Lin {
                coeffs: coeffs.clone(),
                konst: k,
            });
        }
    }
    Some(out)
}

fn fourier_motzkin(geqs: Vec<Lin>, mut undetermined: bool, budget: &mut Budget, depth: u32) -> Tri {
    let mut geqs = geqs;
    loop {
        let Some(g) = normalize(geqs, &mut undetermined) else {
            return Tri::No;
        };
        geqs = g;
        if geqs.is_empty() {
            return if undetermined { Tri::Maybe } else { Tri::Yes };
        }
        if geqs.len() > MAX_GEQS
            || depth > 24
            || !budget.spend(geqs.len())
            || geqs.iter().any(too_big)
        {
            return Tri::Maybe;
        }
        // Choose the variable to eliminate.
        let mut vars: BTreeMap<Var, (usize, usize, bool, bool)> = BTreeMap::new();
        for c in &geqs {
            for (&v, &a) in &c.coeffs {
                let e = vars.entry(v).or_insert((0, 0, true, true));
                if a > 0 {
                    e.0 += 1;
                    e.2 &= a == 1;
                } else {
                    e.1 += 1;
                    e.3 &= a == -1;
                }
            }
        }
        // A variable bounded on one side only: its constraints can always be met.
        if let Some((&v, _)) = vars.iter().find(|(_, (l, u, _, _))| *l == 0 || *u == 0) {
            geqs.retain(|c| c.coeff(v) == 0);
            continue;
        }
        let best = vars
            .iter()
            .min_by_key(|(_, (l, u, ul, uu))| (!(*ul || *uu), l * u))
            .map(|(&v, &(_, _, ul, uu))| (v, ul || uu));
        let Some((v, exact)) = best else {
            return if undetermined { Tri::Maybe } else { Tri::Yes };
        };
        let (mut lowers, mut uppers, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for c in geqs {
            match c.coeff(v) {
                0 => rest.push(c),
                a if a > 0 => lowers.push(c),
                _ => uppers.push(c),
            }
        }
        let combine = |dark: bool| -> Option<Vec<Lin>> {
            let mut out = rest.clone();
            for lo in &lowers {
                for up in &uppers {
                    let a = lo.coeff(v);
                    let b = -up.coeff(v);
                    // b·lo + a·up eliminates v.
                    let mut c = lo.scale(b)?.add(&up.scale(a)?)?;
                    c.coeffs.remove(&v);
                    if dark {
                        let slack = (a - 1).checked_mul(b - 1)?;
                        c.konst = c.konst.sub(&Poly::constant(slack))?;
                    }
                    out.push(c);
                }
            }
            Some(out)
        };
        if exact {
            match combine(false) {
                Some(g) => geqs = g,
                None => return Tri::Maybe,
            }
            continue;
        }
        let Some(real) = combine(false) else {
            return Tri::Maybe;
        };
        if fourier_motzkin(real, undetermined, budget, depth + 1) == Tri::No {
            return Tri::No;
        }
        let Some(dark) = combine(true) else {
            return Tri::Maybe;
        };
        return match fourier_motzkin(dark, undetermined, budget, depth + 1) {
            Tri::Yes => Tri::Yes,
            _ => Tri::Maybe,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[(&str, i64)], c: i64) -> Poly {
        let mut out = Poly::constant(c);
        for (n, k) in s {
            out = out.add(&Poly::var(n).scale(*k).unwrap()).unwrap();
        }
        out
    }

    fn lin(cs: &[(Var, i64)], k: Poly) -> Lin {
        let mut l = Lin::constant(k);
        for &(v, c) in cs {
            l.coeffs.insert(v, c);
        }
        l
    }

    fn run(eqs: Vec<Lin>, geqs: Vec<Lin>, nvars: usize) -> Tri {
        let mut b = Budget(100_000);
        solve(System { eqs, geqs, nvars }, Lin::default(), &mut b).0
    }

    #[test]
    fn signs_for_large_parameters() {
        assert_eq!(sign(&p(&[("n", 1)], -5)), Sign::Pos);
        assert_eq!(sign(&p(&[("n", -1)], 5)), Sign::Neg);
        assert_eq!(sign(&p(&[("n", 1), ("m", -1)], 0)), Sign::Unknown);
        let nm = Poly::var("n").mul(&Poly::var("m")).unwrap();
        assert_eq!(sign(&nm.sub(&p(&[("n", 3)], 0)).unwrap()), Sign::Pos);
        assert_eq!(sign(&Poly::zero()), Sign::Zero);
        assert_eq!(sign(&Poly::constant(-1)), Sign::Neg);
    }

    #[test]
    fn gcd_test_and_unit_elimination() {
        // 2x - 2y - 1 = 0 has no integer solution.
        let e = lin(&[(0, 2), (1, -2)], Poly::constant(-1));
        assert_eq!(run(vec![e], vec![], 2), Tri::No);
        // 2x - y = 0, 0 ≤ x, y ≤ 9, y ≥ 1.
        let e = lin(&[(0, 2), (1, -1)], Poly::zero());
        let g = vec![
            lin(&[(0, 1)], Poly::zero()),
            lin(&[(1, -1)], Poly::constant(9)),
            lin(&[(1, 1)], Poly::constant(-1)),
        ];
        assert_eq!(run(vec![e], g, 2), Tri::Yes);
    }

    #[test]
    fn non_unit_equalities_use_the_mod_hat_step() {
        // 3x + 5y = 1 with 0 ≤ x, y ≤ 10: y ≥ 0 forces 3x ≤ 1, so x = 0 and 5y = 1: none.
        let e = lin(&[(0, 3), (1, 5)], Poly::constant(-1));
        let g = vec![
            lin(&[(0, 1)], Poly::zero()),
            lin(&[(0, -1)], Poly::constant(10)),
            lin(&[(1, 1)], Poly::zero()),
            lin(&[(1, -1)], Poly::constant(10)),
        ];
        assert_eq!(run(vec![e], g.clone(), 2), Tri::No);
        // 3x - 5y = 1: x = 2, y = 1.
        let e = lin(&[(0, 3), (1, -5)], Poly::constant(-1));
        assert_eq!(run(vec![e], g, 2), Tri::Yes);
    }

    #[test]
    fn symbolic_bounds() {
        // x - y = n with 0 ≤ x, y ≤ n - 1: infeasible.
        let e = lin(&[(0, 1), (1, -1)], p(&[("n", -1)], 0));
        let g = vec![
            lin(&[(0, 1)], Poly::zero()),
            lin(&[(0, -1)], p(&[("n", 1)], -1)),
            lin(&[(1, 1)], Poly::zero()),
            lin(&[(1, -1)], p(&[("n", 1)], -1)),
        ];
        assert_eq!(run(vec![e], g.clone(), 2), Tri::No);
        // x - y = 3: feasible once n ≥ 4.
        let e = lin(&[(0, 1), (1, -1)], Poly::constant(-3));
        assert_eq!(run(vec![e], g.clone(), 2), Tri::Yes);
        // x - y = m: depends on m < n.
        let e = lin(&[(0, 1), (1, -1)], p(&[("m", -1)], 0));
        assert_eq!(run(vec![e], g, 2), Tri::Maybe);
    }

    #[test]
    fn dark_shadow_decides_non_unit_inequalities() {
        // 4 ≤ 3x ≤ 5 has no integer x (the rounding of the constants finds it).
        let g = vec![
            lin(&[(0, 3)], Poly::constant(-4)),
            lin(&[(0, -3)], Poly::constant(5)),
        ];
        assert_eq!(run(vec![], g, 1), Tri::No);
        // 2x + 3y = 1 as two inequalities with 0 ≤ x, y ≤ 5: no non-negative solution, but the
        // real shadow has one (x = 1/2): not a proven dependence.
        let g = vec![
            lin(&[(0, 2), (1, 3)], Poly::constant(-1)),
            lin(&[(0, -2), (1, -3)], Poly::constant(1)),
            lin(&[(0, 1)], Poly::zero()),
            lin(&[(1, 1)], Poly::zero()),
            lin(&[(0, -1)], Poly::constant(5)),
            lin(&[(1, -1)], Poly::constant(5)),
        ];
        assert_ne!(run(vec![], g, 2), Tri::Yes);
    }

    #[test]
    fn tracked_difference_becomes_constant() {
        // a = b - 1 ⇒ b - a = 1.
        let e = lin(&[(0, 1), (1, -1)], Poly::constant(1));
        let t = lin(&[(1, 1), (0, -1)], Poly::zero());
        let mut b = Budget(1000);
        let (r, t) = solve(
            System {
                eqs: vec![e],
                geqs: vec![],
                nvars: 2,
            },
            t,
            &mut b,
        );
        assert_eq!(r, Tri::Yes);
        assert_eq!(t.konst.as_const(), Some(1));
        assert!(t.is_constant());
    }
}
