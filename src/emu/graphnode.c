/* SPDX-License-Identifier: Apache-2.0 */
/* Graph nodes whose parameters are checked against modules and memory:
 * kernel, memcpy, memset, memory allocation and free, batch memory
 * operations, conditional nodes; the generic cuGraphAddNode and
 * cuGraphNodeSetParams. External semaphore nodes are refused: external
 * semaphores (graphics and IPC interoperability) are not emulated.
 *
 * Parameters are checked when a node is made or changed, as the driver
 * checks them, and copied: a kernel node keeps its own copy of the
 * arguments (what cuGraphKernelNodeGetParams returns points into it). */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void drop_op(struct emu_op *op)
{
    if (op) {
        if (op->fini)
            op->fini(op);
        free(op);
    }
}

/* a node's context: ctx, or the current one; referenced */
static CUresult node_ctx(CUcontext h, struct emu_ctx **out)
{
    return emu_ctx_resolve(h, out);
}

/* ---- kernel nodes -------------------------------------------------------- */

/* kernel node parameters (_v2/_v3 layout) checked into p */
static CUresult kernel_params(const CUDA_KERNEL_NODE_PARAMS *kp, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (!kp || (!kp->func && !kp->kern))
        return CUDA_ERROR_INVALID_VALUE;
    struct gkernel *k = &p->kernel;
    k->func = kp->func;
    k->kern = kp->func ? NULL : kp->kern;
    struct emu_ctx *c;
    CUresult r = node_ctx(kp->func ? NULL : kp->ctx, &c);
    if (r)
        return r;
    k->ctx = (CUcontext)c;
    k->grid[0] = kp->gridDimX;
    k->grid[1] = kp->gridDimY;
    k->grid[2] = kp->gridDimZ;
    k->block[0] = kp->blockDimX;
    k->block[1] = kp->blockDimY;
    k->block[2] = kp->blockDimZ;
    k->shmem = kp->sharedMemBytes;
    r = emu_kernel_node_args(k->func ? k->func : (CUfunction)k->kern, c, k->grid, k->block, k->shmem,
                             kp->kernelParams, kp->extra, &k->args);
    emu_ctx_put(c);
    return r;
}

static void kernel_params_v1(const CUDA_KERNEL_NODE_PARAMS_v1 *v1, CUDA_KERNEL_NODE_PARAMS *kp)
{
    memset(kp, 0, sizeof *kp);
    kp->func = v1->func;
    kp->gridDimX = v1->gridDimX;
    kp->gridDimY = v1->gridDimY;
    kp->gridDimZ = v1->gridDimZ;
    kp->blockDimX = v1->blockDimX;
    kp->blockDimY = v1->blockDimY;
    kp->blockDimZ = v1->blockDimZ;
    kp->sharedMemBytes = v1->sharedMemBytes;
    kp->kernelParams = v1->kernelParams;
    kp->extra = v1->extra;
}

static void kernel_out(const struct gkernel *k, CUDA_KERNEL_NODE_PARAMS *kp)
{
    memset(kp, 0, sizeof *kp);
    kp->func = k->func;
    kp->kern = k->kern;
    kp->ctx = k->kern ? k->ctx : NULL;
    kp->gridDimX = k->grid[0];
    kp->gridDimY = k->grid[1];
    kp->gridDimZ = k->grid[2];
    kp->blockDimX = k->block[0];
    kp->blockDimY = k->block[1];
    kp->blockDimZ = k->block[2];
    kp->sharedMemBytes = k->shmem;
    kp->kernelParams = k->args.ptrs;
    kp->extra = NULL;
}

