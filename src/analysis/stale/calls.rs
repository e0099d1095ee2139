//! Which functions a function calls, and the expressions a statement holds (the call graph
//! [`super::check`] reads: a call that receives an array forgets its facts).

use super::*;

/// The calls of a function: all of them, those inside its data constructs, and whether it
/// makes arrays present outside the structured constructs.
pub(super) struct Calls<'a> {
    f: &'a HostFunction,
    pub(super) all: BTreeSet<String>,
    /// Every name the function's expressions and data clauses mention.
    pub(super) idents: BTreeSet<String>,
    pub(super) in_data: BTreeSet<String>,
    pub(super) dynamic: bool,
}

impl<'a> Calls<'a> {
    pub(super) fn new(f: &'a HostFunction) -> Calls<'a> {
        Calls {
            f,
            all: BTreeSet::new(),
            idents: BTreeSet::new(),
            in_data: BTreeSet::new(),
            dynamic: false,
        }
    }

    pub(super) fn stmt(&mut self, s: Handle<HostStmt>, data_depth: usize) {
        let f = self.f;
        match &f.stmts[s] {
            HostStmt::Decl { vars, .. } => {
                for v in vars {
                    if let Some(i) = &v.init {
                        self.init(i, data_depth);
                    }
                }
            }
            HostStmt::Expr(e) | HostStmt::Return(Some(e)) => self.expr(*e, data_depth),
            HostStmt::Block(b) => b.iter().for_each(|s| self.stmt(*s, data_depth)),
            HostStmt::If {
                cond,
                accept,
                reject,
            } => {
                self.expr(*cond, data_depth);
                self.stmt(*accept, data_depth);
                if let Some(e) = reject {
                    self.stmt(*e, data_depth);
                }
            }
            HostStmt::For {
                init,
                cond,
                step,
                body,
            } => {
                if let Some(i) = init {
                    self.stmt(*i, data_depth);
                }
                for e in cond.iter().chain(step.iter()) {
                    self.expr(*e, data_depth);
                }
                self.stmt(*body, data_depth);
            }
            HostStmt::While { cond, body } | HostStmt::DoWhile { body, cond } => {
                self.expr(*cond, data_depth);
                self.stmt(*body, data_depth);
            }
            HostStmt::Acc {
                directive, body, ..
            } => {
                self.idents
                    .extend(directive.data_names().map(str::to_string));
                let inner = data_depth + usize::from(directive.construct == Construct::Data);
                self.stmt(*body, inner);
            }
            HostStmt::Standalone(dir) => {
                self.idents.extend(dir.data_names().map(str::to_string));
                self.dynamic |= matches!(dir.construct, Construct::EnterData | Construct::Declare);
            }
            HostStmt::Unstructured { body: Some(b), .. } => self.stmt(*b, data_depth),
            _ => {}
        }
    }

    pub(super) fn init(&mut self, i: &Initializer, data_depth: usize) {
        match i {
            Initializer::Expr(e) => self.expr(*e, data_depth),
            Initializer::List(v) => v.iter().for_each(|i| self.init(i, data_depth)),
            Initializer::Designated { init, .. } => self.init(init, data_depth),
        }
    }

    pub(super) fn expr(&mut self, e: Handle<Expr>, data_depth: usize) {
        let f = self.f;
        f.walk(e, &mut |h| {
            if let Expr::Var(x) = &f.exprs[h] {
                self.idents.insert(x.clone());
            }
            if let Expr::Call { function: n, .. } = &f.exprs[h] {
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
