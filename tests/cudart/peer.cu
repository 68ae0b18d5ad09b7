// SPDX-License-Identifier: Apache-2.0
// Peer access on two emulated devices, through the real CUDA runtime: a
// kernel on device 0 reads device 1's memory and writes its own once
// cudaDeviceEnablePeerAccess allowed it, checked against the host; the
// runtime's errors for enabling twice and disabling what is not enabled;
// device 0's stream-ordered pool memory read on device 1 after
// cudaMemPoolSetAccess;
// then, with access disabled again, the same kernel faults with
// cudaErrorIllegalAddress (sticky: the last thing the program does on
// device 0). Prints PASS.
#include <cstring>
#include <vector>

#include "common.h"

__global__ void gather(const float *peer, float *own, int n, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        own[i] = peer[n - 1 - i] * k;
}

int main()
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        std::fprintf(stderr, "needs 2 devices (TDTRACE_EMU_DEVICES=2), has %d\n", n);
        return 1;
    }
    int can01 = -1, can00 = -1;
    CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&can00, 0, 0));
    EXPECT(can01 == 1);
    EXPECT(can00 == 0);
    int v = -1;
    CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 1));
    EXPECT(v == 1);

    const int N = 1000;
    std::vector<float> h(N), out(N);
    for (int i = 0; i < N; i++)
        h[i] = 0.5f * (float)i - 7.0f;
    float *d1 = nullptr, *d0 = nullptr;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&d1, N * sizeof(float)));
    CK(cudaMemcpy(d1, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&d0, N * sizeof(float)));

    EXPECT(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();
    EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
    cudaGetLastError();
    CK(cudaDeviceEnablePeerAccess(1, 0));
    EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
    cudaGetLastError();

    gather<<<(N + 127) / 128, 128>>>(d1, d0, N, 3.0f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), d0, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (out[i] != h[N - 1 - i] * 3.0f) {
            std::fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], h[N - 1 - i] * 3.0f);
            rt_failed = 1;
            break;
        }

    // device 1 has no access to device 0's memory: one way only
    CK(cudaSetDevice(1));
    EXPECT(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();

    // device 0's pool memory, read by a kernel on device 1 once the pool's
    // access list names device 1 (peer access plays no part for pools)
    CK(cudaSetDevice(0));
    float *p0 = nullptr, *q1 = nullptr;
    CK(cudaMallocAsync(&p0, N * sizeof(float), 0));
    CK(cudaMemcpy(p0, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cudaMemPool_t mp;
    CK(cudaDeviceGetDefaultMemPool(&mp, 0));
    cudaMemAccessDesc ad = {};
    ad.location.type = cudaMemLocationTypeDevice;
    ad.location.id = 1;
    ad.flags = cudaMemAccessFlagsProtReadWrite;
    CK(cudaMemPoolSetAccess(mp, &ad, 1));
    cudaMemLocation l1 = {};
    l1.type = cudaMemLocationTypeDevice;
    l1.id = 1;
    cudaMemAccessFlags af = cudaMemAccessFlagsProtNone;
    CK(cudaMemPoolGetAccess(&af, mp, &l1));
    EXPECT(af == cudaMemAccessFlagsProtReadWrite);
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&q1, N * sizeof(float)));
    gather<<<(N + 127) / 128, 128>>>(p0, q1, N, 2.0f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), q1, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (out[i] != h[N - 1 - i] * 2.0f) {
            std::fprintf(stderr, "pool: out[%d] = %g, expected %g\n", i, out[i], h[N - 1 - i] * 2.0f);
            rt_failed = 1;
            break;
        }
    CK(cudaFree(q1));
    CK(cudaSetDevice(0));
    CK(cudaFreeAsync(p0, 0));
    CK(cudaDeviceSynchronize());

    // without peer access, the hardware's rule: an illegal address
    CK(cudaSetDevice(0));
    CK(cudaDeviceDisablePeerAccess(1));
    gather<<<(N + 127) / 128, 128>>>(d1, d0, N, 1.0f);
    CK(cudaGetLastError());
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT(e == cudaErrorIllegalAddress);
    if (e != cudaErrorIllegalAddress)
        std::fprintf(stderr, "the kernel without peer access: %s\n", cudaGetErrorName(e));
    // device 1 is untouched by device 0's fault
    CK(cudaSetDevice(1));
    CK(cudaMemcpy(out.data(), d1, N * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(out.data(), h.data(), N * sizeof(float)) == 0);
    CK(cudaFree(d1));
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
