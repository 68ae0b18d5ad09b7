/* SPDX-License-Identifier: Apache-2.0 */
/* The legacy (32-bit) dense entry points, S/D/C/Z: each fills the
 * arguments of one call and its argument positions (the info -i of a bad
 * one) and hands them to sv_call (dense.c). */
#include "solver.h"

static const signed char POTRF_POS[P__COUNT] = { [P_UPLO] = 1, [P_N] = 2, [P_A] = 3, [P_LDA] = 4, [P_WORK] = 5,
                                                 [P_LWORK] = 6 };
static const signed char POTRS_POS[P__COUNT] = { [P_UPLO] = 1, [P_N] = 2, [P_NRHS] = 3, [P_A] = 4, [P_LDA] = 5,
                                                 [P_B] = 6, [P_LDB] = 7 };
static const signed char GETRF_POS[P__COUNT] = { [P_M] = 1, [P_N] = 2, [P_A] = 3, [P_LDA] = 4, [P_WORK] = 5,
                                                 [P_IPIV] = 6 };
static const signed char GETRS_POS[P__COUNT] = { [P_TRANS] = 1, [P_N] = 2, [P_NRHS] = 3, [P_A] = 4, [P_LDA] = 5,
                                                 [P_IPIV] = 6, [P_B] = 7, [P_LDB] = 8 };
static const signed char GEQRF_POS[P__COUNT] = { [P_M] = 1, [P_N] = 2, [P_A] = 3, [P_LDA] = 4, [P_TAU] = 5,
                                                 [P_WORK] = 6, [P_LWORK] = 7 };
static const signed char ORMQR_POS[P__COUNT] = { [P_SIDE] = 1, [P_TRANS] = 2, [P_M] = 3, [P_N] = 4, [P_K] = 5,
                                                 [P_A] = 6, [P_LDA] = 7, [P_TAU] = 8, [P_B] = 9, [P_LDB] = 10,
                                                 [P_WORK] = 11, [P_LWORK] = 12 };
static const signed char ORGQR_POS[P__COUNT] = { [P_M] = 1, [P_N] = 2, [P_K] = 3, [P_A] = 4, [P_LDA] = 5,
                                                 [P_TAU] = 6, [P_WORK] = 7, [P_LWORK] = 8 };
static const signed char SYEVD_POS[P__COUNT] = { [P_JOBZ] = 1, [P_UPLO] = 2, [P_N] = 3, [P_A] = 4, [P_LDA] = 5,
                                                 [P_W] = 6, [P_WORK] = 7, [P_LWORK] = 8 };
static const signed char GESVD_POS[P__COUNT] = { [P_JOBU] = 1, [P_JOBVT] = 2, [P_M] = 3, [P_N] = 4, [P_A] = 5,
                                                 [P_LDA] = 6, [P_W] = 7, [P_U] = 8, [P_LDU] = 9, [P_VT] = 10,
                                                 [P_LDVT] = 11, [P_WORK] = 12, [P_LWORK] = 13, [P_RWORK] = 14 };

/* a bufferSize query: the size, or the status */
static cusolverStatus_t sizeq(cusolverDnHandle_t h, enum sv_op op, enum st t, const struct sv_args *a,
                              const signed char *pos, int *lwork)
{
    if (!lwork)
        return sv_handle(h) ? CUSOLVER_STATUS_NOT_INITIALIZED : CUSOLVER_STATUS_INVALID_VALUE;
    int64_t need = 0;
    cusolverStatus_t r = sv_call(h, op, t, a, pos, &need);
    if (r == CUSOLVER_STATUS_SUCCESS)
        *lwork = (int)need;
    return r;
}

