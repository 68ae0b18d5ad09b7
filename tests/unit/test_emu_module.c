/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: modules and libraries from PTX text, functions, kernels,
 * globals, attributes; launches are validated, then run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter;\n"
    ".visible .const .align 8 .f64 coef[4];\n"
    ".visible .entry add(.param .u64 a, .param .u64 b, .param .u32 n) { ret; }\n"
    ".visible .entry noargs() { ret; }\n";

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    setenv("TDTRACE_EMU_DEVICES", "2", 1); /* test_kernel_attr_device */
    return cuInit(0) || cuCtxCreate(&ctx, 0, 0) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy(ctx) ? -1 : 0;
}

static void test_module(void **state)
{
    (void)state;
    CUmodule m;
    OK(cuModuleLoadData(&m, ptx));
    CUfunction f, f2;
    OK(cuModuleGetFunction(&f, m, "add"));
    OK(cuModuleGetFunction(&f2, m, "add"));
    assert_ptr_equal(f, f2);
    assert_int_equal(cuModuleGetFunction(&f2, m, "nope"), CUDA_ERROR_NOT_FOUND);
    unsigned n;
    OK(cuModuleGetFunctionCount(&n, m));
    assert_int_equal(n, 2);
    CUdeviceptr g;
    size_t sz;
    OK(cuModuleGetGlobal_v2(&g, &sz, m, "counter"));
    assert_int_equal(sz, 4);
    unsigned v = 41;
    OK(cuMemcpyHtoD_v2(g, &v, 4));  /* a global is device memory */
    OK(cuModuleGetGlobal_v2(&g, &sz, m, "coef"));
    assert_int_equal(sz, 32);
    assert_int_equal(cuModuleGetGlobal_v2(&g, &sz, m, "zz"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(cuMemFree_v2(g), CUDA_ERROR_INVALID_VALUE); /* not the program's to free */
    const char *name;
    OK(cuFuncGetName(&name, f));
    assert_string_equal(name, "add");
    CUmodule back;
    OK(cuFuncGetModule(&back, f));
    assert_ptr_equal(back, m);
    int a;
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    assert_int_equal(a, 1024);
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f));
    assert_int_equal(a, 32);
    OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000));
    OK(cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
    assert_int_equal(a, 100000);
    assert_int_equal(cuFuncGetAttribute(&a, (CUfunction_attribute)99, f), CUDA_ERROR_INVALID_VALUE);
    CUmoduleLoadingMode mode;
    OK(cuModuleGetLoadingMode(&mode)); /* CUDA_MODULE_LOADING unset: lazy, the driver's default */
    assert_int_equal(mode, CU_MODULE_LAZY_LOADING);
    emu_eager_loading = 1; /* as CUDA_MODULE_LOADING=EAGER when cuInit ran */
    OK(cuModuleGetLoadingMode(&mode));
    assert_int_equal(mode, CU_MODULE_EAGER_LOADING);
    emu_eager_loading = 0;
    assert_int_equal(cuModuleGetLoadingMode(NULL), CUDA_ERROR_INVALID_VALUE);

    /* launches: arguments first, then the honest refusal */
    CUdeviceptr x = 0, y = 0;
    unsigned cnt = 1;
    void *args[] = { &x, &y, &cnt };
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS); /* runs on the PTX engine */
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel(f, 1, 70000, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 200000, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchKernel((CUfunction)&a, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)&a, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
    assert_int_equal(cuLaunchKernelEx(&cfg, f, args, NULL), CUDA_SUCCESS); /* runs on the PTX engine */
    assert_int_equal(cuLaunchKernelEx(NULL, f, args, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuModuleUnload(m));
    assert_int_equal(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleGetFunction(&f2, m, "add"), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuModuleLoadData(&m, "this is no image"), CUDA_ERROR_INVALID_IMAGE);
    assert_int_equal(cuModuleLoadData(&m, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleLoad(&m, "/nonexistent/file.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
}

static void test_module_file(void **state)
{
    (void)state;
    char path[] = "/tmp/emu-modXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, ptx, sizeof ptx - 1), (int)(sizeof ptx - 1));
    close(fd);
    CUmodule m;
    OK(cuModuleLoad(&m, path));
    CUfunction f;
    OK(cuModuleGetFunction(&f, m, "noargs"));
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS); /* runs on the PTX engine */
    OK(cuModuleUnload(m));
    CUlibrary l;
    OK(cuLibraryLoadFromFile(&l, path, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryUnload(l));
    CUlibraryOption preserved = CU_LIBRARY_BINARY_IS_PRESERVED; /* invalid for a file, as documented */
    assert_int_equal(cuLibraryLoadFromFile(&l, path, NULL, NULL, 0, &preserved, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    unlink(path);
}

static void test_library(void **state)
{
    (void)state;
    CUlibrary l;
    CUlibraryOption opt = CU_LIBRARY_BINARY_IS_PRESERVED;
    void *val = (void *)1;
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, &opt, &val, 1));
    CUkernel k, k2;
    OK(cuLibraryGetKernel(&k, l, "add"));
    OK(cuLibraryGetKernel(&k2, l, "add"));
    assert_ptr_equal(k, k2);
    assert_int_equal(cuLibraryGetKernel(&k2, l, "zz"), CUDA_ERROR_NOT_FOUND);
    unsigned n;
    OK(cuLibraryGetKernelCount(&n, l));
    assert_int_equal(n, 2);
    CUfunction f;
    OK(cuKernelGetFunction(&f, k));
    CUmodule m;
    OK(cuLibraryGetModule(&m, l));
    CUmodule fm;
    OK(cuFuncGetModule(&fm, f));
    assert_ptr_equal(fm, m);
    CUdeviceptr g;
    size_t sz;
    OK(cuLibraryGetGlobal(&g, &sz, l, "counter"));
    assert_int_equal(sz, 4);
    CUdeviceptr g2;
    OK(cuModuleGetGlobal_v2(&g2, NULL, m, "counter"));
    assert_true(g == g2);
    int a;
    OK(cuKernelGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0));
    assert_int_equal(a, 1024);
    assert_int_equal(cuKernelGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 9), CUDA_ERROR_INVALID_DEVICE);
    /* the runtime passes a CUkernel as the CUfunction */
    CUdeviceptr x = 0, y = 0;
    unsigned cnt = 1;
    void *args[] = { &x, &y, &cnt };
    assert_int_equal(cuLaunchKernel((CUfunction)k, 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS); /* runs on the PTX engine */
    assert_int_equal(cuLaunchKernel((CUfunction)k, 4, 1, 1, 4096, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    /* a packed buffer shorter than the parameters: its bytes start them, the
     * rest are zero (NCCL passes the used part of a 4 KiB struct) */
    CUdeviceptr part = 0;
    size_t psz = sizeof part;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &part, CU_LAUNCH_PARAM_BUFFER_SIZE, &psz, CU_LAUNCH_PARAM_END };
    OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, extra));
    void *nosize[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &part, CU_LAUNCH_PARAM_END };
    assert_int_equal(cuLaunchKernel((CUfunction)k, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, nosize), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());
    const char *name;
    OK(cuKernelGetName(&name, k));
    assert_string_equal(name, "add");
    assert_int_equal(cuModuleUnload(m), CUDA_ERROR_NOT_PERMITTED); /* belongs to the library (as the driver documents) */
    OK(cuLibraryUnload(l));
    assert_int_equal(cuLibraryUnload(l), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuLibraryLoadData(&l, NULL, NULL, NULL, 0, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryLoadData(&l, ptx, NULL, NULL, 2, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    /* library options: "preserved" takes no value (cuBLASLt passes none) */
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, &opt, NULL, 1));
    OK(cuLibraryUnload(l));
    CUlibraryOption table = CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE, bad = CU_LIBRARY_NUM_OPTIONS;
    assert_int_equal(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, &table, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    void *none = NULL;
    assert_int_equal(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, &table, &none, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, &bad, &val, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, NULL, &val, 1), CUDA_ERROR_INVALID_VALUE);
}

/* cuKernelSetAttribute is device-wide: the functions cuKernelGetFunction
 * gives in a context of that device follow it, made before or after; the
 * other device keeps its own value */
static void test_kernel_attr_device(void **state)
{
    (void)state;
    int ndev = 0;
    OK(cuDeviceGetCount(&ndev));
    assert_int_equal(ndev, 2);
    CUlibrary l;
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel k;
    OK(cuLibraryGetKernel(&k, l, "noargs"));
    CUfunction before, after;
    OK(cuKernelGetFunction(&before, k)); /* in ctx, on device 0 */
    int v = -1;
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, before));
    assert_int_equal(v, 49152);
    assert_int_equal(cuLaunchKernel(before, 1, 1, 1, 1, 1, 1, 80000, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 80000, k, 0));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, before));
    assert_int_equal(v, 80000);
    OK(cuLaunchKernel(before, 1, 1, 1, 1, 1, 1, 80000, NULL, NULL, NULL));
    OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 80000, NULL, NULL, NULL));
    OK(cuKernelGetFunction(&after, k));
    assert_ptr_equal(after, before);
    OK(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k, 1));
    assert_int_equal(v, 49152); /* device 1: untouched */
    /* a context on device 1: its function starts from device 1's value */
    CUcontext c1;
    CUdevice d1;
    OK(cuDeviceGet(&d1, 1));
    OK(cuCtxCreate(&c1, 0, d1));
    CUfunction f1;
    OK(cuKernelGetFunction(&f1, k));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f1));
    assert_int_equal(v, 49152);
    assert_int_equal(cuLaunchKernel(f1, 1, 1, 1, 1, 1, 1, 80000, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 60000, k, 1));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f1));
    assert_int_equal(v, 60000);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, before));
    assert_int_equal(v, 80000);
    /* a value beyond the opt-in maximum changes nothing anywhere */
    assert_int_equal(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30, k, 1),
                     CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f1));
    assert_int_equal(v, 60000);
    OK(cuCtxSynchronize());
    OK(cuCtxDestroy(c1));
    OK(cuCtxSetCurrent(ctx));
    OK(cuCtxSynchronize());
    OK(cuLibraryUnload(l));
}

