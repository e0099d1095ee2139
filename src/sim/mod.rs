//! The SIMT simulator: an executor for the kernel IR with GPU semantics, the memory model that
//! counts what a GPU's memory system would see, and a race and bounds checker.
//!
//! - [`run_kernel`] interprets one launch of a [`Kernel`](crate::kernel::Kernel): a grid of
//!   blocks, blocks of threads in warps of the platform's size, lock-step execution with active
//!   masks (divergent `if`, loops whose threads leave at different iterations, `break` and
//!   `continue`), barriers, shared memory per block, private registers and arrays, and the
//!   arithmetic of OpenCL C (see [`value`]). The kernel is first compiled to a typed tree with
//!   resolved slots ([`exec`]); a whole block is then evaluated one node at a time over all its
//!   threads, so dispatch costs once per node per block, not per thread. Blocks run in parallel
//!   on `std::thread::scope` workers.
//! - Memory model ([`memory`]): every `ArrayRef` occurrence of a kernel is a static memory
//!   instruction ([`AccessInfo`], [`crate::kernel::access`], numbered in the pre-order of the kernel body, an assignment's
//!   target before its value). Each execution by a warp is one request: for global memory the
//!   distinct sectors and lines touched against the minimum for the bytes requested; for shared
//!   memory the bank-conflict degree (distinct words in the busiest bank; the same word read by
//!   several lanes is a broadcast, not a conflict).
//! - Caches ([`cache`]): each block records its sector stream; after the launch the streams are
//!   replayed through per-SM L1s and an L2 in a fixed order (deterministic whatever the
//!   workers), giving the L1 hits, L2 sectors and DRAM sectors the time estimate uses.
//! - Checker (`SimOptions::check`): out-of-bounds accesses, shared and global races, barriers
//!   reached by part of a block, uninitialized shared reads ([`Finding`]).
//! - The static coalescing lint is an analysis of the kernel IR ([`crate::kernel::lint`]);
//!   [`memory::dynamic_verdict`] gives the verdict the simulator's counts agree with.
//!
//! Lock-step execution of a whole block (all its warps advance statement by statement together)
//! is one legal interleaving of the warps; kernels whose result depends on the interleaving have
//! a race, which the checker reports.

pub mod cache;
pub mod channel;
pub mod exec;
pub mod host;
pub mod memory;
pub mod trace;
pub mod undefined;
pub mod value;

pub use exec::run_kernel;
pub use memory::{analyze, AccessStats, KernelReport, Report};

pub use crate::kernel::access::{AccessInfo, AccessKind};
use crate::kernel::Space;
use crate::vocab::Scalar;

/// The hardware parameters the simulator needs. Connected later to `platforms/*.toml`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimPlatform {
    pub name: String,
    /// Threads per warp (wavefront).
    pub warp: u32,
    /// Shared-memory banks and the width of one bank in bytes.
    pub banks: u32,
    pub bank_width: u32,
    /// Lanes whose shared-memory accesses the banks serve together (the whole warp on NVIDIA;
    /// half a 64-wide wavefront on AMD GCN/CDNA).
    pub shared_lanes: u32,
    /// Global-memory sector (the transaction unit) and cache line, in bytes.
    pub sector: u32,
    pub line: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    /// Shared memory per multiprocessor, bytes.
    pub shared_per_sm: u32,
    /// The register file of a multiprocessor, a fourth limit of the occupancy; `None` where
    /// registers do not limit it (CPU devices: local memory in global memory, no register file
    /// shared by the work-items).
    pub registers: Option<crate::model::platform::RegisterFile>,
    pub sms: u32,
    /// DRAM bandwidth (GB/s) and peak arithmetic (GFLOP/s) for the time estimate.
    pub bandwidth_gbs: f64,
    pub gflops: f64,
    /// Core clock, MHz (the issue, shared-memory and latency terms of the estimate).
    pub clock_mhz: f64,
    /// The caches global requests are replayed through ([`cache`]); none by default.
    pub cache: crate::model::platform::Caches,
    /// The rates of the time estimate ([`memory`]).
    pub timing: crate::model::platform::Timing,
    /// The address → memory channel map ([`channel`]); `None`: no channel model.
    pub channels: Option<crate::model::platform::Channels>,
}

