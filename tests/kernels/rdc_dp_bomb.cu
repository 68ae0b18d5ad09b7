/* SPDX-License-Identifier: Apache-2.0 */
// Dynamic parallelism without end: every grid launches two more, so the
// tree would hold 2^25 grids before the depth limit. The host launch's
// time limit (TDTRACE_EMU_TIMEOUT) covers its child grids: the launch
// fails with cudaErrorLaunchTimeout instead of running for hours.
#include <cstdio>

__global__ void bomb(int depth) { bomb<<<1, 2>>>(depth + 1); }

int main()
{
    bomb<<<1, 2>>>(0);
    cudaError_t e = cudaDeviceSynchronize();
    printf("bomb: %s\n", cudaGetErrorName(e));
    return e != cudaErrorLaunchTimeout;
}
