//! The GPU kernel IR shared by the back ends, and the host plan that launches it.
//!
//! Everything a back end prints is decided before this point: grid and block shapes, guards for
//! partial blocks, barriers, local (shared) arrays, private scalars, flattened array indices,
//! reductions. Back ends (`back::opencl`, `back::cuda`, `back::host`) only spell it.
//!
//! Invariants:
//! - expressions have no side effects: assignments and increments are statements;
//! - every array access carries an already flattened index (`A[i][j]` → `A[i * M + j]`); the
//!   memory space it reads or writes is its array's ([`KArray::space`], from the array's kind),
//!   never a field of the access, so the two cannot disagree;
//! - the kernel owns its arrays ([`Kernel::arrays`], naga's arenas are the model): code names an
//!   array by a [`Handle<KArray>`] into that table, never by a string, and only back ends and the
//!   simulator turn a handle into a name or a memory slot (`kernel::valid` checks each handle);
//! - the kernel owns its scalars alike ([`Kernel::vars`]): a parameter, a private variable, a
//!   loop iterator or a vector's lane is a [`Handle<KVar>`]; a C name declared again in a
//!   nested scope is another [`KVar`]. Names are not made unique: `kernel::valid` rejects a use
//!   whose name does not resolve, in the C scope the printer writes it in, to its own variable
//!   (two variables of one name visible at once), so printing names never merges two scalars;
//! - a [`KStmt::Barrier`] is never inside control flow that depends on the thread id
//!   (lowering guarantees it; the simulator checks it).

use crate::diag::Span;
pub use crate::ir::{Arena, Handle};
use crate::vocab::{BinOp, Scalar, UnOp};

/// A set of kernels compiled together (one per input file), plus the host plan that runs them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub kernels: Vec<Kernel>,
    pub host: Vec<HostRegion>,
}

impl Module {
    /// True if any kernel uses `double` (OpenCL needs `cl_khr_fp64`).
    pub fn uses_double(&self) -> bool {
        self.kernels.iter().any(|k| k.uses_double)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// A C identifier, unique in the module (e.g. `gemm_k0`).
    pub name: String,
    /// Every array the kernel's code names ([`ArrayRef::array`], [`KStmt::DeclArray`]): its
    /// buffers, local arrays and private arrays, each once, with its name and element type.
    /// Only back ends and the simulator turn a handle into a name or a memory slot.
    pub arrays: Arena<KArray>,
    /// Every scalar the kernel's code names ([`KExpr::Var`], [`LValue::Var`], [`KStmt::Decl`],
    /// scalar parameters, atomic captures, vector lanes), each declaration once, with its name
    /// and type.
    pub vars: Arena<KVar>,
    pub params: Vec<KParam>,
    /// Arrays in local (shared) memory ([`ArrayKind::Local`]), in declaration order, sizes fixed
    /// at compile time.
    pub locals: Vec<Handle<KArray>>,
    /// Number of grid dimensions used (1..=3).
    pub dims: u8,
    /// Work-group (thread-block) size per dimension; unused dimensions are 1.
    pub block: [u32; 3],
    pub body: Vec<KStmt>,
    pub uses_double: bool,
    /// The shared memory's bank width (bytes) the host sets before launching the kernel, when
    /// not the platform's default (Kepler's 8-byte mode; `schedule::stage::BankMode`).
    pub bank_width: Option<u32>,
    /// 32-bit registers per work-item, the schedule's estimate (`schedule::regs::estimate` of
    /// the schedule the kernel applies): what the simulator's occupancy counts against the
    /// platform's register file. `None` for kernels not built from a schedule.
    pub registers: Option<u32>,
    /// Where the kernel came from, for comments in the output (`gemm.c:14`).
    pub origin: String,
}

/// A scalar a kernel names: a parameter passed by value, or a variable its code declares (a
/// private scalar, a loop iterator, a lane of a vector load).
#[derive(Clone, Debug, PartialEq)]
pub struct KVar {
    pub name: String,
    pub ty: Scalar,
    pub kind: VarKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A scalar parameter ([`KParamKind::Scalar`]), in scope everywhere.
    Param,
    /// Declared by a [`KStmt::Decl`] (or as a lane of a [`KStmt::VecLoad`]), in scope from
    /// there to the end of its block.
    Private,
}

impl Kernel {
    /// Adds a scalar; its handle.
    pub fn var(&mut self, name: &str, ty: Scalar, kind: VarKind) -> Handle<KVar> {
        new_var(&mut self.vars, name, ty, kind)
    }
}

/// Adds a scalar to `vars`; its handle.
pub fn new_var(vars: &mut Arena<KVar>, name: &str, ty: Scalar, kind: VarKind) -> Handle<KVar> {
    vars.append(
        KVar {
            name: name.to_string(),
            ty,
            kind,
        },
        Span::default(),
    )
}

/// An array a kernel names: a buffer parameter, a local (shared) array or a private array.
#[derive(Clone, Debug, PartialEq)]
pub struct KArray {
    pub name: String,
    pub elem: Scalar,
    pub kind: ArrayKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArrayKind {
    /// A global-memory buffer, the kernel parameter [`KParamKind::Buffer`] that names it.
    Buffer,
    /// `__local`/`__shared__` array of `len` elements, one of [`Kernel::locals`]
    /// (multi-dimensional tiles are flattened; the padded row length is part of the index
    /// expressions).
    Local { len: u32 },
    /// A private (per-thread) array of `len` elements, declared by a [`KStmt::DeclArray`].
    Private { len: u32 },
}

impl ArrayKind {
    /// The memory space an array of this kind lives in.
    pub fn space(&self) -> Space {
        match self {
            ArrayKind::Buffer => Space::Global,
            ArrayKind::Local { .. } => Space::Local,
            ArrayKind::Private { .. } => Space::Private,
        }
    }
}

impl KArray {
    /// The memory space the array lives in.
    pub fn space(&self) -> Space {
        self.kind.space()
    }

