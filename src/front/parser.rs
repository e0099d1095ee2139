//! The C parser: splits the preprocessed tokens into top-level items and parses each with the
//! LALRPOP grammar `grammar/c.lalrpop`.
//!
//! Steps, per item in file order:
//! 1. *Chunking*: a `#pragma` at brace depth 0 is an item of its own; otherwise an item ends at a
//!    `;` at brace depth 0, or at the `}` closing a function body (a `{` preceded by `)` and by
//!    no `=` of an initializer: `x = (T){…};` is a compound literal).
//! 2. *Limits*: more than [`MAX_NESTING`] nested brackets ("too deeply nested") or more than
//!    [`MAX_OPS`] operators along one statement ("expression too complex") is an error and the
//!    item is not parsed. These bound the depth of every AST the parser builds (so later passes
//!    may recurse over it).
//! 3. *Tokens*: [`PpToken`]s become [`Tok`]s: keywords, literal values, and the "lexer hack":
//!    `size_t`, and every name a `typedef` declared earlier, is a type-name token. GNU
//!    attributes (`__attribute__((…))`), `__extension__`, `_Noreturn`, `_Alignas(…)` and
//!    `_Thread_local` are dropped: they mean nothing to accshare, and the output keeps the text
//!    of host code as written.
//! 4. *Grammar*: an item that does not parse becomes [`ItemKind::Opaque`] silently, unless it
//!    carries an OpenACC pragma (`#pragma acc …`): then its syntax error is reported.
//!
//! Typedefs of types in the subset (`typedef float DATA_TYPE;`) are resolved: later uses of the
//! name get the type itself; other typedef names become [`CType::Named`].

use std::collections::HashSet;

use lalrpop_util::ParseError;

use crate::diag::{Diag, Diags, SourceMap, Span};
use crate::front::ast::{CType, Expr, Item, ItemKind, Scalar, Storage, TranslationUnit};
use crate::front::preprocess::{PpKind, PpOutput, PpToken};
use crate::front::token::{self, Tok};

mod build;
#[cfg(test)]
mod tests;

use build::{PErr, Top, TopItem, Types};

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_imports,
        unused_parens,
        dead_code
    )]
    c,
    "/c.rs"
);

/// Maximum nesting of `(`, `[` and `{` (together) in one item.
pub const MAX_NESTING: usize = 256;

/// Maximum number of operators along one statement (see [`check_limits`]).
pub const MAX_OPS: usize = 4096;

/// Parses the whole translation unit. Items outside the subset that carry no OpenACC pragma
/// become `ItemKind::Opaque`; an annotated function that does not parse is an error.
pub fn parse_translation_unit(
    pp: &PpOutput,
    sources: &SourceMap,
    diags: &mut Diags,
) -> TranslationUnit {
    let _ = sources;
    let mut driver = Driver::new(pp);
    let mut items = Vec::new();
    for chunk in chunks(&pp.tokens) {
        match chunk {
            Chunk::Pragma(idx, span) => items.push(Item {
                kind: ItemKind::Pragma(idx),
                span,
            }),
            Chunk::Tokens(range) => {
                if let Some(toks) = pp.tokens.get(range) {
                    items.push(driver.item(toks, diags));
                }
            }
        }
    }
    TranslationUnit { items }
}

/// Parses one C expression from already-preprocessed tokens (used for pragma clause arguments).
/// Reports a syntax error and returns `None` if the tokens are not one expression (an
/// assignment expression: no top-level comma). With no tokens at all there is no span to point
/// at: the error then has the default span, so callers that know better should check first.
pub fn parse_expr(tokens: &[PpToken], diags: &mut Diags) -> Option<Expr> {
    let Some(last) = tokens.last() else {
        diags.push(Diag::error(Span::default(), "expected expression"));
        return None;
    };
    if let Err(d) = check_limits(tokens) {
        diags.push(d);
        return None;
    }
    let mut names = Names::new(&[]);
    let conv = names.convert(tokens, Tok::StartExpr, diags);
    let types = default_types(&[]);
    match run(conv.toks, &conv.spans, &types) {
        Ok(Top::Expr(e)) => Some(e),
        Ok(Top::Item(_)) => None,
        Err(e) => {
            let end = Span {
                lo: last.span.hi,
                ..last.span
            };
            diags.push(syntax_error(e, tokens, &conv.origin, end));
            None
        }
    }
}

