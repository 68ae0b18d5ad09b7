/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX engine's JIT (docs/ptx-jit.md): the engine names, which engine
 * a launch gets (interp by default, the JIT when asked and able), the
 * fallback that names the first unsupported instruction, the emulator
 * working without LLVM, and the same results (bit for bit) from both
 * engines: integer and float corner cases, per-lane helpers, divergence
 * with barriers in loops, out-of-bounds accesses, runaway loops.
 * The tests that need LLVM 16 skip, saying so, where it is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/ptx/ptx.h"

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"

static _Alignas(64) unsigned char arena[65536];

static int lookup(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    (void)cookie;
    uintptr_t b = (uintptr_t)arena;
    if (addr < b || addr >= b + 16384) return -1; /* the first 16 KiB are device memory */
    *lo = b;
    *hi = b + 16384;
    return 0;
}

static struct ptx_fault fault;
static struct ptx_engine_report rep;
static uint64_t budget;
static int host_threads; /* 0: all cores; 1: one worker, so the counts of hand-overs do
                            not depend on which worker took which block (each has its own
                            allocations last found) */

/* runs entry k(.param .u64 out) of src on engine e; out: the arena,
 * cleared first */
static unsigned block_y = 1; /* a block of block threads is block / block_y by block_y */
static enum ptx_status run(const char *src, int e, unsigned grid, unsigned block, char *err, size_t errlen)
{
    struct ptx_module *m = ptx_parse(src, 0, err, errlen);
    if (!m) fail_msg("parse: %s", err);
    memset(arena, 0, sizeof arena);
    uint64_t out = (uint64_t)(uintptr_t)arena;
    struct ptx_launch l = { .grid = { grid, 1, 1 }, .block = { block / block_y, block_y, 1 }, .params = &out, .param_bytes = 8,
                            .smcount = 4, .nthreads = host_threads, .fault = &fault, .max_instructions = budget, .engine = e,
                            .engine_report = &rep, .host = { NULL, lookup, NULL, NULL, NULL, NULL, NULL } };
    enum ptx_status st = ptx_run(m, ptx_entry_find(m, "k"), &l, err, errlen);
    ptx_module_free(m);
    return st;
}

/* whether this process can compile (LLVM 16 there): the answer of a tiny kernel */
static int have_jit(void)
{
    static int known = -1;
    if (known < 0) {
        char err[256];
        run(HDR ".visible .entry k(.param .u64 out) { ret; }\n", PTX_ENGINE_JIT, 1, 1, err, sizeof err);
        known = rep.engine == PTX_ENGINE_JIT;
        if (!known) fprintf(stderr, "(the JIT is not available here: %s)\n", rep.why);
    }
    return known;
}
#define NEED_JIT() do { if (!have_jit()) { skip(); } } while (0)

