/* SPDX-License-Identifier: Apache-2.0 */
/* bench/ptx_c.c: plain C versions of issue 22's kernels */
#ifndef PTX_C_H
#define PTX_C_H
void c_threads(int n); /* OpenMP threads; 0: all cores */
void c_saxpy(int n, float a, const float *x, float *y);
float c_reduce(const float *in, int n);
void c_sgemm_naive(int n, const float *a, const float *b, float *c);
void c_sgemm_tiled(int n, const float *a, const float *b, float *c);
void c_mandelbrot(int w, int h, int maxit, int *out);
void c_warp_reduce(const float *in, float *out, int nblocks, int per);
#endif
