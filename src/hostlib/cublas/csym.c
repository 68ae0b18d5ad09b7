/* SPDX-License-Identifier: Apache-2.0 */
/* The complex symmetric (not Hermitian) level-2 extensions: csymv/zsymv,
 * csyr/zsyr, csyr2/zsyr2 (and _64), which BLAS lacks: loops on the uplo
 * triangle, in complex double, each result rounded once. */
#include "blas.h"

enum cop { SYMV, SYR, SYR2 };

struct cj {
    struct hl_job h;
    enum bt t;
    enum cop op;
    cublasFillMode_t uplo;
    int64_t n, lda, incx, incy;
    const void *A, *x, *y2;
    void *out;
    struct scal alpha, beta;
};

static size_t vi(int64_t n, int64_t inc, int64_t i)
{
    return (size_t)(inc < 0 ? (n - 1 - i) * -inc : i * inc);
}

/* A[r][c] of the symmetric matrix stored in the uplo triangle */
static void sym(const struct cj *j, int64_t r, int64_t c, double *re, double *im)
{
    int upper = j->uplo == CUBLAS_FILL_MODE_UPPER;
    if ((upper && r > c) || (!upper && r < c)) {
        int64_t t = r;
        r = c;
        c = t;
    }
    blas_ld(j->t, j->A, (size_t)(c * j->lda + r), re, im);
}

static void run_csym(struct hl_job *hj)
{
    struct cj *j = (struct cj *)hj;
    double ar, ai;
    blas_ld(j->t, scal_val(&j->alpha), 0, &ar, &ai);
    if (j->op == SYMV) {
        double br, bi;
        blas_ld(j->t, scal_val(&j->beta), 0, &br, &bi);
        int zb = br == 0 && bi == 0;
        for (int64_t r = 0; r < j->n; r++) {
            double sr = 0, si = 0;
            for (int64_t c = 0; c < j->n; c++) {
                double er, ei, xr, xi;
                sym(j, r, c, &er, &ei);
                blas_ld(j->t, j->x, vi(j->n, j->incx, c), &xr, &xi);
                sr += er * xr - ei * xi;
                si += er * xi + ei * xr;
            }
            double yr = 0, yi = 0;
            if (!zb)
                blas_ld(j->t, j->out, vi(j->n, j->incy, r), &yr, &yi);
            blas_st(j->t, j->out, vi(j->n, j->incy, r), ar * sr - ai * si + br * yr - bi * yi,
                    ar * si + ai * sr + br * yi + bi * yr);
        }
        return;
    }
    /* A += alpha x x^T, or alpha (x y^T + y x^T), on the triangle */
    for (int64_t c = 0; c < j->n; c++) {
        int64_t r0 = j->uplo == CUBLAS_FILL_MODE_UPPER ? 0 : c, r1 = j->uplo == CUBLAS_FILL_MODE_UPPER ? c : j->n - 1;
        for (int64_t r = r0; r <= r1; r++) {
            double xr, xi, xcr, xci, pr, pi, er, ei;
            blas_ld(j->t, j->x, vi(j->n, j->incx, r), &xr, &xi);
            blas_ld(j->t, j->x, vi(j->n, j->incx, c), &xcr, &xci);
            if (j->op == SYR) {
                pr = xr * xcr - xi * xci;
                pi = xr * xci + xi * xcr;
            } else {
                double yr, yi, ycr, yci;
                blas_ld(j->t, j->y2, vi(j->n, j->incy, r), &yr, &yi);
                blas_ld(j->t, j->y2, vi(j->n, j->incy, c), &ycr, &yci);
                pr = xr * ycr - xi * yci + yr * xcr - yi * xci;
                pi = xr * yci + xi * ycr + yr * xci + yi * xcr;
            }
            blas_ld(j->t, j->out, (size_t)(c * j->lda + r), &er, &ei);
            blas_st(j->t, j->out, (size_t)(c * j->lda + r), er + ar * pr - ai * pi, ei + ar * pi + ai * pr);
        }
    }
}

static cublasStatus_t csym(cublasHandle_t h, enum bt t, enum cop op, cublasFillMode_t uplo, int64_t n,
                           const void *alpha, const void *A, int64_t lda, const void *x, int64_t incx,
                           const void *beta, const void *y2, void *out, int64_t incy)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    if (!fill_ok(uplo) || n < 0 || lda < (n > 1 ? n : 1) || incx == 0 || (op != SYR && incy == 0))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct cj *j = hl_job_new(sizeof *j, run_csym);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    j->t = t;
    j->op = op;
    j->uplo = uplo;
    j->n = n;
    j->lda = lda;
    j->incx = incx;
    j->incy = incy;
    j->A = op == SYMV ? A : out;
    j->x = x;
    j->y2 = y2;
    j->out = out;
    int bad = scal_take(&j->h, h, alpha, es, &j->alpha);
    if (op == SYMV) {
        bad |= scal_take(&j->h, h, beta, es, &j->beta);
        bad |= blas_hold(&j->h, A, hl_mat_bytes(n, n, lda, es));
        bad |= blas_hold(&j->h, out, hl_vec_bytes(n, incy, es));
    } else {
        bad |= blas_hold(&j->h, out, hl_mat_bytes(n, n, lda, es));
        if (op == SYR2)
            bad |= blas_hold(&j->h, y2, hl_vec_bytes(n, incy, es));
    }
    bad |= blas_hold(&j->h, x, hl_vec_bytes(n, incx, es));
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    return blas_submit(h, &j->h, 0);
}

#define CSYM(P, T, BT, I, S)                                                                             \
    HL_EXPORT cublasStatus_t cublas##P##symv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha, \
                                                const T *A, I lda, const T *x, I incx, const T *beta, T *y, \
                                                I incy)                                                    \
    {                                                                                                      \
        return csym(h, BT, SYMV, uplo, n, alpha, A, lda, x, incx, beta, NULL, y, incy);                    \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##syr##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha, \
                                               const T *x, I incx, T *A, I lda)                            \
    {                                                                                                      \
        return csym(h, BT, SYR, uplo, n, alpha, NULL, lda, x, incx, NULL, NULL, A, 1);                     \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##syr2##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha, \
                                                const T *x, I incx, const T *y, I incy, T *A, I lda)       \
    {                                                                                                      \
        return csym(h, BT, SYR2, uplo, n, alpha, NULL, lda, x, incx, NULL, y, A, incy);                    \
    }
CSYM(C, cuComplex, BT_C, int, _v2)
CSYM(Z, cuDoubleComplex, BT_Z, int, _v2)
CSYM(C, cuComplex, BT_C, int64_t, _v2_64)
CSYM(Z, cuDoubleComplex, BT_Z, int64_t, _v2_64)