static const char saxpy[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    " cvt.rn.f32.u32 %f1, %r1;\n fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;\n st.global.f32 [%rd3], %f2;\n ret;\n}\n";

/* ---- names and selection ------------------------------------------------------- */
/* first: LLVM not there (a child that has not loaded it): the emulator
 * works, the interpreter runs, the report says why */
static void test_no_llvm(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[256];
        setenv("TDTRACE_EMU_LLVM", "/nonexistent/libLLVM-16.so.1", 1);
        enum ptx_status st = run(saxpy, PTX_ENGINE_JIT, 1, 32, err, sizeof err);
        float v;
        memcpy(&v, arena + 4 * 5, 4);
        _exit(st == PTX_OK && rep.engine == PTX_ENGINE_INTERP && v == 11.0f &&
              strstr(rep.why, "LLVM 16 is not available") ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(ptx_engine_find("interp"), PTX_ENGINE_INTERP);
    assert_int_equal(ptx_engine_find("jit"), PTX_ENGINE_JIT);
    assert_int_equal(ptx_engine_find("auto"), PTX_ENGINE_AUTO);
    assert_int_equal(ptx_engine_find("JIT"), -1);
    assert_int_equal(ptx_engine_find(""), -1);
    assert_int_equal(ptx_engine_find(NULL), -1);
    assert_string_equal(ptx_engine_name(PTX_ENGINE_JIT), "jit");
    assert_string_equal(ptx_engine_name(PTX_ENGINE_COUNT), "?");
    assert_string_equal(ptx_engine_name(-1), "?");
}

/* interp (the default) never asks for LLVM */
static void test_default_interp(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(run(saxpy, PTX_ENGINE_INTERP, 1, 32, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
    assert_string_equal(rep.why, "");
    assert_int_equal(rep.compiled, 0);
}

/* the JIT refuses a kernel with an instruction that works on the lanes
 * running together at each instruction (vote without .sync): the
 * interpreter runs it, and the report names the instruction and its line */
static void test_fallback_names_instruction(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n setp.eq.u32 %p2, %r1, %r1;\n"
        " setp.lt.u32 %p1, %r1, 8;\n @%p1 bra A;\n vote.ballot.b32 %r2, %p2;\n bra B;\nA:\n vote.ballot.b32 %r2, %p2;\nB:\n"
        " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r2;\n ret;\n}\n";
    char err[256];
    for (int e = PTX_ENGINE_JIT; e <= PTX_ENGINE_AUTO; e++) {
        assert_int_equal(run(src, e, 1, 32, err, sizeof err), PTX_OK);
        assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
        if (!strstr(rep.why, "instruction 'vote.ballot.b32' (without .sync it works on the lanes running together") ||
            !strstr(rep.why, "at PTX line 12")) fail_msg("%s", rep.why);
        uint32_t v;
        memcpy(&v, arena + 4 * 6, 4);
        assert_int_equal(v, 0xffu); /* lanes 0-7 ran together */
        memcpy(&v, arena + 4 * 9, 4);
        assert_int_equal(v, 0xffffff00u);
    }
}

/* the JIT compiles what it can, once per module: the first launch says so */
static void test_jit_runs(void **state)
{
    (void)state;
    NEED_JIT();
    char err[256];
    assert_int_equal(run(saxpy, PTX_ENGINE_AUTO, 2, 64, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_int_equal(rep.compiled, 1);
    assert_true(rep.compile_ms > 0);
    for (int i = 0; i < 64; i++) {
        float v;
        memcpy(&v, arena + 4 * i, 4);
        assert_true(v == 2.0f * (float)i + 1.0f);
    }
}

/* ---- the same bits from both engines ----------------------------------------------- */
/* runs src on both engines (the JIT must take it) and compares the arena */
static void same(const char *src, unsigned grid, unsigned block, size_t bytes)
{
    static unsigned char want[sizeof arena];
    char err[512];
    enum ptx_status s0 = run(src, PTX_ENGINE_INTERP, grid, block, err, sizeof err);
    if (s0 != PTX_OK) fail_msg("interp: %s", err);
    memcpy(want, arena, bytes);
    enum ptx_status s1 = run(src, PTX_ENGINE_JIT, grid, block, err, sizeof err);
    if (s1 != PTX_OK) fail_msg("jit: %s", err);
    if (rep.engine != PTX_ENGINE_JIT) fail_msg("not compiled: %s", rep.why);
    for (size_t i = 0; i < bytes; i += 4)
        if (memcmp(want + i, arena + i, 4)) {
            uint32_t a, b;
            memcpy(&a, want + i, 4);
            memcpy(&b, arena + i, 4);
            fail_msg("word %zu (thread %zu, slot %zu): interp 0x%08x, jit 0x%08x", i / 4, i / 128, i / 4 % 32, a, b);
        }
}

/* each thread: 32 words of results at out + 128 * tid */
#define THREAD_OUT " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 128;\n add.s64 %rd3, %rd1, %rd2;\n"

static void test_same_integer(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b16 %rs<4>; .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<4>;\n"
        THREAD_OUT
        " sub.s32 %r2, %r1, 32;\n mov.u32 %r10, -1;\n"
        " div.s32 %r3, %r2, %r1;\n div.s32 %r4, %r2, %r10;\n rem.s32 %r5, %r2, %r1;\n div.u32 %r6, %r2, %r1;\n"
        " shl.b32 %r7, %r2, %r1;\n shr.s32 %r8, %r2, %r1;\n shr.u32 %r9, %r2, %r1;\n"
        " mul.hi.s32 %r11, %r2, 123456789;\n mul.hi.u32 %r12, %r2, -5;\n mul.wide.s32 %rd4, %r2, -77777;\n"
        " min.s32 %r13, %r2, %r1;\n max.u32 %r14, %r2, %r1;\n cvt.u16.u32 %rs1, %r2;\n cvt.s32.s16 %r15, %rs1;\n"
        " mad.lo.s32 %r16, %r2, %r2, %r1;\n neg.s32 %r17, %r2;\n abs.s32 %r18, %r2;\n not.b32 %r19, %r2;\n"
        " setp.lt.s32 %p1, %r2, 0;\n selp.b32 %r20, %r3, %r4, %p1;\n bfe.u32 %r21, %r2, 3, 5;\n popc.b32 %r22, %r2;\n"
        " rem.u32 %r23, %r2, %r1;\n cnot.b32 %r24, %r1;\n mul.wide.u16 %r25, %rs1, %rs1;\n"
        " cvt.s64.s32 %rd5, %r2;\n shr.s64 %rd6, %rd5, %r1;\n mul.hi.u64 %rd7, %rd5, %rd5;\n div.s64 %rd8, %rd5, 3;\n"
        " setp.hi.u32 %p2, %r2, %r1;\n selp.u32 %r26, 1, 0, %p2;\n mad.wide.s32 %rd9, %r2, %r2, %rd5;\n"
        " st.global.u32 [%rd3], %r3;\n st.global.u32 [%rd3+4], %r4;\n st.global.v2.u32 [%rd3+8], {%r5, %r6};\n"
        " st.global.v4.u32 [%rd3+16], {%r7, %r8, %r9, %r11};\n st.global.u32 [%rd3+32], %r12;\n"
        " st.global.u32 [%rd3+36], %r13;\n st.global.u64 [%rd3+40], %rd4;\n st.global.u32 [%rd3+48], %r14;\n"
        " st.global.u32 [%rd3+52], %r15;\n st.global.u32 [%rd3+56], %r16;\n st.global.u32 [%rd3+60], %r17;\n"
        " st.global.u32 [%rd3+64], %r18;\n st.global.u32 [%rd3+68], %r19;\n st.global.u32 [%rd3+72], %r20;\n"
        " st.global.u32 [%rd3+76], %r21;\n st.global.u32 [%rd3+80], %r22;\n st.global.u32 [%rd3+84], %r23;\n"
        " st.global.u16 [%rd3+88], %rs1;\n st.global.u32 [%rd3+92], %r24;\n st.global.u64 [%rd3+96], %rd6;\n"
        " st.global.u64 [%rd3+104], %rd7;\n st.global.u64 [%rd3+112], %rd8;\n st.global.u32 [%rd3+120], %r26;\n"
        " st.global.u32 [%rd3+124], %r25;\n ret;\n}\n";
    same(src, 1, 64, 64 * 128);
}

static void test_same_float(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
        " .reg .f32 %f<40>; .reg .f64 %fd<8>;\n"
        THREAD_OUT
        " sub.s32 %r2, %r1, 32;\n cvt.rn.f32.s32 %f1, %r2;\n div.rn.f32 %f3, %f1, 0f40400000;\n"
        " and.b32 %r20, %r1, 3;\n"
        " setp.eq.u32 %p2, %r20, 0;\n selp.b32 %r25, 0x7fc00001, 0x3fc00000, %p2;\n"
        " setp.eq.u32 %p3, %r20, 1;\n selp.b32 %r25, 0x80000000, %r25, %p3;\n"
        " setp.eq.u32 %p4, %r20, 2;\n selp.b32 %r25, 0x7f800000, %r25, %p4;\n mov.b32 %f4, %r25;\n"
        " add.f32 %f5, %f3, %f4;\n mul.rn.f32 %f6, %f3, %f4;\n fma.rn.f32 %f7, %f3, %f4, %f1;\n"
        " min.f32 %f8, %f3, %f4;\n max.f32 %f9, %f4, %f3;\n sqrt.rn.f32 %f10, %f3;\n rcp.rn.f32 %f11, %f4;\n"
        " div.rn.f32 %f12, %f4, %f3;\n setp.ltu.f32 %p5, %f3, %f4;\n selp.u32 %r26, 1, 0, %p5;\n"
        " setp.num.f32 %p6, %f4, %f3;\n selp.u32 %r27, 1, 0, %p6;\n sin.approx.f32 %f13, %f3;\n"
        " cvt.rzi.s32.f32 %r28, %f6;\n cvt.f64.f32 %fd1, %f3;\n sqrt.rn.f64 %fd2, %fd1;\n cvt.rn.f32.f64 %f14, %fd2;\n"
        " add.rm.f32 %f15, %f3, 0f33800000;\n mov.f32 %f16, 0f00000000;\n mov.b32 %f17, 0x80000000;\n"
        " min.f32 %f18, %f16, %f17;\n max.f32 %f19, %f17, %f16;\n neg.f32 %f20, %f4;\n abs.f32 %f21, %f4;\n"
        " sub.f32 %f22, %f4, %f4;\n div.approx.f32 %f23, %f1, %f4;\n rsqrt.approx.f32 %f24, %f3;\n"
        " mad.rn.f32 %f25, %f1, %f1, %f4;\n ex2.approx.ftz.f32 %f26, %f3;\n cvt.rni.f32.f32 %f27, %f3;\n"
        " setp.gt.f32 %p7, %f4, %f3;\n selp.f32 %f28, %f4, %f3, %p7;\n"
        " st.global.v4.f32 [%rd3], {%f5, %f6, %f7, %f8};\n st.global.v4.f32 [%rd3+16], {%f9, %f10, %f11, %f12};\n"
        " st.global.v2.u32 [%rd3+32], {%r26, %r27};\n st.global.f32 [%rd3+40], %f13;\n st.global.u32 [%rd3+44], %r28;\n"
        " st.global.f64 [%rd3+48], %fd2;\n st.global.v2.f32 [%rd3+56], {%f14, %f15};\n"
        " st.global.v4.f32 [%rd3+64], {%f18, %f19, %f20, %f21};\n st.global.v4.f32 [%rd3+80], {%f22, %f23, %f24, %f25};\n"
        " st.global.v4.f32 [%rd3+96], {%f26, %f27, %f28, %f4};\n ret;\n}\n";
    same(src, 1, 64, 64 * 128);
}

/* a shared-memory tree reduction (barriers in a loop, divergent lanes),
 * threads that exit before the barrier, loops of different lengths */
static const char same_barriers_src[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    " .shared .align 4 .b8 sh[256];\n"
    " mov.u32 %r1, %tid.x;\n setp.ge.u32 %p0, %r1, 60;\n @%p0 exit;\n"
    " mad.lo.u32 %r2, %r1, 3, 1;\n shl.b32 %r3, %r1, 2;\n mov.u32 %r4, sh;\n add.u32 %r5, %r4, %r3;\n"
    " st.shared.u32 [%r5], %r2;\n bar.sync 0;\n mov.u32 %r6, 32;\n"
    "L1:\n setp.ge.u32 %p1, %r1, %r6;\n @%p1 bra L2;\n shl.b32 %r7, %r6, 2;\n add.u32 %r8, %r5, %r7;\n"
    " ld.shared.u32 %r9, [%r8];\n ld.shared.u32 %r10, [%r5];\n add.u32 %r10, %r10, %r9;\n st.shared.u32 [%r5], %r10;\n"
    "L2:\n bar.sync 0;\n shr.u32 %r6, %r6, 1;\n setp.ne.u32 %p2, %r6, 0;\n @%p2 bra L1;\n"
    " and.b32 %r11, %r1, 1;\n setp.eq.u32 %p3, %r11, 0;\n @%p3 bra L4;\n mov.u32 %r12, 0;\n mov.u32 %r13, 0;\n"
    "L3:\n add.u32 %r13, %r13, %r12;\n add.u32 %r12, %r12, 1;\n setp.lt.u32 %p4, %r12, %r1;\n @%p4 bra L3;\n bra L5;\n"
    "L4:\n mul.lo.u32 %r13, %r1, 1000;\n"
    "L5:\n ld.shared.u32 %r14, [sh];\n add.u32 %r15, %r14, %r13;\n ld.param.u64 %rd1, [out];\n"
    " mov.u32 %r16, %ctaid.x;\n mad.lo.u32 %r17, %r16, 64, %r1;\n mul.wide.u32 %rd2, %r17, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    " st.global.u32 [%rd3], %r15;\n ret;\n}\n";

static void test_same_barriers(void **state)
{
    (void)state;
    NEED_JIT();
    same(same_barriers_src, 3, 64, 3 * 64 * 4);
    uint32_t v;
    memcpy(&v, arena + 4 * 7, 4);
    assert_int_equal(v, 5370 + 21); /* sum of 3t+1 below 60, and 0+1+...+6 */
}

/* ---- warp rendezvous (jit_warp.c) ------------------------------------------------- */
/* a block reduction as CUB and the CUDA samples write it: a warp-shuffle
 * reduction in each warp, lane 0 to shared memory, bar.sync, the first
 * warp reduces the partial sums */
static const char warp_reduce[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    " .shared .align 4 .b8 part[32];\n"
    " mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mad.lo.u32 %r3, %r2, 256, %r1;\n"
    " mul.lo.u32 %r4, %r3, 2654435761;\n shr.u32 %r4, %r4, 20;\n"
    " shfl.sync.down.b32 %r5, %r4, 16, 31, -1;\n add.u32 %r4, %r4, %r5;\n"
    " shfl.sync.down.b32 %r5, %r4, 8, 31, -1;\n add.u32 %r4, %r4, %r5;\n"
    " shfl.sync.down.b32 %r5, %r4, 4, 31, -1;\n add.u32 %r4, %r4, %r5;\n"
    " shfl.sync.down.b32 %r5, %r4, 2, 31, -1;\n add.u32 %r4, %r4, %r5;\n"
    " shfl.sync.down.b32 %r5, %r4, 1, 31, -1;\n add.u32 %r4, %r4, %r5;\n"
    " and.b32 %r6, %r1, 31;\n shr.u32 %r7, %r1, 5;\n setp.ne.u32 %p1, %r6, 0;\n"
    " mov.u32 %r8, part;\n shl.b32 %r9, %r7, 2;\n add.u32 %r10, %r8, %r9;\n"
    " @!%p1 st.shared.u32 [%r10], %r4;\n bar.sync 0;\n setp.ne.u32 %p2, %r7, 0;\n @%p2 bra END;\n"
    " mov.u32 %r11, 0;\n setp.lt.u32 %p3, %r6, 8;\n shl.b32 %r12, %r6, 2;\n add.u32 %r13, %r8, %r12;\n"
    " @%p3 ld.shared.u32 %r11, [%r13];\n"
    " shfl.sync.bfly.b32 %r14, %r11, 4, 31, -1;\n add.u32 %r11, %r11, %r14;\n"
    " shfl.sync.bfly.b32 %r14, %r11, 2, 31, -1;\n add.u32 %r11, %r11, %r14;\n"
    " shfl.sync.bfly.b32 %r14, %r11, 1, 31, -1;\n add.u32 %r11, %r11, %r14;\n"
    " @%p1 bra END;\n ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    " st.global.u32 [%rd3], %r11;\nEND:\n ret;\n}\n";

static void test_warp_shuffle_reduction(void **state)
{
    (void)state;
    NEED_JIT();
    same(warp_reduce, 4, 256, 4 * 4);
    for (unsigned blk = 0; blk < 4; blk++) {
        uint32_t want = 0, v;
        for (unsigned t = 0; t < 256; t++) want += ((blk * 256 + t) * 2654435761u) >> 20;
        memcpy(&v, arena + 4 * blk, 4);
        assert_int_equal(v, want);
    }
}

/* partial member masks (half warps), and every warp instruction the JIT
 * takes: shfl (each mode, the c operand, the predicate), vote.all/any/uni/
 * ballot, match.any/all, redux, elect, bar.warp.sync */
static void test_warp_partial_masks(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " and.b32 %r2, %r1, 31;\n setp.lt.u32 %p1, %r2, 16;\n selp.b32 %r3, 0xffff, 0xffff0000, %p1;\n"
        " mul.lo.u32 %r4, %r1, 37;\n and.b32 %r5, %r4, 7;\n"
        " shfl.sync.up.b32 %r6|%p2, %r4, 3, 0x1000, %r3;\n selp.u32 %r7, 1, 0, %p2;\n"
        " shfl.sync.down.b32 %r8|%p3, %r4, 5, 0x100f, %r3;\n selp.u32 %r9, 1, 0, %p3;\n"
        " shfl.sync.bfly.b32 %r10, %r4, 9, 0x101f, %r3;\n"
        " shfl.sync.idx.b32 %r11, %r4, %r5, 0x100f, %r3;\n"
        " setp.ne.u32 %p4, %r5, 3;\n"
        " vote.sync.all.pred %p5, %p4, %r3;\n selp.u32 %r12, 1, 0, %p5;\n"
        " vote.sync.any.pred %p5, !%p4, %r3;\n selp.u32 %r13, 1, 0, %p5;\n"
        " vote.sync.uni.pred %p5, %p4, %r3;\n selp.u32 %r14, 1, 0, %p5;\n"
        " vote.sync.ballot.b32 %r15, %p4, %r3;\n"
        " match.any.sync.b32 %r16, %r5, %r3;\n"
        " match.all.sync.b32 %r17|%p6, %r5, %r3;\n selp.u32 %r18, 1, 0, %p6;\n"
        " and.b32 %r30, %r4, 1;\n match.all.sync.b32 %r19|%p6, %r30, %r3;\n selp.u32 %r20, 1, 0, %p6;\n"
        " redux.sync.add.u32 %r21, %r4, %r3;\n redux.sync.max.s32 %r22, %r4, %r3;\n"
        " redux.sync.min.u32 %r23, %r4, %r3;\n redux.sync.xor.b32 %r24, %r4, %r3;\n"
        " elect.sync %r25|%p7, %r3;\n selp.u32 %r26, 1, 0, %p7;\n"
        " bar.warp.sync %r3;\n"
        " st.global.v4.u32 [%rd3], {%r6, %r7, %r8, %r9};\n st.global.v4.u32 [%rd3+16], {%r10, %r11, %r12, %r13};\n"
        " st.global.v4.u32 [%rd3+32], {%r14, %r15, %r16, %r17};\n st.global.v4.u32 [%rd3+48], {%r18, %r19, %r20, %r21};\n"
        " st.global.v4.u32 [%rd3+64], {%r22, %r23, %r24, %r25};\n st.global.u32 [%rd3+80], %r26;\n ret;\n}\n";
    same(src, 1, 64, 64 * 128);
    uint32_t v;
    memcpy(&v, arena + 128 * 20 + 60, 4); /* thread 20's redux.add: its half warp's */
    uint32_t want = 0;
    for (unsigned t = 16; t < 32; t++) want += t * 37;
    assert_int_equal(v, want);
    memcpy(&v, arena + 128 * 20 + 76, 4); /* elect: lane 16 leads the upper half */
    assert_int_equal(v, 16);
}

/* divergence: lanes meet at rendezvous from different paths (shfl and
 * vote in both branches of an if, in a loop of a different length per
 * lane), threads that exit before a shuffle whose mask leaves them out */
static void test_warp_divergent(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " and.b32 %r2, %r1, 31;\n and.b32 %r3, %r1, 1;\n setp.eq.u32 %p1, %r3, 0;\n mul.lo.u32 %r4, %r1, 11;\n"
        " @%p1 bra EVEN;\n add.u32 %r4, %r4, 1000;\n shfl.sync.idx.b32 %r5, %r4, 0, 31, -1;\n"
        " setp.gt.u32 %p2, %r2, 20;\n vote.sync.ballot.b32 %r6, %p2, -1;\n bra JOIN;\n"
        "EVEN:\n shfl.sync.idx.b32 %r5, %r4, 0, 31, -1;\n setp.lt.u32 %p2, %r2, 5;\n vote.sync.ballot.b32 %r6, %p2, -1;\n"
        "JOIN:\n mov.u32 %r7, 0;\n mov.u32 %r8, 0;\n"
        "LOOP:\n setp.ge.u32 %p3, %r7, %r2;\n @%p3 bra DONE;\n add.u32 %r8, %r8, %r7;\n add.u32 %r7, %r7, 1;\n bra LOOP;\n"
        "DONE:\n redux.sync.add.u32 %r9, %r8, -1;\n"
        " setp.ge.u32 %p4, %r2, 8;\n @%p4 bra OUT;\n shfl.sync.down.b32 %r10, %r8, 1, 7, 0xff;\n"
        " st.global.u32 [%rd3+16], %r10;\n"
        "OUT:\n st.global.v4.u32 [%rd3], {%r5, %r6, %r8, %r9};\n"
        " setp.ge.u32 %p5, %r2, 24;\n @%p5 exit;\n vote.sync.all.pred %p6, %p1, 0xffffff;\n selp.u32 %r11, 1, 0, %p6;\n"
        " st.global.u32 [%rd3+20], %r11;\n ret;\n}\n";
    same(src, 2, 64, 128 * 128);
}

/* rendezvous and block barriers together: shuffles and bar.sync in a loop,
 * a warp that exits first (the barrier counts the warps left) */
static void test_warp_barriers(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 4 .b8 sh[512];\n"
        " mov.u32 %r1, %tid.x;\n setp.ge.u32 %p1, %r1, 64;\n @%p1 exit;\n"
        " mul.lo.u32 %r2, %r1, 7;\n mov.u32 %r3, sh;\n shl.b32 %r4, %r1, 2;\n add.u32 %r5, %r3, %r4;\n"
        " xor.b32 %r6, %r4, 128;\n add.u32 %r7, %r3, %r6;\n mov.u32 %r8, 0;\n"
        "L:\n shfl.sync.bfly.b32 %r9, %r2, 1, 31, -1;\n add.u32 %r2, %r2, %r9;\n st.shared.u32 [%r5], %r2;\n bar.sync 0;\n"
        " ld.shared.u32 %r10, [%r7];\n mad.lo.u32 %r2, %r2, 3, %r10;\n add.u32 %r2, %r2, %r1;\n bar.sync 0;\n add.u32 %r8, %r8, 1;\n"
        " setp.lt.u32 %p2, %r8, 4;\n @%p2 bra L;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r11, %ctaid.x;\n mad.lo.u32 %r12, %r11, 64, %r1;\n"
        " mul.wide.u32 %rd2, %r12, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r2;\n ret;\n}\n";
    same(src, 2, 96, 2 * 64 * 4);
}

/* the interpreter's errors, the same from the JIT: a shuffle reading a lane
 * outside its mask, bar.warp.sync naming exited lanes, a lane outside its
 * own mask, lanes waiting at a shuffle for lanes held at a barrier, and for
 * lanes at a vote (another rendezvous) */
static void test_warp_errors(void **state)
{
    (void)state;
    NEED_JIT();
    static const char *const srcs[] = {
        HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n"
        " mov.u32 %r1, %tid.x;\n shfl.sync.bfly.b32 %r2, %r1, 16, 31, 0xffff;\n ret;\n}\n",
        HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .pred %p<2>;\n"
        " mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 3;\n @%p1 exit;\n bar.warp.sync -1;\n ret;\n}\n",
        HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n"
        " mov.u32 %r1, %tid.x;\n vote.sync.ballot.b32 %r2, 1, 0xfffffffe;\n ret;\n}\n",
        HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .pred %p<2>;\n"
        " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra A;\n bar.sync 0;\n ret;\n"
        "A:\n shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n ret;\n}\n",
        HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .pred %p<2>;\n"
        " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra A;\n vote.sync.ballot.b32 %r2, %p1, -1;\n ret;\n"
        "A:\n shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n ret;\n}\n",
    };
    static const enum ptx_status want[] = { PTX_E_SYNC, PTX_E_DEADLOCK, PTX_E_SYNC, PTX_E_DEADLOCK, PTX_E_DEADLOCK };
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        char e0[512], e1[512];
        assert_int_equal(run(srcs[i], PTX_ENGINE_INTERP, 1, 64, e0, sizeof e0), want[i]);
        assert_int_equal(run(srcs[i], PTX_ENGINE_JIT, 1, 64, e1, sizeof e1), want[i]);
        if (rep.engine != PTX_ENGINE_JIT) fail_msg("not compiled: %s", rep.why);
        assert_string_equal(e0, e1);
    }
}

/* still refused: the deprecated vote without .sync works on the running group */
static void test_warp_refused(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .pred %p<2>;\n"
        " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 4;\n vote.ballot.b32 %r2, %p1;\n ret;\n}\n";
    char err[256];
    assert_int_equal(run(src, PTX_ENGINE_JIT, 1, 32, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
    if (!strstr(rep.why, "'vote.ballot.b32' (without .sync")) fail_msg("%s", rep.why);
}

/* ---- matrix instructions: warp rendezvous completed by the interpreter's handlers ---- */
#define HDR90 ".version 9.0\n.target sm_90\n.address_size 64\n"

/* mma.sync f16 -> f32, f16 -> f16, s8 -> s32 (.satfinite) on two warps */
static void test_mma_same(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR90
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<32>; .reg .b64 %rd<8>; .reg .f32 %f<16>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 48;\n add.s64 %rd3, %rd1, %rd2;\n"
        " mad.lo.u32 %r3, %r1, -1640531535, 19088743;\n shr.u32 %r4, %r3, 7;\n xor.b32 %r3, %r3, %r4;\n"
        " and.b32 %r10, %r3, 0xbfff3fff;\n mad.lo.u32 %r3, %r3, 1103515245, 12345;\n and.b32 %r11, %r3, 0x3fffbfff;\n"
        " mad.lo.u32 %r3, %r3, 1103515245, 12345;\n and.b32 %r12, %r3, 0xbfffbfff;\n"
        " mad.lo.u32 %r3, %r3, 1103515245, 12345;\n and.b32 %r13, %r3, 0x3fff3fff;\n"
        " mad.lo.u32 %r3, %r3, 1103515245, 12345;\n and.b32 %r14, %r3, 0xbfff3fff;\n"
        " mad.lo.u32 %r3, %r3, 1103515245, 12345;\n and.b32 %r15, %r3, 0x3fffbfff;\n"
        " cvt.rn.f32.u32 %f1, %r1;\n mul.f32 %f2, %f1, 0f3E800000;\n neg.f32 %f3, %f1;\n mov.f32 %f4, 0f3F800000;\n"
        " mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r10,%r11,%r12,%r13}, {%r14,%r15},"
        " {%f1,%f2,%f3,%f4};\n"
        " st.global.v4.f32 [%rd3], {%f5,%f6,%f7,%f8};\n"
        " mad.lo.u32 %r2, %r3, 1103515245, 12345;\n"
        " mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r20,%r21,%r22,%r23}, {%r10,%r11,%r12,%r13},"
        " {%r14,%r15}, {%r3,%r1,%r2,%r4};\n"
        " st.global.v4.u32 [%rd3+16], {%r20,%r21,%r22,%r23};\n"
        " mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r24,%r25}, {%r10,%r11,%r12,%r13}, {%r14,%r15}, {%r10,%r11};\n"
        " st.global.v2.u32 [%rd3+32], {%r24,%r25};\n ret;\n}\n";
    same(src, 2, 64, 48 * 64);
    assert_int_equal(rep.compiled, 1);
    uint32_t nz = 0; /* the products are there, not zeros: 10 words a thread */
    for (size_t i = 0; i < 48 * 64; i += 4) { uint32_t v; memcpy(&v, arena + i, 4); nz += v != 0; }
    if (nz < 10 * 64 - 16) fail_msg("%u of %d words are not 0", nz, 10 * 64);
}

/* ldmatrix (.x4, .x2.trans), movmatrix, stmatrix feeding mma, with block
 * barriers between them, on two warps */
static void test_ldmatrix_same(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR90
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .f32 %f<16>;\n"
        " .shared .align 16 .b8 sm[4096];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 64;\n add.s64 %rd3, %rd1, %rd2;\n"
        " mov.u32 %r2, sm;\n shl.b32 %r3, %r1, 5;\n add.u32 %r4, %r2, %r3;\n"
        " mad.lo.u32 %r5, %r1, -1640531535, 19088743;\n and.b32 %r5, %r5, 0x3bff3bff;\n"
        " add.u32 %r6, %r5, 0x00110013;\n add.u32 %r7, %r5, 0x01010203;\n xor.b32 %r8, %r5, 0x80008000;\n"
        " st.shared.v4.u32 [%r4], {%r5,%r6,%r7,%r8};\n st.shared.v4.u32 [%r4+16], {%r8,%r7,%r6,%r5};\n"
        " bar.sync 0;\n"
        " shr.u32 %r9, %r1, 5;\n shl.b32 %r9, %r9, 10;\n add.u32 %r9, %r2, %r9;\n and.b32 %r16, %r1, 31;\n"
        " shl.b32 %r17, %r16, 4;\n add.u32 %r18, %r9, %r17;\n"
        " ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10,%r11,%r12,%r13}, [%r18];\n"
        " and.b32 %r19, %r17, 0xff;\n add.u32 %r19, %r19, 512;\n add.u32 %r19, %r9, %r19;\n"
        " ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r14,%r15}, [%r19];\n"
        " movmatrix.sync.aligned.m8n8.trans.b16 %r20, %r10;\n"
        " mov.f32 %f1, 0f3F800000;\n mov.f32 %f2, 0f40000000;\n mov.f32 %f3, 0fBF800000;\n mov.f32 %f4, 0f00000000;\n"
        " mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r10,%r11,%r12,%r13}, {%r14,%r15},"
        " {%f1,%f2,%f3,%f4};\n"
        " bar.sync 0;\n add.u32 %r21, %r18, 2048;\n"
        " stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r21], {%r13,%r12,%r11,%r20};\n"
        " bar.sync 0;\n ld.shared.v4.u32 {%r22,%r23,%r24,%r25}, [%r21];\n"
        " st.global.v4.u32 [%rd3], {%r10,%r11,%r12,%r13};\n st.global.v4.u32 [%rd3+16], {%r14,%r15,%r20,%r22};\n"
        " st.global.v4.f32 [%rd3+32], {%f5,%f6,%f7,%f8};\n st.global.v4.u32 [%rd3+48], {%r23,%r24,%r25,%r1};\n"
        " ret;\n}\n";
    same(src, 1, 64, 64 * 64);
    uint32_t nz = 0;
    for (size_t i = 0; i < 64 * 64; i += 4) { uint32_t v; memcpy(&v, arena + i, 4); nz += v != 0; }
    assert_true(nz > 64 * 64 / 4 - 64);
}

/* the interpreter's errors, the same from the JIT: lanes that exited, a
 * predicate leaving lanes out, half a warp held at a block barrier, a
 * misaligned ldmatrix row */
static void test_mma_errors(void **state)
{
    (void)state;
    NEED_JIT();
#define MMA_F16 " mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r1,%r1,%r1,%r1}, {%r1,%r1}," \
                " {%f1,%f1,%f1,%f1};\n"
#define MMA_HEAD ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .f32 %f<16>; .reg .pred %p<2>;\n" \
                 " .shared .align 16 .b8 sm[1024];\n mov.u32 %r1, %tid.x;\n mov.f32 %f1, 0f3F800000;\n"
    static const char *const srcs[] = {
        HDR90 MMA_HEAD " setp.ge.u32 %p1, %r1, 48;\n @%p1 exit;\n" MMA_F16 " ret;\n}\n",
        HDR90 MMA_HEAD " setp.lt.u32 %p1, %r1, 40;\n @%p1" MMA_F16 " ret;\n}\n",
        HDR90 MMA_HEAD " setp.lt.u32 %p1, %r1, 16;\n @%p1 bra A;\n bar.sync 0;\n ret;\nA:\n" MMA_F16 " ret;\n}\n",
        HDR90 MMA_HEAD " mov.u32 %r2, sm;\n shl.b32 %r3, %r1, 4;\n and.b32 %r3, %r3, 511;\n setp.eq.u32 %p1, %r1, 37;\n"
        " @%p1 add.u32 %r3, %r3, 8;\n add.u32 %r3, %r3, %r2;\n"
        " ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4,%r5,%r6,%r7}, [%r3];\n ret;\n}\n",
    };
    static const char *const says[] = { "lanes 0x0000ffff run it", "lanes 0x000000ff run it", "lanes 0x0000ffff run it",
                                        "misaligned shared read of 16 bytes" };
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        char e0[512], e1[512];
        enum ptx_status s0 = run(srcs[i], PTX_ENGINE_INTERP, 1, 64, e0, sizeof e0);
        assert_int_not_equal(s0, PTX_OK);
        if (!strstr(e0, says[i])) fail_msg("interp, kernel %zu: %s", i, e0);
        assert_int_equal(run(srcs[i], PTX_ENGINE_JIT, 1, 64, e1, sizeof e1), s0);
        if (rep.engine != PTX_ENGINE_JIT) fail_msg("not compiled: %s", rep.why);
        assert_string_equal(e0, e1);
    }
#undef MMA_F16
#undef MMA_HEAD
}

/* cp.async (4, 8, 16 bytes; src-size with a zero tail; ignore-src) with
 * commit_group and wait_group: the interpreter's per-lane handler, so the
 * same bytes; a misaligned source, the same error */
static void test_cp_async(void **state)
{
    (void)state;
    NEED_JIT();
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " .shared .align 16 .b8 sm[2048];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n"
        " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n mad.lo.u32 %r2, %r1, -1640531535, 7;\n"
        " st.global.u32 [%rd3], %r2;\n bar.sync 0;\n"
        " mov.u32 %r3, sm;\n shl.b32 %r4, %r1, 5;\n add.u32 %r4, %r3, %r4;\n"
        " and.b32 %r5, %r1, 0x3f0;\n mul.wide.u32 %rd4, %r5, 4;\n add.s64 %rd5, %rd1, %rd4;\n"
        " and.b32 %r6, %r1, 15;\n setp.lt.u32 %p1, %r6, 5;\n"
        " cp.async.cg.shared.global [%r4], [%rd5], 16, %r6;\n"
        " cp.async.ca.shared.global [%r4+16], [%rd5+8], 8, %p1;\n"
        " cp.async.ca.shared.global [%r4+24], [%rd5+4], 4;\n"
        " cp.async.commit_group;\n cp.async.wait_group 0;\n bar.sync 0;\n"
        " mul.wide.u32 %rd6, %r1, 32;\n add.s64 %rd6, %rd1, %rd6;\n add.s64 %rd6, %rd6, 4096;\n"
        " ld.shared.v4.u32 {%r7,%r8,%r9,%r10}, [%r4];\n st.global.v4.u32 [%rd6], {%r7,%r8,%r9,%r10};\n"
        " ld.shared.v4.u32 {%r7,%r8,%r9,%r10}, [%r4+16];\n st.global.v4.u32 [%rd6+16], {%r7,%r8,%r9,%r10};\n"
        " cp.async.wait_all;\n ret;\n}\n";
    same(src, 1, 64, 4096 + 32 * 64);
    uint32_t nz = 0;
    for (size_t i = 4096; i < 4096 + 32 * 64; i += 4) { uint32_t v; memcpy(&v, arena + i, 4); nz += v != 0; }
    if (nz < 32 * 64 / 8) fail_msg("%u words copied", nz);
    static const char bad[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " .shared .align 16 .b8 sm[2048];\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n"
        " mov.u32 %r3, sm;\n shl.b32 %r4, %r1, 4;\n add.u32 %r4, %r3, %r4;\n"
        " setp.eq.u32 %p1, %r1, 45;\n selp.u64 %rd2, 4, 0, %p1;\n add.s64 %rd5, %rd1, %rd2;\n"
        " cp.async.cg.shared.global [%r4], [%rd5], 16;\n cp.async.wait_all;\n ret;\n}\n";
    char e0[512], e1[512];
    enum ptx_status s0 = run(bad, PTX_ENGINE_INTERP, 1, 64, e0, sizeof e0);
    assert_int_not_equal(s0, PTX_OK);
    if (!strstr(e0, "thread (45,0,0)")) fail_msg("interp: %s", e0);
    assert_int_equal(run(bad, PTX_ENGINE_JIT, 1, 64, e1, sizeof e1), s0);
    if (rep.engine != PTX_ENGINE_JIT) fail_msg("not compiled: %s", rep.why);
    assert_string_equal(e0, e1);
}

/* ---- faults and limits ------------------------------------------------------------- */
static void test_out_of_bounds(void **state)
{
    (void)state;
    NEED_JIT();
    /* thread 5 writes one word past the device memory */
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " setp.eq.u32 %p1, %r1, 5;\n @%p1 add.s64 %rd3, %rd1, 16384;\n st.global.u32 [%rd3], %r1;\n ret;\n}\n";
    char err[2][512];
    struct ptx_fault f[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(run(src, i ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP, 1, 32, err[i], sizeof err[i]), PTX_E_ADDRESS);
        f[i] = fault;
    }
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_string_equal(err[0], err[1]);
    assert_int_equal(f[1].addr, (uint64_t)(uintptr_t)arena + 16384);
    assert_int_equal(f[1].thread[0], 5);
    assert_int_equal(f[1].access, PTX_ACCESS_WRITE);
    assert_int_equal(f[1].ptx_line, 13);
    assert_string_equal(f[0].space, f[1].space);
    /* a shared access past the window, and a misaligned one */
    static const char sh[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n .shared .align 4 .b8 s[64];\n"
        " mov.u32 %r1, %tid.x;\n shl.b32 %r2, %r1, 3;\n ld.shared.u32 %r3, [%r2];\n ret;\n}\n";
    for (int i = 0; i < 2; i++)
        assert_int_equal(run(sh, i ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP, 1, 32, err[i], sizeof err[i]), PTX_E_ADDRESS);
    assert_string_equal(err[0], err[1]);
    static const char mis[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
        " ld.param.u64 %rd1, [out];\n ld.global.u32 %r1, [%rd1+2];\n ret;\n}\n";
    for (int i = 0; i < 2; i++)
        assert_int_equal(run(mis, i ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP, 1, 1, err[i], sizeof err[i]), PTX_E_MISALIGNED);
    assert_string_equal(err[0], err[1]);
}

/* ---- a warp's lanes as vectors (TDTRACE_EMU_JIT_VECTOR, jit_vec.c) ----------------------- */
/* runs f with the vector form asked for (on: "1"), then puts the
 * variable back as it was */
static void with_vector(const char *on, void (*f)(void))
{
    const char *old = getenv("TDTRACE_EMU_JIT_VECTOR");
    char keep[16] = "";
    if (old) snprintf(keep, sizeof keep, "%s", old);
    setenv("TDTRACE_EMU_JIT_VECTOR", on, 1);
    f();
    if (old) setenv("TDTRACE_EMU_JIT_VECTOR", keep, 1);
    else unsetenv("TDTRACE_EMU_JIT_VECTOR");
}

/* uniform lanes: every instruction as vectors; only the first warp's
 * global store goes on lane by lane (the allocation it checks against is
 * the one the access last found: none yet, the thread's function finds
 * it), the three other warps store by a masked scatter */
static void vec_uniform(void)
{
    same(saxpy, 1, 128, 128 * 4);
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_runs, 4); /* 4 warps, one call each */
    assert_int_equal(rep.vec_lanes, 32);
}
static void test_vector_uniform(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_uniform);
}

/* off: the scalar JIT, no warp function called */
static void vec_off(void)
{
    same(saxpy, 2, 64, 64 * 4);
    assert_int_equal(rep.vector, 0);
    assert_int_equal(rep.vec_runs, 0);
}
static void test_vector_off(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("0", vec_off);
}

/* divergent branches, a guarded exit, barriers in a loop: the lanes go
 * back to the thread's function where they part and come back as
 * vectors at the next barrier; the same bytes as the interpreter */
static void vec_divergent(void)
{
    char err[512];
    same(same_barriers_src, 3, 64, 3 * 64 * 4);
    assert_int_equal(rep.vector, 1);
    assert_true(rep.vec_runs > 6);  /* more than one call per warp: back after barriers */
    assert_true(rep.vec_lanes > 0); /* the lanes that parted went on one by one */
    uint32_t v;
    memcpy(&v, arena + 4 * 7, 4);
    assert_int_equal(v, 5370 + 21);
    /* threads at different barriers: the deadlock, in the interpreter's words */
    static const char dl[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<4>; .reg .pred %p<2>;\n"
        " mov.u32 %r0, %tid.x;\n setp.lt.u32 %p1, %r0, 16;\n @%p1 bra A;\n barrier.sync 0;\n ret;\nA:\n barrier.sync 1;\n ret;\n}\n";
    char err0[512];
    assert_int_equal(run(dl, PTX_ENGINE_INTERP, 1, 64, err0, sizeof err0), PTX_E_DEADLOCK);
    assert_int_equal(run(dl, PTX_ENGINE_JIT, 1, 64, err, sizeof err), PTX_E_DEADLOCK);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_int_equal(rep.vector, 1);
    assert_string_equal(err0, err);
}
static void test_vector_divergent(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_divergent);
}

/* a register the vector code set before a hand-over (the first warp
 * parts at the branch) that the thread's function first reads after the
 * next stop: it must come through the hand-over, the entry and the
 * barrier's store and load unchanged (3 tid + 7 on every lane), and the
 * values set on each side of the branch with it */
static void vec_dirty_at_handover(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mad.lo.u32 %r5, %r1, 3, 7;\n"
        " setp.lt.u32 %p1, %r1, 5;\n @%p1 bra A;\n add.u32 %r6, %r1, 100;\n bra.uni B;\n"
        "A:\n add.u32 %r6, %r1, 200;\nB:\n bar.sync 0;\n add.u32 %r7, %r5, %r6;\n"
        " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r7;\n ret;\n}\n";
    same(src, 2, 64, 64 * 4);
    assert_int_equal(rep.vector, 1);
    assert_true(rep.vec_lanes > 0); /* the first warp parted at the branch */
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t v;
        memcpy(&v, arena + 4 * t, 4);
        assert_int_equal(v, 3 * t + 7 + t + (t < 5 ? 200 : 100));
    }
}
/* registers the warp's function wrote before a uniform guarded branch,
 * stored at a barrier on the path that falls through (block 0) and at the
 * one that branches (block 1), and read after the resume: the barrier
 * stores what the function may have written on any path since it
 * started (jit_vec.c's written()), the others are in the file already */
static void vec_dirty_branch(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mad.lo.u32 %r5, %r1, 3, 7;\n mov.u32 %r2, %ctaid.x;\n"
        " setp.ne.u32 %p1, %r2, 0;\n @%p1 bra A;\n bar.sync 0;\n add.u32 %r5, %r5, %r2;\n bar.sync 0;\n bra.uni B;\n"
        "A:\n mul.lo.u32 %r6, %r1, 5;\n bar.sync 0;\n add.u32 %r5, %r5, %r6;\nB:\n"
        " mad.lo.u32 %r3, %r2, 64, %r1;\n mul.wide.u32 %rd2, %r3, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r5;\n ret;\n}\n";
    same(src, 2, 64, 2 * 64 * 4);
    assert_int_equal(rep.vector, 1);
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t t = 0; t < 64; t++) {
            uint32_t v;
            memcpy(&v, arena + 4 * (64 * b + t), 4);
            assert_int_equal(v, 3 * t + 7 + (b ? 5 * t : 0));
        }
}
/* a register loaded after a barrier (so in the file), written in a
 * region's then part (odd lanes) and live at its join, when the else
 * part (even lanes) hands over at its first global store: the then
 * part's lanes go on at the join from the file, so the hand-over must
 * store what the then part wrote */
static void vec_region_written(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r7, 5;\n bar.sync 0;\n"
        " and.b32 %r2, %r1, 1;\n setp.eq.u32 %p1, %r2, 0;\n @%p1 bra E;\n mad.lo.u32 %r7, %r1, 3, 11;\n bra.uni J;\n"
        "E:\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3+1024], %r1;\n"
        "J:\n mul.wide.u32 %rd4, %r1, 4;\n add.s64 %rd5, %rd1, %rd4;\n st.global.u32 [%rd5], %r7;\n ret;\n}\n";
    same(src, 1, 64, 2048);
    assert_int_equal(rep.vector, 1);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t v;
        memcpy(&v, arena + 4 * t, 4);
        assert_int_equal(v, t & 1 ? 3 * t + 11 : 5);
    }
}
static void test_vector_dirty_at_handover(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_dirty_at_handover);
    with_vector("1", vec_dirty_branch);
    with_vector("1", vec_region_written);
}

/* a warp short of 32 lanes at the block's end (block 40: lanes 8..31 of
 * the second warp do not exist; block 45 with shared memory and a
 * barrier): vectors, nothing written past the threads (the first warp's
 * global store goes on lane by lane, as in vec_uniform; the short warp's
 * is a masked scatter) */
static void vec_partial(void)
{
    same(saxpy, 1, 40, 64 * 4);
    assert_int_equal(rep.vec_runs, 2);
    assert_int_equal(rep.vec_lanes, 32);
    for (int i = 40; i < 64; i++) {
        uint32_t v;
        memcpy(&v, arena + 4 * i, 4);
        assert_int_equal(v, 0);
    }
    static const char sh[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n .shared .align 4 .b8 s[256];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shl.b32 %r2, %r1, 2;\n mov.u32 %r3, s;\n add.u32 %r4, %r3, %r2;\n"
        " mul.lo.u32 %r5, %r1, 7;\n st.shared.u32 [%r4], %r5;\n bar.sync 0;\n"
        " sub.u32 %r6, 44, %r1;\n shl.b32 %r6, %r6, 2;\n add.u32 %r6, %r3, %r6;\n ld.shared.u32 %r7, [%r6];\n"
        " cvt.u64.u32 %rd2, %r2;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r7;\n ret;\n}\n";
    same(sh, 1, 45, 64 * 4);
    assert_int_equal(rep.vec_runs, 4); /* 2 warps, before and after the barrier */
    assert_int_equal(rep.vec_lanes, 32);
    uint32_t v;
    memcpy(&v, arena, 4);
    assert_int_equal(v, 44 * 7);
}
static void test_vector_partial_warp(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_partial);
}

/* warp rendezvous as vectors: the shuffle reduction (down, then bfly in
 * the first warp after the barrier) with the interpreter's bytes; the
 * shuffles, the guarded shared store and the barrier stay vectors: each
 * warp runs its function twice (before and after the barrier); the first
 * warp's last branch (lane 0 stores the block's sum) diverges and runs with
 * masks: only the first block's first warp hands its lanes on, at that
 * store (its allocation not yet found), each lane from where it stands */
static void vec_shfl_reduce(void)
{
    host_threads = 1;
    same(warp_reduce, 4, 256, 4 * 4);
    host_threads = 0;
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_runs, 4 * 8 * 2);
    assert_int_equal(rep.vec_lanes, 32); /* was 4 * 32: each block's first warp at the branch */
    for (unsigned blk = 0; blk < 4; blk++) {
        uint32_t want = 0, v;
        for (unsigned t = 0; t < 256; t++) want += ((blk * 256 + t) * 2654435761u) >> 20;
        memcpy(&v, arena + 4 * blk, 4);
        assert_int_equal(v, want);
    }
}
/* ---- divergent regions with masks (jit_vec.c, jit_vec_regions) ----------------- */
/* the classic shared-memory tree reduction: `if (tid < s) sd[tid] +=
 * sd[tid + s]; __syncthreads();` down to s = 1, then thread 0 stores the
 * block's sum. The branches diverge inside the first warp for s < 32 and
 * at the end: all with masks; only the first block's first warp hands its
 * lanes on, at the global store (its allocation not yet found) */
static const char tree_reduce[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    " .shared .align 4 .b8 sd[1024];\n"
    " mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mad.lo.u32 %r3, %r2, 256, %r1;\n"
    " mul.lo.u32 %r4, %r3, 2654435761;\n shr.u32 %r4, %r4, 20;\n"
    " mov.u32 %r5, sd;\n shl.b32 %r6, %r1, 2;\n add.u32 %r7, %r5, %r6;\n st.shared.u32 [%r7], %r4;\n bar.sync 0;\n"
    " mov.u32 %r8, 128;\n"
    "L:\n setp.ge.u32 %p1, %r1, %r8;\n @%p1 bra J;\n shl.b32 %r9, %r8, 2;\n add.u32 %r10, %r7, %r9;\n"
    " ld.shared.u32 %r11, [%r7];\n ld.shared.u32 %r12, [%r10];\n add.u32 %r11, %r11, %r12;\n st.shared.u32 [%r7], %r11;\n"
    "J:\n bar.sync 0;\n shr.u32 %r8, %r8, 1;\n setp.ne.u32 %p2, %r8, 0;\n @%p2 bra L;\n"
    " setp.ne.u32 %p3, %r1, 0;\n @%p3 bra END;\n ld.shared.u32 %r13, [sd];\n ld.param.u64 %rd1, [out];\n"
    " mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r13;\nEND:\n ret;\n}\n";

static void sums_of_blocks(unsigned nblk)
{
    for (unsigned blk = 0; blk < nblk; blk++) {
        uint32_t want = 0, v;
        for (unsigned t = 0; t < 256; t++) want += ((blk * 256 + t) * 2654435761u) >> 20;
        memcpy(&v, arena + 4 * blk, 4);
        assert_int_equal(v, want);
    }
}
/* same(), and the JIT counted the same thread-instructions with the
 * vector form as without it (the warp's function adds its current mask's
 * lanes per instruction; the scalar JIT's count is the reference: it
 * differs from the interpreter's, which does not count some control
 * instructions the same way) */
static void same_counted(const char *src, unsigned grid, unsigned block, size_t bytes)
{
    char err[512];
    const char *old = getenv("TDTRACE_EMU_JIT_VECTOR");
    char keep[16] = "";
    if (old) snprintf(keep, sizeof keep, "%s", old);
    setenv("TDTRACE_EMU_JIT_VECTOR", "0", 1);
    uint64_t a = ptx_instructions();
    if (run(src, PTX_ENGINE_JIT, grid, block, err, sizeof err) != PTX_OK) fail_msg("jit: %s", err);
    uint64_t b = ptx_instructions();
    if (old) setenv("TDTRACE_EMU_JIT_VECTOR", keep, 1);
    else unsetenv("TDTRACE_EMU_JIT_VECTOR");
    uint64_t c = ptx_instructions();
    if (run(src, PTX_ENGINE_JIT, grid, block, err, sizeof err) != PTX_OK) fail_msg("jit: %s", err);
    uint64_t d = ptx_instructions();
    assert_int_equal(d - c, b - a);
    same(src, grid, block, bytes); /* the interpreter, then the JIT as asked: the bytes */
}

static void vec_tree_reduce(void)
{
    host_threads = 1;
    same_counted(tree_reduce, 4, 256, 4 * 4);
    host_threads = 0;
    assert_int_equal(rep.vector, 1);
    /* each warp: from the start, after each of the 9 barriers */
    assert_int_equal(rep.vec_runs, 4 * 8 * 10);
    assert_int_equal(rep.vec_lanes, 32); /* was 4 * 32 * 6: each block's first warp, s = 16 ... 1, the end */
    assert_int_equal(rep.vec_round, 1);
    assert_int_equal(rep.vec_inlined, 1); /* its one loop holds a barrier */
    sums_of_blocks(4);
}
static void vec_tree_reduce_off(void)
{
    same(tree_reduce, 4, 256, 4 * 4);
    assert_int_equal(rep.vector, 0);
    assert_int_equal(rep.vec_round, 0);
    sums_of_blocks(4);
}
static void test_vector_tree_reduce(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_tree_reduce);
    with_vector("0", vec_tree_reduce_off);
}

/* the warps' round stops at a warp the runner must take and goes on after
 * it: warp 1 hands its lanes on in a loop of tid % 4 turns (a divergent
 * backward branch), warp 2 exits before the barrier, warps 0 and 3 run
 * through; after the barrier warp 1's lanes stand at one point again.
 * The interpreter's bytes, the same count, and the calls: 4 before the
 * barrier, 3 after */
static const char vround[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    " .shared .align 4 .b8 sm[512];\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shr.u32 %r2, %r1, 5;\n mul.wide.u32 %rd2, %r1, 4;\n"
    " add.s64 %rd3, %rd1, %rd2;\n setp.eq.u32 %p1, %r2, 2;\n @%p1 bra DONE;\n mov.u32 %r3, 7;\n"
    " setp.ne.u32 %p2, %r2, 1;\n @%p2 bra B;\n and.b32 %r4, %r1, 3;\n"
    "L:\n setp.eq.u32 %p3, %r4, 0;\n @%p3 bra B;\n add.u32 %r3, %r3, %r1;\n sub.u32 %r4, %r4, 1;\n bra L;\n"
    "B:\n mov.u32 %r5, sm;\n shl.b32 %r6, %r1, 2;\n add.u32 %r7, %r5, %r6;\n st.shared.u32 [%r7], %r3;\n bar.sync 0;\n"
    " xor.b32 %r8, %r6, 4;\n add.u32 %r9, %r5, %r8;\n ld.shared.u32 %r10, [%r9];\n add.u32 %r10, %r10, %r3;\n"
    " st.global.u32 [%rd3], %r10;\nDONE:\n ret;\n}\n";
static void vec_round(void)
{
    host_threads = 1;
    same_counted(vround, 1, 128, 128 * 4);
    host_threads = 0;
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_round, 1);
    assert_int_equal(rep.vec_inlined, 0); /* loop L holds no stop */
    assert_int_equal(rep.vec_runs, 4 + 3);
    assert_int_equal(rep.vec_lanes, 32 + 32); /* warp 1's in the loop; warp 0's at the global store
                                                 (its allocation not yet found) */
    uint32_t v;
    memcpy(&v, arena + 4 * 37, 4); /* thread 37: 7 + 37 turn, and thread 36's 7 */
    assert_int_equal(v, 7 + 37 + 7);
    memcpy(&v, arena + 4 * 70, 4); /* warp 2 exited: nothing */
    assert_int_equal(v, 0);
}
static void test_vector_round(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_round);
}

/* if-then-else with a nested if-then in the then part (and a guarded
 * instruction) and a nested if-then-else in the else part, stores to
 * shared and global inside; PRE: a global store before them (then the
 * first warp hands its lanes on there, and the second runs the regions
 * with masks throughout), or none (then the first warp's store inside
 * the then part finds no allocation: each lane goes on from where it
 * stands, the then part's lanes at the store, the others at the else
 * part) */
#define IF_ELSE(PRE) HDR \
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n" \
    " .shared .align 4 .b8 sm[1024];\n" THREAD_OUT PRE \
    " mov.u32 %r4, sm;\n shl.b32 %r5, %r1, 2;\n add.u32 %r6, %r4, %r5;\n st.shared.u32 [%r6], %r4;\n" \
    " and.b32 %r2, %r1, 7;\n setp.lt.u32 %p1, %r2, 3;\n mov.u32 %r3, 1;\n" \
    " @%p1 bra ELSE;\n mul.lo.u32 %r3, %r1, 5;\n setp.eq.u32 %p2, %r2, 5;\n @%p2 add.u32 %r3, %r3, 1000;\n" \
    " @%p2 bra J2;\n add.u32 %r3, %r3, 7;\n st.shared.u32 [%r6], %r3;\nJ2:\n st.global.u32 [%rd3+4], %r3;\n bra.uni JOIN;\n" \
    "ELSE:\n mul.lo.u32 %r3, %r1, 9;\n setp.eq.u32 %p3, %r2, 1;\n @%p3 bra E2;\n add.u32 %r3, %r3, 3;\n bra.uni J3;\n" \
    "E2:\n sub.u32 %r3, %r3, 2;\nJ3:\n st.shared.u32 [%r6], %r3;\n" \
    "JOIN:\n bar.sync 0;\n ld.shared.u32 %r7, [%r6];\n xor.b32 %r8, %r5, 4;\n add.u32 %r9, %r4, %r8;\n" \
    " ld.shared.u32 %r10, [%r9];\n st.global.u32 [%rd3], %r3;\n st.global.u32 [%rd3+8], %r7;\n" \
    " st.global.u32 [%rd3+12], %r10;\n ret;\n}\n"