    /// The number of elements of a local or private array.
    pub fn elements(&self) -> Option<u32> {
        match self.kind {
            ArrayKind::Buffer => None,
            ArrayKind::Local { len } | ArrayKind::Private { len } => Some(len),
        }
    }
}

/// A kernel parameter. A buffer's name and element type are its array's
/// ([`KParamKind::Buffer`]).
#[derive(Clone, Debug, PartialEq)]
pub struct KParam {
    pub name: String,
    pub kind: KParamKind,
}

impl Kernel {
    /// Adds a local array of `len` elements; its handle.
    pub fn local(&mut self, name: &str, elem: Scalar, len: u32) -> Handle<KArray> {
        let h = self.arrays.append(
            KArray {
                name: name.to_string(),
                elem,
                kind: ArrayKind::Local { len },
            },
            Span::default(),
        );
        self.locals.push(h);
        h
    }

    /// The buffer parameter whose array is `h`.
    pub fn buffer_param(&self, h: Handle<KArray>) -> Option<&KParam> {
        self.params
            .iter()
            .find(|p| matches!(p.kind, KParamKind::Buffer { array, .. } if array == h))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum KParamKind {
    /// A global-memory buffer of `elem`; `read_only` buffers are printed `const`; all buffers are
    /// `restrict` (accshare gives each array its own buffer). `record`: the buffer is an array of
    /// structs of `elem` fields (declared in the kernel as the host declares it); its accesses
    /// name a field ([`ArrayRef::field`]).
    Buffer {
        /// The array the kernel's code names it by (of kind [`ArrayKind::Buffer`], of the same
        /// name and element type).
        array: Handle<KArray>,
        elem: Scalar,
        read_only: bool,
        record: Option<Record>,
    },
    /// A scalar passed by value, the variable `var` of type `ty` (of kind [`VarKind::Param`],
    /// of the parameter's name and this type). OpenCL forbids `bool` and `size_t` kernel
    /// parameters: the OpenCL back end passes `_Bool` as `uchar` (one byte, like the host's
    /// `_Bool`) and `size_t` as `ulong` (64-bit, like the host's); `_Bool` buffer elements are
    /// `uchar` too.
    Scalar { var: Handle<KVar>, ty: Scalar },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Local,
    /// A private (per-thread) array declared with [`KStmt::DeclArray`].
    Private,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArrayRef {
    /// The array (its space is the array's: [`KArray::space`]).
    pub array: Handle<KArray>,
    /// Flat element index (of the struct, for a field of an array of structs).
    pub index: Box<KExpr>,
    /// A field of a struct element (`a[index].re`), in a buffer of structs; `None` for the
    /// element itself (arrays of scalars).
    pub field: Option<Field>,
}

/// A struct type of the kernels: an array of structs the host declared (`typedef struct { float
/// re, im; } cpx;`), with its fields in the host's order, all of one scalar type (so the layout
/// has no padding: field `f` of element `i` is scalar `i * fields.len() + f` of the buffer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    pub name: RecordName,
    pub elem: Scalar,
    pub fields: Vec<String>,
}

/// How the host names a struct, and so the kernel declares it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecordName {
    /// `typedef struct { … } cpx;`
    Typedef(String),
    /// `struct pt { … };`
    Tag(String),
}

/// One field of a struct element: its position and name, and how many fields the struct has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub index: u32,
    pub count: u32,
}

impl ArrayRef {
    /// An element of an array of scalars.
    pub fn elem(array: Handle<KArray>, index: KExpr) -> ArrayRef {
        ArrayRef {
            array,
            index: Box::new(index),
            field: None,
        }
    }

