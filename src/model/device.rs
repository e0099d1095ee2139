//! The OpenCL devices of this machine, queried in-process through `opencl3`, and
//! `--platform opencl:N` (alias `device:N`): a platform description built from the N-th device's
//! facts.
//!
//! `opencl3` is built with its `dynamic` feature: the ICD loader (`libOpenCL.so.1`) is opened
//! with `dlopen` on first use, so building accshare needs no OpenCL library, and a machine
//! without one gets [`DeviceError::NoLoader`], not a link error or a panic.
//!
//! Devices are numbered in one global order: the platforms in the loader's order, the devices of
//! each platform (all types) in the platform's order — the order in which the generated host
//! programs count `ACCSHARE_DEVICE=N`. What OpenCL does not tell (bank layout, registers,
//! resident blocks, bandwidth, the thresholds) gets the defaults of the vendor's shipped
//! platforms, and the description says so.

use std::fmt;
use std::str::FromStr;

use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
    CL_GLOBAL, CL_LOCAL,
};

use super::platform::{Platform, DEFAULT_THETA_R, DEFAULT_THETA_S};

/// `clGetPlatformIDs` when the ICD loader finds no platform (`CL_PLATFORM_NOT_FOUND_KHR`).
const CL_PLATFORM_NOT_FOUND_KHR: i32 = -1001;
/// `cl3`'s code for a loader it could not open.
const DLOPEN_RUNTIME_LOAD_FAILED: i32 = -2000;
/// `cl3`'s code for a function the loader does not export.
const DLOPEN_FUNCTION_NOT_AVAILABLE: i32 = -2001;

/// Why OpenCL devices cannot be listed, queried or used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The ICD loader could not be opened.
    NoLoader,
    /// The loader lacks a function accshare calls (`call`).
    MissingFunction { call: &'static str },
    /// The loader found no OpenCL platform.
    NoPlatform,
    /// An OpenCL call failed with `code`.
    Call { call: &'static str, code: i32 },
    /// No device with this index (`count` devices on this machine).
    NoSuchDevice { index: usize, count: usize },
    /// The device's facts do not make a valid platform description (`key`: why).
    Invalid {
        index: usize,
        key: &'static str,
        message: String,
    },
}

impl DeviceError {
    /// The error of a failed OpenCL call (the loader's own codes are told apart).
    pub fn from_code(call: &'static str, code: i32) -> DeviceError {
        match code {
            DLOPEN_RUNTIME_LOAD_FAILED => DeviceError::NoLoader,
            DLOPEN_FUNCTION_NOT_AVAILABLE => DeviceError::MissingFunction { call },
            CL_PLATFORM_NOT_FOUND_KHR => DeviceError::NoPlatform,
            code => DeviceError::Call { call, code },
        }
    }
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::NoLoader => f.write_str(
                "no OpenCL runtime: the ICD loader (libOpenCL.so.1) cannot be loaded \
                 (install one, e.g. PoCL: pocl-opencl-icd)",
            ),
            DeviceError::MissingFunction { call } => {
                write!(f, "the OpenCL loader has no `{}`", call)
            }
            DeviceError::NoPlatform => f.write_str("no OpenCL platform is installed"),
            DeviceError::Call { call, code } => {
                write!(f, "{} failed: {} ({})", call, cl_error_name(*code), code)
            }
            DeviceError::NoSuchDevice { index, count } => write!(
                f,
                "no OpenCL device opencl:{} (this machine has {}; see `accshare devices`)",
                index, count
            ),
            DeviceError::Invalid {
                index,
                key,
                message,
            } => write!(f, "opencl:{}: {} (`{}`)", index, message, key),
        }
    }
}

impl std::error::Error for DeviceError {}

/// The name of an OpenCL error code (`CL_BUILD_PROGRAM_FAILURE`), or `unknown error`.
pub fn cl_error_name(code: i32) -> &'static str {
    opencl3::error_codes::error_text(code)
}

/// A device as every command names it: `opencl:N`, `cuda:N` or `sim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceName {
    /// The N-th OpenCL device in the global order (also spelled `device:N`).
    OpenCl(usize),
    /// The N-th CUDA device the driver reports.
    Cuda(usize),
    /// accshare's SIMT simulator.
    Sim,
}

/// A device name that is none of `opencl:N`, `device:N`, `cuda:N`, `sim`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceNameError {
    /// A known prefix with something other than a number after it.
    BadIndex { prefix: &'static str, text: String },
    /// No known prefix.
    Unknown(String),
}

