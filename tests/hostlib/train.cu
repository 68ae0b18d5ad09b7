/* SPDX-License-Identifier: Apache-2.0 */
// A small MLP's training step on the emulated GPU, built with nvcc against
// NVIDIA's headers and libraries (cublas, cublasLt, cudnn) and run with the
// host implementations in their place, everything on one stream:
//   Z1 = W1 X + b1        cublasLtMatmul, epilogue BIAS
//   A1 = relu(Z1)         cudnnActivationForward
//   Z2 = W2 A1 (+ b2)     cublasSgemm, cudnnAddTensor
//   logp = log_softmax(Z2) cudnnSoftmaxForward (LOG, CHANNEL)
//   loss, dlogp           a kernel of the program's own
//   dZ2                   cudnnSoftmaxBackward (LOG)
//   gW2 = dZ2 A1^T, gb2   cublasLtMatmul, epilogue BGRADA (gb2 = dZ2's row sums)
//   dA1 = W2^T dZ2        cublasGemmEx
//   dZ1 = relu'(Z1) dA1   cudnnActivationBackward
//   gW1 = dZ1 X^T, gb1    cublasLtMatmul, epilogue BGRADA
//   SGD                   cublasSaxpy on weights and biases
// Three steps; each loss (summed with cublasSasum) and the final weights and
// biases against the same computation on the host in double (tolerance 1e-4
// relative to 1 + |reference|).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)s_); return 1; } } while (0)
#define CD(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); return 1; } } while (0)

enum { B = 32, D = 40, H = 24, C = 10, STEPS = 3 };
static const float LR = 0.5f;

// column-major: X is D x B, W1 H x D, W2 C x H; logp is C x B
__global__ void nll(const float *logp, const int *y, float *dlogp, float *loss, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    int c = i / rows, r = i % rows;
    dlogp[i] = r == y[c] ? -1.0f / cols : 0.0f;
    if (r == 0) loss[c] = -logp[c * rows + y[c]] / cols;
}

struct Host { std::vector<double> W1, b1, W2, b2; };

static double host_step(Host &m, const std::vector<float> &X, const std::vector<int> &Y)
{
    std::vector<double> Z1(H * B), A1(H * B), Z2(C * B), dZ2(C * B), dZ1(H * B);
    for (int c = 0; c < B; c++)
        for (int r = 0; r < H; r++) {
            double s = m.b1[r];
            for (int k = 0; k < D; k++) s += m.W1[r + k * H] * X[k + c * D];
            Z1[r + c * H] = s;
            A1[r + c * H] = s > 0 ? s : 0;
        }
    double loss = 0;
    for (int c = 0; c < B; c++) {
        double mx = -1e300, s = 0;
        for (int r = 0; r < C; r++) {
            double v = m.b2[r];
            for (int k = 0; k < H; k++) v += m.W2[r + k * C] * A1[k + c * H];
            Z2[r + c * C] = v;
            mx = std::fmax(mx, v);
        }
        for (int r = 0; r < C; r++) s += std::exp(Z2[r + c * C] - mx);
        for (int r = 0; r < C; r++) dZ2[r + c * C] = (std::exp(Z2[r + c * C] - mx) / s - (r == Y[c])) / B;
        loss += -(Z2[Y[c] + c * C] - mx - std::log(s)) / B;
    }
    for (int c = 0; c < B; c++)
        for (int k = 0; k < H; k++) {
            double s = 0;
            for (int r = 0; r < C; r++) s += m.W2[r + k * C] * dZ2[r + c * C];
            dZ1[k + c * H] = Z1[k + c * H] > 0 ? s : 0;
        }
    for (int r = 0; r < C; r++) {
        double gb = 0;
        for (int c = 0; c < B; c++) gb += dZ2[r + c * C];
        for (int k = 0; k < H; k++) {
            double s = 0;
            for (int c = 0; c < B; c++) s += dZ2[r + c * C] * A1[k + c * H];
            m.W2[r + k * C] -= LR * s;
        }
        m.b2[r] -= LR * gb;
    }
    for (int r = 0; r < H; r++) {
        double gb = 0;
        for (int c = 0; c < B; c++) gb += dZ1[r + c * H];
        for (int k = 0; k < D; k++) {
            double s = 0;
            for (int c = 0; c < B; c++) s += dZ1[r + c * H] * X[k + c * D];
            m.W1[r + k * H] -= LR * s;
        }
        m.b1[r] -= LR * gb;
    }
    return loss;
}