/* A library's __managed__ variable is the library's, as the driver's:
 * cuLibraryGetManaged answers with no current context (the runtime asks
 * before making one), initialised from the PTX; every context's module
 * and kernel uses that one copy. */
static const char managed_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".global .attribute(.managed) .align 4 .u32 counter = 5;\n"
    ".visible .entry inc() { .reg .b32 %r<2>; .reg .b64 %rd<2>; mov.u64 %rd1, counter; "
    "atom.global.add.u32 %r1, [%rd1], 1; ret; }\n";

static void test_library_managed(void **state)
{
    (void)state;
    CUcontext saved = NULL;
    OK(cuCtxPopCurrent(&saved)); /* no context current */
    CUcontext none = (CUcontext)1;
    OK(cuCtxGetCurrent(&none));
    assert_null(none);
    CUlibrary l;
    OK(cuLibraryLoadData(&l, managed_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUdeviceptr p = 0;
    size_t sz = 0;
    OK(cuLibraryGetManaged(&p, &sz, l, "counter"));
    assert_int_equal(sz, 4);
    assert_int_equal(*(volatile unsigned *)(uintptr_t)p, 5);
    assert_int_equal(cuLibraryGetManaged(&p, &sz, l, "nope"), CUDA_ERROR_NOT_FOUND);
    /* two contexts on two devices: one copy */
    OK(cuCtxPushCurrent(saved));
    CUkernel k;
    OK(cuLibraryGetKernel(&k, l, "inc"));
    OK(cuLaunchKernel((CUfunction)k, 2, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    OK(cuCtxSynchronize());
    assert_int_equal(*(volatile unsigned *)(uintptr_t)p, 5 + 64);
    CUmodule m;
    CUdeviceptr g;
    OK(cuLibraryGetModule(&m, l));
    OK(cuModuleGetGlobal_v2(&g, NULL, m, "counter"));
    assert_true(g == p);
    CUdevice d1;
    CUcontext c1;
    OK(cuDeviceGet(&d1, 1));
    OK(cuCtxCreate(&c1, 0, d1));
    OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL)); /* module made here: not reset */
    OK(cuCtxSynchronize());
    assert_int_equal(*(volatile unsigned *)(uintptr_t)p, 5 + 65);
    OK(cuLibraryGetModule(&m, l));
    OK(cuModuleGetGlobal_v2(&g, NULL, m, "counter"));
    assert_true(g == p);
    OK(cuCtxDestroy(c1)); /* its module goes; the variable stays */
    OK(cuCtxSetCurrent(ctx));
    assert_int_equal(*(volatile unsigned *)(uintptr_t)p, 5 + 65);
    OK(cuLibraryUnload(l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module),
        cmocka_unit_test(test_kernel_attr_device),
        cmocka_unit_test(test_module_file),
        cmocka_unit_test(test_library),
        cmocka_unit_test(test_library_managed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
