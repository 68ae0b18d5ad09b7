/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: what tdtrace's listener learns for its timeline. Work being
 * queued asks for the call's correlation id (on the queuing thread); each
 * copy, memset, host function, event record and kernel that runs says
 * when, on which stream and device, with that id; an answer of 0 (no
 * times wanted) leaves the ops other than kernels unreported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include "emu.h"
#include "emuevent.h"

void tdtrace_emu_listen(td_emu_listener fn); /* fault.c: what tdtrace's shim finds with dlsym */

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static CUcontext ctx;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct td_emu_event evs[64];
static char knames[64][32];
static int nevs, nsubmits;
static uint64_t answer;       /* what SUBMIT answers */
static pthread_t main_thread;
static int submit_elsewhere;  /* a SUBMIT came from another thread */

static void listener(const struct td_emu_event *ev)
{
    pthread_mutex_lock(&lock);
    if (ev->kind == TD_EMU_SUBMIT) {
        nsubmits++;
        submit_elsewhere |= !pthread_equal(pthread_self(), main_thread);
        *ev->corr_out = answer;
    } else if ((ev->kind == TD_EMU_OP || ev->kind == TD_EMU_KERNEL) && nevs < 64) {
        evs[nevs] = *ev;
        snprintf(knames[nevs], sizeof knames[nevs], "%s", ev->kernel ? ev->kernel : "");
        nevs++;
    }
    pthread_mutex_unlock(&lock);
}

static int setup(void **state)
{
    (void)state;
    main_thread = pthread_self();
    if (cuInit(0) || cuCtxCreate(&ctx, 0, 0))
        return -1;
    tdtrace_emu_listen(listener);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tdtrace_emu_listen(NULL);
    return cuCtxDestroy(ctx) ? -1 : 0;
}

static void host_fn(void *p)
{
    *(int *)p = 1;
}

static const char ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                          ".visible .entry nop()\n{\n    ret;\n}\n";

static void test_ops_reported(void **state)
{
    (void)state;
    nevs = nsubmits = 0;
    answer = 42;
    CUstream s1, s2;
    /* blocking streams: the legacy stream's copy below waits for them (the
     * two streams touch disjoint halves, so nothing races) */
    OK(cuStreamCreate(&s1, CU_STREAM_DEFAULT));
    OK(cuStreamCreate(&s2, CU_STREAM_DEFAULT));
    unsigned long long id1, id2;
    OK(cuStreamGetId(s1, &id1));
    OK(cuStreamGetId(s2, &id2));
    void *h;
    OK(cuMemHostAlloc(&h, 4096, 0));
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 4096));
    CUevent e;
    OK(cuEventCreate(&e, 0));
    CUmodule m;
    CUfunction f;
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&f, m, "nop"));
    int ran = 0;
    OK(cuMemcpyHtoDAsync_v2(d, h, 2048, s1));
    OK(cuMemsetD8Async(d + 2048, 1, 100, s2));
    OK(cuMemcpyDtoHAsync_v2((char *)h + 2048, d + 2048, 2048, s2));
    OK(cuLaunchHostFunc(s1, host_fn, &ran));
    OK(cuEventRecord(e, s2));
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, NULL, NULL));
    OK(cuMemcpyDtoD_v2(d + 2048, d, 1024)); /* synchronous, on the legacy stream */
    OK(cuCtxSynchronize());
    assert_int_equal(ran, 1);
    assert_int_equal(nsubmits, 7);
    assert_false(submit_elsewhere);
    assert_int_equal(nevs, 7);
    int seen[8] = { 0 };
    for (int i = 0; i < nevs; i++) {
        const struct td_emu_event *ev = &evs[i];
        assert_int_equal(ev->corr, 42);
        assert_int_equal(ev->device, 0);
        assert_true(ev->t_start <= ev->t_end && ev->t_start > 0);
        assert_true(ev->op >= TD_EMU_OP_KERNEL && ev->op <= TD_EMU_OP_MEMOP);
        seen[ev->op]++;
        switch (ev->op) {
        case TD_EMU_OP_MEMCPY:
            if (ev->dir == TD_EMU_HTOD) {
                assert_int_equal(ev->stream, id1);
                assert_int_equal(ev->op_bytes, 2048);
            } else if (ev->dir == TD_EMU_DTOH) {
                assert_int_equal(ev->stream, id2);
                assert_int_equal(ev->op_bytes, 2048);
            } else {
                assert_int_equal(ev->dir, TD_EMU_DTOD);
                assert_int_equal(ev->stream, 0); /* the legacy stream */
                assert_int_equal(ev->op_bytes, 1024);
            }
            break;
        case TD_EMU_OP_MEMSET:
            assert_int_equal(ev->stream, id2);
            assert_int_equal(ev->op_bytes, 100);
            break;
        case TD_EMU_OP_HOST:
            assert_int_equal(ev->stream, id1);
            break;
        case TD_EMU_OP_EVENT:
            assert_int_equal(ev->stream, id2);
            break;
        case TD_EMU_OP_KERNEL:
            assert_int_equal(ev->kind, TD_EMU_KERNEL);
            assert_int_equal(ev->stream, id1);
            assert_string_equal(knames[i], "nop");
            break;
        default:
            fail();
        }
    }
    assert_int_equal(seen[TD_EMU_OP_MEMCPY], 3);
    assert_int_equal(seen[TD_EMU_OP_MEMSET], 1);
    assert_int_equal(seen[TD_EMU_OP_HOST], 1);
    assert_int_equal(seen[TD_EMU_OP_EVENT], 1);
    assert_int_equal(seen[TD_EMU_OP_KERNEL], 1);
    /* one stream's ops in order, one after the other */
    for (int i = 0; i < nevs; i++)
        for (int j = i + 1; j < nevs; j++)
            if (evs[i].stream == evs[j].stream)
                assert_true(evs[i].t_end <= evs[j].t_start);

    /* no times wanted: only the kernel says it ran */
    nevs = nsubmits = 0;
    answer = 0;
    OK(cuMemcpyHtoDAsync_v2(d, h, 4096, s1));
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, NULL, NULL));
    OK(cuStreamSynchronize(s1));
    assert_int_equal(nsubmits, 2);
    assert_int_equal(nevs, 1);
    assert_int_equal(evs[0].kind, TD_EMU_KERNEL);
    assert_int_equal(evs[0].corr, 0);

    OK(cuModuleUnload(m));
    OK(cuEventDestroy_v2(e));
    OK(cuMemFree_v2(d));
    OK(cuMemFreeHost(h));
    OK(cuStreamDestroy_v2(s1));
    OK(cuStreamDestroy_v2(s2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_reported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