fn run(toks: Vec<Tok>, spans: &[Span], types: &Types) -> Result<Top, PErr> {
    let tokens = toks.into_iter().enumerate().map(|(i, t)| (i, t, i + 1));
    c::TopParser::new().parse(spans, types, tokens)
}

// ---------------------------------------------------------------------------------------------
// Chunking

enum Chunk {
    Pragma(u32, Span),
    Tokens(std::ops::Range<usize>),
}

fn is_punct(t: &PpToken, s: &str) -> bool {
    t.kind == PpKind::Punct && t.text == s
}

/// Splits the token stream into top-level items.
fn chunks(tokens: &[PpToken]) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut fn_body = false;
    // An `=` at depth 0 since `start`: the item is a declaration with an initializer.
    let mut assign = false;
    for (i, t) in tokens.iter().enumerate() {
        if i == start {
            assign = false;
        }
        if let PpKind::Pragma(idx) = t.kind {
            if depth == 0 {
                if start < i {
                    out.push(Chunk::Tokens(start..i));
                }
                out.push(Chunk::Pragma(idx, t.span));
                start = i + 1;
            }
            continue;
        }
        if t.kind != PpKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "=" if depth == 0 => assign = true,
            "{" => {
                if depth == 0 {
                    fn_body =
                        !assign && i > start && tokens.get(i - 1).is_some_and(|p| is_punct(p, ")"));
                }
                depth += 1;
            }
            "}" if depth == 0 => {
                // A stray `}`: an item of its own (it will not parse).
                out.push(Chunk::Tokens(start..i + 1));
                start = i + 1;
            }
            "}" => {
                depth -= 1;
                if depth == 0 && fn_body {
                    out.push(Chunk::Tokens(start..i + 1));
                    start = i + 1;
                }
            }
            ";" if depth == 0 => {
                out.push(Chunk::Tokens(start..i + 1));
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        out.push(Chunk::Tokens(start..tokens.len()));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Limits

/// Checks the limits that bound the depth of the AST built from `toks`:
///
/// * at most [`MAX_NESTING`] nested `(`, `[`, `{`;
/// * at most [`MAX_OPS`] operators along one statement: the count goes up at every operator
///   token (binary, unary, postfix, `?`, `:`, `,`, `(`, `[`, `sizeof`, `else`, `do`), is saved at
///   a `{` and restored at its `}`, and restarts at the end of a statement (a `;` outside
///   parentheses, a block's `}`) unless an `else` or a `while` continues it; in an initializer
///   list it restarts at every element. Each AST node on a path from the root needs one such
///   token or one brace, so the depth of the AST is at most about `MAX_OPS + 2 * MAX_NESTING`.
pub fn check_limits(toks: &[PpToken]) -> Result<(), Diag> {
    let mut levels = vec![Level {
        saved: 0,
        init: false,
        parens: 0,
    }];
    let mut nesting = 0usize;
    let mut count = 0usize;
    let continues = |i: usize| {
        toks.get(i + 1)
            .is_some_and(|n| n.kind == PpKind::Ident && (n.text == "else" || n.text == "while"))
    };
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            PpKind::Punct => match t.text.as_str() {
                "{" | "(" | "[" => {
                    nesting += 1;
                    if nesting > MAX_NESTING {
                        return Err(Diag::error(t.span, "too deeply nested").label(format!(
                            "more than {MAX_NESTING} nested parentheses, brackets and braces"
                        )));
                    }
                    if t.text == "{" {
                        let prev = i.checked_sub(1).and_then(|p| toks.get(p));
                        let in_init = levels.last().is_some_and(|l| l.init);
                        let init = prev.is_some_and(|p| {
                            is_punct(p, "=") || (in_init && (is_punct(p, ",") || is_punct(p, "{")))
                        });
                        levels.push(Level {
                            saved: count,
                            init,
                            parens: 0,
                        });
                    } else {
                        count += 1;
                        if let Some(l) = levels.last_mut() {
                            l.parens += 1;
                        }
                    }
                }
                ")" | "]" => {
                    nesting = nesting.saturating_sub(1);
                    if let Some(l) = levels.last_mut() {
                        l.parens = l.parens.saturating_sub(1);
                    }
                }
                "}" => {
                    nesting = nesting.saturating_sub(1);
                    if levels.len() > 1 {
                        if let Some(l) = levels.pop() {
                            count = l.saved;
                            if !l.init && !continues(i) {
                                count = base(&levels);
                            }
                        }
                    }
                }
                ";" => {
                    if levels.last().is_some_and(|l| l.parens == 0) && !continues(i) {
                        count = base(&levels);
                    }
                }
                "," if levels.last().is_some_and(|l| l.init && l.parens == 0) => {
                    count = base(&levels);
                }
                _ => count += 1,
            },
            PpKind::Ident if matches!(t.text.as_str(), "sizeof" | "else" | "do") => count += 1,
            _ => {}
        }
        if count > MAX_OPS {
            return Err(Diag::error(t.span, "expression too complex")
                .label(format!("more than {MAX_OPS} operators in one statement")));
        }
    }
    Ok(())
}

