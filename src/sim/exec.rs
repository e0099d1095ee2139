//! The executor: kernel IR → a typed program with resolved slots → lock-step execution of whole
//! blocks with active masks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use super::value::{self, bin_types, convert, math_fn, to_scalar, truth, ty_of, MathFn, Ty};
use super::*;
use crate::front::ast::{BinOp, Scalar, UnOp};
use crate::kernel::{ArrayRef, Builtin, KExpr, KParamKind, KStmt, Kernel, LValue, Module, Space};

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
    Math(MathFn, Vec<CExpr>),
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

struct Compiler<'k> {
    kernel: &'k Kernel,
    scopes: Vec<HashMap<String, Sym>>,
    nregs: usize,
    privs: Vec<(Scalar, u32)>,
    accesses: Vec<AccessInfo>,
}

fn conv(e: CExpr, to: Ty) -> CExpr {
    if e.ty == to {
        e
    } else {
        CExpr {
            ty: to,
            node: Node::Conv(Box::new(e)),
        }
    }
}

impl<'k> Compiler<'k> {
    fn lookup(&self, n: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(n))
    }

    fn err(&self, what: String) -> SimError {
        SimError::Unsupported(format!("kernel `{}`: {}", self.kernel.name, what))
    }

    fn expr(&mut self, e: &KExpr) -> Result<CExpr, SimError> {
        Ok(match e {
            KExpr::Var(n) => match self.lookup(n) {
                Some(Sym::Reg(r, s)) => CExpr {
                    ty: ty_of(*s),
                    node: Node::Reg(*r),
                },
                _ => return Err(self.err(format!("`{}` is not a scalar in scope", n))),
            },
            KExpr::Int(v, s) => CExpr {
                ty: ty_of(*s),
                node: Node::Const(value::int_const(*v, *s)),
            },
            KExpr::Float(v, single) => {
                if *single {
                    CExpr {
                        ty: Ty::F32,
                        node: Node::Const((*v as f32).to_bits() as u64),
                    }
                } else {
                    CExpr {
                        ty: Ty::F64,
                        node: Node::Const(v.to_bits()),
                    }
                }
            }
            KExpr::Load(r) => {
                let (acc, mem, elem) = self.access(r, AccessKind::Load)?;
                let idx = self.expr(&r.index)?;
                if idx.ty.is_float() {
                    return Err(self.err(format!("index of `{}` is not an integer", r.array)));
                }
                CExpr {
                    ty: ty_of(elem),
                    node: Node::Load {
                        acc,
                        mem,
                        idx: Box::new(idx),
                    },
                }
            }
            KExpr::Unary(op, a) => {
                let a = self.expr(a)?;
                match op {
                    UnOp::Plus => a,
                    UnOp::Neg => CExpr {
                        ty: a.ty,
                        node: Node::Neg(Box::new(a)),
                    },
                    UnOp::Not => CExpr {
                        ty: Ty::I32,
                        node: Node::Not(Box::new(a)),
                    },
                    UnOp::BitNot if !a.ty.is_float() => CExpr {
                        ty: a.ty,
                        node: Node::BitNot(Box::new(a)),
                    },
                    _ => return Err(self.err(format!("unary operator {:?}", op))),
                }
            }
            KExpr::Binary(op, a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                self.binary(*op, a, b)?
            }
            KExpr::Cond(c, a, b) => {
                let c = self.expr(c)?;
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                let t = value::common(a.ty, b.ty);
                CExpr {
                    ty: t,
                    node: Node::Cond(Box::new(c), Box::new(conv(a, t)), Box::new(conv(b, t))),
                }
            }
            KExpr::Cast(s, a) => {
                let a = self.expr(a)?;
                CExpr {
                    ty: ty_of(*s),
                    node: Node::ToScalar(Box::new(a), *s),
                }
            }
            KExpr::Call(name, args) => {
                let Some((f, single)) = math_fn(name) else {
                    return Err(self.err(format!("function `{}`", name)));
                };
                let mut cargs = Vec::new();
                for a in args {
                    cargs.push(self.expr(a)?);
                }
                let arity = match f {
                    MathFn::F1(..) | MathFn::IAbs => 1,
                    MathFn::F2(..) | MathFn::IMin | MathFn::IMax => 2,
                    MathFn::F3(..) => 3,
                };
                if cargs.len() != arity {
                    return Err(self.err(format!("`{}` takes {} arguments", name, arity)));
                }
                let t = match f {
                    MathFn::IAbs => match cargs[0].ty {
                        Ty::F32 | Ty::F64 => cargs[0].ty,
                        t => t,
                    },
                    MathFn::IMin | MathFn::IMax => value::common(cargs[0].ty, cargs[1].ty),
                    _ if single => Ty::F32,
                    _ => Ty::F64,
                };
                CExpr {
                    ty: t,
                    node: Node::Math(f, cargs.into_iter().map(|a| conv(a, t)).collect()),
                }
            }
            KExpr::Builtin(b) => CExpr {
                // The kernel IR's built-ins are `int` (the back ends print `(int)get_local_id(0)`,
                // `(int)threadIdx.x`): simulate that type, or `get_group_id(1) * 32 - 1 >= -1`
                // would compare as unsigned. The values are small and non-negative, so their
                // raw bits are the same.
                ty: Ty::I32,
                node: Node::Builtin(*b),
            },
        })
    }

    fn binary(&self, op: BinOp, a: CExpr, b: CExpr) -> Result<CExpr, SimError> {
        Ok(match op {
            BinOp::LogAnd => CExpr {
                ty: Ty::I32,
                node: Node::And(Box::new(a), Box::new(b)),
            },
            BinOp::LogOr => CExpr {
                ty: Ty::I32,
                node: Node::Or(Box::new(a), Box::new(b)),
            },
            _ => {
                let is_int = !matches!(
                    op,
                    BinOp::Rem
                        | BinOp::Shl
                        | BinOp::Shr
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                );
                if !is_int && (a.ty.is_float() || b.ty.is_float()) {
                    return Err(self.err(format!("`{}` on floating operands", op.c_op())));
                }
                let (rt, ot) = bin_types(op, a.ty, b.ty);
                let (a, b) = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    (a, b)
                } else {
                    (conv(a, ot), conv(b, ot))
                };
                CExpr {
                    ty: rt,
                    node: Node::Bin(op, Box::new(a), Box::new(b)),
                }
            }
        })
    }

    fn access(&mut self, r: &ArrayRef, kind: AccessKind) -> Result<(usize, Mem, Scalar), SimError> {
        let (mem, elem) = match (r.space, self.lookup(&r.array)) {
            (Space::Global, Some(Sym::Global(g, s))) => (Mem::Global(*g), *s),
            (Space::Local, Some(Sym::Shared(g, s))) => (Mem::Shared(*g), *s),
            (Space::Private, Some(Sym::Priv(g, s))) => (Mem::Private(*g), *s),
            _ => {
                return Err(self.err(format!(
                    "`{}` is not a {:?} array in scope",
                    r.array, r.space
                )))
            }
        };
        let id = self.accesses.len();
        self.accesses.push(AccessInfo {
            id,
            label: format!(
                "{}#{} {}[{}]",
                self.kernel.name,
                id,
                r.array,
                print_expr(&r.index, 0)
            ),
            array: r.array.clone(),
            space: r.space,
            kind,
            elem,
        });
        Ok((id, mem, elem))
    }

    fn stmts(&mut self, v: &[KStmt]) -> Result<Vec<CStmt>, SimError> {
        let mut out = Vec::new();
        for s in v {
            if let Some(c) = self.stmt(s)? {
                out.push(c);
            }
        }
        Ok(out)
    }

    fn scoped(&mut self, v: &[KStmt]) -> Result<Vec<CStmt>, SimError> {
        self.scopes.push(HashMap::new());
        let r = self.stmts(v);
        self.scopes.pop();
        r
    }

    fn stmt(&mut self, s: &KStmt) -> Result<Option<CStmt>, SimError> {
        Ok(Some(match s {
            KStmt::Decl {
                name,
                ty,
                len,
                init,
            } => {
                if let Some(n) = len {
                    let slot = self.privs.len();
                    self.privs.push((*ty, *n));
                    self.scopes
                        .last_mut()
                        .map(|sc| sc.insert(name.clone(), Sym::Priv(slot, *ty)));
                    return Ok(None);
                }
                let value = match init {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let slot = self.nregs;
                self.nregs += 1;
                self.scopes
                    .last_mut()
                    .map(|sc| sc.insert(name.clone(), Sym::Reg(slot, *ty)));
                match value {
                    Some(value) => CStmt::SetReg {
                        slot,
                        s: *ty,
                        cost: 1 + cost(&value),
                        value,
                    },
                    None => return Ok(None),
                }
            }
            KStmt::Assign { target, op, value } => {
                match target {
                    LValue::Var(n) => {
                        let v = self.expr(value)?;
                        let Some(Sym::Reg(slot, sc)) = self.lookup(n).cloned() else {
                            return Err(self.err(format!("`{}` is not a scalar in scope", n)));
                        };
                        let value = match op {
                            None => v,
                            Some(op) => {
                                let old = CExpr {
                                    ty: ty_of(sc),
                                    node: Node::Reg(slot),
                                };
                                self.binary(*op, old, v)?
                            }
                        };
                        CStmt::SetReg {
                            slot,
                            s: sc,
                            cost: 1 + cost(&value),
                            value,
                        }
                    }
                    LValue::Elem(r) => {
                        let kind = if op.is_some() {
                            AccessKind::Update
                        } else {
                            AccessKind::Store
                        };
                        // The target is numbered before the value's accesses.
                        let (acc, mem, elem) = self.access(r, kind)?;
                        let idx = self.expr(&r.index)?;
                        let v = self.expr(value)?;
                        let value = match op {
                            None => v,
                            Some(op) => {
                                let old = CExpr {
                                    ty: ty_of(elem),
                                    node: Node::Old,
                                };
                                self.binary(*op, old, v)?
                            }
                        };
                        CStmt::Store {
                            acc,
                            mem,
                            elem,
                            cost: 1 + cost(&value) + cost(&idx),
                            idx,
                            value,
                            rmw: op.is_some(),
                        }
                    }
                }
            }
            KStmt::Expr(e) => {
                let e = self.expr(e)?;
                let c = cost(&e);
                CStmt::Eval(e, c)
            }
            KStmt::If { cond, then, els } => {
                let cond = self.expr(cond)?;
                CStmt::If {
                    cost: 1 + cost(&cond),
                    cond,
                    then: self.scoped(then)?,
                    els: self.scoped(els)?,
                }
            }
            KStmt::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(HashMap::new());
                let r = (|| {
                    let init = self.stmts(init)?;
                    let cond = match cond {
                        Some(c) => Some(self.expr(c)?),
                        None => None,
                    };
                    let body = self.scoped(body)?;
                    let step = self.stmts(step)?;
                    let mut seq = init;
                    seq.push(CStmt::Loop {
                        cost: 1 + cond.as_ref().map(cost).unwrap_or(0),
                        cond,
                        step,
                        body,
                        test_first: true,
                    });
                    Ok(CStmt::Seq(seq))
                })();
                self.scopes.pop();
                r?
            }
            KStmt::While { cond, body } => {
                let cond = self.expr(cond)?;
                CStmt::Loop {
                    cost: 1 + cost(&cond),
                    cond: Some(cond),
                    step: Vec::new(),
                    body: self.scoped(body)?,
                    test_first: true,
                }
            }
            KStmt::DoWhile { body, cond } => {
                let body = self.scoped(body)?;
                let cond = self.expr(cond)?;
                CStmt::Loop {
                    cost: 1 + cost(&cond),
                    cond: Some(cond),
                    step: Vec::new(),
                    body,
                    test_first: false,
                }
            }
            KStmt::Break => CStmt::Break,
            KStmt::Continue => CStmt::Continue,
            KStmt::Barrier => CStmt::Barrier,
            KStmt::Block(b) => CStmt::Seq(self.scoped(b)?),
            KStmt::Comment(_) => return Ok(None),
        }))
    }
}

