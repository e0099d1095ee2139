use super::*;
use crate::schedule::{
    schedule_region, KernelSchedule, OptLevel, Options, ShapeRequest, WorkShape,
};

/// The schedules of the first kernel of `src` on `platform` (`--opt share`, `--ilp` as given),
/// with the region's IR.
fn schedule(src: &str, platform: &str, ilp: Option<(u32, u32)>) -> (Region, KernelSchedule) {
    let (r, d) = crate::schedule::tests::first_region(src);
    let mut diags = crate::diag::Diags::new();
    let p = Platform::load(platform).unwrap();
    let opts = Options {
        opt: OptLevel::Share,
        platform: Some(crate::schedule::stage::code_platform(&p)),
        shape: ilp.map_or_else(ShapeRequest::default, |(r, c)| ShapeRequest::tile(r, c)),
        ..Default::default()
    };
    let mut rs = schedule_region(&r, &d, 0, &opts, &mut diags);
    (r.ir.clone(), rs.kernels.remove(0))
}

fn gemm(ty: &str) -> String {
    format!(
        "
void gemm({ty} C[256][256], {ty} A[256][256], {ty} B[256][256])
{{
int i, j, k;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent
for (i = 0; i < 256; i++) {{
#pragma acc loop independent
    for (j = 0; j < 256; j++) {{
        {ty} s = 0;
        for (k = 0; k < 256; k++)
            s += A[i][k] * B[k][j];
        C[i][j] = s;
    }}
}}
}}"
    )
}

#[test]
fn the_estimate_counts_accumulators_fragments_addresses_and_counters() {
    let (ir, ks) = schedule(&gemm("float"), "a100", None);
    let staged = ks.candidates.iter().find(|c| c.staged().is_some()).unwrap();
    let at = |ry: u32, rx: u32| {
        estimate(
            &ir,
            &Schedule {
                shape: staged.shape.with_tile(ry, rx),
                ..staged.clone()
            },
        )
    };
    // One output: `s`, one copy of A[i][k] and of B[k][j]; three global arrays (2 each), two
    // tiles, the two references of the k loop; i, j, k and the strip loop; each tile copied by
    // the block's work-items (index, bound, its elements per work-item in flight).
    let one = at(1, 1);
    let threads = staged.shape.block.iter().product::<u32>();
    let copy: u32 = staged
        .staged()
        .unwrap()
        .arrays
        .iter()
        .map(|t| 1 + t.len().div_ceil(threads).clamp(1, COPY_IN_FLIGHT))
        .sum();
    assert_eq!(
        one,
        RegEstimate {
            accumulators: 1,
            operands: 2,
            addresses: 6 + 2 + 2,
            counters: 4,
            copy,
            base: BASE_REGISTERS,
        }
    );
    assert_eq!(one.total(), 25 + copy);
    // 8 rows: an eighth of the work-items copy 8 times the elements (at most COPY_IN_FLIGHT).
    assert!(at(8, 1).copy > copy);
    // 4 rows: 4 accumulators, A[i][k] once per row (4), B[k][j] once (shared by the column).
    let four = at(4, 1);
    assert_eq!((four.accumulators, four.operands), (4, 5));
    // 4×4: 16 accumulators, 4 + 4 fragments (the outer-product update).
    let tile = at(4, 4);
    assert_eq!((tile.accumulators, tile.operands), (16, 8));
    // Doubles take two registers each.
    let (ir, ks) = schedule(&gemm("double"), "a100", None);
    let staged = ks.candidates.iter().find(|c| c.staged().is_some()).unwrap();
    let d = estimate(
        &ir,
        &Schedule {
            shape: staged.shape.with_tile(4, 4),
            ..staged.clone()
        },
    );
    assert_eq!((d.accumulators, d.operands), (32, 16));
}

