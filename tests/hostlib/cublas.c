/* SPDX-License-Identifier: Apache-2.0 */
/* The host cuBLAS (build/lib/tdtrace/host/libcublas.so.13) on the emulated
 * GPU, built against tdtrace's own declarations (src/hostlib/cublas/
 * cublas_api.h): every tested function against a plain double-precision
 * loop on the host. Tolerances, relative to 1 + |reference|: float 1e-4,
 * double 1e-11, half output 2e-3, bfloat16 output 1.6e-2; integer and
 * rounding checks are exact.
 *
 *   LD_LIBRARY_PATH=build/lib/tdtrace/emu:build/lib/tdtrace/host ./cublas */
#include <pthread.h>
#include <unistd.h>

#include "check.h"
#include "cublas_api.h"

/* ---- the four types, held as doubles (complex: re, im) ------------------ */
enum { S, D, C, Z };
static const char *const tname = "SDCZ";
static const size_t esz[4] = { 4, 8, 8, 16 };
static const int ncp[4] = { 1, 1, 2, 2 };
static const double tol[4] = { 1e-4, 1e-11, 1e-4, 1e-11 };

static void pack(int t, void *dst, const double *src, size_t n)
{
    for (size_t i = 0; i < n * (size_t)ncp[t]; i++) {
        if (t == S || t == C)
            ((float *)dst)[i] = (float)src[i];
        else
            ((double *)dst)[i] = src[i];
    }
}

static void unpack(int t, double *dst, const void *src, size_t n)
{
    for (size_t i = 0; i < n * (size_t)ncp[t]; i++)
        dst[i] = t == S || t == C ? ((const float *)src)[i] : ((const double *)src)[i];
}

/* random values of type t, rounded to it (so host and device agree) */
static double *rnd(int t, size_t n)
{
    double *v = malloc(n * (size_t)ncp[t] * sizeof *v);
    for (size_t i = 0; i < n * (size_t)ncp[t]; i++)
        v[i] = t == S || t == C ? (double)(float)urand() : urand();
    return v;
}

static void *up(int t, const double *v, size_t n)
{
    void *d = dalloc(n * esz[t]), *tmp = malloc(n * esz[t]);
    pack(t, tmp, v, n);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)d, tmp, n * esz[t]));
    free(tmp);
    return d;
}

static double *down(int t, const void *d, size_t n)
{
    void *tmp = malloc(n * esz[t]);
    double *v = malloc(n * (size_t)ncp[t] * sizeof *v);
    DRV(cuMemcpyDtoH_v2(tmp, (CUdeviceptr)(uintptr_t)d, n * esz[t]));
    unpack(t, v, tmp, n);
    free(tmp);
    return v;
}

static void dfree(void *d)
{
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)d));
}

/* a scalar of type t from (re, im) */
union scalar { float f[2]; double d[2]; };
static union scalar sc(int t, double re, double im)
{
    union scalar s;
    memset(&s, 0, sizeof s);
    if (t == S || t == C) {
        s.f[0] = (float)re;
        s.f[1] = (float)im;
    } else {
        s.d[0] = re;
        s.d[1] = im;
    }
    return s;
}

/* complex arithmetic on (re, im) doubles; real types use im = 0 */
static void cmul(const double *a, const double *b, double *o)
{
    double re = a[0] * b[0] - a[1] * b[1], im = a[0] * b[1] + a[1] * b[0];
    o[0] = re;
    o[1] = im;
}

static void getz(int t, const double *v, size_t i, double *o)
{
    o[0] = v[i * (size_t)ncp[t]];
    o[1] = ncp[t] == 2 ? v[i * 2 + 1] : 0;
}

static void setz(int t, double *v, size_t i, const double *o)
{
    v[i * (size_t)ncp[t]] = o[0];
    if (ncp[t] == 2)
        v[i * 2 + 1] = o[1];
}

/* op(X)[r][c] of a column-major matrix */
static void opel(int t, const double *X, int ld, cublasOperation_t op, int r, int c, double *o)
{
    if (op == CUBLAS_OP_N) {
        getz(t, X, (size_t)c * ld + r, o);
    } else {
        getz(t, X, (size_t)r * ld + c, o);
        if (op == CUBLAS_OP_C)
            o[1] = -o[1];
    }
}

static void ref_gemm(int t, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double *al,
                     const double *A, int lda, const double *B, int ldb, const double *be, double *Cm, int ldc)
{
    for (int c = 0; c < n; c++) {
        for (int r = 0; r < m; r++) {
            double s[2] = { 0, 0 }, x[2], y[2], p[2];
            for (int l = 0; l < k; l++) {
                opel(t, A, lda, ta, r, l, x);
                opel(t, B, ldb, tb, l, c, y);
                cmul(x, y, p);
                s[0] += p[0];
                s[1] += p[1];
            }
            double cv[2] = { 0, 0 }, o1[2], o2[2];
            if (be[0] != 0 || be[1] != 0) /* as BLAS: C is not read when beta is 0 */
                getz(t, Cm, (size_t)c * ldc + r, cv);
            cmul(al, s, o1);
            cmul(be, cv, o2);
            o1[0] += o2[0];
            o1[1] += o2[1];
            setz(t, Cm, (size_t)c * ldc + r, o1);
        }
    }
}

static cublasHandle_t h;

/* ---- calls by type ------------------------------------------------------ */
static cublasStatus_t gemm(int t, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void *al,
                           const void *A, int lda, const void *B, int ldb, const void *be, void *Cm, int ldc)
{
    switch (t) {
    case S: return cublasSgemm_v2(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    case D: return cublasDgemm_v2(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    case C: return cublasCgemm_v2(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    default: return cublasZgemm_v2(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    }
}

static void test_gemm(void)
{
    static const cublasOperation_t ops[3] = { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
    for (int t = 0; t < 4; t++) {
        char name[64];
        snprintf(name, sizeof name, "%cgemm N/T/C x N/T/C", tname[t]);
        begin(name);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                int m = 13, n = 7, k = 9, lda = 20, ldb = 21, ldc = 15;
                double *A = rnd(t, (size_t)lda * 20), *B = rnd(t, (size_t)ldb * 20), *Cm = rnd(t, (size_t)ldc * n);
                void *dA = up(t, A, (size_t)lda * 20), *dB = up(t, B, (size_t)ldb * 20), *dC = up(t, Cm, (size_t)ldc * n);
                double al[2] = { 0.75, t >= C ? -0.5 : 0 }, be[2] = { -1.25, t >= C ? 0.25 : 0 };
                union scalar a = sc(t, al[0], al[1]), b = sc(t, be[0], be[1]);
                ST(gemm(t, ops[i], ops[j], m, n, k, &a, dA, lda, dB, ldb, &b, dC, ldc), CUBLAS_STATUS_SUCCESS);
                ref_gemm(t, ops[i], ops[j], m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
                double *got = down(t, dC, (size_t)ldc * n);
                close_d("C", got, Cm, (size_t)ldc * n * ncp[t], tol[t]);
                free(A), free(B), free(Cm), free(got);
                dfree(dA), dfree(dB), dfree(dC);
            }
        }
        end();
    }
}

/* batched and strided batched, and a batched call whose pointer array a
 * copy queued just before it on the same stream writes */
static void test_batched(void)
{
    begin("sgemmStridedBatched, sgemmBatched (array written on the stream)");
    int m = 5, n = 4, k = 3, nb = 3;
    long long sa = 16, sb = 12, sc_ = 20;
    double *A = rnd(S, (size_t)sa * nb), *B = rnd(S, (size_t)sb * nb), *Cm = rnd(S, (size_t)sc_ * nb);
    double *C2 = malloc((size_t)sc_ * nb * sizeof *C2);
    memcpy(C2, Cm, (size_t)sc_ * nb * sizeof *C2);
    void *dA = up(S, A, (size_t)sa * nb), *dB = up(S, B, (size_t)sb * nb), *dC = up(S, Cm, (size_t)sc_ * nb);
    void *dC2 = up(S, C2, (size_t)sc_ * nb);
    float a = 1.5f, b = 0.5f;
    double al[2] = { 1.5, 0 }, be[2] = { 0.5, 0 };
    ST(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &a, dA, m, sa, dB, n, sb, &b, dC, m, sc_, nb),
       CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < nb; i++)
        ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, al, A + i * sa, m, B + i * sb, n, be, Cm + i * sc_, m);
    double *got = down(S, dC, (size_t)sc_ * nb);
    close_d("strided C", got, Cm, (size_t)sc_ * nb, tol[S]);
    free(got);
    /* the arrays: zero on the device, then filled by an async copy on the stream */
    CUstream s;
    DRV(cuStreamCreate(&s, 0));
    ST(cublasSetStream_v2(h, (cudaStream_t)s), CUBLAS_STATUS_SUCCESS);
    void *ptrs[9], **dptrs = dalloc(sizeof ptrs);
    DRV(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)dptrs, 0, sizeof ptrs));
    for (int i = 0; i < nb; i++) {
        ptrs[i] = (float *)dA + i * sa;
        ptrs[nb + i] = (float *)dB + i * sb;
        ptrs[2 * nb + i] = (float *)dC2 + i * sc_;
    }
    void *pinned;
    DRV(cuMemAllocHost_v2(&pinned, sizeof ptrs));
    memcpy(pinned, ptrs, sizeof ptrs);
    DRV(cuMemcpyHtoDAsync_v2((CUdeviceptr)(uintptr_t)dptrs, pinned, sizeof ptrs, s));
    ST(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &a, (const float *const *)dptrs, m,
                          (const float *const *)(dptrs + nb), n, &b, (float *const *)(dptrs + 2 * nb), m, nb),
       CUBLAS_STATUS_SUCCESS);
    DRV(cuStreamSynchronize(s));
    for (int i = 0; i < nb; i++)
        ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, al, A + i * sa, m, B + i * sb, n, be, C2 + i * sc_, m);
    got = down(S, dC2, (size_t)sc_ * nb);
    close_d("batched C", got, C2, (size_t)sc_ * nb, tol[S]);
    ST(cublasSetStream_v2(h, NULL), CUBLAS_STATUS_SUCCESS);
    DRV(cuStreamDestroy_v2(s));
    DRV(cuMemFreeHost(pinned));
    free(A), free(B), free(Cm), free(C2), free(got);
    dfree(dA), dfree(dB), dfree(dC), dfree(dC2), dfree(dptrs);
    end();
}

