/* SPDX-License-Identifier: Apache-2.0 */
/* Graphs: creation and destruction, nodes and their dependency edges,
 * queries, clones, conditional handles and user objects; the node types
 * whose parameters need nothing from modules or memory (empty, host,
 * child graph, event record and wait). graphnode.c adds the others;
 * graphexec.c turns a graph into an executable graph.
 *
 * Why one file of about 1,200 lines: graphs, nodes and edges share the one
 * graph lock and its invariants (an edge's two ends in one graph, a node
 * in exactly one graph); the node types that need modules or memory are
 * in graphnode.c, user objects in uobj.c.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ullong next_id = 1;

void emu_graph_lock(void) { pthread_mutex_lock(&glock); }
void emu_graph_unlock(void) { pthread_mutex_unlock(&glock); }

struct emu_graph *emu_graph_get(CUgraph h) { return emu_obj_get(h, EMU_T_GRAPH); }
struct gnode *emu_gnode_get(CUgraphNode h) { return emu_obj_get(h, EMU_T_GNODE); }

void emu_graph_put(struct emu_graph *g)
{
    if (g)
        emu_obj_put(&g->o);
}

void emu_gnode_put(struct gnode *n)
{
    if (n)
        emu_obj_put(&n->o);
}

/* ---- kernel arguments ------------------------------------------------ */

void emu_kargs_free(struct emu_kargs *a)
{
    free(a->buf);
    free(a->off);
    free(a->ptrs);
    memset(a, 0, sizeof *a);
}

CUresult emu_kargs_copy(const struct emu_kargs *src, struct emu_kargs *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->n = src->n;
    dst->bytes = src->bytes;
    dst->buf = malloc(src->bytes ? src->bytes : 1);
    dst->off = calloc((size_t)src->n + 1, sizeof *dst->off);
    dst->ptrs = calloc((size_t)src->n + 1, sizeof *dst->ptrs);
    if (!dst->buf || !dst->off || !dst->ptrs) {
        emu_kargs_free(dst);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (src->bytes)
        memcpy(dst->buf, src->buf, src->bytes);
    for (int i = 0; i < src->n; i++) {
        dst->off[i] = src->off[i];
        dst->ptrs[i] = dst->buf + src->off[i];
    }
    return CUDA_SUCCESS;
}

/* ---- graphs and nodes ------------------------------------------------- */

static void graph_release(struct emu_obj *o)
{
    struct emu_graph *g = (struct emu_graph *)o;
    free(g->nodes);
    free(g->cond);
    free(g->uref);
    free(g);
}

static void gnode_release(struct emu_obj *o)
{
    struct gnode *n = (struct gnode *)o;
    free(n->in);
    free(n->out);
    free(n);
}

CUresult emu_graph_new(struct emu_graph **out)
{
    struct emu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_obj_init(&g->o, EMU_T_GRAPH, NULL, graph_release);
    g->id = atomic_fetch_add(&next_id, 1);
    emu_obj_register(&g->o);
    *out = g;
    return CUDA_SUCCESS;
}

static int grow(void **arr, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 4;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

static void edge_remove(struct gedge *e, int *n, const struct gnode *x)
{
    for (int i = 0; i < *n; i++)
        if (e[i].n == x) {
            memmove(&e[i], &e[i + 1], (size_t)(*n - i - 1) * sizeof *e);
            (*n)--;
            return;
        }
}

static void node_destroy_locked(struct gnode *n)
{
    struct emu_graph *g = n->g;
    for (int i = 0; i < n->nin; i++)
        edge_remove(n->in[i].n->out, &n->in[i].n->nout, n);
    for (int i = 0; i < n->nout; i++)
        edge_remove(n->out[i].n->in, &n->out[i].n->nin, n);
    n->nin = n->nout = 0;
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i] == n) {
            memmove(&g->nodes[i], &g->nodes[i + 1], (size_t)(g->n - i - 1) * sizeof *g->nodes);
            g->n--;
            break;
        }
    emu_gparams_free(n->type, &n->p);
    n->g = NULL;
    if (emu_obj_unregister(&n->o))
        emu_gnode_put(n);
}

