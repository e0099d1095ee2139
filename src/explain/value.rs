//! The report value of `accshare explain`: everything the report says, computed once from the
//! plans (and the schedule's tables), that both renderers read. Its `Serialize` form is the
//! JSON report (schema: docs/explain-json.md): the fields, in order, are the schema's keys; the
//! few fields only the text shows are skipped.

use serde::{Serialize, Serializer};

use super::*;

/// The whole report: the platform, then every region with its kernels.
#[derive(Serialize)]
pub(super) struct Report<'a> {
    pub(super) platform: PlatformReport<'a>,
    pub(super) regions: Vec<RegionReport<'a>>,
}

/// The platform the plans were made for.
#[derive(Serialize)]
pub(super) struct PlatformReport<'a> {
    pub(super) name: &'a str,
    pub(super) description: &'a str,
    pub(super) warp_size: u32,
    pub(super) smem_per_sm: u64,
    pub(super) smem_per_block: u64,
    pub(super) smem_budget: u64,
    pub(super) transaction_bytes: u32,
    pub(super) max_threads_per_block: u32,
    pub(super) max_threads_per_sm: u32,
    pub(super) theta_s: f64,
    pub(super) theta_r: f64,
}

/// One compute region: where it is, its seeds and its kernels.
#[derive(Serialize)]
pub(super) struct RegionReport<'a> {
    pub(super) index: usize,
    pub(super) function: &'a str,
    pub(super) location: &'a str,
    pub(super) seeds: Vec<SeedReport<'a>>,
    /// Some kernel of the region has induced seeds (the text says so when the region has none).
    #[serde(skip)]
    pub(super) induced: bool,
    pub(super) kernels: Vec<KernelReport<'a>>,
}

/// A seed (a `share` pragma's or `cache` directive's partition, or an induced one).
#[derive(Serialize)]
pub(super) struct SeedReport<'a> {
    pub(super) array: &'a str,
    pub(super) partition: String,
    pub(super) coalesce: bool,
    pub(super) origin: &'static str,
    pub(super) params: Vec<&'a str>,
}

/// A kernel the engine could not size carries only a few keys (see the schema).
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum KernelReport<'a> {
    Unanalyzed {
        name: &'a str,
        analyzed: bool,
        block: [i64; 3],
        shared_arrays: [SharedArrayReport<'a>; 0],
        profit: i64,
        notes: &'a [String],
    },
    Analyzed(Box<AnalyzedReport<'a>>),
}

/// A kernel whose nest the engine sized: its analysis, its choice and the schedule's notes.
#[derive(Serialize)]
pub(super) struct AnalyzedReport<'a> {
    pub(super) name: &'a str,
    pub(super) analyzed: bool,
    pub(super) mapping: MappingReport<'a>,
    /// The loops on the grid, outermost first, with their block dimension (the text's `Q`).
    #[serde(skip)]
    pub(super) grid: Vec<(&'a str, &'static str)>,
    pub(super) trip_counts: Pairs<&'a str, i64>,
    /// `null` when the region has hints (its seeds are the region's).
    pub(super) induced_seeds: Option<Vec<SeedReport<'a>>>,
    pub(super) unseeded: Vec<ArrayReason<'a>>,
    pub(super) candidates: Vec<CandidateReport<'a>>,
    pub(super) not_candidates: &'a [String],
    pub(super) references: Vec<ReferenceReport<'a>>,
    pub(super) subspaces: Vec<SubspaceReport<'a>>,
    pub(super) plans: Vec<PlanReport<'a>>,
    pub(super) block: [i64; 3],
    /// What was chosen: the keys from `params` to `alternatives`.
    #[serde(flatten)]
    pub(super) choice: ChoiceReport<'a>,
    pub(super) evaluated: u64,
    pub(super) rejected: Vec<ArrayReason<'a>>,
    pub(super) notes: &'a [String],
    pub(super) sequential: Vec<LoopReason<'a>>,
    /// The bank-conflict decision of each tile staged in the generated code.
    pub(super) bank: Vec<BankReport<'a>>,
    /// Only on platforms with a channel model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) block_order: Option<BlockOrderReport<'a>>,
    /// The search of the outputs per work-item under register pressure (staged kernels on
    /// GPUs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) coarsening: Option<CoarseningReport>,
    /// The copy grouping of each staged tile of 8- or 16-bit elements (short words).
    pub(super) tile_words: Vec<TileWordsReport<'a>>,
}

