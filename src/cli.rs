//! The command line: `accshare FILE.c --target opencl|cuda`, `accshare check FILE.c`, ….
//!
//! Exit codes: 0 success (warnings included), 1 errors in the input, 2 usage errors.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diag::{self, Diags, SourceMap};
use crate::driver;
use crate::front::preprocess::PpOptions;

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
    /// verified and event-timed on OpenCL devices, and the model's estimate per platform.
    Bench(BenchArgs),
    /// Measure each kernel's schedules on an OpenCL device and cache the fastest for later
    /// compilations for that device (`--platform opencl:N`, or `--tuned`).
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
    /// The OpenCL devices to measure on: `all` (every `opencl:N` of `accshare devices`), a
    /// comma list (`opencl:0,opencl:1`), or `none` (the model's estimates only).
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
    /// The OpenCL device to measure on (`accshare devices` numbers them).
    #[arg(long, value_name = "opencl:N", default_value = "opencl:0")]
    pub device: String,
    /// Seconds for measuring variants, counted after the variants are compiled and the program
    /// traced; the model's choice and the baseline are always measured.
    #[arg(long, value_name = "SECONDS", default_value = "120")]
    pub budget: f64,
    /// Timed runs per variant after the one that verifies it; the median is kept.
    #[arg(long, default_value = "3", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,
    /// The platform the partition engine sizes for (default: the device itself).
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
    /// Schedule the kernels `accshare tune` measured on DEVICE as measured (default: the device
    /// `--platform opencl:N` names, else opencl:0). Implied by `--platform opencl:N`.
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
        use crate::runtime::tune::cache;
        let from_platform = match platform.parse::<DeviceName>() {
            Ok(DeviceName::OpenCl(n)) => Some(n),
            _ => None,
        };
        let index = match (self.no_tuned, self.tuned.as_deref()) {
            (true, _) => return Ok(Default::default()),
            (false, None) => match from_platform {
                Some(n) => n,
                None => return Ok(Default::default()),
            },
            (false, Some("auto")) => from_platform.unwrap_or(0),
            (false, Some(d)) => match d.parse::<DeviceName>() {
                Ok(DeviceName::OpenCl(n)) => n,
                Ok(_) => {
                    eprintln!(
                        "error: `--tuned {}`: the tune cache holds OpenCL devices (`opencl:N`)",
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
        let facts = match crate::model::device::opencl_device(index) {
            Ok(d) => crate::model::device::DeviceFacts::of(&d),
            Err(e) => {
                eprintln!("error: `--tuned`: opencl:{}: {}", index, e);
                return Err(2);
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
    /// from the sequential order); integer reductions are reordered without it (exact).
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
    #[arg(long, value_name = "NAME|FILE.toml|opencl:N", default_value = "a100")]
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
    /// Optimization level of the kernels to run.
    #[arg(long, value_enum, default_value = "share")]
    pub opt: OptLevel,
    /// Outputs each work-item computes: RY rows, RX columns (cyclic, so x stays coalesced);
    /// powers of two dividing the block (default: accshare's choice; 1 turns it off).
    #[arg(long, value_name = "RY[xRX]", value_parser = parse_ilp)]
    pub ilp: Option<Ilp>,
    /// Group 8/16-bit accesses at consecutive addresses along x into vector accesses
    /// (`uchar4`, `short2`; seed 004): each work-item then computes consecutive outputs along
    /// x (default: under `--opt share`, except loop-free nests on CPU devices, whose OpenCL
    /// compiler vectorises them across work-items already; `on` groups those too).
    #[arg(long, value_enum)]
    pub words: Option<Switch>,
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
    /// Optimization level of the kernels to analyze.
    #[arg(long, value_enum, default_value = "share")]
    pub opt: OptLevel,
    /// Outputs each work-item computes: RY rows, RX columns (cyclic, so x stays coalesced);
    /// powers of two dividing the block (default: accshare's choice; 1 turns it off).
    #[arg(long, value_name = "RY[xRX]", value_parser = parse_ilp)]
    pub ilp: Option<Ilp>,
    /// Group 8/16-bit accesses at consecutive addresses along x into vector accesses
    /// (`uchar4`, `short2`; seed 004): each work-item then computes consecutive outputs along
    /// x (default: under `--opt share`, except loop-free nests on CPU devices, whose OpenCL
    /// compiler vectorises them across work-items already; `on` groups those too).
    #[arg(long, value_enum)]
    pub words: Option<Switch>,
    /// Simulate only this many thread blocks per launch and scale the counts.
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Let the access reorder against bank conflicts reassociate floating-point reductions
    /// (each work-item sums a tile row from another start: results may differ in the last bits
    /// from the sequential order); integer reductions are reordered without it (exact).
    #[arg(long)]
    pub reassociate: bool,
    #[command(flatten)]
    pub input: InputArgs,
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
    /// Optimization level (`share` stages the chosen partitions in shared memory; `naive` is the
    /// baseline translation).
    #[arg(long, value_enum, default_value = "share")]
    pub opt: OptLevel,
    /// Outputs each work-item computes: RY rows, RX columns (cyclic, so x stays coalesced);
    /// powers of two dividing the block (default: accshare's choice; 1 turns it off).
    #[arg(long, value_name = "RY[xRX]", value_parser = parse_ilp)]
    pub ilp: Option<Ilp>,
    /// Let the access reorder against bank conflicts reassociate floating-point reductions
    /// (each work-item sums a tile row from another start: results may differ in the last bits
    /// from the sequential order); integer reductions are reordered without it (exact).
    #[arg(long)]
    pub reassociate: bool,
    /// Group 8/16-bit accesses at consecutive addresses along x into vector accesses
    /// (`uchar4`, `short2`; seed 004): each work-item then computes consecutive outputs along
    /// x (default: under `--opt share`, except loop-free nests on CPU devices, whose OpenCL
    /// compiler vectorises them across work-items already; `on` groups those too).
    #[arg(long, value_enum)]
    pub words: Option<Switch>,
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
            &args.file,
            &args.input,
            &args.platform,
            args.opt,
            Some(args.format),
            args.sample,
            args.ilp,
            args.reassociate,
            args.words,
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

fn finish(sources: &SourceMap, diags: &Diags) -> i32 {
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

fn check(args: &CheckArgs) -> i32 {
    let platform = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    if args.lint {
        let opts = driver::Options {
            target: crate::back::Target::OpenCl,
            pp: args.input.pp_options(),
        };
        if let Some(out) = driver::compile(&args.file, &opts, &mut sources, &mut diags) {
            for d in driver::lint(&out, &crate::sim::SimPlatform::from_platform(&platform)) {
                diags.push(d);
            }
        }
        let code = finish(&sources, &diags);
        if code == 0 {
            println!("accshare: {} checked", args.file.display());
        }
        return code;
    }
    let parsed = crate::front::load(
        &args.file,
        &args.input.pp_options(),
        &mut sources,
        &mut diags,
    );
    let code = finish(&sources, &diags);
    if code == 0 {
        if let Some(p) = parsed {
            for r in crate::front::region::summarize(&p.tu, &sources) {
                println!("{}", r);
            }
        }
    }
    code
}

fn compile(args: &CompileArgs) -> i32 {
    let Some(file) = args.file.as_ref() else {
        eprintln!("error: no input file (try `accshare --help`)");
        return 2;
    };
    if let Err(code) = args.platform.load() {
        return code;
    }
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: match args.target {
            TargetArg::Opencl => crate::back::Target::OpenCl,
            TargetArg::Cuda => crate::back::Target::Cuda,
        },
        pp: args.input.pp_options(),
    };
    let oo = driver::OptOptions {
        opt: args.opt.level(),
        platform: args.platform.load().ok(),
        ilp: args.ilp.map(|i| i.rows),
        cols: args.ilp.map(|i| i.cols),
        words: args.words.map(Switch::on),
    };
    let tuned = match args.tuned.load(&args.platform.platform) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let staging = crate::schedule::stage::StageOptions {
        reassociate: args.reassociate,
        ..Default::default()
    };
    let out = driver::compile_staged(file, &opts, &oo, &staging, &tuned, &mut sources, &mut diags);
    let code = finish(&sources, &diags);
    if code != 0 {
        return code;
    }
    let Some(out) = out else { return 1 };
    match args.emit {
        Some(EmitArg::Ir) => print!("{}", out.ir_text),
        Some(EmitArg::Kernel) => print!("{}", out.kernel_source),
        Some(EmitArg::Host) => print!("{}", out.host_source),
        None => match driver::write(&out, file, &args.out_dir, opts.target) {
            Ok(paths) => {
                for p in paths {
                    eprintln!("accshare: wrote {}", p.display());
                }
            }
            Err(e) => {
                eprintln!("error: {}", e);
                return 1;
            }
        },
    }
    0
}

/// The devices `--devices` names: `all` (every OpenCL device; an error when there is none),
/// `none`, or a comma list of `opencl:N`. `cuda:N` is refused: `bench` measures through the
/// OpenCL launcher only (`run --device cuda:N` has the CUDA one).
fn bench_devices(spec: &str) -> Result<Vec<(usize, String)>, i32> {
    use crate::model::device::DeviceName;
    let all = || match crate::runtime::devices::opencl_devices() {
        Ok(d) if !d.is_empty() => Ok(d),
        Ok(_) => Err("no OpenCL device".to_string()),
        Err(e) => Err(e.to_string()),
    };
    match spec.trim() {
        "none" => Ok(Vec::new()),
        "all" => match all() {
            Ok(d) => Ok(d
                .into_iter()
                .map(|(i, f)| (i, format!("{} ({})", f.name, f.platform)))
                .collect()),
            Err(why) => {
                eprintln!("error: `bench` runs on an OpenCL device: {}", why);
                Err(1)
            }
        },
        list => {
            let mut out = Vec::new();
            for item in list.split(',').map(str::trim) {
                match item.parse::<DeviceName>() {
                    Ok(DeviceName::OpenCl(n)) => {
                        if out.iter().any(|(i, _)| *i == n) {
                            continue;
                        }
                        match crate::model::device::query(n) {
                            Ok(f) => out.push((n, format!("{} ({})", f.name, f.platform))),
                            Err(e) => {
                                eprintln!("error: `--devices`: opencl:{}: {}", n, e);
                                return Err(2);
                            }
                        }
                    }
                    Ok(DeviceName::Cuda(n)) => {
                        eprintln!(
                            "error: `--devices cuda:{}`: benchmarking on CUDA devices is not supported yet (no CUDA launcher); use `opencl:N`",
                            n
                        );
                        return Err(2);
                    }
                    Ok(DeviceName::Sim) => {
                        eprintln!("error: `--devices sim`: the simulator's times are the model's estimates (`--platforms`); `--devices` takes `opencl:N`");
                        return Err(2);
                    }
                    Err(e) => {
                        eprintln!("error: `--devices`: {}", e);
                        return Err(2);
                    }
                }
            }
            Ok(out)
        }
    }
}

/// The platforms `--platforms` names: `all` (every shipped description), `none`, or a comma
/// list of names or files.
fn bench_platforms(spec: &str) -> Result<Vec<crate::model::Platform>, i32> {
    let names: Vec<String> = match spec.trim() {
        "none" => Vec::new(),
        "all" => crate::model::platform::BUILTIN
            .iter()
            .map(|(n, _)| n.to_string())
            .collect(),
        list => list.split(',').map(|s| s.trim().to_string()).collect(),
    };
    names
        .iter()
        .map(|n| {
            PlatformArgs {
                platform: n.clone(),
            }
            .load()
        })
        .collect()
}

/// `bench`: every level of every kernel of every program, measured and estimated. Exit 1 when
/// a program does not compile or run, or a level failed or computed wrong results.
fn bench(args: &BenchArgs) -> i32 {
    use crate::runtime::bench::{self, report};
    let platform = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let platforms = match bench_platforms(&args.platforms) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let devices = match bench_devices(&args.devices) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if devices.is_empty() && platforms.is_empty() {
        eprintln!("error: `--devices none --platforms none`: nothing to measure or estimate");
        return 2;
    }
    let opts = bench::BenchOptions {
        pp: args.input.pp_options(),
        platform: platform.clone(),
        devices: devices.iter().map(|(i, _)| *i).collect(),
        platforms: platforms.clone(),
        reps: args.reps as usize,
        sample: args.sample,
        work_dir: std::env::temp_dir().join(format!("accshare-bench-{}", std::process::id())),
    };
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut programs = Vec::new();
    let mut code = 0;
    for file in &args.files {
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let r = bench::bench_file(file, &opts, &mut sources, &mut diags, &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.what.to_string());
        });
        bar.suspend(|| code = code.max(finish(&sources, &diags)));
        match r {
            Ok(p) => programs.push(p),
            Err(bench::BenchError::Compile) => code = code.max(1),
            Err(bench::BenchError::Run(e)) => {
                bar.suspend(|| eprintln!("error: {}: {}", file.display(), e));
                code = code.max(1);
            }
        }
    }
    bar.finish_and_clear();
    let r = bench::BenchReport {
        version: 1,
        compiled_for: platform.name.clone(),
        reps: args.reps as usize,
        devices: devices
            .iter()
            .map(|(i, name)| bench::DeviceInfo {
                device: format!("opencl:{}", i),
                name: name.clone(),
            })
            .collect(),
        platforms: platforms.iter().map(|p| p.name.clone()).collect(),
        programs,
    };
    match args.format {
        BenchFormat::Table if r.programs.is_empty() => {}
        BenchFormat::Table => print!("{}", report::table(&r)),
        BenchFormat::Csv => print!("{}", report::csv(&r)),
        BenchFormat::Json => println!("{}", report::json(&r)),
    }
    if let Some(path) = &args.plot {
        if let Err(e) = bench::plot::svg(&r, path) {
            eprintln!("error: `--plot`: {}", e);
            code = code.max(1);
        }
    }
    let failures = report::failures(&r);
    for f in &failures {
        eprintln!("error: {}", f);
    }
    if failures.is_empty() {
        code
    } else {
        1
    }
}

/// `run`: every region instance of the program replayed on the simulator, an OpenCL device or
/// a CUDA device, and compared with the sequential program.
fn run_regions(args: &RunArgs) -> i32 {
    use crate::model::device::DeviceName;
    let tuned = match args.tuned.load(&args.platform.platform) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let device = match args.device.parse::<DeviceName>() {
        Ok(DeviceName::Sim) => {
            return simulate(
                &args.file,
                &args.input,
                &args.platform,
                args.opt,
                None,
                None,
                args.ilp,
                false,
                args.words,
                &tuned,
            )
        }
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: `--device`: {}", e);
            return 2;
        }
    };
    let loaded = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let pp = args.input.pp_options();
    let cuda = matches!(device, DeviceName::Cuda(_));
    let opts = driver::Options {
        target: if cuda {
            crate::back::Target::Cuda
        } else {
            crate::back::Target::OpenCl
        },
        pp: pp.clone(),
    };
    let oo = driver::OptOptions {
        opt: args.opt.level(),
        platform: Some(loaded),
        ilp: args.ilp.map(|i| i.rows),
        cols: args.ilp.map(|i| i.cols),
        words: args.words.map(Switch::on),
    };
    let out = driver::compile_tuned(&args.file, &opts, &oo, &tuned, &mut sources, &mut diags);
    let code = finish(&sources, &diags);
    let Some(out) = out else { return code.max(1) };
    // The kernels on the device; `strict`: without contracting `a * b + c` into fused
    // multiply-adds (`#pragma OPENCL FP_CONTRACT OFF`, NVRTC's `--fmad=false`).
    let open = |strict: bool| -> Result<Box<dyn crate::sim::trace::Launcher>, String> {
        match device {
            DeviceName::Cuda(n) => {
                let extra: &[&str] = if strict { &["--fmad=false"] } else { &[] };
                crate::runtime::cuda_run::CudaLauncher::new(n, &out.kernel_source, extra)
                    .map(|l| Box::new(l) as Box<dyn crate::sim::trace::Launcher>)
                    .map_err(|e| e.to_string())
            }
            DeviceName::Sim => Err("the simulator runs no kernel source".to_string()),
            DeviceName::OpenCl(n) => {
                let src = if strict {
                    format!("#pragma OPENCL FP_CONTRACT OFF\n{}", out.kernel_source)
                } else {
                    out.kernel_source.clone()
                };
                crate::runtime::run::OpenClLauncher::new(n, &src)
                    .map(|l| Box::new(l) as Box<dyn crate::sim::trace::Launcher>)
                    .map_err(|e| e.to_string())
            }
        }
    };
    let mut launcher = match open(false) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}: {}", device, e);
            return 1;
        }
    };
    let work = std::env::temp_dir().join(format!("accshare-run-{}", std::process::id()));
    let result = crate::sim::trace::build_and_trace(
        &args.file,
        &out.module,
        &pp.defines,
        &pp.include_dirs,
        &work,
    )
    .and_then(|trace| {
        // Floating-point outputs within a relative 1e-5: OpenCL and CUDA let a device fuse
        // `a * b + c`.
        let compare = Some(crate::sim::trace::Compare::Relative(1e-5));
        let r = crate::sim::trace::replay_with(&out.module, &trace, compare, &mut *launcher)?;
        // Differences beyond that, in stencils with cancellation, can still be the rounding of
        // fused multiply-adds: the same kernels built without contraction (the arithmetic of
        // the traced sequential program) tell them apart from wrong results.
        let fma_only = !r.mismatches.is_empty()
            && open(true)
                .ok()
                .and_then(|mut strict| {
                    crate::sim::trace::replay_with(&out.module, &trace, compare, &mut *strict).ok()
                })
                .is_some_and(|s| s.mismatches.is_empty());
        Ok((r, fma_only))
    });
    let _ = std::fs::remove_dir_all(&work);
    let (replay, fma_only) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", e);
            return 1;
        }
    };
    let name = device.to_string();
    print!("{}", device_run_text(&out.module, &replay, &name, fma_only));
    if replay.mismatches.is_empty() {
        0
    } else if fma_only {
        for m in &replay.mismatches {
            eprintln!("warning: {}", m);
        }
        if cuda {
            eprintln!("note: compiled with NVRTC's `--fmad=false` every output is equal to the sequential program's: the differences are the rounding of fused multiply-adds, which CUDA allows");
        } else {
            eprintln!("note: built with `#pragma OPENCL FP_CONTRACT OFF` every output is equal to the sequential program's: the differences are the rounding of fused multiply-adds, which OpenCL allows");
        }
        0
    } else {
        for m in &replay.mismatches {
            eprintln!("error: {}", m);
        }
        1
    }
}

