//! The OpenACC directives the host plan acts on (compute and data constructs, `update`,
//! `enter data`, `exit data`), as the IR holds them: the construct, its data clauses with their
//! variables and sections, its `if` clause, and the flags the host code needs. Lowered from the
//! syntax tree by `ir::lower`; the user's expressions in them are [`Detached`] IR expressions
//! the back ends print.

use std::collections::BTreeSet;

use crate::diag::Span;
use crate::ir::expr::{Detached, Expr, TypeName};
use crate::vocab::{Construct, DataKind};

/// One directive.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    pub construct: Construct,
    /// The whole pragma.
    pub span: Span,
    /// The data clauses' variables, in clause order.
    pub data: Vec<(DataKind, DataVar)>,
    /// `if(cond)`: the clause and its condition.
    pub if_clause: Option<(Span, Detached)>,
    /// `finalize` (`exit data`).
    pub finalize: bool,
    /// `if_present` (`update`).
    pub if_present: bool,
    /// The variables of `create(zero: …)` / `copyout(zero: …)`.
    pub zeroed: BTreeSet<String>,
    /// The variables of `private` and `firstprivate` clauses.
    pub private: Vec<String>,
    /// The struct members this directive names (in its clauses or, for a compute construct, in
    /// its statement), each through a host variable of its own that the host code declares
    /// first (`ir::lower::members`).
    pub aliases: Vec<MemberAlias>,
}

/// A struct member (`data.a`, `p->a`) named through a variable of the generated host code:
/// `double *data_a = data.a;`. The clauses and the compute region name the variable; the kernel
/// receives it as a buffer (a pointer or array member) or by value (a scalar member).
#[derive(Clone, Debug, PartialEq)]
pub struct MemberAlias {
    /// The variable's name (`data_a`).
    pub name: String,
    /// Its type (`double *`), which the host code declares it with (`double *data_a`).
    pub ty: TypeName,
    /// The variable the member is reached through (`data`).
    pub base: String,
    /// The members after it, each with whether it is reached with `->`.
    pub path: Vec<(bool, String)>,
}

impl MemberAlias {
    /// The member as C writes it (`data.a`, `p->a`).
    pub fn member(&self) -> String {
        member_text(&self.base, &self.path)
    }
}

/// Member `path` of `base` as C writes it ([`MemberAlias::member`]).
pub fn member_text(base: &str, path: &[(bool, String)]) -> String {
    let mut s = base.to_string();
    for (arrow, f) in path {
        s.push_str(if *arrow { "->" } else { "." });
        s.push_str(f);
    }
    s
}

impl Directive {
    /// The variables its data clauses name.
    pub fn data_names(&self) -> impl Iterator<Item = &str> {
        self.data.iter().map(|(_, v)| v.name.as_str())
    }
}

/// A variable of a data clause: `a`, `a[lo:n]`, `a[0:n][0:m]`.
#[derive(Clone, Debug, PartialEq)]
pub struct DataVar {
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// One section per subscript written.
    pub dims: Vec<Section>,
    /// The whole variable with its sections.
    pub span: Span,
}

/// `[start:len]` of a data clause's variable (either may be left out).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub start: Option<Detached>,
    pub len: Option<Detached>,
    pub span: Span,
}

impl Section {
    /// The start, unless it is written `0` (or left out).
    pub fn start_past_zero(&self) -> Option<&Detached> {
        self.start.as_ref().filter(|s| !s.is_zero())
    }
}

impl Detached {
    /// Written as the constant `0`.
    pub fn is_zero(&self) -> bool {
        matches!(self.exprs[self.root], Expr::Int { value: 0, .. })
    }

    /// The same expression as `other`, part for part (where each is written aside).
    pub fn same(&self, other: &Detached) -> bool {
        same_part(self, self.root, other, other.root)
    }
}

fn same_part(
    a: &Detached,
    x: crate::ir::Handle<Expr>,
    b: &Detached,
    y: crate::ir::Handle<Expr>,
) -> bool {
    let (ex, ey) = (&a.exprs[x], &b.exprs[y]);
    let shallow = match (ex, ey) {
        // Handles differ between arenas: compare what is not a handle here, the operands below.
        (
            Expr::Call {
                function: f, args, ..
            },
            Expr::Call {
                function: g,
                args: h,
                ..
            },
        ) => f == g && args.len() == h.len(),
        (Expr::Var(_), _)
        | (Expr::Int { .. }, _)
        | (Expr::Float { .. }, _)
        | (Expr::Str(_), _)
        | (Expr::Opaque { .. }, _) => ex == ey,
        (Expr::Unary { op: o, .. }, Expr::Unary { op: p, .. }) => o == p,
        (Expr::Binary { op: o, .. }, Expr::Binary { op: p, .. }) => o == p,
        (Expr::Cast { ty: t, .. }, Expr::Cast { ty: u, .. }) => t == u,
        (Expr::CastOther { ty: t, .. }, Expr::CastOther { ty: u, .. }) => t == u,
        (Expr::Assign { op: o, .. }, Expr::Assign { op: p, .. }) => o == p,
        (
            Expr::IncDec {
                inc: i, prefix: p, ..
            },
            Expr::IncDec {
                inc: j, prefix: q, ..
            },
        ) => i == j && p == q,
        (
            Expr::Member {
                field: f, arrow: r, ..
            },
            Expr::Member {
                field: g, arrow: s, ..
            },
        ) => f == g && r == s,
        (Expr::Sizeof { of: o, size: n }, Expr::Sizeof { of: p, size: m }) => {
            n == m
                && match (o, p) {
                    (crate::ir::expr::SizeOf::Type(t), crate::ir::expr::SizeOf::Type(u)) => t == u,
                    (crate::ir::expr::SizeOf::Expr(_), crate::ir::expr::SizeOf::Expr(_)) => true,
                    _ => false,
                }
        }
        (Expr::Select { .. }, Expr::Select { .. })
        | (Expr::Index { .. }, Expr::Index { .. })
        | (Expr::Comma { .. }, Expr::Comma { .. }) => true,
        _ => false,
    };
    let (ox, oy) = (a.exprs.operands(x), b.exprs.operands(y));
    shallow && ox.len() == oy.len() && ox.iter().zip(&oy).all(|(p, q)| same_part(a, *p, b, *q))
}
