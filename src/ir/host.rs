//! The IR of the host code: every function of the translation unit, its statements and
//! expressions, with the OpenACC directives among them, for the analyses of what host code does
//! around the compute regions (`analysis::stale`). Lowered from the syntax tree by
//! `ir::lower::host`; the regions' own IR is [`crate::ir::Region`].
//!
//! A function's statements are in an [`Arena<HostStmt>`] ([`HostFunction::stmts`]), its
//! expressions in an [`Exprs`] ([`HostFunction::exprs`]), both named by [`Handle`]s, each with
//! its span ([`Arena::span`]).
//!
//! Invariants:
//!
//! - every statement of the function's body is here, in program order, compute constructs'
//!   statements included (a compute construct is [`HostStmt::Acc`] with its region's index in
//!   [`crate::ir::lower::Regions::compute`], and its statement, lowered like the rest);
//!   nothing is dropped: `return` keeps its value, `goto`, labels and `switch`/`case`/`default`
//!   are [`HostStmt::Unstructured`] with their expressions and statement;
//! - every expression of the host code is an [`Expr`] of the function; the parts [`Expr`] does
//!   not model (a call through a pointer, a compound literal) are an [`Expr::Opaque`] whose
//!   lowered parts are in [`HostFunction::opaque`] under its handle;
//! - every variable declared (file scope, parameters, locals) carries its [`VarShape`]: what
//!   the analyses need from its C type;
//! - every directive is the host plan's [`Directive`] of the pragma as written.

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::ir::arena::{Arena, Handle};
use crate::ir::directive::Directive;
use crate::ir::expr::{Expr, Exprs};

/// The host code of a translation unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostUnit {
    /// The file-scope variables (not `typedef`s), in order.
    pub globals: Vec<Var>,
    /// The function definitions, in order.
    pub functions: Vec<HostFunction>,
    /// A `declare` or `enter data` directive is somewhere in the file (file scope included).
    pub declare_or_enter: bool,
}

/// A variable's name and what its C type tells the analyses.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    /// The declarator.
    pub span: Span,
    pub shape: VarShape,
}

/// What a variable's C type tells the analyses of the host code.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VarShape {
    /// An array of scalars (or of structs of scalar fields of one type), or a pointer to one:
    /// the number of subscripts that name one element (`float *p`: 1; `float a[N][M]`: 2).
    pub rank: Option<usize>,
    /// It may hold an address of other memory: a pointer, an array of pointers, a struct, a
    /// type of unknown contents (not a scalar, `void`, a function, or an array of scalars).
    pub holds_addresses: bool,
}

/// One function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct HostFunction {
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// The parameters, in order (`None`: a parameter without a name).
    pub params: Vec<Option<Var>>,
    pub stmts: Arena<HostStmt>,
    pub exprs: Exprs,
    /// The body's statements, in order.
    pub body: Vec<Handle<HostStmt>>,
    /// The parts of the opaque expressions of [`Self::exprs`] (calls through pointers and
    /// compound literals), by the opaque expression's handle.
    pub opaque: BTreeMap<Handle<Expr>, Opaque>,
}

/// The storage class of a declaration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// None written: a local of the block (at file scope, a global).
    Auto,
    Static,
    Extern,
    Typedef,
}

/// One declarator of a declaration and its initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Declared {
    pub var: Var,
    pub init: Option<Initializer>,
}

/// An initializer, as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Handle<Expr>),
    /// `{ … }`.
    List(Vec<Initializer>),
    /// `.x = v`, `[i] = v`, `[i ... j] = v`: the designators' index expressions (in order,
    /// never evaluated at run time) and the value.
    Designated {
        indices: Vec<Handle<Expr>>,
        init: Box<Initializer>,
    },
}

/// The parts of an [`Expr::Opaque`] of the host code.
#[derive(Clone, Debug, PartialEq)]
pub enum Opaque {
    /// `(*fp)(x)`, `ops.f(x)`: the callee and the arguments.
    IndirectCall {
        callee: Handle<Expr>,
        args: Vec<Handle<Expr>>,
    },
    /// `(type){ … }`: the initializers.
    CompoundLit { inits: Vec<Initializer> },
}

/// One statement of the host code.
#[derive(Clone, Debug, PartialEq)]
pub enum HostStmt {
    /// A declaration (its declarators, in order).
    Decl {
        storage: Storage,
        vars: Vec<Declared>,
    },
    Expr(Handle<Expr>),
    Block(Vec<Handle<HostStmt>>),
    If {
        cond: Handle<Expr>,
        accept: Handle<HostStmt>,
        reject: Option<Handle<HostStmt>>,
    },
    For {
        /// The initialization: a [`HostStmt::Decl`] or a [`HostStmt::Expr`].
        init: Option<Handle<HostStmt>>,
        cond: Option<Handle<Expr>>,
        step: Option<Handle<Expr>>,
        body: Handle<HostStmt>,
    },
    While {
        cond: Handle<Expr>,
        body: Handle<HostStmt>,
    },
    DoWhile {
        body: Handle<HostStmt>,
        cond: Handle<Expr>,
    },
    Return(Option<Handle<Expr>>),
    Break,
    Continue,
    /// `;`, a pragma that is not OpenACC's.
    Empty,
    /// An OpenACC construct and the statement it applies to; `region`: a compute construct's
    /// region in [`crate::ir::lower::Regions::compute`] (`None`: not lowered, or not a compute
    /// construct).
    Acc {
        directive: Directive,
        region: Option<usize>,
        body: Handle<HostStmt>,
    },
    /// A directive that applies to no statement (`update`, `enter data`, `wait`, …).
    Standalone(Directive),
    /// `goto`, a label, `switch`, `case`, `default`: control flow that is not the statements'
    /// structure; `args`: a `switch`'s condition, a `case`'s values.
    Unstructured {
        kind: Unstructured,
        args: Vec<Handle<Expr>>,
        body: Option<Handle<HostStmt>>,
    },
}

/// The statements of [`HostStmt::Unstructured`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unstructured {
    Goto,
    Label,
    Switch,
    Case,
    Default,
    /// Anything else the parser kept so.
    Other,
}

impl Unstructured {
    /// `goto` or a label: the control flow is not the statements'.
    pub fn jumps(self) -> bool {
        matches!(self, Unstructured::Goto | Unstructured::Label)
    }
}

impl HostFunction {
    /// Calls `f` on `e` and every expression inside it, outermost first, the parts of opaque
    /// expressions and the index expressions of designators included.
    pub fn walk(&self, e: Handle<Expr>, f: &mut dyn FnMut(Handle<Expr>)) {
        f(e);
        for c in self.exprs.operands(e) {
            self.walk(c, f);
        }
        match self.opaque.get(&e) {
            Some(Opaque::IndirectCall { callee, args }) => {
                self.walk(*callee, f);
                args.iter().for_each(|a| self.walk(*a, f));
            }
            Some(Opaque::CompoundLit { inits }) => {
                inits.iter().for_each(|i| self.walk_init(i, f));
            }
            None => {}
        }
    }

    /// [`Self::walk`] over every expression of an initializer.
    pub fn walk_init(&self, i: &Initializer, f: &mut dyn FnMut(Handle<Expr>)) {
        match i {
            Initializer::Expr(e) => self.walk(*e, f),
            Initializer::List(v) => v.iter().for_each(|i| self.walk_init(i, f)),
            Initializer::Designated { indices, init } => {
                indices.iter().for_each(|e| self.walk(*e, f));
                self.walk_init(init, f);
            }
        }
    }
}
