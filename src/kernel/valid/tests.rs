use super::*;
use crate::kernel::testing;
use crate::vocab::Scalar;

fn lid(d: u8) -> KExpr {
    KExpr::Builtin(Builtin::LocalId(d))
}

fn decl(name: &str, init: KExpr) -> KStmt {
    testing::decl(name, Scalar::Int, Some(init))
}

fn local(array: &str, index: KExpr) -> ArrayRef {
    ArrayRef::elem(testing::array(array, Space::Local), index)
}

fn global(array: &str, index: KExpr) -> ArrayRef {
    ArrayRef::elem(testing::array(array, Space::Global), index)
}

fn store(r: ArrayRef, value: KExpr) -> KStmt {
    KStmt::Assign {
        target: LValue::Elem(r),
        op: None,
        value,
    }
}

/// `for (int v = lo; v < hi; v += step) body`
fn for_lt(v: &str, lo: KExpr, hi: KExpr, step: i64, body: Vec<KStmt>) -> KStmt {
    KStmt::For {
        unroll: false,
        init: vec![decl(v, lo)],
        cond: Some(KExpr::bin(BinOp::Lt, testing::var(v), hi)),
        step: vec![KStmt::Assign {
            target: testing::lvar(v),
            op: Some(BinOp::Add),
            value: KExpr::int(step),
        }],
        body,
    }
}

/// A 16×16 kernel with a local tile `t[16 * 17]` (padded rows), a read-only input `a` and an
/// output `o`.
fn kernel(body: Vec<KStmt>) -> Kernel {
    let params = vec![
        testing::buffer("a", Scalar::Float, true, None),
        testing::buffer("o", Scalar::Float, false, None),
        testing::param("n", Scalar::Int),
    ];
    let mut k = Kernel {
        name: "k".to_string(),
        arrays: testing::take(),
        vars: testing::take_vars(),
        params,
        locals: Vec::new(),
        dims: 2,
        block: [16, 16, 1],
        body,
        uses_double: false,
        bank_width: None,
        registers: None,
        origin: "test".to_string(),
    };
    testing::local_in(&mut k, "t", Scalar::Float, 16 * 17);
    k
}

/// The shape staged kernels have: global ids, tile origins, a cooperative load loop, a barrier
/// at the top level, a guarded computation reading the tile with group offsets cancelling.
fn staged_body() -> Vec<KStmt> {
    let gid1 = KExpr::Builtin(Builtin::GlobalId(1));
    let o0 = KExpr::bin(
        BinOp::Mul,
        KExpr::Builtin(Builtin::GroupId(1)),
        KExpr::int(16),
    );
    vec![
        decl("i", gid1),
        decl("o0", o0),
        for_lt(
            "r",
            lid(1),
            KExpr::int(16),
            16,
            vec![for_lt(
                "c",
                lid(0),
                KExpr::int(16),
                16,
                vec![store(
                    local(
                        "t",
                        KExpr::bin(
                            BinOp::Add,
                            KExpr::bin(BinOp::Mul, testing::var("r"), KExpr::int(17)),
                            testing::var("c"),
                        ),
                    ),
                    KExpr::Load(global("a", testing::var("c"))),
                )],
            )],
        ),
        KStmt::Barrier,
        KStmt::If {
            cond: KExpr::bin(BinOp::Lt, testing::var("i"), testing::var("n")),
            then: vec![store(
                global("o", testing::var("i")),
                KExpr::Load(local(
                    "t",
                    KExpr::bin(
                        BinOp::Add,
                        KExpr::bin(
                            BinOp::Mul,
                            KExpr::bin(BinOp::Sub, testing::var("i"), testing::var("o0")),
                            KExpr::int(17),
                        ),
                        lid(0),
                    ),
                )),
            )],
            els: vec![],
        },
    ]
}

#[test]
fn a_staged_kernel_is_valid_and_its_tile_indices_are_proven() {
    let r = validate(&kernel(staged_body()));
    assert_eq!(r.errors, vec![]);
    assert_eq!((r.proven, r.unproven), (2, 0));
}

