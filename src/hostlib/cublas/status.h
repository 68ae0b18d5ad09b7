/* SPDX-License-Identifier: Apache-2.0 */
/* cuBLAS's status names and texts, shared by cuBLAS (cublasGetStatusName,
 * ...String) and cuBLASLt (cublasLtGetStatusName, ...String), which
 * return the same cublasStatus_t. */
#ifndef TD_HOSTLIB_CUBLAS_STATUS_H
#define TD_HOSTLIB_CUBLAS_STATUS_H

#include "cublas_api.h"

/* the texts NVIDIA's libcublas.so.13 and libcublasLt.so.13 return (read
 * from both through ctypes; they agree) */
static const struct { cublasStatus_t s; const char *name, *text; } statuses[] = {
    { CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success" },
    { CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized" },
    { CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed" },
    { CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE",
      "an unsupported value or parameter was passed to the function" },
    { CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH",
      "the function requires an architectural feature absent from the device" },
    { CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed" },
    { CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the function failed to launch on the GPU" },
    { CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed" },
    { CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported" },
    { CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed" },
};

static inline const char *blas_status_name(cublasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].s == status)
            return statuses[i].name;
    return "unrecognized status";
}

static inline const char *blas_status_string(cublasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (statuses[i].s == status)
            return statuses[i].text;
    return "unrecognized status";
}

#endif
