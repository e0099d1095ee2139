//! `accshare explain`: what the partition engine decided and why, per region and kernel, as
//! text or JSON (schema: `docs/explain-json.md`; written by serde_json).
//!
//! The plans, with the schedule's notes added to them (`add_staging`), become one report value
//! (`value::Report`) that both renderers read: `text` formats it, `json` serializes it.

use crate::diag::SourceMap;
use crate::ir::Poly;
use crate::model::Platform;
use crate::partition::candidates::SeedDim;
use crate::partition::subspace::{TExpr, Tile};
use crate::partition::{self, KernelPlan, Nest, RegionPlan, Seeds, Subspace};
use crate::schedule::stage::{Reorder, StageSpec, StagedArray, Strip};
use crate::schedule::tuned::{Origin, TunedKernel};
use crate::schedule::{KernelSchedule, RegionSchedule, Schedule};

mod json;
mod text;
mod value;

use json::json;
use text::text;
use value::Report;

pub use crate::model::list_platforms;

/// The form of the report: text for people, JSON for programs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// The report of a file's schedules (`driver::explain` runs the pipeline up to them): every
/// region's partition plan, with what its kernels' schedules make of it. `platform` is the
/// platform the plans were made for.
pub fn report(
    schedules: &[RegionSchedule],
    sources: &SourceMap,
    platform: &Platform,
    format: Format,
) -> String {
    let mut banks = BankTable::new();
    let mut factors = FactorTable::new();
    let plans: Vec<RegionPlan> = schedules
        .iter()
        .filter_map(|rs| {
            let mut plan = rs.plan.clone()?;
            add_staging(&rs.kernels, &mut plan, &mut banks);
            for ks in &rs.kernels {
                if let (Some(g), Some(kp)) = (
                    &ks.gain,
                    plan.kernels.iter_mut().find(|k| k.root == ks.root),
                ) {
                    kp.notes.push(gain_note(g));
                }
                if let (Some(l), Some(kp)) = (
                    &ks.lanes,
                    plan.kernels.iter_mut().find(|k| k.root == ks.root),
                ) {
                    kp.notes.push(lanes_note(l));
                }
                if let (Some(g), Some(kp)) = (
                    ks.preferred().stride,
                    plan.kernels.iter_mut().find(|k| k.root == ks.root),
                ) {
                    kp.notes.push(stride_note(&g, ks.preferred()));
                }
                if let (Some(m), Some(kp)) = (
                    &ks.micro,
                    plan.kernels.iter_mut().find(|k| k.root == ks.root),
                ) {
                    kp.notes.push(micro_note(m));
                }
                if let (Some(c), Some(kp)) = (
                    &ks.coarsening,
                    plan.kernels.iter_mut().find(|k| k.root == ks.root),
                ) {
                    kp.notes.extend(factor_notes(c));
                    factors.insert((plan.index, ks.root), c.clone());
                }
            }
            Some(plan)
        })
        .collect();
    render(&plans, sources, platform, format, &banks, &factors)
}

/// The report value of `plans` with the schedule's tables, rendered in `format`.
fn render(
    plans: &[RegionPlan],
    sources: &SourceMap,
    platform: &Platform,
    format: Format,
    banks: &BankTable,
    factors: &FactorTable,
) -> String {
    let locs: Vec<String> = plans.iter().map(|p| location(sources, p)).collect();
    let report = Report::new(plans, &locs, platform, banks, factors);
    match format {
        Format::Text => text(&report),
        Format::Json => json(&report),
    }
}

/// The bank-conflict decision of every tile of each kernel's preferred schedule, by region
/// index and nest: (array, local array, decision).
type BankTable = std::collections::BTreeMap<(usize, crate::ir::LoopId), Vec<TileBank>>;

/// The search of the outputs per work-item of each kernel, by region index and nest.
type FactorTable =
    std::collections::BTreeMap<(usize, crate::ir::LoopId), crate::schedule::regs::FactorChoice>;

