/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuSOLVER (build/lib/tdtrace/host/libcusolver.so.12) on the
 * emulated GPU, built against tdtrace's own declarations
 * (src/hostlib/cusolver/cusolver_api.h): every implemented function against
 * straightforward host loops in complex double. Tolerances: a solve's
 * backward error max|A x - b| / (max|A| max|x| n), a factorisation's
 * max|reconstruction - A| / (max|A| n) and an orthogonality's
 * max|Q^H Q - I| / n within 1e-5 for float and complex float, 1e-13 for
 * double and complex double; infos and statuses exact.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cusolver */
#include <complex.h>
#include <unistd.h>

#include "check.h"
#include "cusolver_api.h"

/* not implemented (generated stubs); declared here, called to see their status */
cusolverStatus_t cusolverDnDsytrf_bufferSize(cusolverDnHandle_t h, int n, double *A, int lda, int *lwork);
struct cusolverSpContext;
cusolverStatus_t cusolverSpCreate(struct cusolverSpContext **h);

typedef double complex cx;
enum { S, D, C, Z };
static const char tname[] = "SDCZ";
static const size_t esz[4] = { 4, 8, 8, 16 };
static const double tol[4] = { 1e-5, 1e-13, 1e-5, 1e-13 };
static const cudaDataType dtype[4] = { CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F };
static int cplx(int t) { return t == C || t == Z; }

static CUstream s;
static cusolverDnHandle_t h;

/* ---- values of any type, held as complex doubles ---- */
static void *up(int t, const cx *v, size_t n)
{
    void *d = dalloc(n * esz[t] + 1), *tmp = malloc(n * esz[t] + 1);
    for (size_t i = 0; i < n; i++)
        switch (t) {
        case S: ((float *)tmp)[i] = (float)creal(v[i]); break;
        case D: ((double *)tmp)[i] = creal(v[i]); break;
        case C: ((float *)tmp)[2 * i] = (float)creal(v[i]); ((float *)tmp)[2 * i + 1] = (float)cimag(v[i]); break;
        case Z: ((double *)tmp)[2 * i] = creal(v[i]); ((double *)tmp)[2 * i + 1] = cimag(v[i]); break;
        }
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)d, tmp, n * esz[t]));
    free(tmp);
    return d;
}

static cx *down(int t, const void *d, size_t n)
{
    void *tmp = malloc(n * esz[t] + 1);
    cx *v = malloc(n * sizeof *v + 1);
    DRV(cuStreamSynchronize(s));
    DRV(cuMemcpyDtoH_v2(tmp, (CUdeviceptr)(uintptr_t)d, n * esz[t]));
    for (size_t i = 0; i < n; i++)
        switch (t) {
        case S: v[i] = ((float *)tmp)[i]; break;
        case D: v[i] = ((double *)tmp)[i]; break;
        case C: v[i] = CMPLX(((float *)tmp)[2 * i], ((float *)tmp)[2 * i + 1]); break;
        case Z: v[i] = CMPLX(((double *)tmp)[2 * i], ((double *)tmp)[2 * i + 1]); break;
        }
    free(tmp);
    return v;
}

/* a real array (eigenvalues, singular values) of type t's real part */
static double *down_r(int t, const void *d, size_t n)
{
    cx *c = down(t == S || t == C ? S : D, d, n);
    double *r = malloc(n * sizeof *r + 1);
    for (size_t i = 0; i < n; i++)
        r[i] = creal(c[i]);
    free(c);
    return r;
}

static int info_of(const int *dinfo)
{
    int v = 0x7fff;
    DRV(cuStreamSynchronize(s));
    DRV(cuMemcpyDtoH_v2(&v, (CUdeviceptr)(uintptr_t)dinfo, sizeof v));
    return v;
}

static void set_info(int *dinfo, int v)
{
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dinfo, &v, sizeof v));
}

static void dfree(void *d)
{
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
}

/* random values of type t (rounded to it) */
static cx *rnd(int t, size_t n)
{
    cx *v = malloc(n * sizeof *v + 1);
    for (size_t i = 0; i < n; i++) {
        double re = urand(), im = cplx(t) ? urand() : 0;
        if (t == S || t == C)
            re = (float)re, im = (float)im;
        v[i] = CMPLX(re, im);
    }
    return v;
}

static cx opv(cx v, char op)
{
    return op == 'C' ? conj(v) : v;
}

/* C (m x n) = op(A) op(B), k inner, column-major */
static cx *mm(int m, int n, int k, const cx *A, int lda, char ta, const cx *B, int ldb, char tb)
{
    cx *c = calloc((size_t)m * (size_t)n + 1, sizeof *c);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            cx acc = 0;
            for (int l = 0; l < k; l++) {
                cx a = ta == 'N' ? A[i + (size_t)l * lda] : opv(A[l + (size_t)i * lda], ta);
                cx b = tb == 'N' ? B[l + (size_t)j * ldb] : opv(B[j + (size_t)l * ldb], tb);
                acc += a * b;
            }
            c[i + (size_t)j * m] = acc;
        }
    return c;
}

static double maxabs(const cx *v, int m, int n, int ld)
{
    double x = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            if (cabs(v[i + (size_t)j * ld]) > x)
                x = cabs(v[i + (size_t)j * ld]);
    return x;
}

/* max|got - want| over an m x n block */
static double maxdiff(const cx *got, int ldg, const cx *want, int ldw, int m, int n)
{
    double x = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double d = cabs(got[i + (size_t)j * ldg] - want[i + (size_t)j * ldw]);
            if (!(d <= x))
                x = isnan(d) ? INFINITY : d;
        }
    return x;
}

static void within(const char *what, double err, double limit)
{
    if (!(err <= limit))
        bad("%s: %.3g, above the tolerance %.3g", what, err, limit);
}

/* a Hermitian positive definite n x n matrix (ld), B B^H + n I */
static cx *hpd(int t, int n, int ld)
{
    cx *b = rnd(t, (size_t)n * n), *a = calloc((size_t)ld * n + 1, sizeof *a);
    cx *p = mm(n, n, n, b, n, 'N', b, n, 'C');
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (size_t)j * ld] = p[i + (size_t)j * n] + (i == j ? n : 0);
    if (t == S || t == C) /* representable exactly, Hermitian exactly */
        for (size_t i = 0; i < (size_t)ld * n; i++)
            a[i] = CMPLX((float)creal(a[i]), (float)cimag(a[i]));
    for (int j = 0; j < n; j++)
        a[j + (size_t)j * ld] = creal(a[j + (size_t)j * ld]);
    free(b);
    free(p);
    return a;
}

/* backward error of a solve: max|op(A) x - b| / (max|A| max|x| n) */
static double solve_err(int n, int nrhs, const cx *A, int lda, char op, const cx *x, int ldx, const cx *b, int ldb)
{
    cx *ax = mm(n, nrhs, n, A, lda, op, x, ldx, 'N');
    double e = maxdiff(ax, n, b, ldb, n, nrhs) / (maxabs(A, n, n, lda) * maxabs(x, n, nrhs, ldx) * n);
    free(ax);
    return e;
}

static int *dinfo;

