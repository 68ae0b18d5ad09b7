/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace's own declarations of the parts of the cuSOLVER 12 dense API
 * (cusolverDn) that src/hostlib/cusolver implements, written from NVIDIA's
 * public cuSOLVER documentation (NVIDIA's headers are not redistributable;
 * the build must not need the toolkit). Values and signatures are those of
 * the real library's ABI, so programs built against NVIDIA's headers run
 * on it. Every other symbol of libcusolver.so.12 is listed in
 * cusolver.syms. */
#ifndef TD_CUSOLVER_API_H
#define TD_CUSOLVER_API_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CUSOLVER_STATUS_SUCCESS = 0,
    CUSOLVER_STATUS_NOT_INITIALIZED = 1,
    CUSOLVER_STATUS_ALLOC_FAILED = 2,
    CUSOLVER_STATUS_INVALID_VALUE = 3,
    CUSOLVER_STATUS_ARCH_MISMATCH = 4,
    CUSOLVER_STATUS_MAPPING_ERROR = 5,
    CUSOLVER_STATUS_EXECUTION_FAILED = 6,
    CUSOLVER_STATUS_INTERNAL_ERROR = 7,
    CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
    CUSOLVER_STATUS_NOT_SUPPORTED = 9,
    CUSOLVER_STATUS_ZERO_PIVOT = 10,
    CUSOLVER_STATUS_INVALID_LICENSE = 11,
    CUSOLVER_STATUS_INVALID_WORKSPACE = 31,
} cusolverStatus_t;

/* cuBLAS's enums, which cuSOLVER's functions take (same values) */
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_CONJG = 3 } cublasOperation_t;
typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;
typedef enum { CUSOLVERDN_GETRF = 0, CUSOLVERDN_POTRF = 1, CUSOLVERDN_SYEVBATCHED = 2 } cusolverDnFunction_t;
typedef enum { CUSOLVER_ALG_0 = 0, CUSOLVER_ALG_1 = 1, CUSOLVER_ALG_2 = 2 } cusolverAlgMode_t;
typedef enum {
    CUSOLVER_DETERMINISTIC_RESULTS = 1,
    CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS = 2,
} cusolverDeterministicMode_t;
typedef enum { CUSOLVER_DEFAULT_MATH = 1, CUSOLVER_FP32_EMULATED_BF16X9_MATH = 2 } cusolverMathMode_t;
/* library_types.h */
typedef enum {
    CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_C_32F = 4, CUDA_C_64F = 5,
} cudaDataType;
typedef enum { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 } libraryPropertyType;
/* cuComplex.h: float2 and double2 */
typedef struct { _Alignas(8) float x, y; } cuComplex;
typedef struct { _Alignas(16) double x, y; } cuDoubleComplex;

typedef struct CUstream_st *cudaStream_t;
typedef struct cusolverDnContext *cusolverDnHandle_t;
typedef struct cusolverDnParams *cusolverDnParams_t;

cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value);
cusolverStatus_t cusolverGetVersion(int *version);
cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId);
cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId);
cusolverStatus_t cusolverDnSetDeterministicMode(cusolverDnHandle_t handle, cusolverDeterministicMode_t mode);
cusolverStatus_t cusolverDnGetDeterministicMode(cusolverDnHandle_t handle, cusolverDeterministicMode_t *mode);
cusolverStatus_t cusolverDnSetMathMode(cusolverDnHandle_t handle, cusolverMathMode_t mode);
cusolverStatus_t cusolverDnGetMathMode(cusolverDnHandle_t handle, cusolverMathMode_t *mode);
cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params);
cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params);
cusolverStatus_t cusolverDnSetAdvOptions(cusolverDnParams_t params, cusolverDnFunction_t function,
                                         cusolverAlgMode_t algo);

/* The legacy (32-bit) API, for each type: P the letter, T the element
 * type, R its real type; OR/UN: orgqr/ungqr, ormqr/unmqr, syevd/heevd */
