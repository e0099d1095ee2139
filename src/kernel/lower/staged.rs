//! The staged kernel body (`--opt share`): tile origins, cooperative coalesced copies between
//! global memory and the tiles, the strip-mined loop, barriers, written tiles stored back, and
//! the computation — once, or jammed for several rows per work-item ([`super::ilp`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::ir::Poly;
use crate::ir::{Handle, Stmt};
use crate::schedule::stage::{self, Primary, StageSpec, StagedArray, Strip, TileDim};
use crate::vocab::{BinOp, Scalar};

use super::build::KernelBuilder;
use super::ilp::CoarsenError;
use super::walk::*;
use super::*;

/// Why a kernel's staged body cannot be built (the kernel then takes its next candidate; the
/// reason is the warning's when a `share` pragma asked for the staging).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StageError {
    /// The schedule stages nothing.
    NothingToStage,
    /// The loop nest is not in the region's AST.
    NestNotFound,
    /// The extents of a staged array are unknown.
    UnknownExtents(String),
    /// No loop is mapped to the grid.
    NoGridLoop,
    /// The innermost grid loop is not in the region's AST.
    GridLoopNotFound,
    /// No loop is mapped to the grid's y dimension (several rows per work-item need one).
    NoGridLoopOnY,
    /// The strip-mined loop is not at the top of the innermost grid loop's body.
    StripNotAtTop,
    /// The strip-mined loop is not a `for`.
    StripNotFor,
    /// The strip-mined loop's iterator is used after it.
    StripVarUsedAfter(String),
    /// A declaration hoisted to the kernel's top would declare a name twice.
    DeclaredTwice(String),
    /// The computation cannot be jammed for several rows per work-item.
    Coarsen(CoarsenError),
    /// The function reads a scalar after the region whose final value only the unstaged kernel
    /// stores.
    FinalValueUnstaged(String),
    /// The kernel IR is not of the shape the reduction across lanes rewrites
    /// (`kernel::lower::lanes`), and why.
    Lanes(String),
    /// A grid-stride loop (`schedule::stride`) around a staged or across-lanes body.
    Stride,
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StageError::NothingToStage => write!(f, "nothing to stage"),
            StageError::Lanes(why) => write!(f, "not across lanes: {why}"),
            StageError::Stride => write!(f, "a grid-stride loop around a staged body"),
            StageError::NestNotFound => write!(f, "the loop nest was not found"),
            StageError::UnknownExtents(a) => write!(f, "the extents of `{}` are unknown", a),
            StageError::NoGridLoop => write!(f, "no grid loop"),
            StageError::GridLoopNotFound => write!(f, "grid loop not found"),
            StageError::NoGridLoopOnY => write!(f, "no grid loop on y"),
            StageError::StripNotAtTop => write!(
                f,
                "the strip-mined loop is not at the top of the grid loop's body"
            ),
            StageError::StripNotFor => write!(f, "the strip-mined loop is not a `for`"),
            StageError::StripVarUsedAfter(v) => {
                write!(f, "`{}` is used after the strip-mined loop", v)
            }
            StageError::DeclaredTwice(v) => write!(f, "`{}` would be declared twice", v),
            StageError::Coarsen(why) => write!(f, "several outputs per work-item: {}", why),
            StageError::FinalValueUnstaged(v) => write!(
                f,
                "the function reads `{}` after the region, and only the unstaged kernel stores its final value",
                v
            ),
        }
    }
}

impl std::error::Error for StageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StageError::Coarsen(e) => Some(e),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shared-memory staging (`--opt share`)
// ---------------------------------------------------------------------------------------------

fn origin_name(a: &StagedArray, d: usize) -> String {
    // One name per tile (an array with several tiles has `accshare_sh_A_0`, `accshare_sh_A_1`).
    let tile = a.local.strip_prefix("accshare_sh_").unwrap_or(&a.local);
    format!("accshare_o_{}_{}", tile, d)
}

const TID: &str = "accshare_tid";

/// Whether row `f` of a work-item's rows is inside the iteration space.
pub(super) fn row_ok(f: u32) -> String {
    format!("accshare_ok{}", f)
}

/// The edge guards of a work-item's `n` outputs, output `f`'s [`row_ok`] (declared by
/// `row_guards`).
pub(super) fn row_oks(vars: &VarTable, n: u32) -> Vec<KExpr> {
    (0..n).map(|f| vars.int(&row_ok(f))).collect()
}
const STRIP: &str = "accshare_kk";
/// Whether all of a work-item's outputs are in range (a staged micro-tile's full-tile path).
const FULL: &str = "accshare_full";
/// The access reorder's counter over the strip, and the rotated offset in the strip.
const ROT: &str = "accshare_rot";
const ROT_D: &str = "accshare_rotd";

/// `Σ (s_d - origin_d) · stride_d`: where a reference finds its element in the tile.
pub(super) fn local_index(vars: &VarTable, a: &StagedArray, subs: Vec<KExpr>) -> KExpr {
    let strides = a.strides();
    let mut acc: Option<KExpr> = None;
    for (d, s) in subs.into_iter().enumerate() {
        let off = KExpr::bin(BinOp::Sub, s, vars.int(&origin_name(a, d)));
        add_term(&mut acc, scaled(off, strides.get(d).copied().unwrap_or(1)));
    }
    acc.unwrap_or(KExpr::int(0))
}

/// A cooperative walk of a tile's copy without a division per element: the tile's
/// dimensions (outer first) walked over `widths[d]` coordinates each, work-item `tid` of
/// `threads` visiting the flat row-major positions `tid, tid + threads, …` below the walk's
/// size, in that order (so consecutive work-items still copy consecutive elements). The
/// position's coordinates are `tid`'s, found with one `/` and `%` per dimension once, before
/// any copy (hoisted to the kernel's top, [`Walk::declare_starts`]), then advanced by `threads`
/// in the same mixed radix: each dimension adds its digit of `threads` and carries at most one
/// into the next outer one (a compare and a subtract). Dimensions whose digit is zero and that
/// receive no carry keep their start (a block whose size is a multiple of the tile's row
/// width: rows strided by `threads / width`, the column fixed, a 2-D loop). A 1-D walk is the
/// flat loop `accshare_l = tid; … += threads`.
struct Walk {
    widths: Vec<i64>,
    threads: i64,
    /// `threads` in the walk's mixed radix: `steps[0]` unbounded, `steps[d] < widths[d]`.
    steps: Vec<i64>,
    /// Dimensions `fixed..` never move (their digits and every inner digit are zero).
    fixed: usize,
    /// The kernel's scalars (the walk's own are named ones).
    vars: VarTable,
}

impl Walk {
    fn new(widths: Vec<i64>, threads: i64, vars: &VarTable) -> Walk {
        let n = widths.len();
        let mut steps = vec![0; n];
        let mut q = threads;
        for d in (1..n).rev() {
            let w = widths[d].max(1);
            steps[d] = q % w;
            q /= w;
        }
        steps[0] = q;
        let mut fixed = n;
        while fixed > 1 && steps[fixed - 1] == 0 {
            fixed -= 1;
        }
        Walk {
            widths,
            threads,
            steps,
            fixed,
            vars: vars.clone(),
        }
    }

    /// Positions per step of dimension `d` (the product of the inner widths).
    fn inner(&self, d: usize) -> i64 {
        self.widths[d + 1..].iter().product()
    }

    /// The loop variable of dimension `d`.
    fn var(&self, d: usize) -> Handle<KVar> {
        if self.widths.len() == 1 {
            self.vars.named("accshare_l", Scalar::Int)
        } else {
            self.vars.named(&format!("accshare_q{}", d), Scalar::Int)
        }
    }

    /// Work-item `tid`'s coordinate along `d`: `tid` itself for a 1-D walk, else a variable
    /// declared once per walk shape (the inner widths name it).
    fn start(&self, d: usize) -> KExpr {
        if self.widths.len() == 1 {
            return self.vars.int(TID);
        }
        let key: Vec<String> = self.widths[1..].iter().map(|w| w.to_string()).collect();
        self.vars.int(&format!("accshare_q{}_{}", d, key.join("x")))
    }

