//! `accshare run --device cuda:N`: the replay of `runtime::run` with the kernels executed on a
//! CUDA device, in-process through cudarc's driver API (loaded at run time: no CUDA library is
//! needed to build, and without a driver [`CudaLauncher::new`] says so instead of panicking).
//!
//! The module's kernels (as `back::cuda` prints them) are compiled to PTX once by NVRTC
//! ([`crate::runtime::nvrtc`]) for the device's compute capability and loaded as one module.
//! Each launch is first turned into a [`CudaLaunchPlan`] by [`plan_launch`], without a device:
//! the function's name, the grid and block (as the generated host code computes them for CUDA,
//! `back::host`: blocks = ceil(extent / block) per dimension), the dynamic shared memory (none:
//! the kernels declare their `__shared__` arrays statically) and the arguments in the kernel's
//! parameter order, each a scalar of the parameter's exact C type or a buffer with its host
//! contents. Unlike OpenCL's, the CUDA kernels take no element offset after a buffer: the host
//! code passes the device pointer itself, and a replay's buffers start at the array's start.
//! [`CudaLauncher`] then copies the buffers to the device, launches between two events, and
//! reads back the arrays the kernel writes, the partial results of reductions.
//!
//! `accshare bench` and `tune` measure on a CUDA device with the same pieces: the launcher timing
//! a second launch on resident buffers ([`CudaLauncher::timing_resident`]), the device's facts
//! ([`facts`], [`platform`]: its tune-cache key and its description) and the copy kernel that is
//! the yardstick of memory-bound kernels ([`CudaCopyTimer`]). Their timed launches run behind a
//! [`StreamGate`], so that the events time the kernel and not the host's launch.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::kernel::{Launch, Module};
use crate::model::device::{DeviceFacts, DeviceKind, DeviceName, LocalMemKind};
use crate::model::Platform;
use crate::runtime::args::{self, Arg};
use crate::runtime::nvrtc::{self, CompileOutcome};
use crate::sim::trace::{LaunchError, Launched, Launcher};
use crate::sim::{ArgValue, BufData};
use crate::vocab::Scalar;

/// A scalar argument as the kernel's parameter type holds it (`back::cuda`'s spelling: `bool`
/// and `unsigned char` are one byte, `long` and `long long` eight, `size_t` is
/// `unsigned long long`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum CudaScalar {
    U8(u8),
    I8(i8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl CudaScalar {
    /// A value of type `ty` in the simulator's raw representation (`host::raw_from_f64`).
    pub fn from_raw(ty: Scalar, raw: u64) -> CudaScalar {
        match ty {
            Scalar::Bool | Scalar::UChar => CudaScalar::U8(raw as u8),
            Scalar::Char | Scalar::SChar => CudaScalar::I8(raw as i8),
            Scalar::Short => CudaScalar::I16(raw as i16),
            Scalar::UShort => CudaScalar::U16(raw as u16),
            Scalar::Int => CudaScalar::I32(raw as i32),
            Scalar::UInt => CudaScalar::U32(raw as u32),
            Scalar::Long | Scalar::LongLong => CudaScalar::I64(raw as i64),
            Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => CudaScalar::U64(raw),
            Scalar::Float => CudaScalar::F32(f32::from_bits(raw as u32)),
            Scalar::Double => CudaScalar::F64(f64::from_bits(raw)),
        }
    }

    /// Its size in bytes (what the kernel's parameter takes).
    pub fn size(&self) -> usize {
        match self {
            CudaScalar::U8(_) | CudaScalar::I8(_) => 1,
            CudaScalar::I16(_) | CudaScalar::U16(_) => 2,
            CudaScalar::I32(_) | CudaScalar::U32(_) | CudaScalar::F32(_) => 4,
            CudaScalar::I64(_) | CudaScalar::U64(_) | CudaScalar::F64(_) => 8,
        }
    }
}

/// One argument of a planned launch.
#[derive(Clone, Debug, PartialEq)]
pub enum CudaArg {
    /// A scalar parameter: its C type as the kernel spells it (`unsigned int`) and the value.
    Scalar { c_type: String, value: CudaScalar },
    /// A pointer parameter: a device buffer made from `data`, read back as `len` elements of
    /// `elem` afterwards if `write_back` names the user array it updates.
    Buffer {
        /// The pointer type as the kernel spells it (`const float *`).
        c_type: String,
        elem: Scalar,
        data: BufData,
        len: usize,
        write_back: Option<String>,
    },
}

/// Everything a CUDA launch needs, computed without a device.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaLaunchPlan {
    /// The `extern "C"` function in the PTX (the kernel's name).
    pub function: String,
    /// Blocks per dimension (x, y, z).
    pub grid: [u32; 3],
    /// Threads per block (x, y, z): the kernel's block shape.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
    /// The arguments, in the kernel's parameter order.
    pub args: Vec<CudaArg>,
    /// Per reduction of the launch: its variable and the argument holding its partials.
    pub partials: Vec<(String, usize)>,
    /// Per last value of the launch: its variable and the argument holding it.
    pub last_values: Vec<(String, usize)>,
}

