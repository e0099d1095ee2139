//! OpenACC directives: constructs, clauses, sub-arrays, and which clauses a construct allows.

use super::*;

impl Cx<'_, '_> {
    pub(super) fn directive(&mut self, p: Pair<'_, Rule>) -> AccDirective {
        let mut dir = AccDirective {
            construct: Construct::Kernels,
            construct_span: self.whole,
            clauses: Vec::new(),
            cache: Vec::new(),
            span: self.whole,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::construct => {
                    if let Some(k) = c.into_inner().next() {
                        self.construct(k, &mut dir);
                    }
                }
                Rule::clause_list => {
                    for cl in c.into_inner() {
                        if cl.as_rule() != Rule::clause {
                            continue;
                        }
                        if let Some(inner) = cl.into_inner().next() {
                            if let Some(clause) = self.clause(inner) {
                                dir.clauses.push(clause);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.check_clauses(&mut dir);
        dir
    }

    /// Drops (with a warning) clauses that do not apply to the construct, and reports arrays
    /// named in two data clauses.
    fn check_clauses(&mut self, dir: &mut AccDirective) {
        let construct = dir.construct.clone();
        let mut kept = Vec::with_capacity(dir.clauses.len());
        for c in std::mem::take(&mut dir.clauses) {
            if clause_applies(&construct, &c.kind) {
                kept.push(c);
                continue;
            }
            let mut d = Diag::warning(
                c.span,
                format!(
                    "clause `{}` does not apply to `#pragma acc {}` and is ignored",
                    c.kind.name(),
                    construct.name()
                ),
            )
            .label("ignored");
            if matches!(c.kind, ClauseKind::Data { .. }) && construct == Construct::Loop {
                d = d.help("data clauses belong on the compute construct (`kernels`, `parallel`) or on a `data` construct");
            }
            self.diags.push(d);
        }
        dir.clauses = kept;
        self.merge_data_clauses(dir);
        let mut seen: Vec<&Ident> = Vec::new();
        for c in &dir.clauses {
            let ClauseKind::Data { vars, .. } = &c.kind else {
                continue;
            };
            for v in vars {
                match seen.iter().find(|s| s.name == v.name.name) {
                    Some(first) => self.diags.push(
                        Diag::error(
                            v.name.span,
                            format!("`{}` appears in more than one data clause", v.name.name),
                        )
                        .label("again here")
                        .with_label(first.span, "first here"),
                    ),
                    None => seen.push(&v.name),
                }
            }
        }
    }

    /// The same array in two data clauses of one construct that move data (`copyin(A)
    /// copyout(A)`, `present_or_copyin(A,B) present_or_copyout(A,B,tmp)`, `copy(t) copyout(t)`;
    /// the specification does not forbid it and other compilers accept it): the clauses are
    /// "present or …", so where the array is present nothing moves, and otherwise the union of
    /// their movements is what happens (copy-in + copy-out = `copy`). The array's clauses become
    /// one clause of that kind, with a warning naming both. Different subarrays of one array, or
    /// another clause (`present`, `deviceptr`, `update`'s), stay an error (reported after).
    fn merge_data_clauses(&mut self, dir: &mut AccDirective) {
        // (copies in, copies out) of the clauses that may be merged on this construct.
        let moves = |k: DataKind| -> Option<(bool, bool)> {
            match (&dir.construct, k) {
                (Construct::EnterData, DataKind::CopyIn) => Some((true, false)),
                (Construct::EnterData, DataKind::Create) => Some((false, false)),
                (Construct::ExitData, DataKind::CopyOut) => Some((false, true)),
                (Construct::ExitData, DataKind::Delete) => Some((false, false)),
                (Construct::EnterData | Construct::ExitData | Construct::Update, _) => None,
                (_, DataKind::Copy) => Some((true, true)),
                (_, DataKind::CopyIn) => Some((true, false)),
                (_, DataKind::CopyOut) => Some((false, true)),
                (_, DataKind::Create) => Some((false, false)),
                _ => None,
            }
        };
        let kind_of = |(i, o): (bool, bool)| match (&dir.construct, i, o) {
            (Construct::EnterData, true, _) => DataKind::CopyIn,
            (Construct::EnterData, false, _) => DataKind::Create,
            (Construct::ExitData, _, true) => DataKind::CopyOut,
            (Construct::ExitData, _, false) => DataKind::Delete,
            (_, true, true) => DataKind::Copy,
            (_, true, false) => DataKind::CopyIn,
            (_, false, true) => DataKind::CopyOut,
            (_, false, false) => DataKind::Create,
        };
        // Every (clause, kind, variable) of the data clauses, in order.
        let mut uses: Vec<(usize, DataKind, &SubArray)> = Vec::new();
        let mut zeroed: Vec<String> = Vec::new();
        for (ci, c) in dir.clauses.iter().enumerate() {
            if let ClauseKind::Data { kind, vars, zero } = &c.kind {
                uses.extend(vars.iter().map(|v| (ci, *kind, v)));
                if *zero {
                    zeroed.extend(vars.iter().map(|v| v.name.name.clone()));
                }
            }
        }
        let mergeable = |name: &str| {
            let mine: Vec<&(usize, DataKind, &SubArray)> =
                uses.iter().filter(|u| u.2.name.name == name).collect();
            mine.len() > 1
                && mine.iter().all(|u| moves(u.1).is_some())
                && mine
                    .iter()
                    .all(|u| u.2.to_string() == mine[0].2.to_string())
        };
        let names: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for u in &uses {
                if !v.contains(&u.2.name.name) && mergeable(&u.2.name.name) {
                    v.push(u.2.name.name.clone());
                }
            }
            v
        };
        if names.is_empty() {
            return;
        }
        let mut merged: Vec<Clause> = Vec::new();
        for name in &names {
            let mine: Vec<&(usize, DataKind, &SubArray)> =
                uses.iter().filter(|u| &u.2.name.name == name).collect();
            let (i, o) = mine.iter().fold((false, false), |(i, o), u| {
                let (ui, uo) = moves(u.1).unwrap_or((false, false));
                (i || ui, o || uo)
            });
            let kind = kind_of((i, o));
            let (first, second) = (mine[0], mine[1]);
            self.diags.push(
                Diag::warning(
                    second.2.span,
                    format!(
                        "`{}` appears in two data clauses, `{}` and `{}`: accepted as `{}({})`",
                        name,
                        first.1.name(),
                        second.1.name(),
                        kind.name(),
                        first.2
                    ),
                )
                .label(format!("in `{}` here", second.1.name()))
                .with_label(first.2.span, format!("in `{}` here", first.1.name()))
                .note("where the array is already present nothing moves; otherwise the union of the clauses' movements happens")
                .help(format!("write it once, as `{}({})`", kind.name(), first.2)),
            );
            merged.push(Clause {
                kind: ClauseKind::Data {
                    kind,
                    vars: vec![first.2.clone()],
                    zero: zeroed.contains(name)
                        && matches!(kind, DataKind::Create | DataKind::CopyOut),
                },
                span: dir.clauses[first.0].span,
            });
        }
        // The other clauses keep their order; the merged arrays leave them, and their single
        // clauses take the place of the first clause that named one.
        let first_at = uses
            .iter()
            .find(|u| names.contains(&u.2.name.name))
            .map_or(0, |u| u.0);
        let mut out: Vec<Clause> = Vec::new();
        for (ci, c) in std::mem::take(&mut dir.clauses).into_iter().enumerate() {
            if ci == first_at {
                out.append(&mut merged);
            }
            match c.kind {
                ClauseKind::Data { kind, vars, zero } => {
                    let vars: Vec<SubArray> = vars
                        .into_iter()
                        .filter(|v| !names.contains(&v.name.name))
                        .collect();
                    if !vars.is_empty() {
                        out.push(Clause {
                            kind: ClauseKind::Data { kind, vars, zero },
                            span: c.span,
                        });
                    }
                }
                kind => out.push(Clause { kind, span: c.span }),
            }
        }
        dir.clauses = out;
    }

    fn construct(&mut self, k: Pair<'_, Rule>, dir: &mut AccDirective) {
        let whole = self.pspan(&k);
        let rule = k.as_rule();
        dir.construct = match rule {
            Rule::c_kernels_loop => Construct::KernelsLoop,
            Rule::c_parallel_loop => Construct::ParallelLoop,
            Rule::c_serial_loop => Construct::SerialLoop,
            Rule::c_kernels => Construct::Kernels,
            Rule::c_parallel => Construct::Parallel,
            Rule::c_serial => Construct::Serial,
            Rule::c_loop => Construct::Loop,
            Rule::c_data => Construct::Data,
            Rule::c_enter_data => Construct::EnterData,
            Rule::c_exit_data => Construct::ExitData,
            Rule::c_update => Construct::Update,
            Rule::c_wait => Construct::Wait,
            Rule::c_routine => Construct::Routine,
            Rule::c_atomic => Construct::Atomic(
                k.clone()
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::atomic_kind)
                    .and_then(|p| AtomicKind::from_word(p.as_str()))
                    .unwrap_or(AtomicKind::Update),
            ),
            Rule::c_host_data => Construct::HostData,
            Rule::c_declare => Construct::Declare,
            _ => Construct::Cache,
        };
        dir.construct_span = whole;
        let inner: Vec<Pair<'_, Rule>> = k.into_inner().collect();
        if matches!(
            rule,
            Rule::c_wait | Rule::c_cache | Rule::c_routine | Rule::c_atomic
        ) {
            if let Some(kw) = inner.first() {
                dir.construct_span = self.pspan(kw);
            }
        }
        for c in inner {
            match c.as_rule() {
                Rule::wait_args => {
                    let list = self.expr_list(c.clone());
                    dir.clauses.push(Clause {
                        kind: ClauseKind::Wait(list),
                        span: self.pspan(&c),
                    });
                }
                Rule::subarray_list => dir.cache = self.subarray_list(c),
                _ => {}
            }
        }
    }

    fn expr_list(&mut self, p: Pair<'_, Rule>) -> Vec<Expr> {
        let mut out = Vec::new();
        for e in p.into_inner() {
            if e.as_rule() == Rule::expr {
                if let Some(x) = self.expr(&e) {
                    out.push(x);
                }
            }
        }
        out
    }

    fn first_expr(&mut self, p: &Pair<'_, Rule>) -> Option<Option<Expr>> {
        match p.clone().into_inner().find(|c| c.as_rule() == Rule::expr) {
            None => Some(None),
            Some(e) => self.expr(&e).map(Some),
        }
    }

    fn subarray_list(&mut self, p: Pair<'_, Rule>) -> Vec<SubArray> {
        p.into_inner()
            .filter(|c| c.as_rule() == Rule::subarray)
            .filter_map(|c| self.subarray(c))
            .collect()
    }

    /// A subarray. A struct member (`data.a[0:n]`, `p->a`) keeps its whole path as its name
    /// ([`SubArray::member_base`]); `ir::lower` names it through a variable of its own.
    fn subarray(&mut self, p: Pair<'_, Rule>) -> Option<SubArray> {
        let span = self.pspan(&p);
        let mut name = Ident {
            name: String::new(),
            span,
        };
        let mut dims = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::array_name => name = self.name(&c),
                Rule::member_path => {
                    let path: String = c
                        .as_str()
                        .chars()
                        .filter(|ch| !ch.is_whitespace())
                        .collect();
                    name = Ident {
                        name: format!("{}{path}", name.name),
                        span: Span {
                            lo: name.span.lo,
                            ..self.pspan(&c)
                        },
                    };
                }
                Rule::sub_range => {
                    let rspan = self.pspan(&c);
                    let mut start = None;
                    let mut len = None;
                    let mut colon = false;
                    let mut any = false;
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::colon => colon = true,
                            Rule::expr => {
                                any = true;
                                let e = self.expr(&x);
                                if colon {
                                    len = e;
                                } else {
                                    start = e;
                                }
                            }
                            _ => {}
                        }
                    }
                    if !colon && !any {
                        self.diags.push(
                            Diag::error(rspan, "empty subscript in a subarray")
                                .label("expected an element or a range")
                                .help(
                                    "write `a[i]` for one element or `a[start:length]` for a range",
                                ),
                        );
                    }
                    dims.push(SubRange {
                        start,
                        len,
                        single: !colon,
                        span: rspan,
                    });
                }
                _ => {}
            }
        }
        Some(SubArray { name, dims, span })
    }

    fn clause(&mut self, p: Pair<'_, Rule>) -> Option<Clause> {
        let span = self.pspan(&p);
        let kind = match p.as_rule() {
            Rule::cl_independent => ClauseKind::Independent,
            Rule::cl_seq => ClauseKind::Seq,
            Rule::cl_auto => ClauseKind::Auto,
            Rule::cl_gang => ClauseKind::Gang(self.first_expr(&p)?),
            Rule::cl_worker => ClauseKind::Worker(self.first_expr(&p)?),
            Rule::cl_vector => ClauseKind::Vector(self.first_expr(&p)?),
            Rule::cl_num_gangs => {
                let dims = self.expr_list(p);
                if dims.is_empty() {
                    return None;
                }
                ClauseKind::NumGangs(dims)
            }
            Rule::cl_num_workers => ClauseKind::NumWorkers(self.first_expr(&p)??),
            Rule::cl_vector_length => ClauseKind::VectorLength(self.first_expr(&p)??),
            Rule::cl_if => ClauseKind::If(self.first_expr(&p)??),
            Rule::cl_async => ClauseKind::Async(self.first_expr(&p)?),
            Rule::cl_collapse => {
                let force = p
                    .clone()
                    .into_inner()
                    .any(|c| c.as_rule() == Rule::collapse_force);
                let e = p.clone().into_inner().find(|c| c.as_rule() == Rule::expr)?;
                ClauseKind::Collapse {
                    n: self.collapse_count(&e)?,
                    force,
                }
            }
            Rule::cl_reduction => self.reduction_clause(p),
            Rule::cl_private => ClauseKind::Private(self.private_vars(p, "private")),
            Rule::cl_firstprivate => ClauseKind::FirstPrivate(self.private_vars(p, "firstprivate")),
            Rule::cl_data => self.data_clause(p),
            Rule::cl_wait => {
                let list = match p.into_inner().find(|c| c.as_rule() == Rule::wait_args) {
                    Some(a) => self.expr_list(a),
                    None => Vec::new(),
                };
                ClauseKind::Wait(list)
            }
            Rule::cl_tile => ClauseKind::Tile(self.tile_sizes(p)?),
            Rule::cl_vendor => {
                self.vendor_clause(&p, span);
                return None;
            }
            Rule::cl_ignored => self.ignored_clause(p, span)?,
            // cl_unknown
            _ => self.unknown_clause(p)?,
        };
        Some(Clause { kind, span })
    }

    /// `reduction(op: vars)`: the operator (`+` when missing) and the reduced variables.
    fn reduction_clause(&mut self, p: Pair<'_, Rule>) -> ClauseKind {
        let mut op = RedOp::Add;
        let mut vars = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::red_op => op = red_op(c.as_str()),
                // `reduction(+:c[0:10])`, `reduction(+:e[x])`: a part of an array. The loops
                // that update an array in a reduction run in order (`analysis::
                // array_reduction`), which reduces every element they update, the part's
                // among them.
                Rule::subarray_list => {
                    vars.extend(self.subarray_list(c).into_iter().map(|s| s.name));
                }
                _ => {}
            }
        }
        ClauseKind::Reduction { op, vars }
    }

    /// The variables of a `private` or `firstprivate` clause (`name`), with a warning for each
    /// subarray whose bounds are ignored (the whole array is private).
    fn private_vars(&mut self, p: Pair<'_, Rule>, name: &str) -> Vec<Ident> {
        let mut vars = Vec::new();
        for c in p.into_inner() {
            if c.as_rule() == Rule::subarray_list {
                for s in self.subarray_list(c) {
                    if !s.dims.is_empty() {
                        self.diags.push(
                            Diag::warning(
                                s.span,
                                format!("subarray bounds in `{name}` are ignored"),
                            )
                            .label(format!("the whole `{}` is {name}", s.name.name)),
                        );
                    }
                    vars.push(s.name);
                }
            }
        }
        vars
    }

    /// A data clause: its kind (`copy` when missing), its subarrays and whether the `zero`
    /// modifier is given, which is an error on other kinds than `create` and `copyout`.
    fn data_clause(&mut self, p: Pair<'_, Rule>) -> ClauseKind {
        let mut kind = DataKind::Copy;
        let mut vars = Vec::new();
        let mut zero = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::data_kw => kind = data_kind(c.as_str()),
                Rule::subarray_list => vars = self.subarray_list(c),
                // `readonly:` is a hint (the kernels' arrays are read as they are
                // written); `zero:` makes the device copy start zeroed.
                Rule::data_mod if c.as_str() == "zero" => zero = Some(self.pspan(&c)),
                _ => {}
            }
        }
        if let Some(sp) = zero {
            if !matches!(kind, DataKind::Create | DataKind::CopyOut) {
                self.diags.push(
                    Diag::error(
                        sp,
                        format!(
                            "the `zero` modifier applies to `create` and `copyout`, not to `{}`",
                            kind.name()
                        ),
                    )
                    .label("not allowed here"),
                );
            }
        }
        ClauseKind::Data {
            kind,
            vars,
            zero: zero.is_some(),
        }
    }

    /// The sizes of `tile(…)` (`None` for `*`, a size the implementation chooses), or `None`
    /// when one is not an expression.
    fn tile_sizes(&mut self, p: Pair<'_, Rule>) -> Option<Vec<Option<Expr>>> {
        let mut list = Vec::new();
        for t in p.into_inner() {
            if t.as_rule() != Rule::tile_size {
                continue;
            }
            let Some(x) = t.into_inner().next() else {
                continue;
            };
            if x.as_rule() == Rule::star {
                list.push(None);
                continue;
            }
            list.push(Some(self.expr(&x)?));
        }
        Some(list)
    }

    /// Warns that a vendor spelling of a clause (at `span`) is ignored.
    fn vendor_clause(&mut self, p: &Pair<'_, Rule>, span: Span) {
        let text = p.as_str().trim_end().to_string();
        let span = Span {
            hi: span.lo + text.len() as u32,
            ..span
        };
        self.diags.push(
            Diag::warning(
                span,
                format!("`{text}` is not an OpenACC clause; it is ignored"),
            )
            .label("a vendor spelling")
            .note("OpenACC writes clause arguments in parentheses: `gang`, `num_gangs(n)`"),
        );
    }

    /// A clause accshare does not act on: `finalize` and `if_present` are kept; the others are
    /// dropped, with a warning (at `span`) except for `default` and `nohost`.
    fn ignored_clause(&mut self, p: Pair<'_, Rule>, span: Span) -> Option<ClauseKind> {
        let word = p
            .into_inner()
            .next()
            .map(|w| w.as_str().to_string())
            .unwrap_or_default();
        match word.as_str() {
            "finalize" => return Some(ClauseKind::Finalize),
            "if_present" => return Some(ClauseKind::IfPresent),
            _ => {}
        }
        // `attach`/`detach`: accshare's kernels receive device copies as parameters, each found
        // by its host address when the kernel launches, so a pointer whose target is present is
        // always "attached" (docs/openacc-vv.md).
        if !matches!(word.as_str(), "default" | "nohost" | "attach" | "detach") {
            self.diags.push(
                Diag::warning(
                    span,
                    format!("clause `{word}` is not supported by accshare and is ignored"),
                )
                .label("ignored"),
            );
        }
        None
    }

    /// An unknown clause, kept by name, with a warning that suggests a known one.
    fn unknown_clause(&mut self, p: Pair<'_, Rule>) -> Option<ClauseKind> {
        let word = p.into_inner().find(|c| c.as_rule() == Rule::ident)?;
        let w = word.as_str().to_string();
        let mut d = Diag::warning(self.pspan(&word), format!("unknown clause `{w}` ignored"))
            .label("unknown clause");
        if w == "share" {
            d = d.help(
                "`share` is a directive of its own: write `#pragma acc share(…)` on the line before the compute construct",
            );
        } else if let Some(s) = did_you_mean(&w, CLAUSE_NAMES.iter().copied()) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diags.push(d);
        Some(ClauseKind::Unknown(w))
    }

    /// The `n` of `collapse(n)`: a positive integer literal or integer macro.
    fn collapse_count(&mut self, e: &Pair<'_, Rule>) -> Option<u32> {
        let sp = self.pspan(e);
        let raw = e.as_str().trim();
        let value = match self.int_macros.iter().rev().find(|(n, _)| n == raw) {
            Some((_, v)) => Some(*v),
            None => match self.expr(e) {
                Some(Expr {
                    kind: ExprKind::Int { value, .. },
                    ..
                }) => i64::try_from(value).ok(),
                Some(_) => None,
                None => return None,
            },
        };
        match value {
            Some(v) if (1..=64).contains(&v) => Some(v as u32),
            Some(v) if v > 64 => {
                self.diags.push(
                    Diag::error(sp, format!("`collapse({v})` is too deep"))
                        .label("at most 64 loops"),
                );
                None
            }
            _ => {
                self.diags.push(
                    Diag::error(sp, "`collapse` needs a positive integer constant")
                        .label("expected a positive integer"),
                );
                None
            }
        }
    }
}