    /// `int accshare_qD_W… = tid / inner % width;` for every dimension, unless `starts`
    /// declares it already (another tile walked the same shape).
    fn declare_starts(&self, starts: &mut Vec<KStmt>) {
        if self.widths.len() == 1 {
            return;
        }
        for d in 0..self.widths.len() {
            let KExpr::Var(name) = self.start(d) else {
                continue;
            };
            let declared = starts
                .iter()
                .any(|s| matches!(s, KStmt::Decl { var: m, .. } if *m == name));
            if declared {
                continue;
            }
            let inner = self.inner(d);
            let e = if inner >= self.threads {
                // Every work-item starts in this dimension's first position.
                KExpr::int(0)
            } else {
                let q = if inner == 1 {
                    self.vars.int(TID)
                } else {
                    KExpr::bin(BinOp::Div, self.vars.int(TID), KExpr::int(inner))
                };
                // The outermost coordinate is the loop's (not reduced), nor is one that no
                // work-item's `tid` reaches past.
                if d > 0 && self.threads > self.widths[d] * inner {
                    KExpr::bin(BinOp::Rem, q, KExpr::int(self.widths[d]))
                } else {
                    q
                }
            };
            starts.push(KStmt::Decl {
                var: name,
                init: Some(e),
            });
        }
    }

    /// The coordinates the walk's body reads, outer first.
    fn coords(&self) -> Vec<KExpr> {
        (0..self.widths.len())
            .map(|d| {
                if d < self.fixed {
                    KExpr::Var(self.var(d))
                } else {
                    self.start(d)
                }
            })
            .collect()
    }

    /// The loop running `body` at every position of the work-item's.
    fn lp(&self, mut body: Vec<KStmt>) -> KStmt {
        if self.fixed == 1 {
            return KStmt::count_up(
                self.var(0),
                self.start(0),
                KExpr::int(self.widths[0]),
                KExpr::int(self.steps[0]),
                body,
            );
        }
        let add = |v: Handle<KVar>, k: i64| KStmt::Assign {
            target: LValue::Var(v),
            op: Some(BinOp::Add),
            value: KExpr::int(k),
        };
        for d in (1..self.fixed).rev() {
            let v = self.var(d);
            if self.steps[d] != 0 {
                body.push(add(v, self.steps[d]));
            }
            body.push(KStmt::If {
                cond: KExpr::bin(BinOp::Ge, KExpr::Var(v), KExpr::int(self.widths[d])),
                then: vec![
                    KStmt::Assign {
                        target: LValue::Var(v),
                        op: Some(BinOp::Sub),
                        value: KExpr::int(self.widths[d]),
                    },
                    add(self.var(d - 1), 1),
                ],
                els: Vec::new(),
            });
        }
        if self.steps[0] != 0 {
            body.push(add(self.var(0), self.steps[0]));
        }
        let mut block: Vec<KStmt> = (0..self.fixed)
            .map(|d| KStmt::Decl {
                var: self.var(d),
                init: Some(self.start(d)),
            })
            .collect();
        block.push(KStmt::While {
            cond: KExpr::bin(
                BinOp::Lt,
                KExpr::Var(self.var(0)),
                KExpr::int(self.widths[0]),
            ),
            body,
        });
        KStmt::Block(block)
    }
}

/// The first global index of a tile dimension.
fn origin_expr(vars: &VarTable, td: &TileDim, block: [u32; 3]) -> KExpr {
    let lo = KExpr::int(td.lo);
    let plus = |e: KExpr| match td.lo {
        0 => e,
        v if v < 0 => KExpr::bin(BinOp::Sub, e, KExpr::int(-v)),
        _ => KExpr::bin(BinOp::Add, e, KExpr::int(td.lo)),
    };
    match &td.primary {
        Primary::Fixed => lo,
        Primary::Grid { dim, min } => {
            let start = KExpr::bin(
                BinOp::Mul,
                KExpr::Builtin(Builtin::GroupId(*dim)),
                KExpr::int(block[*dim as usize] as i64),
            );
            // `min + lo` folded into one polynomial when it can be.
            match min.add(&Poly::constant(td.lo)) {
                Some(p) if p.is_zero() => start,
                Some(p) => match p.as_const() {
                    Some(c) if c > 0 => KExpr::bin(BinOp::Add, start, KExpr::int(c)),
                    Some(c) => KExpr::bin(BinOp::Sub, start, KExpr::int(c.saturating_neg())),
                    None => KExpr::bin(BinOp::Add, vars.poly(&p, Scalar::Int), start),
                },
                None if min.is_zero() => plus(start),
                None => plus(KExpr::bin(BinOp::Add, vars.poly(min, Scalar::Int), start)),
            }
        }
        Primary::Strip => plus(vars.int(STRIP)),
    }
}

/// The field of each struct a tile's copy reads (a tile of an array of structs, AoS → SoA).
fn global_field(a: &StagedArray) -> Option<Field> {
    a.field.as_ref().map(|f| Field {
        name: f.name.clone(),
        index: f.index,
        count: f.count,
    })
}

/// Which way a cooperative copy moves a tile.
#[derive(Clone, Copy, PartialEq)]
enum Dir {
    /// Global memory into the tile.
    Load,
    /// The tile back to global memory (a written tile).
    Store,
}

/// One element's copy between the tile and global memory.
fn copy(dir: Dir, local: ArrayRef, global: ArrayRef) -> KStmt {
    let (to, from) = match dir {
        Dir::Load => (local, global),
        Dir::Store => (global, local),
    };
    KStmt::Assign {
        target: LValue::Elem(to),
        op: None,
        value: KExpr::Load(from),
    }
}

/// The cooperative, coalesced copy of a tile: work-item `t` of the block copies elements
/// `t, t + threads, …` of the tile in its layout's order (consecutive work-items, consecutive
/// words of shared memory and consecutive elements of a global row), skipping elements outside
/// the range the program can touch, with the coordinates carried from one element to the next
/// ([`Walk`]: no division per element). A padded tile is walked with its padding (the pad
/// columns copy nothing), so that a warp's copy reaches consecutive banks: walking only the
/// elements would put a row of 4 padded to 5 on words 0–3, 5–8, …, 35–38, two words in bank 0.
/// Rows of a multiple of 32 elements are walked without it: a warp's lanes then copy 32
/// consecutive elements of one row, consecutive words, and no lane idles on a pad column.
fn tile_copy(
    vars: &VarTable,
    a: &StagedArray,
    arrays: TileArrays,
    block: [u32; 3],
    global_extents: &[KExpr],
    dir: Dir,
    starts: &mut Vec<KStmt>,
) -> KStmt {
    if loads_2d(a, block) {
        return tile_copy_2d(vars, a, arrays, block, global_extents, dir);
    }
    let threads = (block[0] * block[1] * block[2]) as i64;
    let n = a.dims.len();
    let last = a.dims[n - 1].extent as i64;
    let padded = (a.row_len as i64).max(last);
    let walked_x = if padded > last && last % 32 == 0 && threads % 32 == 0 {
        last
    } else {
        padded
    };
    let mut widths: Vec<i64> = a.dims.iter().map(|d| d.extent as i64).collect();
    widths[n - 1] = walked_x;
    let walk = Walk::new(widths, threads, vars);
    walk.declare_starts(starts);
    let coords = walk.coords();
    let strides = a.strides();
    let mut conds = Vec::new();
    let mut gsubs = Vec::new();
    let mut lidx: Option<KExpr> = None;
    for (d, td) in a.dims.iter().enumerate() {
        let r = coords[d].clone();
        if walk.widths[d] != td.extent as i64 {
            // A pad column: nothing to copy.
            conds.push(KExpr::bin(
                BinOp::Lt,
                r.clone(),
                KExpr::int(td.extent as i64),
            ));
        }
        let g = KExpr::bin(BinOp::Add, vars.int(&origin_name(a, d)), r.clone());
        let il = a.interleave.filter(|_| d + 1 == n);
        in_range_il(vars, td, &g, il, &mut conds);
        gsubs.push(global_index(&g, il));
        add_term(&mut lidx, scaled(r, strides.get(d).copied().unwrap_or(1)));
    }
    let (local, global) = tile_refs(
        a,
        arrays,
        lidx.unwrap_or(KExpr::int(0)),
        gsubs,
        global_extents,
    );
    walk.lp(vec![KStmt::If {
        cond: all_of(conds),
        then: vec![copy(dir, local, global)],
        els: Vec::new(),
    }])
}