/// How a reduction kernel strides over its grid (`schedule::stride`).
fn stride_note(g: &crate::schedule::stride::GridStride, s: &crate::schedule::Schedule) -> String {
    let threads: u32 = s.launch_block().iter().product();
    format!(
        "grid-stride reduction: at most {} work-groups of {} work-items per compute unit of the device (a wave on this platform); each work-item accumulates the iterations t, t+groups×{}, … of the grid's dimension {} before its work-group's tree, so the tree and the partial result are paid once per work-group, not once per {} elements",
        g.groups_per_unit,
        threads,
        s.launch_block()[usize::from(g.dim.min(2))],
        ["x", "y", "z"][usize::from(g.dim.min(2))],
        threads
    )
}

/// Whether the inner reduction loop runs across lanes (`schedule::lanes`), how, and why its
/// floating-point sums may be reordered; or why not.
fn lanes_note(
    l: &Result<crate::schedule::lanes::Lanes, crate::schedule::lanes::NoLanes>,
) -> String {
    use crate::schedule::lanes::Allowed;
    let l = match l {
        Err(why) => return format!("reduction loop not across lanes: {why}"),
        Ok(l) => l,
    };
    let vars: Vec<String> = l
        .vars
        .iter()
        .map(|v| {
            let why = match v.allowed {
                Allowed::Exact => "integer: exact in any order".to_string(),
                Allowed::Clause => format!(
                    "floating point: the sum is reordered (lanes, then a tree), allowed by the clause `reduction({}:{})` on the loop",
                    v.op.name(),
                    v.name
                ),
                Allowed::Reassociate => "floating point: the sum is reordered (lanes, then a tree), allowed by --reassociate".to_string(),
            };
            format!("`{}` ({}; {})", v.name, v.op.name(), why)
        })
        .collect();
    let why = match (l.asked, l.lanes_us > 0.0) {
        (true, true) => format!(
            "asked for by the loop's `vector`/`worker` directive (on the model: naive ~{:.1} us, across lanes ~{:.1} us, {:.2}x)",
            l.naive_us,
            l.lanes_us,
            l.speedup()
        ),
        (true, false) => "asked for by the loop's `vector`/`worker` directive (the model has no sizes: bounds not known at compile time)".to_string(),
        (false, _) => format!(
            "on the model: naive ~{:.1} us, across lanes ~{:.1} us ({:.2}x, over the {:.2}x margin)",
            l.naive_us,
            l.lanes_us,
            l.speedup(),
            crate::schedule::gain::MARGIN
        ),
    };
    format!(
        "loop `{}` runs across lanes: blocks of {} lanes × {} row{}, one output of the grid loop per row, lane t runs iterations t, t+{}, … (coalesced rows), then a tree in local memory; lane 0 runs what follows the loop; reductions {}; {}",
        l.var,
        l.lanes,
        l.rows,
        if l.rows == 1 { "" } else { "s" },
        l.lanes,
        vars.join(", "),
        why
    )
}

/// The model's comparison of the staged kernel with the unstaged one (`schedule::gain`).
fn gain_note(g: &crate::schedule::gain::Gain) -> String {
    let one = |c: &crate::schedule::regs::FactorCandidate| {
        format!(
            "{}{:.3} cycles/output ({} bound, occupancy {:.0} %)",
            c.time_us
                .map(|t| format!("~{t:.1} us, "))
                .unwrap_or_default(),
            c.cycles_per_output,
            c.bound,
            c.occupancy.fraction * 100.0
        )
    };
    format!(
        "staged vs unstaged on {} (its L1 caches global loads): staged {}×{} {}, unstaged {}: the staged kernel is {:.2}x as fast, {} the {:.2}x margin: {}",
        g.platform,
        g.staged.rows,
        g.staged.cols,
        one(&g.staged),
        one(&g.unstaged),
        g.speedup,
        if g.stage { "over" } else { "under" },
        crate::schedule::gain::MARGIN,
        if g.stage { "staged" } else { "not staged" }
    )
}

