//! Functions marked `#pragma acc routine` (`seq`), inlined where compute regions call them, so
//! that the later stages see ordinary loop-nest code.
//!
//! A routine is inlined when its body is straight C of the subset with at most one `return`, the
//! last statement of the body. At a call site inside a compute region (an expression statement or
//! a declaration, outside `&&`, `||` and `?:`), the call becomes: a declaration of the result
//! `accshare_rN`, then a block with the scalar parameters as locals initialised from the
//! arguments, the body with its locals renamed `accshare_iN_<name>` and `return e;` turned into
//! `accshare_rN = e;`, then the statement with the call replaced by `accshare_rN`. Array and
//! pointer parameters are substituted: an array argument `X` renames the parameter, `&B[e]` and
//! `B + e` turn `p[k]` into `B[e + k]`, a row `B[e]` turns `p[k]` into `B[e][k]`.
//!
//! Every inlined copy gets spans of its own (a copy of the routine's file in the source map),
//! because later stages identify loops and references by span. Whatever cannot be inlined is an
//! error at the call naming the reason; validation then reports nothing more for that call.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::front::ast::{BinOp, UnOp};

/// Deepest chain of routines calling routines that is inlined.
const MAX_INLINE_DEPTH: usize = 8;

/// Inlines the calls of `routine` functions inside the compute regions of `tu`. Returns the
/// names of the routines (validation accepts no other calls).
pub fn inline_routines(
    tu: &mut TranslationUnit,
    pragmas: &[Pragma],
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> BTreeSet<String> {
    let names = routine_names(tu, pragmas, sources);
    if names.is_empty() {
        return names;
    }
    let defs: BTreeMap<String, FunctionDef> = tu
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Function(f) if names.contains(&f.name.name) => {
                Some((f.name.name.clone(), f.clone()))
            }
            _ => None,
        })
        .collect();
    let mut inl = Inliner {
        defs,
        sources,
        diags,
        count: 0,
    };
    for item in &mut tu.items {
        if let ItemKind::Function(f) = &mut item.kind {
            for s in &mut f.body.stmts {
                inl.find_regions(s, 0);
            }
        }
    }
    names
}

/// The functions named by `#pragma acc routine(name)` or defined right after `#pragma acc
/// routine`.
fn routine_names(
    tu: &TranslationUnit,
    pragmas: &[Pragma],
    sources: &SourceMap,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut pending = false;
    for item in &tu.items {
        match &item.kind {
            ItemKind::Pragma(i) => {
                if let Some(Pragma::Acc(d)) = pragmas.get(*i as usize) {
                    if d.construct == Construct::Routine {
                        let text = sources.snippet(d.span);
                        match named_routine(text) {
                            Some(n) => {
                                out.insert(n);
                            }
                            None => pending = true,
                        }
                    }
                }
            }
            ItemKind::Function(f) => {
                if pending {
                    out.insert(f.name.name.clone());
                }
                pending = false;
            }
            // A prototype after the pragma: the name is the routine.
            ItemKind::Decl(d) => {
                if pending {
                    if let Some(dec) = d.declarators.first() {
                        out.insert(dec.name.name.clone());
                    }
                }
                pending = false;
            }
            ItemKind::Opaque => pending = false,
        }
    }
    out
}

/// `name` in `acc routine(name) seq`.
fn named_routine(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("acc")?.trim_start();
    let rest = rest.strip_prefix("routine")?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let name = inner.split(')').next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

struct Inliner<'a> {
    defs: BTreeMap<String, FunctionDef>,
    sources: &'a mut SourceMap,
    diags: &'a mut Diags,
    count: usize,
}

