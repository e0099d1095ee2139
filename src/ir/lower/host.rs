//! The syntax tree of the functions → the IR of the host code ([`crate::ir::host`]).

use std::collections::BTreeMap;

use crate::front::ast::{self, CType, ForInit, ItemKind, StmtKind};
use crate::front::pragma_ast::{Construct, Pragma};
use crate::front::Parsed;
use crate::ir::arena::{Arena, Handle};
use crate::ir::expr::{Expr, Exprs};
use crate::ir::host::{
    Declared, HostFunction, HostStmt, HostUnit, Storage, Unstructured, Var, VarShape,
};
use crate::ir::lower::expr::{lower_expr_parts, lower_init};
use crate::ir::lower::{array_shape, directive, Regions};

/// The host code of `parsed`: every function, its compute constructs naming their regions in
/// `regions` (found by [`crate::ir::lower::find_regions`] on the same syntax tree).
pub fn lower_host(parsed: &Parsed, regions: &Regions) -> HostUnit {
    // A compute construct's region, by the span of its statement.
    let by_span: BTreeMap<(u32, u32), usize> = regions
        .compute
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.stmt_span.lo, r.stmt_span.hi), i))
        .collect();
    let mut unit = HostUnit {
        declare_or_enter: parsed.pragmas.iter().any(|p| {
            matches!(p, Pragma::Acc(d) if matches!(d.construct, Construct::Declare | Construct::EnterData))
        }),
        ..HostUnit::default()
    };
    for item in &parsed.tu.items {
        match &item.kind {
            ItemKind::Decl(d) if d.storage != ast::Storage::Typedef => {
                unit.globals.extend(d.declarators.iter().map(var));
            }
            ItemKind::Function(f) => unit.functions.push(function(f, &by_span)),
            _ => {}
        }
    }
    unit
}

/// What the analyses need of a variable's type.
pub fn var_shape(ty: &CType) -> VarShape {
    let arr = array_shape(ty);
    VarShape {
        rank: arr.as_ref().map(|(_, dims, _)| dims.len()),
        holds_addresses: match ty.unqualified() {
            CType::Scalar(_) | CType::Void | CType::Function { .. } => false,
            _ => !matches!(arr, Some((_, _, false))),
        },
    }
}

fn var(d: &ast::Declarator) -> Var {
    Var {
        name: d.name.name.clone(),
        span: d.span,
        shape: var_shape(&d.ty),
    }
}

fn function(f: &ast::FunctionDef, regions: &BTreeMap<(u32, u32), usize>) -> HostFunction {
    let mut l = HostLowering {
        f: HostFunction {
            name: f.name.name.clone(),
            name_span: f.name.span,
            params: f
                .params
                .iter()
                .map(|p| {
                    p.name.as_ref().map(|n| Var {
                        name: n.name.clone(),
                        span: p.span,
                        shape: var_shape(&p.ty),
                    })
                })
                .collect(),
            stmts: Arena::new(),
            exprs: Exprs::new(),
            body: Vec::new(),
            opaque: BTreeMap::new(),
        },
        regions,
    };
    l.f.body = f.body.stmts.iter().map(|s| l.stmt(s)).collect();
    l.f
}

struct HostLowering<'a> {
    f: HostFunction,
    regions: &'a BTreeMap<(u32, u32), usize>,
}

