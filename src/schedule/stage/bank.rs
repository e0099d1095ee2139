//! Bank conflicts of a tile (the paper's §3.3.1, Table 1 and Fig. 4): the conflict degree of a
//! layout computed statically with the simulator's formula, and the decision tree that chooses
//! a technique per tile and records the path it took.
//!
//! The degree of a warp's request is the simulator's (`sim::exec::run::access`): lanes are
//! served in groups (the platform's `lanes_per_cycle`, and for elements wider than a bank as
//! many lanes as the banks hold elements); per group the busiest bank's distinct words over the
//! fewest wavefronts the same words need (`ceil(words / banks)`); the request's degree is the
//! largest over its groups. Here the request is the first warp of the block, for every
//! reference of the tile (lanes move along the grid dimensions as the tile's dimensions do) and
//! for the cooperative copy that fills the tile (and stores it back), which conflicts too when a
//! layout scatters a global row.
//!
//! Techniques implemented: **padding** (rows lengthened; shared memory it costs),
//! **transpose** (a 2-D tile stored column-major: no extra space, the copy's stores counted), and
//! **access reorder** (a kernel-wide decision over every tile the strip-mined loop walks, taken
//! after the tiles' own: `super::decide_reorder`), and **AoS → SoA** (an array of structs staged
//! as one tile per field, [`aos_to_soa`]: the degree before is the struct tiled as it is, a
//! stride of the struct's size, and the field tile then goes down the rest of the tree).

use super::{Primary, TileDim};

/// The shared memory's banks as the hardware serves them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Banks {
    pub banks: u32,
    /// Bytes of one bank word.
    pub width: u32,
    /// Lanes the banks serve together (a warp on NVIDIA, half a 64-wide wavefront on AMD).
    pub lanes: u32,
    /// Lanes of one memory instruction (warp / wavefront).
    pub warp: u32,
    /// A wider bank mode the host can select for a kernel (Kepler's 8 bytes), or 0.
    pub wide: u32,
}

impl Default for Banks {
    /// Every NVIDIA GPU since Fermi: 32 banks of 4 bytes serving a 32-wide warp.
    fn default() -> Self {
        Banks {
            banks: 32,
            width: 4,
            lanes: 32,
            warp: 32,
            wide: 0,
        }
    }
}

impl Banks {
    pub fn of(p: &crate::model::Platform) -> Banks {
        Banks {
            banks: p.banks.max(1),
            width: p.bank_width.max(1),
            lanes: p.shared_lanes.clamp(1, p.warp_size.max(1)),
            warp: p.warp_size.max(1),
            wide: p
                .bank_modes
                .iter()
                .copied()
                .filter(|&w| w > p.bank_width)
                .max()
                .unwrap_or(0),
        }
    }

    /// Wavefronts and conflict degree of one request whose active lanes (in lane order) reach
    /// the given element offsets of a tile of `elem`-byte elements.
    pub fn request(&self, lanes: &[Option<u64>], elem: u32) -> (u64, u32) {
        let (bw, nb) = (self.width.max(1) as u64, self.banks.max(1) as u64);
        let size = elem.max(1) as u64;
        let phase = ((nb * bw) / size).max(1) as usize;
        let group = (self.lanes as usize).min(phase).max(1);
        let (mut waves, mut degree) = (0u64, 1u32);
        for g in lanes.chunks(group) {
            let mut words: Vec<u64> = Vec::new();
            for off in g.iter().flatten() {
                let b = off * size;
                words.extend(b / bw..=(b + size - 1) / bw);
            }
            if words.is_empty() {
                continue;
            }
            words.sort_unstable();
            words.dedup();
            let mut per_bank = vec![0u64; nb as usize];
            for w in &words {
                per_bank[(w % nb) as usize] += 1;
            }
            let w = per_bank.iter().copied().max().unwrap_or(1).max(1);
            let min = (words.len() as u64).div_ceil(nb).max(1);
            waves += w;
            degree = degree.max(w.div_ceil(min) as u32);
        }
        (waves, degree)
    }
}