static uint16_t f2h(float f);
static float h2f(uint16_t x);
static float bf2f(uint16_t b);
static uint16_t f2bf(float f);

/* batched gemv (strided and arrays), trsm, LU factorisation and solves */
static void test_batched_more(void)
{
    begin("sgemvStridedBatched, zgemvBatched, dtrsmBatched, sgetrfBatched (pivoted and not), sgetrsBatched");
    int m = 6, n = 5, nb = 3;
    long long sa = 40, sx = 8, sy = 7;
    double *A = rnd(S, (size_t)sa * nb), *x = rnd(S, (size_t)sx * nb), *y = rnd(S, (size_t)sy * nb);
    void *dA = up(S, A, (size_t)sa * nb), *dx = up(S, x, (size_t)sx * nb), *dy = up(S, y, (size_t)sy * nb);
    float a = 0.5f, b = 2.0f;
    /* y_i = 0.5 A_i^T x_i + 2 y_i: A_i 6x5 (lda 7), x_i has 6, y_i 5 */
    ST(cublasSgemvStridedBatched(h, CUBLAS_OP_T, m, n, &a, dA, 7, sa, dx, 1, sx, &b, dy, 1, sy, nb), 0);
    for (int i = 0; i < nb; i++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int r = 0; r < m; r++)
                s += A[i * sa + (size_t)c * 7 + r] * x[i * sx + r];
            y[i * sy + c] = 0.5 * s + 2 * y[i * sy + c];
        }
    double *got = down(S, dy, (size_t)sy * nb);
    close_d("gemvStridedBatched y", got, y, (size_t)sy * nb, tol[S]);
    free(got), free(A), free(x), free(y);
    dfree(dA), dfree(dx), dfree(dy);
    /* zgemvBatched through pointer arrays in device memory */
    double *ZA[2], *Zx[2], *Zy[2];
    void *zp[6];
    for (int i = 0; i < 2; i++) {
        ZA[i] = rnd(Z, 12), Zx[i] = rnd(Z, 4), Zy[i] = rnd(Z, 3);
        zp[i] = up(Z, ZA[i], 12), zp[2 + i] = up(Z, Zx[i], 4), zp[4 + i] = up(Z, Zy[i], 3);
    }
    void **dzp = dalloc(sizeof zp);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dzp, zp, sizeof zp));
    cuDoubleComplex za = { 1, 0.5 }, zb = { 0, 0 };
    ST(cublasZgemvBatched(h, CUBLAS_OP_N, 3, 4, &za, (const cuDoubleComplex *const *)dzp, 3,
                          (const cuDoubleComplex *const *)(dzp + 2), 1, &zb, (cuDoubleComplex *const *)(dzp + 4), 1, 2), 0);
    for (int i = 0; i < 2; i++) {
        double w[6], al[2] = { 1, 0.5 };
        for (int r = 0; r < 3; r++) {
            double s[2] = { 0, 0 }, e[2], v[2], p[2];
            for (int c = 0; c < 4; c++) {
                getz(Z, ZA[i], (size_t)c * 3 + r, e);
                getz(Z, Zx[i], (size_t)c, v);
                cmul(e, v, p);
                s[0] += p[0], s[1] += p[1];
            }
            cmul(al, s, p);
            w[2 * r] = p[0], w[2 * r + 1] = p[1];
        }
        got = down(Z, zp[4 + i], 3);
        close_d("zgemvBatched y", got, w, 6, tol[Z]);
        free(got), free(ZA[i]), free(Zx[i]), free(Zy[i]);
    }
    for (int i = 0; i < 6; i++)
        dfree(zp[i]);
    dfree(dzp);
    /* LU of 3 well-conditioned 5x5 (lda 6), solve A X = B (3 columns, ldb 5) */
    int N = 5, lda = 6, nrhs = 3;
    double *M[3], *Bm[3];
    void *lp[6];
    for (int i = 0; i < 3; i++) {
        M[i] = rnd(D, (size_t)lda * N);
        for (int d = 0; d < N; d++)
            M[i][(size_t)d * lda + d] += 3;
        Bm[i] = rnd(D, (size_t)N * nrhs);
        lp[i] = up(D, M[i], (size_t)lda * N);
        lp[3 + i] = up(D, Bm[i], (size_t)N * nrhs);
    }
    void **dlp = dalloc(sizeof lp);
    int *piv = dalloc(3 * N * sizeof(int)), *info = dalloc(3 * sizeof(int)), hinfo[3] = { 9, 9, 9 }, sinfo = 7;
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dlp, lp, sizeof lp));
    ST(cublasDgetrfBatched(h, N, (double *const *)dlp, lda, piv, info, 3), 0);
    ST(cublasDgetrsBatched(h, CUBLAS_OP_N, N, nrhs, (const double *const *)dlp, lda, piv, (double *const *)(dlp + 3), N,
                           &sinfo, 3), 0);
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(hinfo, (CUdeviceptr)(uintptr_t)info, sizeof hinfo));
    if (hinfo[0] || hinfo[1] || hinfo[2] || sinfo)
        bad("getrf info %d %d %d, getrs info %d", hinfo[0], hinfo[1], hinfo[2], sinfo);
    for (int i = 0; i < 3; i++) {
        double *X = down(D, lp[3 + i], (size_t)N * nrhs), *AX = calloc((size_t)N * nrhs, sizeof *AX);
        double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, N, nrhs, N, one, M[i], lda, X, N, zero, AX, N);
        close_d("A X", AX, Bm[i], (size_t)N * nrhs, 1e-10);
        free(X), free(AX);
    }
    /* without pivoting (P NULL): L U == A */
    for (int i = 0; i < 3; i++)
        DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)lp[i], M[i], (size_t)lda * N * 8));
    ST(cublasDgetrfBatched(h, N, (double *const *)dlp, lda, NULL, info, 3), 0);
    for (int i = 0; i < 3; i++) {
        double *LU = down(D, lp[i], (size_t)lda * N), *L = calloc((size_t)N * N, 8), *U = calloc((size_t)N * N, 8);
        double *P = calloc((size_t)N * N, 8), one[2] = { 1, 0 }, zero[2] = { 0, 0 }, Ai[25];
        for (int c = 0; c < N; c++)
            for (int r = 0; r < N; r++) {
                if (r > c) L[c * N + r] = LU[(size_t)c * lda + r];
                else U[c * N + r] = LU[(size_t)c * lda + r];
                if (r == c) L[c * N + r] = 1;
                Ai[c * N + r] = M[i][(size_t)c * lda + r];
            }
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, one, L, N, U, N, zero, P, N);
        close_d("L U", P, Ai, 25, 1e-10);
        free(LU), free(L), free(U), free(P);
    }
    /* trsm batched: solve triu(LU_i) X = 2 B_i (B_i: the solutions from above) */
    double dal = 2, *Bold[3];
    for (int i = 0; i < 3; i++)
        Bold[i] = down(D, lp[3 + i], (size_t)N * nrhs);
    ST(cublasDtrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, N, nrhs, &dal,
                          (const double *const *)dlp, lda, (double *const *)(dlp + 3), N, 3), 0);
    for (int i = 0; i < 3; i++) {
        double *Ui = down(D, lp[i], (size_t)lda * N), *X = down(D, lp[3 + i], (size_t)N * nrhs);
        double *UX = calloc((size_t)N * nrhs, 8);
        for (int c = 0; c < N; c++)
            for (int r = c + 1; r < N; r++)
                Ui[(size_t)c * lda + r] = 0;
        double half[2] = { 0.5, 0 }, zero[2] = { 0, 0 };
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, N, nrhs, N, half, Ui, lda, X, N, zero, UX, N);
        close_d("trsmBatched U X / 2", UX, Bold[i], (size_t)N * nrhs, 1e-10);
        free(Ui), free(X), free(UX), free(Bold[i]);
    }
    /* bad arguments: getrs says which in info (host) */
    ST(cublasDgetrsBatched(h, CUBLAS_OP_N, -1, nrhs, (const double *const *)dlp, lda, piv, (double *const *)(dlp + 3), N,
                           &sinfo, 3), CUBLAS_STATUS_INVALID_VALUE);
    if (sinfo != -3)
        bad("getrs info for n < 0 = %d, expected -3", sinfo);
    ST(cublasDgetrfBatched(h, N, (double *const *)dlp, N - 1, piv, info, 3), CUBLAS_STATUS_INVALID_VALUE);
    for (int i = 0; i < 3; i++)
        free(M[i]), free(Bm[i]);
    for (int i = 0; i < 6; i++)
        dfree(lp[i]);
    dfree(dlp), dfree(piv), dfree(info);
    end();
}

