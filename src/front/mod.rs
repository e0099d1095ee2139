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
    region::validate(&tu, sources, diags);
    diags.sort();
    Parsed {
        main,
        pp,
        tu,
        pragmas,
    }
}
