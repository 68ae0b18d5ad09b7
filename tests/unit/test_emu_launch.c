/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: what a launch needs that is not the PTX engine: the occupancy
 * calculator (clusters included), function and kernel attributes, and the
 * attributes of cuLaunchKernelEx. */
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

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry fill(.param .u64 p, .param .u32 v)\n"
    "{\n"
    "  .reg .u64 %rd<4>;\n  .reg .u32 %r<4>;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [v];\n"
    "  mov.u32 %r2, %tid.x;\n  mul.wide.u32 %rd2, %r2, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r1;\n  ret;\n"
    "}\n";

/* static shared memory, a managed and a plain global */
static const char ptx2[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .global .attribute(.managed) .align 4 .u32 counter;\n"
    ".visible .global .align 8 .u64 plain;\n"
    ".visible .entry shared_user(.param .u64 out, .param .u8 flag, .param .align 16 .b8 blob[24])\n"
    "{\n"
    "  .shared .align 4 .b8 buf[1024];\n"
    "  .reg .u64 %rd<3>;\n  .reg .u32 %r<3>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  st.shared.u32 [buf], %r1;\n  ld.shared.u32 %r2, [buf];\n"
    "  st.global.u32 [%rd1], %r2;\n  ret;\n"
    "}\n";

static CUcontext ctx;
static CUmodule mod;
static CUfunction fn;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoadData(&mod, ptx) ||
        cuModuleGetFunction(&fn, mod, "fill"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuModuleUnload(mod) || cuCtxDestroy(ctx) ? -1 : 0;
}

static CUlaunchConfig config(unsigned block, unsigned shmem, CUlaunchAttribute *attrs, unsigned n)
{
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = c.gridDimY = c.gridDimZ = 1;
    c.blockDimX = block;
    c.blockDimY = c.blockDimZ = 1;
    c.sharedMemBytes = shmem;
    c.attrs = attrs;
    c.numAttrs = n;
    return c;
}

static CUlaunchAttribute cluster_attr(unsigned x, unsigned y, unsigned z)
{
    CUlaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = x;
    a.value.clusterDim.y = y;
    a.value.clusterDim.z = z;
    return a;
}

/* kernels with a required cluster size (__cluster_dims__ gives
 * .explicitcluster and .reqnctapercluster), and one that must be launched
 * with a cluster size of the launch's choosing */
static const char ptx_cl[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry req(.param .u64 p) .explicitcluster .reqnctapercluster 2, 2, 1\n"
    "{\n  .reg .u64 %rd<3>;\n  .reg .u32 %r<3>;\n  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, %cluster_ctarank;\n"
    "  mov.u32 %r2, %ctaid.x;\n  mul.wide.u32 %rd2, %r2, 4;\n  add.u64 %rd1, %rd1, %rd2;\n"
    "  mov.u32 %r2, %ctaid.y;\n  mul.wide.u32 %rd2, %r2, 16;\n  add.u64 %rd1, %rd1, %rd2;\n"
    "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n"
    ".visible .entry must(.param .u64 p) .explicitcluster\n{\n  ret;\n}\n";

static void test_required_clusters(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction req, must;
    OK(cuModuleLoadData(&m, ptx_cl));
    OK(cuModuleGetFunction(&req, m, "req"));
    OK(cuModuleGetFunction(&must, m, "must"));
    int a;
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, req));
    assert_int_equal(a, 2);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, req));
    assert_int_equal(a, 2);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, req));
    assert_int_equal(a, 1);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, req));
    assert_int_equal(a, 0);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, must));
    assert_int_equal(a, 1);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fn));
    assert_int_equal(a, 0);

    /* a plain launch takes the kernel's size: the rank of each block of a 4 x 4 grid */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    void *args[] = { &p };
    OK(cuLaunchKernel(req, 4, 4, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    unsigned out[16];
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    for (unsigned y = 0; y < 4; y++)
        for (unsigned x = 0; x < 4; x++) assert_int_equal(out[y * 4 + x], x % 2 + 2 * (y % 2));
    /* a grid that is not a whole number of its clusters, another size */
    assert_int_equal(cuLaunchKernel(req, 3, 4, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    CUlaunchAttribute other = cluster_attr(4, 1, 1);
    CUlaunchConfig c = config(32, 0, &other, 1);
    c.gridDimX = c.gridDimY = 4;
    assert_int_equal(cuLaunchKernelEx(&c, req, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    CUlaunchAttribute same = cluster_attr(2, 2, 1);
    c = config(32, 0, &same, 1);
    c.gridDimX = c.gridDimY = 4;
    OK(cuLaunchKernelEx(&c, req, args, NULL));
    OK(cuCtxSynchronize());

    /* occupancy: the function's size when the configuration gives none */
    int per_sm = 0, sms = 0, n = -1;
    OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, req, 32, 0));
    c = config(32, 0, NULL, 0);
    OK(cuOccupancyMaxActiveClusters(&n, req, &c));
    assert_int_equal(n, per_sm * sms / 4);
    OK(cuOccupancyMaxPotentialClusterSize(&n, req, &c));
    assert_int_equal(n, 4);
    c = config(32, 0, &other, 1);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, req, &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuMemFree_v2(p));
    OK(cuModuleUnload(m));
}

/* Clusters on the h100 profile (cluster launch; profiles without it are
 * tested by tests/cudart/noclusters.cu): the device's resident blocks make
 * the clusters, portable sizes up to 8, non-portable up to 16 where the
 * function allows them. */
static void test_clusters(void **state)
{
    (void)state;
    int on = -1, sms = 0, per_sm = 0, per_sm128 = 0, n = -1;
    OK(cuDeviceGetAttribute(&on, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0));
    assert_int_equal(on, 1);
    OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0));
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm128, fn, 128, 0));
    assert_true(per_sm > 0);

    CUlaunchAttribute one = cluster_attr(1, 1, 1);
    CUlaunchConfig c = config(256, 0, &one, 1);
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, per_sm * sms);
    /* as cuBLAS probes them: 2..32 blocks in x */
    for (unsigned k = 2; k <= 32; k++) {
        CUlaunchAttribute a = cluster_attr(k, 1, 1);
        c = config(128, 0, &a, 1);
        n = -1;
        if (k <= 8) {
            OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
            assert_int_equal(n, per_sm128 * sms / (int)k);
        } else {
            assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
            assert_int_equal(n, -1);
        }
    }
    CUlaunchAttribute sixteen = cluster_attr(16, 1, 1);
    c = config(128, 0, &sixteen, 1);
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, per_sm128 * sms / 16);
    int size = -1;
    OK(cuOccupancyMaxPotentialClusterSize(&size, fn, &c));
    assert_int_equal(size, 16);
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 0));
    CUlaunchAttribute yz = cluster_attr(1, 2, 2);
    c = config(128, 0, &yz, 1);
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, per_sm128 * sms / 4);
    /* no size given, and the function requires none: documented as an error */
    c = config(128, 0, NULL, 0);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    /* a dimension of 0 */
    CUlaunchAttribute zero = cluster_attr(0, 1, 1);
    c = config(128, 0, &zero, 1);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    /* more dynamic shared memory than the function may use: none fits */
    c = config(256, 100000, &one, 1);
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, 0);
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000));
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, 2 * sms); /* 228 KiB per multiprocessor, 1 KiB reserved per block */
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 49152));

    /* the largest cluster: 8 blocks (portable), whatever the configuration's size */
    CUlaunchAttribute two = cluster_attr(2, 1, 1);
    c = config(256, 0, &two, 1);
    OK(cuOccupancyMaxPotentialClusterSize(&size, fn, &c));
    assert_int_equal(size, 8);
    c = config(2048, 0, NULL, 0); /* no block that large fits */
    OK(cuOccupancyMaxPotentialClusterSize(&size, fn, &c));
    assert_int_equal(size, 0);

    /* the configuration's stream names the context */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    c = config(256, 0, &one, 1);
    c.hStream = s;
    OK(cuOccupancyMaxActiveClusters(&n, fn, &c));
    assert_int_equal(n, per_sm * sms);
    OK(cuStreamDestroy(s));
    c.hStream = s; /* destroyed */
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_HANDLE);

    /* bad input */
    c = config(256, 0, &one, 1);
    assert_int_equal(cuOccupancyMaxActiveClusters(NULL, fn, &c), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, (CUfunction)&n, &c), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuOccupancyMaxPotentialClusterSize(NULL, fn, &c), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuOccupancyMaxPotentialClusterSize(&size, fn, NULL), CUDA_ERROR_INVALID_VALUE);
    c = config(256, 0, NULL, 3); /* attributes counted, none given */
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_VALUE);
    CUlaunchAttribute bad = one;
    bad.id = (CUlaunchAttributeID)99;
    c = config(256, 0, &bad, 1);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_VALUE);
    /* without a context */
    CUcontext cur;
    OK(cuCtxPopCurrent(&cur));
    c = config(256, 0, &one, 1);
    assert_int_equal(cuOccupancyMaxActiveClusters(&n, fn, &c), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxPushCurrent(cur));
}

