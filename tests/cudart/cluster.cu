/* SPDX-License-Identifier: Apache-2.0 */
// Thread-block clusters and distributed shared memory through the runtime
// (compiled for sm_90): a cluster histogram whose bins are spread over the
// shared memory of the cluster's blocks (the CUDA programming guide's
// distributed shared memory example), the cluster special registers
// against the host's arithmetic (also captured into a graph, and from a
// kernel node's cluster attribute), cluster.sync() ordering writes into
// another block's shared memory, __cluster_dims__ kernels, the launch
// errors (grid not a multiple, cluster too large, non-portable sizes) and
// the occupancy queries. Prints "PASS".
#include <cooperative_groups.h>
#include <cstring>
#include <vector>

#include "common.h"

namespace cg = cooperative_groups;

// bins spread over the cluster: block rank r holds bins [r*per, (r+1)*per)
__global__ void cluster_hist(int *bins, int nbins, int per_block, const int *input, size_t n)
{
    extern __shared__ int smem[];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < per_block; i += blockDim.x)
        smem[i] = 0;
    cluster.sync(); // every block's bins are zero before anyone adds
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int v = input[i];
        if (v < 0) v = 0;
        if (v >= nbins) v = nbins - 1;
        unsigned rank = (unsigned)(v / per_block);
        int off = v % per_block;
        int *dst = cluster.map_shared_rank(smem, rank);
        atomicAdd(dst + off, 1);
    }
    cluster.sync(); // every add landed before the bins are read out
    int *lbins = bins + (blockIdx.x / cluster.dim_blocks().x) * nbins;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x)
        atomicAdd(&lbins[cluster.block_rank() * per_block + i], smem[i]);
}

struct ids { unsigned v[16]; };

// the cluster special registers of each block, as cooperative groups reads them
__global__ void cluster_ids(ids *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x != 0) return;
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    dim3 ci = cluster.block_index(), cd = cluster.dim_blocks();
    unsigned nc[3], cid[3];
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nc[0]));
    asm("mov.u32 %0, %%nclusterid.y;" : "=r"(nc[1]));
    asm("mov.u32 %0, %%nclusterid.z;" : "=r"(nc[2]));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid[0]));
    asm("mov.u32 %0, %%clusterid.y;" : "=r"(cid[1]));
    asm("mov.u32 %0, %%clusterid.z;" : "=r"(cid[2]));
    unsigned expl;
    asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(expl));
    ids r = { { ci.x, ci.y, ci.z, cd.x, cd.y, cd.z, cluster.block_rank(), cluster.num_blocks(),
                nc[0], nc[1], nc[2], cid[0], cid[1], cid[2], expl, 0 } };
    out[b] = r;
}

// cluster.sync() orders writes into the next block's shared memory: each
// block writes its rank into its neighbour's slot, then reads its own
__global__ void __cluster_dims__(4, 1, 1) ring(int *out, int rounds)
{
    __shared__ int slot[2];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = cluster.block_rank(), n = cluster.num_blocks();
    int *next = cluster.map_shared_rank(slot, (r + 1) % n);
    int sum = 0;
    for (int k = 0; k < rounds; k++) {
        if (threadIdx.x == 0) next[k & 1] = (int)(r * 1000 + k);
        cluster.sync();
        sum += slot[k & 1];
        cluster.sync();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// reaches past the cluster: rank 99 of a cluster of 2
__global__ void bad_rank(int *out)
{
    __shared__ int s[4];
    cg::cluster_group cluster = cg::this_cluster();
    s[threadIdx.x & 3] = 1;
    cluster.sync();
    int *p = cluster.map_shared_rank(s, 99u);
    out[0] = *p;
}

static cudaError_t launch(void (*k)(ids *), dim3 grid, dim3 block, dim3 cl, ids *arg)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = grid;
    cfg.blockDim = block;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cl.x;
    at[0].val.clusterDim.y = cl.y;
    at[0].val.clusterDim.z = cl.z;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, k, arg);
}

