/* SPDX-License-Identifier: Apache-2.0 */
// A tensor map is the program's memory: forged maps must fail a launch
// with an error, never crash the process or touch memory outside the
// program's allocations. Each of the 128 bytes of a valid map, in turn,
// is flipped (xor 0xff) or set to 0x80, and a kernel copies with the map
// in a child process (a failed launch spoils its context); every child
// must exit by itself, reporting success (the byte did not matter, and
// the copy is then checked) or a CUDA error. Prints "PASS".
#include <cuda.h>
#include <cuda/barrier>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

__global__ void copy(const __grid_constant__ CUtensorMap in, float *out)
{
    __shared__ alignas(128) float tile[8][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in, 0, 0, bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        out[i] = (&tile[0][0])[i];
}

// the child: 0 the copy worked and is right, 1 a CUDA error, 2 a wrong copy
static int child(int byte, int how)
{
    encode_fn encode;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q))
        return 1;
    float h[32 * 8], got[256];
    for (int i = 0; i < 256; i++)
        h[i] = (float)i;
    float *d, *o;
    if (cudaMalloc(&d, sizeof h) || cudaMalloc(&o, sizeof got) ||
        cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice))
        return 1;
    CUtensorMap m;
    cuuint64_t dims[2] = { 32, 8 }, strides[1] = { 128 };
    cuuint32_t box[2] = { 32, 8 }, es[2] = { 1, 1 };
    if (encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
        return 2;
    unsigned char *p = (unsigned char *)&m;
    p[byte] = how ? 0x80 : (unsigned char)(p[byte] ^ 0xff);
    copy<<<1, 64>>>(m, o);
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
        return 1;
    if (cudaMemcpy(got, o, sizeof got, cudaMemcpyDeviceToHost))
        return 1;
    // a byte that changed nothing the copy reads (padding, the L2 hint)
    // gives the same copy; any other change must have failed above or
    // still read only the program's own allocation
    return std::memcmp(got, h, sizeof got) ? 3 : 0;
}

int main()
{
    int fine = 0, refused = 0, other = 0;
    for (int how = 0; how < 2; how++)
        for (int byte = 0; byte < 128; byte++) {
            std::fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                std::fclose(stderr); // the emulator's fault reports: 256 of them
                _exit(child(byte, how));
            }
            int st = 0;
            if (pid < 0 || waitpid(pid, &st, 0) != pid) {
                std::fprintf(stderr, "fork/wait failed\n");
                return 1;
            }
            if (!WIFEXITED(st)) {
                std::fprintf(stderr, "byte %d (%s): the child died (%s %d)\n", byte, how ? "0x80" : "xor 0xff",
                             WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : st);
                rt_failed = 1;
            } else if (WEXITSTATUS(st) == 0) {
                fine++;
            } else if (WEXITSTATUS(st) == 1) {
                refused++;
            } else if (WEXITSTATUS(st) == 3) {
                other++; // another layout of the same bytes (a forged swizzle) or box of the allocation
            } else {
                std::fprintf(stderr, "byte %d: exit %d\n", byte, WEXITSTATUS(st));
                rt_failed = 1;
            }
        }
    std::printf("forged maps: %d copied as before, %d refused, %d copied otherwise within the allocation\n", fine,
                refused, other);
    EXPECT(refused > 0 && fine > 0);
    if (rt_failed)
        return 1;
    std::printf("PASS\n");
    return 0;
}
