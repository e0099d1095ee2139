//! The IR's expressions: a tree in an [`Arena<Expr>`] of the region, named by
//! [`Handle<Expr>`]s, lowered from the syntax tree by `ir::lower` (the only reader of the C
//! syntax tree after the front end, once every stage reads these).
//!
//! So far a region keeps here the expressions the loop-nest view cannot hold as [`Poly`]s (a
//! loop bound that is not affine: [`crate::ir::Bound::NonAffine`]); stages ask them what they
//! read ([`Exprs::mentions`]) instead of splitting C text into words. What the IR does not model
//! yet (side effects, members, strings, `sizeof`, compound literals, calls through pointers) is
//! an [`Expr::Opaque`] with its span and every name it reads: marked, never dropped.
//!
//! [`Poly`]: crate::ir::Poly

use std::fmt;

use crate::diag::Span;
use crate::ir::arena::{Arena, Handle};
use crate::vocab::{BinOp, Scalar, UnOp};

/// One expression of the region.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable by name: a scalar of the enclosing scope, a loop iterator, an array.
    Var(String),
    /// An integer constant and its C type (after the literal's suffix and value).
    Int {
        value: u64,
        ty: Scalar,
    },
    /// A floating-point constant (`float` with an `f` suffix, else `double`).
    Float {
        value: f64,
        ty: Scalar,
    },
    Unary {
        op: UnOp,
        arg: Handle<Expr>,
    },
    Binary {
        op: BinOp,
        left: Handle<Expr>,
        right: Handle<Expr>,
    },
    /// `cond ? accept : reject`.
    Select {
        cond: Handle<Expr>,
        accept: Handle<Expr>,
        reject: Handle<Expr>,
    },
    /// A conversion to a scalar type.
    Cast {
        ty: Scalar,
        arg: Handle<Expr>,
    },
    /// `base[index]`.
    Index {
        base: Handle<Expr>,
        index: Handle<Expr>,
    },
    /// A call of a function by name (`acc routine` functions are inlined by the front end
    /// before the IR is built, so these are library functions: `sqrt`, `fabs`, …).
    Call {
        function: String,
        /// Where the function's name is written.
        name_span: Span,
        args: Vec<Handle<Expr>>,
    },
    /// `target = value` (`op`: `None`) or `target op= value`.
    Assign {
        op: Option<BinOp>,
        target: Handle<Expr>,
        value: Handle<Expr>,
    },
    /// `++arg`, `arg--`, …
    IncDec {
        inc: bool,
        prefix: bool,
        arg: Handle<Expr>,
    },
    /// `left, right`.
    Comma {
        left: Handle<Expr>,
        right: Handle<Expr>,
    },
    /// `base.field` / `base->field` (`arrow`).
    Member {
        base: Handle<Expr>,
        field: String,
        arrow: bool,
    },
    /// `sizeof(type)` or `sizeof expr` (`of`): the size in bytes where the IR lowering knows
    /// it (scalar, pointer and constant-extent array types and variables of them).
    Sizeof {
        size: Option<u64>,
        of: SizeOf,
    },
    /// A cast to a type that is not arithmetic (a pointer, a struct); `ty`: the type where the
    /// IR can name it ([`TypeName`]).
    CastOther {
        ty: Option<TypeName>,
        arg: Handle<Expr>,
    },
    /// A string literal: its bytes.
    Str(String),
    /// A part the IR does not model yet, at `span`, with every name it reads or writes.
    Opaque {
        span: Span,
        names: Vec<String>,
    },
}

/// What `sizeof` measures.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeOf {
    /// A type, where the IR can name it.
    Type(Option<TypeName>),
    /// An expression (not evaluated).
    Expr(Handle<Expr>),
}

/// A C type an expression names (in a cast or `sizeof`) that is not only a scalar, or the type
/// of a variable the host code declares ([`crate::ir::directive::MemberAlias`]): what the back
/// ends need to spell it. Functions are not among them, arrays only as a member's variable
/// points to them.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeName {
    Void,
    Scalar(Scalar),
    /// A `typedef` name, or how a struct whose definition was seen is named (its `typedef`
    /// name, else `struct tag`).
    Named(String),
    /// `struct S`, `union U`, `enum E`: the keyword and the tag.
    Tagged {
        keyword: &'static str,
        tag: String,
    },
    Pointer {
        to: Box<TypeName>,
        is_const: bool,
        is_restrict: bool,
    },
    /// `T const` at this level.
    Const(Box<TypeName>),
    /// `elem[len]` (`len` `None` for `[]`): only what a pointer points to in the type of a
    /// variable a struct member is named through (`double (*data_a)[8]`,
    /// [`crate::ir::directive::MemberAlias`]); no cast or `sizeof` names one.
    Array {
        elem: Box<TypeName>,
        len: Option<Box<Detached>>,
    },
}