/// The kernel times of a device run: launches and event-timed seconds per kernel.
fn device_run_text(
    m: &crate::kernel::Module,
    r: &crate::sim::trace::Replay,
    device: &str,
    fma_only: bool,
) -> String {
    let mut out = format!(
        "{}: {} region instance(s), {} launch(es), {}\n",
        device,
        r.instances,
        r.kernel_seconds.len(),
        if r.mismatches.is_empty() {
            "every output equal to the sequential program's (floating point within a relative 1e-5)"
        } else if fma_only {
            "outputs equal to the sequential program's up to the rounding of fused multiply-adds"
        } else {
            "OUTPUTS DIFFER from the sequential program's"
        }
    );
    for (ki, k) in m.kernels.iter().enumerate() {
        let times: Vec<f64> = r
            .kernel_seconds
            .iter()
            .filter(|(i, _)| *i == ki)
            .map(|(_, t)| *t)
            .collect();
        if times.is_empty() {
            continue;
        }
        let total: f64 = times.iter().sum();
        out.push_str(&format!(
            "  {}: {} launch(es), {:.3} ms in the kernel (event-timed)\n",
            k.name,
            times.len(),
            total * 1e3
        ));
    }
    out
}

/// `run --device sim` (format `None`: check results and report findings) and `analyze`.
#[allow(clippy::too_many_arguments)]
fn simulate(
    file: &std::path::Path,
    input: &InputArgs,
    platform: &PlatformArgs,
    opt: OptLevel,
    format: Option<FormatArg>,
    sample: Option<usize>,
    ilp: Option<Ilp>,
    reassociate: bool,
    words: Option<Switch>,
    tuned: &crate::schedule::tuned::Tuned,
) -> i32 {
    let loaded = match platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let plat = crate::sim::SimPlatform::from_platform(&loaded);
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let pp = input.pp_options();
    let opts = driver::Options {
        target: crate::back::Target::OpenCl,
        pp: pp.clone(),
    };
    let oo = driver::OptOptions {
        opt: opt.level(),
        platform: Some(loaded),
        ilp: ilp.map(|i| i.rows),
        cols: ilp.map(|i| i.cols),
        words: words.map(Switch::on),
    };
    let staging = crate::schedule::stage::StageOptions {
        reassociate,
        ..Default::default()
    };
    let out = driver::compile_staged(file, &opts, &oo, &staging, tuned, &mut sources, &mut diags);
    let code = finish(&sources, &diags);
    let Some(out) = out else { return code.max(1) };
    let sim_opts = crate::sim::SimOptions {
        check: format.is_none(),
        sample_blocks: sample,
        ..Default::default()
    };
    let work = std::env::temp_dir().join(format!("accshare-sim-{}", std::process::id()));
    let result = crate::sim::trace::run_module(file, &out.module, &pp, &plat, &sim_opts, &work);
    let _ = std::fs::remove_dir_all(&work);
    let (replay, report) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", e);
            return 1;
        }
    };
    match format {
        Some(FormatArg::Json) => println!("{}", report.render_json()),
        Some(FormatArg::Text) => print!("{}", report.render_text()),
        None => {
            let findings: Vec<&crate::sim::Finding> =
                replay.runs.iter().flat_map(|r| r.findings.iter()).collect();
            for f in &findings {
                println!("finding: {}", f);
            }
            for m in &replay.mismatches {
                println!("mismatch: {}", m);
            }
            println!(
                "accshare: {} region instance(s), {} launch(es) simulated on {}: {}",
                replay.instances,
                replay.runs.len(),
                plat.name,
                if replay.mismatches.is_empty() && findings.is_empty() {
                    "results identical to the sequential program, no findings".to_string()
                } else {
                    format!(
                        "{} mismatch(es), {} finding(s)",
                        replay.mismatches.len(),
                        findings.len()
                    )
                }
            );
            if !replay.mismatches.is_empty() || !findings.is_empty() {
                return 1;
            }
        }
    }
    0
}

