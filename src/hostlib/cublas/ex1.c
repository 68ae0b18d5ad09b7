/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS's level-1 extensions with data types as arguments: AxpyEx,
 * DotEx, DotcEx, Nrm2Ex, AsumEx, ScalEx, IamaxEx, IaminEx, CopyEx, SwapEx,
 * RotEx (and their _64 forms), on half, bfloat16, float, double and complex
 * float and double data.
 *
 * Types: x and y have one data type; the execution type is float for half,
 * bfloat16 and float data, double for double, complex float or complex
 * double for complex data; alpha (and RotEx's c and s) is of the execution
 * type (RotEx's c and s may also be its real counterpart); Dot's result is of
 * the data type, Nrm2's and Asum's of its real counterpart (half and
 * bfloat16 data: the data type). Anything else is
 * CUBLAS_STATUS_NOT_SUPPORTED. Arithmetic is in double (complex double),
 * each result rounded once to its type. */
#include "blas.h"

#include <math.h>

enum exop { AXPY, DOT, DOTC, NRM2, ASUM, SCAL, AMAX, AMIN, COPY, SWAP, ROT };

struct dt {
    int ok, cplx, half, bf16;
    size_t size;
};

static struct dt dt_of(cudaDataType t)
{
    struct dt d = { 1, 0, 0, 0, 0 };
    switch ((int)t) {
    case CUDA_R_16F: d.half = 1; d.size = 2; break;
    case CUDA_R_16BF: d.bf16 = 1; d.size = 2; break;
    case CUDA_R_32F: d.size = 4; break;
    case CUDA_R_64F: d.size = 8; break;
    case CUDA_C_32F: d.cplx = 1; d.size = 8; break;
    case CUDA_C_64F: d.cplx = 1; d.size = 16; break;
    default: d.ok = 0; break;
    }
    return d;
}

static void ld(cudaDataType t, const void *p, size_t i, double v[2])
{
    v[1] = 0;
    switch ((int)t) {
    case CUDA_R_16F: v[0] = hl_h2f(((const uint16_t *)p)[i]); break;
    case CUDA_R_16BF: v[0] = hl_bf2f(((const uint16_t *)p)[i]); break;
    case CUDA_R_32F: v[0] = ((const float *)p)[i]; break;
    case CUDA_R_64F: v[0] = ((const double *)p)[i]; break;
    case CUDA_C_32F: v[0] = ((const float *)p)[2 * i]; v[1] = ((const float *)p)[2 * i + 1]; break;
    case CUDA_C_64F: v[0] = ((const double *)p)[2 * i]; v[1] = ((const double *)p)[2 * i + 1]; break;
    default: v[0] = 0; break;
    }
}

static void st(cudaDataType t, void *p, size_t i, const double v[2])
{
    switch ((int)t) {
    case CUDA_R_16F: ((uint16_t *)p)[i] = hl_f2h((float)v[0]); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = hl_f2bf((float)v[0]); break;
    case CUDA_R_32F: ((float *)p)[i] = (float)v[0]; break;
    case CUDA_R_64F: ((double *)p)[i] = v[0]; break;
    case CUDA_C_32F: ((float *)p)[2 * i] = (float)v[0]; ((float *)p)[2 * i + 1] = (float)v[1]; break;
    case CUDA_C_64F: ((double *)p)[2 * i] = v[0]; ((double *)p)[2 * i + 1] = v[1]; break;
    default: break;
    }
}

/* the real type of a data type (half and bfloat16: themselves) */
static cudaDataType real_of(cudaDataType t)
{
    return t == CUDA_C_32F ? CUDA_R_32F : t == CUDA_C_64F ? CUDA_R_64F : t;
}

/* the execution type a data type computes in */
static cudaDataType exec_of(cudaDataType t)
{
    return t == CUDA_R_16F || t == CUDA_R_16BF ? CUDA_R_32F : t;
}

struct ej {
    struct hl_job h;
    enum exop op;
    int64_t n, incx, incy;
    cudaDataType xt, yt, rt, at;  /* data, y, result, alpha (and c) types */
    cudaDataType st_;             /* RotEx's s */
    void *x, *y, *res;
    struct scal a, s;             /* alpha or c; s */
    size_t ressz;                 /* index results: 4 or 8 bytes */
};

/* element i of a vector (BLAS's layout for a negative increment) */
static size_t at(int64_t n, int64_t inc, int64_t i)
{
    return (size_t)(inc < 0 ? (n - 1 - i) * -inc : i * inc);
}

static void run_ex(struct hl_job *hj)
{
    struct ej *j = (struct ej *)hj;
    double acc[2] = { 0, 0 }, a[2], s[2], u[2], v[2];
    int64_t best = 0;
    double bestv = 0;
    ld(j->at, scal_val(&j->a), 0, a);
    if (j->op == ROT)
        ld(j->st_, scal_val(&j->s), 0, s);
    for (int64_t i = 0; i < j->n; i++) {
        size_t ix = at(j->n, j->incx, i), iy = at(j->n, j->incy, i);
        ld(j->xt, j->x, ix, u);
        switch (j->op) {
        case AXPY:
            ld(j->yt, j->y, iy, v);
            v[0] += a[0] * u[0] - a[1] * u[1];
            v[1] += a[0] * u[1] + a[1] * u[0];
            st(j->yt, j->y, iy, v);
            break;
        case DOT:
        case DOTC:
            ld(j->yt, j->y, iy, v);
            if (j->op == DOTC)
                u[1] = -u[1];
            acc[0] += u[0] * v[0] - u[1] * v[1];
            acc[1] += u[0] * v[1] + u[1] * v[0];
            break;
        case NRM2: acc[0] += u[0] * u[0] + u[1] * u[1]; break;
        case ASUM: acc[0] += fabs(u[0]) + fabs(u[1]); break;
        case SCAL: {
            double w[2] = { a[0] * u[0] - a[1] * u[1], a[0] * u[1] + a[1] * u[0] };
            st(j->xt, j->x, ix, w);
            break;
        }
        case AMAX:
        case AMIN: {
            double m = fabs(u[0]) + fabs(u[1]);
            if (i == 0 || (j->op == AMAX ? m > bestv : m < bestv)) {
                bestv = m;
                best = i + 1;
            }
            break;
        }
        case COPY: st(j->yt, j->y, iy, u); break;
        case SWAP:
            ld(j->yt, j->y, iy, v);
            st(j->yt, j->y, iy, u);
            st(j->xt, j->x, ix, v);
            break;
        case ROT: {
            /* x = c x + s y; y = c y - conj(s) x (c real) */
            ld(j->yt, j->y, iy, v);
            double nx[2] = { a[0] * u[0] + s[0] * v[0] - s[1] * v[1], a[0] * u[1] + s[0] * v[1] + s[1] * v[0] };
            double ny[2] = { a[0] * v[0] - (s[0] * u[0] + s[1] * u[1]), a[0] * v[1] - (s[0] * u[1] - s[1] * u[0]) };
            st(j->xt, j->x, ix, nx);
            st(j->yt, j->y, iy, ny);
            break;
        }
        }
    }
    if (j->op == NRM2)
        acc[0] = sqrt(acc[0]);
    if (j->op == DOT || j->op == DOTC || j->op == NRM2 || j->op == ASUM)
        st(j->rt, j->res, 0, acc);
    if (j->op == AMAX || j->op == AMIN) {
        if (j->ressz == 8)
            memcpy(j->res, &best, 8);
        else {
            int r = (int)best;
            memcpy(j->res, &r, 4);
        }
    }
}

/* the checks and the job; a: alpha or c (type at), s: RotEx's s (type st_) */
static cublasStatus_t ex(cublasHandle_t h, enum exop op, int64_t n, const void *a, cudaDataType at_, const void *s,
                         cudaDataType st_, void *x, cudaDataType xt, int64_t incx, void *y, cudaDataType yt,
                         int64_t incy, void *res, cudaDataType rt, cudaDataType exec, size_t ressz)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    int has_y = op == AXPY || op == DOT || op == DOTC || op == COPY || op == SWAP || op == ROT;
    int has_res = op == DOT || op == DOTC || op == NRM2 || op == ASUM || op == AMAX || op == AMIN;
    int has_exec = op != AMAX && op != AMIN && op != COPY && op != SWAP;
    struct dt dx = dt_of(xt);
    int ok = dx.ok && (!has_y || yt == xt) && (!has_exec || exec == exec_of(xt));
    if (op == AXPY || op == SCAL)
        ok = ok && at_ == exec;
    if (op == ROT)
        ok = ok && (at_ == real_of(exec)) && (st_ == exec || st_ == real_of(exec));
    if (op == DOT || op == DOTC)
        ok = ok && rt == xt;
    if (op == NRM2 || op == ASUM)
        ok = ok && rt == real_of(xt);
    if (!ok)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (has_res && !res)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct ej *j = hl_job_new(sizeof *j, run_ex);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->op = op;
    j->n = n > 0 && (!(op == NRM2 || op == ASUM || op == AMAX || op == AMIN || op == SCAL) || incx > 0) ? n : 0;
    j->incx = incx;
    j->incy = incy;
    j->xt = xt;
    j->yt = yt;
    j->rt = op == AMAX || op == AMIN ? xt : rt;
    j->at = op == AXPY || op == SCAL || op == ROT ? at_ : xt;
    j->st_ = st_;
    j->x = x;
    j->y = y;
    j->res = res;
    j->ressz = ressz;
    int bad = 0, wait = 0;
    if (op == AXPY || op == SCAL || op == ROT)
        bad |= scal_take(&j->h, h, a, dt_of(at_).size, &j->a);
    if (op == ROT)
        bad |= scal_take(&j->h, h, s, dt_of(st_).size, &j->s);
    if (has_res)
        bad |= result_take(&j->h, h, res, op == AMAX || op == AMIN ? ressz : dt_of(rt).size, &wait);
    if (j->n) {
        bad |= blas_hold(&j->h, x, hl_vec_bytes(j->n, incx, dx.size));
        if (has_y)
            bad |= blas_hold(&j->h, y, hl_vec_bytes(j->n, incy, dx.size));
    }
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (!j->n && !has_res) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_SUCCESS;
    }
    return blas_submit(h, &j->h, wait);
}