/// The cooperative copy of a tile of short words grouped by the schedule
/// ([`crate::schedule::words::tile_copy`]): the whole groups of `width` consecutive elements of
/// each tile row go to consecutive work-items, each moved with one vector load and one vector
/// store where the group lies inside the range the program touches (else element by element
/// under the scalar copy's guards: groups at the array's edges); the row's elements past its
/// last whole group go one per work-item, as in the scalar copy. Always through a flat index
/// over the tile's groups, also for a 2-D tile and block: a row of 36 bytes is 9 groups, and
/// walked row by row a 32-wide block would leave 23 of its 32 work-items idle. Returns the
/// copy's statements (the groups' loop, then the loop over the elements past the groups).
fn tile_copy_words(
    (vars, a): (&VarTable, &StagedArray),
    arrays: TileArrays,
    block: [u32; 3],
    global_extents: &[KExpr],
    dir: Dir,
    width: u32,
    starts: &mut Vec<KStmt>,
) -> Vec<KStmt> {
    let n = a.dims.len();
    let walked_x = a.row_len.max(a.dims[n - 1].extent) as i64;
    let w = width as i64;
    let wc = WordCopy {
        vars,
        a,
        arrays,
        global_extents,
        dir,
        width,
        walked_x,
        groups: walked_x / w,
    };
    // Whole groups per walked row, and the elements after them.
    let rest = walked_x - wc.groups * w;
    let c = vars.int("accshare_c");
    let threads = (block[0] * block[1] * block[2]) as i64;
    // Walks over the tile's rows and `per_row` column slots of each.
    let walk = |per_row: i64| {
        let mut widths: Vec<i64> = a.dims[..n - 1].iter().map(|d| d.extent as i64).collect();
        widths.push(per_row);
        Walk::new(widths, threads, vars)
    };
    let groups_walk = walk(wc.groups);
    groups_walk.declare_starts(starts);
    let coords = groups_walk.coords();
    let row = wc.row(&coords);
    let mut out = vec![groups_walk.lp(vec![
        int_decl(vars, "accshare_c", scaled(coords[n - 1].clone(), width)),
        wc.group(&row, &c),
    ])];
    if rest > 0 {
        let rest_walk = walk(rest);
        rest_walk.declare_starts(starts);
        let coords = rest_walk.coords();
        let row = wc.row(&coords);
        out.push(rest_walk.lp(vec![
            int_decl(
                vars,
                "accshare_c",
                add_int(coords[n - 1].clone(), wc.groups * w),
            ),
            wc.element(&row, c),
        ]));
    }
    out
}

/// `int v = e;`
fn int_decl(vars: &VarTable, v: &str, e: KExpr) -> KStmt {
    KStmt::Decl {
        var: vars.named(v, Scalar::Int),
        init: Some(e),
    }
}

/// `e · k` (`e` when `k` is 1).
fn scaled(e: KExpr, k: u32) -> KExpr {
    if k == 1 {
        e
    } else {
        KExpr::bin(BinOp::Mul, e, KExpr::int(k as i64))
    }
}

/// `e + k` (`e` when `k` is 0).
fn add_int(e: KExpr, k: i64) -> KExpr {
    match k {
        0 => e,
        k => KExpr::bin(BinOp::Add, e, KExpr::int(k)),
    }
}

/// Adds `term` to the sum `acc` (its first term when it is empty).
fn add_term(acc: &mut Option<KExpr>, term: KExpr) {
    *acc = Some(match acc.take() {
        None => term,
        Some(x) => KExpr::bin(BinOp::Add, x, term),
    });
}

/// The conjunction of `conds` (`1` when there are none).
fn all_of(conds: Vec<KExpr>) -> KExpr {
    conds
        .into_iter()
        .reduce(|x, y| KExpr::bin(BinOp::LogAnd, x, y))
        .unwrap_or(KExpr::int(1))
}

/// The tile's element at local index `lidx` and the global element of `a` at the subscripts
/// `gsubs` (flattened over `global_extents`).
fn tile_refs(
    a: &StagedArray,
    (local, global): TileArrays,
    lidx: KExpr,
    gsubs: Vec<KExpr>,
    global_extents: &[KExpr],
) -> (ArrayRef, ArrayRef) {
    (
        ArrayRef {
            array: local,
            index: Box::new(lidx),
            field: None,
        },
        ArrayRef {
            array: global,
            index: Box::new(flatten(gsubs, global_extents)),
            field: global_field(a),
        },
    )
}

/// A tile row in a copy of short words: the outer coordinates' (the walk's coordinates but the
/// last) edge conditions, global subscripts and local offset.
struct WordRow {
    conds: Vec<KExpr>,
    gsubs: Vec<KExpr>,
    lrow: Option<KExpr>,
}

/// A copy of a tile of short words ([`tile_copy_words`]).
struct WordCopy<'t> {
    vars: &'t VarTable,
    a: &'t StagedArray,
    arrays: TileArrays,
    global_extents: &'t [KExpr],
    dir: Dir,
    /// Elements per group.
    width: u32,
    /// The walked row's length, padding included.
    walked_x: i64,
    /// Whole groups per walked row.
    groups: i64,
}

