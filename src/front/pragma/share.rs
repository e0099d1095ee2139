//! The `share` pragma: array specs and partition-size expressions, and their evaluation.

use super::*;

impl Cx<'_, '_> {
    pub(super) fn share(&mut self, p: Pair<'_, Rule>) -> SharePragma {
        let mut specs = Vec::new();
        let mut any = false;
        let mut parens: Option<Span> = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::array_spec => {
                    any = true;
                    if let Some(s) = self.array_spec(c) {
                        if let Some(prev) = specs
                            .iter()
                            .find(|x: &&ArraySpec| x.array.name == s.array.name)
                        {
                            let d = Diag::error(
                                s.array.span,
                                format!("`{}` is partitioned twice", s.array.name),
                            )
                            .label("second partition")
                            .with_label(prev.array.span, "first partition");
                            self.diags.push(d);
                        } else {
                            specs.push(s);
                        }
                    }
                }
                Rule::lparen => parens = Some(self.pspan(&c)),
                Rule::rparen => parens = Some(parens.unwrap_or_default().to(self.pspan(&c))),
                _ => {}
            }
        }
        if !any {
            let sp = parens.unwrap_or(self.whole);
            self.diags.push(
                Diag::error(sp, "empty `share` directive")
                    .label("expected at least one array partition")
                    .help("partition an array like this: `share(A[TB_Y][*])`"),
            );
        }
        SharePragma {
            specs,
            span: self.whole,
        }
    }

    fn array_spec(&mut self, p: Pair<'_, Rule>) -> Option<ArraySpec> {
        let span = self.pspan(&p);
        let mut array = None;
        let mut dims = Vec::new();
        let mut coalesce = false;
        let mut ok = true;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::array_name => array = Some(self.name(&c)),
                Rule::part_dim => {
                    for d in c.into_inner() {
                        match d.as_rule() {
                            Rule::star => dims.push(PartDim::Star(self.pspan(&d))),
                            Rule::part_expr if too_many_operands(&d) => {
                                self.diags.push(
                                    Diag::error(self.pspan(&d), "partition size too long")
                                        .label(format!("more than {MAX_PART_OPERANDS} operands")),
                                );
                                ok = false;
                            }
                            Rule::part_expr => match self.part_expr(d) {
                                Some(e) if self.check_size(&e) => dims.push(PartDim::Expr(e)),
                                _ => ok = false,
                            },
                            _ => {}
                        }
                    }
                }
                Rule::hint => {
                    let h = c.as_str();
                    if h == "coalesce" {
                        coalesce = true;
                    } else {
                        let mut d =
                            Diag::error(self.pspan(&c), format!("unknown share modifier `{h}`"))
                                .label("unknown modifier");
                        d = match did_you_mean(h, ["coalesce"]) {
                            Some(s) => d.help(format!("did you mean `{s}`?")),
                            None => d.note("the only modifier is `coalesce`"),
                        };
                        self.diags.push(d);
                    }
                }
                _ => {}
            }
        }
        let array = array?;
        ok.then_some(ArraySpec {
            array,
            dims,
            coalesce,
            span,
        })
    }

    /// Checks that a partition size can be positive (reports the problem otherwise).
    fn check_size(&mut self, e: &PartExpr) -> bool {
        let shown = e.to_string();
        match eval_part(e, None) {
            Ok(v) if v > 0 => true,
            Ok(v) => {
                let what = if v == 0 {
                    "zero".to_string()
                } else {
                    format!("negative ({v})")
                };
                self.diags.push(
                    Diag::error(e.span, format!("partition size `{shown}` is {what}"))
                        .label("a partition size must be positive"),
                );
                false
            }
            Err(EvalErr::Overflow) => {
                self.diags.push(
                    Diag::error(e.span, format!("partition size `{shown}` overflows"))
                        .label("too large"),
                );
                false
            }
            Err(EvalErr::DivZero) => false, // reported where the division is built
            Err(EvalErr::Symbolic) => {
                let sizes = [1i64, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
                if sizes
                    .iter()
                    .any(|&tb| matches!(eval_part(e, Some(tb)), Ok(v) if v > 0))
                {
                    true
                } else {
                    self.diags.push(
                        Diag::error(
                            e.span,
                            format!("partition size `{shown}` is not positive for any thread-block size"),
                        )
                        .label("a partition size must be positive"),
                    );
                    false
                }
            }
        }
    }

    /// `part_expr`, `part_term`: a left-associative chain of operands and operators.
    fn part_expr(&mut self, p: Pair<'_, Rule>) -> Option<PartExpr> {
        let mut acc: Option<Option<PartExpr>> = None;
        let mut op: Option<PartOp> = None;
        let mut ok = true;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::add_op | Rule::mul_op => {
                    op = Some(match c.as_str() {
                        "+" => PartOp::Add,
                        "-" => PartOp::Sub,
                        "*" => PartOp::Mul,
                        _ => PartOp::Div,
                    })
                }
                Rule::part_term | Rule::part_expr => {
                    let v = self.part_expr(c);
                    acc = Some(self.combine(acc, op.take(), v));
                }
                Rule::part_factor => {
                    let v = self.part_factor(c);
                    acc = Some(self.combine(acc, op.take(), v));
                }
                _ => {}
            }
            if matches!(acc, Some(None)) {
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        acc.flatten()
    }

    fn combine(
        &mut self,
        acc: Option<Option<PartExpr>>,
        op: Option<PartOp>,
        rhs: Option<PartExpr>,
    ) -> Option<PartExpr> {
        match (acc, op) {
            (None, _) => rhs,
            (Some(l), Some(op)) => {
                let (l, r) = (l?, rhs?);
                if op == PartOp::Div && eval_part(&r, None) == Ok(0) {
                    self.diags.push(
                        Diag::error(r.span, "division by zero in a partition size")
                            .label("this is zero"),
                    );
                    return None;
                }
                let span = l.span.to(r.span);
                Some(PartExpr {
                    kind: PartExprKind::Bin(op, Box::new(l), Box::new(r)),
                    span,
                })
            }
            (Some(_), None) => None,
        }
    }

    fn part_factor(&mut self, p: Pair<'_, Rule>) -> Option<PartExpr> {
        let mut negative = None;
        let mut out = None;
        for c in p.into_inner() {
            let sp = self.pspan(&c);
            match c.as_rule() {
                Rule::part_neg => negative = Some(sp),
                Rule::part_int => {
                    let s = c.as_str();
                    match parse_c_int(s).and_then(|v| i64::try_from(v).ok()) {
                        Some(v) => {
                            out = Some(PartExpr {
                                kind: PartExprKind::Int(v),
                                span: sp,
                            })
                        }
                        None => self.diags.push(
                            Diag::error(sp, format!("invalid integer `{s}` in a partition size"))
                                .label("not an integer"),
                        ),
                    }
                }
                Rule::part_name => out = self.part_name(&c),
                Rule::part_paren => {
                    if let Some(inner) = c.into_inner().find(|x| x.as_rule() == Rule::part_expr) {
                        out = self.part_expr(inner).map(|e| PartExpr { span: sp, ..e });
                    }
                }
                _ => {}
            }
        }
        if let Some(sp) = negative {
            self.diags.push(
                Diag::error(sp, "a partition size cannot be negative")
                    .label("negative sign")
                    .help(
                        "partition sizes are positive: an integer, `TB_X`, `TB_Y`, `TB_Z` or `*`",
                    ),
            );
            return None;
        }
        out
    }

    fn part_name(&mut self, c: &Pair<'_, Rule>) -> Option<PartExpr> {
        let sp = self.pspan(c);
        let name = c.as_str();
        let kind = match name {
            "TB_X" => PartExprKind::Tb(TbDim::X),
            "TB_Y" => PartExprKind::Tb(TbDim::Y),
            "TB_Z" => PartExprKind::Tb(TbDim::Z),
            _ => match self.int_macros.iter().rev().find(|(n, _)| n == name) {
                Some((_, v)) => PartExprKind::Int(*v),
                None => {
                    let mut d = Diag::error(
                        sp,
                        format!(
                            "`{name}` is not a partition size: expected an integer, `TB_X`, `TB_Y`, `TB_Z` or `*`"
                        ),
                    )
                    .label("not a partition size");
                    let macros = self.int_macros.iter().map(|(n, _)| n.as_str());
                    if name.starts_with("TB_") {
                        d = d.help("the thread-block sizes are `TB_X`, `TB_Y` and `TB_Z`");
                    } else if let Some(s) = did_you_mean(name, macros) {
                        d = d.help(format!("did you mean `{s}`?"));
                    } else {
                        d = d.note("a macro may be used if its value is one integer literal");
                    }
                    self.diags.push(d);
                    return None;
                }
            },
        };
        Some(PartExpr { kind, span: sp })
    }
}

