//! The partition engine and profit model of the seed paper (§3.2): from the `share` hints of a
//! region, decide which arrays go to shared memory, with which partitions, and with which block
//! and tile sizes, for a platform.
//!
//! Per kernel (a root loop nest of a region):
//! 1. [`nest`]: the mapping to the grid (φ: sequential loops, Q: loops on the grid), trip
//!    counts, references as affine functions;
//! 2. [`candidates`]: seeds and the candidate set (closure over dependences); in a region
//!    without hints, [`induce`] gives each nest the seeds a programmer would write;
//! 3. [`subspace`]: iteration subspaces of the seed references and their intersection into
//!    candidate partition plans `IS_m`;
//! 4. [`features`]: ReuseSize / ReuseSet / CoalesceSet / CoalesceTran, candidate partitions
//!    (rectangular hulls);
//! 5. [`search`]: the legal parameter space, the profit, the best configuration.
//!
//! The engine reads the IR and the dependence results only; its result is data (a
//! [`RegionPlan`]) that `explain` prints and the transformation stage consumes.

pub mod candidates;
pub mod features;
pub mod induce;
pub mod nest;
pub mod reject;
pub mod search;
pub mod subspace;

use crate::analysis::dependence::DepInfo;
use crate::diag::{Diag, Span};
use crate::ir::{LoopId, Region};
use crate::model::Platform;

pub use candidates::{Candidate, Seeds};
pub use features::{Adjacency, ArrayTb, ChunkShape};
pub use induce::{Induced, NoSeed};
pub use nest::{Nest, Options};
pub use reject::{Reason, Rejection};
pub use search::{Choice, Constraint};
pub use subspace::{Assign, Subspace};

/// The engine's decisions for one region.
#[derive(Clone, Debug)]
pub struct RegionPlan {
    /// Index of the region among the file's compute regions (as in kernel names).
    pub index: usize,
    pub func: String,
    pub span: Span,
    /// The seeds of the region's hints (empty without hints: then each kernel has its own
    /// induced seeds, [`KernelPlan::induced`]).
    pub seeds: Seeds,
    pub kernels: Vec<KernelPlan>,
}

impl RegionPlan {
    /// The seeds a kernel was analyzed with: its induced ones, else the region's.
    pub fn seeds_of<'a>(&'a self, kp: &'a KernelPlan) -> &'a Seeds {
        kp.induced.as_ref().map_or(&self.seeds, |i| &i.seeds)
    }
}

/// The engine's decisions for one kernel.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// `func_r{region}_k{kernel}`, the name the kernel lowering gives it.
    pub name: String,
    pub root: LoopId,
    /// `None` when the nest could not be sized (the reason is in `notes`).
    pub nest: Option<Nest>,
    /// Seeds induced from the nest's references when the region has no hints (`None` when it
    /// has a `share` pragma or a `cache` directive, or the nest could not be sized).
    pub induced: Option<Induced>,
    pub candidates: Vec<Candidate>,
    /// Arrays of the kernel outside the candidate set.
    pub not_candidates: Vec<String>,
    /// ISSet: one subspace per seed reference.
    pub subspaces: Vec<Subspace>,
    /// Candidate partition plans `IS_m` (intersections of compatible subspaces).
    pub plans: Vec<Subspace>,
    /// The adjacency verdict of every reference class (index into `nest.refs`).
    pub adjacency: Vec<Adjacency>,
    pub best: Option<Choice>,
    /// Next best configurations (best per other block shape).
    pub alternatives: Vec<Choice>,
    /// Parameter combinations evaluated (the paper's NumParaComb, over all plans).
    pub evaluated: u64,
    /// Candidate arrays left in global memory, with the reason.
    pub rejected: Vec<Rejection>,
    /// Loops of the nest that run in order in each work-item, with the reason (`explain` says
    /// which loops were made sequential and why).
    pub sequential: Vec<(String, String)>,
    /// The block the kernel should use.
    pub block: [i64; 3],
    pub notes: Vec<String>,
    /// The block order the schedule chose against channel conflicts (filled by `explain` from
    /// the schedule, on platforms with a channel model; the engine itself never sets it).
    pub block_order: Option<BlockOrderNote>,
}

/// What `explain` reports of a kernel's block order (`schedule::order`).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockOrderNote {
    /// `linear` or `diagonal`.
    pub order: &'static str,
    /// Blocks of the first wave the model looked at.
    pub wave: u64,
    /// The model's channel imbalance of the first wave in linear order, and in the diagonal
    /// order with its best skew (block `(bx, by)` takes tile `(bx, (by + skew·bx) mod gy)`) when
    /// it was modelled (the blocks walk columns).
    pub linear: f64,
    pub diagonal: Option<(f64, u32)>,
    /// The reference whose consecutive blocks camp on one channel, and their stride in bytes.
    pub column_walk: Option<(String, i64)>,
    pub reason: String,
}

