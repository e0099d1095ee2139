//! The loop-nest IR of a compute region: loops with affine bounds, statements, and every array
//! reference with its access function (the paper's §3.2.1 `F(I) = M·(I, params, 1)`).
//!
//! Built from the AST by [`lower`]. It identifies loops, statements and array references by
//! typed indices into its arenas ([`LoopId`], [`StmtId`], [`AccessId`]) and keeps their spans.
//! It owns the region's code: its statements ([`Region::code`], [`stmt`]) and expressions
//! ([`Region::exprs`], [`expr`]) in [`Arena`]s named by [`Handle`]s, which kernel lowering
//! reads with the decisions the analyses took (`kernel::lower`). Its types and operators are
//! the shared vocabulary ([`crate::vocab`]). The host code around the regions, every function's
//! statements with its directives, is [`host`]'s IR ([`host::HostUnit`]).
//!
//! Invariant: the IR is built for every region of the subset; what is not affine is marked so
//! (`None` subscripts, [`Bound::NonAffine`]) and handled conservatively, never dropped.

pub mod arena;
pub mod directive;
pub mod expr;
pub mod host;
pub mod lower;
pub mod poly;
pub mod stmt;

use std::collections::BTreeMap;
use std::fmt;

use crate::diag::Span;
use crate::vocab::share::PartDim;
use crate::vocab::Construct;
use crate::vocab::RedOp;
use crate::vocab::Scalar;
pub use arena::{Arena, Handle};
pub use expr::{Detached, Expr, Exprs};
pub use poly::Poly;
pub use stmt::{Code, Stmt};

/// Defines a typed index into one of a region's arenas: a newtype over the position, so that
/// loops, statements and accesses cannot be taken for each other or for plain integers.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $elem:ty) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub usize);

        impl $name {
            /// The position in the arena.
            pub fn index(self) -> usize {
                self.0
            }
        }

        /// The bare number (`L3`, `S7` in the printed IR).
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl std::ops::Index<$name> for Vec<$elem> {
            type Output = $elem;
            fn index(&self, id: $name) -> &$elem {
                &self[id.0]
            }
        }

        impl std::ops::IndexMut<$name> for Vec<$elem> {
            fn index_mut(&mut self, id: $name) -> &mut $elem {
                &mut self[id.0]
            }
        }
    };
}

handle!(
    /// A loop of a region: its position in [`Region::loops`].
    LoopId,
    Loop
);
handle!(
    /// A statement of a region: its position in [`Region::stmts`].
    StmtId,
    Statement
);
handle!(
    /// An array reference of a region: its position in [`Region::accesses`].
    AccessId,
    Access
);

/// One compute region (an OpenACC `kernels`/`parallel`/`serial` construct).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// The enclosing function.
    pub func: String,
    pub construct: Construct,
    /// The construct's pragma (for messages).
    pub span: Span,
    pub share: Option<Share>,
    /// The arrays `cache(...)` directives inside the region name.
    pub cache: Vec<Cached>,
    /// Arrays referenced in the region, by name.
    pub arrays: BTreeMap<String, ArrayInfo>,
    /// Scalars of the enclosing scope referenced in the region, by name.
    pub scalars: BTreeMap<String, ScalarInfo>,
    /// All loops, outer before inner (arena; `LoopId` indexes it).
    pub loops: Vec<Loop>,
    /// All statements (assignments), in program order.
    pub stmts: Vec<Statement>,
    pub accesses: Vec<Access>,
    /// Every use of a scalar variable inside loops of the region, in program order (within a
    /// statement, the reads of the right-hand side come before the write of the target).
    pub scalar_refs: Vec<ScalarRef>,
    /// The region's top-level loop nests, in order: each becomes one or more kernels.
    pub roots: Vec<LoopId>,
    /// Loop bounds that are not affine but do not change in the region (`k <= grid_points[2] -
    /// 1`, reading an array the region does not write): each is a parameter of its own, which the
    /// host computes before the region, so that the loop can still go to the grid.
    pub invariants: Vec<Invariant>,
    /// The region's expressions (of its code, and the non-affine bounds), named by handles.
    pub exprs: Exprs,
    /// The region's statements (the construct's statement, lowered).
    pub code: Code,
}