impl WordCopy<'_> {
    /// The tile's last dimension (its rows' elements).
    fn x(&self) -> &TileDim {
        &self.a.dims[self.a.dims.len() - 1]
    }

    /// The tile row at the walk's `coords`.
    fn row(&self, coords: &[KExpr]) -> WordRow {
        let a = self.a;
        let strides = a.strides();
        let mut row = WordRow {
            conds: Vec::new(),
            gsubs: Vec::new(),
            lrow: None,
        };
        for (d, td) in a.dims.iter().enumerate().take(a.dims.len() - 1) {
            let rd = coords[d].clone();
            let g = KExpr::bin(BinOp::Add, self.vars.int(&origin_name(a, d)), rd.clone());
            in_range(self.vars, td, &g, &mut row.conds);
            row.gsubs.push(g);
            add_term(&mut row.lrow, scaled(rd, strides[d]));
        }
        row
    }

    /// Global column of tile column `col`.
    fn gcol(&self, col: KExpr) -> KExpr {
        let a = self.a;
        KExpr::bin(
            BinOp::Add,
            self.vars.int(&origin_name(a, a.dims.len() - 1)),
            col,
        )
    }

    /// The local and global element of tile column `col` in `row`.
    fn refs(&self, row: &WordRow, col: KExpr) -> (ArrayRef, ArrayRef) {
        let mut subs = row.gsubs.clone();
        subs.push(self.gcol(col.clone()));
        let lidx = match &row.lrow {
            Some(r) => KExpr::bin(BinOp::Add, r.clone(), col),
            None => col,
        };
        tile_refs(self.a, self.arrays, lidx, subs, self.global_extents)
    }

    /// One element at tile column `col` of `row`: a pad column copies nothing.
    fn element(&self, row: &WordRow, col: KExpr) -> KStmt {
        let x = self.x();
        let mut cs = Vec::new();
        if self.a.row_len > x.extent {
            cs.push(KExpr::bin(
                BinOp::Lt,
                col.clone(),
                KExpr::int(x.extent as i64),
            ));
        }
        cs.extend(row.conds.iter().cloned());
        in_range(self.vars, x, &self.gcol(col.clone()), &mut cs);
        let (local, global) = self.refs(row, col);
        KStmt::If {
            cond: all_of(cs),
            then: vec![copy(self.dir, local, global)],
            els: Vec::new(),
        }
    }

    /// The whole group at tile column `c` of `row`: one vector load and store inside the
    /// range the program touches, else element by element; nothing wholly past its end.
    fn group(&self, row: &WordRow, c: &KExpr) -> KStmt {
        // Groups wholly past the range's end copy nothing (the blocks at the array's edge).
        let mut starts = Vec::new();
        in_range(self.vars, self.x(), &self.gcol(c.clone()), &mut starts);
        KStmt::If {
            cond: all_of(self.vector_conds(row, c)),
            then: self.vector(row, c),
            els: vec![KStmt::If {
                cond: all_of(starts),
                then: vec![self.group_elements(row, c)],
                els: Vec::new(),
            }],
        }
    }

    /// When the group at tile column `c` of `row` moves as a vector: inside the tile row (not
    /// a pad column) and, at both ends, inside the range the program touches (the first lane's
    /// lower bound, the last lane's upper bounds).
    fn vector_conds(&self, row: &WordRow, c: &KExpr) -> Vec<KExpr> {
        let x = self.x();
        let w = self.width as i64;
        let mut vconds = Vec::new();
        if self.groups * w > x.extent as i64 {
            vconds.push(KExpr::bin(
                BinOp::Le,
                c.clone(),
                KExpr::int(x.extent as i64 - w),
            ));
        }
        vconds.extend(row.conds.iter().cloned());
        let mut first = Vec::new();
        in_range(self.vars, x, &self.gcol(c.clone()), &mut first);
        vconds.extend(
            first
                .into_iter()
                .filter(|e| matches!(e, KExpr::Binary(BinOp::Ge, ..))),
        );
        in_range(
            self.vars,
            x,
            &self.gcol(add_int(c.clone(), w - 1)),
            &mut vconds,
        );
        vconds
    }

    /// The group at tile column `c` of `row` as one vector load and one vector store.
    fn vector(&self, row: &WordRow, c: &KExpr) -> Vec<KStmt> {
        let elem = self.a.elem;
        let lanes: Vec<Handle<KVar>> = (0..self.width)
            .map(|k| self.vars.named(&format!("accshare_t{}", k), elem))
            .collect();
        let (local, global) = self.refs(row, c.clone());
        let (src, dst) = match self.dir {
            Dir::Load => (global, local),
            Dir::Store => (local, global),
        };
        vec![
            KStmt::VecLoad {
                vector: self.vars.named("accshare_tv", elem),
                lanes: lanes.clone(),
                elem,
                src,
                aligned: false,
            },
            KStmt::VecStore {
                dst,
                elem,
                values: lanes.iter().map(|&l| KExpr::Var(l)).collect(),
            },
        ]
    }

    /// The group at tile column `c` of `row` element by element (an edge of the array):
    /// `accshare_e` from `c` on, `width` of them.
    fn group_elements(&self, row: &WordRow, c: &KExpr) -> KStmt {
        let ev = self.vars.named("accshare_e", Scalar::Int);
        let e = KExpr::Var(ev);
        KStmt::count_up(
            ev,
            c.clone(),
            KExpr::int(self.walked_x),
            KExpr::int(1),
            vec![
                KStmt::If {
                    cond: KExpr::bin(BinOp::Ge, e.clone(), add_int(c.clone(), self.width as i64)),
                    then: vec![KStmt::Break],
                    els: Vec::new(),
                },
                self.element(row, e),
            ],
        )
    }
}

/// A comment naming the tile and its shape, then its cooperative copy.
fn tile_copy_commented(
    vars: &VarTable,
    a: &StagedArray,
    arrays: TileArrays,
    block: [u32; 3],
    global_extents: &[KExpr],
    dir: Dir,
    starts: &mut Vec<KStmt>,
) -> Vec<KStmt> {
    let shape: Vec<String> = a.dims.iter().map(|d| d.extent.to_string()).collect();
    let verb = match dir {
        Dir::Load => "load",
        Dir::Store => "store",
    };
    let mut out = vec![KStmt::Comment(match &a.field {
        Some(f) => format!(
            "{} the tile of field `{}` of `{}` ({}; AoS → SoA)",
            verb,
            f.name,
            a.name,
            shape.join("x")
        ),
        None => match a.interleave {
            Some(il) => format!(
                "{} the tile of the elements {} of `{}` ({}; AoS → SoA)",
                verb,
                il.elements(),
                a.name,
                shape.join("x")
            ),
            None => format!("{} the tile of `{}` ({})", verb, a.name, shape.join("x")),
        },
    })];
    match &a.copy_words {
        Some(Ok(w)) => out.extend(tile_copy_words(
            (vars, a),
            arrays,
            block,
            global_extents,
            dir,
            w.width,
            starts,
        )),
        _ => out.push(tile_copy(
            vars,
            a,
            arrays,
            block,
            global_extents,
            dir,
            starts,
        )),
    }
    out
}

/// `g` is inside the range the program touches along `td` (and inside the array). `g` is the
/// tile's origin plus a non-negative offset, and the origin is never below the range's start (a
/// block's first iterate, the strip's first iterate, or the fixed start, each plus the lowest
/// offset), so only the end of the range and the start of the array need checks.
fn in_range(vars: &VarTable, td: &TileDim, g: &KExpr, conds: &mut Vec<KExpr>) {
    in_range_il(vars, td, g, None, conds)
}

/// [`in_range`] for a dimension that may be interleaved: `g` counts strides, the array's index
/// is `stride·g + residue`.
fn in_range_il(
    vars: &VarTable,
    td: &TileDim,
    g: &KExpr,
    il: Option<stage::Interleave>,
    conds: &mut Vec<KExpr>,
) {
    let rmin = td.range.0.as_const();
    let rmax = td.range.1.as_const();
    conds.push(KExpr::bin(
        BinOp::Le,
        g.clone(),
        vars.poly(&td.range.1, Scalar::Int),
    ));
    if rmin.is_none_or(|v| v < 0) {
        conds.push(KExpr::bin(BinOp::Ge, g.clone(), KExpr::int(0)));
    }
    if let Some(ext) = &td.array_extent {
        let (s, k) = il.map_or((1, 0), |il| (il.stride as i64, il.residue as i64));
        let holds =
            matches!((rmax, ext.as_const()), (Some(a), Some(b)) if a.saturating_mul(s) + k < b);
        if !holds {
            conds.push(KExpr::bin(
                BinOp::Lt,
                global_index(g, il),
                vars.poly(ext, Scalar::Int),
            ));
        }
    }
}

/// The array's index of tile coordinate `g` (`stride·g + residue` when interleaved).
fn global_index(g: &KExpr, il: Option<stage::Interleave>) -> KExpr {
    match il {
        Some(il) => {
            let m = KExpr::bin(BinOp::Mul, KExpr::int(il.stride as i64), g.clone());
            if il.residue == 0 {
                m
            } else {
                KExpr::bin(BinOp::Add, m, KExpr::int(il.residue as i64))
            }
        }
        None => g.clone(),
    }
}

/// 2-D tiles are loaded row by row by 2-D blocks; everything else through a flat index.
fn loads_2d(a: &StagedArray, block: [u32; 3]) -> bool {
    a.dims.len() == 2 && block[1] > 1 && block[2] == 1
}