fn explain(args: &ExplainArgs) -> i32 {
    let platform = match args.platform.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut opts = crate::partition::Options::default();
    for s in &args.sizes {
        match s
            .split_once('=')
            .map(|(n, v)| (n.trim(), v.trim().parse::<i64>()))
        {
            Some((n, Ok(v))) if v > 0 && !n.is_empty() => {
                opts.sizes.insert(n.to_string(), v);
            }
            _ => {
                eprintln!(
                    "error: `--size {}`: expected NAME=VALUE with a positive integer value",
                    s
                );
                return 2;
            }
        }
    }
    let format = match args.format {
        FormatArg::Text => crate::explain::Format::Text,
        FormatArg::Json => crate::explain::Format::Json,
    };
    let tuned = match args.tuned.load(&args.platform.platform) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let staging = crate::schedule::stage::StageOptions {
        reassociate: args.reassociate,
        ..Default::default()
    };
    let out = crate::driver::explain_with(
        &args.file,
        &args.input.pp_options(),
        &platform,
        format,
        &opts,
        &staging,
        &tuned,
        &mut sources,
        &mut diags,
    );
    let code = finish(&sources, &diags);
    match out {
        Some(text) if code == 0 => {
            print!("{}", text);
            0
        }
        _ => code.max(1),
    }
}

