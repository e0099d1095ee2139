//! CUDA output built with a real nvcc: every example and corpus program goes through accshare
//! (`--target cuda`, in-process); the written `.cu` (kernels, launch functions, CUDA runtime
//! calls) is compiled to an object with `nvcc -c -arch=sm_75 -Xptxas -v`, the written `.c` (the
//! program, C) with `cc -c` and the same `-D` defines, and the two are linked by `cc` with the
//! static CUDA runtime, as README.md tells users to (no GPU needed to build). Prints the
//! registers / shared memory / spills ptxas reports for every kernel and checks that every
//! kernel of the module was compiled for the device.
//!
//! nvcc comes from `bash .ci/nvcc.sh` (the PyPI toolkit that `.ci/install-deps.sh` installs),
//! else `nvcc` on `PATH`; the CUDA runtime library from the toolkit's `lib`/`lib64` folder next
//! to nvcc's `bin`. Without them the test prints `SKIP: …` and passes, unless
//! `ACCSHARE_REQUIRE_DEVICES=1` (CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

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

/// nvcc and the folder holding `libcudart_static.a` (`lib64` or `lib` next to nvcc's `bin`;
/// for `nvcc` on `PATH`, found through `which`-like search of `PATH`).
struct Toolkit {
    nvcc: PathBuf,
    cudart_dir: PathBuf,
}

impl Toolkit {
    /// `cc OBJECTS -o OUT` with the static CUDA runtime and what it needs (the README's link line).
    fn link(&self, objects: &[PathBuf], out: &Path) -> Command {
        let mut link = Command::new("cc");
        link.args(objects)
            .arg("-o")
            .arg(out)
            .arg(format!("-L{}", self.cudart_dir.display()))
            .args([
                "-lcudart_static",
                "-lstdc++",
                "-ldl",
                "-lpthread",
                "-lrt",
                "-lm",
            ]);
        link
    }
}

fn find_toolkit() -> Result<Toolkit, String> {
    let nvcc = find_nvcc()?;
    let resolved = if nvcc.components().count() > 1 {
        Some(nvcc.clone())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(&nvcc))
                .find(|p| p.is_file())
        })
    };
    let top = resolved
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| p.parent().and_then(Path::parent).map(Path::to_path_buf))
        .ok_or_else(|| format!("cannot find the toolkit folder of {}", nvcc.display()))?;
    let cudart_dir = ["lib64", "lib"]
        .iter()
        .map(|l| top.join(l))
        .find(|d| d.join("libcudart_static.a").is_file())
        .ok_or_else(|| {
            format!(
                "no libcudart_static.a in {}/lib64 or {}/lib",
                top.display(),
                top.display()
            )
        })?;
    Ok(Toolkit { nvcc, cudart_dir })
}

/// The toolkit, or `None` after a visible skip (a failure under ACCSHARE_REQUIRE_DEVICES=1).
fn toolkit_or_skip() -> Option<Toolkit> {
    match find_toolkit() {
        Ok(t) => Some(t),
        Err(why) => {
            if require_devices() {
                panic!(
                    "ACCSHARE_REQUIRE_DEVICES=1 but the CUDA toolkit is missing: {}",
                    why
                );
            }
            eprintln!("SKIP: CUDA toolkit not installed ({})", why);
            None
        }
    }
}

/// Runs `cmd`; `Ok` with its stdout + stderr if it succeeded.
fn run(mut cmd: Command, what: &str) -> Result<String, String> {
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {}", cmd.get_program(), e))?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    if !o.status.success() {
        return Err(format!(
            "{} failed ({}):\n{:?}\n{}",
            what, o.status, cmd, text
        ));
    }
    Ok(text)
}