    /// The index of the accessed scalar in the buffer: `index` for an array of scalars,
    /// `index * count + field` for a field of an array of structs. Analyses of addresses (the
    /// simulator, the lint) use this one.
    pub fn scalar_index(&self) -> KExpr {
        match &self.field {
            None => (*self.index).clone(),
            Some(f) => KExpr::bin(
                BinOp::Add,
                KExpr::bin(
                    BinOp::Mul,
                    (*self.index).clone(),
                    KExpr::int(f.count as i64),
                ),
                KExpr::int(f.index as i64),
            ),
        }
    }
}

impl Record {
    /// The C spelling of the type (`cpx`, `struct pt`).
    pub fn c_name(&self) -> String {
        match &self.name {
            RecordName::Typedef(n) => n.clone(),
            RecordName::Tag(t) => format!("struct {t}"),
        }
    }
}

impl Kernel {
    /// The struct types of the kernel's buffers, each once, in parameter order.
    pub fn records(&self) -> Vec<&Record> {
        let mut out: Vec<&Record> = Vec::new();
        for p in &self.params {
            if let KParamKind::Buffer {
                record: Some(r), ..
            } = &p.kind
            {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        out
    }
}

/// Thread-geometry built-ins; `dim` is 0 (x), 1 (y) or 2 (z).
///
/// Every built-in is an `int` in the generated code, in both back ends: OpenCL
/// `(int)get_global_id(0)` (the functions return `size_t`), CUDA `(int)threadIdx.x` and
/// `(int)(blockIdx.x * blockDim.x + threadIdx.x)` (the variables are `unsigned int`). Arithmetic
/// on built-ins therefore follows C's `int` rules (`LocalId(0) - 1 < 0` holds for thread 0), and
/// the lowering casts explicitly where it needs another type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `get_local_id(d)` / `threadIdx.d`
    LocalId(u8),
    /// `get_group_id(d)` / `blockIdx.d`
    GroupId(u8),
    /// `get_local_size(d)` / `blockDim.d`
    LocalSize(u8),
    /// `get_num_groups(d)` / `gridDim.d`
    NumGroups(u8),
    /// `get_global_id(d)` / `blockIdx.d * blockDim.d + threadIdx.d`
    GlobalId(u8),
}

#[derive(Clone, Debug, PartialEq)]
pub enum KExpr {
    /// A scalar: kernel parameter, private variable or loop iterator.
    Var(Handle<KVar>),
    /// Integer literal of the given type (printed with the C suffix the type needs).
    Int(i64, Scalar),
    /// Floating literal; `single` prints with an `f` suffix.
    Float(f64, bool),
    Load(ArrayRef),
    Unary(UnOp, Box<KExpr>),
    Binary(BinOp, Box<KExpr>, Box<KExpr>),
    Cond(Box<KExpr>, Box<KExpr>, Box<KExpr>),
    Cast(Scalar, Box<KExpr>),
    /// A math function (`sqrtf`, `fmaxf`, `exp`, `abs`, …, see [`MathFn`]); back ends map it to
    /// the target's spelling and convert the arguments to the C99 parameter types, so the call
    /// means what it means in C. `min`/`max` (not C99) are integer minimum and maximum (floats
    /// use `fminf`/`fmaxf`/`fmin`/`fmax`).
    Call(MathFn, Vec<KExpr>),
    Builtin(Builtin),
}

/// Shorthands for the shapes lowering and tests build most (they build nothing else).
impl KExpr {
    /// An `int` literal.
    pub fn int(v: i64) -> KExpr {
        KExpr::Int(v, Scalar::Int)
    }

