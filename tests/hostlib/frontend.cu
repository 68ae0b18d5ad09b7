/* SPDX-License-Identifier: Apache-2.0 */
// cuDNN's backend API as frameworks reach it: through NVIDIA's
// cudnn-frontend header library (its graph API, cudnn_frontend.h; not part
// of tdtrace: run.sh takes it from TD_CUDNN_FRONTEND and skips without it),
// built with NVIDIA's cudnn.h and libcudnn.so.9 and run with the host
// implementation in its place. Two graphs, each built, planned from the
// heuristics (mode A), executed on a stream between kernels of the
// program's own:
//   - convolution + bias + ReLU (what PyTorch builds for conv + bias +
//     relu fusion), NHWC float, 2x3x8x8 with 4 3x3 filters, padding 1;
//   - a batched matmul + bias with GELU, 2x5x7 times 7x6;
// every value against a host computation in double (tolerance 1e-4
// relative to 1 + |reference|).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cudnn_frontend.h>
#include <unordered_map>

namespace fe = cudnn_frontend;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CD(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); return 1; } } while (0)
#define FE(x) do { auto e_ = (x); if (!e_.is_good()) { \
    std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, e_.get_message().c_str()); return 1; } } while (0)

__host__ __device__ static float val(int i, int a, int m) { return (float)((i * a % m) - m / 2) / 32.0f; }

__global__ void fill(float *p, int n, int a, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = val(i, a, m);
}

static int check(const char *what, const float *got, const double *want, int n, int *bad)
{
    for (int i = 0; i < n; i++)
        if (!(std::fabs(got[i] - want[i]) <= 1e-4 * (1 + std::fabs(want[i])))) {
            std::printf("%s[%d] = %.9g, expected %.9g\n", what, i, got[i], want[i]);
            (*bad)++;
            return 0;
        }
    return 1;
}

static int conv_bias_relu(cudnnHandle_t h, cudaStream_t s, int *bad)
{
    const int64_t N = 2, C = 3, H = 8, W = 8, K = 4, R = 3;
    fe::graph::Graph g;
    g.set_io_data_type(fe::DataType_t::FLOAT).set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    auto X = g.tensor(fe::graph::Tensor_attributes().set_name("x").set_dim({N, C, H, W})
                          .set_stride({C * H * W, 1, W * C, C}));
    auto Wt = g.tensor(fe::graph::Tensor_attributes().set_name("w").set_dim({K, C, R, R})
                           .set_stride({C * R * R, 1, R * C, C}));
    auto B = g.tensor(fe::graph::Tensor_attributes().set_name("b").set_dim({1, K, 1, 1}).set_stride({K, 1, K, K}));
    auto conv = g.conv_fprop(X, Wt, fe::graph::Conv_fprop_attributes().set_padding({1, 1}).set_stride({1, 1})
                                        .set_dilation({1, 1}));
    auto biased = g.pointwise(conv, B, fe::graph::Pointwise_attributes().set_mode(fe::PointwiseMode_t::ADD));
    auto Y = g.pointwise(biased, fe::graph::Pointwise_attributes().set_mode(fe::PointwiseMode_t::RELU_FWD));
    Y->set_output(true);
    FE(g.validate());
    FE(g.build_operation_graph(h));
    FE(g.create_execution_plans({fe::HeurMode_t::A}));
    FE(g.check_support());
    FE(g.build_plans());
    int64_t ws = -1;
    FE(g.get_workspace_size(ws));
    int nx = N * C * H * W, nw = K * C * R * R, ny = N * K * H * W;
    float *x, *w, *b, *y;
    void *work = nullptr;
    CK(cudaMalloc(&x, nx * 4));
    CK(cudaMalloc(&w, nw * 4));
    CK(cudaMalloc(&b, K * 4));
    CK(cudaMalloc(&y, ny * 4));
    if (ws > 0)
        CK(cudaMalloc(&work, ws));
    fill<<<(nx + 63) / 64, 64, 0, s>>>(x, nx, 7, 19);
    fill<<<(nw + 63) / 64, 64, 0, s>>>(w, nw, 5, 13);
    fill<<<1, 64, 0, s>>>(b, K, 3, 11);
    std::unordered_map<std::shared_ptr<fe::graph::Tensor_attributes>, void *> pack = {
        { X, x }, { Wt, w }, { B, b }, { Y, y } };
    FE(g.execute(h, pack, work));
    float *host = (float *)std::malloc(ny * 4);
    double *want = (double *)std::malloc(ny * sizeof(double));
    CK(cudaMemcpyAsync(host, y, ny * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    // NHWC: x[n][c][i][j] at ((n * H + i) * W + j) * C + c; w KRSC likewise; y NHWC
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int p = 0; p < H; p++)
                for (int q = 0; q < W; q++) {
                    double acc = val(k, 3, 11);
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int t = 0; t < R; t++) {
                                int i = p + r - 1, j = q + t - 1;
                                if (i < 0 || j < 0 || i >= H || j >= W)
                                    continue;
                                acc += (double)val((int)(((n * H + i) * W + j) * C + c), 7, 19) *
                                       val((int)(((k * R + r) * R + t) * C + c), 5, 13);
                            }
                    want[((n * H + p) * W + q) * K + k] = acc > 0 ? acc : 0;
                }
    check("relu(conv + bias)", host, want, ny, bad);
    std::free(host), std::free(want);
    CK(cudaFree(x));
    CK(cudaFree(w));
    CK(cudaFree(b));
    CK(cudaFree(y));
    if (work)
        CK(cudaFree(work));
    return 0;
}