/// Compiles a kernel for the simulator.
pub fn compile(kernel: &Kernel) -> Result<Program, SimError> {
    let mut c = Compiler {
        kernel,
        scopes: vec![HashMap::new()],
        nregs: 0,
        privs: Vec::new(),
        accesses: Vec::new(),
    };
    let mut params = Vec::new();
    let mut globals = Vec::new();
    for p in &kernel.params {
        match &p.kind {
            KParamKind::Buffer { elem, .. } => {
                let g = globals.len();
                globals.push((*elem, p.name.clone()));
                params.push(ParamSlot::Global(g));
                c.scopes[0].insert(p.name.clone(), Sym::Global(g, *elem));
            }
            KParamKind::Scalar(s) => {
                let r = c.nregs;
                c.nregs += 1;
                params.push(ParamSlot::Reg(r, *s));
                c.scopes[0].insert(p.name.clone(), Sym::Reg(r, *s));
            }
        }
    }
    let mut shared = Vec::new();
    let mut off = 0u64;
    for (i, l) in kernel.locals.iter().enumerate() {
        let size = l.elem.size() as u64;
        off = off.div_ceil(size.max(4)) * size.max(4);
        shared.push((l.elem, l.len, off));
        off += size * l.len as u64;
        c.scopes[0].insert(l.name.clone(), Sym::Shared(i, l.elem));
    }
    c.scopes.push(HashMap::new());
    let body = c.stmts(&kernel.body)?;
    Ok(Program {
        name: kernel.name.clone(),
        block: kernel.block,
        body,
        nregs: c.nregs,
        privs: c.privs,
        shared,
        shared_bytes: off as u32,
        params,
        globals,
        accesses: c.accesses,
    })
}