static CUresult add_kernel(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t n, const CUDA_KERNEL_NODE_PARAMS *kp)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = kernel_params(kp, &p);
    if (r) {
        emu_kargs_free(&p.kernel.args);
        return r;
    }
    return emu_graph_add(g, CU_GRAPH_NODE_TYPE_KERNEL, &p, deps, NULL, n, out);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                                size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS kp;
    kernel_params_v1(nodeParams, &kp);
    return add_kernel(phGraphNode, hGraph, dependencies, numDependencies, &kp);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                   const CUgraphNode *dependencies, size_t numDependencies,
                                                   const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    return add_kernel(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r == CUDA_SUCCESS)
        kernel_out(&n->p.kernel, nodeParams);
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS kp;
    CUresult r = cuGraphKernelNodeGetParams_v2(hNode, &kp);
    if (r == CUDA_SUCCESS) {
        nodeParams->func = kp.func ? kp.func : (CUfunction)kp.kern;
        nodeParams->gridDimX = kp.gridDimX;
        nodeParams->gridDimY = kp.gridDimY;
        nodeParams->gridDimZ = kp.gridDimZ;
        nodeParams->blockDimX = kp.blockDimX;
        nodeParams->blockDimY = kp.blockDimY;
        nodeParams->blockDimZ = kp.blockDimZ;
        nodeParams->sharedMemBytes = kp.sharedMemBytes;
        nodeParams->kernelParams = kp.kernelParams;
        nodeParams->extra = NULL;
    }
    return r;
}

/* replaces n's parameters with p's (taken), keeping what is not a
 * parameter: a kernel node's attributes (graph lock held) */
static void replace_params(struct gnode *n, union gparams *p)
{
    if (n->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        p->kernel.attr_set = n->p.kernel.attr_set;
        memcpy(p->kernel.attr, n->p.kernel.attr, sizeof p->kernel.attr);
    }
    emu_gparams_free(n->type, &n->p);
    n->p = *p;
}

static CUresult set_kernel(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *kp)
{
    EMU_INIT_OR_RETURN();
    union gparams p;
    CUresult r = kernel_params(kp, &p);
    if (r) {
        emu_kargs_free(&p.kernel.args);
        return r;
    }
    emu_graph_lock();
    struct gnode *n;
    r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r == CUDA_SUCCESS)
        replace_params(n, &p);
    else
        emu_gparams_free(CU_GRAPH_NODE_TYPE_KERNEL, &p);
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    return set_kernel(hNode, nodeParams);
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS kp;
    kernel_params_v1(nodeParams, &kp);
    return set_kernel(hNode, &kp);
}

/* Launch attributes a kernel node keeps. The emulator's kernel nodes are
 * not cooperative and have no programmatic dependencies or device-updatable
 * nodes: asking for them is CUDA_ERROR_NOT_SUPPORTED. A cluster size is
 * the node's launch's (checked when the node's kernel is launched,
 * emu_cluster_resolve); a preferred one a hint. The rest are hints it
 * keeps and reports (they change no result). */
static CUresult attr_check(int id, const CUkernelNodeAttrValue *v)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING: {
        static const char zero[sizeof *v];
        return memcmp(v, zero, sizeof *v) == 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    }
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
        return CUDA_ERROR_NOT_SUPPORTED;
    case CU_LAUNCH_ATTRIBUTE_IGNORE:
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                                         const CUkernelNodeAttrValue *value)
{
    EMU_INIT_OR_RETURN();
    int id = (int)attr;
    if (!value || id < 0 || id >= GKERNEL_NATTR)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = attr_check(id, value);
    if (r)
        return r;
    emu_graph_lock();
    struct gnode *n;
    r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r == CUDA_SUCCESS) {
        n->p.kernel.attr[id] = *value;
        n->p.kernel.attr_set |= 1u << id;
    }
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                                         CUkernelNodeAttrValue *value_out)
{
    EMU_INIT_OR_RETURN();
    int id = (int)attr;
    if (!value_out || id <= CU_LAUNCH_ATTRIBUTE_IGNORE || id >= GKERNEL_NATTR || id == 15)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r == CUDA_SUCCESS)
        *value_out = n->p.kernel.attr[id]; /* zero (the default) when never set */
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    EMU_INIT_OR_RETURN();
    emu_graph_lock();
    struct gnode *d, *s;
    CUresult r = emu_gnode_locked(dst, CU_GRAPH_NODE_TYPE_KERNEL, &d);
    if (!r)
        r = emu_gnode_locked(src, CU_GRAPH_NODE_TYPE_KERNEL, &s);
    if (!r) {
        memcpy(d->p.kernel.attr, s->p.kernel.attr, sizeof d->p.kernel.attr);
        d->p.kernel.attr_set = s->p.kernel.attr_set;
    }
    emu_graph_unlock();
    return r;
}