/// The model's verdict on a 2-D register micro-tile (`schedule::micro`).
fn micro_note(m: &crate::schedule::micro::Offer) -> String {
    let t = |c: &crate::schedule::regs::FactorCandidate| {
        c.time_us
            .map(|t| format!("~{t:.1} us"))
            .unwrap_or_else(|| format!("{:.3} cycles/output", c.cycles_per_output))
    };
    let b = m.shape.block();
    format!(
        "register micro-tile on {}: block tile {}×{} (k tile {}), {}×{} outputs per work-item, {}, {} work-items; {} ({} bound, {} registers, occupancy {:.0} %) against {} unstaged ({:.2}x) and {} for the schedule preferred before ({:.2}x): {} (the margin is {:.2}x)",
        m.over_unstaged.platform,
        b[0],
        b[1],
        m.ktile,
        m.shape.rows,
        m.shape.cols,
        m.shape.reads(),
        m.shape.launched.iter().product::<u32>(),
        t(&m.over_unstaged.staged),
        m.over_unstaged.staged.bound,
        m.over_unstaged.staged.registers.total(),
        m.over_unstaged.staged.occupancy.fraction * 100.0,
        t(&m.over_unstaged.unstaged),
        m.over_unstaged.speedup,
        t(&m.over_preferred.unstaged),
        m.over_preferred.speedup,
        if m.taken { "chosen" } else { "not chosen" },
        crate::schedule::gain::MARGIN,
    ) + &micro_shapes(m, &t)
}

/// The shapes a micro-tile offer estimated besides the fastest (empty where it tried one).
fn micro_shapes(
    m: &crate::schedule::micro::Offer,
    t: &dyn Fn(&crate::schedule::regs::FactorCandidate) -> String,
) -> String {
    let others: Vec<String> = m
        .tried
        .iter()
        .filter(|(s, _)| *s != m.shape)
        .map(|(s, c)| {
            let b = s.block();
            format!(
                "{}×{} ({}×{} per work-item, {}) {} ({} bound, {} registers, occupancy {:.0} %)",
                b[0],
                b[1],
                s.rows,
                s.cols,
                s.reads(),
                t(c),
                c.bound,
                c.registers.total(),
                c.occupancy.fraction * 100.0
            )
        })
        .collect();
    if others.is_empty() {
        String::new()
    } else {
        format!("; other block tiles: {}", others.join(", "))
    }
}

/// The text of the search of the outputs per work-item (notes of its kernel): one line per
/// candidate, then the choice and why.
fn factor_notes(c: &crate::schedule::regs::FactorChoice) -> Vec<String> {
    let mut out = Vec::new();
    for f in &c.candidates {
        let r = &f.registers;
        out.push(format!(
            "outputs per work-item {}×{}{}: {} work-items, ~{} registers (accumulators {}, operands {}, addresses {}, counters {}, tile copy {}, base {}), occupancy {:.0} % ({} blocks/SM, limited by {}), {:.3} cycles/output ({} bound){}: {}",
            f.rows,
            f.cols,
            if f.adjacent_rows { " (adjacent rows)" } else { "" },
            f.threads,
            r.total(),
            r.accumulators,
            r.operands,
            r.addresses,
            r.counters,
            r.copy,
            r.base,
            f.occupancy.fraction * 100.0,
            f.occupancy.blocks,
            f.occupancy.limit.name(),
            f.cycles_per_output,
            f.bound,
            f.time_us.map(|t| format!(", ~{t:.1} us")).unwrap_or_default(),
            f.verdict.text()
        ));
    }
    let (ry, rx) = c.chosen;
    match c.forced {
        Some((fy, fx)) => out.push(format!(
            "outputs per work-item: {fy}×{fx} as --ilp asks; the model on {} would choose {ry}×{rx}: {}",
            c.platform, c.why
        )),
        None => out.push(format!(
            "outputs per work-item: {ry}×{rx} chosen under register pressure on {}: {}",
            c.platform, c.why
        )),
    }
    out
}

#[derive(Clone, Debug)]
struct TileBank {
    array: String,
    local: String,
    choice: crate::schedule::stage::BankChoice,
    /// The kernel's bank mode when not the platform's default (Kepler's 8-byte banks).
    bank_mode: Option<crate::schedule::stage::BankMode>,
    /// The grouping of the tile's cooperative copies (short words), or why none.
    copy_words: Option<Result<TileWords, TileWordsRejection>>,
    elem: crate::vocab::Scalar,
    /// Written through (stored back to global memory at the kernel's end), and then whether
    /// loaded first.
    written: bool,
    load: bool,
}

