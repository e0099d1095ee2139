//! Builds OpenCL C source with the machine's OpenCL runtime, without an OpenCL crate.
//!
//! A small C program (the probe) is compiled with `cc` on first use and cached in the temporary
//! directory (`accshare-clbuild-<hash>/probe`). It loads the ICD loader with `dlopen`
//! (`libOpenCL.so.1`, then `libOpenCL.so`), so neither OpenCL headers nor the development
//! library are needed; it takes the first device of the first platform that has one, calls
//! `clBuildProgram` and prints the build log.
//!
//! A missing `cc`, loader, platform or device gives [`BuildOutcome::Skipped`]; whether that is
//! acceptable is the caller's call (see [`super::require_devices`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// What happened to a build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildOutcome {
    /// No OpenCL runtime to build with (why).
    Skipped(String),
    /// `clBuildProgram` succeeded.
    Built,
    /// `clBuildProgram` failed: the build log.
    Failed(String),
}

/// The options [`build_opencl_source`] passes to `clBuildProgram`.
pub const DEFAULT_OPTIONS: &str = "-cl-std=CL1.2";

const PROBE_C: &str = r#"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_bitfield;
typedef void *handle;

typedef cl_int (*get_platform_ids_t)(cl_uint, handle *, cl_uint *);
typedef cl_int (*get_device_ids_t)(handle, cl_bitfield, cl_uint, handle *, cl_uint *);
typedef cl_int (*get_info_t)(handle, cl_uint, size_t, void *, size_t *);
typedef handle (*create_context_t)(const intptr_t *, cl_uint, const handle *, void *, void *,
                                   cl_int *);
typedef handle (*create_program_t)(handle, cl_uint, const char **, const size_t *, cl_int *);
typedef cl_int (*build_program_t)(handle, cl_uint, const handle *, const char *, void *, void *);
typedef cl_int (*build_info_t)(handle, handle, cl_uint, size_t, void *, size_t *);
typedef cl_int (*release_t)(handle);

#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_PROGRAM_BUILD_LOG 0x1183

/* Exit codes: 0 built, 1 build failed, 2 no runtime (skip), 3 probe error. */
int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: probe FILE.cl [OPTIONS]\n"); return 3; }
    const char *options = argc > 2 ? argv[2] : "";
    FILE *f = fopen(argv[1], "rb");
    if (!f) { printf("cannot open %s\n", argv[1]); return 3; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = malloc((size_t)n + 1);
    if (!src || fread(src, 1, (size_t)n, f) != (size_t)n) { printf("cannot read %s\n", argv[1]); return 3; }
    src[n] = 0;
    fclose(f);

    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW);
    if (!lib) lib = dlopen("libOpenCL.so", RTLD_NOW);
    if (!lib) { printf("no OpenCL ICD loader (libOpenCL.so.1): %s\n", dlerror()); return 2; }
