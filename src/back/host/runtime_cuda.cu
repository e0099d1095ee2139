#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ACCSHARE_UNUSED __attribute__((unused))
/* The runtime functions are the same in every accshare .cu: weak, so that a program may link
 * the outputs of several annotated files. */
#define ACCSHARE_API extern "C" __attribute__((weak))
#else
#define ACCSHARE_UNUSED
#define ACCSHARE_API extern "C"
#endif

/* ---- accshare CUDA runtime: the functions the generated .c calls (declared in its prelude),
 * with C linkage; every CUDA API call is checked ---- */

static int accshare_ready;
/* 1 when device memory comes from the device's stream-ordered pool (cudaMallocAsync on the
 * default stream, the pool keeping what is freed: see accshare_alloc). */
static int accshare_pooled;

/* Prints `accshare: CALL(WHAT) failed: NAME (CODE) at ORIGIN` and exits. */
static ACCSHARE_UNUSED void accshare_check(cudaError_t err, const char *call, const char *what, const char *origin)
{
    if (err == cudaSuccess)
        return;
    if (what != NULL && what[0] != '\0')
        fprintf(stderr, "accshare: %s(%s) failed: %s (%d) at %s\n", call, what, cudaGetErrorName(err), (int)err, origin);
    else
        fprintf(stderr, "accshare: %s failed: %s (%d) at %s\n", call, cudaGetErrorName(err), (int)err, origin);
    fprintf(stderr, "accshare: %s\n", cudaGetErrorString(err));
    exit(1);
}

/* ACCSHARE_PROFILE: the table is the .c file's (prelude_present.h). Launches and copies are
 * timed between two events on the default stream. */
extern "C" int accshare_profiling(void);
extern "C" void accshare_profile_add(const char *name, const char *origin, double ns, size_t bytes);
extern "C" void accshare_profile_start(const char *device);
static cudaEvent_t accshare_prof_ev[2];

/* Before a launch or a copy: 1, the start event recorded, when profiling; else 0. */
static ACCSHARE_UNUSED int accshare_prof_begin(const char *what, const char *origin)
{
    if (!accshare_profiling())
        return 0;
    if (accshare_prof_ev[0] == NULL) {
        accshare_check(cudaEventCreate(&accshare_prof_ev[0]), "cudaEventCreate", what, origin);
        accshare_check(cudaEventCreate(&accshare_prof_ev[1]), "cudaEventCreate", what, origin);
    }
    accshare_check(cudaEventRecord(accshare_prof_ev[0], 0), "cudaEventRecord", what, origin);
    return 1;
}

/* Right after it: records the end event. */
static ACCSHARE_UNUSED void accshare_prof_stop(const char *what, const char *origin)
{
    accshare_check(cudaEventRecord(accshare_prof_ev[1], 0), "cudaEventRecord", what, origin);
}

/* A launch's events must time the kernel, not the host's launch: with the stream idle, a start
 * event recorded before the launch is reached at once, and the time the host then takes to
 * launch (tens of microseconds on an H200) counted as the kernel's. So the stream first runs
 * a host function that waits for the host to have enqueued the kernel and the end event
 * (cudaLaunchHostFunc runs it in stream order; it calls no CUDA function), then the start
 * event, the kernel and the end event back to back. Copies, synchronous, are not held, nor a
 * kernel's first launch (`*seen` 0: with lazy loading the launch loads the kernel, which may
 * wait for the stream), and the host function gives up after a second, so that no launch can
 * wait for it forever. */
static std::atomic<int> accshare_prof_go(1);

static void CUDART_CB accshare_prof_gate(void *unused)
{
    (void)unused;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    while (!accshare_prof_go.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(1))
            break;
    }
}

/* Before a launch: as accshare_prof_begin, the stream held until accshare_prof_release from the
 * kernel's second launch on (`seen`: the launch function's flag). */
static ACCSHARE_UNUSED int accshare_prof_begin_launch(const char *what, const char *origin, int *seen)
{
    if (!accshare_profiling())
        return 0;
    if (*seen) {
        accshare_prof_go.store(0, std::memory_order_release);
        accshare_check(cudaLaunchHostFunc(0, accshare_prof_gate, NULL), "cudaLaunchHostFunc", what, origin);
    }
    *seen = 1;
    return accshare_prof_begin(what, origin);
}

/* After the launch and its end event were enqueued: lets the stream run them. */
static ACCSHARE_UNUSED void accshare_prof_release(void)
{
    accshare_prof_go.store(1, std::memory_order_release);
}

/* Waits for the end event and adds the time between the two to the table. */
static ACCSHARE_UNUSED void accshare_prof_add(const char *name, size_t bytes, const char *what, const char *origin)
{
    float ms = 0;
    accshare_check(cudaEventSynchronize(accshare_prof_ev[1]), "cudaEventSynchronize", what, origin);
    accshare_check(cudaEventElapsedTime(&ms, accshare_prof_ev[0], accshare_prof_ev[1]), "cudaEventElapsedTime", what, origin);
    accshare_profile_add(name, origin, (double)ms * 1e6, bytes);
}

