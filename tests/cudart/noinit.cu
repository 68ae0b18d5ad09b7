/* SPDX-License-Identifier: Apache-2.0 */
// What a runtime program sees when the driver cannot initialise (no
// devices: TDTRACE_EMU_DEVICES=0, or CUDA_VISIBLE_DEVICES empty): every
// call returns the same error, cleanly, and the program carries on.
// Argument: the expected error code (100, cudaErrorNoDevice). Prints PASS.
#include <cstdlib>

#include "common.h"

int main(int argc, char **argv)
{
    int expect = argc > 1 ? std::atoi(argv[1]) : (int)cudaErrorNoDevice;
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    std::printf("cudaGetDeviceCount: %s (%d), count %d\n", cudaGetErrorName(e), (int)e, n);
    EXPECT((int)e == expect);
    void *p = nullptr;
    cudaError_t e2 = cudaMalloc(&p, 16);
    std::printf("cudaMalloc: %s (%d)\n", cudaGetErrorName(e2), (int)e2);
    EXPECT(e2 != cudaSuccess && p == nullptr);
    cudaDeviceProp prop;
    EXPECT(cudaGetDeviceProperties(&prop, 0) != cudaSuccess);
    EXPECT(cudaSetDevice(0) != cudaSuccess);
    EXPECT(cudaDeviceSynchronize() != cudaSuccess);
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
