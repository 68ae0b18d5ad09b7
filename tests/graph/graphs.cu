/* SPDX-License-Identifier: Apache-2.0 */
// CUDA graphs through the real CUDA runtime on the emulated GPU, each
// result checked against the host's computation: stream capture across
// streams (fork and join through events), graphs built node by node
// (memcpy, memset, kernel, host, child graph, event record), executable
// graphs' node parameters and whole-graph updates, conditional nodes set
// from the device (IF/ELSE, WHILE, SWITCH), memory nodes from capture and
// by hand with the graph memory attributes, user objects, the capture
// rules' errors, DOT output. Prints PASS at the end; argv[1]: where to
// write the DOT file.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <atomic>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define EXPECT_ERR(x, want)                                                                        \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != (want)) {                                                                        \
            printf("FAIL %s:%d: %s: %s, not %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_),   \
                   cudaGetErrorName(want));                                                        \
            exit(1);                                                                               \
        }                                                                                          \
        cudaGetLastError();                                                                        \
    } while (0)

__global__ void axpb(int *p, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = p[i] * a + b;
}

__global__ void add_into(const int *x, int *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}

__global__ void set_from(cudaGraphConditionalHandle h, const int *v)
{
    cudaGraphSetConditional(h, (unsigned)*v);
}

// do { ++*iters; } while (--*left > 0)
__global__ void count_down(int *left, int *iters, cudaGraphConditionalHandle h)
{
    ++*iters;
    if (--*left <= 0)
        cudaGraphSetConditional(h, 0);
}

static const int N = 1000;
static const int TPB = 128;
static const int BLOCKS = (N + TPB - 1) / TPB;

static std::atomic<int> host_calls;
static void CUDART_CB on_host(void *arg)
{
    host_calls += (int)(intptr_t)arg;
}

static int node_count(cudaGraph_t g)
{
    size_t n = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &n));
    return (int)n;
}

static void run(cudaGraph_t g, cudaStream_t s, int times)
{
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    for (int i = 0; i < times; i++)
        CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(e));
}

// two streams: x = 2x+1 on one, y = 3y on the other, then y += x; a host
// function after the join
static void capture_fork_join(void)
{
    int hx[N], hy[N], out[N];
    for (int i = 0; i < N; i++) {
        hx[i] = i;
        hy[i] = 7 - i;
    }
    int *x, *y;
    CHECK(cudaMalloc(&x, N * sizeof(int)));
    CHECK(cudaMalloc(&y, N * sizeof(int)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(x, hx, sizeof hx, cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMemcpyAsync(y, hy, sizeof hy, cudaMemcpyHostToDevice, s2));
    axpb<<<BLOCKS, TPB, 0, s1>>>(x, N, 2, 1);
    axpb<<<BLOCKS, TPB, 0, s2>>>(y, N, 3, 0);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    add_into<<<BLOCKS, TPB, 0, s1>>>(x, y, N);
    CHECK(cudaLaunchHostFunc(s1, on_host, (void *)1));
    CHECK(cudaMemcpyAsync(out, y, sizeof out, cudaMemcpyDeviceToHost, s1));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s2, &st));
    EXPECT(st == cudaStreamCaptureStatusActive);
    CHECK(cudaStreamEndCapture(s1, &g));
    EXPECT(node_count(g) == 7);
    size_t roots = 0;
    CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
    EXPECT(roots == 1);
    host_calls = 0;
    run(g, s1, 1);
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 3 * (7 - i) + 2 * i + 1);
    EXPECT(host_calls == 1);
    // the graph copies from hx each launch: new inputs, same graph
    for (int i = 0; i < N; i++)
        hx[i] = 1;
    run(g, s2, 2);
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 3 * (7 - i) + 3);
    EXPECT(host_calls == 3);
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
}

