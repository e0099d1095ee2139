//! In-process, structure-aware fuzz harness for the whole compiler.
//!
//! ```text
//! cargo run --release --example fuzz -- N [--seed S] [--out DIR] [--jobs J]
//! ```
//!
//! Runs `N` inputs through accshare in this process. Every input is a mutation of a seed: every
//! `.c`/`.h` file under `examples/`, `tests/corpus/`, `tests/errors/` and `tests/accsuite/`,
//! read once at start, plus (per worker) a bounded pool of earlier mutants that the compiler
//! accepted, so that mutations stack on programs that reach the back ends. The mutations know
//! the shape of the inputs:
//!
//! * tokens (the text is lexed roughly into identifiers, numbers, strings, punctuation and
//!   whitespace): delete, duplicate, swap, replace with a word of a dictionary of C keywords,
//!   operators and OpenACC/`share` words, or with another identifier of the same program;
//! * lines: duplicate, delete, move, repeat a block; insert a `#pragma acc …` line built from a
//!   small grammar of directives and clauses whose arguments are the program's own identifiers
//!   and random expressions; rewrite the clauses of an existing pragma; insert preprocessor
//!   lines (`#define`, `#undef`, `#if`/`#endif`, `#include` of a known header);
//! * splicing: a random chunk of another seed inserted or replacing a chunk;
//! * numbers: integer literals changed to 0, 1, -1, 2, 3, 255, 1024, large values;
//! * bytes (rarely): random bytes inserted.
//!
//! Each input is written to a per-process temporary directory (printed at start) and compiled
//! with `accshare::driver::compile_with` exactly as the CLI does: OpenCL and CUDA targets in
//! turn, `--opt naive`, `--opt share` and `--opt share --ilp 2` in turn, a shipped platform at
//! random, include directories = the seed's directory and `tests/accsuite/utilities`,
//! `-DMINI_DATASET` for the accsuite programs (and sometimes a random value for one of the
//! program's size macros). Diagnostics are rendered; an accepted input has its outputs written
//! with `driver::write` and, for a fraction of inputs, goes through `driver::lint`; another
//! fraction goes through `accshare::driver::explain` (text or JSON); one in eight has every
//! variant of the tuner's schedule space compiled (`accshare::runtime::tune::compile_space`).
//!
//! Compilation runs on a worker thread with the CLI's 256 MB stack. A panic is caught
//! (`catch_unwind`; a quiet panic hook records the message, location and a backtrace) and the
//! input saved as `DIR/crash-<hash>.c` with the message and the options in
//! `DIR/crash-<hash>.txt` (`DIR` defaults to `fuzz-crashes/`). A compilation that takes more
//! than 10 s is a hang, saved the same way as `hang-<hash>.c`/`.txt`; its worker is abandoned
//! (a thread cannot be killed) and the run stops after 5 hangs.
//!
//! Every ~10,000 inputs a progress line gives the count, the throughput, the panics and hangs
//! so far and the share of inputs the compiler accepted. The last line is
//! `fuzz: N inputs, P panics, H hangs, X inputs/s (T s)`; the exit code is 1 if any input
//! panicked or hung.
//!
//! A run is deterministic for a given `--seed` and `--jobs` (default 1: the machine is shared).
//!
//! To reproduce a crash, run the CLI on the saved input with the options recorded in its
//! `.txt` file, e.g.
//!
//! ```text
//! cargo run --release -- fuzz-crashes/crash-0123456789abcdef.c --target cuda --opt share \
//!     -I tests/accsuite/utilities -D MINI_DATASET
//! ```
//!
//! (the `.txt` gives the exact command lines: the compile, and the `check --lint` and
//! `explain` runs when the input went through them too; `accshare` is
//! `target/release/accshare`). Inputs are compiled as `input.c`, so a mutant that includes
//! `"input.c"` includes itself; copy the saved file to that name to reproduce such a case. If
//! the process itself dies (a stack overflow or an abort cannot be caught), the input being
//! compiled is `w<J>/input.c` in the temporary directory printed at start.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use accshare::back::Target;
use accshare::diag::{Diags, SourceMap};
use accshare::driver;
use accshare::front::preprocess::PpOptions;
use accshare::model::Platform;

/// Seed directories, relative to the crate root.
const SEED_DIRS: [&str; 4] = ["examples", "tests/corpus", "tests/errors", "tests/accsuite"];
/// Always an include directory (the accsuite's `polybench.h`).
const UTILITIES: &str = "tests/accsuite/utilities";
/// The CLI's stack size (src/main.rs).
const STACK: usize = 256 << 20;
/// A compilation slower than this is a hang.
const HANG: Duration = Duration::from_secs(10);
/// After a hang, how long to keep waiting to learn whether it ends at all.
const HANG_GRACE: Duration = Duration::from_secs(60);
/// The run stops after this many hangs (each leaves a thread spinning).
const MAX_HANGS: u64 = 5;
/// Inputs saved per distinct panic location (the others are only counted).
const SAVE_PER_SITE: usize = 10;
/// Accepted mutants kept per worker for further mutation.
const POOL: usize = 256;
/// Progress line period.
const PROGRESS: u64 = 10_000;