#[derive(Debug, PartialEq, Eq)]
enum EvalErr {
    /// Depends on a thread-block size and none was given.
    Symbolic,
    DivZero,
    Overflow,
}

/// Evaluates a partition size; `tb` gives every `TB_*` that value.
fn eval_part(e: &PartExpr, tb: Option<i64>) -> Result<i64, EvalErr> {
    match &e.kind {
        PartExprKind::Int(v) => Ok(*v),
        PartExprKind::Tb(_) => tb.ok_or(EvalErr::Symbolic),
        PartExprKind::Bin(op, a, b) => {
            let x = eval_part(a, tb);
            let y = eval_part(b, tb);
            let (x, y) = match (x, y) {
                (Err(EvalErr::DivZero), _) | (_, Err(EvalErr::DivZero)) => {
                    return Err(EvalErr::DivZero)
                }
                (Err(EvalErr::Overflow), _) | (_, Err(EvalErr::Overflow)) => {
                    return Err(EvalErr::Overflow)
                }
                (Ok(x), Ok(y)) => (x, y),
                _ => return Err(EvalErr::Symbolic),
            };
            match op {
                PartOp::Add => x.checked_add(y).ok_or(EvalErr::Overflow),
                PartOp::Sub => x.checked_sub(y).ok_or(EvalErr::Overflow),
                PartOp::Mul => x.checked_mul(y).ok_or(EvalErr::Overflow),
                PartOp::Div if y == 0 => Err(EvalErr::DivZero),
                PartOp::Div => x.checked_div(y).ok_or(EvalErr::Overflow),
            }
        }
    }
}

impl PartExpr {
    /// The value, if the size does not depend on a thread-block size.
    pub fn const_value(&self) -> Option<i64> {
        eval_part(self, None).ok()
    }

    /// The value for given thread-block sizes (`tb` indexed by `TbDim` X, Y, Z); `None` on
    /// overflow or division by zero.
    pub fn eval(&self, tb: [i64; 3]) -> Option<i64> {
        match &self.kind {
            PartExprKind::Int(v) => Some(*v),
            PartExprKind::Tb(d) => Some(tb[*d as usize]),
            PartExprKind::Bin(op, a, b) => {
                let (x, y) = (a.eval(tb)?, b.eval(tb)?);
                match op {
                    PartOp::Add => x.checked_add(y),
                    PartOp::Sub => x.checked_sub(y),
                    PartOp::Mul => x.checked_mul(y),
                    PartOp::Div => x.checked_div(y),
                }
            }
        }
    }
}
