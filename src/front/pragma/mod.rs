//! The pragma parser (pest grammar `grammar/pragma.pest`).
//!
//! [`parse_pragma`] turns one `#pragma` line into a [`Pragma`]: `scop`/`endscop`, a foreign
//! pragma, an OpenACC directive with its clauses, or accshare's `share` directive. Clause arguments
//! are C expressions: the grammar only finds where each one ends, and the macro-expanded tokens of
//! that range go to the C expression parser (so `copyin(A[0:N])` sees `N`'s value). The partition
//! sizes of `share` are the paper's small language (integers, `TB_X`/`TB_Y`/`TB_Z`, `+ - * /`,
//! parentheses) and are built here, with integer-valued macros replaced by their value.
//!
//! Problems are diagnostics: malformed text is an error at the exact position saying what was
//! expected; unknown clauses and directives are warnings and are ignored. A pragma with a syntax
//! error still yields its construct (without clauses) so that later stages do not add errors that
//! only follow from the first one. Nothing here panics, whatever the text.

mod acc;
mod display;
mod print;
mod share;

use std::fmt;

use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser as _;

pub use print::{char_literal, ctype_to_c, expr_to_c, float_literal, int_literal, string_literal};

use crate::diag::{Diag, Diags, FileId, SourceMap, Span};
use crate::front::ast::{Expr, ExprKind, Ident};
use crate::front::lexer::{self, RawKind};
use crate::front::parser;
use crate::front::pragma_ast::*;
use crate::front::preprocess::{PpKind, PpToken, PragmaLine};

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/pragma.pest"]
    pub struct PragmaParser;
}

use grammar::{PragmaParser, Rule};

/// Deepest nesting of `(`/`[` accepted in a pragma (deeper text is an error, not a stack overflow).
pub const MAX_NESTING: usize = 32;

/// Most tokens in one clause argument (longer expressions are an error: the trees later passes
/// walk stay shallow).
pub const MAX_EXPR_TOKENS: usize = 1000;

/// Most operands in one partition size.
pub const MAX_PART_OPERANDS: usize = 64;

/// Every clause name accshare knows (for "did you mean" suggestions).
const CLAUSE_NAMES: &[&str] = &[
    "independent",
    "seq",
    "auto",
    "gang",
    "worker",
    "vector",
    "num_gangs",
    "num_workers",
    "vector_length",
    "collapse",
    "reduction",
    "private",
    "firstprivate",
    "copy",
    "copyin",
    "copyout",
    "create",
    "present",
    "deviceptr",
    "no_create",
    "delete",
    "host",
    "self",
    "device",
    "if",
    "async",
    "wait",
    "tile",
    "default",
];

const DIRECTIVE_NAMES: &[&str] = &[
    "kernels",
    "parallel",
    "serial",
    "loop",
    "data",
    "enter",
    "exit",
    "update",
    "wait",
    "routine",
    "atomic",
    "host_data",
    "declare",
    "cache",
    "share",
];

/// Parses one `#pragma` line (`line.span` is the text after `#pragma`).
///
/// `int_macros` are the integer-valued object-like macros (`BLOCK` → 16) that `share` partition
/// sizes may name. If `line.tokens` is empty (no preprocessor ran), the text is lexed here without
/// macro expansion.
pub fn parse_pragma(
    line: &PragmaLine,
    sources: &SourceMap,
    int_macros: &[(String, i64)],
    diags: &mut Diags,
) -> Pragma {
    let text = sources.snippet(line.span);
    match first_word(text) {
        Some("scop") | Some("endscop") => return Pragma::Scop,
        Some("acc") => {}
        _ => return Pragma::Foreign,
    }
    let file = line.span.file;
    let base = line.span.lo as usize;
    let toks = if line.tokens.is_empty() {
        lex_tokens(text, file, base)
    } else {
        line.tokens.clone()
    };
    let mut cx = Cx {
        text,
        base,
        file,
        whole: line.span,
        toks,
        int_macros,
        diags,
    };
    if let Some(at) = too_deep(text) {
        cx.diags.push(
            Diag::error(cx.span(at, at + 1), "pragma too deeply nested").label(format!(
                "more than {MAX_NESTING} nested brackets start here"
            )),
        );
        return cx.recover();
    }
    match PragmaParser::parse(Rule::acc_pragma, text) {
        Ok(mut pairs) => match pairs.next() {
            Some(top) => cx.build(top),
            None => Pragma::Foreign,
        },
        Err(e) => {
            cx.syntax_error(&e);
            cx.recover()
        }
    }
}