/* level 1 with data types as arguments; complex symmetric level 2; inverses */
static void test_ex_more(void)
{
    begin("AxpyEx 16F, DotEx 16BF, Nrm2Ex C32F, IamaxEx 16F, Rot/Scal/Copy/SwapEx 64F, csymv, zsyr2, csyr, getri/matinvBatched");
    int n = 33;
    uint16_t hx[33], hy[33], bx[33], by[33], out[33], r16;
    for (int i = 0; i < n; i++) {
        hx[i] = f2h((float)urand()), hy[i] = f2h((float)urand());
        bx[i] = f2bf((float)urand()), by[i] = f2bf((float)urand());
    }
    void *dhx = dalloc(sizeof hx), *dhy = dalloc(sizeof hy), *dbx = dalloc(sizeof bx), *dby = dalloc(sizeof by);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dhx, hx, sizeof hx));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dhy, hy, sizeof hy));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dbx, bx, sizeof bx));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dby, by, sizeof by));
    float al = 0.75f;
    ST(cublasAxpyEx(h, n, &al, CUDA_R_32F, dhx, CUDA_R_16F, 1, dhy, CUDA_R_16F, 1, CUDA_R_32F), 0);
    DRV(cuMemcpyDtoH_v2(out, (CUdeviceptr)(uintptr_t)dhy, sizeof out));
    for (int i = 0; i < n; i++)
        if (out[i] != f2h((float)(0.75 * h2f(hx[i]) + h2f(hy[i])))) {
            bad("AxpyEx y[%d] = %#x, expected %#x", i, out[i], f2h((float)(0.75 * h2f(hx[i]) + h2f(hy[i]))));
            break;
        }
    double dot = 0;
    for (int i = 0; i < n; i++)
        dot += (double)bf2f(bx[i]) * bf2f(by[i]);
    ST(cublasDotEx(h, n, dbx, CUDA_R_16BF, 1, dby, CUDA_R_16BF, 1, &r16, CUDA_R_16BF, CUDA_R_32F), 0);
    if (r16 != f2bf((float)dot))
        bad("DotEx = %#x, expected %#x", r16, f2bf((float)dot));
    int im = 0, want = 1;
    for (int i = 1; i < n; i++)
        if (fabsf(h2f(hx[i])) > fabsf(h2f(hx[want - 1])))
            want = i + 1;
    ST(cublasIamaxEx(h, n, dhx, CUDA_R_16F, 1, &im), 0);
    if (im != want)
        bad("IamaxEx = %d, expected %d", im, want);
    double *cx = rnd(C, 10);
    void *dcx = up(C, cx, 10);
    float nrm;
    double wn = 0;
    for (int i = 0; i < 20; i++)
        wn += cx[i] * cx[i];
    wn = sqrt(wn);
    ST(cublasNrm2Ex(h, 10, dcx, CUDA_C_32F, 1, &nrm, CUDA_R_32F, CUDA_C_32F), 0);
    double gn = nrm;
    close_d("Nrm2Ex", &gn, &wn, 1, 1e-6);
    ST(cublasDotEx(h, n, dhx, CUDA_R_16F, 1, dbx, CUDA_R_16BF, 1, &r16, CUDA_R_16F, CUDA_R_32F), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasAxpyEx(h, n, &al, CUDA_R_32F, dhx, CUDA_R_16F, 1, dhy, CUDA_R_16F, 1, CUDA_R_64F), CUBLAS_STATUS_NOT_SUPPORTED);
    /* 64F: rot, scal, copy, swap */
    double *x = rnd(D, 8), *y = rnd(D, 8), c = 0.6, sn = 0.8, two = 2;
    void *dx = up(D, x, 8), *dy = up(D, y, 8);
    ST(cublasRotEx(h, 8, dx, CUDA_R_64F, 1, dy, CUDA_R_64F, 1, &c, &sn, CUDA_R_64F, CUDA_R_64F), 0);
    ST(cublasScalEx(h, 8, &two, CUDA_R_64F, dx, CUDA_R_64F, 1, CUDA_R_64F), 0);
    ST(cublasSwapEx(h, 8, dx, CUDA_R_64F, 1, dy, CUDA_R_64F, 1), 0);
    for (int i = 0; i < 8; i++) {
        double nx = 0.6 * x[i] + 0.8 * y[i], ny = 0.6 * y[i] - 0.8 * x[i];
        x[i] = ny; /* swapped */
        y[i] = 2 * nx;
    }
    double *gx = down(D, dx, 8), *gy = down(D, dy, 8);
    close_d("RotEx/ScalEx/SwapEx x", gx, x, 8, 1e-15);
    close_d("RotEx/ScalEx/SwapEx y", gy, y, 8, 1e-15);
    ST(cublasCopyEx(h, 8, dy, CUDA_R_64F, 1, dx, CUDA_R_64F, 1), 0);
    free(gx);
    gx = down(D, dx, 8);
    close_d("CopyEx", gx, y, 8, 0);
    free(gx), free(gy), free(x), free(y), free(cx);
    dfree(dhx), dfree(dhy), dfree(dbx), dfree(dby), dfree(dcx), dfree(dx), dfree(dy);
    /* csymv (upper), zsyr2 (lower), csyr (upper): symmetric, not Hermitian */
    int m = 5;
    double *A = rnd(C, 25), *v = rnd(C, 5), *w = rnd(C, 5);
    void *dA = up(C, A, 25), *dv = up(C, v, 5), *dw = up(C, w, 5);
    cuComplex ca = { 0.5f, -1.0f }, cb = { 2.0f, 0.5f };
    double a2[2] = { 0.5, -1 }, b2[2] = { 2, 0.5 }, ref[10];
    ST(cublasCsymv_v2(h, CUBLAS_FILL_MODE_UPPER, m, &ca, dA, m, dv, 1, &cb, dw, 1), 0);
    for (int r = 0; r < m; r++) {
        double s2[2] = { 0, 0 }, e[2], xv[2], p[2], yv[2];
        for (int c2 = 0; c2 < m; c2++) {
            getz(C, A, (size_t)(r <= c2 ? c2 * m + r : r * m + c2), e);
            getz(C, v, (size_t)c2, xv);
            cmul(e, xv, p);
            s2[0] += p[0], s2[1] += p[1];
        }
        cmul(a2, s2, p);
        getz(C, w, (size_t)r, yv);
        cmul(b2, yv, s2);
        ref[2 * r] = p[0] + s2[0], ref[2 * r + 1] = p[1] + s2[1];
    }
    double *got = down(C, dw, 5);
    close_d("csymv", got, ref, 10, 1e-5);
    free(got);
    ST(cublasCsyr_v2(h, CUBLAS_FILL_MODE_UPPER, m, &ca, dv, 1, dA, m), 0);
    for (int c2 = 0; c2 < m; c2++)
        for (int r = 0; r <= c2; r++) {
            double xr[2], xc[2], p[2], q[2], e[2];
            getz(C, v, (size_t)r, xr);
            getz(C, v, (size_t)c2, xc);
            cmul(xr, xc, p);
            cmul(a2, p, q);
            getz(C, A, (size_t)(c2 * m + r), e);
            e[0] += q[0], e[1] += q[1];
            setz(C, A, (size_t)(c2 * m + r), e);
        }
    got = down(C, dA, 25);
    close_d("csyr A", got, A, 50, 1e-5);
    free(got);
    double *ZA = rnd(Z, 25), *zx = rnd(Z, 5), *zy = rnd(Z, 5);
    void *dZA = up(Z, ZA, 25), *dzx = up(Z, zx, 5), *dzy = up(Z, zy, 5);
    cuDoubleComplex za = { 1.5, 0.25 };
    double za2[2] = { 1.5, 0.25 };
    ST(cublasZsyr2_v2(h, CUBLAS_FILL_MODE_LOWER, m, &za, dzx, 1, dzy, 1, dZA, m), 0);
    for (int c2 = 0; c2 < m; c2++)
        for (int r = c2; r < m; r++) {
            double xr[2], xc[2], yr[2], yc[2], p[2], q[2], t2[2], e[2];
            getz(Z, zx, (size_t)r, xr), getz(Z, zx, (size_t)c2, xc);
            getz(Z, zy, (size_t)r, yr), getz(Z, zy, (size_t)c2, yc);
            cmul(xr, yc, p);
            cmul(yr, xc, q);
            p[0] += q[0], p[1] += q[1];
            cmul(za2, p, t2);
            getz(Z, ZA, (size_t)(c2 * m + r), e);
            e[0] += t2[0], e[1] += t2[1];
            setz(Z, ZA, (size_t)(c2 * m + r), e);
        }
    got = down(Z, dZA, 25);
    close_d("zsyr2 A", got, ZA, 50, 1e-12);
    free(got), free(A), free(v), free(w), free(ZA), free(zx), free(zy);
    dfree(dA), dfree(dv), dfree(dw), dfree(dZA), dfree(dzx), dfree(dzy);
    /* inverses of 2 matrices: getrf + getri, and matinv; A inv(A) = I; a singular one */
    int N = 4;
    double *M[3];
    void *mp[6];
    for (int i = 0; i < 3; i++) {
        M[i] = rnd(D, 16);
        for (int d = 0; d < N; d++)
            M[i][d * N + d] += 3;
        if (i == 2)
            for (int r = 0; r < N; r++)
                M[i][3 * N + r] = M[i][r]; /* column 3 = column 0: singular */
        mp[i] = up(D, M[i], 16);
        mp[3 + i] = dalloc(16 * 8);
    }
    void **dmp = dalloc(sizeof mp);
    int *piv = dalloc(3 * N * sizeof(int)), *info = dalloc(3 * sizeof(int)), hinfo[3];
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dmp, mp, sizeof mp));
    ST(cublasDmatinvBatched(h, N, (const double *const *)dmp, N, (double *const *)(dmp + 3), N, info, 3), 0);
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(hinfo, (CUdeviceptr)(uintptr_t)info, sizeof hinfo));
    if (hinfo[0] || hinfo[1] || hinfo[2] <= 0)
        bad("matinv info %d %d %d (the third matrix is singular)", hinfo[0], hinfo[1], hinfo[2]);
    double I4[16] = { 0 }, one[2] = { 1, 0 }, zero[2] = { 0, 0 }, AI[16];
    for (int d = 0; d < N; d++)
        I4[d * N + d] = 1;
    for (int i = 0; i < 2; i++) {
        double *inv = down(D, mp[3 + i], 16);
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, one, M[i], N, inv, N, zero, AI, N);
        close_d("A matinv(A)", AI, I4, 16, 1e-12);
        free(inv);
    }
    ST(cublasDgetrfBatched(h, N, (double *const *)dmp, N, piv, info, 2), 0);
    ST(cublasDgetriBatched(h, N, (const double *const *)dmp, N, piv, (double *const *)(dmp + 3), N, info, 2), 0);
    DRV(cuCtxSynchronize());
    for (int i = 0; i < 2; i++) {
        double *inv = down(D, mp[3 + i], 16);
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, one, M[i], N, inv, N, zero, AI, N);
        close_d("A getri(A)", AI, I4, 16, 1e-12);
        free(inv);
    }
    ST(cublasDmatinvBatched(h, 33, (const double *const *)dmp, 33, (double *const *)(dmp + 3), 33, info, 1),
       CUBLAS_STATUS_INVALID_VALUE);
    for (int i = 0; i < 3; i++)
        free(M[i]), dfree(mp[i]), dfree(mp[3 + i]);
    dfree(dmp), dfree(piv), dfree(info);
    end();
}

