//! Unit tests of every formula against values worked by hand, on small C sources.

use super::features::{self, Adjacency};
use super::*;
use crate::analysis::dependence;
use crate::diag::{Diags, SourceMap};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::find_regions;

/// The regions of a C source (panics on front-end errors: the sources here are fixed).
fn regions(src: &str) -> Vec<Region> {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let main = sources.add("t.c", "t.c".into(), src.to_string());
    let parsed = crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
    let rs = find_regions(&parsed.tu, &sources, &mut diags);
    assert!(
        !diags.has_errors(),
        "{}",
        crate::diag::render(&sources, &diags.iter().cloned().collect::<Vec<_>>())
    );
    rs.compute.into_iter().map(|r| r.ir).collect()
}

fn plan(src: &str, platform: &str) -> RegionPlan {
    let r = regions(src).remove(0);
    let d = dependence::analyze(&r);
    analyze_region(
        &r,
        &d,
        0,
        &Platform::load(platform).unwrap(),
        &Options::default(),
    )
}

/// The paper's Fig. 2(a) with a symbolic `n` (representative 4096 unless `sizes` says).
const GEMM: &str = "
void gemm(int n, float alpha, float beta, float C[4096][4096], float A[4096][4096], float B[4096][4096])
{
    int i, j, k;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent
    for (i = 0; i < n; i++) {
#pragma acc loop independent
        for (j = 0; j < n; j++) {
            float ab = 0.0f;
            for (k = 0; k < n; k++)
                ab += A[i][k] * B[k][j];
            C[i][j] = alpha * ab + beta * C[i][j];
        }
    }
}
";

fn gemm_nest(n: i64) -> (Region, Nest) {
    let r = regions(GEMM).remove(0);
    let d = dependence::analyze(&r);
    let mut opts = Options::default();
    opts.sizes.insert("n".into(), n);
    let nest = nest::build(&r, &d, r.roots[0], &opts).unwrap();
    (r, nest)
}

#[test]
fn gemm_mapping_phi_and_q() {
    let (_, nest) = gemm_nest(256);
    let names: Vec<(&str, &str)> = nest
        .mapped
        .iter()
        .map(|(l, d)| (nest.name(*l), d.name()))
        .collect();
    assert_eq!(names, vec![("i", "TB_Y"), ("j", "TB_X")]);
    let seq: Vec<&str> = nest.sequential().iter().map(|l| nest.name(*l)).collect();
    assert_eq!(seq, vec!["k"]);
    assert_eq!(nest.sizes_used.get("n"), Some(&256));
}

#[test]
fn gemm_candidates_add_c_through_sum() {
    let r = regions(GEMM).remove(0);
    let (_, nest) = gemm_nest(256);
    let seeds = Seeds::of_region(&r);
    assert_eq!(seeds.params.len(), 2);
    assert_eq!(
        (
            seeds.params[0].name.as_str(),
            seeds.params[0].array.as_str()
        ),
        ("k1", "B")
    );
    assert_eq!(
        (
            seeds.params[1].name.as_str(),
            seeds.params[1].array.as_str()
        ),
        ("k2", "A")
    );
    let c = candidates::select(&r, &nest, &seeds);
    let names: Vec<&str> = c.iter().map(|c| c.array.as_str()).collect();
    assert_eq!(names, vec!["A", "B", "C"]);
    assert!(c[2].reason.contains("scalar `ab`"), "{}", c[2].reason);
}

#[test]
fn gemm_adjacency_a_in_coalesce_set_b_not() {
    let (_, nest) = gemm_nest(256);
    let verdict = |a: &str| {
        let r = nest.refs.iter().find(|r| r.array == a).unwrap();
        features::adjacency(&nest, r)
    };
    assert!(matches!(verdict("A"), Adjacency::Time(_)));
    assert_eq!(verdict("B"), Adjacency::Coalesced);
    assert_eq!(verdict("C"), Adjacency::Coalesced);
}

