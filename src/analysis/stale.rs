//! Data bugs every OpenACC compiler compiles silently: a dataflow over each function's host code
//! (its IR, [`crate::ir::host`], lowered by `ir::lower::host`) that follows, for every array a
//! `data` construct (or `enter data`) of the function holds on the device, which of its two
//! copies is newer.
//!
//! Three warnings, each at the statement and at the data clause, naming the fix:
//!
//! - **stale device copy**: host code writes an array the device already holds, and a compute
//!   construct then reads it before any `update device` (the kernel reads the old device copy);
//! - **uninitialized device copy**: a compute construct reads an array whose clause is `copyout`
//!   or `create` before anything writes it on the device (the values are undefined);
//! - **stale host copy**: host code inside the data construct reads an array a kernel wrote,
//!   with no `update self`/`update host` in between (it sees the host's old copy).
//!
//! The facts are *must* facts (true on every path), so that a warning is certain: branches
//! join by intersection, host loops iterate to a fixpoint before anything is reported, a
//! `return`/`break`/`continue` ends its path. A `for` loop is assumed to run its body at least
//! once (`for (i = 0; i < n; i++) a[i] = 0;` writes `a`: its bounds are the program's sizes); a
//! `while` loop may not. A call of a function of the file applies its summary (`summary`: what
//! the call does to the caller's arrays, in these terms). Whatever the analysis cannot see
//! through forgets the array's facts, so it never warns: another call that receives the array
//! (or, for globals and parameters, any such call of a function that is not a known C library
//! one), an array whose address escapes (`p = a`, `&a[i]`, pointer swaps), a name declared
//! twice, a compute construct with an `if` clause, `host_data`, `switch`; functions with `goto`
//! or labels are not analyzed. Arrays are whole: a subarray `update` counts as updating all of
//! it.
//!
//! Facts of a kernel come from its region's IR: it *reads first* when it reads the array and
//! never writes it, or when the first statement touching the array reads it and runs
//! unconditionally.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diag, Diags, SourceMap, Span};
use crate::ir::arena::Handle;
use crate::ir::directive::Directive;
use crate::ir::expr::Expr;
use crate::ir::host::{HostFunction, HostStmt, HostUnit, Initializer, Opaque, VarShape};
use crate::ir::lower::{RegionAst, Regions};
use crate::vocab::{BinOp, Construct, DataKind, UnOp};

/// Functions that read their arguments' values and touch nothing else: the array arguments of
/// these are reads (a `char` array printed with `%s`).
const PRINTS: &[&str] = &[
    "printf", "fprintf", "puts", "fputs", "putchar", "fputc", "putc",
];

/// `<math.h>` and other functions of values: their arguments are read, nothing else.
const PURE: &[&str] = &[
    "sqrt",
    "sqrtf",
    "cbrt",
    "cbrtf",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "pow",
    "powf",
    "fabs",
    "fabsf",
    "abs",
    "labs",
    "llabs",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fmod",
    "fmodf",
    "hypot",
    "hypotf",
    "isnan",
    "isinf",
    "isfinite",
    "copysign",
    "copysignf",
];

/// C library functions that touch no memory but what their arguments point to (an array among
/// their arguments still forgets its facts): calling them does not touch global arrays.
const LIBC: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "free",
    "memset",
    "memcpy",
    "memmove",
    "memcmp",
    "strcpy",
    "strncpy",
    "strcmp",
    "strncmp",
    "strlen",
    "rand",
    "srand",
    "time",
    "clock",
    "gettimeofday",
    "clock_gettime",
    "exit",
    "abort",
    "assert",
    "atoi",
    "atof",
    "atol",
    "strtol",
    "strtod",
    "fopen",
    "fclose",
    "fflush",
    "sprintf",
    "snprintf",
    "scanf",
    "fscanf",
    "sscanf",
    "fread",
    "fwrite",
    "getenv",
    "perror",
    "posix_memalign",
    "aligned_alloc",
];

/// Statements one function's analysis may visit (loop passes included).
const STEP_BUDGET: usize = 200_000;

