/* SPDX-License-Identifier: Apache-2.0 */
/* Batched level 2 and 3 beyond gemm, and batched LU: gemvBatched,
 * gemvStridedBatched, trsmBatched, getrfBatched, getrsBatched,
 * getriBatched, matinvBatched in S, D, C, Z. Pointer arrays are read once the stream has reached the call
 * (blas_read_arrays); the LU factorisation and solves are LAPACK's
 * (OpenBLAS carries it), LU without pivoting (a NULL pivot array) is a
 * loop here, as LAPACK has none. */
#include "blas.h"

#include <stdlib.h>

/* LAPACK (Fortran interface; trans is a one-character string whose length
 * gfortran passes last) */
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void cgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void zgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void sgetrs_(const char *tr, const int *n, const int *nrhs, const float *a, const int *lda, const int *ipiv, float *b,
             const int *ldb, int *info, size_t trlen);
void dgetrs_(const char *tr, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
             double *b, const int *ldb, int *info, size_t trlen);
void cgetrs_(const char *tr, const int *n, const int *nrhs, const void *a, const int *lda, const int *ipiv, void *b,
             const int *ldb, int *info, size_t trlen);
void zgetrs_(const char *tr, const int *n, const int *nrhs, const void *a, const int *lda, const int *ipiv, void *b,
             const int *ldb, int *info, size_t trlen);

void sgetri_(const int *n, float *a, const int *lda, const int *ipiv, float *work, const int *lwork, int *info);
void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work, const int *lwork, int *info);
void cgetri_(const int *n, void *a, const int *lda, const int *ipiv, void *work, const int *lwork, int *info);
void zgetri_(const int *n, void *a, const int *lda, const int *ipiv, void *work, const int *lwork, int *info);

enum bop { GEMV, B_TRSM, GETRF, GETRS, GETRI, MATINV };

struct bj {
    struct hl_job h;
    enum bt t;
    enum bop op;
    cublasOperation_t trans;
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
    int m, n, lda, ldb, incx, incy, batch;
    struct scal alpha, beta;
    /* pointers: from arrays (p, batch per operand) or base + i * stride */
    void **p;
    const void *base[3];
    long long stride[3];
    int *piv, *info;
};

static void *operand(const struct bj *j, int k, int i, size_t es)
{
    if (j->p)
        return j->p[(size_t)k * j->batch + i];
    return (char *)j->base[k] + (size_t)i * (size_t)j->stride[k] * es;
}

/* A = LU without pivoting; info: the first zero pivot (1-based), or 0 */
static int lu_nopivot(enum bt t, void *A, int n, int lda)
{
    int info = 0;
    for (int k = 0; k < n; k++) {
        double pr, pi;
        blas_ld(t, A, (size_t)k * lda + k, &pr, &pi);
        if (pr == 0 && pi == 0) {
            if (!info)
                info = k + 1;
            continue;
        }
        double d = pr * pr + pi * pi;
        for (int r = k + 1; r < n; r++) {
            double ar, ai;
            blas_ld(t, A, (size_t)k * lda + r, &ar, &ai);
            double lr = (ar * pr + ai * pi) / d, li = (ai * pr - ar * pi) / d;
            blas_st(t, A, (size_t)k * lda + r, lr, li);
            for (int c = k + 1; c < n; c++) {
                double ur, ui, xr, xi;
                blas_ld(t, A, (size_t)c * lda + k, &ur, &ui);
                blas_ld(t, A, (size_t)c * lda + r, &xr, &xi);
                blas_st(t, A, (size_t)c * lda + r, xr - (lr * ur - li * ui), xi - (lr * ui + li * ur));
            }
        }
    }
    return info;
}

/* C = inverse of the matrix whose LU (pivots piv) A holds; with getrf
 * first (matinv) when lu is 0. info: 0, or the first zero pivot. */
