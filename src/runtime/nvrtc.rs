//! Compiles CUDA C++ to PTX with NVRTC (no GPU needed), through cudarc's dynamic loading.
//!
//! Finding the library: cudarc `dlopen`s a list of names (`libnvrtc.so`, …, `libnvrtc.so.12`),
//! so the directory holding `libnvrtc.so.12` must be on `LD_LIBRARY_PATH` (the PyPI package
//! `nvidia-cuda-nvrtc-cu12` has no plain `libnvrtc.so`; `bash .ci/nvrtc-libdir.sh` prints its
//! directory and `.ci/test.sh` exports it). Alternatively `ACCSHARE_NVRTC_LIB=/path/libnvrtc.so.12`
//! (or a call to [`preload`]) loads the library by path first: the dynamic loader then resolves
//! cudarc's `libnvrtc.so.12` to the loaded library through its soname. NVRTC finds
//! `libnvrtc-builtins` next to itself (its `RUNPATH` is `$ORIGIN`).
//!
//! Nothing here panics when NVRTC is missing: presence is checked before the first call, and
//! every call into cudarc runs under `catch_unwind`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use cudarc::nvrtc::{result, sys};

/// What happened to a compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileOutcome {
    /// NVRTC is not available (why).
    Skipped(String),
    /// Compiled: the PTX, and NVRTC's log (warnings; empty when there are none).
    Compiled { ptx: String, log: String },
    /// NVRTC rejected the program: its log.
    Failed(String),
}

/// Why NVRTC cannot be used, or a call into it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvrtcError {
    /// The library path holds a NUL byte.
    BadLibraryPath(String),
    /// `dlopen` refused the library: its name and the loader's message.
    Load { name: String, message: String },
    /// No `libnvrtc.so.12` on the loader's path.
    NotFound,
    /// The library loaded but its first call panicked.
    NotLoaded,
    /// A call panicked.
    Panicked,
    /// An NVRTC call returned an error: the call (`nvrtcVersion`) and the result code.
    Call { call: &'static str, code: String },
    /// `nvrtcCompileProgram` failed other than by rejecting the program: the code and the log.
    Compile { code: String, log: String },
    /// The CUDA source holds a NUL byte.
    NulInSource,
    /// The architecture or an extra option holds a NUL byte.
    NulInArch,
}

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NvrtcError::BadLibraryPath(name) => write!(f, "bad library path {name:?}"),
            NvrtcError::Load { name, message } => write!(f, "cannot load {name}: {message}"),
            NvrtcError::NotFound => write!(
                f,
                "libnvrtc.so.12 not found: put its directory on LD_LIBRARY_PATH \
                 (`bash .ci/nvrtc-libdir.sh` prints it) or set ACCSHARE_NVRTC_LIB"
            ),
            NvrtcError::NotLoaded => write!(f, "NVRTC could not be loaded"),
            NvrtcError::Panicked => write!(f, "NVRTC panicked"),
            NvrtcError::Call { call, code } => write!(f, "{call} failed: {code}"),
            NvrtcError::Compile { code, log } => {
                write!(f, "nvrtcCompileProgram failed: {code}\n{log}")
            }
            NvrtcError::NulInSource => write!(f, "the CUDA source contains a NUL byte"),
            NvrtcError::NulInArch => {
                write!(f, "the architecture or an NVRTC option contains a NUL byte")
            }
        }
    }
}

impl std::error::Error for NvrtcError {}

fn call_failed(call: &'static str, code: impl fmt::Debug) -> NvrtcError {
    NvrtcError::Call {
        call,
        code: format!("{code:?}"),
    }
}

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}

const RTLD_NOW: c_int = 2;
const RTLD_GLOBAL: c_int = 0x100;

/// Libraries loaded by path (kept loaded for the life of the process).
fn preloaded() -> &'static Mutex<Vec<String>> {
    static P: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    P.get_or_init(|| Mutex::new(Vec::new()))
}

/// Loads NVRTC from an explicit path (a file, or a directory holding `libnvrtc.so.12`), so that
/// later compilations find it without `LD_LIBRARY_PATH`. Call it before the first
/// [`compile_cuda`]: NVRTC's presence is probed once.
pub fn preload(path: &Path) -> Result<(), NvrtcError> {
    let file = if path.is_dir() {
        path.join("libnvrtc.so.12")
    } else {
        path.to_path_buf()
    };
    let name = file.to_string_lossy().into_owned();
    let c = CString::new(name.clone()).map_err(|_| NvrtcError::BadLibraryPath(name.clone()))?;
    // SAFETY: `c` is a valid C string; the handle is deliberately never closed.
    let h = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
    if h.is_null() {
        // SAFETY: dlerror returns null or a valid C string owned by the loader.
        let e = unsafe { dlerror() };
        let msg = if e.is_null() {
            "unknown error".to_string()
        } else {
            unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
        };
        return Err(NvrtcError::Load { name, message: msg });
    }
    if let Ok(mut p) = preloaded().lock() {
        p.push(name);
    }
    Ok(())
}

