/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: tensor maps. cuTensorMapEncodeTiled takes what the CUDA Driver
 * API documents and refuses the rest with CUDA_ERROR_INVALID_VALUE (map
 * alignment, types, rank, address alignment, dimensions, strides, box,
 * element strides, the inner box row, swizzle span, NaN fill); the map it
 * writes is the one cuTensorMapReplaceAddress accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define BAD(x) assert_int_equal((x), CUDA_ERROR_INVALID_VALUE)

static _Alignas(64) unsigned char mapbuf[2][128];
static _Alignas(32) float data[64 * 64];

static CUresult tiled(CUtensorMap *m, CUtensorMapDataType t, unsigned rank, void *a, const cuuint64_t *dim,
                      const cuuint64_t *stride, const cuuint32_t *box, const cuuint32_t *es, CUtensorMapInterleave il,
                      CUtensorMapSwizzle sw, CUtensorMapFloatOOBfill oob)
{
    return cuTensorMapEncodeTiled(m, t, rank, a, dim, stride, box, es, il, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, oob);
}

static void test_tiled(void **state)
{
    (void)state;
    OK(cuInit(0));
    CUtensorMap *m = (CUtensorMap *)mapbuf[0];
    const cuuint64_t dim[2] = { 64, 64 }, stride[1] = { 64 * 4 };
    const cuuint32_t box[2] = { 32, 16 }, es[2] = { 1, 1 };
    const CUtensorMapDataType F = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const CUtensorMapInterleave N = CU_TENSOR_MAP_INTERLEAVE_NONE;
    OK(tiled(m, F, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* 16 floats a row fit the 64-byte swizzle, 32 do not */
    const cuuint32_t box16[2] = { 16, 16 };
    OK(tiled(m, F, 2, data, dim, stride, box16, es, N, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    OK(tiled(m, F, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
    /* the map: 64-byte aligned, not NULL */
    BAD(tiled((CUtensorMap *)(mapbuf[0] + 16), F, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(NULL, F, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* types and enums */
    BAD(tiled(m, (CUtensorMapDataType)16, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, (CUtensorMapDataType)-1, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es, (CUtensorMapInterleave)3, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es, N, (CUtensorMapSwizzle)7, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* NaN fill needs a floating-point type */
    BAD(tiled(m, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA));
    /* rank: 1..5, 3..5 interleaved */
    BAD(tiled(m, F, 0, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 6, data, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const cuuint64_t one[1] = { 64 };
    const cuuint32_t box1[1] = { 4 }, es1[1] = { 1 };
    OK(tiled(m, F, 1, data, one, NULL, box1, es1, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* the address: 16-byte aligned, 32 with 32-byte interleave */
    BAD(tiled(m, F, 2, (char *)data + 8, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, NULL, dim, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const cuuint64_t dim3[3] = { 8, 8, 8 }, stride3[2] = { 64, 512 };
    const cuuint32_t box3[3] = { 8, 8, 8 }, es3[3] = { 1, 1, 1 };
    OK(tiled(m, F, 3, (char *)data + 32, dim3, stride3, box3, es3, CU_TENSOR_MAP_INTERLEAVE_32B,
             CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 3, (char *)data + 16, dim3, stride3, box3, es3, CU_TENSOR_MAP_INTERLEAVE_32B,
              CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const cuuint64_t stride3b[2] = { 48, 480 }; /* multiples of 16, not of 32 */
    const cuuint64_t dim3b[3] = { 8, 10, 8 };
    BAD(tiled(m, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, data, dim3b, stride3b, box3, es3, CU_TENSOR_MAP_INTERLEAVE_32B,
              CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* dimensions: 1..2^32; box 1..256; element strides 1..8 */
    const cuuint64_t dim0[2] = { 0, 64 }, dimbig[2] = { 64, (1ull << 32) + 1 };
    BAD(tiled(m, F, 2, data, dim0, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dimbig, stride, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const cuuint32_t box0[2] = { 32, 0 }, box257[2] = { 32, 257 }, es0[2] = { 1, 0 }, es9[2] = { 9, 1 };
    BAD(tiled(m, F, 2, data, dim, stride, box0, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box257, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es0, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, stride, box, es9, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* the inner box row: 3 floats are 12 bytes, not a multiple of 16 */
    const cuuint32_t box3f[2] = { 3, 16 };
    BAD(tiled(m, F, 2, data, dim, stride, box3f, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* strides: multiples of 16, below 2^40, holding the dimension before */
    const cuuint64_t s8[1] = { 8 }, sshort[1] = { 128 }, shuge[1] = { 1ull << 40 };
    BAD(tiled(m, F, 2, data, dim, s8, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, sshort, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, shuge, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, F, 2, data, dim, NULL, box, es, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    const cuuint64_t s3short[2] = { 64, 256 }; /* dimension 1 (8 rows of 64 bytes) needs 512 */
    BAD(tiled(m, F, 3, data, dim3, s3short, box3, es3, N, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

static void test_replace(void **state)
{
    (void)state;
    OK(cuInit(0));
    CUtensorMap *m = (CUtensorMap *)mapbuf[1];
    const cuuint64_t dim[2] = { 64, 64 }, stride[1] = { 64 * 4 };
    const cuuint32_t box[2] = { 32, 16 }, es[2] = { 1, 1 };
    OK(cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, data, dim, stride, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    unsigned char before[128];
    memcpy(before, m, 128);
    OK(cuTensorMapReplaceAddress(m, data + 16));
    assert_memory_not_equal(before, m, 128);
    BAD(cuTensorMapReplaceAddress(m, data + 1));    /* 4 bytes off */
    BAD(cuTensorMapReplaceAddress(m, NULL));
    BAD(cuTensorMapReplaceAddress((CUtensorMap *)(mapbuf[1] + 8), data));
    /* bytes no encode made */
    static _Alignas(64) unsigned char junk[128];
    memset(junk, 0x5a, sizeof junk);
    BAD(cuTensorMapReplaceAddress((CUtensorMap *)junk, data));
    OK(cuTensorMapReplaceAddress(m, data));
    assert_memory_equal(before, m, 128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled),
        cmocka_unit_test(test_replace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
