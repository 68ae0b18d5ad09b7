/* SPDX-License-Identifier: Apache-2.0 */
/* Stream capture. A capture sequence begins on one stream (its origin)
 * and builds a graph: work submitted to a capturing stream becomes a
 * node whose dependencies are the stream's dependency set, and the set
 * becomes that node. An event recorded on a capturing stream carries the
 * set; a stream that waits for it joins the capture (a fork) or merges
 * the set into its own (a join). cuStreamEndCapture on the origin ends it
 * for every stream that joined, and hands out the graph.
 *
 * The rules of capture, as the CUDA driver documents them:
 *  - a call that would wait for or query a capturing stream (synchronize,
 *    query, synchronous copies, the legacy stream when a blocking stream
 *    captures, cuCtxSynchronize) fails and invalidates the capture; an
 *    invalidated capture refuses all work until cuStreamEndCapture, which
 *    returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and no graph;
 *  - "unsafe" calls (allocation, frees, host registration, synchronous
 *    copies, event queries) fail with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
 *    when the calling thread's mode (cuThreadExchangeStreamCaptureMode)
 *    and the captures in progress forbid them: global mode forbids them
 *    while this thread captures without the relaxed mode, or any thread
 *    captures in global mode; thread-local mode only for this thread's
 *    captures; relaxed mode never;
 *  - waiting for an event recorded outside a capture needs
 *    CU_EVENT_WAIT_EXTERNAL (else CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
 *    one recorded in another capture would merge two
 *    (CUDA_ERROR_STREAM_CAPTURE_MERGE);
 *  - at the end every stream that joined must have joined back: its
 *    dependency set must be reachable from the origin's
 *    (CUDA_ERROR_STREAM_CAPTURE_UNJOINED).
 *
 * One lock (cap_lock) guards every capture; it is taken before the graph
 * lock. The references on captures and captured events' snapshots are
 * atomic: dropping them takes no lock. */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

struct capstream {                /* a stream taking part in a capture */
    struct emu_stream *s;         /* referenced */
    int n, cap;                   /* its dependency set (nodes referenced) */
    struct gedge *deps;
    CUgraphNode *out;             /* what cuStreamGetCaptureInfo hands out */
    CUgraphEdgeData *out_ed;
};

struct emu_capture {
    atomic_int refs;              /* the capture while it goes on, and each snapshot */
    unsigned long long id;
    struct emu_graph *g;          /* referenced */
    int to_graph;                 /* cuStreamBeginCaptureToGraph: the program's graph */
    int mode;                     /* CUstreamCaptureMode */
    pthread_t thread;             /* that began it */
    int invalid, ended;
    int ns, caps;
    struct capstream *st;         /* st[0]: the origin */
    struct emu_capture *next;     /* the captures in progress */
};

struct emu_capsnap {
    atomic_int refs;              /* no lock: the last put may come from under the graph lock
                                     (an event freed with a graph's event node) */
    struct emu_capture *c;        /* referenced */
    int n;
    struct gedge *deps;           /* nodes referenced */
};

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_capture *active;
static atomic_int nactive;        /* captures in progress: the fast path's test */
static atomic_ullong next_id = 1;
static __thread int thread_mode;  /* CU_STREAM_CAPTURE_MODE_GLOBAL (0) unless exchanged */

int emu_capturing(struct emu_stream *s)
{
    return atomic_load_explicit(&nactive, memory_order_acquire) &&
           atomic_load_explicit(&s->cap, memory_order_acquire) != NULL;
}

/* ---- dependency sets (cap_lock held) ------------------------------------ */

static void deps_clear(struct gedge *d, int *n)
{
    for (int i = 0; i < *n; i++)
        emu_gnode_put(d[i].n);
    *n = 0;
}

/* adds e to the set unless it is there */
static int deps_add(struct gedge **d, int *n, int *cap, const struct gedge *e)
{
    for (int i = 0; i < *n; i++)
        if ((*d)[i].n == e->n)
            return 0;
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        struct gedge *p = realloc(*d, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        *d = p;
        *cap = nc;
    }
    emu_obj_ref(&e->n->o);
    (*d)[(*n)++] = *e;
    return 0;
}