// ---------------------------------------------------------------------------------------------
// Randomness: splitmix64 to seed, xorshift64* to draw. No dependency.
// ---------------------------------------------------------------------------------------------

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(splitmix(seed) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// True with probability `1/n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// FNV-1a: names saved inputs by content.
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------------------------

struct Seed {
    path: PathBuf,
    text: String,
    /// `#ifndef NAME` / `#define NAME <int>` size knobs of the file.
    sizes: Vec<String>,
    /// Compiled with `-DMINI_DATASET` (an accsuite program).
    accsuite: bool,
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "c" || x == "h") {
            out.push(p);
        }
    }
}

fn size_macros(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for w in lines.windows(2) {
        if let (Some(a), Some(b)) = (w[0].strip_prefix("#ifndef "), w[1].strip_prefix("#define ")) {
            let name = a.trim();
            if b.split_whitespace().next() == Some(name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

fn load_seeds(root: &Path) -> Vec<Seed> {
    let mut files = Vec::new();
    for d in SEED_DIRS {
        collect_files(&root.join(d), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Seed {
                sizes: size_macros(&text),
                accsuite: path.starts_with(root.join("tests/accsuite")),
                path,
                text,
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Dictionary and pragma grammar
// ---------------------------------------------------------------------------------------------

/// C keywords: never taken as a program's own identifiers.
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "int", "float", "double", "char", "void", "long", "unsigned", "short", "const", "static",
    "extern", "restrict", "volatile", "struct", "typedef", "sizeof", "if", "else", "for", "while",
    "do", "return", "break", "continue", "goto", "switch", "case", "default", "pragma", "include",
    "define", "ifndef", "ifdef", "endif",
];

#[rustfmt::skip]
const C_WORDS: &[&str] = &[
    "int", "float", "double", "char", "void", "long", "unsigned", "short", "const", "static",
    "extern", "restrict", "volatile", "struct", "typedef", "sizeof", "if", "else", "for", "while",
    "do", "return", "break", "continue", "goto", "switch", "case", "default", "size_t", "NULL",
    "main", "i", "j", "k", "n", "N", "M", "A", "B", "C", "x", "y", "s", "tmp", "fmaxf", "fminf",
    "sqrtf", "sqrt", "exp", "fabs", "pow",
];

#[rustfmt::skip]
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "=", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "&", "|", "^",
    "~", "<<", ">>", "++", "--", "+=", "-=", "*=", "/=", "?", ":", ";", ",", "(", ")", "[", "]",
    "{", "}", ".", "->", "#", "##", "\\", "\"", "'", "0", "1", "-1", "2", "1.0f", "0.5", "1e30",
    "0x7fffffff", "2147483648", "'a'", "\"s\"",
];

#[rustfmt::skip]
const ACC_WORDS: &[&str] = &[
    "acc", "pragma", "#pragma", "parallel", "kernels", "loop", "independent", "seq", "auto",
    "gang", "vector", "worker", "collapse(2)", "collapse(3)", "collapse(0)", "reduction(+:s)",
    "reduction(max:m)", "reduction(*:p)", "copyin", "copyout", "copy", "create", "present",
    "private", "firstprivate", "data", "enter", "exit", "update", "host", "device", "self",
    "share", "cache", "wait", "async", "routine", "num_gangs(4)", "vector_length(128)",
    "tile(8,8)", "default(none)", "default(present)", "if(1)", "deviceptr", "pcopyin",
    "present_or_copy", "TB_X", "TB_Y", "TB_Z", ":coalesce", "[*]", "[TB_X]", "[0:N]", "[1:N-2]",
    "#include", "#define", "#if", "#ifdef", "#endif", "#undef", "#else", "__VA_ARGS__", "defined",
];

#[rustfmt::skip]
const DIRECTIVES: &[&str] = &[
    "parallel", "parallel loop", "kernels", "kernels loop", "kernels loop independent", "loop",
    "loop independent", "loop seq", "data", "enter data", "exit data", "update", "wait",
    "routine seq", "routine", "atomic", "atomic update", "host_data", "declare", "end parallel",
    "serial",
];

#[rustfmt::skip]
const CLAUSE_WORDS: &[&str] = &[
    "independent", "seq", "auto", "gang", "worker", "vector", "async", "wait", "nohost",
    "finalize", "if_present",
];

#[rustfmt::skip]
const DATA_CLAUSES: &[&str] = &[
    "copyin", "copyout", "copy", "create", "present", "delete", "deviceptr", "no_create", "pcopy",
    "pcopyin", "pcopyout", "pcreate", "present_or_copy", "present_or_copyin", "present_or_copyout",
    "present_or_create", "host", "device", "self", "use_device", "attach", "detach",
];

#[rustfmt::skip]
const INT_CLAUSES: &[&str] = &[
    "collapse", "gang", "worker", "vector", "num_gangs", "num_workers", "vector_length", "async",
    "wait", "tile", "if", "device_type", "default",
];

#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "0", "1", "-1", "2", "3", "7", "16", "255", "1024", "65536", "2147483647", "2147483648",
    "-2147483648", "4294967296", "9223372036854775807", "99999999999999999999", "0x0", "017",
    "1.5", "1e9",
];

/// Identifiers of a text that are not C keywords (array and variable names, macros).
fn identifiers(text: &str) -> Vec<String> {
    let mut v: Vec<String> = lex(text)
        .into_iter()
        .filter(|t| {
            t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && !KEYWORDS.contains(&t.as_str())
        })
        .collect();
    v.sort();
    v.dedup();
    if v.is_empty() {
        v.push("A".into());
    }
    v
}

/// A small integer-ish expression over the program's names and TB_* sizes.
fn expr(rng: &mut Rng, ids: &[String], depth: u32) -> String {
    match rng.below(if depth > 2 { 3 } else { 6 }) {
        0 => rng.pick(NUMBERS).to_string(),
        1 => rng.pick(ids).clone(),
        2 => rng
            .pick(&["TB_X", "TB_Y", "TB_Z", "N", "M", "i", "*"])
            .to_string(),
        3 => format!(
            "{}{}{}",
            expr(rng, ids, depth + 1),
            rng.pick(&["+", "-", "*", "/", "%", "<<"]),
            expr(rng, ids, depth + 1)
        ),
        4 => format!("({})", expr(rng, ids, depth + 1)),
        _ => format!("{}-{}", rng.pick(ids), rng.below(5)),
    }
}

/// An array argument of a data clause: `A`, `A[lo:len]`, `A[lo:len][lo:len]`, `A[:n]`.
fn array_arg(rng: &mut Rng, ids: &[String]) -> String {
    let mut s = rng.pick(ids).clone();
    for _ in 0..rng.below(4) {
        match rng.below(5) {
            0 => s.push_str(&format!("[:{}]", expr(rng, ids, 1))),
            1 => s.push_str(&format!("[{}]", expr(rng, ids, 1))),
            _ => s.push_str(&format!("[{}:{}]", expr(rng, ids, 1), expr(rng, ids, 1))),
        }
    }
    s
}

/// One clause of the grammar.
fn clause(rng: &mut Rng, ids: &[String]) -> String {
    match rng.below(7) {
        0 => rng.pick(CLAUSE_WORDS).to_string(),
        1 | 2 => {
            let n = 1 + rng.below(3);
            let args: Vec<String> = (0..n).map(|_| array_arg(rng, ids)).collect();
            format!("{}({})", rng.pick(DATA_CLAUSES), args.join(", "))
        }
        3 => {
            let c = rng.pick(INT_CLAUSES);
            match *c {
                "default" => format!("default({})", rng.pick(&["none", "present", "shared", ""])),
                "device_type" => format!("device_type({})", rng.pick(&["*", "nvidia", "host"])),
                "tile" => format!("tile({},{})", expr(rng, ids, 2), expr(rng, ids, 2)),
                _ => format!("{}({})", c, expr(rng, ids, 1)),
            }
        }
        4 => format!(
            "reduction({}:{})",
            rng.pick(&["+", "*", "max", "min", "&", "|", "^", "&&", "||", "-", "foo"]),
            rng.pick(ids)
        ),
        5 => format!(
            "{}({})",
            rng.pick(&["private", "firstprivate", "cache"]),
            rng.pick(ids)
        ),
        _ => rng
            .pick(&[
                "gang[1]",
                "num_gangs[0](n)",
                "gang(static:*)",
                "vector(length:32)",
                "collapse(force:2)",
                "wait(1,2)",
                "async(acc_async_sync)",
                "if(n > 1)",
                "copyin()",
                "private(",
                "reduction(+:)",
            ])
            .to_string(),
    }
}

/// A `share(...)` argument list: tiles of TB_X/TB_Y/`*`/expressions, sometimes `:coalesce`.
fn share_args(rng: &mut Rng, ids: &[String]) -> String {
    let n = 1 + rng.below(3);
    let specs: Vec<String> = (0..n)
        .map(|_| {
            let mut s = rng.pick(ids).clone();
            for _ in 0..rng.below(4) {
                let d = match rng.below(6) {
                    0 => "*".to_string(),
                    1 => "TB_X".to_string(),
                    2 => "TB_Y".to_string(),
                    3 => format!("TB_Y+{}", rng.below(6)),
                    4 => format!("TB_X*{}", rng.below(4)),
                    _ => expr(rng, ids, 1),
                };
                s.push_str(&format!("[{}]", d));
            }
            if rng.one_in(3) {
                let hint: &&str = rng.pick(&[":coalesce", ":coalesc", ":", ":coalesce:coalesce"]);
                s.push_str(hint);
            }
            s
        })
        .collect();
    specs.join(", ")
}

/// A whole `#pragma acc …` line.
fn pragma_line(rng: &mut Rng, ids: &[String]) -> String {
    let mut s = String::from("#pragma acc ");
    match rng.below(10) {
        0 | 1 => {
            s.push_str(&format!("share({})", share_args(rng, ids)));
            return s;
        }
        2 => {
            s.push_str(&format!("cache({})", array_arg(rng, ids)));
            return s;
        }
        _ => {
            let d: &&str = rng.pick(DIRECTIVES);
            s.push_str(d)
        }
    }
    for _ in 0..rng.below(5) {
        s.push(' ');
        s.push_str(&clause(rng, ids));
    }
    s
}

/// A preprocessor line.
fn pp_line(rng: &mut Rng, ids: &[String], headers: &[String]) -> String {
    match rng.below(8) {
        0 => format!("#define {} {}", rng.pick(ids), expr(rng, ids, 1)),
        1 => format!("#undef {}", rng.pick(ids)),
        2 => format!("#ifdef {}", rng.pick(ids)),
        3 => "#endif".into(),
        4 => format!("#if {}", expr(rng, ids, 1)),
        5 => "#else".into(),
        6 => format!(
            "#define {}(a, b) {}",
            rng.pick(ids),
            rng.pick(&["a[b]", "(a)*(b)", "a##b", "#a", "a"])
        ),
        _ => match rng.below(4) {
            0 => "#include \"input.c\"".into(),
            1 => format!("#include <{}>", rng.pick(headers)),
            _ => format!("#include \"{}\"", rng.pick(headers)),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

/// Rough C lexer: every character belongs to exactly one token, so `concat(lex(t)) == t`.
fn lex(text: &str) -> Vec<String> {
    const PUNCT2: &[&str] = &[
        "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
        "%=", "&=", "|=", "^=", "##",
    ];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else {
            let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
            i += if PUNCT2.contains(&two.as_str()) { 2 } else { 1 };
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

fn is_ws(t: &str) -> bool {
    t.chars().all(char::is_whitespace)
}

/// Index of a random non-whitespace token (`None` if there is none).
fn some_token(rng: &mut Rng, toks: &[String]) -> Option<usize> {
    for _ in 0..8 {
        let i = rng.below(toks.len());
        if !is_ws(&toks[i]) {
            return Some(i);
        }
    }
    toks.iter().position(|t| !is_ws(t))
}

fn dictionary_word(rng: &mut Rng, ids: &[String]) -> String {
    match rng.below(4) {
        0 => rng.pick(C_WORDS).to_string(),
        1 => rng.pick(OPERATORS).to_string(),
        2 => rng.pick(ACC_WORDS).to_string(),
        _ => rng.pick(ids).clone(),
    }
}

fn mutate_tokens(rng: &mut Rng, text: &str) -> String {
    let mut toks = lex(text);
    if toks.is_empty() {
        return text.to_string();
    }
    let ids = identifiers(text);
    let Some(i) = some_token(rng, &toks) else {
        return text.to_string();
    };
    match rng.below(6) {
        0 => {
            toks.remove(i);
        }
        1 => {
            let t = toks[i].clone();
            toks.insert(i, t);
        }
        2 => {
            if let Some(j) = some_token(rng, &toks) {
                toks.swap(i, j);
            }
        }
        3 => toks[i] = dictionary_word(rng, &ids),
        4 => {
            // Another identifier of the program in place of this one (array/variable mix-ups).
            if toks[i].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                toks[i] = rng.pick(&ids).clone();
            } else {
                toks[i] = dictionary_word(rng, &ids);
            }
        }
        _ => {
            let w = dictionary_word(rng, &ids);
            toks.insert(i, format!(" {} ", w));
        }
    }
    toks.concat()
}

fn mutate_numbers(rng: &mut Rng, text: &str) -> String {
    let mut toks = lex(text);
    let nums: Vec<usize> = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.starts_with(|c: char| c.is_ascii_digit()))
        .map(|(i, _)| i)
        .collect();
    if nums.is_empty() {
        return text.to_string();
    }
    // Usually one literal, sometimes all of one value (a size macro and its uses).
    let i = *rng.pick(&nums);
    let new = rng.pick(NUMBERS).to_string();
    if rng.one_in(4) {
        let old = toks[i].clone();
        for t in toks.iter_mut().filter(|t| **t == old) {
            *t = new.clone();
        }
    } else {
        toks[i] = new;
    }
    toks.concat()
}

fn lines_of(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn mutate_lines(rng: &mut Rng, text: &str, headers: &[String]) -> String {
    let mut lines = lines_of(text);
    let ids = identifiers(text);
    let n = lines.len();
    let at = rng.below(n + 1);
    match rng.below(10) {
        0 if n > 0 => {
            let l = lines[rng.below(n)].clone();
            lines.insert(at, l);
        }
        1 if n > 0 => {
            lines.remove(rng.below(n));
        }
        2 if n > 1 => {
            let l = lines.remove(rng.below(n));
            lines.insert(rng.below(n), l);
        }
        3 if n > 0 => {
            // Repeat a block of lines (several regions, deep nesting of braces).
            let a = rng.below(n);
            let b = (a + 1 + rng.below(8)).min(n);
            let block: Vec<String> = lines[a..b].to_vec();
            let times = if rng.one_in(20) { 64 } else { 3 };
            for _ in 0..1 + rng.below(times) {
                for (k, l) in block.iter().enumerate() {
                    lines.insert(b + k, l.clone());
                }
            }
        }
        4 => {
            // A pragma before a loop when there is one nearby: that is where they matter.
            let pos = (0..8)
                .map(|_| rng.below(n + 1))
                .find(|&k| k < n && lines[k].trim_start().starts_with("for"))
                .unwrap_or(at);
            lines.insert(pos, pragma_line(rng, &ids));
        }
        5 => {
            // Rewrite the clauses of an existing pragma.
            let pragmas: Vec<usize> = (0..n)
                .filter(|&k| lines[k].contains("#pragma acc"))
                .collect();
            if pragmas.is_empty() {
                lines.insert(at, pragma_line(rng, &ids));
            } else {
                let k = *rng.pick(&pragmas);
                let mut words: Vec<String> =
                    lines[k].split_whitespace().map(str::to_string).collect();
                match rng.below(4) {
                    0 => words.push(clause(rng, &ids)),
                    1 if words.len() > 3 => {
                        let w = 3 + rng.below(words.len() - 3);
                        words.remove(w);
                    }
                    2 if words.len() > 2 => {
                        let w = 2 + rng.below(words.len() - 2);
                        words[w] = clause(rng, &ids);
                    }
                    _ => {
                        words = pragma_line(rng, &ids)
                            .split_whitespace()
                            .map(str::to_string)
                            .collect()
                    }
                }
                lines[k] = words.join(" ");
            }
        }
        6 => lines.insert(at, pp_line(rng, &ids, headers)),
        7 if n > 0 => {
            // Braces and line continuations.
            let k = rng.below(n);
            match rng.below(4) {
                0 => lines[k] = format!("{{ {} }}", lines[k]),
                1 => lines[k].push_str(" \\"),
                2 => lines[k].push('{'),
                _ => lines[k].push('}'),
            }
        }
        _ => lines.insert(at, pragma_line(rng, &ids)),
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

fn splice(rng: &mut Rng, text: &str, other: &str) -> String {
    let mut lines = lines_of(text);
    let src = lines_of(other);
    if src.is_empty() {
        return text.to_string();
    }
    let a = rng.below(src.len());
    let b = (a + 1 + rng.below(30)).min(src.len());
    let at = rng.below(lines.len() + 1);
    let del = if rng.one_in(2) {
        rng.below(lines.len() - at + 1).min(30)
    } else {
        0
    };
    lines.splice(at..at + del, src[a..b].iter().cloned());
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

fn mutate_bytes(rng: &mut Rng, text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        let byte = match rng.below(4) {
            0 => *rng.pick(b"\0\t\r\x0c\\\"'#@`$\x7f"),
            1 => 0x80 + rng.below(0x80) as u8,
            _ => rng.below(256) as u8,
        };
        b.insert(at, byte);
    }
    if rng.one_in(4) && !b.is_empty() {
        b.truncate(rng.below(b.len()));
    }
    // The driver reads files as text; invalid UTF-8 is itself an input worth trying, but keep
    // the mutant a `String` for further mutation: lossy is fine.
    String::from_utf8_lossy(&b).into_owned()
}

/// One mutant: 1 to ~8 stacked mutations of `base`.
fn mutate(rng: &mut Rng, base: &str, seeds: &[Seed], headers: &[String]) -> String {
    let mut s = base.to_string();
    let count = 1 + rng.below(3) + if rng.one_in(4) { rng.below(6) } else { 0 };
    for _ in 0..count {
        s = match rng.below(100) {
            0..=29 => mutate_tokens(rng, &s),
            30..=64 => mutate_lines(rng, &s, headers),
            65..=79 => mutate_numbers(rng, &s),
            80..=97 => {
                let other = &seeds[rng.below(seeds.len())].text;
                splice(rng, &s, other)
            }
            _ => mutate_bytes(rng, &s),
        };
        // Keep inputs of a reasonable size (the robustness tests cover huge files).
        if s.len() > 200_000 {
            let mut cut = 200_000;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// One compilation
// ---------------------------------------------------------------------------------------------

/// Everything needed to compile one input; also what the `.txt` of a crash records.
#[derive(Clone)]
struct Job {
    index: u64,
    text: String,
    seed: PathBuf,
    target: Target,
    opt: driver::OptLevel,
    ilp: Option<u32>,
    platform: usize,
    pp: PpOptions,
    explain: Option<accshare::explain::Format>,
    explain_sizes: BTreeMap<String, i64>,
    lint: bool,
    /// Also compile every variant of the tuner's schedule space (`accshare tune`).
    variants: bool,
}

impl Job {
    /// The CLI command line that reproduces this job on `file`.
    fn command(&self, file: &Path, platforms: &[Platform]) -> String {
        let mut args = String::new();
        for d in &self.pp.include_dirs {
            args.push_str(&format!(" -I {}", d.display()));
        }
        for (n, v) in &self.pp.defines {
            match v {
                Some(v) => args.push_str(&format!(" -D {}={}", n, v)),
                None => args.push_str(&format!(" -D {}", n)),
            }
        }
        let plat = &platforms[self.platform].name;
        let mut s = format!(
            "accshare {} --target {} --opt {}{} --platform {}{}",
            file.display(),
            match self.target {
                Target::OpenCl => "opencl",
                Target::Cuda => "cuda",
            },
            match self.opt {
                driver::OptLevel::Naive => "naive",
                driver::OptLevel::Share => "share",
            },
            self.ilp
                .map(|n| format!(" --ilp {}", n))
                .unwrap_or_default(),
            plat,
            args
        );
        if self.variants {
            s.push_str(&format!(
                "\naccshare tune {} --platform {} --budget 0 --dry-run{}",
                file.display(),
                plat,
                args
            ));
        }
        if self.lint {
            s.push_str(&format!(
                "\naccshare check --lint {}{}",
                file.display(),
                args
            ));
        }
        if let Some(f) = self.explain {
            let sizes: String = self
                .explain_sizes
                .iter()
                .map(|(n, v)| format!(" --size {}={}", n, v))
                .collect();
            s.push_str(&format!(
                "\naccshare explain {} --platform {} --format {}{}{}",
                file.display(),
                plat,
                if f == accshare::explain::Format::Json {
                    "json"
                } else {
                    "text"
                },
                sizes,
                args
            ));
        }
        s
    }
}

enum Outcome {
    Accepted,
    Refused,
    /// The panic's location (`file:line:col`, what distinct panics are told apart by) and its
    /// report (message and backtrace).
    Panic(String, String),
}

thread_local! {
    /// The location and report of the last panic on this thread, set by the quiet panic hook.
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
}

/// Records panics instead of printing them: message, location and a backtrace.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string panic payload)".to_string()
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_else(|| "?".into());
        let bt = std::backtrace::Backtrace::force_capture();
        let text = format!("panicked at {}:\n{}\n\nbacktrace:\n{}", loc, msg, bt);
        LAST_PANIC.with(|p| *p.borrow_mut() = Some((loc, text)));
    }));
}

/// Compiles one job as the CLI would, through every stage; `input` is the file to write it to
/// and `out_dir` where the back ends' files go.
fn run_job(job: &Job, input: &Path, out_dir: &Path, platforms: &[Platform]) -> Outcome {
    if std::fs::write(input, &job.text).is_err() {
        return Outcome::Refused;
    }
    let platform = &platforms[job.platform];
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target: job.target,
            pp: job.pp.clone(),
        };
        let oo = driver::OptOptions {
            shape: job
                .ilp
                .map_or_else(Default::default, driver::ShapeRequest::rows),
            ..driver::OptOptions::new(job.opt).for_platform(platform.clone())
        };
        let out = driver::compile_with(input, &opts, &oo, &mut sources, &mut diags);
        let mut rendered = accshare::diag::render(&sources, &diags.0);
        let accepted = out.is_some();
        if let Some(out) = out {
            let _ = driver::write(&out, input, out_dir, job.target);
            if job.lint {
                let sim = accshare::sim::SimPlatform::from_platform(platform);
                let lints = driver::lint(&out, &sim);
                rendered.push_str(&accshare::diag::render(&sources, &lints));
            }
        }
        if let Some(format) = job.explain {
            let mut sources = SourceMap::new();
            let mut diags = Diags::new();
            let popts = accshare::partition::Options {
                sizes: job.explain_sizes.clone(),
                ..Default::default()
            };
            let text = accshare::driver::explain(
                input,
                &job.pp,
                platform,
                format,
                &popts,
                &Default::default(),
                &mut sources,
                &mut diags,
            );
            rendered.push_str(&accshare::diag::render(&sources, &diags.0));
            std::hint::black_box(text);
        }
        if job.variants {
            let mut sources = SourceMap::new();
            let mut diags = Diags::new();
            let share = driver::OptOptions::share().for_platform(platform.clone());
            let engine = accshare::partition::Options::default();
            if let Some(s) =
                driver::schedule(input, &job.pp, &share, &engine, &mut sources, &mut diags)
            {
                let opts = driver::Options {
                    target: Target::OpenCl,
                    pp: job.pp.clone(),
                };
                std::hint::black_box(accshare::runtime::tune::compile_space(
                    &s, &opts, 1024, &sources,
                ));
            }
        }
        std::hint::black_box(rendered);
        accepted
    }));
    match result {
        Ok(true) => Outcome::Accepted,
        Ok(false) => Outcome::Refused,
        Err(_) => {
            let (loc, report) = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| ("?".into(), "panic (no message recorded)".into()));
            Outcome::Panic(loc, report)
        }
    }
}

/// A compilation thread with the CLI's stack: jobs in, outcomes (with the time taken) out.
struct Worker {
    jobs: mpsc::Sender<Job>,
    outcomes: mpsc::Receiver<(Outcome, Duration)>,
}

fn spawn_worker(dir: PathBuf, platforms: Arc<Vec<Platform>>) -> Worker {
    let (jtx, jrx) = mpsc::channel::<Job>();
    let (otx, orx) = mpsc::channel();
    std::thread::Builder::new()
        .name("fuzz-compile".into())
        .stack_size(STACK)
        .spawn(move || {
            let input = dir.join("input.c");
            let out_dir = dir.join("out");
            for job in jrx {
                let t = Instant::now();
                let o = run_job(&job, &input, &out_dir, &platforms);
                if otx.send((o, t.elapsed())).is_err() {
                    break;
                }
            }
        })
        .expect("spawn compile thread");
    Worker {
        jobs: jtx,
        outcomes: orx,
    }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

/// One distinct panic location.
struct Site {
    /// The first message seen there.
    message: String,
    count: u64,
    saved: Vec<PathBuf>,
}

struct Shared {
    root: PathBuf,
    seeds: Vec<Seed>,
    /// Indices of the `.c` seeds.
    programs: Vec<usize>,
    headers: Vec<String>,
    platforms: Arc<Vec<Platform>>,
    out: PathBuf,
    tmp: PathBuf,
    seed: u64,
    total: u64,
    jobs: u64,
    start: Instant,
    done: AtomicU64,
    accepted: AtomicU64,
    panics: AtomicU64,
    hangs: AtomicU64,
    stop: AtomicBool,
    /// Distinct panic sites, by location.
    sites: Mutex<BTreeMap<String, Site>>,
}

/// Builds the job of input `index` (deterministic given the worker's history).
fn make_job(sh: &Shared, rng: &mut Rng, index: u64, pool: &[(String, usize)]) -> Job {
    let (base, seed_ix) = if !pool.is_empty() && rng.one_in(3) {
        let (t, s) = rng.pick(pool);
        (t.clone(), *s)
    } else {
        // Mostly a `.c` seed (headers alone have no regions; they are spliced in anyway).
        let s = if rng.one_in(10) || sh.programs.is_empty() {
            rng.below(sh.seeds.len())
        } else {
            *rng.pick(&sh.programs)
        };
        (sh.seeds[s].text.clone(), s)
    };
    let seed = &sh.seeds[seed_ix];
    // A few inputs unmutated (the seeds under every option set), the rest mutated.
    let text = if rng.one_in(50) {
        base
    } else {
        mutate(rng, &base, &sh.seeds, &sh.headers)
    };
    let mut defines = Vec::new();
    if seed.accsuite && !rng.one_in(10) {
        defines.push((
            rng.pick(&["MINI_DATASET", "MINI_DATASET", "SMALL_DATASET"])
                .to_string(),
            None,
        ));
    }
    if !seed.sizes.is_empty() && rng.one_in(10) {
        defines.push((
            rng.pick(&seed.sizes).clone(),
            Some(rng.pick(NUMBERS).to_string()),
        ));
    }
    let seed_dir = seed.path.parent().unwrap_or(&sh.root).to_path_buf();
    let (opt, ilp) = match index % 3 {
        0 => (driver::OptLevel::Naive, None),
        1 => (driver::OptLevel::Share, None),
        _ => (driver::OptLevel::Share, Some(2)),
    };
    let explain = match rng.below(16) {
        0 => Some(accshare::explain::Format::Text),
        1 => Some(accshare::explain::Format::Json),
        _ => None,
    };
    let mut explain_sizes = BTreeMap::new();
    if explain.is_some() && rng.one_in(3) {
        let ids = identifiers(&text);
        explain_sizes.insert(
            rng.pick(&ids).clone(),
            *rng.pick(&[1, 2, 3, 17, 1024, 1 << 20, i64::from(i32::MAX)]),
        );
    }
    Job {
        index,
        text,
        seed: seed.path.clone(),
        target: if index % 2 == 0 {
            Target::OpenCl
        } else {
            Target::Cuda
        },
        opt,
        ilp,
        platform: rng.below(sh.platforms.len()),
        pp: PpOptions {
            defines,
            include_dirs: vec![seed_dir, sh.root.join(UTILITIES)],
        },
        explain,
        explain_sizes,
        lint: rng.one_in(4),
        variants: rng.one_in(8),
    }
}

/// Saves a panicking or hanging input and its report; returns the `.c` path.
fn save(sh: &Shared, kind: &str, job: &Job, report: &str) -> PathBuf {
    let hash = fnv(job.text.as_bytes());
    let c = sh.out.join(format!("{}-{:016x}.c", kind, hash));
    let txt = sh.out.join(format!("{}-{:016x}.txt", kind, hash));
    let _ = std::fs::create_dir_all(&sh.out);
    let _ = std::fs::write(&c, &job.text);
    let body = format!(
        "input #{} (fuzz seed {}), mutated from {}\nreproduce with:\n{}\n\n{}\n",
        job.index,
        sh.seed,
        job.seed.display(),
        job.command(&c, &sh.platforms),
        report
    );
    let _ = std::fs::write(&txt, body);
    c
}

fn progress(sh: &Shared, done: u64) {
    let secs = sh.start.elapsed().as_secs_f64();
    println!(
        "fuzz: {:>9} inputs, {:>7.0} inputs/s, {} panics, {} hangs, {:.1}% accepted",
        done,
        done as f64 / secs.max(1e-9),
        sh.panics.load(Ordering::Relaxed),
        sh.hangs.load(Ordering::Relaxed),
        100.0 * sh.accepted.load(Ordering::Relaxed) as f64 / done.max(1) as f64
    );
}

/// One worker's share of the inputs: indices `w, w + J, w + 2J, …`.
fn run_shard(sh: &Shared, w: u64) {
    let dir = sh.tmp.join(format!("w{}", w));
    let _ = std::fs::create_dir_all(dir.join("out"));
    let mut worker = spawn_worker(dir.clone(), sh.platforms.clone());
    let mut rng = Rng::new(sh.seed ^ splitmix(w.wrapping_add(0xF0)));
    let mut pool: Vec<(String, usize)> = Vec::new();
    let mut index = w;
    while index < sh.total && !sh.stop.load(Ordering::Relaxed) {
        let job = make_job(sh, &mut rng, index, &pool);
        if worker.jobs.send(job.clone()).is_err() {
            worker = spawn_worker(dir.clone(), sh.platforms.clone());
            continue;
        }
        match worker.outcomes.recv_timeout(HANG) {
            Ok((outcome, _took)) => match outcome {
                Outcome::Accepted => {
                    sh.accepted.fetch_add(1, Ordering::Relaxed);
                    let seed_ix = sh
                        .seeds
                        .iter()
                        .position(|s| s.path == job.seed)
                        .unwrap_or(0);
                    if job.text.len() < 100_000 {
                        if pool.len() < POOL {
                            pool.push((job.text.clone(), seed_ix));
                        } else {
                            let k = rng.below(POOL);
                            pool[k] = (job.text.clone(), seed_ix);
                        }
                    }
                }
                Outcome::Refused => {}
                Outcome::Panic(loc, msg) => {
                    sh.panics.fetch_add(1, Ordering::Relaxed);
                    let first = msg.lines().take(2).collect::<Vec<_>>().join(" ");
                    let mut sites = sh.sites.lock().unwrap();
                    let e = sites.entry(loc).or_insert(Site {
                        message: first.clone(),
                        count: 0,
                        saved: Vec::new(),
                    });
                    e.count += 1;
                    if e.saved.len() < SAVE_PER_SITE {
                        let p = save(sh, "crash", &job, &msg);
                        eprintln!(
                            "fuzz: PANIC on input #{} ({}): {}",
                            index,
                            p.display(),
                            first
                        );
                        e.saved.push(p);
                    }
                }
            },
            Err(_) => {
                // A hang: wait a little longer to learn whether it ends, save it, abandon the
                // worker (its thread cannot be stopped) and go on with a fresh one.
                let n = sh.hangs.fetch_add(1, Ordering::Relaxed) + 1;
                let fate = match worker.outcomes.recv_timeout(HANG_GRACE) {
                    Ok((_, took)) => format!("finished after {:.1} s", took.as_secs_f64()),
                    Err(_) => format!("still running after {} s", (HANG + HANG_GRACE).as_secs()),
                };
                let report = format!("hang: more than {} s ({})", HANG.as_secs(), fate);
                let p = save(sh, "hang", &job, &report);
                eprintln!("fuzz: HANG on input #{} ({}): {}", index, p.display(), fate);
                let fresh = sh.tmp.join(format!("w{}-{}", w, n));
                let _ = std::fs::create_dir_all(fresh.join("out"));
                worker = spawn_worker(fresh, sh.platforms.clone());
                if n >= MAX_HANGS {
                    eprintln!("fuzz: {} hangs, stopping", n);
                    sh.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        let done = sh.done.fetch_add(1, Ordering::Relaxed) + 1;
        if done % PROGRESS == 0 {
            progress(sh, done);
        }
        index += sh.jobs;
    }
}

fn usage() -> ! {
    eprintln!("usage: cargo run --release --example fuzz -- N [--seed S] [--out DIR] [--jobs J]");
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut total: Option<u64> = None;
    let mut seed = 1u64;
    let mut out = PathBuf::from("fuzz-crashes");
    let mut jobs = 1u64;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--seed" => {
                seed = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--out" => out = args.next().map(PathBuf::from).unwrap_or_else(|| usage()),
            "--jobs" => {
                jobs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&j| j > 0)
                    .unwrap_or_else(|| usage())
            }
            "-h" | "--help" => usage(),
            _ => total = Some(a.parse().unwrap_or_else(|_| usage())),
        }
    }
    let total = total.unwrap_or_else(|| usage());

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let seeds = load_seeds(&root);
    if seeds.is_empty() {
        eprintln!("fuzz: no seeds found under {}", root.display());
        std::process::exit(2);
    }
    let mut headers: Vec<String> = seeds
        .iter()
        .filter(|s| s.path.extension().is_some_and(|x| x == "h"))
        .filter_map(|s| s.path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    headers.extend(["openacc.h", "math.h", "stdio.h", "missing.h"].map(String::from));
    let mut names: Vec<String> = std::fs::read_dir(root.join("platforms"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let p = e.path();
                    if p.extension()? == "toml" {
                        Some(p.file_stem()?.to_string_lossy().into_owned())
                    } else {
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut platforms: Vec<Platform> = names
        .iter()
        .filter_map(|n| Platform::load(n).ok())
        .collect();
    if platforms.is_empty() {
        platforms.push(Platform::load("a100").expect("the a100 platform"));
    }
    let tmp = std::env::temp_dir().join(format!("accshare-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    println!(
        "fuzz: {} inputs from {} seeds, {} platforms, seed {}, {} job(s); crashes to {}, temp dir {}",
        total,
        seeds.len(),
        platforms.len(),
        seed,
        jobs,
        out.display(),
        tmp.display()
    );
    install_panic_hook();

    let programs = (0..seeds.len())
        .filter(|&i| seeds[i].path.extension().is_some_and(|x| x == "c"))
        .collect();
    let sh = Shared {
        root,
        seeds,
        programs,
        headers,
        platforms: Arc::new(platforms),
        out,
        tmp: tmp.clone(),
        seed,
        total,
        jobs,
        start: Instant::now(),
        done: AtomicU64::new(0),
        accepted: AtomicU64::new(0),
        panics: AtomicU64::new(0),
        hangs: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        sites: Mutex::new(BTreeMap::new()),
    };
    std::thread::scope(|s| {
        for w in 0..jobs {
            let sh = &sh;
            s.spawn(move || run_shard(sh, w));
        }
    });

    let secs = sh.start.elapsed().as_secs_f64();
    let done = sh.done.load(Ordering::Relaxed);
    let panics = sh.panics.load(Ordering::Relaxed);
    let hangs = sh.hangs.load(Ordering::Relaxed);
    let sites = sh.sites.lock().unwrap();
    for site in sites.values() {
        println!("fuzz: panic ×{}: {}", site.count, site.message);
        for f in site.saved.iter().take(3) {
            println!("        {}", f.display());
        }
    }
    println!(
        "fuzz: {:.1}% of inputs accepted",
        100.0 * sh.accepted.load(Ordering::Relaxed) as f64 / done.max(1) as f64
    );
    println!(
        "fuzz: {} inputs, {} panics, {} hangs, {:.0} inputs/s ({:.1} s)",
        done,
        panics,
        hangs,
        done as f64 / secs.max(1e-9),
        secs
    );
    // Abandoned (hung) workers are still running: keep their directory, exit without joining.
    if hangs == 0 {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    std::process::exit(if panics + hangs > 0 { 1 } else { 0 });
}
