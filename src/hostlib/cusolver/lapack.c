/* SPDX-License-Identifier: Apache-2.0 */
/* cuSOLVER's dense computations on the host: LAPACK (Debian's, through
 * OpenBLAS; column-major as cuSOLVER, 32-bit integers) for the
 * factorisations, QR, eigenvalues and SVD; CBLAS for LU without pivoting
 * and the triangular solves of getrs, which LAPACK has no form of. The
 * job's arguments were checked and its operands held by the caller; LAPACK's
 * workspace is carved from the caller's device workspace, whose size
 * sv_lwork gave. */
#include "solver.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* LAPACK's Fortran interface: data as void * (one prototype per routine
 * for the four types), characters with their hidden lengths */
typedef void potrf_fn(const char *uplo, const int *n, void *a, const int *lda, int *info, size_t);
typedef void potrs_fn(const char *uplo, const int *n, const int *nrhs, const void *a, const int *lda, void *b,
                      const int *ldb, int *info, size_t);
typedef void getrf_fn(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
typedef void geqrf_fn(const int *m, const int *n, void *a, const int *lda, void *tau, void *work, const int *lwork,
                      int *info);
typedef void ormqr_fn(const char *side, const char *trans, const int *m, const int *n, const int *k, const void *a,
                      const int *lda, const void *tau, void *c, const int *ldc, void *work, const int *lwork,
                      int *info, size_t, size_t);
typedef void orgqr_fn(const int *m, const int *n, const int *k, void *a, const int *lda, const void *tau, void *work,
                      const int *lwork, int *info);
typedef void syevd_fn(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, void *w, void *work,
                      const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t);
typedef void heevd_fn(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, void *w, void *work,
                      const int *lwork, void *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
                      size_t, size_t);
typedef void rgesvd_fn(const char *jobu, const char *jobvt, const int *m, const int *n, void *a, const int *lda,
                       void *s, void *u, const int *ldu, void *vt, const int *ldvt, void *work, const int *lwork,
                       int *info, size_t, size_t);
typedef void cgesvd_fn(const char *jobu, const char *jobvt, const int *m, const int *n, void *a, const int *lda,
                       void *s, void *u, const int *ldu, void *vt, const int *ldvt, void *work, const int *lwork,
                       void *rwork, int *info, size_t, size_t);
potrf_fn spotrf_, dpotrf_, cpotrf_, zpotrf_, spotri_, dpotri_, cpotri_, zpotri_;
potrs_fn spotrs_, dpotrs_, cpotrs_, zpotrs_;
getrf_fn sgetrf_, dgetrf_, cgetrf_, zgetrf_;
geqrf_fn sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_;
ormqr_fn sormqr_, dormqr_, cunmqr_, zunmqr_;
orgqr_fn sorgqr_, dorgqr_, cungqr_, zungqr_;
syevd_fn ssyevd_, dsyevd_;
heevd_fn cheevd_, zheevd_;
rgesvd_fn sgesvd_, dgesvd_;
cgesvd_fn cgesvd_, zgesvd_;

const size_t st_size[4] = { 4, 8, 8, 16 };
const size_t st_rsize[4] = { 4, 8, 4, 8 };

static potrf_fn *const potrf[4] = { spotrf_, dpotrf_, cpotrf_, zpotrf_ };
static potrf_fn *const potri[4] = { spotri_, dpotri_, cpotri_, zpotri_ };
static potrs_fn *const potrs[4] = { spotrs_, dpotrs_, cpotrs_, zpotrs_ };
static getrf_fn *const getrf[4] = { sgetrf_, dgetrf_, cgetrf_, zgetrf_ };
static geqrf_fn *const geqrf[4] = { sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_ };
static ormqr_fn *const ormqr[4] = { sormqr_, dormqr_, cunmqr_, zunmqr_ };
static orgqr_fn *const orgqr[4] = { sorgqr_, dorgqr_, cungqr_, zungqr_ };

static int cplx(enum st t)
{
    return t == ST_C || t == ST_Z;
}

/* a workspace size LAPACK answered (in the first element of work, as
 * the type's real part; a float one rounded up) */
static int64_t answered(enum st t, const void *w)
{
    double v = t == ST_S || t == ST_C ? (double)*(const float *)w * (1 + 1e-6) : *(const double *)w;
    if (!(v >= 0) || v > INT32_MAX)
        return -1;
    return (int64_t)ceil(v);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* LAPACK's workspace query for an operation; -1 if LAPACK refused */
static int64_t query(struct sv_job *j, char jobu, char jobvt)
{
    _Alignas(16) double w[2] = { 0, 0 }, rw[2] = { 0, 0 }, dummy[4] = { 0, 0, 0, 0 };
    int iw = 0, minus1 = -1, info = 0, ld = j->lda;
    switch (j->op) {
    case OP_GEQRF:
        geqrf[j->t](&j->m, &j->n, dummy, &j->lda, dummy, w, &minus1, &info);
        break;
    case OP_ORMQR:
        ormqr[j->t](&j->side, &j->trans, &j->m, &j->n, &j->k, dummy, &j->lda, dummy, dummy, &j->ldb, w, &minus1,
                    &info, 1, 1);
        break;
    case OP_ORGQR:
        orgqr[j->t](&j->m, &j->n, &j->k, dummy, &j->lda, dummy, w, &minus1, &info);
        break;
    case OP_SYEVD: {
        if (cplx(j->t))
            (j->t == ST_C ? cheevd_ : zheevd_)(&j->jobz, &j->uplo, &j->n, dummy, &j->lda, dummy, w, &minus1, rw,
                                              &minus1, &iw, &minus1, &info, 1, 1);
        else
            (j->t == ST_S ? ssyevd_ : dsyevd_)(&j->jobz, &j->uplo, &j->n, dummy, &j->lda, dummy, w, &minus1, &iw,
                                              &minus1, &info, 1, 1);
        if (info)
            return -1;
        int64_t lrw = cplx(j->t) ? answered(j->t, rw) : 0;
        if (lrw < 0 || iw < 0)
            return -1;
        j->lrw = (int)lrw;
        j->liw = iw;
        break;
    }
    case OP_GESVD: {
        int ldu = j->m > 1 ? j->m : 1, ldvt = j->n > 1 ? j->n : 1;
        if (cplx(j->t))
            (j->t == ST_C ? cgesvd_ : zgesvd_)(&jobu, &jobvt, &j->m, &j->n, dummy, &ld, dummy, dummy, &ldu, dummy,
                                              &ldvt, w, &minus1, rw, &info, 1, 1);
        else
            (j->t == ST_S ? sgesvd_ : dgesvd_)(&jobu, &jobvt, &j->m, &j->n, dummy, &ld, dummy, dummy, &ldu, dummy,
                                              &ldvt, w, &minus1, &info, 1, 1);
        break;
    }
    case OP_INFO: case OP_POTRF: case OP_POTRS: case OP_POTRI: case OP_GETRF: case OP_GETRS:
        return 1;
    }
    return info ? -1 : answered(j->t, w);
}

int64_t sv_lwork(struct sv_job *j)
{
    size_t es = st_size[j->t], rs = st_rsize[j->t];
    int64_t lw = 1, bytes;
    j->lw = j->lrw = j->liw = 0;
    switch (j->op) {
    case OP_GESVD: {
        static const char jobs[] = "ASON";
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                if (!(a == 2 && b == 2))
                    lw = max64(lw, query(j, jobs[a], jobs[b]));
        if (cplx(j->t))
            j->lrw = 5 * (j->m < j->n ? j->m : j->n);
        break;
    }
    case OP_GEQRF: case OP_ORMQR: case OP_ORGQR: case OP_SYEVD:
        lw = query(j, 0, 0);
        break;
    case OP_INFO: case OP_POTRF: case OP_POTRS: case OP_POTRI: case OP_GETRF: case OP_GETRS:
        return 1;
    }
    if (lw < 0)
        return -1;
    lw = max64(lw, 1);
    j->lw = (int)lw;
    bytes = lw * (int64_t)es + (int64_t)j->lrw * (int64_t)rs + (int64_t)j->liw * 4;
    bytes = (bytes + (int64_t)es - 1) / (int64_t)es;
    return bytes > INT32_MAX ? -1 : bytes;
}

/* ---- LU without pivoting, and getrs, with CBLAS ---- */

static void scal(enum st t, int n, const double *re_im, void *x, int inc)
{
    float f[2] = { (float)re_im[0], (float)re_im[1] };
    switch (t) {
    case ST_S: cblas_sscal(n, f[0], x, inc); break;
    case ST_D: cblas_dscal(n, re_im[0], x, inc); break;
    case ST_C: cblas_cscal(n, f, x, inc); break;
    case ST_Z: cblas_zscal(n, re_im, x, inc); break;
    }
}

/* the LU of A without row exchanges: L unit lower, U upper, in place.
 * A zero pivot sets info (the first) and leaves its column as it is, as
 * LAPACK's getrf goes on past a zero pivot. */
static int lu_nopiv(enum st t, int m, int n, void *A, int lda)
{
    size_t es = st_size[t];
    int info = 0, mn = m < n ? m : n;
    unsigned char *a = A;
    for (int k = 0; k < mn; k++) {
        unsigned char *akk = a + ((size_t)k * (size_t)lda + (size_t)k) * es;
        double re, im = 0;
        if (t == ST_S || t == ST_C) {
            re = ((float *)akk)[0];
            if (t == ST_C)
                im = ((float *)akk)[1];
        } else {
            re = ((double *)akk)[0];
            if (t == ST_Z)
                im = ((double *)akk)[1];
        }
        if (re == 0 && im == 0) {
            if (!info)
                info = k + 1;
            continue;
        }
        int rows = m - k - 1, cols = n - k - 1;
        if (rows <= 0)
            continue;
        double d = re * re + im * im, inv[2] = { re / d, -im / d };
        scal(t, rows, inv, akk + es, 1);
        if (cols <= 0)
            continue;
        void *x = akk + es, *y = akk + (size_t)lda * es, *c = akk + ((size_t)lda + 1) * es;
        float mf[2] = { -1, 0 };
        double md[2] = { -1, 0 };
        switch (t) {
        case ST_S: cblas_sger(CblasColMajor, rows, cols, -1.0f, x, 1, y, lda, c, lda); break;
        case ST_D: cblas_dger(CblasColMajor, rows, cols, -1.0, x, 1, y, lda, c, lda); break;
        case ST_C: cblas_cgeru(CblasColMajor, rows, cols, mf, x, 1, y, lda, c, lda); break;
        case ST_Z: cblas_zgeru(CblasColMajor, rows, cols, md, x, 1, y, lda, c, lda); break;
        }
    }
    return info;
}

static void trsm(enum st t, enum CBLAS_UPLO uplo, enum CBLAS_TRANSPOSE tr, enum CBLAS_DIAG diag, int n, int nrhs,
                 const void *A, int lda, void *B, int ldb)
{
    float one_f[2] = { 1, 0 };
    double one_d[2] = { 1, 0 };
    switch (t) {
    case ST_S: cblas_strsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, 1.0f, A, lda, B, ldb); break;
    case ST_D: cblas_dtrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, 1.0, A, lda, B, ldb); break;
    case ST_C: cblas_ctrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, one_f, A, lda, B, ldb); break;
    case ST_Z: cblas_ztrsm(CblasColMajor, CblasLeft, uplo, tr, diag, n, nrhs, one_d, A, lda, B, ldb); break;
    }
}

