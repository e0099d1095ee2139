//! Assembles the output files: the user's text with regions replaced (`FILE.c`), plus the
//! kernels (`FILE.cl`, or `FILE.cu` with the CUDA side of the host code: [`device_file`]).
//!
//! [`assemble`] produces the `.c` translation unit: the prelude (see [`crate::back::host`]),
//! then the user's text byte for byte, except that each region's `replace` range is replaced
//! by its host code. Regions are a flat list; nesting is by range containment: a region inside
//! the `keep_body` of a data construct is spliced into the kept body. A preprocessor conditional
//! group that a replaced range cuts (some of its `#if`/`#elif`/`#else`/`#endif` lines replaced,
//! others not: pragmas chosen by `#ifdef` above a loop) is resolved as accshare evaluated it: its
//! remaining directive lines and the text of its branches not taken are left out, so the output
//! preprocesses as the input did (see [`Conditional`]). An inconsistent host plan
//! (overlapping regions, ranges outside the text, unknown kernels) never panics: the output
//! carries an `#error` line naming the problem, so building it fails loudly.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::back::headers::{apply as kept, Edit, OPENACC_COMMENT};
use crate::back::{host, Target};
use crate::kernel::{HostRegion, Module};

/// The text of the file written next to the `.c`: the OpenCL kernels as they are (the `.c`
/// embeds them), or the `.cu` translation unit (see [`host::cuda_unit`]).
pub fn device_file(module: &Module, kernel_source: &str, target: Target) -> String {
    match target {
        Target::OpenCl => kernel_source.to_string(),
        Target::Cuda => host::cuda_unit(module, kernel_source),
    }
}

/// A preprocessor conditional group of the main file (`#if`/`#ifdef`/`#ifndef` … `#endif`) whose
/// `#if` line was in active text, in byte offsets of that file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conditional {
    /// The directive lines in order (`#if…`, `#elif`s, `#else`, `#endif`), each from `#` to
    /// the end of its line.
    pub lines: Vec<Range<usize>>,
    /// The branch accshare's preprocessor took: the text after `lines[i]`; `None` if none.
    pub taken: Option<usize>,
}

/// The conditional groups of the preprocessed `main` file (those whose lines are all in it).
pub fn main_conditionals(
    pp: &crate::front::preprocess::PpOutput,
    main: crate::diag::FileId,
) -> Vec<Conditional> {
    pp.conditionals
        .iter()
        .filter(|g| g.lines.iter().all(|l| l.file == main))
        .map(|g| Conditional {
            lines: g.lines.iter().map(|l| l.range()).collect(),
            taken: g.taken,
        })
        .collect()
}

/// What the output changes in the main file's text besides the regions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewrites {
    /// The main file's conditional groups (those the regions cut are resolved).
    pub conditionals: Vec<Conditional>,
    /// `#include` lines naming shadow copies of headers ([`crate::back::headers`]).
    pub includes: Vec<Edit>,
}

/// The `.c` translation unit: prelude + the input text with every region replaced, the
/// conditional groups the regions cut resolved, and the `rewrites`' include lines.
pub fn assemble(
    input_text: &str,
    module: &Module,
    kernel_source: &str,
    target: Target,
    rewrites: &Rewrites,
) -> String {
    let mut errors: Vec<String> = Vec::new();
    let tree = Tree::build(input_text, &module.host, &mut errors);
    let cut = text_edits(input_text, &module.host, rewrites);
    let first = tree
        .roots
        .first()
        .map(|&r| module.host[r].replace.start)
        .unwrap_or(input_text.len());
    let at = prelude_insert_point(input_text).min(first);
    let body = splice(input_text, at, module, &tree, &cut, target, &mut errors);
    let mut out = String::with_capacity(input_text.len() + 16384);
    out.push_str(&kept(input_text, 0..at, &cut));
    if at > 0 && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&host::prelude(module, kernel_source, target));
    for e in &errors {
        out.push_str("#error ");
        out.push_str(&host::c_string(&format!("accshare: internal error: {}", e)));
        out.push('\n');
    }
    out.push_str("/* ---- end of the accshare prelude ---- */\n\n");
    out.push_str(&without_openacc_header(&body));
    out
}

