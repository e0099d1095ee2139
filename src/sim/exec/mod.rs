//! The executor: kernel IR → a typed program with resolved slots → lock-step execution of whole
//! blocks with active masks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use super::value::{self, bin_types, convert, math_fn, to_scalar, truth, ty_of, MathImpl, Ty};
use super::*;
use crate::kernel::{
    ArrayRef, AtomicOp, Builtin, KExpr, KParamKind, KStmt, Kernel, LValue, Module, Space,
};
use crate::vocab::{BinOp, Scalar, UnOp};

mod compile;
mod run;

pub use compile::{accesses, compile};
pub use run::{run_kernel, run_program};

// ---------------------------------------------------------------------------------------------
// Compiled form
// ---------------------------------------------------------------------------------------------

#[derive(Copy, Clone, Debug, PartialEq)]
enum Mem {
    /// Index into the launch's global buffers (by kernel parameter).
    Global(usize),
    Shared(usize),
    Private(usize),
}

#[derive(Clone, Debug)]
struct CExpr {
    ty: Ty,
    node: Node,
}

#[derive(Clone, Debug)]
enum Node {
    Const(u64),
    Reg(usize),
    /// The element's old value in a compound assignment to an array element.
    Old,
    Builtin(Builtin),
    Load {
        acc: usize,
        mem: Mem,
        idx: Box<CExpr>,
    },
    Neg(Box<CExpr>),
    Not(Box<CExpr>),
    BitNot(Box<CExpr>),
    Conv(Box<CExpr>),
    ToScalar(Box<CExpr>, Scalar),
    /// Operands already converted (the right one of a shift keeps its own type).
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    And(Box<CExpr>, Box<CExpr>),
    Or(Box<CExpr>, Box<CExpr>),
    Cond(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Math(MathImpl, Vec<CExpr>),
}

#[derive(Clone, Debug)]
enum CStmt {
    SetReg {
        slot: usize,
        s: Scalar,
        value: CExpr,
        cost: Cost,
    },
    Store {
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: CExpr,
        value: CExpr,
        rmw: bool,
        cost: Cost,
    },
    Eval(CExpr, Cost),
    If {
        cond: CExpr,
        then: Vec<CStmt>,
        els: Vec<CStmt>,
        cost: Cost,
    },
    Loop {
        cond: Option<CExpr>,
        step: Vec<CStmt>,
        body: Vec<CStmt>,
        test_first: bool,
        cost: Cost,
    },
    Break,
    Continue,
    Barrier,
    Seq(Vec<CStmt>),
    /// `#pragma acc atomic`: the index and the operand are evaluated for every lane, then each
    /// lane in turn reads the element and stores the new value at once (a compare-and-swap on
    /// global memory, which the blocks of a launch share across host threads); `capture` is the
    /// register (slot, type) that gets the value before or after (`true`) the update.
    Atomic {
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: CExpr,
        value: Option<CExpr>,
        op: AtomicCOp,
        capture: Option<(usize, Scalar, bool)>,
        cost: Cost,
    },
    /// A vector load: the elements `idx + k` into the registers `slots[k]` (one request).
    VecLoad {
        acc: usize,
        mem: Mem,
        idx: CExpr,
        slots: Vec<(usize, Scalar)>,
        cost: Cost,
        /// The kernel declares the element a multiple of the vector's size from the array's
        /// start (the checker verifies it).
        aligned: bool,
    },
    /// A vector store: `values[k]` into element `idx + k` (one request).
    VecStore {
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: CExpr,
        values: Vec<CExpr>,
        cost: Cost,
    },
}

/// What an atomic statement stores (see [`crate::kernel::AtomicOp`]).
#[derive(Copy, Clone, Debug, PartialEq)]
enum AtomicCOp {
    Read,
    Write,
    /// `x = x op v`, or `x = v op x` when reversed.
    Update(BinOp, bool),
}

#[derive(Clone, Debug)]
enum Sym {
    Reg(usize, Scalar),
    Priv(usize, Scalar),
    Shared(usize, Scalar),
    Global(usize, Scalar),
}

/// A kernel compiled for the simulator.
#[derive(Clone, Debug)]
pub struct Program {
    name: String,
    block: [u32; 3],
    body: Vec<CStmt>,
    nregs: usize,
    /// (element type, length) of each private array.
    privs: Vec<(Scalar, u32)>,
    /// (element type, length, byte offset) of each shared array.
    shared: Vec<(Scalar, u32, u64)>,
    shared_bytes: u32,
    /// Kernel parameter → register (scalars) or global slot (buffers).
    params: Vec<ParamSlot>,
    /// Element type of each global slot, and its parameter's name.
    globals: Vec<(Scalar, String)>,
    pub accesses: Vec<AccessInfo>,
    /// The bank width the host sets for this kernel (Kepler's 8-byte mode), when not the
    /// platform's default.
    bank_width: Option<u32>,
    /// 32-bit registers per work-item (`Kernel::registers`, the schedule's estimate).
    registers: Option<u32>,
}

#[derive(Clone, Debug)]
enum ParamSlot {
    Reg(usize, Scalar),
    Global(usize),
}

/// Warp instructions of a statement or expression, counted two ways: every operation node
/// (`counted`), or with address arithmetic folded (`folded`: the additions, subtractions,
/// multiplications and shifts of a load's or store's index cost nothing, as in the machine code
/// of a GPU compiler that folds constant offsets into the memory instruction and
/// strength-reduces an index that moves with a loop into one increment; divisions, remainders,
/// loads of an indirect index and everything else still count). A platform says which its
/// compiler does (`timing.address_folding`): counting every node charges a staged kernel every
/// term of its tile subscripts on every access, which made the H100's staged gemm and Gauss
/// issue-bound in the model where the GPU ran them 1.4× and 1.3× faster than naive.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cost {
    counted: u32,
    folded: u32,
}

