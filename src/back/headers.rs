//! Copies of the user's headers that include `<openacc.h>`, written beside the output.
//!
//! The generated `.c` provides the OpenACC runtime API in its prelude (see
//! [`crate::back::host`]), and the main file's own `#include <openacc.h>` lines become comments.
//! A header of the program that includes `<openacc.h>` cannot be edited in place (it belongs to
//! the user, and other files may include it), and left alone it would include the system's
//! `openacc.h` (GCC's, say) beside the prelude's definitions, which does not compile, or find no
//! such file where no OpenACC compiler is installed. So every header that includes `<openacc.h>`,
//! and every header of the program that includes such a header, is written as a *shadow copy*
//! into the output directory: the same text, with
//!
//! - each `#include <openacc.h>` line replaced by a comment (the prelude already declared the
//!   API, as it does for the main file);
//! - each `#include` of another shadowed header naming its copy, and each other `#include` of a
//!   file of the program naming that file by its absolute path (the copy lives in another
//!   directory than the original, so a relative name would be searched elsewhere);
//! - a `#line 1 "<original path>"` first, so that `__FILE__`, `__LINE__` and the C compiler's
//!   messages still name the original.
//!
//! The main file's `#include` lines of shadowed headers name the copies ([`Shadows::main_edits`]);
//! the C compiler finds them first, in the directory of the `.c`. Copies are named
//! `<stem>.accshare-<hash>.h`, the hash of the original's canonical path, so that several
//! programs compiled into one directory share the copy of a header they share and never
//! overwrite another header's.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::back::host::c_escape;
use crate::diag::{FileId, SourceMap};
use crate::front::preprocess::PpOutput;

/// One shadow copy: its file name in the output directory and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub text: String,
}

/// A replacement of `range` of a text by `with` (whole lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub with: String,
}

/// The shadow copies of a program and the edits of its main file's `#include` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shadows {
    pub headers: Vec<Header>,
    /// Edits of the main file (byte offsets of its text): `#include` lines naming copies.
    pub main_edits: Vec<Edit>,
}

/// The comment an `#include <openacc.h>` line becomes.
pub const OPENACC_COMMENT: &str = "/* accshare: <openacc.h> is provided by the prelude above */";
const OPENACC_HEADER_COMMENT: &str =
    "/* accshare: <openacc.h> is provided by the prelude of the generated .c */";

/// The shadow copies `main`'s program needs (none when no header of it includes `<openacc.h>`).
pub fn shadows(sources: &SourceMap, main: FileId, pp: &PpOutput) -> Shadows {
    let openacc: Vec<(FileId, Range<usize>)> = pp
        .system_includes
        .iter()
        .filter(|(name, span)| name.trim() == "openacc.h" && span.file != main)
        .map(|(_, span)| (span.file, span.range()))
        .collect();
    // The headers to copy: those including <openacc.h>, then their includers, to a fixpoint.
    let mut needs: BTreeSet<FileId> = openacc.iter().map(|(f, _)| *f).collect();
    loop {
        let before = needs.len();
        for inc in &pp.local_includes {
            if needs.contains(&inc.file) && inc.line.file != main {
                needs.insert(inc.line.file);
            }
        }
        if needs.len() == before {
            break;
        }
    }
    if needs.is_empty() {
        return Shadows::default();
    }
    let names: BTreeMap<FileId, String> =
        needs.iter().map(|&f| (f, copy_name(sources, f))).collect();
    // The edits of every file, deduplicated (a header read twice records its lines twice).
    let mut edits: BTreeMap<FileId, BTreeMap<usize, Edit>> = BTreeMap::new();
    for (f, range) in &openacc {
        let e = line_edit(sources.text(*f), range.clone(), OPENACC_HEADER_COMMENT);
        edits.entry(*f).or_default().insert(range.start, e);
    }
    for inc in &pp.local_includes {
        let from = inc.line.file;
        if from != main && !needs.contains(&from) {
            continue;
        }
        let target = match names.get(&inc.file) {
            Some(name) => name.clone(),
            // The main file's includes of unshadowed files stay as written.
            None if from == main => continue,
            None => match absolute(sources, inc.file) {
                Some(p) => p,
                None => continue,
            },
        };
        let e = Edit {
            range: inc.line.range(),
            with: format!("#include \"{target}\""),
        };
        edits
            .entry(from)
            .or_default()
            .insert(inc.line.range().start, e);
    }
    let mut out = Shadows::default();
    for (&f, name) in &names {
        let text = sources.text(f);
        let file_edits: Vec<Edit> = edits
            .get(&f)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        let original = sources
            .path(f)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| sources.name(f).to_string());
        out.headers.push(Header {
            name: name.clone(),
            text: format!(
                "#line 1 \"{}\"\n{}",
                c_escape(&original),
                apply(text, 0..text.len(), &file_edits)
            ),
        });
    }
    out.main_edits = edits
        .remove(&main)
        .map(|m| m.into_values().collect())
        .unwrap_or_default();
    out
}

/// `text[range]` with the `edits` (sorted by start, disjoint, at line boundaries) that start
/// in it applied; an edit that starts before the range only hides its own bytes. The output's
/// main file and the shadow copies are both written through it.
pub fn apply(text: &str, range: Range<usize>, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(range.len());
    let mut pos = range.start;
    let first = edits.partition_point(|c| c.range.end <= range.start);
    for e in &edits[first..] {
        if e.range.start >= range.end {
            break;
        }
        if e.range.start >= pos {
            out.push_str(text.get(pos..e.range.start).unwrap_or(""));
            out.push_str(&e.with);
        }
        pos = pos.max(e.range.end).min(range.end);
    }
    if pos < range.end {
        out.push_str(text.get(pos..range.end).unwrap_or(""));
    }
    out
}

/// An edit replacing the directive line `line` of `text` by `with`, keeping the line's newlines
/// (a directive continued over several lines) so that line numbers stay the original's.
fn line_edit(text: &str, line: Range<usize>, with: &str) -> Edit {
    let newlines = text
        .get(line.clone())
        .map_or(0, |t| t.matches('\n').count());
    Edit {
        range: line,
        with: format!("{with}{}", "\n".repeat(newlines)),
    }
}

/// `<stem>.accshare-<8 hex digits>.h`: the hash (FNV-1a) of the canonical path.
fn copy_name(sources: &SourceMap, f: FileId) -> String {
    let path = sources.path(f).map(|p| p.to_path_buf()).unwrap_or_default();
    let key = std::fs::canonicalize(&path).unwrap_or(path.clone());
    let mut h: u32 = 0x811c_9dc5;
    for b in key.to_string_lossy().bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    let stem: String = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "header".to_string())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}.accshare-{h:08x}.h")
}

/// The absolute path of a file of the program, if it can be spelled in an `#include "…"` (no
/// `"` and no newline in it).
fn absolute(sources: &SourceMap, f: FileId) -> Option<String> {
    let p = std::fs::canonicalize(sources.path(f)?).ok()?;
    let s = p.to_str()?.to_string();
    (!s.contains(['"', '\n'])).then_some(s)
}
