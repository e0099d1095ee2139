//! The vocabulary of the compiler: scalar types, operators, the OpenACC constructs, the forms of
//! atomic statements, and the partition language of the `share` pragma ([`share`]).
//!
//! Every stage speaks it, from the syntax trees (the front end's modules re-export it) through the IR and the kernel IR to the back ends, so it is a leaf module of its own that
//! imports nothing (`tests/architecture.rs` ranks it first and checks that it names no other
//! module but `diag`, for spans): the front end and the IR both name it without naming each
//! other backwards.

pub mod share;

/// Scalar C types of the subset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    SizeT,
    Float,
    Double,
}

impl Scalar {
    /// The C spelling (`unsigned char`, `size_t`, …).
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::Bool => "_Bool",
            Scalar::Char => "char",
            Scalar::SChar => "signed char",
            Scalar::UChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UShort => "unsigned short",
            Scalar::Int => "int",
            Scalar::UInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::ULong => "unsigned long",
            Scalar::LongLong => "long long",
            Scalar::ULongLong => "unsigned long long",
            Scalar::SizeT => "size_t",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    /// Size in bytes on the targets (LP64 host, OpenCL/CUDA device).
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::SChar | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long
            | Scalar::ULong
            | Scalar::LongLong
            | Scalar::ULongLong
            | Scalar::SizeT
            | Scalar::Double => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float | Scalar::Double)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char
                | Scalar::SChar
                | Scalar::Short
                | Scalar::Int
                | Scalar::Long
                | Scalar::LongLong
                | Scalar::Float
                | Scalar::Double
        )
    }
}

/// A unary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
}

/// A binary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

impl BinOp {
    /// Whether `child`, an operand of `self`, is parenthesised for clarity though precedence
    /// does not ask for it (as `gcc -Wparentheses` wants it): `&&` inside `||`, `+`/`-` inside
    /// shifts, comparisons and arithmetic inside `&`, `^`, `|`. Both C printers (the front
    /// end's and the host code's) follow it.
    pub fn wants_parens_around(self, child: BinOp) -> bool {
        use BinOp::*;
        match self {
            LogOr => child == LogAnd,
            Shl | Shr => matches!(child, Add | Sub),
            BitAnd | BitXor | BitOr => child != self && child.precedence() > self.precedence(),
            _ => false,
        }
    }

    /// C's precedence of the operator (higher binds tighter: `*` 13 … `||` 4), as the
    /// printers parenthesise by it.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
            BinOp::Add | BinOp::Sub => 12,
            BinOp::Shl | BinOp::Shr => 11,
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => 10,
            BinOp::Eq | BinOp::Ne => 9,
            BinOp::BitAnd => 8,
            BinOp::BitXor => 7,
            BinOp::BitOr => 6,
            BinOp::LogAnd => 5,
            BinOp::LogOr => 4,
        }
    }

    pub fn c_op(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }
}

impl UnOp {
    pub fn c_op(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Plus => "+",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
            UnOp::Deref => "*",
            UnOp::AddrOf => "&",
        }
    }
}

/// The operator of a `reduction` clause.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    Add,
    Mul,
    Max,
    Min,
    BitAnd,
    BitOr,
    BitXor,
    LogAnd,
    LogOr,
}

impl RedOp {
    pub fn name(self) -> &'static str {
        match self {
            RedOp::Add => "+",
            RedOp::Mul => "*",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::BitAnd => "&",
            RedOp::BitOr => "|",
            RedOp::BitXor => "^",
            RedOp::LogAnd => "&&",
            RedOp::LogOr => "||",
        }
    }
}

/// The clause of an `atomic` construct.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    Read,
    Write,
    Update,
    Capture,
}

impl AtomicKind {
    pub fn name(self) -> &'static str {
        match self {
            AtomicKind::Read => "read",
            AtomicKind::Write => "write",
            AtomicKind::Update => "update",
            AtomicKind::Capture => "capture",
        }
    }

    /// The kind a clause word names (`read`, `write`, `update`, `capture`).
    pub fn from_word(w: &str) -> Option<AtomicKind> {
        Some(match w {
            "read" => AtomicKind::Read,
            "write" => AtomicKind::Write,
            "update" => AtomicKind::Update,
            "capture" => AtomicKind::Capture,
            _ => return None,
        })
    }
}

