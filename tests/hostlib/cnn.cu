/* SPDX-License-Identifier: Apache-2.0 */
// cuDNN from NVIDIA's own header (cudnn.h), linked against NVIDIA's
// libcudnn.so.9 and run with the host implementation in its place: a small
// CNN layer on NHWC float tensors as a framework runs it — kernels of the
// program's own fill the input and the filter, then the heuristics'
// algorithm and its workspace, cudnnConvolutionForward, cudnnAddTensor
// (bias), cudnnActivationForward (ReLU), cudnnPoolingForward (2x2 max),
// cudnnSoftmaxForward (channels), and a kernel of its own after them, on
// one stream with events; every value against a host computation in double
// (tolerance 1e-4 relative to 1 + |reference|).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cudnn.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); return 1; } } while (0)
#define CD(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); return 1; } } while (0)

const int N = 2, C = 3, H = 8, W = 8, K = 4, R = 3;

__host__ __device__ static float xval(int i) { return (float)((i * 7 % 19) - 9) / 16.0f; }
__host__ __device__ static float wval(int i) { return (float)((i * 5 % 13) - 6) / 32.0f; }

__global__ void fill(float *x, int nx, float *w, int nw, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) x[i] = xval(i);
    if (i < nw) w[i] = wval(i);
    if (i < K) b[i] = 0.25f * (float)(i - 1);
}

__global__ void twice(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 2.0f;
}

