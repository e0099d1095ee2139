//! The JSON report of `accshare explain` (schema: docs/explain-json.md).

use super::*;

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

pub(super) fn json_f64(v: f64) -> String {
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

pub(super) fn json(plans: &[RegionPlan], locs: &[String], p: &Platform) -> String {
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
    f.push((
        "sequential",
        arr(kp
            .sequential
            .iter()
            .map(|(v, r)| obj(vec![("loop", json_str(v)), ("reason", json_str(r))]))),
    ));
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
