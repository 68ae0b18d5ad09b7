/* SPDX-License-Identifier: Apache-2.0 */
/* Plain C versions of issue 22's five kernels, the yardstick of the PTX
 * engines (bench/ptx_bench.c "engines"): the same algorithms and the same
 * float operations in the same order as the PTX in ptx_bench.c (fmaf where
 * the PTX has fma; built with -ffp-contract=off so nothing else fuses), so
 * the results are bit-equal to the engines'. Built by bench/ptx.sh with
 * -O3 -march=native -fopenmp -ffp-contract=off; OpenMP's thread count is
 * the caller's (omp_set_num_threads). */
#include <math.h>
#include <omp.h>
#include <stddef.h>

#include "ptx_c.h"

void c_threads(int n)
{
    omp_set_num_threads(n > 0 ? n : omp_get_num_procs());
}

/* y = x*a + (y*y + x), as the PTX's two fma */
void c_saxpy(int n, float a, const float *x, float *y)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) y[i] = fmaf(x[i], a, fmaf(y[i], y[i], x[i]));
}

/* blocks of 512 elements: a pair sum per thread of 256, then the tree of
 * the shared memory; the block sums added up (the PTX: a float atomic) */
float c_reduce(const float *in, int n)
{
    float total = 0;
    int nb = (n + 511) / 512;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (int b = 0; b < nb; b++) {
        float s[256];
        for (int t = 0; t < 256; t++) {
            int i = b * 512 + t;
            float v = i < n ? in[i] : 0.0f;
            if (i + 256 < n) v += in[i + 256];
            s[t] = v;
        }
        for (int h = 128; h > 0; h >>= 1)
            for (int t = 0; t < h; t++) s[t] = s[t + h] + s[t];
        total += s[0];
    }
    return total;
}

/* c[r][col] = sum over k in order of a[r][k] b[k][col] */
void c_sgemm_naive(int n, const float *a, const float *b, float *c)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            float acc = 0;
            for (int k = 0; k < n; k++) acc = fmaf(a[r * n + k], b[k * n + col], acc);
            c[r * n + col] = acc;
        }
}

/* 16x16 tiles (n a multiple of 16): each row tile's 16 rows take the k
 * tile's products into 16 accumulators per row (k in order, as the PTX) */
void c_sgemm_tiled(int n, const float *a, const float *b, float *c)
{
    enum { T = 16 };
    int nt = n / T;
#pragma omp parallel for schedule(static) collapse(2)
    for (int bi = 0; bi < nt; bi++)
        for (int bj = 0; bj < nt; bj++) {
            float acc[T][T] = { { 0 } };
            for (int kt = 0; kt < n; kt += T)
                for (int i = 0; i < T; i++)
                    for (int k = 0; k < T; k++) {
                        float av = a[(bi * T + i) * n + kt + k];
                        const float *brow = b + (size_t)(kt + k) * n + bj * T;
                        for (int j = 0; j < T; j++) acc[i][j] = fmaf(av, brow[j], acc[i][j]);
                    }
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++) c[(bi * T + i) * n + bj * T + j] = acc[i][j];
        }
}

/* escape counts of z = z^2 + c over [-2, 1] x [-1.5, 1.5], the PTX's
 * operations */
void c_mandelbrot(int w, int h, int maxit, int *out)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int it = 0;
            if (maxit >= 1) {
                float ci = (float)y * 3.0f / (float)h + -1.5f;
                float cr = (float)x * 3.0f / (float)w + -2.0f;
                float zr2 = 0, zi2 = 0, zi = 0, zr = 0, m;
                do {
                    float nzr = cr + (zr2 - zi2);
                    zi = fmaf(zr + zr, zi, ci);
                    it++;
                    zr2 = nzr * nzr;
                    zi2 = zi * zi;
                    m = zr2 + zi2;
                    zr = nzr;
                } while (it < maxit && m < 4.0f);
            }
            out[y * w + x] = it;
        }
}

/* the warp-shuffle block reduction: blocks of 256 threads, each summing
 * per elements a block's stride apart, then each warp's tree (shfl.sync.down
 * 16, 8, 4, 2, 1), then the first warp's tree of the 8 partials (4, 2, 1);
 * out[block] the block's sum, the PTX's additions in its order */
void c_warp_reduce(const float *in, float *out, int nblocks, int per)
{
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nblocks; b++) {
        float v[256], p[32];
        for (int t = 0; t < 256; t++) {
            float s = 0;
            for (int i = 0; i < per; i++) s = s + in[(size_t)b * 256 * per + (size_t)i * 256 + t];
            v[t] = s;
        }
        for (int w = 0; w < 8; w++) {
            float *l = v + w * 32;
            for (int off = 16; off > 0; off >>= 1) {
                float n[32];
                for (int i = 0; i < 32; i++) n[i] = l[i] + (i + off < 32 ? l[i + off] : l[i]);
                for (int i = 0; i < 32; i++) l[i] = n[i];
            }
            p[w] = l[0];
        }
        for (int i = 8; i < 32; i++) p[i] = 0;
        for (int off = 4; off > 0; off >>= 1) {
            float n[32];
            for (int i = 0; i < 32; i++) n[i] = p[i] + (i + off < 32 ? p[i + off] : p[i]);
            for (int i = 0; i < 32; i++) p[i] = n[i];
        }
        out[b] = p[0];
    }
}
