/* SPDX-License-Identifier: Apache-2.0 */
/* Streams with callbacks: 4 streams each copy, memset and call back in
 * order; cross-stream event waits; the legacy stream joins them. */
#include <string.h>
#include <stdatomic.h>
#include "common.h"

#define NS 4
#define N (1u << 20)

struct slot { int stream; atomic_int step; int bad; };

static void CUDAAPI cb(CUstream s, CUresult st, void *user)
{
    struct slot *sl = user;
    (void)s;
    if (st != CUDA_SUCCESS)
        sl->bad = 1;
    atomic_fetch_add(&sl->step, 1);
}

static void host_fn(void *user)
{
    struct slot *sl = user;
    if (atomic_load(&sl->step) != 1) /* after the callback */
        sl->bad = 1;
    atomic_fetch_add(&sl->step, 1);
}

int main(void)
{
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuCtxCreate(&ctx, 0, 0));
    CUstream s[NS];
    CUevent done[NS];
    CUdeviceptr d[NS];
    unsigned char *h;
    struct slot sl[NS];
    CHECK(cuMemAllocHost_v2((void **)&h, NS * N));
    for (int i = 0; i < NS; i++) {
        CHECK(cuStreamCreate(&s[i], 0));
        CHECK(cuEventCreate(&done[i], CU_EVENT_DISABLE_TIMING));
        CHECK(cuMemAlloc_v2(&d[i], N));
        sl[i].stream = i;
        atomic_init(&sl[i].step, 0);
        sl[i].bad = 0;
    }
    for (int i = 0; i < NS; i++) {
        CHECK(cuMemsetD8Async(d[i], (unsigned char)(i + 1), N, s[i]));
        CHECK(cuStreamAddCallback(s[i], cb, &sl[i], 0));
        CHECK(cuLaunchHostFunc(s[i], host_fn, &sl[i]));
        CHECK(cuMemcpyDtoHAsync_v2(h + (size_t)i * N, d[i], N, s[i]));
        CHECK(cuEventRecord(done[i], s[i]));
    }
    /* stream 0 waits for all others, then overwrites the first byte of each */
    for (int i = 1; i < NS; i++)
        CHECK(cuStreamWaitEvent(s[0], done[i], 0));
    for (int i = 0; i < NS; i++)
        CHECK(cuMemsetD8Async((CUdeviceptr)(uintptr_t)(h + (size_t)i * N), 0xEE, 1, s[0]));
    CHECK(cuStreamSynchronize(NULL)); /* the legacy stream waits for the blocking streams */
    CHECK(cuStreamSynchronize(s[0]));
    for (int i = 0; i < NS; i++) {
        EXPECT(atomic_load(&sl[i].step) == 2 && !sl[i].bad);
        EXPECT(h[(size_t)i * N] == 0xEE);
        EXPECT(h[(size_t)i * N + 1] == i + 1 && h[(size_t)i * N + N - 1] == i + 1);
        CHECK(cuStreamQuery(s[i]));
        CHECK(cuEventQuery(done[i]));
        CHECK(cuEventDestroy_v2(done[i]));
        CHECK(cuStreamDestroy_v2(s[i]));
        CHECK(cuMemFree_v2(d[i]));
    }
    CHECK(cuMemFreeHost(h));
    CHECK(cuCtxDestroy_v2(ctx));
    if (!e2e_failed)
        printf("streams: ok\n");
    return e2e_failed;
}
