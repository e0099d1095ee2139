use super::*;
use crate::schedule::tests::{cpu_share, schedule};
use crate::schedule::{Coarsening, KernelSchedule};

/// The schedules of the first kernel of `src`, unstaged, with short words considered.
fn kernel(src: &str) -> KernelSchedule {
    schedule(
        src,
        Coarsening {
            words: true,
            ..Default::default()
        },
    )
}

const GAUSS: &str = "
void g(unsigned char out[64][70], unsigned char in[64][70])
{
#pragma acc parallel loop collapse(2) copyin(in) copy(out)
for (int i = 2; i < 62; i++)
  for (int j = 2; j < 68; j++) {
    int s = 0;
    for (int di = -2; di <= 2; di++)
      s += in[i + di][j - 2] + 4 * in[i + di][j - 1] + 6 * in[i + di][j]
         + 4 * in[i + di][j + 1] + in[i + di][j + 2];
    out[i][j] = (unsigned char)(s >> 4);
  }
}
";

#[test]
fn a_byte_stencil_groups_4_outputs_and_8_byte_rows() {
    let ks = kernel(GAUSS);
    let s = ks.preferred();
    let w = s.words.as_ref().expect("short words");
    assert_eq!((w.width, s.shape.cols.get(), s.shape.rows.get()), (4, 4, 1));
    // The launched block is the baseline's: 4 columns per work-item.
    assert_eq!(s.launch_block(), ks.baseline().shape.block);
    let names: Vec<(&str, bool, bool, u32)> = w
        .arrays
        .iter()
        .map(|a| (a.name.as_str(), a.loads, a.stores, a.max_lanes))
        .collect();
    // `in`: offsets −2..2 and 4 outputs: 8 bytes per row; `out`: one 4-byte store.
    assert_eq!(names, [("in", true, false, 8), ("out", false, true, 4)]);
    assert!(w.rejected.is_empty());
    // The baseline keeps one output per work-item.
    assert!(ks.baseline().words.is_none());
}

#[test]
fn shorts_group_two_lanes() {
    let ks = kernel(
        "
void f(short out[32][90], short in[32][90])
{
#pragma acc parallel loop collapse(2) copyin(in) copy(out)
for (int i = 0; i < 32; i++)
  for (int j = 1; j < 89; j++)
    out[i][j] = (short)(2 * in[i][j] - in[i][j - 1]);
}
",
    );
    let w = ks.preferred().words.as_ref().expect("short words");
    assert_eq!(w.width, 2);
}

#[test]
fn float_arrays_and_column_walks_are_not_grouped() {
    let ks = kernel(
        "
void f(float out[32][32], float in[32][32])
{
#pragma acc parallel loop collapse(2) copyin(in) copy(out)
for (int i = 0; i < 32; i++)
  for (int j = 0; j < 32; j++)
    out[i][j] = in[i][j] * 2.0f;
}
",
    );
    assert!(ks.preferred().words.is_none());
    assert_eq!(ks.words, Some(Err(NoWords::NoShortWords)));
    // A transpose of bytes: `in[j][i]` walks a column along x.
    let ks = kernel(
        "
void t(unsigned char out[32][32], unsigned char in[32][32])
{
#pragma acc parallel loop collapse(2) copyin(in) copy(out)
for (int i = 0; i < 32; i++)
  for (int j = 0; j < 32; j++)
    out[i][j] = in[j][i];
}
",
    );
    let w = ks.preferred().words.as_ref().expect("out is still grouped");
    assert_eq!(w.arrays.len(), 1);
    assert_eq!(w.arrays[0].name, "out");
    assert!(
        matches!(&w.rejected[..], [(a, WordsRejection::NotConsecutive { along: Along::X, .. })] if a == "in"),
        "{:?}",
        w.rejected
    );
    assert_eq!(
        w.rejected[0].1.to_string(),
        "`in[j][i]` is not at consecutive addresses along x (non-consecutive)"
    );
}

