//! The warnings, as diagnostics (a function's own run) or as the events of its summary (a run
//! for its callers, `summary`).

use super::summary::{Event, EventKind, MARK};
use super::*;

impl FnAnalysis<'_> {
    /// In a summary's run: records the warning as an event of the summary when it is about the
    /// caller's array (its facts come from the call, [`MARK`]), drops it otherwise (the
    /// function's own run reports it). `true`: nothing more to do.
    fn record(
        &mut self,
        kind: EventKind,
        x: &str,
        read: Span,
        write: Option<Span>,
        left: Option<Span>,
        o: &Origin,
    ) -> bool {
        let Some(events) = self.events.as_mut() else {
            return false;
        };
        if o.var == MARK && self.silent == 0 {
            let (func, name, read) = match &self.via {
                Some(v) => (v.func.clone(), v.name.clone(), v.read),
                None => (self.func.to_string(), x.to_string(), read),
            };
            events.push(Event {
                kind,
                slot: x.to_string(),
                func,
                name,
                read,
                write,
                left,
            });
        }
        true
    }

    /// A warning found through a call: the primary label names the callee, a label points at
    /// the statement of the callee (or of a function it calls) that reads the array, and a
    /// note names its line.
    fn with_via(&self, d: Diag, x: &str) -> Diag {
        let Some(v) = &self.via else {
            return d;
        };
        let who = if v.name == x {
            format!("`{x}`")
        } else {
            format!("`{}` (`{x}` here)", v.name)
        };
        let (what, primary) = if d.message.starts_with("host code") {
            (
                format!("`{}` reads {who} on the host here", v.func),
                format!("calls `{}`, which reads the host's copy of `{x}`", v.callee),
            )
        } else {
            (
                format!("a kernel of `{}` reads {who} here", v.func),
                format!(
                    "calls `{}`, which runs a kernel that reads the device's copy of `{x}`",
                    v.callee
                ),
            )
        };
        let (line, _) = self.sources.line_col(v.read);
        d.label(primary).with_label(v.read, what).note(format!(
            "the read is in `{}`, line {line}, which this call runs",
            v.func
        ))
    }

    pub(super) fn clause_text(&self, o: &Origin) -> String {
        let t = self.sources.snippet(o.var);
        if t.is_empty() {
            "…".to_string()
        } else {
            t.to_string()
        }
    }

    pub(super) fn push(&mut self, d: Diag) {
        if self.silent == 0 {
            self.warnings.push(d);
        }
    }

    pub(super) fn warn_stale_host(&mut self, x: &str, read: Span, kernel: Span, o: &Origin) {
        if self.record(EventKind::Host, x, read, Some(kernel), None, o) {
            return;
        }
        let var = self.clause_text(o);
        let d = Diag::warning(
            read,
            format!("host code reads `{x}`, which a kernel wrote on the device, without `update self`: it reads the host's stale copy"),
        )
        .label(format!("reads the host's copy of `{x}`"))
        .with_label(kernel, format!("a kernel writes `{x}` on the device here"))
        .with_label(o.var, format!("`{x}` is on the device from this `{}` clause", o.kind.name()))
        .note("inside a data region the device copy and the host copy are different memory: a kernel's writes reach the host only at `update self`, or when the array leaves the device with a copy out")
        .help(format!("add `#pragma acc update self({var})` before this statement"));
        let d = self.with_via(d, x);
        self.push(d);
    }

    pub(super) fn warn_lost(&mut self, x: &str, read: Span, kernel: Span, left: Span, o: &Origin) {
        if self.record(EventKind::Host, x, read, Some(kernel), Some(left), o) {
            return;
        }
        let var = self.clause_text(o);
        let d = Diag::warning(
            read,
            format!("host code reads `{x}`, which a kernel wrote on the device, but the device copy was released without copying it back: it reads the host's stale copy"),
        )
        .label(format!("reads the host's copy of `{x}`"))
        .with_label(kernel, format!("a kernel writes `{x}` on the device here"))
        .with_label(left, format!("the device copy of `{x}` is released here, not copied out"))
        .note("a kernel's writes reach the host only at `update self`, or when the array leaves the device with a copy out (`copy`, `copyout`, `exit data copyout`)")
        .help(format!("add `#pragma acc update self({var})` before the device copy is released, or copy it out"));
        let d = self.with_via(d, x);
        self.push(d);
    }

    pub(super) fn warn_stale_device(
        &mut self,
        x: &str,
        read: Span,
        host: Span,
        o: &Origin,
        _dir: Span,
    ) {
        if self.record(EventKind::Device, x, read, Some(host), None, o) {
            return;
        }
        let var = self.clause_text(o);
        let d = Diag::warning(
            read,
            format!("the kernel reads `{x}` on the device after host code wrote it, without `update device`: it reads the device's stale copy"),
        )
        .label(format!("reads the device's copy of `{x}`"))
        .with_label(host, format!("host code writes `{x}` here"))
        .with_label(o.var, format!("`{x}` is on the device from this `{}` clause", o.kind.name()))
        .note("inside a data region the device copy and the host copy are different memory: host writes reach the device only at `update device`")
        .help(format!("add `#pragma acc update device({var})` after the host writes `{x}`"));
        let d = self.with_via(d, x);
        self.push(d);
    }

    pub(super) fn warn_uninit(&mut self, x: &str, read: Span, o: &Origin, _dir: Span) {
        if self.record(EventKind::Uninit, x, read, None, None, o) {
            return;
        }
        let var = self.clause_text(o);
        let (clause, fix) = match o.kind {
            DataKind::Create => ("create", "copyin"),
            _ => ("copyout", "copy"),
        };
        let d = Diag::warning(
            read,
            format!("the kernel reads `{x}` on the device before anything wrote it there: `{clause}` does not copy it in, its values are undefined"),
        )
        .label(format!("reads the device's uninitialized copy of `{x}`"))
        .with_label(o.var, format!("`{clause}` allocates `{x}` on the device without copying the host's values"))
        .help(format!("use `{fix}({var})` instead of `{clause}({var})`, or `#pragma acc update device({var})` before the compute construct"));
        let d = self.with_via(d, x);
        self.push(d);
    }
}
