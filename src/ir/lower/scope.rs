//! Declarations in scope while walking a function, and the identifiers a piece of AST mentions.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::front::ast::{self, CType, Expr, ForInit, Stmt, StmtKind};
use crate::front::pragma_ast::{AccDirective, ClauseKind};

/// A declared name visible at some point of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub ty: CType,
    pub span: Span,
    /// A function parameter (arrays as parameters are pointers in C).
    pub param: bool,
    /// Declared at file scope.
    pub global: bool,
    /// An array of pointers to rows (`double **a`, `float *a[4]`) that a data clause in force
    /// gives the rows' length of (`a[0:n][0:m]`): `ty` is then `T (*)[m]` ([`declare_rows`]),
    /// and its device copy is the rows one after another (OpenACC's deep copy).
    pub rows: bool,
}

impl Symbol {
    /// An array's or pointer's element type, the extent of each dimension as the declaration
    /// writes it (`None` for `[]` and the pointed-to dimension), and whether it is a pointer;
    /// `None` for anything else ([`array_shape`]).
    pub fn shape(&self) -> Option<(Scalar, Vec<Option<crate::ir::Detached>>, bool)> {
        let (elem, extents, is_pointer) = array_shape(&self.ty)?;
        let extents = extents
            .iter()
            .map(|e| e.as_ref().map(crate::ir::lower::expr::detach_user))
            .collect();
        Some((elem, extents, is_pointer))
    }

    /// Declared as an array, not a parameter (arrays as parameters are pointers): its
    /// `sizeof` is the whole array.
    pub fn is_true_array(&self) -> bool {
        !self.param && matches!(self.ty.unqualified(), CType::Array { .. })
    }

    /// The variable's type when it is a scalar (not an array, a pointer or a struct).
    pub fn scalar(&self) -> Option<crate::vocab::Scalar> {
        match self.ty.unqualified() {
            CType::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// An array of pointers or a pointer to pointers (`double **m`, `float *rows[4]`).
    pub fn holds_pointers(&self) -> bool {
        match self.ty.unqualified() {
            CType::Pointer { to, .. } | CType::Array { elem: to, .. } => {
                matches!(to.unqualified(), CType::Pointer { .. })
            }
            _ => false,
        }
    }

    /// The levels of arrays and pointers above the elements (`double **m`: 2, `float *r[4]`:
    /// 2, `double ***t`: 3).
    pub fn pointer_levels(&self) -> usize {
        fn levels(t: &CType) -> usize {
            match t.unqualified() {
                CType::Pointer { to, .. } | CType::Array { elem: to, .. } => 1 + levels(to),
                _ => 0,
            }
        }
        levels(&self.ty)
    }

    /// The declaration as C writes it (`double **m`).
    pub fn declaration(&self) -> String {
        crate::front::pragma::ctype_to_c(&self.ty, &self.name)
    }
}

/// The scope chain while walking a function.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    frames: Vec<BTreeMap<String, Symbol>>,
}

impl Scope {
    pub fn push(&mut self) {
        self.frames.push(BTreeMap::new());
    }
    pub fn pop(&mut self) {
        self.frames.pop();
    }
    pub fn declare(&mut self, s: Symbol) {
        if self.frames.is_empty() {
            self.push();
        }
        if let Some(f) = self.frames.last_mut() {
            f.insert(s.name.clone(), s);
        }
    }
    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }
    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.lookup(name)
    }

    /// The visible symbols among `names`, with the symbols their types mention (the extents of
    /// `float A[n][m]`), by name. Regions keep only these: copying the whole scope per region
    /// would be quadratic in files with many functions.
    pub fn restricted(&self, names: &BTreeSet<String>) -> BTreeMap<String, Symbol> {
        let mut out = BTreeMap::new();
        let mut todo: Vec<String> = names.iter().cloned().collect();
        while let Some(n) = todo.pop() {
            if out.contains_key(&n) {
                continue;
            }
            if let Some(sym) = self.lookup(&n) {
                let mut more = BTreeSet::new();
                type_names(&sym.ty, &mut more);
                todo.extend(more);
                out.insert(n, sym.clone());
            }
        }
        out
    }
}

pub(super) fn declare_all(scope: &mut Scope, d: &ast::Declaration, param: bool, global: bool) {
    if d.storage == ast::Storage::Typedef {
        return;
    }
    for dec in &d.declarators {
        scope.declare(Symbol {
            name: dec.name.name.clone(),
            ty: dec.ty.clone(),
            span: dec.name.span,
            param,
            global,
            rows: false,
        });
    }
}