    /// `a op b`.
    pub fn bin(op: BinOp, a: KExpr, b: KExpr) -> KExpr {
        KExpr::Binary(op, Box::new(a), Box::new(b))
    }

    /// A read of element `index` of an array of scalars ([`ArrayRef::elem`]).
    pub fn load(array: Handle<KArray>, index: KExpr) -> KExpr {
        KExpr::Load(ArrayRef::elem(array, index))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum LValue {
    Var(Handle<KVar>),
    Elem(ArrayRef),
}

#[derive(Clone, Debug, PartialEq)]
pub enum KStmt {
    /// `ty name = init;`: the scalar `var` ([`VarKind::Private`]) comes into scope.
    Decl {
        var: Handle<KVar>,
        init: Option<KExpr>,
    },
    /// `elem name[len];`: the private array ([`ArrayKind::Private`]) comes into scope.
    DeclArray(Handle<KArray>),
    /// `target = value;` or `target op= value;`
    Assign {
        target: LValue,
        op: Option<BinOp>,
        value: KExpr,
    },
    /// A call evaluated for its effect (rare: math functions have none; kept for completeness).
    Expr(KExpr),
    If {
        cond: KExpr,
        then: Vec<KStmt>,
        els: Vec<KStmt>,
    },
    /// `for (init; cond; step) body`; `init`/`step` are statements (declarations or assignments).
    /// `step` must hold only `Assign`/`Expr` statements (printed as a comma list). An `init` that
    /// is neither one declaration list of a single type nor a list of assignments is printed
    /// before the loop, inside a block that keeps its scope.
    For {
        init: Vec<KStmt>,
        cond: Option<KExpr>,
        step: Vec<KStmt>,
        body: Vec<KStmt>,
        /// The schedule asks the device compiler to unroll the loop fully (`#pragma unroll`):
        /// a micro-tile's k loop over one tile, whose trip count is the tile's constant size.
        unroll: bool,
    },
    While {
        cond: KExpr,
        body: Vec<KStmt>,
    },
    DoWhile {
        body: Vec<KStmt>,
        cond: KExpr,
    },
    Break,
    Continue,
    /// Work-group barrier with a local-memory fence (`barrier(CLK_LOCAL_MEM_FENCE)` /
    /// `__syncthreads()`).
    Barrier,
    /// `{ … }` (a scope).
    Block(Vec<KStmt>),
    /// `#pragma acc atomic`: one indivisible read-modify-write of the element `target`, of type
    /// `ty` (an `int`, `unsigned`, 64-bit integer, `float` or `double` in global or local
    /// memory). `capture` names a scalar of type `ty` declared before, which receives the
    /// element's value before or after the update. Back ends spell it with the target's atomic
    /// functions or a compare-and-swap loop; the simulator applies the lanes' updates one after
    /// the other.
    Atomic {
        target: ArrayRef,
        ty: Scalar,
        op: AtomicOp,
        capture: Option<AtomicCapture>,
    },
    /// A comment line in the output (`// staging A`).
    Comment(String),
    /// A vector load of short words (seed 004): the `lanes.len()` consecutive elements of
    /// `src`'s array from `src.index` on, into the scalars `lanes` (declared here, of the
    /// element type `elem`). One memory instruction: OpenCL `vloadN`, CUDA an aligned
    /// `uchar4`/`short2`/… where the address is aligned at run time, else element loads.
    /// Lowering makes one only where every lane is an element the program reads.
    VecLoad {
        /// The vector's own variable (where the target has one for it).
        vector: Handle<KVar>,
        lanes: Vec<Handle<KVar>>,
        elem: Scalar,
        src: ArrayRef,
        /// The address is a multiple of the vector's size (`lanes.len()` elements) in every
        /// work-item: a register micro-tile's read of a tile laid out for it
        /// (`schedule::micro::vector_tiles`). Back ends then load the vector without a run-time
        /// check and declare the local array with the vector's alignment.
        aligned: bool,
    },
    /// A vector store of short words: `values[k]` into element `dst.index + k` of `dst`'s array,
    /// one memory instruction (OpenCL `vstoreN`, CUDA as [`KStmt::VecLoad`]). Lowering makes one
    /// only where the program stores every element.
    VecStore {
        dst: ArrayRef,
        elem: Scalar,
        values: Vec<KExpr>,
    },
}

/// Most lanes of a vector access ([`KStmt::VecLoad`], [`KStmt::VecStore`]): OpenCL's widest
/// `vloadn` (the schedule's [`crate::schedule::words::MAX_LANES`]).
pub const MAX_VECTOR: usize = crate::schedule::words::MAX_LANES as usize;

/// What an atomic statement stores into its element `x`.
#[derive(Clone, Debug, PartialEq)]
pub enum AtomicOp {
    /// Nothing (`atomic read`: only the capture).
    Read,
    /// `x = value`.
    Write(KExpr),
    /// `x = x op value` (`x = value op x` when `reversed`), with C's conversions: the operation
    /// in the usual arithmetic type of `x` and `value`, the result converted to `x`'s type.
    Update {
        op: BinOp,
        value: KExpr,
        reversed: bool,
    },
}

/// The variable an atomic statement captures the element's value in.
#[derive(Clone, Debug, PartialEq)]
pub struct AtomicCapture {
    pub var: Handle<KVar>,
    /// The value after the update (`v = ++x`, `v = x += e`); else the value before (`v = x++`).
    pub after: bool,
}

/// The prefix of the local arrays in which a loop across lanes combines the lanes' copies of a
/// reduction scalar (`kernel::lower::lanes`).
pub const LANES_TREE: &str = "accshare_lanes_red_";

impl Kernel {
    /// Whether the kernel reorders a floating-point reduction across lanes (its results may
    /// differ from the sequential program's in the last bits): it combines lanes through a
    /// floating-point local array [`LANES_TREE`]…
    pub fn reorders_floats(&self) -> bool {
        self.locals.iter().any(|&l| {
            let a = &self.arrays[l];
            a.name.starts_with(LANES_TREE) && a.elem.is_float()
        })
    }

    /// The bytes of the widest aligned vector load ([`KStmt::VecLoad`] with `aligned`) from
    /// array `h`, 0 where there is none: the alignment its declaration needs.
    pub fn vector_alignment(&self, h: Handle<KArray>) -> u32 {
        let widest = std::cell::Cell::new(0u32);
        for s in &self.body {
            s.any(&|t| {
                if let KStmt::VecLoad {
                    lanes,
                    elem,
                    src,
                    aligned: true,
                    ..
                } = t
                {
                    if src.array == h {
                        widest.set(widest.get().max(lanes.len() as u32 * elem.size()));
                    }
                }
                false
            });
        }
        widest.get()
    }

    /// Whether the kernel holds an atomic statement on an element whose type satisfies `pred`.
    pub fn uses_atomic(&self, pred: impl Fn(Scalar) -> bool) -> bool {
        self.body
            .iter()
            .any(|s| s.any(&|t| matches!(t, KStmt::Atomic { ty, .. } if pred(*ty))))
    }
}

impl KStmt {
    /// `for (int var = init; var < bound; var += step) { body }` (`var` an `int`).
    pub fn count_up(
        var: Handle<KVar>,
        init: KExpr,
        bound: KExpr,
        step: KExpr,
        body: Vec<KStmt>,
    ) -> KStmt {
        KStmt::For {
            unroll: false,
            init: vec![KStmt::Decl {
                var,
                init: Some(init),
            }],
            cond: Some(KExpr::bin(BinOp::Lt, KExpr::Var(var), bound)),
            step: vec![KStmt::Assign {
                target: LValue::Var(var),
                op: Some(BinOp::Add),
                value: step,
            }],
            body,
        }
    }

    /// The expressions an atomic statement reads besides its element: the index and the value.
    pub fn atomic_operands(&self) -> Vec<&KExpr> {
        match self {
            KStmt::Atomic { target, op, .. } => {
                let mut v = vec![target.index.as_ref()];
                match op {
                    AtomicOp::Read => {}
                    AtomicOp::Write(e) | AtomicOp::Update { value: e, .. } => v.push(e),
                }
                v
            }
            _ => Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Host plan
// ---------------------------------------------------------------------------------------------

/// What the host does in place of one annotated statement of the user's function: a compute
/// construct (buffers, transfers, launches) or a `data` construct (buffers live across the
/// statements inside it).
#[derive(Clone, Debug, PartialEq)]
pub struct HostRegion {
    /// The text of the user's main file that this replaces: the pragma line(s) through the end of
    /// the statement they annotate (byte offsets into the main file).
    pub replace: std::ops::Range<usize>,
    /// For a data construct: the byte range of the body statement inside `replace`, which is kept
    /// (with the regions nested in it replaced in turn). `None` for compute regions.
    pub keep_body: Option<std::ops::Range<usize>>,
    /// For a data construct: its body's host code touches no memory but named scalars (only
    /// the kernels of its compute regions read and write its arrays while it lives), so its
    /// buffers may be the user's arrays where the device shares host memory. `false` otherwise.
    pub quiet_body: bool,
    /// Buffers this region creates (arrays already present in an enclosing data construct are not
    /// listed: their buffer is in scope).
    pub buffers: Vec<Buffer>,
    /// Launches, in order (compute regions only).
    pub launches: Vec<Launch>,
    /// The actions of an executable data directive (`update`, `enter data`, `exit data`), in
    /// order; empty for constructs.
    pub data_ops: Vec<DataOp>,
    /// For a compute construct: the scalars it uses through their device copies, in name order.
    pub device_scalars: Vec<DeviceScalar>,
    /// The construct's `if(…)` clause: its device part (transfers, launches, data actions) runs
    /// only where the condition holds.
    pub if_clause: Option<HostExpr>,
    /// For a compute construct with an `if` clause: the byte range of the annotated statement
    /// inside `replace`, which runs on the host as written where the condition does not hold
    /// (OpenACC's host fallback: no data clause acts, the host's arrays are used).
    pub fallback: Option<std::ops::Range<usize>>,
    /// `file:line` of the construct, for comments and error messages.
    pub origin: String,
    /// The struct members the construct names, each through a variable the host code declares
    /// first (`double *data_a = data.a;`).
    pub aliases: Vec<crate::ir::directive::MemberAlias>,
}

impl HostRegion {
    /// The range of `replace` whose text the output keeps: a data construct's body, or a
    /// compute construct's host fallback.
    pub fn kept(&self) -> Option<&std::ops::Range<usize>> {
        self.keep_body.as_ref().or(self.fallback.as_ref())
    }
}

/// An integer the host computes in the user's function before a launch or a transfer: element
/// counts, numbers of work-items, scalar arguments. Built by kernel lowering from the user's
/// (macro-expanded, parsed) expressions and affine forms, spelled by the back ends; never source
/// text.
#[derive(Clone, Debug, PartialEq)]
pub enum HostExpr {
    Int(i64),
    /// A name in the user's function.
    Var(String),
    /// An expression of the user's program (an array extent from a declaration, a clause's
    /// start or length, an `if` clause, the expression a region invariant stands for), as the
    /// IR holds it, apart from any region; printable ([`crate::ir::Exprs::printable`]).
    Ir(Box<crate::ir::Detached>),
    /// The value as a C `long` (region invariants are `long` parameters).
    Long(Box<HostExpr>),
    Bin(HostOp, Box<HostExpr>, Box<HostExpr>),
    /// The larger of two values.
    Max(Box<HostExpr>, Box<HostExpr>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HostOp {
    Add,
    Sub,
    Mul,
    /// Truncating division of non-negative values.
    Div,
}

impl HostExpr {
    pub fn var(name: &str) -> Self {
        HostExpr::Var(name.to_string())
    }

    /// The variable this expression is, when it is one name.
    pub fn variable(&self) -> Option<&str> {
        match self {
            HostExpr::Var(v) => Some(v),
            HostExpr::Long(x) => x.variable(),
            HostExpr::Ir(d) => match &d.exprs[d.root] {
                crate::ir::Expr::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the expression reads the variable `v` (conservatively `true` for what it does
    /// not look into: member accesses, calls through pointers, …).
    pub fn mentions(&self, v: &str) -> bool {
        match self {
            HostExpr::Int(_) => false,
            HostExpr::Var(x) => x == v,
            HostExpr::Long(x) => x.mentions(v),
            HostExpr::Bin(_, a, b) | HostExpr::Max(a, b) => a.mentions(v) || b.mentions(v),
            HostExpr::Ir(d) => d.exprs.mentions(d.root, v),
        }
    }
    pub fn bin(op: HostOp, a: HostExpr, b: HostExpr) -> Self {
        HostExpr::Bin(op, Box::new(a), Box::new(b))
    }
    /// `⌈a / b⌉·b`: `a` rounded up to a multiple of `b` (`b > 0`).
    pub fn round_up(self, b: i64) -> Self {
        (self + HostExpr::Int(b - 1)) / HostExpr::Int(b) * HostExpr::Int(b)
    }
    /// The product of factors (1 for none).
    pub fn product(factors: impl IntoIterator<Item = HostExpr>) -> Self {
        factors
            .into_iter()
            .reduce(|a, b| a * b)
            .unwrap_or(HostExpr::Int(1))
    }
    /// An affine form, each symbol spelled by `sym` (a variable of the function, or the
    /// expression a region invariant stands for).
    pub fn from_poly(p: &crate::ir::Poly, sym: &dyn Fn(&str) -> HostExpr) -> Self {
        let mut out: Option<HostExpr> = None;
        let constant = p.constant_term();
        for (m, c) in p.terms().filter(|(m, _)| !m.is_empty()) {
            let factors = m.iter().map(|x| sym(x));
            let term = if c.unsigned_abs() == 1 {
                HostExpr::product(factors)
            } else {
                HostExpr::product(std::iter::once(HostExpr::Int(c.abs())).chain(factors))
            };
            out = Some(match (out, c < 0) {
                (None, false) => term,
                (None, true) => Self::bin(HostOp::Sub, HostExpr::Int(0), term),
                (Some(a), false) => a + term,
                (Some(a), true) => Self::bin(HostOp::Sub, a, term),
            });
        }
        match out {
            None => HostExpr::Int(constant),
            Some(a) if constant > 0 => a + HostExpr::Int(constant),
            Some(a) if constant < 0 => Self::bin(HostOp::Sub, a, HostExpr::Int(-constant)),
            Some(a) => a,
        }
    }
    /// The value is the constant `v`.
    pub fn is_int(&self, v: i64) -> bool {
        matches!(self, HostExpr::Int(x) if *x == v)
    }
}

impl std::ops::Add for HostExpr {
    type Output = HostExpr;
    fn add(self, b: HostExpr) -> HostExpr {
        HostExpr::bin(HostOp::Add, self, b)
    }
}

impl std::ops::Sub for HostExpr {
    type Output = HostExpr;
    fn sub(self, b: HostExpr) -> HostExpr {
        HostExpr::bin(HostOp::Sub, self, b)
    }
}

impl std::ops::Mul for HostExpr {
    type Output = HostExpr;
    fn mul(self, b: HostExpr) -> HostExpr {
        HostExpr::bin(HostOp::Mul, self, b)
    }
}

impl std::ops::Div for HostExpr {
    type Output = HostExpr;
    fn div(self, b: HostExpr) -> HostExpr {
        HostExpr::bin(HostOp::Div, self, b)
    }
}

/// A device buffer mirroring a host array (its host address is the array's name, an array or a
/// pointer in the user's function, as a pointer to its elements).
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The array's name in the user's code; the device handle is named `accshare_d_<name>`.
    pub array: String,
    pub elem: Scalar,
    /// The element count, in the user's function.
    pub count: HostExpr,
    /// Copy host → device when the buffer is created.
    pub copy_in: bool,
    /// Zero the device copy when the buffer is created (the `zero:` modifier; never with
    /// `copy_in`).
    pub zero: bool,
    /// Copy device → host when the buffer is released.
    pub copy_out: bool,
    /// A `present` clause: the array must already be on the device (the present table holds
    /// it); it is a run-time error otherwise. `count` may then be `0` (unknown).
    pub present: bool,
    /// The host variable is a true array (not a parameter or pointer) and `count` claims to be
    /// all of it: the host code checks `count * sizeof(elem) == sizeof(array)` before using it.
    pub whole_array: bool,
    /// The section's first element, in elements of `elem` from the array's element 0, for a
    /// subarray that starts past 0 (`copyin(u[lo:n])`; `None` is 0): only the section is on the
    /// device, and kernels address it with the host's indices.
    pub start: Option<HostExpr>,
    /// A scalar variable in a data clause (`copy(sum)`): a one-element object whose host
    /// address is `&name`; never the user's variable itself (zero-copy), never a kernel's
    /// buffer argument (compute regions use it through [`HostRegion::device_scalars`]).
    pub scalar: bool,
    /// An array of pointers to rows ([`crate::ir::lower::Symbol::rows`]): the device copy is
    /// the rows one after another, gathered from and scattered to the rows the pointers point to.
    pub rows: Option<Rows>,
}

/// The rows of an array of pointers (`double **a`) whose data clause gives every bound
/// (`a[lo:n][0:m]`): the device copy is `n * m` elements, row after row, and the present table
/// keys it by the pointers' addresses (`&a[lo]`…`&a[lo + n]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// The elements of a row (`m`).
    pub len: HostExpr,
    /// The first row (`lo`; `None` is 0).
    pub first: Option<HostExpr>,
}

/// What an executable data directive does to one array.
#[derive(Clone, Debug, PartialEq)]
pub struct DataOp {
    pub array: String,
    pub elem: Scalar,
    /// The element count (`0` when unknown and not needed).
    pub count: HostExpr,
    /// The section's first element (`update host(v[lo:n])`), as [`Buffer::start`].
    pub start: Option<HostExpr>,
    pub kind: DataOpKind,
    /// A scalar variable (`update self(x)`): one element at `&array`, as [`Buffer::scalar`].
    pub scalar: bool,
    /// An array of pointers to rows, as [`Buffer::rows`].
    pub rows: Option<Rows>,
}

/// A scalar of the user's that a compute region uses while it has a device copy (a data clause
/// of the construct or of an enclosing data construct names it): the region's host code works
/// on a host variable of the same name shadowing the user's, loaded from the device copy before
/// the launches and, when the region may assign it, stored back into it after them (kernel
/// arguments, final values and reductions are then the device copy's). Where the present table
/// has no copy at run time (a caller's data region, say, that did not make one) the user's
/// variable is used, as without a data clause.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceScalar {
    pub var: String,
    pub ty: Scalar,
    /// The region may assign the variable: its value goes back to the device copy.
    pub written: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DataOpKind {
    /// `update host(…)`/`self(…)` (`to_host`) or `update device(…)`.
    Update { to_host: bool, if_present: bool },
    /// `enter data copyin(…)` (`copy_in`) / `create(…)`: a reference in the present table.
    Enter { copy_in: bool, zero: bool },
    /// `exit data copyout(…)` (`copy_out`) / `delete(…)`; `finalize` drops every reference.
    Exit { copy_out: bool, finalize: bool },
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// Index into [`Module::kernels`].
    pub kernel: usize,
    /// One per kernel parameter, in order.
    pub args: Vec<HostArg>,
    /// Number of work-items needed per dimension (the host rounds up to the block size). Unused
    /// dimensions are 1.
    pub extent: [HostExpr; 3],
    /// Scalar reductions finished on the host after the launch.
    pub reductions: Vec<HostReduction>,
    /// The kernel's outermost grid loop strides over the grid (`schedule::stride`): the host
    /// launches at most this many work-groups per compute unit of its device.
    pub stride: Option<crate::schedule::stride::GridStride>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum HostArg {
    /// The device buffer of a user array (`accshare_d_<name>`).
    Buffer(String),
    /// A scalar value computed in the user's function, of the given type.
    Scalar { expr: HostExpr, ty: Scalar },
    /// The partial-results buffer of reduction `i` of this launch (one element per work-group).
    Partials(usize),
    /// A scalar of the user's the kernel may assign (see `kernel::lower::last`): a one-element
    /// buffer holding the variable's value before the launch, read back into it afterwards.
    LastValue { var: String, ty: Scalar },
}

/// A scalar reduction: each work-group writes one partial result; the host combines them into
/// the user's variable: `var = var op p0 op p1 …` (`op` is a C binary operator, or `max`/`min`).
#[derive(Clone, Debug, PartialEq)]
pub struct HostReduction {
    pub var: String,
    pub ty: Scalar,
    pub op: crate::vocab::RedOp,
}
pub mod access;
pub mod lint;
pub mod lower;
pub mod math;
#[doc(hidden)]
pub mod testing;
pub mod valid;
mod visit;

pub use math::MathFn;
