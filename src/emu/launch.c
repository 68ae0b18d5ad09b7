/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel launches on the emulated GPU: the bridge between the driver
 * objects (modules, libraries, streams, contexts) and the PTX engine
 * (src/ptx). A module's PTX is parsed once when it is loaded; a launch
 * packs the parameter buffer, then queues an operation that runs the
 * kernel on the stream's worker, in order with the stream's other work.
 *
 * Errors in a kernel (trap, assert, bad address) are sticky: the context
 * keeps them (context.c) and answers them from every later synchronisation
 * and launch. Device printf output goes to the context's buffer, written
 * to stdout at synchronisation (and at the next launch), as the real
 * driver does. */
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ptx/ptx.h"
#include "fatbin.h"
#include "xlat.h"

struct emu_ptxmod {
    struct ptx_module *pm;      /* NULL: the image has no PTX to run */
    atomic_int refs;
};

CUresult emu_ptx_load(const struct emu_image *img, struct emu_ptxmod **out, char *err, size_t errlen)
{
    struct emu_ptxmod *px = calloc(1, sizeof *px);
    if (!px)
        return CUDA_ERROR_OUT_OF_MEMORY;
    atomic_init(&px->refs, 1);
    if (img->chosen >= 0) {
        char why[256];
        px->pm = ptx_parse(img->ptx[img->chosen], img->ptx_len[img->chosen], why, sizeof why);
        if (!px->pm) {
            free(px);
            if (strcmp(why, "out of memory") == 0)
                return CUDA_ERROR_OUT_OF_MEMORY;
            snprintf(err, errlen, "invalid PTX: %s", why);
            return CUDA_ERROR_INVALID_PTX;
        }
    }
    *out = px;
    return CUDA_SUCCESS;
}

unsigned emu_ptx_static_shared(const struct emu_ptxmod *px, const char *name)
{
    if (!px || !px->pm)
        return 0;
    int e = ptx_entry_find(px->pm, name);
    return e < 0 ? 0 : ptx_entry_shared_bytes(px->pm, e);
}

int emu_ptx_cluster(const struct emu_ptxmod *px, const char *name, unsigned dims[3])
{
    dims[0] = dims[1] = dims[2] = 0;
    if (!px || !px->pm)
        return 0;
    int e = ptx_entry_find(px->pm, name);
    return e < 0 ? 0 : ptx_entry_cluster(px->pm, e, dims);
}

void emu_ptx_ref(struct emu_ptxmod *px)
{
    if (px)
        atomic_fetch_add(&px->refs, 1);
}

void emu_ptx_put(struct emu_ptxmod *px)
{
    if (px && atomic_fetch_sub(&px->refs, 1) == 1) {
        ptx_module_free(px->pm);
        free(px);
    }
}

/* ---- globals ------------------------------------------------------------ */
struct emu_ptxglob {
    int n;
    uint64_t *gaddr;            /* by PTX global: its address */
    uintptr_t *own;             /* allocated here (not in the image's list) */
};

CUresult emu_ptx_bind(struct emu_ptxmod *px, const struct emu_image *img, const uintptr_t *img_globals,
                      const unsigned char *shared, struct emu_ctx *c, struct emu_ptxglob **out)
{
    *out = NULL;
    if (!px || !px->pm)
        return CUDA_SUCCESS;
    int n = ptx_global_count(px->pm);
    struct emu_ptxglob *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->n = n;
    g->gaddr = calloc((size_t)n + 1, sizeof *g->gaddr);
    g->own = calloc((size_t)n + 1, sizeof *g->own);
    if (!g->gaddr || !g->own) {
        free(g->gaddr);
        free(g->own);
        free(g);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = CUDA_SUCCESS;
    unsigned char *skip = calloc((size_t)n + 1, 1);
    if (!skip)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < n && !r; i++) {
        const struct ptx_global_info *pg = ptx_global(px->pm, i);
        uintptr_t a = 0;
        for (int k = 0; k < img->nglobals; k++)
            if (strcmp(img->globals[k].name, pg->name) == 0 && img->globals[k].size >= pg->size) {
                a = img_globals[k];
                skip[i] = shared && shared[k];
                break;
            }
        if (!a) {
            r = emu_mem_alloc(c, pg->size ? (size_t)pg->size : 1, EMU_MEM_GLOBAL, 0, NULL, &a);
            if (r)
                break;
            memset((void *)a, 0, pg->size ? (size_t)pg->size : 1);
            g->own[i] = a;
        }
        g->gaddr[i] = a;
    }
    for (int i = 0; i < n && !r; i++) /* initialisers may hold others' addresses */
        if (!skip[i])
            ptx_global_init(px->pm, i, g->gaddr, (unsigned char *)g->gaddr[i]);
    free(skip);
    if (r) {
        emu_ptx_unbind(g);
        return r;
    }
    *out = g;
    return CUDA_SUCCESS;
}