/// The two output files, built as README.md says: `nvcc -c FILE.cu`, `cc -c FILE.c` (with the
/// program's `-D` defines and its folder for local headers), linked by `cc` with the static
/// CUDA runtime. Returns the executable and nvcc's output (the ptxas report).
fn build(
    tk: &Toolkit,
    src: &Path,
    files: &[PathBuf],
    defines: &[(String, String)],
    includes: &[PathBuf],
    dir: &Path,
) -> Result<(PathBuf, String), String> {
    let find = |ext: &str| {
        files
            .iter()
            .find(|p| p.extension().is_some_and(|x| x == ext))
            .ok_or_else(|| format!("no .{} among {:?}", ext, files))
    };
    let (c, cu) = (find("c")?, find("cu")?);
    let cu_obj = dir.join("cu.o");
    let mut nvcc = Command::new(&tk.nvcc);
    nvcc.args(["-c", "-arch=sm_75", "-Xptxas", "-v", "-o"])
        .arg(&cu_obj)
        .arg(cu);
    let report = run(nvcc, "nvcc -c")?;
    if !cu_obj.is_file() {
        return Err(format!("nvcc wrote no {}", cu_obj.display()));
    }
    let c_obj = dir.join("c.o");
    let mut cc = Command::new("cc");
    cc.arg("-c");
    if let Some(sd) = src.parent().filter(|d| !d.as_os_str().is_empty()) {
        cc.arg(format!("-I{}", sd.display()));
    }
    for d in includes {
        cc.arg(format!("-I{}", d.display()));
    }
    for (name, value) in defines {
        cc.arg(format!("-D{}={}", name, value));
    }
    cc.arg(c).arg("-o").arg(&c_obj);
    run(cc, "cc -c")?;
    let exe = dir.join("prog");
    run(tk.link(&[c_obj, cu_obj], &exe), "cc (link)")?;
    Ok((exe, report))
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

/// Compiles `src` through accshare (with `defines`), builds the output and links it. `Ok`
/// holds the report to print.
fn check(
    tk: &Toolkit,
    src: &Path,
    defines: &[(String, String)],
    work: &Path,
) -> Result<String, String> {
    check_with(tk, src, defines, &[], work)
}

/// [`check`] with `-I` directories (for accshare and `cc`).
fn check_with(
    tk: &Toolkit,
    src: &Path,
    defines: &[(String, String)],
    includes: &[PathBuf],
    work: &Path,
) -> Result<String, String> {
    let name = src.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_default();
    let dir = work.join(src.file_stem().unwrap_or_default());
    let _ = std::fs::remove_dir_all(&dir);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::Cuda,
        pp: accshare::front::preprocess::PpOptions {
            defines: defines
                .iter()
                .map(|(a, b)| (a.clone(), Some(b.clone())))
                .collect(),
            include_dirs: includes.to_vec(),
        },
    };
    // The default output: shared-memory staging (`--opt share`) for the default platform.
    let oo = driver::OptOptions::share();
    let Some(out) = driver::compile_with(src, &opts, &oo, &mut sources, &mut diags) else {
        return Err(format!(
            "accshare failed:\n{}",
            diag::render(&sources, &diags.0)
        ));
    };
    let files = driver::write(&out, src, &dir, Target::Cuda)?;
    let (exe, nvcc_out) = build(tk, src, &files, defines, includes, &dir)?;
    if !exe.is_file() {
        return Err(format!("the link wrote no {}", exe.display()));
    }
    let usage = parse_ptxas(&nvcc_out);
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
    let warnings: Vec<&str> = nvcc_out
        .lines()
        .filter(|l| l.contains(": warning"))
        .collect();
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

/// Every example and corpus program: both files compile and link (C-only code, such as
/// variable-length array parameters or `void *` converted implicitly, is in the `.c`).
#[test]
fn cuda_output_compiles_and_links() {
    let Some(tk) = toolkit_or_skip() else {
        return;
    };
    let work = std::env::temp_dir().join(format!("accshare-nvcc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("temp dir");
    let examples = programs("examples");
    assert!(!examples.is_empty(), "no examples/*.c");
    let mut failures = Vec::new();
    let mut built = 0;
    for src in examples.iter().chain(programs("tests/corpus").iter()) {
        match check(&tk, src, &[], &work) {
            Ok(report) => {
                built += 1;
                print!("{}", report);
            }
            Err(e) => failures.push(format!("{}: {}", src.display(), e)),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    println!(
        "nvcc {}: {} program(s) compiled and linked",
        tk.nvcc.display(),
        built
    );
    assert!(
        failures.is_empty(),
        "{} program(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The programs of `tests/accsuite` (PolyBench/ACC and Rodinia style, `-I utilities
/// -DMINI_DATASET`) that accshare compiles: both CUDA files compile and link.
#[test]
fn accsuite_cuda_output_compiles_and_links() {
    let Some(tk) = toolkit_or_skip() else {
        return;
    };
    let work = std::env::temp_dir().join(format!("accshare-nvcc-suite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("temp dir");
    let suite = root().join("tests/accsuite");
    let refused = std::fs::read_to_string(suite.join("REFUSED")).unwrap_or_default();
    let refused: Vec<&str> = refused
        .lines()
        .filter_map(|l| l.split('#').next())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut names: Vec<String> = std::fs::read_dir(&suite)
        .expect("tests/accsuite")
        .flatten()
        .filter(|e| {
            e.path()
                .join(format!("{}.c", e.file_name().to_string_lossy()))
                .is_file()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !refused.contains(&n.as_str()))
        .collect();
    names.sort();
    assert!(names.len() >= 30, "{:?}", names);
    let defines = [("MINI_DATASET".to_string(), "1".to_string())];
    let mut failures = Vec::new();
    for n in &names {
        let dir = suite.join(n);
        let includes = [suite.join("utilities"), dir.clone()];
        let src = dir.join(format!("{}.c", n));
        match check_with(&tk, &src, &defines, &includes, &work) {
            Ok(report) => print!("{}", report),
            Err(e) => failures.push(format!("{}: {}", n, e)),
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        failures.is_empty(),
        "{} program(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The `-D` defines reach both accshare and `cc`: a program built at a size other than its
/// default.
#[test]
fn defines_reach_both_compilers() {
    let Some(tk) = toolkit_or_skip() else {
        return;
    };
    let work = std::env::temp_dir().join(format!("accshare-nvcc-defs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let src = root().join("examples/gemm.c");
    let text = std::fs::read_to_string(&src).expect("examples/gemm.c");
    let defines: Vec<(String, String)> = [("NI", "77"), ("NJ", "45"), ("NK", "13")]
        .iter()
        .map(|(n, v)| {
            assert!(
                text.contains(&format!("#ifndef {}\n", n)),
                "gemm.c has no size knob `{}`",
                n
            );
            (n.to_string(), v.to_string())
        })
        .collect();
    let r = check(&tk, &src, &defines, &work);
    let _ = std::fs::remove_dir_all(&work);
    match r {
        Ok(report) => print!("{}", report),
        Err(e) => panic!("{}", e),
    }
}

/// Builds one example and runs it: with a GPU it must succeed; without one (or without a
/// driver) it must stop with exit code 1 and an `accshare: …` message naming the region, not
/// crash.
#[test]
fn linked_program_runs_or_fails_cleanly() {
    let Some(tk) = toolkit_or_skip() else {
        return;
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
    let (exe, _) = build(&tk, &src, &files, &[], &[], &dir).unwrap_or_else(|e| panic!("{}", e));
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

/// The `.c` is compiled as C after the C library headers a program may include, with C-only
/// code around the regions: `void *` converted implicitly, a variable-length array parameter.
#[test]
fn c_library_headers_and_c_only_code() {
    let Some(tk) = toolkit_or_skip() else {
        return;
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
        "static void *xmalloc(size_t n)\n{\n    void *p = malloc(n);\n    if (!p)\n        exit(1);\n    return p;\n}\n\
         void scale(int n, float *restrict y)\n\
         {\n    int i;\n\
         #pragma acc parallel loop copy(y[0:n])\n\
         \x20   for (i = 0; i < n; i++)\n        y[i] = 2.0f * y[i];\n}\n\
         void add(int n, int m, float a[n][m], const float b[n][m])\n\
         {\n\
         #pragma acc parallel loop copy(a[0:n][0:m]) copyin(b[0:n][0:m])\n\
         \x20   for (int i = 0; i < n; i++)\n\
         \x20       for (int j = 0; j < m; j++)\n            a[i][j] += b[i][j];\n}\n\
         int main(void)\n{\n\
         \x20   float (*a)[8] = malloc(sizeof(float[4][8]));\n\
         \x20   float (*c)[8] = xmalloc(sizeof(float[4][8]));\n\
         \x20   float *b = calloc(32, sizeof(float));\n\
         \x20   void *v = malloc(1);\n\
         \x20   if (!a || !b || !v)\n        return 1;\n\
         \x20   b = realloc(b, 64 * sizeof(float));\n\
         \x20   scale(64, b);\n\
         \x20   a[1][2] = b[3];\n\
         \x20   add(4, 8, a, (const float (*)[8])c);\n\
         \x20   free(a);\n    free(b);\n    free(c);\n    free(v);\n    return 0;\n}\n",
    );
    let work = std::env::temp_dir().join(format!("accshare-nvcc-compat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let src = work.join("compat.c");
    std::fs::write(&src, &program).unwrap();
    let r = check(&tk, &src, &[], &work.join("out"));
    let _ = std::fs::remove_dir_all(&work);
    match r {
        Ok(report) => print!("{}", report),
        Err(e) => panic!("{}", e),
    }
}

/// Two annotated files of one program: each `.cu` carries the runtime functions (weak), so the
/// objects of both pairs link into one executable.
#[test]
fn two_annotated_files_link_into_one_program() {
    let Some(tk) = toolkit_or_skip() else {
        return;
    };
    let work = std::env::temp_dir().join(format!("accshare-nvcc-two-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let a = "void fa(int n, float *y)\n{\n\
             #pragma acc parallel loop copy(y[0:n])\n\
             \x20   for (int i = 0; i < n; i++)\n        y[i] = 2.0f * y[i];\n}\n";
    let b = "#include <stdlib.h>\nvoid fa(int n, float *y);\n\
             void fb(int n, float *y)\n{\n\
             #pragma acc parallel loop copy(y[0:n])\n\
             \x20   for (int i = 0; i < n; i++)\n        y[i] = y[i] + 1.0f;\n}\n\
             int main(void)\n{\n    float *y = calloc(8, sizeof(float));\n\
             \x20   fa(8, y);\n    fb(8, y);\n    free(y);\n    return 0;\n}\n";
    let mut objects = Vec::new();
    for (stem, text) in [("a", a), ("b", b)] {
        let src = work.join(format!("{}.c", stem));
        std::fs::write(&src, text).unwrap();
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target: Target::Cuda,
            pp: Default::default(),
        };
        let out = driver::compile(&src, &opts, &mut sources, &mut diags)
            .unwrap_or_else(|| panic!("{}", diag::render(&sources, &diags.0)));
        let files = driver::write(&out, &src, &work.join("out"), Target::Cuda).unwrap();
        let cu_obj = work.join(format!("{}_cu.o", stem));
        let mut nvcc = Command::new(&tk.nvcc);
        nvcc.args(["-c", "-arch=sm_75", "-o"])
            .arg(&cu_obj)
            .arg(&files[1]);
        run(nvcc, "nvcc -c").unwrap_or_else(|e| panic!("{}", e));
        let c_obj = work.join(format!("{}_c.o", stem));
        let mut cc = Command::new("cc");
        cc.arg("-c").arg(&files[0]).arg("-o").arg(&c_obj);
        run(cc, "cc -c").unwrap_or_else(|e| panic!("{}", e));
        objects.push(c_obj);
        objects.push(cu_obj);
    }
    let r = run(tk.link(&objects, &work.join("ab")), "cc (link)");
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = r {
        panic!("{}", e);
    }
}
