//! No input makes accshare panic, hang or overflow its stack: random bytes, random token soups,
//! mutated examples, pathological nesting, a 10 MB file. Each input goes through the whole
//! compiler (front end, IR, analyses, kernel lowering, back ends) on a thread with the default
//! 8 MB stack of a test thread... of a spawned thread: 8 MB, less than the CLI gives itself.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use accshare::back::Target;
use accshare::diag::{Diags, SourceMap};
use accshare::driver;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("accshare-robust-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

/// Compiles `text` on a fresh 8 MB thread for both targets; fails the test on a panic or when
/// it takes too long.
fn survive(name: &str, text: &[u8], limit: Duration) {
    survive_for(name, text, limit, &[Target::OpenCl, Target::Cuda]);
}

/// [`survive`] for `targets` only.
fn survive_for(name: &str, text: &[u8], limit: Duration, targets: &'static [Target]) {
    let path = tmp(name);
    std::fs::write(&path, text).expect("write");
    let p = path.clone();
    let start = Instant::now();
    let h = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            for &target in targets {
                let mut sources = SourceMap::new();
                let mut diags = Diags::new();
                let opts = driver::Options {
                    target,
                    pp: Default::default(),
                };
                let _ = driver::compile(&p, &opts, &mut sources, &mut diags);
                // Rendering must not panic either.
                let _ = accshare::diag::render(&sources, &diags.0);
            }
        })
        .expect("spawn");
    let res = h.join();
    let took = start.elapsed();
    assert!(
        res.is_ok(),
        "accshare panicked on input {} (kept at {})",
        name,
        path.display()
    );
    assert!(
        took < limit,
        "accshare took {:?} on input {} (limit {:?})",
        took,
        name,
        limit
    );
    let _ = std::fs::remove_file(&path);
}

fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["examples", "tests/corpus", "tests/errors"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
            files.sort();
            for p in files {
                if p.extension().is_some_and(|x| x == "c") {
                    v.push(std::fs::read(&p).unwrap_or_default());
                }
            }
        }
    }
    v
}

const VOCAB: &[&str] = &[
    "for",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    "int",
    "float",
    "i",
    "j",
    "n",
    "A",
    "B",
    "=",
    "+=",
    "<",
    "<=",
    "++",
    "--",
    "0",
    "1",
    "1.5f",
    "*",
    "/",
    "%",
    "?",
    ":",
    "if",
    "else",
    "while",
    "do",
    "return",
    "\n#pragma acc kernels loop independent\n",
    "\n#pragma acc loop\n",
    "\n#pragma acc share(A[TB_Y][*])\n",
    "\n#pragma acc data copy(A[0:n])\n",
    "\n#define M(x) ((x)+1)\n",
    "M(",
    "\n#if 1\n",
    "\n#endif\n",
    "void f(int n, float A[n], float *B)",
    "sqrtf",
    ",",
    "&&",
    "||",
    "!",
    "~",
    "->",
    ".",
    "\"s\"",
    "'c'",
    "/*",
    "*/",
    "//",
    "#",
    "##",
    "\\\n",
    "unsigned char",
    "double",
    "size_t",
    "const",
    "restrict",
    "static",
    "goto",
    "struct",
    "switch",
    "case",
    "break",
    "continue",
    "sizeof",
    "(float)",
];

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..150 {
        let len = rng.below(600);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        survive(&format!("bytes{}.c", i), &bytes, Duration::from_secs(20));
    }
}

#[test]
fn random_token_soup() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for i in 0..300 {
        let n = rng.below(120);
        let mut s = String::from("void f(int n, float A[n][n], float B[n][n]) {\n");
        for _ in 0..n {
            s.push_str(VOCAB[rng.below(VOCAB.len())]);
            s.push(' ');
        }
        s.push_str("\n}\n");
        survive(
            &format!("soup{}.c", i),
            s.as_bytes(),
            Duration::from_secs(20),
        );
    }
}