/* cache and shared memory bank preferences: checked, kept, harmless */
static void test_cache_config(void **state)
{
    (void)state;
    CUfunc_cache cc;
    OK(cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_NONE);
    OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1));
    OK(cuCtxGetCacheConfig(&cc));
    assert_int_equal(cc, CU_FUNC_CACHE_PREFER_L1);
    assert_int_equal(cuCtxSetCacheConfig((CUfunc_cache)4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetCacheConfig(NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_NONE));
    CUsharedconfig sc;
    OK(cuCtxGetSharedMemConfig(&sc));
    assert_int_equal(sc, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
    OK(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
    OK(cuCtxGetSharedMemConfig(&sc)); /* banks are fixed: no change */
    assert_int_equal(sc, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
    assert_int_equal(cuCtxSetSharedMemConfig((CUsharedconfig)3), CUDA_ERROR_INVALID_VALUE);

    OK(cuFuncSetCacheConfig(fn, CU_FUNC_CACHE_PREFER_SHARED));
    assert_int_equal(cuFuncSetCacheConfig(fn, (CUfunc_cache)-1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncSetCacheConfig((CUfunction)&sc, CU_FUNC_CACHE_PREFER_L1), CUDA_ERROR_INVALID_HANDLE);
    OK(cuFuncSetSharedMemConfig(fn, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));
    assert_int_equal(cuFuncSetSharedMemConfig(fn, (CUsharedconfig)9), CUDA_ERROR_INVALID_VALUE);

    CUlibrary l;
    CUkernel k;
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "fill"));
    OK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_EQUAL, 0));
    assert_int_equal(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_EQUAL, 5), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuKernelSetCacheConfig(k, (CUfunc_cache)7, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuKernelSetCacheConfig((CUkernel)&sc, CU_FUNC_CACHE_PREFER_L1, 0), CUDA_ERROR_INVALID_HANDLE);
    OK(cuFuncSetCacheConfig((CUfunction)k, CU_FUNC_CACHE_PREFER_L1)); /* the runtime passes a kernel */
    /* the kernel still runs with its preference */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64 * 4));
    unsigned v = 7, out[64];
    void *args[] = { &p, &v };
    OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 7);
    OK(cuMemFree_v2(p));
    OK(cuLibraryUnload(l));
    assert_int_equal(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0), CUDA_ERROR_INVALID_HANDLE);
}

