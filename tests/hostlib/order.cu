/* SPDX-License-Identifier: Apache-2.0 */
// cuBLAS from NVIDIA's own headers (cublas_v2.h), linked against NVIDIA's
// libcublas.so.13 and run with the host implementation in its place:
// kernels of the program's own before and after cublasSgemm on one stream,
// an event pair around it, the runtime's default stream, and the result
// checked against a host computation.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)s_); return 1; } } while (0)

__global__ void fill(float *a, int n, float base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = base + (float)(i % 7) * 0.25f;
}

__global__ void scale(float *c, int n, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] *= f;
}

int main()
{
    const int n = 96;
    float *a, *b, *c;
    CK(cudaMalloc(&a, n * n * sizeof(float)));
    CK(cudaMalloc(&b, n * n * sizeof(float)));
    CK(cudaMalloc(&c, n * n * sizeof(float)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    fill<<<(n * n + 127) / 128, 128, 0, s>>>(a, n * n, 1.0f);
    fill<<<(n * n + 127) / 128, 128, 0, s>>>(b, n * n, -0.5f);
    CK(cudaEventRecord(e0, s));
    const float one = 1.0f, zero = 0.0f;
    CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a, n, b, n, &zero, c, n));
    CK(cudaEventRecord(e1, s));
    scale<<<(n * n + 127) / 128, 128, 0, s>>>(c, n * n, 2.0f);
    // a dot on the default stream after the stream's work, host result
    CB(cublasSetStream(h, 0));
    CK(cudaStreamSynchronize(s));
    float dot = 0;
    CB(cublasSdot(h, n * n, c, 1, c, 1, &dot));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    float *hc = (float *)std::malloc(n * n * sizeof(float));
    CK(cudaMemcpy(hc, c, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    double want_dot = 0;
    int bad = 0;
    for (int j = 0; j < n && !bad; j++)
        for (int i = 0; i < n; i++) {
            double s2 = 0;
            for (int l = 0; l < n; l++)
                s2 += (1.0 + ((i + l * n) % 7) * 0.25) * (-0.5 + ((j + l * n) % 7) * 0.25);
            double w = 2 * s2;
            want_dot += w * w;
            if (std::fabs(hc[i + j * n] - w) > 1e-4 * (1 + std::fabs(w))) {
                std::printf("C[%d,%d] = %g, expected %g\n", i, j, hc[i + j * n], w);
                bad = 1;
                break;
            }
        }
    if (!bad && std::fabs(dot - want_dot) > 1e-4 * want_dot) {
        std::printf("dot = %g, expected %g\n", dot, want_dot);
        bad = 1;
    }
    CB(cublasDestroy(h));
    std::free(hc);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    std::printf("%s (sgemm %dx%d, events %.3f ms)\n", bad ? "FAIL" : "PASS", n, n, ms);
    return bad;
}
