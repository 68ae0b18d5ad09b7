/* SPDX-License-Identifier: Apache-2.0 */
/* Calls a cheap driver entry point (or getppid) N times and prints the ns per call.
 * bench/shim.sh runs it untraced and under tdtrace, side by side. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "td_api.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    const char *which = argc > 2 ? argv[2] : "ctx";
    /* getppid-filtered: the floor of any seccomp-based tracer, the same loop
     * behind one seccomp filter that allows everything (one instruction) */
    if (strcmp(which, "getppid-filtered") == 0) {
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sock_fprog prog = { 1, &allow };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
            return 1;
        which = "getppid";
    }
    if (strcmp(which, "getppid") == 0) { /* a system call nothing traps */
        double t0 = now();
        for (long i = 0; i < n; i++)
            getppid();
        printf("%.1f\n", (now() - t0) / (double)n);
        return 0;
    }
    if (cuInit(0) != CUDA_SUCCESS)
        return 1;
    CUcontext ctx;
    if (cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return 1;
    CUevent ev;
    if (cuEventCreate(&ev, CU_EVENT_DEFAULT) != CUDA_SUCCESS || cuEventRecord(ev, 0) != CUDA_SUCCESS ||
        cuEventSynchronize(ev) != CUDA_SUCCESS)
        return 1;
    double t0 = now();
    if (strcmp(which, "event") == 0) {
        for (long i = 0; i < n; i++)
            if (cuEventQuery(ev) != CUDA_SUCCESS)
                return 1;
    } else {
        CUcontext c;
        for (long i = 0; i < n; i++)
            if (cuCtxGetCurrent(&c) != CUDA_SUCCESS)
                return 1;
    }
    double t1 = now();
    printf("%.1f\n", (t1 - t0) / (double)n);
    return 0;
}
