use super::*;
use crate::analysis::dependence;
use crate::analysis::dependence::DepInfo;
use crate::diag::{Diags, SourceMap};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::find_regions;

/// The first compute region of `src` and its dependences (panics on front-end errors: the
/// sources of the tests are fixed).
pub(crate) fn first_region(src: &str) -> (RegionAst, DepInfo) {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let main = sources.add("t.c", "t.c".into(), src.to_string());
    let parsed = crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
    let rs = find_regions(&parsed.tu, &sources, &mut diags);
    assert!(!diags.has_errors());
    let r = rs.compute.into_iter().next().expect("a compute region");
    let d = dependence::analyze(&r.ir);
    (r, d)
}

/// The schedules of the first kernel of `src` (one compute region), unstaged, with `ilp`.
pub(crate) fn schedule(src: &str, ilp: Coarsening) -> KernelSchedule {
    let (r, d) = first_region(src);
    schedule_kernel(&r, &d, r.ir.roots[0], None, ilp, &mut Diags::new()).unwrap()
}

/// What `schedule_region` asks of an unstaged kernel for a CPU device under `--opt share`.
pub(crate) fn cpu_share() -> Coarsening {
    Coarsening {
        unstaged: true,
        cpu: true,
        words: true,
        fit: true,
        // Twice the 2 compute units of `pocl-cpu`.
        groups: 4,
        ..Default::default()
    }
}

/// `acc[p][q]` over `q < 3`, with a sequential loop inside.
const NARROW: &str = "
void f(float acc[900][3], float w[300][900][3])
{
#pragma acc parallel loop collapse(2) copyin(w) copy(acc)
for (int p = 0; p < 900; p++)
  for (int q = 0; q < 3; q++) {
    float s = acc[p][q];
    for (int t = 0; t < 300; t++)
      s = s * 0.75f + w[t][p][q];
    acc[p][q] = s;
  }
}
";

#[test]
fn cpu_blocks_and_tiles_fit_a_known_extent() {
    let ks = schedule(NARROW, cpu_share());
    // The baseline's 32 work-items along x become 4 (covering q's 3), 64 along y instead of 8.
    assert_eq!(ks.baseline().shape.block, [4, 64, 1]);
    // The tile's 4 adjacent columns (SIMD lanes: the body has a loop) become 2, the largest
    // power of two within 3; its 8 work-items along x become 2 (covering 3 with 2 columns
    // each), its 8 along y 32.
    let t = ks.preferred();
    assert_eq!(t.shape.tile(), (1, 2));
    assert_eq!(t.launch_block(), [2, 32, 1]);
    assert_eq!(t.shape.block, [4, 32, 1]);
}

#[test]
fn gpu_blocks_and_unknown_extents_are_not_fitted() {
    // Not on a GPU: the baseline is the engine's default block.
    let ks = schedule(
        NARROW,
        Coarsening {
            fit: false,
            ..cpu_share()
        },
    );
    assert_eq!(ks.baseline().shape.block, [32, 8, 1]);
    assert_eq!(ks.preferred().shape.cols.get(), 4);
    // Not where the extent is a parameter.
    let ks = schedule(
        &NARROW
            .replace(
                "float acc[900][3], float w[300][900][3]",
                "int n, float acc[900][n], float w[300][900][n]",
            )
            .replace("q < 3", "q < n"),
        cpu_share(),
    );
    assert_eq!(ks.baseline().shape.block, [32, 8, 1]);
    assert_eq!(ks.preferred().shape.cols.get(), 4);
}

#[test]
fn a_small_grid_of_known_extents_keeps_every_core_busy() {
    // 300 rows, 2 per work-item: 256 work-items would be one block (one core of two idle);
    // 32 make 5 blocks, at least the 4 asked for (64 would make 3).
    let small = LINE
        .replace(
            "int m, int n, float A[m][n], float x[n], float y[m]",
            "float A[300][200], float x[200], float y[300]",
        )
        .replace("i < m", "i < 300")
        .replace("j < n", "j < 200")
        .replace("A[0:m][0:n], x[0:n]", "A, x")
        .replace("y[0:m]", "y");
    let t = schedule(&small, cpu_share()).preferred().clone();
    assert_eq!(
        (t.shape.cols.get(), t.launch_block()),
        (CPU_LINE_TILE, [32, 1, 1])
    );
    assert_eq!(300u32.div_ceil(t.shape.block[0]), 5);
    // Without a minimum, one block.
    let one = Coarsening {
        groups: 0,
        ..cpu_share()
    };
    assert_eq!(
        schedule(&small, one).preferred().launch_block(),
        [256, 1, 1]
    );
    // Too little work to wake a second core (300 rows of 20: fewer than CPU_MIN_SPLIT_WORK
    // iterations): one block.
    let little = small.replace("200", "20");
    assert_eq!(
        schedule(&little, cpu_share()).preferred().launch_block(),
        [256, 1, 1]
    );
    // In 2-D, the dimension that gains the most blocks is halved, never x below
    // CPU_MIN_BLOCK_X work-items (here x covers q < 3 with at most 4 already: only y shrinks).
    let tiny = NARROW.replace("900", "20");
    let ks = schedule(&tiny, cpu_share());
    let ks0 = schedule(
        &tiny,
        Coarsening {
            groups: 0,
            ..cpu_share()
        },
    );
    assert_eq!(ks.candidates.len(), ks0.candidates.len());
    for (s, s0) in ks.candidates.iter().zip(&ks0.candidates) {
        let (b, b0) = (s.launch_block(), s0.launch_block());
        let groups = 3u32.div_ceil(s.shape.block[0]) * 20u32.div_ceil(s.shape.block[1]);
        assert!(groups >= 4, "{:?}", s.shape.block);
        assert_eq!(b[0], b0[0]);
        assert!(b[1] < b0[1], "{:?} {:?}", b, b0);
    }
}

/// mv on a VLA: a 1-D grid whose outputs share `x[j]`.
const LINE: &str = "
void f(int m, int n, float A[m][n], float x[n], float y[m])
{
#pragma acc parallel loop copyin(A[0:m][0:n], x[0:n]) copyout(y[0:m])
for (int i = 0; i < m; i++) {
  float s = 0.0f;
  for (int j = 0; j < n; j++)
    s += A[i][j] * x[j];
  y[i] = s;
}
}
";

#[test]
fn a_cpu_line_tile_has_two_copies_and_a_gpu_one_four() {
    let t = schedule(LINE, cpu_share()).preferred().clone();
    assert_eq!(
        (t.shape.rows.get(), t.shape.cols.get(), t.shape.layout),
        (1, CPU_LINE_TILE, ColLayout::Cyclic)
    );
    assert_eq!(CPU_LINE_TILE, 2);
    let gpu = Coarsening {
        cpu: false,
        ..cpu_share()
    };
    let t = schedule(LINE, gpu).preferred().clone();
    assert_eq!(t.shape.tile(), (1, TILE_DEFAULT));
    // An explicit factor is kept on a CPU.
    let asked = Coarsening {
        shape: ShapeRequest {
            cols: NonZeroU32::new(4),
            ..ShapeRequest::default()
        },
        ..cpu_share()
    };
    assert_eq!(schedule(LINE, asked).preferred().shape.cols.get(), 4);
}