use crate::schedule::words::{TileWords, TileWordsRejection};

/// The text of one short-word tile's copy decision (a note of its kernel).
fn tile_words_note(t: &TileBank) -> Option<String> {
    let d = t.copy_words.as_ref()?;
    Some(match d {
        Ok(w) => format!(
            "short-word tile copies (seed 004): `{}` ({}, {}) moved {} elements ({} bytes) per work-item with one vector load and one vector store ({}); a row's elements past its last whole vector, and those outside the range the program touches, one by one under the copy's guards",
            t.array,
            t.local,
            t.elem.c_name(),
            w.width,
            w.width * t.elem.size(),
            if w.aligned {
                "every vector word-aligned: the tile's start along x, the array's row pitch and the tile's row length are multiples of the width, with word-aligned buffers"
            } else {
                "word alignment not proven: OpenCL vloadN/vstoreN need only the element's, CUDA takes the vector type where the address is aligned at run time, element accesses elsewhere"
            }
        ),
        Err(why) => format!(
            "short-word tile copies (seed 004): `{}` ({}) copied one element per work-item: {}",
            t.array, t.local, why
        ),
    })
}

/// The text of one tile's bank decision (a note of its kernel).
fn bank_note(t: &TileBank) -> String {
    format!(
        "bank conflicts of `{}` ({}): {}: {}; degree {} → {} (first warp's wavefronts {} → {}); tree: {}",
        t.array,
        t.local,
        t.choice.technique.name(),
        t.choice.why,
        t.choice.degree_before,
        t.choice.degree_after,
        t.choice.wavefronts_before,
        t.choice.wavefronts_after,
        t.choice.path.join("; ")
    )
}

/// What the schedule does with each kernel's plan: its notes (mapping, tuning, register tiles,
/// short words, staging), its block order, and the staging-time reasons of the arrays it left
/// in global memory in `rejected`.
fn add_staging(kernels: &[KernelSchedule], rp: &mut RegionPlan, banks: &mut BankTable) {
    for kp in &mut rp.kernels {
        let Some(ks) = kernels.iter().find(|k| k.root == kp.root) else {
            continue;
        };
        let s = ks.preferred();
        kp.notes.extend(mapping_note(ks));
        if let Origin::Tuned { device, entry } = &ks.origin {
            kp.notes.push(tuned_note(device, entry));
        }
        kp.notes.extend(micro_tile_note(s));
        kp.notes.extend(words_note(ks));
        kp.block_order = s.channels.as_ref().map(|m| partition::BlockOrderNote {
            order: s.block_order.name(),
            wave: m.wave,
            linear: m.linear,
            diagonal: m.column_walk.as_ref().map(|_| (m.diagonal, m.skew)),
            column_walk: m.column_walk.clone(),
            reason: m.reason.to_string(),
        });
        if kp.best.is_none() {
            continue;
        }
        let Some(spec) = &s.stage else {
            continue;
        };
        if spec.arrays.is_empty() {
            kp.notes
                .push("--opt share: nothing staged in the generated code".to_string());
        } else {
            let tiles = stage_notes(&mut kp.notes, s, spec);
            banks.insert((rp.index, kp.root), tiles);
        }
        for (a, why) in &spec.rejected {
            kp.rejected.push(crate::partition::Rejection::new(
                a.clone(),
                crate::partition::Reason::NotStaged(why.to_string()),
            ));
        }
    }
}