#define EX1(I, S)                                                                                        \
    HL_EXPORT cublasStatus_t cublasAxpyEx##S(cublasHandle_t h, I n, const void *alpha, cudaDataType alphaType, \
                                             const void *x, cudaDataType xType, I incx, void *y,           \
                                             cudaDataType yType, I incy, cudaDataType executiontype)       \
    {                                                                                                      \
        return ex(h, AXPY, n, alpha, alphaType, NULL, 0, (void *)x, xType, incx, y, yType, incy, NULL, 0,  \
                  executiontype, 0);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasDotEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                            const void *y, cudaDataType yType, I incy, void *result,       \
                                            cudaDataType resultType, cudaDataType executionType)           \
    {                                                                                                      \
        return ex(h, DOT, n, NULL, 0, NULL, 0, (void *)x, xType, incx, (void *)y, yType, incy, result,     \
                  resultType, executionType, 0);                                                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasDotcEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                             const void *y, cudaDataType yType, I incy, void *result,      \
                                             cudaDataType resultType, cudaDataType executionType)          \
    {                                                                                                      \
        return ex(h, DOTC, n, NULL, 0, NULL, 0, (void *)x, xType, incx, (void *)y, yType, incy, result,    \
                  resultType, executionType, 0);                                                           \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasNrm2Ex##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                             void *result, cudaDataType resultType,                        \
                                             cudaDataType executionType)                                   \
    {                                                                                                      \
        return ex(h, NRM2, n, NULL, 0, NULL, 0, (void *)x, xType, incx, NULL, 0, 0, result, resultType,    \
                  executionType, 0);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasAsumEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                             void *result, cudaDataType resultType,                        \
                                             cudaDataType executiontype)                                   \
    {                                                                                                      \
        return ex(h, ASUM, n, NULL, 0, NULL, 0, (void *)x, xType, incx, NULL, 0, 0, result, resultType,    \
                  executiontype, 0);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasScalEx##S(cublasHandle_t h, I n, const void *alpha, cudaDataType alphaType, \
                                             void *x, cudaDataType xType, I incx, cudaDataType executionType) \
    {                                                                                                      \
        return ex(h, SCAL, n, alpha, alphaType, NULL, 0, x, xType, incx, NULL, 0, 0, NULL, 0, executionType, \
                  0);                                                                                      \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasIamaxEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                              I *result)                                                   \
    {                                                                                                      \
        return ex(h, AMAX, n, NULL, 0, NULL, 0, (void *)x, xType, incx, NULL, 0, 0, result, 0, 0, sizeof(I)); \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasIaminEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                              I *result)                                                   \
    {                                                                                                      \
        return ex(h, AMIN, n, NULL, 0, NULL, 0, (void *)x, xType, incx, NULL, 0, 0, result, 0, 0, sizeof(I)); \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasCopyEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx, \
                                             void *y, cudaDataType yType, I incy)                          \
    {                                                                                                      \
        return ex(h, COPY, n, NULL, 0, NULL, 0, (void *)x, xType, incx, y, yType, incy, NULL, 0, 0, 0);    \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasSwapEx##S(cublasHandle_t h, I n, void *x, cudaDataType xType, I incx,   \
                                             void *y, cudaDataType yType, I incy)                          \
    {                                                                                                      \
        return ex(h, SWAP, n, NULL, 0, NULL, 0, x, xType, incx, y, yType, incy, NULL, 0, 0, 0);            \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasRotEx##S(cublasHandle_t h, I n, void *x, cudaDataType xType, I incx,    \
                                            void *y, cudaDataType yType, I incy, const void *c,            \
                                            const void *s, cudaDataType csType, cudaDataType executiontype) \
    {                                                                                                      \
        return ex(h, ROT, n, c, real_of(executiontype), s, csType, x, xType, incx, y, yType, incy, NULL,   \
                  0, executiontype, 0);                                                                    \
    }
EX1(int, )
EX1(int64_t, _64)
