//! The command line: `accshare FILE.c --target opencl|cuda`, `accshare check FILE.c`, ….
//!
//! Exit codes: 0 success (warnings included), 1 errors in the input, 2 usage errors.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diag::{self, Diags, SourceMap};
use crate::driver;
use crate::front::preprocess::PpOptions;
use crate::schedule::ShapeRequest;

mod compile;
mod device;
mod report;

use compile::{check, compile};
use device::{bench, run_regions, tune};
use report::{explain, simulate};

#[derive(Parser, Debug)]
#[command(
    name = "accshare",
    version,
    about = "Compile C loop nests annotated with OpenACC and `#pragma acc share` to OpenCL and CUDA",
    long_about = "Compile C loop nests annotated with OpenACC and `#pragma acc share` to OpenCL and CUDA.\n\n\
        `accshare FILE.c --target opencl` writes accshare-out/FILE.c (the program with each annotated\n\
        region replaced by kernel launches; build it with `cc accshare-out/FILE.c -lOpenCL -lm`) and\n\
        accshare-out/FILE.cl (the kernels). `--target cuda` writes accshare-out/FILE.c (C, calling the\n\
        CUDA side) and accshare-out/FILE.cu (kernels, launch functions, CUDA runtime calls); build with\n\
        `nvcc -c accshare-out/FILE.cu -o FILE_cu.o` and link `cc accshare-out/FILE.c FILE_cu.o` with\n\
        `-L<CUDA>/lib -lcudart_static -lstdc++ -ldl -lpthread -lrt -lm`.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub compile: CompileArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse, preprocess and validate a file; print one line per annotated region.
    Check(CheckArgs),
    /// Run the program's regions on a device and check them against the sequential program.
    Run(RunArgs),
    /// Simulate the generated kernels and report what a GPU's memory system would see.
    Analyze(AnalyzeArgs),
    /// Show the partition engine's decisions: candidates, partitions, profit, parameters.
    Explain(ExplainArgs),
    /// Measure what each optimization gives, per kernel: naive, +share, +bank and +ILP,
    /// verified and event-timed on OpenCL and CUDA devices, and the model's estimate per
    /// platform.
    Bench(BenchArgs),
    /// Measure each kernel's schedules on an OpenCL or CUDA device and cache the fastest for
    /// later compilations for that device (`--platform opencl:N`, or `--tuned`).
    Tune(TuneArgs),
    /// List the devices of this machine: every OpenCL device of every platform (`opencl:N`),
    /// the CUDA devices (`cuda:N`) and the simulator (`sim`).
    Devices,
    /// List the shipped platform descriptions.
    Platforms,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The C files (whole programs with `main`: their own data is what the kernels run on).
    #[arg(value_name = "FILE.c", required = true)]
    pub files: Vec<PathBuf>,
    /// The devices to measure on: `all` (every `opencl:N` and `cuda:N` of `accshare devices`;
    /// CUDA devices need the NVIDIA driver, their kernels are compiled by NVRTC), a comma list
    /// (`opencl:0,cuda:0`), or `none` (the model's estimates only).
    #[arg(long, value_name = "all|none|LIST", default_value = "all")]
    pub devices: String,
    /// The platform descriptions to estimate on: `all` (every shipped platform), a comma list
    /// of names or files, or `none`.
    #[arg(long, value_name = "all|none|LIST", default_value = "all")]
    pub platforms: String,
    /// Timed runs per level after a warm-up; the median is kept.
    #[arg(long, default_value = "5", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub reps: u32,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: BenchFormat,
    /// Also draw the speed-ups as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Simulate only this many thread blocks per launch for the model's estimates and scale
    /// the counts (as `analyze --sample`).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// The platform the partition engine sizes the measured kernels for.
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `bench`'s output formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    /// Aligned text, with speed-ups over naive.
    Table,
    /// One line per program, kernel, device or platform, and level.
    Csv,
    /// `docs/bench-json.md`.
    Json,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The C file (a whole program with `main`: its own data is what the kernels run on).
    #[arg(value_name = "FILE.c")]
    pub file: PathBuf,
    /// The device to measure on: `opencl:N`, or `cuda:N` (needs the NVIDIA driver; kernels
    /// compiled by NVRTC) (`accshare devices` numbers them).
    #[arg(long, value_name = "opencl:N|cuda:N", default_value = "opencl:0")]
    pub device: String,
    /// Seconds for measuring variants, counted after the variants are compiled and the program
    /// traced; the model's choice and the baseline are always measured.
    #[arg(long, value_name = "SECONDS", default_value = "120")]
    pub budget: f64,
    /// Timed runs per variant after the one that verifies it; the median is kept.
    #[arg(long, default_value = "3", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,
    /// The platform the partition engine sizes for (default: the device itself, queried).
    #[arg(long, value_name = "NAME|FILE.toml|opencl:N")]
    pub platform: Option<String>,
    /// Measure and report, but do not write the cache.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Whether a compilation uses the schedules `accshare tune` measured.
