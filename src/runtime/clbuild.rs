//! Builds OpenCL C source in-process with the machine's OpenCL runtime, through `opencl3` (which
//! opens the ICD loader at run time: see `model::device`). Tests use it to check that generated
//! kernels build; `bench` to check that there is a device before it builds anything.
//!
//! Sources are built on `opencl:0`, the first device in the global order, in one context made on
//! first use and kept for the process. A missing loader, platform or device gives
//! [`BuildOutcome::Skipped`]; whether that is acceptable is the caller's call (see
//! [`super::require_devices`]).

use std::fmt;
use std::sync::OnceLock;

use opencl3::context::Context;
use opencl3::program::{Program, CL_BUILD_SUCCESS};

use crate::model::device::{self, DeviceError, DeviceFacts, DeviceName};

/// What happened to a build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildOutcome {
    /// No OpenCL device to build with (why).
    Skipped(DeviceError),
    /// `clBuildProgram` succeeded.
    Built,
    /// `clBuildProgram` failed: the device's error and build log.
    Failed(BuildFailure),
}

/// A failed `clBuildProgram`, rendered (`Display`) as the error line and the build log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFailure {
    /// Which device: `opencl:0 (NAME on PLATFORM)`.
    pub device: String,
    /// The OpenCL error code (`CL_BUILD_PROGRAM_FAILURE`, `CL_INVALID_BUILD_OPTIONS`, …).
    pub code: i32,
    /// The build log (the device compiler's diagnostics), possibly empty.
    pub log: String,
}

impl fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "clBuildProgram failed on {}: {} ({})",
            self.device,
            device::cl_error_name(self.code),
            self.code
        )?;
        let log = self.log.trim_end();
        if log.is_empty() {
            f.write_str("(the build log is empty)")
        } else {
            f.write_str(log)
        }
    }
}

/// Why a source could not be submitted to the device compiler, or why there is no usable device
/// ([`opencl_available`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// No OpenCL device, or an OpenCL call other than the build failed.
    OpenCl(DeviceError),
    /// Build options cannot contain a NUL byte (they are passed as a C string).
    NulInOptions(String),
    /// The device cannot build a trivial kernel.
    Unusable(BuildFailure),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::OpenCl(e) => write!(f, "{}", e),
            BuildError::NulInOptions(o) => {
                write!(f, "OpenCL build options contain a NUL byte: {:?}", o)
            }
            BuildError::Unusable(b) => {
                write!(f, "the OpenCL device cannot build a trivial kernel: {}", b)
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// The options [`build_opencl_source`] passes to `clBuildProgram`.
pub const DEFAULT_OPTIONS: &str = "-cl-std=CL1.2";

/// The context kernels are built in, on `opencl:0`.
struct Builder {
    /// `opencl:0 (NAME on PLATFORM)`.
    label: String,
    context: Context,
}

fn builder() -> &'static Result<Builder, DeviceError> {
    static BUILDER: OnceLock<Result<Builder, DeviceError>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let d = device::opencl_device(0)?;
        let facts = DeviceFacts::of(&d);
        let context = Context::from_device(&d.device)
            .map_err(|e| DeviceError::from_code("clCreateContext", e.0))?;
        Ok(Builder {
            label: format!(
                "{} ({} on {})",
                DeviceName::OpenCl(d.index),
                facts.name,
                facts.platform
            ),
            context,
        })
    })
}

/// Builds `src` with [`DEFAULT_OPTIONS`] on `opencl:0`.
///
/// `Err` means the source could not be submitted (an OpenCL call failed), not a missing
/// runtime (`Skipped`) nor a build error (`Failed`).
pub fn build_opencl_source(src: &str) -> Result<BuildOutcome, BuildError> {
    build_opencl_source_with_options(src, DEFAULT_OPTIONS)
}

/// Builds `src` with the given `clBuildProgram` options on `opencl:0`.
pub fn build_opencl_source_with_options(
    src: &str,
    options: &str,
) -> Result<BuildOutcome, BuildError> {
    if options.contains('\0') {
        return Err(BuildError::NulInOptions(options.to_string()));
    }
    let b = match builder() {
        Ok(b) => b,
        Err(e) => return Ok(BuildOutcome::Skipped(e.clone())),
    };
    let mut program = Program::create_from_source(&b.context, src).map_err(|e| {
        BuildError::OpenCl(DeviceError::from_code("clCreateProgramWithSource", e.0))
    })?;
    let dev = b.context.default_device();
    match program.build(b.context.devices(), options) {
        Ok(()) => Ok(BuildOutcome::Built),
        // `build` also lists the kernels after a successful build: that failing is no build error.
        Err(_) if program.get_build_status(dev).ok() == Some(CL_BUILD_SUCCESS) => {
            Ok(BuildOutcome::Built)
        }
        Err(e) => Ok(BuildOutcome::Failed(BuildFailure {
            device: b.label.clone(),
            code: e.0,
            log: program.get_build_log(dev).unwrap_or_default(),
        })),
    }
}

/// `Ok` if an OpenCL device can build a trivial kernel, else why not.
pub fn opencl_available() -> Result<(), BuildError> {
    match build_opencl_source("__kernel void accshare_probe(void) {}")? {
        BuildOutcome::Skipped(why) => Err(BuildError::OpenCl(why)),
        BuildOutcome::Failed(f) => Err(BuildError::Unusable(f)),
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

    /// Nothing runs on the device: the broken kernel is only built, and its failure is text
    /// naming the device, the error and the compiler's complaint.
    #[test]
    fn reports_the_build_log_of_an_invalid_kernel() {
        let src = "__kernel void k(__global float *a) { a[0] = undeclared_name; }\n";
        match outcome(src, DEFAULT_OPTIONS) {
            None => {}
            Some(BuildOutcome::Failed(f)) => {
                let text = f.to_string();
                assert!(
                    text.starts_with("clBuildProgram failed on opencl:0 ("),
                    "{text}"
                );
                assert!(text.contains("CL_BUILD_PROGRAM_FAILURE (-11)"), "{text}");
                assert!(text.contains("undeclared_name"), "{text}");
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

    #[test]
    fn a_failure_renders_as_text() {
        let f = BuildFailure {
            device: "opencl:1 (gpu on platform)".into(),
            code: -11,
            log: "<source>:1:40: error: use of undeclared identifier 'x'\n".into(),
        };
        assert_eq!(
            f.to_string(),
            "clBuildProgram failed on opencl:1 (gpu on platform): CL_BUILD_PROGRAM_FAILURE (-11)\n\
             <source>:1:40: error: use of undeclared identifier 'x'"
        );
        let f = BuildFailure {
            log: String::new(),
            code: -43,
            ..f
        };
        assert!(
            f.to_string()
                .ends_with("CL_INVALID_BUILD_OPTIONS (-43)\n(the build log is empty)"),
            "{f}"
        );
    }

    #[test]
    fn options_with_a_nul_byte_are_an_error() {
        assert_eq!(
            build_opencl_source_with_options("", "-D A=\0"),
            Err(BuildError::NulInOptions("-D A=\0".into()))
        );
    }
}