static int invert(enum bt t, const void *A, int lda, const int *piv, void *C, int ldc, int n, int lu)
{
    size_t es = bt_size[t];
    int *own = malloc((size_t)n * sizeof *own);
    void *work = malloc((size_t)n * 64 * es);
    int info = 0, lwork = n * 64;
    if (!own || !work) {
        free(own);
        free(work);
        return -1;
    }
    for (int c = 0; c < n; c++)
        memmove((char *)C + (size_t)c * ldc * es, (const char *)A + (size_t)c * lda * es, (size_t)n * es);
    if (!lu) {
        switch (t) {
        case BT_S: sgetrf_(&n, &n, C, &ldc, own, &info); break;
        case BT_D: dgetrf_(&n, &n, C, &ldc, own, &info); break;
        case BT_C: cgetrf_(&n, &n, C, &ldc, own, &info); break;
        case BT_Z: zgetrf_(&n, &n, C, &ldc, own, &info); break;
        }
    } else {
        for (int i = 0; i < n; i++)
            own[i] = piv ? piv[i] : i + 1; /* no pivots: no row swaps */
    }
    if (info == 0) {
        switch (t) {
        case BT_S: sgetri_(&n, C, &ldc, own, work, &lwork, &info); break;
        case BT_D: dgetri_(&n, C, &ldc, own, work, &lwork, &info); break;
        case BT_C: cgetri_(&n, C, &ldc, own, work, &lwork, &info); break;
        case BT_Z: zgetri_(&n, C, &ldc, own, work, &lwork, &info); break;
        }
    }
    free(own);
    free(work);
    return info;
}

static void run_batched(struct hl_job *hj)
{
    struct bj *j = (struct bj *)hj;
    size_t es = bt_size[j->t];
    for (int i = 0; i < j->batch; i++) {
        switch (j->op) {
        case GEMV:
            blas_gemv(j->t, cb_op(j->trans, j->t), j->m, j->n, scal_val(&j->alpha), operand(j, 0, i, es), j->lda,
                      operand(j, 1, i, es), j->incx, scal_val(&j->beta), operand(j, 2, i, es), j->incy);
            break;
        case B_TRSM:
            blas_trsm(j->t, j->side, j->uplo, j->trans, j->diag, j->m, j->n, scal_val(&j->alpha), operand(j, 0, i, es),
                      j->lda, operand(j, 1, i, es), j->ldb);
            break;
        case GETRF: {
            void *A = operand(j, 0, i, es);
            int info = 0;
            if (!j->piv) {
                info = lu_nopivot(j->t, A, j->n, j->lda);
            } else {
                int *piv = j->piv + (size_t)i * j->n;
                switch (j->t) {
                case BT_S: sgetrf_(&j->n, &j->n, A, &j->lda, piv, &info); break;
                case BT_D: dgetrf_(&j->n, &j->n, A, &j->lda, piv, &info); break;
                case BT_C: cgetrf_(&j->n, &j->n, A, &j->lda, piv, &info); break;
                case BT_Z: zgetrf_(&j->n, &j->n, A, &j->lda, piv, &info); break;
                }
            }
            j->info[i] = info;
            break;
        }
        case GETRS: {
            const void *A = operand(j, 0, i, es);
            void *B = operand(j, 1, i, es);
            const int *piv = j->piv + (size_t)i * j->n;
            char tr = j->trans == CUBLAS_OP_N ? 'N' : j->trans == CUBLAS_OP_T ? 'T' : 'C';
            int info = 0;
            switch (j->t) {
            case BT_S: sgetrs_(&tr, &j->n, &j->m, A, &j->lda, piv, B, &j->ldb, &info, 1); break;
            case BT_D: dgetrs_(&tr, &j->n, &j->m, A, &j->lda, piv, B, &j->ldb, &info, 1); break;
            case BT_C: cgetrs_(&tr, &j->n, &j->m, A, &j->lda, piv, B, &j->ldb, &info, 1); break;
            case BT_Z: zgetrs_(&tr, &j->n, &j->m, A, &j->lda, piv, B, &j->ldb, &info, 1); break;
            }
            break;
        }
        case GETRI:
        case MATINV:
            j->info[i] = invert(j->t, operand(j, 0, i, es), j->lda, j->piv ? j->piv + (size_t)i * j->n : NULL,
                                operand(j, 1, i, es), j->ldb, j->n, j->op == GETRI);
            break;
        }
    }
}