impl fmt::Display for DeviceNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceNameError::BadIndex { prefix, text } => write!(
                f,
                "`{}`: expected `{}:N` with N a device number",
                text, prefix
            ),
            DeviceNameError::Unknown(text) => write!(
                f,
                "`{}`: expected a device name (`opencl:N`, `cuda:N` or `sim`)",
                text
            ),
        }
    }
}

impl std::error::Error for DeviceNameError {}

impl FromStr for DeviceName {
    type Err = DeviceNameError;

    fn from_str(s: &str) -> Result<DeviceName, DeviceNameError> {
        if s == "sim" {
            return Ok(DeviceName::Sim);
        }
        for (prefix, make) in [
            ("opencl", DeviceName::OpenCl as fn(usize) -> DeviceName),
            ("device", DeviceName::OpenCl),
            ("cuda", DeviceName::Cuda),
        ] {
            if let Some(n) = s.strip_prefix(prefix).and_then(|r| r.strip_prefix(':')) {
                return n
                    .trim()
                    .parse()
                    .map(make)
                    .map_err(|_| DeviceNameError::BadIndex {
                        prefix,
                        text: s.to_string(),
                    });
            }
        }
        Err(DeviceNameError::Unknown(s.to_string()))
    }
}

impl fmt::Display for DeviceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceName::OpenCl(n) => write!(f, "opencl:{}", n),
            DeviceName::Cuda(n) => write!(f, "cuda:{}", n),
            DeviceName::Sim => f.write_str("sim"),
        }
    }
}

/// Numbers the devices of every platform in one global order: platform by platform, each
/// platform's devices in its order. Yields `(index, platform, device)`.
pub fn number_globally<P: Clone, D>(platforms: Vec<(P, Vec<D>)>) -> Vec<(usize, P, D)> {
    platforms
        .into_iter()
        .flat_map(|(p, devices)| devices.into_iter().map(move |d| (p.clone(), d)))
        .enumerate()
        .map(|(i, (p, d))| (i, p, d))
        .collect()
}

/// One OpenCL device of this machine.
#[derive(Clone, Debug)]
pub struct OpenClDevice {
    /// Its place in the global order (`opencl:index`).
    pub index: usize,
    /// The name of its platform (`Portable Computing Language`).
    pub platform: String,
    pub device: Device,
}

/// Every OpenCL device of every platform, in the global order. A platform whose devices cannot
/// be listed contributes none (the generated programs could not use them either).
pub fn opencl_devices() -> Result<Vec<OpenClDevice>, DeviceError> {
    let platforms = opencl3::platform::get_platforms()
        .map_err(|e| DeviceError::from_code("clGetPlatformIDs", e.0))?;
    if platforms.is_empty() {
        return Err(DeviceError::NoPlatform);
    }
    let per_platform = platforms
        .iter()
        .map(|p| {
            let name = p.name().unwrap_or_else(|_| "?".to_string());
            let ids = p.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
            (name, ids)
        })
        .collect();
    Ok(number_globally(per_platform)
        .into_iter()
        .map(|(index, platform, id)| OpenClDevice {
            index,
            platform,
            device: Device::new(id),
        })
        .collect())
}

/// The device `opencl:index`.
pub fn opencl_device(index: usize) -> Result<OpenClDevice, DeviceError> {
    let mut all = opencl_devices()?;
    let count = all.len();
    if index < count {
        Ok(all.swap_remove(index))
    } else {
        Err(DeviceError::NoSuchDevice { index, count })
    }
}

/// What kind of device OpenCL says it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    Gpu,
    Cpu,
    Accelerator,
    Other,
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceKind::Gpu => "gpu",
            DeviceKind::Cpu => "cpu",
            DeviceKind::Accelerator => "accelerator",
            DeviceKind::Other => "other",
        })
    }
}

/// Where a device's local memory is (`CL_DEVICE_LOCAL_MEM_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalMemKind {
    /// Dedicated on-chip memory (`CL_LOCAL`): staging in it saves global traffic.
    Local,
    /// Emulated in global memory (`CL_GLOBAL`), as on CPU devices.
    Global,
    /// The device reports none.
    None,
}

impl fmt::Display for LocalMemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LocalMemKind::Local => "dedicated",
            LocalMemKind::Global => "in global memory",
            LocalMemKind::None => "none",
        })
    }
}