impl Cost {
    const ZERO: Cost = Cost {
        counted: 0,
        folded: 0,
    };

    /// The count for a platform whose compiler folds addresses (`fold`) or not.
    fn get(self, fold: bool) -> u32 {
        if fold {
            self.folded
        } else {
            self.counted
        }
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            counted: self.counted + o.counted,
            folded: self.folded + o.folded,
        }
    }
}

impl std::ops::Add<Cost> for u32 {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            counted: self + o.counted,
            folded: self + o.folded,
        }
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(it: I) -> Cost {
        it.fold(Cost::ZERO, |a, b| a + b)
    }
}

/// The instructions of an address (the index of a load or store): see [`Cost`].
fn address_cost(e: &CExpr) -> Cost {
    let folded = |e: &CExpr| -> u32 {
        fn go(e: &CExpr) -> u32 {
            match &e.node {
                Node::Bin(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl, a, b) => go(a) + go(b),
                Node::Conv(a) | Node::ToScalar(a, _) | Node::Neg(a) => go(a),
                _ => cost(e).folded,
            }
        }
        go(e)
    };
    Cost {
        counted: cost(e).counted,
        folded: folded(e),
    }
}

/// Warp instructions of an expression: one per operation node (see [`Cost`]).
fn cost(e: &CExpr) -> Cost {
    match &e.node {
        Node::Const(_) | Node::Reg(_) | Node::Old | Node::Builtin(_) => Cost::ZERO,
        Node::Load { idx, .. } => 1 + address_cost(idx),
        Node::Neg(a) | Node::Not(a) | Node::BitNot(a) | Node::Conv(a) | Node::ToScalar(a, _) => {
            1 + cost(a)
        }
        Node::Bin(_, a, b) | Node::And(a, b) | Node::Or(a, b) => 1 + (cost(a) + cost(b)),
        Node::Cond(a, b, c) => 1 + (cost(a) + cost(b) + cost(c)),
        Node::Math(_, v) => 1 + v.iter().map(cost).sum::<Cost>(),
    }
}