/// The accesses (static memory instructions) of a kernel, numbered as the simulator numbers
/// them.
pub fn accesses(kernel: &Kernel) -> Result<Vec<AccessInfo>, SimError> {
    compile(kernel).map(|p| p.accesses)
}

// ---------------------------------------------------------------------------------------------
// Printing index expressions for labels
// ---------------------------------------------------------------------------------------------

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

/// C text of an expression (for labels), parenthesized where precedence needs it.
pub fn print_expr(e: &KExpr, outer: u8) -> String {
    match e {
        KExpr::Var(v) => v.clone(),
        KExpr::Int(v, _) => v.to_string(),
        KExpr::Float(v, s) => format!("{}{}", v, if *s { "f" } else { "" }),
        KExpr::Load(r) => format!("{}[{}]", r.array, print_expr(&r.index, 0)),
        KExpr::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::Plus => "+",
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::Deref => "*",
                UnOp::AddrOf => "&",
            };
            format!("{}{}", o, print_expr(a, 11))
        }
        KExpr::Binary(op, a, b) => {
            let p = prec(*op);
            let s = format!(
                "{} {} {}",
                print_expr(a, p),
                op.c_op(),
                print_expr(b, p + 1)
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
                print_expr(c, 1),
                print_expr(a, 0),
                print_expr(b, 0)
            );
            if outer > 0 {
                format!("({})", s)
            } else {
                s
            }
        }
        KExpr::Cast(t, a) => format!("({}){}", t.c_name(), print_expr(a, 11)),
        KExpr::Call(f, args) => format!(
            "{}({})",
            f,
            args.iter()
                .map(|a| print_expr(a, 0))
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

// ---------------------------------------------------------------------------------------------
// Run time
// ---------------------------------------------------------------------------------------------

const MULTI: u64 = 1 << 63;

struct GBuf {
    data: Vec<AtomicU64>,
    elem: Scalar,
    size: u64,
    base: u64,
    /// Bit 0: read, bit 1: written (footprint).
    foot: Vec<AtomicU8>,
    /// Checker shadows: last writer (global thread + 1) and first reader (+1, `MULTI` if more).
    wr: Vec<AtomicU64>,
    rd: Vec<AtomicU64>,
    /// Buffer index in the caller's slice.
    src: usize,
}

struct Env<'a> {
    p: &'a Program,
    globals: Vec<GBuf>,
    platform: &'a SimPlatform,
    opts: &'a SimOptions,
    grid: [u32; 3],
    block: [u32; 3],
    threads: usize,
    params: Vec<u64>,
}

impl Env<'_> {
    fn thread_of(&self, g: u64) -> ThreadId {
        let n = self.threads as u64;
        let (b, t) = (g / n, g % n);
        let unl = |x: u64, d: [u32; 3]| {
            let d0 = d[0].max(1) as u64;
            let d1 = d[1].max(1) as u64;
            [
                (x % d0) as u32,
                ((x / d0) % d1) as u32,
                (x / (d0 * d1)) as u32,
            ]
        };
        ThreadId {
            block: unl(b, self.grid),
            thread: unl(t, self.block),
        }
    }
}

type Mask = Vec<u64>;

fn any(m: &[u64]) -> bool {
    m.iter().any(|&w| w != 0)
}

fn bit(m: &[u64], t: usize) -> bool {
    m[t / 64] >> (t % 64) & 1 != 0
}

fn for_each(m: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in m.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let b = x.trailing_zeros() as usize;
            f(w * 64 + b);
            x &= x - 1;
        }
    }
}

struct Blk<'a, 'e> {
    env: &'a Env<'e>,
    n: usize,
    group: [u32; 3],
    block_linear: u64,
    lid: [Vec<u64>; 3],
    regs: Vec<Vec<u64>>,
    privs: Vec<Vec<u64>>,
    shared: Vec<Vec<u64>>,
    sh_init: Vec<Vec<bool>>,
    sh_w: Vec<Vec<u32>>,
    sh_r: Vec<Vec<u32>>,
    sh_epoch: Vec<Vec<u32>>,
    epoch: u32,
    loops: Vec<(Mask, Mask)>,
    old: Vec<u64>,
    pool: Vec<Vec<u64>>,
    full: Mask,
    counts: Vec<AccessCounts>,
    instructions: u64,
    flops: u64,
    findings: Vec<Finding>,
    seen: HashMap<(FindingKind, usize), usize>,
    iterations: u64,
}

const NO_ACC: usize = usize::MAX;

