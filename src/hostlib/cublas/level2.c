/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS level 2: matrix-vector operations in S, D, C, Z on CBLAS
 * (column-major). In the complex types the symmetric forms are the
 * Hermitian ones (hemv, hbmv, hpmv, her, her2, hpr, hpr2); cuBLAS's complex
 * symmetric extensions (csymv, csyr, csyr2) are not implemented. */
#include "blas.h"

enum l2op { GEMV, GBMV, TRMV, TRSV, TBMV, TBSV, TPMV, TPSV, SYMV, SBMV, SPMV, SYR, SYR2, SPR, SPR2, GER, GERC };

struct l2 {
    struct hl_job h;
    enum bt t;
    enum l2op op;
    enum CBLAS_TRANSPOSE trans;
    enum CBLAS_UPLO uplo;
    enum CBLAS_DIAG diag;
    int m, n, kl, ku, lda, incx, incy;
    const void *A, *x;
    void *y;            /* the output vector, or A of a rank update */
    struct scal alpha, beta;
};

#define CM CblasColMajor

void blas_gemv(enum bt t, enum CBLAS_TRANSPOSE tr, int m, int n, const void *a, const void *A, int lda, const void *x,
               int incx, const void *b, void *y, int incy)
{
    switch (t) {
    case BT_S: cblas_sgemv(CM, tr, m, n, *(const float *)a, A, lda, x, incx, *(const float *)b, y, incy); break;
    case BT_D: cblas_dgemv(CM, tr, m, n, *(const double *)a, A, lda, x, incx, *(const double *)b, y, incy); break;
    case BT_C: cblas_cgemv(CM, tr, m, n, a, A, lda, x, incx, b, y, incy); break;
    case BT_Z: cblas_zgemv(CM, tr, m, n, a, A, lda, x, incx, b, y, incy); break;
    }
}