static void fini_batched(struct hl_job *hj)
{
    free(((struct bj *)hj)->p);
}

static struct bj *new_job(enum bt t, enum bop op)
{
    hl_note("OpenBLAS (batched level 2 and 3, LAPACK LU)"); /* tdtrace -e lib= shows it */
    struct bj *j = hl_job_new(sizeof *j, run_batched);
    if (j) {
        j->h.fini = fini_batched;
        j->t = t;
        j->op = op;
    }
    return j;
}

/* holds the operands: pointer arrays (arrays != NULL) or strided bases */
static cublasStatus_t operands(struct bj *j, cublasHandle_t h, int n, const void *const *const arrays[],
                               const void *const bases[], const long long strides[], const int64_t bytes[],
                               int64_t batch)
{
    if (arrays)
        return blas_read_arrays(&j->h, h, n, arrays, bytes, batch, &j->p);
    for (int k = 0; k < n; k++) {
        j->base[k] = bases[k];
        j->stride[k] = strides[k];
        if (blas_hold(&j->h, bases[k], hl_batch_bytes(bytes[k], batch, strides[k], bt_size[j->t])))
            return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t finish(cublasHandle_t h, struct bj *j, cublasStatus_t r)
{
    if (r) {
        hl_job_free(&j->h);
        return r;
    }
    return blas_submit(h, &j->h, 0);
}

static cublasStatus_t gemv_batched(cublasHandle_t h, enum bt t, cublasOperation_t trans, int64_t m, int64_t n,
                                   const void *alpha, const void *const *const arrays[], const void *const bases[],
                                   const long long strides[], int64_t lda, int64_t incx, const void *beta,
                                   int64_t incy, int64_t batch)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    if (!op_ok(trans) || m < 0 || n < 0 || batch < 0 || incx == 0 || incy == 0 || lda < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!fits(m) || !fits(n) || !fits(lda) || !fits(incx) || !fits(incy) || !fits(batch))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct bj *j = new_job(t, GEMV);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    int nt = trans == CUBLAS_OP_N;
    j->trans = trans;
    j->m = (int)m;
    j->n = (int)n;
    j->lda = (int)lda;
    j->incx = (int)incx;
    j->incy = (int)incy;
    j->batch = (int)batch;
    const int64_t bytes[3] = { hl_mat_bytes(m, n, lda, es), hl_vec_bytes(nt ? n : m, incx, es),
                               hl_vec_bytes(nt ? m : n, incy, es) };
    r = scal_take(&j->h, h, alpha, es, &j->alpha) || scal_take(&j->h, h, beta, es, &j->beta)
            ? CUBLAS_STATUS_INVALID_VALUE
            : operands(j, h, 3, arrays, bases, strides, bytes, batch);
    return finish(h, j, r);
}

static cublasStatus_t trsm_batched(cublasHandle_t h, enum bt t, cublasSideMode_t side, cublasFillMode_t uplo,
                                   cublasOperation_t trans, cublasDiagType_t diag, int64_t m, int64_t n,
                                   const void *alpha, const void *const *A, int64_t lda, void *const *B, int64_t ldb,
                                   int64_t batch)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    int64_t k = side == CUBLAS_SIDE_LEFT ? m : n;
    if (!side_ok(side) || !fill_ok(uplo) || !op_ok(trans) || !diag_ok(diag) || m < 0 || n < 0 || batch < 0 ||
        lda < (k > 1 ? k : 1) || ldb < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!fits(m) || !fits(n) || !fits(lda) || !fits(ldb) || !fits(batch))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct bj *j = new_job(t, B_TRSM);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    j->side = side;
    j->uplo = uplo;
    j->trans = trans;
    j->diag = diag;
    j->m = (int)m;
    j->n = (int)n;
    j->lda = (int)lda;
    j->ldb = (int)ldb;
    j->batch = (int)batch;
    const void *const *const arrays[2] = { A, (const void *const *)B };
    const int64_t bytes[2] = { hl_mat_bytes(k, k, lda, es), hl_mat_bytes(m, n, ldb, es) };
    r = scal_take(&j->h, h, alpha, es, &j->alpha) ? CUBLAS_STATUS_INVALID_VALUE
                                                   : operands(j, h, 2, arrays, NULL, NULL, bytes, batch);
    return finish(h, j, r);
}