// node by node: memset -> kernel -> child graph (kernel) -> copy out,
// a host node and an event record node at the end; then an executable
// node's parameters, and a whole-graph update
static void graph_by_hand(const char *dot)
{
    int *p, out[N];
    CHECK(cudaMalloc(&p, N * sizeof(int)));
    cudaGraph_t g, child;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t set, k, ch, cp, host, rec, ck;

    cudaMemsetParams mp = {};
    mp.dst = p;
    mp.value = 4;
    mp.elementSize = sizeof(int);
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));

    int n = N, a = 5, b = -1;
    void *args[] = { &p, &n, &a, &b };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)axpb;
    kp.gridDim = dim3(BLOCKS);
    kp.blockDim = dim3(TPB);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k, g, &set, 1, &kp));

    int a2 = 2, b2 = 0;
    void *cargs[] = { &p, &n, &a2, &b2 };
    cudaKernelNodeParams ckp = kp;
    ckp.kernelParams = cargs;
    CHECK(cudaGraphAddKernelNode(&ck, child, nullptr, 0, &ckp));
    CHECK(cudaGraphAddChildGraphNode(&ch, g, &k, 1, child));

    cudaMemcpy3DParms cpp = {};
    cpp.srcPtr = make_cudaPitchedPtr(p, N * sizeof(int), N, 1);
    cpp.dstPtr = make_cudaPitchedPtr(out, N * sizeof(int), N, 1);
    cpp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
    cpp.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddMemcpyNode(&cp, g, &ch, 1, &cpp));

    cudaHostNodeParams hp = { on_host, (void *)10 };
    CHECK(cudaGraphAddHostNode(&host, g, &cp, 1, &hp));
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaGraphAddEventRecordNode(&rec, g, &host, 1, done));
    if (dot)
        CHECK(cudaGraphDebugDotPrint(g, dot, cudaGraphDebugDotFlagsVerbose));

    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    host_calls = 0;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaEventSynchronize(done));
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == (4 * 5 - 1) * 2);
    EXPECT(host_calls == 10);

    // the executable's kernel node: the next launch uses the new values
    int a3 = 10, b3 = 3;
    void *args3[] = { &p, &n, &a3, &b3 };
    kp.kernelParams = args3;
    CHECK(cudaGraphExecKernelNodeSetParams(e, k, &kp));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == (4 * 10 + 3) * 2);

    // a whole-graph update from a graph of the same shape: a clone with
    // the memset's value changed
    cudaGraph_t g2;
    CHECK(cudaGraphClone(&g2, g));
    cudaGraphNode_t set2;
    CHECK(cudaGraphNodeFindInClone(&set2, set, g2));
    mp.value = 6;
    CHECK(cudaGraphMemsetNodeSetParams(set2, &mp));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(e, g2, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == (6 * 5 - 1) * 2); // the clone has the graph's kernel parameters
    // a graph of another shape cannot update it
    cudaGraph_t g3;
    CHECK(cudaGraphCreate(&g3, 0));
    CHECK(cudaGraphAddMemsetNode(&set, g3, nullptr, 0, &mp));
    EXPECT_ERR(cudaGraphExecUpdate(e, g3, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);

    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaGraphDestroy(g3));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(p));
}

static cudaGraphNode_t add_conditional(cudaGraph_t g, cudaGraphNode_t *deps, size_t n, cudaGraphConditionalHandle h,
                                       cudaGraphConditionalNodeType type, unsigned size, cudaGraph_t **bodies)
{
    cudaGraphNodeParams np = { cudaGraphNodeTypeConditional };
    np.conditional.handle = h;
    np.conditional.type = type;
    np.conditional.size = size;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, g, deps, nullptr, n, &np));
    *bodies = np.conditional.phGraph_out;
    return node;
}

