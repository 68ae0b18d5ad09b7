/* SPDX-License-Identifier: Apache-2.0 */
/* cuSPARSE handles, versions, status names, streams and pointer modes, the
 * legacy matrix descriptors, and the queueing every operation shares. */
#include "sparse.h"

#include <stdlib.h>

#define VER_MAJOR 12
#define VER_MINOR 6
#define VER_PATCH 3

cusparseStatus_t sp_handle(cusparseHandle_t h)
{
    return hl_handle_live(h, SP_HANDLE) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_NOT_INITIALIZED;
}

int sp_live(const void *d, int kind)
{
    return hl_handle_live(d, kind);
}

cusparseStatus_t sp_submit(cusparseHandle_t h, struct hl_job *j, int wait)
{
    j->capture = "cuSPARSE";   /* a graph being captured records it */
    switch (hl_job_submit(j, h->stream, wait)) {
    case HL_SUBMITTED:
        return CUSPARSE_STATUS_SUCCESS;
    case HL_CAPTURING: /* a result to host memory (hl_capture_refusal) */
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    case HL_SUBMIT_FAILED:
        break;
    }
    return CUSPARSE_STATUS_EXECUTION_FAILED;
}

cusparseStatus_t sp_sync(cusparseHandle_t h)
{
    if (hl_capturing(h->stream)) {
        hl_note("not captured: the call reads the matrix's indices at the call, after the stream's work, which a "
                "stream being captured cannot wait for (refused)");
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    }
    return cuStreamSynchronize(h->stream) == CUDA_SUCCESS ? CUSPARSE_STATUS_SUCCESS
                                                          : CUSPARSE_STATUS_EXECUTION_FAILED;
}