void emu_ptx_init_shared(struct emu_ptxmod *px, const struct emu_image *img, const uintptr_t *addr)
{
    if (!px || !px->pm)
        return;
    int n = ptx_global_count(px->pm);
    uintptr_t *ga = calloc((size_t)n + 1, sizeof *ga);
    if (!ga)
        return;
    for (int i = 0; i < n; i++) {
        const struct ptx_global_info *pg = ptx_global(px->pm, i);
        for (int k = 0; k < img->nglobals; k++)
            if (addr[k] && strcmp(img->globals[k].name, pg->name) == 0 && img->globals[k].size >= pg->size) {
                ga[i] = addr[k];
                break;
            }
    }
    for (int i = 0; i < n; i++)
        if (ga[i])
            ptx_global_init(px->pm, i, ga, (unsigned char *)ga[i]);
    free(ga);
}

void emu_ptx_unbind(struct emu_ptxglob *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++)
        if (g->own[i])
            emu_mem_release(g->own[i], 1u << EMU_MEM_GLOBAL);
    free(g->own);
    free(g->gaddr);
    free(g);
}

/* ---- the launch operation ------------------------------------------------- */
struct launch_op {
    struct emu_op op;
    struct emu_ctx *ctx;                /* referenced */
    struct emu_ptxmod *px;              /* referenced */
    struct emu_obj *holder;             /* the module (keeps gaddr alive), referenced */
    uint64_t *gaddr;
    int entry;
    char name[128];
    struct ptx_launch l;
    unsigned char *params;
    pthread_mutex_t plock;              /* printf output */
    char *out;
    size_t len, cap;
};

/* the allocation a kernel's access lands in, if its device reaches it */
static int host_lookup(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    struct launch_op *k = cookie;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)addr);
    if (!a)
        return -1;
    if (!emu_peer_reaches(k->ctx, a)) {
        emu_alloc_put(a);
        return -1;
    }
    *lo = a->base;
    *hi = a->base + a->size;
    emu_alloc_put(a);
    return 0;
}

static void host_print(void *cookie, const char *text, size_t len)
{
    struct launch_op *k = cookie;
    pthread_mutex_lock(&k->plock);
    if (k->len + len > k->cap && k->len + len < (64u << 20)) {
        size_t nc = k->cap ? k->cap : 4096;
        while (nc < k->len + len)
            nc *= 2;
        char *nb = realloc(k->out, nc);
        if (nb) {
            k->out = nb;
            k->cap = nc;
        }
    }
    if (k->len + len <= k->cap) {
        memcpy(k->out + k->len, text, len);
        k->len += len;
    }
    pthread_mutex_unlock(&k->plock);
}

/* The device heap (kernels' malloc, device-side cudaMalloc, the device
 * runtime's parameter buffers): device memory of the launch's context, at
 * most CU_LIMIT_MALLOC_HEAP_SIZE bytes outstanding. Each allocation's
 * record gives its bytes back when it leaves the address map, however it
 * goes (free, the context's teardown or reset). */
struct heap_rec {
    struct emu_ctx *ctx;                /* referenced by the allocation */
    size_t size;
    int back;                           /* given back */
};

static void heap_gone(void *cookie, int final)
{
    struct heap_rec *h = cookie;
    if (!h->back) {
        atomic_fetch_sub(&h->ctx->heap_used, h->size);
        h->back = 1;
    }
    if (final)
        free(h);
}