int main()
{
    cudnnHandle_t h;
    CD(cudnnCreate(&h));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CD(cudnnSetStream(h, s));
    cudnnTensorDescriptor_t xd, yd, bd, pd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cv;
    cudnnActivationDescriptor_t ad;
    cudnnPoolingDescriptor_t pool;
    CD(cudnnCreateTensorDescriptor(&xd));
    CD(cudnnCreateTensorDescriptor(&yd));
    CD(cudnnCreateTensorDescriptor(&bd));
    CD(cudnnCreateTensorDescriptor(&pd));
    CD(cudnnCreateFilterDescriptor(&wd));
    CD(cudnnCreateConvolutionDescriptor(&cv));
    CD(cudnnCreateActivationDescriptor(&ad));
    CD(cudnnCreatePoolingDescriptor(&pool));
    CD(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, H, W));
    CD(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, K, C, R, R));
    CD(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CD(cudnnSetConvolutionMathType(cv, CUDNN_FMA_MATH));
    int on, oc, oh, ow;
    CD(cudnnGetConvolution2dForwardOutputDim(cv, xd, wd, &on, &oc, &oh, &ow));
    CD(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, on, oc, oh, ow));
    CD(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1));
    CD(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    CD(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    int pn, pc, ph, pw;
    CD(cudnnGetPooling2dForwardOutputDim(pool, yd, &pn, &pc, &ph, &pw));
    CD(cudnnSetTensor4dDescriptor(pd, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, pn, pc, ph, pw));
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int got = 0;
    CD(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cv, yd, 8, &got, perf));
    size_t wsize = 0;
    CD(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cv, yd, perf[0].algo, &wsize));

    const int nx = N * C * H * W, nw = K * C * R * R, ny = on * oc * oh * ow, np = pn * pc * ph * pw;
    float *x, *w, *b, *y, *p, *sm;
    void *ws = nullptr;
    CK(cudaMalloc(&x, nx * sizeof(float)));
    CK(cudaMalloc(&w, nw * sizeof(float)));
    CK(cudaMalloc(&b, K * sizeof(float)));
    CK(cudaMalloc(&y, ny * sizeof(float)));
    CK(cudaMalloc(&p, np * sizeof(float)));
    CK(cudaMalloc(&sm, np * sizeof(float)));
    if (wsize)
        CK(cudaMalloc(&ws, wsize));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    fill<<<(nx + 127) / 128, 128, 0, s>>>(x, nx, w, nw, b);
    CK(cudaEventRecord(e0, s));
    const float one = 1, zero = 0;
    CD(cudnnConvolutionForward(h, &one, xd, x, wd, w, cv, perf[0].algo, ws, wsize, &zero, yd, y));
    CD(cudnnAddTensor(h, &one, bd, b, &one, yd, y));
    CD(cudnnActivationForward(h, ad, &one, yd, y, &zero, yd, y));
    CD(cudnnPoolingForward(h, pool, &one, yd, y, &zero, pd, p));
    CD(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, pd, p, &zero, pd, sm));
    CK(cudaEventRecord(e1, s));
    twice<<<(np + 127) / 128, 128, 0, s>>>(sm, np);
    CK(cudaStreamSynchronize(s));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    float *hs = (float *)std::malloc(np * sizeof(float));
    CK(cudaMemcpy(hs, sm, np * sizeof(float), cudaMemcpyDeviceToHost));

    // the host: NHWC everywhere (x[n][h][w][c], w[k][r][s][c])
    double *ref_y = (double *)std::malloc(ny * sizeof(double));
    for (int n = 0; n < N; n++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++)
                for (int k = 0; k < K; k++) {
                    double acc = 0.25 * (k - 1);
                    for (int r = 0; r < R; r++)
                        for (int q = 0; q < R; q++)
                            for (int c = 0; c < C; c++) {
                                int ii = i - 1 + r, jj = j - 1 + q;
                                if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
                                acc += (double)xval(((n * H + ii) * W + jj) * C + c) * wval(((k * R + r) * R + q) * C + c);
                            }
                    ref_y[((n * H + i) * W + j) * K + k] = acc > 0 ? acc : 0;
                }
    int bad = 0;
    for (int n = 0; n < pn && !bad; n++)
        for (int i = 0; i < ph && !bad; i++)
            for (int j = 0; j < pw && !bad; j++) {
                double v[K], mx = -1e300, sum = 0;
                for (int k = 0; k < K; k++) {
                    v[k] = -1e300;
                    for (int a = 0; a < 2; a++)
                        for (int c = 0; c < 2; c++)
                            v[k] = std::fmax(v[k], ref_y[((n * H + 2 * i + a) * W + 2 * j + c) * K + k]);
                    mx = std::fmax(mx, v[k]);
                }
                for (int k = 0; k < K; k++) sum += std::exp(v[k] - mx);
                for (int k = 0; k < K; k++) {
                    double want = 2 * std::exp(v[k] - mx) / sum, g = hs[((n * ph + i) * pw + j) * K + k];
                    if (std::fabs(g - want) > 1e-4 * (1 + std::fabs(want))) {
                        std::printf("softmax[%d][%d][%d][%d] = %g, expected %g\n", n, k, i, j, g, want);
                        bad = 1;
                        break;
                    }
                }
            }
    std::free(hs);
    std::free(ref_y);
    CD(cudnnDestroyTensorDescriptor(xd));
    CD(cudnnDestroyTensorDescriptor(yd));
    CD(cudnnDestroyTensorDescriptor(bd));
    CD(cudnnDestroyTensorDescriptor(pd));
    CD(cudnnDestroyFilterDescriptor(wd));
    CD(cudnnDestroyConvolutionDescriptor(cv));
    CD(cudnnDestroyActivationDescriptor(ad));
    CD(cudnnDestroyPoolingDescriptor(pool));
    CD(cudnnDestroy(h));
    CK(cudaFree(x));
    CK(cudaFree(w));
    CK(cudaFree(b));
    CK(cudaFree(y));
    CK(cudaFree(p));
    CK(cudaFree(sm));
    if (ws)
        CK(cudaFree(ws));
    std::printf("%s (conv %dx%dx%dx%d NHWC, algorithm %d, workspace %zu, bias, relu, max pool, softmax; events %.3f ms)\n",
                bad ? "FAIL" : "PASS", N, C, H, W, (int)perf[0].algo, wsize, ms);
    return bad;
}