#[test]
fn gemm_reuse_sizes_by_hand() {
    let n = 256;
    let (_, nest) = gemm_nest(n);
    let p = Platform::load("gtx690").unwrap();
    // The paper's "reuse of A is TB_Y·n·n": over A's own subspace IS_A, where j is not split
    // (a block spanning all n columns), A[i][k] is read n times per element: TB_Y·n·(n − 1)
    // duplicates (the paper rounds n − 1 to n), n − 1 times |DS'_A| = TB_Y·n.
    let tb_y = 32;
    let f = features::array_tb(&nest, "A", &[n, tb_y, 1], &p, true);
    assert_eq!(f.distinct, tb_y * n);
    assert_eq!(f.reuse, tb_y * n * (n - 1));
    // Over IS_AB (32×32 blocks): A reused TB_Y·n·(TB_X − 1), B TB_X·n·(TB_Y − 1), C none.
    let tb = [32, 32, 1];
    let a = features::array_tb(&nest, "A", &tb, &p, true);
    let b = features::array_tb(&nest, "B", &tb, &p, false);
    let c = features::array_tb(&nest, "C", &tb, &p, false);
    assert_eq!(
        (a.accesses, a.distinct, a.reuse),
        (32 * 32 * n, 32 * n, 32 * n * 31)
    );
    assert_eq!((b.distinct, b.reuse), (32 * n, 32 * n * 31));
    assert_eq!((c.accesses, c.distinct, c.reuse), (1024, 1024, 0));
    assert!(a.in_reuse_set && b.in_reuse_set && !c.in_reuse_set);
    assert!(a.in_coalesce_set && !b.in_coalesce_set && !c.in_coalesce_set);
    // (7): TB_Y·n transactions for A at TB_X = 32 (one per row of the block and k), none
    // counted for B.
    assert_eq!(a.coalesce_tran, 32 * n);
    assert_eq!(b.coalesce_tran, 0);
    // Baseline: each of the 32 warps reads one 128-byte row segment of B per k.
    assert_eq!(b.baseline_tran, 32 * n);
}

#[test]
fn gemm_partitions_and_profit_terms_by_hand() {
    let n = 256;
    let (r, nest) = gemm_nest(n);
    let p = Platform::load("gtx690").unwrap();
    let seeds = Seeds::of_region(&r);
    let set = subspace::split(&nest, &seeds);
    assert_eq!(set.len(), 2);
    let plans = subspace::plans(&nest, &seeds, &set);
    assert_eq!(plans.len(), 1, "IS_A and IS_B intersect into IS_AB");
    let is_ab = &plans[0];
    assert_eq!(is_ab.rep(1), is_ab.rep(0), "k1 and k2 tile the same loop k");
    assert_eq!(
        is_ab.show(&nest, &seeds),
        "i : [0 : 256 : TB_Y], j : [0 : 256 : TB_X], k : [0 : 256 : k1]"
    );
    let mut k = std::collections::BTreeMap::new();
    k.insert(0, 32);
    let asg = Assign { tb: [32, 32, 1], k };
    let ca = features::chunk_shape(&nest, is_ab, "A", &asg, &p);
    let cb = features::chunk_shape(&nest, is_ab, "B", &asg, &p);
    let cc = features::chunk_shape(&nest, is_ab, "C", &asg, &p);
    assert_eq!(
        (ca.extents.clone(), ca.bytes, ca.chunks),
        (vec![32, 32], 4096, n / 32)
    );
    assert_eq!((cb.extents.clone(), cb.bytes), (vec![32, 32], 4096));
    assert_eq!(cc.extents, vec![32, 32]);
    // Staging A: one 128-byte segment per row of the 32×32 tile, n/32 tiles: n transactions.
    assert_eq!(ca.staged_tran, n);
    // Profit terms (bytes per block): reuse 4·TB_Y·n·(TB_X − 1); A's coalescing gain is
    // already counted as reuse (32n baseline − n staged − 31n reuse = 0).
    let fa = features::array_tb(&nest, "A", &[32, 32, 1], &p, true);
    assert_eq!(features::gain(&fa, &ca, 4, &p), (4 * 32 * n * 31, 0));
    let fb = features::array_tb(&nest, "B", &[32, 32, 1], &p, false);
    assert_eq!(features::gain(&fb, &cb, 4, &p), (4 * 32 * n * 31, 0));
}

