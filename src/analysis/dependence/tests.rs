//! Hand-built regions: a small builder parses statements such as `A[i][j] = A[i-1][j] + s` into
//! the IR the lowering would produce (array accesses, scalar uses, spans into a C text).

use std::collections::BTreeMap;

use super::*;
use crate::diag::{render, Span};
use crate::ir::{
    Access, AccessKind, ArrayInfo, Bound, Loop, Poly, ScalarInfo, ScalarRef, Statement, StmtId,
    Target,
};
use crate::vocab::{BinOp, Scalar};

// ---------------------------------------------------------------------------------------------
// Polynomial parser: `i*n + j - 1`, `2*(i + 1)`.

struct PolyParser<'a> {
    toks: Vec<&'a str>,
    pos: usize,
}

fn tokenize(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(&s[st..i]);
        } else {
            out.push(&s[i..i + 1]);
            i += 1;
        }
    }
    out
}

impl<'a> PolyParser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.pos).copied()
    }
    fn expr(&mut self) -> Option<Poly> {
        let mut p = self.term()?;
        while let Some(op) = self.peek() {
            if op != "+" && op != "-" {
                break;
            }
            self.pos += 1;
            let t = self.term()?;
            p = if op == "+" { p.add(&t)? } else { p.sub(&t)? };
        }
        Some(p)
    }
    fn term(&mut self) -> Option<Poly> {
        let mut p = self.factor()?;
        while self.peek() == Some("*") {
            self.pos += 1;
            p = p.mul(&self.factor()?)?;
        }
        Some(p)
    }
    fn factor(&mut self) -> Option<Poly> {
        let t = self.peek()?;
        self.pos += 1;
        if t == "(" {
            let p = self.expr()?;
            (self.peek() == Some(")")).then_some(())?;
            self.pos += 1;
            Some(p)
        } else if t == "-" {
            self.factor()?.neg()
        } else if let Ok(v) = t.parse::<i64>() {
            Some(Poly::constant(v))
        } else if t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            Some(Poly::var(t))
        } else {
            None
        }
    }
}

/// `None` when not a polynomial (e.g. `idx[i]`).
fn poly(s: &str) -> Option<Poly> {
    let mut p = PolyParser {
        toks: tokenize(s),
        pos: 0,
    };
    let r = p.expr()?;
    (p.pos == p.toks.len()).then_some(r)
}

/// `s` as a bound of region `r`: affine where the little parser reads it so, else an expression
/// of `r` reading the words of `s`.
fn bound(r: &mut Region, s: &str) -> Bound {
    match poly(s) {
        Some(p) => Bound::Affine(p),
        None => Bound::NonAffine(
            r.exprs.append(
                crate::ir::Expr::Opaque {
                    span: Span::default(),
                    names: s
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| !w.is_empty())
                        .map(str::to_string)
                        .collect(),
                },
                crate::diag::Span::default(),
            ),
        ),
    }
}

/// A non-affine bound of `r` that reads variable `v`.
fn var_bound(r: &mut Region, v: &str) -> Bound {
    Bound::NonAffine(r.exprs.append(
        crate::ir::Expr::Var(v.to_string()),
        crate::diag::Span::default(),
    ))
}

// ---------------------------------------------------------------------------------------------
// Region builder.

/// A reference found in a statement's text.
enum Tok {
    Array {
        name: String,
        /// Subscript texts with their offsets.
        subs: Vec<(String, usize)>,
        lo: usize,
        hi: usize,
    },
    Scalar {
        name: String,
        lo: usize,
        hi: usize,
    },
}

struct B {
    r: Region,
    src: String,
    cursor: usize,
    cond: bool,
}

impl B {
    fn new() -> B {
        B::with_source("")
    }

