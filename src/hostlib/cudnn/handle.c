/* SPDX-License-Identifier: Apache-2.0 */
/* cuDNN handles, streams, versions, status names, the last error's message,
 * callbacks, the sub-library version checks, and the descriptors' registry. */
#include "dnn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the version of the toolkit's headers (cudnn_version.h: 9.19.0), as
 * NVIDIA's library reports it, so that programs' version checks pass */
#define VERSION 91900
#define CUDART_VERSION 13010
#define MAX_DEVICE_VERSION 1210

static _Thread_local char last_error[256];

cudnnStatus_t dnn_err(cudnnStatus_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

HL_EXPORT void cudnnGetLastErrorString(char *message, size_t max_size)
{
    if (!message || !max_size)
        return;
    snprintf(message, max_size, "%s", last_error);
    last_error[0] = 0;
}

/* what the generated stubs of void functions call: there is one,
 * cudnnGetLastErrorString, implemented above */
void hl_cudnn_legacy(void);
void hl_cudnn_legacy(void)
{
}

HL_EXPORT size_t cudnnGetVersion(void)
{
    return VERSION;
}

HL_EXPORT size_t cudnnGetCudartVersion(void)
{
    return CUDART_VERSION;
}

HL_EXPORT size_t cudnnGetMaxDeviceVersion(void)
{
    return MAX_DEVICE_VERSION;
}

HL_EXPORT cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: value is NULL");
    switch (type) {
    case MAJOR_VERSION: *value = VERSION / 10000; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VERSION / 100 % 100; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VERSION % 100; return CUDNN_STATUS_SUCCESS;
    }
    return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: unknown property %d", (int)type);
}

#define S(x) { x, #x }
static const struct { cudnnStatus_t s; const char *name; } names[] = {
    S(CUDNN_STATUS_SUCCESS), S(CUDNN_STATUS_NOT_INITIALIZED), S(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH),
    S(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH), S(CUDNN_STATUS_DEPRECATED), S(CUDNN_STATUS_LICENSE_ERROR),
    S(CUDNN_STATUS_RUNTIME_IN_PROGRESS), S(CUDNN_STATUS_RUNTIME_FP_OVERFLOW),
    S(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED), S(CUDNN_STATUS_BAD_PARAM), S(CUDNN_STATUS_INVALID_VALUE),
    S(CUDNN_STATUS_BAD_PARAM_NULL_POINTER), S(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER),
    S(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED), S(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND),
    S(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT), S(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH),
    S(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH), S(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES),
    S(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE), S(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH),
    S(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE), S(CUDNN_STATUS_NOT_SUPPORTED),
    S(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN), S(CUDNN_STATUS_NOT_SUPPORTED_SHAPE),
    S(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE), S(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT),
    S(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER), S(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART),
    S(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH), S(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING),
    S(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE), S(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
    S(CUDNN_STATUS_NOT_SUPPORTED_PADDING), S(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM),
    S(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API), S(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE),
    S(CUDNN_STATUS_INTERNAL_ERROR), S(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED),
    S(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE), S(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED),
    S(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED), S(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM),
    S(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED), S(CUDNN_STATUS_EXECUTION_FAILED),
    S(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER), S(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS),
    S(CUDNN_STATUS_EXECUTION_FAILED_CUDART), S(CUDNN_STATUS_EXECUTION_FAILED_CURAND),
};
#undef S

HL_EXPORT const char *cudnnGetErrorString(cudnnStatus_t status)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].s == status)
            return names[i].name;
    return "CUDNN_UNKNOWN_STATUS";
}

/* ---- handles -------------------------------------------------------------- */
cudnnStatus_t dnn_handle(cudnnHandle_t h)
{
    if (hl_handle_live(h, DK_HANDLE))
        return CUDNN_STATUS_SUCCESS;
    return dnn_err(CUDNN_STATUS_BAD_PARAM, "the cuDNN handle %p is not one cudnnCreate made (or it was destroyed)",
                   (void *)h);
}

