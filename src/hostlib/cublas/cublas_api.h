/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace's own declarations of the parts of the cuBLAS 13 API that
 * src/hostlib/cublas implements, written from NVIDIA's public cuBLAS
 * documentation (NVIDIA's headers are not redistributable; the build must
 * not need the toolkit). Values and signatures are those of the real
 * library's ABI, so programs built against NVIDIA's headers run on it.
 * Every other symbol of libcublas.so.13 is listed in cublas.syms. */
#ifndef TD_CUBLAS_API_H
#define TD_CUBLAS_API_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16,
} cublasStatus_t;

typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_CONJG = 3 } cublasOperation_t;
#define CUBLAS_OP_HERMITAN CUBLAS_OP_C
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4,
    CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH = 8,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
} cublasMath_t;
typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
    CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
} cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_ALGO23 = 23, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
               CUBLAS_GEMM_ALGO15_TENSOR_OP = 115 } cublasGemmAlgo_t;
typedef enum {
    CUBLAS_EMULATION_STRATEGY_DEFAULT = 0,
    CUBLAS_EMULATION_STRATEGY_PERFORMANT = 1,
    CUBLAS_EMULATION_STRATEGY_EAGER = 2,
} cublasEmulationStrategy_t;

/* library_types.h */
typedef enum {
    CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_C_32F = 4, CUDA_C_64F = 5,
    CUDA_C_16F = 6, CUDA_C_8I = 7, CUDA_R_8U = 8, CUDA_C_8U = 9, CUDA_R_32I = 10, CUDA_C_32I = 11,
    CUDA_R_32U = 12, CUDA_C_32U = 13, CUDA_R_16BF = 14, CUDA_C_16BF = 15,
} cudaDataType;
typedef cudaDataType cudaDataType_t;
typedef enum { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 } libraryPropertyType;

/* float2 and double2: the alignment is the whole pair's */
typedef struct { _Alignas(8) float x; float y; } cuComplex;
typedef struct { _Alignas(16) double x; double y; } cuDoubleComplex;
_Static_assert(sizeof(cuComplex) == 8 && sizeof(cuDoubleComplex) == 16, "cuComplex layout");
typedef uint16_t cublasHalf;       /* __half: IEEE binary16 bits */

typedef struct cublasContext *cublasHandle_t;
typedef struct CUstream_st *cudaStream_t;
typedef void (*cublasLogCallback)(const char *msg);

/* ---- the handle ------------------------------------------------------ */
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version);
cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value);
size_t cublasGetCudartVersion(void);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId);
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode);
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget);
cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget);
cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t *s);
cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t s);
/* Not in NVIDIA's headers or documentation, but exported by libcublas.so.13
 * and called by NVIDIA's libcusolver.so.12 (cusolverDnCreate sets mode 1 on
 * the cuBLAS handle it creates, and fails if that fails). NVIDIA's library
 * accepts 0 and 1 (CUBLAS_STATUS_INVALID_VALUE for the rest) and keeps the
 * value in the handle; what it selects there is not documented. */
cublasStatus_t cublasGetEnvironmentMode(cublasHandle_t handle, int *mode);
cublasStatus_t cublasSetEnvironmentMode(cublasHandle_t handle, int mode);
cublasStatus_t cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, const char *logFileName);
cublasStatus_t cublasSetLoggerCallback(cublasLogCallback userCallback);
cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *userCallback);
/* the legacy API's error (its functions are not implemented: see cublas.syms) */
cublasStatus_t cublasGetError(void);