#[test]
fn in_place_updates_are_not_grouped() {
    let ks = kernel(
        "
void f(unsigned char a[32][32])
{
#pragma acc parallel loop collapse(2) copy(a)
for (int i = 0; i < 32; i++)
  for (int j = 0; j < 32; j++)
    a[i][j] += 1;
}
",
    );
    assert!(ks.preferred().words.is_none());
    assert_eq!(ks.words, Some(Err(NoWords::AllRejected)));
}

/// The same for a CPU device under `--opt share`.
fn cpu_kernel(src: &str) -> KernelSchedule {
    schedule(src, cpu_share())
}

#[test]
fn a_loop_free_byte_kernel_is_not_grouped_on_a_cpu() {
    let src = "
void t(int h, int w, unsigned char img[h][w], unsigned char out[h][w])
{
#pragma acc parallel loop collapse(2) copyin(img[0:h][0:w]) copyout(out[0:h][0:w])
for (int y = 0; y < h; y++)
  for (int x = 0; x < w; x++)
    out[y][x] = img[y][x] >= 128 ? img[y][x] : (unsigned char)(img[y][x] >> 1);
}
";
    // On a GPU the same kernel is grouped.
    assert!(kernel(src).preferred().words.is_some());
    let ks = cpu_kernel(src);
    assert!(ks
        .candidates
        .iter()
        .all(|c| c.words.is_none() && c.shape.cols.get() == 1));
    assert_eq!(ks.words, Some(Err(NoWords::LoopFreeOnCpu)));
    assert_eq!(
        NoWords::LoopFreeOnCpu.to_string(),
        "a loop-free nest on a CPU device: its OpenCL compiler vectorises it across work-items already"
    );
}

#[test]
fn a_byte_stencil_with_filter_loops_is_grouped_on_a_cpu() {
    let ks = cpu_kernel(GAUSS);
    let w = ks.preferred().words.as_ref().expect("short words");
    assert_eq!(w.width, 4);
}

/// `C[i][j] = A[j][i] + B[i][j]`: `A` is read along y (a gather across work-items along x).
const TADD: &str = "
void f(float C[45][70], float A[70][45], float B[45][70])
{
#pragma acc parallel loop collapse(2) copyin(A, B) copyout(C)
for (int i = 0; i < 45; i++)
  for (int j = 0; j < 70; j++)
    C[i][j] = 2.0f * A[j][i] + B[i][j];
}
";

/// The same transpose on flattened pointers, the strided access being the store (293×257:
/// at least `SMALL_TILE_OUTPUTS`).
const TSTORE: &str = "
void f(double *restrict out, const double *restrict in)
{
#pragma acc kernels loop independent collapse(2) copyin(in[0:293*257]) copyout(out[0:257*293])
for (int r = 0; r < 293; r++)
  for (int c = 0; c < 257; c++)
    out[c * 293 + r] = in[r * 257 + c];
}
";

#[test]
fn a_cpu_transpose_gets_a_4x4_vector_tile() {
    let ks = schedule(TADD, cpu_share());
    let s = ks.preferred();
    let w = s.words.as_ref().expect("a transposed vector tile");
    assert_eq!(
        (w.width, w.rows, s.shape.cols.get(), s.shape.rows.get()),
        (4, 4, 4, 4)
    );
    assert!(s.rows_adjacent());
    assert_eq!(s.shape.layout, crate::schedule::ColLayout::Contiguous);
    let arrays: Vec<(&str, bool, bool, bool)> = w
        .arrays
        .iter()
        .map(|a| (a.name.as_str(), a.loads, a.stores, a.along_y))
        .collect();
    assert_eq!(
        arrays,
        [
            ("A", true, false, true),
            ("B", true, false, false),
            ("C", false, true, false)
        ]
    );
    // Doubles: a 2×2 tile (16-byte vectors); the strided access is the store.
    let s = schedule(TSTORE, cpu_share()).preferred().clone();
    let w = s.words.as_ref().expect("a transposed vector tile");
    assert_eq!((w.width, w.rows), (2, 2));
    let out = w.arrays.iter().find(|a| a.name == "out").unwrap();
    assert!(out.stores && out.along_y);
}

