/* SPDX-License-Identifier: Apache-2.0 */
// Cluster launches on a device without clusters (run on a profile before
// sm_90, as an A100): CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0, a cluster of
// one block is a block and runs, a larger one fails with
// cudaErrorInvalidClusterSize as the driver answers; the occupancy queries
// answer for clusters of one. Prints "PASS".
#include "common.h"

__global__ void fill(int *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)blockIdx.x;
}

static cudaError_t launch(unsigned cx, int *arg)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(32);
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cx;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, fill, arg);
}

int main(void)
{
    int cl = -1;
    CK(cudaDeviceGetAttribute(&cl, cudaDevAttrClusterLaunch, 0));
    EXPECT(cl == 0);
    int *d;
    CK(cudaMalloc((void **)&d, 128 * sizeof(int)));
    CK(launch(1, d));
    CK(cudaDeviceSynchronize());
    int h[128];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[127] == 3 && h[0] == 0);
    EXPECT(launch(2, d) == cudaErrorInvalidClusterSize);
    cudaGetLastError();
    int size = -1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(32);
    CK(cudaOccupancyMaxPotentialClusterSize(&size, fill, &cfg));
    EXPECT(size == 1);
    if (rt_failed) return 1;
    std::printf("PASS\n");
    return 0;
}
