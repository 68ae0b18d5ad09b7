/* SPDX-License-Identifier: Apache-2.0 */
/* The 64-bit generic API (cusolverDnXpotrf, Xpotrs, Xgetrf, Xgetrs,
 * Xgeqrf, Xsyevd, Xgesvd and their bufferSize queries): the data types name
 * one of the four types (data and compute type the same, eigenvalues and
 * singular values of its real type; any other combination is
 * CUSOLVER_STATUS_NOT_SUPPORTED), sizes beyond int are
 * CUSOLVER_STATUS_NOT_SUPPORTED (LAPACK takes int), the workspace is in
 * bytes on the device (none is needed on the host). Then as the legacy
 * API (dense.c). */
#include "solver.h"

static int type_of(cudaDataType d, enum st *t)
{
    switch (d) {
    case CUDA_R_32F: *t = ST_S; return 0;
    case CUDA_R_64F: *t = ST_D; return 0;
    case CUDA_C_32F: *t = ST_C; return 0;
    case CUDA_C_64F: *t = ST_Z; return 0;
    }
    return -1;
}

/* the handle, the params (NULL: the defaults) and the types (all the same) */
static cusolverStatus_t prologue(cusolverDnHandle_t h, cusolverDnParams_t params, cudaDataType a, cudaDataType b,
                                 cudaDataType c, enum st *t)
{
    cusolverStatus_t r = sv_handle(h);
    if (r)
        return r;
    if (params && !hl_handle_live(params, PARAMS_KIND))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (type_of(a, t) || a != b || a != c)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t sizes(cusolverDnHandle_t h, enum sv_op op, enum st t, const struct sv_args *a,
                              const signed char *pos, size_t *dev, size_t *host)
{
    if (!dev || !host)
        return CUSOLVER_STATUS_INVALID_VALUE;
    int64_t need = 0;
    cusolverStatus_t r = sv_call(h, op, t, a, pos, &need);
    if (r == CUSOLVER_STATUS_SUCCESS) {
        *dev = (size_t)need * st_size[t];
        *host = 0;
    }
    return r;
}

static int64_t elements(size_t bytes, enum st t)
{
    size_t e = bytes / st_size[t];
    return e > INT64_MAX ? INT64_MAX : (int64_t)e;
}

static const signed char XPOTRF_POS[P__COUNT] = { [P_UPLO] = 2, [P_N] = 3, [P_A] = 5, [P_LDA] = 6, [P_WORK] = 8,
                                                  [P_LWORK] = 9 };
static const signed char XPOTRS_POS[P__COUNT] = { [P_UPLO] = 2, [P_N] = 3, [P_NRHS] = 4, [P_A] = 6, [P_LDA] = 7,
                                                  [P_B] = 9, [P_LDB] = 10 };
static const signed char XGEQRF_POS[P__COUNT] = { [P_M] = 2, [P_N] = 3, [P_A] = 5, [P_LDA] = 6, [P_TAU] = 8,
                                                  [P_WORK] = 10, [P_LWORK] = 11 };
static const signed char XGETRF_POS[P__COUNT] = { [P_M] = 2, [P_N] = 3, [P_A] = 5, [P_LDA] = 6, [P_IPIV] = 7,
                                                  [P_WORK] = 9, [P_LWORK] = 10 };
static const signed char XGETRS_POS[P__COUNT] = { [P_TRANS] = 2, [P_N] = 3, [P_NRHS] = 4, [P_A] = 6, [P_LDA] = 7,
                                                  [P_IPIV] = 8, [P_B] = 10, [P_LDB] = 11 };

HL_EXPORT cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params,
                                                       cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA,
                                                       const void *A, int64_t lda, cudaDataType computeType,
                                                       size_t *workspaceInBytesOnDevice,
                                                       size_t *workspaceInBytesOnHost)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeA, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda };
    return sizes(h, OP_POTRF, t, &a, XPOTRF_POS, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

HL_EXPORT cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo,
                                            int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                            cudaDataType computeType, void *bufferOnDevice,
                                            size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                            size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost, (void)workspaceInBytesOnHost;
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeA, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .uplo = uplo, .n = n, .A = A, .lda = lda, .work = bufferOnDevice,
                         .lwork = elements(workspaceInBytesOnDevice, t), .info = info };
    return sv_call(h, OP_POTRF, t, &a, XPOTRF_POS, NULL);
}

