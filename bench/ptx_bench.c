/* SPDX-License-Identifier: Apache-2.0 */
/* PTX engine benchmark: thread-instructions per second for an element-wise
 * kernel and a shared-memory reduction (bar.sync in a loop), on one host
 * thread and on all cores. Linked statically with the emulator, launched
 * through the driver API; kernels as nvcc 13 emits them (-arch=sm_75). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"
#include "../src/ptx/ptx.h"

static const char ptx[] =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)\n{\n"
    " .reg .pred %p<2>; .reg .f32 %f<7>; .reg .b32 %r<6>; .reg .b64 %rd<8>;\n"
    " ld.param.u32 %r2, [n]; ld.param.f32 %f1, [a]; ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y];\n"
    " mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x; mad.lo.s32 %r1, %r3, %r4, %r5;\n"
    " setp.ge.s32 %p1, %r1, %r2;\n @%p1 bra $L__BB0_2;\n"
    " cvta.to.global.u64 %rd3, %rd2; cvta.to.global.u64 %rd4, %rd1; mul.wide.s32 %rd5, %r1, 4;\n"
    " add.s64 %rd6, %rd4, %rd5; ld.global.f32 %f2, [%rd6]; add.s64 %rd7, %rd3, %rd5; ld.global.f32 %f3, [%rd7];\n"
    " fma.rn.f32 %f5, %f3, %f3, %f2; fma.rn.f32 %f6, %f2, %f1, %f5; st.global.f32 [%rd7], %f6;\n"
    "$L__BB0_2:\n ret;\n}\n"
    ".extern .shared .align 16 .b8 s[];\n"
    ".visible .entry reduce(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    " .reg .pred %p<7>; .reg .f32 %f<14>; .reg .b32 %r<17>; .reg .b64 %rd<9>;\n"
    " ld.param.u64 %rd3, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r9, [n]; cvta.to.global.u64 %rd1, %rd3;\n"
    " mov.u32 %r1, %ntid.x; shl.b32 %r10, %r1, 1; mov.u32 %r11, %ctaid.x; mov.u32 %r2, %tid.x;\n"
    " mad.lo.s32 %r3, %r10, %r11, %r2; setp.ge.s32 %p1, %r3, %r9; mov.f32 %f13, 0f00000000;\n @%p1 bra $L__BB1_2;\n"
    " mul.wide.s32 %rd4, %r3, 4; add.s64 %rd5, %rd1, %rd4; ld.global.f32 %f13, [%rd5];\n"
    "$L__BB1_2:\n add.s32 %r4, %r3, %r1; setp.ge.u32 %p2, %r4, %r9;\n @%p2 bra $L__BB1_4;\n"
    " mul.wide.u32 %rd6, %r4, 4; add.s64 %rd7, %rd1, %rd6; ld.global.f32 %f6, [%rd7]; add.f32 %f13, %f13, %f6;\n"
    "$L__BB1_4:\n shl.b32 %r12, %r2, 2; mov.u32 %r13, s; add.s32 %r5, %r13, %r12; st.shared.f32 [%r5], %f13;\n"
    " bar.sync 0; shr.u32 %r16, %r1, 1; setp.eq.s32 %p3, %r16, 0;\n @%p3 bra $L__BB1_8;\n"
    "$L__BB1_5:\n setp.ge.s32 %p4, %r2, %r16;\n @%p4 bra $L__BB1_7;\n"
    " shl.b32 %r14, %r16, 2; add.s32 %r15, %r5, %r14; ld.shared.f32 %f7, [%r5]; ld.shared.f32 %f8, [%r15];\n"
    " add.f32 %f9, %f8, %f7; st.shared.f32 [%r5], %f9;\n"
    "$L__BB1_7:\n bar.sync 0; shr.u32 %r16, %r16, 1; setp.ne.s32 %p5, %r16, 0;\n @%p5 bra $L__BB1_5;\n"
    "$L__BB1_8:\n setp.ne.s32 %p6, %r2, 0;\n @%p6 bra $L__BB1_10;\n"
    " ld.shared.f32 %f10, [s]; cvta.to.global.u64 %rd8, %rd2; atom.global.add.f32 %f11, [%rd8], %f10;\n"
    "$L__BB1_10:\n ret;\n}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s = %d\n", #x, (int)r_); exit(1); } } while (0)

/* thread-instructions per second of one launch (best of reps) */
static double rate(CUfunction f, unsigned grid, unsigned block, unsigned shmem, void **args, int reps)
{
    double best = 0;
    for (int i = 0; i < reps; i++) {
        uint64_t i0 = ptx_instructions();
        double t0 = now();
        CK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, NULL, args, NULL));
        CK(cuCtxSynchronize());
        double t = now() - t0;
        double r = (double)(ptx_instructions() - i0) / t;
        if (r > best) best = r;
    }
    return best;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    CUcontext ctx;
    CUmodule m;
    CUfunction fs, fr;
    CK(cuInit(0));
    CK(cuCtxCreate(&ctx, 0, 0));
    CK(cuModuleLoadData(&m, ptx));
    CK(cuModuleGetFunction(&fs, m, "saxpy"));
    CK(cuModuleGetFunction(&fr, m, "reduce"));
    CUdeviceptr x, y, o;
    CK(cuMemAlloc_v2(&x, (size_t)n * 4));
    CK(cuMemAlloc_v2(&y, (size_t)n * 4));
    CK(cuMemAlloc_v2(&o, 4));
    CK(cuMemsetD32_v2(x, 0x3f800000, (size_t)n));
    CK(cuMemsetD32_v2(y, 0x3f800000, (size_t)n));
    float a = 0.5f;
    void *sargs[] = { &n, &a, &x, &y };
    void *rargs[] = { &x, &o, &n };
    const char *mode = getenv("TDTRACE_EMU_THREADS");
    double rs = rate(fs, (unsigned)(n + 255) / 256, 256, 0, sargs, 3);
    double rr = rate(fr, (unsigned)(n + 511) / 512, 256, 256 * 4, rargs, 3);
    printf("threads=%s elementwise %.0f M thread-instructions/s, shared reduction %.0f M thread-instructions/s\n",
           mode ? mode : "all", rs / 1e6, rr / 1e6);
    CK(cuCtxDestroy(ctx));
    return 0;
}
