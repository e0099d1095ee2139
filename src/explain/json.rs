//! The JSON report of `accshare explain` (schema: docs/explain-json.md), written by serde_json
//! from the output structs below: their fields, in order, are the schema's keys.

use serde::{Serialize, Serializer};

use super::*;

/// The whole report, on one line.
pub(super) fn json(
    plans: &[RegionPlan],
    locs: &[String],
    p: &Platform,
    banks: &BankTable,
    factors: &super::FactorTable,
) -> String {
    let report = Report {
        platform: PlatformJson {
            name: &p.name,
            description: &p.description,
            warp_size: p.warp_size,
            smem_per_sm: p.smem_per_sm,
            smem_per_block: p.smem_per_block,
            smem_budget: p.smem_budget(),
            transaction_bytes: p.transaction_bytes,
            max_threads_per_block: p.max_threads_per_block,
            max_threads_per_sm: p.max_threads_per_sm,
            theta_s: p.theta_s,
            theta_r: p.theta_r,
        },
        regions: plans
            .iter()
            .zip(locs)
            .map(|(rp, loc)| region(rp, loc, p, banks, factors))
            .collect(),
    };
    // Serializing plain structs of strings and numbers to a String cannot fail.
    let mut s = serde_json::to_string(&report).unwrap_or_default();
    s.push('\n');
    s
}

#[derive(Serialize)]
struct Report<'a> {
    platform: PlatformJson<'a>,
    regions: Vec<RegionJson<'a>>,
}

#[derive(Serialize)]
struct PlatformJson<'a> {
    name: &'a str,
    description: &'a str,
    warp_size: u32,
    smem_per_sm: u64,
    smem_per_block: u64,
    smem_budget: u64,
    transaction_bytes: u32,
    max_threads_per_block: u32,
    max_threads_per_sm: u32,
    theta_s: f64,
    theta_r: f64,
}

#[derive(Serialize)]
struct RegionJson<'a> {
    index: usize,
    function: &'a str,
    location: &'a str,
    seeds: Vec<SeedJson<'a>>,
    kernels: Vec<KernelJson<'a>>,
}

#[derive(Serialize)]
struct SeedJson<'a> {
    array: &'a str,
    partition: String,
    coalesce: bool,
    origin: &'static str,
    params: Vec<&'a str>,
}

/// A kernel the engine could not size carries only a few keys (see the schema).
#[derive(Serialize)]
#[serde(untagged)]
enum KernelJson<'a> {
    Unanalyzed {
        name: &'a str,
        analyzed: bool,
        block: [i64; 3],
        shared_arrays: [SharedArrayJson<'a>; 0],
        profit: i64,
        notes: &'a [String],
    },
    Analyzed(Box<Analyzed<'a>>),
}

#[derive(Serialize)]
struct Analyzed<'a> {
    name: &'a str,
    analyzed: bool,
    mapping: MappingJson<'a>,
    trip_counts: Pairs<&'a str, i64>,
    /// `null` when the region has hints (its seeds are the region's).
    induced_seeds: Option<Vec<SeedJson<'a>>>,
    unseeded: Vec<ArrayReason<'a>>,
    candidates: Vec<CandidateJson<'a>>,
    not_candidates: &'a [String],
    references: Vec<ReferenceJson<'a>>,
    subspaces: Vec<SubspaceJson<'a>>,
    plans: Vec<PlanJson<'a>>,
    block: [i64; 3],
    params: Pairs<String, i64>,
    profit: i64,
    // The keys from `profit_per_block` to `alternatives` other than `shared_bytes` and
    // `shared_arrays` are there only when a configuration was chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    profit_per_block: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<i64>,
    shared_bytes: i64,
    shared_arrays: Vec<SharedArrayJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    features: Option<Vec<FeatureJson<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    constraints: Option<Vec<ConstraintJson<'a>>>,
    /// Outer `None`: no key; `Some(None)`: `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    smem_with_block_fixed: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alternatives: Option<Vec<AlternativeJson<'a>>>,
    evaluated: u64,
    rejected: Vec<ArrayReason<'a>>,
    notes: &'a [String],
    sequential: Vec<LoopReason<'a>>,
    /// The bank-conflict decision of each tile staged in the generated code.
    bank: Vec<BankJson<'a>>,
    /// Only on platforms with a channel model.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_order: Option<BlockOrderJson<'a>>,
    /// The search of the outputs per work-item under register pressure (staged kernels on
    /// GPUs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    coarsening: Option<CoarseningJson>,
    /// The copy grouping of each staged tile of 8- or 16-bit elements (short words).
    tile_words: Vec<TileWordsJson<'a>>,
}

