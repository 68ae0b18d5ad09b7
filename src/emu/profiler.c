/* SPDX-License-Identifier: Apache-2.0 */
/* Profiler control (cudaProfiler.h). cuProfilerStart and cuProfilerStop
 * mark, for the current context, the span a profiling tool should collect;
 * with no tool attached the driver only checks the context, and so does
 * the emulator (tdtrace's trace shows both calls where they happen).
 * cuProfilerInitialize is deprecated: since CUDA 12.0 it always returns
 * CUDA_ERROR_NOT_SUPPORTED. */
#include "emu.h"

TD_EXPORT CUresult CUDAAPI cuProfilerStart(void)
{
    return emu_ctx_require();
}

TD_EXPORT CUresult CUDAAPI cuProfilerStop(void)
{
    return emu_ctx_require();
}

TD_EXPORT CUresult CUDAAPI cuProfilerInitialize(const char *configFile, const char *outputFile,
                                                CUoutput_mode outputMode)
{
    (void)configFile;
    (void)outputFile;
    (void)outputMode;
    return CUDA_ERROR_NOT_SUPPORTED;
}
