//! The partition language of the `share` pragma (the paper's Fig. 1): what the front end
//! parses, the IR keeps (`ir::Share`) and the partition engine evaluates.

use crate::diag::Span;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TbDim {
    X,
    Y,
    Z,
}

impl TbDim {
    pub fn name(self) -> &'static str {
        match self {
            TbDim::X => "TB_X",
            TbDim::Y => "TB_Y",
            TbDim::Z => "TB_Z",
        }
    }
}

/// One dimension of a partition: `*` (a parameter the compiler chooses) or an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum PartDim {
    Star(Span),
    Expr(PartExpr),
}

/// The partition expression language of the paper's Fig. 1: integers, `TB_X/TB_Y/TB_Z`, and
/// `+ - * /` with parentheses. (Integer-valued object-like macros are expanded to their value.)
#[derive(Clone, Debug, PartialEq)]
pub struct PartExpr {
    pub kind: PartExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PartExprKind {
    Int(i64),
    Tb(TbDim),
    Bin(PartOp, Box<PartExpr>, Box<PartExpr>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PartOp {
    Add,
    Sub,
    Mul,
    Div,
}
