/* SPDX-License-Identifier: Apache-2.0 */
// cuBLASLt from NVIDIA's own header (cublasLt.h), linked against NVIDIA's
// libcublasLt.so.13 and run with the host implementation in its place: a
// framework-style linear layer, y = GELU(x W^T + b) on row-major half
// tensors, called as frameworks do: column-major y^T = op(W^T)^T x^T,
// descriptors made with the header's inline ...Init functions in the
// program's memory, the heuristics' algorithm and a workspace, on a stream
// between kernels of the program's own, with events; the result against a
// host computation from the same half inputs (tolerance 2e-3 relative to
// 1 + |reference|, half output).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)s_); return 1; } } while (0)

// value i of a tensor: a multiple of 1/64 in [-1, 1), exact in half
__host__ __device__ static float val(int i, int salt)
{
    return (float)(((i * 37 + salt * 11) % 128) - 64) / 64.0f;
}

__global__ void fill(__half *a, int n, int salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = __float2half(val(i, salt));
}

__global__ void twice(__half *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = __float2half(2.0f * __half2float(a[i]));
}

static double gelu(double x)
{
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

int main()
{
    const int batch = 24, in = 40, out = 17;   // x: batch x in, W: out x in, y: batch x out (row-major)
    __half *x, *w, *b, *y;
    CK(cudaMalloc(&x, batch * in * sizeof(__half)));
    CK(cudaMalloc(&w, out * in * sizeof(__half)));
    CK(cudaMalloc(&b, out * sizeof(__half)));
    CK(cudaMalloc(&y, batch * out * sizeof(__half)));
    void *ws;
    size_t wsize = 1 << 20;
    CK(cudaMalloc(&ws, wsize));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cublasLtHandle_t lt;
    CB(cublasLtCreate(&lt));

    fill<<<(batch * in + 127) / 128, 128, 0, s>>>(x, batch * in, 1);
    fill<<<(out * in + 127) / 128, 128, 0, s>>>(w, out * in, 2);
    fill<<<1, 128, 0, s>>>(b, out, 3);

    // column-major: y^T (out x batch) = W (out x in, stored as W^T col-major: ld in) op T  *  x^T (in x batch, ld in)
    cublasLtMatmulDescOpaque_t opd;
    cublasLtMatrixLayoutOpaque_t la, lb, lc;
    cublasLtMatmulPreferenceOpaque_t pref;
    CB(cublasLtMatmulDescInit(&opd, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
    CB(cublasLtMatmulDescSetAttribute(&opd, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CB(cublasLtMatmulDescSetAttribute(&opd, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CB(cublasLtMatmulDescSetAttribute(&opd, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CB(cublasLtMatmulDescSetAttribute(&opd, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof b));
    CB(cublasLtMatrixLayoutInit(&la, CUDA_R_16F, in, out, in));
    CB(cublasLtMatrixLayoutInit(&lb, CUDA_R_16F, in, batch, in));
    CB(cublasLtMatrixLayoutInit(&lc, CUDA_R_16F, out, batch, out));
    CB(cublasLtMatmulPreferenceInit(&pref));
    CB(cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsize, sizeof wsize));
    cublasLtMatmulHeuristicResult_t res = {};
    int got = 0;
    CB(cublasLtMatmulAlgoGetHeuristic(lt, &opd, &la, &lb, &lc, &lc, &pref, 1, &res, &got));
    if (got != 1 || res.workspaceSize > wsize) {
        std::printf("heuristic: %d results, workspace %zu\n", got, res.workspaceSize);
        return 1;
    }
    CB(cublasLtMatmulAlgoCheck(lt, &opd, &la, &lb, &lc, &lc, &res.algo, &res));
    const float one = 1.0f, zero = 0.0f;
    CK(cudaEventRecord(e0, s));
    CB(cublasLtMatmul(lt, &opd, &one, w, &la, x, &lb, &zero, y, &lc, y, &lc, &res.algo, ws, wsize, s));
    CK(cudaEventRecord(e1, s));
    twice<<<(batch * out + 127) / 128, 128, 0, s>>>(y, batch * out);
    CK(cudaStreamSynchronize(s));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, e0, e1));

    __half *hy = (__half *)std::malloc(batch * out * sizeof(__half));
    CK(cudaMemcpy(hy, y, batch * out * sizeof(__half), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < batch && !bad; r++)
        for (int o = 0; o < out; o++) {
            double acc = val(o, 3);
            for (int i = 0; i < in; i++)
                acc += (double)val(r * in + i, 1) * val(o * in + i, 2);
            // y rounded to half by the matmul, doubled (exact) by the kernel
            double want = 2 * (double)__half2float(__float2half((float)gelu(acc)));
            double got_v = __half2float(hy[r * out + o]);
            if (std::fabs(got_v - want) > 2e-3 * (1 + std::fabs(want))) {
                std::printf("y[%d][%d] = %g, expected %g\n", r, o, got_v, want);
                bad = 1;
                break;
            }
        }
    CB(cublasLtDestroy(lt));
    std::free(hy);
    CK(cudaFree(x));
    CK(cudaFree(w));
    CK(cudaFree(b));
    CK(cudaFree(y));
    CK(cudaFree(ws));
    std::printf("%s (half linear layer %dx%d -> %d, GELU_BIAS, events %.3f ms)\n", bad ? "FAIL" : "PASS", batch, in,
                out, ms);
    return bad;
}
