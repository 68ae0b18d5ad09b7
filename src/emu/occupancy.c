/* SPDX-License-Identifier: Apache-2.0 */
/* Occupancy: how many blocks of a function fit on one multiprocessor, from
 * the function's attributes and the device's limits (warps, blocks,
 * registers, shared memory), the way the CUDA occupancy calculator counts.
 * A function handle may be a CUkernel (the runtime passes one as the
 * other); its device is the current context's (for the cluster queries,
 * that of the configuration's stream). Every value comes from the entry
 * points that report it (cuFuncGetAttribute, cuDeviceGetAttribute).
 *
 * Clusters. The cluster size of a query is the configuration's
 * (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), else the function's required
 * one (__cluster_dims__). A device whose CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
 * is 0 (profiles before sm_90) launches a cluster of one block only, which
 * is a block: cuOccupancyMaxActiveClusters counts those as blocks and
 * answers CUDA_ERROR_INVALID_CLUSTER_SIZE for anything larger, and
 * cuOccupancyMaxPotentialClusterSize answers 1 (0 when not even one block
 * fits). NVIDIA's libraries probe cluster sizes this way (cuBLAS asks for
 * 1 to 32 blocks at cublasCreate) and take the error as "not that size".
 * On a device with clusters, the blocks resident on the whole device at
 * once (per multiprocessor times multiprocessors; the emulator does not
 * model how a GPU groups its multiprocessors) make
 * cuOccupancyMaxActiveClusters' clusters, and the largest size is 8
 * blocks, 16 where the function allows non-portable sizes, fewer when
 * fewer blocks fit. */
#include "emu.h"

struct occ_in {
    int warp, sm_threads, sm_blocks, sm_regs, block_regs, sm_shared, reserved, nsm;
    int fn_threads, fn_regs, fn_shared, fn_dyn_max;
};

/* f's and dev's figures */
static CUresult occ_load_on(CUfunction f, CUdevice dev, struct occ_in *in)
{
    CUresult r = CUDA_SUCCESS;
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

/* on the current context's device */
static CUresult occ_load(CUfunction f, struct occ_in *in)
{
    EMU_INIT_OR_RETURN();
    CUdevice dev;
    CUresult r = cuCtxGetDevice(&dev);
    return r ? r : occ_load_on(f, dev, in);
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

/* ---- clusters --------------------------------------------------------- */

/* A cluster query's configuration: f's figures on the device of the
 * configuration's stream (NULL: the current context's), and the cluster
 * size the attributes ask for (0: none given). */
static CUresult cluster_config(CUfunction f, const CUlaunchConfig *cfg, struct occ_in *in,
                               unsigned long long *cluster, int *cluster_launch, int *non_portable)
{
    EMU_INIT_OR_RETURN();
    if (!cfg || (cfg->numAttrs && !cfg->attrs))
        return CUDA_ERROR_INVALID_VALUE;
    *cluster = 0;
    unsigned dims[3] = { 0, 0, 0 };
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        const CUlaunchAttribute *a = &cfg->attrs[i];
        if ((unsigned)a->id > CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING)
            return CUDA_ERROR_INVALID_VALUE;
        if (a->id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            continue;
        unsigned x = a->value.clusterDim.x, y = a->value.clusterDim.y, z = a->value.clusterDim.z;
        if (!x || !y || !z)
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        *cluster = (unsigned long long)x * y * z;
        dims[0] = x, dims[1] = y, dims[2] = z;
    }
    CUdevice dev;
    CUresult r = cuStreamGetDevice(cfg->hStream, &dev);
    if (r == CUDA_SUCCESS)
        r = occ_load_on(f, dev, in);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetAttribute(cluster_launch, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev);
    int req[3] = { 0, 0, 0 };
    for (int k = 0; k < 3 && r == CUDA_SUCCESS; k++)
        r = cuFuncGetAttribute(&req[k], (CUfunction_attribute)(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH + k), f);
    if (r == CUDA_SUCCESS)
        r = cuFuncGetAttribute(non_portable, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, f);
    if (r == CUDA_SUCCESS && req[0] > 0) {
        unsigned long long n = (unsigned long long)req[0] * (unsigned)(req[1] > 0 ? req[1] : 1) *
                               (unsigned)(req[2] > 0 ? req[2] : 1);
        if (*cluster && (dims[0] != (unsigned)req[0] || dims[1] != (unsigned)(req[1] > 0 ? req[1] : 1) ||
                         dims[2] != (unsigned)(req[2] > 0 ? req[2] : 1)))
            return CUDA_ERROR_INVALID_CLUSTER_SIZE; /* another size than the function's */
        *cluster = n;
    }
    return r;
}

/* blocks of the configuration resident per multiprocessor */
static int cluster_blocks(const struct occ_in *in, const CUlaunchConfig *cfg)
{
    unsigned long long threads = (unsigned long long)cfg->blockDimX * cfg->blockDimY * cfg->blockDimZ;
    if (!cfg->blockDimX || !cfg->blockDimY || !cfg->blockDimZ || threads > (unsigned)in->fn_threads)
        return 0;
    return occ_blocks(in, (int)threads, cfg->sharedMemBytes);
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func, const CUlaunchConfig *config)
{
    if (!numClusters)
        return CUDA_ERROR_INVALID_VALUE;
    struct occ_in in;
    unsigned long long cluster;
    int clusters_on, non_portable;
    CUresult r = cluster_config(func, config, &in, &cluster, &clusters_on, &non_portable);
    if (r)
        return r;
    if (cluster == 0)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE; /* no required size: the configuration must give one */
    if (cluster > 1 && !clusters_on)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (cluster > EMU_CLUSTER_MAX_NONPORTABLE || (cluster > EMU_CLUSTER_MAX_PORTABLE && !non_portable))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *numClusters = (int)((unsigned long long)cluster_blocks(&in, config) * (unsigned)in.nsm / cluster);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func, const CUlaunchConfig *config)
{
    if (!clusterSize)
        return CUDA_ERROR_INVALID_VALUE;
    struct occ_in in;
    unsigned long long cluster; /* the configuration's is ignored, as documented; the function's is the answer */
    int clusters_on, non_portable;
    CUresult r = cluster_config(func, config, &in, &cluster, &clusters_on, &non_portable);
    if (r)
        return r;
    unsigned long long fit = (unsigned long long)cluster_blocks(&in, config) * (unsigned)in.nsm;
    unsigned long long max = !clusters_on ? 1 : non_portable ? EMU_CLUSTER_MAX_NONPORTABLE : EMU_CLUSTER_MAX_PORTABLE;
    if (clusters_on) {
        int req = 0;
        r = cuFuncGetAttribute(&req, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, func);
        if (r)
            return r;
        if (req > 0)
            max = cluster; /* the function's own size */
    }
    *clusterSize = (int)(fit < max ? fit : max);
    return CUDA_SUCCESS;
}
