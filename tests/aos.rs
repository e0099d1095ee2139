//! Arrays of structures in compute regions (issue 14, "AoS → SoA", first part): struct member
//! access `a[i].re` in kernels, on both targets. The corpus programs `aos_*.c` run on the OpenCL
//! device against `cc` at their sizes and at odd ones (partial blocks); their kernels are
//! snapshots (the struct declared as the host declares it, fields accessed by name); the CUDA
//! compiles with NVRTC; the simulator replays them against the sequential program; every struct
//! the kernels cannot index is refused with a located error (the rendered text is a snapshot).

mod exec_support;

use std::path::{Path, PathBuf};

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

const PROGRAMS: &[&str] = &[
    "aos_complex_mul",
    "aos_points_2d",
    "aos_interleaved_pairs",
    "aos_share_cmv",
    "aos_share_written",
    "aos_share_write_cpx",
    "aos_induced_write",
];

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(format!("{name}.c"))
}

fn compile(src: &Path, target: Target) -> driver::Output {
    compile_opt(src, target, &driver::OptOptions::default())
}

/// `--opt share` on the `a100` file (no L1 model: the engine's tiles are staged): arrays of
/// structs the engine chooses staged one tile per field.
fn share() -> driver::OptOptions {
    driver::OptOptions::share().for_platform(accshare::model::Platform::load("a100").expect("a100"))
}

fn compile_opt(src: &Path, target: Target, opt: &driver::OptOptions) -> driver::Output {
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target,
        pp: Default::default(),
    };
    match driver::compile_with(src, &opts, opt, &mut sources, &mut diags) {
        Some(o) => o,
        None => panic!(
            "accshare failed on {}:\n{}",
            src.display(),
            diag::render(&sources, &diags.0)
        ),
    }
}