static void run_gemv_family(struct l2 *j, const void *a, const void *b)
{
    float fa = 0, fb = 0;
    double da = 0, db = 0;
    if (j->t == BT_S) {
        fa = *(const float *)a;
        fb = *(const float *)b;
    } else if (j->t == BT_D) {
        da = *(const double *)a;
        db = *(const double *)b;
    }
    switch ((int)j->op) { /* the gemv-like ones only */
    case GEMV:
        blas_gemv(j->t, j->trans, j->m, j->n, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy);
        break;
    case GBMV:
        switch (j->t) {
        case BT_S: cblas_sgbmv(CM, j->trans, j->m, j->n, j->kl, j->ku, fa, j->A, j->lda, j->x, j->incx, fb, j->y, j->incy); break;
        case BT_D: cblas_dgbmv(CM, j->trans, j->m, j->n, j->kl, j->ku, da, j->A, j->lda, j->x, j->incx, db, j->y, j->incy); break;
        case BT_C: cblas_cgbmv(CM, j->trans, j->m, j->n, j->kl, j->ku, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        case BT_Z: cblas_zgbmv(CM, j->trans, j->m, j->n, j->kl, j->ku, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        }
        break;
    case SYMV:
        switch (j->t) {
        case BT_S: cblas_ssymv(CM, j->uplo, j->n, fa, j->A, j->lda, j->x, j->incx, fb, j->y, j->incy); break;
        case BT_D: cblas_dsymv(CM, j->uplo, j->n, da, j->A, j->lda, j->x, j->incx, db, j->y, j->incy); break;
        case BT_C: cblas_chemv(CM, j->uplo, j->n, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        case BT_Z: cblas_zhemv(CM, j->uplo, j->n, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        }
        break;
    case SBMV:
        switch (j->t) {
        case BT_S: cblas_ssbmv(CM, j->uplo, j->n, j->kl, fa, j->A, j->lda, j->x, j->incx, fb, j->y, j->incy); break;
        case BT_D: cblas_dsbmv(CM, j->uplo, j->n, j->kl, da, j->A, j->lda, j->x, j->incx, db, j->y, j->incy); break;
        case BT_C: cblas_chbmv(CM, j->uplo, j->n, j->kl, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        case BT_Z: cblas_zhbmv(CM, j->uplo, j->n, j->kl, a, j->A, j->lda, j->x, j->incx, b, j->y, j->incy); break;
        }
        break;
    case SPMV:
        switch (j->t) {
        case BT_S: cblas_sspmv(CM, j->uplo, j->n, fa, j->A, j->x, j->incx, fb, j->y, j->incy); break;
        case BT_D: cblas_dspmv(CM, j->uplo, j->n, da, j->A, j->x, j->incx, db, j->y, j->incy); break;
        case BT_C: cblas_chpmv(CM, j->uplo, j->n, a, j->A, j->x, j->incx, b, j->y, j->incy); break;
        case BT_Z: cblas_zhpmv(CM, j->uplo, j->n, a, j->A, j->x, j->incx, b, j->y, j->incy); break;
        }
        break;
    default:
        break;
    }
}

static void run_tri(struct l2 *j)
{
    void *x = j->y;
    int n = j->n, k = j->kl, lda = j->lda, inc = j->incx;
#define TRI(OP, ...)                                                                                \
    switch (j->t) {                                                                                 \
    case BT_S: cblas_s##OP(CM, j->uplo, j->trans, j->diag, __VA_ARGS__); break;                     \
    case BT_D: cblas_d##OP(CM, j->uplo, j->trans, j->diag, __VA_ARGS__); break;                     \
    case BT_C: cblas_c##OP(CM, j->uplo, j->trans, j->diag, __VA_ARGS__); break;                     \
    case BT_Z: cblas_z##OP(CM, j->uplo, j->trans, j->diag, __VA_ARGS__); break;                     \
    }
    switch ((int)j->op) { /* the triangular ones only */
    case TRMV: TRI(trmv, n, j->A, lda, x, inc) break;
    case TRSV: TRI(trsv, n, j->A, lda, x, inc) break;
    case TBMV: TRI(tbmv, n, k, j->A, lda, x, inc) break;
    case TBSV: TRI(tbsv, n, k, j->A, lda, x, inc) break;
    case TPMV: TRI(tpmv, n, j->A, x, inc) break;
    case TPSV: TRI(tpsv, n, j->A, x, inc) break;
    default: break;
    }
#undef TRI
}

static void run_update(struct l2 *j, const void *a)
{
    float fa = j->t == BT_S || j->t == BT_C ? *(const float *)a : 0;
    double da = j->t == BT_D || j->t == BT_Z ? *(const double *)a : 0;
    const void *x = j->x, *y = j->A; /* a rank-2 update's second vector */
    void *A = j->y;
    int m = j->m, n = j->n, lda = j->lda, ix = j->incx, iy = j->incy;
    switch ((int)j->op) { /* the rank updates only */
    case SYR: /* her: alpha real */
        switch (j->t) {
        case BT_S: cblas_ssyr(CM, j->uplo, n, fa, x, ix, A, lda); break;
        case BT_D: cblas_dsyr(CM, j->uplo, n, da, x, ix, A, lda); break;
        case BT_C: cblas_cher(CM, j->uplo, n, fa, x, ix, A, lda); break;
        case BT_Z: cblas_zher(CM, j->uplo, n, da, x, ix, A, lda); break;
        }
        break;
    case SPR:
        switch (j->t) {
        case BT_S: cblas_sspr(CM, j->uplo, n, fa, x, ix, A); break;
        case BT_D: cblas_dspr(CM, j->uplo, n, da, x, ix, A); break;
        case BT_C: cblas_chpr(CM, j->uplo, n, fa, x, ix, A); break;
        case BT_Z: cblas_zhpr(CM, j->uplo, n, da, x, ix, A); break;
        }
        break;
    case SYR2:
        switch (j->t) {
        case BT_S: cblas_ssyr2(CM, j->uplo, n, fa, x, ix, y, iy, A, lda); break;
        case BT_D: cblas_dsyr2(CM, j->uplo, n, da, x, ix, y, iy, A, lda); break;
        case BT_C: cblas_cher2(CM, j->uplo, n, a, x, ix, y, iy, A, lda); break;
        case BT_Z: cblas_zher2(CM, j->uplo, n, a, x, ix, y, iy, A, lda); break;
        }
        break;
    case SPR2:
        switch (j->t) {
        case BT_S: cblas_sspr2(CM, j->uplo, n, fa, x, ix, y, iy, A); break;
        case BT_D: cblas_dspr2(CM, j->uplo, n, da, x, ix, y, iy, A); break;
        case BT_C: cblas_chpr2(CM, j->uplo, n, a, x, ix, y, iy, A); break;
        case BT_Z: cblas_zhpr2(CM, j->uplo, n, a, x, ix, y, iy, A); break;
        }
        break;
    case GER:
    case GERC:
        switch (j->t) {
        case BT_S: cblas_sger(CM, m, n, fa, x, ix, y, iy, A, lda); break;
        case BT_D: cblas_dger(CM, m, n, da, x, ix, y, iy, A, lda); break;
        case BT_C: (j->op == GER ? cblas_cgeru : cblas_cgerc)(CM, m, n, a, x, ix, y, iy, A, lda); break;
        case BT_Z: (j->op == GER ? cblas_zgeru : cblas_zgerc)(CM, m, n, a, x, ix, y, iy, A, lda); break;
        }
        break;
    default:
        break;
    }
}

static void run_l2(struct hl_job *hj)
{
    struct l2 *j = (struct l2 *)hj;
    switch (j->op) {
    case GEMV: case GBMV: case SYMV: case SBMV: case SPMV:
        run_gemv_family(j, scal_val(&j->alpha), scal_val(&j->beta));
        break;
    case TRMV: case TRSV: case TBMV: case TBSV: case TPMV: case TPSV:
        run_tri(j);
        break;
    case SYR: case SYR2: case SPR: case SPR2: case GER: case GERC:
        run_update(j, scal_val(&j->alpha));
        break;
    }
}

/* The arguments of every level-2 call; what an operation does not use is
 * 0 or NULL. k: gbmv's kl (ku in ku), the band of sbmv/tbmv/tbsv. */
struct l2args {
    int trans, uplo, diag;
    int64_t m, n, kl, ku, lda, incx, incy;
    const void *alpha, *A, *x, *beta, *y2;   /* y2: a rank-2 update's y */
    void *out;                               /* y, x of a triangular op, A of an update */
};

static cublasStatus_t l2(cublasHandle_t h, enum bt t, enum l2op op, const struct l2args *a)
{
    cublasStatus_t r = blas_handle(h);
    if (r)
        return r;
    int gen = op == GEMV || op == GBMV || op == GER || op == GERC;
    int tri = op >= TRMV && op <= TPSV;
    int band = op == GBMV || op == TBMV || op == TBSV || op == SBMV;
    int packed = op == TPMV || op == TPSV || op == SPMV || op == SPR || op == SPR2;
    int update = op >= SYR;                 /* syr, syr2, spr, spr2, ger, gerc */
    int two = op == SYR2 || op == SPR2 || op == GER || op == GERC;
    int64_t m = gen ? a->m : a->n, n = a->n;
    /* the stored rows of A */
    int64_t arows = op == GBMV ? a->kl + a->ku + 1 : band ? a->kl + 1 : m;
    if ((op == GEMV || op == GBMV || tri) && !op_ok(a->trans))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!gen && !fill_ok(a->uplo))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (tri && !diag_ok(a->diag))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m < 0 || n < 0 || a->kl < 0 || a->ku < 0 || a->incx == 0 ||
        ((!tri && !(update && !two)) && a->incy == 0) || (!packed && a->lda < (arows > 1 ? arows : 1)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!fits(m) || !fits(n) || !fits(a->kl) || !fits(a->ku) || !fits(a->lda) || !fits(a->incx) ||
        !fits(a->incy))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    hl_note("OpenBLAS level 2"); /* tdtrace -e lib= shows it */
    struct l2 *j = hl_job_new(sizeof *j, run_l2);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    size_t es = bt_size[t];
    j->t = t;
    j->op = op;
    j->trans = cb_op(a->trans, t);
    j->uplo = cb_uplo(a->uplo);
    j->diag = cb_diag(a->diag);
    j->m = (int)m;
    j->n = (int)n;
    j->kl = (int)a->kl;
    j->ku = (int)a->ku;
    j->lda = (int)a->lda;
    j->incx = (int)a->incx;
    j->incy = (int)a->incy;
    int bad = 0;
    int64_t abytes = packed ? (n > INT64_MAX / (n + 1) ? -1 : hl_vec_bytes(n * (n + 1) / 2, 1, es))
                            : hl_mat_bytes(arows, n, a->lda, es);
    if (update) {
        /* her, hpr: alpha is real */
        size_t asz = (op == SYR || op == SPR) ? bt_rsize[t] : es;
        bad |= scal_take(&j->h, h, a->alpha, asz, &j->alpha);
        j->x = a->x;
        j->A = a->y2;   /* the second vector */
        j->y = a->out;  /* the matrix */
        bad |= blas_hold(&j->h, a->x, hl_vec_bytes(m, a->incx, es));
        if (two)
            bad |= blas_hold(&j->h, a->y2, hl_vec_bytes(n, a->incy, es));
        bad |= blas_hold(&j->h, a->out, abytes);
    } else if (tri) {
        j->A = a->A;
        j->y = a->out;
        bad |= blas_hold(&j->h, a->A, abytes);
        bad |= blas_hold(&j->h, a->out, hl_vec_bytes(n, a->incx, es));
    } else {
        int notrans = a->trans == CUBLAS_OP_N || !(op == GEMV || op == GBMV);
        bad |= scal_take(&j->h, h, a->alpha, es, &j->alpha);
        bad |= scal_take(&j->h, h, a->beta, es, &j->beta);
        j->A = a->A;
        j->x = a->x;
        j->y = a->out;
        bad |= blas_hold(&j->h, a->A, abytes);
        bad |= blas_hold(&j->h, a->x, hl_vec_bytes(notrans ? n : m, a->incx, es));
        bad |= blas_hold(&j->h, a->out, hl_vec_bytes(notrans ? m : n, a->incy, es));
    }
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    return blas_submit(h, &j->h, 0);
}

/* ---- entry points ------------------------------------------------------ */
#define L2_ALL(P, T, BT, I, S)                                                                           \
    HL_EXPORT cublasStatus_t cublas##P##gemv##S(cublasHandle_t h, cublasOperation_t trans, I m, I n,       \
                                                const T *alpha, const T *A, I lda, const T *x, I incx,     \
                                                const T *beta, T *y, I incy)                               \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .m = m, .n = n, .lda = lda, .incx = incx, .incy = incy,       \
                            .alpha = alpha, .A = A, .x = x, .beta = beta, .out = y };                      \
        return l2(h, BT, GEMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##gbmv##S(cublasHandle_t h, cublasOperation_t trans, I m, I n, I kl, \
                                                I ku, const T *alpha, const T *A, I lda, const T *x,       \
                                                I incx, const T *beta, T *y, I incy)                       \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .m = m, .n = n, .kl = kl, .ku = ku, .lda = lda, .incx = incx, \
                            .incy = incy, .alpha = alpha, .A = A, .x = x, .beta = beta, .out = y };        \
        return l2(h, BT, GBMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##trmv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n,       \
                                                const T *A, I lda, T *x, I incx)                           \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .lda = lda,                \
                            .incx = incx, .A = A, .out = x };                                              \
        return l2(h, BT, TRMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##trsv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n,       \
                                                const T *A, I lda, T *x, I incx)                           \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .lda = lda,                \
                            .incx = incx, .A = A, .out = x };                                              \
        return l2(h, BT, TRSV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##tbmv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n, I k,  \
                                                const T *A, I lda, T *x, I incx)                           \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .kl = k, .lda = lda,       \
                            .incx = incx, .A = A, .out = x };                                              \
        return l2(h, BT, TBMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##tbsv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n, I k,  \
                                                const T *A, I lda, T *x, I incx)                           \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .kl = k, .lda = lda,       \
                            .incx = incx, .A = A, .out = x };                                              \
        return l2(h, BT, TBSV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##tpmv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n,       \
                                                const T *AP, T *x, I incx)                                 \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .incx = incx, .A = AP,     \
                            .out = x };                                                                    \
        return l2(h, BT, TPMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##tpsv##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, cublasDiagType_t diag, I n,       \
                                                const T *AP, T *x, I incx)                                 \
    {                                                                                                      \
        struct l2args a = { .trans = trans, .uplo = uplo, .diag = diag, .n = n, .incx = incx, .A = AP,     \
                            .out = x };                                                                    \
        return l2(h, BT, TPSV, &a);                                                                        \
    }
