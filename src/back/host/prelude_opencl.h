#define CL_TARGET_OPENCL_VERSION 120
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define ACCSHARE_UNUSED __attribute__((unused))
/* The runtime's state (device, context, queue, present table) is one for the whole program:
 * weak definitions in every accshare .c, so that a data region in one file and a `present`
 * clause in another see the same device data. */
#define ACCSHARE_SHARED __attribute__((weak))
#else
#define ACCSHARE_UNUSED
#define ACCSHARE_SHARED static
#endif

/*@TABLES@*/

/* ---- accshare OpenCL runtime: static helpers called by the generated host code ---- */

ACCSHARE_SHARED cl_platform_id accshare_platform;
ACCSHARE_SHARED cl_device_id accshare_device;
ACCSHARE_SHARED cl_context accshare_context;
ACCSHARE_SHARED cl_command_queue accshare_queue;
ACCSHARE_SHARED int accshare_ready;
/* Zero-copy (see docs/host-memory.md): 1 when the device shares the host's memory
 * (CL_DEVICE_HOST_UNIFIED_MEMORY) and ACCSHARE_NO_ZERO_COPY is not set; a buffer may then use
 * the user's array (CL_MEM_USE_HOST_PTR) when its address is a multiple of
 * `accshare_zc_align` bytes. Set once, by accshare_init. */
ACCSHARE_SHARED int accshare_zero_copy;
ACCSHARE_SHARED size_t accshare_zc_align;
/* The pool of freed device buffers (accshare_alloc): buffers, their sizes, how many, their
 * bytes, and the capacity (0: not known yet, 1: no pool). */
#define ACCSHARE_POOL_SLOTS 32
ACCSHARE_SHARED cl_mem accshare_pool_mem[ACCSHARE_POOL_SLOTS];
ACCSHARE_SHARED size_t accshare_pool_size[ACCSHARE_POOL_SLOTS];
ACCSHARE_SHARED int accshare_pool_n;
ACCSHARE_SHARED size_t accshare_pool_bytes;
ACCSHARE_SHARED size_t accshare_pool_cap;
/* ACCSHARE_PROFILE (prelude_present.h). */
ACCSHARE_SHARED int accshare_profiling(void);
ACCSHARE_SHARED void accshare_profile_add(const char *name, const char *origin, double ns, size_t bytes);
ACCSHARE_SHARED void accshare_profile_start(const char *device);
/* This file's kernels (built in the shared context on first use). */
static cl_program accshare_program;
static cl_kernel accshare_kernels[ACCSHARE_NKERNELS];

