//! The text report of `accshare explain`.

use std::fmt::Write as _;

use super::*;

pub(super) fn text(plans: &[RegionPlan], locs: &[String], p: &Platform) -> String {
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
        if rp.seeds.seeds.is_empty() && rp.kernels.iter().any(|k| k.induced.is_some()) {
            o.push_str("  seeds: none (no share pragma, no cache directive): induced per kernel\n");
        } else if rp.seeds.seeds.is_empty() {
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
    let seeds = rp.seeds_of(kp);
    let _ = writeln!(o, "  kernel {}", kp.name);
    let Some(nest) = &kp.nest else {
        for n in &kp.notes {
            let _ = writeln!(o, "    note: {}", n);
        }
        return;
    };
    let _ = writeln!(o, "    mapping: {}", mapping_text(nest));
    for (var, why) in &kp.sequential {
        let _ = writeln!(o, "    sequential: {}: {}", var, why);
    }
    let trips: Vec<String> = nest
        .loops
        .iter()
        .map(|l| format!("{} {}", nest.name(*l), nest.trip_of(*l)))
        .collect();
    let _ = writeln!(o, "    trip counts: {}", trips.join(", "));
    if let Some(i) = &kp.induced {
        let list = seed_list(&i.seeds);
        let _ = writeln!(
            o,
            "    seeds: induced (no share pragma): {}",
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            }
        );
        for (a, why) in &i.unseeded {
            let _ = writeln!(o, "      ({} has no seed: {})", a, why);
        }
    }
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
        for r in &kp.rejected {
            let _ = writeln!(o, "      {}", r);
        }
    }
    for n in &kp.notes {
        let _ = writeln!(o, "    note: {}", n);
    }
    if let Some(b) = &kp.block_order {
        let _ = writeln!(o, "    block order: {}", super::block_order_text(b));
    }
}