/// The partitions a `share` pragma asks for (the paper's §3.1): one per array.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    pub specs: Vec<ShareSpec>,
    /// The pragma.
    pub span: Span,
}

/// `name[d0][d1]…[:coalesce]` of a `share` pragma.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareSpec {
    pub array: String,
    pub dims: Vec<PartDim>,
    pub coalesce: bool,
    pub span: Span,
}

/// An array a `cache(...)` directive of the region names, with the number of dimensions it
/// gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Cached {
    pub array: String,
    pub rank: usize,
    pub span: Span,
}

/// A region-invariant expression standing for a parameter (see [`Region::invariants`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Invariant {
    /// The parameter's name in bounds (`accshare_inv_<n>`); its type is `long`.
    pub name: String,
    /// The expression, as the user wrote it (evaluated by the host before the region), in
    /// [`Region::exprs`]; printable as C ([`Exprs::printable`]).
    pub expr: Handle<Expr>,
}

/// How an array reaches the region.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayInfo {
    pub name: String,
    pub elem: Scalar,
    /// Extent of each dimension as a polynomial over parameters (`None` = unknown, e.g. the
    /// first dimension of a pointer or `A[][M]`). For a pointer used with one subscript, one
    /// dimension.
    pub extents: Vec<Option<Poly>>,
    /// Declared as `const`.
    pub is_const: bool,
    /// Declared as a pointer (its extent must come from a data clause or the accesses).
    pub is_pointer: bool,
    /// Where it is declared.
    pub decl_span: Span,
    /// Written anywhere in the region.
    pub written: bool,
    /// Read anywhere in the region.
    pub read: bool,
    /// An array of structs: the struct, whose fields are the last dimension of `extents`
    /// (of extent the number of fields; `elem` is the fields' scalar type).
    pub record: Option<Record>,
}

/// A struct whose fields are all of one scalar type, which an array of them is an array of with
/// one more dimension ([`ArrayInfo::record`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// `struct tag` (empty for an anonymous struct).
    pub tag: String,
    /// The `typedef` name it was declared with, if any.
    pub typedef: Option<String>,
    /// The fields' type.
    pub elem: Scalar,
    /// The fields, in order: the last subscript.
    pub fields: Vec<String>,
}

