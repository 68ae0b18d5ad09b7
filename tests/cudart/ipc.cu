// SPDX-License-Identifier: Apache-2.0
// IPC memory and event handles between two processes on the emulated GPU,
// through the real CUDA runtime: the parent fills 4 MiB of device memory
// and exports it (cudaIpcGetMemHandle) with an interprocess event; a child
// it starts (this program, with the handles in hex and two pipes as its
// arguments) opens both, runs a slow kernel that adds its index to every
// element, records the event after it and tells the parent, which waits
// for the event (cudaEventSynchronize, and a stream of its own through
// cudaStreamWaitEvent) while the child is still alive, and checks the sum
// against the host before letting the child close and exit. Also the
// errors: a handle
// opened twice in one process, a handle that is not one, a handle opened
// in the process that made it, managed memory, a small allocation (not
// emulated), and a handle opened after the exporter freed the memory.
// Prints PASS.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "common.h"

extern char **environ;

__global__ void add_index(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += i;
}

// slow on purpose: the parent's wait for the event must really wait
__global__ void spin(int *sink, int iters)
{
    int v = 0;
    for (int k = 0; k < iters; k++)
        v = v * 1664525 + 1013904223 + k;
    if (v == 42)
        *sink = v;
}

// did every element get its index added? (the parent's check on the device)
__global__ void check_sum(const int *p, const int *orig, int n, int *bad)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && p[i] != orig[i] + i)
        atomicAdd(bad, 1);
}

static const int N = 1 << 20; // 4 MiB of ints

static std::string hex(const cudaIpcMemHandle_t &h)
{
    std::string s;
    char b[3];
    for (size_t i = 0; i < sizeof h; i++) {
        std::snprintf(b, sizeof b, "%02x", (unsigned char)h.reserved[i]);
        s += b;
    }
    return s;
}

template <class H> static H unhex(const char *s)
{
    H h;
    std::memset(&h, 0, sizeof h);
    for (size_t i = 0; i < sizeof h && s[2 * i] && s[2 * i + 1]; i++) {
        unsigned v = 0;
        std::sscanf(s + 2 * i, "%2x", &v);
        h.reserved[i] = (char)v;
    }
    return h;
}

static std::string hexe(const cudaIpcEventHandle_t &h)
{
    std::string s;
    char b[3];
    for (size_t i = 0; i < sizeof h; i++) {
        std::snprintf(b, sizeof b, "%02x", (unsigned char)h.reserved[i]);
        s += b;
    }
    return s;
}

// the child: opens the memory and the event, adds, records, tells the
// parent (fd out), waits for its word (fd in), closes
static int child(const char *arg, int expect_gone, const char *ev_arg = nullptr, int in = -1, int out = -1)
{
    cudaIpcMemHandle_t h = unhex<cudaIpcMemHandle_t>(arg);
    int *p = nullptr;
    cudaError_t e = cudaIpcOpenMemHandle((void **)&p, h, cudaIpcMemLazyEnablePeerAccess);
    if (expect_gone) {
        if (e != cudaErrorInvalidResourceHandle) {
            std::fprintf(stderr, "child: a freed export opened: %s\n", cudaGetErrorName(e));
            return 1;
        }
        return 0;
    }
    CK(e);
    int *again = nullptr;
    EXPECT(cudaIpcOpenMemHandle((void **)&again, h, cudaIpcMemLazyEnablePeerAccess) == cudaErrorAlreadyMapped);
    cudaGetLastError();
    cudaIpcMemHandle_t bad = h;
    bad.reserved[0] ^= 0x55;
    EXPECT(cudaIpcOpenMemHandle((void **)&again, bad, cudaIpcMemLazyEnablePeerAccess) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaEvent_t ev;
    CK(cudaIpcOpenEventHandle(&ev, unhex<cudaIpcEventHandle_t>(ev_arg)));
    int *sink;
    CK(cudaMalloc(&sink, sizeof(int)));
    spin<<<8, 32>>>(sink, 1 << 20);
    add_index<<<(N + 255) / 256, 256>>>(p, N);
    CK(cudaGetLastError());
    CK(cudaEventRecord(ev, 0));
    char c = 'r';
    if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1) // recorded; then wait for the parent
        return 1;
    CK(cudaDeviceSynchronize());
    CK(cudaEventDestroy(ev));
    CK(cudaIpcCloseMemHandle(p));
    EXPECT(cudaIpcCloseMemHandle(p) == cudaErrorInvalidValue);
    cudaGetLastError();
    return rt_failed;
}

