/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS level 1: vector operations in S, D, C, Z on CBLAS. */
#include "blas.h"

enum l1op { AXPY, COPY, SCAL, RSCAL, SWAP, AMAX, AMIN, ASUM, NRM2, DOT, DOTC, ROT, CROT, ROTM, ROTG, ROTMG };

struct l1 {
    struct hl_job h;
    enum bt t;
    enum l1op op;
    int n, incx, incy;
    void *x, *y;
    struct scal a, b;   /* alpha; c and s of a rotation */
    void *res;          /* result (and rotg/rotmg's a, b, c, s / d1, d2, x1, y1, param) */
    void *p[4];
    size_t ressz;       /* an index result: 4 (int) or 8 (int64_t) bytes */
    _Alignas(8) unsigned char param[5 * 8];   /* rotm's param in host pointer mode, read at the call */
};

static void put_index(struct l1 *j, size_t i)
{
    if (j->ressz == 8) {
        int64_t v = (int64_t)i;
        memcpy(j->res, &v, 8);
    } else {
        int v = (int)i;
        memcpy(j->res, &v, 4);
    }
}

/* index of the first largest/smallest |re|+|im| (1-based), as BLAS */
static size_t amax(const struct l1 *j)
{
    if (j->n <= 0 || j->incx <= 0)
        return 0;
    switch (j->t) {
    case BT_S: return (j->op == AMAX ? cblas_isamax : cblas_isamin)(j->n, j->x, j->incx) + 1;
    case BT_D: return (j->op == AMAX ? cblas_idamax : cblas_idamin)(j->n, j->x, j->incx) + 1;
    case BT_C: return (j->op == AMAX ? cblas_icamax : cblas_icamin)(j->n, j->x, j->incx) + 1;
    case BT_Z: return (j->op == AMAX ? cblas_izamax : cblas_izamin)(j->n, j->x, j->incx) + 1;
    }
    return 0;
}

/* x = c x + s y, y = c y - conj(s) x with c real and s complex */
static void crot(struct l1 *j)
{
    long ix = j->incx < 0 ? (long)(1 - j->n) * j->incx : 0;
    long iy = j->incy < 0 ? (long)(1 - j->n) * j->incy : 0;
    if (j->t == BT_C) {
        float c = *(const float *)scal_val(&j->a);
        const float *s = scal_val(&j->b);
        float *x = j->x, *y = j->y;
        for (int i = 0; i < j->n; i++, ix += j->incx, iy += j->incy) {
            float xr = x[2 * ix], xi = x[2 * ix + 1], yr = y[2 * iy], yi = y[2 * iy + 1];
            x[2 * ix] = c * xr + (s[0] * yr - s[1] * yi);
            x[2 * ix + 1] = c * xi + (s[0] * yi + s[1] * yr);
            y[2 * iy] = c * yr - (s[0] * xr + s[1] * xi);
            y[2 * iy + 1] = c * yi - (s[0] * xi - s[1] * xr);
        }
    } else {
        double c = *(const double *)scal_val(&j->a);
        const double *s = scal_val(&j->b);
        double *x = j->x, *y = j->y;
        for (int i = 0; i < j->n; i++, ix += j->incx, iy += j->incy) {
            double xr = x[2 * ix], xi = x[2 * ix + 1], yr = y[2 * iy], yi = y[2 * iy + 1];
            x[2 * ix] = c * xr + (s[0] * yr - s[1] * yi);
            x[2 * ix + 1] = c * xi + (s[0] * yi + s[1] * yr);
            y[2 * iy] = c * yr - (s[0] * xr + s[1] * xi);
            y[2 * iy + 1] = c * yi - (s[0] * xi - s[1] * xr);
        }
    }
}