    fn with_source(src: &str) -> B {
        B {
            r: Region {
                func: "f".into(),
                construct: Construct::Kernels,
                span: Span::default(),
                share: None,
                cache: Vec::new(),
                arrays: BTreeMap::new(),
                scalars: BTreeMap::new(),
                loops: Vec::new(),
                stmts: Vec::new(),
                accesses: Vec::new(),
                scalar_refs: Vec::new(),
                roots: Vec::new(),
                invariants: Vec::new(),
                exprs: crate::ir::Exprs::new(),
                code: Default::default(),
            },
            src: src.to_string(),
            cursor: 0,
            cond: false,
        }
    }

    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(0, lo, hi)
    }

    /// Finds `text` in the source after the cursor.
    fn locate(&mut self, text: &str) -> usize {
        match self.src[self.cursor..].find(text) {
            Some(p) => {
                let at = self.cursor + p;
                self.cursor = at;
                at
            }
            None => 0,
        }
    }

    fn lp(&mut self, parent: Option<LoopId>, var: &str, lo: &str, hi: &str) -> LoopId {
        self.lp_step(parent, var, lo, hi, 1)
    }

    fn lp_step(
        &mut self,
        parent: Option<LoopId>,
        var: &str,
        lo: &str,
        hi: &str,
        step: i64,
    ) -> LoopId {
        let id = LoopId(self.r.loops.len());
        let depth = parent.map_or(0, |p| self.r.loops[p].depth + 1);
        let mut header_span = Span::default();
        if let Some(p) = self.src[self.cursor..].find(&format!("for ({}", var)) {
            let at = self.cursor + p;
            let mut d = 0;
            let mut end = at;
            for (i, c) in self.src[at..].char_indices() {
                if c == '(' {
                    d += 1;
                } else if c == ')' {
                    d -= 1;
                    if d == 0 {
                        end = at + i + 1;
                        break;
                    }
                }
            }
            header_span = self.span(at, end);
            self.cursor = end;
        }
        let (lower, upper) = (bound(&mut self.r, lo), bound(&mut self.r, hi));
        self.r.loops.push(Loop {
            id,
            var: var.into(),
            ty: Scalar::Int,
            parent,
            depth,
            lower,
            upper,
            step,
            children: Vec::new(),
            perfect: false,
            prefix: None,
            marking: Marking::Auto,
            conditional: false,
            vector_len: None,
            workers: None,
            lanes_asked: false,
            collapse: 1,
            reductions: Vec::new(),
            inherited: Vec::new(),
            private: Vec::new(),
            firstprivate: Vec::new(),
            span: header_span,
            header_span,
        });
        match parent {
            Some(p) => self.r.loops[p].children.push(id),
            None => self.r.roots.push(id),
        }
        id
    }

    fn mark(&mut self, l: LoopId, m: Marking) {
        self.r.loops[l].marking = m;
    }

    fn local(&mut self, name: &str, l: Option<LoopId>) {
        self.r.scalars.insert(
            name.into(),
            ScalarInfo {
                name: name.into(),
                ty: Scalar::Float,
                decl_span: Span::default(),
                written: false,
                local: Some(l),
            },
        );
    }

    /// References in `text` (at source offset `base`), in evaluation order.
    fn scan(&self, text: &str, base: usize, out: &mut Vec<Tok>) {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i] as char;
            if c.is_ascii_digit() {
                while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            if !(c.is_ascii_alphabetic() || c == '_') {
                i += 1;
                continue;
            }
            let st = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let name = &text[st..i];
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if j < b.len() && b[j] == b'(' {
                continue; // a function name
            }
            if j < b.len() && b[j] == b'[' {
                let mut subs = Vec::new();
                let mut k = j;
                while k < b.len() && b[k] == b'[' {
                    let mut d = 0;
                    let open = k;
                    while k < b.len() {
                        if b[k] == b'[' {
                            d += 1;
                        } else if b[k] == b']' {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        k += 1;
                    }
                    subs.push((text[open + 1..k].to_string(), base + open + 1));
                    k += 1;
                }
                out.push(Tok::Array {
                    name: name.into(),
                    subs,
                    lo: base + st,
                    hi: base + k,
                });
                i = k;
            } else {
                out.push(Tok::Scalar {
                    name: name.into(),
                    lo: base + st,
                    hi: base + i,
                });
            }
        }
    }

    fn iters_of(&self, l: LoopId) -> Vec<String> {
        self.r.iter_names(&self.r.loop_path(l))
    }

    fn scalar_ref(&mut self, l: LoopId, name: &str, kind: AccessKind, sid: StmtId, span: Span) {
        if self.iters_of(l).iter().any(|v| v == name) {
            return;
        }
        let info = self.r.scalars.entry(name.into()).or_insert(ScalarInfo {
            name: name.into(),
            ty: Scalar::Float,
            decl_span: Span::default(),
            written: false,
            local: None,
        });
        if kind != AccessKind::Read {
            info.written = true;
        }
        self.r.scalar_refs.push(ScalarRef {
            name: name.into(),
            kind,
            stmt: Some(sid),
            loops: self.r.loop_path(l),
            conditional: self.cond,
            // Loop bodies by loop id; a conditional statement in a scope of its own.
            scopes: self
                .r
                .loop_path(l)
                .iter()
                .map(|&x| x.index() as u32)
                .chain(self.cond.then_some(10_000 + sid.index() as u32))
                .collect(),
            span,
        });
    }

    /// Records a reference (reads inside subscripts first); returns the access id for arrays.
    fn record(&mut self, l: LoopId, t: &Tok, kind: AccessKind, sid: StmtId) -> Option<AccessId> {
        match t {
            Tok::Scalar { name, lo, hi } => {
                let span = self.span(*lo, *hi);
                self.scalar_ref(l, name, kind, sid, span);
                None
            }
            Tok::Array { name, subs, lo, hi } => {
                let mut polys = Vec::new();
                for (s, off) in subs {
                    let mut inner = Vec::new();
                    self.scan(s, *off, &mut inner);
                    for it in &inner {
                        self.record(l, it, AccessKind::Read, sid);
                    }
                    let nonaffine = inner.iter().any(|t| matches!(t, Tok::Array { .. }));
                    polys.push(if nonaffine || s.trim() == "?" {
                        None
                    } else {
                        poly(s)
                    });
                }
                let id = AccessId(self.r.accesses.len());
                self.r.accesses.push(Access {
                    id,
                    array: name.clone(),
                    kind,
                    subscripts: polys,
                    loops: self.r.loop_path(l),
                    stmt: sid,
                    span: self.span(*lo, *hi),
                });
                let dims = subs.len();
                let info = self.r.arrays.entry(name.clone()).or_insert(ArrayInfo {
                    name: name.clone(),
                    elem: Scalar::Float,
                    extents: vec![None; dims],
                    is_const: false,
                    is_pointer: false,
                    decl_span: Span::default(),
                    written: false,
                    read: false,
                    record: None,
                });
                info.written |= kind != AccessKind::Read;
                info.read |= kind != AccessKind::Write;
                Some(id)
            }
        }
    }

    /// `target op= rhs` in loop `l`; the statement's reduction shape is derived from a compound
    /// operator, or given.
    fn stmt_red(&mut self, l: LoopId, text: &str, red: Option<RedOp>) -> StmtId {
        let base = if self.src.is_empty() {
            0
        } else {
            self.locate(text)
        };
        let sid = StmtId(self.r.stmts.len());
        // Split at the assignment operator.
        let b = text.as_bytes();
        let mut at = None;
        let mut depth = 0;
        for i in 0..b.len() {
            match b[i] {
                b'[' | b'(' => depth += 1,
                b']' | b')' => depth -= 1,
                b'=' if depth == 0
                    && b.get(i + 1) != Some(&b'=')
                    && (i == 0 || !b"=<>!".contains(&b[i - 1])) =>
                {
                    at = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let at = at.expect("an assignment");
        let (op, lhs_end) = match b[at - 1] {
            b'+' => (Some(BinOp::Add), at - 1),
            b'-' => (Some(BinOp::Sub), at - 1),
            b'*' => (Some(BinOp::Mul), at - 1),
            b'|' => (Some(BinOp::BitOr), at - 1),
            _ => (None, at),
        };
        let lhs_text = text[..lhs_end].trim_end();
        let mut rhs = Vec::new();
        self.scan(&text[at + 1..], base + at + 1, &mut rhs);
        for t in &rhs {
            self.record(l, t, AccessKind::Read, sid);
        }
        let mut lhs = Vec::new();
        self.scan(lhs_text, base, &mut lhs);
        let lhs = lhs.into_iter().next().expect("a target");
        let target = match &lhs {
            Tok::Scalar { name, lo, hi } => {
                let span = self.span(*lo, *hi);
                if op.is_some() {
                    self.scalar_ref(l, name, AccessKind::Read, sid, span);
                }
                self.scalar_ref(l, name, AccessKind::Write, sid, span);
                Target::Scalar(name.clone())
            }
            Tok::Array { .. } => {
                let kind = if op.is_some() {
                    AccessKind::ReadWrite
                } else {
                    AccessKind::Write
                };
                Target::Array(self.record(l, &lhs, kind, sid).unwrap_or(AccessId(0)))
            }
        };
        let reduction = red.or(match (op, &target) {
            (Some(BinOp::Add | BinOp::Sub), Target::Scalar(_)) => Some(RedOp::Add),
            (Some(BinOp::Mul), Target::Scalar(_)) => Some(RedOp::Mul),
            (Some(BinOp::BitOr), Target::Scalar(_)) => Some(RedOp::BitOr),
            _ => None,
        });
        self.r.stmts.push(Statement {
            id: sid,
            loops: self.r.loop_path(l),
            conditional: self.cond,
            span: self.span(base, base + text.len()),
            target,
            op,
            reduction,
            atomic: None,
        });
        sid
    }

    fn stmt(&mut self, l: LoopId, text: &str) -> StmtId {
        self.stmt_red(l, text, None)
    }

    /// The access ids of statement `s`, in order.
    fn accs(&self, s: StmtId) -> Vec<AccessId> {
        self.r
            .accesses
            .iter()
            .filter(|a| a.stmt == s)
            .map(|a| a.id)
            .collect()
    }
}

fn verdict(r: &Region, l: LoopId) -> Verdict {
    analyze(r).loops[l].verdict.clone()
}

fn is_indep(r: &Region, l: LoopId) -> bool {
    verdict(r, l) == Verdict::Independent
}

fn witnesses(r: &Region, l: LoopId) -> Vec<Witness> {
    match verdict(r, l) {
        Verdict::Carried(w) => w,
        v => panic!("loop {} is not carried: {:?}", l, v),
    }
}

fn is_unknown(r: &Region, l: LoopId) -> bool {
    matches!(verdict(r, l), Verdict::Unknown(_))
}

fn arr(a: AccessId) -> Ref {
    Ref::Array(a)
}

// ---------------------------------------------------------------------------------------------
// Array dependences.

#[test]
fn gemm_parallel_on_i_and_j_reduction_on_k() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "ni");
    let j = b.lp(Some(i), "j", "0", "nj");
    b.stmt(j, "C[i][j] *= beta");
    let k = b.lp(Some(j), "k", "0", "nk");
    let s = b.stmt(k, "C[i][j] += alpha * A[i][k] * B[k][j]");
    assert!(is_indep(&b.r, i));
    assert!(is_indep(&b.r, j));
    let c = *b.accs(s).last().unwrap();
    let w = witnesses(&b.r, k);
    assert_eq!(
        w[0],
        Witness {
            src: arr(c),
            dst: arr(c),
            kind: DepKind::Flow,
            distance: None
        }
    );
    let deps = analyze(&b.r);
    assert!(is_parallel(&deps, &b.r, i));
    assert!(is_parallel(&deps, &b.r, j));
    assert!(!is_parallel(&deps, &b.r, k));
}

