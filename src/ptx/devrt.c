/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA device runtime of dynamic parallelism (CDP2, CUDA 12 and 13):
 * the builtins of builtins.def marked B_DEVRT, which <<<>>> in device code
 * and cuda_device_runtime_api.h's functions compile to. libcudadevrt's
 * own code is machine code (or PTX for the newest devices only), so the
 * engine serves them.
 *
 * A device-side launch: __cudaCDP2GetParameterBufferV2(func, grid, block,
 * shared) checks func (an .entry's address in this module, else NULL and
 * cudaErrorInvalidDeviceFunction) and the configuration as a host launch
 * would, and hands out a parameter buffer of device memory (the device
 * heap) that the thread fills; __cudaCDP2LaunchDeviceV2(buffer, stream)
 * takes a copy of it and queues the child grid on its grid's queue.
 *
 * The schedule (exec_launch.c runs it): when every block of a grid has
 * finished, its queued work runs in launch order, each child grid with its
 * own children after it, recursively; work in cudaStreamTailLaunch after
 * all the rest. All of it completes before the host launch does, so what
 * follows the launch on its host stream sees the results. The parent
 * cannot wait for its children (CDP2 has no device-side synchronisation),
 * so this is one of the schedules the hardware may choose; a parent that
 * spins until a child has run never ends (the time limit ends it).
 * Device streams and events only order work, and one queue in launch order
 * keeps every order they can ask for; device cudaMemcpyAsync and
 * cudaMemsetAsync (and their 2D forms) are queued as the launches are.
 *
 * Limits: nesting depth 24 (cudaErrorLaunchMaxDepthExceeded), the pending
 * launches of a host launch's tree (cudaLimitDevRuntimePendingLaunchCount,
 * cudaErrorLaunchPendingCountExceeded). Each call returns a cudaError_t
 * and records a failure as the thread's last error (cudaGetLastError reads
 * and clears it, cudaPeekAtLastError reads it). Everything a kernel passes
 * is hostile: addresses are checked as its loads and stores are, handles
 * against the tree's tables, parameter buffers against the grid's. */
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>

enum {
    E_INVALID_VALUE = 1, E_MEMORY_ALLOCATION = 2, E_INVALID_CONFIGURATION = 9, E_INVALID_PITCH = 12,
    E_INVALID_MEMCPY_DIRECTION = 21, E_MAX_DEPTH = 65, E_PENDING_COUNT = 69,
    E_INVALID_DEVICE_FUNCTION = 98, E_UNSUPPORTED_LIMIT = 215, E_INVALID_HANDLE = 400, E_NOT_SUPPORTED = 801,
};

#define STREAM_PER_THREAD 2u
#define STREAM_TAIL 3u
#define STREAM_FIRE_FORGET 4u
#define HBASE 0x7dd0000000000000ull     /* device streams and events: HBASE + 16 * index */
#define MAX_OBJS 65536
#define FUNCATTR_BYTES 144               /* sizeof(struct cudaFuncAttributes), CUDA 13 */

enum { OBJ_STREAM = 1, OBJ_EVENT };
struct dr_obj { int kind, live; };
struct dr_str { int code, name; uint64_t addr; };

struct ptx_devrt {                       /* a host launch and every grid below it */
    pthread_mutex_t lock;
    const struct ptx_host *host;
    unsigned pending, limit;             /* launched grids not yet started; the most */
    struct dr_obj *objs;
    int nobjs, capobjs;
    int *dead, ndead, capdead;           /* destroyed objects' indices, for reuse (as
                                            the driver reuses a freed handle's address) */
    struct dr_str *strs;                 /* cudaGetErrorName/String's texts, device memory */
    int nstrs, capstrs;
    unsigned char noted[B_COUNT];        /* unsupported calls reported */
};

struct dr_buf {                          /* a parameter buffer handed out, not launched */
    uint64_t addr;
    unsigned bytes;
    int entry;                           /* -1: the first form's, the launch names the kernel */
    unsigned grid[3], block[3], shmem;
    int err;                             /* the configuration's, returned at launch */
};

struct ex_grid {                         /* one grid's device-runtime state */
    struct dr_buf *bufs;
    int nbufs, capbufs;
    struct ex_work *q;
    int nq, capq, next, tail_pass;
};

