//! The pipeline's shape, checked: no module imports a later stage (ARCHITECTURE.md). Each
//! top-level module of `src/` has a rank; a `crate::<module>` path in a file of a module of lower
//! rank is an upward import and fails the test. Test code (`tests.rs` files, `tests/`
//! folders, and a trailing `#[cfg(test)] mod tests { … }`) may use later stages to check
//! results.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The stages in pipeline order; modules of one rank may use each other.
const RANKS: &[(&str, u32)] = &[
    ("diag", 0),
    // The vocabulary (scalar types, operators, constructs, the share pragma's partition
    // language): a leaf every stage may name, the front end included (its syntax tree
    // re-exports it); it names nothing but `diag` (spans).
    ("vocab", 0),
    ("front", 1),
    ("ir", 2),
    ("analysis", 3),
    ("model", 3),
    ("partition", 4),
    ("schedule", 5),
    ("kernel", 6),
    ("back", 7),
    ("sim", 8),
    ("explain", 8),
    ("driver", 9),
    ("runtime", 10),
    ("cli", 11),
    ("main", 11),
    ("lib", 11),
];

fn rank(module: &str) -> Option<u32> {
    RANKS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's text without its trailing test module.
fn non_test_text(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// The top-level modules a text names through `crate::<module>`.
fn imported(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `accshare::…` spelled through a longer path, or an identifier
        }
        let name: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

#[test]
fn no_module_imports_a_later_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50);
    let mut violations = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if parts.iter().any(|p| p == "tests" || p == "tests.rs") {
            continue;
        }
        let module = module_of(&parts);
        let Some(own) = rank(&module) else {
            violations.push(format!(
                "{}: module `{module}` has no rank in tests/architecture.rs",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for m in imported(non_test_text(&text)) {
            match rank(&m) {
                Some(r) if r > own => violations.push(format!(
                    "{}: `{module}` (stage {own}) uses `crate::{m}` (stage {r}), a later stage",
                    rel.display()
                )),
                Some(_) => {}
                None => violations.push(format!(
                    "{}: uses `crate::{m}`, which has no rank in tests/architecture.rs",
                    rel.display()
                )),
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The vocabulary is a leaf: it names no other module of the crate.
#[test]
fn the_vocabulary_imports_nothing_but_spans() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![root.join("vocab.rs")];
    rust_files(&root.join("vocab"), &mut files);
    assert!(
        files.len() > 1,
        "src/vocab/ has the share pragma's language"
    );
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let imports = imported(non_test_text(&text));
        assert!(
            imports.iter().all(|m| m == "diag"),
            "{}: imports {imports:?}",
            f.display()
        );
    }
}

/// No stage between the front end and `back/` reads the C syntax tree (issue 29: `ir::lower`
/// is its only reader): no `front::ast`, `front::pragma_ast`, `front::Parsed` or `expr_to_c` in
/// non-test code outside `front`, `ir::lower`, `driver` and `cli`. The data-bug analysis of
/// the host code around the regions reads the host code's IR (`ir::host`).
#[test]
fn only_ir_lower_reads_the_syntax_tree() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut sites = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let first = rel.split('/').next().unwrap_or("");
        if matches!(first, "front" | "driver.rs" | "cli" | "main.rs" | "lib.rs")
            || rel.starts_with("ir/lower")
            || rel.contains("/tests/")
            || rel.ends_with("tests.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let text = non_test_text(&text);
        let n = ["front::ast", "pragma_ast", "front::Parsed", "expr_to_c"]
            .iter()
            .map(|w| text.matches(w).count())
            .sum::<usize>();
        if n > 0 {
            sites.push(format!("{rel}: {n}"));
        }
    }
    assert!(
        sites.is_empty(),
        "stages after the front end that read the C syntax tree (read the IR instead):\n{}",
        sites.join("\n")
    );
}

#[test]
fn the_checker_sees_imports() {
    let t = "use crate::kernel::lower;\nfn f() { crate::ir::x(); accshare::crate_like(); }\n\
             #[cfg(test)]\nmod tests {\n use crate::explain;\n}\n";
    let got = imported(non_test_text(t));
    assert_eq!(
        got.into_iter().collect::<Vec<_>>(),
        vec!["ir".to_string(), "kernel".to_string()]
    );
}

/// The `crate::<module>` paths a text names, one per occurrence (a use site).
fn import_sites(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// The top-level module a file belongs to.
fn module_of(parts: &[String]) -> String {
    parts[0].trim_end_matches(".rs").to_string()
}

fn stage_graph(src: &Path) -> std::collections::BTreeMap<(String, String), usize> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut edges = std::collections::BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(src).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if parts.iter().any(|p| p == "tests" || p == "tests.rs") {
            continue;
        }
        let module = module_of(&parts);
        let text = std::fs::read_to_string(f).unwrap();
        for m in import_sites(non_test_text(&text)) {
            if m != module {
                *edges.entry((module.clone(), m)).or_insert(0) += 1;
            }
        }
    }
    edges
}

/// The strongly connected components of more than one stage (the cycles), each sorted.
fn cycles(edges: &std::collections::BTreeMap<(String, String), usize>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let n = nodes.len();
    let idx = |s: &String| nodes.iter().position(|x| *x == s).unwrap();
    let mut reach = vec![vec![false; n]; n];
    for (a, b) in edges.keys() {
        reach[idx(a)][idx(b)] = true;
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if reach[i][k] && reach[k][j] {
                    reach[i][j] = true;
                }
            }
        }
    }
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for i in 0..n {
        if seen[i] {
            continue;
        }
        let scc: Vec<usize> = (0..n)
            .filter(|&j| j == i || (reach[i][j] && reach[j][i]))
            .collect();
        for &j in &scc {
            seen[j] = true;
        }
        if scc.len() > 1 {
            out.push(scc.iter().map(|&j| nodes[j].clone()).collect());
        }
    }
    out
}

/// Prints the stage-level import graph of `$ACCSHARE_SRC` (default: this crate's `src/`) as
/// edges `from → to (use sites)`, and its cycles. A dev tool, not a check:
/// `ACCSHARE_SRC=/path/src cargo test --test architecture -- --ignored --nocapture print_stage_graph`.
#[test]
#[ignore]
fn print_stage_graph() {
    let src = std::env::var_os("ACCSHARE_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = stage_graph(&src);
    println!("import graph of {}:", src.display());
    for ((a, b), n) in &edges {
        println!("{a} → {b} ({n})");
    }
    let cs = cycles(&edges);
    if cs.is_empty() {
        println!("cycles: none");
    }
    for c in cs {
        println!("cycle: {{{}}}", c.join(", "));
    }
}

#[test]
fn the_graph_finds_cycles() {
    let mut e = std::collections::BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        e.insert((a.to_string(), b.to_string()), 1);
    }
    assert_eq!(cycles(&e), vec![vec!["a", "b", "c"]]);
}