HL_EXPORT cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo,
                                            int64_t n, int64_t nrhs, cudaDataType dataTypeA, const void *A,
                                            int64_t lda, cudaDataType dataTypeB, void *B, int64_t ldb, int *info)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeB, dataTypeA, &t);
    if (r)
        return r;
    struct sv_args a = { .uplo = uplo, .n = n, .nrhs = nrhs, .A = A, .lda = lda, .B = B, .ldb = ldb, .info = info };
    return sv_call(h, OP_POTRS, t, &a, XPOTRS_POS, NULL);
}

HL_EXPORT cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m,
                                                       int64_t n, cudaDataType dataTypeA, const void *A,
                                                       int64_t lda, cudaDataType dataTypeTau, const void *tau,
                                                       cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                                       size_t *workspaceInBytesOnHost)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeTau, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda, .tau = tau };
    return sizes(h, OP_GEQRF, t, &a, XGEQRF_POS, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

HL_EXPORT cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                            cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeTau,
                                            void *tau, cudaDataType computeType, void *bufferOnDevice,
                                            size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                            size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost, (void)workspaceInBytesOnHost;
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeTau, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda, .tau = tau, .work = bufferOnDevice,
                         .lwork = elements(workspaceInBytesOnDevice, t), .info = info };
    return sv_call(h, OP_GEQRF, t, &a, XGEQRF_POS, NULL);
}

HL_EXPORT cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m,
                                                       int64_t n, cudaDataType dataTypeA, const void *A,
                                                       int64_t lda, cudaDataType computeType,
                                                       size_t *workspaceInBytesOnDevice,
                                                       size_t *workspaceInBytesOnHost)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeA, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda };
    return sizes(h, OP_GETRF, t, &a, XGETRF_POS, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

/* ipiv NULL: no pivoting, as cuSOLVER documents */
HL_EXPORT cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                            cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv,
                                            cudaDataType computeType, void *bufferOnDevice,
                                            size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                            size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost, (void)workspaceInBytesOnHost;
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeA, computeType, &t);
    if (r)
        return r;
    struct sv_args a = { .m = m, .n = n, .A = A, .lda = lda, .ipiv64 = ipiv, .work = bufferOnDevice,
                         .lwork = elements(workspaceInBytesOnDevice, t), .info = info };
    return sv_call(h, OP_GETRF, t, &a, XGETRF_POS, NULL);
}

HL_EXPORT cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t h, cusolverDnParams_t params,
                                            cublasOperation_t trans, int64_t n, int64_t nrhs,
                                            cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv,
                                            cudaDataType dataTypeB, void *B, int64_t ldb, int *info)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeB, dataTypeA, &t);
    if (r)
        return r;
    struct sv_args a = { .trans = trans, .n = n, .nrhs = nrhs, .A = A, .lda = lda, .ipiv64 = (int64_t *)ipiv,
                         .B = B, .ldb = ldb, .info = info };
    return sv_call(h, OP_GETRS, t, &a, XGETRS_POS, NULL);
}

/* the real type of a data type (eigenvalues, singular values) */
static cudaDataType real_of(cudaDataType d)
{
    return d == CUDA_C_32F ? CUDA_R_32F : d == CUDA_C_64F ? CUDA_R_64F : d;
}

static const signed char XSYEVD_POS[P__COUNT] = { [P_JOBZ] = 2, [P_UPLO] = 3, [P_N] = 4, [P_A] = 6, [P_LDA] = 7,
                                                  [P_W] = 9, [P_WORK] = 11, [P_LWORK] = 12 };