/* ---- potrf, potrs, potri ---- */
static void test_potrf(int t)
{
    char name[96];
    snprintf(name, sizeof name, "%cpotrf, %cpotrs, %cpotri (lower and upper, n 40, lda 43, 3 right-hand sides)",
             tname[t], tname[t], tname[t]);
    begin(name);
    const int n = 40, lda = 43, nrhs = 3, ldb = 41;
    cx *a = hpd(t, n, lda), *b = rnd(t, (size_t)ldb * nrhs);
    for (int u = 0; u < 2; u++) {
        cublasFillMode_t uplo = u ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
        void *dA = up(t, a, (size_t)lda * n), *dB = up(t, b, (size_t)ldb * nrhs);
        int lw = -1;
        cusolverStatus_t r = 0;
        switch (t) {
        case S: r = cusolverDnSpotrf_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case D: r = cusolverDnDpotrf_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case C: r = cusolverDnCpotrf_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case Z: r = cusolverDnZpotrf_bufferSize(h, uplo, n, dA, lda, &lw); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        if (lw < 1)
            bad("bufferSize %d", lw);
        void *w = dalloc((size_t)lw * esz[t]);
        set_info(dinfo, 77);
        switch (t) {
        case S: r = cusolverDnSpotrf(h, uplo, n, dA, lda, w, lw, dinfo); break;
        case D: r = cusolverDnDpotrf(h, uplo, n, dA, lda, w, lw, dinfo); break;
        case C: r = cusolverDnCpotrf(h, uplo, n, dA, lda, w, lw, dinfo); break;
        case Z: r = cusolverDnZpotrf(h, uplo, n, dA, lda, w, lw, dinfo); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        /* the factor: L L^H or U^H U is A */
        cx *f = down(t, dA, (size_t)lda * n), *tri = calloc((size_t)n * n, sizeof *tri);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (u ? i <= j : i >= j)
                    tri[i + (size_t)j * n] = f[i + (size_t)j * lda];
        cx *rec = u ? mm(n, n, n, tri, n, 'C', tri, n, 'N') : mm(n, n, n, tri, n, 'N', tri, n, 'C');
        within("factor's reconstruction", maxdiff(rec, n, a, lda, n, n) / (maxabs(a, n, n, lda) * n), tol[t]);
        set_info(dinfo, 77);
        switch (t) {
        case S: r = cusolverDnSpotrs(h, uplo, n, nrhs, dA, lda, dB, ldb, dinfo); break;
        case D: r = cusolverDnDpotrs(h, uplo, n, nrhs, dA, lda, dB, ldb, dinfo); break;
        case C: r = cusolverDnCpotrs(h, uplo, n, nrhs, dA, lda, dB, ldb, dinfo); break;
        case Z: r = cusolverDnZpotrs(h, uplo, n, nrhs, dA, lda, dB, ldb, dinfo); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        cx *x = down(t, dB, (size_t)ldb * nrhs);
        within("potrs backward error", solve_err(n, nrhs, a, lda, 'N', x, ldb, b, ldb), tol[t]);
        /* potri: the inverse's triangle, from the factor */
        switch (t) {
        case S: r = cusolverDnSpotri_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case D: r = cusolverDnDpotri_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case C: r = cusolverDnCpotri_bufferSize(h, uplo, n, dA, lda, &lw); break;
        case Z: r = cusolverDnZpotri_bufferSize(h, uplo, n, dA, lda, &lw); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        void *w2 = dalloc((size_t)lw * esz[t]);
        switch (t) {
        case S: r = cusolverDnSpotri(h, uplo, n, dA, lda, w2, lw, dinfo); break;
        case D: r = cusolverDnDpotri(h, uplo, n, dA, lda, w2, lw, dinfo); break;
        case C: r = cusolverDnCpotri(h, uplo, n, dA, lda, w2, lw, dinfo); break;
        case Z: r = cusolverDnZpotri(h, uplo, n, dA, lda, w2, lw, dinfo); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        cx *inv = down(t, dA, (size_t)lda * n), *full = calloc((size_t)n * n, sizeof *full);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                int in = u ? i <= j : i >= j;
                full[i + (size_t)j * n] = in ? inv[i + (size_t)j * lda] : conj(inv[j + (size_t)i * lda]);
            }
        cx *id = mm(n, n, n, a, lda, 'N', full, n, 'N');
        for (int i = 0; i < n; i++)
            id[i + (size_t)i * n] -= 1;
        within("A potri(A) - I", maxabs(id, n, n, n), tol[t] * 100);
        free(f), free(tri), free(rec), free(x), free(inv), free(full), free(id);
        dfree(dA), dfree(dB), dfree(w), dfree(w2);
    }
    /* not positive definite: the 6th leading minor */
    cx *dg = calloc((size_t)n * n, sizeof *dg);
    for (int i = 0; i < n; i++)
        dg[i + (size_t)i * n] = i == 5 ? -1 : 2;
    void *dA = up(t, dg, (size_t)n * n), *w = dalloc(64 * esz[t]);
    cusolverStatus_t r = 0;
    switch (t) {
    case S: r = cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo); break;
    case D: r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo); break;
    case C: r = cusolverDnCpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo); break;
    case Z: r = cusolverDnZpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 6);
    dfree(dA), dfree(w);
    free(a), free(b), free(dg);
    end();
}

/* ---- getrf, getrs ---- */
static cusolverStatus_t getrf(int t, int m, int n, void *A, int lda, void *w, int *ipiv)
{
    switch (t) {
    case S: return cusolverDnSgetrf(h, m, n, A, lda, w, ipiv, dinfo);
    case D: return cusolverDnDgetrf(h, m, n, A, lda, w, ipiv, dinfo);
    case C: return cusolverDnCgetrf(h, m, n, A, lda, w, ipiv, dinfo);
    default: return cusolverDnZgetrf(h, m, n, A, lda, w, ipiv, dinfo);
    }
}

static cusolverStatus_t getrs(int t, cublasOperation_t op, int n, int nrhs, void *A, int lda, int *ipiv, void *B,
                              int ldb)
{
    switch (t) {
    case S: return cusolverDnSgetrs(h, op, n, nrhs, A, lda, ipiv, B, ldb, dinfo);
    case D: return cusolverDnDgetrs(h, op, n, nrhs, A, lda, ipiv, B, ldb, dinfo);
    case C: return cusolverDnCgetrs(h, op, n, nrhs, A, lda, ipiv, B, ldb, dinfo);
    default: return cusolverDnZgetrs(h, op, n, nrhs, A, lda, ipiv, B, ldb, dinfo);
    }
}

static int getrf_size(int t, int m, int n, void *A, int lda)
{
    int lw = -1;
    cusolverStatus_t r = 0;
    switch (t) {
    case S: r = cusolverDnSgetrf_bufferSize(h, m, n, A, lda, &lw); break;
    case D: r = cusolverDnDgetrf_bufferSize(h, m, n, A, lda, &lw); break;
    case C: r = cusolverDnCgetrf_bufferSize(h, m, n, A, lda, &lw); break;
    case Z: r = cusolverDnZgetrf_bufferSize(h, m, n, A, lda, &lw); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    return lw;
}

/* P L U (pivots of either width, NULL: none) against A, m x n */
static double lu_err(int m, int n, const cx *lu, int ld, const int64_t *piv, const cx *a, int lda)
{
    int mn = m < n ? m : n;
    cx *L = calloc((size_t)m * mn + 1, sizeof *L), *U = calloc((size_t)mn * n + 1, sizeof *U);
    for (int j = 0; j < mn; j++)
        for (int i = 0; i < m; i++)
            L[i + (size_t)j * m] = i == j ? 1 : i > j ? lu[i + (size_t)j * ld] : 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < mn; i++)
            U[i + (size_t)j * mn] = i <= j ? lu[i + (size_t)j * ld] : 0;
    cx *p = mm(m, n, mn, L, m, 'N', U, mn, 'N');
    if (piv) /* undo the interchanges, last first */
        for (int i = mn - 1; i >= 0; i--) {
            int64_t r = piv[i] - 1;
            if (r < 0 || r >= m)
                return INFINITY;
            for (int j = 0; j < n; j++) {
                cx tmp = p[i + (size_t)j * m];
                p[i + (size_t)j * m] = p[r + (size_t)j * m];
                p[r + (size_t)j * m] = tmp;
            }
        }
    double e = maxdiff(p, m, a, lda, m, n) / (maxabs(a, m, n, lda) * (n > m ? n : m));
    free(L), free(U), free(p);
    return e;
}

static int64_t *pivots(const int *dpiv, int n)
{
    int *p = malloc((size_t)n * sizeof *p + 4);
    int64_t *q = malloc((size_t)n * sizeof *q + 8);
    DRV(cuStreamSynchronize(s));
    DRV(cuMemcpyDtoH_v2(p, (CUdeviceptr)(uintptr_t)dpiv, (size_t)n * sizeof *p));
    for (int i = 0; i < n; i++)
        q[i] = p[i];
    free(p);
    return q;
}

static void test_getrf(int t)
{
    char name[96];
    snprintf(name, sizeof name, "%cgetrf, %cgetrs (pivoted, rectangular, no pivoting, singular, N/T/C)", tname[t],
             tname[t]);
    begin(name);
    const int n = 37, lda = 40, nrhs = 2, ldb = 38;
    cx *a = rnd(t, (size_t)lda * n), *b = rnd(t, (size_t)ldb * nrhs);
    void *dA = up(t, a, (size_t)lda * n);
    int lw = getrf_size(t, n, n, dA, lda);
    void *w = dalloc((size_t)(lw > 0 ? lw : 1) * esz[t]);
    int *dpiv = dalloc(64 * sizeof(int));
    set_info(dinfo, 77);
    ST(getrf(t, n, n, dA, lda, w, dpiv), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *lu = down(t, dA, (size_t)lda * n);
    int64_t *piv = pivots(dpiv, n);
    within("P L U - A", lu_err(n, n, lu, lda, piv, a, lda), tol[t]);
    cublasOperation_t ops[3] = { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
    for (int o = 0; o < 3; o++) {
        void *dB = up(t, b, (size_t)ldb * nrhs);
        set_info(dinfo, 77);
        ST(getrs(t, ops[o], n, nrhs, dA, lda, dpiv, dB, ldb), CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        cx *x = down(t, dB, (size_t)ldb * nrhs);
        char op = o == 0 ? 'N' : o == 1 || !cplx(t) ? 'T' : 'C';
        within(o == 0 ? "getrs N" : o == 1 ? "getrs T" : "getrs C", solve_err(n, nrhs, a, lda, op, x, ldb, b, ldb),
               tol[t] * 10);
        free(x);
        dfree(dB);
    }
    /* rectangular, 50 x 30 and 20 x 30 */
    for (int k = 0; k < 2; k++) {
        int m = k ? 20 : 50, nn = 30, ld = 52;
        cx *r = rnd(t, (size_t)ld * nn);
        void *dR = up(t, r, (size_t)ld * nn);
        ST(getrf(t, m, nn, dR, ld, w, dpiv), CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        cx *rl = down(t, dR, (size_t)ld * nn);
        int64_t *rp = pivots(dpiv, m < nn ? m : nn);
        within(k ? "P L U - A, 20 x 30" : "P L U - A, 50 x 30", lu_err(m, nn, rl, ld, rp, r, ld), tol[t]);
        free(r), free(rl), free(rp);
        dfree(dR);
    }
    /* no pivoting (NULL ipiv): a diagonally dominant matrix */
    cx *dd = rnd(t, (size_t)lda * n);
    for (int i = 0; i < n; i++)
        dd[i + (size_t)i * lda] += 2 * n;
    void *dD = up(t, dd, (size_t)lda * n), *dB = up(t, b, (size_t)ldb * nrhs);
    ST(getrf(t, n, n, dD, lda, w, NULL), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *dl = down(t, dD, (size_t)lda * n);
    within("L U - A without pivoting", lu_err(n, n, dl, lda, NULL, dd, lda), tol[t]);
    ST(getrs(t, CUBLAS_OP_N, n, nrhs, dD, lda, NULL, dB, ldb), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *x = down(t, dB, (size_t)ldb * nrhs);
    within("getrs without pivots", solve_err(n, nrhs, dd, lda, 'N', x, ldb, b, ldb), tol[t] * 10);
    /* singular: column 4 (1-based) zero: info 4, with and without pivoting */
    for (int i = 0; i < n; i++)
        a[i + (size_t)3 * lda] = 0;
    void *dS = up(t, a, (size_t)lda * n);
    ST(getrf(t, n, n, dS, lda, w, dpiv), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 4);
    dfree(dS);
    dS = up(t, a, (size_t)lda * n);
    ST(getrf(t, n, n, dS, lda, w, NULL), CUSOLVER_STATUS_SUCCESS);
    if (info_of(dinfo) < 1)
        bad("no-pivoting getrf of a singular matrix: info %d", info_of(dinfo));
    free(a), free(b), free(lu), free(piv), free(dd), free(dl), free(x);
    dfree(dA), dfree(w), dfree(dpiv), dfree(dD), dfree(dB), dfree(dS);
    end();
}

/* ---- geqrf, ormqr/unmqr, orgqr/ungqr ---- */
static void test_qr(int t)
{
    char name[112];
    snprintf(name, sizeof name, "%cgeqrf, %c%s, %c%s (30 x 20: Q R = A, Q^H Q = I, op(Q) round trips)", tname[t],
             tname[t], cplx(t) ? "unmqr" : "ormqr", tname[t], cplx(t) ? "ungqr" : "orgqr");
    begin(name);
    const int m = 30, n = 20, lda = 32, ldc = 31, nc = 3;
    cx *a = rnd(t, (size_t)lda * n), *c = rnd(t, (size_t)ldc * nc);
    void *dA = up(t, a, (size_t)lda * n), *tau = dalloc((size_t)n * esz[t]);
    int lw = -1;
    cusolverStatus_t r = 0;
    switch (t) {
    case S: r = cusolverDnSgeqrf_bufferSize(h, m, n, dA, lda, &lw); break;
    case D: r = cusolverDnDgeqrf_bufferSize(h, m, n, dA, lda, &lw); break;
    case C: r = cusolverDnCgeqrf_bufferSize(h, m, n, dA, lda, &lw); break;
    case Z: r = cusolverDnZgeqrf_bufferSize(h, m, n, dA, lda, &lw); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    void *w = dalloc((size_t)lw * esz[t]);
    switch (t) {
    case S: r = cusolverDnSgeqrf(h, m, n, dA, lda, tau, w, lw, dinfo); break;
    case D: r = cusolverDnDgeqrf(h, m, n, dA, lda, tau, w, lw, dinfo); break;
    case C: r = cusolverDnCgeqrf(h, m, n, dA, lda, tau, w, lw, dinfo); break;
    case Z: r = cusolverDnZgeqrf(h, m, n, dA, lda, tau, w, lw, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    /* too small a workspace: argument 7 */
    switch (t) {
    case S: r = cusolverDnSgeqrf(h, m, n, dA, lda, tau, w, lw - 1, dinfo); break;
    case D: r = cusolverDnDgeqrf(h, m, n, dA, lda, tau, w, lw - 1, dinfo); break;
    case C: r = cusolverDnCgeqrf(h, m, n, dA, lda, tau, w, lw - 1, dinfo); break;
    case Z: r = cusolverDnZgeqrf(h, m, n, dA, lda, tau, w, lw - 1, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -7);
    cx *qr = down(t, dA, (size_t)lda * n), *R = calloc((size_t)n * n, sizeof *R);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++)
            R[i + (size_t)j * n] = qr[i + (size_t)j * lda];
    /* the thin Q from a copy */
    void *dQ = up(t, qr, (size_t)lda * n);
    switch (t) {
    case S: r = cusolverDnSorgqr_bufferSize(h, m, n, n, dQ, lda, tau, &lw); break;
    case D: r = cusolverDnDorgqr_bufferSize(h, m, n, n, dQ, lda, tau, &lw); break;
    case C: r = cusolverDnCungqr_bufferSize(h, m, n, n, dQ, lda, tau, &lw); break;
    case Z: r = cusolverDnZungqr_bufferSize(h, m, n, n, dQ, lda, tau, &lw); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    void *w2 = dalloc((size_t)lw * esz[t]);
    switch (t) {
    case S: r = cusolverDnSorgqr(h, m, n, n, dQ, lda, tau, w2, lw, dinfo); break;
    case D: r = cusolverDnDorgqr(h, m, n, n, dQ, lda, tau, w2, lw, dinfo); break;
    case C: r = cusolverDnCungqr(h, m, n, n, dQ, lda, tau, w2, lw, dinfo); break;
    case Z: r = cusolverDnZungqr(h, m, n, n, dQ, lda, tau, w2, lw, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *q = down(t, dQ, (size_t)lda * n);
    cx *qrp = mm(m, n, n, q, lda, 'N', R, n, 'N');
    within("Q R - A", maxdiff(qrp, m, a, lda, m, n) / (maxabs(a, m, n, lda) * m), tol[t]);
    cx *qq = mm(n, n, m, q, lda, 'C', q, lda, 'N');
    for (int i = 0; i < n; i++)
        qq[i + (size_t)i * n] -= 1;
    within("Q^H Q - I", maxabs(qq, n, n, n) / n, tol[t]);
    /* ormqr: Q^H C (left), its first n rows are the thin Q's; Q (Q^H C) = C */
    cublasOperation_t th = cplx(t) ? CUBLAS_OP_C : CUBLAS_OP_T;
    void *dC = up(t, c, (size_t)ldc * nc);
    for (int pass = 0; pass < 2; pass++) {
        cublasOperation_t op = pass ? CUBLAS_OP_N : th;
        switch (t) {
        case S: r = cusolverDnSormqr_bufferSize(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, &lw); break;
        case D: r = cusolverDnDormqr_bufferSize(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, &lw); break;
        case C: r = cusolverDnCunmqr_bufferSize(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, &lw); break;
        case Z: r = cusolverDnZunmqr_bufferSize(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, &lw); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        void *w3 = dalloc((size_t)lw * esz[t]);
        switch (t) {
        case S: r = cusolverDnSormqr(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, w3, lw, dinfo); break;
        case D: r = cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, w3, lw, dinfo); break;
        case C: r = cusolverDnCunmqr(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, w3, lw, dinfo); break;
        case Z: r = cusolverDnZunmqr(h, CUBLAS_SIDE_LEFT, op, m, nc, n, dA, lda, tau, dC, ldc, w3, lw, dinfo); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        dfree(w3);
        cx *got = down(t, dC, (size_t)ldc * nc);
        if (!pass) {
            cx *want = mm(n, nc, m, q, lda, 'C', c, ldc, 'N');
            within("ormqr Q^H C against the thin Q's", maxdiff(got, ldc, want, n, n, nc) / (maxabs(c, m, nc, ldc) * m),
                   tol[t]);
            free(want);
        } else {
            within("ormqr Q (Q^H C) - C", maxdiff(got, ldc, c, ldc, m, nc) / (maxabs(c, m, nc, ldc) * m), tol[t]);
        }
        free(got);
    }
    /* a trans the type does not have: ormqr's argument 2 */
    switch (t) {
    case S: r = cusolverDnSormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, m, nc, n, dA, lda, tau, dC, ldc, w, 1000, dinfo); break;
    case D: r = cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_C, m, nc, n, dA, lda, tau, dC, ldc, w, 1000, dinfo); break;
    case C: r = cusolverDnCunmqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, nc, n, dA, lda, tau, dC, ldc, w, 1000, dinfo); break;
    case Z: r = cusolverDnZunmqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, m, nc, n, dA, lda, tau, dC, ldc, w, 1000, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -2);
    free(a), free(c), free(qr), free(R), free(q), free(qrp), free(qq);
    dfree(dA), dfree(tau), dfree(w), dfree(dQ), dfree(w2), dfree(dC);
    end();
}

/* ---- syevd / heevd ---- */
static void test_evd(int t)
{
    char name[96];
    snprintf(name, sizeof name, "%c%s (n 24, vectors, lower and upper: A V = V diag(W), V^H V = I)", tname[t],
             cplx(t) ? "heevd" : "syevd");
    begin(name);
    const int n = 24, lda = 26;
    cx *b = rnd(t, (size_t)lda * n), *a = calloc((size_t)lda * n, sizeof *a);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (size_t)j * lda] = i == j ? creal(b[i + (size_t)j * lda]) :
                                     i > j ? b[i + (size_t)j * lda] : conj(b[j + (size_t)i * lda]);
    for (int u = 0; u < 2; u++) {
        cublasFillMode_t uplo = u ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
        void *dA = up(t, a, (size_t)lda * n), *dW = dalloc((size_t)n * esz[t]);
        int lw = -1;
        cusolverStatus_t r = 0;
        cusolverEigMode_t jz = CUSOLVER_EIG_MODE_VECTOR;
        switch (t) {
        case S: r = cusolverDnSsyevd_bufferSize(h, jz, uplo, n, dA, lda, dW, &lw); break;
        case D: r = cusolverDnDsyevd_bufferSize(h, jz, uplo, n, dA, lda, dW, &lw); break;
        case C: r = cusolverDnCheevd_bufferSize(h, jz, uplo, n, dA, lda, dW, &lw); break;
        case Z: r = cusolverDnZheevd_bufferSize(h, jz, uplo, n, dA, lda, dW, &lw); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        void *w = dalloc((size_t)lw * esz[t]);
        switch (t) {
        case S: r = cusolverDnSsyevd(h, jz, uplo, n, dA, lda, dW, w, lw, dinfo); break;
        case D: r = cusolverDnDsyevd(h, jz, uplo, n, dA, lda, dW, w, lw, dinfo); break;
        case C: r = cusolverDnCheevd(h, jz, uplo, n, dA, lda, dW, w, lw, dinfo); break;
        case Z: r = cusolverDnZheevd(h, jz, uplo, n, dA, lda, dW, w, lw, dinfo); break;
        }
        ST(r, CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        cx *v = down(t, dA, (size_t)lda * n);
        double *ev = down_r(t, dW, (size_t)n);
        for (int i = 1; i < n; i++)
            if (ev[i] < ev[i - 1])
                bad("eigenvalues not ascending at %d", i);
        cx *av = mm(n, n, n, a, lda, 'N', v, lda, 'N'), *vd = calloc((size_t)n * n, sizeof *vd);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                vd[i + (size_t)j * n] = v[i + (size_t)j * lda] * ev[j];
        within("A V - V diag(W)", maxdiff(av, n, vd, n, n, n) / (maxabs(a, n, n, lda) * n), tol[t]);
        cx *vv = mm(n, n, n, v, lda, 'C', v, lda, 'N');
        for (int i = 0; i < n; i++)
            vv[i + (size_t)i * n] -= 1;
        within("V^H V - I", maxabs(vv, n, n, n) / n, tol[t]);
        free(v), free(ev), free(av), free(vd), free(vv);
        dfree(dA), dfree(dW), dfree(w);
    }
    free(a), free(b);
    end();
}

/* ---- gesvd ---- */
static cusolverStatus_t gesvd(int t, char ju, char jv, int m, int n, void *A, int lda, void *S_, void *U, int ldu,
                              void *VT, int ldvt, void *w, int lw, void *rw)
{
    switch (t) {
    case S: return cusolverDnSgesvd(h, ju, jv, m, n, A, lda, S_, U, ldu, VT, ldvt, w, lw, rw, dinfo);
    case D: return cusolverDnDgesvd(h, ju, jv, m, n, A, lda, S_, U, ldu, VT, ldvt, w, lw, rw, dinfo);
    case C: return cusolverDnCgesvd(h, ju, jv, m, n, A, lda, S_, U, ldu, VT, ldvt, w, lw, rw, dinfo);
    default: return cusolverDnZgesvd(h, ju, jv, m, n, A, lda, S_, U, ldu, VT, ldvt, w, lw, rw, dinfo);
    }
}

static void test_gesvd(int t)
{
    char name[96];
    snprintf(name, sizeof name, "%cgesvd (30 x 20, jobs A, S, N: U diag(S) VT = A, U^H U = I; m < n refused)",
             tname[t]);
    begin(name);
    const int m = 30, n = 20, lda = 31, ldu = 32, ldvt = 21;
    cx *a = rnd(t, (size_t)lda * n);
    int lw = -1;
    cusolverStatus_t r = 0;
    switch (t) {
    case S: r = cusolverDnSgesvd_bufferSize(h, m, n, &lw); break;
    case D: r = cusolverDnDgesvd_bufferSize(h, m, n, &lw); break;
    case C: r = cusolverDnCgesvd_bufferSize(h, m, n, &lw); break;
    case Z: r = cusolverDnZgesvd_bufferSize(h, m, n, &lw); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    void *w = dalloc((size_t)lw * esz[t]), *dS = dalloc((size_t)n * esz[t]), *dU = dalloc((size_t)ldu * m * esz[t]);
    void *dVT = dalloc((size_t)ldvt * n * esz[t]), *rw = dalloc((size_t)n * esz[t]);
    double *sv[3] = { 0 };
    const char jobs[3] = { 'A', 'S', 'N' };
    for (int k = 0; k < 3; k++) {
        void *dA = up(t, a, (size_t)lda * n);
        ST(gesvd(t, jobs[k], jobs[k], m, n, dA, lda, dS, dU, ldu, dVT, ldvt, w, lw, k == 0 ? rw : NULL),
           CUSOLVER_STATUS_SUCCESS);
        ST(info_of(dinfo), 0);
        sv[k] = down_r(t, dS, (size_t)n);
        for (int i = 0; i < n; i++)
            if (sv[k][i] < 0 || (i && sv[k][i] > sv[k][i - 1]))
                bad("singular values not descending and nonnegative at %d", i);
        if (k < 2) {
            int ucols = jobs[k] == 'A' ? m : n;
            cx *u = down(t, dU, (size_t)ldu * ucols), *vt = down(t, dVT, (size_t)ldvt * n);
            cx *us = calloc((size_t)m * n, sizeof *us);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++)
                    us[i + (size_t)j * m] = u[i + (size_t)j * ldu] * sv[k][j];
            cx *rec = mm(m, n, n, us, m, 'N', vt, ldvt, 'N');
            within("U diag(S) VT - A", maxdiff(rec, m, a, lda, m, n) / (maxabs(a, m, n, lda) * m), tol[t]);
            cx *uu = mm(ucols, ucols, m, u, ldu, 'C', u, ldu, 'N');
            for (int i = 0; i < ucols; i++)
                uu[i + (size_t)i * ucols] -= 1;
            within("U^H U - I", maxabs(uu, ucols, ucols, ucols) / ucols, tol[t]);
            free(u), free(vt), free(us), free(rec), free(uu);
        }
        dfree(dA);
    }
    for (int i = 0; i < n; i++)
        if (fabs(sv[2][i] - sv[0][i]) > tol[t] * 100 * (1 + sv[0][i]))
            bad("singular value %d: %g without vectors, %g with", i, sv[2][i], sv[0][i]);
    /* m < n: cuSOLVER's gesvd refuses it (argument 4) */
    void *dA = up(t, a, (size_t)lda * n);
    ST(gesvd(t, 'N', 'N', 10, 20, dA, lda, dS, dU, ldu, dVT, ldvt, w, lw, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -4);
    /* jobu and jobvt both O: argument 2 */
    ST(gesvd(t, 'O', 'O', m, n, dA, lda, dS, dU, ldu, dVT, ldvt, w, lw, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -2);
    free(a), free(sv[0]), free(sv[1]), free(sv[2]);
    dfree(w), dfree(dS), dfree(dU), dfree(dVT), dfree(rw), dfree(dA);
    end();
}

/* ---- the 64-bit API ---- */
static void test_x(int t)
{
    char name[112];
    snprintf(name, sizeof name, "%s: Xpotrf, Xpotrs, Xgetrf (64-bit pivots and none), Xgetrs, Xgeqrf, Xsyevd, Xgesvd",
             t == S ? "CUDA_R_32F" : t == D ? "CUDA_R_64F" : t == C ? "CUDA_C_32F" : "CUDA_C_64F");
    begin(name);
    cudaDataType dt = dtype[t];
    cusolverDnParams_t prm = NULL;
    ST(cusolverDnCreateParams(&prm), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnSetAdvOptions(prm, CUSOLVERDN_GETRF, CUSOLVER_ALG_1), CUSOLVER_STATUS_SUCCESS);
    const int n = 33, lda = 35, nrhs = 2, ldb = 34;
    cx *a = hpd(t, n, lda), *b = rnd(t, (size_t)ldb * nrhs);
    void *dA = up(t, a, (size_t)lda * n), *dB = up(t, b, (size_t)ldb * nrhs);
    size_t dev = 0, host = 99;
    ST(cusolverDnXpotrf_bufferSize(h, prm, CUBLAS_FILL_MODE_UPPER, n, dt, dA, lda, dt, &dev, &host),
       CUSOLVER_STATUS_SUCCESS);
    ST(host, 0);
    void *w = dalloc(dev);
    ST(cusolverDnXpotrf(h, prm, CUBLAS_FILL_MODE_UPPER, n, dt, dA, lda, dt, w, dev, NULL, 0, dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    ST(cusolverDnXpotrs(h, prm, CUBLAS_FILL_MODE_UPPER, n, nrhs, dt, dA, lda, dt, dB, ldb, dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *x = down(t, dB, (size_t)ldb * nrhs);
    within("Xpotrs backward error", solve_err(n, nrhs, a, lda, 'N', x, ldb, b, ldb), tol[t]);
    dfree(w), dfree(dA), dfree(dB), free(x);
    /* Xgetrf, Xgetrs on a general matrix */
    cx *g = rnd(t, (size_t)lda * n);
    dA = up(t, g, (size_t)lda * n);
    dB = up(t, b, (size_t)ldb * nrhs);
    ST(cusolverDnXgetrf_bufferSize(h, prm, n, n, dt, dA, lda, dt, &dev, &host), CUSOLVER_STATUS_SUCCESS);
    w = dalloc(dev);
    int64_t *dpiv = dalloc((size_t)n * sizeof(int64_t));
    ST(cusolverDnXgetrf(h, prm, n, n, dt, dA, lda, dpiv, dt, w, dev, NULL, 0, dinfo), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    int64_t *piv = malloc((size_t)n * sizeof *piv);
    DRV(cuMemcpyDtoH_v2(piv, (CUdeviceptr)(uintptr_t)dpiv, (size_t)n * sizeof *piv));
    cx *lu = down(t, dA, (size_t)lda * n);
    within("Xgetrf P L U - A", lu_err(n, n, lu, lda, piv, g, lda), tol[t]);
    ST(cusolverDnXgetrs(h, prm, CUBLAS_OP_T, n, nrhs, dt, dA, lda, dpiv, dt, dB, ldb, dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    x = down(t, dB, (size_t)ldb * nrhs);
    within("Xgetrs T backward error", solve_err(n, nrhs, g, lda, 'T', x, ldb, b, ldb), tol[t] * 10);
    free(x);
    /* a pivot the program wrote out of range: the info -8 (ipiv), B untouched */
    int64_t badp = n + 5;
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)(dpiv + 3), &badp, sizeof badp));
    dfree(dB);
    dB = up(t, b, (size_t)ldb * nrhs);
    ST(cusolverDnXgetrs(h, prm, CUBLAS_OP_N, n, nrhs, dt, dA, lda, dpiv, dt, dB, ldb, dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), -8);
    x = down(t, dB, (size_t)ldb * nrhs);
    if (maxdiff(x, ldb, b, ldb, n, nrhs) != 0)
        bad("B changed by a getrs with a bad pivot");
    free(x);
    /* no pivots: a diagonally dominant matrix */
    for (int i = 0; i < n; i++)
        g[i + (size_t)i * lda] += 2 * n;
    dfree(dA);
    dA = up(t, g, (size_t)lda * n);
    ST(cusolverDnXgetrf(h, prm, n, n, dt, dA, lda, NULL, dt, w, dev, NULL, 0, dinfo), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    free(lu);
    lu = down(t, dA, (size_t)lda * n);
    within("Xgetrf L U - A without pivoting", lu_err(n, n, lu, lda, NULL, g, lda), tol[t]);
    /* too small a workspace: argument 10 */
    ST(cusolverDnXgetrf(h, prm, n, n, dt, dA, lda, dpiv, dt, w, 0, NULL, 0, dinfo),
       CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -10);
    dfree(w), dfree(dpiv);
    /* Xgeqrf against the legacy geqrf (the same LAPACK: the same bits) */
    void *dQ1 = up(t, g, (size_t)lda * n), *dQ2 = up(t, g, (size_t)lda * n);
    void *tau1 = dalloc((size_t)n * esz[t]), *tau2 = dalloc((size_t)n * esz[t]);
    ST(cusolverDnXgeqrf_bufferSize(h, prm, n, n, dt, dQ1, lda, dt, tau1, dt, &dev, &host), CUSOLVER_STATUS_SUCCESS);
    w = dalloc(dev);
    ST(cusolverDnXgeqrf(h, prm, n, n, dt, dQ1, lda, dt, tau1, dt, w, dev, NULL, 0, dinfo), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    int lw = (int)(dev / esz[t]);
    cusolverStatus_t r = 0;
    switch (t) {
    case S: r = cusolverDnSgeqrf(h, n, n, dQ2, lda, tau2, w, lw, dinfo); break;
    case D: r = cusolverDnDgeqrf(h, n, n, dQ2, lda, tau2, w, lw, dinfo); break;
    case C: r = cusolverDnCgeqrf(h, n, n, dQ2, lda, tau2, w, lw, dinfo); break;
    case Z: r = cusolverDnZgeqrf(h, n, n, dQ2, lda, tau2, w, lw, dinfo); break;
    }
    ST(r, CUSOLVER_STATUS_SUCCESS);
    cx *q1 = down(t, dQ1, (size_t)lda * n), *q2 = down(t, dQ2, (size_t)lda * n);
    cx *t1 = down(t, tau1, (size_t)n), *t2 = down(t, tau2, (size_t)n);
    if (maxdiff(q1, lda, q2, lda, n, n) != 0 || maxdiff(t1, n, t2, n, n, 1) != 0)
        bad("Xgeqrf and geqrf differ");
    /* Xsyevd on the Hermitian positive definite a: A V = V diag(W) */
    cudaDataType rt = t == S || t == C ? CUDA_R_32F : CUDA_R_64F;
    void *dE = up(t, a, (size_t)lda * n), *dW = dalloc((size_t)n * esz[t]);
    ST(cusolverDnXsyevd_bufferSize(h, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, dt, dE, lda, rt, dW,
                                   dt, &dev, &host),
       CUSOLVER_STATUS_SUCCESS);
    void *w4 = dalloc(dev);
    ST(cusolverDnXsyevd(h, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, dt, dE, lda, rt, dW, dt, w4, dev,
                        NULL, 0, dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *v = down(t, dE, (size_t)lda * n);
    double *ev = down_r(t, dW, (size_t)n);
    cx *av = mm(n, n, n, a, lda, 'N', v, lda, 'N'), *vd = calloc((size_t)n * n, sizeof *vd);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            vd[i + (size_t)j * n] = v[i + (size_t)j * lda] * ev[j];
    within("Xsyevd A V - V diag(W)", maxdiff(av, n, vd, n, n, n) / (maxabs(a, n, n, lda) * n), tol[t]);
    ST(cusolverDnXsyevd(h, prm, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, dt, dE, lda, dt == rt ? CUDA_C_64F : dt,
                        dW, dt, w4, dev, NULL, 0, dinfo),
       CUSOLVER_STATUS_NOT_SUPPORTED);
    /* Xgesvd, jobs S, on g: U diag(S) VT = g */
    void *dG = up(t, g, (size_t)lda * n), *dU = dalloc((size_t)lda * n * esz[t]), *dV = dalloc((size_t)lda * n * esz[t]);
    ST(cusolverDnXgesvd_bufferSize(h, prm, 'S', 'S', n, n, dt, dG, lda, rt, dW, dt, dU, lda, dt, dV, lda, dt, &dev,
                                   &host),
       CUSOLVER_STATUS_SUCCESS);
    void *w5 = dalloc(dev);
    ST(cusolverDnXgesvd(h, prm, 'S', 'S', n, n, dt, dG, lda, rt, dW, dt, dU, lda, dt, dV, lda, dt, w5, dev, NULL, 0,
                        dinfo),
       CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    cx *u = down(t, dU, (size_t)lda * n), *vt = down(t, dV, (size_t)lda * n);
    double *sv = down_r(t, dW, (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            u[i + (size_t)j * lda] *= sv[j];
    cx *rec = mm(n, n, n, u, lda, 'N', vt, lda, 'N');
    within("Xgesvd U diag(S) VT - A", maxdiff(rec, n, g, lda, n, n) / (maxabs(g, n, n, lda) * n), tol[t]);
    /* too small a workspace: argument 19 */
    ST(cusolverDnXgesvd(h, prm, 'S', 'S', n, n, dt, dG, lda, rt, dW, dt, dU, lda, dt, dV, lda, dt, w5, dev - esz[t],
                        NULL, 0, dinfo),
       CUSOLVER_STATUS_INVALID_VALUE);
    ST(info_of(dinfo), -19);
    free(v), free(ev), free(av), free(vd), free(u), free(vt), free(sv), free(rec);
    dfree(dE), dfree(dW), dfree(w4), dfree(dG), dfree(dU), dfree(dV), dfree(w5);
    /* a data type that differs from the compute type */
    ST(cusolverDnXpotrf_bufferSize(h, prm, CUBLAS_FILL_MODE_UPPER, n, dt, dA, lda,
                                   t == D ? CUDA_R_32F : CUDA_R_64F, &dev, &host),
       CUSOLVER_STATUS_NOT_SUPPORTED);
    ST(cusolverDnDestroyParams(prm), CUSOLVER_STATUS_SUCCESS);
    free(a), free(b), free(g), free(piv), free(lu), free(q1), free(q2), free(t1), free(t2);
    dfree(dA), dfree(w), dfree(dQ1), dfree(dQ2), dfree(tau1), dfree(tau2);
    end();
}

/* ---- stream order: the program's own kernels before and after ---- */
static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry adddiag(.param .u64 pa, .param .u32 pn, .param .u32 plda, .param .f64 pv)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<6>;\n    .reg .b64 %rd<4>;\n    .reg .f64 %fd<4>;\n"
    "    ld.param.u64 %rd1, [pa];\n    ld.param.u32 %r1, [pn];\n    ld.param.u32 %r2, [plda];\n"
    "    ld.param.f64 %fd1, [pv];\n    mov.u32 %r3, %ctaid.x;\n    setp.ge.u32 %p1, %r3, %r1;\n"
    "    @%p1 bra DONE;\n    mad.lo.u32 %r4, %r3, %r2, %r3;\n    mul.wide.u32 %rd2, %r4, 8;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n    ld.global.f64 %fd2, [%rd3];\n    add.f64 %fd3, %fd2, %fd1;\n"
    "    st.global.f64 [%rd3], %fd3;\nDONE:\n    ret;\n}\n"
    ".visible .entry scale(.param .u64 pa, .param .u32 pn, .param .f64 pv)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .reg .f64 %fd<4>;\n"
    "    ld.param.u64 %rd1, [pa];\n    ld.param.u32 %r1, [pn];\n    ld.param.f64 %fd1, [pv];\n"
    "    mov.u32 %r2, %ctaid.x;\n    setp.ge.u32 %p1, %r2, %r1;\n    @%p1 bra DONE;\n"
    "    mul.wide.u32 %rd2, %r2, 8;\n    add.s64 %rd3, %rd1, %rd2;\n    ld.global.f64 %fd2, [%rd3];\n"
    "    mul.f64 %fd3, %fd2, %fd1;\n    st.global.f64 [%rd3], %fd3;\nDONE:\n    ret;\n}\n";

static void CUDAAPI slow(void *arg)
{
    (void)arg;
    usleep(100000);
}

static void test_order(void)
{
    begin("stream order: a slow host function and a kernel before Dpotrf/Dpotrs, a kernel after, on one stream; Dpotrf captured into a graph and launched");
    CUmodule mod;
    CUfunction adddiag, scale;
    DRV(cuModuleLoadData(&mod, ptx));
    DRV(cuModuleGetFunction(&adddiag, mod, "adddiag"));
    DRV(cuModuleGetFunction(&scale, mod, "scale"));
    const int n = 30, lda = 30;
    /* symmetric, zero diagonal: indefinite until the kernel adds 2n to the diagonal */
    cx *a = calloc((size_t)n * n, sizeof *a), *b = rnd(D, (size_t)n), *a2 = calloc((size_t)n * n, sizeof *a2);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++)
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = urand();
    for (size_t i = 0; i < (size_t)n * n; i++)
        a2[i] = a[i] + ((i % (size_t)(n + 1)) == 0 ? 2 * n : 0);
    double *dA = up(D, a, (size_t)n * n), *dB = up(D, b, (size_t)n), *w = dalloc(64 * sizeof(double));
    DRV(cuLaunchHostFunc(s, slow, NULL));
    unsigned un = (unsigned)n, ulda = (unsigned)lda;
    double v = 2.0 * n, two = 2.0;
    void *args1[] = { &dA, &un, &ulda, &v };
    DRV(cuLaunchKernel(adddiag, (unsigned)n, 1, 1, 1, 1, 1, 0, s, args1, NULL));
    ST(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, lda, w, 64, dinfo), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, dA, lda, dB, n, dinfo), CUSOLVER_STATUS_SUCCESS);
    void *args2[] = { &dB, &un, &two };
    DRV(cuLaunchKernel(scale, (unsigned)n, 1, 1, 1, 1, 1, 0, s, args2, NULL));
    ST(info_of(dinfo), 0);
    cx *x = down(D, dB, (size_t)n);
    for (int i = 0; i < n; i++)
        x[i] /= 2;
    within("(kernel after) / 2 against the solve of (kernel before)(A)", solve_err(n, 1, a2, n, 'N', x, n, b, n),
           tol[D]);
    /* the default stream (0) too */
    ST(cusolverDnSetStream(h, NULL), CUSOLVER_STATUS_SUCCESS);
    double *dA2 = up(D, a2, (size_t)n * n);
    ST(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA2, lda, w, 64, dinfo), CUSOLVER_STATUS_SUCCESS);
    DRV(cuCtxSynchronize());
    ST(cusolverDnSetStream(h, (cudaStream_t)s), CUSOLVER_STATUS_SUCCESS);
    ST(info_of(dinfo), 0);
    /* a stream being captured into a graph: recorded as one node, which
     * a launch runs (the factor of the matrix restored) */
    cx *f1 = down(D, dA2, (size_t)n * n);   /* the factor the call on the default stream made */
    CUstream cs;
    DRV(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING));
    DRV(cuStreamBeginCapture_v2(cs, CU_STREAM_CAPTURE_MODE_RELAXED));
    ST(cusolverDnSetStream(h, (cudaStream_t)cs), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA2, lda, w, 64, dinfo), CUSOLVER_STATUS_SUCCESS);
    CUgraph g;
    DRV(cuStreamEndCapture(cs, &g));
    size_t nodes = 0;
    DRV(cuGraphGetNodes(g, NULL, &nodes));
    ST((int)nodes, 1);
    CUgraphExec ge;
    DRV(cuGraphInstantiateWithFlags(&ge, g, 0));
    DRV(cuGraphDestroy(g));
    double *fresh = up(D, a2, (size_t)n * n);
    DRV(cuMemcpyDtoD_v2((CUdeviceptr)(uintptr_t)dA2, (CUdeviceptr)(uintptr_t)fresh, (size_t)n * n * sizeof(double)));
    dfree(fresh);
    set_info(dinfo, -7);
    DRV(cuGraphLaunch(ge, cs));
    DRV(cuStreamSynchronize(cs));
    ST(info_of(dinfo), 0);
    cx *f2 = down(D, dA2, (size_t)n * n);
    int same = 1;
    for (int c = 0; c < n; c++)
        for (int r = c; r < n; r++)
            same &= f1[r + (size_t)c * n] == f2[r + (size_t)c * n];
    ST(same, 1);
    free(f1), free(f2);
    DRV(cuGraphExecDestroy(ge));
    ST(cusolverDnSetStream(h, (cudaStream_t)s), CUSOLVER_STATUS_SUCCESS);
    DRV(cuStreamDestroy_v2(cs));
    free(a), free(a2), free(b), free(x);
    dfree(dA), dfree(dA2), dfree(dB), dfree(w);
    DRV(cuModuleUnload(mod));
    end();
}

/* ---- bad input ---- */
static void test_bad(void)
{
    begin("bad input: handles, sizes, pointers outside device memory or past an allocation, workspace, NULLs; "
          "stubs NOT_SUPPORTED");
    const int n = 8;
    double *dA = dalloc(n * n * sizeof(double)), *w = dalloc(64 * sizeof(double));
    int lw = 0;
    cusolverDnHandle_t dead = NULL;
    ST(cusolverDnCreate(&dead), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnDestroy(dead), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnDestroy(dead), CUSOLVER_STATUS_NOT_INITIALIZED);
    ST(cusolverDnDpotrf(NULL, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo), CUSOLVER_STATUS_NOT_INITIALIZED);
    ST(cusolverDnDpotrf(dead, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, dinfo), CUSOLVER_STATUS_NOT_INITIALIZED);
    ST(cusolverDnDpotrf_bufferSize(dead, CUBLAS_FILL_MODE_LOWER, n, dA, n, &lw), CUSOLVER_STATUS_NOT_INITIALIZED);
    ST(cusolverDnSetStream(dead, NULL), CUSOLVER_STATUS_NOT_INITIALIZED);
    ST(cusolverDnCreate(NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnGetStream(h, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, -1, dA, n, &lw), CUSOLVER_STATUS_INVALID_VALUE);
    /* bad arguments, each with its info -i */
    struct { cusolverStatus_t r; int info; const char *what; } c[10];
    int k = 0;
    double host[64];
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_FULL, n, dA, n, w, 64, dinfo), c[k].info = -1, c[k].what = "uplo FULL", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, -1, dA, n, w, 64, dinfo), c[k].info = -2, c[k].what = "n -1", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n - 1, w, 64, dinfo), c[k].info = -4, c[k].what = "lda < n", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, host, n, w, 64, dinfo), c[k].info = -3, c[k].what = "A in host memory", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n + 1, dA, n + 1, w, 64, dinfo), c[k].info = -3, c[k].what = "A past its allocation", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 0, dinfo), c[k].info = -6, c[k].what = "Lwork 0", k++;
    c[k].r = cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 65, dinfo), c[k].info = -5, c[k].what = "Lwork past the workspace", k++;
    c[k].r = cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, dA, n, (int *)(void *)host, w, n, dinfo), c[k].info = -6, c[k].what = "getrs ipiv in host memory", k++;
    c[k].r = cusolverDnDgetrf(h, n, n, dA, n, NULL, NULL, dinfo), c[k].info = -5, c[k].what = "getrf Workspace NULL", k++;
    for (int i = 0; i < k; i++) {
        set_info(dinfo, 77);
        if (c[i].r != CUSOLVER_STATUS_INVALID_VALUE)
            bad("%s: status %d, expected CUSOLVER_STATUS_INVALID_VALUE", c[i].what, (int)c[i].r);
    }
    /* the infos: each call queued its own; check them one at a time */
    for (int i = 0; i < k; i++) {
        int got = 0;
        set_info(dinfo, 77);
        switch (i) {
        case 0: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_FULL, n, dA, n, w, 64, dinfo); break;
        case 1: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, -1, dA, n, w, 64, dinfo); break;
        case 2: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n - 1, w, 64, dinfo); break;
        case 3: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, host, n, w, 64, dinfo); break;
        case 4: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n + 1, dA, n + 1, w, 64, dinfo); break;
        case 5: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 0, dinfo); break;
        case 6: cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 65, dinfo); break;
        case 7: cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, dA, n, (int *)(void *)host, w, n, dinfo); break;
        case 8: cusolverDnDgetrf(h, n, n, dA, n, NULL, NULL, dinfo); break;
        }
        got = info_of(dinfo);
        if (got != c[i].info)
            bad("%s: info %d, expected %d", c[i].what, got, c[i].info);
    }
    /* info itself not device memory: nothing to write, the status says it */
    int hinfo = 5;
    ST(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, &hinfo), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, w, 64, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    DRV(cuStreamSynchronize(s));
    ST(hinfo, 5);
    /* sizes beyond int in the 64-bit API */
    size_t dev = 0, hb = 0;
    ST(cusolverDnXpotrf_bufferSize(h, NULL, CUBLAS_FILL_MODE_LOWER, (int64_t)1 << 32, CUDA_R_64F, dA,
                                   (int64_t)1 << 32, CUDA_R_64F, &dev, &hb),
       CUSOLVER_STATUS_NOT_SUPPORTED);
    ST(cusolverDnXpotrf_bufferSize(h, (cusolverDnParams_t)(void *)host, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA,
                                   n, CUDA_R_64F, &dev, &hb),
       CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnXpotrf_bufferSize(h, NULL, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dA, n, CUDA_R_64F, NULL, &hb),
       CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnSetAdvOptions(NULL, CUSOLVERDN_GETRF, CUSOLVER_ALG_0), CUSOLVER_STATUS_INVALID_VALUE);
    /* what is not implemented */
    ST(cusolverDnDsytrf_bufferSize(h, n, dA, n, &lw), CUSOLVER_STATUS_NOT_SUPPORTED);
    struct cusolverSpContext *sp = NULL;
    ST(cusolverSpCreate(&sp), CUSOLVER_STATUS_NOT_SUPPORTED);
    dfree(dA), dfree(w);
    end();
}

int main(void)
{
    begin("cusolverDnCreate, SetStream, GetStream, GetVersion, GetProperty, deterministic and math modes");
    DRV(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    DRV(cuStreamCreate(&s, 0));
    ST(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnSetStream(h, (cudaStream_t)s), CUSOLVER_STATUS_SUCCESS);
    cudaStream_t got = NULL;
    ST(cusolverDnGetStream(h, &got), CUSOLVER_STATUS_SUCCESS);
    if (got != (cudaStream_t)s)
        bad("GetStream gave another stream");
    int v = 0;
    ST(cusolverGetVersion(&v), CUSOLVER_STATUS_SUCCESS);
    ST(v, 12004);
    ST(cusolverGetProperty(MAJOR_VERSION, &v), CUSOLVER_STATUS_SUCCESS);
    ST(v, 12);
    ST(cusolverGetProperty((libraryPropertyType)7, &v), CUSOLVER_STATUS_INVALID_VALUE);
    cusolverDeterministicMode_t dm = 0;
    cusolverMathMode_t mmode = 0;
    ST(cusolverDnGetDeterministicMode(h, &dm), CUSOLVER_STATUS_SUCCESS);
    ST(dm, CUSOLVER_DETERMINISTIC_RESULTS);
    ST(cusolverDnSetDeterministicMode(h, CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS), CUSOLVER_STATUS_SUCCESS);
    ST(cusolverDnGetDeterministicMode(h, &dm), CUSOLVER_STATUS_SUCCESS);
    ST(dm, CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS);
    ST(cusolverDnSetDeterministicMode(h, (cusolverDeterministicMode_t)0), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnGetMathMode(h, &mmode), CUSOLVER_STATUS_SUCCESS);
    ST(mmode, CUSOLVER_DEFAULT_MATH);
    ST(cusolverDnSetMathMode(h, (cusolverMathMode_t)3), CUSOLVER_STATUS_INVALID_VALUE);
    ST(cusolverDnGetMathMode(h, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    dinfo = dalloc(sizeof(int));
    end();
    if (n_fail)
        return summary("cusolver");
    for (int t = 0; t < 4; t++) {
        test_potrf(t);
        test_getrf(t);
        test_qr(t);
        test_evd(t);
        test_gesvd(t);
        test_x(t);
    }
    test_order();
    test_bad();
    begin("cusolverDnDestroy");
    ST(cusolverDnDestroy(h), CUSOLVER_STATUS_SUCCESS);
    end();
    return summary("cusolver");
}
