
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

/* The values of an async argument that name no queue. accshare's queues are in order and
 * synchronous: every operation has finished when the call that started it returns. */
typedef enum {
    acc_async_default = -3,
    acc_async_sync = -2,
    acc_async_noval = -1
} acc_async_t;

/* The properties `acc_get_property` (numbers) and `acc_get_property_string` (strings) report. */
typedef enum {
    acc_property_memory = 1,
    acc_property_free_memory = 2,
    acc_property_shared_memory_support = 3,
    acc_property_name = 0x10000,
    acc_property_vendor = 0x10001,
    acc_property_driver = 0x10002
} acc_device_property_t;

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
    accshare_present_table[accshare_find(key, 0, &off, "acc_malloc", "acc_malloc")].kind = ACCSHARE_ENTRY_MALLOC;
    return key;
}

static ACCSHARE_UNUSED void acc_free(void *p)
{
    if (p == NULL)
        return;
    accshare_exit(p, 0, 1, "acc_free", "acc_free");
    free(p);
}

/* ---- data on the device, by host address (OpenACC 3.x, section 3.2). Device addresses are
 * keys of the present table, as `acc_malloc`'s are: the device copy of a host array is found
 * under the array's own address, and data `acc_map_data` mapped under the device address it
 * was given. A zero size or a NULL address does nothing. ---- */

static ACCSHARE_UNUSED void accshare_api_not_present(const void *p, size_t bytes, const char *origin)
{
    fprintf(stderr, "accshare: the %lu bytes at %p are not present on the device at %s\n", (unsigned long)bytes, p, origin);
    exit(1);
}

/* The entry of the device memory at `d` (`bytes` of it, from byte `*off` of its buffer): a key
 * `acc_malloc`, `acc_deviceptr` or `acc_copyin` returned. Another address is an error. */
static ACCSHARE_UNUSED int accshare_api_device(const void *d, size_t bytes, size_t *off, const char *origin)
{
    int i = d == NULL ? -1 : accshare_find(d, bytes, off, "data_dev", origin);
    if (i < 0 || accshare_present_table[i].kind == ACCSHARE_ENTRY_MAPPED) {
        fprintf(stderr, "accshare: %p is not device memory (from acc_malloc, acc_deviceptr or acc_copyin) at %s\n", d, origin);
        exit(1);
    }
    return i;
}

/* `h`'s device copy (NULL when it is not present): under `h` itself, or for data
 * `acc_map_data` mapped, the device address it was mapped to (plus `h`'s offset in it). */
static ACCSHARE_UNUSED void *acc_deviceptr(void *h)
{
    size_t off;
    int i = h == NULL ? -1 : accshare_find(h, 0, &off, "data_arg", "acc_deviceptr");
    const accshare_entry *e;
    if (i < 0)
        return NULL;
    e = &accshare_present_table[i];
    if (e->kind == ACCSHARE_ENTRY_MAPPED)
        return (void *)(e->key + (off - e->base));
    return h;
}

/* The host address whose device copy is at `d` (NULL when none): the inverse of
 * `acc_deviceptr`. `acc_malloc` memory has one only where `acc_map_data` mapped it. */
static ACCSHARE_UNUSED void *acc_hostptr(void *d)
{
    size_t off;
    int i = d == NULL ? -1 : accshare_find(d, 0, &off, "data_dev", "acc_hostptr"), j;
    const accshare_entry *e;
    if (i < 0)
        return NULL;
    e = &accshare_present_table[i];
    if (e->kind == ACCSHARE_ENTRY_DATA)
        return d;
    if (e->kind == ACCSHARE_ENTRY_MAPPED)
        return NULL;
    for (j = 0; j < accshare_npresent; j++) {
        const accshare_entry *m = &accshare_present_table[j];
        if (m->kind == ACCSHARE_ENTRY_MAPPED && m->dev == e->dev && off >= m->base && off < m->base + (m->bytes > 0 ? m->bytes : 1))
            return (void *)(m->host + (off - m->base));
    }
    return NULL;
}

/* `copyin` / `create` of `enter data`: a present array gains a (dynamic) reference and nothing
 * moves, else a device copy is made (and filled by `acc_copyin`). Returns the device address. */
