/* SPDX-License-Identifier: Apache-2.0 */
/* Executable graphs: instantiate, launch, upload, update, the parameters
 * of their nodes, destroy.
 *
 * Instantiation copies the graph into a plan: its nodes in an order that
 * follows every edge, each with its own copy of the parameters; a child
 * graph node holds its child's plan, a conditional node its bodies'.
 * A launch turns the plan into stream operations, queued on the launch
 * stream in that order, so every edge is respected (independent branches
 * run one after the other: an order the graph allows). The stream's
 * rules hold for them as for any work: the legacy stream's implicit
 * synchronisation, a faulted context running no more device work, events
 * and synchronisation. A launch is ordered after the previous launch of
 * the same executable graph, wherever that went.
 *
 * Event record and wait nodes are records and waits on the launch stream;
 * host nodes are host functions; allocation and free nodes put their
 * graph allocation in and out of the address map (graphmem.c); a
 * conditional node is an operation that reads its condition when the
 * stream reaches it and runs the chosen body's nodes right there, on the
 * stream's worker, as often as a WHILE asks. Kernels set conditions with
 * cudaGraphSetConditional (a builtin of the PTX engine, routed to the
 * executable graph's condition table).
 *
 * What a launch in flight uses stays: a plan is shared by reference and
 * copied before a change (cuGraphExec*SetParams, cuGraphExecUpdate) when
 * anything still holds it; the executable's resources (its conditions,
 * the user objects it holds) go when it is destroyed and every launch
 * has finished.
 *
 * Why one file of about 1,700 lines: the plan (struct plan, xnode, xres)
 * is what instantiation builds, a launch walks, the node-parameter setters
 * change and a whole-graph update rewrites; kept private here, no other
 * file can break its invariants (under the executable's lock).
 */
#include "graph.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- plans --------------------------------------------------------------- */

struct plan;

struct xnode {
    unsigned long long id;       /* the graph node it was made from */
    int ord;                     /* its place in its graph's node list */
    int type;
    int enabled;
    union gparams p;             /* own copy; GRAPH, CONDITIONAL: no graphs in it */
    struct plan *child;          /* GRAPH: the child's plan */
    struct plan **body;          /* CONDITIONAL: p.cond.size bodies */
    int nin;                     /* dependencies, as ords */
    int *in;
};

struct plan {
    atomic_int refs;             /* the top plan only: the executable, launches building, conditions running */
    int n;
    struct xnode *x;             /* in an order that follows every edge */
};

static void plan_free(struct plan *pl);

static void xnode_free(struct xnode *x)
{
    if (x->type == CU_GRAPH_NODE_TYPE_GRAPH) {
        plan_free(x->child);
    } else if (x->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
        for (unsigned i = 0; x->body && i < x->p.cond.size; i++)
            plan_free(x->body[i]);
        free(x->body);
        x->p.cond.size = 0;
    } else {
        emu_gparams_free(x->type, &x->p);
    }
    free(x->in);
}

static void plan_free(struct plan *pl)
{
    if (!pl)
        return;
    for (int i = 0; i < pl->n; i++)
        xnode_free(&pl->x[i]);
    free(pl->x);
    free(pl);
}

static void plan_put(struct plan *pl)
{
    if (pl && atomic_fetch_sub(&pl->refs, 1) == 1)
        plan_free(pl);
}

/* Node types a conditional body may hold, as the driver documents. */
static int body_type_ok(int type)
{
    return type == CU_GRAPH_NODE_TYPE_KERNEL || type == CU_GRAPH_NODE_TYPE_EMPTY ||
           type == CU_GRAPH_NODE_TYPE_GRAPH || type == CU_GRAPH_NODE_TYPE_MEMSET ||
           type == CU_GRAPH_NODE_TYPE_MEMCPY || type == CU_GRAPH_NODE_TYPE_CONDITIONAL;
}

struct build_err {
    CUgraphInstantiateResult result;
    struct gnode *node;
    char why[160];
};

/* The plan of g (graph lock held); in_body: g is a conditional's body (or
 * nested in one). */
static CUresult plan_build(struct emu_graph *g, int in_body, struct plan **out, struct build_err *err)
{
    struct gnode **order;
    CUresult r = emu_graph_topo(g, &order);
    if (r) {
        err->result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
        snprintf(err->why, sizeof err->why, "the graph has a cycle");
        return r;
    }
    struct plan *pl = calloc(1, sizeof *pl);
    if (!pl || !(pl->x = calloc((size_t)g->n + 1, sizeof *pl->x))) {
        free(pl);
        free(order);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    atomic_init(&pl->refs, 1);
    for (int i = 0; i < g->n; i++)
        g->nodes[i]->mark = i;
    for (int i = 0; i < g->n && !r; i++) {
        struct gnode *n = order[i];
        struct xnode *x = &pl->x[i];
        x->id = n->id;
        x->ord = n->mark;
        x->type = n->type;
        x->enabled = 1;
        pl->n = i + 1;
        if (n->nin && !(x->in = calloc((size_t)n->nin, sizeof *x->in))) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        x->nin = n->nin;
        for (int k = 0; k < n->nin; k++)
            x->in[k] = n->in[k].n->mark;
        if (in_body && !body_type_ok(n->type)) {
            err->result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
            err->node = n;
            snprintf(err->why, sizeof err->why, "a conditional node's body holds a node of type %d", n->type);
            r = CUDA_ERROR_NOT_SUPPORTED;
            break;
        }
        if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            r = plan_build(n->p.child, in_body, &x->child, err);
            for (int k = 0; k < g->n; k++) /* the child used the marks of its own nodes only */
                g->nodes[k]->mark = k;
        } else if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            x->p.cond = n->p.cond;
            x->p.cond.body = NULL;
            x->p.cond.body_handles = NULL;
            x->p.cond.size = 0;
            x->body = calloc(n->p.cond.size, sizeof *x->body);
            if (!x->body)
                r = CUDA_ERROR_OUT_OF_MEMORY;
            for (unsigned k = 0; !r && k < n->p.cond.size; k++) {
                r = plan_build(n->p.cond.body[k], 1, &x->body[k], err);
                if (!r)
                    x->p.cond.size = k + 1;
            }
        } else {
            r = emu_gparams_copy(n->type, &n->p, &x->p);
        }
    }
    free(order);
    if (r) {
        plan_free(pl);
        return r;
    }
    *out = pl;
    return CUDA_SUCCESS;
}

