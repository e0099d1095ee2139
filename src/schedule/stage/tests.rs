use super::*;
use crate::diag::Diags;
use crate::model::Platform;

/// The staging of every kernel of the first region of `src` (a100).
fn stage(src: &str) -> Vec<StageSpec> {
    stage_with(src, StageOptions::default())
}

/// [`stage`] with the staging's own choices as `options` says.
fn stage_with(src: &str, options: StageOptions) -> Vec<StageSpec> {
    let (r, d) = crate::schedule::tests::first_region(src);
    let r = &r;
    let mut diags = Diags::new();
    let p = Platform::load("a100").unwrap();
    let rp = crate::partition::analyze_region(&r.ir, &d, 0, &p, &Default::default());
    rp.kernels
        .iter()
        .filter_map(|kp| {
            crate::schedule::schedule_kernel(
                r,
                &d,
                kp.root,
                Some(crate::schedule::Staging {
                    plan: kp,
                    local_is_global: false,
                    options,
                }),
                Default::default(),
                &mut diags,
            )
            .and_then(|ks| ks.preferred().stage.clone())
        })
        .collect()
}

const GEMM: &str = "
void gemm(float C[256][256], float A[256][256], float B[256][256])
{
int i, j, k;
#pragma acc share(B[*][TB_X], A[TB_Y][*]:coalesce)
#pragma acc kernels loop independent
for (i = 0; i < 256; i++) {
#pragma acc loop independent
    for (j = 0; j < 256; j++) {
        float s = 0.0f;
        for (k = 0; k < 256; k++)
            s += A[i][k] * B[k][j];
        C[i][j] = s;
    }
}
}
";

#[test]
fn gemm_tiles_follow_fig_2b() {
    let s = stage(GEMM);
    let s = &s[0];
    assert_eq!(s.block, [32, 32, 1]);
    let strip = s.strip.as_ref().unwrap();
    assert_eq!((strip.var.as_str(), strip.size), ("k", 64));
    let a = s.array("A").unwrap();
    assert_eq!(
        a.dims.iter().map(|d| d.extent).collect::<Vec<_>>(),
        [32, 64]
    );
    assert!(matches!(a.dims[0].primary, Primary::Grid { dim: 1, .. }));
    assert_eq!(a.dims[1].primary, Primary::Strip);
    let b = s.array("B").unwrap();
    assert_eq!(
        b.dims.iter().map(|d| d.extent).collect::<Vec<_>>(),
        [64, 32]
    );
    assert_eq!(b.strides(), [32, 1]);
    assert_eq!(s.smem_bytes(), 16384);
}

#[test]
fn halo_tile_covers_the_offsets() {
    let s = stage(
        "
void st(float out[512][512], float in[512][512])
{
int i, j;
#pragma acc share(in[TB_Y+2][TB_X+2])
#pragma acc kernels loop independent
for (i = 1; i < 511; i++) {
#pragma acc loop independent
    for (j = 1; j < 511; j++)
        out[i][j] = in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1];
}
}
",
    );
    let a = s[0].array("in").unwrap();
    assert_eq!((a.dims[0].lo, a.dims[0].hi), (-1, 1));
    assert_eq!(a.dims[1].extent, s[0].block[0] + 2);
    assert_eq!(a.dims[0].range.0.as_const(), Some(0));
    assert_eq!(a.dims[0].range.1.as_const(), Some(511));
    assert!(s[0].strip.is_none());
}

#[test]
fn a_strided_strip_reference_stays_in_global_memory() {
    let s = stage(
        "
void g(float y[256], float A[256][512])
{
int i, j;
#pragma acc share(A[TB_X][*])
#pragma acc kernels loop independent
for (i = 0; i < 256; i++) {
    float s = 0.0f;
    for (j = 0; j < 256; j++)
        s += A[i][2 * j];
    y[i] = s;
}
}
",
    );
    assert!(s[0].arrays.is_empty());
    let (a, why) = &s[0].rejected[0];
    assert_eq!(a, "A");
    assert_eq!(
        why,
        &Unstaged::NotTileable {
            iterator: "j".into(),
            subscript: "2*j".into()
        }
    );
    assert_eq!(why.to_string(), "`j` in subscript `2*j` is neither a grid index, a strip-mined loop nor a short constant loop");
}

