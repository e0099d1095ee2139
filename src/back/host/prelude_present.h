
/* ---- ACCSHARE_PROFILE: set (not empty, not 0), every kernel launch and every copy between
 * host and device is timed on the device (OpenCL: the profiling info of its event; CUDA: two
 * events around it; each launch is then waited for) and, at exit, a table of the kernels by
 * total time goes to stderr, then the copies by direction. Unset, nothing is measured or
 * printed. One table for the whole program (weak, as the present table); the CUDA side (.cu)
 * calls these three functions. ---- */

typedef struct {
    const char *name;   /* the kernel, or the direction of a copy */
    const char *origin; /* the region (file:line) of a kernel; NULL for a copy */
    long count;
    double total, min, max; /* nanoseconds */
    double bytes;           /* copies */
} accshare_prof_row;

#define ACCSHARE_PROF_ROWS 512
ACCSHARE_SHARED accshare_prof_row accshare_prof_rows[ACCSHARE_PROF_ROWS];
ACCSHARE_SHARED int accshare_prof_n;
/* 0: ACCSHARE_PROFILE not read yet; 1: off; 2: on; 3: on, the report registered. */
ACCSHARE_SHARED int accshare_prof_state;
ACCSHARE_SHARED char accshare_prof_device[256];

ACCSHARE_SHARED int accshare_profiling(void)
{
    if (accshare_prof_state == 0) {
        const char *env = getenv("ACCSHARE_PROFILE");
        accshare_prof_state = env != NULL && env[0] != '\0' && strcmp(env, "0") != 0 ? 2 : 1;
    }
    return accshare_prof_state >= 2;
}

/* One launch of kernel `name` from region `origin` (`bytes` 0), or one copy of `bytes` bytes in
 * direction `name`, that took `ns` nanoseconds on the device. */
ACCSHARE_SHARED void accshare_profile_add(const char *name, const char *origin, double ns, size_t bytes)
{
    accshare_prof_row *r;
    int i;
    if (bytes > 0)
        origin = NULL;
    for (i = 0; i < accshare_prof_n; i++) {
        r = &accshare_prof_rows[i];
        if (strcmp(r->name, name) == 0
            && (r->origin == origin || (r->origin != NULL && origin != NULL && strcmp(r->origin, origin) == 0)))
            break;
    }
    if (i == ACCSHARE_PROF_ROWS)
        return;
    r = &accshare_prof_rows[i];
    if (i == accshare_prof_n) {
        accshare_prof_n++;
        r->name = name;
        r->origin = origin;
        r->count = 0;
        r->total = r->bytes = 0;
        r->min = r->max = ns;
    }
    r->count++;
    r->total += ns;
    r->bytes += (double)bytes;
    if (ns < r->min)
        r->min = ns;
    if (ns > r->max)
        r->max = ns;
}

