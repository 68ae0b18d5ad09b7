/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: allocation and accounting, bad pointers, pointer attributes,
 * page-locked and registered host memory, pools; copies and memsets in
 * every direction, 1-D and 2-D, sync and async. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
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

static void test_accounting(void **state)
{
    (void)state;
    struct emu_mem_stats st0, st;
    assert_int_equal(emu_mem_stats(0, &st0), 0);
    assert_int_equal(emu_mem_stats(9, &st), -1);
    size_t fr0, fr, total;
    OK(cuMemGetInfo_v2(&fr0, &total));
    CUdeviceptr a, b;
    OK(cuMemAlloc_v2(&a, 1000));
    OK(cuMemAlloc_v2(&b, 3 << 20));
    assert_int_equal(a % 256, 0);
    assert_int_equal(b % 256, 0);
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_int_equal(fr0 - fr, 1024 + (3 << 20));
    emu_mem_stats(0, &st);
    assert_int_equal(st.current - st0.current, 1024 + (3 << 20));
    assert_int_equal(st.count - st0.count, 2);
    OK(cuMemFree_v2(b));
    emu_mem_stats(0, &st);
    assert_int_equal(st.current - st0.current, 1024);
    assert_true(st.peak >= st0.current + 1024 + (3 << 20));
    CUdeviceptr base;
    size_t size;
    OK(cuMemGetAddressRange_v2(&base, &size, a + 10));
    assert_true(base == a);
    assert_int_equal(size, 1000);
    OK(cuMemFree_v2(a));
    OK(cuMemFree_v2(0));
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_int_equal(fr, fr0);
}

