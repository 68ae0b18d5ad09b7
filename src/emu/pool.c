/* SPDX-License-Identifier: Apache-2.0 */
/* Stream-ordered allocation and memory pools: each device's default pool
 * and the program's pools, their attributes and release thresholds,
 * cuMemAllocAsync/cuMemFreeAsync in stream order, pool exports. Built on the
 * allocations of memory.c, which counts what each pool holds.
 *
 * Exportable pools (handleTypes CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
 * keep their allocations in one memfd, named after a random number, each
 * allocation at its own page-aligned offset (handed out in order, never
 * reused: a freed one's pages are given back with a hole), mapped shared.
 * The pool's shareable handle is a descriptor of that memfd
 * (cuMemPoolExportToShareableHandle); another process that receives it
 * (over a Unix socket, or with pidfd_getfd) imports the pool
 * (cuMemPoolImportFromShareableHandle checks that the descriptor is such a
 * memfd). A pointer's export data names the pool's number, the offset and
 * the size; cuMemPoolImportPointer maps that part of the memfd, checked to
 * lie inside it, as an allocation of the importing context, which
 * cuMemFree/cuMemFreeAsync unmaps. As on a GPU, the importer frees before
 * the exporter does: memory the exporter freed reads as zeros. */
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL_PTR_MAGIC "tdPoolP1"

/* what a CUmemPoolPtrExportData holds (64 bytes) */
struct pool_ptr_wire {
    char magic[8];
    uint64_t nonce;   /* the pool's */
    uint64_t off;     /* the allocation's offset in the pool's memfd */
    uint64_t size;
    uint64_t maplen;
    uint64_t zero[3];
};
_Static_assert(sizeof(struct pool_ptr_wire) <= sizeof(CUmemPoolPtrExportData), "the data holds the wire form");

/* an allocation of an exportable pool (exporter) or imported into a pool (importer) */
struct pool_map {
    struct emu_pool *pool;  /* referenced */
    uint64_t off;
    size_t maplen;
    void *mem;
};