/// A region's expressions.
pub type Exprs = Arena<Expr>;

/// An expression apart from any region: the arena of its own parts and its root. The host plan
/// carries the expressions it evaluates in the user's function so (a region invariant's value),
/// and the back ends print them.
#[derive(Clone, Debug, PartialEq)]
pub struct Detached {
    pub exprs: Exprs,
    pub root: Handle<Expr>,
}

impl Arena<Expr> {
    /// The expressions directly inside `e`, in evaluation order (left to right).
    pub fn operands(&self, e: Handle<Expr>) -> Vec<Handle<Expr>> {
        match &self[e] {
            Expr::Var(_)
            | Expr::Int { .. }
            | Expr::Float { .. }
            | Expr::Opaque { .. }
            | Expr::Sizeof {
                of: SizeOf::Type(_),
                ..
            }
            | Expr::Str(_) => Vec::new(),
            // Not evaluated, but named.
            Expr::Sizeof {
                of: SizeOf::Expr(arg),
                ..
            } => vec![*arg],
            Expr::Unary { arg, .. }
            | Expr::Cast { arg, .. }
            | Expr::CastOther { arg, .. }
            | Expr::IncDec { arg, .. } => vec![*arg],
            Expr::Member { base, .. } => vec![*base],
            Expr::Binary { left, right, .. } | Expr::Comma { left, right } => vec![*left, *right],
            // C leaves the order unspecified; the value first, as the kernel computes it.
            Expr::Assign { target, value, .. } => vec![*value, *target],
            Expr::Select {
                cond,
                accept,
                reject,
            } => vec![*cond, *accept, *reject],
            Expr::Index { base, index } => vec![*base, *index],
            Expr::Call { args, .. } => args.clone(),
        }
    }

    /// The subtree at `root`, copied into an arena of its own (spans kept).
    pub fn detach(&self, root: Handle<Expr>) -> Detached {
        let mut exprs = Exprs::new();
        let root = self.copy_into(root, &mut exprs);
        Detached { exprs, root }
    }

    fn copy_into(&self, e: Handle<Expr>, to: &mut Exprs) -> Handle<Expr> {
        let mut c = |h: &Handle<Expr>| self.copy_into(*h, to);
        let copied = match &self[e] {
            Expr::Unary { op, arg } => Expr::Unary {
                op: *op,
                arg: c(arg),
            },
            Expr::Binary { op, left, right } => {
                let left = c(left);
                Expr::Binary {
                    op: *op,
                    left,
                    right: c(right),
                }
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let cond = c(cond);
                let accept = c(accept);
                Expr::Select {
                    cond,
                    accept,
                    reject: c(reject),
                }
            }
            Expr::Cast { ty, arg } => Expr::Cast {
                ty: *ty,
                arg: c(arg),
            },
            Expr::Index { base, index } => {
                let base = c(base);
                Expr::Index {
                    base,
                    index: c(index),
                }
            }
            Expr::Call {
                function,
                name_span,
                args,
            } => Expr::Call {
                function: function.clone(),
                name_span: *name_span,
                args: args.iter().map(c).collect(),
            },
            Expr::Assign { op, target, value } => {
                let target = c(target);
                Expr::Assign {
                    op: *op,
                    target,
                    value: c(value),
                }
            }
            Expr::IncDec { inc, prefix, arg } => Expr::IncDec {
                inc: *inc,
                prefix: *prefix,
                arg: c(arg),
            },
            Expr::Comma { left, right } => {
                let left = c(left);
                Expr::Comma {
                    left,
                    right: c(right),
                }
            }
            Expr::Member { base, field, arrow } => Expr::Member {
                base: c(base),
                field: field.clone(),
                arrow: *arrow,
            },
            Expr::CastOther { ty, arg } => Expr::CastOther {
                ty: ty.clone(),
                arg: c(arg),
            },
            Expr::Sizeof {
                size,
                of: SizeOf::Expr(a),
            } => Expr::Sizeof {
                size: *size,
                of: SizeOf::Expr(c(a)),
            },
            leaf @ (Expr::Var(_)
            | Expr::Int { .. }
            | Expr::Float { .. }
            | Expr::Sizeof { .. }
            | Expr::Str(_)
            | Expr::Opaque { .. }) => leaf.clone(),
        };
        to.append(copied, self.span(e))
    }