#[test]
fn gemm_on_gtx690_chooses_32x32_and_k_32() {
    let rp = plan(GEMM, "gtx690");
    let kp = &rp.kernels[0];
    let b = kp.best.as_ref().expect("a configuration");
    assert_eq!(b.assign.tb, [32, 32, 1]);
    assert_eq!(b.assign.k.values().copied().collect::<Vec<_>>(), vec![32]);
    assert_eq!(b.staged, vec!["A".to_string(), "B".to_string()]);
    assert_eq!(b.smem, 8192);
    // (13): (TB_Y·k2 + k1·TB_X)·4 ≤ 0.25·48·1024.
    let c9 = b.constraints.iter().find(|c| c.id == "(9)").unwrap();
    assert_eq!((c9.lhs, c9.rhs, c9.slack()), (8192, 12288, 4096));
    assert!(b.constraints.iter().all(|c| c.holds()));
    assert!(kp.rejected.iter().any(|r| r.array == "C"));
    // The next best block is 64×16 (same threads, less reuse of B).
    assert_eq!(kp.alternatives[0].assign.tb, [64, 16, 1]);
    assert!(kp.alternatives[0].profit < b.profit);
}

#[test]
fn transpose_coalescing_gain_by_hand() {
    let src = "
void mt(float out[384][512], float in[512][384])
{
    int i, j;
#pragma acc share(in[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (i = 0; i < 384; i++) {
#pragma acc loop independent
        for (j = 0; j < 512; j++)
            out[i][j] = in[j][i];
    }
}
";
    let rp = plan(src, "gtx690");
    let b = rp.kernels[0].best.as_ref().unwrap();
    assert_eq!(b.assign.tb, [32, 32, 1]);
    let f = &b.features["in"];
    // 32 warps × 32 rows each (one transaction per thread) in the baseline; 32 staged.
    assert_eq!((f.reuse, f.baseline_tran, f.coalesce_tran), (0, 1024, 1024));
    assert_eq!(b.gains["in"], (0, (1024 - 32) * 128));
    assert_eq!(b.shapes["in"].extents, vec![32, 32]);
}

#[test]
fn stencil_halo_from_the_hull() {
    let src = "
void hs(float t[512][512], float o[512][512])
{
    int r, c;
#pragma acc share(t[TB_Y+2][TB_X+2])
#pragma acc kernels loop independent
    for (r = 1; r < 511; r++) {
#pragma acc loop independent
        for (c = 1; c < 511; c++)
            o[r][c] = t[r][c] + t[r-1][c] + t[r+1][c] + t[r][c-1] + t[r][c+1];
    }
}
";
    let rp = plan(src, "gtx690");
    let kp = &rp.kernels[0];
    assert!(kp.plans[0].notes.is_empty(), "{:?}", kp.plans[0].notes);
    let b = kp.best.as_ref().unwrap();
    let f = &b.features["t"];
    let (x, y) = (b.assign.tb[0], b.assign.tb[1]);
    // Five references per point; the union is the (TB_Y+2)×(TB_X+2) box without its corners.
    assert_eq!(f.accesses, 5 * x * y);
    assert_eq!(f.distinct, (x + 2) * (y + 2) - 4);
    assert_eq!(b.shapes["t"].extents, vec![y + 2, x + 2]);
    // The halo starts one row and one column before the block's first point (1, 1).
    assert_eq!(b.shapes["t"].origin, vec![0, 0]);
    let tiles = kp.chosen_tiles();
    assert_eq!(tiles.values().copied().collect::<Vec<_>>(), vec![y, x]);
}

#[test]
fn wrong_halo_is_noted_and_the_hull_used() {
    let src = "
void hs(float t[512][512], float o[512][512])
{
    int r, c;
#pragma acc share(t[TB_Y][TB_X])
#pragma acc kernels loop independent
    for (r = 1; r < 511; r++) {
#pragma acc loop independent
        for (c = 1; c < 511; c++)
            o[r][c] = t[r-1][c] + t[r][c] + t[r+1][c];
    }
}
";
    let rp = plan(src, "gtx690");
    let notes = &rp.kernels[0].plans[0].notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("is `TB_Y` but a thread block's references span `TB_Y + 2`")),
        "{:?}",
        notes
    );
    let b = rp.kernels[0].best.as_ref().unwrap();
    assert_eq!(b.shapes["t"].extents[0], b.assign.tb[1] + 2);
}

