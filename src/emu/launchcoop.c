/* SPDX-License-Identifier: Apache-2.0 */
/* Launches with a configuration: cuLaunchKernelEx (its attributes checked
 * by launchattr.c, the events they record after), and cooperative
 * launches (cuLaunchCooperativeKernel, or the cooperative attribute).
 *
 * A cooperative launch runs every block of the grid at once, so that
 * blocks can wait for each other at a grid-wide barrier
 * (cooperative_groups' grid.sync()); the PTX engine keeps each block
 * resident and gives each a turn while others spin (src/ptx/exec_launch.c).
 * The barrier's word is device memory the driver provides: its address is
 * in %envreg1 (high half) and %envreg2 (low half), where nvcc's code for
 * grid.sync() reads it (a kernel launched otherwise finds 0 there and
 * traps, as on a GPU). The grid may hold at most as many blocks as fit on
 * the device at once, cuOccupancyMaxActiveBlocksPerMultiprocessor times
 * the multiprocessors, else CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, as
 * documented. Multi-device cooperative launches
 * (cuLaunchCooperativeKernelMultiDevice, deprecated) are not emulated
 * (CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH is 0). */
#include "emu.h"

#include <stdio.h>

/* the grid fits on the device of the current context at once */
static CUresult fits(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shmem)
{
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    if (!threads || threads > 1024 || !grid[0] || !grid[1] || !grid[2])
        return CUDA_SUCCESS; /* the launch reports what is wrong */
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    int nsm = emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1);
    int coop = emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0);
    emu_ctx_put(c);
    if (!coop)
        return CUDA_ERROR_NOT_SUPPORTED;
    int per_sm = 0;
    r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)threads, shmem);
    if (r)
        return r;
    unsigned long long n = (unsigned long long)grid[0] * grid[1] * grid[2];
    unsigned long long max = (unsigned long long)per_sm * (unsigned long long)(nsm > 0 ? nsm : 1);
    if (n <= max)
        return CUDA_SUCCESS;
    char text[256];
    int len = snprintf(text, sizeof text, "tdtrace-emu: a cooperative launch of %llu blocks: at most %llu fit on the "
                       "device at once (%d per multiprocessor, %d multiprocessors) "
                       "(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)\n", n, max, per_sm, nsm);
    emu_report(text, len < 0 ? 0 : (size_t)len < sizeof text ? (size_t)len : sizeof text - 1);
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
}

static CUresult coop(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                     unsigned shmem, CUstream hs, void **params, int ptds)
{
    EMU_INIT_OR_RETURN();
    const unsigned grid[3] = { gx, gy, gz }, block[3] = { bx, by, bz };
    CUresult r = fits(f, grid, block, shmem);
    return r ? r : emu_launch_fn(f, grid, block, shmem, hs, params, NULL, ptds, 1, NULL);
}

TD_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                     unsigned int gridDimZ, unsigned int blockDimX,
                                                     unsigned int blockDimY, unsigned int blockDimZ,
                                                     unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
    return coop(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                kernelParams, 0);
}

TD_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                          unsigned int gridDimZ, unsigned int blockDimX,
                                                          unsigned int blockDimY, unsigned int blockDimZ,
                                                          unsigned int sharedMemBytes, CUstream hStream,
                                                          void **kernelParams)
{
    return coop(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                kernelParams, 1);
}

/* the attributes checked first (launchattr.c), the events they record after */
static CUresult launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra, int ptds)
{
    EMU_INIT_OR_RETURN();
    if (!cfg)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_launch_attrs la;
    r = emu_launch_attrs(cfg, c, &la);
    emu_ctx_put(c);
    const unsigned grid[3] = { cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ };
    const unsigned block[3] = { cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ };
    if (r == CUDA_SUCCESS && la.cooperative)
        r = fits(f, grid, block, cfg->sharedMemBytes);
    if (r == CUDA_SUCCESS)
        r = emu_launch_fn(f, grid, block, cfg->sharedMemBytes, cfg->hStream, params, extra, ptds, la.cooperative,
                          &la.cluster);
    if (r == CUDA_SUCCESS)
        r = emu_launch_attrs_after(&la, cfg->hStream, ptds);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                                            void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 0);
}

TD_EXPORT CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                                                 void **kernelParams, void **extra)
{
    return launch_ex(config, f, kernelParams, extra, 1);
}
