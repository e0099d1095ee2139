//! Kernel IR → the typed program the executor runs: slots resolved, conversions explicit.

use super::*;
use crate::kernel::{AtomicCapture, Handle, KArray, KVar};
struct Compiler<'k> {
    kernel: &'k Kernel,
    /// The scalars in scope (by handle: a name declared again in a nested scope is another
    /// scalar).
    scopes: Vec<HashMap<Handle<KVar>, Sym>>,
    /// The arrays in scope, scoped as `scopes`.
    array_scopes: Vec<HashMap<Handle<KArray>, Sym>>,
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
    fn lookup(&self, n: Handle<KVar>) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(&n))
    }

    /// The name of the scalar `v`, for messages.
    fn var_name(&self, v: Handle<KVar>) -> &str {
        &self.kernel.vars[v].name
    }

    fn lookup_array(&self, a: Handle<KArray>) -> Option<&Sym> {
        self.array_scopes.iter().rev().find_map(|s| s.get(&a))
    }

    /// The name of the array `a`, for messages.
    fn array_name(&self, a: Handle<KArray>) -> &str {
        &self.kernel.arrays[a].name
    }

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
        self.array_scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
        self.array_scopes.pop();
    }

    fn err(&self, what: String) -> SimError {
        SimError::Unsupported(format!("kernel `{}`: {}", self.kernel.name, what))
    }

    /// The index of the scalar `r` names in its buffer ([`ArrayRef::scalar_index`]), compiled
    /// from `r.index` itself (its loads are numbered where they are).
    fn index(&mut self, r: &ArrayRef) -> Result<CExpr, SimError> {
        let idx = self.expr(&r.index)?;
        let Some(f) = &r.field else {
            return Ok(idx);
        };
        let int = |v: u32| CExpr {
            ty: ty_of(Scalar::Int),
            node: Node::Const(value::int_const(v as i64, Scalar::Int)),
        };
        let scaled = self.binary(BinOp::Mul, idx, int(f.count))?;
        self.binary(BinOp::Add, scaled, int(f.index))
    }

    fn expr(&mut self, e: &KExpr) -> Result<CExpr, SimError> {
        Ok(match e {
            KExpr::Var(n) => match self.lookup(*n) {
                Some(Sym::Reg(r, s)) => CExpr {
                    ty: ty_of(*s),
                    node: Node::Reg(*r),
                },
                _ => {
                    let n = self.var_name(*n);
                    return Err(self.err(format!("`{}` is not a scalar in scope", n)));
                }
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
                let idx = self.index(r)?;
                if idx.ty.is_float() {
                    return Err(self.err(format!(
                        "index of `{}` is not an integer",
                        self.array_name(r.array)
                    )));
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
                    MathImpl::F1(..) | MathImpl::IAbs => 1,
                    MathImpl::F2(..) | MathImpl::IMin | MathImpl::IMax => 2,
                    MathImpl::F3(..) => 3,
                };
                if cargs.len() != arity {
                    return Err(self.err(format!("`{}` takes {} arguments", name, arity)));
                }
                let t = match f {
                    MathImpl::IAbs => match cargs[0].ty {
                        Ty::F32 | Ty::F64 => cargs[0].ty,
                        t => t,
                    },
                    MathImpl::IMin | MathImpl::IMax => value::common(cargs[0].ty, cargs[1].ty),
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
        let space = self.kernel.arrays[r.array].space();
        let (mem, elem) = match (space, self.lookup_array(r.array)) {
            (Space::Global, Some(Sym::Global(g, s))) => (Mem::Global(*g), *s),
            (Space::Local, Some(Sym::Shared(g, s))) => (Mem::Shared(*g), *s),
            (Space::Private, Some(Sym::Priv(g, s))) => (Mem::Private(*g), *s),
            _ => {
                return Err(self.err(format!(
                    "`{}` is not a {:?} array in scope",
                    self.array_name(r.array),
                    space
                )))
            }
        };
        let id = self.accesses.len();
        self.accesses.push(AccessInfo::new(
            &self.kernel.name,
            (&self.kernel.arrays, &self.kernel.vars),
            id,
            r,
            kind,
            elem,
        ));
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
        self.push_scope();
        let r = self.stmts(v);
        self.pop_scope();
        r
    }

    fn stmt(&mut self, s: &KStmt) -> Result<Option<CStmt>, SimError> {
        Ok(Some(match s {
            KStmt::Decl { var, init } => return self.decl(*var, init.as_ref()),
            KStmt::DeclArray(a) => {
                let (elem, len) = (
                    self.kernel.arrays[*a].elem,
                    self.kernel.arrays[*a].elements(),
                );
                let Some(len) = len else {
                    return Err(
                        self.err(format!("`{}` is not a private array", self.array_name(*a)))
                    );
                };
                let slot = self.privs.len();
                self.privs.push((elem, len));
                self.array_scopes
                    .last_mut()
                    .map(|sc| sc.insert(*a, Sym::Priv(slot, elem)));
                return Ok(None);
            }
            KStmt::Assign { target, op, value } => match target {
                LValue::Var(n) => self.assign_var(*n, *op, value)?,
                LValue::Elem(r) => self.assign_elem(r, *op, value)?,
            },
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
                unroll: _,
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let r = self.for_loop(init, cond.as_ref(), step, body);
                self.pop_scope();
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
            KStmt::Atomic {
                target,
                ty: _,
                op,
                capture,
            } => self.atomic(target, op, capture.as_ref())?,
            KStmt::VecLoad {
                lanes,
                elem,
                src,
                aligned,
                ..
            } => self.vec_load(lanes, *elem, src, *aligned)?,
            KStmt::VecStore { dst, elem, values } => self.vec_store(dst, *elem, values)?,
            KStmt::Comment(_) => return Ok(None),
        }))
    }

    /// A new register of type `ty` for the scalar `v`, in the innermost scope; returns its slot.
    fn new_reg(&mut self, v: Handle<KVar>, ty: Scalar) -> usize {
        let slot = self.nregs;
        self.nregs += 1;
        self.scopes
            .last_mut()
            .map(|sc| sc.insert(v, Sym::Reg(slot, ty)));
        slot
    }

    /// A declaration: a register, set when initialized.
    fn decl(&mut self, v: Handle<KVar>, init: Option<&KExpr>) -> Result<Option<CStmt>, SimError> {
        let value = match init {
            Some(e) => Some(self.expr(e)?),
            None => None,
        };
        let ty = self.kernel.vars[v].ty;
        let slot = self.new_reg(v, ty);
        Ok(value.map(|value| CStmt::SetReg {
            slot,
            s: ty,
            cost: 1 + cost(&value),
            value,
        }))
    }

    /// The value an assignment stores: `v`, or `old op v` for a compound assignment.
    fn compound(&self, op: Option<BinOp>, old: CExpr, v: CExpr) -> Result<CExpr, SimError> {
        match op {
            None => Ok(v),
            Some(op) => self.binary(op, old, v),
        }
    }

    /// An assignment (`op`: compound) to the scalar `n`.
    fn assign_var(
        &mut self,
        n: Handle<KVar>,
        op: Option<BinOp>,
        value: &KExpr,
    ) -> Result<CStmt, SimError> {
        let v = self.expr(value)?;
        let Some(Sym::Reg(slot, sc)) = self.lookup(n).cloned() else {
            let n = self.var_name(n);
            return Err(self.err(format!("`{}` is not a scalar in scope", n)));
        };
        let old = CExpr {
            ty: ty_of(sc),
            node: Node::Reg(slot),
        };
        let value = self.compound(op, old, v)?;
        Ok(CStmt::SetReg {
            slot,
            s: sc,
            cost: 1 + cost(&value),
            value,
        })
    }

    /// An assignment (`op`: compound, a read-modify-write) to the array element `r`.
    fn assign_elem(
        &mut self,
        r: &ArrayRef,
        op: Option<BinOp>,
        value: &KExpr,
    ) -> Result<CStmt, SimError> {
        let kind = if op.is_some() {
            AccessKind::Update
        } else {
            AccessKind::Store
        };
        // The target is numbered before the value's accesses.
        let (acc, mem, elem) = self.access(r, kind)?;
        let idx = self.index(r)?;
        let v = self.expr(value)?;
        let old = CExpr {
            ty: ty_of(elem),
            node: Node::Old,
        };
        let value = self.compound(op, old, v)?;
        Ok(CStmt::Store {
            acc,
            mem,
            elem,
            cost: 1 + (cost(&value) + address_cost(&idx)),
            idx,
            value,
            rmw: op.is_some(),
        })
    }

    /// A `for` loop, in the scope of its `init` (the caller opens and closes it): the
    /// initialization, then the loop.
    fn for_loop(
        &mut self,
        init: &[KStmt],
        cond: Option<&KExpr>,
        step: &[KStmt],
        body: &[KStmt],
    ) -> Result<CStmt, SimError> {
        let init = self.stmts(init)?;
        let cond = match cond {
            Some(c) => Some(self.expr(c)?),
            None => None,
        };
        let body = self.scoped(body)?;
        let step = self.stmts(step)?;
        let mut seq = init;
        seq.push(CStmt::Loop {
            cost: 1 + cond.as_ref().map(cost).unwrap_or(Cost::ZERO),
            cond,
            step,
            body,
            test_first: true,
        });
        Ok(CStmt::Seq(seq))
    }

    /// An atomic statement on `target`, its value captured into a scalar when `capture` says
    /// so.
    fn atomic(
        &mut self,
        target: &ArrayRef,
        op: &AtomicOp,
        capture: Option<&AtomicCapture>,
    ) -> Result<CStmt, SimError> {
        let kind = match op {
            AtomicOp::Read => AccessKind::Load,
            _ => AccessKind::Update,
        };
        // The element is numbered before the operands' accesses.
        let (acc, mem, elem) = self.access(target, kind)?;
        let idx = self.index(target)?;
        if idx.ty.is_float() {
            return Err(self.err(format!(
                "index of `{}` is not an integer",
                self.array_name(target.array)
            )));
        }
        let (value, cop) = match op {
            AtomicOp::Read => (None, AtomicCOp::Read),
            AtomicOp::Write(e) => (Some(self.expr(e)?), AtomicCOp::Write),
            AtomicOp::Update {
                op,
                value,
                reversed,
            } => {
                let v = self.expr(value)?;
                // The operator must apply to these types.
                let old = CExpr {
                    ty: ty_of(elem),
                    node: Node::Old,
                };
                self.binary(*op, old, v.clone())?;
                (Some(v), AtomicCOp::Update(*op, *reversed))
            }
        };
        let capture = match capture {
            None => None,
            Some(c) => match self.lookup(c.var) {
                Some(Sym::Reg(slot, sc)) => Some((*slot, *sc, c.after)),
                _ => {
                    let n = self.var_name(c.var);
                    return Err(self.err(format!("`{}` is not a scalar in scope", n)));
                }
            },
        };
        Ok(CStmt::Atomic {
            acc,
            mem,
            elem,
            cost: 2 + (address_cost(&idx) + value.as_ref().map_or(Cost::ZERO, cost)),
            idx,
            value,
            op: cop,
            capture,
        })
    }

    /// A vector load of `src` into new registers, one per lane name.
    fn vec_load(
        &mut self,
        lanes: &[Handle<KVar>],
        elem: Scalar,
        src: &ArrayRef,
        aligned: bool,
    ) -> Result<CStmt, SimError> {
        let (acc, mem, e) = self.access(src, AccessKind::Load)?;
        let idx = self.expr(&src.index)?;
        if idx.ty.is_float() || e != elem {
            return Err(self.err(format!("vector load of `{}`", self.array_name(src.array))));
        }
        let slots = lanes
            .iter()
            .map(|&l| (self.new_reg(l, elem), elem))
            .collect();
        Ok(CStmt::VecLoad {
            acc,
            mem,
            cost: 1 + address_cost(&idx),
            idx,
            slots,
            aligned,
        })
    }

    /// A vector store of `values` into `dst`.
    fn vec_store(
        &mut self,
        dst: &ArrayRef,
        elem: Scalar,
        values: &[KExpr],
    ) -> Result<CStmt, SimError> {
        let (acc, mem, e) = self.access(dst, AccessKind::Store)?;
        let idx = self.expr(&dst.index)?;
        if idx.ty.is_float() || e != elem {
            return Err(self.err(format!("vector store of `{}`", self.array_name(dst.array))));
        }
        let mut cvalues = Vec::new();
        for v in values {
            cvalues.push(self.expr(v)?);
        }
        Ok(CStmt::VecStore {
            acc,
            mem,
            elem,
            cost: 1 + (address_cost(&idx) + cvalues.iter().map(cost).sum::<Cost>()),
            idx,
            values: cvalues,
        })
    }
}

/// Compiles a kernel for the simulator.
pub fn compile(kernel: &Kernel) -> Result<Program, SimError> {
    let mut c = Compiler {
        kernel,
        scopes: vec![HashMap::new()],
        array_scopes: vec![HashMap::new()],
        nregs: 0,
        privs: Vec::new(),
        accesses: Vec::new(),
    };
    let mut params = Vec::new();
    let mut globals = Vec::new();
    for p in &kernel.params {
        match &p.kind {
            KParamKind::Buffer { array, elem, .. } => {
                let g = globals.len();
                globals.push((*elem, p.name.clone()));
                params.push(ParamSlot::Global(g));
                c.array_scopes[0].insert(*array, Sym::Global(g, *elem));
            }
            KParamKind::Scalar { var, ty: s } => {
                let r = c.nregs;
                c.nregs += 1;
                params.push(ParamSlot::Reg(r, *s));
                c.scopes[0].insert(*var, Sym::Reg(r, *s));
            }
        }
    }
    let mut shared = Vec::new();
    let mut off = 0u64;
    for (i, &h) in kernel.locals.iter().enumerate() {
        let l = &kernel.arrays[h];
        let len = l.elements().unwrap_or(0);
        let size = l.elem.size() as u64;
        off = off.div_ceil(size.max(4)) * size.max(4);
        shared.push((l.elem, len, off));
        off += size * len as u64;
        c.array_scopes[0].insert(h, Sym::Shared(i, l.elem));
    }
    c.push_scope();
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
        bank_width: kernel.bank_width,
        registers: kernel.registers,
    })
}

/// The accesses (static memory instructions) of a kernel, numbered as the simulator numbers
/// them.
pub fn accesses(kernel: &Kernel) -> Result<Vec<AccessInfo>, SimError> {
    compile(kernel).map(|p| p.accesses)
}