#[test]
fn constant_partition_fixes_the_block_and_incompatible_seeds_give_two_plans() {
    let src = "
void f(float A[256][256], float B[256][256], float C[256][256])
{
    int i, j, k;
#pragma acc share(A[16][*], B[8][*])
#pragma acc kernels loop independent
    for (i = 0; i < 256; i++) {
#pragma acc loop independent
        for (j = 0; j < 256; j++) {
            float s = 0.0f;
            for (k = 0; k < 256; k++)
                s += A[i][k] * B[i][k] * C[k][j];
            C[i][j] = s;
        }
    }
}
";
    let rp = plan(src, "gtx690");
    let kp = &rp.kernels[0];
    assert_eq!(
        kp.plans.len(),
        2,
        "TB_Y = 16 and TB_Y = 8 are not compatible"
    );
    assert_eq!(
        kp.plans[0].fixed_tb.values().copied().collect::<Vec<_>>(),
        vec![16]
    );
    assert_eq!(
        kp.plans[1].fixed_tb.values().copied().collect::<Vec<_>>(),
        vec![8]
    );
    let b = kp.best.as_ref().unwrap();
    assert!(b.assign.tb[1] == 16 || b.assign.tb[1] == 8);
}

#[test]
fn expression_partition_tiles_a_sequential_loop() {
    // x[TB_X] over the sequential j: j is tiled by TB_X (non-parametric `*`).
    let src = "
void mv(float y[1024], float A[1024][1024], float x[1024])
{
    int i, j;
#pragma acc share(x[TB_X])
#pragma acc kernels loop independent
    for (i = 0; i < 1024; i++) {
        float s = 0.0f;
#pragma acc loop seq
        for (j = 0; j < 1024; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}
";
    let rp = plan(src, "gtx690");
    let kp = &rp.kernels[0];
    let nest = kp.nest.as_ref().unwrap();
    let seeds = &rp.seeds;
    assert_eq!(
        kp.plans[0].show(nest, seeds),
        "i : [0 : 1024 : TB_X], j : [0 : 1024 : TB_X]"
    );
    let b = kp.best.as_ref().unwrap();
    assert_eq!(b.shapes["x"].extents, vec![b.assign.tb[0]]);
    // A is a candidate (same statement) but not a seed.
    assert!(kp.candidates.iter().any(|c| c.array == "A" && !c.seed));
}

#[test]
fn three_d_nest_uses_tb_z() {
    let src = "
void f(float a[64][64][64], float b[64][64][64])
{
    int i, j, k;
#pragma acc share(a[TB_Z+2][TB_Y+2][TB_X+2])
#pragma acc kernels loop independent
    for (i = 1; i < 63; i++)
#pragma acc loop independent
        for (j = 1; j < 63; j++)
#pragma acc loop independent
            for (k = 1; k < 63; k++)
                b[i][j][k] = a[i-1][j][k] + a[i+1][j][k] + a[i][j-1][k] + a[i][j+1][k] + a[i][j][k-1] + a[i][j][k+1];
}
";
    let rp = plan(src, "a100");
    let kp = &rp.kernels[0];
    let nest = kp.nest.as_ref().unwrap();
    assert_eq!(nest.mapped.len(), 3);
    let b = kp.best.as_ref().unwrap();
    let [x, y, z] = b.assign.tb;
    assert!(x >= 32 && x * y * z <= 1024);
    assert_eq!(b.shapes["a"].extents, vec![z + 2, y + 2, x + 2]);
}

#[test]
fn triangular_domain_is_noted() {
    let src = "
void f(float a[512][512], float x[512], float y[512])
{
    int i, j;
#pragma acc share(x[*])
#pragma acc kernels loop independent
    for (i = 0; i < 512; i++) {
        float s = 0.0f;
#pragma acc loop seq
        for (j = 0; j < i; j++)
            s += a[i][j] * x[j];
        y[i] = s;
    }
}
";
    let rp = plan(src, "gtx690");
    let kp = &rp.kernels[0];
    assert!(
        kp.notes.iter().any(|n| n.contains("bounding box")),
        "{:?}",
        kp.notes
    );
    let nest = kp.nest.as_ref().unwrap();
    let j = nest.sequential()[0];
    assert_eq!(nest.trip_of(j), 511);
    assert!(kp.best.as_ref().unwrap().staged.contains(&"x".to_string()));
}

#[test]
fn unrelated_arrays_are_not_candidates() {
    let src = "
void f(float A[256][256], float B[256][256], float D[256][256], float E[256][256])
{
    int i, j;
#pragma acc share(A[TB_Y+2][TB_X])
#pragma acc kernels loop independent
    for (i = 1; i < 255; i++) {
#pragma acc loop independent
        for (j = 0; j < 256; j++) {
            B[i][j] = A[i-1][j] + A[i+1][j];
            D[i][j] = E[i][j];
        }
    }
}
";
    let rp = plan(src, "gtx690");
    let kp = &rp.kernels[0];
    let names: Vec<&str> = kp.candidates.iter().map(|c| c.array.as_str()).collect();
    assert_eq!(names, vec!["A", "B"]);
    assert_eq!(kp.not_candidates, vec!["D".to_string(), "E".to_string()]);
}

#[test]
fn symbolic_sizes_take_the_representative_value() {
    let rp = plan(GEMM, "gtx690");
    assert!(rp.kernels[0]
        .notes
        .iter()
        .any(|n| n == "symbolic sizes evaluated at representative values: n = 4096"));
}

#[test]
fn hd7850_respects_its_256_thread_limit() {
    let rp = plan(GEMM, "hd7850");
    let b = rp.kernels[0].best.as_ref().unwrap();
    assert!(b.threads <= 256);
    assert!(
        b.assign.tb[0] >= 64,
        "TB_X ≥ wavefront size: {:?}",
        b.assign.tb
    );
    assert!(b.smem <= 16384, "θ_s·64 KB = 16 KB");
}

#[test]
fn hint_warnings_are_rendered_at_the_seed() {
    let src = "void hs(float t[512][512], float o[512][512], float q[8])
{
    int r, c;
#pragma acc share(t[TB_Y][TB_X], q[*])
#pragma acc kernels loop independent
    for (r = 1; r < 511; r++) {
#pragma acc loop independent
        for (c = 1; c < 511; c++)
            o[r][c] = t[r-1][c] + t[r][c] + t[r+1][c];
    }
}
";
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let main = sources.add("t.c", "t.c".into(), src.to_string());
    let parsed = crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
    let rs = find_regions(&parsed.tu, &sources, &mut diags);
    let r = &rs.compute[0].ir;
    let d = dependence::analyze(r);
    let rp = analyze_region(
        r,
        &d,
        0,
        &Platform::load("gtx690").unwrap(),
        &Options::default(),
    );
    let text = crate::diag::render(&sources, &diagnostics(&rp));
    assert_eq!(
        text,
        "warning: `q` is not referenced in this region
  ┌─ t.c:4:34
  │
4 │ #pragma acc share(t[TB_Y][TB_X], q[*])
  │                                  ^^^^ this partition is ignored

warning: dimension 1 of `t` is `TB_Y` but a thread block's references span `TB_Y + 2`: the candidate partition is that hull
  ┌─ t.c:4:19
  │
4 │ #pragma acc share(t[TB_Y][TB_X], q[*])
  │                   ^^^^^^^^^^^^^ in this partition

"
    );
}

#[test]
fn skewed_references_are_staged_whole_or_not_at_all() {
    // syrk: A[i][k] and A[j][k] read two row bands whose distance depends on the block, so the
    // partition of A spans every row the grid reaches, not a TB_Y-row hull at one origin.
    let src = "
void syrk(float C[64][64], float A[64][40])
{
    int i, j, k;
#pragma acc kernels loop independent
    for (i = 0; i < 64; i++) {
#pragma acc loop independent
        for (j = 0; j < 64; j++) {
            float s = 0.0f;
            for (k = 0; k < 40; k++)
                s += A[i][k] * A[j][k];
            C[i][j] = s;
        }
    }
}
";
    let rp = plan(src, "h100");
    let kp = &rp.kernels[0];
    let b = kp.best.as_ref().unwrap();
    assert_eq!(b.shapes["A"].extents, vec![64, 40]);
    let f = &b.features["A"];
    let (x, y) = (b.assign.tb[0].min(64), b.assign.tb[1].min(64));
    assert_eq!(
        f.distinct,
        (x + y) * 40,
        "two disjoint bands in a typical block"
    );
    assert!(f.approx);
}

#[test]
fn huge_sizes_and_coefficients_do_not_panic() {
    let src = "
void f(long n, float *a, float *b)
{
    long i, j;
#pragma acc share(a[*])
#pragma acc kernels loop independent
    for (i = 0; i < 4611686018427387904; i++) {
        float s = 0.0f;
#pragma acc loop seq
        for (j = -4611686018427387904; j < n * n * n; j++)
            s += a[i * 4611686018427387904 + j * n * n - 9] * a[j];
        b[i] = s;
    }
}
";
    for p in ["gtx690", "pocl-cpu"] {
        let rp = plan(src, p);
        let _ = crate::explain::report_plans(
            std::slice::from_ref(&rp),
            &SourceMap::new(),
            &Platform::load(p).unwrap(),
            crate::explain::Format::Json,
        );
        for k in &rp.kernels {
            assert!(
                k.block.iter().product::<i64>()
                    <= Platform::load(p).unwrap().max_threads_per_block as i64
            );
        }
    }
}

#[test]
fn cache_directive_seeds_the_candidate_set() {
    let src = "
void mv(float y[1024], float A[1024][1024], float x[1024])
{
    int i, j;
#pragma acc kernels loop independent
    for (i = 0; i < 1024; i++) {
        float s = 0.0f;
#pragma acc loop seq
        for (j = 0; j < 1024; j++) {
#pragma acc cache(x[0:1024])
            s += A[i][j] * x[j];
        }
        y[i] = s;
    }
}
";
    let rp = plan(src, "gtx690");
    assert_eq!(rp.seeds.seeds.len(), 1);
    assert_eq!(rp.seeds.seeds[0].origin, candidates::SeedOrigin::Cache);
    let kp = &rp.kernels[0];
    let x = kp.candidates.iter().find(|c| c.array == "x").unwrap();
    assert_eq!(x.reason, "seed (cache directive)");
    // A and y are linked to x through the statement and the scalar `s`.
    assert_eq!(kp.candidates.len(), 3);
    let b = kp.best.as_ref().unwrap();
    assert!(b.staged.contains(&"x".to_string()));
    // No `*`: the partition of x is its whole range over the sequential loop.
    assert_eq!(b.shapes["x"].extents, vec![1024]);
}

#[test]
fn transposed_output_is_staged_for_its_writes() {
    let src = "
void mt(float out[384][512], float in[512][384])
{
    int i, j;
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (i = 0; i < 512; i++) {
#pragma acc loop independent
        for (j = 0; j < 384; j++)
            out[j][i] = in[i][j];
    }
}
";
    let rp = plan(src, "gtx690");
    let b = rp.kernels[0].best.as_ref().unwrap();
    assert_eq!(b.assign.tb, [32, 32, 1]);
    assert_eq!(b.staged, vec!["out".to_string()]);
    // The stores: one transaction per thread in the baseline, one per row of the tile staged.
    assert_eq!(b.gains["out"], (0, (1024 - 32) * 128));
}

#[test]
fn written_arrays_that_threads_would_share_stay_global() {
    let why = |body: &str| {
        let src = format!(
            "
void w(float out[64][64], float in[64][64])
{{
    int i, j;
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
    for (i = 0; i < 64; i++) {{
#pragma acc loop independent
        for (j = 0; j < 64; j++) {{
            {}
        }}
    }}
}}
",
            body
        );
        let rp = plan(&src, "a100");
        rp.kernels[0]
            .rejected
            .iter()
            .find(|r| r.array == "out")
            .map(|r| r.reason.to_string())
            .unwrap_or_default()
    };
    assert_eq!(
        why("out[i][i + j] = in[i][j];"),
        "written in the kernel through `out[i][i + j]`, which is not a grid index plus a constant in every dimension"
    );
    // The interleaved form is written residue by residue (one element of each residue per
    // thread); references of another stride could name a residue's elements.
    assert!(!why("out[j][2 * i] = in[i][j];").starts_with("written"));
    assert!(!why("out[j][2 * i] = in[i][j]; out[j][2 * i + 1] = 1.0f;").starts_with("written"));
    assert_eq!(
        why("out[j][2 * i] = in[i][j]; out[j][i] = 0.0f;"),
        "written in the kernel, and its references name different elements: a written tile needs every reference to name the thread's own element"
    );
    assert_eq!(
        why("out[j][2 * i + 1] = in[i][j]; out[j][2 * i + 3] = 0.0f;"),
        "written in the kernel, and its references name different elements: a written tile needs every reference to name the thread's own element"
    );
    assert_eq!(
        why("out[j][i] = in[i][j]; out[j][i + 1] = 0.0f;"),
        "written in the kernel, and its references name different elements: a written tile needs every reference to name the thread's own element"
    );
}

// ---- Seeds induced without pragmas (`induce`) ----

/// The induced seeds of the first kernel of a source's first region, as `explain` shows them.
fn induced(src: &str) -> (Vec<String>, Vec<(String, NoSeed)>, KernelPlan) {
    let rp = plan(src, "a100");
    let kp = rp.kernels[0].clone();
    let i = kp
        .induced
        .clone()
        .expect("a region without hints has induced seeds");
    let shown = i.seeds.seeds.iter().map(|s| i.seeds.show(s)).collect();
    (shown, i.unseeded, kp)
}

const PLAIN_GEMM: &str = "
void gemm(float alpha, float C[512][512], float A[512][512], float B[512][512])
{
#pragma acc parallel loop copyin(A, B) copyout(C)
    for (int i = 0; i < 512; i++) {
#pragma acc loop
        for (int j = 0; j < 512; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 512; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = alpha * sum;
        }
    }
}
";

#[test]
fn induced_gemm_is_the_tiled_gemm_pragma() {
    let (seeds, unseeded, kp) = induced(PLAIN_GEMM);
    assert_eq!(seeds, ["A[TB_Y][k1]", "B[k2][TB_X]", "C[TB_Y][TB_X]"]);
    assert!(unseeded.is_empty());
    assert!(kp.candidates.iter().all(|c| c.seed));
    // As with `share(B[*][TB_X], A[TB_Y][*])`: one plan tiling `k` by k1 = k2, both staged.
    assert_eq!(kp.plans.len(), 1);
    let best = kp.best.clone().expect("the tiled gemm pays");
    assert_eq!(best.staged, ["A", "B"]);
    assert!(
        kp.block[0] > 1 && kp.block[1] > 1,
        "2-D block: {:?}",
        kp.block
    );
    let tiles = kp.chosen_tiles();
    let nest = kp.nest.as_ref().unwrap();
    let k = nest.sequential()[0];
    assert!(tiles[&k] < 512, "k is strip-mined: {:?}", tiles);
}

#[test]
fn induced_stencil_has_the_halo() {
    let src = "
void st(float out[256][256], float in[256][256])
{
#pragma acc parallel loop copyin(in) copyout(out)
    for (int i = 1; i < 255; i++) {
#pragma acc loop
        for (int j = 1; j < 255; j++)
            out[i][j] = 0.2f * (in[i][j] + in[i-1][j] + in[i+1][j] + in[i][j-1] + in[i][j+1]);
    }
}
";
    let (seeds, unseeded, kp) = induced(src);
    assert_eq!(seeds, ["in[TB_Y + 2][TB_X + 2]", "out[TB_Y][TB_X]"]);
    assert!(unseeded.is_empty());
    // No strip-mined loop: one plan, the block's tile; no warning for an induced seed.
    assert_eq!(kp.plans.len(), 1);
    assert!(kp.plans[0].warnings.is_empty());
}

#[test]
fn induced_mv_strips_the_row_loop() {
    let src = "
void mv(float y[1024], float A[1024][1024], float x[1024])
{
#pragma acc parallel loop copyin(A, x) copyout(y)
    for (int i = 0; i < 1024; i++) {
        float s = 0.0f;
        for (int j = 0; j < 1024; j++)
            s += A[i][j] * x[j];
        y[i] = s;
    }
}
";
    let (seeds, unseeded, kp) = induced(src);
    assert_eq!(seeds, ["A[TB_X][k1]", "x[k2]", "y[TB_X]"]);
    assert!(unseeded.is_empty());
    assert_eq!(kp.plans.len(), 1);
    assert_eq!(kp.plans[0].free_params().len(), 1, "k1 = k2: one strip");
}

#[test]
fn induced_transpose_swaps_the_block_extents() {
    let src = "
void mt(float out[512][512], float in[512][512])
{
#pragma acc parallel loop copyin(in) copyout(out)
    for (int i = 0; i < 512; i++) {
#pragma acc loop
        for (int j = 0; j < 512; j++)
            out[j][i] = in[i][j];
    }
}
";
    let (seeds, unseeded, _) = induced(src);
    assert_eq!(seeds, ["in[TB_Y][TB_X]", "out[TB_X][TB_Y]"]);
    assert!(unseeded.is_empty());
}

#[test]
fn induced_seeds_without_reuse_stage_nothing() {
    let src = "
void vadd(float c[4096], float a[4096], float b[4096])
{
#pragma acc parallel loop copyin(a, b) copyout(c)
    for (int i = 0; i < 4096; i++)
        c[i] = a[i] + b[i];
}
";
    let (seeds, _, kp) = induced(src);
    assert_eq!(seeds, ["a[TB_X]", "b[TB_X]", "c[TB_X]"]);
    assert!(kp.best.is_none(), "{:?}", kp.best);
}

#[test]
fn induced_seeds_skip_what_staging_refuses_and_keep_filters_whole() {
    let src = "
void f(float out[256][256], float in[512][512], float w[3][3], float v[1024])
{
#pragma acc parallel loop copyin(in, w, v) copyout(out)
    for (int i = 1; i < 255; i++) {
#pragma acc loop
        for (int j = 1; j < 255; j++) {
            float s = v[2 * j];
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += w[di + 1][dj + 1] * in[2 * i + di][j + dj];
            out[i][j] = s;
        }
    }
}
";
    let (seeds, unseeded, _) = induced(src);
    assert_eq!(seeds, ["w[hull][hull]", "out[TB_Y][TB_X]"]);
    let names: Vec<&str> = unseeded.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(names, ["v", "in"]);
    assert!(
        matches!(unseeded[1].1, NoSeed::NotOneGridIndex { .. })
            && unseeded[1].1.to_string().contains("not one grid index"),
        "{:?}",
        unseeded
    );
}

#[test]
fn pragmas_win_over_induced_seeds() {
    let rp = plan(GEMM, "a100");
    assert!(rp.kernels.iter().all(|k| k.induced.is_none()));
    assert_eq!(rp.seeds.seeds.len(), 2);
}

/// A nest that coalesces along no loop (`i` on x walks rows 19 floats apart).
const PARTIAL_ROWS: &str = "
float a[21][19], b[21][19];
void f(void)
{
#pragma acc parallel loop copyin(a) copyout(b)
    for (int i = 0; i < 21; i++)
        for (int j = 0; j < 9; j++)
            b[i][j] = a[i][j] * 2.0f + a[i][j + 1];
}
";

#[test]
fn blocks_fill_a_warp_even_where_nothing_coalesces() {
    let p = plan(PARTIAL_ROWS, "a100");
    let best = p.kernels[0].best.as_ref().expect("a staged choice");
    let threads: i64 = best.assign.tb.iter().product();
    // Without (16) the engine chose 1-thread blocks (the cheapest copy per block).
    assert_eq!(threads, 32, "{:?}", best.assign.tb);
    let c16 = best
        .constraints
        .iter()
        .find(|c| c.id == "(16)")
        .expect("constraint (16)");
    assert_eq!(
        (c16.what.as_str(), c16.lhs, c16.op, c16.rhs),
        (
            "threads per block ≥ warp size: fewer leave lanes of the warp idle",
            32,
            ">=",
            32
        )
    );
    for a in &p.kernels[0].alternatives {
        assert!(
            a.assign.tb.iter().product::<i64>() >= 32,
            "{:?}",
            a.assign.tb
        );
    }
}
