//! CUDA output compiled by a real nvcc: every example and corpus program goes through accshare
//! (`--target cuda`, in-process), and the written `.cu` (kernels + CUDA runtime host code + the
//! program) is compiled to an object with `nvcc -c -arch=sm_75 -Xptxas -v` (no link, no GPU
//! needed). Prints the registers / shared memory / spills ptxas reports for every kernel and
//! checks that every kernel of the module was compiled for the device.
//!
//! nvcc comes from `bash .ci/nvcc.sh` (the PyPI toolkit that `.ci/install-deps.sh` installs),
//! else `nvcc` on `PATH`. Without one the test prints `SKIP: …` and passes, unless
//! `ACCSHARE_REQUIRE_DEVICES=1` (CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use accshare::back::output::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

/// Corpus programs that are valid C but not valid C++, so the single `.cu` translation unit
/// (which contains the program's own text) cannot compile. Each is checked to still fail, so
/// the list stays accurate.
const C_ONLY: &[(&str, &str)] = &[
    ("atax_vla.c", "variable-length array parameters"),
    ("row_sum_vla.c", "variable-length array parameters"),
    ("scalar_args_casts.c", "variable-length array parameters"),
    ("threshold_u8.c", "variable-length array parameters"),
    (
        "share_write_accumulate.c",
        "variable-length array parameters",
    ),
    (
        "collatz_while.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "heat1d_double.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "macro_idx.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "math_funcs.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "popcount_hash.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "reduce_sum_int.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "stencil3d_7pt.c",
        "`void *` from xmalloc() converted implicitly",
    ),
    (
        "sum_axis3d.c",
        "`void *` from xmalloc() converted implicitly",
    ),
];

fn require_devices() -> bool {
    std::env::var("ACCSHARE_REQUIRE_DEVICES").is_ok_and(|v| v == "1")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The nvcc to use, or why there is none.
fn find_nvcc() -> Result<PathBuf, String> {
    let script = root().join(".ci/nvcc.sh");
    let mut tried = Vec::new();
    match Command::new("bash").arg(&script).output() {
        Ok(o) => {
            let p = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if !p.is_empty() {
                return Ok(PathBuf::from(p));
            }
            tried.push(format!("{} printed nothing", script.display()));
        }
        Err(e) => tried.push(format!("cannot run {}: {}", script.display(), e)),
    }
    match Command::new("nvcc").arg("--version").output() {
        Ok(o) if o.status.success() => return Ok(PathBuf::from("nvcc")),
        _ => tried.push("no `nvcc` on PATH".to_string()),
    }
    Err(format!(
        "{}; run `bash .ci/install-deps.sh`",
        tried.join(", ")
    ))
}

fn programs(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One kernel's line of `-Xptxas -v` output.
#[derive(Debug, Default)]
struct Usage {
    registers: u32,
    smem: u32,
    spill_stores: u32,
    spill_loads: u32,
}

/// Parses ptxas's `-v` report: `Compiling entry function 'K' for 'sm_75'`, then
/// `N bytes stack frame, S bytes spill stores, L bytes spill loads` and
/// `Used R registers, …, M bytes smem, …`.
fn parse_ptxas(text: &str) -> Vec<(String, Usage)> {
    fn num_before(line: &str, what: &str) -> Option<u32> {
        let at = line.find(what)?;
        line[..at].split_whitespace().last()?.parse().ok()
    }
    let mut out: Vec<(String, Usage)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.push((name, Usage::default()));
            continue;
        }
        let Some((_, u)) = out.last_mut() else {
            continue;
        };
        if line.contains("spill stores") {
            u.spill_stores = num_before(line, " bytes spill stores").unwrap_or(0);
            u.spill_loads = num_before(line, " bytes spill loads").unwrap_or(0);
        }
        if line.contains("Used ") && line.contains(" registers") {
            u.registers = num_before(line, " registers").unwrap_or(0);
            u.smem = num_before(line, " bytes smem").unwrap_or(0);
        }
    }
    out
}

