/* SPDX-License-Identifier: Apache-2.0 */
/* Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp (the v1 entry points and the _v2 ones, which add
 * the memory barrier), each an operation on the stream's worker, in order
 * with the stream's other work.
 *
 * A write stores the value atomically (a full barrier first unless
 * CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER); a wait polls the location with
 * atomic loads until its condition holds, spinning briefly and then
 * sleeping up to a millisecond between looks, so a wait on a value another
 * stream or the host writes later costs no core. As on a GPU, a wait whose
 * condition never comes true blocks its stream (and whatever synchronises
 * with it) for good; a fault of a kernel of the context ends it.
 *
 * The location must lie in memory the device can address (device memory,
 * page-locked or registered host memory, a module's variables), aligned to
 * the operation's width; managed memory is refused, as documented. Remote
 * write flushes (CU_STREAM_WAIT_VALUE_FLUSH, CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES)
 * need platform hardware the device does not report
 * (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0): CUDA_ERROR_NOT_SUPPORTED. */
#include "emu.h"

#include <stdlib.h>
#include <time.h>

#define MAX_BATCH 256   /* "count must be less than 256" */

static unsigned barrier_word;

struct memop {
    int kind;                   /* CUstreamBatchMemOpType */
    int wide;                   /* 64-bit */
    unsigned flags;
    uint64_t value;
    void *addr;
    struct emu_alloc *a;        /* referenced: the memory stays while queued */
};

struct memop_op {
    struct emu_op op;
    struct emu_ctx *ctx;        /* referenced */
    int n;
    struct memop m[];
};

static int cond_holds(const struct memop *m)
{
    uint64_t cur = m->wide ? __atomic_load_n((uint64_t *)m->addr, __ATOMIC_ACQUIRE)
                           : __atomic_load_n((uint32_t *)m->addr, __ATOMIC_ACQUIRE);
    uint64_t v = m->value;
    switch (m->flags & 3u) {
    case CU_STREAM_WAIT_VALUE_GEQ:
        return m->wide ? (int64_t)(cur - v) >= 0 : (int32_t)(uint32_t)(cur - v) >= 0;
    case CU_STREAM_WAIT_VALUE_EQ:
        return cur == v;
    case CU_STREAM_WAIT_VALUE_AND:
        return (cur & v) != 0;
    default: /* CU_STREAM_WAIT_VALUE_NOR */
        return m->wide ? ~(cur | v) != 0 : (uint32_t)~(cur | v) != 0;
    }
}

static void wait_for(struct memop_op *o, const struct memop *m)
{
    long ns = 0;
    for (int spins = 0; !cond_holds(m); spins++) {
        if (emu_ctx_sticky(o->ctx))
            return; /* the context faulted: the device stops */
        if (spins < 1000)
            continue;
        ns = ns ? (ns < 1000000 ? ns * 2 : ns) : 1000;
        struct timespec ts = { 0, ns };
        nanosleep(&ts, NULL);
    }
}

static void memop_run(struct emu_op *op)
{
    struct memop_op *o = (struct memop_op *)op;
    for (int i = 0; i < o->n && !emu_ctx_sticky(o->ctx); i++) {
        const struct memop *m = &o->m[i];
        switch (m->kind) {
        case CU_STREAM_MEM_OP_WAIT_VALUE_32:
        case CU_STREAM_MEM_OP_WAIT_VALUE_64:
            wait_for(o, m);
            break;
        case CU_STREAM_MEM_OP_WRITE_VALUE_32:
        case CU_STREAM_MEM_OP_WRITE_VALUE_64: {
            /* ordered after everything before it, unless told otherwise */
            int order = m->flags & CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER ? __ATOMIC_RELAXED : __ATOMIC_SEQ_CST;
            if (m->wide)
                __atomic_store_n((uint64_t *)m->addr, m->value, order);
            else
                __atomic_store_n((uint32_t *)m->addr, (uint32_t)m->value, order);
            break;
        }
        default: /* CU_STREAM_MEM_OP_BARRIER: a full barrier (an atomic
                  * read-modify-write; fences are lost on ThreadSanitizer) */
            __atomic_fetch_add(&barrier_word, 0, __ATOMIC_SEQ_CST);
            break;
        }
    }
}

