/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: virtual memory management. Reserve, map, access, unmap,
 * release and their reference semantics; aliasing through two mappings;
 * kernels and copies through mapped addresses, across two mappings;
 * accounting; bad handles, flags, sizes and addresses; a file descriptor
 * exported to a child process that maps the same memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))
#define G ((size_t)2 << 20) /* the granularity */

/* p[i] = i + v for i < n (grid-stride over blocks of 128) */
static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry seq(.param .u64 p, .param .u32 n, .param .u32 v)\n"
    "{\n"
    "  .reg .u64 %rd<4>;\n  .reg .u32 %r<8>;\n  .reg .pred %q;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n  ld.param.u32 %r2, [v];\n"
    "  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mov.u32 %r5, %tid.x;\n"
    "  mad.lo.u32 %r6, %r3, %r4, %r5;\n"
    "  setp.ge.u32 %q, %r6, %r1;\n  @%q bra done;\n"
    "  mul.wide.u32 %rd2, %r6, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
    "  add.u32 %r7, %r6, %r2;\n  st.global.u32 [%rd3], %r7;\n"
    "done:\n  ret;\n"
    "}\n";

static CUcontext ctx;
static CUmodule mod;
static CUfunction fn;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fn, mod, "seq"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuModuleUnload(mod) || cuCtxDestroy(ctx) ? -1 : 0;
}

static CUmemAllocationProp prop(int dev, unsigned handle_types)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    p.requestedHandleTypes = (CUmemAllocationHandleType)handle_types;
    return p;
}

static CUmemAccessDesc rw(int dev, int flags)
{
    CUmemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = dev;
    d.flags = (CUmemAccess_flags)flags;
    return d;
}

static size_t free_mem(void)
{
    size_t fr, total;
    OK(cuMemGetInfo_v2(&fr, &total));
    return fr;
}

