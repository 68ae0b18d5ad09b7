/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: stream attributes, and the stream operations beyond copies and
 * kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
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

static void test_stream_attributes(void **state)
{
    (void)state;
    CUstream s, t;
    OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, 0));
    OK(cuStreamCreate(&t, 0));
    CUstreamAttrValue v;

    /* defaults */
    memset(&v, 0x5a, sizeof v);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    assert_null(v.accessPolicyWindow.base_ptr);
    assert_int_equal(v.accessPolicyWindow.num_bytes, 0);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    assert_int_equal(v.syncPolicy, CU_SYNC_POLICY_AUTO);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, &v));
    assert_int_equal(v.memSyncDomainMap.default_, 0);
    assert_int_equal(v.memSyncDomainMap.remote, 1); /* h100: 4 domains */
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
    assert_int_equal(v.memSyncDomain, CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT);

    /* an access policy window, as simpleAttributes sets one */
    CUdeviceptr p;
    OK(cuMemAlloc_v2(&p, 1 << 20));
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = (void *)(uintptr_t)p;
    v.accessPolicyWindow.num_bytes = 1 << 20;
    v.accessPolicyWindow.hitRatio = 0.6f;
    v.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    v.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
    CUstreamAttrValue w;
    memset(&w, 0, sizeof w);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    assert_ptr_equal(w.accessPolicyWindow.base_ptr, v.accessPolicyWindow.base_ptr);
    assert_int_equal(w.accessPolicyWindow.num_bytes, 1 << 20);
    assert_true(w.accessPolicyWindow.hitRatio == 0.6f);
    assert_int_equal(w.accessPolicyWindow.hitProp, CU_ACCESS_PROPERTY_PERSISTING);
    assert_int_equal(w.accessPolicyWindow.missProp, CU_ACCESS_PROPERTY_STREAMING);
    OK(cuCtxResetPersistingL2Cache());
    /* bad windows: too large, a ratio outside [0, 1], a persisting miss */
    CUstreamAttrValue bad = v;
    int maxw;
    OK(cuDeviceGetAttribute(&maxw, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, 0));
    bad.accessPolicyWindow.num_bytes = (size_t)maxw + 1;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.accessPolicyWindow.hitRatio = 1.5f;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_PERSISTING;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.accessPolicyWindow.hitProp = (CUaccessProperty)7;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &bad), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w)); /* unchanged */
    assert_true(w.accessPolicyWindow.hitRatio == 0.6f);

    /* the priority is the stream's: cuStreamGetPriority sees it, clamped */
    memset(&v, 0, sizeof v);
    v.priority = -3;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    int prio;
    OK(cuStreamGetPriority(s, &prio));
    assert_int_equal(prio, -3);
    v.priority = -100;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &w));
    assert_int_equal(w.priority, -5);

    /* synchronisation policy, domains, the NVLink hint */
    v.syncPolicy = CU_SYNC_POLICY_BLOCKING_SYNC;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    v.syncPolicy = (CUsynchronizationPolicy)0;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_ERROR_INVALID_VALUE);
    v.syncPolicy = (CUsynchronizationPolicy)5;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.syncPolicy, CU_SYNC_POLICY_BLOCKING_SYNC);
    memset(&v, 0, sizeof v);
    v.memSyncDomainMap.default_ = 2;
    v.memSyncDomainMap.remote = 3;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, &v));
    v.memSyncDomainMap.remote = 4; /* h100 has 4 domains: 0..3 */
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, &w));
    assert_int_equal(w.memSyncDomainMap.default_, 2);
    assert_int_equal(w.memSyncDomainMap.remote, 3);
    v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    OK(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
    v.memSyncDomain = (CUlaunchMemSyncDomain)2;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &v), CUDA_ERROR_INVALID_VALUE);
    v.nvlinkUtilCentricScheduling = 2;
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING, &v),
                     CUDA_ERROR_INVALID_VALUE);

    /* attributes that are not a stream's, bad handles and pointers */
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &w), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute(s, (CUstreamAttrID)-1, &w), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamGetAttribute((CUstream)&w, CU_LAUNCH_ATTRIBUTE_PRIORITY, &w), CUDA_ERROR_INVALID_HANDLE);

    /* copying: everything, to a stream of the same context */
    OK(cuStreamCopyAttributes(t, s));
    OK(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    assert_int_equal(w.accessPolicyWindow.num_bytes, 1 << 20);
    OK(cuStreamGetPriority(t, &prio));
    assert_int_equal(prio, -5);
    OK(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, &w));
    assert_int_equal(w.memSyncDomain, CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE);
    /* the default stream, too (the per-thread one by its _ptsz entry) */
    v.syncPolicy = CU_SYNC_POLICY_SPIN;
    OK(cuStreamSetAttribute(NULL, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
    OK(cuStreamGetAttribute(CU_STREAM_LEGACY, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.syncPolicy, CU_SYNC_POLICY_SPIN);
    OK(cuStreamGetAttribute_ptsz(NULL, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.syncPolicy, CU_SYNC_POLICY_AUTO);
    OK(cuStreamCopyAttributes_ptsz(NULL, s));
    OK(cuStreamGetAttribute(CU_STREAM_PER_THREAD, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
    assert_int_equal(w.syncPolicy, CU_SYNC_POLICY_BLOCKING_SYNC);
    /* streams of two contexts */
    CUcontext other;
    OK(cuCtxCreate(&other, 0, 0));
    CUstream o;
    OK(cuStreamCreate(&o, 0));
    OK(cuCtxPopCurrent(NULL));
    assert_int_equal(cuStreamCopyAttributes(o, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxDestroy(other));
    assert_int_equal(cuStreamCopyAttributes(t, o), CUDA_ERROR_INVALID_HANDLE);

    OK(cuMemFree_v2(p));
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(t));
    assert_int_equal(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v), CUDA_ERROR_INVALID_HANDLE);
}

/* a thread that writes *p = v after a pause (the host side of a wait) */
struct later { volatile uint32_t *p; uint32_t v; };
static void *write_later(void *arg)
{
    struct later *l = arg;
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    __atomic_store_n(l->p, l->v, __ATOMIC_RELEASE);
    return NULL;
}

static void test_memops(void **state)
{
    (void)state;
    int v;
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0));
    assert_int_equal(v, 1);
    CUstream s, t;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&t, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 64));
    OK(cuMemsetD8_v2(d, 0, 64));
    uint32_t *flag;
    OK(cuMemHostAlloc((void **)&flag, 64, CU_MEMHOSTALLOC_DEVICEMAP));
    memset(flag, 0, 64);
    CUdeviceptr dflag;
    OK(cuMemHostGetDevicePointer_v2(&dflag, flag, 0));

    /* writes, 32 and 64 bits, in stream order with a copy */
    OK(cuStreamWriteValue32(s, d, 0xdeadbeef, 0));
    OK(cuStreamWriteValue64_v2(s, d + 8, 0x0123456789abcdefULL, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
    uint64_t got[2] = { 0, 0 };
    OK(cuMemcpyDtoHAsync_v2(got, d, 16, s));
    OK(cuStreamSynchronize(s));
    assert_int_equal((uint32_t)got[0], 0xdeadbeef);
    assert_true(got[1] == 0x0123456789abcdefULL);

    /* a wait holds the stream until the host writes the value */
    OK(cuStreamWaitValue32(s, dflag, 5, CU_STREAM_WAIT_VALUE_GEQ));
    OK(cuStreamWriteValue32(s, d + 16, 77, 0));
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    assert_int_equal(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    uint32_t w = 0;
    OK(cuMemcpyDtoH_v2(&w, d + 16, 4));
    assert_int_equal(w, 0); /* not yet */
    struct later l = { flag, 6 };
    pthread_t th;
    pthread_create(&th, NULL, write_later, &l);
    OK(cuStreamSynchronize(s));
    pthread_join(th, NULL);
    OK(cuMemcpyDtoH_v2(&w, d + 16, 4));
    assert_int_equal(w, 77);

    /* one stream waits for another's write */
    OK(cuStreamWaitValue64(t, d + 24, 3, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamWriteValue32(t, d + 32, 1, 0));
    OK(cuStreamWriteValue64(s, d + 24, 3, 0));
    OK(cuStreamSynchronize(t));
    OK(cuMemcpyDtoH_v2(&w, d + 32, 4));
    assert_int_equal(w, 1);

    /* each condition, satisfied at once (32 and 64 bits) */
    flag[0] = 0x10; /* cyclic: 0x10 - 0xfffffff0 = 0x20 >= 0 */
    OK(cuStreamWaitValue32(s, dflag, 0xfffffff0u, CU_STREAM_WAIT_VALUE_GEQ));
    OK(cuStreamWaitValue32(s, dflag, 0x30, CU_STREAM_WAIT_VALUE_AND));
    OK(cuStreamWaitValue32(s, dflag, 0x10, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamWaitValue32(s, dflag, 0x0f, CU_STREAM_WAIT_VALUE_NOR)); /* ~(0x1f) != 0 */
    uint64_t *f64 = (uint64_t *)(void *)(flag + 2);
    *f64 = 1;
    OK(cuStreamWaitValue64_v2(s, dflag + 8, 0xffffffffffffffffULL, CU_STREAM_WAIT_VALUE_GEQ));
    OK(cuStreamSynchronize(s));

    /* a batch: writes and a barrier in order, then a wait */
    CUstreamBatchMemOpParams ops[4];
    memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[0].writeValue.address = d + 40;
    ops[0].writeValue.value = 11;
    ops[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    ops[1].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
    ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    ops[2].writeValue.address = d + 48;
    ops[2].writeValue.value64 = 1ULL << 40;
    ops[3].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[3].waitValue.address = d + 40;
    ops[3].waitValue.value = 11;
    ops[3].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    OK(cuStreamBatchMemOp_v2(s, 4, ops, 0));
    OK(cuStreamSynchronize(s));
    uint64_t big = 0;
    OK(cuMemcpyDtoH_v2(&big, d + 48, 8));
    assert_true(big == 1ULL << 40);
    /* the barrier is the v2 API's; a bad operation refuses the whole batch */
    assert_int_equal(cuStreamBatchMemOp(s, 4, ops, 0), CUDA_ERROR_INVALID_VALUE);
    ops[0].writeValue.value = 12;
    ops[3].operation = (CUstreamBatchMemOpType)9;
    assert_int_equal(cuStreamBatchMemOp_v2(s, 4, ops, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH_v2(&w, d + 40, 4));
    assert_int_equal(w, 11); /* nothing of it ran */
    assert_int_equal(cuStreamBatchMemOp_v2(s, 0, ops, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamBatchMemOp_v2(s, 256, ops, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamBatchMemOp_v2(s, 1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamBatchMemOp_v2(s, 1, ops, 1), CUDA_ERROR_INVALID_VALUE);
    CUstreamBatchMemOpParams flush;
    memset(&flush, 0, sizeof flush);
    flush.flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
    assert_int_equal(cuStreamBatchMemOp_v2(s, 1, &flush, 0), CUDA_ERROR_NOT_SUPPORTED);

    /* bad input */
    assert_int_equal(cuStreamWriteValue32(s, d + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);     /* misaligned */
    assert_int_equal(cuStreamWriteValue64(s, d + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamWriteValue32(s, d + 64, 1, 0), CUDA_ERROR_INVALID_VALUE);    /* past the end */
    assert_int_equal(cuStreamWriteValue32(s, 0, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamWriteValue32(s, (CUdeviceptr)(uintptr_t)&w, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamWriteValue32(s, d, 1, 2), CUDA_ERROR_INVALID_VALUE);        /* flags */
    assert_int_equal(cuStreamWaitValue32(s, d, 1, 4), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuStreamWaitValue32(s, d, 1, CU_STREAM_WAIT_VALUE_FLUSH), CUDA_ERROR_NOT_SUPPORTED);
    CUdeviceptr m;
    OK(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL));
    assert_int_equal(cuStreamWriteValue32(s, m, 1, 0), CUDA_ERROR_INVALID_VALUE);     /* managed memory */
    assert_int_equal(cuStreamWriteValue32((CUstream)&w, d, 1, 0), CUDA_ERROR_INVALID_HANDLE);
    OK(cuStreamSynchronize(s));
    OK(cuMemFree_v2(m));

    /* the default and per-thread streams */
    OK(cuStreamWriteValue32_v2(NULL, d, 21, 0));
    OK(cuStreamWriteValue32_ptsz(NULL, d + 4, 22, 0));
    OK(cuCtxSynchronize());
    uint32_t two[2];
    OK(cuMemcpyDtoH_v2(two, d, 8));
    assert_int_equal(two[0], 21);
    assert_int_equal(two[1], 22);

    OK(cuMemFreeHost(flag));
    OK(cuMemFree_v2(d));
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(t));
}

/* a kernel's fault in the context ends a wait that would never be met */
/* On a capturing stream, stream memory operations become one batch
 * memory operation node each; launching the graph does them. */
static void test_memop_capture(void **state)
{
    (void)state;
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 16));
    OK(cuMemsetD8_v2(d, 0, 16));
    OK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamWriteValue32_v2(s, d, 7, 0));
    OK(cuStreamWaitValue32_v2(s, d, 7, CU_STREAM_WAIT_VALUE_EQ));
    CUstreamBatchMemOpParams ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    ops[0].writeValue.address = d + 8;
    ops[0].writeValue.value64 = 0xabcdef0123456789ull;
    ops[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    OK(cuStreamBatchMemOp_v2(s, 2, ops, 0));
    /* checked when captured: a bad one leaves the capture as it was */
    assert_int_equal(cuStreamWriteValue32_v2(s, d + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
    uint32_t host[4] = { 0 };
    CUgraph g;
    OK(cuStreamEndCapture(s, &g));
    OK(cuMemcpyDtoH_v2(host, d, 16)); /* nothing ran while capturing */
    assert_int_equal(host[0], 0);
    size_t n = 0;
    OK(cuGraphGetNodes(g, NULL, &n));
    assert_int_equal(n, 3);
    CUgraphNode nodes[3];
    OK(cuGraphGetNodes(g, nodes, &n));
    for (size_t i = 0; i < n; i++) {
        CUgraphNodeType t;
        OK(cuGraphNodeGetType(nodes[i], &t));
        assert_int_equal(t, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
    }
    CUgraphExec e;
    OK(cuGraphInstantiateWithFlags(&e, g, 0));
    OK(cuGraphLaunch(e, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH_v2(host, d, 16));
    assert_int_equal(host[0], 7);
    assert_int_equal(((uint64_t)host[3] << 32 | host[2]), 0xabcdef0123456789ull);
    OK(cuGraphExecDestroy(e));
    OK(cuGraphDestroy(g));
    OK(cuMemFree_v2(d));
    OK(cuStreamDestroy_v2(s));
}

static void test_memop_fault(void **state)
{
    (void)state;
    static const char trap[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
                               ".visible .entry boom() { trap; }\n";
    CUcontext c;
    OK(cuCtxCreate(&c, 0, 0));
    CUstream s, t;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&t, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    OK(cuMemAlloc_v2(&d, 8));
    OK(cuMemsetD8_v2(d, 0, 8));
    OK(cuStreamWaitValue32(s, d, 1, CU_STREAM_WAIT_VALUE_EQ)); /* never written */
    CUmodule mod;
    CUfunction f;
    OK(cuModuleLoadData(&mod, trap));
    OK(cuModuleGetFunction(&f, mod, "boom"));
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, t, NULL, NULL));
    assert_int_equal(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
    OK(cuCtxDestroy(c));
    OK(cuCtxSetCurrent(ctx));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_attributes),
        cmocka_unit_test(test_memops),
        cmocka_unit_test(test_memop_capture),
        cmocka_unit_test(test_memop_fault),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
