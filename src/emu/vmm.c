/* SPDX-License-Identifier: Apache-2.0 */
/* Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
 * cuMemSetAccess ...). A physical allocation is a memfd of a multiple of
 * the granularity, counted against its device; a reservation is host
 * address space (PROT_NONE); a mapping maps the memfd there with
 * MAP_SHARED|MAP_FIXED, so two mappings of one allocation alias the same
 * bytes, and so does a mapping in another process that imported the
 * allocation's file descriptor. The runs of consecutive mappings that are
 * accessible are entered in the address map (memory.c) as one entry each,
 * so kernels and copies may cross from one mapping into the next, as they
 * may on the GPU; memory that is reserved but not mapped and accessible is
 * refused (copies: CUDA_ERROR_INVALID_VALUE, kernels: a fault).
 *
 * Handles are numbers looked up in a list, never dereferenced: a released
 * or made-up handle is CUDA_ERROR_INVALID_VALUE. An allocation lives while
 * it has a handle reference (cuMemCreate, cuMemRetainAllocationHandle,
 * cuMemImportFromShareableHandle; cuMemRelease drops one) or a mapping. */
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRAN ((size_t)2 << 20)        /* what NVIDIA GPUs report, minimum and recommended */
#define MAX_SIZE ((size_t)1 << 46)
#define PAGE 4096u

struct phys {
    struct phys *next;
    unsigned long long handle;
    int fd;
    size_t size;
    struct emu_device *dev;
    unsigned handle_types;            /* requestedHandleTypes */
    unsigned char comp;               /* CU_MEM_ALLOCATION_COMP_GENERIC: stored plainly (below) */
    int charged;                      /* counted against dev (not an import) */
    int hrefs, mrefs;                 /* handle references, mappings */
};

struct vmap {
    struct vmap *next;
    uintptr_t va;
    size_t size;
    struct phys *ph;
    unsigned char acc[EMU_MAX_DEVICES]; /* CUmemAccess_flags by device ordinal */
};

struct resv {
    struct resv *next;
    uintptr_t base;
    size_t size;
};

/* Everything here; not held by kernels or copies, so waiting for them
 * under it cannot deadlock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct phys *physs;
static struct resv *resvs;
static struct vmap *vmaps;
static unsigned long long next_handle = 0x1000;

static struct phys *phys_find(unsigned long long h)
{
    for (struct phys *p = physs; p; p = p->next)
        if (p->handle == h)
            return p;
    return NULL;
}

static void phys_maybe_free(struct phys *p)
{
    if (p->hrefs || p->mrefs)
        return;
    for (struct phys **pp = &physs; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    close(p->fd);
    if (p->charged)
        emu_mem_uncharge(p->dev, p->size);
    free(p);
}

static struct resv *resv_holding(uintptr_t p, size_t len)
{
    for (struct resv *r = resvs; r; r = r->next)
        if (p >= r->base && p - r->base < r->size && len <= r->size - (p - r->base))
            return r;
    return NULL;
}

int emu_vmm_reserved(uintptr_t p, size_t len)
{
    int hit = 0;
    uintptr_t end = p + (len ? len : 1);
    pthread_mutex_lock(&lock);
    for (struct resv *r = resvs; r && !hit; r = r->next)
        hit = p < r->base + r->size && end > r->base;
    pthread_mutex_unlock(&lock);
    return hit;
}

static int accessible(const struct vmap *m)
{
    for (int d = 0; d < emu_ndevices && d < EMU_MAX_DEVICES; d++)
        if (m->acc[d] == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return 1;
    return 0;
}

static int by_va(const void *a, const void *b)
{
    uintptr_t x = (*(struct vmap *const *)a)->va, y = (*(struct vmap *const *)b)->va;
    return x < y ? -1 : x > y;
}

/* The mappings that start in [lo, hi), in address order (lock held):
 * how many, -1 when out of memory. */
static long gather(uintptr_t lo, uintptr_t hi, struct vmap ***out)
{
    size_t n = 0;
    for (struct vmap *v = vmaps; v; v = v->next)
        n += v->va >= lo && v->va < hi;
    struct vmap **list = malloc((n ? n : 1) * sizeof *list);
    if (!list)
        return -1;
    n = 0;
    for (struct vmap *v = vmaps; v; v = v->next)
        if (v->va >= lo && v->va < hi)
            list[n++] = v;
    qsort(list, n, sizeof *list, by_va);
    *out = list;
    return (long)n;
}

