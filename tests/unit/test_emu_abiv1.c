/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: the entry points old binaries link against: the v1 ABI
 * (32-bit CUdeviceptr, unsigned int sizes) and the pre-4.0 launch API
 * (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    return cuInit(0) || cuCtxCreate(&ctx, 0, 0) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy(ctx) ? -1 : 0;
}

/* the v1 struct, as old binaries lay it out */
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

static void test_v1_memory(void **state)
{
    (void)state;
    /* allocations fit the 32-bit pointer, and work with both ABIs */
    CUdeviceptr_v1 d = 0, d2 = 0;
    OK(cuMemAlloc(&d, 1 << 20));
    assert_true(d != 0);
    OK(cuMemAlloc(&d2, 100));
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)(i * 7 + 1);
    OK(cuMemcpyHtoD(d, in, sizeof in));
    OK(cuMemcpyDtoD(d + 256, d, sizeof in));
    OK(cuMemcpyDtoH_v2(out, (CUdeviceptr)d + 256, sizeof out));
    assert_memory_equal(in, out, sizeof in);
    OK(cuMemsetD8(d2, 0xab, 100));
    OK(cuMemcpyDtoH(out, d2, 100));
    for (int i = 0; i < 100; i++)
        assert_int_equal(out[i], 0xab);
    OK(cuMemsetD32(d, 0x01020304, 4));
    OK(cuMemsetD16(d + 16, 0x0506, 2));
    unsigned v[5];
    OK(cuMemcpyDtoH(v, d, 20));
    assert_int_equal(v[0], 0x01020304);
    assert_int_equal(v[4], 0x05060506);
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuMemcpyHtoDAsync(d, in, 64, s));
    OK(cuMemcpyDtoDAsync(d + 512, d, 64, s));
    OK(cuMemcpyDtoHAsync(out, d + 512, 64, s));
    OK(cuStreamSynchronize(s));
    assert_memory_equal(in, out, 64);
    OK(cuStreamDestroy(s));

    /* the base and size of an allocation */
    CUdeviceptr_v1 base;
    unsigned size;
    OK(cuMemGetAddressRange(&base, &size, d + 100));
    assert_int_equal(base, d);
    assert_int_equal(size, 1 << 20);

    /* pitched, and a 2-D copy through the v1 struct */
    CUdeviceptr_v1 pd;
    unsigned pitch;
    OK(cuMemAllocPitch(&pd, &pitch, 100, 8, 4));
    assert_true(pitch >= 100 && pitch % 4 == 0);
    OK(cuMemsetD2D8(pd, pitch, 0x11, 100, 8));
    unsigned char img[8][100];
    struct memcpy2d_v1 c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = pd;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = img;
    c.dstPitch = 100;
    c.WidthInBytes = 100;
    c.Height = 8;
    OK(cuMemcpy2D((const CUDA_MEMCPY2D_v1 *)&c));
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 100; x++)
            assert_int_equal(img[y][x], 0x11);
    assert_int_equal(cuMemAllocPitch(&pd, &pitch, 100, 8, 3), CUDA_ERROR_INVALID_VALUE);

    /* sizes saturate: an unsigned int cannot count 80 GB */
    unsigned fr = 0, tot = 0;
    OK(cuMemGetInfo(&fr, &tot));
    assert_int_equal(tot, 0xffffffffu);

    /* an address above 4 GiB cannot be handed to a v1 caller */
    CUdeviceptr big;
    OK(cuMemAlloc_v2(&big, 64));
    if (big > 0xffffffffu) {
        OK(cuMemGetAddressRange_v2(NULL, NULL, big));
        void *h;
        OK(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP));
        CUdeviceptr_v1 hd;
        if ((uintptr_t)h > 0xffffffffu)
            assert_int_equal(cuMemHostGetDevicePointer(&hd, h, 0), CUDA_ERROR_NOT_SUPPORTED);
        OK(cuMemFreeHost(h));
    }
    OK(cuMemFree_v2(big));

    /* bad input */
    assert_int_equal(cuMemAlloc(&d2, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemFree(12345), CUDA_ERROR_INVALID_VALUE);
    /* an address no allocation holds (a megabyte past d could be another
     * v1 allocation's, placed there below 4 GiB: the layout decides) */
    assert_int_equal(cuMemcpyHtoD(0x1000, in, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));
    OK(cuMemFree(d2));
    OK(cuMemFree(pd));
    assert_int_equal(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
}

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 gcount;\n"
    ".visible .entry scale(.param .u64 p, .param .f32 k, .param .u32 n)\n"
    "{\n"
    "  .reg .u64 %rd<4>;\n  .reg .u32 %r<6>;\n  .reg .f32 %f<3>;\n  .reg .pred %q;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.f32 %f1, [k];\n  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
    "  mad.lo.u32 %r5, %r3, %r4, %r2;\n  setp.ge.u32 %q, %r5, %r1;\n  @%q ret;\n"
    "  mul.wide.u32 %rd2, %r5, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
    "  cvt.rn.f32.u32 %f2, %r5;\n  mul.f32 %f2, %f2, %f1;\n  st.global.f32 [%rd3], %f2;\n  ret;\n"
    "}\n";

/* the pre-4.0 launch API: block shape and parameters set one by one */
static void test_legacy_launch(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction f;
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&f, m, "scale"));
    CUdeviceptr_v1 d;
    OK(cuMemAlloc(&d, 100 * 4));
    uint64_t p = d;
    OK(cuFuncSetBlockShape(f, 32, 1, 1));
    OK(cuParamSetv(f, 0, &p, 8));
    OK(cuParamSetf(f, 8, 2.5f));
    OK(cuParamSeti(f, 12, 100));
    OK(cuParamSetSize(f, 16));
    OK(cuFuncSetSharedSize(f, 0));
    OK(cuLaunchGrid(f, 4, 1)); /* 128 threads for 100 elements */
    float r[100];
    OK(cuMemcpyDtoH(r, d, sizeof r));
    for (int i = 0; i < 100; i++)
        assert_true(r[i] == 2.5f * (float)i);
    /* asynchronously on a stream, and cuLaunch (a 1x1 grid) */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuParamSetf(f, 8, -1.0f));
    OK(cuLaunchGridAsync(f, 4, 1, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(r, d, sizeof r));
    assert_true(r[99] == -99.0f);
    OK(cuParamSetf(f, 8, 3.0f));
    OK(cuLaunch(f)); /* one block of 32 */
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(r, d, sizeof r));
    assert_true(r[31] == 93.0f && r[32] == -32.0f);
    OK(cuStreamDestroy(s));

    /* bad input: checked where the driver checks it */
    assert_int_equal(cuFuncSetBlockShape(f, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetBlockShape(f, 2048, 1, 1), CUDA_SUCCESS);
    assert_int_equal(cuLaunchGrid(f, 1, 1), CUDA_ERROR_INVALID_VALUE); /* 2048 threads */
    OK(cuFuncSetBlockShape(f, 32, 1, 1));
    assert_int_equal(cuLaunchGrid(f, 0, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetv(f, 4090, &p, 8), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetv(f, -1, &p, 8), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetv(f, 0, NULL, 8), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuParamSetSize(f, 4097), CUDA_ERROR_INVALID_VALUE);
    OK(cuParamSetSize(f, 8)); /* less than the kernel takes */
    assert_int_equal(cuLaunchGrid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncSetSharedSize(f, 1u << 20));
    OK(cuParamSetSize(f, 16));
    assert_int_equal(cuLaunchGrid(f, 1, 1), CUDA_ERROR_INVALID_VALUE); /* too much shared memory */
    assert_int_equal(cuParamSeti((CUfunction)&p, 0, 1), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunch((CUfunction)&p), CUDA_ERROR_INVALID_HANDLE);

    /* a module variable through the v1 ABI, if it lies below 4 GiB */
    CUdeviceptr g;
    OK(cuModuleGetGlobal_v2(&g, NULL, m, "gcount"));
    CUdeviceptr_v1 g32;
    unsigned gsize;
    assert_int_equal(cuModuleGetGlobal(&g32, &gsize, m, "gcount"),
                     g <= 0xffffffffu ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED);
    assert_int_equal(cuModuleGetGlobal(&g32, &gsize, m, "none"), CUDA_ERROR_NOT_FOUND);
    OK(cuMemFree(d));
    OK(cuModuleUnload(m));
    assert_int_equal(cuLaunch(f), CUDA_ERROR_INVALID_HANDLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v1_memory),
        cmocka_unit_test(test_legacy_launch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