/// The kernel's chosen configuration, or that nothing pays for shared memory. Flattened into
/// the kernel: the keys from `profit_per_block` to `alternatives` other than `shared_bytes` and
/// `shared_arrays` are there only when a configuration was chosen.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum ChoiceReport<'a> {
    Chosen(Box<ChosenReport<'a>>),
    /// Nothing chosen: no parameters, no profit, nothing shared.
    Nothing {
        params: Pairs<String, i64>,
        profit: i64,
        shared_bytes: i64,
        shared_arrays: [SharedArrayReport<'a>; 0],
    },
}

/// The configuration the search chose: parameters, profit, shared arrays, features,
/// constraints and the next best ones.
#[derive(Serialize)]
pub(super) struct ChosenReport<'a> {
    /// The partition plan (`IS_n`) it belongs to.
    #[serde(skip)]
    pub(super) plan: usize,
    /// Its block (the kernel's `block` unless the schedule changed that).
    #[serde(skip)]
    pub(super) block: [i64; 3],
    pub(super) params: Pairs<String, i64>,
    pub(super) profit: i64,
    pub(super) profit_per_block: i64,
    pub(super) blocks: i64,
    pub(super) shared_bytes: i64,
    pub(super) shared_arrays: Vec<SharedArrayReport<'a>>,
    pub(super) features: Vec<FeatureReport<'a>>,
    pub(super) constraints: Vec<ConstraintReport<'a>>,
    /// Constraint (9) with the block fixed, `null` when it does not depend on the parameters.
    pub(super) smem_with_block_fixed: Option<String>,
    pub(super) alternatives: Vec<AlternativeReport<'a>>,
}

/// How a staged tile of short words is copied.
#[derive(Serialize)]
pub(super) struct TileWordsReport<'a> {
    pub(super) array: &'a str,
    pub(super) local: &'a str,
    /// Elements per vector access of the copies, `null` when copied one by one.
    pub(super) width: Option<u32>,
    /// Every vector word-aligned (proven statically); `null` when not grouped.
    pub(super) aligned: Option<bool>,
    /// Why the copies are not grouped, `null` when grouped.
    pub(super) reason: Option<String>,
}

/// The search of the outputs per work-item.
#[derive(Serialize)]
pub(super) struct CoarseningReport {
    pub(super) platform: String,
    pub(super) chosen: [u32; 2],
    pub(super) previous: [u32; 2],
    /// `[rows, cols]` that `--ilp` forced instead of the choice, or `null`.
    pub(super) forced: Option<[u32; 2]>,
    pub(super) why: String,
    pub(super) candidates: Vec<FactorReport>,
}

/// One candidate of the search of the outputs per work-item.
#[derive(Serialize)]
pub(super) struct FactorReport {
    pub(super) rows: u32,
    pub(super) cols: u32,
    /// The rows are adjacent: the rows their reads share are loaded once.
    pub(super) adjacent_rows: bool,
    pub(super) threads: u32,
    pub(super) registers: u32,
    pub(super) accumulators: u32,
    pub(super) operands: u32,
    pub(super) addresses: u32,
    pub(super) counters: u32,
    pub(super) copy: u32,
    pub(super) base: u32,
    pub(super) blocks_per_sm: u64,
    pub(super) occupancy: Ratio,
    pub(super) limited_by: &'static str,
    pub(super) spills: bool,
    pub(super) cycles_per_output: Ratio,
    pub(super) bound: &'static str,
    pub(super) time_us: Option<Ratio>,
    pub(super) verdict: String,
}