/* ---- level 1 ------------------------------------------------------------ */
static void test_level1(void)
{
    for (int t = 0; t < 4; t++) {
        char name[64];
        snprintf(name, sizeof name, "%c level 1 (axpy scal dot nrm2 asum amax amin copy swap rot)", tname[t]);
        begin(name);
        int n = 37, incx = 2, incy = -3;
        size_t lx = (size_t)(n - 1) * 2 + 1, ly = (size_t)(n - 1) * 3 + 1;
        double *x = rnd(t, lx), *y = rnd(t, ly);
        void *dx = up(t, x, lx), *dy = up(t, y, ly);
        /* element i of y (incy < 0: from the end) */
#define YI(i) ((size_t)(n - 1 - (i)) * 3)
#define XI(i) ((size_t)(i) * 2)
        double al[2] = { 0.5, t >= C ? 0.25 : 0 };
        union scalar a = sc(t, al[0], al[1]);
        cublasStatus_t r;
        switch (t) {
        case S: r = cublasSaxpy_v2(h, n, &a.f[0], dx, incx, dy, incy); break;
        case D: r = cublasDaxpy_v2(h, n, &a.d[0], dx, incx, dy, incy); break;
        case C: r = cublasCaxpy_v2(h, n, (cuComplex *)&a, dx, incx, dy, incy); break;
        default: r = cublasZaxpy_v2(h, n, (cuDoubleComplex *)&a, dx, incx, dy, incy); break;
        }
        ST(r, CUBLAS_STATUS_SUCCESS);
        for (int i = 0; i < n; i++) {
            double xv[2], yv[2], p[2];
            getz(t, x, XI(i), xv);
            getz(t, y, YI(i), yv);
            cmul(al, xv, p);
            yv[0] += p[0];
            yv[1] += p[1];
            setz(t, y, YI(i), yv);
        }
        double *got = down(t, dy, ly);
        close_d("axpy y", got, y, ly * ncp[t], tol[t]);
        free(got);
        /* dot (dotc for complex) with host result */
        union scalar res;
        memset(&res, 0, sizeof res);
        switch (t) {
        case S: r = cublasSdot_v2(h, n, dx, incx, dy, incy, &res.f[0]); break;
        case D: r = cublasDdot_v2(h, n, dx, incx, dy, incy, &res.d[0]); break;
        case C: r = cublasCdotc_v2(h, n, dx, incx, dy, incy, (cuComplex *)&res); break;
        default: r = cublasZdotc_v2(h, n, dx, incx, dy, incy, (cuDoubleComplex *)&res); break;
        }
        ST(r, CUBLAS_STATUS_SUCCESS);
        double dot[2] = { 0, 0 }, nrm = 0, asum = 0, best = -1, worst = 1e300;
        int imax = 0, imin = 0;
        for (int i = 0; i < n; i++) {
            double xv[2], yv[2], p[2];
            getz(t, x, XI(i), xv);
            getz(t, y, YI(i), yv);
            xv[1] = -xv[1]; /* conjugated */
            cmul(xv, yv, p);
            dot[0] += p[0];
            dot[1] += p[1];
            nrm += xv[0] * xv[0] + xv[1] * xv[1];
            double mag = fabs(xv[0]) + fabs(xv[1]);
            asum += mag;
            if (mag > best) best = mag, imax = i + 1;
            if (mag < worst) worst = mag, imin = i + 1;
        }
        double gotd[2] = { t == S || t == C ? res.f[0] : res.d[0], t == S || t == C ? res.f[1] : res.d[1] };
        close_d("dot", gotd, dot, ncp[t], tol[t]);
        /* nrm2, asum, amax, amin */
        union scalar rn, ra;
        int im = 0, in = 0;
        switch (t) {
        case S:
            ST(cublasSnrm2_v2(h, n, dx, incx, &rn.f[0]), 0); ST(cublasSasum_v2(h, n, dx, incx, &ra.f[0]), 0);
            ST(cublasIsamax_v2(h, n, dx, incx, &im), 0); ST(cublasIsamin_v2(h, n, dx, incx, &in), 0); break;
        case D:
            ST(cublasDnrm2_v2(h, n, dx, incx, &rn.d[0]), 0); ST(cublasDasum_v2(h, n, dx, incx, &ra.d[0]), 0);
            ST(cublasIdamax_v2(h, n, dx, incx, &im), 0); ST(cublasIdamin_v2(h, n, dx, incx, &in), 0); break;
        case C:
            ST(cublasScnrm2_v2(h, n, dx, incx, &rn.f[0]), 0); ST(cublasScasum_v2(h, n, dx, incx, &ra.f[0]), 0);
            ST(cublasIcamax_v2(h, n, dx, incx, &im), 0); ST(cublasIcamin_v2(h, n, dx, incx, &in), 0); break;
        default:
            ST(cublasDznrm2_v2(h, n, dx, incx, &rn.d[0]), 0); ST(cublasDzasum_v2(h, n, dx, incx, &ra.d[0]), 0);
            ST(cublasIzamax_v2(h, n, dx, incx, &im), 0); ST(cublasIzamin_v2(h, n, dx, incx, &in), 0); break;
        }
        double g1 = t == S || t == C ? rn.f[0] : rn.d[0], w1 = sqrt(nrm);
        double g2 = t == S || t == C ? ra.f[0] : ra.d[0];
        close_d("nrm2", &g1, &w1, 1, tol[t]);
        close_d("asum", &g2, &asum, 1, tol[t]);
        if (im != imax || in != imin)
            bad("amax/amin = %d/%d, expected %d/%d", im, in, imax, imin);
        /* scal x by alpha, then copy x to y's first n (inc 1), swap back */
        switch (t) {
        case S: ST(cublasSscal_v2(h, n, &a.f[0], dx, incx), 0); break;
        case D: ST(cublasDscal_v2(h, n, &a.d[0], dx, incx), 0); break;
        case C: ST(cublasCscal_v2(h, n, (cuComplex *)&a, dx, incx), 0); break;
        default: ST(cublasZscal_v2(h, n, (cuDoubleComplex *)&a, dx, incx), 0); break;
        }
        for (int i = 0; i < n; i++) {
            double xv[2], p[2];
            getz(t, x, XI(i), xv);
            cmul(al, xv, p);
            setz(t, x, XI(i), p);
        }
        got = down(t, dx, lx);
        close_d("scal x", got, x, lx * ncp[t], tol[t]);
        free(got);
        /* rot (real c, s) */
        union scalar cc = sc(t, 0.6, 0), ss = sc(t, 0.8, 0);
        switch (t) {
        case S: ST(cublasSrot_v2(h, n, dx, incx, dy, incy, &cc.f[0], &ss.f[0]), 0); break;
        case D: ST(cublasDrot_v2(h, n, dx, incx, dy, incy, &cc.d[0], &ss.d[0]), 0); break;
        case C: ST(cublasCsrot_v2(h, n, dx, incx, dy, incy, &cc.f[0], &ss.f[0]), 0); break;
        default: ST(cublasZdrot_v2(h, n, dx, incx, dy, incy, &cc.d[0], &ss.d[0]), 0); break;
        }
        for (int i = 0; i < n; i++) {
            double xv[2], yv[2], nx[2], ny[2];
            getz(t, x, XI(i), xv);
            getz(t, y, YI(i), yv);
            for (int c2 = 0; c2 < 2; c2++) {
                nx[c2] = 0.6 * xv[c2] + 0.8 * yv[c2];
                ny[c2] = 0.6 * yv[c2] - 0.8 * xv[c2];
            }
            setz(t, x, XI(i), nx);
            setz(t, y, YI(i), ny);
        }
        got = down(t, dx, lx);
        close_d("rot x", got, x, lx * ncp[t], tol[t]);
        free(got);
        got = down(t, dy, ly);
        close_d("rot y", got, y, ly * ncp[t], tol[t]);
        free(got);
        /* rotm (real) with the full H: param in host memory is read at the
         * call (overwritten right after it, before the work has run) */
        if (t == S || t == D) {
            double hp[5] = { -1, 0.5, 0.25, -0.75, 1.5 };   /* flag, h11, h21, h12, h22 */
            float fp[5];
            for (int k = 0; k < 5; k++)
                fp[k] = (float)hp[k];
            if (t == S)
                ST(cublasSrotm_v2(h, n, dx, incx, dy, incy, fp), 0);
            else
                ST(cublasDrotm_v2(h, n, dx, incx, dy, incy, hp), 0);
            for (int k = 1; k < 5; k++)
                fp[k] = 1e6f, hp[k] = 1e6;
            for (int i = 0; i < n; i++) {
                double xv[2], yv[2], nx[2] = { 0, 0 }, ny[2] = { 0, 0 };
                getz(t, x, XI(i), xv);
                getz(t, y, YI(i), yv);
                nx[0] = 0.5 * xv[0] - 0.75 * yv[0];
                ny[0] = 0.25 * xv[0] + 1.5 * yv[0];
                setz(t, x, XI(i), nx);
                setz(t, y, YI(i), ny);
            }
            got = down(t, dx, lx);
            close_d("rotm x", got, x, lx * ncp[t], tol[t]);
            free(got);
            got = down(t, dy, ly);
            close_d("rotm y", got, y, ly * ncp[t], tol[t]);
            free(got);
        }
        /* copy x (inc 2) to y (inc -3), then swap them back and forth */
        switch (t) {
        case S: ST(cublasScopy_v2(h, n, dx, incx, dy, incy), 0); ST(cublasSswap_v2(h, n, dx, incx, dy, incy), 0); break;
        case D: ST(cublasDcopy_v2(h, n, dx, incx, dy, incy), 0); ST(cublasDswap_v2(h, n, dx, incx, dy, incy), 0); break;
        case C: ST(cublasCcopy_v2(h, n, dx, incx, dy, incy), 0); ST(cublasCswap_v2(h, n, dx, incx, dy, incy), 0); break;
        default: ST(cublasZcopy_v2(h, n, dx, incx, dy, incy), 0); ST(cublasZswap_v2(h, n, dx, incx, dy, incy), 0); break;
        }
        for (int i = 0; i < n; i++) {
            double xv[2];
            getz(t, x, XI(i), xv);
            setz(t, y, YI(i), xv);
        }
        got = down(t, dy, ly);
        close_d("copy y", got, y, ly * ncp[t], tol[t]);
        free(got);
        free(x), free(y);
        dfree(dx), dfree(dy);
        end();
#undef XI
#undef YI
    }
}