impl SimPlatform {
    /// An NVIDIA GPU of the Volta/Ampere generation (V100-like numbers).
    pub fn nvidia() -> Self {
        SimPlatform {
            name: "nvidia".to_string(),
            warp: 32,
            banks: 32,
            bank_width: 4,
            shared_lanes: 32,
            sector: 32,
            line: 128,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            shared_per_sm: 96 * 1024,
            // 64 K registers per SM, 255 per thread, 256 per warp (CC 7.0).
            registers: Some(crate::model::platform::RegisterFile {
                per_sm: 65536,
                max_per_thread: 255,
                alloc_unit: 8,
            }),
            sms: 80,
            bandwidth_gbs: 900.0,
            gflops: 15700.0,
            clock_mhz: 1530.0,
            cache: Default::default(),
            timing: Default::default(),
            channels: None,
        }
    }

    /// An AMD CDNA GPU (MI100-like numbers): 64-wide wavefronts, 32 LDS banks of 4 bytes,
    /// 64-byte transactions.
    /// The simulator's view of a platform description (`platforms/*.toml`). Peak arithmetic
    /// is `timing.fma_lanes` (default 64) fused multiply-adds per SM per clock, used only by
    /// the time estimate.
    pub fn from_platform(p: &crate::model::Platform) -> Self {
        SimPlatform {
            name: p.name.clone(),
            warp: p.warp_size.max(1),
            banks: p.banks.max(1),
            bank_width: p.bank_width.max(1),
            shared_lanes: p.shared_lanes.max(1),
            sector: p.sector_bytes.max(1),
            line: p.transaction_bytes.max(1),
            max_threads_per_block: p.max_threads_per_block.max(1),
            max_threads_per_sm: p.max_threads_per_sm.max(1),
            max_blocks_per_sm: p.max_blocks_per_sm.max(1),
            shared_per_sm: p.smem_per_sm as u32,
            // A CPU device's registers per "SM" are nominal (`platforms/pocl-cpu.toml`).
            registers: (p.local_memory == crate::model::platform::LocalMemory::Dedicated)
                .then(|| p.register_file()),
            sms: p.sm_count.max(1),
            bandwidth_gbs: p.bandwidth_gbs,
            gflops: p.sm_count as f64 * p.clock_mhz as f64 * 2.0 * p.timing.fma_lanes as f64
                / 1000.0,
            clock_mhz: p.clock_mhz.max(1) as f64,
            cache: p.cache.clone(),
            timing: p.timing.clone(),
            channels: p.channels.clone(),
        }
    }

    pub fn amd_cdna() -> Self {
        SimPlatform {
            name: "amd-cdna".to_string(),
            warp: 64,
            banks: 32,
            bank_width: 4,
            shared_lanes: 32,
            sector: 64,
            line: 128,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2560,
            max_blocks_per_sm: 32,
            shared_per_sm: 64 * 1024,
            // 4 SIMDs × 256 VGPRs × 64 lanes per CU (the accumulation VGPRs aside), 256 per
            // work-item, allocated in granules of 4 (gfx908).
            registers: Some(crate::model::platform::RegisterFile {
                per_sm: 65536,
                max_per_thread: 256,
                alloc_unit: 4,
            }),
            sms: 120,
            bandwidth_gbs: 1228.0,
            gflops: 23100.0,
            clock_mhz: 1502.0,
            cache: Default::default(),
            timing: Default::default(),
            channels: None,
        }
    }
}

impl SimPlatform {
    /// What limits the blocks resident on a multiprocessor.
    pub fn sm_limits(&self) -> crate::model::platform::SmLimits {
        crate::model::platform::SmLimits {
            warp: self.warp,
            max_threads: self.max_threads_per_sm,
            max_blocks: self.max_blocks_per_sm,
            shared_bytes: self.shared_per_sm as u64,
            registers: self.registers,
        }
    }

