//! Attaches pragmas to the statements they annotate, validates the OpenACC regions, and
//! summarizes them for `accshare check`.
//!
//! [`attach`] turns the parser's `StmtKind::Pragma` statements into [`StmtKind::Acc`] (a construct
//! and the statement it applies to, with the `share` partitions written before it) and
//! [`StmtKind::AccStandalone`]. [`validate`] checks what later stages rely on: compute regions hold
//! only the supported subset, clause and `share` names are arrays of the function with the right
//! number of dimensions. [`summarize`] describes each compute region in one line.
//!
//! Every walk here is bounded by [`MAX_DEPTH`]: trees deeper than that (which the parser already
//! rejects) are not descended into, so no input can overflow the stack.

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use crate::diag::{Diag, Diags, SourceMap, Span};
use crate::front::ast::{
    Block, CType, Declaration, Expr, ExprKind, ForInit, FunctionDef, Ident, Initializer, ItemKind,
    Scalar, Stmt, StmtKind, Storage, TranslationUnit,
};
use crate::front::pragma::{ctype_to_c, did_you_mean};
use crate::front::pragma_ast::{
    AccDirective, ArraySpec, AtomicKind, Clause, ClauseKind, Construct, DataKind, Pragma,
    SharePragma,
};

/// Deepest statement nesting the walks descend into (the parser allows 256 nested brackets, so
/// only hand-made trees reach it).
pub const MAX_DEPTH: usize = 300;

/// The functions a compute region may call: C99 math for `float` and `double` (with their `f`
/// variants) and `abs`, `min`, `max`.
pub const MATH_FUNCTIONS: &[&str] = &[
    "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs", "fmin",
    "fmax", "fmod", "floor", "ceil", "round", "trunc", "sin", "cos", "tan", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "hypot", "copysign",
];

/// Whether `name` is a function a compute region may call (see [`MATH_FUNCTIONS`]).
pub fn is_math_function(name: &str) -> bool {
    if matches!(name, "abs" | "min" | "max") {
        return true;
    }
    MATH_FUNCTIONS.contains(&name)
        || name
            .strip_suffix('f')
            .is_some_and(|base| MATH_FUNCTIONS.contains(&base))
}

/// Whether a directive applies to the statement that follows it.
fn takes_body(c: &Construct) -> bool {
    c.is_compute()
        || matches!(
            c,
            Construct::Loop | Construct::Data | Construct::HostData | Construct::Atomic(_)
        )
}

mod atomic;
mod attach;
mod desugar;
mod routine;
mod summary;
mod validate;

pub use atomic::{atomic_form, is_atomic_op, AtomicForm, AtomicUpdate};
pub use attach::attach;
pub use desugar::desugar;
pub use routine::inline_routines;
pub use summary::{summarize, LoopSummary, RegionSummary};
pub use validate::{array_dims, validate, validate_with_routines};

#[cfg(test)]
mod tests;
