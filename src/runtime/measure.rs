//! The devices `accshare bench` and `tune` measure on: an OpenCL device (`opencl:N`, through
//! `opencl3`, [`super::run`]) or a CUDA device (`cuda:N`, through cudarc,
//! [`super::cuda_run`]), behind one interface, so that the measuring loops are the same for
//! both: the target the kernels are printed for, the launcher of a variant's kernels (built
//! without floating-point contraction to verify, as compiled to time, launches timed by events
//! on resident buffers), the device's facts (the tune cache's key, the largest block), its
//! description (the compulsory traffic of a kernel and the peak of its roofline) and the copy
//! kernel that is the yardstick of memory-bound kernels.

use std::borrow::Cow;

use crate::back::Target;
use crate::kernel::Module;
use crate::model::device::{DeviceFacts, DeviceName};
use crate::model::Platform;
use crate::sim::trace::Launcher;

use super::cuda_run::{self, CudaCopyTimer, CudaLauncher};
use super::run::{self, OpenClLauncher};

/// A device to measure on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// `opencl:N`: the N-th OpenCL device of every platform (`accshare devices`).
    OpenCl(usize),
    /// `cuda:N`: the N-th device of the CUDA driver, kernels compiled by NVRTC.
    Cuda(usize),
}

impl Device {
    /// The device `name` names, `None` for the simulator.
    pub fn of(name: DeviceName) -> Option<Device> {
        match name {
            DeviceName::OpenCl(n) => Some(Device::OpenCl(n)),
            DeviceName::Cuda(n) => Some(Device::Cuda(n)),
            DeviceName::Sim => None,
        }
    }

    /// Its name as every command spells it: `opencl:N`, `cuda:N`.
    pub fn name(self) -> String {
        match self {
            Device::OpenCl(n) => DeviceName::OpenCl(n),
            Device::Cuda(n) => DeviceName::Cuda(n),
        }
        .to_string()
    }

    /// The language its kernels are printed in.
    pub fn target(self) -> Target {
        match self {
            Device::OpenCl(_) => Target::OpenCl,
            Device::Cuda(_) => Target::Cuda,
        }
    }

    /// The kernels of `module` in the device's language; `opencl` is the module as OpenCL
    /// already printed it (the compilations are made for OpenCL, the IR is the same for both).
    pub fn source<'a>(self, module: &Module, opencl: &'a str) -> Cow<'a, str> {
        match self {
            Device::OpenCl(_) => Cow::Borrowed(opencl),
            Device::Cuda(_) => Cow::Owned(crate::back::cuda::print_module(module)),
        }
    }

    /// The launcher of a variant's kernels `source` (in the device's language) on the device
    /// (a `tune::MakeLauncher`): `strict` builds them without contracting `a * b + c` into
    /// fused multiply-adds (`#pragma OPENCL FP_CONTRACT OFF`, NVRTC's `--fmad=false`), the
    /// arithmetic of the sequential program, to verify them; the other build, as compiled,
    /// times a second launch on resident buffers (`timing_resident`).
    pub fn launcher(self, source: &str, strict: bool) -> Result<Box<dyn Launcher>, String> {
        match self {
            Device::OpenCl(n) => {
                let source = if strict {
                    format!("#pragma OPENCL FP_CONTRACT OFF\n{}", source)
                } else {
                    source.to_string()
                };
                OpenClLauncher::new(n, &source)
                    .map(|l| {
                        let l = if strict { l } else { l.timing_resident() };
                        Box::new(l) as Box<dyn Launcher>
                    })
                    .map_err(|e| e.to_string())
            }
            Device::Cuda(n) => {
                let extra: &[&str] = if strict { &["--fmad=false"] } else { &[] };
                CudaLauncher::new(n, source, extra)
                    .map(|l| {
                        let l = if strict { l } else { l.timing_resident() };
                        Box::new(l) as Box<dyn Launcher>
                    })
                    .map_err(|e| e.to_string())
            }
        }
    }

    /// Builds the kernels `sources` (in the device's language) as [`Self::launcher`] will,
    /// verifying and timing builds, all at once on every core of the host, so that making
    /// their launchers later does not compile them one by one: on CUDA devices, NVRTC's
    /// compilations are kept in the process. (OpenCL drivers keep their own caches of built
    /// programs; nothing is done ahead for them.) Errors are left to [`Self::launcher`].
    pub fn prebuild(self, sources: &[&str]) {
        if let Device::Cuda(n) = self {
            let _ = cuda_run::precompile(n, sources, &[&[], &["--fmad=false"]]);
        }
    }

    /// Its facts, queried (`cuda:N`'s platform is [`cuda_run::PLATFORM`]).
    pub fn facts(self) -> Result<DeviceFacts, DeviceError> {
        match self {
            Device::OpenCl(n) => crate::model::device::opencl_device(n)
                .map(|d| DeviceFacts::of(&d))
                .map_err(|e| DeviceError::Usage(e.to_string())),
            Device::Cuda(n) => cuda_run::facts(n).map_err(DeviceError::cuda),
        }
    }

    /// Its description, made from its queried facts (`--platform opencl:N`,
    /// [`cuda_run::platform`]).
    pub fn description(self) -> Result<Platform, String> {
        match self {
            Device::OpenCl(n) => crate::model::device::load(n).map_err(|e| e.to_string()),
            Device::Cuda(n) => cuda_run::platform(n).map_err(|e| e.to_string()),
        }
    }

    /// The copy kernel of `bytes` bytes on the device, built and warmed up.
    pub fn copy_timer(self, bytes: u64) -> Result<CopyTimer, String> {
        match self {
            Device::OpenCl(n) => run::CopyTimer::new(n, bytes).map(CopyTimer::OpenCl),
            Device::Cuda(n) => CudaCopyTimer::new(n, bytes)
                .map(CopyTimer::Cuda)
                .map_err(|e| e.to_string()),
        }
    }
}