/// The copy of a 2-D tile by a 2-D block: rows strided by the block's height, columns by its
/// width (consecutive work-items of a row copy consecutive elements; no division).
fn tile_copy_2d(
    vars: &VarTable,
    a: &StagedArray,
    arrays: TileArrays,
    block: [u32; 3],
    global_extents: &[KExpr],
    dir: Dir,
) -> KStmt {
    let (rv, cv) = (
        vars.named("accshare_r", Scalar::Int),
        vars.named("accshare_c", Scalar::Int),
    );
    let (r, c) = (KExpr::Var(rv), KExpr::Var(cv));
    let g0 = KExpr::bin(BinOp::Add, vars.int(&origin_name(a, 0)), r.clone());
    let g1 = KExpr::bin(BinOp::Add, vars.int(&origin_name(a, 1)), c.clone());
    let mut conds = Vec::new();
    in_range(vars, &a.dims[0], &g0, &mut conds);
    in_range_il(vars, &a.dims[1], &g1, a.interleave, &mut conds);
    let g1 = global_index(&g1, a.interleave);
    let cond = all_of(conds);
    // The tile's index map (`r * row_len + c`, or `c * rows + r` stored transposed).
    let st = a.strides();
    let lidx = KExpr::bin(BinOp::Add, scaled(r, st[0]), scaled(c, st[1]));
    let (local, global) = tile_refs(a, arrays, lidx, vec![g0, g1], global_extents);
    let store = copy(dir, local, global);
    let lp = |v: Handle<KVar>, dim: u8, n: u32, step: u32, body: Vec<KStmt>| {
        KStmt::count_up(
            v,
            KExpr::Builtin(Builtin::LocalId(dim)),
            KExpr::int(n as i64),
            KExpr::int(step as i64),
            body,
        )
    };
    let inner = lp(
        cv,
        0,
        a.dims[1].extent,
        block[0],
        vec![KStmt::If {
            cond,
            then: vec![store],
            els: Vec::new(),
        }],
    );
    lp(rv, 1, a.dims[0].extent, block[1], vec![inner])
}

fn guarded(cond: &Option<KExpr>, stmts: Vec<KStmt>) -> Vec<KStmt> {
    if stmts.is_empty() {
        return stmts;
    }
    match cond {
        Some(c) => vec![KStmt::If {
            cond: c.clone(),
            then: stmts,
            els: Vec::new(),
        }],
        None => vec![KStmt::Block(stmts)],
    }
}

impl<'a> KernelBuilder<'a> {
    /// Global extents of dimensions 1.. of an array (for flattening).
    fn global_extents(&self, name: &str) -> Option<Vec<KExpr>> {
        let info = self.ir().arrays.get(name)?;
        info.extents
            .iter()
            .skip(1)
            .map(|e| e.as_ref().map(|p| self.vars.poly(p, Scalar::Int)))
            .collect()
    }

    /// Copies of the top-level declarations of renamed variables: the y iterator of row `a` of
    /// the micro-tile is the first row's plus `a` times the launched block's height, the x
    /// iterator of column `b` the first column's plus `b` times its width, and every other
    /// renamed variable gets one copy per output.
    pub(super) fn declare_row_copies(&mut self, body: Vec<KStmt>) -> Vec<KStmt> {
        let ir = self.ir();
        let outputs = self.rows() * self.cols();
        if outputs <= 1 {
            return body;
        }
        // (iterator, copies, distance of each copy from copy 0, sign) per coarsened grid
        // dimension: cyclic copies are a launched block apart, contiguous ones (columns, and
        // the rows of a transposed vector tile) adjacent, runs of a vector micro-tile both
        // (`Schedule::copy_offset`).
        let mut iters: Vec<(&str, u32, Vec<i64>, BinOp)> = Vec::new();
        for (dim, f) in [(1u8, self.rows()), (0u8, self.cols())] {
            if f <= 1 {
                continue;
            }
            if let Some(m) = self.mapped.iter().find(|m| m.dim == dim) {
                let lp = &ir.loops[m.loop_id];
                let step = lp.step.unsigned_abs() as i64;
                let dists = (0..f)
                    .map(|b| self.sched.copy_offset(dim, b) as i64 * step)
                    .collect();
                let op = if lp.step > 0 { BinOp::Add } else { BinOp::Sub };
                iters.push((lp.var.as_str(), f, dists, op));
            }
        }
        let mut out = Vec::new();
        for st in body {
            let mut extra = Vec::new();
            if let KStmt::Decl { var, init } = &st {
                let name = self.vars.name(*var);
                if let Some((_, f, dists, op)) = iters.iter().find(|(v, ..)| *v == name) {
                    for c in 1..*f {
                        extra.push(KStmt::Decl {
                            var: self.vars.copy(*var, c),
                            init: Some(KExpr::bin(
                                *op,
                                KExpr::Var(*var),
                                KExpr::int(dists[c as usize]),
                            )),
                        });
                    }
                } else if self.ilp_renamed.contains(var) {
                    for c in 1..outputs {
                        extra.push(KStmt::Decl {
                            var: self.vars.copy(*var, c),
                            init: init.clone(),
                        });
                    }
                }
            }
            if let KStmt::DeclArray(h) = &st {
                if self.ilp_renamed_arrays.contains(h) {
                    for c in 1..outputs {
                        extra.push(KStmt::DeclArray(self.array_copy(*h, c)));
                    }
                }
            }
            out.push(st);
            out.extend(extra);
        }
        out
    }

    /// The computation under the edge guard: once, or jammed for several rows per work-item
    /// (row `f` under `accshare_ok{f}`, see [`Self::row_guards`]).
    pub(super) fn computation(
        &self,
        cond: &Option<KExpr>,
        coarsen: Option<&super::ilp::Coarsen>,
        stmts: Vec<KStmt>,
    ) -> Vec<KStmt> {
        match coarsen {
            // A staged micro-tile's computation between two barriers (no barrier inside it):
            // the work-items whose outputs are all in range run the unguarded copy
            // (`Schedule::full_tile_path`), the others the guarded one. Both branches end
            // before the next barrier, which every work-item reaches.
            Some(c)
                if !stmts.is_empty()
                    && cond.is_some()
                    && self.sched.full_tile_path
                    && self.staging().is_some() =>
            {
                let oks = row_oks(&self.vars, c.f);
                vec![KStmt::If {
                    cond: self.vars.int(FULL),
                    then: vec![KStmt::Block(c.jam(&stmts, None))],
                    els: vec![KStmt::Block(c.jam(&stmts, Some(&oks)))],
                }]
            }
            // Short words are grouped in the unguarded copy of a whole tile
            // (`Schedule::full_tile_path`); at an edge the copies run under their own guards.
            Some(c) if !stmts.is_empty() && c.groups_words() && cond.is_none() => {
                vec![KStmt::Block(c.jam_words(&stmts))]
            }
            Some(c) if !stmts.is_empty() => {
                let guards: Option<Vec<KExpr>> = cond.as_ref().map(|_| row_oks(&self.vars, c.f));
                vec![KStmt::Block(c.jam(&stmts, guards.as_deref()))]
            }
            _ => guarded(cond, stmts),
        }
    }

    /// `int accshare_ok{f} = <the edge guard of row f>;` once per row, before the computation.
    pub(super) fn row_guards(
        &self,
        cond: &Option<KExpr>,
        coarsen: Option<&super::ilp::Coarsen>,
        body: &mut Vec<KStmt>,
    ) {
        if let (Some(c), Some(g)) = (coarsen, cond) {
            for f in 0..c.f {
                body.push(KStmt::Decl {
                    var: self.vars.named(&row_ok(f), Scalar::Int),
                    init: Some(c.expr(g, f)),
                });
            }
            // Whether every output is in range (the staged full-tile path, see
            // `Self::computation`), found once.
            if self.sched.full_tile_path && self.staging().is_some() {
                body.push(KStmt::Decl {
                    var: self.vars.named(FULL, Scalar::Int),
                    init: row_oks(&self.vars, c.f)
                        .into_iter()
                        .reduce(|a, b| KExpr::bin(BinOp::LogAnd, a, b)),
                });
            }
        }
    }