static cublasStatus_t getrf_batched(cublasHandle_t h, enum bt t, int n, void *const *A, int lda, int *P, int *info,
                                    int batch)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct bj *j = new_job(t, GETRF);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->n = n;
    j->lda = lda;
    j->batch = batch;
    j->piv = P;
    j->info = info;
    const void *const *const arrays[1] = { (const void *const *)A };
    const int64_t bytes[1] = { hl_mat_bytes(n, n, lda, bt_size[t]) };
    if (blas_hold(&j->h, info, (int64_t)batch * 4) || (P && blas_hold(&j->h, P, (int64_t)batch * n * 4)))
        r = CUBLAS_STATUS_INVALID_VALUE;
    else
        r = operands(j, h, 1, arrays, NULL, NULL, bytes, batch);
    return finish(h, j, r);
}

/* info is host memory: 0, or -i for a wrong argument i */
static cublasStatus_t getrs_batched(cublasHandle_t h, enum bt t, cublasOperation_t trans, int n, int nrhs,
                                    const void *const *A, int lda, const int *piv, void *const *B, int ldb, int *info,
                                    int batch)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    if (!info)
        return CUBLAS_STATUS_INVALID_VALUE;
    int bad = !op_ok(trans) ? 2 : n < 0 ? 3 : nrhs < 0 ? 4 : lda < (n > 1 ? n : 1) ? 6 : ldb < (n > 1 ? n : 1) ? 9
              : batch < 0 ? 11 : 0;
    *info = -bad;
    if (bad)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0 || nrhs == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!piv)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* solves of an unpivoted LU: not implemented */
    struct bj *j = new_job(t, GETRS);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    j->trans = trans;
    j->n = n;
    j->m = nrhs;
    j->lda = lda;
    j->ldb = ldb;
    j->batch = batch;
    j->piv = (int *)piv;
    const void *const *const arrays[2] = { A, (const void *const *)B };
    const int64_t bytes[2] = { hl_mat_bytes(n, n, lda, es), hl_mat_bytes(n, nrhs, ldb, es) };
    if (blas_hold(&j->h, piv, (int64_t)batch * n * 4))
        r = CUBLAS_STATUS_INVALID_VALUE;
    else
        r = operands(j, h, 2, arrays, NULL, NULL, bytes, batch);
    return finish(h, j, r);
}

/* getriBatched (lu: A holds an LU and its pivots, or none) and
 * matinvBatched (n <= 32) */
static cublasStatus_t inverse_batched(cublasHandle_t h, enum bt t, enum bop op, int n, const void *const *A, int lda,
                                      const int *P, void *const *C, int ldc, int *info, int batch)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    if (n < 0 || (op == MATINV && n > 32) || lda < (n > 1 ? n : 1) || ldc < (n > 1 ? n : 1) || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0 || batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    struct bj *j = new_job(t, op);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    j->n = n;
    j->lda = lda;
    j->ldb = ldc;
    j->batch = batch;
    j->piv = (int *)P;
    j->info = info;
    const void *const *const arrays[2] = { A, (const void *const *)C };
    const int64_t bytes[2] = { hl_mat_bytes(n, n, lda, es), hl_mat_bytes(n, n, ldc, es) };
    if (blas_hold(&j->h, info, (int64_t)batch * 4) || (P && blas_hold(&j->h, P, (int64_t)batch * n * 4)))
        r = CUBLAS_STATUS_INVALID_VALUE;
    else
        r = operands(j, h, 2, arrays, NULL, NULL, bytes, batch);
    return finish(h, j, r);
}