    /// The occupancy of blocks of `threads` threads using `shared_bytes` of shared memory and
    /// `registers` 32-bit registers per thread each: the blocks an SM holds at once, limited by
    /// threads, blocks, shared memory and registers per SM, and which of them limits
    /// ([`crate::model::platform::SmLimits::occupancy`], the model's arithmetic). Without a
    /// register count (`None`: a kernel not built from a schedule, no measured count) or a
    /// register file (CPU devices), registers do not limit.
    pub fn occupancy(
        &self,
        threads: u32,
        shared_bytes: u32,
        registers: Option<u32>,
    ) -> crate::model::platform::Occupancy {
        self.sm_limits()
            .occupancy(threads.max(1) as u64, shared_bytes as u64, registers)
    }

    /// The resident blocks of [`Self::occupancy`].
    pub fn blocks_per_sm(&self, threads: u32, shared_bytes: u32, registers: Option<u32>) -> u32 {
        self.occupancy(threads, shared_bytes, registers)
            .blocks
            .min(u32::MAX as u64) as u32
    }
}

/// The memory geometry the coalescing lint classifies accesses against.
impl From<&SimPlatform> for crate::model::WarpMemory {
    fn from(p: &SimPlatform) -> Self {
        crate::model::WarpMemory {
            warp: p.warp,
            sector: p.sector,
            line: p.line,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Run the checker (races, uninitialized shared reads, and keep going after out-of-bounds
    /// accesses and partial barriers, reporting them as findings). Check mode runs the blocks
    /// one after the other so that the findings are deterministic.
    pub check: bool,
    /// Simulate only about this many blocks and scale the counts to the whole grid: a lattice
    /// over the grid's dimensions that holds each dimension's first and last blocks (where
    /// guards cut warps) and evenly spaced interior ones, each block's counts weighted by the
    /// blocks it stands for. Output buffers are then only partly computed.
    pub sample_blocks: Option<usize>,
    /// Worker threads (default: the machine's parallelism).
    pub threads: Option<usize>,
    /// At most this many findings of each kind per static access are kept.
    pub max_findings: usize,
    /// Loop iterations (of whole blocks) after which a block is stopped and the launch fails:
    /// a guard against kernels that never terminate.
    pub max_iterations: u64,
    /// Registers per work-item measured for a kernel (by name; e.g. `ptxas -v` in a test),
    /// replacing the schedule's estimate (`Kernel::registers`) in the occupancy. The compiler
    /// never measures them.
    pub measured_registers: std::collections::BTreeMap<String, u32>,
    /// Under the checker: per buffer (index into the launch's buffers), the elements whose
    /// device copy nothing defined before the launch (no copy in, no kernel wrote them: a
    /// `copyout` or `create` array). A kernel's read of one it has not written is reported
    /// ([`FindingKind::UndefinedGlobal`]); [`RunResult::undefined`] says which still are after.
    pub undefined: std::collections::BTreeMap<usize, Vec<bool>>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            check: false,
            sample_blocks: None,
            threads: None,
            max_findings: 4,
            max_iterations: 1 << 32,
            measured_registers: Default::default(),
            undefined: Default::default(),
        }
    }
}

/// A device buffer's contents, typed by its element type.
#[derive(Clone, Debug, PartialEq)]
pub enum BufData {
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl BufData {
    /// A zeroed buffer of `n` elements of `elem`.
    pub fn zeroed(elem: Scalar, n: usize) -> BufData {
        match elem {
            Scalar::Bool | Scalar::UChar => BufData::U8(vec![0; n]),
            Scalar::Char | Scalar::SChar => BufData::I8(vec![0; n]),
            Scalar::Short => BufData::I16(vec![0; n]),
            Scalar::UShort => BufData::U16(vec![0; n]),
            Scalar::Int => BufData::I32(vec![0; n]),
            Scalar::UInt => BufData::U32(vec![0; n]),
            Scalar::Long | Scalar::LongLong => BufData::I64(vec![0; n]),
            Scalar::ULong | Scalar::ULongLong | Scalar::SizeT => BufData::U64(vec![0; n]),
            Scalar::Float => BufData::F32(vec![0.0; n]),
            Scalar::Double => BufData::F64(vec![0.0; n]),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            BufData::I8(v) => v.len(),
            BufData::U8(v) => v.len(),
            BufData::I16(v) => v.len(),
            BufData::U16(v) => v.len(),
            BufData::I32(v) => v.len(),
            BufData::U32(v) => v.len(),
            BufData::I64(v) => v.len(),
            BufData::U64(v) => v.len(),
            BufData::F32(v) => v.len(),
            BufData::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as f64 (for comparisons and printing).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        Some(match self {
            BufData::I8(v) => *v.get(i)? as f64,
            BufData::U8(v) => *v.get(i)? as f64,
            BufData::I16(v) => *v.get(i)? as f64,
            BufData::U16(v) => *v.get(i)? as f64,
            BufData::I32(v) => *v.get(i)? as f64,
            BufData::U32(v) => *v.get(i)? as f64,
            BufData::I64(v) => *v.get(i)? as f64,
            BufData::U64(v) => *v.get(i)? as f64,
            BufData::F32(v) => *v.get(i)? as f64,
            BufData::F64(v) => *v.get(i)?,
        })
    }

    /// Element `i` in the simulator's representation of `elem` (see [`value`]).
    pub fn raw_value(&self, i: usize) -> u64 {
        self.raw(i)
    }

    pub(crate) fn raw(&self, i: usize) -> u64 {
        match self {
            BufData::I8(v) => v[i] as i64 as u64,
            BufData::U8(v) => v[i] as u64,
            BufData::I16(v) => v[i] as i64 as u64,
            BufData::U16(v) => v[i] as u64,
            BufData::I32(v) => v[i] as i64 as u64,
            BufData::U32(v) => v[i] as u64,
            BufData::I64(v) => v[i] as u64,
            BufData::U64(v) => v[i],
            BufData::F32(v) => v[i].to_bits() as u64,
            BufData::F64(v) => v[i].to_bits(),
        }
    }

    pub(crate) fn set_raw(&mut self, i: usize, r: u64) {
        match self {
            BufData::I8(v) => v[i] = r as i8,
            BufData::U8(v) => v[i] = r as u8,
            BufData::I16(v) => v[i] = r as i16,
            BufData::U16(v) => v[i] = r as u16,
            BufData::I32(v) => v[i] = r as i32,
            BufData::U32(v) => v[i] = r as u32,
            BufData::I64(v) => v[i] = r as i64,
            BufData::U64(v) => v[i] = r,
            BufData::F32(v) => v[i] = f32::from_bits(r as u32),
            BufData::F64(v) => v[i] = f64::from_bits(r),
        }
    }

    /// The elements' bytes in the host's (little-endian) layout.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.le_bytes().into_owned()
    }

    /// The elements' bytes in little-endian layout: on a little-endian host the buffer's own
    /// memory, borrowed (replays move arrays of hundreds of megabytes to devices), else a copy.
    pub fn le_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        fn bytes<T: bytemuck::Pod, const N: usize>(
            v: &[T],
            f: fn(T) -> [u8; N],
        ) -> std::borrow::Cow<'_, [u8]> {
            if cfg!(target_endian = "little") {
                std::borrow::Cow::Borrowed(bytemuck::cast_slice(v))
            } else {
                let mut out = vec![0u8; v.len() * N];
                for (chunk, x) in out.chunks_exact_mut(N).zip(v) {
                    chunk.copy_from_slice(&f(*x));
                }
                std::borrow::Cow::Owned(out)
            }
        }
        match self {
            BufData::I8(v) => bytes(v, i8::to_le_bytes),
            BufData::U8(v) => std::borrow::Cow::Borrowed(v),
            BufData::I16(v) => bytes(v, i16::to_le_bytes),
            BufData::U16(v) => bytes(v, u16::to_le_bytes),
            BufData::I32(v) => bytes(v, i32::to_le_bytes),
            BufData::U32(v) => bytes(v, u32::to_le_bytes),
            BufData::I64(v) => bytes(v, i64::to_le_bytes),
            BufData::U64(v) => bytes(v, u64::to_le_bytes),
            BufData::F32(v) => bytes(v, f32::to_le_bytes),
            BufData::F64(v) => bytes(v, f64::to_le_bytes),
        }
    }

