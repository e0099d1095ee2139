//! The C abstract syntax tree of the supported subset.
//!
//! Produced by `front::parser` from preprocessed tokens; pragmas are attached to the statements
//! they annotate by `front::region`. Every node carries the [`Span`] of its text *at the use site*
//! in the user's file (for a token that came from a macro expansion, the span of the macro use).
//!
//! Items of the translation unit that are outside the subset and carry no OpenACC pragma are kept
//! as [`ItemKind::Opaque`]: they are never rejected, the output carries their text unchanged.

use crate::diag::Span;
use crate::front::pragma_ast::{AccDirective, SharePragma};
/// The vocabulary the IR owns, re-exported where the syntax tree uses it.
pub use crate::vocab::{BinOp, Scalar, UnOp};

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A C type. Qualifiers that matter to code generation (`const`, `restrict`) are kept.
#[derive(Clone, Debug, PartialEq)]
pub enum CType {
    Void,
    Scalar(Scalar),
    /// A `typedef` name the subset could not resolve to a scalar (e.g. a struct typedef), or
    /// `long double` (host code only: not a type of the kernels).
    Named(String),
    /// `struct S` / `union U` / `enum E` (outside the subset inside kernels). A tag defined
    /// where it is used (`struct S { … } s;`) keeps only its name (members and enumerators are
    /// host code, carried through as written); an anonymous one (`struct { … }`) has the empty
    /// name.
    Tagged {
        kind: TagKind,
        name: String,
    },
    /// A function type: `double (double)` in `double (*fp)(double)` or a block-scope
    /// prototype (host code only: no kernel declares or calls through one).
    Function {
        ret: Box<CType>,
        params: Vec<CType>,
        /// `…` ends the parameter list.
        variadic: bool,
    },
    Pointer {
        to: Box<CType>,
        is_const: bool,
        is_restrict: bool,
    },
    /// `elem[len]`; `len` is `None` for `[]`.
    Array {
        elem: Box<CType>,
        len: Option<Box<Expr>>,
    },
    /// `T const` at this level (e.g. `const float` element type).
    Const(Box<CType>),
    /// A `struct` whose definition the parser saw (`struct pt { float x, y, z; }`, a `typedef`
    /// of one, or `struct pt` after the definition): its members, in declaration order.
    Struct(std::sync::Arc<StructDef>),
}

/// A `struct` definition: the tag (empty for `struct { … }`), the `typedef` name it was reached
/// through, if any, and its members as declared.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub tag: String,
    pub typedef: Option<String>,
    pub members: Vec<Member>,
    /// The `struct … { … }` text.
    pub span: Span,
}

/// One member of a struct definition. `name` is `None` for an anonymous struct or union member
/// and for an unnamed bit-field.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub name: Option<Ident>,
    pub ty: CType,
    pub bitfield: bool,
    pub span: Span,
}

/// Why a struct cannot be the element of an array in a compute region: the member at fault and
/// what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberProblem {
    pub span: Span,
    pub what: String,
}

impl StructDef {
    /// How kernels and messages name the type: the `typedef` name, else `struct tag`.
    pub fn c_name(&self) -> String {
        match &self.typedef {
            Some(t) => t.clone(),
            None if self.tag.is_empty() => "struct <anonymous>".to_string(),
            None => format!("struct {}", self.tag),
        }
    }