static const char if_else_pre[] = IF_ELSE(" st.global.u32 [%rd3+16], %r1;\n");
static const char if_else[] = IF_ELSE("");

static void vec_if_else(void)
{
    same_counted(if_else_pre, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_runs, 2 * 2);
    /* the first warp at its first store, before the branches, and at the
     * first after the barrier (their allocations not yet found); the
     * second warp runs the regions with masks, its stores as scatters */
    assert_int_equal(rep.vec_lanes, 2 * 32);
    uint32_t v[4];
    memcpy(v, arena + 128 * 45, sizeof v); /* thread 45: 45 & 7 = 5, the then part, the guarded add */
    assert_int_equal(v[0], 45 * 5 + 1000);
    assert_int_equal(v[1], 45 * 5 + 1000);
    memcpy(v, arena + 128 * 41, sizeof v); /* 41 & 7 = 1: the else part's else */
    assert_int_equal(v[0], 41 * 9 - 2);
    assert_int_equal(v[2], 41 * 9 - 2);
    assert_int_equal(v[1], 0);
    memcpy(v, arena + 128 * 44, sizeof v); /* 44: the then part's then */
    assert_int_equal(v[2], 44 * 5 + 7);
    assert_int_equal(v[3], 45 * 5 + 1000 == 0 ? 1 : 0x0); /* 45 stored no shared word: the start's */
    host_threads = 1;
    same_counted(if_else, 2, 64, 64 * 128);
    host_threads = 0;
    assert_int_equal(rep.vec_runs, 2 * 2 * 2);
    assert_int_equal(rep.vec_lanes, 2 * 32); /* the first block's first warp: inside the then part, after the barrier */
}
/* a hand-over two regions deep: the else part's nested if-then stores to
 * global (the first warp: no allocation found yet), so its lanes resume
 * at the store, the else part's others at the nested join, the then
 * part's (done) at the outer join */
static const char nested_split[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
    THREAD_OUT
    " and.b32 %r2, %r1, 7;\n setp.lt.u32 %p1, %r2, 4;\n mov.u32 %r3, 1;\n"
    " @%p1 bra ELSE;\n mul.lo.u32 %r3, %r1, 5;\n bra.uni JOIN;\n"
    "ELSE:\n mul.lo.u32 %r3, %r1, 9;\n setp.ne.u32 %p3, %r2, 1;\n @%p3 bra J3;\n add.u32 %r3, %r3, 3;\n"
    " st.global.u32 [%rd3+4], %r3;\n add.u32 %r3, %r3, 1;\nJ3:\n add.u32 %r3, %r3, 100;\n"
    "JOIN:\n st.global.u32 [%rd3], %r3;\n ret;\n}\n";
static void vec_nested_split(void)
{
    same_counted(nested_split, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 1);
    /* the first warp, inside the nested region; its lanes one by one
     * found the allocations of both stores for the second warp */
    assert_int_equal(rep.vec_lanes, 32);
    uint32_t v[2];
    memcpy(v, arena + 128 * 9, sizeof v); /* 9 & 7 = 1: the nested then */
    assert_int_equal(v[0], 9 * 9 + 3 + 1 + 100);
    assert_int_equal(v[1], 9 * 9 + 3);
    memcpy(v, arena + 128 * 10, sizeof v); /* 2: the else part, not the nested then */
    assert_int_equal(v[0], 10 * 9 + 100);
    memcpy(v, arena + 128 * 12, sizeof v); /* 4: the then part */
    assert_int_equal(v[0], 12 * 5);
}

static void vec_nested_split_off(void)
{
    same_counted(nested_split, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 0);
}
static void vec_if_else_off(void)
{
    same(if_else_pre, 1, 64, 64 * 128);
    same(if_else, 2, 64, 64 * 128);
    assert_int_equal(rep.vector, 0);
}
static void test_vector_regions(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_if_else);
    with_vector("0", vec_if_else_off);
    host_threads = 1;
    with_vector("1", vec_nested_split);
    with_vector("0", vec_nested_split_off);
    host_threads = 0;
}

/* a region's uniform copy (jit_vec.c, uniform_copy): threads under 40
 * run the first part, so the first warp takes no branch (the copy, no
 * masks), the second parts (masks), the third takes it (an if-then
 * skips, an if-then-else runs the else part); inside, a divergent nested
 * region and a guarded add, which keep their masks in the copy too */
#define UCOPY(TO, ELSE) HDR \
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n" \
    " .shared .align 4 .b8 sm[1024];\n" THREAD_OUT \
    " mov.u32 %r3, 7;\n mov.u32 %r4, sm;\n shl.b32 %r5, %r1, 2;\n add.u32 %r6, %r4, %r5;\n" \
    " setp.ge.u32 %p1, %r1, 40;\n @%p1 bra " TO ";\n mul.lo.u32 %r3, %r1, 3;\n and.b32 %r2, %r1, 1;\n" \
    " setp.eq.u32 %p2, %r2, 0;\n @%p2 bra N;\n add.u32 %r3, %r3, 1000;\nN:\n setp.gt.u32 %p3, %r1, 20;\n" \
    " @%p3 add.u32 %r3, %r3, 50000;\n st.shared.u32 [%r6], %r3;\n" ELSE \
    "SKIP:\n st.global.u32 [%rd3], %r3;\n ret;\n}\n"
