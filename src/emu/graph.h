/* SPDX-License-Identifier: Apache-2.0 */
/* Graphs: what graph.c (graphs, nodes, user objects), graphmem.c (the
 * memory of allocation nodes), capture.c (stream capture), graphnode.c
 * (node parameters checked against modules and memory), graphexec.c
 * (executable graphs) and graphdot.c (DOT output) share.
 *
 * A graph owns its nodes; a node owns its parameters (a kernel node its
 * copy of the arguments, a child graph node its graph, a conditional node
 * its body graphs, an event node a reference on the event, an allocation
 * node its graph allocation). Every graph and node is in the handle
 * registry. One lock (emu_graph_lock) guards every graph's nodes and
 * edges: graphs are small and their API is not a hot path; the CUDA
 * documentation leaves concurrent use of one graph to the program, and the
 * lock only makes sure such a program cannot crash the emulator. */
#ifndef TD_EMU_GRAPH_H
#define TD_EMU_GRAPH_H

#include "emu.h"

struct gnode;
struct emu_graph;

struct gedge {
    struct gnode *n;
    CUgraphEdgeData d;
};

/* ---- graphmem.c: graph allocations ------------------------------------ */
/* The memory of one allocation node: its address is fixed when the node
 * is made (a reserved mapping); it is in the address map (usable) from
 * the allocation node's run until it is freed. */
struct gmem {
    atomic_int refs;             /* the node, each executable and operation holding it, its entries
                                    in the address map until released */
    struct emu_device *dev;
    uintptr_t va;
    size_t size, maplen;
    pthread_mutex_t lock;        /* the state below */
    int live;                    /* allocated: in the address map */
    int backed;                  /* has run since the last trim: counts in the footprint */
    int pending;                 /* emu_gmem_pending */
    int inflight;                /* launches queued that have not finished */
    struct gmem *next;           /* every graph allocation (graphmem.c's list) */
};
/* A new graph allocation of size bytes on dev (refs 1). */
CUresult emu_gmem_new(struct emu_device *dev, size_t size, struct gmem **out);
void emu_gmem_ref(struct gmem *m);
void emu_gmem_put(struct gmem *m);
/* The graph allocation whose address is exactly p, referenced, or NULL. */
struct gmem *emu_gmem_find(uintptr_t p);
/* Its allocation node ran: it is live (the caller puts it in the address
 * map, whose entry holds the reference this takes until it is released)
 * and its memory counts in the device's footprint. 0, or -1 if it was
 * live already. */
int emu_gmem_alloced(struct gmem *m);
/* It left the address map (freed by a free node, cuMemFree or cuMemFreeAsync). */
void emu_gmem_freed(struct gmem *m);
int emu_gmem_is_live(struct gmem *m);
/* A launch that allocates it was queued: its memory counts in the
 * footprint from now (the driver reserves it at launch), and trimming
 * leaves it until emu_gmem_landed says the launch finished. */
void emu_gmem_launched(struct gmem *m);
void emu_gmem_landed(struct gmem *m);
/* In the order of the streams: whether it is allocated once the work
 * queued so far has run (a launch of a graph with its allocation node,
 * and no free node for it, queued since the last queued free). */
int emu_gmem_pending(struct gmem *m);
void emu_gmem_set_pending(struct gmem *m, int allocated);

/* ---- graph.c: graphs and nodes ----------------------------------------- */
struct gkernel {                 /* a kernel node */
    CUfunction func;             /* NULL: kern */
    CUkernel kern;
    CUcontext ctx;               /* for kern: the context it runs in */
    unsigned grid[3], block[3], shmem;
    struct emu_kargs args;
    unsigned attr_set;           /* bit i: launch attribute i was set */
    CUkernelNodeAttrValue attr[17];
};
#define GKERNEL_NATTR 17

struct gcondnode {               /* a conditional node */
    CUgraphConditionalHandle h;
    int type;                    /* CUgraphConditionalNodeType */
    unsigned size;               /* body graphs */
    struct emu_graph **body;     /* owned */
    CUgraph *body_handles;       /* what phGraph_out points at: valid while the node lives */
    CUcontext ctx;
};

struct gmemop {                  /* a batch memory operation node */
    CUcontext ctx;
    unsigned count, flags;
    CUstreamBatchMemOpParams *ops;  /* owned copy */
};

union gparams {
    struct gkernel kernel;
    struct { CUDA_MEMCPY3D p; CUcontext ctx; } memcpy;
    CUDA_MEMSET_NODE_PARAMS_v2 memset;
    CUDA_HOST_NODE_PARAMS host;
    struct emu_graph *child;     /* owned */
    struct emu_obj *event;       /* referenced */
    struct { CUDA_MEM_ALLOC_NODE_PARAMS p; struct gmem *m; } alloc;
    CUdeviceptr free;
    struct gmemop memop;
    struct gcondnode cond;
};

struct gnode {
    struct emu_obj o;            /* EMU_T_GNODE; its registry reference is the graph's */
    struct emu_graph *g;         /* owner; NULL once destroyed */
    unsigned long long id;       /* unique: what an executable graph knows it by */
    unsigned long long cloned_from; /* the id of the node this is a clone of, or 0 */
    int type;                    /* CUgraphNodeType */
    union gparams p;
    int nin, capin;              /* dependencies, in the order added */
    struct gedge *in;
    int nout, capout;            /* dependents */
    struct gedge *out;
    int mark;                    /* scratch of the graph lock's holder */
};

