//! Which functions a function calls, and the expressions a statement holds (the call graph
//! [`super::check`] reads: a call that receives an array forgets its facts).

use super::*;

/// The calls of a function: all of them, those inside its data constructs, and whether it
/// makes arrays present outside the structured constructs.
#[derive(Default)]
pub(super) struct Calls {
    pub(super) all: BTreeSet<String>,
    /// Every name the function's expressions and data clauses mention.
    pub(super) idents: BTreeSet<String>,
    pub(super) in_data: BTreeSet<String>,
    pub(super) dynamic: bool,
}

impl Calls {
    pub(super) fn stmt(&mut self, s: &Stmt, data_depth: usize) {
        match &s.kind {
            StmtKind::Decl(d) => {
                for dec in &d.declarators {
                    if let Some(i) = &dec.init {
                        self.init(i, data_depth);
                    }
                }
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, data_depth),
            StmtKind::Block(b) => b.stmts.iter().for_each(|s| self.stmt(s, data_depth)),
            StmtKind::If { cond, then, els } => {
                self.expr(cond, data_depth);
                self.stmt(then, data_depth);
                if let Some(e) = els {
                    self.stmt(e, data_depth);
                }
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                match init {
                    ForInit::Decl(d) => self.stmt(
                        &Stmt {
                            kind: StmtKind::Decl(d.clone()),
                            span: s.span,
                        },
                        data_depth,
                    ),
                    ForInit::Expr(e) => self.expr(e, data_depth),
                    ForInit::None => {}
                }
                for e in cond.iter().chain(step.iter()) {
                    self.expr(e, data_depth);
                }
                self.stmt(body, data_depth);
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(cond, data_depth);
                self.stmt(body, data_depth);
            }
            StmtKind::Acc { dir, body, .. } => {
                self.idents
                    .extend(data_clauses(dir).map(|(_, v)| v.name.name.clone()));
                let inner = data_depth + usize::from(dir.construct == Construct::Data);
                self.stmt(body, inner);
            }
            StmtKind::AccStandalone(dir) => {
                self.idents
                    .extend(data_clauses(dir).map(|(_, v)| v.name.name.clone()));
                self.dynamic |= matches!(dir.construct, Construct::EnterData | Construct::Declare);
            }
            StmtKind::Pragma(_) => {}
            StmtKind::Unsupported { body: Some(b), .. } => self.stmt(b, data_depth),
            _ => {}
        }
    }

    pub(super) fn init(&mut self, i: &Initializer, data_depth: usize) {
        match i {
            Initializer::Expr(e) => self.expr(e, data_depth),
            Initializer::List(v, _) => v.iter().for_each(|i| self.init(i, data_depth)),
            Initializer::Designated { init, .. } => self.init(init, data_depth),
        }
    }

    pub(super) fn expr(&mut self, e: &Expr, data_depth: usize) {
        e.walk(&mut |e| {
            if let ExprKind::Ident(x) = &e.kind {
                self.idents.insert(x.clone());
            }
            if let ExprKind::Call(f, _) = &e.kind {
                let n = &f.name;
                if n.starts_with("acc_") {
                    self.dynamic |= ["acc_copyin", "acc_create", "acc_present_or", "acc_pcopy"]
                        .iter()
                        .any(|p| n.starts_with(p))
                        || n.starts_with("acc_map_data")
                        || n.starts_with("acc_pcreate");
                }
                self.all.insert(n.clone());
                if data_depth > 0 {
                    self.in_data.insert(n.clone());
                }
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// The state: per array on the device, which copy is newer
// ---------------------------------------------------------------------------------------------