static void run_l1(struct hl_job *hj)
{
    struct l1 *j = (struct l1 *)hj;
    const void *a = scal_val(&j->a);
    int n = j->n, ix = j->incx, iy = j->incy;
    switch (j->op) {
    case AXPY:
        switch (j->t) {
        case BT_S: cblas_saxpy(n, *(const float *)a, j->x, ix, j->y, iy); break;
        case BT_D: cblas_daxpy(n, *(const double *)a, j->x, ix, j->y, iy); break;
        case BT_C: cblas_caxpy(n, a, j->x, ix, j->y, iy); break;
        case BT_Z: cblas_zaxpy(n, a, j->x, ix, j->y, iy); break;
        }
        break;
    case COPY:
        switch (j->t) {
        case BT_S: cblas_scopy(n, j->x, ix, j->y, iy); break;
        case BT_D: cblas_dcopy(n, j->x, ix, j->y, iy); break;
        case BT_C: cblas_ccopy(n, j->x, ix, j->y, iy); break;
        case BT_Z: cblas_zcopy(n, j->x, ix, j->y, iy); break;
        }
        break;
    case SWAP:
        switch (j->t) {
        case BT_S: cblas_sswap(n, j->x, ix, j->y, iy); break;
        case BT_D: cblas_dswap(n, j->x, ix, j->y, iy); break;
        case BT_C: cblas_cswap(n, j->x, ix, j->y, iy); break;
        case BT_Z: cblas_zswap(n, j->x, ix, j->y, iy); break;
        }
        break;
    case SCAL:
        switch (j->t) {
        case BT_S: cblas_sscal(n, *(const float *)a, j->x, ix); break;
        case BT_D: cblas_dscal(n, *(const double *)a, j->x, ix); break;
        case BT_C: cblas_cscal(n, a, j->x, ix); break;
        case BT_Z: cblas_zscal(n, a, j->x, ix); break;
        }
        break;
    case RSCAL:
        if (j->t == BT_C)
            cblas_csscal(n, *(const float *)a, j->x, ix);
        else
            cblas_zdscal(n, *(const double *)a, j->x, ix);
        break;
    case AMAX:
    case AMIN:
        put_index(j, amax(j));
        break;
    case ASUM:
    case NRM2: {
        int asum = j->op == ASUM;
        switch (j->t) {
        case BT_S: *(float *)j->res = asum ? cblas_sasum(n, j->x, ix) : cblas_snrm2(n, j->x, ix); break;
        case BT_D: *(double *)j->res = asum ? cblas_dasum(n, j->x, ix) : cblas_dnrm2(n, j->x, ix); break;
        case BT_C: *(float *)j->res = asum ? cblas_scasum(n, j->x, ix) : cblas_scnrm2(n, j->x, ix); break;
        case BT_Z: *(double *)j->res = asum ? cblas_dzasum(n, j->x, ix) : cblas_dznrm2(n, j->x, ix); break;
        }
        break;
    }
    case DOT:
    case DOTC:
        switch (j->t) {
        case BT_S: *(float *)j->res = cblas_sdot(n, j->x, ix, j->y, iy); break;
        case BT_D: *(double *)j->res = cblas_ddot(n, j->x, ix, j->y, iy); break;
        case BT_C: (j->op == DOT ? cblas_cdotu_sub : cblas_cdotc_sub)(n, j->x, ix, j->y, iy, j->res); break;
        case BT_Z: (j->op == DOT ? cblas_zdotu_sub : cblas_zdotc_sub)(n, j->x, ix, j->y, iy, j->res); break;
        }
        break;
    case ROT: {
        const void *s = scal_val(&j->b);
        switch (j->t) {
        case BT_S: cblas_srot(n, j->x, ix, j->y, iy, *(const float *)a, *(const float *)s); break;
        case BT_D: cblas_drot(n, j->x, ix, j->y, iy, *(const double *)a, *(const double *)s); break;
        case BT_C: cblas_csrot(n, j->x, ix, j->y, iy, *(const float *)a, *(const float *)s); break;
        case BT_Z: cblas_zdrot(n, j->x, ix, j->y, iy, *(const double *)a, *(const double *)s); break;
        }
        break;
    }
    case CROT:
        if (n > 0)
            crot(j);
        break;
    case ROTM:
        if (j->t == BT_S)
            cblas_srotm(n, j->x, ix, j->y, iy, j->p[0]);
        else
            cblas_drotm(n, j->x, ix, j->y, iy, j->p[0]);
        break;
    case ROTG:
        switch (j->t) {
        case BT_S: cblas_srotg(j->p[0], j->p[1], j->p[2], j->p[3]); break;
        case BT_D: cblas_drotg(j->p[0], j->p[1], j->p[2], j->p[3]); break;
        case BT_C: cblas_crotg(j->p[0], j->p[1], j->p[2], j->p[3]); break;
        case BT_Z: cblas_zrotg(j->p[0], j->p[1], j->p[2], j->p[3]); break;
        }
        break;
    case ROTMG:
        if (j->t == BT_S)
            cblas_srotmg(j->p[0], j->p[1], j->p[2], *(const float *)j->p[3], j->res);
        else
            cblas_drotmg(j->p[0], j->p[1], j->p[2], *(const double *)j->p[3], j->res);
        break;
    }
}

