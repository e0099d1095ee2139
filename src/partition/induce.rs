//! Seeds induced for regions without hints ("staging without pragmas").
//!
//! Real OpenACC code has no `share` pragma. For a region with neither a `share` pragma nor a
//! `cache` directive, every array of each nest gets the seed a GPU programmer would write for
//! it, read off its references:
//! - a dimension moved by the strip-mine candidate (a sequential loop of step 1 at the top level
//!   of the innermost grid loop's body, with bounds no iterator changes: gemm's `k`, mv's `j`)
//!   is a `*` parameter, so the search chooses how deep the strip is;
//! - a dimension moved by a grid loop is that loop's block extent plus the constant halo of the
//!   array's references around it (`in[i-1][j]`, `in[i+1][j]` give `TB_Y + 2`);
//! - a dimension moved by nothing but constants and short constant loops (a filter's `di`), or
//!   moved differently by different references (syrk's `A[i][k]` and `A[j][k]`), is the hull
//!   of the references ([`SeedDim::Derived`], as `cache` seeds are).
//!
//! An array with a subscript outside these shapes (a coefficient other than 1 on a grid or
//! strip iterator, two moving iterators in one dimension, another sequential loop, a
//! non-affine subscript, two strip loops) stays unseeded, with the reason: those are the
//! shapes the staging pass refuses. The seeds only propose; the engine's profit model and
//! constraints decide what is staged, which may be nothing.

use crate::analysis::mapping::{strip_candidate, window};
use crate::ir::{LoopId, Poly, Region};
use crate::vocab::share::{PartExpr, PartExprKind, PartOp, TbDim};

use super::candidates::{Seed, SeedDim, SeedOrigin, Seeds, StarParam};
use super::nest::{Lin, Nest};

/// The induced seeds of one kernel and the arrays left without one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Induced {
    pub seeds: Seeds,
    /// Arrays of the nest without a seed, with the reason.
    pub unseeded: Vec<(String, NoSeed)>,
}

/// Why an array of a nest gets no induced seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoSeed {
    /// A subscript is not affine.
    NotAffine,
    /// The array is not subscripted.
    NotSubscripted,
    /// Its references subscript different numbers of dimensions.
    RankDiffers,
    /// Its references are strip-mined along two loops.
    TwoStripLoops,
    /// Not an array of the region.
    NotAnArray,
    /// A reference (`access`, as printed) may leave dimension `dim` (from 1) of the array,
    /// whose extent is `extent` (C text).
    MayLeave {
        access: String,
        dim: usize,
        extent: String,
    },
    /// Iterator `var` in subscript `text` is a grid index with a coefficient other than 1, a
    /// step other than 1, or beside another moving iterator.
    NotOneGridIndex { var: String, text: String },
    /// The strip-mined loop `var` is not alone with coefficient 1 in subscript `text`.
    StripNotAlone { var: String, text: String },
    /// Iterator `var` in subscript `text` is neither a grid index, the strip-mined loop nor a
    /// short constant loop.
    OtherLoop { var: String, text: String },
}

impl std::fmt::Display for NoSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoSeed::NotAffine => write!(f, "a subscript is not affine"),
            NoSeed::NotSubscripted => write!(f, "it is not subscripted"),
            NoSeed::RankDiffers => {
                write!(f, "its references subscript different numbers of dimensions")
            }
            NoSeed::TwoStripLoops => write!(f, "its references are strip-mined along two loops"),
            NoSeed::NotAnArray => write!(f, "not an array of the region"),
            NoSeed::MayLeave {
                access,
                dim,
                extent,
            } => write!(
                f,
                "`{}` may leave dimension {} of the array (extent {}): the tile is loaded only inside it",
                access, dim, extent
            ),
            NoSeed::NotOneGridIndex { var, text } => write!(
                f,
                "`{}` is not one grid index plus constants in `{}`",
                var, text
            ),
            NoSeed::StripNotAlone { var, text } => write!(
                f,
                "the strip-mined loop `{}` is not alone with coefficient 1 in `{}`",
                var, text
            ),
            NoSeed::OtherLoop { var, text } => write!(
                f,
                "`{}` in `{}` is neither a grid index, the strip-mined loop nor a short constant loop",
                var, text
            ),
        }
    }
}

impl std::error::Error for NoSeed {}

/// Whether the engine induces seeds for `region`: it has no `share` pragma and no `cache`
/// directive (hints, where present, win).
pub fn applies(region: &Region) -> bool {
    region.share.is_none() && region.cache.is_empty()
}