/* ---- level 2 and 3 beyond gemm (single and complex single) -------------- */
static void test_level2(void)
{
    begin("sgemv N/T, cgemv C, sger, ssymv, strsv, chemv");
    int m = 11, n = 6, lda = 12;
    double *A = rnd(S, (size_t)lda * n), *x = rnd(S, 11), *y = rnd(S, 11);
    void *dA = up(S, A, (size_t)lda * n), *dx = up(S, x, 11), *dy = up(S, y, 11);
    float a = 2.0f, b = -1.0f;
    /* y = 2 A x - y (N: x has n, y has m) */
    ST(cublasSgemv_v2(h, CUBLAS_OP_N, m, n, &a, dA, lda, dx, 1, &b, dy, 1), 0);
    double want[11];
    for (int r = 0; r < m; r++) {
        double s = 0;
        for (int c = 0; c < n; c++)
            s += A[(size_t)c * lda + r] * x[c];
        want[r] = 2 * s - y[r];
    }
    double *got = down(S, dy, 11);
    close_d("gemv N", got, want, (size_t)m, tol[S]);
    free(got);
    /* T: y(n) = 2 A^T x(m) - y */
    ST(cublasSgemv_v2(h, CUBLAS_OP_T, m, n, &a, dA, lda, dx, 1, &b, dy, 1), 0);
    for (int c = 0; c < n; c++) {
        double s = 0;
        for (int r = 0; r < m; r++)
            s += A[(size_t)c * lda + r] * x[r];
        want[c] = 2 * s - want[c];
    }
    got = down(S, dy, 11);
    close_d("gemv T", got, want, (size_t)n, tol[S]);
    free(got);
    /* ger: A += 2 x y^T */
    double *yv = down(S, dy, 11);
    ST(cublasSger_v2(h, m, n, &a, dx, 1, dy, 1, dA, lda), 0);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++)
            A[(size_t)c * lda + r] += 2 * x[r] * yv[c];
    got = down(S, dA, (size_t)lda * n);
    close_d("ger A", got, A, (size_t)lda * n, tol[S]);
    free(got), free(yv);
    /* symv (upper, n x n from the first n rows) and trsv (lower, non-unit) */
    int nn = 6;
    double *Sm = rnd(S, 36), *v = rnd(S, 6);
    for (int i = 0; i < nn; i++)
        Sm[i * 6 + i] += 4; /* well conditioned */
    void *dS = up(S, Sm, 36), *dv = up(S, v, 6), *dw = dalloc(6 * 4);
    float one = 1, zero = 0;
    ST(cublasSsymv_v2(h, CUBLAS_FILL_MODE_UPPER, nn, &one, dS, 6, dv, 1, &zero, dw, 1), 0);
    for (int r = 0; r < nn; r++) {
        double s = 0;
        for (int c = 0; c < nn; c++)
            s += (r <= c ? Sm[c * 6 + r] : Sm[r * 6 + c]) * v[c];
        want[r] = s;
    }
    got = down(S, dw, 6);
    close_d("symv", got, want, 6, tol[S]);
    free(got);
    /* trsv: solve L z = v; check L z == v */
    ST(cublasStrsv_v2(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nn, dS, 6, dv, 1), 0);
    got = down(S, dv, 6);
    for (int r = 0; r < nn; r++) {
        double s = 0;
        for (int c = 0; c <= r; c++)
            s += Sm[c * 6 + r] * got[c];
        want[r] = s;
    }
    close_d("trsv L z", want, v, 6, 1e-4);
    free(got);
    /* chemv: Hermitian (lower), imaginary diagonal ignored */
    double *H = rnd(C, 16), *hx = rnd(C, 4);
    void *dH = up(C, H, 16), *dhx = up(C, hx, 4), *dhy = dalloc(4 * 8);
    cuComplex c1 = { 1, 0 }, c0 = { 0, 0 };
    ST(cublasChemv_v2(h, CUBLAS_FILL_MODE_LOWER, 4, &c1, dH, 4, dhx, 1, &c0, dhy, 1), 0);
    double hw[8];
    for (int r = 0; r < 4; r++) {
        double s[2] = { 0, 0 };
        for (int c = 0; c < 4; c++) {
            double e[2], xv[2], p[2];
            if (r > c) getz(C, H, (size_t)c * 4 + r, e);
            else if (r < c) { getz(C, H, (size_t)r * 4 + c, e); e[1] = -e[1]; }
            else { getz(C, H, (size_t)c * 4 + r, e); e[1] = 0; }
            getz(C, hx, (size_t)c, xv);
            cmul(e, xv, p);
            s[0] += p[0];
            s[1] += p[1];
        }
        hw[2 * r] = s[0];
        hw[2 * r + 1] = s[1];
    }
    got = down(C, dhy, 4);
    close_d("chemv", got, hw, 8, tol[C]);
    free(got);
    free(A), free(x), free(y), free(Sm), free(v), free(H), free(hx);
    dfree(dA), dfree(dx), dfree(dy), dfree(dS), dfree(dv), dfree(dw), dfree(dH), dfree(dhx), dfree(dhy);
    end();
}

static void test_level3(void)
{
    begin("ssyrk, ssyrkx, cherk, strmm (out of place), strsm, sgeam (in place), sdgmm, ssymm");
    int n = 5, k = 3;
    double *A = rnd(S, 25), *B = rnd(S, 25), *Cm = rnd(S, 25);
    void *dA = up(S, A, 25), *dB = up(S, B, 25), *dC = up(S, Cm, 25);
    float a = 1.5f, b = 0.5f;
    double al[2] = { 1.5, 0 }, be[2] = { 0.5, 0 };
    /* syrk upper: C = 1.5 A A^T + 0.5 C on the upper triangle, A n x k (ld 5) */
    ST(cublasSsyrk_v2(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &a, dA, 5, &b, dC, 5), 0);
    double *full = malloc(25 * sizeof *full);
    memcpy(full, Cm, 25 * sizeof *full);
    ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, al, A, 5, A, 5, be, full, 5);
    for (int c = 0; c < n; c++)
        for (int r = 0; r <= c; r++)
            Cm[c * 5 + r] = full[c * 5 + r];
    double *got = down(S, dC, 25);
    close_d("syrk C", got, Cm, 25, tol[S]);
    free(got);
    /* syrkx lower: C = 1.5 A B^T + 0.5 C */
    ST(cublasSsyrkx(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &a, dA, 5, dB, 5, &b, dC, 5), 0);
    memcpy(full, Cm, 25 * sizeof *full);
    ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_T, n, n, k, al, A, 5, B, 5, be, full, 5);
    for (int c = 0; c < n; c++)
        for (int r = c; r < n; r++)
            Cm[c * 5 + r] = full[c * 5 + r];
    got = down(S, dC, 25);
    close_d("syrkx C", got, Cm, 25, tol[S]);
    free(got);
    /* trmm left upper: C = 1.5 triu(A) B, B untouched */
    void *dT = dalloc(25 * 4);
    ST(cublasStrmm_v2(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &a, dA, 5,
                      dB, 5, dT, 5), 0);
    double *U = calloc(25, sizeof *U), *T = calloc(25, sizeof *T), zero2[2] = { 0, 0 };
    for (int c = 0; c < n; c++)
        for (int r = 0; r <= c; r++)
            U[c * 5 + r] = A[c * 5 + r];
    ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, al, U, 5, B, 5, zero2, T, 5);
    got = down(S, dT, 25);
    close_d("trmm C", got, T, 25, tol[S]);
    free(got);
    got = down(S, dB, 25);
    close_d("trmm B unchanged", got, B, 25, 0);
    free(got);
    /* trsm: solve triu(A') X = 1.5 T in place (A' = A with a heavy diagonal) */
    for (int i = 0; i < n; i++)
        A[i * 5 + i] += 4;
    void *dA2 = up(S, A, 25);
    ST(cublasStrsm_v2(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n, &a, dA2, 5,
                      dT, 5), 0);
    got = down(S, dT, 25);
    for (int c = 0; c < n; c++)
        for (int r = 0; r <= c; r++)
            U[c * 5 + r] = A[c * 5 + r];
    double *chk = calloc(25, sizeof *chk), one[2] = { 1, 0 };
    ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, one, U, 5, got, 5, zero2, chk, 5);
    for (int i = 0; i < 25; i++)
        T[i] *= 1.5;
    close_d("trsm U X", chk, T, 25, 1e-4);
    free(got);
    /* geam in place: C = 1.5 C + 0.5 B^T */
    double *Cn = down(S, dC, 25);
    ST(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, &a, dC, 5, &b, dB, 5, dC, 5), 0);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            Cn[c * 5 + r] = 1.5 * Cn[c * 5 + r] + 0.5 * B[r * 5 + c];
    got = down(S, dC, 25);
    close_d("geam C", got, Cn, 25, tol[S]);
    free(got);
    /* dgmm right: C = A diag(x) */
    double *xv = rnd(S, 5);
    void *dx = up(S, xv, 5);
    ST(cublasSdgmm(h, CUBLAS_SIDE_RIGHT, n, n, dA2, 5, dx, 1, dC, 5), 0);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            Cn[c * 5 + r] = (double)(float)A[c * 5 + r] * xv[c];
    got = down(S, dC, 25);
    close_d("dgmm C", got, Cn, 25, tol[S]);
    free(got);
    /* symm left lower: C = A_sym B */
    ST(cublasSsymm_v2(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, n, n, &a, dA2, 5, dB, 5, &b, dC, 5), 0);
    double *Sy = malloc(25 * sizeof *Sy);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            Sy[c * 5 + r] = r >= c ? A[c * 5 + r] : A[r * 5 + c];
    ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, al, Sy, 5, B, 5, be, Cn, 5);
    got = down(S, dC, 25);
    close_d("symm C", got, Cn, 25, tol[S]);
    free(got);
    /* cherk: C = A A^H on the lower triangle, real alpha/beta, real diagonal */
    double *CA = rnd(C, 12), *CC = rnd(C, 16);
    void *dCA = up(C, CA, 12), *dCC = up(C, CC, 16);
    float ra = 1, rb = 0;
    ST(cublasCherk_v2(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, 4, 3, &ra, dCA, 4, &rb, dCC, 4), 0);
    double *cf = calloc(32, sizeof *cf), c1[2] = { 1, 0 };
    ref_gemm(C, CUBLAS_OP_N, CUBLAS_OP_C, 4, 4, 3, c1, CA, 4, CA, 4, zero2, cf, 4);
    for (int c = 0; c < 4; c++)
        for (int r = c; r < 4; r++) {
            CC[2 * (c * 4 + r)] = cf[2 * (c * 4 + r)];
            CC[2 * (c * 4 + r) + 1] = r == c ? 0 : cf[2 * (c * 4 + r) + 1];
        }
    got = down(C, dCC, 16);
    close_d("herk C", got, CC, 32, tol[C]);
    free(got);
    free(A), free(B), free(Cm), free(full), free(U), free(T), free(chk), free(Cn), free(xv), free(Sy), free(CA), free(CC), free(cf);
    dfree(dA), dfree(dB), dfree(dC), dfree(dT), dfree(dA2), dfree(dx), dfree(dCA), dfree(dCC);
    end();
}