/// How a tile is laid out in shared memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Length of a row in memory (the last dimension's extent, or more: padding).
    pub row_len: u32,
    /// A 2-D tile stored column-major (`t[c][r]` holds element `[r][c]`).
    pub transposed: bool,
    /// Elements after each stored column of a transposed tile (its columns
    /// `dims[0].extent + col_pad` apart; `schedule::micro` pads the k-major tile it reads as
    /// vectors); 0 otherwise.
    pub col_pad: u32,
}

/// Element strides of each tile dimension under a layout.
pub fn strides(dims: &[TileDim], layout: Layout) -> Vec<u32> {
    let n = dims.len();
    if layout.transposed && n == 2 {
        return vec![1, dims[0].extent + layout.col_pad];
    }
    let mut s = vec![1u32; n];
    for d in (0..n.saturating_sub(1)).rev() {
        let next = if d + 1 == n - 1 {
            layout.row_len
        } else {
            dims[d + 1].extent
        };
        s[d] = s[d + 1] * next;
    }
    s
}

/// Elements of the tile under a layout.
pub fn len(dims: &[TileDim], layout: Layout) -> u32 {
    let n = dims.len();
    if layout.transposed && n == 2 {
        return (dims[0].extent + layout.col_pad) * dims[1].extent;
    }
    dims[..n.saturating_sub(1)]
        .iter()
        .map(|d| d.extent)
        .product::<u32>()
        * layout.row_len
}

/// A bank-conflict technique (Table 1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Technique {
    /// The tile is conflict-free as laid out, or no technique helps.
    None,
    Padding,
    Transpose,
    /// Access reorder (Table 1): the strip-mined loop of an associative reduction starts at a
    /// different iterate in every work-item (`(k + lx) mod n`), so the lanes of a warp read
    /// different columns of a tile row. A kernel-wide decision ([`super::Reorder`]).
    Reorder,
    /// AoS → SoA (Table 1): an array of structs staged as one tile per referenced field, so
    /// that consecutive work-items read consecutive words of a field instead of words a
    /// struct's size apart.
    AosToSoa,
}

impl Technique {
    pub fn name(self) -> &'static str {
        match self {
            Technique::None => "none",
            Technique::Padding => "padding",
            Technique::Transpose => "transpose",
            Technique::Reorder => "access reorder",
            Technique::AosToSoa => "AoS→SoA",
        }
    }
}

/// The decision for one tile: the technique, the path through the tree, and the conflict
/// degree (largest over the tile's references and its copy) before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct BankChoice {
    pub technique: Technique,
    pub layout: Layout,
    /// The tree's path: one step per feature tested, `feature: value → consequence`.
    pub path: Vec<String>,
    /// Why the technique was chosen (one sentence).
    pub why: String,
    pub degree_before: u32,
    pub degree_after: u32,
    /// Wavefronts of the first warp's requests (every reference once, plus the copy) before and
    /// after.
    pub wavefronts_before: u64,
    pub wavefronts_after: u64,
    /// Extra bytes of shared memory the technique takes.
    pub extra_bytes: u64,
}

/// Cost of a layout: the largest degree, and wavefronts of the first warp (each reference of
/// the tile once, the copy once).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Cost {
    degree: u32,
    waves: u64,
}

fn lane_xyz(l: u64, block: [u32; 3]) -> (u64, u64, u64) {
    let (bx, by) = (block[0].max(1) as u64, block[1].max(1) as u64);
    (l % bx, (l / bx) % by, l / (bx * by))
}

fn cost(
    dims: &[TileDim],
    layout: Layout,
    block: [u32; 3],
    elem: u32,
    b: &Banks,
    refs: usize,
) -> Cost {
    cost_rotated(dims, layout, block, elem, b, refs, false)
}