#[test]
fn mutated_programs() {
    let seeds = seeds();
    assert!(!seeds.is_empty(), "no seed programs");
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for i in 0..250 {
        let mut t = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(6) {
            if t.is_empty() {
                break;
            }
            let a = rng.below(t.len());
            let b = (a + rng.below(40)).min(t.len());
            match rng.below(4) {
                0 => {
                    t.drain(a..b);
                }
                1 => {
                    let chunk = t[a..b].to_vec();
                    let at = rng.below(t.len());
                    t.splice(at..at, chunk);
                }
                2 => {
                    let tok = VOCAB[rng.below(VOCAB.len())].as_bytes().to_vec();
                    t.splice(a..a, tok);
                }
                _ => {
                    if a < t.len() {
                        t[a] = rng.next() as u8;
                    }
                }
            }
        }
        survive(&format!("mut{}.c", i), &t, Duration::from_secs(20));
    }
}

#[test]
fn pathological_nesting() {
    let deep_parens = format!(
        "void f(int n, float *a) {{\n#pragma acc kernels loop independent\nfor (int i = 0; i < n; i++) a[i] = {}1{};\n}}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    survive("parens.c", deep_parens.as_bytes(), Duration::from_secs(30));
    let deep_blocks = format!(
        "void f(void) {{ {} {} }}\n",
        "{".repeat(5000),
        "}".repeat(5000)
    );
    survive("blocks.c", deep_blocks.as_bytes(), Duration::from_secs(30));
    let long_expr = format!(
        "void f(int n, float *a) {{\n#pragma acc kernels loop independent\nfor (int i = 0; i < n; i++) a[i] = {}1;\n}}\n",
        "a[i] + ".repeat(20000)
    );
    survive("longexpr.c", long_expr.as_bytes(), Duration::from_secs(30));
    let deep_if = format!(
        "{}int x;\n{}",
        "#if 1\n".repeat(5000),
        "#endif\n".repeat(5000)
    );
    survive("ifs.c", deep_if.as_bytes(), Duration::from_secs(30));
    let macro_bomb: String = (0..30)
        .map(|i| format!("#define M{} M{} M{}\n", i, i + 1, i + 1))
        .collect::<String>()
        + "int x = M0;\n";
    survive("bomb.c", macro_bomb.as_bytes(), Duration::from_secs(30));
    let recursive = "#define A B\n#define B A\nint x = A;\n#define F(x) F(x) + G(x)\n#define G(x) F(x)\nint y = F(1);\n";
    survive("recursive.c", recursive.as_bytes(), Duration::from_secs(10));
    for (name, text) in [
        ("empty.c", ""),
        ("comment.c", "/* never closed"),
        ("pragma.c", "#pragma acc share(A[TB_Y][*]"),
        ("string.c", "char *s = \"abc"),
        ("hash.c", "#"),
        ("define.c", "#define F(x"),
    ] {
        survive(name, text.as_bytes(), Duration::from_secs(10));
    }
}

#[test]
fn ten_megabytes() {
    // A realistic large file: plenty of plain code, and an annotated function now and then.
    let plain = "static float data_X[64];\nint g_X(int x) { int y = x * 2 + 1; /* plain code */ return y ^ (y >> 3); }\n";
    let annotated = "void f_X(int n, float *restrict a, const float *restrict b) {\n#pragma acc parallel loop copyin(b[0:n]) copy(a[0:n])\n  for (int i = 0; i < n; i++) a[i] = a[i] * 0.5f + b[i];\n}\n";
    let mut s = String::with_capacity(10 << 20);
    let mut k = 0;
    while s.len() < 10 << 20 {
        let unit = if k % 50 == 0 { annotated } else { plain };
        s.push_str(&unit.replace('X', &k.to_string()));
        k += 1;
    }
    survive("big.c", s.as_bytes(), Duration::from_secs(300));
}

/// A file that includes itself twice (found by the fuzzer): the inclusions double at every level
/// until the per-file limit stops them; that must stay quick (debug build: a generous limit).
#[test]
fn self_including_file_is_refused_quickly() {
    let mut text = String::from("#include \"self_bomb.c\"\n#include \"self_bomb.c\"\n");
    for i in 0..200 {
        text.push_str(&format!(
            "float v{i}(float x) {{ return x * {i}.0f + 1.0f; }}\n"
        ));
    }
    // The inclusion limit is in the front end, which both targets share: one target is enough
    // (in a debug build the 2,000 inclusions the limit allows take ~20 s per compilation).
    survive_for(
        "self_bomb.c",
        text.as_bytes(),
        Duration::from_secs(60),
        &[Target::OpenCl],
    );
}