static const char ucopy_then[] = UCOPY("SKIP", "");
static const char ucopy_else[] = UCOPY("ELS", " bra.uni SKIP;\nELS:\n mul.lo.u32 %r3, %r1, 9;\n");
#undef UCOPY
static void vec_uniform_copy(void)
{
    static const char *const src[2] = { ucopy_then, ucopy_else };
    for (unsigned e = 0; e < 2; e++) {
        same_counted(src[e], 1, 96, 96 * 128);
        assert_int_equal(rep.vector, 1);
        for (unsigned t = 0; t < 96; t++) {
            uint32_t w, want = t < 40 ? 3 * t + (t % 2 ? 1000 : 0) + (t > 20 ? 50000 : 0) : e ? 9 * t : 7;
            memcpy(&w, arena + 128 * t, 4);
            assert_int_equal(w, want);
        }
    }
}
static void test_vector_uniform_copy(void **state)
{
    (void)state;
    NEED_JIT();
    host_threads = 1;
    with_vector("1", vec_uniform_copy);
    host_threads = 0;
}

/* a 32-bit register whose upper half is not 0 (jit_vec.c's halves(): a
 * sign-extending load writes it) read whole as a .shared address, -4 + 8
 * = 4 in 64 bits: after a barrier's resume (read back from the register
 * file), and after a divergent region where the odd lanes load it and the
 * even ones copy sh's address to it (a select of both halves). Dropping the upper half
 * anywhere makes the address 2^32 + 4, a fault */
#define HALVES(MID) HDR \
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n" \
    " .shared .align 4 .b32 sh[64];\n" \
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n" \
    " mov.u32 %r5, -4;\n st.global.u32 [%rd1+8192], %r5;\n" \
    " mov.u32 %r4, sh;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r3, %r4;\n st.shared.u32 [%r3], %r1;\n" \
    MID " ld.shared.u32 %r7, [%r2+8];\n st.global.u32 [%rd3], %r7;\n ret;\n}\n"
static const char halves_resume[] = HALVES(" ld.global.s32 %r2, [%rd1+8192];\n bar.sync 0;\n");
static const char halves_region[] = HALVES(" bar.sync 0;\n and.b32 %r8, %r1, 1;\n setp.eq.u32 %p1, %r8, 0;\n"
                                          " @%p1 bra EVEN;\n ld.global.s32 %r2, [%rd1+8192];\n bra.uni JOIN;\n"
                                          "EVEN:\n mov.u32 %r2, %r4;\nJOIN:\n");
#undef HALVES
static void vec_halves(void)
{
    same(halves_resume, 1, 64, 256);
    for (unsigned t = 0; t < 64; t++) {
        uint32_t w;
        memcpy(&w, arena + 4 * t, 4);
        assert_int_equal(w, 1); /* sh[1] */
    }
    same(halves_region, 1, 64, 256);
    for (unsigned t = 0; t < 64; t++) {
        uint32_t w;
        memcpy(&w, arena + 4 * t, 4);
        assert_int_equal(w, t % 2 ? 1 : 2); /* sh[1], or sh[2] */
    }
}
static void test_vector_halves(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_halves);
    with_vector("0", vec_halves);
}

/* uniform registers (jit_vec.c, uniforms()), one value for the warp's
 * lanes: a reduction's halving step from %ntid.x across a barrier in its
 * loop, around a divergent region, with a guarded add and a .param load
 * into the uniform count. 48 threads: the second warp has 16 lanes, and
 * its lane 0 (thread 32) exits first, so it resumes without its lane 0 and
 * a uniform value is read and written on lane 1, and stored only to its
 * lanes. Each thread's count and sh[0] against the interpreter's */