#[test]
fn written_tiles_load_only_what_the_kernel_reads_or_may_skip() {
    let kernel = |body: &str| {
        let src = format!(
            "
void w(float out[100][70], float in[70][100])
{{
int i, j;
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
for (i = 0; i < 70; i++) {{
#pragma acc loop independent
    for (j = 0; j < 100; j++) {{
        {}
    }}
}}
}}
",
            body
        );
        let s = stage(&src).remove(0);
        let a = s.array("out").expect("out is staged").clone();
        (
            a.written,
            a.load,
            a.dims.iter().map(|d| d.extent).collect::<Vec<_>>(),
        )
    };
    assert_eq!(kernel("out[j][i] = in[i][j];"), (true, false, vec![32, 32]));
    assert_eq!(kernel("out[j][i] += in[i][j];"), (true, true, vec![32, 32]));
    assert_eq!(
        kernel("if (in[i][j] > 0.0f) out[j][i] = in[i][j];"),
        (true, true, vec![32, 32])
    );
}

/// A written array of structs is written through one tile per field (AoS → SoA): a field
/// written gets a written tile (loaded first when read or maybe skipped), a field only read a
/// read tile, a field not referenced none; the interleaved form is written residue by residue.
#[test]
fn written_arrays_of_structs_are_written_field_by_field() {
    let tiles = |decl: &str, body: &str| -> Result<Vec<(String, bool, bool)>, String> {
        let src = format!(
            "
{decl}
void t(float in[70][100])
{{
int i, j;
#pragma acc share(out[TB_X][TB_Y]:coalesce)
#pragma acc kernels loop independent
for (i = 0; i < 70; i++) {{
#pragma acc loop independent
    for (j = 0; j < 100; j++) {{
        {body}
    }}
}}
}}
"
        );
        let s = stage(&src).remove(0);
        if let Some((_, why)) = s.rejected.iter().find(|(a, _)| a == "out") {
            return Err(why.to_string());
        }
        Ok(s.arrays
            .iter()
            .filter(|a| a.name == "out")
            .map(|a| (a.local.clone(), a.written, a.load))
            .collect())
    };
    let t = |l: &str, w: bool, ld: bool| (l.to_string(), w, ld);
    let cpx = "typedef struct { float re, im, w; } cpx; cpx out[100][70];";
    assert_eq!(
        tiles(
            cpx,
            "out[j][i].re = in[i][j]; out[j][i].im = 2.0f * in[i][j];"
        ),
        Ok(vec![
            t("accshare_sh_out_re", true, false),
            t("accshare_sh_out_im", true, false)
        ])
    );
    assert_eq!(
        tiles(cpx, "out[j][i].re = out[j][i].im * in[i][j];"),
        Ok(vec![
            t("accshare_sh_out_re", true, false),
            t("accshare_sh_out_im", false, true)
        ])
    );
    assert_eq!(
        tiles(cpx, "if (out[j][i].w > 0.0f) out[j][i].im = in[i][j];"),
        Ok(vec![
            t("accshare_sh_out_im", true, true),
            t("accshare_sh_out_w", false, true)
        ])
    );
    assert_eq!(
        tiles(cpx, "out[j][i].re += in[i][j];"),
        Ok(vec![t("accshare_sh_out_re", true, true)])
    );
    let pairs = "float out[100][140];";
    assert_eq!(
        tiles(
            pairs,
            "out[j][2 * i] = in[i][j]; out[j][2 * i + 1] += in[i][j];"
        ),
        Ok(vec![
            t("accshare_sh_out_r0", true, false),
            t("accshare_sh_out_r1", true, true)
        ])
    );
    // Another stride over the interleaved dimension: the partition engine leaves it in global
    // memory already (its reason is asserted in `partition::tests`), the staging re-checks.
    assert_eq!(
        tiles(pairs, "out[j][2 * i + 1] = in[i][j]; out[j][i] += 1.0f;"),
        Ok(vec![])
    );
    assert_eq!(
        Unstaged::WrittenInterleavedStrides {
            subscript: "i".to_string(),
            stride: 2
        }
        .to_string(),
        "written in the kernel and interleaved by 2 along its last dimension, but referenced through `i`, which is not 2 times the same grid index plus a constant: a written residue's tile needs every reference to name its elements alone"
    );
}