impl KernelPlan {
    /// Tiles of the chosen configuration, per loop of the nest: the block extent for loops on
    /// the grid, the chunk (the `*` or expression tile) for tiled sequential loops, the whole
    /// trip count for the others. Empty when nothing is staged.
    pub fn chosen_tiles(&self) -> std::collections::BTreeMap<LoopId, i64> {
        let mut out = std::collections::BTreeMap::new();
        let (Some(nest), Some(b)) = (&self.nest, &self.best) else {
            return out;
        };
        let Some(plan) = self.plans.get(b.plan) else {
            return out;
        };
        for &l in &nest.loops {
            out.insert(l, features::chunk_tile(nest, plan, l, &b.assign));
        }
        out
    }

    /// Name of a `*` parameter class for display (`k1`, or `k1 = k2` when unified).
    pub fn param_name(&self, seeds: &Seeds, plan: &Subspace, rep: usize) -> String {
        let names: Vec<String> = (0..seeds.params.len())
            .filter(|p| plan.rep(*p) == rep)
            .filter_map(|p| seeds.params.get(p).map(|x| x.name.clone()))
            .collect();
        if names.is_empty() {
            format!("k{}", rep + 1)
        } else {
            names.join(" = ")
        }
    }
}

/// Warnings about the region's hints: a seed no kernel of the region references, a partition
/// that does not match what a thread block reads, a `*` that tiles nothing. Spans point at the
/// seed in the pragma.
pub fn diagnostics(rp: &RegionPlan) -> Vec<Diag> {
    let mut seen: Vec<(Span, String)> = Vec::new();
    let mut out = Vec::new();
    for s in &rp.seeds.seeds {
        let used = rp.kernels.iter().any(|k| {
            k.nest.as_ref().is_some_and(|n| {
                n.refs.iter().any(|r| r.array == s.array) || n.nonaffine.contains(&s.array)
            })
        });
        if !used {
            out.push(
                Diag::warning(
                    s.span,
                    format!("`{}` is not referenced in this region", s.array),
                )
                .label("this partition is ignored"),
            );
        }
    }
    for k in &rp.kernels {
        for p in &k.plans {
            for w in &p.warnings {
                if !seen.contains(w) {
                    seen.push(w.clone());
                    out.push(Diag::warning(w.0, w.1.clone()).label("in this partition"));
                }
            }
        }
    }
    out
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Runs the engine on one region.
pub fn analyze_region(
    region: &Region,
    deps: &DepInfo,
    index: usize,
    platform: &Platform,
    opts: &Options,
) -> RegionPlan {
    let seeds = Seeds::of_region(region);
    let mut kernels = Vec::new();
    for (k, &root) in region.roots.iter().enumerate() {
        let name = format!("{}_r{}_k{}", sanitize(&region.func), index, k);
        kernels.push(analyze_kernel(
            region, deps, root, name, &seeds, platform, opts,
        ));
    }
    RegionPlan {
        index,
        func: region.func.clone(),
        span: region.span,
        seeds,
        kernels,
    }
}

/// The work-group shape of a kernel whose grid has `dims` dimensions, before any staging (the
/// baseline): x is a full warp (32) so that a row of threads reads 128 contiguous bytes of floats.
pub fn default_block(dims: usize) -> [u32; 3] {
    match dims {
        0 => [1, 1, 1],
        1 => [256, 1, 1],
        2 => [32, 8, 1],
        _ => [32, 4, 2],
    }
}

fn baseline_block(nest: &Nest, p: &Platform) -> [i64; 3] {
    let b = default_block(nest.mapped.len());
    let mut out = [b[0] as i64, b[1] as i64, b[2] as i64];
    // Keep within the platform (hd7850: 256 threads per block).
    while out.iter().product::<i64>() > p.max_threads_per_block as i64 {
        let i = if out[1] > 1 {
            1
        } else if out[2] > 1 {
            2
        } else {
            0
        };
        out[i] /= 2;
    }
    out
}

/// The statements between grid loops' headers that every work-item runs (`ir::Loop::prefix`):
/// one note per grid loop whose body starts with them.
fn sunk_prefixes(region: &Region, mapped: &[LoopId]) -> Vec<String> {
    mapped
        .iter()
        .filter_map(|&l| {
            let lp = &region.loops[l];
            let names = lp.prefix.as_ref()?;
            let child = *lp.children.first()?;
            mapped.contains(&child).then(|| {
                format!(
                    "loop `{}` is on the grid under statements of loop `{}` (assigning {}): every work-item runs them",
                    region.loops[child].var,
                    lp.var,
                    names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        })
        .collect()
}

/// The loops of the nest at `root` that do not go to the grid, with the reason.
fn sequential_loops(
    region: &Region,
    deps: &DepInfo,
    root: LoopId,
    mapped: &[LoopId],
) -> Vec<(String, String)> {
    use crate::analysis::dependence::Verdict;
    use crate::ir::Marking;
    let mut out = Vec::new();
    for l in region.nest(root) {
        let lp = &region.loops[l];
        if mapped.contains(&l) || lp.var == crate::ir::lower::ONCE_VAR {
            continue;
        }
        let verdict = deps.loops.get(l.index()).map(|d| &d.verdict);
        let why = match (lp.marking, verdict) {
            (Marking::Seq, _) => "marked `seq`, or a loop without a directive in a `parallel` construct".to_string(),
            (Marking::Implicit, Some(Verdict::Carried(_))) => "a `loop` of a `parallel` construct (independent by default) that carries a dependence: run in order so that the result is the sequential program's".to_string(),
            (_, Some(Verdict::Carried(_))) => "carries a dependence".to_string(),
            (Marking::Auto, Some(Verdict::Unknown(why))) => format!("its independence cannot be proven: {}", why),
            _ => match deps.loops.get(l.index()).map(|d| &d.reductions) {
                Some(r) if !r.is_empty() => format!(
                    "a reduction of {}: run in order in each work-item",
                    r.iter()
                        .map(|(_, v)| format!("`{}`", v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => "independent, but not perfectly nested in the loops on the grid: run in each work-item".to_string(),
            },
        };
        let why = if l == root {
            format!("{}; the nest runs on one work-item", why)
        } else {
            why
        };
        out.push((lp.var.clone(), why));
    }
    out
}

fn analyze_kernel(
    region: &Region,
    deps: &DepInfo,
    root: LoopId,
    name: String,
    seeds: &Seeds,
    platform: &Platform,
    opts: &Options,
) -> KernelPlan {
    let mapped: Vec<LoopId> = crate::analysis::mapping::grid_mapping(region, deps, root)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    let mut kp = KernelPlan {
        name,
        root,
        nest: None,
        induced: None,
        candidates: Vec::new(),
        not_candidates: Vec::new(),
        subspaces: Vec::new(),
        plans: Vec::new(),
        adjacency: Vec::new(),
        best: None,
        alternatives: Vec::new(),
        evaluated: 0,
        rejected: Vec::new(),
        block: [1, 1, 1],
        notes: Vec::new(),
        block_order: None,
        sequential: sequential_loops(region, deps, root, &mapped),
    };
    kp.notes.extend(sunk_prefixes(region, &mapped));
    let nest = match nest::build(region, deps, root, opts) {
        Ok(n) => n,
        Err(e) => {
            kp.notes.push(format!("not analyzed: {}", e));
            return kp;
        }
    };
    kp.block = baseline_block(&nest, platform);
    let induced = induce::applies(region).then(|| induce::induce(region, &nest));
    let seeds = induced.as_ref().map_or(seeds, |i| &i.seeds);
    kp.candidates = candidates::select(region, &nest, seeds);
    describe_references(region, &nest, seeds, &mut kp);
    let (eligible, reported) = static_rejections(region, &nest, &mut kp);
    if nest.mapped.is_empty() {
        kp.notes.push(
            "no loop of this nest runs on the grid: there is no thread block to share memory"
                .into(),
        );
        kp.nest = Some(nest);
        kp.induced = induced;
        return kp;
    }
    kp.subspaces = subspace::split(&nest, seeds);
    kp.plans = subspace::plans(&nest, seeds, &kp.subspaces);
    let hint = |a: &str| seeds.get(a).is_some_and(|s| s.coalesce);
    let arrays = search::Arrays {
        eligible: &eligible,
        reported: &reported,
        coalesce_hint: &hint,
    };
    let best = choose(&nest, &arrays, platform, opts, &mut kp);
    // Reasons for the arrays left in global memory.
    if let Some(b) = &best {
        kp.rejected.extend(left_in_global(b, &eligible, platform));
    }
    kp.best = best.filter(|b| b.profit > 0);
    kp.nest = Some(nest);
    kp.induced = induced;
    kp
}

/// Fills in what `kp` says of the references of `nest` before the search: the arrays that are
/// not candidates, each reference's adjacency, and notes on seeds that name no referenced
/// array, triangular bounds and the symbolic sizes evaluated at representative values.
fn describe_references(region: &Region, nest: &Nest, seeds: &Seeds, kp: &mut KernelPlan) {
    let mut all: Vec<String> = nest.refs.iter().map(|r| r.array.clone()).collect();
    all.extend(nest.nonaffine.iter().cloned());
    all.sort();
    all.dedup();
    kp.not_candidates = all
        .iter()
        .filter(|a| !kp.candidates.iter().any(|c| &c.array == *a))
        .cloned()
        .collect();
    for s in &seeds.seeds {
        if !all.contains(&s.array) {
            kp.notes.push(format!(
                "seed `{}` is not referenced in this kernel",
                s.array
            ));
        }
    }
    kp.adjacency = nest
        .refs
        .iter()
        .map(|r| features::adjacency(nest, r))
        .collect();
    if !nest.triangular.is_empty() {
        kp.notes.push(format!(
            "the bounds of {} depend on outer loops: counts use the bounding box of the domain",
            nest.triangular
                .iter()
                .map(|l| format!("`{}`", nest.name(*l)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !nest.sizes_used.is_empty() {
        kp.notes.push(format!(
            "symbolic sizes evaluated at representative values: {}",
            nest.sizes_used
                .iter()
                .map(
                    |(k, v)| match region.invariants.iter().find(|i| &i.name == k) {
                        // A region invariant: say what it stands for.
                        Some(i) => format!("{} (`{}`) = {}", k, region.exprs.display(i.expr), v),
                        None => format!("{} = {}", k, v),
                    }
                )
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// Static rejections: records in `kp` the candidates that cannot be staged whatever the block
/// (a non-affine reference, a write that cannot go through a tile) and returns the others
/// (eligible for the search) and the candidates whose features are reported.
fn static_rejections(
    region: &Region,
    nest: &Nest,
    kp: &mut KernelPlan,
) -> (Vec<String>, Vec<String>) {
    let mut eligible = Vec::new();
    let reported: Vec<String> = kp
        .candidates
        .iter()
        .map(|c| c.array.clone())
        .filter(|a| nest.refs.iter().any(|r| &r.array == a))
        .collect();
    for c in &kp.candidates {
        if nest.nonaffine.contains(&c.array) {
            kp.rejected
                .push(Rejection::new(c.array.clone(), Reason::NonAffine));
        } else if let Some(why) = write_through_blocker(region, nest, &c.array) {
            kp.rejected.push(Rejection::new(c.array.clone(), why));
        } else {
            eligible.push(c.array.clone());
        }
    }
    (eligible, reported)
}

/// Searches every plan of `kp` and returns the best configuration found (profitable or not);
/// records in `kp` the configurations evaluated, the block and the alternatives of a
/// profitable one, or a note on why none is taken.
fn choose(
    nest: &Nest,
    arrays: &search::Arrays,
    platform: &Platform,
    opts: &Options,
    kp: &mut KernelPlan,
) -> Option<Choice> {
    let mut all_choices: Vec<Choice> = Vec::new();
    for (i, plan) in kp.plans.iter().enumerate() {
        let (choices, n) = search::search(nest, plan, i, arrays, platform);
        kp.evaluated += n;
        all_choices.extend(choices);
    }
    all_choices.sort_by(|a, b| {
        if a.better(b) {
            std::cmp::Ordering::Less
        } else if b.better(a) {
            std::cmp::Ordering::Greater
        } else {
            a.plan.cmp(&b.plan)
        }
    });
    let mut it = all_choices.into_iter();
    let best = it.next();
    match &best {
        Some(b) if b.profit > 0 => {
            kp.block = b.assign.tb;
            kp.alternatives = it
                .filter(|c| c.profit > 0)
                .take(opts.alternatives)
                .collect();
        }
        Some(_) => kp
            .notes
            .push("no array pays for shared memory: the baseline block is kept".into()),
        None => kp
            .notes
            .push("no configuration satisfies the platform's constraints".into()),
    }
    best
}

/// Why each array of `eligible` that the best configuration `b` leaves in global memory is
/// left there: no reuse, a partition too large for the budget or one that does not fit beside
/// the staged arrays, or nothing saved.
fn left_in_global(b: &Choice, eligible: &[String], platform: &Platform) -> Vec<Rejection> {
    let budget = platform.smem_budget();
    let mut out = Vec::new();
    for a in eligible {
        if b.profit > 0 && b.staged.contains(a) {
            continue;
        }
        let Some(f) = b.features.get(a) else { continue };
        let reason = if !(f.in_reuse_set || f.in_coalesce_set) {
            Reason::NoReuse {
                reuse: f.reuse,
                theta_r: platform.theta_r,
                distinct: f.distinct,
            }
        } else {
            let g = b.gains.get(a).copied().unwrap_or((0, 0));
            match b.shapes.get(a) {
                Some(c) if g.0 + g.1 > 0 && c.bytes > budget as i64 => Reason::TooLarge {
                    bytes: c.bytes,
                    budget,
                },
                Some(c) if g.0 + g.1 > 0 => Reason::DoesNotFit {
                    over: c
                        .bytes
                        .saturating_add(b.smem)
                        .saturating_sub(budget as i64)
                        .max(0),
                },
                _ => Reason::SavesNothing,
            }
        };
        out.push(Rejection::new(a.clone(), reason));
    }
    out
}

/// Why a written array cannot be staged (written through its tile), if it is written and cannot.
/// Every reference must name one element per thread: the same `c + t` per dimension, where the
/// `t` are the grid loops, each once with coefficient 1 (a transpose's `out[j][i]`). Then the
/// blocks' tiles are disjoint and a tile stored back after a barrier writes what the baseline
/// writes. An array of structs is written field by field (its last dimension, the field, a
/// constant of every reference) and an interleaved plain array (`x[2*i + 1]`: a grid loop with a
/// constant coefficient `c > 1` in the last dimension of every reference) residue by residue:
/// the rule holds per written field or residue, the grid loop's coefficient in an interleaved
/// last dimension being `c`; fields or residues only read are read tiles. The staging pass
/// re-checks this on the subscripts themselves.
fn write_through_blocker(region: &Region, nest: &Nest, array: &str) -> Option<Reason> {
    let refs: Vec<&nest::RefClass> = nest.refs.iter().filter(|r| r.array == array).collect();
    if !refs.iter().any(|r| r.writes) {
        return None;
    }
    // Parts written through tiles of their own, keyed by field or residue, and the grid loop's
    // coefficient in the last dimension of an interleaved array.
    let mut parts: std::collections::BTreeMap<i64, Vec<&nest::RefClass>> = Default::default();
    let mut interleave: Option<(LoopId, i64)> = None;
    if nest.records.contains(array) {
        for r in &refs {
            let key = r.dims.last().map_or(0, |d| d.base);
            parts.entry(key).or_default().push(r);
        }
    } else {
        // `c·i + k` alone in the last dimension, `c` a constant of the source (not a size given
        // a representative value: `out[cols*i + j]` is a flattened row, not interleaved).
        let constant = |r: &nest::RefClass, l: LoopId| {
            r.accesses.iter().all(|&a| {
                let var = region.loops[l].var.as_str();
                region.accesses[a]
                    .subscripts
                    .last()
                    .cloned()
                    .flatten()
                    .and_then(|p| p.split(var).and_then(|(c, _)| c.as_const()))
                    .is_some()
            })
        };
        interleave = refs.iter().find_map(|r| {
            let d = r.dims.last()?;
            let mut nonzero = d.coef.iter().filter(|(_, c)| **c != 0);
            let (l, c) = nonzero.next()?;
            (nonzero.next().is_none() && *c > 1 && nest.is_mapped(*l) && constant(r, *l))
                .then_some((*l, *c))
        });
        match interleave {
            Some((l, c)) => {
                for r in &refs {
                    let last = r.dims.last()?;
                    if last.coef.get(&l) != Some(&c) {
                        return Some(Reason::WrittenThroughDifferentElements);
                    }
                    parts.entry(last.base.rem_euclid(c)).or_default().push(r);
                }
            }
            None => {
                parts.insert(0, refs.clone());
            }
        }
    }
    for part in parts.values().filter(|p| p.iter().any(|r| r.writes)) {
        if part.iter().any(|r| r.dims != part[0].dims) {
            return Some(Reason::WrittenThroughDifferentElements);
        }
        let rank = part[0].dims.len();
        let mut seen = Vec::new();
        for (d, dim) in part[0].dims.iter().enumerate() {
            for (l, c) in &dim.coef {
                if *c == 0 {
                    continue;
                }
                let want = match interleave {
                    Some((il, ic)) if d + 1 == rank && il == *l => ic,
                    _ => 1,
                };
                if *c != want || !nest.is_mapped(*l) || seen.contains(l) {
                    return Some(Reason::WrittenNotPerThread {
                        reference: part[0].text.clone(),
                    });
                }
                seen.push(*l);
            }
        }
        if seen.len() != nest.mapped.len() {
            return Some(Reason::WrittenShared {
                reference: part[0].text.clone(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests;
