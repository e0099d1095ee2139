//! The front end: preprocessor, lexer, parser, pragmas.
//!
//! `load` runs the whole front end on a file: read → preprocess → parse items → parse pragmas →
//! attach pragmas to statements → validate the regions.
//!
//! Invariant: the front end never panics; every problem in the input is a diagnostic with a span,
//! and all problems of a file are reported, not only the first.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod pragma;
pub mod pragma_ast;
pub mod preprocess;
pub mod region;
pub mod token;

use std::path::{Path, PathBuf};

use crate::diag::{Diag, Diags, FileId, SourceMap, Span};
use pragma_ast::Pragma;
use preprocess::{PpOptions, PpOutput};

/// Everything the front end learned about a file.
pub struct Parsed {
    pub main: FileId,
    pub pp: PpOutput,
    pub tu: ast::TranslationUnit,
    /// Parsed pragmas, indexed like `pp.pragmas`.
    pub pragmas: Vec<Pragma>,
}

/// Largest input accepted (bytes).
pub const MAX_INPUT: usize = 64 << 20;

/// Reads `path` into `sources` and runs the front end. Diagnostics (errors and warnings) go to
/// `diags`; the result is `None` only when the file cannot be read.
pub fn load(
    path: &Path,
    opts: &PpOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Parsed> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            diags.push(Diag {
                severity: crate::diag::Severity::Error,
                message: format!("cannot read `{}`: {}", path.display(), e),
                labels: Vec::new(),
                notes: Vec::new(),
            });
            return None;
        }
    };
    if bytes.len() > MAX_INPUT {
        diags.push(Diag {
            severity: crate::diag::Severity::Error,
            message: format!(
                "`{}` is too large ({} bytes; the limit is {} bytes)",
                path.display(),
                bytes.len(),
                MAX_INPUT
            ),
            labels: Vec::new(),
            notes: Vec::new(),
        });
        return None;
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let main = sources.add(path.display().to_string(), PathBuf::from(path), text);
    if bytes.contains(&0) {
        // A NUL byte cannot occur in C source: most likely a binary file.
        let at = bytes.iter().position(|&b| b == 0).unwrap_or(0);
        diags.push(
            Diag::error(Span::new(main, at, at + 1), "the file contains a NUL byte")
                .note("accshare reads C source text; is this a binary file?"),
        );
    }
    Some(load_source(main, opts, sources, diags))
}

/// Runs the front end on a file already in `sources`.
pub fn load_source(
    main: FileId,
    opts: &PpOptions,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Parsed {
    let pp = preprocess::preprocess(sources, main, opts, diags);
    let mut tu = parser::parse_translation_unit(&pp, sources, diags);
    let pragmas: Vec<Pragma> = pp
        .pragmas
        .iter()
        .map(|line| pragma::parse_pragma(line, sources, &pp.int_macros, diags))
        .collect();
    region::attach(&mut tu, &pragmas, diags);
    let routines = region::inline_routines(&mut tu, &pragmas, sources, diags);
    region::desugar(&mut tu);
    region::validate_with_routines(&tu, sources, &routines, diags);
    note_macro_origins(&pp, diags);
    diags.sort();
    Parsed {
        main,
        pp,
        tu,
        pragmas,
    }
}

/// A diagnostic whose primary span is a macro use gets a label at the macro's definition
/// ("in this expansion of macro `BAD`"): tokens from an expansion carry the span of the use, so
/// the caret is at the use, and this points at the text that produced the tokens.
pub fn note_macro_origins(pp: &PpOutput, diags: &mut Diags) {
    let by_use: std::collections::HashMap<Span, &preprocess::Expansion> = pp
        .expansions
        .iter()
        .rev()
        .map(|e| (e.use_span, e))
        .collect();
    for d in &mut diags.0 {
        let Some(primary) = d.primary_span() else {
            continue;
        };
        let Some(e) = by_use.get(&primary) else {
            continue;
        };
        if d.labels.iter().any(|l| l.span == e.def_span) {
            continue;
        }
        d.labels.push(crate::diag::Label {
            span: e.def_span,
            message: format!("in this expansion of macro `{}`", e.name),
            primary: false,
        });
    }
}