impl Record {
    /// How messages name the type: the `typedef` name, else `struct tag`.
    pub fn name(&self) -> String {
        match &self.typedef {
            Some(t) => t.clone(),
            None if self.tag.is_empty() => "struct <anonymous>".to_string(),
            None => format!("struct {}", self.tag),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScalarInfo {
    pub name: String,
    pub ty: Scalar,
    pub decl_span: Span,
    /// Assigned somewhere in the region.
    pub written: bool,
    /// `None`: declared outside the region (a parameter, a local of the function, a file-scope
    /// variable). `Some(None)`: declared in the region outside every loop. `Some(Some(l))`:
    /// declared inside the body of loop `l` (so private to each iteration of `l` and of the
    /// loops around it).
    pub local: Option<Option<LoopId>>,
}

/// One use of a scalar variable (loop iterators of the region are not recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarRef {
    pub name: String,
    pub kind: AccessKind,
    /// The statement it belongs to (`None` for a use in a loop bound or an `if` condition, and
    /// for the write an `if`/`else` makes when both branches assign the scalar).
    pub stmt: Option<StmtId>,
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// Under an `if` (or `?:`, `&&`, `||`, `while`) inside the innermost enclosing loop.
    pub conditional: bool,
    /// The scopes around the use, outermost first: every loop body and every piece of
    /// conditional control flow has its own id. A use whose scopes start with all of another
    /// use's scopes, and that comes later in program order, runs whenever that one has run in
    /// the same execution of its innermost scope (the earlier one *dominates* it).
    pub scopes: Vec<u32>,
    pub span: Span,
}

/// A loop in normalized form: `for (var = lower; var < upper; var += step)` when `step > 0`, or
/// `for (var = lower; var > upper; var += step)` when `step < 0` (`upper` exclusive either way).
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub id: LoopId,
    pub var: String,
    pub ty: Scalar,
    pub parent: Option<LoopId>,
    /// Number of enclosing loops in the region.
    pub depth: usize,
    pub lower: Bound,
    pub upper: Bound,
    pub step: i64,
    /// Loops immediately inside, in order.
    pub children: Vec<LoopId>,
    /// True if the body is exactly one loop (no other statements), i.e. perfectly nested with its
    /// only child.
    pub perfect: bool,
    /// `Some(scalars)` where the body is statements assigning these scalars from pure
    /// expressions (`i3 = 2 * j3 - d3;`, `int i2 = 2 * j2;`: no calls, array reads or side
    /// effects), then exactly one loop that assigns none of them nor anything they read, and
    /// neither the function nor another nest of the region reads them afterwards: the nest is
    /// perfect but for statements each iteration of the inner loops may run again. `analysis::mapping` maps the inner loop
    /// to the grid too; each work-item then computes the scalars itself (NPB MG's `rprj3`, whose
    /// `loop worker` and `loop vector` sit under such statements). `None` otherwise.
    pub prefix: Option<Vec<String>>,
    pub marking: Marking,
    /// Under an `if` (or `?:`, `while`, after a `break`, inside a non-canonical loop) within its
    /// parent loop: it may not run in every iteration of the parent.
    pub conditional: bool,
    /// `gang`/`worker`/`vector(n)`/`vector_length(n)` as written.
    pub vector_len: Option<u32>,
    /// `num_workers(n)` on the loop's directive (a combined `parallel loop`, or the construct's
    /// for its outermost loops), as written: the
    /// rows of a block where an inner reduction runs across lanes (`schedule::lanes`).
    pub workers: Option<u32>,
    /// The loop's own directive names `vector` or `worker`: the user asks for its iterations
    /// across the lanes of a work-group (`schedule::lanes` honours it on a GPU).
    pub lanes_asked: bool,
    pub collapse: u32,
    pub reductions: Vec<(RedOp, String)>,
    /// The reductions among `reductions` that no clause of this loop names: the loop has a
    /// directive, updates the variable only with the operator of a `reduction` clause of an
    /// enclosing loop, and inherits that clause (OpenACC 2.5/2.6 let a clause span the nest;
    /// 2.7 asks for it on every loop, so the analysis warns). Each name with the loop whose
    /// clause it comes from.
    pub inherited: Vec<(String, LoopId)>,
    pub private: Vec<String>,
    /// The `firstprivate` ones among `private`: each copy starts from the variable's value.
    pub firstprivate: Vec<String>,
    /// The `for` keyword through the end of the loop.
    pub span: Span,
    /// The span of the `for` header (for messages).
    pub header_span: Span,
}

/// What the user said about a loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marking {
    /// `independent`, written by the user: a proven dependence is an error.
    Independent,
    /// A `loop` directive of a `parallel` construct without `independent`, `seq` or `auto`:
    /// independent by OpenACC's default. Real programs put such directives on loops that carry
    /// dependences (row sums, sequential solver steps), so where a dependence is proven the loop
    /// runs sequentially in each work-item, with a warning; where none is, it is parallel.
    Implicit,
    /// `seq`.
    Seq,
    /// `auto`, or no directive inside a `kernels` construct: parallel only if proven.
    Auto,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// Affine in outer iterators and parameters.
    Affine(Poly),
    /// Anything else: the bound as written, in the region's [`Region::exprs`].
    NonAffine(Handle<Expr>),
}

impl Bound {
    pub fn affine(&self) -> Option<&Poly> {
        match self {
            Bound::Affine(p) => Some(p),
            Bound::NonAffine(_) => None,
        }
    }
}

/// An assignment (or other side effect) in the region.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    pub id: StmtId,
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// Under an `if` (or `?:`, `while`) inside the region.
    pub conditional: bool,
    pub span: Span,
    /// The scalar or array element assigned.
    pub target: Target,
    /// Compound assignment operator (`+=` …), or `None` for `=`.
    pub op: Option<crate::vocab::BinOp>,
    /// The reduction this statement performs on its scalar target, judged from its shape:
    /// `s op= e`, `s = s op e`, `s = e op s` (commutative `op`), `s = fmaxf(s, e)` / `fminf`,
    /// `fmax`, `fmin`, `max`, `min` (either argument order), `s = e > s ? e : s` and the other
    /// conditional expressions that pick the larger or smaller of `s` and `e` (what a
    /// `#define max(a,b) ((a) > (b) ? (a) : (b))` expands to), where `e` does not mention `s`;
    /// and `s = e` as the only statement of `if (e > s)` (`if (s < e)`, and the `min` forms)
    /// without `else`. `-=` and `s = s - e` are `Add` reductions. `None` for every other
    /// statement.
    pub reduction: Option<RedOp>,
    /// Under `#pragma acc atomic`: the location the statement reads or updates atomically (an
    /// access of this statement, or a scalar). The accesses of two atomic statements to their
    /// locations do not conflict (see [`Region::is_atomic_ref`]). A capture (`v = x++`) is two
    /// statements, the update of `x` and the copy to `v`, both atomic on `x`.
    pub atomic: Option<Target>,
}

