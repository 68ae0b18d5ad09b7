/* SPDX-License-Identifier: Apache-2.0 */
// Relocatable device code, translation unit a (with rdc_b.cu): a kernel
// calling a __device__ function and using a __device__ global that b
// defines, each TU with a file-static helper and string of the same name
// (nvlink keeps them apart), and an inline function both define.
// Checked against host computations; exits 0 only if every value is right.
#include <cstdio>
#include <cstdlib>

extern __device__ float scale(float x, int i); // b.cu
extern __device__ int g_offset;                 // b.cu
extern __device__ unsigned g_calls;             // b.cu
__global__ void b_fill(int *out, int n);        // b.cu
void b_set_offset(int v);                       // b.cu (host side)

static __device__ __noinline__ int helper(int i) { return 3 * i; } // b.cu has its own helper
__device__ __noinline__ int twice(int v) { return 2 * v; } // b.cu calls it
template <typename T> __device__ __noinline__ T sq(T v) { return v * v; } // b.cu instantiates sq<int> too

__global__ void a_kernel(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = scale(x[i], i) + (float)(g_offset + helper(i) + sq(i % 7));
        atomicAdd(&g_calls, 1u);
    }
    if (i == 0)
        printf("a_kernel: %s\n", "from a.cu");
}

#define CK(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #e, cudaGetErrorString(r_)); exit(1); } } while (0)

int main()
{
    const int n = 1000;
    float *hx = (float *)malloc(n * sizeof *hx), *hy = (float *)malloc(n * sizeof *hy);
    int *hi = (int *)malloc(n * sizeof *hi);
    for (int i = 0; i < n; i++) hx[i] = 0.5f * (float)i - 7.0f;
    float *dx, *dy; int *di;
    CK(cudaMalloc(&dx, n * sizeof *dx)); CK(cudaMalloc(&dy, n * sizeof *dy)); CK(cudaMalloc(&di, n * sizeof *di));
    CK(cudaMemcpy(dx, hx, n * sizeof *hx, cudaMemcpyHostToDevice));
    b_set_offset(11);
    a_kernel<<<(n + 127) / 128, 128>>>(dy, dx, n);
    CK(cudaGetLastError());
    b_fill<<<(n + 127) / 128, 128>>>(di, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hy, dy, n * sizeof *hy, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hi, di, n * sizeof *hi, cudaMemcpyDeviceToHost));
    unsigned calls = 0;
    CK(cudaMemcpyFromSymbol(&calls, g_calls, sizeof calls));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float want = (hx[i] * 2.5f + (float)(i % 5)) + (float)(11 + 3 * i + (i % 7) * (i % 7));
        int wanti = 2 * (5 * i + 11) + (i % 9) * (i % 9);
        if (hy[i] != want || hi[i] != wanti) {
            if (bad++ < 5) printf("at %d: y %g (want %g), out %d (want %d)\n", i, hy[i], want, hi[i], wanti);
        }
    }
    if (calls != (unsigned)n) { printf("g_calls %u (want %d)\n", calls, n); bad++; }
    printf("rdc: %s (%d wrong)\n", bad ? "FAIL" : "ok", bad);
    free(hx);
    free(hy);
    free(hi);
    return bad != 0;
}
