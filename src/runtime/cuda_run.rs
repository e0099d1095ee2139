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

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::front::ast::Scalar;
use crate::kernel::{Launch, Module};
use crate::model::device::DeviceName;
use crate::runtime::args::{self, Arg};
use crate::runtime::nvrtc::{self, CompileOutcome};
use crate::sim::trace::{LaunchError, Launched, Launcher};
use crate::sim::{ArgValue, BufData};

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

/// Plans `launch` of module `m` on the host data a replay gives (`arrays` by the user's names,
/// `scalar(i, ty)` the value of argument `i`, `extent` the work-items per dimension).
pub fn plan_launch(
    m: &Module,
    launch: &Launch,
    arrays: &BTreeMap<String, BufData>,
    scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
    extent: [u64; 3],
) -> Result<CudaLaunchPlan, LaunchError> {
    let r = args::resolve(m, launch, arrays, scalar, extent)?;
    let k = r.kernel;
    let dims = usize::from(k.dims.clamp(1, 3));
    let mut grid = [1u32; 3];
    let mut block = [1u32; 3];
    for d in 0..dims {
        grid[d] = r.grid[d];
        block[d] = k.block[d].max(1);
    }
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
                    data: data.into_owned(),
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
                 only on a machine with an NVIDIA GPU and its driver (use `--device sim` or \
                 `--device opencl:N` here)"
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

/// The module's kernels compiled and loaded on `cuda:index`, ready to launch.
pub struct CudaLauncher {
    index: usize,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    functions: BTreeMap<String, CudaFunction>,
}

impl CudaLauncher {
    /// Compiles `source` (the module printed by `back::cuda`) with NVRTC for the compute
    /// capability of `cuda:index` (`extra`: more NVRTC options, `--fmad=false`) and loads it.
    pub fn new(index: usize, source: &str, extra: &[&str]) -> Result<CudaLauncher, CudaRunError> {
        if !driver_present() {
            return Err(CudaRunError::NoDriver);
        }
        catch_unwind(AssertUnwindSafe(|| Self::open(index, source, extra))).unwrap_or_else(|_| {
            Err(CudaRunError::Driver {
                call: "the CUDA driver".into(),
                error: "panicked".into(),
            })
        })
    }

    fn open(index: usize, source: &str, extra: &[&str]) -> Result<CudaLauncher, CudaRunError> {
        let count =
            CudaContext::device_count().map_err(|e| driver_failed("cuDeviceGetCount", e))?;
        let count = count.max(0) as usize;
        if index >= count {
            return Err(CudaRunError::NoDevice { index, count });
        }
        let ctx = CudaContext::new(index).map_err(|e| driver_failed("cuCtxCreate", e))?;
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
        let module = ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| driver_failed("cuModuleLoadData", e))?;
        Ok(CudaLauncher {
            index,
            stream: ctx.default_stream(),
            module,
            functions: BTreeMap::new(),
        })
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
                    let mut bytes = data.to_le_bytes();
                    if bytes.is_empty() {
                        bytes.push(0);
                    }
                    Some(
                        stream
                            .clone_htod(&bytes)
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
        let seconds = events
            .and_then(|(start, end)| start.elapsed_ms(&end).ok())
            .map(|ms| f64::from(ms) * 1e-3);
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
        Ok(out)
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
        let plan = plan_launch(m, launch, arrays, scalar, extent)?;
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

    /// Without a driver (this machine), opening a device is an error, never a panic.
    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if driver_present() {
            eprintln!("SKIP: a CUDA driver is present");
            return;
        }
        let e = CudaLauncher::new(0, "", &[]).err().expect("no driver");
        assert_eq!(e, CudaRunError::NoDriver);
        assert!(
            e.to_string().starts_with("no CUDA driver on this machine"),
            "{e}"
        );
    }
}
