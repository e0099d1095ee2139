//! Following arrays into the functions of the file: a summary per function and entry shape,
//! computed once (on demand, bottom-up over the call graph: a function is summarized only when
//! no call chain leads back to it), saying what a call does to each array it may touch.
//!
//! A summary is a run of the function's own analysis from an entry state where every *slot*
//! (a followed pointer parameter, a global array the function or its callees name, and
//! [`OTHER`], any other memory of the caller's a parameter or a global may name) holds the
//! caller's facts of one shape (whether a kernel wrote it, host code wrote it, its device copy
//! is uninitialized or released, or the device holds no copy), marked [`MARK`]. The analysis'
//! transfer functions treat each array on its own, so one run per shape serves every slot.
//! The warnings the run would give about the marked facts are the summary's *events* (reported
//! at the call, with the callee's statement in a label and a note); its exit facts (the join of
//! its end and its `return`s) replace the caller's, the marks standing for the caller's own.
//!
//! At a call, a parameter's slot is the caller's argument when it is a followed array's name or
//! `&a[0]`; anything else, an array passed twice, an array the callee does not follow, a
//! recursive or unknown callee, a callee naming a global pointer (or struct, or array of
//! pointers: it may point at any of the caller's arrays): the caller forgets as before.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;

/// The span standing for the caller's facts in a summary's run.
pub(super) const MARK: Span = Span {
    file: usize::MAX,
    lo: u32::MAX,
    hi: u32::MAX,
};

/// The slot of the caller's memory that is neither an argument nor a global the callee names.
pub(super) const OTHER: &str = "#other";

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EventKind {
    /// Host code reads the array (stale host copy; released copy when `left`).
    Host,
    /// A kernel reads it first (stale device copy).
    Device,
    /// A kernel reads it first (uninitialized device copy).
    Uninit,
}

/// A warning a call gives about one of the caller's arrays.
#[derive(Clone, Debug)]
pub(super) struct Event {
    pub(super) kind: EventKind,
    /// The callee's name for the caller's array (a parameter, a global, [`OTHER`]).
    pub(super) slot: String,
    /// The function of the read (the callee, or one it calls) and its name for the array.
    pub(super) func: String,
    pub(super) name: String,
    pub(super) read: Span,
    /// The write that made the other copy newer ([`MARK`]: the caller's).
    pub(super) write: Option<Span>,
    /// Where the device copy was released ([`MARK`]: the caller's).
    pub(super) left: Option<Span>,
}

/// The callee's read behind a warning reported at a call.
#[derive(Clone, Debug)]
pub(super) struct Via {
    pub(super) callee: String,
    pub(super) func: String,
    pub(super) name: String,
    pub(super) read: Span,
}

/// The caller's facts about one array, as a summary's entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Shape {
    present: bool,
    kernel: bool,
    host: bool,
    uninit: bool,
    left: bool,
}

impl Shape {
    fn of(f: Option<&Facts>) -> Shape {
        Shape {
            present: f.is_some(),
            kernel: f.is_some_and(|f| f.kernel_wrote.is_some()),
            host: f.is_some_and(|f| f.host_wrote.is_some()),
            uninit: f.is_some_and(|f| f.uninit),
            left: f.is_some_and(|f| f.left.is_some()),
        }
    }

    fn entry(self) -> Option<Facts> {
        let mark = |b: bool| b.then_some(MARK);
        self.present.then(|| Facts {
            origin: Origin {
                var: MARK,
                kind: DataKind::Present,
            },
            kernel_wrote: mark(self.kernel),
            host_wrote: mark(self.host),
            uninit: self.uninit,
            left: mark(self.left),
        })
    }
}

/// What a call does to the caller's arrays of one shape.
pub(super) struct Summary {
    /// The slots the function follows (its parameters by name).
    slots: BTreeSet<String>,
    events: Vec<Event>,
    /// The facts when it returns (`None`: it never does).
    exit: Flow,
}