impl Inliner<'_> {
    /// Walks host code to the compute regions.
    fn find_regions(&mut self, s: &mut Stmt, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &mut s.kind {
            StmtKind::Acc { dir, body, .. } if dir.construct.is_compute() => {
                self.stmt(body, depth + 1, 0);
            }
            StmtKind::Acc { body, .. } => self.find_regions(body, depth + 1),
            StmtKind::Block(b) => {
                for s in &mut b.stmts {
                    self.find_regions(s, depth + 1);
                }
            }
            StmtKind::If { then, els, .. } => {
                self.find_regions(then, depth + 1);
                if let Some(e) = els {
                    self.find_regions(e, depth + 1);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::DoWhile { body, .. } => self.find_regions(body, depth + 1),
            _ => {}
        }
    }

    /// Inlines the routine calls of a statement inside a compute region.
    fn stmt(&mut self, s: &mut Stmt, depth: usize, level: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &mut s.kind {
            StmtKind::Block(b) => self.block(&mut b.stmts, depth, level),
            StmtKind::Expr(_) | StmtKind::Decl(_) => {
                let mut stmts = vec![std::mem::replace(
                    s,
                    Stmt {
                        kind: StmtKind::Empty,
                        span: s.span,
                    },
                )];
                let span = stmts[0].span;
                self.block(&mut stmts, depth, level);
                *s = if stmts.len() == 1 {
                    stmts.pop().unwrap_or(Stmt {
                        kind: StmtKind::Empty,
                        span,
                    })
                } else {
                    Stmt {
                        kind: StmtKind::Block(Block { stmts, span }),
                        span,
                    }
                };
            }
            StmtKind::If { cond, then, els } => {
                self.refuse_calls(cond, "an `if` condition");
                self.stmt(then, depth + 1, level);
                if let Some(e) = els {
                    self.stmt(e, depth + 1, level);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match init {
                    ForInit::Expr(e) => self.refuse_calls(e, "a `for` header"),
                    ForInit::Decl(d) => {
                        for dec in &d.declarators {
                            if let Some(Initializer::Expr(e)) = &dec.init {
                                self.refuse_calls(e, "a `for` header");
                            }
                        }
                    }
                    ForInit::None => {}
                }
                for e in cond.iter().chain(step.iter()) {
                    self.refuse_calls(e, "a `for` header");
                }
                self.stmt(body, depth + 1, level);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.refuse_calls(cond, "a loop condition");
                self.stmt(body, depth + 1, level);
            }
            StmtKind::Acc { body, .. } => self.stmt(body, depth + 1, level),
            StmtKind::Return(Some(e)) => self.refuse_calls(e, "a `return`"),
            _ => {}
        }
    }

    /// Inlines the calls of the statements of a list, inserting the inlined code before each.
    fn block(&mut self, stmts: &mut Vec<Stmt>, depth: usize, level: usize) {
        let mut out = Vec::with_capacity(stmts.len());
        for mut s in std::mem::take(stmts) {
            match &mut s.kind {
                StmtKind::Expr(e) => {
                    let void_call =
                        matches!(&e.kind, ExprKind::Call(f, _) if self.defs.contains_key(&f.name));
                    if void_call {
                        if let Some((mut code, _)) = self.call(e, depth, level, true) {
                            out.append(&mut code);
                            continue;
                        }
                    } else {
                        self.hoist(e, &mut out, depth, level);
                    }
                }
                StmtKind::Decl(d) => {
                    for dec in &mut d.declarators {
                        if let Some(Initializer::Expr(e)) = &mut dec.init {
                            self.hoist(e, &mut out, depth, level);
                        }
                    }
                }
                _ => self.stmt(&mut s, depth + 1, level),
            }
            out.push(s);
        }
        *stmts = out;
    }

    /// Replaces each routine call of `e` (evaluated unconditionally) by its result variable,
    /// appending the inlined code to `out`.
    fn hoist(&mut self, e: &mut Expr, out: &mut Vec<Stmt>, depth: usize, level: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &mut e.kind {
            ExprKind::Call(f, args) => {
                for a in args.iter_mut() {
                    self.hoist(a, out, depth + 1, level);
                }
                if self.defs.contains_key(&f.name) {
                    let call = e.clone();
                    if let Some((mut code, n)) = self.call(&call, depth, level, false) {
                        out.append(&mut code);
                        e.kind = ExprKind::Ident(result_name(n));
                    }
                }
            }
            ExprKind::Binary(BinOp::LogAnd | BinOp::LogOr, a, b) => {
                self.hoist(a, out, depth + 1, level);
                self.refuse_calls(b, "the right operand of `&&` or `||`");
            }
            ExprKind::Cond(a, b, c) => {
                self.hoist(a, out, depth + 1, level);
                self.refuse_calls(b, "a branch of `?:`");
                self.refuse_calls(c, "a branch of `?:`");
            }
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                self.hoist(a, out, depth + 1, level);
                self.hoist(b, out, depth + 1, level);
            }
            ExprKind::Unary(_, a)
            | ExprKind::IncDec { arg: a, .. }
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::Member { base: a, .. } => self.hoist(a, out, depth + 1, level),
            _ => {}
        }
    }

    /// An error for each routine call inside `e` (a place where it cannot be hoisted).
    fn refuse_calls(&mut self, e: &Expr, place: &str) {
        let mut work = vec![e];
        while let Some(e) = work.pop() {
            match &e.kind {
                ExprKind::Call(f, args) => {
                    if self.defs.contains_key(&f.name) {
                        self.diags.push(
                            Diag::error(
                                f.span,
                                format!("the routine `{}` cannot be inlined in {}", f.name, place),
                            )
                            .label("called here")
                            .help("assign its result to a variable in a statement of its own, and use the variable"),
                        );
                    }
                    work.extend(args.iter());
                }
                ExprKind::Binary(_, a, b)
                | ExprKind::Assign(_, a, b)
                | ExprKind::Index(a, b)
                | ExprKind::Comma(a, b) => work.extend([&**a, &**b]),
                ExprKind::Cond(a, b, c) => work.extend([&**a, &**b, &**c]),
                ExprKind::Unary(_, a)
                | ExprKind::IncDec { arg: a, .. }
                | ExprKind::Cast(_, a)
                | ExprKind::SizeofExpr(a)
                | ExprKind::Member { base: a, .. } => work.push(a),
                _ => {}
            }
        }
    }

    /// The statements that compute the call `e` (a `Call` of a routine): the result declaration
    /// (unless `void_stmt`) and the inlined block, with the number of this copy (its result is
    /// `accshare_r<n>`). `None` after an error.
    fn call(
        &mut self,
        e: &Expr,
        depth: usize,
        level: usize,
        void_stmt: bool,
    ) -> Option<(Vec<Stmt>, usize)> {
        let ExprKind::Call(f, args) = &e.kind else {
            return None;
        };
        let def = self.defs.get(&f.name)?.clone();
        let (mut body, last_return) = match inlinable_body(&def, args.len(), level, void_stmt) {
            Ok(b) => b,
            Err(why) => return self.refuse(f, &def, why),
        };
        self.count += 1;
        let n = self.count;
        let mut subst = self.subst_for_copy(&def, f.span, &body, n);
        let mut inner = match subst.bind_params(&def, args, &body, n, e.span) {
            Ok(pre) => pre,
            Err(why) => return self.refuse(f, &def, why),
        };
        for s in &mut body.stmts {
            subst.stmt(s, 0);
        }
        inner.append(&mut body.stmts);
        let mut out = Vec::new();
        if let Some(Stmt {
            kind: StmtKind::Return(Some(mut r)),
            ..
        }) = last_return
        {
            subst.expr(&mut r, 0);
            let res = result_name(n);
            out.push(decl_stmt(&res, def.ret.clone(), None, e.span));
            inner.push(assign_stmt(res, r, e.span));
        }
        if let Some(why) = subst.error {
            return self.refuse(f, &def, why);
        }
        let mut block = Stmt {
            kind: StmtKind::Block(Block {
                stmts: inner,
                span: e.span,
            }),
            span: e.span,
        };
        // Routines the routine calls.
        self.stmt(&mut block, depth + 1, level + 1);
        out.push(block);
        Some((out, n))
    }

    /// Reports that the routine `def`, called as `f`, cannot be inlined, and why; `None`.
    fn refuse<T>(&mut self, f: &Ident, def: &FunctionDef, why: String) -> Option<T> {
        self.diags.push(
            Diag::error(
                f.span,
                format!("the routine `{}` cannot be inlined: {}", f.name, why),
            )
            .label("called in a compute region")
            .with_label(def.name.span, "the routine"),
        );
        None
    }

    /// The substitution of inlined copy `n` of `def` (called at `at`, whose `body` it renames):
    /// spans moved to a new copy of the routine's file, the body's locals renamed
    /// `accshare_i<n>_<name>`.
    fn subst_for_copy(&mut self, def: &FunctionDef, at: Span, body: &Block, n: usize) -> Subst {
        // A copy of the routine's file, so that this copy's spans are its own.
        let file = def.span.file;
        let line = self.sources.line_col(at).0;
        let copy = self.sources.add(
            format!("{} (inlined at line {})", self.sources.name(file), line),
            std::path::PathBuf::new(),
            self.sources.text(file).to_string(),
        );
        let mut subst = Subst {
            file,
            copy,
            names: BTreeMap::new(),
            exprs: BTreeMap::new(),
            arrays: BTreeMap::new(),
            error: None,
        };
        // Locals of the body are renamed.
        let mut locals = BTreeSet::new();
        for s in &body.stmts {
            declared_names(s, &mut locals);
        }
        for l in &locals {
            subst
                .names
                .insert(l.clone(), format!("accshare_i{}_{}", n, l));
        }
        subst
    }
}

/// The body of `def` to inline, without its final `return` (given apart when it returns a
/// value), or why it cannot be inlined `level` routines deep with `nargs` arguments (as a
/// statement of its own where `void_stmt`).
fn inlinable_body(
    def: &FunctionDef,
    nargs: usize,
    level: usize,
    void_stmt: bool,
) -> Result<(Block, Option<Stmt>), String> {
    if level >= MAX_INLINE_DEPTH {
        return Err(format!(
            "routines call routines more than {MAX_INLINE_DEPTH} deep (recursion?)"
        ));
    }
    if def.params.len() != nargs {
        return Err(format!(
            "it takes {} arguments and is given {}",
            def.params.len(),
            nargs
        ));
    }
    let returns = !matches!(def.ret, CType::Void);
    if !returns && !void_stmt {
        return Err("it returns no value".to_string());
    }
    // The body: at most one `return`, the last statement.
    let mut body = def.body.clone();
    let last_return = match body.stmts.last().map(|s| &s.kind) {
        Some(StmtKind::Return(Some(_))) => body.stmts.pop(),
        Some(StmtKind::Return(None)) => {
            body.stmts.pop();
            None
        }
        _ => None,
    };
    if body.stmts.iter().any(has_return) {
        return Err("it returns from inside a loop or a condition".to_string());
    }
    if returns && last_return.is_none() {
        return Err("its last statement is not `return value;`".to_string());
    }
    Ok((body, last_return))
}

/// The statement `res = r;` (at `span`).
fn assign_stmt(res: String, r: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Expr(Expr {
            kind: ExprKind::Assign(
                None,
                Box::new(Expr {
                    kind: ExprKind::Ident(res),
                    span,
                }),
                Box::new(r),
            ),
            span,
        }),
        span,
    }
}

