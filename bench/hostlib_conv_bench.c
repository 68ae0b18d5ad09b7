/* SPDX-License-Identifier: Apache-2.0 */
/* A convolution forward (N 8, C 64, 56 x 56, K 64, 3 x 3, padding 1, float
 * NCHW) through the host cuDNN on the emulated GPU against the same
 * convolution straight to oneDNN (the primitive the host cuDNN makes:
 * direct algorithm, formats of oneDNN's choosing, reorders from and to
 * plain NCHW memory), side by side: each round times both, the medians of
 * the rounds are compared.
 *   hostlib_conv_bench [ROUNDS]   (default 7) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dnnl.h>

#include "cuda.h"
#include "cudnn_api.h"
#include "td_api.h"

enum { N = 8, C = 64, H = 56, W = 56, K = 64, R = 3 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CK(x) do { int r_ = (int)(x); if (r_) { fprintf(stderr, "%s = %d\n", #x, r_); return 1; } } while (0)

/* oneDNN directly: plain NCHW user memory, reorders to and from the
 * primitive's formats */
struct direct {
    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_primitive_t conv, rx, rw, ry;
    dnnl_memory_t ux, uw, uy, px, pw, py;
};

static int direct_make(struct direct *d, float *x, float *w, float *y)
{
    dnnl_dims_t xd = { N, C, H, W }, wd = { K, C, R, R }, yd = { N, K, H, W }, s = { 1, 1 }, dil = { 0, 0 },
                p = { 1, 1 };
    dnnl_memory_desc_t ux, uw, uy, ax, aw, ay;
    CK(dnnl_engine_create(&d->eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&d->st, d->eng, dnnl_stream_default_flags));
    CK(dnnl_memory_desc_init_by_tag(&ux, 4, xd, dnnl_f32, dnnl_nchw));
    CK(dnnl_memory_desc_init_by_tag(&uw, 4, wd, dnnl_f32, dnnl_oihw));
    CK(dnnl_memory_desc_init_by_tag(&uy, 4, yd, dnnl_f32, dnnl_nchw));
    CK(dnnl_memory_desc_init_by_tag(&ax, 4, xd, dnnl_f32, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&aw, 4, wd, dnnl_f32, dnnl_format_tag_any));
    CK(dnnl_memory_desc_init_by_tag(&ay, 4, yd, dnnl_f32, dnnl_format_tag_any));
    dnnl_convolution_desc_t cd;
    CK(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_training, dnnl_convolution_direct, &ax, &aw, NULL,
                                                  &ay, s, dil, p, p));
    dnnl_primitive_desc_t pd, r;
    CK(dnnl_primitive_desc_create(&pd, &cd, NULL, d->eng, NULL));
    CK(dnnl_primitive_create(&d->conv, pd));
    CK(dnnl_memory_create(&d->ux, &ux, d->eng, x));
    CK(dnnl_memory_create(&d->uw, &uw, d->eng, w));
    CK(dnnl_memory_create(&d->uy, &uy, d->eng, y));
    CK(dnnl_memory_create(&d->px, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), d->eng, DNNL_MEMORY_ALLOCATE));
    CK(dnnl_memory_create(&d->pw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), d->eng,
                          DNNL_MEMORY_ALLOCATE));
    CK(dnnl_memory_create(&d->py, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), d->eng, DNNL_MEMORY_ALLOCATE));
    CK(dnnl_reorder_primitive_desc_create(&r, &ux, d->eng, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0),
                                          d->eng, NULL));
    CK(dnnl_primitive_create(&d->rx, r));
    CK(dnnl_reorder_primitive_desc_create(&r, &uw, d->eng, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
                                          d->eng, NULL));
    CK(dnnl_primitive_create(&d->rw, r));
    CK(dnnl_reorder_primitive_desc_create(&r, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), d->eng, &uy,
                                          d->eng, NULL));
    CK(dnnl_primitive_create(&d->ry, r));
    return 0;
}

