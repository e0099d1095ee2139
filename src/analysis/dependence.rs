//! Data dependences of a compute region: for each loop `L`, may the iterations of `L` run in
//! parallel, the loops outside `L` being fixed?
//!
//! * Arrays (`arrays`): every pair of references to the same array inside `L`, at least one
//!   writing (a reference with itself included), except two locations of `atomic` statements
//!   (`h[k]++` under `#pragma acc atomic` does not conflict with itself), is posed as an
//!   integer system over the loop iterators and solved exactly when possible (`system`).
//!   Parameters are non-negative integers assumed large (larger than any constant of the
//!   program); a loop whose bounds make its trip count small is handled through the bounds
//!   themselves.
//! * Scalars (`scalars`): a scalar written in `L` is private when it is declared inside `L`, is
//!   listed in a `private` clause, or is written before any use in every iteration; a reduction
//!   when a `reduction` clause names it (its own, a collapsing loop's, or one it inherits from an
//!   enclosing loop: `crate::ir::Loop::inherited`) or when every write is an `s op= e`-shaped update and it
//!   is not otherwise read; otherwise it carries a dependence.
//!
//! The verdict is [`Verdict::Independent`] when proven, [`Verdict::Carried`] when a dependence is
//! proven (for large parameters), and [`Verdict::Unknown`] otherwise. [`check_claims`] reports a
//! loop the user marked `independent` that carries a dependence; [`is_parallel`] is the rule the
//! kernel mapping uses.

mod arrays;
mod scalars;
mod system;

use crate::diag::{Diag, SourceMap};
use crate::ir::{AccessId, LoopId, Marking, Region};
use crate::vocab::Construct;
use crate::vocab::RedOp;

use system::Tri;

/// The kind of a dependence from the earlier reference to the later one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// Written, then read.
    Flow,
    /// Read, then written.
    Anti,
    /// Written, then written again.
    Output,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
        }
    }
}

/// A reference taking part in a dependence.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ref {
    /// An array reference (`Region::accesses`).
    Array(AccessId),
    /// A use of a scalar (index into `Region::scalar_refs`).
    Scalar(usize),
}

