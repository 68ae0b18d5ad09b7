/* SPDX-License-Identifier: Apache-2.0 */
/* What tdtrace uses of NVIDIA's CUPTI Activity API (libcupti.so.13, CUPTI
 * API version 13: CUPTI_API_VERSION 130001 in the toolkit's
 * cupti_version.h): the constants, the functions' types and the layouts
 * of the four activity records the shim reads, transcribed from the
 * toolkit's cupti_activity.h and cupti_result.h (CUDA 13.0), so that
 * tdtrace builds without the toolkit. tests/e2e/cuptilayout.c checks each
 * offset and size against the toolkit's header where it is installed.
 * The shim (src/shim/cupti.c) reads these records; the test's stand-in
 * for libcupti (tests/e2e/libfakecupti.c) writes them. */
#ifndef TDTRACE_CUPTI_H
#define TDTRACE_CUPTI_H

#include <stddef.h>
#include <stdint.h>

typedef int TdCuptiResult; /* CUptiResult */
#define TD_CUPTI_SUCCESS 0
#define TD_CUPTI_ERROR_MAX_LIMIT_REACHED 12
#define TD_CUPTI_ERROR_NOT_INITIALIZED 15
#define TD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35

/* CUpti_ActivityKind: the kinds tdtrace enables */
#define TD_CUPTI_KIND_MEMCPY 1
#define TD_CUPTI_KIND_MEMSET 2
#define TD_CUPTI_KIND_CONCURRENT_KERNEL 10
#define TD_CUPTI_KIND_EXTERNAL_CORRELATION 39

/* CUpti_ExternalCorrelationKind: the one tdtrace pushes */
#define TD_CUPTI_EXTERNAL_CUSTOM0 3
/* CUpti_ActivityFlag */
#define TD_CUPTI_FLUSH_FORCED 1
/* CUpti_ActivityMemcpyKind */
enum {
    TD_CUPTI_MEMCPY_HTOD = 1, TD_CUPTI_MEMCPY_DTOH, TD_CUPTI_MEMCPY_HTOA, TD_CUPTI_MEMCPY_ATOH,
    TD_CUPTI_MEMCPY_ATOA, TD_CUPTI_MEMCPY_ATOD, TD_CUPTI_MEMCPY_DTOA, TD_CUPTI_MEMCPY_DTOD,
    TD_CUPTI_MEMCPY_HTOH, TD_CUPTI_MEMCPY_PTOP,
};

/* the API version whose record layouts these are (cuptiGetVersion) */
#define TD_CUPTI_API_MIN 130000u
#define TD_CUPTI_API_END 140000u

/* CUpti_ActivityKernel10 */
struct td_cupti_kernel {
    uint32_t kind;
    uint8_t cacheConfig, sharedMemoryConfig;
    uint16_t registersPerThread;
    uint32_t partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted;
    uint64_t start, end, completed;
    uint32_t deviceId, contextId, streamId;
    int32_t gridX, gridY, gridZ, blockX, blockY, blockZ;
    int32_t staticSharedMemory, dynamicSharedMemory;
    uint32_t localMemoryPerThread, localMemoryTotal;
    uint32_t correlationId;
    int64_t gridId;
    const char *name;
    void *reserved0;
    uint64_t queued, submitted;
    uint8_t launchType, isSharedMemoryCarveoutRequested, sharedMemoryCarveoutRequested, padding;
    uint32_t sharedMemoryExecuted;
    uint64_t graphNodeId;
    uint32_t shmemLimitConfig;
    uint32_t graphId;
    void *pAccessPolicyWindow;
    uint32_t channelID;
    uint32_t channelType;
    uint32_t clusterX, clusterY, clusterZ, clusterSchedulingPolicy;
    uint64_t localMemoryTotal_v2;
    uint32_t maxPotentialClusterSize, maxActiveClusters;
    uint8_t isDeviceLaunched;
    uint8_t padding3[7];
};

/* CUpti_ActivityMemcpy6 */
struct td_cupti_memcpy {
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes, start, end;
    uint32_t deviceId, contextId, streamId, correlationId;
    uint32_t runtimeCorrelationId;
    uint32_t pad;
    void *reserved0;
    uint64_t graphNodeId;
    uint32_t graphId, channelID;
    uint32_t channelType;
    uint8_t isDeviceLaunched;
    uint8_t pad2[3];
    uint64_t copyCount;
};

/* CUpti_ActivityMemset4 */
struct td_cupti_memset {
    uint32_t kind;
    uint32_t value;
    uint64_t bytes, start, end;
    uint32_t deviceId, contextId, streamId, correlationId;
    uint16_t flags, memoryKind;
    uint32_t pad;
    void *reserved0;
    uint64_t graphNodeId;
    uint32_t graphId, channelID;
    uint32_t channelType;
    uint8_t isDeviceLaunched;
    uint8_t pad2[3];
};

/* CUpti_ActivityExternalCorrelation */
struct td_cupti_extcorr {
    uint32_t kind;
    uint32_t externalKind;
    uint64_t externalId;
    uint32_t correlationId;
    uint32_t reserved;
};

/* the functions tdtrace calls, by their CUPTI names (CUPTIAPI is the
 * default calling convention on Linux) */
typedef void (*td_cupti_buf_requested)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
typedef void (*td_cupti_buf_completed)(void *ctx, uint32_t streamId, uint8_t *buffer, size_t size,
                                       size_t validSize);
#define TD_CUPTI_FNS(X)                                                                                  \
    X(cuptiGetVersion, TdCuptiResult, (uint32_t * version))                                              \
    X(cuptiGetResultString, TdCuptiResult, (TdCuptiResult result, const char **str))                    \
    X(cuptiGetTimestamp, TdCuptiResult, (uint64_t * timestamp))                                          \
    X(cuptiActivityRegisterCallbacks, TdCuptiResult,                                                     \
      (td_cupti_buf_requested requested, td_cupti_buf_completed completed))                              \
    X(cuptiActivityEnable, TdCuptiResult, (uint32_t kind))                                               \
    X(cuptiActivityDisable, TdCuptiResult, (uint32_t kind))                                              \
    X(cuptiActivityFlushAll, TdCuptiResult, (uint32_t flag))                                             \
    X(cuptiActivityGetNextRecord, TdCuptiResult, (uint8_t * buffer, size_t validSize, void **record))    \
    X(cuptiActivityGetNumDroppedRecords, TdCuptiResult, (void *context, uint32_t streamId, size_t *dropped)) \
    X(cuptiActivityPushExternalCorrelationId, TdCuptiResult, (uint32_t kind, uint64_t id))              \
    X(cuptiActivityPopExternalCorrelationId, TdCuptiResult, (uint32_t kind, uint64_t * lastId))

#endif
