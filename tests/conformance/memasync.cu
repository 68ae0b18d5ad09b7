/* SPDX-License-Identifier: Apache-2.0 */
// Asynchronous copies and mbarriers: cp.async with commit_group and
// wait_group (a double-buffered pipeline), cuda::barrier (mbarrier
// arrive/test_wait with phases, reused across iterations),
// cuda::memcpy_async completing on a barrier, cooperative_groups
// memcpy_async/wait, atomics of every width on shared and global memory.
#include "common.h"
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda_pipeline.h>
#include <stdint.h>

namespace cg = cooperative_groups;

#define TILE 256
#define NT 8

// sum of each tile, fetched two stages ahead with cp.async
__global__ void pipeline(const int *in, int *out)
{
    __shared__ int buf[2][TILE];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(int));
    __pipeline_commit();
    int total = 0;
    for (int k = 0; k < NT; k++) {
        if (k + 1 < NT) __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &in[(k + 1) * TILE + t], sizeof(int));
        __pipeline_commit();
        __pipeline_wait_prior(1); // tile k has landed
        __syncthreads();
        if (t == 0)
            for (int i = 0; i < TILE; i++) total += buf[k & 1][i] * (k + 1);
        __syncthreads();
    }
    if (t == 0) out[0] = total;
}

// 16-byte cp.async (cg) of int4 with a zero-filled tail (src-size < 16)
__global__ void zfill(const int4 *in, int4 *out)
{
    __shared__ int4 s[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], sizeof(int4), t % 4 * 4); // zero the last (t%4)*4 bytes
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[63 - t];
}

// a block barrier (mbarrier) used as __syncthreads, phase after phase
__global__ void barrier_phases(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int data[128];
    int t = threadIdx.x;
    if (t == 0) init(&bar, blockDim.x);
    __syncthreads();
    int acc = 0;
    for (int phase = 0; phase < 5; phase++) {
        data[t] = t * (phase + 1);
        bar.arrive_and_wait();
        acc += data[(t + 1) % blockDim.x];
        bar.arrive_and_wait();
    }
    out[t] = acc;
}

// cuda::memcpy_async onto a barrier, then wait on its token
__global__ void copy_barrier(const int *in, int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ alignas(16) int s[1024];
    int t = threadIdx.x;
    if (t == 0) init(&bar, blockDim.x);
    __syncthreads();
    auto block = cg::this_thread_block();
    cuda::memcpy_async(block, s, in, cuda::aligned_size_t<16>(sizeof s), bar);
    bar.arrive_and_wait();
    out[t] = s[t] + s[1023 - t];
}

// cooperative_groups::memcpy_async / wait
__global__ void cg_copy(const int *in, int *out)
{
    __shared__ int s[512];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, s, in + 100, sizeof s);
    cg::wait(block);
    out[block.thread_rank()] = s[511 - block.thread_rank()];
}

// atomics on shared and global memory, every width and a few types
__global__ void atomics(unsigned long long *g64, unsigned *g32, float *gf, double *gd)
{
    __shared__ unsigned long long s64;
    __shared__ unsigned s32;
    __shared__ unsigned short s16;
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    if (threadIdx.x == 0) s64 = 0, s32 = 0, s16 = 0;
    __syncthreads();
    atomicAdd(&s64, 1ull << 33);
    atomicAdd(&s32, 3u);
    atomicMax(g32 + 1, (unsigned)t * 7);
    atomicMin(g32 + 2, 1000u - t);
    atomicOr(g32 + 3, 1u << (t % 32));
    atomicXor(g32 + 4, (unsigned)t);
    atomicInc(g32 + 5, 99u); // wraps at 100
    atomicDec(g32 + 6, 50u);
    atomicAdd(gf, 0.5f);
    atomicAdd(gd, 0.25);
    unsigned short old = s16, seen;
    while ((seen = atomicCAS(&s16, old, (unsigned short)(old + 1))) != old) old = seen;
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(g64, s64);
        atomicAdd(g32, s32 + s16);
    }
}