    /// The scalar fields of a struct that kernels can index: every member a named scalar (not
    /// a bit-field, array, pointer, nested struct, union or enum), all of one scalar type, so
    /// that the host's layout has no padding and a struct of `k` fields is `k` consecutive
    /// scalars. Otherwise the first member that is not, and why.
    pub fn scalar_fields(&self) -> Result<(Scalar, Vec<&Ident>), MemberProblem> {
        let mut ty: Option<Scalar> = None;
        let mut names = Vec::new();
        if self.members.is_empty() {
            return Err(MemberProblem {
                span: self.span,
                what: "a struct without members".to_string(),
            });
        }
        for m in &self.members {
            let problem = |what: &str| MemberProblem {
                span: m.span,
                what: what.to_string(),
            };
            let Some(name) = &m.name else {
                return Err(problem(if m.bitfield {
                    "an unnamed bit-field"
                } else {
                    "an anonymous struct or union member"
                }));
            };
            if m.bitfield {
                return Err(problem("a bit-field"));
            }
            let s = match m.ty.unqualified() {
                CType::Scalar(s) => *s,
                CType::Struct(_) => return Err(problem("a nested struct")),
                CType::Array { .. } => return Err(problem("an array inside a struct")),
                CType::Pointer { .. } => return Err(problem("a pointer inside a struct")),
                CType::Tagged {
                    kind: TagKind::Union,
                    ..
                } => return Err(problem("a union inside a struct")),
                _ => return Err(problem("a member whose type is not a scalar")),
            };
            match ty {
                None => ty = Some(s),
                Some(t) if t != s => {
                    return Err(problem(&format!(
                        "a `{}` member after `{}` ones (the fields of a struct in a kernel must have one type)",
                        s.c_name(),
                        t.c_name()
                    )))
                }
                _ => {}
            }
            names.push(name);
        }
        Ok((ty.unwrap_or(Scalar::Int), names))
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TagKind {
    Struct,
    Union,
    Enum,
}

impl CType {
    /// The type without top-level `const`.
    pub fn unqualified(&self) -> &CType {
        match self {
            CType::Const(t) => t.unqualified(),
            t => t,
        }
    }

    /// The scalar at the bottom of arrays and pointers (`float` for `const float *restrict`).
    pub fn base_scalar(&self) -> Option<Scalar> {
        match self {
            CType::Scalar(s) => Some(*s),
            CType::Const(t) => t.base_scalar(),
            CType::Pointer { to, .. } => to.base_scalar(),
            CType::Array { elem, .. } => elem.base_scalar(),
            _ => None,
        }
    }

    /// The struct at the bottom of arrays and pointers (`cpx` for `const cpx *p`, `cpx a[N][M]`).
    pub fn base_struct(&self) -> Option<&std::sync::Arc<StructDef>> {
        match self {
            CType::Struct(d) => Some(d),
            CType::Const(t) => t.base_struct(),
            CType::Pointer { to, .. } => to.base_struct(),
            CType::Array { elem, .. } => elem.base_struct(),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Storage {
    #[default]
    None,
    Static,
    Extern,
    Typedef,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TranslationUnit {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    /// The whole item's text (first to last token).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    Function(FunctionDef),
    Decl(Declaration),
    /// Outside the subset (struct definitions, prototypes with function pointers, …) and free of
    /// OpenACC pragmas: carried through unchanged.
    Opaque,
    /// A file-scope pragma (index into the preprocessor's pragma table).
    Pragma(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: Ident,
    pub ret: CType,
    pub params: Vec<Param>,
    pub storage: Storage,
    pub is_inline: bool,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Option<Ident>,
    pub ty: CType,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub storage: Storage,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// One declared name: `float A[N][M]`, `int i = 0`, `float *restrict p`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    pub ty: CType,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    List(Vec<Initializer>, Span),
    /// An element of a list with designators: `.x = 1`, `[2] = 7`, `.b.q[1] = 2`,
    /// `[0 ... 3] = 1` (GNU); only inside [`Initializer::List`] and compound literals.
    Designated {
        designators: Vec<Designator>,
        init: Box<Initializer>,
        span: Span,
    },
}

/// One step of a designated initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    /// `.name`
    Field(Ident),
    /// `[index]`
    Index(Expr),
    /// `[first ... last]` (GNU)
    Range(Expr, Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Decl(Declaration),
    Expr(Expr),
    Block(Block),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    For {
        init: ForInit,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    Return(Option<Expr>),
    Break,
    Continue,
    Empty,
    /// A `#pragma` line as the parser saw it (index into the preprocessor's pragma table).
    /// `front::region` replaces the OpenACC ones by [`StmtKind::Acc`] / [`StmtKind::AccStandalone`].
    Pragma(u32),
    /// An OpenACC construct and the statement it applies to (`kernels`, `parallel`, `loop`,
    /// `data`, the combined forms), with the `share` pragma that preceded it, if any.
    Acc {
        dir: AccDirective,
        share: Option<SharePragma>,
        body: Box<Stmt>,
    },
    /// A directive that applies to no statement (`cache`, `update`, `wait`, …).
    AccStandalone(AccDirective),
    /// Parsed so it can be diagnosed precisely, but outside the subset inside compute regions:
    /// `goto`, labels, `switch`/`case`. Carries the construct's name (`goto`, `switch`, …).
    Unsupported {
        what: String,
        body: Option<Box<Stmt>>,
        /// A `switch`'s controlling expression, a `case`'s value (or the two ends of a GNU
        /// case range); empty for the others.
        args: Vec<Expr>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    None,
    Decl(Declaration),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct IntSuffix {
    pub unsigned: bool,
    /// 0: none, 1: `l`, 2: `ll`.
    pub longs: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    Int {
        value: u64,
        suffix: IntSuffix,
        /// Written in hex or octal (affects the C type of large values).
        radix: u32,
    },
    Float {
        value: f64,
        /// `f` suffix: a `float` literal; otherwise `double`.
        single: bool,
    },
    Char(i64),
    Str(String),
    Unary(UnOp, Box<Expr>),
    /// `++x`, `x--`, …
    IncDec {
        inc: bool,
        prefix: bool,
        arg: Box<Expr>,
    },
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` (op `None`) or `a op= b`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(CType, Box<Expr>),
    SizeofType(CType),
    SizeofExpr(Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Call(Ident, Vec<Expr>),
    /// A call whose callee is not a plain name: `(*fp)(x)`, `ops.f(x)`, `tab[i](x)` (calls
    /// through function pointers; host code only).
    IndirectCall(Box<Expr>, Vec<Expr>),
    /// A compound literal `(type){ initializers }` (C99; host code only). The initializers are
    /// the elements of the braces, designated or not.
    CompoundLit(CType, Vec<Initializer>),
    /// `a.b` / `a->b` (outside the subset inside kernels).
    Member {
        base: Box<Expr>,
        field: Ident,
        arrow: bool,
    },
    Comma(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// [`Expr::for_each_child`] for passes that rewrite the tree in place, except that a compound
    /// literal's initializers (host code only: never inside a compute region or a clause) are
    /// not visited.
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match &mut self.kind {
            ExprKind::Ident(_)
            | ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_)
            | ExprKind::CompoundLit(..) => {}
            ExprKind::Unary(_, a)
            | ExprKind::IncDec { arg: a, .. }
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::Member { base: a, .. } => f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                f(a);
                f(b);
            }
            ExprKind::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            ExprKind::Call(_, args) => args.iter_mut().for_each(f),
            ExprKind::IndirectCall(callee, args) => {
                f(callee);
                args.iter_mut().for_each(f);
            }
        }
    }

    /// Calls `f` on each expression directly inside this one, in order: the operands, an array
    /// and its index, an indirect call's callee, a call's arguments, a compound literal's
    /// initializers (designators' indices included). The one walk over the expression tree:
    /// passes that collect names or calls use it rather than matching every variant again.
    pub fn for_each_child(&self, f: &mut dyn FnMut(&Expr)) {
        match &self.kind {
            ExprKind::Ident(_)
            | ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_) => {}
            ExprKind::Unary(_, a)
            | ExprKind::IncDec { arg: a, .. }
            | ExprKind::Cast(_, a)
            | ExprKind::SizeofExpr(a)
            | ExprKind::Member { base: a, .. } => f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Comma(a, b) => {
                f(a);
                f(b);
            }
            ExprKind::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            ExprKind::Call(_, args) => args.iter().for_each(f),
            ExprKind::IndirectCall(callee, args) => {
                f(callee);
                args.iter().for_each(f);
            }
            ExprKind::CompoundLit(_, inits) => inits.iter().for_each(|i| i.for_each_expr(f)),
        }
    }

    /// Calls `f` on this expression and on every expression inside it, outermost first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        self.for_each_child(&mut |c| c.walk(f));
    }

    /// The identifiers this expression names, in order (called functions' names not included).
    pub fn idents(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let ExprKind::Ident(n) = &e.kind {
                out.push(n.clone());
            }
        });
        out
    }
}

impl Initializer {
    /// Calls `f` on each expression directly in this initializer, in order: designators'
    /// indices, then the values.
    pub fn for_each_expr(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Initializer::Expr(e) => f(e),
            Initializer::List(items, _) => items.iter().for_each(|i| i.for_each_expr(f)),
            Initializer::Designated {
                designators, init, ..
            } => {
                for d in designators {
                    match d {
                        Designator::Field(_) => {}
                        Designator::Index(e) => f(e),
                        Designator::Range(a, b) => {
                            f(a);
                            f(b);
                        }
                    }
                }
                init.for_each_expr(f)
            }
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}

impl Expr {
    /// No calls, assignments, increments or memory reads: evaluating it again gives the same
    /// value while the scalars it names keep theirs (after a routine wrote through its pointer
    /// parameters, say, or in every iteration of a loop that assigns none of them).
    pub fn is_pure(&self) -> bool {
        match &self.kind {
            ExprKind::Ident(_)
            | ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Char(_)
            | ExprKind::SizeofType(_) => true,
            ExprKind::Binary(_, a, b) => a.is_pure() && b.is_pure(),
            ExprKind::Cond(a, b, c) => a.is_pure() && b.is_pure() && c.is_pure(),
            ExprKind::Unary(op, a) => *op != UnOp::Deref && a.is_pure(),
            ExprKind::Cast(_, a) | ExprKind::SizeofExpr(a) => a.is_pure(),
            _ => false,
        }
    }
}

impl Stmt {
    /// This statement assigns `name` (`=`, `op=`, `++`, `--`), declares it, or takes its
    /// address.
    pub fn assigns(&self, name: &str) -> bool {
        let s = self;
        fn expr(e: &Expr, name: &str) -> bool {
            let is = |x: &Expr| matches!(&x.kind, ExprKind::Ident(n) if n == name);
            match &e.kind {
                ExprKind::Assign(_, a, b) => is(a) || expr(a, name) || expr(b, name),
                ExprKind::IncDec { arg, .. } => is(arg) || expr(arg, name),
                ExprKind::Unary(UnOp::AddrOf, a) => is(a) || expr(a, name),
                ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Comma(a, b) => {
                    expr(a, name) || expr(b, name)
                }
                ExprKind::Cond(a, b, c) => expr(a, name) || expr(b, name) || expr(c, name),
                ExprKind::Unary(_, a)
                | ExprKind::Cast(_, a)
                | ExprKind::SizeofExpr(a)
                | ExprKind::Member { base: a, .. } => expr(a, name),
                ExprKind::Call(_, args) => args.iter().any(|a| expr(a, name)),
                _ => false,
            }
        }
        let init = |i: &Initializer| match i {
            Initializer::Expr(e) => expr(e, name),
            Initializer::List(..) | Initializer::Designated { .. } => false,
        };
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr(e, name),
            StmtKind::Decl(d) => d
                .declarators
                .iter()
                .any(|dec| dec.name.name == name || dec.init.as_ref().is_some_and(init)),
            StmtKind::Block(b) => b.stmts.iter().any(|s| s.assigns(name)),
            StmtKind::If { cond, then, els } => {
                expr(cond, name)
                    || then.assigns(name)
                    || els.as_deref().is_some_and(|e| e.assigns(name))
            }
            StmtKind::For {
                init: fi,
                cond,
                step,
                body,
            } => {
                let i = match fi {
                    ForInit::Expr(e) => expr(e, name),
                    ForInit::Decl(d) => d.declarators.iter().any(|dec| dec.name.name == name),
                    ForInit::None => false,
                };
                i || cond.as_ref().is_some_and(|c| expr(c, name))
                    || step.as_ref().is_some_and(|c| expr(c, name))
                    || body.assigns(name)
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                expr(cond, name) || body.assigns(name)
            }
            StmtKind::Acc { body, .. } => body.assigns(name),
            _ => false,
        }
    }
}