/// The facts of a device that accshare uses. A fact the device does not report is 0 (`false`,
/// `?` for text), as the description's defaults then take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    pub name: String,
    pub vendor: String,
    /// The platform's name.
    pub platform: String,
    pub kind: DeviceKind,
    pub compute_units: u32,
    pub max_work_group: u64,
    /// `CL_DEVICE_MAX_WORK_ITEM_SIZES`, one per dimension.
    pub max_items: Vec<u64>,
    pub clock_mhz: u32,
    /// Bytes of local memory.
    pub local_mem: u64,
    pub local_mem_kind: LocalMemKind,
    /// `CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE` in bytes.
    pub cacheline: u32,
    /// `CL_DEVICE_HOST_UNIFIED_MEMORY`: the device shares the host's memory.
    pub host_unified_memory: bool,
    /// `CL_DEVICE_WARP_SIZE_NV` (NVIDIA only).
    pub warp_nv: u32,
    /// `CL_DEVICE_WAVEFRONT_WIDTH_AMD` (AMD GPUs only).
    pub wavefront_amd: u32,
}

impl DeviceFacts {
    /// Queries a device.
    pub fn of(device: &OpenClDevice) -> DeviceFacts {
        let d = &device.device;
        let text = |r: opencl3::Result<String>| {
            r.map(|s| s.replace(['\n', '\r'], " ").trim().to_string())
                .unwrap_or_else(|_| "?".to_string())
        };
        let kind = match d.dev_type().unwrap_or(0) {
            t if t & CL_DEVICE_TYPE_GPU != 0 => DeviceKind::Gpu,
            t if t & CL_DEVICE_TYPE_CPU != 0 => DeviceKind::Cpu,
            t if t & CL_DEVICE_TYPE_ACCELERATOR != 0 => DeviceKind::Accelerator,
            _ => DeviceKind::Other,
        };
        let local_mem_kind = match d.local_mem_type() {
            Ok(CL_LOCAL) => LocalMemKind::Local,
            Ok(CL_GLOBAL) => LocalMemKind::Global,
            _ => LocalMemKind::None,
        };
        DeviceFacts {
            name: text(d.name()),
            vendor: text(d.vendor()),
            platform: device.platform.clone(),
            kind,
            compute_units: d.max_compute_units().unwrap_or(0),
            max_work_group: to_u64(d.max_work_group_size().unwrap_or(0)),
            max_items: d
                .max_work_item_sizes()
                .unwrap_or_default()
                .into_iter()
                .map(to_u64)
                .collect(),
            clock_mhz: d.max_clock_frequency().unwrap_or(0),
            local_mem: d.local_mem_size().unwrap_or(0),
            local_mem_kind,
            cacheline: d.global_mem_cacheline_size().unwrap_or(0),
            host_unified_memory: d.host_unified_memory().unwrap_or(false),
            warp_nv: d.wrap_size_nv().unwrap_or(0),
            wavefront_amd: d.wavefront_width_amd().unwrap_or(0),
        }
    }
}

fn to_u64(v: usize) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// The facts PoCL reports for a two-core CPU: a device for tests that need none.
#[cfg(test)]
pub fn sample_facts() -> DeviceFacts {
    DeviceFacts {
        name: "pthread-skylake-avx512-AMD EPYC".into(),
        vendor: "AuthenticAMD".into(),
        platform: "Portable Computing Language".into(),
        kind: DeviceKind::Cpu,
        compute_units: 2,
        max_work_group: 4096,
        max_items: vec![4096, 4096, 4096],
        clock_mhz: 2596,
        local_mem: 1048576,
        local_mem_kind: LocalMemKind::Global,
        cacheline: 64,
        host_unified_memory: true,
        warp_nv: 0,
        wavefront_amd: 0,
    }
}

/// The facts of `opencl:index`.
pub fn query(index: usize) -> Result<DeviceFacts, DeviceError> {
    opencl_device(index).map(|d| DeviceFacts::of(&d))
}