#define L2_SYM(P, SY, SB, SP, T, RA, BT, I, S)                                                           \
    HL_EXPORT cublasStatus_t cublas##P##SY##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n,            \
                                                  const T *alpha, const T *A, I lda, const T *x, I incx,   \
                                                  const T *beta, T *y, I incy)                             \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .lda = lda, .incx = incx, .incy = incy, .alpha = alpha,  \
                            .A = A, .x = x, .beta = beta, .out = y };                                      \
        return l2(h, BT, SYMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SB##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, I k,       \
                                                  const T *alpha, const T *A, I lda, const T *x, I incx,   \
                                                  const T *beta, T *y, I incy)                             \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .kl = k, .lda = lda, .incx = incx, .incy = incy,         \
                            .alpha = alpha, .A = A, .x = x, .beta = beta, .out = y };                      \
        return l2(h, BT, SBMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SP##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n,            \
                                                  const T *alpha, const T *AP, const T *x, I incx,         \
                                                  const T *beta, T *y, I incy)                             \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .incx = incx, .incy = incy, .alpha = alpha, .A = AP,     \
                            .x = x, .beta = beta, .out = y };                                              \
        return l2(h, BT, SPMV, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SY##r##S(cublasHandle_t h, cublasFillMode_t uplo, I n,             \
                                                 const RA *alpha, const T *x, I incx, T *A, I lda)         \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .lda = lda, .incx = incx, .alpha = alpha, .x = x,        \
                            .out = A };                                                                    \
        return l2(h, BT, SYR, &a);                                                                         \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SY##r2##S(cublasHandle_t h, cublasFillMode_t uplo, I n,            \
                                                  const T *alpha, const T *x, I incx, const T *y, I incy,  \
                                                  T *A, I lda)                                             \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .lda = lda, .incx = incx, .incy = incy, .alpha = alpha,  \
                            .x = x, .y2 = y, .out = A };                                                   \
        return l2(h, BT, SYR2, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SP##r##S(cublasHandle_t h, cublasFillMode_t uplo, I n,             \
                                                 const RA *alpha, const T *x, I incx, T *AP)               \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .incx = incx, .alpha = alpha, .x = x, .out = AP };       \
        return l2(h, BT, SPR, &a);                                                                         \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##SP##r2##S(cublasHandle_t h, cublasFillMode_t uplo, I n,            \
                                                  const T *alpha, const T *x, I incx, const T *y, I incy,  \
                                                  T *AP)                                                   \
    {                                                                                                      \
        struct l2args a = { .uplo = uplo, .n = n, .incx = incx, .incy = incy, .alpha = alpha, .x = x,      \
                            .y2 = y, .out = AP };                                                          \
        return l2(h, BT, SPR2, &a);                                                                        \
    }