/* the common path: handle, sizes, operands; then the job */
static cublasStatus_t l1(cublasHandle_t h, enum bt t, enum l1op op, int64_t n, const void *alpha,
                         const void *x, int64_t incx, const void *y, int64_t incy, const void *c,
                         const void *s, void *res, size_t ressz)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    int has_y = op == AXPY || op == COPY || op == SWAP || op == DOT || op == DOTC || op == ROT ||
                op == CROT || op == ROTM;
    int has_res = op == AMAX || op == AMIN || op == ASUM || op == NRM2 || op == DOT || op == DOTC;
    if (has_res && !res)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!fits(n) || !fits(incx) || !fits(incy))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    hl_note("OpenBLAS level 1"); /* tdtrace -e lib= shows it */
    struct l1 *j = hl_job_new(sizeof *j, run_l1);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->t = t;
    j->op = op;
    j->n = (int)(n > 0 ? n : 0);
    j->incx = (int)incx;
    j->incy = (int)incy;
    j->x = (void *)x;
    j->y = (void *)y;
    j->res = res;
    j->ressz = ressz;
    size_t es = bt_size[t], rs = bt_rsize[t];
    int wait = 0, bad = 0;
    if (op == SCAL || op == AXPY)
        bad |= scal_take(&j->h, h, alpha, es, &j->a);
    if (op == RSCAL)
        bad |= scal_take(&j->h, h, alpha, rs, &j->a);
    if (op == ROT || op == CROT) {
        bad |= scal_take(&j->h, h, c, rs, &j->a);
        bad |= scal_take(&j->h, h, s, op == CROT ? es : rs, &j->b);
    }
    if (op == ROTM) {
        j->p[0] = (void *)c;
        if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
            bad |= blas_hold(&j->h, c, 5 * (int64_t)es);
        else if (!c || 5 * es > sizeof j->param)
            bad = 1;
        else { /* a host scalar: read at the call, as the others are */
            memcpy(j->param, c, 5 * es);
            j->p[0] = j->param;
        }
    }
    if (has_res)
        bad |= result_take(&j->h, h, res, op == AMAX || op == AMIN ? ressz : (op == DOT || op == DOTC ? es : rs),
                           &wait);
    if (n > 0) {
        bad |= blas_hold(&j->h, x, hl_vec_bytes(n, incx, es));
        if (has_y)
            bad |= blas_hold(&j->h, y, hl_vec_bytes(n, incy, es));
    }
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (n <= 0 && !has_res) {
        hl_job_free(&j->h); /* nothing to do */
        return CUBLAS_STATUS_SUCCESS;
    }
    return blas_submit(h, &j->h, wait);
}

/* rotg and rotmg: four or five scalars, all in host or all in device memory */
static cublasStatus_t l1_scalars(cublasHandle_t h, enum bt t, enum l1op op, void *p0, void *p1, void *p2,
                                 const void *p3, void *param)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    hl_note("OpenBLAS level 1"); /* tdtrace -e lib= shows it */
    struct l1 *j = hl_job_new(sizeof *j, run_l1);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->t = t;
    j->op = op;
    j->p[0] = p0;
    j->p[1] = p1;
    j->p[2] = p2;
    j->p[3] = (void *)p3;
    j->res = param;
    size_t es = bt_size[t], rs = bt_rsize[t];
    size_t sz[4] = { es, es, op == ROTG ? rs : es, es };
    int bad = 0, dev = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
    for (int i = 0; i < 4; i++)
        bad |= dev ? blas_hold(&j->h, j->p[i], (int64_t)sz[i]) : !j->p[i];
    if (op == ROTMG)
        bad |= dev ? blas_hold(&j->h, param, 5 * (int64_t)es) : !param;
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    return blas_submit(h, &j->h, !dev);
}

