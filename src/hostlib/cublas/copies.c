/* SPDX-License-Identifier: Apache-2.0 */
/* Copies between host and device memory: cublasSet/GetVector and
 * Set/GetMatrix, synchronous (on the legacy default stream) and
 * asynchronous (on a given stream), as strided copies queued like every
 * other operation. The device side is validated; the host side is trusted
 * like any host pointer, and an asynchronous copy with pageable host
 * memory waits, as the driver's staging makes it wait on a GPU. */
#include "blas.h"

struct cp {
    struct hl_job h;
    const char *src;
    char *dst;
    size_t width, rows, spitch, dpitch;  /* bytes per row, rows, strides in bytes */
};

static void run_copy(struct hl_job *hj)
{
    struct cp *j = (struct cp *)hj;
    if (j->width == j->spitch && j->width == j->dpitch) {
        memmove(j->dst, j->src, j->width * j->rows);
        return;
    }
    for (size_t r = 0; r < j->rows; r++)
        memmove(j->dst + r * j->dpitch, j->src + r * j->spitch, j->width);
}

/* rows x width bytes; to_dev: dst is device memory, src host memory */
static cublasStatus_t copy(int64_t rows, int64_t width, const void *src, int64_t spitch, void *dst, int64_t dpitch,
                           int to_dev, CUstream s, int async)
{
    if (rows == 0 || width == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (hl_init() != HL_OK)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cp *j = hl_job_new(sizeof *j, run_copy);
    if (!j)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->src = src;
    j->dst = dst;
    j->width = (size_t)width;
    j->rows = (size_t)rows;
    j->spitch = (size_t)spitch;
    j->dpitch = (size_t)dpitch;
    int64_t dbytes = hl_mat_bytes(width, rows, to_dev ? dpitch : spitch, 1);
    int64_t hbytes = hl_mat_bytes(width, rows, to_dev ? spitch : dpitch, 1);
    const void *dev = to_dev ? (const void *)dst : src, *host = to_dev ? src : (const void *)dst;
    if (!host || blas_hold(&j->h, dev, dbytes)) {
        hl_job_free(&j->h);
        return host ? CUBLAS_STATUS_MAPPING_ERROR : CUBLAS_STATUS_INVALID_VALUE;
    }
    /* page-locked host memory lets an asynchronous copy return at once */
    int wait = !async || hbytes < 0 || blas_hold(&j->h, host, hbytes);
    j->h.capture = "cuBLAS";   /* an asynchronous copy with page-locked memory can be captured */
    switch (hl_job_submit(&j->h, async ? s : NULL, wait)) {
    case HL_SUBMITTED: return CUBLAS_STATUS_SUCCESS;
    case HL_CAPTURING: return CUBLAS_STATUS_NOT_SUPPORTED;   /* one that waits (hl_capture_refusal) */
    case HL_SUBMIT_FAILED: break;
    }
    return CUBLAS_STATUS_MAPPING_ERROR;
}

static cublasStatus_t vec(int64_t n, int64_t es, const void *x, int64_t incx, void *y, int64_t incy, int to_dev,
                          CUstream s, int async)
{
    if (n < 0 || es <= 0 || incx <= 0 || incy <= 0 || incx > INT64_MAX / es || incy > INT64_MAX / es)
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy(n, es, x, incx * es, y, incy * es, to_dev, s, async);
}

static cublasStatus_t mat(int64_t rows, int64_t cols, int64_t es, const void *A, int64_t lda, void *B, int64_t ldb,
                          int to_dev, CUstream s, int async)
{
    if (rows < 0 || cols < 0 || es <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows ||
        lda > INT64_MAX / es || ldb > INT64_MAX / es || (rows && es > INT64_MAX / rows))
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy(cols, rows * es, A, lda * es, B, ldb * es, to_dev, s, async);
}

#define COPIES(I, SFX)                                                                                   \
    HL_EXPORT cublasStatus_t cublasSetVector##SFX(I n, I elemSize, const void *x, I incx, void *devicePtr, \
                                                  I incy)                                                  \
    {                                                                                                      \
        return vec(n, elemSize, x, incx, devicePtr, incy, 1, NULL, 0);                                     \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGetVector##SFX(I n, I elemSize, const void *x, I incx, void *y, I incy) \
    {                                                                                                      \
        return vec(n, elemSize, x, incx, y, incy, 0, NULL, 0);                                             \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasSetMatrix##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B, \
                                                  I ldb)                                                   \
    {                                                                                                      \
        return mat(rows, cols, elemSize, A, lda, B, ldb, 1, NULL, 0);                                      \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGetMatrix##SFX(I rows, I cols, I elemSize, const void *A, I lda, void *B, \
                                                  I ldb)                                                   \
    {                                                                                                      \
        return mat(rows, cols, elemSize, A, lda, B, ldb, 0, NULL, 0);                                      \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasSetVectorAsync##SFX(I n, I elemSize, const void *hostPtr, I incx,       \
                                                       void *devicePtr, I incy, cudaStream_t stream)       \
    {                                                                                                      \
        return vec(n, elemSize, hostPtr, incx, devicePtr, incy, 1, (CUstream)stream, 1);                   \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGetVectorAsync##SFX(I n, I elemSize, const void *devicePtr, I incx,     \
                                                       void *hostPtr, I incy, cudaStream_t stream)         \
    {                                                                                                      \
        return vec(n, elemSize, devicePtr, incx, hostPtr, incy, 0, (CUstream)stream, 1);                   \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasSetMatrixAsync##SFX(I rows, I cols, I elemSize, const void *A, I lda,   \
                                                       void *B, I ldb, cudaStream_t stream)                \
    {                                                                                                      \
        return mat(rows, cols, elemSize, A, lda, B, ldb, 1, (CUstream)stream, 1);                          \
    }                                                                                                      \
    HL_EXPORT cublasStatus_t cublasGetMatrixAsync##SFX(I rows, I cols, I elemSize, const void *A, I lda,   \
                                                       void *B, I ldb, cudaStream_t stream)                \
    {                                                                                                      \
        return mat(rows, cols, elemSize, A, lda, B, ldb, 0, (CUstream)stream, 1);                          \
    }
COPIES(int, )
COPIES(int64_t, _64)
