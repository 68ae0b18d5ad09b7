/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts: the permanent primary context of each device, created contexts,
 * each thread's stack of current contexts, a context's sticky error and
 * device printf output, and its teardown.
 *
 * Teardown. A context does not know the families whose objects it owns:
 * each joins at cuInit (emu_ctx_teardown_join) with the function that
 * drops its objects of a context, and context destroy and primary-context
 * reset call those by stage. So the families call into this file and this
 * file never calls into them. */
#include "emu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ullong next_ctx_id = 1;

/* The calling thread's context stack. Entries are validated through the
 * registry before use: a context destroyed elsewhere stays on the stack. */
static __thread struct emu_ctx *ctx_stack[EMU_MAX_CTX_STACK];
static __thread int ctx_depth;

/* The limits a context starts with. CU_LIMIT_SHMEM_SIZE is the device's
 * (set when the context is made); no context is a CIG (CUDA in Graphics)
 * context, so CU_LIMIT_CIG_ENABLED stays 0. */
static const size_t limit_defaults[EMU_NLIMITS] = {
    [CU_LIMIT_STACK_SIZE] = 1024,
    [CU_LIMIT_PRINTF_FIFO_SIZE] = 1048576,
    [CU_LIMIT_MALLOC_HEAP_SIZE] = 8388608,
    [CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
    [CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
    [CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
    [CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
    [CU_LIMIT_SHMEM_SIZE] = 0,
    [CU_LIMIT_CIG_ENABLED] = 0,
    [CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED] = 1,
};

/* every context (for the device output still buffered at exit) */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_ctx *all_ctx;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void flush_all(void);
static void exit_init(void) { atexit(flush_all); }

static void limits_reset(struct emu_ctx *c)
{
    memcpy(c->limits, limit_defaults, sizeof c->limits);
    c->cache_config = CU_FUNC_CACHE_PREFER_NONE;
    c->limits[CU_LIMIT_SHMEM_SIZE] =
        (size_t)emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0);
}

static void ctx_release(struct emu_obj *o)
{
    struct emu_ctx *c = (struct emu_ctx *)o;
    if (c->primary)
        return; /* permanent */
    pthread_mutex_lock(&all_lock);
    for (struct emu_ctx **pp = &all_ctx; *pp; pp = &(*pp)->anext)
        if (*pp == c) {
            *pp = c->anext;
            break;
        }
    pthread_mutex_unlock(&all_lock);
    free(c->out);
    pthread_mutex_destroy(&c->out_lock);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static struct emu_ctx *ctx_new(struct emu_device *dev, int primary)
{
    struct emu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    emu_obj_init(&c->o, EMU_T_CTX, NULL, ctx_release);
    c->dev = dev;
    c->primary = primary;
    c->id = atomic_fetch_add(&next_ctx_id, 1);
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->out_lock, NULL);
    limits_reset(c);
    pthread_once(&exit_once, exit_init);
    pthread_mutex_lock(&all_lock);
    c->anext = all_ctx;
    all_ctx = c;
    pthread_mutex_unlock(&all_lock);
    return c;
}

/* ---- sticky error, device output --------------------------------------- */

static void write_out(const char *buf, size_t len)
{
    if (!len)
        return;
    fflush(stdout);
    size_t off = 0;
    while (off < len) {
        ssize_t k = write(STDOUT_FILENO, buf + off, len - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (size_t)k;
    }
}

/* writes c's buffered device output */
static void flush_out(struct emu_ctx *c)
{
    pthread_mutex_lock(&c->out_lock);
    char *b = c->out;
    size_t n = c->out_len;
    c->out = NULL;
    c->out_len = c->out_cap = 0;
    pthread_mutex_unlock(&c->out_lock);
    write_out(b, n);
    free(b);
}

static void flush_all(void)
{
    pthread_mutex_lock(&all_lock);
    for (struct emu_ctx *c = all_ctx; c; c = c->anext)
        flush_out(c);
    pthread_mutex_unlock(&all_lock);
}

void emu_ctx_output(struct emu_ctx *c, const char *text, size_t len)
{
    pthread_mutex_lock(&c->out_lock);
    if (c->out_len + len > c->out_cap) {
        size_t nc = c->out_cap ? c->out_cap : 4096;
        while (nc < c->out_len + len)
            nc *= 2;
        char *nb = realloc(c->out, nc);
        if (nb) {
            c->out = nb;
            c->out_cap = nc;
        }
    }
    if (c->out_len + len <= c->out_cap) {
        memcpy(c->out + c->out_len, text, len);
        c->out_len += len;
    }
    pthread_mutex_unlock(&c->out_lock);
}

void emu_ctx_fail(struct emu_ctx *c, CUresult err)
{
    int none = CUDA_SUCCESS;
    if (err != CUDA_SUCCESS)
        atomic_compare_exchange_strong(&c->sticky, &none, (int)err);
}

CUresult emu_ctx_sticky(struct emu_ctx *c)
{
    return (CUresult)atomic_load(&c->sticky);
}

CUresult emu_ctx_error(struct emu_ctx *c)
{
    flush_out(c);
    return emu_ctx_sticky(c);
}

/* ---- teardown ---------------------------------------------------------- */

static void (*teardown[EMU_TEARDOWN__COUNT])(struct emu_ctx *c);

void emu_ctx_teardown_join(enum emu_teardown_stage stage, void (*drop)(struct emu_ctx *c))
{
    if ((unsigned)stage < EMU_TEARDOWN__COUNT)
        teardown[stage] = drop;
}

static void run_stage(struct emu_ctx *c, enum emu_teardown_stage stage)
{
    if (teardown[stage])
        teardown[stage](c);
}

CUresult emu_ctx_init_primary(struct emu_device *dev)
{
    struct emu_ctx *c = ctx_new(dev, 1);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_obj_register(&c->o);
    dev->primary = c;
    return CUDA_SUCCESS;
}

void emu_ctx_put(struct emu_ctx *c)
{
    if (c)
        emu_obj_put(&c->o);
}

static int ctx_active(struct emu_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    int a = c->active;
    pthread_mutex_unlock(&c->lock);
    return a;
}

/* h referenced, checked live and active */
static CUresult ctx_get(CUcontext h, struct emu_ctx **out, CUresult gone)
{
    struct emu_ctx *c = emu_obj_get(h, EMU_T_CTX);
    if (!c)
        return gone;
    if (!ctx_active(c)) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    *out = c;
    return CUDA_SUCCESS;
}

/* the current context; for work (usable), its sticky error fails the call */
static CUresult current(struct emu_ctx **out, int usable)
{
    EMU_INIT_OR_RETURN();
    if (ctx_depth == 0 || !ctx_stack[ctx_depth - 1])
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = ctx_get((CUcontext)ctx_stack[ctx_depth - 1], out, CUDA_ERROR_CONTEXT_IS_DESTROYED);
    if (r == CUDA_SUCCESS && usable && (r = emu_ctx_sticky(*out)) != CUDA_SUCCESS)
        emu_ctx_put(*out);
    return r;
}

CUresult emu_ctx_current(struct emu_ctx **out)
{
    return current(out, 1);
}

CUresult emu_ctx_query(struct emu_ctx **out)
{
    return current(out, 0);
}

/* for calls that read the current context's properties */
static CUresult query_ok(void)
{
    struct emu_ctx *c;
    CUresult r = current(&c, 0);
    if (r == CUDA_SUCCESS)
        emu_ctx_put(c);
    return r;
}

CUresult emu_ctx_require(void)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r == CUDA_SUCCESS)
        emu_ctx_put(c);
    return r;
}

CUresult emu_ctx_resolve(CUcontext h, struct emu_ctx **out)
{
    EMU_INIT_OR_RETURN();
    if (!h)
        return emu_ctx_query(out);
    return ctx_get(h, out, CUDA_ERROR_INVALID_CONTEXT);
}

/* Everything the context owns goes, stage by stage (the streams' stage
 * lets all work finish first); its device output is written, its sticky
 * error and limits are forgotten. */
static void ctx_teardown(struct emu_ctx *c)
{
    for (int st = 0; st < EMU_TEARDOWN__COUNT; st++)
        run_stage(c, (enum emu_teardown_stage)st);
    flush_out(c);
    atomic_store(&c->sticky, CUDA_SUCCESS);
    atomic_store(&c->peers, 0);
    pthread_mutex_lock(&c->lock);
    limits_reset(c);
    pthread_mutex_unlock(&c->lock);
}

static CUresult check_ctx_flags(unsigned flags)
{
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK)
        return CUDA_ERROR_INVALID_VALUE;
    switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_AUTO: case CU_CTX_SCHED_SPIN: case CU_CTX_SCHED_YIELD:
    case CU_CTX_SCHED_BLOCKING_SYNC:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* ---- the stack ------------------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    EMU_INIT_OR_RETURN();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = ctx_depth ? (CUcontext)ctx_stack[ctx_depth - 1] : NULL;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    EMU_INIT_OR_RETURN();
    if (!ctx) {
        if (ctx_depth)
            ctx_stack[--ctx_depth] = NULL;
        return CUDA_SUCCESS;
    }
    struct emu_ctx *c = emu_obj_get(ctx, EMU_T_CTX);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* an inactive primary context may be made current (the runtime does
     * that before retaining it) */
    if (ctx_depth == 0)
        ctx_depth = 1;
    ctx_stack[ctx_depth - 1] = c;
    emu_ctx_put(c);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    EMU_INIT_OR_RETURN();
    if (!ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct emu_ctx *c = emu_obj_get(ctx, EMU_T_CTX);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    emu_ctx_put(c);
    if (ctx_depth == EMU_MAX_CTX_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = c;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

TD_EXPORT CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    EMU_INIT_OR_RETURN();
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct emu_ctx *c = ctx_stack[--ctx_depth];
    ctx_stack[ctx_depth] = NULL;
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

/* ---- created contexts ------------------------------------------------ */

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (check_ctx_flags(flags))
        return CUDA_ERROR_INVALID_VALUE;
    if (ctx_depth == EMU_MAX_CTX_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct emu_ctx *c = ctx_new(d, 0);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->active = 1;
    c->flags = flags;
    emu_obj_register(&c->o);
    ctx_stack[ctx_depth++] = c;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

TD_EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

static CUresult check_affinity(const CUexecAffinityParam *p, int n, struct emu_device *d)
{
    if (n < 0 || (n > 0 && !p))
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < n; i++) {
        if (p[i].type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
            return CUDA_ERROR_INVALID_VALUE;
        if (d && p[i].param.smCount.val > (unsigned)emu_device_attr_or(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0))
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                          int numParams, unsigned int flags, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (check_affinity(paramsArray, numParams, emu_device(dev)))
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);
}

TD_EXPORT CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                          unsigned int flags, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (ctxCreateParams) {
        if (ctxCreateParams->cigParams)
            return CUDA_ERROR_NOT_SUPPORTED; /* no graphics interop here */
        if (check_affinity(ctxCreateParams->execAffinityParams,
                           ctxCreateParams->numExecAffinityParams, emu_device(dev)))
            return CUDA_ERROR_INVALID_VALUE;
    }
    return ctx_create(pctx, flags, dev);
}

TD_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    EMU_INIT_OR_RETURN();
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c = emu_obj_get(ctx, EMU_T_CTX);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (c->primary) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    run_stage(c, EMU_TEARDOWN_STORAGE); /* destructors while the context still works */
    if (!emu_obj_unregister(&c->o)) { /* another thread got there first */
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    ctx_teardown(c); /* storage again first: what was put meanwhile */
    pthread_mutex_lock(&c->lock);
    c->active = 0;
    pthread_mutex_unlock(&c->lock);
    if (ctx_depth && ctx_stack[ctx_depth - 1] == c)
        ctx_stack[--ctx_depth] = NULL;
    emu_ctx_put(c); /* ours */
    emu_ctx_put(c); /* the registry's */
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

/* ---- primary contexts ------------------------------------------------ */

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_ctx *c = d->primary;
    pthread_mutex_lock(&c->lock);
    if (!c->active) {
        c->active = 1;
        c->flags = c->primary_flags;
    }
    c->retains++;
    pthread_mutex_unlock(&c->lock);
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

/* Deactivates the primary context: its resources go */
static void primary_reset(struct emu_ctx *c)
{
    ctx_teardown(c); /* storage destructors first, while the context still works */
    pthread_mutex_lock(&c->lock);
    c->active = 0;
    c->retains = 0;
    pthread_mutex_unlock(&c->lock);
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct emu_ctx *c = d->primary;
    pthread_mutex_lock(&c->lock);
    if (c->retains == 0) {
        pthread_mutex_unlock(&c->lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    int last = --c->retains == 0;
    pthread_mutex_unlock(&c->lock);
    if (last)
        primary_reset(c);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    primary_reset(d->primary);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c = d->primary;
    pthread_mutex_lock(&c->lock);
    *flags = c->active ? c->flags : c->primary_flags;
    *active = c->active;
    pthread_mutex_unlock(&c->lock);
    return CUDA_SUCCESS;
}

static CUresult primary_set_flags(CUdevice dev, unsigned flags, int v2)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (check_ctx_flags(flags))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c = d->primary;
    pthread_mutex_lock(&c->lock);
    if (c->active && !v2) {
        pthread_mutex_unlock(&c->lock);
        return CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
    }
    c->primary_flags = flags;
    if (c->active)
        c->flags = flags;
    pthread_mutex_unlock(&c->lock);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return primary_set_flags(dev, flags, 0);
}

TD_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    return primary_set_flags(dev, flags, 1);
}

/* ---- queries --------------------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    if (device)
        *device = c->dev->ordinal;
    emu_ctx_put(c);
    return device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_resolve(ctx, &c);
    if (r)
        return r;
    if (device)
        *device = c->dev->ordinal;
    emu_ctx_put(c);
    return device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_resolve(ctx, &c);
    if (r)
        return r;
    emu_ctx_put(c);
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_resolve(ctx, &c);
    if (r)
        return r;
    if (ctxId)
        *ctxId = c->id;
    emu_ctx_put(c);
    return ctxId ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    if (flags) {
        pthread_mutex_lock(&c->lock);
        *flags = c->flags;
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return flags ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    r = check_ctx_flags(flags);
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&c->lock);
        c->flags = flags;
        if (c->primary)
            c->primary_flags = flags;
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return r;
}

/* Every CUlimit can be read. Setting one (cuCtxSetLimit's documentation):
 * CU_LIMIT_SHMEM_SIZE and CU_LIMIT_CIG_ENABLED are read-only;
 * CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH exists only below compute capability 9.0;
 * the L2 fetch granularity is 0 to 128 bytes, the persisting L2 size at
 * most the device's; the stack at most 1 MiB per thread. The others take
 * any value; launch.c sizes kernels' stacks with the stack limit, bounds
 * the device heap with the heap size and device-side launches with the
 * pending launch count; the printf FIFO size is only kept. */
static CUresult limit_check(const struct emu_ctx *c, int limit, size_t value)
{
    switch (limit) {
    case CU_LIMIT_STACK_SIZE:
        return value > (1u << 20) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
        if (emu_device_cc(c->dev) >= 90)
            return CUDA_ERROR_UNSUPPORTED_LIMIT;
        return value > 24 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        return value > 128 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        return value > (size_t)emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 0)
                   ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    case CU_LIMIT_SHMEM_SIZE:
    case CU_LIMIT_CIG_ENABLED:
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    case CU_LIMIT_PRINTF_FIFO_SIZE:
    case CU_LIMIT_MALLOC_HEAP_SIZE:
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
    case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
}

TD_EXPORT CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    if (!pvalue)
        r = CUDA_ERROR_INVALID_VALUE;
    else if ((unsigned)limit >= EMU_NLIMITS)
        r = CUDA_ERROR_UNSUPPORTED_LIMIT;
    else {
        pthread_mutex_lock(&c->lock);
        *pvalue = c->limits[limit];
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    r = limit_check(c, (int)limit, value);
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&c->lock);
        c->limits[limit] = value;
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    CUresult r = query_ok();
    if (r)
        return r;
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

/* The cache preference is kept and reported back; the emulated device has
 * no L1 to split, so it changes nothing else. */
TD_EXPORT CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    if (pconfig) {
        pthread_mutex_lock(&c->lock);
        *pconfig = (CUfunc_cache)c->cache_config;
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return pconfig ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        pthread_mutex_lock(&c->lock);
        c->cache_config = (int)config;
        pthread_mutex_unlock(&c->lock);
    }
    emu_ctx_put(c);
    return r;
}

/* Shared memory banks are four bytes wide and fixed on every device since
 * compute capability 5.0: the setting is checked and "does nothing", as
 * documented for such devices. */
TD_EXPORT CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    CUresult r = query_ok();
    if (r)
        return r;
    if (!pConfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    CUresult r = query_ok();
    if (r)
        return r;
    return (unsigned)config <= CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