int main()
{
    static int hin[NT * TILE];
    long long want = 0;
    for (int i = 0; i < NT * TILE; i++) {
        hin[i] = (i * 7919) % 1000 - 500;
        want += (long long)hin[i] * (i / TILE + 1);
    }
    int *din, *dout, h[1024];
    if (!CK(cudaMalloc(&din, sizeof hin)) || !CK(cudaMalloc(&dout, 4096)) ||
        !CK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice)))
        return finish("memasync");
    pipeline<<<1, TILE>>>(din, dout);
    if (LAUNCHED("pipeline") && CK(cudaMemcpy(h, dout, 4, cudaMemcpyDeviceToHost)))
        check(h[0] == want, "cp.async with commit_group/wait_group (double buffering)", "%d, want %lld", h[0], want);

    zfill<<<1, 64>>>((const int4 *)din, (int4 *)dout);
    if (LAUNCHED("zfill") && CK(cudaMemcpy(h, dout, 1024, cudaMemcpyDeviceToHost))) {
        int bad = -1;
        for (int t = 0; t < 64 && bad < 0; t++) {
            int src = 63 - t, keep = 4 - src % 4;
            for (int j = 0; j < 4; j++)
                if (h[t * 4 + j] != (j < keep ? hin[src * 4 + j] : 0)) bad = t;
        }
        check(bad < 0, "cp.async.cg 16 bytes with src-size (zero fill)", "thread %d", bad);
    }

    barrier_phases<<<1, 128>>>(dout);
    if (LAUNCHED("barrier_phases") && CK(cudaMemcpy(h, dout, 512, cudaMemcpyDeviceToHost))) {
        int bad = -1;
        for (int t = 0; t < 128 && bad < 0; t++)
            if (h[t] != ((t + 1) % 128) * 15) bad = t;
        check(bad < 0, "cuda::barrier: mbarrier phases, arrive and wait", "thread %d: %d", bad, bad < 0 ? 0 : h[bad]);
    }

    copy_barrier<<<1, 256>>>(din, dout);
    if (LAUNCHED("copy_barrier") && CK(cudaMemcpy(h, dout, 1024, cudaMemcpyDeviceToHost))) {
        int bad = -1;
        for (int t = 0; t < 256 && bad < 0; t++)
            if (h[t] != hin[t] + hin[1023 - t]) bad = t;
        check(bad < 0, "cuda::memcpy_async completing on a barrier", "thread %d", bad);
    }

    cg_copy<<<1, 128>>>(din, dout);
    if (LAUNCHED("cg_copy") && CK(cudaMemcpy(h, dout, 512, cudaMemcpyDeviceToHost))) {
        int bad = -1;
        for (int t = 0; t < 128 && bad < 0; t++)
            if (h[t] != hin[100 + 511 - t]) bad = t;
        check(bad < 0, "cooperative_groups::memcpy_async and wait", "thread %d", bad);
    }

    unsigned long long *g64;
    unsigned *g32;
    float *gf;
    double *gd;
    unsigned init32[8] = {0, 0, 1000000, 0, 0, 0, 10, 0};
    if (CK(cudaMalloc(&g64, 8)) && CK(cudaMalloc(&g32, 32)) && CK(cudaMalloc(&gf, 4)) && CK(cudaMalloc(&gd, 8)) &&
        CK(cudaMemset(g64, 0, 8)) && CK(cudaMemcpy(g32, init32, 32, cudaMemcpyHostToDevice)) && CK(cudaMemset(gf, 0, 4)) &&
        CK(cudaMemset(gd, 0, 8))) {
        atomics<<<4, 256>>>(g64, g32, gf, gd);
        unsigned long long r64;
        unsigned r32[8];
        float rf;
        double rd;
        if (LAUNCHED("atomics") && CK(cudaMemcpy(&r64, g64, 8, cudaMemcpyDeviceToHost)) &&
            CK(cudaMemcpy(r32, g32, 32, cudaMemcpyDeviceToHost)) && CK(cudaMemcpy(&rf, gf, 4, cudaMemcpyDeviceToHost)) &&
            CK(cudaMemcpy(&rd, gd, 8, cudaMemcpyDeviceToHost))) {
            unsigned x = 0, inc = 0, dec = 10;
            for (unsigned t = 0; t < 1024; t++) {
                x ^= t;
                inc = inc >= 99 ? 0 : inc + 1;
                dec = (dec == 0 || dec > 50) ? 50 : dec - 1;
            }
            bool ok = r64 == 1024ull << 33 && r32[0] == 4 * (256 * 3 + 256) && r32[1] == 1023 * 7 && r32[2] == 0 &&
                      r32[3] == 0xffffffffu && r32[4] == x && r32[5] == inc && r32[6] == dec && rf == 512.0f && rd == 256.0;
            check(ok, "atomics: add/max/min/or/xor/inc/dec/cas, 16 to 64 bits, f32/f64 add",
                  "%llx %u %u %u %x %u %u %u %g %g", r64, r32[0], r32[1], r32[2], r32[3], r32[4], r32[5], r32[6], rf, rd);
        }
    }
    return finish("memasync");
}