/// The register micro-tile of an unstaged schedule with several outputs per work-item (a
/// transposed vector tile is reported by its own note, `words_note`).
fn micro_tile_note(s: &Schedule) -> Option<String> {
    if s.staged().is_some() || s.shape.outputs() <= 1 || s.rows_adjacent() {
        return None;
    }
    let [x, y, z] = s.launch_block();
    let layout = match s.shape.layout {
        crate::schedule::ColLayout::Cyclic => "cyclic",
        crate::schedule::ColLayout::Contiguous => "adjacent: SIMD lanes for a CPU compiler",
    };
    let whole = match (s.full_tile_path, s.serial_edges()) {
        (true, true) => "; work-items whose outputs are all in range run an unguarded copy, those at an edge compute their outputs one after another",
        (true, false) => "; work-items whose outputs are all in range run an unguarded copy",
        _ => "",
    };
    Some(format!(
        "register micro-tile without shared memory: {} outputs per work-item ({} × {}, {}), block [{}, {}, {}] launched as [{}, {}, {}]; loads shared by a row or a column of the tile are made once{}",
        s.shape.outputs(),
        plural(s.shape.rows.get(), "row"),
        plural(s.shape.cols.get(), "column"),
        layout,
        s.shape.block[0],
        s.shape.block[1],
        s.shape.block[2],
        x,
        y,
        z,
        whole
    ))
}

/// The notes of a schedule that stages `spec`'s arrays (at least one): what is staged, the
/// bank mode, each tile's bank and copy decisions, the access reorder. Returns the tiles.
fn stage_notes(notes: &mut Vec<String>, s: &Schedule, spec: &StageSpec) -> Vec<TileBank> {
    notes.push(staged_note(s, spec));
    let tiles: Vec<TileBank> = spec
        .arrays
        .iter()
        .map(|a| TileBank {
            array: a.name.clone(),
            local: a.local.clone(),
            choice: a.bank.clone(),
            bank_mode: spec.bank_mode,
            copy_words: a.copy_words.clone(),
            elem: a.elem,
            written: a.written,
            load: a.load,
        })
        .collect();
    if let Some(m) = &spec.bank_mode {
        notes.push(format!(
            "bank mode: {}-byte banks (the platform's default is {} bytes), set by the CUDA host code before the launch (cudaFuncSetSharedMemConfig; an OpenCL host cannot select it and runs the default): the tiles' first-warp wavefronts {} → {}, degree {} → {}, shared memory {} → {} B",
            m.width,
            m.default_width,
            m.waves_default,
            m.waves,
            m.degree_default,
            m.degree,
            m.bytes_default,
            m.bytes
        ));
    }
    notes.extend(tiles.iter().map(bank_note));
    notes.extend(tiles.iter().filter_map(tile_words_note));
    if let (Some(r), Some(st)) = (&spec.reorder, &spec.strip) {
        notes.push(reorder_note(r, st));
    }
    tiles
}

/// `--opt share stages …`: the staged arrays, the shared memory, the block, the strip-mined
/// loop and the outputs per work-item.
fn staged_note(s: &Schedule, spec: &StageSpec) -> String {
    let names: Vec<String> = spec.arrays.iter().map(staged_array_text).collect();
    let mut strip = spec
        .strip
        .as_ref()
        .map(|st| format!(", loop `{}` strip-mined by {}", st.var, st.size))
        .unwrap_or_default();
    // Adjacent rows (`schedule::rows`): the rows the outputs' reads share are loaded once.
    let adjacent = match (s.shape.adjacent_rows, spec.unroll_loops.as_slice()) {
        (false, _) => String::new(),
        (true, []) => " (adjacent: the rows their reads share are loaded once)".to_string(),
        (true, loops) => {
            let names: Vec<String> = loops.iter().map(|u| format!("`{}`", u.var)).collect();
            format!(
                " (adjacent: the rows their reads share are loaded once; {} unrolled)",
                names.join(", ")
            )
        }
    };
    if s.shape.rows.get() > 1 && s.shape.cols.get() == 1 {
        let [x, y, z] = s.launch_block();
        strip.push_str(&format!(
            ", {} rows per work-item{adjacent}: launched as [{}, {}, {}]",
            s.shape.rows, x, y, z
        ));
    } else if s.shape.cols.get() > 1 {
        let [x, y, z] = s.launch_block();
        strip.push_str(&format!(
            ", {}×{} outputs per work-item (rows × columns){adjacent}: launched as [{}, {}, {}]",
            s.shape.rows, s.shape.cols, x, y, z
        ));
    }
    format!(
        "--opt share stages {} in the generated code ({} B of shared memory, block [{}, {}, {}]{})",
        names.join(", "),
        spec.smem_bytes(),
        s.shape.block[0],
        s.shape.block[1],
        s.shape.block[2],
        strip
    )
}