/// A modelled ratio: the text shows it at its own precision, the JSON rounded to 4 decimals.
#[derive(Copy, Clone)]
pub(super) struct Ratio(pub(super) f64);

impl Serialize for Ratio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64((self.0 * 1e4).round() / 1e4)
    }
}

/// The block order the schedule chose against channel conflicts.
#[derive(Serialize)]
pub(super) struct BlockOrderReport<'a> {
    pub(super) order: &'static str,
    pub(super) reason: &'a str,
    pub(super) wave_blocks: u64,
    pub(super) imbalance_linear: Ratio,
    /// Only when the diagonal order was modelled (the blocks walk columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) imbalance_diagonal: Option<Ratio>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) skew: Option<u32>,
    /// The reference whose consecutive blocks along x camp on one channel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) column_walk: Option<ColumnWalkReport<'a>>,
}

/// A reference whose consecutive blocks along x camp on one channel, and their stride.
#[derive(Serialize)]
pub(super) struct ColumnWalkReport<'a> {
    pub(super) reference: &'a str,
    pub(super) stride_bytes: i64,
}

/// The bank-conflict decision of one staged tile.
#[derive(Serialize)]
pub(super) struct BankReport<'a> {
    pub(super) array: &'a str,
    pub(super) local: &'a str,
    pub(super) technique: &'static str,
    pub(super) why: &'a str,
    pub(super) path: &'a [String],
    pub(super) degree_before: u32,
    pub(super) degree_after: u32,
    pub(super) wavefronts_before: u64,
    pub(super) wavefronts_after: u64,
    pub(super) row_len: u32,
    pub(super) transposed: bool,
    pub(super) extra_bytes: u64,
    /// The kernel's bank width when the schedule chose a mode other than the platform's
    /// default (Kepler's 8-byte banks); `null`: the default.
    pub(super) bank_width: Option<u32>,
    /// Written through the tile (stored back to global memory at the kernel's end; a field or
    /// residue of an array of structs: that field or residue alone); absent when only read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) written: bool,
    /// A written tile: loaded from global memory first (the kernel reads it or may leave an
    /// element unwritten); absent for read tiles (always loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) loaded_first: Option<bool>,
}

/// Which loop runs on each block dimension, and the loops each work-item runs in order.
#[derive(Serialize)]
pub(super) struct MappingReport<'a> {
    pub(super) x: Option<&'a str>,
    pub(super) y: Option<&'a str>,
    pub(super) z: Option<&'a str>,
    pub(super) sequential: Vec<&'a str>,
}

/// A candidate array for shared memory, and why.
#[derive(Serialize)]
pub(super) struct CandidateReport<'a> {
    pub(super) array: &'a str,
    pub(super) seed: bool,
    pub(super) reason: &'a str,
}

/// A reference class and its adjacency verdict.
#[derive(Serialize)]
pub(super) struct ReferenceReport<'a> {
    #[serde(rename = "ref")]
    pub(super) text: &'a str,
    pub(super) array: &'a str,
    pub(super) coalesced: bool,
    pub(super) adjacency: String,
}

/// An iteration subspace of a seed reference (ISSet).
#[derive(Serialize)]
pub(super) struct SubspaceReport<'a> {
    pub(super) from: &'a [String],
    pub(super) domain: String,
}

/// A candidate partition plan `IS_m` with the partitions of the candidate arrays under it.
#[derive(Serialize)]
pub(super) struct PlanReport<'a> {
    pub(super) index: usize,
    pub(super) from: &'a [String],
    pub(super) domain: String,
    pub(super) partitions: Vec<PartitionReport<'a>>,
    pub(super) notes: &'a [String],
}

/// The symbolic partition of one array under a plan.
#[derive(Serialize)]
pub(super) struct PartitionReport<'a> {
    pub(super) array: &'a str,
    pub(super) shape: String,
}

