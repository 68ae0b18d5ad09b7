/* SPDX-License-Identifier: Apache-2.0 */
// Runtime-API program (<<<>>>): kernels launched through the CUDA runtime
// on the emulated GPU. Exit 0 on success; a runtime that cannot start on the
// emulator is a failure like any other.
#include <cstdio>
#include <cstdlib>

__constant__ int scale;

__global__ void add(const int *a, const int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = (a[i] + b[i]) * scale;
}

__global__ void block_sum(const int *in, int *out)
{
    __shared__ int s[128];
    s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

int main()
{
    int n = 4096, *a, *b, *c;
    cudaError_t e = cudaMalloc(&a, n * sizeof(int));
    if (e != cudaSuccess) {
        printf("runtime did not start: cudaMalloc: %s\n", cudaGetErrorName(e));
        return 1;
    }
    if (cudaMalloc(&b, n * sizeof(int)) != cudaSuccess || cudaMalloc(&c, n * sizeof(int)) != cudaSuccess) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    static int h[4096], r[4096];
    for (int i = 0; i < n; i++) h[i] = i;
    if (cudaMemcpy(a, h, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(b, h, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("cudaMemcpy failed\n");
        return 1;
    }
    int three = 3;
    if (cudaMemcpyToSymbol(scale, &three, sizeof three) != cudaSuccess) { printf("cudaMemcpyToSymbol failed\n"); return 1; }
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) { printf("add: %s\n", cudaGetErrorName(e)); return 1; }
    if ((e = cudaMemcpy(r, c, n * sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess) { printf("add: copy back: %s\n", cudaGetErrorName(e)); return 1; }
    for (int i = 0; i < n; i++) if (r[i] != 6 * i) { printf("add[%d] = %d\n", i, r[i]); return 1; }
    block_sum<<<n / 128, 128>>>(a, c);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) { printf("block_sum: %s\n", cudaGetErrorName(e)); return 1; }
    if ((e = cudaMemcpy(r, c, n / 128 * sizeof(int), cudaMemcpyDeviceToHost)) != cudaSuccess) { printf("block_sum: copy back: %s\n", cudaGetErrorName(e)); return 1; }
    for (int k = 0; k < n / 128; k++) {
        int want = 0;
        for (int i = 0; i < 128; i++) want += k * 128 + i;
        if (r[k] != want) { printf("block_sum[%d] = %d, want %d\n", k, r[k], want); return 1; }
    }
    printf("runtime kernels ok\n");
    if (cudaFree(a) != cudaSuccess || cudaFree(b) != cudaSuccess || cudaFree(c) != cudaSuccess) {
        printf("cudaFree failed\n");
        return 1;
    }
    return 0;
}
