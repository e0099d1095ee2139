//! The static memory instructions of a kernel: every [`ArrayRef`] occurrence, numbered in the
//! pre-order of the kernel body (an assignment's target before its value, an atomic's element
//! before its operands). The simulator counts what each one does at run time; the coalescing
//! lint ([`super::lint`]) classifies the global ones statically; both number them this way.

use super::{Arena, ArrayRef, Builtin, KArray, KExpr, KVar, Space};
use crate::vocab::{BinOp, Scalar};

/// Load, store, or both (compound assignment to an element).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    Update,
}

impl AccessKind {
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Update => "load+store",
        }
    }
}

/// A static memory instruction: one `ArrayRef` occurrence in a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessInfo {
    /// Position in the pre-order walk of the kernel body (target before value).
    pub id: usize,
    /// `kernel#id array[index]`, the index printed in C.
    pub label: String,
    pub array: String,
    pub space: Space,
    pub kind: AccessKind,
    pub elem: Scalar,
}

impl AccessInfo {
    /// The access numbered `id` of kernel `kernel`, to `r`'s array (one of `arrays`, its index
    /// over `vars`) of `elem`.
    pub fn new(
        kernel: &str,
        (arrays, vars): (&Arena<KArray>, &Arena<KVar>),
        id: usize,
        r: &ArrayRef,
        kind: AccessKind,
        elem: Scalar,
    ) -> Self {
        AccessInfo {
            id,
            label: format!(
                "{}#{} {}[{}]{}",
                kernel,
                id,
                arrays[r.array].name,
                print_expr(&r.index, (arrays, vars), 0),
                r.field
                    .as_ref()
                    .map(|f| format!(".{}", f.name))
                    .unwrap_or_default()
            ),
            array: arrays[r.array].name.clone(),
            space: arrays[r.array].space(),
            kind,
            elem,
        }
    }
}

fn prec(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
        BinOp::Add | BinOp::Sub => 9,
        BinOp::Shl | BinOp::Shr => 8,
        BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => 7,
        BinOp::Eq | BinOp::Ne => 6,
        BinOp::BitAnd => 5,
        BinOp::BitXor => 4,
        BinOp::BitOr => 3,
        BinOp::LogAnd => 2,
        BinOp::LogOr => 1,
    }
}

/// C text of an expression (for labels), parenthesized where precedence needs it; its arrays
/// are `arrays`', its scalars `vars`'.
pub fn print_expr(e: &KExpr, names: (&Arena<KArray>, &Arena<KVar>), outer: u8) -> String {
    let arrays = names;
    match e {
        KExpr::Var(v) => names.1[*v].name.clone(),
        KExpr::Int(v, _) => v.to_string(),
        KExpr::Float(v, s) => format!("{}{}", v, if *s { "f" } else { "" }),
        KExpr::Load(r) => format!(
            "{}[{}]{}",
            arrays.0[r.array].name,
            print_expr(&r.index, arrays, 0),
            r.field
                .as_ref()
                .map(|f| format!(".{}", f.name))
                .unwrap_or_default()
        ),
        KExpr::Unary(op, a) => format!("{}{}", op.c_op(), print_expr(a, arrays, 11)),
        KExpr::Binary(op, a, b) => {
            let p = prec(*op);
            let s = format!(
                "{} {} {}",
                print_expr(a, arrays, p),
                op.c_op(),
                print_expr(b, arrays, p + 1)
            );
            if p < outer {
                format!("({})", s)
            } else {
                s
            }
        }
        KExpr::Cond(c, a, b) => {
            let s = format!(
                "{} ? {} : {}",
                print_expr(c, arrays, 1),
                print_expr(a, arrays, 0),
                print_expr(b, arrays, 0)
            );
            if outer > 0 {
                format!("({})", s)
            } else {
                s
            }
        }
        KExpr::Cast(t, a) => format!("({}){}", t.c_name(), print_expr(a, arrays, 11)),
        KExpr::Call(f, args) => format!(
            "{}({})",
            f.c_name(),
            args.iter()
                .map(|a| print_expr(a, arrays, 0))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        KExpr::Builtin(b) => match b {
            Builtin::LocalId(d) => format!("get_local_id({})", d),
            Builtin::GroupId(d) => format!("get_group_id({})", d),
            Builtin::LocalSize(d) => format!("get_local_size({})", d),
            Builtin::NumGroups(d) => format!("get_num_groups({})", d),
            Builtin::GlobalId(d) => format!("get_global_id({})", d),
        },
    }
}
