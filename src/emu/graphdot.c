/* SPDX-License-Identifier: Apache-2.0 */
/* cuGraphDebugDotPrint: a graph in Graphviz's DOT language. Each graph
 * (the top one, child graphs, conditional bodies) is a cluster; each node
 * a box labelled with its type and, as the flags ask, its parameters;
 * each dependency an edge (programmatic ones dashed, with their ports).
 * CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE asks for every parameter. */
#include "graph.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct out {
    char *buf;
    size_t len, cap;
    int failed;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        size_t room = o->cap - o->len;
        int n = vsnprintf(o->buf ? o->buf + o->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            o->len += (size_t)n;
            return;
        }
        size_t nc = o->cap ? o->cap * 2 : 4096;
        while (nc - o->len <= (size_t)n)
            nc *= 2;
        char *p = realloc(o->buf, nc);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->buf = p;
        o->cap = nc;
    }
}

/* a string inside a DOT quoted label */
static void put_escaped(struct out *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            put(o, "\\%c", *s);
        else if ((unsigned char)*s >= 32 && (unsigned char)*s < 127)
            put(o, "%c", *s);
        else
            put(o, "?");
    }
}

static const char *type_name(int type, int runtime)
{
    static const char *const drv[] = { "KERNEL", "MEMCPY", "MEMSET", "HOST", "GRAPH", "EMPTY", "WAIT_EVENT",
                                       "EVENT_RECORD", "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT", "MEM_ALLOC",
                                       "MEM_FREE", "BATCH_MEM_OP", "CONDITIONAL" };
    static const char *const rt[] = { "cudaGraphNodeTypeKernel", "cudaGraphNodeTypeMemcpy", "cudaGraphNodeTypeMemset",
                                      "cudaGraphNodeTypeHost", "cudaGraphNodeTypeGraph", "cudaGraphNodeTypeEmpty",
                                      "cudaGraphNodeTypeWaitEvent", "cudaGraphNodeTypeEventRecord",
                                      "cudaGraphNodeTypeExtSemaphoreSignal", "cudaGraphNodeTypeExtSemaphoreWait",
                                      "cudaGraphNodeTypeMemAlloc", "cudaGraphNodeTypeMemFree",
                                      "cudaGraphNodeTypeBatchMemOp", "cudaGraphNodeTypeConditional" };
    if (type < 0 || type > CU_GRAPH_NODE_TYPE_CONDITIONAL)
        return "?";
    return runtime ? rt[type] : drv[type];
}

static const char *mem_type(int t)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: return "host";
    case CU_MEMORYTYPE_DEVICE: return "device";
    case CU_MEMORYTYPE_ARRAY: return "array";
    case CU_MEMORYTYPE_UNIFIED: return "unified";
    default: return "?";
    }
}

static int want(unsigned flags, unsigned bit)
{
    return (flags & (CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE | bit)) != 0;
}

static void node_params(struct out *o, const struct gnode *n, unsigned flags)
{
    const union gparams *p = &n->p;
    switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS)) {
            const char *name = NULL;
            CUfunction f = p->kernel.func ? p->kernel.func : (CUfunction)p->kernel.kern;
            if (cuFuncGetName(&name, f) != CUDA_SUCCESS)
                name = NULL;
            char dem[512];
            put(o, "\\n");
            put_escaped(o, name ? emu_demangle(name, dem, sizeof dem) : "(function gone)");
            put(o, "\\ngrid (%u,%u,%u) block (%u,%u,%u) shared %u\\n%d parameters (%zu bytes)", p->kernel.grid[0],
                p->kernel.grid[1], p->kernel.grid[2], p->kernel.block[0], p->kernel.block[1], p->kernel.block[2],
                p->kernel.shmem, p->kernel.args.n, p->kernel.args.bytes);
        }
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES) && p->kernel.attr_set)
            put(o, "\\nattributes set: 0x%x", p->kernel.attr_set);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS)) {
            const CUDA_MEMCPY3D *c = &p->memcpy.p;
            put(o, "\\n%s -> %s\\n%zu x %zu x %zu bytes", mem_type(c->srcMemoryType), mem_type(c->dstMemoryType),
                c->WidthInBytes, c->Height, c->Depth);
        }
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS))
            put(o, "\\ndst 0x%llx value 0x%x\\n%zu x %zu elements of %u bytes, pitch %zu",
                (unsigned long long)p->memset.dst, p->memset.value, p->memset.width, p->memset.height,
                p->memset.elementSize, p->memset.pitch);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS))
            put(o, "\\nfn %p data %p", (void *)(uintptr_t)p->host.fn, p->host.userData);
        break;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS))
            put(o, "\\nevent %p", (void *)p->event);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_MEM_ALLOC_NODE_PARAMS))
            put(o, "\\n%zu bytes at 0x%llx on device %d", p->alloc.p.bytesize, (unsigned long long)p->alloc.p.dptr,
                p->alloc.p.poolProps.location.id);
        break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_MEM_FREE_NODE_PARAMS))
            put(o, "\\nfree 0x%llx", (unsigned long long)p->free);
        break;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_BATCH_MEM_OP_NODE_PARAMS))
            put(o, "\\n%u operations", p->memop.count);
        break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        if (want(flags, CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS))
            put(o, "\\n%s, %u bodies\\nhandle 0x%llx",
                p->cond.type == CU_GRAPH_COND_TYPE_IF ? "IF" : p->cond.type == CU_GRAPH_COND_TYPE_WHILE ? "WHILE" : "SWITCH",
                p->cond.size, (unsigned long long)p->cond.h);
        break;
    default:
        break;
    }
}