/// The summaries made, by function and shape (`None`: the function cannot be summarized).
type Cache = BTreeMap<(String, Shape), Option<Rc<Summary>>>;

/// The summaries of a translation unit's functions, made on demand.
pub(super) struct Summaries<'a> {
    pub(super) unit: &'a Unit,
    pub(super) regions: &'a Regions,
    pub(super) sources: &'a SourceMap,
    funcs: BTreeMap<String, &'a HostFunction>,
    /// Functions defined once, on no cycle of the call graph.
    summarizable: BTreeSet<String>,
    /// The names a function and the functions it calls mention.
    mentions: BTreeMap<String, BTreeSet<String>>,
    /// Globals that may point at the caller's arrays: pointers, arrays of them, structs.
    global_ptrs: BTreeSet<String>,
    cache: RefCell<Cache>,
}

impl<'a> Summaries<'a> {
    pub(super) fn new(
        host: &'a HostUnit,
        unit: &'a Unit,
        regions: &'a Regions,
        sources: &'a SourceMap,
    ) -> Summaries<'a> {
        let mut funcs = BTreeMap::new();
        let mut twice = BTreeSet::new();
        for f in &host.functions {
            if funcs.insert(f.name.clone(), f).is_some() {
                twice.insert(f.name.clone());
            }
        }
        // What each function reaches through calls, itself included when on a cycle.
        let mut summarizable = BTreeSet::new();
        let mut mentions = BTreeMap::new();
        for name in funcs.keys() {
            let mut seen: BTreeSet<&String> = BTreeSet::new();
            let mut todo: Vec<&String> = unit.calls.get(name).into_iter().flatten().collect();
            let mut m: BTreeSet<String> = unit.mentions.get(name).cloned().unwrap_or_default();
            while let Some(g) = todo.pop() {
                if !seen.insert(g) {
                    continue;
                }
                m.extend(unit.mentions.get(g).into_iter().flatten().cloned());
                todo.extend(unit.calls.get(g).into_iter().flatten());
            }
            if !seen.contains(name) && !twice.contains(name) {
                summarizable.insert(name.clone());
            }
            mentions.insert(name.clone(), m);
        }
        // Pointers, arrays of pointers, structs (which may hold pointers), unknown types.
        let global_ptrs = unit
            .globals
            .iter()
            .filter(|(_, shape)| shape.holds_addresses)
            .map(|(n, _)| n.clone())
            .collect();
        Summaries {
            unit,
            regions,
            sources,
            funcs,
            summarizable,
            mentions,
            global_ptrs,
            cache: RefCell::new(BTreeMap::new()),
        }
    }

    /// The names `f` and the functions it calls mention.
    pub(super) fn mentions(&self, f: &str) -> impl Iterator<Item = &String> {
        self.mentions.get(f).into_iter().flatten()
    }

    fn mentioned(&self, f: &str, x: &str) -> bool {
        self.mentions.get(f).is_some_and(|m| m.contains(x))
    }

    fn summary(&self, f: &str, shape: Shape) -> Option<Rc<Summary>> {
        let key = (f.to_string(), shape);
        if let Some(s) = self.cache.borrow().get(&key) {
            return s.clone();
        }
        let s = self.make(f, shape).map(Rc::new);
        self.cache.borrow_mut().insert(key, s.clone());
        s
    }

    fn make(&self, f: &str, shape: Shape) -> Option<Summary> {
        if !self.summarizable.contains(f) {
            return None;
        }
        let def = *self.funcs.get(f)?;
        let mut a = FnAnalysis::new(def, self, true)?;
        let slots: BTreeSet<String> = a
            .arrays
            .keys()
            .filter(|n| a.params.contains(*n) || a.globals.contains(*n) || *n == OTHER)
            .cloned()
            .collect();
        let mut entry = State::default();
        if let Some(facts) = shape.entry() {
            for s in &slots {
                entry.arrays.insert(s.clone(), facts.clone());
            }
        }
        let mut flow = Some(entry);
        for s in &def.body {
            flow = a.stmt(*s, flow);
        }
        if a.gave_up {
            return None;
        }
        let exit = join(flow, a.returns.take());
        Some(Summary {
            slots,
            events: a.events.take().unwrap_or_default(),
            exit,
        })
    }
}