/// A brace level of [`check_limits`].
struct Level {
    /// Count at the `{` (restored at its `}`, and where its statements start).
    saved: usize,
    /// An initializer list (`= {`), whose elements restart the count.
    init: bool,
    /// Open `(`/`[` since the `{`.
    parens: usize,
}

/// The count at the start of a statement of the innermost level.
fn base(levels: &[Level]) -> usize {
    levels.last().map_or(0, |l| l.saved)
}

// ---------------------------------------------------------------------------------------------
// Tokens and the lexer hack

/// The number of tokens of a keyword at `toks[i]` that the grammar never sees, as it means
/// nothing to accshare: `__attribute__((…))` / `__attribute((…))` and `_Alignas(…)` with their
/// balanced parentheses (to the end of the item if they are not closed), `__extension__`,
/// `_Noreturn`, `_Thread_local` / `__thread`. `None` for any other token.
fn ignored_len(toks: &[PpToken], i: usize) -> Option<usize> {
    let t = toks.get(i)?;
    if t.kind != PpKind::Ident {
        return None;
    }
    match t.text.as_str() {
        "__extension__" | "_Noreturn" | "_Thread_local" | "__thread" => Some(1),
        "__attribute__" | "__attribute" | "_Alignas" => {
            if !toks.get(i + 1).is_some_and(|n| is_punct(n, "(")) {
                return None;
            }
            let mut depth = 0usize;
            for (k, n) in toks.iter().enumerate().skip(i + 1) {
                if is_punct(n, "(") {
                    depth += 1;
                } else if is_punct(n, ")") {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k + 1 - i);
                    }
                }
            }
            Some(toks.len() - i)
        }
        _ => None,
    }
}

/// An item's tokens for the grammar (see [`Names::convert`]).
struct Converted {
    toks: Vec<Tok>,
    /// The span of each token (grammar location `i` is `spans[i]`).
    spans: Vec<Span>,
    /// The index in the item's [`PpToken`]s of grammar location `i` (0 for the start marker).
    origin: Vec<usize>,
}

/// Names that are types: `typedef`s seen so far (file scope) and in the enclosing blocks.
struct Names {
    global: HashSet<String>,
    /// Block-scope typedef names with the brace depth of their block.
    local: Vec<(String, usize)>,
}

