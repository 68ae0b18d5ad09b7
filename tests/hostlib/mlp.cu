/* SPDX-License-Identifier: Apache-2.0 */
// One training step of a small MLP on the emulated GPU, built with nvcc
// against NVIDIA's headers and libcublas, run with the host cuBLAS in its
// place: GEMMs through cuBLAS (Sgemm, GemmEx, Saxpy, Sasum), bias, ReLU,
// softmax and cross-entropy in kernels of the program's own, all on one
// stream. Two SGD steps; both losses and the updated weights are checked
// against the same computation on the host in double precision
// (tolerance 1e-4 relative). train.cu does the same through cuBLAS,
// cuBLASLt and cuDNN together.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)s_); return 1; } } while (0)

enum { B = 32, D = 64, H = 48, C = 10 };
static const float LR = 0.5f;

// column-major: X is D x B, W1 H x D, W2 C x H
__global__ void bias_relu(float *z, const float *b, float *a, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) { z[i] += b[i % rows]; a[i] = z[i] > 0 ? z[i] : 0; }
}
__global__ void bias_softmax_xent(float *z, const float *b, const int *y, float *dz, float *loss, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float *col = z + c * rows, m = -1e30f, s = 0;
    for (int r = 0; r < rows; r++) { col[r] += b[r]; m = fmaxf(m, col[r]); }
    for (int r = 0; r < rows; r++) s += expf(col[r] - m);
    for (int r = 0; r < rows; r++) {
        float p = expf(col[r] - m) / s;
        dz[c * rows + r] = (p - (r == y[c] ? 1.0f : 0.0f)) / cols;
    }
    loss[c] = -(col[y[c]] - m - logf(s)) / cols;
}
__global__ void relu_back(float *da, const float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && z[i] <= 0) da[i] = 0;
}

struct Host { std::vector<double> W1, b1, W2, b2; };

static double host_step(Host &m, const std::vector<float> &X, const std::vector<int> &Y)
{
    std::vector<double> Z1(H * B), A1(H * B), Z2(C * B), dZ2(C * B), dA1(H * B);
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
        for (int r = 0; r < C; r++)
            dZ2[r + c * C] = (std::exp(Z2[r + c * C] - mx) / s - (r == Y[c])) / B;
        loss += -(Z2[Y[c] + c * C] - mx - std::log(s)) / B;
    }
    for (int c = 0; c < B; c++)
        for (int k = 0; k < H; k++) {
            double s = 0;
            for (int r = 0; r < C; r++) s += m.W2[r + k * C] * dZ2[r + c * C];
            dA1[k + c * H] = Z1[k + c * H] > 0 ? s : 0;
        }
    for (int r = 0; r < C; r++)
        for (int k = 0; k < H; k++) {
            double s = 0;
            for (int c = 0; c < B; c++) s += dZ2[r + c * C] * A1[k + c * H];
            m.W2[r + k * C] -= LR * s;
        }
    for (int r = 0; r < H; r++)
        for (int k = 0; k < D; k++) {
            double s = 0;
            for (int c = 0; c < B; c++) s += dA1[r + c * H] * X[k + c * D];
            m.W1[r + k * H] -= LR * s;
        }
    return loss;
}

int main()
{
    srand(7);
    auto rnd = [] { return (float)rand() / RAND_MAX - 0.5f; };
    std::vector<float> X(D * B), W1(H * D), b1(H), W2(C * H), b2(C);
    std::vector<int> Y(B);
    for (auto &v : X) v = rnd();
    for (auto &v : W1) v = rnd() * 0.3f;
    for (auto &v : b1) v = rnd() * 0.1f;
    for (auto &v : W2) v = rnd() * 0.3f;
    for (auto &v : b2) v = rnd() * 0.1f;
    for (auto &y : Y) y = rand() % C;
    Host ref{ { W1.begin(), W1.end() }, { b1.begin(), b1.end() }, { W2.begin(), W2.end() }, { b2.begin(), b2.end() } };

    float *dX, *dW1, *db1, *dW2, *db2, *Z1, *A1, *Z2, *dZ2, *dA1, *gW1, *gW2, *loss;
    int *dY;
    CK(cudaMalloc(&dX, D * B * 4)); CK(cudaMalloc(&dW1, H * D * 4)); CK(cudaMalloc(&db1, H * 4));
    CK(cudaMalloc(&dW2, C * H * 4)); CK(cudaMalloc(&db2, C * 4)); CK(cudaMalloc(&Z1, H * B * 4));
    CK(cudaMalloc(&A1, H * B * 4)); CK(cudaMalloc(&Z2, C * B * 4)); CK(cudaMalloc(&dZ2, C * B * 4));
    CK(cudaMalloc(&dA1, H * B * 4)); CK(cudaMalloc(&gW1, H * D * 4)); CK(cudaMalloc(&gW2, C * H * 4));
    CK(cudaMalloc(&loss, B * 4)); CK(cudaMalloc(&dY, B * 4));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyAsync(dX, X.data(), D * B * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dW1, W1.data(), H * D * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(db1, b1.data(), H * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dW2, W2.data(), C * H * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(db2, b2.data(), C * 4, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dY, Y.data(), B * 4, cudaMemcpyHostToDevice, s));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    const float one = 1, zero = 0, mlr = -LR;
    int bad = 0;
    for (int step = 0; step < 2; step++) {
        // forward
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, H, B, D, &one, dW1, H, dX, D, &zero, Z1, H));
        bias_relu<<<(H * B + 127) / 128, 128, 0, s>>>(Z1, db1, A1, H, B);
        CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, C, B, H, &one, dW2, CUDA_R_32F, C, A1, CUDA_R_32F, H, &zero,
                        Z2, CUDA_R_32F, C, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        bias_softmax_xent<<<1, 64, 0, s>>>(Z2, db2, dY, dZ2, loss, C, B);
        // backward
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, C, H, B, &one, dZ2, C, A1, H, &zero, gW2, C));
        CB(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, H, B, C, &one, dW2, C, dZ2, C, &zero, dA1, H));
        relu_back<<<(H * B + 127) / 128, 128, 0, s>>>(dA1, Z1, H * B);
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, H, D, B, &one, dA1, H, dX, D, &zero, gW1, H));
        // SGD
        CB(cublasSaxpy(h, C * H, &mlr, gW2, 1, dW2, 1));
        CB(cublasSaxpy(h, H * D, &mlr, gW1, 1, dW1, 1));
        float got = 0;
        CB(cublasSasum(h, B, loss, 1, &got)); // host pointer mode: waits for the stream
        double want = host_step(ref, X, Y);
        std::printf("step %d: loss %.6f, host %.6f\n", step, got, want);
        if (std::fabs(got - want) > 1e-4 * std::fabs(want)) bad = 1;
    }
    std::vector<float> gw1(H * D), gw2(C * H);
    CK(cudaMemcpy(gw1.data(), dW1, H * D * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gw2.data(), dW2, C * H * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < H * D && !bad; i++)
        if (std::fabs(gw1[i] - ref.W1[i]) > 1e-4 * (1 + std::fabs(ref.W1[i]))) { std::printf("W1[%d]\n", i); bad = 1; }
    for (int i = 0; i < C * H && !bad; i++)
        if (std::fabs(gw2[i] - ref.W2[i]) > 1e-4 * (1 + std::fabs(ref.W2[i]))) { std::printf("W2[%d]\n", i); bad = 1; }
    CB(cublasDestroy(h));
    std::printf("%s (2 SGD steps, weights match the host)\n", bad ? "FAIL" : "PASS");
    return bad;
}
