//! The partition engine end to end: `explain` on every example for several platforms
//! (snapshots in tests/snapshots), the paper's gemm check through the JSON report, and a
//! property test that the chosen configuration satisfies every constraint of its platform for
//! random loop nests on random platforms.

use std::path::Path;

use accshare::analysis::dependence;
use accshare::diag::{Diags, SourceMap};
use accshare::explain::Format;
use accshare::front::preprocess::PpOptions;
use accshare::ir::lower::find_regions;
use accshare::model::Platform;
use accshare::partition::{self, Options};

const EXAMPLES: &[&str] = &[
    "conv3x3",
    "gauss",
    "gemm",
    "hotspot",
    "jacobi",
    "mt",
    "mv",
    "saxpy_ptr",
];
const PLATFORMS: &[&str] = &["gtx690", "hd7850", "c2050", "h100", "mi300x", "pocl-cpu"];

fn explain_file(file: &str, platform: &str, format: Format) -> String {
    let p = Platform::load(platform).expect("platform");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let out = accshare::driver::explain(
        Path::new(file),
        &PpOptions::default(),
        &p,
        format,
        &Options::default(),
        &Default::default(),
        &mut sources,
        &mut diags,
    );
    assert!(
        !diags.has_errors(),
        "{}",
        accshare::diag::render(&sources, &diags.iter().cloned().collect::<Vec<_>>())
    );
    out.expect("explain")
}

#[test]
fn explain_snapshots_text() {
    for ex in EXAMPLES {
        for p in PLATFORMS {
            let out = explain_file(&format!("examples/{}.c", ex), p, Format::Text);
            insta::assert_snapshot!(format!("explain_{}_{}", ex, p), out);
        }
    }
}

/// A plain OpenACC gemm (no share pragma): the seeds are induced (`B[k2][TB_X]`,
/// `A[TB_Y][k1]`, as the pragma of examples/gemm.c) and shown as such.
#[test]
fn explain_snapshots_plain_gemm_induced_seeds() {
    let file = "tests/corpus/plain_gemm.c";
    let text = explain_file(file, "gtx690", Format::Text);
    assert!(text.contains("seeds: induced (no share pragma): A[TB_Y][k1], B[k2][TB_X]"));
    insta::assert_snapshot!("explain_plain_gemm_gtx690", text);
    insta::assert_snapshot!(
        "explain_json_plain_gemm_gtx690",
        explain_file(file, "gtx690", Format::Json)
    );
}

#[test]
fn explain_snapshots_json() {
    for ex in EXAMPLES {
        let out = explain_file(&format!("examples/{}.c", ex), "gtx690", Format::Json);
        insta::assert_snapshot!(format!("explain_json_{}_gtx690", ex), out);
    }
}

/// The report as a JSON value (serde_json: strict RFC 8259), to check it is valid JSON.
mod json {
    pub fn parse(s: &str) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(s)
    }
}

#[test]
fn gemm_json_matches_the_paper() {
    let out = explain_file("examples/gemm.c", "gtx690", Format::Json);
    let v = json::parse(&out).expect("valid JSON");
    let k = v
        .get("regions")
        .and_then(|r| r.get(0))
        .and_then(|r| r.get("kernels"))
        .and_then(|k| k.get(0))
        .unwrap();
    let block: Vec<f64> = (0..3)
        .map(|i| {
            k.get("block")
                .and_then(|b| b.get(i))
                .and_then(|x| x.as_f64())
                .unwrap()
        })
        .collect();
    assert_eq!(block, vec![32.0, 32.0, 1.0]);
    assert_eq!(
        k.get("smem_with_block_fixed").and_then(|s| s.as_str()),
        Some("k1 + k2 <= 96")
    );
    let params = k.get("params").unwrap();
    assert_eq!(params.get("k1").and_then(|x| x.as_f64()), Some(32.0));
    assert_eq!(params.get("k2").and_then(|x| x.as_f64()), Some(32.0));
    let shared = k.get("shared_arrays").unwrap();
    assert_eq!(
        shared
            .get(0)
            .and_then(|a| a.get("array"))
            .and_then(|a| a.as_str()),
        Some("A")
    );
    assert_eq!(
        shared
            .get(0)
            .and_then(|a| a.get("shape_expr"))
            .and_then(|a| a.as_str()),
        Some("[TB_Y][k2]")
    );
    assert_eq!(
        shared
            .get(0)
            .and_then(|a| a.get("bytes"))
            .and_then(|a| a.as_f64()),
        Some(4096.0)
    );
    assert_eq!(
        shared
            .get(1)
            .and_then(|a| a.get("shape_expr"))
            .and_then(|a| a.as_str()),
        Some("[k1][TB_X]")
    );
    assert!(k.get("profit").and_then(|p| p.as_f64()).unwrap() > 0.0);
}