static ACCSHARE_UNUSED int accshare_prof_cmp(const void *a, const void *b)
{
    double x = (*(const accshare_prof_row *const *)a)->total, y = (*(const accshare_prof_row *const *)b)->total;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The table, at exit. */
static ACCSHARE_UNUSED void accshare_profile_report(void)
{
    const accshare_prof_row *rows[ACCSHARE_PROF_ROWS];
    int i, n = 0, wn = 6, wo = 6;
    long launches = 0;
    double sum = 0;
    for (i = 0; i < accshare_prof_n; i++) {
        const accshare_prof_row *r = &accshare_prof_rows[i];
        if (r->origin == NULL)
            continue;
        rows[n++] = r;
        sum += r->total;
        launches += r->count;
        if ((int)strlen(r->name) > wn)
            wn = (int)strlen(r->name);
        if ((int)strlen(r->origin) > wo)
            wo = (int)strlen(r->origin);
    }
    qsort(rows, (size_t)n, sizeof rows[0], accshare_prof_cmp);
    fprintf(stderr, "accshare: profile: %d kernels, %ld launches, %.3f ms on %s\n", n, launches, sum / 1e6,
            accshare_prof_device);
    fprintf(stderr, "accshare:   %-*s  %-*s  %8s  %11s  %10s  %10s  %10s  %5s\n", wn, "kernel", wo, "region",
            "launches", "total ms", "mean us", "min us", "max us", "%");
    for (i = 0; i < n; i++)
        fprintf(stderr, "accshare:   %-*s  %-*s  %8ld  %11.3f  %10.1f  %10.1f  %10.1f  %5.1f\n", wn, rows[i]->name,
                wo, rows[i]->origin, rows[i]->count, rows[i]->total / 1e6, rows[i]->total / 1e3 / (double)rows[i]->count,
                rows[i]->min / 1e3, rows[i]->max / 1e3, sum > 0 ? 100 * rows[i]->total / sum : 0.0);
    for (i = 0; i < accshare_prof_n; i++) {
        const accshare_prof_row *r = &accshare_prof_rows[i];
        if (r->origin == NULL)
            fprintf(stderr, "accshare: %s: %ld copies, %.0f bytes, %.3f ms\n", r->name, r->count, r->bytes, r->total / 1e6);
    }
}

/* Called once the device is picked, when profiling: keeps its name for the report and has
 * the report printed at exit. */
ACCSHARE_SHARED void accshare_profile_start(const char *device)
{
    if (accshare_prof_state != 2)
        return;
    accshare_prof_state = 3;
    snprintf(accshare_prof_device, sizeof accshare_prof_device, "%s", device);
    atexit(accshare_profile_report);
}

/* ---- the present table: what every OpenACC runtime keeps. One entry per host array on the
 * device (its address range, its buffer, its reference count); data constructs, compute
 * regions, `enter data`/`exit data` and `update` look arrays up by host address, so a callee's
 * `present(a)` finds the buffer its caller's `data` region made. Since OpenACC 2.5 `copy`,
 * `copyin`, `copyout` and `create` are "present or …": an array already present is used as it
 * is, with no transfer, and its data move when its last reference goes. ---- */

/* Work-items to launch along the grid-stride dimension of a reduction kernel
 * (`schedule::stride`): the `items` it needs, cut so that the grid has at most `per_unit`
 * work-groups of `block` work-items per compute unit of the device, given the `others`
 * work-groups of its other dimensions; each work-item then strides over the rest. */
static ACCSHARE_UNUSED long long accshare_stride_items(long long items, long long block, long long others, long long per_unit, const char *origin)
{
    long long cap = accshare_compute_units(origin) * per_unit / (others > 0 ? others : 1);
    if (cap < 1)
        cap = 1;
    return (items + block - 1) / block > cap ? cap * block : items;
}

#define ACCSHARE_MAX_PRESENT 4096

typedef struct {
    const char *host;
    size_t bytes;
    accshare_dev dev;
    long refs;
    /* The part of `refs` that `enter data`, `acc_copyin` and `acc_create` made (the dynamic
     * reference counter; the rest are data and compute constructs'): `exit data` and
     * `acc_copyout`/`acc_delete` drop only these, `finalize` all of them. */
    long dyn;
    /* The buffer is the host array itself (zero-copy, `accshare_share`): nothing is copied in
     * or back; the host syncs with a map when the last reference goes. */
    int shared;
    /* The byte offset of `host` in `dev`: non-zero for data `acc_map_data` mapped to a part of
     * a buffer (`acc_malloc(2 * n)` mapped as two arrays). */
    size_t base;
    /* How the entry was made: 0 by a data clause or `acc_copyin`/`acc_create`, 1 by
     * `acc_malloc` (device memory with no host array: its address is only a key), 2 by
     * `acc_map_data` (the program's device memory, `key` its device address, is never freed by
     * the runtime: leaving a data lifetime copies nothing and frees nothing). */
    int kind;
    const char *key;
    /* An array of pointers to rows (`double **a` in `copyin(a[lo:n][0:m])`, OpenACC's deep
     * copy): the bytes of a row, 0 otherwise. `host` and `bytes` are then the pointers
     * (`&a[lo]`, `n * sizeof(void *)`), `dev` the rows one after another. */
    size_t row_bytes;
} accshare_entry;

#define ACCSHARE_ENTRY_DATA 0
#define ACCSHARE_ENTRY_MALLOC 1
#define ACCSHARE_ENTRY_MAPPED 2

ACCSHARE_SHARED accshare_entry accshare_present_table[ACCSHARE_MAX_PRESENT];
ACCSHARE_SHARED int accshare_npresent;

/* Appends an entry for the `bytes` at `host` that `dev` holds: a data lifetime's, with one
 * reference, no offset, no key and no rows; callers change what differs. Every field is set
 * (a slot may still hold a removed entry's). Stops the program when the table is full. */
static ACCSHARE_UNUSED accshare_entry *accshare_push_entry(const void *host, size_t bytes, accshare_dev dev, const char *origin)
{
    accshare_entry *e;
    if (accshare_npresent == ACCSHARE_MAX_PRESENT) {
        fprintf(stderr, "accshare: more than %d arrays on the device at %s\n", ACCSHARE_MAX_PRESENT, origin);
        exit(1);
    }
    e = &accshare_present_table[accshare_npresent++];
    e->host = (const char *)host;
    e->bytes = bytes;
    e->dev = dev;
    e->refs = 1;
    e->dyn = 0;
    e->shared = 0;
    e->base = 0;
    e->kind = ACCSHARE_ENTRY_DATA;
    e->key = NULL;
    e->row_bytes = 0;
    return e;
}

/* Writes `bytes` zero bytes at the start of `dev` (a `copyin(zero: …)` device copy). */
static ACCSHARE_UNUSED void accshare_write_zeros(accshare_dev dev, size_t bytes, const char *array, const char *origin)
{
    void *zeros;
    if (bytes == 0)
        return;
    zeros = calloc(1, bytes);
    if (zeros == NULL) {
        fprintf(stderr, "accshare: out of host memory zeroing `%s` (%lu bytes) at %s\n", array, (unsigned long)bytes, origin);
        exit(1);
    }
    accshare_write(dev, zeros, bytes, array, origin);
    free(zeros);
}

/* The entry holding the `bytes` (at least one) at `host`, or -1. `host` may point inside an
 * array on the device (`&u[k]` passed to a routine with `present(p[0:n])`, or a row of an array
 * of pointers to rows): its byte offset in
 * the entry's buffer goes to `*off` (0 for the array itself, plus the entry's `base`); a range straddling an entry's end is an
 * error naming the array. */
static ACCSHARE_UNUSED int accshare_find(const void *host, size_t bytes, size_t *off, const char *array, const char *origin)
{
    const char *p = (const char *)host;
    size_t n = bytes > 0 ? bytes : 1;
    int i;
    *off = 0;
    for (i = 0; i < accshare_npresent; i++) {
        const accshare_entry *e = &accshare_present_table[i];
        size_t span = e->bytes > 0 ? e->bytes : 1;
        if (p >= e->host && p < e->host + span) {
            size_t at = (size_t)(p - e->host);
            if (n > span - at) {
                fprintf(stderr, "accshare: `%s` (%lu bytes at an offset of %lu) is larger than its copy on the device (%lu bytes) at %s\n",
                        array, (unsigned long)n, (unsigned long)at, (unsigned long)span, origin);
                exit(1);
            }
            *off = (e->row_bytes > 0 ? at / sizeof(void *) * e->row_bytes : at) + e->base;
            return i;
        }
        if (e->row_bytes > 0) {
            /* An array of pointers to rows: its rows are present too (`a[k]` passed to a
             * routine with `present(p[0:m])`), at their places in the device copy. */
            void *const *rows = (void *const *)e->host;
            size_t k, nrows = e->bytes / sizeof(void *);
            for (k = 0; k < nrows; k++) {
                const char *r = (const char *)rows[k];
                if (r != NULL && p >= r && p < r + e->row_bytes) {
                    size_t at = (size_t)(p - r);
                    if (n > e->row_bytes - at) {
                        fprintf(stderr, "accshare: `%s` (%lu bytes at an offset of %lu) is larger than the row of its copy on the device (%lu bytes) at %s\n",
                                array, (unsigned long)n, (unsigned long)at, (unsigned long)e->row_bytes, origin);
                        exit(1);
                    }
                    *off = k * e->row_bytes + at + e->base;
                    return i;
                }
            }
        }
    }
    return -1;
}

/* Whether the `bytes` at `host` overlap an array entered zero-copy: two buffers on overlapping
 * host memory are undefined in OpenCL (and would see each other's writes), so the second one
 * is a copy. */
static ACCSHARE_UNUSED int accshare_overlaps_shared(const void *host, size_t bytes)
{
    const char *p = (const char *)host;
    size_t n = bytes > 0 ? bytes : 1;
    int i;
    for (i = 0; i < accshare_npresent; i++) {
        const accshare_entry *e = &accshare_present_table[i];
        size_t span = e->bytes > 0 ? e->bytes : 1;
        if (e->shared && p < e->host + span && e->host < p + n)
            return 1;
    }
    return 0;
}

/* Enters `host` into a data lifetime: an array already present gains a reference; otherwise a
 * buffer is made and filled as `copy_in` says (0: not, 1: from the host array, 2: with zeros,
 * the `zero:` modifier), unless `must_be_present` (the `present` clause):
 * then the program stops with OpenACC's error. With `may_share` (the generated code's decision,
 * see docs/host-memory.md), a new buffer is the host array itself where the device shares host
 * memory (`accshare_share`), and nothing is copied. Returns the device buffer, and in `*off` the
 * byte offset of `host` in it (non-zero for a part of a present array). */
static ACCSHARE_UNUSED accshare_dev accshare_enter(const void *host, size_t bytes, int copy_in, int must_be_present, int may_share, const char *array, const char *origin, size_t *off)
{
    int i = accshare_find(host, bytes, off, array, origin);
    int shared = 0;
    accshare_dev dev;
    if (i >= 0) {
        accshare_present_table[i].refs++;
        return accshare_present_table[i].dev;
    }
    if (must_be_present) {
        fprintf(stderr, "accshare: `%s` is not present on the device (a `present` clause) at %s\n", array, origin);
        exit(1);
    }
    if (may_share && !accshare_overlaps_shared(host, bytes))
        shared = accshare_share(host, bytes, array, origin, &dev);
    if (!shared) {
        dev = accshare_alloc(bytes, array, origin);
        if (copy_in == 1) {
            accshare_write(dev, host, bytes, array, origin);
        } else if (copy_in == 2) {
            accshare_write_zeros(dev, bytes, array, origin);
        }
    }
    accshare_push_entry(host, bytes, dev, origin)->shared = shared;
    return dev;
}

/* Copies the `nrows` rows of `row_bytes` that `rows` points to into the device buffer `dev`
 * from byte `off`, one after another (`to_host`: back into the rows), through one host block. */
static ACCSHARE_UNUSED void accshare_rows_move(accshare_dev dev, size_t off, void *const *rows, size_t nrows, size_t row_bytes, int to_host, const char *array, const char *origin)
{
    char *block;
    size_t k;
    if (nrows == 0 || row_bytes == 0)
        return;
    for (k = 0; k < nrows; k++) {
        if (rows[k] == NULL) {
            fprintf(stderr, "accshare: row %lu of `%s` is a null pointer at %s\n", (unsigned long)k, array, origin);
            exit(1);
        }
    }
    block = (char *)malloc(nrows * row_bytes);
    if (block == NULL) {
        fprintf(stderr, "accshare: out of host memory copying the rows of `%s` (%lu bytes) at %s\n", array, (unsigned long)(nrows * row_bytes), origin);
        exit(1);
    }
    if (to_host) {
        accshare_read_at(dev, off, block, nrows * row_bytes, array, origin);
        for (k = 0; k < nrows; k++)
            memcpy(rows[k], block + k * row_bytes, row_bytes);
    } else {
        for (k = 0; k < nrows; k++)
            memcpy(block + k * row_bytes, rows[k], row_bytes);
        accshare_write_at(dev, off, block, nrows * row_bytes, array, origin);
    }
    free(block);
}

/* `accshare_enter` for an array of pointers to rows: `rows` points to the first row's pointer
 * (`&a[lo]`), `bytes` are the device copy's (`n * m` elements), `row_bytes` a row's. A new
 * device copy is the rows one after another, gathered from the host's rows (`copy_in` 1), or
 * zeroed (2); never zero-copy. */
static ACCSHARE_UNUSED accshare_dev accshare_enter_rows(void *const *rows, size_t bytes, size_t row_bytes, int copy_in, int must_be_present, const char *array, const char *origin, size_t *off)
{
    size_t nrows = row_bytes > 0 ? bytes / row_bytes : 0;
    int i = accshare_find(rows, nrows * sizeof(void *), off, array, origin);
    accshare_dev dev;
    if (i >= 0 || must_be_present)
        return accshare_enter(rows, nrows * sizeof(void *), 0, must_be_present, 0, array, origin, off);
    /* In whole 32-bit words: a kernel's `char` or `short` atomic is a compare-and-swap on the
     * word holding the element (`prelude_words.h`), inside the buffer so. */
    dev = accshare_alloc((bytes + 3) / 4 * 4, array, origin);
    if (copy_in == 1) {
        accshare_rows_move(dev, 0, rows, nrows, row_bytes, 0, array, origin);
    } else if (copy_in == 2) {
        accshare_write_zeros(dev, bytes, array, origin);
    }
    accshare_push_entry(rows, nrows * sizeof(void *), dev, origin)->row_bytes = row_bytes;
    return dev;
}

/* The end of the data lifetime of entry `i`, whose last reference went: the array is copied
 * back if `copy_out`, and its buffer freed; a zero-copy buffer is mapped instead (the host array
 * then holds what the kernels wrote, and no kernel uses it any more). Data `acc_map_data`
 * mapped stays: its device memory is the program's, until `acc_unmap_data`. */
static ACCSHARE_UNUSED void accshare_last_ref(int i, int copy_out, const char *array, const char *origin)
{
    accshare_entry *e = &accshare_present_table[i];
    if (e->refs < 0)
        e->refs = 0;
    if (e->dyn > e->refs)
        e->dyn = e->refs;
    if (e->refs > 0 || e->kind == ACCSHARE_ENTRY_MAPPED)
        return;
    if (e->shared)
        accshare_sync_shared(e->dev, 0, e->bytes, 1, array, origin);
    else if (copy_out && e->row_bytes > 0)
        accshare_rows_move(e->dev, e->base, (void *const *)e->host, e->bytes / sizeof(void *), e->row_bytes, 1, array, origin);
    else if (copy_out)
        accshare_read(e->dev, (void *)e->host, e->bytes, array, origin);
    accshare_release(e->dev, array, origin);
    accshare_present_table[i] = accshare_present_table[accshare_npresent - 1];
    accshare_npresent--;
}

/* Leaves a data lifetime (of a data or compute construct; with `finalize`, every reference
 * goes, as `acc_free` wants): the last reference copies the array back if `copy_out` and frees
 * its buffer (`accshare_last_ref`). An array that is not present is an error. */
static ACCSHARE_UNUSED void accshare_exit(const void *host, int copy_out, int finalize, const char *array, const char *origin)
{
    size_t off;
    int i = accshare_find(host, 0, &off, array, origin);
    accshare_entry *e;
    if (i < 0) {
        fprintf(stderr, "accshare: `%s` is not present on the device (leaving a data region) at %s\n", array, origin);
        exit(1);
    }
    e = &accshare_present_table[i];
    if (finalize)
        e->refs = 0;
    else
        e->refs--;
    accshare_last_ref(i, copy_out, array, origin);
}

/* `enter data copyin/create(…)` (and `acc_copyin`, `acc_create`): `accshare_enter` (`copy_in`
 * is its fill: 2 for `create(zero: …)`), counted as a dynamic reference. */
static ACCSHARE_UNUSED void accshare_enter_dynamic(const void *host, size_t bytes, int copy_in, const char *array, const char *origin)
{
    size_t off;
    (void)accshare_enter(host, bytes, copy_in, 0, 0, array, origin, &off);
    accshare_present_table[accshare_find(host, bytes, &off, array, origin)].dyn++;
}

/* `exit data copyout/delete(…)` (and `acc_copyout`, `acc_delete`): drops a dynamic reference
 * (with `finalize`, all of them); the data lifetime ends when no reference is left (the data
 * and compute constructs holding the array keep it). Data that is not present, or that only
 * constructs hold, is left as it is (OpenACC 3: no action). */
static ACCSHARE_UNUSED void accshare_exit_dynamic(const void *host, int copy_out, int finalize, const char *array, const char *origin)
{
    size_t off;
    int i = accshare_find(host, 0, &off, array, origin);
    accshare_entry *e;
    if (i < 0)
        return;
    e = &accshare_present_table[i];
    if (e->dyn <= 0)
        return;
    if (finalize) {
        e->refs -= e->dyn;
        e->dyn = 0;
    } else {
        e->refs--;
        e->dyn--;
    }
    accshare_last_ref(i, copy_out, array, origin);
}

/* `enter data copyin/create(…)` of an array of pointers to rows (`accshare_enter_rows`). */
static ACCSHARE_UNUSED void accshare_enter_dynamic_rows(void *const *rows, size_t bytes, size_t row_bytes, int copy_in, const char *array, const char *origin)
{
    size_t off;
    size_t nrows = row_bytes > 0 ? bytes / row_bytes : 0;
    (void)accshare_enter_rows(rows, bytes, row_bytes, copy_in, 0, array, origin, &off);
    accshare_present_table[accshare_find(rows, nrows * sizeof(void *), &off, array, origin)].dyn++;
}

/* `update host/device(…)` of the rows `rows` points to (`bytes` of them on the device, of
 * `row_bytes` each) of an array of pointers to rows. */
static ACCSHARE_UNUSED void accshare_update_rows(void *const *rows, size_t bytes, size_t row_bytes, int to_host, int if_present, const char *array, const char *origin)
{
    size_t off;
    size_t nrows = row_bytes > 0 ? bytes / row_bytes : 0;
    int i = accshare_find(rows, nrows * sizeof(void *), &off, array, origin);
    if (i < 0) {
        if (if_present)
            return;
        fprintf(stderr, "accshare: `%s` is not present on the device (an `update` directive) at %s\n", array, origin);
        exit(1);
    }
    if (accshare_present_table[i].row_bytes != row_bytes) {
        fprintf(stderr, "accshare: the rows of `%s` are %lu bytes on the device, not %lu (an `update` directive) at %s\n", array, (unsigned long)accshare_present_table[i].row_bytes, (unsigned long)row_bytes, origin);
        exit(1);
    }
    accshare_rows_move(accshare_present_table[i].dev, off, rows, nrows, row_bytes, to_host, array, origin);
}

/* `update host(…)` (`to_host`) or `update device(…)` of `bytes` at `host`; with `if_present`,
 * an array that is not present is skipped, otherwise it is an error. */
static ACCSHARE_UNUSED void accshare_update(const void *host, size_t bytes, int to_host, int if_present, const char *array, const char *origin)
{
    size_t off;
    int i = accshare_find(host, bytes, &off, array, origin);
    if (i < 0) {
        if (if_present)
            return;
        fprintf(stderr, "accshare: `%s` is not present on the device (an `update` directive) at %s\n", array, origin);
        exit(1);
    }
    if (accshare_present_table[i].shared)
        accshare_sync_shared(accshare_present_table[i].dev, off, bytes, to_host, array, origin);
    else if (to_host)
        accshare_read_at(accshare_present_table[i].dev, off, (void *)host, bytes, array, origin);
    else
        accshare_write_at(accshare_present_table[i].dev, off, host, bytes, array, origin);
}

/* A scalar a compute region uses while it has a device copy (a data clause names it): the
 * region's host code works on a variable `val` of its own, loaded from the copy before the
 * launches (`accshare_scalar_get`) and, when the region may assign it, stored into it after
 * them (`accshare_scalar_put`). Where the present table has no copy of the `bytes` at `host`,
 * the host variable itself is used, as without a data clause. */
static ACCSHARE_UNUSED void accshare_scalar_get(const void *host, void *val, size_t bytes, const char *array, const char *origin)
{
    size_t off, k;
    int i = accshare_find(host, bytes, &off, array, origin);
    if (i >= 0 && !accshare_present_table[i].shared) {
        accshare_read_at(accshare_present_table[i].dev, off, val, bytes, array, origin);
        return;
    }
    if (i >= 0)
        accshare_sync_shared(accshare_present_table[i].dev, off, bytes, 1, array, origin);
    for (k = 0; k < bytes; k++)
        ((char *)val)[k] = ((const char *)host)[k];
}

static ACCSHARE_UNUSED void accshare_scalar_put(void *host, const void *val, size_t bytes, const char *array, const char *origin)
{
    size_t off, k;
    int i = accshare_find(host, bytes, &off, array, origin);
    if (i >= 0 && !accshare_present_table[i].shared) {
        accshare_write_at(accshare_present_table[i].dev, off, val, bytes, array, origin);
        return;
    }
    for (k = 0; k < bytes; k++)
        ((char *)host)[k] = ((const char *)val)[k];
    if (i >= 0)
        accshare_sync_shared(accshare_present_table[i].dev, off, bytes, 0, array, origin);
}

/* The bytes of the buffers accshare allocated for the table's entries (not zero-copy ones, on
 * the host's arrays, nor mapped ones, which lie in memory another entry holds). */
static ACCSHARE_UNUSED size_t accshare_bytes_allocated(void)
{
    size_t sum = 0;
    int i;
    for (i = 0; i < accshare_npresent; i++) {
        const accshare_entry *e = &accshare_present_table[i];
        if (!e->shared && e->kind != ACCSHARE_ENTRY_MAPPED && e->row_bytes > 0)
            sum += e->bytes / sizeof(void *) * e->row_bytes;
        else if (!e->shared && e->kind != ACCSHARE_ENTRY_MAPPED)
            sum += e->bytes > 0 ? e->bytes : 1;
    }
    return sum;
}