static void memop_fini(struct emu_op *op)
{
    struct memop_op *o = (struct memop_op *)op;
    for (int i = 0; i < o->n; i++)
        if (o->m[i].a)
            emu_alloc_put(o->m[i].a);
    emu_ctx_put(o->ctx);
}

/* one operation checked and filled in (the allocation referenced) */
static CUresult memop_check(struct emu_device *d, int kind, CUdeviceptr addr, uint64_t value, unsigned flags,
                            int v2, struct memop *m)
{
    m->kind = kind;
    m->wide = kind == CU_STREAM_MEM_OP_WAIT_VALUE_64 || kind == CU_STREAM_MEM_OP_WRITE_VALUE_64;
    m->flags = flags;
    m->value = value;
    m->a = NULL;
    switch (kind) {
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
        if (flags & ~(3u | (unsigned)CU_STREAM_WAIT_VALUE_FLUSH))
            return CUDA_ERROR_INVALID_VALUE;
        if (flags & CU_STREAM_WAIT_VALUE_FLUSH &&
            !emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, 0))
            return CUDA_ERROR_NOT_SUPPORTED;
        break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
        if (flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER)
            return CUDA_ERROR_INVALID_VALUE;
        break;
    case CU_STREAM_MEM_OP_BARRIER:
        return v2 && flags <= CU_STREAM_MEMORY_BARRIER_TYPE_GPU ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
        if (flags)
            return CUDA_ERROR_INVALID_VALUE;
        return emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, 0) ? CUDA_SUCCESS
                                                                                        : CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    unsigned width = m->wide ? 8 : 4;
    if (!addr || addr % width)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    if (emu_mem_find((uintptr_t)addr, width, &a))
        return CUDA_ERROR_INVALID_VALUE;
    if (a->kind == EMU_MEM_MANAGED) {
        emu_alloc_put(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    m->a = a;
    m->addr = (void *)(uintptr_t)addr;
    return CUDA_SUCCESS;
}

/* Queues n operations (given by get(i, ...)) on the stream as one. */
typedef void (*memop_get)(const void *arg, int i, int *kind, CUdeviceptr *addr, uint64_t *value, unsigned *flags);

static CUresult submit(CUstream h, int ptds, int v2, int n, memop_get get, const void *arg)
{
    EMU_INIT_OR_RETURN();
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    struct memop_op *o = emu_op_new(sizeof *o + (size_t)n * sizeof o->m[0], memop_run, memop_fini);
    if (!o) {
        emu_stream_put(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    emu_obj_ref(&s->sctx->o);
    o->ctx = s->sctx;
    o->op.device_work = 1;
    for (int i = 0; i < n && !r; i++) {
        int kind;
        CUdeviceptr addr;
        uint64_t value;
        unsigned flags;
        get(arg, i, &kind, &addr, &value, &flags);
        r = memop_check(s->sctx->dev, kind, addr, value, flags, v2, &o->m[i]);
        if (!r)
            o->n = i + 1;
    }
    if (r) {
        memop_fini(&o->op);
        free(o);
    } else {
        r = emu_stream_submit(s, &o->op, NULL);
    }
    emu_stream_put(s);
    return r;
}

struct single { int kind; CUdeviceptr addr; uint64_t value; unsigned flags; };

static void get_single(const void *arg, int i, int *kind, CUdeviceptr *addr, uint64_t *value, unsigned *flags)
{
    const struct single *x = arg;
    (void)i;
    *kind = x->kind;
    *addr = x->addr;
    *value = x->value;
    *flags = x->flags;
}

static CUresult one(CUstream h, int ptds, int kind, CUdeviceptr addr, uint64_t value, unsigned flags)
{
    struct single x = { kind, addr, value, flags };
    return submit(h, ptds, 1, 1, get_single, &x);
}

static void get_batch(const void *arg, int i, int *kind, CUdeviceptr *addr, uint64_t *value, unsigned *flags)
{
    const CUstreamBatchMemOpParams *p = &((const CUstreamBatchMemOpParams *)arg)[i];
    *kind = (int)p->operation;
    *addr = 0;
    *value = 0;
    *flags = 0;
    switch ((int)p->operation) {
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
        *addr = p->waitValue.address;
        *value = p->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64 ? p->waitValue.value64 : p->waitValue.value;
        *flags = p->waitValue.flags;
        break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
        *addr = p->writeValue.address;
        *value = p->operation == CU_STREAM_MEM_OP_WRITE_VALUE_64 ? p->writeValue.value64 : p->writeValue.value;
        *flags = p->writeValue.flags;
        break;
    default: /* barrier, flush: their flags are in the same place */
        *flags = p->memoryBarrier.flags;
        break;
    }
}

static CUresult batch(CUstream h, int ptds, int v2, unsigned count, CUstreamBatchMemOpParams *params, unsigned flags)
{
    if (!count || count >= MAX_BATCH || !params || flags)
        return CUDA_ERROR_INVALID_VALUE;
    return submit(h, ptds, v2, (int)count, get_batch, params);
}

#define W32 CU_STREAM_MEM_OP_WAIT_VALUE_32
#define W64 CU_STREAM_MEM_OP_WAIT_VALUE_64
#define S32 CU_STREAM_MEM_OP_WRITE_VALUE_32
#define S64 CU_STREAM_MEM_OP_WRITE_VALUE_64

/* the v1 and v2 entry points share the semantics; the barrier is v2's */
#define ENTRY(name, ptds, kind, vtype)                                                                  \
    TD_EXPORT CUresult CUDAAPI name(CUstream stream, CUdeviceptr addr, vtype value, unsigned int flags) \
    {                                                                                                   \
        return one(stream, ptds, kind, addr, value, flags);                                             \
    }
ENTRY(cuStreamWaitValue32, 0, W32, cuuint32_t)
ENTRY(cuStreamWaitValue32_ptsz, 1, W32, cuuint32_t)
ENTRY(cuStreamWaitValue32_v2, 0, W32, cuuint32_t)
ENTRY(cuStreamWaitValue32_v2_ptsz, 1, W32, cuuint32_t)
ENTRY(cuStreamWaitValue64, 0, W64, cuuint64_t)
ENTRY(cuStreamWaitValue64_ptsz, 1, W64, cuuint64_t)
ENTRY(cuStreamWaitValue64_v2, 0, W64, cuuint64_t)
ENTRY(cuStreamWaitValue64_v2_ptsz, 1, W64, cuuint64_t)
ENTRY(cuStreamWriteValue32, 0, S32, cuuint32_t)
ENTRY(cuStreamWriteValue32_ptsz, 1, S32, cuuint32_t)
ENTRY(cuStreamWriteValue32_v2, 0, S32, cuuint32_t)
ENTRY(cuStreamWriteValue32_v2_ptsz, 1, S32, cuuint32_t)
ENTRY(cuStreamWriteValue64, 0, S64, cuuint64_t)
ENTRY(cuStreamWriteValue64_ptsz, 1, S64, cuuint64_t)
ENTRY(cuStreamWriteValue64_v2, 0, S64, cuuint64_t)
ENTRY(cuStreamWriteValue64_v2_ptsz, 1, S64, cuuint64_t)

TD_EXPORT CUresult CUDAAPI cuStreamBatchMemOp(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray,
                                              unsigned int flags)
{
    return batch(stream, 0, 0, count, paramArray, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamBatchMemOp_ptsz(CUstream stream, unsigned int count,
                                                   CUstreamBatchMemOpParams *paramArray, unsigned int flags)
{
    return batch(stream, 1, 0, count, paramArray, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamBatchMemOp_v2(CUstream stream, unsigned int count,
                                                 CUstreamBatchMemOpParams *paramArray, unsigned int flags)
{
    return batch(stream, 0, 1, count, paramArray, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamBatchMemOp_v2_ptsz(CUstream stream, unsigned int count,
                                                      CUstreamBatchMemOpParams *paramArray, unsigned int flags)
{
    return batch(stream, 1, 1, count, paramArray, flags);
}
