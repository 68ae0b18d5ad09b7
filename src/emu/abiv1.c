/* SPDX-License-Identifier: Apache-2.0 */
/* The v1 ABI: the entry points programs built before CUDA 3.2 link against
 * (cuMemAlloc, cuMemcpyHtoD, cuModuleGetGlobal ... without _v2). Their
 * device pointers are 32 bits (CUdeviceptr_v1) and their sizes unsigned
 * int. Each widens its arguments and does what its _v2 counterpart does:
 *   - allocations (cuMemAlloc, cuMemAllocPitch) are placed below 4 GiB so
 *     that the pointer fits; when no room is left there,
 *     CUDA_ERROR_OUT_OF_MEMORY;
 *   - an address the call would hand back that does not fit in 32 bits (a
 *     module's variable, a host allocation's device pointer, made by the v2
 *     ABI) is refused with CUDA_ERROR_NOT_SUPPORTED and a message on the
 *     report: the v1 type cannot hold it;
 *   - cuMemGetInfo saturates at 4 GiB - 1 (the device has more memory
 *     than an unsigned int counts). */
#include "emu.h"

#include <stdio.h>

/* an address for a v1 caller, or NOT_SUPPORTED with the reason */
static CUresult fit32(const char *fn, CUdeviceptr p, CUdeviceptr_v1 *out)
{
    if (p > 0xffffffffu) {
        char text[256];
        int n = snprintf(text, sizeof text,
                         "tdtrace-emu: %s: address 0x%llx does not fit the v1 ABI's 32-bit CUdeviceptr; "
                         "use %s_v2 (CUDA_ERROR_NOT_SUPPORTED)\n", fn, (unsigned long long)p, fn);
        emu_report(text, n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    *out = (CUdeviceptr_v1)p;
    return CUDA_SUCCESS;
}

static unsigned sat32(size_t v)
{
    return v > 0xffffffffu ? 0xffffffffu : (unsigned)v;
}

static CUresult alloc32(size_t size, uintptr_t *p)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    r = emu_mem_alloc(c, size, EMU_MEM_DEVICE, EMU_ALLOC_32BIT, NULL, p);
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    EMU_INIT_OR_RETURN();
    if (!dptr || !bytesize)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    CUresult r = alloc32(bytesize, &p);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr_v1)p;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
                                           unsigned int Height, unsigned int ElementSizeBytes)
{
    EMU_INIT_OR_RETURN();
    if (!dptr || !pPitch || !WidthInBytes || !Height ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16) || WidthInBytes > 0x7fffffffu)
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = ((size_t)WidthInBytes + EMU_PITCH_ALIGN - 1) & ~(size_t)(EMU_PITCH_ALIGN - 1);
    if (pitch * Height > 0xffffffffu)
        return CUDA_ERROR_OUT_OF_MEMORY; /* cannot lie below 4 GiB */
    uintptr_t p;
    CUresult r = alloc32(pitch * Height, &p);
    if (r == CUDA_SUCCESS) {
        *dptr = (CUdeviceptr_v1)p;
        *pPitch = (unsigned)pitch;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemFree(CUdeviceptr_v1 dptr)
{
    return cuMemFree_v2(dptr);
}

TD_EXPORT CUresult CUDAAPI cuMemAllocHost(void **pp, unsigned int bytesize)
{
    return cuMemAllocHost_v2(pp, bytesize);
}

TD_EXPORT CUresult CUDAAPI cuMemGetInfo(unsigned int *free, unsigned int *total)
{
    size_t f, t;
    CUresult r = cuMemGetInfo_v2(free ? &f : NULL, total ? &t : NULL);
    if (r == CUDA_SUCCESS) {
        if (free)
            *free = sat32(f);
        if (total)
            *total = sat32(t);
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr_v1 *pbase, unsigned int *psize, CUdeviceptr_v1 dptr)
{
    CUdeviceptr base;
    size_t size;
    CUresult r = cuMemGetAddressRange_v2(&base, &size, dptr);
    if (r)
        return r;
    if (size > 0xffffffffu)
        return CUDA_ERROR_NOT_SUPPORTED; /* an allocation v1 could not make */
    if (pbase)
        *pbase = (CUdeviceptr_v1)base; /* at most dptr: fits */
    if (psize)
        *psize = (unsigned)size;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr_v1 *pdptr, void *p, unsigned int Flags)
{
    if (!pdptr)
        return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr d;
    CUresult r = cuMemHostGetDevicePointer_v2(&d, p, Flags);
    return r ? r : fit32("cuMemHostGetDevicePointer", d, pdptr);
}

TD_EXPORT CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod, const char *name)
{
    CUdeviceptr d;
    size_t size;
    CUresult r = cuModuleGetGlobal_v2(&d, &size, hmod, name);
    if (r)
        return r;
    CUdeviceptr_v1 d32 = 0;
    if ((r = fit32("cuModuleGetGlobal", d, &d32)))
        return r;
    if (dptr)
        *dptr = d32;
    if (bytes)
        *bytes = (unsigned)size; /* a variable's size fits: PTX sizes are 32-bit here */
    return CUDA_SUCCESS;
}

/* ---- copies and memsets: the pointers and counts widened ---------------- */

TD_EXPORT CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount)
{
    return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{
    return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{
    return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount,
                                             CUstream hStream)
{
    return cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount,
                                             CUstream hStream)
{
    return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream);
}

TD_EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount,
                                             CUstream hStream)
{
    return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream);
}