static const char uni_reduce[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
    " .shared .align 4 .b32 sh[64];\n"
    " ld.param.u64 %rd1, [out];\n ld.param.u32 %r10, [out];\n and.b32 %r10, %r10, 3;\n add.u32 %r10, %r10, 5;\n"
    " mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n"
    " mov.u32 %r2, sh;\n shl.b32 %r3, %r1, 2;\n add.u32 %r4, %r2, %r3;\n add.u32 %r15, %r1, 1;\n st.shared.u32 [%r4], %r15;\n"
    " setp.eq.u32 %p1, %r1, 32;\n @%p1 exit;\n"
    " mov.u32 %r5, %ntid.x;\n shr.u32 %r6, %r5, 1;\n mov.u32 %r12, 0;\n bar.sync 0;\n"
    "LOOP:\n setp.ge.u32 %p2, %r1, %r6;\n @%p2 bra SKIP;\n"
    " shl.b32 %r7, %r6, 2;\n add.u32 %r8, %r4, %r7;\n ld.shared.u32 %r9, [%r8];\n ld.shared.u32 %r13, [%r4];\n"
    " add.u32 %r13, %r13, %r9;\n st.shared.u32 [%r4], %r13;\n"
    "SKIP:\n bar.sync 0;\n setp.gt.u32 %p3, %r6, 4;\n @%p3 add.u32 %r12, %r12, %r10;\n add.u32 %r12, %r12, 1;\n"
    " shr.u32 %r6, %r6, 1;\n setp.ne.u32 %p4, %r6, 0;\n @%p4 bra LOOP;\n"
    " ld.shared.u32 %r14, [%r2];\n st.global.u32 [%rd3], %r12;\n st.global.u32 [%rd3+4], %r14;\n ret;\n}\n";

/* a stop inside a divergent range: each lane runs a rendezvous of its
 * own (shfl.sync of its lane number with its own bit) on the passes of a
 * uniform loop where lane + i is even, so the even lanes stop there at
 * i = 0 and the odd ones at i = 1, and the warp's function resumes them
 * together after it, each with its own i. The count i is written and read
 * only by native instructions outside the range, but is not uniform:
 * taken from one lane, the others add the wrong passes */
static const char uni_skew[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n"
    " and.b32 %r9, %r1, 31;\n mov.u32 %r7, 1;\n shl.b32 %r8, %r7, %r9;\n mov.u32 %r2, 0;\n mov.u32 %r3, 0;\n"
    "L:\n add.u32 %r4, %r1, %r2;\n and.b32 %r4, %r4, 1;\n setp.ne.u32 %p1, %r4, 0;\n @%p1 bra SKIP;\n"
    " shfl.sync.idx.b32 %r5, %r9, %r9, 31, %r8;\n add.u32 %r3, %r3, %r5;\n add.u32 %r3, %r3, %r2;\n"
    " add.u32 %r3, %r3, 100;\n"
    "SKIP:\n add.u32 %r2, %r2, 1;\n setp.lt.u32 %p2, %r2, 6;\n @%p2 bra L;\n"
    " st.global.u32 [%rd3], %r2;\n st.global.u32 [%rd3+4], %r3;\n ret;\n}\n";

/* a uniform register stored at a barrier to one lane (jit_vec.c,
 * spill_live): %r3 (%ntid.x + 7) is written before the barrier, so its
 * stop stores it to the lane the resume reads it from; after the resume
 * a loop of tid % 4 turns that adds it diverges, and the lanes go on one
 * by one from there with the register file as the warp left it: %r3, not
 * written since the resume, must be on every lane then (the second
 * warp's lane 0 exits before the barrier: its lane 1 holds it) */
static const char uni_handover[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 8;\n add.s64 %rd3, %rd1, %rd2;\n"
    " setp.eq.u32 %p1, %r1, 32;\n @%p1 exit;\n mov.u32 %r2, %ntid.x;\n add.u32 %r3, %r2, 7;\n bar.sync 0;\n"
    " and.b32 %r4, %r1, 3;\n mov.u32 %r5, 0;\n"
    "L:\n setp.eq.u32 %p2, %r4, 0;\n @%p2 bra E;\n add.u32 %r5, %r5, %r3;\n sub.u32 %r4, %r4, 1;\n bra L;\n"
    "E:\n st.global.u32 [%rd3], %r5;\n st.global.u32 [%rd3+4], %r3;\n ret;\n}\n";

static void vec_uniform_regs(void)
{
    same(uni_handover, 1, 64, 64 * 8);
    for (unsigned t = 0; t < 64; t++) {
        uint32_t w[2];
        memcpy(w, arena + 8 * t, 8);
        if (t == 32) continue; /* it exited */
        assert_int_equal(w[0], (t % 4) * 71);
        assert_int_equal(w[1], 71);
    }
    same(uni_reduce, 1, 48, 48 * 8);
    for (unsigned t = 0; t < 48; t++) {
        uint32_t w[2];
        memcpy(w, arena + 8 * t, 8);
        if (t == 32) continue; /* it exited */
        assert_int_equal(w[0], 5 + 3 * 5); /* 5 passes (s 24, 12, 6, 3, 1), 3 of them with s > 4 */
    }
    same(uni_reduce, 2, 64, 64 * 8);
    same(uni_skew, 1, 64, 64 * 8);
    for (unsigned t = 0; t < 64; t++) {
        uint32_t w[2];
        memcpy(w, arena + 8 * t, 8);
        assert_int_equal(w[0], 6);
        assert_int_equal(w[1], 3 * (t % 32) + (t % 2 ? 1 + 3 + 5 : 0 + 2 + 4) + 300);
    }
}
static void test_vector_uniform_regs(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_uniform_regs);
    with_vector("0", vec_uniform_regs);
}

/* thread constants (jit_vec.c, tconsts()): registers of %tid, %ctaid,
 * immediates and a shared variable's address, read after barriers, which
 * a resume computes again instead of loading: 32- and 64-bit, chained
 * (%r5 of %r3 of %r1; %r31 of %r30, a shared variable's address not
 * live after it, so not in the register file). The first warp's lanes
 * first run one by one through a loop of different trip counts (they run
 * the writers in the thread's function), the others' once; then a loop of
 * barriers whose shared sums read them.
 * 48 threads (a partial second warp) and 2 blocks of 64; each word
 * against the interpreter's, and thread 37 of block 1 against the
 * values it must have */
static const char tconst_src[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<48>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
    " .shared .align 4 .b8 sh[256];\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r9, %ctaid.x;\n mov.u32 %r8, %ntid.x;\n"
    " and.b32 %r7, %r1, 3;\n setp.ge.u32 %p3, %r1, 32;\n @%p3 mov.u32 %r7, 0;\n mov.u32 %r40, 0;\n"
    "L0:\n add.u32 %r40, %r40, 1;\n setp.le.u32 %p1, %r40, %r7;\n @%p1 bra L0;\n"
    " mad.lo.u32 %r2, %r9, 1000, %r1;\n shl.b32 %r3, %r1, 2;\n mov.u32 %r4, sh;\n add.u32 %r5, %r4, %r3;\n"
    " mad.lo.u32 %r6, %r9, %r8, %r1;\n"
    " mul.wide.u32 %rd2, %r6, 128;\n add.s64 %rd3, %rd1, %rd2;\n cvt.u64.u32 %rd5, %r2;\n shl.b64 %rd6, %rd5, 33;\n"
    " mov.u32 %r30, sh;\n and.b32 %r33, %r3, 124;\n add.u32 %r31, %r30, %r33;\n"
    " st.shared.u32 [%r5], %r2;\n bar.sync 0;\n mov.u32 %r20, 0;\n"
    "L1:\n ld.shared.u32 %r21, [%r5];\n add.u32 %r21, %r21, %r6;\n xor.b32 %r22, %r3, 4;\n add.u32 %r23, %r4, %r22;\n"
    " bar.sync 0;\n ld.shared.u32 %r24, [%r23];\n add.u32 %r21, %r21, %r24;\n bar.sync 0;\n st.shared.u32 [%r5], %r21;\n"
    " bar.sync 0;\n add.u32 %r20, %r20, 1;\n setp.lt.u32 %p2, %r20, 3;\n @%p2 bra L1;\n"
    " st.global.u32 [%rd3], %r2;\n st.global.u32 [%rd3+4], %r3;\n st.global.u32 [%rd3+8], %r21;\n"
    " st.global.u64 [%rd3+16], %rd6;\n st.global.u32 [%rd3+24], %r40;\n st.global.u32 [%rd3+28], %r6;\n"
    " ld.shared.u32 %r32, [%r31];\n st.global.u32 [%rd3+32], %r32;\n"
    " ret;\n}\n";
static void vec_thread_consts(void)
{
    same(tconst_src, 1, 48, 48 * 128);
    same(tconst_src, 2, 64, 128 * 128);
    uint32_t w[8];
    memcpy(w, arena + (64 + 37) * 128, sizeof w); /* block 1's thread 37 */
    assert_int_equal(w[0], 1037);
    assert_int_equal(w[1], 37 * 4);
    assert_int_equal(w[4], 0);          /* 1037 << 33: its low word */
    assert_int_equal(w[5], 1037u << 1); /* and its high */
    assert_int_equal(w[6], 1);          /* the second warp: one pass */
    assert_int_equal(w[7], 64 + 37);
}
static void test_vector_thread_consts(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_thread_consts);
    with_vector("0", vec_thread_consts);
}

/* lane-affine registers (jit_aff.c): addresses whose claims must be
 * false, each read from a table the kernel fills (a false claim reads
 * its half's first lane's address plus lane * 4, other words than the
 * lanes' own): %tid.x where rows of 8 put two rows in a half; a product
 * whose stride differs between the halves (%tid.x * 4 * (%tid.y + 1));
 * %tid.x squared (a stride that grows); a register written on half the
 * lanes; one overwritten by a load; a shift by %tid.y. And claims that
 * hold: a register stepped in a loop, one address a half (%tid.y * 64).
 * Blocks of 16 x 4 (every half in one row) and 8 x 8, two of each; every
 * word against the interpreter's. First, a thread constant written in a
 * divergent region */
static void vec_affine(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %tid.y;\n mov.u32 %r3, %ntid.x;\n"
        " mad.lo.u32 %r4, %r2, %r3, %r1;\n mov.u32 %r30, %ctaid.x;\n mad.lo.u32 %r31, %r30, 64, %r4;\n"
        " mul.wide.u32 %rd2, %r31, 32;\n add.s64 %rd3, %rd1, %rd2;\n"
        " add.s64 %rd4, %rd1, 8192;\n mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd4, %rd5;\n"
        " mad.lo.u32 %r5, %r4, 7, 1000;\n st.global.u32 [%rd6], %r5;\n"
        " mul.lo.u32 %r21, %r4, 5;\n and.b32 %r22, %r21, 63;\n shl.b32 %r23, %r22, 2;\n st.global.u32 [%rd6+2048], %r23;\n"
        " bar.sync 0;\n"
        " mul.wide.u32 %rd7, %r1, 4;\n add.s64 %rd8, %rd4, %rd7;\n ld.global.u32 %r6, [%rd8];\n st.global.u32 [%rd3], %r6;\n"
        " add.u32 %r7, %r2, 1;\n shl.b32 %r8, %r1, 2;\n mul.lo.u32 %r9, %r8, %r7;\n cvt.u64.u32 %rd9, %r9;\n"
        " add.s64 %rd10, %rd4, %rd9;\n ld.global.u32 %r10, [%rd10];\n st.global.u32 [%rd3+4], %r10;\n"
        " mul.lo.u32 %r11, %r1, %r1;\n mul.wide.u32 %rd11, %r11, 4;\n add.s64 %rd12, %rd4, %rd11;\n"
        " ld.global.u32 %r12, [%rd12];\n st.global.u32 [%rd3+8], %r12;\n"
        " shl.b32 %r13, %r4, 2;\n and.b32 %r14, %r4, 1;\n setp.eq.u32 %p1, %r14, 1;\n @%p1 add.u32 %r13, %r13, 64;\n"
        " cvt.u64.u32 %rd13, %r13;\n add.s64 %rd14, %rd4, %rd13;\n ld.global.u32 %r15, [%rd14];\n st.global.u32 [%rd3+12], %r15;\n"
        " shl.b32 %r16, %r4, 2;\n ld.global.u32 %r16, [%rd6+2048];\n cvt.u64.u32 %rd15, %r16;\n add.s64 %rd16, %rd4, %rd15;\n"
        " ld.global.u32 %r17, [%rd16];\n st.global.u32 [%rd3+16], %r17;\n"
        " shl.b32 %r18, %r1, %r2;\n shl.b32 %r19, %r18, 2;\n cvt.u64.u32 %rd17, %r19;\n add.s64 %rd18, %rd4, %rd17;\n"
        " ld.global.u32 %r20, [%rd18];\n st.global.u32 [%rd3+20], %r20;\n"
        " shl.b32 %r24, %r4, 2;\n mov.u32 %r25, 0;\n mov.u32 %r26, 0;\n"
        "L:\n cvt.u64.u32 %rd19, %r24;\n add.s64 %rd20, %rd4, %rd19;\n ld.global.u32 %r27, [%rd20];\n add.u32 %r25, %r25, %r27;\n"
        " add.u32 %r24, %r24, 16;\n add.u32 %r26, %r26, 1;\n setp.lt.u32 %p2, %r26, 3;\n @%p2 bra L;\n st.global.u32 [%rd3+24], %r25;\n"
        " mul.wide.u32 %rd21, %r2, 64;\n add.s64 %rd22, %rd4, %rd21;\n ld.global.u32 %r28, [%rd22];\n st.global.u32 [%rd3+28], %r28;\n"
        " ret;\n}\n";
    /* a thread constant written in a divergent region (not on each warp's
     * lane 0, which then holds what the start set): its claim must not
     * hold there, else the second warp's lanes read from lane 0's stale
     * address on */
    static const char reg[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 4 .b8 sh[256];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " mov.u32 %r9, sh;\n shl.b32 %r2, %r1, 2;\n add.u32 %r5, %r9, %r2;\n mad.lo.u32 %r6, %r1, 3, 7;\n st.shared.u32 [%r5], %r6;\n"
        " bar.sync 0;\n and.b32 %r7, %r1, 31;\n setp.eq.u32 %p1, %r7, 0;\n @%p1 bra S;\n"
        " shl.b32 %r3, %r1, 2;\n add.u32 %r4, %r9, %r3;\n ld.shared.u32 %r8, [%r4];\n st.global.u32 [%rd3], %r8;\n"
        "S:\n ret;\n}\n";
    block_y = 1;
    same(reg, 1, 64, 64 * 4);
    uint32_t w40;
    memcpy(&w40, arena + 4 * 40, 4);
    assert_int_equal(w40, 3 * 40 + 7);
    for (unsigned y = 4; y <= 8; y += 4) {
        block_y = y;
        same(src, 2, 64, 2 * 64 * 32);
        uint32_t w[8];
        memcpy(w, arena + 32 * 73, sizeof w); /* block 1's thread 9: (9, 2) or (1, 1) */
        unsigned x = y == 4 ? 9 : 1, ty = y == 4 ? 0 : 1;
        assert_int_equal(w[0], 7 * x + 1000);
        assert_int_equal(w[1], 7 * (x * (ty + 1)) + 1000);
    }
}
static void test_vector_affine(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_affine);
    with_vector("0", vec_affine);
}
static int one_row(void **state) /* the blocks of one row again, after a failure too */
{
    (void)state;
    block_y = 1;
    return 0;
}

/* groups of accesses of one register (jit_vec.c, groups()): one test at
 * the first for them all, each access's fast path on it. Values, each
 * word against the interpreter's: a forward branch around a barrier into
 * a stretch past its first access (the first's test would not dominate
 * the second); a warp whose lanes 8-31 have exited (its stores' group
 * must not store for them); global stores and loads of one register;
 * then four stores of [%r6+k], consecutive loads at offsets up to 768,
 * one address a half with no claim (%r16, from a shift) and with one
 * (%tid.y * 64), a stride of 8 bytes (neither shape: gathers), a register
 * written between two loads, a load after a loop's label, in blocks of 64
 * x 1, 16 x 4, and 48 (a second warp of 16 lanes, whose group tests fail:
 * every access its own). Then faults (groups_faults: the interpreter's
 * status, text, thread, address, access and line, the vector form on and
 * off): a
 * group whose last access leaves the window on one lane (block 1's thread
 * 31: the group's test takes the largest offset, so the first access is
 * not trusted for the others); a register written between two loads (a
 * test of the first's values would pass the second's address, 4 bytes
 * past the window); a 64-bit register 4 GiB past the window's start (its
 * low 32 bits inside) and one 8 bytes below its start (the halves' ends
 * wrap around 2^64 into it); a register 2 bytes off its aligned places;
 * a global group past the device memory on the second warp's last lane,
 * after the first warp found the allocation, and one below it on the
 * second warp's lane 0 at an offset lower than the first access's */
static void vec_groups(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 16 .b8 s[1024];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %tid.y;\n mov.u32 %r3, %ntid.x;\n"
        " mad.lo.u32 %r4, %r2, %r3, %r1;\n mov.u32 %r30, s;\n shl.b32 %r5, %r4, 2;\n add.u32 %r6, %r30, %r5;\n"
        " mad.lo.u32 %r7, %r4, 3, 5;\n st.shared.u32 [%r6], %r7;\n st.shared.u32 [%r6+256], %r4;\n"
        " mul.lo.u32 %r8, %r4, %r4;\n st.shared.u32 [%r6+512], %r8;\n st.shared.u32 [%r6+768], %r5;\n"
        " bar.sync 0;\n mov.u32 %r31, %ctaid.x;\n mad.lo.u32 %r32, %r31, 64, %r4;\n"
        " mul.wide.u32 %rd2, %r32, 64;\n add.s64 %rd3, %rd1, %rd2;\n"
        " ld.shared.u32 %r10, [%r6];\n ld.shared.u32 %r11, [%r6+4];\n add.u32 %r12, %r10, %r11;\n"
        " ld.shared.u32 %r13, [%r6+260];\n ld.shared.u32 %r14, [%r6+768];\n"
        " shr.u32 %r15, %r4, 4;\n shl.b32 %r15, %r15, 2;\n add.u32 %r16, %r30, %r15;\n"
        " ld.shared.u32 %r17, [%r16];\n ld.shared.u32 %r18, [%r16+512];\n"
        " shl.b32 %r19, %r2, 6;\n add.u32 %r20, %r30, %r19;\n ld.shared.u32 %r21, [%r20+4];\n ld.shared.u32 %r22, [%r20+8];\n"
        " shl.b32 %r33, %r4, 3;\n add.u32 %r34, %r30, %r33;\n ld.shared.u32 %r35, [%r34];\n ld.shared.u32 %r36, [%r34+4];\n"
        " ld.shared.u32 %r23, [%r6+8];\n add.u32 %r6, %r6, 4;\n ld.shared.u32 %r24, [%r6+8];\n"
        " mov.u32 %r25, 0;\n mov.u32 %r26, 0;\n ld.shared.u32 %r27, [%r20];\n"
        "L:\n ld.shared.u32 %r28, [%r20+12];\n add.u32 %r25, %r25, %r28;\n add.u32 %r26, %r26, 1;\n"
        " setp.lt.u32 %p1, %r26, 3;\n @%p1 bra L;\n"
        " st.global.u32 [%rd3], %r10;\n st.global.u32 [%rd3+4], %r12;\n st.global.u32 [%rd3+8], %r13;\n"
        " st.global.u32 [%rd3+12], %r14;\n st.global.u32 [%rd3+16], %r17;\n st.global.u32 [%rd3+20], %r18;\n"
        " st.global.u32 [%rd3+24], %r21;\n st.global.u32 [%rd3+28], %r22;\n st.global.u32 [%rd3+32], %r23;\n"
        " st.global.u32 [%rd3+36], %r24;\n st.global.u32 [%rd3+40], %r27;\n st.global.u32 [%rd3+44], %r25;\n"
        " st.global.u32 [%rd3+48], %r35;\n st.global.u32 [%rd3+52], %r36;\n"
        " ret;\n}\n";
    /* a group after a forward branch into the stretch, past its first
     * (around a barrier, so no region): the test there does not dominate
     * the second; and a warp whose lanes 8-31 have exited, whose
     * stores' group must not store for them */
    static const char into[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 4 .b8 s[1024];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r9, s;\n shl.b32 %r3, %r1, 2;\n add.u32 %r5, %r9, %r3;\n"
        " mul.wide.u32 %rd2, %r1, 16;\n add.s64 %rd3, %rd1, %rd2;\n"
        " add.u32 %r2, %r1, 1000;\n st.shared.u32 [%r5], %r2;\n st.shared.u32 [%r5+512], %r2;\n"
        " mov.u32 %r4, %ctaid.x;\n setp.eq.u32 %p1, %r4, 7;\n @%p1 bra M;\n bar.sync 0;\n ld.shared.u32 %r6, [%r5+4];\n"
        "M:\n ld.shared.u32 %r7, [%r5+8];\n st.global.u32 [%rd3], %r6;\n st.global.u32 [%rd3+4], %r7;\n"
        " setp.ge.u32 %p2, %r1, 40;\n @%p2 ret;\n bar.sync 0;\n"
        " st.shared.u32 [%r5+4], %r1;\n st.shared.u32 [%r5+516], %r1;\n bar.sync 0;\n"
        " ld.shared.u32 %r8, [%r5+8];\n ld.shared.u32 %r10, [%r5+520];\n st.global.u32 [%rd3+8], %r8;\n st.global.u32 [%rd3+12], %r10;\n"
        " ret;\n}\n";
    block_y = 1;
    same(into, 1, 64, 64 * 16);
    uint32_t wi[4];
    memcpy(wi, arena + 16 * 39, sizeof wi); /* thread 39: words 41 and 169, which thread 40 would store */
    assert_int_equal(wi[0], 1040);
    assert_int_equal(wi[2], 1041);
    assert_int_equal(wi[3], 1041);
    /* global: two stores, two loads of what they stored and a store, one
     * register (the first warp's first access finds the allocation) */
    static const char glob[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mad.lo.u32 %r3, %r2, 64, %r1;\n"
        " mul.wide.u32 %rd2, %r3, 4;\n add.s64 %rd3, %rd1, %rd2;\n mad.lo.u32 %r4, %r3, 3, 1;\n"
        " st.global.u32 [%rd3], %r3;\n st.global.u32 [%rd3+1024], %r4;\n ld.global.u32 %r5, [%rd3+1024];\n"
        " ld.global.u32 %r6, [%rd3];\n add.u32 %r7, %r5, %r6;\n st.global.u32 [%rd3+2048], %r7;\n ret;\n}\n";
    same(glob, 2, 64, 3072);
    uint32_t wg;
    memcpy(&wg, arena + 2048 + 4 * 70, 4);
    assert_int_equal(wg, 70 + 3 * 70 + 1);
    static const struct { unsigned block, y; } shapes[] = { { 64, 1 }, { 64, 4 }, { 48, 1 } };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        block_y = shapes[i].y;
        same(src, 2, shapes[i].block, 2 * 64 * 64);
        uint32_t w[12];
        memcpy(w, arena + 64 * 70, sizeof w); /* block 1's thread 6 */
        assert_int_equal(w[0], 3 * 6 + 5);
        assert_int_equal(w[1], 3 * 6 + 5 + 3 * 7 + 5);
        assert_int_equal(w[5], 0); /* [%r16+512]: thread 0's square */
    }
}
/* the faults of groups (vec_groups' header), on the interpreter and the
 * JIT with and without the vector form */
static void same_fault_grid(const char *src, unsigned grid, unsigned block, enum ptx_status want, unsigned thread);
static void groups_faults(void)
{
    static const char last[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>;\n .shared .align 4 .b8 s[512];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r9, s;\n shl.b32 %r3, %r1, 2;\n"
        " mad.lo.u32 %r4, %r2, 384, %r3;\n add.u32 %r5, %r9, %r4;\n"
        " ld.shared.u32 %r6, [%r5];\n ld.shared.u32 %r7, [%r5+4];\n ret;\n}\n";
    static const char moved[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>;\n .shared .align 4 .b8 s[512];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r9, s;\n shl.b32 %r3, %r1, 2;\n add.u32 %r5, %r9, %r3;\n"
        " ld.shared.u32 %r6, [%r5];\n add.u32 %r5, %r5, 260;\n ld.shared.u32 %r7, [%r5];\n ret;\n}\n";
    static const char high[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n .shared .align 4 .b8 s[512];\n"
        " mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd1, %r1, 4;\n add.s64 %rd2, %rd1, 4294967296;\n"
        " ld.shared.u32 %r6, [%rd2];\n ld.shared.u32 %r7, [%rd2+4];\n ret;\n}\n";
    /* a global group whose second load is past the device memory on the
     * second warp's last lane, after the first warp found the allocation */
    static const char gpast[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shr.u32 %r2, %r1, 5;\n mul.lo.u32 %r3, %r2, 16128;\n"
        " shl.b32 %r4, %r1, 2;\n add.u32 %r5, %r3, %r4;\n cvt.u64.u32 %rd2, %r5;\n add.s64 %rd3, %rd1, %rd2;\n"
        " ld.global.u32 %r6, [%rd3];\n ld.global.u32 %r7, [%rd3+4];\n ret;\n}\n";
    /* a global group whose second load, at a lower offset than the
     * first's, is below the device memory on the second warp's lane 0 */
    static const char gbelow[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shr.u32 %r2, %r1, 5;\n mul.lo.u32 %r3, %r2, 132;\n"
        " shl.b32 %r4, %r1, 2;\n add.u32 %r4, %r4, 4;\n sub.u32 %r5, %r4, %r3;\n cvt.u64.u32 %rd2, %r5;\n add.s64 %rd3, %rd1, %rd2;\n"
        " ld.global.u32 %r6, [%rd3];\n ld.global.u32 %r7, [%rd3+-4];\n ret;\n}\n";
    /* a 64-bit register 8 bytes below the window's start on lane 0 (its
     * halves' ends plus the offsets wrap around 2^64 to inside it), and
     * one 2 bytes past each lane's aligned place */
    static const char below[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n .shared .align 4 .b8 s[512];\n"
        " mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd1, %r1, 4;\n add.s64 %rd2, %rd1, -8;\n"
        " ld.shared.u32 %r6, [%rd2];\n ld.shared.u32 %r7, [%rd2+4];\n ret;\n}\n";
    static const char mis[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>;\n .shared .align 4 .b8 s[512];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r9, s;\n shl.b32 %r3, %r1, 2;\n add.u32 %r5, %r9, %r3;\n add.u32 %r5, %r5, 2;\n"
        " ld.shared.u32 %r6, [%r5];\n ld.shared.u32 %r7, [%r5+4];\n ret;\n}\n";
    block_y = 1;
    same_fault_grid(last, 2, 32, PTX_E_ADDRESS, 31);
    same_fault_grid(moved, 1, 64, PTX_E_ADDRESS, 63);
    same_fault_grid(high, 1, 32, PTX_E_ADDRESS, 0);
    same_fault_grid(gpast, 1, 64, PTX_E_ADDRESS, 63);
    same_fault_grid(gbelow, 1, 64, PTX_E_ADDRESS, 32);
    same_fault_grid(below, 1, 32, PTX_E_ADDRESS, 0);
    same_fault_grid(mis, 1, 32, PTX_E_MISALIGNED, 0);
}
static void test_vector_groups(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_groups);
    with_vector("0", vec_groups);
    groups_faults();
}

/* float results whose NaN need not be canonical (jit_ir.c,
 * jit_float_raw): inf * 0 is the host's negative NaN on thread 0. Read
 * only by an add, it may stay so (the add's NaN is canonical); read by a
 * store too, or by neg (which keeps a NaN's bits but the sign), it must
 * be canonical; inf - inf on every thread kept across a barrier (the
 * register file) for an fma. Each word against the interpreter's */
static void vec_float_raw(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<16>;\n"
        THREAD_OUT
        " cvt.rn.f32.u32 %f1, %r1;\n mov.f32 %f2, 0f7F800000;\n"
        " mul.f32 %f3, %f2, %f1;\n add.f32 %f4, %f3, 0f3F800000;\n st.global.f32 [%rd3], %f4;\n"
        " mul.f32 %f5, %f2, %f1;\n st.global.f32 [%rd3+4], %f5;\n add.f32 %f6, %f5, %f5;\n st.global.f32 [%rd3+8], %f6;\n"
        " mul.f32 %f7, %f2, %f1;\n neg.f32 %f8, %f7;\n st.global.f32 [%rd3+12], %f8;\n"
        " sub.f32 %f9, %f2, %f2;\n bar.sync 0;\n fma.rn.f32 %f10, %f9, %f1, %f1;\n st.global.f32 [%rd3+16], %f10;\n"
        " ret;\n}\n";
    same(src, 1, 64, 64 * 128);
    uint32_t w[5];
    memcpy(w, arena, sizeof w); /* thread 0 */
    assert_int_equal(w[0], 0x7fffffffu);
    assert_int_equal(w[1], 0x7fffffffu);
    assert_int_equal(w[2], 0x7fffffffu);
    assert_int_equal(w[4], 0x7fffffffu);
    memcpy(w, arena + 128 * 5, sizeof w); /* thread 5: inf, and the fma's NaN */
    assert_int_equal(w[0], 0x7f800000u);
    assert_int_equal(w[4], 0x7fffffffu);
}
static void test_float_raw(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_float_raw);
    with_vector("0", vec_float_raw);
}

/* src, one block of 64 threads, fails with an address fault on thread 37
 * on both engines, with the interpreter's text */
static void fault_37(const char *src)
{
    char err[2][512];
    for (int i = 0; i < 2; i++)
        assert_int_equal(run(src, i ? PTX_ENGINE_JIT : PTX_ENGINE_INTERP, 1, 64, err[i], sizeof err[i]), PTX_E_ADDRESS);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    if (!strstr(err[0], "thread (37,0,0)")) fail_msg("interp: %s", err[0]);
    assert_string_equal(err[0], err[1]);
    assert_int_equal(fault.thread[0], 37);
}

/* a fault inside a region: thread 37 (second warp, the then part) stores
 * past the device memory; the first warp's lanes go on one by one from
 * the store before; the second's hand on at the store in the region:
 * the interpreter's text */
static void vec_region_fault(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " st.global.u32 [%rd3], %r1;\n and.b32 %r2, %r1, 1;\n setp.eq.u32 %p1, %r2, 0;\n @%p1 bra J;\n"
        " setp.eq.u32 %p2, %r1, 37;\n @%p2 add.s64 %rd3, %rd1, 16384;\n add.u32 %r3, %r1, 1;\n st.global.u32 [%rd3], %r3;\n"
        "J:\n ret;\n}\n";
    fault_37(src);
}
static void test_vector_region_fault(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_region_fault);
    with_vector("0", vec_region_fault);
}

/* a region that keeps handing over: a loop inside (a backward branch):
 * the lanes go on one by one from the branch (then the atomic's region
 * after it too), the interpreter's bytes */
static void vec_region_not(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " and.b32 %r2, %r1, 3;\n setp.eq.u32 %p1, %r2, 0;\n mov.u32 %r3, 0;\n mov.u32 %r4, 0;\n @%p1 bra J;\n"
        "LOOP:\n add.u32 %r3, %r3, %r1;\n add.u32 %r4, %r4, 1;\n setp.lt.u32 %p2, %r4, %r2;\n @%p2 bra LOOP;\n"
        "J:\n setp.eq.u32 %p3, %r2, 1;\n @%p3 bra J2;\n atom.global.add.u32 %r5, [%rd1+8192], %r1;\nJ2:\n"
        " st.global.u32 [%rd3], %r3;\n st.global.u32 [%rd3+4], %r4;\n ret;\n}\n";
    same(src, 1, 64, 64 * 128 + 4);
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_lanes, 64); /* both warps, at the first branch */
    uint32_t v;
    memcpy(&v, arena + 128 * 7, 4);
    assert_int_equal(v, 3 * 7);
}
static void test_vector_region_not(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_region_not);
}

/* per-lane instructions (atomics, by the interpreter's handler) in the
 * warp's function for its lanes at once: unguarded (the old values each
 * lane gets show the lanes' order), guarded on half the lanes, inside a
 * divergent region (the reduction's "thread 0 adds the block's sum"), and
 * one whose address faults on one lane (the interpreter's text and
 * thread); the interpreter's bytes, no lane handed over for them */
static const char lane_atoms[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
    THREAD_OUT
    " atom.global.add.u32 %r5, [%rd1+8192], 1;\n"
    " and.b32 %r2, %r1, 1;\n setp.eq.u32 %p1, %r2, 0;\n"
    " @%p1 atom.global.add.u32 %r6, [%rd1+8196], %r1;\n @!%p1 mov.u32 %r6, 7;\n"
    " and.b32 %r3, %r1, 31;\n setp.ne.u32 %p2, %r3, 0;\n mov.u32 %r7, 5;\n @%p2 bra J;\n"
    " atom.global.exch.b32 %r7, [%rd1+8200], %r1;\n add.u32 %r7, %r7, 1;\nJ:\n"
    " st.global.u32 [%rd3], %r5;\n st.global.u32 [%rd3+4], %r6;\n st.global.u32 [%rd3+8], %r7;\n ret;\n}\n";
static void vec_lane_atoms(void)
{
    host_threads = 1;
    same(lane_atoms, 1, 64, 64 * 128 + 12);
    host_threads = 0;
    const char *on = getenv("TDTRACE_EMU_JIT_VECTOR");
    if (!on || strcmp(on, "0")) {
        assert_int_equal(rep.vector, 1);
        assert_int_equal(rep.vec_runs, 2);
        assert_int_equal(rep.vec_lanes, 32); /* the first warp's first store (its allocation not yet found) */
    }
    uint32_t v[3];
    memcpy(v, arena + 8192, sizeof v);
    assert_int_equal(v[0], 64);
    assert_int_equal(v[1], 31 * 32); /* 0 + 2 + ... + 62 */
    memcpy(v, arena + 128 * 33, sizeof v);
    assert_int_equal(v[0], 33); /* lanes in order, warp by warp */
    assert_int_equal(v[1], 7);
    assert_int_equal(v[2], 5);
}
static void vec_lane_atom_fault(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " setp.eq.u32 %p2, %r1, 37;\n @%p2 add.s64 %rd3, %rd1, 16384;\n atom.global.add.u32 %r3, [%rd3], %r1;\n ret;\n}\n";
    fault_37(src);
}
static void test_vector_lane_atoms(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_lane_atoms);
    with_vector("0", vec_lane_atoms);
    with_vector("1", vec_lane_atom_fault);
    with_vector("0", vec_lane_atom_fault);
}

/* atom and red the code runs itself (jit_atom_native): each operation on
 * .global, every lane of both warps at one address (the old values show
 * the lanes' order, the f32 sum its rounding), the lanes at 8 addresses,
 * a guarded one, one whose result nothing reads, and on .shared (after a
 * barrier, where the engines may take the warps in another order: the
 * sums and the maximum, not the old values); the interpreter's bytes, and
 * the interpreter's handler called only by the first warp (the thread's
 * function: the first thread), for each global one, before its
 * allocation is known */
enum { ATOM_GLOBAL = 16 };
static void atom_ops(void)
{
    static const char src[] = HDR
        ".shared .align 8 .b8 sh[128];\n"
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .f32 %f<4>; .reg .f64 %fd<4>;"
        " .reg .pred %p<4>;\n"
        THREAD_OUT
        " sub.s32 %r2, %r1, 20;\n and.b32 %r11, %r1, 7;\n"
        " atom.global.add.u32 %r3, [%rd1+8192], %r1;\n atom.global.min.s32 %r4, [%rd1+8196], %r2;\n"
        " atom.global.max.u32 %r5, [%rd1+8200], %r2;\n atom.global.and.b32 %r6, [%rd1+8204], %r2;\n"
        " atom.global.or.b32 %r7, [%rd1+8208], %r1;\n atom.global.xor.b32 %r8, [%rd1+8212], %r2;\n"
        " atom.global.exch.b32 %r9, [%rd1+8216], %r1;\n atom.global.cas.b32 %r10, [%rd1+8220], %r11, %r1;\n"
        " cvt.rn.f32.u32 %f1, %r1;\n mul.f32 %f1, %f1, 0f3DCCCCCD;\n atom.global.add.f32 %f2, [%rd1+8224], %f1;\n"
        " cvt.rn.f64.s32 %fd1, %r2;\n mul.f64 %fd1, %fd1, 0d3FB999999999999A;\n"
        " atom.global.add.f64 %fd2, [%rd1+8232], %fd1;\n"
        " cvt.u64.u32 %rd4, %r1;\n atom.global.add.u64 %rd5, [%rd1+8240], %rd4;\n"
        " atom.global.cas.b64 %rd6, [%rd1+8248], 0, %rd4;\n red.global.add.u32 [%rd1+8256], %r1;\n"
        " atom.global.add.u32 %r30, [%rd1+8304], %r1;\n"
        " mul.wide.u32 %rd7, %r11, 4;\n add.s64 %rd8, %rd1, %rd7;\n atom.global.add.u32 %r12, [%rd8+8264], 1;\n"
        " setp.lt.u32 %p1, %r11, 3;\n mov.u32 %r19, 9;\n @%p1 atom.global.add.u32 %r19, [%rd1+8300], %r1;\n"
        " setp.lt.u32 %p2, %r1, 17;\n mov.u32 %r13, sh;\n shl.b32 %r14, %r1, 2;\n add.u32 %r15, %r13, %r14;\n"
        " @%p2 st.shared.u32 [%r15], 0;\n bar.sync 0;\n"
        " shl.b32 %r14, %r11, 2;\n add.u32 %r15, %r13, %r14;\n red.shared.add.u32 [%r15], %r1;\n"
        " atom.shared.max.s32 %r18, [sh+64], %r2;\n bar.sync 0;\n ld.shared.u32 %r17, [%r15];\n"
        " ld.shared.u32 %r16, [sh+64];\n"
        " st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n st.global.v4.u32 [%rd3+16], {%r7, %r8, %r9, %r10};\n"
        " st.global.v4.u32 [%rd3+32], {%r12, %r16, %r17, %r19};\n"
        " st.global.f32 [%rd3+52], %f2;\n st.global.f64 [%rd3+56], %fd2;\n st.global.u64 [%rd3+64], %rd5;\n"
        " st.global.u64 [%rd3+72], %rd6;\n ret;\n}\n";
    host_threads = 1;
    same(src, 1, 64, 64 * 128 + 8192);
    host_threads = 0;
    assert_int_equal(rep.lane_calls, ATOM_GLOBAL);
    uint32_t v[4];
    memcpy(v, arena + 8192, sizeof v);
    assert_int_equal(v[0], 63 * 64 / 2);
    assert_int_equal((int32_t)v[1], -20);
    assert_int_equal(v[2], (uint32_t)-1);     /* the unsigned max of -20 ... -1 */
    memcpy(v, arena + 128 * 5, sizeof v);
    assert_int_equal(v[0], 0 + 1 + 2 + 3 + 4); /* thread 5's old value: lanes in order */
    memcpy(v, arena + 8256, 4);
    assert_int_equal(v[0], 63 * 64 / 2);       /* red */
    memcpy(v, arena + 8304, 4);
    assert_int_equal(v[0], 63 * 64 / 2);       /* an atom whose result nothing reads */
    memcpy(v, arena + 128 * 63 + 32, sizeof v);
    assert_int_equal(v[0], 7);                 /* the 8th of its 8 at [8264 + 28] */
    assert_int_equal(v[1], 63 - 20);           /* sh+64: the max of -20 ... 43 */
    assert_int_equal(v[2], 7 + 15 + 23 + 31 + 39 + 47 + 55 + 63);
    assert_int_equal(v[3], 9);                 /* guarded off */
    memcpy(v, arena + 128 * 2 + 44, 4);
    assert_int_equal(v[0], 0 + 1);             /* thread 2's: after the guarded 0 and 1 */
}
static void atom_fault(void)
{
    /* an atomic add on .shared past its window on lane 37 (the second
     * warp's, whose other lanes pass): the interpreter's fault and text */
    static const char src[] = HDR
        ".shared .align 4 .b8 sh[256];\n"
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, sh;\n shl.b32 %r4, %r1, 2;\n"
        " add.u32 %r2, %r2, %r4;\n setp.eq.u32 %p2, %r1, 37;\n @%p2 add.u32 %r2, %r2, 4096;\n"
        " atom.shared.add.u32 %r3, [%r2], %r1;\n ret;\n}\n";
    fault_37(src);
}
/* an f32 add on global memory flushes subnormal inputs and results to
 * sign-preserving zero, on shared memory it does not (PTX ISA, atom and
 * red): 64 adds of 2^-127 leave a global word +0 and make a shared one
 * 2^-121; 1.5 FLT_MIN + -FLT_MIN (a subnormal sum) leaves +0; the old
 * values of the global adds are all +0. The values computed here, and
 * the interpreter's bytes */
static void atom_ftz(void)
{
    static const char src[] = HDR
        ".shared .align 4 .b32 sc;\n"
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .f32 %f<8>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n setp.ne.u32 %p1, %r1, 0;\n"
        " mov.b32 %f1, 0f00400000;\n mov.b32 %f2, 0f00C00000;\n mov.b32 %f3, 0f80800000;\n mov.b32 %f4, 0f00000000;\n"
        " @!%p1 st.global.f32 [%rd1+4], %f2;\n @!%p1 st.shared.f32 [sc], %f4;\n bar.sync 0;\n"
        " red.global.add.f32 [%rd1], %f1;\n @!%p1 red.global.add.f32 [%rd1+4], %f3;\n red.shared.add.f32 [sc], %f1;\n"
        " atom.global.add.f32 %f6, [%rd1+8], %f1;\n bar.sync 0;\n"
        " @!%p1 ld.shared.f32 %f7, [sc];\n @!%p1 st.global.f32 [%rd1+12], %f7;\n"
        " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.f32 [%rd3+64], %f6;\n ret;\n}\n";
    host_threads = 1;
    same(src, 1, 64, 64 + 64 * 4);
    host_threads = 0;
    uint32_t v[4];
    memcpy(v, arena, sizeof v);
    assert_int_equal(v[0], 0);           /* 64 flushed inputs */
    assert_int_equal(v[1], 0);           /* a subnormal sum, flushed */
    assert_int_equal(v[2], 0);
    assert_int_equal(v[3], 0x03000000u); /* shared: 64 x 2^-127 = 2^-121 */
    for (int t = 0; t < 64; t++) {
        memcpy(v, arena + 64 + 4 * t, 4);
        assert_int_equal(v[0], 0);
    }
}

static void test_atom_native(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("0", atom_ops);
    with_vector("1", atom_ops);
    with_vector("1", atom_fault);
    with_vector("0", atom_fault);
    with_vector("1", atom_ftz);
    with_vector("0", atom_ftz);
}

/* bar.red (__syncthreads_count/and/or): threads with tid % 7 == 6 exit
 * first and do not count; the predicate tid % 3 == 0 over the 96 - 13
 * threads left; then an if-else whose two paths reduce at one barrier
 * with different predicates, an or that one thread's predicate decides,
 * and a bar.red in a loop.
 * The interpreter's bytes, and the counts computed here. Two blocks */
static void bar_red(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<16>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r9, %ctaid.x;\n mad.lo.u32 %r10, %r9, 96, %r1;\n"
        " mul.wide.u32 %rd2, %r10, 32;\n add.s64 %rd3, %rd1, %rd2;\n"
        " rem.u32 %r2, %r1, 7;\n setp.eq.u32 %p1, %r2, 6;\n @%p1 bra DONE;\n"
        " rem.u32 %r3, %r1, 3;\n setp.eq.u32 %p2, %r3, 0;\n"
        " bar.red.popc.u32 %r4, 0, %p2;\n bar.red.and.pred %p3, 1, %p2;\n bar.red.or.pred %p4, 0, !%p2;\n"
        " bar.red.and.pred %p5, 2, !%p1;\n"
        " selp.u32 %r5, 1, 0, %p3;\n selp.u32 %r6, 1, 0, %p4;\n selp.u32 %r7, 1, 0, %p5;\n"
        " st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};\n"
        " and.b32 %r2, %r1, 1;\n setp.eq.u32 %p6, %r2, 0;\n setp.lt.u32 %p7, %r1, 40;\n @%p6 bra EVEN;\n"
        " bar.red.popc.u32 %r8, 3, %p7;\n bra JOIN;\nEVEN:\n bar.red.popc.u32 %r8, 3, %p2;\nJOIN:\n"
        " setp.eq.u32 %p10, %r1, 95;\n bar.red.or.pred %p11, 4, %p10;\n selp.u32 %r11, 7, 0, %p11;\n"
        " mov.u32 %r12, 0;\n mov.u32 %r13, 0;\nLOOP:\n setp.lt.u32 %p8, %r1, %r13;\n bar.red.popc.u32 %r14, 5, %p8;\n"
        " add.u32 %r12, %r12, %r14;\n add.u32 %r13, %r13, 16;\n setp.lt.u32 %p9, %r13, 96;\n @%p9 bra LOOP;\n"
        " st.global.v4.u32 [%rd3+16], {%r8, %r11, %r12, %r1};\n"
        "DONE:\n ret;\n}\n";
    same(src, 2, 96, 2 * 96 * 32);
    unsigned left = 0, third = 0, odd40 = 0, even3 = 0, loop = 0;
    for (unsigned t = 0; t < 96; t++) {
        if (t % 7 == 6) continue;
        left++;
        for (unsigned j = 0; j < 6; j++) loop += t < 16 * j; /* the loop: tid < 16 j, j < 6 */
        third += t % 3 == 0;
        odd40 += t % 2 == 1 && t < 40;
        even3 += t % 2 == 0 && t % 3 == 0;
    }
    uint32_t v[8];
    memcpy(v, arena + 96 * 32 + 32 * 4, sizeof v); /* block 1, thread 4 */
    assert_int_equal(v[0], third);
    assert_int_equal(v[1], 0);               /* not every thread's tid % 3 == 0 */
    assert_int_equal(v[2], 1);
    assert_int_equal(v[3], 1);               /* every thread left: !p1 */
    assert_int_equal(v[4], odd40 + even3);   /* the two paths at barrier 3 */
    assert_int_equal(v[5], 7);               /* thread 95 (95 % 7 == 4) is left */
    assert_int_equal(v[6], loop);            /* the loop's sum */
    assert_int_equal(v[7], 4);
    assert_true(left == 83);
}

static void test_bar_red(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", bar_red);
    with_vector("0", bar_red);
}

/* match, redux and elect in the warp's function: the interpreter's code
 * for the lanes as one group when the member mask is the lanes running
 * (all 32, and a short last warp of 8 through %r3 = its lanes): the
 * interpreter's bytes, and no lane handed over but at the first warp's
 * first global store (its allocation not yet found) */
static void vec_warp_group(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " mov.u32 %r2, %ntid.x;\n and.b32 %r4, %r1, 31;\n sub.u32 %r5, %r1, %r4;\n sub.u32 %r6, %r2, %r5;\n"
        " min.u32 %r6, %r6, 32;\n mov.u32 %r3, -1;\n setp.lt.u32 %p1, %r6, 32;\n shl.b32 %r7, %r3, %r6;\n"
        " not.b32 %r7, %r7;\n selp.b32 %r3, %r7, %r3, %p1;\n" /* the lanes of this warp */
        " shr.u32 %r8, %r4, 2;\n mul.lo.u32 %r9, %r4, 2654435761;\n"
        " match.any.sync.b32 %r10, %r8, %r3;\n match.all.sync.b32 %r11|%p2, %r8, %r3;\n selp.u32 %r12, 1, 0, %p2;\n"
        " cvt.u64.u32 %rd4, %r8;\n match.any.sync.b64 %r13, %rd4, %r3;\n"
        " redux.sync.add.u32 %r14, %r9, %r3;\n redux.sync.min.s32 %r15, %r9, %r3;\n redux.sync.max.u32 %r16, %r9, %r3;\n"
        " redux.sync.and.b32 %r17, %r9, %r3;\n redux.sync.or.b32 %r18, %r9, %r3;\n redux.sync.xor.b32 %r19, %r9, %r3;\n"
        " elect.sync %r20|%p3, %r3;\n selp.u32 %r21, 1, 0, %p3;\n"
        " st.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};\n st.global.v4.u32 [%rd3+16], {%r14, %r15, %r16, %r17};\n"
        " st.global.v4.u32 [%rd3+32], {%r18, %r19, %r20, %r21};\n ret;\n}\n";
    same(src, 1, 72, 72 * 128);
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_lanes, 32); /* the first warp's first store, one by one */
    uint32_t v;
    memcpy(&v, arena + 128 * 5, 4); /* lane 5: lanes 4-7 have 5 >> 2 */
    assert_int_equal(v, 0xf0u);
    memcpy(&v, arena + 128 * 69 + 40, 4); /* the short warp's leader: lane 0 */
    assert_int_equal(v, 0);
}

static void test_vector_warp_group(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_warp_group);
}

/* activemask: a full warp and a short one of 8 (the warp's function);
 * the two paths of a divergent branch, each its own lanes; in a loop whose
 * trip count is the lane's (tid % 5), the lanes still in it; after the
 * join, all again: the interpreter's bytes */
static void vec_activemask(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " activemask.b32 %r2;\n and.b32 %r3, %r1, 1;\n setp.eq.u32 %p1, %r3, 0;\n @%p1 bra EVEN;\n"
        " activemask.b32 %r4;\n bra JOIN;\nEVEN:\n activemask.b32 %r4;\nJOIN:\n"
        " rem.u32 %r5, %r1, 5;\n mov.u32 %r6, 0;\n mov.u32 %r7, 0;\n"
        "LOOP:\n setp.ge.u32 %p2, %r6, %r5;\n @%p2 bra OUT;\n activemask.b32 %r8;\n xor.b32 %r7, %r7, %r8;\n"
        " add.u32 %r6, %r6, 1;\n bra LOOP;\nOUT:\n activemask.b32 %r9;\n"
        " st.global.v4.u32 [%rd3], {%r2, %r4, %r7, %r9};\n ret;\n}\n";
    same(src, 1, 72, 72 * 128);
    uint32_t v[4];
    memcpy(v, arena + 128 * 3, sizeof v); /* thread 3 */
    assert_int_equal(v[0], 0xffffffffu);
    assert_int_equal(v[1], 0xaaaaaaaau);
    assert_int_equal(v[3], 0xffffffffu);
    memcpy(v, arena + 128 * 66, sizeof v); /* thread 66: lane 2 of the warp of 8 */
    assert_int_equal(v[0], 0xffu);
    assert_int_equal(v[1], 0x55u);
}

static void test_activemask(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_activemask);
    with_vector("0", vec_activemask);
}

/* ---- volatile and strong accesses ---------------------------------------------- */
/* the warp-synchronous reduction of old CUDA code: volatile shared words,
 * no barrier; right only in the lockstep order (each step's loads of all
 * lanes before any lane's store): lane 0 ends with the sum of the 32
 * values tid * tid + 1, as the interpreter does; the other lanes' words as
 * the interpreter's too. Two blocks */
static void vol_warp_sum(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n .shared .align 4 .b32 sm[64];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shl.b32 %r2, %r1, 2;\n mov.u32 %r3, sm;\n add.u32 %r4, %r3, %r2;\n"
        " mul.lo.u32 %r5, %r1, %r1;\n add.u32 %r5, %r5, 1;\n st.volatile.shared.u32 [%r4], %r5;\n"
#define VSTEP(off) " ld.volatile.shared.u32 %r6, [%r4];\n ld.volatile.shared.u32 %r7, [%r4+" off "];\n" \
                   " add.u32 %r6, %r6, %r7;\n st.volatile.shared.u32 [%r4], %r6;\n"
        VSTEP("64") VSTEP("32") VSTEP("16") VSTEP("8") VSTEP("4")
#undef VSTEP
        " mov.u32 %r8, %ctaid.x;\n shl.b32 %r8, %r8, 5;\n add.u32 %r8, %r8, %r1;\n"
        " mul.wide.u32 %rd2, %r8, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r6;\n ret;\n}\n";
    same(src, 2, 32, 2 * 32 * 4);
    uint32_t v[2];
    memcpy(&v[0], arena, 4);
    memcpy(&v[1], arena + 128, 4);
    assert_int_equal(v[0], 10448); /* sum of t * t + 1, t < 32 */
    assert_int_equal(v[1], 10448);
}

/* spins on a flag another thread sets: warp 0's lanes together for
 * thread 62's (acquire and release; the warp's function spins), then
 * thread 0 for thread 63's (another warp) and lane 1 for lane 30's (its
 * own warp, a divergent spin; volatile and fences); each then reads what
 * the setter wrote before. No thread stops at a barrier: the waiting
 * threads go on only because the others get their turns */
static void vol_spin(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<8>;\n"
        " .shared .align 4 .b32 flag[4];\n .shared .align 4 .b32 data[4];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n"
        " setp.lt.u32 %p1, %r1, 32;\n @%p1 bra W0;\n"
        " setp.eq.u32 %p2, %r1, 63;\n @%p2 bra SET0;\n setp.eq.u32 %p2, %r1, 62;\n @%p2 bra SET2;\n ret;\n"
        "SET0:\n st.shared.u32 [data], 42;\n membar.cta;\n st.volatile.shared.u32 [flag], 1;\n ret;\n"
        "SET2:\n st.shared.u32 [data+8], 44;\n membar.cta;\n st.release.cta.shared.u32 [flag+8], 1;\n ret;\n"
        "W0:\n ld.acquire.cta.shared.u32 %r2, [flag+8];\n setp.eq.u32 %p4, %r2, 0;\n @%p4 bra W0;\n"
        " ld.shared.u32 %r3, [data+8];\n"
        " setp.eq.u32 %p3, %r1, 0;\n @%p3 bra WAIT0;\n setp.eq.u32 %p3, %r1, 1;\n @%p3 bra WAIT1;\n"
        " setp.eq.u32 %p3, %r1, 30;\n @%p3 bra SET1;\n bra OUT;\n"
        "SET1:\n st.shared.u32 [data+4], 43;\n membar.cta;\n st.volatile.shared.u32 [flag+4], 1;\n mov.u32 %r3, 0;\n bra OUT;\n"
        "WAIT1:\n ld.volatile.shared.u32 %r2, [flag+4];\n setp.eq.u32 %p4, %r2, 0;\n @%p4 bra WAIT1;\n"
        " membar.cta;\n ld.shared.u32 %r3, [data+4];\n bra OUT;\n"
        "WAIT0:\n ld.volatile.shared.u32 %r2, [flag];\n setp.eq.u32 %p4, %r2, 0;\n @%p4 bra WAIT0;\n"
        " membar.cta;\n ld.shared.u32 %r3, [data];\n"
        "OUT:\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r3;\n ret;\n}\n";
    char err[512];
    uint64_t keep = budget;
    budget = 1u << 26; /* a spin that never ends fails the test, not hangs it */
    for (int e = PTX_ENGINE_INTERP; e <= PTX_ENGINE_JIT; e++) {
        enum ptx_status st = run(src, e, 1, 64, err, sizeof err);
        if (st != PTX_OK) fail_msg("%s: %s", e == PTX_ENGINE_JIT ? "jit" : "interp", err);
        if (e == PTX_ENGINE_JIT && rep.engine != PTX_ENGINE_JIT) fail_msg("not compiled: %s", rep.why);
        uint32_t v[32];
        memcpy(v, arena, sizeof v);
        assert_int_equal(v[0], 42);
        assert_int_equal(v[1], 43);
        for (int l = 2; l < 32; l++)
            if (v[l] != (l == 30 ? 0u : 44u)) fail_msg("lane %d: %u", l, v[l]);
    }
    budget = keep;
}

/* a guard that holds on some lanes: even lanes store their tid, odd lanes
 * then load their left neighbour's word, both volatile: in the lockstep
 * order the loads see the stores; a generic volatile load of a word the
 * lanes' own stores wrote; a store under a guard read nowhere else: the
 * interpreter's bytes */
static void vol_guarded(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " and.b32 %r2, %r1, 1;\n setp.eq.u32 %p1, %r2, 0;\n add.u32 %r3, %r1, 1000;\n"
        " @%p1 st.volatile.global.u32 [%rd3], %r3;\n @!%p1 ld.volatile.global.u32 %r4, [%rd3+-4];\n"
        " @!%p1 st.global.u32 [%rd3], %r4;\n ld.volatile.u32 %r5, [%rd3];\n st.global.u32 [%rd3+512], %r5;\n"
        " setp.lt.u32 %p2, %r1, 50;\n @%p2 st.volatile.global.u32 [%rd3+1024], %r5;\n ret;\n}\n"; /* %p2 read once */
    same(src, 1, 96, 2048);
    uint32_t v;
    memcpy(&v, arena + 4 * 5, 4);
    assert_int_equal(v, 1004);
    memcpy(&v, arena + 512 + 4 * 5, 4);
    assert_int_equal(v, 1004);
}

/* a volatile load past the device memory on thread 37: the interpreter's text */
static void vol_fault(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " setp.eq.u32 %p2, %r1, 37;\n @%p2 add.s64 %rd3, %rd1, 16384;\n ld.volatile.global.u32 %r3, [%rd3];\n"
        " st.global.u32 [%rd1+4096], %r3;\n ret;\n}\n";
    fault_37(src);
}

/* volatile accesses of .shared in a loop that holds a bar.sync (the
 * samples' scan: a segmented inclusive scan of 32 words through a
 * volatile array, two barriers a step), a volatile store of two words by
 * every lane to one address and loads of it: the warp's function runs
 * them as weak accesses (no handler call from the compiled code with the
 * vector form), the interpreter's bytes and the host's sums */
static void vol_shared_inline(void)
{
    static const char scan[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<32>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 4 .b32 sd[256];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r20, %ctaid.x;\n"
        " mad.lo.u32 %r2, %r1, 3, 1;\n add.u32 %r2, %r2, %r20;\n"
        " shl.b32 %r3, %r1, 1;\n and.b32 %r4, %r1, 31;\n sub.u32 %r5, %r3, %r4;\n"
        " shl.b32 %r6, %r5, 2;\n mov.u32 %r7, sd;\n add.u32 %r8, %r7, %r6;\n"
        " mov.u32 %r9, 0;\n st.volatile.shared.u32 [%r8], %r9;\n st.volatile.shared.u32 [%r8+128], %r2;\n"
        " add.u32 %r8, %r8, 128;\n mov.u32 %r10, 1;\n"
        "L:\n bar.sync 0;\n ld.volatile.shared.u32 %r11, [%r8];\n shl.b32 %r12, %r10, 2;\n sub.u32 %r13, %r8, %r12;\n"
        " ld.volatile.shared.u32 %r14, [%r13];\n add.u32 %r15, %r11, %r14;\n bar.sync 0;\n"
        " st.volatile.shared.u32 [%r8], %r15;\n shl.b32 %r10, %r10, 1;\n setp.lt.u32 %p1, %r10, 32;\n @%p1 bra L;\n"
        " ld.volatile.shared.u32 %r16, [%r8];\n"
        " shl.b32 %r17, %r20, 7;\n add.u32 %r17, %r17, %r1;\n mul.wide.u32 %rd2, %r17, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " st.global.u32 [%rd3], %r16;\n ret;\n}\n";
    same(scan, 2, 128, 2 * 128 * 4);
    if (rep.vector) assert_int_equal(rep.lane_calls, 0);
    for (unsigned b = 0; b < 2; b++)
        for (unsigned t = 0, sum = 0; t < 128; t++) {
            sum = (t % 32 ? sum : 0) + t * 3 + 1 + b;
            uint32_t v;
            memcpy(&v, arena + (b * 128 + t) * 4, 4);
            if (v != sum) fail_msg("block %u thread %u: %u, want %u", b, t, v, sum);
        }
    static const char one[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n .shared .align 8 .b32 w[2];\n"
        THREAD_OUT
        " mul.lo.u32 %r2, %r1, 7;\n st.volatile.shared.v2.u32 [w], {%r1, %r2};\n"
        " ld.volatile.shared.v2.u32 {%r3, %r4}, [w];\n mov.u32 %r5, w;\n ld.volatile.shared.u32 %r6, [%r5+4];\n"
        " st.global.v2.u32 [%rd3], {%r3, %r4};\n st.global.u32 [%rd3+8], %r6;\n ret;\n}\n";
    same(one, 1, 32, 32 * 128);
    if (rep.vector) assert_int_equal(rep.lane_calls, 0);
    uint32_t v[3];
    memcpy(v, arena + 128 * 5, sizeof v);
    assert_int_equal(v[0], 31); /* the last lane's store, in lane order */
    assert_int_equal(v[1], 217);
    assert_int_equal(v[2], 217);
}
/* a volatile load of .shared past its window on thread 37: its warp hands
 * its lanes on, the thread stops before it, the interpreter's handler
 * faults: the interpreter's text */
static void vol_shared_fault(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
        " .shared .align 4 .b32 sm[64];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shl.b32 %r2, %r1, 2;\n mov.u32 %r3, sm;\n add.u32 %r4, %r3, %r2;\n"
        " setp.eq.u32 %p2, %r1, 37;\n @%p2 add.u32 %r4, %r4, 4096;\n ld.volatile.shared.u32 %r5, [%r4];\n"
        " st.global.u32 [%rd1+4096], %r5;\n ret;\n}\n";
    fault_37(src);
}
static void test_volatile(void **state)
{
    (void)state;
    NEED_JIT();
    void (*const f[])(void) = { vol_warp_sum, vol_spin, vol_guarded, vol_fault, vol_shared_inline, vol_shared_fault };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        with_vector("1", f[i]);
        with_vector("0", f[i]);
    }
    /* the one volatile or strong access refused: a cluster's shared memory */
    static const char cl[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n .shared .align 4 .b32 sm[4];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r2, sm;\n ld.volatile.shared::cluster.u32 %r1, [%r2];\n"
        " st.global.u32 [%rd1], %r1;\n ret;\n}\n";
    char err[256];
    assert_int_equal(run(cl, PTX_ENGINE_JIT, 1, 1, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
    if (!strstr(rep.why, "'ld.volatile.shared::cluster.u32' (a volatile or strong access outside")) fail_msg("%s", rep.why);
}

static void test_vector_shfl_reduce(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_shfl_reduce);
}

/* every shuffle mode with the c operand (clamps, segments as CUDA's width
 * sets them, source lanes out of range, offsets above 31), each with its
 * predicate, a uniformly guarded shuffle, votes and bar.warp.sync over
 * the full warp: the interpreter's bytes, and no lane handed over but at
 * the first warp's first global store (its allocation not yet found) */
static const char shfl_modes[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<12>;\n"
    THREAD_OUT
    " mul.lo.u32 %r4, %r1, 2654435761;\n mul.lo.u32 %r5, %r1, 7;\n and.b32 %r5, %r5, 31;\n"
    " shfl.sync.bfly.b32 %r6|%p2, %r4, 5, 0x1f, -1;\n selp.u32 %r7, 1, 0, %p2;\n"
    " shfl.sync.idx.b32 %r8|%p3, %r4, %r5, 0xf, -1;\n selp.u32 %r9, 1, 0, %p3;\n"
    " shfl.sync.idx.b32 %r10|%p3, %r4, %r5, 0x181f, -1;\n selp.u32 %r11, 1, 0, %p3;\n"
    " shfl.sync.up.b32 %r12|%p4, %r4, 3, 0x1800, -1;\n selp.u32 %r13, 1, 0, %p4;\n"
    " shfl.sync.down.b32 %r14|%p5, %r4, 33, 0x101f, -1;\n selp.u32 %r15, 1, 0, %p5;\n"
    " shfl.sync.down.b32 %r16|%p6, %r4, %r5, 0x1f, -1;\n selp.u32 %r17, 1, 0, %p6;\n"
    " shfl.sync.up.b32 %r18|%p7, %r4, %r5, 0x100, -1;\n selp.u32 %r19, 1, 0, %p7;\n"
    " shfl.sync.bfly.b32 %r20, %r4, %r5, 0x1c03, -1;\n"
    " setp.lt.u32 %p8, %r1, 1024;\n mov.u32 %r21, 77;\n @%p8 shfl.sync.idx.b32 %r21, %r4, 31, 0x1f, -1;\n"
    " @!%p8 shfl.sync.idx.b32 %r21, %r4, 30, 0x1f, -1;\n"
    " and.b32 %r22, %r4, 1;\n setp.ne.u32 %p9, %r22, 0;\n"
    " vote.sync.all.pred %p10, %p9, -1;\n selp.u32 %r23, 1, 0, %p10;\n"
    " vote.sync.any.pred %p10, !%p9, -1;\n selp.u32 %r24, 1, 0, %p10;\n"
    " vote.sync.uni.pred %p10, %p8, -1;\n selp.u32 %r25, 1, 0, %p10;\n"
    " vote.sync.ballot.b32 %r26, %p9, -1;\n"
    " bar.warp.sync -1;\n"
    " st.global.v4.u32 [%rd3], {%r6, %r7, %r8, %r9};\n st.global.v4.u32 [%rd3+16], {%r10, %r11, %r12, %r13};\n"
    " st.global.v4.u32 [%rd3+32], {%r14, %r15, %r16, %r17};\n st.global.v4.u32 [%rd3+48], {%r18, %r19, %r20, %r21};\n"
    " st.global.v4.u32 [%rd3+64], {%r23, %r24, %r25, %r26};\n ret;\n}\n";

static void vec_shfl_modes(void)
{
    same(shfl_modes, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 1);
    assert_int_equal(rep.vec_runs, 2);
    assert_int_equal(rep.vec_lanes, 32);
    uint32_t v[20];
    memcpy(v, arena + 128 * 9, sizeof v); /* lane 9 */
    assert_int_equal(v[0], 12u * 2654435761u); /* bfly 5: lane 12 */
    assert_int_equal(v[1], 1);
    assert_int_equal(v[3], 0);  /* idx 63 & 31 = 31 > clamp 15: out of range, its own value */
    assert_int_equal(v[2], 9u * 2654435761u);
    assert_int_equal(v[8], 10u * 2654435761u); /* down 33 (1) in a segment of 16 */
    assert_int_equal(v[9], 1);
    assert_int_equal(v[15], 31u * 2654435761u); /* the guarded idx 31 */
}
static void vec_shfl_modes_off(void)
{
    same(shfl_modes, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 0);
    assert_int_equal(rep.vec_runs, 0);
}
static void test_vector_shfl_modes(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_shfl_modes);
    with_vector("0", vec_shfl_modes_off);
}

/* member masks other than the lanes running: half-warp masks, a guard
 * that differs between lanes, a warp short of 32 with a full mask: the
 * lanes go on one by one from the rendezvous (jit_warp.c, the
 * interpreter's ex_warp_sync) with the interpreter's bytes and errors */
static void vec_shfl_partial(void)
{
    static const char half[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .pred %p<8>;\n"
        THREAD_OUT
        " and.b32 %r2, %r1, 31;\n setp.lt.u32 %p1, %r2, 16;\n selp.b32 %r3, 0xffff, 0xffff0000, %p1;\n"
        " mul.lo.u32 %r4, %r1, 37;\n"
        " shfl.sync.down.b32 %r6|%p2, %r4, 3, 0x100f, %r3;\n selp.u32 %r7, 1, 0, %p2;\n"
        " vote.sync.ballot.b32 %r8, %p2, %r3;\n"
        " setp.lt.u32 %p3, %r2, 8;\n mov.u32 %r9, 5;\n @%p3 shfl.sync.bfly.b32 %r9, %r4, 1, 0x1f, 0xff;\n"
        " shfl.sync.idx.b32 %r10, %r4, 2, 0x1f, -1;\n"
        " st.global.v4.u32 [%rd3], {%r6, %r7, %r8, %r9};\n st.global.u32 [%rd3+16], %r10;\n ret;\n}\n";
    same(half, 1, 64, 64 * 128);
    assert_int_equal(rep.vector, 1);
    /* each warp: its function from the start, then again after the
     * half-mask shuffle, the vote and the guarded shuffle, once those
     * completed for all its lanes (4 calls); it hands its 32 lanes on at
     * each of those three, and the first warp's at its first global store */
    assert_int_equal(rep.vec_runs, 2 * 4);
    assert_int_equal(rep.vec_lanes, 2 * 3 * 32 + 32);
    uint32_t v;
    memcpy(&v, arena + 128 * 33 + 16, 4); /* thread 33: idx 2 of its warp */
    assert_int_equal(v, 34 * 37);
    /* a warp of 16 lanes and a full mask: a lane reads one that has exited */
    static const char shortw[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n"
        " mov.u32 %r1, %tid.x;\n shfl.sync.down.b32 %r2, %r1, 8, 0x1f, -1;\n ret;\n}\n";
    char err0[512], err[512];
    assert_int_equal(run(shortw, PTX_ENGINE_INTERP, 1, 16, err0, sizeof err0), PTX_E_SYNC);
    assert_int_equal(run(shortw, PTX_ENGINE_JIT, 1, 16, err, sizeof err), PTX_E_SYNC);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_int_equal(rep.vec_lanes, 16);
    assert_string_equal(err0, err);
    /* the mask is the lanes running, but lanes 8-15 read lanes 16-23,
     * outside it: handed over, the interpreter's error */
    static const char outside[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n"
        " mov.u32 %r1, %tid.x;\n shfl.sync.down.b32 %r2, %r1, 8, 0x1f, 0xffff;\n ret;\n}\n";
    assert_int_equal(run(outside, PTX_ENGINE_INTERP, 1, 16, err0, sizeof err0), PTX_E_SYNC);
    assert_int_equal(run(outside, PTX_ENGINE_JIT, 1, 16, err, sizeof err), PTX_E_SYNC);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_int_equal(rep.vec_lanes, 16);
    assert_string_equal(err0, err);
    assert_non_null(strstr(err, "is not in the member mask"));
}
static void test_vector_shfl_partial(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_shfl_partial);
}

/* one lane's store outside device memory: the vector's inline check
 * fails, the lanes go on one by one and the fault is the scalar JIT's
 * and the interpreter's: same text, thread, address, line */
static void vec_fault(void)
{
    static const char src[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " setp.eq.u32 %p1, %r1, 37;\n @%p1 add.s64 %rd3, %rd1, 16384;\n st.global.u32 [%rd3], %r1;\n ret;\n}\n";
    char err[3][512];
    struct ptx_fault f[3];
    static const char *const vec[3] = { "1", "0", "1" };
    for (int i = 0; i < 3; i++) {
        setenv("TDTRACE_EMU_JIT_VECTOR", vec[i], 1);
        assert_int_equal(run(src, i == 2 ? PTX_ENGINE_INTERP : PTX_ENGINE_JIT, 1, 64, err[i], sizeof err[i]),
                         PTX_E_ADDRESS);
        f[i] = fault;
        if (i == 0) {
            assert_int_equal(rep.engine, PTX_ENGINE_JIT);
            assert_int_equal(rep.vector, 1);
            assert_true(rep.vec_lanes > 0); /* warp 1 went on lane by lane */
        }
    }
    setenv("TDTRACE_EMU_JIT_VECTOR", "1", 1);
    for (int i = 1; i < 3; i++) {
        assert_string_equal(err[0], err[i]);
        assert_int_equal(f[0].addr, f[i].addr);
        assert_int_equal(f[0].thread[0], f[i].thread[0]);
        assert_int_equal(f[0].access, f[i].access);
        assert_int_equal(f[0].ptx_line, f[i].ptx_line);
        assert_string_equal(f[0].space, f[i].space);
    }
    assert_int_equal(f[0].thread[0], 37);
    assert_int_equal(f[0].addr, (uint64_t)(uintptr_t)arena + 16384);
    /* the stores of the lanes before it, in warp 0 and warp 1, were made */
    uint32_t v;
    memcpy(&v, arena + 4 * 36, 4);
    assert_int_equal(v, 36);
}
static void test_vector_fault(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vec_fault);
}

/* ---- the warp's memory accesses: consecutive, one address, gathers ------------------------- */
/* every type and vector width, stored and loaded by consecutive lanes
 * (the masked loads and stores of jit_vec.c), in global and shared
 * memory; loaded one element further on (another base than the store's);
 * each load's register stored whole (u64: its sign or zero extension) by
 * a strided store (a scatter). Device memory: inputs below 4608, then
 * 184 bytes a thread */
static const char vmem_types[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b16 %h<8>; .reg .b32 %r<40>; .reg .b64 %rd<60>;\n"
    " .shared .align 16 .b8 sh[2048];\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n cvt.u64.u32 %rd2, %r1;\n"
    " mad.lo.u32 %r5, %r1, -1640531535, 0x80808081;\n mul.lo.u32 %r6, %r5, 747796405;\n"
    " cvt.u64.u32 %rd6, %r5;\n shl.b64 %rd7, %rd6, 32;\n or.b64 %rd7, %rd7, 0xfedcba98;\n cvt.u16.u32 %h1, %r5;\n"
    " cvt.u16.u32 %h2, %r6;\n shr.u32 %r7, %r5, 8;\n cvt.u16.u32 %h3, %r7;\n shr.u32 %r7, %r5, 16;\n cvt.u16.u32 %h4, %r7;\n"
    " add.s64 %rd3, %rd1, %rd2;\n st.global.u8 [%rd3], %r5;\n"
    " shl.b64 %rd4, %rd2, 1;\n add.s64 %rd4, %rd1, %rd4;\n st.global.u16 [%rd4+128], %h1;\n"
    " shl.b64 %rd5, %rd2, 2;\n add.s64 %rd5, %rd1, %rd5;\n st.global.u32 [%rd5+384], %r5;\n"
    " shl.b64 %rd8, %rd2, 3;\n add.s64 %rd8, %rd1, %rd8;\n st.global.u64 [%rd8+768], %rd7;\n"
    " st.global.v2.u32 [%rd8+1280], {%r5, %r6};\n"
    " shl.b64 %rd9, %rd2, 4;\n add.s64 %rd9, %rd1, %rd9;\n st.global.v4.u32 [%rd9+1792], {%r6, %r5, %r1, %r7};\n"
    " st.global.v2.u64 [%rd9+2816], {%rd7, %rd6};\n"
    " st.global.v4.u16 [%rd8+3840], {%h1, %h2, %h3, %h4};\n"
    " st.global.v2.u8 [%rd4+4352], {%h2, %h1};\n"
    " mov.u32 %r8, sh;\n shl.b32 %r9, %r1, 4;\n add.u32 %r9, %r8, %r9;\n st.shared.v4.u32 [%r9], {%r5, %r6, %r7, %r1};\n"
    " bar.sync 0;\n"
    " mul.lo.u64 %rd10, %rd2, 184;\n add.s64 %rd10, %rd1, %rd10;\n add.s64 %rd10, %rd10, 4608;\n"
    " ld.global.s8 %r10, [%rd3+1];\n cvt.s64.s32 %rd11, %r10;\n st.global.u64 [%rd10], %rd11;\n"
    " ld.global.u8 %rd11, [%rd3+1];\n st.global.u64 [%rd10+8], %rd11;\n"
    " ld.global.s16 %rd11, [%rd4+130];\n st.global.u64 [%rd10+16], %rd11;\n"
    " ld.global.u16 %h5, [%rd4+130];\n cvt.u64.u16 %rd11, %h5;\n st.global.u64 [%rd10+24], %rd11;\n"
    " ld.global.s32 %rd11, [%rd5+388];\n st.global.u64 [%rd10+32], %rd11;\n"
    " ld.global.u64 %rd11, [%rd8+776];\n st.global.u64 [%rd10+40], %rd11;\n"
    " ld.global.v2.u32 {%r11, %r12}, [%rd8+1288];\n st.global.v2.u32 [%rd10+48], {%r11, %r12};\n"
    " ld.global.v4.u32 {%r13, %r14, %r15, %r16}, [%rd9+1808];\n"
    " st.global.v2.u32 [%rd10+56], {%r13, %r14};\n st.global.v2.u32 [%rd10+64], {%r15, %r16};\n"
    " ld.global.v2.u64 {%rd12, %rd13}, [%rd9+2832];\n st.global.u64 [%rd10+72], %rd12;\n st.global.u64 [%rd10+80], %rd13;\n"
    " ld.global.v4.s16 {%r17, %r18, %r19, %r20}, [%rd8+3848];\n"
    " cvt.s64.s32 %rd14, %r17;\n st.global.u64 [%rd10+88], %rd14;\n cvt.s64.s32 %rd14, %r18;\n st.global.u64 [%rd10+96], %rd14;\n"
    " cvt.s64.s32 %rd14, %r19;\n st.global.u64 [%rd10+104], %rd14;\n cvt.s64.s32 %rd14, %r20;\n st.global.u64 [%rd10+112], %rd14;\n"
    " ld.global.v2.s8 {%r21, %r22}, [%rd4+4354];\n st.global.v2.u32 [%rd10+120], {%r21, %r22};\n"
    " ld.global.v2.u8 {%r23, _}, [%rd4+4354];\n st.global.u32 [%rd10+128], %r23;\n"
    " ld.shared.v2.u64 {%rd15, %rd16}, [%r9+16];\n st.global.u64 [%rd10+136], %rd15;\n st.global.u64 [%rd10+144], %rd16;\n"
    " ld.shared.s16 %rd17, [%r9+2];\n st.global.u64 [%rd10+152], %rd17;\n"
    " ld.shared.v4.u8 {%r24, %r25, %r26, %r27}, [%r9+4];\n st.global.v4.u8 [%rd10+160], {%r24, %r25, %r26, %r27};\n"
    " ld.shared.u32 %r28, [%r9+12];\n st.global.u32 [%rd10+164], %r28;\n"
    " ret;\n}\n";

/* lanes left out by a guard: their address registers hold anything (a
 * wild address). A guard off on lane 0 (tid % 3 == 0: the half's first
 * lane does not run: the gather), off on lanes 20-31 of each warp (the
 * consecutive and one-address forms on the lanes that run), off on a
 * whole half (lanes 16-31, or 0-15: that half's masked load reads
 * nothing; a broadcast reads the other half's address, not its wild
 * one); the registers the guard leaves out keep their values */
static const char vmem_guard[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .pred %p<8>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n cvt.u64.u32 %rd2, %r1;\n shl.b64 %rd3, %rd2, 2;\n"
    " add.s64 %rd3, %rd1, %rd3;\n mad.lo.u32 %r5, %r1, 2654435761, 99;\n and.b32 %r2, %r1, 31;\n"
    " rem.u32 %r3, %r1, 3;\n setp.ne.u32 %p1, %r3, 0;\n setp.lt.u32 %p2, %r2, 20;\n setp.lt.u32 %p3, %r2, 16;\n"
    " selp.b64 %rd4, %rd3, 0xdead0000, %p1;\n selp.b64 %rd5, %rd3, 0xbeef0004, %p2;\n selp.b64 %rd6, %rd3, 0x1235, %p3;\n"
    " @%p1 st.global.u32 [%rd4], %r5;\n @%p2 st.global.u32 [%rd5+1024], %r5;\n @%p3 st.global.u32 [%rd6+2048], %r5;\n"
    " bar.sync 0;\n"
    " mov.u32 %r10, 77;\n mov.u32 %r11, 88;\n mov.u32 %r12, 99;\n mov.u32 %r13, 111;\n mov.u32 %r14, 122;\n mov.u32 %r15, 133;\n"
    " @%p1 ld.global.u32 %r10, [%rd4+4];\n @%p2 ld.global.u32 %r11, [%rd5+1028];\n @%p3 ld.global.u32 %r12, [%rd6+2052];\n"
    /* one address a half on the lanes that run: word 1 + 16 * (tid / 16) of the second block */
    " shr.u32 %r6, %r1, 4;\n mul.wide.u32 %rd7, %r6, 64;\n add.s64 %rd7, %rd1, %rd7;\n add.s64 %rd7, %rd7, 1028;\n"
    " selp.b64 %rd8, %rd7, 0xfeed0000, %p2;\n selp.b64 %rd9, %rd7, 0x7, %p3;\n selp.b64 %rd10, %rd7, 0x9, %p1;\n"
    " @%p2 ld.global.u32 %r13, [%rd8];\n @%p3 ld.global.u32 %r14, [%rd9];\n @%p1 ld.global.u32 %r15, [%rd10];\n"
    " mov.u32 %r16, 144;\n selp.b64 %rd12, 0x9, %rd7, %p3;\n @!%p3 ld.global.u32 %r16, [%rd12];\n"
    " mul.wide.u32 %rd11, %r1, 32;\n add.s64 %rd11, %rd1, %rd11;\n add.s64 %rd11, %rd11, 4096;\n"
    " st.global.v4.u32 [%rd11], {%r10, %r11, %r12, %r13};\n st.global.v2.u32 [%rd11+16], {%r14, %r15};\n"
    " st.global.u32 [%rd11+24], %r16;\n"
    " ret;\n}\n";

/* addresses consecutive but for one lane (lane 7 of the first warp reads
 * and writes word 100), in reverse (lane l at base - 4 l), two words a
 * lane apart, half consecutive and half one address, one address for the
 * whole warp in .v4 and .u8, a shared variable's address (a constant: no
 * test): the interpreter's bytes (the gathers and scatters, and the forms
 * that apply) */
static const char vmem_mix[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b16 %h<4>; .reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .pred %p<8>;\n"
    " .shared .align 8 .b8 shm[64];\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n cvt.u64.u32 %rd2, %r1;\n shl.b64 %rd3, %rd2, 2;\n"
    " add.s64 %rd3, %rd1, %rd3;\n mad.lo.u32 %r5, %r1, 2654435761, 7;\n"
    " setp.eq.u32 %p1, %r1, 7;\n add.s64 %rd4, %rd1, 400;\n selp.b64 %rd4, %rd4, %rd3, %p1;\n st.global.u32 [%rd4], %r5;\n"
    " sub.s64 %rd5, %rd1, %rd3;\n add.s64 %rd5, %rd5, %rd1;\n add.s64 %rd5, %rd5, 1276;\n st.global.u32 [%rd5], %r5;\n"
    " shl.b64 %rd6, %rd2, 3;\n add.s64 %rd6, %rd1, %rd6;\n st.global.u32 [%rd6+1536], %r5;\n"
    " st.global.u8 [%rd1+2100], %r5;\n setp.eq.u32 %p3, %r1, 5;\n @%p3 st.shared.v2.u32 [shm+8], {%r5, %r1};\n"
    " bar.sync 0;\n ld.shared.v2.u32 {%r20, %r21}, [shm+8];\n"
    " ld.global.u32 %r10, [%rd4];\n ld.global.u32 %r11, [%rd5+4];\n ld.global.u32 %r12, [%rd6+1536];\n"
    " and.b32 %r2, %r1, 31;\n setp.lt.u32 %p2, %r2, 16;\n add.s64 %rd7, %rd1, 1028;\n selp.b64 %rd7, %rd3, %rd7, %p2;\n"
    " ld.global.u32 %r13, [%rd7];\n ld.global.v4.u32 {%r14, %r15, %r16, %r17}, [%rd1+1024];\n"
    " ld.global.s8 %r18, [%rd1+2100];\n ld.global.v2.u16 {%h1, %h2}, [%rd1+1536];\n cvt.u32.u16 %r19, %h2;\n"
    " mul.wide.u32 %rd11, %r1, 48;\n add.s64 %rd11, %rd1, %rd11;\n add.s64 %rd11, %rd11, 4096;\n"
    " st.global.v4.u32 [%rd11], {%r10, %r11, %r12, %r13};\n st.global.v4.u32 [%rd11+16], {%r14, %r15, %r16, %r17};\n"
    " st.global.v2.u32 [%rd11+32], {%r18, %r19};\n st.global.v2.u32 [%rd11+40], {%r20, %r21};\n"
    " ret;\n}\n";

static void vmem_same(void)
{
    int on = getenv("TDTRACE_EMU_JIT_VECTOR")[0] == '1';
    same(vmem_types, 1, 64, 16384);
    assert_int_equal(rep.vector, on);
    same(vmem_types, 1, 50, 16384); /* the second warp short of 32: 18 lanes */
    same(vmem_types, 1, 8, 16384);  /* one warp of 8: the second half runs no lane */
    same(vmem_types, 1, 20, 16384); /* one of 20 */
    same(vmem_guard, 1, 64, 16384);
    assert_int_equal(rep.vector, on);
    same(vmem_guard, 1, 45, 16384);
    same(vmem_mix, 1, 64, 16384);
    assert_int_equal(rep.vector, on);
    same(vmem_mix, 1, 40, 16384);
    /* a few values by hand: thread 33 read thread 34's s8 (sign extended), and
     * the guarded lanes kept theirs */
    uint64_t v;
    int8_t b = (int8_t)(uint8_t)(34u * 2654435761u + 0x80808081u);
    same(vmem_types, 1, 64, 16384);
    memcpy(&v, arena + 4608 + 184 * 33, 8);
    assert_int_equal(v, (uint64_t)(int64_t)b);
    same(vmem_guard, 1, 64, 16384);
    uint32_t w[6];
    memcpy(w, arena + 4096 + 32 * 3, sizeof w); /* thread 3: tid % 3 == 0, lane 3 < 16 */
    assert_int_equal(w[0], 77);
    assert_int_equal(w[1], 4u * 2654435761u + 99);
    assert_int_equal(w[2], 4u * 2654435761u + 99);
    assert_int_equal(w[3], 1u * 2654435761u + 99); /* word 1 of the second block */
    assert_int_equal(w[5], 133);
    memcpy(w, arena + 4096 + 32 * 52, sizeof w); /* thread 52: lane 20, guard of lanes < 20 off */
    assert_int_equal(w[1], 88);
    assert_int_equal(w[3], 111);
    assert_int_equal(w[4], 122); /* lane 20: second half, no load */
    memcpy(w, arena + 4096 + 32 * 52 + 24, 4);
    assert_int_equal(w[0], 49u * 2654435761u + 99); /* the second half's word, 1 + 16 * 3 */
}
static void test_vector_mem_same(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vmem_same);
    with_vector("0", vmem_same);
}

/* runs src (grid blocks of block threads) on the interpreter, and on the
 * JIT with and without the vector form: the same status want, text,
 * thread, address, access, line */
static void same_fault_grid(const char *src, unsigned grid, unsigned block, enum ptx_status want, unsigned thread)
{
    char err[3][512];
    struct ptx_fault f[3];
    static const char *const vec[3] = { "1", "0", "1" };
    for (int i = 0; i < 3; i++) {
        setenv("TDTRACE_EMU_JIT_VECTOR", vec[i], 1);
        memset(&fault, 0, sizeof fault);
        enum ptx_status st = run(src, i == 2 ? PTX_ENGINE_INTERP : PTX_ENGINE_JIT, grid, block, err[i], sizeof err[i]);
        if (st != want) fail_msg("run %d: status %d, want %d: %s", i, (int)st, (int)want, err[i]);
        f[i] = fault;
        if (i < 2) {
            assert_int_equal(rep.engine, PTX_ENGINE_JIT);
            assert_int_equal(rep.vector, i == 0);
        }
    }
    setenv("TDTRACE_EMU_JIT_VECTOR", "1", 1);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(err[i], err[2]);
        assert_int_equal(f[i].addr, f[2].addr);
        assert_int_equal(f[i].thread[0], f[2].thread[0]);
        assert_int_equal(f[i].access, f[2].access);
        assert_int_equal(f[i].ptx_line, f[2].ptx_line);
        assert_string_equal(f[i].space, f[2].space);
    }
    assert_int_equal(f[2].thread[0], thread);
}
static void same_fault(const char *src, unsigned block, enum ptx_status want, unsigned thread)
{
    same_fault_grid(src, 1, block, want, thread);
}

/* consecutive addresses that fail the checks: a misaligned base (every
 * lane), the last lane past the end of device memory or of the shared
 * window (a full warp, the last lane of a short one, a .v4), a guarded
 * store whose lanes that run go past the end. The first warp's global
 * accesses go on one by one anyway (the allocation not yet found), so
 * the global ones fail in the second warp */
static void vmem_faults(void)
{
    static const char mis[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " shr.u32 %r2, %r1, 5;\n shl.b32 %r2, %r2, 1;\n cvt.u64.u32 %rd4, %r2;\n add.s64 %rd3, %rd3, %rd4;\n"
        " ld.global.u32 %r2, [%rd3];\n ret;\n}\n"; /* the second warp 2 bytes off */
    same_fault(mis, 64, PTX_E_MISALIGNED, 32);
    static const char mis_sh[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n .shared .align 16 .b8 sh[1024];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r2, sh;\n shl.b32 %r3, %r1, 3;\n add.u32 %r3, %r2, %r3;\n"
        " st.shared.v2.u32 [%r3+4], {%r1, %r1};\n ret;\n}\n";
    same_fault(mis_sh, 32, PTX_E_MISALIGNED, 0);
    static const char last[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " st.global.u32 [%rd3+16256], %r1;\n ret;\n}\n"; /* 16256 = 16384 - 32 * 4: thread 32 of 64 */
    same_fault(last, 64, PTX_E_ADDRESS, 32);
    static const char last_short[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " ld.global.u32 %r2, [%rd3+16232];\n ret;\n}\n"; /* 16384 - 38 * 4: thread 38, the last of 39 */
    same_fault(last_short, 39, PTX_E_ADDRESS, 38);
    static const char last_v4[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 16;\n add.s64 %rd3, %rd1, %rd2;\n"
        " ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd3+15376];\n ret;\n}\n"; /* 16384 - 63 * 16: thread 63 */
    same_fault(last_v4, 64, PTX_E_ADDRESS, 63);
    static const char last_sh[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n .shared .align 16 .b8 sh[4096];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r2, sh;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r2, %r3;\n"
        " ld.shared.u32 %r4, [%r3+3972];\n ret;\n}\n"; /* 4096 - 31 * 4: lane 31 */
    same_fault(last_sh, 32, PTX_E_ADDRESS, 31);
    static const char guarded[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
        " setp.gt.u32 %p1, %r1, 24;\n @%p1 st.global.u32 [%rd3+16276], %r1;\n ret;\n}\n"; /* 16384 - 27 * 4: thread 27 */
    same_fault(guarded, 32, PTX_E_ADDRESS, 27);
    /* the tests of a half's lowest and highest lanes (jit_vec.c,
     * halves_ok): one address a warp, the second warp's past the end or
     * misaligned; consecutive, the first half in the allocation and the
     * second from its end on */
#define BCAST(OFF) HDR \
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n" \
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shr.u32 %r2, %r1, 5;\n mul.wide.u32 %rd2, %r2, " OFF ";\n" \
        " add.s64 %rd3, %rd1, %rd2;\n ld.global.u32 %r3, [%rd3];\n ret;\n}\n"
    static const char bcast_past[] = BCAST("16384"), bcast_mis[] = BCAST("2");
#undef BCAST
    same_fault(bcast_past, 64, PTX_E_ADDRESS, 32);
    same_fault(bcast_mis, 64, PTX_E_MISALIGNED, 32);
    static const char half_past[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n shr.u32 %r2, %r1, 4;\n mul.lo.u32 %r2, %r2, 16320;\n"
        " mad.lo.u32 %r2, %r1, 4, %r2;\n cvt.u64.u32 %rd2, %r2;\n add.s64 %rd3, %rd1, %rd2;\n"
        " st.global.u32 [%rd3], %r1;\n ret;\n}\n"; /* lane 16 at 16320 + 64 = 16384 */
    same_fault(half_past, 32, PTX_E_ADDRESS, 16);
    /* a load of a constant address (jit_vec.c: lane 0's test, as
     * scalars): a parameter past the launch's 8 bytes, and misaligned */
    static const char par_past[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n ld.param.u32 %r1, [out+8];\n ret;\n}\n";
    same_fault(par_past, 64, PTX_E_ADDRESS, 0);
    static const char par_mis[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n ld.param.u32 %r1, [out+2];\n ret;\n}\n";
    same_fault(par_mis, 64, PTX_E_MISALIGNED, 0);
    /* a register of 4 .shared accesses at aligned offsets (its window test
     * is the register's, jit_vec.c): lane 20 past the end, lane 9
     * misaligned; and a 64-bit register that wraps around 2^64 on lanes 0
     * to 15 where register plus offset is in the window (a group's test
     * passes it): the interpreter's bytes */
#define WIN4(PRE) HDR \
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .pred %p<2>;\n .shared .align 16 .b8 sh[1024];\n" \
        " mov.u32 %r1, %tid.x;\n mov.u32 %r2, sh;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r2, %r3;\n" PRE \
        " ld.shared.u32 %r4, [%r3];\n ld.shared.u32 %r5, [%r3+4];\n ld.shared.u32 %r6, [%r3+8];\n" \
        " st.shared.u32 [%r3+12], %r6;\n ret;\n}\n"
    static const char win_last[] = WIN4(" setp.eq.u32 %p1, %r1, 20;\n @%p1 add.u32 %r3, %r3, 1000;\n");
    same_fault(win_last, 32, PTX_E_ADDRESS, 20);
    static const char win_mis[] = WIN4(" setp.eq.u32 %p1, %r1, 9;\n @%p1 add.u32 %r3, %r3, 2;\n");
    same_fault(win_mis, 32, PTX_E_MISALIGNED, 9);
#undef WIN4
    /* the same window test of a 64-bit register, on its lower 32 bits:
     * lane 20's is 2^32 past its place, the same lower half */
    static const char win_hi[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        " .shared .align 16 .b8 sh[1024];\n"
        " mov.u32 %r1, %tid.x;\n mov.u32 %r2, sh;\n shl.b32 %r3, %r1, 2;\n add.u32 %r3, %r2, %r3;\n cvt.u64.u32 %rd3, %r3;\n"
        " setp.eq.u32 %p1, %r1, 20;\n @%p1 add.u64 %rd3, %rd3, 4294967296;\n"
        " ld.shared.u32 %r4, [%rd3];\n ld.shared.u32 %r5, [%rd3+4];\n ld.shared.u32 %r6, [%rd3+8];\n"
        " st.shared.u32 [%rd3+12], %r6;\n ret;\n}\n";
    same_fault(win_hi, 32, PTX_E_ADDRESS, 20);
    static const char win_wrap[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<16>; .reg .b64 %rd<8>;\n .shared .align 16 .b8 sh[1024];\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u64 %rd2, sh;\n mul.wide.u32 %rd3, %r1, 4;\n"
        " add.s64 %rd4, %rd2, %rd3;\n sub.s64 %rd5, %rd4, 64;\n mad.lo.u32 %r2, %r1, 2654435761, 5;\n"
        " st.shared.u32 [%rd5+64], %r2;\n st.shared.u32 [%rd5+192], %r1;\n bar.sync 0;\n"
        " ld.shared.u32 %r3, [%rd5+68];\n ld.shared.u32 %r4, [%rd5+192];\n add.s64 %rd6, %rd1, %rd3;\n"
        " st.global.u32 [%rd6], %r3;\n st.global.u32 [%rd6+128], %r4;\n ret;\n}\n";
    same(win_wrap, 1, 32, 256);
    assert_int_equal(rep.vec_lanes, 32); /* at the first global store only (no allocation found
                                            yet): the shared accesses' groups test their halves'
                                            addresses plus the offsets, in order on the wrapped
                                            lanes too (the register's own window test handed them
                                            over) */
}
static void test_vector_mem_faults(void **state)
{
    (void)state;
    NEED_JIT();
    with_vector("1", vmem_faults);
}

/* a loop for ever ends at the instruction budget; threads at different
 * barriers fail as a deadlock, as on the interpreter */
static void test_limits_and_deadlock(void **state)
{
    (void)state;
    NEED_JIT();
    char err[512];
    budget = 1000000;
    assert_int_equal(run(HDR ".visible .entry k(.param .u64 out)\n{\nL:\n bra L;\n}\n", PTX_ENGINE_JIT, 1, 32, err, sizeof err),
                     PTX_E_TIMEOUT);
    budget = 0;
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    if (!strstr(err, "instruction budget")) fail_msg("%s", err);
    static const char dl[] = HDR
        ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<4>; .reg .pred %p<2>;\n"
        " mov.u32 %r0, %tid.x;\n setp.lt.u32 %p1, %r0, 16;\n @%p1 bra A;\n barrier.sync 0;\n ret;\nA:\n barrier.sync 1;\n ret;\n}\n";
    char err0[512];
    assert_int_equal(run(dl, PTX_ENGINE_INTERP, 1, 64, err0, sizeof err0), PTX_E_DEADLOCK);
    assert_int_equal(run(dl, PTX_ENGINE_JIT, 1, 64, err, sizeof err), PTX_E_DEADLOCK);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_string_equal(err0, err);
}

/* ---- big kernels (the light pipeline) ------------------------------------------- */
/* a generated kernel of n steps (more instructions than the default<O2>
 * pipeline takes, 1,200): a chain of distinct registers as unrolled code
 * has, natives, per-lane handlers (prmt, cvt.rzi), warp shuffles and
 * shared memory between barriers; nregs .b32 registers declared */
static char *big_src(int n, int nregs)
{
    size_t cap = (size_t)n * 200 + 4096;
    char *s = malloc(cap), *p = s;
    assert_non_null(s);
    p += sprintf(p, HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %%r<%d>; .reg .b32 %%s<8>;\n"
                 " .reg .b64 %%rd<8>; .reg .f32 %%f<4>;\n .shared .align 4 .b32 sh[256];\n"
                 " ld.param.u64 %%rd1, [out];\n mov.u32 %%r1, %%tid.x;\n mov.u32 %%r2, %%r1;\n"
                 " mov.u32 %%s1, sh;\n shl.b32 %%s2, %%r1, 2;\n add.u32 %%s3, %%s1, %%s2;\n"
                 " xor.b32 %%s4, %%r1, 1;\n shl.b32 %%s4, %%s4, 2;\n add.u32 %%s5, %%s1, %%s4;\n", nregs);
    for (int i = 0; i < n; i++) {
        int d = 3 + i, a = 2 + i, o = a > 40 ? a - 37 : 1;
        int kind = i % 97 == 96 ? 7 : i % 41 == 40 ? 8 : i % 7;
        switch (kind) {
        case 0: p += sprintf(p, " mad.lo.u32 %%r%d, %%r%d, 1664525, %%r1;\n", d, a); break;
        case 1: p += sprintf(p, " xor.b32 %%r%d, %%r%d, %d;\n", d, a, 0x9e3779 + i); break;
        case 2: p += sprintf(p, " prmt.b32 %%r%d, %%r%d, %%r%d, 0x4321;\n", d, a, o); break;
        case 3: p += sprintf(p, " shl.b32 %%r%d, %%r%d, %d;\n", d, a, i % 5); break;
        case 4: case 5: p += sprintf(p, " add.u32 %%r%d, %%r%d, %%r%d;\n", d, a, o); break;
        case 6:
            p += sprintf(p, " cvt.rn.f32.u32 %%f1, %%r%d;\n mul.rn.f32 %%f2, %%f1, 0f3E800000;\n"
                         " cvt.rzi.u32.f32 %%s6, %%f2;\n add.u32 %%r%d, %%s6, %%r%d;\n", a, d, a);
            break;
        case 7:
            p += sprintf(p, " st.shared.u32 [%%s3], %%r%d;\n bar.sync 0;\n ld.shared.u32 %%r%d, [%%s5];\n bar.sync 0;\n",
                         a, d);
            break;
        default: p += sprintf(p, " shfl.sync.bfly.b32 %%r%d, %%r%d, 1, 31, -1;\n", d, a); break;
        }
    }
    p += sprintf(p, " mul.wide.u32 %%rd2, %%r1, 16;\n add.s64 %%rd3, %%rd1, %%rd2;\n"
                 " st.global.v4.u32 [%%rd3], {%%r%d, %%r%d, %%r%d, %%r3};\n ret;\n}\n", n + 2, n + 1, n / 2);
    assert_true((size_t)(p - s) < cap);
    return s;
}

/* over the old limit of 1,200 instructions: the light pipeline compiles
 * it (the report says so, with the size) and it gives the interpreter's
 * bytes */
static void test_big_kernel(void **state)
{
    (void)state;
    NEED_JIT();
    char *src = big_src(1400, 1500), err[512];
    static unsigned char want[64 * 16];
    assert_int_equal(run(src, PTX_ENGINE_INTERP, 1, 64, err, sizeof err), PTX_OK);
    memcpy(want, arena, sizeof want);
    assert_int_equal(run(src, PTX_ENGINE_JIT, 1, 64, err, sizeof err), PTX_OK);
    if (rep.engine != PTX_ENGINE_JIT) fail_msg("%s", rep.why);
    assert_true(rep.compiled);
    assert_true(rep.light > 1400);
    assert_memory_equal(arena, want, sizeof want);
    int zero = 1;
    for (size_t i = 0; i < sizeof want; i++) zero &= want[i] == 0;
    assert_false(zero);
    free(src);
    /* a small kernel stays with default<O2> */
    assert_int_equal(run(saxpy, PTX_ENGINE_JIT, 1, 32, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_JIT);
    assert_int_equal(rep.light, 0);
}

/* the bounds: more than 100,000 instructions, or more registers than the
 * light pipeline's stack frame holds, run on the interpreter, the reason
 * naming the size */
static void test_big_bounds(void **state)
{
    (void)state;
    NEED_JIT();
    char err[512];
    size_t cap = 100010 * 24 + 4096;
    char *src = malloc(cap), *p = src;
    assert_non_null(src);
    p += sprintf(p, HDR ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %%r<4>; .reg .b64 %%rd<4>;\n"
                 " ld.param.u64 %%rd1, [out];\n mov.u32 %%r1, 0;\n");
    for (int i = 0; i < 100000; i++) p += sprintf(p, " add.u32 %%r1, %%r1, 3;\n");
    p += sprintf(p, " st.global.u32 [%%rd1], %%r1;\n ret;\n}\n");
    assert_int_equal(run(src, PTX_ENGINE_JIT, 1, 1, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
    if (!strstr(rep.why, "the JIT takes kernels of up to 100000 PTX instructions; this one has 100005"))
        fail_msg("%s", rep.why);
    uint32_t v;
    memcpy(&v, arena, 4);
    assert_int_equal(v, 300000);
    free(src);
    src = big_src(1300, 140000);
    assert_int_equal(run(src, PTX_ENGINE_JIT, 1, 32, err, sizeof err), PTX_OK);
    assert_int_equal(rep.engine, PTX_ENGINE_INTERP);
    if (!strstr(rep.why, "the JIT takes big kernels with up to 131072 registers; this one has 14"))
        fail_msg("%s", rep.why);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_llvm), /* first: before this process loads LLVM */
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_default_interp),
        cmocka_unit_test(test_fallback_names_instruction),
        cmocka_unit_test(test_jit_runs),
        cmocka_unit_test(test_same_integer),
        cmocka_unit_test(test_same_float),
        cmocka_unit_test(test_same_barriers),
        cmocka_unit_test(test_warp_shuffle_reduction),
        cmocka_unit_test(test_warp_partial_masks),
        cmocka_unit_test(test_warp_divergent),
        cmocka_unit_test(test_warp_barriers),
        cmocka_unit_test(test_warp_errors),
        cmocka_unit_test(test_warp_refused),
        cmocka_unit_test(test_mma_same),
        cmocka_unit_test(test_ldmatrix_same),
        cmocka_unit_test(test_mma_errors),
        cmocka_unit_test(test_cp_async),
        cmocka_unit_test(test_out_of_bounds),
        cmocka_unit_test(test_limits_and_deadlock),
        cmocka_unit_test(test_vector_uniform),
        cmocka_unit_test(test_vector_off),
        cmocka_unit_test(test_vector_divergent),
        cmocka_unit_test(test_vector_dirty_at_handover),
        cmocka_unit_test(test_vector_partial_warp),
        cmocka_unit_test(test_vector_fault),
        cmocka_unit_test(test_vector_shfl_reduce),
        cmocka_unit_test(test_vector_tree_reduce),
        cmocka_unit_test(test_vector_round),
        cmocka_unit_test(test_vector_regions),
        cmocka_unit_test(test_vector_halves),
        cmocka_unit_test(test_vector_uniform_regs),
        cmocka_unit_test(test_vector_thread_consts),
        cmocka_unit_test_teardown(test_vector_affine, one_row),
        cmocka_unit_test(test_float_raw),
        cmocka_unit_test(test_vector_uniform_copy),
        cmocka_unit_test(test_vector_region_fault),
        cmocka_unit_test(test_vector_region_not),
        cmocka_unit_test(test_vector_lane_atoms),
        cmocka_unit_test(test_atom_native),
        cmocka_unit_test(test_volatile),
        cmocka_unit_test(test_bar_red),
        cmocka_unit_test(test_vector_warp_group),
        cmocka_unit_test(test_activemask),
        cmocka_unit_test(test_vector_shfl_modes),
        cmocka_unit_test(test_vector_shfl_partial),
        cmocka_unit_test(test_vector_mem_same),
        cmocka_unit_test(test_vector_mem_faults),
        cmocka_unit_test_teardown(test_vector_groups, one_row),
        cmocka_unit_test(test_big_kernel),
        cmocka_unit_test(test_big_bounds),
    };
    /* one case by name: PTXJIT_TEST=test_same_barriers build/tests/test_emu_ptxjit */
    const char *only = getenv("PTXJIT_TEST");
    if (only && *only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