static struct capstream *find_stream(struct emu_capture *c, struct emu_stream *s)
{
    for (int i = 0; i < c->ns; i++)
        if (c->st[i].s == s)
            return &c->st[i];
    return NULL;
}

static struct capstream *join(struct emu_capture *c, struct emu_stream *s)
{
    if (c->ns == c->caps) {
        int nc = c->caps ? c->caps * 2 : 4;
        struct capstream *p = realloc(c->st, (size_t)nc * sizeof *p);
        if (!p)
            return NULL;
        c->st = p;
        c->caps = nc;
    }
    struct capstream *cs = &c->st[c->ns++];
    memset(cs, 0, sizeof *cs);
    emu_obj_ref(&s->o);
    cs->s = s;
    atomic_store_explicit(&s->cap, c, memory_order_release);
    return cs;
}

static void invalidate(struct emu_capture *c)
{
    c->invalid = 1;
}

static void capture_put(struct emu_capture *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    emu_graph_put(c->g);
    free(c->st);
    free(c);
}

/* The capture ends for every stream in it (cap_lock held). */
static void capture_end(struct emu_capture *c)
{
    for (int i = 0; i < c->ns; i++) {
        struct capstream *cs = &c->st[i];
        atomic_store_explicit(&cs->s->cap, NULL, memory_order_release);
        deps_clear(cs->deps, &cs->n);
        free(cs->deps);
        free(cs->out);
        free(cs->out_ed);
        emu_stream_put(cs->s);
    }
    c->ns = 0;
    for (struct emu_capture **pp = &active; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    atomic_fetch_sub(&nactive, 1);
    c->ended = 1;
    emu_graph_lock();
    c->g->capturing--;
    emu_graph_unlock();
    capture_put(c);
}

/* ---- adding nodes ---------------------------------------------------------- */

/* A node of type after capturing s's dependency set, which becomes it.
 * Takes p (freed on failure). */
static CUresult cap_add(struct emu_stream *s, int type, union gparams *p, struct gnode **out)
{
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    struct capstream *cs = c ? find_stream(c, s) : NULL;
    CUresult r = !cs ? CUDA_ERROR_ILLEGAL_STATE : c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
    struct gnode *n = NULL;
    if (r) {
        emu_graph_lock();
        emu_gparams_free(type, p);
        emu_graph_unlock();
    } else {
        emu_graph_lock();
        /* nodes of the set the program destroyed meanwhile are gone */
        int k = 0;
        for (int i = 0; i < cs->n; i++)
            if (cs->deps[i].n->g == c->g)
                cs->deps[k++] = cs->deps[i];
            else
                emu_gnode_put(cs->deps[i].n);
        cs->n = k;
        r = emu_graph_add_locked(c->g, type, p, cs->deps, (size_t)cs->n, &n);
        emu_graph_unlock();
        if (r == CUDA_SUCCESS) {
            deps_clear(cs->deps, &cs->n);
            struct gedge e = { n, { 0 } };
            if (deps_add(&cs->deps, &cs->n, &cs->cap, &e))
                invalidate(c); /* the stream's order would be lost */
        }
    }
    pthread_mutex_unlock(&cap_lock);
    if (out)
        *out = n;
    return r;
}

CUresult emu_capture_kernel(struct emu_stream *s, CUfunction f, const unsigned grid[3], const unsigned block[3],
                            unsigned shmem, struct emu_kargs *args, const struct emu_cluster *cl)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    p.kernel.func = f;
    p.kernel.ctx = (CUcontext)s->sctx;
    for (int i = 0; i < 3; i++) {
        p.kernel.grid[i] = grid[i];
        p.kernel.block[i] = block[i];
    }
    p.kernel.shmem = shmem;
    p.kernel.args = *args;
    memset(args, 0, sizeof *args);
    p.kernel.attr[CU_LAUNCH_ATTRIBUTE_PRIORITY].priority = s->priority; /* as the driver copies it */
    p.kernel.attr_set = 1u << CU_LAUNCH_ATTRIBUTE_PRIORITY;
    if (cl && cl->given) { /* the launch's cluster: the node's attribute */
        CUlaunchAttributeValue *v = &p.kernel.attr[CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION];
        v->clusterDim.x = cl->dim[0];
        v->clusterDim.y = cl->dim[1];
        v->clusterDim.z = cl->dim[2];
        p.kernel.attr_set |= 1u << CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    }
    return cap_add(s, CU_GRAPH_NODE_TYPE_KERNEL, &p, NULL);
}