/* ---- memcpy and memset nodes --------------------------------------------- */

static CUresult memcpy_params(const CUDA_MEMCPY3D *cp, CUcontext ctx, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (!cp)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = node_ctx(ctx, &c);
    if (r)
        return r;
    r = emu_copy3d_check(cp);
    if (r == CUDA_SUCCESS) {
        p->memcpy.p = *cp;
        p->memcpy.ctx = (CUcontext)c;
    }
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                                size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = memcpy_params(copyParams, ctx, &p);
    if (r)
        return r;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_MEMCPY, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    if (r == CUDA_SUCCESS)
        *nodeParams = n->p.memcpy.p;
    emu_graph_unlock();
    return r;
}

static CUresult set_simple(CUgraphNode hNode, int type, union gparams *p)
{
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, type, &n);
    if (r == CUDA_SUCCESS)
        replace_params(n, p);
    else
        emu_gparams_free(type, p);
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
    EMU_INIT_OR_RETURN();
    union gparams p;
    CUresult r = memcpy_params(nodeParams, NULL, &p);
    if (r)
        return r;
    return set_simple(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, &p);
}

static CUresult memset_params(const CUDA_MEMSET_NODE_PARAMS_v2 *mp, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (!mp || mp->width == 0 || mp->height == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = node_ctx(mp->ctx, &c);
    if (r)
        return r;
    struct emu_op *op;
    r = emu_memset_op(mp->dst, mp->height > 1 ? mp->pitch : mp->width * mp->elementSize, mp->value,
                      mp->elementSize, mp->width, mp->height, &op);
    drop_op(op);
    if (r == CUDA_SUCCESS) {
        p->memset = *mp;
        p->memset.ctx = (CUcontext)c;
    }
    emu_ctx_put(c);
    return r;
}

static void memset_v2(const CUDA_MEMSET_NODE_PARAMS *v1, CUcontext ctx, CUDA_MEMSET_NODE_PARAMS_v2 *v2)
{
    v2->dst = v1->dst;
    v2->pitch = v1->pitch;
    v2->value = v1->value;
    v2->elementSize = v1->elementSize;
    v2->width = v1->width;
    v2->height = v1->height;
    v2->ctx = ctx;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                                size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                                CUcontext ctx)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode || !memsetParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMSET_NODE_PARAMS_v2 mp;
    memset_v2(memsetParams, ctx, &mp);
    union gparams p;
    CUresult r = memset_params(&mp, &p);
    if (r)
        return r;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_MEMSET, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    if (r == CUDA_SUCCESS) {
        const CUDA_MEMSET_NODE_PARAMS_v2 *m = &n->p.memset;
        nodeParams->dst = m->dst;
        nodeParams->pitch = m->pitch;
        nodeParams->value = m->value;
        nodeParams->elementSize = m->elementSize;
        nodeParams->width = m->width;
        nodeParams->height = m->height;
    }
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMSET_NODE_PARAMS_v2 mp;
    memset_v2(nodeParams, NULL, &mp);
    union gparams p;
    CUresult r = memset_params(&mp, &p);
    if (r)
        return r;
    return set_simple(hNode, CU_GRAPH_NODE_TYPE_MEMSET, &p);
}

/* ---- memory allocation and free nodes -------------------------------------- */

