//! `#if` / `#elif` constant expressions: C integer arithmetic on `intmax_t`/`uintmax_t` (i64/u64)
//! with the usual arithmetic conversions, `?:`, short-circuit `&&`/`||` (an unevaluated operand
//! may divide by zero), character constants. `defined` and macros are handled before; identifiers
//! left over are 0. Recursion is bounded by a depth counter.

use super::TK;
use crate::diag::{Diag, Diags, Span};

/// One token of an expression (after `defined` replacement and macro expansion).
pub(super) struct ETok<'t> {
    pub kind: TK,
    pub text: &'t str,
    pub span: Span,
}

/// A value: the bits and whether the type is unsigned.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Val {
    pub v: u64,
    pub unsigned: bool,
}

impl Val {
    fn signed(v: i64) -> Val {
        Val {
            v: v as u64,
            unsigned: false,
        }
    }
    fn truthy(self) -> bool {
        self.v != 0
    }
}

/// Nesting bound for parentheses, unary operators and `?:`.
const MAX_DEPTH: usize = 200;

/// Evaluates an expression; `None` after reporting an error. `end` is where "end of line" points.
pub(super) fn eval(toks: &[ETok], end: Span, dname: &str, diags: &mut Diags) -> Option<Val> {
    let mut p = Parser {
        toks,
        pos: 0,
        end,
        dname,
        diags,
        depth: 0,
    };
    let v = p.expr(true).ok()?;
    if let Some(t) = toks.get(p.pos) {
        let msg = match t.kind {
            TK::Punct => format!("unexpected `{}` in `#{}` expression", t.text, dname),
            _ => format!("missing binary operator before `{}`", t.text),
        };
        p.diags.push(Diag::error(t.span, msg));
        return None;
    }
    Some(v)
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum IntErr {
    Float,
    Invalid,
    TooLarge,
}

/// Parses a C integer literal (decimal, `0x`, `0b`, octal; `u`/`l`/`ll` suffixes). Returns the
/// value and whether its type is unsigned (a `u` suffix, or too large for `i64`).
pub(super) fn parse_int(s: &str) -> Result<(u64, bool), IntErr> {
    let digits = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = s.get(digits.len()..).unwrap_or("");
    let ucount = suffix.chars().filter(|c| matches!(c, 'u' | 'U')).count();
    let lcount = suffix.len() - ucount;
    let (radix, body) = if let Some(r) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, r)
    } else if let Some(r) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, r)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, digits.get(1..).unwrap_or(""))
    } else {
        (10, digits)
    };
    let float = if radix == 16 {
        body.contains(['.', 'p', 'P'])
    } else {
        body.contains(['.', 'e', 'E'])
    };
    if float {
        return Err(IntErr::Float);
    }
    if ucount > 1 || lcount > 2 || body.is_empty() {
        return Err(IntErr::Invalid);
    }
    let mut v: u64 = 0;
    for c in body.chars() {
        let d = c.to_digit(radix).ok_or(IntErr::Invalid)?;
        v = v
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(IntErr::TooLarge)?;
    }
    Ok((v, ucount > 0 || v > i64::MAX as u64))
}

/// Parses a character constant (`'a'`, `'\n'`, `'\x41'`, `'ab'`, `L'x'`). Plain `char` is signed.
pub(super) fn parse_char(s: &str) -> Option<Val> {
    let (wide, unsigned, rest) = if let Some(r) = s.strip_prefix("u8") {
        (false, false, r)
    } else if let Some(r) = s.strip_prefix('L') {
        (true, false, r)
    } else if let Some(r) = s.strip_prefix('u').or_else(|| s.strip_prefix('U')) {
        (true, true, r)
    } else {
        (false, false, s)
    };
    let inner = rest.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut vals: Vec<u64> = Vec::new();
    let mut it = inner.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            if wide {
                vals.push(u64::from(u32::from(c)));
            } else {
                let mut buf = [0u8; 4];
                vals.extend(c.encode_utf8(&mut buf).bytes().map(u64::from));
            }
            continue;
        }
        let e = it.next()?;
        let v = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            'e' | 'E' => 27,
            '0'..='7' => {
                let mut v = u64::from(e.to_digit(8).unwrap_or(0));
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + u64::from(d);
                            it.next();
                        }
                        None => break,
                    }
                }
                v
            }
            'x' => {
                let mut v: u64 = 0;
                let mut any = false;
                while let Some(d) = it.peek().and_then(|c| c.to_digit(16)) {
                    v = v.wrapping_mul(16).wrapping_add(u64::from(d));
                    it.next();
                    any = true;
                }
                if !any {
                    return None;
                }
                v
            }
            other => u64::from(u32::from(other)),
        };
        vals.push(v);
    }
    let last = *vals.last()?;
    Some(if wide {
        if unsigned {
            Val {
                v: last & 0xffff_ffff,
                unsigned: true,
            }
        } else {
            Val::signed(i64::from(last as u32 as i32))
        }
    } else if vals.len() == 1 {
        Val::signed(i64::from(last as u8 as i8))
    } else {
        let mut acc: u32 = 0;
        for v in vals {
            acc = (acc << 8) | (v as u32 & 0xff);
        }
        Val::signed(i64::from(acc as i32))
    })
}

