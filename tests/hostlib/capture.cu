/* SPDX-License-Identifier: Apache-2.0 */
// Library calls inside CUDA stream capture (docs/hostlib.md, "Graphs and
// stream capture"): built against NVIDIA's headers and libraries, run with
// the host cuBLAS, cuFFT and cuSPARSE in their place.
//   1. kernel -> cublasSgemm (host scalars, changed after the capture) ->
//      cublasSaxpy (device pointer mode: its alpha changes between
//      launches) -> kernel, captured, launched 3 times with new input;
//   2. cufftExecC2C captured, 3 launches with new input;
//   3. cusparseSpMV captured, 3 launches with new x; cudnnActivationForward
//      (ReLU) the same;
//   4. the graph destroyed before its executable graph, and after it; a
//      launch after the graph is gone;
//   5. a blocking call (cublasSdot with a host result) refused in capture,
//      the capture still good;
//   6. an operand freed between launches: the launch's work reports an
//      illegal address (sticky cudaErrorIllegalAddress), no crash.
// Each result is compared with a host computation. With the argument
// "badindex": a column index of a captured SpMV's matrix made bad after
// the capture is reported at the launch (sticky cudaErrorIllegalAddress).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <complex>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <cusparse.h>
#include <cudnn.h>
#include <cstring>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CB(x) do { int s_ = (int)(x); if (s_ != 0) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, s_); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { std::printf("%s:%d: ", __FILE__, __LINE__); \
    std::printf(__VA_ARGS__); std::printf("\n"); return 1; } } while (0)

__global__ void twice(float *a, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 2.0f * in[i];
}

__global__ void halve(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= 0.5f;
}

static int close(double a, double b, double tol) { return std::fabs(a - b) <= tol * (1.0 + std::fabs(b)); }

static int blas_chain(cudaStream_t s, cublasHandle_t h)
{
    const int n = 24, nn = n * n;
    float *in, *A, *B, *C, *Y, *dalpha;
    CK(cudaMalloc(&in, nn * 4)); CK(cudaMalloc(&A, nn * 4)); CK(cudaMalloc(&B, nn * 4));
    CK(cudaMalloc(&C, nn * 4)); CK(cudaMalloc(&Y, nn * 4)); CK(cudaMalloc(&dalpha, 4));
    float hB[nn], hin[nn], hY0[nn], hY[nn];
    for (int i = 0; i < nn; i++) { hB[i] = (float)((i * 7) % 11) * 0.125f - 0.5f; hY0[i] = (float)(i % 5); }
    CK(cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice));
    float alpha = 1.5f, beta = 0.0f;
    CB(cublasSetStream(h, s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    twice<<<(nn + 127) / 128, 128, 0, s>>>(A, in, nn);
    CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, n, B, n, &beta, C, n));
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CB(cublasSaxpy(h, nn, dalpha, C, 1, Y, 1));
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    halve<<<(nn + 127) / 128, 128, 0, s>>>(Y, nn);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    alpha = 99.0f;   // host scalars were read at the capture
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, NULL, &nodes));
    EXPECT(nodes == 4, "the graph has %zu nodes, not 4", nodes);
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < nn; i++) hin[i] = (float)((i + 3 * launch) % 13) * 0.25f - 1.0f;
        float da = 0.5f + (float)launch;
        CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(Y, hY0, sizeof hY0, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dalpha, &da, 4, cudaMemcpyHostToDevice));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(hY, Y, sizeof hY, cudaMemcpyDeviceToHost));
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                double acc = 0;
                for (int k = 0; k < n; k++) acc += 2.0 * hin[r + k * n] * hB[k + c * n];
                double want = 0.5 * (da * 1.5 * acc + hY0[r + c * n]);
                EXPECT(close(hY[r + c * n], want, 1e-4), "launch %d: Y[%d,%d] = %g, want %g", launch, r, c,
                       hY[r + c * n], want);
            }
    }
    CK(cudaGraphExecDestroy(x));   // the exec first, then the graph
    CK(cudaGraphDestroy(g));
    cudaFree(in); cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(Y); cudaFree(dalpha);
    std::printf("cuBLAS chain: 4 nodes, 3 launches match\n");
    return 0;
}

