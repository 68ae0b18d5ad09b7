/* SPDX-License-Identifier: Apache-2.0 */
// Kernels that a real GPU would hang on. The emulator ends each within
// seconds with the documented error (run.sh checks the status line and the
// message): a barrier that can never complete and bar.warp.sync naming
// exited lanes fail with cudaErrorLaunchFailure, a shuffle that reads an
// exited lane with cudaErrorIllegalInstruction, and a loop without end,
// given TDTRACE_EMU_TIMEOUT or TDTRACE_EMU_MAX_INSTRUCTIONS, with
// cudaErrorLaunchTimeout. usage: hang barrier|syncwarp|loop|budget|shfl
#include "common.h"

__global__ void two_barriers()
{
    if (threadIdx.x < 32) asm volatile("bar.sync 1, 64;"); // warp 0 waits for 64 threads at barrier 1
    else asm volatile("bar.sync 2, 64;");                  // warp 1 at barrier 2: neither completes
}

__global__ void syncwarp_exited(int *out)
{
    if (threadIdx.x >= 16) return;
    __syncwarp(); // the full mask names lanes 16-31, which have exited
    out[threadIdx.x] = 1;
}

__global__ void forever(volatile int *flag)
{
    while (*flag == 0) {
    }
}

__global__ void shfl_exited(int *out)
{
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 16); // lane 0 reads lane 16
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int *p;
    if (!CK(cudaMalloc(&p, 256))) return 1;
    CK(cudaMemset(p, 0, 256));
    if (!strcmp(what, "barrier")) two_barriers<<<1, 64>>>();
    else if (!strcmp(what, "syncwarp")) syncwarp_exited<<<1, 32>>>(p);
    else if (!strcmp(what, "loop") || !strcmp(what, "budget")) forever<<<2, 64>>>(p);
    else if (!strcmp(what, "shfl")) shfl_exited<<<1, 32>>>(p);
    else { fprintf(stderr, "usage: hang barrier|syncwarp|loop|budget|shfl\n"); return 2; }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("status %s\n", cudaGetErrorName(e));
    fflush(stdout);
    return 0;
}