#[derive(Serialize)]
struct TileWordsJson<'a> {
    array: &'a str,
    local: &'a str,
    /// Elements per vector access of the copies, `null` when copied one by one.
    width: Option<u32>,
    /// Every vector word-aligned (proven statically); `null` when not grouped.
    aligned: Option<bool>,
    /// Why the copies are not grouped, `null` when grouped.
    reason: Option<String>,
}

#[derive(Serialize)]
struct CoarseningJson {
    platform: String,
    chosen: [u32; 2],
    previous: [u32; 2],
    /// `[rows, cols]` that `--ilp` forced instead of the choice, or `null`.
    forced: Option<[u32; 2]>,
    why: String,
    candidates: Vec<FactorJson>,
}

#[derive(Serialize)]
struct FactorJson {
    rows: u32,
    cols: u32,
    threads: u32,
    registers: u32,
    accumulators: u32,
    operands: u32,
    addresses: u32,
    counters: u32,
    copy: u32,
    base: u32,
    blocks_per_sm: u64,
    occupancy: f64,
    limited_by: &'static str,
    spills: bool,
    cycles_per_output: f64,
    bound: &'static str,
    time_us: Option<f64>,
    verdict: String,
}

fn coarsening_json(c: &crate::schedule::regs::FactorChoice) -> CoarseningJson {
    CoarseningJson {
        platform: c.platform.clone(),
        chosen: [c.chosen.0, c.chosen.1],
        previous: [c.previous.0, c.previous.1],
        forced: c.forced.map(|(a, b)| [a, b]),
        why: c.why.clone(),
        candidates: c
            .candidates
            .iter()
            .map(|f| FactorJson {
                rows: f.rows,
                cols: f.cols,
                threads: f.threads,
                registers: f.registers.total(),
                accumulators: f.registers.accumulators,
                operands: f.registers.operands,
                addresses: f.registers.addresses,
                counters: f.registers.counters,
                copy: f.registers.copy,
                base: f.registers.base,
                blocks_per_sm: f.occupancy.blocks,
                occupancy: round4(f.occupancy.fraction),
                limited_by: f.occupancy.limit.name(),
                spills: f.occupancy.spills,
                cycles_per_output: round4(f.cycles_per_output),
                bound: f.bound,
                time_us: f.time_us.map(round4),
                verdict: f.verdict.text(),
            })
            .collect(),
    }
}

/// A modelled ratio as the report shows it: rounded to 4 decimals.
fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[derive(Serialize)]
struct BlockOrderJson<'a> {
    order: &'static str,
    reason: &'a str,
    wave_blocks: u64,
    imbalance_linear: f64,
    /// Only when the diagonal order was modelled (the blocks walk columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    imbalance_diagonal: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skew: Option<u32>,
    /// The reference whose consecutive blocks along x camp on one channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    column_walk: Option<ColumnWalkJson<'a>>,
}

#[derive(Serialize)]
struct ColumnWalkJson<'a> {
    reference: &'a str,
    stride_bytes: i64,
}

#[derive(Serialize)]
struct BankJson<'a> {
    array: &'a str,
    local: &'a str,
    technique: &'static str,
    why: &'a str,
    path: &'a [String],
    degree_before: u32,
    degree_after: u32,
    wavefronts_before: u64,
    wavefronts_after: u64,
    row_len: u32,
    transposed: bool,
    extra_bytes: u64,
    /// The kernel's bank width when the schedule chose a mode other than the platform's
    /// default (Kepler's 8-byte banks); `null`: the default.
    bank_width: Option<u32>,
    /// Written through the tile (stored back to global memory at the kernel's end; a field or
    /// residue of an array of structs: that field or residue alone); absent when only read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    written: bool,
    /// A written tile: loaded from global memory first (the kernel reads it or may leave an
    /// element unwritten); absent for read tiles (always loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    loaded_first: Option<bool>,
}

