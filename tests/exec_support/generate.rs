//! The program generator of the differential tests (`tests/differential.rs`), shared with the
//! lint's accuracy measurement (`tests/lint_accuracy.rs`): a seeded generator of random
//! annotated C programs of the supported subset — 2-D grids with `independent` loops, sequential
//! reduction loops, stencil offsets, transposed reads and writes, read-modify-write and
//! conditional stores, private scalars, float/double/int, with and without `share` pragmas,
//! rows or columns outermost. Each program dumps its arrays in the format `super::compare_dumps`
//! reads.

/// xorshift64*: small, seeded, good enough to pick program shapes.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Float,
    Double,
    Int,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::Int => "int",
        }
    }
    fn lit(self, v: i64) -> String {
        match self {
            Ty::Float => format!("{}.0f", v),
            Ty::Double => format!("{}.0", v),
            Ty::Int => format!("{}", v),
        }
    }
}

/// How the iteration stores its value.
#[derive(Clone, Copy, PartialEq)]
enum Store {
    /// `o[i][j] = v;`
    Plain,
    /// `ot[j][i] = v;`
    Transposed,
    /// `ot[j][i] += v;`
    Accumulate,
    /// `if (v > t) ot[j][i] = v;`
    Conditional,
    /// Both `o[i][j] = v;` and `ot[j][i] = v - 1;`
    Both,
}