static pid_t start_child(const char *self, const char *mode, const std::string &h,
                         const std::string &eh = "", int in = -1, int out = -1)
{
    std::string sin = std::to_string(in), sout = std::to_string(out);
    const char *argv[] = { self, mode, h.c_str(), eh.c_str(), sin.c_str(), sout.c_str(), nullptr };
    pid_t pid;
    if (posix_spawn(&pid, self, nullptr, nullptr, (char *const *)argv, environ) != 0)
        return -1;
    return pid;
}

static int wait_child(pid_t pid)
{
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc == 6 && std::strcmp(argv[1], "gone") == 0)
        return child(argv[2], 1);
    if (argc == 6)
        return child(argv[2], 0, argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
    std::vector<int> h(N), out(N);
    for (int i = 0; i < N; i++)
        h[i] = 3 * i - 1000;
    int *d = nullptr;
    CK(cudaMalloc(&d, N * sizeof(int)));
    CK(cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    cudaIpcMemHandle_t mh;
    CK(cudaIpcGetMemHandle(&mh, d));
    // the same process cannot open its own handle
    int *self = nullptr;
    EXPECT(cudaIpcOpenMemHandle((void **)&self, mh, cudaIpcMemLazyEnablePeerAccess) ==
           cudaErrorDeviceUninitialized);
    cudaGetLastError();
    cudaEvent_t ev;
    cudaIpcEventHandle_t eh;
    CK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming));
    CK(cudaIpcGetEventHandle(&eh, ev));
    cudaEvent_t plain;
    CK(cudaEventCreate(&plain));
    EXPECT(cudaIpcGetEventHandle(&eh, plain) == cudaErrorInvalidValue); // not interprocess
    cudaGetLastError();
    CK(cudaIpcGetEventHandle(&eh, ev));
    int to_child[2], from_child[2];
    if (pipe(to_child) || pipe(from_child))
        return 1;
    pid_t pid = start_child(argv[0], "open", hex(mh), hexe(eh), to_child[0], from_child[1]);
    EXPECT(pid > 0);
    char c = 0;
    EXPECT(read(from_child[0], &c, 1) == 1 && c == 'r'); // the child has recorded
    // a stream of the parent's waits for the child's record, then checks
    int *orig = nullptr, *bad = nullptr;
    CK(cudaMalloc(&orig, N * sizeof(int)));
    CK(cudaMalloc(&bad, sizeof(int)));
    CK(cudaMemcpy(orig, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(bad, 0, sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamWaitEvent(s, ev, 0));
    check_sum<<<(N + 255) / 256, 256, 0, s>>>(d, orig, N, bad);
    int nbad = -1;
    CK(cudaMemcpyAsync(&nbad, bad, sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(nbad == 0);
    // and the host waits for it too
    CK(cudaEventSynchronize(ev));
    CK(cudaEventQuery(ev));
    CK(cudaMemcpy(out.data(), d, N * sizeof(int), cudaMemcpyDeviceToHost));
    c = 'g';
    EXPECT(write(to_child[1], &c, 1) == 1);
    int rc = wait_child(pid);
    EXPECT(rc == 0);
    CK(cudaStreamDestroy(s));
    CK(cudaFree(orig));
    CK(cudaFree(bad));
    CK(cudaEventDestroy(ev));
    CK(cudaEventDestroy(plain));
    for (int i = 0; i < N; i++)
        if (out[i] != h[i] + i) {
            std::fprintf(stderr, "out[%d] = %d, expected %d\n", i, out[i], h[i] + i);
            rt_failed = 1;
            break;
        }
    // a second export of the same memory names the same memory
    cudaIpcMemHandle_t mh2;
    CK(cudaIpcGetMemHandle(&mh2, d));
    EXPECT(std::memcmp(&mh, &mh2, sizeof mh) == 0);
    // managed memory has no IPC handle; allocations under 1 MiB are not
    // shareable on the emulated GPU
    int *m = nullptr, *small = nullptr;
    CK(cudaMallocManaged(&m, 4096));
    EXPECT(cudaIpcGetMemHandle(&mh2, m) == cudaErrorInvalidValue);
    cudaGetLastError();
    CK(cudaMalloc(&small, 4096));
    EXPECT(cudaIpcGetMemHandle(&mh2, small) == cudaErrorNotSupported);
    cudaGetLastError();
    // once freed, the handle opens nothing
    CK(cudaFree(d));
    rc = wait_child(start_child(argv[0], "gone", hex(mh)));
    EXPECT(rc == 0);
    CK(cudaFree(m));
    CK(cudaFree(small));
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