static CUresult plan_copy(const struct plan *src, struct plan **out);

static CUresult xnode_copy(const struct xnode *s, struct xnode *d)
{
    *d = *s;
    d->in = NULL;
    d->child = NULL;
    d->body = NULL;
    if (s->nin) {
        if (!(d->in = malloc((size_t)s->nin * sizeof *d->in)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(d->in, s->in, (size_t)s->nin * sizeof *d->in);
    }
    if (s->type == CU_GRAPH_NODE_TYPE_GRAPH)
        return plan_copy(s->child, &d->child);
    if (s->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
        d->p.cond.size = 0;
        if (!(d->body = calloc(s->p.cond.size, sizeof *d->body)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        for (unsigned k = 0; k < s->p.cond.size; k++) {
            CUresult r = plan_copy(s->body[k], &d->body[k]);
            if (r)
                return r;
            d->p.cond.size = k + 1;
        }
        return CUDA_SUCCESS;
    }
    return emu_gparams_copy(s->type, &s->p, &d->p);
}

static CUresult plan_copy(const struct plan *src, struct plan **out)
{
    struct plan *pl = calloc(1, sizeof *pl);
    if (!pl || !(pl->x = calloc((size_t)src->n + 1, sizeof *pl->x))) {
        free(pl);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    atomic_init(&pl->refs, 1);
    for (int i = 0; i < src->n; i++) {
        pl->n = i + 1;
        CUresult r = xnode_copy(&src->x[i], &pl->x[i]);
        if (r) {
            plan_free(pl);
            return r;
        }
    }
    *out = pl;
    return CUDA_SUCCESS;
}

/* the node of id in pl or the plans nested in it */
static struct xnode *plan_find(struct plan *pl, unsigned long long id)
{
    for (int i = 0; i < pl->n; i++) {
        struct xnode *x = &pl->x[i];
        if (x->id == id)
            return x;
        struct xnode *f = NULL;
        if (x->type == CU_GRAPH_NODE_TYPE_GRAPH)
            f = plan_find(x->child, id);
        for (unsigned k = 0; !f && x->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && k < x->p.cond.size; k++)
            f = plan_find(x->body[k], id);
        if (f)
            return f;
    }
    return NULL;
}

/* ---- what an executable holds while it and its launches last --------------- */

struct xcond {                    /* one conditional handle's value */
    CUgraphConditionalHandle h;
    unsigned dflt, flags;
    _Atomic unsigned value;
};

struct xres {
    atomic_int refs;              /* the executable, each launch until it ends */
    int ncond;
    struct xcond *cond;
    int nuref;
    struct guref *uref;
    struct gmem **mem;            /* the allocation nodes' memory (held by the plans too) */
    int nmem;
    struct emu_graph *src;        /* the graph it was made from (referenced) */
    int limited;                  /* src counted this one in ->execs */
};

static void xres_put(struct xres *x)
{
    if (!x || atomic_fetch_sub(&x->refs, 1) != 1)
        return;
    for (int i = 0; i < x->nuref; i++)
        emu_uobj_unhold(x->uref[i].u, x->uref[i].count);
    for (int i = 0; i < x->nmem; i++)
        emu_gmem_put(x->mem[i]);
    if (x->limited) {
        emu_graph_lock();
        x->src->execs--;
        emu_graph_unlock();
    }
    emu_graph_put(x->src);
    free(x->cond);
    free(x->uref);
    free(x->mem);
    free(x);
}

static int set_cond(void *cookie, uint64_t h, unsigned value)
{
    struct xres *x = cookie;
    for (int i = 0; i < x->ncond; i++)
        if (x->cond[i].h == h) {
            atomic_store_explicit(&x->cond[i].value, value, memory_order_release);
            return 0;
        }
    return -1;
}

static struct xcond *find_cond(struct xres *x, uint64_t h)
{
    for (int i = 0; i < x->ncond; i++)
        if (x->cond[i].h == h)
            return &x->cond[i];
    return NULL;
}

/* the handles, user objects and allocation memory of g and the graphs
 * nested in it (graph lock held) */
static CUresult collect(struct emu_graph *g, struct xres *x)
{
    for (int i = 0; i < g->ncond; i++) {
        struct xcond *c = realloc(x->cond, (size_t)(x->ncond + 1) * sizeof *c);
        if (!c)
            return CUDA_ERROR_OUT_OF_MEMORY;
        x->cond = c;
        c[x->ncond].h = g->cond[i].h;
        c[x->ncond].dflt = g->cond[i].dflt;
        c[x->ncond].flags = g->cond[i].flags;
        atomic_init(&c[x->ncond].value, g->cond[i].dflt);
        x->ncond++;
    }
    for (int i = 0; i < g->nuref; i++) {
        struct guref *u = realloc(x->uref, (size_t)(x->nuref + 1) * sizeof *u);
        if (!u)
            return CUDA_ERROR_OUT_OF_MEMORY;
        x->uref = u;
        u[x->nuref++] = g->uref[i];
        emu_uobj_hold(g->uref[i].u, g->uref[i].count);
    }
    for (int i = 0; i < g->n; i++) {
        struct gnode *n = g->nodes[i];
        CUresult r = CUDA_SUCCESS;
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
            struct gmem **m = realloc(x->mem, (size_t)(x->nmem + 1) * sizeof *m);
            if (!m)
                return CUDA_ERROR_OUT_OF_MEMORY;
            x->mem = m;
            emu_gmem_ref(n->p.alloc.m);
            m[x->nmem++] = n->p.alloc.m;
        } else if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            r = collect(n->p.child, x);
        } else if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            for (unsigned k = 0; k < n->p.cond.size && !r; k++)
                r = collect(n->p.cond.body[k], x);
        }
        if (r)
            return r;
    }
    return CUDA_SUCCESS;
}

/* whether the graph frees allocation m itself */
static int plan_frees(const struct plan *pl, uintptr_t va)
{
    for (int i = 0; i < pl->n; i++) {
        const struct xnode *x = &pl->x[i];
        if (x->type == CU_GRAPH_NODE_TYPE_MEM_FREE && x->p.free == va)
            return 1;
        if (x->type == CU_GRAPH_NODE_TYPE_GRAPH && plan_frees(x->child, va))
            return 1;
    }
    return 0;
}

static void plan_note_frees(const struct plan *pl)
{
    for (int i = 0; i < pl->n; i++) {
        const struct xnode *x = &pl->x[i];
        if (x->type == CU_GRAPH_NODE_TYPE_MEM_FREE && x->enabled)
            emu_gmem_note_free((uintptr_t)x->p.free);
        if (x->type == CU_GRAPH_NODE_TYPE_GRAPH)
            plan_note_frees(x->child);
    }
}

/* ---- executable graphs ------------------------------------------------------- */

struct emu_gexec {
    struct emu_obj o;             /* EMU_T_GEXEC */
    pthread_mutex_t lock;         /* everything below; held through a launch */
    struct plan *plan;            /* referenced */
    struct xres *res;             /* referenced */
    unsigned long long flags;
    struct emu_stream *last;      /* where the previous launch's last operation went (referenced) */
    uint64_t last_seq;
};

static void gexec_release(struct emu_obj *o)
{
    struct emu_gexec *e = (struct emu_gexec *)o;
    plan_put(e->plan);
    xres_put(e->res);
    emu_stream_put(e->last);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static struct emu_gexec *gexec_get(CUgraphExec h)
{
    return emu_obj_get(h, EMU_T_GEXEC);
}

static void gexec_put(struct emu_gexec *e)
{
    if (e)
        emu_obj_put(&e->o);
}

#define INST_FLAGS (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | \
                    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)

static CUresult upload(struct emu_gexec *e, CUstream hs, int ptds);

static CUresult instantiate(CUgraphExec *out, CUgraph hg, unsigned long long flags, CUstream upstream,
                            struct build_err *err)
{
    memset(err, 0, sizeof *err);
    err->result = CUDA_GRAPH_INSTANTIATE_ERROR;
    EMU_INIT_OR_RETURN();
    if (!out || (flags & ~(unsigned long long)INST_FLAGS))
        return CUDA_ERROR_INVALID_VALUE;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
        /* kernels that launch graphs need device-side graph launch, which
         * the PTX engine does not have */
        err->result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
        snprintf(err->why, sizeof err->why, "device launch of graphs is not emulated");
        static const char msg[] = "tdtrace-emu: cuGraphInstantiate: CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: "
                                  "launching graphs from the device is not emulated (CUDA_ERROR_NOT_SUPPORTED)\n";
        emu_report(msg, sizeof msg - 1);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    struct emu_graph *g = emu_graph_get(hg);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_gexec *e = calloc(1, sizeof *e);
    struct xres *x = calloc(1, sizeof *x);
    CUresult r = e && x ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    emu_graph_lock();
    /* graphs with allocation, free or conditional nodes: one executable at a time */
    int limited = emu_graph_has(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC) || emu_graph_has(g, CU_GRAPH_NODE_TYPE_MEM_FREE) ||
                  emu_graph_has(g, CU_GRAPH_NODE_TYPE_CONDITIONAL);
    if (!r && g->owner) {
        r = CUDA_ERROR_INVALID_VALUE; /* a child or body graph: instantiate its owner */
        snprintf(err->why, sizeof err->why, "the graph belongs to a node");
    }
    if (!r && limited && g->execs > 0) {
        r = CUDA_ERROR_INVALID_VALUE;
        snprintf(err->why, sizeof err->why,
                 "a graph with allocation, free or conditional nodes may have one executable graph at a time");
    }
    if (!r)
        r = plan_build(g, 0, &e->plan, err);
    if (!r) {
        atomic_init(&x->refs, 1);
        emu_obj_ref(&g->o);
        x->src = g;
        r = collect(g, x);
        if (!r && limited) {
            x->limited = 1;
            g->execs++;
        }
    }
    emu_graph_unlock();
    emu_graph_put(g);
    if (r) {
        if (e)
            plan_put(e->plan);
        free(e);
        if (x && atomic_load(&x->refs))
            xres_put(x);
        else
            free(x);
        return r;
    }
    emu_obj_init(&e->o, EMU_T_GEXEC, NULL, gexec_release);
    pthread_mutex_init(&e->lock, NULL);
    e->res = x;
    e->flags = flags;
    emu_obj_register(&e->o);
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
        r = upload(e, upstream, 0);
        if (r) {
            if (emu_obj_unregister(&e->o))
                gexec_put(e);
            return r;
        }
    }
    err->result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    *out = (CUgraphExec)e;
    return CUDA_SUCCESS;
}

static CUresult instantiate_log(CUgraphExec *out, CUgraph hg, CUgraphNode *errnode, char *log, size_t logsize)
{
    struct build_err err;
    CUresult r = instantiate(out, hg, 0, NULL, &err);
    if (errnode)
        *errnode = (CUgraphNode)err.node;
    if (log && logsize)
        snprintf(log, logsize, "%s", r ? err.why : "");
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                              char *logBuffer, size_t bufferSize)
{
    return instantiate_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

TD_EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                                 char *logBuffer, size_t bufferSize)
{
    return instantiate_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

TD_EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    struct build_err err;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) /* only with cuGraphInstantiateWithParams */
        return CUDA_ERROR_INVALID_VALUE;
    return instantiate(phGraphExec, hGraph, flags, NULL, &err);
}

