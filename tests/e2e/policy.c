/* SPDX-License-Identifier: Apache-2.0 */
/* Policy rules at work, one mode per run (argv[1]); argv[2] is where the
 * rule stands ("policies/oom-drill.policy:11", "--memory-limit") as the
 * marks must name it. */
#include <string.h>
#include <sys/wait.h>

#include "tests.h"

static const char *rule;
static char pfx[32];
static int nallocs; /* this process's: alloc#N */

static CUcontext setup(int prefix)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    CUcontext c;
    MUST(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
    MUST(cuCtxSetCurrent(c), CUDA_SUCCESS);
    if (prefix)
        snprintf(pfx, sizeof(pfx), "[pid %5d] ", (int)getpid());
    return c;
}

static void alloc_ok(CUdeviceptr *d, size_t n)
{
    MUST(cuMemAlloc_v2(d, n), CUDA_SUCCESS);
    line("%scuMemAlloc_v2(&%#llx (alloc#%d), %s) = CUDA_SUCCESS", pfx, (unsigned long long)*d, ++nallocs,
         size_text(n));
}

static void alloc_fails(size_t n, const char *how)
{
    CUdeviceptr d;
    MUST(cuMemAlloc_v2(&d, n), CUDA_ERROR_OUT_OF_MEMORY);
    line("%scuMemAlloc_v2(%p, %s) = CUDA_ERROR_OUT_OF_MEMORY (2) (%s by %s)", pfx, (void *)&d, size_text(n),
         how, rule);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    rule = argv[2];
    CUdeviceptr d[8];
    if (strcmp(mode, "oom") == 0) { /* inject when=3+ */
        setup(0);
        alloc_ok(&d[0], 4096);
        alloc_ok(&d[1], 4096);
        for (int i = 0; i < 3; i++)
            alloc_fails(4096, "INJECTED");
    } else if (strcmp(mode, "limit") == 0) { /* memory-limit 8GiB */
        setup(0);
        size_t f, t;
        MUST(cuMemGetInfo_v2(&f, &t), CUDA_SUCCESS);
        if (t != 8ULL << 30 || f > t)
            return 5;
        line("cuMemGetInfo_v2(&%zu, &%zu) = CUDA_SUCCESS (LIMITED by %s)", f, t, rule);
        alloc_ok(&d[0], 6ULL << 30);
        alloc_fails(3ULL << 30, "LIMITED");
        MUST(cuMemFree_v2(d[0]), CUDA_SUCCESS);
        line("cuMemFree_v2(%#llx (alloc#1)) = CUDA_SUCCESS", (unsigned long long)d[0]);
        alloc_ok(&d[1], 3ULL << 30);
    } else if (strcmp(mode, "twoproc") == 0) { /* one budget for every process */
        setup(0);
        alloc_ok(&d[0], 10 << 20);
        fflush(stdout);
        pid_t c = fork();
        if (c == 0) {
            snprintf(pfx, sizeof(pfx), "[pid %5d] ", (int)getpid());
            line("[pid %5d] forked %d", (int)getppid(), (int)getpid());
            nallocs = 0; /* a new process: its own numbers */
            alloc_fails(10 << 20, "LIMITED");
            alloc_ok(&d[1], 4 << 20);
            line("%s+++ exited with 0 +++", pfx);
            fflush(stdout);
            _exit(0);
        }
        int st;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st))
            return 6;
        snprintf(pfx, sizeof(pfx), "[pid %5d] ", (int)getpid());
        MUST(cuMemFree_v2(d[0]), CUDA_SUCCESS);
        line("%scuMemFree_v2(%#llx (alloc#1)) = CUDA_SUCCESS", pfx, (unsigned long long)d[0]);
        alloc_ok(&d[2], 10 << 20);
        line("%s+++ exited with 0 +++", pfx);
        return 0;
    } else if (strcmp(mode, "remap") == 0) { /* device 1 -> 0 */
        setup(0);
        int n;
        MUST(cuDeviceGetCount(&n), CUDA_SUCCESS);
        line("cuDeviceGetCount(&%d) = CUDA_SUCCESS", n);
        char n0[128], n1[128];
        MUST(cuDeviceGetName(n0, sizeof(n0), 0), CUDA_SUCCESS);
        line("cuDeviceGetName(\"%s\", 128, 0) = CUDA_SUCCESS", n0);
        MUST(cuDeviceGetName(n1, sizeof(n1), 1), CUDA_SUCCESS);
        line("cuDeviceGetName(\"%s\", 128, 1) = CUDA_SUCCESS (REMAPPED by %s)", n1, rule);
        int s0, s1;
        MUST(cuDeviceGetAttribute(&s0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
        MUST(cuDeviceGetAttribute(&s1, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1), CUDA_SUCCESS);
        if (n != 2 || strcmp(n0, n1) || s0 != s1)
            return 7;
        line("cuDeviceGetAttribute(&%d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) = CUDA_SUCCESS", s0);
        line("cuDeviceGetAttribute(&%d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1) = CUDA_SUCCESS "
             "(REMAPPED by %s)", s1, rule);
    } else if (strcmp(mode, "hide") == 0) { /* two devices, device 1 hidden */
        setenv("TDTRACE_EMU_DEVICES", "2", 1);
        setup(0);
        int n;
        MUST(cuDeviceGetCount(&n), CUDA_SUCCESS);
        line("cuDeviceGetCount(&%d) = CUDA_SUCCESS", n);
        CUdevice dv;
        MUST(cuDeviceGet(&dv, 1), CUDA_ERROR_INVALID_DEVICE);
        line("cuDeviceGet(%p, 1) = CUDA_ERROR_INVALID_DEVICE (101)", (void *)&dv);
        if (n != 1)
            return 8;
    } else if (strcmp(mode, "emulate2") == 0) {
        setup(0);
        int n;
        MUST(cuDeviceGetCount(&n), CUDA_SUCCESS);
        line("cuDeviceGetCount(&%d) = CUDA_SUCCESS", n);
        for (int i = 0; i < n; i++) {
            char nm[128];
            MUST(cuDeviceGetName(nm, sizeof(nm), i), CUDA_SUCCESS);
            line("cuDeviceGetName(\"%s\", 128, %d) = CUDA_SUCCESS", nm, i);
        }
        if (n != 2)
            return 9;
    } else if (strcmp(mode, "nopeer") == 0) {
        CUcontext c = setup(0);
        MUST(cuCtxEnablePeerAccess(c, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
        (void)c;
        line("cuCtxEnablePeerAccess(ctx#1(dev 0), 0) = CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217) (DENIED by %s)",
             rule);
    } else if (strcmp(mode, "unshown") == 0) { /* a rule acts on a call the trace leaves out: said */
        MUST(cuInit(0), CUDA_SUCCESS);
        line("cuInit(0) = CUDA_SUCCESS");
        int n;
        MUST(cuDeviceGetCount(&n), CUDA_ERROR_NOT_PERMITTED);
        line("--- cuDeviceGetCount DENIED by %s ---", rule);
    } else if (strcmp(mode, "audit") == 0) { /* audit: marked, not changed */
        setup(0);
        CUgraph g;
        CUresult r = cuGraphCreate(&g, 0);
        line("cuGraphCreate(&graph#1, 0) = CUDA_SUCCESS (would be DENIED by %s)", rule);
        if (r != CUDA_SUCCESS)
            return 10;
    } else {
        return 2;
    }
    exited(0);
    return 0;
}