static int fft(cudaStream_t s)
{
    const int n = 64;
    cufftComplex *x, *X;
    CK(cudaMalloc(&x, n * sizeof *x)); CK(cudaMalloc(&X, n * sizeof *X));
    cufftHandle p;
    CB(cufftPlan1d(&p, n, CUFFT_C2C, 1));
    CB(cufftSetStream(p, s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CB(cufftExecC2C(p, x, X, CUFFT_FORWARD));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphDestroy(g));   // the graph first: the exec keeps the job
    CB(cufftDestroy(p));       // the job keeps what it needs of the plan
    cufftComplex hx[n], hX[n];
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < n; i++) { hx[i].x = (float)std::sin(0.3 * i + launch); hx[i].y = (float)((i + launch) % 3); }
        CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaMemcpyAsync(hX, X, sizeof hX, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        for (int k = 0; k < n; k++) {
            std::complex<double> acc = 0;
            for (int j = 0; j < n; j++)
                acc += std::complex<double>(hx[j].x, hx[j].y) * std::polar(1.0, -2 * M_PI * j * k / n);
            EXPECT(close(hX[k].x, acc.real(), 1e-3) && close(hX[k].y, acc.imag(), 1e-3),
                   "launch %d: X[%d] = %g%+gi, want %g%+gi", launch, k, hX[k].x, hX[k].y, acc.real(), acc.imag());
        }
    }
    CK(cudaGraphExecDestroy(ge));
    cudaFree(x); cudaFree(X);
    std::printf("cuFFT: 3 launches match (graph and plan destroyed before the exec)\n");
    return 0;
}

static int spmv(cudaStream_t s, int bad)
{
    // a tridiagonal 16 x 16 matrix in CSR
    const int n = 16;
    int hoff[n + 1], hidx[3 * n];
    float hval[3 * n];
    int nnz = 0;
    for (int r = 0; r < n; r++) {
        hoff[r] = nnz;
        for (int c = r - 1; c <= r + 1; c++)
            if (c >= 0 && c < n) { hidx[nnz] = c; hval[nnz] = c == r ? 4.0f : -1.0f - 0.1f * r; nnz++; }
    }
    hoff[n] = nnz;
    int *off, *idx; float *val, *x, *y;
    CK(cudaMalloc(&off, sizeof hoff)); CK(cudaMalloc(&idx, nnz * 4)); CK(cudaMalloc(&val, nnz * 4));
    CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4));
    CK(cudaMemcpy(off, hoff, sizeof hoff, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(idx, hidx, nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(val, hval, nnz * 4, cudaMemcpyHostToDevice));
    cusparseHandle_t h;
    CB(cusparseCreate(&h));
    CB(cusparseSetStream(h, s));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    CB(cusparseCreateCsr(&A, n, n, nnz, off, idx, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CB(cusparseCreateDnVec(&vx, n, x, CUDA_R_32F));
    CB(cusparseCreateDnVec(&vy, n, y, CUDA_R_32F));
    float alpha = 2.0f, beta = 0.0f;
    size_t ws = 0;
    CB(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, &ws));
    void *buf = NULL;
    CK(cudaMalloc(&buf, ws ? ws : 16));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CB(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,
                    CUSPARSE_SPMV_ALG_DEFAULT, buf));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    float hx[n], hy[n];
    if (bad) {
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        int wrong = n + 5;
        CK(cudaMemcpy(idx + 4, &wrong, 4, cudaMemcpyHostToDevice));
        CK(cudaGraphLaunch(ge, s));
        cudaError_t e = cudaStreamSynchronize(s);
        EXPECT(e == cudaErrorIllegalAddress, "launch with a bad index: %s, not cudaErrorIllegalAddress",
               cudaGetErrorName(e));
        std::printf("a bad index after the capture: %s at the launch, no crash\n", cudaGetErrorName(e));
        return 0;
    }
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < n; i++) hx[i] = (float)((i * (launch + 2)) % 9) - 3.0f;
        CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
        for (int r = 0; r < n; r++) {
            double acc = 0;
            for (int k = hoff[r]; k < hoff[r + 1]; k++) acc += (double)hval[k] * hx[hidx[k]];
            EXPECT(close(hy[r], 2.0 * acc, 1e-5), "launch %d: y[%d] = %g, want %g", launch, r, hy[r], 2.0 * acc);
        }
    }
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    cusparseDestroySpMat(A); cusparseDestroyDnVec(vx); cusparseDestroyDnVec(vy);
    CB(cusparseDestroy(h));
    cudaFree(off); cudaFree(idx); cudaFree(val); cudaFree(x); cudaFree(y); cudaFree(buf);
    std::printf("cuSPARSE SpMV: 3 launches match\n");
    return 0;
}