// D (m x n) = op(A) op(B) with an epilogue and its bias pointer, through cuBLASLt
static int lt_gemm(cublasLtHandle_t lt, cudaStream_t s, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                   int k, const float *A, int lda, const float *Bm, int ldb, float *Dm, int ldd,
                   cublasLtEpilogue_t epi, float *bias)
{
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    CB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CB(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda));
    CB(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb));
    CB(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, ldd));
    cublasLtMatmulPreference_t pref;
    CB(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t res = {};
    int got = 0;
    CB(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &res, &got));
    const float one = 1, zero = 0;
    CB(cublasLtMatmul(lt, op, &one, A, la, Bm, lb, &zero, Dm, ld, Dm, ld, &res.algo, nullptr, 0, s));
    CB(cublasLtMatmulPreferenceDestroy(pref));
    CB(cublasLtMatrixLayoutDestroy(la));
    CB(cublasLtMatrixLayoutDestroy(lb));
    CB(cublasLtMatrixLayoutDestroy(ld));
    CB(cublasLtMatmulDescDestroy(op));
    return 0;
}

int main()
{
    srand(11);
    auto rnd = [] { return (float)rand() / RAND_MAX - 0.5f; };
    std::vector<float> X(D * B), W1(H * D), b1(H), W2(C * H), b2(C);
    std::vector<int> Y(B);
    for (auto &v : X) v = rnd();
    for (auto &v : W1) v = rnd() * 0.4f;
    for (auto &v : b1) v = rnd() * 0.2f;
    for (auto &v : W2) v = rnd() * 0.4f;
    for (auto &v : b2) v = rnd() * 0.2f;
    for (auto &y : Y) y = rand() % C;
    Host ref{ { W1.begin(), W1.end() }, { b1.begin(), b1.end() }, { W2.begin(), W2.end() }, { b2.begin(), b2.end() } };

    float *dX, *dW1, *db1, *dW2, *db2, *Z1, *A1, *Z2, *logp, *dlogp, *dZ2, *dA1, *dZ1, *gW1, *gW2, *gb1, *gb2, *loss;
    int *dY;
    float **all[] = { &dX, &dW1, &db1, &dW2, &db2, &Z1, &A1, &Z2, &logp, &dlogp, &dZ2, &dA1, &dZ1, &gW1, &gW2, &gb1,
                      &gb2, &loss };
    const int sizes[] = { D * B, H * D, H, C * H, C, H * B, H * B, C * B, C * B, C * B, C * B, H * B, H * B, H * D,
                          C * H, H, C, B };
    for (int i = 0; i < 18; i++) CK(cudaMalloc(all[i], sizes[i] * sizeof(float)));
    CK(cudaMalloc(&dY, B * sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyAsync(dX, X.data(), D * B * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dW1, W1.data(), H * D * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(db1, b1.data(), H * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dW2, W2.data(), C * H * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(db2, b2.data(), C * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dY, Y.data(), B * 4, cudaMemcpyHostToDevice, s));

    cublasHandle_t h;
    cublasLtHandle_t lt;
    cudnnHandle_t dn;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    CB(cublasLtCreate(&lt));
    CD(cudnnCreate(&dn));
    CD(cudnnSetStream(dn, s));
    // cuDNN's views: hidden activations B x H x 1 x 1, logits B x C x 1 x 1, bias 1 x C x 1 x 1
    // (NCHW with C innermost: column-major H x B and C x B)
    cudnnTensorDescriptor_t th, tc, tb2;
    CD(cudnnCreateTensorDescriptor(&th));
    CD(cudnnCreateTensorDescriptor(&tc));
    CD(cudnnCreateTensorDescriptor(&tb2));
    CD(cudnnSetTensor4dDescriptor(th, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, B, H, 1, 1));
    CD(cudnnSetTensor4dDescriptor(tc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, B, C, 1, 1));
    CD(cudnnSetTensor4dDescriptor(tb2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, 1, 1));
    cudnnActivationDescriptor_t relu;
    CD(cudnnCreateActivationDescriptor(&relu));
    CD(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));

    const float one = 1, zero = 0, mlr = -LR;
    int bad = 0;
    for (int step = 0; step < STEPS; step++) {
        // forward
        if (lt_gemm(lt, s, CUBLAS_OP_N, CUBLAS_OP_N, H, B, D, dW1, H, dX, D, Z1, H, CUBLASLT_EPILOGUE_BIAS, db1)) return 1;
        CD(cudnnActivationForward(dn, relu, &one, th, Z1, &zero, th, A1));
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, C, B, H, &one, dW2, C, A1, H, &zero, Z2, C));
        CD(cudnnAddTensor(dn, &one, tb2, db2, &one, tc, Z2));
        CD(cudnnSoftmaxForward(dn, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, tc, Z2, &zero, tc, logp));
        nll<<<(C * B + 127) / 128, 128, 0, s>>>(logp, dY, dlogp, loss, C, B);
        // backward
        CD(cudnnSoftmaxBackward(dn, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_CHANNEL, &one, tc, logp, tc, dlogp, &zero, tc,
                                dZ2));
        if (lt_gemm(lt, s, CUBLAS_OP_N, CUBLAS_OP_T, C, H, B, dZ2, C, A1, H, gW2, C, CUBLASLT_EPILOGUE_BGRADA, gb2))
            return 1;
        CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, H, B, C, &one, dW2, CUDA_R_32F, C, dZ2, CUDA_R_32F, C, &zero,
                        dA1, CUDA_R_32F, H, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        CD(cudnnActivationBackward(dn, relu, &one, th, A1, th, dA1, th, Z1, &zero, th, dZ1));
        if (lt_gemm(lt, s, CUBLAS_OP_N, CUBLAS_OP_T, H, D, B, dZ1, H, dX, D, gW1, H, CUBLASLT_EPILOGUE_BGRADA, gb1))
            return 1;
        // SGD
        CB(cublasSaxpy(h, C * H, &mlr, gW2, 1, dW2, 1));
        CB(cublasSaxpy(h, C, &mlr, gb2, 1, db2, 1));
        CB(cublasSaxpy(h, H * D, &mlr, gW1, 1, dW1, 1));
        CB(cublasSaxpy(h, H, &mlr, gb1, 1, db1, 1));
        float got = 0;
        CB(cublasSasum(h, B, loss, 1, &got));   // host pointer mode: waits for the stream
        double want = host_step(ref, X, Y);
        std::printf("step %d: loss %.6f, host %.6f\n", step, got, want);
        if (std::fabs(got - want) > 1e-4 * (1 + std::fabs(want))) bad = 1;
    }
    struct { const float *dev; const std::vector<double> *want; const char *name; } params[] = {
        { dW1, &ref.W1, "W1" }, { db1, &ref.b1, "b1" }, { dW2, &ref.W2, "W2" }, { db2, &ref.b2, "b2" } };
    for (auto &p : params) {
        std::vector<float> got(p.want->size());
        CK(cudaMemcpy(got.data(), p.dev, got.size() * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < got.size() && !bad; i++)
            if (std::fabs(got[i] - (*p.want)[i]) > 1e-4 * (1 + std::fabs((*p.want)[i]))) {
                std::printf("%s[%zu] = %g, expected %g\n", p.name, i, got[i], (*p.want)[i]);
                bad = 1;
            }
    }
    CD(cudnnDestroyActivationDescriptor(relu));
    CD(cudnnDestroyTensorDescriptor(th));
    CD(cudnnDestroyTensorDescriptor(tc));
    CD(cudnnDestroyTensorDescriptor(tb2));
    CD(cudnnDestroy(dn));
    CB(cublasLtDestroy(lt));
    CB(cublasDestroy(h));
    for (int i = 0; i < 18; i++) CK(cudaFree(*all[i]));
    CK(cudaFree(dY));
    std::printf("%s (%d SGD steps through cuBLAS, cuBLASLt and cuDNN; losses, weights and biases match the host)\n",
                bad ? "FAIL" : "PASS", STEPS);
    return bad;
}
