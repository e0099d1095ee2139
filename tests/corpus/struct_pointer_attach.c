/* struct_pointer_attach.c - a struct reached through a pointer, its arrays put on the device by
 * unstructured data directives: `enter data copyin(*f)`-style `copyin(fld)` with `attach`,
 * `acc_attach`/`acc_detach` of members, a routine that names members through the pointer
 * (`present(f->x[0:f->n])`, `f->y[i] += f->alpha * f->x[i]`), `update self` of members
 * through the pointer and the variable, `exit data detach` and `copyout` of a member. The sequential build (no OpenACC runtime) computes the same on the
 * host. */
#include "corpus_common.h"
#ifdef _OPENACC
#include <openacc.h>
#endif

#ifndef N
#define N 200
#endif

typedef struct {
    int n;
    float alpha;
    float *x;
    float *y;
} field_t;

static void axpy(field_t *f)
{
#pragma acc parallel loop present(f->x[0:f->n], f->y[0:f->n])
    for (int i = 0; i < f->n; i++)
        f->y[i] += f->alpha * f->x[i];
}

static void smooth(field_t *f)
{
#pragma acc kernels loop independent present(f->y[0:f->n], f->x[0:f->n])
    for (int i = 0; i < f->n; i++)
        f->x[i] = 0.5f * f->y[i] + (i > 0 ? 0.25f : 0.0f);
}

int main(void)
{
    field_t fld;
    field_t *p = &fld;
    int i;

    fld.n = N;
    fld.alpha = 0.75f;
    fld.x = (float *)xmalloc(N * sizeof(float));
    fld.y = (float *)xmalloc(N * sizeof(float));
    for (i = 0; i < N; i++) {
        fld.x[i] = (float)(i % 9) * 0.125f;
        fld.y[i] = (float)((i * 5) % 7);
    }

#pragma acc enter data copyin(fld.x[0:N], fld.y[0:N])
#pragma acc enter data copyin(fld) attach(fld.x)
#ifdef _OPENACC
    acc_attach((void **)&fld.y);
#endif
    axpy(p);
    axpy(&fld);
#pragma acc update self(p->y[0:p->n])
    dump_float("y1", fld.y, N);

    smooth(p);
#pragma acc update self(fld.x[0:N])
    dump_float("x", fld.x, N);

#ifdef _OPENACC
    acc_detach((void **)&fld.y);
#endif
#pragma acc exit data detach(fld.x)
#pragma acc exit data copyout(fld.y[0:N]) delete(fld.x[0:N])
#pragma acc exit data delete(fld)
    dump_float("y", fld.y, N);
    free(fld.x);
    free(fld.y);
    return 0;
}
