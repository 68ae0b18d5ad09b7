/* SPDX-License-Identifier: Apache-2.0 */
/* Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp (the v1 entry points and the _v2 ones, which add
 * the memory barrier), each an operation on the stream's worker, in order
 * with the stream's other work; on a capturing stream, a batch memory
 * operation node. The one home of their checks and of how they run: the
 * graph's batch memory operation nodes (graphnode.c, graphexec.c) use
 * emu_memop_check and emu_memop_make too.
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
 * page-locked or registered host memory, a module's variables; in a graph,
 * also memory a graph allocation node provides, checked again when the
 * operation runs), aligned to the operation's width; managed memory is
 * refused, as documented. Remote
 * write flushes (CU_STREAM_WAIT_VALUE_FLUSH, CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES)
 * need platform hardware the device does not report
 * (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES is 0): CUDA_ERROR_NOT_SUPPORTED. */
#include "emu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BATCH 256   /* "count must be less than 256" */

static unsigned barrier_word;

struct memop {
    int kind;                   /* CUstreamBatchMemOpType */
    int wide;                   /* 64-bit */
    unsigned flags;
    uint64_t value;
    void *addr;
    struct emu_alloc *a;        /* referenced: the memory stays while queued; or */
    struct gmem *g;             /* the graph allocation whose range holds it */
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

/* graph memory must have been allocated by the time the operation runs */
static int graph_mem_there(const struct memop_op *o, const struct memop *m)
{
    struct emu_alloc *a;
    if (!m->g)
        return 1;
    if (emu_mem_find((uintptr_t)m->addr, m->wide ? 8 : 4, &a) == CUDA_SUCCESS) {
        emu_alloc_put(a);
        return 1;
    }
    static const char msg[] = "tdtrace-emu: a stream memory operation on graph memory that is not "
                              "allocated (CUDA_ERROR_ILLEGAL_ADDRESS)\n";
    emu_report(msg, sizeof msg - 1);
    emu_ctx_fail(o->ctx, CUDA_ERROR_ILLEGAL_ADDRESS);
    return 0;
}

static void memop_run(struct emu_op *op)
{
    struct memop_op *o = (struct memop_op *)op;
    op->tl_kind = EMU_TL_MEMOP;
    for (int i = 0; i < o->n && !emu_ctx_sticky(o->ctx); i++) {
        const struct memop *m = &o->m[i];
        if (!graph_mem_there(o, m))
            return;
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
    for (int i = 0; i < o->n; i++) {
        if (o->m[i].a)
            emu_alloc_put(o->m[i].a);
        emu_gmem_put(o->m[i].g);
    }
    emu_ctx_put(o->ctx);
}

/* one operation's kind, address, value and flags, from its parameters */
static void unpack(const CUstreamBatchMemOpParams *p, int *kind, CUdeviceptr *addr, uint64_t *value, unsigned *flags)
{
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

/* one operation checked and filled in (its memory referenced) */
static CUresult check(struct emu_device *d, const CUstreamBatchMemOpParams *p, int v2, int graph, struct memop *m)
{
    int kind;
    CUdeviceptr addr;
    unpack(p, &kind, &addr, &m->value, &m->flags);
    unsigned flags = m->flags;
    m->kind = kind;
    m->wide = kind == CU_STREAM_MEM_OP_WAIT_VALUE_64 || kind == CU_STREAM_MEM_OP_WRITE_VALUE_64;
    m->a = NULL;
    m->g = NULL;
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
    m->addr = (void *)(uintptr_t)addr;
    struct emu_alloc *a;
    if (emu_mem_find((uintptr_t)addr, width, &a) == CUDA_SUCCESS) {
        if (a->kind == EMU_MEM_MANAGED) {
            emu_alloc_put(a);
            return CUDA_ERROR_INVALID_VALUE;
        }
        m->a = a;
        return CUDA_SUCCESS;
    }
    /* in a graph, memory a graph allocation node provides when it runs */
    return graph && (m->g = emu_gmem_covering((uintptr_t)addr, width)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult emu_memop_check(struct emu_device *d, const CUstreamBatchMemOpParams *ops, unsigned n, int v2, int graph)
{
    if (!n || n >= MAX_BATCH || !ops)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < n && !r; i++) {
        struct memop m;
        r = check(d, &ops[i], v2, graph, &m);
        if (m.a)
            emu_alloc_put(m.a);
        emu_gmem_put(m.g);
    }
    return r;
}

CUresult emu_memop_make(struct emu_ctx *ctx, const CUstreamBatchMemOpParams *ops, unsigned n, int v2, int graph,
                        struct emu_op **out)
{
    if (!n || n >= MAX_BATCH || !ops)
        return CUDA_ERROR_INVALID_VALUE;
    struct memop_op *o = emu_op_new(sizeof *o + (size_t)n * sizeof o->m[0], memop_run, memop_fini);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_obj_ref(&ctx->o);
    o->ctx = ctx;
    o->op.device_work = 1;
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < n && !r; i++) {
        r = check(ctx->dev, &ops[i], v2, graph, &o->m[i]);
        o->n = (int)i + 1; /* what check referenced is dropped by memop_fini */
    }
    if (r) {
        memop_fini(&o->op);
        free(o);
        return r;
    }
    *out = &o->op;
    return CUDA_SUCCESS;
}

/* Queues the n operations on stream h as one, or on a capturing stream
 * adds them to its graph as a batch memory operation node. */
static CUresult submit(CUstream h, int ptds, int v2, unsigned n, const CUstreamBatchMemOpParams *ops)
{
    EMU_INIT_OR_RETURN();
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    struct emu_op *op;
    if (emu_capturing(s)) {
        r = emu_memop_check(s->sctx->dev, ops, n, v2, 1);
        if (!r)
            r = emu_capture_memop(s, ops, n);
    } else if (!(r = emu_memop_make(s->sctx, ops, n, v2, 0, &op))) {
        r = emu_stream_submit(s, op, NULL);
    }
    emu_stream_put(s);
    return r;
}

static CUresult one(CUstream h, int ptds, int kind, CUdeviceptr addr, uint64_t value, unsigned flags)
{
    CUstreamBatchMemOpParams p;
    memset(&p, 0, sizeof p);
    p.operation = (CUstreamBatchMemOpType)kind;
    if (kind == CU_STREAM_MEM_OP_WAIT_VALUE_32 || kind == CU_STREAM_MEM_OP_WAIT_VALUE_64) {
        p.waitValue.address = addr;
        p.waitValue.flags = flags;
        if (kind == CU_STREAM_MEM_OP_WAIT_VALUE_64)
            p.waitValue.value64 = value;
        else
            p.waitValue.value = (cuuint32_t)value;
    } else {
        p.writeValue.address = addr;
        p.writeValue.flags = flags;
        if (kind == CU_STREAM_MEM_OP_WRITE_VALUE_64)
            p.writeValue.value64 = value;
        else
            p.writeValue.value = (cuuint32_t)value;
    }
    return submit(h, ptds, 1, 1, &p);
}

static CUresult batch(CUstream h, int ptds, int v2, unsigned count, CUstreamBatchMemOpParams *params, unsigned flags)
{
    if (!count || count >= MAX_BATCH || !params || flags)
        return CUDA_ERROR_INVALID_VALUE;
    return submit(h, ptds, v2, count, params);
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