static void launch_seq(CUdeviceptr p, unsigned n, unsigned v)
{
    void *args[] = { &p, &n, &v };
    OK(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
}

static void test_granularity(void **state)
{
    (void)state;
    size_t g = 0;
    CUmemAllocationProp p = prop(0, 0);
    OK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    assert_int_equal(g, G);
    OK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    assert_int_equal(g, G);
    ERR(cuMemGetAllocationGranularity(&g, &p, (CUmemAllocationGranularity_flags)7), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemGetAllocationGranularity(NULL, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemGetAllocationGranularity(&g, NULL, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp bad = p;
    bad.type = CU_MEM_ALLOCATION_TYPE_INVALID;
    ERR(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
    bad = prop(99, 0);
    ERR(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_DEVICE);
    bad = prop(0, CU_MEM_HANDLE_TYPE_FABRIC);
    ERR(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_NOT_SUPPORTED);
    bad = prop(0, 0);
    bad.location.type = CU_MEM_LOCATION_TYPE_HOST;
    ERR(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_NOT_SUPPORTED);
    int v = 0;
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    assert_int_equal(v, 1);
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
    assert_int_equal(v, 1);
}

/* create, reserve, map, access, copy, unmap, release, free; accounting */
static void test_lifecycle(void **state)
{
    (void)state;
    size_t fr0 = free_mem();
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h;
    OK(cuMemCreate(&h, 2 * G, &p, 0));
    assert_int_equal(fr0 - free_mem(), 2 * G);
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, 8 * G, 0, 0, 0));
    assert_int_equal(va % G, 0);
    unsigned char buf[256], back[256];
    for (int i = 0; i < 256; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    /* reserved, not mapped: no copies */
    ERR(cuMemcpyHtoD_v2(va, buf, sizeof buf), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemcpy(va, (CUdeviceptr)(uintptr_t)buf, sizeof buf), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemMap(va + 2 * G, 2 * G, 0, h, 0));
    /* mapped, no access yet */
    unsigned long long flags = 99;
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    OK(cuMemGetAccess(&flags, &loc, va + 2 * G + 100));
    assert_int_equal(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    ERR(cuMemcpyHtoD_v2(va + 2 * G, buf, sizeof buf), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(va + 2 * G, 2 * G, &d, 1));
    OK(cuMemGetAccess(&flags, &loc, va + 2 * G + 100));
    assert_int_equal(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemcpyHtoD_v2(va + 3 * G, buf, sizeof buf));
    OK(cuMemcpyDtoH_v2(back, va + 3 * G, sizeof back));
    assert_memory_equal(buf, back, sizeof buf);
    /* the generic copy sees device memory */
    memset(back, 0, sizeof back);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)back, va + 3 * G, sizeof back));
    assert_memory_equal(buf, back, sizeof buf);
    /* a copy may not run past the mapping */
    ERR(cuMemcpyHtoD_v2(va + 4 * G - 16, buf, 32), CUDA_ERROR_INVALID_VALUE);
    int mtype = 0;
    OK(cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 3 * G));
    assert_int_equal(mtype, CU_MEMORYTYPE_DEVICE);
    /* access taken away */
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    OK(cuMemSetAccess(va + 2 * G, 2 * G, &d, 1));
    ERR(cuMemcpyDtoH_v2(back, va + 3 * G, sizeof back), CUDA_ERROR_INVALID_VALUE);
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    OK(cuMemSetAccess(va + 2 * G, 2 * G, &d, 1));
    OK(cuMemcpyDtoH_v2(back, va + 3 * G, sizeof back));
    assert_memory_equal(buf, back, sizeof buf); /* the bytes stayed */
    OK(cuMemUnmap(va + 2 * G, 2 * G));
    ERR(cuMemcpyDtoH_v2(back, va + 3 * G, sizeof back), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemGetAccess(&flags, &loc, va + 2 * G), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(fr0 - free_mem(), 2 * G); /* the handle keeps it */
    OK(cuMemRelease(h));
    assert_int_equal(free_mem(), fr0);
    ERR(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE); /* released twice */
    OK(cuMemAddressFree(va, 8 * G));
    ERR(cuMemAddressFree(va, 8 * G), CUDA_ERROR_INVALID_VALUE);
}

/* a released allocation lives while mapped; a retained handle counts */
static void test_references(void **state)
{
    (void)state;
    size_t fr0 = free_mem();
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h, h2;
    CUdeviceptr va;
    ERR(cuMemCreate(&h, G / 2, &p, 0), CUDA_ERROR_INVALID_VALUE); /* 1 MiB: not a multiple */
    OK(cuMemCreate(&h, 4 * G, &p, 0));
    OK(cuMemAddressReserve(&va, 4 * G, 0, 0, 0));
    OK(cuMemMap(va, 4 * G, 0, h, 0));
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(va, 4 * G, &d, 1));
    OK(cuMemRelease(h));
    /* still mapped: still there */
    OK(cuMemsetD32_v2(va + G, 0xabcdef01u, 16));
    unsigned got[16];
    OK(cuMemcpyDtoH_v2(got, va + G, sizeof got));
    for (int i = 0; i < 16; i++)
        assert_int_equal(got[i], 0xabcdef01u);
    assert_int_equal(fr0 - free_mem(), 4 * G);
    ERR(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE); /* no handle reference left */
    /* retain from any address in the mapping: the same handle */
    OK(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + 12345)));
    assert_true(h2 == h);
    CUmemAllocationProp q;
    OK(cuMemGetAllocationPropertiesFromHandle(&q, h2));
    assert_int_equal(q.type, CU_MEM_ALLOCATION_TYPE_PINNED);
    assert_int_equal(q.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
    assert_int_equal(q.location.id, 0);
    OK(cuMemUnmap(va, 4 * G));
    assert_int_equal(fr0 - free_mem(), 4 * G); /* the retained reference */
    OK(cuMemRelease(h2));
    assert_int_equal(free_mem(), fr0);
    ERR(cuMemGetAllocationPropertiesFromHandle(&q, h2), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)va), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAddressFree(va, 4 * G));
}