static ACCSHARE_UNUSED void *acc_copyin(void *h, size_t bytes)
{
    if (h == NULL || bytes == 0)
        return NULL;
    accshare_enter_dynamic(h, bytes, 1, "data_arg", "acc_copyin");
    return acc_deviceptr(h);
}

static ACCSHARE_UNUSED void *acc_create(void *h, size_t bytes)
{
    if (h == NULL || bytes == 0)
        return NULL;
    accshare_enter_dynamic(h, bytes, 0, "data_arg", "acc_create");
    return acc_deviceptr(h);
}

static ACCSHARE_UNUSED void acc_copyin_async(void *h, size_t bytes, int async)
{
    (void)async;
    (void)acc_copyin(h, bytes);
}

static ACCSHARE_UNUSED void acc_create_async(void *h, size_t bytes, int async)
{
    (void)async;
    (void)acc_create(h, bytes);
}

/* The OpenACC 2.0 names (since 2.5, copyin and create are "present or" already). */
static ACCSHARE_UNUSED void *acc_present_or_copyin(void *h, size_t bytes)
{
    return acc_copyin(h, bytes);
}

static ACCSHARE_UNUSED void *acc_pcopyin(void *h, size_t bytes)
{
    return acc_copyin(h, bytes);
}

static ACCSHARE_UNUSED void *acc_present_or_create(void *h, size_t bytes)
{
    return acc_create(h, bytes);
}

static ACCSHARE_UNUSED void *acc_pcreate(void *h, size_t bytes)
{
    return acc_create(h, bytes);
}

/* `copyout` / `delete` of `exit data` (with `finalize`: every dynamic reference goes): the
 * last reference copies the array back (`copy_out`) and frees its device copy
 * (`accshare_exit_dynamic`; data that is not present is left alone). Present data must be the
 * whole array its device copy was made for. */
static ACCSHARE_UNUSED void accshare_api_exit(void *h, size_t bytes, int copy_out, int finalize, const char *origin)
{
    size_t off;
    int i;
    const accshare_entry *e;
    if (h == NULL || bytes == 0)
        return;
    i = accshare_find(h, bytes, &off, "data_arg", origin);
    if (i < 0)
        return;
    e = &accshare_present_table[i];
    if (e->host != (const char *)h || e->bytes != bytes) {
        fprintf(stderr, "accshare: the %lu bytes at %p are a part of a device copy of %lu bytes, not the whole of it, at %s\n",
                (unsigned long)bytes, h, (unsigned long)e->bytes, origin);
        exit(1);
    }
    accshare_exit_dynamic(h, copy_out, finalize, "data_arg", origin);
}

static ACCSHARE_UNUSED void acc_copyout(void *h, size_t bytes)
{
    accshare_api_exit(h, bytes, 1, 0, "acc_copyout");
}

static ACCSHARE_UNUSED void acc_copyout_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_exit(h, bytes, 1, 0, "acc_copyout_async");
}

static ACCSHARE_UNUSED void acc_copyout_finalize(void *h, size_t bytes)
{
    accshare_api_exit(h, bytes, 1, 1, "acc_copyout_finalize");
}

static ACCSHARE_UNUSED void acc_copyout_finalize_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_exit(h, bytes, 1, 1, "acc_copyout_finalize_async");
}

/* Attaching a pointer (`acc_attach(&data.a)`) points the device copy of the struct holding it
 * at the device copy of its target. accshare's kernels never read a struct on the device: they
 * receive each member they use as a parameter of its own, its device copy found by the address
 * the member holds when the kernel launches, so a pointer whose target is present is always
 * attached and these have nothing to do. (The argument is `void *`, not `void **`, so that
 * `&data.a` of any pointer type converts without a cast.) */
static ACCSHARE_UNUSED void acc_attach(void *ptr_addr)
{
    (void)ptr_addr;
}

static ACCSHARE_UNUSED void acc_attach_async(void *ptr_addr, int async)
{
    (void)ptr_addr;
    (void)async;
}

static ACCSHARE_UNUSED void acc_detach(void *ptr_addr)
{
    (void)ptr_addr;
}