/// Every AoS program equals the sequential one on the OpenCL device, at its default sizes and
/// at sizes that leave partial blocks, unstaged (`naive`) and at the default level, with and
/// without zero-copy buffers.
#[test]
fn aos_programs_match_sequential_on_opencl() {
    if let Err(why) = exec_support::opencl_available() {
        exec_support::skip_or_fail(&why);
        return;
    }
    let naive = driver::OptOptions::new(driver::OptLevel::Naive);
    let variants = [
        ("naive", naive),
        ("default", driver::OptOptions::default()),
        ("share", share()),
    ];
    let odd = vec![
        ("N".to_string(), "77".to_string()),
        ("M".to_string(), "45".to_string()),
    ];
    let mut failures = Vec::new();
    for p in PROGRAMS {
        for defines in [Vec::new(), odd.clone()] {
            // On a device sharing host memory: zero-copy buffers on the user's arrays (the
            // default there), and device copies.
            for env in [&[][..], &[("ACCSHARE_NO_ZERO_COPY", "1")][..]] {
                if let Err(e) = exec_support::programs::check_variants_with_env(
                    &corpus(p),
                    &defines,
                    &format!("aos-{p}"),
                    &variants,
                    env,
                ) {
                    failures.push(format!("{p} {defines:?} {env:?}: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The kernels declare the struct as the host does (same members, same order) and access the
/// fields by name; the host passes the arrays as their bytes.
#[test]
fn aos_kernel_snapshots() {
    for p in ["aos_complex_mul", "aos_points_2d"] {
        for (t, tag) in [(Target::OpenCl, "cl"), (Target::Cuda, "cu")] {
            let out = compile(&corpus(p), t);
            insta::assert_snapshot!(format!("{p}_{tag}"), out.kernel_source);
        }
    }
    let cl = compile(&corpus("aos_complex_mul"), Target::OpenCl).kernel_source;
    assert!(
        cl.contains("typedef struct { float re; float im; } cpx;"),
        "{cl}"
    );
    assert!(cl.contains("__global const cpx *restrict a"), "{cl}");
    let cu = compile(&corpus("aos_points_2d"), Target::Cuda).kernel_source;
    assert!(
        cu.contains("struct pt { float x; float y; float z; float w; };"),
        "{cu}"
    );
    // The OpenCL element offset of a struct buffer counts structs, not floats.
    let host = compile(&corpus("aos_complex_mul"), Target::OpenCl).host_source;
    assert!(
        host.contains("(cl_long)accshare_o_a / (cl_long)(sizeof(float) * 2)"),
        "{host}"
    );
}

#[test]
fn aos_cuda_compiles_with_nvrtc() {
    use accshare::runtime::nvrtc::{compile_cuda, CompileOutcome};
    let require = accshare::runtime::require_devices();
    let mut failures = Vec::new();
    for (p, opt) in PROGRAMS
        .iter()
        .flat_map(|p| [(p, driver::OptOptions::default()), (p, share())])
    {
        let cu = compile_opt(&corpus(p), Target::Cuda, &opt).kernel_source;
        match compile_cuda(&cu, "compute_75") {
            Ok(CompileOutcome::Compiled { log, .. }) => {
                if !log.trim().is_empty() {
                    failures.push(format!("{p} (NVRTC warnings):\n{log}"));
                }
            }
            Ok(CompileOutcome::Skipped(why)) => {
                assert!(!require, "NVRTC required but unavailable: {why}");
                println!("SKIP: NVRTC compile of {p}: {why}");
            }
            Ok(CompileOutcome::Failed(log)) => failures.push(format!("{p}:\n{log}\n{cu}")),
            Err(e) => failures.push(format!("{p}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The simulator replays every region instance against the sequential program (fields at
/// `index * fields + field` of the buffer): same results, no finding.
#[test]
fn aos_programs_replay_on_the_simulator() {
    use accshare::sim::{trace, SimOptions, SimPlatform};
    let mut failures = Vec::new();
    let runs = PROGRAMS
        .iter()
        .flat_map(|p| [(p, driver::OptOptions::default()), (p, share())]);
    for (i, (p, opt)) in runs.enumerate() {
        let out = compile_opt(&corpus(p), Target::OpenCl, &opt);
        let dir = exec_support::scratch_dir(&format!("aos-sim-{i}"));
        let sim_opts = SimOptions {
            check: true,
            ..Default::default()
        };
        let res = trace::run_module(
            &corpus(p),
            &out.module,
            &Default::default(),
            &SimPlatform::nvidia(),
            &sim_opts,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
        match res {
            Err(e) => failures.push(format!("{p}: {e}")),
            Ok((rep, _)) => {
                failures.extend(rep.mismatches.iter().map(|m| format!("{p}: {m}")));
                for r in &rep.runs {
                    failures.extend(r.findings.iter().map(|f| format!("{p}: {f}")));
                }
                if rep.runs.is_empty() {
                    failures.push(format!("{p}: no region replayed"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every struct the kernels cannot index, and every member access they cannot compile, is a
/// located error; the rendered text is recorded.
#[test]
fn aos_errors_are_located() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).expect("cd");
    for name in [
        "struct_in_kernel",
        "aos_nested_struct",
        "aos_member_of_member",
        "aos_array_in_struct",
        "aos_pointer_in_struct",
        "aos_bitfield",
        "aos_union",
        "aos_whole_struct",
        "aos_unknown_member",
        "aos_mixed_types",
        "aos_atomic_field",
    ] {
        let rel = format!("tests/errors/{name}.c");
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = driver::Options {
            target: Target::OpenCl,
            pp: Default::default(),
        };
        let ok = driver::compile_with(
            Path::new(&rel),
            &opts,
            &driver::OptOptions::default(),
            &mut sources,
            &mut diags,
        )
        .is_some();
        let text = diag::render(&sources, &diags.0);
        assert!(!ok, "{rel} compiled:\n{text}");
        assert!(
            text.contains(&format!("{rel}:")),
            "{rel}: not located:\n{text}"
        );
        insta::assert_snapshot!(format!("error_{name}"), text);
    }
}

fn accshare() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_accshare"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn cli(args: &[&str]) -> String {
    let out = accshare().args(args).output().expect("run accshare");
    assert!(
        out.status.success(),
        "accshare {:?} failed:\n{}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// AoS → SoA (issue 14, Table 1): under `--opt share` an array of structs the engine chooses
/// is staged as one `__local` tile per referenced field, copied field by field and read with
/// the plain tile indexing (the kernel is a snapshot); a written one stays in global memory.
#[test]
fn aos_share_stages_one_tile_per_field() {
    let cl = compile_opt(&corpus("aos_share_cmv"), Target::OpenCl, &share()).kernel_source;
    insta::assert_snapshot!("aos_share_cmv_share_cl", cl);
    for tile in [
        "__local float accshare_sh_A_re[",
        "__local float accshare_sh_A_im[",
        "__local float accshare_sh_x_re[",
        "__local float accshare_sh_x_im[",
        "__local float accshare_sh_w_re[",
        "__local float accshare_sh_w_im[",
    ] {
        assert!(cl.contains(tile), "{tile}:\n{cl}");
    }
    assert!(cl.contains("].re;"), "{cl}");
    assert!(!cl.contains("__local cpx"), "{cl}");
    // The interleaved form: one tile per residue (`x[2*i]`, `x[2*i + 1]`), read at `i`.
    let pairs =
        compile_opt(&corpus("aos_interleaved_pairs"), Target::OpenCl, &share()).kernel_source;
    assert_contains(
        &pairs,
        &[
            "__local float accshare_sh_x_r0[64];",
            "__local float accshare_sh_x_r1[64];",
            "accshare_sh_x_r1[accshare_l] = x[2 * (accshare_o_x_r1_0 + accshare_l) + 1];",
            "accshare_sh_x_r1[i - accshare_o_x_r1_0]",
        ],
    );
    // A written array of structs (issue 14, written part): one tile per referenced field,
    // loaded first where read, stored back field by field; a field not referenced gets no tile
    // and is never stored.
    let written = compile_opt(&corpus("aos_share_written"), Target::OpenCl, &share()).kernel_source;
    assert_contains(&written, &[
        "__local float accshare_sh_acc_re[1056];",
        "// load the tile of field `re` of `acc` (32x32; AoS → SoA)",
        "// store the tile of field `re` of `acc` (32x32; AoS → SoA)",
        "acc[(accshare_o_acc_re_0 + accshare_r) * 67 + (accshare_o_acc_re_1 + accshare_c)].re = accshare_sh_acc_re[accshare_r * 33 + accshare_c];",
    ]);
    assert!(!written.contains("accshare_sh_acc_im"), "{written}");
    assert!(!written.contains("].im"), "{written}");
    // Written in place: each written field stored back (the conditional `im` loaded first),
    // the field only read never stored, the untouched field `m` never named; the interleaved
    // written form one tile per residue.
    let cpx = compile_opt(&corpus("aos_share_write_cpx"), Target::OpenCl, &share()).kernel_source;
    insta::assert_snapshot!("aos_share_write_cpx_share_cl", cpx);
    assert_contains(
        &cpx,
        &[
            "// store the tile of field `re` of `y`",
            "// store the tile of field `im` of `y`",
            "// store the tile of field `re` of `z`",
            "// store the tile of field `im` of `z`",
            "// store the tile of field `x` of `b`",
            "// store the tile of the elements 2·i of `u`",
            "// store the tile of the elements 2·i + 1 of `u`",
        ],
    );
    for absent in [
        "store the tile of field `y` of `b`",
        "].m",
        "store the tile of the elements 2·i of `t`",
    ] {
        assert!(!cpx.contains(absent), "{absent}:\n{cpx}");
    }
    let cdamp = cpx
        .split("// kernel ")
        .find(|k| k.starts_with("cdamp_t"))
        .expect("cdamp_t");
    assert!(
        cdamp.contains("// load the tile of field `im` of `z`"),
        "{cdamp}"
    );
    assert!(
        cdamp.contains("// store the tile of field `im` of `z`"),
        "{cdamp}"
    );
    assert!(
        !cdamp.contains("// store the tile of field `re` of `z`"),
        "{cdamp}"
    );
    let drift = cpx
        .split("// kernel ")
        .find(|k| k.starts_with("drift_t"))
        .expect("drift_t");
    assert!(
        !drift.contains("// load the tile of field `x` of `b`"),
        "{drift}"
    );
    // Induced (no `share` hint): the engine stages the written arrays itself.
    let induced = compile_opt(&corpus("aos_induced_write"), Target::OpenCl, &share()).kernel_source;
    assert_contains(
        &induced,
        &[
            "// store the tile of field `re` of `y`",
            "// store the tile of field `im` of `y`",
            "// store the tile of the elements 2·i of `u`",
            "// store the tile of the elements 2·i + 1 of `u`",
        ],
    );
}

/// `explain` names the technique (text and JSON) with the degree of the struct tiled as it is
/// (a stride of the struct's size) and of each field's tile; the reason a written array of
/// structs is not staged is rendered text.
#[test]
fn aos_share_explain_says_aos_to_soa() {
    let text = cli(&[
        "explain",
        "--platform",
        "a100",
        "tests/corpus/aos_share_cmv.c",
    ]);
    insta::assert_snapshot!("explain_aos_share_cmv_a100", text);
    assert!(
        text.contains("stages A.re[64][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts)"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&cli(&[
        "explain",
        "--format",
        "json",
        "--platform",
        "a100",
        "tests/corpus/aos_share_cmv.c",
    ]))
    .expect("JSON");
    let banks: Vec<serde_json::Value> = v["regions"]
        .as_array()
        .expect("regions")
        .iter()
        .flat_map(|r| r["kernels"].as_array().cloned().unwrap_or_default())
        .flat_map(|k| k["bank"].as_array().cloned().unwrap_or_default())
        .collect();
    insta::assert_snapshot!(
        "explain_json_aos_share_cmv_bank_a100",
        serde_json::to_string_pretty(&banks).expect("JSON")
    );
    let got: Vec<(String, String, u64, u64)> = banks
        .iter()
        .map(|b| {
            (
                b["local"].as_str().unwrap_or("?").to_string(),
                b["technique"].as_str().unwrap_or("?").to_string(),
                b["degree_before"].as_u64().unwrap_or(0),
                b["degree_after"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want = |l: &str, before: u64| (l.to_string(), "AoS→SoA".to_string(), before, 1);
    assert_eq!(
        got,
        vec![
            want("accshare_sh_A_re", 32),
            want("accshare_sh_A_im", 32),
            want("accshare_sh_x_re", 1),
            want("accshare_sh_x_im", 1),
            want("accshare_sh_w_re", 2),
            want("accshare_sh_w_im", 2),
        ]
    );
    let text = cli(&[
        "explain",
        "--platform",
        "a100",
        "tests/corpus/aos_interleaved_pairs.c",
    ]);
    assert!(
        text.contains("stages out[64] (AoS → SoA: the elements 2·i of the interleaved array) (written through: loaded first, stored back coalesced), out[64] (AoS → SoA: the elements 2·i + 1 of the interleaved array) (written through: loaded first, stored back coalesced), w[64] (AoS → SoA: the elements 2·i of the interleaved array), w[64] (AoS → SoA: the elements 2·i + 1 of the interleaved array), x[64]"),
        "{text}"
    );
    assert!(
        text.contains("bank conflicts of `x` (accshare_sh_x_r1): AoS→SoA: `x[2·i + 1]` of the interleaved `x` in a tile of its own (structure of arrays): the references' strides shrink from the struct's 8 B to the field's 4 B; degree 2 → 1"),
        "{text}"
    );
    let text = cli(&[
        "explain",
        "--platform",
        "a100",
        "tests/corpus/aos_share_written.c",
    ]);
    assert!(
        text.contains("    note: --opt share stages acc.re[32][32] (AoS → SoA: a tile per field) (rows padded to 33 against bank conflicts) (written through: loaded first, stored back coalesced) in the generated code"),
        "{text}"
    );
    // Written arrays of structs in place: the written tiles per field and per residue.
    let text = cli(&[
        "explain",
        "--platform",
        "a100",
        "tests/corpus/aos_share_write_cpx.c",
    ]);
    insta::assert_snapshot!("explain_aos_share_write_cpx_a100", text);
    assert_contains(&text, &[
        "y.re[64] (AoS → SoA: a tile per field) (written through: loaded first, stored back coalesced), y.im[64] (AoS → SoA: a tile per field) (written through: loaded first, stored back coalesced)",
        "z.re[32][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts), z.im[32][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts) (written through: loaded first, stored back coalesced)",
        "b.x[32][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts) (written through: stored back coalesced), b.y[32][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts) in",
        "u[32][16] (AoS → SoA: the elements 2·i + 1 of the interleaved array) (rows padded to 17 against bank conflicts) (written through: loaded first, stored back coalesced)",
    ]);
    let v: serde_json::Value = serde_json::from_str(&cli(&[
        "explain",
        "--format",
        "json",
        "--platform",
        "a100",
        "tests/corpus/aos_share_write_cpx.c",
    ]))
    .expect("JSON");
    let kernels: Vec<serde_json::Value> = v["regions"]
        .as_array()
        .expect("regions")
        .iter()
        .flat_map(|r| r["kernels"].as_array().cloned().unwrap_or_default())
        .collect();
    let notes: Vec<String> = kernels
        .iter()
        .flat_map(|k| k["notes"].as_array().cloned().unwrap_or_default())
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("b.x[32][16] (AoS → SoA: a tile per field) (rows padded to 17 against bank conflicts) (written through: stored back coalesced)")),
        "{notes:#?}"
    );
    let locals: Vec<(String, bool)> = kernels
        .iter()
        .flat_map(|k| k["bank"].as_array().cloned().unwrap_or_default())
        .map(|b| {
            (
                b["local"].as_str().unwrap_or("?").to_string(),
                b["written"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    for (l, w) in [
        ("accshare_sh_y_re", true),
        ("accshare_sh_z_im", true),
        ("accshare_sh_b_x", true),
        ("accshare_sh_b_y", false),
        ("accshare_sh_u_r1", true),
        ("accshare_sh_t_r1", false),
    ] {
        assert!(locals.contains(&(l.to_string(), w)), "{l} {w}: {locals:?}");
    }
}

/// The simulator sees the field tiles conflict-free on the shipped GPUs the tree decided for.
#[test]
fn aos_share_tiles_are_conflict_free_in_the_simulator() {
    for platform in ["a100", "gtx690", "hd7850"] {
        let out = cli(&[
            "analyze",
            "--format",
            "json",
            "--sample",
            "4",
            "--platform",
            platform,
            "tests/corpus/aos_share_cmv.c",
        ]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        for k in v["kernels"].as_array().expect("kernels") {
            assert_eq!(
                k["bank_conflict_degree"]["max"].as_u64(),
                Some(1),
                "{platform}: {k}"
            );
        }
    }
}

/// Asserts that `text` contains every one of `pieces` (the whole text on failure).
fn assert_contains(text: &str, pieces: &[&str]) {
    for piece in pieces {
        assert!(text.contains(piece), "{piece}:\n{text}");
    }
}
