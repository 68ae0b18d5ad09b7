/* SPDX-License-Identifier: Apache-2.0 */
/* --timeline: two streams whose work overlaps on the emulated device.
 * Two kernels shake hands through host-mapped flags (each sets its own,
 * then waits for the other's), so they run at the same time whatever the
 * machine's load; copies, a memset, events, a host function, and
 * allocations that come and go (the memory counter). With "fork", a child
 * does the same in a context of its own, into the same timeline. tests/e2e/
 * run.sh (run_timeline) checks the file; the program prints what it did,
 * for that check: "launches N", "host function ran". */
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include "tests.h"

static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry handshake(.param .u64 mine, .param .u64 other, .param .u32 n)\n{\n"
    "    .reg .b64 %rd<3>;\n    .reg .b32 %r<4>;\n    .reg .pred %p<3>;\n"
    "    ld.param.u64 %rd1, [mine];\n    ld.param.u64 %rd2, [other];\n    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r3, 1;\n    st.volatile.global.u32 [%rd1], %r3;\n    mov.u32 %r2, 0;\n"
    "SPIN:\n    ld.volatile.global.u32 %r3, [%rd2];\n    setp.ne.u32 %p1, %r3, 0;\n    @%p1 bra DONE;\n"
    "    add.u32 %r2, %r2, 1;\n    setp.lt.u32 %p2, %r2, %r1;\n    @%p2 bra SPIN;\n"
    "DONE:\n    ret;\n}\n"
    ".visible .entry busy(.param .u64 out, .param .u32 n)\n{\n"
    "    .reg .b64 %rd<4>;\n    .reg .b32 %r<6>;\n    .reg .pred %p1;\n"
    "    ld.param.u64 %rd1, [out];\n    ld.param.u32 %r1, [n];\n    mov.u32 %r2, 0;\n    mov.u32 %r3, 0;\n"
    "LOOP:\n    mad.lo.u32 %r3, %r3, 1664525, 1013904223;\n    add.u32 %r2, %r2, 1;\n"
    "    setp.lt.u32 %p1, %r2, %r1;\n    @%p1 bra LOOP;\n"
    "    mov.u32 %r4, %tid.x;\n    mul.wide.u32 %rd2, %r4, 4;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r3;\n    ret;\n}\n";

#define BYTES (1u << 20)

static volatile int host_ran;

static void host_fn(void *user)
{
    *(volatile int *)user = 1;
}

static void run(const char *who)
{
    CUcontext ctx;
    MUST(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    CUmodule m;
    MUST(cuModuleLoadData(&m, ptx), CUDA_SUCCESS);
    CUfunction shake, busy;
    MUST(cuModuleGetFunction(&shake, m, "handshake"), CUDA_SUCCESS);
    MUST(cuModuleGetFunction(&busy, m, "busy"), CUDA_SUCCESS);
    CUstream s1, s2;
    MUST(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    void *h1, *h2;
    MUST(cuMemHostAlloc(&h1, BYTES, 0), CUDA_SUCCESS);
    MUST(cuMemHostAlloc(&h2, BYTES, 0), CUDA_SUCCESS);
    memset(h1, 1, BYTES);
    memset(h2, 2, BYTES);
    uint32_t *flags;
    MUST(cuMemHostAlloc((void **)&flags, 8, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    flags[0] = flags[1] = 0;
    CUdeviceptr dflags;
    MUST(cuMemHostGetDevicePointer_v2(&dflags, flags, 0), CUDA_SUCCESS);
    CUdeviceptr d1, d2, d3;
    MUST(cuMemAlloc_v2(&d1, BYTES), CUDA_SUCCESS);
    MUST(cuMemAlloc_v2(&d2, BYTES), CUDA_SUCCESS);
    CUevent e1, e2, e0;
    MUST(cuEventCreate(&e0, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    MUST(cuEventCreate(&e1, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    MUST(cuEventCreate(&e2, CU_EVENT_DEFAULT), CUDA_SUCCESS);

    MUST(cuEventRecord(e0, s1), CUDA_SUCCESS);
    MUST(cuMemcpyHtoDAsync_v2(d1, h1, BYTES, s1), CUDA_SUCCESS);
    MUST(cuMemcpyHtoDAsync_v2(d2, h2, BYTES, s2), CUDA_SUCCESS);
    /* each waits until the other has started (bounded: 2^30 turns) */
    CUdeviceptr f0 = dflags, f1 = dflags + 4;
    unsigned turns = 1u << 30;
    void *a1[] = { &f0, &f1, &turns }, *a2[] = { &f1, &f0, &turns };
    MUST(cuLaunchKernel(shake, 1, 1, 1, 1, 1, 1, 0, s1, a1, NULL), CUDA_SUCCESS);
    MUST(cuLaunchKernel(shake, 1, 1, 1, 1, 1, 1, 0, s2, a2, NULL), CUDA_SUCCESS);
    MUST(cuEventRecord(e1, s1), CUDA_SUCCESS);
    unsigned n = 20000;
    void *a3[] = { &d1, &n };
    MUST(cuLaunchKernel(busy, 2, 1, 1, 64, 1, 1, 0, s1, a3, NULL), CUDA_SUCCESS);
    MUST(cuMemsetD32Async(d2, 7, BYTES / 4, s2), CUDA_SUCCESS);
    MUST(cuMemcpyDtoHAsync_v2(h2, d2, BYTES, s2), CUDA_SUCCESS);
    MUST(cuStreamWaitEvent(s2, e1, 0), CUDA_SUCCESS);
    MUST(cuLaunchHostFunc(s2, host_fn, (void *)&host_ran), CUDA_SUCCESS);
    void *a4[] = { &d2, &n };
    MUST(cuLaunchKernel(busy, 1, 1, 1, 32, 1, 1, 0, s2, a4, NULL), CUDA_SUCCESS);
    MUST(cuEventRecord(e2, s2), CUDA_SUCCESS);
    MUST(cuStreamSynchronize(s1), CUDA_SUCCESS);
    MUST(cuStreamSynchronize(s2), CUDA_SUCCESS);
    float ms;
    MUST(cuEventElapsedTime(&ms, e0, e2), CUDA_SUCCESS);
    /* memory goes up, then down */
    MUST(cuMemAlloc_v2(&d3, 4 * BYTES), CUDA_SUCCESS);
    MUST(cuMemFree_v2(d3), CUDA_SUCCESS);
    MUST(cuMemFree_v2(d2), CUDA_SUCCESS);
    MUST(cuMemFree_v2(d1), CUDA_SUCCESS);
    MUST(cuMemFreeHost(h1), CUDA_SUCCESS);
    MUST(cuMemFreeHost(h2), CUDA_SUCCESS);
    MUST(cuMemFreeHost(flags), CUDA_SUCCESS);
    MUST(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    printf("%s: launches 4\n%s: host function %s\n", who, who, host_ran ? "ran" : "did not run");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    if (argc > 1 && !strcmp(argv[1], "fork")) {
        fflush(stdout);
        pid_t child = fork();
        if (child < 0)
            return 99;
        if (child == 0) {
            run("child");
            return 0;
        }
        int st;
        if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
            return 98;
    }
    run("parent");
    return 0;
}
