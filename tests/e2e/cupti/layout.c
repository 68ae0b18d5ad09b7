/* SPDX-License-Identifier: Apache-2.0 */
/* include/tdtrace/cupti.h against the toolkit's CUPTI headers: every
 * field tdtrace transcribed sits where NVIDIA's does, each record has
 * NVIDIA's size, the constants agree, the functions exist. Compiled
 * (only compiled: the checks are static) by tests/e2e/run.sh where the
 * toolkit's cupti_activity.h is installed. */
#include <cupti.h>
#include <stddef.h>

#include "tdtrace/cupti.h"

#define SAME(ours, theirs, f) _Static_assert(offsetof(struct ours, f) == offsetof(theirs, f), #theirs "." #f);
#define SIZE(ours, theirs) _Static_assert(sizeof(struct ours) == sizeof(theirs), "sizeof " #theirs);

#define KERNEL(X) X(kind) X(registersPerThread) X(start) X(end) X(completed) X(deviceId) X(contextId) \
    X(streamId) X(gridX) X(gridY) X(gridZ) X(blockX) X(blockY) X(blockZ) X(staticSharedMemory)        \
    X(dynamicSharedMemory) X(correlationId) X(gridId) X(name) X(queued) X(submitted) X(launchType)     \
    X(graphNodeId) X(shmemLimitConfig) X(graphId) X(pAccessPolicyWindow) X(channelID) X(channelType)   \
    X(clusterX) X(localMemoryTotal_v2) X(maxActiveClusters) X(isDeviceLaunched)
#define MEMCPY(X) X(kind) X(copyKind) X(srcKind) X(dstKind) X(flags) X(bytes) X(start) X(end) X(deviceId) \
    X(contextId) X(streamId) X(correlationId) X(runtimeCorrelationId) X(reserved0) X(graphNodeId)        \
    X(graphId) X(channelID) X(channelType) X(isDeviceLaunched) X(copyCount)
#define MEMSET(X) X(kind) X(value) X(bytes) X(start) X(end) X(deviceId) X(contextId) X(streamId) \
    X(correlationId) X(flags) X(memoryKind) X(reserved0) X(graphNodeId) X(graphId) X(channelID)  \
    X(channelType) X(isDeviceLaunched)
#define EXTCORR(X) X(kind) X(externalKind) X(externalId) X(correlationId)

#define K(f) SAME(td_cupti_kernel, CUpti_ActivityKernel10, f)
KERNEL(K)
#define C(f) SAME(td_cupti_memcpy, CUpti_ActivityMemcpy6, f)
MEMCPY(C)
#define S(f) SAME(td_cupti_memset, CUpti_ActivityMemset4, f)
MEMSET(S)
#define E(f) SAME(td_cupti_extcorr, CUpti_ActivityExternalCorrelation, f)
EXTCORR(E)
SIZE(td_cupti_kernel, CUpti_ActivityKernel10)
SIZE(td_cupti_memcpy, CUpti_ActivityMemcpy6)
SIZE(td_cupti_memset, CUpti_ActivityMemset4)
SIZE(td_cupti_extcorr, CUpti_ActivityExternalCorrelation)

_Static_assert(TD_CUPTI_KIND_MEMCPY == CUPTI_ACTIVITY_KIND_MEMCPY, "kind");
_Static_assert(TD_CUPTI_KIND_MEMSET == CUPTI_ACTIVITY_KIND_MEMSET, "kind");
_Static_assert(TD_CUPTI_KIND_CONCURRENT_KERNEL == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kind");
_Static_assert(TD_CUPTI_KIND_EXTERNAL_CORRELATION == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "kind");
_Static_assert(TD_CUPTI_EXTERNAL_CUSTOM0 == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, "external kind");
_Static_assert(TD_CUPTI_FLUSH_FORCED == CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, "flag");
_Static_assert(TD_CUPTI_ERROR_MAX_LIMIT_REACHED == CUPTI_ERROR_MAX_LIMIT_REACHED, "result");
_Static_assert(TD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "result");
_Static_assert(TD_CUPTI_ERROR_NOT_INITIALIZED == CUPTI_ERROR_NOT_INITIALIZED, "result");
_Static_assert((int)TD_CUPTI_MEMCPY_HTOD == (int)CUPTI_ACTIVITY_MEMCPY_KIND_HTOD &&
               (int)TD_CUPTI_MEMCPY_PTOP == (int)CUPTI_ACTIVITY_MEMCPY_KIND_PTOP &&
               (int)TD_CUPTI_MEMCPY_HTOH == (int)CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, "copy kind");
_Static_assert(CUPTI_API_VERSION >= TD_CUPTI_API_MIN && CUPTI_API_VERSION < TD_CUPTI_API_END, "API version");

/* the functions: tdtrace passes the enums as 32-bit integers (CUptiResult
 * as TdCuptiResult, the kinds as uint32_t), the same in the ABI */
_Static_assert(sizeof(CUptiResult) == sizeof(TdCuptiResult) && sizeof(CUpti_ActivityKind) == sizeof(uint32_t) &&
               sizeof(CUpti_ExternalCorrelationKind) == sizeof(uint32_t), "enum sizes");
/* ... and each function tdtrace calls is one the toolkit declares (the
 * parameters are read off cupti_activity.h; a name it lacks fails here) */
#define FN(name, ret, params) _Static_assert(sizeof(&name) == sizeof(ret (*) params), #name);
TD_CUPTI_FNS(FN)
_Static_assert(__builtin_types_compatible_p(CUpti_BuffersCallbackRequestFunc, td_cupti_buf_requested), "request");