    /// The first part of `e` the back ends cannot print as C (an opaque part, a type the IR
    /// cannot name), if any.
    pub fn unprintable(&self, e: Handle<Expr>) -> Option<Handle<Expr>> {
        let mut todo = vec![e];
        while let Some(h) = todo.pop() {
            match &self[h] {
                Expr::Opaque { .. }
                | Expr::CastOther { ty: None, .. }
                | Expr::Sizeof {
                    of: SizeOf::Type(None),
                    ..
                } => return Some(h),
                _ => todo.extend(self.operands(h)),
            }
        }
        None
    }

    /// Whether the back ends can print `e` as C ([`Self::unprintable`]).
    pub fn printable(&self, e: Handle<Expr>) -> bool {
        self.unprintable(e).is_none()
    }

    /// The affine form `p` as an expression: its terms summed in the order `p` prints them,
    /// each the product of its coefficient and symbols (`c + cols*r - 1`).
    /// Every part comes from `span` (the source of the bound it stands for).
    pub fn poly(&mut self, p: &crate::ir::Poly, span: Span) -> Handle<Expr> {
        let int = |x: &mut Self, v: i64| {
            x.append(
                Expr::Int {
                    value: v.unsigned_abs(),
                    ty: Scalar::Long,
                },
                span,
            )
        };
        let mut sum: Option<Handle<Expr>> = None;
        // As `Poly` prints itself: the symbolic terms, then the constant.
        let (symbolic, constant): (Vec<_>, Vec<_>) = p.terms().partition(|(m, _)| !m.is_empty());
        for (monomial, c) in symbolic.into_iter().chain(constant) {
            let mut term = (c.unsigned_abs() != 1 || monomial.is_empty()).then(|| int(self, c));
            for s in monomial {
                let v = self.append(Expr::Var(s.clone()), span);
                term = Some(match term {
                    None => v,
                    Some(t) => self.append(
                        Expr::Binary {
                            op: BinOp::Mul,
                            left: t,
                            right: v,
                        },
                        span,
                    ),
                });
            }
            let term = term.unwrap_or_else(|| int(self, c));
            sum = Some(match sum {
                None if c < 0 => self.append(
                    Expr::Unary {
                        op: UnOp::Neg,
                        arg: term,
                    },
                    span,
                ),
                None => term,
                Some(acc) => self.append(
                    Expr::Binary {
                        op: if c < 0 { BinOp::Sub } else { BinOp::Add },
                        left: acc,
                        right: term,
                    },
                    span,
                ),
            });
        }
        sum.unwrap_or_else(|| int(self, 0))
    }

    /// True if `e` names variable `name` anywhere (an opaque part: among the names it reads).
    pub fn mentions(&self, e: Handle<Expr>, name: &str) -> bool {
        let mut todo = vec![e];
        while let Some(h) = todo.pop() {
            match &self[h] {
                Expr::Var(v) if v == name => return true,
                Expr::Opaque { names, .. } if names.iter().any(|n| n == name) => return true,
                _ => todo.extend(self.operands(h)),
            }
        }
        false
    }

    /// `e` in the IR's printed notation (`--emit ir`, messages): C's operators and
    /// precedence, parentheses only where precedence asks; an opaque part as `…`. Not C for a
    /// compiler (literals lose their suffixes): generated code is printed by `back/`.
    pub fn display(&self, e: Handle<Expr>) -> impl fmt::Display + '_ {
        Shown { exprs: self, e }
    }
}

/// [`Arena::display`]'s value.
struct Shown<'a> {
    exprs: &'a Arena<Expr>,
    e: Handle<Expr>,
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, self.e, 0)
    }
}

/// Precedence of a comma, of assignments, of a select (`?:`), of unary operators and casts,
/// of postfix forms and atoms.
const COMMA: u8 = 1;
const ASSIGN: u8 = 2;
const SELECT: u8 = 3;
const UNARY: u8 = 14;
const POSTFIX: u8 = 15;