/// One generated program.
pub fn program(seed: u64) -> String {
    let mut r = Rng::new(seed);
    let ty = match r.range(0, 2) {
        0 => Ty::Float,
        1 => Ty::Double,
        _ => Ty::Int,
    };
    let t = ty.c();
    let n = r.range(20, 100);
    let m = r.range(20, 100);
    let k = r.range(3, 80);
    let reduction = r.chance(60);
    let transposed_b = r.chance(40);
    let store = match r.range(0, 4) {
        0 => Store::Plain,
        1 => Store::Transposed,
        2 => Store::Accumulate,
        3 => Store::Conditional,
        _ => Store::Both,
    };
    // Point terms: (array, di, dj, coefficient).
    let mut points = Vec::new();
    for _ in 0..r.range(if reduction { 0 } else { 1 }, 4) {
        let arr = if r.chance(30) { "tin" } else { "in" };
        points.push((arr, r.range(-2, 2), r.range(-2, 2), r.range(-3, 3)));
    }
    let filter = r.chance(30);
    // A triangular grid (`j` from `i`): written tiles cover elements no iteration writes.
    let j_start = if r.chance(25) { "i" } else { "2" };
    let private_tmp = r.chance(40);

    // The share pragma: some of the arrays the body reads, sometimes none at all.
    let mut seeds = Vec::new();
    if r.chance(70) {
        let hint = |r: &mut Rng| if r.chance(40) { ":coalesce" } else { "" };
        if reduction && r.chance(70) {
            seeds.push(format!("a[TB_Y][*]{}", hint(&mut r)));
        }
        if reduction && r.chance(70) {
            seeds.push(if transposed_b {
                format!("bt[TB_X][*]{}", hint(&mut r))
            } else {
                format!("b[*][TB_X]{}", hint(&mut r))
            });
        }
        if points.iter().any(|p| p.0 == "in") && r.chance(70) {
            seeds.push(format!("in[TB_Y+4][TB_X+4]{}", hint(&mut r)));
        }
        if points.iter().any(|p| p.0 == "tin") && r.chance(70) {
            seeds.push("tin[TB_X+4][TB_Y+4]:coalesce".to_string());
        }
        if store != Store::Plain && r.chance(60) {
            seeds.push("ot[TB_X][TB_Y]:coalesce".to_string());
        }
    }

    // Drawn last, so that the other choices of a seed do not depend on it: the program in the
    // style of published OpenACC suites (a `parallel` region whose loops carry no `independent`,
    // a statement at its top level, a row sum over a loop that carries a dependence, column sums
    // whose outer loop carries it (interchanged), array parameters declared through a macro).
    let acc_style = r.chance(40);
    // Drawn after it, for the same reason: the nest written column by column (`j` outside `i`,
    // as code ported from Fortran often is), so that the choice of the loop on x is exercised.
    let col_order = !acc_style && j_start == "2" && r.chance(30);

    let mut body = String::new();
    body.push_str(&format!("            {} s = {};\n", t, ty.lit(0)));
    if reduction {
        let bref = if transposed_b {
            "bt[j][kk]"
        } else {
            "b[kk][j]"
        };
        body.push_str(&format!(
            "            for (int kk = 0; kk < K; kk++)\n                s += a[i][kk] * {};\n",
            bref
        ));
    }
    for (arr, di, dj, c) in &points {
        let (x, y) = (off("i", *di), off("j", *dj));
        let refr = if *arr == "in" {
            format!("in[{}][{}]", x, y)
        } else {
            format!("tin[{}][{}]", y, x)
        };
        body.push_str(&format!("            s += {} * {};\n", ty.lit(*c), refr));
    }
    if filter {
        body.push_str(&format!(
            "            for (int di = -1; di <= 1; di++)\n                s += in[i + di][j] * ({})(di + 2);\n",
            t
        ));
    }
    let v = if private_tmp {
        body.push_str(&format!(
            "            {} tmp = s * {} - {};\n",
            t,
            ty.lit(2),
            ty.lit(1)
        ));
        "tmp"
    } else {
        "s"
    };
    body.push_str(&match store {
        Store::Plain => format!("            o[i][j] = {};\n", v),
        Store::Transposed => format!("            ot[j][i] = {};\n", v),
        Store::Accumulate => format!("            ot[j][i] += {};\n", v),
        Store::Conditional => format!(
            "            if ({} > {})\n                ot[j][i] = {};\n",
            v,
            ty.lit(0),
            v
        ),
        Store::Both => format!(
            "            o[i][j] = {};\n            ot[j][i] = {} - {};\n",
            v,
            v,
            ty.lit(1)
        ),
    });
    let share = if seeds.is_empty() {
        String::new()
    } else {
        format!("#pragma acc share({})\n", seeds.join(", "))
    };
    let region = if acc_style {
        format!(
            r#"{share}#pragma acc parallel
    {{
        o[0][0] = {first};
#pragma acc loop
        for (int i = 2; i < N - 2; i++) {{
#pragma acc loop
            for (int j = {j_start}; j < M - 2; j++) {{
{body}            }}
        }}
#pragma acc loop
        for (int i = 0; i < N; i++) {{
#pragma acc loop
            for (int j = 0; j < M; j++)
                rs[i] = rs[i] + in[i][j];
        }}
#pragma acc loop
        for (int i = 0; i < N; i++) {{
#pragma acc loop
            for (int j = 0; j < M; j++)
                cs[j] = cs[j] * {decay} + in[i][j];
        }}
    }}"#,
            first = ty.lit(3),
            decay = ty.lit(1),
        )
    } else if col_order {
        format!(
            r#"{share}#pragma acc kernels loop independent
    for (int j = 2; j < M - 2; j++) {{
#pragma acc loop independent
        for (int i = 2; i < N - 2; i++) {{
{body}        }}
    }}"#
        )
    } else {
        format!(
            r#"{share}#pragma acc kernels loop independent
    for (int i = 2; i < N - 2; i++) {{
#pragma acc loop independent
        for (int j = {j_start}; j < M - 2; j++) {{
{body}        }}
    }}"#
        )
    };
    let o_decl = if acc_style {
        format!("{t} ARR2D(o, N, M)")
    } else {
        format!("{t} o[N][M]")
    };
    let fmt = if ty == Ty::Int { "%d" } else { "%.9g" };
    let cast = if ty == Ty::Int { "" } else { "(double)" };
    format!(
        r#"/* generated by tests/differential.rs, seed {seed} */
#include <stdio.h>
#ifndef N
#define N {n}
#endif
#ifndef M
#define M {m}
#endif
#ifndef K
#define K {k}
#endif
#define ARR2D(v, d1, d2) v[d1][d2]

static void dump(const char *name, const {t} *x, long count)
{{
    printf("== %s %ld\n", name, count);
    for (long q = 0; q < count; q++)
        printf("{fmt}\n", {cast}x[q]);
}}

void kernel({o_decl}, {t} ot[M][N], const {t} a[N][K], const {t} b[K][M],
            const {t} bt[M][K], const {t} in[N][M], const {t} tin[M][N], {t} rs[N], {t} cs[M])
{{
{region}
}}

int main(void)
{{
    static {t} o[N][M], ot[M][N], a[N][K], b[K][M], bt[M][K], in[N][M], tin[M][N], rs[N], cs[M];
    for (int i = 0; i < N; i++)
        for (int q = 0; q < K; q++)
            a[i][q] = ({t})((i * 3 + q * 5) % 7 - 3);
    for (int q = 0; q < K; q++)
        for (int j = 0; j < M; j++) {{
            b[q][j] = ({t})((q * 2 + j) % 5 - 2);
            bt[j][q] = ({t})((q + j * 3) % 5 - 2);
        }}
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {{
            in[i][j] = ({t})((i * 7 + j * 11) % 9 - 4);
            tin[j][i] = ({t})((i * 5 + j * 3) % 7 - 3);
            o[i][j] = ({t})(i - j);
            ot[j][i] = ({t})((i + 2 * j) % 3);
        }}
    for (int i = 0; i < N; i++)
        rs[i] = ({t})(i % 4);
    for (int j = 0; j < M; j++)
        cs[j] = ({t})(j % 3);
    kernel(o, ot, a, b, bt, in, tin, rs, cs);
    dump("o", &o[0][0], (long)N * M);
    dump("ot", &ot[0][0], (long)M * N);
    dump("rs", rs, (long)N);
    dump("cs", cs, (long)M);
    return 0;
}}
"#
    )
}

fn off(v: &str, d: i64) -> String {
    match d {
        0 => v.to_string(),
        d if d > 0 => format!("{} + {}", v, d),
        d => format!("{} - {}", v, -d),
    }
}
