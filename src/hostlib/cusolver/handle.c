/* SPDX-License-Identifier: Apache-2.0 */
/* cuSOLVER dense handles, their stream and modes, the library's version,
 * and the 64-bit API's params. */
#include "solver.h"

#include <stdlib.h>

/* the release NVIDIA's CUDA 13.0 libcusolver.so.12 says it is */
#define VER_MAJOR 12
#define VER_MINOR 0
#define VER_PATCH 4

HL_EXPORT cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUSOLVER_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = VER_MAJOR; return CUSOLVER_STATUS_SUCCESS;
    case MINOR_VERSION: *value = VER_MINOR; return CUSOLVER_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = VER_PATCH; return CUSOLVER_STATUS_SUCCESS;
    }
    return CUSOLVER_STATUS_INVALID_VALUE;
}

HL_EXPORT cusolverStatus_t cusolverGetVersion(int *version)
{
    if (!version)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *version = VER_MAJOR * 1000 + VER_MINOR * 100 + VER_PATCH;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (!handle)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (hl_init() != HL_OK)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    struct cusolverDnContext *c = hl_handle_new(sizeof *c, DN_KIND);
    if (!c)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    c->deterministic = CUSOLVER_DETERMINISTIC_RESULTS;
    c->math = CUSOLVER_DEFAULT_MATH;
    *handle = c;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    /* the work queued with it holds no reference to it */
    if (!hl_handle_free(handle, DN_KIND))
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    handle->stream = (CUstream)streamId;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    if (!streamId)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *streamId = (cudaStream_t)handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

/* the deterministic and math modes: checked and kept; the host computes
 * the same, deterministically and in the type's precision, whatever they
 * are */
HL_EXPORT cusolverStatus_t cusolverDnSetDeterministicMode(cusolverDnHandle_t handle, cusolverDeterministicMode_t mode)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    if (mode != CUSOLVER_DETERMINISTIC_RESULTS && mode != CUSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS)
        return CUSOLVER_STATUS_INVALID_VALUE;
    handle->deterministic = mode;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnGetDeterministicMode(cusolverDnHandle_t handle, cusolverDeterministicMode_t *mode)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    if (!mode)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *mode = handle->deterministic;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnSetMathMode(cusolverDnHandle_t handle, cusolverMathMode_t mode)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    if (mode != CUSOLVER_DEFAULT_MATH && mode != CUSOLVER_FP32_EMULATED_BF16X9_MATH)
        return CUSOLVER_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnGetMathMode(cusolverDnHandle_t handle, cusolverMathMode_t *mode)
{
    cusolverStatus_t r = sv_handle(handle);
    if (r)
        return r;
    if (!mode)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params)
{
    if (!params)
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct cusolverDnParams *p = hl_handle_new(sizeof *p, PARAMS_KIND);
    if (!p)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    *params = p;
    return CUSOLVER_STATUS_SUCCESS;
}

HL_EXPORT cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params)
{
    if (!hl_handle_free(params, PARAMS_KIND))
        return CUSOLVER_STATUS_INVALID_VALUE;
    return CUSOLVER_STATUS_SUCCESS;
}

/* The algorithm is kept; LAPACK computes the same whichever it is.
 * cuSOLVER's documented choices: GETRF and POTRF ALG_0 or ALG_1,
 * SYEVBATCHED ALG_0 to ALG_2. */
HL_EXPORT cusolverStatus_t cusolverDnSetAdvOptions(cusolverDnParams_t params, cusolverDnFunction_t function,
                                                   cusolverAlgMode_t algo)
{
    if (!hl_handle_live(params, PARAMS_KIND))
        return CUSOLVER_STATUS_INVALID_VALUE;
    switch (function) {
    case CUSOLVERDN_GETRF:
        if (algo != CUSOLVER_ALG_0 && algo != CUSOLVER_ALG_1)
            return CUSOLVER_STATUS_INVALID_VALUE;
        params->getrf_alg = algo;
        return CUSOLVER_STATUS_SUCCESS;
    case CUSOLVERDN_POTRF:
        if (algo != CUSOLVER_ALG_0 && algo != CUSOLVER_ALG_1)
            return CUSOLVER_STATUS_INVALID_VALUE;
        params->potrf_alg = algo;
        return CUSOLVER_STATUS_SUCCESS;
    case CUSOLVERDN_SYEVBATCHED:
        if (algo != CUSOLVER_ALG_0 && algo != CUSOLVER_ALG_1 && algo != CUSOLVER_ALG_2)
            return CUSOLVER_STATUS_INVALID_VALUE;
        params->syevbatched_alg = algo;
        return CUSOLVER_STATUS_SUCCESS;
    }
    return CUSOLVER_STATUS_INVALID_VALUE;
}