/// What moves one dimension of one reference.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mover {
    Nothing,
    Grid(TbDim),
    Strip(LoopId),
}

/// One dimension of one reference: its mover and the constant offsets around it (inclusive).
#[derive(Clone, Copy, Debug)]
struct DimView {
    mover: Mover,
    lo: i64,
    hi: i64,
}

/// The strip-mine candidate of the nest (`analysis::mapping::strip_candidate`).
fn is_strip(region: &Region, nest: &Nest, l: LoopId) -> bool {
    !nest.is_mapped(l)
        && nest
            .mapped
            .last()
            .is_some_and(|&(inner, _)| strip_candidate(region, inner, l))
}

/// The view of one subscript, or why it has no seed.
fn view(region: &Region, nest: &Nest, lin: &Lin, text: &str) -> Result<DimView, NoSeed> {
    let mut v = DimView {
        mover: Mover::Nothing,
        lo: lin.base,
        hi: lin.base,
    };
    for (&l, &c) in &lin.coef {
        if c == 0 || nest.trip_of(l) <= 1 {
            continue;
        }
        let name = nest.name(l);
        if let Some(d) = nest.tb_of(l) {
            if c != 1 || region.loops[l].step != 1 || v.mover != Mover::Nothing {
                return Err(NoSeed::NotOneGridIndex {
                    var: name.to_string(),
                    text: text.to_string(),
                });
            }
            v.mover = Mover::Grid(d);
        } else if is_strip(region, nest, l) {
            if c != 1 || v.mover != Mover::Nothing {
                return Err(NoSeed::StripNotAlone {
                    var: name.to_string(),
                    text: text.to_string(),
                });
            }
            v.mover = Mover::Strip(l);
        } else if window(region, l).is_some() {
            let span = c.saturating_mul(nest.trip_of(l) - 1);
            v.lo = v.lo.saturating_add(span.min(0));
            v.hi = v.hi.saturating_add(span.max(0));
        } else {
            return Err(NoSeed::OtherLoop {
                var: name.to_string(),
                text: text.to_string(),
            });
        }
    }
    Ok(v)
}

fn part(kind: PartExprKind, region: &Region) -> PartExpr {
    PartExpr {
        kind,
        span: region.span,
    }
}

/// `TB_d + halo` (`TB_d` alone without a halo).
fn block_extent(d: TbDim, halo: i64, region: &Region) -> PartExpr {
    let tb = part(PartExprKind::Tb(d), region);
    if halo == 0 {
        return tb;
    }
    part(
        PartExprKind::Bin(
            PartOp::Add,
            Box::new(tb),
            Box::new(part(PartExprKind::Int(halo), region)),
        ),
        region,
    )
}

/// The least and greatest value of subscript `p` of a reference enclosed by `loops`, as
/// polynomials over the region's parameters: each iterator with coefficient 1 spans its loop's
/// range (step ±1), each other term must be a constant multiple of a short constant loop's
/// iterator or a constant. `None` where that is not the shape.
fn subscript_range(region: &Region, loops: &[LoopId], p: &Poly) -> Option<(Poly, Poly)> {
    let mut rest = p.clone();
    let (mut lo, mut hi) = (Poly::zero(), Poly::zero());
    for sym in p.symbols() {
        let Some(&l) = loops.iter().find(|&&l| region.loops[l].var == sym) else {
            continue;
        };
        let (coef, r) = rest.split(sym)?;
        rest = r;
        let c = coef.as_const()?;
        let lp = &region.loops[l];
        let (first, last) = match lp.step {
            1 => (
                lp.lower.affine()?.clone(),
                lp.upper.affine()?.sub(&Poly::constant(1))?,
            ),
            -1 => (
                lp.upper.affine()?.add(&Poly::constant(1))?,
                lp.lower.affine()?.clone(),
            ),
            _ => return None,
        };
        let (a, b) = (first.scale(c)?, last.scale(c)?);
        let (a, b) = if c >= 0 { (a, b) } else { (b, a) };
        lo = lo.add(&a)?;
        hi = hi.add(&b)?;
    }
    rest.as_const()?;
    Some((lo.add(&rest)?, hi.add(&rest)?))
}