static uint64_t host_heap_alloc(void *cookie, uint64_t size)
{
    struct launch_op *k = cookie;
    uintptr_t a = 0;
    if (!size || size > ((uint64_t)1 << 40))
        return 0;
    struct heap_rec *h = malloc(sizeof *h);
    if (!h)
        return 0;
    pthread_mutex_lock(&k->ctx->lock);
    size_t limit = k->ctx->limits[CU_LIMIT_MALLOC_HEAP_SIZE];
    pthread_mutex_unlock(&k->ctx->lock);
    size_t was = atomic_fetch_add(&k->ctx->heap_used, (size_t)size);
    struct emu_alloc *al = NULL;
    if (was + size > limit || was + size < was || emu_mem_alloc(k->ctx, (size_t)size, EMU_MEM_GLOBAL, 0, NULL, &a) ||
        !(al = emu_mem_lookup(a)) || al->base != a) {
        if (al)
            emu_alloc_put(al);
        if (a)
            emu_mem_release(a, 1u << EMU_MEM_GLOBAL);
        atomic_fetch_sub(&k->ctx->heap_used, (size_t)size);
        free(h);
        return 0;
    }
    *h = (struct heap_rec){ k->ctx, (size_t)size, 0 };
    al->gone_cookie = h; /* the address is nobody's but this call's yet */
    al->gone = heap_gone;
    emu_alloc_put(al);
    return a;
}

static void host_heap_free(void *cookie, uint64_t addr)
{
    (void)cookie;
    emu_mem_release((uintptr_t)addr, 1u << EMU_MEM_GLOBAL);
}

/* ---- the device runtime's questions (dynamic parallelism) ---------------- */
static int host_dev_attr(void *cookie, int attr, int dev, int *value)
{
    (void)cookie;
    struct emu_device *d = dev >= 0 ? emu_device(dev) : NULL;
    if (!d)
        return 101; /* cudaErrorInvalidDevice */
    return emu_device_attr(d, attr, value) ? 1 : 0; /* cudaErrorInvalidValue: cudaDeviceAttr numbers CUdevice_attribute's */
}

static int host_dev_limit(void *cookie, int limit, uint64_t *value)
{
    struct launch_op *k = cookie;
    if (limit < 0 || limit >= EMU_NLIMITS)
        return 215; /* cudaErrorUnsupportedLimit; cudaLimit numbers CUlimit's */
    pthread_mutex_lock(&k->ctx->lock);
    *value = k->ctx->limits[limit];
    pthread_mutex_unlock(&k->ctx->lock);
    return 0;
}

static const char *host_error_text(void *cookie, int code, int name)
{
    (void)cookie;
    const char *t = name ? NULL : td_xlat_text(TD_X_cudaError_t, (unsigned long long)(unsigned)code);
    return t ? t : td_xlat_name(TD_X_cudaError_t, (unsigned long long)(unsigned)code);
}

static void fault_of(enum ptx_status st, struct emu_fault *f);

/* a child grid ran: a kernel of the trace, on the launch's stream */
static void host_child_ran(void *cookie, const char *kernel, const unsigned grid[3], const unsigned block[3],
                           unsigned dyn_shared, unsigned depth, uint64_t t0, uint64_t t1, int status)
{
    struct launch_op *k = cookie;
    (void)depth;
    if (!emu_listening())
        return;
    struct emu_fault r = { 0 };
    if (status != PTX_OK)
        fault_of((enum ptx_status)status, &r);
    emu_report_kernel(kernel, grid, block, dyn_shared, t0, t1, (int)r.result, &k->op, 1, NULL);
}

static void host_note(void *cookie, const char *text, size_t len)
{
    struct launch_op *k = cookie;
    emu_reportf("tdtrace-emu: kernel %s: %.*s", k->name, (int)(len > 400 ? 400 : len), text);
}