#[test]
fn gemm_with_a_scalar_accumulator() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "sum = 0");
    let k = b.lp(Some(j), "k", "0", "n");
    b.stmt(k, "sum += A[i][k] * B[k][j]");
    b.stmt(j, "C[i][j] = sum");
    let deps = analyze(&b.r);
    for l in [i, j] {
        assert_eq!(deps.loops[l].verdict, Verdict::Independent);
        assert_eq!(deps.loops[l].privatized, vec!["sum".to_string()]);
        assert!(deps.loops[l].reductions.is_empty());
    }
    assert_eq!(deps.loops[k].verdict, Verdict::Independent);
    assert_eq!(
        deps.loops[k].reductions,
        vec![(RedOp::Add, "sum".to_string())]
    );
    assert!(is_parallel(&deps, &b.r, k));
}

const MVT: &str = "void mvt(int N, float x1[N], float A[N][N], float y_1[N])
{
    int i, j;
#pragma acc kernels
    {
#pragma acc loop independent
    for (i = 0; i < N; i++) {
#pragma acc loop independent
        for (j = 0; j < N; j++)
            x1[i] = x1[i] + A[i][j] * y_1[j];
    }
    }
}
";

/// Rendered text without the trailing spaces codespan leaves after some labels.
fn trim_lines(s: &str) -> String {
    s.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

fn sources(name: &str, text: &str) -> SourceMap {
    let mut sm = SourceMap::new();
    sm.add(name, name.into(), text.to_string());
    sm
}

#[test]
fn mvt_wrong_independent_claim_is_an_error() {
    let mut b = B::with_source(MVT);
    let i = b.lp(None, "i", "0", "N");
    let j = b.lp(Some(i), "j", "0", "N");
    b.mark(i, Marking::Independent);
    b.mark(j, Marking::Independent);
    b.stmt(j, "x1[i] = x1[i] + A[i][j] * y_1[j]");
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    let diags = check_claims(&b.r, &deps, Some(&sources("mvt.c", MVT)));
    assert_eq!(diags.len(), 1);
    let text = render(&sources("mvt.c", MVT), &diags);
    let expected = "\
error: loop `j` is marked independent but carries a dependence
   ┌─ mvt.c:9:9
   │
 9 │         for (j = 0; j < N; j++)
   │         ^^^^^^^^^^^^^^^^^^^^^^^ iterations of `j` are not independent
10 │             x1[i] = x1[i] + A[i][j] * y_1[j];
   │             -----   ----- ... and read in every iteration of `j`
   │             │
   │             `x1[i]` is written in every iteration of `j` ...
   │
   = help: remove `independent` to run `j` sequentially in each thread, or declare `reduction(+:…)` for a scalar accumulator

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
    // Without sources the IR form of the references is used.
    let plain = check_claims(&b.r, &deps, None);
    assert_eq!(
        plain[0].labels[1].message,
        "`x1[i]` is written in every iteration of `j` ..."
    );
    // An independent `i` (verdict Independent) and `j` is not parallel in auto mode.
    b.mark(j, Marking::Auto);
    assert!(check_claims(&b.r, &deps, None).is_empty());
    assert!(!is_parallel(&deps, &b.r, j));
    assert!(is_parallel(&deps, &b.r, i));
}

#[test]
fn jacobi_with_separate_arrays_is_independent() {
    let mut b = B::new();
    let i = b.lp(None, "i", "1", "n - 1");
    let j = b.lp(Some(i), "j", "1", "n - 1");
    b.stmt(
        j,
        "B[i][j] = 0.2f * (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1])",
    );
    assert!(is_indep(&b.r, i));
    assert!(is_indep(&b.r, j));
}

#[test]
fn gauss_seidel_in_place_carries_on_both_loops() {
    let mut b = B::new();
    let i = b.lp(None, "i", "1", "n");
    let j = b.lp(Some(i), "j", "1", "n");
    let s = b.stmt(j, "A[i][j] = A[i-1][j] + A[i][j-1]");
    let a = b.accs(s); // [A[i-1][j], A[i][j-1], A[i][j]]
    let wi = witnesses(&b.r, i);
    assert_eq!(
        wi,
        vec![Witness {
            src: arr(a[2]),
            dst: arr(a[0]),
            kind: DepKind::Flow,
            distance: Some(1)
        }]
    );
    let wj = witnesses(&b.r, j);
    assert_eq!(
        wj,
        vec![Witness {
            src: arr(a[2]),
            dst: arr(a[1]),
            kind: DepKind::Flow,
            distance: Some(1)
        }]
    );
}

#[test]
fn transposes() {
    // Out of place.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "m");
    b.stmt(j, "B[i][j] = A[j][i]");
    assert!(is_indep(&b.r, i) && is_indep(&b.r, j));
    // In place over the whole square: (i, j) and (j, i) touch the same elements.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "A[i][j] = A[j][i]");
    assert!(!witnesses(&b.r, i).is_empty());
    // For a fixed `i`, iteration `j` writes row `i` and reads column `i`: they meet only at
    // A[i][i], in iteration j = i.
    assert!(is_indep(&b.r, j));
}

#[test]
fn triangular_in_place_copies() {
    // j ≥ i: A[i][j] is on or above the diagonal, A[j][i] on or below; they meet only on the
    // diagonal, in the same iteration: no dependence is carried.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "i", "n");
    b.stmt(j, "A[i][j] = A[j][i]");
    assert!(is_indep(&b.r, i));
    assert!(is_indep(&b.r, j));
    // The swap of the strict upper and lower triangles: each pair is touched once.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "i + 1", "n");
    b.local("t", Some(j));
    b.stmt(j, "t = A[i][j]");
    b.stmt(j, "A[i][j] = A[j][i]");
    b.stmt(j, "A[j][i] = t");
    assert!(is_indep(&b.r, i));
    assert!(is_indep(&b.r, j));
    // But j ≥ i - 1 lets iteration i read A[i][i-1], written by iteration i - 1 as A[j][i]…
    let mut b = B::new();
    let i = b.lp(None, "i", "1", "n");
    let j = b.lp(Some(i), "j", "i - 1", "n");
    b.stmt(j, "A[i][j] = A[j][i]");
    assert_eq!(witnesses(&b.r, i)[0].distance, Some(1));
}

#[test]
fn flat_pointer_row_major_is_delinearised() {
    let mut b = B::new();
    let r = b.lp(None, "r", "0", "rows");
    let c = b.lp(Some(r), "c", "0", "cols");
    b.stmt(c, "out[r*cols + c] = in[r*cols + c]");
    assert!(is_indep(&b.r, r));
    assert!(is_indep(&b.r, c));
    // In place with a shift: the last column of a row feeds the first of the next.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    let s = b.stmt(j, "A[i*n + j] = A[i*n + j - 1]");
    let a = b.accs(s);
    let w = witnesses(&b.r, i);
    assert_eq!(
        w,
        vec![Witness {
            src: arr(a[1]),
            dst: arr(a[0]),
            kind: DepKind::Flow,
            distance: Some(1)
        }]
    );
    assert_eq!(witnesses(&b.r, j)[0].distance, Some(1));
    // Rows of `(i + 1)*n` against `i*n`: distance one row.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "A[(i+1)*n + j] = A[i*n + j]");
    assert_eq!(witnesses(&b.r, i)[0].distance, Some(1));
    assert!(is_indep(&b.r, j));
    // Three dimensions linearised.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "l");
    let j = b.lp(Some(i), "j", "0", "n");
    let k = b.lp(Some(j), "k", "0", "m");
    b.stmt(k, "A[i*n*m + j*m + k] = 2 * B[i*n*m + j*m + k]");
    assert!(is_indep(&b.r, i) && is_indep(&b.r, j) && is_indep(&b.r, k));
}

#[test]
fn symbolic_coefficients_that_bounds_do_not_tame_are_unknown() {
    // The row length `m` is not the bound of `j`.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "A[i*m + j] = 1");
    assert!(is_unknown(&b.r, i));
    // Same parameter on both sides of an outer iterator: it cancels.
    assert!(is_indep(&b.r, j));
}

#[test]
fn gcd_test() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[2*i] = a[2*i + 1]");
    assert!(is_indep(&b.r, i));
    // a[2i] against a[i]: a real dependence (a[2k] written at k, read at 2k).
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[2*i] = a[i]");
    assert!(!witnesses(&b.r, i).is_empty());
    // MIV: 2i + 4j (even) and 2i + 4j + 1 (odd) never meet; the write meets itself across
    // iterations of `i` (a[4] at (0, 1) and (2, 0)) but not of `j`.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "a[2*i + 4*j] = a[2*i + 4*j + 1]");
    assert!(is_indep(&b.r, j));
    let w = witnesses(&b.r, i);
    assert!(w
        .iter()
        .all(|w| w.kind == DepKind::Output && w.src == w.dst));
}