#[test]
fn a_barrier_under_a_thread_guard_is_invalid() {
    let mut body = staged_body();
    let guarded = KStmt::If {
        cond: KExpr::bin(BinOp::Lt, testing::var("i"), testing::var("n")),
        then: vec![KStmt::Barrier],
        els: vec![],
    };
    body.push(guarded);
    assert_eq!(
        validate(&kernel(body)).errors,
        vec![Invalid::BarrierInDivergentFlow]
    );
    // Through a variable assigned from the thread id, and in a loop whose trip count depends on it.
    let body = vec![
        decl("m", KExpr::bin(BinOp::Add, lid(0), KExpr::int(1))),
        for_lt(
            "q",
            KExpr::int(0),
            testing::var("m"),
            1,
            vec![KStmt::Barrier],
        ),
    ];
    assert_eq!(
        validate(&kernel(body)).errors,
        vec![Invalid::BarrierInDivergentFlow]
    );
    // A loop with uniform bounds may hold a barrier; a thread-dependent `break` makes it divergent.
    let ok = vec![for_lt(
        "q",
        KExpr::int(0),
        testing::var("n"),
        1,
        vec![KStmt::Barrier],
    )];
    assert_eq!(validate(&kernel(ok)).errors, vec![]);
    let brk = vec![for_lt(
        "q",
        KExpr::int(0),
        testing::var("n"),
        1,
        vec![
            KStmt::If {
                cond: KExpr::bin(BinOp::Eq, lid(0), testing::var("q")),
                then: vec![KStmt::Break],
                els: vec![],
            },
            KStmt::Barrier,
        ],
    )];
    assert_eq!(
        validate(&kernel(brk)).errors,
        vec![Invalid::BarrierInDivergentFlow]
    );
}

#[test]
fn a_tile_index_past_the_tile_is_invalid() {
    // Row 16 of a 16-row tile (the +1 of an off-by-one halo).
    let body = vec![store(
        local(
            "t",
            KExpr::bin(
                BinOp::Add,
                KExpr::bin(
                    BinOp::Mul,
                    KExpr::bin(BinOp::Add, lid(1), KExpr::int(1)),
                    KExpr::int(17),
                ),
                lid(0),
            ),
        ),
        KExpr::int(0),
    )];
    assert_eq!(
        validate(&kernel(body)).errors,
        vec![Invalid::TileIndexOutOfBounds {
            array: "t".to_string(),
            lo: 17,
            hi: 16 * 17 + 15,
            len: 272,
        }]
    );
    // An index it cannot bound (a value from memory) is counted, not rejected.
    let body = vec![store(
        local("t", KExpr::Load(global("a", lid(0)))),
        KExpr::int(0),
    )];
    let r = validate(&kernel(body));
    assert_eq!((r.errors.len(), r.unproven), (0, 1));
}

#[test]
fn names_must_be_declared_and_read_only_buffers_stay_unwritten() {
    let body = vec![
        store(global("a", lid(0)), testing::var("x")),
        store(global("nope", KExpr::int(0)), KExpr::int(1)),
        store(local("o", KExpr::int(0)), KExpr::int(1)),
    ];
    assert_eq!(
        validate(&kernel(body)).errors,
        vec![
            Invalid::UndeclaredVar("x".to_string()),
            Invalid::StoreToReadOnly("a".to_string()),
            Invalid::UnknownArray {
                array: "nope".to_string(),
                space: Space::Global
            },
            Invalid::UnknownArray {
                array: "o".to_string(),
                space: Space::Local
            },
        ]
    );
    // A variable declared in a loop is out of scope after it.
    let body = vec![
        for_lt(
            "q",
            KExpr::int(0),
            KExpr::int(4),
            1,
            vec![decl("y", testing::var("q"))],
        ),
        store(global("o", testing::var("y")), KExpr::int(0)),
    ];
    assert_eq!(
        validate(&kernel(body)).errors,
        vec![Invalid::UndeclaredVar("y".to_string())]
    );
}