/// `a.f[16][17] (…)`: a staged tile, its field, extents, layout and write-through.
fn staged_array_text(a: &StagedArray) -> String {
    let dims: Vec<String> = a.dims.iter().map(|d| d.extent.to_string()).collect();
    let how = match (a.written, a.load) {
        (false, _) => "",
        (true, false) => " (written through: stored back coalesced)",
        (true, true) => " (written through: loaded first, stored back coalesced)",
    };
    let last = a.dims.last().map_or(a.row_len, |d| d.extent);
    let pad = if a.vector_reads > 1 && a.transposed {
        format!(
            " (stored k-major, columns of {}, read as {}-element vectors)",
            a.strides()[1],
            a.vector_reads
        )
    } else if a.vector_reads > 1 {
        format!(
            " (rows of {}, read as {}-element vectors)",
            a.row_len, a.vector_reads
        )
    } else if a.transposed {
        " (stored transposed against bank conflicts)".to_string()
    } else if a.row_len != last {
        format!(" (rows padded to {} against bank conflicts)", a.row_len)
    } else {
        String::new()
    };
    let (field, soa) = match (&a.field, a.interleave) {
        (Some(f), _) => (
            format!(".{}", f.name),
            " (AoS → SoA: a tile per field)".to_string(),
        ),
        (None, Some(il)) => (
            String::new(),
            format!(
                " (AoS → SoA: the elements {} of the interleaved array)",
                il.elements()
            ),
        ),
        (None, None) => (String::new(), String::new()),
    };
    format!(
        "{}{}[{}]{}{}{}",
        a.name,
        field,
        dims.join("]["),
        soa,
        pad,
        how
    )
}

/// The access reorder against bank conflicts of the strip-mined loop `st`.
fn reorder_note(r: &Reorder, st: &Strip) -> String {
    let reds: Vec<String> = r
        .reductions
        .iter()
        .map(|(n, o)| format!("`{}` ({})", n, o.name()))
        .collect();
    format!(
        "access reorder: each work-item runs the {} iterates of strip-mined loop `{}` from its local x mod {} on (reduction into {}): {}",
        st.size,
        st.var,
        st.size,
        reds.join(", "),
        if r.exact {
            "integer, the result is exact"
        } else {
            "floating point reassociated under --reassociate: sums may differ in the last bits from the sequential order"
        }
    )
}