/// A summary's span, the caller's own where it is the mark.
fn unmark(e: Option<Span>, mine: Option<Span>) -> Option<Span> {
    match e {
        Some(s) if s == MARK => mine,
        other => other,
    }
}

/// What a call does to one of the caller's arrays.
enum Target {
    /// Nothing: a local array the call does not receive.
    Keep,
    /// The callee's slot of that name.
    Slot(String),
    /// Forget its facts (it stays on the device).
    Forget,
}

impl<'a> FnAnalysis<'a> {
    /// The followed array an argument hands over whole: `a` or `&a[0]`.
    fn whole_arg(&self, e: Handle<Expr>) -> Option<&'a str> {
        let x = &self.f.exprs;
        match &x[e] {
            Expr::Var(v) if self.arrays.contains_key(v) => Some(v),
            Expr::Unary {
                op: UnOp::AddrOf,
                arg,
            } => match &x[*arg] {
                Expr::Index { base, index }
                    if matches!(x[*index], Expr::Int { value: 0, .. }) && self.full_at(*base) =>
                {
                    match &x[*base] {
                        Expr::Var(v) => Some(v),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `b` is a followed one-dimensional array's name.
    fn full_at(&self, b: Handle<Expr>) -> bool {
        matches!(&self.f.exprs[b], Expr::Var(x) if self.full(x, 1))
    }

    /// A call of a function of the file that has summaries: applies them (`false`: no summary,
    /// the caller forgets as before).
    pub(super) fn summarized_call(
        &mut self,
        g: &str,
        span: Span,
        args: &[Handle<Expr>],
        flow: &mut State,
        cond: bool,
    ) -> bool {
        let sums = self.sums;
        if !sums.summarizable.contains(g) || sums.summary(g, Shape::of(None)).is_none() {
            return false;
        }
        // A global pointer the callee names may be any of the caller's arrays: as before.
        if sums.global_ptrs.iter().any(|p| sums.mentioned(g, p)) {
            return false;
        }
        // The arguments handed over whole, by the caller's array; arrays named otherwise in
        // an argument (`a + 1`) are the callee's business.
        let mut whole: BTreeMap<String, Vec<(usize, Span)>> = BTreeMap::new();
        let mut partial = BTreeSet::new();
        for (i, &a) in args.iter().enumerate() {
            match self.whole_arg(a) {
                Some(x) => whole
                    .entry(x.to_string())
                    .or_default()
                    .push((i, self.f.exprs.span(a))),
                None => {
                    self.mentioned(a, &mut partial);
                    self.expr(a, flow, cond);
                    partial.iter().for_each(|n| forget(flow, n));
                }
            }
        }
        let before = flow.clone();
        let names: Vec<(String, Scope)> =
            self.arrays.iter().map(|(n, d)| (n.clone(), d.1)).collect();
        for (y, scope) in names {
            let (target, at) = match whole.get(&y).map(Vec::as_slice) {
                Some(&[(i, at)])
                    if !(partial.contains(&y)
                        || self.globals.contains(&y) && sums.mentioned(g, &y)) =>
                {
                    let p = sums.funcs.get(g).and_then(|d| d.params.get(i));
                    match p.and_then(|p| p.as_ref()) {
                        Some(n) => (Target::Slot(n.name.clone()), at),
                        None => (Target::Forget, at),
                    }
                }
                Some(_) => (Target::Forget, span),
                None if scope == Scope::Local => (Target::Keep, span),
                None if self.globals.contains(&y) && sums.mentioned(g, &y) => {
                    (Target::Slot(y.clone()), span)
                }
                None if partial.contains(&y) => (Target::Forget, span),
                None => (Target::Slot(OTHER.to_string()), span),
            };
            self.apply(g, &y, target, at, flow);
        }
        if cond {
            *flow = join(Some(before), Some(flow.clone())).unwrap_or_default();
        }
        true
    }

    /// Applies `g`'s summary of slot `target` to the caller's array `y`, reporting its events
    /// at `at`.
    fn apply(&mut self, g: &str, y: &str, target: Target, at: Span, flow: &mut State) {
        let slot = match target {
            Target::Keep => return,
            Target::Slot(s) => s,
            Target::Forget => {
                forget(flow, y);
                return;
            }
        };
        let facts = flow.arrays.get(y).cloned();
        let keep = facts.as_ref().is_some_and(|f| f.left.is_none()) && slot != OTHER;
        let sum = self.sums.summary(g, Shape::of(facts.as_ref()));
        let Some(sum) = sum.filter(|s| s.slots.contains(&slot)) else {
            if keep {
                forget(flow, y);
            } else {
                flow.arrays.remove(y);
            }
            return;
        };
        let Some(f) = facts else {
            // The device held no copy: what the callee released after a kernel wrote it is
            // read stale by the caller's host code.
            let left = sum.exit.as_ref().and_then(|e| e.arrays.get(&slot));
            if let Some(e) = left.filter(|e| e.left.is_some() && e.kernel_wrote.is_some()) {
                if e.origin.var != MARK {
                    flow.arrays.insert(y.to_string(), e.clone());
                }
            }
            return;
        };
        for ev in sum.events.iter().filter(|e| e.slot == slot) {
            self.via = Some(Via {
                callee: g.to_string(),
                func: ev.func.clone(),
                name: ev.name.clone(),
                read: ev.read,
            });
            self.report(ev, y, at, &f);
            self.via = None;
        }
        match sum.exit.as_ref().and_then(|e| e.arrays.get(&slot)) {
            Some(e) if e.origin.var == MARK => {
                let new = Facts {
                    origin: f.origin.clone(),
                    kernel_wrote: unmark(e.kernel_wrote, f.kernel_wrote),
                    host_wrote: unmark(e.host_wrote, f.host_wrote),
                    uninit: e.uninit,
                    left: unmark(e.left, f.left),
                };
                flow.arrays.insert(y.to_string(), new);
            }
            _ if keep => forget(flow, y),
            _ => {
                flow.arrays.remove(y);
            }
        }
    }

    /// Reports one of a callee's events about the caller's array `y` (facts `f`) at `at`.
    fn report(&mut self, ev: &Event, y: &str, at: Span, f: &Facts) {
        match ev.kind {
            EventKind::Host => {
                let Some(k) = unmark(ev.write, f.kernel_wrote) else {
                    return;
                };
                if self.events.is_none()
                    && (self.silent > 0 || !self.reported.insert((y.to_string(), k.file, k.lo)))
                {
                    return;
                }
                match unmark(ev.left, f.left) {
                    Some(l) => self.warn_lost(y, at, k, l, &f.origin),
                    None => self.warn_stale_host(y, at, k, &f.origin),
                }
            }
            EventKind::Device => {
                if let Some(h) = unmark(ev.write, f.host_wrote) {
                    self.warn_stale_device(y, at, h, &f.origin, at);
                }
            }
            EventKind::Uninit => self.warn_uninit(y, at, &f.origin, at),
        }
    }
}

impl FnAnalysis<'_> {
    /// A directive or kernel names `x`, which a summary's run does not follow: it may be any of
    /// the caller's other memory.
    pub(super) fn unfollowed(&self, x: &str, flow: &mut State) {
        if self.events.is_some() && !self.arrays.contains_key(x) {
            forget(flow, OTHER);
        }
    }
}