/* ---- copies between host and device --------------------------------- */
#define HL_CUBLAS_COPIES(I, SFX)                                                                         \
    cublasStatus_t cublasSetVector##SFX(I n, I elemSize, const void *x, I incx, void *devicePtr, I incy); \
    cublasStatus_t cublasGetVector##SFX(I n, I elemSize, const void *x, I incx, void *y, I incy);          \
    cublasStatus_t cublasSetMatrix##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B, I ldb); \
    cublasStatus_t cublasGetMatrix##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B, I ldb); \
    cublasStatus_t cublasSetVectorAsync##SFX(I n, I elemSize, const void *hostPtr, I incx, void *devicePtr, \
                                             I incy, cudaStream_t stream);                                 \
    cublasStatus_t cublasGetVectorAsync##SFX(I n, I elemSize, const void *devicePtr, I incx, void *hostPtr, \
                                             I incy, cudaStream_t stream);                                 \
    cublasStatus_t cublasSetMatrixAsync##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B,    \
                                             I ldb, cudaStream_t stream);                                  \
    cublasStatus_t cublasGetMatrixAsync##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B,    \
                                             I ldb, cudaStream_t stream);
HL_CUBLAS_COPIES(int, )
HL_CUBLAS_COPIES(int64_t, _64)

/* ---- level 1: P the type letter, T the type, R its real type, I the
 * integer type, S the suffix (_v2 or _v2_64) ------------------------- */
#define HL_CUBLAS_L1_ALL(P, p, T, I, S)                                                                    \
    cublasStatus_t cublas##P##axpy##S(cublasHandle_t h, I n, const T *alpha, const T *x, I incx, T *y,     \
                                      I incy);                                                             \
    cublasStatus_t cublas##P##copy##S(cublasHandle_t h, I n, const T *x, I incx, T *y, I incy);            \
    cublasStatus_t cublas##P##scal##S(cublasHandle_t h, I n, const T *alpha, T *x, I incx);                \
    cublasStatus_t cublas##P##swap##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy);                  \
    cublasStatus_t cublasI##p##amax##S(cublasHandle_t h, I n, const T *x, I incx, I *result);              \
    cublasStatus_t cublasI##p##amin##S(cublasHandle_t h, I n, const T *x, I incx, I *result);
#define HL_CUBLAS_L1_REAL(P, T, I, S)                                                                   \
    cublasStatus_t cublas##P##asum##S(cublasHandle_t h, I n, const T *x, I incx, T *result);               \
    cublasStatus_t cublas##P##nrm2##S(cublasHandle_t h, I n, const T *x, I incx, T *result);               \
    cublasStatus_t cublas##P##dot##S(cublasHandle_t h, I n, const T *x, I incx, const T *y, I incy,        \
                                     T *result);                                                           \
    cublasStatus_t cublas##P##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy, const T *c,       \
                                     const T *s);                                                          \
    cublasStatus_t cublas##P##rotm##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy, const T *param);
/* complex: P/p the type letter (C, Z), RP/rp its real type's (S, D) */
#define HL_CUBLAS_L1_CPLX(P, p, RP, rp, T, R, I, S)                                                     \
    cublasStatus_t cublas##RP##p##asum##S(cublasHandle_t h, I n, const T *x, I incx, R *result);           \
    cublasStatus_t cublas##RP##p##nrm2##S(cublasHandle_t h, I n, const T *x, I incx, R *result);           \
    cublasStatus_t cublas##P##dotu##S(cublasHandle_t h, I n, const T *x, I incx, const T *y, I incy,       \
                                      T *result);                                                          \
    cublasStatus_t cublas##P##dotc##S(cublasHandle_t h, I n, const T *x, I incx, const T *y, I incy,       \
                                      T *result);                                                          \
    cublasStatus_t cublas##P##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy, const R *c,       \
                                     const T *s);                                                          \
    cublasStatus_t cublas##P##rp##rot##S(cublasHandle_t h, I n, T *x, I incx, T *y, I incy, const R *c,   \
                                         const R *s);                                                      \
    cublasStatus_t cublas##P##rp##scal##S(cublasHandle_t h, I n, const R *alpha, T *x, I incx);
