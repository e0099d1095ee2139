//! Platform descriptions: `platforms/NAME.toml`.
//!
//! A platform file is read with `serde` + `toml` into a typed schema (`PlatformFile`): the
//! top-level `name`, `description`, `vendor` and the tables `[simt]`, `[shared]`, `[global]` and
//! `[model]` (keys, types and defaults: `docs/platforms.md`). Every hardware fact is required;
//! only the model's thresholds (`[model]`: θ_s, θ_r) have defaults, the paper's. Unknown keys
//! are errors (`deny_unknown_fields`), so a typo cannot silently fall back to a default. Every
//! problem in a file (syntax, a wrong type, a missing or unknown key, an implausible value) is
//! a [`FileError`] naming the key and pointing at its place, rendered like the compiler's
//! diagnostics (`error: …`, `┌─ file:line:col`, the line, a caret).
//!
//! The shipped files are embedded with `include_str!`, so the binary works from any directory;
//! `Platform::load` takes a shipped name (`gtx690`) or the path of a `.toml` file.

use std::fmt;
use std::num::NonZeroU32;
use std::ops::Range;

use serde::Deserialize;

use crate::diag::{self, Diag, SourceMap, Span};

/// What the model knows about a target. Sizes in bytes, counts per SM (compute unit).
#[derive(Clone, Debug, PartialEq)]
pub struct Platform {
    /// Short name (`gtx690`).
    pub name: String,
    pub description: String,
    pub vendor: String,
    /// Where it came from: `builtin` or the file path.
    pub source: String,
    /// Warp / wavefront size (threads that issue one memory instruction together).
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    /// Maximum block extent per dimension (x, y, z).
    pub max_block_dims: [u32; 3],
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    /// The most 32-bit registers one thread (work-item) may use; beyond it the compiler spills
    /// to local (scratch) memory.
    pub max_registers_per_thread: u32,
    /// Registers are allocated to a thread in multiples of this many (NVIDIA: 256 per warp, 8
    /// per thread; AMD: the VGPR allocation granule).
    pub register_alloc_unit: u32,
    pub sm_count: u32,
    pub clock_mhz: u32,
    /// Shared memory (local memory, LDS) of one SM: the paper's `SMSize`.
    pub smem_per_sm: u64,
    /// The most one thread block may allocate.
    pub smem_per_block: u64,
    pub banks: u32,
    pub bank_width: u32,
    /// Lanes whose shared-memory accesses the banks serve together (default: the warp).
    pub shared_lanes: u32,
    /// Bank widths (bytes) the host can configure the shared memory to, `bank_width` (the
    /// default mode) first: Kepler's `[4, 8]` (`cudaFuncSetSharedMemConfig`); default: only
    /// `bank_width`.
    pub bank_modes: Vec<u32>,
    /// Whether shared (local) memory is memory of its own or the device's global memory (CPU
    /// OpenCL devices: `CL_DEVICE_LOCAL_MEM_TYPE = CL_GLOBAL`), where a tile saves no traffic.
    pub local_memory: LocalMemory,
    /// Global memory transaction size: the paper's `TranSize`.
    pub transaction_bytes: u32,
    pub sector_bytes: u32,
    /// Peak bandwidth in GB/s (reports only).
    pub bandwidth_gbs: f64,
    /// θ_s: fraction of `SMSize` one thread block may use for shared arrays (constraint (9)).
    pub theta_s: f64,
    /// θ_r: an array is in the ReuseSet when `ReuseSize ≥ θ_r·|DS|` (equation (3)).
    pub theta_r: f64,
    /// `[cache]`: the caches the simulator replays global requests through (none by default).
    pub cache: Caches,
    /// `[timing]`: the throughputs and latency of the simulator's time estimate.
    pub timing: Timing,
    /// `[channels]`: how global memory addresses spread over the memory channels (partitions);
    /// `None`: no channel model (partition camping is not modelled).
    pub channels: Option<Channels>,
}

/// `[channels]` of a platform file: the address → channel map of global memory, `channel =
/// (address / interleave_bytes) % count`. Blocks that run together and hit one channel wait for
/// it while the others idle (*partition camping*, *channel conflicts*): the simulator counts the
/// first wave's sectors per channel and the schedule may reorder the blocks (diagonal order).
/// Both keys are required when the table is present.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Channels {
    /// Memory channels (partitions) global memory is interleaved over.
    pub count: NonZeroU32,
    /// Bytes of consecutive addresses one channel holds before the next channel's.
    pub interleave_bytes: NonZeroU32,
}

impl Channels {
    /// The channel holding byte address `addr`.
    pub fn of(&self, addr: u64) -> u32 {
        ((addr / self.interleave_bytes.get() as u64) % self.count.get() as u64) as u32
    }
}

/// `[cache]` of a platform file: per-SM L1 and the chip's L2, as the simulator's memory model
/// replays global requests through them (`src/sim/cache.rs`). Every key is optional; a size of
/// 0 means no such cache (the default: every sector goes to DRAM, the model before caches).
/// Caches are sectored: a line of `*_line` bytes holds `global.sector_bytes` sectors, each
/// filled on its own miss; replacement is LRU within a set.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Caches {
    /// L1 data cache per SM, bytes (the part of the configurable L1/shared storage left when
    /// shared memory takes `shared.bytes_per_sm`).
    pub l1_bytes: u32,
    pub l1_line: u32,
    pub l1_ways: u32,
    /// Whether global loads are cached in L1 (Fermi, Maxwell and later: yes; Kepler GK104:
    /// no, L1 holds local memory only). Global stores never allocate in L1 (write-through,
    /// the line is invalidated).
    pub l1_global_loads: bool,
    /// L2 of the whole chip, bytes: write-back, stores allocate without a read.
    pub l2_bytes: u32,
    pub l2_line: u32,
    pub l2_ways: u32,
    /// L2 bandwidth, GB/s (0: not a bound of the estimate).
    pub l2_bandwidth_gbs: f64,
    /// Unified L1 + shared memory storage of an SM, bytes (0: `l1_bytes` is fixed). When set,
    /// a kernel's L1 is what its shared memory leaves: the storage less the smallest shared
    /// carve-out that holds its resident blocks' tiles ([`Caches::l1_for`]).
    pub l1_shared_bytes: u32,
    /// The shared-memory carve-outs the driver can configure, KiB, ascending (with
    /// `l1_shared_bytes`).
    pub shared_carveouts_kib: Vec<u32>,
}