static CUresult instantiate_params(CUgraphExec *out, CUgraph hg, CUDA_GRAPH_INSTANTIATE_PARAMS *p, int ptds)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    struct build_err err;
    CUstream up = p->hUploadStream;
    if (!up && ptds)
        up = CU_STREAM_PER_THREAD;
    CUresult r = instantiate(out, hg, p->flags, up, &err);
    p->hErrNode_out = (CUgraphNode)err.node;
    p->result_out = err.result;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                        CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_params(phGraphExec, hGraph, instantiateParams, 0);
}

TD_EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                             CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_params(phGraphExec, hGraph, instantiateParams, 1);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags)
{
    EMU_INIT_OR_RETURN();
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_gexec *e = gexec_get(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = e->flags;
    gexec_put(e);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    int mine = emu_obj_unregister(&e->o);
    gexec_put(e);
    if (mine)
        gexec_put(e); /* launches in flight hold what they use */
    return mine ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- the operations of a launch ------------------------------------------------ */

struct host_op {
    struct emu_op op;
    CUDA_HOST_NODE_PARAMS p;
};

/* a host node: not called once the context has faulted (as a host function) */
static void run_host(struct emu_op *op)
{
    struct host_op *h = (struct host_op *)op;
    if (!emu_ctx_sticky(op->stream->sctx))
        h->p.fn(h->p.userData);
}

struct mem_op {                   /* allocation and free nodes */
    struct emu_op op;
    struct gmem *m;               /* allocation: referenced */
    struct emu_ctx *ctx;          /* referenced */
    uintptr_t va;                 /* free */
};

/* out of the map: free again; released: the memory may go */
static void gmem_gone(void *cookie, int final)
{
    if (final)
        emu_gmem_put(cookie);
    else
        emu_gmem_freed(cookie);
}

static void run_alloc(struct emu_op *op)
{
    struct mem_op *a = (struct mem_op *)op;
    if (emu_gmem_alloced(a->m)) {
        static const char msg[] = "tdtrace-emu: graph allocation node: its memory is still allocated from an "
                                  "earlier launch\n";
        emu_report(msg, sizeof msg - 1);
        return;
    }
    CUresult r = emu_mem_adopt(a->ctx, a->m->va, a->m->size, EMU_MEM_DEVICE, gmem_gone, a->m);
    if (r) {
        emu_gmem_freed(a->m);
        emu_gmem_put(a->m); /* the allocation's reference: there is none */
        char text[160];
        int n = snprintf(text, sizeof text, "tdtrace-emu: graph allocation node: %zu bytes: out of memory\n",
                         a->m->size);
        emu_report(text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
        emu_ctx_fail(a->ctx, CUDA_ERROR_OUT_OF_MEMORY);
    }
}

static void run_free(struct emu_op *op)
{
    struct mem_op *f = (struct mem_op *)op;
    if (emu_mem_release(f->va, 1u << EMU_MEM_DEVICE)) {
        char text[160];
        int n = snprintf(text, sizeof text, "tdtrace-emu: graph free node: 0x%llx is not allocated\n",
                         (unsigned long long)f->va);
        emu_report(text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
    }
}

static void fini_mem(struct emu_op *op)
{
    struct mem_op *a = (struct mem_op *)op;
    if (a->m)
        emu_gmem_put(a->m);
    emu_ctx_put(a->ctx);
}

/* the node's operations, as memop.c runs stream memory operations */
static CUresult memop_make(const struct gmemop *p, struct emu_op **out)
{
    struct emu_ctx *ctx = emu_obj_get(p->ctx, EMU_T_CTX);
    if (!ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = emu_memop_make(ctx, p->ops, p->count, 1, 1, out);
    emu_ctx_put(ctx);
    return r;
}

/* ---- conditional nodes ---------------------------------------------------------- */

struct cond_op {
    struct emu_op op;
    struct plan *plan;            /* the launch's plan, referenced: x is in it */
    const struct xnode *x;
    struct xres *res;             /* referenced */
    struct emu_ctx *ctx;          /* referenced */
};

static CUresult node_op(const struct xnode *x, struct emu_ctx *c, struct xres *res, struct emu_op **out);
static void run_cond_node(const struct xnode *x, struct emu_ctx *c, struct xres *res, struct emu_stream *s);

/* runs a body's nodes here, in order (the worker of the launch stream) */
static void run_plan_here(const struct plan *pl, struct emu_ctx *c, struct xres *res, struct emu_stream *s)
{
    for (int i = 0; i < pl->n && !emu_ctx_sticky(c); i++) {
        const struct xnode *x = &pl->x[i];
        if (!x->enabled)
            continue;
        if (x->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            run_plan_here(x->child, c, res, s);
            continue;
        }
        if (x->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            run_cond_node(x, c, res, s);
            continue;
        }
        struct emu_op *op = NULL;
        CUresult r = node_op(x, c, res, &op);
        if (r) {
            char text[200];
            int n = snprintf(text, sizeof text, "tdtrace-emu: a conditional node's body: a node of type %d "
                             "cannot run (CUresult %d)\n", x->type, (int)r);
            emu_report(text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
            emu_ctx_fail(c, CUDA_ERROR_LAUNCH_FAILED);
            return;
        }
        if (!op)
            continue;
        op->stream = s;
        if (!op->device_work || !emu_ctx_sticky(c))
            op->run(op);
        if (op->fini)
            op->fini(op);
        free(op);
    }
}

/* a conditional node: its condition read now, the body it chooses run */
static void run_cond_node(const struct xnode *x, struct emu_ctx *ctx, struct xres *res, struct emu_stream *s)
{
    struct xcond *c = find_cond(res, x->p.cond.h);
    if (!c)
        return;
    unsigned v = atomic_load_explicit(&c->value, memory_order_acquire);
    switch (x->p.cond.type) {
    case CU_GRAPH_COND_TYPE_IF:
        if (v)
            run_plan_here(x->body[0], ctx, res, s);
        else if (x->p.cond.size == 2)
            run_plan_here(x->body[1], ctx, res, s);
        break;
    case CU_GRAPH_COND_TYPE_WHILE:
        while (atomic_load_explicit(&c->value, memory_order_acquire) && !emu_ctx_sticky(ctx))
            run_plan_here(x->body[0], ctx, res, s);
        break;
    case CU_GRAPH_COND_TYPE_SWITCH:
        if (v < x->p.cond.size)
            run_plan_here(x->body[v], ctx, res, s);
        break;
    default:
        break;
    }
}

static void run_cond(struct emu_op *op)
{
    struct cond_op *k = (struct cond_op *)op;
    run_cond_node(k->x, k->ctx, k->res, op->stream);
}

static void fini_cond(struct emu_op *op)
{
    struct cond_op *k = (struct cond_op *)op;
    plan_put(k->plan);
    xres_put(k->res);
    emu_ctx_put(k->ctx);
}

/* ---- making operations -------------------------------------------------------- */

/* The operation of node x, or *out NULL for nothing to do; not for
 * GRAPH, EVENT_RECORD, WAIT_EVENT and CONDITIONAL nodes (the launch
 * handles those). c: the launch stream's context. */
static CUresult node_op(const struct xnode *x, struct emu_ctx *c, struct xres *res, struct emu_op **out)
{
    *out = NULL;
    switch (x->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        const struct gkernel *k = &x->p.kernel;
        struct emu_ctx *kc = k->ctx ? emu_obj_get(k->ctx, EMU_T_CTX) : NULL;
        if (k->ctx && !kc)
            return CUDA_ERROR_INVALID_CONTEXT;
        /* its cluster: the node's attribute, else the kernel's own */
        struct emu_cluster cl = { 0, { 0, 0, 0 }, 0 };
        const CUlaunchAttributeValue *cd = &k->attr[CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION];
        if ((k->attr_set >> CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) & 1)
            cl = (struct emu_cluster){ 1, { cd->clusterDim.x, cd->clusterDim.y, cd->clusterDim.z }, 0 };
        CUresult r = emu_kernel_op(k->func ? k->func : (CUfunction)k->kern, kc ? kc : c, k->grid, k->block,
                                   k->shmem, k->args.ptrs, &cl, out);
        emu_ctx_put(kc);
        if (r == CUDA_SUCCESS)
            emu_launch_cond(*out, set_cond, res);
        return r;
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return emu_copy3d_op(&x->p.memcpy.p, out);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        const CUDA_MEMSET_NODE_PARAMS_v2 *m = &x->p.memset;
        return emu_memset_op(m->dst, m->height > 1 ? m->pitch : m->width * m->elementSize, m->value, m->elementSize,
                             m->width, m->height, out);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        struct host_op *h = emu_op_new(sizeof *h, run_host, NULL);
        if (!h)
            return CUDA_ERROR_OUT_OF_MEMORY;
        h->p = x->p.host;
        *out = &h->op;
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    case CU_GRAPH_NODE_TYPE_MEM_FREE: {
        int alloc = x->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
        struct mem_op *m = emu_op_new(sizeof *m, alloc ? run_alloc : run_free, fini_mem);
        if (!m)
            return CUDA_ERROR_OUT_OF_MEMORY;
        if (alloc) {
            m->m = x->p.alloc.m;
            emu_gmem_ref(m->m);
        }
        m->va = alloc ? 0 : (uintptr_t)x->p.free;
        emu_obj_ref(&c->o);
        m->ctx = c;
        *out = &m->op;
        return CUDA_SUCCESS;
    }
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return memop_make(&x->p.memop, out);
    default:
        return CUDA_SUCCESS;          /* empty */
    }
}

static CUresult cond_make(struct plan *top, const struct xnode *x, struct emu_ctx *c, struct xres *res,
                          struct emu_op **out)
{
    struct cond_op *k = emu_op_new(sizeof *k, run_cond, fini_cond);
    if (!k)
        return CUDA_ERROR_OUT_OF_MEMORY;
    k->op.device_work = 1;
    atomic_fetch_add(&top->refs, 1);
    k->plan = top;
    k->x = x;
    atomic_fetch_add(&res->refs, 1);
    k->res = res;
    emu_obj_ref(&c->o);
    k->ctx = c;
    *out = &k->op;
    return CUDA_SUCCESS;
}

/* ---- launches ---------------------------------------------------------------------- */

/* One entry of a launch's sequence: an operation, or an event node's
 * record or wait (done at its place in the order). */
struct step {
    struct emu_op *op;
    struct emu_obj *event;        /* referenced */
    int wait;
};

struct seq {
    int n, cap;
    struct step *s;
};

static int seq_add(struct seq *q, struct emu_op *op, struct emu_obj *event, int wait)
{
    if (q->n == q->cap) {
        int nc = q->cap ? q->cap * 2 : 16;
        struct step *p = realloc(q->s, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        q->s = p;
        q->cap = nc;
    }
    if (event)
        emu_obj_ref(event);
    q->s[q->n++] = (struct step){ op, event, wait };
    return 0;
}

static void seq_free(struct seq *q, int from)
{
    for (int i = from; i < q->n; i++) {
        struct emu_op *op = q->s[i].op;
        if (op) {
            if (op->fini)
                op->fini(op);
            free(op->deps);
            free(op);
        }
        if (q->s[i].event)
            emu_obj_put(q->s[i].event);
    }
    free(q->s);
}

/* the operations of pl, in order (child graphs expanded) */
static CUresult plan_ops(struct plan *top, const struct plan *pl, struct emu_ctx *c, struct xres *res,
                         struct seq *q)
{
    for (int i = 0; i < pl->n; i++) {
        const struct xnode *x = &pl->x[i];
        if (!x->enabled)
            continue;
        CUresult r = CUDA_SUCCESS;
        struct emu_op *op = NULL;
        switch (x->type) {
        case CU_GRAPH_NODE_TYPE_GRAPH:
            r = plan_ops(top, x->child, c, res, q);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            if (seq_add(q, NULL, x->p.event, x->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT))
                r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            r = cond_make(top, x, c, res, &op);
            break;
        default:
            r = node_op(x, c, res, &op);
            break;
        }
        if (!r && op && seq_add(q, op, NULL, 0)) {
            if (op->fini)
                op->fini(op);
            free(op);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (r)
            return r;
    }
    return CUDA_SUCCESS;
}

/* the first operation of a launch: conditions with
 * CU_GRAPH_COND_ASSIGN_DEFAULT take their default value */
struct begin_op {
    struct emu_op op;
    struct xres *res;             /* referenced */
    int landed;                   /* the last: the launch's allocations are done with */
};

static void run_begin(struct emu_op *op)
{
    struct xres *x = ((struct begin_op *)op)->res;
    for (int i = 0; i < x->ncond; i++)
        if (x->cond[i].flags & CU_GRAPH_COND_ASSIGN_DEFAULT)
            atomic_store_explicit(&x->cond[i].value, x->cond[i].dflt, memory_order_release);
}

static void fini_begin(struct emu_op *op)
{
    struct begin_op *b = (struct begin_op *)op;
    for (int i = 0; b->landed && i < b->res->nmem; i++)
        emu_gmem_landed(b->res->mem[i]);
    xres_put(b->res);
}

/* the last: what the launch used is released when it is done */
static void run_nothing(struct emu_op *op)
{
    (void)op;
}

/* Queues the sequence on s after the executable's previous launch. The
 * caller holds e->lock. Takes q. */
static CUresult submit(struct emu_gexec *e, struct emu_stream *s, struct seq *q)
{
    CUresult r = CUDA_SUCCESS;
    uint64_t seq = 0;
    int i = 0;
    if (e->last && e->last != s && q->n > 0 && q->s[0].op && emu_op_dep(q->s[0].op, e->last, e->last_seq))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    for (; i < q->n && !r; i++) {
        struct step *st = &q->s[i];
        if (st->op) {
            r = emu_stream_submit(s, st->op, &seq);
            st->op = NULL; /* the stream's, also on error */
        } else {
            r = st->wait ? emu_event_wait_on(s, st->event) : emu_event_record_on(st->event, s);
            emu_obj_put(st->event); /* the sequence's reference: used */
            st->event = NULL;
        }
    }
    seq_free(q, 0); /* what was not queued */
    if (r == CUDA_SUCCESS && seq) {
        emu_obj_ref(&s->o);
        emu_stream_put(e->last);
        e->last = s;
        e->last_seq = seq;
    }
    return r;
}

/* An operation that holds the launch's resources until it ran */
static CUresult end_op(struct xres *res, struct emu_op **out)
{
    struct begin_op *b = emu_op_new(sizeof *b, run_nothing, fini_begin);
    if (!b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    atomic_fetch_add(&res->refs, 1);
    b->res = res;
    *out = &b->op;
    return CUDA_SUCCESS;
}

/* a launch's or upload's stream: a capturing stream cannot take one */
static CUresult launch_stream(CUstream hs, int ptds, struct emu_stream **out)
{
    CUresult r = emu_stream_resolve(hs, ptds, out);
    if (r == CUDA_SUCCESS && emu_capturing(*out)) {
        r = emu_capture_refuse(*out);
        emu_stream_put(*out);
    }
    return r;
}

static CUresult launch(CUgraphExec h, CUstream hs, int ptds)
{
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(h);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = launch_stream(hs, ptds, &s);
    if (r) {
        gexec_put(e);
        return r;
    }
    struct emu_ctx *c = s->sctx;
    struct seq q = { 0, 0, NULL };
    pthread_mutex_lock(&e->lock);
    struct xres *res = e->res;
    struct plan *pl = e->plan;
    /* allocations a previous launch made and nobody freed */
    for (int i = 0; i < res->nmem && !r; i++) {
        struct gmem *m = res->mem[i];
        if (!emu_gmem_pending(m))
            continue;
        if (!(e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)) {
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
        struct mem_op *f = emu_op_new(sizeof *f, run_free, fini_mem);
        if (!f || seq_add(&q, &f->op, NULL, 0)) {
            free(f);
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        f->va = m->va;
        emu_obj_ref(&c->o);
        f->ctx = c;
        emu_gmem_set_pending(m, 0);
    }
    struct begin_op *b = NULL;
    if (!r) {
        b = emu_op_new(sizeof *b, run_begin, fini_begin);
        if (!b || seq_add(&q, NULL, NULL, 0)) {
            free(b);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            /* the begin op goes first */
            memmove(&q.s[1], &q.s[0], (size_t)(q.n - 1) * sizeof *q.s);
            q.s[0] = (struct step){ &b->op, NULL, 0 };
            atomic_fetch_add(&res->refs, 1);
            b->res = res;
        }
    }
    if (!r)
        r = plan_ops(pl, pl, c, res, &q);
    struct emu_op *endop;
    if (!r && (r = end_op(res, &endop)) == CUDA_SUCCESS && seq_add(&q, endop, NULL, 0)) {
        fini_begin(endop);
        free(endop);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r) {
        seq_free(&q, 0);
    } else {
        /* in stream order, from here: the graph's allocations are
         * allocated unless it frees them itself; what it frees of other
         * graphs' allocations is not */
        plan_note_frees(pl);
        for (int i = 0; i < res->nmem; i++) {
            if (!plan_frees(pl, res->mem[i]->va))
                emu_gmem_set_pending(res->mem[i], 1);
            emu_gmem_launched(res->mem[i]);
        }
        ((struct begin_op *)endop)->landed = 1;
        r = submit(e, s, &q);
    }
    pthread_mutex_unlock(&e->lock);
    emu_stream_put(s);
    gexec_put(e);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    return launch(hGraphExec, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return launch(hGraphExec, hStream, 1);
}

/* Nothing to copy to an emulated device: an upload is its place in the
 * order, after the stream's work and the executable's launches. */
static CUresult upload(struct emu_gexec *e, CUstream hs, int ptds)
{
    struct emu_stream *s;
    CUresult r = launch_stream(hs, ptds, &s);
    if (r)
        return r;
    struct seq q = { 0, 0, NULL };
    struct emu_op *op;
    pthread_mutex_lock(&e->lock);
    r = end_op(e->res, &op);
    if (!r && seq_add(&q, op, NULL, 0)) {
        fini_begin(op);
        free(op);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!r)
        r = submit(e, s, &q);
    else
        seq_free(&q, 0);
    pthread_mutex_unlock(&e->lock);
    emu_stream_put(s);
    return r;
}

static CUresult upload_h(CUgraphExec h, CUstream hs, int ptds)
{
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(h);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = upload(e, hs, ptds);
    gexec_put(e);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
    return upload_h(hGraphExec, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return upload_h(hGraphExec, hStream, 1);
}

/* ---- the parameters of an executable graph's nodes ------------------------------ */

/* e's plan, its own to change: copied first if a launch in flight holds
 * it (e->lock held) */
static CUresult plan_mine(struct emu_gexec *e, struct plan **out)
{
    if (atomic_load(&e->plan->refs) > 1) {
        struct plan *c;
        CUresult r = plan_copy(e->plan, &c);
        if (r)
            return r;
        plan_put(e->plan);
        e->plan = c;
    }
    *out = e->plan;
    return CUDA_SUCCESS;
}

/* the node of e made from graph node hn, in e's own plan (e->lock held) */
static CUresult exec_node(struct emu_gexec *e, CUgraphNode hn, struct xnode **out)
{
    struct gnode *n = emu_gnode_get(hn);
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned long long id = n->id;
    emu_gnode_put(n);
    struct plan *pl;
    CUresult r = plan_mine(e, &pl);
    if (r)
        return r;
    *out = plan_find(pl, id);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static int one_dim_copy(const CUDA_MEMCPY3D *p)
{
    return p->Height <= 1 && p->Depth <= 1;
}

/* what an executable graph's node may not change, as the driver's
 * cuGraphExec*SetParams documents: memcpy and memset nodes stay 1-D, with
 * the same kinds of memory; nothing goes to zero length */
static int exec_change_ok(const struct xnode *x, const union gparams *p)
{
    switch (x->type) {
    case CU_GRAPH_NODE_TYPE_MEMCPY: {
        const CUDA_MEMCPY3D *a = &x->p.memcpy.p, *b = &p->memcpy.p;
        return one_dim_copy(a) && one_dim_copy(b) && b->WidthInBytes && a->srcMemoryType == b->srcMemoryType &&
               a->dstMemoryType == b->dstMemoryType;
    }
    case CU_GRAPH_NODE_TYPE_MEMSET:
        return x->p.memset.height == 1 && p->memset.height == 1;
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return x->p.kernel.ctx == p->kernel.ctx || x->p.kernel.func; /* a CUkernel stays in its context */
    default:
        return 1;
    }
}

static void xnode_set(struct xnode *x, union gparams *p)
{
    if (x->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        p->kernel.attr_set = x->p.kernel.attr_set;
        memcpy(p->kernel.attr, x->p.kernel.attr, sizeof p->kernel.attr);
    }
    emu_gparams_free(x->type, &x->p);
    x->p = *p;
}

static CUresult exec_set(CUgraphExec h, CUgraphNode hn, CUgraphNodeParams *np)
{
    EMU_INIT_OR_RETURN();
    union gparams p;
    CUresult r = emu_gnode_params(np, &p);
    if (r)
        return r;
    struct emu_gexec *e = gexec_get(h);
    r = e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    int taken = 0;
    if (!r) {
        pthread_mutex_lock(&e->lock);
        struct xnode *x;
        r = exec_node(e, hn, &x);
        if (!r && (x->type != (int)np->type || !exec_change_ok(x, &p)))
            r = CUDA_ERROR_INVALID_VALUE;
        if (!r) {
            xnode_set(x, &p);
            taken = 1;
        }
        pthread_mutex_unlock(&e->lock);
        gexec_put(e);
    }
    if (!taken) {
        emu_graph_lock();
        emu_gparams_free((int)np->type, &p);
        emu_graph_unlock();
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    return exec_set(hGraphExec, hNode, nodeParams);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                             const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_KERNEL;
    np.kernel = *nodeParams;
    return exec_set(hGraphExec, hNode, &np);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                          const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_KERNEL;
    np.kernel.func = nodeParams->func;
    np.kernel.gridDimX = nodeParams->gridDimX;
    np.kernel.gridDimY = nodeParams->gridDimY;
    np.kernel.gridDimZ = nodeParams->gridDimZ;
    np.kernel.blockDimX = nodeParams->blockDimX;
    np.kernel.blockDimY = nodeParams->blockDimY;
    np.kernel.blockDimZ = nodeParams->blockDimZ;
    np.kernel.sharedMemBytes = nodeParams->sharedMemBytes;
    np.kernel.kernelParams = nodeParams->kernelParams;
    np.kernel.extra = nodeParams->extra;
    return exec_set(hGraphExec, hNode, &np);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                          const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (!copyParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    np.memcpy.copyCtx = ctx;
    np.memcpy.copyParams = *copyParams;
    return exec_set(hGraphExec, hNode, &np);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                          const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    if (!memsetParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_MEMSET;
    np.memset.dst = memsetParams->dst;
    np.memset.pitch = memsetParams->pitch;
    np.memset.value = memsetParams->value;
    np.memset.elementSize = memsetParams->elementSize;
    np.memset.width = memsetParams->width;
    np.memset.height = memsetParams->height;
    np.memset.ctx = ctx;
    return exec_set(hGraphExec, hNode, &np);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                        const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_HOST;
    np.host = *nodeParams;
    return exec_set(hGraphExec, hNode, &np);
}

static CUresult exec_event(CUgraphExec h, CUgraphNode hn, CUevent ev, int type)
{
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = (CUgraphNodeType)type;
    if (type == CU_GRAPH_NODE_TYPE_EVENT_RECORD)
        np.eventRecord.event = ev;
    else
        np.eventWait.event = ev;
    return exec_set(h, hn, &np);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    return exec_event(hGraphExec, hNode, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    return exec_event(hGraphExec, hNode, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

TD_EXPORT CUresult CUDAAPI cuGraphExecBatchMemOpNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                              const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
    np.memOp = *nodeParams;
    return exec_set(hGraphExec, hNode, &np);
}

/* no executable graph holds an external semaphore node */
TD_EXPORT CUresult CUDAAPI cuGraphExecExternalSemaphoresSignalNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                                            const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    (void)hGraphExec, (void)hNode, (void)nodeParams;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecExternalSemaphoresWaitNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                                          const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    (void)hGraphExec, (void)hNode, (void)nodeParams;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---- enabling and disabling nodes ------------------------------------------------ */

static int can_disable(int type)
{
    return type == CU_GRAPH_NODE_TYPE_KERNEL || type == CU_GRAPH_NODE_TYPE_MEMCPY || type == CU_GRAPH_NODE_TYPE_MEMSET;
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&e->lock);
    struct xnode *x;
    CUresult r = exec_node(e, hNode, &x);
    if (!r && !can_disable(x->type))
        r = CUDA_ERROR_INVALID_VALUE;
    if (!r)
        x->enabled = isEnabled != 0;
    pthread_mutex_unlock(&e->lock);
    gexec_put(e);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
    EMU_INIT_OR_RETURN();
    if (!isEnabled)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_gexec *e = gexec_get(hGraphExec);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    struct gnode *n = emu_gnode_get(hNode);
    pthread_mutex_lock(&e->lock);
    struct xnode *x = n ? plan_find(e->plan, n->id) : NULL;
    CUresult r = x && can_disable(x->type) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (!r)
        *isEnabled = (unsigned)x->enabled;
    pthread_mutex_unlock(&e->lock);
    emu_gnode_put(n);
    gexec_put(e);
    return r;
}

/* ---- updates from a graph --------------------------------------------------------- */

struct update_err {
    CUgraphExecUpdateResult result;
    struct gnode *node, *from;
};

static int upd_fail(struct update_err *u, CUgraphExecUpdateResult res, struct gnode *n, struct gnode *from)
{
    u->result = res;
    u->node = n;
    u->from = from;
    return -1;
}

/* Whether graph g can update plan pl: the same nodes (paired by the order
 * they were added), the same edges, parameters changed only as an
 * executable graph allows (graph lock held). */
static int update_check(const struct plan *pl, struct emu_graph *g, struct xres *res, struct update_err *u)
{
    if (g->n != pl->n)
        return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, NULL, NULL);
    for (int i = 0; i < g->n; i++)
        g->nodes[i]->mark = i;
    for (int i = 0; i < pl->n; i++) {
        const struct xnode *x = &pl->x[i];
        struct gnode *n = g->nodes[x->ord];
        if (n->type != x->type)
            return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, n, NULL);
        if (n->nin != x->nin)
            return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, n, NULL);
        for (int k = 0; k < n->nin; k++) {
            int found = 0;
            for (int j = 0; j < x->nin && !found; j++)
                found = x->in[j] == n->in[k].n->mark;
            if (!found)
                return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, n, n->in[k].n);
        }
        const union gparams *a = &x->p, *b = &n->p;
        int ok = 1;
        switch (x->type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            if (a->kernel.kern && b->kernel.kern && a->kernel.ctx != b->kernel.ctx)
                return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE, n, NULL);
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            ok = a->memcpy.p.srcMemoryType == b->memcpy.p.srcMemoryType &&
                 a->memcpy.p.dstMemoryType == b->memcpy.p.dstMemoryType;
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            ok = (a->memset.height == 1 && b->memset.height == 1) ||
                 memcmp(&a->memset, &b->memset, sizeof a->memset) == 0;
            break;
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
            ok = a->alloc.m == b->alloc.m;
            break;
        case CU_GRAPH_NODE_TYPE_MEM_FREE:
            ok = a->free == b->free;
            break;
        case CU_GRAPH_NODE_TYPE_GRAPH: {
            int r = update_check(x->child, b->child, res, u);
            for (int k = 0; k < g->n; k++)
                g->nodes[k]->mark = k;
            if (r)
                return r;
            break;
        }
        case CU_GRAPH_NODE_TYPE_CONDITIONAL:
            ok = a->cond.h == b->cond.h && a->cond.type == b->cond.type && a->cond.size == b->cond.size &&
                 find_cond(res, b->cond.h);
            for (unsigned k = 0; ok && k < b->cond.size; k++) {
                int r = update_check(x->body[k], b->cond.body[k], res, u);
                for (int j = 0; j < g->n; j++)
                    g->nodes[j]->mark = j;
                if (r)
                    return r;
            }
            break;
        default:
            break;
        }
        if (!ok)
            return upd_fail(u, CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED, n, NULL);
    }
    return 0;
}

/* the new plan keeps the old one's node identities and enabled states */
static void update_carry(struct plan *nw, const struct plan *old)
{
    for (int i = 0; i < nw->n; i++) {
        struct xnode *y = &nw->x[i];
        const struct xnode *x = NULL;
        for (int k = 0; k < old->n && !x; k++)
            if (old->x[k].ord == y->ord)
                x = &old->x[k];
        if (!x)
            continue;
        y->id = x->id;
        y->enabled = x->enabled;
        if (y->type == CU_GRAPH_NODE_TYPE_GRAPH)
            update_carry(y->child, x->child);
        for (unsigned k = 0; y->type == CU_GRAPH_NODE_TYPE_CONDITIONAL && k < y->p.cond.size; k++)
            update_carry(y->body[k], x->body[k]);
        if (y->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            y->p.kernel.attr_set = x->p.kernel.attr_set;
            memcpy(y->p.kernel.attr, x->p.kernel.attr, sizeof y->p.kernel.attr);
        }
    }
}

/* Updates the plan *slot (the top plan, or a child graph node's) from g.
 * e->lock held. */
static CUresult update_plan(struct emu_gexec *e, struct plan **slot, struct emu_graph *g, int top, struct update_err *u)
{
    u->result = CU_GRAPH_EXEC_UPDATE_ERROR;
    u->node = u->from = NULL;
    struct plan *nw = NULL;
    struct build_err be;
    memset(&be, 0, sizeof be);
    emu_graph_lock();
    CUresult r = update_check(*slot, g, e->res, u) ? CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE : CUDA_SUCCESS;
    if (!r) {
        r = plan_build(g, 0, &nw, &be);
        if (r) {
            u->result = CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
            u->node = be.node;
            r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        }
    }
    emu_graph_unlock();
    if (r)
        return r;
    update_carry(nw, *slot);
    if (top) {
        plan_put(*slot);
    } else {
        atomic_init(&nw->refs, 1);
        plan_free(*slot);
    }
    *slot = nw;
    u->result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    return CUDA_SUCCESS;
}

static CUresult exec_update(CUgraphExec h, CUgraph hg, struct update_err *u)
{
    u->result = CU_GRAPH_EXEC_UPDATE_ERROR;
    u->node = u->from = NULL;
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(h);
    struct emu_graph *g = emu_graph_get(hg);
    CUresult r = e && g ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        pthread_mutex_lock(&e->lock);
        r = update_plan(e, &e->plan, g, 1, u);
        pthread_mutex_unlock(&e->lock);
    }
    emu_graph_put(g);
    gexec_put(e);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
    if (!resultInfo)
        return CUDA_ERROR_INVALID_VALUE;
    struct update_err u;
    CUresult r = exec_update(hGraphExec, hGraph, &u);
    resultInfo->result = u.result;
    resultInfo->errorNode = (CUgraphNode)u.node;
    resultInfo->errorFromNode = (CUgraphNode)u.from;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                             CUgraphExecUpdateResult *updateResult_out)
{
    if (!hErrorNode_out || !updateResult_out)
        return CUDA_ERROR_INVALID_VALUE;
    struct update_err u;
    CUresult r = exec_update(hGraphExec, hGraph, &u);
    *updateResult_out = u.result;
    *hErrorNode_out = (CUgraphNode)u.node;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph)
{
    EMU_INIT_OR_RETURN();
    struct emu_gexec *e = gexec_get(hGraphExec);
    struct emu_graph *g = emu_graph_get(childGraph);
    CUresult r = e && g ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        pthread_mutex_lock(&e->lock);
        struct xnode *x;
        r = exec_node(e, hNode, &x);
        if (!r && x->type != CU_GRAPH_NODE_TYPE_GRAPH)
            r = CUDA_ERROR_INVALID_VALUE;
        struct update_err u;
        if (!r && update_plan(e, &x->child, g, 0, &u))
            r = CUDA_ERROR_INVALID_VALUE; /* not the same topology */
        pthread_mutex_unlock(&e->lock);
    }
    emu_graph_put(g);
    gexec_put(e);
    return r;
}