/// The names in the data clauses of the OpenACC directives in `s`.
fn clause_names(f: &HostFunction, s: Handle<HostStmt>, out: &mut BTreeSet<String>) {
    match &f.stmts[s] {
        HostStmt::Block(b) => b.iter().for_each(|s| clause_names(f, *s, out)),
        HostStmt::If { accept, reject, .. } => {
            clause_names(f, *accept, out);
            if let Some(e) = reject {
                clause_names(f, *e, out);
            }
        }
        HostStmt::For { body, .. }
        | HostStmt::While { body, .. }
        | HostStmt::DoWhile { body, .. } => clause_names(f, *body, out),
        HostStmt::Acc {
            directive, body, ..
        } => {
            out.extend(directive.data_names().map(str::to_string));
            clause_names(f, *body, out);
        }
        HostStmt::Standalone(d) => out.extend(d.data_names().map(str::to_string)),
        HostStmt::Unstructured { body: Some(b), .. } => clause_names(f, *b, out),
        _ => {}
    }
}

/// Runs the analysis over every function of the host code (`ir::lower::lower_host`; its
/// compute constructs name their regions in `regions`) and pushes its warnings.
pub fn check(host: &HostUnit, regions: &Regions, sources: &SourceMap, diags: &mut Diags) {
    let mut unit = Unit::new(host);
    // `declare` and `enter data` anywhere, at file scope too.
    unit.dynamic |= host.declare_or_enter;
    let sums = Summaries::new(host, &unit, regions, sources);
    let mut seen = BTreeSet::new();
    for f in &host.functions {
        let Some(mut a) = FnAnalysis::new(f, &sums, false) else {
            continue;
        };
        let mut flow = Some(State::default());
        for s in &f.body {
            flow = a.stmt(*s, flow);
        }
        if a.gave_up {
            continue;
        }
        for d in a.warnings {
            if seen.insert(d.primary_span().map(|s| (s.file, s.lo, s.hi))) {
                diags.push(d);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the translation unit tells about every function
// ---------------------------------------------------------------------------------------------

/// Facts about the whole translation unit: which arrays may be on the device when a function
/// starts (for the uninitialized-copy warning, which needs the array to be certainly absent).
struct Unit {
    globals: BTreeMap<String, VarShape>,
    /// The unit defines `main`: every caller of its functions is in it.
    has_main: bool,
    /// `enter data`, `declare` or the runtime's data API appear somewhere: presence is not
    /// only the structured constructs'.
    dynamic: bool,
    /// Functions that may run while a data construct of another function holds arrays.
    called_in_data: BTreeSet<String>,
    /// The functions each function calls.
    calls: BTreeMap<String, BTreeSet<String>>,
    /// The names each function mentions (its expressions and data clauses).
    mentions: BTreeMap<String, BTreeSet<String>>,
}

impl Unit {
    fn new(host: &HostUnit) -> Unit {
        let globals = host
            .globals
            .iter()
            .map(|g| (g.name.clone(), g.shape))
            .collect();
        let mut has_main = false;
        let mut dynamic = false;
        let mut calls: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut mentions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut in_data: BTreeSet<String> = BTreeSet::new();
        for f in &host.functions {
            has_main |= f.name == "main";
            let mut c = Calls::new(f);
            for s in &f.body {
                c.stmt(*s, 0);
            }
            dynamic |= c.dynamic;
            in_data.extend(c.in_data);
            calls.insert(f.name.clone(), c.all);
            mentions.insert(f.name.clone(), c.idents);
        }
        // Everything called from a function called inside a data construct is too.
        let mut todo: Vec<String> = in_data.iter().cloned().collect();
        while let Some(f) = todo.pop() {
            for g in calls.get(&f).into_iter().flatten() {
                if in_data.insert(g.clone()) {
                    todo.push(g.clone());
                }
            }
        }
        Unit {
            globals,
            has_main,
            dynamic,
            called_in_data: in_data,
            calls,
            mentions,
        }
    }
}

/// Where an array came onto the device.
#[derive(Clone, Debug, PartialEq)]
struct Origin {
    /// The array in the clause (`a[0:n]`).
    var: Span,
    /// The clause kind as written (`copyout`, `create`, …; `enter data create` is `create`).
    kind: DataKind,
}

/// Must facts about one array the device holds.
#[derive(Clone, Debug, PartialEq)]
struct Facts {
    origin: Origin,
    /// A kernel wrote the device copy (here) and nothing updated the host's since.
    kernel_wrote: Option<Span>,
    /// Host code wrote the host copy (here) and nothing updated the device's since.
    host_wrote: Option<Span>,
    /// Nothing has written the device copy since it was allocated without a copy.
    uninit: bool,
    /// The device copy was released here without a copy out (`exit data delete`, the end of a
    /// `copyin`/`create` region) after a kernel wrote it: the host's copy stays stale, and the
    /// array is no longer on the device.
    left: Option<Span>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    arrays: BTreeMap<String, Facts>,
}

/// `None`: no path reaches the point.
type Flow = Option<State>;

fn join(a: Flow, b: Flow) -> Flow {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let mut out = State::default();
            for (name, fa) in a.arrays {
                let Some(fb) = b.arrays.get(&name) else {
                    continue;
                };
                if fa.origin != fb.origin || fa.left != fb.left {
                    continue;
                }
                out.arrays.insert(
                    name,
                    Facts {
                        kernel_wrote: fa.kernel_wrote.filter(|_| fb.kernel_wrote.is_some()),
                        host_wrote: fa.host_wrote.filter(|_| fb.host_wrote.is_some()),
                        uninit: fa.uninit && fb.uninit,
                        left: fa.left,
                        origin: fa.origin,
                    },
                );
            }
            Some(out)
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum LoopKind {
    /// `for (…; c; …)`: assumed to run its body at least once.
    For,
    /// `while (c)`: may not run its body.
    While,
    DoWhile,
}

/// The flows leaving a host loop early.
#[derive(Default)]
struct LoopExits {
    breaks: Flow,
    continues: Flow,
}

// ---------------------------------------------------------------------------------------------
// One function
// ---------------------------------------------------------------------------------------------

#[derive(Copy, Clone, PartialEq, Eq)]
enum Scope {
    /// Declared in the function's body (not `static`).
    Local,
    /// A parameter or a global: other names may reach it.
    Shared,
}

struct FnAnalysis<'a> {
    func: &'a str,
    /// The function's host code.
    f: &'a HostFunction,
    unit: &'a Unit,
    sums: &'a Summaries<'a>,
    /// The function's parameters.
    params: BTreeSet<String>,
    /// The followed arrays that are the file's globals (not declared in the function).
    globals: BTreeSet<String>,
    /// A summary's run: the warnings about the caller's arrays, as events (`None`: the
    /// function's own run, which reports diagnostics).
    events: Option<Vec<summary::Event>>,
    /// The flows of the `return` statements.
    returns: Flow,
    /// The warning being reported comes from a callee's summary event.
    via: Option<summary::Via>,
    /// The compute regions, which the function's compute constructs name.
    regions: &'a Regions,
    sources: &'a SourceMap,
    /// The arrays the analysis may follow, with their number of dimensions and scope.
    arrays: BTreeMap<String, (usize, Scope)>,
    /// Arrays passed to a function of the program (not the C library) somewhere in the function.
    passed: BTreeSet<String>,
    /// Pointers that may name memory some other name reaches (`float *x = y;`).
    aliased: BTreeSet<String>,
    loops: Vec<LoopExits>,
    /// Warnings are reported only outside the silent iterations of loop fixpoints.
    silent: usize,
    warnings: Vec<Diag>,
    /// Statements visited, against [`STEP_BUDGET`].
    steps: usize,
    gave_up: bool,
    /// Stale host reads reported: (array, the kernel write's place).
    reported: BTreeSet<(String, crate::diag::FileId, u32)>,
}

impl<'a> FnAnalysis<'a> {
    /// The analysis of `f`: its own run, or (`summary`) the run for its callers' summary, which
    /// also follows its pointer parameters and the global arrays it may touch.
    fn new(f: &'a HostFunction, sums: &'a Summaries<'a>, summary: bool) -> Option<FnAnalysis<'a>> {
        let (unit, regions, sources) = (sums.unit, sums.regions, sums.sources);
        let mut decls = Decls::default();
        let mut params = BTreeSet::new();
        for p in f.params.iter().flatten() {
            decls.add(&p.name, p.shape, Scope::Shared);
            params.insert(p.name.clone());
        }
        for s in &f.body {
            decls.stmt(f, *s);
        }
        if decls.gives_up {
            return None;
        }
        // Only arrays named in a data clause of the function can be followed.
        let mut named = BTreeSet::new();
        for s in &f.body {
            clause_names(f, *s, &mut named);
        }
        if summary {
            named.extend(params.iter().cloned());
            named.extend(
                sums.mentions(&f.name)
                    .filter(|n| unit.globals.contains_key(*n))
                    .cloned(),
            );
        }
        if named.is_empty() && !summary {
            return None;
        }
        let mut arrays = BTreeMap::new();
        let declared: BTreeSet<String> = decls.names.keys().cloned().collect();
        let mut all: BTreeMap<String, (VarShape, Scope, usize)> = decls.names;
        all.retain(|n, _| named.contains(n));
        for n in &named {
            if let Some(shape) = unit.globals.get(n) {
                let e = all.entry(n.clone()).or_insert((*shape, Scope::Shared, 0));
                e.2 += 1;
            }
        }
        for (name, (shape, scope, count)) in all {
            if count != 1 {
                continue;
            }
            if let Some(rank) = shape.rank {
                arrays.insert(name, (rank, scope));
            }
        }
        // Arrays whose address flows anywhere but a call's argument are followed by nobody.
        let mut uses = Uses {
            f,
            arrays: &arrays,
            escaped: BTreeSet::new(),
            passed: BTreeSet::new(),
            aliased: BTreeSet::new(),
        };
        for s in &f.body {
            uses.stmt(*s);
        }
        let (escaped, passed, aliased) = (uses.escaped, uses.passed, uses.aliased);
        arrays.retain(|n, _| !escaped.contains(n));
        if summary {
            // Any other memory of the caller's a parameter or global may name.
            arrays.insert(summary::OTHER.to_string(), (1, Scope::Shared));
        }
        let globals = arrays
            .keys()
            .filter(|n| !declared.contains(*n) && n.as_str() != summary::OTHER)
            .cloned()
            .collect();
        Some(FnAnalysis {
            func: &f.name,
            f,
            unit,
            sums,
            params,
            globals,
            events: summary.then(Vec::new),
            returns: None,
            via: None,
            regions,
            sources,
            arrays,
            passed,
            aliased,
            loops: Vec::new(),
            silent: 0,
            warnings: Vec::new(),
            reported: BTreeSet::new(),
            steps: 0,
            gave_up: false,
        })
    }

    // --- statements ----------------------------------------------------------------------------

    fn stmt(&mut self, s: Handle<HostStmt>, flow: Flow) -> Flow {
        let mut flow = flow?;
        // Nested host loops cost passes exponential in their depth: past a budget the
        // function's analysis stops, and reports nothing.
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            self.gave_up = true;
            flow.arrays.clear();
            return Some(flow);
        }
        let f = self.f;
        match &f.stmts[s] {
            HostStmt::Decl { vars, .. } => {
                for v in vars {
                    if let Some(i) = &v.init {
                        self.init(i, &mut flow);
                    }
                }
                Some(flow)
            }
            HostStmt::Expr(e) => {
                self.expr(*e, &mut flow, false);
                Some(flow)
            }
            HostStmt::Block(b) => {
                let mut fl = Some(flow);
                for s in b {
                    fl = self.stmt(*s, fl);
                }
                fl
            }
            HostStmt::If {
                cond,
                accept,
                reject,
            } => {
                self.expr(*cond, &mut flow, false);
                let t = self.stmt(*accept, Some(flow.clone()));
                let e = match reject {
                    Some(e) => self.stmt(*e, Some(flow)),
                    None => Some(flow),
                };
                join(t, e)
            }
            HostStmt::For {
                init,
                cond,
                step,
                body,
            } => {
                match init.map(|i| &f.stmts[i]) {
                    Some(HostStmt::Decl { vars, .. }) => {
                        for v in vars {
                            if let Some(i) = &v.init {
                                self.init(i, &mut flow);
                            }
                        }
                    }
                    Some(HostStmt::Expr(e)) => self.expr(*e, &mut flow, false),
                    _ => {}
                }
                self.host_loop(flow, *cond, *step, *body, LoopKind::For)
            }
            HostStmt::While { cond, body } => {
                self.host_loop(flow, Some(*cond), None, *body, LoopKind::While)
            }
            HostStmt::DoWhile { body, cond } => {
                self.host_loop(flow, Some(*cond), None, *body, LoopKind::DoWhile)
            }
            HostStmt::Return(e) => {
                if let Some(e) = e {
                    self.expr(*e, &mut flow, false);
                }
                self.returns = join(self.returns.take(), Some(flow));
                None
            }
            HostStmt::Break => {
                if let Some(l) = self.loops.last_mut() {
                    l.breaks = join(l.breaks.take(), Some(flow));
                }
                None
            }
            HostStmt::Continue => {
                if let Some(l) = self.loops.last_mut() {
                    l.continues = join(l.continues.take(), Some(flow));
                }
                None
            }
            HostStmt::Empty => Some(flow),
            HostStmt::Acc {
                directive: dir,
                region,
                body,
            } => {
                if dir.construct.is_compute() {
                    self.compute(*region, dir, &mut flow);
                    Some(flow)
                } else if dir.construct == Construct::Data {
                    self.data(dir, *body, flow)
                } else if dir.construct == Construct::HostData {
                    // Device addresses in host code: whatever it calls may write the device's
                    // copies.
                    flow.arrays.clear();
                    let out = self.stmt(*body, Some(flow));
                    out.map(|mut f| {
                        f.arrays.clear();
                        f
                    })
                } else {
                    self.stmt(*body, Some(flow))
                }
            }
            HostStmt::Standalone(dir) => {
                self.standalone(dir, &mut flow);
                Some(flow)
            }
            // `switch` (functions with `goto` or labels are not analyzed): forget everything.
            HostStmt::Unstructured { .. } => {
                flow.arrays.clear();
                Some(flow)
            }
        }
    }

    /// A host loop: its body's facts iterated to a fixpoint (silently), then with the warnings
    /// on from the entry (the first iteration) and from the back edge (the later ones).
    fn host_loop(
        &mut self,
        entry: State,
        cond: Option<Handle<Expr>>,
        step: Option<Handle<Expr>>,
        body: Handle<HostStmt>,
        kind: LoopKind,
    ) -> Flow {
        let mut head = Some(entry.clone());
        let mut converged = false;
        self.silent += 1;
        for _ in 0..64 {
            let (back, _) = self.loop_pass(head.clone(), cond, step, body, kind);
            let next = join(Some(entry.clone()), back);
            if next == head {
                converged = true;
                break;
            }
            head = next;
        }
        self.silent -= 1;
        if !converged {
            head = Some(State::default());
        }
        if !converged || self.silent > 0 {
            let (_, exit) = self.loop_pass(head, cond, step, body, kind);
            return exit;
        }
        self.silent += 1;
        let (back, exit) = self.loop_pass(head, cond, step, body, kind);
        self.silent -= 1;
        // Reported from the first iteration's flow (the loop's entry) and from the later
        // iterations' (the back edge): what the loop's entry leaves uninitialized is read so by
        // the first iteration, what an iteration leaves stale is read stale by the next one (a
        // host write at the end of a time step, read by the next step's kernel). Their join,
        // the head's flow, would know neither.
        self.loop_pass(Some(entry), cond, step, body, kind);
        self.loop_pass(back, cond, step, body, kind);
        exit
    }

    /// One pass over a loop from the flow at its head: the flow back to the head and the flow
    /// leaving the loop.
    fn loop_pass(
        &mut self,
        head: Flow,
        cond: Option<Handle<Expr>>,
        step: Option<Handle<Expr>>,
        body: Handle<HostStmt>,
        kind: LoopKind,
    ) -> (Flow, Flow) {
        let test = |a: &mut Self, f: Flow| -> Flow {
            let mut f = f?;
            if let Some(c) = cond {
                a.expr(c, &mut f, false);
            }
            Some(f)
        };
        let body_first = kind == LoopKind::DoWhile;
        let into_body = if body_first { head } else { test(self, head) };
        self.loops.push(LoopExits::default());
        let out = self.stmt(body, into_body.clone());
        let exits = self.loops.pop().unwrap_or_default();
        let mut back = join(out, exits.continues);
        if let (Some(s), Some(f)) = (step, back.as_mut()) {
            self.expr(s, f, false);
        }
        let leave = match (kind, cond.is_some()) {
            // `do … while (c)`: the test runs after the body, and leaving follows it.
            (LoopKind::DoWhile, _) => {
                back = test(self, back);
                back.clone()
            }
            (_, false) => None,
            // A counted loop runs its body at least once (its bounds are the program's sizes):
            // it leaves after an iteration.
            (LoopKind::For, true) => test(self, back.clone()),
            (LoopKind::While, true) => into_body,
        };
        (back, join(leave, exits.breaks))
    }

    fn init(&mut self, i: &Initializer, flow: &mut State) {
        match i {
            Initializer::Expr(e) => self.expr(*e, flow, false),
            Initializer::List(v) => v.iter().for_each(|i| self.init(i, flow)),
            Initializer::Designated { init, .. } => self.init(init, flow),
        }
    }

    /// The array an index chain `a[i][j]` subscripts, and its number of subscripts.
    fn indexed(&self, e: Handle<Expr>) -> Option<(&'a str, usize)> {
        let x = &self.f.exprs;
        let mut cur = e;
        let mut n = 0;
        while let Expr::Index { base, .. } = &x[cur] {
            cur = *base;
            n += 1;
        }
        match &self.f.exprs[cur] {
            Expr::Var(v) if n > 0 && self.arrays.contains_key(v) => Some((v, n)),
            _ => None,
        }
    }

    /// Evaluates the subscripts of an index chain.
    fn subscripts(&mut self, e: Handle<Expr>, flow: &mut State, cond: bool) {
        let f = self.f;
        let x = &f.exprs;
        let mut cur = e;
        while let Expr::Index { base, index } = &x[cur] {
            self.expr(*index, flow, cond);
            cur = *base;
        }
    }

    /// Host code reads or writes `e` (`cond`: only on some evaluations of the statement).
    fn expr(&mut self, e: Handle<Expr>, flow: &mut State, cond: bool) {
        let f = self.f;
        let span = f.exprs.span(e);
        match &f.exprs[e] {
            Expr::Index { .. } => {
                self.subscripts(e, flow, cond);
                match self.indexed(e) {
                    Some((x, n)) if self.full(x, n) => self.host_read(x, span, flow),
                    // A row of a 2-D array, as a value: its address.
                    Some((x, _)) => forget(flow, x),
                    None => {
                        let mut cur = e;
                        while let Expr::Index { base, .. } = &f.exprs[cur] {
                            cur = *base;
                        }
                        self.expr(cur, flow, cond);
                    }
                }
            }
            Expr::Var(x) => {
                if self.arrays.contains_key(x) {
                    forget(flow, x);
                }
            }
            Expr::Assign { op, target, value } => {
                self.expr(*value, flow, cond);
                self.store(*target, op.is_some(), flow, cond);
            }
            Expr::IncDec { arg, .. } => self.store(*arg, true, flow, cond),
            Expr::Binary {
                op: BinOp::LogAnd | BinOp::LogOr,
                left,
                right,
            } => {
                self.expr(*left, flow, cond);
                self.expr(*right, flow, true);
            }
            Expr::Binary { left, right, .. } | Expr::Comma { left, right } => {
                self.expr(*left, flow, cond);
                self.expr(*right, flow, cond);
            }
            Expr::Select {
                cond: c,
                accept,
                reject,
            } => {
                self.expr(*c, flow, cond);
                self.expr(*accept, flow, true);
                self.expr(*reject, flow, true);
            }
            Expr::Unary {
                op: UnOp::AddrOf,
                arg,
            } => {
                let mut names = BTreeSet::new();
                self.mentioned(*arg, &mut names);
                for n in names {
                    forget(flow, &n);
                }
            }
            Expr::Unary { arg, .. } | Expr::Cast { arg, .. } | Expr::CastOther { arg, .. } => {
                self.expr(*arg, flow, cond)
            }
            Expr::Sizeof { .. } => {}
            Expr::Call { function, args, .. } => self.call(function, span, args, flow, cond),
            Expr::Opaque { .. } => match f.opaque.get(&e) {
                Some(Opaque::IndirectCall { callee, args }) => {
                    self.expr(*callee, flow, cond);
                    for a in args {
                        let mut names = BTreeSet::new();
                        self.mentioned(*a, &mut names);
                        names.iter().for_each(|n| forget(flow, n));
                        self.expr(*a, flow, cond);
                    }
                    self.forget_shared(flow);
                }
                Some(Opaque::CompoundLit { inits }) => {
                    inits.iter().for_each(|i| self.init(i, flow))
                }
                None => {}
            },
            Expr::Member { base, .. } => self.expr(*base, flow, cond),
            Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_) => {}
        }
    }

    /// Host code assigns `lhs` (`compound`: reads it first).
    fn store(&mut self, lhs: Handle<Expr>, compound: bool, flow: &mut State, cond: bool) {
        let code = self.f;
        match self.indexed(lhs) {
            Some((x, n)) if self.full(x, n) => {
                self.subscripts(lhs, flow, cond);
                let span = code.exprs.span(lhs);
                if compound {
                    self.host_read(x, span, flow);
                }
                if let Some(f) = flow.arrays.get_mut(x) {
                    f.kernel_wrote = None;
                    if !cond {
                        f.host_wrote = Some(span);
                    }
                }
            }
            Some((x, _)) => forget(flow, x),
            None => match &code.exprs[lhs] {
                // A pointer assigned: it names other memory from here.
                Expr::Var(x) => forget(flow, x),
                Expr::Index { .. }
                | Expr::Unary {
                    op: UnOp::Deref, ..
                }
                | Expr::Member { .. } => {
                    // Through a pointer nobody follows: any shared array may be behind it.
                    self.expr(lhs, flow, cond);
                    for f in flow.arrays.iter_mut().filter(|(n, _)| {
                        self.arrays
                            .get(*n)
                            .is_some_and(|(_, s)| *s == Scope::Shared)
                    }) {
                        f.1.kernel_wrote = None;
                    }
                }
                _ => self.expr(lhs, flow, cond),
            },
        }
    }

    fn call(&mut self, f: &str, span: Span, args: &[Handle<Expr>], flow: &mut State, cond: bool) {
        if PRINTS.contains(&f) || PURE.contains(&f) {
            let code = self.f;
            for a in args {
                match &code.exprs[*a] {
                    Expr::Var(x) if self.arrays.contains_key(x) => {
                        self.host_read(x, code.exprs.span(*a), flow)
                    }
                    _ => self.expr(*a, flow, cond),
                }
            }
            return;
        }
        if self.summarized_call(f, span, args, flow, cond) {
            return;
        }
        for a in args {
            let mut names = BTreeSet::new();
            self.mentioned(*a, &mut names);
            self.expr(*a, flow, cond);
            names.iter().for_each(|n| forget(flow, n));
        }
        if !LIBC.contains(&f) && !f.starts_with("acc_") {
            self.forget_shared(flow);
        }
    }

    /// The followed arrays named in `e`.
    fn mentioned(&self, e: Handle<Expr>, out: &mut BTreeSet<String>) {
        self.f.walk(e, &mut |h| {
            if let Expr::Var(x) = &self.f.exprs[h] {
                if self.arrays.contains_key(x) {
                    out.insert(x.clone());
                }
            }
        });
    }

    /// A function of the program may touch every global array, and every parameter (which may
    /// be one).
    fn forget_shared(&self, flow: &mut State) {
        flow.arrays
            .retain(|n, _| self.arrays.get(n).is_some_and(|(_, s)| *s == Scope::Local));
    }

    /// `n` subscripts of `x` name one element.
    fn full(&self, x: &str, n: usize) -> bool {
        self.arrays.get(x).is_some_and(|(d, _)| *d == n)
    }

    fn host_read(&mut self, x: &str, span: Span, flow: &mut State) {
        let Some(f) = flow.arrays.get_mut(x) else {
            return;
        };
        // The fact stays (a loop's later iterations read the same stale copy); one warning per
        // array and kernel write.
        if let Some(k) = f.kernel_wrote {
            let origin = f.origin.clone();
            let left = f.left;
            if self.silent == 0 && self.reported.insert((x.to_string(), k.file, k.lo)) {
                match left {
                    Some(l) => self.warn_lost(x, span, k, l, &origin),
                    None => self.warn_stale_host(x, span, k, &origin),
                }
            }
        }
    }
}

mod calls;
mod directives;
mod summary;
mod uses;
mod warn;
use calls::*;
use directives::*;
use summary::Summaries;
use uses::*;

#[cfg(test)]
mod tests;