#[test]
fn occupancy_is_limited_by_registers() {
    let p = Platform::load("gtx690").unwrap();
    // 256 work-items at 32 registers: 8 blocks (threads and registers both allow 8).
    let o = p.occupancy(256, 0, 32);
    assert_eq!((o.blocks, o.fraction, o.spills), (8, 1.0, false));
    // 33 registers are allocated 40: 65536 / (40 × 256) = 6 blocks, limited by registers.
    let o = p.occupancy(256, 0, 33);
    assert_eq!((o.blocks, o.limit), (6, OccupancyLimit::Registers));
    assert_eq!(o.fraction, 0.75);
    // Over CC 3.0's 63 registers per thread: it spills (counted at the maximum, 64 allocated).
    let o = p.occupancy(256, 0, 100);
    assert!(o.spills);
    assert_eq!(o.blocks, 4);
    // Seed 002's occupancy arithmetic on CC 2.0 (8 registers per thread): 512, 256, 128, 64
    // and 32 threads per block give 100, 100, 67, 33 and 17 %.
    let p = Platform::load("c2050").unwrap();
    let pct: Vec<u32> = [512, 256, 128, 64, 32]
        .iter()
        .map(|&t| (p.occupancy(t, 0, 8).fraction * 100.0).round() as u32)
        .collect();
    assert_eq!(pct, [100, 100, 67, 33, 17]);
    // AMD GCN: 64-wide wavefronts, VGPRs in granules of 4 (hd7850).
    let p = Platform::load("hd7850").unwrap();
    let o = p.occupancy(256, 0, 130);
    // 130 → 132 VGPRs: 65536 / (132 × 256) = 1 block of 4 wavefronts.
    assert_eq!((o.blocks, o.limit), (1, OccupancyLimit::Registers));
}

#[test]
fn a_factor_over_the_register_limit_is_rejected() {
    // Double gemm on gtx690 (63 registers per thread): 8×8 outputs need 128 registers of
    // accumulators alone.
    let (_, ks) = schedule(&gemm("double"), "gtx690", None);
    let c = ks.coarsening.as_ref().expect("a search on a GPU");
    // Every candidate the search lists fits 63 registers or is rejected for spilling.
    for f in &c.candidates {
        if f.registers.total() > 63 {
            assert_eq!(f.verdict, Verdict::Spills { max: 63 });
        }
    }
    let chosen = c
        .candidates
        .iter()
        .find(|f| f.verdict == Verdict::Chosen)
        .unwrap();
    assert!(chosen.registers.total() <= 63, "{chosen:?}");
    assert!(!chosen.occupancy.spills);
    assert_eq!(
        ks.preferred().shape.tile(),
        c.chosen,
        "the preferred schedule is the model's choice"
    );
    // Forced with --ilp 8x8: the factor asked for is kept, the search still says what the
    // model would choose.
    let (_, forced) = schedule(&gemm("double"), "gtx690", Some((8, 8)));
    assert_eq!(forced.preferred().shape.tile(), (8, 8));
    let f = forced.coarsening.as_ref().unwrap();
    assert_eq!(f.forced, Some((8, 8)));
    assert_eq!(f.chosen, c.chosen);
    let asked = f
        .candidates
        .iter()
        .find(|f| (f.rows, f.cols) == (8, 8))
        .expect("the forced factor is listed");
    assert!(asked.registers.total() > 63 && asked.occupancy.spills);
    assert_eq!(asked.verdict, Verdict::Spills { max: 63 });
    assert_ne!(f.chosen, (8, 8));
    // On a100 (255 registers per thread) the same 8×8 tile fits.
    let (_, a100) = schedule(&gemm("double"), "a100", Some((8, 8)));
    let asked = a100
        .coarsening
        .as_ref()
        .unwrap()
        .candidates
        .iter()
        .find(|f| (f.rows, f.cols) == (8, 8))
        .unwrap()
        .clone();
    assert!(!asked.occupancy.spills, "{asked:?}");
}