/// The first identifier of the text, after blanks and comments.
fn first_word(text: &str) -> Option<&str> {
    let start = skip_blanks(text, 0);
    let rest = text.get(start..)?;
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    (len > 0 && !rest.as_bytes()[0].is_ascii_digit()).then(|| &rest[..len])
}

/// The byte offset of the first non-blank, non-comment byte at or after `at`.
fn skip_blanks(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    while at < b.len() {
        if b[at].is_ascii_whitespace() || b[at] == b'\\' {
            at += 1;
        } else if b[at..].starts_with(b"/*") {
            at = text[at + 2..]
                .find("*/")
                .map(|k| at + 2 + k + 2)
                .unwrap_or(b.len());
        } else if b[at..].starts_with(b"//") {
            at = text[at..].find('\n').map(|k| at + k).unwrap_or(b.len());
        } else {
            break;
        }
    }
    at
}

/// Tokens of a pragma's text when the preprocessor gave none (no macro expansion).
fn lex_tokens(text: &str, file: FileId, base: usize) -> Vec<PpToken> {
    lexer::lex(text)
        .into_iter()
        .filter_map(|t| {
            let kind = match t.kind {
                RawKind::Newline | RawKind::Comment | RawKind::UnterminatedComment => return None,
                RawKind::Ident => PpKind::Ident,
                RawKind::Number => PpKind::Number,
                RawKind::Char => PpKind::Char,
                RawKind::Str | RawKind::UnterminatedStr => PpKind::Str,
                _ => PpKind::Punct,
            };
            Some(PpToken {
                kind,
                text: text.get(t.lo..t.hi).unwrap_or("").to_string(),
                span: Span::new(file, base + t.lo, base + t.hi),
                expansion: None,
                space_before: false,
            })
        })
        .collect()
}

/// One bracket of a scan: the character and its offset.
type Open = (u8, usize);