HL_CUBLAS_L1_ALL(S, s, float, int, _v2)
HL_CUBLAS_L1_ALL(D, d, double, int, _v2)
HL_CUBLAS_L1_ALL(C, c, cuComplex, int, _v2)
HL_CUBLAS_L1_ALL(Z, z, cuDoubleComplex, int, _v2)
HL_CUBLAS_L1_ALL(S, s, float, int64_t, _v2_64)
HL_CUBLAS_L1_ALL(D, d, double, int64_t, _v2_64)
HL_CUBLAS_L1_ALL(C, c, cuComplex, int64_t, _v2_64)
HL_CUBLAS_L1_ALL(Z, z, cuDoubleComplex, int64_t, _v2_64)
HL_CUBLAS_L1_REAL(S, float, int, _v2)
HL_CUBLAS_L1_REAL(D, double, int, _v2)
HL_CUBLAS_L1_REAL(S, float, int64_t, _v2_64)
HL_CUBLAS_L1_REAL(D, double, int64_t, _v2_64)
HL_CUBLAS_L1_CPLX(C, c, S, s, cuComplex, float, int, _v2)
HL_CUBLAS_L1_CPLX(Z, z, D, d, cuDoubleComplex, double, int, _v2)
HL_CUBLAS_L1_CPLX(C, c, S, s, cuComplex, float, int64_t, _v2_64)
HL_CUBLAS_L1_CPLX(Z, z, D, d, cuDoubleComplex, double, int64_t, _v2_64)
/* no sizes, so no _64 forms */
cublasStatus_t cublasSrotg_v2(cublasHandle_t h, float *a, float *b, float *c, float *s);
cublasStatus_t cublasDrotg_v2(cublasHandle_t h, double *a, double *b, double *c, double *s);
cublasStatus_t cublasCrotg_v2(cublasHandle_t h, cuComplex *a, cuComplex *b, float *c, cuComplex *s);
cublasStatus_t cublasZrotg_v2(cublasHandle_t h, cuDoubleComplex *a, cuDoubleComplex *b, double *c,
                              cuDoubleComplex *s);
cublasStatus_t cublasSrotmg_v2(cublasHandle_t h, float *d1, float *d2, float *x1, const float *y1, float *param);
cublasStatus_t cublasDrotmg_v2(cublasHandle_t h, double *d1, double *d2, double *x1, const double *y1,
                               double *param);

/* ---- level 2 ---------------------------------------------------------- */
#define HL_CUBLAS_L2_ALL(P, T, I, S)                                                                    \
    cublasStatus_t cublas##P##gemv##S(cublasHandle_t h, cublasOperation_t trans, I m, I n, const T *alpha, \
                                      const T *A, I lda, const T *x, I incx, const T *beta, T *y, I incy); \
    cublasStatus_t cublas##P##gbmv##S(cublasHandle_t h, cublasOperation_t trans, I m, I n, I kl, I ku,     \
                                      const T *alpha, const T *A, I lda, const T *x, I incx,               \
                                      const T *beta, T *y, I incy);                                        \
    cublasStatus_t cublas##P##trmv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, const T *A, I lda, T *x, I incx);        \
    cublasStatus_t cublas##P##trsv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, const T *A, I lda, T *x, I incx);        \
    cublasStatus_t cublas##P##tbmv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, I k, const T *A, I lda, T *x, I incx);   \
    cublasStatus_t cublas##P##tbsv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, I k, const T *A, I lda, T *x, I incx);   \
    cublasStatus_t cublas##P##tpmv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, const T *AP, T *x, I incx);              \
    cublasStatus_t cublas##P##tpsv##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      cublasDiagType_t diag, I n, const T *AP, T *x, I incx);
/* symmetric (real) or Hermitian (complex): SY is sy/he, SB sb/hb, SP sp/hp;
 * RA the type of the rank-1 update's alpha */
#define HL_CUBLAS_L2_SYM(P, SY, SB, SP, T, RA, I, S)                                                    \
    cublasStatus_t cublas##P##SY##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,      \
                                        const T *A, I lda, const T *x, I incx, const T *beta, T *y,        \
                                        I incy);                                                           \
    cublasStatus_t cublas##P##SB##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, I k, const T *alpha, \
                                        const T *A, I lda, const T *x, I incx, const T *beta, T *y,        \
                                        I incy);                                                           \
    cublasStatus_t cublas##P##SP##mv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,      \
                                        const T *AP, const T *x, I incx, const T *beta, T *y, I incy);     \
    cublasStatus_t cublas##P##SY##r##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const RA *alpha,      \
                                       const T *x, I incx, T *A, I lda);                                   \
    cublasStatus_t cublas##P##SY##r2##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,      \
                                        const T *x, I incx, const T *y, I incy, T *A, I lda);              \
    cublasStatus_t cublas##P##SP##r##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const RA *alpha,      \
                                       const T *x, I incx, T *AP);                                         \
    cublasStatus_t cublas##P##SP##r2##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,      \
                                        const T *x, I incx, const T *y, I incy, T *AP);