#[test]
fn column_walked_tiles_are_padded_and_row_walked_ones_are_not() {
    let dims = |prims: [u8; 2], extents: [u32; 2]| -> Vec<TileDim> {
        prims
            .iter()
            .zip(extents)
            .map(|(&dim, extent)| TileDim {
                primary: Primary::Grid {
                    dim,
                    min: Poly::constant(0),
                },
                lo: 0,
                hi: 0,
                extent,
                range: (Poly::constant(0), Poly::constant(1000)),
                array_extent: None,
            })
            .collect()
    };
    let b = Banks::default();
    let row = |d: &[TileDim], block: [u32; 3], elem: u32| {
        let c = bank::decide(d, block, elem, 1, &b, SMEM_LIMIT, true);
        (
            c.technique,
            c.layout.row_len,
            c.degree_before,
            c.degree_after,
        )
    };
    // tile[tx][ty] (a transpose): stride 32 words is a 32-way conflict; 33 has none. Stored
    // transposed, the reads would be conflict-free but the copy's stores 32-way: padding.
    assert_eq!(
        row(&dims([0, 1], [32, 32]), [32, 32, 1], 4),
        (Technique::Padding, 33, 32, 1)
    );
    // tile[ty][tx]: rows walked by whole warps.
    assert_eq!(
        row(&dims([1, 0], [32, 32]), [32, 32, 1], 4),
        (Technique::None, 32, 1, 1)
    );
    // 16-wide blocks: a warp covers two rows; 16 elements per row fill the banks exactly.
    assert_eq!(
        row(&dims([1, 0], [16, 16]), [16, 16, 1], 4),
        (Technique::None, 16, 1, 1)
    );
    // Doubles down a column: 2 words per element, served by half-warps, padded to an odd
    // number of elements.
    assert_eq!(
        row(&dims([0, 1], [32, 32]), [32, 32, 1], 8),
        (Technique::Padding, 33, 16, 1)
    );
    // A column-walked tile one element taller than the block (a halo along x): stored
    // transposed, both the reads and the copy's stores are conflict-free, without the pad.
    let c = bank::decide(
        &dims([0, 1], [33, 32]),
        [32, 32, 1],
        4,
        2,
        &b,
        SMEM_LIMIT,
        true,
    );
    assert_eq!(
        (c.technique, c.degree_before, c.degree_after, c.extra_bytes),
        (Technique::Transpose, 32, 1, 0)
    );
    // The same with 8-wide rows: a flat copy (one row of work-items under several rows per
    // work-item) would store a transposed tile with conflicts, so padding wins.
    let c = bank::decide(
        &dims([0, 1], [33, 8]),
        [32, 8, 1],
        4,
        2,
        &b,
        SMEM_LIMIT,
        true,
    );
    assert_eq!(
        (c.technique, c.layout.row_len, c.degree_after),
        (Technique::Padding, 9, 1)
    );
    // No spare shared memory: no padding.
    let c = bank::decide(&dims([0, 1], [32, 32]), [32, 32, 1], 4, 1, &b, 0, true);
    assert_ne!(c.technique, Technique::Padding);
    assert!(c.path.iter().any(|p| p.contains("no spare shared memory")));
}

