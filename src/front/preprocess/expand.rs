//! Macro expansion: contexts, argument collection, substitution with `#` and `##`, painting
//! of names that must not expand again, and the size limits.

use super::*;

impl Pp<'_> {
    pub(super) fn pop_ctx(&mut self) {
        if let Some(c) = self.run.ctx.pop() {
            if let Some(m) = c.mac {
                if let Some(d) = self.disabled.get_mut(m as usize) {
                    *d = d.saturating_sub(1);
                }
            }
        }
    }

    pub(super) fn push_ctx(&mut self, toks: Vec<Tok>, mac: Sym) {
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

    pub(super) fn paint(&self, mut t: Tok) -> Tok {
        if t.kind == TK::Ident
            && !t.noexpand
            && self.disabled.get(t.sym as usize).is_some_and(|&d| d > 0)
        {
            t.noexpand = true;
        }
        t
    }

    /// The next unexpanded token of the current run, and whether it came from a macro context.
    pub(super) fn read_raw(&mut self) -> Option<(Tok, bool)> {
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
    pub(super) fn peek_lparen(&mut self) -> bool {
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

    pub(super) fn peek_base_lparen(&self) -> bool {
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
    pub(super) fn next_tok(&mut self) -> Option<Tok> {
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

    pub(super) fn finish_tok(&self, mut t: Tok, from_ctx: bool) -> Tok {
        if from_ctx && self.run.kind != RunKind::Args {
            if let Some(o) = self.run.outer {
                t.span = o.span;
                t.exp = o.exp.unwrap_or(NO_EXP);
            }
        }
        t
    }

    /// Fully expands a token list in isolation (argument pre-expansion, directive lines).
    pub(super) fn expand_isolated(&mut self, toks: Vec<Tok>, kind: RunKind) -> Vec<Tok> {
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
    pub(super) fn user_span(&self, t: &Tok, from_ctx: bool) -> Span {
        match self.run.outer {
            Some(o) if from_ctx && self.run.kind != RunKind::Args => o.span,
            _ => t.span,
        }
    }

    pub(super) fn abort(&mut self, d: Diag) {
        if !self.aborted {
            self.error(d);
        }
        self.aborted = true;
    }

    pub(super) fn too_large(&mut self, span: Span, name: Sym) {
        let n = self.int.get(name).to_string();
        let d = Diag::error(span, "macro expansion too large").note(format!(
            "expanding `{n}` produced more than {MAX_EXPANSION_TOKENS} tokens"
        ));
        self.abort(d);
    }

    /// Expands the macro `m` named by `name` if it is invoked; pushes its expansion as a context.
    /// Returns false if `name` is a function-like macro not followed by `(`.
    pub(super) fn try_expand(&mut self, name: Tok, from_ctx: bool, m: &Rc<Macro>) -> bool {
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

    pub(super) fn builtin_tok(&mut self, b: Builtin, name: Tok) -> Tok {
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
    pub(super) fn collect_args(
        &mut self,
        m: &Macro,
        err_span: Span,
    ) -> Option<(Vec<Vec<Tok>>, Tok, bool)> {
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

    pub(super) fn check_args(
        &mut self,
        m: &Macro,
        args: &mut Vec<Vec<Tok>>,
        use_span: Span,
    ) -> bool {
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
    pub(super) fn expand_arg(&mut self, arg: &[Tok], use_span: Span) -> Vec<Tok> {
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

    pub(super) fn stringify(&mut self, arg: &[Tok], span: Span, space: bool) -> Tok {
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
    pub(super) fn substitute(&mut self, m: &Macro, args: &[Vec<Tok>], use_span: Span) -> Vec<Tok> {
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

    pub(super) fn paste_all(&mut self, toks: Vec<Tok>, use_span: Span) -> Vec<Tok> {
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

pub(super) fn same_definition(a: &Macro, b: &Macro) -> bool {
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
