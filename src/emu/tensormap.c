/* SPDX-License-Identifier: Apache-2.0 */
/* Tensor maps (cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col,
 * cuTensorMapEncodeIm2colWide, cuTensorMapReplaceAddress): the
 * arguments checked as the CUDA Driver API documents them, and a real
 * descriptor written into the caller's 128-byte CUtensorMap, in a layout
 * of the emulator's own (struct tmap, src/ptx/tmap.h; the map is opaque to
 * programs), which the PTX engine's cp.async.bulk.tensor reads
 * (src/ptx/exec_tensor.c). */
#include "emu.h"

#include <stdint.h>
#include <string.h>

#include "../ptx/tmap.h"


/* bytes of an element (the packed types: of 16 values of 4 or 6 bits) and
 * what it is (tmap.h) */
#define U TMAP_E_UINT
#define S TMAP_E_SINT
#define F TMAP_E_FLOAT
static const struct { uint8_t bytes; uint8_t kind; uint8_t packed; } dtypes[] = {
    [CU_TENSOR_MAP_DATA_TYPE_UINT8] = { 1, U, 0 },      [CU_TENSOR_MAP_DATA_TYPE_UINT16] = { 2, U, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_UINT32] = { 4, U, 0 },     [CU_TENSOR_MAP_DATA_TYPE_INT32] = { 4, S, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_UINT64] = { 8, U, 0 },     [CU_TENSOR_MAP_DATA_TYPE_INT64] = { 8, S, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT16] = { 2, TMAP_E_F16, 0 }, [CU_TENSOR_MAP_DATA_TYPE_FLOAT32] = { 4, F, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT64] = { 8, F, 0 },    [CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] = { 2, TMAP_E_BF16, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ] = { 4, F, 0 }, [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32] = { 4, F, 0 },
    [CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ] = { 4, F, 0 }, [CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B] = { 8, U, 1 },
    [CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B] = { 16, U, 1 }, [CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B] = { 16, U, 1 },
};
#undef U
#undef S
#undef F
static int is_float(unsigned t) { return dtypes[t].kind >= TMAP_E_FLOAT; }

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

/* bytes of n values of type t (a packed type's dimensions count values) */
static unsigned __int128 span_of(unsigned t, uint64_t n)
{
    return dtypes[t].packed ? (unsigned __int128)n * dtypes[t].bytes / 16 : (unsigned __int128)n * dtypes[t].bytes;
}

static int align16_packed(CUtensorMapDataType t)
{
    return t == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B || t == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B;
}

/* the address rule: 16 bytes, 32 with 32-byte interleave or a 16-byte packed type */
static int addr_ok(uint64_t a, CUtensorMapInterleave il, CUtensorMapDataType t)
{
    return a % (il == CU_TENSOR_MAP_INTERLEAVE_32B || align16_packed(t) ? 32 : 16) == 0;
}

/* What both encodings check (the Driver API's list for each), filling m:
 * the map's alignment, the enums, rank (lo..5), address, dimensions,
 * strides, element strides, interleave and swizzle together, the packed
 * types' rules, the NaN fill; inner: the bytes of the box's inner row
 * (tiled: boxDim[0]; im2col: channelsPerPixel elements). 0 or -1. */
