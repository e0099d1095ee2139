//! Why a candidate array is left in global memory ([`Rejection`]): the partition engine's
//! static reasons and those of its profit search, and the staging pass's (`--opt share`) as
//! explain adds them. [`fmt::Display`] gives the words `explain` prints.

use std::fmt;

/// A candidate array left in global memory, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    pub array: String,
    pub reason: Reason,
}

/// Why an array is not staged.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// A subscript is not affine in the loop iterators.
    NonAffine,
    /// Written in the kernel, and its references name different elements.
    WrittenThroughDifferentElements,
    /// Written through `reference`, which is not a grid index plus a constant in every
    /// dimension.
    WrittenNotPerThread { reference: String },
    /// Written at `reference`, which does not depend on every grid index.
    WrittenShared { reference: String },
    /// Not in the ReuseSet (`reuse < theta_r · distinct`) and its references coalesce.
    NoReuse {
        reuse: i64,
        theta_r: f64,
        distinct: i64,
    },
    /// Its partition needs more shared memory than constraint (9) allows.
    TooLarge { bytes: i64, budget: u64 },
    /// It does not fit beside the arrays staged: `over` bytes too many.
    DoesNotFit { over: i64 },
    /// Loading the partition costs the transactions it saves.
    SavesNothing,
    /// The staging pass (`--opt share`) could not stage it exactly; its reason in words.
    NotStaged(String),
}

impl Rejection {
    pub fn new(array: impl Into<String>, reason: Reason) -> Self {
        Rejection {
            array: array.into(),
            reason,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NonAffine => f.write_str("a subscript is not affine in the loop iterators"),
            Reason::WrittenThroughDifferentElements => f.write_str(
                "written in the kernel, and its references name different elements: a written tile needs every reference to name the thread's own element",
            ),
            Reason::WrittenNotPerThread { reference } => write!(
                f,
                "written in the kernel through `{reference}`, which is not a grid index plus a constant in every dimension"
            ),
            Reason::WrittenShared { reference } => write!(
                f,
                "written in the kernel at `{reference}`, which does not depend on every grid index: threads would share an element"
            ),
            Reason::NoReuse {
                reuse,
                theta_r,
                distinct,
            } => write!(
                f,
                "not in the ReuseSet (ReuseSize {reuse} < θ_r·|DS| = {theta_r}·{distinct}) and its references coalesce"
            ),
            Reason::TooLarge { bytes, budget } => write!(
                f,
                "its partition needs {bytes} bytes, more than the {budget} bytes of constraint (9)"
            ),
            Reason::DoesNotFit { over } => write!(
                f,
                "does not fit with the arrays staged ({over} bytes more than constraint (9) leaves)"
            ),
            Reason::SavesNothing => f.write_str(
                "staging saves nothing: loading the partition costs the transactions it saves",
            ),
            Reason::NotStaged(why) => write!(f, "not staged by --opt share: {why}"),
        }
    }
}

/// `array: reason`, as `explain` lists it.
impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.array, self.reason)
    }
}
