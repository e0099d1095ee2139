//! `reduction` clauses that span a loop nest: OpenACC 2.5/2.6 code puts `reduction(op:v)` on the
//! outer loop only and updates `v` in inner `loop` directives; OpenACC 2.7 asks for the clause
//! on every loop of the nest. An inner loop with a directive (not `seq`) that updates `v` only
//! with `op`, and reads it only in those updates, inherits the clause of the nearest enclosing
//! loop that declares `v` (`Loop::inherited`), so that every later stage sees the nest as if the
//! clause were written on it; the analysis warns. An inner loop that uses `v` otherwise does not
//! inherit it, and keeps its dependence.

use super::*;

impl RegionBuilder<'_> {
    /// Called when loop `id` (the innermost open loop, with a directive) has been lowered.
    pub(super) fn inherit_reductions(&mut self, id: LoopId) {
        let Some(lp) = self.region.loops.get(id.index()) else {
            return;
        };
        if lp.marking == Marking::Seq {
            return;
        }
        let depth = lp.depth;
        let mut taken: Vec<(RedOp, String, LoopId)> = Vec::new();
        // Names this loop already settles: its own clauses, those of the loops whose `collapse`
        // covers it, and its `private` ones.
        let mut settled: BTreeSet<String> = lp
            .reductions
            .iter()
            .map(|(_, v)| v.clone())
            .chain(lp.private.iter().cloned())
            .collect();
        for &a in self.open.iter().rev().filter(|&&a| a != id) {
            let Some(al) = self.region.loops.get(a.index()) else {
                continue;
            };
            let covers = (al.collapse as usize) > depth.saturating_sub(al.depth);
            for (op, v) in &al.reductions {
                if covers || settled.contains(v) {
                    settled.insert(v.clone());
                    continue;
                }
                settled.insert(v.clone());
                // A variable of that name declared inside `a` is another variable.
                let shadowed = matches!(self.locals.get(v), Some(Some(d))
                    if self.region.loop_path(*d).contains(&a));
                if !shadowed && updates_only_with(&self.region, id, v, *op) {
                    taken.push((*op, v.clone(), a));
                }
            }
            // A loop's `private` hides the outer variable from the loops inside it.
            settled.extend(al.private.iter().cloned());
        }
        let lp = &mut self.region.loops[id];
        for (op, v, from) in taken {
            lp.reductions.push((op, v.clone()));
            lp.inherited.push((v, from));
        }
    }
}

/// Whether loop `l` writes the scalar `v`, every write is a statement updating `v` with `op`
/// (not atomic), and every read of `v` in `l` belongs to one of those updates: the reads the
/// update's shape makes (checked by [`Statement::reduction`]: `s += e`, `s = e > s ? e : s`, …)
/// or, for `max`/`min`, the condition of `if (e > s) s = e;`.
fn updates_only_with(region: &Region, l: LoopId, v: &str, op: RedOp) -> bool {
    let refs: Vec<&ScalarRef> = region
        .scalar_refs
        .iter()
        .filter(|r| r.name == v && r.loops.contains(&l))
        .collect();
    let mut updates: BTreeSet<StmtId> = BTreeSet::new();
    for r in refs.iter().filter(|r| r.kind != AccessKind::Read) {
        let Some(st) = r.stmt.and_then(|s| region.stmts.get(s.index())) else {
            return false;
        };
        let own = matches!(&st.target, Target::Scalar(n) if n == v);
        if !own || st.atomic.is_some() || st.update_op() != Some(op) {
            return false;
        }
        updates.insert(st.id);
    }
    if updates.is_empty() {
        return false;
    }
    updates.iter().all(|&s| {
        let st = &region.stmts[s];
        let (inside, outside) = refs
            .iter()
            .filter(|r| r.kind == AccessKind::Read && r.stmt == Some(s))
            .fold((0, 0), |(i, o), r| {
                if st.span.contains(r.span) {
                    (i + 1, o)
                } else {
                    (i, o + 1)
                }
            });
        match st.reduction {
            // The shape was checked when the statement was lowered; only the `if` form of
            // `max`/`min` reads `v` outside the statement (once, in its condition).
            Some(RedOp::Max | RedOp::Min) if st.op.is_none() && inside == 0 => outside == 1,
            Some(_) => outside == 0,
            // `s++`, `s--`, or `s op= e` where `e` reads `s`: the target's own read only.
            None => inside == 1 && outside == 0,
        }
    }) && refs
        .iter()
        .all(|r| r.kind != AccessKind::Read || r.stmt.is_some_and(|s| updates.contains(&s)))
}