    /// The coarsening of the computation `pieces`, when the kernel computes several outputs per
    /// work-item.
    pub(super) fn coarsen(
        &mut self,
        pieces: &[&[KStmt]],
    ) -> Result<Option<super::ilp::Coarsen>, StageError> {
        if self.rows() * self.cols() <= 1 {
            return Ok(None);
        }
        let ir = self.ir();
        let iter = |dim: u8| {
            self.mapped
                .iter()
                .find(|m| m.dim == dim)
                .map(|m| self.vars.resolve(&ir.loops[m.loop_id].var))
        };
        let (y, x) = (iter(1), iter(0));
        if self.rows() > 1 && y.is_none() {
            return Err(StageError::NoGridLoopOnY);
        }
        if self.cols() > 1 && x.is_none() {
            return Err(StageError::NoGridLoop);
        }
        let mut c = super::ilp::Coarsen::new(
            (self.rows(), y),
            (self.cols(), x),
            pieces,
            (&self.arrays, &self.vars),
        )
        .map_err(StageError::Coarsen)?;
        if let Some(w) = &self.sched.words {
            c = c.with_words(w);
        }
        if let Some(st) = self.staging() {
            let tiles: Vec<(String, u32)> = st
                .arrays
                .iter()
                .filter(|a| a.vector_reads > 1)
                .map(|a| (a.local.clone(), a.vector_reads))
                .collect();
            if !tiles.is_empty() {
                let offsets = |dim: u8, f: u32| -> Vec<i64> {
                    (0..f)
                        .map(|b| self.sched.copy_offset(dim, b) as i64)
                        .collect()
                };
                c = c.with_vector_tiles(&tiles, [offsets(0, self.cols()), offsets(1, self.rows())]);
            }
        }
        // The copies of the private arrays the computation declares.
        let mut copies = BTreeMap::new();
        for a in c.renamed_arrays() {
            let of_a = (1..c.f).map(|f| self.array_copy(a, f)).collect();
            copies.insert(a, of_a);
        }
        c.set_array_copies(copies, &self.arrays);
        self.ilp_renamed = c.renamed.clone();
        self.ilp_renamed_arrays = c.renamed_arrays().into_iter().collect();
        Ok(Some(c))
    }

    /// The staged kernel body: tile origins, cooperative loads and barriers run by every
    /// work-item; only the computation is guarded.
    pub(super) fn staged_body(
        &mut self,
        cond: Option<KExpr>,
        root_stmt: Option<Handle<Stmt>>,
        block: [u32; 3],
        body: &mut Vec<KStmt>,
        locals: &mut Vec<Handle<KArray>>,
    ) -> Result<(), StageError> {
        let Some(spec) = self.staging().cloned() else {
            return Err(StageError::NothingToStage);
        };
        let Some(root_stmt) = root_stmt else {
            return Err(StageError::NestNotFound);
        };
        // The block as launched (fewer rows with several rows per work-item); tile origins use
        // the logical `block` (the schedule's: `build` passes `sched.shape.block`).
        let launched = self.sched.launch_block();
        let mut names: Vec<&str> = spec.arrays.iter().map(|a| a.name.as_str()).collect();
        names.dedup();
        body.push(KStmt::Comment(format!(
            "shared-memory staging: {}",
            names.join(", ")
        )));
        if spec
            .arrays
            .iter()
            .any(|a| !loads_2d(a, launched) || matches!(a.copy_words, Some(Ok(_))))
        {
            body.push(KStmt::Decl {
                var: self.vars.named(TID, Scalar::Int),
                init: Some(flat_tid(launched)),
            });
        }
        // Where the copies' walks start (declared once, after `tid`: [`Walk::declare_starts`]).
        let starts_at = body.len();
        let extents = self.declare_tiles(&spec, block, body, locals)?;
        let mut arrays = BTreeMap::new();
        for a in &spec.arrays {
            let local = self.array(&a.local, a.elem, ArrayKind::Local { len: a.len() });
            let elem = self.ir().arrays.get(&a.name).map_or(a.elem, |i| i.elem);
            let global = self.array(&a.name, elem, ArrayKind::Buffer);
            arrays.insert(a.local.clone(), (local, global));
        }
        let mut tiles = Tiles {
            vars: self.vars.clone(),
            spec: &spec,
            block,
            launched,
            extents,
            arrays,
            starts: Vec::new(),
        };
        let once = tiles.copies(|a| a.load && !a.uses_strip(), Dir::Load);
        if !once.is_empty() {
            body.extend(once);
            body.push(KStmt::Barrier);
        }
        let strip = spec
            .strip
            .clone()
            .filter(|_| spec.arrays.iter().any(|a| a.uses_strip()));
        match strip {
            Some(strip) => self.strip_mined(&mut tiles, &strip, &cond, body)?,
            None => {
                let inner = self.stmt(root_stmt);
                let coarsen = self.coarsen(&[&inner])?;
                self.row_guards(&cond, coarsen.as_ref(), body);
                body.extend(self.computation(&cond, coarsen.as_ref(), inner));
            }
        }
        // After the computation, every work-item waits for the block and the written tiles are
        // stored back, coalesced, to global memory.
        let stores = tiles.copies(|a| a.written, Dir::Store);
        if !stores.is_empty() {
            body.push(KStmt::Barrier);
            body.extend(stores);
        }
        body.splice(starts_at..starts_at, tiles.starts);
        Ok(())
    }

    /// Registers the tiles of `spec` as local arrays and declares their origins (`block`: the
    /// logical block; an origin that moves with the strip is declared without a value).
    /// Returns the global extents of each staged array, for flattening.
    fn declare_tiles(
        &mut self,
        spec: &StageSpec,
        block: [u32; 3],
        body: &mut Vec<KStmt>,
        locals: &mut Vec<Handle<KArray>>,
    ) -> Result<BTreeMap<String, Vec<KExpr>>, StageError> {
        let mut extents = BTreeMap::new();
        for a in &spec.arrays {
            let Some(mut ext) = self.global_extents(&a.name) else {
                return Err(StageError::UnknownExtents(a.name.clone()));
            };
            if a.field.is_some() {
                // The struct's index is flattened without the field's dimension.
                ext.pop();
            }
            extents.insert(a.name.clone(), ext);
            locals.push(self.array(&a.local, a.elem, ArrayKind::Local { len: a.len() }));
            for (d, td) in a.dims.iter().enumerate() {
                let init =
                    (td.primary != Primary::Strip).then(|| origin_expr(&self.vars, td, block));
                body.push(KStmt::Decl {
                    var: self.vars.named(&origin_name(a, d), Scalar::Int),
                    init,
                });
            }
        }
        Ok(extents)
    }

    /// The strip-mined computation: the statements before the strip-mined loop (declarations
    /// hoisted to the kernel's top), then the loop over strips — each moving the strip's
    /// origins, loading its tiles, and running the strip's iterates between barriers — then
    /// the statements after it.
    fn strip_mined(
        &mut self,
        tiles: &mut Tiles<'_>,
        strip: &Strip,
        cond: &Option<KExpr>,
        body: &mut Vec<KStmt>,
    ) -> Result<(), StageError> {
        let ir = self.ir();
        let pieces = self.split_at_strip(strip)?;
        let slp = &ir.loops[strip.loop_id];
        let lower = self.bound_expr(&slp.lower, Scalar::Int);
        let upper = self.bound_expr(&slp.upper, Scalar::Int);
        let names = (&self.arrays, &self.vars);
        let taken = taken_names(names, body, cond, &lower, &upper);
        let pre_guarded = hoist_decls(names, pieces.pre, taken, &strip.var, body)?;
        let mut per_strip = strip_origins(&self.vars, tiles.spec, tiles.block);
        per_strip.extend(tiles.copies(|a| a.uses_strip(), Dir::Load));
        per_strip.push(KStmt::Barrier);
        let whole = tiles.spec.unroll_strip;
        let strip_loop = strip_loop(
            &self.vars,
            tiles.spec.reorder.is_some(),
            (strip, pieces.k),
            pieces.declared_in_init,
            (!whole).then_some(&upper),
            pieces.inner,
        );
        let post = pieces.post;
        let coarsen = self.coarsen(&[&pre_guarded, std::slice::from_ref(&strip_loop), &post])?;
        self.row_guards(cond, coarsen.as_ref(), body);
        body.extend(self.computation(cond, coarsen.as_ref(), pre_guarded));
        let mut computation = self.computation(cond, coarsen.as_ref(), vec![strip_loop]);
        if whole {
            unroll_full_path(&mut computation, &self.vars.int(FULL));
        }
        per_strip.extend(computation);
        per_strip.push(KStmt::Barrier);
        let size = KExpr::int(strip.size as i64);
        let kk = self.vars.named(STRIP, Scalar::Int);
        body.push(KStmt::count_up(kk, lower, upper, size, per_strip));
        body.extend(self.computation(cond, coarsen.as_ref(), post));
        Ok(())
    }

