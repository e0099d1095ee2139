use super::*;
use crate::schedule::{schedule_region, KernelSchedule, OptLevel, Options, ShapeRequest};

/// The schedules of the first kernel of `src` on `platform` (`--opt share`, `--ilp` rows as
/// given), with the region's IR.
pub(in crate::schedule) fn schedule(
    src: &str,
    platform: &str,
    rows: Option<u32>,
    adjacent: bool,
) -> (Region, KernelSchedule) {
    let (r, d) = crate::schedule::tests::first_region(src);
    let mut diags = crate::diag::Diags::new();
    let p = crate::model::Platform::load(platform).unwrap();
    let mut opts = Options {
        opt: OptLevel::Share,
        platform: Some(crate::schedule::stage::code_platform(&p)),
        shape: rows.map_or_else(ShapeRequest::default, |r| ShapeRequest::tile(r, 1)),
        ..Default::default()
    };
    opts.stage.adjacent_rows = adjacent;
    let mut rs = schedule_region(&r, &d, 0, &opts, &mut diags);
    (r.ir.clone(), rs.kernels.remove(0))
}

/// A 2-D filter of `taps` rows (`di` from `-taps/2`) over a u8 image, its rows summed by a
/// sequential loop (Gauss's form).
pub(in crate::schedule) fn filter(taps: i64) -> String {
    let h = taps / 2;
    format!(
        "
void f(unsigned char out[512][512], unsigned char in[512][512])
{{
int i, j, di;
#pragma acc parallel loop collapse(2)
for (i = {h}; i < 512 - {h}; i++)
    for (j = 2; j < 510; j++) {{
        int s = 0;
        for (di = -{h}; di <= {h}; di++)
            s += in[i + di][j - 1] + 2 * in[i + di][j] + in[i + di][j + 1];
        out[i][j] = (unsigned char)(s >> 4);
    }}
}}"
    )
}

const HOTSPOT: &str = "
void h(float r[512][512], float t[512][512], float p[512][512])
{
int i, j;
#pragma acc share(t[TB_Y][TB_X])
#pragma acc kernels loop independent
for (i = 1; i < 511; i++)
#pragma acc loop independent
    for (j = 1; j < 511; j++)
        r[i][j] = t[i][j] + 0.1f * (t[i - 1][j] + t[i + 1][j] + t[i][j - 1] + t[i][j + 1] - 4.0f * t[i][j]) + p[i][j];
}";

const GEMM: &str = "
void g(float C[256][256], float A[256][256], float B[256][256])
{
int i, j, k;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent
for (i = 0; i < 256; i++)
#pragma acc loop independent
    for (j = 0; j < 256; j++) {
        float s = 0;
        for (k = 0; k < 256; k++)
            s += A[i][k] * B[k][j];
        C[i][j] = s;
    }
}";

pub(in crate::schedule) fn staged(ks: &KernelSchedule) -> &Schedule {
    ks.candidates
        .iter()
        .find(|c| c.staged().is_some())
        .expect("a staged candidate")
}

