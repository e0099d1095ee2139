//! Struct members in directives and compute regions: `copyin(data.a[0:n])`, `p->a[i]`,
//! `data.n`.
//!
//! Each member a directive names (in a clause, or for a compute construct in its statement) is
//! named through a variable of its own, `data_a` for `data.a` and `p_a` for `p->a`, which the
//! host code declares before anything else of the construct (`double *data_a = data.a;`,
//! [`MemberAlias`]). The rest of the compiler sees a variable: a pointer or array member is a
//! device array of its own (found in the present table by the address `data.a` holds, so data
//! constructs, executable directives and compute constructs that name the same member share its
//! device copy), a scalar member a scalar passed by value. A scalar member assigned in a compute
//! region is refused (its value would not reach the struct). A struct in a data clause (`copyin(data)`,
//! or a pointer to structs that cannot be an array of structs of scalar fields) has no device
//! copy: kernels never read the struct itself, only its members through their own variables.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::front::ast::{ForInit, Initializer, TagKind};
use crate::front::pragma_ast::SubArray;
use crate::ir::directive::MemberAlias;

/// An annotated statement with its members named through variables.
pub(super) struct Rewritten {
    pub stmt: Stmt,
    /// The variables this statement declares (not those of enclosing constructs it reuses).
    pub aliases: Vec<MemberAlias>,
    pub symbols: Vec<Symbol>,
    /// A member was reported: a compute construct is not lowered further (its errors would
    /// only repeat the report).
    pub failed: bool,
}

/// Rewrites the annotated statement `s` (an OpenACC construct or executable directive), or
/// `None` where it names no struct member and no struct. `outer` maps the members enclosing
/// constructs already named (`data.a`) to their variables, which this statement reuses.
pub(super) fn rewrite(
    s: &Stmt,
    scope: &Scope,
    outer: &BTreeMap<String, String>,
    diags: &mut Diags,
) -> Option<Rewritten> {
    let mut stmt = s.clone();
    let mut r = Rewriter {
        scope,
        outer,
        new: Vec::new(),
        reported: BTreeSet::new(),
        changed: false,
        diags,
    };
    match &mut stmt.kind {
        StmtKind::Acc { dir, body, .. } => {
            r.directive(dir);
            if dir.construct.is_compute() {
                r.stmt(body);
            }
        }
        StmtKind::AccStandalone(dir) => r.directive(dir),
        _ => return None,
    }
    if !r.changed {
        return None;
    }
    let failed = !r.reported.is_empty();
    let (aliases, symbols) = r.new.into_iter().unzip();
    Some(Rewritten {
        stmt,
        aliases,
        symbols,
        failed,
    })
}

struct Rewriter<'a> {
    scope: &'a Scope,
    outer: &'a BTreeMap<String, String>,
    new: Vec<(MemberAlias, Symbol)>,
    /// Members already reported, by their text.
    reported: BTreeSet<String>,
    changed: bool,
    diags: &'a mut Diags,
}

/// What a member is, for the code that names it.
enum Kind {
    /// A pointer, array or scalar member: named through a variable.
    Named { name: String },
    /// A struct (or a pointer to structs kernels cannot index): no device copy.
    Struct,
}