#[derive(Args, Debug, Clone, Default)]
pub struct TunedArgs {
    /// Schedule the kernels `accshare tune` measured on DEVICE (`opencl:N` or `cuda:N`) as
    /// measured (default: the device `--platform opencl:N` names, else opencl:0). Implied by
    /// `--platform opencl:N`.
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, default_missing_value = "auto")]
    pub tuned: Option<String>,
    /// Ignore the tune cache (the model's schedules only).
    #[arg(long, conflicts_with = "tuned")]
    pub no_tuned: bool,
}

impl TunedArgs {
    /// The measured schedules this compilation uses (empty when none apply). A device that
    /// cannot be queried is a usage error when asked for by `--tuned`.
    pub fn load(&self, platform: &str) -> Result<crate::schedule::tuned::Tuned, i32> {
        use crate::model::device::DeviceName;
        use crate::runtime::measure::Device;
        use crate::runtime::tune::cache;
        let from_platform = match platform.parse::<DeviceName>() {
            Ok(DeviceName::OpenCl(n)) => Some(Device::OpenCl(n)),
            _ => None,
        };
        let device = match (self.no_tuned, self.tuned.as_deref()) {
            (true, _) => return Ok(Default::default()),
            (false, None) => match from_platform {
                Some(d) => d,
                None => return Ok(Default::default()),
            },
            (false, Some("auto")) => from_platform.unwrap_or(Device::OpenCl(0)),
            (false, Some(d)) => match d.parse::<DeviceName>().map(Device::of) {
                Ok(Some(device)) => device,
                Ok(None) => {
                    eprintln!(
                        "error: `--tuned {}`: the tune cache holds devices (`opencl:N`, `cuda:N`)",
                        d
                    );
                    return Err(2);
                }
                Err(e) => {
                    eprintln!("error: `--tuned`: {}", e);
                    return Err(2);
                }
            },
        };
        // The cache names a device by its platform and name (`cuda:N`'s platform is
        // `CUDA driver`, NVIDIA's OpenCL's `NVIDIA CUDA`: the same GPU, two keys).
        let facts = match device.facts() {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: `--tuned`: {}: {}", device.name(), e);
                return Err(e.exit_code());
            }
        };
        let Some(path) = cache::path() else {
            return Ok(Default::default());
        };
        match cache::load(&path) {
            Ok(c) => Ok(c.tuned_for(&cache::device_key(&facts))),
            Err(e) => {
                eprintln!("warning: the tune cache is unreadable, not used: {}", e);
                Ok(Default::default())
            }
        }
    }
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The C file to explain.
    #[arg(value_name = "FILE.c")]
    pub file: PathBuf,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    /// Value of a symbolic problem size (`--size n=2048`); others default to 4096.
    #[arg(long = "size", value_name = "NAME=VALUE")]
    pub sizes: Vec<String>,
    /// Let the access reorder against bank conflicts reassociate floating-point reductions
    /// (each work-item sums a tile row from another start: results may differ in the last bits
    /// from the sequential order), and run inner floating-point reductions (`loop seq` ones too)
    /// across the lanes of a work-group (docs/lanes.md); integer reductions are reordered
    /// without it (exact).
    #[arg(long)]
    pub reassociate: bool,
    #[command(flatten)]
    pub tuned: TunedArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// The target description, shared by every command that models a GPU.
#[derive(Args, Debug, Clone)]
pub struct PlatformArgs {
    /// A shipped platform name (`accshare platforms`), a `.toml` file, or `opencl:N` (an OpenCL
    /// device of this machine as `accshare devices` numbers them, queried; `device:N` is an alias).
    #[arg(long, value_name = "NAME|FILE.toml|opencl:N", default_value = crate::model::platform::DEFAULT_PLATFORM)]
    pub platform: String,
}