#define HL_CUBLAS_L2_GER(P, NAME, T, I, S)                                                              \
    cublasStatus_t cublas##P##NAME##S(cublasHandle_t h, I m, I n, const T *alpha, const T *x, I incx,      \
                                      const T *y, I incy, T *A, I lda);
#define HL_CUBLAS_L2(I, SF)                                                                              \
    HL_CUBLAS_L2_ALL(S, float, I, SF) HL_CUBLAS_L2_ALL(D, double, I, SF)                                   \
    HL_CUBLAS_L2_ALL(C, cuComplex, I, SF) HL_CUBLAS_L2_ALL(Z, cuDoubleComplex, I, SF)                      \
    HL_CUBLAS_L2_SYM(S, sy, sb, sp, float, float, I, SF) HL_CUBLAS_L2_SYM(D, sy, sb, sp, double, double, I, SF) \
    HL_CUBLAS_L2_SYM(C, he, hb, hp, cuComplex, float, I, SF)                                              \
    HL_CUBLAS_L2_SYM(Z, he, hb, hp, cuDoubleComplex, double, I, SF)                                       \
    HL_CUBLAS_L2_GER(S, ger, float, I, SF) HL_CUBLAS_L2_GER(D, ger, double, I, SF)                         \
    HL_CUBLAS_L2_GER(C, geru, cuComplex, I, SF) HL_CUBLAS_L2_GER(C, gerc, cuComplex, I, SF)                \
    HL_CUBLAS_L2_GER(Z, geru, cuDoubleComplex, I, SF) HL_CUBLAS_L2_GER(Z, gerc, cuDoubleComplex, I, SF)
HL_CUBLAS_L2(int, _v2)
HL_CUBLAS_L2(int64_t, _v2_64)

/* ---- level 3 ---------------------------------------------------------- */
#define HL_CUBLAS_L3_ALL(P, T, I, S, S2)                                                                \
    cublasStatus_t cublas##P##gemm##S(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, \
                                      I m, I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb, \
                                      const T *beta, T *C, I ldc);                                         \
    cublasStatus_t cublas##P##gemmBatched##S2(cublasHandle_t h, cublasOperation_t transa,                  \
                                              cublasOperation_t transb, I m, I n, I k, const T *alpha,     \
                                              const T *const Aarray[], I lda, const T *const Barray[],     \
                                              I ldb, const T *beta, T *const Carray[], I ldc,              \
                                              I batchCount);                                               \
    cublasStatus_t cublas##P##gemmStridedBatched##S2(                                                      \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, const T *alpha, \
        const T *A, I lda, long long strideA, const T *B, I ldb, long long strideB, const T *beta, T *C,   \
        I ldc, long long strideC, I batchCount);                                                           \
    cublasStatus_t cublas##P##symm##S(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, I m, \
                                      I n, const T *alpha, const T *A, I lda, const T *B, I ldb,           \
                                      const T *beta, T *C, I ldc);                                         \
    cublasStatus_t cublas##P##syrk##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      I n, I k, const T *alpha, const T *A, I lda, const T *beta, T *C,    \
                                      I ldc);                                                              \
    cublasStatus_t cublas##P##syr2k##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                       I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,     \
                                       const T *beta, T *C, I ldc);                                        \
    cublasStatus_t cublas##P##syrkx##S2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                        I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,    \
                                        const T *beta, T *C, I ldc);                                       \
    cublasStatus_t cublas##P##trmm##S(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                      cublasOperation_t trans, cublasDiagType_t diag, I m, I n,            \
                                      const T *alpha, const T *A, I lda, const T *B, I ldb, T *C, I ldc);  \
    cublasStatus_t cublas##P##trsm##S(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,      \
                                      cublasOperation_t trans, cublasDiagType_t diag, I m, I n,            \
                                      const T *alpha, const T *A, I lda, T *B, I ldb);                     \
    cublasStatus_t cublas##P##geam##S2(cublasHandle_t h, cublasOperation_t transa,                         \
                                       cublasOperation_t transb, I m, I n, const T *alpha, const T *A,     \
                                       I lda, const T *beta, const T *B, I ldb, T *C, I ldc);              \
    cublasStatus_t cublas##P##dgmm##S2(cublasHandle_t h, cublasSideMode_t mode, I m, I n, const T *A,      \
                                       I lda, const T *x, I incx, T *C, I ldc);