static int check_common(struct tmap *m, const CUtensorMap *tensorMap, CUtensorMapDataType type, cuuint32_t rank,
                        unsigned lo, const void *addr, const cuuint64_t *dim, const cuuint64_t *stride,
                        const cuuint32_t *estride, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                        CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob, uint64_t inner)
{
    unsigned t = (unsigned)type;
    if (!tensorMap || (uintptr_t)tensorMap % 64 || t >= sizeof dtypes / sizeof *dtypes || !dtypes[t].bytes)
        return -1;
    if ((unsigned)il > CU_TENSOR_MAP_INTERLEAVE_32B || (unsigned)sw > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
        (unsigned)l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B || (unsigned)oob > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
        return -1;
    if (rank < (il == CU_TENSOR_MAP_INTERLEAVE_NONE ? lo : 3u) || rank > 5)
        return -1;
    if (!addr || !addr_ok((uintptr_t)addr, il, type) || !dim || !estride || (rank > 1 && !stride))
        return -1;
    /* NaN fill: floating-point types only, not the packed ones */
    if (oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && (!is_float(t) || dtypes[t].packed))
        return -1;
    /* 32-byte interleave swizzles 32 bytes */
    if (il == CU_TENSOR_MAP_INTERLEAVE_32B && sw != CU_TENSOR_MAP_SWIZZLE_32B)
        return -1;
    /* the packed types: dimension 0 counts their values */
    if (align16_packed(type) && dim[0] % 128)
        return -1;
    if (type == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B && dim[0] % 2)
        return -1;
    if (type == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B && il != CU_TENSOR_MAP_INTERLEAVE_NONE)
        return -1;
    if (align16_packed(type) && sw != CU_TENSOR_MAP_SWIZZLE_NONE && sw != CU_TENSOR_MAP_SWIZZLE_128B &&
        sw != CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B &&
        !(type == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B && sw == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B))
        return -1;
    unsigned smul = il == CU_TENSOR_MAP_INTERLEAVE_32B || align16_packed(type) ? 32 : 16;
    for (unsigned i = 0; i < rank; i++)
        if (!dim[i] || dim[i] > (1ull << 32) || !estride[i] || estride[i] > 8)
            return -1;
    /* strides: multiples of 16 (32), below 2^40, each holding the dimension before it */
    for (unsigned i = 0; i + 1 < rank; i++) {
        uint64_t s = stride[i];
        if (s % smul || s >= (1ull << 40))
            return -1;
        unsigned __int128 need = i == 0 ? span_of(t, dim[0]) : (unsigned __int128)dim[i] * stride[i - 1];
        if (s < need)
            return -1;
    }
    /* swizzled without interleave: the inner row within the swizzle span */
    if (il == CU_TENSOR_MAP_INTERLEAVE_NONE && swizzle_span(sw) && inner > swizzle_span(sw))
        return -1;
    memset(m, 0, sizeof *m);
    m->magic = TMAP_MAGIC;
    m->dtype = (uint8_t)t;
    m->ebytes = dtypes[t].packed ? 0 : dtypes[t].bytes;
    m->ekind = dtypes[t].kind;
    m->nan_fill = is_float(t) && oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
    m->span = (uint8_t)swizzle_span(sw);
    m->atom = sw == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B || sw == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B ? 32
            : sw == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ? 64 : 16;
    m->rank = (uint8_t)rank;
    m->interleave = (uint8_t)il;
    m->swizzle = (uint8_t)sw;
    m->l2 = (uint8_t)l2;
    m->oob = (uint8_t)oob;
    m->addr = (uintptr_t)addr;
    for (unsigned i = 0; i < rank; i++) {
        m->dim[i] = dim[i];
        m->estride[i] = (uint8_t)estride[i];
        if (i + 1 < rank)
            m->stride[i] = stride[i];
    }
    return 0;
}

static void put_map(CUtensorMap *tensorMap, const struct tmap *m)
{
    unsigned char out[128];
    memset(out, 0, sizeof out);
    memcpy(out, m, sizeof *m);
    memcpy(tensorMap, out, sizeof out);
}

TD_EXPORT CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                                  cuuint32_t tensorRank, void *globalAddress,
                                                  const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                                  const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                                  CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                  CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill)
{
    EMU_INIT_OR_RETURN();
    if (!boxDim || (unsigned)tensorDataType >= sizeof dtypes / sizeof *dtypes)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t inner = (uint64_t)span_of(tensorDataType, boxDim[0]);
    struct tmap m;
    if (check_common(&m, tensorMap, tensorDataType, tensorRank, 1, globalAddress, globalDim, globalStrides,
                     elementStrides, interleave, swizzle, l2Promotion, oobFill, inner))
        return CUDA_ERROR_INVALID_VALUE;
    /* the box: 1 to 256 per dimension; its inner row a multiple of 16 bytes
     * without interleave; 128 values for the 16-byte packed types */
    for (unsigned i = 0; i < tensorRank; i++)
        if (!boxDim[i] || boxDim[i] > 256)
            return CUDA_ERROR_INVALID_VALUE;
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && inner % 16)
        return CUDA_ERROR_INVALID_VALUE;
    if (align16_packed(tensorDataType) && boxDim[0] != 128)
        return CUDA_ERROR_INVALID_VALUE;
    m.kind = TMAP_TILED;
    for (unsigned i = 0; i < tensorRank; i++)
        m.box[i] = (uint16_t)boxDim[i];
    put_map(tensorMap, &m);
    return CUDA_SUCCESS;
}

/* The pixel box's corners, {D, H, W} for rank 5, {H, W} for 4, {W} for 3:
 * their ranges shrink with the rank, and the box they cut from the spatial
 * dimensions is not empty */
TD_EXPORT CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                                   cuuint32_t tensorRank, void *globalAddress,
                                                   const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                                   const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
                                                   cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                                   const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                                   CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                                   CUtensorMapFloatOOBfill oobFill)
{
    EMU_INIT_OR_RETURN();
    if ((unsigned)tensorDataType >= sizeof dtypes / sizeof *dtypes)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t inner = (uint64_t)span_of(tensorDataType, channelsPerPixel);
    struct tmap m;
    if (check_common(&m, tensorMap, tensorDataType, tensorRank, 3, globalAddress, globalDim, globalStrides,
                     elementStrides, interleave, swizzle, l2Promotion, oobFill, inner))
        return CUDA_ERROR_INVALID_VALUE;
    if (!pixelBoxLowerCorner || !pixelBoxUpperCorner || !channelsPerPixel || channelsPerPixel > 256 ||
        !pixelsPerColumn || pixelsPerColumn > 1024 || (align16_packed(tensorDataType) && channelsPerPixel != 128))
        return CUDA_ERROR_INVALID_VALUE;
    unsigned ns = tensorRank - 2;                         /* spatial dimensions */
    int lim = tensorRank == 3 ? 32768 : tensorRank == 4 ? 128 : 16; /* [-lim, lim - 1] */
    for (unsigned i = 0; i < ns; i++) {
        int lo = pixelBoxLowerCorner[i], hi = pixelBoxUpperCorner[i];
        if (lo < -lim || lo > lim - 1 || hi < -lim || hi > lim - 1)
            return CUDA_ERROR_INVALID_VALUE;
        /* corner i is of dimension ns - i (dimension 0 is the channels) */
        if ((long long)globalDim[ns - i] + hi - lo < 1)
            return CUDA_ERROR_INVALID_VALUE;
        m.lower[i] = (int16_t)lo;
        m.upper[i] = (int16_t)hi;
    }
    m.kind = TMAP_IM2COL;
    m.channels = (uint16_t)channelsPerPixel;
    m.pixels = (uint16_t)pixelsPerColumn;
    put_map(tensorMap, &m);
    return CUDA_SUCCESS;
}

