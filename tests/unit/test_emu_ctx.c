/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: primary and created contexts, the per-thread stack, limits,
 * and what a primary-context reset takes away. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <cmocka.h>

#include "emu.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static void test_no_context(void **state)
{
    (void)state;
    setenv("TDTRACE_EMU_DEVICES", "2", 1);
    OK(cuInit(0));
    CUcontext c = (CUcontext)1;
    OK(cuCtxGetCurrent(&c));
    assert_null(c);
    CUdevice d;
    assert_int_equal(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
    CUdeviceptr p;
    assert_int_equal(cuMemAlloc_v2(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
    CUstream s;
    assert_int_equal(cuStreamCreate(&s, 0), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxPopCurrent_v2(&c), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuProfilerStop(), CUDA_ERROR_INVALID_CONTEXT);
    size_t v;
    assert_int_equal(cuCtxGetLimit(&v, CU_LIMIT_CIG_ENABLED), CUDA_ERROR_INVALID_CONTEXT);
}

static void test_primary(void **state)
{
    (void)state;
    unsigned flags;
    int active;
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 0);
    OK(cuDevicePrimaryCtxSetFlags_v2(0, CU_CTX_SCHED_BLOCKING_SYNC));
    assert_int_equal(cuDevicePrimaryCtxSetFlags_v2(0, 3), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuDevicePrimaryCtxSetFlags_v2(0, 0x1000), CUDA_ERROR_INVALID_VALUE);
    CUcontext p0, p0b, p1;
    OK(cuDevicePrimaryCtxRetain(&p0, 0));
    OK(cuDevicePrimaryCtxRetain(&p0b, 0));
    OK(cuDevicePrimaryCtxRetain(&p1, 1));
    assert_ptr_equal(p0, p0b);
    assert_ptr_not_equal(p0, p1);
    OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    assert_int_equal(active, 1);
    assert_int_equal(flags, CU_CTX_SCHED_BLOCKING_SYNC);
    assert_int_equal(cuDevicePrimaryCtxSetFlags(0, 0), CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE);
    OK(cuCtxSetCurrent(p1));
    CUdevice d;
    OK(cuCtxGetDevice(&d));
    assert_int_equal(d, 1);
    OK(cuCtxGetDevice_v2(&d, p0));
    assert_int_equal(d, 0);
    unsigned v;
    OK(cuCtxGetApiVersion(NULL, &v));
    assert_int_equal(v, 3020);
    unsigned long long id0, id1;
    OK(cuCtxGetId(p0, &id0));
    OK(cuCtxGetId(NULL, &id1));
    assert_true(id0 != id1);
    OK(cuDevicePrimaryCtxRelease_v2(1));
    OK(cuDevicePrimaryCtxGetState(1, &flags, &active));
    assert_int_equal(active, 0);
    /* current but inactive */
    assert_int_equal(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuDevicePrimaryCtxRetain(&p1, 7), CUDA_ERROR_INVALID_DEVICE);
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuCtxSetCurrent(NULL));
}

static void test_reset_invalidates(void **state)
{
    (void)state;
    CUcontext p;
    OK(cuDevicePrimaryCtxRetain(&p, 0));
    OK(cuCtxSetCurrent(p));
    CUdeviceptr mem;
    OK(cuMemAlloc_v2(&mem, 1 << 20));
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    CUevent e;
    OK(cuEventCreate(&e, 0));
    size_t fr0, fr1, total;
    OK(cuMemGetInfo_v2(&fr0, &total));
    OK(cuDevicePrimaryCtxReset_v2(0));
    assert_int_equal(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
    /* the runtime's way back: set current, retain */
    OK(cuCtxSetCurrent(p));
    CUcontext p2;
    OK(cuDevicePrimaryCtxRetain(&p2, 0));
    assert_ptr_equal(p, p2);
    assert_int_equal(cuMemFree_v2(mem), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemGetInfo_v2(&fr1, &total));
    assert_true(fr1 == fr0 + (1 << 20));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuCtxSetCurrent(NULL));
}

static void test_created(void **state)
{
    (void)state;
    CUcontext a, b, c;
    OK(cuCtxCreate(&a, 0, 0));
    OK(cuCtxCreate_v2(&b, CU_CTX_SCHED_SPIN, 1));
    CUcontext cur;
    OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, b);
    unsigned flags;
    OK(cuCtxGetFlags(&flags));
    assert_int_equal(flags, CU_CTX_SCHED_SPIN);
    OK(cuCtxSetFlags(CU_CTX_SCHED_YIELD));
    OK(cuCtxGetFlags(&flags));
    assert_int_equal(flags, CU_CTX_SCHED_YIELD);
    OK(cuCtxPopCurrent_v2(&cur));
    assert_ptr_equal(cur, b);
    OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    OK(cuCtxPushCurrent_v2(b));
    OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, b);
    CUexecAffinityParam aff = { CU_EXEC_AFFINITY_TYPE_SM_COUNT, { { 8 } } };
    OK(cuCtxCreate_v3(&c, &aff, 1, 0, 0));
    OK(cuCtxDestroy_v2(c));
    CUctxCreateParams cp = { NULL, 0, NULL };
    OK(cuCtxCreate_v4(&c, &cp, 0, 0));
    OK(cuCtxDestroy(c));
    assert_int_equal(cuCtxCreate(&c, 0, 5), CUDA_ERROR_INVALID_DEVICE);
    assert_int_equal(cuCtxCreate(&c, 0xffff, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxCreate(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    /* destroy pops it when current */
    OK(cuCtxDestroy(b));
    OK(cuCtxGetCurrent(&cur));
    assert_ptr_equal(cur, a);
    assert_int_equal(cuCtxDestroy(b), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxPushCurrent_v2(b), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxSetCurrent((CUcontext)&flags), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(cuCtxDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
    /* the primary context cannot be destroyed */
    CUcontext p;
    OK(cuDevicePrimaryCtxRetain(&p, 0));
    assert_int_equal(cuCtxDestroy(p), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuDevicePrimaryCtxRelease(0));
    /* destroyed while current elsewhere: still on the stack, an error */
    OK(cuCtxPushCurrent_v2(a));
    OK(cuCtxPushCurrent_v2(a));
    OK(cuCtxDestroy(a));
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    OK(cuCtxPopCurrent(NULL));
    OK(cuCtxPopCurrent(NULL));
    OK(cuCtxGetCurrent(&cur));
    assert_null(cur);
}

static void test_limits(void **state)
{
    (void)state;
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 0));
    size_t v;
    OK(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_int_equal(v, 1024);
    OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    OK(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    assert_int_equal(v, 4096);
    OK(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    assert_int_equal(v, 8 << 20);
    assert_int_equal(cuCtxGetLimit(&v, (CUlimit)77), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxGetLimit(&v, (CUlimit)-1), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxGetLimit(&v, (CUlimit)10), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxSetLimit((CUlimit)-1, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 1000), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 128));
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, (2u << 20)), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
    /* every limit answers, with the documented defaults */
    static const struct { CUlimit l; size_t v; } dflt[] = {
        { CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 20 }, { CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 2 },
        { CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 2048 }, { CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0 },
        { CU_LIMIT_SHMEM_SIZE, 232448 }, { CU_LIMIT_CIG_ENABLED, 0 }, { CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 1 },
    };
    for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++) {
        OK(cuCtxGetLimit(&v, dflt[i].l));
        assert_int_equal(v, dflt[i].v);
    }
    /* read-only, and the device runtime's sync depth before 9.0 only */
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_SHMEM_SIZE, 1024), CUDA_ERROR_UNSUPPORTED_LIMIT);
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4), CUDA_ERROR_UNSUPPORTED_LIMIT);
    OK(cuCtxSetLimit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 0));
    OK(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 4 << 20));
    OK(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1 << 20));
    assert_int_equal(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, (size_t)1 << 40), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxGetLimit(&v, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED));
    assert_int_equal(v, 0);
    OK(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
    assert_int_equal(v, 4 << 20);
    /* the profiler's span: needs a context; cuProfilerInitialize is gone (12.0) */
    OK(cuProfilerStart());
    OK(cuProfilerStart());
    OK(cuProfilerStop());
    assert_int_equal(cuProfilerInitialize("cfg", "out", (CUoutput_mode)1), CUDA_ERROR_NOT_SUPPORTED);
    int lo, hi;
    OK(cuCtxGetStreamPriorityRange(&lo, &hi));
    assert_int_equal(lo, 0);
    assert_true(hi < 0);
    OK(cuCtxSynchronize());
    OK(cuCtxSynchronize_v2(c));
    OK(cuCtxDestroy(c));
}

static void *thread_ctx(void *arg)
{
    CUcontext c = arg, cur = (CUcontext)1;
    /* a new thread starts with no current context */
    if (cuCtxGetCurrent(&cur) || cur)
        return (void *)1;
    if (cuCtxSetCurrent(c))
        return (void *)2;
    CUdeviceptr p;
    if (cuMemAlloc_v2(&p, 100) || cuMemFree_v2(p))
        return (void *)3;
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 0));
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_ctx, c);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    OK(cuCtxDestroy(c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_context),
        cmocka_unit_test(test_primary),
        cmocka_unit_test(test_reset_invalidates),
        cmocka_unit_test(test_created),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
