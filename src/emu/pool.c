/* SPDX-License-Identifier: Apache-2.0 */
/* Stream-ordered allocation and memory pools: each device's default pool
 * and the program's pools, their attributes and release thresholds,
 * cuMemAllocAsync/cuMemFreeAsync in stream order, pool exports. Built on the
 * allocations of memory.c, which counts what each pool holds. */
#include "emu.h"

#include <stdlib.h>
#include <string.h>


static void pool_release(struct emu_obj *o)
{
    struct emu_pool *p = (struct emu_pool *)o;
    if (p->is_default)
        return;
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
    if (poolProps->handleTypes != 0)
        return CUDA_ERROR_NOT_SUPPORTED; /* no IPC export here */
    struct emu_device *d = emu_device(poolProps->location.id);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_pool *p = pool_new(d, 0);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
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