static const signed char XGESVD_POS[P__COUNT] = { [P_JOBU] = 2, [P_JOBVT] = 3, [P_M] = 4, [P_N] = 5, [P_A] = 7,
                                                  [P_LDA] = 8, [P_W] = 10, [P_U] = 12, [P_LDU] = 13, [P_VT] = 15,
                                                  [P_LDVT] = 16, [P_WORK] = 18, [P_LWORK] = 19 };

HL_EXPORT cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params,
                                                       cusolverEigMode_t jobz, cublasFillMode_t uplo, int64_t n,
                                                       cudaDataType dataTypeA, const void *A, int64_t lda,
                                                       cudaDataType dataTypeW, const void *W,
                                                       cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                                       size_t *workspaceInBytesOnHost)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, computeType, computeType, &t);
    if (r)
        return r;
    if (dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    struct sv_args a = { .jobz = jobz, .uplo = uplo, .n = n, .A = A, .lda = lda, .W = W };
    return sizes(h, OP_SYEVD, t, &a, XSYEVD_POS, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

HL_EXPORT cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                            cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A,
                                            int64_t lda, cudaDataType dataTypeW, void *W, cudaDataType computeType,
                                            void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                            size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost, (void)workspaceInBytesOnHost;
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, computeType, computeType, &t);
    if (r)
        return r;
    if (dataTypeW != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    struct sv_args a = { .jobz = jobz, .uplo = uplo, .n = n, .A = A, .lda = lda, .W = W, .work = bufferOnDevice,
                         .lwork = elements(workspaceInBytesOnDevice, t), .info = info };
    return sv_call(h, OP_SYEVD, t, &a, XSYEVD_POS, NULL);
}

HL_EXPORT cusolverStatus_t cusolverDnXgesvd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params,
                                                       signed char jobu, signed char jobvt, int64_t m, int64_t n,
                                                       cudaDataType dataTypeA, const void *A, int64_t lda,
                                                       cudaDataType dataTypeS, const void *S, cudaDataType dataTypeU,
                                                       const void *U, int64_t ldu, cudaDataType dataTypeVT,
                                                       const void *VT, int64_t ldvt, cudaDataType computeType,
                                                       size_t *workspaceInBytesOnDevice,
                                                       size_t *workspaceInBytesOnHost)
{
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeU, dataTypeVT, &t);
    if (r)
        return r;
    if (computeType != dataTypeA || dataTypeS != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    struct sv_args a = { .jobu = jobu, .jobvt = jobvt, .m = m, .n = n, .A = A, .lda = lda, .W = S, .U = U,
                         .ldu = ldu, .VT = VT, .ldvt = ldvt };
    return sizes(h, OP_GESVD, t, &a, XGESVD_POS, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

/* m >= n, as the legacy gesvd; the superdiagonal that did not converge
 * has nowhere to go (no rwork argument) */
HL_EXPORT cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu,
                                            signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
                                            int64_t lda, cudaDataType dataTypeS, void *S, cudaDataType dataTypeU,
                                            void *U, int64_t ldu, cudaDataType dataTypeVT, void *VT, int64_t ldvt,
                                            cudaDataType computeType, void *bufferOnDevice,
                                            size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                            size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost, (void)workspaceInBytesOnHost;
    enum st t;
    cusolverStatus_t r = prologue(h, params, dataTypeA, dataTypeU, dataTypeVT, &t);
    if (r)
        return r;
    if (computeType != dataTypeA || dataTypeS != real_of(dataTypeA))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    struct sv_args a = { .jobu = jobu, .jobvt = jobvt, .m = m, .n = n, .A = A, .lda = lda, .W = S, .U = U,
                         .ldu = ldu, .VT = VT, .ldvt = ldvt, .work = bufferOnDevice,
                         .lwork = elements(workspaceInBytesOnDevice, t), .info = info };
    return sv_call(h, OP_GESVD, t, &a, XGESVD_POS, NULL);
}