/// Degree and wavefronts of the first warp (each reference once, the copy once) of a tile laid
/// out as `layout`; `rotate`: the strip-mined loop is reordered ([`Technique::Reorder`]), so the
/// lane at `x` of the block reads the strip's iterate `x mod extent` first.
pub fn layout_cost(
    dims: &[TileDim],
    layout: Layout,
    block: [u32; 3],
    elem: u32,
    b: &Banks,
    refs: usize,
    rotate: bool,
) -> (u32, u64) {
    let c = cost_rotated(dims, layout, block, elem, b, refs, rotate);
    (c.degree, c.waves)
}

fn cost_rotated(
    dims: &[TileDim],
    layout: Layout,
    block: [u32; 3],
    elem: u32,
    b: &Banks,
    refs: usize,
    rotate: bool,
) -> Cost {
    let s = strides(dims, layout);
    let threads: u64 = block.iter().map(|&x| x.max(1) as u64).product();
    let lanes = threads.min(b.warp as u64);
    // A reference: each tile dimension moves with its grid dimension (nothing else differs
    // between the lanes of a warp).
    let step = |g: u8| -> u64 {
        dims.iter()
            .zip(&s)
            .filter(|(t, _)| matches!(t.primary, Primary::Grid { dim, .. } if dim == g))
            .map(|(_, x)| *x as u64)
            .sum()
    };
    let (sx, sy, sz) = (step(0), step(1), step(2));
    // The strip dimensions a reordered loop rotates: (extent, stride).
    let strip: Vec<(u64, u64)> = dims
        .iter()
        .zip(&s)
        .filter(|(t, _)| rotate && t.primary == Primary::Strip)
        .map(|(t, x)| (t.extent.max(1) as u64, *x as u64))
        .collect();
    let reference: Vec<Option<u64>> = (0..lanes)
        .map(|l| {
            let (x, y, z) = lane_xyz(l, block);
            let r: u64 = strip.iter().map(|(e, st)| (x % e) * st).sum();
            Some(x * sx + y * sy + z * sz + r)
        })
        .collect();
    let (rw, rd) = b.request(&reference, elem);
    // The copy: 2-D tiles by 2-D blocks row by row (`kernel::lower::staged::tile_copy_2d`),
    // anything else through the flat walk of the layout's rows. Rows per work-item can make the
    // launched block one row high (a flat copy), so a 2-D tile counts the worse of both.
    let n = dims.len();
    let walked: Vec<u64> = (0..n)
        .map(|d| {
            let e = if d + 1 == n && !layout.transposed {
                layout.row_len.max(dims[d].extent)
            } else {
                dims[d].extent
            };
            e.max(1) as u64
        })
        .collect();
    let flat: Vec<Option<u64>> = (0..lanes)
        .map(|l| {
            let mut rest = l;
            let mut off = 0u64;
            for d in (0..n).rev() {
                let i = rest % walked[d];
                rest /= walked[d];
                if i >= dims[d].extent as u64 {
                    return None;
                }
                off += i * s[d] as u64;
            }
            (rest == 0).then_some(off)
        })
        .collect();
    let (mut cw, mut cd) = b.request(&flat, elem);
    if n == 2 && block[1] > 1 && block[2] == 1 {
        let rows: Vec<Option<u64>> = (0..lanes)
            .map(|l| {
                let (c, r, _) = lane_xyz(l, block);
                (r < dims[0].extent as u64 && c < dims[1].extent as u64)
                    .then(|| r * s[0] as u64 + c * s[1] as u64)
            })
            .collect();
        let (w2, d2) = b.request(&rows, elem);
        cw = cw.max(w2);
        cd = cd.max(d2);
    }
    Cost {
        degree: rd.max(cd),
        waves: rw * refs.max(1) as u64 + cw,
    }
}