impl Statement {
    /// The reduction this statement performs on its scalar target: [`Statement::reduction`],
    /// or the operator of a compound assignment or `++`/`--` (`s += f(s)` included: whether
    /// the rest of the statement reads `s` is for the caller to judge).
    pub fn update_op(&self) -> Option<RedOp> {
        use crate::vocab::BinOp;
        self.reduction.or(match self.op {
            Some(BinOp::Add | BinOp::Sub) => Some(RedOp::Add),
            Some(BinOp::Mul) => Some(RedOp::Mul),
            Some(BinOp::BitAnd) => Some(RedOp::BitAnd),
            Some(BinOp::BitOr) => Some(RedOp::BitOr),
            Some(BinOp::BitXor) => Some(RedOp::BitXor),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Scalar(String),
    Array(AccessId),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    /// Compound assignment: read and written.
    ReadWrite,
}

/// One array reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub id: AccessId,
    pub array: String,
    pub kind: AccessKind,
    /// Per dimension: the subscript, or `None` if it is not affine in the iterators.
    pub subscripts: Vec<Option<Poly>>,
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    pub stmt: StmtId,
    pub span: Span,
}

impl Access {
    pub fn is_affine(&self) -> bool {
        self.subscripts.iter().all(Option::is_some)
    }
    pub fn writes(&self) -> bool {
        matches!(self.kind, AccessKind::Write | AccessKind::ReadWrite)
    }
    pub fn reads(&self) -> bool {
        matches!(self.kind, AccessKind::Read | AccessKind::ReadWrite)
    }
}

impl Region {
    /// The maximum (or minimum) of `p` over the iteration domain of `loops`, by substituting each
    /// iterator (innermost first) with the bound that maximizes the term. Needs every iterator's
    /// coefficient to have a known sign.
    pub fn extreme(&self, p: &Poly, loops: &[LoopId], max: bool) -> Option<Poly> {
        let mut cur = p.clone();
        for &l in loops.iter().rev() {
            let lp = &self.loops[l];
            let (coef, _) = cur.split(&lp.var)?;
            if coef.is_zero() {
                continue;
            }
            let nonneg = coef.terms().all(|(_, c)| c >= 0);
            let nonpos = coef.terms().all(|(_, c)| c <= 0);
            if !nonneg && !nonpos {
                return None;
            }
            let up = max == nonneg;
            let (lo, hi) = (lp.lower.affine()?, lp.upper.affine()?);
            // Ascending loops run over [lower, upper - 1]; descending over [upper + 1, lower].
            let value = match (lp.step > 0, up) {
                (true, true) => hi.sub(&Poly::constant(1))?,
                (true, false) => lo.clone(),
                (false, true) => lo.clone(),
                (false, false) => hi.add(&Poly::constant(1))?,
            };
            cur = cur.substitute(&lp.var, &value)?;
        }
        Some(cur)
    }

    /// Access `a` is the location of an atomic statement (`h[k]` in `#pragma acc atomic` /
    /// `h[k]++;`, not the read of `k`).
    pub fn is_atomic_access(&self, a: AccessId) -> bool {
        self.accesses.get(a.index()).is_some_and(|acc| {
            self.stmts
                .get(acc.stmt.index())
                .is_some_and(|s| s.atomic == Some(Target::Array(a)))
        })
    }

    /// Scalar reference `r` (an index into `scalar_refs`) is the location of an atomic statement.
    pub fn is_atomic_ref(&self, r: usize) -> bool {
        self.scalar_refs.get(r).is_some_and(|sr| {
            sr.stmt
                .and_then(|s| self.stmts.get(s.index()))
                .is_some_and(|s| s.atomic.as_ref() == Some(&Target::Scalar(sr.name.clone())))
        })
    }

    /// Iterator names of the given loops.
    pub fn iter_names(&self, loops: &[LoopId]) -> Vec<String> {
        loops.iter().map(|&l| self.loops[l].var.clone()).collect()
    }

    /// The loops of the nest at `root`: `root` and every loop inside it, outer before inner, in
    /// source order.
    pub fn nest(&self, root: LoopId) -> Vec<LoopId> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(l) = stack.pop() {
            let Some(lp) = self.loops.get(l.index()) else {
                continue;
            };
            out.push(l);
            stack.extend(lp.children.iter().rev().copied());
        }
        out
    }

    /// Enclosing loops of `l`, outermost first, including `l`.
    pub fn loop_path(&self, l: LoopId) -> Vec<LoopId> {
        let mut path = vec![l];
        let mut cur = self.loops[l].parent;
        while let Some(p) = cur {
            path.push(p);
            cur = self.loops[p].parent;
        }
        path.reverse();
        path
    }
}

impl Region {
    /// A bound in the printed IR: the affine form, or `?` and the expression as written.
    pub fn bound_text(&self, b: &Bound) -> String {
        match b {
            Bound::Affine(p) => p.to_string(),
            Bound::NonAffine(e) => format!("?{}", self.exprs.display(*e)),
        }
    }
}

/// The printable form (`accshare … --emit ir`).
impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "region {} in {}", self.construct.name(), self.func)?;
        for a in self.arrays.values() {
            let ext: Vec<String> = a
                .extents
                .iter()
                .map(|e| e.as_ref().map_or("?".to_string(), |p| p.to_string()))
                .collect();
            writeln!(
                f,
                "  array {} {}[{}]{}{}",
                a.elem.c_name(),
                a.name,
                ext.join("]["),
                if a.read { " read" } else { "" },
                if a.written { " written" } else { "" }
            )?;
        }
        for s in self.scalars.values() {
            writeln!(
                f,
                "  scalar {} {}{}",
                s.ty.c_name(),
                s.name,
                if s.written { " written" } else { "" }
            )?;
        }
        for &r in &self.roots {
            self.fmt_loop(f, r, 1)?;
        }
        Ok(())
    }
}