#[test]
fn bounds_make_symbolic_offsets_independent() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[i] = a[i + n]");
    assert!(is_indep(&b.r, i));
    // A constant offset: a dependence of distance 5 (read first, then overwritten).
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let s = b.stmt(i, "a[i] = a[i + 5]");
    let a = b.accs(s);
    assert_eq!(
        witnesses(&b.r, i),
        vec![Witness {
            src: arr(a[0]),
            dst: arr(a[1]),
            kind: DepKind::Anti,
            distance: Some(5)
        }]
    );
    // A constant trip count smaller than the distance.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "4");
    b.stmt(i, "a[i] = a[i + 4]");
    assert!(is_indep(&b.r, i));
    // Whether `m < n` is not known.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[i] = a[i + m]");
    assert!(is_unknown(&b.r, i));
}

#[test]
fn ziv_and_siv_cases() {
    // ZIV: the first dimension differs by a constant.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "A[0][i] = A[1][i]");
    assert!(is_indep(&b.r, i));
    // Same element in every iteration: an output dependence of the write with itself.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let s = b.stmt(i, "a[0] = b[i]");
    let a = b.accs(s);
    assert_eq!(witnesses(&b.r, i)[0].kind, DepKind::Output);
    assert_eq!(witnesses(&b.r, i)[0].src, arr(a[1]));
    // Weak-zero SIV: a[0] is written by iteration 0 and read by the later ones.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let s = b.stmt(i, "a[i] = a[0]");
    let a = b.accs(s);
    assert_eq!(
        witnesses(&b.r, i),
        vec![Witness {
            src: arr(a[1]),
            dst: arr(a[0]),
            kind: DepKind::Flow,
            distance: None
        }]
    );
    // Weak-crossing SIV: a[i] and a[n-1-i] meet across the middle.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[i] = a[n - 1 - i]");
    let kinds: Vec<DepKind> = witnesses(&b.r, i).iter().map(|w| w.kind).collect();
    assert_eq!(kinds, vec![DepKind::Flow, DepKind::Anti]);
    // Strong SIV with the step of a descending loop: read first, then written.
    let mut b = B::new();
    let i = b.lp_step(None, "i", "n - 1", "0", -1);
    let s = b.stmt(i, "a[i] = a[i - 1]");
    let a = b.accs(s);
    assert_eq!(
        witnesses(&b.r, i),
        vec![Witness {
            src: arr(a[0]),
            dst: arr(a[1]),
            kind: DepKind::Anti,
            distance: Some(1)
        }]
    );
}

#[test]
fn banerjee_bounds_and_steps() {
    // 20·Δi + Δj = 10 with 0 ≤ j < 10: impossible.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "10");
    b.stmt(j, "a[20*i + j] = a[20*i + j + 10]");
    assert!(is_indep(&b.r, i));
    assert!(is_indep(&b.r, j));
    // With 0 ≤ j < 20 it happens.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "20");
    b.stmt(j, "a[20*i + j] = a[20*i + j + 10]");
    assert!(!witnesses(&b.r, i).is_empty());
    // Step 2: a[i] is even, a[i + 1] odd.
    let mut b = B::new();
    let i = b.lp_step(None, "i", "0", "n", 2);
    b.stmt(i, "a[i + 1] = a[i]");
    assert!(is_indep(&b.r, i));
    // Step 2 and an offset of 2: distance one iteration.
    let mut b = B::new();
    let i = b.lp_step(None, "i", "0", "n", 2);
    b.stmt(i, "a[i + 2] = a[i]");
    assert_eq!(witnesses(&b.r, i)[0].distance, Some(1));
    // a[i + j] over i: many iterations write each element.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "a[i + j] = 0");
    assert_eq!(witnesses(&b.r, i)[0].kind, DepKind::Output);
}

#[test]
fn non_affine_subscripts_are_unknown() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[idx[i]] = b[i]");
    match verdict(&b.r, i) {
        Verdict::Unknown(why) => assert!(why.contains("a[?]"), "{}", why),
        v => panic!("{:?}", v),
    }
    // An affine dimension can still separate the iterations.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "n");
    b.stmt(j, "A[i][idx[j]] = 1");
    assert!(is_indep(&b.r, i));
    assert!(is_unknown(&b.r, j));
    // Unknown under an `independent` claim is trusted: no diagnostic.
    b.mark(j, Marking::Independent);
    let deps = analyze(&b.r);
    assert!(check_claims(&b.r, &deps, None).is_empty());
    assert!(is_parallel(&deps, &b.r, j));
}