type R = Result<Val, ()>;

struct Parser<'t, 's, 'd> {
    toks: &'s [ETok<'t>],
    pos: usize,
    end: Span,
    dname: &'s str,
    diags: &'d mut Diags,
    depth: usize,
}

impl Parser<'_, '_, '_> {
    fn err<T>(&mut self, span: Span, msg: String) -> Result<T, ()> {
        self.diags.push(Diag::error(span, msg));
        Err(())
    }

    fn cur_span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.span)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self
            .toks
            .get(self.pos)
            .is_some_and(|t| t.kind == TK::Punct && t.text == p)
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let sp = self.cur_span();
            return self.err(
                sp,
                format!("`#{}` expression nested too deeply", self.dname),
            );
        }
        Ok(())
    }

    fn expr(&mut self, ev: bool) -> R {
        let mut v = self.cond(ev)?;
        while self.eat(",") {
            v = self.cond(ev)?;
        }
        Ok(v)
    }

    fn cond(&mut self, ev: bool) -> R {
        self.enter()?;
        let c = self.binary(1, ev)?;
        let r = if self.eat("?") {
            let t = c.truthy();
            let a = self.expr(ev && t)?;
            if !self.eat(":") {
                let sp = self.cur_span();
                return self.err(sp, format!("expected `:` in `#{}` expression", self.dname));
            }
            let b = self.cond(ev && !t)?;
            Val {
                v: if t { a.v } else { b.v },
                unsigned: a.unsigned || b.unsigned,
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    fn binop(&self) -> Option<(&'static str, u8)> {
        let t = self.toks.get(self.pos)?;
        if t.kind != TK::Punct {
            return None;
        }
        Some(match t.text {
            "||" => ("||", 1),
            "&&" => ("&&", 2),
            "|" => ("|", 3),
            "^" => ("^", 4),
            "&" => ("&", 5),
            "==" => ("==", 6),
            "!=" => ("!=", 6),
            "<" => ("<", 7),
            ">" => (">", 7),
            "<=" => ("<=", 7),
            ">=" => (">=", 7),
            "<<" => ("<<", 8),
            ">>" => (">>", 8),
            "+" => ("+", 9),
            "-" => ("-", 9),
            "*" => ("*", 10),
            "/" => ("/", 10),
            "%" => ("%", 10),
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8, ev: bool) -> R {
        let mut lhs = self.unary(ev)?;
        while let Some((op, prec)) = self.binop() {
            if prec < min {
                break;
            }
            let op_span = self.cur_span();
            self.pos += 1;
            let rev = match op {
                "&&" => ev && lhs.truthy(),
                "||" => ev && !lhs.truthy(),
                _ => ev,
            };
            let rhs = self.binary(prec + 1, rev)?;
            lhs = self.apply(op, lhs, rhs, ev, op_span)?;
        }
        Ok(lhs)
    }

    fn apply(&mut self, op: &str, a: Val, b: Val, ev: bool, span: Span) -> R {
        let u = a.unsigned || b.unsigned;
        let (x, y) = (a.v, b.v);
        let lt = |x: u64, y: u64| if u { x < y } else { (x as i64) < (y as i64) };
        let bool_ = |c: bool| Val::signed(i64::from(c));
        let val = |v: u64| Val { v, unsigned: u };
        Ok(match op {
            "||" => bool_(a.truthy() || b.truthy()),
            "&&" => bool_(a.truthy() && b.truthy()),
            "|" => val(x | y),
            "^" => val(x ^ y),
            "&" => val(x & y),
            "==" => bool_(x == y),
            "!=" => bool_(x != y),
            "<" => bool_(lt(x, y)),
            ">" => bool_(lt(y, x)),
            "<=" => bool_(!lt(y, x)),
            ">=" => bool_(!lt(x, y)),
            "<<" => Val {
                v: shift(a, b, true),
                unsigned: a.unsigned,
            },
            ">>" => Val {
                v: shift(a, b, false),
                unsigned: a.unsigned,
            },
            "+" => val(x.wrapping_add(y)),
            "-" => val(x.wrapping_sub(y)),
            "*" => val(x.wrapping_mul(y)),
            _ => {
                // `/` and `%`
                if y == 0 {
                    if ev {
                        return self.err(span, format!("division by zero in `#{}`", self.dname));
                    }
                    return Ok(val(0));
                }
                let div = op == "/";
                match (u, div) {
                    (true, true) => val(x / y),
                    (true, false) => val(x % y),
                    (false, true) => val((x as i64).wrapping_div(y as i64) as u64),
                    (false, false) => val((x as i64).wrapping_rem(y as i64) as u64),
                }
            }
        })
    }

    fn unary(&mut self, ev: bool) -> R {
        self.enter()?;
        let toks = self.toks;
        let Some(t) = toks.get(self.pos) else {
            let e = self.end;
            return self.err(
                e,
                format!(
                    "expected value in `#{}` expression, found end of line",
                    self.dname
                ),
            );
        };
        self.pos += 1;
        let r = match t.kind {
            TK::Punct => match t.text {
                "-" => {
                    let v = self.unary(ev)?;
                    Val {
                        v: v.v.wrapping_neg(),
                        ..v
                    }
                }
                "+" => self.unary(ev)?,
                "~" => {
                    let v = self.unary(ev)?;
                    Val { v: !v.v, ..v }
                }
                "!" => {
                    let v = self.unary(ev)?;
                    Val::signed(i64::from(!v.truthy()))
                }
                "(" => {
                    let v = self.expr(ev)?;
                    if !self.eat(")") {
                        let sp = self.cur_span();
                        let d =
                            Diag::error(sp, format!("missing `)` in `#{}` expression", self.dname))
                                .with_label(t.span, "unclosed parenthesis");
                        self.diags.push(d);
                        return Err(());
                    }
                    v
                }
                _ => {
                    return self.err(
                        t.span,
                        format!(
                            "expected value in `#{}` expression, found `{}`",
                            self.dname, t.text
                        ),
                    )
                }
            },
            TK::Number => match parse_int(t.text) {
                Ok((v, unsigned)) => Val { v, unsigned },
                Err(e) => {
                    let msg = match e {
                        IntErr::Float => {
                            format!("floating constant in `#{}` expression", self.dname)
                        }
                        IntErr::Invalid => format!(
                            "invalid integer constant `{}` in `#{}` expression",
                            t.text, self.dname
                        ),
                        IntErr::TooLarge => format!("integer constant `{}` is too large", t.text),
                    };
                    return self.err(t.span, msg);
                }
            },
            TK::Char => match parse_char(t.text) {
                Some(v) => v,
                None => {
                    return self.err(t.span, format!("invalid character constant `{}`", t.text))
                }
            },
            TK::Ident => Val::signed(0),
            _ => {
                return self.err(
                    t.span,
                    format!(
                        "expected value in `#{}` expression, found `{}`",
                        self.dname, t.text
                    ),
                )
            }
        };
        self.depth -= 1;
        Ok(r)
    }
}

/// `a << b` / `a >> b` with the result in `a`'s type; negative counts shift the other way and
/// counts of 64 or more shift everything out (GCC's behaviour).
fn shift(a: Val, b: Val, left: bool) -> u64 {
    let n: i128 = if b.unsigned {
        i128::from(b.v)
    } else {
        i128::from(b.v as i64)
    };
    let (left, n) = if n < 0 { (!left, -n) } else { (left, n) };
    if left {
        if n >= 64 {
            0
        } else {
            a.v << n
        }
    } else if a.unsigned {
        if n >= 64 {
            0
        } else {
            a.v >> n
        }
    } else {
        let s = a.v as i64;
        if n >= 64 {
            if s < 0 {
                u64::MAX
            } else {
                0
            }
        } else {
            (s >> n) as u64
        }
    }
}
