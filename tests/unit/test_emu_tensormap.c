/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: tensor maps. cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col
 * take what the CUDA Driver API documents and refuse the rest with
 * CUDA_ERROR_INVALID_VALUE (map
 * alignment, types, rank, address alignment, dimensions, strides, box,
 * element strides, the inner box row, swizzle span, NaN fill); the map it
 * writes is the one cuTensorMapReplaceAddress accepts.
 * cuTensorMapEncodeIm2colWide needs a current context on a device of
 * compute capability 10.0 or later: the tests run on the b200 profile, and
 * a child process on h100 finds CUDA_ERROR_NOT_SUPPORTED. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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
    /* 32-byte interleave swizzles 32 bytes, nothing else */
    BAD(tiled(m, F, 3, (char *)data + 32, dim3, stride3, box3, es3, CU_TENSOR_MAP_INTERLEAVE_32B,
              CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    /* a 16-byte packed type: dimension 0 and box 0 count values, 128 of them */
    const CUtensorMapDataType P = CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B;
    const cuuint64_t pdim[2] = { 256, 4 }, pstride[1] = { 256 }, pdim_bad[2] = { 200, 4 };
    const cuuint32_t pbox[2] = { 128, 4 }, pbox_bad[2] = { 64, 4 };
    OK(tiled(m, P, 2, (char *)data + 32, pdim, pstride, pbox, es, N, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, P, 2, (char *)data + 32, pdim, pstride, pbox_bad, es, N, CU_TENSOR_MAP_SWIZZLE_128B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, P, 2, (char *)data + 32, pdim_bad, pstride, pbox, es, N, CU_TENSOR_MAP_SWIZZLE_128B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    BAD(tiled(m, P, 2, (char *)data + 16, pdim, pstride, pbox, es, N, CU_TENSOR_MAP_SWIZZLE_128B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)); /* 32-byte aligned */
    BAD(tiled(m, P, 2, (char *)data + 32, pdim, pstride, pbox, es, N, CU_TENSOR_MAP_SWIZZLE_64B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)); /* not one of its swizzles */
}

static CUresult im2col(CUtensorMap *m, unsigned rank, const cuuint64_t *dim, const cuuint64_t *stride, const int *lo,
                       const int *hi, unsigned ch, unsigned px, CUtensorMapSwizzle sw)
{
    static const cuuint32_t es[5] = { 1, 1, 1, 1, 1 };
    return cuTensorMapEncodeIm2col(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, data, dim, stride, lo, hi, ch, px, es,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* im2col: NHWC, dimensions {C, W, H, N}; the pixel box's corners {H, W} */
static void test_im2col(void **state)
{
    (void)state;
    OK(cuInit(0));
    CUtensorMap *m = (CUtensorMap *)mapbuf[0];
    const cuuint64_t dim[4] = { 16, 8, 8, 2 }, stride[3] = { 64, 512, 4096 };
    const int lo[2] = { -1, -1 }, hi[2] = { -1, -1 };
    const CUtensorMapSwizzle S0 = CU_TENSOR_MAP_SWIZZLE_NONE;
    OK(im2col(m, 4, dim, stride, lo, hi, 16, 64, S0));
    OK(im2col(m, 4, dim, stride, lo, hi, 16, 64, CU_TENSOR_MAP_SWIZZLE_64B)); /* 16 floats: 64 bytes */
    BAD(im2col(m, 4, dim, stride, lo, hi, 16, 64, CU_TENSOR_MAP_SWIZZLE_32B));
    BAD(im2col(m, 2, dim, stride, lo, hi, 16, 64, S0)); /* rank 3 to 5 */
    BAD(im2col(m, 4, dim, stride, lo, hi, 0, 64, S0));
    BAD(im2col(m, 4, dim, stride, lo, hi, 257, 64, S0));
    BAD(im2col(m, 4, dim, stride, lo, hi, 16, 0, S0));
    BAD(im2col(m, 4, dim, stride, lo, hi, 16, 1025, S0));
    BAD(im2col(m, 4, dim, stride, NULL, hi, 16, 64, S0));
    /* rank 4: corners in [-128, 127]; the box they cut is not empty */
    const int lo_far[2] = { -129, 0 }, lo_in[2] = { 0, 4 }, hi_in[2] = { 0, -4 };
    BAD(im2col(m, 4, dim, stride, lo_far, hi, 16, 64, S0));
    BAD(im2col(m, 4, dim, stride, lo_in, hi_in, 16, 64, S0)); /* W: 8 + (-4) - 4 = 0 */
    /* rank 5 ({D, H, W} in [-16, 15]) and rank 3 ({W} in [-32768, 32767]) */
    const cuuint64_t dim5[5] = { 16, 4, 4, 4, 1 }, stride5[4] = { 64, 256, 1024, 4096 };
    const int lo5[3] = { -16, 0, 0 }, hi5[3] = { 15, 0, 0 }, lo5bad[3] = { -17, 0, 0 };
    OK(im2col(m, 5, dim5, stride5, lo5, hi5, 16, 32, S0));
    BAD(im2col(m, 5, dim5, stride5, lo5bad, hi5, 16, 32, S0));
    const cuuint64_t dim3[3] = { 16, 64, 2 }, stride3[2] = { 64, 4096 };
    const int lo3[1] = { -1000 }, hi3[1] = { 1000 };
    OK(im2col(m, 3, dim3, stride3, lo3, hi3, 16, 128, S0));
    /* the map it wrote takes a new address */
    OK(cuTensorMapReplaceAddress(m, data + 4));
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

static CUresult wide(CUtensorMap *m, const cuuint64_t *dim, const cuuint64_t *stride, int lo, int hi,
                     unsigned channels, unsigned pixels, CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle sw)
{
    const cuuint32_t es[4] = { 1, 1, 1, 1 };
    return cuTensorMapEncodeIm2colWide(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, data, dim, stride, lo, hi, channels,
                                       pixels, es, CU_TENSOR_MAP_INTERLEAVE_NONE, mode, sw,
                                       CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

static void test_im2col_wide(void **state)
{
    (void)state;
    OK(cuInit(0));
    CUtensorMap *m = (CUtensorMap *)mapbuf[0];
    const cuuint64_t dim[4] = { 16, 8, 8, 2 }, stride[3] = { 64, 512, 4096 };
    const CUtensorMapIm2ColWideMode W = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, W128 = CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128;
    const CUtensorMapSwizzle S64 = CU_TENSOR_MAP_SWIZZLE_64B;
    assert_int_equal(wide(m, dim, stride, -1, -1, 16, 64, W, S64), CUDA_ERROR_INVALID_CONTEXT); /* no context */
    CUcontext ctx;
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(wide(m, dim, stride, -1, -1, 16, 64, W, S64));           /* 16 floats: the 64-byte span */
    OK(wide(m, dim, stride, -1, -1, 16, 0, W128, S64));          /* W128: pixelsPerColumn ignored */
    OK(wide(m, dim, stride, -1, -1, 32, 8, W, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B));
    BAD(wide(m, dim, stride, -1, -1, 16, 64, W, CU_TENSOR_MAP_SWIZZLE_NONE)); /* 64B, 128B, 128B_ATOM_32B only */
    BAD(wide(m, dim, stride, -1, -1, 16, 64, W, CU_TENSOR_MAP_SWIZZLE_32B));
    BAD(wide(m, dim, stride, -1, -1, 32, 64, W, S64));          /* 128 bytes a pixel: past the span */
    BAD(wide(m, dim, stride, -1, -1, 16, 0, W, S64));           /* W: 1 to 1024 pixels */
    BAD(wide(m, dim, stride, -1, -1, 16, 1025, W, S64));
    BAD(wide(m, dim, stride, -1, -1, 0, 64, W, S64));
    BAD(wide(m, dim, stride, -1, -1, 16, 64, (CUtensorMapIm2ColWideMode)2, S64));
    BAD(wide(m, dim, stride, -32769, 0, 16, 64, W, S64));       /* corners in [-32768, 32767] */
    BAD(wide(m, dim, stride, 4, -4, 16, 64, W, S64));            /* W: 8 + (-4) - 4 = 0 pixels */
    BAD(cuTensorMapEncodeIm2colWide(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, data, dim, stride, 0, 0, 16, 64,
                                    (const cuuint32_t[]){ 1, 1 }, CU_TENSOR_MAP_INTERLEAVE_NONE, W, S64,
                                    CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)); /* rank 3-5 */
    OK(wide(m, dim, stride, -1, -1, 16, 64, W, S64));
    OK(cuTensorMapReplaceAddress(m, data + 8));                  /* a wide map is a map */
    OK(cuCtxDestroy(ctx));
}

/* on a device below compute capability 10.0: CUDA_ERROR_NOT_SUPPORTED (a child, on h100) */
static int wide_on_h100(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TDTRACE_EMU_PROFILE", "h100", 1);
        CUcontext ctx;
        const cuuint64_t dim[4] = { 16, 8, 8, 2 }, stride[3] = { 64, 512, 4096 };
        if (cuInit(0) || cuCtxCreate(&ctx, 0, 0))
            _exit(2);
        _exit(wide((CUtensorMap *)mapbuf[0], dim, stride, -1, -1, 16, 64, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
                   CU_TENSOR_MAP_SWIZZLE_64B) == CUDA_ERROR_NOT_SUPPORTED ? 0 : 1);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(void)
{
    if (wide_on_h100()) {
        fprintf(stderr, "cuTensorMapEncodeIm2colWide on h100: not CUDA_ERROR_NOT_SUPPORTED\n");
        return 1;
    }
    setenv("TDTRACE_EMU_PROFILE", "b200", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_im2col),
        cmocka_unit_test(test_im2col_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
