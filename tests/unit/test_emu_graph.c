/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: graphs. Nodes, edges and their queries, clones, every node
 * type the emulator runs (checked against host computations), launches
 * in dependency order, executable graphs' parameters, updates, enabling,
 * conditional nodes, memory nodes and the graph memory footprint, user
 * objects, DOT output; bad input of each. Stream capture is
 * test_emu_capture.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#include "emu_graph_kernels.h"

static CUcontext ctx;
static CUmodule mod;
static CUfunction axpb, setcond, countdown;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoadData(&mod, ptx) ||
        cuModuleGetFunction(&axpb, mod, "axpb") || cuModuleGetFunction(&setcond, mod, "setcond") ||
        cuModuleGetFunction(&countdown, mod, "countdown"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy_v2(ctx) ? -1 : 0;
}

/* ---- helpers --------------------------------------------------------------- */

static CUgraphNode empty(CUgraph g, const CUgraphNode *deps, size_t n)
{
    CUgraphNode x;
    OK(cuGraphAddEmptyNode(&x, g, deps, n));
    return x;
}

/* host nodes that log the order they ran in */
static atomic_int order_n;
static int order_v[256];
static void log_node(void *arg)
{
    int i = atomic_fetch_add(&order_n, 1);
    if (i < 256)
        order_v[i] = (int)(intptr_t)arg;
}

static CUgraphNode host_log(CUgraph g, const CUgraphNode *deps, size_t n, int id)
{
    CUDA_HOST_NODE_PARAMS hp = { log_node, (void *)(intptr_t)id };
    CUgraphNode x;
    OK(cuGraphAddHostNode(&x, g, deps, n, &hp));
    return x;
}

static int pos_of(int id)
{
    for (int i = 0; i < atomic_load(&order_n) && i < 256; i++)
        if (order_v[i] == id)
            return i;
    return -1;
}

static CUgraphNode kernel_node(CUgraph g, const CUgraphNode *deps, size_t n, CUdeviceptr *p, unsigned *count,
                               unsigned *a, unsigned *b)
{
    void *args[] = { p, count, a, b };
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = axpb;
    kp.gridDimX = (*count + 63) / 64;
    kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 64;
    kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CUgraphNode x;
    OK(cuGraphAddKernelNode_v2(&x, g, deps, n, &kp));
    return x;
}

static CUDA_MEMCPY3D copy1d(CUmemorytype dt, void *dh, CUdeviceptr dd, CUmemorytype st, const void *sh,
                            CUdeviceptr sd, size_t bytes)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.dstMemoryType = dt;
    c.dstHost = dh;
    c.dstDevice = dd;
    c.srcMemoryType = st;
    c.srcHost = sh;
    c.srcDevice = sd;
    c.WidthInBytes = bytes;
    c.Height = c.Depth = 1;
    return c;
}

static void run_once(CUgraph g, CUstream s)
{
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, s));
    OK(cuStreamSynchronize(s));
    OK(cuGraphExecDestroy(e));
}

/* ---- graphs, nodes, edges ---------------------------------------------------- */

