// SPDX-License-Identifier: Apache-2.0
// Peer access on two emulated devices, through the real CUDA runtime: a
// kernel on device 0 reads device 1's memory and writes its own once
// cudaDeviceEnablePeerAccess allowed it, checked against the host; the
// runtime's errors for enabling twice and disabling what is not enabled;
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