void emu_graph_destroy_locked(struct emu_graph *g)
{
    while (g->n > 0) {
        struct gnode *n = g->nodes[g->n - 1];
        g->n--;
        emu_gparams_free(n->type, &n->p);
        n->g = NULL;
        n->nin = n->nout = 0;
        if (emu_obj_unregister(&n->o))
            emu_gnode_put(n);
    }
    for (int i = 0; i < g->nuref; i++)
        emu_uobj_unhold(g->uref[i].u, g->uref[i].count);
    g->nuref = 0;
    g->owner = NULL;
    if (emu_obj_unregister(&g->o))
        emu_graph_put(g);
}

struct emu_graph *emu_graph_root(struct emu_graph *g)
{
    while (g->owner && g->owner->g)
        g = g->owner->g;
    return g;
}

const struct gcond *emu_graph_cond(struct emu_graph *g, CUgraphConditionalHandle h)
{
    for (;;) {
        for (int i = 0; i < g->ncond; i++)
            if (g->cond[i].h == h)
                return &g->cond[i];
        if (!g->owner || !g->owner->g)
            return NULL;
        g = g->owner->g;
    }
}

int emu_graph_has(const struct emu_graph *g, int type)
{
    for (int i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        if (n->type == type)
            return 1;
        if (n->type == CU_GRAPH_NODE_TYPE_GRAPH && emu_graph_has(n->p.child, type))
            return 1;
        if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            for (unsigned k = 0; k < n->p.cond.size; k++)
                if (emu_graph_has(n->p.cond.body[k], type))
                    return 1;
    }
    return 0;
}