/* An entry's static shared memory is what it uses, as ptxas counts it: the
 * module's .shared variables the entry and the functions it calls use, not
 * every variable of the module (CUB's radix sort modules hold 340 KiB of
 * them; counted whole, the occupancy was 0 and CUB launched 0 blocks). */
static const char ptx_shared[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".shared .align 4 .b8 a_buf[1000];\n"
    ".shared .align 16 .b8 b_buf[40000];\n"
    ".shared .align 8 .b8 c_buf[3000];\n"
    ".shared .align 4 .b8 d_buf[500];\n"
    ".func helper()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, 1;\n st.shared.u32 [c_buf], %r1;\n ret;\n}\n"
    ".func via_pointer()\n{\n .reg .b32 %r<2>;\n mov.u32 %r1, 2;\n st.shared.u32 [d_buf+4], %r1;\n ret;\n}\n"
    ".visible .entry uses_a(.param .u64 p)\n{\n .reg .b32 %r<2>;\n"
    " mov.u32 %r1, 3;\n st.shared.u32 [a_buf], %r1;\n ret;\n}\n"
    ".visible .entry uses_b_c(.param .u64 p)\n{\n .reg .b32 %r<2>;\n"
    " mov.u32 %r1, 4;\n st.shared.u32 [b_buf+8], %r1;\n call helper, ();\n ret;\n}\n"
    ".visible .entry uses_none(.param .u64 p)\n{\n ret;\n}\n"
    ".visible .entry calls_pointer(.param .u64 p)\n{\n .reg .b64 %rd<2>;\n"
    " mov.u64 %rd1, via_pointer;\n"
    " prot: .callprototype ()_ ();\n call %rd1, (), prot;\n ret;\n}\n";

static void test_static_shared_per_entry(void **state)
{
    (void)state;
    CUmodule m;
    OK(cuModuleLoadData(&m, ptx_shared));
    static const struct { const char *name; int bytes; } want[] = {
        { "uses_a", 1000 },
        { "uses_b_c", 40000 + 3000 },  /* b at 0, c at 40000 (8-aligned) */
        { "uses_none", 0 },
        { "calls_pointer", 500 },      /* what the pointer may reach */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CUfunction f;
        OK(cuModuleGetFunction(&f, m, want[i].name));
        int a;
        OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
        assert_int_equal(a, want[i].bytes);
        OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
        assert_int_equal(a, 49152 - want[i].bytes);
        int blocks = 0;
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 0));
        assert_true(blocks > 0);
    }
    /* each runs in its own window: its variables and the dynamic memory */
    CUfunction f;
    OK(cuModuleGetFunction(&f, m, "uses_b_c"));
    CUdeviceptr p = 0;
    void *args[] = { &p };
    OK(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 49152 - 43000, NULL, args, NULL));
    OK(cuModuleGetFunction(&f, m, "calls_pointer"));
    OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuModuleUnload(m));
}