/* CUDA_MEMCPY2D_v1: unsigned int offsets, pitches and extents, 32-bit
 * device pointers */
struct memcpy2d_v1 {
    unsigned int srcXInBytes, srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr_v1 srcDevice;
    CUarray srcArray;
    unsigned int srcPitch;
    unsigned int dstXInBytes, dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr_v1 dstDevice;
    CUarray dstArray;
    unsigned int dstPitch;
    unsigned int WidthInBytes, Height;
};

static CUresult widen2d(const CUDA_MEMCPY2D_v1 *p, CUDA_MEMCPY2D *w)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    const struct memcpy2d_v1 *v = (const struct memcpy2d_v1 *)p;
    w->srcXInBytes = v->srcXInBytes;
    w->srcY = v->srcY;
    w->srcMemoryType = v->srcMemoryType;
    w->srcHost = v->srcHost;
    w->srcDevice = v->srcDevice;
    w->srcArray = v->srcArray;
    w->srcPitch = v->srcPitch;
    w->dstXInBytes = v->dstXInBytes;
    w->dstY = v->dstY;
    w->dstMemoryType = v->dstMemoryType;
    w->dstHost = v->dstHost;
    w->dstDevice = v->dstDevice;
    w->dstArray = v->dstArray;
    w->dstPitch = v->dstPitch;
    w->WidthInBytes = v->WidthInBytes;
    w->Height = v->Height;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D_v1 *pCopy)
{
    CUDA_MEMCPY2D w;
    CUresult r = widen2d(pCopy, &w);
    return r ? r : cuMemcpy2D_v2(&w);
}

TD_EXPORT CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D_v1 *pCopy)
{
    CUDA_MEMCPY2D w;
    CUresult r = widen2d(pCopy, &w);
    return r ? r : cuMemcpy2DUnaligned_v2(&w);
}

TD_EXPORT CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D_v1 *pCopy, CUstream hStream)
{
    CUDA_MEMCPY2D w;
    CUresult r = widen2d(pCopy, &w);
    return r ? r : cuMemcpy2DAsync_v2(&w, hStream);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD8(CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N)
{
    return cuMemsetD8_v2(dstDevice, uc, N);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD16(CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N)
{
    return cuMemsetD16_v2(dstDevice, us, N);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD32(CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N)
{
    return cuMemsetD32_v2(dstDevice, ui, N);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD2D8(CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned char uc,
                                        unsigned int Width, unsigned int Height)
{
    return cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD2D16(CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned short us,
                                         unsigned int Width, unsigned int Height)
{
    return cuMemsetD2D16_v2(dstDevice, dstPitch, us, Width, Height);
}

TD_EXPORT CUresult CUDAAPI cuMemsetD2D32(CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned int ui,
                                         unsigned int Width, unsigned int Height)
{
    return cuMemsetD2D32_v2(dstDevice, dstPitch, ui, Width, Height);
}