/// `data` with zero elements after it up to whole 32-bit words, for a buffer a kernel updates
/// with `char` or `short` atomics (a compare-and-swap on the word holding the element:
/// [`crate::back::host::word_alloc_bytes`]); the launch still reads back only `len` elements.
fn words_padded(data: &BufData, elem: Scalar) -> BufData {
    let mut bytes = data.to_le_bytes();
    bytes.resize(crate::back::host::word_alloc_bytes(bytes.len()), 0);
    BufData::from_le_bytes(elem, &bytes).unwrap_or_else(|| data.clone())
}

/// Plans `launch` of module `m` on the host data a replay gives (`arrays` by the user's names,
/// `scalar(i, ty)` the value of argument `i`, `extent` the work-items per dimension) for a
/// device of `units` multiprocessors.
pub fn plan_launch(
    m: &Module,
    launch: &Launch,
    arrays: &BTreeMap<String, BufData>,
    scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
    extent: [u64; 3],
    units: u32,
) -> Result<CudaLaunchPlan, LaunchError> {
    let r = args::resolve(m, launch, arrays, scalar, extent, units)?;
    let k = r.kernel;
    let dims = usize::from(k.dims.clamp(1, 3));
    let mut grid = [1u32; 3];
    let mut block = [1u32; 3];
    for d in 0..dims {
        grid[d] = r.grid[d];
        block[d] = k.block[d].max(1);
    }
    let narrow = crate::back::host::narrow_atomic_params(k);
    let args = r
        .args
        .into_iter()
        .zip(&k.params)
        .map(|(a, p)| {
            let c_type = crate::back::cuda::param_type(&p.kind);
            match a {
                Arg::Scalar { ty, raw } => CudaArg::Scalar {
                    c_type,
                    value: CudaScalar::from_raw(ty, raw),
                },
                Arg::Buffer {
                    elem,
                    data,
                    write_back,
                } => CudaArg::Buffer {
                    c_type,
                    elem,
                    len: data.len(),
                    data: if narrow.contains(&p.name) {
                        words_padded(&data, elem)
                    } else {
                        data.into_owned()
                    },
                    write_back,
                },
            }
        })
        .collect();
    Ok(CudaLaunchPlan {
        function: k.name.clone(),
        grid,
        block,
        shared_bytes: 0,
        args,
        partials: r.partials,
        last_values: r.last_values,
    })
}

/// Why a program's kernels cannot run on a CUDA device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaRunError {
    /// The CUDA driver library (`libcuda.so`) cannot be loaded.
    NoDriver,
    /// The driver reports fewer devices than the index asks for.
    NoDevice { index: usize, count: usize },
    /// A driver call failed: the call and the error's name.
    Driver { call: String, error: String },
    /// NVRTC is missing or failed (why).
    Nvrtc(String),
    /// NVRTC rejected the kernels: its log.
    Build(String),
}

impl fmt::Display for CudaRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaRunError::NoDriver => write!(
                f,
                "no CUDA driver on this machine (libcuda.so cannot be loaded): CUDA kernels run \
                 only on a machine with an NVIDIA GPU and its driver (`accshare devices` lists \
                 the devices here: `sim`, `opencl:N`)"
            ),
            CudaRunError::NoDevice { index, count } => write!(
                f,
                "no such device: the CUDA driver reports {} device(s) (`accshare devices` lists \
                 them), not cuda:{}",
                count, index
            ),
            CudaRunError::Driver { call, error } => write!(f, "{}: {}", call, error),
            CudaRunError::Nvrtc(why) => write!(f, "NVRTC: {}", why),
            CudaRunError::Build(log) => {
                write!(f, "the kernels do not compile with NVRTC: {}", log)
            }
        }
    }
}