#[test]
fn every_candidate_is_a_legal_factor_with_a_verdict() {
    let (_, ks) = schedule(&gemm("float"), "a100", None);
    let c = ks.coarsening.as_ref().unwrap();
    assert_eq!(
        c.candidates
            .iter()
            .filter(|f| f.verdict == Verdict::Chosen)
            .count(),
        1
    );
    for f in &c.candidates {
        assert!(f.rows.is_power_of_two() && f.cols.is_power_of_two());
        assert_eq!(32 % f.rows, 0);
        assert!(f.cycles_per_output.is_finite() && f.cycles_per_output > 0.0);
        // A 32-wide block keeps one column per work-item (a warp spans a row).
        assert_eq!(f.cols, 1);
    }
}

/// A 5-point stencil without a tile and without a sequential loop: what is live at the loads is
/// each distinct element read once (the repeated `A[i][j]` is loaded once), the two arrays'
/// addresses and the grid coordinates; the base is a floor, not added (nothing runs across a
/// loop: no running offsets).
#[test]
fn a_loop_free_stencil_counts_what_is_live_at_the_loads() {
    let src = "
void jacobi(float A[512][512], float B[512][512])
{
int i, j;
#pragma acc kernels loop independent
for (i = 1; i < 511; i++) {
#pragma acc loop independent
    for (j = 1; j < 511; j++)
        B[i][j] = A[i][j] + 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
}
}";
    let (ir, ks) = schedule(src, "gtx690", None);
    let plain = ks.candidates.iter().find(|c| c.staged().is_none()).unwrap();
    let one = estimate(
        &ir,
        &Schedule {
            shape: plain.shape.with_tile(1, 1),
            ..plain.clone()
        },
    );
    assert_eq!(
        one,
        RegEstimate {
            accumulators: 0,
            operands: 5,
            addresses: 4,
            counters: 2,
            copy: 0,
            base: 0,
        }
    );
    assert_eq!(one.total(), 11);
    // A copy: under the floor, BASE_REGISTERS (the smallest kernels' count).
    let copy = "
void copy(float A[512][512], float B[512][512])
{
int i, j;
#pragma acc kernels loop independent
for (i = 0; i < 512; i++) {
#pragma acc loop independent
    for (j = 0; j < 512; j++)
        B[i][j] = A[i][j];
}
}";
    let (ir, ks) = schedule(copy, "gtx690", None);
    let plain = ks.preferred().clone();
    let at = |f: u32| {
        estimate(
            &ir,
            &Schedule {
                shape: plain.shape.with_tile(f, 1),
                ..plain.clone()
            },
        )
    };
    assert_eq!(at(1).total(), BASE_REGISTERS);
    // 8 outputs: one value in flight and one guard per output, the addresses and coordinates.
    let eight = at(8);
    assert_eq!((eight.operands, eight.counters), (8, 2 + 8));
    assert_eq!(eight.total(), 8 + 4 + 10);
}

#[test]
fn adjacent_rows_cut_the_shared_loads_and_instructions_the_model_counts() {
    use crate::schedule::rows::tests as rows;
    let p = Platform::load("h100").unwrap();
    let (ir, ks) = rows::schedule(&rows::filter(5), "h100", Some(4), true);
    let s = rows::staged(&ks).clone();
    assert!(s.shape.adjacent_rows);
    let cyclic = Schedule {
        shape: WorkShape {
            adjacent_rows: false,
            ..s.shape
        },
        ..s.clone()
    };
    let (a, c) = (
        NestCounts::new(&ir, &s, &p),
        NestCounts::new(&ir, &cyclic, &p),
    );
    // Per output: 15 loads of `in` (5 taps × 3 columns) apart, 8 rows × 3 columns over 4
    // outputs adjacent; one wavefront each per warp (32 bytes).
    assert!(
        (c.shared_wavefronts_per_output - 15.0 / 32.0).abs() < 1e-9,
        "{}",
        c.shared_wavefronts_per_output
    );
    assert!(
        (a.shared_wavefronts_per_output - 6.0 / 32.0).abs() < 1e-9,
        "{}",
        a.shared_wavefronts_per_output
    );
    assert!(a.instr_per_output < c.instr_per_output);
}