static void direct_run(struct direct *d)
{
    dnnl_exec_arg_t a1[2] = { { DNNL_ARG_FROM, d->ux }, { DNNL_ARG_TO, d->px } };
    dnnl_exec_arg_t a2[2] = { { DNNL_ARG_FROM, d->uw }, { DNNL_ARG_TO, d->pw } };
    dnnl_exec_arg_t a3[3] = { { DNNL_ARG_SRC, d->px }, { DNNL_ARG_WEIGHTS, d->pw }, { DNNL_ARG_DST, d->py } };
    dnnl_exec_arg_t a4[2] = { { DNNL_ARG_FROM, d->py }, { DNNL_ARG_TO, d->uy } };
    dnnl_primitive_execute(d->rx, d->st, 2, a1);
    dnnl_primitive_execute(d->rw, d->st, 2, a2);
    dnnl_primitive_execute(d->conv, d->st, 3, a3);
    dnnl_primitive_execute(d->ry, d->st, 2, a4);
    dnnl_stream_wait(d->st);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 5 || rounds > 100)
        return fprintf(stderr, "usage: hostlib_conv_bench [ROUNDS >= 5]\n"), 2;
    size_t nx = (size_t)N * C * H * W, nw = (size_t)K * C * R * R, ny = (size_t)N * K * H * W;
    float *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hy = malloc(ny * 4);
    for (size_t i = 0; i < nx; i++)
        hx[i] = (float)(i % 17) * 0.05f - 0.4f;
    for (size_t i = 0; i < nw; i++)
        hw[i] = (float)(i % 11) * 0.02f - 0.1f;
    cudnnHandle_t h;
    CK(cudnnCreate(&h));
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cv;
    CK(cudnnCreateTensorDescriptor(&xd));
    CK(cudnnCreateTensorDescriptor(&yd));
    CK(cudnnCreateFilterDescriptor(&wd));
    CK(cudnnCreateConvolutionDescriptor(&cv));
    CK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
    CK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, H, W));
    CK(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, R));
    CK(cudnnSetConvolution2dDescriptor(cv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUdeviceptr x, w, y;
    CK(cuMemAlloc_v2(&x, nx * 4));
    CK(cuMemAlloc_v2(&w, nw * 4));
    CK(cuMemAlloc_v2(&y, ny * 4));
    CK(cuMemcpyHtoD_v2(x, hx, nx * 4));
    CK(cuMemcpyHtoD_v2(w, hw, nw * 4));
    struct direct d;
    if (direct_make(&d, hx, hw, hy))
        return 1;
    const float one = 1, zero = 0;
    double tc[100], td[100];
    /* a warm-up of each (oneDNN's JIT, first touch) */
    CK(cudnnConvolutionForward(h, &one, xd, (void *)x, wd, (void *)w, cv, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                               NULL, 0, &zero, yd, (void *)y));
    CK(cuCtxSynchronize());
    direct_run(&d);
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        CK(cudnnConvolutionForward(h, &one, xd, (void *)x, wd, (void *)w, cv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero, yd, (void *)y));
        CK(cuCtxSynchronize());
        double t1 = now();
        direct_run(&d);
        double t2 = now();
        tc[r] = t1 - t0;
        td[r] = t2 - t1;
    }
    qsort(tc, (size_t)rounds, sizeof *tc, cmp);
    qsort(td, (size_t)rounds, sizeof *td, cmp);
    double mc = tc[rounds / 2], md = td[rounds / 2], flop = 2.0 * N * K * H * W * C * R * R;
    printf("convolution forward %dx%dx%dx%d * %dx%dx%dx%d (float NCHW), median of %d rounds each (side by side)\n", N,
           C, H, W, K, C, R, R, rounds);
    printf("  cudnnConvolutionForward on the emulated GPU (call + cuCtxSynchronize): %8.2f ms  %6.2f GFLOP/s\n",
           mc * 1e3, flop / mc * 1e-9);
    printf("  oneDNN straight (reorders, convolution, reorder):                      %8.2f ms  %6.2f GFLOP/s\n",
           md * 1e3, flop / md * 1e-9);
    printf("  ratio emulated cuDNN / oneDNN: %.3f\n", mc / md);
    cudnnDestroy(h);
    return 0;
}
