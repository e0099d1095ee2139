//! The IR's statements: the code of a compute region, in an [`Arena<Stmt>`] of the region
//! ([`Code::stmts`]), named by [`Handle<Stmt>`]s; their expressions are the region's
//! [`Expr`]s ([`crate::ir::Region::exprs`]). Lowered from the syntax tree by `ir::lower::code`,
//! the only reader of the C syntax tree after the front end for a region's code: kernel
//! lowering and staging read these.
//!
//! Invariants: every statement of the construct's statement is here, in program order, with
//! its span ([`Arena::span`]); a `for` that is one of the loop-nest view's loops names it
//! ([`Stmt::For::id`], and [`Code::loops`] maps back); what the kernel subset does not take
//! (`return`, `goto`, `switch`) is [`Stmt::Unsupported`], reported by the front end's
//! validation, never dropped silently.

use std::collections::BTreeMap;

use crate::ir::arena::{Arena, Handle};
use crate::ir::expr::Expr;
use crate::ir::LoopId;
use crate::vocab::{AtomicForm, AtomicKind, Scalar};

/// One statement of a region's code.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A declaration: its declarators, in order (none for a bare `struct s { … };`).
    Locals(Vec<Local>),
    /// An expression statement (assignments are [`Expr::Assign`]).
    Expr(Handle<Expr>),
    /// `{ … }`.
    Block(Vec<Handle<Stmt>>),
    If {
        cond: Handle<Expr>,
        accept: Handle<Stmt>,
        reject: Option<Handle<Stmt>>,
    },
    /// A `for` loop; `id`: the loop-nest view's loop, when it is one of the region's loops.
    For {
        id: Option<LoopId>,
        /// The initialization: a declaration ([`Stmt::Locals`]) or an expression statement.
        init: Option<Handle<Stmt>>,
        cond: Option<Handle<Expr>>,
        step: Option<Handle<Expr>>,
        body: Handle<Stmt>,
    },
    While {
        cond: Handle<Expr>,
        body: Handle<Stmt>,
    },
    DoWhile {
        body: Handle<Stmt>,
        cond: Handle<Expr>,
    },
    /// An OpenACC construct other than `atomic` inside the region (`loop`, `cache`'s
    /// statement, …) and the statement it applies to: the statement runs as written.
    Directive {
        body: Handle<Stmt>,
    },
    /// `#pragma acc atomic` and its statement; `form`: what it does, `None` when the statement
    /// is none of the atomic forms (reported by the front end's validation).
    Atomic {
        kind: AtomicKind,
        form: Option<AtomicForm<Handle<Expr>>>,
        body: Handle<Stmt>,
    },
    Break,
    Continue,
    /// Nothing to run: `;`, another pragma, a standalone directive (`update`, `wait`, …).
    Empty,
    /// `return`, `goto`, a label or `switch`: outside the kernel subset (reported by the front
    /// end's validation); control flow that may skip what follows.
    Unsupported,
}

/// One declarator of a declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: LocalType,
    pub init: Init,
    /// The declarator's span.
    pub span: crate::diag::Span,
}

/// The type of a local variable, as far as the kernel subset goes.
#[derive(Clone, Debug, PartialEq)]
pub enum LocalType {
    Scalar(Scalar),
    /// An array of scalars; each extent, where it is a constant.
    Array {
        elem: Scalar,
        extents: Vec<Option<i64>>,
    },
    /// Anything else: a pointer, a struct, an array of structs or of pointers.
    Other,
}

/// A declarator's initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    None,
    Expr(Handle<Expr>),
    /// A braced list (designated or not), at this span.
    List(crate::diag::Span),
}

/// A region's code: its statements, the construct's statement, and where each loop of the
/// loop-nest view is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Code {
    pub stmts: Arena<Stmt>,
    /// The statement the construct applies to (the `for` of a combined construct); `None`
    /// only in a region built by hand (tests).
    pub body: Option<Handle<Stmt>>,
    /// The `for` statement of each loop of the region.
    pub loops: BTreeMap<LoopId, Handle<Stmt>>,
}

impl Code {
    /// The `for` statement of loop `id`.
    pub fn loop_stmt(&self, id: LoopId) -> Option<Handle<Stmt>> {
        self.loops.get(&id).copied()
    }

    /// `s` without the directives around it (`#pragma acc loop` over a `for`).
    pub fn unwrap_directives(&self, mut s: Handle<Stmt>) -> Handle<Stmt> {
        while let Stmt::Directive { body } = &self.stmts[s] {
            s = *body;
        }
        s
    }

    /// The top-level statements of a loop's body (the body's block's statements, or the body
    /// alone), directives around the body unwrapped.
    pub fn body_stmts(&self, for_stmt: Handle<Stmt>) -> Vec<Handle<Stmt>> {
        let Stmt::For { body, .. } = &self.stmts[for_stmt] else {
            return Vec::new();
        };
        match &self.stmts[self.unwrap_directives(*body)] {
            Stmt::Block(b) => b.clone(),
            _ => vec![*body],
        }
    }

    /// The statements directly inside `s` (not its expressions), in order.
    pub fn children(&self, s: Handle<Stmt>) -> Vec<Handle<Stmt>> {
        match &self.stmts[s] {
            Stmt::Block(b) => b.clone(),
            Stmt::If { accept, reject, .. } => std::iter::once(*accept).chain(*reject).collect(),
            Stmt::For { init, body, .. } => init.iter().copied().chain([*body]).collect(),
            Stmt::While { body, .. }
            | Stmt::DoWhile { body, .. }
            | Stmt::Directive { body }
            | Stmt::Atomic { body, .. } => vec![*body],
            Stmt::Locals(_)
            | Stmt::Expr(_)
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Empty
            | Stmt::Unsupported => Vec::new(),
        }
    }
}
