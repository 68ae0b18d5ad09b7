/* SPDX-License-Identifier: Apache-2.0 */
// Kernels through the runtime: cuLibraryLoadData, cuLibraryGetKernel, the
// kernel handle passed to cuLaunchKernel (and cuLaunchKernelEx); symbols,
// function attributes, occupancy. The kernels run on the emulator's PTX
// engine: the results must be right. Prints "PASS".
#include <cstring>
#include <vector>

#include "common.h"

__device__ int dev_scale;
__constant__ float dev_table[16];

__global__ void axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + (float)dev_scale + dev_table[i % 16];
}

int main(void)
{
    const int n = 1000;
    std::vector<float> hx(n), hy(n), out(n);
    for (int i = 0; i < n; i++) {
        hx[i] = (float)i;
        hy[i] = 1.0f;
    }
    float *x, *y;
    CK(cudaMalloc((void **)&x, n * sizeof(float)));
    CK(cudaMalloc((void **)&y, n * sizeof(float)));
    CK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    // symbols: cuLibraryGetGlobal
    int scale = 3;
    CK(cudaMemcpyToSymbol(dev_scale, &scale, sizeof scale));
    int back = 0;
    CK(cudaMemcpyFromSymbol(&back, dev_scale, sizeof back));
    EXPECT(back == 3);
    float table[16];
    for (int i = 0; i < 16; i++)
        table[i] = 0.5f * (float)i;
    CK(cudaMemcpyToSymbol(dev_table, table, sizeof table));
    void *addr = nullptr;
    size_t size = 0;
    CK(cudaGetSymbolAddress(&addr, dev_scale));
    CK(cudaGetSymbolSize(&size, dev_scale));
    EXPECT(addr != nullptr && size == sizeof(int));

    // attributes and occupancy: cuKernelGetFunction, cuKernelGetAttribute,
    // cuOccupancy*
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, axpy));
    EXPECT(fa.maxThreadsPerBlock >= 256);
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 0));
    EXPECT(blocks >= 1);
    int min_grid = 0, block = 0;
    CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, axpy, 0, 0));
    EXPECT(block >= 32 && block <= 1024 && min_grid >= 1);

    // the launch, on the default stream
    axpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok = ok && out[i] == 2.0f * (float)i + 1.0f + 3.0f + 0.5f * (float)(i % 16);
    EXPECT(ok);

    // on a stream, through cudaLaunchKernelEx, ordered after a copy
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyAsync(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((n + 127) / 128);
    cfg.blockDim = dim3(128);
    cfg.stream = s;
    CK(cudaLaunchKernelEx(&cfg, axpy, y, (const float *)x, -1.0f, n));
    CK(cudaMemcpyAsync(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    ok = true;
    for (int i = 0; i < n; i++)
        ok = ok && out[i] == -(float)i + 1.0f + 3.0f + 0.5f * (float)(i % 16);
    EXPECT(ok);
    CK(cudaStreamDestroy(s));

    // a bad configuration is an error, and does not run
    axpy<<<1, 4096>>>(y, x, 1.0f, n);
    EXPECT(cudaGetLastError() != cudaSuccess);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), y, sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(out[0] == 1.0f + 3.0f);

    CK(cudaFree(x));
    CK(cudaFree(y));
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