#[test]
fn conditional_references_are_not_proven_dependences() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.cond = true;
    b.stmt(i, "b[0] = a[i]");
    assert!(is_unknown(&b.r, i));
    // Non-affine bounds of an inner loop: the access may not run.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "rowptr[i]", "rowptr[i + 1]");
    b.stmt(j, "y[0] += v[j]");
    assert!(is_unknown(&b.r, i));
}

// ---------------------------------------------------------------------------------------------
// Scalars.

#[test]
fn scalar_reductions() {
    for (text, red) in [
        ("s += a[i]", None),
        ("s -= a[i]", None),
        ("s = s + a[i]", Some(RedOp::Add)),
    ] {
        let mut b = B::new();
        let i = b.lp(None, "i", "0", "n");
        b.stmt_red(i, text, red);
        let deps = analyze(&b.r);
        assert_eq!(deps.loops[i].verdict, Verdict::Independent, "{}", text);
        assert_eq!(
            deps.loops[i].reductions,
            vec![(RedOp::Add, "s".to_string())]
        );
    }
    // Read outside its updates: not a reduction.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "s += a[i]");
    b.stmt(i, "b[i] = s");
    assert!(!witnesses(&b.r, i).is_empty());
    // Mixed operators: not a reduction.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "s += a[i]");
    b.stmt(i, "s *= 2");
    assert!(!witnesses(&b.r, i).is_empty());
}

#[test]
fn declared_max_reduction_over_a_collapsed_nest() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "m");
    b.mark(i, Marking::Independent);
    b.mark(j, Marking::Independent);
    b.r.loops[i].collapse = 2;
    b.r.loops[i].reductions = vec![(RedOp::Max, "err".into())];
    // Shape not recognised (no `reduction` field): the clause is what counts.
    b.stmt(j, "err = fmaxf(err, fabsf(a[i][j] - b[i][j]))");
    let deps = analyze(&b.r);
    for l in [i, j] {
        assert_eq!(deps.loops[l].verdict, Verdict::Independent);
        assert_eq!(
            deps.loops[l].reductions,
            vec![(RedOp::Max, "err".to_string())]
        );
    }
    assert!(check_claims(&b.r, &deps, None).is_empty());
    // Recognised from its shape without a clause.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt_red(i, "m = fmaxf(m, a[i])", Some(RedOp::Max));
    assert_eq!(
        analyze(&b.r).loops[i].reductions,
        vec![(RedOp::Max, "m".to_string())]
    );
}

#[test]
fn privatisable_temporaries() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "t = a[i]");
    b.stmt(i, "b[i] = t * t");
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert_eq!(deps.loops[i].privatized, vec!["t".to_string()]);
    // Declared in the body: private without being listed.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.local("t", Some(i));
    b.stmt(i, "t = a[i]");
    b.stmt(i, "b[i] = t * t");
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert!(deps.loops[i].privatized.is_empty());
    // Written only under a condition, then read: the value may come from another iteration.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.cond = true;
    b.stmt(i, "t = a[i]");
    b.cond = false;
    b.stmt(i, "b[i] = t");
    assert_eq!(witnesses(&b.r, i)[0].kind, DepKind::Flow);
    // `private(t)` is honoured.
    b.r.loops[i].private.push("t".into());
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert_eq!(deps.loops[i].privatized, vec!["t".to_string()]);
}

#[test]
fn scalar_recurrence_is_carried() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "s = s * 2 + a[i]");
    b.stmt(i, "b[i] = s");
    let w = witnesses(&b.r, i);
    // Scalar uses in order: read `s` (0), write `s` (1), read `s` (2). The read of the next
    // iteration sees the write of this one.
    assert_eq!(
        w,
        vec![Witness {
            src: Ref::Scalar(1),
            dst: Ref::Scalar(0),
            kind: DepKind::Flow,
            distance: Some(1)
        }]
    );
}

const REC: &str = "void f(int n, float *a, float *b)
{
    float s = 0;
#pragma acc kernels loop independent
    for (i = 0; i < n; i++) {
        s = s * 2 + a[i];
        b[i] = s;
    }
}
";

#[test]
fn scalar_recurrence_under_independent_is_an_error() {
    let mut b = B::with_source(REC);
    let i = b.lp(None, "i", "0", "n");
    b.mark(i, Marking::Independent);
    b.stmt(i, "s = s * 2 + a[i]");
    b.stmt(i, "b[i] = s");
    let deps = analyze(&b.r);
    let sm = sources("rec.c", REC);
    let text = render(&sm, &check_claims(&b.r, &deps, Some(&sm)));
    let expected = "\
error: loop `i` is marked independent but carries a dependence
  ┌─ rec.c:5:5
  │
5 │     for (i = 0; i < n; i++) {
  │     ^^^^^^^^^^^^^^^^^^^^^^^ iterations of `i` are not independent
6 │         s = s * 2 + a[i];
  │         -   - ... and read in the next iteration
  │         │
  │         `s` is written in an iteration of `i` ...
  │
  = note: each iteration reads the value of `s` that the previous iteration wrote
  = help: remove `independent` to run `i` sequentially in each thread, or declare `s` inside the loop if each iteration computes its own value

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
}

#[test]
fn reduction_clause_warnings() {
    let src = "for (i = 0; i < n; i++) { s += a[i]; b[i] = s; }";
    let mut b = B::with_source(src);
    let i = b.lp(None, "i", "0", "n");
    b.r.loops[i].reductions = vec![(RedOp::Add, "s".into())];
    b.stmt(i, "s += a[i]");
    b.stmt(i, "b[i] = s");
    let deps = analyze(&b.r);
    // Honoured: the loop is independent with the reduction.
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert_eq!(
        deps.loops[i].reductions,
        vec![(RedOp::Add, "s".to_string())]
    );
    let sm = sources("r.c", src);
    let text = render(&sm, &check_claims(&b.r, &deps, Some(&sm)));
    let expected = "\
warning: `s` is a reduction variable of loop `i` but is also read in it
  ┌─ r.c:1:45
  │
1 │ for (i = 0; i < n; i++) { s += a[i]; b[i] = s; }
  │                                             ^ this reads the partial value of one thread, not the final value
  │
  = help: use `s` only in its updates inside the loop

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
    // A `*` update under `reduction(+:…)`.
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.r.loops[i].reductions = vec![(RedOp::Add, "s".into())];
    b.stmt(i, "s *= a[i]");
    let d = check_claims(&b.r, &analyze(&b.r), None);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "`s` is declared `reduction(+:s)` but is assigned differently here"
    );
}

/// Records a use of a scalar that no statement holds (a bound read, the write of an `if`/`else`),
/// in the given loops and scopes.
fn push_use(b: &mut B, name: &str, kind: AccessKind, loops: Vec<LoopId>, scopes: Vec<u32>) {
    b.r.scalar_refs.push(ScalarRef {
        name: name.into(),
        kind,
        stmt: None,
        conditional: scopes.len() > loops.len(),
        loops,
        scopes,
        span: Span::default(),
    });
}