#define TD_CUSOLVER_DECL(P, T, R, ORG, ORM, EVD)                                                                 \
    cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A,    \
                                                     int lda, int *Lwork);                                        \
    cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda,      \
                                          T *Workspace, int Lwork, int *devInfo);                                 \
    cusolverStatus_t cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs,           \
                                          const T *A, int lda, T *B, int ldb, int *devInfo);                      \
    cusolverStatus_t cusolverDn##P##potri_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A,    \
                                                     int lda, int *lwork);                                        \
    cusolverStatus_t cusolverDn##P##potri(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda,      \
                                          T *work, int lwork, int *devInfo);                                      \
    cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda,           \
                                                     int *Lwork);                                                 \
    cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *Workspace,        \
                                          int *devIpiv, int *devInfo);                                            \
    cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs,         \
                                          const T *A, int lda, const int *devIpiv, T *B, int ldb, int *devInfo);  \
    cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *A, int lda,           \
                                                     int *lwork);                                                 \
    cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *TAU,              \
                                          T *Workspace, int Lwork, int *devInfo);                                 \
    cusolverStatus_t cusolverDn##P##ORM##_bufferSize(cusolverDnHandle_t h, cublasSideMode_t side,                 \
                                                     cublasOperation_t trans, int m, int n, int k, const T *A,    \
                                                     int lda, const T *tau, const T *C, int ldc, int *lwork);     \
    cusolverStatus_t cusolverDn##P##ORM(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans,     \
                                        int m, int n, int k, const T *A, int lda, const T *tau, T *C, int ldc,    \
                                        T *work, int lwork, int *devInfo);                                        \
    cusolverStatus_t cusolverDn##P##ORG##_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const T *A,       \
                                                     int lda, const T *tau, int *lwork);                          \
    cusolverStatus_t cusolverDn##P##ORG(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau,   \
                                        T *work, int lwork, int *info);                                           \
    cusolverStatus_t cusolverDn##P##EVD##_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,                \
                                                     cublasFillMode_t uplo, int n, const T *A, int lda,           \
                                                     const R *W, int *lwork);                                     \
    cusolverStatus_t cusolverDn##P##EVD(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,      \
                                        int n, T *A, int lda, R *W, T *work, int lwork, int *info);               \
    cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lwork);             \
    cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m,      \
                                          int n, T *A, int lda, R *S, T *U, int ldu, T *VT, int ldvt, T *work,    \
                                          int lwork, R *rwork, int *info);
TD_CUSOLVER_DECL(S, float, float, orgqr, ormqr, syevd)
TD_CUSOLVER_DECL(D, double, double, orgqr, ormqr, syevd)
TD_CUSOLVER_DECL(C, cuComplex, float, ungqr, unmqr, heevd)
TD_CUSOLVER_DECL(Z, cuDoubleComplex, double, ungqr, unmqr, heevd)
#undef TD_CUSOLVER_DECL

/* The 64-bit generic API */
cusolverStatus_t cusolverDnXpotrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo,
                                             int64_t n, cudaDataType dataTypeA, const void *A, int64_t lda,
                                             cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                             size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXpotrf(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType computeType,
                                  void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                  size_t workspaceInBytesOnHost, int *info);
cusolverStatus_t cusolverDnXpotrs(cusolverDnHandle_t h, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
                                  int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda,
                                  cudaDataType dataTypeB, void *B, int64_t ldb, int *info);
cusolverStatus_t cusolverDnXgeqrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                             cudaDataType dataTypeA, const void *A, int64_t lda,
                                             cudaDataType dataTypeTau, const void *tau, cudaDataType computeType,
                                             size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXgeqrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeTau, void *tau,
                                  cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void *bufferOnHost, size_t workspaceInBytesOnHost, int *info);
cusolverStatus_t cusolverDnXgetrf_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                             cudaDataType dataTypeA, const void *A, int64_t lda,
                                             cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                             size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXgetrf(cusolverDnHandle_t h, cusolverDnParams_t params, int64_t m, int64_t n,
                                  cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv,
                                  cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void *bufferOnHost, size_t workspaceInBytesOnHost, int *info);
cusolverStatus_t cusolverDnXgetrs(cusolverDnHandle_t h, cusolverDnParams_t params, cublasOperation_t trans,
                                  int64_t n, int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda,
                                  const int64_t *ipiv, cudaDataType dataTypeB, void *B, int64_t ldb, int *info);
cusolverStatus_t cusolverDnXsyevd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void *A,
                                             int64_t lda, cudaDataType dataTypeW, const void *W,
                                             cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                             size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXsyevd(cusolverDnHandle_t h, cusolverDnParams_t params, cusolverEigMode_t jobz,
                                  cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                  cudaDataType dataTypeW, void *W, cudaDataType computeType, void *bufferOnDevice,
                                  size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
                                  int *info);
cusolverStatus_t cusolverDnXgesvd_bufferSize(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu,
                                             signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA,
                                             const void *A, int64_t lda, cudaDataType dataTypeS, const void *S,
                                             cudaDataType dataTypeU, const void *U, int64_t ldu,
                                             cudaDataType dataTypeVT, const void *VT, int64_t ldvt,
                                             cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                             size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXgesvd(cusolverDnHandle_t h, cusolverDnParams_t params, signed char jobu,
                                  signed char jobvt, int64_t m, int64_t n, cudaDataType dataTypeA, void *A,
                                  int64_t lda, cudaDataType dataTypeS, void *S, cudaDataType dataTypeU, void *U,
                                  int64_t ldu, cudaDataType dataTypeVT, void *VT, int64_t ldvt,
                                  cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
                                  void *bufferOnHost, size_t workspaceInBytesOnHost, int *info);

#endif
