/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: stream capture. Work on a capturing stream becomes graph
 * nodes (kernels, copies, memsets, host functions, allocations and
 * frees), events fork and join streams into a capture, capture status and
 * dependency queries and updates, capture to an existing graph, and the
 * rules of capture: the calls it refuses with the errors the driver
 * documents, in each capture mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <cmocka.h>

#include "emu.h"
#include "emu_graph_kernels.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

static CUcontext ctx;
static CUmodule mod;
static CUfunction axpb;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoadData(&mod, ptx) ||
        cuModuleGetFunction(&axpb, mod, "axpb"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy_v2(ctx) ? -1 : 0;
}

static void launch_axpb(CUstream s, CUdeviceptr p, unsigned n, unsigned a, unsigned b)
{
    void *args[] = { &p, &n, &a, &b };
    OK(cuLaunchKernel(axpb, (n + 63) / 64, 1, 1, 64, 1, 1, 0, s, args, NULL));
}

static atomic_int host_calls;
static void count_call(void *arg)
{
    (void)arg;
    atomic_fetch_add(&host_calls, 1);
}

static size_t node_count(CUgraph g)
{
    size_t n;
    OK(cuGraphGetNodes(g, NULL, &n));
    return n;
}

static void launch_graph(CUgraph g, CUstream s)
{
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, s));
    OK(cuStreamSynchronize(s));
    OK(cuGraphExecDestroy(e));
}

/* ---- capturing work ------------------------------------------------------------ */

/* copy in, kernel twice, memset, host function, copy out: six nodes in a
 * chain; nothing runs until the graph does, and then it computes what the
 * host computes */
static void test_capture_chain(void **state)
{
    (void)state;
    enum { N = 300 };
    static unsigned in[N], out[N];
    for (unsigned i = 0; i < N; i++)
        in[i] = i;
    CUdeviceptr p, q;
    OK(cuMemAlloc_v2(&p, N * 4));
    OK(cuMemAlloc_v2(&q, 64));
    OK(cuMemsetD32_v2(p, 0, N));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUstreamCaptureStatus st;
    OK(cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(cuMemcpyHtoDAsync_v2(p, in, N * 4, s));
    launch_axpb(s, p, N, 2, 1);
    launch_axpb(s, p, N, 3, 0);
    OK(cuMemsetD8Async(q, 0x5a, 64, s));
    atomic_store(&host_calls, 0);
    OK(cuLaunchHostFunc(s, count_call, NULL));
    OK(cuMemcpyDtoHAsync_v2(out, p, N * 4, s));
    /* captured, not run */
    assert_int_equal(atomic_load(&host_calls), 0);
    cuuint64_t id1, id2;
    CUgraph cg;
    const CUgraphNode *deps;
    size_t nd;
    OK(cuStreamGetCaptureInfo_v2(s, &st, &id1, &cg, &deps, &nd));
    assert_int_equal(nd, 1);
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(deps[0], &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_MEMCPY);
    CUgraph g;
    OK(cuStreamEndCapture(s, &g));
    assert_ptr_equal(g, cg);
    OK(cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    assert_int_equal(node_count(g), 6);
    /* a chain: one root, each node after the one before */
    CUgraphNode nodes[6];
    size_t n = 6;
    OK(cuGraphGetNodes(g, nodes, &n));
    static const CUgraphNodeType types[6] = { CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_KERNEL,
                                              CU_GRAPH_NODE_TYPE_KERNEL, CU_GRAPH_NODE_TYPE_MEMSET,
                                              CU_GRAPH_NODE_TYPE_HOST, CU_GRAPH_NODE_TYPE_MEMCPY };
    for (int i = 0; i < 6; i++) {
        OK(cuGraphNodeGetType(nodes[i], &t));
        assert_int_equal(t, types[i]);
        CUgraphNode d;
        n = 1;
        OK(cuGraphNodeGetDependencies(nodes[i], &d, &n));
        assert_int_equal(n, i ? 1 : 0);
        if (i)
            assert_ptr_equal(d, nodes[i - 1]);
    }
    /* the kernel node has the launch's parameters */
    CUDA_KERNEL_NODE_PARAMS kp;
    OK(cuGraphKernelNodeGetParams_v2(nodes[2], &kp));
    assert_int_equal(*(unsigned *)kp.kernelParams[2], 3);
    assert_int_equal(kp.blockDimX, 64);
    for (int rep = 0; rep < 2; rep++) {
        memset(out, 0, sizeof out);
        launch_graph(g, s);
        for (unsigned i = 0; i < N; i++)
            assert_int_equal(out[i], (i * 2 + 1) * 3);
    }
    assert_int_equal(atomic_load(&host_calls), 2);
    unsigned char qb[64];
    OK(cuMemcpyDtoH_v2(qb, q, 64));
    assert_int_equal(qb[63], 0x5a);
    /* each capture has an id of its own */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamGetCaptureInfo(s, &st, &id2));
    assert_true(id2 != id1);
    CUgraph g2;
    OK(cuStreamEndCapture(s, &g2));
    assert_int_equal(node_count(g2), 0);
    OK(cuGraphDestroy(g2));
    OK(cuGraphDestroy(g));
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFree_v2(p));
    OK(cuMemFree_v2(q));
}