/// A platform description from a device's facts (separate from [`query`] so that it can be
/// tested without a device).
pub fn from_facts(index: usize, facts: &DeviceFacts) -> Result<Platform, DeviceError> {
    let vendor_text = facts.vendor.to_lowercase();
    let cpu = facts.kind == DeviceKind::Cpu;
    let vendor = if vendor_text.contains("nvidia") {
        "nvidia"
    } else if vendor_text.contains("amd") || vendor_text.contains("advanced micro") {
        if cpu {
            "pocl"
        } else {
            "amd"
        }
    } else if cpu {
        "pocl"
    } else {
        "other"
    };
    let warp = match (u64::from(facts.warp_nv), u64::from(facts.wavefront_amd)) {
        (w, _) if w > 0 => w,
        (_, w) if w > 0 => w,
        _ if cpu => 8,
        _ if vendor == "amd" => 64,
        _ => 32,
    };
    let max_wg = facts.max_work_group.clamp(1, 65536);
    let item = |i: usize| {
        facts
            .max_items
            .get(i)
            .copied()
            .filter(|v| *v > 0)
            .unwrap_or(max_wg)
            .min(max_wg)
    };
    let local = facts.local_mem.max(1024);
    let line = u64::from(facts.cacheline);
    let tran = if line.is_power_of_two() && line >= 16 {
        line
    } else {
        128
    };
    let name = DeviceName::OpenCl(index).to_string();
    let p = Platform {
        name: name.clone(),
        description: format!(
            "{} (OpenCL device {} on {}, queried; local memory {}; banks, registers and \
             bandwidth are defaults)",
            facts.name, index, facts.platform, facts.local_mem_kind
        ),
        vendor: vendor.to_string(),
        source: name,
        warp_size: to_u32(warp),
        max_threads_per_block: to_u32(max_wg),
        max_block_dims: [to_u32(item(0)), to_u32(item(1)), to_u32(item(2))],
        max_threads_per_sm: to_u32(if cpu { max_wg } else { (max_wg * 2).max(warp) }),
        max_blocks_per_sm: if cpu { 1 } else { 16 },
        registers_per_sm: 65536,
        max_registers_per_thread: super::platform::DEFAULT_MAX_REGISTERS,
        register_alloc_unit: super::platform::DEFAULT_REGISTER_UNIT,
        sm_count: facts.compute_units.max(1),
        clock_mhz: facts.clock_mhz.max(1),
        smem_per_sm: local,
        smem_per_block: local,
        banks: if cpu { 1 } else { 32 },
        bank_width: to_u32(if cpu { tran } else { 4 }),
        shared_lanes: to_u32(warp.min(32)),
        bank_modes: vec![to_u32(if cpu { tran } else { 4 })],
        local_memory: match facts.local_mem_kind {
            LocalMemKind::Local => super::platform::LocalMemory::Dedicated,
            LocalMemKind::Global | LocalMemKind::None => super::platform::LocalMemory::Global,
        },
        transaction_bytes: to_u32(tran),
        sector_bytes: to_u32(if cpu { tran } else { tran.min(32) }),
        bandwidth_gbs: 0.0,
        theta_s: DEFAULT_THETA_S,
        theta_r: DEFAULT_THETA_R,
        cache: Default::default(),
        timing: Default::default(),
        // OpenCL does not tell how addresses spread over memory channels.
        channels: None,
    };
    p.check().map_err(|m| DeviceError::Invalid {
        index,
        key: m.key,
        message: m.message,
    })?;
    Ok(p)
}

