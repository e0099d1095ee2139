//! The canonical source form of pragmas (`Display`), used in messages and `--emit` output.

use super::*;

fn part_prec(e: &PartExpr) -> u8 {
    match &e.kind {
        PartExprKind::Bin(PartOp::Add | PartOp::Sub, ..) => 1,
        PartExprKind::Bin(PartOp::Mul | PartOp::Div, ..) => 2,
        _ => 3,
    }
}

fn write_part(f: &mut fmt::Formatter<'_>, e: &PartExpr, min: u8) -> fmt::Result {
    let paren = part_prec(e) < min;
    if paren {
        f.write_str("(")?;
    }
    match &e.kind {
        PartExprKind::Int(v) => write!(f, "{v}")?,
        PartExprKind::Tb(d) => f.write_str(d.name())?,
        PartExprKind::Bin(op, a, b) => {
            let p = part_prec(e);
            write_part(f, a, p)?;
            let o = match op {
                PartOp::Add => " + ",
                PartOp::Sub => " - ",
                PartOp::Mul => " * ",
                PartOp::Div => " / ",
            };
            f.write_str(o)?;
            write_part(f, b, p + 1)?;
        }
    }
    if paren {
        f.write_str(")")?;
    }
    Ok(())
}

impl fmt::Display for PartExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_part(f, self, 0)
    }
}

impl fmt::Display for PartDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartDim::Star(_) => f.write_str("*"),
            PartDim::Expr(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for ArraySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.array.name)?;
        for d in &self.dims {
            write!(f, "[{d}]")?;
        }
        if self.coalesce {
            f.write_str(":coalesce")?;
        }
        Ok(())
    }
}

/// Writes items separated by `, `.
fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for SharePragma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("acc share(")?;
        write_list(f, &self.specs)?;
        f.write_str(")")
    }
}

impl fmt::Display for SubRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        if let Some(s) = &self.start {
            f.write_str(&expr_to_c(s))?;
        }
        if !self.single {
            f.write_str(":")?;
            if let Some(l) = &self.len {
                f.write_str(&expr_to_c(l))?;
            }
        }
        f.write_str("]")
    }
}

impl fmt::Display for SubArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name.name)?;
        for d in &self.dims {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

fn write_exprs(f: &mut fmt::Formatter<'_>, es: &[Expr]) -> fmt::Result {
    for (k, e) in es.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        f.write_str(&expr_to_c(e))?;
    }
    Ok(())
}

fn write_names(f: &mut fmt::Formatter<'_>, vs: &[Ident]) -> fmt::Result {
    for (k, v) in vs.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        f.write_str(&v.name)?;
    }
    Ok(())
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl fmt::Display for ClauseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self {
            ClauseKind::Independent | ClauseKind::Seq | ClauseKind::Auto => f.write_str(name),
            ClauseKind::Gang(e)
            | ClauseKind::Worker(e)
            | ClauseKind::Vector(e)
            | ClauseKind::Async(e) => {
                f.write_str(name)?;
                if let Some(e) = e {
                    write!(f, "({})", expr_to_c(e))?;
                }
                Ok(())
            }
            ClauseKind::NumGangs(es) => {
                f.write_str("num_gangs(")?;
                write_exprs(f, es)?;
                f.write_str(")")
            }
            ClauseKind::NumWorkers(e) | ClauseKind::VectorLength(e) | ClauseKind::If(e) => {
                write!(f, "{name}({})", expr_to_c(e))
            }
            ClauseKind::Collapse { n, force: false } => write!(f, "collapse({n})"),
            ClauseKind::Collapse { n, force: true } => write!(f, "collapse(force:{n})"),
            ClauseKind::Reduction { op, vars } => {
                write!(f, "reduction({}:", op.name())?;
                write_names(f, vars)?;
                f.write_str(")")
            }
            ClauseKind::Private(vs) | ClauseKind::FirstPrivate(vs) => {
                write!(f, "{name}(")?;
                write_names(f, vs)?;
                f.write_str(")")
            }
            ClauseKind::Data { vars, zero, .. } => {
                write!(f, "{name}(")?;
                if *zero {
                    f.write_str("zero: ")?;
                }
                write_list(f, vars)?;
                f.write_str(")")
            }
            ClauseKind::Wait(es) => {
                f.write_str("wait")?;
                if !es.is_empty() {
                    f.write_str("(")?;
                    write_exprs(f, es)?;
                    f.write_str(")")?;
                }
                Ok(())
            }
            ClauseKind::Tile(es) => {
                f.write_str("tile(")?;
                for (i, e) in es.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match e {
                        Some(e) => f.write_str(&expr_to_c(e))?,
                        None => f.write_str("*")?,
                    }
                }
                f.write_str(")")
            }
            ClauseKind::Finalize => f.write_str("finalize"),
            ClauseKind::IfPresent => f.write_str("if_present"),
            ClauseKind::Unknown(s) => f.write_str(s),
        }
    }
}

impl fmt::Display for AccDirective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "acc {}", self.construct.name())?;
        let mut clauses = self.clauses.as_slice();
        match self.construct {
            // `update` is the default: the canonical form leaves it out.
            Construct::Atomic(k) if k != AtomicKind::Update => write!(f, " {}", k.name())?,
            Construct::Cache => {
                f.write_str("(")?;
                write_list(f, &self.cache)?;
                f.write_str(")")?;
            }
            Construct::Wait => {
                // `wait(1, 2)`: the directive's own argument list.
                if let Some(Clause {
                    kind: ClauseKind::Wait(es),
                    ..
                }) = clauses.first()
                {
                    if !es.is_empty() {
                        f.write_str("(")?;
                        write_exprs(f, es)?;
                        f.write_str(")")?;
                    }
                    clauses = &clauses[1..];
                }
            }
            _ => {}
        }
        for c in clauses {
            write!(f, " {c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Pragma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pragma::Acc(d) => write!(f, "{d}"),
            Pragma::Share(s) => write!(f, "{s}"),
            Pragma::Scop => f.write_str("scop"),
            Pragma::Foreign => f.write_str("(foreign pragma)"),
        }
    }
}