/// Types of well-known names of system headers the program includes (the preprocessor does not
/// read them); `size_t` always.
fn system_types(includes: &[(String, crate::diag::Span)]) -> Vec<(&'static str, CType)> {
    let has = |h: &str| {
        includes
            .iter()
            .any(|(n, _)| n.trim_matches(|c| c == '<' || c == '>' || c == '"') == h)
    };
    let mut v = vec![("size_t", CType::Scalar(Scalar::SizeT))];
    if has("stdbool.h") {
        v.push(("bool", CType::Scalar(Scalar::Bool)));
    }
    if has("stdint.h") || has("inttypes.h") {
        v.extend([
            ("int8_t", CType::Scalar(Scalar::SChar)),
            ("uint8_t", CType::Scalar(Scalar::UChar)),
            ("int16_t", CType::Scalar(Scalar::Short)),
            ("uint16_t", CType::Scalar(Scalar::UShort)),
            ("int32_t", CType::Scalar(Scalar::Int)),
            ("uint32_t", CType::Scalar(Scalar::UInt)),
            ("int64_t", CType::Scalar(Scalar::Long)),
            ("uint64_t", CType::Scalar(Scalar::ULong)),
            ("intptr_t", CType::Scalar(Scalar::Long)),
            ("uintptr_t", CType::Scalar(Scalar::ULong)),
            ("intmax_t", CType::Scalar(Scalar::Long)),
            ("uintmax_t", CType::Scalar(Scalar::ULong)),
        ]);
    }
    if has("stddef.h") {
        v.push(("ptrdiff_t", CType::Scalar(Scalar::Long)));
        v.push(("wchar_t", CType::Scalar(Scalar::Int)));
    }
    if has("stdio.h") {
        v.push(("FILE", CType::Named("FILE".to_string())));
    }
    // The timing code around regions (`clock_t t0 = clock();`).
    if has("time.h") || has("sys/time.h") || has("sys/types.h") {
        v.push(("clock_t", CType::Scalar(Scalar::Long)));
        v.push(("time_t", CType::Scalar(Scalar::Long)));
    }
    if has("sys/types.h") || has("unistd.h") {
        v.push(("ssize_t", CType::Scalar(Scalar::Long)));
    }
    if has("stdarg.h") {
        v.push(("va_list", CType::Named("va_list".to_string())));
    }
    if has("stdlib.h") {
        v.push(("div_t", CType::Named("div_t".to_string())));
        v.push(("ldiv_t", CType::Named("ldiv_t".to_string())));
    }
    if has("omp.h") {
        v.push(("omp_lock_t", CType::Named("omp_lock_t".to_string())));
    }
    v
}

fn default_types(includes: &[(String, crate::diag::Span)]) -> Types {
    system_types(includes)
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect()
}

impl Names {
    fn new(includes: &[(String, crate::diag::Span)]) -> Names {
        Names {
            global: system_types(includes)
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect(),
            local: Vec::new(),
        }
    }

    fn is_type(&self, name: &str) -> bool {
        self.global.contains(name) || self.local.iter().any(|(n, _)| n == name)
    }

    fn convert_one(&self, t: &PpToken, diags: &mut Diags) -> Tok {
        match t.kind {
            PpKind::Ident => match token::keyword(&t.text) {
                Some(k) => k,
                None if self.is_type(&t.text) => Tok::TypeName(t.text.clone()),
                None => Tok::Ident(t.text.clone()),
            },
            PpKind::Number => token::number(&t.text).unwrap_or_else(|msg| {
                diags.push(Diag::error(t.span, msg.to_string()));
                Tok::IntLit(token::IntLit {
                    value: 0,
                    suffix: Default::default(),
                    radix: 10,
                })
            }),
            PpKind::Char => token::char_value(&t.text)
                .map(Tok::CharLit)
                .unwrap_or_else(|msg| {
                    diags.push(Diag::error(t.span, msg.to_string()));
                    Tok::CharLit(0)
                }),
            PpKind::Str => token::str_value(&t.text)
                .map(Tok::StrLit)
                .unwrap_or_else(|msg| {
                    diags.push(Diag::error(t.span, msg.to_string()));
                    Tok::StrLit(String::new())
                }),
            PpKind::Punct => token::punct(&t.text),
            PpKind::Pragma(i) => Tok::Pragma(i),
        }
    }

