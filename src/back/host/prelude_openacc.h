
/* ---- the OpenACC runtime API (<openacc.h>) for the program's host code, on accshare's runtime:
 * `_OPENACC` is defined as accshare defines it when it reads the program, and the `#include
 * <openacc.h>` of the main file is replaced by these definitions. ---- */

#ifndef _OPENACC
#define _OPENACC 201711
#endif

typedef enum {
    acc_device_none = 0,
    acc_device_default = 1,
    acc_device_host = 2,
    acc_device_not_host = 3,
    acc_device_nvidia = 4,
    acc_device_radeon = 5
} acc_device_t;

/* The device number `acc_set_device_num` chose (before the first region: it picks the device). */
ACCSHARE_SHARED int accshare_acc_num;

/* Devices of type `t`: the host is one; accelerators are the devices accshare's runtime sees. */
static ACCSHARE_UNUSED int acc_get_num_devices(acc_device_t t)
{
    if (t == acc_device_host)
        return 1;
    if (t == acc_device_none)
        return 0;
    return accshare_device_count();
}

static ACCSHARE_UNUSED void acc_set_device_num(int n, acc_device_t t)
{
    if (t == acc_device_host || n < 0)
        return;
    accshare_acc_num = n;
    accshare_select_device(n);
}

static ACCSHARE_UNUSED int acc_get_device_num(acc_device_t t)
{
    return t == acc_device_host ? 0 : accshare_acc_num;
}

static ACCSHARE_UNUSED acc_device_t acc_get_device_type(void)
{
    return ACCSHARE_ACC_DEVICE_TYPE;
}

static ACCSHARE_UNUSED void acc_set_device_type(acc_device_t t)
{
    (void)t;
}

static ACCSHARE_UNUSED void acc_init(acc_device_t t)
{
    if (t != acc_device_host)
        accshare_init("acc_init");
}

static ACCSHARE_UNUSED void acc_shutdown(acc_device_t t)
{
    (void)t;
}

/* Host code runs on the host (a call inside a compute region is refused by accshare). */
static ACCSHARE_UNUSED int acc_on_device(acc_device_t t)
{
    return t == acc_device_host || t == acc_device_none;
}

static ACCSHARE_UNUSED int acc_is_present(void *host, size_t bytes)
{
    size_t off;
    return accshare_find(host, bytes, &off, "acc_is_present", "acc_is_present") >= 0;
}

/* Device memory the program manages itself, named by `deviceptr(p)`. The address returned is
 * a key of host memory the device copy is entered under in the present table (never read or
 * written on the host: device memory is not host memory, as with any OpenACC runtime), so
 * `deviceptr(p)` and `present(p[…])` find the buffer, also at an offset into it. */
static ACCSHARE_UNUSED void *acc_malloc(size_t bytes)
{
    void *key = malloc(bytes > 0 ? bytes : 1);
    size_t off;
    if (key == NULL)
        return NULL;
    accshare_init("acc_malloc");
    (void)accshare_enter(key, bytes, 0, 0, 0, "acc_malloc", "acc_malloc", &off);
    return key;
}

static ACCSHARE_UNUSED void acc_free(void *p)
{
    if (p == NULL)
        return;
    accshare_exit(p, 0, 1, "acc_free", "acc_free");
    free(p);
}