/* what a failed run returns to the program, and the report's heading */
static void fault_of(enum ptx_status st, struct emu_fault *f)
{
    switch (st) {
    case PTX_E_ASSERT: f->status = EMU_FAULT_ASSERT; f->result = CUDA_ERROR_ASSERT; break;
    case PTX_E_ADDRESS: f->status = EMU_FAULT_ADDRESS; f->result = CUDA_ERROR_ILLEGAL_ADDRESS; break;
    case PTX_E_MISALIGNED: f->status = EMU_FAULT_MISALIGNED; f->result = CUDA_ERROR_MISALIGNED_ADDRESS; break;
    case PTX_E_NOMEM: f->status = EMU_FAULT_NOMEM; f->result = CUDA_ERROR_OUT_OF_MEMORY; break;
    case PTX_E_STACK: f->status = EMU_FAULT_STACK; f->result = CUDA_ERROR_HARDWARE_STACK_ERROR; break;
    case PTX_E_TRAP: f->status = EMU_FAULT_TRAP; f->result = CUDA_ERROR_LAUNCH_FAILED; break;
    case PTX_E_UNSUPPORTED: f->status = EMU_FAULT_UNSUPPORTED; f->result = CUDA_ERROR_LAUNCH_FAILED; break;
    case PTX_E_DEADLOCK: f->status = EMU_FAULT_DEADLOCK; f->result = CUDA_ERROR_LAUNCH_FAILED; break;
    case PTX_E_SYNC: f->status = EMU_FAULT_SYNC; f->result = CUDA_ERROR_ILLEGAL_INSTRUCTION; break;
    case PTX_E_TIMEOUT: f->status = EMU_FAULT_TIMEOUT; f->result = CUDA_ERROR_LAUNCH_TIMEOUT; break;
    case PTX_OK:
    default: f->status = EMU_FAULT_OTHER; f->result = CUDA_ERROR_LAUNCH_FAILED; break;
    }
}

/* which engine ran: said once per kernel, when the JIT decided (the
 * fallbacks only when the JIT was asked for by name) */
static void engine_report(const struct launch_op *k, const struct ptx_engine_report *r)
{
    if (k->l.engine == PTX_ENGINE_INTERP || !r->compiled) return;
    if (r->note[0]) emu_reportf("tdtrace-emu: %s\n", r->note);
    if (r->engine == PTX_ENGINE_JIT && r->from_cache)
        emu_reportf("tdtrace-emu: kernel %s: engine jit (loaded from the cache in %.1f ms)\n", k->name, r->compile_ms);
    else if (r->engine == PTX_ENGINE_JIT && r->light)
        emu_reportf("tdtrace-emu: kernel %s: engine jit (compiled with LLVM in %.1f ms, the light pipeline for its %d "
                    "PTX instructions)\n", k->name, r->compile_ms, r->light);
    else if (r->engine == PTX_ENGINE_JIT)
        emu_reportf("tdtrace-emu: kernel %s: engine jit (compiled with LLVM in %.1f ms)\n", k->name, r->compile_ms);
    else if (k->l.engine == PTX_ENGINE_JIT)
        emu_reportf("tdtrace-emu: kernel %s: engine interp, the JIT cannot run it: %s\n", k->name, r->why);
}