impl HostLowering<'_> {
    fn expr(&mut self, e: &ast::Expr) -> Handle<Expr> {
        lower_expr_parts(&mut self.f.exprs, e, &|_| None, Some(&mut self.f.opaque))
    }

    fn decl(&mut self, d: &ast::Declaration) -> HostStmt {
        let storage = match d.storage {
            ast::Storage::None => Storage::Auto,
            ast::Storage::Static => Storage::Static,
            ast::Storage::Extern => Storage::Extern,
            ast::Storage::Typedef => Storage::Typedef,
        };
        let vars = d
            .declarators
            .iter()
            .map(|dec| Declared {
                var: var(dec),
                init: dec
                    .init
                    .as_ref()
                    .map(|i| lower_init(&mut self.f.exprs, i, &|_| None, &mut self.f.opaque)),
            })
            .collect();
        HostStmt::Decl { storage, vars }
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Handle<HostStmt> {
        let lowered = match &s.kind {
            StmtKind::Decl(d) => self.decl(d),
            StmtKind::Expr(e) => HostStmt::Expr(self.expr(e)),
            StmtKind::Block(b) => HostStmt::Block(b.stmts.iter().map(|x| self.stmt(x)).collect()),
            StmtKind::If { cond, then, els } => HostStmt::If {
                cond: self.expr(cond),
                accept: self.stmt(then),
                reject: els.as_ref().map(|e| self.stmt(e)),
            },
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let init = match init {
                    ForInit::None => None,
                    ForInit::Decl(d) => {
                        let h = self.decl(d);
                        Some(self.f.stmts.append(h, d.span))
                    }
                    ForInit::Expr(e) => {
                        let h = HostStmt::Expr(self.expr(e));
                        Some(self.f.stmts.append(h, e.span))
                    }
                };
                HostStmt::For {
                    init,
                    cond: cond.as_ref().map(|c| self.expr(c)),
                    step: step.as_ref().map(|c| self.expr(c)),
                    body: self.stmt(body),
                }
            }
            StmtKind::While { cond, body } => HostStmt::While {
                cond: self.expr(cond),
                body: self.stmt(body),
            },
            StmtKind::DoWhile { body, cond } => {
                let body = self.stmt(body);
                HostStmt::DoWhile {
                    body,
                    cond: self.expr(cond),
                }
            }
            StmtKind::Return(e) => HostStmt::Return(e.as_ref().map(|e| self.expr(e))),
            StmtKind::Break => HostStmt::Break,
            StmtKind::Continue => HostStmt::Continue,
            StmtKind::Empty | StmtKind::Pragma(_) => HostStmt::Empty,
            StmtKind::Acc { dir, body, .. } => HostStmt::Acc {
                directive: directive(dir),
                region: if dir.construct.is_compute() {
                    self.regions.get(&(s.span.lo, s.span.hi)).copied()
                } else {
                    None
                },
                body: self.stmt(body),
            },
            StmtKind::AccStandalone(dir) => HostStmt::Standalone(directive(dir)),
            StmtKind::Unsupported { what, body, args } => HostStmt::Unstructured {
                kind: match what.as_str() {
                    "goto" => Unstructured::Goto,
                    w if w.starts_with("label") => Unstructured::Label,
                    "switch" => Unstructured::Switch,
                    "case" => Unstructured::Case,
                    "default" => Unstructured::Default,
                    _ => Unstructured::Other,
                },
                args: args.iter().map(|a| self.expr(a)).collect(),
                body: body.as_ref().map(|b| self.stmt(b)),
            },
        };
        self.f.stmts.append(lowered, s.span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diags, SourceMap};
    use crate::ir::host::{Initializer, Opaque};
    use crate::vocab::DataKind;

    fn host(src: &str) -> (HostUnit, Regions) {
        let mut sm = SourceMap::new();
        let mut d = Diags::new();
        let main = sm.add("t.c".to_string(), "t.c".into(), src.to_string());
        let parsed = crate::front::load_source(main, &Default::default(), &mut sm, &mut d);
        assert!(!d.has_errors(), "{}", crate::diag::render(&sm, &d.0));
        let regions = crate::ir::lower::find_regions(&parsed.tu, &sm, &mut d);
        (lower_host(&parsed, &regions), regions)
    }

    /// Every statement kind the analyses of the host code rely on, with its parts: globals and
    /// parameters with their shapes, directives, the compute construct's region, `return`,
    /// `goto` and labels, and the parts of a compound literal.
    #[test]
    fn the_host_code_keeps_its_statements_and_directives() {
        let (h, regions) = host(
            "struct P { float x, y; };\n\
             float g[8][4];\nfloat *gp;\nint n;\n\
             float use(struct P p) { return p.x; }\n\
             int f(float *a, int m)\n{\n\
             \x20   float t[8];\n\
             #pragma acc data copy(a[0:m]) create(t)\n\
             \x20   {\n\
             #pragma acc parallel loop\n\
             \x20       for (int i = 0; i < m; i++) a[i] = t[i % 8];\n\
             #pragma acc update self(a[0:m])\n\
             \x20   }\n\
             \x20   use((struct P){ .x = a[0] });\n\
             again:\n\
             \x20   if (a[0] > 0) { a[0] = 0; goto again; }\n\
             \x20   return (int)a[1];\n}\n",
        );
        let shapes: Vec<_> = h
            .globals
            .iter()
            .map(|g| (g.name.as_str(), g.shape))
            .collect();
        assert_eq!(shapes.len(), 3);
        assert_eq!(shapes[0].1.rank, Some(2));
        assert!(!shapes[0].1.holds_addresses);
        assert_eq!(shapes[1].1.rank, Some(1));
        assert!(shapes[1].1.holds_addresses);
        assert_eq!(shapes[2].1, VarShape::default());
        assert_eq!(h.functions.len(), 2);
        let f = &h.functions[1];
        assert_eq!(f.name, "f");
        let params: Vec<_> = f.params.iter().flatten().map(|p| &p.name).collect();
        assert_eq!(params, ["a", "m"]);
        let kinds: Vec<_> = f
            .stmts
            .iter()
            .filter_map(|(_, s)| match s {
                HostStmt::Acc {
                    directive, region, ..
                } => Some(format!("{:?} {region:?}", directive.construct)),
                HostStmt::Standalone(d) => Some(format!("{:?} {:?}", d.construct, d.data[0].0)),
                HostStmt::Unstructured { kind, .. } => Some(format!("{kind:?}")),
                HostStmt::Return(Some(_)) => Some("return".to_string()),
                _ => None,
            })
            .collect();
        // Inner statements come first in the arena.
        assert_eq!(
            kinds,
            [
                "ParallelLoop Some(0)",
                "Update Host",
                "Data None",
                "Goto",
                "Label",
                "return"
            ]
        );
        assert_eq!(regions.compute.len(), 1);
        assert_eq!(
            regions.compute[0].directive.span,
            f.stmts
                .iter()
                .find_map(|(_, s)| match s {
                    HostStmt::Acc {
                        directive,
                        region: Some(_),
                        ..
                    } => Some(directive.span),
                    _ => None,
                })
                .unwrap()
        );
        // The compound literal's initializer is kept beside its opaque expression.
        let parts: Vec<_> = f.opaque.values().collect();
        assert_eq!(parts.len(), 1);
        let Opaque::CompoundLit { inits } = parts[0] else {
            panic!("{parts:?}");
        };
        let Initializer::Designated { init, indices } = &inits[0] else {
            panic!("{inits:?}");
        };
        assert!(indices.is_empty());
        let Initializer::Expr(e) = **init else {
            panic!("{init:?}");
        };
        assert_eq!(f.exprs.display(e).to_string(), "a[0]");
        let mut names = Vec::new();
        let opaque = *f.opaque.keys().next().unwrap();
        f.walk(opaque, &mut |x| {
            if let crate::ir::Expr::Var(v) = &f.exprs[x] {
                names.push(v.clone());
            }
        });
        assert_eq!(names, ["a"]);
        assert!(matches!(
            f.stmts.iter().find_map(|(_, s)| match s {
                HostStmt::Acc { directive, .. } if directive.data.len() == 2 =>
                    Some(directive.data[1].0),
                _ => None,
            }),
            Some(DataKind::Create)
        ));
    }
}