/// An array staged in shared memory by the chosen configuration.
#[derive(Serialize)]
pub(super) struct SharedArrayReport<'a> {
    pub(super) array: &'a str,
    pub(super) shape: &'a [i64],
    pub(super) origin: &'a [i64],
    pub(super) shape_expr: String,
    pub(super) bytes: i64,
    pub(super) chunks: i64,
}

/// The features of one array per block under the chosen configuration.
#[derive(Serialize)]
pub(super) struct FeatureReport<'a> {
    pub(super) array: &'a str,
    pub(super) accesses: i64,
    pub(super) distinct: i64,
    pub(super) reuse_size: i64,
    pub(super) in_reuse_set: bool,
    pub(super) in_coalesce_set: bool,
    pub(super) coalesce_tran: i64,
    pub(super) baseline_tran: i64,
    pub(super) reuse_bytes: i64,
    pub(super) coalesce_bytes: i64,
    pub(super) approx: bool,
}

/// One constraint of the chosen configuration.
#[derive(Serialize)]
pub(super) struct ConstraintReport<'a> {
    pub(super) id: &'a str,
    pub(super) what: &'a str,
    pub(super) lhs: i64,
    pub(super) op: &'a str,
    pub(super) rhs: i64,
    pub(super) slack: i64,
}

/// A next best configuration (the best of another block shape).
#[derive(Serialize)]
pub(super) struct AlternativeReport<'a> {
    pub(super) block: [i64; 3],
    pub(super) params: Pairs<String, i64>,
    pub(super) profit: i64,
    pub(super) shared_bytes: i64,
    pub(super) staged: &'a [String],
}

/// An array and a reason (unseeded, left in global memory).
#[derive(Serialize)]
pub(super) struct ArrayReason<'a> {
    pub(super) array: &'a str,
    pub(super) reason: String,
}

/// A loop and why it runs in order in each work-item.
#[derive(Serialize)]
pub(super) struct LoopReason<'a> {
    #[serde(rename = "loop")]
    pub(super) name: &'a str,
    pub(super) reason: &'a str,
}

/// An object whose keys keep the order the engine gives them (loops outermost first,
/// parameters in the order of the mapped dimensions).
pub(super) struct Pairs<K, V>(pub(super) Vec<(K, V)>);

impl<K: Serialize, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

// ---------------------------------------------------------------------------------------------
// Building the value

impl<'a> Report<'a> {
    /// The report of `plans` (their locations in `locs`) made for `p`, with the schedule's
    /// bank decisions and coarsening searches by region and nest.
    pub(super) fn new(
        plans: &'a [RegionPlan],
        locs: &'a [String],
        p: &'a Platform,
        banks: &'a BankTable,
        factors: &'a FactorTable,
    ) -> Self {
        Report {
            platform: PlatformReport {
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
        }
    }
}

fn region<'a>(
    rp: &'a RegionPlan,
    loc: &'a str,
    p: &Platform,
    banks: &'a BankTable,
    factors: &'a FactorTable,
) -> RegionReport<'a> {
    RegionReport {
        index: rp.index,
        function: &rp.func,
        location: loc,
        seeds: seeds(&rp.seeds),
        induced: rp.kernels.iter().any(|k| k.induced.is_some()),
        kernels: rp
            .kernels
            .iter()
            .map(|k| {
                let key = (rp.index, k.root);
                kernel(rp, k, p, banks.get(&key), factors.get(&key))
            })
            .collect(),
    }
}

