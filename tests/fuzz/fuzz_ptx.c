/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target for the PTX engine (src/ptx): every input is parsed as PTX;
 * when it parses, every entry is checked and, when the checker accepts it,
 * run on 2 blocks of 40 threads with a small instruction budget (so loops
 * end), a 4 KiB device buffer as its only parameter target, and printf
 * output discarded. Any crash, sanitizer report or hang is a bug.
 *
 * libFuzzer: clang -fsanitize=fuzzer,address,undefined ... (the src/ptx sources)
 * Without clang: cc -DTD_FUZZ_STANDALONE -fsanitize=address,undefined ...
 * gives a main that mutates built-in seeds from a fixed random seed:
 *
 *   cc -DTD_FUZZ_STANDALONE -D_GNU_SOURCE -std=c11 -g -O1 -pthread \
 *      -fsanitize=address,undefined -fno-sanitize-recover=undefined \
 *      -o fuzz_ptx tests/fuzz/fuzz_ptx.c src/ptx/[a-z]*.c -lm
 *   ./fuzz_ptx -n 1000000000 -t 300 -s 1 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ptx/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char devmem[4096] __attribute__((aligned(64)));

static int lookup(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    (void)cookie;
    uintptr_t b = (uintptr_t)devmem;
    if (addr < b || addr >= b + sizeof devmem)
        return -1;
    *lo = b;
    *hi = b + sizeof devmem;
    return 0;
}

static void print(void *cookie, const char *t, size_t n)
{
    (void)cookie;
    (void)t;
    (void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char err[256];
    struct ptx_module *m = ptx_parse(text, size, err, sizeof err);
    free(text);
    if (!m)
        return 0;
    /* globals live in the device buffer too */
    uint64_t gaddr[64];
    int ng = ptx_global_count(m);
    for (int i = 0; i < ng && i < 64; i++)
        gaddr[i] = (uint64_t)(uintptr_t)devmem + (ptx_global(m, i)->size <= 64 ? (uint64_t)(64 * (i % 32)) : 0);
    uint64_t params[64];
    for (int i = 0; i < 64; i++)
        params[i] = (uint64_t)(uintptr_t)devmem + 16u * (unsigned)i;
    /* every entry: names from the parser are not exported, so try a few */
    static const char *const names[] = { "k", "k2", "saxpy", "reduce", "main", "cl" };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        int e = ptx_entry_find(m, names[k]);
        if (e < 0 || ng > 64 || ptx_entry_param_bytes(m, e) > sizeof params)
            continue;
        if (ptx_entry_check(m, e, err, sizeof err))
            continue;
        struct ptx_launch l;
        memset(&l, 0, sizeof l);
        l.grid[0] = 2; l.grid[1] = l.grid[2] = 1;
        unsigned cd[3]; /* a required cluster size that fits: two clusters of it */
        if (ptx_entry_cluster(m, e, cd) && cd[0] >= 1 && cd[0] <= 4 && cd[1] == 1 && cd[2] == 1) {
            l.cluster[0] = cd[0];
            l.cluster[1] = l.cluster[2] = 1;
            l.grid[0] = 2 * cd[0];
        }
        l.block[0] = 40; l.block[1] = l.block[2] = 1;
        l.dyn_shared = 64;
        l.params = params;
        l.param_bytes = sizeof params;
        l.gaddr = gaddr;
        l.nthreads = 1;
        l.smcount = 2;
        l.max_instructions = 200000;
        l.host.lookup = lookup;
        l.host.print = print;
        ptx_run(m, e, &l, err, sizeof err);
    }
    ptx_module_free(m);
    return 0;
}