#[test]
fn every_json_report_parses() {
    for ex in EXAMPLES {
        for p in ["gtx690", "hd7850", "h100"] {
            let out = explain_file(&format!("examples/{}.c", ex), p, Format::Json);
            let v = json::parse(&out).unwrap_or_else(|e| panic!("{} on {}: {}", ex, p, e));
            for r in 0.. {
                let Some(region) = v.get("regions").and_then(|x| x.get(r)) else {
                    break;
                };
                for k in 0.. {
                    let Some(kernel) = region.get("kernels").and_then(|x| x.get(k)) else {
                        break;
                    };
                    assert!(kernel.get("block").is_some() && kernel.get("shared_arrays").is_some());
                    assert!(kernel.get("profit").and_then(|x| x.as_f64()).is_some());
                }
            }
        }
    }
}

/// xorshift64*: deterministic, no crates.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// A random platform: a shipped one with its limits perturbed (still valid).
fn random_platform(rng: &mut Rng) -> Platform {
    let names = [
        "gtx690",
        "gtx-titan",
        "hd7850",
        "c2050",
        "a100",
        "h100",
        "mi300x",
        "rx7900xtx",
        "pocl-cpu",
    ];
    let name = names[rng.below(names.len() as u64) as usize];
    let mut p = Platform::load(name).unwrap();
    p.warp_size = *rng.pick(&[8, 16, 32, 64]);
    p.max_threads_per_block = *rng.pick(&[128, 256, 512, 1024]);
    p.max_block_dims = [
        p.max_threads_per_block,
        p.max_threads_per_block,
        (p.max_threads_per_block / 4).max(1),
    ];
    p.max_threads_per_sm = p.max_threads_per_block * *rng.pick(&[1, 2, 3]);
    p.smem_per_sm = *rng.pick(&[16384, 32768, 49152, 65536]);
    p.smem_per_block = p.smem_per_sm / *rng.pick(&[1, 2]);
    p.theta_s = *rng.pick(&[0.125, 0.25, 0.5]);
    p.theta_r = *rng.pick(&[1.0, 1.4, 2.0]);
    p.transaction_bytes = *rng.pick(&[32, 64, 128]);
    p.validate().expect("valid random platform");
    p
}