static void test_create_and_bad_handles(void **state)
{
    (void)state;
    CUgraph g;
    ERR(cuGraphCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphCreate(&g, 0));
    CUgraphNode n;
    ERR(cuGraphAddEmptyNode(&n, (CUgraph)&n, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddEmptyNode(NULL, g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddEmptyNode(&n, g, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphNode bogus = (CUgraphNode)&g;
    ERR(cuGraphAddEmptyNode(&n, g, &bogus, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphNodeType t;
    ERR(cuGraphNodeGetType(bogus, &t), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphNodeGetType(NULL, &t), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphDestroyNode(bogus), CUDA_ERROR_INVALID_VALUE);
    CUDA_HOST_NODE_PARAMS hp = { NULL, NULL };
    ERR(cuGraphAddHostNode(&n, g, NULL, 0, &hp), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddHostNode(&n, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddEventRecordNode(&n, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddEventRecordNode(&n, g, NULL, 0, (CUevent)&g), CUDA_ERROR_INVALID_HANDLE);
    OK(cuGraphDestroy(g));
    ERR(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
    CUgraphExec e;
    ERR(cuGraphInstantiateWithFlags(&e, g, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphLaunch((CUgraphExec)&g, NULL), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphExecDestroy((CUgraphExec)&g), CUDA_ERROR_INVALID_VALUE);
}

static void test_topology(void **state)
{
    (void)state;
    CUgraph g, h;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphCreate(&h, 0));
    CUgraphNode a = empty(g, NULL, 0);
    CUgraphNode b = empty(g, &a, 1);
    CUgraphNode c = empty(g, &a, 1);
    CUgraphNode bc[2] = { b, c };
    CUgraphNode d = empty(g, bc, 2);
    CUgraphNode other = empty(h, NULL, 0);
    size_t n = 0;
    OK(cuGraphGetNodes(g, NULL, &n));
    assert_int_equal(n, 4);
    CUgraphNode nodes[6];
    n = 6;
    OK(cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 4);
    assert_ptr_equal(nodes[0], a);
    assert_ptr_equal(nodes[3], d);
    assert_null(nodes[4]);
    n = 2; /* fewer than there are: the first two */
    OK(cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 2);
    OK(cuGraphGetRootNodes(g, NULL, &n));
    assert_int_equal(n, 1);
    OK(cuGraphGetRootNodes(g, nodes, &n));
    assert_ptr_equal(nodes[0], a);
    OK(cuGraphGetEdges(g, NULL, NULL, &n));
    assert_int_equal(n, 4);
    CUgraphNode from[4], to[4];
    OK(cuGraphGetEdges(g, from, to, &n));
    int ab = 0, cd = 0;
    for (int i = 0; i < 4; i++) {
        ab += from[i] == a && to[i] == b;
        cd += from[i] == c && to[i] == d;
    }
    assert_int_equal(ab, 1);
    assert_int_equal(cd, 1);
    OK(cuGraphNodeGetDependencies(d, NULL, &n));
    assert_int_equal(n, 2);
    OK(cuGraphNodeGetDependentNodes(a, nodes, &n));
    assert_int_equal(n, 2);
    /* bad edges: repeated, to itself, across graphs, missing ones */
    ERR(cuGraphAddDependencies(g, &a, &b, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddDependencies(g, &a, &a, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddDependencies(g, &a, &other, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphRemoveDependencies(g, &b, &c, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddDependencies(g, NULL, &b, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphNode twice[2] = { a, a };
    ERR(cuGraphAddEmptyNode(&nodes[5], g, twice, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphAddDependencies(g, &b, &c, 1));
    OK(cuGraphNodeGetDependencies(c, NULL, &n));
    assert_int_equal(n, 2);
    OK(cuGraphRemoveDependencies(g, &b, &c, 1));
    OK(cuGraphNodeGetDependencies(c, NULL, &n));
    assert_int_equal(n, 1);
    /* a cycle is found at instantiation */
    OK(cuGraphAddDependencies(g, &d, &a, 1));
    CUgraphExec e;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ERR(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(ip.result_out, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
    OK(cuGraphRemoveDependencies(g, &d, &a, 1));
    /* edge data: programmatic edges only from kernel nodes; a query
     * without edge data of edges that have some is lossy */
    CUgraphEdgeData ed;
    memset(&ed, 0, sizeof ed);
    ed.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    CUgraphNode k;
    ERR(cuGraphAddDependencies_v2(g, &a, &d, &ed, 1), CUDA_ERROR_INVALID_VALUE);
    unsigned count = 4, m1 = 1, z = 0;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 16));
    k = kernel_node(g, NULL, 0, &p, &count, &m1, &z);
    OK(cuGraphAddDependencies_v2(g, &k, &d, &ed, 1));
    n = 3;
    ERR(cuGraphNodeGetDependencies(d, nodes, &n), CUDA_ERROR_LOSSY_QUERY);
    CUgraphEdgeData eds[3];
    n = 3;
    OK(cuGraphNodeGetDependencies_v2(d, nodes, eds, &n));
    assert_int_equal(n, 3);
    assert_int_equal(eds[2].type, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC);
    ed.reserved[0] = 1;
    ERR(cuGraphAddDependencies_v2(g, &k, &c, &ed, 1), CUDA_ERROR_INVALID_VALUE);
    /* destroying a node takes its edges */
    OK(cuGraphDestroyNode(b));
    CUgraphNodeType t;
    ERR(cuGraphNodeGetType(b, &t), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphNodeGetDependencies(d, NULL, &n));
    assert_int_equal(n, 2);
    OK(cuGraphNodeGetDependentNodes(a, NULL, &n));
    assert_int_equal(n, 1);
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(h));
    OK(cuMemFree_v2(p));
}

/* ---- running graphs ----------------------------------------------------------- */

/* memset -> kernel -> copy to the host, and a host node after it: the
 * results are the host's computation, launch after launch */
static void test_launch_work(void **state)
{
    (void)state;
    enum { N = 1000 };
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, N * 4));
    static unsigned out[N];
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS mp = { p, 0, 5, 4, N, 1 };
    CUgraphNode set, k, cp, host;
    OK(cuGraphAddMemsetNode(&set, g, NULL, 0, &mp, ctx));
    unsigned count = N, a = 3, b = 1;
    k = kernel_node(g, &set, 1, &p, &count, &a, &b);
    CUDA_MEMCPY3D c = copy1d(CU_MEMORYTYPE_HOST, out, 0, CU_MEMORYTYPE_DEVICE, NULL, p, N * 4);
    OK(cuGraphAddMemcpyNode(&cp, g, &k, 1, &c, ctx));
    atomic_store(&order_n, 0);
    host = host_log(g, &cp, 1, 7);
    (void)host;
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    for (int launch = 0; launch < 3; launch++) {
        memset(out, 0, sizeof out);
        OK(cuGraphLaunch(e, s));
        OK(cuStreamSynchronize(s));
        for (int i = 0; i < N; i++)
            assert_int_equal(out[i], 5 * 3 + 1);
    }
    assert_int_equal(atomic_load(&order_n), 3);
    /* the node's parameters are the node's: what GetParams gives back */
    CUDA_KERNEL_NODE_PARAMS kp;
    OK(cuGraphKernelNodeGetParams_v2(k, &kp));
    assert_ptr_equal(kp.func, axpb);
    assert_int_equal(kp.gridDimX, (N + 63) / 64);
    assert_int_equal(*(unsigned *)kp.kernelParams[2], 3);
    CUDA_MEMSET_NODE_PARAMS mg;
    OK(cuGraphMemsetNodeGetParams(set, &mg));
    assert_int_equal(mg.value, 5);
    CUDA_MEMCPY3D cg;
    OK(cuGraphMemcpyNodeGetParams(cp, &cg));
    assert_int_equal(cg.WidthInBytes, N * 4);
    /* an executable's node changed: the next launch uses it, the graph
     * keeps its own */
    unsigned a2 = 2, b2 = 10;
    void *args2[] = { &p, &count, &a2, &b2 };
    kp.kernelParams = args2;
    OK(cuGraphExecKernelNodeSetParams_v2(e, k, &kp));
    OK(cuGraphLaunch(e, s));
    OK(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        assert_int_equal(out[i], 5 * 2 + 10);
    OK(cuGraphKernelNodeGetParams_v2(k, &kp));
    assert_int_equal(*(unsigned *)kp.kernelParams[2], 3);
    /* bad parameters */
    kp.gridDimX = 0;
    ERR(cuGraphExecKernelNodeSetParams_v2(e, k, &kp), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphKernelNodeSetParams_v2(k, &kp), CUDA_ERROR_INVALID_VALUE);
    kp.gridDimX = 1;
    kp.func = (CUfunction)&kp;
    ERR(cuGraphKernelNodeSetParams_v2(k, &kp), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphExecKernelNodeSetParams_v2(e, set, &kp), CUDA_ERROR_INVALID_VALUE);
    mp.elementSize = 3;
    ERR(cuGraphMemsetNodeSetParams(set, &mp), CUDA_ERROR_INVALID_VALUE);
    mp.elementSize = 4;
    mp.width = N + 1; /* past the allocation */
    ERR(cuGraphMemsetNodeSetParams(set, &mp), CUDA_ERROR_INVALID_VALUE);
    c.WidthInBytes = N * 4 + 4;
    ERR(cuGraphMemcpyNodeSetParams(cp, &c), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphAddMemcpyNode(&cp, g, NULL, 0, &c, ctx), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFree_v2(p));
}

/* Every edge is respected, whatever the order of the independent ones:
 * a random graph of host nodes, launched into a stream. */
static void test_dependency_order(void **state)
{
    (void)state;
    enum { N = 60 };
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nodes[N];
    int dep[N][4], ndep[N];
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        CUgraphNode d[4];
        ndep[i] = 0;
        for (int k = 0; k < 4 && i > 0; k++) {
            seed = seed * 1103515245u + 12345u;
            int j = (int)((seed >> 8) % (unsigned)i);
            int seen = 0;
            for (int m = 0; m < ndep[i]; m++)
                seen |= dep[i][m] == j;
            if (!seen && (seed >> 20) % 3) {
                dep[i][ndep[i]] = j;
                d[ndep[i]++] = nodes[j];
            }
        }
        nodes[i] = host_log(g, d, (size_t)ndep[i], i);
    }
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    for (int launch = 0; launch < 2; launch++) {
        atomic_store(&order_n, 0);
        OK(cuGraphLaunch(e, NULL));
        OK(cuCtxSynchronize());
        assert_int_equal(atomic_load(&order_n), N);
        for (int i = 0; i < N; i++)
            for (int m = 0; m < ndep[i]; m++)
                assert_true(pos_of(dep[i][m]) < pos_of(i));
    }
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
}

/* a child graph runs where its node is; the node keeps its own copy */
static void test_child_graph(void **state)
{
    (void)state;
    CUgraph child, g;
    OK(cuGraphCreate(&child, 0));
    CUgraphNode c1 = host_log(child, NULL, 0, 1);
    host_log(child, &c1, 1, 2);
    OK(cuGraphCreate(&g, 0));
    CUgraphNode before = host_log(g, NULL, 0, 0), node;
    OK(cuGraphAddChildGraphNode(&node, g, &before, 1, child));
    host_log(g, &node, 1, 3);
    host_log(child, NULL, 0, 99); /* after the copy: not in the node */
    CUgraph inner;
    OK(cuGraphChildGraphNodeGetGraph(node, &inner));
    assert_ptr_not_equal(inner, child);
    size_t n;
    OK(cuGraphGetNodes(inner, NULL, &n));
    assert_int_equal(n, 2);
    ERR(cuGraphDestroy(inner), CUDA_ERROR_INVALID_VALUE); /* the node's */
    atomic_store(&order_n, 0);
    run_once(g, NULL);
    assert_int_equal(atomic_load(&order_n), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(order_v[i], i);
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(node, &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_GRAPH);
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(child));
}

/* event record and wait nodes order work across streams */
static int gate_open;
static void gate(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE))
        usleep(1000);
    log_node((void *)1);
}

static void test_event_nodes(void **state)
{
    (void)state;
    CUevent ev;
    OK(cuEventCreate(&ev, 0));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode w, r;
    OK(cuGraphAddEventWaitNode(&w, g, NULL, 0, ev));
    host_log(g, &w, 1, 2);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    atomic_store(&order_n, 0);
    __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
    OK(cuLaunchHostFunc(s1, gate, NULL));
    OK(cuEventRecord(ev, s1));
    OK(cuGraphLaunch(e, s2)); /* waits for the gate, through the event */
    usleep(20000);
    assert_int_equal(atomic_load(&order_n), 0);
    __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
    OK(cuStreamSynchronize(s2));
    assert_int_equal(order_v[0], 1);
    assert_int_equal(order_v[1], 2);
    OK(cuGraphExecDestroy(e));
    CUevent got;
    OK(cuGraphEventWaitNodeGetEvent(w, &got));
    assert_ptr_equal(got, ev);
    ERR(cuGraphEventRecordNodeGetEvent(w, &got), CUDA_ERROR_INVALID_VALUE);
    /* a record node: the event completes when the graph reaches it */
    OK(cuGraphDestroy(g));
    OK(cuGraphCreate(&g, 0));
    CUgraphNode h = host_log(g, NULL, 0, 5);
    OK(cuGraphAddEventRecordNode(&r, g, &h, 1, ev));
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    atomic_store(&order_n, 0);
    __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
    OK(cuLaunchHostFunc(s1, gate, NULL));
    OK(cuGraphLaunch(e, s1));
    ERR(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
    __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
    OK(cuEventSynchronize(ev));
    assert_int_equal(atomic_load(&order_n), 2);
    CUevent ev2;
    OK(cuEventCreate(&ev2, 0));
    OK(cuGraphExecEventRecordNodeSetEvent(e, r, ev2));
    OK(cuGraphLaunch(e, s1));
    OK(cuEventSynchronize(ev2));
    OK(cuGraphEventRecordNodeSetEvent(r, ev2));
    OK(cuGraphEventRecordNodeGetEvent(r, &got));
    assert_ptr_equal(got, ev2);
    OK(cuStreamSynchronize(s1));
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy_v2(ev));
    OK(cuEventDestroy_v2(ev2));
    OK(cuStreamDestroy_v2(s1));
    OK(cuStreamDestroy_v2(s2));
}

/* ---- clones ------------------------------------------------------------------ */

static void test_clone(void **state)
{
    (void)state;
    CUgraph g, c;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode a = host_log(g, NULL, 0, 1);
    CUgraphNode b = host_log(g, &a, 1, 2);
    OK(cuGraphClone(&c, g));
    host_log(g, &b, 1, 3); /* after the clone: not in it */
    size_t n;
    OK(cuGraphGetNodes(c, NULL, &n));
    assert_int_equal(n, 2);
    CUgraphNode cb;
    OK(cuGraphNodeFindInClone(&cb, b, c));
    assert_ptr_not_equal(cb, b);
    CUDA_HOST_NODE_PARAMS hp;
    OK(cuGraphHostNodeGetParams(cb, &hp));
    assert_int_equal((int)(intptr_t)hp.userData, 2);
    CUgraphNode d;
    n = 1;
    OK(cuGraphNodeGetDependencies(cb, &d, &n));
    CUgraphNode ca;
    OK(cuGraphNodeFindInClone(&ca, a, c));
    assert_ptr_equal(d, ca);
    ERR(cuGraphNodeFindInClone(&cb, b, g), CUDA_ERROR_INVALID_VALUE); /* not a clone of it */
    atomic_store(&order_n, 0);
    run_once(c, NULL);
    assert_int_equal(atomic_load(&order_n), 2);
    /* graphs with memory nodes cannot be cloned */
    CUgraph m, mc;
    OK(cuGraphCreate(&m, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.bytesize = 64;
    CUgraphNode an;
    OK(cuGraphAddMemAllocNode(&an, m, NULL, 0, &ap));
    ERR(cuGraphClone(&mc, m), CUDA_ERROR_NOT_SUPPORTED);
    ERR(cuGraphAddChildGraphNode(&an, g, NULL, 0, m), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(m));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(c));
}

/* ---- conditional nodes ------------------------------------------------------------ */

static CUgraphNode add_cond(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphConditionalHandle h,
                            CUgraphConditionalNodeType type, unsigned size, CUgraph **bodies)
{
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    np.conditional.handle = h;
    np.conditional.type = type;
    np.conditional.size = size;
    np.conditional.ctx = ctx;
    CUgraphNode x;
    OK(cuGraphAddNode(&x, g, deps, n, &np));
    *bodies = np.conditional.phGraph_out;
    return x;
}

static CUgraphNode setcond_node(CUgraph g, const CUgraphNode *deps, size_t n, CUgraphConditionalHandle *h,
                                CUdeviceptr *p)
{
    void *args[] = { h, p };
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = setcond;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CUgraphNode x;
    OK(cuGraphAddKernelNode_v2(&x, g, deps, n, &kp));
    return x;
}

/* IF with an ELSE, and SWITCH: a kernel sets the condition, the body the
 * value chooses runs, launch after launch */
static void test_conditional_if_switch(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
    CUgraphNode k = setcond_node(g, NULL, 0, &h, &p);
    CUgraph *bodies;
    CUgraphNode c = add_cond(g, &k, 1, h, CU_GRAPH_COND_TYPE_IF, 2, &bodies);
    host_log(bodies[0], NULL, 0, 100);
    host_log(bodies[1], NULL, 0, 200);
    /* host nodes are not allowed in a body: instantiation says so */
    CUgraphExec e;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ERR(cuGraphInstantiateWithParams(&e, g, &ip), CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(ip.result_out, CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED);
    assert_non_null(ip.hErrNode_out);
    OK(cuGraphDestroyNode(c));
    OK(cuGraphDestroyNode(k));
    OK(cuGraphDestroy(g));
    /* the same with kernels: the IF body adds 1, the ELSE body 10 */
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
    k = setcond_node(g, NULL, 0, &h, &p);
    c = add_cond(g, &k, 1, h, CU_GRAPH_COND_TYPE_IF, 2, &bodies);
    CUdeviceptr acc;
    OK(cuMemAlloc_v2(&acc, 4));
    unsigned one = 1, m1 = 1, add1 = 1, add10 = 10;
    kernel_node(bodies[0], NULL, 0, &acc, &one, &m1, &add1);
    kernel_node(bodies[1], NULL, 0, &acc, &one, &m1, &add10);
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    /* one executable at a time for a graph with conditional nodes */
    CUgraphExec e2;
    ERR(cuGraphInstantiateWithFlags(&e2, g, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphClone(&g, g), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuMemsetD32_v2(acc, 0, 1));
    unsigned vals[] = { 1, 0, 7, 0 }, got;
    for (int i = 0; i < 4; i++) {
        OK(cuMemcpyHtoD_v2(p, &vals[i], 4));
        OK(cuGraphLaunch(e, NULL));
        OK(cuCtxSynchronize());
    }
    OK(cuMemcpyDtoH_v2(&got, acc, 4));
    assert_int_equal(got, 1 + 10 + 1 + 10);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    /* SWITCH over 3 bodies: body i adds 10^i; 3 and more: none */
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
    k = setcond_node(g, NULL, 0, &h, &p);
    c = add_cond(g, &k, 1, h, CU_GRAPH_COND_TYPE_SWITCH, 3, &bodies);
    unsigned adds[3] = { 1, 10, 100 };
    for (int i = 0; i < 3; i++)
        kernel_node(bodies[i], NULL, 0, &acc, &one, &m1, &adds[i]);
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuMemsetD32_v2(acc, 0, 1));
    unsigned sw[] = { 2, 0, 5, 1, 2 };
    for (int i = 0; i < 5; i++) {
        OK(cuMemcpyHtoD_v2(p, &sw[i], 4));
        OK(cuGraphLaunch(e, NULL));
        OK(cuCtxSynchronize());
    }
    OK(cuMemcpyDtoH_v2(&got, acc, 4));
    assert_int_equal(got, 100 + 1 + 10 + 100);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuMemFree_v2(p));
    OK(cuMemFree_v2(acc));
}

/* WHILE, with the condition's default applied at each launch: the body
 * counts down from 5, setting the condition to 0 at the end */
static void test_conditional_while(void **state)
{
    (void)state;
    CUdeviceptr p, logd;
    OK(cuMemAlloc_v2(&p, 4));
    OK(cuMemAlloc_v2(&logd, 64));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    ERR(cuGraphConditionalHandleCreate(&h, g, ctx, 1, 2), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphConditionalHandleCreate(NULL, g, ctx, 1, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraph *bodies;
    add_cond(g, NULL, 0, h, CU_GRAPH_COND_TYPE_WHILE, 1, &bodies);
    void *args[] = { &p, &h, &logd };
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = countdown;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CUgraphNode k;
    OK(cuGraphAddKernelNode_v2(&k, bodies[0], NULL, 0, &kp));
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    for (int rep = 0; rep < 2; rep++) {
        unsigned five = 5, log[16];
        OK(cuMemsetD32_v2(logd, 0, 16));
        OK(cuMemcpyHtoD_v2(p, &five, 4));
        OK(cuGraphLaunch(e, NULL));
        OK(cuCtxSynchronize());
        OK(cuMemcpyDtoH_v2(log, logd, 64));
        for (int i = 0; i < 16; i++)
            assert_int_equal(log[i], i >= 1 && i <= 5);
    }
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    /* bad conditional nodes: a handle of another graph, a WHILE of 2, sizes 0 */
    CUgraph g2;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphConditionalHandleCreate(&h, g2, ctx, 0, 0));
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    np.conditional.handle = h;
    np.conditional.type = CU_GRAPH_COND_TYPE_IF;
    np.conditional.size = 1;
    CUgraphNode x;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphConditionalHandleCreate(&h, g, ctx, 0, 0));
    np.conditional.handle = h;
    np.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    np.conditional.size = 2;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
    np.conditional.size = 0;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
    np.conditional.type = (CUgraphConditionalNodeType)7;
    np.conditional.size = 1;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
    np.conditional.type = CU_GRAPH_COND_TYPE_IF;
    np.reserved2 = 1;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(g2));
    OK(cuMemFree_v2(p));
    OK(cuMemFree_v2(logd));
}

/* a kernel that sets a condition outside a graph faults its launch */
static void test_setcond_outside_graph(void **state)
{
    (void)state;
    CUcontext c2;
    OK(cuCtxCreate(&c2, 0, 0));
    CUmodule m2;
    CUfunction f;
    OK(cuModuleLoadData(&m2, ptx));
    OK(cuModuleGetFunction(&f, m2, "setcond"));
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4));
    unsigned long long h = 1;
    void *args[] = { &h, &p };
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    ERR(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    OK(cuCtxDestroy_v2(c2));
    OK(cuCtxSetCurrent(ctx));
}
/* ---- memory nodes ------------------------------------------------------------------- */

static cuuint64_t footprint(int attr)
{
    cuuint64_t v;
    OK(cuDeviceGetGraphMemAttribute(0, (CUgraphMem_attribute)attr, &v));
    return v;
}

static CUgraphNode alloc_node(CUgraph g, const CUgraphNode *deps, size_t n, size_t bytes, CUdeviceptr *out)
{
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.bytesize = bytes;
    CUgraphNode x;
    OK(cuGraphAddMemAllocNode(&x, g, deps, n, &ap));
    *out = ap.dptr;
    return x;
}

/* allocation -> memset -> kernel -> copy out -> free, launched again and
 * again; the address is the node's for good; the footprint counts it
 * until trimmed */
static void test_memory_nodes(void **state)
{
    (void)state;
    OK(cuDeviceGraphMemTrim(0));
    cuuint64_t zero = 0;
    OK(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero));
    cuuint64_t base = footprint(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT);
    enum { N = 256 };
    static unsigned out[N];
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUdeviceptr p;
    CUgraphNode a = alloc_node(g, NULL, 0, N * 4, &p);
    assert_true(p != 0);
    CUDA_MEMSET_NODE_PARAMS mp = { p, 0, 9, 4, N, 1 };
    CUgraphNode set, cp, fr;
    OK(cuGraphAddMemsetNode(&set, g, &a, 1, &mp, ctx));
    unsigned count = N, m = 2, add = 3;
    CUgraphNode k = kernel_node(g, &set, 1, &p, &count, &m, &add);
    CUDA_MEMCPY3D c = copy1d(CU_MEMORYTYPE_HOST, out, 0, CU_MEMORYTYPE_DEVICE, NULL, p, N * 4);
    OK(cuGraphAddMemcpyNode(&cp, g, &k, 1, &c, ctx));
    OK(cuGraphAddMemFreeNode(&fr, g, &cp, 1, p));
    /* freed once in its graph; only graph allocations; nothing else frees it */
    CUgraphNode x;
    ERR(cuGraphAddMemFreeNode(&x, g, &fr, 1, p), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr plain;
    OK(cuMemAlloc_v2(&plain, 64));
    ERR(cuGraphAddMemFreeNode(&x, g, NULL, 0, plain), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphDestroyNode(set), CUDA_ERROR_INVALID_VALUE); /* graphs with memory nodes keep their nodes */
    ERR(cuGraphRemoveDependencies(g, &a, &set, 1), CUDA_ERROR_INVALID_VALUE);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    CUgraphExec e2;
    ERR(cuGraphInstantiateWithFlags(&e2, g, 0), CUDA_ERROR_INVALID_VALUE); /* one at a time */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    for (int rep = 0; rep < 3; rep++) {
        memset(out, 0, sizeof out);
        OK(cuGraphLaunch(e, s));
        OK(cuStreamSynchronize(s));
        for (int i = 0; i < N; i++)
            assert_int_equal(out[i], 9 * 2 + 3);
    }
    assert_int_equal(footprint(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) - base, N * 4);
    assert_true(footprint(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH) >= N * 4);
    assert_int_equal(footprint(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) - base, N * 4);
    unsigned v;
    ERR(cuMemcpyDtoH_v2(&v, p, 4), CUDA_ERROR_INVALID_VALUE); /* freed by the graph */
    OK(cuDeviceGraphMemTrim(0));
    assert_int_equal(footprint(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), base);
    OK(cuGraphLaunch(e, s)); /* the address still works after a trim */
    OK(cuStreamSynchronize(s));
    assert_int_equal(out[N - 1], 9 * 2 + 3);
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    OK(cuGraphMemAllocNodeGetParams(a, &ap));
    assert_int_equal(ap.dptr, p);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    /* bad attributes */
    cuuint64_t one = 1;
    ERR(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &one), CUDA_ERROR_INVALID_VALUE);
    ERR(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &zero), CUDA_ERROR_INVALID_VALUE);
    ERR(cuDeviceGetGraphMemAttribute(0, (CUgraphMem_attribute)9, &one), CUDA_ERROR_INVALID_VALUE);
    ERR(cuDeviceGetGraphMemAttribute(9, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &one), CUDA_ERROR_INVALID_DEVICE);
    ERR(cuDeviceGraphMemTrim(-1), CUDA_ERROR_INVALID_DEVICE);
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFree_v2(plain));
}

/* an allocation the graph does not free: usable after the launch, until
 * freed; relaunching before that fails unless auto-free was asked for */
static void test_unfreed_allocation(void **state)
{
    (void)state;
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUdeviceptr p;
    CUgraphNode a = alloc_node(g, NULL, 0, 64, &p);
    CUDA_MEMSET_NODE_PARAMS mp = { p, 0, 0x11, 1, 64, 1 };
    CUgraphNode set;
    OK(cuGraphAddMemsetNode(&set, g, &a, 1, &mp, ctx));
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, NULL));
    ERR(cuGraphLaunch(e, NULL), CUDA_ERROR_INVALID_VALUE); /* still allocated */
    OK(cuCtxSynchronize());
    unsigned char b[64];
    OK(cuMemcpyDtoH_v2(b, p, 64)); /* usable after the graph */
    assert_int_equal(b[63], 0x11);
    OK(cuMemFree_v2(p));
    ERR(cuMemcpyDtoH_v2(b, p, 64), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphLaunch(e, NULL)); /* freed: again */
    OK(cuMemFreeAsync(p, NULL)); /* in stream order: before the graph's allocation ran */
    OK(cuGraphLaunch(e, NULL));
    OK(cuCtxSynchronize());
    OK(cuGraphExecDestroy(e));
    OK(cuMemFree_v2(p));
    /* auto-free on launch */
    OK(cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    cuuint64_t flags;
    OK(cuGraphExecGetFlags(e, &flags));
    assert_int_equal(flags, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
    for (int i = 0; i < 3; i++)
        OK(cuGraphLaunch(e, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(b, p, 64));
    assert_int_equal(b[0], 0x11);
    /* each launch's allocation is there after it, also when the one it
     * freed was in use by a copy */
    for (int i = 0; i < 3; i++) {
        OK(cuMemsetD8Async(p, 0, 64, NULL));
        OK(cuGraphLaunch(e, NULL));
        OK(cuCtxSynchronize());
        OK(cuMemcpyDtoH_v2(b, p, 64));
        assert_int_equal(b[5], 0x11);
    }
    OK(cuGraphExecDestroy(e));
    OK(cuMemFree_v2(p)); /* the last launch's, outliving its executable */
    OK(cuGraphDestroy(g));
    /* a free node in another graph */
    CUgraph f;
    OK(cuGraphCreate(&g, 0));
    alloc_node(g, NULL, 0, 64, &p);
    OK(cuGraphCreate(&f, 0));
    CUgraphNode fr;
    OK(cuGraphAddMemFreeNode(&fr, f, NULL, 0, p));
    CUgraphExec ef;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphInstantiateWithFlags(&ef, f, 0));
    for (int i = 0; i < 2; i++) {
        OK(cuGraphLaunch(e, NULL));
        OK(cuGraphLaunch(ef, NULL));
    }
    OK(cuCtxSynchronize());
    ERR(cuMemcpyDtoH_v2(b, p, 64), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphExecDestroy(ef));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(f));
    /* bad allocation parameters */
    OK(cuGraphCreate(&g, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUgraphNode x;
    ERR(cuGraphAddMemAllocNode(&x, g, NULL, 0, &ap), CUDA_ERROR_INVALID_VALUE); /* 0 bytes */
    ap.bytesize = 64;
    ap.poolProps.location.id = 5;
    ERR(cuGraphAddMemAllocNode(&x, g, NULL, 0, &ap), CUDA_ERROR_INVALID_VALUE);
    ap.poolProps.location.id = 0;
    ap.poolProps.allocType = (CUmemAllocationType)0;
    ERR(cuGraphAddMemAllocNode(&x, g, NULL, 0, &ap), CUDA_ERROR_INVALID_VALUE);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.accessDescCount = 1;
    ERR(cuGraphAddMemAllocNode(&x, g, NULL, 0, &ap), CUDA_ERROR_INVALID_VALUE); /* no descriptors */
    ERR(cuGraphAddMemAllocNode(&x, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g));
}

/* ---- executable graphs: updates and enabling ---------------------------------------------- */

static void test_exec_update(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64 * 4));
    unsigned count = 64, m = 1, add = 1, add2 = 100;
    CUgraph g1, g2;
    OK(cuGraphCreate(&g1, 0));
    CUgraphNode h1 = host_log(g1, NULL, 0, 1);
    kernel_node(g1, &h1, 1, &p, &count, &m, &add);
    OK(cuGraphCreate(&g2, 0));
    CUgraphNode h2 = host_log(g2, NULL, 0, 2);
    kernel_node(g2, &h2, 1, &p, &count, &m, &add2);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g1, 0));
    CUgraphExecUpdateResultInfo info;
    OK(cuGraphExecUpdate_v2(e, g2, &info));
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
    OK(cuMemsetD32_v2(p, 0, 64));
    atomic_store(&order_n, 0);
    OK(cuGraphLaunch(e, NULL));
    OK(cuCtxSynchronize());
    unsigned v[64];
    OK(cuMemcpyDtoH_v2(v, p, sizeof v));
    assert_int_equal(v[5], 100);
    assert_int_equal(order_v[0], 2);
    /* nodes still named by the graph it was made from */
    CUDA_HOST_NODE_PARAMS hp = { log_node, (void *)(intptr_t)3 };
    OK(cuGraphExecHostNodeSetParams(e, h1, &hp));
    ERR(cuGraphExecHostNodeSetParams(e, h2, &hp), CUDA_ERROR_INVALID_VALUE);
    /* a different topology */
    CUgraph g3;
    OK(cuGraphCreate(&g3, 0));
    host_log(g3, NULL, 0, 3);
    host_log(g3, NULL, 0, 4);
    ERR(cuGraphExecUpdate_v2(e, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
    assert_non_null(info.errorNode);
    OK(cuGraphDestroy(g3));
    OK(cuGraphCreate(&g3, 0));
    host_log(g3, NULL, 0, 3);
    ERR(cuGraphExecUpdate_v2(e, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    assert_int_equal(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    assert_null(info.errorNode);
    kernel_node(g3, NULL, 0, &p, &count, &m, &add); /* no edge from h3 */
    CUgraphNode en;
    CUgraphExecUpdateResult res;
    ERR(cuGraphExecUpdate(e, g3, &en, &res), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    assert_int_equal(res, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    ERR(cuGraphExecUpdate(e, g3, NULL, &res), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphExecUpdate_v2(e, g3, NULL), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphExecUpdate_v2((CUgraphExec)&g3, g3, &info), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g1));
    OK(cuGraphDestroy(g2));
    OK(cuGraphDestroy(g3));
    OK(cuMemFree_v2(p));
}

static void test_enable_disable(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4));
    unsigned one = 1, m = 1, add = 5;
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS mp = { p, 0, 0, 4, 1, 1 };
    CUgraphNode set, k, h;
    OK(cuGraphAddMemsetNode(&set, g, NULL, 0, &mp, ctx));
    k = kernel_node(g, &set, 1, &p, &one, &m, &add);
    h = host_log(g, &k, 1, 1);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    unsigned en;
    OK(cuGraphNodeGetEnabled(e, k, &en));
    assert_int_equal(en, 1);
    OK(cuGraphNodeSetEnabled(e, k, 0));
    OK(cuGraphNodeGetEnabled(e, k, &en));
    assert_int_equal(en, 0);
    ERR(cuGraphNodeSetEnabled(e, h, 0), CUDA_ERROR_INVALID_VALUE); /* kernel, memcpy and memset nodes only */
    ERR(cuGraphNodeGetEnabled(e, h, &en), CUDA_ERROR_INVALID_VALUE);
    unsigned v;
    OK(cuGraphLaunch(e, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(&v, p, 4));
    assert_int_equal(v, 0);
    OK(cuGraphNodeSetEnabled(e, k, 1));
    OK(cuGraphLaunch(e, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(&v, p, 4));
    assert_int_equal(v, 5);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuMemFree_v2(p));
}

/* a kernel of a graph faults: the work after it does not run, host nodes
 * are not called, the error sticks as for any launch */
static void test_sticky_error(void **state)
{
    (void)state;
    CUcontext c2;
    OK(cuCtxCreate(&c2, 0, 0));
    CUmodule m2;
    CUfunction oob;
    OK(cuModuleLoadData(&m2, ptx));
    OK(cuModuleGetFunction(&oob, m2, "oob"));
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    void *args[] = { &p };
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = oob;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CUgraphNode k, set;
    OK(cuGraphAddKernelNode_v2(&k, g, NULL, 0, &kp));
    CUDA_MEMSET_NODE_PARAMS mp = { p, 0, 0x22, 1, 64, 1 };
    OK(cuGraphAddMemsetNode(&set, g, &k, 1, &mp, c2));
    atomic_store(&order_n, 0);
    host_log(g, &set, 1, 1);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, NULL));
    ERR(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(atomic_load(&order_n), 0);
    ERR(cuGraphLaunch(e, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuCtxDestroy_v2(c2));
    OK(cuCtxSetCurrent(ctx));
}

/* ---- instantiation flags, uploads, launch order across streams ---------------------------- */

static void test_instantiate_upload(void **state)
{
    (void)state;
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    host_log(g, NULL, 0, 1);
    CUgraphExec e;
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = s1;
    OK(cuGraphInstantiateWithParams(&e, g, &ip));
    assert_int_equal(ip.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
    OK(cuGraphUpload(e, s2));
    OK(cuStreamSynchronize(s2));
    OK(cuGraphExecDestroy(e));
    ERR(cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphInstantiateWithFlags(&e, g, 64), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphInstantiateWithFlags(&e, g, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH), CUDA_ERROR_NOT_SUPPORTED);
    char log[128];
    CUgraphNode err;
    OK(cuGraphInstantiate(&e, g, &err, log, sizeof log));
    assert_null(err);
    /* one launch at a time: a launch into another stream waits for the
     * one before */
    OK(cuGraphDestroy(g));
    OK(cuGraphCreate(&g, 0));
    CUDA_HOST_NODE_PARAMS hp = { gate, NULL };
    CUgraphNode gn;
    OK(cuGraphAddHostNode(&gn, g, NULL, 0, &hp));
    CUgraphExec e2;
    OK(cuGraphInstantiateWithFlags(&e2, g, CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY));
    atomic_store(&order_n, 0);
    __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
    OK(cuGraphLaunch(e2, s1));
    OK(cuGraphLaunch(e2, s2));
    usleep(20000);
    ERR(cuStreamQuery(s2), CUDA_ERROR_NOT_READY);
    __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
    OK(cuStreamSynchronize(s2));
    assert_int_equal(atomic_load(&order_n), 2);
    OK(cuGraphExecDestroy(e2));
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuStreamDestroy_v2(s1));
    OK(cuStreamDestroy_v2(s2));
}

/* ---- user objects -------------------------------------------------------------------------- */

static atomic_int destroyed;
static void on_destroy(void *arg)
{
    atomic_fetch_add(&destroyed, (int)(intptr_t)arg);
}

/* the destructor runs on a thread of its own, soon after the last
 * reference goes: wait for it, a bounded time */
static int destroyed_within(int want)
{
    for (int i = 0; i < 5000 && atomic_load(&destroyed) != want; i++)
        usleep(1000);
    return atomic_load(&destroyed);
}

static void test_user_objects(void **state)
{
    (void)state;
    atomic_store(&destroyed, 0);
    CUuserObject u;
    ERR(cuUserObjectCreate(&u, (void *)1, on_destroy, 1, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuUserObjectCreate(&u, (void *)1, NULL, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC), CUDA_ERROR_INVALID_VALUE);
    ERR(cuUserObjectCreate(&u, (void *)1, on_destroy, 0, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC), CUDA_ERROR_INVALID_VALUE);
    OK(cuUserObjectCreate(&u, (void *)1, on_destroy, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuUserObjectRetain(u, 1));
    OK(cuUserObjectRelease(u, 2));
    ERR(cuUserObjectRelease(u, 5), CUDA_ERROR_INVALID_VALUE); /* more than there are */
    ERR(cuUserObjectRetain(u, 0), CUDA_ERROR_INVALID_VALUE);
    /* a graph and its clone hold references, the executable too */
    CUgraph g, c;
    OK(cuGraphCreate(&g, 0));
    host_log(g, NULL, 0, 1);
    OK(cuGraphRetainUserObject(g, u, 1, CU_GRAPH_USER_OBJECT_MOVE)); /* ours, moved */
    ERR(cuGraphRetainUserObject(g, u, 1, 7), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRetainUserObject(g, u, 2, 0));
    OK(cuGraphReleaseUserObject(g, u, 1));
    ERR(cuGraphReleaseUserObject(g, u, 9), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphClone(&c, g));
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(c));
    OK(cuGraphLaunch(e, NULL));
    OK(cuGraphExecDestroy(e));
    OK(cuCtxSynchronize());
    assert_int_equal(destroyed_within(1), 1); /* once, when the last holder went */
    ERR(cuUserObjectRetain(u, 1), CUDA_ERROR_INVALID_VALUE); /* gone */
    /* the destructor waits for launches in flight */
    atomic_store(&destroyed, 0);
    OK(cuUserObjectCreate(&u, (void *)2, on_destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuGraphCreate(&g, 0));
    CUDA_HOST_NODE_PARAMS hp = { gate, NULL };
    CUgraphNode gn;
    OK(cuGraphAddHostNode(&gn, g, NULL, 0, &hp));
    OK(cuGraphRetainUserObject(g, u, 1, CU_GRAPH_USER_OBJECT_MOVE));
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphDestroy(g));
    __atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
    OK(cuGraphLaunch(e, NULL));
    OK(cuGraphExecDestroy(e));
    usleep(20000);
    assert_int_equal(atomic_load(&destroyed), 0);
    __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
    OK(cuCtxSynchronize());
    assert_int_equal(destroyed_within(2), 2);
}

/* ---- DOT ----------------------------------------------------------------------------------- */

static void test_dot(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64 * 4));
    unsigned count = 64, m = 1, add = 1;
    CUgraph g, child;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphCreate(&child, 0));
    host_log(child, NULL, 0, 1);
    CUgraphNode a = kernel_node(g, NULL, 0, &p, &count, &m, &add), b, c;
    OK(cuGraphAddChildGraphNode(&b, g, &a, 1, child));
    OK(cuGraphAddEmptyNode(&c, g, &a, 1));
    char path[] = "/tmp/tdtrace-dot-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    OK(cuGraphDebugDotPrint(g, path, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* a digraph, two clusters (the graph, the child graph), the kernel by
     * name with its launch, the edges */
    assert_int_equal(strncmp(buf, "digraph ", 8), 0);
    int open_b = 0, close_b = 0, arrows = 0, clusters = 0;
    for (char *q = buf; *q; q++) {
        open_b += *q == '{';
        close_b += *q == '}';
    }
    for (char *q = buf; (q = strstr(q, "->")); q += 2)
        arrows++;
    for (char *q = buf; (q = strstr(q, "subgraph cluster_")); q++)
        clusters++;
    assert_int_equal(open_b, close_b);
    assert_int_equal(clusters, 2);
    assert_int_equal(arrows, 3); /* a->b, a->c, b to its child graph */
    assert_non_null(strstr(buf, "KERNEL\\naxpb\\ngrid (1,1,1) block (64,1,1)"));
    assert_non_null(strstr(buf, "HOST"));
    OK(cuGraphDebugDotPrint(g, path, CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES));
    f = fopen(path, "r");
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_non_null(strstr(buf, "cudaGraphNodeTypeKernel"));
    assert_null(strstr(buf, "axpb")); /* parameters only when asked for */
    unlink(path);
    ERR(cuGraphDebugDotPrint(g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphDebugDotPrint(g, path, 1u << 20), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0), CUDA_ERROR_FILE_NOT_FOUND);
    ERR(cuGraphDebugDotPrint((CUgraph)&g, path, 0), CUDA_ERROR_INVALID_VALUE);
    /* never through a symbolic link */
    char link[] = "/tmp/tdtrace-dotlink-XXXXXX";
    fd = mkstemp(link);
    close(fd);
    unlink(link);
    assert_int_equal(symlink(path, link), 0);
    ERR(cuGraphDebugDotPrint(g, link, 0), CUDA_ERROR_OPERATING_SYSTEM);
    unlink(link);
    unlink(path);
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(child));
    OK(cuMemFree_v2(p));
}

/* ---- batch memory operations and external semaphores ---------------------------------------- */

static void test_batch_memop(void **state)
{
    (void)state;
    CUdeviceptr flag, data;
    OK(cuMemAlloc_v2(&flag, 16));
    OK(cuMemAlloc_v2(&data, 8));
    OK(cuMemsetD32_v2(flag, 0, 4));
    /* graph A waits for flag >= 1, then writes 64-bit data; graph B sets
     * the flag: launched A first, in another stream */
    CUstreamBatchMemOpParams ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = flag;
    ops[0].waitValue.value = 1;
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    ops[1].writeValue.address = data;
    ops[1].writeValue.value64 = 0x1122334455667788ull;
    CUDA_BATCH_MEM_OP_NODE_PARAMS bp = { ctx, 2, ops, 0 };
    CUgraph a, b;
    OK(cuGraphCreate(&a, 0));
    OK(cuGraphCreate(&b, 0));
    CUgraphNode na, nb;
    OK(cuGraphAddBatchMemOpNode(&na, a, NULL, 0, &bp));
    CUstreamBatchMemOpParams set;
    memset(&set, 0, sizeof set);
    set.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    set.writeValue.address = flag;
    set.writeValue.value = 1;
    CUDA_BATCH_MEM_OP_NODE_PARAMS sp = { ctx, 1, &set, 0 };
    OK(cuGraphAddBatchMemOpNode(&nb, b, NULL, 0, &sp));
    CUDA_BATCH_MEM_OP_NODE_PARAMS got;
    OK(cuGraphBatchMemOpNodeGetParams(na, &got));
    assert_int_equal(got.count, 2);
    assert_int_equal(got.paramArray[1].writeValue.value64, 0x1122334455667788ull);
    CUgraphExec ea, eb;
    OK(cuGraphInstantiateWithFlags(&ea, a, 0));
    OK(cuGraphInstantiateWithFlags(&eb, b, 0));
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    OK(cuGraphLaunch(ea, s1));
    usleep(10000);
    ERR(cuStreamQuery(s1), CUDA_ERROR_NOT_READY); /* waiting for the flag */
    OK(cuGraphLaunch(eb, s2));
    OK(cuStreamSynchronize(s1));
    unsigned long long v;
    OK(cuMemcpyDtoH_v2(&v, data, 8));
    assert_true(v == 0x1122334455667788ull);
    /* bad operations */
    CUgraphNode x;
    ops[0].waitValue.address = flag + 2; /* misaligned */
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    ops[0].waitValue.address = flag;
    ops[0].operation = (CUstreamBatchMemOpType)99;
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    ops[0].operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    bp.count = 0;
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    /* the rules of the stream's operations (memop.c), the same here */
    bp.count = 256; /* "less than 256" */
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    bp.count = 2;
    CUdeviceptr managed;
    OK(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL));
    ops[0].waitValue.address = managed; /* managed memory is refused */
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    ops[0].waitValue.address = flag;
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ | CU_STREAM_WAIT_VALUE_FLUSH; /* no remote flush here */
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_NOT_SUPPORTED);
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    ops[1].writeValue.flags = 0x80; /* unknown */
    ERR(cuGraphAddBatchMemOpNode(&x, a, NULL, 0, &bp), CUDA_ERROR_INVALID_VALUE);
    ops[1].writeValue.flags = 0;
    OK(cuMemFree_v2(managed));
    OK(cuGraphExecDestroy(ea));
    OK(cuGraphExecDestroy(eb));
    OK(cuGraphDestroy(a));
    OK(cuGraphDestroy(b));
    OK(cuStreamDestroy_v2(s1));
    OK(cuStreamDestroy_v2(s2));
    OK(cuMemFree_v2(flag));
    OK(cuMemFree_v2(data));
}

static void test_not_emulated(void **state)
{
    (void)state;
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode x;
    ERR(cuGraphAddExternalSemaphoresSignalNode(&x, g, NULL, 0, NULL), CUDA_ERROR_NOT_SUPPORTED);
    ERR(cuGraphAddExternalSemaphoresWaitNode(&x, g, NULL, 0, NULL), CUDA_ERROR_NOT_SUPPORTED);
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT;
    ERR(cuGraphAddNode(&x, g, NULL, 0, &np), CUDA_ERROR_NOT_SUPPORTED);
    /* kernel node attributes the emulator has no use for are kept; the
     * ones it cannot do are refused */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4));
    unsigned one = 1;
    CUgraphNode k = kernel_node(g, NULL, 0, &p, &one, &one, &one), k2 = kernel_node(g, NULL, 0, &p, &one, &one, &one);
    CUkernelNodeAttrValue v;
    memset(&v, 0, sizeof v);
    v.priority = -3;
    OK(cuGraphKernelNodeSetAttribute(k, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    memset(&v, 0, sizeof v);
    OK(cuGraphKernelNodeGetAttribute(k, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    assert_int_equal(v.priority, -3);
    OK(cuGraphKernelNodeCopyAttributes(k2, k));
    memset(&v, 0, sizeof v);
    OK(cuGraphKernelNodeGetAttribute(k2, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    assert_int_equal(v.priority, -3);
    v.clusterDim.x = 2; /* the node's launch's cluster: kept (checked when the graph launches it) */
    v.clusterDim.y = v.clusterDim.z = 1;
    OK(cuGraphKernelNodeSetAttribute(k, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v));
    memset(&v, 0, sizeof v);
    OK(cuGraphKernelNodeGetAttribute(k, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v));
    assert_int_equal(v.clusterDim.x, 2);
    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    ERR(cuGraphKernelNodeSetAttribute(k, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v), CUDA_ERROR_NOT_SUPPORTED);
    ERR(cuGraphKernelNodeSetAttribute(k, (CUkernelNodeAttrID)99, &v), CUDA_ERROR_INVALID_VALUE);
    ERR(cuGraphKernelNodeGetAttribute(x = k, (CUkernelNodeAttrID)0, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g));
    OK(cuMemFree_v2(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_bad_handles),
        cmocka_unit_test(test_topology),
        cmocka_unit_test(test_launch_work),
        cmocka_unit_test(test_dependency_order),
        cmocka_unit_test(test_child_graph),
        cmocka_unit_test(test_event_nodes),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_conditional_if_switch),
        cmocka_unit_test(test_conditional_while),
        cmocka_unit_test(test_setcond_outside_graph),
        cmocka_unit_test(test_memory_nodes),
        cmocka_unit_test(test_unfreed_allocation),
        cmocka_unit_test(test_exec_update),
        cmocka_unit_test(test_enable_disable),
        cmocka_unit_test(test_sticky_error),
        cmocka_unit_test(test_instantiate_upload),
        cmocka_unit_test(test_user_objects),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_batch_memop),
        cmocka_unit_test(test_not_emulated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