impl std::error::Error for CudaRunError {}

fn driver_failed(call: impl Into<String>, e: DriverError) -> CudaRunError {
    CudaRunError::Driver {
        call: call.into(),
        error: format!("{:?}", e.0),
    }
}

fn launch_failed(call: impl Into<String>, e: DriverError) -> LaunchError {
    LaunchError::Cuda {
        call: call.into(),
        error: format!("{:?}", e.0),
    }
}

/// True if the CUDA driver library loads (cudarc panics on the first call without it).
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library's candidate names.
    catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

/// `f` run only where the driver loads, a panic of cudarc turned into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, CudaRunError>) -> Result<T, CudaRunError> {
    if !driver_present() {
        return Err(CudaRunError::NoDriver);
    }
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(CudaRunError::Driver {
            call: "the CUDA driver".into(),
            error: "panicked".into(),
        })
    })
}

/// A context on `cuda:index` (the driver present), or why there is none.
fn context(index: usize) -> Result<Arc<CudaContext>, CudaRunError> {
    let count = CudaContext::device_count().map_err(|e| driver_failed("cuDeviceGetCount", e))?;
    let count = count.max(0) as usize;
    if index >= count {
        return Err(CudaRunError::NoDevice { index, count });
    }
    CudaContext::new(index).map_err(|e| driver_failed("cuCtxCreate", e))
}

/// How many devices the CUDA driver reports (none without the driver).
pub fn device_count() -> usize {
    guarded(|| CudaContext::device_count().map_err(|e| driver_failed("cuDeviceGetCount", e)))
        .map(|n| n.max(0) as usize)
        .unwrap_or(0)
}

/// The module `source` (CUDA C++ with `extern "C"` kernels) compiled by NVRTC for the compute
/// capability of `ctx`'s device (`extra`: more NVRTC options) and loaded.
fn load(
    ctx: &Arc<CudaContext>,
    source: &str,
    extra: &[&str],
) -> Result<Arc<CudaModule>, CudaRunError> {
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| driver_failed("cuDeviceGetAttribute", e))?;
    let arch = format!("compute_{}{}", major, minor);
    let ptx = match nvrtc::compile_cuda_with(source, &arch, extra) {
        Ok(CompileOutcome::Compiled { ptx, .. }) => ptx,
        Ok(CompileOutcome::Failed(log)) => return Err(CudaRunError::Build(log)),
        Ok(CompileOutcome::Skipped(why)) => return Err(CudaRunError::Nvrtc(why)),
        Err(e) => return Err(CudaRunError::Nvrtc(e.to_string())),
    };
    ctx.load_module(Ptx::from_src(ptx))
        .map_err(|e| driver_failed("cuModuleLoadData", e))
}

/// Compiles each of `sources` with each of the option sets `extras` for the compute
/// capability of `cuda:index`, all at once on every core ([`nvrtc::compile_all`]): the
/// [`CudaLauncher::new`] of each then loads the module without compiling it.
pub fn precompile(index: usize, sources: &[&str], extras: &[&[&str]]) -> Result<(), CudaRunError> {
    guarded(|| {
        let ctx = context(index)?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| driver_failed("cuDeviceGetAttribute", e))?;
        let arch = format!("compute_{}{}", major, minor);
        let jobs: Vec<(&str, &[&str])> = sources
            .iter()
            .flat_map(|s| extras.iter().map(move |e| (*s, *e)))
            .collect();
        nvrtc::compile_all(&jobs, &arch);
        Ok(())
    })
}

/// The platform name `cuda:N` devices have in their facts (and so in the tune cache's keys,
/// `platform / device`): NVIDIA's OpenCL platform is `NVIDIA CUDA`, so a GPU measured through
/// both has two keys, as its two compilers may want different schedules.
pub const PLATFORM: &str = "CUDA driver";

