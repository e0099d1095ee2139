//! AST construction for the actions of `grammar/c.lalrpop`: declaration specifiers, declarators
//! (C's inside-out type syntax) and the checks the grammar leaves to its actions.

use std::collections::HashMap;

use lalrpop_util::ParseError;

use crate::diag::Span;
use crate::front::ast::{
    BinOp, Block, CType, Declaration, Declarator, Designator, Expr, ExprKind, FunctionDef, Ident,
    Initializer, Member, Param, Scalar, Stmt, StmtKind, Storage, StructDef, TagKind,
};
use crate::front::token::Tok;

/// `typedef` names resolved so far (name → type), and the struct tags defined so far (under
/// `struct tag`, a key no identifier can be).
pub type Types = HashMap<String, CType>;

/// The key of a struct tag in [`Types`].
pub fn tag_key(tag: &str) -> String {
    format!("struct {tag}")
}

/// A member of a struct definition as the grammar builds it.
pub type MemberDecl = Member;

impl Member {
    /// An anonymous struct or union member (`struct { int a; };` inside a struct).
    pub fn anonymous(span: Span) -> Member {
        Member {
            name: None,
            ty: CType::Void,
            bitfield: false,
            span,
        }
    }
}

/// The members of one member declaration (`float re, im;`, `unsigned flag : 1;`). A member whose
/// specifiers are not a type of the subset keeps an unknown type (host code only: a kernel that
/// indexes such a struct is refused where it does).
pub fn members(
    _span: Span,
    specs_list: Vec<SpecAt>,
    decls: Vec<(Option<RawDecl>, bool, Span)>,
    types: &Types,
) -> Vec<Member> {
    let base = specs(specs_list, types)
        .map(|s| s.ty)
        .unwrap_or_else(|_| CType::Named(String::new()));
    decls
        .into_iter()
        .map(|(d, bitfield, span)| {
            let (name, ops) = match d {
                Some(d) => (d.name, d.ops),
                None => (None, Vec::new()),
            };
            Member {
                name,
                ty: apply(base.clone(), ops),
                bitfield,
                span,
            }
        })
        .collect()
}

/// `struct tag { members }` as a specifier.
pub fn struct_spec(span: Span, tag: Option<String>, members: Vec<Vec<Member>>) -> Spec {
    Spec::Struct(std::sync::Arc::new(StructDef {
        tag: tag.unwrap_or_default(),
        typedef: None,
        members: members.into_iter().flatten().collect(),
        span,
    }))
}

/// A file-scope declaration without declarators: `struct S { … };` defines a tag the parser
/// driver records; `struct S;`, `enum E { … };` declare nothing later passes need.
pub fn tag_item(specs_list: Vec<SpecAt>, types: &Types) -> TopItem {
    match specs(specs_list, types) {
        Ok(Specs {
            ty: CType::Struct(d),
            ..
        }) => TopItem::Struct(d),
        _ => TopItem::Opaque,
    }
}

/// An error found by a grammar action (a construct outside the subset, an invalid type).
#[derive(Clone, Debug, PartialEq)]
pub struct UserError {
    pub span: Span,
    pub message: String,
    pub notes: Vec<String>,
}

pub type PErr = ParseError<usize, Tok, UserError>;

fn err<T>(span: Span, message: impl Into<String>) -> Result<T, PErr> {
    Err(ParseError::User {
        error: UserError {
            span,
            message: message.into(),
            notes: Vec::new(),
        },
    })
}

/// The span of the tokens `l..r` (token indices, as the grammar's locations are).
pub fn sp(spans: &[Span], l: usize, r: usize) -> Span {
    let first = spans.get(l);
    let last = r.checked_sub(1).and_then(|i| spans.get(i));
    match (first, last) {
        (Some(a), Some(b)) if r > l => a.to(*b),
        (Some(a), _) => Span { hi: a.lo, ..*a },
        _ => spans
            .last()
            .map(|s| Span { lo: s.hi, ..*s })
            .unwrap_or_default(),
    }
}