/* Enters r's accessible runs in the address map (lock held). */
static CUresult publish(struct resv *r, int wait)
{
    struct vmap **list;
    long n = gather(r->base, r->base + r->size, &list);
    if (n < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t (*runs)[2] = malloc((n ? (size_t)n : 1) * sizeof *runs);
    if (!runs) {
        free(list);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    size_t nr = 0;
    struct emu_device *dev = NULL;
    for (long k = 0; k < n; k++) {
        struct vmap *m = list[k];
        if (!accessible(m))
            continue;
        if (nr && runs[nr - 1][1] == m->va) {
            runs[nr - 1][1] = m->va + m->size;
            continue;
        }
        runs[nr][0] = m->va;
        runs[nr][1] = m->va + m->size;
        nr++;
        if (!dev)
            dev = m->ph->dev;
    }
    free(list);
    CUresult res = emu_mem_vmm_set(r->base, r->base + r->size, (const uintptr_t (*)[2])runs, nr,
                                   dev ? dev : emu_device(0), wait);
    free(runs);
    return res;
}

/* ---- physical allocations ------------------------------------------- */

static CUresult check_prop(const CUmemAllocationProp *prop, struct emu_device **dev)
{
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) /* host allocations: profiles say 0 */
        return prop->location.type == CU_MEM_LOCATION_TYPE_HOST ||
                       prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA
                   ? CUDA_ERROR_NOT_SUPPORTED
                   : CUDA_ERROR_INVALID_VALUE;
    if (!(*dev = emu_device(prop->location.id)))
        return CUDA_ERROR_INVALID_DEVICE;
    unsigned ht = (unsigned)prop->requestedHandleTypes;
    if (ht & ~(unsigned)(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_WIN32 |
                         CU_MEM_HANDLE_TYPE_WIN32_KMT | CU_MEM_HANDLE_TYPE_FABRIC))
        return CUDA_ERROR_INVALID_VALUE;
    if (ht & ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED; /* Windows handles, fabric (IMEX) */
    if (prop->win32HandleMetaData)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE &&
        prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Generic compression is a storage format of the GPU's memory system:
 * what kernels and copies read and write is the same either way, so the
 * emulator keeps a compressible allocation's bytes as they are and only
 * records that it is one. A device without the feature (its profile's
 * GENERIC_COMPRESSION_SUPPORTED is 0) gives a plain allocation instead,
 * as the driver does: cuMemGetAllocationPropertiesFromHandle says which
 * the program got. */
static unsigned char compression(const CUmemAllocationProp *prop, const struct emu_device *dev)
{
    return prop->allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC &&
                   emu_device_attr_or(dev, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0)
               ? CU_MEM_ALLOCATION_COMP_GENERIC
               : CU_MEM_ALLOCATION_COMP_NONE;
}

TD_EXPORT CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                                         CUmemAllocationGranularity_flags option)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *dev;
    if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                         option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_prop(prop, &dev);
    if (r)
        return r;
    *granularity = GRAN;
    return CUDA_SUCCESS;
}

static CUresult phys_add(int fd, size_t size, struct emu_device *dev, unsigned types, unsigned char comp,
                         int charged, CUmemGenericAllocationHandle *out)
{
    struct phys *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->fd = fd;
    p->size = size;
    p->dev = dev;
    p->handle_types = types;
    p->comp = comp;
    p->charged = charged;
    p->hrefs = 1;
    pthread_mutex_lock(&lock);
    p->handle = next_handle++;
    p->next = physs;
    physs = p;
    *out = p->handle;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                       const CUmemAllocationProp *prop, unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *dev;
    if (!handle || flags)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_prop(prop, &dev);
    if (r)
        return r;
    if (size == 0 || size % GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    if (size > MAX_SIZE || emu_mem_charge(dev, size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    char name[48];
    snprintf(name, sizeof name, "tdtrace-vmm-dev%d", dev->ordinal); /* an importer reads the device here */
    int fd = (int)memfd_create(name, MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size)) {
        if (fd >= 0)
            close(fd);
        emu_mem_uncharge(dev, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r = phys_add(fd, size, dev, (unsigned)prop->requestedHandleTypes, compression(prop, dev), 1, handle);
    if (r) {
        close(fd);
        emu_mem_uncharge(dev, size);
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    EMU_INIT_OR_RETURN();
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct phys *p = phys_find(handle);
    if (p && p->hrefs > 0) {
        p->hrefs--;
        phys_maybe_free(p); /* stays while mapped */
        r = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

static struct vmap *vmap_at(uintptr_t p)
{
    for (struct vmap *m = vmaps; m; m = m->next)
        if (p >= m->va && p - m->va < m->size)
            return m;
    return NULL;
}

TD_EXPORT CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    EMU_INIT_OR_RETURN();
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct vmap *m = vmap_at((uintptr_t)addr);
    if (m) {
        m->ph->hrefs++;
        *handle = m->ph->handle;
        r = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                                  CUmemGenericAllocationHandle handle)
{
    EMU_INIT_OR_RETURN();
    if (!prop)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct phys *p = phys_find(handle);
    if (p && p->hrefs > 0) {
        memset(prop, 0, sizeof *prop);
        prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop->requestedHandleTypes = (CUmemAllocationHandleType)p->handle_types;
        prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = p->dev->ordinal;
        prop->allocFlags.compressionType = p->comp;
        r = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- shareable handles: POSIX file descriptors ------------------------ */

TD_EXPORT CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                                        CUmemAllocationHandleType handleType,
                                                        unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    if (!shareableHandle || flags)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct phys *p = phys_find(handle);
    if (p && p->hrefs > 0 && handleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
        (p->handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            *(int *)shareableHandle = fd;
            r = CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* The device an exporter named in the memfd's name ("tdtrace-vmm-devN"),
 * or NULL when fd is not one of ours. */
static struct emu_device *memfd_device(int fd)
{
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return NULL;
    target[n] = 0;
    int d;
    char tail;
    if (sscanf(target, "/memfd:tdtrace-vmm-dev%d%c", &d, &tail) != 2 || tail != ' ')
        return NULL;
    return emu_device(d);
}

TD_EXPORT CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                          CUmemAllocationHandleType shHandleType)
{
    EMU_INIT_OR_RETURN();
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return shHandleType == CU_MEM_HANDLE_TYPE_WIN32 || shHandleType == CU_MEM_HANDLE_TYPE_WIN32_KMT ||
                       shHandleType == CU_MEM_HANDLE_TYPE_FABRIC
                   ? CUDA_ERROR_NOT_SUPPORTED
                   : CUDA_ERROR_INVALID_VALUE;
    intptr_t v = (intptr_t)osHandle; /* the fd is passed as the pointer's value */
    if (v < 0 || v > 0x7fffffff)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = (int)v;
    struct stat st;
    struct emu_device *dev = memfd_device(fd);
    if (!dev || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || (size_t)st.st_size % GRAN)
        return CUDA_ERROR_INVALID_VALUE; /* not an allocation exported by the emulator */
    int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the caller keeps and closes its own */
    if (mine < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* counted against the exporter's device, not again here */
    CUresult r = phys_add(mine, (size_t)st.st_size, dev, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                          CU_MEM_ALLOCATION_COMP_NONE, 0, handle);
    if (r)
        close(mine);
    return r;
}

/* ---- address reservations -------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                               unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    if (!ptr || flags || size == 0 || size % PAGE || addr % PAGE || (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (size > MAX_SIZE || alignment > MAX_SIZE)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t align = alignment > GRAN ? alignment : GRAN;
    struct resv *r = calloc(1, sizeof *r);
    if (!r)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *at = MAP_FAILED;
    int prot = PROT_NONE, fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (addr && addr % align == 0) { /* the hint, when that space is free */
        at = mmap((void *)(uintptr_t)addr, size, prot, fl | MAP_FIXED_NOREPLACE, -1, 0);
        if (at != MAP_FAILED && (uintptr_t)at != addr) { /* a kernel without MAP_FIXED_NOREPLACE */
            munmap(at, size);
            at = MAP_FAILED;
        }
    }
    if (at == MAP_FAILED) {
        char *raw = mmap(NULL, size + align, prot, fl, -1, 0);
        if (raw == MAP_FAILED) {
            free(r);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        uintptr_t b = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
        if (b > (uintptr_t)raw)
            munmap(raw, b - (uintptr_t)raw);
        if ((uintptr_t)raw + size + align > b + size)
            munmap((void *)(b + size), (uintptr_t)raw + size + align - (b + size));
        at = (void *)b;
    }
    r->base = (uintptr_t)at;
    r->size = size;
    pthread_mutex_lock(&lock);
    r->next = resvs;
    resvs = r;
    pthread_mutex_unlock(&lock);
    *ptr = (CUdeviceptr)r->base;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    EMU_INIT_OR_RETURN();
    CUresult res = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    for (struct resv **pp = &resvs; *pp; pp = &(*pp)->next) {
        struct resv *r = *pp;
        if (r->base != (uintptr_t)ptr || r->size != size)
            continue;
        int mapped = 0;
        for (struct vmap *m = vmaps; m && !mapped; m = m->next)
            mapped = m->va >= r->base && m->va - r->base < r->size;
        if (!mapped) { /* mappings must be unmapped first */
            *pp = r->next;
            munmap((void *)r->base, r->size);
            free(r);
            res = CUDA_SUCCESS;
        }
        break;
    }
    pthread_mutex_unlock(&lock);
    return res;
}

/* ---- mappings --------------------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                                    unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    uintptr_t va = (uintptr_t)ptr;
    if (flags || size == 0 || va % GRAN || size % GRAN || offset % GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct phys *p = phys_find(handle);
    struct vmap *m = NULL;
    if (!p || p->hrefs == 0 || offset > p->size || size > p->size - offset || !resv_holding(va, size))
        goto out;
    for (struct vmap *v = vmaps; v; v = v->next)
        if (va < v->va + v->size && va + size > v->va)
            goto out; /* already mapped there */
    r = CUDA_ERROR_OUT_OF_MEMORY;
    if (!(m = calloc(1, sizeof *m)))
        goto out;
    /* no access until cuMemSetAccess */
    if (mmap((void *)va, size, PROT_NONE, MAP_SHARED | MAP_FIXED, p->fd, (off_t)offset) == MAP_FAILED) {
        free(m);
        goto out;
    }
    m->va = va;
    m->size = size;
    m->ph = p;
    p->mrefs++;
    m->next = vmaps;
    vmaps = m;
    r = CUDA_SUCCESS;
out:
    pthread_mutex_unlock(&lock);
    return r;
}

/* The mappings that tile [va, va + size) exactly, in address order (lock
 * held): how many, or 0 when the range is not whole mappings without gaps
 * or not in one reservation. */
static size_t tiling(uintptr_t va, size_t size, struct vmap ***out)
{
    struct vmap **list;
    long n = resv_holding(va, size) ? gather(va, va + size, &list) : -1;
    if (n == 0)
        free(list);
    if (n <= 0)
        return 0;
    uintptr_t at = va;
    for (long k = 0; k < n && at; k++)
        at = list[k]->va == at && list[k]->size <= size - (at - va) ? at + list[k]->size : 0;
    if (at != va + size) {
        free(list);
        return 0;
    }
    *out = list;
    return (size_t)n;
}

TD_EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    EMU_INIT_OR_RETURN();
    uintptr_t va = (uintptr_t)ptr;
    if (size == 0 || va % GRAN || size % GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct vmap **list;
    size_t n = tiling(va, size, &list);
    if (!n) {
        pthread_mutex_unlock(&lock);
        return CUDA_ERROR_INVALID_VALUE; /* not mapped, or part of a mapping */
    }
    for (size_t k = 0; k < n; k++)
        memset(list[k]->acc, 0, sizeof list[k]->acc);
    /* out of the address map; as documented, synchronous: waits for the
     * copies and kernels that may still touch it */
    CUresult r = publish(resv_holding(va, size), 1);
    if (r) { /* the map is as it was: the memory stays */
        free(list);
        pthread_mutex_unlock(&lock);
        return r;
    }
    for (size_t k = 0; k < n; k++) {
        struct vmap *m = list[k];
        /* back to reserved address space */
        mmap((void *)m->va, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        for (struct vmap **pp = &vmaps; *pp; pp = &(*pp)->next)
            if (*pp == m) {
                *pp = m->next;
                break;
            }
        m->ph->mrefs--;
        phys_maybe_free(m->ph);
        free(m);
    }
    free(list);
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    EMU_INIT_OR_RETURN();
    uintptr_t va = (uintptr_t)ptr;
    if (!desc || count == 0 || size == 0 || va % GRAN || size % GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return CUDA_ERROR_INVALID_VALUE; /* device memory is not made host-accessible this way */
        if (!emu_device(desc[i].location.id) || desc[i].location.id >= EMU_MAX_DEVICES)
            return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
            static const char msg[] = "tdtrace-emu: cuMemSetAccess: read-only access "
                                      "(CU_MEM_ACCESS_FLAGS_PROT_READ) is not emulated (CUDA_ERROR_NOT_SUPPORTED)\n";
            emu_report(msg, sizeof msg - 1);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&lock);
    struct vmap **list;
    size_t n = tiling(va, size, &list);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    if (n) {
        int lost = 0; /* a mapping stops being accessible: wait for its users */
        for (size_t k = 0; k < n; k++) {
            int was = accessible(list[k]);
            for (size_t i = 0; i < count; i++)
                list[k]->acc[desc[i].location.id] = (unsigned char)desc[i].flags;
            int now = accessible(list[k]);
            if (now && !was)
                mprotect((void *)list[k]->va, list[k]->size, PROT_READ | PROT_WRITE);
            lost |= was && !now;
        }
        r = publish(resv_holding(va, size), lost);
        for (size_t k = 0; k < n && r == CUDA_SUCCESS; k++) /* failed: the map is as it was */
            if (!accessible(list[k]))
                mprotect((void *)list[k]->va, list[k]->size, PROT_NONE);
        free(list);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    EMU_INIT_OR_RETURN();
    if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (!emu_device(location->id) || location->id >= EMU_MAX_DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct vmap *m = vmap_at((uintptr_t)ptr);
    if (m) {
        *flags = m->acc[location->id];
        r = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return r;
}