#[test]
fn scalar_used_in_an_inner_bound_is_unknown() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    let j = b.lp(Some(i), "j", "0", "len");
    // The bound of `j` reads `len` (as the IR lowering records it, before the loop) ...
    push_use(
        &mut b,
        "len",
        AccessKind::Read,
        vec![i],
        vec![i.index() as u32],
    );
    b.stmt(j, "c[i][j] = 0");
    // ... before the iteration assigns it: the previous iteration's value.
    b.stmt(i, "len = a[i]");
    b.r.loops[j].upper = var_bound(&mut b.r, "len");
    let deps = analyze(&b.r);
    assert!(
        matches!(deps.loops[i].verdict, Verdict::Carried(_)),
        "{:?}",
        deps.loops[i]
    );
}

/// NPB CG's sparse product: the row bounds are scalars of the function assigned at the top of
/// each row's iteration and then used as the inner loop's bounds: private to each iteration.
#[test]
fn scalar_assigned_before_an_inner_bound_is_private() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "lo = a[i]");
    push_use(
        &mut b,
        "lo",
        AccessKind::Read,
        vec![i],
        vec![i.index() as u32],
    );
    let j = b.lp(Some(i), "j", "0", "m");
    b.r.loops[j].lower = var_bound(&mut b.r, "lo");
    b.stmt(j, "c[i][j] = 0");
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert_eq!(deps.loops[i].privatized, vec!["lo".to_string()]);
}

/// A temporary written under a condition and read under the same condition later in the same
/// iteration (NPB EP's `t` in its Gaussian-pair test) is private; one written in one branch and
/// read in the other is not.
#[test]
fn scalar_written_and_read_under_one_condition_is_private() {
    let mut b = B::new();
    let k = b.lp(None, "k", "0", "n");
    let i = b.lp(Some(k), "i", "0", "4");
    for kind in [AccessKind::Write, AccessKind::Read] {
        push_use(
            &mut b,
            "t",
            kind,
            vec![k, i],
            vec![k.index() as u32, i.index() as u32, 7],
        );
    }
    b.r.scalars.insert(
        "t".into(),
        crate::ir::ScalarInfo {
            name: "t".into(),
            ty: Scalar::Float,
            decl_span: Span::default(),
            written: true,
            local: None,
        },
    );
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[k].privatized, vec!["t".to_string()]);
    assert_eq!(deps.loops[k].verdict, Verdict::Independent);
    // The read in the other branch (a scope of its own) sees an older value.
    b.r.scalar_refs[1].scopes = vec![k.index() as u32, i.index() as u32, 8];
    let deps = analyze(&b.r);
    assert!(matches!(deps.loops[k].verdict, Verdict::Carried(_)));
}

#[test]
fn trmv_row_sum_with_a_local_accumulator() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.local("s", Some(i));
    b.stmt(i, "s = 0");
    let j = b.lp(Some(i), "j", "0", "i + 1");
    b.stmt(j, "s += L[i][j] * x[j]");
    b.stmt(i, "y[i] = s");
    let deps = analyze(&b.r);
    assert_eq!(deps.loops[i].verdict, Verdict::Independent);
    assert!(deps.loops[i].privatized.is_empty());
    assert_eq!(deps.loops[j].verdict, Verdict::Independent);
    assert_eq!(
        deps.loops[j].reductions,
        vec![(RedOp::Add, "s".to_string())]
    );
}

#[test]
fn serial_and_seq_loops_are_not_parallel() {
    let mut b = B::new();
    let i = b.lp(None, "i", "0", "n");
    b.stmt(i, "a[i] = 0");
    let deps = analyze(&b.r);
    assert!(is_parallel(&deps, &b.r, i));
    b.mark(i, Marking::Seq);
    assert!(!is_parallel(&deps, &b.r, i));
    b.mark(i, Marking::Auto);
    b.r.construct = Construct::Serial;
    assert!(!is_parallel(&deps, &b.r, i));
}

// ---------------------------------------------------------------------------------------------
// Through the real front end and IR lowering.

fn lowered(src: &str) -> (SourceMap, Vec<Region>) {
    let mut sm = SourceMap::new();
    let id = sm.add("t.c", "t.c".into(), src.to_string());
    let mut diags = crate::diag::Diags::new();
    let parsed = crate::front::load_source(
        id,
        &crate::front::preprocess::PpOptions::default(),
        &mut sm,
        &mut diags,
    );
    let regions = crate::ir::lower::find_regions(&parsed.tu, &sm, &mut diags);
    assert!(!diags.has_errors(), "{}", render(&sm, &diags.0));
    (sm, regions.compute.into_iter().map(|r| r.ir).collect())
}

#[test]
fn reduction_shapes_from_c() {
    let src = "void f(int n, float *a, float *b) {
    float s = 0, p = 1, m = 0, r = 0, q = 0;
#pragma acc kernels
    for (int i = 0; i < n; i++) s = s + a[i] * 2;
#pragma acc kernels
    for (int i = 0; i < n; i++) p = a[i] * p;
#pragma acc kernels
    for (int i = 0; i < n; i++) m = fmaxf(a[i], m);
#pragma acc kernels
    for (int i = 0; i < n; i++) r = a[i] - r;
#pragma acc kernels
    for (int i = 0; i < n; i++) q = q - a[i] + b[i];
#pragma acc kernels
    for (int i = 0; i < n; i++) s = s * 2 + a[i];
}
";
    let (_, rs) = lowered(src);
    let reds: Vec<Vec<(RedOp, String)>> = rs
        .iter()
        .map(|r| analyze(r).loops[0].reductions.clone())
        .collect();
    assert_eq!(
        reds,
        vec![
            vec![(RedOp::Add, "s".to_string())],
            vec![(RedOp::Mul, "p".to_string())],
            vec![(RedOp::Max, "m".to_string())],
            vec![],
            vec![(RedOp::Add, "q".to_string())],
            vec![],
        ]
    );
    assert!(matches!(verdict(&rs[3], LoopId(0)), Verdict::Carried(_)));
    assert!(matches!(verdict(&rs[5], LoopId(0)), Verdict::Carried(_)));
}

#[test]
fn parallel_construct_claims_from_c() {
    // `parallel loop` without `independent`: independent by OpenACC's default, so a proven
    // dependence is a warning and the loop runs sequentially; written out, it is an error.
    let implicit = "void f(int n, float A[n][n]) {
#pragma acc parallel loop
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = A[i - 1][j];
}
";
    let (sm, rs) = lowered(implicit);
    let deps = analyze(&rs[0]);
    let text = render(&sm, &check_claims(&rs[0], &deps, Some(&sm)));
    let expected = "\
warning: loop `i` carries a dependence: this loop nest runs on one work-item
  ┌─ t.c:3:5
  │
3 │     for (int i = 1; i < n; i++)
  │     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ iterations of `i` are not independent