/// A transposed vector tile groups an array along x or along y: the refusal of an array names
/// both directions, or the two its references mix, not only x.
#[test]
fn a_vector_tile_refusal_names_its_directions() {
    let rejected = |src: &str| -> Vec<(String, String)> {
        let s = schedule(src, cpu_share()).preferred().clone();
        let w = s.words.as_ref().expect("a transposed vector tile");
        assert_eq!(w.rows, 4);
        w.rejected
            .iter()
            .map(|(a, why)| (a.clone(), why.to_string()))
            .collect()
    };
    // `D[j][j]`: a diagonal, consecutive along neither.
    let diagonal = TADD
        .replace("float B[45][70])", "float B[45][70], float D[70][70])")
        .replace("copyin(A, B)", "copyin(A, B, D)")
        .replace("+ B[i][j];", "+ B[i][j] + D[j][j];");
    assert_eq!(
        rejected(&diagonal),
        [(
            "D".to_string(),
            "`D[j][j]` is not at consecutive addresses along x or along y (non-consecutive)"
                .to_string()
        )]
    );
    // `A` read along y and along x: its vectors cannot be both.
    let mixed = "
void f(float C[64][64], float A[64][64], float B[64][64])
{
#pragma acc parallel loop collapse(2) copyin(A, B) copyout(C)
for (int i = 0; i < 64; i++)
  for (int j = 0; j < 64; j++)
    C[i][j] = A[j][i] + A[i][j] + B[j][i];
}
";
    assert_eq!(
        rejected(mixed),
        [(
            "A".to_string(),
            "`A[j][i]` is at consecutive addresses along y, other references of the array along \
             x: its vectors are along one of them (non-consecutive)"
                .to_string()
        )]
    );
}

#[test]
fn no_vector_tile_on_a_gpu_with_an_inner_loop_or_without_a_strided_access() {
    let gpu = Coarsening {
        cpu: false,
        ..cpu_share()
    };
    assert!(schedule(TADD, gpu).preferred().words.is_none());
    // An inner loop: the compiler runs the work-items one at a time (a register tile's case).
    let looped = TADD
        .replace("float A[70][45]", "float A[70][45][3]")
        .replace(
            "C[i][j] = 2.0f * A[j][i] + B[i][j];",
            "{ float s = B[i][j]; for (int k = 0; k < 3; k++) s += A[j][i][k]; C[i][j] = s; }",
        );
    let ks = schedule(&looped, cpu_share());
    assert!(ks.preferred().words.is_none());
    // Every access along x: nothing to gather.
    let plain = TADD.replace("A[j][i]", "B[i][j]");
    assert!(schedule(&plain, cpu_share()).preferred().words.is_none());
}

/// A tile that replaces a scatter, or covers a non-rectangular domain, is not used on a small
/// grid of known extents; one that replaces a gather is, and so are unknown extents.
#[test]
fn small_scatters_and_small_triangles_get_no_vector_tile() {
    let small = TSTORE.replace("293", "37").replace("257", "53");
    let ks = schedule(&small, cpu_share());
    assert!(ks.preferred().words.is_none());
    let why = NoWords::SmallTile {
        outputs: 37 * 53,
        least: SMALL_TILE_OUTPUTS,
        rectangular: true,
    };
    assert_eq!(ks.words, Some(Err(why.clone())));
    assert_eq!(
        why.to_string(),
        "transposed vector tile not used: its array accessed along y is only written (the tile \
         replaces a scatter) on a grid of 1961 outputs (fewer than 65536), where the tile's edge \
         copies and fewer work-groups cost more than its vectors save"
    );
    // The same scatter with symbolic extents keeps its tile.
    let symbolic = "
void f(int n, int m, double out[m][n], const double in[n][m])
{
#pragma acc kernels loop independent collapse(2) copyin(in[0:n][0:m]) copyout(out[0:m][0:n])
for (int r = 0; r < n; r++)
  for (int c = 0; c < m; c++)
    out[c][r] = in[r][c];
}
";
    assert!(schedule(symbolic, cpu_share()).preferred().words.is_some());
    // TADD (45×70) gathers: tiled.
    assert!(schedule(TADD, cpu_share()).preferred().words.is_some());
    // A lower triangle read along y, 300² (fewer than 2^18 in its box), and 600².
    let triangle = |n: u32| {
        format!(
            "
void f(float out[{n}][{n}], float in[{n}][{n}])
{{
#pragma acc parallel loop copyin(in) copy(out)
for (int i = 0; i < {n}; i++)
#pragma acc loop
  for (int j = i; j < {n}; j++)
    out[i][j] = in[j][i];
}}
"
        )
    };
    let ks = schedule(&triangle(300), cpu_share());
    let why = NoWords::SmallTile {
        outputs: 90000,
        least: SMALL_TILE_OUTPUTS_IRREGULAR,
        rectangular: false,
    };
    assert_eq!(ks.words, Some(Err(why.clone())));
    assert_eq!(
        why.to_string(),
        "transposed vector tile not used: the loop bounds make the domain non-rectangular on a \
         grid of 90000 outputs (fewer than 262144), where the tile's edge copies and fewer \
         work-groups cost more than its vectors save"
    );
    assert!(schedule(&triangle(600), cpu_share())
        .preferred()
        .words
        .is_some());
}