static int edge_valid(const CUgraphEdgeData *d, const struct gnode *from)
{
    for (int i = 0; i < 5; i++)
        if (d->reserved[i])
            return 0;
    if (d->to_port != 0)
        return 0;
    if (d->type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT && d->type != CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
        return 0;
    if (d->from_port > CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER)
        return 0;
    /* only kernel nodes have ports and programmatic dependencies */
    if ((d->from_port || d->type) && from->type != CU_GRAPH_NODE_TYPE_KERNEL)
        return 0;
    return 1;
}

CUresult emu_graph_deps(struct emu_graph *g, const CUgraphNode *deps, const CUgraphEdgeData *ed,
                        size_t n, struct gedge **out)
{
    *out = NULL;
    if (n == 0)
        return CUDA_SUCCESS;
    if (!deps || n > (size_t)g->n)
        return CUDA_ERROR_INVALID_VALUE;
    struct gedge *e = calloc(n, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < g->n; i++)
        g->nodes[i]->mark = 0;
    for (size_t i = 0; i < n; i++) {
        struct gnode *d = emu_gnode_get(deps[i]);
        int ok = d && d->g == g && !d->mark;
        emu_gnode_put(d); /* the graph lock keeps it */
        if (ok && ed && !edge_valid(&ed[i], d))
            ok = 0;
        if (!ok) {
            free(e);
            return CUDA_ERROR_INVALID_VALUE;
        }
        d->mark = 1;
        e[i].n = d;
        if (ed)
            e[i].d = ed[i];
    }
    *out = e;
    return CUDA_SUCCESS;
}

static int link_edge(struct gnode *from, struct gnode *to, const CUgraphEdgeData *d)
{
    if (grow((void **)&from->out, from->nout, &from->capout, sizeof *from->out) ||
        grow((void **)&to->in, to->nin, &to->capin, sizeof *to->in))
        return -1;
    from->out[from->nout].n = to;
    from->out[from->nout++].d = *d;
    to->in[to->nin].n = from;
    to->in[to->nin++].d = *d;
    return 0;
}

CUresult emu_graph_add_locked(struct emu_graph *g, int type, union gparams *p, const struct gedge *deps,
                              size_t ndeps, struct gnode **out)
{
    struct gnode *n = calloc(1, sizeof *n);
    if (!n || grow((void **)&g->nodes, g->n, &g->cap, sizeof *g->nodes)) {
        free(n);
        emu_gparams_free(type, p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    n->in = ndeps ? calloc(ndeps, sizeof *n->in) : NULL;
    if (ndeps && !n->in) {
        free(n);
        emu_gparams_free(type, p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    n->capin = (int)ndeps;
    emu_obj_init(&n->o, EMU_T_GNODE, NULL, gnode_release);
    n->g = g;
    n->id = atomic_fetch_add(&next_id, 1);
    n->type = type;
    n->p = *p;
    for (size_t i = 0; i < ndeps; i++) {
        if (link_edge(deps[i].n, n, &deps[i].d)) {
            for (size_t k = 0; k < i; k++)
                edge_remove(deps[k].n->out, &deps[k].n->nout, n);
            free(n->in);
            free(n);
            emu_gparams_free(type, p);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (type == CU_GRAPH_NODE_TYPE_GRAPH)
        p->child->owner = n;
    if (type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
        for (unsigned k = 0; k < p->cond.size; k++)
            p->cond.body[k]->owner = n;
    g->nodes[g->n++] = n;
    emu_obj_register(&n->o);
    if (out)
        *out = n;
    return CUDA_SUCCESS;
}

CUresult emu_graph_add(CUgraph h, int type, union gparams *p, const CUgraphNode *deps,
                       const CUgraphEdgeData *ed, size_t ndeps, CUgraphNode *out)
{
    struct emu_graph *g = emu_graph_get(h);
    if (!g) {
        emu_gparams_free(type, p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    emu_graph_lock();
    struct gedge *e;
    CUresult r = emu_graph_deps(g, deps, ed, ndeps, &e);
    struct gnode *n = NULL;
    if (r)
        emu_gparams_free(type, p);
    else
        r = emu_graph_add_locked(g, type, p, e, ndeps, &n);
    free(e);
    emu_graph_unlock();
    emu_graph_put(g);
    if (r == CUDA_SUCCESS)
        *out = (CUgraphNode)n;
    return r;
}

CUresult emu_gnode_locked(CUgraphNode h, int type, struct gnode **out)
{
    struct gnode *n = emu_gnode_get(h);
    int ok = n && n->g && (type < 0 || n->type == type);
    emu_gnode_put(n); /* the graph lock keeps it */
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    *out = n;
    return CUDA_SUCCESS;
}

CUresult emu_graph_topo(const struct emu_graph *g, struct gnode ***order)
{
    struct gnode **o = malloc(((size_t)g->n + 1) * sizeof *o);
    if (!o)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int k = 0, head = 0;
    for (int i = 0; i < g->n; i++) {
        g->nodes[i]->mark = g->nodes[i]->nin;
        if (g->nodes[i]->nin == 0)
            o[k++] = g->nodes[i];
    }
    while (head < k) {
        struct gnode *n = o[head++];
        for (int i = 0; i < n->nout; i++)
            if (--n->out[i].n->mark == 0)
                o[k++] = n->out[i].n;
    }
    if (k != g->n) {
        free(o);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *order = o;
    return CUDA_SUCCESS;
}

/* ---- parameters --------------------------------------------------------- */

void emu_gparams_free(int type, union gparams *p)
{
    switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        emu_kargs_free(&p->kernel.args);
        break;
    case CU_GRAPH_NODE_TYPE_GRAPH:
        if (p->child)
            emu_graph_destroy_locked(p->child);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        if (p->event)
            emu_obj_put(p->event);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        if (p->alloc.m)
            emu_gmem_put(p->alloc.m);
        break;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        free(p->memop.ops);
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        for (unsigned k = 0; k < p->cond.size && p->cond.body; k++)
            if (p->cond.body[k])
                emu_graph_destroy_locked(p->cond.body[k]);
        free(p->cond.body);
        free(p->cond.body_handles);
        break;
    default:
        break;
    }
    memset(p, 0, sizeof *p);
}

static CUresult clone_locked(struct emu_graph *src, struct emu_graph **out);

CUresult emu_gparams_copy(int type, const union gparams *src, union gparams *dst)
{
    *dst = *src;
    switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return emu_kargs_copy(&src->kernel.args, &dst->kernel.args);
    case CU_GRAPH_NODE_TYPE_GRAPH:
        return clone_locked(src->child, &dst->child);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        if (dst->event)
            emu_obj_ref(dst->event);
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        if (dst->alloc.m)
            emu_gmem_ref(dst->alloc.m);
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        dst->memop.ops = NULL;
        if (src->memop.count) {
            dst->memop.ops = malloc(src->memop.count * sizeof *dst->memop.ops);
            if (!dst->memop.ops)
                return CUDA_ERROR_OUT_OF_MEMORY;
            memcpy(dst->memop.ops, src->memop.ops, src->memop.count * sizeof *dst->memop.ops);
        }
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        memset(dst, 0, sizeof *dst);
        return CUDA_ERROR_NOT_SUPPORTED; /* graphs with conditional nodes cannot be cloned */
    default:
        return CUDA_SUCCESS;
    }
}

/* ---- clones ------------------------------------------------------------- */

static CUresult clone_locked(struct emu_graph *src, struct emu_graph **out)
{
    if (emu_graph_has(src, CU_GRAPH_NODE_TYPE_MEM_ALLOC) || emu_graph_has(src, CU_GRAPH_NODE_TYPE_MEM_FREE) ||
        emu_graph_has(src, CU_GRAPH_NODE_TYPE_CONDITIONAL))
        return CUDA_ERROR_NOT_SUPPORTED;
    struct emu_graph *g;
    CUresult r = emu_graph_new(&g);
    if (r)
        return r;
    g->cloned_from = src->id;
    struct gnode **made = calloc((size_t)src->n + 1, sizeof *made);
    struct gedge *deps = NULL;
    int capdeps = 0;
    if (!made)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < src->n; i++)
        src->nodes[i]->mark = i;
    for (int i = 0; i < src->n && !r; i++) {
        struct gnode *s = src->nodes[i];
        if (s->nin > capdeps) {
            struct gedge *nd = realloc(deps, (size_t)s->nin * sizeof *nd);
            if (!nd) {
                r = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
            deps = nd;
            capdeps = s->nin;
        }
        for (int k = 0; k < s->nin; k++) {
            deps[k].n = made[s->in[k].n->mark];
            deps[k].d = s->in[k].d;
        }
        union gparams p;
        r = emu_gparams_copy(s->type, &s->p, &p);
        if (r) {
            emu_gparams_free(s->type, &p);
            break;
        }
        r = emu_graph_add_locked(g, s->type, &p, deps, (size_t)s->nin, &made[i]);
        if (!r)
            made[i]->cloned_from = s->id;
    }
    for (int i = 0; i < src->ncond && !r; i++) {
        if (grow((void **)&g->cond, g->ncond, &g->capcond, sizeof *g->cond))
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else
            g->cond[g->ncond++] = src->cond[i];
    }
    for (int i = 0; i < src->nuref && !r; i++) {
        if (grow((void **)&g->uref, g->nuref, &g->capuref, sizeof *g->uref)) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            emu_uobj_hold(src->uref[i].u, src->uref[i].count);
            g->uref[g->nuref++] = src->uref[i];
        }
    }
    free(deps);
    free(made);
    if (r) {
        emu_graph_destroy_locked(g);
        return r;
    }
    *out = g;
    return CUDA_SUCCESS;
}

/* ---- entry points: graphs ------------------------------------------------ */

TD_EXPORT CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g;
    CUresult r = emu_graph_new(&g);
    if (r == CUDA_SUCCESS)
        *phGraph = (CUgraph)g;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
    EMU_INIT_OR_RETURN();
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    emu_graph_lock();
    if (g->owner || g->capturing) /* a child or body graph; a capture's */
        r = CUDA_ERROR_INVALID_VALUE;
    else
        emu_graph_destroy_locked(g);
    emu_graph_unlock();
    emu_graph_put(g);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphClone)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(originalGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *c;
    emu_graph_lock();
    CUresult r = clone_locked(g, &c);
    emu_graph_unlock();
    emu_graph_put(g);
    if (r == CUDA_SUCCESS)
        *phGraphClone = (CUgraph)c;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph)
{
    EMU_INIT_OR_RETURN();
    if (!phNode)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *c = emu_graph_get(hClonedGraph);
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *o;
    CUresult r = emu_gnode_locked(hOriginalNode, -1, &o);
    if (r == CUDA_SUCCESS) {
        r = CUDA_ERROR_INVALID_VALUE;
        if (c->cloned_from == o->g->id)
            for (int i = 0; i < c->n; i++)
                if (c->nodes[i]->cloned_from == o->id) {
                    *phNode = (CUgraphNode)c->nodes[i];
                    r = CUDA_SUCCESS;
                    break;
                }
    }
    emu_graph_unlock();
    emu_graph_put(c);
    return r;
}

/* copies up to *count handles (and edge data) of list into the caller's
 * arrays, NULL-filling the rest; *count becomes the number there is */
static CUresult list_out(const struct gedge *list, int n, CUgraphNode *nodes, CUgraphEdgeData *ed,
                         size_t *count)
{
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    if (nodes) {
        size_t want = *count;
        for (size_t i = 0; i < want; i++) {
            nodes[i] = (int)i < n ? (CUgraphNode)list[i].n : NULL;
            if (ed) {
                CUgraphEdgeData zero = { 0 };
                ed[i] = (int)i < n ? list[i].d : zero;
            }
        }
        if (!ed)
            for (int i = 0; i < n && (size_t)i < want; i++)
                if (list[i].d.type || list[i].d.from_port || list[i].d.to_port)
                    r = CUDA_ERROR_LOSSY_QUERY;
        if ((size_t)n < want)
            *count = (size_t)n;
    } else {
        if (ed)
            return CUDA_ERROR_INVALID_VALUE;
        *count = (size_t)n;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    EMU_INIT_OR_RETURN();
    if (!numNodes)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    if (nodes) {
        for (size_t i = 0; i < *numNodes; i++)
            nodes[i] = (int)i < g->n ? (CUgraphNode)g->nodes[i] : NULL;
        if ((size_t)g->n < *numNodes)
            *numNodes = (size_t)g->n;
    } else {
        *numNodes = (size_t)g->n;
    }
    emu_graph_unlock();
    emu_graph_put(g);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes)
{
    EMU_INIT_OR_RETURN();
    if (!numRootNodes)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    size_t k = 0;
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i]->nin == 0) {
            if (rootNodes && k < *numRootNodes)
                rootNodes[k] = (CUgraphNode)g->nodes[i];
            k++;
        }
    if (rootNodes)
        for (size_t i = k; i < *numRootNodes; i++)
            rootNodes[i] = NULL;
    if (!rootNodes || k < *numRootNodes)
        *numRootNodes = k;
    emu_graph_unlock();
    emu_graph_put(g);
    return CUDA_SUCCESS;
}

static CUresult get_edges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *ed,
                          size_t *numEdges)
{
    EMU_INIT_OR_RETURN();
    if (!numEdges || (!from) != (!to) || (ed && !from))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    emu_graph_lock();
    size_t k = 0, want = from ? *numEdges : 0;
    for (int i = 0; i < g->n; i++) {
        struct gnode *n = g->nodes[i];
        for (int j = 0; j < n->nin; j++, k++) {
            if (k >= want)
                continue;
            from[k] = (CUgraphNode)n->in[j].n;
            to[k] = (CUgraphNode)n;
            if (ed)
                ed[k] = n->in[j].d;
            else if (n->in[j].d.type || n->in[j].d.from_port || n->in[j].d.to_port)
                r = CUDA_ERROR_LOSSY_QUERY;
        }
    }
    for (size_t i = k; i < want; i++) {
        from[i] = to[i] = NULL;
        if (ed)
            memset(&ed[i], 0, sizeof ed[i]);
    }
    if (!from || k < want)
        *numEdges = k;
    emu_graph_unlock();
    emu_graph_put(g);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges)
{
    return get_edges(hGraph, from, to, NULL, numEdges);
}

TD_EXPORT CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                              CUgraphEdgeData *edgeData, size_t *numEdges)
{
    return get_edges(hGraph, from, to, edgeData, numEdges);
}

/* ---- entry points: nodes and edges ---------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    EMU_INIT_OR_RETURN();
    if (!type)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, -1, &n);
    if (r == CUDA_SUCCESS)
        *type = (CUgraphNodeType)n->type;
    emu_graph_unlock();
    return r;
}

static CUresult node_list(CUgraphNode hNode, int dependents, CUgraphNode *nodes, CUgraphEdgeData *ed, size_t *count)
{
    EMU_INIT_OR_RETURN();
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, -1, &n);
    if (r == CUDA_SUCCESS)
        r = dependents ? list_out(n->out, n->nout, nodes, ed, count) : list_out(n->in, n->nin, nodes, ed, count);
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies)
{
    return node_list(hNode, 0, dependencies, NULL, numDependencies);
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
                                                         CUgraphEdgeData *edgeData, size_t *numDependencies)
{
    return node_list(hNode, 0, dependencies, edgeData, numDependencies);
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                                        size_t *numDependentNodes)
{
    return node_list(hNode, 1, dependentNodes, NULL, numDependentNodes);
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                                           CUgraphEdgeData *edgeData, size_t *numDependentNodes)
{
    return node_list(hNode, 1, dependentNodes, edgeData, numDependentNodes);
}

static int has_edge(const struct gnode *from, const struct gnode *to)
{
    for (int i = 0; i < to->nin; i++)
        if (to->in[i].n == from)
            return 1;
    return 0;
}

/* the nodes of one side of an edge list, all live nodes of g */
static CUresult edge_nodes(struct emu_graph *g, const CUgraphNode *h, size_t n, struct gnode ***out)
{
    struct gnode **v = calloc(n, sizeof *v);
    if (!v)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++) {
        if (emu_gnode_locked(h[i], -1, &v[i]) || v[i]->g != g) {
            free(v);
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    *out = v;
    return CUDA_SUCCESS;
}

static CUresult change_edges(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                             const CUgraphEdgeData *ed, size_t n, int add)
{
    EMU_INIT_OR_RETURN();
    if (n == 0)
        return CUDA_SUCCESS;
    if (!from || !to)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode **f = NULL, **t = NULL;
    CUresult r = edge_nodes(g, from, n, &f);
    if (!r)
        r = edge_nodes(g, to, n, &t);
    /* graphs with allocation or free nodes: edges cannot be removed */
    if (!r && !add && (emu_graph_has(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC) || emu_graph_has(g, CU_GRAPH_NODE_TYPE_MEM_FREE)))
        r = CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n && !r; i++) {
        CUgraphEdgeData zero = { 0 }, d = ed ? ed[i] : zero;
        if (f[i] == t[i] || has_edge(f[i], t[i]) != !add || (add && !edge_valid(&d, f[i])))
            r = CUDA_ERROR_INVALID_VALUE;
        for (size_t k = 0; k < i && !r; k++) /* repeated in the list */
            if (f[k] == f[i] && t[k] == t[i])
                r = CUDA_ERROR_INVALID_VALUE;
        if (!r && !add)
            for (int k = 0; k < t[i]->nin; k++)
                if (t[i]->in[k].n == f[i] && memcmp(&t[i]->in[k].d, &d, sizeof d) != 0)
                    r = CUDA_ERROR_INVALID_VALUE; /* no such edge with that data */
    }
    for (size_t i = 0; i < n && !r; i++) {
        if (add) {
            CUgraphEdgeData zero = { 0 };
            if (link_edge(f[i], t[i], ed ? &ed[i] : &zero))
                r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            edge_remove(f[i]->out, &f[i]->nout, t[i]);
            edge_remove(t[i]->in, &t[i]->nin, f[i]);
        }
    }
    emu_graph_unlock();
    free(f);
    free(t);
    emu_graph_put(g);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                                  size_t numDependencies)
{
    return change_edges(hGraph, from, to, NULL, numDependencies, 1);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                                     const CUgraphEdgeData *edgeData, size_t numDependencies)
{
    return change_edges(hGraph, from, to, edgeData, numDependencies, 1);
}

TD_EXPORT CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                                     size_t numDependencies)
{
    return change_edges(hGraph, from, to, NULL, numDependencies, 0);
}

TD_EXPORT CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                                        const CUgraphNode *to, const CUgraphEdgeData *edgeData,
                                                        size_t numDependencies)
{
    return change_edges(hGraph, from, to, edgeData, numDependencies, 0);
}

TD_EXPORT CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
    EMU_INIT_OR_RETURN();
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, -1, &n);
    /* nodes of graphs with allocation or free nodes cannot be deleted */
    if (!r && (emu_graph_has(n->g, CU_GRAPH_NODE_TYPE_MEM_ALLOC) || emu_graph_has(n->g, CU_GRAPH_NODE_TYPE_MEM_FREE)))
        r = CUDA_ERROR_INVALID_VALUE;
    if (!r)
        node_destroy_locked(n);
    emu_graph_unlock();
    return r;
}