CUresult emu_capture_memcpy(struct emu_stream *s, const CUDA_MEMCPY3D *cp)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    p.memcpy.p = *cp;
    p.memcpy.ctx = (CUcontext)s->sctx;
    return cap_add(s, CU_GRAPH_NODE_TYPE_MEMCPY, &p, NULL);
}

CUresult emu_capture_memset(struct emu_stream *s, CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem,
                            size_t width, size_t height)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    p.memset.dst = dst;
    p.memset.pitch = pitch;
    p.memset.value = value;
    p.memset.elementSize = elem;
    p.memset.width = width;
    p.memset.height = height;
    p.memset.ctx = (CUcontext)s->sctx;
    return cap_add(s, CU_GRAPH_NODE_TYPE_MEMSET, &p, NULL);
}

CUresult emu_capture_memop(struct emu_stream *s, const CUstreamBatchMemOpParams *ops, unsigned n)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    if (!(p.memop.ops = malloc(n * sizeof *ops)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(p.memop.ops, ops, n * sizeof *ops);
    p.memop.count = n;
    p.memop.ctx = (CUcontext)s->sctx;
    return cap_add(s, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, &p, NULL); /* takes p */
}

static CUresult capture_host(struct emu_stream *s, CUhostFn fn, void *user)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    p.host.fn = fn;
    p.host.userData = user;
    return cap_add(s, CU_GRAPH_NODE_TYPE_HOST, &p, NULL);
}

CUresult emu_capture_alloc(struct emu_stream *s, size_t size, CUdeviceptr *out)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    CUresult r = emu_gmem_new(s->sctx->dev, size, &p.alloc.m);
    if (r)
        return r;
    p.alloc.p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.alloc.p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.alloc.p.poolProps.location.id = s->sctx->dev->ordinal;
    p.alloc.p.bytesize = size;
    p.alloc.p.dptr = (CUdeviceptr)p.alloc.m->va;
    CUdeviceptr va = p.alloc.p.dptr;
    r = cap_add(s, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &p, NULL);
    if (r == CUDA_SUCCESS)
        *out = va;
    return r;
}

CUresult emu_capture_free(struct emu_stream *s, CUdeviceptr ptr)
{
    struct gmem *m = emu_gmem_find((uintptr_t)ptr);
    if (!m) /* only graph allocations can be freed by a graph */
        return CUDA_ERROR_INVALID_VALUE;
    emu_gmem_put(m);
    union gparams p;
    memset(&p, 0, sizeof p);
    p.free = ptr;
    return cap_add(s, CU_GRAPH_NODE_TYPE_MEM_FREE, &p, NULL);
}

CUresult emu_capture_event_node(struct emu_stream *s, int type, struct emu_obj *event)
{
    union gparams p;
    memset(&p, 0, sizeof p);
    emu_obj_ref(event);
    p.event = event;
    return cap_add(s, type, &p, NULL);
}

/* ---- events -------------------------------------------------------------- */

void emu_capsnap_ref(struct emu_capsnap *snap)
{
    atomic_fetch_add(&snap->refs, 1);
}

void emu_capsnap_put(struct emu_capsnap *snap)
{
    if (!snap || atomic_fetch_sub(&snap->refs, 1) != 1)
        return;
    deps_clear(snap->deps, &snap->n);
    free(snap->deps);
    capture_put(snap->c);
    free(snap);
}

