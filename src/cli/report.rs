//! The commands that report on the compiler's decisions: `analyze` (and `run --device sim`)
//! and `explain`.

use super::*;

/// `run --device sim` (format `None`: check results and report findings) and `analyze`.
#[allow(clippy::too_many_arguments)]
pub(super) fn simulate(
    (file, link): (&std::path::Path, &[std::path::PathBuf]),
    input: &InputArgs,
    platform: &PlatformArgs,
    flags: OptArgs,
    format: Option<FormatArg>,
    sample: Option<usize>,
    reassociate: bool,
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
    let oo = flags.options(Some(loaded));
    let staging = crate::schedule::stage::StageOptions {
        reassociate,
        micro: flags.micro,
        vector_tiles: flags.vector_tiles.is_none_or(Switch::on),
        adjacent_rows: flags.adjacent_rows.is_none_or(Switch::on),
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
    let result =
        crate::sim::trace::run_module_linked(file, link, &out.module, &pp, &plat, &sim_opts, &work);
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
            for a in &replay.aliased {
                println!("note: {}", a);
            }
            let compared = match replay.aliased.len() {
                0 => String::new(),
                n => format!(" ({} not compared: aliased arrays)", n),
            };
            println!(
                "accshare: {} region instance(s){}, {} launch(es) simulated on {}: {}",
                replay.instances,
                compared,
                replay.runs.len(),
                plat.name,
                if replay.mismatches.is_empty() && findings.is_empty() && replay.reordered > 0 {
                    format!(
                        "results identical to the sequential program ({} instance(s) within a relative 1e-5: they compute from a floating-point reduction, summed in another order), no findings",
                        replay.reordered
                    )
                } else if replay.mismatches.is_empty() && findings.is_empty() {
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

pub(super) fn explain(args: &ExplainArgs) -> i32 {
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