/* ---- entry points: simple node types -------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                               size_t numDependencies)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    memset(&p, 0, sizeof p);
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_EMPTY, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                              size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode || !nodeParams || !nodeParams->fn)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    memset(&p, 0, sizeof p);
    p.host = *nodeParams;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_HOST, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r == CUDA_SUCCESS)
        *nodeParams = n->p.host;
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams || !nodeParams->fn)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r == CUDA_SUCCESS)
        n->p.host = *nodeParams;
    emu_graph_unlock();
    return r;
}

/* A child graph for a node: a clone of child, or child itself (moved).
 * Graphs with conditional nodes cannot be children; graphs with
 * allocation or free nodes only when moved (graph lock held). */
static CUresult child_take(CUgraph h, int move, struct emu_graph **out)
{
    struct emu_graph *c = emu_graph_get(h);
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    if (emu_graph_has(c, CU_GRAPH_NODE_TYPE_CONDITIONAL))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (!move && (emu_graph_has(c, CU_GRAPH_NODE_TYPE_MEM_ALLOC) || emu_graph_has(c, CU_GRAPH_NODE_TYPE_MEM_FREE)))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (move && (c->owner || c->capturing || c->execs))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (move)
        *out = c;
    else
        r = clone_locked(c, out);
    emu_graph_put(c);
    return r;
}