impl Caches {
    /// The L1 bytes of an SM whose resident blocks use `shared` bytes of shared memory in all.
    pub fn l1_for(&self, shared: u64) -> u32 {
        if self.l1_shared_bytes == 0 {
            return self.l1_bytes;
        }
        let carve = self
            .shared_carveouts_kib
            .iter()
            .map(|&k| k as u64 * 1024)
            .find(|&c| c >= shared)
            .unwrap_or(shared);
        (self.l1_shared_bytes as u64).saturating_sub(carve) as u32
    }
}

impl Default for Caches {
    fn default() -> Caches {
        Caches {
            l1_bytes: 0,
            l1_line: 128,
            l1_ways: 4,
            l1_global_loads: false,
            l2_bytes: 0,
            l2_line: 128,
            l2_ways: 16,
            l2_bandwidth_gbs: 0.0,
            l1_shared_bytes: 0,
            shared_carveouts_kib: Vec::new(),
        }
    }
}

/// `[timing]` of a platform file: the rates of the simulator's time estimate (`analyze`,
/// `docs/model.md`). Every key is optional; the defaults give the estimate before caches (64
/// FMA lanes per SM; no issue, shared or latency bound).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// FP32 lanes per SM (a fused multiply-add is two flops per lane per clock).
    pub fma_lanes: u32,
    /// Warp instructions an SM issues per clock (0: no issue bound).
    pub issue_per_clock: f64,
    /// Shared-memory wavefronts an SM serves per clock (0: no shared bound).
    pub shared_per_clock: f64,
    /// Latency of a global load that misses L1, cycles (0: no latency bound).
    pub latency_cycles: u32,
    /// Latency of a global load an L1 serves, cycles (0: not distinguished, `latency_cycles`).
    pub l1_latency_cycles: u32,
    /// Latency of a global load the L2 serves, cycles (0: not distinguished, `latency_cycles`).
    pub l2_latency_cycles: u32,
    /// 128-byte lines an SM's L1 serves per clock: a warp request takes one clock per distinct
    /// line it touches (0: no L1 throughput bound). The schedule's comparison of a staged kernel
    /// with the unstaged one (`schedule::gain`) needs it with `l1_latency_cycles`.
    pub l1_lines_per_clock: f64,
    /// The device compiler folds address arithmetic (constant offsets into the memory
    /// instruction, loop-moving indices into increments): the simulator then counts no
    /// instruction for the additions and multiplications of an index (default: every node
    /// counts, as the paper's GPUs were calibrated).
    pub address_folding: bool,
}

impl Timing {
    /// Whether the file carries the L1 facts of the model of GPUs whose L1 caches global loads
    /// (`l1_latency_cycles`, `l1_lines_per_clock`): the schedule then stages only where the
    /// model predicts a clear gain over the unstaged kernel.
    pub fn l1_model(&self) -> bool {
        self.l1_latency_cycles > 0 && self.l1_lines_per_clock > 0.0
    }

    /// Latency of a load served by an L1 (`level` 0), the L2 (1) or DRAM (2), cycles: the
    /// level's own where the file gives it, else `latency_cycles`.
    pub fn level_latency(&self, level: u8) -> u32 {
        let or = |x: u32| if x > 0 { x } else { self.latency_cycles };
        match level {
            0 => or(self.l1_latency_cycles),
            1 => or(self.l2_latency_cycles),
            _ => self.latency_cycles,
        }
    }
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            fma_lanes: 64,
            issue_per_clock: 0.0,
            shared_per_clock: 0.0,
            latency_cycles: 0,
            l1_latency_cycles: 0,
            l2_latency_cycles: 0,
            l1_lines_per_clock: 0.0,
            address_folding: false,
        }
    }
}

/// What a device's shared (local) memory is.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LocalMemory {
    /// On-chip memory of its own (GPUs).
    #[default]
    Dedicated,
    /// A part of global memory, reached through the same caches (CPU devices).
    Global,
}

/// The platforms shipped with accshare: (name, file text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("gtx690", include_str!("../../platforms/gtx690.toml")),
    ("gtx-titan", include_str!("../../platforms/gtx-titan.toml")),
    ("hd7850", include_str!("../../platforms/hd7850.toml")),
    ("c2050", include_str!("../../platforms/c2050.toml")),
    ("a100", include_str!("../../platforms/a100.toml")),
    ("h100", include_str!("../../platforms/h100.toml")),
    ("h200", include_str!("../../platforms/h200.toml")),
    ("mi300x", include_str!("../../platforms/mi300x.toml")),
    ("rx7900xtx", include_str!("../../platforms/rx7900xtx.toml")),
    ("pocl-cpu", include_str!("../../platforms/pocl-cpu.toml")),
];

/// The platform used when none is given: the GPU accshare's model is calibrated against (an
/// H100; its schedules measured on an H100 and an H200, `docs/benchmarks-results.md`). The
/// `a100` file has no L1 timing, so its schedules keep the paper's choices, which the H100 and
/// H200 ran slower than naive (hotspot) or many times slower than across lanes (mv).
pub const DEFAULT_PLATFORM: &str = "h100";

/// `simt.max_registers_per_thread` when a platform file does not give it: NVIDIA's limit since
/// compute capability 3.5 (CUDA C Programming Guide, "Technical Specifications per Compute
/// Capability": 255 32-bit registers per thread).
pub const DEFAULT_MAX_REGISTERS: u32 = 255;
/// `simt.register_alloc_unit` when a platform file does not give it: NVIDIA's allocation unit
/// since compute capability 3.0 (256 registers per warp, i.e. 8 per thread; CUDA Occupancy
/// Calculator, "register allocation unit size").
pub const DEFAULT_REGISTER_UNIT: u32 = 8;