impl Region {
    fn fmt_loop(&self, f: &mut fmt::Formatter<'_>, l: LoopId, indent: usize) -> fmt::Result {
        let lp = &self.loops[l];
        let pad = "  ".repeat(indent);
        let mark = match lp.marking {
            Marking::Independent => "independent",
            Marking::Implicit => "implicit-independent",
            Marking::Seq => "seq",
            Marking::Auto => "auto",
        };
        writeln!(
            f,
            "{}loop L{} {} in [{}, {}) step {} {}{}",
            pad,
            l,
            lp.var,
            self.bound_text(&lp.lower),
            self.bound_text(&lp.upper),
            lp.step,
            mark,
            if lp.perfect { " perfect" } else { "" }
        )?;
        for s in self.stmts.iter().filter(|s| s.loops.last() == Some(&l)) {
            let target = match &s.target {
                Target::Scalar(n) => n.clone(),
                Target::Array(a) => self.fmt_access(*a),
            };
            let op = s.op.map_or("=".to_string(), |o| format!("{}=", o.c_op()));
            writeln!(
                f,
                "{}  S{} {} {}{}{}",
                pad,
                s.id,
                target,
                op,
                if s.conditional { " (conditional)" } else { "" },
                if s.atomic.is_some() { " (atomic)" } else { "" }
            )?;
            for a in self
                .accesses
                .iter()
                .filter(|a| a.stmt == s.id && a.kind == AccessKind::Read)
            {
                writeln!(f, "{}    read {}", pad, self.fmt_access(a.id))?;
            }
        }
        for &c in &lp.children {
            self.fmt_loop(f, c, indent + 1)?;
        }
        Ok(())
    }

    /// `A[i][k + 1]`, with `?` for a non-affine subscript.
    pub fn fmt_access(&self, a: AccessId) -> String {
        let acc = &self.accesses[a];
        let mut s = acc.array.clone();
        for sub in &acc.subscripts {
            s.push('[');
            match sub {
                Some(p) => s.push_str(&p.to_string()),
                None => s.push('?'),
            }
            s.push(']');
        }
        s
    }
}
