//! Scalars written inside a loop: private, reduction, or a carried dependence.

use std::collections::BTreeSet;

use super::{DepKind, Ref, Witness};
use crate::diag::Diag;
use crate::ir::{AccessKind, Bound, LoopId, Region, ScalarRef, Statement, StmtId, Target};
use crate::vocab::RedOp;

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct ScalarResult {
    pub privatized: Vec<String>,
    pub reductions: Vec<(RedOp, String)>,
    pub witnesses: Vec<Witness>,
    pub unknown: Option<String>,
}

/// Loop `l` and the enclosing loops whose `collapse` covers it (their clauses apply to `l`).
pub(super) fn covering_loops(region: &Region, l: LoopId) -> Vec<LoopId> {
    let mut out = vec![l];
    let Some(lp) = region.loops.get(l.index()) else {
        return out;
    };
    let mut cur = lp.parent;
    let mut guard = 0;
    while let Some(p) = cur {
        guard += 1;
        let Some(pl) = region.loops.get(p.index()) else {
            break;
        };
        if guard > region.loops.len() {
            break;
        }
        if (pl.collapse as usize) > lp.depth.saturating_sub(pl.depth) {
            out.push(p);
        }
        cur = pl.parent;
    }
    out
}

/// Indices into `scalar_refs` of the uses of `name` inside loop `l`, in program order.
fn refs_in(region: &Region, l: LoopId, name: &str) -> Vec<usize> {
    region
        .scalar_refs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.name == name && r.loops.contains(&l))
        .map(|(i, _)| i)
        .collect()
}

/// The reduction a statement performs on its scalar target, judged from its shape.
pub(super) fn stmt_reduction(st: &Statement) -> Option<RedOp> {
    st.update_op()
}

/// The statement a use belongs to, when the use is part of it (a read in an `if` condition is
/// attributed to the next statement but lies outside its span).
fn stmt_of<'r>(region: &'r Region, r: &ScalarRef) -> Option<&'r Statement> {
    let st = region.stmts.get(r.stmt?.index())?;
    st.span.contains(r.span).then_some(st)
}

fn writes_scalar(st: &Statement, name: &str) -> bool {
    matches!(&st.target, Target::Scalar(n) if n == name)
}

/// `Some(op)` when every write of `name` in `refs` is an `op` update and the only reads are the
/// ones of those updates (one each).
fn reduction_op(region: &Region, name: &str, refs: &[usize]) -> Option<RedOp> {
    let mut op: Option<RedOp> = None;
    let mut update_stmts: BTreeSet<StmtId> = BTreeSet::new();
    for &i in refs {
        let r = region.scalar_refs.get(i)?;
        // Reads, and the write an `if`/`else` makes as a whole (its branches' updates are
        // judged themselves).
        if r.kind == AccessKind::Read || (r.kind == AccessKind::Write && r.stmt.is_none()) {
            continue;
        }
        let st = region.stmts.get(r.stmt?.index())?;
        if !writes_scalar(st, name) {
            return None;
        }
        let o = stmt_reduction(st)?;
        if op.is_some_and(|p| p != o) {
            return None;
        }
        op = Some(o);
        update_stmts.insert(st.id);
    }
    for &s in &update_stmts {
        let reads = refs
            .iter()
            .filter_map(|&i| region.scalar_refs.get(i))
            .filter(|r| r.kind == AccessKind::Read && r.stmt == Some(s))
            .filter(|r| stmt_of(region, r).is_some())
            .count();
        if reads != 1 {
            return None;
        }
    }
    for &i in refs {
        let r = region.scalar_refs.get(i)?;
        if r.kind == AccessKind::Read
            && !stmt_of(region, r).is_some_and(|st| update_stmts.contains(&st.id))
        {
            return None;
        }
    }
    op
}

