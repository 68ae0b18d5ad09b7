// SPDX-License-Identifier: Apache-2.0
// Cooperative launches on the emulated GPU: grid.sync() between phases of
// one kernel (every block resident at once), checked against the host.
//   1. a two-phase sum: each block adds its slice into partial[block],
//      the grid synchronises, block 0 adds the partials;
//   2. many grid barriers in a loop: a prefix that only holds if every
//      block saw every other block's write of the round before;
//   3. a grid larger than fits at once: cudaErrorCooperativeLaunchTooLarge;
//   4. a launch through cudaLaunchKernelEx with the cooperative attribute;
//   5. the same kernel launched without cooperation: grid.sync() finds no
//      barrier and traps, as on a GPU (the context's sticky error).
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void two_phase(const int *in, int n, long long *partial, long long *total)
{
    cg::grid_group g = cg::this_grid();
    __shared__ long long s[256];
    long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];
    g.sync();
    if (g.thread_rank() == 0) {
        long long t = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            t += partial[b];
        *total = t;
    }
}

// round r: every block writes r + its index into slot[block]; after the
// barrier each block checks that every slot holds this round's value
__global__ void rounds(int *slot, int nrounds, int *bad)
{
    cg::grid_group g = cg::this_grid();
    for (int r = 0; r < nrounds; r++) {
        if (threadIdx.x == 0)
            slot[blockIdx.x] = r * 1000 + blockIdx.x;
        g.sync();
        for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            if (slot[b] != r * 1000 + (int)b)
                atomicAdd(bad, 1);
        g.sync();
    }
}

int main()
{
    int dev = 0, coop = 0, nsm = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    if (!coop) { printf("FAIL: cudaDevAttrCooperativeLaunch is 0\n"); return 1; }
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase, 256, 0));

    // 1. two phases
    const int n = 100000, blocks = 24;
    std::vector<int> h(n);
    long long want = 0;
    for (int i = 0; i < n; i++) { h[i] = (i * 7919) % 1000 - 500; want += h[i]; }
    int *d_in; long long *d_part, *d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_part, blocks * sizeof(long long)));
    CHECK(cudaMalloc(&d_total, sizeof(long long)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int nn = n;
    void *args[] = { &d_in, &nn, &d_part, &d_total };
    CHECK(cudaLaunchCooperativeKernel((void *)two_phase, blocks, 256, args, 0, 0));
    long long got = 0;
    CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
    if (got != want) { printf("FAIL two_phase: %lld, want %lld\n", got, want); return 1; }
    printf("two_phase: %d blocks, sum %lld\n", blocks, got);

    // 2. 50 rounds of two barriers
    int *d_slot, *d_bad;
    const int rb = 16;
    CHECK(cudaMalloc(&d_slot, rb * sizeof(int)));
    CHECK(cudaMalloc(&d_bad, sizeof(int)));
    CHECK(cudaMemset(d_bad, 0, sizeof(int)));
    int nr = 50;
    void *rargs[] = { &d_slot, &nr, &d_bad };
    CHECK(cudaLaunchCooperativeKernel((void *)rounds, rb, 64, rargs, 0, 0));
    int bad = -1;
    CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    if (bad != 0) { printf("FAIL rounds: %d stale reads\n", bad); return 1; }
    printf("rounds: %d blocks, %d rounds, no stale read\n", rb, nr);

    // 3. more blocks than fit at once
    int too = per_sm * nsm + 1;
    cudaError_t e = cudaLaunchCooperativeKernel((void *)two_phase, too, 256, args, 0, 0);
    if (e != cudaErrorCooperativeLaunchTooLarge) {
        printf("FAIL: %d blocks (%d per SM x %d SMs fit): %s\n", too, per_sm, nsm, cudaGetErrorString(e));
        return 1;
    }
    printf("too large: %d blocks refused\n", too);

    // 4. cudaLaunchKernelEx with the cooperative attribute
    CHECK(cudaMemset(d_total, 0, sizeof(long long)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(256);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, two_phase, (const int *)d_in, nn, d_part, d_total));
    CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
    if (got != want) { printf("FAIL launch ex: %lld, want %lld\n", got, want); return 1; }
    printf("cudaLaunchKernelEx cooperative: sum %lld\n", got);
    CHECK(cudaFree(d_slot)); CHECK(cudaFree(d_bad));

    // 5. last: it ends the context
    two_phase<<<2, 256>>>(d_in, nn, d_part, d_total);
    e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure) {
        printf("FAIL: grid.sync() in a launch that is not cooperative: %s\n", cudaGetErrorString(e));
        return 1;
    }
    printf("not cooperative: %s\n", cudaGetErrorName(e));
    printf("PASS\n");
    return 0;
}
