//! `accshare run --device opencl:N`: every region instance of a program replayed with its
//! kernels executed on an OpenCL device, in-process through `opencl3`.
//!
//! The program is built once with the instrumentation `sim::trace` writes (every region's inputs
//! and outputs as the sequential program computes them); each launch then runs on the device
//! from those inputs, timed by its profiling event, and the arrays and reductions it leaves are
//! compared with the sequential ones (`sim::trace::replay_with`, the simulator's replay with a
//! device as the launcher).

use std::collections::BTreeMap;
use std::fmt;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;

use crate::kernel::{Launch, Module};
use crate::model::device::{self, DeviceError};
use crate::runtime::args::{self, Arg};
use crate::sim::trace::{LaunchError, Launched, Launcher};
use crate::sim::{ArgValue, BufData};
use crate::vocab::Scalar;

/// Why a program's kernels cannot run on the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// No such device, or an OpenCL call failed.
    Device(DeviceError),
    /// The kernels do not build on the device (its build log).
    Build(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Device(e) => write!(f, "{}", e),
            RunError::Build(log) => write!(f, "the kernels do not build on the device: {}", log),
        }
    }
}

/// The error of a failed OpenCL call: `call` as printed, and the name of `code`.
fn cl_failed(call: impl Into<String>, code: i32) -> LaunchError {
    LaunchError::Cl {
        call: call.into(),
        error: device::cl_error_name(code),
    }
}

/// The module's kernels built on `opencl:index`, ready to launch.
pub struct OpenClLauncher {
    index: usize,
    context: Context,
    queue: CommandQueue,
    program: Program,
    /// Time a second launch on the buffers the first one left ([`Self::timing_resident`]).
    resident: bool,
    /// The device's compute units (the grid of a grid-stride kernel).
    units: u32,
}

impl OpenClLauncher {
    /// Builds `source` (the module printed by `back::opencl`) on `opencl:index`.
    pub fn new(index: usize, source: &str) -> Result<OpenClLauncher, RunError> {
        let dev = device::opencl_device(index).map_err(RunError::Device)?;
        let context = Context::from_device(&dev.device)
            .map_err(|e| RunError::Device(DeviceError::from_code("clCreateContext", e.0)))?;
        let queue =
            CommandQueue::create_default_with_properties(&context, CL_QUEUE_PROFILING_ENABLE, 0)
                .map_err(|e| {
                    RunError::Device(DeviceError::from_code("clCreateCommandQueue", e.0))
                })?;
        let program = Program::create_and_build_from_source(
            &context,
            source,
            super::clbuild::DEFAULT_OPTIONS,
        )
        .map_err(RunError::Build)?;
        let units = dev.device.max_compute_units().unwrap_or(1).max(1);
        Ok(OpenClLauncher {
            index,
            context,
            queue,
            program,
            resident: false,
            units,
        })
    }

    /// Reports the time of a second launch of each kernel, on the buffers the first launch
    /// used, instead of the first's. A buffer made for a launch is resident on the device only
    /// once a command has used it: PoCL, for one, moves a new buffer's contents in as part of
    /// the first kernel that reads it, and its profiling event counts that copy (mv 4096² on
    /// the CPU device: 17 ms the first time, several times less the second). A kernel compiled
    /// into a program finds its arrays resident (they are copied in, or shared, before the
    /// region), so the second launch is the one to time. The results of each launch are read
    /// after the first: the second may update in place.
    pub fn timing_resident(mut self) -> OpenClLauncher {
        self.resident = true;
        self
    }

    /// Enqueues `kernel` over `global` work-items in groups of `local`, waits for it and gives
    /// its event-timed seconds (`None` without profiling times).
    fn enqueue(
        &self,
        kernel: &Kernel,
        name: &str,
        global: &[usize],
        local: &[usize],
    ) -> Result<Option<f64>, LaunchError> {
        // SAFETY: every argument is set; the sizes hold `global.len()` entries each.
        let event = unsafe {
            self.queue.enqueue_nd_range_kernel(
                kernel.get(),
                global.len() as u32,
                std::ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                &[],
            )
        }
        .map_err(|e| cl_failed(format!("clEnqueueNDRangeKernel `{}`", name), e.0))?;
        event
            .wait()
            .map_err(|e| cl_failed(format!("kernel `{}`", name), e.0))?;
        Ok(
            match (
                event.profiling_command_start(),
                event.profiling_command_end(),
            ) {
                (Ok(a), Ok(b)) if b >= a => Some((b - a) as f64 * 1e-9),
                _ => None,
            },
        )
    }