/// The text with each `#include <openacc.h>` line replaced by a comment: the prelude provides
/// the OpenACC runtime API, and no such header is on the user's include path.
fn without_openacc_header(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let words: String = line.split_whitespace().collect();
        if words == "#include<openacc.h>" {
            out.push_str(OPENACC_COMMENT);
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Writes the output files of a compilation into `dir` (created if needed): `<stem>.c` (the
/// host translation unit) and `<stem>.cl` (the kernels, for reading) for OpenCL or `<stem>.cu`
/// (the CUDA side, compiled by nvcc) for CUDA; `device_source` is the text of the second file
/// ([`device_file`]); then the shadow copies of headers ([`crate::back::headers`]). Refuses to
/// overwrite `input` (compared as canonical paths) before writing anything.
pub fn write_outputs(
    dir: &Path,
    stem: &str,
    input: &Path,
    host_source: &str,
    device_source: &str,
    target: Target,
    headers: &[crate::back::headers::Header],
) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<(PathBuf, &str)> = vec![
        (
            dir.join(format!("{}.{}", stem, target.host_extension())),
            host_source,
        ),
        (
            dir.join(format!("{}.{}", stem, target.device_extension())),
            device_source,
        ),
    ];
    files.extend(headers.iter().map(|h| (dir.join(&h.name), h.text.as_str())));
    std::fs::create_dir_all(dir)?;
    if let Ok(input) = input.canonicalize() {
        for (path, _) in &files {
            if path.canonicalize().is_ok_and(|p| p == input) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    format!(
                        "refusing to overwrite the input file {} (choose another output directory with `-o`)",
                        path.display()
                    ),
                ));
            }
        }
    }
    let mut written = Vec::new();
    for (path, text) in files {
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// Where the prelude goes: after leading comments, blank lines and feature-test macro
/// definitions (`#define _GNU_SOURCE`, `#define _POSIX_C_SOURCE 200809L`, …), which must come
/// before the first system header to have an effect. Always the start of a line.
pub fn prelude_insert_point(text: &str) -> usize {
    let b = text.as_bytes();
    let mut at = 0; // last line start up to which everything is skippable
    let mut i = 0;
    loop {
        // Skip horizontal whitespace.
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r' || b[i] == b'\x0c') {
            i += 1;
        }
        if i >= b.len() {
            return at;
        }
        if b[i] == b'\n' {
            i += 1;
            at = i;
            continue;
        }
        if b[i..].starts_with(b"/*") {
            match text[i + 2..].find("*/") {
                Some(e) => i = i + 2 + e + 2,
                None => return at,
            }
            continue;
        }
        if b[i..].starts_with(b"//") {
            i = logical_line_end(b, i);
            continue;
        }
        if b[i] == b'#' && i == line_start(b, i) + leading_ws(b, line_start(b, i)) {
            let end = logical_line_end(b, i);
            if is_feature_macro(&text[i..end]) {
                i = end;
                continue;
            }
        }
        return at;
    }
}

fn line_start(b: &[u8], i: usize) -> usize {
    b[..i]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1)
}

fn leading_ws(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count()
}

/// The end (before the `\n`) of the line containing `i`, following backslash continuations.
fn logical_line_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        if b[i] == b'\n' {
            let mut j = i;
            while j > 0 && b[j - 1] == b'\r' {
                j -= 1;
            }
            if j > 0 && b[j - 1] == b'\\' {
                i += 1;
                continue;
            }
            return i;
        }
        i += 1;
    }
    i
}

/// `#define _NAME…` with a reserved name (`_` + uppercase letter): a feature-test macro.
fn is_feature_macro(line: &str) -> bool {
    let rest = line.trim_start_matches('#').trim_start();
    let Some(rest) = rest.strip_prefix("define") else {
        return false;
    };
    if !rest.starts_with([' ', '\t']) {
        return false;
    }
    let name = rest.trim_start().as_bytes();
    name.len() >= 2 && name[0] == b'_' && name[1].is_ascii_uppercase()
}

/// Regions arranged by containment.
struct Tree {
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
    /// Arrays held by the data constructs enclosing each region.
    enclosing: Vec<BTreeSet<String>>,
}