static void pool_release(struct emu_obj *o)
{
    struct emu_pool *p = (struct emu_pool *)o;
    if (p->is_default)
        return;
    if (p->fd >= 0)
        close(p->fd);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static struct emu_pool *pool_new(struct emu_device *dev, int is_default)
{
    struct emu_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    emu_obj_init(&p->o, EMU_T_POOL, NULL, pool_release);
    p->dev = dev;
    p->is_default = is_default;
    p->fd = -1;
    pthread_mutex_init(&p->lock, NULL);
    p->reuse[1] = p->reuse[2] = p->reuse[3] = 1;
    emu_obj_register(&p->o);
    return p;
}

CUresult emu_pools_init(struct emu_device *dev)
{
    dev->default_pool = pool_new(dev, 1);
    dev->cur_pool = dev->default_pool;
    return dev->default_pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}


TD_EXPORT CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = (CUmemoryPool)d->default_pool;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&d->mem_lock);
    *pool = (CUmemoryPool)d->cur_pool;
    pthread_mutex_unlock(&d->mem_lock);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = p->dev == d ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&d->mem_lock);
        d->cur_pool = p;
        pthread_mutex_unlock(&d->mem_lock);
    }
    emu_obj_put(&p->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    EMU_INIT_OR_RETURN();
    if (!pool || !poolProps)
        return CUDA_ERROR_INVALID_VALUE;
    if (poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (poolProps->handleTypes != CU_MEM_HANDLE_TYPE_NONE &&
        poolProps->handleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        emu_reportf("tdtrace-emu: cuMemPoolCreate: handle types 0x%x: pools export POSIX file descriptors only "
            "(CUDA_ERROR_NOT_SUPPORTED)\n", (unsigned)poolProps->handleTypes);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    struct emu_device *d = emu_device(poolProps->location.id);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_pool *p = pool_new(d, 0);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (poolProps->handleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        char name[64];
        p->exportable = 1;
        if (getrandom(&p->nonce, sizeof p->nonce, 0) == (ssize_t)sizeof p->nonce) {
            emu_ipc_name(name, sizeof name, EMU_IPC_POOL, p->nonce);
            p->fd = memfd_create(name, MFD_CLOEXEC);
        }
        if (p->fd < 0) {
            emu_obj_unregister(&p->o);
            emu_obj_put(&p->o);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
    EMU_INIT_OR_RETURN();
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    if (p->is_default) {
        emu_obj_put(&p->o);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_device *d = p->dev;
    pthread_mutex_lock(&d->mem_lock);
    if (d->cur_pool == p)
        d->cur_pool = d->default_pool;
    pthread_mutex_unlock(&d->mem_lock);
    /* allocations still out hold references: the pool is freed after them */
    int mine = emu_obj_unregister(&p->o);
    emu_obj_put(&p->o);
    if (mine)
        emu_obj_put(&p->o);
    return mine ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    EMU_INIT_OR_RETURN();
    (void)minBytesToKeep;
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    emu_obj_put(&p->o); /* freed memory goes back at once: nothing cached */
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    EMU_INIT_OR_RETURN();
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&p->lock);
    switch ((int)attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        *(int *)value = p->reuse[attr];
        break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)value = p->threshold; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)value = p->used; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)value = p->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = p->used; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = p->used_high; break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    pthread_mutex_unlock(&p->lock);
    emu_obj_put(&p->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    EMU_INIT_OR_RETURN();
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&p->lock);
    switch ((int)attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        p->reuse[attr] = *(int *)value != 0;
        break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: p->threshold = *(cuuint64_t *)value; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        if (*(cuuint64_t *)value != 0) { /* only a reset to zero is allowed */
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
        if ((int)attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH)
            p->used_high = p->used;
        else
            p->reserved_high = p->used;
        break;
    default: r = CUDA_ERROR_INVALID_VALUE; break;
    }
    pthread_mutex_unlock(&p->lock);
    emu_obj_put(&p->o);
    return r;
}

/* memory.c: the allocation left the map (0), its memory is released (1):
 * unmapped; an exporter's pages go back to the system */
static void map_gone(void *cookie, int final)
{
    struct pool_map *m = cookie;
    if (!final)
        return;
    munmap(m->mem, m->maplen);
    if (!m->pool->imported)
        (void)fallocate(m->pool->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)m->off, (off_t)m->maplen);
    emu_obj_put(&m->pool->o);
    free(m);
}

/* part [off, off + maplen) of pool p's memfd mapped as an allocation of c
 * of size bytes */
static CUresult map_part(struct emu_ctx *c, struct emu_pool *p, uint64_t off, size_t size, size_t maplen,
                         uintptr_t *out)
{
    struct pool_map *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->mem = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, (off_t)off);
    if (m->mem == MAP_FAILED) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->pool = p;
    emu_obj_ref(&p->o);
    m->off = off;
    m->maplen = maplen;
    CUresult r = emu_mem_adopt_pool(c, (uintptr_t)m->mem, size, EMU_MEM_DEVICE, p, map_gone, m);
    if (r) { /* not entered: gone is not called */
        munmap(m->mem, maplen);
        emu_obj_put(&p->o);
        free(m);
        return r;
    }
    *out = (uintptr_t)m->mem;
    return CUDA_SUCCESS;
}

/* an allocation of an exportable pool: the next pages of its memfd */
static CUresult shared_alloc(struct emu_ctx *c, size_t size, struct emu_pool *p, uintptr_t *out)
{
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t maplen = (size + 4095) & ~(size_t)4095;
    if (maplen < size || maplen > ((uint64_t)1 << 46))
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&p->lock);
    uint64_t off = p->next_off;
    int ok = off + maplen <= ((uint64_t)1 << 50) && ftruncate(p->fd, (off_t)(off + maplen)) == 0;
    if (ok)
        p->next_off = off + maplen;
    pthread_mutex_unlock(&p->lock);
    return ok ? map_part(c, p, off, size, maplen, out) : CUDA_ERROR_OUT_OF_MEMORY;
}