/// A store under a condition has no vector form: the scatter it would replace stays, and no
/// tile is made for it; an array along x read under a condition is left out of the tile.
#[test]
fn conditional_accesses_are_not_grouped() {
    let clip = TSTORE.replace(
        "out[c * 293 + r] = in[r * 257 + c];",
        "if (in[r * 257 + c] > 0.0) out[c * 293 + r] = in[r * 257 + c];",
    );
    let ks = schedule(&clip, cpu_share());
    assert!(ks.preferred().words.is_none());
    assert!(ks.candidates.iter().all(|c| c.words.is_none()));
    let Some(Err(why)) = &ks.words else {
        panic!("{:?}", ks.words)
    };
    assert_eq!(
        why.to_string(),
        "transposed vector tile not used: `out[293*c + r]` is under a condition each output \
         evaluates apart, so its copies cannot share a vector (a conditional store has no vector \
         form) and the gather or scatter stays"
    );
    // `B` (along x) read only under a condition; `A` gathered unconditionally.
    let cond = TADD.replace(
        "C[i][j] = 2.0f * A[j][i] + B[i][j];",
        "{ float t = 2.0f * A[j][i]; if (t > 1.0f) t += B[i][j]; C[i][j] = t; }",
    );
    let s = schedule(&cond, cpu_share()).preferred().clone();
    let w = s.words.as_ref().expect("a transposed vector tile");
    let rejected: Vec<(String, String)> = w
        .rejected
        .iter()
        .map(|(a, why)| (a.clone(), why.to_string()))
        .collect();
    assert_eq!(
        rejected,
        [(
            "B".to_string(),
            "`B[i][j]` is under a condition each output evaluates apart: its copies cannot share \
             a vector"
                .to_string()
        )]
    );
}

/// Why a staged tile's copies are not grouped, as `explain` prints it.
#[test]
fn tile_copy_refusals_render() {
    assert_eq!(
        TileWordsRejection::Strided.to_string(),
        "its tile holds a field or a residue (AoS → SoA): a tile row is not adjacent in global memory"
    );
    assert_eq!(
        TileWordsRejection::Transposed.to_string(),
        "its tile is stored transposed: a global row is not adjacent in the tile"
    );
    assert_eq!(
        TileWordsRejection::Narrow {
            extent: 3,
            width: 4
        }
        .to_string(),
        "its tile rows hold 3 elements, fewer than a vector of 4"
    );
    assert_eq!(
        TileWordsRejection::Unaligned {
            offset: 1,
            width: 4
        }
        .to_string(),
        "its tile starts 1 element past a multiple of 4 along x (unaligned): every vector would straddle two words"
    );
    assert_eq!(
        TileWordsRejection::Unaligned {
            offset: 2,
            width: 4
        }
        .to_string(),
        "its tile starts 2 elements past a multiple of 4 along x (unaligned): every vector would straddle two words"
    );
}