/* ---- mixed precision ---------------------------------------------------- */
/* host copies of the library's conversions, written out independently */
static uint16_t f2h(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 0xff, m = u & 0x7fffff;
    if (e == 0xff) return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
    int ex = (int)e - 127 + 15;
    if (ex >= 31) return (uint16_t)(s | 0x7c00);
    if (ex <= 0) {
        if (ex < -10) return (uint16_t)s;
        m |= 0x800000;
        int sh = 14 - ex;
        uint32_t hm = m >> sh, rest = m & ((1u << sh) - 1), half = 1u << (sh - 1);
        if (rest > half || (rest == half && (hm & 1))) hm++;
        return (uint16_t)(s | hm);
    }
    uint32_t hm = m >> 13, rest = m & 0x1fff;
    uint32_t v = ((uint32_t)ex << 10) | hm;
    if (rest > 0x1000 || (rest == 0x1000 && (v & 1))) v++;
    return (uint16_t)(s | v);
}
static float h2f(uint16_t x)
{
    int e = (x >> 10) & 31, m = x & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
    return x & 0x8000 ? -v : v;
}
static float bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) /* nearest even */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t lo = u & 0xffff, hi = u >> 16;
    if (lo > 0x8000 || (lo == 0x8000 && (hi & 1))) hi++;
    return (uint16_t)hi;
}
static float tf32(float f) /* nearest, ties away */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x1000) & 0xffffe000;
    memcpy(&f, &u, 4);
    return f;
}

static void test_gemmex(void)
{
    begin("GemmEx: 16F/16BF in and out, 8I->32F, 8I->32I, FAST_16F/16BF/TF32 rounding, TF32 math mode, Hgemm");
    int m = 6, n = 5, k = 40;
    float fa[240], fb[200];
    uint16_t ha[240], hb[200], hc[30], bfa[240], bfb[200], bfc[30];
    int8_t ia[240], ib[200];
    for (int i = 0; i < m * k; i++) {
        fa[i] = (float)urand();
        ha[i] = f2h(fa[i]);
        bfa[i] = f2bf(fa[i]);
        ia[i] = (int8_t)(urand() * 127);
    }
    for (int i = 0; i < k * n; i++) {
        fb[i] = (float)urand();
        hb[i] = f2h(fb[i]);
        bfb[i] = f2bf(fb[i]);
        ib[i] = (int8_t)(urand() * 127);
    }
    void *dfa = dalloc(sizeof fa), *dfb = dalloc(sizeof fb), *dha = dalloc(sizeof ha), *dhb = dalloc(sizeof hb);
    void *dba = dalloc(sizeof bfa), *dbb = dalloc(sizeof bfb), *dia = dalloc(sizeof ia), *dib = dalloc(sizeof ib);
    void *dc = dalloc(30 * 4), *dh = dalloc(60);
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dfa, fa, sizeof fa));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dfb, fb, sizeof fb));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dha, ha, sizeof ha));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dhb, hb, sizeof hb));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dba, bfa, sizeof bfa));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dbb, bfb, sizeof bfb));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dia, ia, sizeof ia));
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dib, ib, sizeof ib));
    float one = 1, zero = 0;
    double want[30], got[30];
    float out[30];
    /* the reference: A (m x k) times B (k x n), both column-major, as doubles */
#define REF(AE, BE) for (int c = 0; c < n; c++) for (int r = 0; r < m; r++) { double s_ = 0; \
        for (int l = 0; l < k; l++) { s_ += (double)(AE(r + l * m)) * (double)(BE(l + c * k)); } \
        want[r + c * m] = s_; }
#define GET_F() do { DRV(cuMemcpyDtoH_v2(out, (CUdeviceptr)(uintptr_t)dc, sizeof out)); \
        for (int i = 0; i < 30; i++) got[i] = out[i]; } while (0)
    /* half in, float out, compute 32F */
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dha, CUDA_R_16F, m, dhb, CUDA_R_16F, k, &zero, dc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
#define HA(i) h2f(ha[i])
#define HB(i) h2f(hb[i])
    REF(HA, HB);
    GET_F();
    close_d("16F->32F", got, want, 30, 1e-5);
    /* half in and out */
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dha, CUDA_R_16F, m, dhb, CUDA_R_16F, k, &zero, dh,
                    CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    DRV(cuMemcpyDtoH_v2(hc, (CUdeviceptr)(uintptr_t)dh, 60));
    for (int i = 0; i < 30; i++)
        got[i] = h2f(hc[i]);
    close_d("16F->16F", got, want, 30, 2e-3);
    /* Hgemm: half scalars */
    uint16_t hone = f2h(1), hzero = f2h(0);
    ST(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &hone, dha, m, dhb, k, &hzero, dh, m), 0);
    DRV(cuMemcpyDtoH_v2(hc, (CUdeviceptr)(uintptr_t)dh, 60));
    for (int i = 0; i < 30; i++)
        got[i] = h2f(hc[i]);
    close_d("Hgemm", got, want, 30, 2e-3);
    /* bfloat16 in and out */
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dba, CUDA_R_16BF, m, dbb, CUDA_R_16BF, k, &zero, dh,
                    CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
#define BA(i) bf2f(bfa[i])
#define BB(i) bf2f(bfb[i])
    REF(BA, BB);
    DRV(cuMemcpyDtoH_v2(bfc, (CUdeviceptr)(uintptr_t)dh, 60));
    for (int i = 0; i < 30; i++)
        got[i] = bf2f(bfc[i]);
    close_d("16BF->16BF", got, want, 30, 1.6e-2);
    /* the output is rounded once, to nearest: exactly the rounded float result */
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dba, CUDA_R_16BF, m, dbb, CUDA_R_16BF, k, &zero, dc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    DRV(cuMemcpyDtoH_v2(out, (CUdeviceptr)(uintptr_t)dc, sizeof out));
    for (int i = 0; i < 30; i++)
        if (bfc[i] != f2bf(out[i])) {
            bad("16BF output [%d] = %#x, the float result %g rounds to %#x", i, bfc[i], out[i], f2bf(out[i]));
            break;
        }
    /* float inputs rounded by the compute type */
    static const struct { cublasComputeType_t ct; int r; const char *name; } fast[] = {
        { CUBLAS_COMPUTE_32F_FAST_16F, 0, "FAST_16F" },
        { CUBLAS_COMPUTE_32F_FAST_16BF, 1, "FAST_16BF" },
        { CUBLAS_COMPUTE_32F_FAST_TF32, 2, "FAST_TF32" },
        { CUBLAS_COMPUTE_32F, 3, "32F" },
    };
    for (int f = 0; f < 4; f++) {
        ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dfa, CUDA_R_32F, m, dfb, CUDA_R_32F, k, &zero, dc,
                        CUDA_R_32F, m, fast[f].ct, CUBLAS_GEMM_DEFAULT), 0);
        GET_F();
        double w2[30];
        for (int c = 0; c < n; c++)
            for (int r = 0; r < m; r++) {
                double s = 0;
                for (int l = 0; l < k; l++) {
                    float x = fa[r + l * m], y = fb[l + c * k];
                    if (fast[f].r == 0) x = h2f(f2h(x)), y = h2f(f2h(y));
                    if (fast[f].r == 1) x = bf2f(f2bf(x)), y = bf2f(f2bf(y));
                    if (fast[f].r == 2) x = tf32(x), y = tf32(y);
                    s += (double)x * y;
                }
                w2[r + c * m] = s;
            }
        /* close to its own rounding; far (> 1e-4 somewhere) from full float except 32F */
        if (!close_d(fast[f].name, got, w2, 30, 2e-6))
            continue;
        double worst = 0, full[30];
