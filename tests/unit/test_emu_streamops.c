/* Emulator: stream attributes, and the stream operations beyond copies and
 * kernels. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_attributes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