#[test]
fn a_filter_along_y_and_a_stencil_get_adjacent_rows() {
    for src in [filter(5), filter(3), HOTSPOT.to_string()] {
        let (ir, ks) = schedule(&src, "a100", Some(4), true);
        let s = staged(&ks);
        assert_eq!(s.shape.rows.get(), 4, "{src}");
        assert!(rows_overlap(&ir, s), "{src}");
        assert!(s.shape.adjacent_rows && s.rows_adjacent(), "{src}");
        // Copy `b` of a work-item is `b` rows below its first.
        assert_eq!(
            (0..4).map(|b| s.copy_offset(1, b)).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
    }
}

#[test]
fn reads_without_overlap_along_y_keep_cyclic_rows() {
    let (ir, ks) = schedule(GEMM, "a100", Some(4), true);
    let s = staged(&ks);
    assert!(!rows_overlap(&ir, s));
    assert!(!s.shape.adjacent_rows);
    let launched = s.launch_block()[1];
    assert_eq!(s.copy_offset(1, 1), launched);
}

#[test]
fn adjacent_rows_off_keeps_cyclic_rows() {
    let (ir, ks) = schedule(&filter(5), "a100", Some(4), false);
    let s = staged(&ks);
    assert!(rows_overlap(&ir, s));
    assert!(!s.shape.adjacent_rows);
}

#[test]
fn one_row_per_work_item_is_not_adjacent() {
    let (_, ks) = schedule(&filter(5), "a100", Some(1), true);
    assert!(!staged(&ks).shape.adjacent_rows);
}

#[test]
fn distinct_loads_count_the_rows_the_copies_share() {
    // 4 adjacent rows of a 5-row filter of 3 columns, its tap loop unrolled: rows -2..=5 (8),
    // 3 elements each, over the 5 iterations; cyclic rows load 4 × 3 per iteration.
    let (ir, ks) = schedule(&filter(5), "a100", Some(4), true);
    let s = staged(&ks);
    let inner = super::super::regs::inner_sequential(&ir, s);
    let reads = || nest_reads(&ir, s).filter(|a| a.array == "in");
    let adjacent = distinct_loads(&ir, s, inner, reads());
    assert!((adjacent - 8.0 * 3.0 / 5.0).abs() < 1e-9, "{adjacent}");
    let cyclic = Schedule {
        shape: WorkShape {
            adjacent_rows: false,
            ..s.shape
        },
        ..s.clone()
    };
    let apart = distinct_loads(
        &ir,
        &cyclic,
        inner,
        nest_reads(&ir, &cyclic).filter(|a| a.array == "in"),
    );
    assert!((apart - 12.0).abs() < 1e-9, "{apart}");
    // Hotspot without a loop: `t`'s centre column rows -1..=4 (6) and 4 rows of each side.
    let (ir, ks) = schedule(HOTSPOT, "a100", Some(4), true);
    let s = staged(&ks);
    let t = distinct_loads(&ir, s, None, nest_reads(&ir, s).filter(|a| a.array == "t"));
    assert_eq!(t, 14.0);
}

/// A `taps`×`taps` filter over a float image written as two tap loops (`di` over rows, `dj`
/// over columns) inside a loop over `planes` weight planes that moves no subscript of `in`.
fn filter2(taps: i64, planes: i64) -> String {
    let h = taps / 2;
    format!(
        "
void f(float out[512][512], float in[512][512], float K[{planes}][{taps}][{taps}])
{{
int i, j, c, di, dj;
#pragma acc parallel loop collapse(2)
for (i = {h}; i < 512 - {h}; i++)
    for (j = {h}; j < 512 - {h}; j++) {{
        float s = 0.0f;
        for (c = 0; c < {planes}; c++)
            for (di = -{h}; di <= {h}; di++)
                for (dj = -{h}; dj <= {h}; dj++)
                    s += K[c][di + {h}][dj + {h}] * in[i + di][j + dj];
        out[i][j] = s;
    }}
}}"
    )
}

/// The loop of `ir` whose iterator is `var`.
fn loop_named(ir: &Region, var: &str) -> LoopId {
    ir.loops.iter().find(|l| l.var == var).unwrap().id
}

#[test]
fn two_tap_loops_unroll_from_the_loop_the_rows_move_along() {
    // 3×3 in two loops: `di` (the rows the outputs share move along it) and `dj` inside it,
    // not the plane loop `c` around them.
    let (ir, ks) = schedule(&filter2(3, 2), "a100", Some(4), true);
    let s = staged(&ks);
    assert!(s.shape.adjacent_rows);
    let (di, dj) = (loop_named(&ir, "di"), loop_named(&ir, "dj"));
    let unrolled = |s: &Schedule| -> Vec<LoopId> {
        s.staged()
            .unwrap()
            .unroll_loops
            .iter()
            .map(|u| u.loop_id)
            .collect()
    };
    assert_eq!(unrolled(s), [di, dj]);
    // Rows -1..=4 (6) × 3 columns over the 9 iterations: 2 per iteration (4 when `di` is
    // rolled: 4 rows × 3 columns per 3 iterations).
    let inner = super::super::regs::inner_sequential(&ir, s);
    let reads = || nest_reads(&ir, s).filter(|a| a.array == "in");
    let loads = distinct_loads(&ir, s, inner, reads());
    assert!((loads - 2.0).abs() < 1e-9, "{loads}");
    // 7×7 (49 iterations) is over the bound: the inner tap loop alone.
    let (ir, ks) = schedule(&filter2(7, 1), "a100", Some(4), true);
    let s = staged(&ks);
    assert!(s.shape.adjacent_rows);
    assert_eq!(unrolled(s), [loop_named(&ir, "dj")]);
}