/* one allocation at two addresses: the same bytes */
/* Generic compression: recorded and reported; the bytes are the same
 * (a kernel writes them, a copy reads them back) */
static void test_compression(void **state)
{
    (void)state;
    int has = -1;
    OK(cuDeviceGetAttribute(&has, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0));
    assert_int_equal(has, 1); /* the default profile, h100 */
    CUmemAllocationProp p = prop(0, 0);
    p.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
    size_t g = 0;
    OK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    assert_int_equal(g, G);
    CUmemGenericAllocationHandle h;
    OK(cuMemCreate(&h, G, &p, 0));
    CUmemAllocationProp q;
    OK(cuMemGetAllocationPropertiesFromHandle(&q, h));
    assert_int_equal(q.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_GENERIC);
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, G, 0, 0, 0));
    OK(cuMemMap(va, G, 0, h, 0));
    CUmemAccessDesc a = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, G, &a, 1));
    launch_seq(va, 1000, 7);
    OK(cuCtxSynchronize());
    unsigned got[1000];
    OK(cuMemcpyDtoH_v2(got, va, sizeof got));
    for (unsigned i = 0; i < 1000; i++)
        assert_int_equal(got[i], 7 + i);
    OK(cuMemUnmap(va, G));
    OK(cuMemAddressFree(va, G));
    OK(cuMemRelease(h));
    /* a plain request stays plain; an unknown compression type is refused */
    p.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_NONE;
    OK(cuMemCreate(&h, G, &p, 0));
    OK(cuMemGetAllocationPropertiesFromHandle(&q, h));
    assert_int_equal(q.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_NONE);
    OK(cuMemRelease(h));
    p.allocFlags.compressionType = 2;
    ERR(cuMemCreate(&h, G, &p, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
}

static void test_alias(void **state)
{
    (void)state;
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h;
    CUdeviceptr a, b;
    OK(cuMemCreate(&h, 2 * G, &p, 0));
    OK(cuMemAddressReserve(&a, 2 * G, 0, 0, 0));
    OK(cuMemAddressReserve(&b, 4 * G, 0, 0, 0));
    OK(cuMemMap(a, 2 * G, 0, h, 0));
    OK(cuMemMap(b + 2 * G, 2 * G, 0, h, 0));
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(a, 2 * G, &d, 1));
    OK(cuMemSetAccess(b + 2 * G, 2 * G, &d, 1));
    const char msg[] = "written through the first mapping";
    char back[sizeof msg];
    OK(cuMemcpyHtoD_v2(a + 4096, msg, sizeof msg));
    OK(cuMemcpyDtoH_v2(back, b + 2 * G + 4096, sizeof back));
    assert_string_equal(back, msg);
    launch_seq(b + 2 * G + 8192, 300, 5);
    OK(cuCtxSynchronize());
    unsigned got[300];
    OK(cuMemcpyDtoH_v2(got, a + 8192, sizeof got));
    for (unsigned i = 0; i < 300; i++)
        assert_int_equal(got[i], i + 5);
    OK(cuMemRelease(h));
    OK(cuMemUnmap(a, 2 * G));
    OK(cuMemcpyDtoH_v2(got, b + 2 * G + 8192, sizeof got)); /* the other mapping keeps it */
    assert_int_equal(got[299], 304);
    ERR(cuMemAddressFree(b, 4 * G), CUDA_ERROR_INVALID_VALUE); /* still mapped */
    OK(cuMemUnmap(b + 2 * G, 2 * G));
    OK(cuMemAddressFree(a, 2 * G));
    OK(cuMemAddressFree(b, 4 * G));
}