/// Whether every reference of `array` in the nest provably stays inside the array's declared
/// extents (where they are known). The staged tile is loaded only inside them, so a program
/// that walks past the end of a row into the next (`C[k][j]` with `j` up to another size than
/// the row length, as some PolyBench ports do) would read elements the tile never loaded.
fn within_extents(region: &Region, nest: &Nest, array: &str) -> Result<(), NoSeed> {
    let Some(info) = region.arrays.get(array) else {
        return Err(NoSeed::NotAnArray);
    };
    for a in region
        .accesses
        .iter()
        .filter(|a| a.array == array && a.loops.first() == Some(&nest.root))
    {
        for (d, (sub, ext)) in a.subscripts.iter().zip(&info.extents).enumerate() {
            let (Some(sub), Some(ext)) = (sub, ext) else {
                continue;
            };
            let inside = subscript_range(region, &a.loops, sub).is_some_and(|(lo, hi)| {
                lo.as_const().is_some_and(|v| v >= 0)
                    && ext
                        .sub(&hi)
                        .and_then(|x| x.as_const())
                        .is_some_and(|v| v >= 1)
            });
            if !inside {
                return Err(NoSeed::MayLeave {
                    access: region.fmt_access(a.id),
                    dim: d + 1,
                    extent: ext.to_c(),
                });
            }
        }
    }
    Ok(())
}

/// The seed of one array from its references, or why it has none.
fn seed_of(
    region: &Region,
    nest: &Nest,
    array: &str,
) -> Result<Vec<(Mover, i64, i64, bool)>, NoSeed> {
    if nest.nonaffine.contains(array) {
        return Err(NoSeed::NotAffine);
    }
    let refs: Vec<_> = nest.refs.iter().filter(|r| r.array == array).collect();
    let rank = refs.first().map_or(0, |r| r.dims.len());
    if rank == 0 {
        return Err(NoSeed::NotSubscripted);
    }
    if refs.iter().any(|r| r.dims.len() != rank) {
        return Err(NoSeed::RankDiffers);
    }
    within_extents(region, nest, array)?;
    // Per dimension: the common mover (`agree` false when references disagree) and the hull of
    // the offsets.
    let mut dims: Vec<(Mover, i64, i64, bool)> = Vec::with_capacity(rank);
    let mut strip: Option<LoopId> = None;
    for (i, r) in refs.iter().enumerate() {
        for (d, lin) in r.dims.iter().enumerate() {
            let v = view(region, nest, lin, &r.text)?;
            if let Mover::Strip(l) = v.mover {
                if strip.is_some_and(|s| s != l) {
                    return Err(NoSeed::TwoStripLoops);
                }
                strip = Some(l);
            }
            if i == 0 {
                dims.push((v.mover, v.lo, v.hi, true));
            } else if let Some(x) = dims.get_mut(d) {
                x.3 &= x.0 == v.mover;
                x.1 = x.1.min(v.lo);
                x.2 = x.2.max(v.hi);
            }
        }
    }
    Ok(dims)
}

/// The seeds of one nest of a region without hints: one per array the staging can handle, in
/// the order of the arrays' first references; `*` parameters are named `k1, k2, …` in order.
pub fn induce(region: &Region, nest: &Nest) -> Induced {
    let mut out = Induced::default();
    let mut arrays: Vec<&str> = Vec::new();
    for r in &nest.refs {
        if !arrays.contains(&r.array.as_str()) {
            arrays.push(&r.array);
        }
    }
    for a in &nest.nonaffine {
        if !arrays.contains(&a.as_str()) {
            arrays.push(a);
        }
    }
    for array in arrays {
        let dims = match seed_of(region, nest, array) {
            Ok(d) => d,
            Err(why) => {
                out.unseeded.push((array.to_string(), why));
                continue;
            }
        };
        let mut seed_dims = Vec::with_capacity(dims.len());
        for (d, (mover, lo, hi, agree)) in dims.into_iter().enumerate() {
            seed_dims.push(match (mover, agree) {
                (Mover::Strip(_), true) => {
                    let n = out.seeds.params.len() + 1;
                    out.seeds.params.push(StarParam {
                        name: format!("k{}", n),
                        array: array.to_string(),
                        dim: d,
                    });
                    SeedDim::Star(n - 1)
                }
                (Mover::Grid(t), true) => {
                    SeedDim::Expr(block_extent(t, hi.saturating_sub(lo), region))
                }
                _ => SeedDim::Derived,
            });
        }
        out.seeds.seeds.push(Seed {
            array: array.to_string(),
            dims: seed_dims,
            coalesce: false,
            origin: SeedOrigin::Induced,
            span: region.span,
        });
    }
    out
}
