/* SPDX-License-Identifier: Apache-2.0 */
/* Tensor maps (cuTensorMapEncodeTiled, cuTensorMapReplaceAddress): the
 * arguments checked as the CUDA Driver API documents them, and a real
 * descriptor written into the caller's 128-byte CUtensorMap, in a layout
 * of the emulator's own (struct tmap; the map is opaque to programs). The
 * PTX engine has no cp.async.bulk.tensor yet, which reads it: such a
 * kernel is refused at launch (CUDA_ERROR_NOT_SUPPORTED, the PTX line), and
 * CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED stays 0 (profiles.def). */
#include "emu.h"

#include <stdint.h>
#include <string.h>

#define TMAP_MAGIC 0x4d544454u /* "TDTM" */

struct tmap {
    uint32_t magic;
    uint8_t kind;        /* 1: tiled */
    uint8_t dtype, rank, interleave, swizzle, l2, oob, pad;
    uint64_t addr;
    uint64_t dim[5];
    uint64_t stride[4];  /* bytes, of dimensions 1..rank-1 */
    uint16_t box[5];
    uint8_t estride[5];
};
_Static_assert(sizeof(struct tmap) <= 128, "a CUtensorMap is 128 bytes");

/* bytes of an element; the packed types: 16 elements of 4 or 6 bits */
static const struct { uint8_t bytes; uint8_t is_float; uint8_t packed; } dtypes[] = {
    [CU_TENSOR_MAP_DATA_TYPE_UINT8] = { 1, 0, 0 },      [CU_TENSOR_MAP_DATA_TYPE_UINT16] = { 2, 0, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_UINT32] = { 4, 0, 0 },     [CU_TENSOR_MAP_DATA_TYPE_INT32] = { 4, 0, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_UINT64] = { 8, 0, 0 },     [CU_TENSOR_MAP_DATA_TYPE_INT64] = { 8, 0, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT16] = { 2, 1, 0 },    [CU_TENSOR_MAP_DATA_TYPE_FLOAT32] = { 4, 1, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT64] = { 8, 1, 0 },    [CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] = { 2, 1, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ] = { 4, 1, 0 }, [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32] = { 4, 1, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ] = { 4, 1, 0 }, [CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B] = { 8, 0, 1 },
    [CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B] = { 16, 0, 1 }, [CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B] = { 16, 0, 1 },
};

/* the swizzle modes' span in bytes (0: none) */
static unsigned swizzle_span(CUtensorMapSwizzle s)
{
    switch (s) {
    case CU_TENSOR_MAP_SWIZZLE_NONE: return 0;
    case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B:
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B:
    default: return 128;
    }
}

/* the address rule: 16 bytes, 32 with 32-byte interleave or a 16-byte packed type */
static int addr_ok(uint64_t a, CUtensorMapInterleave il, CUtensorMapDataType t)
{
    unsigned al = il == CU_TENSOR_MAP_INTERLEAVE_32B || t == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B ||
                          t == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B
                      ? 32
                      : 16;
    return a % al == 0;
}

TD_EXPORT CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                                  cuuint32_t tensorRank, void *globalAddress,
                                                  const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                                  const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                                  CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                  CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
{
    EMU_INIT_OR_RETURN();
    unsigned t = (unsigned)tensorDataType;
    if (!tensorMap || (uintptr_t)tensorMap % 64 || t >= sizeof dtypes / sizeof *dtypes || !dtypes[t].bytes)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)interleave > CU_TENSOR_MAP_INTERLEAVE_32B || (unsigned)swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
        (unsigned)l2Promotion > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
        (unsigned)oobFill > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
        return CUDA_ERROR_INVALID_VALUE;
    /* rank 1 to 5; 3 to 5 when interleaved */
    if (tensorRank < (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE ? 1u : 3u) || tensorRank > 5)
        return CUDA_ERROR_INVALID_VALUE;
    if (!globalAddress || !addr_ok((uintptr_t)globalAddress, interleave, tensorDataType) || !globalDim || !boxDim ||
        !elementStrides || (tensorRank > 1 && !globalStrides))
        return CUDA_ERROR_INVALID_VALUE;
    /* NaN fill: floating-point types only, not the packed ones */
    if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && (!dtypes[t].is_float || dtypes[t].packed))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned es = dtypes[t].bytes;
    unsigned smul = interleave == CU_TENSOR_MAP_INTERLEAVE_32B || tensorDataType == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B ||
                            tensorDataType == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B
                        ? 32
                        : 16;
    for (unsigned i = 0; i < tensorRank; i++) {
        if (!globalDim[i] || globalDim[i] > (1ull << 32) || !boxDim[i] || boxDim[i] > 256 || !elementStrides[i] ||
            elementStrides[i] > 8)
            return CUDA_ERROR_INVALID_VALUE;
    }
    /* strides: multiples of 16 (32), below 2^40, each holding the dimension before it */
    for (unsigned i = 0; i + 1 < tensorRank; i++) {
        uint64_t s = globalStrides[i];
        if (s % smul || s >= (1ull << 40))
            return CUDA_ERROR_INVALID_VALUE;
        unsigned __int128 need = i == 0 ? (unsigned __int128)globalDim[0] * es
                                        : (unsigned __int128)globalDim[i] * globalStrides[i - 1];
        if (!dtypes[t].packed && s < need)
            return CUDA_ERROR_INVALID_VALUE;
    }
    /* the inner box row: a multiple of 16 bytes without interleave, and
     * within the swizzle span when swizzled */
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && !dtypes[t].packed) {
        unsigned row = boxDim[0] * es;
        if (row % 16)
            return CUDA_ERROR_INVALID_VALUE;
        if (swizzle_span(swizzle) && row > swizzle_span(swizzle))
            return CUDA_ERROR_INVALID_VALUE;
    }
    struct tmap m;
    memset(&m, 0, sizeof m);
    m.magic = TMAP_MAGIC;
    m.kind = 1;
    m.dtype = (uint8_t)t;
    m.rank = (uint8_t)tensorRank;
    m.interleave = (uint8_t)interleave;
    m.swizzle = (uint8_t)swizzle;
    m.l2 = (uint8_t)l2Promotion;
    m.oob = (uint8_t)oobFill;
    m.addr = (uintptr_t)globalAddress;
    for (unsigned i = 0; i < tensorRank; i++) {
        m.dim[i] = globalDim[i];
        m.box[i] = (uint16_t)boxDim[i];
        m.estride[i] = (uint8_t)elementStrides[i];
        if (i + 1 < tensorRank)
            m.stride[i] = globalStrides[i];
    }
    unsigned char out[128];
    memset(out, 0, sizeof out);
    memcpy(out, &m, sizeof m);
    memcpy(tensorMap, out, sizeof out);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress)
{
    EMU_INIT_OR_RETURN();
    if (!tensorMap || (uintptr_t)tensorMap % 64 || !globalAddress)
        return CUDA_ERROR_INVALID_VALUE;
    struct tmap m;
    memcpy(&m, tensorMap, sizeof m);
    if (m.magic != TMAP_MAGIC || m.kind != 1 || m.dtype >= sizeof dtypes / sizeof *dtypes)
        return CUDA_ERROR_INVALID_VALUE; /* not a map the emulator made */
    if (!addr_ok((uintptr_t)globalAddress, (CUtensorMapInterleave)m.interleave, (CUtensorMapDataType)m.dtype))
        return CUDA_ERROR_INVALID_VALUE;
    m.addr = (uintptr_t)globalAddress;
    memcpy(tensorMap, &m, sizeof m);
    return CUDA_SUCCESS;
}