/* ---- entry points ------------------------------------------------------ */
#define L1_ALL(P, p, T, BT, I, S)                                                                        \
    HL_EXPORT cublasStatus_t cublas##P##axpy##S(cublasHandle_t h, I n, const T *alpha, const T *x, I incx, \
                                                T *y, I incy)                                              \
    {                                                                                                      \
        return l1(h, BT, AXPY, n, alpha, x, incx, y, incy, NULL, NULL, NULL, 0);                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##copy##S(cublasHandle_t h, I n, const T *x, I incx, T *y, I incy)   \
    {                                                                                                      \
        return l1(h, BT, COPY, n, NULL, x, incx, y, incy, NULL, NULL, NULL, 0);                            \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##scal##S(cublasHandle_t h, I n, const T *alpha, T *x, I incx)       \
    {                                                                                                      \
        return l1(h, BT, SCAL, n, alpha, x, incx, NULL, 0, NULL, NULL, NULL, 0);                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##swap##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy)         \
    {                                                                                                      \
        return l1(h, BT, SWAP, n, NULL, x, incx, y, incy, NULL, NULL, NULL, 0);                            \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasI##p##amax##S(cublasHandle_t h, I n, const T *x, I incx, I *result)     \
    {                                                                                                      \
        return l1(h, BT, AMAX, n, NULL, x, incx, NULL, 0, NULL, NULL, result, sizeof(I));                  \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasI##p##amin##S(cublasHandle_t h, I n, const T *x, I incx, I *result)     \
    {                                                                                                      \
        return l1(h, BT, AMIN, n, NULL, x, incx, NULL, 0, NULL, NULL, result, sizeof(I));                  \
    }
L1_ALL(S, s, float, BT_S, int, _v2)
L1_ALL(D, d, double, BT_D, int, _v2)
L1_ALL(C, c, cuComplex, BT_C, int, _v2)
L1_ALL(Z, z, cuDoubleComplex, BT_Z, int, _v2)
L1_ALL(S, s, float, BT_S, int64_t, _v2_64)
L1_ALL(D, d, double, BT_D, int64_t, _v2_64)
L1_ALL(C, c, cuComplex, BT_C, int64_t, _v2_64)
L1_ALL(Z, z, cuDoubleComplex, BT_Z, int64_t, _v2_64)

#define L1_REAL(P, T, BT, I, S)                                                                          \
    HL_EXPORT cublasStatus_t cublas##P##asum##S(cublasHandle_t h, I n, const T *x, I incx, T *result)      \
    {                                                                                                      \
        return l1(h, BT, ASUM, n, NULL, x, incx, NULL, 0, NULL, NULL, result, 0);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##nrm2##S(cublasHandle_t h, I n, const T *x, I incx, T *result)      \
    {                                                                                                      \
        return l1(h, BT, NRM2, n, NULL, x, incx, NULL, 0, NULL, NULL, result, 0);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##dot##S(cublasHandle_t h, I n, const T *x, I incx, const T *y,      \
                                               I incy, T *result)                                          \
    {                                                                                                      \
        return l1(h, BT, DOT, n, NULL, x, incx, y, incy, NULL, NULL, result, 0);                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy,          \
                                               const T *c, const T *s)                                     \
    {                                                                                                      \
        return l1(h, BT, ROT, n, NULL, x, incx, y, incy, c, s, NULL, 0);                                   \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##rotm##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy,         \
                                                const T *param)                                            \
    {                                                                                                      \
        return l1(h, BT, ROTM, n, NULL, x, incx, y, incy, param, NULL, NULL, 0);                           \
    }
L1_REAL(S, float, BT_S, int, _v2)
L1_REAL(D, double, BT_D, int, _v2)
L1_REAL(S, float, BT_S, int64_t, _v2_64)
L1_REAL(D, double, BT_D, int64_t, _v2_64)

#define L1_CPLX(P, p, RP, rp, T, R, BT, I, S)                                                            \
    HL_EXPORT cublasStatus_t cublas##RP##p##asum##S(cublasHandle_t h, I n, const T *x, I incx, R *result)  \
    {                                                                                                      \
        return l1(h, BT, ASUM, n, NULL, x, incx, NULL, 0, NULL, NULL, result, 0);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##RP##p##nrm2##S(cublasHandle_t h, I n, const T *x, I incx, R *result)  \
    {                                                                                                      \
        return l1(h, BT, NRM2, n, NULL, x, incx, NULL, 0, NULL, NULL, result, 0);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##dotu##S(cublasHandle_t h, I n, const T *x, I incx, const T *y,     \
                                                I incy, T *result)                                         \
    {                                                                                                      \
        return l1(h, BT, DOT, n, NULL, x, incx, y, incy, NULL, NULL, result, 0);                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##dotc##S(cublasHandle_t h, I n, const T *x, I incx, const T *y,     \
                                                I incy, T *result)                                         \
    {                                                                                                      \
        return l1(h, BT, DOTC, n, NULL, x, incx, y, incy, NULL, NULL, result, 0);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy,          \
                                               const R *c, const T *s)                                     \
    {                                                                                                      \
        return l1(h, BT, CROT, n, NULL, x, incx, y, incy, c, s, NULL, 0);                                  \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##rp##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy,      \
                                                   const R *c, const R *s)                                 \
    {                                                                                                      \
        return l1(h, BT, ROT, n, NULL, x, incx, y, incy, c, s, NULL, 0);                                   \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##rp##scal##S(cublasHandle_t h, I n, const R *alpha, T *x, I incx)   \
    {                                                                                                      \
        return l1(h, BT, RSCAL, n, alpha, x, incx, NULL, 0, NULL, NULL, NULL, 0);                          \
    }
L1_CPLX(C, c, S, s, cuComplex, float, BT_C, int, _v2)
L1_CPLX(Z, z, D, d, cuDoubleComplex, double, BT_Z, int, _v2)
L1_CPLX(C, c, S, s, cuComplex, float, BT_C, int64_t, _v2_64)
L1_CPLX(Z, z, D, d, cuDoubleComplex, double, BT_Z, int64_t, _v2_64)

HL_EXPORT cublasStatus_t cublasSrotg_v2(cublasHandle_t h, float *a, float *b, float *c, float *s)
{
    return l1_scalars(h, BT_S, ROTG, a, b, c, s, NULL);
}
HL_EXPORT cublasStatus_t cublasDrotg_v2(cublasHandle_t h, double *a, double *b, double *c, double *s)
{
    return l1_scalars(h, BT_D, ROTG, a, b, c, s, NULL);
}
HL_EXPORT cublasStatus_t cublasCrotg_v2(cublasHandle_t h, cuComplex *a, cuComplex *b, float *c, cuComplex *s)
{
    return l1_scalars(h, BT_C, ROTG, a, b, c, s, NULL);
}
HL_EXPORT cublasStatus_t cublasZrotg_v2(cublasHandle_t h, cuDoubleComplex *a, cuDoubleComplex *b, double *c,
                                        cuDoubleComplex *s)
{
    return l1_scalars(h, BT_Z, ROTG, a, b, c, s, NULL);
}
HL_EXPORT cublasStatus_t cublasSrotmg_v2(cublasHandle_t h, float *d1, float *d2, float *x1, const float *y1,
                                         float *param)
{
    return l1_scalars(h, BT_S, ROTMG, d1, d2, x1, y1, param);
}
HL_EXPORT cublasStatus_t cublasDrotmg_v2(cublasHandle_t h, double *d1, double *d2, double *x1, const double *y1,
                                         double *param)
{
    return l1_scalars(h, BT_D, ROTMG, d1, d2, x1, y1, param);
}
