
/* ---- the present table: what every OpenACC runtime keeps. One entry per host array on the
 * device (its address range, its buffer, its reference count); data constructs, compute
 * regions, `enter data`/`exit data` and `update` look arrays up by host address, so a callee's
 * `present(a)` finds the buffer its caller's `data` region made. Since OpenACC 2.5 `copy`,
 * `copyin`, `copyout` and `create` are "present or …": an array already present is used as it
 * is, with no transfer, and its data move when its last reference goes. ---- */

#define ACCSHARE_MAX_PRESENT 4096

typedef struct {
    const char *host;
    size_t bytes;
    accshare_dev dev;
    long refs;
    /* The buffer is the host array itself (zero-copy, `accshare_share`): nothing is copied in
     * or back; the host syncs with a map when the last reference goes. */
    int shared;
} accshare_entry;

ACCSHARE_SHARED accshare_entry accshare_present_table[ACCSHARE_MAX_PRESENT];
ACCSHARE_SHARED int accshare_npresent;

/* The entry holding the `bytes` (at least one) at `host`, or -1. `host` may point inside an
 * array on the device (`&u[k]` passed to a routine with `present(p[0:n])`): its byte offset in
 * the entry goes to `*off` (0 for the array itself); a range straddling an entry's end is an
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
            *off = at;
            return i;
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
    if (accshare_npresent == ACCSHARE_MAX_PRESENT) {
        fprintf(stderr, "accshare: more than %d arrays on the device at %s\n", ACCSHARE_MAX_PRESENT, origin);
        exit(1);
    }
    if (may_share && !accshare_overlaps_shared(host, bytes))
        shared = accshare_share(host, bytes, array, origin, &dev);
    if (!shared) {
        dev = accshare_alloc(bytes, array, origin);
        if (copy_in == 1) {
            accshare_write(dev, host, bytes, array, origin);
        } else if (copy_in == 2 && bytes > 0) {
            void *zeros = calloc(1, bytes);
            if (zeros == NULL) {
                fprintf(stderr, "accshare: out of host memory zeroing `%s` (%lu bytes) at %s\n", array, (unsigned long)bytes, origin);
                exit(1);
            }
            accshare_write(dev, zeros, bytes, array, origin);
            free(zeros);
        }
    }
    accshare_present_table[accshare_npresent].host = (const char *)host;
    accshare_present_table[accshare_npresent].bytes = bytes;
    accshare_present_table[accshare_npresent].dev = dev;
    accshare_present_table[accshare_npresent].refs = 1;
    accshare_present_table[accshare_npresent].shared = shared;
    accshare_npresent++;
    return dev;
}

/* Leaves a data lifetime: the last reference copies the array back if `copy_out` (or
 * `finalize`) and frees its buffer; a zero-copy buffer is mapped instead (the host array then
 * holds what the kernels wrote, and no kernel uses it any more). An array that is not present
 * is an error. */
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
    if (e->refs > 0)
        return;
    if (e->shared)
        accshare_sync_shared(e->dev, 0, e->bytes, 1, array, origin);
    else if (copy_out)
        accshare_read(e->dev, (void *)e->host, e->bytes, array, origin);
    accshare_release(e->dev, array, origin);
    accshare_present_table[i] = accshare_present_table[accshare_npresent - 1];
    accshare_npresent--;
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