/* Hermitian forms: R the real type of herk's alpha and beta, her2k's beta */
#define HL_CUBLAS_L3_HER(P, T, R, I, S, S2)                                                             \
    cublasStatus_t cublas##P##hemm##S(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, I m, \
                                      I n, const T *alpha, const T *A, I lda, const T *B, I ldb,           \
                                      const T *beta, T *C, I ldc);                                         \
    cublasStatus_t cublas##P##herk##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,    \
                                      I n, I k, const R *alpha, const T *A, I lda, const R *beta, T *C,    \
                                      I ldc);                                                              \
    cublasStatus_t cublas##P##her2k##S(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,   \
                                       I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,     \
                                       const R *beta, T *C, I ldc);                                        \
    cublasStatus_t cublas##P##herkx##S2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans,  \
                                        I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,    \
                                        const R *beta, T *C, I ldc);                                       \
    cublasStatus_t cublas##P##gemm3m##S2(cublasHandle_t h, cublasOperation_t transa,                       \
                                         cublasOperation_t transb, I m, I n, I k, const T *alpha,          \
                                         const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc);
#define HL_CUBLAS_L3(I, SF, SF2)                                                                          \
    HL_CUBLAS_L3_ALL(S, float, I, SF, SF2) HL_CUBLAS_L3_ALL(D, double, I, SF, SF2)                           \
    HL_CUBLAS_L3_ALL(C, cuComplex, I, SF, SF2) HL_CUBLAS_L3_ALL(Z, cuDoubleComplex, I, SF, SF2)              \
    HL_CUBLAS_L3_HER(C, cuComplex, float, I, SF, SF2) HL_CUBLAS_L3_HER(Z, cuDoubleComplex, double, I, SF, SF2)
HL_CUBLAS_L3(int, _v2, )
HL_CUBLAS_L3(int64_t, _v2_64, _64)

/* ---- complex symmetric level 2 (C, Z) ------------------------------------- */
#define HL_CUBLAS_CSYM(P, T, I, S)                                                                      \
    cublasStatus_t cublas##P##symv##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,         \
                                      const T *A, I lda, const T *x, I incx, const T *beta, T *y, I incy);  \
    cublasStatus_t cublas##P##syr##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,          \
                                     const T *x, I incx, T *A, I lda);                                      \
    cublasStatus_t cublas##P##syr2##S(cublasHandle_t h, cublasFillMode_t uplo, I n, const T *alpha,         \
                                      const T *x, I incx, const T *y, I incy, T *A, I lda);
HL_CUBLAS_CSYM(C, cuComplex, int, _v2)
HL_CUBLAS_CSYM(Z, cuDoubleComplex, int, _v2)
HL_CUBLAS_CSYM(C, cuComplex, int64_t, _v2_64)
HL_CUBLAS_CSYM(Z, cuDoubleComplex, int64_t, _v2_64)

