//! `accshare explain`: what the partition engine decided and why, per region and kernel, as
//! text or JSON (schema: `docs/explain-json.md`). The JSON is written by hand (no serde).

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::dependence::{self, DepInfo};
use crate::diag::{Diags, SourceMap};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::{find_regions, Regions};
use crate::ir::Poly;
use crate::model::Platform;
use crate::partition::candidates::SeedDim;
use crate::partition::subspace::{TExpr, Tile};
use crate::partition::{self, KernelPlan, Nest, Options, RegionPlan, Seeds, Subspace};

pub use crate::model::list_platforms;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Loads, parses and explains a file. `None` when the front end reported errors (in `diags`).
pub fn run(
    file: &Path,
    pp: &PpOptions,
    platform: &Platform,
    format: Format,
    opts: &Options,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<String> {
    let parsed = crate::front::load(file, pp, sources, diags)?;
    if diags.has_errors() {
        return None;
    }
    let regions = find_regions(&parsed.tu, sources, diags);
    let deps: Vec<DepInfo> = regions
        .compute
        .iter()
        .map(|r| dependence::analyze(&r.ir))
        .collect();
    Some(explain_with(
        &regions, &deps, platform, sources, format, opts,
    ))
}

/// The report for every compute region, with the default options (symbolic sizes at 4096).
pub fn explain(
    regions: &Regions,
    deps: &[DepInfo],
    platform: &Platform,
    sources: &SourceMap,
    format: Format,
) -> String {
    explain_with(
        regions,
        deps,
        platform,
        sources,
        format,
        &Options::default(),
    )
}

/// Runs the engine on every region: the plans the transformation stage consumes.
pub fn plan_all(
    regions: &Regions,
    deps: &[DepInfo],
    platform: &Platform,
    opts: &Options,
) -> Vec<RegionPlan> {
    regions
        .compute
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let fallback;
            let d = match deps.get(i) {
                Some(d) => d,
                None => {
                    fallback = dependence::analyze(&r.ir);
                    &fallback
                }
            };
            let mut rp = partition::analyze_region(&r.ir, d, i, platform, opts);
            add_staging(r, d, &mut rp);
            rp
        })
        .collect()
}

/// What `--opt share` does with each kernel's plan: a note naming the arrays staged in the
/// generated code, and the staging-time reasons of the others in `rejected`.
fn add_staging(r: &crate::ir::lower::RegionAst, deps: &DepInfo, rp: &mut RegionPlan) {
    for kp in &mut rp.kernels {
        if kp.best.is_none() {
            continue;
        }
        let Some(spec) = crate::kernel::lower::staging_of(r, deps, kp) else {
            continue;
        };
        if spec.arrays.is_empty() {
            kp.notes
                .push("--opt share: nothing staged in the generated code".to_string());
        } else {
            let names: Vec<String> = spec
                .arrays
                .iter()
                .map(|a| {
                    let dims: Vec<String> = a.dims.iter().map(|d| d.extent.to_string()).collect();
                    let how = match (a.written, a.load) {
                        (false, _) => "",
                        (true, false) => " (written through: stored back coalesced)",
                        (true, true) => " (written through: loaded first, stored back coalesced)",
                    };
                    let last = a.dims.last().map_or(a.row_len, |d| d.extent);
                    let pad = if a.row_len != last {
                        format!(" (rows padded to {} against bank conflicts)", a.row_len)
                    } else {
                        String::new()
                    };
                    format!("{}[{}]{}{}", a.name, dims.join("]["), pad, how)
                })
                .collect();
            let mut strip = spec
                .strip
                .as_ref()
                .map(|s| format!(", loop `{}` strip-mined by {}", s.var, s.size))
                .unwrap_or_default();
            if spec.ilp > 1 {
                strip.push_str(&format!(
                    ", {} rows per work-item: launched as [{}, {}, {}]",
                    spec.ilp,
                    spec.block[0],
                    spec.block[1] / spec.ilp,
                    spec.block[2]
                ));
            }
            kp.notes.push(format!(
                "--opt share stages {} in the generated code ({} B of shared memory, block [{}, {}, {}]{})",
                names.join(", "),
                spec.smem_bytes(),
                spec.block[0],
                spec.block[1],
                spec.block[2],
                strip
            ));
        }
        for (a, why) in spec.rejected {
            kp.rejected
                .push((a, format!("not staged by --opt share: {}", why)));
        }
    }
}

