/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS handles and their settings, versions, status names, the logger
 * switches, and the legacy API's error. */
#include "blas.h"
#include "status.h"

#include <stdlib.h>

#define VER_MAJOR 13
#define VER_MINOR 1
#define VER_PATCH 0
#define CUDART_VERSION 13000

HL_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (hl_init() != HL_OK)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *c = hl_handle_new(sizeof *c, HANDLE_KIND);
    if (!c)
        return CUBLAS_STATUS_ALLOC_FAILED;
    c->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    c->math_mode = CUBLAS_DEFAULT_MATH;
    *handle = c;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    /* the work queued with it holds no reference to it */
    if (!hl_handle_free(handle, HANDLE_KIND))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    cublasStatus_t r = blas_handle(handle);
    if (r)
        return r;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = VER_MAJOR * 10000 + VER_MINOR * 100 + VER_PATCH;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

HL_EXPORT size_t cublasGetCudartVersion(void)
{
    return CUDART_VERSION;
}

HL_EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
    return blas_status_name(status);
}

HL_EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
    return blas_status_string(status);
}

HL_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    cublasStatus_t r = blas_handle(handle);
    if (r)
        return r;
    handle->stream = (CUstream)streamId;
    /* a user workspace belongs to the stream it was set for (cuBLAS drops it) */
    handle->workspace = NULL;
    handle->workspace_size = 0;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    cublasStatus_t r = blas_handle(handle);
    if (r)
        return r;
    if (!streamId)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = (cudaStream_t)handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* the host BLAS needs no workspace; the range is checked and remembered */
HL_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t size)
{
    cublasStatus_t r = blas_handle(handle);
    if (r)
        return r;
    if (size && !workspace)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (((uintptr_t)workspace & 255) != 0)
        return CUBLAS_STATUS_INVALID_VALUE; /* cuBLAS wants 256-byte alignment */
    if (size) {
        CUdeviceptr base;
        size_t len;
        if (cuMemGetAddressRange_v2(&base, &len, (CUdeviceptr)(uintptr_t)workspace) != CUDA_SUCCESS ||
            (uintptr_t)workspace - base > len || size > len - ((uintptr_t)workspace - base))
            return CUBLAS_STATUS_INVALID_VALUE;
    }
    handle->workspace = workspace;
    handle->workspace_size = size;
    return CUBLAS_STATUS_SUCCESS;
}

#define GETSET(NAME, TYPE, FIELD, VALID)                                                           \
    HL_EXPORT cublasStatus_t cublasGet##NAME(cublasHandle_t handle, TYPE *v)                       \
    {                                                                                              \
        cublasStatus_t r = blas_handle(handle);                                                    \
        if (r)                                                                                     \
            return r;                                                                              \
        if (!v)                                                                                    \
            return CUBLAS_STATUS_INVALID_VALUE;                                                    \
        *v = handle->FIELD;                                                                        \
        return CUBLAS_STATUS_SUCCESS;                                                              \
    }                                                                                              \
    HL_EXPORT cublasStatus_t cublasSet##NAME(cublasHandle_t handle, TYPE v)                        \
    {                                                                                              \
        cublasStatus_t r = blas_handle(handle);                                                    \
        if (r)                                                                                     \
            return r;                                                                              \
        if (!(VALID))                                                                              \
            return CUBLAS_STATUS_INVALID_VALUE;                                                    \
        handle->FIELD = v;                                                                         \
        return CUBLAS_STATUS_SUCCESS;                                                              \
    }
GETSET(PointerMode_v2, cublasPointerMode_t, pointer_mode,
       v == CUBLAS_POINTER_MODE_HOST || v == CUBLAS_POINTER_MODE_DEVICE)
GETSET(AtomicsMode, cublasAtomicsMode_t, atomics_mode,
       v == CUBLAS_ATOMICS_NOT_ALLOWED || v == CUBLAS_ATOMICS_ALLOWED)
GETSET(MathMode, cublasMath_t, math_mode,
       ((unsigned)v & ~16u) <= CUBLAS_FP32_EMULATED_BF16X9_MATH || ((unsigned)v & ~16u) == 8)
GETSET(SmCountTarget, int, sm_count, v >= 0)
/* the values NVIDIA's library takes; the host implementation computes the
 * same whatever the mode (cublas_api.h) */
GETSET(EnvironmentMode, int, env_mode, v == 0 || v == 1)
GETSET(EmulationStrategy, cublasEmulationStrategy_t, emulation,
       v == CUBLAS_EMULATION_STRATEGY_DEFAULT || v == CUBLAS_EMULATION_STRATEGY_PERFORMANT ||
           v == CUBLAS_EMULATION_STRATEGY_EAGER)

/* logging: nothing is logged; the settings are accepted */
static cublasLogCallback log_cb;

HL_EXPORT cublasStatus_t cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr,
                                               const char *logFileName)
{
    (void)logIsOn, (void)logToStdOut, (void)logToStdErr, (void)logFileName;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasSetLoggerCallback(cublasLogCallback userCallback)
{
    log_cb = userCallback;
    return CUBLAS_STATUS_SUCCESS;
}

HL_EXPORT cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *userCallback)
{
    if (!userCallback)
        return CUBLAS_STATUS_INVALID_VALUE;
    *userCallback = log_cb;
    return CUBLAS_STATUS_SUCCESS;
}

/* the legacy API (cublas.h): not implemented; its stubs leave this */
static _Thread_local cublasStatus_t legacy_error;

void hl_cublas_legacy(void)
{
    legacy_error = CUBLAS_STATUS_NOT_SUPPORTED;
}

HL_EXPORT cublasStatus_t cublasGetError(void)
{
    cublasStatus_t r = legacy_error;
    legacy_error = CUBLAS_STATUS_SUCCESS;
    return r;
}