CUresult emu_graph_child_params(const CUDA_CHILD_GRAPH_NODE_PARAMS *cp, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (cp->ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE && cp->ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    CUresult r = child_take(cp->graph, cp->ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE, &p->child);
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                    const CUgraphNode *dependencies, size_t numDependencies,
                                                    CUgraph childGraph)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_CHILD_GRAPH_NODE_PARAMS cp = { childGraph, CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE };
    union gparams p;
    CUresult r = emu_graph_child_params(&cp, &p);
    if (r)
        return r;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_GRAPH, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    EMU_INIT_OR_RETURN();
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_GRAPH, &n);
    if (r == CUDA_SUCCESS)
        *phGraph = (CUgraph)n->p.child;
    emu_graph_unlock();
    return r;
}

/* an event handle for a node: referenced */
static CUresult event_ref(CUevent h, struct emu_obj **out)
{
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_obj *e = emu_obj_get(h, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    *out = e;
    return CUDA_SUCCESS;
}

static CUresult add_event_node(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t n, CUevent ev, int type)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    memset(&p, 0, sizeof p);
    CUresult r = event_ref(ev, &p.event);
    if (r)
        return r;
    return emu_graph_add(hGraph, type, &p, deps, NULL, n, out);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                     const CUgraphNode *dependencies, size_t numDependencies,
                                                     CUevent event)
{
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                   const CUgraphNode *dependencies, size_t numDependencies,
                                                   CUevent event)
{
    return add_event_node(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

static CUresult event_node_get(CUgraphNode h, int type, CUevent *out)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(h, type, &n);
    if (r == CUDA_SUCCESS)
        *out = (CUevent)n->p.event;
    emu_graph_unlock();
    return r;
}

static CUresult event_node_set(CUgraphNode h, int type, CUevent ev)
{
    EMU_INIT_OR_RETURN();
    struct emu_obj *e;
    CUresult r = event_ref(ev, &e);
    if (r)
        return r;
    emu_graph_lock();
    struct gnode *n;
    r = emu_gnode_locked(h, type, &n);
    if (r == CUDA_SUCCESS) {
        struct emu_obj *old = n->p.event;
        n->p.event = e;
        e = old;
    }
    emu_graph_unlock();
    emu_obj_put(e);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    return event_node_get(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out);
}

TD_EXPORT CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    return event_node_set(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}

TD_EXPORT CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    return event_node_get(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out);
}

