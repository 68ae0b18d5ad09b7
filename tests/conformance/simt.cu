/* SPDX-License-Identifier: Apache-2.0 */
// The SIMT model: independent thread scheduling (a spin lock taken by the
// lanes of one warp, a lane waiting for another lane's flag, a warp
// waiting for another warp's flag), warp-synchronous instructions reached
// from divergent paths, named barriers with thread counts, bar.arrive,
// __syncthreads_count/and/or, match, redux, activemask, __syncwarp with
// partial masks, legacy warp-synchronous code on volatile shared memory.
// Each result is checked against what CUDA defines.
#include "common.h"

// every lane of every warp takes a shared-memory lock in turn
__global__ void spinlock(int *out)
{
    __shared__ int lock, count;
    if (threadIdx.x == 0) { lock = 0; count = 0; }
    __syncthreads();
    bool done = false;
    while (!done) { // the CUDA programming guide's pattern: only the owner leaves the loop
        if (atomicCAS(&lock, 0, 1) == 0) {
            count = count + 1; // not atomic: the lock protects it
            __threadfence_block();
            atomicExch(&lock, 0);
            done = true;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = count;
}

// lane 0 waits for lane 1 of its own warp; warp 0 waits for warp 1
__global__ void flags(int *out)
{
    __shared__ volatile int lane_flag, warp_flag;
    __shared__ int data[2];
    if (threadIdx.x == 0) { lane_flag = 0; warp_flag = 0; }
    __syncthreads();
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (warp == 0 && lane == 0) {
        while (lane_flag == 0) {
        }
        out[0] = data[0];
        while (warp_flag == 0) {
        }
        out[1] = data[1];
    } else if (warp == 0 && lane == 1) {
        data[0] = 11;
        __threadfence_block();
        lane_flag = 1;
    } else if (warp == 1 && lane == 5) {
        data[1] = 22;
        __threadfence_block();
        warp_flag = 1;
    }
}

// one shuffle and one ballot across two divergent branches, full mask
__global__ void divergent(int *out)
{
    int t = threadIdx.x, v;
    unsigned b;
    if (t & 1) {
        v = __shfl_xor_sync(0xffffffff, t + 1000, 1);
        b = __ballot_sync(0xffffffff, (t & 3) == 1);
    } else {
        v = __shfl_xor_sync(0xffffffff, t + 2000, 1);
        b = __ballot_sync(0xffffffff, 1);
    }
    out[t] = v;
    out[32 + t] = (int)b;
    // __syncwarp with the two halves' masks, then a warp-wide sum
    unsigned half = t < 16 ? 0x0000ffffu : 0xffff0000u;
    int s = t;
    for (int o = 8; o > 0; o /= 2) s += __shfl_down_sync(half, s, o, 16);
    __syncwarp(half);
    out[64 + t] = __shfl_sync(half, s, 0, 16);
    out[96 + t] = (int)__activemask();
    if (t < 10) out[128 + t] = (int)__activemask();
}

// warps 0-1 meet at barrier 1 (64 threads) while warps 2-3 wait on a flag set after it
__global__ void named(int *out)
{
    __shared__ volatile int flag;
    __shared__ int box;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t < 64) {
        asm volatile("bar.sync 1, 64;");
        if (t == 0) flag = 7;
        out[t] = 7; // got past the barrier
    } else {
        while (flag == 0) {
        }
        out[t] = flag;
    }
    __syncthreads();
    // producer (warp 0) and consumer (warp 1) with bar.arrive
    if (t < 32) {
        if (t == 0) box = 99;
        asm volatile("bar.arrive 3, 64;");
    } else if (t < 64) {
        asm volatile("bar.sync 3, 64;");
        out[128 + t - 32] = box;
    }
}

__global__ void votes(int *out)
{
    int t = threadIdx.x;
    int n = __syncthreads_count(t % 3 == 0);
    int a = __syncthreads_and(t < 1000), o = __syncthreads_or(t == 77);
    if (t == 0) { out[0] = n; out[1] = a; out[2] = o; }
    unsigned any = __match_any_sync(0xffffffff, t / 4);
    int pred;
    unsigned all = __match_all_sync(0xffffffff, 5, &pred);
    out[8 + t % 32] = (int)any;
    if (t == 0) { out[4] = (int)all; out[5] = pred; }
    if (t < 32) {
        out[40 + t] = (int)__reduce_add_sync(0xffffffff, t);
        out[72 + t] = (int)__reduce_min_sync(0xffffffff, 100 - t);
        out[104 + t] = (int)__reduce_max_sync(0xffffffff, (unsigned)t * 3);
        out[136 + t] = (int)__reduce_or_sync(0xffffffff, 1u << (t % 8));
    }
}

// legacy warp-synchronous code (CUDA before __syncwarp, as NVIDIA's scan
// and reduction samples were written): a block-wide inclusive scan through
// a volatile shared array with two barriers a step (the scan sample's
// scan1Inclusive), and a tree sum whose last warp adds volatile shared
// words with no barrier, right only in lockstep order
__global__ void legacy(int *out)
{
    __shared__ volatile int s[512];
    __shared__ volatile int r[256];
    int t = threadIdx.x, v = (t * 7 + blockIdx.x * 3) % 101;
    int pos = 2 * t - (t & 255);
    s[pos] = 0;
    pos += 256;
    s[pos] = v;
    for (int off = 1; off < 256; off <<= 1) {
        __syncthreads();
        int x = s[pos] + s[pos - off];
        __syncthreads();
        s[pos] = x;
    }
    out[blockIdx.x * 256 + t] = s[pos];
    r[t] = v;
    __syncthreads();
    for (int h = 128; h > 32; h >>= 1) {
        if (t < h) r[t] = r[t] + r[t + h];
        __syncthreads();
    }
    if (t < 32) {
        r[t] = r[t] + r[t + 32];
        r[t] = r[t] + r[t + 16];
        r[t] = r[t] + r[t + 8];
        r[t] = r[t] + r[t + 4];
        r[t] = r[t] + r[t + 2];
        r[t] = r[t] + r[t + 1];
    }
    if (t == 0) out[512 + blockIdx.x] = r[0];
}

static int host[256];
static int lhost[514];

static bool get(const int *d, int n)
{
    return CK(cudaMemcpy(host, d, n * sizeof(int), cudaMemcpyDeviceToHost));
}

int main()
{
    int *d;
    if (!CK(cudaMalloc(&d, 1024))) return finish("simt");
    spinlock<<<4, 96>>>(d);
    if (LAUNCHED("spinlock") && get(d, 4))
        check(host[0] == 96 && host[1] == 96 && host[2] == 96 && host[3] == 96, "spin lock within warps", "%d %d %d %d",
              host[0], host[1], host[2], host[3]);
    flags<<<1, 64>>>(d);
    if (LAUNCHED("flags") && get(d, 2))
        check(host[0] == 11 && host[1] == 22, "lane waits for lane, warp waits for warp", "%d %d", host[0], host[1]);
    divergent<<<1, 32>>>(d);
    if (LAUNCHED("divergent") && get(d, 138)) {
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++) {
            int p = t ^ 1, want = p + ((p & 1) ? 1000 : 2000);
            if (host[t] != want) bad = t;
        }
        check(bad < 0, "shfl.sync from two branches", "lane %d: %d", bad, bad < 0 ? 0 : host[bad]);
        bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if ((unsigned)host[32 + t] != (0x55555555u | 0x22222222u)) bad = t;
        check(bad < 0, "ballot.sync from two branches", "lane %d: 0x%x", bad, bad < 0 ? 0 : host[32 + bad]);
        bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (host[64 + t] != (t < 16 ? 120 : 376)) bad = t;
        check(bad < 0, "shfl.sync and bar.warp.sync on half-warp masks", "lane %d: %d", bad, bad < 0 ? 0 : host[64 + bad]);
        bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if ((unsigned)host[96 + t] != 0xffffffffu || (t < 10 && host[128 + t] != 0x3ff)) bad = t;
        check(bad < 0, "activemask", "lane %d", bad);
    }
    named<<<1, 128>>>(d);
    if (LAUNCHED("named") && get(d, 160)) {
        int bad = -1;
        for (int t = 0; t < 128 && bad < 0; t++)
            if (host[t] != 7) bad = t;
        check(bad < 0, "named barrier with a thread count", "thread %d: %d", bad, bad < 0 ? 0 : host[bad]);
        bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (host[128 + t] != 99) bad = t;
        check(bad < 0, "bar.arrive then bar.sync", "thread %d", bad);
    }
    votes<<<1, 96>>>(d);
    if (LAUNCHED("votes") && get(d, 168)) {
        check(host[0] == 32 && host[1] == 1 && host[2] == 1, "__syncthreads_count/and/or", "%d %d %d", host[0], host[1], host[2]);
        int bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if ((unsigned)host[8 + t] != 0xfu << (t & ~3)) bad = t;
        check(bad < 0 && (unsigned)host[4] == 0xffffffffu && host[5] == 1, "match.any and match.all", "lane %d", bad);
        bad = -1;
        for (int t = 0; t < 32 && bad < 0; t++)
            if (host[40 + t] != 496 || host[72 + t] != 69 || host[104 + t] != 93 || host[136 + t] != 0xff) bad = t;
        check(bad < 0, "redux.sync add/min/max/or", "lane %d", bad);
    }
    int *dl;
    if (CK(cudaMalloc(&dl, sizeof lhost))) {
        legacy<<<2, 256>>>(dl);
        if (LAUNCHED("legacy") && CK(cudaMemcpy(lhost, dl, sizeof lhost, cudaMemcpyDeviceToHost))) {
            int bad = -1, sum[2] = { 0, 0 };
            for (int b = 0; b < 2; b++)
                for (int t = 0; t < 256; t++) {
                    sum[b] += (t * 7 + b * 3) % 101;
                    if (lhost[b * 256 + t] != sum[b] && bad < 0) bad = b * 256 + t;
                }
            check(bad < 0, "volatile shared scan with barriers (legacy)", "thread %d: %d", bad, bad < 0 ? 0 : lhost[bad]);
            check(lhost[512] == sum[0] && lhost[513] == sum[1], "warp-synchronous volatile tree sum (legacy)",
                  "%d %d, want %d %d", lhost[512], lhost[513], sum[0], sum[1]);
        }
        cudaFree(dl);
    }
    return finish("simt");
}