fn seeds(seeds: &Seeds) -> Vec<SeedReport<'_>> {
    seeds
        .seeds
        .iter()
        .map(|s| SeedReport {
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

/// One kernel: its analysis, its choice, and what the schedule made of it (`banks`: its
/// tiles' decisions, `factor`: its coarsening search).
fn kernel<'a>(
    rp: &'a RegionPlan,
    kp: &'a KernelPlan,
    p: &Platform,
    banks: Option<&'a Vec<TileBank>>,
    factor: Option<&'a crate::schedule::regs::FactorChoice>,
) -> KernelReport<'a> {
    let seeds = rp.seeds_of(kp);
    let Some(nest) = &kp.nest else {
        return KernelReport::Unanalyzed {
            name: &kp.name,
            analyzed: false,
            block: kp.block,
            shared_arrays: [],
            profit: 0,
            notes: &kp.notes,
        };
    };
    let tiles = banks.map_or(&[][..], |b| &b[..]);
    KernelReport::Analyzed(Box::new(AnalyzedReport {
        name: &kp.name,
        analyzed: true,
        mapping: mapping(nest),
        grid: nest
            .mapped
            .iter()
            .map(|(l, d)| (nest.name(*l), d.name()))
            .collect(),
        trip_counts: Pairs(
            nest.loops
                .iter()
                .map(|l| (nest.name(*l), nest.trip_of(*l)))
                .collect(),
        ),
        induced_seeds: kp.induced.as_ref().map(|i| self::seeds(&i.seeds)),
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
            .map(|c| CandidateReport {
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
            .map(|(r, a)| ReferenceReport {
                text: &r.text,
                array: &r.array,
                coalesced: *a == partition::Adjacency::Coalesced,
                adjacency: a.show(nest),
            })
            .collect(),
        subspaces: kp
            .subspaces
            .iter()
            .map(|s| SubspaceReport {
                from: &s.from,
                domain: s.show(nest, seeds),
            })
            .collect(),
        plans: plans(kp, nest, seeds),
        block: kp.block,
        choice: choice(kp, nest, seeds, p),
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
        bank: tiles.iter().map(bank).collect(),
        block_order: kp.block_order.as_ref().map(block_order),
        coarsening: factor.map(coarsening),
        tile_words: tiles.iter().filter_map(tile_words).collect(),
    }))
}

fn mapping(nest: &Nest) -> MappingReport<'_> {
    use crate::vocab::share::TbDim;
    let dim_loop = |d| nest.loop_of(d).map(|l| nest.name(l));
    MappingReport {
        x: dim_loop(TbDim::X),
        y: dim_loop(TbDim::Y),
        z: dim_loop(TbDim::Z),
        sequential: nest.sequential().iter().map(|l| nest.name(*l)).collect(),
    }
}

/// The candidate partition plans, each with the partitions of the candidate arrays the nest
/// references.
fn plans<'a>(kp: &'a KernelPlan, nest: &Nest, seeds: &Seeds) -> Vec<PlanReport<'a>> {
    kp.plans
        .iter()
        .enumerate()
        .map(|(i, plan)| PlanReport {
            index: i,
            from: &plan.from,
            domain: plan_domain(kp, seeds, plan),
            partitions: kp
                .candidates
                .iter()
                .filter(|c| nest.refs.iter().any(|r| r.array == c.array))
                .map(|c| PartitionReport {
                    array: &c.array,
                    shape: show_shape(&symbolic_shape(nest, seeds, plan, &c.array)),
                })
                .collect(),
            notes: &plan.notes,
        })
        .collect()
}