/// What the grammar's start symbol produced.
pub enum Top {
    Item(TopItem),
    Expr(Expr),
}

/// A parsed top-level item.
pub enum TopItem {
    Function(FunctionDef),
    Decl(Declaration),
    /// Parsed, but nothing later passes use: prototypes, `struct S;`.
    Opaque,
    /// `struct S { … };` at file scope: host code, whose tag later items may use.
    Struct(std::sync::Arc<StructDef>),
}

/// One declaration specifier as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Storage(Storage),
    /// `auto` / `register`: ignored.
    Auto,
    Inline,
    Const,
    Restrict,
    /// `volatile`: ignored (host code keeps its text; kernels never see it).
    Volatile,
    Void,
    Bool,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Signed,
    Unsigned,
    Named(String),
    /// `struct S` (not defined before), `enum E { … }`, `union { … }` (the empty name).
    Tagged(TagKind, String),
    /// `struct S { … }`, `struct { … }`: a definition with its members.
    Struct(std::sync::Arc<StructDef>),
}

#[derive(Clone, Debug)]
pub struct SpecAt {
    pub spec: Spec,
    pub span: Span,
}

/// Combined declaration specifiers.
pub struct Specs {
    pub storage: Storage,
    pub is_inline: bool,
    pub ty: CType,
    pub span: Span,
}

/// Combines specifiers written in any order (`unsigned long int`, `int const`, `long long`).
pub fn specs(list: Vec<SpecAt>, types: &Types) -> Result<Specs, PErr> {
    let span = match (list.first(), list.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::default(),
    };
    let mut storage: Option<Storage> = None;
    let mut is_inline = false;
    let mut is_const = false;
    let (mut void, mut bool_, mut char_, mut short, mut int, mut long) = (0, 0, 0, 0, 0, 0);
    let (mut float, mut double, mut signed, mut unsigned) = (0, 0, 0, 0);
    let mut named: Option<CType> = None;
    let mut others = 0;
    for s in list {
        match s.spec {
            Spec::Storage(st) => {
                if storage.is_some() {
                    return err(s.span, "multiple storage classes in declaration");
                }
                storage = Some(st);
            }
            Spec::Auto | Spec::Restrict | Spec::Volatile => {}
            Spec::Inline => is_inline = true,
            Spec::Const => is_const = true,
            Spec::Void => void += 1,
            Spec::Bool => bool_ += 1,
            Spec::Char => char_ += 1,
            Spec::Short => short += 1,
            Spec::Int => int += 1,
            Spec::Long => long += 1,
            Spec::Float => float += 1,
            Spec::Double => double += 1,
            Spec::Signed => signed += 1,
            Spec::Unsigned => unsigned += 1,
            Spec::Named(n) => {
                others += 1;
                named = Some(types.get(&n).cloned().unwrap_or(CType::Named(n)));
            }
            Spec::Tagged(kind, name) => {
                others += 1;
                named = Some(match types.get(&tag_key(&name)) {
                    Some(t) if kind == TagKind::Struct => t.clone(),
                    _ => CType::Tagged { kind, name },
                });
            }
            Spec::Struct(d) => {
                others += 1;
                named = Some(CType::Struct(d));
            }
        }
    }
    let sign = signed + unsigned;
    let numeric = char_ + short + int + long + float + double + sign;
    let invalid = || err(span, "invalid combination of type specifiers");
    let ty = if others > 0 {
        if others > 1 || numeric + void + bool_ > 0 {
            return invalid();
        }
        named.unwrap_or(CType::Void)
    } else if void + bool_ > 0 {
        if void + bool_ > 1 || numeric > 0 {
            return invalid();
        }
        if void > 0 {
            CType::Void
        } else {
            CType::Scalar(Scalar::Bool)
        }
    } else if float + double > 0 {
        if float + double > 1 || char_ + short + int + sign > 0 || long > 1 {
            return invalid();
        }
        if long == 1 {
            if float > 0 {
                return invalid();
            }
            // Host code only: no kernel type (`front::region::validate` refuses it in regions).
            return finish(
                storage,
                is_inline,
                is_const,
                CType::Named("long double".to_string()),
                span,
            );
        }
        CType::Scalar(if float > 0 {
            Scalar::Float
        } else {
            Scalar::Double
        })
    } else if char_ > 0 {
        if char_ > 1 || short + int + long > 0 || sign > 1 {
            return invalid();
        }
        CType::Scalar(match (signed, unsigned) {
            (0, 0) => Scalar::Char,
            (_, 0) => Scalar::SChar,
            _ => Scalar::UChar,
        })
    } else if numeric > 0 {
        if sign > 1 || int > 1 || short > 1 || long > 2 || short + long > short.max(long) {
            return invalid();
        }
        let u = unsigned > 0;
        CType::Scalar(match (short, long, u) {
            (1, _, false) => Scalar::Short,
            (1, _, true) => Scalar::UShort,
            (_, 1, false) => Scalar::Long,
            (_, 1, true) => Scalar::ULong,
            (_, 2, false) => Scalar::LongLong,
            (_, 2, true) => Scalar::ULongLong,
            (_, _, false) => Scalar::Int,
            (_, _, true) => Scalar::UInt,
        })
    } else {
        return err(span, "missing type specifier")
            .map_err(|e| with_note(e, "implicit `int` is not supported"));
    };
    finish(storage, is_inline, is_const, ty, span)
}