/// The facts of `cuda:index` as the OpenCL devices' are recorded ([`DeviceFacts`]), queried
/// from the driver: the tune cache names the device by them, and [`platform`] describes it.
pub fn facts(index: usize) -> Result<DeviceFacts, CudaRunError> {
    guarded(|| {
        let ctx = context(index)?;
        let name = ctx
            .name()
            .map_err(|e| driver_failed("cuDeviceGetName", e))?
            .trim()
            .to_string();
        let attr = |a: sys::CUdevice_attribute| {
            ctx.attribute(a)
                .map(|v| v.max(0) as u64)
                .map_err(|e| driver_failed(format!("cuDeviceGetAttribute {:?}", a), e))
        };
        use sys::CUdevice_attribute as A;
        // The clock is informative only (CUDA 13 deprecates the attribute): 0 when refused.
        let clock_khz = attr(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0);
        Ok(DeviceFacts {
            name,
            vendor: "NVIDIA Corporation".to_string(),
            platform: PLATFORM.to_string(),
            kind: DeviceKind::Gpu,
            compute_units: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            max_work_group: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_items: vec![
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            clock_mhz: (clock_khz / 1000) as u32,
            local_mem: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            local_mem_kind: LocalMemKind::Local,
            // Global loads are served in 128-byte lines of four 32-byte sectors.
            cacheline: 128,
            host_unified_memory: attr(A::CU_DEVICE_ATTRIBUTE_INTEGRATED)? != 0,
            warp_nv: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)? as u32,
            wavefront_amd: 0,
        })
    })
}

/// A description of `cuda:index` made from its queried [`facts`] as `--platform opencl:N`
/// makes one (`model::device::from_facts`), named `cuda:N`.
pub fn platform(index: usize) -> Result<Platform, CudaRunError> {
    platform_of(index, &facts(index)?)
}

/// [`platform`] from the facts, without a device.
fn platform_of(index: usize, f: &DeviceFacts) -> Result<Platform, CudaRunError> {
    let mut p = crate::model::device::from_facts(index, f).map_err(|e| CudaRunError::Driver {
        call: "the device's description".into(),
        error: e.to_string(),
    })?;
    let name = DeviceName::Cuda(index).to_string();
    p.description = format!(
        "{} (CUDA device {}, queried through the driver; banks, registers and bandwidth are \
         defaults)",
        f.name, index
    );
    p.name = name.clone();
    p.source = name;
    Ok(p)
}

/// The module's kernels compiled and loaded on `cuda:index`, ready to launch.
pub struct CudaLauncher {
    index: usize,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    functions: BTreeMap<String, CudaFunction>,
    /// Time a second launch on the buffers the first one left ([`Self::timing_resident`]).
    resident: bool,
    /// The device's multiprocessors (the grid of a grid-stride kernel).
    units: u32,
}

impl CudaLauncher {
    /// Compiles `source` (the module printed by `back::cuda`) with NVRTC for the compute
    /// capability of `cuda:index` (`extra`: more NVRTC options, `--fmad=false`) and loads it.
    pub fn new(index: usize, source: &str, extra: &[&str]) -> Result<CudaLauncher, CudaRunError> {
        guarded(|| {
            let ctx = context(index)?;
            let module = load(&ctx, source, extra)?;
            let units = ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(|e| driver_failed("cuDeviceGetAttribute MULTIPROCESSOR_COUNT", e))?;
            Ok(CudaLauncher {
                index,
                stream: ctx.default_stream(),
                module,
                functions: BTreeMap::new(),
                resident: false,
                units: units.max(1) as u32,
            })
        })
    }

    /// Reports the time of a second launch of each kernel, on the buffers the first launch
    /// used, instead of the first's, as [`crate::runtime::run::OpenClLauncher::timing_resident`]
    /// does on OpenCL. The buffers are on the device before the first launch here (the copies
    /// are synchronous), but the first launch of a function in a module pays for what the
    /// driver defers to it (lazy loading, `CUDA_MODULE_LOADING=LAZY` by default since CUDA
    /// 12.2, happens between the start event and the kernel), and it finds the caches cold
    /// where a kernel in a program follows the previous one. The results of each launch are
    /// read after the first: the second may update in place.
    pub fn timing_resident(mut self) -> CudaLauncher {
        self.resident = true;
        self
    }

    fn function(&mut self, name: &str) -> Result<CudaFunction, LaunchError> {
        if let Some(f) = self.functions.get(name) {
            return Ok(f.clone());
        }
        let f = self
            .module
            .load_function(name)
            .map_err(|e| launch_failed(format!("cuModuleGetFunction `{}`", name), e))?;
        self.functions.insert(name.to_string(), f.clone());
        Ok(f)
    }

