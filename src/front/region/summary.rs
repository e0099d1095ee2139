//! Summaries: one line per compute region for `accshare check`.

use super::*;

/// One compute region, as `accshare check` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSummary {
    /// The enclosing function.
    pub func: String,
    /// `file:line:col` of the statement the construct applies to.
    pub location: String,
    /// The construct and its clauses other than data clauses (`kernels loop independent`).
    pub construct: String,
    /// The `for` loops of the region, as a forest.
    pub loops: Vec<LoopSummary>,
    /// The `share` partitions (`A[TB_Y][*]:coalesce`).
    pub share: Vec<String>,
    /// The construct's data clauses, names only, grouped by kind (`copyin(A,B)`).
    pub data: Vec<String>,
    /// The data clauses of each enclosing `data` construct, outermost first.
    pub enclosing: Vec<Vec<String>>,
}

/// One `for` loop of a region: its variable, its OpenACC marking and the loops inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopSummary {
    pub var: String,
    /// The loop clauses that apply to it (`independent`, `gang`, `vector(128)`, …); empty when the
    /// loop carries no directive.
    pub marks: Vec<String>,
    pub inner: Vec<LoopSummary>,
}

impl fmt::Display for LoopSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.var)?;
        if !self.marks.is_empty() {
            write!(f, "[{}]", self.marks.join(" "))?;
        }
        write_forest(f, &self.inner, true)
    }
}

fn write_forest(f: &mut fmt::Formatter<'_>, loops: &[LoopSummary], nested: bool) -> fmt::Result {
    match loops {
        [] => Ok(()),
        [one] => {
            if nested {
                f.write_str(" > ")?;
            }
            write!(f, "{one}")
        }
        many => {
            if nested {
                f.write_str(" > ")?;
            }
            f.write_str("{")?;
            for (k, l) in many.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{l}")?;
            }
            f.write_str("}")
        }
    }
}

impl fmt::Display for RegionSummary {
    /// `gemm.c:14:5: gemm: kernels loop independent | loops i[independent] > j[independent] >
    /// k[seq] | share B[*][TB_X], A[TB_Y][*]:coalesce | data copyin(A,B) copy(C)`; sibling loops
    /// print as `i > {j, k}`, and each enclosing `data` construct adds `| in data copy(u)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.location, self.func, self.construct)?;
        if !self.loops.is_empty() {
            f.write_str(" | loops ")?;
            write_forest(f, &self.loops, false)?;
        }
        if !self.share.is_empty() {
            write!(f, " | share {}", self.share.join(", "))?;
        }
        if !self.data.is_empty() {
            write!(f, " | data {}", self.data.join(" "))?;
        }
        for d in &self.enclosing {
            write!(f, " | in data {}", d.join(" "))?;
        }
        Ok(())
    }
}

/// Describes every compute region of the translation unit, in source order.
pub fn summarize(tu: &TranslationUnit, sources: &SourceMap) -> Vec<RegionSummary> {
    let mut out = Vec::new();
    for item in &tu.items {
        if let ItemKind::Function(f) = &item.kind {
            let mut data: Vec<&AccDirective> = Vec::new();
            for s in &f.body.stmts {
                summarize_stmt(s, &f.name.name, sources, &mut data, &mut out, 0);
            }
        }
    }
    out
}

fn summarize_stmt<'a>(
    s: &'a Stmt,
    func: &str,
    sources: &SourceMap,
    data: &mut Vec<&'a AccDirective>,
    out: &mut Vec<RegionSummary>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let rec = |s: &'a Stmt, data: &mut Vec<&'a AccDirective>, out: &mut Vec<RegionSummary>| {
        summarize_stmt(s, func, sources, data, out, depth + 1)
    };
    match &s.kind {
        StmtKind::Block(b) => {
            for x in &b.stmts {
                rec(x, data, out);
            }
        }
        StmtKind::If { then, els, .. } => {
            rec(then, data, out);
            if let Some(e) = els {
                rec(e, data, out);
            }
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. } => rec(body, data, out),
        StmtKind::Unsupported { body: Some(b), .. } => rec(b, data, out),
        StmtKind::Acc { dir, share, body } if dir.construct.is_compute() => {
            let first = if dir.construct.is_loop() {
                Some(dir)
            } else {
                None
            };
            out.push(RegionSummary {
                func: func.to_string(),
                location: sources.location(body.span),
                construct: construct_text(dir),
                loops: loop_forest(body, first, 0),
                share: share
                    .as_ref()
                    .map(|s| s.specs.iter().map(|x| x.to_string()).collect())
                    .unwrap_or_default(),
                data: data_text(dir),
                enclosing: data.iter().map(|d| data_text(d)).collect(),
            });
        }
        StmtKind::Acc { dir, body, .. } if dir.construct == Construct::Data => {
            data.push(dir);
            rec(body, data, out);
            data.pop();
        }
        StmtKind::Acc { body, .. } => rec(body, data, out),
        _ => {}
    }
}

