/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace's own declarations of nvJitLink 13's C API, from NVIDIA's
 * nvJitLink documentation (docs.nvidia.com/cuda/nvjitlink): result codes,
 * input types and the functions. NVIDIA's header turns each call into one
 * of a versioned name (nvJitLinkCreate into __nvJitLinkCreate_13_0);
 * libnvJitLink.so.13 exports both names. The build does not need the
 * toolkit. */
#ifndef TD_NVJITLINK_H
#define TD_NVJITLINK_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    NVJITLINK_SUCCESS = 0,
    NVJITLINK_ERROR_UNRECOGNIZED_OPTION,
    NVJITLINK_ERROR_MISSING_ARCH,
    NVJITLINK_ERROR_INVALID_INPUT,
    NVJITLINK_ERROR_PTX_COMPILE,
    NVJITLINK_ERROR_NVVM_COMPILE,
    NVJITLINK_ERROR_INTERNAL,
    NVJITLINK_ERROR_THREADPOOL,
    NVJITLINK_ERROR_UNRECOGNIZED_INPUT,
    NVJITLINK_ERROR_FINALIZE,
    NVJITLINK_ERROR_NULL_INPUT,
    NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS,
    NVJITLINK_ERROR_INCORRECT_INPUT_TYPE,
    NVJITLINK_ERROR_ARCH_MISMATCH,
    NVJITLINK_ERROR_OUTDATED_LIBRARY,
    NVJITLINK_ERROR_MISSING_FATBIN,
    NVJITLINK_ERROR_UNRECOGNIZED_ARCH,
    NVJITLINK_ERROR_UNSUPPORTED_ARCH,
    NVJITLINK_ERROR_LTO_NOT_ENABLED,
} nvJitLinkResult;

typedef enum {
    NVJITLINK_INPUT_NONE = 0,
    NVJITLINK_INPUT_CUBIN = 1,
    NVJITLINK_INPUT_PTX,
    NVJITLINK_INPUT_LTOIR,
    NVJITLINK_INPUT_FATBIN,
    NVJITLINK_INPUT_OBJECT,
    NVJITLINK_INPUT_LIBRARY,
    NVJITLINK_INPUT_INDEX,
    NVJITLINK_INPUT_ANY = 10,
} nvJitLinkInputType;

typedef struct nvJitLink *nvJitLinkHandle;

nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t numOptions,
                                       const char *const *options);
nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *handle);
nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                        const void *data, size_t size, const char *name);
nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                        const char *fileName);
nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle);
nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle handle, void *cubin);
nvJitLinkResult __nvJitLinkGetLinkedPtxSize_13_0(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult __nvJitLinkGetLinkedPtx_13_0(nvJitLinkHandle handle, char *ptx);
nvJitLinkResult __nvJitLinkGetErrorLogSize_13_0(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult __nvJitLinkGetErrorLog_13_0(nvJitLinkHandle handle, char *log);
nvJitLinkResult __nvJitLinkGetInfoLogSize_13_0(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult __nvJitLinkGetInfoLog_13_0(nvJitLinkHandle handle, char *log);
nvJitLinkResult nvJitLinkVersion(unsigned int *major, unsigned int *minor);

/* the unversioned names, as exported (the header's inline functions call
 * the versioned ones) */
nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle *handle, uint32_t numOptions,
                                const char *const *options);
nvJitLinkResult nvJitLinkDestroy(nvJitLinkHandle *handle);
nvJitLinkResult nvJitLinkAddData(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                 const void *data, size_t size, const char *name);
nvJitLinkResult nvJitLinkAddFile(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                 const char *fileName);
nvJitLinkResult nvJitLinkComplete(nvJitLinkHandle handle);
nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle handle, void *cubin);
nvJitLinkResult nvJitLinkGetLinkedPtxSize(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult nvJitLinkGetLinkedPtx(nvJitLinkHandle handle, char *ptx);
nvJitLinkResult nvJitLinkGetErrorLogSize(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult nvJitLinkGetErrorLog(nvJitLinkHandle handle, char *log);
nvJitLinkResult nvJitLinkGetInfoLogSize(nvJitLinkHandle handle, size_t *size);
nvJitLinkResult nvJitLinkGetInfoLog(nvJitLinkHandle handle, char *log);

#endif