    /// Finds the strip-mined loop at the top of the innermost grid loop's body and lowers the
    /// statements around it and its body ([`StripPieces`]).
    fn split_at_strip(&mut self, strip: &Strip) -> Result<StripPieces, StageError> {
        let ir = self.ir();
        let inner_id = self
            .mapped
            .last()
            .map(|m| m.loop_id)
            .ok_or(StageError::NoGridLoop)?;
        let code = &ir.code;
        let inner_for = code
            .loop_stmt(inner_id)
            .ok_or(StageError::GridLoopNotFound)?;
        let stmts = code.body_stmts(inner_for);
        let idx = stmts
            .iter()
            .position(|s| {
                matches!(code.stmts[code.unwrap_directives(*s)],
                    Stmt::For { id: Some(id), .. } if id == strip.loop_id)
            })
            .ok_or(StageError::StripNotAtTop)?;
        let strip_for = code.unwrap_directives(stmts[idx]);
        let Stmt::For {
            init: sinit,
            body: sbody,
            ..
        } = &code.stmts[strip_for]
        else {
            return Err(StageError::StripNotFor);
        };
        let declared_in_init = sinit.is_some_and(|i| matches!(code.stmts[i], Stmt::Locals(_)));
        let mut pre = Vec::new();
        for s in &stmts[..idx] {
            pre.extend(self.stmt(*s));
        }
        // The strip loop's iterator: its own where its header declares it (the body is lowered
        // in the header's scope), else the one in scope.
        let (k, inner) = if declared_in_init {
            let ty = ir.loops[strip.loop_id].ty;
            self.scoped(|b| {
                let k = b.fresh(&strip.var, ty);
                (k, b.stmt(*sbody))
            })
        } else {
            (self.resolve(&strip.var), self.stmt(*sbody))
        };
        let mut post = Vec::new();
        for s in &stmts[idx + 1..] {
            post.extend(self.stmt(*s));
        }
        // The strip loop's iterator is not visible after it in the staged code.
        let (mut arrs, mut vars) = (BTreeSet::new(), BTreeSet::new());
        for s in &post {
            free_names_stmt(s, &mut arrs, &mut vars);
        }
        if vars.iter().any(|&v| self.vars.name(v) == strip.var) {
            return Err(StageError::StripVarUsedAfter(strip.var.clone()));
        }
        Ok(StripPieces {
            pre,
            k,
            inner,
            post,
            declared_in_init,
        })
    }
}

/// What the parts of the staged body share: the staging, the logical and the launched block,
/// the global extents of the staged arrays, and the declarations of the copies' walk starts.
struct Tiles<'s> {
    vars: VarTable,
    spec: &'s StageSpec,
    block: [u32; 3],
    launched: [u32; 3],
    extents: BTreeMap<String, Vec<KExpr>>,
    /// Each tile's (by its local name) array and its global array's.
    arrays: BTreeMap<String, TileArrays>,
    starts: Vec<KStmt>,
}

/// A staged array's tile (local) and its global array, in the kernel.
type TileArrays = (Handle<KArray>, Handle<KArray>);

impl Tiles<'_> {
    /// The commented cooperative copies, in direction `dir`, of the tiles `pick` selects.
    fn copies(&mut self, pick: impl Fn(&StagedArray) -> bool, dir: Dir) -> Vec<KStmt> {
        let spec = self.spec;
        let mut out = Vec::new();
        for a in spec.arrays.iter().filter(|a| pick(a)) {
            out.extend(tile_copy_commented(
                &self.vars,
                a,
                self.arrays[&a.local],
                self.launched,
                &self.extents[&a.name],
                dir,
                &mut self.starts,
            ));
        }
        out
    }
}

/// The lowered statements of the innermost grid loop's body around the strip-mined loop.
struct StripPieces {
    /// The statements before the strip-mined loop.
    pre: Vec<KStmt>,
    /// The strip-mined loop's iterator.
    k: Handle<KVar>,
    /// The strip-mined loop's body.
    inner: Vec<KStmt>,
    /// The statements after the strip-mined loop.
    post: Vec<KStmt>,
    /// Whether the strip-mined loop's initializer declares its iterator.
    declared_in_init: bool,
}

/// The flat id of a work-item in the `launched` block: `lx + ly·width + lz·width·height`
/// (without the terms of the dimensions of one work-item).
fn flat_tid(launched: [u32; 3]) -> KExpr {
    let mut tid = KExpr::Builtin(Builtin::LocalId(0));
    if launched[1] > 1 || launched[2] > 1 {
        tid = KExpr::bin(
            BinOp::Add,
            tid,
            KExpr::bin(
                BinOp::Mul,
                KExpr::Builtin(Builtin::LocalId(1)),
                KExpr::int(launched[0] as i64),
            ),
        );
    }
    if launched[2] > 1 {
        tid = KExpr::bin(
            BinOp::Add,
            tid,
            KExpr::bin(
                BinOp::Mul,
                KExpr::Builtin(Builtin::LocalId(2)),
                KExpr::int((launched[0] * launched[1]) as i64),
            ),
        );
    }
    tid
}

/// The names declared at the top of the kernel (`body`) or used by the edge guard `cond` and
/// the strip-mined loop's bounds: a hoisted declaration must not reuse one.
fn taken_names(
    (names, vars): (&Arena<KArray>, &VarTable),
    body: &[KStmt],
    cond: &Option<KExpr>,
    lower: &KExpr,
    upper: &KExpr,
) -> BTreeSet<String> {
    let mut taken: BTreeSet<String> = body
        .iter()
        .filter_map(|s| match s {
            KStmt::Decl { var, .. } => Some(vars.name(*var)),
            KStmt::DeclArray(a) => Some(names[*a].name.clone()),
            _ => None,
        })
        .collect();
    for e in cond.iter().chain([lower, upper]) {
        let (mut a, mut used) = (BTreeSet::new(), BTreeSet::new());
        free_names_expr(e, &mut a, &mut used);
        taken.extend(used.into_iter().map(|v| vars.name(v)));
    }
    taken
}

/// Hoists the declarations of `pre` (the statements before the strip-mined loop, whose
/// iterator is `strip_var`) to the kernel's top, `body`, every work-item declaring them, and
/// returns what runs under the edge guard: the other statements, and the declarations'
/// initializers as assignments. A constant initializer stays on the declaration, for every
/// work-item (it reads nothing). Assigned under the edge guard instead, an accumulator live
/// across the strip loop's barriers made PoCL 3/5 (CPU) miscompile the kernel: work-items
/// outside the guard wrote past the output (accsuite gemm with `share(A[TB_Y][*])` at MINI
/// size).
fn hoist_decls(
    (names, vars): (&Arena<KArray>, &VarTable),
    pre: Vec<KStmt>,
    mut taken: BTreeSet<String>,
    strip_var: &str,
    body: &mut Vec<KStmt>,
) -> Result<Vec<KStmt>, StageError> {
    taken.insert(strip_var.to_string());
    vars.with(|vars| walk::hoist_decls(pre, (names, vars), &mut taken, true, body))
        .map_err(StageError::DeclaredTwice)
}

/// At the start of each strip: the origins of the tiles that move with it (`block`: the
/// logical block).
fn strip_origins(vars: &VarTable, spec: &StageSpec, block: [u32; 3]) -> Vec<KStmt> {
    let mut out = Vec::new();
    for a in spec.arrays.iter().filter(|a| a.uses_strip()) {
        for (d, td) in a.dims.iter().enumerate() {
            if td.primary == Primary::Strip {
                out.push(KStmt::Assign {
                    target: LValue::Var(vars.named(&origin_name(a, d), Scalar::Int)),
                    op: None,
                    value: origin_expr(vars, td, block),
                });
            }
        }
    }
    out
}