    /// A buffer of `elem` from its bytes in the host's (little-endian) layout.
    pub fn from_le_bytes(elem: Scalar, bytes: &[u8]) -> Option<BufData> {
        // One pass per buffer, a copy of the memory on a little-endian host: traces hold arrays
        // of hundreds of megabytes.
        fn conv<T: bytemuck::Pod, const N: usize>(bytes: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
            if cfg!(target_endian = "little") {
                bytemuck::pod_collect_to_vec(bytes)
            } else {
                bytes
                    .chunks_exact(N)
                    .map(|c| f(c.try_into().unwrap_or([0; N])))
                    .collect()
            }
        }
        let size = elem.size() as usize;
        if bytes.len() % size != 0 {
            return None;
        }
        // The representation `zeroed` picks for `elem`, filled from the bytes.
        let b = match BufData::zeroed(elem, 0) {
            BufData::I8(_) => BufData::I8(conv(bytes, i8::from_le_bytes)),
            BufData::U8(_) => BufData::U8(bytes.to_vec()),
            BufData::I16(_) => BufData::I16(conv(bytes, i16::from_le_bytes)),
            BufData::U16(_) => BufData::U16(conv(bytes, u16::from_le_bytes)),
            BufData::F32(_) => BufData::F32(conv(bytes, f32::from_le_bytes)),
            BufData::F64(_) => BufData::F64(conv(bytes, f64::from_le_bytes)),
            BufData::I32(_) => BufData::I32(conv(bytes, i32::from_le_bytes)),
            BufData::U32(_) => BufData::U32(conv(bytes, u32::from_le_bytes)),
            BufData::I64(_) => BufData::I64(conv(bytes, i64::from_le_bytes)),
            BufData::U64(_) => BufData::U64(conv(bytes, u64::from_le_bytes)),
        };
        // Each representation is as wide as its C type (`zeroed`), so the sizes agree.
        (b.len() * size == bytes.len()).then_some(b)
    }

