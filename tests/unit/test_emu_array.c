/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: CUDA arrays (creation, descriptors, accounting, bad
 * descriptors and handles), mipmapped arrays, copies with arrays (1-D,
 * 2-D, 3-D, peer; out of range), texture and surface objects (resources,
 * descriptors given back, bad input), and the PTX that reads them: suld.b
 * and sust.b in each out-of-range mode, txq and suq, a destroyed object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy(ctx) ? -1 : 0;
}

static CUDA_ARRAY3D_DESCRIPTOR desc3(size_t w, size_t h, size_t d, CUarray_format f, unsigned nch, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR x = { w, h, d, f, nch, flags };
    return x;
}

static void test_create(void **state)
{
    (void)state;
    CUarray a;
    size_t fr0, fr, total;
    OK(cuMemGetInfo_v2(&fr0, &total));
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(100, 30, 7, CU_AD_FORMAT_HALF, 2, 0), back;
    OK(cuArray3DCreate_v2(&a, &d));
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_true(fr0 - fr >= 100 * 30 * 7 * 4);    /* accounted as device memory */
    OK(cuArray3DGetDescriptor_v2(&back, a));
    assert_true(back.Width == 100 && back.Height == 30 && back.Depth == 7 && back.Format == CU_AD_FORMAT_HALF &&
                back.NumChannels == 2 && back.Flags == 0);
    CUDA_ARRAY_DESCRIPTOR d2;
    OK(cuArrayGetDescriptor_v2(&d2, a));
    assert_int_equal(d2.Width, 100);
    assert_int_equal(d2.Height, 30);
    assert_int_equal(d2.NumChannels, 2);
    CUarray plane;
    assert_int_equal(cuArrayGetPlane(&plane, a, 0), CUDA_ERROR_INVALID_VALUE); /* not multi-planar */
    OK(cuArrayDestroy(a));
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_int_equal(fr, fr0);
    assert_int_equal(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuArray3DGetDescriptor_v2(&back, a), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuArrayDestroy((CUarray)&d), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    /* the 2-D form and the v1 ABI */
    CUDA_ARRAY_DESCRIPTOR a2 = { 16, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4 };
    OK(cuArrayCreate_v2(&a, &a2));
    OK(cuArray3DGetDescriptor_v2(&back, a));
    assert_int_equal(back.Height, 0);
    assert_int_equal(back.Depth, 0);
    OK(cuArrayDestroy(a));
    CUDA_ARRAY3D_DESCRIPTOR_v1 v1 = { 8, 8, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP };
    OK(cuArray3DCreate(&a, &v1));
    OK(cuArrayDestroy(a));
    /* layered, cubemap, layered cubemap, surface load/store */
    static const struct { size_t w, h, d; unsigned flags; } good[] = {
        { 64, 0, 3, CUDA_ARRAY3D_LAYERED }, { 64, 8, 3, CUDA_ARRAY3D_LAYERED },
        { 16, 16, 6, CUDA_ARRAY3D_CUBEMAP }, { 16, 16, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED },
        { 5, 5, 5, CUDA_ARRAY3D_SURFACE_LDST }, { 5, 0, 0, CUDA_ARRAY3D_TEXTURE_GATHER },
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        d = desc3(good[i].w, good[i].h, good[i].d, CU_AD_FORMAT_FLOAT, 1, good[i].flags);
        OK(cuArray3DCreate_v2(&a, &d));
        OK(cuArrayDestroy(a));
    }
}

static void test_bad_descriptors(void **state)
{
    (void)state;
    CUarray a = NULL;
    static const struct { size_t w, h, d; int f; unsigned nch, flags; CUresult want; } bad[] = {
        { 0, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0, CUDA_ERROR_INVALID_VALUE },           /* no width */
        { 4, 4, 0, 0, 1, 0, CUDA_ERROR_INVALID_VALUE },                             /* no format */
        { 4, 4, 0, CU_AD_FORMAT_NV12, 1, 0, CUDA_ERROR_INVALID_VALUE },             /* planar: not emulated */
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 3, 0, CUDA_ERROR_INVALID_VALUE },            /* 3 channels */
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 0, 0, CUDA_ERROR_INVALID_VALUE },
        { 4, 0, 4, CU_AD_FORMAT_FLOAT, 1, 0, CUDA_ERROR_INVALID_VALUE },            /* 3-D without height */
        { 4, 5, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE }, /* not square */
        { 4, 4, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE }, /* not 6 faces */
        { 4, 4, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP, CUDA_ERROR_INVALID_VALUE }, /* 12 without layered */
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED, CUDA_ERROR_INVALID_VALUE },  /* no layers */
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0x10000, CUDA_ERROR_INVALID_VALUE },     /* unknown flag */
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE, CUDA_ERROR_NOT_SUPPORTED },
        { 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_DEFERRED_MAPPING, CUDA_ERROR_NOT_SUPPORTED },
        { 1u << 20, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0, CUDA_ERROR_INVALID_VALUE },    /* past MAXIMUM_TEXTURE1D_WIDTH */
        { 20000, 20000, 20000, CU_AD_FORMAT_FLOAT, 4, 0, CUDA_ERROR_INVALID_VALUE }, /* past the 3-D limits */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CUDA_ARRAY3D_DESCRIPTOR d = desc3(bad[i].w, bad[i].h, bad[i].d, (CUarray_format)bad[i].f, bad[i].nch,
                                          bad[i].flags);
        assert_int_equal(cuArray3DCreate_v2(&a, &d), bad[i].want);
    }
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    assert_int_equal(cuArray3DCreate_v2(NULL, &d), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuArray3DCreate_v2(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    /* more than the device has */
    d = desc3(16384, 16384, 16384, CU_AD_FORMAT_FLOAT, 4, 0);
    assert_int_equal(cuArray3DCreate_v2(&a, &d), CUDA_ERROR_OUT_OF_MEMORY);
}

static void test_mipmap(void **state)
{
    (void)state;
    CUmipmappedArray m;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(64, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0), ld;
    assert_int_equal(cuMipmappedArrayCreate(&m, &d, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMipmappedArrayCreate(&m, &d, 8), CUDA_ERROR_INVALID_VALUE); /* 64 has 7 levels */
    OK(cuMipmappedArrayCreate(&m, &d, 7));
    CUarray l;
    for (unsigned i = 0; i < 7; i++) {
        OK(cuMipmappedArrayGetLevel(&l, m, i));
        OK(cuArray3DGetDescriptor_v2(&ld, l));
        assert_int_equal(ld.Width, 64 >> i);
        assert_int_equal(ld.Height, (16 >> i) ? (16 >> i) : 1);
    }
    assert_int_equal(cuMipmappedArrayGetLevel(&l, m, 7), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuArrayDestroy(l), CUDA_ERROR_INVALID_HANDLE); /* its mipmapped array owns it */
    OK(cuMipmappedArrayDestroy(m));
    assert_int_equal(cuArray3DGetDescriptor_v2(&ld, l), CUDA_ERROR_INVALID_HANDLE); /* gone with it */
    assert_int_equal(cuMipmappedArrayDestroy(m), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuMipmappedArrayGetLevel(&l, (CUmipmappedArray)&d, 0), CUDA_ERROR_INVALID_HANDLE);
}

static void test_copies(void **state)
{
    (void)state;
    enum { W = 10, H = 6, D = 4 };
    CUarray a, b;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(W, H, D, CU_AD_FORMAT_SIGNED_INT32, 1, 0);
    OK(cuArray3DCreate_v2(&a, &d));
    OK(cuArray3DCreate_v2(&b, &d));
    static int src[D][H][W], dst[D][H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) src[z][y][x] = z * 10000 + y * 100 + x;
    /* host -> array (whole), array -> array (1-D bytes), array -> host of a box */
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = src;
    p.srcPitch = W * 4;
    p.srcHeight = H;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    p.dstArray = a;
    p.WidthInBytes = W * 4;
    p.Height = H;
    p.Depth = D;
    OK(cuMemcpy3D_v2(&p));
    OK(cuMemcpyAtoA_v2(b, 0, a, 0, sizeof src));
    memset(dst, 0xff, sizeof dst);
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    p.srcArray = b;
    p.srcXInBytes = 2 * 4, p.srcY = 1, p.srcZ = 1;
    p.dstMemoryType = CU_MEMORYTYPE_HOST;
    p.dstHost = dst;
    p.dstPitch = W * 4;
    p.dstHeight = H;
    p.WidthInBytes = 5 * 4, p.Height = 4, p.Depth = 3;
    OK(cuMemcpy3D_v2(&p));
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 5; x++) assert_int_equal(dst[z][y][x], src[z + 1][y + 1][x + 2]);
    assert_int_equal(dst[0][0][5], -1); /* nothing past the box */
    /* out of range in each dimension; a bad array; a bad type */
    p.srcXInBytes = 6 * 4;
    assert_int_equal(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.srcXInBytes = 0, p.srcY = 3;
    assert_int_equal(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.srcY = 0, p.srcZ = 2;
    assert_int_equal(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_VALUE);
    p.srcZ = 0;
    p.srcArray = (CUarray)&p;
    assert_int_equal(cuMemcpy3D_v2(&p), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuMemcpy3D_v2(NULL), CUDA_ERROR_INVALID_VALUE);
    /* 1-D forms: bytes into the array */
    int v[3] = { 7, 8, 9 }, w[3];
    OK(cuMemcpyHtoA_v2(a, 4 * 4, v, sizeof v));
    OK(cuMemcpyAtoH_v2(w, a, 4 * 4, sizeof w));
    assert_memory_equal(v, w, sizeof v);
    assert_int_equal(cuMemcpyAtoH_v2(w, a, sizeof src - 8, sizeof w), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoA_v2(NULL, 0, v, sizeof v), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr dp;
    OK(cuMemAlloc_v2(&dp, sizeof v));
    OK(cuMemcpyAtoD_v2(dp, a, 4 * 4, sizeof v));
    OK(cuMemcpyDtoA_v2(b, 0, dp, sizeof v));
    OK(cuMemcpyAtoH_v2(w, b, 0, sizeof w));
    assert_memory_equal(v, w, sizeof v);
    /* 2-D from an array on a stream; 3-D peer between (one) context's memory */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    CUDA_MEMCPY2D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    q.srcArray = a;
    q.dstMemoryType = CU_MEMORYTYPE_HOST;
    q.dstHost = dst;
    q.dstPitch = W * 4;
    q.WidthInBytes = W * 4;
    q.Height = H;
    OK(cuMemcpy2DAsync_v2(&q, s));
    OK(cuStreamSynchronize(s));
    assert_int_equal(dst[0][0][4], 7);  /* HtoA wrote elements 4-6 of row 0 */
    assert_int_equal(dst[0][0][6], 9);
    assert_int_equal(dst[0][1][0], 100);
    q.Height = H + 1;
    assert_int_equal(cuMemcpy2D_v2(&q), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY3D_PEER pp;
    memset(&pp, 0, sizeof pp);
    pp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    pp.srcArray = a;
    pp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    pp.dstDevice = dp;
    pp.dstContext = ctx;
    pp.dstPitch = sizeof v;
    pp.dstHeight = 1;
    pp.WidthInBytes = sizeof v;
    pp.Height = pp.Depth = 1;
    OK(cuMemcpy3DPeer(&pp));
    pp.dstContext = (CUcontext)&pp;
    assert_int_equal(cuMemcpy3DPeer(&pp), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFree_v2(dp));
    OK(cuArrayDestroy(a));
    OK(cuArrayDestroy(b));
}

static void test_objects(void **state)
{
    (void)state;
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    OK(cuArray3DCreate_v2(&a, &d));
    CUDA_RESOURCE_DESC rd, rback;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUDA_TEXTURE_DESC td, tback;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = CU_TR_ADDRESS_MODE_MIRROR;
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    OK(cuTexObjectGetResourceDesc(&rback, t));
    assert_memory_equal(&rback, &rd, sizeof rd);
    OK(cuTexObjectGetTextureDesc(&tback, t));
    assert_memory_equal(&tback, &td, sizeof td);
    CUDA_RESOURCE_VIEW_DESC vd;
    assert_int_equal(cuTexObjectGetResourceViewDesc(&vd, t), CUDA_ERROR_INVALID_VALUE); /* made without one */
    OK(cuTexObjectDestroy(t));
    assert_int_equal(cuTexObjectDestroy(t), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuTexObjectGetTextureDesc(&tback, t), CUDA_ERROR_INVALID_VALUE);
    /* a whole-resource view is taken; one that reinterprets is not emulated */
    memset(&vd, 0, sizeof vd);
    vd.width = 8;
    OK(cuTexObjectCreate(&t, &rd, &td, &vd));
    OK(cuTexObjectDestroy(t));
    vd.format = CU_RES_VIEW_FORMAT_UINT_1X32;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, &vd), CUDA_ERROR_NOT_SUPPORTED);
    /* bad sampler, sRGB, flags in the resource */
    td.addressMode[1] = (CUaddress_mode)7;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.flags = 0x80;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    td.flags = CU_TRSF_SRGB;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
    td.flags = 0;
    rd.flags = 1;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.flags = 0;
    assert_int_equal(cuTexObjectCreate(&t, &rd, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuTexObjectCreate(NULL, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.resType = (CUresourcetype)9;
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    /* linear and pitched memory: alignment, sizes, bounds */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4096));
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_LINEAR;
    rd.res.linear.devPtr = p;
    rd.res.linear.format = CU_AD_FORMAT_FLOAT;
    rd.res.linear.numChannels = 1;
    rd.res.linear.sizeInBytes = 4096;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    OK(cuTexObjectDestroy(t));
    rd.res.linear.sizeInBytes = 4098;      /* not whole elements, and past the allocation */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.linear.sizeInBytes = 8192;      /* past the allocation */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.linear.sizeInBytes = 1024;
    rd.res.linear.devPtr = p + 4;          /* not TEXTURE_ALIGNMENT aligned */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = p;
    rd.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    rd.res.pitch2D.numChannels = 4;
    rd.res.pitch2D.width = 16;
    rd.res.pitch2D.height = 16;
    rd.res.pitch2D.pitchInBytes = 64;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    OK(cuTexObjectDestroy(t));
    rd.res.pitch2D.pitchInBytes = 72;      /* not TEXTURE_PITCH_ALIGNMENT */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.pitch2D.pitchInBytes = 32;      /* narrower than a row */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.pitch2D.pitchInBytes = 64;
    rd.res.pitch2D.height = 65;            /* past the allocation */
    assert_int_equal(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    /* surfaces: arrays made for load/store only */
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUsurfObject s;
    assert_int_equal(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
    rd.resType = CU_RESOURCE_TYPE_LINEAR;
    assert_int_equal(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuSurfObjectDestroy(12345), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(p));
    OK(cuArrayDestroy(a));
}

/* the v1 ABI: 32-bit descriptors and copies */
static void test_v1(void **state)
{
    (void)state;
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR_v1 d1 = { 6, 3, CU_AD_FORMAT_UNSIGNED_INT16, 2 }, b1;
    OK(cuArrayCreate(&a, &d1));
    OK(cuArrayGetDescriptor(&b1, a));
    assert_true(b1.Width == 6 && b1.Height == 3 && b1.Format == CU_AD_FORMAT_UNSIGNED_INT16 && b1.NumChannels == 2);
    CUDA_ARRAY3D_DESCRIPTOR_v1 d3;
    OK(cuArray3DGetDescriptor(&d3, a));
    assert_true(d3.Width == 6 && d3.Depth == 0);
    unsigned short in[3][6][2], out[3][6][2];
    for (unsigned i = 0; i < sizeof in / 2; i++) ((unsigned short *)in)[i] = (unsigned short)(i * 3);
    CUDA_MEMCPY3D_v1 p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = in;
    p.srcPitch = 24;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    p.dstArray = a;
    p.WidthInBytes = 24, p.Height = 3, p.Depth = 1;
    OK(cuMemcpy3D(&p));
    OK(cuMemcpyAtoH(out, a, 0, sizeof out));
    assert_memory_equal(in, out, sizeof in);
    p.Height = 4;
    assert_int_equal(cuMemcpy3D(&p), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(a));
}

static void test_batch(void **state)
{
    (void)state;
    CUstream st;
    OK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    CUdeviceptr a, b;
    OK(cuMemAlloc_v2(&a, 256));
    OK(cuMemAlloc_v2(&b, 256));
    unsigned char h1[64], h2[64], out[64];
    for (int i = 0; i < 64; i++) h1[i] = (unsigned char)i, h2[i] = (unsigned char)(200 - i);
    CUdeviceptr dsts[3] = { a, b, (CUdeviceptr)(uintptr_t)out }, srcs[3] = { (CUdeviceptr)(uintptr_t)h1,
                                                                            (CUdeviceptr)(uintptr_t)h2, a };
    size_t sizes[3] = { 64, 64, 64 }, idxs[2] = { 0, 2 }, fail = 0;
    CUmemcpyAttributes at[2];
    memset(at, 0, sizeof at);
    at[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
    at[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    /* the second set reads a, which the first wrote: a second batch, in stream order */
    OK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, at, idxs, 1, st));
    OK(cuMemcpyBatchAsync_v2(dsts + 2, srcs + 2, sizes + 2, 1, at + 1, idxs, 1, st));
    OK(cuStreamSynchronize(st));
    assert_memory_equal(out, h1, 64);
    OK(cuMemcpyDtoH_v2(out, b, 64));
    assert_memory_equal(out, h2, 64);
    /* bad batches: nothing is queued */
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, at, idxs, 2, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, at, idxs, 2, CU_STREAM_LEGACY), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 0, at, idxs, 1, st), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 1, at, idxs, 2, st), CUDA_ERROR_INVALID_VALUE);
    size_t bad_idx[2] = { 1, 2 };
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, at, bad_idx, 2, st), CUDA_ERROR_INVALID_VALUE);
    bad_idx[0] = 0, bad_idx[1] = 3;
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, at, bad_idx, 2, st), CUDA_ERROR_INVALID_VALUE);
    at[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
    assert_int_equal(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 3, at, idxs, 2, st), CUDA_ERROR_INVALID_VALUE);
    at[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
    sizes[1] = 300; /* past b's end */
    memset(out, 0, sizeof out);
    assert_int_equal(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, at, idxs, 2, &fail, st), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(fail, 1);
    OK(cuStreamSynchronize(st));
    OK(cuMemcpyDtoH_v2(out, b, 64));
    assert_memory_equal(out, h2, 64); /* the batch did nothing */
    OK(cuMemFree_v2(a));
    OK(cuMemFree_v2(b));
    OK(cuStreamDestroy_v2(st));
}