/* ---- level 1 with data types as arguments ---------------------------------- */
#define HL_CUBLAS_EX1(I, S)                                                                             \
    cublasStatus_t cublasAxpyEx##S(cublasHandle_t h, I n, const void *alpha, cudaDataType alphaType,        \
                                   const void *x, cudaDataType xType, I incx, void *y, cudaDataType yType,  \
                                   I incy, cudaDataType executiontype);                                     \
    cublasStatus_t cublasDotEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,         \
                                  const void *y, cudaDataType yType, I incy, void *result,                  \
                                  cudaDataType resultType, cudaDataType executionType);                     \
    cublasStatus_t cublasDotcEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,        \
                                   const void *y, cudaDataType yType, I incy, void *result,                 \
                                   cudaDataType resultType, cudaDataType executionType);                    \
    cublasStatus_t cublasNrm2Ex##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,        \
                                   void *result, cudaDataType resultType, cudaDataType executionType);      \
    cublasStatus_t cublasAsumEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,        \
                                   void *result, cudaDataType resultType, cudaDataType executiontype);      \
    cublasStatus_t cublasScalEx##S(cublasHandle_t h, I n, const void *alpha, cudaDataType alphaType,        \
                                   void *x, cudaDataType xType, I incx, cudaDataType executionType);        \
    cublasStatus_t cublasIamaxEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,       \
                                    I *result);                                                             \
    cublasStatus_t cublasIaminEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,       \
                                    I *result);                                                             \
    cublasStatus_t cublasCopyEx##S(cublasHandle_t h, I n, const void *x, cudaDataType xType, I incx,        \
                                   void *y, cudaDataType yType, I incy);                                    \
    cublasStatus_t cublasSwapEx##S(cublasHandle_t h, I n, void *x, cudaDataType xType, I incx, void *y,     \
                                   cudaDataType yType, I incy);                                             \
    cublasStatus_t cublasRotEx##S(cublasHandle_t h, I n, void *x, cudaDataType xType, I incx, void *y,      \
                                  cudaDataType yType, I incy, const void *c, const void *s,                 \
                                  cudaDataType csType, cudaDataType executiontype);
HL_CUBLAS_EX1(int, )
HL_CUBLAS_EX1(int64_t, _64)

/* ---- batched level 2 and 3, batched LU ----------------------------------- */
#define HL_CUBLAS_BATCHED(P, T, I, S)                                                                   \
    cublasStatus_t cublas##P##gemvBatched##S(cublasHandle_t h, cublasOperation_t trans, I m, I n,           \
                                             const T *alpha, const T *const Aarray[], I lda,                \
                                             const T *const xarray[], I incx, const T *beta,                \
                                             T *const yarray[], I incy, I batchCount);                      \
    cublasStatus_t cublas##P##gemvStridedBatched##S(cublasHandle_t h, cublasOperation_t trans, I m, I n,    \
                                                    const T *alpha, const T *A, I lda, long long strideA,   \
                                                    const T *x, I incx, long long stridex, const T *beta,   \
                                                    T *y, I incy, long long stridey, I batchCount);         \
    cublasStatus_t cublas##P##trsmBatched##S(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                             cublasOperation_t trans, cublasDiagType_t diag, I m, I n,      \
                                             const T *alpha, const T *const A[], I lda, T *const B[], I ldb, \
                                             I batchCount);
#define HL_CUBLAS_LU(P, T)                                                                              \
    cublasStatus_t cublas##P##getrfBatched(cublasHandle_t h, int n, T *const A[], int lda, int *P_,         \
                                           int *info, int batchSize);                                       \
    cublasStatus_t cublas##P##getrsBatched(cublasHandle_t h, cublasOperation_t trans, int n, int nrhs,      \
                                           const T *const Aarray[], int lda, const int *devIpiv,            \
                                           T *const Barray[], int ldb, int *info, int batchSize);           \
    cublasStatus_t cublas##P##getriBatched(cublasHandle_t h, int n, const T *const A[], int lda,           \
                                           const int *P_, T *const C[], int ldc, int *info, int batchSize); \
    cublasStatus_t cublas##P##matinvBatched(cublasHandle_t h, int n, const T *const A[], int lda,          \
                                            T *const Ainv[], int lda_inv, int *info, int batchSize);
#define HL_CUBLAS_BATCHED_ALL(P, T)                                                                     \
    HL_CUBLAS_BATCHED(P, T, int, ) HL_CUBLAS_BATCHED(P, T, int64_t, _64) HL_CUBLAS_LU(P, T)