#[test]
fn rows_per_work_item_keep_two_warps() {
    assert_eq!(crate::schedule::default_rows([32, 32, 1]), 4);
    assert_eq!(crate::schedule::default_rows([32, 8, 1]), 4);
    assert_eq!(crate::schedule::default_rows([32, 4, 1]), 2);
    assert_eq!(crate::schedule::default_rows([16, 16, 1]), 4);
    assert_eq!(crate::schedule::default_rows([64, 1, 1]), 1);
    assert_eq!(crate::schedule::default_rows([32, 2, 1]), 1);
    assert_eq!(crate::schedule::default_rows([32, 6, 2]), 2);
}

#[test]
fn references_moved_by_different_grid_indices_get_a_tile_each() {
    let s = stage(
        "
void gram(float G[256][256], float A[256][512])
{
int i, j, k;
#pragma acc share(A[TB_Y][*])
#pragma acc kernels loop independent
for (i = 0; i < 256; i++) {
#pragma acc loop independent
    for (j = 0; j < 256; j++) {
        float s = 0.0f;
        for (k = 0; k < 512; k++)
            s += A[i][k] * A[j][k];
        G[i][j] = s;
    }
}
}
",
    );
    let s = &s[0];
    let tiles: Vec<_> = s.arrays.iter().filter(|a| a.name == "A").collect();
    assert_eq!(tiles.len(), 2);
    assert_eq!(tiles[0].local, "accshare_sh_A_0");
    assert!(matches!(
        tiles[0].dims[0].primary,
        Primary::Grid { dim: 1, .. }
    ));
    assert!(matches!(
        tiles[1].dims[0].primary,
        Primary::Grid { dim: 0, .. }
    ));
    assert!(tiles.iter().all(|t| t.dims[1].primary == Primary::Strip));
    // The rows for `j` are walked down a column by the warp: padded.
    assert_eq!(tiles[1].row_len, tiles[1].dims[1].extent + 1);
    assert_eq!(tiles[0].accesses.len(), 1);
    assert_ne!(tiles[0].accesses, tiles[1].accesses);
}

#[test]
fn the_engine_plans_within_what_staged_code_can_use() {
    let p = Platform::load("pocl-cpu").unwrap();
    assert!(p.max_threads_per_block > MAX_THREADS as u32 && p.smem_per_block > SMEM_LIMIT);
    let q = code_platform(&p);
    assert_eq!(q.max_threads_per_block, MAX_THREADS as u32);
    assert!(q.max_block_dims.iter().all(|&d| d <= MAX_THREADS as u32));
    assert_eq!(q.smem_per_block, SMEM_LIMIT);
    // A GPU within the limits is unchanged.
    let a = Platform::load("a100").unwrap();
    assert_eq!(
        code_platform(&a).max_threads_per_block,
        a.max_threads_per_block
    );
}

/// `StageOptions { bank_padding: false }` keeps every row at the tile's extent (what `accshare
/// bench` measures as `+share`); the tiles are otherwise the same.
#[test]
fn padding_can_be_turned_off() {
    let src = "
void gram(float G[256][256], float A[256][512])
{
int i, j, k;
#pragma acc share(A[TB_Y][*])
#pragma acc kernels loop independent
for (i = 0; i < 256; i++) {
#pragma acc loop independent
    for (j = 0; j < 256; j++) {
        float s = 0.0f;
        for (k = 0; k < 512; k++)
            s += A[i][k] * A[j][k];
        G[i][j] = s;
    }
}
}
";
    let padded = stage(src);
    let plain = stage_with(
        src,
        StageOptions {
            bank_padding: false,
            ..Default::default()
        },
    );
    let (a, b) = (&padded[0].arrays, &plain[0].arrays);
    assert_eq!(a.len(), b.len());
    assert!(a.iter().any(|t| t.row_len > t.dims.last().unwrap().extent));
    for (x, y) in a.iter().zip(b) {
        assert_eq!(y.row_len, y.dims.last().unwrap().extent);
        assert_eq!(
            (&x.name, &x.local, x.dims.len()),
            (&y.name, &y.local, y.dims.len())
        );
    }
}