/// A proven dependence carried by a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The reference in the earlier iteration.
    pub src: Ref,
    /// The reference in the later iteration.
    pub dst: Ref,
    pub kind: DepKind,
    /// Number of iterations of the loop between the two, when fixed.
    pub distance: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Proven: no dependence is carried (with [`LoopDeps::privatized`] and
    /// [`LoopDeps::reductions`] applied).
    Independent,
    /// Proven dependences (for large parameter values), most telling first.
    Carried(Vec<Witness>),
    /// Not decided, and why.
    Unknown(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoopDeps {
    pub verdict: Verdict,
    /// Scalars declared outside the loop that each iteration must have its own copy of (listed in
    /// a `private` clause, or written before any use in every iteration). Scalars declared inside
    /// the loop and iterators of inner loops are private without being listed.
    pub privatized: Vec<String>,
    /// Scalar reductions: declared in a `reduction` clause of the loop (or of a loop whose
    /// `collapse` covers it), or recognised from `s op= e`-shaped updates.
    pub reductions: Vec<(RedOp, String)>,
}

/// Per loop, indexed by [`LoopId`].
#[derive(Clone, Debug, PartialEq)]
pub struct DepInfo {
    pub loops: Vec<LoopDeps>,
}

impl std::ops::Index<LoopId> for Vec<LoopDeps> {
    type Output = LoopDeps;
    fn index(&self, l: LoopId) -> &LoopDeps {
        &self[l.index()]
    }
}

/// Most witnesses kept per loop.
const MAX_WITNESSES: usize = 16;

/// Most pairs of references per loop given to the full test (the ZIV/GCD pre-test is not
/// counted); beyond, the verdict is unknown.
const MAX_PAIR_TESTS: usize = 2000;

/// Analyzes every loop of the region.
pub fn analyze(region: &Region) -> DepInfo {
    DepInfo {
        loops: (0..region.loops.len())
            .map(|l| analyze_loop(region, LoopId(l)))
            .collect(),
    }
}

fn analyze_loop(region: &Region, l: LoopId) -> LoopDeps {
    let mut witnesses: Vec<Witness> = Vec::new();
    let mut unknown: Option<String> = None;
    let mut full_tests = 0;
    let inside: Vec<&crate::ir::Access> = region
        .accesses
        .iter()
        .filter(|a| a.loops.contains(&l))
        .collect();
    let quick: Vec<arrays::QuickDims> = inside
        .iter()
        .map(|a| arrays::quick_dims(region, l, a))
        .collect();
    'pairs: for (x, a) in inside.iter().enumerate() {
        for (y, b) in inside.iter().enumerate().skip(x) {
            if a.array != b.array
                || !(a.writes() || b.writes())
                || (region.is_atomic_access(a.id) && region.is_atomic_access(b.id))
                || arrays::quick_independent(&quick[x], &quick[y])
            {
                continue;
            }
            full_tests += 1;
            if full_tests > MAX_PAIR_TESTS {
                if unknown.is_none() {
                    unknown = Some(format!(
                        "loop `{}` has too many pairs of array references to analyze",
                        region.loops.get(l.index()).map_or("?", |x| x.var.as_str())
                    ));
                }
                break 'pairs;
            }
            let r = arrays::test_pair(region, l, a, b);
            for (d, src, dst) in [(&r.a_first, *a, *b), (&r.b_first, *b, *a)] {
                match d.tri {
                    Tri::Yes => witnesses.push(Witness {
                        src: Ref::Array(src.id),
                        dst: Ref::Array(dst.id),
                        kind: array_kind(src, dst),
                        distance: d.distance,
                    }),
                    Tri::Maybe => {
                        if unknown.is_none() {
                            unknown = r.reason.clone();
                        }
                    }
                    Tri::No => {}
                }
            }
            if witnesses.len() >= MAX_WITNESSES {
                break 'pairs;
            }
        }
    }
    let sc = scalars::analyze_loop(region, l);
    witnesses.extend(sc.witnesses);
    if unknown.is_none() {
        unknown = sc.unknown;
    }
    let verdict = if !witnesses.is_empty() {
        witnesses.sort_by_key(witness_rank);
        witnesses.dedup();
        witnesses.truncate(MAX_WITNESSES);
        Verdict::Carried(witnesses)
    } else if let Some(why) = unknown {
        Verdict::Unknown(why)
    } else {
        Verdict::Independent
    };
    LoopDeps {
        verdict,
        privatized: sc.privatized,
        reductions: sc.reductions,
    }
}

fn array_kind(src: &crate::ir::Access, dst: &crate::ir::Access) -> DepKind {
    if src.writes() && dst.reads() {
        DepKind::Flow
    } else if src.writes() {
        DepKind::Output
    } else {
        DepKind::Anti
    }
}

/// Most telling first: flow before anti before output, two distinct references before one,
/// arrays before scalars, then source order.
fn witness_rank(w: &Witness) -> (DepKind, bool, bool, Ref, Ref) {
    (
        w.kind,
        w.src == w.dst,
        matches!(w.src, Ref::Scalar(_)),
        w.src,
        w.dst,
    )
}

/// Whether loop `l` runs in parallel: a loop marked `independent` always (the claim is trusted;
/// [`check_claims`] reports it as an error when the loop provably carries a dependence), an
/// `auto` loop only when proven independent (with its private scalars and reductions), never a
/// `seq` loop or a loop of a `serial` construct.
pub fn is_parallel(deps: &DepInfo, region: &Region, l: LoopId) -> bool {
    let (Some(lp), Some(d)) = (region.loops.get(l.index()), deps.loops.get(l.index())) else {
        return false;
    };
    if matches!(region.construct, Construct::Serial | Construct::SerialLoop) {
        return false;
    }
    if array_reduction(region, l).is_some() {
        return false;
    }
    match lp.marking {
        Marking::Seq => false,
        Marking::Independent => true,
        // OpenACC's default independence is trusted unless a dependence is proven: such a loop
        // runs sequentially in each work-item ([`check_claims`] warns).
        Marking::Implicit => !matches!(d.verdict, Verdict::Carried(_)),
        Marking::Auto => d.verdict == Verdict::Independent,
    }
}

/// An array named in a `reduction` clause (OpenACC 2.7) of loop `l` or of a loop around it,
/// whose elements `l` updates: the kernels reduce scalars only, so such a loop runs in order
/// (the elements' updates would race otherwise). The array's name, if any.
pub fn array_reduction(region: &Region, l: LoopId) -> Option<&str> {
    let mut at = Some(l);
    while let Some(a) = at {
        let lp = region.loops.get(a.index())?;
        for (_, name) in &lp.reductions {
            if writes_array_in(region, name, l) {
                return Some(name);
            }
        }
        at = lp.parent;
    }
    None
}

/// Whether loop `l` (or a loop inside it) writes elements of the array `name`.
pub(crate) fn writes_array_in(region: &Region, name: &str, l: LoopId) -> bool {
    region
        .accesses
        .iter()
        .any(|acc| acc.array == name && acc.writes() && acc.loops.contains(&l))
}

/// Checks the user's claims against the analysis: a loop marked `independent` that carries a
/// dependence is an error naming both references; `reduction` clauses that do not match the
/// code are warnings. An `independent` loop whose verdict is unknown is trusted.
pub fn check_claims(region: &Region, deps: &DepInfo, sources: Option<&SourceMap>) -> Vec<Diag> {
    let mut out = Vec::new();
    for lp in &region.loops {
        if matches!(lp.marking, Marking::Independent | Marking::Implicit) {
            if let Some(LoopDeps {
                verdict: Verdict::Carried(ws),
                ..
            }) = deps.loops.get(lp.id.index())
            {
                if let Some(w) = ws.first() {
                    out.push(claim_error(region, lp.id, w, sources));
                }
            }
        }
        out.extend(scalars::clause_warnings(region, lp.id));
    }
    out
}

/// How a reference reads in a message: its source text when short, else the IR form.
fn ref_text(region: &Region, r: Ref, sources: Option<&SourceMap>) -> String {
    let (span, fallback) = match r {
        Ref::Array(a) => match region.accesses.get(a.index()) {
            Some(acc) => (acc.span, region.fmt_access(a)),
            None => return "?".into(),
        },
        Ref::Scalar(s) => match region.scalar_refs.get(s) {
            Some(sr) => return sr.name.clone(),
            None => return "?".into(),
        },
    };
    match sources.map(|s| s.snippet(span)) {
        Some(t) if !t.is_empty() && t.len() <= 48 && !t.contains('\n') => t.to_string(),
        _ => fallback,
    }
}

fn ref_span(region: &Region, r: Ref) -> Option<crate::diag::Span> {
    match r {
        Ref::Array(a) => region.accesses.get(a.index()).map(|x| x.span),
        Ref::Scalar(s) => region.scalar_refs.get(s).map(|x| x.span),
    }
}

/// The element a reference touches is the same in every iteration of `l`: its subscripts do
/// not mention the iterators of `l` or of loops inside it.
fn invariant_in(region: &Region, l: LoopId, r: Ref) -> bool {
    match r {
        Ref::Array(a) => {
            let Some(acc) = region.accesses.get(a.index()) else {
                return false;
            };
            let Some(p) = acc.loops.iter().position(|&x| x == l) else {
                return false;
            };
            let inner: Vec<&str> = acc.loops[p..]
                .iter()
                .filter_map(|&x| region.loops.get(x.index()).map(|lp| lp.var.as_str()))
                .collect();
            acc.subscripts.iter().all(|s| {
                s.as_ref()
                    .is_some_and(|s| inner.iter().all(|v| !s.mentions(v)))
            })
        }
        Ref::Scalar(_) => true,
    }
}

/// The diagnostic of a loop that is independent by a claim (an error) or by OpenACC's default
/// in a `parallel` construct (a warning: the loop runs sequentially in each work-item).
fn claim_error(region: &Region, l: LoopId, w: &Witness, sources: Option<&SourceMap>) -> Diag {
    let lp = &region.loops[l];
    let var = &lp.var;
    if lp.marking == Marking::Implicit {
        return implicit_warning(region, l, w, sources);
    }
    // A `serial` construct runs on one gang, one worker and one vector lane: its loops run in
    // order whatever they claim, so the program computes what its sequential version does.
    if matches!(region.construct, Construct::Serial | Construct::SerialLoop) {
        let d = Diag::warning(
            lp.header_span,
            format!(
                "loop `{}` is marked independent but carries a dependence; in a `serial` construct it runs in order",
                var
            ),
        )
        .label(format!("iterations of `{}` are not independent", var));
        return explain_witness(d, region, l, w, sources).note(
            "a `serial` construct runs on one gang, one worker and one vector lane: the claim \
             does not change what the program computes here, but it would in a `parallel` one",
        );
    }
    let d = Diag::error(
        lp.header_span,
        format!(
            "loop `{}` is marked independent but carries a dependence",
            var
        ),
    )
    .label(format!("iterations of `{}` are not independent", var));
    explain_witness(d, region, l, w, sources)
}

/// The warning for a `loop` of a `parallel` construct, independent by default, that carries a
/// proven dependence: it runs sequentially (in each work-item, or on one work-item when it is
/// the outermost loop of its nest), so the program computes what its sequential version does.
fn implicit_warning(region: &Region, l: LoopId, w: &Witness, sources: Option<&SourceMap>) -> Diag {
    let lp = &region.loops[l];
    let var = &lp.var;
    let outermost = lp.parent.is_none();
    let d = Diag::warning(
        lp.header_span,
        if outermost {
            format!(
                "loop `{}` carries a dependence: this loop nest runs on one work-item",
                var
            )
        } else {
            format!(
                "loop `{}` carries a dependence: it runs sequentially in each work-item",
                var
            )
        },
    )
    .label(format!("iterations of `{}` are not independent", var));
    let d = explain_witness(d, region, l, w, sources);
    let d = d.note(
        "a `loop` directive in a `parallel` construct is independent by default; accshare \
         proved it is not, and runs it in order so that the program computes what its \
         sequential version computes",
    );
    if outermost {
        d.help(format!(
            "mark `{}` `seq` to say so; to use the device, make the parallel loop the outer one, \
             or run `{}` on the host around the region",
            var, var
        ))
    } else {
        d.help(format!(
            "mark `{}` `seq` to say so and silence this warning",
            var
        ))
    }
}

/// Labels and notes naming the two references of witness `w` of loop `l`.
fn explain_witness(
    mut d: Diag,
    region: &Region,
    l: LoopId,
    w: &Witness,
    sources: Option<&SourceMap>,
) -> Diag {
    let lp = &region.loops[l];
    let var = &lp.var;
    let implicit = lp.marking == Marking::Implicit;
    let src_text = ref_text(region, w.src, sources);
    let every = invariant_in(region, l, w.src) && invariant_in(region, l, w.dst);
    let is_scalar = matches!(w.src, Ref::Scalar(_));
    let (src_span, dst_span) = (ref_span(region, w.src), ref_span(region, w.dst));
    let same = w.src == w.dst || src_span == dst_span;
    if same {
        if let Some(span) = src_span {
            let what = match w.kind {
                DepKind::Output => "written",
                _ => "read and written",
            };
            let msg = if every && !is_scalar {
                format!("`{}` is {} in every iteration of `{}`", src_text, what, var)
            } else {
                format!(
                    "`{}` is {} by different iterations of `{}`",
                    src_text, what, var
                )
            };
            d = d.with_label(span, msg);
        }
    } else {
        let (src_verb, dst_verb) = match w.kind {
            DepKind::Flow => ("written", "read"),
            DepKind::Anti => ("read", "overwritten"),
            DepKind::Output => ("written", "written again"),
        };
        let when_src = if every && !is_scalar {
            "every iteration"
        } else {
            "an iteration"
        };
        let when_dst = if every && !is_scalar {
            format!("in every iteration of `{}`", var)
        } else {
            match w.distance {
                Some(1) => "in the next iteration".to_string(),
                Some(n) => format!("{} iterations later", n),
                None => "in a later iteration".to_string(),
            }
        };
        if let Some(s) = src_span {
            d = d.with_label(
                s,
                format!(
                    "`{}` is {} in {} of `{}` ...",
                    src_text, src_verb, when_src, var
                ),
            );
        }
        if let Some(s) = dst_span {
            d = d.with_label(s, format!("... and {} {}", dst_verb, when_dst));
        }
    }
    let parallel = matches!(
        region.construct,
        Construct::Parallel | Construct::ParallelLoop
    );
    if let Some(note) = enclosing_clause_note(region, l, w.src) {
        d = d.note(note);
    }
    if implicit {
        // The caller says what happens instead.
        if is_scalar {
            d = d.note(scalar_note(w, &src_text));
        }
        return d;
    }
    if parallel {
        d = d.note("the loops of a `parallel` construct are independent unless marked `seq`");
    }
    if is_scalar {
        d = d.note(scalar_note(w, &src_text)).help(format!(
            "{} to run `{}` sequentially in each thread, or declare `{}` inside the loop if each iteration computes its own value",
            if parallel { "mark the loop `seq`" } else { "remove `independent`" },
            var,
            src_text
        ));
    } else {
        d = d.help(if parallel {
            format!("mark the loop `seq` to run `{}` sequentially in each thread", var)
        } else {
            format!(
                "remove `independent` to run `{}` sequentially in each thread, or declare `reduction(+:…)` for a scalar accumulator",
                var
            )
        });
    }
    d
}

/// When the scalar of a witness of loop `l` is named by a `reduction` clause of an enclosing
/// loop: why `l` does not inherit the clause (see `crate::ir::Loop::inherited`).
fn enclosing_clause_note(region: &Region, l: LoopId, r: Ref) -> Option<String> {
    let Ref::Scalar(i) = r else {
        return None;
    };
    let name = &region.scalar_refs.get(i)?.name;
    let path = region.loop_path(l);
    let (op, outer) = path.iter().rev().skip(1).find_map(|&a| {
        let al = region.loops.get(a.index())?;
        al.reductions
            .iter()
            .find(|(_, v)| v == name)
            .map(|(op, _)| (*op, al))
    })?;
    Some(format!(
        "`{}` is in `reduction({}:{})` of the enclosing loop `{}`, which spans the loops inside \
         it only where they update `{}` with `{}` and read it nowhere else",
        name,
        op.name(),
        name,
        outer.var,
        name,
        op.name()
    ))
}

/// Why a scalar's dependence matters, for the notes of claim diagnostics.
fn scalar_note(w: &Witness, src_text: &str) -> String {
    match (w.kind, w.distance) {
        (DepKind::Output, _) => format!(
            "the value of `{}` after the loop depends on the order of the iterations",
            src_text
        ),
        (_, Some(_)) => format!(
            "each iteration reads the value of `{}` that the previous iteration wrote",
            src_text
        ),
        _ => format!(
            "an iteration may read the value of `{}` that another iteration wrote",
            src_text
        ),
    }
}

#[cfg(test)]
mod tests;
