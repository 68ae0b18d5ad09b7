/* SPDX-License-Identifier: Apache-2.0 */
// Dynamic parallelism (a kernel launching a kernel) needs libcudadevrt's
// device-side launch, which the emulator does not provide: with -rdc=true
// the program's module loads, the kernel that launches fails at its own
// launch naming the missing function, and the other kernel runs.
#include <cstdio>

__global__ void child(int *x) { x[threadIdx.x] += 1; }
__global__ void parent(int *x) { if (threadIdx.x == 0) child<<<1, 32>>>(x); }
__global__ void plain(int *x) { x[threadIdx.x] = 2 * (int)threadIdx.x; }

int main()
{
    int *d, h[32];
    if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 2;
    plain<<<1, 32>>>(d);
    cudaError_t e1 = cudaDeviceSynchronize();
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
    int bad = 0;
    for (int i = 0; i < 32; i++) bad += h[i] != 2 * i;
    printf("plain: %s, %d wrong\n", cudaGetErrorName(e1), bad);
    parent<<<1, 32>>>(d);
    cudaError_t e2 = cudaGetLastError();
    printf("parent: %s\n", cudaGetErrorName(e2));
    return bad || e1 != cudaSuccess || e2 == cudaSuccess;
}