/// The decision tree (Fig. 4) for one tile of `elem`-byte elements, read by `refs` references
/// in a block of `block` work-items; `spare` bytes of shared memory are left for padding;
/// `enabled` false (what `accshare bench` measures as +share) applies no technique.
pub fn decide(
    dims: &[TileDim],
    block: [u32; 3],
    elem: u32,
    refs: usize,
    b: &Banks,
    spare: u64,
    enabled: bool,
) -> BankChoice {
    let row = dims.last().map(|d| d.extent).unwrap_or(1);
    let natural = Layout {
        row_len: row,
        transposed: false,
        col_pad: 0,
    };
    let cost_of = |l: Layout| cost(dims, l, block, elem, b, refs);
    let before = cost_of(natural);
    let mut path = vec!["AoS: no (not an array of structures) → not AoS→SoA".to_string()];
    if let Some(why) = left_as_laid_out(dims, before, enabled, &mut path) {
        return choice(before, Technique::None, natural, path, why, before, 0);
    }
    let column = dims[..dims.len().saturating_sub(1)]
        .iter()
        .any(|d| matches!(d.primary, Primary::Grid { dim: 0, .. }));
    let words = row as u64 * elem as u64 / b.width.max(1) as u64;
    path.push(format!(
        "2-D strided reference: yes (degree {}{})",
        before.degree,
        if column {
            ", consecutive work-items walk a column"
        } else {
            ""
        }
    ));
    path.push(format!(
        "width mod banks: {} words mod {} = {}",
        words,
        b.banks,
        words % b.banks.max(1) as u64
    ));
    // Padding: the smallest pad that gives the least cost, up to a quarter of the row (at least
    // one element) and within the spare shared memory.
    let rows_above: u64 = dims[..dims.len() - 1]
        .iter()
        .map(|d| d.extent as u64)
        .product();
    let max_pad = (row / 4).clamp(1, b.banks.max(2) - 1);
    let (pad_best, no_room) = best_padding(&cost_of, row, max_pad, rows_above, elem, spare);
    let pad_best = pad_best.filter(|(c, _)| (c.degree, c.waves) < (before.degree, before.waves));
    // Transpose: a 2-D tile read by column, stored column-major (its copy's stores counted).
    let tr = (dims.len() == 2 && column).then(|| {
        let l = Layout {
            row_len: row,
            transposed: true,
            col_pad: 0,
        };
        (cost_of(l), l)
    });
    let tr = tr.filter(|(c, _)| (c.degree, c.waves) < (before.degree, before.waves));
    let evaluated = Evaluated {
        before,
        natural,
        row,
        rows_above,
        elem,
        max_pad,
        column,
        no_room,
        pad: pad_best,
        transpose: tr,
    };
    verdict(evaluated, path)
}

/// The decision `technique` (the tile laid out as `layout`, `extra` bytes of padding), reached
/// by `path` for the reason `why`, at cost `after` against the natural layout's `before`.
fn choice(
    before: Cost,
    technique: Technique,
    layout: Layout,
    path: Vec<String>,
    why: String,
    after: Cost,
    extra: u64,
) -> BankChoice {
    BankChoice {
        technique,
        layout,
        path,
        why,
        degree_before: before.degree,
        degree_after: after.degree,
        wavefronts_before: before.waves,
        wavefronts_after: after.waves,
        extra_bytes: extra,
    }
}

/// Why a tile of cost `before` keeps its natural layout without evaluating a technique (the
/// techniques off, no conflict, a 1-D tile), its steps added to `path`; `None` when the tree
/// goes on to padding and transpose.
fn left_as_laid_out(
    dims: &[TileDim],
    before: Cost,
    enabled: bool,
    path: &mut Vec<String>,
) -> Option<String> {
    if !enabled {
        path.push("bank-conflict techniques off".to_string());
        return Some("bank-conflict techniques are off at this level".to_string());
    }
    if before.degree <= 1 {
        path.push(format!(
            "degree {}: conflict-free as laid out",
            before.degree
        ));
        return Some("no bank conflict to remove".to_string());
    }
    if dims.len() < 2 {
        path.push(format!(
            "2-D strided reference: no (1-D tile, degree {}) → no layout change applies",
            before.degree
        ));
        path.push(
            "associative operation over a row: decided for the kernel (access reorder of its strip-mined loop)"
                .into(),
        );
        return Some(
            "a 1-D tile with unit-stride references: neither padding nor transpose changes it"
                .to_string(),
        );
    }
    None
}