    /// A buffer holding `data`; with `words` (a kernel updates it with `char` or `short`
    /// atomics, a compare-and-swap on the 32-bit word holding the element) allocated in whole
    /// words ([`crate::back::host::word_alloc_bytes`]).
    fn buffer(&self, data: &BufData, words: bool) -> Result<Buffer<u8>, LaunchError> {
        // The array's own memory where it can be (no copy of hundreds of megabytes per
        // replay); a padded copy for word-wide atomics or an empty array.
        let mut bytes = data.le_bytes();
        let len = bytes.len();
        if words || len == 0 {
            let padded = if words {
                crate::back::host::word_alloc_bytes(len)
            } else {
                len
            };
            bytes.to_mut().resize(padded.max(1), 0);
        }
        // SAFETY: the host pointer is valid for `bytes.len()` bytes and only read during the
        // call (`CL_MEM_COPY_HOST_PTR`).
        unsafe {
            Buffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                bytes.len(),
                // Read only (`CL_MEM_COPY_HOST_PTR`): the API takes a mutable pointer.
                bytes.as_ptr().cast_mut().cast(),
            )
        }
        .map_err(|e| cl_failed("clCreateBuffer", e.0))
    }

    fn read(&self, buf: &Buffer<u8>, len: usize, elem: Scalar) -> Result<BufData, LaunchError> {
        let mut bytes = vec![0u8; len * elem.size() as usize];
        if !bytes.is_empty() {
            // SAFETY: `bytes` is as long as the buffer's contents; the read is blocking.
            unsafe {
                self.queue
                    .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut bytes, &[])
                    .map_err(|e| cl_failed("clEnqueueReadBuffer", e.0))?;
            }
        }
        BufData::from_le_bytes(elem, &bytes).ok_or(LaunchError::TruncatedBuffer)
    }
}

/// The copy kernel of [`CopyTimer`]: one 32-bit word per work-item.
const COPY_KERNEL: &str =
    "__kernel void accshare_copy(__global const uint *in, __global uint *out, ulong n)\n\
{\n    size_t i = get_global_id(0);\n    if (i < n)\n        out[i] = in[i];\n}\n";

/// The copy kernel `out[i] = in[i]` built on a device, its buffers made and warmed up, to be
/// timed one event-timed launch at a time: `bytes / seconds` is the device's copy bandwidth at
/// that size (`accshare bench` times it in turn with the kernels it is the yardstick of).
pub struct CopyTimer {
    launcher: OpenClLauncher,
    kernel: Kernel,
    global: usize,
    // The buffers the kernel's arguments name, kept alive.
    _buffers: [Buffer<u8>; 2],
}

impl CopyTimer {
    /// The copy of `bytes` bytes (`bytes / 8` words read and as many written) on
    /// `opencl:index`, after one untimed launch.
    pub fn new(index: usize, bytes: u64) -> Result<CopyTimer, String> {
        let l = OpenClLauncher::new(index, COPY_KERNEL).map_err(|e| e.to_string())?;
        let n = (bytes / 8).max(1) as usize;
        let input = l
            .buffer(&BufData::zeroed(Scalar::UInt, n), false)
            .map_err(|e| e.to_string())?;
        let output = l
            .buffer(&BufData::zeroed(Scalar::UInt, n), false)
            .map_err(|e| e.to_string())?;
        let kernel = Kernel::create(&l.program, "accshare_copy")
            .map_err(|e| format!("clCreateKernel: {}", device::cl_error_name(e.0)))?;
        // SAFETY: two buffer objects and a `ulong`, the kernel's parameters.
        unsafe {
            kernel
                .set_arg(0, &input.get())
                .and_then(|()| kernel.set_arg(1, &output.get()))
                .and_then(|()| kernel.set_arg(2, &(n as u64)))
        }
        .map_err(|e| format!("clSetKernelArg: {}", device::cl_error_name(e.0)))?;
        let mut c = CopyTimer {
            launcher: l,
            kernel,
            global: n.div_ceil(COPY_LOCAL) * COPY_LOCAL,
            _buffers: [input, output],
        };
        c.time()?;
        Ok(c)
    }

    /// One event-timed launch of the copy, seconds.
    pub fn time(&mut self) -> Result<f64, String> {
        // SAFETY: every argument is set; one dimension.
        let event = unsafe {
            self.launcher.queue.enqueue_nd_range_kernel(
                self.kernel.get(),
                1,
                std::ptr::null(),
                &self.global,
                &COPY_LOCAL,
                &[],
            )
        }
        .map_err(|e| format!("clEnqueueNDRangeKernel: {}", device::cl_error_name(e.0)))?;
        event
            .wait()
            .map_err(|e| format!("the copy kernel: {}", device::cl_error_name(e.0)))?;
        match (
            event.profiling_command_start(),
            event.profiling_command_end(),
        ) {
            (Ok(a), Ok(b)) if b >= a => Ok((b - a) as f64 * 1e-9),
            _ => Err("the copy kernel has no profiling times".to_string()),
        }
    }
}

/// Work-items per work-group of the copy kernel.
const COPY_LOCAL: usize = 256;

