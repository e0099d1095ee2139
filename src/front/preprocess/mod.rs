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

mod directive;
mod expand;
mod expr;
mod system;
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
    /// Every `#include "…"` (or `<…>` found through `-I`) that named a file of the program, in
    /// order, also when the file was skipped by `#pragma once`: the program's include graph.
    pub local_includes: Vec<LocalInclude>,
    /// Every conditional group met in active text (of any file), in the order of its `#if`:
    /// what the output needs to keep a group balanced when a region it interleaves is replaced.
    pub conditionals: Vec<CondGroup>,
}

/// One `#include` of a file of the program (see [`PpOutput::local_includes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalInclude {
    /// The `#include` line, from `#` to the end of the line, in the including file.
    pub line: Span,
    /// The file it includes.
    pub file: FileId,
}

/// One `#if`/`#ifdef`/`#ifndef` … `#endif` group whose `#if` line was in active text (groups
/// nested in a skipped branch are part of that branch's text and not recorded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CondGroup {
    /// The group's directive lines in order (`#if…`, each `#elif`, `#else`, `#endif`), each
    /// from `#` to the end of its line (continuation lines included). The last one is the
    /// `#endif` unless the group is unterminated (an error already reported).
    pub lines: Vec<Span>,
    /// The branch the preprocessor took: the text after `lines[i]`, or `None` when no
    /// condition held.
    pub taken: Option<usize>,
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
/// More `#include`s in one translation unit than this is an error (stops include bombs: a file
/// that includes itself twice reached 20,000 inclusions of itself in 7 s under the fuzzer; real
/// programs read a few hundred headers at most, system headers not counted).
const MAX_INCLUDES: usize = 2_000;
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
    /// Index into [`PpOutput::conditionals`] (`None` for a group in a skipped branch).
    group: Option<usize>,
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
            .is_none_or(|c| c.state == CondState::Taking)
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
                    #define __STDC_HOSTED__ 1\n#define __ACCSHARE__ 1\n\
                    #define _OPENACC 201711\n";
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
}