static int matmul_bias_gelu(cudnnHandle_t h, cudaStream_t s, int *bad)
{
    const int64_t Bn = 2, M = 5, K = 7, N = 6;
    fe::graph::Graph g;
    g.set_io_data_type(fe::DataType_t::FLOAT).set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    auto A = g.tensor(fe::graph::Tensor_attributes().set_name("a").set_dim({Bn, M, K}).set_stride({M * K, K, 1}));
    auto Bm = g.tensor(fe::graph::Tensor_attributes().set_name("b").set_dim({1, K, N}).set_stride({K * N, N, 1}));
    auto bias = g.tensor(fe::graph::Tensor_attributes().set_name("bias").set_dim({1, 1, N}).set_stride({N, N, 1}));
    auto C = g.matmul(A, Bm, fe::graph::Matmul_attributes());
    auto Cb = g.pointwise(C, bias, fe::graph::Pointwise_attributes().set_mode(fe::PointwiseMode_t::ADD));
    auto Y = g.pointwise(Cb, fe::graph::Pointwise_attributes().set_mode(fe::PointwiseMode_t::GELU_FWD));
    Y->set_output(true);
    FE(g.validate());
    FE(g.build_operation_graph(h));
    FE(g.create_execution_plans({fe::HeurMode_t::A}));
    FE(g.check_support());
    FE(g.build_plans());
    int na = Bn * M * K, nb = K * N, ny = Bn * M * N;
    float *a, *b, *bi, *y;
    CK(cudaMalloc(&a, na * 4));
    CK(cudaMalloc(&b, nb * 4));
    CK(cudaMalloc(&bi, N * 4));
    CK(cudaMalloc(&y, ny * 4));
    fill<<<1, 128, 0, s>>>(a, na, 7, 19);
    fill<<<1, 128, 0, s>>>(b, nb, 5, 13);
    fill<<<1, 64, 0, s>>>(bi, N, 3, 11);
    std::unordered_map<std::shared_ptr<fe::graph::Tensor_attributes>, void *> pack = {
        { A, a }, { Bm, b }, { bias, bi }, { Y, y } };
    FE(g.execute(h, pack, nullptr));
    float host[Bn * M * N];
    double want[Bn * M * N];
    CK(cudaMemcpyAsync(host, y, ny * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int t = 0; t < Bn; t++)
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double acc = val(n, 3, 11);
                for (int k = 0; k < K; k++)
                    acc += (double)val((int)((t * M + m) * K + k), 7, 19) * val((int)(k * N + n), 5, 13);
                want[(t * M + m) * N + n] = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
            }
    check("gelu(a b + bias)", host, want, ny, bad);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(bi));
    CK(cudaFree(y));
    return 0;
}

int main()
{
    cudnnHandle_t h;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CD(cudnnCreate(&h));
    CD(cudnnSetStream(h, s));
    int bad = 0;
    if (conv_bias_relu(h, s, &bad) || matmul_bias_gelu(h, s, &bad))
        return 1;
    CD(cudnnDestroy(h));
    CK(cudaStreamDestroy(s));
    std::printf("%s (cudnn-frontend %d.%d: conv + bias + ReLU NHWC 2x3x8x8, matmul 2x5x7 x 7x6 + bias + GELU)\n",
                bad ? "FAIL" : "PASS", CUDNN_FRONTEND_MAJOR_VERSION, CUDNN_FRONTEND_MINOR_VERSION);
    return bad;
}