/// The kernel's best configuration, or nothing.
fn choice<'a>(kp: &'a KernelPlan, nest: &Nest, seeds: &Seeds, p: &Platform) -> ChoiceReport<'a> {
    let Some(b) = &kp.best else {
        return ChoiceReport::Nothing {
            params: Pairs(Vec::new()),
            profit: 0,
            shared_bytes: 0,
            shared_arrays: [],
        };
    };
    let plan = kp.plans.get(b.plan);
    ChoiceReport::Chosen(Box::new(ChosenReport {
        plan: b.plan,
        block: b.assign.tb,
        params: Pairs(params_of(kp, seeds, b)),
        profit: b.profit,
        profit_per_block: b.profit_per_block,
        blocks: b.blocks,
        shared_bytes: b.smem,
        shared_arrays: b
            .staged
            .iter()
            .filter_map(|a| b.shapes.get(a).map(|c| (a, c)))
            .map(|(a, c)| SharedArrayReport {
                array: a,
                shape: &c.extents,
                origin: &c.origin,
                shape_expr: plan
                    .map(|pl| show_shape(&symbolic_shape(nest, seeds, pl, a)))
                    .unwrap_or_default(),
                bytes: c.bytes,
                chunks: c.chunks,
            })
            .collect(),
        features: features(b),
        constraints: b
            .constraints
            .iter()
            .map(|c| ConstraintReport {
                id: &c.id,
                what: &c.what,
                lhs: c.lhs,
                op: c.op,
                rhs: c.rhs,
                slack: c.slack(),
            })
            .collect(),
        smem_with_block_fixed: reduced_smem(kp, seeds, b, p.smem_budget() as i64),
        alternatives: kp
            .alternatives
            .iter()
            .map(|a| AlternativeReport {
                block: a.assign.tb,
                params: Pairs(params_of(kp, seeds, a)),
                profit: a.profit,
                shared_bytes: a.smem,
                staged: &a.staged,
            })
            .collect(),
    }))
}

fn features(b: &partition::Choice) -> Vec<FeatureReport<'_>> {
    b.features
        .iter()
        .map(|(a, f)| {
            let g = b.gains.get(a).copied().unwrap_or((0, 0));
            FeatureReport {
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

fn bank(t: &TileBank) -> BankReport<'_> {
    BankReport {
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
    }
}

/// The copy grouping of a tile of short words; `None` for other tiles.
fn tile_words(t: &TileBank) -> Option<TileWordsReport<'_>> {
    let d = t.copy_words.as_ref()?;
    Some(TileWordsReport {
        array: &t.array,
        local: &t.local,
        width: d.as_ref().ok().map(|w| w.width),
        aligned: d.as_ref().ok().map(|w| w.aligned),
        reason: d.as_ref().err().map(|e| e.to_string()),
    })
}

fn block_order(b: &partition::BlockOrderNote) -> BlockOrderReport<'_> {
    BlockOrderReport {
        order: b.order,
        reason: &b.reason,
        wave_blocks: b.wave,
        imbalance_linear: Ratio(b.linear),
        imbalance_diagonal: b.diagonal.map(|(d, _)| Ratio(d)),
        skew: b.diagonal.map(|(_, k)| k),
        column_walk: b.column_walk.as_ref().map(|(r, d)| ColumnWalkReport {
            reference: r,
            stride_bytes: *d,
        }),
    }
}

fn coarsening(c: &crate::schedule::regs::FactorChoice) -> CoarseningReport {
    CoarseningReport {
        platform: c.platform.clone(),
        chosen: [c.chosen.0, c.chosen.1],
        previous: [c.previous.0, c.previous.1],
        forced: c.forced.map(|(a, b)| [a, b]),
        why: c.why.clone(),
        candidates: c
            .candidates
            .iter()
            .map(|f| FactorReport {
                rows: f.rows,
                cols: f.cols,
                adjacent_rows: f.adjacent_rows,
                threads: f.threads,
                registers: f.registers.total(),
                accumulators: f.registers.accumulators,
                operands: f.registers.operands,
                addresses: f.registers.addresses,
                counters: f.registers.counters,
                copy: f.registers.copy,
                base: f.registers.base,
                blocks_per_sm: f.occupancy.blocks,
                occupancy: Ratio(f.occupancy.fraction),
                limited_by: f.occupancy.limit.name(),
                spills: f.occupancy.spills,
                cycles_per_output: Ratio(f.cycles_per_output),
                bound: f.bound,
                time_us: f.time_us.map(Ratio),
                verdict: f.verdict.text(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_and_pairs_keep_their_order() {
        let notes = vec!["a\"b\\c\nd\r\te\u{1}é".to_string()];
        let k = KernelReport::Unanalyzed {
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
        let r = |v: f64| serde_json::to_string(&Ratio(v)).unwrap();
        assert_eq!((r(0.123456), r(2.0)), ("0.1235".into(), "2.0".into()));
    }
}