impl PlatformArgs {
    /// Loads the platform; a bad name or platform file is a usage error (exit 2), a file's
    /// problem reported like a diagnostic of the compiler (`file:line:col`, the line, a caret).
    pub fn load(&self) -> Result<crate::model::Platform, i32> {
        crate::model::Platform::load(&self.platform).map_err(|e| {
            eprint!("{}", e.render());
            2
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The C file (a whole program with `main`).
    #[arg(value_name = "FILE.c")]
    pub file: PathBuf,
    /// Where to run the regions: `sim` (accshare's SIMT simulator), `opencl:N` (the N-th OpenCL
    /// device of `accshare devices`; `device:N` is the same), `cuda:N` (the N-th CUDA device,
    /// kernels compiled by NVRTC; needs the NVIDIA driver).
    #[arg(long, value_name = "sim|opencl:N|cuda:N", default_value = "sim")]
    pub device: String,
    /// Another translation unit of the program (repeatable), compiled into the traced
    /// sequential build with the main file (`run` replays only the main file's regions; those
    /// of the files linked run sequentially).
    #[arg(long = "link", value_name = "FILE.c")]
    pub link: Vec<PathBuf>,
    #[command(flatten)]
    pub opts: OptArgs,
    /// Let floating-point reductions be reassociated: the access reorder against bank
    /// conflicts, and inner reductions (`loop seq` ones too) across the lanes of a work-group
    /// (docs/lanes.md). The comparison with the sequential program then allows the last bits.
    #[arg(long)]
    pub reassociate: bool,
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub tuned: TunedArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// An optimization turned on or off.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    fn on(self) -> bool {
        self == Switch::On
    }
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The C file (a whole program with `main`).
    #[arg(value_name = "FILE.c")]
    pub file: PathBuf,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    #[command(flatten)]
    pub opts: OptArgs,
    /// Simulate only this many thread blocks per launch and scale the counts.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Another translation unit of the program (repeatable), compiled into the traced
    /// sequential build with the main file (`run` replays only the main file's regions; those
    /// of the files linked run sequentially).
    #[arg(long = "link", value_name = "FILE.c")]
    pub link: Vec<PathBuf>,
    /// Let the access reorder against bank conflicts reassociate floating-point reductions
    /// (each work-item sums a tile row from another start: results may differ in the last bits
    /// from the sequential order), and run inner floating-point reductions (`loop seq` ones too)
    /// across the lanes of a work-group (docs/lanes.md); integer reductions are reordered
    /// without it (exact).
    #[arg(long)]
    pub reassociate: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// What the kernels are compiled with, shared by the commands that compile (`compile`, `run`,
/// `analyze`).
#[derive(Args, Debug, Clone, Copy)]
pub struct OptArgs {
    /// Optimization level (`share` stages the chosen partitions in shared memory; `naive` is the
    /// baseline translation).
    #[arg(long, value_enum, default_value = "share")]
    pub opt: OptLevel,
    /// Outputs each work-item computes: RY rows, RX columns (cyclic, so x stays coalesced);
    /// powers of two dividing the block (default: accshare's choice; 1 turns it off).
    #[arg(long, value_name = "RY[xRX]", value_parser = parse_ilp)]
    pub ilp: Option<ShapeRequest>,
    /// Group 8/16-bit accesses at consecutive addresses along x into vector accesses
    /// (`uchar4`, `short2`; seed 004): each work-item then computes consecutive outputs along
    /// x (default: under `--opt share`, except loop-free nests on CPU devices, whose OpenCL
    /// compiler vectorises them across work-items already; `on` groups those too).
    #[arg(long, value_enum)]
    pub words: Option<Switch>,
    /// On a GPU, give every gemm-like staged nest a 2-D register micro-tile of a larger block
    /// tile (the one the model estimates fastest), even where the model prefers another
    /// schedule (`explain` shows its verdict).
    #[arg(long)]
    pub micro: bool,
    /// Let a register micro-tile read its staged tiles as aligned vectors (`float4`): its
    /// rows and columns in runs of 4 adjacent outputs, the `A` tile stored k-major (default
    /// `on`; `off` tries only element reads; docs/model.md).
    #[arg(long, value_enum, value_name = "on|off")]
    pub vector_tiles: Option<Switch>,
    /// Lay a staged kernel's rows per work-item out adjacent where its outputs read
    /// overlapping rows (a stencil: the device compiler loads the rows they share once;
    /// default `on`; `off`: a launched block apart; docs/model.md).
    #[arg(long, value_enum, value_name = "on|off")]
    pub adjacent_rows: Option<Switch>,
}

impl OptArgs {
    /// The driver's options for these flags, compiling for `platform`.
    fn options(&self, platform: Option<crate::model::Platform>) -> driver::OptOptions {
        driver::OptOptions {
            opt: self.opt.level(),
            platform,
            shape: self.ilp.unwrap_or_default(),
            words: self.words.map(Switch::on),
        }
    }
}

/// Options of the preprocessor, shared by every command that reads C.
#[derive(Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// Define a macro: `-D N=1024` or `-D DEBUG`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Add a directory to the `#include "…"` search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

impl InputArgs {
    pub fn pp_options(&self) -> PpOptions {
        PpOptions {
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            include_dirs: self.include.clone(),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    Opencl,
    Cuda,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OptLevel {
    /// The baseline translation: no shared memory.
    Naive,
    /// Stage the partitions the engine chooses in shared memory.
    Share,
}

impl OptLevel {
    fn level(self) -> driver::OptLevel {
        match self {
            OptLevel::Naive => driver::OptLevel::Naive,
            OptLevel::Share => driver::OptLevel::Share,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitArg {
    /// The loop-nest IR of each region.
    Ir,
    /// The kernels in the target language.
    Kernel,
    /// The host translation unit, the `.c` file (OpenCL: with the kernels embedded; CUDA: calling
    /// the launch functions of the `.cu` file).
    Host,
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The C file to compile.
    #[arg(value_name = "FILE.c", required = true)]
    pub file: Option<PathBuf>,
    /// The kernel language to generate.
    #[arg(long, value_enum, default_value = "opencl")]
    pub target: TargetArg,
    /// Output directory.
    #[arg(
        short = 'o',
        long = "out-dir",
        value_name = "DIR",
        default_value = "accshare-out"
    )]
    pub out_dir: PathBuf,
    #[command(flatten)]
    pub opts: OptArgs,
    /// Let the access reorder against bank conflicts reassociate floating-point reductions
    /// (each work-item sums a tile row from another start: results may differ in the last bits
    /// from the sequential order), and run inner floating-point reductions (`loop seq` ones too)
    /// across the lanes of a work-group (docs/lanes.md); integer reductions are reordered
    /// without it (exact).
    #[arg(long)]
    pub reassociate: bool,
    /// Print one stage to stdout instead of writing the output files.
    #[arg(long, value_enum)]
    pub emit: Option<EmitArg>,
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub tuned: TunedArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The C file to check.
    #[arg(value_name = "FILE.c")]
    pub file: PathBuf,
    /// Also compile the regions and warn about uncoalesced global accesses (static lint,
    /// validated against the simulator).
    #[arg(long)]
    pub lint: bool,
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Some(Command::Check(args)) => check(&args),
        Some(Command::Run(args)) => run_regions(&args),
        Some(Command::Analyze(args)) => simulate(
            (&args.file, &args.link),
            &args.input,
            &args.platform,
            args.opts,
            Some(args.format),
            args.sample,
            args.reassociate,
            &Default::default(),
        ),
        Some(Command::Explain(args)) => explain(&args),
        Some(Command::Bench(args)) => bench(&args),
        Some(Command::Tune(args)) => tune(&args),
        Some(Command::Devices) => {
            print!("{}", crate::runtime::devices::report());
            0
        }
        Some(Command::Platforms) => {
            print!("{}", crate::model::list_platforms());
            0
        }
        None => compile(&cli.compile),
    }
}

pub(super) fn finish(sources: &SourceMap, diags: &Diags) -> i32 {
    diag::eprint(sources, &diags.0);
    if diags.has_errors() {
        let n = diags.error_count();
        eprintln!(
            "error: aborting due to {}",
            if n == 1 {
                "1 previous error".to_string()
            } else {
                format!("{} previous errors", n)
            }
        );
        1
    } else {
        0
    }
}

/// `--ilp RY[xRX]`: outputs per work-item along y and x (RX 1 when not given).
fn parse_ilp(s: &str) -> Result<ShapeRequest, String> {
    let factor = |t: &str| -> Result<u32, String> {
        match t.trim().parse::<u32>() {
            Ok(n) if (1..=64).contains(&n) => Ok(n),
            _ => Err(format!("`{}` is not a number from 1 to 64", t)),
        }
    };
    let (rows, cols) = match s.split_once(['x', 'X', '×']) {
        Some((r, c)) => (factor(r)?, factor(c)?),
        None => (factor(s)?, 1),
    };
    // Each output keeps an accumulator (and its loads) in registers: past 64 they spill, and
    // the jammed code grows with the square of the count.
    if rows * cols > MAX_OUTPUTS {
        return Err(format!(
            "{}×{} is {} outputs per work-item; at most {}",
            rows,
            cols,
            rows * cols,
            MAX_OUTPUTS
        ));
    }
    Ok(ShapeRequest::tile(rows, cols))
}

/// Most outputs per work-item `--ilp` accepts.
const MAX_OUTPUTS: u32 = 64;
