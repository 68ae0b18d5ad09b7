/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's identity: its version (the release presented, config.c),
 * the error strings, and the lookup of entry points by name
 * (cuGetProcAddress, through the generated table of every entry point, as
 * a driver of that release answers: src/common/drvver.c). */
#include "emu.h"

#include <stdio.h>
#include <string.h>

#include "drvver.h"
#include "xlat.h"

TD_EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = emu_driver_version();
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    *pStr = td_xlat_name(TD_X_CUresult, (unsigned long long)error);
    return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const char *name = td_xlat_name(TD_X_CUresult, (unsigned long long)error);
    if (!name) {
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char *text = td_xlat_text(TD_X_CUresult, (unsigned long long)error);
    *pStr = text ? text : name;
    return CUDA_SUCCESS;
}

static CUresult proc_address(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    if (!pfn || !symbol)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags > CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
        return CUDA_ERROR_INVALID_VALUE;
    /* as a driver of the release presented: it knows only the rows up
     * to its own release */
    int why = 0;
    int fn = td_drv_lookup(symbol, cudaVersion, flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                           emu_driver_version(), &why);
    if (fn < 0 || !emu_fns[fn]) {
        *pfn = NULL;
        if (status)
            *status = why == 2 ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                               : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = emu_fns[fn];
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                            cuuint64_t flags)
{
    return proc_address(symbol, pfn, cudaVersion, flags, NULL);
}

TD_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                               cuuint64_t flags,
                                               CUdriverProcAddressQueryResult *symbolStatus)
{
    return proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}