/* Case-insensitive substring test. */
static ACCSHARE_UNUSED int accshare_contains(const char *hay, const char *needle)
{
    size_t i, j;
    for (i = 0; hay[i] != '\0'; i++) {
        for (j = 0; needle[j] != '\0' && hay[i + j] != '\0'; j++) {
            char a = hay[i + j], b = needle[j];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
        }
        if (needle[j] == '\0')
            return 1;
    }
    return needle[0] == '\0';
}

static int accshare_requested = -1;

/* Whether device `dev` allocates from its default memory pool (see accshare_alloc): it has
 * pools, ACCSHARE_POOL is not 0, and the pool may keep all the memory freed into it. */
static int accshare_pool_on(int dev)
{
    int pools = 0;
    cudaMemPool_t pool;
    unsigned long long keep = ~0ULL;
    const char *env = getenv("ACCSHARE_POOL");
    if (env != NULL && strcmp(env, "0") == 0)
        return 0;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev) != cudaSuccess || !pools)
        return 0;
    if (cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess)
        return 0;
    return cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess;
}

ACCSHARE_API void accshare_select_device(int n)
{
    accshare_requested = n;
}

ACCSHARE_API int accshare_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;
    return n;
}

/* The multiprocessors of the device the runtime uses, asked once. */
ACCSHARE_API long long accshare_compute_units(const char *origin)
{
    static int units;
    if (!units) {
        int dev = 0;
        accshare_check(cudaGetDevice(&dev), "cudaGetDevice", "", origin);
        accshare_check(cudaDeviceGetAttribute(&units, cudaDevAttrMultiProcessorCount, dev),
                       "cudaDeviceGetAttribute", "cudaDevAttrMultiProcessorCount", origin);
        if (units < 1)
            units = 1;
    }
    return units;
}

/* Picks the device (acc_set_device_num's, else ACCSHARE_DEVICE = index or name substring; else
 * device 0). Runs once. */