static void launch_run(struct emu_op *op)
{
    struct launch_op *k = (struct launch_op *)op;
    char err[512];
    op->tl_kind = EMU_TL_KERNEL;
    k->l.host.cookie = k;
    k->l.host.lookup = host_lookup;
    k->l.host.print = host_print; /* set_cond: emu_launch_cond's, for kernels of graphs */
    k->l.host.heap_alloc = host_heap_alloc;
    k->l.host.heap_free = host_heap_free;
    k->l.host.dev_attr = host_dev_attr;
    k->l.host.dev_limit = host_dev_limit;
    k->l.host.error_text = host_error_text;
    k->l.host.note = host_note;
    k->l.host.child_ran = host_child_ran;
    k->l.device = k->ctx->dev->ordinal;
    k->l.ndevices = emu_ndevices;
    /* the engine's frames hold whole 64-bit registers: 16 times CUDA's
     * per-thread stack (at most 256 KiB; 16 KiB at least, the engine's default) */
    pthread_mutex_lock(&k->ctx->lock);
    size_t stack = k->ctx->limits[CU_LIMIT_STACK_SIZE];
    size_t pending = k->ctx->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT];
    pthread_mutex_unlock(&k->ctx->lock);
    k->l.pending_limit = pending > 0xffffffffu ? 0xffffffffu : (unsigned)pending;
    k->l.stack_bytes = stack > 1024 ? (unsigned)(stack > 16384 ? 262144 : stack * 16) : 0;
    k->l.params = k->params;
    k->l.gaddr = k->gaddr;
    k->l.nthreads = emu_launch_threads;
    k->l.timeout_ms = emu_launch_timeout_ms;
    k->l.max_instructions = emu_launch_max_instructions;
    k->l.engine = emu_launch_engine;
    struct ptx_engine_report er;
    memset(&er, 0, sizeof er);
    k->l.engine_report = &er;
    struct ptx_fault pf;
    memset(&pf, 0, sizeof pf);
    k->l.fault = &pf;
    /* a cooperative launch's grid barrier word: device memory of the
     * context, zero, for the length of the kernel */
    uintptr_t barrier = 0;
    if (k->l.cooperative) {
        if (emu_mem_alloc(k->ctx, 16, EMU_MEM_GLOBAL, 0, NULL, &barrier)) {
            static const char msg[] = "tdtrace-emu: no memory for a cooperative launch's grid barrier "
                                      "(CUDA_ERROR_OUT_OF_MEMORY)\n";
            emu_report(msg, sizeof msg - 1);
            emu_ctx_fail(k->ctx, CUDA_ERROR_OUT_OF_MEMORY);
            return;
        }
        memset((void *)barrier, 0, 16);
        k->l.envreg[1] = (uint32_t)((uint64_t)barrier >> 32);
        k->l.envreg[2] = (uint32_t)barrier;
    }
    emu_mem_kernel_begin();
    uint64_t t0 = emu_listening() ? emu_now_ns() : 0;
    enum ptx_status st = ptx_run(k->px->pm, k->entry, &k->l, err, sizeof err);
    if (t0) { /* tdtrace's listener: when it ran, and what it came to */
        struct emu_fault r = { 0 };
        if (st != PTX_OK)
            fault_of(st, &r);
        emu_report_kernel(k->name, k->l.grid, k->l.block, k->l.dyn_shared, t0, emu_now_ns(), (int)r.result, op, 0, &er);
    }
    emu_mem_kernel_end();
    engine_report(k, &er);
    if (barrier)
        emu_mem_release(barrier, 1u << EMU_MEM_GLOBAL);
    if (st == PTX_OK) {
        if (k->len)
            emu_ctx_output(k->ctx, k->out, k->len);
        return;
    }
    /* the engine's account, for the report */
    struct emu_fault f = { 0 };
    fault_of(st, &f);
    f.device = k->ctx->dev->ordinal;
    f.kernel = pf.kernel[0] ? pf.kernel : k->name;
    f.function = pf.function;
    f.has_thread = pf.has_thread;
    for (int i = 0; i < 3; i++) {
        f.block[i] = pf.block[i];
        f.thread[i] = pf.thread[i];
    }
    f.access = pf.access == PTX_ACCESS_READ ? EMU_ACCESS_READ : pf.access == PTX_ACCESS_WRITE ? EMU_ACCESS_WRITE
             : pf.access == PTX_ACCESS_ATOMIC ? EMU_ACCESS_ATOMIC : EMU_ACCESS_NONE;
    f.space = pf.space;
    f.addr = pf.addr;
    f.size = pf.size;
    f.ptx_line = pf.ptx_line;
    f.opcode = pf.opcode;
    f.file = pf.file;
    f.line = pf.line;
    f.column = pf.column;
    f.message = err;
    f.depth = pf.depth;
    f.parent = pf.parent;
    if (k->len)
        emu_ctx_output(k->ctx, k->out, k->len);
    /* the report first: a synchronising call that the fault ends returns
     * after it, so the trace shows the fault before that call */
    emu_fault_report(&f);
    emu_ctx_fail(k->ctx, f.result);
}

static void launch_fini(struct emu_op *op)
{
    struct launch_op *k = (struct launch_op *)op;
    emu_ctx_put(k->ctx);
    emu_ptx_put(k->px);
    if (k->holder)
        emu_obj_put(k->holder);
    free(k->params);
    free(k->out);
    pthread_mutex_destroy(&k->plock);
}