HL_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
    if (!handle)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnCreate: handle is NULL");
    if (hl_init() != HL_OK)
        return dnn_err(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no emulated GPU (this cuDNN runs only on it)");
    return dnn_create((void **)handle, sizeof(struct cudnnContext), DK_HANDLE);
}

HL_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
    return dnn_destroy(handle, DK_HANDLE);   /* queued work holds no reference to it */
}

HL_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    handle->stream = (CUstream)streamId;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    if (!streamId)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: streamId is NULL");
    *streamId = (cudaStream_t)handle->stream;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t dnn_submit(cudnnHandle_t h, struct hl_job *j)
{
    j->capture = "cuDNN";   /* a graph being captured records it */
    switch (hl_job_submit(j, h->stream, 0)) {
    case HL_SUBMITTED: return CUDNN_STATUS_SUCCESS;
    case HL_CAPTURING:
        return dnn_err(CUDNN_STATUS_NOT_SUPPORTED, "%s", hl_capture_refusal());
    case HL_SUBMIT_FAILED: break;
    }
    return dnn_err(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER, "cuLaunchHostFunc refused the work");
}

/* ---- descriptors ---------------------------------------------------------- */
void *dnn_desc(const void *d, enum dnn_kind k)
{
    if (!hl_handle_live(d, (int)k))
        return NULL;
    return *(const int *)d ? (void *)d : NULL;   /* every struct starts with its "set" flag */
}

cudnnStatus_t dnn_create(void **d, size_t size, enum dnn_kind k)
{
    if (!d)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "a descriptor is to be created at NULL");
    void *p = hl_handle_new(size, (int)k);
    if (!p)
        return dnn_err(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of memory");
    *d = p;
    return CUDNN_STATUS_SUCCESS;
}

/* NULL is accepted, as NVIDIA's library does */
cudnnStatus_t dnn_destroy(void *d, enum dnn_kind k)
{
    if (!d)
        return k == DK_HANDLE ? dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnDestroy: handle is NULL") : CUDNN_STATUS_SUCCESS;
    if (!hl_handle_free(d, (int)k))
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "a descriptor that is not live was destroyed");
    return CUDNN_STATUS_SUCCESS;
}

/* ---- what programs call before anything else ------------------------------ */
#define CHECK(NAME) \
    HL_EXPORT cudnnStatus_t NAME(void) { return CUDNN_STATUS_SUCCESS; }
CHECK(cudnnGraphVersionCheck)
CHECK(cudnnOpsVersionCheck)
CHECK(cudnnCnnVersionCheck)
CHECK(cudnnAdvVersionCheck)
#undef CHECK

/* no errors are reported asynchronously: work that was queued was checked first */
HL_EXPORT cudnnStatus_t cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t *rstatus, int mode, void *tag)
{
    (void)tag;
    cudnnStatus_t r = dnn_handle(handle);
    if (r)
        return r;
    if (!rstatus || mode < 0 || mode > 2)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnQueryRuntimeError: bad rstatus or mode");
    *rstatus = CUDNN_STATUS_SUCCESS;
    return CUDNN_STATUS_SUCCESS;
}

/* callbacks: kept; nothing is reported through them */
static unsigned cb_mask;
static void *cb_udata;
static void *cb_fn;

HL_EXPORT cudnnStatus_t cudnnSetCallback(unsigned mask, void *udata, void *fptr)
{
    cb_mask = mask;
    cb_udata = udata;
    cb_fn = fptr;
    return CUDNN_STATUS_SUCCESS;
}

HL_EXPORT cudnnStatus_t cudnnGetCallback(unsigned *mask, void **udata, void **fptr)
{
    if (!mask || !udata || !fptr)
        return dnn_err(CUDNN_STATUS_BAD_PARAM, "cudnnGetCallback: NULL argument");
    *mask = cb_mask;
    *udata = cb_udata;
    *fptr = cb_fn;
    return CUDNN_STATUS_SUCCESS;
}
