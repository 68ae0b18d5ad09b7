/* SPDX-License-Identifier: Apache-2.0 */
/* bandwidthTest-style: pinned and pageable copies in every direction,
 * timed with events, data checked. */
#include <string.h>
#include "common.h"

#define N (64u << 20)

static float timed(CUstream s, CUevent a, CUevent b, int dir, void *h, CUdeviceptr d, CUdeviceptr d2)
{
    float ms;
    CHECK(cuEventRecord(a, s));
    for (int i = 0; i < 4; i++) {
        if (dir == 0)
            CHECK(cuMemcpyHtoDAsync_v2(d, h, N, s));
        else if (dir == 1)
            CHECK(cuMemcpyDtoHAsync_v2(h, d, N, s));
        else
            CHECK(cuMemcpyDtoDAsync_v2(d2, d, N, s));
    }
    CHECK(cuEventRecord(b, s));
    CHECK(cuEventSynchronize(b));
    CHECK(cuEventElapsedTime_v2(&ms, a, b));
    return ms;
}

int main(void)
{
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    CUevent a, b;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&a, 0));
    CHECK(cuEventCreate(&b, 0));
    CUdeviceptr d, d2;
    CHECK(cuMemAlloc_v2(&d, N));
    CHECK(cuMemAlloc_v2(&d2, N));
    unsigned char *pinned, *pageable = malloc(N);
    CHECK(cuMemHostAlloc((void **)&pinned, N, 0));
    for (unsigned i = 0; i < N; i++)
        pinned[i] = (unsigned char)(i * 13), pageable[i] = 0;
    static const char *names[] = { "HtoD", "DtoH", "DtoD" };
    for (int mem = 0; mem < 2; mem++) {
        unsigned char *h = mem ? pageable : pinned;
        if (mem) { /* the pinned round left pinned[] in d2 */
            CHECK(cuMemcpyDtoH_v2(pageable, d2, N));
            EXPECT(memcmp(pageable, pinned, N) == 0);
        }
        for (int dir = 0; dir < 3; dir++) {
            float ms = timed(s, a, b, dir, h, d, d2);
            EXPECT(ms > 0);
            printf("%-8s %s: %.1f GB/s\n", mem ? "pageable" : "pinned", names[dir],
                   ms > 0 ? 4.0 * N / (ms * 1e6) : 0.0);
        }
    }
    CHECK(cuStreamSynchronize(s));
    memset(pageable, 0, N);
    CHECK(cuMemcpyDtoH_v2(pageable, d2, N));
    EXPECT(memcmp(pageable, pinned, N) == 0);
    CHECK(cuMemFree_v2(d));
    CHECK(cuMemFree_v2(d2));
    CHECK(cuMemFreeHost(pinned));
    CHECK(cuEventDestroy_v2(a));
    CHECK(cuEventDestroy_v2(b));
    CHECK(cuStreamDestroy_v2(s));
    CHECK(cuDevicePrimaryCtxRelease_v2(0));
    free(pageable);
    return e2e_failed;
}