/* The allocation is made at once (memory is ready before any later work
 * of the stream runs); only the free is stream-ordered. */
static CUresult alloc_async(CUdeviceptr *dptr, size_t size, struct emu_pool *p, CUstream h, int ptds)
{
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    if (p->dev != s->sctx->dev) {
        emu_stream_put(s);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (emu_capturing(s)) { /* an allocation node */
        r = emu_capture_alloc(s, size, dptr);
        emu_stream_put(s);
        return r;
    }
    uintptr_t out;
    if (p->imported)
        r = CUDA_ERROR_INVALID_VALUE; /* an imported pool gives no allocations of its own */
    else if (p->exportable)
        r = shared_alloc(s->sctx, size, p, &out);
    else
        r = emu_mem_alloc(s->sctx, size, EMU_MEM_DEVICE, 0, p, &out);
    emu_stream_put(s);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)out;
    return r;
}

static CUresult alloc_async_default(CUdeviceptr *dptr, size_t size, CUstream h, int ptds)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_device *d = c->dev;
    emu_ctx_put(c);
    pthread_mutex_lock(&d->mem_lock);
    struct emu_pool *p = d->cur_pool;
    emu_obj_ref(&p->o);
    pthread_mutex_unlock(&d->mem_lock);
    r = alloc_async(dptr, size, p, h, ptds);
    emu_obj_put(&p->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async_default(dptr, bytesize, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async_default(dptr, bytesize, hStream, 1);
}

static CUresult alloc_from_pool(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream h, int ptds)
{
    EMU_INIT_OR_RETURN();
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = alloc_async(dptr, size, p, h, ptds);
    emu_obj_put(&p->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                                   CUstream hStream)
{
    return alloc_from_pool(dptr, bytesize, pool, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                                        CUstream hStream)
{
    return alloc_from_pool(dptr, bytesize, pool, hStream, 1);
}

struct free_op {
    struct emu_op op;
    uintptr_t base;
};

static void run_free(struct emu_op *op)
{
    emu_mem_release(((struct free_op *)op)->base, EMU_MEM_KIND(EMU_MEM_DEVICE) | EMU_MEM_KIND(EMU_MEM_MANAGED));
}

static CUresult free_async(CUdeviceptr dptr, CUstream h, int ptds)
{
    EMU_INIT_OR_RETURN();
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    if (emu_capturing(s)) { /* a free node */
        r = emu_capture_free(s, dptr);
        emu_stream_put(s);
        return r;
    }
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)dptr);
    /* a graph's allocation is allocated in stream order: maybe not yet */
    if ((!a || a->base != (uintptr_t)dptr || a->kind != EMU_MEM_DEVICE) && !emu_gmem_is((uintptr_t)dptr)) {
        emu_alloc_put(a);
        emu_stream_put(s);
        return CUDA_ERROR_INVALID_VALUE;
    }
    emu_alloc_put(a);
    struct free_op *op = emu_op_new(sizeof *op, run_free, NULL);
    if (!op) {
        emu_stream_put(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->base = (uintptr_t)dptr;
    r = emu_stream_submit(s, &op->op, NULL);
    if (r == CUDA_SUCCESS)
        emu_gmem_note_free((uintptr_t)dptr); /* a graph's allocation may be allocated again */
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(dptr, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(dptr, hStream, 1);
}

/* ---- exportable pools ------------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                                            CUmemAllocationHandleType handleType,
                                                            unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    if (!handle_out || flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_pool *p = emu_obj_get(pool, EMU_T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    if (!p->exportable || p->imported || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        r = CUDA_ERROR_INVALID_VALUE; /* not made exportable, or not with that type */
    } else {
        int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else
            *(int *)handle_out = fd; /* the caller's to close */
    }
    emu_obj_put(&p->o);
    return r;
}

/* the nonce of an exportable pool's memfd at fd: 0, or -1 if fd is not one */
static int pool_fd_nonce(int fd, uint64_t *nonce)
{
    char path[64], link[128];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return -1;
    link[n] = '\0';
    unsigned long long v;
    char tail[32], name[64];
    if (sscanf(link, "/memfd:tdtrace-ipcp-%16llx%31s", &v, tail) < 1)
        return -1;
    emu_ipc_name(name, sizeof name, EMU_IPC_POOL, v);
    char want[96];
    snprintf(want, sizeof want, "/memfd:%s (deleted)", name);
    if (strcmp(link, want) != 0)
        return -1;
    *nonce = v;
    return 0;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                                              CUmemAllocationHandleType handleType,
                                                              unsigned long long flags)
{
    EMU_INIT_OR_RETURN();
    /* the device of the current context, else device 0 (the runtime asks
     * before it makes one current; the handle does not say) */
    struct emu_ctx *c;
    struct emu_device *d = emu_device(0);
    if (emu_ctx_query(&c) == CUDA_SUCCESS) {
        d = c->dev;
        emu_ctx_put(c);
    }
    if (!d)
        return CUDA_ERROR_NO_DEVICE;
    if (!pool_out || flags || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    intptr_t h = (intptr_t)handle;
    uint64_t nonce;
    if (h < 0 || h > 0x7fffffff || pool_fd_nonce((int)h, &nonce)) {
        emu_reportf("tdtrace-emu: cuMemPoolImportFromShareableHandle: descriptor %lld is not a pool's shareable handle "
            "(CUDA_ERROR_INVALID_VALUE)\n", (long long)h);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_pool *p = pool_new(d, 0);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->imported = 1;
    p->nonce = nonce;
    p->fd = fcntl((int)h, F_DUPFD_CLOEXEC, 0); /* the caller may close its own */
    if (p->fd < 0) {
        emu_obj_unregister(&p->o);
        emu_obj_put(&p->o);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pool_out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    EMU_INIT_OR_RETURN();
    if (!shareData_out)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)ptr);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    /* the start of an allocation of an exportable pool of this process */
    if (a && a->base == (uintptr_t)ptr && a->gone == map_gone && a->pool && a->pool->exportable) {
        const struct pool_map *m = a->gone_cookie;
        struct pool_ptr_wire w = { .magic = POOL_PTR_MAGIC, .nonce = a->pool->nonce, .off = m->off,
                                   .size = a->size, .maplen = m->maplen };
        memset(shareData_out, 0, sizeof *shareData_out);
        memcpy(shareData_out->reserved, &w, sizeof w);
        r = CUDA_SUCCESS;
    }
    emu_alloc_put(a);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                                  CUmemPoolPtrExportData *shareData)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_pool *p = ptr_out && shareData ? emu_obj_get(pool, EMU_T_POOL) : NULL;
    struct pool_ptr_wire w;
    if (shareData)
        memcpy(&w, shareData->reserved, sizeof w);
    struct stat st;
    if (!p || !p->imported || memcmp(w.magic, POOL_PTR_MAGIC, sizeof w.magic) != 0 || w.nonce != p->nonce ||
        w.zero[0] || w.zero[1] || w.zero[2] || w.size == 0 || w.size > w.maplen || w.maplen % 4096 ||
        w.off % 4096 || w.maplen > ((uint64_t)1 << 46) || w.off > ((uint64_t)1 << 50)) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (fstat(p->fd, &st) != 0 || (uint64_t)st.st_size < w.off + w.maplen) {
        emu_reportf("tdtrace-emu: cuMemPoolImportPointer: %llu bytes at offset %llu: not in the pool's memory "
            "(CUDA_ERROR_INVALID_VALUE)\n", (unsigned long long)w.maplen, (unsigned long long)w.off);
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        uintptr_t out;
        r = map_part(c, p, w.off, (size_t)w.size, (size_t)w.maplen, &out);
        if (r == CUDA_SUCCESS)
            *ptr_out = (CUdeviceptr)out;
    }
    if (p)
        emu_obj_put(&p->o);
    emu_ctx_put(c);
    return r;
}
