/* Occupancy: how many blocks of a function fit on one multiprocessor, from
 * the function's attributes and the device's limits (warps, blocks,
 * registers, shared memory), the way the CUDA occupancy calculator counts.
 * A function handle may be a CUkernel (the runtime passes one as the
 * other); its device is the current context's. Every value comes from the
 * entry points that report it (cuFuncGetAttribute, cuDeviceGetAttribute). */
#include "emu.h"

struct occ_in {
    int warp, sm_threads, sm_blocks, sm_regs, block_regs, sm_shared, reserved, nsm;
    int fn_threads, fn_regs, fn_shared, fn_dyn_max;
};

static CUresult occ_load(CUfunction f, struct occ_in *in)
{
    EMU_INIT_OR_RETURN();
    CUdevice dev;
    CUresult r = cuCtxGetDevice(&dev);
    if (r)
        return r;
    static const struct { int attr; size_t off; } dattrs[] = {
        { CU_DEVICE_ATTRIBUTE_WARP_SIZE, offsetof(struct occ_in, warp) },
        { CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, offsetof(struct occ_in, sm_threads) },
        { CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, offsetof(struct occ_in, sm_blocks) },
        { CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, offsetof(struct occ_in, sm_regs) },
        { CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, offsetof(struct occ_in, block_regs) },
        { CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, offsetof(struct occ_in, sm_shared) },
        { CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, offsetof(struct occ_in, reserved) },
        { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(struct occ_in, nsm) },
    };
    static const struct { int attr; size_t off; } fattrs[] = {
        { CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, offsetof(struct occ_in, fn_threads) },
        { CU_FUNC_ATTRIBUTE_NUM_REGS, offsetof(struct occ_in, fn_regs) },
        { CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, offsetof(struct occ_in, fn_shared) },
        { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, offsetof(struct occ_in, fn_dyn_max) },
    };
    for (size_t i = 0; i < sizeof fattrs / sizeof fattrs[0] && !r; i++)
        r = cuFuncGetAttribute((int *)((char *)in + fattrs[i].off), (CUfunction_attribute)fattrs[i].attr, f);
    if (r == CUDA_ERROR_INVALID_VALUE)
        r = CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < sizeof dattrs / sizeof dattrs[0] && !r; i++)
        r = cuDeviceGetAttribute((int *)((char *)in + dattrs[i].off), (CUdevice_attribute)dattrs[i].attr, dev);
    if (r == CUDA_SUCCESS && (in->warp <= 0 || in->sm_threads <= 0 || in->sm_blocks <= 0 || in->nsm <= 0))
        r = CUDA_ERROR_INVALID_DEVICE;
    return r;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

/* blocks of block threads with dyn bytes of dynamic shared memory per SM */
static int occ_blocks(const struct occ_in *in, int block, size_t dyn)
{
    if (block <= 0 || block > in->fn_threads || dyn > (size_t)in->fn_dyn_max)
        return 0;
    int warps = (block + in->warp - 1) / in->warp;
    int n = imin(in->sm_blocks, in->sm_threads / in->warp / warps);
    if (in->fn_regs > 0) {
        /* registers are allocated per warp in units of 256 */
        long long per_warp = ((long long)in->fn_regs * in->warp + 255) / 256 * 256;
        long long per_block = per_warp * warps;
        if (per_block > in->block_regs)
            return 0;
        n = imin(n, (int)(in->sm_regs / per_block));
    }
    unsigned long long shared = (unsigned long long)in->fn_shared + dyn + (unsigned)in->reserved;
    if (shared > 0)
        n = imin(n, (int)((unsigned long long)in->sm_shared / shared));
    return n;
}

static CUresult check_flags(unsigned flags)
{
    return flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                                               int blockSize, size_t dynamicSMemSize,
                                                                               unsigned int flags)
{
    if (!numBlocks || blockSize <= 0 || check_flags(flags))
        return CUDA_ERROR_INVALID_VALUE;
    struct occ_in in;
    CUresult r = occ_load(func, &in);
    if (r)
        return r;
    *numBlocks = occ_blocks(&in, blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                                       int blockSize, size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                                     CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                                     size_t dynamicSMemSize, int blockSizeLimit,
                                                                     unsigned int flags)
{
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || check_flags(flags))
        return CUDA_ERROR_INVALID_VALUE;
    struct occ_in in;
    CUresult r = occ_load(func, &in);
    if (r)
        return r;
    int limit = imin(in.fn_threads, in.sm_threads);
    if (blockSizeLimit > 0)
        limit = imin(limit, blockSizeLimit);
    int best = 0, best_blocks = 0, best_threads = 0;
    /* from the largest block down: a smaller one wins only with more threads */
    int top = limit / in.warp * in.warp;
    for (int b = top > 0 ? top : limit; b > 0; b -= b > in.warp ? in.warp : b) {
        size_t dyn = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(b) : dynamicSMemSize;
        int n = occ_blocks(&in, b, dyn);
        if (n * b > best_threads) {
            best = b;
            best_blocks = n;
            best_threads = n * b;
        }
    }
    *blockSize = best;
    *minGridSize = best_blocks * in.nsm;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                            CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                            size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                                     dynamicSMemSize, blockSizeLimit, 0);
}

TD_EXPORT CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                                   int numBlocks, int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct occ_in in;
    CUresult r = occ_load(func, &in);
    if (r)
        return r;
    *dynamicSmemSize = 0;
    if (occ_blocks(&in, blockSize, 0) < numBlocks)
        return CUDA_SUCCESS; /* that many do not fit even without any */
    long long avail = (long long)in.sm_shared / numBlocks - in.reserved - in.fn_shared;
    if (avail > in.fn_dyn_max)
        avail = in.fn_dyn_max;
    *dynamicSmemSize = avail > 0 ? (size_t)avail : 0;
    return CUDA_SUCCESS;
}
