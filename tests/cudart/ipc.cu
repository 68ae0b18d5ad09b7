// SPDX-License-Identifier: Apache-2.0
// IPC memory handles between two processes on the emulated GPU, through
// the real CUDA runtime: the parent fills 4 MiB of device memory and
// exports it (cudaIpcGetMemHandle); a child it starts (this program, with
// the handle in hex as its argument) opens it, runs a kernel that adds
// its index to every element, closes it and exits; the parent then reads
// the sum back, checked against the host. Also the errors: a handle
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

static cudaIpcMemHandle_t unhex(const char *s)
{
    cudaIpcMemHandle_t h;
    std::memset(&h, 0, sizeof h);
    for (size_t i = 0; i < sizeof h && s[2 * i] && s[2 * i + 1]; i++) {
        unsigned v = 0;
        std::sscanf(s + 2 * i, "%2x", &v);
        h.reserved[i] = (char)v;
    }
    return h;
}

static int child(const char *arg, int expect_gone)
{
    cudaIpcMemHandle_t h = unhex(arg);
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
    add_index<<<(N + 255) / 256, 256>>>(p, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaIpcCloseMemHandle(p));
    EXPECT(cudaIpcCloseMemHandle(p) == cudaErrorInvalidValue);
    cudaGetLastError();
    return rt_failed;
}

static int run_child(const char *self, const std::string &h, const char *mode)
{
    const char *argv[] = { self, mode, h.c_str(), nullptr };
    pid_t pid;
    if (posix_spawn(&pid, self, nullptr, nullptr, (char *const *)argv, environ) != 0)
        return -1;
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc == 3)
        return child(argv[2], std::strcmp(argv[1], "gone") == 0);
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
    int rc = run_child(argv[0], hex(mh), "open");
    EXPECT(rc == 0);
    CK(cudaMemcpy(out.data(), d, N * sizeof(int), cudaMemcpyDeviceToHost));
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
    rc = run_child(argv[0], hex(mh), "gone");
    EXPECT(rc == 0);
    CK(cudaFree(m));
    CK(cudaFree(small));
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