impl<'a, 'e> Blk<'a, 'e> {
    fn new(env: &'a Env<'e>) -> Self {
        let p = env.p;
        let n = env.threads;
        let [bx, by, _] = env.block;
        let (bx, by) = (bx as usize, by as usize);
        let lid = [
            (0..n).map(|t| (t % bx) as u64).collect(),
            (0..n).map(|t| ((t / bx) % by) as u64).collect(),
            (0..n).map(|t| (t / (bx * by)) as u64).collect(),
        ];
        let mut regs = vec![vec![0u64; n]; p.nregs];
        for (i, ps) in p.params.iter().enumerate() {
            if let ParamSlot::Reg(r, _) = ps {
                regs[*r] = vec![env.params[i]; n];
            }
        }
        let words = n.div_ceil(64);
        let mut full = vec![0u64; words];
        for t in 0..n {
            full[t / 64] |= 1 << (t % 64);
        }
        let check = env.opts.check;
        let sh = |x: u32| if check { x } else { 0 };
        Blk {
            env,
            n,
            group: [0; 3],
            block_linear: 0,
            lid,
            regs,
            privs: p
                .privs
                .iter()
                .map(|(_, l)| vec![0u64; *l as usize * n])
                .collect(),
            shared: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0u64; *l as usize])
                .collect(),
            sh_init: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![false; sh(*l) as usize])
                .collect(),
            sh_w: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            sh_r: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            sh_epoch: p
                .shared
                .iter()
                .map(|(_, l, _)| vec![0; sh(*l) as usize])
                .collect(),
            epoch: 1,
            loops: Vec::new(),
            old: vec![0; n],
            pool: Vec::new(),
            full,
            counts: vec![AccessCounts::default(); p.accesses.len()],
            instructions: 0,
            flops: 0,
            findings: Vec::new(),
            seen: HashMap::new(),
            iterations: 0,
        }
    }

    fn reset(&mut self, group: [u32; 3], linear: u64) {
        self.group = group;
        self.block_linear = linear;
        // Shared memory starts undefined; registers keep nothing between blocks that matters
        // (declarations assign before use in lowered code; the checker tracks shared only).
        for (i, v) in self.sh_init.iter_mut().enumerate() {
            v.iter_mut().for_each(|x| *x = false);
            self.sh_epoch[i].iter_mut().for_each(|x| *x = 0);
        }
        self.epoch = 1;
        self.iterations = 0;
        for (i, ps) in self.env.p.params.iter().enumerate() {
            if let ParamSlot::Reg(r, _) = ps {
                let v = self.env.params[i];
                self.regs[*r].iter_mut().for_each(|x| *x = v);
            }
        }
    }

    fn take(&mut self) -> Vec<u64> {
        match self.pool.pop() {
            Some(v) => v,
            None => vec![0; self.n],
        }
    }

    fn give(&mut self, v: Vec<u64>) {
        self.pool.push(v);
    }

    fn tid(&self, t: usize) -> ThreadId {
        ThreadId {
            block: self.group,
            thread: [
                self.lid[0][t] as u32,
                self.lid[1][t] as u32,
                self.lid[2][t] as u32,
            ],
        }
    }

    fn find(
        &mut self,
        kind: FindingKind,
        acc: usize,
        t: usize,
        other: Option<ThreadId>,
        detail: String,
    ) {
        let c = self.seen.entry((kind, acc)).or_insert(0);
        *c += 1;
        if *c > self.env.opts.max_findings {
            return;
        }
        self.findings.push(Finding {
            kind,
            kernel: self.env.p.name.clone(),
            access: self.env.p.accesses.get(acc).map(|a| a.label.clone()),
            thread: self.tid(t),
            other,
            detail,
        });
    }

    fn warps(&self) -> usize {
        self.n.div_ceil(self.env.platform.warp as usize)
    }

    fn warp_bits(&self, m: &[u64], w: usize) -> u64 {
        let ws = self.env.platform.warp as usize;
        if ws >= 64 {
            m[w]
        } else {
            let per = 64 / ws;
            (m[w / per] >> ((w % per) * ws)) & ((1u64 << ws) - 1)
        }
    }

    fn active_warps(&self, m: &[u64]) -> u64 {
        (0..self.warps())
            .filter(|&w| self.warp_bits(m, w) != 0)
            .count() as u64
    }

    // ---- expressions ------------------------------------------------------------------------

    fn eval(&mut self, e: &CExpr, m: &[u64]) -> Vec<u64> {
        match &e.node {
            Node::Const(c) => {
                let mut v = self.take();
                v.fill(*c);
                v
            }
            Node::Reg(r) => {
                let mut v = self.take();
                v.copy_from_slice(&self.regs[*r]);
                v
            }
            Node::Old => {
                let mut v = self.take();
                v.copy_from_slice(&self.old);
                v
            }
            Node::Builtin(b) => {
                let mut v = self.take();
                let env = self.env;
                match *b {
                    Builtin::LocalId(d) => v.copy_from_slice(&self.lid[d.min(2) as usize]),
                    Builtin::GroupId(d) => v.fill(self.group[d.min(2) as usize] as u64),
                    Builtin::LocalSize(d) => v.fill(env.block[d.min(2) as usize] as u64),
                    Builtin::NumGroups(d) => v.fill(env.grid[d.min(2) as usize] as u64),
                    Builtin::GlobalId(d) => {
                        let d = d.min(2) as usize;
                        let base = self.group[d] as u64 * env.block[d] as u64;
                        for (x, l) in v.iter_mut().zip(self.lid[d].iter()) {
                            *x = base + l;
                        }
                    }
                }
                v
            }
            Node::Load { acc, mem, idx } => {
                let ix = self.eval(idx, m);
                let out = self.load(*acc, *mem, &ix, idx.ty, m);
                self.give(ix);
                out
            }
            Node::Neg(a) => {
                let mut v = self.eval(a, m);
                for x in v.iter_mut() {
                    *x = match e.ty {
                        Ty::I32 => (*x as i32).wrapping_neg() as i64 as u64,
                        Ty::U32 => (*x as u32).wrapping_neg() as u64,
                        Ty::I64 | Ty::U64 => x.wrapping_neg(),
                        Ty::F32 => (-f32::from_bits(*x as u32)).to_bits() as u64,
                        Ty::F64 => (-f64::from_bits(*x)).to_bits(),
                    };
                }
                v
            }
            Node::Not(a) => {
                let mut v = self.eval(a, m);
                for x in v.iter_mut() {
                    *x = !truth(*x, a.ty) as u64;
                }
                v
            }
            Node::BitNot(a) => {
                let mut v = self.eval(a, m);
                for x in v.iter_mut() {
                    *x = convert(!*x, Ty::U64, e.ty);
                }
                v
            }
            Node::Conv(a) => {
                let mut v = self.eval(a, m);
                for x in v.iter_mut() {
                    *x = convert(*x, a.ty, e.ty);
                }
                v
            }
            Node::ToScalar(a, s) => {
                let mut v = self.eval(a, m);
                for x in v.iter_mut() {
                    *x = to_scalar(*x, a.ty, *s);
                }
                v
            }
            Node::Bin(op, a, b) => {
                let mut va = self.eval(a, m);
                let vb = self.eval(b, m);
                if matches!(op, BinOp::Div | BinOp::Rem) && !a.ty.is_float() && self.env.opts.check
                {
                    let mut zero = None;
                    for_each(m, |t| {
                        if vb[t] == 0 && zero.is_none() {
                            zero = Some(t);
                        }
                    });
                    if let Some(t) = zero {
                        self.find(FindingKind::DivisionByZero, NO_ACC, t, None, String::new());
                    }
                }
                if a.ty.is_float() {
                    self.flops += m.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                }
                value::bin_lanes(*op, a.ty, b.ty, &mut va, &vb);
                self.give(vb);
                va
            }
            Node::And(a, b) | Node::Or(a, b) => {
                let is_and = matches!(e.node, Node::And(..));
                let mut va = self.eval(a, m);
                let mut m2 = m.to_vec();
                for (t, x) in va.iter_mut().enumerate() {
                    let tv = truth(*x, a.ty);
                    *x = tv as u64;
                    if tv != is_and {
                        m2[t / 64] &= !(1 << (t % 64));
                    }
                }
                if any(&m2) {
                    let vb = self.eval(b, &m2);
                    for_each(&m2, |t| va[t] = truth(vb[t], b.ty) as u64);
                    self.give(vb);
                }
                va
            }
            Node::Cond(c, a, b) => {
                let vc = self.eval(c, m);
                let mut mt = m.to_vec();
                let mut mf = m.to_vec();
                for t in 0..self.n {
                    if truth(vc[t], c.ty) {
                        mf[t / 64] &= !(1 << (t % 64));
                    } else {
                        mt[t / 64] &= !(1 << (t % 64));
                    }
                }
                let mut va = if any(&mt) {
                    self.eval(a, &mt)
                } else {
                    self.take()
                };
                if any(&mf) {
                    let vb = self.eval(b, &mf);
                    for_each(&mf, |t| va[t] = vb[t]);
                    self.give(vb);
                }
                self.give(vc);
                va
            }
            Node::Math(f, args) => {
                let mut vs: Vec<Vec<u64>> = args.iter().map(|a| self.eval(a, m)).collect();
                let t = e.ty;
                let mut out = self.take();
                let lf = |x: u64| f32::from_bits(x as u32);
                let ld = f64::from_bits;
                for i in 0..self.n {
                    out[i] = match (f, t) {
                        (MathFn::F1(_, g), Ty::F32) => g(lf(vs[0][i])).to_bits() as u64,
                        (MathFn::F1(g, _), _) => g(ld(vs[0][i])).to_bits(),
                        (MathFn::F2(_, g), Ty::F32) => {
                            g(lf(vs[0][i]), lf(vs[1][i])).to_bits() as u64
                        }
                        (MathFn::F2(g, _), _) => g(ld(vs[0][i]), ld(vs[1][i])).to_bits(),
                        (MathFn::F3(_, g), Ty::F32) => {
                            g(lf(vs[0][i]), lf(vs[1][i]), lf(vs[2][i])).to_bits() as u64
                        }
                        (MathFn::F3(g, _), _) => {
                            g(ld(vs[0][i]), ld(vs[1][i]), ld(vs[2][i])).to_bits()
                        }
                        (MathFn::IAbs, Ty::F32) => lf(vs[0][i]).abs().to_bits() as u64,
                        (MathFn::IAbs, Ty::F64) => ld(vs[0][i]).abs().to_bits(),
                        (MathFn::IAbs, _) => {
                            convert((vs[0][i] as i64).wrapping_abs() as u64, Ty::I64, t)
                        }
                        (MathFn::IMin | MathFn::IMax, _) => {
                            let mut a = vec![vs[0][i]];
                            value::bin_lanes(BinOp::Lt, t, t, &mut a, &[vs[1][i]]);
                            let lt = a[0] != 0;
                            if lt == matches!(f, MathFn::IMin) {
                                vs[0][i]
                            } else {
                                vs[1][i]
                            }
                        }
                    };
                }
                if t.is_float() {
                    self.flops += m.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                }
                for v in vs.drain(..) {
                    self.give(v);
                }
                out
            }
        }
    }

    fn index(v: u64, t: Ty) -> i64 {
        match t {
            Ty::U64 if v > i64::MAX as u64 => i64::MAX,
            _ => v as i64,
        }
    }

    // ---- memory -----------------------------------------------------------------------------

    fn global_request(&mut self, acc: usize, g: usize, ix: &[u64], ity: Ty, m: &[u64]) {
        let env = self.env;
        let buf = &env.globals[g];
        let (sector, line) = (env.platform.sector as u64, env.platform.line as u64);
        let ws = env.platform.warp as usize;
        let mut addrs = [0u64; 64];
        for w in 0..self.warps() {
            let bits = self.warp_bits(m, w);
            if bits == 0 {
                continue;
            }
            let mut k = 0;
            let mut x = bits;
            while x != 0 {
                let l = x.trailing_zeros() as usize;
                x &= x - 1;
                let t = w * ws + l;
                let i = Self::index(ix[t], ity);
                addrs[k] = buf.base.wrapping_add((i as u64).wrapping_mul(buf.size));
                k += 1;
            }
            let a = &mut addrs[..k];
            a.sort_unstable();
            let mut u = 0;
            let (mut sectors, mut lines) = (0u64, 0u64);
            let (mut last_s, mut last_l) = (u64::MAX, u64::MAX);
            let mut prev = u64::MAX;
            for &ad in a.iter() {
                if ad == prev {
                    continue;
                }
                prev = ad;
                u += 1;
                // Elements never straddle a sector: sizes are powers of two ≤ 8 and aligned.
                if ad / sector != last_s {
                    last_s = ad / sector;
                    sectors += 1;
                }
                if ad / line != last_l {
                    last_l = ad / line;
                    lines += 1;
                }
            }
            let bytes = u as u64 * buf.size;
            let c = &mut self.counts[acc];
            c.requests += 1;
            c.lanes += k as u64;
            c.sectors += sectors;
            c.lines += lines;
            let min_s = bytes.div_ceil(sector);
            c.min_sectors += min_s;
            c.min_lines += bytes.div_ceil(line);
            c.bytes += bytes;
            if u == 1 {
                c.broadcast_requests += 1;
            }
            let min_l = bytes.div_ceil(line);
            if sectors > min_s || lines > min_l {
                if a[k - 1] - a[0] + buf.size == bytes {
                    c.misaligned_requests += 1;
                } else {
                    c.strided_requests += 1;
                }
            }
        }
    }

    fn shared_request(&mut self, acc: usize, s: usize, ix: &[u64], ity: Ty, m: &[u64]) {
        let env = self.env;
        let (elem, _, base) = env.p.shared[s];
        let size = elem.size() as u64;
        let bw = env.platform.bank_width as u64;
        let banks = env.platform.banks as usize;
        let ws = env.platform.warp as usize;
        let mut words: Vec<u64> = Vec::with_capacity(128);
        let mut per_bank = vec![0u32; banks];
        for w in 0..self.warps() {
            let bits = self.warp_bits(m, w);
            if bits == 0 {
                continue;
            }
            words.clear();
            let mut x = bits;
            let mut k = 0;
            while x != 0 {
                let l = x.trailing_zeros() as usize;
                x &= x - 1;
                k += 1;
                let t = w * ws + l;
                let i = Self::index(ix[t], ity);
                let b = base.wrapping_add((i as u64).wrapping_mul(size));
                let mut wd = b / bw;
                while wd <= (b + size - 1) / bw {
                    words.push(wd);
                    wd += 1;
                }
            }
            words.sort_unstable();
            words.dedup();
            per_bank.iter_mut().for_each(|x| *x = 0);
            for wd in &words {
                per_bank[(*wd % banks as u64) as usize] += 1;
            }
            let degree = per_bank.iter().copied().max().unwrap_or(1).max(1);
            let c = &mut self.counts[acc];
            c.requests += 1;
            c.lanes += k;
            c.bytes += words.len() as u64 * bw;
            c.wavefronts += degree as u64;
            c.max_degree = c.max_degree.max(degree);
        }
    }

    fn load(&mut self, acc: usize, mem: Mem, ix: &[u64], ity: Ty, m: &[u64]) -> Vec<u64> {
        let mut out = self.take();
        let check = self.env.opts.check;
        match mem {
            Mem::Global(g) => {
                self.global_request(acc, g, ix, ity, m);
                let env = self.env;
                let buf = &env.globals[g];
                let len = buf.data.len() as i64;
                let tpb = env.threads as u64;
                let mut oob = None;
                let mut race = None;
                for_each(m, |t| {
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        if oob.is_none() {
                            oob = Some((t, i));
                        }
                        return;
                    }
                    let i = i as usize;
                    out[t] = buf.data[i].load(Relaxed);
                    buf.foot[i].fetch_or(1, Relaxed);
                    if check {
                        let me = self.block_linear * tpb + t as u64 + 1;
                        let w = buf.wr[i].load(Relaxed);
                        if w != 0 && w != me && race.is_none() {
                            race = Some((t, w - 1, i));
                        }
                        let r = buf.rd[i].load(Relaxed);
                        if r == 0 {
                            buf.rd[i].store(me, Relaxed);
                        } else if r & !MULTI != me {
                            buf.rd[i].store(r | MULTI, Relaxed);
                        }
                    }
                });
                if let Some((t, i)) = oob {
                    let len = buf.data.len();
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a buffer of {} elements", i, len),
                    );
                }
                if let Some((t, o, i)) = race {
                    let other = env.thread_of(o);
                    self.find(
                        FindingKind::GlobalRace,
                        acc,
                        t,
                        Some(other),
                        format!("element {} read here was written by the other thread", i),
                    );
                }
            }
            Mem::Shared(s) => {
                self.shared_request(acc, s, ix, ity, m);
                let len = self.shared[s].len() as i64;
                let mut oob = None;
                let mut uninit = None;
                let mut race = None;
                let epoch = self.epoch;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        oob.get_or_insert((t, i));
                        continue;
                    }
                    let i = i as usize;
                    out[t] = self.shared[s][i];
                    if check {
                        if !self.sh_init[s][i] {
                            uninit.get_or_insert((t, i));
                        }
                        if self.sh_epoch[s][i] != epoch {
                            self.sh_epoch[s][i] = epoch;
                            self.sh_w[s][i] = 0;
                            self.sh_r[s][i] = 0;
                        }
                        let me = t as u32 + 1;
                        let w = self.sh_w[s][i];
                        if w != 0 && w != me {
                            race.get_or_insert((t, w as usize - 1, i));
                        }
                        let r = self.sh_r[s][i];
                        if r == 0 {
                            self.sh_r[s][i] = me;
                        } else if r & 0x7fff_ffff != me {
                            self.sh_r[s][i] = r | 0x8000_0000;
                        }
                    }
                }
                let len = self.shared[s].len();
                if let Some((t, i)) = oob {
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a shared array of {} elements", i, len),
                    );
                }
                if let Some((t, i)) = uninit {
                    self.find(
                        FindingKind::UninitializedShared,
                        acc,
                        t,
                        None,
                        format!("element {} was not written in this block", i),
                    );
                }
                if let Some((t, o, i)) = race {
                    let other = self.tid(o);
                    self.find(
                        FindingKind::SharedRace,
                        acc,
                        t,
                        Some(other),
                        format!("element {} read here was written by the other thread since the last barrier", i),
                    );
                }
            }
            Mem::Private(p) => {
                let len = self.env.p.privs[p].1 as i64;
                let mut oob = None;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        out[t] = 0;
                        oob.get_or_insert((t, i));
                        continue;
                    }
                    out[t] = self.privs[p][t * len as usize + i as usize];
                }
                if let Some((t, i)) = oob {
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a private array of {} elements", i, len),
                    );
                }
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        acc: usize,
        mem: Mem,
        elem: Scalar,
        ix: &[u64],
        ity: Ty,
        v: &[u64],
        vt: Ty,
        m: &[u64],
    ) {
        let check = self.env.opts.check;
        match mem {
            Mem::Global(g) => {
                self.global_request(acc, g, ix, ity, m);
                let env = self.env;
                let buf = &env.globals[g];
                let len = buf.data.len() as i64;
                let tpb = env.threads as u64;
                let mut oob = None;
                let mut race = None;
                for_each(m, |t| {
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        oob.get_or_insert((t, i));
                        return;
                    }
                    let i = i as usize;
                    buf.data[i].store(to_scalar(v[t], vt, elem), Relaxed);
                    buf.foot[i].fetch_or(2, Relaxed);
                    if check {
                        let me = self.block_linear * tpb + t as u64 + 1;
                        let w = buf.wr[i].swap(me, Relaxed);
                        if w != 0 && w != me {
                            race.get_or_insert((t, Some(w - 1), "written"));
                        }
                        let r = buf.rd[i].load(Relaxed);
                        if r != 0 && r & !MULTI != me {
                            race.get_or_insert((t, Some((r & !MULTI) - 1), "read"));
                        } else if r & MULTI != 0 {
                            race.get_or_insert((t, None, "read"));
                        }
                    }
                });
                if let Some((t, i)) = oob {
                    let len = buf.data.len();
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a buffer of {} elements", i, len),
                    );
                }
                if let Some((t, o, what)) = race {
                    let other = o.map(|o| env.thread_of(o));
                    self.find(
                        FindingKind::GlobalRace,
                        acc,
                        t,
                        other,
                        format!(
                            "the element written here is also {} by another thread in this launch",
                            what
                        ),
                    );
                }
            }
            Mem::Shared(s) => {
                self.shared_request(acc, s, ix, ity, m);
                let len = self.shared[s].len() as i64;
                let epoch = self.epoch;
                let mut oob = None;
                let mut race = None;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        oob.get_or_insert((t, i));
                        continue;
                    }
                    let i = i as usize;
                    self.shared[s][i] = to_scalar(v[t], vt, elem);
                    if check {
                        self.sh_init[s][i] = true;
                        if self.sh_epoch[s][i] != epoch {
                            self.sh_epoch[s][i] = epoch;
                            self.sh_w[s][i] = 0;
                            self.sh_r[s][i] = 0;
                        }
                        let me = t as u32 + 1;
                        let w = self.sh_w[s][i];
                        if w != 0 && w != me {
                            race.get_or_insert((t, Some(w as usize - 1), i, "written"));
                        }
                        let r = self.sh_r[s][i];
                        if r != 0 && r & 0x7fff_ffff != me {
                            race.get_or_insert((
                                t,
                                Some((r & 0x7fff_ffff) as usize - 1),
                                i,
                                "read",
                            ));
                        } else if r & 0x8000_0000 != 0 {
                            race.get_or_insert((t, None, i, "read"));
                        }
                        self.sh_w[s][i] = me;
                    }
                }
                let len = self.shared[s].len();
                if let Some((t, i)) = oob {
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a shared array of {} elements", i, len),
                    );
                }
                if let Some((t, o, i, what)) = race {
                    let other = o.map(|o| self.tid(o));
                    self.find(
                        FindingKind::SharedRace,
                        acc,
                        t,
                        other,
                        format!("element {} written here was also {} by another thread since the last barrier", i, what),
                    );
                }
            }
            Mem::Private(p) => {
                let len = self.env.p.privs[p].1 as i64;
                let mut oob = None;
                for t in 0..self.n {
                    if !bit(m, t) {
                        continue;
                    }
                    let i = Self::index(ix[t], ity);
                    if i < 0 || i >= len {
                        oob.get_or_insert((t, i));
                        continue;
                    }
                    self.privs[p][t * len as usize + i as usize] = to_scalar(v[t], vt, elem);
                }
                if let Some((t, i)) = oob {
                    self.find(
                        FindingKind::OutOfBounds,
                        acc,
                        t,
                        None,
                        format!("index {} of a private array of {} elements", i, len),
                    );
                }
            }
        }
    }

    // ---- statements -------------------------------------------------------------------------

    fn exec_list(&mut self, v: &[CStmt], mut m: Mask) -> Mask {
        for s in v {
            if !any(&m) {
                break;
            }
            m = self.exec(s, m);
        }
        m
    }

    fn truth_masks(&mut self, cond: &CExpr, m: &[u64]) -> Mask {
        let vc = self.eval(cond, m);
        let mut t = m.to_vec();
        for_each(m, |i| {
            if !truth(vc[i], cond.ty) {
                t[i / 64] &= !(1 << (i % 64));
            }
        });
        self.give(vc);
        t
    }

    fn exec(&mut self, s: &CStmt, m: Mask) -> Mask {
        match s {
            CStmt::SetReg {
                slot,
                s,
                value,
                cost,
            } => {
                self.instructions += *cost as u64 * self.active_warps(&m);
                let v = self.eval(value, &m);
                let ty = value.ty;
                let reg = &mut self.regs[*slot];
                for_each(&m, |t| reg[t] = to_scalar(v[t], ty, *s));
                self.give(v);
                m
            }
            CStmt::Store {
                acc,
                mem,
                elem,
                idx,
                value,
                rmw,
                cost,
            } => {
                self.instructions += *cost as u64 * self.active_warps(&m);
                let ix = self.eval(idx, &m);
                if *rmw {
                    let old = self.load(*acc, *mem, &ix, idx.ty, &m);
                    self.old.copy_from_slice(&old);
                    self.give(old);
                }
                let v = self.eval(value, &m);
                self.store(*acc, *mem, *elem, &ix, idx.ty, &v, value.ty, &m);
                self.give(v);
                self.give(ix);
                m
            }
            CStmt::Eval(e, cost) => {
                self.instructions += *cost as u64 * self.active_warps(&m);
                let v = self.eval(e, &m);
                self.give(v);
                m
            }
            CStmt::If {
                cond,
                then,
                els,
                cost,
            } => {
                self.instructions += *cost as u64 * self.active_warps(&m);
                let t = self.truth_masks(cond, &m);
                let f: Mask = m.iter().zip(t.iter()).map(|(a, b)| a & !b).collect();
                let mut r1 = if any(&t) { self.exec_list(then, t) } else { t };
                let r2 = if any(&f) { self.exec_list(els, f) } else { f };
                for (a, b) in r1.iter_mut().zip(r2.iter()) {
                    *a |= b;
                }
                r1
            }
            CStmt::Loop {
                cond,
                step,
                body,
                test_first,
                cost,
            } => {
                let zero = vec![0u64; m.len()];
                self.loops.push((zero.clone(), zero));
                let mut act = m.clone();
                if *test_first {
                    if let Some(c) = cond {
                        self.instructions += *cost as u64 * self.active_warps(&act);
                        act = self.truth_masks(c, &act);
                    }
                }
                while any(&act) {
                    self.iterations += 1;
                    if self.iterations > self.env.opts.max_iterations {
                        if self.iterations == self.env.opts.max_iterations + 1 {
                            let t = (0..self.n).find(|&t| bit(&act, t)).unwrap_or(0);
                            self.find(
                                FindingKind::IterationLimit,
                                NO_ACC,
                                t,
                                None,
                                format!("{} loop iterations", self.env.opts.max_iterations),
                            );
                        }
                        break;
                    }
                    let mut r = self.exec_list(body, act);
                    if let Some((_, cont)) = self.loops.last_mut() {
                        for (a, c) in r.iter_mut().zip(cont.iter_mut()) {
                            *a |= *c;
                            *c = 0;
                        }
                    }
                    act = self.exec_list(step, r);
                    if let Some(c) = cond {
                        self.instructions += *cost as u64 * self.active_warps(&act);
                        act = self.truth_masks(c, &act);
                    }
                }
                self.loops.pop();
                m
            }
            CStmt::Break => {
                if let Some((brk, _)) = self.loops.last_mut() {
                    for (a, b) in brk.iter_mut().zip(m.iter()) {
                        *a |= b;
                    }
                }
                vec![0; m.len()]
            }
            CStmt::Continue => {
                if let Some((_, cont)) = self.loops.last_mut() {
                    for (a, b) in cont.iter_mut().zip(m.iter()) {
                        *a |= b;
                    }
                }
                vec![0; m.len()]
            }
            CStmt::Barrier => {
                self.instructions += self.active_warps(&m);
                if m != self.full {
                    let missing = (0..self.n).find(|&t| !bit(&m, t));
                    let arrived = (0..self.n).find(|&t| bit(&m, t));
                    if let (Some(t), Some(o)) = (missing, arrived) {
                        let other = self.tid(o);
                        self.find(
                            FindingKind::PartialBarrier,
                            NO_ACC,
                            t,
                            Some(other),
                            "the first thread does not reach the barrier the second one waits at"
                                .to_string(),
                        );
                    }
                }
                self.epoch = self.epoch.wrapping_add(1).max(1);
                m
            }
            CStmt::Seq(v) => self.exec_list(v, m),
        }
    }
}