/// A queried count as the model's `u32` (saturating: no device has more).
fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Queries `opencl:index` and describes it.
pub fn load(index: usize) -> Result<Platform, DeviceError> {
    from_facts(index, &query(index)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_a_pocl_device() {
        let p = from_facts(0, &sample_facts()).unwrap();
        assert_eq!(
            (p.name.as_str(), p.source.as_str()),
            ("opencl:0", "opencl:0")
        );
        assert_eq!(
            (p.warp_size, p.max_threads_per_block, p.smem_per_sm),
            (8, 4096, 1048576)
        );
        assert_eq!(
            (p.transaction_bytes, p.sm_count, p.clock_mhz),
            (64, 2, 2596)
        );
        assert_eq!(p.vendor, "pocl");
        assert!(
            p.description
                .contains("on Portable Computing Language, queried; local memory in global memory"),
            "{}",
            p.description
        );
    }

    #[test]
    fn facts_of_an_nvidia_gpu() {
        let facts = DeviceFacts {
            name: "NVIDIA A100".into(),
            vendor: "NVIDIA Corporation".into(),
            platform: "NVIDIA CUDA".into(),
            kind: DeviceKind::Gpu,
            compute_units: 108,
            max_work_group: 1024,
            max_items: vec![1024, 1024, 64],
            clock_mhz: 1410,
            local_mem: 49152,
            local_mem_kind: LocalMemKind::Local,
            cacheline: 128,
            host_unified_memory: false,
            warp_nv: 32,
            wavefront_amd: 0,
        };
        let p = from_facts(1, &facts).unwrap();
        assert_eq!(
            (p.warp_size, p.max_block_dims, p.max_threads_per_sm),
            (32, [1024, 1024, 64], 2048)
        );
        assert_eq!((p.banks, p.bank_width, p.sector_bytes), (32, 4, 32));
        // The name is kept as the device reports it, quotes and backslashes included.
        let odd = DeviceFacts {
            name: "x\"y\\z".into(),
            ..facts
        };
        let p = from_facts(0, &odd).unwrap();
        assert!(p.description.starts_with("x\"y\\z (OpenCL device 0"));
    }

    #[test]
    fn unreported_facts_get_defaults() {
        let facts = DeviceFacts {
            max_work_group: 0,
            max_items: Vec::new(),
            compute_units: 0,
            clock_mhz: 0,
            local_mem: 0,
            cacheline: 0,
            ..sample_facts()
        };
        let p = from_facts(3, &facts).unwrap();
        assert_eq!(p.max_block_dims, [1, 1, 1]);
        assert_eq!((p.sm_count, p.clock_mhz, p.smem_per_block), (1, 1, 1024));
        assert_eq!(p.transaction_bytes, 128);
    }

    #[test]
    fn device_names() {
        for (text, name) in [
            ("opencl:0", DeviceName::OpenCl(0)),
            ("device:2", DeviceName::OpenCl(2)),
            ("cuda:1", DeviceName::Cuda(1)),
            ("sim", DeviceName::Sim),
        ] {
            assert_eq!(text.parse::<DeviceName>(), Ok(name), "{text}");
        }
        // `device:N` is an alias: the name is always written `opencl:N`.
        assert_eq!(DeviceName::OpenCl(2).to_string(), "opencl:2");
        assert_eq!(DeviceName::Cuda(1).to_string(), "cuda:1");
        let e = "device:x".parse::<DeviceName>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`device:x`: expected `device:N` with N a device number"
        );
        let e = "gpu0".parse::<DeviceName>().unwrap_err();
        assert!(matches!(e, DeviceNameError::Unknown(_)), "{e}");
        assert!("opencl:".parse::<DeviceName>().is_err());
        assert!("openclx:1".parse::<DeviceName>().is_err());
    }

    #[test]
    fn devices_are_numbered_across_platforms() {
        let numbered = number_globally(vec![
            ("A", vec!["a0", "a1"]),
            ("empty", vec![]),
            ("B", vec!["b0"]),
        ]);
        assert_eq!(
            numbered,
            vec![(0, "A", "a0"), (1, "A", "a1"), (2, "B", "b0")]
        );
    }

    #[test]
    fn errors_of_the_loader_are_told_apart() {
        assert_eq!(
            DeviceError::from_code("clGetPlatformIDs", -2000),
            DeviceError::NoLoader
        );
        assert_eq!(
            DeviceError::from_code("clGetPlatformIDs", -1001),
            DeviceError::NoPlatform
        );
        let e = DeviceError::from_code("clCreateContext", -6);
        assert_eq!(
            e.to_string(),
            "clCreateContext failed: CL_OUT_OF_HOST_MEMORY (-6)"
        );
        assert!(DeviceError::NoLoader.to_string().contains("libOpenCL.so.1"));
    }

    /// The live device, if any: every device of the listing is queried and described.
    #[test]
    fn live_devices_or_skip() {
        let devices = match opencl_devices() {
            Ok(d) if !d.is_empty() => d,
            other => {
                let why = other
                    .err()
                    .map_or("no device".to_string(), |e| e.to_string());
                assert!(
                    !crate::runtime::require_devices(),
                    "ACCSHARE_REQUIRE_DEVICES=1 but no OpenCL device: {why}"
                );
                eprintln!("SKIP: no OpenCL device ({why})");
                return;
            }
        };
        for d in &devices {
            let p = load(d.index).unwrap();
            assert_eq!(p.name, format!("opencl:{}", d.index));
            assert!(p.max_threads_per_block >= 1);
        }
        let e = load(devices.len()).unwrap_err();
        assert_eq!(
            e,
            DeviceError::NoSuchDevice {
                index: devices.len(),
                count: devices.len()
            }
        );
    }
}