    /// Converts an item's tokens, preceded by the start marker, leaving out the tokens of
    /// [`ignored_len`]. Typedef names declared in the item are type names from the end of their
    /// declaration on.
    fn convert(&mut self, toks: &[PpToken], marker: Tok, diags: &mut Diags) -> Converted {
        let mut out = Vec::with_capacity(toks.len() + 1);
        let mut spans = Vec::with_capacity(toks.len() + 1);
        let mut origin = Vec::with_capacity(toks.len() + 1);
        out.push(marker);
        spans.push(toks.first().map(|t| t.span).unwrap_or_default());
        origin.push(0);
        let mut depth = 0usize;
        let mut typedef_at: Option<(usize, usize)> = None;
        let mut skip_to = 0usize;
        for (i, t) in toks.iter().enumerate() {
            if i < skip_to {
                continue;
            }
            if let Some(n) = ignored_len(toks, i) {
                skip_to = i + n;
                continue;
            }
            let tok = self.convert_one(t, diags);
            match tok {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    self.local.retain(|(_, d)| *d < depth);
                    depth = depth.saturating_sub(1);
                }
                Tok::KwTypedef if typedef_at.is_none() => typedef_at = Some((i + 1, depth)),
                Tok::Semi => {
                    if let Some((start, d)) = typedef_at {
                        if d == depth {
                            let names = self.typedef_names(toks.get(start..i).unwrap_or(&[]));
                            for n in names {
                                if depth == 0 {
                                    self.global.insert(n);
                                } else {
                                    self.local.push((n, depth));
                                }
                            }
                            typedef_at = None;
                        }
                    }
                }
                _ => {}
            }
            out.push(tok);
            spans.push(t.span);
            origin.push(i);
        }
        self.local.clear();
        Converted {
            toks: out,
            spans,
            origin,
        }
    }

    /// The names a `typedef` declares (the tokens after `typedef` up to the `;`), also for
    /// typedefs outside the subset (`typedef struct { … } P;`, `typedef int (*fn)(int);`):
    /// skip the specifiers, then take the first identifier of each declarator.
    fn typedef_names(&self, toks: &[PpToken]) -> Vec<String> {
        let mut i = 0;
        while let Some(t) = toks.get(i) {
            if let Some(n) = ignored_len(toks, i) {
                i += n;
                continue;
            }
            if t.kind != PpKind::Ident || !(token::is_keyword(&t.text) || self.is_type(&t.text)) {
                break;
            }
            i += 1;
            if matches!(t.text.as_str(), "struct" | "union" | "enum") {
                if toks.get(i).is_some_and(|n| n.kind == PpKind::Ident) {
                    i += 1;
                }
                if toks.get(i).is_some_and(|n| is_punct(n, "{")) {
                    let mut d = 0usize;
                    while let Some(n) = toks.get(i) {
                        i += 1;
                        if is_punct(n, "{") {
                            d += 1;
                        } else if is_punct(n, "}") {
                            d = d.saturating_sub(1);
                            if d == 0 {
                                break;
                            }
                        }
                    }
                }
            }
        }
        let mut names = Vec::new();
        let mut depth = 0usize;
        let mut brackets = 0usize;
        let mut found = false;
        let rest = toks.get(i..).unwrap_or(&[]);
        let mut skip_to = 0usize;
        for (k, t) in rest.iter().enumerate() {
            if k < skip_to {
                continue;
            }
            if let Some(n) = ignored_len(rest, k) {
                skip_to = k + n;
                continue;
            }
            match (t.kind, t.text.as_str()) {
                (PpKind::Punct, "(" | "{") => depth += 1,
                (PpKind::Punct, "[") => brackets += 1,
                (PpKind::Punct, ")" | "}") => depth = depth.saturating_sub(1),
                (PpKind::Punct, "]") => brackets = brackets.saturating_sub(1),
                (PpKind::Punct, ",") if depth == 0 && brackets == 0 => found = false,
                (PpKind::Ident, name) if !found && brackets == 0 && !token::is_keyword(name) => {
                    names.push(name.to_string());
                    found = true;
                }
                _ => {}
            }
        }
        names
    }
}