/// `var = value` for the strip-mined loop's iterator: a declaration where the loop's
/// initializer declares it, else an assignment.
fn set_strip_var(var: Handle<KVar>, declared: bool, value: KExpr) -> KStmt {
    if declared {
        KStmt::Decl {
            var,
            init: Some(value),
        }
    } else {
        KStmt::Assign {
            target: LValue::Var(var),
            op: None,
            value,
        }
    }
}

/// Marks the loops of the unguarded copy of a micro-tile's strip (`if (accshare_full) { … }`,
/// `KernelBuilder::computation`) to be unrolled: the loop over one strip, whose trip count is the
/// strip's constant size where the schedule says the loop runs whole strips
/// (`StageSpec::unroll_strip`). The guarded copy at the edges keeps its loop.
fn unroll_full_path(stmts: &mut [KStmt], full: &KExpr) {
    fn mark(stmts: &mut [KStmt]) {
        for s in stmts {
            match s {
                KStmt::For { unroll, .. } => *unroll = true,
                KStmt::Block(b) => mark(b),
                _ => {}
            }
        }
    }
    for s in stmts {
        if let KStmt::If { cond, then, .. } = s {
            if cond == full {
                mark(then);
            }
        }
    }
}

/// The strip-mined loop over one strip, from the strip's start to its end, and to the loop's
/// `upper` bound where given (`None`: the loop runs whole strips), running `inner_body`; with
/// the access reorder (`reorder`), rotated.
fn strip_loop(
    vars: &VarTable,
    reorder: bool,
    (strip, kv): (&Strip, Handle<KVar>),
    declared_in_init: bool,
    upper: Option<&KExpr>,
    inner_body: Vec<KStmt>,
) -> KStmt {
    let kk = vars.int(STRIP);
    let k = KExpr::Var(kv);
    let size = KExpr::int(strip.size as i64);
    if reorder {
        // The access reorder (decided by `schedule::stage::decide_reorder`): the work-item
        // at local x runs the strip's iterates from `lx mod size` on, wrapping, and skips
        // those past the loop's end (a partial last strip). Every iterate of the strip runs
        // once in every work-item; only the order of its reductions changes.
        let (dv, rv) = (vars.named(ROT_D, Scalar::Int), vars.named(ROT, Scalar::Int));
        let (d, r) = (KExpr::Var(dv), KExpr::Var(rv));
        let kval = KExpr::bin(BinOp::Add, kk, d);
        KStmt::count_up(
            rv,
            KExpr::int(0),
            size.clone(),
            KExpr::int(1),
            vec![
                KStmt::Decl {
                    var: dv,
                    init: Some(KExpr::bin(
                        BinOp::Rem,
                        KExpr::bin(BinOp::Add, r, KExpr::Builtin(Builtin::LocalId(0))),
                        size,
                    )),
                },
                set_strip_var(kv, declared_in_init, kval),
                match upper {
                    Some(upper) => KStmt::If {
                        cond: KExpr::bin(BinOp::Lt, k, upper.clone()),
                        then: inner_body,
                        els: Vec::new(),
                    },
                    None => KStmt::Block(inner_body),
                },
            ],
        )
    } else {
        KStmt::For {
            unroll: false,
            init: vec![set_strip_var(kv, declared_in_init, kk.clone())],
            cond: Some({
                let in_strip = KExpr::bin(BinOp::Lt, k.clone(), KExpr::bin(BinOp::Add, kk, size));
                match upper {
                    Some(upper) => KExpr::bin(
                        BinOp::LogAnd,
                        KExpr::bin(BinOp::Lt, k, upper.clone()),
                        in_strip,
                    ),
                    None => in_strip,
                }
            }),
            step: vec![KStmt::Assign {
                target: LValue::Var(kv),
                op: Some(BinOp::Add),
                value: KExpr::int(1),
            }],
            body: inner_body,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Evaluates the integer statements a walk is made of; `visit` records the coordinates at
    /// each `// visit` comment.
    fn run(
        stmts: &[KStmt],
        env: &mut HashMap<Handle<KVar>, i64>,
        coords: &[KExpr],
        out: &mut Vec<Vec<i64>>,
    ) {
        fn eval(e: &KExpr, env: &HashMap<Handle<KVar>, i64>) -> i64 {
            match e {
                KExpr::Int(v, ..) => *v,
                KExpr::Var(v) => env[v],
                KExpr::Binary(op, a, b) => {
                    let (a, b) = (eval(a, env), eval(b, env));
                    match op {
                        BinOp::Add => a + b,
                        BinOp::Sub => a - b,
                        BinOp::Mul => a * b,
                        BinOp::Div => a / b,
                        BinOp::Rem => a % b,
                        BinOp::Lt => (a < b) as i64,
                        BinOp::Ge => (a >= b) as i64,
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            }
        }
        for s in stmts {
            match s {
                KStmt::Decl { var, init } => {
                    let v = eval(init.as_ref().unwrap(), env);
                    env.insert(*var, v);
                }
                KStmt::Assign {
                    target: LValue::Var(v),
                    op,
                    value,
                } => {
                    let x = eval(value, env);
                    let old = env[v];
                    let new = match op {
                        None => x,
                        Some(BinOp::Add) => old + x,
                        Some(BinOp::Sub) => old - x,
                        other => panic!("{other:?}"),
                    };
                    env.insert(*v, new);
                }
                KStmt::If { cond, then, els } => {
                    let b = if eval(cond, env) != 0 { then } else { els };
                    run(b, env, coords, out);
                }
                KStmt::For {
                    unroll: _,
                    init,
                    cond,
                    step,
                    body,
                } => {
                    run(init, env, coords, out);
                    while eval(cond.as_ref().unwrap(), env) != 0 {
                        run(body, env, coords, out);
                        run(step, env, coords, out);
                    }
                }
                KStmt::While { cond, body } => {
                    while eval(cond, env) != 0 {
                        run(body, env, coords, out);
                    }
                }
                KStmt::Block(b) => run(b, env, coords, out),
                KStmt::Comment(c) if c == "visit" => {
                    out.push(coords.iter().map(|e| eval(e, env)).collect())
                }
                other => panic!("{other:?}"),
            }
        }
    }

    /// Every work-item of every block size visits the flat positions `tid, tid + threads, …`
    /// of the walk in order, with their row-major coordinates: 1-D, 2-D and 3-D walks, rows
    /// narrower and wider than the block, multiples and not.
    #[test]
    fn a_walk_visits_the_flat_positions_of_its_work_item() {
        let shapes: [&[i64]; 9] = [
            &[100],
            &[128, 32],
            &[128, 33],
            &[36, 9],
            &[36, 1],
            &[3, 700],
            &[34, 34],
            &[6, 5, 36],
            &[4, 3, 2],
        ];
        for widths in shapes {
            for threads in [1, 7, 32, 64, 128, 256, 1024] {
                let vars = VarTable::default();
                let walk = Walk::new(widths.to_vec(), threads, &vars);
                let mut starts = Vec::new();
                walk.declare_starts(&mut starts);
                let coords = walk.coords();
                let lp = walk.lp(vec![KStmt::Comment("visit".to_string())]);
                let total: i64 = widths.iter().product();
                for tid in 0..threads {
                    let mut env = HashMap::from([(vars.named(TID, Scalar::Int), tid)]);
                    let mut got = Vec::new();
                    run(&starts, &mut env, &coords, &mut got);
                    run(std::slice::from_ref(&lp), &mut env, &coords, &mut got);
                    let want: Vec<Vec<i64>> = (tid..total)
                        .step_by(threads as usize)
                        .map(|f| {
                            (0..widths.len())
                                .map(|d| {
                                    let inner: i64 = widths[d + 1..].iter().product();
                                    let q = f / inner;
                                    if d == 0 {
                                        q
                                    } else {
                                        q % widths[d]
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    assert_eq!(got, want, "{widths:?} threads {threads} tid {tid}");
                }
            }
        }
    }
}