#define SYM(t, v, name) t v = (t)dlsym(lib, name); \
    if (!v) { printf("the OpenCL loader has no %s\n", name); return 2; }
    SYM(get_platform_ids_t, get_platform_ids, "clGetPlatformIDs")
    SYM(get_device_ids_t, get_device_ids, "clGetDeviceIDs")
    SYM(get_info_t, get_platform_info, "clGetPlatformInfo")
    SYM(get_info_t, get_device_info, "clGetDeviceInfo")
    SYM(create_context_t, create_context, "clCreateContext")
    SYM(create_program_t, create_program, "clCreateProgramWithSource")
    SYM(build_program_t, build_program, "clBuildProgram")
    SYM(build_info_t, build_info, "clGetProgramBuildInfo")
    SYM(release_t, release_program, "clReleaseProgram")
    SYM(release_t, release_context, "clReleaseContext")

    handle platforms[16];
    cl_uint np = 0;
    cl_int err = get_platform_ids(16, platforms, &np);
    if (err != 0 || np == 0) { printf("no OpenCL platform (clGetPlatformIDs: %d)\n", err); return 2; }
    if (np > 16) np = 16;
    handle dev = 0, plat = 0;
    for (cl_uint i = 0; i < np && !dev; i++) {
        cl_uint nd = 0;
        if (get_device_ids(platforms[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != 0 || nd == 0) dev = 0;
        else plat = platforms[i];
    }
    if (!dev) { printf("no OpenCL device on %u platform(s)\n", np); return 2; }
    char pname[256] = {0}, dname[256] = {0};
    get_platform_info(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    get_device_info(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);

    handle ctx = create_context(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx || err != 0) { printf("clCreateContext failed (%d) on %s / %s\n", err, pname, dname); return 2; }
    const char *srcs[1] = {src};
    size_t lens[1] = {(size_t)n};
    handle prog = create_program(ctx, 1, srcs, lens, &err);
    if (!prog || err != 0) { printf("clCreateProgramWithSource failed (%d)\n", err); return 3; }
    cl_int built = build_program(prog, 1, &dev, options, NULL, NULL);
    size_t log_len = 0;
    build_info(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len);
    char *log = calloc(log_len + 1, 1);
    if (log && log_len) build_info(prog, dev, CL_PROGRAM_BUILD_LOG, log_len, log, NULL);
    printf("device: %s / %s\n", pname, dname);
    if (built != 0) printf("clBuildProgram failed (%d)\n", built);
    printf("%s", log ? log : "");
    release_program(prog);
    release_context(ctx);
    return built == 0 ? 0 : 1;
}
"#;

/// FNV-1a, to name the cached probe after its source.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The compiled probe, or why there is none (`Ok(Err(reason))`: skip; `Err`: failure).
fn probe() -> &'static Result<Result<PathBuf, String>, String> {
    static PROBE: OnceLock<Result<Result<PathBuf, String>, String>> = OnceLock::new();
    PROBE.get_or_init(build_probe)
}

fn build_probe() -> Result<Result<PathBuf, String>, String> {
    let dir = std::env::temp_dir().join(format!("accshare-clbuild-{:016x}", fnv(PROBE_C)));
    let exe = dir.join("probe");
    if exe.is_file() {
        return Ok(Ok(exe));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let unique = format!("{}-{}", std::process::id(), next_id());
    let c = dir.join(format!("probe-{unique}.c"));
    let tmp = dir.join(format!("probe-{unique}"));
    std::fs::write(&c, PROBE_C).map_err(|e| format!("cannot write {}: {e}", c.display()))?;
    let out = Command::new("cc")
        .arg("-O1")
        .arg("-o")
        .arg(&tmp)
        .arg(&c)
        .arg("-ldl")
        .output();
    let _ = std::fs::remove_file(&c);
    let out = match out {
        Ok(o) => o,
        Err(e) => return Ok(Err(format!("no C compiler to build the probe (`cc`: {e})"))),
    };
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Ok(Err(format!(
            "`cc` cannot build the OpenCL probe: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // Another process may have won the race: the rename replaces its identical file.
    std::fs::rename(&tmp, &exe).map_err(|e| format!("cannot move the probe into place: {e}"))?;
    Ok(Ok(exe))
}

fn next_id() -> usize {
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Builds `src` with [`DEFAULT_OPTIONS`] on the first OpenCL device.
///
/// `Err` means the probe itself failed (an I/O error, a crash), not a missing runtime.
pub fn build_opencl_source(src: &str) -> Result<BuildOutcome, String> {
    build_opencl_source_with_options(src, DEFAULT_OPTIONS)
}

/// Builds `src` with the given `clBuildProgram` options on the first OpenCL device.
pub fn build_opencl_source_with_options(src: &str, options: &str) -> Result<BuildOutcome, String> {
    let exe = match probe() {
        Ok(Ok(exe)) => exe,
        Ok(Err(reason)) => return Ok(BuildOutcome::Skipped(reason.clone())),
        Err(e) => return Err(e.clone()),
    };
    let dir = exe.parent().unwrap_or(Path::new("."));
    let file = dir.join(format!("src-{}-{}.cl", std::process::id(), next_id()));
    std::fs::write(&file, src).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let out = Command::new(exe).arg(&file).arg(options).output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|e| format!("cannot run the OpenCL probe: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.code() {
        Some(0) => Ok(BuildOutcome::Built),
        Some(1) => Ok(BuildOutcome::Failed(stdout)),
        Some(2) => Ok(BuildOutcome::Skipped(stdout.trim().to_string())),
        code => Err(format!(
            "the OpenCL probe failed ({}): {}{}",
            code.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
            stdout,
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// `Ok` if an OpenCL device can build a trivial kernel, else why not.
pub fn opencl_available() -> Result<(), String> {
    match build_opencl_source("__kernel void accshare_probe(void) {}")? {
        BuildOutcome::Skipped(why) => Err(why),
        BuildOutcome::Failed(log) => {
            Err(format!("the OpenCL device cannot build a kernel: {}", log))
        }
        BuildOutcome::Built => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skips (or fails under `ACCSHARE_REQUIRE_DEVICES=1`) when there is no runtime.
    fn outcome(src: &str, options: &str) -> Option<BuildOutcome> {
        match build_opencl_source_with_options(src, options) {
            Ok(BuildOutcome::Skipped(r)) => {
                assert!(
                    !crate::runtime::require_devices(),
                    "ACCSHARE_REQUIRE_DEVICES=1 but no OpenCL device: {r}"
                );
                eprintln!("SKIP: no OpenCL device ({r})");
                None
            }
            Ok(o) => Some(o),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn builds_a_valid_kernel() {
        let src = "__kernel void k(__global float *a) { a[get_global_id(0)] *= 2.0f; }\n";
        if let Some(o) = outcome(src, DEFAULT_OPTIONS) {
            assert_eq!(o, BuildOutcome::Built);
        }
    }

    #[test]
    fn reports_the_build_log_of_an_invalid_kernel() {
        let src = "__kernel void k(__global float *a) { a[0] = undeclared_name; }\n";
        match outcome(src, DEFAULT_OPTIONS) {
            None => {}
            Some(BuildOutcome::Failed(log)) => {
                assert!(log.contains("undeclared_name"), "{log}")
            }
            Some(o) => panic!("expected a failure, got {o:?}"),
        }
    }

    #[test]
    fn werror_turns_warnings_into_failures() {
        // An unused variable is no warning by default; a comparison of `&` with `==` is.
        let src = "__kernel void k(__global int *a) { if (a[0] & 1 == 1) a[1] = 0; }\n";
        if let Some(o) = outcome(src, "-cl-std=CL1.2 -Werror") {
            assert!(matches!(o, BuildOutcome::Failed(_)), "{o:?}");
        }
    }
}