/// Why a device cannot be measured on: a wrong name or number ([`DeviceError::Usage`], exit 2
/// on the command line), or a machine that cannot run it ([`DeviceError::Unavailable`], exit 1:
/// `cuda:N` without the NVIDIA driver, as `run --device cuda:N` says).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    Usage(String),
    Unavailable(String),
}

impl DeviceError {
    fn cuda(e: cuda_run::CudaRunError) -> DeviceError {
        match e {
            cuda_run::CudaRunError::NoDevice { .. } => DeviceError::Usage(e.to_string()),
            _ => DeviceError::Unavailable(e.to_string()),
        }
    }

    /// The exit status of a command refused for it.
    pub fn exit_code(&self) -> i32 {
        match self {
            DeviceError::Usage(_) => 2,
            DeviceError::Unavailable(_) => 1,
        }
    }
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::Usage(m) | DeviceError::Unavailable(m) => write!(f, "{}", m),
        }
    }
}

/// Every device of this machine to measure on: every OpenCL device, then every CUDA device
/// when the driver loads (none without it), each with its name and platform for the report.
/// `Err` only when neither runtime has a device: why OpenCL has none.
pub fn all_devices() -> Result<Vec<(Device, String)>, String> {
    let mut out = Vec::new();
    let opencl = super::devices::opencl_devices();
    if let Ok(d) = &opencl {
        for (i, f) in d {
            out.push((Device::OpenCl(*i), format!("{} ({})", f.name, f.platform)));
        }
    }
    if cuda_run::driver_present() {
        for i in 0..cuda_run::device_count() {
            if let Ok(f) = cuda_run::facts(i) {
                out.push((Device::Cuda(i), format!("{} ({})", f.name, f.platform)));
            }
        }
    }
    match opencl {
        _ if !out.is_empty() => Ok(out),
        Ok(_) => Err("no OpenCL device, and no CUDA device".to_string()),
        Err(e) => Err(format!("{}, and no CUDA device", e)),
    }
}

/// A copy kernel on a device, timed one event-timed launch at a time.
pub enum CopyTimer {
    OpenCl(run::CopyTimer),
    Cuda(CudaCopyTimer),
}

impl CopyTimer {
    /// One event-timed launch of the copy, seconds.
    pub fn time(&mut self) -> Result<f64, String> {
        match self {
            CopyTimer::OpenCl(c) => c.time(),
            CopyTimer::Cuda(c) => c.time(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_targets() {
        assert_eq!(Device::OpenCl(1).name(), "opencl:1");
        assert_eq!(Device::Cuda(0).name(), "cuda:0");
        assert_eq!(Device::Cuda(0).target(), Target::Cuda);
        assert_eq!(Device::OpenCl(0).target(), Target::OpenCl);
        assert_eq!(Device::of(DeviceName::Sim), None);
        assert_eq!(Device::of(DeviceName::Cuda(2)), Some(Device::Cuda(2)));
    }

    /// Without the driver (this machine), a CUDA device is unavailable (exit 1), never a panic;
    /// its copy timer and launcher say so too.
    #[test]
    fn a_cuda_device_without_a_driver_is_unavailable() {
        if cuda_run::driver_present() {
            eprintln!("SKIP: a CUDA driver is present");
            return;
        }
        let e = Device::Cuda(0).facts().unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert!(
            e.to_string().starts_with("no CUDA driver on this machine"),
            "{e}"
        );
        assert!(Device::Cuda(0).copy_timer(1024).is_err());
        assert!(Device::Cuda(0).launcher("", false).is_err());
        assert!(Device::Cuda(0).description().is_err());
        if let Ok(all) = all_devices() {
            assert!(all.iter().all(|(d, _)| matches!(d, Device::OpenCl(_))));
        }
    }
}