static ACCSHARE_UNUSED void acc_detach_async(void *ptr_addr, int async)
{
    (void)ptr_addr;
    (void)async;
}

static ACCSHARE_UNUSED void acc_detach_finalize(void *ptr_addr)
{
    (void)ptr_addr;
}

static ACCSHARE_UNUSED void acc_detach_finalize_async(void *ptr_addr, int async)
{
    (void)ptr_addr;
    (void)async;
}

static ACCSHARE_UNUSED void acc_delete(void *h, size_t bytes)
{
    accshare_api_exit(h, bytes, 0, 0, "acc_delete");
}

static ACCSHARE_UNUSED void acc_delete_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_exit(h, bytes, 0, 0, "acc_delete_async");
}

static ACCSHARE_UNUSED void acc_delete_finalize(void *h, size_t bytes)
{
    accshare_api_exit(h, bytes, 0, 1, "acc_delete_finalize");
}

static ACCSHARE_UNUSED void acc_delete_finalize_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_exit(h, bytes, 0, 1, "acc_delete_finalize_async");
}

/* `update device` / `update self` of the `bytes` at `h`, which must be present. */
static ACCSHARE_UNUSED void accshare_api_update(void *h, size_t bytes, int to_host, const char *origin)
{
    size_t off;
    if (h == NULL || bytes == 0)
        return;
    if (accshare_find(h, bytes, &off, "data_arg", origin) < 0)
        accshare_api_not_present(h, bytes, origin);
    accshare_update(h, bytes, to_host, 0, "data_arg", origin);
}

static ACCSHARE_UNUSED void acc_update_device(void *h, size_t bytes)
{
    accshare_api_update(h, bytes, 0, "acc_update_device");
}

static ACCSHARE_UNUSED void acc_update_device_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_update(h, bytes, 0, "acc_update_device_async");
}

static ACCSHARE_UNUSED void acc_update_self(void *h, size_t bytes)
{
    accshare_api_update(h, bytes, 1, "acc_update_self");
}

static ACCSHARE_UNUSED void acc_update_self_async(void *h, size_t bytes, int async)
{
    (void)async;
    accshare_api_update(h, bytes, 1, "acc_update_self_async");
}

/* Copies between host memory and device memory (`d`: a device address, see above). */
static ACCSHARE_UNUSED void acc_memcpy_to_device(void *d, void *h, size_t bytes)
{
    size_t off;
    int i;
    if (bytes == 0)
        return;
    i = accshare_api_device(d, bytes, &off, "acc_memcpy_to_device");
    accshare_write_at(accshare_present_table[i].dev, off, h, bytes, "data_dev", "acc_memcpy_to_device");
}

static ACCSHARE_UNUSED void acc_memcpy_from_device(void *h, void *d, size_t bytes)
{
    size_t off;
    int i;
    if (bytes == 0)
        return;
    i = accshare_api_device(d, bytes, &off, "acc_memcpy_from_device");
    accshare_read_at(accshare_present_table[i].dev, off, h, bytes, "data_dev", "acc_memcpy_from_device");
}

/* A device-to-device copy between two device addresses. */
static ACCSHARE_UNUSED void acc_memcpy_device(void *dst, void *src, size_t bytes)
{
    size_t doff, soff;
    int i, j;
    if (bytes == 0)
        return;
    i = accshare_api_device(dst, bytes, &doff, "acc_memcpy_device");
    j = accshare_api_device(src, bytes, &soff, "acc_memcpy_device");
    accshare_copy_at(accshare_present_table[i].dev, doff, accshare_present_table[j].dev, soff, bytes, "data_dev", "acc_memcpy_device");
}

static ACCSHARE_UNUSED void acc_memcpy_to_device_async(void *d, void *h, size_t bytes, int async)
{
    (void)async;
    acc_memcpy_to_device(d, h, bytes);
}

static ACCSHARE_UNUSED void acc_memcpy_from_device_async(void *h, void *d, size_t bytes, int async)
{
    (void)async;
    acc_memcpy_from_device(h, d, bytes);
}