// conditions set by kernels: IF/ELSE picks a body, WHILE loops until the
// body clears the condition (its default reapplied each launch), SWITCH
// runs body n
static void conditionals(void)
{
    int *v, *acc, *left, *iters;
    CHECK(cudaMalloc(&v, sizeof(int)));
    CHECK(cudaMalloc(&acc, sizeof(int)));
    CHECK(cudaMalloc(&left, sizeof(int)));
    CHECK(cudaMalloc(&iters, sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // IF/ELSE and SWITCH, captured: set_from, then the conditional node
    for (int sw = 0; sw < 2; sw++) {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        CHECK(cudaGraphConditionalHandleCreate(&h, g));
        CHECK(cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
        set_from<<<1, 1, 0, s>>>(h, v);
        cudaStreamCaptureStatus st;
        const cudaGraphNode_t *deps;
        size_t nd;
        CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &nd));
        EXPECT(nd == 1);
        cudaGraph_t *bodies;
        unsigned size = sw ? 3 : 2;
        cudaGraphNode_t c = add_conditional(g, (cudaGraphNode_t *)deps, nd, h,
                                            sw ? cudaGraphCondTypeSwitch : cudaGraphCondTypeIf, size, &bodies);
        CHECK(cudaStreamUpdateCaptureDependencies(s, &c, nullptr, 1, cudaStreamSetCaptureDependencies));
        CHECK(cudaStreamEndCapture(s, &g));
        for (unsigned i = 0; i < size; i++) {
            cudaStream_t bs;
            CHECK(cudaStreamCreate(&bs));
            CHECK(cudaStreamBeginCaptureToGraph(bs, bodies[i], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
            axpb<<<1, 1, 0, bs>>>(acc, 1, 1, i == 0 ? 1 : i == 1 ? 10 : 100);
            CHECK(cudaStreamEndCapture(bs, nullptr));
            CHECK(cudaStreamDestroy(bs));
        }
        cudaGraphExec_t e;
        CHECK(cudaGraphInstantiate(&e, g, 0));
        CHECK(cudaMemset(acc, 0, sizeof(int)));
        static const int vals[2][5] = { { 1, 0, 5, 0, 1 }, { 2, 0, 7, 1, 2 } };
        int want = 0;
        for (int i = 0; i < 5; i++) {
            int x = vals[sw][i];
            CHECK(cudaMemcpy(v, &x, sizeof x, cudaMemcpyHostToDevice));
            CHECK(cudaGraphLaunch(e, s));
            CHECK(cudaStreamSynchronize(s));
            if (!sw)
                want += x ? 1 : 10;
            else
                want += x == 0 ? 1 : x == 1 ? 10 : x == 2 ? 100 : 0;
        }
        int got;
        CHECK(cudaMemcpy(&got, acc, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got == want);
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));
    }

    // WHILE as do-while: default 1, applied at each launch
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraph_t *bodies;
    add_conditional(g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, &bodies);
    cudaKernelNodeParams kp = {};
    void *args[] = { &left, &iters, &h };
    kp.func = (void *)count_down;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = args;
    cudaGraphNode_t k;
    CHECK(cudaGraphAddKernelNode(&k, bodies[0], nullptr, 0, &kp));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    for (int start = 1; start <= 9; start += 4) {
        CHECK(cudaMemcpy(left, &start, sizeof start, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(iters, 0, sizeof(int)));
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaStreamSynchronize(s));
        int it;
        CHECK(cudaMemcpy(&it, iters, sizeof it, cudaMemcpyDeviceToHost));
        EXPECT(it == start);
    }
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(v));
    CHECK(cudaFree(acc));
    CHECK(cudaFree(left));
    CHECK(cudaFree(iters));
}

// stream-ordered allocation in a capture becomes memory nodes; an
// allocation node by hand whose memory outlives the graph
static void memory_nodes(void)
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaDeviceGraphMemTrim(0));
    int out[N];
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *tmp;
    CHECK(cudaMallocAsync(&tmp, N * sizeof(int), s));
    CHECK(cudaMemsetAsync(tmp, 0, N * sizeof(int), s));
    axpb<<<BLOCKS, TPB, 0, s>>>(tmp, N, 1, 42);
    CHECK(cudaMemcpyAsync(out, tmp, sizeof out, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(tmp, s));
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphNode_t nodes[5];
    size_t n = 5;
    CHECK(cudaGraphGetNodes(g, nodes, &n));
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(nodes[0], &t));
    EXPECT(t == cudaGraphNodeTypeMemAlloc);
    CHECK(cudaGraphNodeGetType(nodes[4], &t));
    EXPECT(t == cudaGraphNodeTypeMemFree);
    run(g, s, 3);
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 42);
    unsigned long long used = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used >= N * sizeof(int));
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used == 0);
    CHECK(cudaGraphDestroy(g));

    // by hand, not freed by its graph: usable after the launch, until cudaFree
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = N * sizeof(int);
    cudaGraphNode_t an, sn;
    CHECK(cudaGraphAddMemAllocNode(&an, g, nullptr, 0, &ap));
    int *mem = (int *)ap.dptr;
    cudaMemsetParams mp = {};
    mp.dst = mem;
    mp.value = 0x01010101;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&sn, g, &an, 1, &mp));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphLaunch(e, s));
    axpb<<<BLOCKS, TPB, 0, s>>>(mem, N, 2, 0); // after the graph, in stream order
    CHECK(cudaMemcpyAsync(out, mem, sizeof out, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        EXPECT(out[i] == 2 * 0x01010101);
    EXPECT_ERR(cudaGraphLaunch(e, s), cudaErrorInvalidValue); // its allocation is still there
    CHECK(cudaFreeAsync(mem, s));
    CHECK(cudaGraphLaunch(e, s)); // freed (in stream order): again
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(mem));
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
}

static std::atomic<int> destroyed;
static void CUDART_CB on_destroy(void *arg)
{
    destroyed += (int)(intptr_t)arg;
}

static void user_objects(void)
{
    cudaUserObject_t u;
    CHECK(cudaUserObjectCreate(&u, (void *)5, on_destroy, 1, cudaUserObjectNoDestructorSync));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t hn;
    cudaHostNodeParams hp = { on_host, (void *)1 };
    CHECK(cudaGraphAddHostNode(&hn, g, nullptr, 0, &hp));
    CHECK(cudaGraphRetainUserObject(g, u, 1, cudaGraphUserObjectMove));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphLaunch(e, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(destroyed == 0); // the executable holds it
    CHECK(cudaGraphExecDestroy(e));
    for (int i = 0; i < 5000 && destroyed != 5; i++)
        usleep(1000);
    EXPECT(destroyed == 5);
}

// the capture rules, as the runtime reports them
static void capture_errors(void)
{
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    void *p;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT(g == nullptr);
    // relaxed for this thread: allowed
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&m));
    CHECK(cudaMalloc(&p, 64));
    CHECK(cudaFree(p));
    CHECK(cudaThreadExchangeStreamCaptureMode(&m));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphDestroy(g));
    // synchronizing a capturing stream
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamDestroy(s));
}

int main(int argc, char **argv)
{
    capture_fork_join();
    graph_by_hand(argc > 1 ? argv[1] : nullptr);
    conditionals();
    memory_nodes();
    user_objects();
    capture_errors();
    printf("PASS\n");
    return 0;
}