impl Tree {
    fn build(text: &str, regions: &[HostRegion], errors: &mut Vec<String>) -> Tree {
        let n = regions.len();
        let mut tree = Tree {
            roots: Vec::new(),
            children: vec![Vec::new(); n],
            enclosing: vec![BTreeSet::new(); n],
        };
        let ok_range = |r: &Range<usize>| {
            r.start <= r.end
                && r.end <= text.len()
                && text.is_char_boundary(r.start)
                && text.is_char_boundary(r.end)
        };
        let mut order: Vec<usize> = Vec::new();
        for (i, r) in regions.iter().enumerate() {
            if !ok_range(&r.replace) {
                errors.push(format!(
                    "region at {} has the byte range {:?}, outside the text ({} bytes)",
                    r.origin,
                    r.replace,
                    text.len()
                ));
                continue;
            }
            if let Some(kb) = &r.keep_body {
                if !ok_range(kb) || kb.start < r.replace.start || kb.end > r.replace.end {
                    errors.push(format!(
                        "data region at {} keeps the byte range {:?}, outside its range {:?}",
                        r.origin, kb, r.replace
                    ));
                    continue;
                }
            }
            order.push(i);
        }
        order.sort_by_key(|&i| {
            (
                regions[i].replace.start,
                std::cmp::Reverse(regions[i].replace.end),
            )
        });
        let mut stack: Vec<usize> = Vec::new();
        for i in order {
            let r = &regions[i].replace;
            while let Some(&top) = stack.last() {
                if regions[top].replace.end <= r.start {
                    stack.pop();
                } else {
                    break;
                }
            }
            match stack.last() {
                None => tree.roots.push(i),
                Some(&top) => {
                    let t = &regions[top];
                    let inside_body = t
                        .keep_body
                        .as_ref()
                        .is_some_and(|kb| kb.start <= r.start && r.end <= kb.end);
                    if !inside_body {
                        errors.push(format!(
                            "region at {} ({:?}) overlaps region at {} ({:?})",
                            regions[i].origin, r, t.origin, t.replace
                        ));
                        continue;
                    }
                    let mut enc = tree.enclosing[top].clone();
                    enc.extend(t.buffers.iter().map(|b| b.array.clone()));
                    tree.enclosing[i] = enc;
                    tree.children[top].push(i);
                }
            }
            stack.push(i);
        }
        tree
    }
}

enum Work {
    /// Copy `text[range]`, replacing the given regions (sorted, disjoint, inside the range).
    Seq(Range<usize>, Vec<usize>),
    Str(String),
}

/// The byte ranges of `text` the output leaves out so that every conditional group stays
/// balanced around the replaced text (sorted, disjoint). A group is *cut* when some of its
/// directive lines lie in text a region replaces (its pragma lines and statement, less the text it keeps: a data
/// construct's kept body) and others do not: e.g. `#ifndef X` / `#pragma acc parallel loop` /
/// `#elif X == 0` / `#pragma acc kernels loop` / `#endif` above a loop, where the region's text
/// starts at the first pragma and so holds the `#elif` and `#endif` but not the `#ifndef`.
/// Keeping the `#ifndef` alone would leave it unterminated. A cut group is resolved as the
/// preprocessor evaluated it when accshare read the file (the host code was generated for that
/// branch): its directive lines outside the replaced text are left out, and so is the text of
/// every branch not taken. Groups wholly inside or wholly outside the replaced text, or around
/// it, are kept as written.
fn resolved_conditionals(
    text: &str,
    regions: &[HostRegion],
    conditionals: &[Conditional],
) -> Vec<Range<usize>> {
    resolve_cut_groups(text, regions, conditionals, false)
}

/// The byte ranges of `text` that the sequential build of an instrumented copy of it leaves
/// out (`sim::trace`, which keeps every region's text and inserts code at its ends): every
/// directive line of each group a region cuts (as [`resolved_conditionals`] decides) and the
/// text of its branches not taken, so that the region's text stands as the branch accshare
/// evaluated, outside any conditional, and what is inserted around it stays balanced.
pub fn sequential_cuts(
    text: &str,
    regions: &[HostRegion],
    conditionals: &[Conditional],
) -> Vec<Range<usize>> {
    resolve_cut_groups(text, regions, conditionals, true)
}