/// θ_s when a platform file does not give it: the paper's (13), a quarter of `SMSize`.
pub const DEFAULT_THETA_S: f64 = 0.25;
/// θ_r when a platform file does not give it: the paper's choice.
pub const DEFAULT_THETA_R: f64 = 1.5;

/// A platform file as written (`platforms/*.toml`): the schema [`Platform::parse`] reads.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlatformFile {
    name: String,
    description: String,
    vendor: String,
    simt: SimtTable,
    shared: SharedTable,
    global: GlobalTable,
    #[serde(default)]
    model: ModelTable,
    #[serde(default)]
    cache: Caches,
    #[serde(default)]
    timing: Timing,
    #[serde(default)]
    channels: Option<Channels>,
}

/// `[simt]`: threads, blocks and multiprocessors.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SimtTable {
    warp_size: NonZeroU32,
    max_threads_per_block: NonZeroU32,
    max_block_x: NonZeroU32,
    max_block_y: NonZeroU32,
    max_block_z: NonZeroU32,
    max_threads_per_sm: NonZeroU32,
    max_blocks_per_sm: NonZeroU32,
    registers_per_sm: NonZeroU32,
    /// Default: 255 (NVIDIA since compute capability 3.5).
    #[serde(default)]
    max_registers_per_thread: Option<NonZeroU32>,
    /// Default: 8 (NVIDIA since compute capability 3.0: 256 registers per warp).
    #[serde(default)]
    register_alloc_unit: Option<NonZeroU32>,
    sm_count: NonZeroU32,
    clock_mhz: NonZeroU32,
}

/// `[shared]`: shared memory (local memory, LDS).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SharedTable {
    bytes_per_sm: NonZeroU32,
    max_bytes_per_block: NonZeroU32,
    banks: NonZeroU32,
    bank_width: NonZeroU32,
    /// Lanes the banks serve together (AMD GCN/CDNA: half a 64-wide wavefront); default: the
    /// warp size.
    #[serde(default)]
    lanes_per_cycle: Option<NonZeroU32>,
    /// Bank widths the shared memory can be configured to (Kepler: `[4, 8]`); default:
    /// `[bank_width]`.
    #[serde(default)]
    bank_modes: Option<Vec<NonZeroU32>>,
    /// `dedicated` (default) or `global` (local memory is global memory: CPU devices).
    #[serde(default)]
    kind: LocalMemory,
}

/// `[global]`: global memory transactions.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GlobalTable {
    transaction_bytes: NonZeroU32,
    sector_bytes: NonZeroU32,
    bandwidth_gbs: f64,
}

/// `[model]`: the profit model's thresholds; the table and each key may be left out.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelTable {
    #[serde(default = "default_theta_s")]
    theta_s: f64,
    #[serde(default = "default_theta_r")]
    theta_r: f64,
}

fn default_theta_s() -> f64 {
    DEFAULT_THETA_S
}

fn default_theta_r() -> f64 {
    DEFAULT_THETA_R
}

impl Default for ModelTable {
    fn default() -> ModelTable {
        ModelTable {
            theta_s: DEFAULT_THETA_S,
            theta_r: DEFAULT_THETA_R,
        }
    }
}

impl PlatformFile {
    fn into_platform(self, source: &str) -> Platform {
        let (s, m, g) = (&self.simt, &self.shared, &self.global);
        Platform {
            source: source.to_string(),
            warp_size: s.warp_size.get(),
            max_threads_per_block: s.max_threads_per_block.get(),
            max_block_dims: [
                s.max_block_x.get(),
                s.max_block_y.get(),
                s.max_block_z.get(),
            ],
            max_threads_per_sm: s.max_threads_per_sm.get(),
            max_blocks_per_sm: s.max_blocks_per_sm.get(),
            registers_per_sm: s.registers_per_sm.get(),
            max_registers_per_thread: s
                .max_registers_per_thread
                .map_or(DEFAULT_MAX_REGISTERS, NonZeroU32::get),
            register_alloc_unit: s
                .register_alloc_unit
                .map_or(DEFAULT_REGISTER_UNIT, NonZeroU32::get),
            sm_count: s.sm_count.get(),
            clock_mhz: s.clock_mhz.get(),
            smem_per_sm: m.bytes_per_sm.get().into(),
            smem_per_block: m.max_bytes_per_block.get().into(),
            banks: m.banks.get(),
            bank_width: m.bank_width.get(),
            shared_lanes: m
                .lanes_per_cycle
                .map_or(s.warp_size.get(), NonZeroU32::get)
                .min(s.warp_size.get()),
            bank_modes: {
                // The default mode first, then the others in the file's order.
                let mut v = vec![m.bank_width.get()];
                for w in m.bank_modes.iter().flatten() {
                    if !v.contains(&w.get()) {
                        v.push(w.get());
                    }
                }
                v
            },
            local_memory: m.kind,
            transaction_bytes: g.transaction_bytes.get(),
            sector_bytes: g.sector_bytes.get(),
            bandwidth_gbs: g.bandwidth_gbs,
            theta_s: self.model.theta_s,
            theta_r: self.model.theta_r,
            cache: self.cache,
            timing: self.timing,
            channels: self.channels,
            name: self.name,
            description: self.description,
            vendor: self.vendor,
        }
    }
}

/// Why a platform could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlatformError {
    /// An unknown name, an unreadable file.
    Load(String),
    /// `opencl:N` (`device:N`): a malformed name.
    DeviceName(super::device::DeviceNameError),
    /// `opencl:N` (`device:N`): a device that cannot be queried or described.
    Device(super::device::DeviceError),
    /// A platform file that is not valid TOML or not a valid description.
    File(FileError),
}