/// Sets argument `i` of `kernel` to a scalar of type `ty` (the value in the simulator's raw
/// representation of `ty`, as `host::raw_from_f64` makes it).
fn set_scalar(kernel: &Kernel, i: u32, ty: Scalar, raw: u64) -> Result<(), LaunchError> {
    // SAFETY: each value is of the size of the parameter's OpenCL type (LP64 host types).
    let r = unsafe {
        match ty {
            Scalar::Bool | Scalar::UChar => kernel.set_arg(i, &(raw as u8)),
            Scalar::Char | Scalar::SChar => kernel.set_arg(i, &(raw as i8)),
            Scalar::Short => kernel.set_arg(i, &(raw as i16)),
            Scalar::UShort => kernel.set_arg(i, &(raw as u16)),
            Scalar::Int => kernel.set_arg(i, &(raw as i32)),
            Scalar::UInt => kernel.set_arg(i, &(raw as u32)),
            Scalar::Long | Scalar::LongLong => kernel.set_arg(i, &(raw as i64)),
            Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => kernel.set_arg(i, &raw),
            Scalar::Float => kernel.set_arg(i, &f32::from_bits(raw as u32)),
            Scalar::Double => kernel.set_arg(i, &f64::from_bits(raw)),
        }
    };
    r.map_err(|e| cl_failed(format!("clSetKernelArg {}", i), e.0))
}

/// A buffer made for a launch argument: its element type and length, and the user array it is
/// read back into when the kernel writes it.
struct Made {
    buf: Buffer<u8>,
    elem: Scalar,
    len: usize,
    write_back: Option<String>,
}

impl Launcher for OpenClLauncher {
    fn name(&self) -> String {
        format!("opencl:{}", self.index)
    }

    fn launch(
        &mut self,
        m: &Module,
        launch: &Launch,
        arrays: &mut BTreeMap<String, BufData>,
        scalar: &dyn Fn(usize, Scalar) -> Option<ArgValue>,
        extent: [u64; 3],
    ) -> Result<Launched, LaunchError> {
        let r = args::resolve(m, launch, arrays, scalar, extent, self.units)?;
        let k = r.kernel;
        let grid = r.grid;
        let kernel = Kernel::create(&self.program, &k.name)
            .map_err(|e| cl_failed(format!("clCreateKernel `{}`", k.name), e.0))?;
        // Per argument, the buffer made for it; `None` for scalars.
        let mut made: Vec<Option<Made>> = Vec::new();
        let mut arg = 0u32;
        let narrow = crate::back::host::narrow_atomic_params(k);
        for (a, p) in r.args.into_iter().zip(&k.params) {
            match a {
                Arg::Scalar { ty, raw } => {
                    set_scalar(&kernel, arg, ty, raw)?;
                    arg += 1;
                    made.push(None);
                }
                Arg::Buffer {
                    elem,
                    data,
                    write_back,
                } => {
                    let buf = self.buffer(&data, narrow.contains(&p.name))?;
                    // SAFETY: the argument is a buffer object, then its `long` element offset.
                    unsafe {
                        kernel
                            .set_arg(arg, &buf.get())
                            .and_then(|()| kernel.set_arg(arg + 1, &0i64))
                    }
                    .map_err(|e| cl_failed(format!("clSetKernelArg {}", arg), e.0))?;
                    arg += 2;
                    made.push(Some(Made {
                        buf,
                        elem,
                        len: data.len(),
                        write_back,
                    }));
                }
            }
        }
        let partials = r.partials;
        let last_values = r.last_values;
        let dims = usize::from(k.dims.clamp(1, 3));
        let local: Vec<usize> = (0..dims).map(|d| k.block[d].max(1) as usize).collect();
        let global: Vec<usize> = (0..dims).map(|d| grid[d] as usize * local[d]).collect();
        let name = k.name.clone();
        let seconds = self.enqueue(&kernel, &name, &global, &local)?;
        let mut out = Launched {
            partials: Vec::new(),
            last_values: Vec::new(),
            run: None,
            seconds,
        };
        for (var, slot) in partials {
            let Some(Some(b)) = made.get(slot) else {
                return Err(LaunchError::TruncatedBuffer);
            };
            out.partials.push((var, self.read(&b.buf, b.len, b.elem)?));
        }
        for (var, slot) in last_values {
            let Some(Some(b)) = made.get(slot) else {
                return Err(LaunchError::TruncatedBuffer);
            };
            out.last_values
                .push((var, self.read(&b.buf, b.len, b.elem)?));
        }
        // The arrays the kernel writes come back.
        for b in made.iter().flatten() {
            if let Some(name) = &b.write_back {
                let data = self.read(&b.buf, b.len, b.elem)?;
                arrays.insert(name.clone(), data);
            }
        }
        if self.resident {
            out.seconds = self.enqueue(&kernel, &name, &global, &local)?;
        }
        Ok(out)
    }
}
