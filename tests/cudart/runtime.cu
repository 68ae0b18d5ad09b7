/* SPDX-License-Identifier: Apache-2.0 */
// The CUDA runtime on the emulated GPU: devices, memory, every copy
// direction, memsets, page-locked memory, streams, events, host functions,
// callbacks, memory info, synchronisation, reset, several host threads.
// Built static, with -cudart shared and with --default-stream per-thread;
// run standalone and under tdtrace. Prints "PASS" and exits 0 when all is
// well; the first failing call is named on stderr.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "common.h"

static const size_t N = 1 << 20; // bytes per buffer

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + seed);
}

static bool same(const unsigned char *a, const unsigned char *b, size_t n)
{
    return std::memcmp(a, b, n) == 0;
}

static void devices(int *count)
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    EXPECT(n >= 1);
    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, d));
        EXPECT(p.name[0] != 0);
        EXPECT(p.totalGlobalMem > 0);
        EXPECT(p.multiProcessorCount > 0);
        EXPECT(p.warpSize == 32);
        EXPECT(p.maxThreadsPerBlock >= 1024);
        int v = 0;
        CK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, d));
        EXPECT(v == p.major);
        CK(cudaSetDevice(d));
        int cur = -1;
        CK(cudaGetDevice(&cur));
        EXPECT(cur == d);
        size_t fr = 0, tot = 0;
        CK(cudaMemGetInfo(&fr, &tot));
        EXPECT(tot == p.totalGlobalMem);
        EXPECT(fr <= tot);
    }
    CK(cudaSetDevice(0));
    *count = n;
}

