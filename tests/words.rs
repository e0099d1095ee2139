//! Short words (seed 004, issue 14): 8- and 16-bit arrays accessed at consecutive addresses
//! along x are grouped into vector accesses (`schedule::words`, applied by kernel lowering).
//!
//! - the grouped programs compute what `cc` computes, on the OpenCL device, at two sizes, one
//!   of them with a width that is not a multiple of the vector width (the edge work-items run
//!   the scalar copies);
//! - the simulator counts fewer global transactions with the grouping than without;
//! - the kernel text (OpenCL and CUDA) is pinned, and the CUDA kernels compile with NVRTC;
//! - `explain` says what was grouped, at which width, and why not elsewhere.
//!
//! The programs are sized for `pocl-cpu` (a CPU device: nothing is staged, so the unstaged
//! kernel with short words is the one the schedule prefers) and compiled with `--words on`:
//! by default a CPU device groups only nests with loops inside (Gauss), and blur and sharpen are
//! loop-free.

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn programs() -> Vec<PathBuf> {
    vec![
        root().join("examples/gauss.c"),
        root().join("tests/words/blur3x3_u8.c"),
        root().join("tests/words/sharpen_short.c"),
    ]
}

fn opts(words: Option<bool>) -> driver::OptOptions {
    driver::OptOptions {
        words,
        ..driver::OptOptions::share()
            .for_platform(accshare::model::Platform::load("pocl-cpu").expect("pocl-cpu"))
    }
}