fn result_name(n: usize) -> String {
    format!("accshare_r{}", n)
}

fn is_scalar(t: &CType) -> bool {
    match t {
        CType::Scalar(_) => true,
        CType::Const(t) => is_scalar(t),
        _ => false,
    }
}

fn decl_stmt(name: &str, ty: CType, init: Option<Expr>, span: Span) -> Stmt {
    let ty = match ty {
        CType::Const(t) => *t,
        t => t,
    };
    Stmt {
        kind: StmtKind::Decl(Declaration {
            storage: Storage::None,
            declarators: vec![crate::front::ast::Declarator {
                name: Ident {
                    name: name.to_string(),
                    span,
                },
                ty,
                init: init.map(Initializer::Expr),
                span,
            }],
            span,
        }),
        span,
    }
}

fn has_return(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(b) => b.stmts.iter().any(has_return),
        StmtKind::If { then, els, .. } => {
            has_return(then) || els.as_deref().is_some_and(has_return)
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Acc { body, .. } => has_return(body),
        _ => false,
    }
}

fn declared_names(s: &Stmt, out: &mut BTreeSet<String>) {
    match &s.kind {
        StmtKind::Decl(d) => {
            for dec in &d.declarators {
                out.insert(dec.name.name.clone());
            }
        }
        StmtKind::Block(b) => b.stmts.iter().for_each(|s| declared_names(s, out)),
        StmtKind::If { then, els, .. } => {
            declared_names(then, out);
            if let Some(e) = els {
                declared_names(e, out);
            }
        }
        StmtKind::For { init, body, .. } => {
            if let ForInit::Decl(d) = init {
                for dec in &d.declarators {
                    out.insert(dec.name.name.clone());
                }
            }
            declared_names(body, out);
        }
        StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Acc { body, .. } => declared_names(body, out),
        _ => {}
    }
}