/// A problem at a place in a platform file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    /// `file:line:col` of the problem.
    pub location: String,
    pub message: String,
    /// The dotted key it is about (`simt.warp_size`), when it is about one.
    pub key: Option<String>,
    /// The diagnostic, rendered as the compiler renders its own (`error: …`,
    /// `┌─ file:line:col`, the line and a caret under the key or value).
    pub rendered: String,
}

impl PlatformError {
    /// The whole report for a terminal: `error: …` and, for a file, where in it.
    pub fn render(&self) -> String {
        match self {
            PlatformError::File(f) => f.rendered.clone(),
            e => format!("error: {}\n", e),
        }
    }
}

impl fmt::Display for PlatformError {
    /// One line: the message, or `file:line:col: message (key)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlatformError::Load(m) => f.write_str(m),
            PlatformError::DeviceName(e) => write!(f, "{}", e),
            PlatformError::Device(e) => write!(f, "{}", e),
            PlatformError::File(e) => {
                write!(f, "{}: {}", e.location, e.message)?;
                match &e.key {
                    Some(k) if !e.message.contains(&format!("`{}`", k)) => write!(f, " (`{}`)", k),
                    _ => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for PlatformError {}

/// A failed consistency check: the key it is about and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Dotted key of the platform file (`simt.warp_size`).
    pub key: &'static str,
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}

fn invalid(key: &'static str, message: impl Into<String>) -> Invalid {
    Invalid {
        key,
        message: message.into(),
    }
}

impl Platform {
    /// Loads a shipped platform by name, or a platform file by path (anything ending in
    /// `.toml` or containing a path separator), or `opencl:N` (alias `device:N`: the N-th OpenCL
    /// device of this machine in the global order, queried: see `model::device`). A shipped name is looked up in the
    /// `platforms/` directory of the source tree first (so edits are seen without a rebuild),
    /// then in the copies embedded in the binary.
    pub fn load(name_or_path: &str) -> Result<Platform, PlatformError> {
        if name_or_path.starts_with("opencl:") || name_or_path.starts_with("device:") {
            use super::device::{DeviceName, DeviceNameError};
            return match name_or_path.parse::<DeviceName>() {
                Ok(DeviceName::OpenCl(index)) => {
                    super::device::load(index).map_err(PlatformError::Device)
                }
                Ok(_) => Err(PlatformError::DeviceName(DeviceNameError::Unknown(
                    name_or_path.to_string(),
                ))),
                Err(e) => Err(PlatformError::DeviceName(e)),
            };
        }
        let is_path = name_or_path.ends_with(".toml")
            || name_or_path.contains('/')
            || name_or_path.contains('\\');
        if is_path {
            let text = std::fs::read_to_string(name_or_path).map_err(|e| {
                PlatformError::Load(format!(
                    "cannot read platform file `{}`: {}",
                    name_or_path, e
                ))
            })?;
            return Platform::parse(&text, name_or_path);
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms");
        let file = dir.join(format!("{}.toml", name_or_path));
        if BUILTIN.iter().any(|(n, _)| *n == name_or_path) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if let Ok(p) = Platform::parse(&text, &file.to_string_lossy()) {
                    return Ok(Platform {
                        source: "builtin".into(),
                        ..p
                    });
                }
            }
        }
        match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, text)) => Platform::parse(text, &format!("builtin:{}", n)).map(|p| Platform {
                source: "builtin".into(),
                ..p
            }),
            None => Err(PlatformError::Load(format!(
                "unknown platform `{}` (known: {}; or give the path of a .toml file)",
                name_or_path,
                BUILTIN
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Parses and validates a platform file. `origin` names it in messages (and is the
    /// platform's `source`).
    pub fn parse(text: &str, origin: &str) -> Result<Platform, PlatformError> {
        let doc = toml::de::DeTable::parse(text).map_err(|e| {
            let span = e.span();
            let mut message = e.message().to_string();
            // toml says which key is duplicated only by pointing at it.
            if let Some(key) = span.clone().and_then(|s| text.get(s)) {
                if message == "duplicate key" && !key.is_empty() {
                    message = format!("duplicate key `{}`", key);
                }
            }
            file_error(text, origin, span, &message, None, None)
        })?;
        let mut keys = Vec::new();
        index_keys(doc.get_ref(), "", &mut keys);
        let file = PlatformFile::deserialize(toml::de::Deserializer::from(doc)).map_err(|e| {
            let (message, key, label) = describe(&keys, e.span().as_ref(), e.message());
            file_error(text, origin, e.span(), &message, key, label)
        })?;
        let p = file.into_platform(origin);
        p.check().map_err(|i| {
            let span = keys
                .iter()
                .find(|k| k.path == i.key)
                .map(|k| k.value.clone());
            let label = format!("`{}`", i.key);
            file_error(
                text,
                origin,
                span,
                &i.message,
                Some(i.key.into()),
                Some(label),
            )
        })?;
        Ok(p)
    }

    /// Consistency checks (the model divides by several of these).
    pub fn validate(&self) -> Result<(), Invalid> {
        self.check()
    }

    /// [`Platform::validate`], naming the key of the file each check is about.
    pub fn check(&self) -> Result<(), Invalid> {
        let pow2 = |v: u32| v.is_power_of_two();
        if !pow2(self.warp_size) {
            return Err(invalid(
                "simt.warp_size",
                format!("warp_size {} is not a power of two", self.warp_size),
            ));
        }
        for (key, v) in [
            ("global.transaction_bytes", self.transaction_bytes),
            ("global.sector_bytes", self.sector_bytes),
            ("shared.banks", self.banks),
            ("shared.bank_width", self.bank_width),
        ] {
            if !pow2(v) {
                let name = key.split_once('.').map_or(key, |(_, n)| n);
                return Err(invalid(
                    key,
                    format!("{} {} is not a power of two", name, v),
                ));
            }
        }
        for &w in &self.bank_modes {
            if !pow2(w) {
                return Err(invalid(
                    "shared.bank_modes",
                    format!("bank mode {} is not a power of two", w),
                ));
            }
        }
        if self.bank_modes.first() != Some(&self.bank_width) {
            return Err(invalid(
                "shared.bank_modes",
                format!(
                    "bank_modes must start with bank_width ({}), the mode a kernel runs in unless the host sets another",
                    self.bank_width
                ),
            ));
        }
        if self.max_threads_per_block > 65536 {
            return Err(invalid(
                "simt.max_threads_per_block",
                "thread limits above 65536 per block or 2^20 per SM are not plausible",
            ));
        }
        if self.max_threads_per_sm > 1 << 20 {
            return Err(invalid(
                "simt.max_threads_per_sm",
                "thread limits above 65536 per block or 2^20 per SM are not plausible",
            ));
        }
        if self.max_registers_per_thread == 0
            || self.register_alloc_unit == 0
            || self.register_alloc_unit > self.max_registers_per_thread
        {
            return Err(invalid(
                "simt.register_alloc_unit",
                format!(
                    "register_alloc_unit ({}) must be at least 1 and at most max_registers_per_thread ({})",
                    self.register_alloc_unit, self.max_registers_per_thread
                ),
            ));
        }
        if self.max_threads_per_block > self.max_threads_per_sm {
            return Err(invalid(
                "simt.max_threads_per_block",
                format!(
                    "max_threads_per_block ({}) exceeds max_threads_per_sm ({})",
                    self.max_threads_per_block, self.max_threads_per_sm
                ),
            ));
        }
        let dims = ["simt.max_block_x", "simt.max_block_y", "simt.max_block_z"];
        for (key, &d) in dims.into_iter().zip(&self.max_block_dims) {
            if d > self.max_threads_per_block {
                return Err(invalid(
                    key,
                    format!(
                        "{} ({}) exceeds max_threads_per_block ({})",
                        &key[5..],
                        d,
                        self.max_threads_per_block
                    ),
                ));
            }
        }
        if self.smem_per_block > self.smem_per_sm {
            return Err(invalid(
                "shared.max_bytes_per_block",
                format!(
                    "shared max_bytes_per_block ({}) exceeds bytes_per_sm ({})",
                    self.smem_per_block, self.smem_per_sm
                ),
            ));
        }
        if !(self.theta_s > 0.0 && self.theta_s <= 1.0) {
            return Err(invalid(
                "model.theta_s",
                format!("theta_s = {} is not in (0, 1]", self.theta_s),
            ));
        }
        if !(self.theta_r > 0.0 && self.theta_r.is_finite()) {
            return Err(invalid(
                "model.theta_r",
                format!("theta_r = {} is not a positive number", self.theta_r),
            ));
        }
        if let Some(c) = &self.channels {
            if c.count.get() > 1024 {
                return Err(invalid(
                    "channels.count",
                    format!(
                        "{} memory channels are not plausible (at most 1024)",
                        c.count
                    ),
                ));
            }
            if !pow2(c.interleave_bytes.get()) || c.interleave_bytes.get() < self.sector_bytes {
                return Err(invalid(
                    "channels.interleave_bytes",
                    format!(
                        "interleave_bytes {} is not a power of two of at least a sector ({} bytes)",
                        c.interleave_bytes, self.sector_bytes
                    ),
                ));
            }
        }
        if !(self.bandwidth_gbs >= 0.0 && self.bandwidth_gbs.is_finite()) {
            return Err(invalid(
                "global.bandwidth_gbs",
                "bandwidth_gbs must be a non-negative number",
            ));
        }
        Ok(())
    }

    /// The shared memory one block may use under constraint (9): `min(θ_s·SMSize, per-block max)`.
    pub fn smem_budget(&self) -> u64 {
        let t = (self.theta_s * self.smem_per_sm as f64).floor() as u64;
        t.min(self.smem_per_block)
    }

    /// Thread blocks resident on one SM for a block of `threads` threads using `smem` bytes.
    pub fn resident_blocks(&self, threads: u64, smem: u64) -> u64 {
        self.sm_limits().resident_blocks(threads, smem)
    }

    /// The register file of one SM.
    pub fn register_file(&self) -> RegisterFile {
        RegisterFile {
            per_sm: self.registers_per_sm,
            max_per_thread: self.max_registers_per_thread,
            alloc_unit: self.register_alloc_unit,
        }
    }

    /// What limits the blocks resident on one SM, register file included.
    pub fn sm_limits(&self) -> SmLimits {
        SmLimits {
            warp: self.warp_size,
            max_threads: self.max_threads_per_sm,
            max_blocks: self.max_blocks_per_sm,
            shared_bytes: self.smem_per_sm,
            registers: Some(self.register_file()),
        }
    }

    /// Registers a thread using `regs` is allocated: rounded up to the allocation unit.
    pub fn allocated_registers(&self, regs: u32) -> u32 {
        self.register_file().allocated(regs)
    }

    /// [`Platform::resident_blocks`] with the register file as a fourth limit
    /// ([`SmLimits::occupancy`]).
    pub fn occupancy(&self, threads: u64, smem: u64, regs: u32) -> Occupancy {
        self.sm_limits().occupancy(threads, smem, Some(regs))
    }
}

/// The register file of one SM (`[simt]` `registers_per_sm`, `max_registers_per_thread`,
/// `register_alloc_unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterFile {
    /// 32-bit registers per SM.
    pub per_sm: u32,
    /// The most one thread may use; beyond it the compiler spills.
    pub max_per_thread: u32,
    /// Registers are allocated to a thread in multiples of this many.
    pub alloc_unit: u32,
}

impl RegisterFile {
    /// Registers a thread using `regs` is allocated: rounded up to the allocation unit.
    pub fn allocated(&self, regs: u32) -> u32 {
        regs.max(1).div_ceil(self.alloc_unit.max(1)) * self.alloc_unit.max(1)
    }
}

/// The resources of one SM that limit how many blocks it holds at once: what
/// [`Platform::occupancy`] and the simulator's occupancy (`sim::SimPlatform::occupancy`) both
/// compute from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// Threads per warp: blocks are allocated whole warps.
    pub warp: u32,
    pub max_threads: u32,
    pub max_blocks: u32,
    /// Shared memory per SM, bytes.
    pub shared_bytes: u64,
    /// The register file; `None`: registers do not limit (a CPU device, whose work-items keep
    /// their values in the host's registers and stack).
    pub registers: Option<RegisterFile>,
}

impl SmLimits {
    /// Blocks of `threads` threads using `smem` bytes each, by threads, blocks and shared
    /// memory only.
    pub fn resident_blocks(&self, threads: u64, smem: u64) -> u64 {
        if threads == 0 {
            return 0;
        }
        let by_threads = self.max_threads as u64 / threads;
        let by_smem = self.shared_bytes.checked_div(smem).unwrap_or(u64::MAX);
        by_threads.min(by_smem).min(self.max_blocks as u64)
    }

    /// [`Self::resident_blocks`] with the register file as a fourth limit: blocks of
    /// `threads` threads (whole warps) whose threads use `regs` registers each fit
    /// `registers_per_sm / (allocated registers × threads)` times. A thread over
    /// `max_registers_per_thread` spills (the compiler caps it at the maximum, the rest goes to
    /// local memory): it is counted at the maximum. Without a register file or a register
    /// count (`regs: None`), registers do not limit.
    pub fn occupancy(&self, threads: u64, smem: u64, regs: Option<u32>) -> Occupancy {
        let warp = self.warp.max(1) as u64;
        let warps = threads.div_ceil(warp);
        let (by_regs, spills) = match (self.registers, regs) {
            (Some(f), Some(regs)) => {
                let alloc = f.allocated(regs.min(f.max_per_thread)) as u64;
                let by_regs = (f.per_sm as u64)
                    .checked_div(alloc * warps * warp)
                    .unwrap_or(u64::MAX);
                (by_regs, regs > f.max_per_thread)
            }
            _ => (u64::MAX, false),
        };
        let by_others = self.resident_blocks(warps * warp, smem);
        let blocks = by_others.min(by_regs);
        let limit = if threads == 0 {
            OccupancyLimit::Threads
        } else if by_regs < by_others {
            OccupancyLimit::Registers
        } else if blocks == self.max_blocks as u64 {
            OccupancyLimit::Blocks
        } else if blocks == (self.max_threads as u64) / (warps * warp).max(1) {
            OccupancyLimit::Threads
        } else {
            OccupancyLimit::SharedMemory
        };
        let resident = blocks * warps * warp;
        Occupancy {
            blocks,
            warps: blocks * warps,
            fraction: resident as f64 / self.max_threads.max(1) as f64,
            limit,
            spills,
        }
    }
}

/// What fits on one SM: [`Platform::occupancy`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupancy {
    /// Resident blocks per SM.
    pub blocks: u64,
    /// Resident warps per SM.
    pub warps: u64,
    /// Resident threads over the SM's maximum.
    pub fraction: f64,
    /// What limits the resident blocks.
    pub limit: OccupancyLimit,
    /// The thread needs more registers than one thread may have (it spills).
    pub spills: bool,
}

/// The resource that limits the blocks resident on an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OccupancyLimit {
    Threads,
    Blocks,
    SharedMemory,
    Registers,
}

