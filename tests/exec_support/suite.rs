//! What the program suites (`tests/accsuite.rs`, `tests/npbsuite.rs`) share: the outcome of a
//! program, running programs on a few threads, and the `REFUSED` list that must say exactly which
//! programs accshare refuses.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::front::preprocess::PpOptions;

/// What became of one program of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// The first error, and where it happened.
    Refused(String),
    /// What went wrong, and where.
    Fail(String),
}

impl Outcome {
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Refused(_) => "refused",
            Outcome::Fail(_) => "FAIL",
        }
    }

    /// The detail for a summary table: a refusal whole, a failure's first line.
    pub fn detail(&self) -> String {
        match self {
            Outcome::Pass => String::new(),
            Outcome::Refused(d) => d.clone(),
            Outcome::Fail(d) => d.lines().next().unwrap_or("").to_string(),
        }
    }
}

/// `check(name)` for every name, on at most `threads` threads; the results sorted by name.
pub fn run_each<T: Send>(
    names: &[String],
    threads: usize,
    check: impl Fn(&str) -> T + Sync,
) -> Vec<(String, T)> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, threads.max(1));
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(String, T)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    let i = *n;
                    *n += 1;
                    i
                };
                let Some(name) = names.get(i) else { break };
                let r = check(name);
                results.lock().unwrap().push((name.clone(), r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

/// The names a `REFUSED` file lists (one per line, `#` starts a comment).
pub fn refused_list(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The problems with a `REFUSED` list (`shown` is how messages name it): among the programs
/// that `ran`, the `refused` ones must be exactly those listed.
pub fn refused_list_problems(
    path: &Path,
    shown: &str,
    ran: &[String],
    refused: &BTreeSet<String>,
) -> Vec<String> {
    let ran: BTreeSet<&str> = ran.iter().map(String::as_str).collect();
    let listed: BTreeSet<String> = refused_list(path)
        .into_iter()
        .filter(|n| ran.contains(n.as_str()))
        .collect();
    let mut problems = Vec::new();
    let add: Vec<&String> = refused.difference(&listed).collect();
    let remove: Vec<&String> = listed.difference(refused).collect();
    if !add.is_empty() {
        problems.push(format!(
            "refused but not listed in {shown} (add them, or make them compile): {add:?}"
        ));
    }
    if !remove.is_empty() {
        problems.push(format!(
            "listed in {shown} but no longer refused (remove them): {remove:?}"
        ));
    }
    problems
}

/// What accshare made of one program at one level.
pub enum Compiled {
    /// The generated `.c` file.
    Ok(PathBuf),
    /// accshare returned errors: the rendered diagnostics.
    Refused(String),
    /// accshare panicked or could not write its output.
    Broken(String),
}

/// Compiles `src` for OpenCL through accshare (in process, on a thread with a large stack as
/// the command line does) and writes the output under `dir`.
pub fn accshare_compile(
    src: &Path,
    pp: PpOptions,
    opt: &driver::OptOptions,
    dir: &Path,
) -> Compiled {
    let name = src.display().to_string();
    let src = src.to_path_buf();
    let opt = opt.clone();
    let dir = dir.to_path_buf();
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut sources = SourceMap::new();
            let mut diags = Diags::new();
            let opts = driver::Options {
                target: Target::OpenCl,
                pp,
            };
            match driver::compile_with(&src, &opts, &opt, &mut sources, &mut diags) {
                None => Compiled::Refused(diag::render(&sources, &diags.0)),
                Some(out) => match driver::write(&out, &src, &dir, Target::OpenCl) {
                    Err(e) => Compiled::Broken(format!("cannot write the output: {}", e)),
                    Ok(paths) => match paths
                        .into_iter()
                        .find(|p| p.extension().is_some_and(|e| e == "c"))
                    {
                        Some(c) => Compiled::Ok(c),
                        None => Compiled::Broken("accshare wrote no .c file".to_string()),
                    },
                },
            }
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(c)) => c,
        Ok(Err(panic)) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".to_string());
            Compiled::Broken(format!("accshare panicked on {}: {}", name, msg))
        }
        Err(e) => Compiled::Broken(format!("cannot start the compiler thread: {}", e)),
    }
}
