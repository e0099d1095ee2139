//! A small recursive-descent C parser for the region tests: enough C (functions, declarations,
//! `for`/`if`/`while`, `goto`/labels/`switch`, expressions) to write test inputs as text. It
//! panics on anything else; it is test code. Pragma lines become `StmtKind::Pragma` /
//! `ItemKind::Pragma` like the real parser's.

use std::path::PathBuf;

use crate::diag::{Diags, FileId, SourceMap, Span};
use crate::front::ast::*;
use crate::front::lexer::{lex, RawKind};
use crate::front::pragma::parse_pragma;
use crate::front::pragma_ast::Pragma;
use crate::front::preprocess::PragmaLine;

#[derive(Clone, Debug)]
enum Tok {
    Word(String),
    Num(String),
    Punct(String),
    Pragma(u32),
}

pub struct Parsed {
    pub sources: SourceMap,
    pub tu: TranslationUnit,
    pub pragmas: Vec<Pragma>,
    pub diags: Diags,
}

/// Parses `text` as file `t.c`, and its pragmas with `parse_pragma`.
pub fn parse(text: &str, int_macros: &[(String, i64)]) -> Parsed {
    parse_with(text, int_macros, false)
}

/// Like [`parse`]; `group_pragmas` puts a pragma in a loop body and the statement after it in a
/// block.
pub fn parse_with(text: &str, int_macros: &[(String, i64)], group_pragmas: bool) -> Parsed {
    let mut sources = SourceMap::new();
    let file = sources.add("t.c", PathBuf::from("t.c"), text.to_string());
    let raw = lex(text);
    let mut toks: Vec<(Tok, usize, usize)> = Vec::new();
    let mut lines: Vec<PragmaLine> = Vec::new();
    let mut k = 0;
    let mut line_start = true;
    while k < raw.len() {
        let t = raw[k];
        let s = &text[t.lo..t.hi];
        match t.kind {
            RawKind::Newline => {
                line_start = true;
                k += 1;
                continue;
            }
            RawKind::Hash if line_start => {
                // `#pragma …` to the end of the line.
                let end = raw[k..]
                    .iter()
                    .position(|r| r.kind == RawKind::Newline)
                    .map(|p| k + p)
                    .unwrap_or(raw.len());
                let body_lo = raw.get(k + 2).map(|r| r.lo).unwrap_or(t.hi);
                let body_hi = raw[k..end].last().map(|r| r.hi).unwrap_or(t.hi);
                let line_hi = raw.get(end).map(|r| r.lo).unwrap_or(text.len());
                lines.push(PragmaLine {
                    span: Span::new(file, body_lo, body_hi.max(body_lo)),
                    tokens: Vec::new(),
                    line_span: Span::new(file, t.lo, line_hi),
                });
                toks.push((Tok::Pragma(lines.len() as u32 - 1), t.lo, line_hi));
                k = end;
                continue;
            }
            RawKind::Ident => toks.push((Tok::Word(s.to_string()), t.lo, t.hi)),
            RawKind::Number => toks.push((Tok::Num(s.to_string()), t.lo, t.hi)),
            _ => toks.push((Tok::Punct(s.to_string()), t.lo, t.hi)),
        }
        line_start = false;
        k += 1;
    }
    let mut diags = Diags::new();
    let pragmas = lines
        .iter()
        .map(|l| parse_pragma(l, &sources, int_macros, &mut diags))
        .collect();
    let mut p = P {
        group_pragmas,
        toks,
        pos: 0,
        file,
    };
    let mut items = Vec::new();
    while p.pos < p.toks.len() {
        items.push(p.item());
    }
    Parsed {
        sources,
        tu: TranslationUnit { items },
        pragmas,
        diags,
    }
}

struct P {
    /// Group a pragma in a single-statement position with the statement after it (otherwise the
    /// pragma alone is the body, like the real parser does).
    group_pragmas: bool,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    file: FileId,
}