impl OccupancyLimit {
    pub fn name(self) -> &'static str {
        match self {
            OccupancyLimit::Threads => "threads",
            OccupancyLimit::Blocks => "blocks",
            OccupancyLimit::SharedMemory => "shared memory",
            OccupancyLimit::Registers => "registers",
        }
    }
}

/// `accshare platforms`: one line per shipped platform.
pub fn list_platforms() -> String {
    let mut out = String::new();
    for (name, _) in BUILTIN {
        match Platform::load(name) {
            Ok(p) => out.push_str(&format!(
                "{:<10} {:<48} warp {:>2}, shared {} KB/SM ({} KB/block), {} SMs\n",
                p.name,
                p.description,
                p.warp_size,
                p.smem_per_sm / 1024,
                p.smem_per_block / 1024,
                p.sm_count
            )),
            Err(e) => out.push_str(&format!("{:<10} error: {}\n", name, e)),
        }
    }
    out.push_str("opencl:N   the N-th OpenCL device of this machine (`accshare devices`), queried; also device:N\n");
    out.push_str("FILE.toml  a platform file (see platforms/*.toml for the keys)\n");
    out
}

/// A key of a platform file and where it and its value are.
struct KeyAt {
    /// Dotted (`simt.warp_size`).
    path: String,
    key: Range<usize>,
    value: Range<usize>,
}

