//! `#pragma acc atomic` through the stages: the IR marks the statements, the dependence
//! analysis lets the loop run in parallel, staging leaves the arrays in global memory, kernel
//! lowering keeps private locations plain and shared scalars in a one-element buffer, and the
//! simulator applies the lanes' updates one after the other. (Execution against `cc` on PoCL:
//! `tests/corpus/atomic_histogram.c`; refused forms: `tests/errors/atomic_*.c`.)

use std::path::PathBuf;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;
use accshare::front::ast::{BinOp, Scalar};
use accshare::kernel::*;
use accshare::sim::*;

/// Compiles C text (OpenCL); the output or the rendered diagnostics, and the diagnostics.
fn compile_with(name: &str, text: &str, opt: driver::OptLevel) -> (Option<driver::Output>, String) {
    let dir = std::env::temp_dir().join(format!("accshare-atomic-{}-{}", std::process::id(), name));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.c"));
    std::fs::write(&path, text).unwrap();
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let oo = driver::OptOptions::new(opt);
    let out = driver::compile_with(&path, &opts, &oo, &mut sources, &mut diags);
    let text = diag::render(&sources, &diags.0);
    let _ = std::fs::remove_dir_all(&dir);
    (out, text)
}

fn compile(name: &str, text: &str) -> (driver::Output, String) {
    match compile_with(name, text, driver::OptLevel::Naive) {
        (Some(o), d) => (o, d),
        (None, d) => panic!("{name} failed:\n{d}"),
    }
}

const HISTOGRAM: &str = r#"
void histogram(int n, int bins, const int *key, int *hist)
{
#pragma acc kernels loop copyin(key[0:n]) copy(hist[0:bins])
    for (int i = 0; i < n; i++) {
#pragma acc atomic update
        hist[key[i]]++;
    }
}
"#;

#[test]
fn an_atomic_histogram_runs_on_the_grid() {
    let (out, diags) = compile("hist", HISTOGRAM);
    assert!(diags.is_empty(), "{diags}");
    assert!(
        out.ir_text.contains("S0 hist[?] += (atomic)"),
        "{}",
        out.ir_text
    );
    assert!(out.ir_text.contains("Q = (i→x)"), "{}", out.ir_text);
    let k = &out.kernel_source;
    assert!(k.contains("int i = (int)get_global_id(0);"), "{k}");
    assert!(k.contains("atomic_add(&hist[key[i]], 1);"), "{k}");
    // Without `atomic` the loop of a `kernels` construct cannot be proven independent.
    let plain = HISTOGRAM.replace("#pragma acc atomic update\n", "");
    let (out, diags) = compile("hist_plain", &plain);
    assert!(
        diags.contains("loop `i` is not parallel: this loop nest runs on a single GPU thread"),
        "{diags}"
    );
    assert!(!out.kernel_source.contains("atomic"));
}

#[test]
fn an_independent_claim_holds_with_an_atomic_accumulation() {
    let text = r#"
void total(int n, const float *a, float *sum)
{
#pragma acc parallel loop independent copyin(a[0:n]) copy(sum[0:1])
    for (int i = 0; i < n; i++) {
#pragma acc atomic
        sum[0] += a[i];
    }
}
"#;
    let (out, diags) = compile("claim", text);
    assert!(diags.is_empty(), "{diags}");
    assert!(
        out.kernel_source.contains("atomic_cmpxchg"),
        "{}",
        out.kernel_source
    );
    let (res, diags) = compile_with(
        "claim_plain",
        &text.replace("#pragma acc atomic\n", ""),
        driver::OptLevel::Naive,
    );
    assert!(res.is_none());
    assert!(
        diags.contains("loop `i` is marked independent but carries a dependence"),
        "{diags}"
    );
}

#[test]
fn other_references_to_an_atomic_array_still_conflict() {
    // The atomic update and a plain read of the same array in another iteration.
    let text = r#"
void f(int n, const int *key, int *hist, int *out)
{
#pragma acc parallel loop independent copyin(key[0:n]) copy(hist[0:n]) copyout(out[0:n])
    for (int i = 0; i < n - 1; i++) {
#pragma acc atomic
        hist[i + 1] += key[i];
        out[i] = hist[i];
    }
}
"#;
    let (res, diags) = compile_with("conflict", text, driver::OptLevel::Naive);
    assert!(res.is_none(), "{diags}");
    assert!(diags.contains("carries a dependence"), "{diags}");
}

