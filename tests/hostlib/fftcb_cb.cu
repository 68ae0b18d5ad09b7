/* SPDX-License-Identifier: Apache-2.0 */
// The LTO callbacks of fftcb.cu, compiled on their own as NVIDIA documents
// (nvcc -dlto -rdc=true -fatbin): LTO-IR in a fatbinary, which fftcb.cu reads
// and hands to cufftXtSetJITCallback with each callback's symbol name.
// cb_info (fftcb_info.h) comes through callerInfo.
#include <cufftXt.h>

#include "fftcb_info.h"

// load: the element times a factor, plus a second array read at the same offset
extern "C" __device__ cufftComplex ld_c(void *in, unsigned long long off, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    cufftComplex v = ((const cufftComplex *)in)[off];
    v.x = v.x * ci->scale + ci->addf[2 * off];
    v.y = v.y * ci->scale + ci->addf[2 * off + 1];
    return v;
}

extern "C" __device__ cufftReal ld_r(void *in, unsigned long long off, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    return ((const cufftReal *)in)[off] * ci->scale + ci->addf[off];
}

extern "C" __device__ cufftDoubleComplex ld_z(void *in, unsigned long long off, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    cufftDoubleComplex v = ((const cufftDoubleComplex *)in)[off];
    v.x = v.x * ci->scale + ci->addd[2 * off];
    v.y = v.y * ci->scale + ci->addd[2 * off + 1];
    return v;
}

// C++ linkage: given to cuFFT by its mangled name
__device__ cufftDoubleReal ld_d(void *in, unsigned long long off, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    return ((const cufftDoubleReal *)in)[off] * ci->scale + ci->addd[off];
}

// store: every element whose offset is not a multiple of 3, times a factor,
// plus its offset in the real part; the others are not written. With shared
// memory asked for, the callback writes and reads a byte of it.
extern "C" __device__ void st_c(void *out, unsigned long long off, cufftComplex e, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    if (off % 3 == 0)
        return;
    float bump = 0.0f;
    if (ci->shared) {
        volatile char *s = (volatile char *)sh;
        s[threadIdx.x % ci->shared] = 1;
        bump = s[threadIdx.x % ci->shared] - 1;
    }
    ((cufftComplex *)out)[off] = make_cuComplex(e.x * ci->oscale + (float)off + bump, e.y * ci->oscale);
}

extern "C" __device__ void st_r(void *out, unsigned long long off, cufftReal e, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    if (off % 3 == 0)
        return;
    ((cufftReal *)out)[off] = e * ci->oscale + (float)off;
}

extern "C" __device__ void st_z(void *out, unsigned long long off, cufftDoubleComplex e, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    if (off % 3 == 0)
        return;
    ((cufftDoubleComplex *)out)[off] = make_cuDoubleComplex(e.x * ci->oscale + (double)off, e.y * ci->oscale);
}

extern "C" __device__ void st_d(void *out, unsigned long long off, cufftDoubleReal e, void *info, void *sh)
{
    const cb_info *ci = (const cb_info *)info;
    if (off % 3 == 0)
        return;
    ((cufftDoubleReal *)out)[off] = e * ci->oscale + (double)off;
}