static ACCSHARE_UNUSED const char *accshare_cl_error_name(cl_int e)
{
    switch (e) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -18: return "CL_DEVICE_PARTITION_FAILED";
    case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -41: return "CL_INVALID_SAMPLER";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -60: return "CL_INVALID_GL_OBJECT";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -62: return "CL_INVALID_MIP_LEVEL";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
    case -66: return "CL_INVALID_COMPILER_OPTIONS";
    case -67: return "CL_INVALID_LINKER_OPTIONS";
    case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

/* Prints `accshare: CALL(WHAT) failed: NAME (CODE) at ORIGIN` and exits. */
static ACCSHARE_UNUSED void accshare_fail(cl_int err, const char *call, const char *what, const char *origin)
{
    if (what != NULL && what[0] != '\0')
        fprintf(stderr, "accshare: %s(%s) failed: %s (%d) at %s\n", call, what,
                accshare_cl_error_name(err), (int)err, origin);
    else
        fprintf(stderr, "accshare: %s failed: %s (%d) at %s\n", call,
                accshare_cl_error_name(err), (int)err, origin);
    exit(1);
}

static ACCSHARE_UNUSED void accshare_check(cl_int err, const char *call, const char *what, const char *origin)
{
    if (err != CL_SUCCESS)
        accshare_fail(err, call, what, origin);
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

/* A string property of a device (`is_device`) or a platform; malloc'd, never NULL. */
static ACCSHARE_UNUSED char *accshare_info_string(int is_device, void *obj, cl_uint param, const char *origin)
{
    size_t n = 0;
    char *s;
    cl_int err;
    if (is_device)
        err = clGetDeviceInfo((cl_device_id)obj, (cl_device_info)param, 0, NULL, &n);
    else
        err = clGetPlatformInfo((cl_platform_id)obj, (cl_platform_info)param, 0, NULL, &n);
    accshare_check(err, is_device ? "clGetDeviceInfo" : "clGetPlatformInfo", "", origin);
    s = (char *)accshare_host_alloc(n + 1, origin);
    if (is_device)
        err = clGetDeviceInfo((cl_device_id)obj, (cl_device_info)param, n, s, NULL);
    else
        err = clGetPlatformInfo((cl_platform_id)obj, (cl_platform_info)param, n, s, NULL);
    accshare_check(err, is_device ? "clGetDeviceInfo" : "clGetPlatformInfo", "", origin);
    s[n] = '\0';
    return s;
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

static ACCSHARE_UNUSED void accshare_list_devices(cl_device_id *devs, cl_platform_id *plats, cl_uint nd, const char *origin)
{
    cl_uint i;
    fprintf(stderr, "accshare: OpenCL devices:\n");
    for (i = 0; i < nd; i++) {
        char *dn = accshare_info_string(1, devs[i], CL_DEVICE_NAME, origin);
        char *pn = accshare_info_string(0, plats[i], CL_PLATFORM_NAME, origin);
        fprintf(stderr, "accshare:   %u: %s (%s)\n", (unsigned)i, dn, pn);
        free(dn);
        free(pn);
    }
}

/* The device `acc_set_device_num` asked for, or -1. */
ACCSHARE_SHARED int accshare_requested = -1;

/* Asks for device `n` (an index over all devices, as ACCSHARE_DEVICE counts them) before the
 * runtime starts; afterwards it cannot change. */
static ACCSHARE_UNUSED void accshare_select_device(int n)
{
    accshare_requested = n;
}

/* The OpenCL devices of every platform (0 without a runtime). */
static ACCSHARE_UNUSED int accshare_device_count(void)
{
    cl_uint np = 0, i, total = 0;
    cl_platform_id plats[64];
    if (clGetPlatformIDs(64, plats, &np) != CL_SUCCESS)
        return 0;
    for (i = 0; i < np && i < 64; i++) {
        cl_uint n = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &n) == CL_SUCCESS)
            total += n;
    }
    return (int)total;
}

/* Whether buffers may use the user's arrays on `accshare_device` (zero-copy), and the alignment
 * their addresses need: the device must report CL_DEVICE_HOST_UNIFIED_MEMORY (CPUs, integrated
 * GPUs) and ACCSHARE_NO_ZERO_COPY must be unset, empty or 0. A CPU device's memory is the
 * host's: an address aligned for its element type is used as it is (PoCL's CPU devices do so at
 * any alignment). Other devices want CL_DEVICE_MEM_BASE_ADDR_ALIGN and whole pages (Intel's
 * zero-copy rule for processor graphics: 4096 bytes); elsewhere their runtime copies behind
 * the pointer, so the copying path is taken instead. ACCSHARE_VERBOSE=1 prints the choice. */
static ACCSHARE_UNUSED void accshare_query_zero_copy(const char *origin)
{
    cl_bool unified = CL_FALSE;
    cl_device_type t = 0;
    cl_uint bits = 0;
    const char *off = getenv("ACCSHARE_NO_ZERO_COPY");
    const char *verbose = getenv("ACCSHARE_VERBOSE");
    int disabled = off != NULL && off[0] != '\0' && strcmp(off, "0") != 0;
    /* Deprecated since OpenCL 2.0: a runtime that no longer answers gets the copying path. */
    if (clGetDeviceInfo(accshare_device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) != CL_SUCCESS)
        unified = CL_FALSE;
    accshare_check(clGetDeviceInfo(accshare_device, CL_DEVICE_TYPE, sizeof t, &t, NULL), "clGetDeviceInfo", "CL_DEVICE_TYPE", origin);
    accshare_check(clGetDeviceInfo(accshare_device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL),
                   "clGetDeviceInfo", "CL_DEVICE_MEM_BASE_ADDR_ALIGN", origin);
    accshare_zero_copy = unified == CL_TRUE && !disabled;
    if (t & CL_DEVICE_TYPE_CPU)
        accshare_zc_align = 1; /* the element type's alignment, which every C array has */
    else
        accshare_zc_align = bits / 8 > 4096 ? bits / 8 : 4096;
    if (verbose != NULL && verbose[0] != '\0' && strcmp(verbose, "0") != 0)
        fprintf(stderr, "accshare: zero-copy buffers: %s\n",
                accshare_zero_copy ? "on" : unified == CL_TRUE ? "off (ACCSHARE_NO_ZERO_COPY)" : "off (the device does not share host memory)");
}

/* Picks the device (acc_set_device_num's, else ACCSHARE_DEVICE = index or name substring; else
 * the first GPU; else the first device), creates the context and the in-order queue. Runs once. */
static ACCSHARE_UNUSED void accshare_init(const char *origin)
{
    cl_uint np = 0, nd = 0, i, j, pick;
    cl_platform_id *plats;
    cl_device_id *devs = NULL;
    cl_platform_id *dplat = NULL;
    const char *env;
    cl_int err;
    cl_context_properties props[3];

    if (accshare_ready)
        return;
    err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 || (err == CL_SUCCESS && np == 0)) {
        fprintf(stderr, "accshare: no OpenCL platform found at %s (install an OpenCL runtime, e.g. PoCL)\n", origin);
        exit(1);
    }
    accshare_check(err, "clGetPlatformIDs", "", origin);
    plats = (cl_platform_id *)accshare_host_alloc(np * sizeof(cl_platform_id), origin);
    accshare_check(clGetPlatformIDs(np, plats, NULL), "clGetPlatformIDs", "", origin);
    for (i = 0; i < np; i++) {
        cl_uint n = 0;
        err = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 0, NULL, &n);
        if (err == CL_DEVICE_NOT_FOUND || n == 0)
            continue;
        accshare_check(err, "clGetDeviceIDs", "", origin);
        devs = (cl_device_id *)realloc(devs, (nd + n) * sizeof(cl_device_id));
        dplat = (cl_platform_id *)realloc(dplat, (nd + n) * sizeof(cl_platform_id));
        if (devs == NULL || dplat == NULL) {
            fprintf(stderr, "accshare: out of host memory at %s\n", origin);
            exit(1);
        }
        accshare_check(clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, n, devs + nd, NULL), "clGetDeviceIDs", "", origin);
        for (j = 0; j < n; j++)
            dplat[nd + j] = plats[i];
        nd += n;
    }
    free(plats);
    if (nd == 0) {
        fprintf(stderr, "accshare: no OpenCL device found at %s\n", origin);
        exit(1);
    }
    pick = nd;
    env = getenv("ACCSHARE_DEVICE");
    if (env != NULL && env[0] != '\0') {
        const char *c = env;
        while (*c >= '0' && *c <= '9')
            c++;
        if (*c == '\0') {
            unsigned long k = strtoul(env, NULL, 10);
            if (k < nd)
                pick = (cl_uint)k;
        } else {
            for (i = 0; i < nd && pick == nd; i++) {
                char *dn = accshare_info_string(1, devs[i], CL_DEVICE_NAME, origin);
                if (accshare_contains(dn, env))
                    pick = i;
                free(dn);
            }
        }
        if (pick == nd) {
            fprintf(stderr, "accshare: ACCSHARE_DEVICE=%s matches no OpenCL device (give an index or a part of the name)\n", env);
            accshare_list_devices(devs, dplat, nd, origin);
            exit(1);
        }
    } else {
        for (i = 0; i < nd && pick == nd; i++) {
            cl_device_type t = 0;
            accshare_check(clGetDeviceInfo(devs[i], CL_DEVICE_TYPE, sizeof t, &t, NULL), "clGetDeviceInfo", "CL_DEVICE_TYPE", origin);
            if (t & CL_DEVICE_TYPE_GPU)
                pick = i;
        }
        if (pick == nd)
            pick = 0;
    }
    if (accshare_requested >= 0 && (cl_uint)accshare_requested < nd)
        pick = (cl_uint)accshare_requested;
    accshare_device = devs[pick];
    accshare_platform = dplat[pick];
    free(devs);
    free(dplat);
    env = getenv("ACCSHARE_VERBOSE");
    if (env != NULL && env[0] != '\0' && strcmp(env, "0") != 0) {
        char *dn = accshare_info_string(1, accshare_device, CL_DEVICE_NAME, origin);
        char *pn = accshare_info_string(0, accshare_platform, CL_PLATFORM_NAME, origin);
        fprintf(stderr, "accshare: running on %s (%s)\n", dn, pn);
        free(dn);
        free(pn);
    }
    if (ACCSHARE_USES_DOUBLE) {
        cl_device_fp_config fp = 0;
        err = clGetDeviceInfo(accshare_device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
        if (err == CL_SUCCESS && fp == 0) {
            char *dn = accshare_info_string(1, accshare_device, CL_DEVICE_NAME, origin);
            fprintf(stderr, "accshare: the kernels use double precision, which device %s does not support (cl_khr_fp64)\n", dn);
            free(dn);
            exit(1);
        }
    }
    accshare_query_zero_copy(origin);
    props[0] = CL_CONTEXT_PLATFORM;
    props[1] = (cl_context_properties)accshare_platform;
    props[2] = 0;
    accshare_context = clCreateContext(props, 1, &accshare_device, NULL, NULL, &err);
    accshare_check(err, "clCreateContext", "", origin);
    accshare_queue = clCreateCommandQueue(accshare_context, accshare_device,
                                          accshare_profiling() ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    accshare_check(err, "clCreateCommandQueue", "", origin);
    if (accshare_profiling()) {
        char *dn = accshare_info_string(1, accshare_device, CL_DEVICE_NAME, origin);
        char *pn = accshare_info_string(0, accshare_platform, CL_PLATFORM_NAME, origin);
        char both[512];
        snprintf(both, sizeof both, "%s (%s)", dn, pn);
        accshare_profile_start(both);
        free(dn);
        free(pn);
    }
    accshare_ready = 1;
}

/* Builds the program (once, on the first kernel needed). */
static ACCSHARE_UNUSED void accshare_build(const char *origin)
{
    cl_int err;
    const char *opts = getenv("ACCSHARE_BUILD_OPTIONS");
    if (accshare_program != NULL)
        return;
    accshare_init(origin);
    accshare_program = clCreateProgramWithSource(accshare_context, ACCSHARE_NSOURCE, accshare_source, NULL, &err);
    accshare_check(err, "clCreateProgramWithSource", "", origin);
    err = clBuildProgram(accshare_program, 1, &accshare_device, opts != NULL ? opts : "", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t n = 0;
        char *log;
        fprintf(stderr, "accshare: clBuildProgram failed: %s (%d) at %s\n", accshare_cl_error_name(err), (int)err, origin);
        if (clGetProgramBuildInfo(accshare_program, accshare_device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS) {
            log = (char *)accshare_host_alloc(n + 1, origin);
            if (clGetProgramBuildInfo(accshare_program, accshare_device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
                log[n] = '\0';
                fprintf(stderr, "accshare: build log:\n%s\n", log);
            }
            free(log);
        }
        exit(1);
    }
}

/* The kernel `name` (index `idx` in the module), created once and cached. */
static ACCSHARE_UNUSED cl_kernel accshare_kernel(int idx, const char *name, const char *origin)
{
    cl_int err;
    if (idx < 0 || idx >= ACCSHARE_NKERNELS) {
        fprintf(stderr, "accshare: internal error: no kernel %d (%s) at %s\n", idx, name, origin);
        exit(1);
    }
    if (accshare_kernels[idx] == NULL) {
        accshare_build(origin);
        accshare_kernels[idx] = clCreateKernel(accshare_program, name, &err);
        accshare_check(err, "clCreateKernel", name, origin);
    }
    return accshare_kernels[idx];
}

/* Freed device buffers kept for reuse (OpenACC runtimes pool device memory so: NVHPC does by
 * default). Programs allocate the same sizes again and again (`acc_malloc`/`acc_free` or a
 * `create` in a function called in a loop, the reduction partials of each launch): a new buffer
 * costs the runtime an allocation and the device (PoCL: the host's kernel) a page fault for each
 * page the first kernel touches; a pooled one costs neither. Only a buffer of exactly the size
 * asked is reused (its contents are undefined, as a new one's), at most ACCSHARE_POOL_SLOTS of
 * them and a quarter of the device's global memory in all; a failed allocation empties the pool
 * and tries again. The queue is in order, so a kernel that still uses a released buffer runs
 * before anything that reuses it. ACCSHARE_POOL=0 turns the pool off. */

/* The pool's capacity in bytes, found on first use (0: no pool). */
static ACCSHARE_UNUSED size_t accshare_pool_capacity(void)
{
    cl_ulong mem = 0;
    const char *env;
    if (accshare_pool_cap != 0)
        return accshare_pool_cap == 1 ? 0 : accshare_pool_cap;
    env = getenv("ACCSHARE_POOL");
    accshare_pool_cap = 1;
    if ((env == NULL || strcmp(env, "0") != 0)
        && clGetDeviceInfo(accshare_device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL) == CL_SUCCESS
        && mem / 4 > 1)
        accshare_pool_cap = (size_t)(mem / 4);
    return accshare_pool_cap == 1 ? 0 : accshare_pool_cap;
}

static ACCSHARE_UNUSED void accshare_pool_drain(void)
{
    while (accshare_pool_n > 0) {
        accshare_pool_n--;
        clReleaseMemObject(accshare_pool_mem[accshare_pool_n]);
    }
    accshare_pool_bytes = 0;
}

/* A device buffer of `bytes` bytes (OpenCL rejects 0: one byte is allocated instead). */
static ACCSHARE_UNUSED cl_mem accshare_alloc(size_t bytes, const char *array, const char *origin)
{
    cl_int err;
    cl_mem m;
    int i;
    accshare_init(origin);
    if (bytes == 0)
        bytes = 1;
    for (i = 0; i < accshare_pool_n; i++) {
        if (accshare_pool_size[i] == bytes) {
            m = accshare_pool_mem[i];
            accshare_pool_bytes -= bytes;
            accshare_pool_n--;
            accshare_pool_mem[i] = accshare_pool_mem[accshare_pool_n];
            accshare_pool_size[i] = accshare_pool_size[accshare_pool_n];
            return m;
        }
    }
    m = clCreateBuffer(accshare_context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if ((err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES) && accshare_pool_n > 0) {
        accshare_pool_drain();
        m = clCreateBuffer(accshare_context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    }
    accshare_check(err, "clCreateBuffer", array, origin);
    return m;
}

/* A buffer on the user's array `host` itself (CL_MEM_USE_HOST_PTR: no copy in, no copy back)
 * when zero-copy is on and `host` is suitably aligned: 1 and the buffer in `*dev`; else 0 (the
 * caller makes a buffer and copies). A device that refuses the host pointer gets the copying
 * path too. */
static ACCSHARE_UNUSED int accshare_share(const void *host, size_t bytes, const char *array, const char *origin, cl_mem *dev)
{
    cl_int err;
    cl_mem m;
    accshare_init(origin);
    if (!accshare_zero_copy || bytes == 0 || accshare_zc_align == 0 || (size_t)host % accshare_zc_align != 0)
        return 0;
    if (accshare_zc_align > 1 && bytes % 64 != 0)
        return 0;
    m = clCreateBuffer(accshare_context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, (void *)host, &err);
    (void)array;
    if (err != CL_SUCCESS || m == NULL)
        return 0;
    *dev = m;
    return 1;
}

/* The synchronisation OpenCL requires for the host to use the memory of a CL_MEM_USE_HOST_PTR
 * buffer: a blocking map of the `bytes` at byte offset `off` (after it, the host array holds the
 * device's latest writes: `to_host`) or a map that invalidates them (the device then sees what the
 * host wrote: `!to_host`), then the unmap, and the queue finished, so that no kernel still uses
 * the memory when the host goes on. */
static ACCSHARE_UNUSED void accshare_sync_shared(cl_mem m, size_t off, size_t bytes, int to_host, const char *array, const char *origin)
{
    cl_int err;
    void *p;
    if (bytes == 0)
        return;
    p = clEnqueueMapBuffer(accshare_queue, m, CL_TRUE, to_host ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION, off, bytes, 0, NULL, NULL, &err);
    accshare_check(err, "clEnqueueMapBuffer", array, origin);
    accshare_check(clEnqueueUnmapMemObject(accshare_queue, m, p, 0, NULL, NULL), "clEnqueueUnmapMemObject", array, origin);
    accshare_check(clFinish(accshare_queue), "clFinish", array, origin);
}

/* ACCSHARE_PROFILE: waits for `ev` (a launch's or a copy's; NULL when not profiling), adds
 * its time on the device to the table and releases it. */
static ACCSHARE_UNUSED void accshare_timed(cl_event ev, const char *name, const char *origin, size_t bytes)
{
    cl_ulong t0 = 0, t1 = 0;
    if (ev == NULL)
        return;
    if (clWaitForEvents(1, &ev) == CL_SUCCESS
        && clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS
        && clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS)
        accshare_profile_add(name, origin, t1 > t0 ? (double)(t1 - t0) : 0.0, bytes);
    clReleaseEvent(ev);
}

/* Reads or writes `bytes` at byte offset `off` of a buffer (`update` of part of an array). */
static ACCSHARE_UNUSED void accshare_read_at(cl_mem m, size_t off, void *host, size_t bytes, const char *array, const char *origin)
{
    cl_event ev = NULL;
    if (bytes == 0)
        return;
    accshare_check(clEnqueueReadBuffer(accshare_queue, m, CL_TRUE, off, bytes, host, 0, NULL, accshare_profiling() ? &ev : NULL),
                   "clEnqueueReadBuffer", array, origin);
    accshare_timed(ev, "device to host", origin, bytes);
}

static ACCSHARE_UNUSED void accshare_write_at(cl_mem m, size_t off, const void *host, size_t bytes, const char *array, const char *origin)
{
    cl_event ev = NULL;
    if (bytes == 0)
        return;
    accshare_check(clEnqueueWriteBuffer(accshare_queue, m, CL_TRUE, off, bytes, host, 0, NULL, accshare_profiling() ? &ev : NULL),
                   "clEnqueueWriteBuffer", array, origin);
    accshare_timed(ev, "host to device", origin, bytes);
}

static ACCSHARE_UNUSED void accshare_write(cl_mem m, const void *host, size_t bytes, const char *array, const char *origin)
{
    accshare_write_at(m, 0, host, bytes, array, origin);
}

static ACCSHARE_UNUSED void accshare_read(cl_mem m, void *host, size_t bytes, const char *array, const char *origin)
{
    accshare_read_at(m, 0, host, bytes, array, origin);
}

/* Frees a buffer: one accshare_alloc made goes to the pool while there is room in it. */
static ACCSHARE_UNUSED void accshare_release(cl_mem m, const char *array, const char *origin)
{
    cl_mem_flags flags = 0;
    size_t bytes = 0;
    if (accshare_pool_n < ACCSHARE_POOL_SLOTS
        && clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS
        && (flags & CL_MEM_USE_HOST_PTR) == 0
        && clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS
        && accshare_pool_bytes + bytes <= accshare_pool_capacity()) {
        accshare_pool_mem[accshare_pool_n] = m;
        accshare_pool_size[accshare_pool_n] = bytes;
        accshare_pool_n++;
        accshare_pool_bytes += bytes;
        return;
    }
    accshare_check(clReleaseMemObject(m), "clReleaseMemObject", array, origin);
}

static ACCSHARE_UNUSED void accshare_arg(cl_kernel k, cl_uint i, size_t size, const void *value, const char *kname, const char *origin)
{
    cl_int err = clSetKernelArg(k, i, size, value);
    if (err != CL_SUCCESS) {
        char what[256];
        snprintf(what, sizeof what, "%s, %u", kname, (unsigned)i);
        accshare_fail(err, "clSetKernelArg", what, origin);
    }
}

/* The device's compute units (CL_DEVICE_MAX_COMPUTE_UNITS), asked once. */
static ACCSHARE_UNUSED long long accshare_compute_units(const char *origin)
{
    static cl_uint units;
    if (!units) {
        accshare_check(clGetDeviceInfo(accshare_device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL),
                       "clGetDeviceInfo", "CL_DEVICE_MAX_COMPUTE_UNITS", origin);
        if (!units)
            units = 1;
    }
    return (long long)units;
}

/* Work-items for `extent` (> 0) rounded up to a multiple of `block`. */
static ACCSHARE_UNUSED size_t accshare_round_up(long long extent, size_t block)
{
    return ((size_t)extent + block - 1) / block * block;
}

static ACCSHARE_UNUSED void accshare_launch(cl_kernel k, cl_uint dims, const size_t *global, const size_t *local, const char *kname, const char *origin)
{
    cl_event ev = NULL;
    cl_int err = clEnqueueNDRangeKernel(accshare_queue, k, dims, NULL, global, local, 0, NULL, accshare_profiling() ? &ev : NULL);
    if (err == CL_INVALID_WORK_GROUP_SIZE) {
        size_t max = 0;
        if (clGetKernelWorkGroupInfo(k, accshare_device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max, NULL) == CL_SUCCESS)
            fprintf(stderr, "accshare: note: kernel %s uses work-groups of %lu x %lu x %lu; the device allows at most %lu work-items per group\n",
                    kname, (unsigned long)local[0], (unsigned long)(dims > 1 ? local[1] : 1),
                    (unsigned long)(dims > 2 ? local[2] : 1), (unsigned long)max);
    }
    accshare_check(err, "clEnqueueNDRangeKernel", kname, origin);
    accshare_timed(ev, kname, origin, 0);
}

/* Copies `bytes` between two buffers on the device (`acc_memcpy_device`), at byte offsets of
 * each: a device-to-device copy, finished before the host goes on. */
static ACCSHARE_UNUSED void accshare_copy_at(cl_mem dst, size_t dst_off, cl_mem src, size_t src_off, size_t bytes, const char *array, const char *origin)
{
    if (bytes == 0)
        return;
    accshare_check(clEnqueueCopyBuffer(accshare_queue, src, dst, src_off, dst_off, bytes, 0, NULL, NULL),
                   "clEnqueueCopyBuffer", array, origin);
    accshare_check(clFinish(accshare_queue), "clFinish", array, origin);
}

/* Device `n` of the numbering ACCSHARE_DEVICE and `acc_set_device_num` use (every device of
 * every platform, in order): 1 and the device, or 0 when there is no such device. */
static ACCSHARE_UNUSED int accshare_nth_device(int n, cl_device_id *dev, cl_platform_id *plat)
{
    cl_uint np = 0, i;
    cl_platform_id plats[64];
    if (n < 0 || clGetPlatformIDs(64, plats, &np) != CL_SUCCESS)
        return 0;
    for (i = 0; i < np && i < 64; i++) {
        cl_uint k = 0;
        cl_device_id devs[64];
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 64, devs, &k) != CL_SUCCESS)
            continue;
        if (k > 64)
            k = 64;
        if ((cl_uint)n < k) {
            *dev = devs[n];
            *plat = plats[i];
            return 1;
        }
        n -= (int)k;
    }
    return 0;
}

/* The bytes of device memory the present table's buffers hold (those accshare allocated: not
 * the zero-copy ones, which are the host's arrays, nor the mapped ones, counted where they
 * were allocated). */
static ACCSHARE_UNUSED size_t accshare_bytes_allocated(void);

/* `acc_get_property` of device `n`: 1 (acc_property_memory) its global memory
 * (CL_DEVICE_GLOBAL_MEM_SIZE); 2 (acc_property_free_memory) the free global memory, which core
 * OpenCL does not report: AMD's CL_DEVICE_GLOBAL_FREE_MEMORY_AMD where the device has the
 * cl_amd_device_attribute_query extension, else the global memory less the buffers accshare
 * holds on the device it runs on (an upper bound: other programs' memory is not seen); 3
 * (acc_property_shared_memory_support) whether the device shares host memory
 * (CL_DEVICE_HOST_UNIFIED_MEMORY). 0 for another property or no such device. */
static ACCSHARE_UNUSED size_t accshare_property(int n, int what, const char *origin)
{
    cl_device_id dev;
    cl_platform_id plat;
    cl_ulong mem = 0;
    if (!accshare_nth_device(n, &dev, &plat))
        return 0;
    if (what == 1 || what == 2) {
        accshare_check(clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL), "clGetDeviceInfo", "CL_DEVICE_GLOBAL_MEM_SIZE", origin);
        if (what == 2) {
            size_t kb[2] = {0, 0};
            char *ext = accshare_info_string(1, dev, CL_DEVICE_EXTENSIONS, origin);
            int amd = strstr(ext, "cl_amd_device_attribute_query") != NULL;
            free(ext);
            /* CL_DEVICE_GLOBAL_FREE_MEMORY_AMD: the free memory in KiB (total, largest block) */
            if (amd && clGetDeviceInfo(dev, 0x4039, sizeof kb, kb, NULL) == CL_SUCCESS)
                return kb[0] * (size_t)1024;
            if (accshare_ready && dev == accshare_device) {
                size_t used = accshare_bytes_allocated();
                return used < (size_t)mem ? (size_t)mem - used : 0;
            }
        }
        return (size_t)mem;
    }
    if (what == 3) {
        cl_bool unified = CL_FALSE;
        if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) != CL_SUCCESS)
            unified = CL_FALSE;
        return unified == CL_TRUE;
    }
    return 0;
}

