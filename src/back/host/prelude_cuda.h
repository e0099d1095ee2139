#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ACCSHARE_UNUSED __attribute__((unused))
#else
#define ACCSHARE_UNUSED
#endif

/* ---- accshare CUDA runtime: static helpers called by the generated host code ---- */

static int accshare_ready;

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

static ACCSHARE_UNUSED void *accshare_host_alloc(size_t bytes, const char *origin)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "accshare: out of host memory (%lu bytes) at %s\n", (unsigned long)bytes, origin);
        exit(1);
    }
    return p;
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

/* Picks the device (ACCSHARE_DEVICE = index or name substring; else device 0). Runs once. */
static ACCSHARE_UNUSED void accshare_init(const char *origin)
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
    accshare_check(cudaSetDevice(pick), "cudaSetDevice", "", origin);
    env = getenv("ACCSHARE_VERBOSE");
    if (env != NULL && env[0] != '\0' && strcmp(env, "0") != 0) {
        accshare_check(cudaGetDeviceProperties(&prop, pick), "cudaGetDeviceProperties", "", origin);
        fprintf(stderr, "accshare: running on %s (CUDA)\n", prop.name);
    }
    accshare_ready = 1;
}

/* A device buffer of `bytes` bytes (at least one byte). */
static ACCSHARE_UNUSED void *accshare_alloc(size_t bytes, const char *array, const char *origin)
{
    void *p = NULL;
    accshare_init(origin);
    accshare_check(cudaMalloc(&p, bytes > 0 ? bytes : 1), "cudaMalloc", array, origin);
    return p;
}

static ACCSHARE_UNUSED void accshare_write(void *dev, const void *host, size_t bytes, const char *array, const char *origin)
{
    if (bytes == 0)
        return;
    accshare_check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy", array, origin);
}

static ACCSHARE_UNUSED void accshare_read(const void *dev, void *host, size_t bytes, const char *array, const char *origin)
{
    if (bytes == 0)
        return;
    accshare_check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", array, origin);
}

static ACCSHARE_UNUSED void accshare_release(void *dev, const char *array, const char *origin)
{
    accshare_check(cudaFree(dev), "cudaFree", array, origin);
}

/* Blocks for `extent` (> 0) work-items of `block` threads each. */
static ACCSHARE_UNUSED unsigned accshare_blocks(long long extent, unsigned block)
{
    return (unsigned)(((unsigned long long)extent + block - 1) / block);
}

/* Checks a launch: the configuration (cudaGetLastError), then the execution. */
static ACCSHARE_UNUSED void accshare_launched(const char *kname, const char *origin)
{
    accshare_check(cudaGetLastError(), "cudaLaunchKernel", kname, origin);
    accshare_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", kname, origin);
}

/* ---- C compatibility: the program below is C, but nvcc compiles .cu files as C++ ----
 * nvcc's own front end (not the host compiler) rejects C's implicit `void *` conversions, so
 * `-Xcompiler -fpermissive` does not help: `malloc`/`calloc`/`realloc` return a value that
 * converts to any object pointer type (`float (*a)[N] = malloc(...)` compiles), and C99
 * `restrict` is spelled `__restrict__`. Define ACCSHARE_NO_C_COMPAT to turn this off. */
#if defined(__cplusplus) && !defined(ACCSHARE_NO_C_COMPAT)
/* Headers that declare malloc/calloc/realloc come first: their declarations must not see the
 * macros (stdlib.h is included above). */
#if defined(__has_include)
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#endif
#ifndef restrict
#define restrict __restrict__
#endif
struct accshare_c_void_ptr {
    void *p;
    template <class T> operator T *() const { return static_cast<T *>(p); }
};
static inline accshare_c_void_ptr accshare_c_ptr(void *p)
{
    accshare_c_void_ptr r = {p};
    return r;
}
#define malloc(n) accshare_c_ptr(malloc(n))
#define calloc(n, size) accshare_c_ptr(calloc(n, size))
#define realloc(p, n) accshare_c_ptr(realloc(p, n))
#endif
