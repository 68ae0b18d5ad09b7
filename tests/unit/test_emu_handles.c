/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: every handle type is in the registry. Destroying a handle twice
 * returns the driver's documented error (CUDA_ERROR_INVALID_HANDLE; for a
 * context CUDA_ERROR_INVALID_CONTEXT, for a memory pool and for memory
 * CUDA_ERROR_INVALID_VALUE), and so does using it after destroy: never a
 * crash. Also the misuse the driver documents: a module of a library
 * cannot be unloaded on its own (CUDA_ERROR_NOT_PERMITTED). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 1;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    return cuInit(0) || cuCtxCreate(&ctx, 0, 0) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy_v2(ctx) ? -1 : 0;
}

static void test_context(void **state)
{
    (void)state;
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 0));
    OK(cuCtxDestroy_v2(c));
    assert_int_equal(cuCtxDestroy_v2(c), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxPushCurrent_v2(c), CUDA_ERROR_INVALID_CONTEXT);
    unsigned v;
    assert_int_equal(cuCtxGetApiVersion(c, &v), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxSynchronize_v2(c), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(ctx));
}

static void test_stream(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuStreamDestroy_v2(s));
    assert_int_equal(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    assert_int_equal(cuMemsetD8Async(p, 0, 64, s), CUDA_ERROR_INVALID_HANDLE);
    OK(cuMemFree_v2(p));
}

static void test_event(void **state)
{
    (void)state;
    CUevent e;
    OK(cuEventCreate(&e, 0));
    OK(cuEventRecord(e, NULL));
    OK(cuEventDestroy_v2(e));
    assert_int_equal(cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventRecord(e, NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventSynchronize(e), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamWaitEvent(NULL, e, 0), CUDA_ERROR_INVALID_HANDLE);
}

static void test_module_and_function(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction f;
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&f, m, "k"));
    OK(cuModuleUnload(m));
    assert_int_equal(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunction(&f, m, "k"), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr g;
    assert_int_equal(cuModuleGetGlobal_v2(&g, NULL, m, "x"), CUDA_ERROR_INVALID_HANDLE);
    /* the module's functions went with it */
    CUdeviceptr p = 0;
    void *args[] = { &p };
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    int v;
    assert_int_equal(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_ERROR_INVALID_HANDLE);
}

static void test_library_and_kernel(void **state)
{
    (void)state;
    CUlibrary l;
    CUkernel k;
    CUmodule m;
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "k"));
    OK(cuLibraryGetModule(&m, l));
    /* a library's module is the library's to unload */
    assert_int_equal(cuModuleUnload(m), CUDA_ERROR_NOT_PERMITTED);
    OK(cuLibraryUnload(l));
    assert_int_equal(cuLibraryUnload(l), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLibraryGetKernel(&k, l, "k"), CUDA_ERROR_INVALID_HANDLE);
    CUfunction f;
    assert_int_equal(cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr p = 0;
    void *args[] = { &p };
    assert_int_equal(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunction(&f, m, "k"), CUDA_ERROR_INVALID_HANDLE);
}

static void test_pool(void **state)
{
    (void)state;
    CUmemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    pp.location.id = 0;
    CUmemoryPool pool;
    OK(cuMemPoolCreate(&pool, &pp));
    OK(cuMemPoolDestroy(pool));
    assert_int_equal(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    cuuint64_t v;
    assert_int_equal(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr p;
    assert_int_equal(cuMemAllocFromPoolAsync(&p, 64, pool, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_link_state(void **state)
{
    (void)state;
    CUlinkState ls;
    void *out;
    size_t n;
    OK(cuLinkCreate_v2(0, NULL, NULL, &ls));
    OK(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, (void *)ptx, sizeof ptx, "k.ptx", 0, NULL, NULL));
    OK(cuLinkComplete(ls, &out, &n));
    CUmodule m;
    OK(cuModuleLoadData(&m, out));
    OK(cuModuleUnload(m));
    OK(cuLinkDestroy(ls));
    assert_int_equal(cuLinkDestroy(ls), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, (void *)ptx, sizeof ptx, "k.ptx", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLinkComplete(ls, &out, &n), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLinkDestroy((CUlinkState)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
}

static void test_memory(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuMemFree_v2(p));
    assert_int_equal(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuMemsetD8_v2(p, 0, 64), CUDA_ERROR_INVALID_VALUE);
    void *h;
    OK(cuMemHostAlloc(&h, 64, 0));
    OK(cuMemFreeHost(h));
    assert_int_equal(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    static char buf[4096];
    OK(cuMemHostRegister_v2(buf, sizeof buf, 0));
    OK(cuMemHostUnregister(buf));
    assert_int_equal(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    OK(cuMemAllocAsync(&p, 64, NULL));
    OK(cuMemFreeAsync(p, NULL));
    OK(cuCtxSynchronize());
    assert_int_equal(cuMemFreeAsync(p, NULL), CUDA_ERROR_INVALID_VALUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_event),
        cmocka_unit_test(test_module_and_function),
        cmocka_unit_test(test_library_and_kernel),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_link_state),
        cmocka_unit_test(test_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
