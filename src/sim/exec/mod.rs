//! The executor: kernel IR → a typed program with resolved slots → lock-step execution of whole
//! blocks with active masks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use super::value::{self, bin_types, convert, math_fn, to_scalar, truth, ty_of, MathImpl, Ty};
use super::*;
use crate::front::ast::{BinOp, Scalar, UnOp};
use crate::kernel::{
    ArrayRef, AtomicOp, Builtin, KExpr, KParamKind, KStmt, Kernel, LValue, Module, Space,
};

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
        cost: u32,
    },
    Store {
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: CExpr,
        value: CExpr,
        rmw: bool,
        cost: u32,
    },
    Eval(CExpr, u32),
    If {
        cond: CExpr,
        then: Vec<CStmt>,
        els: Vec<CStmt>,
        cost: u32,
    },
    Loop {
        cond: Option<CExpr>,
        step: Vec<CStmt>,
        body: Vec<CStmt>,
        test_first: bool,
        cost: u32,
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
        cost: u32,
    },
    /// A vector load: the elements `idx + k` into the registers `slots[k]` (one request).
    VecLoad {
        acc: usize,
        mem: Mem,
        idx: CExpr,
        slots: Vec<(usize, Scalar)>,
        cost: u32,
    },
    /// A vector store: `values[k]` into element `idx + k` (one request).
    VecStore {
        acc: usize,
        mem: Mem,
        elem: Scalar,
        idx: CExpr,
        values: Vec<CExpr>,
        cost: u32,
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

fn cost(e: &CExpr) -> u32 {
    match &e.node {
        Node::Const(_) | Node::Reg(_) | Node::Old | Node::Builtin(_) => 0,
        Node::Load { idx, .. } => 1 + cost(idx),
        Node::Neg(a) | Node::Not(a) | Node::BitNot(a) | Node::Conv(a) | Node::ToScalar(a, _) => {
            1 + cost(a)
        }
        Node::Bin(_, a, b) | Node::And(a, b) | Node::Or(a, b) => 1 + cost(a) + cost(b),
        Node::Cond(a, b, c) => 1 + cost(a) + cost(b) + cost(c),
        Node::Math(_, v) => 1 + v.iter().map(cost).sum::<u32>(),
    }
}
