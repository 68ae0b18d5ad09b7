/* SPDX-License-Identifier: Apache-2.0 */
/* The emulator's costs, measured side by side in one run: large-copy
 * bandwidth against plain memcpy (goal: ratio >= 0.9), and the latency of
 * an event record + synchronize and of a host function on an idle stream
 * + synchronize (goal: <= 10 us each). Prints figures; asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "td_api.h"

#define CHECK(call) do { CUresult r_ = (call); if (r_) { \
    fprintf(stderr, "%s: %d\n", #call, (int)r_); exit(1); } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nop(void *p)
{
    (void)p;
}

/* best of reps: seconds for one call of each kind */
enum { HTOD, DTOH, DTOD, MEMCPY };

static double time_copy(int kind, void *h, CUdeviceptr d, CUdeviceptr d2, void *h2, size_t n)
{
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        double t = now();
        switch (kind) {
        case HTOD: CHECK(cuMemcpyHtoD_v2(d, h, n)); break;
        case DTOH: CHECK(cuMemcpyDtoH_v2(h, d, n)); break;
        case DTOD: CHECK(cuMemcpyDtoD_v2(d2, d, n)); break;
        case MEMCPY: memcpy(h2, h, n); break;
        }
        t = now() - t;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CUdeviceptr d, d2;
    CHECK(cuMemAlloc_v2(&d, n));
    CHECK(cuMemAlloc_v2(&d2, n));
    char *h = malloc(n), *h2 = malloc(n);
    if (!h || !h2)
        return 1;
    /* touch everything once so no side pays for page faults */
    memset(h, 1, n);
    memset(h2, 2, n);
    CHECK(cuMemsetD8_v2(d, 3, n));
    CHECK(cuMemsetD8_v2(d2, 4, n));

    double base = time_copy(MEMCPY, h, d, d2, h2, n);
    static const char *names[] = { "HtoD", "DtoH", "DtoD" };
    printf("copy %zu MiB: memcpy %.2f GB/s\n", n >> 20, (double)n / base / 1e9);
    for (int k = HTOD; k <= DTOD; k++) {
        double t = time_copy(k, h, d, d2, h2, n);
        double again = time_copy(MEMCPY, h, d, d2, h2, n); /* side by side */
        if (again < base)
            base = again;
        printf("  %-5s %.2f GB/s  ratio to memcpy %.2f\n", names[k], (double)n / t / 1e9, base / t);
    }

    CUstream s;
    CUevent e;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&e, 0));
    enum { ITERS = 20000 };
    for (int i = 0; i < 1000; i++) { /* warm up */
        CHECK(cuEventRecord(e, s));
        CHECK(cuEventSynchronize(e));
    }
    double t = now();
    for (int i = 0; i < ITERS; i++) {
        CHECK(cuEventRecord(e, s));
        CHECK(cuEventSynchronize(e));
    }
    double ev_us = (now() - t) / ITERS * 1e6;
    for (int i = 0; i < 1000; i++) {
        CHECK(cuLaunchHostFunc(s, nop, NULL));
        CHECK(cuStreamSynchronize(s));
    }
    t = now();
    for (int i = 0; i < ITERS; i++) {
        CHECK(cuLaunchHostFunc(s, nop, NULL));
        CHECK(cuStreamSynchronize(s));
    }
    double hf_us = (now() - t) / ITERS * 1e6;
    printf("event record + synchronize: %.2f us (goal <= 10)\n", ev_us);
    printf("host function + stream synchronize: %.2f us (goal <= 10)\n", hf_us);

    CHECK(cuEventDestroy_v2(e));
    CHECK(cuStreamDestroy_v2(s));
    CHECK(cuMemFree_v2(d));
    CHECK(cuMemFree_v2(d2));
    CHECK(cuDevicePrimaryCtxRelease_v2(0));
    free(h);
    free(h2);
    return 0;
}