/// Whether every use among `refs` (uses of one scalar inside a loop, in program order) that
/// reads the scalar comes after a plain write whose scopes it shares (see
/// [`crate::ir::ScalarRef::scopes`]): that write runs before it in the same iteration, so no
/// read sees a value from another iteration or from before the loop. Conservative: writes in
/// both branches of an `if`, or in an inner loop before a use after it, do not count.
fn dominated_uses(region: &Region, refs: &[usize]) -> bool {
    let rs: Vec<&ScalarRef> = refs
        .iter()
        .filter_map(|&i| region.scalar_refs.get(i))
        .collect();
    rs.len() == refs.len()
        && rs.iter().enumerate().all(|(k, r)| {
            r.kind == AccessKind::Write
                || rs[..k].iter().any(|w| {
                    w.kind == AccessKind::Write
                        && r.scopes.starts_with(&w.scopes)
                        // Not the read of the same statement's right-hand side.
                        && !(w.stmt.is_some() && w.stmt == r.stmt)
                })
        })
}

/// A loop `b` (`l` or a loop inside it) whose bounds mention `name` and whose body assigns
/// `name`: the trip count of `b` depends on values computed in its own iterations. (A bound
/// read before the loop starts is an ordinary use: see `dominated_uses`.)
fn in_bound(region: &Region, l: LoopId, name: &str) -> Option<LoopId> {
    region
        .loops
        .iter()
        .filter(|lp| region.loop_path(lp.id).contains(&l))
        .filter(|lp| {
            region
                .scalar_refs
                .iter()
                .any(|r| r.name == name && r.kind != AccessKind::Read && r.loops.contains(&lp.id))
        })
        .find(|lp| {
            [&lp.lower, &lp.upper].iter().any(|b| match b {
                Bound::NonAffine(e) => region.exprs.mentions(*e, name),
                Bound::Affine(p) => p.mentions(name),
            })
        })
        .map(|lp| lp.id)
}

/// Classifies every scalar written inside loop `l`.
pub(super) fn analyze_loop(region: &Region, l: LoopId) -> ScalarResult {
    let mut out = ScalarResult::default();
    let covering = covering_loops(region, l);
    let written: BTreeSet<&str> = region
        .scalar_refs
        .iter()
        .filter(|r| r.kind != AccessKind::Read && r.loops.contains(&l))
        .map(|r| r.name.as_str())
        .collect();
    for name in written {
        let info = region.scalars.get(name);
        // Declared in the body of `l` or of a loop inside it: a fresh variable per iteration.
        if let Some(Some(Some(d))) = info.map(|s| s.local) {
            if region.loop_path(d).contains(&l) {
                continue;
            }
        }
        let refs = refs_in(region, l, name);
        let declared_red = covering.iter().find_map(|&c| {
            region.loops.get(c.index()).and_then(|lp| {
                lp.reductions
                    .iter()
                    .find(|(_, v)| v == name)
                    .map(|(op, _)| *op)
            })
        });
        if let Some(op) = declared_red {
            out.reductions.push((op, name.to_string()));
            continue;
        }
        // `private(name)` on `l` (or a loop collapsed with it), or on a loop inside `l` that
        // encloses every use.
        let lists_private = |c: LoopId| {
            region
                .loops
                .get(c.index())
                .is_some_and(|lp| lp.private.iter().any(|v| v == name))
        };
        let inner_private = region.loops.iter().any(|lp| {
            lists_private(lp.id)
                && region.loop_path(lp.id).contains(&l)
                && refs.iter().all(|&i| {
                    region
                        .scalar_refs
                        .get(i)
                        .is_some_and(|r| r.loops.contains(&lp.id))
                })
        });
        if covering.iter().any(|&c| lists_private(c)) || inner_private {
            out.privatized.push(name.to_string());
            continue;
        }
        if let Some(b) = in_bound(region, l, name) {
            if out.unknown.is_none() {
                out.unknown = Some(format!(
                    "`{}` is assigned in the loop and used in the bounds of loop `{}`",
                    name,
                    region.loops.get(b.index()).map_or("?", |x| x.var.as_str())
                ));
            }
            continue;
        }
        // Every use is preceded, in the same iteration of `l`, by a write that dominates it:
        // each iteration computes its own value (a read in an inner loop's bound included).
        if dominated_uses(region, &refs) {
            out.privatized.push(name.to_string());
            continue;
        }
        if let Some(op) = reduction_op(region, name, &refs) {
            out.reductions.push((op, name.to_string()));
            continue;
        }
        // Only used by `atomic` statements: shared by the iterations, no dependence.
        if refs.iter().all(|&i| region.is_atomic_ref(i)) {
            continue;
        }
        out.witnesses.push(carried_witness(region, l, &refs));
    }
    out
}

