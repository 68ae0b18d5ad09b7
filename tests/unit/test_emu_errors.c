/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: CUDA's error rules. A kernel's fault is sticky in its context:
 * the launch itself succeeds (the error is asynchronous), the next
 * synchronising call of every kind returns it, and so does every later
 * call that does work in that context; calls that only read properties
 * still answer; other contexts are not touched; destroying the context or
 * resetting the primary context clears it. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define BAD CUDA_ERROR_ILLEGAL_ADDRESS

/* spin(p, n): counts to n, then stores the count at p (a bad p faults
 * after the loop, so calls made right after the launch come first) */
static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry spin(.param .u64 p, .param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r1, [n];\n    mov.u32 %r2, 0;\n"
    "$L_loop:\n    add.u32 %r2, %r2, 1;\n    setp.lt.u32 %p1, %r2, %r1;\n    @%p1 bra $L_loop;\n"
    "    st.global.u32 [%rd1], %r2;\n    ret;\n}\n";

#define SPIN 200000u

struct fix {
    CUcontext ctx;
    CUmodule mod;
    CUfunction spin;
    CUdeviceptr buf;
    CUstream s;
};

static int setup(void **state)
{
    static struct fix f;
    memset(&f, 0, sizeof f);
    if (cuInit(0) || cuCtxCreate(&f.ctx, 0, 0) || cuModuleLoadData(&f.mod, ptx) ||
        cuModuleGetFunction(&f.spin, f.mod, "spin") || cuMemAlloc_v2(&f.buf, 4096) ||
        cuStreamCreate(&f.s, 0))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    /* destroying the context works after a fault, and takes its objects */
    return cuCtxDestroy_v2(f->ctx) == CUDA_SUCCESS ? 0 : -1;
}

/* a launch on stream s that faults after the loop: the launch succeeds */
static void launch_fault(struct fix *f, CUstream s)
{
    CUdeviceptr bad = 16;
    unsigned n = SPIN;
    void *args[] = { &bad, &n };
    OK(cuLaunchKernel(f->spin, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

/* after the fault was reported: later calls fail, property reads answer */
static void later_calls_fail(struct fix *f)
{
    CUdeviceptr p;
    unsigned x = 0;
    assert_int_equal(cuCtxSynchronize(), BAD);
    assert_int_equal(cuMemAlloc_v2(&p, 64), BAD);
    assert_int_equal(cuMemFree_v2(f->buf), BAD);
    assert_int_equal(cuMemcpyHtoD_v2(f->buf, &x, 4), BAD);
    assert_int_equal(cuMemsetD8_v2(f->buf, 0, 4), BAD);
    CUstream s2;
    assert_int_equal(cuStreamCreate(&s2, 0), BAD);
    assert_int_equal(cuStreamSynchronize(f->s), BAD);
    CUevent e;
    assert_int_equal(cuEventCreate(&e, 0), BAD);
    CUmodule m;
    assert_int_equal(cuModuleLoadData(&m, ptx), BAD);
    CUfunction fn;
    assert_int_equal(cuModuleGetFunction(&fn, f->mod, "spin"), BAD);
    CUdeviceptr good = f->buf;
    unsigned n = 1;
    void *args[] = { &good, &n };
    assert_int_equal(cuLaunchKernel(f->spin, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), BAD);
    CUdevice d;
    OK(cuCtxGetDevice(&d));
    unsigned ver;
    OK(cuCtxGetApiVersion(f->ctx, &ver));
    int attr;
    OK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
}

static void test_launch_is_asynchronous(void **state)
{
    struct fix *f = *state;
    launch_fault(f, NULL);
    assert_int_equal(cuCtxSynchronize(), BAD);
    later_calls_fail(f);
}

static void test_sync_dtoh(void **state)
{
    struct fix *f = *state;
    unsigned x = 1;
    launch_fault(f, NULL);
    assert_int_equal(cuMemcpyDtoH_v2(&x, f->buf, 4), BAD);
    assert_int_equal(x, 1); /* nothing was copied */
    later_calls_fail(f);
}

static void test_sync_htod(void **state)
{
    struct fix *f = *state;
    unsigned x = 1;
    launch_fault(f, NULL);
    assert_int_equal(cuMemcpyHtoD_v2(f->buf, &x, 4), BAD);
    later_calls_fail(f);
}

static void test_sync_dtod(void **state)
{
    struct fix *f = *state;
    launch_fault(f, NULL);
    assert_int_equal(cuMemcpyDtoD_v2(f->buf + 8, f->buf, 4), BAD);
    later_calls_fail(f);
}

static void test_sync_memcpy_any(void **state)
{
    struct fix *f = *state;
    unsigned x = 1;
    launch_fault(f, NULL);
    assert_int_equal(cuMemcpy((CUdeviceptr)(uintptr_t)&x, f->buf, 4), BAD);
    later_calls_fail(f);
}

static void test_sync_memcpy2d(void **state)
{
    struct fix *f = *state;
    unsigned x[4] = { 0 };
    launch_fault(f, NULL);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = f->buf;
    c.srcPitch = 8;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = x;
    c.dstPitch = 8;
    c.WidthInBytes = 8;
    c.Height = 2;
    assert_int_equal(cuMemcpy2D_v2(&c), BAD);
    later_calls_fail(f);
}

/* a synchronous copy on the legacy stream waits for a blocking stream's
 * work: the fault there is its error too */
static void test_sync_copy_after_other_stream(void **state)
{
    struct fix *f = *state;
    unsigned x = 1;
    launch_fault(f, f->s);
    assert_int_equal(cuMemcpyDtoH_v2(&x, f->buf, 4), BAD);
    later_calls_fail(f);
}

static void test_stream_sync(void **state)
{
    struct fix *f = *state;
    launch_fault(f, f->s);
    assert_int_equal(cuStreamSynchronize(f->s), BAD);
    later_calls_fail(f);
}

static void test_stream_sync_null(void **state)
{
    struct fix *f = *state;
    launch_fault(f, NULL);
    assert_int_equal(cuStreamSynchronize(NULL), BAD);
    later_calls_fail(f);
}

static void test_event_sync(void **state)
{
    struct fix *f = *state;
    CUevent e;
    OK(cuEventCreate(&e, 0));
    launch_fault(f, f->s);
    OK(cuEventRecord(e, f->s));
    assert_int_equal(cuEventSynchronize(e), BAD);
    later_calls_fail(f);
}

/* the queries answer NOT_READY while the kernel runs, then the error */
static void test_stream_query(void **state)
{
    struct fix *f = *state;
    launch_fault(f, f->s);
    CUresult r;
    while ((r = cuStreamQuery(f->s)) == CUDA_ERROR_NOT_READY)
        ;
    assert_int_equal(r, BAD);
    later_calls_fail(f);
}

static void test_event_query(void **state)
{
    struct fix *f = *state;
    CUevent e;
    OK(cuEventCreate(&e, 0));
    launch_fault(f, f->s);
    OK(cuEventRecord(e, f->s));
    CUresult r;
    while ((r = cuEventQuery(e)) == CUDA_ERROR_NOT_READY)
        ;
    assert_int_equal(r, BAD);
    later_calls_fail(f);
}

/* work queued behind the fault does not run; a stream callback is told */
static int host_calls;
static CUresult cb_status = CUDA_SUCCESS;
static atomic_int gate;
static void host_fn(void *u) { (void)u; host_calls++; }
static void callback(CUstream s, CUresult st, void *u) { (void)s; (void)u; cb_status = st; }
static void wait_gate(void *u) { (void)u; while (!atomic_load(&gate)) sched_yield(); }

static void test_work_after_fault(void **state)
{
    struct fix *f = *state;
    unsigned x = 0xdeadbeef;
    host_calls = 0;
    cb_status = CUDA_SUCCESS;
    atomic_store(&gate, 0);
    /* the stream waits at the gate while everything is queued behind it */
    OK(cuLaunchHostFunc(f->s, wait_gate, NULL));
    launch_fault(f, f->s);
    OK(cuMemsetD32Async(f->buf, 5, 1, f->s));
    OK(cuLaunchHostFunc(f->s, host_fn, NULL));
    OK(cuStreamAddCallback(f->s, callback, NULL, 0));
    atomic_store(&gate, 1);
    assert_int_equal(cuStreamSynchronize(f->s), BAD);
    assert_int_equal(host_calls, 0);   /* not called once the context has failed */
    assert_int_equal(cb_status, BAD);  /* called, with the error */
    /* the memset did not run: the context's memory is as it was */
    CUcontext cur;
    OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, f->ctx);
    memcpy(&x, (void *)(uintptr_t)f->buf, 4);
    assert_int_not_equal(x, 5);
}

static void test_other_context_unaffected(void **state)
{
    struct fix *f = *state;
    launch_fault(f, NULL);
    assert_int_equal(cuCtxSynchronize(), BAD);
    CUcontext other;
    OK(cuCtxCreate(&other, 0, 0));
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 64));
    OK(cuMemsetD8_v2(p, 1, 64));
    OK(cuCtxSynchronize());
    OK(cuMemFree_v2(p));
    OK(cuCtxDestroy_v2(other));
    OK(cuCtxSetCurrent(f->ctx));
    assert_int_equal(cuCtxSynchronize(), BAD);
}

/* cudaDeviceReset's way out: a reset primary context works again */
static void test_primary_reset_clears(void **state)
{
    (void)state;
    CUcontext p;
    CUmodule m;
    CUfunction fn;
    OK(cuDevicePrimaryCtxRetain(&p, 0));
    OK(cuCtxPushCurrent_v2(p));
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&fn, m, "spin"));
    CUdeviceptr bad = 16;
    unsigned n = 10;
    void *args[] = { &bad, &n };
    OK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    assert_int_equal(cuCtxSynchronize(), BAD);
    CUdeviceptr q;
    assert_int_equal(cuMemAlloc_v2(&q, 64), BAD);
    OK(cuDevicePrimaryCtxReset_v2(0));
    OK(cuDevicePrimaryCtxRetain(&p, 0));
    OK(cuMemAlloc_v2(&q, 64));
    OK(cuCtxSynchronize());
    OK(cuMemFree_v2(q));
    OK(cuDevicePrimaryCtxRelease_v2(0));
    CUcontext popped;
    OK(cuCtxPopCurrent_v2(&popped));
}

int main(void)
{
    setenv("TDTRACE_EMU_THREADS", "2", 1);
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_launch_is_asynchronous),
        T(test_sync_dtoh),
        T(test_sync_htod),
        T(test_sync_dtod),
        T(test_sync_memcpy_any),
        T(test_sync_memcpy2d),
        T(test_sync_copy_after_other_stream),
        T(test_stream_sync),
        T(test_stream_sync_null),
        T(test_event_sync),
        T(test_stream_query),
        T(test_event_query),
        T(test_work_after_fault),
        T(test_other_context_unaffected),
        cmocka_unit_test(test_primary_reset_clears),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