/// [`resolved_conditionals`] (`every_line`: false, the directive lines the regions replace go
/// with them) and [`sequential_cuts`] (true: the regions' text stays, so their directive lines
/// are left out too).
fn resolve_cut_groups(
    text: &str,
    regions: &[HostRegion],
    conditionals: &[Conditional],
    every_line: bool,
) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut replaced: Vec<Range<usize>> = Vec::new();
    for r in regions {
        match r.kept() {
            Some(kb) => {
                replaced.push(r.replace.start..kb.start);
                replaced.push(kb.end..r.replace.end);
            }
            None => replaced.push(r.replace.clone()),
        }
    }
    let is_replaced = |at: usize| replaced.iter().any(|r| r.contains(&at));
    let in_text = |r: &Range<usize>| r.start <= r.end && r.end <= b.len();
    // A whole line: from its start (indentation included) through its newline.
    let whole_line = |r: &Range<usize>| {
        let end = logical_line_end(b, r.end);
        line_start(b, r.start)..(end + 1).min(b.len())
    };
    let mut cut: Vec<Range<usize>> = Vec::new();
    for g in conditionals {
        if g.lines.len() < 2 || !g.lines.iter().all(in_text) {
            continue; // unterminated (already an error) or not of this text
        }
        let inside = g.lines.iter().filter(|l| is_replaced(l.start)).count();
        if inside == 0 || inside == g.lines.len() {
            continue;
        }
        for (i, l) in g.lines.iter().enumerate() {
            let line = whole_line(l);
            if every_line || !is_replaced(l.start) {
                cut.push(line.clone());
            }
            if let Some(next) = g.lines.get(i + 1) {
                if g.taken != Some(i) {
                    cut.push(line.end..line_start(b, next.start).max(line.end));
                }
            }
        }
    }
    cut.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::new();
    for r in cut {
        match merged.last_mut() {
            Some(m) if r.start <= m.end => m.end = m.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// Every edit of the main file's text outside the regions, sorted and disjoint: the ranges
/// [`resolved_conditionals`] leaves out, and the rewritten `#include` lines (an include line
/// inside a range left out goes with it).
fn text_edits(text: &str, regions: &[HostRegion], rewrites: &Rewrites) -> Vec<Edit> {
    let mut edits: Vec<Edit> = resolved_conditionals(text, regions, &rewrites.conditionals)
        .into_iter()
        .map(|range| Edit {
            range,
            with: String::new(),
        })
        .collect();
    let cuts = edits.clone();
    for e in &rewrites.includes {
        if !cuts
            .iter()
            .any(|c| c.range.start < e.range.end && e.range.start < c.range.end)
        {
            edits.push(e.clone());
        }
    }
    edits.sort_by_key(|e| e.range.start);
    edits
}

/// `text[from..]` with every region of the tree replaced by its host code, and the `cut`
/// edits ([`text_edits`]) applied to the text around them.
fn splice(
    text: &str,
    from: usize,
    module: &Module,
    tree: &Tree,
    cut: &[Edit],
    target: Target,
    errors: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(text.len() - from + 4096);
    let mut work = vec![Work::Seq(from..text.len(), tree.roots.clone())];
    while let Some(w) = work.pop() {
        let (range, kids) = match w {
            Work::Str(s) => {
                out.push_str(&s);
                continue;
            }
            Work::Seq(range, kids) => (range, kids),
        };
        // Expand the sequence: push its pieces in reverse order.
        let mut pieces: Vec<Work> = Vec::new();
        let mut pos = range.start;
        for &k in &kids {
            let region = &module.host[k];
            pieces.push(Work::Str(kept(text, pos..region.replace.start, cut)));
            pos = region.replace.end;
            let indent = region_indent(text, &region.replace);
            match host::region_code(module, region, &indent, target, &tree.enclosing[k]) {
                Ok(code) => match region.kept() {
                    None => pieces.push(Work::Str(code.open)),
                    Some(kb) => {
                        let body_indent = indentation_before(text, kb.start)
                            .unwrap_or_else(|| format!("{}    ", indent));
                        pieces.push(Work::Str(format!("{}{}", code.open, body_indent)));
                        pieces.push(Work::Seq(kb.clone(), tree.children[k].clone()));
                        pieces.push(Work::Str(format!("\n{}", code.close)));
                    }
                },
                Err(e) => {
                    errors.push(e.to_string());
                    pieces.push(Work::Str(text[region.replace.clone()].to_string()));
                }
            }
        }
        pieces.push(Work::Str(kept(text, pos..range.end, cut)));
        work.extend(pieces.into_iter().rev());
    }
    out
}

/// The indentation of a region's code: that of the first line of the range that is not a
/// pragma line (the annotated statement; pragmas are often written in column 0), else that of
/// the first line.
fn region_indent(text: &str, range: &Range<usize>) -> String {
    let ws = |l: &str| -> String { l.chars().take_while(|c| *c == ' ' || *c == '\t').collect() };
    let s = &text[range.clone()];
    let mut continued = false;
    for line in s.split('\n') {
        let t = line.trim_end_matches('\r');
        let was_continued = continued;
        continued = t.ends_with('\\');
        if was_continued || t.trim_start().starts_with('#') || t.trim().is_empty() {
            continue;
        }
        return ws(line);
    }
    ws(s)
}

/// The text between the start of the line containing `at` and `at`, if it is only spaces/tabs.
fn indentation_before(text: &str, at: usize) -> Option<String> {
    let start = line_start(text.as_bytes(), at);
    let s = &text[start..at];
    s.chars()
        .all(|c| c == ' ' || c == '\t')
        .then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Buffer, Module};

    fn data(replace: Range<usize>, body: Range<usize>, arrays: &[&str]) -> HostRegion {
        HostRegion {
            data_ops: Vec::new(),
            device_scalars: Vec::new(),
            if_clause: None,
            fallback: None,
            origin: format!("t.c:{}", replace.start),
            aliases: Vec::new(),
            replace,
            keep_body: Some(body),
            quiet_body: false,
            buffers: arrays
                .iter()
                .map(|a| Buffer {
                    array: a.to_string(),
                    elem: crate::vocab::Scalar::Int,
                    count: crate::kernel::HostExpr::var("n"),
                    copy_in: true,
                    zero: false,
                    copy_out: true,
                    whole_array: false,
                    present: false,
                    start: None,
                    scalar: false,
                    rows: None,
                })
                .collect(),
            launches: Vec::new(),
        }
    }

    fn compute(replace: Range<usize>) -> HostRegion {
        HostRegion {
            data_ops: Vec::new(),
            device_scalars: Vec::new(),
            if_clause: None,
            fallback: None,
            replace: replace.clone(),
            keep_body: None,
            quiet_body: false,
            buffers: Vec::new(),
            launches: Vec::new(),
            origin: format!("t.c:{}", replace.start),
            aliases: Vec::new(),
        }
    }

    fn body(out: &str) -> &str {
        let m = "/* ---- end of the accshare prelude ---- */\n\n";
        &out[out.find(m).unwrap() + m.len()..]
    }

    fn span(text: &str, from: &str, to: &str) -> Range<usize> {
        let s = text.find(from).unwrap();
        s..s + text[s..].find(to).unwrap() + to.len()
    }

    #[test]
    fn text_outside_regions_is_byte_identical() {
        let text = "#include <stdio.h>\n/* c */\nint main(void) {\n  #pragma acc kernels\n  x;\n  return 0; // end\n}\n";
        let r = span(text, "  #pragma", "x;");
        let m = Module {
            kernels: Vec::new(),
            host: vec![compute(r.clone())],
        };
        let out = assemble(text, &m, "", Target::OpenCl, &Default::default());
        let b = body(&out);
        assert_eq!(
            b,
            "#include <stdio.h>\n/* c */\nint main(void) {\n  { /* accshare: compute region at t.c:44 */\n  }\n  return 0; // end\n}\n"
        );
        assert!(out.starts_with("/* Generated by accshare"));
    }

    fn rw(conditionals: Vec<Conditional>) -> Rewrites {
        Rewrites {
            conditionals,
            includes: Vec::new(),
        }
    }

    /// The groups of `text`'s directive lines, given as (line prefixes, taken branch).
    fn groups(text: &str, groups: &[(&[&str], Option<usize>)]) -> Vec<Conditional> {
        groups
            .iter()
            .map(|(lines, taken)| Conditional {
                lines: lines
                    .iter()
                    .map(|l| {
                        let s = text.find(l).unwrap();
                        s..s + text[s..].find('\n').unwrap()
                    })
                    .collect(),
                taken: *taken,
            })
            .collect()
    }

    #[test]
    fn conditionals_cut_by_a_region_are_resolved_as_evaluated() {
        // The published-suite idiom: the pragma chosen by `#ifndef`/`#elif` above the loop.
        // The region's text starts at the taken pragma, so it holds the `#elif` and `#endif`.
        let text = "\
f() {
#ifndef CRPL_COMP
#pragma acc parallel loop
#elif CRPL_COMP == 0
#pragma acc kernels loop
#endif
  for (i = 0; i < n; i++) x;
#if A
  y;
#endif
}
";
        let r = span(text, "#pragma acc parallel", "x;");
        let m = Module {
            kernels: Vec::new(),
            host: vec![compute(r)],
        };
        let g = groups(
            text,
            &[
                (&["#ifndef", "#elif", "#endif\n  for"], Some(0)),
                (&["#if A", "#endif\n}"], None),
            ],
        );
        let out = assemble(text, &m, "", Target::OpenCl, &rw(g));
        assert_eq!(
            body(&out),
            "f() {\n  { /* accshare: compute region at t.c:24 */\n  }\n#if A\n  y;\n#endif\n}\n"
        );
    }

    /// The traced sequential build keeps the region's text: of a group the region cuts it
    /// leaves out every directive line and the branches not taken, the taken pragma stays.
    #[test]
    fn the_sequential_build_keeps_the_taken_branch_of_a_cut_group_alone() {
        let text = "\
f() {
#ifndef CRPL_COMP
#pragma acc parallel loop
#elif CRPL_COMP == 0
#pragma acc kernels loop
#endif
  for (i = 0; i < n; i++) x;
#if A
  y;
#endif
}
";
        let r = span(text, "#pragma acc parallel", "x;");
        let g = groups(
            text,
            &[
                (&["#ifndef", "#elif", "#endif\n  for"], Some(0)),
                (&["#if A", "#endif\n}"], None),
            ],
        );
        let mut out = text.to_string();
        for c in sequential_cuts(text, &[compute(r)], &g).iter().rev() {
            out.replace_range(c.clone(), "");
        }
        assert_eq!(
            out,
            "f() {\n#pragma acc parallel loop\n  for (i = 0; i < n; i++) x;\n#if A\n  y;\n#endif\n}\n"
        );
    }

    #[test]
    fn a_cut_group_loses_its_branches_not_taken_outside_the_region() {
        // The region's statement is in the `#if` branch taken; the `#else` branch after the
        // region is not taken and goes with the directive lines, a nested group in it too;
        // the data construct's pragma is chosen by `#ifdef`, its body is kept.
        let text = "\
f() {
#ifdef _OPENACC
#pragma acc data copy(a)
#endif
  {
#if B
    #pragma acc kernels
#else
    #pragma acc parallel
#endif
    g();
  }
#if C
  h();
#else
  #ifdef D
  k();
  #endif
#endif
}
";
        let mut d = span(text, "#pragma acc data", "  }\n#if C");
        d.end -= "\n#if C".len();
        let body_range = span(text, "{\n#if B", "  }");
        let r = span(text, "    #pragma acc kernels", "g();");
        let m = Module {
            kernels: Vec::new(),
            host: vec![data(d, body_range, &["a"]), compute(r)],
        };
        let g = groups(
            text,
            &[
                (&["#ifdef _OPENACC", "#endif\n  {"], Some(0)),
                (&["#if B", "#else\n    #pragma", "#endif\n    g"], Some(0)),
                (&["#if C", "#else\n  #ifdef", "#endif\n}"], Some(0)),
            ],
        );
        let out = assemble(text, &m, "", Target::OpenCl, &rw(g));
        let b = body(&out);
        assert!(!b.contains("_OPENACC"), "{b}");
        assert!(
            !b.contains("#if B") && !b.contains("#else\n    #pragma"),
            "{b}"
        );
        // The group after the data region is not cut: kept as written.
        assert!(
            b.contains("#if C\n  h();\n#else\n  #ifdef D\n  k();\n  #endif\n#endif\n}\n"),
            "{b}"
        );
        assert_eq!(b.matches("#if").count(), 2, "{b}");
    }

    #[test]
    fn nested_regions_are_spliced_into_kept_bodies() {
        let text = "\
f() {
#pragma acc data copy(a)
  {
    g();
#pragma acc data copy(b)
    {
#pragma acc kernels
      K1;
    }
#pragma acc kernels
    K2;
  }
#pragma acc kernels
  K3;
}
";
        let outer_start = text.find("#pragma acc data copy(a)").unwrap();
        let outer_body = text.find("  {\n    g();").unwrap() + 2
            ..text.find("  }\n#pragma acc kernels\n  K3").unwrap() + 3;
        let inner_start = text.find("#pragma acc data copy(b)").unwrap();
        let inner_body = text.find("    {\n#pragma acc kernels\n      K1").unwrap() + 4
            ..text.find("    }\n#pragma acc kernels\n    K2").unwrap() + 5;
        let k1 = span(text, "#pragma acc kernels\n      K1", "K1;");
        let k2 = span(text, "#pragma acc kernels\n    K2", "K2;");
        let k3 = span(text, "#pragma acc kernels\n  K3", "K3;");
        // Given in a scrambled order.
        let m = Module {
            kernels: Vec::new(),
            host: vec![
                compute(k2.clone()),
                data(inner_start..inner_body.end, inner_body, &["b"]),
                compute(k3.clone()),
                data(outer_start..outer_body.end, outer_body, &["a"]),
                compute(k1.clone()),
            ],
        };
        let out = assemble(text, &m, "", Target::OpenCl, &Default::default());
        assert!(!out.contains("#error"), "{}", out);
        let b = body(&out);
        // The regions' pragma lines are gone, the kept text is still there, in order.
        assert!(!b.contains("#pragma"), "{}", b);
        let order = [
            "f() {\n  { /* accshare: data region",
            "accshare_d_a = accshare_enter(",
            "  {\n    g();\n",
            "    { /* accshare: data region",
            "accshare_d_b = accshare_enter(",
            "    {\n",
            &format!("{{ /* accshare: compute region at t.c:{} */", k1.start),
            "    }\n",
            "accshare_exit(accshare_h_b",
            &format!("    {{ /* accshare: compute region at t.c:{} */", k2.start),
            "  }\n",
            "accshare_exit(accshare_h_a",
            &format!("  {{ /* accshare: compute region at t.c:{} */", k3.start),
            "\n}\n",
        ];
        let mut pos = 0;
        for piece in order {
            let at = b[pos..]
                .find(piece)
                .unwrap_or_else(|| panic!("`{}` after byte {} in:\n{}", piece, pos, b));
            pos += at + piece.len();
        }
        assert!(b.ends_with("  }\n}\n"), "{}", b);
    }

    #[test]
    fn overlapping_and_out_of_range_regions_become_error_lines() {
        let text = "int x;\nvoid f(void) {\n  a;\n  b;\n}\n";
        let a = span(text, "  a;", "  b;");
        let b = span(text, "a;", "}");
        let m = Module {
            kernels: Vec::new(),
            host: vec![compute(a), compute(b), compute(3..1000)],
        };
        let out = assemble(text, &m, "", Target::OpenCl, &Default::default());
        assert_eq!(
            out.matches("\n#error \"accshare: internal error: ").count(),
            2,
            "{}",
            out
        );
        assert!(out.contains(&format!("outside the text ({} bytes)", text.len())));
        assert!(out.contains("overlaps region at t.c:"));
        // A compute region cannot contain another one.
        let outer = span(text, "  a;", "}");
        let inner = span(text, "b;", "b;");
        let m = Module {
            kernels: Vec::new(),
            host: vec![compute(outer), compute(inner)],
        };
        let out = assemble(text, &m, "", Target::OpenCl, &Default::default());
        assert_eq!(out.matches("\n#error ").count(), 1, "{}", out);
    }

    #[test]
    fn a_region_whose_code_fails_keeps_its_text_and_reports() {
        let text = "void f(void) {\n#pragma acc kernels\n  a;\n}\n";
        let mut r = compute(span(text, "#pragma", "a;"));
        r.launches.push(crate::kernel::Launch {
            kernel: 0,
            args: Vec::new(),
            stride: None,
            extent: [
                crate::kernel::HostExpr::Int(1),
                crate::kernel::HostExpr::Int(1),
                crate::kernel::HostExpr::Int(1),
            ],
            reductions: Vec::new(),
        });
        let m = Module {
            kernels: Vec::new(),
            host: vec![r],
        };
        let out = assemble(text, &m, "", Target::OpenCl, &Default::default());
        assert!(out.contains("#error \"accshare: internal error: region at t.c:15 launches kernel #0 but the module has 0 kernels\"\n"));
        assert_eq!(body(&out), text);
    }

    #[test]
    fn prelude_goes_after_leading_comments_and_feature_macros() {
        let text = "/* header\n * comment */\n// more\n\n#define _POSIX_C_SOURCE 200809L\n#define _GNU_SOURCE \\\n  1\n#include <time.h>\nint x;\n";
        let at = prelude_insert_point(text);
        assert_eq!(&text[at..], "#include <time.h>\nint x;\n");
        assert_eq!(prelude_insert_point("#include <stdio.h>\n"), 0);
        assert_eq!(prelude_insert_point("#define N 10\n"), 0);
        assert_eq!(prelude_insert_point("/* a */ int x;\n"), 0);
        assert_eq!(prelude_insert_point("/* unterminated"), 0);
        assert_eq!(prelude_insert_point(""), 0);
        assert_eq!(prelude_insert_point("// only a comment"), 0);
        let out = assemble(
            text,
            &Module::default(),
            "",
            Target::OpenCl,
            &Default::default(),
        );
        assert!(out.starts_with("/* header\n * comment */\n// more\n\n#define _POSIX_C_SOURCE 200809L\n#define _GNU_SOURCE \\\n  1\n/* Generated by accshare"));
        assert!(out.ends_with(
            "/* ---- end of the accshare prelude ---- */\n\n#include <time.h>\nint x;\n"
        ));
    }

    #[test]
    fn write_outputs_writes_files_and_protects_the_input() {
        let dir = std::env::temp_dir().join(format!("accshare-output-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.join("out");
        let input = dir.join("prog.c");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&input, "int main(void) { return 0; }\n").unwrap();
        let paths =
            write_outputs(&out, "prog", &input, "HOST", "KERNELS", Target::OpenCl, &[]).unwrap();
        assert_eq!(paths, vec![out.join("prog.c"), out.join("prog.cl")]);
        assert_eq!(std::fs::read_to_string(out.join("prog.c")).unwrap(), "HOST");
        assert_eq!(
            std::fs::read_to_string(out.join("prog.cl")).unwrap(),
            "KERNELS"
        );
        let paths = write_outputs(&out, "prog", &input, "C", "CU", Target::Cuda, &[]).unwrap();
        assert_eq!(paths, vec![out.join("prog.c"), out.join("prog.cu")]);
        assert_eq!(std::fs::read_to_string(out.join("prog.c")).unwrap(), "C");
        assert_eq!(std::fs::read_to_string(out.join("prog.cu")).unwrap(), "CU");
        // Writing next to the input with its own name is refused, and nothing is written.
        let err = write_outputs(&dir, "prog", &input, "HOST", "KERNELS", Target::OpenCl, &[])
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("refusing to overwrite the input file"),
            "{}",
            err
        );
        assert_eq!(
            std::fs::read_to_string(&input).unwrap(),
            "int main(void) { return 0; }\n"
        );
        assert!(!dir.join("prog.cl").exists());
        // Also through a different spelling of the same directory.
        let err = write_outputs(
            &out.join(".."),
            "prog",
            &input,
            "H",
            "K",
            Target::OpenCl,
            &[],
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("refusing"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
