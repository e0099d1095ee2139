//! The text report of `accshare explain`, rendered from the report value (`value::Report`).

use std::fmt::Write as _;

use super::value::*;

/// The whole report.
pub(super) fn text(r: &Report) -> String {
    let mut o = String::new();
    let p = &r.platform;
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
        p.smem_budget
    );
    if r.regions.is_empty() {
        o.push_str("\nno compute region\n");
    }
    for rr in &r.regions {
        let _ = writeln!(
            o,
            "\nregion {} in {} ({})",
            rr.index, rr.function, rr.location
        );
        if rr.seeds.is_empty() && rr.induced {
            o.push_str("  seeds: none (no share pragma, no cache directive): induced per kernel\n");
        } else if rr.seeds.is_empty() {
            o.push_str("  seeds: none (no share pragma, no cache directive)\n");
        } else {
            let _ = writeln!(o, "  seeds: {}", seed_list(&rr.seeds));
        }
        for k in &rr.kernels {
            kernel_text(&mut o, k);
        }
    }
    o
}

/// The seeds' partitions, comma-separated.
fn seed_list(seeds: &[SeedReport]) -> String {
    let list: Vec<&str> = seeds.iter().map(|s| s.partition.as_str()).collect();
    list.join(", ")
}

fn kernel_text(o: &mut String, k: &KernelReport) {
    let k = match k {
        KernelReport::Unanalyzed { name, notes, .. } => {
            let _ = writeln!(o, "  kernel {}", name);
            for n in notes.iter() {
                let _ = writeln!(o, "    note: {}", n);
            }
            return;
        }
        KernelReport::Analyzed(k) => k,
    };
    let _ = writeln!(o, "  kernel {}", k.name);
    analysis_text(o, k);
    plans_text(o, &k.plans);
    match &k.choice {
        ChoiceReport::Chosen(c) => chosen_text(o, c, k.evaluated),
        ChoiceReport::Nothing { .. } => {
            let _ = writeln!(
                o,
                "    chosen: nothing in shared memory; block [{}, {}, {}]",
                k.block[0], k.block[1], k.block[2]
            );
        }
    }
    if !k.rejected.is_empty() {
        o.push_str("    left in global memory:\n");
        for r in &k.rejected {
            let _ = writeln!(o, "      {}: {}", r.array, r.reason);
        }
    }
    for n in k.notes {
        let _ = writeln!(o, "    note: {}", n);
    }
    if let Some(b) = &k.block_order {
        let _ = writeln!(o, "    block order: {}", block_order_text(b));
    }
}

/// The nest's mapping, loops, seeds, candidates, references and iteration subspaces.
fn analysis_text(o: &mut String, k: &AnalyzedReport) {
    let _ = writeln!(o, "    mapping: {}", mapping_text(k));
    for l in &k.sequential {
        let _ = writeln!(o, "    sequential: {}: {}", l.name, l.reason);
    }
    let trips: Vec<String> = k
        .trip_counts
        .0
        .iter()
        .map(|(l, n)| format!("{} {}", l, n))
        .collect();
    let _ = writeln!(o, "    trip counts: {}", trips.join(", "));
    if let Some(list) = &k.induced_seeds {
        let _ = writeln!(
            o,
            "    seeds: induced (no share pragma): {}",
            if list.is_empty() {
                "none".to_string()
            } else {
                seed_list(list)
            }
        );
        for u in &k.unseeded {
            let _ = writeln!(o, "      ({} has no seed: {})", u.array, u.reason);
        }
    }
    o.push_str("    candidates:\n");
    for c in &k.candidates {
        let _ = writeln!(o, "      {}: {}", c.array, c.reason);
    }
    for a in k.not_candidates {
        let _ = writeln!(
            o,
            "      ({} is not a candidate: no dependence links it to a seed)",
            a
        );
    }
    o.push_str("    references:\n");
    for r in &k.references {
        let _ = writeln!(o, "      {}: {}", r.text, r.adjacency);
    }
    if !k.subspaces.is_empty() {
        o.push_str("    iteration subspaces (ISSet):\n");
        for s in &k.subspaces {
            let _ = writeln!(o, "      IS({}): {}", s.from.join(", "), s.domain);
        }
    }
}