/// Which blocks to simulate: all, or `k` evenly spaced ones including the first and the last.
fn chosen_blocks(total: u64, sample: Option<usize>) -> Vec<u64> {
    match sample {
        Some(k) if (k as u64) < total && k > 0 => {
            if k == 1 {
                return vec![0];
            }
            let mut v: Vec<u64> = (0..k as u64)
                .map(|i| i * (total - 1) / (k as u64 - 1))
                .collect();
            v.dedup();
            v
        }
        _ => (0..total).collect(),
    }
}

/// Runs one launch of `module.kernels[kernel]` over `grid` work-groups.
///
/// `args` has one entry per kernel parameter; buffer parameters name an element of `buffers`,
/// which are read and updated in place (their element types must match the parameters').
pub fn run_kernel(
    module: &Module,
    kernel: usize,
    args: &[ArgValue],
    buffers: &mut [BufData],
    grid: [u32; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let k = module
        .kernels
        .get(kernel)
        .ok_or_else(|| SimError::BadArgs(format!("no kernel {}", kernel)))?;
    let p = compile(k)?;
    run_program(&p, args, buffers, grid, platform, opts)
}

/// Runs a compiled kernel (see [`run_kernel`]).
pub fn run_program(
    p: &Program,
    args: &[ArgValue],
    buffers: &mut [BufData],
    grid: [u32; 3],
    platform: &SimPlatform,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    if !(platform.warp.is_power_of_two() && (1..=64).contains(&platform.warp)) {
        return Err(SimError::BadArgs(format!(
            "warp size {} (the simulator supports powers of two up to 64)",
            platform.warp
        )));
    }
    if args.len() != p.params.len() {
        return Err(SimError::BadArgs(format!(
            "kernel `{}` takes {} arguments, {} given",
            p.name,
            p.params.len(),
            args.len()
        )));
    }
    let threads = p
        .block
        .iter()
        .map(|&b| b.max(1) as usize)
        .product::<usize>();
    if threads == 0 || threads > 4096 {
        return Err(SimError::BadArgs(format!("block of {} threads", threads)));
    }
    let mut params = vec![0u64; args.len()];
    let mut globals = Vec::new();
    let mut base = 0u64;
    for (i, (ps, a)) in p.params.iter().zip(args).enumerate() {
        match (ps, a) {
            (ParamSlot::Reg(_, s), ArgValue::Int(v)) => {
                params[i] = to_scalar(*v as u64, Ty::I64, *s)
            }
            (ParamSlot::Reg(_, s), ArgValue::Float(v)) => {
                params[i] = to_scalar(v.to_bits(), Ty::F64, *s)
            }
            (ParamSlot::Global(g), ArgValue::Buffer(b)) => {
                let (elem, name) = &p.globals[*g];
                let data = buffers.get(*b).ok_or_else(|| {
                    SimError::BadArgs(format!("buffer {} for `{}` does not exist", b, name))
                })?;
                if !data.matches(*elem) {
                    return Err(SimError::BadArgs(format!(
                        "buffer {} for `{}` does not hold {}",
                        b,
                        name,
                        elem.c_name()
                    )));
                }
                if globals.iter().any(|x: &GBuf| x.src == *b) {
                    return Err(SimError::BadArgs(format!(
                        "buffer {} is passed twice (accshare gives each array its own buffer)",
                        b
                    )));
                }
                let n = data.len();
                let shadow = if opts.check { n } else { 0 };
                globals.push(GBuf {
                    data: (0..n).map(|j| AtomicU64::new(data.raw(j))).collect(),
                    elem: *elem,
                    size: elem.size() as u64,
                    base,
                    foot: (0..n).map(|_| AtomicU8::new(0)).collect(),
                    wr: (0..shadow).map(|_| AtomicU64::new(0)).collect(),
                    rd: (0..shadow).map(|_| AtomicU64::new(0)).collect(),
                    src: *b,
                });
                // Buffers are 256-byte aligned, as cudaMalloc / clCreateBuffer give them.
                base = (base + n as u64 * elem.size() as u64).div_ceil(256) * 256 + 256;
            }
            _ => {
                return Err(SimError::BadArgs(format!(
                    "argument {} of `{}` has the wrong kind",
                    i, p.name
                )))
            }
        }
    }
    let env = Env {
        p,
        globals,
        platform,
        opts,
        grid,
        block: [p.block[0].max(1), p.block[1].max(1), p.block[2].max(1)],
        threads,
        params,
    };
    let total = grid.iter().map(|&g| g as u64).product::<u64>();
    let chosen = chosen_blocks(total, opts.sample_blocks);
    let workers = if opts.check {
        1
    } else {
        opts.threads
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            })
            .clamp(1, 64)
            .min(chosen.len().max(1))
    };
    let next = AtomicUsize::new(0);
    type Part = (Vec<AccessCounts>, u64, u64, Vec<Finding>);
    let results: Mutex<Vec<Part>> = Mutex::new(Vec::new());
    let work = || {
        let mut blk = Blk::new(&env);
        loop {
            let i = next.fetch_add(1, Relaxed);
            let Some(&b) = chosen.get(i) else { break };
            let g0 = grid[0].max(1) as u64;
            let g1 = grid[1].max(1) as u64;
            let group = [
                (b % g0) as u32,
                ((b / g0) % g1) as u32,
                (b / (g0 * g1)) as u32,
            ];
            blk.reset(group, b);
            let full = blk.full.clone();
            let _ = blk.exec_list(&p.body, full);
        }
        if let Ok(mut r) = results.lock() {
            r.push((blk.counts, blk.instructions, blk.flops, blk.findings));
        }
    };
    if workers == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    let parts = results.into_inner().unwrap_or_default();
    let mut counts = vec![AccessCounts::default(); p.accesses.len()];
    let (mut instructions, mut flops) = (0u64, 0u64);
    let mut findings = Vec::new();
    for (c, i, f, fs) in parts {
        for (a, b) in counts.iter_mut().zip(c.iter()) {
            a.add(b);
        }
        instructions += i;
        flops += f;
        findings.extend(fs);
    }
    findings.sort_by(|a, b| (a.kind, &a.access, a.thread).cmp(&(b.kind, &b.access, b.thread)));
    let scale = if chosen.is_empty() {
        1.0
    } else {
        total as f64 / chosen.len() as f64
    };
    if scale != 1.0 {
        counts.iter_mut().for_each(|c| c.scale(scale));
        instructions = (instructions as f64 * scale).round() as u64;
        flops = (flops as f64 * scale).round() as u64;
    }
    let sector = platform.sector as u64;
    let mut footprints = Vec::new();
    for (g, buf) in env.globals.iter().enumerate() {
        let mut f = Footprint {
            array: p.globals[g].1.clone(),
            elem_size: buf.size as u32,
            ..Default::default()
        };
        let (mut last_r, mut last_w) = (u64::MAX, u64::MAX);
        for (i, x) in buf.foot.iter().enumerate() {
            let bits = x.load(Relaxed);
            let sec = (buf.base + i as u64 * buf.size) / sector;
            if bits & 1 != 0 {
                f.read_elems += 1;
                if sec != last_r {
                    last_r = sec;
                    f.read_sectors += 1;
                }
            }
            if bits & 2 != 0 {
                f.written_elems += 1;
                if sec != last_w {
                    last_w = sec;
                    f.written_sectors += 1;
                }
            }
        }
        if scale != 1.0 {
            let s = |x: &mut u64| *x = ((*x as f64) * scale).round() as u64;
            s(&mut f.read_elems);
            s(&mut f.read_sectors);
            s(&mut f.written_elems);
            s(&mut f.written_sectors);
            // Blocks share data (a row of B serves every block of a gemm column): a scaled
            // footprint is capped by the buffer itself.
            let n = buf.data.len() as u64;
            let all_sectors = if n == 0 {
                0
            } else {
                (buf.base + n * buf.size - 1) / sector - buf.base / sector + 1
            };
            f.read_elems = f.read_elems.min(n);
            f.written_elems = f.written_elems.min(n);
            f.read_sectors = f.read_sectors.min(all_sectors);
            f.written_sectors = f.written_sectors.min(all_sectors);
        }
        footprints.push(f);
    }
    // Write the buffers back.
    for buf in &env.globals {
        let dst = &mut buffers[buf.src];
        for (i, x) in buf.data.iter().enumerate() {
            dst.set_raw(i, x.load(Relaxed));
        }
        let _ = buf.elem;
    }
    if !opts.check {
        if let Some(f) = findings.iter().find(|f| {
            matches!(
                f.kind,
                FindingKind::OutOfBounds
                    | FindingKind::PartialBarrier
                    | FindingKind::IterationLimit
            )
        }) {
            return Err(SimError::Fault(Box::new(f.clone())));
        }
    }
    Ok(RunResult {
        stats: LaunchStats {
            kernel: p.name.clone(),
            block: env.block,
            grid,
            blocks_total: total,
            blocks_simulated: chosen.len() as u64,
            accesses: p.accesses.clone(),
            counts,
            instructions,
            flops,
            footprints,
            shared_bytes: p.shared_bytes,
        },
        findings,
    })
}