/* two allocations mapped back to back: a kernel and copies cross */
static void test_kernel_across(void **state)
{
    (void)state;
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h1, h2;
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, 16 * G, 0, 0, 0));
        OK(cuMemCreate(&h1, 2 * G, &p, 0));
    OK(cuMemCreate(&h2, 2 * G, &p, 0));
    OK(cuMemMap(va, 2 * G, 0, h1, 0));
    OK(cuMemMap(va + 2 * G, 2 * G, 0, h2, 0));
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(va, 2 * G, &d, 1));
    OK(cuMemSetAccess(va + 2 * G, 2 * G, &d, 1));
    enum { N = 2048 };
    CUdeviceptr start = va + 2 * G - 4 * 1000; /* 1000 elements in the first, 1048 in the second */
    launch_seq(start, N, 11);
    OK(cuCtxSynchronize());
    static unsigned got[N];
    OK(cuMemcpyDtoH_v2(got, start, sizeof got));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(got[i], i + 11);
    /* device-to-device across the boundary, back into the first mapping */
    OK(cuMemcpyDtoD_v2(va, start, sizeof got));
    memset(got, 0, sizeof got);
    OK(cuMemcpyDtoH_v2(got, va, sizeof got));
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(got[i], i + 11);
    /* both mappings at once */
    OK(cuMemSetAccess(va, 4 * G, &d, 1));
    OK(cuMemUnmap(va, 4 * G));
    OK(cuMemRelease(h1));
    OK(cuMemRelease(h2));
    OK(cuMemAddressFree(va, 16 * G));
}