const TYPE_WORDS: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const",
    "static", "extern", "restrict", "size_t", "struct", "_Bool",
];

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }
    fn is(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(p)) | Some(Tok::Word(p)) if p == s)
    }
    fn lo(&self) -> usize {
        self.toks.get(self.pos).map(|t| t.1).unwrap_or(0)
    }
    fn prev_hi(&self) -> usize {
        self.toks[self.pos - 1].2
    }
    fn span(&self, lo: usize) -> Span {
        Span::new(self.file, lo, self.prev_hi())
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        self.pos += 1;
        t
    }
    fn expect(&mut self, s: &str) {
        assert!(self.is(s), "expected `{s}` at token {:?}", self.peek());
        self.pos += 1;
    }
    fn word(&mut self) -> Ident {
        let lo = self.lo();
        match self.bump() {
            Tok::Word(w) => Ident {
                name: w,
                span: self.span(lo),
            },
            t => panic!("expected a name, got {t:?}"),
        }
    }
    fn starts_type(&self) -> bool {
        matches!(self.peek(), Some(Tok::Word(w)) if TYPE_WORDS.contains(&w.as_str()))
    }

    /// Specifiers: `static const unsigned int`, `struct point`.
    fn base_type(&mut self) -> (CType, Storage) {
        let mut storage = Storage::None;
        let mut words = Vec::new();
        let mut is_const = false;
        let mut tagged = None;
        while self.starts_type() {
            let Tok::Word(w) = self.bump() else {
                unreachable!()
            };
            match w.as_str() {
                "static" => storage = Storage::Static,
                "extern" => storage = Storage::Extern,
                "const" => is_const = true,
                "restrict" => {}
                "struct" => tagged = Some(self.word().name),
                _ => words.push(w),
            }
        }
        let ty = if let Some(name) = tagged {
            CType::Tagged {
                kind: TagKind::Struct,
                name,
            }
        } else {
            let has = |s: &str| words.iter().any(|w| w == s);
            let longs = words.iter().filter(|w| *w == "long").count();
            let unsigned = has("unsigned");
            match () {
                _ if has("void") => CType::Void,
                _ if has("float") => CType::Scalar(Scalar::Float),
                _ if has("double") => CType::Scalar(Scalar::Double),
                _ if has("char") => CType::Scalar(if unsigned {
                    Scalar::UChar
                } else {
                    Scalar::Char
                }),
                _ if has("size_t") => CType::Scalar(Scalar::SizeT),
                _ if longs > 0 => CType::Scalar(if unsigned {
                    Scalar::ULong
                } else {
                    Scalar::Long
                }),
                _ => CType::Scalar(if unsigned { Scalar::UInt } else { Scalar::Int }),
            }
        };
        let ty = if is_const {
            CType::Const(Box::new(ty))
        } else {
            ty
        };
        (ty, storage)
    }

    /// A declarator: `*restrict p`, `A[N][M]`, `(*A)[M]`.
    fn declarator(&mut self, base: &CType) -> (Option<Ident>, CType) {
        let mut ty = base.clone();
        while self.is("*") {
            self.bump();
            let mut c = false;
            let mut r = false;
            loop {
                if self.is("const") {
                    c = true;
                } else if self.is("restrict") {
                    r = true;
                } else {
                    break;
                }
                self.bump();
            }
            ty = CType::Pointer {
                to: Box::new(ty),
                is_const: c,
                is_restrict: r,
            };
        }
        if self.is("(") {
            // `(*name)[M]`
            self.bump();
            self.expect("*");
            let name = self.word();
            self.expect(")");
            let dims = self.dims();
            let mut inner = ty;
            for d in dims.into_iter().rev() {
                inner = CType::Array {
                    elem: Box::new(inner),
                    len: d.map(Box::new),
                };
            }
            return (
                Some(name),
                CType::Pointer {
                    to: Box::new(inner),
                    is_const: false,
                    is_restrict: false,
                },
            );
        }
        let name = if matches!(self.peek(), Some(Tok::Word(_))) {
            Some(self.word())
        } else {
            None
        };
        let dims = self.dims();
        for d in dims.into_iter().rev() {
            ty = CType::Array {
                elem: Box::new(ty),
                len: d.map(Box::new),
            };
        }
        (name, ty)
    }

    fn dims(&mut self) -> Vec<Option<Expr>> {
        let mut dims = Vec::new();
        while self.is("[") {
            self.bump();
            if self.is("]") {
                dims.push(None);
            } else {
                dims.push(Some(self.assign()));
            }
            self.expect("]");
        }
        dims
    }

    fn item(&mut self) -> Item {
        let lo = self.lo();
        if let Some(Tok::Pragma(i)) = self.peek() {
            let i = *i;
            self.bump();
            return Item {
                kind: ItemKind::Pragma(i),
                span: self.span(lo),
            };
        }
        if self.is("struct") && matches!(self.peek_at(2), Some(Tok::Punct(p)) if p == "{") {
            // A struct definition: opaque.
            while !self.is("}") {
                self.bump();
            }
            self.bump();
            self.expect(";");
            return Item {
                kind: ItemKind::Opaque,
                span: self.span(lo),
            };
        }
        let (base, storage) = self.base_type();
        let (name, ty) = self.declarator(&base);
        if self.is("(") {
            self.bump();
            let mut params = Vec::new();
            while !self.is(")") {
                let plo = self.lo();
                let (pb, _) = self.base_type();
                let (pn, pt) = self.declarator(&pb);
                params.push(Param {
                    name: pn,
                    ty: pt,
                    span: self.span(plo),
                });
                if self.is(",") {
                    self.bump();
                }
            }
            self.expect(")");
            if self.is(";") {
                self.bump();
                return Item {
                    kind: ItemKind::Opaque,
                    span: self.span(lo),
                };
            }
            let body = self.block();
            let span = self.span(lo);
            return Item {
                kind: ItemKind::Function(FunctionDef {
                    name: name.expect("function name"),
                    ret: ty,
                    params,
                    storage,
                    is_inline: false,
                    body,
                    span,
                }),
                span,
            };
        }
        let decl = self.decl_rest(lo, storage, &base, name, ty);
        Item {
            span: decl.span,
            kind: ItemKind::Decl(decl),
        }
    }

    fn decl_rest(
        &mut self,
        lo: usize,
        storage: Storage,
        base: &CType,
        first_name: Option<Ident>,
        first_ty: CType,
    ) -> Declaration {
        let mut declarators = Vec::new();
        let mut cur = (first_name, first_ty);
        loop {
            let init = if self.is("=") {
                self.bump();
                Some(Initializer::Expr(self.assign()))
            } else {
                None
            };
            let name = cur.0.expect("declared name");
            declarators.push(Declarator {
                span: name.span,
                name,
                ty: cur.1,
                init,
            });
            if self.is(",") {
                self.bump();
                cur = self.declarator(base);
            } else {
                break;
            }
        }
        self.expect(";");
        Declaration {
            storage,
            declarators,
            span: self.span(lo),
        }
    }

    fn block(&mut self) -> Block {
        let lo = self.lo();
        self.expect("{");
        let mut stmts = Vec::new();
        while !self.is("}") {
            stmts.push(self.stmt());
        }
        self.expect("}");
        Block {
            stmts,
            span: self.span(lo),
        }
    }

    fn stmt(&mut self) -> Stmt {
        let lo = self.lo();
        let kind = if let Some(Tok::Pragma(i)) = self.peek() {
            let i = *i;
            self.bump();
            StmtKind::Pragma(i)
        } else if self.is("{") {
            StmtKind::Block(self.block())
        } else if self.is("for") {
            self.bump();
            self.expect("(");
            let init = if self.is(";") {
                self.bump();
                ForInit::None
            } else if self.starts_type() {
                let dlo = self.lo();
                let (b, st) = self.base_type();
                let (n, t) = self.declarator(&b);
                ForInit::Decl(self.decl_rest(dlo, st, &b, n, t))
            } else {
                let e = self.expr();
                self.expect(";");
                ForInit::Expr(e)
            };
            let cond = if self.is(";") {
                None
            } else {
                Some(self.expr())
            };
            self.expect(";");
            let step = if self.is(")") {
                None
            } else {
                Some(self.expr())
            };
            self.expect(")");
            let body = Box::new(self.sub_stmt());
            StmtKind::For {
                init,
                cond,
                step,
                body,
            }
        } else if self.is("if") {
            self.bump();
            self.expect("(");
            let cond = self.expr();
            self.expect(")");
            let then = Box::new(self.sub_stmt());
            let els = if self.is("else") {
                self.bump();
                Some(Box::new(self.sub_stmt()))
            } else {
                None
            };
            StmtKind::If { cond, then, els }
        } else if self.is("while") {
            self.bump();
            self.expect("(");
            let cond = self.expr();
            self.expect(")");
            StmtKind::While {
                cond,
                body: Box::new(self.sub_stmt()),
            }
        } else if self.is("return") {
            self.bump();
            let e = if self.is(";") {
                None
            } else {
                Some(self.expr())
            };
            self.expect(";");
            StmtKind::Return(e)
        } else if self.is("break") || self.is("continue") {
            let b = self.is("break");
            self.bump();
            self.expect(";");
            if b {
                StmtKind::Break
            } else {
                StmtKind::Continue
            }
        } else if self.is(";") {
            self.bump();
            StmtKind::Empty
        } else if self.is("goto") {
            self.bump();
            self.word();
            self.expect(";");
            StmtKind::Unsupported {
                what: "goto".into(),
                body: None,
            }
        } else if self.is("switch") {
            self.bump();
            self.expect("(");
            self.expr();
            self.expect(")");
            StmtKind::Unsupported {
                what: "switch".into(),
                body: Some(Box::new(self.stmt())),
            }
        } else if self.is("case") || self.is("default") {
            let what = if self.is("case") { "case" } else { "default" };
            while !self.is(":") {
                self.bump();
            }
            self.bump();
            StmtKind::Unsupported {
                what: what.into(),
                body: Some(Box::new(self.stmt())),
            }
        } else if matches!(self.peek(), Some(Tok::Word(_)))
            && matches!(self.peek_at(1), Some(Tok::Punct(p)) if p == ":")
        {
            self.bump();
            self.bump();
            StmtKind::Unsupported {
                what: "label".into(),
                body: Some(Box::new(self.stmt())),
            }
        } else if self.starts_type() {
            let (b, st) = self.base_type();
            let (n, t) = self.declarator(&b);
            StmtKind::Decl(self.decl_rest(lo, st, &b, n, t))
        } else {
            let e = self.expr();
            self.expect(";");
            StmtKind::Expr(e)
        };
        Stmt {
            kind,
            span: self.span(lo),
        }
    }

    /// A statement in a single-statement position: pragma lines there and the statement after
    /// them form one block (as in `for (…)` / `#pragma acc loop` / `for (…)`).
    fn sub_stmt(&mut self) -> Stmt {
        if !self.group_pragmas || !matches!(self.peek(), Some(Tok::Pragma(_))) {
            return self.stmt();
        }
        let lo = self.lo();
        let mut stmts = Vec::new();
        while matches!(self.peek(), Some(Tok::Pragma(_))) {
            stmts.push(self.stmt());
        }
        stmts.push(self.stmt());
        let span = self.span(lo);
        Stmt {
            kind: StmtKind::Block(Block { stmts, span }),
            span,
        }
    }

    fn expr(&mut self) -> Expr {
        let lo = self.lo();
        let mut e = self.assign();
        while self.is(",") {
            self.bump();
            let r = self.assign();
            e = Expr::new(ExprKind::Comma(Box::new(e), Box::new(r)), self.span(lo));
        }
        e
    }

    fn assign(&mut self) -> Expr {
        let lo = self.lo();
        let l = self.cond();
        let op = match self.peek() {
            Some(Tok::Punct(p)) => match p.as_str() {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                _ => None,
            },
            _ => None,
        };
        match op {
            Some(op) => {
                self.bump();
                let r = self.assign();
                Expr::new(
                    ExprKind::Assign(op, Box::new(l), Box::new(r)),
                    self.span(lo),
                )
            }
            None => l,
        }
    }

    fn cond(&mut self) -> Expr {
        let lo = self.lo();
        let c = self.binary(0);
        if self.is("?") {
            self.bump();
            let a = self.expr();
            self.expect(":");
            let b = self.cond();
            return Expr::new(
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                self.span(lo),
            );
        }
        c
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Some(Tok::Punct(p)) = self.peek() else {
            return None;
        };
        Some(match p.as_str() {
            "||" => (BinOp::LogOr, 1),
            "&&" => (BinOp::LogAnd, 2),
            "|" => (BinOp::BitOr, 3),
            "^" => (BinOp::BitXor, 4),
            "&" => (BinOp::BitAnd, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8) -> Expr {
        let lo = self.lo();
        let mut l = self.unary();
        while let Some((op, p)) = self.binop() {
            if p <= min {
                break;
            }
            self.bump();
            let r = self.binary(p);
            l = Expr::new(
                ExprKind::Binary(op, Box::new(l), Box::new(r)),
                self.span(lo),
            );
        }
        l
    }

    fn unary(&mut self) -> Expr {
        let lo = self.lo();
        let op = match self.peek() {
            Some(Tok::Punct(p)) => match p.as_str() {
                "-" => Some(UnOp::Neg),
                "+" => Some(UnOp::Plus),
                "!" => Some(UnOp::Not),
                "~" => Some(UnOp::BitNot),
                "*" => Some(UnOp::Deref),
                "&" => Some(UnOp::AddrOf),
                _ => None,
            },
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let a = self.unary();
            return Expr::new(ExprKind::Unary(op, Box::new(a)), self.span(lo));
        }
        if self.is("++") || self.is("--") {
            let inc = self.is("++");
            self.bump();
            let a = self.unary();
            return Expr::new(
                ExprKind::IncDec {
                    inc,
                    prefix: true,
                    arg: Box::new(a),
                },
                self.span(lo),
            );
        }
        if self.is("(")
            && matches!(self.peek_at(1), Some(Tok::Word(w)) if TYPE_WORDS.contains(&w.as_str()))
        {
            self.bump();
            let (b, _) = self.base_type();
            let (_, t) = self.declarator(&b);
            self.expect(")");
            let a = self.unary();
            return Expr::new(ExprKind::Cast(t, Box::new(a)), self.span(lo));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Expr {
        let lo = self.lo();
        let mut e = self.primary();
        loop {
            if self.is("[") {
                self.bump();
                let i = self.expr();
                self.expect("]");
                e = Expr::new(ExprKind::Index(Box::new(e), Box::new(i)), self.span(lo));
            } else if self.is("(") {
                self.bump();
                let mut args = Vec::new();
                while !self.is(")") {
                    args.push(self.assign());
                    if self.is(",") {
                        self.bump();
                    }
                }
                self.expect(")");
                let ExprKind::Ident(name) = &e.kind else {
                    panic!("call of a non-name")
                };
                let f = Ident {
                    name: name.clone(),
                    span: e.span,
                };
                e = Expr::new(ExprKind::Call(f, args), self.span(lo));
            } else if self.is(".") || self.is("->") {
                let arrow = self.is("->");
                self.bump();
                let field = self.word();
                e = Expr::new(
                    ExprKind::Member {
                        base: Box::new(e),
                        field,
                        arrow,
                    },
                    self.span(lo),
                );
            } else if self.is("++") || self.is("--") {
                let inc = self.is("++");
                self.bump();
                e = Expr::new(
                    ExprKind::IncDec {
                        inc,
                        prefix: false,
                        arg: Box::new(e),
                    },
                    self.span(lo),
                );
            } else {
                return e;
            }
        }
    }

    fn primary(&mut self) -> Expr {
        let lo = self.lo();
        match self.bump() {
            Tok::Word(w) => Expr::new(ExprKind::Ident(w), self.span(lo)),
            Tok::Num(n) => {
                let kind = if n.contains(['.', 'e']) || n.ends_with('f') {
                    ExprKind::Float {
                        value: n.trim_end_matches('f').parse().unwrap_or(0.0),
                        single: n.ends_with('f'),
                    }
                } else {
                    ExprKind::Int {
                        value: n
                            .trim_end_matches(['u', 'l', 'U', 'L'])
                            .parse()
                            .unwrap_or(0),
                        suffix: IntSuffix::default(),
                        radix: 10,
                    }
                };
                Expr::new(kind, self.span(lo))
            }
            Tok::Punct(p) if p == "(" => {
                let e = self.expr();
                self.expect(")");
                e
            }
            t => panic!("unexpected {t:?}"),
        }
    }
}
