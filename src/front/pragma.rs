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

mod print;

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
            ("atomic", _) => (Construct::Atomic, 1),
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

    fn share(&mut self, p: Pair<'_, Rule>) -> SharePragma {
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

    fn directive(&mut self, p: Pair<'_, Rule>) -> AccDirective {
        let mut dir = AccDirective {
            construct: Construct::Kernels,
            construct_span: self.whole,
            clauses: Vec::new(),
            cache: Vec::new(),
            span: self.whole,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::construct => {
                    if let Some(k) = c.into_inner().next() {
                        self.construct(k, &mut dir);
                    }
                }
                Rule::clause_list => {
                    for cl in c.into_inner() {
                        if cl.as_rule() != Rule::clause {
                            continue;
                        }
                        if let Some(inner) = cl.into_inner().next() {
                            if let Some(clause) = self.clause(inner) {
                                dir.clauses.push(clause);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        self.check_clauses(&mut dir);
        dir
    }

    /// Drops (with a warning) clauses that do not apply to the construct, and reports arrays
    /// named in two data clauses.
    fn check_clauses(&mut self, dir: &mut AccDirective) {
        let construct = dir.construct.clone();
        let mut kept = Vec::with_capacity(dir.clauses.len());
        for c in std::mem::take(&mut dir.clauses) {
            if clause_applies(&construct, &c.kind) {
                kept.push(c);
                continue;
            }
            let mut d = Diag::warning(
                c.span,
                format!(
                    "clause `{}` does not apply to `#pragma acc {}` and is ignored",
                    c.kind.name(),
                    construct.name()
                ),
            )
            .label("ignored");
            if matches!(c.kind, ClauseKind::Data { .. }) && construct == Construct::Loop {
                d = d.help("data clauses belong on the compute construct (`kernels`, `parallel`) or on a `data` construct");
            }
            self.diags.push(d);
        }
        dir.clauses = kept;
        let mut seen: Vec<&Ident> = Vec::new();
        for c in &dir.clauses {
            let ClauseKind::Data { vars, .. } = &c.kind else {
                continue;
            };
            for v in vars {
                match seen.iter().find(|s| s.name == v.name.name) {
                    Some(first) => self.diags.push(
                        Diag::error(
                            v.name.span,
                            format!("`{}` appears in more than one data clause", v.name.name),
                        )
                        .label("again here")
                        .with_label(first.span, "first here"),
                    ),
                    None => seen.push(&v.name),
                }
            }
        }
    }

    fn construct(&mut self, k: Pair<'_, Rule>, dir: &mut AccDirective) {
        let whole = self.pspan(&k);
        let rule = k.as_rule();
        dir.construct = match rule {
            Rule::c_kernels_loop => Construct::KernelsLoop,
            Rule::c_parallel_loop => Construct::ParallelLoop,
            Rule::c_serial_loop => Construct::SerialLoop,
            Rule::c_kernels => Construct::Kernels,
            Rule::c_parallel => Construct::Parallel,
            Rule::c_serial => Construct::Serial,
            Rule::c_loop => Construct::Loop,
            Rule::c_data => Construct::Data,
            Rule::c_enter_data => Construct::EnterData,
            Rule::c_exit_data => Construct::ExitData,
            Rule::c_update => Construct::Update,
            Rule::c_wait => Construct::Wait,
            Rule::c_routine => Construct::Routine,
            Rule::c_atomic => Construct::Atomic,
            Rule::c_host_data => Construct::HostData,
            Rule::c_declare => Construct::Declare,
            _ => Construct::Cache,
        };
        dir.construct_span = whole;
        let inner: Vec<Pair<'_, Rule>> = k.into_inner().collect();
        if matches!(
            rule,
            Rule::c_wait | Rule::c_cache | Rule::c_routine | Rule::c_atomic
        ) {
            if let Some(kw) = inner.first() {
                dir.construct_span = self.pspan(kw);
            }
        }
        for c in inner {
            match c.as_rule() {
                Rule::wait_args => {
                    let list = self.expr_list(c.clone());
                    dir.clauses.push(Clause {
                        kind: ClauseKind::Wait(list),
                        span: self.pspan(&c),
                    });
                }
                Rule::subarray_list => dir.cache = self.subarray_list(c),
                _ => {}
            }
        }
    }

    fn expr_list(&mut self, p: Pair<'_, Rule>) -> Vec<Expr> {
        let mut out = Vec::new();
        for e in p.into_inner() {
            if e.as_rule() == Rule::expr {
                if let Some(x) = self.expr(&e) {
                    out.push(x);
                }
            }
        }
        out
    }

    fn first_expr(&mut self, p: &Pair<'_, Rule>) -> Option<Option<Expr>> {
        match p.clone().into_inner().find(|c| c.as_rule() == Rule::expr) {
            None => Some(None),
            Some(e) => self.expr(&e).map(Some),
        }
    }

    fn subarray_list(&mut self, p: Pair<'_, Rule>) -> Vec<SubArray> {
        p.into_inner()
            .filter(|c| c.as_rule() == Rule::subarray)
            .map(|c| self.subarray(c))
            .collect()
    }

    fn subarray(&mut self, p: Pair<'_, Rule>) -> SubArray {
        let span = self.pspan(&p);
        let mut name = Ident {
            name: String::new(),
            span,
        };
        let mut dims = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::array_name => name = self.name(&c),
                Rule::sub_range => {
                    let rspan = self.pspan(&c);
                    let mut start = None;
                    let mut len = None;
                    let mut colon = false;
                    let mut any = false;
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::colon => colon = true,
                            Rule::expr => {
                                any = true;
                                let e = self.expr(&x);
                                if colon {
                                    len = e;
                                } else {
                                    start = e;
                                }
                            }
                            _ => {}
                        }
                    }
                    if !colon && !any {
                        self.diags.push(
                            Diag::error(rspan, "empty subscript in a subarray")
                                .label("expected an element or a range")
                                .help(
                                    "write `a[i]` for one element or `a[start:length]` for a range",
                                ),
                        );
                    }
                    dims.push(SubRange {
                        start,
                        len,
                        single: !colon,
                        span: rspan,
                    });
                }
                _ => {}
            }
        }
        SubArray { name, dims, span }
    }

    fn clause(&mut self, p: Pair<'_, Rule>) -> Option<Clause> {
        let span = self.pspan(&p);
        let rule = p.as_rule();
        let kind = match rule {
            Rule::cl_independent => ClauseKind::Independent,
            Rule::cl_seq => ClauseKind::Seq,
            Rule::cl_auto => ClauseKind::Auto,
            Rule::cl_gang => ClauseKind::Gang(self.first_expr(&p)?),
            Rule::cl_worker => ClauseKind::Worker(self.first_expr(&p)?),
            Rule::cl_vector => ClauseKind::Vector(self.first_expr(&p)?),
            Rule::cl_num_gangs => ClauseKind::NumGangs(self.first_expr(&p)??),
            Rule::cl_num_workers => ClauseKind::NumWorkers(self.first_expr(&p)??),
            Rule::cl_vector_length => ClauseKind::VectorLength(self.first_expr(&p)??),
            Rule::cl_if => ClauseKind::If(self.first_expr(&p)??),
            Rule::cl_async => ClauseKind::Async(self.first_expr(&p)?),
            Rule::cl_collapse => {
                let e = p.clone().into_inner().find(|c| c.as_rule() == Rule::expr)?;
                ClauseKind::Collapse(self.collapse_count(&e)?)
            }
            Rule::cl_reduction => {
                let mut op = RedOp::Add;
                let mut vars = Vec::new();
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::red_op => {
                            op = match c.as_str() {
                                "+" => RedOp::Add,
                                "*" => RedOp::Mul,
                                "max" => RedOp::Max,
                                "min" => RedOp::Min,
                                "&" => RedOp::BitAnd,
                                "|" => RedOp::BitOr,
                                "^" => RedOp::BitXor,
                                "&&" => RedOp::LogAnd,
                                _ => RedOp::LogOr,
                            }
                        }
                        Rule::var_list => {
                            for v in c.into_inner() {
                                if v.as_rule() == Rule::var {
                                    vars.push(self.name(&v));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                ClauseKind::Reduction { op, vars }
            }
            Rule::cl_private | Rule::cl_firstprivate => {
                let mut vars = Vec::new();
                let name = if rule == Rule::cl_private {
                    "private"
                } else {
                    "firstprivate"
                };
                for c in p.into_inner() {
                    if c.as_rule() == Rule::subarray_list {
                        for s in self.subarray_list(c) {
                            if !s.dims.is_empty() {
                                self.diags.push(
                                    Diag::warning(
                                        s.span,
                                        format!("subarray bounds in `{name}` are ignored"),
                                    )
                                    .label(format!("the whole `{}` is {name}", s.name.name)),
                                );
                            }
                            vars.push(s.name);
                        }
                    }
                }
                if rule == Rule::cl_private {
                    ClauseKind::Private(vars)
                } else {
                    ClauseKind::FirstPrivate(vars)
                }
            }
            Rule::cl_data => {
                let mut kind = DataKind::Copy;
                let mut vars = Vec::new();
                for c in p.into_inner() {
                    match c.as_rule() {
                        Rule::data_kw => {
                            kind = match c.as_str() {
                                "copy" | "pcopy" | "present_or_copy" => DataKind::Copy,
                                "copyin" | "pcopyin" | "present_or_copyin" => DataKind::CopyIn,
                                "copyout" | "pcopyout" | "present_or_copyout" => DataKind::CopyOut,
                                "create" | "pcreate" | "present_or_create" => DataKind::Create,
                                "present" => DataKind::Present,
                                "deviceptr" => DataKind::DevicePtr,
                                "no_create" => DataKind::NoCreate,
                                "delete" => DataKind::Delete,
                                "host" | "self" => DataKind::Host,
                                _ => DataKind::Device,
                            }
                        }
                        Rule::subarray_list => vars = self.subarray_list(c),
                        _ => {}
                    }
                }
                ClauseKind::Data { kind, vars }
            }
            Rule::cl_wait => {
                let list = match p.into_inner().find(|c| c.as_rule() == Rule::wait_args) {
                    Some(a) => self.expr_list(a),
                    None => Vec::new(),
                };
                ClauseKind::Wait(list)
            }
            Rule::cl_tile => {
                let mut list = Vec::new();
                for t in p.into_inner() {
                    if t.as_rule() != Rule::tile_size {
                        continue;
                    }
                    let Some(x) = t.into_inner().next() else {
                        continue;
                    };
                    if x.as_rule() == Rule::star {
                        self.diags.push(
                            Diag::error(self.pspan(&x), "`tile(*)` is not supported")
                                .label("give the tile size here"),
                        );
                        return None;
                    }
                    list.push(self.expr(&x)?);
                }
                ClauseKind::Tile(list)
            }
            Rule::cl_ignored => {
                let word = p
                    .into_inner()
                    .next()
                    .map(|w| w.as_str().to_string())
                    .unwrap_or_default();
                if !matches!(
                    word.as_str(),
                    "default" | "if_present" | "finalize" | "nohost"
                ) {
                    self.diags.push(
                        Diag::warning(
                            span,
                            format!("clause `{word}` is not supported by accshare and is ignored"),
                        )
                        .label("ignored"),
                    );
                }
                return None;
            }
            _ => {
                // cl_unknown
                let word = p.into_inner().find(|c| c.as_rule() == Rule::ident)?;
                let w = word.as_str().to_string();
                let mut d =
                    Diag::warning(self.pspan(&word), format!("unknown clause `{w}` ignored"))
                        .label("unknown clause");
                if w == "share" {
                    d = d.help(
                        "`share` is a directive of its own: write `#pragma acc share(…)` on the line before the compute construct",
                    );
                } else if let Some(s) = did_you_mean(&w, CLAUSE_NAMES.iter().copied()) {
                    d = d.help(format!("did you mean `{s}`?"));
                }
                self.diags.push(d);
                ClauseKind::Unknown(w)
            }
        };
        Some(Clause { kind, span })
    }

    /// The `n` of `collapse(n)`: a positive integer literal or integer macro.
    fn collapse_count(&mut self, e: &Pair<'_, Rule>) -> Option<u32> {
        let sp = self.pspan(e);
        let raw = e.as_str().trim();
        let value = match self.int_macros.iter().rev().find(|(n, _)| n == raw) {
            Some((_, v)) => Some(*v),
            None => match self.expr(e) {
                Some(Expr {
                    kind: ExprKind::Int { value, .. },
                    ..
                }) => i64::try_from(value).ok(),
                Some(_) => None,
                None => return None,
            },
        };
        match value {
            Some(v) if (1..=64).contains(&v) => Some(v as u32),
            Some(v) if v > 64 => {
                self.diags.push(
                    Diag::error(sp, format!("`collapse({v})` is too deep"))
                        .label("at most 64 loops"),
                );
                None
            }
            _ => {
                self.diags.push(
                    Diag::error(sp, "`collapse` needs a positive integer constant")
                        .label("expected a positive integer"),
                );
                None
            }
        }
    }
}

/// Whether OpenACC allows a clause on a construct (unknown clauses were reported already).
fn clause_applies(c: &Construct, k: &ClauseKind) -> bool {
    use ClauseKind as K;
    use DataKind as D;
    const COMPUTE_DATA: &[DataKind] = &[
        D::Copy,
        D::CopyIn,
        D::CopyOut,
        D::Create,
        D::Present,
        D::DevicePtr,
        D::NoCreate,
    ];
    let data = |kinds: &[DataKind]| matches!(k, K::Data { kind, .. } if kinds.contains(kind));
    let loop_clause = matches!(
        k,
        K::Independent
            | K::Seq
            | K::Auto
            | K::Gang(_)
            | K::Worker(_)
            | K::Vector(_)
            | K::Collapse(_)
            | K::Tile(_)
            | K::Private(_)
            | K::Reduction { .. }
    );
    let sync = matches!(k, K::If(_) | K::Async(_) | K::Wait(_));
    let kernels = sync
        || matches!(k, K::NumGangs(_) | K::NumWorkers(_) | K::VectorLength(_))
        || data(COMPUTE_DATA);
    let serial = sync
        || matches!(k, K::Private(_) | K::FirstPrivate(_) | K::Reduction { .. })
        || data(COMPUTE_DATA);
    let parallel = kernels || serial;
    if matches!(k, K::Unknown(_)) {
        return true;
    }
    match c {
        Construct::Kernels => kernels,
        Construct::Parallel => parallel,
        Construct::Serial => serial,
        Construct::Loop => loop_clause,
        Construct::KernelsLoop => kernels || loop_clause,
        Construct::ParallelLoop => parallel || loop_clause,
        Construct::SerialLoop => serial || loop_clause,
        Construct::Data => sync || data(COMPUTE_DATA),
        Construct::EnterData => sync || data(&[D::CopyIn, D::Create]),
        Construct::ExitData => sync || data(&[D::CopyOut, D::Delete]),
        Construct::Update => sync || data(&[D::Host, D::Device]),
        Construct::Wait => matches!(k, K::Async(_) | K::Wait(_)),
        Construct::Routine => matches!(k, K::Gang(_) | K::Worker(_) | K::Vector(_) | K::Seq),
        Construct::HostData => matches!(k, K::If(_)),
        Construct::Declare => data(COMPUTE_DATA),
        Construct::Atomic | Construct::Cache => false,
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

// ---------------------------------------------------------------------------------------------
// Canonical source form.

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
            ClauseKind::NumGangs(e)
            | ClauseKind::NumWorkers(e)
            | ClauseKind::VectorLength(e)
            | ClauseKind::If(e) => write!(f, "{name}({})", expr_to_c(e)),
            ClauseKind::Collapse(n) => write!(f, "collapse({n})"),
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
            ClauseKind::Data { vars, .. } => {
                write!(f, "{name}(")?;
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
                write_exprs(f, es)?;
                f.write_str(")")
            }
            ClauseKind::Unknown(s) => f.write_str(s),
        }
    }
}

impl fmt::Display for AccDirective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "acc {}", self.construct.name())?;
        let mut clauses = self.clauses.as_slice();
        match self.construct {
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

#[cfg(test)]
mod tests;
