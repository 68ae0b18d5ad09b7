/* SPDX-License-Identifier: Apache-2.0 */
/* PTX engine benchmark: thread-instructions per second for an element-wise
 * kernel and a shared-memory reduction (bar.sync in a loop), on one host
 * thread and on all cores. Linked statically with the emulator, launched
 * through the driver API; kernels as nvcc 13 emits them (-arch=sm_75).
 *
 * "ptx_bench engines RUNS [NAME]": the interpreter against the JIT
 * (docs/ptx-jit.md) on the kernels of issue 22 (saxpy of 16M floats, the
 * shared reduction, naive and 16x16-tiled SGEMM 512, Mandelbrot 1024^2 of
 * at most 256 iterations, a warp-shuffle block reduction of 16M floats,
 * one and 16 a thread): after a first launch on each (the JIT's
 * compile), RUNS launches of each, alternating; the median seconds, the
 * ratio, and whether both wrote the same bytes (NAME: only the kernels
 * whose name holds it). PTX_BENCH_ENGINES holding "jitv" adds the JIT
 * with a warp's lanes as vectors (TDTRACE_EMU_JIT_VECTOR=1; "jit" is then
 * run with TDTRACE_EMU_JIT_VECTOR=0), alternating with the others: its
 * median, jit/jitv and its results on a line of its own.
 *
 * "ptx_bench compile": one launch of one block of each of those kernels
 * on the JIT, so that each is compiled or loaded from the JIT's cache on
 * disk; the emulator's report says which and how long (bench/ptx.sh runs
 * it twice, cold and cached).
 *
 * "ptx_bench blocks RUNS": what a block itself costs the interpreter and
 * the JIT on one host thread (blocks of 256 threads that only exit, or
 * pass four barriers first).
 *
 * With OMP_WAIT_POLICY unset it runs itself again with "passive" (main). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <unistd.h>

#include "emu.h"
#include "../src/ptx/ptx.h"
#include "ptx_c.h"

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
    "$L__BB1_10:\n ret;\n}\n"
    /* naive and tiled SGEMM, Mandelbrot: nvcc 13 -ptx -arch=sm_75 of
     * c[r][c] = sum a[r][k] b[k][c] (one thread per element; the tiled one
     * through 16x16 shared tiles), and of the escape count of
     * z = z^2 + c over [-2, 1] x [-1.5, 1.5] */
    " .visible .entry sgemm_naive(\n"
    " .param .u32 sgemm_naive_param_0,\n"
    " .param .u64 sgemm_naive_param_1,\n"
    " .param .u64 sgemm_naive_param_2,\n"
    " .param .u64 sgemm_naive_param_3\n"
    " )\n"
    " {\n"
    " .reg .pred  %p<9>;\n"
    " .reg .f32  %f<30>;\n"
    " .reg .b32  %r<30>;\n"
    " .reg .b64  %rd<34>;\n"
    " ld.param.u32  %r13, [sgemm_naive_param_0];\n"
    " ld.param.u64  %rd18, [sgemm_naive_param_1];\n"
    " ld.param.u64  %rd19, [sgemm_naive_param_2];\n"
    " ld.param.u64  %rd17, [sgemm_naive_param_3];\n"
    " cvta.to.global.u64  %rd1, %rd19;\n"
    " cvta.to.global.u64  %rd2, %rd18;\n"
    " mov.u32  %r14, %ntid.y;\n"
    " mov.u32  %r15, %ctaid.y;\n"
    " mov.u32  %r16, %tid.y;\n"
    " mad.lo.s32  %r1, %r15, %r14, %r16;\n"
    " mov.u32  %r17, %ntid.x;\n"
    " mov.u32  %r18, %ctaid.x;\n"
    " mov.u32  %r19, %tid.x;\n"
    " mad.lo.s32  %r2, %r18, %r17, %r19;\n"
    " setp.ge.s32  %p1, %r1, %r13;\n"
    " setp.ge.s32  %p2, %r2, %r13;\n"
    " or.pred   %p3, %p2, %p1;\n"
    " @%p3 bra  $L__BB0_9;\n"
    " setp.lt.s32  %p4, %r13, 1;\n"
    " mul.lo.s32  %r3, %r1, %r13;\n"
    " mov.f32  %f29, 0f00000000;\n"
    " @%p4 bra  $L__BB0_8;\n"
    " add.s32  %r21, %r13, -1;\n"
    " and.b32   %r29, %r13, 3;\n"
    " setp.lt.u32  %p5, %r21, 3;\n"
    " mov.f32  %f29, 0f00000000;\n"
    " mov.u32  %r28, 0;\n"
    " @%p5 bra  $L__BB0_5;\n"
    " sub.s32  %r27, %r13, %r29;\n"
    " mul.wide.s32  %rd3, %r3, 4;\n"
    " mul.wide.s32  %rd20, %r2, 4;\n"
    " add.s64  %rd30, %rd1, %rd20;\n"
    " mul.wide.s32  %rd5, %r13, 4;\n"
    " mov.f32  %f29, 0f00000000;\n"
    " mov.u32  %r28, 0;\n"
    " mov.u64  %rd31, %rd2;\n"
    " $L__BB0_4:\n"
    " add.s64  %rd21, %rd31, %rd3;\n"
    " ld.global.f32  %f12, [%rd30];\n"
    " ld.global.f32  %f13, [%rd21];\n"
    " fma.rn.f32  %f14, %f13, %f12, %f29;\n"
    " add.s64  %rd22, %rd30, %rd5;\n"
    " ld.global.f32  %f15, [%rd22];\n"
    " ld.global.f32  %f16, [%rd21+4];\n"
    " fma.rn.f32  %f17, %f16, %f15, %f14;\n"
    " add.s64  %rd23, %rd22, %rd5;\n"
    " ld.global.f32  %f18, [%rd23];\n"
    " ld.global.f32  %f19, [%rd21+8];\n"
    " fma.rn.f32  %f20, %f19, %f18, %f17;\n"
    " add.s64  %rd24, %rd23, %rd5;\n"
    " add.s64  %rd30, %rd24, %rd5;\n"
    " ld.global.f32  %f21, [%rd24];\n"
    " ld.global.f32  %f22, [%rd21+12];\n"
    " fma.rn.f32  %f29, %f22, %f21, %f20;\n"
    " add.s32  %r28, %r28, 4;\n"
    " add.s64  %rd31, %rd31, 16;\n"
    " add.s32  %r27, %r27, -4;\n"
    " setp.ne.s32  %p6, %r27, 0;\n"
    " @%p6 bra  $L__BB0_4;\n"
    " $L__BB0_5:\n"
    " setp.eq.s32  %p7, %r29, 0;\n"
    " @%p7 bra  $L__BB0_8;\n"
    " mad.lo.s32  %r23, %r28, %r13, %r2;\n"
    " mul.wide.s32  %rd25, %r23, 4;\n"
    " add.s64  %rd33, %rd1, %rd25;\n"
    " mul.wide.s32  %rd11, %r13, 4;\n"
    " add.s32  %r24, %r28, %r3;\n"
    " mul.wide.s32  %rd26, %r24, 4;\n"
    " add.s64  %rd32, %rd2, %rd26;\n"
    " $L__BB0_7:\n"
    " .pragma \"nounroll\";\n"
    " ld.global.f32  %f23, [%rd33];\n"
    " ld.global.f32  %f24, [%rd32];\n"
    " fma.rn.f32  %f29, %f24, %f23, %f29;\n"
    " add.s64  %rd33, %rd33, %rd11;\n"
    " add.s64  %rd32, %rd32, 4;\n"
    " add.s32  %r29, %r29, -1;\n"
    " setp.ne.s32  %p8, %r29, 0;\n"
    " @%p8 bra  $L__BB0_7;\n"
    " $L__BB0_8:\n"
    " add.s32  %r25, %r3, %r2;\n"
    " cvta.to.global.u64  %rd27, %rd17;\n"
    " mul.wide.s32  %rd28, %r25, 4;\n"
    " add.s64  %rd29, %rd27, %rd28;\n"
    " st.global.f32  [%rd29], %f29;\n"
    " $L__BB0_9:\n"
    " ret;\n"
    " }\n"
    " .visible .entry sgemm_tiled(\n"
    " .param .u32 sgemm_tiled_param_0,\n"
    " .param .u64 sgemm_tiled_param_1,\n"
    " .param .u64 sgemm_tiled_param_2,\n"
    " .param .u64 sgemm_tiled_param_3\n"
    " )\n"
    " {\n"
    " .reg .pred  %p<3>;\n"
    " .reg .f32  %f<57>;\n"
    " .reg .b32  %r<29>;\n"
    " .reg .b64  %rd<20>;\n"
    " .shared .align 4 .b8 _ZZ11sgemm_tiledE2ta[1024];\n"
    " .shared .align 4 .b8 _ZZ11sgemm_tiledE2tb[1024];\n"
    " ld.param.u32  %r11, [sgemm_tiled_param_0];\n"
    " ld.param.u64  %rd8, [sgemm_tiled_param_1];\n"
    " ld.param.u64  %rd9, [sgemm_tiled_param_2];\n"
    " ld.param.u64  %rd10, [sgemm_tiled_param_3];\n"
    " mov.u32  %r12, %ctaid.y;\n"
    " shl.b32  %r13, %r12, 4;\n"
    " mov.u32  %r1, %tid.y;\n"
    " add.s32  %r14, %r13, %r1;\n"
    " mov.u32  %r15, %ctaid.x;\n"
    " shl.b32  %r2, %r15, 4;\n"
    " mov.u32  %r3, %tid.x;\n"
    " mul.lo.s32  %r4, %r14, %r11;\n"
    " setp.lt.s32  %p1, %r11, 1;\n"
    " mov.f32  %f56, 0f00000000;\n"
    " @%p1 bra  $L__BB1_3;\n"
    " shl.b32  %r17, %r1, 6;\n"
    " mov.u32  %r18, _ZZ11sgemm_tiledE2ta;\n"
    " add.s32  %r7, %r18, %r17;\n"
    " shl.b32  %r19, %r3, 2;\n"
    " add.s32  %r5, %r7, %r19;\n"
    " mov.u32  %r20, _ZZ11sgemm_tiledE2tb;\n"
    " add.s32  %r21, %r20, %r17;\n"
    " add.s32  %r6, %r21, %r19;\n"
    " add.s32  %r8, %r20, %r19;\n"
    " mad.lo.s32  %r22, %r1, %r11, %r3;\n"
    " add.s32  %r23, %r22, %r2;\n"
    " cvta.to.global.u64  %rd11, %rd9;\n"
    " mul.wide.s32  %rd12, %r23, 4;\n"
    " add.s64  %rd19, %rd11, %rd12;\n"
    " shl.b32  %r24, %r11, 4;\n"
    " mul.wide.s32  %rd2, %r24, 4;\n"
    " add.s32  %r25, %r3, %r4;\n"
    " cvta.to.global.u64  %rd13, %rd8;\n"
    " mul.wide.s32  %rd14, %r25, 4;\n"
    " add.s64  %rd18, %rd13, %rd14;\n"
    " mov.f32  %f56, 0f00000000;\n"
    " mov.u32  %r28, 0;\n"
    " $L__BB1_2:\n"
    " ld.global.f32  %f6, [%rd18];\n"
    " st.shared.f32  [%r5], %f6;\n"
    " ld.global.f32  %f7, [%rd19];\n"
    " st.shared.f32  [%r6], %f7;\n"
    " bar.sync  0;\n"
    " ld.shared.f32  %f8, [%r8];\n"
    " ld.shared.f32  %f9, [%r7];\n"
    " fma.rn.f32  %f10, %f9, %f8, %f56;\n"
    " ld.shared.f32  %f11, [%r8+64];\n"
    " ld.shared.f32  %f12, [%r7+4];\n"
    " fma.rn.f32  %f13, %f12, %f11, %f10;\n"
    " ld.shared.f32  %f14, [%r8+128];\n"
    " ld.shared.f32  %f15, [%r7+8];\n"
    " fma.rn.f32  %f16, %f15, %f14, %f13;\n"
    " ld.shared.f32  %f17, [%r8+192];\n"
    " ld.shared.f32  %f18, [%r7+12];\n"
    " fma.rn.f32  %f19, %f18, %f17, %f16;\n"
    " ld.shared.f32  %f20, [%r8+256];\n"
    " ld.shared.f32  %f21, [%r7+16];\n"
    " fma.rn.f32  %f22, %f21, %f20, %f19;\n"
    " ld.shared.f32  %f23, [%r8+320];\n"
    " ld.shared.f32  %f24, [%r7+20];\n"
    " fma.rn.f32  %f25, %f24, %f23, %f22;\n"
    " ld.shared.f32  %f26, [%r8+384];\n"
    " ld.shared.f32  %f27, [%r7+24];\n"
    " fma.rn.f32  %f28, %f27, %f26, %f25;\n"
    " ld.shared.f32  %f29, [%r8+448];\n"
    " ld.shared.f32  %f30, [%r7+28];\n"
    " fma.rn.f32  %f31, %f30, %f29, %f28;\n"
    " ld.shared.f32  %f32, [%r8+512];\n"
    " ld.shared.f32  %f33, [%r7+32];\n"
    " fma.rn.f32  %f34, %f33, %f32, %f31;\n"
    " ld.shared.f32  %f35, [%r8+576];\n"
    " ld.shared.f32  %f36, [%r7+36];\n"
    " fma.rn.f32  %f37, %f36, %f35, %f34;\n"
    " ld.shared.f32  %f38, [%r8+640];\n"
    " ld.shared.f32  %f39, [%r7+40];\n"
    " fma.rn.f32  %f40, %f39, %f38, %f37;\n"
    " ld.shared.f32  %f41, [%r8+704];\n"
    " ld.shared.f32  %f42, [%r7+44];\n"
    " fma.rn.f32  %f43, %f42, %f41, %f40;\n"
    " ld.shared.f32  %f44, [%r8+768];\n"
    " ld.shared.f32  %f45, [%r7+48];\n"
    " fma.rn.f32  %f46, %f45, %f44, %f43;\n"
    " ld.shared.f32  %f47, [%r8+832];\n"
    " ld.shared.f32  %f48, [%r7+52];\n"
    " fma.rn.f32  %f49, %f48, %f47, %f46;\n"
    " ld.shared.f32  %f50, [%r8+896];\n"
    " ld.shared.f32  %f51, [%r7+56];\n"
    " fma.rn.f32  %f52, %f51, %f50, %f49;\n"
    " ld.shared.f32  %f53, [%r8+960];\n"
    " ld.shared.f32  %f54, [%r7+60];\n"
    " fma.rn.f32  %f56, %f54, %f53, %f52;\n"
    " bar.sync  0;\n"
    " add.s64  %rd19, %rd19, %rd2;\n"
    " add.s64  %rd18, %rd18, 64;\n"
    " add.s32  %r28, %r28, 16;\n"
    " setp.lt.s32  %p2, %r28, %r11;\n"
    " @%p2 bra  $L__BB1_2;\n"
    " $L__BB1_3:\n"
    " add.s32  %r26, %r2, %r3;\n"
    " add.s32  %r27, %r4, %r26;\n"
    " cvta.to.global.u64  %rd15, %rd10;\n"
    " mul.wide.s32  %rd16, %r27, 4;\n"
    " add.s64  %rd17, %rd15, %rd16;\n"
    " st.global.f32  [%rd17], %f56;\n"
    " ret;\n"
    " }\n"
    " .visible .entry mandelbrot(\n"
    " .param .u32 mandelbrot_param_0,\n"
    " .param .u32 mandelbrot_param_1,\n"
    " .param .u32 mandelbrot_param_2,\n"
    " .param .u64 mandelbrot_param_3\n"
    " )\n"
    " {\n"
    " .reg .pred  %p<8>;\n"
    " .reg .f32  %f<30>;\n"
    " .reg .b32  %r<20>;\n"
    " .reg .b64  %rd<5>;\n"
    " ld.param.u32  %r6, [mandelbrot_param_0];\n"
    " ld.param.u32  %r7, [mandelbrot_param_1];\n"
    " ld.param.u32  %r8, [mandelbrot_param_2];\n"
    " ld.param.u64  %rd1, [mandelbrot_param_3];\n"
    " mov.u32  %r9, %ntid.x;\n"
    " mov.u32  %r10, %ctaid.x;\n"
    " mov.u32  %r11, %tid.x;\n"
    " mad.lo.s32  %r1, %r10, %r9, %r11;\n"
    " mov.u32  %r12, %ntid.y;\n"
    " mov.u32  %r13, %ctaid.y;\n"
    " mov.u32  %r14, %tid.y;\n"
    " mad.lo.s32  %r2, %r13, %r12, %r14;\n"
    " setp.ge.s32  %p1, %r1, %r6;\n"
    " setp.ge.s32  %p2, %r2, %r7;\n"
    " or.pred   %p3, %p1, %p2;\n"
    " @%p3 bra  $L__BB2_5;\n"
    " setp.lt.s32  %p4, %r8, 1;\n"
    " mov.u32  %r19, 0;\n"
    " @%p4 bra  $L__BB2_4;\n"
    " cvt.rn.f32.s32  %f15, %r7;\n"
    " cvt.rn.f32.s32  %f16, %r2;\n"
    " mul.f32  %f17, %f16, 0f40400000;\n"
    " div.rn.f32  %f18, %f17, %f15;\n"
    " add.f32  %f1, %f18, 0fBFC00000;\n"
    " cvt.rn.f32.s32  %f19, %r6;\n"
    " cvt.rn.f32.s32  %f20, %r1;\n"
    " mul.f32  %f21, %f20, 0f40400000;\n"
    " div.rn.f32  %f22, %f21, %f19;\n"
    " add.f32  %f2, %f22, 0fC0000000;\n"
    " mov.f32  %f26, 0f00000000;\n"
    " mov.u32  %r19, 0;\n"
    " mov.f32  %f27, %f26;\n"
    " mov.f32  %f28, %f26;\n"
    " mov.f32  %f29, %f26;\n"
    " $L__BB2_3:\n"
    " sub.f32  %f23, %f27, %f26;\n"
    " add.f32  %f7, %f2, %f23;\n"
    " add.f32  %f24, %f29, %f29;\n"
    " fma.rn.f32  %f28, %f24, %f28, %f1;\n"
    " add.s32  %r19, %r19, 1;\n"
    " setp.lt.s32  %p5, %r19, %r8;\n"
    " mul.f32  %f27, %f7, %f7;\n"
    " mul.f32  %f26, %f28, %f28;\n"
    " add.f32  %f25, %f27, %f26;\n"
    " setp.lt.f32  %p6, %f25, 0f40800000;\n"
    " and.pred   %p7, %p5, %p6;\n"
    " mov.f32  %f29, %f7;\n"
    " @%p7 bra  $L__BB2_3;\n"
    " $L__BB2_4:\n"
    " mad.lo.s32  %r17, %r2, %r6, %r1;\n"
    " cvta.to.global.u64  %rd2, %rd1;\n"
    " mul.wide.s32  %rd3, %r17, 4;\n"
    " add.s64  %rd4, %rd2, %rd3;\n"
    " st.global.u32  [%rd4], %r19;\n"
    " $L__BB2_5:\n"
    " ret;\n"
    " }\n"
    /* a warp-shuffle block reduction (CUB's and the samples' form): each
     * thread sums `per` elements (a block's stride apart), each warp sums
     * with shfl.sync.down, lane 0 to shared, bar.sync, warp 0 sums the
     * partials, thread 0 writes the block's sum to out[ctaid] */
    ".visible .entry warp_reduce(.param .u64 in, .param .u64 out, .param .u32 per)\n{\n"
    " .reg .pred %p<4>; .reg .f32 %f<12>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
    " .shared .align 4 .b8 wpart[32];\n"
    " ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r14, [per];\n"
    " cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;\n"
    " mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mul.lo.s32 %r12, %r2, %r3;\n"
    " mad.lo.s32 %r4, %r12, %r14, %r1; mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; mul.wide.u32 %rd7, %r3, 4;\n"
    " mov.f32 %f1, 0f00000000; mov.u32 %r13, 0;\n"
    "$L__BB5_1:\n ld.global.f32 %f5, [%rd4]; add.f32 %f1, %f1, %f5; add.s64 %rd4, %rd4, %rd7; add.s32 %r13, %r13, 1;\n"
    " setp.lt.u32 %p0, %r13, %r14;\n @%p0 bra $L__BB5_1;\n"
    " shfl.sync.down.b32 %f2, %f1, 16, 31, -1; add.f32 %f1, %f1, %f2;\n"
    " shfl.sync.down.b32 %f2, %f1, 8, 31, -1; add.f32 %f1, %f1, %f2;\n"
    " shfl.sync.down.b32 %f2, %f1, 4, 31, -1; add.f32 %f1, %f1, %f2;\n"
    " shfl.sync.down.b32 %f2, %f1, 2, 31, -1; add.f32 %f1, %f1, %f2;\n"
    " shfl.sync.down.b32 %f2, %f1, 1, 31, -1; add.f32 %f1, %f1, %f2;\n"
    " and.b32 %r5, %r1, 31; shr.u32 %r6, %r1, 5; setp.ne.s32 %p1, %r5, 0; mov.u32 %r7, wpart; shl.b32 %r8, %r6, 2;\n"
    " add.s32 %r9, %r7, %r8;\n @!%p1 st.shared.f32 [%r9], %f1;\n bar.sync 0;\n"
    " setp.ne.s32 %p2, %r6, 0;\n @%p2 bra $L__BB5_2;\n"
    " shl.b32 %r10, %r5, 2; add.s32 %r11, %r7, %r10; mov.f32 %f3, 0f00000000; setp.lt.u32 %p3, %r5, 8;\n"
    " @%p3 ld.shared.f32 %f3, [%r11];\n"
    " shfl.sync.down.b32 %f4, %f3, 4, 31, -1; add.f32 %f3, %f3, %f4;\n"
    " shfl.sync.down.b32 %f4, %f3, 2, 31, -1; add.f32 %f3, %f3, %f4;\n"
    " shfl.sync.down.b32 %f4, %f3, 1, 31, -1; add.f32 %f3, %f3, %f4;\n"
    " @%p1 bra $L__BB5_2;\n mul.wide.u32 %rd5, %r2, 4; add.s64 %rd6, %rd2, %rd5; st.global.f32 [%rd6], %f3;\n"
    "$L__BB5_2:\n ret;\n}\n"
    /* the cost of a block itself: threads that only exit, and that meet
     * four barriers on the way (ptx_bench blocks) */
    ".visible .entry blk_exit(.param .u64 x)\n{\n .reg .b32 %r<4>;\n"
    " mov.u32 %r1, %tid.x; add.u32 %r2, %r1, 1;\n ret;\n}\n"
    ".visible .entry blk_bars(.param .u64 x)\n{\n .reg .b32 %r<4>;\n"
    " mov.u32 %r1, %tid.x; bar.sync 0; add.u32 %r2, %r1, 1; bar.sync 0; bar.sync 0; bar.sync 0;\n ret;\n}\n";