4 │         for (int j = 0; j < n; j++)
5 │             A[i][j] = A[i - 1][j];
  │             -------   ----------- ... and read in the next iteration
  │             │
  │             `A[i][j]` is written in an iteration of `i` ...
  │
  = note: a `loop` directive in a `parallel` construct is independent by default; accshare proved it is not, and runs it in order so that the program computes what its sequential version computes
  = help: mark `i` `seq` to say so; to use the device, make the parallel loop the outer one, or run `i` on the host around the region

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
    assert_eq!(rs[0].loops[LoopId(0)].marking, Marking::Implicit);
    // The inner loop without a directive runs sequentially in each thread.
    assert_eq!(rs[0].loops[LoopId(1)].marking, Marking::Seq);
    assert!(!is_parallel(&deps, &rs[0], LoopId(0)));
    assert!(!is_parallel(&deps, &rs[0], LoopId(1)));

    let explicit = implicit.replace("parallel loop", "parallel loop independent");
    let (sm, rs) = lowered(&explicit);
    let deps = analyze(&rs[0]);
    let text = render(&sm, &check_claims(&rs[0], &deps, Some(&sm)));
    let expected = "\
error: loop `i` is marked independent but carries a dependence
  ┌─ t.c:3:5
  │
3 │     for (int i = 1; i < n; i++)
  │     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ iterations of `i` are not independent
4 │         for (int j = 0; j < n; j++)
5 │             A[i][j] = A[i - 1][j];
  │             -------   ----------- ... and read in the next iteration
  │             │
  │             `A[i][j]` is written in an iteration of `i` ...
  │
  = note: the loops of a `parallel` construct are independent unless marked `seq`
  = help: mark the loop `seq` to run `i` sequentially in each thread

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
    assert!(is_parallel(&deps, &rs[0], LoopId(0)));

    // In a `serial` construct the loop runs in order whatever it claims: a warning.
    let serial = implicit.replace("parallel loop", "serial loop independent");
    let (sm, rs) = lowered(&serial);
    let deps = analyze(&rs[0]);
    let text = render(&sm, &check_claims(&rs[0], &deps, Some(&sm)));
    let expected = "\
warning: loop `i` is marked independent but carries a dependence; in a `serial` construct it runs in order
  ┌─ t.c:3:5
  │
3 │     for (int i = 1; i < n; i++)
  │     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ iterations of `i` are not independent
4 │         for (int j = 0; j < n; j++)
5 │             A[i][j] = A[i - 1][j];
  │             -------   ----------- ... and read in the next iteration
  │             │
  │             `A[i][j]` is written in an iteration of `i` ...
  │
  = help: remove `independent` to run `i` sequentially in each thread, or declare `reduction(+:…)` for a scalar accumulator
  = note: a `serial` construct runs on one gang, one worker and one vector lane: the claim does not change what the program computes here, but it would in a `parallel` one

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);
    assert!(!is_parallel(&deps, &rs[0], LoopId(0)));
}

/// The examples and the corpus are correct programs: no claim is refuted, and the verdicts of
/// a few loops are known.
#[test]
fn examples_and_corpus() {
    use crate::front::preprocess::PpOptions;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = ["examples", "tests/corpus"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(files.len() > 20);
    let mut summary = String::new();
    for f in &files {
        let mut sm = SourceMap::new();
        let mut diags = crate::diag::Diags::new();
        let parsed = crate::front::load(f, &PpOptions::default(), &mut sm, &mut diags).unwrap();
        let regions = crate::ir::lower::find_regions(&parsed.tu, &sm, &mut diags);
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for r in &regions.compute {
            let deps = analyze(&r.ir);
            // Warnings are allowed (loops of `parallel` constructs that carry a dependence run
            // in order); a refuted `independent` claim is not.
            let claims: Vec<_> = check_claims(&r.ir, &deps, Some(&sm))
                .into_iter()
                .filter(|d| d.severity == crate::diag::Severity::Error)
                .collect();
            assert!(claims.is_empty(), "{}", render(&sm, &claims));
            for lp in &r.ir.loops {
                let d = &deps.loops[lp.id];
                let v = match &d.verdict {
                    Verdict::Independent => "indep",
                    Verdict::Carried(_) => "carried",
                    Verdict::Unknown(_) => "unknown",
                };
                summary.push_str(&format!(
                    "{} {} {} {:?} {:?}\n",
                    name, lp.var, v, d.privatized, d.reductions
                ));
            }
        }
    }
    for line in [
        "syrk_upper.c j indep [] []",
        "syrk_upper.c k indep [] [(Add, \"acc\")]",
        "row_sum_vla.c j carried [] [(Add, \"s\")]",
        "reduce_max_fmaxf.c j indep [] [(Max, \"err\")]",
        "private_tmp.c j indep [\"tmp\"] []",
        "trmv_lower.c i indep [] []",
        "gemm.c k indep [] [(Add, \"sum\")]",
        "stencil3d_7pt.c k indep [] []",
    ] {
        assert!(summary.contains(line), "{}\n{}", line, summary);
    }
    // Every verdict is decided, except in private_temporaries.c, written in NPB's style on
    // purpose: its inner sequential loops update `y[k]` under a condition (a dependence only if
    // the condition holds twice) and subscript with `i1`, a scalar assigned in the region.
    for line in summary.lines().filter(|l| l.contains(" unknown ")) {
        assert!(line.starts_with("private_temporaries.c i "), "{}", summary);
    }
}

#[test]
fn conditions_from_c() {
    let src = "void f(int n, float *a, float *b) {
    float m = 0;
#pragma acc kernels
    for (int i = 0; i < n; i++)
        if (a[i] > 0)
            for (int j = 0; j < n; j++)
                b[0] = a[j];
#pragma acc kernels
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[0] = a[j];
#pragma acc kernels
    for (int i = 0; i < n; i++)
        if (a[i] > m)
            m = a[i];
}
";
    let (_, rs) = lowered(src);
    // The inner loop may not run: the output dependence on b[0] is not proven.
    assert!(rs[0].loops[LoopId(1)].conditional);
    assert!(is_unknown(&rs[0], LoopId(0)));
    assert!(!witnesses(&rs[1], LoopId(0)).is_empty());
    // The max idiom without a `reduction(max:m)` clause: `m` is read, then maybe written.
    let w = witnesses(&rs[2], LoopId(0));
    assert_eq!(w[0].kind, DepKind::Flow);
    assert!(matches!(w[0].src, Ref::Scalar(_)));
}

#[test]
fn huge_coefficients_do_not_panic() {
    for text in [
        "a[9223372036854775807*i] = a[i]",
        "a[-9223372036854775807*i - 1] = a[9223372036854775807*j]",
        "a[4611686018427387904*i + 4611686018427387904*j] = a[3*i + 1]",
        "a[i*n*n*n + j] = a[i*n*n*n + j*n*n + 1]",
        "a[i*n + j*m] = a[i*m + j*n]",
    ] {
        let mut b = B::new();
        let i = b.lp(None, "i", "0", "9223372036854775807");
        let j = b.lp_step(
            Some(i),
            "j",
            "-9223372036854775807",
            "n",
            4611686018427387904,
        );
        b.stmt(j, text);
        let deps = analyze(&b.r);
        let _ = check_claims(&b.r, &deps, None);
    }
}

