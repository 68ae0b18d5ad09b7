/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: freeing or unloading what a running kernel uses. cuMemFree,
 * cuMemFreeHost and cuModuleUnload wait for the work in flight (the
 * kernel completes, unharmed); context destroy lets the work finish; a
 * free that does not wait (stream-ordered memory, whose cuMemFree and
 * cuMemFreeAsync the driver documents as not synchronising) may make the
 * kernel fault, as on a GPU, but never harms the host: the memory stays
 * mapped until no kernel runs (under ASan a use after free would stop the
 * test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

/* spin(p, n): n steps, then the count stored at p; spin_g(n): the same
 * into the module's global g */
static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".global .align 4 .u32 g;\n"
    ".visible .entry spin(.param .u64 p, .param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r1, [n];\n    mov.u32 %r2, 0;\n"
    "$L_a:\n    add.u32 %r2, %r2, 1;\n    setp.lt.u32 %p1, %r2, %r1;\n    @%p1 bra $L_a;\n"
    "    st.global.u32 [%rd1], %r2;\n    ret;\n}\n"
    ".visible .entry spin_g(.param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n"
    "    ld.param.u32 %r1, [n];\n    mov.u32 %r2, 0;\n"
    "$L_b:\n    add.u32 %r2, %r2, 1;\n    setp.lt.u32 %p1, %r2, %r1;\n    @%p1 bra $L_b;\n"
    "    mov.u64 %rd1, g;\n    st.global.u32 [%rd1], %r2;\n    ret;\n}\n";

#define SPIN 300000u

static CUcontext ctx;
static CUmodule mod;
static CUfunction spin;

static int setup(void **state)
{
    (void)state;
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0) || cuModuleLoadData(&mod, ptx) ||
        cuModuleGetFunction(&spin, mod, "spin"))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy_v2(ctx) ? -1 : 0;
}

static void launch_spin(CUdeviceptr p, CUstream s)
{
    unsigned n = SPIN;
    void *args[] = { &p, &n };
    OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void test_free_waits(void **state)
{
    (void)state;
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    launch_spin(p, NULL);
    OK(cuMemFree_v2(p));
    OK(cuCtxSynchronize()); /* the kernel did not fault */
}

static void test_free_waits_other_stream(void **state)
{
    (void)state;
    CUstream s;
    CUdeviceptr p;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemAlloc_v2(&p, 64));
    launch_spin(p, s);
    OK(cuMemFree_v2(p));
    OK(cuStreamSynchronize(s));
    OK(cuStreamDestroy_v2(s));
}

static void test_free_host_waits(void **state)
{
    (void)state;
    void *h;
    OK(cuMemHostAlloc(&h, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    CUdeviceptr d;
    OK(cuMemHostGetDevicePointer_v2(&d, h, 0));
    launch_spin(d, NULL);
    OK(cuMemFreeHost(h));
    OK(cuCtxSynchronize());
}

static void test_unload_waits(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction f;
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&f, m, "spin_g"));
    unsigned n = SPIN;
    void *args[] = { &n };
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    OK(cuModuleUnload(m)); /* the kernel writes the module's global at its end */
    OK(cuCtxSynchronize());
}

static void test_library_unload_waits(void **state)
{
    (void)state;
    CUlibrary l;
    CUkernel k;
    OK(cuLibraryLoadData(&l, ptx, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "spin_g"));
    unsigned n = SPIN;
    void *args[] = { &n };
    OK(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    OK(cuLibraryUnload(l));
    OK(cuCtxSynchronize());
}

static void test_destroy_context_in_flight(void **state)
{
    (void)state;
    CUcontext c;
    CUmodule m;
    CUfunction f;
    CUdeviceptr p;
    OK(cuCtxCreate(&c, 0, 0));
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&f, m, "spin"));
    OK(cuMemAlloc_v2(&p, 64));
    unsigned n = SPIN;
    void *args[] = { &p, &n };
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    OK(cuMemsetD8Async(p, 0, 64, NULL));
    OK(cuCtxDestroy_v2(c)); /* lets the work finish, then frees it all */
    OK(cuCtxSetCurrent(ctx));
}

/* stream-ordered memory freed while a kernel on another stream uses it:
 * the program's bug; the kernel may fault, the host must not */
static void test_async_free_unordered(void **state)
{
    (void)state;
    CUstream a, b;
    OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < 4; i++) {
        CUdeviceptr p;
        OK(cuMemAllocAsync(&p, 64, a));
        OK(cuStreamSynchronize(a));
        launch_spin(p, a);
        if (i & 1)
            OK(cuMemFreeAsync(p, b));
        else
            OK(cuMemFree_v2(p)); /* documented: no implicit synchronisation */
        CUresult r = cuStreamSynchronize(a);
        assert_true(r == CUDA_SUCCESS || r == CUDA_ERROR_ILLEGAL_ADDRESS);
        if (r) /* the context is broken: start a new one */
            break;
    }
}

int main(void)
{
    setenv("TDTRACE_EMU_THREADS", "2", 1);
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_free_waits),
        T(test_free_waits_other_stream),
        T(test_free_host_waits),
        T(test_unload_waits),
        T(test_library_unload_waits),
        T(test_destroy_context_in_flight),
        T(test_async_free_unordered),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