/// A random loop nest: 1–3 parallel loops, an optional sequential loop, 1–3 read arrays with
/// random affine subscripts, and a random share pragma.
fn random_source(rng: &mut Rng) -> String {
    let depth = 1 + rng.below(3) as usize;
    let iters = ["i", "j", "l"];
    let seq = rng.below(2) == 0;
    let trips: Vec<u64> = (0..depth)
        .map(|_| *rng.pick(&[1, 7, 16, 33, 100, 256, 1000, 1 << 30]))
        .collect();
    let ktrip = *rng.pick(&[3, 5, 64, 300]);
    let narr = 1 + rng.below(3) as usize;
    let names = ["P", "Q", "R"];
    let ext = 2048;
    let mut s = String::from("void f(");
    for a in names.iter().take(narr) {
        s.push_str(&format!("float {}[{}][{}], ", a, ext, ext));
    }
    s.push_str(&format!(
        "float O[{}][{}])\n{{\n    int i, j, l, k;\n",
        ext, ext
    ));
    // share pragma over a random subset of arrays.
    let dims = ["*", "TB_X", "TB_Y", "TB_Y + 2", "TB_X + 4", "16", "TB_Z"];
    let mut specs = Vec::new();
    for a in names.iter().take(narr) {
        if rng.below(2) == 0 {
            specs.push(format!(
                "{}[{}][{}]{}",
                a,
                rng.pick(&dims),
                rng.pick(&dims),
                if rng.below(3) == 0 { ":coalesce" } else { "" }
            ));
        }
    }
    if !specs.is_empty() {
        s.push_str(&format!("#pragma acc share({})\n", specs.join(", ")));
    }
    for (d, t) in trips.iter().enumerate() {
        let pragma = if d == 0 {
            "#pragma acc kernels loop independent"
        } else {
            "#pragma acc loop independent"
        };
        s.push_str(&format!(
            "{}\n    for ({} = 0; {} < {}; {}++)\n",
            pragma, iters[d], iters[d], t, iters[d]
        ));
    }
    s.push_str("    {\n        float acc = 0.0f;\n");
    if seq {
        s.push_str(&format!("        for (k = 0; k < {}; k++)\n", ktrip));
    }
    let mut vars: Vec<&str> = iters.iter().take(depth).copied().collect();
    if seq {
        vars.push("k");
    }
    let sub = |rng: &mut Rng| {
        let v = *rng.pick(&vars);
        let c = *rng.pick(&[1, 1, 1, 2]);
        let o = *rng.pick(&[0, 0, 1, 2, -3]);
        let w = *rng.pick(&vars);
        if rng.below(3) == 0 {
            format!("{} + {} + {}", v, w, o)
        } else {
            format!("{} * {} + {}", c, v, o)
        }
    };
    let mut terms = Vec::new();
    for a in names.iter().take(narr) {
        for _ in 0..1 + rng.below(3) {
            terms.push(format!("{}[{}][{}]", a, sub(rng), sub(rng)));
        }
    }
    s.push_str(&format!("            acc += {};\n", terms.join(" + ")));
    let last = iters[depth - 1];
    let first = iters[0];
    s.push_str(&format!(
        "        O[{}][{}] = acc;\n    }}\n}}\n",
        first, last
    ));
    s
}

#[test]
fn chosen_configuration_satisfies_every_constraint() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for case in 0..120 {
        let src = random_source(&mut rng);
        let p = random_platform(&mut rng);
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let main = sources.add("r.c", "r.c".into(), src.clone());
        let parsed =
            accshare::front::load_source(main, &PpOptions::default(), &mut sources, &mut diags);
        let regions = find_regions(&parsed.tu, &sources, &mut diags);
        if diags.has_errors() {
            // The random pragma may be invalid for this nest (e.g. TB_Z in a 2-D nest):
            // then it must be an error, never a panic.
            continue;
        }
        for (ri, r) in regions.compute.iter().enumerate() {
            let d = dependence::analyze(&r.ir);
            let rp = partition::analyze_region(&r.ir, &d, ri, &p, &Options::default());
            for kp in &rp.kernels {
                let threads: i64 = kp.block.iter().product();
                assert!(
                    threads <= p.max_threads_per_block as i64,
                    "case {}:\n{}",
                    case,
                    src
                );
                for i in 0..3 {
                    assert!(
                        kp.block[i] >= 1 && kp.block[i] <= p.max_block_dims[i] as i64,
                        "case {}",
                        case
                    );
                }
                let Some(b) = &kp.best else { continue };
                checked += 1;
                let ctx = format!("case {} on {:?}:\n{}", case, p.name, src);
                for c in &b.constraints {
                    assert!(c.holds(), "{} {} {} {} — {}", c.id, c.lhs, c.op, c.rhs, ctx);
                }
                assert!(b.smem as u64 <= p.smem_budget(), "{}", ctx);
                assert_eq!(
                    b.smem,
                    b.staged.iter().map(|a| b.shapes[a].bytes).sum::<i64>(),
                    "{}",
                    ctx
                );
                assert!(
                    p.resident_blocks(threads as u64, b.smem as u64) >= 1,
                    "{}",
                    ctx
                );
                assert!(
                    threads as u64 * p.resident_blocks(threads as u64, b.smem as u64)
                        <= p.max_threads_per_sm as u64,
                    "{}",
                    ctx
                );
                let nest = kp.nest.as_ref().unwrap();
                for (l, dim) in &nest.mapped {
                    let v = b.assign.tb(*dim);
                    let fixed = kp.plans[b.plan].fixed_tb.contains_key(dim);
                    assert!(fixed || (v as u64).is_power_of_two(), "{}", ctx);
                    let _ = l;
                }
                if partition::search::needs_wide_x(nest) {
                    let x = nest.loop_of(accshare::front::pragma_ast::TbDim::X).unwrap();
                    let min = (p.warp_size as i64)
                        .min((nest.trip_of(x) as u64).next_power_of_two() as i64);
                    assert!(b.assign.tb[0] >= min, "{}", ctx);
                }
                for a in &b.staged {
                    let sh = &b.shapes[a];
                    for (e, x) in nest.extents[a].iter().zip(&sh.extents) {
                        assert!(e.is_none_or(|e| *x <= e), "{}", ctx);
                    }
                }
                for v in b.assign.k.values() {
                    assert!(*v >= 1, "{}", ctx);
                }
                assert!(b.profit > 0);
            }
        }
    }
    println!("checked {} configurations", checked);
    assert!(checked >= 30, "only {} configurations checked", checked);
}

