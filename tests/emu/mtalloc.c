/* SPDX-License-Identifier: Apache-2.0 */
/* Many threads allocate, copy, free and sync at once; accounting returns
 * to where it started. */
#include <pthread.h>
#include <string.h>
#include "common.h"

#define NT 8
static CUcontext ctx;
static int bad[NT];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (cuCtxSetCurrent(ctx)) { bad[id] = 1; return NULL; }
    CUstream s;
    if (cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) { bad[id] = 2; return NULL; }
    unsigned char buf[4096];
    for (int i = 0; i < 300; i++) {
        CUdeviceptr p;
        size_t n = 1 + (size_t)((i * 131 + id * 17) % 4096);
        if (cuMemAlloc_v2(&p, n)) { bad[id] = 3; break; }
        memset(buf, id, n);
        if (cuMemcpyHtoDAsync_v2(p, buf, n, s) || cuMemsetD8Async(p, (unsigned char)i, 1, s) ||
            cuStreamSynchronize(s)) { bad[id] = 4; break; }
        unsigned char b0 = 0, b1 = 0;
        cuMemcpyDtoH_v2(&b0, p, 1);
        cuMemcpyDtoH_v2(&b1, p + n - 1, 1);
        if (b0 != (unsigned char)i || (n > 1 && b1 != id)) { bad[id] = 5; break; }
        if (cuMemFree_v2(p)) { bad[id] = 6; break; }
    }
    cuStreamDestroy_v2(s);
    return NULL;
}

int main(void)
{
    CHECK(cuInit(0));
    CHECK(cuCtxCreate(&ctx, 0, 0));
    size_t f0, f1, total;
    CHECK(cuMemGetInfo_v2(&f0, &total));
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < NT; i++) {
        pthread_join(t[i], NULL);
        EXPECT(bad[i] == 0);
        if (bad[i])
            fprintf(stderr, "thread %d failed at step %d\n", i, bad[i]);
    }
    CHECK(cuMemGetInfo_v2(&f1, &total));
    EXPECT(f0 == f1);
    CHECK(cuCtxDestroy_v2(ctx));
    if (!e2e_failed)
        printf("mtalloc: ok\n");
    return e2e_failed;
}