static void swap_rows(enum st t, int nrhs, void *B, int ldb, int r1, int r2)
{
    unsigned char *b = B;
    size_t es = st_size[t];
    void *x = b + (size_t)r1 * es, *y = b + (size_t)r2 * es;
    switch (t) {
    case ST_S: cblas_sswap(nrhs, x, ldb, y, ldb); break;
    case ST_D: cblas_dswap(nrhs, x, ldb, y, ldb); break;
    case ST_C: cblas_cswap(nrhs, x, ldb, y, ldb); break;
    case ST_Z: cblas_zswap(nrhs, x, ldb, y, ldb); break;
    }
}

static int64_t pivot(const struct sv_job *j, int i)
{
    return j->ipiv ? j->ipiv[i] : j->ipiv64[i];
}

/* op(A) X = B with A's LU (pivots from getrf: LAPACK's getrs, whose steps
 * these are, with pivots of either width); the pivots are device memory
 * the program wrote: one outside [1, n] is the info -ipiv_arg, B untouched */
static int getrs_run(const struct sv_job *j)
{
    int n = j->n, nrhs = j->nrhs, piv = j->ipiv || j->ipiv64;
    if (piv)
        for (int i = 0; i < n; i++) {
            int64_t p = pivot(j, i);
            if (p < 1 || p > n)
                return -j->ipiv_arg;
        }
    if (n == 0 || nrhs == 0)
        return 0;
    if (j->trans == 'N') {
        if (piv)
            for (int i = 0; i < n; i++)
                if (pivot(j, i) - 1 != i)
                    swap_rows(j->t, nrhs, j->B, j->ldb, i, (int)pivot(j, i) - 1);
        trsm(j->t, CblasLower, CblasNoTrans, CblasUnit, n, nrhs, j->A, j->lda, j->B, j->ldb);
        trsm(j->t, CblasUpper, CblasNoTrans, CblasNonUnit, n, nrhs, j->A, j->lda, j->B, j->ldb);
    } else {
        enum CBLAS_TRANSPOSE tr = j->trans == 'C' ? CblasConjTrans : CblasTrans;
        trsm(j->t, CblasUpper, tr, CblasNonUnit, n, nrhs, j->A, j->lda, j->B, j->ldb);
        trsm(j->t, CblasLower, tr, CblasUnit, n, nrhs, j->A, j->lda, j->B, j->ldb);
        if (piv)
            for (int i = n - 1; i >= 0; i--)
                if (pivot(j, i) - 1 != i)
                    swap_rows(j->t, nrhs, j->B, j->ldb, i, (int)pivot(j, i) - 1);
    }
    return 0;
}