CUresult emu_launch_op(struct emu_ctx *c, struct emu_ptxmod *px, struct emu_obj *holder,
                       struct emu_ptxglob *pg, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void **params, void **extra,
                       const struct emu_cluster *cl, struct emu_op **out)
{
    if (!px || !px->pm)
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    int entry = ptx_entry_find(px->pm, name);
    char err[512];
    if (entry < 0) {
        fprintf(stderr, "tdtrace-emu: kernel %s: not in the PTX\n", name);
        return CUDA_ERROR_NOT_FOUND;
    }
    if (ptx_entry_check(px->pm, entry, err, sizeof err)) {
        fprintf(stderr, "tdtrace-emu: kernel %s: %s\n", name, err);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    CUresult r = emu_ctx_error(c); /* flushes earlier printf output too */
    if (r)
        return r;
    unsigned req[3], dims[3];
    int expl = ptx_entry_cluster(px->pm, entry, req);
    r = emu_cluster_resolve(c->dev, name, cl, req, grid, dims);
    if (r)
        return r;
    unsigned pbytes = ptx_entry_param_bytes(px->pm, entry);
    struct launch_op *k = emu_op_new(sizeof *k, launch_run, launch_fini);
    if (!k)
        return CUDA_ERROR_OUT_OF_MEMORY;
    k->op.device_work = 1; /* a broken context runs no more kernels */
    pthread_mutex_init(&k->plock, NULL);
    /* aligned as a parameter may ask (.param .align 128: a __grid_constant__
     * CUtensorMap, whose generic address cp.async.bulk.tensor takes) */
    size_t palloc = ((size_t)pbytes + 127) / 128 * 128;
    k->params = aligned_alloc(128, palloc ? palloc : 128);
    if (k->params)
        memset(k->params, 0, palloc ? palloc : 128);
    if (!k->params) {
        pthread_mutex_destroy(&k->plock);
        free(k);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (params) {
        unsigned off[256], size[256];
        int n = ptx_entry_params(px->pm, entry, off, size, 256);
        if (n > 256) {
            free(k->params);
            pthread_mutex_destroy(&k->plock);
            free(k);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        for (int i = 0; i < n; i++)
            memcpy(k->params + off[i], params[i], size[i]);
    } else if (extra) {
        void *buf = NULL;
        size_t *sz = NULL;
        for (int i = 0; i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                sz = extra[i + 1];
        }
        if (buf && sz)
            memcpy(k->params, buf, *sz < pbytes ? *sz : pbytes);
    }
    emu_obj_ref(&c->o);
    k->ctx = c;
    emu_ptx_ref(px);
    k->px = px;
    if (holder)
        emu_obj_ref(holder);
    k->holder = holder;
    k->gaddr = pg ? pg->gaddr : NULL;
    k->entry = entry;
    snprintf(k->name, sizeof k->name, "%s", name);
    for (int i = 0; i < 3; i++) {
        k->l.grid[i] = grid[i];
        k->l.block[i] = block[i];
    }
    k->l.dyn_shared = shmem;
    for (int i = 0; i < 3; i++)
        k->l.cluster[i] = dims[i];
    k->l.explicit_cluster = expl || (cl && cl->given);
    k->l.param_bytes = pbytes;
    k->l.smcount = (unsigned)emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1);
    *out = &k->op;
    return CUDA_SUCCESS;
}

void emu_launch_cond(struct emu_op *op, int (*set)(void *cookie, uint64_t handle, unsigned value), void *cookie)
{
    struct launch_op *k = (struct launch_op *)op;
    k->l.host.set_cond = set;
    k->l.host.cond_cookie = cookie;
}

CUresult emu_launch_submit(struct emu_stream *s, struct emu_ptxmod *px, struct emu_obj *holder,
                           struct emu_ptxglob *pg, const char *name, const unsigned grid[3],
                           const unsigned block[3], unsigned shmem, void **params, void **extra, int coop,
                           const struct emu_cluster *cl)
{
    struct emu_op *op;
    CUresult r = emu_launch_op(s->sctx, px, holder, pg, name, grid, block, shmem, params, extra, cl, &op);
    if (r)
        return r;
    ((struct launch_op *)op)->l.cooperative = coop;
    return emu_stream_submit(s, op, NULL);
}