// ---------------------------------------------------------------------------------------------
// Items

struct Driver<'a> {
    pp: &'a PpOutput,
    names: Names,
    types: Types,
}

impl<'a> Driver<'a> {
    fn new(pp: &'a PpOutput) -> Driver<'a> {
        Driver {
            pp,
            names: Names::new(&pp.system_includes),
            types: default_types(&pp.system_includes),
        }
    }

    /// An item carries OpenACC pragmas if one of its pragma lines starts with `acc`.
    fn annotated(&self, toks: &[PpToken]) -> bool {
        toks.iter().any(|t| match t.kind {
            PpKind::Pragma(i) => self
                .pp
                .pragmas
                .get(i as usize)
                .and_then(|p| p.tokens.first())
                .is_some_and(|t| t.text == "acc"),
            _ => false,
        })
    }

    fn item(&mut self, toks: &[PpToken], diags: &mut Diags) -> Item {
        let (Some(first), Some(last)) = (toks.first(), toks.last()) else {
            return Item {
                kind: ItemKind::Opaque,
                span: Span::default(),
            };
        };
        let span = first.span.to(last.span);
        let opaque = Item {
            kind: ItemKind::Opaque,
            span,
        };
        if let Err(d) = check_limits(toks) {
            diags.push(d);
            return opaque;
        }
        let conv = self.names.convert(toks, Tok::StartItem, diags);
        match run(conv.toks, &conv.spans, &self.types) {
            Ok(Top::Item(TopItem::Function(f))) => Item {
                kind: ItemKind::Function(f),
                span,
            },
            Ok(Top::Item(TopItem::Decl(d))) => {
                for dd in &d.declarators {
                    if let CType::Struct(def) = innermost(&dd.ty) {
                        // A struct reached through a typedef keeps its tag's entry as defined.
                        if !def.tag.is_empty() && def.typedef.is_none() {
                            self.types
                                .insert(build::tag_key(&def.tag), CType::Struct(def.clone()));
                        }
                    }
                }
                if d.storage == Storage::Typedef {
                    for dd in &d.declarators {
                        // Typedefs of types in the subset are resolved; others stay `Named`.
                        // A struct keeps the typedef name kernels declare it by.
                        let known = dd.ty.base_scalar().is_some()
                            || matches!(innermost(&dd.ty), CType::Void);
                        if known {
                            self.types.insert(dd.name.name.clone(), dd.ty.clone());
                        } else if let CType::Struct(def) = dd.ty.unqualified() {
                            let mut named = (**def).clone();
                            named.typedef = Some(dd.name.name.clone());
                            let ty = CType::Struct(std::sync::Arc::new(named));
                            let ty = match &dd.ty {
                                CType::Const(_) => CType::Const(Box::new(ty)),
                                _ => ty,
                            };
                            self.types.insert(dd.name.name.clone(), ty);
                        }
                    }
                }
                Item {
                    kind: ItemKind::Decl(d),
                    span,
                }
            }
            Ok(Top::Item(TopItem::Struct(def))) => {
                if !def.tag.is_empty() {
                    self.types
                        .insert(build::tag_key(&def.tag), CType::Struct(def.clone()));
                }
                opaque
            }
            Ok(_) => opaque,
            Err(e) => {
                if self.annotated(toks) {
                    let end = Span {
                        lo: last.span.hi,
                        ..last.span
                    };
                    diags.push(syntax_error(e, toks, &conv.origin, end));
                }
                opaque
            }
        }
    }
}

/// The type at the bottom of pointers, arrays and qualifiers.
fn innermost(ty: &CType) -> &CType {
    let mut t = ty;
    loop {
        t = match t {
            CType::Const(x) => x,
            CType::Pointer { to, .. } => to,
            CType::Array { elem, .. } => elem,
            other => return other,
        };
    }
}

// ---------------------------------------------------------------------------------------------
// Syntax errors

/// Terminals that can continue an expression: left out of "expected …" lists when something
/// else is expected too (`x = 0 }` says "expected `;`", not every operator).
const OPERATORS: &[&str] = &[
    "?", ".", "->", "++", "--", "&", "*", "+", "-", "/", "%", "<<", ">>", "<", ">", "<=", ">=",
    "==", "!=", "^", "|", "&&", "||", "=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=",
    "|=", "[", "(", "...",
];

/// Terminals listed first, in this order.
const FIRST: &[&str] = &[";", ")", "]", "}", ",", ":", "="];

/// Terminal names that are descriptions, not spellings.
const DESCRIPTIONS: &[&str] = &[
    "identifier",
    "type name",
    "integer literal",
    "floating-point literal",
    "character literal",
    "string literal",
];

/// "expected `;`", "expected one of `)`, `,`", "expected expression", …
fn expected_message(expected: &[String]) -> String {
    let mut names: Vec<&str> = expected
        .iter()
        .map(|s| s.trim_matches('"'))
        .filter(|s| !s.starts_with("Start"))
        .collect();
    let has = |n: &str| names.contains(&n);
    if has("integer literal") {
        return if has("if") && has("}") {
            "expected statement or `}`".to_string()
        } else if has("if") {
            "expected statement".to_string()
        } else {
            "expected expression".to_string()
        };
    }
    if has("identifier") && names.len() > 6 {
        return "expected identifier".to_string();
    }
    if !names.is_empty() && names.iter().all(|n| OPERATORS.contains(n)) {
        return "expected operator".to_string();
    }
    names.retain(|n| !OPERATORS.contains(n));
    if names.contains(&";") {
        names.retain(|n| *n != ",");
    }
    names.sort_by_key(|n| FIRST.iter().position(|f| f == n).unwrap_or(FIRST.len()));
    let shown: Vec<String> = names
        .iter()
        .take(6)
        .map(|n| {
            if DESCRIPTIONS.contains(n) {
                n.to_string()
            } else {
                format!("`{n}`")
            }
        })
        .collect();
    match shown.len() {
        0 => "expected end of input".to_string(),
        1 => format!("expected {}", shown[0]),
        _ if names.len() > 6 => format!("expected one of {}, …", shown.join(", ")),
        _ => format!("expected one of {}", shown.join(", ")),
    }
}

fn describe(t: &PpToken) -> String {
    match t.kind {
        PpKind::Pragma(_) => "`#pragma`".to_string(),
        _ => format!("`{}`", t.text),
    }
}

/// The diagnostic for a parse error of the item `toks` (grammar location `l` is
/// `toks[origin[l]]`).
fn syntax_error(e: PErr, toks: &[PpToken], origin: &[usize], end: Span) -> Diag {
    let at = |l: usize| {
        l.checked_sub(1)?;
        toks.get(*origin.get(l)?)
    };
    match e {
        ParseError::UnrecognizedToken {
            token: (l, _, _),
            expected,
        } => match at(l) {
            Some(t) => Diag::error(
                t.span,
                format!("{}, found {}", expected_message(&expected), describe(t)),
            )
            .label("unexpected token"),
            None => Diag::error(end, expected_message(&expected)),
        },
        ParseError::UnrecognizedEof { expected, .. } => Diag::error(
            end,
            format!("{}, found end of input", expected_message(&expected)),
        )
        .label("input ends here"),
        ParseError::ExtraToken { token: (l, _, _) } => {
            let span = at(l).map_or(end, |t| t.span);
            Diag::error(span, "unexpected token").label("unexpected token")
        }
        ParseError::InvalidToken { location } => {
            let span = at(location).map_or(end, |t| t.span);
            Diag::error(span, "invalid token")
        }
        ParseError::User { error } => {
            let mut d = Diag::error(error.span, error.message);
            d.notes.extend(error.notes);
            d
        }
    }
}
