//! The dataflow's transfer functions for OpenACC directives: data constructs, executable data
//! directives and compute constructs, and the facts they make and release.

use super::*;

impl FnAnalysis<'_> {
    /// A `data` construct: its arrays are followed while its body runs.
    pub(super) fn data(
        &mut self,
        dir: &Directive,
        body: Handle<HostStmt>,
        mut flow: State,
    ) -> Flow {
        let added = self.make_present(dir, &mut flow);
        let out = self.stmt(body, Some(flow));
        out.map(|mut f| {
            for a in &added {
                if let Some(facts) = f.arrays.get(a) {
                    let origin = facts.origin.var;
                    match facts.origin.kind {
                        // Still on the device (the caller's copy).
                        DataKind::Present => {}
                        DataKind::CopyIn | DataKind::Create if facts.kernel_wrote.is_some() => {
                            release(&mut f, a, origin)
                        }
                        _ => {
                            f.arrays.remove(a);
                        }
                    }
                }
            }
            f
        })
    }

    /// The arrays of a data construct's clauses that are not followed yet: followed from here,
    /// with `copyout`/`create` ones uninitialized where the device certainly had no copy.
    pub(super) fn make_present(&mut self, dir: &Directive, flow: &mut State) -> Vec<String> {
        let zeroed = &dir.zeroed;
        let mut added = Vec::new();
        for &(kind, ref var) in &dir.data {
            let name = &var.name;
            if flow.arrays.get(name).is_some_and(|f| f.left.is_some()) {
                flow.arrays.remove(name);
            }
            if flow.arrays.contains_key(name) || !self.arrays.contains_key(name) {
                continue;
            }
            let uninit = match kind {
                DataKind::Copy | DataKind::CopyIn | DataKind::Present => false,
                DataKind::CopyOut | DataKind::Create => {
                    !zeroed.contains(name) && self.certainly_absent(name)
                }
                _ => continue,
            };
            flow.arrays.insert(
                name.clone(),
                Facts {
                    origin: Origin {
                        var: var.span,
                        kind,
                    },
                    kernel_wrote: None,
                    host_wrote: None,
                    uninit,
                    left: None,
                },
            );
            added.push(name.clone());
        }
        added
    }

    /// The device holds no copy of `name` where this function makes one (the present-or
    /// semantics of `copyout`/`create` then allocates it uninitialized): a local array never
    /// handed to a function of the program; or, in a whole program where only structured data
    /// constructs make arrays present (those of this function are followed), any array of a
    /// function never called while another function's data construct is open.
    pub(super) fn certainly_absent(&self, name: &str) -> bool {
        let Some(&(_, scope)) = self.arrays.get(name) else {
            return false;
        };
        if self.aliased.contains(name) {
            return false;
        }
        if scope == Scope::Local && !self.passed.contains(name) {
            return true;
        }
        !self.unit.dynamic && self.unit.has_main && !self.unit.called_in_data.contains(self.func)
    }

    /// `update`, `enter data`, `exit data`.
    pub(super) fn standalone(&mut self, dir: &Directive, flow: &mut State) {
        match dir.construct {
            Construct::Update => {
                for (kind, var) in &dir.data {
                    self.unfollowed(&var.name, flow);
                    let Some(f) = flow.arrays.get_mut(&var.name) else {
                        continue;
                    };
                    if f.left.is_some() {
                        flow.arrays.remove(&var.name);
                        continue;
                    }
                    match kind {
                        DataKind::Host => f.kernel_wrote = None,
                        DataKind::Device => {
                            f.host_wrote = None;
                            f.uninit = false;
                        }
                        _ => {}
                    }
                }
            }
            Construct::EnterData => {
                let conditional = dir.if_clause.is_some();
                let added = self.make_present(dir, flow);
                if conditional {
                    for a in added {
                        flow.arrays.remove(&a);
                    }
                }
            }
            Construct::ExitData => {
                let conditional = dir.if_clause.is_some();
                for &(kind, ref var) in &dir.data {
                    let name = &var.name;
                    self.unfollowed(name, flow);
                    let wrote = flow
                        .arrays
                        .get(name)
                        .is_some_and(|f| f.kernel_wrote.is_some());
                    if kind == DataKind::Delete && wrote && !conditional {
                        release(flow, name, var.span);
                    } else {
                        flow.arrays.remove(name);
                    }
                }
            }
            _ => {}
        }
    }

    /// A compute construct: its kernels read and write the device copies.
    pub(super) fn compute(&mut self, region: Option<usize>, dir: &Directive, flow: &mut State) {
        let Some(r) = region.and_then(|i| self.regions.compute.get(i)) else {
            // Not lowered (an error elsewhere): it may touch anything it names.
            flow.arrays.clear();
            return;
        };
        if dir.if_clause.is_some() {
            // It may run on the host.
            for a in r.ir.arrays.keys() {
                self.unfollowed(a, flow);
                flow.arrays.remove(a);
            }
            return;
        }
        // Arrays released earlier: this construct makes its own copies.
        flow.arrays
            .retain(|n, f| f.left.is_none() || !r.ir.arrays.contains_key(n));
        // The construct's own `copyout`/`create` of an array not yet on the device.
        let zeroed = &dir.zeroed;
        for &(kind, ref var) in &dir.data {
            let name = &var.name;
            if !matches!(kind, DataKind::CopyOut | DataKind::Create)
                || flow.arrays.contains_key(name)
                || zeroed.contains(name)
                || !self.arrays.contains_key(name)
                || !self.certainly_absent(name)
            {
                continue;
            }
            if let Some(read) = reads_first(r, name) {
                let origin = Origin {
                    var: var.span,
                    kind,
                };
                self.warn_uninit(name, read, &origin, dir.span);
            }
        }
        for (name, info) in &r.ir.arrays {
            self.unfollowed(name, flow);
            let Some(f) = flow.arrays.get_mut(name) else {
                continue;
            };
            if let Some(read) = reads_first(r, name) {
                if let Some(host) = f.host_wrote {
                    let (origin, dspan) = (f.origin.clone(), dir.span);
                    self.warn_stale_device(name, read, host, &origin, dspan);
                } else if f.uninit {
                    let (origin, dspan) = (f.origin.clone(), dir.span);
                    self.warn_uninit(name, read, &origin, dspan);
                }
            }
            let Some(f) = flow.arrays.get_mut(name) else {
                continue;
            };
            f.host_wrote = None;
            if info.written {
                f.uninit = false;
                f.kernel_wrote =
                    r.ir.accesses
                        .iter()
                        .find(|a| a.array == *name && a.writes())
                        .map_or(Some(dir.span), |a| Some(a.span));
            }
        }
    }

    // --- expressions ---------------------------------------------------------------------------
}

