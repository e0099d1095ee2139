//! Schedules measured on a device (`accshare tune`), and how a compilation uses them.
//!
//! The tuner (`runtime::tune`) stores, per device, the fastest verified [`Variant`] of each
//! kernel it timed. A kernel is recognised by its [`fingerprint`] (its loop nest as written,
//! the arrays it touches with their types and extents, accshare's version) and its
//! [`size_class`] (the grid's iteration count, to the nearest power of two); a compilation for
//! that device schedules each kernel it recognises as measured ([`apply`]), and keeps the
//! model's choice for the others. A cached variant is rebuilt by the same functions as every
//! other schedule (`variant::apply`), so a stale entry can only be refused (with a warning),
//! never produce a kernel the model could not have produced.

use serde::{Deserialize, Serialize};

use super::variant::{self, Variant};
use super::{KernelSchedule, RegionSchedule, Schedule};
use crate::analysis::dependence::DepInfo;
use crate::diag::{Diag, Diags, SourceMap};
use crate::ir::lower::RegionAst;
use crate::ir::LoopId;

/// What the tuner measured for one kernel on one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedKernel {
    /// [`fingerprint`] of the kernel.
    pub fingerprint: String,
    /// [`size_class`] of the run it was timed on.
    pub size_class: Option<u32>,
    /// The kernel's name and file when it was tuned (for people reading the cache).
    pub name: String,
    pub file: String,
    /// The fastest verified variant, and its median kernel time (seconds per program run).
    pub variant: Variant,
    pub seconds: f64,
    /// The model's choice, and its time in the same run (`None` if it failed to run).
    pub model: Variant,
    pub model_seconds: Option<f64>,
}

/// The measured schedules of one device.
#[derive(Clone, Debug, Default)]
pub struct Tuned {
    /// The device, as the cache names it (`platform / device`).
    pub device: String,
    pub kernels: Vec<TunedKernel>,
}

impl Tuned {
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// The entry for a kernel: its size class if measured, else the nearest measured class
    /// (the largest when the compilation does not know its size).
    pub fn lookup(&self, fingerprint: &str, class: Option<u32>) -> Option<&TunedKernel> {
        self.kernels
            .iter()
            .filter(|k| k.fingerprint == fingerprint)
            .min_by_key(|k| match (class, k.size_class) {
                (Some(c), Some(t)) => (c.abs_diff(t), u32::MAX - t),
                (None, Some(t)) => (0, u32::MAX - t),
                (_, None) => (u32::MAX, u32::MAX),
            })
    }
}

/// Where a kernel's preferred schedule comes from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Origin {
    /// The profit model.
    #[default]
    Model,
    /// A measurement on `device` (`accshare tune`).
    Tuned {
        device: String,
        entry: Box<TunedKernel>,
    },
}

/// A stable identity of kernel `root` of region `r`: its loop nest as written (whitespace
/// aside), the region's `share` pragma and `cache` directives (they change the engine's
/// configurations, which a cache entry names by index), the arrays the region declares with
/// their element types and extents, and accshare's version (a new compiler generates other
/// code: tune again). FNV-1a, 64 bits, in hex.
pub fn fingerprint(r: &RegionAst, root: LoopId, sources: &SourceMap) -> String {
    use std::hash::Hasher;
    let ir = &r.ir;
    let mut h = fnv::FnvHasher::default();
    h.write(env!("CARGO_PKG_VERSION").as_bytes());
    h.write(&[0]);
    let text = sources.snippet(ir.loops[root].span);
    let mut words = |text: &str| {
        for w in text.split_whitespace() {
            h.write(w.as_bytes());
            h.write(b" ");
        }
        h.write(&[0]);
    };
    words(text);
    if let Some(sp) = &ir.share {
        words(sources.snippet(sp.span));
    }
    for c in &ir.cache {
        words(sources.snippet(c.span));
    }
    for a in ir.arrays.values() {
        h.write(&[0]);
        h.write(a.name.as_bytes());
        h.write(a.elem.c_name().as_bytes());
        for e in &a.extents {
            let e = e.as_ref().map(|p| p.to_string()).unwrap_or_default();
            h.write(e.as_bytes());
            h.write(b",");
        }
    }
    format!("{:016x}", h.finish())
}