/* fork and join through events: two branches that run in parallel in the
 * graph; a fork left unjoined fails the capture */
static void test_capture_fork_join(void **state)
{
    (void)state;
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent fork, join;
    OK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
    CUdeviceptr a, b;
    OK(cuMemAlloc_v2(&a, 256));
    OK(cuMemAlloc_v2(&b, 256));
    OK(cuMemsetD32_v2(a, 1, 64));
    OK(cuMemsetD32_v2(b, 1, 64));
    OK(cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuLaunchHostFunc(s1, count_call, NULL)); /* root */
    OK(cuEventRecord(fork, s1));
    ERR(cuEventQuery(fork), CUDA_ERROR_CAPTURED_EVENT);
    OK(cuStreamWaitEvent(s2, fork, 0));
    CUstreamCaptureStatus st;
    cuuint64_t i1, i2;
    OK(cuStreamGetCaptureInfo(s1, &st, &i1));
    OK(cuStreamGetCaptureInfo(s2, &st, &i2));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    assert_true(i1 == i2); /* s2 joined s1's capture */
    launch_axpb(s1, a, 64, 5, 0);
    launch_axpb(s2, b, 64, 7, 0);
    OK(cuEventRecord(join, s2));
    OK(cuStreamWaitEvent(s1, join, 0));
    OK(cuLaunchHostFunc(s1, count_call, NULL)); /* after both */
    CUgraph g;
    OK(cuStreamEndCapture(s1, &g));
    OK(cuStreamIsCapturing(s2, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    assert_int_equal(node_count(g), 4);
    size_t roots;
    OK(cuGraphGetRootNodes(g, NULL, &roots));
    assert_int_equal(roots, 1);
    CUgraphNode root, kids[3];
    OK(cuGraphGetRootNodes(g, &root, &roots));
    size_t nk = 3;
    OK(cuGraphNodeGetDependentNodes(root, kids, &nk));
    assert_int_equal(nk, 2); /* the two kernels, side by side */
    size_t nd;
    OK(cuGraphNodeGetDependentNodes(kids[0], NULL, &nd));
    assert_int_equal(nd, 1);
    atomic_store(&host_calls, 0);
    launch_graph(g, s1);
    assert_int_equal(atomic_load(&host_calls), 2);
    unsigned va[64], vb[64];
    OK(cuMemcpyDtoH_v2(va, a, 256));
    OK(cuMemcpyDtoH_v2(vb, b, 256));
    assert_int_equal(va[10], 5);
    assert_int_equal(vb[10], 7);
    OK(cuGraphDestroy(g));
    /* a fork that never joins back */
    OK(cuStreamBeginCapture_v2(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuEventRecord(fork, s1));
    OK(cuStreamWaitEvent(s2, fork, 0));
    launch_axpb(s2, b, 64, 1, 1);
    g = (CUgraph)&g;
    ERR(cuStreamEndCapture(s1, &g), CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
    assert_null(g);
    OK(cuStreamIsCapturing(s2, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    /* the capture is over: its event cannot be waited for */
    ERR(cuStreamWaitEvent(s2, fork, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
    OK(cuEventRecord(fork, s1)); /* recorded outside a capture again */
    OK(cuEventSynchronize(fork));
    OK(cuEventDestroy_v2(fork));
    OK(cuEventDestroy_v2(join));
    OK(cuStreamDestroy_v2(s1));
    OK(cuStreamDestroy_v2(s2));
    OK(cuMemFree_v2(a));
    OK(cuMemFree_v2(b));
}

/* dependency sets: queried (v3 with edge data), replaced, added to; a
 * capture into an existing graph after given nodes */
static void test_capture_dependencies(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode pre;
    OK(cuGraphAddEmptyNode(&pre, g, NULL, 0));
    OK(cuStreamBeginCaptureToGraph(s, g, &pre, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ERR(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE); /* the capture's */
    CUstreamCaptureStatus st;
    const CUgraphNode *deps;
    const CUgraphEdgeData *ed;
    size_t nd;
    CUgraph cg;
    OK(cuStreamGetCaptureInfo_v3(s, &st, NULL, &cg, &deps, &ed, &nd));
    assert_ptr_equal(cg, g);
    assert_int_equal(nd, 1);
    assert_ptr_equal(deps[0], pre);
    OK(cuLaunchHostFunc(s, count_call, NULL));
    CUgraphNode side;
    OK(cuGraphAddEmptyNode(&side, g, &pre, 1));
    /* the next node also waits for side */
    OK(cuStreamUpdateCaptureDependencies(s, &side, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
    OK(cuStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    assert_int_equal(nd, 2);
    OK(cuLaunchHostFunc(s, count_call, NULL));
    OK(cuStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    CUgraphNode last = deps[0];
    size_t n;
    OK(cuGraphNodeGetDependencies(last, NULL, &n));
    assert_int_equal(n, 2);
    /* set: only side */
    OK(cuStreamUpdateCaptureDependencies_v2(s, &side, NULL, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    OK(cuLaunchHostFunc(s, count_call, NULL));
    OK(cuStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &nd));
    CUgraphNode d;
    n = 1;
    OK(cuGraphNodeGetDependencies(deps[0], &d, &n));
    assert_ptr_equal(d, side);
    /* programmatic edge data on the set: a v3 query without it is lossy */
    CUgraphEdgeData pe;
    memset(&pe, 0, sizeof pe);
    pe.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    ERR(cuStreamUpdateCaptureDependencies_v2(s, &side, &pe, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES),
        CUDA_ERROR_INVALID_VALUE); /* from an empty node */
    /* bad input */
    ERR(cuStreamUpdateCaptureDependencies(s, &side, 1, 7), CUDA_ERROR_INVALID_VALUE);
    CUgraph other;
    OK(cuGraphCreate(&other, 0));
    CUgraphNode foreign;
    OK(cuGraphAddEmptyNode(&foreign, other, NULL, 0));
    ERR(cuStreamUpdateCaptureDependencies(s, &foreign, 1, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuStreamGetCaptureInfo_v2(s, NULL, NULL, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CUgraph out = NULL;
    OK(cuStreamEndCapture(s, &out));
    assert_ptr_equal(out, g);
    assert_int_equal(node_count(g), 5);
    ERR(cuStreamUpdateCaptureDependencies(s, &side, 1, 0), CUDA_ERROR_ILLEGAL_STATE);
    atomic_store(&host_calls, 0);
    launch_graph(g, s);
    assert_int_equal(atomic_load(&host_calls), 3);
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(other));
    OK(cuStreamDestroy_v2(s));
}

/* cuMemAllocAsync and cuMemFreeAsync become allocation and free nodes:
 * the address is fixed, the memory exists while the graph runs */
static void test_capture_memory(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    static unsigned out[64];
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr p;
    OK(cuMemAllocAsync(&p, 256, s));
    OK(cuMemsetD32Async(p, 3, 64, s));
    launch_axpb(s, p, 64, 4, 1);
    OK(cuMemcpyDtoHAsync_v2(out, p, 256, s));
    OK(cuMemFreeAsync(p, s));
    CUgraph g;
    OK(cuStreamEndCapture(s, &g));
    CUgraphNode nodes[5];
    size_t n = 5;
    OK(cuGraphGetNodes(g, nodes, &n));
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(nodes[0], &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
    OK(cuGraphNodeGetType(nodes[4], &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_MEM_FREE);
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    OK(cuGraphMemAllocNodeGetParams(nodes[0], &ap));
    assert_int_equal(ap.dptr, p);
    assert_int_equal(ap.bytesize, 256);
    CUdeviceptr fp;
    OK(cuGraphMemFreeNodeGetParams(nodes[4], &fp));
    assert_int_equal(fp, p);
    /* not allocated outside the graph's run: a synchronous copy fails */
    unsigned x;
    ERR(cuMemcpyDtoH_v2(&x, p, 4), CUDA_ERROR_INVALID_VALUE);
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    for (int rep = 0; rep < 2; rep++) {
        memset(out, 0, sizeof out);
        OK(cuGraphLaunch(e, s));
        OK(cuStreamSynchronize(s));
        assert_int_equal(out[0], 13);
        assert_int_equal(out[63], 13);
    }
    ERR(cuMemcpyDtoH_v2(&x, p, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    /* freeing memory that is not a graph's in a capture */
    CUdeviceptr plain;
    OK(cuMemAlloc_v2(&plain, 64));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuMemFreeAsync(plain, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphDestroy(g));
    OK(cuMemFree_v2(plain));
    OK(cuStreamDestroy_v2(s));
}

/* ---- the rules --------------------------------------------------------------------- */

static void test_begin_end_errors(void **state)
{
    (void)state;
    CUstream s, s2;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    ERR(cuStreamBeginCapture_v2(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamBeginCapture_v2(CU_STREAM_LEGACY, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamBeginCapture_v2(s, (CUstreamCaptureMode)9), CUDA_ERROR_INVALID_VALUE);
    ERR(cuStreamBeginCapture_v2((CUstream)&g, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_INVALID_HANDLE);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);
    ERR(cuStreamBeginCaptureToGraph(s, (CUgraph)&g, NULL, NULL, 0, CU_STREAM_CAPTURE_MODE_GLOBAL),
        CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamBeginCapture(s));
    ERR(cuStreamBeginCapture(s), CUDA_ERROR_ILLEGAL_STATE);
    ERR(cuStreamEndCapture(s, NULL), CUDA_ERROR_INVALID_VALUE);
    /* ended only where it began */
    CUevent e;
    OK(cuEventCreate(&e, 0));
    OK(cuEventRecord(e, s));
    OK(cuStreamWaitEvent(s2, e, 0));
    ERR(cuStreamEndCapture(s2, &g), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* per-thread default stream: captures like any */
    OK(cuStreamBeginCapture_ptsz(NULL));
    CUstreamCaptureStatus st;
    OK(cuStreamIsCapturing_ptsz(NULL, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    OK(cuStreamEndCapture_ptsz(NULL, &g));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy_v2(e));
    OK(cuStreamDestroy_v2(s));
    OK(cuStreamDestroy_v2(s2));
}

/* calls that would wait for or query a capturing stream fail and
 * invalidate the capture */
static void test_conflicting_calls(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    CUstreamCaptureStatus st;
    /* synchronizing the capturing stream */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuStreamSynchronize(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    OK(cuStreamIsCapturing(s, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    ERR(cuLaunchHostFunc(s, count_call, NULL), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    g = (CUgraph)&g;
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    assert_null(g);
    /* querying it; the context */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuStreamQuery(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* a callback (only host functions are captured) */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuStreamAddCallback(s, (CUstreamCallback)(uintptr_t)count_call, NULL, 0), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* waiting for an event recorded outside the capture needs
     * CU_EVENT_WAIT_EXTERNAL, which makes a wait node */
    CUevent ev;
    OK(cuEventCreate(&ev, 0));
    OK(cuEventRecord(ev, NULL));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuStreamWaitEvent(s, ev, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuStreamWaitEvent(s, ev, CU_EVENT_WAIT_EXTERNAL));
    OK(cuEventRecordWithFlags(ev, s, CU_EVENT_RECORD_EXTERNAL));
    OK(cuStreamEndCapture(s, &g));
    CUgraphNode nodes[2];
    size_t n = 2;
    OK(cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 2);
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(nodes[0], &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    OK(cuGraphNodeGetType(nodes[1], &t));
    assert_int_equal(t, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    OK(cuGraphDestroy(g));
    /* two captures cannot merge */
    CUstream s2;
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuStreamBeginCapture_v2(s2, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuEventRecord(ev, s));
    ERR(cuStreamWaitEvent(s2, ev, 0), CUDA_ERROR_STREAM_CAPTURE_MERGE);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    ERR(cuStreamEndCapture(s2, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* a graph cannot be launched into a capturing stream */
    CUgraph empty;
    CUgraphExec e;
    OK(cuGraphCreate(&empty, 0));
    OK(cuGraphInstantiateWithFlags(&e, empty, 0));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuGraphLaunch(e, s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(empty));
    OK(cuEventRecord(ev, NULL));
    OK(cuEventDestroy_v2(ev));
    OK(cuStreamDestroy_v2(s));
    OK(cuStreamDestroy_v2(s2));
}

/* the legacy stream waits for every blocking stream: using it while one
 * captures would make it wait for the capture */
static void test_legacy_stream(void **state)
{
    (void)state;
    CUstream blocking, nonblocking;
    OK(cuStreamCreate(&blocking, 0));
    OK(cuStreamCreate(&nonblocking, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuStreamBeginCapture_v2(nonblocking, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuMemsetD8Async(p, 1, 64, NULL)); /* a non-blocking capture does not stop it */
    OK(cuStreamEndCapture(nonblocking, &g));
    OK(cuGraphDestroy(g));
    OK(cuStreamBeginCapture_v2(blocking, CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuMemsetD8Async(p, 1, 64, NULL), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    ERR(cuStreamEndCapture(blocking, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture_v2(blocking, CU_STREAM_CAPTURE_MODE_RELAXED));
    CUstreamCaptureStatus st;
    ERR(cuStreamIsCapturing(NULL, &st), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    ERR(cuStreamEndCapture(blocking, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamIsCapturing(NULL, &st));
    assert_int_equal(st, CU_STREAM_CAPTURE_STATUS_NONE);
    OK(cuMemFree_v2(p));
    OK(cuStreamDestroy_v2(blocking));
    OK(cuStreamDestroy_v2(nonblocking));
}

/* "unsafe" calls, by capture mode: global mode forbids them in this
 * thread while it captures (without relaxed mode) and in every thread
 * while any thread captures in global mode; thread-local mode only for
 * this thread's own captures; relaxed mode never */
struct other { CUresult r; CUstreamCaptureMode mode; };
static void *alloc_elsewhere(void *arg)
{
    struct other *o = arg;
    cuCtxSetCurrent(ctx);
    CUstreamCaptureMode m = o->mode;
    cuThreadExchangeStreamCaptureMode(&m);
    CUdeviceptr p;
    o->r = cuMemAlloc_v2(&p, 64);
    if (o->r == CUDA_SUCCESS)
        cuMemFree_v2(p);
    return NULL;
}

static CUresult other_thread(CUstreamCaptureMode mode)
{
    struct other o = { CUDA_ERROR_UNKNOWN, mode };
    pthread_t t;
    pthread_create(&t, NULL, alloc_elsewhere, &o);
    pthread_join(t, NULL);
    return o.r;
}

static void test_capture_modes(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUgraph g;
    CUdeviceptr p;
    CUstreamCaptureMode m;
    /* global capture: this thread and every other (in its default, global, mode) */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ERR(other_thread(CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(other_thread(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    OK(other_thread(CU_STREAM_CAPTURE_MODE_RELAXED));
    ERR(cuMemAlloc_v2(&p, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* this thread in relaxed mode: allowed; mode swapped back after */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    m = CU_STREAM_CAPTURE_MODE_RELAXED;
    OK(cuThreadExchangeStreamCaptureMode(&m));
    assert_int_equal(m, CU_STREAM_CAPTURE_MODE_GLOBAL);
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuMemFree_v2(p));
    OK(cuThreadExchangeStreamCaptureMode(&m));
    assert_int_equal(m, CU_STREAM_CAPTURE_MODE_RELAXED);
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphDestroy(g));
    /* thread-local capture: other threads are free */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    OK(other_thread(CU_STREAM_CAPTURE_MODE_GLOBAL));
    ERR(cuMemAlloc_v2(&p, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* relaxed capture: nothing is forbidden */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuMemcpyHtoD_v2(p, &m, sizeof m)); /* synchronous, on the legacy stream: s is non-blocking */
    OK(cuMemFree_v2(p));
    OK(other_thread(CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphDestroy(g));
    /* a synchronous copy in global mode; an event query */
    CUevent ev;
    OK(cuEventCreate(&ev, 0));
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ERR(cuMemcpyHtoD_v2(p, &m, sizeof m), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    ERR(cuEventQuery(ev), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ERR(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    /* a capture not in relaxed mode ends on the thread that began it */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    m = (CUstreamCaptureMode)5;
    ERR(cuThreadExchangeStreamCaptureMode(&m), CUDA_ERROR_INVALID_VALUE);
    ERR(cuThreadExchangeStreamCaptureMode(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy_v2(ev));
    OK(cuMemFree_v2(p));
    OK(cuStreamDestroy_v2(s));
}

struct ender { CUstream s; CUresult r; CUgraph g; };
static void *end_elsewhere(void *arg)
{
    struct ender *e = arg;
    cuCtxSetCurrent(ctx);
    e->r = cuStreamEndCapture(e->s, &e->g);
    return NULL;
}

static void test_end_thread(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    struct ender e = { s, CUDA_ERROR_UNKNOWN, NULL };
    pthread_t t;
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    pthread_create(&t, NULL, end_elsewhere, &e);
    pthread_join(t, NULL);
    ERR(e.r, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    OK(cuStreamEndCapture(s, &e.g));
    OK(cuGraphDestroy(e.g));
    /* relaxed: any thread may end it */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    pthread_create(&t, NULL, end_elsewhere, &e);
    pthread_join(t, NULL);
    OK(e.r);
    OK(cuGraphDestroy(e.g));
    OK(cuStreamDestroy_v2(s));
}

/* an event last recorded in a capture, freed with the graph node that
 * held it: its captured dependencies go with it, under the graph lock
 * (the capture lock is not taken there: under TSan a lock-order inversion
 * would show) */
static void test_captured_event_freed_with_graph(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUevent ev;
    OK(cuEventCreate(&ev, 0));
    CUgraph cg, g;
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    OK(cuLaunchHostFunc(s, count_call, NULL));
    OK(cuEventRecord(ev, s));
    OK(cuStreamEndCapture(s, &cg));
    OK(cuGraphCreate(&g, 0));
    CUgraphNode n;
    OK(cuGraphAddEventRecordNode(&n, g, NULL, 0, ev));
    OK(cuEventDestroy_v2(ev)); /* the node holds it */
    OK(cuGraphDestroy(cg));
    OK(cuGraphDestroy(g));     /* the last reference: under the graph lock */
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED)); /* capture lock, then graph lock */
    OK(cuLaunchHostFunc(s, count_call, NULL));
    OK(cuStreamEndCapture(s, &g));
    OK(cuGraphDestroy(g));
    OK(cuStreamDestroy_v2(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_chain),
        cmocka_unit_test(test_capture_fork_join),
        cmocka_unit_test(test_capture_dependencies),
        cmocka_unit_test(test_capture_memory),
        cmocka_unit_test(test_begin_end_errors),
        cmocka_unit_test(test_conflicting_calls),
        cmocka_unit_test(test_legacy_stream),
        cmocka_unit_test(test_capture_modes),
        cmocka_unit_test(test_end_thread),
        cmocka_unit_test(test_captured_event_freed_with_graph),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