/// Forgets what is known about `x`: nothing is reported on it until it is made present again
/// or a kernel writes it.
pub(super) fn forget(flow: &mut State, x: &str) {
    if let Some(f) = flow.arrays.get_mut(x) {
        f.kernel_wrote = None;
        f.host_wrote = None;
        f.uninit = false;
    }
}

/// The device copy of `x` is released at `at` without a copy out: its facts stay, for the host
/// reads that follow.
pub(super) fn release(flow: &mut State, x: &str, at: Span) {
    if let Some(f) = flow.arrays.get_mut(x) {
        f.host_wrote = None;
        f.uninit = false;
        f.left = Some(at);
    }
}

/// Where a compute region reads `x` before writing it: it reads `x` and never writes it (the
/// first read), or the first statement that touches `x` reads it and certainly runs first.
pub(super) fn reads_first(r: &RegionAst, x: &str) -> Option<Span> {
    let info = r.ir.arrays.get(x)?;
    if !info.read {
        return None;
    }
    let mut accs: Vec<_> = r.ir.accesses.iter().filter(|a| a.array == x).collect();
    accs.sort_by_key(|a| (a.stmt.index(), !a.reads(), a.id.index()));
    let first = accs.first()?;
    if !info.written {
        return Some(
            accs.iter()
                .find(|a| a.reads())
                .map_or(r.directive.span, |a| a.span),
        );
    }
    let stmt = r.ir.stmts.get(first.stmt.index())?;
    // The first execution of the statement comes before any write: it runs in the first
    // iteration of every loop around it (no condition, and bounds that do not depend on
    // another loop's iterator, which may leave the loop empty at first: `for (j = 0; j < i;
    // j++) s -= L[i][j] * x[j];` before `x[i] = s;`).
    let iterators: Vec<&str> = r.ir.loops.iter().map(|l| l.var.as_str()).collect();
    let fixed = |b: &crate::ir::Bound| {
        b.affine()
            .is_some_and(|p| iterators.iter().all(|v| !p.mentions(v)))
    };
    let certain = !stmt.conditional
        && stmt.loops.iter().all(|l| {
            r.ir.loops
                .get(l.index())
                .is_some_and(|l| !l.conditional && fixed(&l.lower) && fixed(&l.upper))
        });
    (first.reads() && certain).then_some(first.span)
}

// ---------------------------------------------------------------------------------------------
// What a function declares and how its arrays are used
// ---------------------------------------------------------------------------------------------