/// The smallest pad of rows of `row` elements (up to `max_pad`; `rows_above` rows of
/// `elem`-byte elements, within `spare` bytes) that gives the least cost by `cost_of`: its cost
/// and padded row length; and whether a pad did not fit in the spare shared memory.
fn best_padding(
    cost_of: &dyn Fn(Layout) -> Cost,
    row: u32,
    max_pad: u32,
    rows_above: u64,
    elem: u32,
    spare: u64,
) -> (Option<(Cost, u32)>, bool) {
    let mut pad_best: Option<(Cost, u32)> = None;
    let mut no_room = false;
    for pad in 1..=max_pad {
        let extra = rows_above * pad as u64 * elem as u64;
        if extra > spare {
            no_room = true;
            break;
        }
        let l = Layout {
            row_len: row + pad,
            transposed: false,
            col_pad: 0,
        };
        let c = cost_of(l);
        if pad_best.is_none_or(|(bc, _)| (c.degree, c.waves) < (bc.degree, bc.waves)) {
            pad_best = Some((c, row + pad));
        }
    }
    (pad_best, no_room)
}

/// What [`decide`] evaluated for a 2-D tile with a conflict, for [`verdict`].
struct Evaluated {
    /// The natural layout and its cost.
    before: Cost,
    natural: Layout,
    /// Elements of a row, rows above the last dimension, bytes of an element.
    row: u32,
    rows_above: u64,
    elem: u32,
    /// The largest pad tried.
    max_pad: u32,
    /// Consecutive work-items walk a column.
    column: bool,
    /// A pad did not fit in the spare shared memory.
    no_room: bool,
    /// The best padding, where it lowers the cost: its cost and padded row length.
    pad: Option<(Cost, u32)>,
    /// The transpose, where it lowers the cost: its cost and layout.
    transpose: Option<(Cost, Layout)>,
}

/// The tree's last step: transpose, padding or neither, from what [`decide`] evaluated,
/// its step added to `path`.
fn verdict(e: Evaluated, mut path: Vec<String>) -> BankChoice {
    let Evaluated {
        before,
        natural,
        row,
        rows_above,
        elem,
        max_pad,
        column,
        no_room,
        pad: pad_best,
        transpose: tr,
    } = e;
    match (pad_best, tr) {
        (Some((pc, r)), Some((tc, tl))) if (tc.degree, tc.waves) <= (pc.degree, pc.waves) => {
            path.push(format!(
                "column access: transposed degree {} ({} wavefronts) ≤ padded to {} degree {} ({} wavefronts) → transpose",
                tc.degree, tc.waves, r, pc.degree, pc.waves
            ));
            choice(
                before,
                Technique::Transpose,
                tl,
                path,
                format!(
                    "stored transposed: as few conflicts as padding (stores of the copy counted) without its {} B",
                    rows_above * (r - row) as u64 * elem as u64
                ),
                tc,
                0,
            )
        }
        (Some((pc, r)), t) => {
            if let Some((tc, _)) = t {
                path.push(format!(
                    "column access: padded to {} degree {} ({} wavefronts) < transposed degree {} ({} wavefronts) → padding",
                    r, pc.degree, pc.waves, tc.degree, tc.waves
                ));
            } else {
                path.push(format!(
                    "{}spare shared memory: yes → padding to {}",
                    if column { "column access, " } else { "" },
                    r
                ));
            }
            let extra = rows_above * (r - row) as u64 * elem as u64;
            choice(
                before,
                Technique::Padding,
                Layout {
                    row_len: r,
                    transposed: false,
                    col_pad: 0,
                },
                path,
                format!("rows padded from {} to {} elements ({} B)", row, r, extra),
                pc,
                extra,
            )
        }
        (None, Some((tc, tl))) => {
            path.push(format!(
                "column access, {}: transposed degree {} → transpose",
                if no_room {
                    "no spare shared memory for padding"
                } else {
                    "padding does not help"
                },
                tc.degree
            ));
            choice(
                before,
                Technique::Transpose,
                tl,
                path,
                format!(
                    "stored transposed: {} (stores of the copy counted), no extra shared memory",
                    if no_room {
                        "padding does not fit"
                    } else {
                        "padding removes no conflict"
                    }
                ),
                tc,
                0,
            )
        }
        (None, None) => {
            path.push(format!(
                "{}: no padding up to {} elements nor a transpose lowers the degree",
                if no_room {
                    "no spare shared memory"
                } else {
                    "padding and transpose evaluated"
                },
                max_pad
            ));
            choice(
                before,
                Technique::None,
                natural,
                path,
                format!(
                    "kept at degree {}: a pad of at most a quarter of the row ({} elements) removes no conflict, and a residual {}-way conflict costs less than the shared memory a larger pad would take from resident blocks",
                    before.degree, max_pad, before.degree
                ),
                before,
                0,
            )
        }
    }
}