static int relu(cudaStream_t s)
{
    const int n = 32;
    float *x, *y;
    CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4));
    cudnnHandle_t h;
    CB(cudnnCreate(&h));
    CB(cudnnSetStream(h, s));
    cudnnTensorDescriptor_t t;
    CB(cudnnCreateTensorDescriptor(&t));
    CB(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 2, 4, 4));
    cudnnActivationDescriptor_t a;
    CB(cudnnCreateActivationDescriptor(&a));
    CB(cudnnSetActivationDescriptor(a, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
    const float one = 1.0f, zero = 0.0f;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CB(cudnnActivationForward(h, a, &one, t, x, &zero, t, y));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    // the descriptors and the handle go; the job owns what it needs
    CB(cudnnDestroyActivationDescriptor(a));
    CB(cudnnDestroyTensorDescriptor(t));
    CB(cudnnDestroy(h));
    float hx[n], hy[n];
    for (int launch = 0; launch < 3; launch++) {
        for (int i = 0; i < n; i++) hx[i] = (float)((i * 5 + launch * 3) % 11) - 5.0f;
        CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            EXPECT(hy[i] == (hx[i] > 0 ? hx[i] : 0.0f), "launch %d: relu(%g) = %g", launch, hx[i], hy[i]);
    }
    CK(cudaGraphDestroy(g));
    CK(cudaGraphExecDestroy(ge));
    cudaFree(x); cudaFree(y);
    std::printf("cuDNN ReLU: 3 launches match\n");
    return 0;
}

static int refused(cudaStream_t s, cublasHandle_t h)
{
    float *x;
    CK(cudaMalloc(&x, 64 * 4));
    CK(cudaMemset(x, 0, 64 * 4));
    CB(cublasSetStream(h, s));
    float dot = -1;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cublasStatus_t r = cublasSdot(h, 64, x, 1, x, 1, &dot);   // a host result: blocking
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    EXPECT(r == CUBLAS_STATUS_NOT_SUPPORTED, "cublasSdot with a host result in capture: %d, not NOT_SUPPORTED", (int)r);
    size_t nodes = 1;
    CK(cudaGraphGetNodes(g, NULL, &nodes));
    EXPECT(nodes == 0, "the refused call left %zu nodes", nodes);
    CK(cudaGraphDestroy(g));
    cudaFree(x);
    std::printf("blocking call in capture: refused (CUBLAS_STATUS_NOT_SUPPORTED), capture intact\n");
    return 0;
}

static int freed(cudaStream_t s, cublasHandle_t h)
{
    const int n = 256;
    float *x, *y;
    CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4));
    CK(cudaMemset(x, 0, n * 4)); CK(cudaMemset(y, 0, n * 4));
    CB(cublasSetStream(h, s));
    const float a = 3.0f;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CB(cublasSaxpy(h, n, &a, x, 1, y, 1));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(x));   // the graph still names it
    CK(cudaGraphLaunch(ge, s));
    cudaError_t e = cudaStreamSynchronize(s);
    EXPECT(e == cudaErrorIllegalAddress, "launch after the operand was freed: %s, not cudaErrorIllegalAddress",
           cudaGetErrorName(e));
    std::printf("operand freed between launches: %s (sticky), no crash\n", cudaGetErrorName(e));
    return 0;
}

int main(int argc, char **argv)
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    if (argc > 1 && !std::strcmp(argv[1], "badindex"))
        return spmv(s, 1);
    cublasHandle_t h;
    CB(cublasCreate(&h));
    if (blas_chain(s, h) || fft(s) || spmv(s, 0) || relu(s) || refused(s, h))
        return 1;
    // the context is faulted from here on
    if (freed(s, h))
        return 1;
    std::printf("capture: 7 checks pass\n");
    return 0;
}