/// The engine never panics on the test corpora (valid programs and files with errors).
#[test]
fn explain_never_panics_on_the_corpora() {
    let mut n = 0;
    for dir in ["tests/corpus", "tests/errors"] {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "c"))
        {
            for p in ["gtx690", "hd7850"] {
                let plat = Platform::load(p).unwrap();
                let mut sources = SourceMap::new();
                let mut diags = Diags::new();
                let out = accshare::driver::explain(
                    f,
                    &PpOptions::default(),
                    &plat,
                    Format::Json,
                    &Options::default(),
                    &Default::default(),
                    &mut sources,
                    &mut diags,
                );
                if let Some(out) = out {
                    json::parse(&out).unwrap_or_else(|e| panic!("{}: {}", f.display(), e));
                    n += 1;
                }
            }
        }
    }
    assert!(n > 0);
}

/// `ACCSHARE_EXPLAIN=file.c[:platform] cargo test --test partition print -- --ignored --nocapture`
/// prints a report (a convenience until the CLI has the command).
#[test]
#[ignore]
fn print_explain() {
    let spec = std::env::var("ACCSHARE_EXPLAIN").unwrap_or_else(|_| "examples/gemm.c".into());
    let (file, platform) = spec.split_once(':').unwrap_or((spec.as_str(), "gtx690"));
    println!("{}", explain_file(file, platform, Format::Text));
}

/// The engine's φ/Q and kernel names agree with the baseline kernel lowering's.
#[test]
fn mapping_agrees_with_the_kernel_lowering() {
    for ex in EXAMPLES {
        let file = format!("examples/{}.c", ex);
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let opts = accshare::driver::Options {
            target: accshare::back::Target::OpenCl,
            pp: PpOptions::default(),
        };
        let Some(out) =
            accshare::driver::compile(Path::new(&file), &opts, &mut sources, &mut diags)
        else {
            panic!("{} does not compile", file)
        };
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let parsed = accshare::front::load(
            Path::new(&file),
            &PpOptions::default(),
            &mut sources,
            &mut diags,
        )
        .unwrap();
        let regions = find_regions(&parsed.tu, &sources, &mut diags);
        let p = Platform::load("gtx690").unwrap();
        let mut kernels = Vec::new();
        for (i, r) in regions.compute.iter().enumerate() {
            let d = dependence::analyze(&r.ir);
            let rp = partition::analyze_region(&r.ir, &d, i, &p, &Options::default());
            kernels.extend(rp.kernels);
        }
        assert_eq!(kernels.len(), out.module.kernels.len(), "{}", file);
        for (mine, theirs) in kernels.iter().zip(&out.module.kernels) {
            assert_eq!(mine.name, theirs.name, "{}", file);
            let n = mine.nest.as_ref().map_or(0, |n| n.mapped.len());
            assert_eq!(n, theirs.dims as usize, "{}: {}", file, mine.name);
        }
    }
}