/* PTX_BENCH_CLOCK=cpu: the process's CPU time instead of the wall clock
 * (on a loaded machine, one core's figures then do not count the time other
 * jobs ran; all cores' figures become the sum of the threads' times) */
static double now(void)
{
    static int cpu = -1;
    if (cpu < 0) cpu = getenv("PTX_BENCH_CLOCK") && !strcmp(getenv("PTX_BENCH_CLOCK"), "cpu");
    struct timespec ts;
    clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
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

/* ---- interp, jit and plain C ------------------------------------------------- */
struct job {
    const char *name;
    CUfunction f;
    unsigned grid[3], block[3], shmem;
    void **args;
    CUdeviceptr out;             /* what it writes */
    size_t bytes;
};

enum { E_INTERP, E_JIT, E_JITV, E_C, NE };
static const char *const ename[NE] = { "interp", "jit", "jitv", "C" };
static int vec_side; /* jitv runs: jit runs with the vector form off, jitv with it on */

struct host { /* the plain C side's arrays */
    float *x, *y, *a, *b, *c, red;
    int *mo;
};

enum { N = 16 << 20, G = 512, W = 1024, MAXIT = 256 };

static void c_run(size_t k, struct host *h)
{
    switch (k) {
    case 0: c_saxpy(N, 0.5f, h->x, h->y); break;
    case 1: h->red = c_reduce(h->x, N); break;
    case 2: c_sgemm_naive(G, h->a, h->b, h->c); break;
    case 3: c_sgemm_tiled(G, h->a, h->b, h->c); break;
    case 4: c_mandelbrot(W, W, MAXIT, h->mo); break;
    case 5: c_warp_reduce(h->x, h->y, N / 256, 1); break;
    default: c_warp_reduce(h->x, h->y, N / 4096, 16); break;
    }
}

/* one launch (or C call) on `threads` host threads (0: all cores); seconds,
 * and the thread-instructions of it in *ins */
static double launch_once(const struct job *j, size_t k, struct host *h, int e, int threads, uint64_t *ins)
{
    uint64_t i0 = ptx_instructions();
    double t0 = now();
    if (e == E_C) {
        c_threads(threads);
        c_run(k, h);
    } else {
        emu_launch_engine = e == E_JIT || e == E_JITV ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP;
        if (vec_side && e != E_INTERP) setenv("TDTRACE_EMU_JIT_VECTOR", e == E_JITV ? "1" : "0", 1);
        emu_launch_threads = threads;
        CK(cuLaunchKernel(j->f, j->grid[0], j->grid[1], j->grid[2], j->block[0], j->block[1], j->block[2],
                          j->shmem, NULL, j->args, NULL));
        CK(cuCtxSynchronize());
    }
    double t = now() - t0;
    if (ins) *ins = ptx_instructions() - i0;
    return t;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the results of engine e (a fresh y) against C's: 1 same bytes, 0 differ */
static int check(const struct job *j, size_t k, struct host *h, int e, CUdeviceptr y, CUdeviceptr o,
                 unsigned char *buf)
{
    CK(cuMemsetD32_v2(y, 0x3f800000, N));
    CK(cuMemsetD32_v2(o, 0, 1));
    launch_once(j, k, h, e, 0, NULL);
    if (!j->bytes) {
        float v;
        CK(cuMemcpyDtoH_v2(&v, o, 4));
        return !memcmp(&v, &h->red, 4);
    }
    CK(cuMemcpyDtoH_v2(buf, j->out, j->bytes));
    const void *ref = k == 0 || k >= 5 ? (void *)h->y : k == 4 ? (void *)h->mo : (void *)h->c;
    return !memcmp(buf, ref, j->bytes);
}

/* PTX_BENCH_ENGINES (default "interp jit C"): which run; RUNS of each, per
 * core count (1, all), engines alternating run by run */
static void engines(CUmodule m, int runs, const char *only)
{
    const char *sel = getenv("PTX_BENCH_ENGINES");
    int on[NE];
    for (int e = 0; e < NE; e++) { /* whole words of sel */
        on[e] = !sel && e != E_JITV;
        size_t l = strlen(ename[e]);
        for (const char *p = sel; p && (p = strstr(p, ename[e])); p += l)
            if ((p == sel || p[-1] == ' ' || p[-1] == ',') && (!p[l] || p[l] == ' ' || p[l] == ',')) on[e] = 1;
    }
    on[E_C] = 1;
    vec_side = on[E_JITV];
    CUdeviceptr x, y, o, a, b, c, mo;
    CK(cuMemAlloc_v2(&x, (size_t)N * 4));
    CK(cuMemAlloc_v2(&y, (size_t)N * 4));
    CK(cuMemAlloc_v2(&o, 4));
    CK(cuMemAlloc_v2(&a, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&b, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&c, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&mo, (size_t)W * W * 4));
    struct host h = { malloc((size_t)N * 4), malloc((size_t)N * 4), malloc((size_t)G * G * 4),
                      malloc((size_t)G * G * 4), malloc((size_t)G * G * 4), 0, malloc((size_t)W * W * 4) };
    unsigned char *buf = malloc((size_t)N * 4);
    double *t[NE][2];
    for (int e = 0; e < NE; e++)
        for (int q = 0; q < 2; q++) t[e][q] = calloc((size_t)runs, sizeof(double));
    if (!h.x || !h.y || !h.a || !h.b || !h.c || !h.mo || !buf) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (int i = 0; i < G * G; i++) { /* small integers and quarters: no rounding hides an order */
        h.a[i] = (float)(i % 7) * 0.25f - 0.5f;
        h.b[i] = (float)(i % 5) * 0.5f - 1.0f + (float)(i % 3) * 0.125f;
    }
    for (int i = 0; i < N; i++) h.x[i] = 1.0f;
    CK(cuMemcpyHtoD_v2(a, h.a, (size_t)G * G * 4));
    CK(cuMemcpyHtoD_v2(b, h.b, (size_t)G * G * 4));
    CK(cuMemsetD32_v2(x, 0x3f800000, N));
    int n = N, g = G, w = W, maxit = MAXIT;
    float alpha = 0.5f;
    void *sargs[] = { &n, &alpha, &x, &y }, *rargs[] = { &x, &o, &n }, *gargs[] = { &g, &a, &b, &c };
    void *margs[] = { &w, &w, &maxit, &mo };
    int per1 = 1, per16 = 16;
    void *w1args[] = { &x, &y, &per1 }, *w16args[] = { &x, &y, &per16 };
    CUfunction f[6];
    static const char *const names[] = { "saxpy", "reduce", "sgemm_naive", "sgemm_tiled", "mandelbrot", "warp_reduce" };
    for (int i = 0; i < 6; i++) CK(cuModuleGetFunction(&f[i], m, names[i]));
    const struct job jobs[] = {
        { "saxpy 16M", f[0], { N / 256, 1, 1 }, { 256, 1, 1 }, 0, sargs, y, (size_t)N * 4 },
        { "shared reduction 16M", f[1], { N / 512, 1, 1 }, { 256, 1, 1 }, 1024, rargs, o, 0 },
        { "sgemm naive 512", f[2], { G / 16, G / 16, 1 }, { 16, 16, 1 }, 0, gargs, c, (size_t)G * G * 4 },
        { "sgemm tiled 512", f[3], { G / 16, G / 16, 1 }, { 16, 16, 1 }, 0, gargs, c, (size_t)G * G * 4 },
        { "mandelbrot 1024^2", f[4], { W / 16, W / 16, 1 }, { 16, 16, 1 }, 0, margs, mo, (size_t)W * W * 4 },
        { "warp-shuffle reduce 16M", f[5], { N / 256, 1, 1 }, { 256, 1, 1 }, 0, w1args, y, (size_t)N / 256 * 4 },
        { "warp-shuffle reduce 16M, 16 a thread", f[5], { N / 4096, 1, 1 }, { 256, 1, 1 }, 0, w16args, y, (size_t)N / 4096 * 4 },
    };
    printf("%-20s %5s %10s %10s %10s %8s %7s %9s  %s\n", "kernel", "cores", "interp (s)", "jit (s)", "C (s)",
           "interp/jit", "jit/C", "jit Gti/s", "results against C");
    double lg[2] = { 0, 0 }, worst[2] = { 0, 0 };
    int nk = 0;
    for (size_t k = 0; k < sizeof jobs / sizeof *jobs; k++) {
        const struct job *j = &jobs[k];
        if (only && !strstr(j->name, only)) continue;
        /* the reference; the first launch of each engine (the JIT compiles) */
        for (int i = 0; i < N; i++) h.y[i] = 1.0f;
        c_threads(0);
        c_run(k, &h);
        int same[NE] = { 1, 1, 1, 1 };
        for (int e = 0; e < E_C; e++)
            if (on[e]) same[e] = check(j, k, &h, e, y, o, buf);
        uint64_t ins = 0;
        double m[NE][2];
        for (int q = 0; q < 2; q++) {
            for (int r = 0; r < runs; r++)
                for (int e = 0; e < NE; e++)
                    if (on[e]) t[e][q][r] = launch_once(j, k, &h, e, q ? 0 : 1, e == E_JIT || (e == E_JITV && !on[E_JIT]) ? &ins : NULL);
            for (int e = 0; e < NE; e++) m[e][q] = on[e] ? median(t[e][q], runs) : 0;
            char ri[16] = "-", rj[16] = "-", rc[16] = "-", gt[16] = "-";
            if (on[E_INTERP]) snprintf(ri, sizeof ri, "%.4f", m[E_INTERP][q]);
            if (on[E_JIT]) snprintf(rj, sizeof rj, "%.4f", m[E_JIT][q]);
            snprintf(rc, sizeof rc, "%.4f", m[E_C][q]);
            char ij[16] = "-", jc[16] = "-";
            if (on[E_INTERP] && on[E_JIT]) snprintf(ij, sizeof ij, "%.1fx", m[E_INTERP][q] / m[E_JIT][q]);
            if (on[E_JIT]) {
                double rat = m[E_JIT][q] / m[E_C][q];
                snprintf(jc, sizeof jc, "%.1fx", rat);
                snprintf(gt, sizeof gt, "%.2f", (double)ins / m[E_JIT][q] / 1e9);
                if (k < 5) { /* issue 22's five */
                    lg[q] += log(rat);
                    if (rat > worst[q]) worst[q] = rat;
                }
            }
            char res[96] = "";
            if (!q)
                snprintf(res, sizeof res, "interp %s, jit %s",
                         !on[E_INTERP] ? "-" : same[E_INTERP] ? "same" : "DIFFER",
                         !on[E_JIT] ? "-" : same[E_JIT] ? "same" : "DIFFER");
            printf("%-20s %5s %10s %10s %10s %8s %7s %9s  %s\n", q ? "" : j->name, q ? "all" : "1", ri, rj, rc, ij,
                   jc, gt, res);
            if (on[E_JITV])
                printf("%-20s %5s %21s jitv (s) %.4f, jit/jitv %s, results %s\n", "", q ? "all" : "1", "",
                       m[E_JITV][q], on[E_JIT] ? (snprintf(ij, sizeof ij, "%.2fx", m[E_JIT][q] / m[E_JITV][q]), ij) : "-",
                       q ? "" : same[E_JITV] ? "same" : "DIFFER");
        }
        char su[NE][16];
        for (int e = 0; e < NE; e++) {
            if (on[e]) snprintf(su[e], sizeof su[e], "%.2fx", m[e][0] / m[e][1]);
            else snprintf(su[e], sizeof su[e], "-");
        }
        printf("%-20s speed-up from 1 core to all: interp %s, jit %s, C %s\n", "", su[E_INTERP], su[E_JIT], su[E_C]);
        nk += k < 5;
    }
    if (nk && on[E_JIT])
        printf("jit/C over issue 22's %d kernels: geometric mean %.2fx, worst %.2fx (1 core); %.2fx, worst %.2fx (all cores)\n",
               nk, exp(lg[0] / nk), worst[0], exp(lg[1] / nk), worst[1]);
    free(h.x); free(h.y); free(h.a); free(h.b); free(h.c); free(h.mo); free(buf);
    for (int e = 0; e < NE; e++)
        for (int q = 0; q < 2; q++) free(t[e][q]);
}

/* one block of each kernel on the JIT: its compile (or its load from the cache) */
static void compile_only(CUmodule m)
{
    enum { G = 512, W = 1024, N = 1 << 16 };
    CUdeviceptr x, y, o, a, b, c, mo;
    CK(cuMemAlloc_v2(&x, (size_t)N * 4));
    CK(cuMemAlloc_v2(&y, (size_t)N * 4));
    CK(cuMemAlloc_v2(&o, 4));
    CK(cuMemAlloc_v2(&a, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&b, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&c, (size_t)G * G * 4));
    CK(cuMemAlloc_v2(&mo, (size_t)W * W * 4));
    int n = 256, g = G, w = W, maxit = 256;
    float alpha = 0.5f;
    void *sargs[] = { &n, &alpha, &x, &y }, *rargs[] = { &x, &o, &n }, *gargs[] = { &g, &a, &b, &c };
    void *margs[] = { &w, &w, &maxit, &mo };
    static const char *const names[] = { "saxpy", "reduce", "sgemm_naive", "sgemm_tiled", "mandelbrot" };
    void **args[] = { sargs, rargs, gargs, gargs, margs };
    const unsigned block[5][2] = { { 256, 1 }, { 256, 1 }, { 16, 16 }, { 16, 16 }, { 16, 16 } };
    const unsigned shmem[5] = { 0, 1024, 0, 0, 0 };
    emu_launch_engine = PTX_ENGINE_JIT;
    for (int i = 0; i < 5; i++) {
        CUfunction f;
        CK(cuModuleGetFunction(&f, m, names[i]));
        CK(cuLaunchKernel(f, 1, 1, 1, block[i][0], block[i][1], 1, shmem[i], NULL, args[i], NULL));
        CK(cuCtxSynchronize());
    }
}

/* "ptx_bench blocks RUNS": what a block costs each engine, on one host
 * thread: 65,536 blocks of 256 threads that only exit, and that pass four
 * barriers; the median of RUNS launches, ns a block */
static void blocks(CUmodule m, int runs)
{
    enum { NB = 1 << 16 };
    CUdeviceptr x;
    CK(cuMemAlloc_v2(&x, 4));
    void *args[] = { &x };
    static const char *const names[] = { "blk_exit", "blk_bars" };
    double *t = malloc(sizeof *t * (size_t)runs);
    if (!t) exit(1);
    emu_launch_threads = 1;
    printf("%-30s %12s %12s\n", "ns a block of 256 threads", "interp", "jit");
    for (int i = 0; i < 2; i++) {
        CUfunction f;
        CK(cuModuleGetFunction(&f, m, names[i]));
        printf("%-30s", i ? "four bar.sync, then exit" : "exit");
        for (int e = 0; e < 2; e++) {
            emu_launch_engine = e ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP;
            CK(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL)); /* the JIT's compile */
            CK(cuCtxSynchronize());
            for (int r = 0; r < runs; r++) {
                double t0 = now();
                CK(cuLaunchKernel(f, NB, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
                CK(cuCtxSynchronize());
                t[r] = (now() - t0) / NB * 1e9;
            }
            printf(" %12.1f", median(t, runs));
        }
        printf("\n");
    }
    free(t);
}

int main(int argc, char **argv)
{
    /* OpenMP's idle threads spin after each parallel region of the plain C
     * (libgomp: 300,000 rounds of pause, milliseconds on hosts where pause
     * is slow) and would take a core from the engine launched next; sleeping
     * ones do not. libgomp reads its environment before main, hence exec. */
    if (!getenv("OMP_WAIT_POLICY") && !setenv("OMP_WAIT_POLICY", "passive", 1)) execv("/proc/self/exe", argv);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "blocks") || !strcmp(mode, "compile") || !strcmp(mode, "engines")) {
        int runs = argc > 2 ? atoi(argv[2]) : 5;
        CUcontext ctx;
        CUmodule m;
        CK(cuInit(0));
        CK(cuCtxCreate(&ctx, 0, 0));
        CK(cuModuleLoadData(&m, ptx));
        if (!strcmp(mode, "blocks")) blocks(m, runs < 1 ? 1 : runs);
        else if (!strcmp(mode, "compile")) compile_only(m);
        else engines(m, runs < 1 ? 1 : runs, argc > 3 ? argv[3] : NULL);
        CK(cuCtxDestroy(ctx));
        return 0;
    }
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
    const char *thr = getenv("TDTRACE_EMU_THREADS");
    double rs = rate(fs, (unsigned)(n + 255) / 256, 256, 0, sargs, 3);
    double rr = rate(fr, (unsigned)(n + 511) / 512, 256, 256 * 4, rargs, 3);
    printf("threads=%s elementwise %.0f M thread-instructions/s, shared reduction %.0f M thread-instructions/s\n",
           thr ? thr : "all", rs / 1e6, rr / 1e6);
    CK(cuCtxDestroy(ctx));
    return 0;
}
