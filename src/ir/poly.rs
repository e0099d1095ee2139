//! Integer polynomials over named symbols (loop iterators and symbolic parameters).
//!
//! Access functions and loop bounds are polynomials of degree ≤ 1 in the iterators whose
//! coefficients may be symbolic: `r * cols + c` is `cols·r + 1·c`. That is the paper's
//! `F(I) = M·(I, params, 1)` with M allowed to hold parameters.

use std::collections::BTreeMap;
use std::fmt;

/// A monomial: the sorted list of symbols multiplied together (empty = the constant term).
pub type Monomial = Vec<String>;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Poly {
    terms: BTreeMap<Monomial, i64>,
}

impl Poly {
    pub fn zero() -> Poly {
        Poly::default()
    }

    pub fn constant(c: i64) -> Poly {
        let mut p = Poly::zero();
        if c != 0 {
            p.terms.insert(Vec::new(), c);
        }
        p
    }

    pub fn var(name: &str) -> Poly {
        let mut p = Poly::zero();
        p.terms.insert(vec![name.to_string()], 1);
        p
    }

    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, i64)> {
        self.terms.iter().map(|(m, c)| (m, *c))
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value if the polynomial is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    pub fn constant_term(&self) -> i64 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }

    /// Checked sum (None on overflow).
    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let mut out = self.clone();
        for (m, c) in &other.terms {
            let e = out.terms.entry(m.clone()).or_insert(0);
            *e = e.checked_add(*c)?;
            if *e == 0 {
                out.terms.remove(m);
            }
        }
        Some(out)
    }

    pub fn neg(&self) -> Option<Poly> {
        self.scale(-1)
    }

    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.neg()?)
    }

    pub fn scale(&self, k: i64) -> Option<Poly> {
        if k == 0 {
            return Some(Poly::zero());
        }
        let mut out = Poly::zero();
        for (m, c) in &self.terms {
            out.terms.insert(m.clone(), c.checked_mul(k)?);
        }
        Some(out)
    }

    /// Checked product; fails on overflow or when a monomial would exceed degree 4 (keeps sizes
    /// bounded whatever the input).
    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut m: Monomial = m1.iter().chain(m2.iter()).cloned().collect();
                if m.len() > 4 {
                    return None;
                }
                m.sort();
                let c = c1.checked_mul(*c2)?;
                let e = out.terms.entry(m.clone()).or_insert(0);
                *e = e.checked_add(c)?;
                if *e == 0 {
                    out.terms.remove(&m);
                }
            }
        }
        Some(out)
    }

    /// Exact division by a constant (None if some coefficient is not divisible).
    pub fn div_exact(&self, k: i64) -> Option<Poly> {
        if k == 0 {
            return None;
        }
        let mut out = Poly::zero();
        for (m, c) in &self.terms {
            if c % k != 0 {
                return None;
            }
            out.terms.insert(m.clone(), c / k);
        }
        Some(out)
    }

    /// All symbols that occur.
    pub fn symbols(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .terms
            .keys()
            .flat_map(|m| m.iter().map(|s| s.as_str()))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    pub fn mentions(&self, sym: &str) -> bool {
        self.terms.keys().any(|m| m.iter().any(|s| s == sym))
    }

    /// Splits into the coefficient of `sym` (degree 1) and the rest. None if `sym` occurs with
    /// degree > 1.
    pub fn split(&self, sym: &str) -> Option<(Poly, Poly)> {
        let mut coef = Poly::zero();
        let mut rest = Poly::zero();
        for (m, c) in &self.terms {
            let n = m.iter().filter(|s| *s == sym).count();
            match n {
                0 => {
                    rest.terms.insert(m.clone(), *c);
                }
                1 => {
                    let mm: Monomial = m.iter().filter(|s| *s != sym).cloned().collect();
                    coef.terms.insert(mm, *c);
                }
                _ => return None,
            }
        }
        Some((coef, rest))
    }

    /// Degree ≤ 1 in each of `iters` and no product of two of them.
    pub fn is_affine_in(&self, iters: &[String]) -> bool {
        self.terms
            .keys()
            .all(|m| m.iter().filter(|s| iters.contains(s)).count() <= 1)
    }

    /// Replaces a symbol by a polynomial.
    pub fn substitute(&self, sym: &str, by: &Poly) -> Option<Poly> {
        let mut out = Poly::zero();
        for (m, c) in &self.terms {
            let mut term = Poly::constant(*c);
            for s in m {
                let f = if s == sym { by.clone() } else { Poly::var(s) };
                term = term.mul(&f)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// C source text (symbols spelled as they are).
    pub fn to_c(&self) -> String {
        self.to_string()
    }

    /// C source text with each symbol spelled by `sym` (e.g. a region invariant as the host
    /// expression it stands for).
    pub fn to_c_with(&self, sym: &dyn Fn(&str) -> String) -> String {
        let mut out = String::new();
        let _ = self.write_with(&mut out, sym);
        out
    }

    fn write_with(&self, f: &mut dyn fmt::Write, sym: &dyn Fn(&str) -> String) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        // Non-constant terms first (in symbol order), the constant last: `i*n + j + 1`.
        let mut first = true;
        let constant = self.constant_term();
        for (m, c) in self.terms.iter().filter(|(m, _)| !m.is_empty()) {
            let (neg, abs) = (*c < 0, c.unsigned_abs());
            if first {
                if neg {
                    write!(f, "-")?;
                }
            } else {
                write!(f, " {} ", if neg { "-" } else { "+" })?;
            }
            first = false;
            if abs != 1 {
                write!(f, "{}*", abs)?;
            }
            let names: Vec<String> = m.iter().map(|x| sym(x)).collect();
            write!(f, "{}", names.join("*"))?;
        }
        if constant != 0 {
            if first {
                write!(f, "{}", constant)?;
            } else {
                write!(
                    f,
                    " {} {}",
                    if constant < 0 { "-" } else { "+" },
                    constant.unsigned_abs()
                )?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_with(f, &|x| x.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_display() {
        let r = Poly::var("r");
        let cols = Poly::var("cols");
        let c = Poly::var("c");
        let idx = r
            .mul(&cols)
            .unwrap()
            .add(&c)
            .unwrap()
            .add(&Poly::constant(-1))
            .unwrap();
        assert_eq!(idx.to_string(), "c + cols*r - 1");
        let (coef, rest) = idx.split("r").unwrap();
        assert_eq!(coef.to_string(), "cols");
        assert_eq!(rest.to_string(), "c - 1");
        assert!(idx.is_affine_in(&["r".into(), "c".into()]));
        let sq = r.mul(&r).unwrap();
        assert!(!sq.is_affine_in(&["r".into()]));
        assert_eq!(sq.split("r"), None);
        assert_eq!(
            Poly::constant(3)
                .sub(&Poly::constant(3))
                .unwrap()
                .as_const(),
            Some(0)
        );
        let s = idx
            .substitute("r", &Poly::var("i").add(&Poly::constant(1)).unwrap())
            .unwrap();
        assert_eq!(s.to_string(), "c + cols + cols*i - 1");
    }

    #[test]
    fn overflow_is_none() {
        let big = Poly::constant(i64::MAX);
        assert_eq!(big.add(&Poly::constant(1)), None);
        assert_eq!(big.scale(2), None);
    }
}
