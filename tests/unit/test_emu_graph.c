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

/* axpb(p, n, a, b): p[i] = p[i] * a + b for i < n.
 * setcond(h, p): cudaGraphSetConditional(h, *p).
 * countdown(p, h, log): n = *p; log[n] = 1; *p = n - 1; set h to n - 1.
 * oob(p): writes far past p (a fault). */
static const char ptx[] =
    ".version 7.8\n.target sm_70\n.address_size 64\n"
    ".extern .func cudaGraphSetConditional(.param .b64 cudaGraphSetConditional_param_0, "
    ".param .b32 cudaGraphSetConditional_param_1);\n"
    ".visible .entry axpb(.param .u64 p, .param .u32 n, .param .u32 a, .param .u32 b)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<9>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r1, [n];\n    ld.param.u32 %r2, [a];\n"
    "    ld.param.u32 %r3, [b];\n    mov.u32 %r4, %ctaid.x;\n    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %tid.x;\n    mad.lo.u32 %r7, %r4, %r5, %r6;\n    setp.ge.u32 %p1, %r7, %r1;\n"
    "    @%p1 bra $L_end;\n    mul.wide.u32 %rd2, %r7, 4;\n    add.u64 %rd3, %rd1, %rd2;\n"
    "    ld.global.u32 %r8, [%rd3];\n    mad.lo.u32 %r8, %r8, %r2, %r3;\n    st.global.u32 [%rd3], %r8;\n"
    "$L_end:\n    ret;\n}\n"
    ".visible .entry setcond(.param .u64 h, .param .u64 p)\n{\n"
    "    .reg .b32 %r<2>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [h];\n    ld.param.u64 %rd2, [p];\n    ld.global.u32 %r1, [%rd2];\n"
    "    {\n    .param .b64 param0;\n    st.param.b64 [param0+0], %rd1;\n    .param .b32 param1;\n"
    "    st.param.b32 [param1+0], %r1;\n    call.uni cudaGraphSetConditional, (param0, param1);\n    }\n"
    "    ret;\n}\n"
    ".visible .entry countdown(.param .u64 p, .param .u64 h, .param .u64 log)\n{\n"
    "    .reg .b32 %r<3>;\n    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u64 %rd2, [h];\n    ld.param.u64 %rd3, [log];\n"
    "    ld.global.u32 %r1, [%rd1];\n    mul.wide.u32 %rd4, %r1, 4;\n    add.u64 %rd5, %rd3, %rd4;\n"
    "    mov.u32 %r2, 1;\n    st.global.u32 [%rd5], %r2;\n    sub.u32 %r1, %r1, 1;\n"
    "    st.global.u32 [%rd1], %r1;\n"
    "    {\n    .param .b64 param0;\n    st.param.b64 [param0+0], %rd2;\n    .param .b32 param1;\n"
    "    st.param.b32 [param1+0], %r1;\n    call.uni cudaGraphSetConditional, (param0, param1);\n    }\n"
    "    ret;\n}\n"
    ".visible .entry oob(.param .u64 p)\n{\n"
    "    .reg .b32 %r<2>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [p];\n    add.u64 %rd2, %rd1, 1048576000;\n    mov.u32 %r1, 7;\n"
    "    st.global.u32 [%rd2], %r1;\n    ret;\n}\n";

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_bad_handles),
        cmocka_unit_test(test_topology),
        cmocka_unit_test(test_launch_work),
        cmocka_unit_test(test_dependency_order),
        cmocka_unit_test(test_child_graph),
        cmocka_unit_test(test_event_nodes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