fn finish(
    storage: Option<Storage>,
    is_inline: bool,
    is_const: bool,
    ty: CType,
    span: Span,
) -> Result<Specs, PErr> {
    let ty = if is_const && !matches!(ty, CType::Const(_)) {
        CType::Const(Box::new(ty))
    } else {
        ty
    };
    Ok(Specs {
        storage: storage.unwrap_or_default(),
        is_inline,
        ty,
        span,
    })
}

fn with_note(e: PErr, note: &str) -> PErr {
    match e {
        ParseError::User { mut error } => {
            error.notes.push(format!("note: {note}"));
            ParseError::User { error }
        }
        other => other,
    }
}

/// The qualifiers of one `*` of a declarator.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PtrQ {
    pub is_const: bool,
    pub is_restrict: bool,
}

impl PtrQ {
    pub fn from_quals(quals: &[Spec]) -> PtrQ {
        PtrQ {
            is_const: quals.contains(&Spec::Const),
            is_restrict: quals.contains(&Spec::Restrict),
        }
    }
}

/// One derivation step of a declarator.
#[derive(Clone, Debug, PartialEq)]
pub enum DOp {
    Ptr(PtrQ),
    Array(Option<Expr>),
    /// The parameters, and whether `...` ends them.
    Func(Vec<Param>, bool),
}

/// A declarator before its base type is known: the name and the derivation steps, innermost
/// (closest to the name) first. `float (*A)[M]` is `[Ptr, Array(M)]`: `A` is a pointer to an
/// array of `float`; `float *A[M]` is `[Array(M), Ptr]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RawDecl {
    pub name: Option<Ident>,
    pub ops: Vec<DOp>,
    pub span: Span,
}

impl RawDecl {
    pub fn named(name: Ident) -> RawDecl {
        let span = name.span;
        RawDecl {
            name: Some(name),
            ops: Vec::new(),
            span,
        }
    }

    pub fn anonymous(span: Span) -> RawDecl {
        RawDecl {
            name: None,
            ops: Vec::new(),
            span,
        }
    }

    /// `* q1 * q2 … D`: the pointers as written (outermost derivation last).
    pub fn with_pointer(mut self, ptrs: Vec<PtrQ>, span: Span) -> RawDecl {
        self.ops.extend(ptrs.into_iter().rev().map(DOp::Ptr));
        self.span = span;
        self
    }