static int grow(void **p, int n, int *cap, size_t sz)
{
    if (n < *cap) return 0;
    int nc = *cap ? *cap * 2 : 8;
    void *np = realloc(*p, (size_t)nc * sz);
    if (!np) return -1;
    *p = np;
    *cap = nc;
    return 0;
}

/* the host launch's state and this grid's, made on first use: 0, or -1 without memory */
static int state(struct plan *P)
{
    pthread_mutex_lock(&P->lock);
    if (!P->dr) {
        if (P->l->devrt) P->dr = P->l->devrt;
        else if ((P->dr = calloc(1, sizeof *P->dr))) {
            pthread_mutex_init(&P->dr->lock, NULL);
            P->dr->host = &P->l->host;
            P->dr->limit = P->l->pending_limit ? P->l->pending_limit : 2048;
            P->dr_own = 1;
        }
    }
    if (P->dr && !P->gq) P->gq = calloc(1, sizeof *P->gq);
    int r = P->dr && P->gq ? 0 : -1;
    pthread_mutex_unlock(&P->lock);
    return r;
}

/* ---- arguments and results ------------------------------------------------ */
static uint64_t arg(const struct ir_call *c, const unsigned char *fp, int i)
{
    uint64_t v = 0;
    if (i < c->nargs) memcpy(&v, fp + c->args[i].from, c->args[i].size > 8 ? 8 : c->args[i].size);
    return v;
}

/* a dim3 passed by value (12 bytes) */
static void arg_dim(const struct ir_call *c, const unsigned char *fp, int i, unsigned d[3])
{
    d[0] = d[1] = d[2] = 0;
    if (i < c->nargs) memcpy(d, fp + c->args[i].from, c->args[i].size > 12 ? 12 : c->args[i].size);
}

static void result(const struct ir_call *c, unsigned char *fp, uint64_t v)
{
    for (int i = 0; i < c->nrets; i++) memcpy(fp + c->rets[i].to, &v, c->rets[i].size < 8 ? c->rets[i].size : 8);
}

/* n bytes to the kernel's generic address a: 0, or E_INVALID_VALUE where it may not write */
static int put(struct blk *b, unsigned tid, uint64_t a, const void *v, unsigned n)
{
    unsigned char *p = a ? ex_addr(b, SP_GENERIC, a, n, tid) : NULL;
    if (!p) return E_INVALID_VALUE;
    memcpy(p, v, n);
    return 0;
}

/* [a, a + n) lies in one device allocation */
static int device_range(const struct ptx_host *h, uint64_t a, uint64_t n)
{
    uint64_t lo, hi;
    return a + n >= a && h->lookup && h->lookup(h->cookie, a, &lo, &hi) == 0 && a + n <= hi;
}

/* ---- kernels and configurations ------------------------------------------- */
/* the entry at address fn, or -1 */
static int entry_of(const struct ptx_module *m, uint64_t fn)
{
    int g = ir_fidx(fn, m->nfuncs);
    return g >= 0 && m->funcs[g].is_entry && m->funcs[g].defined ? g : -1;
}

static int attr_or(const struct ptx_launch *l, int attr, int dflt)
{
    int v = 0;
    if (l->host.dev_attr && l->host.dev_attr(l->host.cookie, attr, l->device, &v) == 0 && v > 0) return v;
    return dflt;
}