/// `tune`: measures every kernel's variants on the device, prints them, records the fastest
/// in the tune cache. Exit 1 when the program does not compile or run, or a variant computed
/// wrong results (a bug of accshare, reported).
fn tune(args: &TuneArgs) -> i32 {
    use crate::model::device::DeviceName;
    use crate::runtime::tune::{self, cache};
    let device = match args.device.parse::<DeviceName>() {
        Ok(DeviceName::OpenCl(n)) => n,
        Ok(_) => {
            eprintln!(
                "error: `--device {}`: accshare tunes on OpenCL devices (`opencl:N`)",
                args.device
            );
            return 2;
        }
        Err(e) => {
            eprintln!("error: `--device`: {}", e);
            return 2;
        }
    };
    if !(args.budget.is_finite() && args.budget >= 0.0) {
        eprintln!(
            "error: `--budget {}`: expected a number of seconds",
            args.budget
        );
        return 2;
    }
    let platform_name = args
        .platform
        .clone()
        .unwrap_or_else(|| format!("opencl:{}", device));
    let platform = match (PlatformArgs {
        platform: platform_name,
    })
    .load()
    {
        Ok(p) => p,
        Err(code) => return code,
    };
    let opts = tune::TuneOptions {
        pp: args.input.pp_options(),
        platform,
        budget: std::time::Duration::from_secs_f64(args.budget),
        reps: args.reps as usize,
        work_dir: std::env::temp_dir().join(format!("accshare-tune-{}", std::process::id())),
    };
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} variants {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let report = tune::tune(
        &args.file,
        device,
        &opts,
        &mut sources,
        &mut diags,
        &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.what.to_string());
        },
    );
    bar.finish_and_clear();
    let code = finish(&sources, &diags);
    let report = match report {
        Ok(r) => r,
        Err(tune::TuneError::Compile) => return code.max(1),
        Err(tune::TuneError::Run(e)) => {
            eprintln!("error: {}", e);
            return 1;
        }
    };
    print!("{}", tune::text(&report, &args.file));
    let file = args.file.display().to_string();
    let entries: Vec<_> = report
        .kernels
        .iter()
        .filter_map(|k| k.entry(&file))
        .collect();
    let wrong = report.kernels.iter().any(|k| {
        k.trials
            .iter()
            .any(|t| matches!(t.outcome, tune::Outcome::Wrong(_)))
    });
    if !args.dry_run && !entries.is_empty() {
        let Some(path) = cache::path() else {
            eprintln!("error: no cache directory: set ACCSHARE_CACHE_DIR, XDG_CACHE_HOME or HOME");
            return 1;
        };
        let mut c = match cache::load(&path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "warning: the tune cache is unreadable and is replaced: {}",
                    e
                );
                cache::CacheFile::default()
            }
        };
        let n = entries.len();
        c.record(&report.device, entries);
        if let Err(e) = cache::save(&path, &c) {
            eprintln!("error: {}", e);
            return 1;
        }
        println!("accshare: {} kernel(s) recorded in {}", n, path.display());
    }
    if wrong {
        eprintln!("error: a variant computed results different from the sequential program's (a bug of accshare; it was not chosen)");
        1
    } else {
        code
    }
}

