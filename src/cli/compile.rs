//! `accshare FILE.c` (compile) and `accshare check`.

use super::*;

pub(super) fn check(args: &CheckArgs) -> i32 {
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

pub(super) fn compile(args: &CompileArgs) -> i32 {
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
    let oo = args.opts.options(args.platform.load().ok());
    let tuned = match args.tuned.load(&args.platform.platform) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let staging = crate::schedule::stage::StageOptions {
        reassociate: args.reassociate,
        micro: args.opts.micro,
        vector_tiles: args.opts.vector_tiles.is_none_or(Switch::on),
        adjacent_rows: args.opts.adjacent_rows.is_none_or(Switch::on),
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