#define DN_LEGACY(P, T, R, ORG, ORM, EVD)                                                                          \
    HL_EXPORT cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                               T *A, int lda, int *Lwork)                          \
    {                                                                                                              \
        struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda };                                           \
        return sizeq(h, OP_POTRF, ST_##P, &a, POTRF_POS, Lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A,      \
                                                    int lda, T *Workspace, int Lwork, int *devInfo)                \
    {                                                                                                              \
        struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda, .work = Workspace, .lwork = Lwork,          \
                             .info = devInfo };                                                                    \
        return sv_call(h, OP_POTRF, ST_##P, &a, POTRF_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs,  \
                                                    const T *A, int lda, T *B, int ldb, int *devInfo)              \
    {                                                                                                              \
        struct sv_args a = { .uplo = uplo, .n = n, .nrhs = nrhs, .A = A, .lda = lda, .B = B, .ldb = ldb,           \
                             .info = devInfo };                                                                    \
        return sv_call(h, OP_POTRS, ST_##P, &a, POTRS_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##potri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                               T *A, int lda, int *lwork)                          \
    {                                                                                                              \
        struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda };                                           \
        return sizeq(h, OP_POTRI, ST_##P, &a, POTRF_POS, lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##potri(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A,      \
                                                    int lda, T *work, int lwork, int *devInfo)                     \
    {                                                                                                              \
        struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda, .work = work, .lwork = lwork,               \
                             .info = devInfo };                                                                    \
        return sv_call(h, OP_POTRI, ST_##P, &a, POTRF_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda,  \
                                                               int *Lwork)                                         \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda };                                                 \
        return sizeq(h, OP_GETRF, ST_##P, &a, GETRF_POS, Lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda,             \
                                                    T *Workspace, int *devIpiv, int *devInfo)                      \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda, .work = Workspace, .no_lwork = 1,                 \
                             .ipiv = devIpiv, .info = devInfo };                                                   \
        return sv_call(h, OP_GETRF, ST_##P, &a, GETRF_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n,          \
                                                    int nrhs, const T *A, int lda, const int *devIpiv, T *B,       \
                                                    int ldb, int *devInfo)                                         \
    {                                                                                                              \
        struct sv_args a = { .trans = trans, .n = n, .nrhs = nrhs, .A = A, .lda = lda, .ipiv = (int *)devIpiv,     \
                             .B = B, .ldb = ldb, .info = devInfo };                                                \
        return sv_call(h, OP_GETRS, ST_##P, &a, GETRS_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda,  \
                                                               int *lwork)                                         \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda };                                                 \
        return sizeq(h, OP_GEQRF, ST_##P, &a, GEQRF_POS, lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *TAU,     \
                                                    T *Workspace, int Lwork, int *devInfo)                         \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda, .tau = TAU, .work = Workspace, .lwork = Lwork,    \
                             .info = devInfo };                                                                    \
        return sv_call(h, OP_GEQRF, ST_##P, &a, GEQRF_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##ORM##_bufferSize(                                                    \
        cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k, const T *A,     \
        int lda, const T *tau, const T *C, int ldc, int *lwork)                                                    \
    {                                                                                                              \
        struct sv_args a = { .side = side, .trans = trans, .m = m, .n = n, .k = k, .A = A, .lda = lda,             \
                             .tau = tau, .B = C, .ldb = ldc };                                                     \
        return sizeq(h, OP_ORMQR, ST_##P, &a, ORMQR_POS, lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##ORM(cusolverDnHandle_t h, cublasSideMode_t side,                     \
                                                  cublasOperation_t trans, int m, int n, int k, const T *A, int lda, \
                                                  const T *tau, T *C, int ldc, T *work, int lwork, int *devInfo)   \
    {                                                                                                              \
        struct sv_args a = { .side = side, .trans = trans, .m = m, .n = n, .k = k, .A = A, .lda = lda,             \
                             .tau = tau, .B = C, .ldb = ldc, .work = work, .lwork = lwork, .info = devInfo };      \
        return sv_call(h, OP_ORMQR, ST_##P, &a, ORMQR_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##ORG##_bufferSize(cusolverDnHandle_t h, int m, int n, int k,          \
                                                               const T *A, int lda, const T *tau, int *lwork)      \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .k = k, .A = A, .lda = lda, .tau = tau };                             \
        return sizeq(h, OP_ORGQR, ST_##P, &a, ORGQR_POS, lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##ORG(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda,        \
                                                  const T *tau, T *work, int lwork, int *info)                     \
    {                                                                                                              \
        struct sv_args a = { .m = m, .n = n, .k = k, .A = A, .lda = lda, .tau = tau, .work = work,                 \
                             .lwork = lwork, .info = info };                                                       \
        return sv_call(h, OP_ORGQR, ST_##P, &a, ORGQR_POS, NULL);                                                  \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##EVD##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,       \
                                                               cublasFillMode_t uplo, int n, const T *A, int lda,  \
                                                               const R *W, int *lwork)                             \
    {                                                                                                              \
        struct sv_args a = { .jobz = jobz, .uplo = uplo, .n = n, .A = A, .lda = lda, .W = W };                     \
        return sizeq(h, OP_SYEVD, ST_##P, &a, SYEVD_POS, lwork);                                                   \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##EVD(cusolverDnHandle_t h, cusolverEigMode_t jobz,                    \
                                                  cublasFillMode_t uplo, int n, T *A, int lda, R *W, T *work,      \
                                                  int lwork, int *info)                                            \
    {                                                                                                              \
        struct sv_args a = { .jobz = jobz, .uplo = uplo, .n = n, .A = A, .lda = lda, .W = W, .work = work,         \
                             .lwork = lwork, .info = info };                                                       \
        return sv_call(h, OP_SYEVD, ST_##P, &a, SYEVD_POS, NULL);                                                  \
    }                                                                                                              \
    /* NVIDIA's takes no job: the size covers every jobu and jobvt */                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lwork)     \
    {                                                                                                              \
        struct sv_args a = { .jobu = 'N', .jobvt = 'N', .m = m, .n = n, .lda = m > 1 ? m : 1, .ldu = 1,            \
                             .ldvt = 1 };                                                                          \
        static const signed char pos[P__COUNT] = { [P_M] = 1, [P_N] = 2 };                                         \
        return sizeq(h, OP_GESVD, ST_##P, &a, pos, lwork);                                                         \
    }                                                                                                              \
    HL_EXPORT cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt,     \
                                                    int m, int n, T *A, int lda, R *S, T *U, int ldu, T *VT,       \
                                                    int ldvt, T *work, int lwork, R *rwork, int *info)             \
    {                                                                                                              \
        struct sv_args a = { .jobu = jobu, .jobvt = jobvt, .m = m, .n = n, .A = A, .lda = lda, .W = S, .U = U,     \
                             .ldu = ldu, .VT = VT, .ldvt = ldvt, .work = work, .lwork = lwork, .rwork = rwork,     \
                             .info = info };                                                                       \
        return sv_call(h, OP_GESVD, ST_##P, &a, GESVD_POS, NULL);                                                  \
    }
DN_LEGACY(S, float, float, orgqr, ormqr, syevd)
DN_LEGACY(D, double, double, orgqr, ormqr, syevd)
DN_LEGACY(C, cuComplex, float, ungqr, unmqr, heevd)
DN_LEGACY(Z, cuDoubleComplex, double, ungqr, unmqr, heevd)