/// `--ilp RY[xRX]`: outputs per work-item along y and x.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ilp {
    pub rows: u32,
    pub cols: u32,
}

fn parse_ilp(s: &str) -> Result<Ilp, String> {
    let factor = |t: &str| -> Result<u32, String> {
        match t.trim().parse::<u32>() {
            Ok(n) if (1..=64).contains(&n) => Ok(n),
            _ => Err(format!("`{}` is not a number from 1 to 64", t)),
        }
    };
    let ilp = match s.split_once(['x', 'X', '×']) {
        Some((r, c)) => Ilp {
            rows: factor(r)?,
            cols: factor(c)?,
        },
        None => Ilp {
            rows: factor(s)?,
            cols: 1,
        },
    };
    // Each output keeps an accumulator (and its loads) in registers: past 64 they spill, and
    // the jammed code grows with the square of the count.
    if ilp.rows * ilp.cols > MAX_OUTPUTS {
        return Err(format!(
            "{}×{} is {} outputs per work-item; at most {}",
            ilp.rows,
            ilp.cols,
            ilp.rows * ilp.cols,
            MAX_OUTPUTS
        ));
    }
    Ok(ilp)
}

/// Most outputs per work-item `--ilp` accepts.
const MAX_OUTPUTS: u32 = 64;