int main(void)
{
    int dev = 0, cl = 0;
    CK(cudaDeviceGetAttribute(&cl, cudaDevAttrClusterLaunch, dev));
    EXPECT(cl == 1);

    // the histogram: 4 clusters of 4 blocks, 4 x 256 bins per cluster
    const int nbins = 1024, csize = 4, per = nbins / csize, nclusters = 4;
    const size_t n = 100000;
    std::vector<int> in(n), want((size_t)nbins * nclusters, 0), got(want.size());
    unsigned s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        in[i] = (int)((s >> 8) % (nbins + 20)) - 10;
    }
    int *din, *dbins;
    CK(cudaMalloc((void **)&din, n * sizeof(int)));
    CK(cudaMalloc((void **)&dbins, got.size() * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dbins, 0, got.size() * sizeof(int)));
    const int threads = 128, blocks = csize * nclusters;
    // the host's histogram: the same grid-stride split into clusters
    for (size_t i = 0; i < n; i++) {
        size_t blk = (i / threads) % blocks;
        int v = in[i] < 0 ? 0 : in[i] >= nbins ? nbins - 1 : in[i];
        want[(blk / csize) * nbins + v]++;
    }
    {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        cfg.gridDim = dim3(blocks);
        cfg.blockDim = dim3(threads);
        cfg.dynamicSmemBytes = per * sizeof(int);
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = csize;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, cluster_hist, dbins, nbins, per, (const int *)din, n));
        CK(cudaDeviceSynchronize());
        int ncl = 0;
        CK(cudaOccupancyMaxActiveClusters(&ncl, cluster_hist, &cfg));
        EXPECT(ncl >= 1);
        int maxcl = 0;
        CK(cudaOccupancyMaxPotentialClusterSize(&maxcl, cluster_hist, &cfg));
        EXPECT(maxcl == 8);
        CK(cudaFuncSetAttribute(cluster_hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        CK(cudaOccupancyMaxPotentialClusterSize(&maxcl, cluster_hist, &cfg));
        EXPECT(maxcl == 16);
    }
    CK(cudaMemcpy(got.data(), dbins, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(got == want);

    // the special registers: a 3-D grid of 2x2x1 clusters
    dim3 grid(4, 6, 2), cd(2, 2, 1);
    unsigned nb = grid.x * grid.y * grid.z;
    ids *dids;
    CK(cudaMalloc((void **)&dids, nb * sizeof(ids)));
    CK(launch(cluster_ids, grid, dim3(32), cd, dids));
    std::vector<ids> hids(nb);
    CK(cudaMemcpy(hids.data(), dids, nb * sizeof(ids), cudaMemcpyDeviceToHost));
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                const unsigned *v = hids[x + grid.x * (y + grid.y * z)].v;
                unsigned cx = x % cd.x, cy = y % cd.y, cz = z % cd.z;
                unsigned w[15] = { cx, cy, cz, cd.x, cd.y, cd.z, cx + cd.x * (cy + cd.y * cz), cd.x * cd.y * cd.z,
                                   grid.x / cd.x, grid.y / cd.y, grid.z / cd.z, x / cd.x, y / cd.y, z / cd.z, 1 };
                for (int k = 0; k < 15; k++)
                    if (v[k] != w[k]) {
                        std::fprintf(stderr, "block (%u,%u,%u) value %d: %u, expected %u\n", x, y, z, k, v[k], w[k]);
                        rt_failed = 1;
                    }
            }

    // the same launch captured into a graph: the kernel node keeps the
    // cluster (its launch attribute), and a node whose attribute is set
    // afterwards (cudaGraphKernelNodeSetAttribute) runs with that one
    {
        cudaStream_t cs;
        CK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        CK(cudaMemset(dids, 0xff, nb * sizeof(ids)));
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        cfg.gridDim = grid;
        cfg.blockDim = dim3(32);
        cfg.stream = cs;
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = cd.x;
        at[0].val.clusterDim.y = cd.y;
        at[0].val.clusterDim.z = cd.z;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, cluster_ids, dids));
        CK(cudaStreamEndCapture(cs, &g));
        cudaGraphExec_t ge;
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphLaunch(ge, cs));
        CK(cudaStreamSynchronize(cs));
        std::vector<ids> again(nb);
        CK(cudaMemcpy(again.data(), dids, nb * sizeof(ids), cudaMemcpyDeviceToHost));
        EXPECT(std::memcmp(again.data(), hids.data(), nb * sizeof(ids)) == 0);
        // a node with its cluster set after: 4 x 1 x 1 on a 8 x 1 x 1 grid
        cudaGraph_t g2;
        CK(cudaGraphCreate(&g2, 0));
        cudaKernelNodeParams kp = {};
        void *args[] = { &dids };
        kp.func = (void *)cluster_ids;
        kp.gridDim = dim3(8);
        kp.blockDim = dim3(32);
        kp.kernelParams = args;
        cudaGraphNode_t node;
        CK(cudaGraphAddKernelNode(&node, g2, nullptr, 0, &kp));
        cudaKernelNodeAttrValue v = {};
        v.clusterDim.x = 4;
        v.clusterDim.y = 1;
        v.clusterDim.z = 1;
        CK(cudaGraphKernelNodeSetAttribute(node, cudaKernelNodeAttributeClusterDimension, &v));
        cudaGraphExec_t ge2;
        CK(cudaGraphInstantiate(&ge2, g2, 0));
        CK(cudaGraphLaunch(ge2, cs));
        CK(cudaStreamSynchronize(cs));
        CK(cudaMemcpy(again.data(), dids, 8 * sizeof(ids), cudaMemcpyDeviceToHost));
        for (unsigned b = 0; b < 8; b++)
            EXPECT(again[b].v[6] == b % 4 && again[b].v[7] == 4 && again[b].v[11] == b / 4);
        CK(cudaGraphExecDestroy(ge2));
        CK(cudaGraphDestroy(g2));
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
        CK(cudaStreamDestroy(cs));
    }

    // launch errors: the grid not a multiple of the cluster, too large a
    // cluster, a non-portable size without the function's permission
    EXPECT(launch(cluster_ids, dim3(6), dim3(32), dim3(4), dids) != cudaSuccess);
    cudaGetLastError();
    EXPECT(launch(cluster_ids, dim3(32), dim3(32), dim3(32), dids) != cudaSuccess);
    cudaGetLastError();
    EXPECT(launch(cluster_ids, dim3(16), dim3(32), dim3(16), dids) != cudaSuccess);
    cudaGetLastError();
    CK(cudaFuncSetAttribute(cluster_ids, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(launch(cluster_ids, dim3(16), dim3(32), dim3(16), dids));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hids.data(), dids, 16 * sizeof(ids), cudaMemcpyDeviceToHost));
    EXPECT(hids[15].v[6] == 15 && hids[15].v[7] == 16);

    // __cluster_dims__: the cluster size is the function's (an ordinary <<<>>> launch)
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, ring));
    EXPECT(fa.requiredClusterWidth == 4 && fa.requiredClusterHeight == 1 && fa.requiredClusterDepth == 1);
    int *dring;
    CK(cudaMalloc((void **)&dring, 8 * sizeof(int)));
    const int rounds = 50;
    ring<<<8, 64>>>(dring, rounds);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int hring[8];
    CK(cudaMemcpy(hring, dring, sizeof hring, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 8; b++) {
        int r = b % 4, from = (r + 3) % 4, want_sum = 0;
        for (int k = 0; k < rounds; k++) want_sum += from * 1000 + k;
        if (hring[b] != want_sum) {
            std::fprintf(stderr, "ring block %d: %d, expected %d\n", b, hring[b], want_sum);
            rt_failed = 1;
        }
    }
    ring<<<6, 64>>>(dring, rounds); // 6 blocks: not a multiple of 4
    EXPECT(cudaGetLastError() != cudaSuccess);

    // a rank outside the cluster faults (the context is lost: last)
    int *dbad;
    CK(cudaMalloc((void **)&dbad, sizeof(int)));
    {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at[1];
        cfg.gridDim = dim3(2);
        cfg.blockDim = dim3(32);
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 2;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        cfg.attrs = at;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, bad_rank, dbad));
        EXPECT(cudaDeviceSynchronize() != cudaSuccess);
    }
    if (rt_failed) return 1;
    std::printf("PASS\n");
    return 0;
}