#define FA(i) fa[i]
#define FB(i) fb[i]
        REF(FA, FB);
        memcpy(full, want, sizeof full);
        for (int i = 0; i < 30; i++)
            worst = fmax(worst, fabs(got[i] - full[i]));
        if ((fast[f].r < 3) != (worst > 1e-4))
            bad("%s: largest difference from full float %g", fast[f].name, worst);
    }
    /* CUBLAS_TF32_TENSOR_OP_MATH: Sgemm rounds its inputs to TF32 too */
    ST(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH), 0);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dfa, m, dfb, k, &zero, dc, m), 0);
    ST(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), 0);
    GET_F();
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (double)tf32(fa[r + l * m]) * tf32(fb[l + c * k]);
            want[r + c * m] = s;
        }
    close_d("Sgemm TF32 math", got, want, 30, 2e-6);
    /* int8 -> int32, exact */
    int32_t ione = 1, izero = 0, iout[30];
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &ione, dia, CUDA_R_8I, m, dib, CUDA_R_8I, k, &izero, dc,
                    CUDA_R_32I, m, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT), 0);
    DRV(cuMemcpyDtoH_v2(iout, (CUdeviceptr)(uintptr_t)dc, sizeof iout));
    for (int c = 0; c < n; c++)
        for (int r = 0; r < m; r++) {
            int32_t s = 0;
            for (int l = 0; l < k; l++)
                s += ia[r + l * m] * ib[l + c * k];
            if (s != iout[r + c * m]) {
                bad("8I->32I [%d] = %d, expected %d", r + c * m, iout[r + c * m], s);
                c = n;
                break;
            }
        }
    /* unsupported combinations */
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dha, CUDA_R_16F, m, dba, CUDA_R_16BF, k, &zero, dc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dfa, CUDA_R_32F, m, dfb, CUDA_R_32F, k, &zero, dc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT), CUBLAS_STATUS_NOT_SUPPORTED);
    dfree(dfa), dfree(dfb), dfree(dha), dfree(dhb), dfree(dba), dfree(dbb), dfree(dia), dfree(dib), dfree(dc), dfree(dh);
    end();
}

/* ---- pointer mode, streams, events, ordering ----------------------------- */
/* a host function queued before the library call: it holds the stream
 * until the test opens the gate (or 20 s pass), then fills A */
struct slow { float *p; int n; _Atomic int open, waited_out; };
static void CUDAAPI slow_fill(void *arg)
{
    struct slow *s = arg;
    for (int i = 0; i < 20000 && !s->open; i++)
        usleep(1000);
    s->waited_out = !s->open;
    for (int i = 0; i < s->n; i++)
        s->p[i] = 2.0f;
}

static void test_ordering(void)
{
    begin("stream order: host fn before, sgemm, event, copy after; free right after the call; device pointer mode");
    int n = 64;
    CUstream s;
    CUevent e0, e1;
    DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    DRV(cuEventCreate(&e0, 0));
    DRV(cuEventCreate(&e1, 0));
    float *dA = dalloc((size_t)n * n * 4), *dB = dalloc((size_t)n * n * 4), *dC = dalloc((size_t)n * n * 4);
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)dA, 0, (size_t)n * n));
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)dB, 0x3f800000, (size_t)n * n)); /* 1.0 */
    struct slow sl = { dA, n * n, 0, 0 };
    ST(cublasSetStream_v2(h, (cudaStream_t)s), 0);
    DRV(cuLaunchHostFunc(s, slow_fill, &sl));
    DRV(cuEventRecord(e0, s));
    float one = 1, zero = 0;
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA, n, dB, n, &zero, dC, n), 0);
    DRV(cuEventRecord(e1, s));
    /* the host function holds the stream: the gemm cannot have run yet */
    if (cuEventQuery(e1) != CUDA_ERROR_NOT_READY)
        bad("the event after the gemm completed before the work queued ahead of it");
    float *host = malloc((size_t)n * n * 4);
    sl.open = 1;
    /* freeing the operands right after the call is legal (cuMemFree waits for
     * the work in flight); the library holds what its work uses either way */
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dA));
    DRV(cuMemFree_v2((CUdeviceptr)(uintptr_t)dB));
    DRV(cuEventSynchronize(e1));
    if (sl.waited_out)
        bad("cublasSgemm waited for the stream");
    DRV(cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)dC, (size_t)n * n * 4));
    for (int i = 0; i < n * n; i++)
        if (host[i] != 2.0f * n) {
            bad("C[%d] = %g, expected %g (the gemm ran before the host function)", i, host[i], 2.0f * n);
            break;
        }
    /* device pointer mode: alpha, beta and a dot result in device memory */
    ST(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_DEVICE), 0);
    float *dsc = dalloc(3 * 4), hsc[3] = { 0.5f, 0, -1 };
    DRV(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dsc, hsc, 12));
    ST(cublasSscal_v2(h, n * n, dsc, dC, 1), 0);                 /* C = n */
    ST(cublasSdot_v2(h, n, dC, 1, dC, 1, dsc + 1), 0);            /* n * n^2 */
    ST(cublasSetPointerMode_v2(h, CUBLAS_POINTER_MODE_HOST), 0);
    DRV(cuStreamSynchronize(s));
    DRV(cuMemcpyDtoH_v2(hsc, (CUdeviceptr)(uintptr_t)dsc, 12));
    if (hsc[1] != (float)n * n * n)
        bad("device-mode dot = %g, expected %g", hsc[1], (float)n * n * n);
    float ms;
    DRV(cuEventElapsedTime(&ms, e0, e1));
    ST(cublasSetStream_v2(h, NULL), 0);
    DRV(cuEventDestroy_v2(e0));
    DRV(cuEventDestroy_v2(e1));
    DRV(cuStreamDestroy_v2(s));
    dfree(dC), dfree(dsc);
    free(host);
    end();
}