#[test]
fn minmax_shapes_from_c() {
    // One statement per region: the `Statement::reduction` the IR records for it.
    let cases: [(&str, Option<RedOp>); 14] = [
        ("m = a[i] > m ? a[i] : m;", Some(RedOp::Max)),
        ("m = (m < a[i]) ? a[i] : m;", Some(RedOp::Max)),
        ("m = m >= a[i] ? m : a[i];", Some(RedOp::Max)),
        ("m = a[i] < m ? a[i] : m;", Some(RedOp::Min)),
        ("m = m < a[i] + 1 ? m : a[i] + 1;", Some(RedOp::Min)),
        ("m = max(m, a[i]);", Some(RedOp::Max)),
        ("m = min(a[i], m);", Some(RedOp::Min)),
        ("if (a[i] > m) m = a[i];", Some(RedOp::Max)),
        ("if (m > a[i] * 2) { m = a[i] * 2; }", Some(RedOp::Min)),
        ("m = a[i] > m ? m + 1 : m;", None),
        ("m = a[i] > m ? b[i] : m;", None),
        ("m = m > 0 ? a[i] : m;", None),
        ("if (a[i] > m) m = b[i];", None),
        ("if (a[i] > m) m = a[i]; else m = 0;", None),
    ];
    let mut src = String::from(
        "#define max(a, b) ((a) > (b) ? (a) : (b))\n#define min(a, b) ((a) < (b) ? (a) : (b))\n\
         void f(int n, float *a, float *b) {\n    float m = 0;\n",
    );
    for (stmt, _) in &cases {
        src.push_str(&format!(
            "#pragma acc kernels\n    for (int i = 0; i < n; i++) {{ {} }}\n",
            stmt
        ));
    }
    src.push_str("}\n");
    let (_, rs) = lowered(&src);
    assert_eq!(rs.len(), cases.len());
    for ((stmt, want), r) in cases.iter().zip(&rs) {
        let got = r
            .stmts
            .iter()
            .find(|s| matches!(&s.target, crate::ir::Target::Scalar(n) if n == "m"))
            .and_then(|s| s.reduction);
        assert_eq!(got, *want, "{}", stmt);
    }
}

/// A nest whose outer loop declares `reduction(op:v)` and whose inner loop (`inner`, a
/// directive) runs `body`.
fn span_nest(outer: &str, inner: &str, body: &str) -> String {
    format!(
        "#define max(a, b) ((a) > (b) ? (a) : (b))
void f(int n, int m, double a[n][m], double b[n][m]) {{
    double s = 0, t = -1e30, u = 0;
#pragma acc parallel loop {}
    for (int i = 0; i < n; i++) {{
#pragma acc loop {}
        for (int j = 0; j < m; j++) {{
            {}
        }}
    }}
}}
",
        outer, inner, body
    )
}

#[test]
fn reduction_clause_spans_the_nest() {
    let src = span_nest(
        "reduction(+:s) reduction(max:t)",
        "independent",
        "s += a[i][j]; t = max(t, a[i][j]);",
    );
    let (sm, rs) = lowered(&src);
    let (i, j) = (LoopId(0), LoopId(1));
    assert_eq!(
        rs[0].loops[j].inherited,
        vec![("s".to_string(), i), ("t".to_string(), i)]
    );
    let deps = analyze(&rs[0]);
    assert_eq!(deps.loops[j].verdict, Verdict::Independent);
    assert_eq!(
        deps.loops[j].reductions,
        vec![(RedOp::Add, "s".to_string()), (RedOp::Max, "t".to_string())]
    );
    let text = render(&sm, &check_claims(&rs[0], &deps, Some(&sm)));
    let expected = "\
warning: loop `j` updates `s` and `t`, reductions of the enclosing loop `i`, but has no `reduction` clause for them
  ┌─ t.c:7:9
  │
5 │     for (int i = 0; i < n; i++) {
  │     --------------------------- `reduction(+:s) reduction(max:t)` declared on this loop
6 │ #pragma acc loop independent
7 │         for (int j = 0; j < m; j++) {
  │         ^^^^^^^^^^^^^^^^^^^^^^^^^^^ `s` and `t` are reduced over this loop too
  │
  = note: OpenACC 2.7 requires the `reduction` clause on every loop of the nest that updates the variable; accepted as a reduction over the nest, as OpenACC 2.6 compilers do: over all iterations of `i` and the loops inside it
  = help: add `reduction(+:s) reduction(max:t)` to the `loop` directive of `j`

";
    assert_eq!(trim_lines(&text), expected, "\n{}", text);

    // One variable: the clause named in the message; the `if` form of `max`; a bare `loop`.
    let src = span_nest("reduction(max:t)", "", "if (a[i][j] > t) t = a[i][j];");
    let (_, rs) = lowered(&src);
    let deps = analyze(&rs[0]);
    let d = check_claims(&rs[0], &deps, None);
    assert_eq!(d.len(), 1, "{:?}", d);
    assert_eq!(
        d[0].message,
        "loop `j` updates `t`, a reduction of the enclosing loop `i`, but has no `reduction(max:t)` clause"
    );
    assert!(is_parallel(&deps, &rs[0], j));

    // The clause written on the inner loop too: nothing inherited, no warning.
    let src = span_nest(
        "reduction(+:s)",
        "independent reduction(+:s)",
        "s += a[i][j];",
    );
    let (_, rs) = lowered(&src);
    assert!(rs[0].loops[j].inherited.is_empty());
    assert!(check_claims(&rs[0], &analyze(&rs[0]), None).is_empty());
}

#[test]
fn reduction_clause_does_not_span_other_uses() {
    let j = LoopId(1);
    // `v` is not inherited by `j`.
    let carried = |outer: &str, inner: &str, body: &str, v: &str| {
        let (_, rs) = lowered(&span_nest(outer, inner, body));
        assert!(
            !rs[0].loops[j].inherited.iter().any(|(n, _)| n == v),
            "{} / {}",
            inner,
            body
        );
        let deps = analyze(&rs[0]);
        (
            matches!(deps.loops[j].verdict, Verdict::Carried(_)),
            check_claims(&rs[0], &deps, None),
        )
    };
    // Another operator than the clause's: an error, with a note on the enclosing clause.
    let (c, d) = carried("reduction(+:t)", "independent", "t = max(t, a[i][j]);", "t");
    assert!(c);
    assert!(d.iter().any(|d| d.message
        == "loop `j` is marked independent but carries a dependence"
        && d.notes.iter().any(|n| n.contains(
            "`t` is in `reduction(+:t)` of the enclosing loop `i`, which spans the loops inside it only where they update `t` with `+`"
        ))));
    // Read elsewhere in the inner loop.
    let (c, _) = carried(
        "reduction(+:s)",
        "independent",
        "s += a[i][j]; b[i][j] = s;",
        "s",
    );
    assert!(c);
    // A variable no clause names (a `max` the analysis does not take for a reduction by itself).
    let (c, d) = carried(
        "reduction(+:s)",
        "independent",
        "s += a[i][j]; t = max(t, a[i][j]);",
        "t",
    );
    assert!(c);
    assert!(d
        .iter()
        .any(|d| d.message == "loop `j` is marked independent but carries a dependence"));
    // A `seq` inner loop runs in each work-item: nothing to inherit, nothing to say.
    let (_, d) = carried("reduction(+:s)", "seq", "s += a[i][j];", "s");
    assert!(d.is_empty(), "{:?}", d);
    // `private` on the inner loop: another variable.
    let (_, rs) = lowered(&span_nest(
        "reduction(+:s)",
        "private(s)",
        "s = a[i][j]; b[i][j] = s;",
    ));
    assert!(rs[0].loops[j].inherited.is_empty());
}