static void print_graph(struct out *o, const struct emu_graph *g, unsigned flags, int depth)
{
    int runtime = (flags & CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES) != 0;
    put(o, "subgraph cluster_%llu {\n", g->id);
    put(o, "label=\"graph %llu", g->id);
    if (flags & CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES)
        put(o, " (%p)", (const void *)g);
    put(o, "\";\nstyle=%s;\n", depth ? "dashed" : "solid");
    for (int i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        put(o, "\"n%llu\" [shape=box label=\"%d: %s", n->id, i, type_name(n->type, runtime));
        if (flags & CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES)
            put(o, "\\nnode %p", (const void *)n);
        node_params(o, n, flags);
        put(o, "\"];\n");
    }
    for (int i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        for (int k = 0; k < n->nin; k++) {
            const CUgraphEdgeData *d = &n->in[k].d;
            put(o, "\"n%llu\" -> \"n%llu\"", n->in[k].n->id, n->id);
            if (d->type || d->from_port)
                put(o, " [style=dashed label=\"type %u port %u\"]", d->type, d->from_port);
            put(o, ";\n");
        }
    }
    put(o, "}\n");
    /* nested graphs, tied to their node */
    for (int i = 0; i < g->n; i++) {
        const struct gnode *n = g->nodes[i];
        if (n->type == CU_GRAPH_NODE_TYPE_GRAPH) {
            print_graph(o, n->p.child, flags, depth + 1);
            if (n->p.child->n)
                put(o, "\"n%llu\" -> \"n%llu\" [style=dotted arrowhead=none];\n", n->id, n->p.child->nodes[0]->id);
        } else if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            for (unsigned k = 0; k < n->p.cond.size; k++) {
                print_graph(o, n->p.cond.body[k], flags, depth + 1);
                if (n->p.cond.body[k]->n)
                    put(o, "\"n%llu\" -> \"n%llu\" [style=dotted label=\"body %u\"];\n", n->id,
                        n->p.cond.body[k]->nodes[0]->id, k);
            }
        }
    }
}

/* writes the text to path: a regular file, created (0600) or truncated,
 * never through a symbolic link */
static CUresult write_file(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? CUDA_ERROR_FILE_NOT_FOUND : CUDA_ERROR_OPERATING_SYSTEM;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || ftruncate(fd, 0)) {
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return CUDA_ERROR_OPERATING_SYSTEM;
        }
        done += (size_t)w;
    }
    return close(fd) ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS;
}

#define DOT_FLAGS 0xffffu /* CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE .. _CONDITIONAL_NODE_PARAMS */

TD_EXPORT CUresult CUDAAPI cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!path || !*path || (flags & ~DOT_FLAGS))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_graph *g = emu_graph_get(hGraph);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct out o = { NULL, 0, 0, 0 };
    put(&o, "digraph \"graph %llu\" {\ncompound=true;\n", g->id);
    emu_graph_lock();
    print_graph(&o, g, flags, 0);
    emu_graph_unlock();
    put(&o, "}\n");
    emu_graph_put(g);
    CUresult r = o.failed ? CUDA_ERROR_OUT_OF_MEMORY : write_file(path, o.buf, o.len);
    free(o.buf);
    return r;
}