fn index_keys(table: &toml::de::DeTable<'_>, prefix: &str, out: &mut Vec<KeyAt>) {
    for (k, v) in table.iter() {
        let path = if prefix.is_empty() {
            k.get_ref().to_string()
        } else {
            format!("{}.{}", prefix, k.get_ref())
        };
        out.push(KeyAt {
            path: path.clone(),
            key: k.span(),
            value: v.span(),
        });
        if let toml::de::DeValue::Table(t) = v.get_ref() {
            index_keys(t, &path, out);
        }
    }
}

/// A deserialization error in the words of a TOML file: its message, the dotted key it is
/// about and the text under the caret. serde says `field` where TOML says `key`: a missing key
/// points at the table it is missing from, an unknown key at itself (the caret tells the keys
/// the table has), a wrong type or value at the value.
fn describe(
    keys: &[KeyAt],
    span: Option<&Range<usize>>,
    message: &str,
) -> (String, Option<String>, Option<String>) {
    let named = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|m| m.split_once('`'))
            .map(|(field, rest)| (field.to_string(), rest.trim_start_matches(", ").to_string()))
    };
    let at = |f: &dyn Fn(&KeyAt) -> bool| keys.iter().find(|k| f(k)).map(|k| k.path.clone());
    if let Some((field, _)) = named("missing field `") {
        let table = at(&|k: &KeyAt| span == Some(&k.value));
        return match table {
            Some(t) => (
                format!("missing key `{}.{}`", t, field),
                Some(format!("{}.{}", t, field)),
                Some(format!("`[{}]` has no `{}`", t, field)),
            ),
            None => (
                format!("missing key `{}`", field),
                Some(field.clone()),
                Some(format!("no `{}` at the top level", field)),
            ),
        };
    }
    if let Some((_, expected)) = named("unknown field `") {
        let key = at(&|k: &KeyAt| span == Some(&k.key));
        let label = (!expected.is_empty()).then_some(expected);
        return match key {
            Some(k) => (format!("unknown key `{}`", k), Some(k), label),
            None => (message.to_string(), None, label),
        };
    }
    let key = at(&|k: &KeyAt| span == Some(&k.value) || span == Some(&k.key));
    let label = key.as_ref().map(|k| format!("`{}`", k));
    (message.to_string(), key, label)
}