/// Whether OpenACC allows a clause on a construct (unknown clauses were reported already).
fn clause_applies(c: &Construct, k: &ClauseKind) -> bool {
    use ClauseKind as K;
    use DataKind as D;
    const COMPUTE_DATA: &[DataKind] = &[
        D::Copy,
        D::CopyIn,
        D::CopyOut,
        D::Create,
        D::Present,
        D::DevicePtr,
        D::NoCreate,
    ];
    let data = |kinds: &[DataKind]| matches!(k, K::Data { kind, .. } if kinds.contains(kind));
    let loop_clause = matches!(
        k,
        K::Independent
            | K::Seq
            | K::Auto
            | K::Gang(_)
            | K::Worker(_)
            | K::Vector(_)
            | K::Collapse { .. }
            | K::Tile(_)
            | K::Private(_)
            | K::Reduction { .. }
    );
    let sync = matches!(k, K::If(_) | K::Async(_) | K::Wait(_));
    let kernels = sync
        || matches!(k, K::NumGangs(_) | K::NumWorkers(_) | K::VectorLength(_))
        || data(COMPUTE_DATA);
    let serial = sync
        || matches!(k, K::Private(_) | K::FirstPrivate(_) | K::Reduction { .. })
        || data(COMPUTE_DATA);
    let parallel = kernels || serial;
    if matches!(k, K::Unknown(_)) {
        return true;
    }
    match c {
        Construct::Kernels => kernels,
        Construct::Parallel => parallel,
        Construct::Serial => serial,
        Construct::Loop => loop_clause,
        Construct::KernelsLoop => kernels || loop_clause,
        Construct::ParallelLoop => parallel || loop_clause,
        Construct::SerialLoop => serial || loop_clause,
        Construct::Data => sync || data(COMPUTE_DATA),
        Construct::EnterData => sync || data(&[D::CopyIn, D::Create]),
        Construct::ExitData => sync || data(&[D::CopyOut, D::Delete]) || matches!(k, K::Finalize),
        Construct::Update => sync || data(&[D::Host, D::Device]) || matches!(k, K::IfPresent),
        Construct::Wait => matches!(k, K::Async(_) | K::Wait(_)),
        Construct::Routine => matches!(k, K::Gang(_) | K::Worker(_) | K::Vector(_) | K::Seq),
        Construct::HostData => matches!(k, K::If(_)),
        Construct::Declare => data(COMPUTE_DATA),
        Construct::Atomic(_) | Construct::Cache => false,
    }
}