#[test]
fn a_scalar_captured_by_every_work_item_lives_in_a_one_element_buffer() {
    let text = r#"
int compact(int n, const float *x, int *slot)
{
    int count = 0;
#pragma acc parallel loop copyin(x[0:n]) copy(slot[0:n])
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.0f) {
            int s;
#pragma acc atomic capture
            s = count++;
            slot[s] = i;
        }
    }
    return count;
}
"#;
    let (out, diags) = compile("capture", text);
    assert!(diags.is_empty(), "{diags}");
    let k = &out.module.kernels[0];
    assert!(k.params.iter().any(|p| p.name == "accshare_last_count"
        && matches!(
            p.kind,
            KParamKind::Buffer {
                elem: Scalar::Int,
                read_only: false,
                ..
            }
        )));
    assert!(!k.params.iter().any(|p| p.name == "count"));
    let launch = &out.module.host[0].launches[0];
    assert!(launch
        .args
        .iter()
        .any(|a| matches!(a, HostArg::LastValue { var, .. } if var == "count")));
    assert!(
        out.kernel_source
            .contains("accshare_cap = atomic_add(&accshare_last_count[0], 1);"),
        "{}",
        out.kernel_source
    );
}

#[test]
fn an_atomic_sum_into_a_scalar_is_a_reduction_and_private_locations_stay_plain() {
    let text = r#"
float f(int n, const float *a, float *out)
{
    float sum = 0.0f;
#pragma acc parallel loop copyin(a[0:n]) copyout(out[0:n])
    for (int i = 0; i < n; i++) {
        float t = 1.0f;
#pragma acc atomic
        t += a[i];
#pragma acc atomic
        t = 2.0f - t;
        out[i] = t;
#pragma acc atomic
        sum += a[i];
    }
    return sum;
}
"#;
    let (out, diags) = compile("private", text);
    assert!(diags.is_empty(), "{diags}");
    let k = &out.kernel_source;
    assert!(
        !k.contains("atomic_") && !k.contains("accshare_prev"),
        "{k}"
    );
    assert!(
        k.contains("t += a[i];") && k.contains("t = 2.0f - t;"),
        "{k}"
    );
    assert!(k.contains("accshare_part_sum"), "{k}");
}

#[test]
fn staging_leaves_atomically_updated_arrays_in_global_memory() {
    let text = r#"
#define N 64
void f(const float A[N][N], float C[N][N])
{
#pragma acc share(C[TB_X][TB_Y]:coalesce)
#pragma acc parallel loop copyin(A[0:N][0:N]) copy(C[0:N][0:N])
    for (int i = 0; i < N; i++) {
#pragma acc loop
        for (int j = 0; j < N; j++) {
#pragma acc atomic
            C[j][i] += A[i][j];
        }
    }
}
"#;
    let (out, diags) = compile_with("stage", text, driver::OptLevel::Share);
    let out = out.unwrap_or_else(|| panic!("{diags}"));
    let k = &out.kernel_source;
    assert!(!k.contains("__local"), "{k}");
    assert!(
        k.contains("(volatile __global uint *)&C[j * 64 + i]"),
        "{k}"
    );
}

#[test]
fn an_atomic_outside_compute_regions_is_host_code() {
    let text = r#"
int main(void)
{
    int n = 0;
#pragma acc atomic
    n += 2;
    return n;
}
"#;
    let (out, diags) = compile("host", text);
    assert!(diags.is_empty(), "{diags}");
    assert!(out.module.kernels.is_empty());
}

fn at(a: &str, i: KExpr) -> ArrayRef {
    ArrayRef {
        array: testing::array(a, Space::Global),
        index: Box::new(i),
        field: None,
    }
}

fn bin(op: BinOp, a: KExpr, b: KExpr) -> KExpr {
    KExpr::Binary(op, Box::new(a), Box::new(b))
}