/// A problem at `span` of the file, rendered as the compiler renders its diagnostics.
fn file_error(
    text: &str,
    origin: &str,
    span: Option<Range<usize>>,
    message: &str,
    key: Option<String>,
    label: Option<String>,
) -> PlatformError {
    let mut sources = SourceMap::new();
    let file = sources.add(origin, origin.into(), text.to_string());
    let range = span.unwrap_or(0..0);
    let lo = range.start.min(text.len());
    let span = Span::new(file, lo, range.end.clamp(lo, text.len()));
    let mut d = Diag::error(span, message);
    if let Some(l) = label {
        d = d.label(l);
    }
    PlatformError::File(FileError {
        location: sources.location(span),
        message: message.to_string(),
        key,
        rendered: diag::render(&sources, &[d]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_platform_loads_and_validates() {
        for (name, _) in BUILTIN {
            let p = Platform::load(name).unwrap_or_else(|e| panic!("{}: {}", name, e));
            assert_eq!(&p.name, name);
            assert_eq!(p.source, "builtin");
        }
    }

    /// `[channels]`: on the platforms with partition camping, absent elsewhere; validated.
    #[test]
    fn channels_table() {
        let ch = |n: &str| {
            Platform::load(n)
                .unwrap()
                .channels
                .map(|c| (c.count.get(), c.interleave_bytes.get()))
        };
        assert_eq!(ch("hd7850"), Some((8, 256)));
        assert_eq!(ch("gtx690"), Some((4, 256)));
        assert_eq!(ch("gtx-titan"), Some((6, 256)));
        assert_eq!(ch("a100"), None);
        assert_eq!(ch("pocl-cpu"), None);
        let c = Platform::load("hd7850").unwrap().channels.unwrap();
        assert_eq!(
            (c.of(0), c.of(255), c.of(256), c.of(8 * 256 + 300)),
            (0, 0, 1, 1)
        );
        let with = |t: &str| format!("{}\n[model]\n{}", bare(), t);
        let p = Platform::parse(
            &with("[channels]\ncount = 2\ninterleave_bytes = 512\n"),
            "t",
        )
        .unwrap();
        assert_eq!(p.channels.map(|c| c.count.get()), Some(2));
        assert!(rendered(&with("[channels]\ncount = 2\n"))
            .contains("missing key `channels.interleave_bytes`"));
        let r = rendered(&with("[channels]\ncount = 2\ninterleave_bytes = 100\n"));
        assert!(
            r.contains("interleave_bytes 100 is not a power of two"),
            "{r}"
        );
        assert!(r.contains("t.toml:"), "{r}");
    }

    #[test]
    fn paper_table3_figures() {
        let p = Platform::load("gtx690").unwrap();
        assert_eq!(p.smem_per_sm, 48 * 1024);
        assert_eq!(p.clock_mhz, 915);
        assert_eq!(p.theta_s, 0.25);
        // (13): 0.25 × 48 × 1024 = 12288 bytes per thread block.
        assert_eq!(p.smem_budget(), 12288);
        let hd = Platform::load("hd7850").unwrap();
        assert_eq!(hd.smem_per_sm, 64 * 1024);
        assert_eq!(hd.smem_per_block, 32 * 1024);
        assert_eq!(hd.warp_size, 64);
        let t = Platform::load("gtx-titan").unwrap();
        assert_eq!((t.clock_mhz, t.bandwidth_gbs), (837, 288.4));
        let c = Platform::load("c2050").unwrap();
        assert_eq!((c.clock_mhz, c.bandwidth_gbs), (1150, 144.0));
    }

    #[test]
    fn load_by_path_and_list() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/platforms/h100.toml");
        let p = Platform::load(path).unwrap();
        assert_eq!((p.name.as_str(), p.source.as_str()), ("h100", path));
        assert_eq!(p.smem_per_block, 232448);
        let list = list_platforms();
        assert!(list.lines().count() == BUILTIN.len() + 2, "{}", list);
        assert!(list.starts_with("gtx690 "), "{}", list);
        let e = Platform::load("device:x").unwrap_err();
        assert!(e.to_string().contains("expected `device:N`"), "{}", e);
        assert_eq!(e.render(), format!("error: {}\n", e));
    }

    #[test]
    fn resident_blocks() {
        let p = Platform::load("gtx690").unwrap();
        assert_eq!(p.resident_blocks(1024, 8192), 2);
        assert_eq!(p.resident_blocks(64, 0), 16);
        assert_eq!(p.resident_blocks(128, 24576), 2);
    }

    /// The gtx690 file with its comments, `[model]` and last key removed.
    fn bare() -> String {
        let text = BUILTIN[0].1;
        let text = &text[..text.find("[model]").unwrap()];
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_model_table_has_defaults() {
        let p = Platform::parse(&bare(), "t.toml").unwrap();
        assert_eq!((p.theta_s, p.theta_r), (DEFAULT_THETA_S, DEFAULT_THETA_R));
        assert_eq!(p.source, "t.toml");
        let p = Platform::parse(&format!("{}\n[model]\ntheta_r = 2\n", bare()), "t").unwrap();
        assert_eq!((p.theta_s, p.theta_r), (DEFAULT_THETA_S, 2.0));
        // TOML as TOML: comments, underscores in numbers, literal strings, inline tables.
        let text = bare()
            .replace("bytes_per_sm = 49152", "bytes_per_sm = 49_152 # 48 KB")
            .replace("vendor = \"nvidia\"", "vendor = 'nvidia'");
        let p = Platform::parse(&text, "t").unwrap();
        assert_eq!((p.smem_per_sm, p.vendor.as_str()), (49152, "nvidia"));
        let text = format!(
            "{}\nmodel = {{ theta_s = 0.5 }}\n",
            &bare()[..bare().find("[simt]").unwrap()]
        );
        let text = format!("{}{}", text, &bare()[bare().find("[simt]").unwrap()..]);
        assert_eq!(Platform::parse(&text, "t").unwrap().theta_s, 0.5);
    }

    fn rendered(text: &str) -> String {
        match Platform::parse(text, "t.toml").unwrap_err() {
            PlatformError::File(f) => f.rendered,
            e => panic!("not a file error: {:?}", e),
        }
    }

    #[test]
    fn errors_name_the_key_and_the_line() {
        // (replace this, by this, in the gtx690 file): the diagnostic.
        let cases = [
            (
                "warp_size = 32",
                "warp_size = 33",
                "error: warp_size 33 is not a power of two
   ┌─ t.toml:15:13
   │
15 │ warp_size = 33
   │             ^^ `simt.warp_size`

",
            ),
            (
                "theta_r = 1.5",
                "theta_r = 1.5\ntheta_x = 2",
                "error: unknown key `model.theta_x`
   ┌─ t.toml:47:1
   │
47 │ theta_x = 2
   │ ^^^^^^^ expected `theta_s` or `theta_r`

",
            ),
            (
                "sm_count = 8\n",
                "",
                "error: missing key `simt.sm_count`
   ┌─ t.toml:14:1
   │
14 │ [simt]
   │ ^^^^^^ `[simt]` has no `sm_count`

",
            ),
            (
                "sm_count = 8\n",
                "sm_count = \"8\"\n",
                "error: invalid type: string \"8\", expected a nonzero u32
   ┌─ t.toml:25:12
   │
25 │ sm_count = \"8\"
   │            ^^^ `simt.sm_count`

",
            ),
            (
                "sm_count = 8\n",
                "sm_count = 0\n",
                "error: invalid value: integer `0`, expected a nonzero u32
   ┌─ t.toml:25:12
   │
25 │ sm_count = 0
   │            ^ `simt.sm_count`

",
            ),
            (
                "sm_count = 8\n",
                "sm_count = 8\nsm_count = 9\n",
                "error: duplicate key `sm_count`
   ┌─ t.toml:26:1
   │
26 │ sm_count = 9
   │ ^^^^^^^^

",
            ),
            (
                "[shared]",
                "[shared",
                "error: unclosed table, expected `]`
   ┌─ t.toml:28:8
   │
28 │ [shared
   │        ^

",
            ),
            (
                "[global]",
                "[gloabl]",
                "error: unknown key `gloabl`
   ┌─ t.toml:39:2
   │
39 │ [gloabl]
   │  ^^^^^^ expected one of `name`, `description`, `vendor`, `simt`, `shared`, `global`, `model`, `cache`, `timing`, `channels`

",
            ),
            (
                "max_block_z = 64",
                "max_block_z = 2048",
                "error: max_block_z (2048) exceeds max_threads_per_block (1024)
   ┌─ t.toml:19:15
   │
19 │ max_block_z = 2048
   │               ^^^^ `simt.max_block_z`

",
            ),
            (
                "name = \"gtx690\"\n",
                "",
                "error: missing key `name`
  ┌─ t.toml:1:1
  │
1 │ # NVIDIA GeForce GTX 690 (one of its two GK104 GPUs; Kepler, compute capability 3.0).
  │ ^ no `name` at the top level

",
            ),
        ];
        let gtx = BUILTIN[0].1;
        for (from, to, want) in cases {
            assert!(gtx.contains(from), "{}", from);
            assert_eq!(
                rendered(&gtx.replacen(from, to, 1)),
                want,
                "{} -> {}",
                from,
                to
            );
        }
        // One line, for `accshare platforms` and messages.
        let e = Platform::parse(&gtx.replace("warp_size = 32", "warp_size = 33"), "t.toml");
        assert_eq!(
            e.unwrap_err().to_string(),
            "t.toml:15:13: warp_size 33 is not a power of two (`simt.warp_size`)"
        );
        let e = Platform::parse(&gtx.replace("sm_count = 8\n", ""), "t.toml");
        assert_eq!(
            e.unwrap_err().to_string(),
            "t.toml:14:1: missing key `simt.sm_count`"
        );
        let e = Platform::load("nosuch").unwrap_err();
        assert!(
            e.to_string().starts_with("unknown platform `nosuch`"),
            "{}",
            e
        );
        assert!(matches!(
            Platform::load("/nonexistent/x.toml"),
            Err(PlatformError::Load(_))
        ));
    }

    #[test]
    fn a_platform_file_given_by_path_reports_its_path() {
        let dir = std::env::temp_dir().join(format!("accshare-platform-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, BUILTIN[0].1.replace("banks = 32", "banks = 24")).unwrap();
        let path = path.to_string_lossy().into_owned();
        let e = Platform::load(&path).unwrap_err();
        let _ = std::fs::remove_dir_all(&dir);
        let PlatformError::File(f) = e else {
            panic!("{:?}", e)
        };
        assert_eq!(f.location, format!("{}:31:9", path));
        assert_eq!(f.key.as_deref(), Some("shared.banks"));
        assert!(
            f.rendered
                .starts_with("error: banks 24 is not a power of two\n"),
            "{}",
            f.rendered
        );
    }
}