static void test_bad_alloc(void **state)
{
    (void)state;
    CUdeviceptr p;
    size_t total, fr;
    OK(cuMemGetInfo_v2(&fr, &total));
    assert_int_equal(cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAlloc_v2(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAlloc_v2(&p, total + 1), CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(cuMemAlloc_v2(&p, (size_t)-1), CUDA_ERROR_OUT_OF_MEMORY);
    size_t pitch;
    assert_int_equal(cuMemAllocPitch_v2(&p, &pitch, 100, 10, 3), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAllocPitch_v2(&p, &pitch, 0, 10, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemAllocPitch_v2(&p, &pitch, 1000, (size_t)1 << 60, 4), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemAllocPitch_v2(&p, &pitch, 100, 10, 4));
    assert_int_equal(pitch % 256, 0);
    assert_true(pitch >= 100);
    OK(cuMemFree_v2(p));
    /* never allocated, inner, twice */
    int x;
    assert_int_equal(cuMemFree_v2((CUdeviceptr)(uintptr_t)&x), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAlloc_v2(&p, 64));
    assert_int_equal(cuMemFree_v2(p + 8), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(p));
    assert_int_equal(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr base;
    assert_int_equal(cuMemGetAddressRange_v2(&base, NULL, 0x1234), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(cuMemAllocManaged(&p, 64, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAllocManaged(&p, 64, CU_MEM_ATTACH_GLOBAL));
    memset((void *)(uintptr_t)p, 1, 64); /* host-accessible */
    OK(cuMemPrefetchAsync(p, 64, 0, NULL));
    OK(cuMemAdvise(p, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
    assert_int_equal(cuMemPrefetchAsync(p, 65, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    /* attached to a stream: the whole allocation, one of the flags, never
     * singly to the NULL stream; managed memory only */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuStreamAttachMemAsync(s, p, 0, CU_MEM_ATTACH_SINGLE));
    OK(cuStreamAttachMemAsync(s, p, 64, CU_MEM_ATTACH_HOST));
    OK(cuStreamAttachMemAsync(NULL, p, 0, CU_MEM_ATTACH_GLOBAL));
    OK(cuStreamAttachMemAsync_ptsz(NULL, p, 0, CU_MEM_ATTACH_SINGLE)); /* the per-thread stream is one stream */
    assert_int_equal(cuStreamAttachMemAsync(NULL, p, 0, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(CU_STREAM_LEGACY, p, 0, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, p, 0, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, p, 0, CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, p, 32, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, p + 8, 56, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAttachMemAsync(s, (CUdeviceptr)(uintptr_t)&x, 4, CU_MEM_ATTACH_GLOBAL),
                     CUDA_ERROR_INVALID_VALUE); /* pageable memory: no profile reaches it */
    assert_int_equal(cuStreamAttachMemAsync((CUstream)&x, p, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 64));
    assert_int_equal(cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(d));
    /* a __managed__ variable is managed memory; a plain one is not */
    static const char mptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .global .attribute(.managed) .align 4 .u32 counter;\n"
        ".visible .global .align 4 .u32 plain;\n";
    CUmodule mod;
    OK(cuModuleLoadData(&mod, mptx));
    CUdeviceptr g;
    size_t gsz;
    OK(cuModuleGetGlobal_v2(&g, &gsz, mod, "counter"));
    OK(cuStreamAttachMemAsync(s, g, 0, CU_MEM_ATTACH_SINGLE));
    OK(cuModuleGetGlobal_v2(&g, &gsz, mod, "plain"));
    assert_int_equal(cuStreamAttachMemAsync(s, g, 0, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    OK(cuModuleUnload(mod));
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFree_v2(p));
}

static void test_host_memory(void **state)
{
    (void)state;
    void *h;
    OK(cuMemHostAlloc(&h, 4096, CU_MEMHOSTALLOC_PORTABLE));
    unsigned flags;
    OK(cuMemHostGetFlags(&flags, h));
    assert_true(flags & CU_MEMHOSTALLOC_PORTABLE);
    CUdeviceptr d;
    OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    assert_true(d == (CUdeviceptr)(uintptr_t)h);
    assert_int_equal(cuMemHostAlloc(&h, 16, 0x100), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeHost(h));
    assert_int_equal(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAllocHost_v2(&h, 100));
    OK(cuMemFreeHost(h));

    char *buf = malloc(8192);
    OK(cuMemHostRegister_v2(buf, 8192, 0));
    assert_int_equal(cuMemHostRegister_v2(buf + 100, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    OK(cuMemHostGetDevicePointer_v2(&d, buf + 16, 0));
    assert_int_equal(cuMemHostUnregister(buf + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(cuMemHostUnregister(buf));
    assert_int_equal(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    assert_int_equal(cuMemHostGetDevicePointer_v2(&d, buf, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemHostRegister_v2(NULL, 10, 0), CUDA_ERROR_INVALID_VALUE);
    free(buf);
}

static void test_pointer_attributes(void **state)
{
    (void)state;
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 256));
    unsigned type = 0;
    OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 5));
    assert_int_equal(type, CU_MEMORYTYPE_DEVICE);
    CUcontext c;
    OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d));
    assert_ptr_equal(c, ctx);
    void *hp;
    assert_int_equal(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d), CUDA_ERROR_INVALID_VALUE);
    int local;
    assert_int_equal(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)&local),
                     CUDA_ERROR_INVALID_VALUE);
    /* the runtime's six attributes, for device and for plain host memory */
    CUpointer_attribute at[6] = { CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
                                  CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    CUcontext vc;
    unsigned vt;
    CUdeviceptr vd;
    void *vh;
    int vm, vo;
    void *data[6] = { &vc, &vt, &vd, &vh, &vm, &vo };
    OK(cuPointerGetAttributes(6, at, data, d));
    assert_ptr_equal(vc, ctx);
    assert_int_equal(vt, CU_MEMORYTYPE_DEVICE);
    assert_true(vd == d);
    assert_null(vh);
    assert_int_equal(vm, 0);
    assert_int_equal(vo, 0);
    OK(cuPointerGetAttributes(6, at, data, (CUdeviceptr)(uintptr_t)&local));
    assert_null(vc);
    assert_int_equal(vt, 0);
    assert_true(vd == 0);
    assert_null(vh);
    assert_int_equal(vm, 0);
    OK(cuMemFree_v2(d));
    OK(cuMemAllocManaged(&d, 64, CU_MEM_ATTACH_GLOBAL));
    OK(cuPointerGetAttributes(6, at, data, d));
    assert_int_equal(vm, 1);
    assert_true(vh == (void *)(uintptr_t)d);
    OK(cuMemFree_v2(d));
    assert_int_equal(cuPointerGetAttributes(6, at, NULL, d), CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute bad = (CUpointer_attribute)999;
    void *bd[1] = { &vm };
    assert_int_equal(cuPointerGetAttributes(1, &bad, bd, d), CUDA_ERROR_INVALID_VALUE);
}

static void test_pools(void **state)
{
    (void)state;
    CUmemoryPool dflt, cur, pool;
    OK(cuDeviceGetDefaultMemPool(&dflt, 0));
    OK(cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(dflt, cur);
    CUdeviceptr p;
    OK(cuMemAllocAsync(&p, 1 << 16, NULL));
    cuuint64_t used;
    OK(cuMemPoolGetAttribute(dflt, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_true(used >= (1 << 16));
    CUmemoryPool mp;
    OK(cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
    assert_ptr_equal(mp, dflt);
    OK(cuMemFreeAsync(p, NULL));
    OK(cuStreamSynchronize(NULL));
    OK(cuMemPoolGetAttribute(dflt, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_true(used == 0);
    assert_int_equal(cuMemFreeAsync(p, NULL), CUDA_ERROR_INVALID_VALUE);
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    OK(cuMemPoolCreate(&pool, &props));
    cuuint64_t th = 1 << 20;
    OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &th));
    th = 0;
    OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &th));
    assert_true(th == 1 << 20);
    OK(cuMemAllocFromPoolAsync(&p, 1000, pool, NULL));
    OK(cuMemPoolDestroy(pool));        /* with an allocation still out */
    OK(cuMemFreeAsync(p, NULL));
    OK(cuCtxSynchronize());
    assert_int_equal(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolDestroy(dflt), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolTrimTo(dflt, 0));
    props.location.id = 9;
    assert_int_equal(cuMemPoolCreate(&pool, &props), CUDA_ERROR_INVALID_DEVICE);

    /* an exportable pool: its descriptor imported (here in the same
     * process), a pointer's export data mapped again through the import */
    props.location.id = 0;
    props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemoryPool ex, im, im2;
    OK(cuMemPoolCreate(&ex, &props));
    CUdeviceptr a, b;
    OK(cuMemAllocFromPoolAsync(&a, 5000, ex, NULL));
    OK(cuMemAllocFromPoolAsync(&b, 100, ex, NULL));
    memset((void *)(uintptr_t)a, 0x5a, 5000);
    OK(cuMemPoolGetAttribute(ex, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    assert_true(used >= 5100);
    int fd = -1;
    OK(cuMemPoolExportToShareableHandle(&fd, ex, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    assert_true(fd >= 0);
    assert_int_equal(cuMemPoolExportToShareableHandle(&fd, ex, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolExportToShareableHandle(&fd, ex, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolImportFromShareableHandle(&im, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    close(fd); /* the imported pool keeps its own */
    CUmemPoolPtrExportData d;
    OK(cuMemPoolExportPointer(&d, a));
    assert_int_equal(cuMemPoolExportPointer(&d, a + 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolExportPointer(NULL, a), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolExportPointer(&d, b));
    OK(cuMemPoolExportPointer(&d, a));
    CUdeviceptr a2;
    OK(cuMemPoolImportPointer(&a2, im, &d));
    assert_true(a2 != a);
    assert_int_equal(((unsigned char *)(uintptr_t)a2)[4999], 0x5a); /* the same memory */
    ((unsigned char *)(uintptr_t)a2)[7] = 1;
    assert_int_equal(((unsigned char *)(uintptr_t)a)[7], 1);
    size_t sz;
    OK(cuMemGetAddressRange_v2(NULL, &sz, a2));
    assert_int_equal(sz, 5000);
    /* export data changed in each field: refused */
    CUmemPoolPtrExportData bad = d;
    bad.reserved[0] ^= 1; /* the magic */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.reserved[8] ^= 1; /* the pool */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.reserved[16] = 1; /* the offset, not page-aligned */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.reserved[18] = 0x10; /* past the memfd */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.reserved[24 + 7] = 0x7f; /* the size beyond its pages */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.reserved[60] = 1; /* reserved bytes */
    assert_int_equal(cuMemPoolImportPointer(&a2, im, &bad), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolImportPointer(&a2, ex, &d), CUDA_ERROR_INVALID_VALUE); /* not an imported pool */
    assert_int_equal(cuMemAllocFromPoolAsync(&b, 64, im, NULL), CUDA_ERROR_INVALID_VALUE);
    /* descriptors that are not a pool's */
    assert_int_equal(cuMemPoolImportFromShareableHandle(&im2, (void *)(uintptr_t)0,
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolImportFromShareableHandle(&im2, (void *)(intptr_t)-5,
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                     CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemPoolImportFromShareableHandle(&im2, (void *)(uintptr_t)99999,
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                     CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(a2)); /* the importer frees first */
    OK(cuMemFreeAsync(a, NULL));
    OK(cuMemFreeAsync(b, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemPoolDestroy(im));
    OK(cuMemPoolDestroy(ex));
    props.handleTypes = CU_MEM_HANDLE_TYPE_WIN32;
    assert_int_equal(cuMemPoolCreate(&pool, &props), CUDA_ERROR_NOT_SUPPORTED);
}

/* ---- copies ------------------------------------------------------------ */

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed);
}

static void test_copy_1d(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    unsigned char *h = malloc(N), *back = malloc(N);
    fill_pattern(h, N, 7);
    CUdeviceptr a, b;
    OK(cuMemAlloc_v2(&a, N));
    OK(cuMemAlloc_v2(&b, N));
    OK(cuMemcpyHtoD_v2(a, h, N));
    OK(cuMemcpyDtoD_v2(b, a, N));
    memset(back, 0, N);
    OK(cuMemcpyDtoH_v2(back, b, N));
    assert_memory_equal(h, back, N);
    /* inner pointers and partial ranges */
    OK(cuMemcpyDtoH_v2(back, a + 100, 50));
    assert_memory_equal(back, h + 100, 50);
    /* direction from the addresses */
    memset(back, 0, N);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)back, a, N));
    assert_memory_equal(h, back, N);
    OK(cuMemcpy_ptds(b + 1, a, 10));
    /* async on a stream, with pinned memory */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    void *pin;
    OK(cuMemAllocHost_v2(&pin, N));
    OK(cuMemsetD8Async(a, 0x5a, N, s));
    OK(cuMemcpyDtoHAsync_v2(pin, a, N, s));
    OK(cuStreamSynchronize(s));
    for (size_t i = 0; i < N; i += 4097)
        assert_int_equal(((unsigned char *)pin)[i], 0x5a);
    OK(cuMemcpyHtoDAsync_v2(b, h, N, s));
    OK(cuMemcpyDtoDAsync_v2(a, b, N, s));
    OK(cuMemcpyAsync((CUdeviceptr)(uintptr_t)pin, a, N, s));
    OK(cuStreamSynchronize(s));
    assert_memory_equal(pin, h, N);
    OK(cuMemcpyPeer(a, ctx, b, ctx, 64));
    OK(cuMemcpyPeerAsync(a, ctx, b, ctx, 64, s));
    assert_int_equal(cuMemcpyPeer(a, (CUcontext)h, b, ctx, 64), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuStreamDestroy_v2(s));
    OK(cuMemFreeHost(pin));
    /* bad ranges and pointers */
    assert_int_equal(cuMemcpyHtoD_v2(a, h, N + 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoD_v2(a + 1, h, N), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoH_v2(back, a + N, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)back, h, 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyHtoD_v2(a, NULL, 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoD_v2(a, 0xdead0000, 16), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpyDtoH_v2(back, a, (size_t)-1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyHtoD_v2(a, h, 0));
    assert_int_equal(cuMemcpyHtoDAsync_v2(a, h, 16, (CUstream)h), CUDA_ERROR_INVALID_HANDLE);
    OK(cuMemFree_v2(a));
    OK(cuMemFree_v2(b));
    free(h);
    free(back);
}

static void test_copy_2d(void **state)
{
    (void)state;
    enum { W = 100, H = 37 };
    CUdeviceptr d;
    size_t pitch;
    OK(cuMemAllocPitch_v2(&d, &pitch, W, H, 4));
    unsigned char src[W * H], back[W * H];
    fill_pattern(src, sizeof src, 3);
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = CU_MEMORYTYPE_HOST;
    m.srcHost = src;
    m.srcPitch = W;
    m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    m.dstDevice = d;
    m.dstPitch = pitch;
    m.WidthInBytes = W;
    m.Height = H;
    OK(cuMemcpy2D_v2(&m));
    /* the rows landed at the pitch */
    unsigned char row[W];
    OK(cuMemcpyDtoH_v2(row, d + 5 * pitch, W));
    assert_memory_equal(row, src + 5 * W, W);
    memset(&m, 0, sizeof m);
    m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    m.srcDevice = d;
    m.srcPitch = pitch;
    m.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.dstDevice = (CUdeviceptr)(uintptr_t)back;
    m.dstPitch = W;
    m.WidthInBytes = W;
    m.Height = H;
    OK(cuMemcpy2DUnaligned_v2(&m));
    assert_memory_equal(back, src, sizeof src);
    memset(back, 0, sizeof back);
    OK(cuMemcpy2DAsync_v2(&m, NULL));
    OK(cuStreamSynchronize(NULL));
    assert_memory_equal(back, src, sizeof src);
    /* a sub-rectangle with offsets */
    m.srcXInBytes = 10;
    m.srcY = 2;
    m.WidthInBytes = 20;
    m.Height = 3;
    OK(cuMemcpy2D_v2_ptds(&m));
    assert_memory_equal(back + W, src + 3 * W + 10, 20);
    /* out of bounds, bad pitch, arrays */
    m.srcY = H;
    assert_int_equal(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_VALUE);
    m.srcY = 0;
    m.srcPitch = 5;
    assert_int_equal(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_VALUE);
    m.srcPitch = pitch;
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY; /* srcArray names no array */
    assert_int_equal(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_HANDLE);
    m.srcMemoryType = (CUmemorytype)42;
    assert_int_equal(cuMemcpy2D_v2(&m), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemcpy2D_v2(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(d));
}

static void test_memset(void **state)
{
    (void)state;
    enum { N = 10000 };
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, N * 4));
    unsigned char b8[N];
    unsigned short b16[N];
    unsigned int b32[N];
    OK(cuMemsetD8_v2(d, 0xab, N));
    OK(cuMemcpyDtoH_v2(b8, d, N));
    for (int i = 0; i < N; i++)
        assert_int_equal(b8[i], 0xab);
    OK(cuMemsetD16_v2(d, 0x1234, N));
    OK(cuMemcpyDtoH_v2(b16, d, N * 2));
    for (int i = 0; i < N; i++)
        assert_int_equal(b16[i], 0x1234);
    OK(cuMemsetD32Async(d, 0xdeadbeef, N, NULL));
    OK(cuMemcpyDtoH_v2(b32, d, N * 4)); /* ordered after it on the legacy stream */
    for (int i = 0; i < N; i++)
        assert_int_equal(b32[i], 0xdeadbeef);
    OK(cuMemsetD32_v2_ptds(d, 7, 3));
    OK(cuMemsetD16Async_ptsz(d, 7, 3, NULL));
    OK(cuStreamSynchronize_ptsz(NULL));
    /* 2-D: 10 rows of 30 bytes at pitch 100 */
    OK(cuMemsetD8_v2(d, 0, N));
    OK(cuMemsetD2D8_v2(d, 100, 0x11, 30, 10));
    OK(cuMemcpyDtoH_v2(b8, d, N));
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 100; x++)
            assert_int_equal(b8[y * 100 + x], y < 10 && x < 30 ? 0x11 : 0);
    OK(cuMemsetD2D32_v2(d, 400, 5, 50, 20));
    OK(cuMemsetD2D16Async(d, 200, 5, 50, 20, NULL));
    OK(cuCtxSynchronize());
    /* errors */
    assert_int_equal(cuMemsetD32_v2(d + 2, 0, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD16_v2(d + 1, 0, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD32_v2(d, 0, N + 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD8_v2(0x4000, 0, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD2D8_v2(d, 10, 0, 30, 2), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD2D8_v2(d, 1000, 0, 30, 100), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD32_v2(d, 0, (size_t)1 << 62), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree_v2(d));
}

static void *alloc_thread(void *arg)
{
    CUcontext c = arg;
    if (cuCtxSetCurrent(c))
        return (void *)1;
    for (int i = 0; i < 200; i++) {
        CUdeviceptr p;
        size_t n = 64 + (size_t)i * 7;
        unsigned char buf[64 + 200 * 7];
        if (cuMemAlloc_v2(&p, n))
            return (void *)2;
        memset(buf, i, n);
        if (cuMemcpyHtoD_v2(p, buf, n) || cuMemsetD8_v2(p, (unsigned char)i, n))
            return (void *)3;
        if (cuMemcpyDtoH_v2(buf, p, n) || buf[n - 1] != (unsigned char)i || cuMemFree_v2(p))
            return (void *)4;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    struct emu_mem_stats st0, st;
    emu_mem_stats(0, &st0);
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, alloc_thread, ctx);
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    emu_mem_stats(0, &st);
    assert_true(st.current == st0.current);
    assert_true(st.count == st0.count);
    assert_true(st.total == st0.total + 1600);
}

/* IPC handles are data from another process: every field is checked */
struct ipc_wire_t { /* src/emu/ipc.c's wire form */
    char magic[8];
    int32_t pid, fd;
    uint64_t nonce, size, maplen;
    int32_t device;
    uint32_t zero;
};

static CUipcMemHandle ipc_handle(const struct ipc_wire_t *w)
{
    CUipcMemHandle h;
    memset(&h, 0, sizeof h);
    memcpy(h.reserved, w, sizeof *w);
    return h;
}

static void test_ipc(void **state)
{
    (void)state;
    CUdeviceptr big, small, p = 0;
    OK(cuMemAlloc_v2(&big, 2u << 20));
    OK(cuMemAlloc_v2(&small, 256));
    CUipcMemHandle h;
    assert_int_equal(cuIpcGetMemHandle(NULL, big), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuIpcGetMemHandle(&h, 0x10), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuIpcGetMemHandle(&h, small), CUDA_ERROR_NOT_SUPPORTED);
    /* the contents survive the move into shared memory, the pointer stays */
    OK(cuMemsetD32_v2(big, 0x12345678, (2u << 20) / 4));
    OK(cuIpcGetMemHandle(&h, big));
    unsigned v[4];
    OK(cuMemcpyDtoH_v2(v, big + (1u << 20), sizeof v));
    assert_int_equal(v[0], 0x12345678);
    assert_int_equal(v[3], 0x12345678);
    struct ipc_wire_t w;
    memcpy(&w, h.reserved, sizeof w);
    assert_int_equal(w.pid, getpid());
    assert_int_equal(cuIpcOpenMemHandle_v2(&p, h, 1), CUDA_ERROR_INVALID_CONTEXT); /* its own process */
    assert_int_equal(cuIpcOpenMemHandle_v2(NULL, h, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuIpcOpenMemHandle_v2(&p, h, 2), CUDA_ERROR_INVALID_VALUE);
    /* hostile forms: each refused before anything is opened */
    struct ipc_wire_t bad[6];
    for (int i = 0; i < 6; i++)
        bad[i] = w;
    bad[0].magic[0] ^= 1;
    bad[1].pid = -1;
    bad[2].fd = -5;
    bad[3].size = bad[3].maplen + 1;
    bad[4].maplen = 4095;
    bad[5].zero = 7;
    for (int i = 0; i < 6; i++)
        assert_int_equal(cuIpcOpenMemHandle_v2(&p, ipc_handle(&bad[i]), 1), CUDA_ERROR_INVALID_VALUE);
    /* a descriptor of another process that is not the memory named: the
     * nonce does not match (the parent's standard input) */
    struct ipc_wire_t other = w;
    other.pid = getppid();
    other.fd = 0;
    assert_int_equal(cuIpcOpenMemHandle_v2(&p, ipc_handle(&other), 1), CUDA_ERROR_INVALID_HANDLE);
    other.pid = 0x3fffffff; /* no such process */
    assert_int_equal(cuIpcOpenMemHandle_v2(&p, ipc_handle(&other), 1), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(p, 0);
    assert_int_equal(cuIpcCloseMemHandle(big), CUDA_ERROR_INVALID_VALUE); /* not imported */
    /* event handles: interprocess events only; the same checks */
    CUevent ev, plain;
    CUipcEventHandle eh;
    assert_int_equal(cuEventCreate(&ev, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE); /* timing on */
    OK(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&plain, 0));
    assert_int_equal(cuIpcGetEventHandle(&eh, plain), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuIpcGetEventHandle(NULL, ev), CUDA_ERROR_INVALID_VALUE);
    OK(cuIpcGetEventHandle(&eh, ev));
    CUevent got = NULL;
    assert_int_equal(cuIpcOpenEventHandle(&got, eh), CUDA_ERROR_INVALID_CONTEXT); /* its own process */
    struct ipc_wire_t ew;
    memcpy(&ew, eh.reserved, sizeof ew);
    struct ipc_wire_t ebad[4] = { ew, ew, ew, ew };
    ebad[0].magic[2] ^= 1;
    ebad[1].size = 8192;
    ebad[2].fd = -1;
    ebad[3].pid = 0;
    for (int i = 0; i < 4; i++) {
        CUipcEventHandle x;
        memset(&x, 0, sizeof x);
        memcpy(x.reserved, &ebad[i], sizeof ebad[i]);
        assert_int_equal(cuIpcOpenEventHandle(&got, x), CUDA_ERROR_INVALID_VALUE);
    }
    assert_null(got);
    /* recorded and run here, it is complete here */
    OK(cuEventRecord(ev, NULL));
    OK(cuEventSynchronize(ev));
    OK(cuEventQuery(ev));
    OK(cuEventDestroy_v2(ev));
    OK(cuEventDestroy_v2(plain));
    OK(cuMemFree_v2(big));
    OK(cuMemFree_v2(small));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accounting),
        cmocka_unit_test(test_bad_alloc),
        cmocka_unit_test(test_host_memory),
        cmocka_unit_test(test_pointer_attributes),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_copy_1d),
        cmocka_unit_test(test_copy_2d),
        cmocka_unit_test(test_memset),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_ipc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