static ACCSHARE_UNUSED void acc_memcpy_device_async(void *dst, void *src, size_t bytes, int async)
{
    (void)async;
    acc_memcpy_device(dst, src, bytes);
}

/* Copies the device copy of the `bytes` at host address `src` (on device `dev_src`) to that of
 * `dst` (on device `dev_dst`). accshare runs every region on one device, which holds all the
 * program's device data: any valid pair of device numbers names it. */
static ACCSHARE_UNUSED void acc_memcpy_d2d(void *dst, void *src, size_t bytes, int dev_dst, int dev_src)
{
    size_t doff, soff;
    int i, j, nd = accshare_device_count();
    if (bytes == 0)
        return;
    if (dev_dst < 0 || dev_dst >= nd || dev_src < 0 || dev_src >= nd) {
        fprintf(stderr, "accshare: no device %d at acc_memcpy_d2d (there are %d)\n", dev_dst < 0 || dev_dst >= nd ? dev_dst : dev_src, nd);
        exit(1);
    }
    i = accshare_find(dst, bytes, &doff, "data_arg_dest", "acc_memcpy_d2d");
    if (i < 0)
        accshare_api_not_present(dst, bytes, "acc_memcpy_d2d");
    j = accshare_find(src, bytes, &soff, "data_arg_src", "acc_memcpy_d2d");
    if (j < 0)
        accshare_api_not_present(src, bytes, "acc_memcpy_d2d");
    accshare_copy_at(accshare_present_table[i].dev, doff, accshare_present_table[j].dev, soff, bytes, "data_arg", "acc_memcpy_d2d");
}

static ACCSHARE_UNUSED void acc_memcpy_d2d_async(void *dst, void *src, size_t bytes, int dev_dst, int dev_src, int async)
{
    (void)async;
    acc_memcpy_d2d(dst, src, bytes, dev_dst, dev_src);
}

/* Makes the device memory at `d` (`bytes` of `acc_malloc` memory, or of another device copy)
 * the device copy of the host data at `h`, which must not be present. The runtime never frees
 * it: `exit data`, `acc_delete` and the end of a data construct only drop references, and
 * `acc_unmap_data` ends the mapping, leaving the memory to `acc_free`. */
static ACCSHARE_UNUSED void acc_map_data(void *h, void *d, size_t bytes)
{
    size_t off, doff;
    int j;
    accshare_entry *e;
    if (h == NULL || bytes == 0) {
        fprintf(stderr, "accshare: acc_map_data of %s at acc_map_data\n", h == NULL ? "a NULL host address" : "zero bytes");
        exit(1);
    }
    if (accshare_find(h, bytes, &off, "data_arg", "acc_map_data") >= 0) {
        fprintf(stderr, "accshare: the %lu bytes at %p are already present on the device at acc_map_data\n", (unsigned long)bytes, h);
        exit(1);
    }
    j = accshare_api_device(d, bytes, &doff, "acc_map_data");
    e = accshare_push_entry(h, bytes, accshare_present_table[j].dev, "acc_map_data");
    e->refs = 0;
    e->base = doff;
    e->kind = ACCSHARE_ENTRY_MAPPED;
    e->key = (const char *)d;
}

static ACCSHARE_UNUSED void acc_unmap_data(void *h)
{
    int i;
    for (i = 0; i < accshare_npresent; i++) {
        if (accshare_present_table[i].host == (const char *)h && accshare_present_table[i].kind == ACCSHARE_ENTRY_MAPPED) {
            if (accshare_present_table[i].refs > 0) {
                fprintf(stderr, "accshare: %p is still in use by a data construct or `enter data` at acc_unmap_data\n", h);
                exit(1);
            }
            accshare_present_table[i] = accshare_present_table[accshare_npresent - 1];
            accshare_npresent--;
            return;
        }
    }
    fprintf(stderr, "accshare: %p was not mapped by acc_map_data at acc_unmap_data\n", h);
    exit(1);
}

/* ---- asynchronous queues: accshare's operations are synchronous (each has finished when its
 * call returns), so every queue is always complete and a wait returns at once ---- */

/* The queue of an `async` clause without an argument (acc_set_default_async). */
ACCSHARE_SHARED int accshare_default_async;

