//! The raw lexer: C preprocessing tokens, produced by logos.
//!
//! Keywords are lexed as identifiers: the preprocessor must see them as names (a macro may be
//! called `float`), and the parser adapter turns them into keywords after expansion
//! (`front::parser`). Comments and whitespace are skipped, but newlines are kept because the
//! preprocessor's directives are line based. A backslash-newline is a line continuation and is
//! skipped like whitespace. Malformed input (an unterminated comment or string, a stray byte)
//! becomes an [`RawKind::Error`] token: the lexer never fails and never panics.

use logos::Logos;

#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"([ \t\f\v\r]+|\\\r?\n)")]
pub enum RawKind {
    #[regex(r"\n")]
    Newline,
    #[regex(r"//[^\n]*", logos::skip, allow_greedy = true)]
    #[regex(r"/\*([^*]|\*+[^*/])*\*+/", logos::skip)]
    Comment,
    /// `/*` with no closing `*/` before the end of the file.
    #[regex(r"/\*([^*]|\*+[^*/])*\**", priority = 1, allow_greedy = true)]
    UnterminatedComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// A preprocessing number: digits, letters, `.`, exponents with signs (`1e-5f`, `0x1Fu`).
    #[regex(r"\.?[0-9]([0-9A-Za-z_.]|[eEpP][+-])*")]
    Number,
    #[regex(r"[LuU]?'([^'\\\n]|\\[^\n])*'")]
    Char,
    #[regex(r#"(u8|[LuU])?"([^"\\\n]|\\[^\n])*""#)]
    Str,
    #[regex(r#"(u8|[LuU])?"([^"\\\n]|\\[^\n])*"#, priority = 1)]
    UnterminatedStr,
    #[token("##")]
    HashHash,
    #[token("#")]
    Hash,
    #[regex(r"(\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\*=|/=|%=|\+=|-=|&=|\^=|\|=|[\[\](){}.&*+\-~!/%<>^|?:;=,])")]
    Punct,
    Error,
}

/// One raw token: its kind and byte range in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawToken {
    pub kind: RawKind,
    pub lo: usize,
    pub hi: usize,
}

/// Lexes a whole file. Never fails: bytes that start no token become `Error` tokens.
pub fn lex(text: &str) -> Vec<RawToken> {
    let mut out = Vec::new();
    let mut lx = RawKind::lexer(text);
    while let Some(r) = lx.next() {
        let span = lx.span();
        let kind = r.unwrap_or(RawKind::Error);
        out.push(RawToken {
            kind,
            lo: span.start,
            hi: span.end,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(RawKind, &str)> {
        lex(s)
            .into_iter()
            .map(|t| (t.kind, &s[t.lo..t.hi]))
            .collect()
    }

    #[test]
    fn numbers_and_puncts() {
        let k = kinds("x+=1.5e-3f; y = 0x1Fu >> 2;");
        assert_eq!(k[1], (RawKind::Punct, "+="));
        assert_eq!(k[2], (RawKind::Number, "1.5e-3f"));
        assert!(k.contains(&(RawKind::Number, "0x1Fu")));
        assert!(k.contains(&(RawKind::Punct, ">>")));
    }

    #[test]
    fn comments_and_continuations() {
        let k = kinds("a /* x\n y */ b // c\n#define X \\\n 1\n");
        let texts: Vec<&str> = k.iter().map(|t| t.1).collect();
        assert_eq!(texts, vec!["a", "b", "\n", "#", "define", "X", "1", "\n"]);
    }

    #[test]
    fn unterminated() {
        let k = kinds("a /* never closed\n b");
        assert_eq!(k[1].0, RawKind::UnterminatedComment);
        let k = kinds("\"abc\n");
        assert_eq!(k[0].0, RawKind::UnterminatedStr);
        let k = kinds("a @ b");
        assert_eq!(k[1].0, RawKind::Error);
    }
}