pub fn explain_with(
    regions: &Regions,
    deps: &[DepInfo],
    platform: &Platform,
    sources: &SourceMap,
    format: Format,
    opts: &Options,
) -> String {
    let plans = plan_all(regions, deps, platform, opts);
    report(&plans, sources, platform, format)
}

/// The report of plans already computed.
pub fn report(
    plans: &[RegionPlan],
    sources: &SourceMap,
    platform: &Platform,
    format: Format,
) -> String {
    let locs: Vec<String> = plans.iter().map(|p| location(sources, p)).collect();
    match format {
        Format::Text => text(plans, &locs, platform),
        Format::Json => json(plans, &locs, platform),
    }
}

fn location(sources: &SourceMap, p: &RegionPlan) -> String {
    if p.span.file < sources.len() {
        sources.location(p.span)
    } else {
        "?".into()
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

/// Name of a `*` parameter as the array `array` sees it (its own pragma parameter if it has one
/// in the class, else the class's first name).
fn k_name(seeds: &Seeds, plan: &Subspace, array: Option<&str>, rep: usize) -> String {
    if let Some(a) = array {
        if let Some(q) = (0..seeds.params.len())
            .find(|q| plan.rep(*q) == rep && seeds.params.get(*q).is_some_and(|p| p.array == a))
        {
            return seeds.params[q].name.clone();
        }
    }
    (0..seeds.params.len())
        .find(|q| plan.rep(*q) == rep)
        .and_then(|q| seeds.params.get(q))
        .map(|p| p.name.clone())
        .unwrap_or_else(|| format!("k{}", rep + 1))
}

fn texpr_poly(e: &TExpr, name: &dyn Fn(usize) -> String) -> Option<Poly> {
    Some(match e {
        TExpr::Const(v) => Poly::constant(*v),
        TExpr::Tb(d) => Poly::var(d.name()),
        TExpr::K(p) => Poly::var(&name(*p)),
        TExpr::Bin(op, a, b) => {
            let (a, b) = (texpr_poly(a, name)?, texpr_poly(b, name)?);
            match op {
                partition::subspace::PartOpT::Add => a.add(&b)?,
                partition::subspace::PartOpT::Sub => a.sub(&b)?,
                partition::subspace::PartOpT::Mul => a.mul(&b)?,
                partition::subspace::PartOpT::Div => a.div_exact(b.as_const()?)?,
            }
        }
    })
}

/// The candidate partition of `array` under `plan` as polynomials over the parameters (one per
/// dimension); `None` for a dimension whose references have different shapes.
fn symbolic_shape(nest: &Nest, seeds: &Seeds, plan: &Subspace, array: &str) -> Vec<Option<Poly>> {
    let refs: Vec<_> = nest.refs.iter().filter(|r| r.array == array).collect();
    let Some(first) = refs.first() else {
        return Vec::new();
    };
    let name = |p: usize| k_name(seeds, plan, Some(array), plan.rep(p));
    (0..first.dims.len())
        .map(|d| {
            let lin = &first.dims[d];
            if partition::features::grid_skew(nest, &refs, d) {
                // Skewed references: the whole range the grid loops reach (see
                // `features::chunk_shape`).
                let mut lo = i64::MAX;
                let mut hi = i64::MIN;
                for r in &refs {
                    let x = r.dims.get(d)?;
                    let (mut a, mut b) = (x.base, x.base);
                    for (&l, &c) in &x.coef {
                        if !nest.is_mapped(l) && plan.tile(l).is_some() {
                            return None;
                        }
                        let span = c.saturating_mul(nest.trip_of(l) - 1);
                        if span < 0 {
                            a = a.saturating_add(span)
                        } else {
                            b = b.saturating_add(span)
                        }
                    }
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
                return Some(Poly::constant(hi.saturating_sub(lo).saturating_add(1)));
            }
            if refs
                .iter()
                .any(|r| r.dims.get(d).map(|x| &x.coef) != Some(&lin.coef))
            {
                return None;
            }
            let mut ext = Poly::constant(1);
            for (&l, &c) in &lin.coef {
                let t = if let Some(dim) = nest.tb_of(l) {
                    match plan.fixed_tb.get(&dim) {
                        Some(v) => Poly::constant(*v),
                        None => Poly::var(dim.name()),
                    }
                } else {
                    match plan.tile(l) {
                        Some(e) => texpr_poly(&e, &name)?,
                        None => Poly::constant(nest.trip_of(l)),
                    }
                };
                ext = ext.add(&t.sub(&Poly::constant(1))?.scale(c.abs())?)?;
            }
            let bases: Vec<i64> = refs
                .iter()
                .filter_map(|r| r.dims.get(d).map(|x| x.base))
                .collect();
            let spread =
                bases.iter().max().copied().unwrap_or(0) - bases.iter().min().copied().unwrap_or(0);
            ext.add(&Poly::constant(spread))
        })
        .collect()
}

fn show_shape(dims: &[Option<Poly>]) -> String {
    dims.iter()
        .map(|d| {
            format!(
                "[{}]",
                d.as_ref().map_or("?".to_string(), |p| p.to_string())
            )
        })
        .collect()
}

fn params_of(kp: &KernelPlan, seeds: &Seeds, c: &partition::Choice) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    let Some(nest) = &kp.nest else { return out };
    for (_, d) in nest.mapped.iter().rev() {
        out.push((d.name().to_string(), c.assign.tb(*d)));
    }
    if let Some(plan) = kp.plans.get(c.plan) {
        for (rep, v) in &c.assign.k {
            for q in 0..seeds.params.len() {
                if plan.rep(q) == *rep {
                    out.push((seeds.params[q].name.clone(), *v));
                }
            }
        }
        // Parameters bound by an intersection to an expression.
        for q in 0..seeds.params.len() {
            let r = plan.rep(q);
            if let Some(e) = plan.bound.get(&r) {
                if let Some(v) = e.eval(&c.assign, &|p| plan.rep(p)) {
                    out.push((seeds.params[q].name.clone(), v));
                }
            }
        }
    }
    out.sort_by(|a, b| {
        let rank = |s: &str| match s {
            "TB_X" => 0,
            "TB_Y" => 1,
            "TB_Z" => 2,
            _ => 3,
        };
        (rank(&a.0), a.0.len(), &a.0).cmp(&(rank(&b.0), b.0.len(), &b.0))
    });
    out.dedup();
    out
}

/// Constraint (9) with the block fixed: `k1 + k2 ≤ 96` for gemm on gtx690.
fn reduced_smem(
    kp: &KernelPlan,
    seeds: &Seeds,
    c: &partition::Choice,
    budget: i64,
) -> Option<String> {
    let nest = kp.nest.as_ref()?;
    let plan = kp.plans.get(c.plan)?;
    let mut total = Poly::zero();
    for a in &c.staged {
        let elem = nest.elem_bytes.get(a).copied().unwrap_or(4);
        let mut bytes = Poly::constant(elem);
        for d in symbolic_shape(nest, seeds, plan, a) {
            bytes = bytes.mul(&d?)?;
        }
        total = total.add(&bytes)?;
    }
    for (l, d) in &nest.mapped {
        // Partitions are clipped to the loop (a block wider than the loop reads only the loop).
        let v = c.assign.tb(*d).min(nest.trip_of(*l));
        total = total.substitute(d.name(), &Poly::constant(v))?;
    }
    let c0 = total.constant_term();
    let lin = total.sub(&Poly::constant(c0))?;
    if lin.is_zero() {
        return None;
    }
    let mut g: i64 = 0;
    for (_, k) in lin.terms() {
        g = gcd(g, k.abs());
    }
    let g = g.max(1);
    let rhs = budget.saturating_sub(c0).div_euclid(g);
    let lhs = if lin.terms().all(|(_, k)| k % g == 0) {
        lin.div_exact(g)?
    } else {
        lin
    };
    Some(format!("{} <= {}", lhs, rhs))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn mapping_text(nest: &Nest) -> String {
    let q: Vec<String> = nest
        .mapped
        .iter()
        .map(|(l, d)| format!("{} -> {}", nest.name(*l), d.name()))
        .collect();
    let phi: Vec<String> = nest
        .sequential()
        .iter()
        .map(|l| nest.name(*l).to_string())
        .collect();
    format!(
        "Q = {}; φ = {}",
        if q.is_empty() {
            "(none)".into()
        } else {
            q.join(", ")
        },
        if phi.is_empty() {
            "(none)".into()
        } else {
            phi.join(", ")
        }
    )
}

fn plan_from(plan: &Subspace) -> String {
    if plan.from.is_empty() {
        "no seeds: the thread block's tile".into()
    } else {
        plan.from
            .iter()
            .map(|f| format!("IS({})", f))
            .collect::<Vec<_>>()
            .join(" ∩ ")
    }
}

fn plan_domain(kp: &KernelPlan, seeds: &Seeds, plan: &Subspace) -> String {
    let Some(nest) = &kp.nest else {
        return String::new();
    };
    let mut s = plan.show(nest, seeds);
    // Name unified classes `k1 = k2`.
    for r in plan.free_params() {
        let all = kp.param_name(seeds, plan, r);
        if all.contains(" = ") {
            let first = k_name(seeds, plan, None, r);
            s = s.replace(&format!(": {}]", first), &format!(": {}]", all));
        }
    }
    let _ = Tile::Star(0);
    s
}

fn seed_list(seeds: &Seeds) -> Vec<String> {
    seeds.seeds.iter().map(|s| seeds.show(s)).collect()
}

// ---------------------------------------------------------------------------------------------
// Text

fn text(plans: &[RegionPlan], locs: &[String], p: &Platform) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "platform {}: {}\n  warp {}, shared memory {} B/SM ({} B/block), θ_s = {}, θ_r = {}, TranSize = {} B, budget (9) = {} B",
        p.name,
        p.description,
        p.warp_size,
        p.smem_per_sm,
        p.smem_per_block,
        p.theta_s,
        p.theta_r,
        p.transaction_bytes,
        p.smem_budget()
    );
    if plans.is_empty() {
        o.push_str("\nno compute region\n");
    }
    for (rp, loc) in plans.iter().zip(locs) {
        let _ = writeln!(o, "\nregion {} in {} ({})", rp.index, rp.func, loc);
        if rp.seeds.seeds.is_empty() {
            o.push_str("  seeds: none (no share pragma, no cache directive)\n");
        } else {
            let _ = writeln!(o, "  seeds: {}", seed_list(&rp.seeds).join(", "));
        }
        for kp in &rp.kernels {
            kernel_text(&mut o, rp, kp, p);
        }
    }
    o
}

fn kernel_text(o: &mut String, rp: &RegionPlan, kp: &KernelPlan, p: &Platform) {
    let seeds = &rp.seeds;
    let _ = writeln!(o, "  kernel {}", kp.name);
    let Some(nest) = &kp.nest else {
        for n in &kp.notes {
            let _ = writeln!(o, "    note: {}", n);
        }
        return;
    };
    let _ = writeln!(o, "    mapping: {}", mapping_text(nest));
    let trips: Vec<String> = nest
        .loops
        .iter()
        .map(|l| format!("{} {}", nest.name(*l), nest.trip_of(*l)))
        .collect();
    let _ = writeln!(o, "    trip counts: {}", trips.join(", "));
    o.push_str("    candidates:\n");
    for c in &kp.candidates {
        let _ = writeln!(o, "      {}: {}", c.array, c.reason);
    }
    for a in &kp.not_candidates {
        let _ = writeln!(
            o,
            "      ({} is not a candidate: no dependence links it to a seed)",
            a
        );
    }
    o.push_str("    references:\n");
    for (r, adj) in nest.refs.iter().zip(&kp.adjacency) {
        let _ = writeln!(o, "      {}: {}", r.text, adj.show(nest));
    }
    if !kp.subspaces.is_empty() {
        o.push_str("    iteration subspaces (ISSet):\n");
        for s in &kp.subspaces {
            let _ = writeln!(
                o,
                "      IS({}): {}",
                s.from.join(", "),
                s.show(nest, seeds)
            );
        }
    }
    if !kp.plans.is_empty() {
        o.push_str("    candidate partition plans:\n");
    }
    for (i, plan) in kp.plans.iter().enumerate() {
        let _ = writeln!(
            o,
            "      IS_{} = {}: {}",
            i,
            plan_from(plan),
            plan_domain(kp, seeds, plan)
        );
        let mut arrays: Vec<&str> = kp.candidates.iter().map(|c| c.array.as_str()).collect();
        arrays.retain(|a| nest.refs.iter().any(|r| r.array == *a));
        let parts: Vec<String> = arrays
            .iter()
            .map(|a| {
                format!(
                    "DS_{} = {}{}",
                    a,
                    a,
                    show_shape(&symbolic_shape(nest, seeds, plan, a))
                )
            })
            .collect();
        if !parts.is_empty() {
            let _ = writeln!(o, "        {}", parts.join(", "));
        }
        for n in &plan.notes {
            let _ = writeln!(o, "        note: {}", n);
        }
    }
    match &kp.best {
        Some(b) => {
            let params: Vec<String> = params_of(kp, seeds, b)
                .iter()
                .map(|(n, v)| format!("{} = {}", n, v))
                .collect();
            let _ = writeln!(
                o,
                "    chosen (IS_{}): {}; block [{}, {}, {}]",
                b.plan,
                params.join(", "),
                b.assign.tb[0],
                b.assign.tb[1],
                b.assign.tb[2]
            );
            let _ = writeln!(
                o,
                "      profit: {} B of global traffic saved ({} B per block, {} blocks, partial ones pro rata); {} parameter combinations evaluated",
                b.profit, b.profit_per_block, b.blocks, kp.evaluated
            );
            let sh: Vec<String> = b
                .staged
                .iter()
                .filter_map(|a| b.shapes.get(a).map(|c| (a, c)))
                .map(|(a, c)| {
                    format!(
                        "{}{} ({} B)",
                        a,
                        c.extents
                            .iter()
                            .map(|e| format!("[{}]", e))
                            .collect::<String>(),
                        c.bytes
                    )
                })
                .collect();
            let _ = writeln!(o, "      shared: {}; total {} B", sh.join(", "), b.smem);
            o.push_str("      features per block (ReuseSize and |DS| in elements, CoalesceTran in transactions, terms in bytes):\n");
            let _ = writeln!(
                o,
                "        {:<8} {:>10} {:>9} {:>10} {:>5} {:>5} {:>12} {:>11} {:>11}",
                "array",
                "accesses",
                "|DS|",
                "ReuseSize",
                "Reuse",
                "Coal",
                "CoalesceTran",
                "reuse term",
                "coal term"
            );
            for (a, f) in &b.features {
                let g = b.gains.get(a).copied().unwrap_or((0, 0));
                let _ = writeln!(
                    o,
                    "        {:<8} {:>10} {:>9} {:>10} {:>5} {:>5} {:>12} {:>11} {:>11}{}",
                    a,
                    f.accesses,
                    f.distinct,
                    f.reuse,
                    if f.in_reuse_set { "yes" } else { "no" },
                    if f.in_coalesce_set { "yes" } else { "no" },
                    f.coalesce_tran,
                    g.0,
                    g.1,
                    if f.approx {
                        "  (|DS| is an upper bound)"
                    } else {
                        ""
                    }
                );
            }
            o.push_str("      constraints:\n");
            for c in &b.constraints {
                let _ = writeln!(
                    o,
                    "        {} {}: {} {} {} (slack {})",
                    c.id,
                    c.what,
                    c.lhs,
                    if c.op == "<=" { "≤" } else { "≥" },
                    c.rhs,
                    c.slack()
                );
            }
            if let Some(r) = reduced_smem(kp, seeds, b, p.smem_budget() as i64) {
                let _ = writeln!(
                    o,
                    "        (9) with the block fixed: {}",
                    r.replace("<=", "≤")
                );
            }
            if !kp.alternatives.is_empty() {
                o.push_str("      next best:\n");
                for a in &kp.alternatives {
                    let params: Vec<String> = params_of(kp, seeds, a)
                        .iter()
                        .map(|(n, v)| format!("{} = {}", n, v))
                        .collect();
                    let _ = writeln!(
                        o,
                        "        {}: profit {} B, shared {} B, staged {}",
                        params.join(", "),
                        a.profit,
                        a.smem,
                        if a.staged.is_empty() {
                            "nothing".into()
                        } else {
                            a.staged.join(", ")
                        }
                    );
                }
            }
        }
        None => {
            let _ = writeln!(
                o,
                "    chosen: nothing in shared memory; block [{}, {}, {}]",
                kp.block[0], kp.block[1], kp.block[2]
            );
        }
    }
    if !kp.rejected.is_empty() {
        o.push_str("    left in global memory:\n");
        for (a, r) in &kp.rejected {
            let _ = writeln!(o, "      {}: {}", a, r);
        }
    }
    for n in &kp.notes {
        let _ = writeln!(o, "    note: {}", n);
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

/// A JSON string literal with every character that needs it escaped.
pub fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_f64(v: f64) -> String {
    if v.is_finite() {
        let s = format!("{}", v);
        if s.contains('.') || s.contains('e') {
            s
        } else {
            format!("{}.0", s)
        }
    } else {
        "null".into()
    }
}

fn arr(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

fn obj(fields: Vec<(&str, String)>) -> String {
    format!(
        "{{{}}}",
        fields
            .into_iter()
            .map(|(k, v)| format!("{}: {}", json_str(k), v))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn json(plans: &[RegionPlan], locs: &[String], p: &Platform) -> String {
    let platform = obj(vec![
        ("name", json_str(&p.name)),
        ("description", json_str(&p.description)),
        ("warp_size", p.warp_size.to_string()),
        ("smem_per_sm", p.smem_per_sm.to_string()),
        ("smem_per_block", p.smem_per_block.to_string()),
        ("smem_budget", p.smem_budget().to_string()),
        ("transaction_bytes", p.transaction_bytes.to_string()),
        ("max_threads_per_block", p.max_threads_per_block.to_string()),
        ("max_threads_per_sm", p.max_threads_per_sm.to_string()),
        ("theta_s", json_f64(p.theta_s)),
        ("theta_r", json_f64(p.theta_r)),
    ]);
    let regions = plans.iter().zip(locs).map(|(rp, loc)| {
        let seeds = arr(rp.seeds.seeds.iter().map(|s| {
            obj(vec![
                ("array", json_str(&s.array)),
                ("partition", json_str(&rp.seeds.show(s))),
                ("coalesce", s.coalesce.to_string()),
                (
                    "origin",
                    json_str(match s.origin {
                        partition::candidates::SeedOrigin::Share => "share",
                        partition::candidates::SeedOrigin::Cache => "cache",
                    }),
                ),
                (
                    "params",
                    arr(s.dims.iter().filter_map(|d| match d {
                        SeedDim::Star(q) => rp.seeds.params.get(*q).map(|x| json_str(&x.name)),
                        _ => None,
                    })),
                ),
            ])
        }));
        obj(vec![
            ("index", rp.index.to_string()),
            ("function", json_str(&rp.func)),
            ("location", json_str(loc)),
            ("seeds", seeds),
            (
                "kernels",
                arr(rp.kernels.iter().map(|k| kernel_json(rp, k, p))),
            ),
        ])
    });
    let mut s = obj(vec![("platform", platform), ("regions", arr(regions))]);
    s.push('\n');
    s
}

fn kernel_json(rp: &RegionPlan, kp: &KernelPlan, p: &Platform) -> String {
    let seeds = &rp.seeds;
    let mut f: Vec<(&str, String)> = vec![
        ("name", json_str(&kp.name)),
        ("analyzed", kp.nest.is_some().to_string()),
    ];
    let block = arr(kp.block.iter().map(|v| v.to_string()));
    let Some(nest) = &kp.nest else {
        f.push(("block", block));
        f.push(("shared_arrays", "[]".into()));
        f.push(("profit", "0".into()));
        f.push(("notes", arr(kp.notes.iter().map(|n| json_str(n)))));
        return obj(f);
    };
    let dim_loop = |d| {
        nest.loop_of(d)
            .map_or("null".to_string(), |l| json_str(nest.name(l)))
    };
    use crate::front::pragma_ast::TbDim;
    f.push((
        "mapping",
        obj(vec![
            ("x", dim_loop(TbDim::X)),
            ("y", dim_loop(TbDim::Y)),
            ("z", dim_loop(TbDim::Z)),
            (
                "sequential",
                arr(nest.sequential().iter().map(|l| json_str(nest.name(*l)))),
            ),
        ]),
    ));
    f.push((
        "trip_counts",
        obj(nest
            .loops
            .iter()
            .map(|l| (nest.name(*l), nest.trip_of(*l).to_string()))
            .collect()),
    ));
    f.push((
        "candidates",
        arr(kp.candidates.iter().map(|c| {
            obj(vec![
                ("array", json_str(&c.array)),
                ("seed", c.seed.to_string()),
                ("reason", json_str(&c.reason)),
            ])
        })),
    ));
    f.push((
        "not_candidates",
        arr(kp.not_candidates.iter().map(|a| json_str(a))),
    ));
    f.push((
        "references",
        arr(nest.refs.iter().zip(&kp.adjacency).map(|(r, a)| {
            obj(vec![
                ("ref", json_str(&r.text)),
                ("array", json_str(&r.array)),
                (
                    "coalesced",
                    (*a == partition::Adjacency::Coalesced).to_string(),
                ),
                ("adjacency", json_str(&a.show(nest))),
            ])
        })),
    ));
    f.push((
        "subspaces",
        arr(kp.subspaces.iter().map(|s| {
            obj(vec![
                ("from", arr(s.from.iter().map(|x| json_str(x)))),
                ("domain", json_str(&s.show(nest, seeds))),
            ])
        })),
    ));
    f.push((
        "plans",
        arr(kp.plans.iter().enumerate().map(|(i, plan)| {
            let parts = kp
                .candidates
                .iter()
                .filter(|c| nest.refs.iter().any(|r| r.array == c.array))
                .map(|c| {
                    obj(vec![
                        ("array", json_str(&c.array)),
                        (
                            "shape",
                            json_str(&show_shape(&symbolic_shape(nest, seeds, plan, &c.array))),
                        ),
                    ])
                });
            obj(vec![
                ("index", i.to_string()),
                ("from", arr(plan.from.iter().map(|x| json_str(x)))),
                ("domain", json_str(&plan_domain(kp, seeds, plan))),
                ("partitions", arr(parts)),
                ("notes", arr(plan.notes.iter().map(|n| json_str(n)))),
            ])
        })),
    ));
    f.push(("block", block));
    match &kp.best {
        Some(b) => {
            let plan = kp.plans.get(b.plan);
            f.push((
                "params",
                obj(params_of(kp, seeds, b)
                    .iter()
                    .map(|(n, v)| (n.as_str(), v.to_string()))
                    .collect::<Vec<_>>()),
            ));
            f.push(("profit", b.profit.to_string()));
            f.push(("profit_per_block", b.profit_per_block.to_string()));
            f.push(("blocks", b.blocks.to_string()));
            f.push(("shared_bytes", b.smem.to_string()));
            f.push((
                "shared_arrays",
                arr(b
                    .staged
                    .iter()
                    .filter_map(|a| b.shapes.get(a).map(|c| (a, c)))
                    .map(|(a, c)| {
                        let expr = plan
                            .map(|pl| show_shape(&symbolic_shape(nest, seeds, pl, a)))
                            .unwrap_or_default();
                        obj(vec![
                            ("array", json_str(a)),
                            ("shape", arr(c.extents.iter().map(|e| e.to_string()))),
                            ("origin", arr(c.origin.iter().map(|e| e.to_string()))),
                            ("shape_expr", json_str(&expr)),
                            ("bytes", c.bytes.to_string()),
                            ("chunks", c.chunks.to_string()),
                        ])
                    })),
            ));
            f.push(("features", features_json(b)));
            f.push((
                "constraints",
                arr(b.constraints.iter().map(|c| {
                    obj(vec![
                        ("id", json_str(&c.id)),
                        ("what", json_str(&c.what)),
                        ("lhs", c.lhs.to_string()),
                        ("op", json_str(c.op)),
                        ("rhs", c.rhs.to_string()),
                        ("slack", c.slack().to_string()),
                    ])
                })),
            ));
            f.push((
                "smem_with_block_fixed",
                reduced_smem(kp, seeds, b, p.smem_budget() as i64)
                    .map_or("null".into(), |s| json_str(&s)),
            ));
            f.push((
                "alternatives",
                arr(kp.alternatives.iter().map(|a| {
                    obj(vec![
                        ("block", arr(a.assign.tb.iter().map(|v| v.to_string()))),
                        (
                            "params",
                            obj(params_of(kp, seeds, a)
                                .iter()
                                .map(|(n, v)| (n.as_str(), v.to_string()))
                                .collect::<Vec<_>>()),
                        ),
                        ("profit", a.profit.to_string()),
                        ("shared_bytes", a.smem.to_string()),
                        ("staged", arr(a.staged.iter().map(|s| json_str(s)))),
                    ])
                })),
            ));
        }
        None => {
            f.push(("params", "{}".into()));
            f.push(("profit", "0".into()));
            f.push(("shared_bytes", "0".into()));
            f.push(("shared_arrays", "[]".into()));
        }
    }
    f.push(("evaluated", kp.evaluated.to_string()));
    f.push((
        "rejected",
        arr(kp
            .rejected
            .iter()
            .map(|(a, r)| obj(vec![("array", json_str(a)), ("reason", json_str(r))]))),
    ));
    f.push(("notes", arr(kp.notes.iter().map(|n| json_str(n)))));
    obj(f)
}

fn features_json(b: &partition::Choice) -> String {
    arr(b.features.iter().map(|(a, f)| {
        let g = b.gains.get(a).copied().unwrap_or((0, 0));
        obj(vec![
            ("array", json_str(a)),
            ("accesses", f.accesses.to_string()),
            ("distinct", f.distinct.to_string()),
            ("reuse_size", f.reuse.to_string()),
            ("in_reuse_set", f.in_reuse_set.to_string()),
            ("in_coalesce_set", f.in_coalesce_set.to_string()),
            ("coalesce_tran", f.coalesce_tran.to_string()),
            ("baseline_tran", f.baseline_tran.to_string()),
            ("reuse_bytes", g.0.to_string()),
            ("coalesce_bytes", g.1.to_string()),
            ("approx", f.approx.to_string()),
        ])
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
        assert_eq!(json_f64(0.25), "0.25");
        assert_eq!(json_f64(2.0), "2.0");
        assert_eq!(json_f64(f64::NAN), "null");
    }
}