/// How an array or pointer argument replaces its parameter.
#[derive(Clone)]
enum ArrayArg {
    /// An array named by the argument: the parameter is renamed.
    Rename(String),
    /// `&B[e]` or `B + e`: `p[k]` is `B[e + k]`.
    Offset(Expr, Expr),
    /// A row `B[e]`: `p[k]` is `B[e][k]`.
    Row(Expr),
}

fn array_arg(a: &Expr) -> Option<ArrayArg> {
    match &a.kind {
        ExprKind::Ident(x) => Some(ArrayArg::Rename(x.clone())),
        ExprKind::Unary(UnOp::AddrOf, inner) => match &inner.kind {
            ExprKind::Index(b, e) => Some(ArrayArg::Offset((**b).clone(), (**e).clone())),
            _ => None,
        },
        ExprKind::Binary(BinOp::Add, b, e) => Some(ArrayArg::Offset((**b).clone(), (**e).clone())),
        ExprKind::Index(..) => Some(ArrayArg::Row(a.clone())),
        ExprKind::Cast(_, inner) => array_arg(inner),
        _ => None,
    }
}

/// Renames, array substitution and span relocation of one inlined copy.
struct Subst {
    file: crate::diag::FileId,
    copy: crate::diag::FileId,
    names: BTreeMap<String, String>,
    /// Scalar parameters replaced by their (pure) arguments.
    exprs: BTreeMap<String, Expr>,
    arrays: BTreeMap<String, ArrayArg>,
    error: Option<String>,
}