/// The size class of a schedule: log2 of its grid's iteration count, rounded, when every grid
/// range is a constant (`None` for sizes known only when the program runs).
pub fn size_class(s: &Schedule) -> Option<u32> {
    let mut n: f64 = 1.0;
    for g in &s.grid {
        let lo = g.min.as_const()?;
        let hi = g.max.as_const()?;
        n *= (hi - lo + 1).max(1) as f64;
    }
    Some(class_of(n))
}

/// The size class of `iterations` grid points.
pub fn class_of(iterations: f64) -> u32 {
    iterations.max(1.0).log2().round() as u32
}

/// Schedules the kernels of region `r` that `tuned` knows as measured: the measured variant
/// first, the baseline as its fallback. An entry that no longer applies is reported (a
/// warning) and the model's choice kept.
pub fn apply(
    r: &RegionAst,
    deps: &DepInfo,
    rs: &mut RegionSchedule,
    tuned: &Tuned,
    sources: &SourceMap,
    diags: &mut Diags,
) {
    for ks in rs.kernels.iter_mut() {
        let fp = fingerprint(r, ks.root, sources);
        let Some(entry) = tuned.lookup(&fp, size_class(ks.baseline())) else {
            continue;
        };
        let plan = rs
            .plan
            .as_ref()
            .and_then(|p| p.kernels.iter().find(|k| k.root == ks.root));
        match variant::apply(r, deps, ks, plan, &entry.variant) {
            Ok(s) => set_tuned(ks, s, &tuned.device, entry),
            Err(e) => diags.push(
                Diag::warning(
                    r.ir.loops[ks.root].header_span,
                    format!(
                        "the schedule `accshare tune` measured for this loop nest on {} does not apply: {}",
                        tuned.device, e
                    ),
                )
                .note("the model's schedule is used; run `accshare tune` again"),
            ),
        }
    }
}

fn set_tuned(ks: &mut KernelSchedule, s: Schedule, device: &str, entry: &TunedKernel) {
    let base = ks.baseline().clone();
    ks.candidates = if s.staged().is_some() {
        vec![s, base]
    } else {
        vec![s]
    };
    ks.origin = Origin::Tuned {
        device: device.to_string(),
        entry: Box::new(entry.clone()),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diags, SourceMap};
    use crate::front::preprocess::PpOptions;
    use crate::ir::lower::find_regions;

    fn fingerprint_of(src: &str) -> String {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let main = sources.add("t.c", "t.c".into(), src.to_string());
        let parsed =
            crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
        let rs = find_regions(&parsed.tu, &sources, &mut diags);
        assert!(!diags.has_errors());
        let r = &rs.compute[0];
        fingerprint(r, r.ir.roots[0], &sources)
    }

    /// A `share` pragma changes the engine's configurations that a cache entry names by index:
    /// the same nest with and without one (or with another) are different kernels to the cache;
    /// layout does not matter.
    #[test]
    fn the_share_pragma_is_part_of_the_fingerprint() {
        let nest = "#pragma acc kernels loop independent copyin(A, B) copy(C)
for (int i = 0; i < 64; i++)
  #pragma acc loop independent
  for (int j = 0; j < 64; j++) {
    float s = 0;
    for (int k = 0; k < 64; k++)
      s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
}
";
        let head = "void g(float C[64][64], float A[64][64], float B[64][64])\n{\n";
        let plain = fingerprint_of(&format!("{head}{nest}"));
        let spaced = fingerprint_of(&format!("{head}\n\n{}", nest.replace("  ", "     ")));
        let shared = fingerprint_of(&format!(
            "{head}#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)\n{nest}"
        ));
        let other = fingerprint_of(&format!("{head}#pragma acc share(B[*][TB_X])\n{nest}"));
        assert_eq!(plain, spaced);
        assert_ne!(plain, shared);
        assert_ne!(shared, other);
    }
}
