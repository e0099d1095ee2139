//! The C preprocessor: `#define`/`#undef` (object- and function-like, `#`, `##`, variadic),
//! `#include "local.h"` (relative to the including file, then `-I` directories; `<system>` includes
//! are recorded and not read), conditionals with `defined` and integer expressions, `#error`,
//! `#pragma` lines (kept as [`PpKind::Pragma`] tokens; `acc` pragmas are macro-expanded as
//! OpenACC compilers do), `-D NAME[=VALUE]`.
//!
//! Spans survive expansion: a token produced by a macro carries the span of the macro *use* in
//! the user's file, and [`PpToken::expansion`] names the expansion (macro name, definition site)
//! so a diagnostic can add "in this expansion of macro `N`".
//!
//! Invariant: never panics, never loops forever, never recurses without a bound; every problem is a
//! [`Diag`] and preprocessing goes on after it.
//!
//! How expansion works (as in GCC): a `Run` is a stack of macro contexts over a base (the file
//! stack, or a token list for a directive line or a macro argument). While a macro's context is on
//! the stack the macro is disabled, and an identifier naming a disabled macro is "painted" so it
//! is never expanded later. Arguments are pre-expanded in a nested run (the only recursion,
//! bounded by `MAX_ARG_NESTING`). One outermost expansion may produce at most
//! `MAX_EXPANSION_TOKENS` tokens and the whole file `MAX_TOTAL_EXPANSION_TOKENS`; includes are
//! bounded in depth (`MAX_INCLUDE_DEPTH`) and number (`MAX_INCLUDES`); `#if` expressions
//! (`expr`) bound their nesting. Tokens are `Copy` with interned spellings.

mod expr;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::diag::{Diag, Diags, FileId, SourceMap, Span};
use crate::front::lexer::{lex, RawKind, RawToken};

#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    /// `-D NAME[=VALUE]` (no value means `1`).
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`, searched after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PpKind {
    Ident,
    Number,
    Char,
    Str,
    Punct,
    /// A `#pragma` line; the index into [`PpOutput::pragmas`].
    Pragma(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpToken {
    pub kind: PpKind,
    /// The token's spelling (for `Pragma`, empty).
    pub text: String,
    /// Where the token is in the user's text: its own span, or the span of the outermost macro
    /// use it came from.
    pub span: Span,
    /// Index into [`PpOutput::expansions`] if the token came from a macro expansion.
    pub expansion: Option<u32>,
    /// Whitespace preceded the token (needed to re-spell token sequences).
    pub space_before: bool,
}

/// One macro expansion (the outermost one a token came from).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    pub name: String,
    /// The macro's definition (its name in the `#define` line).
    pub def_span: Span,
    /// The macro use (name and arguments).
    pub use_span: Span,
}

/// A `#pragma` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PragmaLine {
    /// The text after `#pragma` (leading/trailing blanks trimmed), in its file.
    pub span: Span,
    /// The tokens of that text; for `#pragma acc …` lines macro-expanded (each expanded token
    /// carries the span of its macro use, which lies inside `span`).
    pub tokens: Vec<PpToken>,
    /// The whole line from `#` to the end of the line (for replacing it in output text).
    pub line_span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct PpOutput {
    pub tokens: Vec<PpToken>,
    pub pragmas: Vec<PragmaLine>,
    pub expansions: Vec<Expansion>,
    /// `#include <…>` lines seen (the header name and the line's span), in order.
    pub system_includes: Vec<(String, Span)>,
    /// Final value of every object-like macro whose body is one integer literal (e.g. `N` →
    /// `1024`), used to show sizes symbolically and by `share` partitions that name a macro.
    pub int_macros: Vec<(String, i64)>,
}

/// Preprocesses `main` (already in `sources`); local includes are read and added to `sources`.
///
/// Besides `main`, two pseudo files are added to `sources`: `<built-in>` (the predefined macros)
/// and, when `opts.defines` is not empty, `<command line>` (one `-DNAME=VALUE` line per define,
/// which the definitions' spans point into).
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    opts: &PpOptions,
    diags: &mut Diags,
) -> PpOutput {
    preprocess_limited(sources, main, opts, diags, MAX_TOTAL_EXPANSION_TOKENS)
}

fn preprocess_limited(
    sources: &mut SourceMap,
    main: FileId,
    opts: &PpOptions,
    diags: &mut Diags,
    total_limit: usize,
) -> PpOutput {
    let mut pp = Pp::new(sources, opts, diags);
    pp.total_limit = total_limit;
    pp.run_main(main);
    pp.finish()
}

/// More nested `#include`s than this is an error.
const MAX_INCLUDE_DEPTH: usize = 64;
/// More `#include`s in one translation unit than this is an error (stops include bombs).
const MAX_INCLUDES: usize = 20_000;
/// One outermost macro expansion may produce at most this many tokens (all rescans included).
const MAX_EXPANSION_TOKENS: usize = 1_000_000;
/// All expansions of a translation unit together may produce at most this many tokens; after
/// that, macros are no longer expanded (bounds the time and memory of any input).
const MAX_TOTAL_EXPANSION_TOKENS: usize = 50_000_000;
/// Macro arguments are expanded recursively; this bounds the recursion.
const MAX_ARG_NESTING: usize = 100;
/// Lexical errors reported per file before the rest are suppressed.
const MAX_LEX_ERRORS_PER_FILE: usize = 100;

// ---------------------------------------------------------------------------------------------
// Interning

/// A small, fast, non-cryptographic hasher (FxHash) for the interner.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.add(u64::from_le_bytes(a));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxBuild = BuildHasherDefault<FxHasher>;

/// An interned token spelling.
type Sym = u32;

#[derive(Default)]
struct Interner {
    map: HashMap<Rc<str>, Sym, FxBuild>,
    strs: Vec<Rc<str>>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let rc: Rc<str> = Rc::from(s);
        let id = self.strs.len() as Sym;
        self.strs.push(rc.clone());
        self.map.insert(rc, id);
        id
    }

    fn get(&self, s: Sym) -> &str {
        self.strs.get(s as usize).map_or("", |r| r)
    }
}

/// Spellings the preprocessor compares against.
struct Syms {
    lparen: Sym,
    rparen: Sym,
    comma: Sym,
    hash: Sym,
    hashhash: Sym,
    ellipsis: Sym,
    lt: Sym,
    gt: Sym,
    minus: Sym,
    plus: Sym,
    va_args: Sym,
    defined: Sym,
    pragma_op: Sym,
    acc: Sym,
    once: Sym,
    one: Sym,
    zero: Sym,
}