static void test_errors(void **state)
{
    (void)state;
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h, x;
    CUdeviceptr va;
    size_t fr = free_mem();
    ERR(cuMemCreate(&h, 0, &p, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemCreate(&h, G + 4096, &p, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemCreate(&h, G, &p, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemCreate(NULL, G, &p, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemCreate(&h, G, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemCreate(&h, (fr / G + 1) * G, &p, 0), CUDA_ERROR_OUT_OF_MEMORY);
    CUmemAllocationProp bad = prop(0, 0x40);
    ERR(cuMemCreate(&h, G, &bad, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressReserve(&va, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressReserve(&va, 1000, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressReserve(&va, G, 3 * G, 0, 0), CUDA_ERROR_INVALID_VALUE); /* not a power of two */
    ERR(cuMemAddressReserve(&va, G, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressReserve(&va, G, 0, 12345, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressReserve(NULL, G, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAddressReserve(&va, 4 * G, 8 * G, 0, 0));
    assert_int_equal(va % (8 * G), 0);
    OK(cuMemCreate(&h, 2 * G, &p, 0));
    ERR(cuMemMap(va + 4096, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);   /* unaligned address */
    ERR(cuMemMap(va, G / 2, 0, h, 0), CUDA_ERROR_INVALID_VALUE);              /* unaligned size */
    ERR(cuMemMap(va, 4 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);          /* larger than the allocation */
    ERR(cuMemMap(va, 2 * G, 2 * G, h, 0), CUDA_ERROR_INVALID_VALUE);      /* past its end */
    ERR(cuMemMap(va, 2 * G, 0, h, 1), CUDA_ERROR_INVALID_VALUE);          /* flags */
    ERR(cuMemMap(va, 2 * G, 0, h + 1000, 0), CUDA_ERROR_INVALID_VALUE);   /* no such handle */
    ERR(cuMemMap(va + 2 * G, 4 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  /* past the reservation */
    void *host = mmap(NULL, 4 * G, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(host != MAP_FAILED);
    uintptr_t inside = ((uintptr_t)host + G - 1) & ~(uintptr_t)(G - 1);
    ERR(cuMemMap((CUdeviceptr)inside, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* not reserved */
    munmap(host, 4 * G);
    OK(cuMemMap(va, 2 * G, 0, h, 0));
    ERR(cuMemMap(va, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);          /* mapped already */
    /* access */
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    ERR(cuMemSetAccess(va, 4 * G, &d, 1), CUDA_ERROR_INVALID_VALUE);      /* half unmapped */
    ERR(cuMemSetAccess(va + 2 * G, 2 * G, &d, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemSetAccess(va, 2 * G, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemSetAccess(va, 2 * G, &d, 0), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc e = rw(9, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    ERR(cuMemSetAccess(va, 2 * G, &e, 1), CUDA_ERROR_INVALID_DEVICE);
    e = rw(0, 2);
    ERR(cuMemSetAccess(va, 2 * G, &e, 1), CUDA_ERROR_INVALID_VALUE);
    e = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READ);
    ERR(cuMemSetAccess(va, 2 * G, &e, 1), CUDA_ERROR_NOT_SUPPORTED);
    e = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    e.location.type = CU_MEM_LOCATION_TYPE_HOST;
    ERR(cuMemSetAccess(va, 2 * G, &e, 1), CUDA_ERROR_INVALID_VALUE);
    unsigned long long fl;
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 7 };
    ERR(cuMemGetAccess(&fl, &loc, va), CUDA_ERROR_INVALID_DEVICE);
    loc.id = 0;
    ERR(cuMemGetAccess(NULL, &loc, va), CUDA_ERROR_INVALID_VALUE);
    /* unmap */
    ERR(cuMemUnmap(va + 2 * G, 2 * G), CUDA_ERROR_INVALID_VALUE);         /* never mapped */
    ERR(cuMemUnmap(va, 4 * G), CUDA_ERROR_INVALID_VALUE);                 /* partly */
    ERR(cuMemUnmap(va + 4096, 2 * G), CUDA_ERROR_INVALID_VALUE);
    /* reservations */
    ERR(cuMemAddressFree(va, 2 * G), CUDA_ERROR_INVALID_VALUE);           /* not its size */
    ERR(cuMemAddressFree(va + 2 * G, 2 * G), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemAddressFree(va, 4 * G), CUDA_ERROR_INVALID_VALUE);           /* still mapped */
    /* handles */
    ERR(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemRelease(h + 1000), CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp q;
    ERR(cuMemGetAllocationPropertiesFromHandle(&q, h + 1000), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemRetainAllocationHandle(&x, (void *)(uintptr_t)(va + 2 * G)), CUDA_ERROR_INVALID_VALUE);
    int fd = -1;
    /* not created for export */
    ERR(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemImportFromShareableHandle(&x, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemImportFromShareableHandle(&x, (void *)(intptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        CUDA_ERROR_INVALID_VALUE); /* stdin: not an allocation */
    int other = (int)memfd_create("not-ours", MFD_CLOEXEC);
    assert_true(other >= 0 && ftruncate(other, (off_t)(2 * G)) == 0);
    ERR(cuMemImportFromShareableHandle(&x, (void *)(intptr_t)other, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        CUDA_ERROR_INVALID_VALUE);
    close(other);
    ERR(cuMemImportFromShareableHandle(&x, (void *)(intptr_t)3, CU_MEM_HANDLE_TYPE_FABRIC), CUDA_ERROR_NOT_SUPPORTED);
    OK(cuMemUnmap(va, 2 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 4 * G));
    assert_int_equal(free_mem(), fr);
}

/* a requested address is honoured when free */
static void test_fixed_address(void **state)
{
    (void)state;
    CUdeviceptr a, b, c;
    OK(cuMemAddressReserve(&a, 4 * G, 0, 0, 0));
    OK(cuMemAddressFree(a, 4 * G));
    OK(cuMemAddressReserve(&b, 4 * G, 0, a, 0));
    assert_true(b == a);
    OK(cuMemAddressReserve(&c, 4 * G, 0, a, 0)); /* taken: elsewhere */
    assert_true(c != a);
    OK(cuMemAddressFree(b, 4 * G));
    OK(cuMemAddressFree(c, 4 * G));
}

/* a kernel touching a reserved address without access faults */
static void test_kernel_fault(void **state)
{
    (void)state;
    CUcontext c2;
    CUmodule m2;
    CUfunction f2;
    OK(cuCtxCreate(&c2, 0, 0));
    OK(cuModuleLoadData(&m2, ptx));
    OK(cuModuleGetFunction(&f2, m2, "seq"));
    CUmemAllocationProp p = prop(0, 0);
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, 2 * G, 0, 0, 0));
    OK(cuMemCreate(&h, 2 * G, &p, 0));
    OK(cuMemMap(va, 2 * G, 0, h, 0)); /* mapped, never made accessible */
    unsigned n = 64, v = 1;
    void *args[] = { &va, &n, &v };
    OK(cuLaunchKernel(f2, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    ERR(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuMemUnmap(va, 2 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 2 * G));
    OK(cuCtxDestroy(c2));
    OK(cuCtxSetCurrent(ctx));
}

/* the file descriptor of an allocation, in a child process: the same memory */
static int child(int fd, const unsigned *expect, size_t n)
{
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    if (cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return 10;
    CUmemAllocationProp q;
    if (cuMemGetAllocationPropertiesFromHandle(&q, h) || q.location.id != 0)
        return 11;
    if (cuMemAddressReserve(&va, 2 * G, 0, 0, 0) || cuMemMap(va, 2 * G, 0, h, 0))
        return 12;
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    if (cuMemSetAccess(va, 2 * G, &d, 1))
        return 13;
    const unsigned *mem = (const unsigned *)(uintptr_t)va; /* device memory is host memory here */
    for (size_t i = 0; i < n; i++)
        if (mem[i] != expect[i])
            return 14;
    unsigned answer[4] = { 0xc0ffee, 1, 2, 3 };
    memcpy((void *)(uintptr_t)(va + G), answer, sizeof answer);
    return 0;
}

static void test_fd_across_fork(void **state)
{
    (void)state;
    CUmemAllocationProp p = prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    OK(cuMemCreate(&h, 2 * G, &p, 0));
    CUmemAllocationProp q;
    OK(cuMemGetAllocationPropertiesFromHandle(&q, h));
    assert_int_equal(q.requestedHandleTypes, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    OK(cuMemAddressReserve(&va, 2 * G, 0, 0, 0));
    OK(cuMemMap(va, 2 * G, 0, h, 0));
    CUmemAccessDesc d = rw(0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(va, 2 * G, &d, 1));
    unsigned pattern[64];
    for (unsigned i = 0; i < 64; i++)
        pattern[i] = i * 2654435761u;
    OK(cuMemcpyHtoD_v2(va, pattern, sizeof pattern));
    int fd = -1;
    ERR(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);
    ERR(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    assert_true(fd > 2);
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        _exit(child(fd, pattern, 64));
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    unsigned answer[4];
    OK(cuMemcpyDtoH_v2(answer, va + G, sizeof answer));
    assert_int_equal(answer[0], 0xc0ffee);
    assert_int_equal(answer[3], 3);
    /* imported here too: a second handle on the same memory */
    CUmemGenericAllocationHandle h2;
    OK(cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);
    assert_true(h2 != h);
    CUdeviceptr vb;
    OK(cuMemAddressReserve(&vb, 2 * G, 0, 0, 0));
    OK(cuMemMap(vb, 2 * G, 0, h2, 0));
    OK(cuMemSetAccess(vb, 2 * G, &d, 1));
    OK(cuMemcpyDtoH_v2(answer, vb + G, sizeof answer));
    assert_int_equal(answer[0], 0xc0ffee);
    OK(cuMemUnmap(vb, 2 * G));
    OK(cuMemRelease(h2));
    OK(cuMemAddressFree(vb, 2 * G));
    OK(cuMemUnmap(va, 2 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 2 * G));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_granularity),
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_compression),
        cmocka_unit_test(test_alias),
        cmocka_unit_test(test_kernel_across),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fixed_address),
        cmocka_unit_test(test_kernel_fault),
        cmocka_unit_test(test_fd_across_fork),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