/// Every kernel the examples and the corpus compile to, at every optimization level the tests
/// use, is valid; most tile indices are proven in bounds.
#[test]
fn every_generated_kernel_of_the_examples_and_corpus_is_valid() {
    use crate::back::Target;
    use crate::driver::{self, OptLevel, OptOptions, ShapeRequest};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = ["examples", "tests/corpus"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    let (mut kernels, mut proven, mut unproven) = (0, 0, 0);
    for f in &files {
        for (opt, ilp) in [
            (OptLevel::Naive, None),
            (OptLevel::Share, None),
            (OptLevel::Share, Some(2)),
        ] {
            let mut sources = crate::diag::SourceMap::new();
            let mut diags = crate::diag::Diags::new();
            let opts = driver::Options {
                target: Target::OpenCl,
                pp: Default::default(),
            };
            let o = OptOptions {
                opt,
                shape: ilp.map_or_else(Default::default, ShapeRequest::rows),
                ..OptOptions::default()
            };
            let Some(out) = driver::compile_with(f, &opts, &o, &mut sources, &mut diags) else {
                panic!(
                    "{}: {}",
                    f.display(),
                    crate::diag::render(&sources, &diags.0)
                );
            };
            for k in &out.module.kernels {
                let r = validate(k);
                assert_eq!(r.errors, vec![], "{} {}", f.display(), k.name);
                kernels += 1;
                proven += r.proven;
                unproven += r.unproven;
            }
        }
    }
    eprintln!("{kernels} kernels: {proven} tile indices proven in bounds, {unproven} not bounded");
    assert!(
        proven > 4 * unproven,
        "{proven} proven, {unproven} not bounded"
    );
}

/// Two scalars of one name: the inner one may hide the outer one where only it is used; the
/// outer one used where the inner one hides it, or both declared in one scope, would print as
/// one scalar (the printers spell names), and is rejected.
#[test]
fn two_scalars_of_one_name_are_never_confused() {
    let mut k = kernel(Vec::new());
    let KParamKind::Buffer { array: o, .. } = k.params[1].kind else {
        panic!("{:?}", k.params[1])
    };
    let outer = k.var("t0", Scalar::Int, VarKind::Private);
    let inner = k.var("t0", Scalar::Float, VarKind::Private);
    let decl = |var| KStmt::Decl {
        var,
        init: Some(KExpr::int(1)),
    };
    let put = |v| store(ArrayRef::elem(o, KExpr::int(0)), KExpr::Var(v));
    k.body = vec![
        decl(outer),
        KStmt::Block(vec![decl(inner), put(inner)]),
        put(outer),
    ];
    assert_eq!(validate(&k).errors, vec![]);
    k.body = vec![decl(outer), KStmt::Block(vec![decl(inner), put(outer)])];
    assert_eq!(
        validate(&k).errors,
        vec![Invalid::NameClash("t0".to_string())]
    );
    k.body = vec![decl(outer), decl(inner)];
    assert_eq!(
        validate(&k).errors,
        vec![Invalid::NameClash("t0".to_string())]
    );
    // An initializer sees the scalar it initializes (C's scope), not the one it hides.
    let hiding = KStmt::Decl {
        var: inner,
        init: Some(KExpr::Var(outer)),
    };
    k.body = vec![decl(outer), KStmt::Block(vec![hiding])];
    assert_eq!(
        validate(&k).errors,
        vec![Invalid::NameClash("t0".to_string())]
    );
    // A parameter's scalar is a parameter of its name and type.
    let KParamKind::Scalar { var: n, .. } = k.params[2].kind else {
        panic!("{:?}", k.params[2])
    };
    k.body = Vec::new();
    k.vars[n].ty = Scalar::Long;
    assert_eq!(
        validate(&k).errors,
        vec![Invalid::ParamMismatch("n".to_string())]
    );
}

/// A C name declared again in a nested scope is a scalar of the kernel of its own (of its own
/// type), each use the one its scope sees; the kernel is valid.
#[test]
fn a_shadowing_declaration_is_a_scalar_of_its_own() {
    use crate::back::Target;
    use crate::driver::{self, OptOptions};
    let src = r#"
void f(int n, const float *a, float *b, float *c)
{
#pragma acc parallel loop copyin(a[0:n]) copyout(b[0:n], c[0:n])
    for (int i = 0; i < n; i++) {
        float t = a[i];
        {
            int t = 2;
            b[i] = t;
        }
        c[i] = t;
    }
}
"#;
    let dir = std::env::temp_dir().join(format!("accshare-shadow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shadow.c");
    std::fs::write(&path, src).unwrap();
    let mut sources = crate::diag::SourceMap::new();
    let mut diags = crate::diag::Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let out = driver::compile_with(
        &path,
        &opts,
        &OptOptions::default(),
        &mut sources,
        &mut diags,
    );
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.unwrap_or_else(|| panic!("{}", crate::diag::render(&sources, &diags.0)));
    let k = &out.module.kernels[0];
    assert_eq!(validate(k).errors, vec![]);
    let ts: Vec<Scalar> = k
        .vars
        .iter()
        .filter(|(_, v)| v.name == "t")
        .map(|(_, v)| v.ty)
        .collect();
    assert_eq!(ts, vec![Scalar::Float, Scalar::Int]);
    // Each store reads the `t` of its scope.
    let stored = std::cell::RefCell::new(Vec::new());
    for s in &k.body {
        s.any(&|x| {
            if let KStmt::Assign {
                target: LValue::Elem(r),
                value: KExpr::Var(v),
                ..
            } = x
            {
                let name = k.arrays[r.array].name.clone();
                stored.borrow_mut().push((name, k.vars[*v].ty));
            }
            false
        });
    }
    assert_eq!(
        stored.into_inner(),
        vec![
            ("b".to_string(), Scalar::Int),
            ("c".to_string(), Scalar::Float)
        ]
    );
}