impl Shown<'_> {
    fn precedence(&self, e: Handle<Expr>) -> u8 {
        match &self.exprs[e] {
            Expr::Binary { op, .. } => op.precedence(),
            Expr::Comma { .. } => COMMA,
            Expr::Assign { .. } => ASSIGN,
            Expr::Select { .. } => SELECT,
            Expr::Unary { .. }
            | Expr::Cast { .. }
            | Expr::CastOther { .. }
            | Expr::Sizeof { .. }
            | Expr::IncDec { prefix: true, .. } => UNARY,
            _ => POSTFIX,
        }
    }

    /// Writes `e`, parenthesised if it binds less tightly than `min`.
    fn write(&self, f: &mut fmt::Formatter<'_>, e: Handle<Expr>, min: u8) -> fmt::Result {
        let paren = self.precedence(e) < min;
        if paren {
            write!(f, "(")?;
        }
        self.write_bare(f, e)?;
        if paren {
            write!(f, ")")?;
        }
        Ok(())
    }

    fn write_bare(&self, f: &mut fmt::Formatter<'_>, e: Handle<Expr>) -> fmt::Result {
        match &self.exprs[e] {
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Int { value, .. } => write!(f, "{value}"),
            Expr::Float { value, .. } => write!(f, "{value:?}"),
            Expr::Unary { op, arg } => {
                write!(f, "{}", op.c_op())?;
                // `- -x`: never glue two operators into another token.
                let nested = matches!(self.exprs[*arg], Expr::Unary { .. });
                self.write(f, *arg, if nested { POSTFIX } else { UNARY })
            }
            Expr::Binary { op, left, right } => {
                let p = op.precedence();
                self.write(f, *left, p)?;
                write!(f, " {} ", op.c_op())?;
                self.write(f, *right, p + 1)
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                self.write(f, *cond, SELECT + 1)?;
                write!(f, " ? ")?;
                self.write(f, *accept, 0)?;
                write!(f, " : ")?;
                self.write(f, *reject, SELECT)
            }
            Expr::Cast { ty, arg } => {
                write!(f, "({})", ty.c_name())?;
                self.write(f, *arg, UNARY)
            }
            Expr::Index { base, index } => {
                self.write(f, *base, POSTFIX)?;
                write!(f, "[")?;
                self.write(f, *index, 0)?;
                write!(f, "]")
            }
            Expr::Call { function, args, .. } => {
                write!(f, "{function}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    self.write(f, *a, 0)?;
                }
                write!(f, ")")
            }
            Expr::Assign { op, target, value } => {
                self.write(f, *target, UNARY)?;
                write!(f, " {}= ", op.map_or("", |o| o.c_op()))?;
                self.write(f, *value, ASSIGN)
            }
            Expr::IncDec { inc, prefix, arg } => {
                let o = if *inc { "++" } else { "--" };
                if *prefix {
                    write!(f, "{o}")?;
                    self.write(f, *arg, UNARY)
                } else {
                    self.write(f, *arg, POSTFIX)?;
                    write!(f, "{o}")
                }
            }
            Expr::Comma { left, right } => {
                self.write(f, *left, COMMA)?;
                write!(f, ", ")?;
                self.write(f, *right, COMMA + 1)
            }
            Expr::Member { base, field, arrow } => {
                self.write(f, *base, POSTFIX)?;
                write!(f, "{}{field}", if *arrow { "->" } else { "." })
            }
            Expr::Sizeof {
                of: SizeOf::Expr(a),
                ..
            } => {
                write!(f, "sizeof(")?;
                self.write(f, *a, 0)?;
                write!(f, ")")
            }
            Expr::Sizeof { .. } => write!(f, "sizeof(…)"),
            Expr::CastOther { arg, .. } => {
                write!(f, "(…)")?;
                self.write(f, *arg, UNARY)
            }
            Expr::Str(s) => write!(f, "{s:?}"),
            Expr::Opaque { .. } => write!(f, "…"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_sees_every_operand_and_opaque_names() {
        let mut x = Exprs::new();
        let n = x.append(Expr::Var("n".into()), Span::default());
        let a = x.append(Expr::Var("a".into()), Span::default());
        let i = x.append(
            Expr::Int {
                value: 2,
                ty: Scalar::Int,
            },
            Span::default(),
        );
        let idx = x.append(Expr::Index { base: a, index: i }, Span::default());
        let sum = x.append(
            Expr::Binary {
                op: BinOp::Sub,
                left: idx,
                right: n,
            },
            Span::default(),
        );
        assert!(x.mentions(sum, "n") && x.mentions(sum, "a"));
        assert!(!x.mentions(sum, "m"));
        let o = x.append(
            Expr::Opaque {
                span: Span::default(),
                names: vec!["m".into()],
            },
            Span::default(),
        );
        assert!(x.mentions(o, "m"));
        assert_eq!(x.display(sum).to_string(), "a[2] - n");
        let prod = x.append(
            Expr::Binary {
                op: BinOp::Mul,
                left: sum,
                right: n,
            },
            Span::default(),
        );
        assert_eq!(x.display(prod).to_string(), "(a[2] - n) * n");
        let p = crate::ir::Poly::var("r")
            .mul(&crate::ir::Poly::var("cols"))
            .and_then(|p| p.add(&crate::ir::Poly::constant(-1)))
            .unwrap();
        let h = x.poly(&p, Span::default());
        assert_eq!(x.display(h).to_string(), p.to_string().replace('*', " * "));
    }
}