static CUresult alloc_params(const CUDA_MEM_ALLOC_NODE_PARAMS *ap, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (!ap || ap->bytesize == 0 || ap->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        ap->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || ap->poolProps.handleTypes != 0 ||
        (ap->accessDescCount && !ap->accessDescs) || ap->accessDescCount > (size_t)emu_ndevices)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(ap->poolProps.location.id);
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    /* access from other devices is peer access, which is not emulated */
    for (size_t i = 0; i < ap->accessDescCount; i++) {
        const CUmemAccessDesc *a = &ap->accessDescs[i];
        if (a->location.type != CU_MEM_LOCATION_TYPE_DEVICE || !emu_device(a->location.id) ||
            (a->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE && a->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
             a->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE))
            return CUDA_ERROR_INVALID_VALUE;
        if (a->location.id != d->ordinal)
            return CUDA_ERROR_NOT_SUPPORTED;
    }
    CUresult r = emu_gmem_new(d, ap->bytesize, &p->alloc.m);
    if (r)
        return r;
    p->alloc.p = *ap;
    p->alloc.p.accessDescs = NULL; /* not kept: the program's array */
    p->alloc.p.accessDescCount = 0;
    p->alloc.p.dptr = (CUdeviceptr)p->alloc.m->va;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                                  size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = alloc_params(nodeParams, &p);
    if (r)
        return r;
    CUdeviceptr va = p.alloc.p.dptr;
    r = emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &p, dependencies, NULL, numDependencies, phGraphNode);
    if (r == CUDA_SUCCESS)
        nodeParams->dptr = va;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    EMU_INIT_OR_RETURN();
    if (!params_out)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &n);
    if (r == CUDA_SUCCESS)
        *params_out = n->p.alloc.p;
    emu_graph_unlock();
    return r;
}

/* a free node of dptr, a graph allocation freed at most once in g */
static CUresult free_params(CUdeviceptr dptr, union gparams *p)
{
    memset(p, 0, sizeof *p);
    struct gmem *m = emu_gmem_find((uintptr_t)dptr);
    if (!m)
        return CUDA_ERROR_INVALID_VALUE;
    emu_gmem_put(m);
    p->free = dptr;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                                 size_t numDependencies, CUdeviceptr dptr)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = free_params(dptr, &p);
    if (r)
        return r;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    for (int i = 0; i < g->n && !r; i++)
        if (g->nodes[i]->type == CU_GRAPH_NODE_TYPE_MEM_FREE && g->nodes[i]->p.free == dptr)
            r = CUDA_ERROR_INVALID_VALUE; /* freed twice */
    emu_graph_unlock();
    emu_graph_put(g);
    if (r)
        return r;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_MEM_FREE, &p, dependencies, NULL, numDependencies, phGraphNode);
}

/* ---- batch memory operations ------------------------------------------------ */

static CUresult memop_params(const CUDA_BATCH_MEM_OP_NODE_PARAMS *bp, union gparams *p)
{
    memset(p, 0, sizeof p[0]);
    if (!bp || bp->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = node_ctx(bp->ctx, &c);
    if (r)
        return r;
    r = emu_memop_check(c->dev, bp->paramArray, bp->count, 1, 1); /* the node's operations are v2's */
    if (r == CUDA_SUCCESS) {
        p->memop.ops = malloc(bp->count * sizeof *p->memop.ops);
        if (!p->memop.ops) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            memcpy(p->memop.ops, bp->paramArray, bp->count * sizeof *p->memop.ops);
            p->memop.count = bp->count;
            p->memop.flags = bp->flags;
            p->memop.ctx = (CUcontext)c;
        }
    }
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddBatchMemOpNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                    const CUgraphNode *dependencies, size_t numDependencies,
                                                    const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = memop_params(nodeParams, &p);
    if (r)
        return r;
    return emu_graph_add(hGraph, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, &p, dependencies, NULL, numDependencies, phGraphNode);
}