    /// True if the representation fits buffers of `elem`.
    pub fn matches(&self, elem: Scalar) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(&BufData::zeroed(elem, 0))
    }
}

/// One kernel argument, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// Index into the `buffers` slice given to [`run_kernel`].
    Buffer(usize),
    /// A scalar; converted to the parameter's type as C would.
    Int(i64),
    Float(f64),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    OutOfBounds,
    SharedRace,
    GlobalRace,
    PartialBarrier,
    UninitializedShared,
    /// A read of a device buffer's element that no copy and no kernel wrote
    /// ([`SimOptions::undefined`]).
    UndefinedGlobal,
    DivisionByZero,
    /// A block ran more loop iterations than `SimOptions::max_iterations`.
    IterationLimit,
    /// A vector load the kernel declares aligned (`KStmt::VecLoad::aligned`) at an element
    /// whose offset is not a multiple of the vector's size (CUDA faults on it).
    MisalignedVector,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::OutOfBounds => "out-of-bounds access",
            FindingKind::SharedRace => "data race on shared memory",
            FindingKind::GlobalRace => "data race on global memory",
            FindingKind::PartialBarrier => "barrier reached by part of a block",
            FindingKind::UninitializedShared => "read of uninitialized shared memory",
            FindingKind::UndefinedGlobal => "read of device memory that no copy or kernel wrote",
            FindingKind::DivisionByZero => "integer division by zero",
            FindingKind::IterationLimit => "iteration limit reached (the kernel may not terminate)",
            FindingKind::MisalignedVector => "aligned vector load at a misaligned element",
        }
    }
}

/// A thread: block id and thread id within the block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId {
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

impl std::fmt::Display for ThreadId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "block ({}, {}, {}) thread ({}, {}, {})",
            self.block[0],
            self.block[1],
            self.block[2],
            self.thread[0],
            self.thread[1],
            self.thread[2]
        )
    }
}

/// A problem the checker found.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub kind: FindingKind,
    pub kernel: String,
    /// The access's label (none for barriers).
    pub access: Option<String>,
    pub thread: ThreadId,
    /// The other thread of a race.
    pub other: Option<ThreadId>,
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in `{}`", self.kind.name(), self.kernel)?;
        if let Some(a) = &self.access {
            write!(f, " at {}", a)?;
        }
        write!(f, ": {}", self.thread)?;
        if let Some(o) = &self.other {
            write!(f, " and {}", o)?;
        }
        if !self.detail.is_empty() {
            write!(f, " ({})", self.detail)?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// Something in the kernel the simulator does not implement.
    Unsupported(String),
    /// The arguments do not fit the kernel's parameters.
    BadArgs(String),
    /// An error the kernel hit at run time (out of bounds, partial barrier) outside check mode.
    Fault(Box<Finding>),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Unsupported(s) => write!(f, "unsupported by the simulator: {}", s),
            SimError::BadArgs(s) => write!(f, "bad launch arguments: {}", s),
            SimError::Fault(x) => write!(f, "{}", x),
        }
    }
}

