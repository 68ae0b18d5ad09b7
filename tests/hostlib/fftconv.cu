/* SPDX-License-Identifier: Apache-2.0 */
// cuFFT from NVIDIA's own header (cufft.h), linked against NVIDIA's
// libcufft.so.12 and run with the host implementation in its place: a
// batched circular convolution through the spectrum, as programs do it —
// kernels of the program's own fill the signals, R2C (cufftPlanMany), a
// kernel multiplies the spectra, C2R, a kernel scales by 1/n — on one stream
// with events, checked against the direct circular convolution on the host
// (tolerance 1e-4 relative to 1 + |reference|, float).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cufft.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CF(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); return 1; } } while (0)

__host__ __device__ static float sig(int b, int i) { return (float)(((i * 7 + b * 3) % 11) - 5) / 4.0f; }
__host__ __device__ static float flt(int i) { return i < 5 ? (float)(5 - i) / 8.0f : 0.0f; }

__global__ void fill(float *x, float *h, int n, int batch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * batch) x[i] = sig(i / n, i % n);
    if (i < n) h[i] = flt(i);
}

// each batch's spectrum times the filter's
__global__ void mul(cufftComplex *X, const cufftComplex *H, int nc, int batch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nc * batch) return;
    cufftComplex a = X[i], b = H[i % nc];
    X[i] = make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__global__ void scale(float *y, int total, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) y[i] *= f;
}

int main()
{
    const int n = 200, batch = 6, nc = n / 2 + 1;
    float *x, *h, *y;
    cufftComplex *X, *H;
    CK(cudaMalloc(&x, n * batch * sizeof(float)));
    CK(cudaMalloc(&h, n * sizeof(float)));
    CK(cudaMalloc(&y, n * batch * sizeof(float)));
    CK(cudaMalloc(&X, nc * batch * sizeof(cufftComplex)));
    CK(cudaMalloc(&H, nc * sizeof(cufftComplex)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cufftHandle fwd, fwd1, inv;
    int nn[1] = { n };
    CF(cufftPlanMany(&fwd, 1, nn, NULL, 1, n, NULL, 1, nc, CUFFT_R2C, batch));
    CF(cufftPlan1d(&fwd1, n, CUFFT_R2C, 1));
    CF(cufftPlanMany(&inv, 1, nn, NULL, 1, nc, NULL, 1, n, CUFFT_C2R, batch));
    CF(cufftSetStream(fwd, s));
    CF(cufftSetStream(fwd1, s));
    CF(cufftSetStream(inv, s));
    size_t ws = 1;
    CF(cufftGetSize(fwd, &ws));

    fill<<<(n * batch + 127) / 128, 128, 0, s>>>(x, h, n, batch);
    CK(cudaEventRecord(e0, s));
    CF(cufftExecR2C(fwd, x, X));
    CF(cufftExecR2C(fwd1, h, H));
    mul<<<(nc * batch + 127) / 128, 128, 0, s>>>(X, H, nc, batch);
    CF(cufftExecC2R(inv, X, y));
    CK(cudaEventRecord(e1, s));
    scale<<<(n * batch + 127) / 128, 128, 0, s>>>(y, n * batch, 1.0f / n);
    CK(cudaStreamSynchronize(s));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, e0, e1));

    float *hy = (float *)std::malloc(n * batch * sizeof(float));
    CK(cudaMemcpy(hy, y, n * batch * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < batch && !bad; b++)
        for (int i = 0; i < n; i++) {
            double want = 0;
            for (int j = 0; j < n; j++)
                want += (double)sig(b, j) * flt(((i - j) % n + n) % n);
            if (std::fabs(hy[b * n + i] - want) > 1e-4 * (1 + std::fabs(want))) {
                std::printf("y[%d][%d] = %g, expected %g\n", b, i, hy[b * n + i], want);
                bad = 1;
                break;
            }
        }
    CF(cufftDestroy(fwd));
    CF(cufftDestroy(fwd1));
    CF(cufftDestroy(inv));
    std::free(hy);
    CK(cudaFree(x));
    CK(cudaFree(h));
    CK(cudaFree(y));
    CK(cudaFree(X));
    CK(cudaFree(H));
    std::printf("%s (circular convolution of %d signals of %d through R2C/C2R, work size %zu, events %.3f ms)\n",
                bad ? "FAIL" : "PASS", batch, n, ws, ms);
    return bad;
}
