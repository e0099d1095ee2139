//! What the pragma parser (`front::pragma`, pest grammar `grammar/pragma.pest`) produces.
//!
//! Spans point into the user's file. Expressions inside clauses (`num_gangs(n)`, `a[0:n*m]`) are
//! ordinary C expressions, macro-expanded and parsed by the C expression parser.

use crate::diag::Span;
use crate::front::ast::{Expr, Ident};
/// The reduction operators, owned by the IR.
pub use crate::vocab::share::{PartDim, PartExpr, PartExprKind, PartOp, TbDim};
pub use crate::vocab::{AtomicKind, Construct, DataKind, RedOp};

/// A parsed `#pragma` line.
#[derive(Clone, Debug, PartialEq)]
pub enum Pragma {
    Acc(AccDirective),
    Share(SharePragma),
    /// `#pragma scop` / `#pragma endscop`: ignored quietly.
    Scop,
    /// Any pragma that is not `acc` (`omp`, `once`, `GCC …`): ignored.
    Foreign,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AccDirective {
    pub construct: Construct,
    /// The construct's words (`kernels loop`).
    pub construct_span: Span,
    pub clauses: Vec<Clause>,
    /// The arguments of `cache(…)` (empty for other directives).
    pub cache: Vec<SubArray>,
    /// The whole pragma text after `#pragma`.
    pub span: Span,
}

impl AccDirective {
    pub fn has(&self, pred: impl Fn(&ClauseKind) -> bool) -> bool {
        self.clauses.iter().any(|c| pred(&c.kind))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub kind: ClauseKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClauseKind {
    Independent,
    Seq,
    Auto,
    Gang(Option<Expr>),
    Worker(Option<Expr>),
    Vector(Option<Expr>),
    /// `num_gangs(n)`, or one count per dimension (`num_gangs(n1, n2, n3)`, OpenACC 3.3).
    NumGangs(Vec<Expr>),
    NumWorkers(Expr),
    VectorLength(Expr),
    /// `collapse(n)`; `collapse(force:n)` (OpenACC 3.3) also collapses loops with code between
    /// them, which runs in each iteration of the innermost (`front::region` moves it there).
    Collapse {
        n: u32,
        force: bool,
    },
    Reduction {
        op: RedOp,
        vars: Vec<Ident>,
    },
    Private(Vec<Ident>),
    FirstPrivate(Vec<Ident>),
    Data {
        kind: DataKind,
        vars: Vec<SubArray>,
        /// The `zero:` modifier (OpenACC 3.3, on `create` and `copyout`): a device copy this
        /// clause makes starts zeroed.
        zero: bool,
    },
    If(Expr),
    Async(Option<Expr>),
    Wait(Vec<Expr>),
    /// The tile sizes; `None` for `*` (the implementation chooses).
    Tile(Vec<Option<Expr>>),
    /// `finalize` (on `exit data`).
    Finalize,
    /// `if_present` (on `update`).
    IfPresent,
    /// A clause accshare does not know: a warning, then ignored.
    Unknown(String),
}

impl ClauseKind {
    pub fn name(&self) -> &str {
        match self {
            ClauseKind::Independent => "independent",
            ClauseKind::Seq => "seq",
            ClauseKind::Auto => "auto",
            ClauseKind::Gang(_) => "gang",
            ClauseKind::Worker(_) => "worker",
            ClauseKind::Vector(_) => "vector",
            ClauseKind::NumGangs(_) => "num_gangs",
            ClauseKind::NumWorkers(_) => "num_workers",
            ClauseKind::VectorLength(_) => "vector_length",
            ClauseKind::Collapse { .. } => "collapse",
            ClauseKind::Reduction { .. } => "reduction",
            ClauseKind::Private(_) => "private",
            ClauseKind::FirstPrivate(_) => "firstprivate",
            ClauseKind::Data { kind, .. } => kind.name(),
            ClauseKind::If(_) => "if",
            ClauseKind::Async(_) => "async",
            ClauseKind::Wait(_) => "wait",
            ClauseKind::Tile(_) => "tile",
            ClauseKind::Finalize => "finalize",
            ClauseKind::IfPresent => "if_present",
            ClauseKind::Unknown(s) => s,
        }
    }
}

/// `a`, `a[lo:len]`, `A[0:n][0:m]` (OpenACC subarray: start and length per dimension).
#[derive(Clone, Debug, PartialEq)]
pub struct SubArray {
    pub name: Ident,
    pub dims: Vec<SubRange>,
    pub span: Span,
}

impl SubArray {
    /// For a struct member (`data.a`, `p->a`, `s.in.a`: the name holds the whole path): the
    /// variable it is reached through and the path after it (`.a`, `->a`). `None` for a
    /// variable.
    pub fn member_base(&self) -> Option<(&str, &str)> {
        let at = self.name.name.find(['.', '-'])?;
        Some(self.name.name.split_at(at))
    }
}

/// One `[start:length]`; `a[i]` is a single element (`len` = None, `start` = Some(i) and
/// `single` = true); `a[:n]` has no start; `a[2:]` no length.
#[derive(Clone, Debug, PartialEq)]
pub struct SubRange {
    pub start: Option<Expr>,
    pub len: Option<Expr>,
    pub single: bool,
    pub span: Span,
}

/// `#pragma acc share(arraySpec, …)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SharePragma {
    pub specs: Vec<ArraySpec>,
    pub span: Span,
}

/// `name[d0][d1]…[:coalesce]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArraySpec {
    pub array: Ident,
    pub dims: Vec<PartDim>,
    pub coalesce: bool,
    pub span: Span,
}