struct gcond {                   /* a conditional handle made on a graph */
    CUgraphConditionalHandle h;
    unsigned dflt, flags;
    CUcontext ctx;
};

struct emu_uobj;
struct guref { struct emu_uobj *u; unsigned count; };

struct emu_graph {
    struct emu_obj o;            /* EMU_T_GRAPH */
    unsigned long long id;
    unsigned long long cloned_from; /* the id of the graph this is a clone of, or 0 */
    struct gnode *owner;         /* child and body graphs: the node owning it */
    int n, cap;                  /* nodes, in the order added */
    struct gnode **nodes;
    int ncond, capcond;
    struct gcond *cond;
    int nuref, capuref;          /* user objects the graph holds references to */
    struct guref *uref;
    int execs;                   /* executable graphs made from it that still exist */
    int capturing;               /* a capture sequence adds to it */
};

void emu_graph_lock(void);
void emu_graph_unlock(void);
/* Handles, referenced (emu_graph_put / emu_gnode_put). */
struct emu_graph *emu_graph_get(CUgraph h);
struct gnode *emu_gnode_get(CUgraphNode h);
void emu_graph_put(struct emu_graph *g);
void emu_gnode_put(struct gnode *n);
/* A new graph, registered, refs: the registry's. */
CUresult emu_graph_new(struct emu_graph **out);
/* Frees what it owns and unregisters it (graph lock held). */
void emu_graph_destroy_locked(struct emu_graph *g);
/* Reads a dependency list from the program: every node must be a live
 * node of g, no duplicates, edge data valid. CUDA_ERROR_INVALID_VALUE
 * otherwise (graph lock held). */
CUresult emu_graph_deps(struct emu_graph *g, const CUgraphNode *deps, const CUgraphEdgeData *ed,
                        size_t n, struct gedge **out);
/* Adds a node of type with parameters p (taken, also on failure: freed)
 * after deps (graph lock held). */
CUresult emu_graph_add_locked(struct emu_graph *g, int type, union gparams *p, const struct gedge *deps,
                              size_t ndeps, struct gnode **out);
/* The same for a handle and the program's dependency list; locks. */
CUresult emu_graph_add(CUgraph h, int type, union gparams *p, const CUgraphNode *deps,
                       const CUgraphEdgeData *ed, size_t ndeps, CUgraphNode *out);
/* Frees a node's parameters (graph lock held). */
void emu_gparams_free(int type, union gparams *p);
/* A deep copy (graph lock held): child and body graphs cloned. */
CUresult emu_gparams_copy(int type, const union gparams *src, union gparams *dst);
/* Whether g (with its child graphs) holds a node of type (graph lock held). */
int emu_graph_has(const struct emu_graph *g, int type);
/* The graph at the top of g's nesting (graph lock held). */
struct emu_graph *emu_graph_root(struct emu_graph *g);
/* Conditional handle h as made on g or a graph g is nested in, or NULL. */
const struct gcond *emu_graph_cond(struct emu_graph *g, CUgraphConditionalHandle h);
/* g's nodes in an order where every node follows its dependencies, or
 * CUDA_ERROR_INVALID_VALUE if the graph has a cycle (graph lock held);
 * the caller frees *order. */
CUresult emu_graph_topo(const struct emu_graph *g, struct gnode ***order);
/* Node validation shared by graph.c and graphnode.c: the node of handle
 * h (graph lock held). */
CUresult emu_gnode_locked(CUgraphNode h, int type, struct gnode **out);

/* User objects: a reference count the program, graphs and executable
 * graphs share; at zero the destructor runs on the emulator's destructor
 * thread (as the driver runs it, never inside a driver call). */
void emu_uobj_retain(struct emu_uobj *u, unsigned count);
void emu_uobj_release(struct emu_uobj *u, unsigned count);
/* count references, and the object itself (a graph's or executable's hold) */
void emu_uobj_hold(struct emu_uobj *u, unsigned count);
void emu_uobj_unhold(struct emu_uobj *u, unsigned count);
/* the object of a handle, referenced (NULL if none); a reference taken
 * and dropped (the object, not the count) */
struct emu_uobj *emu_uobj_get(CUuserObject h);
void emu_uobj_ref(struct emu_uobj *u);
void emu_uobj_put(struct emu_uobj *u);

/* A child graph node's graph: a clone of cp->graph, or the graph itself
 * when its ownership moves to the node. */
CUresult emu_graph_child_params(const CUDA_CHILD_GRAPH_NODE_PARAMS *cp, union gparams *p);

/* ---- graphnode.c -------------------------------------------------------- */
/* The node types cuGraphNodeSetParams and cuGraphExecNodeSetParams change:
 * the others' parameters are fixed once made. */
int emu_gnode_settable(int type);
/* The checked parameters of a settable node type (cuGraphNodeSetParams). */
CUresult emu_gnode_params(CUgraphNodeParams *np, union gparams *p);

#endif
