/* SPDX-License-Identifier: Apache-2.0 */
/* bench/timeline.sh: N rounds of small asynchronous work on two streams
 * (a memset, a kernel that does nothing, an event record on each), a
 * synchronisation every 256 rounds. Prints nanoseconds per round. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "td_api.h"

static const char ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                          ".visible .entry nop()\n{\n    ret;\n}\n";

#define MUST(x) do { if ((x) != CUDA_SUCCESS) { fprintf(stderr, "%s failed\n", #x); exit(1); } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    CUcontext ctx;
    MUST(cuInit(0));
    MUST(cuCtxCreate_v2(&ctx, 0, 0));
    CUmodule m;
    CUfunction f;
    MUST(cuModuleLoadData(&m, ptx));
    MUST(cuModuleGetFunction(&f, m, "nop"));
    CUstream s[2];
    CUevent e[2];
    CUdeviceptr d;
    MUST(cuMemAlloc_v2(&d, 4096));
    for (int i = 0; i < 2; i++) {
        MUST(cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
        MUST(cuEventCreate(&e[i], CU_EVENT_DISABLE_TIMING));
    }
    double t0 = now();
    for (long r = 0; r < n; r++) {
        for (int i = 0; i < 2; i++) {
            MUST(cuMemsetD32Async(d + 2048 * (unsigned)i, (unsigned)r, 512, s[i]));
            MUST(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s[i], NULL, NULL));
            MUST(cuEventRecord(e[i], s[i]));
        }
        if ((r & 255) == 255)
            MUST(cuCtxSynchronize());
    }
    MUST(cuCtxSynchronize());
    printf("%.1f\n", (now() - t0) / (double)n);
    MUST(cuCtxDestroy_v2(ctx));
    return 0;
}