/// Scans `text[..end]` for brackets (outside comments, strings and character literals) and
/// returns the ones still open at `end`, outermost first.
fn open_brackets(text: &str, end: usize) -> Vec<Open> {
    let b = text.as_bytes();
    let end = end.min(b.len());
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < end {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map(|k| i + 2 + k + 2)
                    .unwrap_or(b.len());
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map(|k| i + k).unwrap_or(b.len());
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < end && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            c @ (b'(' | b'[') => stack.push((c, i)),
            b')' => {
                if let Some(k) = stack.iter().rposition(|o| o.0 == b'(') {
                    stack.truncate(k);
                }
            }
            b']' => {
                if let Some(k) = stack.iter().rposition(|o| o.0 == b'[') {
                    stack.truncate(k);
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack
}

/// The offset of the first bracket that opens a nesting deeper than [`MAX_NESTING`].
fn too_deep(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map(|k| i + 2 + k + 2)
                    .unwrap_or(b.len());
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Levenshtein distance (for "did you mean"), bounded to short words.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word` if it is within edit distance 2 (and not `word` itself).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= 2 && *d < c.len().max(word.len()))
        // On a tie, the longer word (a dropped letter is the likelier typo).
        .min_by_key(|(d, c)| (*d, std::cmp::Reverse(c.len())))
        .map(|(_, c)| c)
}

/// Parses a C integer literal (`16`, `0x10`, `020`, `16u`, `16UL`).
fn parse_c_int(s: &str) -> Option<u64> {
    let body = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = &s[body.len()..];
    let longs = suffix.chars().filter(|c| *c == 'l' || *c == 'L').count();
    let us = suffix.chars().filter(|c| *c == 'u' || *c == 'U').count();
    if longs > 2 || us > 1 {
        return None;
    }
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()
    } else {
        body.parse().ok()
    }
}

struct Cx<'a, 'd> {
    text: &'a str,
    base: usize,
    file: FileId,
    /// The whole pragma text.
    whole: Span,
    toks: Vec<PpToken>,
    int_macros: &'a [(String, i64)],
    diags: &'d mut Diags,
}

impl Cx<'_, '_> {
    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.file, self.base + lo, self.base + hi)
    }

    fn pspan(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        self.span(s.start(), s.end())
    }

    /// The tokens whose spans lie inside `sp` (tokens are in text order: a binary search finds
    /// the first).
    fn tokens_in(&self, sp: Span) -> Vec<PpToken> {
        let first = self
            .toks
            .partition_point(|t| (t.span.file, t.span.lo) < (sp.file, sp.lo));
        self.toks[first..]
            .iter()
            .take_while(|t| t.span.file == sp.file && t.span.lo < sp.hi.max(sp.lo + 1))
            .filter(|t| t.span.hi <= sp.hi)
            .cloned()
            .collect()
    }

    fn error(&mut self, d: Diag) {
        self.diags.push(d);
    }

    /// A name as written, or the identifier a macro there expands to.
    fn name(&self, p: &Pair<'_, Rule>) -> Ident {
        let span = self.pspan(p);
        let toks = self.tokens_in(span);
        let name = match toks.as_slice() {
            [t] if t.kind == PpKind::Ident => t.text.clone(),
            _ => p.as_str().to_string(),
        };
        Ident { name, span }
    }

    /// Parses the macro-expanded tokens of an `expr` pair as a C expression.
    fn expr(&mut self, p: &Pair<'_, Rule>) -> Option<Expr> {
        let span = self.pspan(p);
        let toks = self.tokens_in(span);
        if toks.len() > MAX_EXPR_TOKENS {
            self.error(
                Diag::error(span, "expression too long in a pragma")
                    .label(format!("more than {MAX_EXPR_TOKENS} tokens")),
            );
            return None;
        }
        if toks.is_empty() {
            self.error(Diag::error(span, "expected an expression").label("expected an expression"));
            return None;
        }
        let before = self.diags.0.len();
        let e = parser::parse_expr(&toks, self.diags);
        if e.is_none() && self.diags.0.len() == before {
            self.error(
                Diag::error(span, format!("`{}` is not a C expression", p.as_str()))
                    .label("expected an expression"),
            );
        }
        e
    }

    /// The pragma a failed parse still stands for: its construct, without clauses.
    fn recover(&mut self) -> Pragma {
        let text = self.text;
        let mut words = Vec::new();
        let mut at = skip_blanks(text, 0);
        while words.len() < 3 {
            let rest = text.get(at..).unwrap_or("");
            let len = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if len == 0 {
                break;
            }
            words.push((&rest[..len], at));
            at = skip_blanks(text, at + len);
        }
        let w = |k: usize| words.get(k).map(|x| x.0).unwrap_or("");
        if w(1) == "share" {
            return Pragma::Share(SharePragma {
                specs: Vec::new(),
                span: self.whole,
            });
        }
        let (construct, n) = match (w(1), w(2)) {
            ("kernels", "loop") => (Construct::KernelsLoop, 2),
            ("parallel", "loop") => (Construct::ParallelLoop, 2),
            ("serial", "loop") => (Construct::SerialLoop, 2),
            ("enter", "data") => (Construct::EnterData, 2),
            ("exit", "data") => (Construct::ExitData, 2),
            ("kernels", _) => (Construct::Kernels, 1),
            ("parallel", _) => (Construct::Parallel, 1),
            ("serial", _) => (Construct::Serial, 1),
            ("loop", _) => (Construct::Loop, 1),
            ("data", _) => (Construct::Data, 1),
            ("update", _) => (Construct::Update, 1),
            ("wait", _) => (Construct::Wait, 1),
            ("routine", _) => (Construct::Routine, 1),
            ("atomic", k) => (
                Construct::Atomic(AtomicKind::from_word(k).unwrap_or(AtomicKind::Update)),
                1,
            ),
            ("host_data", _) => (Construct::HostData, 1),
            ("declare", _) => (Construct::Declare, 1),
            ("cache", _) => (Construct::Cache, 1),
            _ => return Pragma::Foreign,
        };
        let (lo, hi) = match (words.get(1), words.get(n)) {
            (Some(a), Some(b)) => (a.1, b.1 + b.0.len()),
            _ => (0, 0),
        };
        Pragma::Acc(AccDirective {
            construct,
            construct_span: self.span(lo, hi),
            clauses: Vec::new(),
            cache: Vec::new(),
            span: self.whole,
        })
    }

    // -----------------------------------------------------------------------------------------
    // Syntax errors.

    fn syntax_error(&mut self, e: &pest::error::Error<Rule>) {
        let pos = match e.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((a, _)) => a,
        }
        .min(self.text.len());
        let rules: Vec<Rule> = match &e.variant {
            ErrorVariant::ParsingError { positives, .. } => positives.clone(),
            ErrorVariant::CustomError { .. } => {
                let sp = self.span(pos, pos);
                self.error(Diag::error(sp, "pragma too complex to parse").label("here"));
                return;
            }
        };
        let text = self.text;
        let at_end = skip_blanks(text, pos) >= text.len();
        // What is at the failing position.
        let (found, found_len) = if at_end {
            (String::new(), 0)
        } else {
            let rest = &text[pos..];
            let n = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let n = if n == 0 {
                rest.chars().next().map(char::len_utf8).unwrap_or(0)
            } else {
                n
            };
            (rest[..n].to_string(), n)
        };
        let expected = describe_expected(&rules);
        let opens = open_brackets(text, pos);
        // The clause or directive whose parentheses hold the position.
        let context = opens.first().and_then(|&(c, at)| {
            if c != b'(' {
                return None;
            }
            let before = text[..at].trim_end();
            let n = before
                .bytes()
                .rev()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let word = &before[before.len() - n..];
            if word.is_empty() {
                return None;
            }
            let what = if matches!(word, "share" | "cache") {
                "directive"
            } else {
                "clause"
            };
            let inside: String = text[at + 1..pos]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            Some((word.to_string(), what, inside, at))
        });
        let mut msg = match &context {
            Some((word, what, ..)) => format!("malformed `{word}` {what}: "),
            None => String::new(),
        };
        let mut label = String::new();
        match &expected {
            Some(exp) => {
                msg.push_str(&format!("expected {exp}"));
                label = format!("expected {exp}");
            }
            None if at_end => msg.push_str("unexpected end of pragma line"),
            None => msg.push_str(&format!("unexpected `{found}`")),
        }
        if expected.is_some() {
            match &context {
                _ if at_end => msg.push_str(" before end of pragma line"),
                Some((_, _, inside, _)) if !inside.is_empty() && inside.len() <= 24 => {
                    msg.push_str(&format!(" after `{inside}`"))
                }
                _ => msg.push_str(&format!(", found `{found}`")),
            }
        }
        let mut d = Diag::error(self.span(pos, pos + found_len), msg);
        if !label.is_empty() {
            d = d.label(label);
        }
        let closer_expected = rules
            .iter()
            .any(|r| matches!(r, Rule::rparen | Rule::rbrack));
        // At the end of the line every bracket still open is worth showing (innermost first);
        // elsewhere only the one the expected closer would close.
        let shown = if at_end {
            opens.len().min(3)
        } else if closer_expected {
            opens.len().min(1)
        } else {
            0
        };
        for &(c, at) in opens.iter().rev().take(shown) {
            let of = match &context {
                Some((word, _, _, cat)) if *cat == at => format!(" of `{word}`"),
                _ => String::new(),
            };
            d = d.with_label(
                self.span(at, at + 1),
                format!("unclosed `{}`{of}", c as char),
            );
        }
        self.error(d);
    }

    // -----------------------------------------------------------------------------------------
    // Building the pragma from the parse tree.

    fn build(&mut self, top: Pair<'_, Rule>) -> Pragma {
        for p in top.into_inner() {
            match p.as_rule() {
                Rule::share_directive => return Pragma::Share(self.share(p)),
                Rule::directive => return Pragma::Acc(self.directive(p)),
                Rule::unknown_directive => {
                    let Some(word) = p.into_inner().find(|c| c.as_rule() == Rule::ident) else {
                        return Pragma::Foreign;
                    };
                    let w = word.as_str();
                    let mut d = Diag::warning(
                        self.pspan(&word),
                        format!("unknown OpenACC directive `{w}` ignored"),
                    )
                    .label("unknown directive");
                    if let Some(s) = did_you_mean(w, DIRECTIVE_NAMES.iter().copied()) {
                        d = d.help(format!("did you mean `{s}`?"));
                    }
                    self.diags.push(d);
                    return Pragma::Foreign;
                }
                _ => {}
            }
        }
        Pragma::Foreign
    }
}

/// A partition size with more than [`MAX_PART_OPERANDS`] operands.
fn too_many_operands(p: &Pair<'_, Rule>) -> bool {
    p.clone()
        .into_inner()
        .flatten()
        .filter(|x| matches!(x.as_rule(), Rule::part_int | Rule::part_name))
        .nth(MAX_PART_OPERANDS)
        .is_some()
}

/// Turns the rules pest tried at the failing position into readable words (`` `]` ``, "an
/// expression"); `None` if none of them has a name.
fn describe_expected(rules: &[Rule]) -> Option<String> {
    // (rank, text, is a closing bracket)
    let mut names: Vec<(u8, &'static str, bool)> = Vec::new();
    for r in rules {
        let n: (u8, &'static str, bool) = match r {
            Rule::rparen => (0, "`)`", true),
            Rule::rbrack => (0, "`]`", true),
            Rule::lparen | Rule::balanced | Rule::wait_args => (1, "`(`", false),
            Rule::lbrack | Rule::part_dim | Rule::sub_range => (1, "`[`", false),
            Rule::colon => (1, "`:`", false),
            Rule::comma => (2, "`,`", false),
            Rule::star => (3, "`*`", false),
            Rule::construct | Rule::kw_share => (4, "an OpenACC directive", false),
            Rule::kw_loop => (4, "`loop`", false),
            Rule::kw_data => (4, "`data`", false),
            Rule::clause => (4, "a clause", false),
            Rule::array_name | Rule::subarray | Rule::subarray_list | Rule::array_spec => {
                (4, "an array name", false)
            }
            Rule::var | Rule::var_list => (4, "a variable name", false),
            Rule::hint => (4, "a share modifier (`coalesce`)", false),
            Rule::red_op | Rule::red_word => (
                4,
                "a reduction operator (`+`, `*`, `max`, `min`, `&`, `|`, `^`, `&&` or `||`)",
                false,
            ),
            Rule::part_expr
            | Rule::part_term
            | Rule::part_factor
            | Rule::part_int
            | Rule::part_name
            | Rule::part_paren => (
                4,
                "a partition size (an integer, `TB_X`, `TB_Y` or `TB_Z`)",
                false,
            ),
            Rule::expr
            | Rule::cast
            | Rule::sizeof_expr
            | Rule::number
            | Rule::char_lit
            | Rule::string_lit
            | Rule::tile_size => (4, "an expression", false),
            Rule::type_name | Rule::type_word => (4, "a type", false),
            Rule::ident => (4, "a name", false),
            Rule::question
            | Rule::binop
            | Rule::postfix
            | Rule::prefix_op
            | Rule::add_op
            | Rule::mul_op => (5, "an operator", false),
            Rule::EOI => (6, "end of pragma line", false),
            _ => continue,
        };
        if !names.iter().any(|x| x.1 == n.1) {
            names.push(n);
        }
    }
    if names.iter().any(|n| n.2) {
        names.retain(|n| n.2);
    }
    if names.iter().any(|n| n.1 == "a clause") {
        names.retain(|n| !matches!(n.1, "`,`" | "`loop`"));
    }
    if names.iter().any(|n| n.1 == "an OpenACC directive") {
        names.retain(|n| n.1 != "a name");
    }
    names.sort_by_key(|n| n.0);
    let words: Vec<&str> = names.iter().map(|n| n.1).collect();
    match words.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        [init @ .., last] => Some(format!("{} or {last}", init.join(", "))),
    }
}

#[cfg(test)]
mod tests;
