/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: stream order, the legacy default stream's implicit
 * synchronisation, per-thread default streams, host functions and
 * callbacks, events and their timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>
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

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* a gate: host functions wait on it until the test opens it */
static atomic_int gate;
static void wait_gate(void *arg)
{
    (void)arg;
    while (!atomic_load(&gate))
        sleep_ms(1);
}

/* a log of host-function runs */
static atomic_int log_n;
static int log_v[64];
static void log_fn(void *arg)
{
    int i = atomic_fetch_add(&log_n, 1);
    if (i < 64)
        log_v[i] = (int)(intptr_t)arg;
}
static void log_reset(void)
{
    atomic_store(&log_n, 0);
    memset(log_v, 0, sizeof log_v);
}

static void slow_fn(void *arg)
{
    sleep_ms(20);
    log_fn(arg);
}

static void test_fifo_and_query(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    log_reset();
    atomic_store(&gate, 0);
    OK(cuLaunchHostFunc(s, wait_gate, NULL));
    OK(cuLaunchHostFunc(s, slow_fn, (void *)1));
    OK(cuLaunchHostFunc(s, log_fn, (void *)2));
    OK(cuLaunchHostFunc(s, log_fn, (void *)3));
    assert_int_equal(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    sleep_ms(20);
    assert_int_equal(atomic_load(&log_n), 0);
    atomic_store(&gate, 1);
    OK(cuStreamSynchronize(s));
    OK(cuStreamQuery(s));
    assert_int_equal(atomic_load(&log_n), 3);
    assert_int_equal(log_v[0], 1);
    assert_int_equal(log_v[1], 2);
    assert_int_equal(log_v[2], 3);
    unsigned flags;
    int prio;
    CUcontext c;
    unsigned long long id1, id2;
    OK(cuStreamGetFlags(s, &flags));
    assert_int_equal(flags, 0);
    OK(cuStreamGetPriority(s, &prio));
    assert_int_equal(prio, 0);
    OK(cuStreamGetCtx(s, &c));
    assert_ptr_equal(c, ctx);
    OK(cuStreamGetId(s, &id1));
    OK(cuStreamGetId(NULL, &id2));
    assert_true(id1 != id2);
    CUdevice d;
    OK(cuStreamGetDevice(s, &d));
    assert_int_equal(d, 0);
    OK(cuStreamDestroy_v2(s));
    assert_int_equal(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamDestroy_v2(NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuStreamCreate(&s, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuLaunchHostFunc(NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -100));
    OK(cuStreamGetPriority(s, &prio));
    assert_int_equal(prio, -5);
    OK(cuStreamGetFlags(s, &flags));
    assert_int_equal(flags, CU_STREAM_NON_BLOCKING);
    OK(cuStreamDestroy(s));
}

static void test_destroy_pending(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    log_reset();
    OK(cuLaunchHostFunc(s, slow_fn, (void *)9));
    OK(cuStreamDestroy_v2(s)); /* returns at once; the work still runs */
    OK(cuCtxSynchronize());
    assert_int_equal(atomic_load(&log_n), 1);
}

static void test_legacy_waits_for_blocking(void **state)
{
    (void)state;
    CUstream blk, nb;
    OK(cuStreamCreate(&blk, 0));
    OK(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    log_reset();
    atomic_store(&gate, 0);
    OK(cuLaunchHostFunc(nb, wait_gate, NULL));       /* non-blocking: ignored */
    OK(cuLaunchHostFunc(blk, slow_fn, (void *)1));   /* blocking: waited for */
    OK(cuLaunchHostFunc(NULL, log_fn, (void *)2));   /* legacy */
    OK(cuStreamSynchronize(NULL));
    assert_int_equal(atomic_load(&log_n), 2);
    assert_int_equal(log_v[0], 1);
    assert_int_equal(log_v[1], 2);
    assert_int_equal(cuStreamQuery(nb), CUDA_ERROR_NOT_READY);
    atomic_store(&gate, 1);
    OK(cuStreamSynchronize(nb));
    OK(cuStreamDestroy(blk));
    OK(cuStreamDestroy(nb));
}

static void test_blocking_waits_for_legacy(void **state)
{
    (void)state;
    CUstream blk, nb;
    OK(cuStreamCreate(&blk, 0));
    OK(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));
    log_reset();
    atomic_store(&gate, 0);
    OK(cuLaunchHostFunc(CU_STREAM_LEGACY, wait_gate, NULL));
    OK(cuLaunchHostFunc(blk, log_fn, (void *)1));
    OK(cuLaunchHostFunc(nb, log_fn, (void *)2));
    OK(cuStreamSynchronize(nb));          /* ran although the legacy stream is held */
    sleep_ms(20);
    assert_int_equal(atomic_load(&log_n), 1);
    assert_int_equal(log_v[0], 2);
    assert_int_equal(cuStreamQuery(blk), CUDA_ERROR_NOT_READY);
    atomic_store(&gate, 1);
    OK(cuStreamSynchronize(blk));
    assert_int_equal(atomic_load(&log_n), 2);
    OK(cuStreamDestroy(blk));
    OK(cuStreamDestroy(nb));
}

static void *open_gate_later(void *arg)
{
    (void)arg;
    sleep_ms(30);
    atomic_store(&gate, 1);
    return NULL;
}

static void test_sync_copy_ordered_with_legacy(void **state)
{
    (void)state;
    CUstream blk;
    OK(cuStreamCreate(&blk, 0));
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 4096));
    OK(cuMemsetD8_v2(d, 0, 4096));
    atomic_store(&gate, 0);
    OK(cuLaunchHostFunc(blk, wait_gate, NULL));
    OK(cuMemsetD8Async(d, 0x77, 4096, blk));
    /* another thread opens the gate while this one is in the copy */
    pthread_t t;
    pthread_create(&t, NULL, open_gate_later, NULL);
    unsigned char b[4096];
    OK(cuMemcpyDtoH_v2(b, d, sizeof b)); /* waits for blk's earlier memset */
    pthread_join(t, NULL);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(b[i], 0x77);
    OK(cuMemFree_v2(d));
    OK(cuStreamDestroy(blk));
}

static CUstream cb_stream;
static CUresult cb_status = (CUresult)-1;
static void *cb_user;
static void callback(CUstream s, CUresult st, void *user)
{
    cb_stream = s;
    cb_status = st;
    cb_user = user;
}

static void test_callbacks(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuStreamAddCallback(s, callback, &cb_user, 0));
    OK(cuStreamSynchronize(s));
    assert_ptr_equal(cb_stream, s);
    assert_int_equal(cb_status, CUDA_SUCCESS);
    assert_ptr_equal(cb_user, &cb_user);
    assert_int_equal(cuStreamAddCallback(s, callback, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAddCallback(s, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamAddCallback((CUstream)&cb_user, callback, NULL, 0), CUDA_ERROR_INVALID_HANDLE);
    OK(cuStreamAddCallback_ptsz(NULL, callback, NULL, 0));
    OK(cuStreamSynchronize_ptsz(NULL));
    assert_null(cb_stream);
    OK(cuStreamDestroy(s));
}

struct ptds_arg { CUcontext c; CUstream got; int ok; };
static void *ptds_thread(void *arg)
{
    struct ptds_arg *a = arg;
    cuCtxSetCurrent(a->c);
    unsigned long long id1 = 0, id2 = 0;
    a->ok = cuLaunchHostFunc_ptsz(NULL, log_fn, (void *)5) == CUDA_SUCCESS &&
            cuStreamSynchronize(CU_STREAM_PER_THREAD) == CUDA_SUCCESS &&
            cuStreamGetId(CU_STREAM_PER_THREAD, &id1) == CUDA_SUCCESS &&
            cuStreamGetId_ptsz(NULL, &id2) == CUDA_SUCCESS && id1 == id2;
    a->got = (CUstream)(uintptr_t)id1;
    return NULL;
}

static void test_per_thread(void **state)
{
    (void)state;
    log_reset();
    struct ptds_arg a[2] = { { ctx, NULL, 0 }, { ctx, NULL, 0 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, ptds_thread, &a[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_true(a[0].ok && a[1].ok);
    assert_ptr_not_equal(a[0].got, a[1].got); /* one stream per thread */
    assert_int_equal(atomic_load(&log_n), 2);
    /* the per-thread stream is blocking: it waits for the legacy stream */
    atomic_store(&gate, 0);
    log_reset();
    OK(cuLaunchHostFunc(NULL, wait_gate, NULL));
    OK(cuLaunchHostFunc(CU_STREAM_PER_THREAD, log_fn, (void *)1));
    sleep_ms(10);
    assert_int_equal(atomic_load(&log_n), 0);
    atomic_store(&gate, 1);
    OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    assert_int_equal(atomic_load(&log_n), 1);
}

static void test_events(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    CUevent a, b, nt;
    OK(cuEventCreate(&a, CU_EVENT_DEFAULT));
    OK(cuEventCreate(&b, CU_EVENT_BLOCKING_SYNC));
    OK(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
    float ms;
    OK(cuEventQuery(a)); /* never recorded: complete */
    assert_int_equal(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
    OK(cuEventRecord(a, s));
    OK(cuLaunchHostFunc(s, slow_fn, NULL));
    OK(cuEventRecord(b, s));
    OK(cuEventRecord(nt, s));
    assert_int_equal(cuEventQuery(b), CUDA_ERROR_NOT_READY);
    assert_int_equal(cuEventElapsedTime_v2(&ms, a, b), CUDA_ERROR_NOT_READY);
    OK(cuEventSynchronize(b));
    OK(cuEventQuery(b));
    OK(cuEventElapsedTime_v2(&ms, a, b));
    assert_true(ms >= 19.0f && ms < 2000.0f);
    OK(cuEventElapsedTime(&ms, b, a));
    assert_true(ms < 0);
    OK(cuEventSynchronize(nt));
    assert_int_equal(cuEventElapsedTime(&ms, a, nt), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventElapsedTime(NULL, a, b), CUDA_ERROR_INVALID_VALUE);
    /* on the default streams */
    OK(cuEventRecord(a, NULL));
    OK(cuEventRecord_ptsz(b, NULL));
    OK(cuEventRecordWithFlags(a, CU_STREAM_LEGACY, CU_EVENT_RECORD_DEFAULT));
    assert_int_equal(cuEventRecordWithFlags(a, NULL, 0x10), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventSynchronize(a));
    OK(cuEventSynchronize(b));
    /* a stream waits for an event of another */
    CUstream s2;
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    log_reset();
    atomic_store(&gate, 0);
    OK(cuLaunchHostFunc(s, wait_gate, NULL));
    OK(cuLaunchHostFunc(s, log_fn, (void *)1));
    OK(cuEventRecord(a, s));
    OK(cuStreamWaitEvent(s2, a, 0));
    OK(cuLaunchHostFunc(s2, log_fn, (void *)2));
    sleep_ms(10);
    assert_int_equal(cuStreamQuery(s2), CUDA_ERROR_NOT_READY);
    atomic_store(&gate, 1);
    OK(cuStreamSynchronize(s2));
    assert_int_equal(log_v[0], 1);
    assert_int_equal(log_v[1], 2);
    assert_int_equal(cuStreamWaitEvent(s2, a, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamWaitEvent(s2, (CUevent)&gate, 0), CUDA_ERROR_INVALID_HANDLE);
    /* destroy, bad handles */
    OK(cuEventDestroy_v2(a));
    assert_int_equal(cuEventQuery(a), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventRecord(a, s), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventDestroy_v2(a), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventSynchronize(NULL), CUDA_ERROR_INVALID_HANDLE);
    assert_int_equal(cuEventCreate(&a, 0x40), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuEventCreate(&a, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventDestroy(b));
    OK(cuEventDestroy(nt));
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(s2));
}

static void test_event_timing_resolution(void **state)
{
    (void)state;
    CUevent a, b;
    OK(cuEventCreate(&a, 0));
    OK(cuEventCreate(&b, 0));
    OK(cuEventRecord(a, NULL));
    sleep_ms(3);
    OK(cuEventRecord(b, NULL));
    OK(cuEventSynchronize(b));
    float ms;
    OK(cuEventElapsedTime(&ms, a, b));
    assert_true(ms >= 2.9f && ms < 1000.0f);
    /* microseconds: ms * 1000 is (nearly) an integer */
    float us = ms * 1000.0f;
    assert_true(us - (float)(long)us < 0.01f || (float)(long)(us + 1) - us < 0.01f);
    OK(cuEventDestroy(a));
    OK(cuEventDestroy(b));
}

static void *record_thread(void *arg)
{
    CUevent e = arg;
    cuCtxSetCurrent(ctx);
    CUstream s;
    if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
        return (void *)1;
    for (int i = 0; i < 200; i++) {
        if (cuEventRecord(e, s) || cuStreamWaitEvent(s, e, 0))
            return (void *)2;
        CUresult r = cuEventQuery(e);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY)
            return (void *)3;
        if (cuEventSynchronize(e))
            return (void *)4;
    }
    cuStreamSynchronize(s);
    cuStreamDestroy(s);
    return NULL;
}

static void test_event_threads(void **state)
{
    (void)state;
    CUevent e;
    OK(cuEventCreate(&e, 0));
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, record_thread, e);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    OK(cuEventDestroy(e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_and_query),
        cmocka_unit_test(test_destroy_pending),
        cmocka_unit_test(test_legacy_waits_for_blocking),
        cmocka_unit_test(test_blocking_waits_for_legacy),
        cmocka_unit_test(test_sync_copy_ordered_with_legacy),
        cmocka_unit_test(test_callbacks),
        cmocka_unit_test(test_per_thread),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_event_timing_resolution),
        cmocka_unit_test(test_event_threads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