HL_CUBLAS_BATCHED_ALL(S, float)
HL_CUBLAS_BATCHED_ALL(D, double)
HL_CUBLAS_BATCHED_ALL(C, cuComplex)
HL_CUBLAS_BATCHED_ALL(Z, cuDoubleComplex)

/* ---- mixed precision ---------------------------------------------------- */
#define HL_CUBLAS_EX(I, S)                                                                              \
    cublasStatus_t cublasGemmEx##S(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,   \
                                   I m, I n, I k, const void *alpha, const void *A, cudaDataType Atype,    \
                                   I lda, const void *B, cudaDataType Btype, I ldb, const void *beta,      \
                                   void *C, cudaDataType Ctype, I ldc, cublasComputeType_t computeType,    \
                                   cublasGemmAlgo_t algo);                                                 \
    cublasStatus_t cublasGemmBatchedEx##S(                                                                 \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,               \
        const void *alpha, const void *const Aarray[], cudaDataType Atype, I lda, const void *const Barray[], \
        cudaDataType Btype, I ldb, const void *beta, void *const Carray[], cudaDataType Ctype, I ldc,      \
        I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);                             \
    cublasStatus_t cublasGemmStridedBatchedEx##S(                                                          \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,               \
        const void *alpha, const void *A, cudaDataType Atype, I lda, long long strideA, const void *B,     \
        cudaDataType Btype, I ldb, long long strideB, const void *beta, void *C, cudaDataType Ctype, I ldc, \
        long long strideC, I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);          \
    cublasStatus_t cublasSgemmEx##S(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,  \
                                    I m, I n, I k, const float *alpha, const void *A, cudaDataType Atype,  \
                                    I lda, const void *B, cudaDataType Btype, I ldb, const float *beta,    \
                                    void *C, cudaDataType Ctype, I ldc);                                   \
    cublasStatus_t cublasHgemm##S(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,    \
                                  I m, I n, I k, const cublasHalf *alpha, const cublasHalf *A, I lda,      \
                                  const cublasHalf *B, I ldb, const cublasHalf *beta, cublasHalf *C, I ldc); \
    cublasStatus_t cublasHgemmBatched##S(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, \
                                         I m, I n, I k, const cublasHalf *alpha, const cublasHalf *const Aarray[], \
                                         I lda, const cublasHalf *const Barray[], I ldb, const cublasHalf *beta, \
                                         cublasHalf *const Carray[], I ldc, I batchCount);                  \
    cublasStatus_t cublasHgemmStridedBatched##S(                                                           \
        cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k,               \
        const cublasHalf *alpha, const cublasHalf *A, I lda, long long strideA, const cublasHalf *B, I ldb, \
        long long strideB, const cublasHalf *beta, cublasHalf *C, I ldc, long long strideC, I batchCount);
HL_CUBLAS_EX(int, )
HL_CUBLAS_EX(int64_t, _64)

/* ---- cuBLAS-XT (cublasXt.h; xt.c) ---- */
typedef struct cublasXtContext *cublasXtHandle_t;
typedef enum { CUBLASXT_PINNING_DISABLED = 0, CUBLASXT_PINNING_ENABLED = 1 } cublasXtPinnedMemMode_t;
typedef enum { CUBLASXT_FLOAT = 0, CUBLASXT_DOUBLE = 1, CUBLASXT_COMPLEX = 2, CUBLASXT_DOUBLECOMPLEX = 3 } cublasXtOpType_t;
typedef enum {
    CUBLASXT_GEMM = 0, CUBLASXT_SYRK = 1, CUBLASXT_HERK = 2, CUBLASXT_SYMM = 3, CUBLASXT_HEMM = 4,
    CUBLASXT_TRSM = 5, CUBLASXT_SYR2K = 6, CUBLASXT_HER2K = 7, CUBLASXT_SPMM = 8, CUBLASXT_SYRKX = 9,
    CUBLASXT_HERKX = 10, CUBLASXT_TRMM = 11, CUBLASXT_ROUTINE_MAX = 12
} cublasXtBlasOp_t;
cublasStatus_t cublasXtCreate(cublasXtHandle_t *handle);
cublasStatus_t cublasXtDestroy(cublasXtHandle_t handle);
cublasStatus_t cublasXtGetNumBoards(int nbDevices, int deviceId[], int *nbBoards);
cublasStatus_t cublasXtMaxBoards(int *nbGpuBoards);
cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t handle, int nbDevices, int deviceId[]);
cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t handle, int blockDim);
cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t handle, int *blockDim);
cublasStatus_t cublasXtGetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t *mode);
cublasStatus_t cublasXtSetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t mode);
cublasStatus_t cublasXtSetCpuRoutine(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp, cublasXtOpType_t type,
                                     void *blasFunctor);