/* ---- bad input ----------------------------------------------------------- */
static void test_bad(void)
{
    begin("bad input: handles, sizes, enums, pointers, unimplemented and legacy entry points");
    float one = 1;
    float *d = dalloc(16 * 4), *host = malloc(16 * 4);
    cublasHandle_t dead, fake = (cublasHandle_t)(uintptr_t)0x1234;
    ST(cublasCreate_v2(NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasCreate_v2(&dead), 0);
    ST(cublasDestroy_v2(dead), 0);
    ST(cublasDestroy_v2(dead), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasSgemm_v2(dead, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasSgemm_v2(fake, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasSetStream_v2(fake, NULL), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasSgemm_v2(h, (cublasOperation_t)7, CUBLAS_OP_N, 4, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &one, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 3, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, NULL, d, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    /* 5 x 4 floats do not fit in a 16-float allocation; host memory is not device memory */
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 5, 4, 4, &one, d, 5, d, 4, &one, d, 5), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, host, 4, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSaxpy_v2(h, 17, &one, d, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSaxpy_v2(h, 4, &one, d + 14, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSgemv_v2(h, CUBLAS_OP_N, 4, 4, &one, d, 4, d, 0, &one, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSsyrk_v2(h, CUBLAS_FILL_MODE_FULL, CUBLAS_OP_N, 4, 4, &one, d, 4, &one, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSetPointerMode_v2(h, (cublasPointerMode_t)5), CUBLAS_STATUS_INVALID_VALUE);
    /* the undocumented environment mode cuSOLVER sets: 0 and 1 only, as NVIDIA's */
    int em = -1;
    ST(cublasSetEnvironmentMode(h, 2), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSetEnvironmentMode(h, -1), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasSetEnvironmentMode(fake, 1), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasGetEnvironmentMode(h, NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasGetEnvironmentMode(h, &em), 0);
    if (em != 0)
        bad("environment mode of a new handle %d, expected 0", em);
    ST(cublasSetEnvironmentMode(h, 1), 0);
    ST(cublasGetEnvironmentMode(h, &em), 0);
    if (em != 1)
        bad("environment mode %d after setting 1", em);
    ST(cublasSetEnvironmentMode(h, 0), 0);
    ST(cublasSetVector(4, 4, host, 1, host, 1), CUBLAS_STATUS_MAPPING_ERROR);
    ST(cublasSetVector(4, 0, host, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    int r;
    ST(cublasSdot_v2(h, 4, d, 1, d, 1, NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasIsamax_v2(h, 0, d, 1, &r), 0);
    if (r != 0)
        bad("isamax of an empty vector = %d, expected 0", r);
    /* nothing above ran: d is untouched */
    float z[16];
    DRV(cuMemsetD32_v2((CUdeviceptr)(uintptr_t)d, 0, 16));
    ST(cublasSaxpy_v2(h, 16, &one, host, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH_v2(z, (CUdeviceptr)(uintptr_t)d, sizeof z));
    for (int i = 0; i < 16; i++)
        if (z[i] != 0)
            bad("a refused call wrote d[%d] = %g", i, z[i]);
    /* a function the host library does not implement, through the symbol NVIDIA exports */
    extern int cublasSgelsBatched(void);
    ST(cublasSgelsBatched(), CUBLAS_STATUS_NOT_SUPPORTED);
    extern void cublasSgemm(void);
    cublasSgemm();
    ST(cublasGetError(), CUBLAS_STATUS_NOT_SUPPORTED);
    ST(cublasGetError(), CUBLAS_STATUS_SUCCESS);
    if (strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED"))
        bad("cublasGetStatusName");
    int v = 0;
    ST(cublasGetVersion_v2(h, &v), 0);
    if (v != 130100)
        bad("version %d", v);
    dfree(d);
    free(host);
    end();
}

/* the copies between host and device */
static void test_copies(void)
{
    begin("Set/GetVector, Set/GetMatrix (sync and async)");
    double hv[12], back[12];
    for (int i = 0; i < 12; i++)
        hv[i] = i + 0.5;
    double *d = dalloc(24 * 8);
    DRV(cuMemsetD8_v2((CUdeviceptr)(uintptr_t)d, 0, 24 * 8));
    ST(cublasSetVector(6, 8, hv, 2, d, 4), 0); /* hv[0,2,..10] -> d[0,4,..20] */
    ST(cublasGetVector(6, 8, d, 4, back, 1), 0);
    for (int i = 0; i < 6; i++)
        if (back[i] != hv[2 * i])
            bad("vector [%d] = %g", i, back[i]);
    ST(cublasSetMatrixAsync(3, 4, 8, hv, 3, d, 6, NULL), 0);
    memset(back, 0, sizeof back);
    ST(cublasGetMatrix(3, 4, 8, d, 6, back, 3), 0);
    for (int i = 0; i < 12; i++)
        if (back[i] != hv[i])
            bad("matrix [%d] = %g", i, back[i]);
    dfree(d);
    end();
}

/* ---- cuBLAS-XT: the level 3 routines on host (and device) memory ------- */
static cublasStatus_t xt_gemm(cublasXtHandle_t x, int t, cublasOperation_t ta, cublasOperation_t tb, size_t m,
                              size_t n, size_t k, const void *al, const void *A, size_t lda, const void *B,
                              size_t ldb, const void *be, void *Cm, size_t ldc)
{
    switch (t) {
    case S: return cublasXtSgemm(x, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    case D: return cublasXtDgemm(x, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    case C: return cublasXtCgemm(x, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    default: return cublasXtZgemm(x, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc);
    }
}

static void test_xt(void)
{
    begin("cublasXt: gemm S/D/C/Z on host memory, spmm, trsm, device memory after queued work, bad input");
    cublasXtHandle_t x = NULL, dead;
    ST(cublasXtCreate(&x), 0);
    int ndev = 0, boards = 0, dev0 = 0, devs2[2] = { 0, 0 }, bogus = 7;
    DRV(cuDeviceGetCount(&ndev));
    ST(cublasXtMaxBoards(&boards), 0);
    if (boards != ndev)
        bad("cublasXtMaxBoards %d, %d devices", boards, ndev);
    ST(cublasXtDeviceSelect(x, 1, &dev0), 0);
    ST(cublasXtGetNumBoards(1, &dev0, &boards), 0);
    if (boards != 1)
        bad("cublasXtGetNumBoards %d", boards);
    ST(cublasXtDeviceSelect(x, 2, devs2), CUBLAS_STATUS_INVALID_VALUE); /* twice the same */
    ST(cublasXtDeviceSelect(x, 1, &bogus), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtDeviceSelect(x, 0, &dev0), CUBLAS_STATUS_INVALID_VALUE);
    int bd = 0;
    ST(cublasXtSetBlockDim(x, 0), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSetBlockDim(x, 64), 0);
    ST(cublasXtGetBlockDim(x, &bd), 0);
    if (bd != 64)
        bad("block dim %d", bd);
    ST(cublasXtSetPinningMemMode(x, (cublasXtPinnedMemMode_t)3), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSetCpuRatio(x, CUBLASXT_GEMM, CUBLASXT_FLOAT, 2.0f), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSetCpuRatio(x, CUBLASXT_GEMM, CUBLASXT_FLOAT, 0.5f), 0);
    /* gemm of every type on plain host memory */
    for (int t = 0; t < 4; t++) {
        size_t m = 11, n = 6, k = 8, lda = 12, ldb = 9, ldc = 13;
        double *A = rnd(t, lda * k), *B = rnd(t, ldb * n), *Cm = rnd(t, ldc * n);
        void *hA = malloc(lda * k * esz[t]), *hB = malloc(ldb * n * esz[t]), *hC = malloc(ldc * n * esz[t]);
        pack(t, hA, A, lda * k);
        pack(t, hB, B, ldb * n);
        pack(t, hC, Cm, ldc * n);
        double al[2] = { 1.5, t >= C ? 0.5 : 0 }, be[2] = { -0.5, t >= C ? 0.25 : 0 };
        union scalar a = sc(t, al[0], al[1]), b = sc(t, be[0], be[1]);
        ST(xt_gemm(x, t, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, hA, lda, hB, ldb, &b, hC, ldc), 0);
        ref_gemm(t, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, al, A, (int)lda, B, (int)ldb, be, Cm, (int)ldc);
        double *got = malloc(ldc * n * (size_t)ncp[t] * sizeof *got);
        unpack(t, got, hC, ldc * n);
        close_d("C", got, Cm, ldc * n * (size_t)ncp[t], tol[t]);
        free(A), free(B), free(Cm), free(got), free(hA), free(hB), free(hC);
    }
    /* spmm: a symmetric A in packed lower storage, against the full gemm */
    {
        enum { M = 5, N = 4 };
        float Af[M * M], AP[M * (M + 1) / 2], Bf[M * N], Cf[M * N], al = 2, be = 0;
        double Ad[M * M], Bd[M * N], Cd[M * N], ald[2] = { 2, 0 }, bed[2] = { 0, 0 };
        for (int j = 0; j < M; j++)
            for (int i = j; i < M; i++)
                Af[j * M + i] = Af[i * M + j] = (float)(i * 3 + j + 1) / 8;
        for (int j = 0, p = 0; j < M; j++)
            for (int i = j; i < M; i++)
                AP[p++] = Af[j * M + i];
        for (int i = 0; i < M * N; i++)
            Bf[i] = (float)(i % 7) - 3, Cf[i] = 99;
        for (int i = 0; i < M * M; i++)
            Ad[i] = Af[i];
        for (int i = 0; i < M * N; i++)
            Bd[i] = Bf[i], Cd[i] = 0;
        ST(cublasXtSspmm(x, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, M, N, &al, AP, Bf, M, &be, Cf, M), 0);
        ref_gemm(S, CUBLAS_OP_N, CUBLAS_OP_N, M, N, M, ald, Ad, M, Bd, M, bed, Cd, M);
        double got[M * N];
        for (int i = 0; i < M * N; i++)
            got[i] = Cf[i];
        close_d("spmm C", got, Cd, M * N, 1e-5);
    }
    /* trsm: op(A) X = alpha B solved in place; A X gives alpha B back */
    {
        enum { M = 6, N = 3 };
        double Ad[M * M], Bd[M * N], X[M * N];
        for (int j = 0; j < M; j++)
            for (int i = 0; i < M; i++)
                Ad[j * M + i] = i < j ? 0 : (i == j ? 2.0 + i : 0.25 * (i - j));
        for (int i = 0; i < M * N; i++)
            Bd[i] = X[i] = (double)(i % 5) - 1.5;
        double one = 1;
        ST(cublasXtDtrsm(x, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, M, N, &one,
                         Ad, M, X, M), 0);
        double back[M * N], o[2] = { 1, 0 }, z[2] = { 0, 0 };
        memset(back, 0, sizeof back);
        ref_gemm(D, CUBLAS_OP_N, CUBLAS_OP_N, M, N, M, o, Ad, M, X, M, z, back, M);
        close_d("A X", back, Bd, M * N, 1e-12);
    }
    /* device memory: the call waits for what the context queued first */
    {
        float *dA = dalloc(4 * 4 * 4), *dC = dalloc(4 * 4 * 4), one = 1, zero = 0, hc[16];
        DRV(cuMemsetD32Async((CUdeviceptr)(uintptr_t)dA, 0x3f800000u /* 1.0f */, 16, NULL));
        DRV(cuMemsetD32Async((CUdeviceptr)(uintptr_t)dC, 0, 16, NULL));
        ST(cublasXtSgemm(x, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, dA, 4, dA, 4, &zero, dC, 4), 0);
        DRV(cuMemcpyDtoH_v2(hc, (CUdeviceptr)(uintptr_t)dC, sizeof hc));
        for (int i = 0; i < 16; i++)
            if (hc[i] != 4)
                bad("device C[%d] = %g, expected 4", i, hc[i]);
        /* a device operand larger than its allocation: refused, C untouched */
        ST(cublasXtSgemm(x, CUBLAS_OP_N, CUBLAS_OP_N, 8, 4, 4, &one, dA, 8, dA, 4, &zero, dC, 8),
           CUBLAS_STATUS_INVALID_VALUE);
        DRV(cuMemcpyDtoH_v2(hc, (CUdeviceptr)(uintptr_t)dC, sizeof hc));
        if (hc[0] != 4)
            bad("a refused call wrote C[0] = %g", hc[0]);
        dfree(dA), dfree(dC);
    }
    float one = 1, hm[16] = { 0 };
    ST(cublasXtSgemm(x, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, hm, 3, hm, 4, &one, hm, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSgemm(x, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL, 4, hm, 4, &one, hm, 4), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSgemm(x, (cublasOperation_t)9, CUBLAS_OP_N, 4, 4, 4, &one, hm, 4, hm, 4, &one, hm, 4),
       CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtSgemm(x, CUBLAS_OP_N, CUBLAS_OP_N, 0, 4, 4, &one, NULL, 1, NULL, 4, &one, NULL, 1), 0);
    ST(cublasXtCreate(&dead), 0);
    ST(cublasXtDestroy(dead), 0);
    ST(cublasXtDestroy(dead), CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasXtSgemm(dead, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, hm, 4, hm, 4, &one, hm, 4),
       CUBLAS_STATUS_NOT_INITIALIZED);
    ST(cublasXtSgemm((cublasXtHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, hm, 4, hm, 4, &one, hm, 4),
       CUBLAS_STATUS_NOT_INITIALIZED); /* a cuBLAS handle is not a cuBLAS-XT one */
    ST(cublasXtCreate(NULL), CUBLAS_STATUS_INVALID_VALUE);
    ST(cublasXtDestroy(x), 0);
    end();
}

int main(void)
{
    /* cublasCreate makes device 0's primary context current, as the runtime would */
    begin("cublasCreate");
    ST(cublasCreate_v2(&h), CUBLAS_STATUS_SUCCESS);
    end();
    if (n_fail)
        return summary("cublas");
    test_gemm();
    test_batched();
    test_batched_more();
    test_level1();
    test_ex_more();
    test_level2();
    test_level3();
    test_gemmex();
    test_ordering();
    test_copies();
    test_bad();
    test_xt();
    begin("cublasDestroy");
    ST(cublasDestroy_v2(h), CUBLAS_STATUS_SUCCESS);
    end();
    return summary("cublas");
}