    /// `D[n]` / `D(params)`.
    pub fn push(mut self, op: DOp, span: Span) -> RawDecl {
        self.ops.push(op);
        self.span = span;
        self
    }

    pub fn respan(mut self, span: Span) -> RawDecl {
        self.span = span;
        self
    }
}

/// Applies the derivation steps (innermost first) to the base type.
fn apply(base: CType, ops: Vec<DOp>) -> CType {
    let mut ty = base;
    for op in ops.into_iter().rev() {
        ty = match op {
            DOp::Ptr(q) => CType::Pointer {
                to: Box::new(ty),
                is_const: q.is_const,
                is_restrict: q.is_restrict,
            },
            DOp::Array(len) => CType::Array {
                elem: Box::new(ty),
                len: len.map(Box::new),
            },
            DOp::Func(params, variadic) => CType::Function {
                ret: Box::new(ty),
                params: params.into_iter().map(|p| p.ty).collect(),
                variadic,
            },
        };
    }
    ty
}

fn is_void(ty: &CType) -> bool {
    matches!(ty.unqualified(), CType::Void)
}

/// A parameter declaration.
pub fn param(
    span: Span,
    specs_list: Vec<SpecAt>,
    d: Option<RawDecl>,
    types: &Types,
) -> Result<Param, PErr> {
    let s = specs(specs_list, types)?;
    if s.storage != Storage::None || s.is_inline {
        return err(s.span, "invalid storage class for a parameter");
    }
    let (name, ops) = match d {
        Some(d) => (d.name, d.ops),
        None => (None, Vec::new()),
    };
    let ty = apply(s.ty, ops);
    Ok(Param { name, ty, span })
}

/// A parameter list: `(void)` is the empty list.
pub fn params(list: Vec<Param>) -> Result<Vec<Param>, PErr> {
    if let [p] = list.as_slice() {
        if p.name.is_none() && is_void(&p.ty) {
            return Ok(Vec::new());
        }
    }
    if let Some(p) = list.iter().find(|p| is_void(&p.ty)) {
        return err(p.span, "`void` must be the only parameter");
    }
    Ok(list)
}

/// A function definition.
pub fn function(
    span: Span,
    specs_list: Vec<SpecAt>,
    d: RawDecl,
    body: Block,
    types: &Types,
) -> Result<FunctionDef, PErr> {
    let s = specs(specs_list, types)?;
    if s.storage == Storage::Typedef {
        return err(s.span, "a function definition cannot be a `typedef`");
    }
    let mut ops = d.ops;
    if !matches!(ops.first(), Some(DOp::Func(..))) {
        return err(
            d.span,
            "expected a function declarator before the function body",
        );
    }
    let params = match ops.remove(0) {
        DOp::Func(_, true) => {
            return err(d.span, "variadic function definitions are not supported")
        }
        DOp::Func(p, false) => p,
        _ => Vec::new(),
    };
    let ret = apply(s.ty, ops);
    let Some(name) = d.name else {
        return err(d.span, "a function definition needs a name");
    };
    Ok(FunctionDef {
        name,
        ret,
        params,
        storage: s.storage,
        is_inline: s.is_inline,
        body,
        span,
    })
}