/// `Q = i -> TB_Y, j -> TB_X; φ = k`: the loops on the grid and those run in order.
fn mapping_text(k: &AnalyzedReport) -> String {
    let q: Vec<String> = k
        .grid
        .iter()
        .map(|(l, d)| format!("{} -> {}", l, d))
        .collect();
    let phi = &k.mapping.sequential;
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

/// The candidate partition plans with their partitions and notes.
fn plans_text(o: &mut String, plans: &[PlanReport]) {
    if !plans.is_empty() {
        o.push_str("    candidate partition plans:\n");
    }
    for plan in plans {
        let from = if plan.from.is_empty() {
            "no seeds: the thread block's tile".to_string()
        } else {
            let is: Vec<String> = plan.from.iter().map(|f| format!("IS({})", f)).collect();
            is.join(" ∩ ")
        };
        let _ = writeln!(o, "      IS_{} = {}: {}", plan.index, from, plan.domain);
        let parts: Vec<String> = plan
            .partitions
            .iter()
            .map(|p| format!("DS_{} = {}{}", p.array, p.array, p.shape))
            .collect();
        if !parts.is_empty() {
            let _ = writeln!(o, "        {}", parts.join(", "));
        }
        for n in plan.notes {
            let _ = writeln!(o, "        note: {}", n);
        }
    }
}

/// `n = v, …`: parameter values.
fn params_text(params: &Pairs<String, i64>) -> String {
    let list: Vec<String> = params
        .0
        .iter()
        .map(|(n, v)| format!("{} = {}", n, v))
        .collect();
    list.join(", ")
}

/// The chosen configuration: parameters, profit, shared arrays, features, constraints and
/// the next best ones.
fn chosen_text(o: &mut String, c: &ChosenReport, evaluated: u64) {
    let _ = writeln!(
        o,
        "    chosen (IS_{}): {}; block [{}, {}, {}]",
        c.plan,
        params_text(&c.params),
        c.block[0],
        c.block[1],
        c.block[2]
    );
    let _ = writeln!(
        o,
        "      profit: {} B of global traffic saved ({} B per block, {} blocks, partial ones pro rata); {} parameter combinations evaluated",
        c.profit, c.profit_per_block, c.blocks, evaluated
    );
    let sh: Vec<String> = c
        .shared_arrays
        .iter()
        .map(|a| {
            let ext: String = a.shape.iter().map(|e| format!("[{}]", e)).collect();
            format!("{}{} ({} B)", a.array, ext, a.bytes)
        })
        .collect();
    let _ = writeln!(
        o,
        "      shared: {}; total {} B",
        sh.join(", "),
        c.shared_bytes
    );
    features_text(o, &c.features);
    o.push_str("      constraints:\n");
    for k in &c.constraints {
        let _ = writeln!(
            o,
            "        {} {}: {} {} {} (slack {})",
            k.id,
            k.what,
            k.lhs,
            if k.op == "<=" { "≤" } else { "≥" },
            k.rhs,
            k.slack
        );
    }
    if let Some(r) = &c.smem_with_block_fixed {
        let _ = writeln!(
            o,
            "        (9) with the block fixed: {}",
            r.replace("<=", "≤")
        );
    }
    if !c.alternatives.is_empty() {
        o.push_str("      next best:\n");
        for a in &c.alternatives {
            let _ = writeln!(
                o,
                "        {}: profit {} B, shared {} B, staged {}",
                params_text(&a.params),
                a.profit,
                a.shared_bytes,
                if a.staged.is_empty() {
                    "nothing".into()
                } else {
                    a.staged.join(", ")
                }
            );
        }
    }
}

/// The table of the features per block of the chosen configuration.
fn features_text(o: &mut String, features: &[FeatureReport]) {
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
    for f in features {
        let _ = writeln!(
            o,
            "        {:<8} {:>10} {:>9} {:>10} {:>5} {:>5} {:>12} {:>11} {:>11}{}",
            f.array,
            f.accesses,
            f.distinct,
            f.reuse_size,
            if f.in_reuse_set { "yes" } else { "no" },
            if f.in_coalesce_set { "yes" } else { "no" },
            f.coalesce_tran,
            f.reuse_bytes,
            f.coalesce_bytes,
            if f.approx {
                "  (|DS| is an upper bound)"
            } else {
                ""
            }
        );
    }
}

/// `diagonal (why; modelled channel imbalance …)`: the block order and the model's numbers.
fn block_order_text(n: &BlockOrderReport) -> String {
    let walk = n
        .column_walk
        .as_ref()
        .map(|w| {
            format!(
                ", `{}` {} B apart from block to block along x",
                w.reference, w.stride_bytes
            )
        })
        .unwrap_or_default();
    let diagonal = match (n.imbalance_diagonal, n.skew) {
        (Some(d), Some(k)) => format!(", diagonal {:.2} with skew {}", d.0, k),
        _ => String::new(),
    };
    format!(
        "{} ({}; modelled channel imbalance of the first {} blocks: linear {:.2}{}{})",
        n.order, n.reason, n.wave_blocks, n.imbalance_linear.0, diagonal, walk
    )
}