/* function attributes from the PTX; parameters; managed variables */
static void test_function_attributes(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction f;
    OK(cuModuleLoadData(&m, ptx2));
    OK(cuModuleGetFunction(&f, m, "shared_user"));
    int a;
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    assert_int_equal(a, 1024);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    assert_int_equal(a, 49152 - 1024); /* 48 KiB less the static, until set */
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
    assert_int_equal(a, 80); /* the PTX's target */
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
    assert_int_equal(a, 90); /* compiled for the device */
    /* the dynamic shared memory a launch may use: the attribute, at most
     * the opt-in less the static */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 4));
    unsigned char flag = 1, blob[24] = { 0 };
    void *args[] = { &p, &flag, blob };
    OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 49152 - 1024, NULL, args, NULL));
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 49152 - 1023, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    int optin;
    OK(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
    assert_int_equal(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - 1023),
                     CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - 1024));
    OK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, (unsigned)optin - 1024, NULL, args, NULL));
    OK(cuCtxSynchronize());
    unsigned out = 99;
    OK(cuMemcpyDtoH_v2(&out, p, 4));
    assert_true(out < 32); /* some thread's id went through shared memory */
    OK(cuMemFree_v2(p));

    /* where each parameter lies: u64 at 0, u8 at 8, a 16-aligned blob at 16 */
    size_t off, size;
    OK(cuFuncGetParamInfo(f, 0, &off, &size));
    assert_int_equal(off, 0);
    assert_int_equal(size, 8);
    OK(cuFuncGetParamInfo(f, 1, &off, NULL));
    assert_int_equal(off, 8);
    OK(cuFuncGetParamInfo(f, 2, &off, &size));
    assert_int_equal(off, 16);
    assert_int_equal(size, 24);
    assert_int_equal(cuFuncGetParamInfo(f, 3, &off, &size), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetParamInfo(f, (size_t)-1, &off, &size), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetParamInfo(f, 0, NULL, &size), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncGetParamInfo((CUfunction)&off, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
    CUfunctionLoadingState st = CU_FUNCTION_LOADING_STATE_UNLOADED;
    OK(cuFuncLoad(f));
    OK(cuFuncIsLoaded(&st, f));
    assert_int_equal(st, CU_FUNCTION_LOADING_STATE_LOADED);
    assert_int_equal(cuFuncIsLoaded(NULL, f), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuFuncIsLoaded(&st, (CUfunction)&st), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuFuncLoad((CUfunction)&st), CUDA_ERROR_INVALID_HANDLE);
    OK(cuModuleUnload(m));

    /* the same through a library and its kernel */
    CUlibrary l;
    CUkernel k;
    OK(cuLibraryLoadData(&l, ptx2, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "shared_user"));
    OK(cuKernelGetParamInfo(k, 2, &off, &size));
    assert_int_equal(off, 16);
    assert_int_equal(size, 24);
    assert_int_equal(cuKernelGetParamInfo(k, 3, &off, &size), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuKernelGetParamInfo((CUkernel)&off, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
    OK(cuKernelGetAttribute(&a, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k, 0));
    assert_int_equal(a, 1024);
    /* managed variables: the managed one only */
    CUdeviceptr mp, gp;
    size_t bytes;
    OK(cuLibraryGetManaged(&mp, &bytes, l, "counter"));
    assert_int_equal(bytes, 4);
    OK(cuLibraryGetGlobal(&gp, NULL, l, "counter"));
    assert_true(mp == gp);
    *(volatile unsigned *)(uintptr_t)mp = 5; /* managed: the host reaches it */
    OK(cuLibraryGetManaged(NULL, &bytes, l, "counter"));
    assert_int_equal(cuLibraryGetManaged(&mp, &bytes, l, "plain"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(cuLibraryGetManaged(&mp, &bytes, l, "nope"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(cuLibraryGetManaged(NULL, NULL, l, "counter"), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryGetManaged(&mp, &bytes, (CUlibrary)&mp, "counter"), CUDA_ERROR_INVALID_HANDLE);
    void *uf;
    assert_int_equal(cuLibraryGetUnifiedFunction(&uf, l, "shared_user"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(cuLibraryGetUnifiedFunction(NULL, l, "shared_user"), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryGetUnifiedFunction(&uf, (CUlibrary)&uf, "x"), CUDA_ERROR_INVALID_HANDLE);
    OK(cuLibraryUnload(l));
}

static CUlaunchAttribute attr(CUlaunchAttributeID id)
{
    CUlaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = id;
    return a;
}

/* fill with v through cuLaunchKernelEx with these attributes */
static CUresult fill_ex(CUdeviceptr p, unsigned v, unsigned grid, CUlaunchAttribute *attrs, unsigned n, CUstream s)
{
    CUlaunchConfig c = config(64, 0, attrs, n);
    c.gridDimX = grid;
    c.hStream = s;
    void *args[] = { &p, &v };
    return cuLaunchKernelEx(&c, fn, args, NULL);
}

static void test_launch_attributes(void **state)
{
    (void)state;
    CUdeviceptr p;
    unsigned out[64];
    OK(cuMemAlloc_v2(&p, sizeof out));
    OK(cuMemsetD8_v2(p, 0, sizeof out));

    /* hints: checked, and the kernel runs */
    CUlaunchAttribute hints[10];
    hints[0] = attr(CU_LAUNCH_ATTRIBUTE_PRIORITY);
    hints[0].value.priority = -2;
    hints[1] = attr(CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY);
    hints[1].value.syncPolicy = CU_SYNC_POLICY_YIELD;
    hints[2] = attr(CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
    hints[2].value.accessPolicyWindow.base_ptr = (void *)(uintptr_t)p;
    hints[2].value.accessPolicyWindow.num_bytes = sizeof out;
    hints[2].value.accessPolicyWindow.hitRatio = 1.0f;
    hints[2].value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    hints[3] = attr(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN);
    hints[3].value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    hints[4] = attr(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP);
    hints[4].value.memSyncDomainMap.remote = 3;
    hints[5] = attr(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
    hints[5].value.programmaticStreamSerializationAllowed = 1;
    hints[6] = attr(CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    hints[6].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
    hints[7] = attr(CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    hints[7].value.sharedMemCarveout = 50;
    hints[8] = attr(CU_LAUNCH_ATTRIBUTE_IGNORE);
    hints[9] = attr(CU_LAUNCH_ATTRIBUTE_COOPERATIVE); /* 0: an ordinary launch */
    OK(fill_ex(p, 3, 1, hints, 10, NULL));
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 3);

    /* each bad value, alone: refused, nothing runs */
    static const struct { CUlaunchAttributeID id; int field; unsigned value; } bad[] = {
        { CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, 0, 9 },
        { CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, 0, 2 },
        { CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 0, 3 },
        { CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 0, 101 },
        { CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING, 0, 2 },
        { CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, 0, 1 }, /* graphs only */
        { (CUlaunchAttributeID)99, 0, 0 },
        { (CUlaunchAttributeID)15, 0, 0 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CUlaunchAttribute a = attr(bad[i].id);
        memcpy(&a.value, &bad[i].value, sizeof bad[i].value);
        assert_int_equal(fill_ex(p, 4, 1, &a, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    }
    CUlaunchAttribute map = attr(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP);
    map.value.memSyncDomainMap.default_ = 4;
    assert_int_equal(fill_ex(p, 4, 1, &map, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    CUlaunchAttribute apw = hints[2];
    apw.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_PERSISTING;
    assert_int_equal(fill_ex(p, 4, 1, &apw, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    CUlaunchConfig none = config(64, 0, NULL, 1);
    void *args0[] = { &p, &p };
    assert_int_equal(cuLaunchKernelEx(&none, fn, args0, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    assert_int_equal(out[0], 3);

    /* cooperative: the grid runs (every block resident); one larger than
     * the occupancy allows at once is refused */
    CUlaunchAttribute coop = attr(CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
    coop.value.cooperative = 1;
    OK(fill_ex(p, 4, 1, &coop, 1, NULL));
    OK(cuCtxSynchronize());
    int per_sm = 0, nsm = 0;
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 64, 0));
    OK(cuDeviceGetAttribute(&nsm, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
    CUlaunchConfig big = config(64, 0, &coop, 1);
    big.gridDimX = (unsigned)(per_sm * nsm) + 1;
    void *argsb[] = { &p, &p };
    assert_int_equal(cuLaunchKernelEx(&big, fn, argsb, NULL), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    assert_int_equal(cuLaunchCooperativeKernel(fn, big.gridDimX, 1, 1, 64, 1, 1, 0, NULL, argsb),
                     CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    assert_int_equal(cuLaunchCooperativeKernel(NULL, 1, 1, 1, 64, 1, 1, 0, NULL, argsb), CUDA_ERROR_INVALID_HANDLE);

    /* clusters: one block is a block; more, or a size that does not divide
     * the grid, are invalid cluster sizes; a preferred cluster is a multiple
     * of the regular one that divides the grid */
    CUlaunchAttribute cl[2] = { attr(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION),
                                attr(CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION) };
    cl[0].value.clusterDim.x = cl[0].value.clusterDim.y = cl[0].value.clusterDim.z = 1;
    cl[1].value.preferredClusterDim.x = 2;
    cl[1].value.preferredClusterDim.y = cl[1].value.preferredClusterDim.z = 1;
    OK(fill_ex(p, 5, 4, cl, 2, NULL));
    cl[1].value.preferredClusterDim.x = 3; /* does not divide 4 */
    assert_int_equal(fill_ex(p, 6, 4, cl, 2, NULL), CUDA_ERROR_INVALID_VALUE);
    cl[1].value.preferredClusterDim.x = 2;
    cl[1].value.preferredClusterDim.z = 2; /* z must equal the regular one */
    assert_int_equal(fill_ex(p, 6, 4, cl, 2, NULL), CUDA_ERROR_INVALID_VALUE);
    cl[0].value.clusterDim.x = 3; /* does not divide the grid */
    assert_int_equal(fill_ex(p, 6, 4, cl, 1, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    cl[0].value.clusterDim.x = 0;
    assert_int_equal(fill_ex(p, 6, 4, cl, 1, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    assert_int_equal(out[0], 5);
    cl[0].value.clusterDim.x = 2; /* the h100 profile launches clusters */
    OK(fill_ex(p, 6, 4, cl, 1, NULL));
    cl[0].value.clusterDim.x = 16; /* non-portable: the function must allow it */
    assert_int_equal(fill_ex(p, 7, 16, cl, 1, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    assert_int_equal(fill_ex(p, 7, 32, cl, 1, NULL), CUDA_SUCCESS);
    cl[0].value.clusterDim.x = 32; /* more than 16: never */
    assert_int_equal(fill_ex(p, 7, 32, cl, 1, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 0));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    assert_int_equal(out[0], 7);

    /* events recorded with the launch: after the kernel, on its stream */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUevent prog, done, timed, ipc;
    OK(cuEventCreate(&prog, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&timed, 0));
    OK(cuEventCreate(&ipc, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
    CUlaunchAttribute ev[2] = { attr(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT),
                                attr(CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT) };
    ev[0].value.programmaticEvent.event = prog;
    ev[0].value.programmaticEvent.triggerAtBlockStart = 1;
    ev[1].value.launchCompletionEvent.event = done;
    OK(fill_ex(p, 8, 1, ev, 2, s));
    OK(cuEventSynchronize(prog));
    OK(cuMemcpyDtoH_v2(out, p, sizeof out)); /* the kernel ran before the event */
    for (int i = 0; i < 64; i++)
        assert_int_equal(out[i], 8);
    OK(cuEventSynchronize(done));
    OK(cuEventQuery(done));
    CUlaunchAttribute e1 = ev[0];
    e1.value.programmaticEvent.event = timed; /* must disable timing */
    assert_int_equal(fill_ex(p, 9, 1, &e1, 1, s), CUDA_ERROR_INVALID_VALUE);
    e1.value.programmaticEvent.event = ipc; /* must not be interprocess */
    assert_int_equal(fill_ex(p, 9, 1, &e1, 1, s), CUDA_ERROR_INVALID_VALUE);
    e1.value.programmaticEvent.event = prog;
    e1.value.programmaticEvent.flags = CU_EVENT_RECORD_EXTERNAL;
    assert_int_equal(fill_ex(p, 9, 1, &e1, 1, s), CUDA_ERROR_INVALID_VALUE);
    CUlaunchAttribute e2 = ev[1];
    e2.value.launchCompletionEvent.event = (CUevent)&e2;
    assert_int_equal(fill_ex(p, 9, 1, &e2, 1, s), CUDA_ERROR_INVALID_HANDLE);
    CUlaunchAttribute three[3] = { ev[0], ev[1], ev[1] };
    assert_int_equal(fill_ex(p, 9, 1, three, 3, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH_v2(out, p, sizeof out));
    assert_int_equal(out[0], 8);
    OK(cuEventDestroy(prog));
    OK(cuEventDestroy(done));
    OK(cuEventDestroy(timed));
    OK(cuEventDestroy(ipc));
    OK(cuStreamDestroy(s));
    OK(cuMemFree_v2(p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clusters),
        cmocka_unit_test(test_required_clusters),
        cmocka_unit_test(test_cache_config),
        cmocka_unit_test(test_function_attributes),
        cmocka_unit_test(test_static_shared_per_entry),
        cmocka_unit_test(test_launch_attributes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