TD_EXPORT CUresult CUDAAPI cuGraphBatchMemOpNodeGetParams(CUgraphNode hNode, CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out)
{
    EMU_INIT_OR_RETURN();
    if (!nodeParams_out)
        return CUDA_ERROR_INVALID_VALUE;
    emu_graph_lock();
    struct gnode *n;
    CUresult r = emu_gnode_locked(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, &n);
    if (r == CUDA_SUCCESS) {
        nodeParams_out->ctx = n->p.memop.ctx;
        nodeParams_out->count = n->p.memop.count;
        nodeParams_out->paramArray = n->p.memop.ops; /* the node's copy */
        nodeParams_out->flags = n->p.memop.flags;
    }
    emu_graph_unlock();
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphBatchMemOpNodeSetParams(CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    EMU_INIT_OR_RETURN();
    union gparams p;
    CUresult r = memop_params(nodeParams, &p);
    if (r)
        return r;
    return set_simple(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, &p);
}

/* ---- external semaphores: not emulated --------------------------------------- */

static CUresult no_ext_sem(void)
{
    EMU_INIT_OR_RETURN();
    static const char msg[] = "tdtrace-emu: external semaphore nodes: external semaphores (graphics and IPC "
                              "interoperability) are not emulated (CUDA_ERROR_NOT_SUPPORTED)\n";
    emu_report(msg, sizeof msg - 1);
    return CUDA_ERROR_NOT_SUPPORTED;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddExternalSemaphoresSignalNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                                  const CUgraphNode *dependencies, size_t numDependencies,
                                                                  const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    (void)phGraphNode, (void)hGraph, (void)dependencies, (void)numDependencies, (void)nodeParams;
    return no_ext_sem();
}

TD_EXPORT CUresult CUDAAPI cuGraphAddExternalSemaphoresWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                                const CUgraphNode *dependencies, size_t numDependencies,
                                                                const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    (void)phGraphNode, (void)hGraph, (void)dependencies, (void)numDependencies, (void)nodeParams;
    return no_ext_sem();
}

