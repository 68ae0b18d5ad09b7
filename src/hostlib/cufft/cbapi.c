/* SPDX-License-Identifier: Apache-2.0 */
/* cuFFT's callback entry points: cufftXtSetJITCallback (LTO callbacks,
 * run on the emulated GPU by callback.c), cufftXtSetCallbackSharedSize,
 * and the two NVIDIA's shared libcufft.so.12 (CUDA 13.0) does not
 * implement: cufftXtSetCallback (legacy callbacks, device function
 * pointers, only in NVIDIA's static cuFFT) and cufftXtClearCallback. In
 * NVIDIA's shared library each is a bare `return CUFFT_NOT_IMPLEMENTED`
 * (docs/hostlib.md), so a program sees the same here. */
#include "fft.h"

HL_EXPORT cufftResult cufftXtSetJITCallback(cufftHandle plan, const char *lto_callback_symbol_name,
                                            const void *lto_callback_fatbin, size_t lto_callback_fatbin_size,
                                            cufftXtCallbackType type, void **caller_info)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    int dir = fft_cb_dir_of((int)type);
    if (dir < 0)
        return CUFFT_INVALID_TYPE;
    if (p->ngpus > 1) {
        hl_note("LTO callback: not on a plan over several GPUs");
        return CUFFT_NOT_SUPPORTED;
    }
    /* a plan made already must take the type now; otherwise its making
     * checks it (NVIDIA documents the call before the plan is made) */
    struct fft_plan probe = *p;
    probe.cb[dir].set = 1;
    probe.cb[dir].type = (int)type;
    if (p->made) {
        cufftResult r = fft_cb_fits(&probe);
        if (r)
            return r;
    }
    struct fft_cb cb = p->cb[dir];
    p->cb[dir].set = 0;   /* built into a copy: the plan's stays if this fails */
    cufftResult r = fft_cb_build(&cb, (int)type, lto_callback_symbol_name, lto_callback_fatbin,
                                 lto_callback_fatbin_size);
    if (r) {
        p->cb[dir].set = cb.set;
        return r;
    }
    cb.info = caller_info ? caller_info[0] : NULL;
    p->cb[dir] = cb;
    if (p->made && (r = fft_cb_prepare(p))) {
        fft_cb_clear(&p->cb[dir]);
        return r;
    }
    hl_note(dir == FCB_LOAD ? "NVRTC and nvJitLink: the load callback linked into PTX for the emulated GPU"
                            : "NVRTC and nvJitLink: the store callback linked into PTX for the emulated GPU");
    return CUFFT_SUCCESS;
}

HL_EXPORT cufftResult cufftXtClearCallback(cufftHandle plan, cufftXtCallbackType cbType)
{
    (void)plan;
    (void)cbType;
    hl_note("not implemented in NVIDIA's shared libcufft.so.12 either: a callback stays until cufftDestroy");
    return CUFFT_NOT_IMPLEMENTED;
}

HL_EXPORT cufftResult cufftXtSetCallback(cufftHandle plan, void **callback_routine, cufftXtCallbackType cbType,
                                         void **caller_info)
{
    (void)plan;
    (void)callback_routine;
    (void)cbType;
    (void)caller_info;
    hl_note("legacy callbacks are in NVIDIA's static cuFFT only; its shared libcufft.so.12 returns this too "
            "(cufftXtSetJITCallback takes LTO callbacks)");
    return CUFFT_NOT_IMPLEMENTED;
}

HL_EXPORT cufftResult cufftXtSetCallbackSharedSize(cufftHandle plan, cufftXtCallbackType cbType, size_t sharedSize)
{
    struct fft_plan *p = fft_plan_get(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    int dir = fft_cb_dir_of((int)cbType);
    if (dir < 0)
        return CUFFT_INVALID_TYPE;
    if (hl_init() != HL_OK)
        return CUFFT_SETUP_FAILED;
    CUdevice dev;
    int max = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&max, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev) != CUDA_SUCCESS)
        return CUFFT_SETUP_FAILED;
    if (sharedSize > (size_t)max)
        return CUFFT_INVALID_VALUE;   /* more than a block of the device can have */
    p->cbshared[dir] = sharedSize;
    return CUFFT_SUCCESS;
}