impl Syms {
    fn new(i: &mut Interner) -> Syms {
        Syms {
            lparen: i.intern("("),
            rparen: i.intern(")"),
            comma: i.intern(","),
            hash: i.intern("#"),
            hashhash: i.intern("##"),
            ellipsis: i.intern("..."),
            lt: i.intern("<"),
            gt: i.intern(">"),
            minus: i.intern("-"),
            plus: i.intern("+"),
            va_args: i.intern("__VA_ARGS__"),
            defined: i.intern("defined"),
            pragma_op: i.intern("_Pragma"),
            acc: i.intern("acc"),
            once: i.intern("once"),
            one: i.intern("1"),
            zero: i.intern("0"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens, macros, state

/// Internal token kinds (`Placemarker` and `PasteOp` only live during `##` processing).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TK {
    Ident,
    Number,
    Char,
    Str,
    Punct,
    Placemarker,
    PasteOp,
}

const NO_EXP: u32 = u32::MAX;

/// An internal token: `Copy`, spelling interned.
#[derive(Copy, Clone, Debug)]
struct Tok {
    kind: TK,
    sym: Sym,
    span: Span,
    space: bool,
    /// "Painted blue": names a macro that was disabled when the token was seen; never expanded.
    noexpand: bool,
    /// Expansion index (`NO_EXP` if none), set when the token leaves a top-level run.
    exp: u32,
}

impl Tok {
    fn new(kind: TK, sym: Sym, span: Span, space: bool) -> Tok {
        Tok {
            kind,
            sym,
            span,
            space,
            noexpand: false,
            exp: NO_EXP,
        }
    }
}

fn tk_of(k: RawKind) -> TK {
    match k {
        RawKind::Ident => TK::Ident,
        RawKind::Number => TK::Number,
        RawKind::Char => TK::Char,
        RawKind::Str => TK::Str,
        _ => TK::Punct,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Builtin {
    File,
    Line,
}

/// A body token; `param` is the index of the parameter it names (function-like macros).
#[derive(Copy, Clone, Debug)]
struct BTok {
    tok: Tok,
    param: Option<u32>,
}

#[derive(Debug)]
struct Macro {
    name: Sym,
    def_span: Span,
    func: bool,
    /// Parameter names; a variadic macro's last one is `__VA_ARGS__` (or the GNU named one).
    params: Vec<Sym>,
    variadic: bool,
    body: Vec<BTok>,
    builtin: Option<Builtin>,
    /// Definition order (for a deterministic `int_macros`).
    order: usize,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CondState {
    /// This branch is being taken.
    Taking,
    /// No branch taken yet (the enclosing region is active).
    Waiting,
    /// A branch was already taken.
    Done,
    /// The enclosing region is inactive.
    Dead,
}

struct Cond {
    state: CondState,
    else_span: Option<Span>,
    /// `#if`, `#ifdef` or `#ifndef` (from `#` to the directive name).
    span: Span,
    name: &'static str,
}

struct FileState {
    file: FileId,
    text: Rc<str>,
    toks: Rc<Vec<RawToken>>,
    pos: usize,
    /// At the beginning of a line (a `#` here starts a directive).
    bol: bool,
    /// `conds.len()` when the file was entered.
    cond_base: usize,
    lex_errors: usize,
    /// Canonical path (for `#pragma once`); empty for pseudo files.
    key: PathBuf,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RunKind {
    /// The translation unit: tokens come from the file stack.
    Base,
    /// Pre-expansion of one macro argument (no spans rewritten, no expansions recorded).
    Args,
    /// A directive's tokens (`#if`, `#include`, `#pragma acc`); `record` adds [`Expansion`]s.
    Directive { record: bool },
}

#[derive(Copy, Clone, Debug)]
struct Outer {
    span: Span,
    exp: Option<u32>,
}

/// One macro expansion being rescanned; `mac` is disabled while it is on the stack.
struct Ctx {
    toks: Vec<Tok>,
    pos: usize,
    mac: Option<Sym>,
}

/// One expansion "world": a context stack over a base (the files, or a token list).
struct Run {
    kind: RunKind,
    ctx: Vec<Ctx>,
    list: Vec<Tok>,
    list_pos: usize,
    /// The outermost macro use the tokens now coming out of `ctx` belong to.
    outer: Option<Outer>,
}

impl Run {
    fn new(kind: RunKind, list: Vec<Tok>) -> Run {
        Run {
            kind,
            ctx: Vec::new(),
            list,
            list_pos: 0,
            outer: None,
        }
    }
}

type CachedFile = (FileId, Rc<str>, Rc<Vec<RawToken>>);

struct Pp<'a> {
    sources: &'a mut SourceMap,
    opts: &'a PpOptions,
    diags: &'a mut Diags,
    int: Interner,
    s: Syms,
    /// Indexed by the macro name's symbol.
    macros: Vec<Option<Rc<Macro>>>,
    /// Indexed by symbol: how many contexts of that macro are on the stacks.
    disabled: Vec<u32>,
    def_order: usize,
    files: Vec<FileState>,
    conds: Vec<Cond>,
    run: Run,
    /// Tokens produced by the current outermost expansion.
    work: usize,
    /// The current outermost expansion is being abandoned (too large, too deep).
    aborted: bool,
    /// Tokens produced by all expansions, and the limit on it.
    total_work: usize,
    total_limit: usize,
    /// The total limit was reached: macros are no longer expanded.
    exhausted: bool,
    arg_depth: usize,
    include_count: usize,
    include_limit_reported: bool,
    file_cache: HashMap<PathBuf, CachedFile>,
    once: HashSet<PathBuf>,
    /// `#include` lines already reported as nested too deeply.
    too_deep: HashSet<Span>,
    builtin_file: FileId,
    out: PpOutput,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Lexes `text[lo..hi]`, with offsets relative to `text`.
fn lex_at(text: &str, lo: usize, hi: usize) -> Vec<RawToken> {
    let Some(s) = text.get(lo..hi) else {
        return Vec::new();
    };
    lex(s)
        .into_iter()
        .map(|t| RawToken {
            kind: t.kind,
            lo: t.lo + lo,
            hi: t.hi + lo,
        })
        .collect()
}

fn escape_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            o.push('\\');
        }
        o.push(c);
    }
    o.push('"');
    o
}

impl<'a> Pp<'a> {
    fn new(sources: &'a mut SourceMap, opts: &'a PpOptions, diags: &'a mut Diags) -> Pp<'a> {
        let mut int = Interner::default();
        let s = Syms::new(&mut int);
        Pp {
            sources,
            opts,
            diags,
            int,
            s,
            macros: Vec::new(),
            disabled: Vec::new(),
            def_order: 0,
            files: Vec::new(),
            conds: Vec::new(),
            run: Run::new(RunKind::Base, Vec::new()),
            work: 0,
            aborted: false,
            total_work: 0,
            total_limit: MAX_TOTAL_EXPANSION_TOKENS,
            exhausted: false,
            arg_depth: 0,
            include_count: 0,
            include_limit_reported: false,
            file_cache: HashMap::new(),
            once: HashSet::new(),
            too_deep: HashSet::new(),
            builtin_file: 0,
            out: PpOutput::default(),
        }
    }

    // ----- small helpers

    fn is_punct(&self, t: &Tok, sym: Sym) -> bool {
        t.kind == TK::Punct && t.sym == sym
    }

    fn text_of(&self, t: &Tok) -> String {
        self.int.get(t.sym).to_string()
    }

    fn lookup(&self, sym: Sym) -> Option<Rc<Macro>> {
        self.macros.get(sym as usize).and_then(|m| m.clone())
    }

    fn is_macro(&self, sym: Sym) -> bool {
        matches!(self.macros.get(sym as usize), Some(Some(_)))
    }

    fn error(&mut self, d: Diag) {
        self.diags.push(d);
    }

    fn active(&self) -> bool {
        self.conds
            .last()
            .map_or(true, |c| c.state == CondState::Taking)
    }

    fn cond_base(&self) -> usize {
        self.files.last().map_or(0, |f| f.cond_base)
    }

    fn push_file(&mut self, file: FileId, text: Rc<str>, toks: Rc<Vec<RawToken>>, key: PathBuf) {
        self.files.push(FileState {
            file,
            text,
            toks,
            pos: 0,
            bol: true,
            cond_base: self.conds.len(),
            lex_errors: 0,
            key,
        });
    }

    /// Converts a directive line's raw tokens (reporting lexical errors when `report`).
    fn line_toks(&mut self, file: FileId, text: &str, raws: &[RawToken], report: bool) -> Vec<Tok> {
        let mut out = Vec::with_capacity(raws.len());
        let mut prev_hi: Option<usize> = None;
        for r in raws {
            match r.kind {
                RawKind::Newline | RawKind::Comment => continue,
                RawKind::UnterminatedComment | RawKind::UnterminatedStr | RawKind::Error => {
                    // Unterminated comments on directive lines are reported by `directive`.
                    if report && (r.kind != RawKind::UnterminatedComment || self.files.is_empty()) {
                        self.report_lex(file, text, r.kind, r.lo, r.hi);
                    }
                    prev_hi = Some(r.hi);
                    continue;
                }
                _ => {}
            }
            let space = prev_hi != Some(r.lo);
            prev_hi = Some(r.hi);
            let sym = self.int.intern(text.get(r.lo..r.hi).unwrap_or(""));
            out.push(Tok::new(
                tk_of(r.kind),
                sym,
                Span::new(file, r.lo, r.hi),
                space,
            ));
        }
        out
    }

    fn report_lex(&mut self, file: FileId, text: &str, kind: RawKind, lo: usize, hi: usize) {
        let n = match self.files.iter_mut().rev().find(|f| f.file == file) {
            Some(f) => {
                f.lex_errors += 1;
                f.lex_errors
            }
            None => 0,
        };
        let span = Span::new(file, lo, hi);
        if n > MAX_LEX_ERRORS_PER_FILE + 1 {
            return;
        }
        if n == MAX_LEX_ERRORS_PER_FILE + 1 {
            self.error(
                Diag::error(span, "too many invalid tokens in this file")
                    .note("the rest are not reported"),
            );
            return;
        }
        let d = match kind {
            RawKind::UnterminatedComment => {
                Diag::error(Span::new(file, lo, lo + 2), "unterminated comment")
                    .label("comment starts here")
            }
            RawKind::UnterminatedStr => {
                Diag::error(span, "unterminated string literal").label("missing closing `\"`")
            }
            _ => {
                let c = text.get(lo..).and_then(|s| s.chars().next()).unwrap_or('?');
                if c == '\'' {
                    Diag::error(span, "unterminated character constant")
                        .label("missing closing `'`")
                } else {
                    Diag::error(span, format!("unexpected character `{}`", c.escape_debug()))
                }
            }
        };
        self.error(d);
    }

    // ----- driver

    fn run_main(&mut self, main: FileId) {
        self.predefine();
        let text: Rc<str> = Rc::from(self.sources.text(main));
        let toks = Rc::new(lex(&text));
        let key = self
            .sources
            .path(main)
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
            .unwrap_or_default();
        self.push_file(main, text, toks, key);
        while let Some(t) = self.next_tok() {
            if t.kind == TK::Ident && t.sym == self.s.pragma_op {
                self.pragma_operator(t);
            } else {
                self.emit(t);
            }
        }
    }

    /// `_Pragma("…")` is dropped with a warning (the tokens are emitted if it is malformed).
    fn pragma_operator(&mut self, t: Tok) {
        let mut look = Vec::new();
        for _ in 0..3 {
            match self.next_tok() {
                Some(x) => look.push(x),
                None => break,
            }
        }
        if let [a, b, c] = look.as_slice() {
            if self.is_punct(a, self.s.lparen)
                && b.kind == TK::Str
                && self.is_punct(c, self.s.rparen)
            {
                let span = t.span.to(c.span);
                self.error(Diag::warning(span, "`_Pragma` operator is ignored").label("ignored"));
                return;
            }
        }
        self.emit(t);
        for x in look {
            self.emit(x);
        }
    }

    fn to_pp(&self, t: &Tok) -> PpToken {
        PpToken {
            kind: match t.kind {
                TK::Ident => PpKind::Ident,
                TK::Number => PpKind::Number,
                TK::Char => PpKind::Char,
                TK::Str => PpKind::Str,
                _ => PpKind::Punct,
            },
            text: self.text_of(t),
            span: t.span,
            expansion: if t.exp == NO_EXP { None } else { Some(t.exp) },
            space_before: t.space,
        }
    }

    fn emit(&mut self, t: Tok) {
        let p = self.to_pp(&t);
        self.out.tokens.push(p);
    }

    fn predefine(&mut self) {
        let text = "#define __STDC__ 1\n#define __STDC_VERSION__ 199901L\n\
                    #define __STDC_HOSTED__ 1\n#define __ACCSHARE__ 1\n";
        let f = self
            .sources
            .add("<built-in>", PathBuf::new(), text.to_string());
        self.builtin_file = f;
        for (name, b) in [("__FILE__", Builtin::File), ("__LINE__", Builtin::Line)] {
            let sym = self.int.intern(name);
            self.store_macro(Macro {
                name: sym,
                def_span: Span::new(f, 0, 0),
                func: false,
                params: Vec::new(),
                variadic: false,
                body: Vec::new(),
                builtin: Some(b),
                order: 0,
            });
        }
        let rc: Rc<str> = Rc::from(text);
        let toks = Rc::new(lex(text));
        self.push_file(f, rc, toks, PathBuf::new());
        while self.next_base().is_some() {}

        if self.opts.defines.is_empty() {
            return;
        }
        let mut text = String::new();
        let mut parts = Vec::new();
        for (name, value) in &self.opts.defines {
            let start = text.len();
            text.push_str("-D");
            let name_lo = text.len();
            text.push_str(name);
            let name_hi = text.len();
            text.push('=');
            let val_lo = text.len();
            text.push_str(value.as_deref().unwrap_or("1"));
            let val_hi = text.len();
            text.push('\n');
            parts.push((start, name_lo, name_hi, val_lo, val_hi));
        }
        let f = self
            .sources
            .add("<command line>", PathBuf::new(), text.clone());
        for (start, name_lo, name_hi, val_lo, val_hi) in parts {
            let mut raws = lex_at(&text, name_lo, name_hi);
            raws.extend(lex_at(&text, val_lo, val_hi));
            let toks = self.line_toks(f, &text, &raws, true);
            self.define(toks, Span::new(f, start, val_hi));
        }
    }

    fn finish(mut self) -> PpOutput {
        let mut ms: Vec<Rc<Macro>> = self
            .macros
            .iter()
            .flatten()
            .filter(|m| !m.func && m.builtin.is_none() && m.def_span.file != self.builtin_file)
            .cloned()
            .collect();
        ms.sort_by_key(|m| m.order);
        for m in ms {
            if let Some(v) = self.int_value(&m.body) {
                let name = self.int.get(m.name).to_string();
                self.out.int_macros.push((name, v));
            }
        }
        self.out
    }

    /// The value of a body that is one integer literal, possibly parenthesised or negated.
    fn int_value(&self, body: &[BTok]) -> Option<i64> {
        let mut toks = body;
        let mut neg = false;
        loop {
            match toks {
                [a, inner @ .., b]
                    if self.is_punct(&a.tok, self.s.lparen)
                        && self.is_punct(&b.tok, self.s.rparen) =>
                {
                    toks = inner;
                }
                [a, rest @ ..] if self.is_punct(&a.tok, self.s.minus) && !rest.is_empty() => {
                    neg = !neg;
                    toks = rest;
                }
                [a, rest @ ..] if self.is_punct(&a.tok, self.s.plus) && !rest.is_empty() => {
                    toks = rest;
                }
                [n] if n.tok.kind == TK::Number => {
                    let (v, _) = expr::parse_int(self.int.get(n.tok.sym)).ok()?;
                    let v = i64::try_from(v).ok()?;
                    return Some(if neg { -v } else { v });
                }
                _ => return None,
            }
        }
    }

    // ----- the base: files, directives

    /// The next token of active text from the file stack; processes directives on the way.
    fn next_base(&mut self) -> Option<Tok> {
        loop {
            let active = self.active();
            let f = self.files.last_mut()?;
            let Some(&raw) = f.toks.get(f.pos) else {
                self.end_file();
                continue;
            };
            match raw.kind {
                RawKind::Newline => {
                    f.pos += 1;
                    f.bol = true;
                }
                RawKind::Hash if f.bol => self.directive(),
                RawKind::Comment => f.pos += 1,
                RawKind::UnterminatedComment => {
                    f.pos += 1;
                    f.bol = false;
                    let (file, text) = (f.file, f.text.clone());
                    self.report_lex(file, &text, raw.kind, raw.lo, raw.hi);
                }
                _ if !active => {
                    f.pos += 1;
                    f.bol = false;
                }
                RawKind::UnterminatedStr | RawKind::Error => {
                    let mut hi = raw.hi;
                    let mut p = f.pos + 1;
                    let quote = f.text.get(raw.lo..).is_some_and(|s| s.starts_with('\''));
                    if raw.kind == RawKind::Error && !quote {
                        while let Some(n) = f.toks.get(p) {
                            if n.kind == RawKind::Error && n.lo == hi {
                                hi = n.hi;
                                p += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    f.pos = p;
                    f.bol = false;
                    let (file, text) = (f.file, f.text.clone());
                    self.report_lex(file, &text, raw.kind, raw.lo, hi);
                }
                _ => {
                    let space = f.pos == 0
                        || f.toks
                            .get(f.pos - 1)
                            .map_or(true, |p| p.kind == RawKind::Newline || p.hi != raw.lo);
                    f.pos += 1;
                    f.bol = false;
                    let sym = self.int.intern(f.text.get(raw.lo..raw.hi).unwrap_or(""));
                    let span = Span::new(f.file, raw.lo, raw.hi);
                    return Some(Tok::new(tk_of(raw.kind), sym, span, space));
                }
            }
        }
    }

    fn end_file(&mut self) {
        let Some(f) = self.files.pop() else {
            return;
        };
        if self.conds.len() > f.cond_base {
            let open: Vec<Cond> = self.conds.drain(f.cond_base..).collect();
            for c in open {
                let mut d = Diag::error(c.span, format!("unterminated `#{}`", c.name))
                    .label("no matching `#endif`");
                if let Some(e) = c.else_span {
                    d = d.with_label(e, "its `#else`");
                }
                self.error(d);
            }
        }
    }

    /// Processes the directive whose `#` is at the current position, through the end of its line.
    fn directive(&mut self) {
        let Some(f) = self.files.last_mut() else {
            return;
        };
        let (file, text, toks) = (f.file, f.text.clone(), f.toks.clone());
        let hash_pos = f.pos;
        let mut end = hash_pos + 1;
        while toks.get(end).is_some_and(|t| t.kind != RawKind::Newline) {
            end += 1;
        }
        f.pos = end;
        let Some(&hash) = toks.get(hash_pos) else {
            return;
        };
        let line: &[RawToken] = toks.get(hash_pos + 1..end).unwrap_or(&[]);
        let mut line_end = toks.get(end).map_or(text.len(), |t| t.lo);
        if line_end > hash.hi && text.as_bytes().get(line_end - 1) == Some(&b'\r') {
            line_end -= 1;
        }
        let line_span = Span::new(file, hash.lo, line_end);
        // A comment that never ends swallows the rest of the file: report it even when inactive.
        if let Some(c) = line.iter().find(|t| t.kind == RawKind::UnterminatedComment) {
            self.report_lex(file, &text, c.kind, c.lo, c.hi);
        }
        let active = self.active();
        let Some(&first) = line.first() else {
            return; // the null directive
        };
        if first.kind != RawKind::Ident {
            if active && first.kind != RawKind::Number {
                let sp = Span::new(file, hash.lo, first.hi);
                let t = text.get(first.lo..first.hi).unwrap_or("");
                self.error(Diag::error(
                    sp,
                    format!("unknown preprocessor directive `#{t}`"),
                ));
            }
            return; // `# 12 "file"` line markers are ignored
        }
        let name = text.get(first.lo..first.hi).unwrap_or("");
        let dspan = Span::new(file, hash.lo, first.hi);
        let rest: &[RawToken] = line.get(1..).unwrap_or(&[]);
        if !active {
            match name {
                "if" | "ifdef" | "ifndef" => {
                    let name = match name {
                        "if" => "if",
                        "ifdef" => "ifdef",
                        _ => "ifndef",
                    };
                    self.conds.push(Cond {
                        state: CondState::Dead,
                        else_span: None,
                        span: dspan,
                        name,
                    });
                }
                "elif" => self.do_elif(file, &text, rest, dspan),
                "else" => self.do_else(file, &text, rest, dspan),
                "endif" => self.do_endif(file, &text, rest, dspan),
                _ => {}
            }
            return;
        }
        match name {
            "define" => {
                let t = self.line_toks(file, &text, rest, true);
                self.define(t, line_span);
            }
            "undef" => self.undef(file, &text, rest, dspan),
            "include" | "include_next" => {
                self.include(file, &text, rest, dspan, line_span, line_end)
            }
            "if" => {
                let v = self.eval_if(file, &text, rest, dspan, "if");
                self.push_cond(v, dspan, "if");
            }
            "ifdef" | "ifndef" => {
                let toks = self.line_toks(file, &text, rest, true);
                let v = match toks.first() {
                    Some(t) if t.kind == TK::Ident => {
                        if toks.len() > 1 {
                            self.extra_tokens(toks.get(1..).unwrap_or(&[]), name);
                        }
                        self.is_macro(t.sym) == (name == "ifdef")
                    }
                    Some(t) => {
                        let d = Diag::error(t.span, "macro name must be an identifier");
                        self.error(d);
                        false
                    }
                    None => {
                        let d = Diag::error(dspan, format!("expected macro name after `#{name}`"));
                        self.error(d);
                        false
                    }
                };
                self.push_cond(v, dspan, if name == "ifdef" { "ifdef" } else { "ifndef" });
            }
            "elif" => self.do_elif(file, &text, rest, dspan),
            "else" => self.do_else(file, &text, rest, dspan),
            "endif" => self.do_endif(file, &text, rest, dspan),
            "error" | "warning" => {
                let msg = match (rest.first(), rest.last()) {
                    (Some(a), Some(b)) => text.get(a.lo..b.hi).unwrap_or("").trim().to_string(),
                    _ => String::new(),
                };
                let msg = if msg.is_empty() {
                    format!("`#{name}` directive")
                } else {
                    msg
                };
                let d = if name == "error" {
                    Diag::error(line_span, msg)
                } else {
                    Diag::warning(line_span, msg)
                };
                self.error(d);
            }
            "pragma" => self.pragma(file, &text, rest, first, line_span),
            "line" | "ident" | "sccs" => {}
            _ => {
                let d = Diag::error(dspan, format!("unknown preprocessor directive `#{name}`"));
                self.error(d);
            }
        }
    }

    fn extra_tokens(&mut self, toks: &[Tok], name: &str) {
        if let (Some(a), Some(b)) = (toks.first(), toks.last()) {
            let d = Diag::warning(a.span.to(b.span), format!("extra tokens after `#{name}`"))
                .label("ignored");
            self.error(d);
        }
    }

    fn push_cond(&mut self, v: bool, span: Span, name: &'static str) {
        self.conds.push(Cond {
            state: if v {
                CondState::Taking
            } else {
                CondState::Waiting
            },
            else_span: None,
            span,
            name,
        });
    }

    fn do_elif(&mut self, file: FileId, text: &str, rest: &[RawToken], dspan: Span) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#elif` without `#if`"));
            return;
        }
        let Some(c) = self.conds.last_mut() else {
            return;
        };
        if let Some(es) = c.else_span {
            if c.state != CondState::Dead {
                c.state = CondState::Done;
            }
            let d = Diag::error(dspan, "`#elif` after `#else`").with_label(es, "`#else` is here");
            self.error(d);
            return;
        }
        match c.state {
            CondState::Taking => c.state = CondState::Done,
            CondState::Waiting => {
                let v = self.eval_if(file, text, rest, dspan, "elif");
                if v {
                    if let Some(c) = self.conds.last_mut() {
                        c.state = CondState::Taking;
                    }
                }
            }
            CondState::Done | CondState::Dead => {}
        }
    }

    fn do_else(&mut self, file: FileId, text: &str, rest: &[RawToken], dspan: Span) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#else` without `#if`"));
            return;
        }
        let Some(c) = self.conds.last_mut() else {
            return;
        };
        let state = c.state;
        let prev_else = c.else_span.replace(dspan);
        c.state = match (c.state, prev_else) {
            (CondState::Waiting, None) => CondState::Taking,
            (CondState::Dead, _) => CondState::Dead,
            _ => CondState::Done,
        };
        if state == CondState::Dead {
            return;
        }
        if let Some(es) = prev_else {
            let d =
                Diag::error(dspan, "`#else` after `#else`").with_label(es, "first `#else` is here");
            self.error(d);
        }
        let toks = self.line_toks(file, text, rest, false);
        self.extra_tokens(&toks, "else");
    }

    fn do_endif(&mut self, file: FileId, text: &str, rest: &[RawToken], dspan: Span) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#endif` without `#if`"));
            return;
        }
        if let Some(c) = self.conds.pop() {
            if c.state != CondState::Dead {
                let toks = self.line_toks(file, text, rest, false);
                self.extra_tokens(&toks, "endif");
            }
        }
    }

    /// Replaces `defined X` / `defined(X)` by `1` or `0`; `None` after reporting a malformed one.
    fn replace_defined(&mut self, toks: Vec<Tok>) -> Option<Vec<Tok>> {
        if !toks
            .iter()
            .any(|t| t.kind == TK::Ident && t.sym == self.s.defined)
        {
            return Some(toks);
        }
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while let Some(&t) = toks.get(i) {
            if t.kind != TK::Ident || t.sym != self.s.defined {
                out.push(t);
                i += 1;
                continue;
            }
            let (name, end, next) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                (Some(n), _, _) if n.kind == TK::Ident => (n.sym, n.span, i + 2),
                (Some(l), Some(n), Some(r))
                    if self.is_punct(l, self.s.lparen)
                        && n.kind == TK::Ident
                        && self.is_punct(r, self.s.rparen) =>
                {
                    (n.sym, r.span, i + 4)
                }
                _ => {
                    let sp = toks.get(i + 1).map_or(t.span, |n| n.span);
                    let d = Diag::error(sp, "expected macro name after `defined`")
                        .with_label(t.span, "in this `defined` operator");
                    self.error(d);
                    return None;
                }
            };
            let sym = if self.is_macro(name) {
                self.s.one
            } else {
                self.s.zero
            };
            out.push(Tok::new(TK::Number, sym, t.span.to(end), t.space));
            i = next;
        }
        Some(out)
    }

    fn eval_if(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        dname: &str,
    ) -> bool {
        let toks = self.line_toks(file, text, rest, true);
        if toks.is_empty() {
            self.error(Diag::error(dspan, format!("`#{dname}` with no expression")));
            return false;
        }
        let end_at = rest.last().map_or(dspan.hi as usize, |r| r.hi);
        let end = Span::new(file, end_at, end_at);
        let ndiags = self.diags.0.len();
        let Some(toks) = self.replace_defined(toks) else {
            return false;
        };
        let toks = self.expand_isolated(toks, RunKind::Directive { record: false });
        let Some(toks) = self.replace_defined(toks) else {
            return false;
        };
        if self
            .diags
            .0
            .get(ndiags..)
            .is_some_and(|d| d.iter().any(Diag::is_error))
        {
            return false; // the expansion went wrong; do not pile up errors
        }
        let etoks: Vec<expr::ETok> = toks
            .iter()
            .map(|t| expr::ETok {
                kind: t.kind,
                text: self.int.get(t.sym),
                span: t.span,
            })
            .collect();
        expr::eval(&etoks, end, dname, self.diags).is_some_and(|v| v.v != 0)
    }

    fn undef(&mut self, file: FileId, text: &str, rest: &[RawToken], dspan: Span) {
        let toks = self.line_toks(file, text, rest, true);
        match toks.first() {
            Some(t) if t.kind == TK::Ident => {
                if t.sym == self.s.defined {
                    let d = Diag::error(t.span, "`defined` cannot be used as a macro name");
                    self.error(d);
                    return;
                }
                if let Some(slot) = self.macros.get_mut(t.sym as usize) {
                    *slot = None;
                }
                if toks.len() > 1 {
                    self.extra_tokens(toks.get(1..).unwrap_or(&[]), "undef");
                }
            }
            Some(t) => {
                let d = Diag::error(t.span, "macro name must be an identifier");
                self.error(d);
            }
            None => {
                let d = Diag::error(dspan, "expected macro name after `#undef`");
                self.error(d);
            }
        }
    }

    fn store_macro(&mut self, m: Macro) {
        let i = m.name as usize;
        if self.macros.len() <= i {
            self.macros.resize(i + 1, None);
        }
        if let Some(slot) = self.macros.get_mut(i) {
            *slot = Some(Rc::new(m));
        }
    }

    /// `#define` (the tokens after `define`); `line_span` is used when the name is missing.
    fn define(&mut self, toks: Vec<Tok>, line_span: Span) {
        let Some(&name) = toks.first() else {
            self.error(Diag::error(
                line_span,
                "expected macro name after `#define`",
            ));
            return;
        };
        if name.kind != TK::Ident {
            let d = Diag::error(name.span, "macro name must be an identifier")
                .label("expected an identifier");
            self.error(d);
            return;
        }
        if name.sym == self.s.defined {
            let d = Diag::error(name.span, "`defined` cannot be used as a macro name");
            self.error(d);
            return;
        }
        let func = toks
            .get(1)
            .is_some_and(|t| self.is_punct(t, self.s.lparen) && !t.space);
        let mut params: Vec<Sym> = Vec::new();
        let mut variadic = false;
        let mut i = 1;
        if func {
            i = 2;
            let mut expect = true;
            loop {
                let Some(&t) = toks.get(i) else {
                    let sp = toks.last().map_or(name.span, |t| t.span);
                    let d = Diag::error(sp, "missing `)` in macro parameter list")
                        .with_label(name.span, "in the definition of this macro");
                    self.error(d);
                    return;
                };
                i += 1;
                if expect {
                    if self.is_punct(&t, self.s.rparen) && params.is_empty() {
                        break;
                    }
                    let mut is_ellipsis = self.is_punct(&t, self.s.ellipsis);
                    if t.kind == TK::Ident {
                        if t.sym == self.s.va_args {
                            let d = Diag::error(
                                t.span,
                                "`__VA_ARGS__` cannot be a macro parameter name",
                            )
                            .help("write `...` for a variadic macro");
                            self.error(d);
                            return;
                        }
                        if params.contains(&t.sym) {
                            let d = Diag::error(
                                t.span,
                                format!("duplicate macro parameter `{}`", self.text_of(&t)),
                            );
                            self.error(d);
                            return;
                        }
                        params.push(t.sym);
                        if toks
                            .get(i)
                            .is_some_and(|n| self.is_punct(n, self.s.ellipsis))
                        {
                            i += 1;
                            variadic = true;
                            is_ellipsis = true;
                        } else {
                            expect = false;
                            continue;
                        }
                    } else if is_ellipsis {
                        variadic = true;
                        params.push(self.s.va_args);
                    }
                    if is_ellipsis {
                        match toks.get(i) {
                            Some(n) if self.is_punct(n, self.s.rparen) => {
                                i += 1;
                                break;
                            }
                            other => {
                                let sp = other.map_or(t.span, |n| n.span);
                                let d = Diag::error(sp, "expected `)` after `...`");
                                self.error(d);
                                return;
                            }
                        }
                    }
                    let d = Diag::error(
                        t.span,
                        format!("expected parameter name, found `{}`", self.text_of(&t)),
                    );
                    self.error(d);
                    return;
                } else {
                    if self.is_punct(&t, self.s.rparen) {
                        break;
                    }
                    if self.is_punct(&t, self.s.comma) {
                        expect = true;
                        continue;
                    }
                    let d = Diag::error(
                        t.span,
                        format!(
                            "expected `,` or `)` in macro parameter list, found `{}`",
                            self.text_of(&t)
                        ),
                    );
                    self.error(d);
                    return;
                }
            }
        }
        let body_toks = toks.get(i..).unwrap_or(&[]);
        let mut body = Vec::with_capacity(body_toks.len());
        for (k, t) in body_toks.iter().enumerate() {
            let mut t = *t;
            if k == 0 {
                t.space = false;
            }
            t.noexpand = false;
            let param = if func && t.kind == TK::Ident {
                params.iter().position(|&p| p == t.sym).map(|x| x as u32)
            } else {
                None
            };
            body.push(BTok { tok: t, param });
        }
        let is_hh = |b: &BTok| b.tok.kind == TK::Punct && b.tok.sym == self.s.hashhash;
        if let Some(b) = body
            .first()
            .filter(|b| is_hh(b))
            .or(body.last().filter(|b| is_hh(b)))
        {
            let d = Diag::error(
                b.tok.span,
                "`##` cannot appear at either end of a macro expansion",
            );
            self.error(d);
            return;
        }
        if func {
            for (k, b) in body.iter().enumerate() {
                if self.is_punct(&b.tok, self.s.hash)
                    && !body.get(k + 1).is_some_and(|n| n.param.is_some())
                {
                    let d = Diag::error(b.tok.span, "`#` is not followed by a macro parameter");
                    self.error(d);
                    return;
                }
            }
        }
        self.def_order += 1;
        let m = Macro {
            name: name.sym,
            def_span: name.span,
            func,
            params,
            variadic,
            body,
            builtin: None,
            order: self.def_order,
        };
        if let Some(old) = self.lookup(name.sym) {
            if !same_definition(&old, &m) {
                let d = Diag::warning(
                    name.span,
                    format!("macro `{}` redefined", self.text_of(&name)),
                )
                .label("redefined here")
                .with_label(old.def_span, "previous definition");
                self.error(d);
            }
        }
        self.store_macro(m);
    }

    #[allow(clippy::too_many_arguments)]
    fn include(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line_span: Span,
        line_end: usize,
    ) {
        let bad = |pp: &mut Self, sp: Span| {
            let d = Diag::error(sp, "`#include` expects \"FILENAME\" or <FILENAME>");
            pp.error(d);
        };
        let Some(&first) = rest.first() else {
            bad(self, dspan);
            return;
        };
        let first_text = text.get(first.lo..first.hi).unwrap_or("");
        let (name, name_span, system) = if first.kind == RawKind::Str {
            match first_text
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
            {
                Some(n) => (n.to_string(), Span::new(file, first.lo, first.hi), false),
                None => {
                    bad(self, Span::new(file, first.lo, first.hi));
                    return;
                }
            }
        } else if first.kind == RawKind::Punct && first_text == "<" {
            let after = text.get(first.hi..line_end).unwrap_or("");
            match after.find('>') {
                Some(k) => (
                    after.get(..k).unwrap_or("").trim().to_string(),
                    Span::new(file, first.lo, first.hi + k + 1),
                    true,
                ),
                None => {
                    let d = Diag::error(
                        Span::new(file, first.lo, line_end),
                        "missing `>` in `#include`",
                    );
                    self.error(d);
                    return;
                }
            }
        } else {
            let toks = self.line_toks(file, text, rest, true);
            let toks = self.expand_isolated(toks, RunKind::Directive { record: false });
            match toks.first() {
                Some(t) if t.kind == TK::Str => {
                    let s = self.text_of(t);
                    match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                        Some(n) => (n.to_string(), t.span, false),
                        None => {
                            bad(self, t.span);
                            return;
                        }
                    }
                }
                Some(t) if self.is_punct(t, self.s.lt) => {
                    let mut n = String::new();
                    let mut closed = false;
                    for (k, x) in toks.iter().enumerate().skip(1) {
                        if self.is_punct(x, self.s.gt) {
                            closed = true;
                            break;
                        }
                        if k > 1 && x.space {
                            n.push(' ');
                        }
                        n.push_str(self.int.get(x.sym));
                    }
                    if !closed {
                        let d = Diag::error(t.span, "missing `>` in `#include`");
                        self.error(d);
                        return;
                    }
                    (n, t.span, true)
                }
                Some(t) => {
                    bad(self, t.span);
                    return;
                }
                None => {
                    bad(self, Span::new(file, first.lo, first.hi));
                    return;
                }
            }
        };
        if system {
            self.out.system_includes.push((name, line_span));
            return;
        }
        if name.is_empty() {
            self.error(Diag::error(name_span, "empty file name in `#include`"));
            return;
        }
        if self.files.len() > MAX_INCLUDE_DEPTH {
            if !self.too_deep.insert(name_span) {
                return;
            }
            let d = Diag::error(name_span, "#include nested too deeply")
                .note(format!("the limit is {MAX_INCLUDE_DEPTH} nested files"));
            self.error(d);
            return;
        }
        if self.include_count >= MAX_INCLUDES {
            if !self.include_limit_reported {
                self.include_limit_reported = true;
                let d = Diag::error(name_span, "too many `#include`s")
                    .note(format!("the limit is {MAX_INCLUDES} per translation unit"));
                self.error(d);
            }
            return;
        }
        self.include_count += 1;
        let cur_dir = self
            .sources
            .path(file)
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs = vec![cur_dir];
        dirs.extend(self.opts.include_dirs.iter().cloned());
        let Some(path) = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file()) else {
            let searched: Vec<String> = dirs
                .iter()
                .map(|d| {
                    if d.as_os_str().is_empty() {
                        "`.`".to_string()
                    } else {
                        format!("`{}`", d.display())
                    }
                })
                .collect();
            let d = Diag::error(name_span, format!("cannot find include file `{name}`"))
                .label("not found")
                .note(format!("searched in: {}", searched.join(", ")));
            self.error(d);
            return;
        };
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.once.contains(&key) {
            return;
        }
        let (fid, ftext, ftoks) = match self.file_cache.get(&key) {
            Some(c) => c.clone(),
            None => match std::fs::read(&path) {
                Ok(bytes) => {
                    let s = match String::from_utf8(bytes) {
                        Ok(s) => s,
                        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    };
                    let rc: Rc<str> = Rc::from(s.as_str());
                    let fid =
                        self.sources
                            .add(path.to_string_lossy().into_owned(), path.clone(), s);
                    let toks = Rc::new(lex(&rc));
                    let c = (fid, rc, toks);
                    self.file_cache.insert(key.clone(), c.clone());
                    c
                }
                Err(e) => {
                    let d =
                        Diag::error(name_span, format!("cannot read include file `{name}`: {e}"));
                    self.error(d);
                    return;
                }
            },
        };
        self.push_file(fid, ftext, ftoks, key);
    }

    fn pragma(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        pragma_tok: RawToken,
        line_span: Span,
    ) {
        let span = match (rest.first(), rest.last()) {
            (Some(a), Some(b)) => Span::new(file, a.lo, b.hi),
            _ => Span::new(file, pragma_tok.hi, pragma_tok.hi),
        };
        let mut toks = self.line_toks(file, text, rest, true);
        if let [t] = toks.as_slice() {
            if t.kind == TK::Ident && t.sym == self.s.once {
                if let Some(f) = self.files.last() {
                    if !f.key.as_os_str().is_empty() {
                        self.once.insert(f.key.clone());
                    }
                }
            }
        }
        if toks
            .first()
            .is_some_and(|t| t.kind == TK::Ident && t.sym == self.s.acc)
        {
            let tail = toks.split_off(1);
            let e = self.expand_isolated(tail, RunKind::Directive { record: true });
            toks.extend(e);
        }
        let tokens: Vec<PpToken> = toks.iter().map(|t| self.to_pp(t)).collect();
        let idx = self.out.pragmas.len() as u32;
        self.out.pragmas.push(PragmaLine {
            span,
            tokens,
            line_span,
        });
        self.out.tokens.push(PpToken {
            kind: PpKind::Pragma(idx),
            text: String::new(),
            span: line_span,
            expansion: None,
            space_before: true,
        });
    }

    // ----- macro expansion

    fn pop_ctx(&mut self) {
        if let Some(c) = self.run.ctx.pop() {
            if let Some(m) = c.mac {
                if let Some(d) = self.disabled.get_mut(m as usize) {
                    *d = d.saturating_sub(1);
                }
            }
        }
    }

    fn push_ctx(&mut self, toks: Vec<Tok>, mac: Sym) {
        let i = mac as usize;
        if self.disabled.len() <= i {
            self.disabled.resize(i + 1, 0);
        }
        if let Some(d) = self.disabled.get_mut(i) {
            *d += 1;
        }
        self.run.ctx.push(Ctx {
            toks,
            pos: 0,
            mac: Some(mac),
        });
    }

    fn paint(&self, mut t: Tok) -> Tok {
        if t.kind == TK::Ident
            && !t.noexpand
            && self.disabled.get(t.sym as usize).is_some_and(|&d| d > 0)
        {
            t.noexpand = true;
        }
        t
    }

    /// The next unexpanded token of the current run, and whether it came from a macro context.
    fn read_raw(&mut self) -> Option<(Tok, bool)> {
        loop {
            if let Some(c) = self.run.ctx.last_mut() {
                if let Some(&t) = c.toks.get(c.pos) {
                    c.pos += 1;
                    return Some((self.paint(t), true));
                }
                self.pop_ctx();
                continue;
            }
            let t = match self.run.kind {
                RunKind::Base => self.next_base()?,
                _ => {
                    let t = *self.run.list.get(self.run.list_pos)?;
                    self.run.list_pos += 1;
                    t
                }
            };
            return Some((self.paint(t), false));
        }
    }

    /// Whether the next token (past exhausted contexts, and newlines in the file) is `(`.
    fn peek_lparen(&mut self) -> bool {
        loop {
            if let Some(c) = self.run.ctx.last() {
                if let Some(t) = c.toks.get(c.pos) {
                    return self.is_punct(t, self.s.lparen);
                }
                self.pop_ctx();
                continue;
            }
            return match self.run.kind {
                RunKind::Base => self.peek_base_lparen(),
                _ => self
                    .run
                    .list
                    .get(self.run.list_pos)
                    .is_some_and(|t| self.is_punct(t, self.s.lparen)),
            };
        }
    }

    fn peek_base_lparen(&self) -> bool {
        let Some(f) = self.files.last() else {
            return false;
        };
        let mut p = f.pos;
        let mut bol = f.bol;
        while let Some(r) = f.toks.get(p) {
            match r.kind {
                RawKind::Newline => {
                    bol = true;
                    p += 1;
                }
                RawKind::Comment => p += 1,
                RawKind::Hash if bol => return false,
                RawKind::Punct => return f.text.get(r.lo..r.hi) == Some("("),
                _ => return false,
            }
        }
        false
    }

    /// The next fully macro-expanded token of the current run.
    fn next_tok(&mut self) -> Option<Tok> {
        loop {
            if self.aborted && self.run.kind == RunKind::Args {
                return None;
            }
            let (t, from_ctx) = self.read_raw()?;
            if !from_ctx {
                self.run.outer = None;
            }
            if t.kind == TK::Ident && !t.noexpand && !self.exhausted {
                if let Some(m) = self.lookup(t.sym) {
                    if self.try_expand(t, from_ctx, &m) {
                        if self.aborted && self.run.kind != RunKind::Args {
                            while !self.run.ctx.is_empty() {
                                self.pop_ctx();
                            }
                            self.aborted = false;
                        }
                        continue;
                    }
                }
            }
            return Some(self.finish_tok(t, from_ctx));
        }
    }

    fn finish_tok(&self, mut t: Tok, from_ctx: bool) -> Tok {
        if from_ctx && self.run.kind != RunKind::Args {
            if let Some(o) = self.run.outer {
                t.span = o.span;
                t.exp = o.exp.unwrap_or(NO_EXP);
            }
        }
        t
    }

    /// Fully expands a token list in isolation (argument pre-expansion, directive lines).
    fn expand_isolated(&mut self, toks: Vec<Tok>, kind: RunKind) -> Vec<Tok> {
        let saved = std::mem::replace(&mut self.run, Run::new(kind, toks));
        let mut out = Vec::new();
        while let Some(t) = self.next_tok() {
            out.push(t);
        }
        while !self.run.ctx.is_empty() {
            self.pop_ctx();
        }
        self.run = saved;
        out
    }

    /// The span to report a problem with a token at: its outermost macro use, or itself.
    fn user_span(&self, t: &Tok, from_ctx: bool) -> Span {
        match self.run.outer {
            Some(o) if from_ctx && self.run.kind != RunKind::Args => o.span,
            _ => t.span,
        }
    }

    fn abort(&mut self, d: Diag) {
        if !self.aborted {
            self.error(d);
        }
        self.aborted = true;
    }

    fn too_large(&mut self, span: Span, name: Sym) {
        let n = self.int.get(name).to_string();
        let d = Diag::error(span, "macro expansion too large").note(format!(
            "expanding `{n}` produced more than {MAX_EXPANSION_TOKENS} tokens"
        ));
        self.abort(d);
    }

    /// Expands the macro `m` named by `name` if it is invoked; pushes its expansion as a context.
    /// Returns false if `name` is a function-like macro not followed by `(`.
    fn try_expand(&mut self, name: Tok, from_ctx: bool, m: &Rc<Macro>) -> bool {
        let mut end_span = name.span;
        let mut end_from_ctx = from_ctx;
        let mut args: Vec<Vec<Tok>> = Vec::new();
        if m.func {
            if !self.peek_lparen() {
                return false;
            }
            let _ = self.read_raw(); // the `(`
            let err_span = self.user_span(&name, from_ctx);
            match self.collect_args(m, err_span) {
                Some((a, rp, rp_ctx)) => {
                    args = a;
                    end_span = rp.span;
                    end_from_ctx = rp_ctx;
                }
                None => return true,
            }
        }
        if self.run.kind != RunKind::Args {
            match self.run.outer.as_mut() {
                None => {
                    let use_span = if end_from_ctx {
                        name.span
                    } else {
                        name.span.to(end_span)
                    };
                    let exp = match self.run.kind {
                        RunKind::Base | RunKind::Directive { record: true } => {
                            let i = self.out.expansions.len() as u32;
                            self.out.expansions.push(Expansion {
                                name: self.int.get(m.name).to_string(),
                                def_span: m.def_span,
                                use_span,
                            });
                            Some(i)
                        }
                        _ => None,
                    };
                    self.run.outer = Some(Outer {
                        span: use_span,
                        exp,
                    });
                    self.work = 0;
                }
                Some(o) => {
                    if !end_from_ctx {
                        o.span = o.span.to(end_span);
                        if let Some(e) = o.exp.and_then(|i| self.out.expansions.get_mut(i as usize))
                        {
                            e.use_span = o.span;
                        }
                    }
                }
            }
        }
        let use_span = match self.run.outer {
            Some(o) if self.run.kind != RunKind::Args => o.span,
            _ => name.span,
        };
        let mut body: Vec<Tok> = if let Some(b) = m.builtin {
            vec![self.builtin_tok(b, name)]
        } else if m.func {
            if !self.check_args(m, &mut args, use_span) {
                return true;
            }
            self.substitute(m, &args, use_span)
        } else {
            m.body.iter().map(|b| b.tok).collect()
        };
        if self.aborted {
            return true;
        }
        self.work += body.len();
        self.total_work += body.len();
        if self.total_work > self.total_limit {
            if !self.exhausted {
                self.exhausted = true;
                let d = Diag::error(use_span, "too much macro expansion in this file").note(format!(
                    "macro expansions produced more than {} tokens; macros are not expanded after this point",
                    self.total_limit
                ));
                self.abort(d);
            }
            self.aborted = true;
            return true;
        }
        if self.work > MAX_EXPANSION_TOKENS {
            self.too_large(use_span, m.name);
            return true;
        }
        if let Some(f) = body.first_mut() {
            f.space = name.space;
        }
        self.push_ctx(body, m.name);
        true
    }

    fn builtin_tok(&mut self, b: Builtin, name: Tok) -> Tok {
        let Some(f) = self.files.last() else {
            return Tok::new(TK::Number, self.s.zero, name.span, name.space);
        };
        match b {
            Builtin::Line => {
                let lo = f.toks.get(f.pos.saturating_sub(1)).map_or(0, |t| t.lo);
                let (line, _) = self.sources.line_col(Span::new(f.file, lo, lo));
                let sym = self.int.intern(&line.to_string());
                Tok::new(TK::Number, sym, name.span, name.space)
            }
            Builtin::File => {
                let s = escape_str(self.sources.name(f.file));
                let sym = self.int.intern(&s);
                Tok::new(TK::Str, sym, name.span, name.space)
            }
        }
    }

    /// Reads the arguments of a function-like macro use (the `(` is consumed).
    fn collect_args(&mut self, m: &Macro, err_span: Span) -> Option<(Vec<Vec<Tok>>, Tok, bool)> {
        let n = m.params.len();
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some((t, fc)) = self.read_raw() else {
                let d = Diag::error(
                    err_span,
                    format!(
                        "unterminated argument list invoking macro `{}`",
                        self.int.get(m.name)
                    ),
                )
                .label("the `(` of this macro use is never closed");
                self.error(d);
                return None;
            };
            if t.kind == TK::Punct {
                if t.sym == self.s.lparen {
                    depth += 1;
                } else if t.sym == self.s.rparen {
                    if depth == 0 {
                        return Some((args, t, fc));
                    }
                    depth -= 1;
                } else if t.sym == self.s.comma && depth == 0 && !(m.variadic && args.len() >= n) {
                    args.push(Vec::new());
                    continue;
                }
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        }
    }

    fn check_args(&mut self, m: &Macro, args: &mut Vec<Vec<Tok>>, use_span: Span) -> bool {
        let n = m.params.len();
        let k = args.len();
        if n == 0 {
            if k == 1 && args.first().is_some_and(|a| a.is_empty()) {
                args.clear();
                return true;
            }
        } else if k == n || (m.variadic && k + 1 == n) {
            if k + 1 == n {
                args.push(Vec::new());
            }
            return true;
        }
        let name = self.int.get(m.name).to_string();
        let msg = if m.variadic {
            format!(
                "macro `{name}` expects at least {} argument{}, found {k}",
                n - 1,
                plural(n - 1)
            )
        } else {
            format!(
                "macro `{name}` expects {n} argument{}, found {k}",
                plural(n)
            )
        };
        let d = Diag::error(use_span, msg).with_label(m.def_span, "macro defined here");
        self.error(d);
        false
    }

    /// Fully expands argument `arg` (before substitution).
    fn expand_arg(&mut self, arg: &[Tok], use_span: Span) -> Vec<Tok> {
        if !arg
            .iter()
            .any(|t| t.kind == TK::Ident && !t.noexpand && self.is_macro(t.sym))
        {
            return arg.to_vec();
        }
        if self.arg_depth >= MAX_ARG_NESTING {
            let d = Diag::error(use_span, "macro arguments nested too deeply").note(format!(
                "the limit is {MAX_ARG_NESTING} nested macro uses in arguments"
            ));
            self.abort(d);
            return Vec::new();
        }
        self.arg_depth += 1;
        let r = self.expand_isolated(arg.to_vec(), RunKind::Args);
        self.arg_depth -= 1;
        r
    }

    fn stringify(&mut self, arg: &[Tok], span: Span, space: bool) -> Tok {
        let mut s = String::from("\"");
        for (i, t) in arg.iter().enumerate() {
            if i > 0 && t.space {
                s.push(' ');
            }
            let txt = self.int.get(t.sym);
            if matches!(t.kind, TK::Str | TK::Char) {
                for c in txt.chars() {
                    if c == '"' || c == '\\' {
                        s.push('\\');
                    }
                    s.push(c);
                }
            } else {
                s.push_str(txt);
            }
        }
        s.push('"');
        let sym = self.int.intern(&s);
        Tok::new(TK::Str, sym, span, space)
    }

    /// Substitutes the arguments into the body of `m` (with `#`, `##` and pre-expansion).
    fn substitute(&mut self, m: &Macro, args: &[Vec<Tok>], use_span: Span) -> Vec<Tok> {
        let body = &m.body;
        let mut expanded: Vec<Option<Vec<Tok>>> = vec![None; args.len()];
        let mut out: Vec<Tok> = Vec::with_capacity(body.len());
        let mut has_paste = false;
        let va = if m.variadic {
            Some(m.params.len().saturating_sub(1) as u32)
        } else {
            None
        };
        let hh = self.s.hashhash;
        let is_hh = |b: &BTok| b.param.is_none() && b.tok.kind == TK::Punct && b.tok.sym == hh;
        let mut i = 0;
        while let Some(&b) = body.get(i) {
            if b.param.is_none() && self.is_punct(&b.tok, self.s.hash) {
                if let Some(p) = body.get(i + 1).and_then(|n| n.param) {
                    let arg = args.get(p as usize).map_or(&[][..], |a| a.as_slice());
                    let t = self.stringify(arg, b.tok.span, b.tok.space);
                    out.push(t);
                    i += 2;
                    continue;
                }
            }
            if is_hh(&b) {
                // GNU: `, ## __VA_ARGS__` drops the comma when the variable arguments are empty.
                let next_param = body.get(i + 1).and_then(|n| n.param);
                let prev_comma = i > 0
                    && body
                        .get(i - 1)
                        .is_some_and(|p| p.param.is_none() && self.is_punct(&p.tok, self.s.comma));
                if va.is_some() && next_param == va && prev_comma {
                    let arg = va
                        .and_then(|v| args.get(v as usize))
                        .map_or(&[][..], |a| a.as_slice());
                    if arg.is_empty() {
                        out.pop();
                    } else {
                        out.extend_from_slice(arg);
                    }
                    i += 2;
                    continue;
                }
                has_paste = true;
                let mut t = b.tok;
                t.kind = TK::PasteOp;
                out.push(t);
                i += 1;
                continue;
            }
            if let Some(p) = b.param {
                let pasted = body.get(i + 1).is_some_and(&is_hh)
                    || (i > 0 && body.get(i - 1).is_some_and(&is_hh));
                let pi = p as usize;
                let raw = args.get(pi).map_or(&[][..], |a| a.as_slice());
                let start = out.len();
                if pasted {
                    if raw.is_empty() {
                        out.push(Tok::new(
                            TK::Placemarker,
                            self.s.zero,
                            b.tok.span,
                            b.tok.space,
                        ));
                    } else {
                        out.extend_from_slice(raw);
                    }
                } else {
                    if expanded.get(pi).is_some_and(|e| e.is_none()) {
                        let e = self.expand_arg(raw, use_span);
                        if self.aborted {
                            return Vec::new();
                        }
                        if let Some(slot) = expanded.get_mut(pi) {
                            *slot = Some(e);
                        }
                    }
                    if let Some(Some(e)) = expanded.get(pi) {
                        out.extend_from_slice(e);
                    }
                }
                if let Some(f) = out.get_mut(start) {
                    f.space = b.tok.space;
                }
                if out.len() + self.work > MAX_EXPANSION_TOKENS {
                    self.too_large(use_span, m.name);
                    return Vec::new();
                }
                i += 1;
                continue;
            }
            out.push(b.tok);
            i += 1;
        }
        if has_paste {
            out = self.paste_all(out, use_span);
        }
        out.retain(|t| t.kind != TK::Placemarker);
        out
    }

    fn paste_all(&mut self, toks: Vec<Tok>, use_span: Span) -> Vec<Tok> {
        let mut res: Vec<Tok> = Vec::with_capacity(toks.len());
        let mut i = 0;
        while let Some(&t) = toks.get(i) {
            if t.kind != TK::PasteOp {
                res.push(t);
                i += 1;
                continue;
            }
            let rhs = toks.get(i + 1).copied().filter(|r| r.kind != TK::PasteOp);
            i += if rhs.is_some() { 2 } else { 1 };
            match (res.pop(), rhs) {
                (None, Some(r)) => res.push(r),
                (Some(l), None) => res.push(l),
                (None, None) => {}
                (Some(l), Some(r)) => {
                    if l.kind == TK::Placemarker {
                        res.push(r);
                    } else if r.kind == TK::Placemarker {
                        res.push(l);
                    } else {
                        let joined = format!("{}{}", self.int.get(l.sym), self.int.get(r.sym));
                        let lexed = lex(&joined);
                        match lexed.as_slice() {
                            [one]
                                if one.lo == 0
                                    && one.hi == joined.len()
                                    && matches!(
                                        one.kind,
                                        RawKind::Ident
                                            | RawKind::Number
                                            | RawKind::Char
                                            | RawKind::Str
                                            | RawKind::Punct
                                            | RawKind::Hash
                                            | RawKind::HashHash
                                    ) =>
                            {
                                let sym = self.int.intern(&joined);
                                res.push(Tok::new(tk_of(one.kind), sym, l.span, l.space));
                            }
                            _ => {
                                let d = Diag::error(
                                    use_span,
                                    format!(
                                        "pasting `{}` and `{}` does not give a valid preprocessing token",
                                        self.int.get(l.sym),
                                        self.int.get(r.sym)
                                    ),
                                );
                                self.error(d);
                                res.push(l);
                                res.push(r);
                            }
                        }
                    }
                }
            }
        }
        res
    }
}

fn same_definition(a: &Macro, b: &Macro) -> bool {
    a.func == b.func
        && a.params == b.params
        && a.variadic == b.variadic
        && a.builtin == b.builtin
        && a.body.len() == b.body.len()
        && a.body.iter().zip(&b.body).all(|(x, y)| {
            x.tok.kind == y.tok.kind
                && x.tok.sym == y.tok.sym
                && x.param == y.param
                && x.tok.space == y.tok.space
        })
}