TD_EXPORT CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    return event_node_set(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

TD_EXPORT CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    EMU_INIT_OR_RETURN();
    if (!dptr_out)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE, &n);
    if (r == CUDA_SUCCESS)
        *dptr_out = n->p.free;
    emu_graph_unlock();
    return r;
}

/* ---- conditional handles --------------------------------------------------- */

static atomic_ullong next_cond = 1;

TD_EXPORT CUresult CUDAAPI cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
                                                          CUcontext ctx, unsigned int defaultLaunchValue,
                                                          unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!pHandle_out || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_resolve(ctx, &c);
    if (r)
        return r;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    emu_graph_lock();
    if (grow((void **)&g->cond, g->ncond, &g->capcond, sizeof *g->cond)) {
        r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        /* an opaque value the program passes to its kernels: never 0 */
        struct gcond *k = &g->cond[g->ncond++];
        k->h = 0x7d00000000000000ull | atomic_fetch_add(&next_cond, 1);
        k->dflt = defaultLaunchValue;
        k->flags = flags;
        k->ctx = (CUcontext)c;
        *pHandle_out = k->h;
    }
    emu_graph_unlock();
    emu_graph_put(g);
    emu_ctx_put(c);
    return r;
}

/* ---- user objects held by graphs (the objects: uobj.c) ------------------ */
TD_EXPORT CUresult CUDAAPI cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                                   unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (count == 0 || (flags & ~(unsigned)CU_GRAPH_USER_OBJECT_MOVE))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(graph);
    struct emu_uobj *u = emu_uobj_get(object);
    CUresult r = g && u ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) {
        emu_graph_lock();
        int i = 0;
        while (i < g->nuref && g->uref[i].u != u)
            i++;
        if (i == g->nuref && grow((void **)&g->uref, g->nuref, &g->capuref, sizeof *g->uref)) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else if (i < g->nuref && g->uref[i].count > UINT32_MAX - count) {
            r = CUDA_ERROR_INVALID_VALUE;
        } else {
            if (i == g->nuref) {
                g->uref[i].u = u;
                g->uref[i].count = 0;
                g->nuref++;
                emu_uobj_ref(u); /* the object stays while the graph holds it */
            }
            g->uref[i].count += count;
            if (!(flags & CU_GRAPH_USER_OBJECT_MOVE))
                emu_uobj_retain(u, count);
        }
        emu_graph_unlock();
    }
    emu_graph_put(g);
    if (u)
        emu_uobj_put(u);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count)
{
    EMU_INIT_OR_RETURN();
    if (count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(graph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    struct emu_uobj *u = NULL;
    int drop = 0;
    emu_graph_lock();
    for (int i = 0; i < g->nuref; i++) {
        if ((CUuserObject)g->uref[i].u != object)
            continue;
        if (g->uref[i].count >= count) {
            u = g->uref[i].u;
            g->uref[i].count -= count;
            if (g->uref[i].count == 0) {
                g->uref[i] = g->uref[--g->nuref];
                drop = 1;
            }
            r = CUDA_SUCCESS;
        }
        break;
    }
    emu_graph_unlock();
    if (u) {
        emu_uobj_release(u, count);
        if (drop)
            emu_uobj_put(u);
    }
    emu_graph_put(g);
    return r;
}