/// The reduction operator a `red_op` spells (`||` for anything unknown).
fn red_op(s: &str) -> RedOp {
    match s {
        "+" => RedOp::Add,
        "*" => RedOp::Mul,
        "max" => RedOp::Max,
        "min" => RedOp::Min,
        "&" => RedOp::BitAnd,
        "|" => RedOp::BitOr,
        "^" => RedOp::BitXor,
        "&&" => RedOp::LogAnd,
        _ => RedOp::LogOr,
    }
}

/// The data kind a `data_kw` spells, its `pcopy`/`present_or_…` aliases included (`device` for
/// anything unknown).
fn data_kind(s: &str) -> DataKind {
    match s {
        "copy" | "pcopy" | "present_or_copy" => DataKind::Copy,
        "copyin" | "pcopyin" | "present_or_copyin" => DataKind::CopyIn,
        "copyout" | "pcopyout" | "present_or_copyout" => DataKind::CopyOut,
        "create" | "pcreate" | "present_or_create" => DataKind::Create,
        "present" => DataKind::Present,
        "deviceptr" => DataKind::DevicePtr,
        "no_create" => DataKind::NoCreate,
        "delete" => DataKind::Delete,
        "host" | "self" => DataKind::Host,
        _ => DataKind::Device,
    }
}