static ACCSHARE_UNUSED int acc_get_default_async(void)
{
    return accshare_default_async;
}

static ACCSHARE_UNUSED void acc_set_default_async(int async)
{
    accshare_default_async = async == acc_async_default ? 0 : async;
}

static ACCSHARE_UNUSED int acc_async_test(int wait_arg)
{
    (void)wait_arg;
    return 1;
}

static ACCSHARE_UNUSED int acc_async_test_device(int wait_arg, int dev_num)
{
    (void)wait_arg, (void)dev_num;
    return 1;
}

static ACCSHARE_UNUSED int acc_async_test_all(void)
{
    return 1;
}

static ACCSHARE_UNUSED int acc_async_test_all_device(int dev_num)
{
    (void)dev_num;
    return 1;
}

static ACCSHARE_UNUSED void acc_wait(int wait_arg)
{
    (void)wait_arg;
}

static ACCSHARE_UNUSED void acc_wait_device(int wait_arg, int dev_num)
{
    (void)wait_arg, (void)dev_num;
}

static ACCSHARE_UNUSED void acc_wait_async(int wait_arg, int async)
{
    (void)wait_arg, (void)async;
}

static ACCSHARE_UNUSED void acc_wait_device_async(int wait_arg, int async, int dev_num)
{
    (void)wait_arg, (void)async, (void)dev_num;
}

static ACCSHARE_UNUSED void acc_wait_all(void)
{
}

static ACCSHARE_UNUSED void acc_wait_all_device(int dev_num)
{
    (void)dev_num;
}

static ACCSHARE_UNUSED void acc_wait_all_async(int async)
{
    (void)async;
}

static ACCSHARE_UNUSED void acc_wait_all_device_async(int async, int dev_num)
{
    (void)async, (void)dev_num;
}

/* The index of a queue of `wait_arg` that has completed: the first one that is not
 * acc_async_sync (every queue is complete); -1 when all are. */
static ACCSHARE_UNUSED int acc_wait_any(int count, int *wait_arg)
{
    int i;
    for (i = 0; i < count; i++)
        if (wait_arg[i] != acc_async_sync)
            return i;
    return -1;
}

static ACCSHARE_UNUSED int acc_wait_any_device(int count, int *wait_arg, int dev_num)
{
    (void)dev_num;
    return acc_wait_any(count, wait_arg);
}

/* The OpenACC 1.0 names. */
static ACCSHARE_UNUSED void acc_async_wait(int wait_arg)
{
    (void)wait_arg;
}

static ACCSHARE_UNUSED void acc_async_wait_all(void)
{
}

/* ---- devices ---- */

static ACCSHARE_UNUSED void acc_init_device(int dev_num, acc_device_t t)
{
    (void)dev_num;
    if (t != acc_device_host)
        accshare_init("acc_init_device");
}

static ACCSHARE_UNUSED void acc_shutdown_device(int dev_num, acc_device_t t)
{
    (void)dev_num, (void)t;
}

/* A property of device `dev_num` (numbered as `acc_set_device_num` and ACCSHARE_DEVICE number
 * them): memory sizes in bytes, read from the device (see `accshare_property`); 0 for the host
 * or a device that does not exist. */
static ACCSHARE_UNUSED size_t acc_get_property(int dev_num, acc_device_t t, acc_device_property_t p)
{
    if (t == acc_device_host || t == acc_device_none)
        return 0;
    return accshare_property(dev_num, (int)p, "acc_get_property");
}

static ACCSHARE_UNUSED const char *acc_get_property_string(int dev_num, acc_device_t t, acc_device_property_t p)
{
    static const char *cache[16][3];
    int k = (int)p - (int)acc_property_name;
    if (t == acc_device_host || t == acc_device_none || k < 0 || k > 2)
        return NULL;
    if (dev_num < 0 || dev_num >= 16)
        return accshare_property_string(dev_num, (int)p, "acc_get_property_string");
    if (cache[dev_num][k] == NULL)
        cache[dev_num][k] = accshare_property_string(dev_num, (int)p, "acc_get_property_string");
    return cache[dev_num][k];
}