/// 4 blocks of 64 lanes: `hist[gid % 4] += 1` (atomically or not) and, atomically, a ticket
/// `t = next[0]++` stored in `tickets[gid]`, and `fsum[0] += 0.5f`.
fn histogram_kernel(atomic: bool) -> Module {
    let gid = KExpr::Builtin(Builtin::GlobalId(0));
    let bin_of = bin(BinOp::Rem, gid.clone(), KExpr::Int(4, Scalar::Int));
    let update = |array: &str, i: KExpr, ty: Scalar, value: KExpr| {
        if atomic {
            KStmt::Atomic {
                target: at(array, i),
                ty,
                op: AtomicOp::Update {
                    op: BinOp::Add,
                    value,
                    reversed: false,
                },
                capture: None,
            }
        } else {
            KStmt::Assign {
                target: LValue::Elem(at(array, i)),
                op: Some(BinOp::Add),
                value,
            }
        }
    };
    let body = vec![
        update("hist", bin_of, Scalar::Int, KExpr::Int(1, Scalar::Int)),
        update(
            "fsum",
            KExpr::Int(0, Scalar::Int),
            Scalar::Float,
            KExpr::Float(0.5, true),
        ),
        testing::decl("t", Scalar::Int, None),
        KStmt::Atomic {
            target: at("next", KExpr::Int(0, Scalar::Int)),
            ty: Scalar::Int,
            op: AtomicOp::Update {
                op: BinOp::Add,
                value: KExpr::Int(1, Scalar::Int),
                reversed: false,
            },
            capture: Some(AtomicCapture {
                var: testing::v("t"),
                after: false,
            }),
        },
        KStmt::Assign {
            target: LValue::Elem(at("tickets", gid)),
            op: None,
            value: testing::var("t"),
        },
    ];
    let buf = |n: &str, elem| testing::buffer(n, elem, false, None);
    let params = vec![
        buf("hist", Scalar::Int),
        buf("fsum", Scalar::Float),
        buf("next", Scalar::Int),
        buf("tickets", Scalar::Int),
    ];
    let k = Kernel {
        name: "hist".to_string(),
        arrays: testing::snapshot(),
        vars: testing::vars_snapshot(),
        params,
        locals: Vec::new(),
        dims: 1,
        block: [64, 1, 1],
        body,
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: "hist.c:1".to_string(),
    };
    assert!(valid::validate(&k).errors.is_empty());
    Module {
        kernels: vec![k],
        host: Vec::new(),
    }
}

fn run_histogram(atomic: bool) -> (Vec<BufData>, RunResult) {
    let m = histogram_kernel(atomic);
    let mut bufs = vec![
        BufData::zeroed(Scalar::Int, 4),
        BufData::zeroed(Scalar::Float, 1),
        BufData::zeroed(Scalar::Int, 1),
        BufData::zeroed(Scalar::Int, 256),
    ];
    let args: Vec<ArgValue> = (0..4).map(ArgValue::Buffer).collect();
    let opts = SimOptions {
        check: true,
        ..Default::default()
    };
    let r = run_kernel(
        &m,
        0,
        &args,
        &mut bufs,
        [4, 1, 1],
        &SimPlatform::nvidia(),
        &opts,
    )
    .expect("runs");
    (bufs, r)
}

#[test]
fn the_simulator_applies_atomic_updates_one_lane_after_the_other() {
    let (bufs, r) = run_histogram(true);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(bufs[0], BufData::I32(vec![64; 4]));
    assert_eq!(bufs[1], BufData::F32(vec![128.0]));
    assert_eq!(bufs[2], BufData::I32(vec![256]));
    // Every lane drew its own ticket.
    let BufData::I32(mut t) = bufs[3].clone() else {
        panic!()
    };
    t.sort_unstable();
    assert_eq!(t, (0..256).collect::<Vec<i32>>());
    // The same updates without `atomic`: lanes of a warp overwrite each other, and the checker
    // reports the race.
    let (bufs, r) = run_histogram(false);
    assert_ne!(bufs[0], BufData::I32(vec![64; 4]));
    assert!(
        r.findings.iter().any(|f| f.kind == FindingKind::GlobalRace),
        "{:?}",
        r.findings
    );
}

#[test]
fn the_validator_checks_atomic_statements() {
    let mut m = histogram_kernel(true);
    let k = &mut m.kernels[0];
    // A read-only buffer may be read atomically, not updated.
    k.params[0] = testing::buffer(&k.params[0].name.clone(), Scalar::Int, true, None);
    // The capture variable must be declared.
    k.body
        .retain(|s| !matches!(s, KStmt::Decl { var, .. } if *var == testing::v("t")));
    k.body.push(KStmt::Atomic {
        target: at("nowhere", KExpr::Int(0, Scalar::Int)),
        ty: Scalar::Int,
        op: AtomicOp::Read,
        capture: None,
    });
    k.arrays = testing::snapshot();
    k.vars = testing::vars_snapshot();
    let errors = valid::validate(k).errors;
    assert_eq!(
        errors,
        vec![
            valid::Invalid::StoreToReadOnly("hist".to_string()),
            valid::Invalid::UndeclaredVar("t".to_string()),
            valid::Invalid::UnknownArray {
                array: "nowhere".to_string(),
                space: Space::Global,
            },
        ]
    );
}
