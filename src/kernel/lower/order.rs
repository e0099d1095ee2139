//! Applies a schedule's block order ([`crate::schedule::order`]) to a finished kernel: nothing
//! is decided here.
//!
//! Under [`BlockOrder::Diagonal`] the kernel's first statement computes the block's tile row
//! `accshare_by = (group_id(1) + group_id(0) % num_groups(1) * skew % num_groups(1)) %
//! num_groups(1)` (`bx` reduced before the product so that nothing overflows an `int`: both
//! factors are below 2^16 · 64), and every later use of the group id along y (`GroupId(1)`)
//! reads it, every global id along y (`GlobalId(1)`) becomes `accshare_by * local_size(1) +
//! local_id(1)`. Block `(bx, by)` of the launch then computes tile `(bx, (by + skew·bx) mod gy)`.
//! This is a bijection of the grid onto itself for any shape and skew: for each `bx` the map
//! `by ↦ (by + c) mod gy` (c fixed) is a rotation of `0..gy`, so every tile is computed by
//! exactly one block and every block by one tile, and a kernel that computes what the
//! sequential program computes with one order (each block's work independent of the others')
//! computes it with any. The launch (grid, block, arguments) is unchanged; both back ends print
//! the same kernel IR.

use crate::kernel::{Builtin, Handle, KExpr, KStmt, KVar, Kernel, VarKind};
use crate::schedule::BlockOrder;
use crate::vocab::{BinOp, Scalar};

/// The variable holding the remapped group id along y.
pub(super) const DIAGONAL_Y: &str = "accshare_by";

/// Remaps the kernel's group ids as `order` says (nothing for [`BlockOrder::Linear`] or a
/// one-dimensional kernel).
pub(super) fn apply(kernel: &mut Kernel, order: BlockOrder) {
    let BlockOrder::Diagonal { skew } = order else {
        return;
    };
    if kernel.dims < 2 {
        return;
    }
    let bin = |op, a, b| KExpr::bin(op, a, b);
    let g = |d| KExpr::Builtin(Builtin::GroupId(d));
    let y = kernel.var(DIAGONAL_Y, Scalar::Int, VarKind::Private);
    for s in &mut kernel.body {
        s.walk_exprs_mut(&mut |e| expr(e, y));
    }
    let gy = || KExpr::Builtin(Builtin::NumGroups(1));
    let shift = bin(
        BinOp::Rem,
        bin(
            BinOp::Mul,
            bin(BinOp::Rem, g(0), gy()),
            KExpr::int(skew as i64),
        ),
        gy(),
    );
    let by = bin(BinOp::Rem, bin(BinOp::Add, g(1), shift), gy());
    kernel.body.insert(
        0,
        KStmt::Decl {
            var: y,
            init: Some(by),
        },
    );
    kernel.body.insert(
        0,
        KStmt::Comment("diagonal block order against channel conflicts".to_string()),
    );
}

/// `e` with the y group id replaced by the remapped one, `y`.
fn expr(e: &mut KExpr, y: Handle<KVar>) {
    match e {
        KExpr::Builtin(Builtin::GroupId(1)) => *e = KExpr::Var(y),
        KExpr::Builtin(Builtin::GlobalId(1)) => {
            *e = KExpr::bin(
                BinOp::Add,
                KExpr::bin(
                    BinOp::Mul,
                    KExpr::Var(y),
                    KExpr::Builtin(Builtin::LocalSize(1)),
                ),
                KExpr::Builtin(Builtin::LocalId(1)),
            )
        }
        _ => e.for_each_child_mut(&mut |c| expr(c, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(body: Vec<KStmt>, dims: u8) -> Kernel {
        Kernel {
            name: "k".into(),
            arrays: crate::kernel::Arena::new(),
            vars: crate::kernel::testing::vars_snapshot(),
            params: Vec::new(),
            locals: Vec::new(),
            dims,
            block: [16, 16, 1],
            body,
            uses_double: false,
            bank_width: None,
            registers: None,
            origin: String::new(),
        }
    }

    fn decl(n: &str, e: KExpr) -> KStmt {
        crate::kernel::testing::decl(n, Scalar::Int, Some(e))
    }

    #[test]
    fn every_y_group_id_goes_through_the_remapped_one() {
        let body = vec![
            decl("i", KExpr::Builtin(Builtin::GlobalId(1))),
            decl("j", KExpr::Builtin(Builtin::GlobalId(0))),
            decl("t", KExpr::Builtin(Builtin::GroupId(1))),
        ];
        let mut k = kernel(body.clone(), 2);
        apply(&mut k, BlockOrder::Diagonal { skew: 16 });
        let text = format!("{:?}", &k.body[2..]);
        assert!(
            !text.contains("GroupId(1)") && !text.contains("GlobalId(1)"),
            "{text}"
        );
        assert!(text.contains("GlobalId(0)"), "{text}");
        assert!(matches!(&k.body[1], KStmt::Decl { var, .. } if k.vars[*var].name == DIAGONAL_Y));
        // Linear, and 1-D kernels, are left alone.
        let mut l = kernel(body.clone(), 2);
        apply(&mut l, BlockOrder::Linear);
        assert_eq!(l.body, body);
        let mut one = kernel(body.clone(), 1);
        apply(&mut one, BlockOrder::Diagonal { skew: 1 });
        assert_eq!(one.body, body);
    }
}