static void test_batch3d(void **state)
{
    (void)state;
    CUstream st;
    OK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(8, 4, 2, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0); /* 4-byte elements */
    OK(cuArray3DCreate_v2(&a, &d));
    static unsigned in[2][4][8], out[2][4][10];
    for (unsigned i = 0; i < 64; i++) ((unsigned *)in)[i] = i * 7 + 1;
    CUDA_MEMCPY3D_BATCH_OP op[2];
    memset(op, 0, sizeof op);
    op[0].src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
    op[0].src.op.ptr.ptr = (CUdeviceptr)(uintptr_t)in;   /* tightly packed */
    op[0].dst.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
    op[0].dst.op.array.array = a;
    op[0].extent = (CUextent3D){ 8, 4, 2 };
    op[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
    OK(cuMemcpy3DBatchAsync_v2(1, op, 0, st));
    /* a 3 x 2 x 2 box at (2, 1, 0) into rows of 10 elements */
    op[1].src.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
    op[1].src.op.array.array = a;
    op[1].src.op.array.offset = (CUoffset3D){ 2, 1, 0 };
    op[1].dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
    op[1].dst.op.ptr.ptr = (CUdeviceptr)(uintptr_t)out;
    op[1].dst.op.ptr.rowLength = 10;
    op[1].dst.op.ptr.layerHeight = 4;
    op[1].extent = (CUextent3D){ 3, 2, 2 };
    op[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    OK(cuMemcpy3DBatchAsync_v2(1, op + 1, 0, st));
    OK(cuStreamSynchronize(st));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++) assert_int_equal(out[z][y][x], in[z][y + 1][x + 2]);
    /* bad: zero extent, row shorter than the width, past the array, flags, the legacy stream */
    size_t fail = 0;
    op[1].extent.depth = 0;
    assert_int_equal(cuMemcpy3DBatchAsync(2, op, &fail, 0, st), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(fail, 1);
    op[1].extent = (CUextent3D){ 3, 2, 2 };
    op[1].dst.op.ptr.rowLength = 2;
    assert_int_equal(cuMemcpy3DBatchAsync_v2(2, op, 0, st), CUDA_ERROR_INVALID_VALUE);
    op[1].dst.op.ptr.rowLength = 10;
    op[1].src.op.array.offset.x = 6;
    assert_int_equal(cuMemcpy3DBatchAsync_v2(2, op, 0, st), CUDA_ERROR_INVALID_VALUE);
    op[1].src.op.array.offset.x = 0;
    assert_int_equal(cuMemcpy3DBatchAsync_v2(2, op, 2, st), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy3DBatchAsync_v2(2, op, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    op[1].src.type = (CUmemcpy3DOperandType)7;
    assert_int_equal(cuMemcpy3DBatchAsync_v2(2, op, 0, st), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy_v2(st));
    OK(cuArrayDestroy(a));
}

/* suld/sust in each mode, suq and txq, from PTX */
static const char ptx_surf[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry surf(.param .u64 s, .param .u64 t, .param .u64 out)\n{\n"
    "  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [s];\n  ld.param.u64 %rd2, [t];\n  ld.param.u64 %rd3, [out];\n"
    "  mov.u32 %r1, 77;\n"
    "  sust.b.2d.b32.trap [%rd1, {4, 1}], {%r1};\n"            /* element (1, 1) */
    "  sust.b.2d.b32.zero [%rd1, {400, 1}], {%r1};\n"          /* dropped */
    "  suld.b.2d.b32.trap {%r2}, [%rd1, {4, 1}];\n"
    "  suld.b.2d.b32.zero {%r3}, [%rd1, {-4, 0}];\n"
    "  suld.b.2d.b32.clamp {%r4}, [%rd1, {4, 9}];\n"           /* row 7 */
    "  suq.width.b32 %r5, [%rd1];\n  suq.height.b32 %r6, [%rd1];\n"
    "  txq.width.b32 %r7, [%rd2];\n  txq.filter_mode.b32 %r8, [%rd2];\n  txq.addr_mode_0.b32 %r9, [%rd2];\n"
    "  txq.normalized_coords.b32 %r10, [%rd2];\n"
    "  st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};\n"
    "  st.global.v4.u32 [%rd3+16], {%r6, %r7, %r8, %r9};\n"
    "  st.global.u32 [%rd3+32], %r10;\n"
    "  ret;\n}\n"
    ".visible .entry trap(.param .u64 s)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [s];\n  suld.b.2d.b32.trap {%r1}, [%rd1, {32, 0}];\n  ret;\n}\n";

static void test_ptx(void **state)
{
    (void)state;
    CUmodule mod;
    CUfunction f, trap;
    OK(cuModuleLoadData(&mod, ptx_surf));
    OK(cuModuleGetFunction(&f, mod, "surf"));
    OK(cuModuleGetFunction(&trap, mod, "trap"));
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(8, 8, 0, CU_AD_FORMAT_SIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST);
    OK(cuArray3DCreate_v2(&a, &d));
    static int img[8][8];
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) img[y][x] = y * 8 + x;
    OK(cuMemcpyHtoA_v2(a, 0, img, sizeof img));
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUsurfObject s;
    OK(cuSurfObjectCreate(&s, &rd));
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = CU_TR_ADDRESS_MODE_BORDER;
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_READ_AS_INTEGER;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    CUdeviceptr out;
    OK(cuMemAlloc_v2(&out, 64));
    void *args[] = { &s, &t, &out };
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    unsigned r[9];
    OK(cuMemcpyDtoH_v2(r, out, sizeof r));
    assert_int_equal(r[0], 77);          /* sust then suld at (1, 1) */
    assert_int_equal(r[1], 0);           /* .zero outside */
    assert_int_equal(r[2], 7 * 8 + 1);   /* .clamp: row 9 -> 7 */
    assert_int_equal(r[3], 8);           /* suq.width */
    assert_int_equal(r[4], 8);           /* suq.height */
    assert_int_equal(r[5], 8);           /* txq.width */
    assert_int_equal(r[6], 1);           /* linear */
    assert_int_equal(r[7], CU_TR_ADDRESS_MODE_BORDER);
    assert_int_equal(r[8], 1);
    OK(cuMemcpyAtoH_v2(img, a, 0, sizeof img));
    assert_int_equal(img[1][1], 77);
    assert_int_equal(img[1][7], 15);     /* the .zero store went nowhere */
    OK(cuTexObjectDestroy(t));
    OK(cuSurfObjectDestroy(s));
    OK(cuArrayDestroy(a));
    OK(cuMemFree_v2(out));
    OK(cuModuleUnload(mod));
}

/* the faults come last: they stick to the context */
static void test_ptx_faults(void **state)
{
    (void)state;
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 0));
    CUmodule mod;
    CUfunction trap;
    OK(cuModuleLoadData(&mod, ptx_surf));
    OK(cuModuleGetFunction(&trap, mod, "trap"));
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = desc3(8, 8, 0, CU_AD_FORMAT_SIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST);
    OK(cuArray3DCreate_v2(&a, &d));
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUsurfObject s;
    OK(cuSurfObjectCreate(&s, &rd));
    void *targs[] = { &s };
    OK(cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, NULL, targs, NULL));
    assert_int_not_equal(cuCtxSynchronize(), CUDA_SUCCESS); /* x = 32 bytes: past the 8 x 4-byte row */
    OK(cuCtxDestroy(c));
    /* a destroyed object */
    OK(cuCtxCreate(&c, 0, 0));
    OK(cuModuleLoadData(&mod, ptx_surf));
    OK(cuModuleGetFunction(&trap, mod, "trap"));
    OK(cuArray3DCreate_v2(&a, &d));
    rd.res.array.hArray = a;
    OK(cuSurfObjectCreate(&s, &rd));
    OK(cuSurfObjectDestroy(s));
    OK(cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, NULL, targs, NULL));
    assert_int_not_equal(cuCtxSynchronize(), CUDA_SUCCESS);
    OK(cuCtxDestroy(c));
    OK(cuCtxSetCurrent(ctx));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_bad_descriptors),
        cmocka_unit_test(test_mipmap),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_v1),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch3d),
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_ptx),
        cmocka_unit_test(test_ptx_faults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