impl Subst {
    /// Binds the parameters of `def` to the arguments `args` of inlined copy `n`, whose `body`
    /// is read for assignments: a pure scalar argument never assigned replaces its parameter, a
    /// scalar one otherwise becomes a local declared (at `span`) in the statements returned, an
    /// array argument renames or offsets its parameter. `Err` says which argument is no array.
    fn bind_params(
        &mut self,
        def: &FunctionDef,
        args: &[Expr],
        body: &Block,
        n: usize,
        span: Span,
    ) -> Result<Vec<Stmt>, String> {
        let mut pre = Vec::new();
        for (p, a) in def.params.iter().zip(args) {
            let Some(pname) = &p.name else { continue };
            if is_scalar(&p.ty) && a.is_pure() && !body.stmts.iter().any(|s| s.assigns(&pname.name))
            {
                // Never assigned: the argument itself (converted to the parameter's type), so
                // that bounds like `k < d` stay affine in the caller's terms.
                let ty = match &p.ty {
                    CType::Const(t) => (**t).clone(),
                    t => t.clone(),
                };
                self.exprs.insert(
                    pname.name.clone(),
                    Expr {
                        kind: ExprKind::Cast(ty, Box::new(a.clone())),
                        span: a.span,
                    },
                );
            } else if is_scalar(&p.ty) {
                let local = format!("accshare_i{}_{}", n, pname.name);
                self.names.insert(pname.name.clone(), local.clone());
                pre.push(decl_stmt(&local, p.ty.clone(), Some(a.clone()), span));
            } else {
                match array_arg(a) {
                    Some(ArrayArg::Rename(x)) => {
                        self.names.insert(pname.name.clone(), x);
                    }
                    Some(arg) => {
                        self.arrays.insert(pname.name.clone(), arg);
                    }
                    None => {
                        return Err(format!(
                        "the argument of `{}` is not an array, `&a[i]`, `a + i` or a row `a[i]`",
                        pname.name
                    ))
                    }
                }
            }
        }
        Ok(pre)
    }

    fn span(&self, s: &mut Span) {
        if s.file == self.file {
            s.file = self.copy;
        }
    }

