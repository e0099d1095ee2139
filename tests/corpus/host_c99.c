/* host_c99.c - the C99/C11 that scientific programs (NPB, PolyBench, Rodinia, SPEC ACCEL) write
 * in the host code of a function holding a compute region: compound literals (NPB's dcomplex
 * macros), designated initializers, struct/union/enum definitions and typedefs inside the
 * function, function pointers and calls through them, static/const/volatile/register locals,
 * `sizeof` of types and expressions, casts to typedef'd and pointer-to-array types, `?:`, the
 * comma operator, `goto`, `switch` with fallthrough, `do ... while`, string concatenation,
 * escapes, hex floats and suffixes, `_Bool`, `long double`, `inline`, `restrict`, GNU
 * attributes, `_Static_assert`, `_Alignas`, `clock_t` timing, variadic calls, nested members,
 * arrays of structs, an OpenMP pragma and `__func__`. All of it must pass through unchanged around the one `parallel loop`,
 * which computes y = scale * x + shift with scalars the host code prepared. */
#include "corpus_common.h"
#include <stdbool.h>
#include <string.h>
#include <time.h>

#ifndef N
#define N 1000
#endif

typedef struct {
    double real;
    double imag;
} dcomplex;

#define dcmplx(r, i) (dcomplex){r, i}
#define dcmplx_add(a, b) (dcomplex){(a).real + (b).real, (a).imag + (b).imag}
#define dcmplx_div2(a, b) (dcomplex){(a).real / (b), (a).imag / (b)}

typedef double (*unary_fn)(double);
typedef float row8_t[8];

struct inner { double c; int tag; };
struct outer { struct inner b; int q[4]; };
struct node { struct outer r[3]; struct node *next; };

static float x[N], y[N];
static int flag[N];
static double summary[12];

static inline double halve(double v) { return 0.5 * v; }
static double twice(double v) { return 2.0 * v; }

static void affine(int n, const float *restrict xs, float *restrict ys, int *restrict fl)
{
    clock_t t0 = clock();

    /* compound literals, designated initializers */
    dcomplex z = dcmplx(3.0, -1.5);
    z = dcmplx_add(z, ((dcomplex){.imag = 0.5, .real = 1.0}));
    z = dcmplx_div2(z, 2.0);
    int primes[8] = {[0] = 2, [1] = 3, [4] = 11, [2] = 5, 7};
    struct outer o = {.b = {.c = 0.25, .tag = 1}, .q[2] = 4, .q[3] = 5};
    int *tail = (int[]){13, 17, 19};

    /* storage classes and qualifiers */
    static int calls = 0;
    const int three = 3;
    volatile int spin = 0;
    register int twice_three = three * 2;
    _Static_assert(sizeof(dcomplex) == 2 * sizeof(double), "dcomplex is two doubles");

    /* tags and typedefs defined in the function */
    struct range { int lo, hi; unsigned wide : 4; } rg = {0, n, 3};
    union bits { float f; unsigned u; } ub;
    enum mode { M_SCALE = 1, M_SHIFT, M_BOTH = 4, } mode = M_SHIFT;
    typedef struct { double w[2]; } pair_t;
    pair_t pr = {{1.5, 2.5}};

    /* function pointers and calls through them */
    unary_fn ops[2] = {halve, twice};
    double (*pick)(double) = calls % 2 ? halve : twice;
    struct stage { const char *name; unary_fn f; } st = {.name = "quarter", .f = halve};
    double scaled = (*pick)(1.5) + ops[0](z.real) + st.f(st.f(1.0));

    /* sizeof, casts to pointer-to-array and typedef'd types, long double */
    size_t bytes = sizeof(dcomplex) + sizeof z + sizeof(int[4]) + sizeof primes / sizeof primes[0];
    const float (*rows)[8] = (const float (*)[8])xs;
    const row8_t *first = (const row8_t *)xs;
    long double acc = 0.0L;
    for (int k = 0; k < 8; k++)
        acc += (long double)rows[0][k] * first[0][k];

    /* the comma operator and ?: */
    int lo, hi, t;
    for (lo = 0, hi = 7; lo < hi; lo++, hi--)
        t = primes[lo], primes[lo] = primes[hi], primes[hi] = t;
    int biggest = primes[0] > primes[7] ? primes[0] : primes[7];

    /* switch with fallthrough, do ... while, goto */
    int steps = 0;
    switch (mode) {
    case M_SCALE:
        steps += 1;
        /* fall through */
    case M_SHIFT:
        steps += 10;
        /* fall through */
    case M_BOTH:
        steps += 100;
        break;
    default:
        steps = -1;
    }
    do {
        steps--;
    } while (steps % 7 != 0);
    if (n <= 0)
        goto done;
    if (n > (1 << 24)) {
        fprintf(stderr, "%s: n = %d is too large\n", __func__, n);
        exit(1);
    }

    /* strings, characters, literals, _Bool, attributes */
    const char *label = "host_" "c99";
    char esc[4] = {'\t', '\x41', '\'', '\0'};
    float eps = 1e-3f;
    double h = 0x1p3;
    unsigned long big = 10UL;
    long long oct = 017LL;
    _Bool on = 1;
    bool off = false;
    int aligned_i __attribute__((aligned(16))) = 4;
    __attribute__((unused)) int unused_i = 0;
    __extension__ long long ext = 1LL << 40;
    _Alignas(16) float pad[4] = {0};

    /* nested members, arrays of structs */
    struct node nodes[2];
    memset(nodes, 0, sizeof nodes);
    struct node *np = &nodes[0];
    np->next = &nodes[1];
    nodes[1].r[2].b.c = 0.5;
    np->next->r[2].q[1] = 7;
    o.b.tag += np->next->r[2].q[1];
    ub.f = 1.0f;
    spin = (int)(ub.u >> 23);

    float scale = (float)(scaled / h) + eps;
    float shift = (float)(z.imag + pr.w[1] * o.b.c);
    float limit = 0.5f;
    calls++;
    fprintf(stderr, "%s: %s %s, n = %d\n", __func__, label, on && !off ? "on" : "off", n);

#pragma omp parallel for
    for (int i = 0; i < n; i++)
        ys[i] = 0.0f;
#pragma acc parallel loop copyin(xs[0:n]) copyout(ys[0:n], fl[0:n])
    for (int i = 0; i < n; i++) {
        ys[i] = scale * xs[i] + shift;
        fl[i] = xs[i] > limit ? 1 : 0;
    }

    dcomplex total = dcmplx(0.0, 0.0);
    for (int i = 0; i < n; i++)
        total = dcmplx_add(total, ((dcomplex){ys[i], (double)fl[i]}));
    total = dcmplx_div2(total, (double)n);
    summary[0] = total.real;
    summary[1] = total.imag;
    summary[2] = (double)acc;
    summary[3] = steps;
    summary[4] = (double)bytes;
    summary[5] = biggest + tail[2] + twice_three;
    summary[6] = o.b.tag + o.q[3] + rg.wide + rg.hi;
    summary[7] = esc[1] + esc[2] + (double)big + (double)oct + aligned_i;
    summary[8] = spin + nodes[1].r[2].b.c;
    summary[9] = scale;
    summary[10] = shift;
    summary[11] = (double)(ext >> 40) + (double)strlen(label) + pad[3];
    if (clock() < t0)
        fprintf(stderr, "%s: the clock went back\n", __func__);
done:
    return;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        x[i] = (float)((i * 37) % 101) / 101.0f;
    affine(N, x, y, flag);
    dump_float("y", y, N);
    dump_int("flag", flag, N);
    dump_double("summary", summary, 12);
    return 0;
}