#[derive(Serialize)]
struct MappingJson<'a> {
    x: Option<&'a str>,
    y: Option<&'a str>,
    z: Option<&'a str>,
    sequential: Vec<&'a str>,
}

#[derive(Serialize)]
struct CandidateJson<'a> {
    array: &'a str,
    seed: bool,
    reason: &'a str,
}

#[derive(Serialize)]
struct ReferenceJson<'a> {
    #[serde(rename = "ref")]
    text: &'a str,
    array: &'a str,
    coalesced: bool,
    adjacency: String,
}

#[derive(Serialize)]
struct SubspaceJson<'a> {
    from: &'a [String],
    domain: String,
}

#[derive(Serialize)]
struct PlanJson<'a> {
    index: usize,
    from: &'a [String],
    domain: String,
    partitions: Vec<PartitionJson<'a>>,
    notes: &'a [String],
}

#[derive(Serialize)]
struct PartitionJson<'a> {
    array: &'a str,
    shape: String,
}

#[derive(Serialize)]
struct SharedArrayJson<'a> {
    array: &'a str,
    shape: &'a [i64],
    origin: &'a [i64],
    shape_expr: String,
    bytes: i64,
    chunks: i64,
}

#[derive(Serialize)]
struct FeatureJson<'a> {
    array: &'a str,
    accesses: i64,
    distinct: i64,
    reuse_size: i64,
    in_reuse_set: bool,
    in_coalesce_set: bool,
    coalesce_tran: i64,
    baseline_tran: i64,
    reuse_bytes: i64,
    coalesce_bytes: i64,
    approx: bool,
}

#[derive(Serialize)]
struct ConstraintJson<'a> {
    id: &'a str,
    what: &'a str,
    lhs: i64,
    op: &'a str,
    rhs: i64,
    slack: i64,
}

#[derive(Serialize)]
struct AlternativeJson<'a> {
    block: [i64; 3],
    params: Pairs<String, i64>,
    profit: i64,
    shared_bytes: i64,
    staged: &'a [String],
}

#[derive(Serialize)]
struct ArrayReason<'a> {
    array: &'a str,
    reason: String,
}

#[derive(Serialize)]
struct LoopReason<'a> {
    #[serde(rename = "loop")]
    name: &'a str,
    reason: &'a str,
}

/// An object whose keys keep the order the engine gives them (loops outermost first,
/// parameters in the order of the mapped dimensions).
struct Pairs<K, V>(Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn seeds_json(seeds: &Seeds) -> Vec<SeedJson<'_>> {
    seeds
        .seeds
        .iter()
        .map(|s| SeedJson {
            array: &s.array,
            partition: seeds.show(s),
            coalesce: s.coalesce,
            origin: match s.origin {
                partition::candidates::SeedOrigin::Share => "share",
                partition::candidates::SeedOrigin::Cache => "cache",
                partition::candidates::SeedOrigin::Induced => "induced",
            },
            params: s
                .dims
                .iter()
                .filter_map(|d| match d {
                    SeedDim::Star(q) => seeds.params.get(*q).map(|x| x.name.as_str()),
                    _ => None,
                })
                .collect(),
        })
        .collect()
}

fn region<'a>(
    rp: &'a RegionPlan,
    loc: &'a str,
    p: &Platform,
    banks: &'a BankTable,
    factors: &'a super::FactorTable,
) -> RegionJson<'a> {
    RegionJson {
        index: rp.index,
        function: &rp.func,
        location: loc,
        seeds: seeds_json(&rp.seeds),
        kernels: rp
            .kernels
            .iter()
            .map(|k| {
                let mut j = kernel(rp, k, p, banks.get(&(rp.index, k.root)));
                if let (KernelJson::Analyzed(a), Some(c)) =
                    (&mut j, factors.get(&(rp.index, k.root)))
                {
                    a.coarsening = Some(coarsening_json(c));
                }
                j
            })
            .collect(),
    }
}