/// What an atomic statement does to its location `x`, over expressions of type `E` (the
/// syntax tree's in the front end, the IR's handles after it).
#[derive(Clone, Debug, PartialEq)]
pub enum AtomicUpdate<E> {
    /// `v = x;` (`atomic read`): `x` is not changed.
    Read,
    /// `x = e;`
    Write(E),
    /// `x = x op value` (`reversed`: `x = value op x`); `x++` is `x += 1`. With a comparison
    /// as `op` (`<`, `>`, `<=`, `>=`): a minimum or maximum, `x = x op value ? x : value`
    /// (`reversed`: `x = value op x ? value : x`).
    Op { op: BinOp, value: E, reversed: bool },
}

/// One recognized atomic statement (`front::region::atomic` recognizes them).
#[derive(Clone, Debug, PartialEq)]
pub struct AtomicForm<E> {
    pub kind: AtomicKind,
    /// The location: an array element or a scalar.
    pub x: E,
    pub update: AtomicUpdate<E>,
    /// `capture`: the lvalue `v` and whether it gets the value of `x` after the update (`true`)
    /// or before it. An `atomic read` has `Some((v, false))`.
    pub capture: Option<(E, bool)>,
}

impl<E> AtomicForm<E> {
    /// The same statement over other expressions (`f` applied to each, `x` first, then the
    /// update's value, then the captured lvalue).
    pub fn map<F, T>(&self, mut f: F) -> AtomicForm<T>
    where
        F: FnMut(&E) -> T,
    {
        let x = f(&self.x);
        let update = match &self.update {
            AtomicUpdate::Read => AtomicUpdate::Read,
            AtomicUpdate::Write(e) => AtomicUpdate::Write(f(e)),
            AtomicUpdate::Op {
                op,
                value,
                reversed,
            } => AtomicUpdate::Op {
                op: *op,
                value: f(value),
                reversed: *reversed,
            },
        };
        AtomicForm {
            kind: self.kind,
            x,
            update,
            capture: self.capture.as_ref().map(|(v, after)| (f(v), *after)),
        }
    }
}

/// The OpenACC constructs and directives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Construct {
    Kernels,
    Parallel,
    Serial,
    KernelsLoop,
    ParallelLoop,
    SerialLoop,
    Loop,
    Data,
    /// `cache(list)`: a shared-memory hint in accshare.
    Cache,
    EnterData,
    ExitData,
    Update,
    Wait,
    Routine,
    /// `atomic [read|write|update|capture]` (a bare `atomic` is `update`).
    Atomic(AtomicKind),
    HostData,
    Declare,
}

impl Construct {
    pub fn name(&self) -> &'static str {
        match self {
            Construct::Kernels => "kernels",
            Construct::Parallel => "parallel",
            Construct::Serial => "serial",
            Construct::KernelsLoop => "kernels loop",
            Construct::ParallelLoop => "parallel loop",
            Construct::SerialLoop => "serial loop",
            Construct::Loop => "loop",
            Construct::Data => "data",
            Construct::Cache => "cache",
            Construct::EnterData => "enter data",
            Construct::ExitData => "exit data",
            Construct::Update => "update",
            Construct::Wait => "wait",
            Construct::Routine => "routine",
            Construct::Atomic(_) => "atomic",
            Construct::HostData => "host_data",
            Construct::Declare => "declare",
        }
    }

    /// A compute construct (starts a region that becomes kernels).
    pub fn is_compute(&self) -> bool {
        matches!(
            self,
            Construct::Kernels
                | Construct::Parallel
                | Construct::Serial
                | Construct::KernelsLoop
                | Construct::ParallelLoop
                | Construct::SerialLoop
        )
    }

    /// Carries loop clauses and applies to a `for` loop.
    pub fn is_loop(&self) -> bool {
        matches!(
            self,
            Construct::KernelsLoop
                | Construct::ParallelLoop
                | Construct::SerialLoop
                | Construct::Loop
        )
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataKind {
    Copy,
    CopyIn,
    CopyOut,
    Create,
    Present,
    DevicePtr,
    /// `present_or_copy` / `pcopy` and friends map to the plain kinds; kept for messages.
    NoCreate,
    Delete,
    /// `update host(…)` / `update self(…)`.
    Host,
    /// `update device(…)`.
    Device,
}

impl DataKind {
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Copy => "copy",
            DataKind::CopyIn => "copyin",
            DataKind::CopyOut => "copyout",
            DataKind::Create => "create",
            DataKind::Present => "present",
            DataKind::DevicePtr => "deviceptr",
            DataKind::NoCreate => "no_create",
            DataKind::Delete => "delete",
            DataKind::Host => "host",
            DataKind::Device => "device",
        }
    }
}