/// Counts of one static access over a launch (scaled when sampling).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AccessCounts {
    /// Warp-level requests (a compound assignment counts a load and a store request).
    pub requests: u64,
    /// Active lanes over all requests.
    pub lanes: u64,
    /// Global: sectors and lines touched, and the minimum for the distinct bytes requested.
    pub sectors: u64,
    pub lines: u64,
    pub min_sectors: u64,
    pub min_lines: u64,
    /// Distinct bytes requested (summed over requests).
    pub bytes: u64,
    /// Requests in which all active lanes use one address.
    pub broadcast_requests: u64,
    /// Requests above the minimum (sectors or lines) whose footprint is contiguous
    /// (misalignment, not stride).
    pub misaligned_requests: u64,
    /// Requests above the minimum whose footprint has holes (stride).
    pub strided_requests: u64,
    /// Shared: wavefronts the requests take, the fewest the hardware needs for the same words
    /// (the bytes over what the banks serve per wavefront, per group of lanes served together),
    /// and the largest conflict degree (wavefronts over that minimum, in one request).
    pub wavefronts: u64,
    pub min_wavefronts: u64,
    pub max_degree: u32,
}

impl AccessCounts {
    pub(crate) fn add(&mut self, o: &AccessCounts) {
        self.requests += o.requests;
        self.lanes += o.lanes;
        self.sectors += o.sectors;
        self.lines += o.lines;
        self.min_sectors += o.min_sectors;
        self.min_lines += o.min_lines;
        self.bytes += o.bytes;
        self.broadcast_requests += o.broadcast_requests;
        self.misaligned_requests += o.misaligned_requests;
        self.strided_requests += o.strided_requests;
        self.wavefronts += o.wavefronts;
        self.min_wavefronts += o.min_wavefronts;
        self.max_degree = self.max_degree.max(o.max_degree);
    }

    pub(crate) fn scale(&mut self, f: f64) {
        let s = |x: &mut u64| *x = (*x as f64 * f).round() as u64;
        s(&mut self.requests);
        s(&mut self.lanes);
        s(&mut self.sectors);
        s(&mut self.lines);
        s(&mut self.min_sectors);
        s(&mut self.min_lines);
        s(&mut self.bytes);
        s(&mut self.broadcast_requests);
        s(&mut self.misaligned_requests);
        s(&mut self.strided_requests);
        s(&mut self.wavefronts);
        s(&mut self.min_wavefronts);
    }
}

/// Global-memory footprint of one buffer in a launch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Footprint {
    pub array: String,
    pub elem_size: u32,
    /// Distinct elements read / written, and the distinct sectors holding them.
    pub read_elems: u64,
    pub written_elems: u64,
    pub read_sectors: u64,
    pub written_sectors: u64,
}

/// What one launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchStats {
    pub kernel: String,
    pub block: [u32; 3],
    pub grid: [u32; 3],
    pub blocks_total: u64,
    pub blocks_simulated: u64,
    pub accesses: Vec<AccessInfo>,
    /// Per access, indexed like `accesses`.
    pub counts: Vec<AccessCounts>,
    /// Warp instructions issued (statements and expression nodes, per warp with active lanes).
    pub instructions: u64,
    /// Floating-point operations (per lane).
    pub flops: u64,
    /// Footprints of the global buffers (exact without sampling; when sampling, scaled and
    /// capped by the buffer's size, an estimate).
    pub footprints: Vec<Footprint>,
    /// Shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Resident blocks per SM (the occupancy the cache replay assumes).
    pub blocks_per_sm: u32,
    /// Registers per work-item the occupancy counted: the measured count
    /// (`SimOptions::measured_registers`), else the schedule's estimate (`Kernel::registers`);
    /// `None`: not counted (a CPU device, or a kernel without a count).
    pub registers: Option<u32>,
    /// What limits `blocks_per_sm`: threads, blocks, shared memory or registers per SM.
    pub limited_by: crate::model::platform::OccupancyLimit,
    /// What the caches saw (scaled like the counts).
    pub cache: cache::CacheCounts,
    /// The first wave's sectors per memory channel (platforms with `[channels]` only).
    pub channels: Option<channel::ChannelCounts>,
}

