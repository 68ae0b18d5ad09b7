// Runtime-API program (<<<>>>): kernels launched through the CUDA runtime
// on the emulated GPU. Exit 0 on success, 77 when the runtime cannot start
// on this driver (the runtime's private interface missing): run.sh skips.
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
        printf("runtime did not start: %s\n", cudaGetErrorName(e));
        return 77;
    }
    cudaMalloc(&b, n * sizeof(int));
    cudaMalloc(&c, n * sizeof(int));
    static int h[4096], r[4096];
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMemcpy(a, h, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, n * sizeof(int), cudaMemcpyHostToDevice);
    int three = 3;
    if (cudaMemcpyToSymbol(scale, &three, sizeof three) != cudaSuccess) { printf("cudaMemcpyToSymbol failed\n"); return 1; }
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) { printf("add: %s\n", cudaGetErrorName(e)); return 1; }
    cudaMemcpy(r, c, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) if (r[i] != 6 * i) { printf("add[%d] = %d\n", i, r[i]); return 1; }
    block_sum<<<n / 128, 128>>>(a, c);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) { printf("block_sum: %s\n", cudaGetErrorName(e)); return 1; }
    cudaMemcpy(r, c, n / 128 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int k = 0; k < n / 128; k++) {
        int want = 0;
        for (int i = 0; i < 128; i++) want += k * 128 + i;
        if (r[k] != want) { printf("block_sum[%d] = %d, want %d\n", k, r[k], want); return 1; }
    }
    printf("runtime kernels ok\n");
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