/* no such node can exist: every handle is wrong for these */
TD_EXPORT CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeGetParams(CUgraphNode hNode,
                                                                        CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *params_out)
{
    (void)hNode, (void)params_out;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeSetParams(CUgraphNode hNode,
                                                                        const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    (void)hNode, (void)nodeParams;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeGetParams(CUgraphNode hNode,
                                                                      CUDA_EXT_SEM_WAIT_NODE_PARAMS *params_out)
{
    (void)hNode, (void)params_out;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeSetParams(CUgraphNode hNode,
                                                                      const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    (void)hNode, (void)nodeParams;
    EMU_INIT_OR_RETURN();
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---- conditional nodes ----------------------------------------------------- */

/* the body graphs of a new conditional node; the handle must be one made
 * on hGraph or a graph it is nested in, for the same context */
static CUresult cond_params(CUgraph hGraph, CUDA_CONDITIONAL_NODE_PARAMS *cp, union gparams *p)
{
    memset(p, 0, sizeof *p);
    if (cp->type != CU_GRAPH_COND_TYPE_IF && cp->type != CU_GRAPH_COND_TYPE_WHILE &&
        cp->type != CU_GRAPH_COND_TYPE_SWITCH)
        return CUDA_ERROR_INVALID_VALUE;
    if (cp->size == 0 || (cp->type == CU_GRAPH_COND_TYPE_WHILE && cp->size != 1) ||
        (cp->type == CU_GRAPH_COND_TYPE_IF && cp->size > 2) || cp->size > 4096)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = node_ctx(cp->ctx, &c);
    if (r)
        return r;
    struct emu_graph *g = emu_graph_get(hGraph);
    emu_graph_lock();
    const struct gcond *k = g ? emu_graph_cond(g, cp->handle) : NULL;
    if (!k || k->ctx != (CUcontext)c)
        r = CUDA_ERROR_INVALID_VALUE;
    emu_graph_unlock();
    emu_graph_put(g);
    struct gcondnode *cn = &p->cond;
    if (!r) {
        cn->h = cp->handle;
        cn->type = cp->type;
        cn->ctx = (CUcontext)c;
        cn->body = calloc(cp->size, sizeof *cn->body);
        cn->body_handles = calloc(cp->size, sizeof *cn->body_handles);
        if (!cn->body || !cn->body_handles)
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (unsigned i = 0; !r && i < cp->size; i++) {
        r = emu_graph_new(&cn->body[i]);
        if (!r) {
            cn->size = i + 1;
            cn->body_handles[i] = (CUgraph)cn->body[i];
        }
    }
    emu_ctx_put(c);
    if (r) {
        emu_graph_lock();
        emu_gparams_free(CU_GRAPH_NODE_TYPE_CONDITIONAL, p);
        emu_graph_unlock();
    }
    return r;
}

/* ---- the generic form --------------------------------------------------------- */

/* checked parameters of a node of params->type (cuGraphAddNode); hGraph
 * for the conditional handle */
static CUresult node_params(CUgraph hGraph, CUgraphNodeParams *np, union gparams *p)
{
    memset(p, 0, sizeof *p);
    switch ((int)np->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUresult r = kernel_params(&np->kernel, p);
        if (r)
            emu_kargs_free(&p->kernel.args);
        return r;
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (np->memcpy.flags || np->memcpy.reserved)
            return CUDA_ERROR_INVALID_VALUE;
        return memcpy_params(&np->memcpy.copyParams, np->memcpy.copyCtx, p);
    case CU_GRAPH_NODE_TYPE_MEMSET:
        return memset_params(&np->memset, p);
    case CU_GRAPH_NODE_TYPE_HOST:
        if (!np->host.fn)
            return CUDA_ERROR_INVALID_VALUE;
        p->host = np->host;
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH:
        return emu_graph_child_params(&np->graph, p);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: {
        CUevent e = np->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT ? np->eventWait.event : np->eventRecord.event;
        if (!e)
            return CUDA_ERROR_INVALID_VALUE;
        return (p->event = emu_obj_get(e, EMU_T_EVENT)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    }
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return alloc_params(&np->alloc, p);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return free_params(np->free.dptr, p);
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return memop_params(&np->memOp, p);
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return cond_params(hGraph, &np->conditional, p);
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        return no_ext_sem();
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static int reserved_zero(const CUgraphNodeParams *np)
{
    return !np->reserved0[0] && !np->reserved0[1] && !np->reserved0[2] && !np->reserved2;
}

static CUresult add_node(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, const CUgraphEdgeData *ed,
                         size_t n, CUgraphNodeParams *np)
{
    EMU_INIT_OR_RETURN();
    if (!out || !np || !reserved_zero(np))
        return CUDA_ERROR_INVALID_VALUE;
    union gparams p;
    CUresult r = node_params(hGraph, np, &p);
    if (r)
        return r;
    int type = (int)np->type;
    CUdeviceptr va = type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ? p.alloc.p.dptr : 0;
    CUgraph *bodies = type == CU_GRAPH_NODE_TYPE_CONDITIONAL ? p.cond.body_handles : NULL;
    struct emu_graph *child = type == CU_GRAPH_NODE_TYPE_GRAPH ? p.child : NULL;
    r = emu_graph_add(hGraph, type, &p, deps, ed, n, out);
    if (r == CUDA_SUCCESS) {
        if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
            np->alloc.dptr = va;
        if (type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
            np->conditional.phGraph_out = bodies;
        if (type == CU_GRAPH_NODE_TYPE_GRAPH)
            np->graph.graph = (CUgraph)child;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                          size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
}

TD_EXPORT CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                             const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                             CUgraphNodeParams *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams);
}

int emu_gnode_settable(int type)
{
    switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
    case CU_GRAPH_NODE_TYPE_MEMCPY:
    case CU_GRAPH_NODE_TYPE_MEMSET:
    case CU_GRAPH_NODE_TYPE_HOST:
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return 1;
    default:
        return 0;
    }
}

CUresult emu_gnode_params(CUgraphNodeParams *np, union gparams *p)
{
    if (!np || !reserved_zero(np) || !emu_gnode_settable((int)np->type))
        return CUDA_ERROR_INVALID_VALUE;
    return node_params(NULL, np, p);
}

TD_EXPORT CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    EMU_INIT_OR_RETURN();
    union gparams p;
    CUresult r = emu_gnode_params(nodeParams, &p);
    if (r)
        return r;
    return set_simple(hNode, (int)nodeParams->type, &p);
}