#ifdef TD_FUZZ_STANDALONE
#include <time.h>

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"
static const char *const seeds[] = {
    HDR ".visible .entry k(.param .u64 p, .param .u32 n) {\n .reg .pred %p<3>; .reg .b32 %r<9>; .reg .b64 %rd<5>; .reg .f32 %f<4>;\n"
    " ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x;\n"
    " mad.lo.s32 %r4, %r3, 40, %r2; and.b32 %r4, %r4, 63; mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2;\n"
    " ld.global.f32 %f1, [%rd3]; fma.rn.f32 %f2, %f1, 0f3F800000, 0f40000000; st.global.f32 [%rd3], %f2;\n"
    " setp.lt.u32 %p1, %r2, 16;\n @%p1 bra L1;\n atom.global.add.u32 %r5, [%rd1], 1;\nL1:\n ret;\n}\n",
    HDR ".extern .shared .align 16 .b8 s[];\n.entry k2(.param .u64 p) {\n .reg .b32 %r<9>; .reg .pred %p<3>; .reg .b64 %rd<3>;\n"
    " mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 2; mov.u32 %r3, s; add.s32 %r4, %r3, %r2; and.b32 %r4, %r4, 63;\n"
    " st.shared.u32 [%r4], %r1; bar.sync 0; mov.u32 %r5, 0;\nLOOP:\n ld.shared.u32 %r6, [%r4]; add.s32 %r5, %r5, %r6;\n"
    " shfl.sync.down.b32 %r7|%p2, %r5, 1, 31, -1; vote.sync.ballot.b32 %r8, %p2, -1; bar.sync 0;\n"
    " setp.lt.s32 %p1, %r5, 100;\n @%p1 bra LOOP;\n ret;\n}\n",
    HDR ".global .align 4 .u32 g[4] = {1, 2, 3, 4};\n.const .align 8 .f64 c = 0d3FF0000000000000;\n"
    ".func (.param .b32 r) f(.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; mul.hi.u32 %a, %a, 7; st.param.b32 [r], %a; ret; }\n"
    ".entry main(.param .u64 p) {\n .local .align 8 .b8 d[16]; .reg .b32 %r<5>; .reg .b64 %rd<4>; .reg .f64 %fd<3>;\n"
    " ld.global.u32 %r1, [g+4]; ld.const.f64 %fd1, [c]; cvt.rzi.s32.f64 %r2, %fd1; mov.u64 %rd1, d; cvta.local.u64 %rd2, %rd1;\n"
    " st.local.u32 [%rd1], %r1; { .param .b32 a; st.param.b32 [a], %r2; .param .b32 b; call.uni (b), f, (a); ld.param.b32 %r3, [b]; }\n"
    " prmt.b32 %r4, %r3, %r1, 0x5140; shf.l.wrap.b32 %r4, %r4, %r1, %r3; bfe.s32 %r4, %r4, 3, 5; cvt.rn.f16.f32 %rs1, 0f3F800000; trap;\n}\n",
    /* recursion, an indirect call, named barriers, warp-synchronous and matrix instructions, async copies */
    HDR ".func (.param .b32 r) fact(.param .b32 x);\n.global .align 8 .u64 tab[1] = {fact};\n"
    ".func (.param .b32 r) fact(.param .b32 x) { .reg .b32 %a<3>; .reg .pred %q; ld.param.b32 %a0, [x]; setp.lt.u32 %q, %a0, 2;\n"
    " @%q bra D; sub.u32 %a1, %a0, 1; { .param .b32 y; st.param.b32 [y], %a1; .param .b32 z; call.uni (z), fact, (y); ld.param.b32 %a2, [z]; }\n"
    " mul.lo.u32 %a0, %a0, %a2;\nD:\n st.param.b32 [r], %a0; ret; }\n"
    ".entry reduce(.param .u64 p) {\n .shared .align 16 .b8 sb[256]; .shared .align 8 .b64 mb;\n"
    " .reg .b32 %r<12>; .reg .b64 %rd<6>; .reg .pred %p<4>; .reg .f32 %f<8>; .reg .b16 %h<2>;\n"
    " ld.param.u64 %rd1, [p]; mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 7;\n"
    " ld.global.u64 %rd2, [tab]; { .param .b32 a; st.param.b32 [a], %r2; .param .b32 b; prototype: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "   call (b), %rd2, (a), prototype; ld.param.b32 %r3, [b]; }\n"
    " setp.lt.u32 %p1, %r1, 32; @%p1 bar.sync 1, 32; @!%p1 bar.arrive 2, 64;\n"
    " match.any.sync.b32 %r4, %r2, -1; redux.sync.add.u32 %r5, %r3, -1; activemask.b32 %r6;\n"
    " vabsdiff4.u32.u32.u32 %r7, %r4, %r5, %r6; vshr.u32.u32.u32.clamp.add %r7, %r7, %r2, %r3;\n"
    " mov.b32 %f1, %r7; mov.b32 %f2, %r1; mov.f32 %f3, 0f3F800000; mov.f32 %f4, 0f00000000;\n"
    " mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};\n"
    " cvt.rn.satfinite.e4m3x2.f32 %h1, %f5, %f6;\n"
    " setp.eq.u32 %p2, %r1, 0; @%p2 mbarrier.init.shared.b64 [mb], 1; bar.sync 0;\n"
    " @%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sb], [%rd1], 64, [mb];\n"
    " @%p2 mbarrier.arrive.expect_tx.shared.b64 %rd3, [mb], 64;\n"
    " cp.async.ca.shared.global [sb+128], [%rd1+64], 16; cp.async.wait_all;\n ret;\n}\n",
    /* clusters: the directives, cluster registers, distributed shared memory, the cluster barrier */
    HDR ".entry cl(.param .u64 p) .explicitcluster .reqnctapercluster 2, 1, 1 {\n .shared .align 8 .b32 s[16];\n"
    " .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %cluster_nctarank;\n"
    " mov.u32 %r3, s; add.u32 %r4, %r1, 1; rem.u32 %r4, %r4, %r2; mapa.shared::cluster.u32 %r5, %r3, %r4;\n"
    " barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;\n st.shared::cluster.u32 [%r5+4], %r1;\n"
    " red.shared::cluster.add.u32 [%r5], 1; cvta.shared.u64 %rd1, s; mapa.u64 %rd2, %rd1, 0; getctarank.u64 %r6, %rd2;\n"
    " isspacep.shared::cluster %p1, %rd2; mbarrier.arrive.shared::cluster.b64 _, [%r5+8];\n"
    " fence.acq_rel.cluster; barrier.cluster.arrive; barrier.cluster.wait;\n ret;\n}\n",
};