    /// Runs a planned launch: buffers copied in, the kernel between two events, the written
    /// buffers and the partials read back.
    fn run(
        &mut self,
        plan: &CudaLaunchPlan,
        arrays: &mut BTreeMap<String, BufData>,
    ) -> Result<Launched, LaunchError> {
        let func = self.function(&plan.function)?;
        let stream = self.stream.clone();
        // One device buffer per buffer argument (a byte for an empty one), in argument order.
        let mut bufs: Vec<Option<CudaSlice<u8>>> = Vec::new();
        for a in &plan.args {
            bufs.push(match a {
                CudaArg::Buffer { data, .. } => {
                    let mut bytes = data.le_bytes();
                    if bytes.is_empty() {
                        bytes.to_mut().push(0);
                    }
                    Some(
                        stream
                            .clone_htod(bytes.as_ref())
                            .map_err(|e| launch_failed("cuMemcpyHtoD", e))?,
                    )
                }
                CudaArg::Scalar { .. } => None,
            });
        }
        let mut builder = stream.launch_builder(&func);
        for (a, b) in plan.args.iter().zip(&bufs) {
            match (a, b) {
                (CudaArg::Scalar { value, .. }, _) => match value {
                    CudaScalar::U8(v) => builder.arg(v),
                    CudaScalar::I8(v) => builder.arg(v),
                    CudaScalar::I16(v) => builder.arg(v),
                    CudaScalar::U16(v) => builder.arg(v),
                    CudaScalar::I32(v) => builder.arg(v),
                    CudaScalar::U32(v) => builder.arg(v),
                    CudaScalar::I64(v) => builder.arg(v),
                    CudaScalar::U64(v) => builder.arg(v),
                    CudaScalar::F32(v) => builder.arg(v),
                    CudaScalar::F64(v) => builder.arg(v),
                },
                (CudaArg::Buffer { .. }, Some(buf)) => builder.arg(buf),
                (CudaArg::Buffer { .. }, None) => unreachable!("every buffer argument has one"),
            };
        }
        builder.record_kernel_launch(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let cfg = LaunchConfig {
            grid_dim: (plan.grid[0], plan.grid[1], plan.grid[2]),
            block_dim: (plan.block[0], plan.block[1], plan.block[2]),
            shared_mem_bytes: plan.shared_bytes,
        };
        // SAFETY: the arguments follow the kernel's parameters in order, each a value of the
        // parameter's C type or a device pointer to a buffer holding the array's elements.
        let events = unsafe { builder.launch(cfg) }
            .map_err(|e| launch_failed(format!("cuLaunchKernel `{}`", plan.function), e))?;
        stream
            .synchronize()
            .map_err(|e| launch_failed(format!("kernel `{}`", plan.function), e))?;
        let elapsed = |events: Option<(CudaEvent, CudaEvent)>| {
            events
                .and_then(|(start, end)| start.elapsed_ms(&end).ok())
                .map(|ms| f64::from(ms) * 1e-3)
        };
        let seconds = elapsed(events);
        let read = |i: usize| -> Result<BufData, LaunchError> {
            let (Some(buf), CudaArg::Buffer { elem, len, .. }) = (&bufs[i], &plan.args[i]) else {
                return Err(LaunchError::TruncatedBuffer);
            };
            let bytes = stream
                .clone_dtoh(buf)
                .map_err(|e| launch_failed("cuMemcpyDtoH", e))?;
            let n = len * elem.size() as usize;
            let bytes = bytes.get(..n).ok_or(LaunchError::TruncatedBuffer)?;
            BufData::from_le_bytes(*elem, bytes).ok_or(LaunchError::TruncatedBuffer)
        };
        let mut out = Launched {
            partials: Vec::new(),
            last_values: Vec::new(),
            run: None,
            seconds,
        };
        for (var, i) in &plan.partials {
            out.partials.push((var.clone(), read(*i)?));
        }
        for (var, i) in &plan.last_values {
            out.last_values.push((var.clone(), read(*i)?));
        }
        for (i, a) in plan.args.iter().enumerate() {
            if let CudaArg::Buffer {
                write_back: Some(name),
                ..
            } = a
            {
                let data = read(i)?;
                arrays.insert(name.clone(), data);
            }
        }
        if self.resident {
            let events = {
                // The function is loaded now: the stream may wait for the launch
                // ([`StreamGate`], released at the end of this block).
                let _gate = StreamGate::hold(&stream);
                // SAFETY: as above, the same arguments.
                unsafe { builder.launch(cfg) }
            }
            .map_err(|e| launch_failed(format!("cuLaunchKernel `{}`", plan.function), e))?;
            stream
                .synchronize()
                .map_err(|e| launch_failed(format!("kernel `{}`", plan.function), e))?;
            out.seconds = elapsed(events);
        }
        Ok(out)
    }
}

/// Holds a stream until the host has enqueued what follows, so that a start event, a kernel
/// and an end event run back to back: on an idle stream the start event is reached at once,
/// and the time the host then takes to launch (tens of microseconds on an H200, where
/// `ACCSHARE_PROFILE` found Gauss's events 30 µs over Nsight Compute's kernel time) would be
/// counted as the kernel's. The stream first runs a host function (`cuLaunchHostFunc`, in
/// stream order; it calls no CUDA function) that waits until the gate is dropped, or
/// [`GATE_LIMIT`], so that no launch can wait for it forever; the generated programs hold
/// their launches the same way (`back::host`, `accshare_prof_gate`). Without the host
/// function (a driver that refuses it) the launch is timed as before. Not for a function's
/// first launch: with lazy loading, the launch loads it, which may wait for the stream.
pub struct StreamGate(Option<Arc<AtomicBool>>);

/// The longest a [`StreamGate`] holds its stream.
pub const GATE_LIMIT: Duration = Duration::from_secs(1);

impl StreamGate {
    /// Holds `stream` until the gate is dropped.
    pub fn hold(stream: &CudaStream) -> StreamGate {
        if stream.context().bind_to_thread().is_err() {
            return StreamGate(None);
        }
        let go = Arc::new(AtomicBool::new(false));
        let user = Arc::into_raw(go.clone()) as *mut std::ffi::c_void;
        // SAFETY: `user` is a reference to `go` the host function takes over and drops; the
        // stream is the caller's, alive for the call.
        let r = unsafe { sys::cuLaunchHostFunc(stream.cu_stream(), Some(gate_host), user) };
        if r != sys::cudaError_enum::CUDA_SUCCESS {
            // SAFETY: the driver did not take the reference: it is still ours to drop.
            drop(unsafe { Arc::from_raw(user as *const AtomicBool) });
            return StreamGate(None);
        }
        StreamGate(Some(go))
    }
}

impl Drop for StreamGate {
    fn drop(&mut self) {
        if let Some(go) = &self.0 {
            go.store(true, Ordering::Release);
        }
    }
}

/// The host function of a [`StreamGate`]: waits for its flag (`user`, an `Arc<AtomicBool>`
/// given up by [`StreamGate::hold`]).
unsafe extern "C" fn gate_host(user: *mut std::ffi::c_void) {
    // SAFETY: `user` came from `Arc::into_raw` in `StreamGate::hold`, which gave this call the
    // reference.
    let go = unsafe { Arc::from_raw(user as *const AtomicBool) };
    wait_for(&go, GATE_LIMIT);
}

/// Waits until `go` is set or `limit` has passed; whether it was set.
fn wait_for(go: &AtomicBool, limit: Duration) -> bool {
    let t0 = Instant::now();
    while !go.load(Ordering::Acquire) {
        if t0.elapsed() > limit {
            return false;
        }
        std::hint::spin_loop();
    }
    true
}

/// The copy kernel of [`CudaCopyTimer`]: one 32-bit word per thread, as OpenCL's
/// (`runtime::run::CopyTimer`).
const COPY_KERNEL: &str = "extern \"C\" __global__ void accshare_copy(const unsigned int *in, \
unsigned int *out, unsigned long long n)\n\
{\n    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n    \
if (i < n)\n        out[i] = in[i];\n}\n";

/// Threads per block of the copy kernel.
const COPY_BLOCK: u32 = 256;

/// The copy kernel `out[i] = in[i]` compiled by NVRTC and loaded on a CUDA device, its buffers
/// allocated and warmed up, to be timed one event-timed launch at a time: the CUDA counterpart
/// of `runtime::run::CopyTimer` (`accshare bench` times it in turn with the kernels it is the
/// yardstick of).
pub struct CudaCopyTimer {
    stream: Arc<CudaStream>,
    function: CudaFunction,
    input: CudaSlice<u32>,
    output: CudaSlice<u32>,
    n: u64,
    // The module the function is in, kept loaded.
    _module: Arc<CudaModule>,
}

impl CudaCopyTimer {
    /// The copy of `bytes` bytes (`bytes / 8` words read and as many written) on `cuda:index`,
    /// after one untimed launch.
    pub fn new(index: usize, bytes: u64) -> Result<CudaCopyTimer, CudaRunError> {
        guarded(|| {
            let ctx = context(index)?;
            let module = load(&ctx, COPY_KERNEL, &[])?;
            let function = module
                .load_function("accshare_copy")
                .map_err(|e| driver_failed("cuModuleGetFunction `accshare_copy`", e))?;
            let stream = ctx.default_stream();
            let n = (bytes / 8).max(1);
            let len = usize::try_from(n).map_err(|_| CudaRunError::Driver {
                call: "cuMemAlloc".into(),
                error: format!("{} words do not fit this host's address space", n),
            })?;
            let input = stream
                .alloc_zeros::<u32>(len)
                .map_err(|e| driver_failed("cuMemAlloc", e))?;
            let output = stream
                .alloc_zeros::<u32>(len)
                .map_err(|e| driver_failed("cuMemAlloc", e))?;
            let mut c = CudaCopyTimer {
                stream,
                function,
                input,
                output,
                n,
                _module: module,
            };
            c.launch(false)?;
            Ok(c)
        })
    }