/// `Ok(())` if NVRTC can be used, else why not. Probed once.
fn availability() -> &'static Result<(), NvrtcError> {
    static A: OnceLock<Result<(), NvrtcError>> = OnceLock::new();
    A.get_or_init(|| {
        if let Some(p) = std::env::var_os("ACCSHARE_NVRTC_LIB") {
            preload(Path::new(&p))?;
        }
        // SAFETY: only tries to dlopen candidate names.
        let present = catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return Err(NvrtcError::NotFound);
        }
        // The first call loads the library and the version symbol.
        let mut major = 0;
        let mut minor = 0;
        let v = catch_unwind(AssertUnwindSafe(|| unsafe {
            sys::nvrtcVersion(&mut major, &mut minor)
        }));
        match v {
            Ok(sys::nvrtcResult::NVRTC_SUCCESS) => Ok(()),
            Ok(e) => Err(call_failed("nvrtcVersion", e)),
            Err(_) => Err(NvrtcError::NotLoaded),
        }
    })
}

/// The NVRTC version (`(12, 9)`), or why NVRTC is unavailable.
pub fn version() -> Result<(i32, i32), NvrtcError> {
    availability().clone()?;
    let mut major = 0;
    let mut minor = 0;
    match catch_unwind(AssertUnwindSafe(|| unsafe {
        sys::nvrtcVersion(&mut major, &mut minor)
    })) {
        Ok(sys::nvrtcResult::NVRTC_SUCCESS) => Ok((major, minor)),
        Ok(e) => Err(call_failed("nvrtcVersion", e)),
        Err(_) => Err(NvrtcError::Panicked),
    }
}

fn c_text(v: &[c_char]) -> String {
    let bytes: Vec<u8> = v
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Compiles `src` (a `.cu` translation unit) for `arch` (`compute_70`, `sm_80`, …).
///
/// `Err` is for misuse (a NUL byte in the source or the architecture) and NVRTC malfunctions,
/// not for a missing NVRTC (`Skipped`) or a rejected program (`Failed`).
pub fn compile_cuda(src: &str, arch: &str) -> Result<CompileOutcome, NvrtcError> {
    compile_cuda_with(src, arch, &[])
}

/// A compilation: the source, the architecture and the extra options.
type CompileKey = (String, String, Vec<String>);

/// The compilations this process made ([`compile_cuda_with`] looks here first): `tune` and
/// `bench` build each variant twice (verifying and timing builds), and [`compile_all`] makes
/// them all at once, on every core, before the first is timed.
fn compiled() -> &'static Mutex<std::collections::HashMap<CompileKey, CompileOutcome>> {
    static COMPILED: OnceLock<Mutex<std::collections::HashMap<CompileKey, CompileOutcome>>> =
        OnceLock::new();
    COMPILED.get_or_init(Default::default)
}

/// Compiles every `(source, extra options)` of `jobs` for `arch`, on as many threads as the
/// machine has cores, into the process's compilations: the later [`compile_cuda_with`] of each
/// is a lookup. Failures are kept too (the later call reports them); nothing is compiled twice.
pub fn compile_all(jobs: &[(&str, &[&str])], arch: &str) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((src, extra)) = jobs.get(i) else {
                    break;
                };
                let _ = compile_cuda_with(src, arch, extra);
            });
        }
    });
}

/// [`compile_cuda`] with more NVRTC options after `--gpu-architecture` (`--fmad=false`); a
/// compilation this process already made (or [`compile_all`] made) is not made again.
pub fn compile_cuda_with(
    src: &str,
    arch: &str,
    extra: &[&str],
) -> Result<CompileOutcome, NvrtcError> {
    let key: CompileKey = (
        src.to_string(),
        arch.to_string(),
        extra.iter().map(|o| o.to_string()).collect(),
    );
    if let Some(done) = compiled().lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(done);
    }
    let outcome = compile_uncached(src, arch, extra)?;
    if matches!(
        outcome,
        CompileOutcome::Compiled { .. } | CompileOutcome::Failed(_)
    ) {
        if let Ok(mut m) = compiled().lock() {
            m.insert(key, outcome.clone());
        }
    }
    Ok(outcome)
}