/// A witness for a scalar shared by the iterations of `l` that is neither private nor a
/// reduction.
fn carried_witness(region: &Region, l: LoopId, refs: &[usize]) -> Witness {
    let get = |i: usize| region.scalar_refs.get(i);
    let writes: Vec<usize> = refs
        .iter()
        .copied()
        .filter(|&i| get(i).is_some_and(|r| r.kind != AccessKind::Read))
        .collect();
    let reads: Vec<usize> = refs
        .iter()
        .copied()
        .filter(|&i| get(i).is_some_and(|r| r.kind == AccessKind::Read))
        .collect();
    let w = writes.first().copied().unwrap_or(0);
    match reads.first() {
        Some(&rd) => {
            // A read before any write in the body reads the previous iteration's value.
            let upward = refs.first() == Some(&rd);
            let every = get(w).is_some_and(|r| !r.conditional && r.loops.last() == Some(&l));
            Witness {
                src: Ref::Scalar(w),
                dst: Ref::Scalar(rd),
                kind: DepKind::Flow,
                distance: (upward && every).then_some(1),
            }
        }
        None => Witness {
            src: Ref::Scalar(w),
            dst: Ref::Scalar(writes.last().copied().unwrap_or(w)),
            kind: DepKind::Output,
            distance: None,
        },
    }
}

/// One warning per enclosing loop whose `reduction` clauses loop `l` inherits
/// ([`crate::ir::Loop::inherited`]): OpenACC 2.7 wants them written on `l` too.
fn inherited_warnings(region: &Region, l: LoopId) -> Vec<Diag> {
    let mut out = Vec::new();
    let Some(lp) = region.loops.get(l.index()) else {
        return out;
    };
    let mut froms: Vec<LoopId> = Vec::new();
    for (_, f) in &lp.inherited {
        if !froms.contains(f) {
            froms.push(*f);
        }
    }
    for from in froms {
        let Some(outer) = region.loops.get(from.index()) else {
            continue;
        };
        let vars: Vec<(RedOp, &str)> = lp
            .inherited
            .iter()
            .filter(|(_, f)| *f == from)
            .filter_map(|(v, _)| {
                lp.reductions
                    .iter()
                    .find(|(_, n)| n == v)
                    .map(|(op, n)| (*op, n.as_str()))
            })
            .collect();
        let clauses: Vec<String> = vars
            .iter()
            .map(|(op, v)| format!("reduction({}:{})", op.name(), v))
            .collect();
        let names: Vec<String> = vars.iter().map(|(_, v)| format!("`{}`", v)).collect();
        let (msg, label) = match (names.as_slice(), clauses.as_slice()) {
            ([name], [clause]) => (
                format!(
                    "loop `{}` updates {}, a reduction of the enclosing loop `{}`, but has no `{}` clause",
                    lp.var, name, outer.var, clause
                ),
                format!("{} is reduced over this loop too", name),
            ),
            _ => (
                format!(
                    "loop `{}` updates {}, reductions of the enclosing loop `{}`, but has no `reduction` clause for them",
                    lp.var,
                    list(&names),
                    outer.var
                ),
                format!("{} are reduced over this loop too", list(&names)),
            ),
        };
        out.push(
            Diag::warning(lp.header_span, msg)
                .label(label)
                .with_label(
                    outer.header_span,
                    format!("`{}` declared on this loop", clauses.join(" ")),
                )
                .note(format!(
                    "OpenACC 2.7 requires the `reduction` clause on every loop of the nest that \
                     updates the variable; accepted as a reduction over the nest, as OpenACC 2.6 \
                     compilers do: over all iterations of `{}` and the loops inside it",
                    outer.var
                ))
                .help(format!(
                    "add `{}` to the `loop` directive of `{}`",
                    clauses.join(" "),
                    lp.var
                )),
        );
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {}", init.join(", "), last),
    }
}