/// The struct of an array of structs whose field a tile holds ([`aos_to_soa`]).
#[derive(Clone, Debug)]
pub struct Aos {
    /// What the tile holds: "field `re` of `cpx`", "`x[2·i + 1]` of the interleaved `x`".
    pub what: String,
    /// Fields of the struct (all of one scalar type), or the interleave's stride.
    pub count: u32,
}

/// The AoS feature of the tree (Fig. 4, first test) for one field tile of an array of structs:
/// the tile of `dims` holds one field (`inner`: the rest of the tree's decision for it); the
/// degree and wavefronts before are the struct's tile as laid out in global memory (the
/// `count` fields as one more dimension, so a reference strides by the struct's size), after
/// are the field tile's.
pub fn aos_to_soa(
    inner: BankChoice,
    dims: &[TileDim],
    block: [u32; 3],
    elem: u32,
    refs: usize,
    b: &Banks,
    aos: Aos,
) -> BankChoice {
    let mut as_is: Vec<TileDim> = dims.to_vec();
    as_is.push(TileDim {
        primary: Primary::Fixed,
        lo: 0,
        hi: aos.count as i64 - 1,
        extent: aos.count,
        range: (
            crate::ir::Poly::constant(0),
            crate::ir::Poly::constant(aos.count as i64 - 1),
        ),
        array_extent: None,
    });
    let before = cost(
        &as_is,
        Layout {
            row_len: aos.count,
            transposed: false,
            col_pad: 0,
        },
        block,
        elem,
        b,
        refs,
    );
    let stride = aos.count as u64 * elem as u64;
    let mut path = vec![format!(
        "AoS: yes ({}, {} fields of {} B: tiled as is, references stride by {} B, degree {}) → AoS→SoA: one tile per referenced field",
        aos.what, aos.count, elem, stride, before.degree
    )];
    let rest = match inner.technique {
        Technique::None => String::new(),
        t => format!("; the field's tile then: {} ({})", t.name(), inner.why),
    };
    path.extend(inner.path.into_iter().skip(1));
    BankChoice {
        technique: Technique::AosToSoa,
        layout: inner.layout,
        path,
        why: format!(
            "{} in a tile of its own (structure of arrays): the references' strides shrink from the struct's {} B to the field's {} B{}",
            aos.what, stride, elem, rest
        ),
        degree_before: before.degree,
        degree_after: inner.degree_after,
        wavefronts_before: before.waves,
        wavefronts_after: inner.wavefronts_after,
        extra_bytes: inner.extra_bytes,
    }
}
