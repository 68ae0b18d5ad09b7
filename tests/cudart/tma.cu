/* SPDX-License-Identifier: Apache-2.0 */
// Tensor-map copies (cp.async.bulk.tensor, compiled for sm_90) through
// libcu++'s wrappers (cuda::device::experimental), with maps made by
// cuTensorMapEncodeTiled reached as CUTLASS reaches it
// (cudaGetDriverEntryPointByVersion). Each block loads a box into shared
// memory, dumps the shared bytes as they lie, adds 1 and stores the box
// back; the host checks the dumps and the tensor against its own
// arithmetic: boxes partly outside the tensor (negative coordinates too)
// read zeros, or NaN with the NaN fill, and store nothing there; a 128-byte
// swizzle puts 16-byte chunk c of row r at chunk c ^ (r % 8); a 3-D box;
// and a map the driver did not write fails the launch. Prints "PASS".
#include <cuda.h>
#include <cuda/barrier>
#include <cmath>
#include <cstring>
#include <vector>

#include "common.h"

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

#define BX 32
#define BY 8

// block (bx, by) handles the box at (x0 + bx*BX, y0 + by*BY)
__global__ void box2d(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, int x0,
                      int y0, float *dump)
{
    __shared__ alignas(1024) float tile[BY][BX];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    int x = x0 + (int)blockIdx.x * BX, y = y0 + (int)blockIdx.y * BY;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in, x, y, bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    float *d = dump + (blockIdx.y * gridDim.x + blockIdx.x) * BX * BY;
    for (int i = threadIdx.x; i < BX * BY; i += blockDim.x) {
        d[i] = (&tile[0][0])[i]; // the shared bytes as they lie
        (&tile[0][0])[i] += 1.0f;
    }
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_shared_to_global(&out, x, y, &tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
}

#define B3X 8
#define B3Y 2
#define B3Z 3
__global__ void box3d(const __grid_constant__ CUtensorMap in, int x, int y, int z, float *dump)
{
    __shared__ alignas(128) float tile[B3Z][B3Y][B3X];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_3d_global_to_shared(&tile, &in, x, y, z, bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    for (int i = threadIdx.x; i < B3X * B3Y * B3Z; i += blockDim.x)
        dump[i] = (&tile[0][0][0])[i];
}

static encode_fn encode;

static CUtensorMap map2d(float *p, int w, int h, CUtensorMapSwizzle sw, CUtensorMapFloatOOBfill fill)
{
    CUtensorMap m;
    cuuint64_t dims[2] = { (cuuint64_t)w, (cuuint64_t)h }, strides[1] = { (cuuint64_t)w * 4 };
    cuuint32_t box[2] = { BX, BY }, es[2] = { 1, 1 };
    CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        sw, CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
    EXPECT(r == CUDA_SUCCESS);
    return m;
}

// one run of box2d over a w x h tensor of i*0.5, from (x0, y0), with grid gx x gy;
// checks the dumps (swizzled or not; OOB zero or NaN) and the stored tensor
static void run2d(int w, int h, int x0, int y0, int gx, int gy, CUtensorMapSwizzle sw, CUtensorMapFloatOOBfill fill)
{
    std::vector<float> hin((size_t)w * h), hout((size_t)w * h, -1.0f), dump((size_t)gx * gy * BX * BY);
    for (size_t i = 0; i < hin.size(); i++)
        hin[i] = (float)i * 0.5f;
    float *din, *dout, *ddump;
    CK(cudaMalloc(&din, hin.size() * 4));
    CK(cudaMalloc(&dout, hin.size() * 4));
    CK(cudaMalloc(&ddump, dump.size() * 4));
    CK(cudaMemcpy(din, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dout, hout.data(), hout.size() * 4, cudaMemcpyHostToDevice));
    CUtensorMap mi = map2d(din, w, h, sw, fill), mo = map2d(dout, w, h, sw, fill);
    box2d<<<dim3(gx, gy), 64>>>(mi, mo, x0, y0, ddump);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hout.data(), dout, hout.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dump.data(), ddump, dump.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<int> covered((size_t)w * h, 0);
    int bad = 0;
    for (int by = 0; by < gy; by++)
        for (int bx = 0; bx < gx; bx++)
            for (int r = 0; r < BY; r++)
                for (int c = 0; c < BX; c++) {
                    int gx_ = x0 + bx * BX + c, gy_ = y0 + by * BY + r;
                    int inside = gx_ >= 0 && gx_ < w && gy_ >= 0 && gy_ < h;
                    // where element (r, c) lies in shared memory: 128-byte swizzle
                    // moves its 16-byte chunk to chunk ^ (r % 8) within its row
                    int pos = r * BX + c;
                    if (sw == CU_TENSOR_MAP_SWIZZLE_128B)
                        pos = r * BX + ((c / 4) ^ (r % 8)) * 4 + c % 4;
                    float got = dump[(size_t)(by * gx + bx) * BX * BY + pos];
                    if (inside) {
                        covered[(size_t)gy_ * w + gx_] = 1;
                        if (got != hin[(size_t)gy_ * w + gx_] && bad++ < 5)
                            std::fprintf(stderr, "box (%d,%d) element (%d,%d): %g, want %g\n", bx, by, r, c, got,
                                         hin[(size_t)gy_ * w + gx_]);
                    } else if (fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA ? !std::isnan(got) : got != 0.0f) {
                        if (bad++ < 5)
                            std::fprintf(stderr, "box (%d,%d) element (%d,%d) outside: %g\n", bx, by, r, c, got);
                    }
                }
    for (size_t i = 0; i < hout.size(); i++) {
        float want = covered[i] ? hin[i] + 1.0f : -1.0f;
        if (hout[i] != want && bad++ < 10)
            std::fprintf(stderr, "tensor (%zu,%zu): %g, want %g\n", i % w, i / w, hout[i], want);
    }
    EXPECT(bad == 0);
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(ddump));
}

int main()
{
    int dev_tma = -1;
    {
        CUresult (*getattr)(int *, CUdevice_attribute, CUdevice) = nullptr;
        cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", (void **)&getattr, 12000, cudaEnableDefault, &q));
        EXPECT(q == cudaDriverEntryPointSuccess && getattr);
        EXPECT(getattr(&dev_tma, CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, 0) == CUDA_SUCCESS);
        EXPECT(dev_tma == 1);
        CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
        EXPECT(q == cudaDriverEntryPointSuccess && encode);
    }
    // boxes over the edges on every side, zero fill
    run2d(100, 20, -16, -3, 5, 4, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    // the NaN fill
    run2d(100, 20, -16, -3, 5, 4, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
    // 128-byte swizzle (an inner row of 32 floats is the span), inside and over the edge
    run2d(64, 16, 0, 0, 2, 2, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    run2d(52, 13, 0, -2, 2, 2, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    // 3-D: a box of 8 x 2 x 3 from (0, 1, 3) of an 8 x 6 x 5 tensor (z 5 is outside)
    {
        const int X = 8, Y = 6, Z = 5;
        std::vector<float> h(X * Y * Z), dump(B3X * B3Y * B3Z, -1.0f);
        for (size_t i = 0; i < h.size(); i++)
            h[i] = (float)i;
        float *d, *dd;
        CK(cudaMalloc(&d, h.size() * 4));
        CK(cudaMalloc(&dd, dump.size() * 4));
        CK(cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
        CUtensorMap m;
        cuuint64_t dims[3] = { X, Y, Z }, strides[2] = { X * 4, X * Y * 4 };
        cuuint32_t box[3] = { B3X, B3Y, B3Z }, es[3] = { 1, 1, 1 };
        EXPECT(encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, d, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
        box3d<<<1, 32>>>(m, 0, 1, 3, dd);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(dump.data(), dd, dump.size() * 4, cudaMemcpyDeviceToHost));
        for (int z = 0; z < B3Z; z++)
            for (int y = 0; y < B3Y; y++)
                for (int x = 0; x < B3X; x++) {
                    int gz = 3 + z, gy = 1 + y;
                    float want = gz < Z ? h[(size_t)(gz * Y + gy) * X + x] : 0.0f;
                    EXPECT(dump[(size_t)(z * B3Y + y) * B3X + x] == want);
                }
        CK(cudaFree(d));
        CK(cudaFree(dd));
    }
    // a map the driver did not write: the launch fails (the context with it: last)
    {
        float *d;
        CK(cudaMalloc(&d, BX * BY * 4 * 2));
        CUtensorMap zero;
        std::memset(&zero, 0, sizeof zero);
        box2d<<<1, 32>>>(zero, zero, 0, 0, d);
        cudaError_t e = cudaDeviceSynchronize();
        EXPECT(e == cudaErrorLaunchFailure);
        if (e != cudaErrorLaunchFailure)
            std::fprintf(stderr, "a zeroed map: %s\n", cudaGetErrorName(e));
    }
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
