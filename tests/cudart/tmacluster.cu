/* SPDX-License-Identifier: Apache-2.0 */
// Tensor-map multicast and reductions (compiled for sm_90a), through
// libcu++'s cuda::ptx wrappers: in a cluster of 2 blocks, each block
// multicasts one box into both blocks' shared memory (ctaMask 0b11), and
// each block's mbarrier counts both boxes; then blocks reduce boxes into
// one tensor (f32 add and s32 min from 4 blocks, u32 inc from one, as it
// does not commute) and the host checks the result
// against its own arithmetic, elements outside the tensor untouched.
// Prints "PASS".
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>
#include <vector>

#include "common.h"

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static encode_fn encode;

#define BX 16
#define BY 4

__global__ void __cluster_dims__(2, 1, 1) multicast(const __grid_constant__ CUtensorMap in, float *dump)
{
    __shared__ alignas(128) float box[2][BY][BX];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync(); // both mbarriers are ready before either block copies
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof box);
        const int32_t c[2] = { (int)rank * BX, (int)blockIdx.y * BY };
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &box[rank], &in, c, &bar, (uint16_t)3);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    float *d = dump + (blockIdx.y * 2 + rank) * 2 * BX * BY;
    for (int i = threadIdx.x; i < 2 * BX * BY; i += blockDim.x)
        d[i] = (&box[0][0][0])[i];
    cluster.sync(); // no block leaves while the other may still write into it
}

// block b reduces a box of the values v(b, i) into the tensor at (x, y)
template <typename T, typename Op>
__global__ void reduce(const __grid_constant__ CUtensorMap t, int x, int y, Op op)
{
    __shared__ alignas(128) T box[BY][BX];
    for (int i = threadIdx.x; i < BX * BY; i += blockDim.x)
        (&box[0][0])[i] = (T)(blockIdx.x % 2 ? (int)blockIdx.x + 1 : -(int)blockIdx.x - i % 5);
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        const int32_t c[2] = { x, y };
        ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, op, &t, c, &box);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}

static CUtensorMap map2d(void *p, CUtensorMapDataType dt, unsigned es, int w, int h)
{
    CUtensorMap m;
    cuuint64_t dims[2] = { (cuuint64_t)w, (cuuint64_t)h }, strides[1] = { (cuuint64_t)w * es };
    cuuint32_t box[2] = { BX, BY }, e[2] = { 1, 1 };
    EXPECT(encode(&m, dt, 2, p, dims, strides, box, e, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
    return m;
}

// the box at (-4, 1) of a 20 x 8 tensor reduced by nb blocks, against the
// host (the blocks may run in any order: nb is 1 for inc, which does not commute)
template <typename T, typename Op, typename F>
static void run_reduce(CUtensorMapDataType dt, Op op, F host, const char *what, int nb)
{
    const int W = 20, H = 8, X = -4, Y = 1;
    std::vector<T> h(W * H), want;
    for (int i = 0; i < W * H; i++)
        h[i] = (T)(i % 7);
    want = h;
    for (int b = 0; b < nb; b++)
        for (int r = 0; r < BY; r++)
            for (int c = 0; c < BX; c++) {
                int gx = X + c, gy = Y + r, i = r * BX + c;
                if (gx >= 0 && gx < W && gy >= 0 && gy < H)
                    want[gy * W + gx] = host(want[gy * W + gx], (T)(b % 2 ? b + 1 : -b - i % 5));
            }
    T *d;
    CK(cudaMalloc(&d, h.size() * sizeof(T)));
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    reduce<T><<<nb, 32>>>(map2d(d, dt, sizeof(T), W, H), X, Y, op);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < W * H; i++)
        if (h[i] != want[i] && bad++ < 5)
            std::fprintf(stderr, "%s (%d,%d): %g, want %g\n", what, i % W, i / W, (double)h[i], (double)want[i]);
    EXPECT(bad == 0);
    CK(cudaFree(d));
}

int main()
{
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
    EXPECT(q == cudaDriverEntryPointSuccess && encode);
    // multicast: 2 rows of clusters over a 32 x 8 tensor
    {
        const int W = 2 * BX, H = 2 * BY;
        std::vector<float> h(W * H), dump(2 * 2 * 2 * BX * BY, -1.0f);
        for (int i = 0; i < W * H; i++)
            h[i] = (float)i;
        float *d, *dd;
        CK(cudaMalloc(&d, h.size() * 4));
        CK(cudaMalloc(&dd, dump.size() * 4));
        CK(cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
        multicast<<<dim3(2, 2), 64>>>(map2d(d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, W, H), dd);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(dump.data(), dd, dump.size() * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int cy = 0; cy < 2; cy++)         // cluster row
            for (int blk = 0; blk < 2; blk++)  // the block that dumped
                for (int src = 0; src < 2; src++) // the box it got from block src
                    for (int r = 0; r < BY; r++)
                        for (int c = 0; c < BX; c++) {
                            float got = dump[(((cy * 2 + blk) * 2 + src) * BY + r) * BX + c];
                            float want = h[(cy * BY + r) * W + src * BX + c];
                            if (got != want && bad++ < 5)
                                std::fprintf(stderr, "cluster %d block %d box %d (%d,%d): %g, want %g\n", cy, blk, src,
                                             r, c, got, want);
                        }
        EXPECT(bad == 0);
        CK(cudaFree(d));
        CK(cudaFree(dd));
    }
    run_reduce<float>(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, ptx::op_add, [](float a, float b) { return a + b; }, "f32 add", 4);
    run_reduce<int>(CU_TENSOR_MAP_DATA_TYPE_INT32, ptx::op_min, [](int a, int b) { return b < a ? b : a; }, "s32 min", 4);
    run_reduce<unsigned>(CU_TENSOR_MAP_DATA_TYPE_UINT32, ptx::op_inc,
                         [](unsigned a, unsigned b) { return a >= b ? 0u : a + 1; }, "u32 inc", 1);
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
