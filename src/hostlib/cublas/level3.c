/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS level 3 and its BLAS-like extensions in S, D, C, Z (the gemm
 * family is gemmex.c): symm/hemm, syrk/herk, syr2k/her2k, syrkx/herkx,
 * trmm (cuBLAS's out-of-place form), trsm, geam, dgmm. CBLAS does the
 * arithmetic; syrkx/herkx, geam and dgmm, which BLAS lacks, are a gemm into
 * scratch memory or plain loops. */
#include "blas.h"

#include "emuhost.h"

#include <stdlib.h>
#include <string.h>

struct l3 {
    struct hl_job h;
    enum bt t;
    enum l3op op;
    cublasOperation_t ta, tb;
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
    int m, n, k, lda, ldb, ldc, incx;
    const void *A, *B;
    void *C;
    struct scal alpha, beta;
};

#define CM CblasColMajor

/* a gemm on matrices A, B, C (syrkx) */
static void gemm1(const struct l3 *j, const void *A, const void *B, void *C, const void *a, const void *b)
{
    enum CBLAS_TRANSPOSE ta = cb_op(j->ta, j->t), tb = cb_op(j->tb, j->t);
    switch (j->t) {
    case BT_S:
        cblas_sgemm(CM, ta, tb, j->m, j->n, j->k, *(const float *)a, A, j->lda, B, j->ldb, *(const float *)b, C, j->ldc);
        break;
    case BT_D:
        cblas_dgemm(CM, ta, tb, j->m, j->n, j->k, *(const double *)a, A, j->lda, B, j->ldb, *(const double *)b, C, j->ldc);
        break;
    case BT_C: cblas_cgemm(CM, ta, tb, j->m, j->n, j->k, a, A, j->lda, B, j->ldb, b, C, j->ldc); break;
    case BT_Z: cblas_zgemm(CM, ta, tb, j->m, j->n, j->k, a, A, j->lda, B, j->ldb, b, C, j->ldc); break;
    }
}

/* geam: C = alpha op(A) + beta op(B); a zero scalar's matrix is not read */
static void geam(const struct l3 *j)
{
    double ar, ai, br, bi;
    blas_ld(j->t, scal_val(&j->alpha), 0, &ar, &ai);
    blas_ld(j->t, scal_val(&j->beta), 0, &br, &bi);
    int za = ar == 0 && ai == 0, zb = br == 0 && bi == 0;
    for (int c = 0; c < j->n; c++) {
        for (int r = 0; r < j->m; r++) {
            double xr = 0, xi = 0, yr = 0, yi = 0, re = 0, im = 0;
            if (!za) {
                size_t i = j->ta == CUBLAS_OP_N ? (size_t)c * j->lda + r : (size_t)r * j->lda + c;
                blas_ld(j->t, j->A, i, &xr, &xi);
                if (j->ta == CUBLAS_OP_C)
                    xi = -xi;
                re += ar * xr - ai * xi;
                im += ar * xi + ai * xr;
            }
            if (!zb) {
                size_t i = j->tb == CUBLAS_OP_N ? (size_t)c * j->ldb + r : (size_t)r * j->ldb + c;
                blas_ld(j->t, j->B, i, &yr, &yi);
                if (j->tb == CUBLAS_OP_C)
                    yi = -yi;
                re += br * yr - bi * yi;
                im += br * yi + bi * yr;
            }
            blas_st(j->t, j->C, (size_t)c * j->ldc + r, re, im);
        }
    }
}

/* dgmm: C = A diag(x) (right) or diag(x) A (left) */
static void dgmm(const struct l3 *j)
{
    long inc = j->incx;
    long base = inc < 0 ? (long)(1 - (j->side == CUBLAS_SIDE_LEFT ? j->m : j->n)) * inc : 0;
    for (int c = 0; c < j->n; c++) {
        for (int r = 0; r < j->m; r++) {
            double ar, ai, xr, xi;
            blas_ld(j->t, j->A, (size_t)c * j->lda + r, &ar, &ai);
            blas_ld(j->t, j->B, (size_t)(base + (long)(j->side == CUBLAS_SIDE_LEFT ? r : c) * inc), &xr, &xi);
            blas_st(j->t, j->C, (size_t)c * j->ldc + r, ar * xr - ai * xi, ar * xi + ai * xr);
        }
    }
}

/* syrkx/herkx: the uplo triangle of C = alpha op(A) op(B)^T|H + beta C */
static void syrkx(const struct l3 *j)
{
    size_t es = bt_size[j->t];
    void *tmp = calloc((size_t)j->n * (size_t)j->n, es);
    if (!tmp)
        return; /* cannot happen for sizes that fit in memory twice */
    struct l3 g = *j;
    static const double zero[2] = { 0, 0 };   /* zero as float or double */
    g.m = g.n = j->n;
    g.ldc = j->n;
    g.ta = j->ta;
    g.tb = j->ta == CUBLAS_OP_N ? (j->op == HERKX ? CUBLAS_OP_C : CUBLAS_OP_T) : CUBLAS_OP_N;
    if (j->op == HERKX && j->ta != CUBLAS_OP_N)
        g.ta = CUBLAS_OP_C;
    gemm1(&g, j->A, j->B, tmp, scal_val(&j->alpha), zero);
    double br, bi;
    blas_ld(j->t, scal_val(&j->beta), 0, &br, &bi);
    if (j->op == HERKX)
        bi = 0; /* beta is real */
    for (int c = 0; c < j->n; c++) {
        int r0 = j->uplo == CUBLAS_FILL_MODE_UPPER ? 0 : c, r1 = j->uplo == CUBLAS_FILL_MODE_UPPER ? c : j->n - 1;
        for (int r = r0; r <= r1; r++) {
            double tr, ti, cr = 0, ci = 0;
            blas_ld(j->t, tmp, (size_t)c * j->n + r, &tr, &ti);
            if (br != 0 || bi != 0)
                blas_ld(j->t, j->C, (size_t)c * j->ldc + r, &cr, &ci);
            double re = tr + br * cr - bi * ci, im = ti + br * ci + bi * cr;
            if (j->op == HERKX && r == c)
                im = 0;
            blas_st(j->t, j->C, (size_t)c * j->ldc + r, re, im);
        }
    }
    free(tmp);
}

/* trmm, out of place: C = alpha op(A) B (B copied to C, then in place) */
static void trmm(const struct l3 *j)
{
    size_t es = bt_size[j->t];
    if (j->C != j->B || j->ldb != j->ldc)
        for (int c = 0; c < j->n; c++)
            memmove((char *)j->C + (size_t)c * j->ldc * es, (const char *)j->B + (size_t)c * j->ldb * es,
                    (size_t)j->m * es);
    const void *a = scal_val(&j->alpha);
    enum CBLAS_SIDE sd = cb_side(j->side);
    enum CBLAS_UPLO ul = cb_uplo(j->uplo);
    enum CBLAS_TRANSPOSE tr = cb_op(j->ta, j->t);
    enum CBLAS_DIAG dg = cb_diag(j->diag);
    switch (j->t) {
    case BT_S: cblas_strmm(CM, sd, ul, tr, dg, j->m, j->n, *(const float *)a, j->A, j->lda, j->C, j->ldc); break;
    case BT_D: cblas_dtrmm(CM, sd, ul, tr, dg, j->m, j->n, *(const double *)a, j->A, j->lda, j->C, j->ldc); break;
    case BT_C: cblas_ctrmm(CM, sd, ul, tr, dg, j->m, j->n, a, j->A, j->lda, j->C, j->ldc); break;
    case BT_Z: cblas_ztrmm(CM, sd, ul, tr, dg, j->m, j->n, a, j->A, j->lda, j->C, j->ldc); break;
    }
}

void blas_trsm(enum bt t, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
               cublasDiagType_t diag, int m, int n, const void *a, const void *A, int lda, void *B, int ldb)
{
    enum CBLAS_SIDE sd = cb_side(side);
    enum CBLAS_UPLO ul = cb_uplo(uplo);
    enum CBLAS_TRANSPOSE tr = cb_op(trans, t);
    enum CBLAS_DIAG dg = cb_diag(diag);
    switch (t) {
    case BT_S: cblas_strsm(CM, sd, ul, tr, dg, m, n, *(const float *)a, A, lda, B, ldb); break;
    case BT_D: cblas_dtrsm(CM, sd, ul, tr, dg, m, n, *(const double *)a, A, lda, B, ldb); break;
    case BT_C: cblas_ctrsm(CM, sd, ul, tr, dg, m, n, a, A, lda, B, ldb); break;
    case BT_Z: cblas_ztrsm(CM, sd, ul, tr, dg, m, n, a, A, lda, B, ldb); break;
    }
}

static void run_l3(struct hl_job *hj)
{
    struct l3 *j = (struct l3 *)hj;
    const void *a = scal_val(&j->alpha), *b = scal_val(&j->beta);
    float fa = 0, fb = 0;
    double da = 0, db = 0;
    if (j->t == BT_S || j->t == BT_C) {
        fa = *(const float *)a;
        fb = *(const float *)b;
    } else {
        da = *(const double *)a;
        db = *(const double *)b;
    }
    enum CBLAS_SIDE sd = cb_side(j->side);
    enum CBLAS_UPLO ul = cb_uplo(j->uplo);
    enum CBLAS_TRANSPOSE tr = cb_op(j->ta, j->t);
    switch (j->op) {
    case SYMM:
    case HEMM:
        switch (j->t) {
        case BT_S: cblas_ssymm(CM, sd, ul, j->m, j->n, fa, j->A, j->lda, j->B, j->ldb, fb, j->C, j->ldc); break;
        case BT_D: cblas_dsymm(CM, sd, ul, j->m, j->n, da, j->A, j->lda, j->B, j->ldb, db, j->C, j->ldc); break;
        case BT_C:
            (j->op == HEMM ? cblas_chemm : cblas_csymm)(CM, sd, ul, j->m, j->n, a, j->A, j->lda, j->B, j->ldb, b, j->C, j->ldc);
            break;
        case BT_Z:
            (j->op == HEMM ? cblas_zhemm : cblas_zsymm)(CM, sd, ul, j->m, j->n, a, j->A, j->lda, j->B, j->ldb, b, j->C, j->ldc);
            break;
        }
        break;
    case SYRK:
        switch (j->t) {
        case BT_S: cblas_ssyrk(CM, ul, tr, j->n, j->k, fa, j->A, j->lda, fb, j->C, j->ldc); break;
        case BT_D: cblas_dsyrk(CM, ul, tr, j->n, j->k, da, j->A, j->lda, db, j->C, j->ldc); break;
        case BT_C: cblas_csyrk(CM, ul, tr, j->n, j->k, a, j->A, j->lda, b, j->C, j->ldc); break;
        case BT_Z: cblas_zsyrk(CM, ul, tr, j->n, j->k, a, j->A, j->lda, b, j->C, j->ldc); break;
        }
        break;
    case HERK: /* alpha and beta real */
        if (j->t == BT_C)
            cblas_cherk(CM, ul, tr, j->n, j->k, fa, j->A, j->lda, fb, j->C, j->ldc);
        else
            cblas_zherk(CM, ul, tr, j->n, j->k, da, j->A, j->lda, db, j->C, j->ldc);
        break;
    case SYR2K:
        switch (j->t) {
        case BT_S: cblas_ssyr2k(CM, ul, tr, j->n, j->k, fa, j->A, j->lda, j->B, j->ldb, fb, j->C, j->ldc); break;
        case BT_D: cblas_dsyr2k(CM, ul, tr, j->n, j->k, da, j->A, j->lda, j->B, j->ldb, db, j->C, j->ldc); break;
        case BT_C: cblas_csyr2k(CM, ul, tr, j->n, j->k, a, j->A, j->lda, j->B, j->ldb, b, j->C, j->ldc); break;
        case BT_Z: cblas_zsyr2k(CM, ul, tr, j->n, j->k, a, j->A, j->lda, j->B, j->ldb, b, j->C, j->ldc); break;
        }
        break;
    case HER2K: /* beta real */
        if (j->t == BT_C)
            cblas_cher2k(CM, ul, tr, j->n, j->k, a, j->A, j->lda, j->B, j->ldb, *(const float *)b, j->C, j->ldc);
        else
            cblas_zher2k(CM, ul, tr, j->n, j->k, a, j->A, j->lda, j->B, j->ldb, *(const double *)b, j->C, j->ldc);
        break;
    case SYRKX:
    case HERKX:
        syrkx(j);
        break;
    case TRMM:
        trmm(j);
        break;
    case TRSM:
        blas_trsm(j->t, j->side, j->uplo, j->ta, j->diag, j->m, j->n, a, j->A, j->lda, j->C, j->ldc);
        break;
    case GEAM:
        geam(j);
        break;
    case DGMM:
        dgmm(j);
        break;
    case GEMM:
        gemm1(j, j->A, j->B, j->C, a, b);
        break;
    }
}

/* ---- the common path ----------------------------------------------------- */
/* the stored rows and columns of A, B and C of a call (after l3_shape) */
struct shape {
    int64_t m, n, k, ar, ac, br, bc, crows, ccols;
};

/* checks a call's arguments as cuBLAS does and works out its shape */
static cublasStatus_t l3_shape(enum bt t, enum l3op op, const struct l3args *a, struct shape *sh)
{
    int cplx = t == BT_C || t == BT_Z;
    int herm = op == HEMM || op == HERK || op == HER2K || op == HERKX;
    int64_t m = a->m, n = a->n, k = a->k;
    int64_t ar, ac, br = 0, bc = 0; /* A's and B's stored rows and columns */
    int64_t crows = m, ccols = n;
    switch (op) {
    case SYMM:
    case HEMM:
        if (!side_ok(a->side) || !fill_ok(a->uplo))
            return CUBLAS_STATUS_INVALID_VALUE;
        ar = ac = a->side == CUBLAS_SIDE_LEFT ? m : n;
        br = m;
        bc = n;
        break;
    case SYRK: case HERK: case SYR2K: case HER2K: case SYRKX: case HERKX:
        if (!fill_ok(a->uplo) || !op_ok(a->ta) || (cplx && herm && a->ta == CUBLAS_OP_T) ||
            (cplx && !herm && a->ta == CUBLAS_OP_C))
            return CUBLAS_STATUS_INVALID_VALUE;
        m = n;
        crows = ccols = n;
        ar = a->ta == CUBLAS_OP_N ? n : k;
        ac = a->ta == CUBLAS_OP_N ? k : n;
        if (op != SYRK && op != HERK) {
            br = ar;
            bc = ac;
        }
        break;
    case TRMM:
    case TRSM:
        if (!side_ok(a->side) || !fill_ok(a->uplo) || !op_ok(a->ta) || !diag_ok(a->diag))
            return CUBLAS_STATUS_INVALID_VALUE;
        ar = ac = a->side == CUBLAS_SIDE_LEFT ? m : n;
        br = m;
        bc = n;
        break;
    case GEAM:
        if (!op_ok(a->ta) || !op_ok(a->tb))
            return CUBLAS_STATUS_INVALID_VALUE;
        ar = a->ta == CUBLAS_OP_N ? m : n;
        ac = a->ta == CUBLAS_OP_N ? n : m;
        br = a->tb == CUBLAS_OP_N ? m : n;
        bc = a->tb == CUBLAS_OP_N ? n : m;
        break;
    case DGMM:
        if (!side_ok(a->side))
            return CUBLAS_STATUS_INVALID_VALUE;
        ar = m;
        ac = n;
        break;
    case GEMM:
        if (!op_ok(a->ta) || !op_ok(a->tb))
            return CUBLAS_STATUS_INVALID_VALUE;
        ar = a->ta == CUBLAS_OP_N ? m : k;
        ac = a->ta == CUBLAS_OP_N ? k : m;
        br = a->tb == CUBLAS_OP_N ? k : n;
        bc = a->tb == CUBLAS_OP_N ? n : k;
        break;
    default:
        return CUBLAS_STATUS_INTERNAL_ERROR;
    }
    if (m < 0 || n < 0 || k < 0 || a->lda < (ar > 1 ? ar : 1) ||
        (br && a->ldb < (br > 1 ? br : 1)) || (op != TRSM && a->ldc < (crows > 1 ? crows : 1)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (op == TRSM && a->ldb < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!fits(m) || !fits(n) || !fits(k) || !fits(a->lda) || !fits(a->ldb) || !fits(a->ldc) || !fits(a->incx))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    *sh = (struct shape){ m, n, k, ar, ac, br, bc, crows, ccols };
    return CUBLAS_STATUS_SUCCESS;
}

/* the job's operation from a checked call */
static void l3_fill(struct l3 *j, enum bt t, enum l3op op, const struct l3args *a, const struct shape *sh)
{
    j->t = t;
    j->op = op;
    j->ta = a->ta;
    j->tb = a->tb;
    j->side = a->side;
    j->uplo = a->uplo;
    j->diag = a->diag;
    j->m = (int)sh->m;
    j->n = (int)sh->n;
    j->k = (int)sh->k;
    j->lda = (int)a->lda;
    j->ldb = (int)a->ldb;
    j->ldc = (int)(op == TRSM ? a->ldb : a->ldc);
    j->incx = (int)a->incx;
    j->A = a->A;
    j->B = a->B;
    j->C = op == TRSM ? (void *)a->B : a->C;
}

/* the size of the scalars: herk's alpha and beta real, her2k's and herkx's beta */
static size_t alpha_size(enum bt t, enum l3op op)
{
    return op == HERK ? bt_rsize[t] : bt_size[t];
}

static size_t beta_size(enum bt t, enum l3op op)
{
    return op == HERK || op == HER2K || op == HERKX ? bt_rsize[t] : bt_size[t];
}

static int has_beta(enum l3op op)
{
    return op != TRMM && op != TRSM && op != DGMM;
}

static cublasStatus_t l3(cublasHandle_t h, enum bt t, enum l3op op, const struct l3args *a)
{
    cublasStatus_t r = blas_handle(h);
    struct shape sh;
    if (!r)
        r = l3_shape(t, op, a, &sh);
    if (r || sh.m == 0 || sh.n == 0)
        return r;
    hl_note("OpenBLAS level 3"); /* tdtrace -e lib= shows it */
    struct l3 *j = hl_job_new(sizeof *j, run_l3);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    l3_fill(j, t, op, a, &sh);
    size_t es = bt_size[t];
    int64_t m = sh.m, n = sh.n, ar = sh.ar, ac = sh.ac, br = sh.br, bc = sh.bc, crows = sh.crows, ccols = sh.ccols;
    int bad = 0;
    if (op != DGMM)
        bad |= scal_take(&j->h, h, a->alpha, alpha_size(t, op), &j->alpha);
    if (has_beta(op))
        bad |= scal_take(&j->h, h, a->beta, beta_size(t, op), &j->beta);
    int64_t abytes = hl_mat_bytes(ar, ac, a->lda, es);
    int64_t bbytes = br ? hl_mat_bytes(br, bc, a->ldb, es) : 0;
    int64_t cbytes = hl_mat_bytes(crows, ccols, op == TRSM ? a->ldb : a->ldc, es);
    if (op == DGMM)
        bbytes = hl_vec_bytes(a->side == CUBLAS_SIDE_LEFT ? m : n, a->incx, es);
    if (op == GEAM) {
        /* a zero scalar's matrix is not read (cuBLAS allows it NULL) */
        if (j->alpha.dev || !scal_is_zero(&j->alpha, t))
            bad |= blas_hold(&j->h, a->A, abytes);
        if (j->beta.dev || !scal_is_zero(&j->beta, t))
            bad |= blas_hold(&j->h, a->B, bbytes);
    } else {
        bad |= blas_hold(&j->h, a->A, abytes);
        if (br || op == DGMM)
            bad |= blas_hold(&j->h, a->B, bbytes);
    }
    bad |= blas_hold(&j->h, op == TRSM ? a->B : a->C, cbytes);
    if (bad) {
        hl_job_free(&j->h);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    return blas_submit(h, &j->h, 0);
}

cublasStatus_t blas_l3_now(enum bt t, enum l3op op, const struct l3args *a)
{
    struct shape sh;
    cublasStatus_t r = l3_shape(t, op, a, &sh);
    if (r || sh.m == 0 || sh.n == 0)
        return r;
    if ((op != DGMM && !a->alpha) || (has_beta(op) && !a->beta) || !a->A || (sh.br && !a->B) ||
        (op != TRSM && !a->C))
        return CUBLAS_STATUS_INVALID_VALUE;
    /* an operand in the emulated device memory: held for its whole extent
     * (else INVALID_VALUE), and the context's queued work done first */
    size_t es = bt_size[t];
    const void *op_p[3] = { a->A, sh.br ? a->B : NULL, op == TRSM ? a->B : a->C };
    int64_t op_b[3] = { hl_mat_bytes(sh.ar, sh.ac, a->lda, es), hl_mat_bytes(sh.br, sh.bc, a->ldb, es),
                        hl_mat_bytes(sh.crows, sh.ccols, op == TRSM ? a->ldb : a->ldc, es) };
    void *tok[3] = { NULL, NULL, NULL };
    const struct td_emuhost *eh = hl_emuhost();
    int dev = 0;
    for (int i = 0; i < 3 && eh; i++) {
        void *probe;
        if (!op_p[i] || eh->hold((CUdeviceptr)(uintptr_t)op_p[i], 0, &probe) != CUDA_SUCCESS)
            continue; /* host memory */
        eh->release(probe);
        if (op_b[i] < 0 || eh->hold((CUdeviceptr)(uintptr_t)op_p[i], (size_t)op_b[i], &tok[i]) != CUDA_SUCCESS)
            r = CUBLAS_STATUS_INVALID_VALUE;
        dev = 1;
    }
    CUcontext c = NULL;
    if (!r && dev && cuCtxGetCurrent(&c) == CUDA_SUCCESS && c && cuCtxSynchronize() != CUDA_SUCCESS)
        r = CUBLAS_STATUS_EXECUTION_FAILED;
    if (!r) {
        struct l3 j;
        memset(&j, 0, sizeof j);
        l3_fill(&j, t, op, a, &sh);
        if (op != DGMM)
            memcpy(j.alpha.v, a->alpha, alpha_size(t, op));
        if (has_beta(op))
            memcpy(j.beta.v, a->beta, beta_size(t, op));
        run_l3(&j.h);
    }
    for (int i = 0; i < 3; i++)
        if (tok[i])
            eh->release(tok[i]);
    return r;
}

/* ---- entry points ------------------------------------------------------ */
#define L3_ALL(P, T, BT, I, S, S2)                                                                       \
    HL_EXPORT cublasStatus_t cublas##P##symm##S(cublasHandle_t h, cublasSideMode_t side,                   \
                                                cublasFillMode_t uplo, I m, I n, const T *alpha,           \
                                                const T *A, I lda, const T *B, I ldb, const T *beta, T *C, \
                                                I ldc)                                                     \
    {                                                                                                      \
        struct l3args a = { .side = side, .uplo = uplo, .m = m, .n = n, .lda = lda, .ldb = ldb,            \
                            .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C }; \
        return l3(h, BT, SYMM, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##syrk##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, I n, I k, const T *alpha,         \
                                                const T *A, I lda, const T *beta, T *C, I ldc)             \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldc = ldc,             \
                            .alpha = alpha, .beta = beta, .A = A, .C = C };                    \
        return l3(h, BT, SYRK, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##syr2k##S(cublasHandle_t h, cublasFillMode_t uplo,                  \
                                                 cublasOperation_t trans, I n, I k, const T *alpha,        \
                                                 const T *A, I lda, const T *B, I ldb, const T *beta,      \
                                                 T *C, I ldc)                                              \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, \
                            .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return l3(h, BT, SYR2K, &a);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##syrkx##S2(cublasHandle_t h, cublasFillMode_t uplo,                 \
                                                  cublasOperation_t trans, I n, I k, const T *alpha,       \
                                                  const T *A, I lda, const T *B, I ldb, const T *beta,     \
                                                  T *C, I ldc)                                             \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, \
                            .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return l3(h, BT, SYRKX, &a);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##trmm##S(cublasHandle_t h, cublasSideMode_t side,                   \
                                                cublasFillMode_t uplo, cublasOperation_t trans,            \
                                                cublasDiagType_t diag, I m, I n, const T *alpha,           \
                                                const T *A, I lda, const T *B, I ldb, T *C, I ldc)         \
    {                                                                                                      \
        struct l3args a = { .side = side, .uplo = uplo, .ta = trans, .diag = diag, .m = m, .n = n,         \
                            .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .A = A, .B = B, .C = C }; \
        return l3(h, BT, TRMM, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##trsm##S(cublasHandle_t h, cublasSideMode_t side,                   \
                                                cublasFillMode_t uplo, cublasOperation_t trans,            \
                                                cublasDiagType_t diag, I m, I n, const T *alpha,           \
                                                const T *A, I lda, T *B, I ldb)                            \
    {                                                                                                      \
        struct l3args a = { .side = side, .uplo = uplo, .ta = trans, .diag = diag, .m = m, .n = n,         \
                            .lda = lda, .ldb = ldb, .alpha = alpha, .A = A, .B = B };          \
        return l3(h, BT, TRSM, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##geam##S2(cublasHandle_t h, cublasOperation_t transa,               \
                                                 cublasOperation_t transb, I m, I n, const T *alpha,       \
                                                 const T *A, I lda, const T *beta, const T *B, I ldb,      \
                                                 T *C, I ldc)                                              \
    {                                                                                                      \
        struct l3args a = { .ta = transa, .tb = transb, .m = m, .n = n, .lda = lda, .ldb = ldb,            \
                            .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C }; \
        return l3(h, BT, GEAM, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##dgmm##S2(cublasHandle_t h, cublasSideMode_t mode, I m, I n,        \
                                                 const T *A, I lda, const T *x, I incx, T *C, I ldc)       \
    {                                                                                                      \
        struct l3args a = { .side = mode, .m = m, .n = n, .lda = lda, .incx = incx, .ldc = ldc, .A = A,    \
                            .B = x, .C = C };                                                  \
        return l3(h, BT, DGMM, &a);                                                                        \
    }
#define L3_HER(P, T, R, BT, I, S, S2)                                                                    \
    HL_EXPORT cublasStatus_t cublas##P##hemm##S(cublasHandle_t h, cublasSideMode_t side,                   \
                                                cublasFillMode_t uplo, I m, I n, const T *alpha,           \
                                                const T *A, I lda, const T *B, I ldb, const T *beta, T *C, \
                                                I ldc)                                                     \
    {                                                                                                      \
        struct l3args a = { .side = side, .uplo = uplo, .m = m, .n = n, .lda = lda, .ldb = ldb,            \
                            .ldc = ldc, .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C }; \
        return l3(h, BT, HEMM, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##herk##S(cublasHandle_t h, cublasFillMode_t uplo,                   \
                                                cublasOperation_t trans, I n, I k, const R *alpha,         \
                                                const T *A, I lda, const R *beta, T *C, I ldc)             \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldc = ldc,             \
                            .alpha = alpha, .beta = beta, .A = A, .C = C };                    \
        return l3(h, BT, HERK, &a);                                                                        \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##her2k##S(cublasHandle_t h, cublasFillMode_t uplo,                  \
                                                 cublasOperation_t trans, I n, I k, const T *alpha,        \
                                                 const T *A, I lda, const T *B, I ldb, const R *beta,      \
                                                 T *C, I ldc)                                              \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, \
                            .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return l3(h, BT, HER2K, &a);                                                                       \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublas##P##herkx##S2(cublasHandle_t h, cublasFillMode_t uplo,                 \
                                                  cublasOperation_t trans, I n, I k, const T *alpha,       \
                                                  const T *A, I lda, const T *B, I ldb, const R *beta,     \
                                                  T *C, I ldc)                                             \
    {                                                                                                      \
        struct l3args a = { .uplo = uplo, .ta = trans, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, \
                            .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return l3(h, BT, HERKX, &a);                                                                       \
    }
#define L3(I, SF, SF2)                                                                                   \
    L3_ALL(S, float, BT_S, I, SF, SF2) L3_ALL(D, double, BT_D, I, SF, SF2)                                 \
    L3_ALL(C, cuComplex, BT_C, I, SF, SF2) L3_ALL(Z, cuDoubleComplex, BT_Z, I, SF, SF2)                    \
    L3_HER(C, cuComplex, float, BT_C, I, SF, SF2) L3_HER(Z, cuDoubleComplex, double, BT_Z, I, SF, SF2)
L3(int, _v2, )
L3(int64_t, _v2_64, _64)
