/* SPDX-License-Identifier: Apache-2.0 */
/* What every cuBLAS entry point does around its computation: the handle,
 * scalars and results in either pointer mode, operand validation, the
 * queueing on the handle's stream, and cuBLAS's enums as CBLAS's. */
#include "blas.h"

#include <limits.h>
#include <stdlib.h>

const size_t bt_size[4] = { 4, 8, 8, 16 };
const size_t bt_rsize[4] = { 4, 8, 4, 8 };

cublasStatus_t blas_handle(cublasHandle_t h)
{
    return hl_handle_live(h, HANDLE_KIND) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

int scal_take(struct hl_job *j, cublasHandle_t h, const void *p, size_t size, struct scal *s)
{
    if (!p)
        return -1;
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        if (hl_job_hold(j, p, size))
            return -1;
        s->dev = p;
    } else {
        memcpy(s->v, p, size);
    }
    return 0;
}

static double part(const void *p, enum bt t, int im)
{
    if (t == BT_S || t == BT_C)
        return ((const float *)p)[im];
    return ((const double *)p)[im];
}

int scal_is_zero(const struct scal *s, enum bt t)
{
    const void *p = scal_val(s);
    return part(p, t, 0) == 0 && (t == BT_S || t == BT_D || part(p, t, 1) == 0);
}

int result_take(struct hl_job *j, cublasHandle_t h, void *p, size_t size, int *wait)
{
    if (!p)
        return -1;
    if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        *wait = 0;
        return hl_job_hold(j, p, size);
    }
    *wait = 1; /* a host result is there when the call returns */
    return 0;
}

int blas_hold(struct hl_job *j, const void *p, int64_t bytes)
{
    if (bytes < 0)
        return -1;
    if (bytes == 0)
        return 0; /* an empty operand is never touched */
    return hl_job_hold(j, p, (size_t)bytes);
}

cublasStatus_t blas_submit(cublasHandle_t h, struct hl_job *j, int wait)
{
    j->capture = "cuBLAS";   /* a graph being captured records it */
    switch (hl_job_submit(j, h->stream, wait)) {
    case HL_SUBMITTED:
        return CUBLAS_STATUS_SUCCESS;
    case HL_CAPTURING: /* a result to host memory (hl_capture_refusal) */
        return CUBLAS_STATUS_NOT_SUPPORTED;
    case HL_SUBMIT_FAILED:
        break;
    }
    return CUBLAS_STATUS_EXECUTION_FAILED;
}

int op_ok(cublasOperation_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

int fill_ok(cublasFillMode_t f)
{
    return f == CUBLAS_FILL_MODE_LOWER || f == CUBLAS_FILL_MODE_UPPER;
}

int side_ok(cublasSideMode_t s)
{
    return s == CUBLAS_SIDE_LEFT || s == CUBLAS_SIDE_RIGHT;
}

int diag_ok(cublasDiagType_t d)
{
    return d == CUBLAS_DIAG_NON_UNIT || d == CUBLAS_DIAG_UNIT;
}

enum CBLAS_TRANSPOSE cb_op(cublasOperation_t op, enum bt t)
{
    if (op == CUBLAS_OP_N)
        return CblasNoTrans;
    if (op == CUBLAS_OP_T || t == BT_S || t == BT_D)
        return CblasTrans;
    return CblasConjTrans;
}

enum CBLAS_UPLO cb_uplo(cublasFillMode_t f)
{
    return f == CUBLAS_FILL_MODE_UPPER ? CblasUpper : CblasLower;
}

enum CBLAS_SIDE cb_side(cublasSideMode_t s)
{
    return s == CUBLAS_SIDE_RIGHT ? CblasRight : CblasLeft;
}

enum CBLAS_DIAG cb_diag(cublasDiagType_t d)
{
    return d == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
}

int fits(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

void blas_ld(enum bt t, const void *p, size_t i, double *re, double *im)
{
    switch (t) {
    case BT_S: *re = ((const float *)p)[i]; *im = 0; break;
    case BT_D: *re = ((const double *)p)[i]; *im = 0; break;
    case BT_C: *re = ((const float *)p)[2 * i]; *im = ((const float *)p)[2 * i + 1]; break;
    case BT_Z: *re = ((const double *)p)[2 * i]; *im = ((const double *)p)[2 * i + 1]; break;
    }
}

void blas_st(enum bt t, void *p, size_t i, double re, double im)
{
    switch (t) {
    case BT_S: ((float *)p)[i] = (float)re; break;
    case BT_D: ((double *)p)[i] = re; break;
    case BT_C: ((float *)p)[2 * i] = (float)re; ((float *)p)[2 * i + 1] = (float)im; break;
    case BT_Z: ((double *)p)[2 * i] = re; ((double *)p)[2 * i + 1] = im; break;
    }
}

cublasStatus_t blas_read_arrays(struct hl_job *j, cublasHandle_t h, int n, const void *const *const arrays[],
                                const int64_t bytes[], int64_t batch, void ***out)
{
    size_t nb = (size_t)batch, len = nb * sizeof(void *);
    for (int k = 0; k < n; k++)
        if (blas_hold(j, arrays[k], (int64_t)len))
            return CUBLAS_STATUS_INVALID_VALUE;
    if (hl_capturing(h->stream)) { /* the arrays are read now, which a capture cannot wait for */
        hl_note("not captured: a batched call's pointer arrays are read at the call, after the stream's work, "
                "which a stream being captured cannot wait for (refused)");
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (cuStreamSynchronize(h->stream) != CUDA_SUCCESS)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    void **p = malloc((size_t)n * len);
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *out = p;
    for (int k = 0; k < n; k++) {
        memcpy(p + (size_t)k * nb, arrays[k], len);
        for (size_t i = 0; i < nb; i++)
            if (blas_hold(j, p[(size_t)k * nb + i], bytes[k]))
                return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}
