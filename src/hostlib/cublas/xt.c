/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS-XT (cublasXt*): the level 3 routines on matrices in host memory
 * (or device memory), which NVIDIA's library splits into tiles over the
 * selected GPUs. Here every call is computed on the host by CBLAS, on the
 * calling thread, through level3.c's checked path (blas_l3_now), and
 * returns when C is computed, as cuBLAS-XT's calls do. The device list,
 * the block size, the pinning mode and the CPU routine and ratio are
 * checked and kept; they change nothing, since all the work is the
 * host's. */
#include "blas.h"

#include <stdlib.h>
#include <string.h>

struct cublasXtContext {
    int ndev;
    int devices[64];
    int block_dim;
    int pinning;
};

static cublasStatus_t xt_handle(cublasXtHandle_t h)
{
    return h && hl_handle_live(h, XT_HANDLE_KIND) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

HL_EXPORT cublasStatus_t cublasXtCreate(cublasXtHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (hl_emulator() != HL_OK)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasXtContext *x = hl_handle_new(sizeof *x, XT_HANDLE_KIND);
    if (!x)
        return CUBLAS_STATUS_ALLOC_FAILED;
    x->block_dim = 4096;
    *handle = x;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasXtDestroy(cublasXtHandle_t handle)
{
    if (!hl_handle_free(handle, XT_HANDLE_KIND))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return CUBLAS_STATUS_SUCCESS;
}

/* devices: distinct ordinals of the emulated driver */
static cublasStatus_t check_devices(int n, const int *ids)
{
    switch (hl_check_devices(n, ids, 64)) {
    case HL_DEVS_OK: return CUBLAS_STATUS_SUCCESS;
    case HL_DEVS_NO_DRIVER: return CUBLAS_STATUS_NOT_INITIALIZED;
    case HL_DEVS_BAD_COUNT:
    case HL_DEVS_BAD_DEVICE:
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

HL_EXPORT cublasStatus_t cublasXtDeviceSelect(cublasXtHandle_t handle, int nbDevices, int deviceId[])
{
    cublasStatus_t r = xt_handle(handle);
    if (!r)
        r = check_devices(nbDevices, deviceId);
    if (r)
        return r;
    handle->ndev = nbDevices;
    memcpy(handle->devices, deviceId, (size_t)nbDevices * sizeof *deviceId);
    return CUBLAS_STATUS_SUCCESS;
}

/* each emulated device is a board of its own */
HL_EXPORT cublasStatus_t cublasXtGetNumBoards(int nbDevices, int deviceId[], int *nbBoards)
{
    cublasStatus_t r = check_devices(nbDevices, deviceId);
    if (!r && !nbBoards)
        r = CUBLAS_STATUS_INVALID_VALUE;
    if (!r)
        *nbBoards = nbDevices;
    return r;
}

HL_EXPORT cublasStatus_t cublasXtMaxBoards(int *nbGpuBoards)
{
    int count = 0;
    if (!nbGpuBoards)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (hl_emulator() != HL_OK || cuDeviceGetCount(&count) != CUDA_SUCCESS)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *nbGpuBoards = count;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasXtSetBlockDim(cublasXtHandle_t handle, int blockDim)
{
    cublasStatus_t r = xt_handle(handle);
    if (!r && blockDim <= 0)
        r = CUBLAS_STATUS_INVALID_VALUE;
    if (!r)
        handle->block_dim = blockDim;
    return r;
}

HL_EXPORT cublasStatus_t cublasXtGetBlockDim(cublasXtHandle_t handle, int *blockDim)
{
    cublasStatus_t r = xt_handle(handle);
    if (!r && !blockDim)
        r = CUBLAS_STATUS_INVALID_VALUE;
    if (!r)
        *blockDim = handle->block_dim;
    return r;
}

HL_EXPORT cublasStatus_t cublasXtSetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t mode)
{
    cublasStatus_t r = xt_handle(handle);
    if (!r && mode != CUBLASXT_PINNING_DISABLED && mode != CUBLASXT_PINNING_ENABLED)
        r = CUBLAS_STATUS_INVALID_VALUE;
    if (!r)
        handle->pinning = mode;
    return r;
}

HL_EXPORT cublasStatus_t cublasXtGetPinningMemMode(cublasXtHandle_t handle, cublasXtPinnedMemMode_t *mode)
{
    cublasStatus_t r = xt_handle(handle);
    if (!r && !mode)
        r = CUBLAS_STATUS_INVALID_VALUE;
    if (!r)
        *mode = (cublasXtPinnedMemMode_t)handle->pinning;
    return r;
}

static int xt_op_ok(cublasXtOpType_t t, cublasXtBlasOp_t op)
{
    return (unsigned)t <= CUBLASXT_DOUBLECOMPLEX && (unsigned)op < CUBLASXT_ROUTINE_MAX;
}

/* the host already does all of a call: a CPU routine or ratio is kept out */
HL_EXPORT cublasStatus_t cublasXtSetCpuRoutine(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp,
                                               cublasXtOpType_t type, void *blasFunctor)
{
    (void)blasFunctor;
    cublasStatus_t r = xt_handle(handle);
    return !r && !xt_op_ok(type, blasOp) ? CUBLAS_STATUS_INVALID_VALUE : r;
}

HL_EXPORT cublasStatus_t cublasXtSetCpuRatio(cublasXtHandle_t handle, cublasXtBlasOp_t blasOp,
                                             cublasXtOpType_t type, float ratio)
{
    cublasStatus_t r = xt_handle(handle);
    return !r && (!xt_op_ok(type, blasOp) || !(ratio >= 0 && ratio <= 1)) ? CUBLAS_STATUS_INVALID_VALUE : r;
}

/* sizes are size_t: beyond int64_t is refused like the 64-bit forms beyond int */
static int64_t sz(size_t v)
{
    return v > (size_t)INT64_MAX ? -1 : (int64_t)v;
}

static cublasStatus_t xt_l3(cublasXtHandle_t h, enum bt t, enum l3op op, const struct l3args *a)
{
    cublasStatus_t r = xt_handle(h);
    if (r)
        return r;
    hl_note("OpenBLAS level 3 (cuBLAS-XT)"); /* tdtrace -e lib= shows it */
    return blas_l3_now(t, op, a);
}

/* spmm: A symmetric in packed storage, unpacked into a full matrix for symm */
static cublasStatus_t xt_spmm(cublasXtHandle_t h, enum bt t, cublasSideMode_t side, cublasFillMode_t uplo, size_t m,
                              size_t n, const void *alpha, const void *AP, const void *B, size_t ldb,
                              const void *beta, void *C, size_t ldc)
{
    cublasStatus_t r = xt_handle(h);
    if (r)
        return r;
    if (!side_ok(side) || !fill_ok(uplo))
        return CUBLAS_STATUS_INVALID_VALUE;
    size_t k = side == CUBLAS_SIDE_LEFT ? m : n;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!AP || k > 46340 || !fits((int64_t)k))  /* k * k elements fit an int */
        return k > 46340 ? CUBLAS_STATUS_NOT_SUPPORTED : CUBLAS_STATUS_INVALID_VALUE;
    size_t es = bt_size[t];
    unsigned char *A = calloc(k * k, es);
    if (!A)
        return CUBLAS_STATUS_ALLOC_FAILED;
    const unsigned char *P = AP;
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < k; i++) {
            size_t p;
            if (uplo == CUBLAS_FILL_MODE_LOWER) {
                if (i < j)
                    continue;
                p = i + (2 * k - j - 1) * j / 2;
            } else {
                if (i > j)
                    continue;
                p = i + j * (j + 1) / 2;
            }
            memcpy(A + (j * k + i) * es, P + p * es, es);
        }
    struct l3args a = { .side = side, .uplo = uplo, .m = sz(m), .n = sz(n), .lda = (int64_t)k, .ldb = sz(ldb),
                        .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };
    hl_note("OpenBLAS symm (cuBLAS-XT spmm)");
    r = blas_l3_now(t, SYMM, &a);
    free(A);
    return r;
}

#define XT_ALL(P, T, BT)                                                                                       \
    HL_EXPORT cublasStatus_t cublasXt##P##gemm(cublasXtHandle_t h, cublasOperation_t ta, cublasOperation_t tb,  \
                                               size_t m, size_t n, size_t k, const T *alpha, const T *A,        \
                                               size_t lda, const T *B, size_t ldb, const T *beta, T *C,         \
                                               size_t ldc)                                                      \
    {                                                                                                          \
        struct l3args a = { .ta = ta, .tb = tb, .m = sz(m), .n = sz(n), .k = sz(k), .lda = sz(lda),            \
                            .ldb = sz(ldb), .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B,      \
                            .C = C };                                                                          \
        return xt_l3(h, BT, GEMM, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##symm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                               size_t m, size_t n, const T *alpha, const T *A, size_t lda,      \
                                               const T *B, size_t ldb, const T *beta, T *C, size_t ldc)         \
    {                                                                                                          \
        struct l3args a = { .side = side, .uplo = uplo, .m = sz(m), .n = sz(n), .lda = sz(lda),                \
                            .ldb = sz(ldb), .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B,      \
                            .C = C };                                                                          \
        return xt_l3(h, BT, SYMM, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##syrk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr, \
                                               size_t n, size_t k, const T *alpha, const T *A, size_t lda,      \
                                               const T *beta, T *C, size_t ldc)                                 \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldc = sz(ldc),    \
                            .alpha = alpha, .beta = beta, .A = A, .C = C };                                    \
        return xt_l3(h, BT, SYRK, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##syr2k(cublasXtHandle_t h, cublasFillMode_t uplo,                     \
                                                cublasOperation_t tr, size_t n, size_t k, const T *alpha,      \
                                                const T *A, size_t lda, const T *B, size_t ldb, const T *beta, \
                                                T *C, size_t ldc)                                               \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldb = sz(ldb),    \
                            .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return xt_l3(h, BT, SYR2K, &a);                                                                        \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##syrkx(cublasXtHandle_t h, cublasFillMode_t uplo,                     \
                                                cublasOperation_t tr, size_t n, size_t k, const T *alpha,      \
                                                const T *A, size_t lda, const T *B, size_t ldb, const T *beta, \
                                                T *C, size_t ldc)                                               \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldb = sz(ldb),    \
                            .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return xt_l3(h, BT, SYRKX, &a);                                                                        \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##trsm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                               cublasOperation_t tr, cublasDiagType_t diag, size_t m, size_t n, \
                                               const T *alpha, const T *A, size_t lda, T *B, size_t ldb)        \
    {                                                                                                          \
        struct l3args a = { .side = side, .uplo = uplo, .ta = tr, .diag = diag, .m = sz(m), .n = sz(n),        \
                            .lda = sz(lda), .ldb = sz(ldb), .alpha = alpha, .A = A, .B = B };                  \
        return xt_l3(h, BT, TRSM, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##trmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                               cublasOperation_t tr, cublasDiagType_t diag, size_t m, size_t n, \
                                               const T *alpha, const T *A, size_t lda, const T *B, size_t ldb,  \
                                               T *C, size_t ldc)                                                \
    {                                                                                                          \
        struct l3args a = { .side = side, .uplo = uplo, .ta = tr, .diag = diag, .m = sz(m), .n = sz(n),        \
                            .lda = sz(lda), .ldb = sz(ldb), .ldc = sz(ldc), .alpha = alpha, .A = A, .B = B,    \
                            .C = C };                                                                          \
        return xt_l3(h, BT, TRMM, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##spmm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                               size_t m, size_t n, const T *alpha, const T *AP, const T *B,     \
                                               size_t ldb, const T *beta, T *C, size_t ldc)                     \
    {                                                                                                          \
        return xt_spmm(h, BT, side, uplo, m, n, alpha, AP, B, ldb, beta, C, ldc);                              \
    }
#define XT_HER(P, T, R, BT)                                                                                    \
    HL_EXPORT cublasStatus_t cublasXt##P##hemm(cublasXtHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                               size_t m, size_t n, const T *alpha, const T *A, size_t lda,      \
                                               const T *B, size_t ldb, const T *beta, T *C, size_t ldc)         \
    {                                                                                                          \
        struct l3args a = { .side = side, .uplo = uplo, .m = sz(m), .n = sz(n), .lda = sz(lda),                \
                            .ldb = sz(ldb), .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B,      \
                            .C = C };                                                                          \
        return xt_l3(h, BT, HEMM, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##herk(cublasXtHandle_t h, cublasFillMode_t uplo, cublasOperation_t tr, \
                                               size_t n, size_t k, const R *alpha, const T *A, size_t lda,      \
                                               const R *beta, T *C, size_t ldc)                                 \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldc = sz(ldc),    \
                            .alpha = alpha, .beta = beta, .A = A, .C = C };                                    \
        return xt_l3(h, BT, HERK, &a);                                                                         \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##her2k(cublasXtHandle_t h, cublasFillMode_t uplo,                     \
                                                cublasOperation_t tr, size_t n, size_t k, const T *alpha,      \
                                                const T *A, size_t lda, const T *B, size_t ldb, const R *beta, \
                                                T *C, size_t ldc)                                               \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldb = sz(ldb),    \
                            .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return xt_l3(h, BT, HER2K, &a);                                                                        \
    }                                                                                                          \
    HL_EXPORT cublasStatus_t cublasXt##P##herkx(cublasXtHandle_t h, cublasFillMode_t uplo,                     \
                                                cublasOperation_t tr, size_t n, size_t k, const T *alpha,      \
                                                const T *A, size_t lda, const T *B, size_t ldb, const R *beta, \
                                                T *C, size_t ldc)                                               \
    {                                                                                                          \
        struct l3args a = { .uplo = uplo, .ta = tr, .n = sz(n), .k = sz(k), .lda = sz(lda), .ldb = sz(ldb),    \
                            .ldc = sz(ldc), .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C };            \
        return xt_l3(h, BT, HERKX, &a);                                                                        \
    }
XT_ALL(S, float, BT_S)
XT_ALL(D, double, BT_D)
XT_ALL(C, cuComplex, BT_C)
XT_ALL(Z, cuDoubleComplex, BT_Z)
XT_HER(C, cuComplex, float, BT_C)
XT_HER(Z, cuDoubleComplex, double, BT_Z)