fn compile(src: &Path, defines: &[(&str, &str)], target: Target, words: Option<bool>) -> String {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let o = driver::Options {
        target,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    let out = driver::compile_with(src, &o, &opts(words), &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let _ = target;
    out.kernel_source
}

/// Two sizes: widths 70/71 are not multiples of 4 (nor of 2 after the borders), 128 is.
const SIZES: [[(&str, &str); 2]; 2] = [[("H", "43"), ("W", "71")], [("H", "20"), ("W", "132")]];

#[test]
fn grouped_programs_equal_cc_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let mut problems = Vec::new();
    for src in programs() {
        for (k, size) in SIZES.iter().enumerate() {
            let defines: Vec<(String, String)> = size
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            let name = src.file_stem().unwrap().to_string_lossy().into_owned();
            let tag = format!("words-{}-{}", name, k);
            // The grouping is on when asked for: the kernel text says so.
            let text = compile(&src, size, Target::OpenCl, Some(true));
            assert!(
                text.contains("vload"),
                "{}: no vector load:\n{}",
                name,
                text
            );
            assert!(
                text.contains("vstore"),
                "{}: no vector store:\n{}",
                name,
                text
            );
            if let Err(e) =
                exec_support::programs::check_program(&src, &defines, &tag, &opts(Some(true)))
            {
                problems.push(format!("{} {:?}: {}", name, size, e));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `accshare analyze --format json` of the first kernel on `platform`, with `--words WORDS`.
fn analyze(src: &Path, platform: &str, words: &str) -> serde_json::Value {
    let out = exec_support::accshare_stdout(
        &[
            "analyze",
            "--platform",
            platform,
            "--format",
            "json",
            "--words",
            words,
        ],
        src,
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    v["kernels"][0].clone()
}

/// `accshare analyze --format json`'s global transactions of the first kernel on `pocl-cpu`.
fn transactions(src: &Path, words: &str) -> u64 {
    analyze(src, "pocl-cpu", words)["global_transactions"]
        .as_u64()
        .expect("global_transactions")
}

#[test]
fn the_simulator_counts_fewer_transactions_with_short_words() {
    for src in programs() {
        let (on, off) = (transactions(&src, "on"), transactions(&src, "off"));
        assert!(
            on * 2 < off,
            "{}: {} transactions with short words, {} without",
            src.display(),
            on,
            off
        );
    }
}

#[test]
fn kernel_text_is_pinned() {
    let blur = root().join("tests/words/blur3x3_u8.c");
    let short = root().join("tests/words/sharpen_short.c");
    insta::assert_snapshot!(
        "blur3x3_u8_opencl",
        compile(&blur, &SIZES[0], Target::OpenCl, Some(true))
    );
    insta::assert_snapshot!(
        "sharpen_short_opencl",
        compile(&short, &SIZES[0], Target::OpenCl, Some(true))
    );
    insta::assert_snapshot!(
        "blur3x3_u8_cuda",
        compile(&blur, &SIZES[0], Target::Cuda, Some(true))
    );
}

#[test]
fn words_off_is_the_scalar_kernel() {
    let blur = root().join("tests/words/blur3x3_u8.c");
    let text = compile(&blur, &SIZES[0], Target::OpenCl, Some(false));
    assert!(
        !text.contains("vload") && !text.contains("vstore"),
        "{}",
        text
    );
}

#[test]
fn cuda_kernels_compile_with_nvrtc() {
    for src in programs() {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let o = driver::Options {
            target: Target::Cuda,
            pp: Default::default(),
        };
        let out = driver::compile_with(&src, &o, &opts(Some(true)), &mut sources, &mut diags)
            .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
        assert!(
            out.kernel_source.contains("accshare_p"),
            "{}",
            out.kernel_source
        );
        if !exec_support::nvrtc_compiles(&src.display().to_string(), &out.kernel_source) {
            return;
        }
    }
}

fn explain(src: &Path, platform: &str) -> String {
    exec_support::accshare_stdout(&["explain", "--platform", platform], src)
}

#[test]
fn explain_says_what_is_grouped_and_why_not() {
    let gauss = root().join("examples/gauss.c");
    let text = explain(&gauss, "pocl-cpu");
    assert!(
        text.contains("short words (seed 004): 4 consecutive outputs along x per work-item")
            && text.contains(
                "`in` (unsigned char) loads grouped per row into vectors of up to 8 lanes"
            )
            && text.contains("`out` (unsigned char) stores grouped into one vector of 4 lanes"),
        "{}",
        text
    );
    // On a GPU the `share` pragma stages `in`: the grouping is not applied, and explain says why.
    let text = explain(&gauss, "a100");
    assert!(
        text.contains("short words (seed 004): not grouped: the kernel is staged"),
        "{}",
        text
    );
    // A loop-free kernel on a CPU device is grouped only when asked for (`--words on`, as the
    // other tests here do): PoCL vectorises it across work-items already.
    let short = root().join("tests/words/sharpen_short.c");
    let text = explain(&short, "pocl-cpu");
    assert!(
        text.contains("short words (seed 004): not grouped: a loop-free nest on a CPU device: its OpenCL compiler vectorises it across work-items already"),
        "{}",
        text
    );
}

// ---------------------------------------------------------------------------------------------
// Staged tiles (issue 14): the cooperative copies of 8/16-bit tiles grouped into vectors
// ---------------------------------------------------------------------------------------------

/// The staged programs: scheduled for a GPU (no platform: the engine's default model), where the
/// `share` pragmas stage `in` (`out` in transpose, a written tile stored back), and run on the
/// OpenCL device (PoCL) all the same. `smooth3`'s tile starts a byte past a word: its copy is
/// not grouped (the scalar copy, checked too).
fn staged_programs() -> Vec<PathBuf> {
    vec![
        root().join("examples/gauss.c"),
        root().join("tests/words/blur3x3_u8_share.c"),
        root().join("tests/words/smooth3_u8_share.c"),
        root().join("tests/words/transpose_u8_share.c"),
    ]
}

/// On a GPU without the L1 model (`a100`), whose schedules stage the engine's tiles: the short
/// words of staged tiles are what these tests pin.
fn gpu_opts(words: Option<bool>) -> driver::OptOptions {
    driver::OptOptions {
        platform: Some(accshare::model::Platform::load("a100").expect("a100")),
        ..opts(words)
    }
}

fn compile_gpu(src: &Path, defines: &[(&str, &str)], target: Target) -> String {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let o = driver::Options {
        target,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.to_string(), Some(b.to_string())))
                .collect(),
            include_dirs: Vec::new(),
        },
    };
    driver::compile_with(src, &o, &gpu_opts(None), &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)))
        .kernel_source
}

/// The grouped tile copies compute what `cc` computes at both sizes (71 columns: the tiles of
/// the last column of blocks end inside a vector, and rows of the array are not word-aligned;
/// 132: whole vectors), and the kernel text has the vector copy into the tile where the
/// schedule grouped it.
#[test]
fn staged_grouped_copies_equal_cc_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let mut problems = Vec::new();
    for src in staged_programs() {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        for (k, size) in SIZES.iter().enumerate() {
            let text = compile_gpu(&src, size, Target::OpenCl);
            let grouped = text.contains("vstore4(");
            assert!(
                text.contains("__local uchar accshare_sh_"),
                "{name}:\n{text}"
            );
            if name == "transpose_u8_share" {
                // The written tile is stored back a vector per work-item.
                assert!(text.contains("vload4(0, &accshare_sh_out["), "{text}");
            }
            assert_eq!(grouped, name != "smooth3_u8_share", "{name}:\n{text}");
            let defines: Vec<(String, String)> = size
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            let tag = format!("words-staged-{}-{}", name, k);
            if let Err(e) = exec_support::programs::check_variants(
                &src,
                &defines,
                &tag,
                &[
                    ("grouped", gpu_opts(None)),
                    ("scalar", gpu_opts(Some(false))),
                ],
            ) {
                problems.push(format!("{} {:?}: {}", name, size, e));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `--words off` copies the tiles one element per work-item, as before.
#[test]
fn staged_words_off_is_the_scalar_copy() {
    let gauss = root().join("examples/gauss.c");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let o = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let text = driver::compile_with(&gauss, &o, &gpu_opts(Some(false)), &mut sources, &mut diags)
        .unwrap()
        .kernel_source;
    assert!(text.contains("__local uchar accshare_sh_in"), "{text}");
    assert!(
        !text.contains("vload") && !text.contains("vstore"),
        "{text}"
    );
}

#[test]
fn staged_kernel_text_is_pinned() {
    let blur = root().join("tests/words/blur3x3_u8_share.c");
    insta::assert_snapshot!(
        "blur3x3_u8_share_opencl",
        compile_gpu(&blur, &SIZES[0], Target::OpenCl)
    );
    insta::assert_snapshot!(
        "blur3x3_u8_share_cuda",
        compile_gpu(&blur, &SIZES[0], Target::Cuda)
    );
}

#[test]
fn staged_cuda_kernels_compile_with_nvrtc() {
    for src in staged_programs() {
        for size in &SIZES {
            let text = compile_gpu(&src, size, Target::Cuda);
            assert!(
                text.contains("__shared__ __align__(4) unsigned char"),
                "{text}"
            );
            if !exec_support::nvrtc_compiles(&src.display().to_string(), &text) {
                return;
            }
        }
    }
}

/// `accshare analyze` of the first kernel (JSON) on `a100`, where `share` stages the tile.
fn analyze_a100(src: &Path, words: &str) -> serde_json::Value {
    analyze(src, "a100", words)
}

/// The simulator follows the kernel IR: the grouped copy makes fewer global requests (a warp's
/// row of the 36-wide tile in one request of 9 lanes × 4 bytes instead of 32 + 4 lanes of one
/// byte) and issues fewer instructions.
#[test]
fn the_simulator_counts_fewer_requests_for_grouped_tile_copies() {
    let src = root().join("tests/words/blur3x3_u8_share.c");
    let (on, off) = (analyze_a100(&src, "on"), analyze_a100(&src, "off"));
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().expect(k);
    assert!(
        n(&on, "global_requests") < n(&off, "global_requests"),
        "{on}\n{off}"
    );
    assert!(
        n(&on, "instructions") < n(&off, "instructions"),
        "{on}\n{off}"
    );
}

/// The decision per tile, as `explain` prints it (text) and reports it (JSON).
#[test]
fn explain_shows_the_tile_copy_decision() {
    let mut lines = Vec::new();
    for src in staged_programs() {
        let text = explain(&src, "a100");
        lines.push(format!("{}:", src.file_name().unwrap().to_string_lossy()));
        lines.extend(
            text.lines()
                .filter(|l| l.contains("short-word tile copies") || l.contains("short words"))
                .map(|l| l.trim().to_string()),
        );
        let out = exec_support::accshare_stdout(
            &["explain", "--platform", "a100", "--format", "json"],
            &src,
        );
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        lines.push(format!(
            "json: {}",
            v["regions"][0]["kernels"][0]["tile_words"]
        ));
    }
    insta::assert_snapshot!("staged_tile_words_explain", lines.join("\n"));
}