/* a child launch's configuration, as a host launch checks it: 0 or a cudaError_t */
static int check_config(const struct plan *P, int g, const unsigned grid[3], const unsigned block[3], unsigned shmem)
{
    const struct ptx_launch *l = P->l;
    static const int battr[3] = { 2, 3, 4 }, gattr[3] = { 5, 6, 7 }; /* cudaDevAttrMaxBlockDimX.., MaxGridDimX.. */
    static const int bmax[3] = { 1024, 1024, 64 }, gmax[3] = { 0x7fffffff, 65535, 65535 };
    uint64_t threads = 1;
    for (int k = 0; k < 3; k++) {
        if (!grid[k] || !block[k]) return E_INVALID_CONFIGURATION;
        if (block[k] > (unsigned)attr_or(l, battr[k], bmax[k]) || grid[k] > (unsigned)attr_or(l, gattr[k], gmax[k]))
            return E_INVALID_CONFIGURATION;
        threads *= block[k];
    }
    if (threads > (uint64_t)attr_or(l, 1, 1024)) return E_INVALID_CONFIGURATION; /* MaxThreadsPerBlock */
    uint64_t shared = (uint64_t)ptx_entry_shared_bytes(P->m, g) + shmem;
    if (shared > (uint64_t)attr_or(l, 8, 49152)) return E_INVALID_CONFIGURATION; /* MaxSharedMemoryPerBlock */
    unsigned cl[3];
    if (ptx_entry_cluster(P->m, g, cl))
        for (int k = 0; k < 3; k++)
            if (cl[k] && grid[k] % cl[k]) return E_INVALID_CONFIGURATION;
    return 0;
}

/* ---- handles ---------------------------------------------------------------- */
static uint64_t obj_new(struct ptx_devrt *d, int kind)
{
    uint64_t h = 0;
    pthread_mutex_lock(&d->lock);
    if (d->ndead) {
        int i = d->dead[--d->ndead];
        d->objs[i] = (struct dr_obj){ kind, 1 };
        h = HBASE + 16 * (uint64_t)i;
    } else if (d->nobjs < MAX_OBJS && !grow((void **)&d->objs, d->nobjs, &d->capobjs, sizeof *d->objs)) {
        d->objs[d->nobjs] = (struct dr_obj){ kind, 1 };
        h = HBASE + 16 * (uint64_t)d->nobjs++;
    }
    pthread_mutex_unlock(&d->lock);
    return h;
}

/* the live object of kind at handle h: its index, or -1 */
static int obj_find(struct ptx_devrt *d, uint64_t h, int kind)
{
    int r = -1;
    pthread_mutex_lock(&d->lock);
    if (h >= HBASE && (h - HBASE) % 16 == 0 && (h - HBASE) / 16 < (uint64_t)d->nobjs) {
        int i = (int)((h - HBASE) / 16);
        if (d->objs[i].kind == kind && d->objs[i].live) r = i;
    }
    pthread_mutex_unlock(&d->lock);
    return r;
}