/// Warnings about the `reduction` clauses of loop `l` that do not match the loop's code.
pub(super) fn clause_warnings(region: &Region, l: LoopId) -> Vec<Diag> {
    let mut out = Vec::new();
    let Some(lp) = region.loops.get(l.index()) else {
        return out;
    };
    out.extend(inherited_warnings(region, l));
    for (op, name) in &lp.reductions {
        if lp.inherited.iter().any(|(v, _)| v == name) {
            continue;
        }
        let clause = format!("reduction({}:{})", op.name(), name);
        // OpenACC 2.7 allows arrays (and their elements) in `reduction` clauses; the kernels
        // reduce scalars only, so the loop runs in order (`array_reduction`): slow, but what
        // the sequential program computes, where running it in parallel would race.
        if super::writes_array_in(region, name, l) {
            out.push(
                Diag::warning(
                    lp.header_span,
                    format!(
                        "`{}` in `{}` is an array: loop `{}` runs in order",
                        name, clause, lp.var
                    ),
                )
                .label(format!("loop `{}` updates elements of `{}`", lp.var, name))
                .note("OpenACC 2.7 reduces every element of an array named in a `reduction` clause; accshare reduces scalars only, and runs the loops that update the array sequentially (in each work-item, or on one work-item for the outermost loop)")
                .help(format!("to run it in parallel, reduce each element into a scalar of its own (`reduction({}:{}0, {}1, …)`), or update the elements with `#pragma acc atomic update`", op.name(), name, name)),
            );
            continue;
        }
        let refs = refs_in(region, l, name);
        let rs: Vec<&ScalarRef> = refs
            .iter()
            .filter_map(|&i| region.scalar_refs.get(i))
            .collect();
        let minmax = matches!(op, RedOp::Max | RedOp::Min);
        if !rs.iter().any(|r| r.kind != AccessKind::Read) {
            out.push(
                Diag::warning(
                    lp.header_span,
                    format!(
                        "`{}` is declared `{}` but loop `{}` never assigns it",
                        name, clause, lp.var
                    ),
                )
                .label(format!("`{}` is not updated in this loop", name)),
            );
            continue;
        }
        // Every write must be an update with the declared operator (for max/min, a plain
        // assignment such as `if (a[i] > m) m = a[i];` is accepted).
        let bad_write = rs.iter().find(|r| {
            if r.kind == AccessKind::Read {
                return false;
            }
            let Some(st) = r.stmt.and_then(|s| region.stmts.get(s.index())) else {
                return true;
            };
            match stmt_reduction(st) {
                Some(o) => o != *op,
                None => !(minmax && st.op.is_none()),
            }
        });
        if let Some(r) = bad_write {
            out.push(
                Diag::warning(
                    r.span,
                    format!(
                        "`{}` is declared `{}` but is assigned differently here",
                        name, clause
                    ),
                )
                .label(format!(
                    "this is not a `{}` update of `{}`",
                    op.name(),
                    name
                ))
                .note(format!(
                    "the partial values of the threads are combined with `{}`",
                    op.name()
                )),
            );
            continue;
        }
        let update_stmts: BTreeSet<StmtId> = rs
            .iter()
            .filter(|r| r.kind != AccessKind::Read)
            .filter_map(|r| r.stmt)
            .collect();
        let bad_read = rs.iter().find(|r| {
            if r.kind != AccessKind::Read {
                return false;
            }
            match stmt_of(region, r) {
                Some(st) => !update_stmts.contains(&st.id),
                // A condition (`if (a[i] > m)`): expected for max/min only.
                None => !minmax,
            }
        });
        if let Some(r) = bad_read {
            out.push(
                Diag::warning(
                    r.span,
                    format!(
                        "`{}` is a reduction variable of loop `{}` but is also read in it",
                        name, lp.var
                    ),
                )
                .label("this reads the partial value of one thread, not the final value")
                .help(format!(
                    "use `{}` only in its updates inside the loop",
                    name
                )),
            );
        }
    }
    out
}