    /// One launch between two events, behind a [`StreamGate`] where `gated` (not the first,
    /// which may load the function); its seconds.
    fn launch(&mut self, gated: bool) -> Result<f64, CudaRunError> {
        let blocks = self.n.div_ceil(u64::from(COPY_BLOCK));
        let blocks = u32::try_from(blocks).map_err(|_| CudaRunError::Driver {
            call: "cuLaunchKernel `accshare_copy`".into(),
            error: format!("{} blocks exceed the grid", blocks),
        })?;
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (COPY_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut builder = self.stream.launch_builder(&self.function);
        builder
            .arg(&self.input)
            .arg(&mut self.output)
            .arg(&self.n)
            .record_kernel_launch(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let events = {
            let _gate = gated.then(|| StreamGate::hold(&self.stream));
            // SAFETY: two device arrays of `n` words and `n`, the kernel's parameters; the grid
            // covers `n` threads and the kernel tests `i < n`.
            unsafe { builder.launch(cfg) }
        }
        .map_err(|e| driver_failed("cuLaunchKernel `accshare_copy`", e))?;
        self.stream
            .synchronize()
            .map_err(|e| driver_failed("the copy kernel", e))?;
        let (start, end) = events.ok_or_else(|| CudaRunError::Driver {
            call: "the copy kernel".into(),
            error: "no events recorded".into(),
        })?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| driver_failed("cuEventElapsedTime", e))?;
        Ok(f64::from(ms) * 1e-3)
    }

    /// One event-timed launch of the copy, seconds.
    pub fn time(&mut self) -> Result<f64, String> {
        catch_unwind(AssertUnwindSafe(|| self.launch(true)))
            .unwrap_or_else(|_| {
                Err(CudaRunError::Driver {
                    call: "the copy kernel".into(),
                    error: "the CUDA driver panicked".into(),
                })
            })
            .map_err(|e| e.to_string())
    }
}

impl Launcher for CudaLauncher {
    fn name(&self) -> String {
        DeviceName::Cuda(self.index).to_string()
    }