fn kernel<'a>(
    rp: &'a RegionPlan,
    kp: &'a KernelPlan,
    p: &Platform,
    banks: Option<&'a Vec<TileBank>>,
) -> KernelJson<'a> {
    let seeds = rp.seeds_of(kp);
    let Some(nest) = &kp.nest else {
        return KernelJson::Unanalyzed {
            name: &kp.name,
            analyzed: false,
            block: kp.block,
            shared_arrays: [],
            profit: 0,
            notes: &kp.notes,
        };
    };
    use crate::front::pragma_ast::TbDim;
    let dim_loop = |d| nest.loop_of(d).map(|l| nest.name(l));
    let mut k = Analyzed {
        name: &kp.name,
        analyzed: true,
        mapping: MappingJson {
            x: dim_loop(TbDim::X),
            y: dim_loop(TbDim::Y),
            z: dim_loop(TbDim::Z),
            sequential: nest.sequential().iter().map(|l| nest.name(*l)).collect(),
        },
        trip_counts: Pairs(
            nest.loops
                .iter()
                .map(|l| (nest.name(*l), nest.trip_of(*l)))
                .collect(),
        ),
        induced_seeds: kp.induced.as_ref().map(|i| seeds_json(&i.seeds)),
        unseeded: kp
            .induced
            .iter()
            .flat_map(|i| &i.unseeded)
            .map(|(a, why)| ArrayReason {
                array: a,
                reason: why.to_string(),
            })
            .collect(),
        candidates: kp
            .candidates
            .iter()
            .map(|c| CandidateJson {
                array: &c.array,
                seed: c.seed,
                reason: &c.reason,
            })
            .collect(),
        not_candidates: &kp.not_candidates,
        references: nest
            .refs
            .iter()
            .zip(&kp.adjacency)
            .map(|(r, a)| ReferenceJson {
                text: &r.text,
                array: &r.array,
                coalesced: *a == partition::Adjacency::Coalesced,
                adjacency: a.show(nest),
            })
            .collect(),
        subspaces: kp
            .subspaces
            .iter()
            .map(|s| SubspaceJson {
                from: &s.from,
                domain: s.show(nest, seeds),
            })
            .collect(),
        plans: kp
            .plans
            .iter()
            .enumerate()
            .map(|(i, plan)| PlanJson {
                index: i,
                from: &plan.from,
                domain: plan_domain(kp, seeds, plan),
                partitions: kp
                    .candidates
                    .iter()
                    .filter(|c| nest.refs.iter().any(|r| r.array == c.array))
                    .map(|c| PartitionJson {
                        array: &c.array,
                        shape: show_shape(&symbolic_shape(nest, seeds, plan, &c.array)),
                    })
                    .collect(),
                notes: &plan.notes,
            })
            .collect(),
        block: kp.block,
        params: Pairs(Vec::new()),
        profit: 0,
        profit_per_block: None,
        blocks: None,
        shared_bytes: 0,
        shared_arrays: Vec::new(),
        features: None,
        constraints: None,
        smem_with_block_fixed: None,
        alternatives: None,
        evaluated: kp.evaluated,
        rejected: kp
            .rejected
            .iter()
            .map(|r| ArrayReason {
                array: &r.array,
                reason: r.reason.to_string(),
            })
            .collect(),
        notes: &kp.notes,
        sequential: kp
            .sequential
            .iter()
            .map(|(v, r)| LoopReason { name: v, reason: r })
            .collect(),
        coarsening: None,
        block_order: kp.block_order.as_ref().map(|b| BlockOrderJson {
            order: b.order,
            reason: &b.reason,
            wave_blocks: b.wave,
            imbalance_linear: round4(b.linear),
            imbalance_diagonal: b.diagonal.map(|(d, _)| round4(d)),
            skew: b.diagonal.map(|(_, k)| k),
            column_walk: b.column_walk.as_ref().map(|(r, d)| ColumnWalkJson {
                reference: r,
                stride_bytes: *d,
            }),
        }),
        bank: banks
            .map(|ts| {
                ts.iter()
                    .map(|t| BankJson {
                        array: &t.array,
                        local: &t.local,
                        technique: t.choice.technique.name(),
                        why: &t.choice.why,
                        path: &t.choice.path,
                        degree_before: t.choice.degree_before,
                        degree_after: t.choice.degree_after,
                        wavefronts_before: t.choice.wavefronts_before,
                        wavefronts_after: t.choice.wavefronts_after,
                        row_len: t.choice.layout.row_len,
                        transposed: t.choice.layout.transposed,
                        extra_bytes: t.choice.extra_bytes,
                        bank_width: t.bank_mode.map(|m| m.width),
                        written: t.written,
                        loaded_first: t.written.then_some(t.load),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        tile_words: banks
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| {
                        let d = t.copy_words.as_ref()?;
                        Some(TileWordsJson {
                            array: &t.array,
                            local: &t.local,
                            width: d.as_ref().ok().map(|w| w.width),
                            aligned: d.as_ref().ok().map(|w| w.aligned),
                            reason: d.as_ref().err().map(|e| e.to_string()),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    if let Some(b) = &kp.best {
        let plan = kp.plans.get(b.plan);
        k.params = Pairs(params_of(kp, seeds, b));
        k.profit = b.profit;
        k.profit_per_block = Some(b.profit_per_block);
        k.blocks = Some(b.blocks);
        k.shared_bytes = b.smem;
        k.shared_arrays = b
            .staged
            .iter()
            .filter_map(|a| b.shapes.get(a).map(|c| (a, c)))
            .map(|(a, c)| SharedArrayJson {
                array: a,
                shape: &c.extents,
                origin: &c.origin,
                shape_expr: plan
                    .map(|pl| show_shape(&symbolic_shape(nest, seeds, pl, a)))
                    .unwrap_or_default(),
                bytes: c.bytes,
                chunks: c.chunks,
            })
            .collect();
        k.features = Some(features(b));
        k.constraints = Some(
            b.constraints
                .iter()
                .map(|c| ConstraintJson {
                    id: &c.id,
                    what: &c.what,
                    lhs: c.lhs,
                    op: c.op,
                    rhs: c.rhs,
                    slack: c.slack(),
                })
                .collect(),
        );
        k.smem_with_block_fixed = Some(reduced_smem(kp, seeds, b, p.smem_budget() as i64));
        k.alternatives = Some(
            kp.alternatives
                .iter()
                .map(|a| AlternativeJson {
                    block: a.assign.tb,
                    params: Pairs(params_of(kp, seeds, a)),
                    profit: a.profit,
                    shared_bytes: a.smem,
                    staged: &a.staged,
                })
                .collect(),
        );
    }
    KernelJson::Analyzed(Box::new(k))
}

fn features(b: &partition::Choice) -> Vec<FeatureJson<'_>> {
    b.features
        .iter()
        .map(|(a, f)| {
            let g = b.gains.get(a).copied().unwrap_or((0, 0));
            FeatureJson {
                array: a,
                accesses: f.accesses,
                distinct: f.distinct,
                reuse_size: f.reuse,
                in_reuse_set: f.in_reuse_set,
                in_coalesce_set: f.in_coalesce_set,
                coalesce_tran: f.coalesce_tran,
                baseline_tran: f.baseline_tran,
                reuse_bytes: g.0,
                coalesce_bytes: g.1,
                approx: f.approx,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_and_pairs_keep_their_order() {
        let notes = vec!["a\"b\\c\nd\r\te\u{1}é".to_string()];
        let k = KernelJson::Unanalyzed {
            name: "k",
            analyzed: false,
            block: [32, 8, 1],
            shared_arrays: [],
            profit: 0,
            notes: &notes,
        };
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#"{"name":"k","analyzed":false,"block":[32,8,1],"shared_arrays":[],"profit":0,"notes":["a\"b\\c\nd\r\te\u0001é"]}"#
        );
        let p = Pairs(vec![("j", 2), ("i", 1)]);
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"j":2,"i":1}"#);
        let f = |v: f64| serde_json::to_string(&v).unwrap();
        assert_eq!(
            (f(0.25), f(2.0), f(f64::NAN)),
            ("0.25".into(), "2.0".into(), "null".into())
        );
    }
}