/* ---- entry points ------------------------------------------------------ */
#define BATCHED(P, T, BT, I, S)                                                                          \
    HL_EXPORT cublasStatus_t cublas##P##gemvBatched##S(cublasHandle_t h, cublasOperation_t trans, I m, I n, \
                                                       const T *alpha, const T *const Aarray[], I lda,     \
                                                       const T *const xarray[], I incx, const T *beta,     \
                                                       T *const yarray[], I incy, I batchCount)            \
    {                                                                                                      \
        const void *const *const arrays[3] = { (const void *const *)Aarray, (const void *const *)xarray,   \
                                               (const void *const *)yarray };                              \
        return gemv_batched(h, BT, trans, m, n, alpha, arrays, NULL, NULL, lda, incx, beta, incy, batchCount); \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##gemvStridedBatched##S(                                             \
        cublasHandle_t h, cublasOperation_t trans, I m, I n, const T *alpha, const T *A, I lda,            \
        long long strideA, const T *x, I incx, long long stridex, const T *beta, T *y, I incy,             \
        long long stridey, I batchCount)                                                                   \
    {                                                                                                      \
        const void *const bases[3] = { A, x, y };                                                          \
        const long long strides[3] = { strideA, stridex, stridey };                                        \
        return gemv_batched(h, BT, trans, m, n, alpha, NULL, bases, strides, lda, incx, beta, incy, batchCount); \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##trsmBatched##S(                                                    \
        cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,           \
        cublasDiagType_t diag, I m, I n, const T *alpha, const T *const A[], I lda, T *const B[], I ldb,   \
        I batchCount)                                                                                      \
    {                                                                                                      \
        return trsm_batched(h, BT, side, uplo, trans, diag, m, n, alpha, (const void *const *)A, lda,      \
                            (void *const *)B, ldb, batchCount);                                            \
    }
#define LU(P, T, BT)                                                                                     \
    HL_EXPORT cublasStatus_t cublas##P##getrfBatched(cublasHandle_t h, int n, T *const A[], int lda, int *P_, \
                                                     int *info, int batchSize)                             \
    {                                                                                                      \
        return getrf_batched(h, BT, n, (void *const *)A, lda, P_, info, batchSize);                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##getrsBatched(cublasHandle_t h, cublasOperation_t trans, int n,     \
                                                     int nrhs, const T *const Aarray[], int lda,           \
                                                     const int *devIpiv, T *const Barray[], int ldb,       \
                                                     int *info, int batchSize)                             \
    {                                                                                                      \
        return getrs_batched(h, BT, trans, n, nrhs, (const void *const *)Aarray, lda, devIpiv,             \
                             (void *const *)Barray, ldb, info, batchSize);                                 \
    }
#define INV(P, T, BT)                                                                                    \
    HL_EXPORT cublasStatus_t cublas##P##getriBatched(cublasHandle_t h, int n, const T *const A[], int lda,   \
                                                     const int *P_, T *const C[], int ldc, int *info,      \
                                                     int batchSize)                                        \
    {                                                                                                      \
        return inverse_batched(h, BT, GETRI, n, (const void *const *)A, lda, P_, (void *const *)C, ldc, info, \
                               batchSize);                                                                 \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##matinvBatched(cublasHandle_t h, int n, const T *const A[], int lda, \
                                                      T *const Ainv[], int lda_inv, int *info, int batchSize) \
    {                                                                                                      \
        return inverse_batched(h, BT, MATINV, n, (const void *const *)A, lda, NULL, (void *const *)Ainv,   \
                               lda_inv, info, batchSize);                                                  \
    }
#define ALL(P, T, BT) BATCHED(P, T, BT, int, ) BATCHED(P, T, BT, int64_t, _64) LU(P, T, BT) INV(P, T, BT)
ALL(S, float, BT_S)
ALL(D, double, BT_D)
ALL(C, cuComplex, BT_C)
ALL(Z, cuDoubleComplex, BT_Z)