static void copies(void)
{
    std::vector<unsigned char> h1(N), h2(N), h3(N);
    fill(h1.data(), N, 1);
    unsigned char *d1, *d2;
    CK(cudaMalloc((void **)&d1, N));
    CK(cudaMalloc((void **)&d2, N));
    CK(cudaMemcpy(d1, h1.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d2, d1, N, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(h2.data(), d2, N, cudaMemcpyDeviceToHost));
    EXPECT(same(h1.data(), h2.data(), N));
    CK(cudaMemcpy(h3.data(), h2.data(), N, cudaMemcpyHostToHost));
    EXPECT(same(h1.data(), h3.data(), N));

    // cudaMemcpyDefault: the driver works out each direction
    fill(h1.data(), N, 2);
    CK(cudaMemcpy(d1, h1.data(), N, cudaMemcpyDefault));
    CK(cudaMemcpy(d2, d1, N, cudaMemcpyDefault));
    std::memset(h2.data(), 0, N);
    CK(cudaMemcpy(h2.data(), d2, N, cudaMemcpyDefault));
    EXPECT(same(h1.data(), h2.data(), N));
    CK(cudaMemcpy(h3.data(), h2.data(), 4096, cudaMemcpyDefault));
    EXPECT(same(h2.data(), h3.data(), 4096));

    // offsets inside allocations
    CK(cudaMemcpy(d1 + 100, h1.data() + 7, 1000, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(h2.data(), d1 + 100, 1000, cudaMemcpyDeviceToHost));
    EXPECT(same(h2.data(), h1.data() + 7, 1000));

    // memset
    CK(cudaMemset(d1, 0xab, N));
    CK(cudaMemcpy(h2.data(), d1, N, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < N; i++)
        ok = ok && h2[i] == 0xab;
    EXPECT(ok);

    // out of bounds and bad pointers are errors, not crashes
    EXPECT(cudaMemcpy(d1, h1.data(), N + 1, cudaMemcpyHostToDevice) != cudaSuccess);
    cudaGetLastError();
    CK(cudaFree(d1));
    CK(cudaFree(d2));
    CK(cudaFree(nullptr));
}

static void pinned(void)
{
    unsigned char *p1, *p2, *d;
    CK(cudaMallocHost((void **)&p1, N));
    CK(cudaHostAlloc((void **)&p2, N, cudaHostAllocPortable | cudaHostAllocMapped));
    CK(cudaMalloc((void **)&d, N));
    fill(p1, N, 3);
    CK(cudaMemcpy(d, p1, N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p2, d, N, cudaMemcpyDeviceToHost));
    EXPECT(same(p1, p2, N));
    unsigned int flags = 0;
    CK(cudaHostGetFlags(&flags, p2));
    EXPECT(flags & cudaHostAllocMapped);
    cudaPointerAttributes a;
    CK(cudaPointerGetAttributes(&a, d));
    EXPECT(a.type == cudaMemoryTypeDevice);
    CK(cudaPointerGetAttributes(&a, p1));
    EXPECT(a.type == cudaMemoryTypeHost);
    int stack_var = 0;
    CK(cudaPointerGetAttributes(&a, &stack_var));
    EXPECT(a.type == cudaMemoryTypeUnregistered);
    CK(cudaFree(d));
    CK(cudaFreeHost(p1));
    CK(cudaFreeHost(p2));
}

static std::atomic<int> host_fn_calls;
static unsigned char *host_fn_seen; // what the host function found

struct hf_arg {
    unsigned char *buf;
    unsigned char expect;
};

static void CUDART_CB host_fn(void *arg)
{
    hf_arg *a = (hf_arg *)arg;
    host_fn_seen = a->buf[N - 1] == a->expect ? a->buf : nullptr;
    host_fn_calls++;
}

static std::atomic<int> callback_calls;
static void CUDART_CB callback(cudaStream_t s, cudaError_t status, void *arg)
{
    (void)s;
    if (status == cudaSuccess && arg == (void *)&callback_calls)
        callback_calls++;
}

static void streams_events(void)
{
    cudaStream_t s1, s2, s3;
    CK(cudaStreamCreate(&s1));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    int lo = 0, hi = 0;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaStreamCreateWithPriority(&s3, cudaStreamDefault, hi));
    int prio = 1;
    CK(cudaStreamGetPriority(s3, &prio));
    EXPECT(prio == hi);

    unsigned char *h, *back, *d1, *d2;
    CK(cudaMallocHost((void **)&h, N));
    CK(cudaMallocHost((void **)&back, N));
    CK(cudaMalloc((void **)&d1, N));
    CK(cudaMalloc((void **)&d2, N));
    fill(h, N, 4);

    cudaEvent_t start, stop, mid, notiming;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    CK(cudaEventCreateWithFlags(&mid, cudaEventBlockingSync));
    CK(cudaEventCreateWithFlags(&notiming, cudaEventDisableTiming));

    // async copies on s1, s2 waits for them through an event
    CK(cudaEventRecord(start, s1));
    CK(cudaMemcpyAsync(d1, h, N, cudaMemcpyHostToDevice, s1));
    CK(cudaMemsetAsync(d2, 0, N, s1));
    CK(cudaMemcpyAsync(d2, d1, N, cudaMemcpyDeviceToDevice, s1));
    CK(cudaEventRecord(mid, s1));
    CK(cudaStreamWaitEvent(s2, mid, 0));
    CK(cudaMemcpyAsync(back, d2, N, cudaMemcpyDeviceToHost, s2));
    static hf_arg arg;
    arg.buf = back;
    arg.expect = h[N - 1];
    CK(cudaLaunchHostFunc(s2, host_fn, &arg));
    CK(cudaStreamAddCallback(s2, callback, &callback_calls, 0));
    CK(cudaEventRecord(stop, s2));
    CK(cudaEventRecord(notiming, s2));
    CK(cudaEventSynchronize(stop));
    CK(cudaEventQuery(stop));
    CK(cudaStreamSynchronize(s2));
    CK(cudaStreamQuery(s2));
    EXPECT(same(h, back, N));
    EXPECT(host_fn_calls == 1);
    EXPECT(host_fn_seen == back);
    EXPECT(callback_calls == 1);
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0);
    EXPECT(cudaEventElapsedTime(&ms, start, notiming) == cudaErrorInvalidResourceHandle);
    cudaGetLastError();

    // cudaMemcpyDefault asynchronously, on the default stream
    fill(h, N, 5);
    CK(cudaMemcpyAsync(d1, h, N, cudaMemcpyDefault, 0));
    CK(cudaMemcpyAsync(back, d1, N, cudaMemcpyDefault, 0));
    CK(cudaStreamSynchronize(0));
    EXPECT(same(h, back, N));

    // pageable memory, asynchronously, on a priority stream
    std::vector<unsigned char> pg(N), pg2(N);
    fill(pg.data(), N, 6);
    CK(cudaMemcpyAsync(d1, pg.data(), N, cudaMemcpyHostToDevice, s3));
    CK(cudaMemcpyAsync(pg2.data(), d1, N, cudaMemcpyDeviceToHost, s3));
    CK(cudaStreamSynchronize(s3));
    EXPECT(same(pg.data(), pg2.data(), N));

    // many host functions keep their order
    static std::atomic<int> order_bad;
    static int next_expected;
    next_expected = 0;
    static int ids[64];
    for (int i = 0; i < 64; i++) {
        ids[i] = i;
        CK(cudaLaunchHostFunc(s1, [](void *p) {
            int id = *(int *)p;
            if (id != next_expected)
                order_bad++;
            next_expected = id + 1;
        }, &ids[i]));
    }
    CK(cudaDeviceSynchronize());
    EXPECT(order_bad == 0 && next_expected == 64);

    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    CK(cudaEventDestroy(mid));
    CK(cudaEventDestroy(notiming));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    CK(cudaStreamDestroy(s3));
    CK(cudaFree(d1));
    CK(cudaFree(d2));
    CK(cudaFreeHost(h));
    CK(cudaFreeHost(back));
}

static void meminfo(void)
{
    size_t f0, t0, f1, t1;
    CK(cudaMemGetInfo(&f0, &t0));
    void *p;
    CK(cudaMalloc(&p, 64 << 20));
    CK(cudaMemGetInfo(&f1, &t1));
    EXPECT(t0 == t1);
    EXPECT(f1 + (64 << 20) <= f0);
    CK(cudaFree(p));
    CK(cudaMemGetInfo(&f1, &t1));
    EXPECT(f1 == f0);
    // too much is cudaErrorMemoryAllocation, and the runtime carries on
    EXPECT(cudaMalloc(&p, t0 * 2) == cudaErrorMemoryAllocation);
    cudaGetLastError();
}

// several host threads, each with its own stream and its own buffers
static void threads(int ndev)
{
    const int T = 8;
    std::atomic<int> bad(0);
    std::vector<std::thread> ts;
    for (int t = 0; t < T; t++) {
        ts.emplace_back([t, ndev, &bad] {
            if (cudaSetDevice(t % ndev) != cudaSuccess) {
                bad++;
                return;
            }
            const size_t n = 256 << 10;
            std::vector<unsigned char> h(n), b(n);
            cudaStream_t s;
            unsigned char *d;
            if (cudaStreamCreate(&s) || cudaMalloc((void **)&d, n)) {
                bad++;
                return;
            }
            for (int it = 0; it < 20; it++) {
                fill(h.data(), n, (unsigned)(t * 100 + it));
                if (cudaMemcpyAsync(d, h.data(), n, cudaMemcpyHostToDevice, s) ||
                    cudaMemcpyAsync(b.data(), d, n, cudaMemcpyDeviceToHost, s) ||
                    cudaStreamSynchronize(s) || !same(h.data(), b.data(), n))
                    bad++;
                // the thread's default stream too
                if (cudaMemset(d, t, n) || cudaMemcpy(b.data(), d, n, cudaMemcpyDeviceToHost) ||
                    b[n - 1] != (unsigned char)t)
                    bad++;
            }
            if (cudaFree(d) || cudaStreamDestroy(s))
                bad++;
        });
    }
    for (auto &th : ts)
        th.join();
    EXPECT(bad == 0);
    CK(cudaSetDevice(0));
}

static void reset(void)
{
    void *p;
    cudaStream_t s;
    CK(cudaMalloc(&p, 4096));
    CK(cudaStreamCreate(&s));
    CK(cudaDeviceSynchronize());
    CK(cudaDeviceReset());
    // everything of the old context is gone; the next call sets it up again
    void *q;
    CK(cudaMalloc(&q, 4096));
    CK(cudaMemset(q, 1, 4096));
    unsigned char b[4096];
    CK(cudaMemcpy(b, q, sizeof b, cudaMemcpyDeviceToHost));
    EXPECT(b[0] == 1 && b[4095] == 1);
    CK(cudaFree(q));
    CK(cudaStreamCreate(&s));
    CK(cudaStreamDestroy(s));
    CK(cudaDeviceSynchronize());
}

// more than one device: copies between them through cudaMemcpyDefault/Peer
static void multi(int ndev)
{
    if (ndev < 2)
        return;
    std::vector<unsigned char> h(N), b(N);
    fill(h.data(), N, 7);
    unsigned char *d0, *d1;
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&d0, N));
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&d1, N));
    CK(cudaMemcpy(d0, h.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d1, d0, N, cudaMemcpyDefault));
    CK(cudaMemcpy(b.data(), d1, N, cudaMemcpyDeviceToHost));
    EXPECT(same(h.data(), b.data(), N));
    CK(cudaMemset(d1, 0, N));
    CK(cudaMemcpyPeer(d1, 1, d0, 0, N));
    CK(cudaMemcpy(b.data(), d1, N, cudaMemcpyDefault));
    EXPECT(same(h.data(), b.data(), N));
    CK(cudaFree(d1));
    CK(cudaSetDevice(0));
    CK(cudaFree(d0));
}

int main(void)
{
    int ndev = 0;
    devices(&ndev);
    copies();
    pinned();
    streams_events();
    meminfo();
    threads(ndev);
    multi(ndev);
    reset();
    CK(cudaGetLastError());
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