/* Im2colWide (compute capability 10.0 and later, on the current context's
 * device): the pixel box along W only, swizzles of 64 or 128 bytes (and
 * 128B_ATOM_32B), W or W128 mode (W128: pixelsPerColumn ignored). */
TD_EXPORT CUresult CUDAAPI cuTensorMapEncodeIm2colWide(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                                       cuuint32_t tensorRank, void *globalAddress,
                                                       const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                                       int pixelBoxLowerCornerWidth, int pixelBoxUpperCornerWidth,
                                                       cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                                       const cuuint32_t *elementStrides,
                                                       CUtensorMapInterleave interleave, CUtensorMapIm2ColWideMode mode,
                                                       CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                                       CUtensorMapFloatOOBfill oobFill)
{
    EMU_INIT_OR_RETURN();
    struct emu_ctx *c;
    CUresult r = emu_ctx_query(&c);
    if (r)
        return r;
    int major = emu_device_attr_or(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    emu_ctx_put(c);
    if (major < 10)
        return CUDA_ERROR_NOT_SUPPORTED; /* "only supported on devices of compute capability 10.0 or higher" */
    if ((unsigned)tensorDataType >= sizeof dtypes / sizeof *dtypes)
        return CUDA_ERROR_INVALID_VALUE;
    if (swizzle != CU_TENSOR_MAP_SWIZZLE_64B && swizzle != CU_TENSOR_MAP_SWIZZLE_128B &&
        swizzle != CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)
        return CUDA_ERROR_INVALID_VALUE;
    if (mode != CU_TENSOR_MAP_IM2COL_WIDE_MODE_W && mode != CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t inner = (uint64_t)span_of(tensorDataType, channelsPerPixel);
    struct tmap m;
    if (check_common(&m, tensorMap, tensorDataType, tensorRank, 3, globalAddress, globalDim, globalStrides,
                     elementStrides, interleave, swizzle, l2Promotion, oobFill, inner))
        return CUDA_ERROR_INVALID_VALUE;
    if (!channelsPerPixel || channelsPerPixel > 256 || (align16_packed(tensorDataType) && channelsPerPixel != 128))
        return CUDA_ERROR_INVALID_VALUE;
    if (mode == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W && (!pixelsPerColumn || pixelsPerColumn > 1024))
        return CUDA_ERROR_INVALID_VALUE;
    int lo = pixelBoxLowerCornerWidth, hi = pixelBoxUpperCornerWidth;
    if (lo < -32768 || lo > 32767 || hi < -32768 || hi > 32767 || (long long)globalDim[1] + hi - lo < 1)
        return CUDA_ERROR_INVALID_VALUE; /* W is dimension 1: a box of no pixel */
    m.kind = TMAP_IM2COL_WIDE;
    m.lower[0] = (int16_t)lo;
    m.upper[0] = (int16_t)hi;
    m.channels = (uint16_t)channelsPerPixel;
    m.pixels = (uint16_t)(mode == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 ? 128 : pixelsPerColumn);
    put_map(tensorMap, &m);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress)
{
    EMU_INIT_OR_RETURN();
    if (!tensorMap || (uintptr_t)tensorMap % 64 || !globalAddress)
        return CUDA_ERROR_INVALID_VALUE;
    struct tmap m;
    memcpy(&m, tensorMap, sizeof m);
    if (m.magic != TMAP_MAGIC || (m.kind < TMAP_TILED || m.kind > TMAP_IM2COL_WIDE) || m.dtype >= sizeof dtypes / sizeof *dtypes)
        return CUDA_ERROR_INVALID_VALUE; /* not a map the emulator made */
    if (!addr_ok((uintptr_t)globalAddress, (CUtensorMapInterleave)m.interleave, (CUtensorMapDataType)m.dtype))
        return CUDA_ERROR_INVALID_VALUE;
    m.addr = (uintptr_t)globalAddress;
    memcpy(tensorMap, &m, sizeof m);
    return CUDA_SUCCESS;
}