ACCSHARE_API void accshare_init(const char *origin)
{
    int nd = 0, i, pick = -1;
    const char *env;
    struct cudaDeviceProp prop;

    if (accshare_ready)
        return;
    accshare_check(cudaGetDeviceCount(&nd), "cudaGetDeviceCount", "", origin);
    if (nd <= 0) {
        fprintf(stderr, "accshare: no CUDA device found at %s\n", origin);
        exit(1);
    }
    env = getenv("ACCSHARE_DEVICE");
    if (env != NULL && env[0] != '\0') {
        const char *c = env;
        while (*c >= '0' && *c <= '9')
            c++;
        if (*c == '\0') {
            unsigned long k = strtoul(env, NULL, 10);
            if (k < (unsigned long)nd)
                pick = (int)k;
        } else {
            for (i = 0; i < nd && pick < 0; i++) {
                accshare_check(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties", "", origin);
                if (accshare_contains(prop.name, env))
                    pick = i;
            }
        }
        if (pick < 0) {
            fprintf(stderr, "accshare: ACCSHARE_DEVICE=%s matches no CUDA device (give an index or a part of the name)\n", env);
            fprintf(stderr, "accshare: CUDA devices:\n");
            for (i = 0; i < nd; i++) {
                accshare_check(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties", "", origin);
                fprintf(stderr, "accshare:   %d: %s\n", i, prop.name);
            }
            exit(1);
        }
    } else {
        pick = 0;
    }
    if (accshare_requested >= 0 && accshare_requested < nd)
        pick = accshare_requested;
    accshare_check(cudaSetDevice(pick), "cudaSetDevice", "", origin);
    accshare_pooled = accshare_pool_on(pick);
    env = getenv("ACCSHARE_VERBOSE");
    if (env != NULL && env[0] != '\0' && strcmp(env, "0") != 0) {
        accshare_check(cudaGetDeviceProperties(&prop, pick), "cudaGetDeviceProperties", "", origin);
        fprintf(stderr, "accshare: running on %s (CUDA)\n", prop.name);
    }
    if (accshare_profiling()) {
        char name[300];
        accshare_check(cudaGetDeviceProperties(&prop, pick), "cudaGetDeviceProperties", "", origin);
        snprintf(name, sizeof name, "%s (CUDA)", prop.name);
        accshare_profile_start(name);
    }
    accshare_ready = 1;
}

/* A device buffer of `bytes` bytes (at least one byte). Where the device has memory pools it
 * comes from the default pool on the default stream (cudaMallocAsync), which keeps freed
 * memory for the next allocation instead of returning it to the driver (OpenACC runtimes pool
 * device memory so: NVHPC does by default): programs allocate the same sizes again and again
 * (`acc_malloc`/`acc_free`, a `create` in a function called in a loop, the reduction partials
 * of each launch), and cudaFree waits for the whole device. Every use of the memory is on the
 * default stream, in order with the allocation and the free. ACCSHARE_POOL=0 turns it off. */
ACCSHARE_API void *accshare_alloc(size_t bytes, const char *array, const char *origin)
{
    void *p = NULL;
    accshare_init(origin);
    if (accshare_pooled)
        accshare_check(cudaMallocAsync(&p, bytes > 0 ? bytes : 1, 0), "cudaMallocAsync", array, origin);
    else
        accshare_check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc", array, origin);
    return p;
}

ACCSHARE_API void accshare_write(void *dev, const void *host, size_t bytes, const char *array, const char *origin)
{
    int timed;
    if (bytes == 0)
        return;
    timed = accshare_prof_begin(array, origin);
    accshare_check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy", array, origin);
    if (timed) {
        accshare_prof_stop(array, origin);
        accshare_prof_add("host to device", bytes, array, origin);
    }
}

ACCSHARE_API void accshare_read(const void *dev, void *host, size_t bytes, const char *array, const char *origin)
{
    int timed;
    if (bytes == 0)
        return;
    timed = accshare_prof_begin(array, origin);
    accshare_check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", array, origin);
    if (timed) {
        accshare_prof_stop(array, origin);
        accshare_prof_add("device to host", bytes, array, origin);
    }
}

ACCSHARE_API void accshare_release(void *dev, const char *array, const char *origin)
{
    if (accshare_pooled)
        accshare_check(cudaFreeAsync(dev, 0), "cudaFreeAsync", array, origin);
    else
        accshare_check(cudaFree(dev), "cudaFree", array, origin);
}

/* Copies `bytes` between two device buffers (`acc_memcpy_device`): a device-to-device copy. */
ACCSHARE_API void accshare_copy(void *dst, const void *src, size_t bytes, const char *array, const char *origin)
{
    if (bytes == 0)
        return;
    accshare_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy", array, origin);
}

/* `acc_get_property` of CUDA device `n`: 1 (acc_property_memory) its global memory
 * (cudaGetDeviceProperties' totalGlobalMem); 2 (acc_property_free_memory) the free memory
 * cudaMemGetInfo reports (on device `n`, made current for the call); 3
 * (acc_property_shared_memory_support) whether the device accesses pageable host memory
 * (pageableMemoryAccess). 0 for another property or no such device. */
ACCSHARE_API size_t accshare_property(int n, int what, const char *origin)
{
    struct cudaDeviceProp prop;
    if (n < 0 || n >= accshare_device_count())
        return 0;
    if (what == 1 || what == 3) {
        accshare_check(cudaGetDeviceProperties(&prop, n), "cudaGetDeviceProperties", "", origin);
        return what == 1 ? prop.totalGlobalMem : (size_t)(prop.pageableMemoryAccess != 0);
    }
    if (what == 2) {
        size_t free_bytes = 0, total = 0;
        int cur = -1;
        if (accshare_ready)
            accshare_check(cudaGetDevice(&cur), "cudaGetDevice", "", origin);
        if (cur != n)
            accshare_check(cudaSetDevice(n), "cudaSetDevice", "", origin);
        accshare_check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo", "", origin);
        if (cur >= 0 && cur != n)
            accshare_check(cudaSetDevice(cur), "cudaSetDevice", "", origin);
        return free_bytes;
    }
    return 0;
}

/* `acc_get_property_string` of CUDA device `n`: 0x10000 (acc_property_name) its name,
 * 0x10001 (acc_property_vendor) "NVIDIA", 0x10002 (acc_property_driver) the CUDA driver and
 * runtime versions; NULL for another property or no such device. The string is malloc'd. */
ACCSHARE_API const char *accshare_property_string(int n, int what, const char *origin)
{
    struct cudaDeviceProp prop;
    char *s;
    int driver = 0, runtime = 0;
    if (n < 0 || n >= accshare_device_count())
        return NULL;
    if (what != 0x10000 && what != 0x10001 && what != 0x10002)
        return NULL;
    s = (char *)malloc(320);
    if (s == NULL) {
        fprintf(stderr, "accshare: out of host memory at %s\n", origin);
        exit(1);
    }
    if (what == 0x10000) {
        accshare_check(cudaGetDeviceProperties(&prop, n), "cudaGetDeviceProperties", "", origin);
        snprintf(s, 320, "%s", prop.name);
    } else if (what == 0x10001) {
        snprintf(s, 320, "NVIDIA");
    } else {
        accshare_check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion", "", origin);
        accshare_check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion", "", origin);
        snprintf(s, 320, "CUDA driver %d.%d, runtime %d.%d", driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    }
    return s;
}

/* Checks a launch: the configuration (cudaGetLastError), then the execution; `timed`: what
 * accshare_prof_begin returned before it. Called by the launch functions below. */
static ACCSHARE_UNUSED void accshare_launched(const char *kname, const char *origin, int timed)
{
    /* The held stream is released before any check can exit. */
    if (timed) {
        accshare_prof_stop(kname, origin);
        accshare_prof_release();
    }
    accshare_check(cudaGetLastError(), "cudaLaunchKernel", kname, origin);
    accshare_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", kname, origin);
    if (timed)
        accshare_prof_add(kname, 0, kname, origin);
}