#define L2_GER(P, NAME, OP, T, BT, I, S)                                                                 \
    HL_EXPORT cublasStatus_t cublas##P##NAME##S(cublasHandle_t h, I m, I n, const T *alpha, const T *x,    \
                                                I incx, const T *y, I incy, T *A, I lda)                   \
    {                                                                                                      \
        struct l2args a = { .m = m, .n = n, .lda = lda, .incx = incx, .incy = incy, .alpha = alpha,        \
                            .x = x, .y2 = y, .out = A };                                                   \
        return l2(h, BT, OP, &a);                                                                          \
    }
#define L2(I, SF)                                                                                        \
    L2_ALL(S, float, BT_S, I, SF) L2_ALL(D, double, BT_D, I, SF)                                           \
    L2_ALL(C, cuComplex, BT_C, I, SF) L2_ALL(Z, cuDoubleComplex, BT_Z, I, SF)                              \
    L2_SYM(S, sy, sb, sp, float, float, BT_S, I, SF) L2_SYM(D, sy, sb, sp, double, double, BT_D, I, SF)    \
    L2_SYM(C, he, hb, hp, cuComplex, float, BT_C, I, SF)                                                   \
    L2_SYM(Z, he, hb, hp, cuDoubleComplex, double, BT_Z, I, SF)                                            \
    L2_GER(S, ger, GER, float, BT_S, I, SF) L2_GER(D, ger, GER, double, BT_D, I, SF)                       \
    L2_GER(C, geru, GER, cuComplex, BT_C, I, SF) L2_GER(C, gerc, GERC, cuComplex, BT_C, I, SF)             \
    L2_GER(Z, geru, GER, cuDoubleComplex, BT_Z, I, SF) L2_GER(Z, gerc, GERC, cuDoubleComplex, BT_Z, I, SF)
L2(int, _v2)
L2(int64_t, _v2_64)