/// What the schedule did with the kernel's short words (seed 004): which arrays are grouped, at
/// which width, how, and why not.
fn words_note(ks: &KernelSchedule) -> Option<String> {
    use crate::schedule::words::NoWords;
    let s = ks.preferred();
    let decided = ks.words.as_ref()?;
    let rejected = |w: &crate::schedule::words::Words| -> String {
        w.rejected
            .iter()
            .map(|(a, why)| format!("; `{}` not grouped: {}", a, why))
            .collect()
    };
    match (&s.words, decided) {
        (Some(w), _) => {
            let [x, y, z] = s.launch_block();
            let arrays: Vec<String> = w
                .arrays
                .iter()
                .map(|a| {
                    let t = a.elem.c_name();
                    let along = if a.along_y { "column" } else { "row" };
                    match (a.loads, a.stores) {
                        (true, _) => format!(
                            "`{}` ({}) loads grouped per {} into vectors of up to {} lanes",
                            a.name, t, along, a.max_lanes
                        ),
                        (false, _) if w.rows > 1 => format!(
                            "`{}` ({}) stores grouped per {} into vectors of {} lanes",
                            a.name, t, along, w.width
                        ),
                        (false, _) => format!(
                            "`{}` ({}) stores grouped into one vector of {} lanes",
                            a.name, t, w.width
                        ),
                    }
                })
                .collect();
            let (what, outputs, cuda) = if w.rows > 1 {
                (
                    "transposed vector tile",
                    format!(
                        "{}×{} adjacent outputs per work-item (rows and columns), so that an array accessed along y is accessed as vectors along y instead of gathered or scattered across work-items",
                        w.rows, w.width
                    ),
                    "vectors of up to 16 bytes (uchar4, float4, double2)",
                )
            } else {
                (
                    "short words (seed 004)",
                    format!("{} consecutive outputs along x per work-item", w.width),
                    "4-byte vectors (uchar4, short2)",
                )
            };
            Some(format!(
                "{}: {} (block [{}, {}, {}] launched as [{}, {}, {}]); {}{}; OpenCL vloadN/vstoreN (element alignment suffices), CUDA {} where the address is aligned at run time, else element accesses; a work-item with an output outside the bounds (edge) runs the scalar copies under their guards",
                what,
                outputs,
                s.shape.block[0],
                s.shape.block[1],
                s.shape.block[2],
                x,
                y,
                z,
                arrays.join(", "),
                rejected(w),
                cuda
            ))
        }
        (None, Ok(w)) => Some(format!(
            "short words (seed 004): not grouped: {}{}",
            if s.staged().is_some() {
                "the kernel is staged (its short words are read from shared memory; its tile copies are grouped instead where they can be)"
            } else if s.shape.outputs() > 1 {
                "a register micro-tile takes the outputs per work-item"
            } else {
                "the schedule keeps one output per work-item"
            },
            rejected(w)
        )),
        (None, Err(NoWords::NoShortWords)) => None,
        (None, Err(why @ (NoWords::SmallTile { .. } | NoWords::ConditionalTile { .. }))) => {
            Some(why.to_string())
        }
        (None, Err(why)) => Some(format!("short words (seed 004): not grouped: {}", why)),
    }
}

/// `n thing` or `n things`.
fn plural(n: u32, thing: &str) -> String {
    if n == 1 {
        format!("1 {}", thing)
    } else {
        format!("{} {}s", n, thing)
    }
}

/// Which loop goes on x, when the candidates differ: each with the memory sectors a warp's
/// accesses touch (`analysis::mapping::mapping_costs`).
fn mapping_note(ks: &KernelSchedule) -> Option<String> {
    let (first, rest) = ks.mapping.split_first()?;
    if rest.iter().all(|c| c.2 == first.2) {
        return None;
    }
    let x = ks.preferred().grid.iter().find(|g| g.dim == 0)?.loop_id;
    let chosen = ks.mapping.iter().find(|c| c.0 == x)?;
    let all: Vec<String> = ks
        .mapping
        .iter()
        .map(|(_, v, n)| format!("`{}` {}", v, n))
        .collect();
    let fewest = ks.mapping.iter().map(|c| c.2).min().unwrap_or(chosen.2);
    let kept = if chosen.2 > fewest {
        "; kept on x because a `share` pragma, `cache` directive or `vector_length` names the block's dimensions"
    } else {
        ""
    };
    Some(format!(
        "loop `{}` on x (consecutive work-items): memory sectors per warp, weighted by the loops around each reference: {}{}",
        chosen.1,
        all.join(", "),
        kept
    ))
}

/// What a measured schedule replaces: the variant `accshare tune` found fastest on `device`,
/// and the model's choice with its time in the same run.
fn tuned_note(device: &str, e: &TunedKernel) -> String {
    let model = match e.model_seconds {
        Some(m) if e.model != e.variant => format!(
            "; the model chose {} ({:.4} s, {:.2}× slower)",
            e.model,
            m,
            m / e.seconds.max(1e-12)
        ),
        Some(_) => "; the model chose the same".to_string(),
        None => format!("; the model chose {} (it did not run)", e.model),
    };
    format!(
        "tuned on {} (accshare tune cache): {}, {:.4} s per run{}",
        device, e.variant, e.seconds, model
    )
}

/// The report of plans already computed.
pub fn report_plans(
    plans: &[RegionPlan],
    sources: &SourceMap,
    platform: &Platform,
    format: Format,
) -> String {
    render(
        plans,
        sources,
        platform,
        format,
        &BankTable::new(),
        &FactorTable::new(),
    )
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
