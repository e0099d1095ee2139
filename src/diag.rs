//! Source files, spans and diagnostics.
//!
//! Every stage reports problems as [`Diag`]s that point at a [`Span`] of a file held in the
//! [`SourceMap`]. Rendering uses codespan-reporting (rustc style: `error: …`, `--> file:line:col`,
//! the source line and a caret under the span). Diagnostics are data: tests assert their rendered
//! text, the CLI prints them, and a stage never panics to report a problem.

use codespan_reporting::diagnostic::{Diagnostic, Label as CsLabel, LabelStyle};
use codespan_reporting::files::{Files, SimpleFiles};
use codespan_reporting::term;

/// Index of a file in the [`SourceMap`].
pub type FileId = usize;

/// A byte range `lo..hi` of one file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(file: FileId, lo: usize, hi: usize) -> Span {
        Span {
            file,
            lo: lo as u32,
            hi: hi.max(lo) as u32,
        }
    }

    /// The smallest span covering both, when both are in the same file; otherwise `self`.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.lo as usize..self.hi as usize
    }

    pub fn contains(self, other: Span) -> bool {
        self.file == other.file && self.lo <= other.lo && other.hi <= self.hi
    }
}

/// All source files a compilation read (the main file, its local includes).
#[derive(Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
    paths: Vec<std::path::PathBuf>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file; `name` is how diagnostics show it.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        path: std::path::PathBuf,
        text: String,
    ) -> FileId {
        self.paths.push(path);
        self.files.add(name.into(), text)
    }

    pub fn text(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.name().as_str())
            .unwrap_or("?")
    }

    pub fn path(&self, file: FileId) -> Option<&std::path::Path> {
        self.paths.get(file).map(|p| p.as_path())
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The text a span covers (empty if the span is out of range).
    pub fn snippet(&self, span: Span) -> &str {
        self.text(span.file).get(span.range()).unwrap_or("")
    }

    /// 1-based line and column of the start of a span.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        match self.files.location(span.file, span.lo as usize) {
            Ok(loc) => (loc.line_number, loc.column_number),
            Err(_) => (0, 0),
        }
    }

    /// `file:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> String {
        let (l, c) = self.line_col(span);
        format!("{}:{}:{}", self.name(span.file), l, c)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

/// One diagnostic: a message, labelled spans and trailing notes (`= note: …`, `= help: …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diag {
    pub fn error(span: Span, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Error, span, message)
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Warning, span, message)
    }

    /// A note: something the compiler did that the user should know about (not a problem).
    pub fn info(span: Span, message: impl Into<String>) -> Diag {
        Diag::new(Severity::Note, span, message)
    }

    fn new(severity: Severity, span: Span, message: impl Into<String>) -> Diag {
        Diag {
            severity,
            message: message.into(),
            labels: vec![Label {
                span,
                message: String::new(),
                primary: true,
            }],
            notes: Vec::new(),
        }
    }

    /// Sets the text under the primary caret.
    pub fn label(mut self, message: impl Into<String>) -> Diag {
        if let Some(l) = self.labels.iter_mut().find(|l| l.primary) {
            l.message = message.into();
        }
        self
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diag {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Adds `= note: …`.
    pub fn note(mut self, message: impl Into<String>) -> Diag {
        self.notes.push(format!("note: {}", message.into()));
        self
    }

    /// Adds `= help: …`.
    pub fn help(mut self, message: impl Into<String>) -> Diag {
        self.notes.push(format!("help: {}", message.into()));
        self
    }

    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    fn to_codespan(&self) -> Diagnostic<FileId> {
        let d = match self.severity {
            Severity::Error => Diagnostic::error(),
            Severity::Warning => Diagnostic::warning(),
            Severity::Note => Diagnostic::note(),
        };
        d.with_message(&self.message)
            .with_labels(
                self.labels
                    .iter()
                    .map(|l| {
                        let style = if l.primary {
                            LabelStyle::Primary
                        } else {
                            LabelStyle::Secondary
                        };
                        CsLabel::new(style, l.span.file, l.span.range()).with_message(&l.message)
                    })
                    .collect(),
            )
            .with_notes(self.notes.clone())
    }
}

/// A list of diagnostics collected by a stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diags(pub Vec<Diag>);

impl Diags {
    pub fn new() -> Diags {
        Diags::default()
    }
    pub fn push(&mut self, d: Diag) {
        self.0.push(d);
    }
    pub fn extend(&mut self, other: Diags) {
        self.0.extend(other.0);
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diag::is_error)
    }
    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Diag> {
        self.0.iter()
    }
    /// Sorts by file position, errors and warnings interleaved as they occur in the source.
    pub fn sort(&mut self) {
        self.0
            .sort_by_key(|d| d.primary_span().map(|s| (s.file, s.lo)));
        self.0.dedup();
    }
}

/// Renders diagnostics as text, rustc style, without colors (for tests, files and stderr).
pub fn render(sources: &SourceMap, diags: &[Diag]) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in diags {
        // A label outside its file (never expected) would make codespan fail: drop such labels
        // rather than lose the diagnostic.
        let mut d = d.clone();
        d.labels.retain(|l| {
            l.span.file < sources.len() && (l.span.hi as usize) <= sources.text(l.span.file).len()
        });
        let _ = term::emit_to_string(&mut out, &config, &sources.files, &d.to_codespan());
    }
    out
}

/// Renders diagnostics to stderr.
pub fn eprint(sources: &SourceMap, diags: &[Diag]) {
    eprint!("{}", render(sources, diags));
}