/* `acc_get_property_string` of device `n`: 0x10000 (acc_property_name) CL_DEVICE_NAME,
 * 0x10001 (acc_property_vendor) CL_DEVICE_VENDOR, 0x10002 (acc_property_driver)
 * CL_DRIVER_VERSION (with the platform's name and version before it); NULL for another
 * property or no such device. The strings live until the program ends. */
static ACCSHARE_UNUSED const char *accshare_property_string(int n, int what, const char *origin)
{
    cl_device_id dev;
    cl_platform_id plat;
    char *s, *pn, *pv, *d;
    size_t len;
    if (!accshare_nth_device(n, &dev, &plat))
        return NULL;
    switch (what) {
    case 0x10000: return accshare_info_string(1, dev, CL_DEVICE_NAME, origin);
    case 0x10001: return accshare_info_string(1, dev, CL_DEVICE_VENDOR, origin);
    case 0x10002:
        pn = accshare_info_string(0, plat, CL_PLATFORM_NAME, origin);
        pv = accshare_info_string(0, plat, CL_PLATFORM_VERSION, origin);
        d = accshare_info_string(1, dev, CL_DRIVER_VERSION, origin);
        len = strlen(pn) + strlen(pv) + strlen(d) + 16;
        s = (char *)accshare_host_alloc(len, origin);
        snprintf(s, len, "%s (%s), driver %s", pn, pv, d);
        free(pn);
        free(pv);
        free(d);
        return s;
    default: return NULL;
    }
}

/* A device buffer, as the present table holds it. */
typedef cl_mem accshare_dev;
#define ACCSHARE_ACC_DEVICE_TYPE acc_device_not_host
