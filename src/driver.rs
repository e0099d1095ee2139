//! The compilation pipeline, stage by stage: front end → IR → dependences → kernel IR and host
//! plan → back ends → output text.

use std::path::{Path, PathBuf};

use crate::analysis::dependence;
use crate::back::output::{self, Target};
use crate::diag::{Diags, SourceMap};
use crate::front::preprocess::PpOptions;
use crate::ir::lower::find_regions;
use crate::kernel::lower::{lower_data, lower_region, Ctx};
use crate::kernel::Module;

#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub pp: PpOptions,
}

/// What one compilation produced.
#[derive(Clone, Debug)]
pub struct Output {
    /// The loop-nest IR of every region (`--emit ir`).
    pub ir_text: String,
    /// The kernels in the target language (`--emit kernel`, the `.cl` file).
    pub kernel_source: String,
    /// The whole output translation unit (`--emit host`, the `.c`/`.cu` file).
    pub host_source: String,
    pub module: Module,
}

/// Compiles a file. Returns `None` when there are errors (they are in `diags`).
pub fn compile(
    file: &Path,
    opts: &Options,
    sources: &mut SourceMap,
    diags: &mut Diags,
) -> Option<Output> {
    let parsed = crate::front::load(file, &opts.pp, sources, diags)?;
    if diags.has_errors() {
        return None;
    }
    let regions = find_regions(&parsed.tu, sources, diags);
    let ctx = Ctx {
        sources,
        pp: &parsed.pp,
        main: parsed.main,
    };
    let mut module = Module::default();
    let mut ir_text = String::new();
    for (i, r) in regions.compute.iter().enumerate() {
        ir_text.push_str(&format!("// {}\n{}\n", sources.location(r.ir.span), r.ir));
        let deps = dependence::analyze(&r.ir);
        ir_text.push_str("  schedule φ and placement Q:\n");
        ir_text.push_str(&crate::kernel::lower::schedule_text(r, &deps));
        ir_text.push('\n');
        for d in dependence::check_claims(&r.ir, &deps, Some(sources)) {
            diags.push(d);
        }
        if let Some(h) = lower_region(&ctx, r, &deps, i, &mut module, diags) {
            module.host.push(h);
        }
    }
    for d in &regions.data {
        if let Some(h) = lower_data(&ctx, d, diags) {
            module.host.push(h);
        }
    }
    module.host.sort_by_key(|h| h.replace.start);
    diags.sort();
    if diags.has_errors() {
        return None;
    }
    let kernel_source = match opts.target {
        Target::OpenCl => crate::back::opencl::print_module(&module),
        Target::Cuda => crate::back::cuda::print_module(&module),
    };
    let host_source = output::assemble(
        sources.text(parsed.main),
        &module,
        &kernel_source,
        opts.target,
    );
    Some(Output {
        ir_text,
        kernel_source,
        host_source,
        module,
    })
}

/// Writes the output files of a compilation into `dir`.
pub fn write(
    out: &Output,
    input: &Path,
    dir: &Path,
    target: Target,
) -> Result<Vec<PathBuf>, String> {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    output::write_outputs(
        dir,
        &stem,
        input,
        &out.host_source,
        &out.kernel_source,
        target,
    )
    .map_err(|e| e.to_string())
}