/// `kernels loop independent`: the construct and its clauses except data clauses.
fn construct_text(d: &AccDirective) -> String {
    let mut s = d.construct.name().to_string();
    for c in &d.clauses {
        if !matches!(c.kind, ClauseKind::Data { .. }) {
            s.push(' ');
            s.push_str(&c.to_string());
        }
    }
    s
}

/// `copyin(A,B) copy(C)`: the data clauses' names grouped by kind, in order of appearance.
fn data_text(d: &AccDirective) -> Vec<String> {
    let mut groups: Vec<(DataKind, Vec<String>)> = Vec::new();
    for c in &d.clauses {
        if let ClauseKind::Data { kind, vars, .. } = &c.kind {
            let names = vars.iter().map(|v| v.name.name.clone());
            match groups.iter_mut().find(|g| g.0 == *kind) {
                Some(g) => g.1.extend(names),
                None => groups.push((*kind, names.collect())),
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, names)| format!("{}({})", k.name(), names.join(",")))
        .collect()
}

/// The clauses of a loop directive that describe how its loop runs.
fn loop_marks(d: &AccDirective) -> Vec<String> {
    d.clauses
        .iter()
        .filter(|c| {
            matches!(
                c.kind,
                ClauseKind::Independent
                    | ClauseKind::Seq
                    | ClauseKind::Auto
                    | ClauseKind::Gang(_)
                    | ClauseKind::Worker(_)
                    | ClauseKind::Vector(_)
                    | ClauseKind::Collapse { .. }
                    | ClauseKind::Tile(_)
                    | ClauseKind::Reduction { .. }
                    | ClauseKind::Private(_)
                    | ClauseKind::FirstPrivate(_)
            )
        })
        .map(|c| c.to_string())
        .collect()
}

/// The `for` loops under `s`; `dir` is the loop directive that applies to the first one.
fn loop_forest(s: &Stmt, dir: Option<&AccDirective>, depth: usize) -> Vec<LoopSummary> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    match &s.kind {
        StmtKind::For {
            init, cond, body, ..
        } => vec![LoopSummary {
            var: loop_var(init, cond.as_ref()),
            marks: dir.map(loop_marks).unwrap_or_default(),
            inner: loop_forest(body, None, depth + 1),
        }],
        StmtKind::Acc { dir: d, body, .. } if d.construct == Construct::Loop => {
            loop_forest(body, Some(d), depth + 1)
        }
        StmtKind::Acc { body, .. } => loop_forest(body, None, depth + 1),
        StmtKind::Block(b) => b
            .stmts
            .iter()
            .flat_map(|x| loop_forest(x, None, depth + 1))
            .collect(),
        StmtKind::If { then, els, .. } => {
            let mut v = loop_forest(then, None, depth + 1);
            if let Some(e) = els {
                v.extend(loop_forest(e, None, depth + 1));
            }
            v
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            loop_forest(body, None, depth + 1)
        }
        StmtKind::Unsupported { body: Some(b), .. } => loop_forest(b, None, depth + 1),
        _ => Vec::new(),
    }
}

/// The variable a `for` loop counts with (`?` if there is none to see).
fn loop_var(init: &ForInit, cond: Option<&Expr>) -> String {
    match init {
        ForInit::Decl(d) => {
            if let Some(dec) = d.declarators.first() {
                return dec.name.name.clone();
            }
        }
        ForInit::Expr(e) => {
            let mut e = e;
            // `i = 0, j = 0`: the first one.
            while let ExprKind::Comma(a, _) = &e.kind {
                e = a;
            }
            if let ExprKind::Assign(_, l, _) = &e.kind {
                if let ExprKind::Ident(n) = &l.kind {
                    return n.clone();
                }
            }
        }
        ForInit::None => {}
    }
    if let Some(Expr {
        kind: ExprKind::Binary(_, l, _),
        ..
    }) = cond
    {
        if let ExprKind::Ident(n) = &l.kind {
            return n.clone();
        }
    }
    "?".to_string()
}