impl Rewriter<'_> {
    fn directive(&mut self, dir: &mut AccDirective) {
        for c in &mut dir.clauses {
            match &mut c.kind {
                ClauseKind::Data { vars, .. } => {
                    vars.retain_mut(|v| self.subarray(v));
                }
                ClauseKind::Gang(e)
                | ClauseKind::Worker(e)
                | ClauseKind::Vector(e)
                | ClauseKind::Async(e) => {
                    if let Some(e) = e {
                        self.expr(e, false);
                    }
                }
                ClauseKind::NumGangs(es) | ClauseKind::Wait(es) => {
                    es.iter_mut().for_each(|e| self.expr(e, false));
                }
                ClauseKind::NumWorkers(e) | ClauseKind::VectorLength(e) | ClauseKind::If(e) => {
                    self.expr(e, false)
                }
                ClauseKind::Tile(es) => es.iter_mut().flatten().for_each(|e| self.expr(e, false)),
                _ => {}
            }
        }
        for v in &mut dir.cache {
            self.subarray(v);
        }
    }

    /// Names the variable of a clause through its member's variable; `false` for a struct,
    /// which the clause drops.
    fn subarray(&mut self, v: &mut SubArray) -> bool {
        for d in &mut v.dims {
            if let Some(e) = &mut d.start {
                self.expr(e, false);
            }
            if let Some(e) = &mut d.len {
                self.expr(e, false);
            }
        }
        let Some((base, rest)) = v.member_base() else {
            let holds = self
                .scope
                .lookup(&v.name.name)
                .is_some_and(|s| struct_holder(&s.ty));
            self.changed |= holds;
            return !holds;
        };
        let path = parse_path(rest);
        let base = base.to_string();
        match self.member(&base, &path, v.name.span, false) {
            Some(Kind::Named { name }) => {
                v.name.name = name;
                true
            }
            Some(Kind::Struct) => false,
            // Reported; the clause keeps a name no scope holds, which nothing reaches.
            None => false,
        }
    }

    /// The kind of member `base` + `path` written at `span`, its variable made or reused; `None`
    /// (reported) where the path does not name a member.
    fn member(
        &mut self,
        base: &str,
        path: &[(bool, String)],
        span: Span,
        write: bool,
    ) -> Option<Kind> {
        self.changed = true;
        let text = crate::ir::directive::member_text(base, path);
        let ty = match member_type(self.scope, base, path) {
            Ok(t) => t,
            Err(why) => {
                if self.reported.insert(text.clone()) {
                    self.diags.push(
                        Diag::error(span, format!("`{text}`: {why}"))
                            .label("not a member accshare can name")
                            .note("a struct member in a directive or a compute region is a pointer, an array or a scalar member of a struct variable (`data.a`) or of a pointer to a struct (`p->a`)"),
                    );
                }
                return None;
            }
        };
        let scalar = matches!(ty.unqualified(), CType::Scalar(_));
        if write && scalar {
            if self.reported.insert(format!("{text}=")) {
                self.diags.push(
                    Diag::error(span, format!("`{text}`: a struct member assigned in a compute region is not supported"))
                        .label("assigned here")
                        .note("kernels receive a scalar member by value: the assignment would not reach the struct")
                        .help(format!("assign a scalar of the function in the region, then `{text} = …;` after it")),
                );
            }
            return None;
        }
        if struct_holder(&ty) {
            return Some(Kind::Struct);
        }
        // A pointer or array member an enclosing construct named is its variable (its device
        // copy is that construct's). A scalar member is read again at each construct: the host
        // may assign it between the constructs of a data region (`s.n = t * 10;` before each
        // loop up to `s.n`), and the kernel must see the value it has when it starts.
        if let Some(name) = self.outer.get(&text).filter(|_| !scalar) {
            return Some(Kind::Named { name: name.clone() });
        }
        if let Some((a, _)) = self.new.iter().find(|(a, _)| a.member() == text) {
            return Some(Kind::Named {
                name: a.name.clone(),
            });
        }
        let (decl_ty, param) = match ty.unqualified() {
            CType::Pointer { to, .. } if !matches!(to.unqualified(), CType::Function { .. }) => {
                (ty.clone(), false)
            }
            CType::Array { elem, .. } => (
                CType::Pointer {
                    to: elem.clone(),
                    is_const: false,
                    is_restrict: false,
                },
                true,
            ),
            CType::Scalar(_) => (ty.unqualified().clone(), false),
            _ => {
                if self.reported.insert(text.clone()) {
                    self.diags.push(
                        Diag::error(
                            span,
                            format!(
                                "`{text}`: a member of type `{}` cannot be used on the device",
                                crate::front::pragma::ctype_to_c(&ty, "")
                                    .trim_end()
                            ),
                        )
                        .label("not a pointer, an array or a scalar")
                        .note("a struct member in a directive or a compute region is a pointer, an array or a scalar"),
                    );
                }
                return None;
            }
        };
        // What it points to has a name the host code can write (not a function, not a struct
        // without a name).
        let Some(decl_ty) = crate::ir::lower::expr::declared_type(&decl_ty) else {
            if self.reported.insert(text.clone()) {
                self.diags.push(
                    Diag::error(
                        span,
                        format!(
                            "`{text}`: a member of type `{}` cannot be used on the device",
                            crate::front::pragma::ctype_to_c(&ty, "").trim_end()
                        ),
                    )
                    .label("the host code cannot name what it points to")
                    .note("a pointer member in a directive or a compute region points to a type the host code can name: not to a function, nor to a struct without a name"),
                );
            }
            return None;
        };
        let mut name = text.replace("->", "_").replace('.', "_");
        while self.scope.lookup(&name).is_some()
            || self.outer.values().any(|n| *n == name)
            || self.new.iter().any(|(a, _)| a.name == name)
        {
            name.push('_');
        }
        let alias = MemberAlias {
            name: name.clone(),
            ty: decl_ty,
            base: base.to_string(),
            path: path.to_vec(),
        };
        let sym = Symbol {
            name: name.clone(),
            ty,
            span,
            param,
            global: false,
            rows: false,
        };
        self.new.push((alias, sym));
        Some(Kind::Named { name })
    }

    /// Rewrites the members of `e`; `write`: `e` is assigned.
    fn expr(&mut self, e: &mut Expr, write: bool) {
        if let Some((base, path)) = member_path(e) {
            match self.member(&base, &path, e.span, write) {
                Some(Kind::Named { name }) => {
                    e.kind = ExprKind::Ident(name);
                    return;
                }
                // A struct used whole (`s.in`): left for the checks after.
                Some(Kind::Struct) | None => return,
            }
        }
        match &mut e.kind {
            ExprKind::Assign(_, l, r) => {
                self.expr(l, true);
                self.expr(r, false);
            }
            ExprKind::IncDec { arg, .. } => self.expr(arg, true),
            _ => e.for_each_child_mut(&mut |c| self.expr(c, false)),
        }
    }

    fn init(&mut self, i: &mut Initializer) {
        match i {
            Initializer::Expr(e) => self.expr(e, false),
            Initializer::List(items, _) => items.iter_mut().for_each(|i| self.init(i)),
            Initializer::Designated { init, .. } => self.init(init),
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Decl(d) => d
                .declarators
                .iter_mut()
                .filter_map(|d| d.init.as_mut())
                .for_each(|i| self.init(i)),
            StmtKind::Expr(e) => self.expr(e, false),
            StmtKind::Block(b) => b.stmts.iter_mut().for_each(|s| self.stmt(s)),
            StmtKind::If { cond, then, els } => {
                self.expr(cond, false);
                self.stmt(then);
                if let Some(e) = els {
                    self.stmt(e);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match init {
                    ForInit::Decl(d) => d
                        .declarators
                        .iter_mut()
                        .filter_map(|d| d.init.as_mut())
                        .for_each(|i| self.init(i)),
                    ForInit::Expr(e) => self.expr(e, false),
                    ForInit::None => {}
                }
                if let Some(c) = cond {
                    self.expr(c, false);
                }
                if let Some(st) = step {
                    self.expr(st, false);
                }
                self.stmt(body);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, false);
                self.stmt(body);
            }
            StmtKind::Return(Some(e)) => self.expr(e, false),
            StmtKind::Acc { dir, body, .. } => {
                self.directive(dir);
                self.stmt(body);
            }
            StmtKind::AccStandalone(dir) => self.directive(dir),
            StmtKind::Unsupported { body, args, .. } => {
                args.iter_mut().for_each(|e| self.expr(e, false));
                if let Some(b) = body {
                    self.stmt(b);
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Empty
            | StmtKind::Pragma(_) => {}
        }
    }
}

/// `.a`, `->a`, `.in.a` (as a clause writes it after the variable) as members.
fn parse_path(rest: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut s = rest;
    loop {
        let arrow = if let Some(t) = s.strip_prefix("->") {
            s = t;
            true
        } else if let Some(t) = s.strip_prefix('.') {
            s = t;
            false
        } else {
            return out;
        };
        let end = s.find(['.', '-']).unwrap_or(s.len());
        out.push((arrow, s[..end].to_string()));
        s = &s[end..];
    }
}

/// `data.a`, `p->a`, `s.in.a`: the variable and the members after it; `None` for anything
/// else (`a[i].x` included).
fn member_path(e: &Expr) -> Option<(String, Vec<(bool, String)>)> {
    let mut path = Vec::new();
    let mut e = e;
    while let ExprKind::Member { base, field, arrow } = &e.kind {
        path.push((*arrow, field.name.clone()));
        e = base;
    }
    let ExprKind::Ident(base) = &e.kind else {
        return None;
    };
    if path.is_empty() {
        return None;
    }
    path.reverse();
    Some((base.clone(), path))
}

/// The type of member `path` of variable `base`, or why it names none.
fn member_type(scope: &Scope, base: &str, path: &[(bool, String)]) -> Result<CType, String> {
    let sym = scope
        .lookup(base)
        .ok_or_else(|| format!("`{base}` is not a variable here"))?;
    let mut ty = sym.ty.clone();
    let mut text = base.to_string();
    for (arrow, field) in path {
        let t = ty.unqualified();
        let st = if *arrow {
            match t {
                CType::Pointer { to, .. } => to.unqualified(),
                _ => return Err(format!("`{text}` is not a pointer to a struct")),
            }
        } else {
            t
        };
        let CType::Struct(def) = st else {
            return Err(if *arrow {
                format!("`{text}` does not point to a struct whose definition accshare saw")
            } else {
                format!("`{text}` is not a struct whose definition accshare saw")
            });
        };
        let Some(m) = def
            .members
            .iter()
            .find(|m| m.name.as_ref().is_some_and(|n| n.name == *field))
        else {
            let names: Vec<String> = def
                .members
                .iter()
                .filter_map(|m| m.name.as_ref().map(|n| format!("`{}`", n.name)))
                .collect();
            return Err(format!(
                "the struct of `{text}` has no member `{field}` (its members: {})",
                names.join(", ")
            ));
        };
        ty = m.ty.clone();
        text.push_str(if *arrow { "->" } else { "." });
        text.push_str(field);
    }
    Ok(ty)
}

/// A struct, or a pointer to (an array of) structs that cannot be an array of structs of
/// scalar fields: nothing of it is on the device but its members, through their variables.
fn struct_holder(ty: &CType) -> bool {
    match ty.unqualified() {
        CType::Struct(_) => true,
        CType::Tagged {
            kind: TagKind::Struct | TagKind::Union,
            ..
        } => true,
        CType::Pointer { to, .. } | CType::Array { elem: to, .. } => match to.unqualified() {
            CType::Struct(def) => def.scalar_fields().is_err(),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::find_regions;
    use crate::back::host::alias_declaration;
    use crate::diag::{Diags, SourceMap};

    fn regions(src: &str) -> (super::Regions, String) {
        let mut sm = SourceMap::new();
        let mut d = Diags::new();
        let main = sm.add("t.c".to_string(), "t.c".into(), src.to_string());
        let parsed = crate::front::load_source(main, &Default::default(), &mut sm, &mut d);
        let r = find_regions(&parsed.tu, &sm, &mut d);
        (r, crate::diag::render(&sm, &d.0))
    }

    /// Members in a data construct's clauses and in a compute region inside it: the data
    /// construct declares the variables, the region reuses them and declares only its own.
    #[test]
    fn members_are_named_through_variables() {
        let (r, d) = regions(
            "typedef struct { int n; double *a; double *b; float w[8]; } vec_t;\n\
             void f(vec_t data, vec_t *p)\n{\n\
             #pragma acc data copyin(data.a[0:data.n]) copyout(data.b[0:data.n]) copy(data)\n\
             \x20   {\n\
             #pragma acc parallel loop\n\
             \x20       for (int i = 0; i < data.n; i++)\n\
             \x20           data.b[i] = data.a[i] * p->w[i % 8];\n\
             \x20   }\n}\n",
        );
        assert_eq!(d, "");
        let data = &r.data[0].directive;
        let decls: Vec<(String, String)> = data
            .aliases
            .iter()
            .map(|a| (alias_declaration(a), a.member()))
            .collect();
        assert_eq!(
            decls,
            [
                ("int data_n".to_string(), "data.n".to_string()),
                ("double *data_a".to_string(), "data.a".to_string()),
                ("double *data_b".to_string(), "data.b".to_string()),
            ]
        );
        // `copy(data)`: the struct itself has no device copy.
        assert_eq!(data.data_names().collect::<Vec<_>>(), ["data_a", "data_b"]);
        let c = &r.compute[0];
        let decls: Vec<String> = c.directive.aliases.iter().map(alias_declaration).collect();
        // The pointer members are the data construct's variables; the scalar `data.n` is read
        // again when the compute construct starts (the host may have assigned it since).
        assert_eq!(decls, ["int data_n_", "float *p_w"]);
        let mut names = c.scope.keys().cloned().collect::<Vec<_>>();
        names.sort();
        assert_eq!(names, ["data_a", "data_b", "data_n_", "p_w"]);
    }

    /// The declarations the host code gives members' variables, as C writes the types: a
    /// pointer to rows (an array of arrays), qualifiers, a named struct; a pointer to a struct
    /// without a name is an error (the host code cannot name it).
    #[test]
    fn member_variables_are_declared_as_c_writes_their_types() {
        let (r, d) = regions(
            "struct pt { float x, y; };\n\
             struct s { double m[4][8]; const float *c; float *const k; struct pt *q; int n; };\n\
             void f(struct s *p)\n{\n\
             #pragma acc data copyin(p->m[0:4], p->c[0:p->n], p->k[0:p->n], p->q[0:p->n])\n\
             \x20   {\n\
             \x20   }\n}\n",
        );
        assert_eq!(d, "");
        let decls: Vec<String> = r.data[0]
            .directive
            .aliases
            .iter()
            .map(alias_declaration)
            .collect();
        assert_eq!(
            decls,
            [
                "double (*p_m)[8]",
                "int p_n",
                "const float *p_c",
                "float *const p_k",
                "struct pt *p_q"
            ]
        );
        let (_, d) = regions(
            "struct s { struct { float x; } *q; int n; };\n\
             void f(struct s *p)\n{\n\
             #pragma acc data copyin(p->q[0:p->n])\n\
             \x20   {\n\
             \x20   }\n}\n",
        );
        assert!(
            d.contains(
                "`p->q`: a member of type `struct <anonymous> *` cannot be used on the device"
            ),
            "{d}"
        );
    }

    /// A variable of the function with the name a member would get: the member's gets `_`.
    #[test]
    fn member_variables_do_not_take_the_functions_names() {
        let (r, d) = regions(
            "struct s { float *a; };\n\
             void f(struct s v, float *v_a, int n)\n{\n\
             #pragma acc parallel loop copy(v.a[0:n]) copyin(v_a[0:n])\n\
             \x20   for (int i = 0; i < n; i++)\n\
             \x20       v.a[i] += v_a[i];\n}\n",
        );
        assert_eq!(d, "");
        let c = &r.compute[0];
        assert_eq!(alias_declaration(&c.directive.aliases[0]), "float *v_a_");
        assert_eq!(
            c.directive.data_names().collect::<Vec<_>>(),
            ["v_a_", "v_a"]
        );
    }
}