    fn launch(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let plan = plan_launch(m, launch, arrays, scalar, extent, self.units)?;
        catch_unwind(AssertUnwindSafe(|| self.run(&plan, arrays))).unwrap_or_else(|_| {
            Err(LaunchError::Cuda {
                call: format!("kernel `{}`", plan.function),
                error: "the CUDA driver panicked".into(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate's host function waits for the flag another thread sets, gives up after its
    /// limit, and drops the reference it was given.
    #[test]
    fn the_stream_gate_waits_for_its_release_and_no_longer_than_its_limit() {
        let go = Arc::new(AtomicBool::new(false));
        let setter = {
            let go = go.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                go.store(true, Ordering::Release);
            })
        };
        assert!(wait_for(&go, Duration::from_secs(5)));
        setter.join().unwrap();
        assert!(!wait_for(
            &AtomicBool::new(false),
            Duration::from_millis(10)
        ));
        // As the driver calls it: the reference `hold` gives up is dropped.
        let user = Arc::into_raw(go.clone()) as *mut std::ffi::c_void;
        assert_eq!(Arc::strong_count(&go), 2);
        // SAFETY: `user` is a reference to `go` given up by `Arc::into_raw`, as in `hold`.
        unsafe { gate_host(user) };
        assert_eq!(Arc::strong_count(&go), 1);
    }

    #[test]
    fn scalars_take_the_size_of_the_kernels_parameter_types() {
        for (ty, raw, want) in [
            (Scalar::Bool, 1, CudaScalar::U8(1)),
            (Scalar::Char, 0xff, CudaScalar::I8(-1)),
            (Scalar::UShort, 0xffff, CudaScalar::U16(65535)),
            (Scalar::Int, (-3i64) as u64, CudaScalar::I32(-3)),
            (Scalar::UInt, 5, CudaScalar::U32(5)),
            (Scalar::Long, (-7i64) as u64, CudaScalar::I64(-7)),
            (Scalar::SizeT, 9, CudaScalar::U64(9)),
            (
                Scalar::Float,
                u64::from(0.75f32.to_bits()),
                CudaScalar::F32(0.75),
            ),
            (Scalar::Double, 2.5f64.to_bits(), CudaScalar::F64(2.5)),
        ] {
            let v = CudaScalar::from_raw(ty, raw);
            assert_eq!(v, want, "{ty:?}");
            assert_eq!(v.size(), ty.size() as usize, "{ty:?}");
        }
    }

    /// An H100 as the driver describes it: described like an OpenCL GPU, named `cuda:0`, and
    /// keyed in the tune cache apart from the same GPU under NVIDIA's OpenCL (`NVIDIA CUDA`).
    #[test]
    fn a_cuda_device_is_described_and_keyed_by_its_facts() {
        let f = DeviceFacts {
            name: "NVIDIA H100 80GB HBM3".into(),
            vendor: "NVIDIA Corporation".into(),
            platform: PLATFORM.into(),
            kind: DeviceKind::Gpu,
            compute_units: 132,
            max_work_group: 1024,
            max_items: vec![1024, 1024, 64],
            clock_mhz: 1980,
            local_mem: 49152,
            local_mem_kind: LocalMemKind::Local,
            cacheline: 128,
            host_unified_memory: false,
            warp_nv: 32,
            wavefront_amd: 0,
        };
        let p = platform_of(0, &f).unwrap();
        assert_eq!((p.name.as_str(), p.source.as_str()), ("cuda:0", "cuda:0"));
        assert_eq!((p.warp_size, p.sm_count, p.sector_bytes), (32, 132, 32));
        assert_eq!(p.max_threads_per_block, 1024);
        assert!(p
            .description
            .starts_with("NVIDIA H100 80GB HBM3 (CUDA device 0, queried"));
        use crate::runtime::tune::cache::device_key;
        let opencl = DeviceFacts {
            platform: "NVIDIA CUDA".into(),
            ..f.clone()
        };
        assert_eq!(device_key(&f), "CUDA driver / NVIDIA H100 80GB HBM3");
        assert_ne!(device_key(&f), device_key(&opencl));
    }

    /// The copy kernel compiles with NVRTC (where NVRTC is installed) to a PTX entry of its name.
    #[test]
    fn the_copy_kernel_compiles() {
        match nvrtc::compile_cuda(COPY_KERNEL, "compute_90") {
            Ok(CompileOutcome::Compiled { ptx, log }) => {
                assert!(ptx.contains(".entry accshare_copy"), "{ptx}");
                assert_eq!(log, "");
            }
            Ok(CompileOutcome::Skipped(why)) => eprintln!("SKIP: {why}"),
            other => panic!("{other:?}"),
        }
    }

    /// Without a driver (this machine), opening a device is an error, never a panic.
    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if driver_present() {
            eprintln!("SKIP: a CUDA driver is present");
            return;
        }
        let e = CudaLauncher::new(0, "", &[]).err().expect("no driver");
        assert_eq!(e, CudaRunError::NoDriver);
        assert_eq!(
            CudaCopyTimer::new(0, 1 << 20).err().expect("no driver"),
            CudaRunError::NoDriver
        );
        assert_eq!(facts(0).err(), Some(CudaRunError::NoDriver));
        assert_eq!(device_count(), 0);
        assert!(
            e.to_string().starts_with("no CUDA driver on this machine"),
            "{e}"
        );
    }
}