/// Compiles `src` through accshare and nvcc. `Ok` holds the report to print.
fn check(nvcc: &Path, src: &Path, work: &Path) -> Result<String, String> {
    let name = src.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_default();
    let dir = work.join(src.file_stem().unwrap_or_default());
    let _ = std::fs::remove_dir_all(&dir);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: Default::default(),
    };
    // The default output: shared-memory staging (`--opt share`) for the default platform.
    let oo = driver::OptOptions {
        opt: driver::OptLevel::Share,
        platform: None,
        ilp: None,
    };
    let Some(out) = driver::compile_with(src, &opts, &oo, &mut sources, &mut diags) else {
        return Err(format!(
            "accshare failed:\n{}",
            diag::render(&sources, &diags.0)
        ));
    };
    let files = driver::write(&out, src, &dir, Target::Cuda)?;
    let cu = files
        .iter()
        .find(|p| p.extension().is_some_and(|x| x == "cu"))
        .ok_or_else(|| format!("no .cu among {:?}", files))?;
    // Local headers (`#include "corpus_common.h"`) next to the .cu.
    if let Some(sd) = src.parent() {
        for e in std::fs::read_dir(sd).map_err(|e| e.to_string())?.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "h") {
                if let Some(f) = p.file_name() {
                    std::fs::copy(&p, dir.join(f)).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    let obj = dir.join("out.o");
    let o = Command::new(nvcc)
        .args(["-c", "-arch=sm_75", "-Xptxas", "-v", "-o"])
        .arg(&obj)
        .arg(cu)
        .output()
        .map_err(|e| format!("cannot run {}: {}", nvcc.display(), e))?;
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        return Err(format!(
            "nvcc failed on {}:\n{}{}",
            cu.display(),
            stdout,
            stderr
        ));
    }
    if !obj.is_file() {
        return Err(format!("nvcc wrote no {}", obj.display()));
    }
    let usage = parse_ptxas(&format!("{}\n{}", stdout, stderr));
    let mut report = format!("{}: {} kernel(s)\n", name, out.module.kernels.len());
    for k in &out.module.kernels {
        let Some((_, u)) = usage.iter().find(|(n, _)| *n == k.name) else {
            return Err(format!(
                "ptxas compiled no entry function `{}` (it compiled {:?})",
                k.name,
                usage.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>()
            ));
        };
        let local_bytes = !k.locals.is_empty();
        if local_bytes && u.smem == 0 {
            return Err(format!(
                "kernel `{}` declares shared arrays but ptxas reports no shared memory",
                k.name
            ));
        }
        report.push_str(&format!(
            "  {:<32} block {:>4}x{:<3} {:>3} registers {:>6} B smem  spills {}/{} B\n",
            k.name, k.block[0], k.block[1], u.registers, u.smem, u.spill_stores, u.spill_loads
        ));
    }
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains(": warning")).collect();
    if let Some(w) = warnings.first() {
        report.push_str(&format!(
            "  nvcc warnings: {} (first: {})\n",
            warnings.len(),
            w.rsplit(": warning").next().unwrap_or("").trim()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(report)
}

#[test]
fn parse_ptxas_report() {
    let text = "ptxas info    : 0 bytes gmem\n\
        ptxas info    : Compiling entry function 'gemm_r0_k0' for 'sm_75'\n\
        ptxas info    : Function properties for gemm_r0_k0\n    \
        8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
        ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n\
        ptxas info    : Compiling entry function 'k1' for 'sm_75'\n\
        ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n";
    let u = parse_ptxas(text);
    assert_eq!(u.len(), 2);
    assert_eq!(u[0].0, "gemm_r0_k0");
    assert_eq!(
        (
            u[0].1.registers,
            u[0].1.smem,
            u[0].1.spill_stores,
            u[0].1.spill_loads
        ),
        (40, 2048, 4, 12)
    );
    assert_eq!(u[1].0, "k1");
    assert_eq!((u[1].1.registers, u[1].1.smem), (8, 0));
}

#[test]
fn cuda_output_compiles_with_nvcc() {
    let nvcc = match find_nvcc() {
        Ok(p) => p,
        Err(why) => {
            if require_devices() {
                panic!("ACCSHARE_REQUIRE_DEVICES=1 but nvcc is missing: {}", why);
            }
            eprintln!("SKIP: nvcc not installed ({})", why);
            return;
        }
    };
    let work = std::env::temp_dir().join(format!("accshare-nvcc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("temp dir");
    let examples = programs("examples");
    assert!(!examples.is_empty(), "no examples/*.c");
    let mut failures = Vec::new();
    let mut compiled = 0;
    for src in examples.iter().chain(programs("tests/corpus").iter()) {
        let name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let c_only = C_ONLY.iter().find(|(n, _)| *n == name);
        match (check(&nvcc, src, &work), c_only) {
            (Ok(report), None) => {
                compiled += 1;
                print!("{}", report);
            }
            (Err(e), None) => failures.push(format!("{}: {}", src.display(), e)),
            (Err(e), Some((_, why))) => {
                let first = e.lines().find(|l| l.contains("error")).unwrap_or("");
                println!("{}: not C++ ({}), as expected: {}", name, why, first.trim());
            }
            (Ok(_), Some(_)) => failures.push(format!(
                "{}: listed in C_ONLY but now compiles; remove it from the list",
                src.display()
            )),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!("nvcc {}: {} program(s) compiled", nvcc.display(), compiled);
    assert!(
        failures.is_empty(),
        "{} program(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Links one example (static cudart) and runs it: with a GPU it must succeed; without one (or
/// without a driver) it must stop with exit code 1 and an `accshare: …` message naming the
/// region, not crash.
#[test]
fn linked_program_runs_or_fails_cleanly() {
    let nvcc = match find_nvcc() {
        Ok(p) => p,
        Err(why) => {
            if require_devices() {
                panic!("ACCSHARE_REQUIRE_DEVICES=1 but nvcc is missing: {}", why);
            }
            eprintln!("SKIP: nvcc not installed ({})", why);
            return;
        }
    };
    let src = root().join("examples/saxpy_ptr.c");
    let dir = std::env::temp_dir().join(format!("accshare-nvcc-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: Default::default(),
    };
    let out = driver::compile(&src, &opts, &mut sources, &mut diags)
        .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
    let files = driver::write(&out, &src, &dir, Target::Cuda).unwrap();
    let exe = dir.join("saxpy_ptr");
    let o = Command::new(&nvcc)
        .args(["-arch=sm_75", "-o"])
        .arg(&exe)
        .arg(&files[0])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "nvcc:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = Command::new(&exe).output().unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    if r.status.success() {
        println!("ran on a CUDA device");
        assert!(String::from_utf8_lossy(&r.stdout).starts_with("== y 1000000\n"));
    } else {
        println!("no usable CUDA device: {}", stderr.trim());
        assert_eq!(r.status.code(), Some(1), "stderr:\n{}", stderr);
        assert!(
            stderr.starts_with("accshare: ") && stderr.contains(" at saxpy_ptr.c:28\n"),
            "stderr:\n{}",
            stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The prelude's C compatibility (`malloc` & co. as macros, `restrict`) must survive the C
/// library headers a program may include after it, some of which declare `malloc` again.
#[test]
fn c_compat_survives_c_library_headers() {
    let nvcc = match find_nvcc() {
        Ok(p) => p,
        Err(why) => {
            if require_devices() {
                panic!("ACCSHARE_REQUIRE_DEVICES=1 but nvcc is missing: {}", why);
            }
            eprintln!("SKIP: nvcc not installed ({})", why);
            return;
        }
    };
    let headers = [
        "assert.h",
        "ctype.h",
        "errno.h",
        "float.h",
        "inttypes.h",
        "limits.h",
        "malloc.h",
        "math.h",
        "stdarg.h",
        "stdbool.h",
        "stddef.h",
        "stdint.h",
        "stdio.h",
        "stdlib.h",
        "string.h",
        "time.h",
        "alloca.h",
        "unistd.h",
    ];
    let mut program = String::new();
    for h in headers {
        program.push_str(&format!("#include <{}>\n", h));
    }
    program.push_str(
        "void scale(int n, float *restrict y)\n\
         {\n    int i;\n\
         #pragma acc parallel loop copy(y[0:n])\n\
         \x20   for (i = 0; i < n; i++)\n        y[i] = 2.0f * y[i];\n}\n\
         int main(void)\n{\n\
         \x20   float (*a)[8] = malloc(sizeof(float[4][8]));\n\
         \x20   float *b = calloc(32, sizeof(float));\n\
         \x20   void *v = malloc(1);\n\
         \x20   if (!a || !b || !v)\n        return 1;\n\
         \x20   b = realloc(b, 64 * sizeof(float));\n\
         \x20   scale(64, b);\n\
         \x20   a[1][2] = b[3];\n\
         \x20   free(a);\n    free(b);\n    free(v);\n    return 0;\n}\n",
    );
    let work = std::env::temp_dir().join(format!("accshare-nvcc-compat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let src = work.join("compat.c");
    std::fs::write(&src, &program).unwrap();
    let r = check(&nvcc, &src, &work.join("out"));
    let _ = std::fs::remove_dir_all(&work);
    match r {
        Ok(report) => print!("{}", report),
        Err(e) => panic!("{}", e),
    }
}
