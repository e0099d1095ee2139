//! The base of the preprocessor: reading files line by line and running directives
//! (conditionals, `#define`/`#undef`, `#include`, `#pragma`).

use super::expand::same_definition;
use super::*;

impl Pp<'_> {
    /// The next token of active text from the file stack; processes directives on the way.
    pub(super) fn next_base(&mut self) -> Option<Tok> {
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
                            .is_none_or(|p| p.kind == RawKind::Newline || p.hi != raw.lo);
                    f.pos += 1;
                    f.bol = false;
                    let sym = self.int.intern(f.text.get(raw.lo..raw.hi).unwrap_or(""));
                    let span = Span::new(f.file, raw.lo, raw.hi);
                    return Some(Tok::new(tk_of(raw.kind), sym, span, space));
                }
            }
        }
    }

    pub(super) fn end_file(&mut self) {
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
    pub(super) fn directive(&mut self) {
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
                        group: None,
                        else_span: None,
                        span: dspan,
                        name,
                    });
                }
                "elif" => self.do_elif(file, &text, rest, dspan, line_span),
                "else" => self.do_else(file, &text, rest, dspan, line_span),
                "endif" => self.do_endif(file, &text, rest, dspan, line_span),
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
                self.push_cond(v, dspan, line_span, "if");
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
                let name = if name == "ifdef" { "ifdef" } else { "ifndef" };
                self.push_cond(v, dspan, line_span, name);
            }
            "elif" => self.do_elif(file, &text, rest, dspan, line_span),
            "else" => self.do_else(file, &text, rest, dspan, line_span),
            "endif" => self.do_endif(file, &text, rest, dspan, line_span),
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

    pub(super) fn extra_tokens(&mut self, toks: &[Tok], name: &str) {
        if let (Some(a), Some(b)) = (toks.first(), toks.last()) {
            let d = Diag::warning(a.span.to(b.span), format!("extra tokens after `#{name}`"))
                .label("ignored");
            self.error(d);
        }
    }

    pub(super) fn push_cond(&mut self, v: bool, span: Span, line: Span, name: &'static str) {
        let group = self.out.conditionals.len();
        self.out.conditionals.push(CondGroup {
            lines: vec![line],
            taken: v.then_some(0),
        });
        self.conds.push(Cond {
            state: if v {
                CondState::Taking
            } else {
                CondState::Waiting
            },
            group: Some(group),
            else_span: None,
            span,
            name,
        });
    }

    /// Records a directive line of the innermost group (`#elif`, `#else`, `#endif`); returns
    /// its index in the group's lines.
    fn group_line(&mut self, line: Span) -> Option<usize> {
        let g = self.conds.last()?.group?;
        let group = self.out.conditionals.get_mut(g)?;
        group.lines.push(line);
        Some(group.lines.len() - 1)
    }

    /// The innermost group's branch starting at directive line `at` is the one taken.
    fn group_taken(&mut self, at: Option<usize>) {
        let g = self.conds.last().and_then(|c| c.group);
        if let Some(group) = g.and_then(|g| self.out.conditionals.get_mut(g)) {
            group.taken = at;
        }
    }

    pub(super) fn do_elif(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line: Span,
    ) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#elif` without `#if`"));
            return;
        }
        let at = self.group_line(line);
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
                    self.group_taken(at);
                }
            }
            CondState::Done | CondState::Dead => {}
        }
    }

    pub(super) fn do_else(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line: Span,
    ) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#else` without `#if`"));
            return;
        }
        let at = self.group_line(line);
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
        if c.state == CondState::Taking {
            self.group_taken(at);
        }
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

    pub(super) fn do_endif(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line: Span,
    ) {
        if self.conds.len() <= self.cond_base() {
            self.error(Diag::error(dspan, "`#endif` without `#if`"));
            return;
        }
        self.group_line(line);
        if let Some(c) = self.conds.pop() {
            if c.state != CondState::Dead {
                let toks = self.line_toks(file, text, rest, false);
                self.extra_tokens(&toks, "endif");
            }
        }
    }

    /// Replaces `defined X` / `defined(X)` by `1` or `0`; `None` after reporting a malformed one.
    pub(super) fn replace_defined(&mut self, toks: Vec<Tok>) -> Option<Vec<Tok>> {
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

    pub(super) fn eval_if(
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

    pub(super) fn undef(&mut self, file: FileId, text: &str, rest: &[RawToken], dspan: Span) {
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

    pub(super) fn store_macro(&mut self, m: Macro) {
        let i = m.name as usize;
        if self.macros.len() <= i {
            self.macros.resize(i + 1, None);
        }
        if let Some(slot) = self.macros.get_mut(i) {
            *slot = Some(Rc::new(m));
        }
    }

    /// `#define` (the tokens after `define`); `line_span` is used when the name is missing.
    pub(super) fn define(&mut self, toks: Vec<Tok>, line_span: Span) {
        let Some(name) = self.define_name(&toks, line_span) else {
            return;
        };
        let func = toks
            .get(1)
            .is_some_and(|t| self.is_punct(t, self.s.lparen) && !t.space);
        let (params, variadic, i) = if func {
            let Some(list) = self.macro_params(&toks, name) else {
                return;
            };
            list
        } else {
            (Vec::new(), false, 1)
        };
        let body = macro_body(toks.get(i..).unwrap_or(&[]), func, &params);
        if !self.check_macro_body(&body, func) {
            return;
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

    /// The name `#define` defines (the first of `toks`), or `None` when it is missing, not an
    /// identifier or `defined` (reported; `line_span` locates a missing one).
    fn define_name(&mut self, toks: &[Tok], line_span: Span) -> Option<Tok> {
        let Some(&name) = toks.first() else {
            self.error(Diag::error(
                line_span,
                "expected macro name after `#define`",
            ));
            return None;
        };
        if name.kind != TK::Ident {
            let d = Diag::error(name.span, "macro name must be an identifier")
                .label("expected an identifier");
            self.error(d);
            return None;
        }
        if name.sym == self.s.defined {
            let d = Diag::error(name.span, "`defined` cannot be used as a macro name");
            self.error(d);
            return None;
        }
        Some(name)
    }

    /// The parameter list of the function-like macro `name` (`toks` are the tokens after
    /// `define`, `(` second): the parameters (`__VA_ARGS__` last for `...`), whether it is
    /// variadic, and the index of the body's first token; or `None` when the list is malformed
    /// (reported).
    fn macro_params(&mut self, toks: &[Tok], name: Tok) -> Option<(Vec<Sym>, bool, usize)> {
        let mut params: Vec<Sym> = Vec::new();
        let mut variadic = false;
        let mut i = 2;
        let mut expect = true;
        loop {
            let Some(&t) = toks.get(i) else {
                let sp = toks.last().map_or(name.span, |t| t.span);
                let d = Diag::error(sp, "missing `)` in macro parameter list")
                    .with_label(name.span, "in the definition of this macro");
                self.error(d);
                return None;
            };
            i += 1;
            if expect {
                if self.is_punct(&t, self.s.rparen) && params.is_empty() {
                    break;
                }
                let mut is_ellipsis = self.is_punct(&t, self.s.ellipsis);
                if t.kind == TK::Ident {
                    if t.sym == self.s.va_args {
                        let d =
                            Diag::error(t.span, "`__VA_ARGS__` cannot be a macro parameter name")
                                .help("write `...` for a variadic macro");
                        self.error(d);
                        return None;
                    }
                    if params.contains(&t.sym) {
                        let d = Diag::error(
                            t.span,
                            format!("duplicate macro parameter `{}`", self.text_of(&t)),
                        );
                        self.error(d);
                        return None;
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
                            return None;
                        }
                    }
                }
                let d = Diag::error(
                    t.span,
                    format!("expected parameter name, found `{}`", self.text_of(&t)),
                );
                self.error(d);
                return None;
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
                return None;
            }
        }
        Some((params, variadic, i))
    }

    /// Whether a macro's body is well formed: no `##` at either end, and in a function-like
    /// macro every `#` followed by a parameter; the first violation is reported.
    fn check_macro_body(&mut self, body: &[BTok], func: bool) -> bool {
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
            return false;
        }
        if func {
            for (k, b) in body.iter().enumerate() {
                if self.is_punct(&b.tok, self.s.hash)
                    && body.get(k + 1).is_none_or(|n| n.param.is_none())
                {
                    let d = Diag::error(b.tok.span, "`#` is not followed by a macro parameter");
                    self.error(d);
                    return false;
                }
            }
        }
        true
    }

    /// `#include` (`rest`: the raw tokens after `include`, `line_end` the end of its line): a
    /// `<name>` found in no `-I` directory stays an `#include` line; a file found is pushed on
    /// the file stack, unless `#pragma once` already saw it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn include(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line_span: Span,
        line_end: usize,
    ) {
        let Some((name, name_span, system)) = self.include_name(file, text, rest, dspan, line_end)
        else {
            return;
        };
        // `<name>` is searched in the `-I` directories, as `cc` does before its system
        // directories; found nowhere, it is a system header and stays an `#include` line.
        if system
            && !self
                .opts
                .include_dirs
                .iter()
                .any(|d| d.join(&name).is_file())
        {
            self.system_include(name, line_span);
            return;
        }
        if name.is_empty() {
            self.error(Diag::error(name_span, "empty file name in `#include`"));
            return;
        }
        if !self.count_include(name_span) {
            return;
        }
        let Some(path) = self.find_include(file, &name, name_span, system) else {
            return;
        };
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.once.contains(&key) {
            if let Some(&(fid, _, _)) = self.file_cache.get(&key) {
                let edge = LocalInclude {
                    line: line_span,
                    file: fid,
                };
                self.out.local_includes.push(edge);
            }
            return;
        }
        let Some((fid, ftext, ftoks)) = self.read_include(&path, &key, &name, name_span) else {
            return;
        };
        self.out.local_includes.push(LocalInclude {
            line: line_span,
            file: fid,
        });
        self.push_file(fid, ftext, ftoks, key);
    }

    /// Reports a malformed `#include` at `sp`.
    fn bad_include(&mut self, sp: Span) {
        let d = Diag::error(sp, "`#include` expects \"FILENAME\" or <FILENAME>");
        self.error(d);
    }

    /// The file `#include` names, where, and whether as `<name>` (a system header); or `None`
    /// when the directive is malformed (reported). `"name"` and `<name>` are read as written;
    /// other tokens are macro-expanded first.
    fn include_name(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        dspan: Span,
        line_end: usize,
    ) -> Option<(String, Span, bool)> {
        let Some(&first) = rest.first() else {
            self.bad_include(dspan);
            return None;
        };
        let first_text = text.get(first.lo..first.hi).unwrap_or("");
        if first.kind == RawKind::Str {
            match first_text
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
            {
                Some(n) => Some((n.to_string(), Span::new(file, first.lo, first.hi), false)),
                None => {
                    self.bad_include(Span::new(file, first.lo, first.hi));
                    None
                }
            }
        } else if first.kind == RawKind::Punct && first_text == "<" {
            let after = text.get(first.hi..line_end).unwrap_or("");
            match after.find('>') {
                Some(k) => Some((
                    after.get(..k).unwrap_or("").trim().to_string(),
                    Span::new(file, first.lo, first.hi + k + 1),
                    true,
                )),
                None => {
                    let d = Diag::error(
                        Span::new(file, first.lo, line_end),
                        "missing `>` in `#include`",
                    );
                    self.error(d);
                    None
                }
            }
        } else {
            self.expanded_include_name(file, text, rest, Span::new(file, first.lo, first.hi))
        }
    }

    /// The file a macro-expanded `#include` names (`rest` expanded to `"name"` or `<name>`), as
    /// [`Self::include_name`] gives it; `first` locates the error when nothing is left.
    fn expanded_include_name(
        &mut self,
        file: FileId,
        text: &str,
        rest: &[RawToken],
        first: Span,
    ) -> Option<(String, Span, bool)> {
        let toks = self.line_toks(file, text, rest, true);
        let toks = self.expand_isolated(toks, RunKind::Directive { record: false });
        match toks.first() {
            Some(t) if t.kind == TK::Str => {
                let s = self.text_of(t);
                match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    Some(n) => Some((n.to_string(), t.span, false)),
                    None => {
                        self.bad_include(t.span);
                        None
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
                    return None;
                }
                Some((n, t.span, true))
            }
            Some(t) => {
                self.bad_include(t.span);
                None
            }
            None => {
                self.bad_include(first);
                None
            }
        }
    }

    /// A system header `<name>` (at `line_span`) that stays an `#include` line; the macros
    /// accshare knows it to define are read once, from a file of their own.
    fn system_include(&mut self, name: String, line_span: Span) {
        if let Some(text) = super::system::header_macros(&name) {
            let key = std::path::PathBuf::from(format!("<{name}>"));
            if self.once.insert(key.clone()) {
                let fid = self.sources.add(
                    format!("<{name} (accshare)>"),
                    std::path::PathBuf::new(),
                    text.to_string(),
                );
                let rc: Rc<str> = Rc::from(text);
                let toks = Rc::new(lex(text));
                self.push_file(fid, rc, toks, key);
            }
        }
        self.out.system_includes.push((name, line_span));
    }

    /// Counts one more `#include` (at `name_span`), or reports (once) that files nest too
    /// deeply or that there are too many, and says `false`.
    fn count_include(&mut self, name_span: Span) -> bool {
        if self.files.len() > MAX_INCLUDE_DEPTH {
            if !self.too_deep.insert(name_span) {
                return false;
            }
            let d = Diag::error(name_span, "#include nested too deeply")
                .note(format!("the limit is {MAX_INCLUDE_DEPTH} nested files"));
            self.error(d);
            return false;
        }
        if self.include_count >= MAX_INCLUDES {
            if !self.include_limit_reported {
                self.include_limit_reported = true;
                let d = Diag::error(name_span, "too many `#include`s")
                    .note(format!("the limit is {MAX_INCLUDES} per translation unit"));
                self.error(d);
            }
            return false;
        }
        self.include_count += 1;
        true
    }

    /// The path of the included `name`: searched in the including `file`'s directory (not for a
    /// `<name>`, `system`) then in the `-I` directories; or `None`, reported at `name_span`.
    fn find_include(
        &mut self,
        file: FileId,
        name: &str,
        name_span: Span,
        system: bool,
    ) -> Option<PathBuf> {
        let cur_dir = self
            .sources
            .path(file)
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs = if system { Vec::new() } else { vec![cur_dir] };
        dirs.extend(self.opts.include_dirs.iter().cloned());
        let found = dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
        if found.is_none() {
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
        }
        found
    }

    /// The included file at `path` (`key`: its canonical path), read and lexed once and then
    /// cached; or `None` when it cannot be read (reported at `name_span`).
    fn read_include(
        &mut self,
        path: &Path,
        key: &Path,
        name: &str,
        name_span: Span,
    ) -> Option<CachedFile> {
        if let Some(c) = self.file_cache.get(key) {
            return Some(c.clone());
        }
        match std::fs::read(path) {
            Ok(bytes) => {
                let s = match String::from_utf8(bytes) {
                    Ok(s) => s,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                };
                let rc: Rc<str> = Rc::from(s.as_str());
                let fid =
                    self.sources
                        .add(path.to_string_lossy().into_owned(), path.to_path_buf(), s);
                let toks = Rc::new(lex(&rc));
                let c = (fid, rc, toks);
                self.file_cache.insert(key.to_path_buf(), c.clone());
                Some(c)
            }
            Err(e) => {
                let d = Diag::error(name_span, format!("cannot read include file `{name}`: {e}"));
                self.error(d);
                None
            }
        }
    }

    pub(super) fn pragma(
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
}

/// A macro's body from its tokens: the first without its leading space, none marked
/// `noexpand`, and in a function-like macro (`func`) each of `params` marked by its index.
fn macro_body(body_toks: &[Tok], func: bool, params: &[Sym]) -> Vec<BTok> {
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
    body
}