CUresult emu_capture_record(struct emu_stream *s, struct emu_capsnap **out)
{
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    struct capstream *cs = c ? find_stream(c, s) : NULL;
    CUresult r = !cs ? CUDA_ERROR_ILLEGAL_STATE : c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
    struct emu_capsnap *snap = NULL;
    if (r == CUDA_SUCCESS) {
        snap = calloc(1, sizeof *snap);
        int cap = 0;
        for (int i = 0; snap && i < cs->n; i++)
            if (deps_add(&snap->deps, &snap->n, &cap, &cs->deps[i])) {
                deps_clear(snap->deps, &snap->n);
                free(snap->deps);
                free(snap);
                snap = NULL;
            }
        if (snap) {
            atomic_init(&snap->refs, 1);
            snap->c = c;
            atomic_fetch_add(&c->refs, 1);
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&cap_lock);
    *out = snap;
    return r;
}

CUresult emu_capture_wait(struct emu_stream *s, struct emu_capsnap *snap)
{
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *mine = atomic_load(&s->cap);
    CUresult r = CUDA_SUCCESS;
    if (!snap) {
        /* an event from outside any capture: it needs CU_EVENT_WAIT_EXTERNAL */
        if (mine)
            invalidate(mine);
        r = mine ? CUDA_ERROR_STREAM_CAPTURE_ISOLATION : CUDA_SUCCESS;
    } else if (snap->c->ended) {
        /* recorded in a capture that is over: never ran */
        if (mine)
            invalidate(mine);
        r = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    } else if (mine && mine != snap->c) {
        invalidate(mine);
        invalidate(snap->c);
        r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
    } else if (snap->c->invalid) {
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else {
        struct capstream *cs = mine ? find_stream(mine, s) : join(snap->c, s);
        if (!cs) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            for (int i = 0; i < snap->n && !r; i++)
                if (deps_add(&cs->deps, &cs->n, &cs->cap, &snap->deps[i]))
                    r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&cap_lock);
    return r;
}

/* ---- the rules ------------------------------------------------------------ */

CUresult emu_capture_refuse(struct emu_stream *s)
{
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    CUresult r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (c && c->invalid)
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    else if (c)
        invalidate(c);
    pthread_mutex_unlock(&cap_lock);
    return r;
}

CUresult emu_capture_unsafe(void)
{
    if (!atomic_load_explicit(&nactive, memory_order_acquire) || thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_SUCCESS;
    pthread_t self = pthread_self();
    int forbidden = 0;
    pthread_mutex_lock(&cap_lock);
    for (struct emu_capture *c = active; c; c = c->next) {
        if (c->mode == CU_STREAM_CAPTURE_MODE_RELAXED)
            continue;
        if (pthread_equal(c->thread, self) ||
            (thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            invalidate(c);
            forbidden = 1;
        }
    }
    pthread_mutex_unlock(&cap_lock);
    return forbidden ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* the captures of c's streams (blocking ones only: the legacy stream's) */
static int ctx_captures(struct emu_ctx *ctx, int blocking_only)
{
    int found = 0;
    for (struct emu_capture *c = active; c; c = c->next)
        for (int i = 0; i < c->ns; i++) {
            struct emu_stream *s = c->st[i].s;
            if (s->sctx == ctx && (!blocking_only || !(s->flags & CU_STREAM_NON_BLOCKING))) {
                invalidate(c);
                found = 1;
            }
        }
    return found;
}

static CUresult legacy_hook(struct emu_ctx *ctx)
{
    if (!atomic_load_explicit(&nactive, memory_order_acquire))
        return CUDA_SUCCESS;
    pthread_mutex_lock(&cap_lock);
    int found = ctx_captures(ctx, 1);
    pthread_mutex_unlock(&cap_lock);
    return found ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
}

static CUresult ctx_sync_hook(struct emu_ctx *ctx)
{
    if (!atomic_load_explicit(&nactive, memory_order_acquire))
        return CUDA_SUCCESS;
    pthread_mutex_lock(&cap_lock);
    int found = ctx_captures(ctx, 0);
    pthread_mutex_unlock(&cap_lock);
    return found ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

static void leave_hook(struct emu_stream *s)
{
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    struct capstream *cs = c ? find_stream(c, s) : NULL;
    if (cs && cs == &c->st[0]) { /* its origin: the capture cannot end well */
        struct emu_graph *g = c->g;
        int to_graph = c->to_graph;
        emu_obj_ref(&g->o);
        capture_end(c);
        emu_graph_lock();
        if (!to_graph)
            emu_graph_destroy_locked(g);
        emu_graph_unlock();
        emu_graph_put(g);
    } else if (cs) {
        atomic_store_explicit(&s->cap, NULL, memory_order_release);
        deps_clear(cs->deps, &cs->n);
        free(cs->deps);
        free(cs->out);
        free(cs->out_ed);
        *cs = c->st[--c->ns];
        emu_stream_put(s);
    }
    pthread_mutex_unlock(&cap_lock);
}

static const struct emu_capture_hooks hooks = {
    .refuse = emu_capture_refuse,
    .legacy = legacy_hook,
    .ctx_sync = ctx_sync_hook,
    .host = capture_host,
    .leave = leave_hook,
};

void emu_capture_init(void)
{
    emu_stream_capture_hooks(&hooks);
}

TD_EXPORT CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    EMU_INIT_OR_RETURN();
    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    int old = thread_mode;
    thread_mode = (int)*mode;
    *mode = (CUstreamCaptureMode)old;
    return CUDA_SUCCESS;
}

/* ---- begin and end ------------------------------------------------------------ */

/* the stream a capture call names (the legacy stream cannot capture) */
static CUresult cap_stream(CUstream h, int ptds, struct emu_stream **out)
{
    if (h == CU_STREAM_LEGACY || (!h && !ptds))
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return emu_stream_resolve(h, ptds, out);
}

static CUresult begin(CUstream h, int ptds, CUgraph hg, const CUgraphNode *deps, const CUgraphEdgeData *ed,
                      size_t ndeps, int mode)
{
    EMU_INIT_OR_RETURN();
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED || (!hg && ndeps))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = cap_stream(h, ptds, &s);
    if (r)
        return r;
    /* the graph: the program's (referenced), or a new one */
    struct emu_graph *g = NULL;
    if (hg)
        r = (g = emu_graph_get(hg)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    else if ((r = emu_graph_new(&g)) == CUDA_SUCCESS)
        emu_obj_ref(&g->o);
    struct emu_capture *c = r ? NULL : calloc(1, sizeof *c);
    if (!r && !c)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    struct gedge *d = NULL;
    pthread_mutex_lock(&cap_lock);
    if (!r && atomic_load(&s->cap))
        r = CUDA_ERROR_ILLEGAL_STATE;
    if (!r) {
        emu_graph_lock();
        r = g->capturing ? CUDA_ERROR_INVALID_VALUE : emu_graph_deps(g, deps, ed, ndeps, &d);
        if (!r)
            g->capturing++;
        emu_graph_unlock();
    }
    struct capstream *cs = NULL;
    if (!r) {
        atomic_init(&c->refs, 1);
        c->id = atomic_fetch_add(&next_id, 1);
        c->g = g; /* our reference */
        c->to_graph = hg != NULL;
        c->mode = mode;
        c->thread = pthread_self();
        if ((cs = join(c, s)) == NULL) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            emu_graph_lock();
            g->capturing--;
            emu_graph_unlock();
        }
        for (size_t i = 0; cs && i < ndeps; i++)
            deps_add(&cs->deps, &cs->n, &cs->cap, &d[i]);
    }
    if (cs) {
        c->next = active;
        active = c;
        atomic_fetch_add(&nactive, 1);
    }
    pthread_mutex_unlock(&cap_lock);
    free(d);
    if (r) {
        free(c ? c->st : NULL);
        free(c);
        if (g && !hg) {
            emu_graph_lock();
            emu_graph_destroy_locked(g);
            emu_graph_unlock();
        }
        emu_graph_put(g);
    }
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream)
{
    return begin(hStream, 0, NULL, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream)
{
    return begin(hStream, 1, NULL, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin(hStream, 0, NULL, NULL, NULL, 0, (int)mode);
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin(hStream, 1, NULL, NULL, NULL, 0, (int)mode);
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                                       const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                                       CUstreamCaptureMode mode)
{
    if (!hGraph)
        return CUDA_ERROR_INVALID_VALUE;
    return begin(hStream, 0, hGraph, dependencies, dependencyData, numDependencies, (int)mode);
}

TD_EXPORT CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
                                                            const CUgraphNode *dependencies,
                                                            const CUgraphEdgeData *dependencyData,
                                                            size_t numDependencies, CUstreamCaptureMode mode)
{
    if (!hGraph)
        return CUDA_ERROR_INVALID_VALUE;
    return begin(hStream, 1, hGraph, dependencies, dependencyData, numDependencies, (int)mode);
}

/* whether every node of every other stream's set reaches the origin's
 * set (cap_lock and the graph lock held) */
static int joined(struct emu_capture *c)
{
    struct emu_graph *g = c->g;
    for (int i = 0; i < g->n; i++)
        g->nodes[i]->mark = 0;
    /* mark the origin's set and everything it depends on */
    struct gnode **stack = malloc(((size_t)g->n + 1) * sizeof *stack);
    if (!stack)
        return 1; /* cannot tell: let it through */
    int sp = 0;
    for (int i = 0; i < c->st[0].n; i++) {
        struct gnode *n = c->st[0].deps[i].n;
        if (n->g == g && !n->mark) {
            n->mark = 1;
            stack[sp++] = n;
        }
    }
    while (sp > 0) {
        struct gnode *n = stack[--sp];
        for (int k = 0; k < n->nin; k++)
            if (!n->in[k].n->mark) {
                n->in[k].n->mark = 1;
                stack[sp++] = n->in[k].n;
            }
    }
    free(stack);
    for (int s = 1; s < c->ns; s++)
        for (int i = 0; i < c->st[s].n; i++) {
            struct gnode *n = c->st[s].deps[i].n;
            if (n->g == g && !n->mark)
                return 0;
        }
    return 1;
}

static CUresult end(CUstream h, int ptds, CUgraph *out)
{
    EMU_INIT_OR_RETURN();
    struct emu_stream *s;
    CUresult r = cap_stream(h, ptds, &s);
    if (r)
        return r;
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    if (!c) {
        r = CUDA_ERROR_ILLEGAL_STATE;
    } else if (c->st[0].s != s) {
        invalidate(c);
        r = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    } else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
        r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    } else if (!out && !c->to_graph) {
        r = CUDA_ERROR_INVALID_VALUE;
    } else {
        struct emu_graph *g = c->g;
        int to_graph = c->to_graph;
        emu_graph_lock();
        if (c->invalid)
            r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        else if (!joined(c))
            r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
        emu_graph_unlock();
        emu_obj_ref(&g->o);
        capture_end(c);
        emu_graph_lock();
        if (r && !to_graph)
            emu_graph_destroy_locked(g);
        emu_graph_unlock();
        if (out)
            *out = r ? NULL : (CUgraph)g;
        emu_graph_put(g);
    }
    pthread_mutex_unlock(&cap_lock);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    return end(hStream, 0, phGraph);
}

TD_EXPORT CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    return end(hStream, 1, phGraph);
}

/* ---- queries -------------------------------------------------------------------- */

static CUresult info(CUstream h, int ptds, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                     const CUgraphNode **deps, const CUgraphEdgeData **ed, size_t *ndeps, int v3)
{
    EMU_INIT_OR_RETURN();
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s; /* the legacy stream: an error if a blocking stream captures */
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    struct capstream *cs = c ? find_stream(c, s) : NULL;
    if (!cs) {
        *status = CU_STREAM_CAPTURE_STATUS_NONE;
    } else {
        *status = c->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
        if (id)
            *id = c->id;
    }
    if (cs && !c->invalid) {
        if (graph)
            *graph = (CUgraph)c->g;
        if (deps || ed) {
            free(cs->out);
            free(cs->out_ed);
            cs->out = calloc((size_t)cs->n + 1, sizeof *cs->out);
            cs->out_ed = calloc((size_t)cs->n + 1, sizeof *cs->out_ed);
            if (!cs->out || !cs->out_ed) {
                r = CUDA_ERROR_OUT_OF_MEMORY;
            } else {
                int lossy = 0;
                for (int i = 0; i < cs->n; i++) {
                    cs->out[i] = (CUgraphNode)cs->deps[i].n;
                    cs->out_ed[i] = cs->deps[i].d;
                    lossy |= cs->deps[i].d.type || cs->deps[i].d.from_port || cs->deps[i].d.to_port;
                }
                if (deps)
                    *deps = cs->n ? cs->out : NULL;
                if (ed)
                    *ed = cs->n ? cs->out_ed : NULL;
                if (v3 && !ed && lossy)
                    r = CUDA_ERROR_LOSSY_QUERY;
            }
        }
        if (ndeps)
            *ndeps = (size_t)cs->n;
    }
    pthread_mutex_unlock(&cap_lock);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return info(hStream, 0, captureStatus, NULL, NULL, NULL, NULL, NULL, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return info(hStream, 1, captureStatus, NULL, NULL, NULL, NULL, NULL, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                  cuuint64_t *id_out)
{
    return info(hStream, 0, captureStatus_out, id_out, NULL, NULL, NULL, NULL, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                       cuuint64_t *id_out)
{
    return info(hStream, 1, captureStatus_out, id_out, NULL, NULL, NULL, NULL, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                     cuuint64_t *id_out, CUgraph *graph_out,
                                                     const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{
    return info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                          cuuint64_t *id_out, CUgraph *graph_out,
                                                          const CUgraphNode **dependencies_out,
                                                          size_t *numDependencies_out)
{
    return info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                     cuuint64_t *id_out, CUgraph *graph_out,
                                                     const CUgraphNode **dependencies_out,
                                                     const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                numDependencies_out, 1);
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                                          cuuint64_t *id_out, CUgraph *graph_out,
                                                          const CUgraphNode **dependencies_out,
                                                          const CUgraphEdgeData **edgeData_out,
                                                          size_t *numDependencies_out)
{
    return info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                numDependencies_out, 1);
}

static CUresult update_deps(CUstream h, int ptds, CUgraphNode *deps, const CUgraphEdgeData *ed, size_t n,
                            unsigned flags)
{
    EMU_INIT_OR_RETURN();
    if (flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES || (n && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    pthread_mutex_lock(&cap_lock);
    struct emu_capture *c = atomic_load(&s->cap);
    struct capstream *cs = c ? find_stream(c, s) : NULL;
    if (!cs) {
        r = CUDA_ERROR_ILLEGAL_STATE;
    } else if (c->invalid) {
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else {
        struct gedge *d;
        emu_graph_lock();
        r = emu_graph_deps(c->g, deps, ed, n, &d);
        emu_graph_unlock();
        if (r == CUDA_SUCCESS) {
            if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES)
                deps_clear(cs->deps, &cs->n);
            for (size_t i = 0; i < n && !r; i++)
                if (deps_add(&cs->deps, &cs->n, &cs->cap, &d[i]))
                    r = CUDA_ERROR_OUT_OF_MEMORY;
            free(d);
        }
    }
    pthread_mutex_unlock(&cap_lock);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                             size_t numDependencies, unsigned int flags)
{
    return update_deps(hStream, 0, dependencies, NULL, numDependencies, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                                  size_t numDependencies, unsigned int flags)
{
    return update_deps(hStream, 1, dependencies, NULL, numDependencies, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                                                const CUgraphEdgeData *dependencyData,
                                                                size_t numDependencies, unsigned int flags)
{
    return update_deps(hStream, 0, dependencies, dependencyData, numDependencies, flags);
}

TD_EXPORT CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                                     const CUgraphEdgeData *dependencyData,
                                                                     size_t numDependencies, unsigned int flags)
{
    return update_deps(hStream, 1, dependencies, dependencyData, numDependencies, flags);
}