HL_EXPORT cusparseStatus_t cusparseCreate(cusparseHandle_t *handle)
{
    if (!handle)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (hl_init() != HL_OK)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    struct cusparseContext *c = hl_handle_new(sizeof *c, SP_HANDLE);
    if (!c)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    c->pointer_mode = CUSPARSE_POINTER_MODE_HOST;
    *handle = c;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseDestroy(cusparseHandle_t handle)
{
    if (!hl_handle_free(handle, SP_HANDLE))   /* the work queued with it holds no reference to it */
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseGetVersion(cusparseHandle_t handle, int *version)
{
    cusparseStatus_t r = sp_handle(handle);
    if (r)
        return r;
    if (!version)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *version = VER_MAJOR * 1000 + VER_MINOR * 100 + VER_PATCH;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUSPARSE_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = VER_MAJOR; return CUSPARSE_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VER_MINOR; return CUSPARSE_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VER_PATCH; return CUSPARSE_STATUS_SUCCESS;
    }
    return CUSPARSE_STATUS_INVALID_VALUE;
}

/* NVIDIA's names and texts (the strings of its libcusparse.so.12) */
static const char *const names[] = {
    "CUSPARSE_STATUS_SUCCESS", "CUSPARSE_STATUS_NOT_INITIALIZED", "CUSPARSE_STATUS_ALLOC_FAILED",
    "CUSPARSE_STATUS_INVALID_VALUE", "CUSPARSE_STATUS_ARCH_MISMATCH", "CUSPARSE_STATUS_MAPPING_ERROR",
    "CUSPARSE_STATUS_EXECUTION_FAILED", "CUSPARSE_STATUS_INTERNAL_ERROR",
    "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSPARSE_STATUS_ZERO_PIVOT", "CUSPARSE_STATUS_NOT_SUPPORTED",
    "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
};
static const char *const texts[] = {
    "success", "initialization error", "out of memory", "invalid value", "architecture mismatch",
    "texture memory mapping error", "kernel launch failure", "internal error", "matrix type not supported",
    "zero pivot", "operation not supported", "insufficient resources",
};

HL_EXPORT const char *cusparseGetErrorName(cusparseStatus_t status)
{
    unsigned s = (unsigned)status;
    return s < sizeof names / sizeof *names ? names[s] : "unrecognized error code";
}

HL_EXPORT const char *cusparseGetErrorString(cusparseStatus_t status)
{
    unsigned s = (unsigned)status;
    return s < sizeof texts / sizeof *texts ? texts[s] : "unrecognized error code";
}

HL_EXPORT cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t streamId)
{
    cusparseStatus_t r = sp_handle(handle);
    if (r)
        return r;
    handle->stream = (CUstream)streamId;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseGetStream(cusparseHandle_t handle, cudaStream_t *streamId)
{
    cusparseStatus_t r = sp_handle(handle);
    if (r)
        return r;
    if (!streamId)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *streamId = (cudaStream_t)handle->stream;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseGetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t *mode)
{
    cusparseStatus_t r = sp_handle(handle);
    if (r)
        return r;
    if (!mode)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSetPointerMode(cusparseHandle_t handle, cusparsePointerMode_t mode)
{
    cusparseStatus_t r = sp_handle(handle);
    if (r)
        return r;
    if (mode != CUSPARSE_POINTER_MODE_HOST && mode != CUSPARSE_POINTER_MODE_DEVICE)
        return CUSPARSE_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- legacy matrix descriptors: NVIDIA's cuSOLVER calls these too ----- */
HL_EXPORT cusparseStatus_t cusparseCreateMatDescr(cusparseMatDescr_t *descrA)
{
    if (!descrA)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseMatDescr *d = hl_handle_new(sizeof *d, SP_MATDESCR);
    if (!d)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    d->type = CUSPARSE_MATRIX_TYPE_GENERAL;
    d->fill = CUSPARSE_FILL_MODE_LOWER;
    d->diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    d->base = CUSPARSE_INDEX_BASE_ZERO;
    *descrA = d;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseDestroyMatDescr(cusparseMatDescr_t descrA)
{
    if (!descrA)
        return CUSPARSE_STATUS_SUCCESS;   /* as NVIDIA's: NULL is accepted */
    if (!hl_handle_free(descrA, SP_MATDESCR))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSetMatType(cusparseMatDescr_t descrA, cusparseMatrixType_t type)
{
    if (!sp_live(descrA, SP_MATDESCR) || (unsigned)type > CUSPARSE_MATRIX_TYPE_TRIANGULAR)
        return CUSPARSE_STATUS_INVALID_VALUE;
    descrA->type = type;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSetMatFillMode(cusparseMatDescr_t descrA, cusparseFillMode_t fillMode)
{
    if (!sp_live(descrA, SP_MATDESCR) || (unsigned)fillMode > CUSPARSE_FILL_MODE_UPPER)
        return CUSPARSE_STATUS_INVALID_VALUE;
    descrA->fill = fillMode;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSetMatDiagType(cusparseMatDescr_t descrA, cusparseDiagType_t diagType)
{
    if (!sp_live(descrA, SP_MATDESCR) || (unsigned)diagType > CUSPARSE_DIAG_TYPE_UNIT)
        return CUSPARSE_STATUS_INVALID_VALUE;
    descrA->diag = diagType;
    return CUSPARSE_STATUS_SUCCESS;
}

HL_EXPORT cusparseStatus_t cusparseSetMatIndexBase(cusparseMatDescr_t descrA, cusparseIndexBase_t base)
{
    if (!sp_live(descrA, SP_MATDESCR) || (unsigned)base > CUSPARSE_INDEX_BASE_ONE)
        return CUSPARSE_STATUS_INVALID_VALUE;
    descrA->base = base;
    return CUSPARSE_STATUS_SUCCESS;
}

/* The getters return the value itself, so an unknown descriptor cannot be
 * an error: it reads as a new descriptor's defaults. */
HL_EXPORT cusparseMatrixType_t cusparseGetMatType(const cusparseMatDescr_t descrA)
{
    return sp_live(descrA, SP_MATDESCR) ? descrA->type : CUSPARSE_MATRIX_TYPE_GENERAL;
}

HL_EXPORT cusparseFillMode_t cusparseGetMatFillMode(const cusparseMatDescr_t descrA)
{
    return sp_live(descrA, SP_MATDESCR) ? descrA->fill : CUSPARSE_FILL_MODE_LOWER;
}

HL_EXPORT cusparseDiagType_t cusparseGetMatDiagType(const cusparseMatDescr_t descrA)
{
    return sp_live(descrA, SP_MATDESCR) ? descrA->diag : CUSPARSE_DIAG_TYPE_NON_UNIT;
}

HL_EXPORT cusparseIndexBase_t cusparseGetMatIndexBase(const cusparseMatDescr_t descrA)
{
    return sp_live(descrA, SP_MATDESCR) ? descrA->base : CUSPARSE_INDEX_BASE_ZERO;
}