static int gesvd_run(struct sv_job *j)
{
    int info = 0, mn = j->m < j->n ? j->m : j->n;
    size_t es = st_size[j->t], rs = st_rsize[j->t];
    unsigned char *rw = (unsigned char *)j->work + (size_t)j->lw * es;
    if (cplx(j->t))
        (j->t == ST_C ? cgesvd_ : zgesvd_)(&j->jobu, &j->jobvt, &j->m, &j->n, j->A, &j->lda, j->W, j->U, &j->ldu,
                                          j->VT, &j->ldvt, j->work, &j->lw, rw, &info, 1, 1);
    else
        (j->t == ST_S ? sgesvd_ : dgesvd_)(&j->jobu, &j->jobvt, &j->m, &j->n, j->A, &j->lda, j->W, j->U, &j->ldu,
                                          j->VT, &j->ldvt, j->work, &j->lw, &info, 1, 1);
    /* the superdiagonal that did not converge: LAPACK leaves it in
     * work(2:) (real) or rwork (complex); cuSOLVER's rwork gets it */
    if (j->rwork && mn > 1)
        memcpy(j->rwork, cplx(j->t) ? rw : (unsigned char *)j->work + es, (size_t)(mn - 1) * rs);
    return info;
}

void sv_run(struct hl_job *base)
{
    struct sv_job *j = (struct sv_job *)base;
    size_t es = st_size[j->t], rs = st_rsize[j->t];
    int info = 0, mn = j->m < j->n ? j->m : j->n;
    switch (j->op) {
    case OP_INFO:
        info = j->info_value;
        break;
    case OP_POTRF:
        if (j->n)
            potrf[j->t](&j->uplo, &j->n, j->A, &j->lda, &info, 1);
        break;
    case OP_POTRS:
        if (j->n && j->nrhs)
            potrs[j->t](&j->uplo, &j->n, &j->nrhs, j->A, &j->lda, j->B, &j->ldb, &info, 1);
        break;
    case OP_POTRI:
        if (j->n)
            potri[j->t](&j->uplo, &j->n, j->A, &j->lda, &info, 1);
        break;
    case OP_GETRF:
        if (mn == 0)
            break;
        if (j->ipiv) {
            getrf[j->t](&j->m, &j->n, j->A, &j->lda, j->ipiv, &info);
            if (j->ipiv64)
                for (int i = 0; i < mn; i++)
                    j->ipiv64[i] = j->ipiv[i];
        } else {
            info = lu_nopiv(j->t, j->m, j->n, j->A, j->lda);
        }
        break;
    case OP_GETRS:
        info = getrs_run(j);
        break;
    case OP_GEQRF:
        if (mn)
            geqrf[j->t](&j->m, &j->n, j->A, &j->lda, j->tau, j->work, &j->lw, &info);
        break;
    case OP_ORMQR:
        if (j->m && j->n)
            ormqr[j->t](&j->side, &j->trans, &j->m, &j->n, &j->k, j->A, &j->lda, j->tau, j->B, &j->ldb, j->work,
                        &j->lw, &info, 1, 1);
        break;
    case OP_ORGQR:
        if (j->n)
            orgqr[j->t](&j->m, &j->n, &j->k, j->A, &j->lda, j->tau, j->work, &j->lw, &info);
        break;
    case OP_SYEVD: {
        if (!j->n)
            break;
        unsigned char *rw = (unsigned char *)j->work + (size_t)j->lw * es;
        int *iw = (int *)(void *)(rw + (size_t)j->lrw * rs);
        if (cplx(j->t))
            (j->t == ST_C ? cheevd_ : zheevd_)(&j->jobz, &j->uplo, &j->n, j->A, &j->lda, j->W, j->work, &j->lw, rw,
                                              &j->lrw, iw, &j->liw, &info, 1, 1);
        else
            (j->t == ST_S ? ssyevd_ : dsyevd_)(&j->jobz, &j->uplo, &j->n, j->A, &j->lda, j->W, j->work, &j->lw, iw,
                                              &j->liw, &info, 1, 1);
        break;
    }
    case OP_GESVD:
        if (mn)
            info = gesvd_run(j);
        break;
    }
    if (j->info)
        *j->info = info;
}
