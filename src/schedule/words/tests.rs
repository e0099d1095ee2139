use super::*;
use crate::analysis::dependence;
use crate::diag::{Diags, SourceMap};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::find_regions;
use crate::schedule::{schedule_kernel, Coarsening, KernelSchedule};

/// The schedules of the first kernel of `src`, unstaged, with short words considered.
fn kernel(src: &str) -> KernelSchedule {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let main = sources.add("t.c", "t.c".into(), src.to_string());
    let parsed = crate::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
    let rs = find_regions(&parsed.tu, &sources, &mut diags);
    assert!(!diags.has_errors());
    let r = &rs.compute[0];
    let d = dependence::analyze(&r.ir);
    let ilp = Coarsening {
        words: true,
        ..Default::default()
    };
    schedule_kernel(r, &d, r.ir.roots[0], None, ilp, &mut diags).unwrap()
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
    assert_eq!((w.width, s.cols, s.ilp), (4, 4, 1));
    // The launched block is the baseline's: 4 columns per work-item.
    assert_eq!(s.launch_block(), ks.baseline().block);
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
        matches!(&w.rejected[..], [(a, WordsRejection::NotConsecutive(_))] if a == "in"),
        "{:?}",
        w.rejected
    );
    assert!(w.rejected[0].1.to_string().contains("non-consecutive"));
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