/// Declares, in the scope's innermost frame, the arrays of pointers to rows (`double **a`,
/// `float *a[4]`) that a data clause of `dir` names with every bound, the rows from 0
/// (`a[lo:n][0:m]`): as `T (*a)[m]`, with [`Symbol::rows`], so that compute regions index them
/// as 2-D arrays and the host plan copies the rows one by one (OpenACC's deep copy of a
/// pointer-to-pointer subarray). Others (no inner bounds, rows from past 0, `T ***`) stay
/// arrays of pointers, which the host plan and compute regions refuse.
pub(super) fn declare_rows(scope: &mut Scope, dir: &AccDirective) {
    for (_, v) in data_clauses(dir) {
        let Some(sym) = scope.get(&v.name.name) else {
            continue;
        };
        if !sym.holds_pointers() {
            continue;
        }
        let (CType::Pointer { to, .. } | CType::Array { elem: to, .. }) = sym.ty.unqualified()
        else {
            continue;
        };
        let CType::Pointer { to: elem, .. } = to.unqualified() else {
            continue;
        };
        let [_, inner] = v.dims.as_slice() else {
            continue;
        };
        let from_zero = inner
            .start
            .as_ref()
            .is_none_or(|s| matches!(s.kind, crate::front::ast::ExprKind::Int { value: 0, .. }));
        let (Some(len), false, true) = (&inner.len, inner.single, from_zero) else {
            continue;
        };
        let ty = CType::Pointer {
            to: Box::new(CType::Array {
                elem: elem.clone(),
                len: Some(Box::new(len.clone())),
            }),
            is_const: false,
            is_restrict: false,
        };
        if array_shape(&ty).is_none() {
            continue; // `T ***`, or rows of something else than scalars
        }
        let sym = Symbol {
            ty,
            rows: true,
            ..sym.clone()
        };
        scope.declare(sym);
    }
}

/// Identifiers a type mentions (array extents).
pub(super) fn type_names(t: &CType, out: &mut BTreeSet<String>) {
    match t {
        CType::Pointer { to, .. } | CType::Const(to) => type_names(to, out),
        CType::Array { elem, len } => {
            if let Some(e) = len {
                expr_names(e, out);
            }
            type_names(elem, out);
        }
        _ => {}
    }
}

/// Identifiers an expression mentions.
pub(super) fn expr_names(e: &Expr, out: &mut BTreeSet<String>) {
    out.extend(e.idents())
}

/// Identifiers a directive's clauses mention.
pub(super) fn directive_names(d: &AccDirective, out: &mut BTreeSet<String>) {
    for c in &d.clauses {
        match &c.kind {
            ClauseKind::Data { vars, .. } => vars.iter().for_each(|v| {
                out.insert(v.name.name.clone());
                for r in &v.dims {
                    r.start
                        .iter()
                        .chain(r.len.iter())
                        .for_each(|e| expr_names(e, out));
                }
            }),
            ClauseKind::Private(v)
            | ClauseKind::FirstPrivate(v)
            | ClauseKind::Reduction { vars: v, .. } => v.iter().for_each(|i| {
                out.insert(i.name.clone());
            }),
            _ => {}
        }
    }
    for v in &d.cache {
        out.insert(v.name.name.clone());
    }
}

/// Identifiers a statement mentions (with its directives and declarations).
pub(super) fn stmt_names(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Decl(d) => decl_names(d, out),
        StmtKind::Expr(e) => expr_names(e, out),
        StmtKind::Block(b) => b.stmts.iter().for_each(|s| stmt_names(s, out)),
        StmtKind::If { cond, then, els } => {
            expr_names(cond, out);
            stmt_names(then, out);
            if let Some(e) = els {
                stmt_names(e, out);
            }
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            match init {
                ForInit::Decl(d) => decl_names(d, out),
                ForInit::Expr(e) => expr_names(e, out),
                ForInit::None => {}
            }
            cond.iter()
                .chain(step.iter())
                .for_each(|e| expr_names(e, out));
            stmt_names(body, out);
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            expr_names(cond, out);
            stmt_names(body, out);
        }
        StmtKind::Return(Some(e)) => expr_names(e, out),
        StmtKind::Acc { dir, share, body } => {
            directive_names(dir, out);
            if let Some(sh) = share {
                sh.specs.iter().for_each(|a| {
                    out.insert(a.array.name.clone());
                });
            }
            stmt_names(body, out);
        }
        StmtKind::AccStandalone(d) => directive_names(d, out),
        StmtKind::Unsupported { body: Some(b), .. } => stmt_names(b, out),
        _ => {}
    }
}

pub(super) fn decl_names(d: &ast::Declaration, out: &mut BTreeSet<String>) {
    for dec in &d.declarators {
        type_names(&dec.ty, out);
        if let Some(ast::Initializer::Expr(e)) = &dec.init {
            expr_names(e, out);
        }
    }
}