/// A declarator with its optional initializer.
pub struct InitDecl {
    pub decl: RawDecl,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// A file-scope declaration; prototypes are parsed and become [`TopItem::Opaque`].
pub fn file_decl(
    span: Span,
    specs_list: Vec<SpecAt>,
    decls: Vec<InitDecl>,
    types: &Types,
) -> Result<TopItem, PErr> {
    if decls
        .iter()
        .any(|d| matches!(d.decl.ops.first(), Some(DOp::Func(..))))
    {
        // Check the specifiers and parameters all the same.
        specs(specs_list, types)?;
        return Ok(TopItem::Opaque);
    }
    declaration(span, specs_list, decls, types).map(TopItem::Decl)
}

/// A declaration (file scope or block scope).
pub fn declaration(
    span: Span,
    specs_list: Vec<SpecAt>,
    decls: Vec<InitDecl>,
    types: &Types,
) -> Result<Declaration, PErr> {
    let s = specs(specs_list, types)?;
    if s.is_inline {
        return err(s.span, "`inline` can only be used on functions");
    }
    let mut declarators = Vec::with_capacity(decls.len());
    for d in decls {
        let Some(name) = d.decl.name else {
            return err(d.span, "expected a name in the declarator");
        };
        if s.storage == Storage::Typedef {
            if let Some(init) = &d.init {
                let at = match init {
                    Initializer::Expr(e) => e.span,
                    Initializer::List(_, sp) | Initializer::Designated { span: sp, .. } => *sp,
                };
                return err(at, "a `typedef` cannot have an initializer");
            }
        }
        let ty = apply(s.ty.clone(), d.decl.ops);
        if is_void(&ty) {
            return err(
                name.span,
                format!("variable `{}` declared `void`", name.name),
            );
        }
        declarators.push(Declarator {
            name,
            ty,
            init: d.init,
            span: d.span,
        });
    }
    Ok(Declaration {
        storage: s.storage,
        declarators,
        span,
    })
}

/// A type name (casts, `sizeof`).
pub fn type_name(
    specs_list: Vec<SpecAt>,
    d: Option<RawDecl>,
    types: &Types,
) -> Result<CType, PErr> {
    let s = specs(specs_list, types)?;
    if s.storage != Storage::None || s.is_inline {
        return err(s.span, "a storage class is not allowed in a type name");
    }
    Ok(apply(s.ty, d.map(|d| d.ops).unwrap_or_default()))
}

/// A call: [`ExprKind::Call`] when the callee is a plain name (also in parentheses),
/// [`ExprKind::IndirectCall`] otherwise (`(*fp)(x)`, `ops.f(x)`).
pub fn call(span: Span, callee: Expr, args: Option<Vec<Expr>>) -> Expr {
    let args = args.unwrap_or_default();
    match callee.kind {
        ExprKind::Ident(name) => Expr::new(
            ExprKind::Call(
                Ident {
                    name,
                    span: callee.span,
                },
                args,
            ),
            span,
        ),
        _ => Expr::new(ExprKind::IndirectCall(Box::new(callee), args), span),
    }
}

/// A declaration that declares no name: `struct S { … };`, `enum { A, B };` (block scope).
pub fn tag_declaration(
    span: Span,
    specs_list: Vec<SpecAt>,
    types: &Types,
) -> Result<Declaration, PErr> {
    let s = specs(specs_list, types)?;
    if s.is_inline {
        return err(s.span, "`inline` can only be used on functions");
    }
    Ok(Declaration {
        storage: s.storage,
        declarators: Vec::new(),
        span,
    })
}

/// `designators = init`, an element of an initializer list.
pub fn designated(span: Span, designators: Vec<Designator>, init: Initializer) -> Initializer {
    Initializer::Designated {
        designators,
        init: Box::new(init),
        span,
    }
}

pub fn expr(span: Span, kind: ExprKind) -> Expr {
    Expr::new(kind, span)
}

pub fn binary(span: Span, op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span)
}

pub fn stmt(span: Span, kind: StmtKind) -> Stmt {
    Stmt { kind, span }
}

/// `goto`, labels, `switch`, `case`, `default`.
pub fn unsupported(span: Span, what: &str, body: Option<Stmt>) -> Stmt {
    unsupported_with(span, what, body, Vec::new())
}

/// [`unsupported`] with the construct's expressions (a `switch`'s condition, a `case`'s value).
pub fn unsupported_with(span: Span, what: &str, body: Option<Stmt>, args: Vec<Expr>) -> Stmt {
    stmt(
        span,
        StmtKind::Unsupported {
            what: what.to_string(),
            body: body.map(Box::new),
            args,
        },
    )
}