cublasStatus_t cublasXtSetCpuRatio(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp, cublasXtOpType_t type,
                                   float ratio);
#define HL_CUBLASXT_ALL(P, T)                                                                              \
    cublasStatus_t cublasXt##P##gemm(cublasXtHandle_t h, cublasOperation_t ta, cublasOperation_t tb, size_t m, \
                                     size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B,  \
                                     size_t ldb, const T *beta, T *C, size_t ldc);                          \
    cublasStatus_t cublasXt##P##symm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,       \
                                     size_t m, size_t n, const T *alpha, const T *A, size_t lda, const T *B,  \
                                     size_t ldb, const T *beta, T *C, size_t ldc);                          \
    cublasStatus_t cublasXt##P##syrk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr, size_t n, \
                                     size_t k, const T *alpha, const T *A, size_t lda, const T *beta, T *C,   \
                                     size_t ldc);                                                           \
    cublasStatus_t cublasXt##P##syr2k(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr,       \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B, \
                                      size_t ldb, const T *beta, T *C, size_t ldc);                         \
    cublasStatus_t cublasXt##P##syrkx(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr,       \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B, \
                                      size_t ldb, const T *beta, T *C, size_t ldc);                         \
    cublasStatus_t cublasXt##P##trsm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,       \
                                     cublasOperation_t tr, cublasDiagType_t diag, size_t m, size_t n,        \
                                     const T *alpha, const T *A, size_t lda, T *B, size_t ldb);             \
    cublasStatus_t cublasXt##P##trmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,       \
                                     cublasOperation_t tr, cublasDiagType_t diag, size_t m, size_t n,        \
                                     const T *alpha, const T *A, size_t lda, const T *B, size_t ldb, T *C,   \
                                     size_t ldc);                                                           \
    cublasStatus_t cublasXt##P##spmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,       \
                                     size_t m, size_t n, const T *alpha, const T *AP, const T *B, size_t ldb, \
                                     const T *beta, T *C, size_t ldc);
#define HL_CUBLASXT_HER(P, T, R)                                                                           \
    cublasStatus_t cublasXt##P##hemm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,       \
                                     size_t m, size_t n, const T *alpha, const T *A, size_t lda, const T *B,  \
                                     size_t ldb, const T *beta, T *C, size_t ldc);                          \
    cublasStatus_t cublasXt##P##herk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr, size_t n, \
                                     size_t k, const R *alpha, const T *A, size_t lda, const R *beta, T *C,   \
                                     size_t ldc);                                                           \
    cublasStatus_t cublasXt##P##her2k(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr,       \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B, \
                                      size_t ldb, const R *beta, T *C, size_t ldc);                         \
    cublasStatus_t cublasXt##P##herkx(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr,       \
                                      size_t n, size_t k, const T *alpha, const T *A, size_t lda, const T *B, \
                                      size_t ldb, const R *beta, T *C, size_t ldc);
HL_CUBLASXT_ALL(S, float)
HL_CUBLASXT_ALL(D, double)
HL_CUBLASXT_ALL(C, cuComplex)
HL_CUBLASXT_ALL(Z, cuDoubleComplex)
HL_CUBLASXT_HER(C, cuComplex, float)
HL_CUBLASXT_HER(Z, cuDoubleComplex, double)

#endif