/// The result of [`run_kernel`].
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub stats: LaunchStats,
    pub findings: Vec<Finding>,
    /// The buffers of [`SimOptions::undefined`] after the launch: the elements still undefined
    /// (those the kernel did not write).
    pub undefined: std::collections::BTreeMap<usize, Vec<bool>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::platform::OccupancyLimit;
    use crate::model::Platform;

    fn platform(name: &str) -> SimPlatform {
        SimPlatform::from_platform(&Platform::load(name).unwrap())
    }

    #[test]
    fn registers_limit_the_resident_blocks_on_a_gpu() {
        let p = platform("gtx690");
        // 256 work-items, no shared memory: 8 blocks by threads (2048 per SM).
        assert_eq!(p.blocks_per_sm(256, 0, None), 8);
        let o = p.occupancy(256, 0, None);
        assert_eq!((o.blocks, o.limit), (8, OccupancyLimit::Threads));
        // 33 registers are allocated 40: 65536 / (40 × 256) = 6 blocks, fewer than threads and
        // shared memory allow.
        let o = p.occupancy(256, 0, Some(33));
        assert_eq!((o.blocks, o.limit), (6, OccupancyLimit::Registers));
        assert_eq!(o.fraction, 0.75);
        assert_eq!(p.blocks_per_sm(256, 0, Some(33)), 6);
        // 64 registers (the estimate of a register-heavy kernel; over CC 3.0's 63 it spills and
        // counts at the maximum, 64 allocated): 4 blocks.
        let o = p.occupancy(256, 0, Some(64));
        assert_eq!(
            (o.blocks, o.limit, o.spills),
            (4, OccupancyLimit::Registers, true)
        );
    }

    #[test]
    fn registers_that_do_not_limit_change_nothing() {
        let p = platform("gtx690");
        // 32 registers: 65536 / (32 × 256) = 8 blocks, as many as threads allow.
        let o = p.occupancy(256, 0, Some(32));
        assert_eq!((o.blocks, o.limit), (8, OccupancyLimit::Threads));
        // 12 KiB of shared memory per block: 4 blocks, whatever the 33 registers allow (6).
        for regs in [None, Some(8), Some(33)] {
            let o = p.occupancy(256, 12288, regs);
            assert_eq!(
                (o.blocks, o.limit),
                (4, OccupancyLimit::SharedMemory),
                "{regs:?}"
            );
        }
        // 16 blocks of 64 work-items by the block limit, with few registers.
        let o = p.occupancy(64, 0, Some(16));
        assert_eq!((o.blocks, o.limit), (16, OccupancyLimit::Blocks));
    }

    #[test]
    fn the_simulator_counts_registers_as_the_model_does() {
        for name in ["gtx690", "c2050", "a100", "hd7850", "mi300x", "rx7900xtx"] {
            let m = Platform::load(name).unwrap();
            let p = SimPlatform::from_platform(&m);
            assert_eq!(p.registers, Some(m.register_file()), "{name}");
            for threads in [32u32, 64, 100, 256, 1024] {
                for smem in [0u32, 4096, 20000] {
                    for regs in [8u32, 33, 64, 130, 300] {
                        assert_eq!(
                            p.occupancy(threads, smem, Some(regs)),
                            m.occupancy(threads as u64, smem as u64, regs),
                            "{name} {threads} {smem} {regs}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_cpu_device_has_no_register_limit() {
        let p = platform("pocl-cpu");
        assert_eq!(p.registers, None);
        for threads in [8u32, 64, 256, 1024, 4096] {
            let none = p.occupancy(threads, 0, None);
            for regs in [8, 64, 255, 1000] {
                assert_eq!(
                    p.occupancy(threads, 0, Some(regs)),
                    none,
                    "{threads} {regs}"
                );
            }
            // As before registers counted: threads, blocks (1 per "SM") and shared memory.
            assert_eq!(none.blocks, 1);
            assert_eq!(none.limit, OccupancyLimit::Blocks);
        }
    }
}