    fn stmt(&mut self, s: &mut Stmt, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        self.span(&mut s.span);
        match &mut s.kind {
            StmtKind::Decl(d) => self.decl(d, depth),
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, depth + 1),
            StmtKind::Block(b) => {
                self.span(&mut b.span);
                for s in &mut b.stmts {
                    self.stmt(s, depth + 1);
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond, depth + 1);
                self.stmt(then, depth + 1);
                if let Some(e) = els {
                    self.stmt(e, depth + 1);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match init {
                    ForInit::Decl(d) => self.decl(d, depth),
                    ForInit::Expr(e) => self.expr(e, depth + 1),
                    ForInit::None => {}
                }
                if let Some(c) = cond {
                    self.expr(c, depth + 1);
                }
                if let Some(c) = step {
                    self.expr(c, depth + 1);
                }
                self.stmt(body, depth + 1);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, depth + 1);
                self.stmt(body, depth + 1);
            }
            StmtKind::Acc { dir, body, .. } => {
                self.directive(dir, depth);
                self.stmt(body, depth + 1);
            }
            StmtKind::Unsupported { body: Some(b), .. } => self.stmt(b, depth + 1),
            _ => {}
        }
    }

    /// The names a directive of the body names (an orphaned `loop reduction(+:sum)` over a
    /// local `sum`) renamed as the body's locals are, its expressions substituted.
    fn directive(&mut self, d: &mut AccDirective, depth: usize) {
        self.span(&mut d.span);
        self.span(&mut d.construct_span);
        for c in &mut d.clauses {
            self.span(&mut c.span);
            match &mut c.kind {
                ClauseKind::Reduction { vars, .. }
                | ClauseKind::Private(vars)
                | ClauseKind::FirstPrivate(vars) => {
                    for v in vars {
                        self.span(&mut v.span);
                        if let Some(r) = self.names.get(&v.name) {
                            v.name = r.clone();
                        }
                    }
                }
                ClauseKind::Gang(Some(e))
                | ClauseKind::Worker(Some(e))
                | ClauseKind::Vector(Some(e))
                | ClauseKind::NumWorkers(e)
                | ClauseKind::VectorLength(e) => self.expr(e, depth + 1),
                ClauseKind::NumGangs(es) => {
                    for e in es {
                        self.expr(e, depth + 1);
                    }
                }
                ClauseKind::Tile(es) => {
                    for e in es.iter_mut().flatten() {
                        self.expr(e, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn decl(&mut self, d: &mut Declaration, depth: usize) {
        self.span(&mut d.span);
        for dec in &mut d.declarators {
            self.span(&mut dec.span);
            self.span(&mut dec.name.span);
            if let Some(n) = self.names.get(&dec.name.name) {
                dec.name.name = n.clone();
            }
            self.ty(&mut dec.ty, depth);
            if let Some(i) = &mut dec.init {
                self.init(i, depth);
            }
        }
    }

    fn init(&mut self, i: &mut Initializer, depth: usize) {
        match i {
            Initializer::Expr(e) => self.expr(e, depth + 1),
            Initializer::List(items, span) => {
                self.span(span);
                for i in items {
                    self.init(i, depth + 1);
                }
            }
            Initializer::Designated { init, span, .. } => {
                self.span(span);
                self.init(init, depth + 1);
            }
        }
    }

    fn ty(&mut self, t: &mut CType, depth: usize) {
        match t {
            CType::Pointer { to, .. } | CType::Const(to) => self.ty(to, depth),
            CType::Array { elem, len } => {
                self.ty(elem, depth);
                if let Some(l) = len {
                    self.expr(l, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &mut Expr, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        self.span(&mut e.span);
        // `p[k]` of a substituted array parameter.
        if let ExprKind::Index(base, k) = &mut e.kind {
            if let ExprKind::Ident(p) = &base.kind {
                if let Some(arg) = self.arrays.get(p).cloned() {
                    self.expr(k, depth + 1);
                    let span = e.span;
                    e.kind = match arg {
                        ArrayArg::Offset(b, off) => ExprKind::Index(
                            Box::new(b),
                            Box::new(Expr {
                                kind: ExprKind::Binary(BinOp::Add, Box::new(off), k.clone()),
                                span,
                            }),
                        ),
                        ArrayArg::Row(row) => ExprKind::Index(Box::new(row), k.clone()),
                        ArrayArg::Rename(_) => return,
                    };
                    return;
                }
            }
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(x) = self.exprs.get(n) {
                *e = x.clone();
                return;
            }
        }
        match &mut e.kind {
            ExprKind::Ident(n) => {
                if self.arrays.contains_key(n) {
                    self.error.get_or_insert(format!(
                        "its pointer parameter `{}` is used other than as `{}[i]`",
                        n, n
                    ));
                } else if let Some(r) = self.names.get(n) {
                    *n = r.clone();
                }
            }
            ExprKind::Call(f, args) => {
                self.span(&mut f.span);
                for a in args {
                    self.expr(a, depth + 1);
                }
            }
            ExprKind::IndirectCall(f, args) => {
                self.expr(f, depth + 1);
                for a in args {
                    self.expr(a, depth + 1);
                }
            }
            ExprKind::CompoundLit(t, items) => {
                self.ty(t, depth);
                for i in items {
                    self.init(i, depth + 1);
                }
            }
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                self.expr(a, depth + 1);
                self.expr(b, depth + 1);
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a, depth + 1);
                self.expr(b, depth + 1);
                self.expr(c, depth + 1);
            }
            ExprKind::Unary(_, a) | ExprKind::IncDec { arg: a, .. } | ExprKind::SizeofExpr(a) => {
                self.expr(a, depth + 1)
            }
            ExprKind::Cast(t, a) => {
                self.ty(t, depth);
                self.expr(a, depth + 1);
            }
            ExprKind::Member { base, field, .. } => {
                self.span(&mut field.span);
                self.expr(base, depth + 1);
            }
            ExprKind::SizeofType(t) => self.ty(t, depth),
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Char(_)
            | ExprKind::Str(_) => {}
        }
    }
}