/* destroys the live object of kind at handle h: 0, or -1 if there is none */
static int obj_kill(struct ptx_devrt *d, uint64_t h, int kind)
{
    int r = -1;
    pthread_mutex_lock(&d->lock);
    if (h >= HBASE && (h - HBASE) % 16 == 0 && (h - HBASE) / 16 < (uint64_t)d->nobjs) {
        int i = (int)((h - HBASE) / 16);
        if (d->objs[i].kind == kind && d->objs[i].live) {
            d->objs[i].live = 0;
            if (!grow((void **)&d->dead, d->ndead, &d->capdead, sizeof *d->dead)) d->dead[d->ndead++] = i;
            r = 0;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return r;
}

/* a stream a kernel may use: NULL (the implicit one), the per-thread,
 * tail and fire-and-forget streams, or a live device stream */
static int stream_ok(struct ptx_devrt *d, uint64_t s)
{
    return s == 0 || s == STREAM_PER_THREAD || s == STREAM_TAIL || s == STREAM_FIRE_FORGET || obj_find(d, s, OBJ_STREAM) >= 0;
}

/* ---- the queue -------------------------------------------------------------- */
static int enqueue(struct plan *P, const struct ex_work *wk)
{
    struct ptx_devrt *d = P->dr;
    int r = 0;
    pthread_mutex_lock(&d->lock);
    if (wk->kind == EW_LAUNCH && d->pending >= d->limit) r = E_PENDING_COUNT;
    else if (grow((void **)&P->gq->q, P->gq->nq, &P->gq->capq, sizeof *P->gq->q)) r = E_MEMORY_ALLOCATION;
    else {
        P->gq->q[P->gq->nq++] = *wk;
        if (wk->kind == EW_LAUNCH) d->pending++;
    }
    pthread_mutex_unlock(&d->lock);
    return r;
}

int ex_devrt_next(struct plan *P, struct ex_work *wk)
{
    struct ex_grid *q = P->gq;
    if (!q) return 0;
    for (;;) {
        while (q->next < q->nq) {
            struct ex_work *it = &q->q[q->next++];
            if (it->kind == EW_NONE || it->tail != q->tail_pass) continue;
            *wk = *it;
            it->kind = EW_NONE;
            it->params = NULL;
            if (wk->kind == EW_LAUNCH) {
                pthread_mutex_lock(&P->dr->lock);
                P->dr->pending--;
                pthread_mutex_unlock(&P->dr->lock);
            }
            return 1;
        }
        if (q->tail_pass) return 0;
        q->tail_pass = 1; /* then the tail launches */
        q->next = 0;
    }
}

void ex_devrt_end(struct plan *P)
{
    struct ex_grid *q = P->gq;
    struct ptx_devrt *d = P->dr;
    const struct ptx_host *h = &P->l->host;
    if (q) {
        for (int i = 0; i < q->nq; i++)
            if (q->q[i].kind != EW_NONE) {
                free(q->q[i].params);
                if (q->q[i].kind == EW_LAUNCH) {
                    pthread_mutex_lock(&d->lock);
                    d->pending--;
                    pthread_mutex_unlock(&d->lock);
                }
            }
        for (int i = 0; i < q->nbufs; i++)
            if (h->heap_free) h->heap_free(h->cookie, q->bufs[i].addr);
        free(q->q);
        free(q->bufs);
        free(q);
        P->gq = NULL;
    }
    if (d && P->dr_own) {
        for (int i = 0; i < d->nstrs; i++)
            if (h->heap_free) h->heap_free(h->cookie, d->strs[i].addr);
        free(d->strs);
        free(d->objs);
        free(d->dead);
        pthread_mutex_destroy(&d->lock);
        free(d);
    }
    P->dr = NULL;
}

/* ---- the calls -------------------------------------------------------------- */
/* a parameter buffer for entry g (-1: not known yet) of bytes, its launch's configuration checked */
static uint64_t param_buffer(struct plan *P, int g, unsigned bytes, const unsigned grid[3], const unsigned block[3],
                             unsigned shmem, int *err)
{
    const struct ptx_host *h = &P->l->host;
    uint64_t a = h->heap_alloc ? h->heap_alloc(h->cookie, bytes ? bytes : 8) : 0;
    if (!a) { *err = E_MEMORY_ALLOCATION; return 0; }
    uint64_t lo, hi;
    if (!h->lookup || h->lookup(h->cookie, a, &lo, &hi) || hi - a < (bytes ? bytes : 8)) {
        if (h->heap_free) h->heap_free(h->cookie, a);
        *err = E_MEMORY_ALLOCATION;
        return 0;
    }
    memset((void *)(uintptr_t)a, 0, bytes ? bytes : 8);
    struct dr_buf nb = { a, bytes, g, { 0, 0, 0 }, { 0, 0, 0 }, shmem, 0 };
    if (grid) memcpy(nb.grid, grid, sizeof nb.grid);
    if (block) memcpy(nb.block, block, sizeof nb.block);
    if (g >= 0) nb.err = check_config(P, g, grid, block, shmem);
    pthread_mutex_lock(&P->dr->lock);
    int full = grow((void **)&P->gq->bufs, P->gq->nbufs, &P->gq->capbufs, sizeof *P->gq->bufs);
    if (!full) P->gq->bufs[P->gq->nbufs++] = nb;
    pthread_mutex_unlock(&P->dr->lock);
    if (full) {
        if (h->heap_free) h->heap_free(h->cookie, a);
        *err = E_MEMORY_ALLOCATION;
        return 0;
    }
    *err = 0;
    return a;
}

/* takes the grid's buffer at a out of its list into *out: 0, or -1 if it has none there */
static int take_buffer(struct plan *P, uint64_t a, struct dr_buf *out)
{
    int r = -1;
    pthread_mutex_lock(&P->dr->lock);
    for (int i = 0; i < P->gq->nbufs; i++)
        if (P->gq->bufs[i].addr == a) {
            *out = P->gq->bufs[i];
            P->gq->bufs[i] = P->gq->bufs[--P->gq->nbufs];
            r = 0;
            break;
        }
    pthread_mutex_unlock(&P->dr->lock);
    return r;
}

/* the launch of buffer a into stream s (g, grid, block, shmem: the first
 * form's, which names them at launch; g -2: the buffer's) */
static int launch(struct plan *P, uint64_t a, uint64_t s, int g, const unsigned grid[3], const unsigned block[3],
                  unsigned shmem)
{
    const struct ptx_host *h = &P->l->host;
    struct dr_buf bf;
    if (!a || take_buffer(P, a, &bf)) return E_INVALID_VALUE; /* not a buffer this grid handed out */
    int err = bf.err;
    if (g != -2) { /* the first form */
        if (g < 0) err = E_INVALID_DEVICE_FUNCTION;
        else {
            bf.entry = g;
            memcpy(bf.grid, grid, sizeof bf.grid);
            memcpy(bf.block, block, sizeof bf.block);
            bf.shmem = shmem;
            err = check_config(P, g, grid, block, shmem);
            if (!err && ptx_entry_param_bytes(P->m, g) > bf.bytes) err = E_INVALID_VALUE;
        }
    }
    if (!err && !stream_ok(P->dr, s)) err = E_INVALID_HANDLE;
    if (!err && P->l->depth + 1 > PTX_DEVRT_MAX_DEPTH) err = E_MAX_DEPTH;
    struct ex_work wk;
    memset(&wk, 0, sizeof wk);
    if (!err) {
        unsigned pb = ptx_entry_param_bytes(P->m, bf.entry);
        wk.kind = EW_LAUNCH;
        wk.tail = s == STREAM_TAIL;
        wk.entry = bf.entry;
        memcpy(wk.grid, bf.grid, sizeof wk.grid);
        memcpy(wk.block, bf.block, sizeof wk.block);
        wk.shmem = bf.shmem;
        wk.pbytes = pb;
        wk.params = malloc(pb ? pb : 1);
        if (!wk.params) err = E_MEMORY_ALLOCATION;
        else if (pb && !device_range(h, bf.addr, pb)) err = E_INVALID_VALUE; /* the kernel freed it */
        else memcpy(wk.params, (const void *)(uintptr_t)bf.addr, pb);
        if (err) {
            free(wk.params);
            wk.params = NULL;
        }
    }
    if (h->heap_free) h->heap_free(h->cookie, bf.addr);
    if (!err && (err = enqueue(P, &wk))) free(wk.params);
    return err;
}

/* a cudaError_t's name or description as device memory (the tree keeps one copy of each) */
static uint64_t error_text(struct plan *P, int code, int name)
{
    struct ptx_devrt *d = P->dr;
    const struct ptx_host *h = &P->l->host;
    uint64_t a = 0;
    pthread_mutex_lock(&d->lock);
    for (int i = 0; i < d->nstrs; i++)
        if (d->strs[i].code == code && d->strs[i].name == name) a = d->strs[i].addr;
    pthread_mutex_unlock(&d->lock);
    if (a) return a;
    const char *t = h->error_text ? h->error_text(h->cookie, code, name) : NULL;
    char unk[64];
    if (!t) {
        snprintf(unk, sizeof unk, name ? "cudaErrorUnknown(%d)" : "unrecognized error code %d", code);
        t = unk;
    }
    size_t n = strlen(t) + 1;
    if (!h->heap_alloc || !(a = h->heap_alloc(h->cookie, n))) return 0;
    memcpy((void *)(uintptr_t)a, t, n);
    pthread_mutex_lock(&d->lock);
    if (grow((void **)&d->strs, d->nstrs, &d->capstrs, sizeof *d->strs)) {
        if (h->heap_free) h->heap_free(h->cookie, a);
        a = 0;
    } else
        d->strs[d->nstrs++] = (struct dr_str){ code, name, a };
    pthread_mutex_unlock(&d->lock);
    return a;
}

/* cudaFuncGetAttributes' struct for entry g */
static void func_attrs(const struct plan *P, int g, unsigned char out[FUNCATTR_BYTES])
{
    const struct ptx_launch *l = P->l;
    memset(out, 0, FUNCATTR_BYTES);
    uint64_t shared = ptx_entry_shared_bytes(P->m, g), local = P->m->funcs[g].local_bytes;
    int cc = attr_or(l, 75, 0) * 10 + attr_or(l, 76, 0); /* ComputeCapabilityMajor, Minor */
    int32_t iv[] = {
        attr_or(l, 1, 1024),                               /* maxThreadsPerBlock */
        0,                                                 /* numRegs: the engine has no register allocation */
        cc, cc,                                            /* ptxVersion, binaryVersion */
        0,                                                 /* cacheModeCA */
        shared >= 49152 ? 0 : (int32_t)(49152 - shared),   /* maxDynamicSharedSizeBytes */
        -1,                                                /* preferredShmemCarveout */
    };
    memcpy(out, &shared, 8);
    memcpy(out + 16, &local, 8);
    memcpy(out + 24, iv, sizeof iv);
    unsigned cl[3];
    int32_t cv[4] = { 0, 0, 0, 0 };
    if (ptx_entry_cluster(P->m, g, cl)) {
        cv[0] = !cl[0];
        for (int k = 0; k < 3; k++) cv[k + 1] = (int32_t)cl[k];
    }
    memcpy(out + 24 + sizeof iv, cv, sizeof cv);
}

int ex_devrt_call(struct blk *b, struct warp *w, int l, const struct ir_ins *in, const struct ir_call *c, int id,
                  unsigned char *fp)
{
    struct plan *P = b->P;
    const struct ptx_launch *L_ = P->l;
    const struct ptx_host *h = &L_->host;
    unsigned tid = (unsigned)(w->id * 32 + l);
    if (state(P)) {
        struct ex_site at = { w, l, in, PTX_ACCESS_NONE, 0, 0, 0, 0 };
        ex_failv(b, &at, PTX_E_NOMEM, "out of memory for the device runtime");
        return -1;
    }
    struct ptx_devrt *d = P->dr;
    uint64_t rv = 0;
    int err = 0, sets = 1; /* sets: the call returns err, a failure recorded as the last error */
    switch (id) {
    case B_GETPARAMBUFV2: {
        unsigned grid[3], block[3];
        arg_dim(c, fp, 1, grid);
        arg_dim(c, fp, 2, block);
        int g = entry_of(P->m, arg(c, fp, 0));
        char why[256];
        if (g < 0) err = E_INVALID_DEVICE_FUNCTION;
        else if (ptx_entry_check(P->m, g, why, sizeof why)) {
            err = E_NOT_SUPPORTED;
            if (h->note) {
                char msg[400];
                int n = snprintf(msg, sizeof msg, "device-side launch of %s: %s\n", P->m->funcs[g].name, why);
                h->note(h->cookie, msg, n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
            }
        } else
            rv = param_buffer(P, g, ptx_entry_param_bytes(P->m, g), grid, block, (unsigned)arg(c, fp, 3), &err);
        break;
    }
    case B_GETPARAMBUF: { /* (alignment, size): the first form */
        uint64_t size = arg(c, fp, 1);
        if (size > 4096) err = E_INVALID_VALUE; /* CUDA's parameter limit for device launches */
        else rv = param_buffer(P, -1, (unsigned)size, NULL, NULL, 0, &err);
        break;
    }
    case B_LAUNCHV2: case B_LAUNCHV2_PTSZ:
        err = launch(P, arg(c, fp, 0), arg(c, fp, 1), -2, NULL, NULL, 0);
        break;
    case B_LAUNCH: case B_LAUNCH_PTSZ: { /* (func, buffer, grid, block, shared, stream) */
        unsigned grid[3], block[3];
        arg_dim(c, fp, 2, grid);
        arg_dim(c, fp, 3, block);
        err = launch(P, arg(c, fp, 1), arg(c, fp, 5), entry_of(P->m, arg(c, fp, 0)), grid, block, (unsigned)arg(c, fp, 4));
        break;
    }
    case B_GETLASTERROR:
        rv = b->lasterr[tid];
        b->lasterr[tid] = 0;
        sets = 0;
        break;
    case B_PEEKLASTERROR:
        rv = b->lasterr[tid];
        sets = 0;
        break;
    case B_GETERRORSTRING: case B_GETERRORNAME:
        rv = error_text(P, (int)(int32_t)arg(c, fp, 0), id == B_GETERRORNAME);
        sets = 0;
        break;
    case B_GETDEVICE: {
        int32_t v = L_->device;
        err = put(b, tid, arg(c, fp, 0), &v, 4);
        break;
    }
    case B_GETDEVICECOUNT: {
        int32_t v = L_->ndevices > 0 ? L_->ndevices : 1;
        err = put(b, tid, arg(c, fp, 0), &v, 4);
        break;
    }
    case B_DEVICEGETATTR: {
        int v = 0;
        int dev = (int)(int32_t)arg(c, fp, 2);
        if (!h->dev_attr) err = E_NOT_SUPPORTED;
        else if (!(err = h->dev_attr(h->cookie, (int)(int32_t)arg(c, fp, 1), dev, &v))) {
            int32_t v32 = v;
            err = put(b, tid, arg(c, fp, 0), &v32, 4);
        }
        break;
    }
    case B_DEVICEGETLIMIT: {
        uint64_t v = 0;
        if (!h->dev_limit) err = E_UNSUPPORTED_LIMIT;
        else if (!(err = h->dev_limit(h->cookie, (int)(int32_t)arg(c, fp, 1), &v)))
            err = put(b, tid, arg(c, fp, 0), &v, 8);
        break;
    }
    case B_STREAMCREATE: {
        uint64_t s = 0;
        if ((unsigned)arg(c, fp, 1) != 1u) err = E_INVALID_VALUE; /* cudaStreamNonBlocking is required */
        else if (!(s = obj_new(d, OBJ_STREAM))) err = E_MEMORY_ALLOCATION;
        else err = put(b, tid, arg(c, fp, 0), &s, 8);
        break;
    }
    case B_EVENTCREATE: {
        uint64_t e = 0;
        unsigned fl = (unsigned)arg(c, fp, 1);
        if (!(fl & 2u) || (fl & ~3u)) err = E_INVALID_VALUE; /* cudaEventDisableTiming is required */
        else if (!(e = obj_new(d, OBJ_EVENT))) err = E_MEMORY_ALLOCATION;
        else err = put(b, tid, arg(c, fp, 0), &e, 8);
        break;
    }
    case B_STREAMDESTROY: case B_EVENTDESTROY: /* a stream's queued work still runs */
        if (obj_kill(d, arg(c, fp, 0), id == B_STREAMDESTROY ? OBJ_STREAM : OBJ_EVENT)) err = E_INVALID_HANDLE;
        break;
    case B_STREAMWAIT: case B_STREAMWAIT_PTSZ: /* (stream, event, flags): one queue keeps the order */
        if (!stream_ok(d, arg(c, fp, 0)) || obj_find(d, arg(c, fp, 1), OBJ_EVENT) < 0) err = E_INVALID_HANDLE;
        else if ((unsigned)arg(c, fp, 2)) err = E_INVALID_VALUE;
        break;
    case B_EVENTRECORD: case B_EVENTRECORD_PTSZ: case B_EVENTRECORDF: case B_EVENTRECORDF_PTSZ:
        if (obj_find(d, arg(c, fp, 0), OBJ_EVENT) < 0 || !stream_ok(d, arg(c, fp, 1))) err = E_INVALID_HANDLE;
        break;
    case B_FUNCGETATTR: {
        int g = entry_of(P->m, arg(c, fp, 1));
        unsigned char fa[FUNCATTR_BYTES];
        if (g < 0) err = E_INVALID_DEVICE_FUNCTION;
        else {
            func_attrs(P, g, fa);
            err = put(b, tid, arg(c, fp, 0), fa, sizeof fa);
        }
        break;
    }
    case B_DMALLOC: {
        uint64_t size = arg(c, fp, 1), a = 0;
        unsigned char *pp = ex_addr(b, SP_GENERIC, arg(c, fp, 0), 8, tid);
        if (!pp) err = E_INVALID_VALUE;
        else if (size && (!h->heap_alloc || !(a = h->heap_alloc(h->cookie, size)))) err = E_MEMORY_ALLOCATION;
        /* size 0: success and NULL, as the host's cudaMalloc */
        if (pp) memcpy(pp, &a, 8);
        break;
    }
    case B_DFREE:
        if (arg(c, fp, 0) && h->heap_free) h->heap_free(h->cookie, arg(c, fp, 0));
        break;
    case B_MEMCPYASYNC: case B_MEMCPYASYNC_PTSZ: case B_MEMSETASYNC: case B_MEMSETASYNC_PTSZ:
    case B_MEMCPY2DASYNC: case B_MEMCPY2DASYNC_PTSZ: case B_MEMSET2DASYNC: case B_MEMSET2DASYNC_PTSZ: {
        int cp = id == B_MEMCPYASYNC || id == B_MEMCPYASYNC_PTSZ || id == B_MEMCPY2DASYNC || id == B_MEMCPY2DASYNC_PTSZ;
        int two = id == B_MEMCPY2DASYNC || id == B_MEMCPY2DASYNC_PTSZ || id == B_MEMSET2DASYNC || id == B_MEMSET2DASYNC_PTSZ;
        struct ex_work wk;
        memset(&wk, 0, sizeof wk);
        wk.kind = cp ? EW_COPY : EW_SET;
        wk.dst = arg(c, fp, 0);
        unsigned kind = 3u;
        uint64_t s;
        if (!two) { /* (dst, src, n, kind, stream); (dst, value, n, stream) */
            wk.n = arg(c, fp, 2);
            wk.height = 1;
            wk.dpitch = wk.spitch = wk.n;
            if (cp) wk.src = arg(c, fp, 1);
            else wk.val = (int)(int32_t)arg(c, fp, 1);
            if (cp) kind = (unsigned)arg(c, fp, 3);
            s = arg(c, fp, cp ? 4 : 3);
        } else if (cp) { /* (dst, dpitch, src, spitch, width, height, kind, stream) */
            wk.dpitch = arg(c, fp, 1);
            wk.src = arg(c, fp, 2);
            wk.spitch = arg(c, fp, 3);
            wk.n = arg(c, fp, 4);
            wk.height = arg(c, fp, 5);
            kind = (unsigned)arg(c, fp, 6);
            s = arg(c, fp, 7);
        } else { /* (dst, pitch, value, width, height, stream) */
            wk.dpitch = arg(c, fp, 1);
            wk.val = (int)(int32_t)arg(c, fp, 2);
            wk.n = arg(c, fp, 3);
            wk.height = arg(c, fp, 4);
            s = arg(c, fp, 5);
        }
        wk.tail = s == STREAM_TAIL;
        int empty = !wk.n || !wk.height;
        uint64_t dspan = ex_span2d(wk.n, wk.dpitch, wk.height), sspan = cp ? ex_span2d(wk.n, wk.spitch, wk.height) : 1;
        if (kind != 3u && kind != 4u) err = E_INVALID_MEMCPY_DIRECTION; /* device to device, or default */
        else if (!stream_ok(d, s)) err = E_INVALID_HANDLE;
        else if (empty) err = 0;
        else if (wk.dpitch < wk.n || (cp && wk.spitch < wk.n)) err = E_INVALID_PITCH;
        else if (!dspan || !sspan || !device_range(h, wk.dst, dspan) || (cp && !device_range(h, wk.src, sspan)))
            err = E_INVALID_VALUE;
        else err = enqueue(P, &wk);
        break;
    }
    default: { /* B_NOTSUP: named once in the host launch's report */
        int first = 0;
        pthread_mutex_lock(&d->lock);
        if (id > 0 && id < B_COUNT && !d->noted[id]) first = d->noted[id] = 1;
        pthread_mutex_unlock(&d->lock);
        if (first && h->note) {
            char msg[200];
            int n = snprintf(msg, sizeof msg, "device runtime: %s is not supported by the emulator; the kernel's calls "
                             "return cudaErrorNotSupported\n", ir_builtins[id].name);
            h->note(h->cookie, msg, n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        }
        err = E_NOT_SUPPORTED;
        break;
    }
    }
    if (sets && id != B_GETPARAMBUFV2 && id != B_GETPARAMBUF) rv = (uint64_t)err; /* those return the buffer */
    if (err && sets) b->lasterr[tid] = (uint32_t)err;
    result(c, fp, rv);
    return 0;
}