static const char *const dict[] = {
    "ld.global.u32 %r1, [%rd1];", "st.shared.u32 [%r4], %r1;", "bar.sync 0;", "bra LOOP;", "@%p1 ", "@!%p1 ", "ret;",
    "exit;", "trap;", "call.uni f, ();", ".reg .b32 %q<4>;", "%r", "%rd", "%p", "%tid.x", "%laneid", "[", "]", "{", "}",
    "(", ")", ",", ";", ".u32", ".s64", ".f32", ".f16x2", ".v4", ".v2", ".shared", ".local", ".param", ".global",
    "0f7FC00000", "0d7FF8000000000000", "-1", "2147483648", "99999999999999999999", "0x", "LOOP:", "L1:", "+8", "+-8",
    "atom.global.cas.b32 %r5, [%rd1], 1, 2;", "shfl.sync.idx.b32 %r7, %r5, 31, 31, -1;", "div.s32 %r5, %r5, 0;",
    "cvt.rzi.u8.f32 %r1, %f1;", "mov.u32 %r9, %clock;", ".func g() { call g; ret; }\n", " ", "\n", "//", "/*", "\"",
    "bar.sync 1, 32;", "bar.warp.sync -1;", "bar.warp.sync 0xffff;", "mbarrier.try_wait.parity.shared.b64 %p3, [mb], 0;",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [sb];", ".m16n8k16", ".bf16", ".s8", ".e4m3", ".b1",
    "add.cc.u32 %r1, %r2, %r3;", "addc.u32 %r4, %r5, 0;", ".b3210", ".h10", ".b0", ".v8", ".L2::cache_hint",
    "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];", "tex.a2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f1, %f2, %f2}];",
    "suld.b.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}];", "sust.b.3d.v2.b16.zero [%rd1, {%r1, %r2, %r3, %r3}], {%rs1, %rs2};",
    "txq.width.b32 %r1, [%rd1];", "suq.array_size.b32 %r1, [%rd1];", "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];",
    ".1d", ".3d", ".acube", ".clamp",
    "mapa.shared::cluster.u32 %r5, %r3, 7;", "barrier.cluster.arrive;", "barrier.cluster.wait;", ".shared::cluster",
    "%cluster_ctarank", "%clusterid.x", "getctarank.shared::cluster.u32 %r1, %r2;", ".reqnctapercluster 4, 2, 1",
};

#define FUZZ_NAME "fuzz_ptx"
#include "standalone.h"
#endif
