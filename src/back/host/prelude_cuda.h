#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ACCSHARE_UNUSED __attribute__((unused))
/* The present table is one for the whole program: weak definitions in every accshare .c. */
#define ACCSHARE_SHARED __attribute__((weak))
#else
#define ACCSHARE_UNUSED
#define ACCSHARE_SHARED static
#endif

/* ---- the accshare CUDA runtime, defined in the .cu file (C linkage); each call is checked
 * there and a failure prints `accshare: CALL(WHAT) failed: NAME (CODE) at ORIGIN` and exits ---- */

/* Picks the device (ACCSHARE_DEVICE = index or name substring; else device 0). Runs once. */
void accshare_init(const char *origin);
/* A device buffer of `bytes` bytes (at least one byte). */
void *accshare_alloc(size_t bytes, const char *array, const char *origin);
void accshare_write(void *dev, const void *host, size_t bytes, const char *array, const char *origin);
void accshare_read(const void *dev, void *host, size_t bytes, const char *array, const char *origin);
void accshare_release(void *dev, const char *array, const char *origin);
/* The CUDA devices (0 without a driver); asks for device `n` before the runtime starts. */
int accshare_device_count(void);
void accshare_select_device(int n);

/* The multiprocessors of the device the runtime uses. */
long long accshare_compute_units(const char *origin);

/* A device-to-device copy of `bytes` (`acc_memcpy_device`). */
void accshare_copy(void *dst, const void *src, size_t bytes, const char *array, const char *origin);
/* `acc_get_property` / `acc_get_property_string` of device `n` (the codes of
 * acc_device_property_t; 0 / NULL for others or no such device). */
size_t accshare_property(int n, int what, const char *origin);
const char *accshare_property_string(int n, int what, const char *origin);

/* ACCSHARE_PROFILE: defined in prelude_present.h (below), called by the .cu. */
ACCSHARE_SHARED int accshare_profiling(void);
ACCSHARE_SHARED void accshare_profile_add(const char *name, const char *origin, double ns, size_t bytes);
ACCSHARE_SHARED void accshare_profile_start(const char *device);

/* Reads or writes `bytes` at byte offset `off` of a buffer (`update` of part of an array). */
static ACCSHARE_UNUSED void accshare_read_at(void *dev, size_t off, void *host, size_t bytes, const char *array, const char *origin)
{
    accshare_read((const char *)dev + off, host, bytes, array, origin);
}

static ACCSHARE_UNUSED void accshare_write_at(void *dev, size_t off, const void *host, size_t bytes, const char *array, const char *origin)
{
    accshare_write((char *)dev + off, host, bytes, array, origin);
}

static ACCSHARE_UNUSED void accshare_copy_at(void *dst, size_t dst_off, void *src, size_t src_off, size_t bytes, const char *array, const char *origin)
{
    accshare_copy((char *)dst + dst_off, (const char *)src + src_off, bytes, array, origin);
}

/* ---- host-only helpers ---- */

static ACCSHARE_UNUSED void *accshare_host_alloc(size_t bytes, const char *origin)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "accshare: out of host memory (%lu bytes) at %s\n", (unsigned long)bytes, origin);
        exit(1);
    }
    return p;
}

/* A debug check: the byte size accshare computed for a whole array equals the array's `sizeof`
 * (a mismatch is a bug of accshare's, reported rather than copying the wrong bytes). */
static ACCSHARE_UNUSED void accshare_check_extent(size_t computed, size_t actual, const char *array, const char *origin)
{
    if (computed != actual) {
        fprintf(stderr, "accshare: internal error: the size computed for `%s` (%lu bytes) is not its sizeof (%lu bytes) at %s\n",
                array, (unsigned long)computed, (unsigned long)actual, origin);
        exit(1);
    }
}

/* Blocks for `extent` (> 0) work-items of `block` threads each. */
static ACCSHARE_UNUSED unsigned accshare_blocks(long long extent, unsigned block)
{
    return (unsigned)(((unsigned long long)extent + block - 1) / block);
}

/* A device buffer, as the present table holds it. */
typedef void *accshare_dev;

/* Zero-copy buffers (docs/host-memory.md) are OpenCL's: CUDA host code always copies (the
 * devices it targets are discrete GPUs), so no buffer is ever shared with the host. */
static ACCSHARE_UNUSED int accshare_share(const void *host, size_t bytes, const char *array, const char *origin, accshare_dev *dev)
{
    (void)host, (void)bytes, (void)array, (void)origin, (void)dev;
    return 0;
}

static ACCSHARE_UNUSED void accshare_sync_shared(accshare_dev dev, size_t off, size_t bytes, int to_host, const char *array, const char *origin)
{
    (void)dev, (void)off, (void)bytes, (void)to_host, (void)array, (void)origin;
}
#define ACCSHARE_ACC_DEVICE_TYPE acc_device_nvidia