/// One NVRTC compilation.
fn compile_uncached(src: &str, arch: &str, extra: &[&str]) -> Result<CompileOutcome, NvrtcError> {
    let csrc = CString::new(src).map_err(|_| NvrtcError::NulInSource)?;
    if arch.contains('\0') {
        return Err(NvrtcError::NulInArch);
    }
    if let Err(reason) = availability() {
        return Ok(CompileOutcome::Skipped(reason.to_string()));
    }
    if extra.iter().any(|o| o.contains('\0')) {
        return Err(NvrtcError::NulInArch);
    }
    let mut options = vec![format!("--gpu-architecture={arch}")];
    options.extend(extra.iter().map(|o| o.to_string()));
    let run = || -> Result<CompileOutcome, NvrtcError> {
        let prog = result::create_program(&csrc, Some(c"accshare.cu"))
            .map_err(|e| call_failed("nvrtcCreateProgram", e))?;
        // SAFETY: `prog` was created above and is destroyed once, below.
        let compiled = unsafe { result::compile_program(prog, &options) };
        let log = unsafe { result::get_program_log(prog) }
            .map(|l| c_text(&l))
            .unwrap_or_default();
        let outcome = match compiled {
            Ok(()) => match unsafe { result::get_ptx(prog) } {
                Ok(ptx) => Ok(CompileOutcome::Compiled {
                    ptx: c_text(&ptx),
                    log: log.trim().to_string(),
                }),
                Err(e) => Err(call_failed("nvrtcGetPTX", e)),
            },
            Err(e) if e.0 == sys::nvrtcResult::NVRTC_ERROR_COMPILATION => {
                Ok(CompileOutcome::Failed(log))
            }
            Err(e) => Err(NvrtcError::Compile {
                code: format!("{e:?}"),
                log,
            }),
        };
        let _ = unsafe { result::destroy_program(prog) };
        outcome
    };
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(Err(NvrtcError::Panicked))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// For tests: loads NVRTC from the directory `.ci/nvrtc-libdir.sh` prints, if any, so that
    /// `cargo test` finds it without `LD_LIBRARY_PATH`.
    pub(crate) fn find_nvrtc_for_tests() {
        static ONCE: OnceLock<()> = OnceLock::new();
        ONCE.get_or_init(|| {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/nvrtc-libdir.sh");
            if let Ok(out) = std::process::Command::new("bash").arg(script).output() {
                let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
                if !dir.is_empty() {
                    let _ = preload(Path::new(&dir));
                }
            }
        });
    }

    /// Compiles, or skips (fails under `ACCSHARE_REQUIRE_DEVICES=1`) without NVRTC.
    pub(crate) fn compile_or_skip(src: &str) -> Option<CompileOutcome> {
        find_nvrtc_for_tests();
        match compile_cuda(src, "compute_75") {
            Ok(CompileOutcome::Skipped(r)) => {
                assert!(
                    !crate::runtime::require_devices(),
                    "ACCSHARE_REQUIRE_DEVICES=1 but NVRTC is missing: {r}"
                );
                eprintln!("SKIP: no NVRTC ({r})");
                None
            }
            Ok(o) => Some(o),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn compiles_a_valid_kernel_to_ptx() {
        let src = "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }\n";
        match compile_or_skip(src) {
            None => {}
            Some(CompileOutcome::Compiled { ptx, log }) => {
                assert!(ptx.contains(".entry k"), "{ptx}");
                assert_eq!(log, "");
            }
            Some(o) => panic!("{o:?}"),
        }
    }

    #[test]
    fn reports_the_log_of_an_invalid_kernel() {
        let src = "extern \"C\" __global__ void k(float *a) { a[0] = undeclared_name; }\n";
        match compile_or_skip(src) {
            None => {}
            Some(CompileOutcome::Failed(log)) => assert!(log.contains("undeclared_name"), "{log}"),
            Some(o) => panic!("{o:?}"),
        }
    }

    #[test]
    fn compile_all_makes_each_compilation_once_for_later_calls() {
        let ok = "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] += 3.0f; }\n";
        let bad = "extern \"C\" __global__ void k(float *a) { a[0] = not_declared_3; }\n";
        if compile_or_skip(ok).is_none() {
            return;
        }
        let fmad: &[&str] = &["--fmad=false"];
        compile_all(&[(ok, &[]), (ok, fmad), (bad, &[])], "compute_75");
        let key = |s: &str, e: &[&str]| -> CompileKey {
            (
                s.to_string(),
                "compute_75".to_string(),
                e.iter().map(|o| o.to_string()).collect(),
            )
        };
        let kept = compiled().lock().unwrap();
        assert!(matches!(
            kept.get(&key(ok, &[])),
            Some(CompileOutcome::Compiled { .. })
        ));
        assert!(matches!(
            kept.get(&key(ok, fmad)),
            Some(CompileOutcome::Compiled { .. })
        ));
        assert!(matches!(
            kept.get(&key(bad, &[])),
            Some(CompileOutcome::Failed(_))
        ));
        drop(kept);
        // A later compilation is the kept one.
        let again = compile_cuda_with(bad, "compute_75", &[]).unwrap();
        assert!(matches!(again, CompileOutcome::Failed(log) if log.contains("not_declared_3")));
    }

    #[test]
    fn rejects_nul_bytes_without_panicking() {
        assert!(compile_cuda("a\0b", "compute_70").is_err());
        assert!(compile_cuda("", "compute\0").is_err());
    }

    #[test]
    fn a_bad_architecture_is_an_error_not_a_panic() {
        find_nvrtc_for_tests();
        match compile_cuda("extern \"C\" __global__ void k() {}\n", "compute_1") {
            Ok(CompileOutcome::Skipped(_)) => {}
            Ok(o) => panic!("{o:?}"),
            Err(e) => assert!(e.to_string().contains("INVALID_OPTION"), "{e}"),
        }
    }
}
