/* SPDX-License-Identifier: Apache-2.0 */
/* PTX engine: the parser on hand-written PTX (layouts, ranges, initialisers,
 * errors with lines, unsupported instructions), arithmetic corner cases run
 * through the executor (rounding, NaN, saturation, mul.hi, shf, prmt, bfe,
 * half), faults, barriers in loops with divergence, and a driver-API
 * program that loads PTX text and launches kernels. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"
#include "fatbin.h"
#include "../../src/ptx/ptx.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)
#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n"

/* ---- parser ----------------------------------------------------------- */
static void test_parse_layout(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".global .align 4 .u32 tbl[4] = {1, 2, 3, 4};\n"
        ".const .align 8 .f64 c0 = 0d3FF0000000000000;\n"
        ".global .align 1 .b8 msg[3] = {104, 105};\n"
        "// a comment\n/* block\n comment */\n"
        ".visible .entry k(.param .u8 a, .param .u64 b, .param .align 16 .b8 s[24], .param .f32 f)\n"
        ".maxntid 256, 1, 1\n"
        "{\n .reg .b32 %r<100>; .reg .pred %p<3>; .reg .b64 %rd<4>;\n"
        " ld.param.u8 %r99, [a];\n @!%p1 bra $L1;\n$L1:\n ret;\n}\n";
    char err[256];
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    assert_non_null(m);
    int e = ptx_entry_find(m, "k");
    assert_true(e >= 0);
    assert_int_equal(ptx_entry_find(m, "nope"), -1);
    unsigned off[8], size[8];
    assert_int_equal(ptx_entry_params(m, e, off, size, 8), 4);
    assert_int_equal(off[0], 0); assert_int_equal(size[0], 1);
    assert_int_equal(off[1], 8); assert_int_equal(size[1], 8);
    assert_int_equal(off[2], 16); assert_int_equal(size[2], 24);
    assert_int_equal(off[3], 40); assert_int_equal(ptx_entry_param_bytes(m, e), 44);
    assert_int_equal(ptx_global_count(m), 3);
    const struct ptx_global_info *g = ptx_global(m, 0);
    assert_string_equal(g->name, "tbl");
    assert_int_equal(g->size, 16);
    assert_non_null(g->init);
    assert_int_equal(((const uint32_t *)(const void *)g->init)[3], 4);
    g = ptx_global(m, 1);
    assert_true(g->is_const);
    double d;
    memcpy(&d, g->init, 8);
    assert_true(d == 1.0);
    assert_int_equal(ptx_global(m, 2)->init[2], 0);
    assert_int_equal(ptx_entry_check(m, e, err, sizeof err), 0);
    ptx_module_free(m);
}

/* .align after .ptr is the pointee's alignment, not the parameter's: the
 * engine and the image scanner place such parameters the same way */
static void test_param_layout(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".visible .entry k(.param .u32 n, .param .u64 .ptr .global .align 1 p, .param .u64 .ptr .align 2 q,\n"
        " .param .align 16 .b8 s[20], .param .u8 c, .param .f64 d) { ret; }\n";
    static const unsigned want_off[] = { 0, 8, 16, 32, 52, 56 }, want_size[] = { 4, 8, 8, 20, 1, 8 };
    char err[256];
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    if (!m) fail_msg("%s", err);
    unsigned off[8], size[8];
    int e = ptx_entry_find(m, "k");
    assert_int_equal(ptx_entry_params(m, e, off, size, 8), 6);
    for (int i = 0; i < 6; i++) {
        if (off[i] != want_off[i] || size[i] != want_size[i])
            fail_msg("param %d at %u (%u bytes), want %u (%u)", i, off[i], size[i], want_off[i], want_size[i]);
    }
    assert_int_equal(ptx_entry_param_bytes(m, e), 64);
    ptx_module_free(m);
    /* the image scanner agrees */
    struct emu_image img;
    memset(&img, 0, sizeof img);
    assert_int_equal(emu_ptx_parse(src, sizeof src, &img), 0);
    assert_int_equal(img.nentries, 1);
    assert_int_equal(img.entries[0].nparams, 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(img.entries[0].params[i].offset, want_off[i]);
        assert_int_equal(img.entries[0].params[i].size, want_size[i]);
    }
    assert_int_equal(img.entries[0].param_bytes, 64);
    emu_image_free(&img);
    /* one declaration at a time */
    struct ptx_param_layout pl;
    assert_int_equal(ptx_param_decl(".param .u64 .ptr .global .align 1 p", 99, &pl), 0);
    assert_int_equal(pl.size, 8);
    assert_int_equal(pl.align, 8);
    assert_int_equal(pl.namelen, 1);
    assert_int_equal(pl.name[0], 'p');
    assert_int_equal(ptx_param_decl(".param .align 4 .b8 s[6]", 99, &pl), 0);
    assert_int_equal(pl.align, 4);
    assert_int_equal(pl.size, 6);
    assert_int_equal(ptx_param_decl(".param .v2 .f32 v", 99, &pl), 0);
    assert_int_equal(pl.size, 8);
    assert_int_equal(ptx_param_decl(".param .u32", 99, &pl), -1);
    assert_int_equal(ptx_param_decl(".param .align 3 .u32 x", 99, &pl), -1);
    assert_int_equal(ptx_param_decl("garbage", 99, &pl), -1);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct { const char *src; const char *msg; } bad[] = {
        { HDR ".entry k() {\n ret;\n", "unterminated" },
        { HDR ".entry k() {\n bra $nowhere;\n}\n", "unknown label" },
        { HDR ".entry k() {\n .reg .b32 %r<2>;\n add.s32 %r0, %r1;\n}\n", "line 6" },
        { HDR ".bogus 3;\n", "unsupported directive" },
        { HDR ".entry k() {\n .reg .b32 %r<2>;\n ld.global.u32 %r0, %r1;\n}\n", "address" },
        { HDR ".entry k( {", "PTX line 4" },
        { HDR ".global .u32 x = {1, sym};\n", "initializer" },
        /* garbage and truncated text: never a module */
        { "\x7f" "ELF\x02\x01\x01", "line 1: not PTX: it begins with byte 0x7f" },
        { "hello world", "not PTX: it begins with 'hello'" },
        { "", "the text is empty" },
        { ".target sm_90\n.entry k() { ret; }\n", "not .version" },
        { HDR ".entry k() {\n .reg .b32 %r<3>;\n add.s32 %r0, %r1,", "line 6: expected ';' near the end of the text" },
        { HDR ".entry k() {\n ret;\n}\n\xff\xfe", "line 7: unexpected byte 0xff" },
        { HDR ".entry k(.param .u64 p) {\n .reg .b3", "line 5" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        struct ptx_module *m = ptx_parse(bad[i].src, 0, err, sizeof err);
        if (m) fail_msg("case %zu parsed", i);
        if (!strstr(err, bad[i].msg)) fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
    }
    /* unsupported instruction: parses, the checker names it and its line */
    static const char uns[] = HDR ".entry k() {\n .reg .b32 %r<4>;\n mov.u32 %r0, 1;\n"
                              " wgmma.fence.sync.aligned;\n ret;\n}\n"
                              ".entry fine() { ret; }\n";
    char err[256];
    struct ptx_module *m = ptx_parse(uns, 0, err, sizeof err);
    assert_non_null(m);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "k"), err, sizeof err), -1);
    assert_non_null(strstr(err, "wgmma.fence.sync.aligned"));
    assert_non_null(strstr(err, "line 7"));
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "fine"), err, sizeof err), 0);
    ptx_module_free(m);
    /* tensor-map copies: the tile mode runs (reductions too), a prefetch is
     * a hint; the im2col mode and an unknown reduction are refused by their
     * spelling */
    static const char tma[] = HDR
        ".entry t(.param .u64 p) {\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n .shared .align 128 .b8 s[1024];\n"
        " .shared .align 8 .b64 bar;\n mov.u32 %r0, s;\n mov.u32 %r1, bar;\n ld.param.u64 %rd0, [p];\n"
        " cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r0], [%rd0, {%r2, %r3}], [%r1];\n"
        " cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%rd0, {%r2}], [%r0], %rd1;\n"
        " prefetch.tensor.2d.L2.global.tile [%rd0, {%r2, %r3}];\n ret;\n}\n"
        ".entry i(.param .u64 p) {\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n .reg .b16 %h<2>;\n ld.param.u64 %rd0, [p];\n"
        " cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r0], [%rd0, {%r1, %r2, %r3}], [%r1], {%h0};\n"
        " ret;\n}\n"
        ".entry r(.param .u64 p) {\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd0, [p];\n"
        " cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd0, {%r1}], [%r0];\n"
        " cp.reduce.async.bulk.tensor.1d.global.shared::cta.mul.tile.bulk_group [%rd0, {%r1}], [%r0];\n ret;\n}\n"
        ".entry w(.param .u64 p) {\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd0, [p];\n"
        " cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r0], [%rd0, {%r1}], [%r2];\n"
        " ret;\n}\n";
    m = ptx_parse(tma, 0, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "t"), err, sizeof err), 0);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "i"), err, sizeof err), -1);
    assert_non_null(strstr(err, "cp.async.bulk.tensor.3d.shared::cluster.global.im2col"));
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "r"), err, sizeof err), -1);
    assert_non_null(strstr(err, "cp.reduce.async.bulk.tensor.1d.global.shared::cta.mul"));
    /* createpolicy: a policy value, for cache hints that steer nothing here */
    static const char pol[] = HDR ".entry cp(.param .u64 p) {\n .reg .b64 %rd<4>;\n .reg .f32 %f<2>;\n"
        " createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;\n"
        " createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd2, 0.5;\n"
        " ld.param.u64 %rd0, [p];\n ld.global.L2::cache_hint.f32 %f0, [%rd0], %rd1;\n ret;\n}\n";
    struct ptx_module *pm = ptx_parse(pol, 0, err, sizeof err);
    if (!pm) fail_msg("%s", err);
    assert_int_equal(ptx_entry_check(pm, ptx_entry_find(pm, "cp"), err, sizeof err), 0);
    ptx_module_free(pm);
    /* two coordinates for a 2-D copy: refused, not guessed */
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "w"), err, sizeof err), -1);
    ptx_module_free(m);
}

/* ---- executor ------------------------------------------------------------ */
static unsigned char arena[1 << 16] __attribute__((aligned(64)));

static int lookup(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    (void)cookie;
    uintptr_t b = (uintptr_t)arena;
    if (addr < b || addr >= b + sizeof arena) return -1;
    *lo = b;
    *hi = b + sizeof arena;
    return 0;
}

static char printed[4096];
static size_t nprinted;
static void print(void *cookie, const char *t, size_t n)
{
    (void)cookie;
    if (nprinted + n < sizeof printed) { memcpy(printed + nprinted, t, n); nprinted += n; }
}

static struct ptx_fault fault;

/* device malloc for the tests: a bump allocator in arena[48K, 64K) */
static uint64_t heap_next;
static uint64_t heap_alloc(void *cookie, uint64_t size)
{
    (void)cookie;
    uint64_t a = (uint64_t)(uintptr_t)arena + 49152 + heap_next;
    if (heap_next + ((size + 15) & ~15ull) > 16384) return 0;
    heap_next += (size + 15) & ~15ull;
    return a;
}
static unsigned freed;
static void heap_free(void *cookie, uint64_t addr) { (void)cookie; (void)addr; freed++; }

/* launch limits of run(): a kernel that loops for ever ends */
static uint64_t budget = 200000000;
static unsigned time_limit_ms;
static unsigned cluster_x; /* blocks per cluster of run's launches (0: none) */

/* runs entry k(.param .u64 out) of src with the given shape; a failure's
 * details land in fault */
static enum ptx_status run(const char *src, unsigned grid, unsigned block, char *err, size_t errlen)
{
    struct ptx_module *m = ptx_parse(src, 0, err, errlen);
    if (!m) fail_msg("parse: %s", err);
    uint64_t out = (uint64_t)(uintptr_t)arena, gaddr[16];
    for (int i = 0; i < ptx_global_count(m) && i < 16; i++) /* globals: 256 bytes each from arena+32K */
        gaddr[i] = (uint64_t)(uintptr_t)(arena + 32768 + 256 * i);
    for (int i = 0; i < ptx_global_count(m) && i < 16; i++) {
        assert_true(ptx_global(m, i)->size <= 256);
        ptx_global_init(m, i, gaddr, arena + 32768 + 256 * i);
    }
    heap_next = 0;
    struct ptx_launch l = { .grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .dyn_shared = 256, .params = &out,
                            .param_bytes = 8, .gaddr = gaddr, .smcount = 4, .fault = &fault,
                            .max_instructions = budget, .timeout_ms = time_limit_ms,
                            .cluster = { cluster_x, 1, 1 }, .explicit_cluster = cluster_x > 0,
                            .host = { NULL, lookup, print, heap_alloc, heap_free } };
    /* TDTRACE_EMU_ENGINE=jit: the same tests through the JIT (kernels it
     * cannot take run on the interpreter) */
    const char *e = getenv("TDTRACE_EMU_ENGINE");
    l.engine = e && ptx_engine_find(e) > 0 ? ptx_engine_find(e) : PTX_ENGINE_INTERP;
    enum ptx_status st = ptx_run(m, ptx_entry_find(m, "k"), &l, err, errlen);
    ptx_module_free(m);
    return st;
}

static uint32_t out32(int i) { uint32_t v; memcpy(&v, arena + 4 * i, 4); return v; }

/* one instruction sequence leaving its result in %x0 (b64) */
struct arith { const char *body; uint64_t want; };
static const struct arith arith[] = {
    /* NaN results are canonical; min/max ignore NaN; signed zeros */
    { "mov.b32 %w1, 0f7FC00001; add.f32 %w0, %w1, 0f3F800000;", 0x7fffffff },
    { "sqrt.rn.f32 %w0, 0fBF800000;", 0x7fffffff },
    { "min.f32 %w0, 0f7FC00000, 0f3F800000;", 0x3f800000 },
    { "max.f32 %w0, 0f80000000, 0f00000000;", 0x00000000 },
    { "min.f32 %w0, 0f00000000, 0f80000000;", 0x80000000 },
    /* rounding modes */
    { "add.rz.f32 %w0, 0f3F800000, 0f30800000;", 0x3f800000 },
    { "add.rp.f32 %w0, 0f3F800000, 0f30800000;", 0x3f800001 },
    { "add.rm.f32 %w0, 0fBF800000, 0fB0800000;", 0xbf800001 },
    { "mul.rz.f64 %x0, 0d3FF0000000000001, 0d3FF0000000000001;", 0x3ff0000000000002ull },
    { "cvt.rn.f32.f64 %w0, 0d3FF0000001000000;", 0x3f800000 },
    { "cvt.rp.f32.f64 %w0, 0d3FF0000001000000;", 0x3f800001 },
    { "cvt.rni.s32.f32 %w0, 0f40200000;", 2 },
    { "cvt.rni.s32.f32 %w0, 0fC0200000;", 0xfffffffe },
    { "cvt.rzi.s32.f32 %w0, 0fC02CCCCD;", 0xfffffffe },
    { "cvt.rmi.s32.f32 %w0, 0fC02CCCCD;", 0xfffffffd },
    { "cvt.rpi.s32.f32 %w0, 0f40066666;", 3 },
    { "cvt.rn.f32.s32 %w0, 16777217;", 0x4b800000 },
    { "cvt.rz.f32.u32 %w0, 4294967295;", 0x4f7fffff },
    /* float -> int saturates, NaN -> 0 */
    { "cvt.rzi.s32.f32 %w0, 0f7FC00000;", 0 },
    { "cvt.rzi.s32.f32 %w0, 0f60AD78EC;", 0x7fffffff },
    { "cvt.rzi.s32.f32 %w0, 0fE0AD78EC;", 0x80000000 },
    { "cvt.rzi.u32.f32 %w0, 0fC0A00000;", 0 },
    { "cvt.rzi.u8.f32 %w0, 0f43C80000;", 255 },
    { "cvt.rzi.s64.f64 %x0, 0dC3E0000000000001;", 0x8000000000000000ull },
    /* integer saturation and conversion */
    { "cvt.sat.u8.s32 %w0, 300;", 255 },
    { "cvt.sat.u8.s32 %w0, -5;", 0 },
    { "cvt.sat.s8.s32 %w0, -200;", 0x80 },
    { "cvt.s64.s32 %x0, -7;", 0xfffffffffffffff9ull },
    { "cvt.u64.u32 %x0, -7;", 0xfffffff9ull },
    { "cvt.sat.f32.f32 %w0, 0f3FC00000;", 0x3f800000 },
    { "cvt.sat.f32.f32 %w0, 0fBF000000;", 0 },
    { "add.sat.s32 %w0, 2147483647, 1;", 0x7fffffff },
    { "sub.sat.s32 %w0, -2147483648, 1;", 0x80000000 },
    /* mul.hi / mul.wide / mad */
    { "mul.hi.u32 %w0, -1, -1;", 0xfffffffe },
    { "mul.hi.s32 %w0, -2147483648, 2;", 0xffffffff },
    { "mul.hi.u64 %x0, -1, -1;", 0xfffffffffffffffeull },
    { "mul.hi.s64 %x0, -1, -1;", 0 },
    { "mul.wide.s32 %x0, -3, 4;", 0xfffffffffffffff4ull },
    { "mul.wide.u32 %x0, -1, 2;", 0x1fffffffeull },
    { "mad.lo.s32 %w0, 3, 4, 5;", 17 },
    { "mad.wide.u32 %x0, 65536, 65536, 7;", 0x100000007ull },
    /* division corner cases do not trap */
    { "div.s32 %w0, -2147483648, -1;", 0x80000000 },
    { "div.u32 %w0, 5, 0;", 0xffffffff },
    { "rem.s32 %w0, -7, 3;", 0xffffffff },
    /* shifts clamp */
    { "shl.b32 %w0, 1, 40;", 0 },
    { "shr.s32 %w0, -8, 40;", 0xffffffff },
    { "shr.u32 %w0, -8, 29;", 7 },
    /* funnel shifts */
    { "shf.l.wrap.b32 %w0, -2147483647, 3, 33;", 7 },
    { "shf.l.clamp.b32 %w0, -2147483647, 3, 40;", 0x80000001 },
    { "shf.r.wrap.b32 %w0, -2147483647, 3, 4;", 0x38000000 },
    { "shf.r.clamp.b32 %w0, 1, 3, 40;", 3 },
    /* byte permute, bit fields, bit counts */
    { "prmt.b32 %w0, 0x33221100, 0x77665544, 0x5140;", 0x55114400 },
    { "prmt.b32 %w0, 0xf0, 0, 0x8;", 0xf0f0f0ff },
    { "prmt.b32.f4e %w0, 0x33221100, 0x77665544, 1;", 0x44332211 },
    { "prmt.b32.b4e %w0, 0x33221100, 0x77665544, 0;", 0x55667700 },
    { "prmt.b32.rc16 %w0, 0x33221100, 0x77665544, 1;", 0x33223322 },
    { "prmt.b32.ecr %w0, 0x33221100, 0x77665544, 2;", 0x22221100 },
    /* cvt.pack.sat: b low, a above it, then c; griddepcontrol is a no-op */
    { "cvt.pack.sat.s8.s32.b32 %w0, 300, -300, 0x1234; griddepcontrol.wait; griddepcontrol.launch_dependents;", 0x12347f80 },
    { "cvt.pack.sat.u16.s32 %w0, -5, 70000;", 0x0000ffff },
    { "cvt.pack.sat.u4.s32.b32 %w0, 3, 20, 0xabc;", 0xabc3f },
    { "mov.b64 %x0, -9223372036854775808;", 0x8000000000000000ull }, /* its negation overflows int64 */
    /* video instructions */
    { "vshr.u32.u32.u32.clamp.add %w0, 0x80000000, 40, 5;", 5 },
    { "vshl.u32.u32.u32.wrap %w0, 1, 33;", 2 },
    { "vabsdiff4.u32.u32.u32 %w0, 0x01ff1020, 0x02001030, 0;", 0x01ff0010 },
    { "vadd.u32.u32.u32.sat %w0.b1, 0xf0, 0x20, 0x11223344;", 0x1122ff44 },
    { "vsub.s32.s32.s32.sat.max %w0, 0x80000000, 1, -5;", 0xfffffffb },
    { "vset2.s32.s32.lt %w0, 0xffff0001, 0x00010000, 0;", 0x00010000 },
    { "vavrg4.u32.u32.u32 %w0.b30, 0x03000001, 0x04000002, 0x00777700;", 0x04777702 },
    { "bfe.s32 %w0, 0xf0, 4, 4;", 0xffffffff },
    { "bfe.u32 %w0, 0xf0, 4, 4;", 0xf },
    { "bfe.u32 %w0, 0xf0, 4, 0;", 0 },
    { "bfi.b32 %w0, 0xf, 0x10000, 8, 4;", 0x10f00 },
    { "brev.b32 %w0, 1;", 0x80000000 },
    { "clz.b32 %w0, 0;", 32 },
    { "clz.b64 %w0, 1;", 63 },
    { "popc.b64 %w0, -1;", 64 },
    { "lop3.b32 %w0, 0xf0, 0xcc, 0xaa, 0x96;", 0x96 },
    /* compares with NaN, selp */
    { "setp.lt.f32 %p1, 0f7FC00000, 0f3F800000; selp.u32 %w0, 1, 2, %p1;", 2 },
    { "setp.ltu.f32 %p1, 0f7FC00000, 0f3F800000; selp.u32 %w0, 1, 2, %p1;", 1 },
    { "setp.lt.s32 %p1, -1, 1; selp.u32 %w0, 1, 2, %p1;", 1 },
    { "setp.lo.u32 %p1, -1, 1; selp.u32 %w0, 1, 2, %p1;", 2 },
    { "setp.gt.u32.and %p1|%p2, 2, 1, %p3; selp.u32 %w0, 1, 2, %p2;", 2 },
    /* half and bfloat16 */
    { "cvt.rn.f16.f32 %h0, 0f3F800000; cvt.u32.u16 %w0, %h0;", 0x3c00 },
    { "cvt.rn.f16.f32 %h0, 0f477FF000; cvt.u32.u16 %w0, %h0;", 0x7c00 },
    { "cvt.rn.f16.f32 %h0, 0f33000000; cvt.u32.u16 %w0, %h0;", 0x0000 },
    { "cvt.rn.f16.f32 %h0, 0f33000001; cvt.u32.u16 %w0, %h0;", 0x0001 },
    { "cvt.f32.f16 %w0, 0x3555;", 0x3eaaa000 },
    { "cvt.rn.bf16.f32 %h0, 0f3F808000; cvt.u32.u16 %w0, %h0;", 0x3f80 },
    { "cvt.rn.bf16.f32 %h0, 0f3F818000; cvt.u32.u16 %w0, %h0;", 0x3f82 },
    { "mov.b32 %w1, 0x3c004000; add.f16x2 %w0, %w1, %w1;", 0x40004400 },
    { "fma.rn.f16 %h0, 0x3c00, 0x4000, 0x3800; cvt.u32.u16 %w0, %h0;", 0x4100 },
    /* transcendental approximations, within PTX's error */
    { "ex2.approx.f32 %w0, 0f40400000;", 0x41000000 },
    { "lg2.approx.f32 %w0, 0f41000000;", 0x40400000 },
    { "rcp.rn.f32 %w0, 0f40000000;", 0x3f000000 },
    { "rsqrt.approx.f32 %w0, 0f40800000;", 0x3f000000 },
    { "abs.s32 %w0, -5;", 5 },
    { "neg.f32 %w0, 0f3F800000;", 0xbf800000 },
    { "mov.b64 %x1, 0x1122334455667788; mov.b64 {%w1, %w2}, %x1; mov.b64 %x0, {%w2, %w1};", 0x5566778811223344ull },
    { "testp.notanumber.f32 %p1, 0f7FC00000; selp.u32 %w0, 1, 2, %p1;", 1 },
    { "copysign.f32 %w0, 0fBF800000, 0f40000000;", 0xc0000000 },
    /* carry chains: 64-bit sums and products from 32-bit parts */
    { "add.cc.u32 %w1, -1, 1; addc.u32 %w0, 0, 0;", 1 },
    { "add.cc.u32 %w1, -1, 1; addc.cc.u32 %w2, -1, 0; addc.u32 %w0, 0, 0;", 1 },
    { "add.cc.u32 %w1, 5, 1; addc.u32 %w0, 7, 0;", 7 },
    { "sub.cc.u32 %w1, 0, 1; subc.u32 %w0, 5, 0;", 4 },
    { "sub.cc.u32 %w1, 1, 0; subc.u32 %w0, 5, 0;", 5 },
    { "mad.lo.cc.u32 %w1, -1, -1, -1; madc.hi.u32 %w0, -1, -1, 0;", 0xffffffff },
    { "mad.lo.cc.u32 %w1, -1, -1, 1; madc.hi.u32 %w0, -1, -1, 0;", 0xfffffffe },
    { "add.cc.u64 %x1, -1, 1; addc.u64 %x0, 0, 0;", 1 },
    { "sub.cc.u64 %x1, 0, 1; subc.cc.u64 %x2, 0, 0; addc.u64 %x0, 0, 0;", 1 },
    /* bit fields and counts */
    { "bfind.u32 %w0, 16;", 4 },
    { "bfind.s32 %w0, -1;", 0xffffffff },
    { "bfind.s32 %w0, -2;", 0 },
    { "bfind.shiftamt.u32 %w0, 1;", 31 },
    { "bfind.u64 %w0, 0x10000000000;", 40 },
    { "bfind.u32 %w0, 0;", 0xffffffff },
    { "bmsk.wrap.b32 %w0, 1, 2;", 6 },
    { "bmsk.clamp.b32 %w0, 0, 32;", 0xffffffff },
    { "bmsk.wrap.b32 %w0, 0, 32;", 0 },
    { "bmsk.clamp.b32 %w0, 32, 4;", 0 },
    { "szext.wrap.u32 %w0, -1, 0;", 0 },
    { "szext.clamp.s32 %w0, 0x80, 8;", 0xffffff80 },
    { "szext.clamp.s32 %w0, 5, 40;", 5 },
    { "szext.wrap.u32 %w0, 0x1ff, 4;", 0xf },
    { "fns.b32 %w0, 0xaaaaaaaa, 2, -1;", 1 },
    { "fns.b32 %w0, 0xaaaaaaaa, 3, 1;", 3 },
    { "fns.b32 %w0, 0xaaaaaaaa, 2, 1;", 3 },
    { "fns.b32 %w0, 0xaaaaaaaa, 31, 2;", 0xffffffff },
    /* dot products */
    { "dp4a.u32.u32 %w0, 0x01020304, 0x01010101, 10;", 20 },
    { "dp4a.s32.s32 %w0, 0xff, 2, 0;", 0xfffffffe },
    { "dp4a.s32.u32 %w0, 0xff, 0xff, 1;", 0xffffff02 },
    { "dp2a.lo.u32.u32 %w0, 0x00020001, 0x00000403, 0;", 11 },
    { "dp2a.hi.s32.s32 %w0, 0x0002ffff, 0x04030000, 0;", 5 },
    /* one rounding from f64 to f16 (not through f32) */
    { "cvt.rn.f16.f64 %h0, 0d3FF0020000001000; cvt.u32.u16 %w0, %h0;", 0x3c01 },
    { "cvt.rn.f16.f64 %h0, 0d3FF0020000000000; cvt.u32.u16 %w0, %h0;", 0x3c00 },
    { "cvt.rz.f16.f64 %h0, 0d40EFFFFFFFFFFFFF; cvt.u32.u16 %w0, %h0;", 0x7bff },
    { "cvt.rn.f16.f64 %h0, 0d40EFFE0000000000; cvt.u32.u16 %w0, %h0;", 0x7c00 },
    { "cvt.rm.f16.f32 %h0, 0fBF801000; cvt.u32.u16 %w0, %h0;", 0xbc01 },
    { "cvt.rp.f16.f32 %h0, 0f3F801000; cvt.u32.u16 %w0, %h0;", 0x3c01 },
    { "cvt.rn.bf16.f64 %h0, 0d3FF0100000000001; cvt.u32.u16 %w0, %h0;", 0x3f81 },
    { "cvt.rn.f16.u32 %h0, 2049; cvt.u32.u16 %w0, %h0;", 0x6800 },
    { "cvt.rn.f16.u32 %h0, 2051; cvt.u32.u16 %w0, %h0;", 0x6802 },
    { "cvt.rn.f16.f64 %h0, 0d3E70000000000000; cvt.u32.u16 %w0, %h0;", 0x0001 }, /* 2^-24: subnormal */
    /* NaN to integers: 0, or 1 << (bits - 1) from f64 or to 64 bits (PTX ISA, cvt) */
    { "cvt.rzi.s32.f64 %w0, 0d7FF8000000000000;", 0x80000000 },
    { "cvt.rzi.u32.f64 %w0, 0d7FF8000000000000;", 0x80000000 },
    { "cvt.rzi.s64.f32 %x0, 0f7FC00000;", 0x8000000000000000ull },
    { "cvt.rzi.u16.f32 %w0, 0f7FC00000;", 0 },
    /* .relu: NaN becomes the canonical NaN; .sat: +0; .satfinite: finite */
    { "cvt.rn.relu.f16.f32 %h0, 0f7FC12345; cvt.u32.u16 %w0, %h0;", 0x7fff },
    { "cvt.rn.relu.f16.f32 %h0, 0fC0000000; cvt.u32.u16 %w0, %h0;", 0 },
    { "cvt.rn.relu.bf16x2.f32 %w0, 0f7FC00001, 0fBF800000;", 0x7fff0000 },
    { "cvt.rn.satfinite.f16.f32 %h0, 0f47800000; cvt.u32.u16 %w0, %h0;", 0x7bff },
    { "cvt.rn.f16.f32 %h0, 0f477FE000; cvt.u32.u16 %w0, %h0;", 0x7bff }, /* 65504: the largest half, not infinity */
    { "cvt.rn.f16.f32 %h0, 0f477FEFFF; cvt.u32.u16 %w0, %h0;", 0x7bff },
    { "cvt.rn.f16.f32 %h0, 0f477FF000; cvt.u32.u16 %w0, %h0;", 0x7c00 }, /* 65520 */
    /* fp8 pairs: a to the high byte; .satfinite; back to f16x2 */
    { "cvt.rn.satfinite.e4m3x2.f32 %h0, 0f43E00000, 0f44800000; cvt.u32.u16 %w0, %h0;", 0x7e7e }, /* 448, 1024 */
    { "cvt.rn.satfinite.e5m2x2.f32 %h0, 0fBF800000, 0f7FC00000; cvt.u32.u16 %w0, %h0;", 0xbc7f },
    { "cvt.rn.satfinite.e4m3x2.f16x2 %h0, 0x3c00bc00; cvt.u32.u16 %w0, %h0;", 0x38b8 },
    { "cvt.rn.f16x2.e4m3x2 %w0, 0x7f01;", 0x7fff1800 }, /* NaN; 2^-9 */
    { "fma.rn.sat.f16 %h0, 0x7e00, 0x3c00, 0x3c00; cvt.u32.u16 %w0, %h0;", 0 },
    { "fma.rn.relu.f16 %h0, 0x7e01, 0x3c00, 0x3c00; cvt.u32.u16 %w0, %h0;", 0x7fff },
    /* tf32 */
    { "cvt.rna.tf32.f32 %w0, 0f3F801000;", 0x3f802000 },
    { "cvt.rn.tf32.f32 %w0, 0f3F801000;", 0x3f800000 },
    { "cvt.rn.tf32.f32 %w0, 0f3F803000;", 0x3f804000 },
    { "cvt.rz.tf32.f32 %w0, 0f3F801FFF;", 0x3f800000 },
    /* min/max with .NaN and .xorsign.abs */
    { "min.NaN.f32 %w0, 0f7FC00000, 0f3F800000;", 0x7fffffff },
    { "max.xorsign.abs.f32 %w0, 0fC0000000, 0f40400000;", 0xc0400000 },
    { "min.xorsign.abs.f32 %w0, 0fC0000000, 0fC0400000;", 0x40000000 },
};

static void test_arith(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof arith / sizeof *arith; i++) {
        char src[2048], err[256];
        snprintf(src, sizeof src, HDR ".entry k(.param .u64 out) {\n"
                 " .reg .b64 %%x<4>; .reg .b32 %%w<4>; .reg .b16 %%h<4>; .reg .pred %%p<4>; .reg .b64 %%o;\n"
                 " ld.param.u64 %%o, [out];\n mov.b64 %%x0, 0;\n mov.b32 %%w0, 0;\n"
                 " %s\n"
                 " cvt.u64.u32 %%x2, %%w0;\n or.b64 %%x0, %%x0, %%x2;\n st.global.u64 [%%o], %%x0;\n ret;\n}\n",
                 arith[i].body);
        memset(arena, 0xee, 8);
        enum ptx_status st = run(src, 1, 1, err, sizeof err);
        if (st != PTX_OK) fail_msg("'%s': status %d: %s", arith[i].body, st, err);
        uint64_t got;
        memcpy(&got, arena, 8);
        if (got != arith[i].want)
            fail_msg("'%s' = 0x%llx, want 0x%llx", arith[i].body, (unsigned long long)got, (unsigned long long)arith[i].want);
    }
}

/* Each entry lays out the .shared variables it (and what it calls) uses,
 * in declaration order from offset 0, as ptxas does; the dynamic shared
 * memory follows them, 16-aligned. Here a (unused, before the others) takes
 * no room: b at 0, c at 40, the dynamic at 48, 256 bytes of it (run()).
 * A variable's address with an addend keeps its variable (b-4 is 4 bytes
 * below b, not in the variable before it; dyn-4 4 bytes below the dynamic
 * memory); c+8 is the dynamic memory's first word; what no thread wrote
 * reads 0. */
static void test_shared_layout(void **state)
{
    (void)state;
    char err[256];
    static const char src[] = HDR
        ".shared .align 4 .b8 a[1000];\n"
        ".shared .align 16 .b8 b[40];\n"
        ".shared .align 8 .b8 c[8];\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".entry other() { st.shared.u32 [a], 1; ret; }\n"
        ".entry k(.param .u64 out)\n{\n .reg .b64 %o; .reg .b32 %r<10>;\n ld.param.u64 %o, [out];\n"
        " mov.u32 %r1, b; st.global.u32 [%o], %r1;\n"
        " mov.u32 %r2, c+4; st.global.u32 [%o+4], %r2;\n"
        " mov.u32 %r3, dyn; st.global.u32 [%o+8], %r3;\n"
        " mov.u32 %r4, %total_smem_size; st.global.u32 [%o+12], %r4;\n"
        " mov.u32 %r5, b-4; st.global.u32 [%o+16], %r5;\n"
        " st.shared.u32 [c+8], 77; ld.shared.u32 %r6, [dyn]; st.global.u32 [%o+20], %r6;\n"
        " ld.shared.u32 %r7, [b+12]; st.global.u32 [%o+24], %r7;\n"
        " add.u32 %r8, %r1, 300; st.shared.u32 [%r8], 5;\n" /* the window's last word: 300 */
        " mov.u32 %r9, dyn-4; st.global.u32 [%o+28], %r9;\n"
        " ret;\n}\n";
    memset(arena, 0xee, 64);
    enum ptx_status st = run(src, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("status %d: %s", st, err);
    static const uint32_t want[] = { 0, 44, 48, 48 + 256, 0xfffffffcu, 77, 0, 44 };
    for (int i = 0; i < 8; i++)
        if (out32(i) != want[i]) fail_msg("word %d: 0x%x, want 0x%x", i, out32(i), want[i]);
    /* a word past the window (304) */
    char bad[sizeof src + 16];
    char *at = strstr(memcpy(bad, src, sizeof src), "300;");
    memcpy(at, "304;", 4);
    assert_int_equal(run(bad, 1, 32, err, sizeof err), PTX_E_ADDRESS);
    assert_string_equal(fault.space, "shared");
    assert_int_equal(fault.addr, 304);
    /* an addend outside 32 bits is refused */
    struct ptx_module *m = ptx_parse(HDR ".shared .b8 s[4];\n.entry k() {\n .reg .b32 %r;\n mov.u32 %r, s+4294967296;\n ret;\n}\n",
                                     0, err, sizeof err);
    assert_null(m);
    if (!strstr(err, "line 7: bad source operand")) fail_msg("%s", err);
}

static void test_faults(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(run(HDR ".entry k(.param .u64 out) { .reg .b64 %a; mov.b64 %a, 16; st.global.u32 [%a], 1; ret; }\n",
                         1, 1, err, sizeof err), PTX_E_ADDRESS);
    assert_non_null(strstr(err, "illegal global write of 4 bytes at address 0x10 at PTX line 4 in block (0,0,0), thread (0,0,0)"));
    assert_int_equal(fault.status, PTX_E_ADDRESS);
    assert_string_equal(fault.kernel, "k");
    assert_int_equal(fault.access, PTX_ACCESS_WRITE);
    assert_string_equal(fault.space, "global");
    assert_int_equal(fault.addr, 16);
    assert_int_equal(fault.size, 4);
    assert_int_equal(fault.ptx_line, 4);
    assert_string_equal(fault.opcode, "st.global.u32");
    assert_int_equal(run(HDR ".entry k(.param .u64 out) { .reg .b64 %a; ld.param.u64 %a, [out];\n st.global.u32 [%a+2], 1; ret; }\n",
                         1, 1, err, sizeof err), PTX_E_MISALIGNED);
    assert_int_equal(run(HDR ".entry k(.param .u64 out) { .reg .pred %p; .reg .b32 %r;\n mov.u32 %r, %tid.x;\n"
                         " setp.eq.u32 %p, %r, 77;\n @%p trap;\n ret; }\n", 2, 128, err, sizeof err), PTX_E_TRAP);
    assert_non_null(strstr(err, "trap at PTX line 7 in block ("));
    assert_non_null(strstr(err, "), thread (77,0,0)"));
    assert_true(fault.has_thread);
    assert_true(fault.block[0] < 2); /* both blocks trap: either may be first */
    assert_int_equal(fault.thread[0], 77);
    assert_int_equal(fault.warp, 2);
    assert_int_equal(fault.lane, 13);
    /* line info from .loc and .file (which comes after the code) */
    assert_int_equal(run(HDR ".entry k(.param .u64 out) { .reg .b64 %a; ld.param.u64 %a, [out];\n"
                         " .reg .b32 %r<3>;\n.loc 1 42 7\n ld.global.v2.u32 {%r1, %r2}, [%a+65536]; ret; }\n.file 1 \"dir/k.cu\", 0, 0\n",
                         1, 1, err, sizeof err), PTX_E_ADDRESS);
    assert_non_null(strstr(err, "illegal global read of 8 bytes at address 0x"));
    if (!strstr(err, "at PTX line 7 (dir/k.cu:42)")) fail_msg("%s", err);
    assert_string_equal(fault.file, "dir/k.cu");
    assert_int_equal(fault.line, 42);
    assert_int_equal(fault.column, 7);
    assert_int_equal(fault.access, PTX_ACCESS_READ);
    assert_int_equal(run(HDR ".entry k(.param .u64 out) { .shared .b8 s[16]; .reg .b32 %r; st.shared.u32 [s+272], 1; ret; }\n",
                         1, 1, err, sizeof err), PTX_E_ADDRESS);
    /* the entry's own window (test_shared_layout): 16 bytes of s, 256
     * dynamic; another entry's 4096 bytes are not in it */
    assert_int_equal(run(HDR ".shared .b8 other[4096];\n.entry k(.param .u64 out) { .shared .b8 s[16]; st.shared.u32 [s+272], 1; ret; }\n"
                         ".entry o() { st.shared.u32 [other], 1; ret; }\n",
                         1, 1, err, sizeof err), PTX_E_ADDRESS);
    assert_int_equal(fault.addr, 272);
    /* recursion without end: the stack runs out */
    assert_int_equal(run(HDR ".func f() { call f; ret; }\n.entry k(.param .u64 out) { call f; ret; }\n", 1, 1, err, sizeof err),
                     PTX_E_STACK);
    assert_non_null(strstr(err, "call stack deeper than 1024 frames at PTX line 4 in block (0,0,0), thread (0,0,0)"));
}

/* barriers in a loop with divergent work between them, shared atomics,
 * and a warp shuffle after reconvergence: out[0] = sum over rounds */
static void test_barrier_loop(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".entry k(.param .u64 out) {\n"
        " .shared .align 4 .b32 acc[1];\n .reg .b32 %r<10>; .reg .pred %p<4>; .reg .b64 %o;\n"
        " ld.param.u64 %o, [out];\n mov.u32 %r0, %tid.x;\n mov.u32 %r1, 0;\n"
        " setp.ne.u32 %p1, %r0, 0;\n @%p1 bra SKIP0;\n st.shared.u32 [acc], 0;\nSKIP0:\n bar.sync 0;\n"
        "LOOP:\n and.b32 %r2, %r0, 1;\n setp.eq.u32 %p2, %r2, 0;\n @%p2 bra EVEN;\n"
        " atom.shared.add.u32 %r3, [acc], 1;\n bra JOIN;\nEVEN:\n atom.shared.add.u32 %r3, [acc], 2;\nJOIN:\n"
        " bar.sync 0;\n add.u32 %r1, %r1, 1;\n setp.lt.u32 %p3, %r1, 5;\n @%p3 bra LOOP;\n"
        " shfl.sync.bfly.b32 %r4, %r0, 1, 31, -1;\n xor.b32 %r5, %r0, 1;\n setp.ne.u32 %p1, %r4, %r5;\n"
        " @%p1 trap;\n setp.ne.u32 %p1, %r0, 0;\n @%p1 bra END;\n ld.shared.u32 %r6, [acc];\n st.global.u32 [%o], %r6;\n"
        "END:\n ret;\n}\n";
    char err[256];
    memset(arena, 0, 64);
    assert_int_equal(run(src, 3, 96, err, sizeof err), PTX_OK);
    uint32_t got;
    memcpy(&got, arena, 4);
    assert_int_equal(got, 5 * (48 * 1 + 48 * 2));
}

static void test_printf_calls(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
        ".global .align 1 .b8 fmt[14] = {118, 61, 37, 100, 32, 37, 46, 49, 102, 32, 37, 115, 10};\n"
        ".global .align 1 .b8 str[3] = {111, 107};\n"
        ".func (.param .b32 r) twice(.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; shl.b32 %a, %a, 1; st.param.b32 [r], %a; ret; }\n"
        ".entry k(.param .u64 out) {\n .local .align 8 .b8 depot[24];\n .reg .b64 %rd<8>; .reg .b32 %r<4>;\n"
        " mov.u64 %rd1, depot;\n cvta.local.u64 %rd2, %rd1;\n"
        " { .param .b32 p0; st.param.b32 [p0], 21; .param .b32 r0; call.uni (r0), twice, (p0); ld.param.b32 %r1, [r0]; }\n"
        " st.local.u32 [%rd1], %r1;\n mov.b64 %rd3, 0d4004000000000000;\n st.local.u64 [%rd1+8], %rd3;\n"
        " mov.u64 %rd4, str;\n cvta.global.u64 %rd4, %rd4;\n st.local.u64 [%rd1+16], %rd4;\n"
        " mov.u64 %rd5, fmt;\n cvta.global.u64 %rd5, %rd5;\n"
        " { .param .b64 a0; st.param.b64 [a0], %rd5; .param .b64 a1; st.param.b64 [a1], %rd2; .param .b32 rv;\n"
        "   call.uni (rv), vprintf, (a0, a1); ld.param.b32 %r2, [rv]; }\n"
        " ld.param.u64 %rd6, [out];\n st.global.u32 [%rd6], %r2;\n"
        /* no arguments: 0 */
        " { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b64 a1; st.param.b64 [a1], 0; .param .b32 rv;\n"
        "   call.uni (rv), vprintf, (a0, a1); ld.param.b32 %r3, [rv]; }\n st.global.u32 [%rd6+4], %r3;\n ret;\n}\n";
    char err[256];
    nprinted = 0;
    memset(arena, 0xee, 8);
    assert_int_equal(run(src, 1, 2, err, sizeof err), PTX_OK);
    printed[nprinted] = 0;
    assert_string_equal(printed, "v=42 2.5 ok\nv=42 2.5 ok\nokok"); /* a warp: each call for both lanes */
    assert_int_equal(out32(0), 3); /* CUDA's printf returns the arguments it parsed */
    assert_int_equal(out32(1), 0);
}

/* ---- dynamic parallelism (devrt.c) --------------------------------------------- */
#define DEVRT_DECLS \
    ".extern .func (.param .b64 rv) __cudaCDP2GetParameterBufferV2 (.param .b64 f, .param .align 4 .b8 g[12], " \
    ".param .align 4 .b8 b[12], .param .b32 s);\n" \
    ".extern .func (.param .b32 rv) __cudaCDP2LaunchDeviceV2 (.param .b64 p, .param .b64 s);\n" \
    ".extern .func (.param .b32 rv) __cudaCDP2GetLastError ();\n" \
    ".extern .func (.param .b32 rv) __cudaCDP2Memcpy3DAsync (.param .b64 p, .param .b64 s);\n"
/* GetParameterBufferV2 of fn (a register or name) with block threads into %rd<buf> */
#define DEVRT_BUF(fn, block, buf) \
    " { .param .b64 f; st.param.b64 [f], " fn "; .param .align 4 .b8 g[12]; st.param.b32 [g], 1; st.param.b32 [g+4], 1;" \
    " st.param.b32 [g+8], 1; .param .align 4 .b8 b[12]; st.param.b32 [b], " block "; st.param.b32 [b+4], 1;" \
    " st.param.b32 [b+8], 1; .param .b32 s; st.param.b32 [s], 0; .param .b64 rv;" \
    " call.uni (rv), __cudaCDP2GetParameterBufferV2, (f, g, b, s); ld.param.b64 " buf ", [rv]; }\n"
#define DEVRT_LAUNCH(buf, res) \
    " { .param .b64 p; st.param.b64 [p], " buf "; .param .b64 s; st.param.b64 [s], 0; .param .b32 rv;" \
    " call.uni (rv), __cudaCDP2LaunchDeviceV2, (p, s); ld.param.b32 " res ", [rv]; }\n"
#define DEVRT_LASTERR(res) \
    " { .param .b32 rv; call.uni (rv), __cudaCDP2GetLastError, (); ld.param.b32 " res ", [rv]; }\n"

static void test_dynamic_parallelism(void **state)
{
    (void)state;
    static const char src[] = HDR DEVRT_DECLS
        ".func helper() { ret; }\n"
        ".entry child(.param .u64 p, .param .u32 v) {\n .reg .b64 %rd<4>; .reg .b32 %r<4>;\n"
        " ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [v]; mov.u32 %r2, %tid.x; mul.wide.u32 %rd2, %r2, 4;\n"
        " add.u64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r1; ret;\n}\n"
        ".entry k(.param .u64 out) {\n .reg .b64 %rd<12>; .reg .b32 %r<12>; .reg .pred %p<2>;\n"
        " ld.param.u64 %rd1, [out]; mov.u64 %rd2, child;\n"
        DEVRT_BUF("%rd2", "4", "%rd3")
        " st.u64 [%rd3], %rd1; st.u32 [%rd3+8], 5;\n"
        DEVRT_LAUNCH("%rd3", "%r1")
        " st.global.u32 [%rd1+64], %r1;\n"
        /* a function that is not a kernel, and an address that is no function: NULL and the error */
        " mov.u64 %rd4, helper;\n"
        DEVRT_BUF("%rd4", "4", "%rd5")
        DEVRT_LASTERR("%r2")
        " cvt.u32.u64 %r3, %rd5; add.u32 %r2, %r2, %r3; st.global.u32 [%rd1+68], %r2;\n"
        " mov.u64 %rd6, 0x1234;\n"
        DEVRT_BUF("%rd6", "4", "%rd7")
        DEVRT_LASTERR("%r4")
        " cvt.u32.u64 %r3, %rd7; add.u32 %r4, %r4, %r3; st.global.u32 [%rd1+72], %r4;\n"
        /* a parameter buffer that the grid did not hand out */
        DEVRT_LAUNCH("%rd1", "%r5")
        " st.global.u32 [%rd1+76], %r5;\n"
        /* a block of 2048 threads: refused at launch */
        DEVRT_BUF("%rd2", "2048", "%rd8")
        DEVRT_LAUNCH("%rd8", "%r6")
        " st.global.u32 [%rd1+80], %r6;\n"
        /* the child has not run yet: it runs after this grid */
        " ld.global.u32 %r7, [%rd1]; st.global.u32 [%rd1+84], %r7;\n"
        /* a device-runtime function not served: cudaErrorNotSupported, named in the report */
        " { .param .b64 p; st.param.b64 [p], 0; .param .b64 s; st.param.b64 [s], 0; .param .b32 rv;"
        " call.uni (rv), __cudaCDP2Memcpy3DAsync, (p, s); ld.param.b32 %r8, [rv]; }\n"
        " st.global.u32 [%rd1+88], %r8;\n ret;\n}\n";
    char err[256];
    nprinted = 0;
    memset(arena, 0, 128);
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    if (!m) fail_msg("parse: %s", err);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "k"), err, sizeof err), 0);
    uint64_t out = (uint64_t)(uintptr_t)arena;
    heap_next = 0;
    freed = 0;
    struct ptx_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .params = &out, .param_bytes = 8,
                            .smcount = 4, .fault = &fault, .max_instructions = budget,
                            .host = { .lookup = lookup, .print = print, .heap_alloc = heap_alloc, .heap_free = heap_free,
                                      .note = print } };
    assert_int_equal(ptx_run(m, ptx_entry_find(m, "k"), &l, err, sizeof err), PTX_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(out32(i), 5); /* the child ran, after its parent */
    assert_int_equal(out32(4), 0);
    assert_int_equal(out32(16), 0);    /* launched */
    assert_int_equal(out32(17), 98);   /* cudaErrorInvalidDeviceFunction, NULL */
    assert_int_equal(out32(18), 98);
    assert_int_equal(out32(19), 1);    /* cudaErrorInvalidValue */
    assert_int_equal(out32(20), 9);    /* cudaErrorInvalidConfiguration */
    assert_int_equal(out32(21), 0);
    assert_int_equal(out32(22), 801);  /* cudaErrorNotSupported */
    assert_int_equal(freed, 2);        /* both parameter buffers */
    printed[nprinted] = 0;
    assert_non_null(strstr(printed, "__cudaCDP2Memcpy3DAsync is not supported"));

    /* a grid that launches itself for ever: refused at depth 24 */
    static const char deep[] = HDR DEVRT_DECLS
        ".entry k(.param .u64 out) {\n .reg .b64 %rd<6>; .reg .b32 %r<4>;\n"
        " ld.param.u64 %rd1, [out]; ld.global.u32 %r1, [%rd1]; add.u32 %r1, %r1, 1; st.global.u32 [%rd1], %r1;\n"
        " mov.u64 %rd2, k;\n"
        DEVRT_BUF("%rd2", "1", "%rd3")
        " st.u64 [%rd3], %rd1;\n"
        DEVRT_LAUNCH("%rd3", "%r2")
        " st.global.u32 [%rd1+4], %r2;\n ret;\n}\n";
    memset(arena, 0, 128);
    assert_int_equal(run(deep, 1, 1, err, sizeof err), PTX_OK);
    assert_int_equal(out32(0), 25);    /* depths 0 to 24 ran */
    assert_int_equal(out32(1), 65);    /* cudaErrorLaunchMaxDepthExceeded */

    /* the public names are the same builtins */
    static const char pub[] = HDR
        ".extern .func (.param .b32 rv) cudaGetDevice (.param .b64 p);\n"
        ".entry k(.param .u64 out) {\n .reg .b64 %rd<2>; .reg .b32 %r<2>;\n ld.param.u64 %rd1, [out];\n"
        " { .param .b64 p; st.param.b64 [p], %rd1; .param .b32 rv; call.uni (rv), cudaGetDevice, (p);"
        " ld.param.b32 %r1, [rv]; }\n st.global.u32 [%rd1+4], %r1;\n ret;\n}\n";
    memset(arena, 0xee, 8);
    assert_int_equal(run(pub, 1, 1, err, sizeof err), PTX_OK);
    assert_int_equal(out32(0), 0);     /* device 0 */
    assert_int_equal(out32(1), 0);     /* cudaSuccess */
    ptx_module_free(m);
}

/* ---- the SIMT model ----------------------------------------------------------- */
#define K0 HDR ".entry k(.param .u64 out) {\n .reg .b32 %r<16>; .reg .pred %p<8>; .reg .b64 %o<4>;\n" \
           " ld.param.u64 %o0, [out];\n mov.u32 %r0, %tid.x;\n"
#define STORE_TID " mul.wide.u32 %o1, %r0, 4;\n add.s64 %o2, %o0, %o1;\n"

/* a spin lock taken by every lane of a warp in turn: the winner of the
 * compare-and-swap must get on while the others spin */
static void test_spinlock(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 4 .b32 lock; .shared .align 4 .b32 cnt;\n"
        " setp.ne.u32 %p1, %r0, 0;\n @%p1 bra GO;\n st.shared.u32 [lock], 0;\n st.shared.u32 [cnt], 0;\n"
        "GO:\n bar.sync 0;\n"
        "SPIN:\n atom.shared.cas.b32 %r1, [lock], 0, 1;\n setp.ne.u32 %p2, %r1, 0;\n @%p2 bra SPIN;\n"
        " ld.shared.u32 %r2, [cnt];\n add.u32 %r2, %r2, 1;\n st.shared.u32 [cnt], %r2;\n membar.cta;\n"
        " atom.shared.exch.b32 %r3, [lock], 0;\n bar.sync 0;\n @%p1 bra END;\n"
        " ld.shared.u32 %r4, [cnt];\n st.global.u32 [%o0], %r4;\nEND:\n ret;\n}\n";
    char err[512];
    assert_int_equal(run(src, 2, 64, err, sizeof err), PTX_OK);
    assert_int_equal(out32(0), 64);
}

/* warp 0 waits for a flag that warp 1 sets: warps take turns */
static void test_flag_wait(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 4 .b32 flag; .shared .align 4 .b32 data;\n"
        " setp.ne.u32 %p1, %r0, 0;\n @%p1 bra GO;\n st.shared.u32 [flag], 0;\nGO:\n bar.sync 0;\n"
        " setp.lt.u32 %p2, %r0, 32;\n @%p2 bra WAIT;\n"
        " st.shared.u32 [data], 42;\n membar.cta;\n st.volatile.shared.u32 [flag], 1;\n bra END;\n"
        "WAIT:\n ld.volatile.shared.u32 %r1, [flag];\n setp.eq.u32 %p3, %r1, 0;\n @%p3 bra WAIT;\n"
        " ld.shared.u32 %r2, [data];\n" STORE_TID " st.global.u32 [%o2], %r2;\nEND:\n ret;\n}\n";
    char err[512];
    memset(arena, 0, 256);
    assert_int_equal(run(src, 1, 64, err, sizeof err), PTX_OK);
    for (int i = 0; i < 32; i++) assert_int_equal(out32(i), 42);
}

/* shfl.sync and vote.sync reached from two divergent branches with a full
 * mask: one exchange across both (legal from sm_70 on) */
static void test_divergent_sync(void **state)
{
    (void)state;
    static const char src[] = K0
        " and.b32 %r1, %r0, 1;\n setp.eq.u32 %p1, %r1, 0;\n and.b32 %r9, %r0, 3;\n setp.eq.u32 %p4, %r9, 1;\n"
        " @%p1 bra EVEN;\n"
        " add.u32 %r2, %r0, 1000;\n shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;\n"
        " vote.sync.ballot.b32 %r5, %p4, -1;\n bra JOIN;\n"
        "EVEN:\n add.u32 %r4, %r0, 2000;\n shfl.sync.bfly.b32 %r3, %r4, 1, 31, -1;\n"
        " vote.sync.ballot.b32 %r5, %p1, -1;\n"
        "JOIN:\n" STORE_TID " st.global.u32 [%o2], %r3;\n st.global.u32 [%o2+256], %r5;\n ret;\n}\n";
    char err[512];
    assert_int_equal(run(src, 1, 32, err, sizeof err), PTX_OK);
    for (unsigned l = 0; l < 32; l++) {
        unsigned partner = l ^ 1, want = partner + ((partner & 1) ? 1000 : 2000);
        if (out32((int)l) != want) fail_msg("lane %u got %u, want %u", l, out32((int)l), want);
        /* even lanes vote for being even, odd ones for tid % 4 == 1 */
        assert_int_equal(out32(64 + (int)l), 0x55555555u | 0x22222222u);
    }
}

/* two warps meet at named barrier 1 (64 threads) while two others spin on
 * a flag set after it */
static void test_named_barrier(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 4 .b32 flag;\n"
        " setp.ne.u32 %p1, %r0, 0;\n @%p1 bra GO;\n st.shared.u32 [flag], 0;\nGO:\n bar.sync 0;\n"
        " setp.ge.u32 %p2, %r0, 64;\n @%p2 bra SPIN;\n"
        " bar.sync 1, 64;\n @%p1 bra DONE;\n st.volatile.shared.u32 [flag], 7;\n bra DONE;\n"
        "SPIN:\n ld.volatile.shared.u32 %r1, [flag];\n setp.eq.u32 %p3, %r1, 0;\n @%p3 bra SPIN;\n"
        "DONE:\n ld.volatile.shared.u32 %r2, [flag];\n" STORE_TID " st.global.u32 [%o2], %r2;\n ret;\n}\n";
    char err[512];
    memset(arena, 0, 512);
    assert_int_equal(run(src, 2, 128, err, sizeof err), PTX_OK);
    for (int i = 64; i < 128; i++) assert_int_equal(out32(i), 7);
}

/* producer/consumer with bar.arrive and bar.sync; bar.red */
static void test_bar_arrive_red(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 4 .b32 box;\n"
        " setp.ge.u32 %p1, %r0, 32;\n @%p1 bra CONSUMER;\n"
        " st.shared.u32 [box], 99;\n bar.arrive 0, 64;\n bar.sync 1, 64;\n st.shared.u32 [box], 5;\n bar.arrive 0, 64;\n bra RED;\n"
        "CONSUMER:\n bar.sync 0, 64;\n ld.shared.u32 %r1, [box];\n bar.arrive 1, 64;\n bar.sync 0, 64;\n"
        " ld.shared.u32 %r2, [box];\n add.u32 %r1, %r1, %r2;\n" STORE_TID " st.global.u32 [%o2], %r1;\n"
        "RED:\n rem.u32 %r3, %r0, 3;\n setp.eq.u32 %p2, %r3, 0;\n bar.red.popc.u32 %r4, 2, %p2;\n"
        " bar.red.and.pred %p3, 3, %p2;\n bar.red.or.pred %p4, 4, %p2;\n selp.u32 %r5, 1, 0, %p3;\n selp.u32 %r6, 1, 0, %p4;\n"
        " setp.ne.u32 %p5, %r0, 40;\n @%p5 bra END;\n st.global.u32 [%o0+512], %r4;\n st.global.u32 [%o0+516], %r5;\n"
        " st.global.u32 [%o0+520], %r6;\nEND:\n ret;\n}\n";
    char err[512];
    assert_int_equal(run(src, 1, 64, err, sizeof err), PTX_OK);
    for (int i = 32; i < 64; i++) assert_int_equal(out32(i), 104);
    assert_int_equal(out32(128), 22); /* tid % 3 == 0 below 64 */
    assert_int_equal(out32(129), 0);
    assert_int_equal(out32(130), 1);
}

/* no thread can go on: the launch fails saying where each waits */
static void test_deadlock(void **state)
{
    (void)state;
    char err[512];
    /* warps at different named barriers */
    assert_int_equal(run(K0 " setp.lt.u32 %p1, %r0, 32;\n @%p1 bra A;\n bar.sync 2, 64;\n ret;\nA:\n bar.sync 1, 64;\n ret;\n}\n",
                         1, 64, err, sizeof err), PTX_E_DEADLOCK);
    if (strcmp(err, "deadlock: no thread of block (0,0,0) can go on: barrier 1 (PTX line 13) waits for 64 threads, 32 arrived;"
                     " barrier 2 (PTX line 10) waits for 64 threads, 32 arrived"))
        fail_msg("%s", err);
    assert_int_equal(fault.status, PTX_E_DEADLOCK);
    /* half a warp at a barrier, the other half at another */
    assert_int_equal(run(K0 " setp.lt.u32 %p1, %r0, 16;\n @%p1 bra A;\n barrier.sync 0;\n ret;\nA:\n barrier.sync 1;\n ret;\n}\n",
                         1, 32, err, sizeof err), PTX_E_DEADLOCK);
    if (strcmp(err, "deadlock: no thread of block (0,0,0) can go on: warp 0: lanes 0x0000ffff at barrier.sync 1 (PTX line 13),"
                    " lanes 0xffff0000 at barrier.sync 0 (PTX line 10)"))
        fail_msg("%s", err);
    /* bar.warp.sync naming lanes that have exited */
    assert_int_equal(run(K0 " setp.ge.u32 %p1, %r0, 16;\n @%p1 bra X;\n bar.warp.sync -1;\nX:\n ret;\n}\n", 1, 32, err, sizeof err),
                     PTX_E_DEADLOCK);
    if (!strstr(err, "bar.warp.sync can never complete: lanes 0xffff0000 of its member mask 0xffffffff have exited at PTX line 10"))
        fail_msg("%s", err);
    /* ... or lanes that exit while the others wait */
    assert_int_equal(run(K0 " setp.ge.u32 %p1, %r0, 16;\n @%p1 bra X;\n bar.warp.sync -1;\n ret;\nX:\n"
                         " mov.u32 %r1, 0;\nL:\n add.u32 %r1, %r1, 1;\n setp.lt.u32 %p2, %r1, 100;\n @%p2 bra L;\n ret;\n}\n",
                         1, 32, err, sizeof err), PTX_E_DEADLOCK);
    /* shfl reading a lane that has exited: its value is undefined */
    assert_int_equal(run(K0 " setp.ge.u32 %p1, %r0, 16;\n @%p1 bra X;\n shfl.sync.down.b32 %r1, %r0, 16, 31, -1;\nX:\n ret;\n}\n",
                         1, 32, err, sizeof err), PTX_E_SYNC);
    if (!strstr(err, "shfl.sync.down.b32: lane 0 reads lane 16, which has exited (member mask 0xffffffff): the value is undefined"))
        fail_msg("%s", err);
    /* a lane not in its own member mask */
    assert_int_equal(run(K0 " vote.sync.any.pred %p1, %p1, 1;\n ret;\n}\n", 1, 32, err, sizeof err), PTX_E_SYNC);
    assert_non_null(strstr(err, "lane 1 is not in its own member mask 0x00000001"));
}

/* the loop that never ends: the instruction budget or the time limit */
static void test_runaway(void **state)
{
    (void)state;
    char err[512];
    uint64_t saved = budget;
    budget = 1000000;
    assert_int_equal(run(K0 "L:\n bra L;\n}\n", 4, 64, err, sizeof err), PTX_E_TIMEOUT);
    assert_non_null(strstr(err, "instruction budget of 1000000 thread-instructions exhausted"));
    /* half of a warp loops, the other half exits */
    assert_int_equal(run(K0 " setp.lt.u32 %p1, %r0, 16;\n @%p1 bra X;\nL:\n add.u32 %r1, %r1, 1;\n bra L;\nX:\n ret;\n}\n",
                         1, 32, err, sizeof err), PTX_E_TIMEOUT);
    /* a loop around a barrier */
    assert_int_equal(run(K0 "L:\n bar.sync 0;\n bra L;\n}\n", 1, 256, err, sizeof err), PTX_E_TIMEOUT);
    budget = 0;
    time_limit_ms = 100;
    assert_int_equal(run(K0 "L:\n bra L;\n}\n", 1, 32, err, sizeof err), PTX_E_TIMEOUT);
    assert_non_null(strstr(err, "time limit of 100 ms exceeded"));
    time_limit_ms = 0;
    budget = saved;
}

/* recursion, calls through pointers (a table in a variable's initialiser,
 * mov of a function's name), device malloc and free */
static void test_calls(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".extern .func (.param .b64 r) malloc (.param .b64 n);\n.extern .func free (.param .b64 p);\n"
        ".func (.param .b32 r) fact (.param .b32 n);\n.func (.param .b32 r) twice (.param .b32 x);\n"
        ".func (.param .b32 r) neg (.param .b32 x);\n"
        ".global .align 8 .u64 table[3] = {0, twice, neg};\n"
        ".global .align 4 .u32 g0 = 5;\n.global .align 8 .u64 gp = generic(g0);\n"
        ".func (.param .b32 r) fact (.param .b32 n)\n{\n .local .align 4 .b8 depot[4];\n .reg .b32 %a<4>; .reg .pred %q; .reg .b64 %l;\n"
        " ld.param.b32 %a0, [n];\n mov.u64 %l, depot;\n st.local.u32 [%l], %a0;\n setp.le.s32 %q, %a0, 1;\n @%q bra BASE;\n"
        " sub.s32 %a1, %a0, 1;\n { .param .b32 p0; st.param.b32 [p0], %a1; .param .b32 r0;\n"
        "   call.uni (r0), fact, (p0); ld.param.b32 %a2, [r0]; }\n"
        " ld.local.u32 %a3, [%l];\n mul.lo.s32 %a0, %a3, %a2;\n st.param.b32 [r], %a0;\n ret;\n"
        "BASE:\n st.param.b32 [r], 1;\n ret;\n}\n"
        ".func (.param .b32 r) twice (.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; shl.b32 %a, %a, 1; st.param.b32 [r], %a; ret; }\n"
        ".func (.param .b32 r) neg (.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; neg.s32 %a, %a; st.param.b32 [r], %a; ret; }\n"
        ".entry k(.param .u64 out)\n{\n .reg .b32 %r<8>; .reg .b64 %d<8>; .reg .pred %p;\n"
        " ld.param.u64 %d0, [out];\n mov.u32 %r0, %tid.x;\n mul.wide.u32 %d1, %r0, 4;\n add.s64 %d2, %d0, %d1;\n"
        " and.b32 %r1, %r0, 7;\n add.u32 %r1, %r1, 1;\n"
        " { .param .b32 p0; st.param.b32 [p0], %r1; .param .b32 r0; call.uni (r0), fact, (p0); ld.param.b32 %r2, [r0]; }\n"
        " st.global.u32 [%d2], %r2;\n"
        /* by the table: lanes even and odd call different functions */
        " and.b32 %r3, %r0, 1;\n add.u32 %r3, %r3, 1;\n mul.wide.u32 %d3, %r3, 8;\n mov.u64 %d4, table;\n add.s64 %d4, %d4, %d3;\n"
        " ld.global.u64 %d5, [%d4];\n"
        " { .param .b32 p0; st.param.b32 [p0], %r0; .param .b32 r0;\n"
        "   proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n call (r0), %d5, (p0), proto; ld.param.b32 %r4, [r0]; }\n"
        " st.global.u32 [%d2+256], %r4;\n"
        /* mov of a function's name */
        " mov.u64 %d6, twice;\n { .param .b32 p0; st.param.b32 [p0], 21; .param .b32 r0;\n"
        "   call (r0), %d6, (p0), proto2; ld.param.b32 %r5, [r0]; }\n st.global.u32 [%d2+512], %r5;\n"
        /* generic(g0) in an initialiser */
        " ld.global.u64 %d7, [gp];\n ld.u32 %r6, [%d7];\n st.global.u32 [%d2+768], %r6;\n"
        /* malloc, free */
        " { .param .b64 p0; st.param.b64 [p0], 16; .param .b64 r0; call.uni (r0), malloc, (p0); ld.param.b64 %d7, [r0]; }\n"
        " st.u32 [%d7], %r0;\n ld.u32 %r7, [%d7];\n st.global.u32 [%d2+1024], %r7;\n"
        " { .param .b64 p0; st.param.b64 [p0], %d7; call.uni free, (p0); }\n ret;\n}\n";
    char err[512];
    freed = 0;
    enum ptx_status st = run(src, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    static const unsigned fact[] = { 1, 2, 6, 24, 120, 720, 5040, 40320 };
    for (int l = 0; l < 32; l++) {
        assert_int_equal(out32(l), fact[l & 7]);
        assert_int_equal(out32(64 + l), (l & 1) ? (uint32_t)-l : (uint32_t)(2 * l));
        assert_int_equal(out32(128 + l), 42);
        assert_int_equal(out32(192 + l), 5);
        assert_int_equal(out32(256 + l), (uint32_t)l);
    }
    assert_int_equal(freed, 32);
    /* a call through a value that is no function's address */
    assert_int_equal(run(K0 " mov.u64 %o1, 64;\n { .param .b32 p0; st.param.b32 [p0], 1; call %o1, (p0), pr; }\n ret;\n}\n",
                         1, 1, err, sizeof err), PTX_E_TRAP);
    assert_non_null(strstr(err, "indirect call through 0x40, which is not a function's address"));
}

/* one function the engine cannot take does not spoil the module; text
 * that is not PTX, or is cut short, does not load */
static void test_modules(void **state)
{
    (void)state;
    static const char src[] = HDR
        ".visible .entry bad(.param .u64 out) {\n .reg .v4 .f32 %v;\n ret;\n}\n"
        ".func (.param .b32 r) odd (.reg .b32 x) { ret; }\n"
        ".visible .entry uses_odd() { .reg .b32 %r; { .param .b32 r0; call.uni (r0), odd, (r0); } ret; }\n"
        ".visible .entry k(.param .u64 out) {\n .reg .b64 %a; ld.param.u64 %a, [out];\n st.global.u32 [%a], 77;\n ret;\n}\n";
    char err[512];
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    if (!m) fail_msg("%s", err);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "k"), err, sizeof err), 0);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "bad"), err, sizeof err), -1);
    assert_string_equal(err, "bad cannot run: vector registers are not supported (PTX line 5)");
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "uses_odd"), err, sizeof err), -1);
    assert_string_equal(err, "odd cannot run: unsupported .reg parameter (PTX line 8)");
    ptx_module_free(m);
    memset(arena, 0, 4);
    assert_int_equal(run(src, 1, 1, err, sizeof err), PTX_OK);
    assert_int_equal(out32(0), 77);
    /* malformed or cut short: no module, the reason and the line */
    static const struct { const char *src; const char *msg; } bad[] = {
        { "", "PTX line 1: no PTX: the text is empty" },
        { "\x7f" "ELF\x02\x01\x01", "PTX line 1: not PTX: it begins with" },
        { "hello world", "PTX line 1: not PTX: it begins with 'hello', not .version" },
        { ".version 9.0\n.address_size 64\n.entry k() { ret; }", "PTX line 3: .entry before the .target directive" },
        { HDR ".visible .entry k(.param .u64 out) {\n .reg .b64 %a;\n ld.param.u64 %a, [o", "PTX line 6: bad address" },
        { HDR ".visible .entry k(.param .u64 out) {\n .reg .b64 %a;\n ld.param.u64 %a, [out];\n", "PTX line 7: unterminated function body" },
        { HDR ".visible .entry k(.param .u64 out) {\n mov.u32 %nope, 1;\n ret;\n}\n", "PTX line 5" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        struct ptx_module *b = ptx_parse(bad[i].src, 0, err, sizeof err);
        if (b) fail_msg("case %zu parsed", i);
        if (!strstr(err, bad[i].msg)) fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
    }
}

/* match, redux, elect, activemask under divergence, brx.idx, WARP_SZ and
 * the special registers of clusters and the environment */
static void test_warp_ops(void **state)
{
    (void)state;
    static const char src[] = K0
        STORE_TID
        " shr.u32 %r1, %r0, 2;\n match.any.sync.b32 %r2, %r1, -1;\n st.global.u32 [%o2], %r2;\n"
        " setp.lt.u32 %p5, %r0, 4;\n mov.u32 %r3, 0;\n mov.u32 %r4, 0;\n"
        " @%p5 match.all.sync.b32 %r3|%p1, %r1, 15;\n @%p5 selp.u32 %r4, 1, 0, %p1;\n add.u32 %r3, %r3, %r4;\n st.global.u32 [%o2+128], %r3;\n"
        " redux.sync.add.s32 %r5, %r0, -1;\n st.global.u32 [%o2+256], %r5;\n"
        " sub.s32 %r6, 10, %r0;\n redux.sync.min.s32 %r7, %r6, -1;\n st.global.u32 [%o2+384], %r7;\n"
        " redux.sync.max.u32 %r7, %r6, -1;\n st.global.u32 [%o2+512], %r7;\n"
        " redux.sync.xor.b32 %r7, %r0, -1;\n st.global.u32 [%o2+640], %r7;\n"
        " setp.lt.u32 %p2, %r0, 8;\n @%p2 bra SMALL;\n"
        " activemask.b32 %r8;\n elect.sync %r9|%p3, -1;\n bra J;\n"
        "SMALL:\n activemask.b32 %r8;\n elect.sync %r9|%p3, -1;\n"
        "J:\n selp.u32 %r10, 100, 0, %p3;\n add.u32 %r9, %r9, %r10;\n st.global.u32 [%o2+768], %r8;\n st.global.u32 [%o2+896], %r9;\n"
        " and.b32 %r11, %r0, 1;\n tab: .branchtargets B0, B1;\n brx.idx %r11, tab;\n"
        "B0:\n mov.u32 %r12, WARP_SZ;\n bra C;\nB1:\n mov.u32 %r12, %cluster_nctarank;\n"
        "C:\n mov.u32 %r13, %envreg3;\n add.u32 %r12, %r12, %r13;\n mov.u32 %r14, %cluster_ctarank;\n add.u32 %r12, %r12, %r14;\n"
        " st.global.u32 [%o2+1024], %r12;\n ret;\n}\n";
    char err[512];
    enum ptx_status st = run(src, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (unsigned l = 0; l < 32; l++) {
        assert_int_equal(out32((int)l), 0xfu << (l & ~3u));                 /* match.any: same tid/4 */
        assert_int_equal(out32(32 + (int)l), l < 4 ? 0xf + 1 : 0);         /* match.all among lanes 0-3 */
        assert_int_equal(out32(64 + (int)l), 496);                         /* sum of 0..31 */
        assert_int_equal(out32(96 + (int)l), (uint32_t)(10 - 31));         /* min.s32 */
        assert_int_equal(out32(128 + (int)l), 0xffffffffu);                /* max.u32: 10 - 11 */
        assert_int_equal(out32(160 + (int)l), 0);                          /* xor of 0..31 */
        assert_int_equal(out32(192 + (int)l), l < 8 ? 0xffu : 0xffffff00u); /* activemask */
        /* elect.sync -1 after the branches: the whole warp meets, lane 0 leads */
        assert_int_equal(out32(224 + (int)l), l == 0 ? 100u : 0u);
        assert_int_equal(out32(256 + (int)l), (l & 1) ? 1u : 32u);
    }
}

/* cp.async with commit/wait groups and src-size, mbarrier phases and
 * transaction counts, 16-bit and half atomics */
static void test_async_atomics(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 16 .b8 buf[512];\n .shared .align 16 .b8 part[16];\n .shared .align 8 .b64 mb;\n .shared .align 8 .b64 mtx;\n"
        " .shared .align 2 .b16 h;\n .reg .b16 %h<4>; .reg .b64 %s<4>;\n"
        STORE_TID
        /* the input: out[1024 + 4 * i] = i, copied 16 bytes per thread */
        " st.global.u32 [%o2+4096], %r0;\n bar.sync 0;\n"
        " shl.b32 %r1, %r0, 4;\n mov.u32 %r2, buf;\n add.u32 %r2, %r2, %r1;\n"
        " cvt.u64.u32 %o3, %r1;\n add.s64 %o3, %o0, %o3;\n"
        " setp.lt.u32 %p1, %r0, 8;\n @%p1 cp.async.ca.shared.global [%r2], [%o3+4096], 16;\n"
        " setp.eq.u32 %p2, %r0, 0;\n @%p2 cp.async.cg.shared.global [part], [%o0+4128], 16, 4;\n"
        " cp.async.commit_group;\n cp.async.wait_group 0;\n bar.sync 0;\n"
        " and.b32 %r3, %r0, 31;\n shl.b32 %r3, %r3, 2;\n mov.u32 %r4, buf;\n add.u32 %r4, %r4, %r3;\n ld.shared.u32 %r5, [%r4];\n"
        " st.global.u32 [%o2], %r5;\n"
        " @%p2 ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [part];\n"
        " @%p2 st.global.v4.u32 [%o0+512], {%r6, %r7, %r8, %r9};\n"
        /* an mbarrier every thread arrives at, waited for by state and by parity */
        " @%p2 mbarrier.init.shared.b64 [mb], 32;\n @%p2 mbarrier.init.shared.b64 [mtx], 1;\n"
        " @%p2 st.shared.b16 [h], 7;\n bar.sync 0;\n"
        " mbarrier.arrive.shared.b64 %s0, [mb];\n"
        "W:\n mbarrier.test_wait.shared.b64 %p3, [mb], %s0;\n @!%p3 bra W;\n"
        " mbarrier.try_wait.parity.shared.b64 %p4, [mb], 0;\n selp.u32 %r10, 1, 0, %p4;\n"
        " mbarrier.pending_count.b64 %r11, %s0;\n"
        " st.global.u32 [%o2+768], %r10;\n"
        /* a transaction count: the phase waits for it */
        " @%p2 mbarrier.arrive.expect_tx.shared.b64 %s1, [mtx], 100;\n"
        " @%p2 mbarrier.test_wait.shared.b64 %p5, [mtx], %s1;\n @%p2 selp.u32 %r12, 1, 0, %p5;\n"
        " @%p2 mbarrier.complete_tx.shared.b64 [mtx], 100;\n"
        " @%p2 mbarrier.test_wait.shared.b64 %p5, [mtx], %s1;\n @%p2 selp.u32 %r13, 1, 0, %p5;\n"
        " @%p2 st.global.v2.u32 [%o0+528], {%r12, %r13};\n"
        /* 16-bit compare-and-swap: one thread wins */
        " cvt.u16.u32 %h1, %r0;\n atom.shared.cas.b16 %h2, [h], 7, %h1;\n setp.eq.u16 %p6, %h2, 7;\n"
        " vote.sync.ballot.b32 %r14, %p6, -1;\n popc.b32 %r14, %r14;\n"
        /* half adds */
        " atom.global.add.noftz.f16 %h3, [%o0+2048], 0x3c00;\n"
        " atom.global.add.noftz.f16x2 %r15, [%o0+2052], 0x40003c00;\n"
        " atom.global.add.noftz.bf16 %h3, [%o0+2056], 0x3f80;\n"
        " @%p2 st.global.u32 [%o0+536], %r14;\n ret;\n}\n";
    char err[512];
    memset(arena, 0, 4096);
    enum ptx_status st = run(src, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (int i = 0; i < 32; i++) assert_int_equal(out32(i), (uint32_t)i);         /* rows 0-7 copied */
    assert_int_equal(out32(128), 8);                                              /* src-size 4: 4 bytes ... */
    assert_int_equal(out32(129), 0);                                              /* ... then zeros */
    for (int i = 0; i < 32; i++) assert_int_equal(out32(192 + i), 1);            /* parity 0 done */
    assert_int_equal(out32(132), 0);                                              /* tx-count pending */
    assert_int_equal(out32(133), 1);                                              /* complete_tx: done */
    assert_int_equal(out32(134), 1);                                              /* one cas.b16 wins */
    uint16_t hv[3];
    memcpy(hv, arena + 2048, 2);
    memcpy(hv + 1, arena + 2052, 4);
    assert_int_equal(hv[0], 0x5000);                                              /* 32 * 1.0 */
    assert_int_equal(hv[1], 0x5000);
    assert_int_equal(hv[2], 0x5400);                                              /* 32 * 2.0 */
    memcpy(hv, arena + 2056, 2);
    assert_int_equal(hv[0], 0x4200);                                              /* bf16 32.0 */
}

/* ---- through the driver API ------------------------------------------------ */
static const char drv_ptx[] = HDR
    ".visible .global .align 4 .u32 bias = 100;\n"
    ".visible .entry axpb(.param .u32 n, .param .u64 x, .param .u64 y) {\n"
    " .reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .pred %p;\n"
    " ld.param.u32 %r1, [n];\n ld.param.u64 %rd1, [x];\n ld.param.u64 %rd2, [y];\n"
    " mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mov.u32 %r4, %tid.x;\n mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    " setp.ge.u32 %p, %r5, %r1;\n @%p bra DONE;\n mul.wide.u32 %rd3, %r5, 4;\n add.s64 %rd4, %rd1, %rd3;\n"
    " ld.global.u32 %r6, [%rd4];\n ld.global.u32 %r7, [bias];\n mad.lo.s32 %r6, %r6, 3, %r7;\n"
    " add.s64 %rd5, %rd2, %rd3;\n st.global.u32 [%rd5], %r6;\nDONE:\n ret;\n}\n"
    ".visible .entry bad(.param .u64 p) { .reg .b64 %a; ld.param.u64 %a, [p]; st.global.u32 [%a], 1; ret; }\n"
    ".visible .entry exotic() { .reg .b32 %r<2>; tex.1d.v4.s32.s32 {%r0, %r0, %r0, %r0}, [t, {%r1}]; ret; }\n";

/* cp.async.bulk: global to shared completing on an mbarrier (complete_tx
 * before the expect_tx, as libcu++ issues them), then shared to global */
/* .v8 accesses of 32-bit values, and a cache-policy operand after .L2::cache_hint */
static void test_wide_access(void **state)
{
    (void)state;
    static const char src[] = HDR ".entry k(.param .u64 out) {\n .reg .b32 %r<16>; .reg .b64 %o<2>;\n"
        " ld.param.u64 %o0, [out];\n mov.b64 %o1, 0;\n"
        " mov.u32 %r0, 1;\n add.u32 %r1, %r0, 1;\n add.u32 %r2, %r1, 1;\n add.u32 %r3, %r2, 1;\n"
        " add.u32 %r4, %r3, 1;\n add.u32 %r5, %r4, 1;\n add.u32 %r6, %r5, 1;\n add.u32 %r7, %r6, 1;\n"
        " st.global.L2::cache_hint.v8.u32 [%o0+32], {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, %o1;\n"
        " ld.global.nc.L2::cache_hint.v8.u32 {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, [%o0+32], %o1;\n"
        " st.global.v4.u32 [%o0], {%r15, %r14, %r9, %r8};\n ret;\n}\n";
    char err[512];
    memset(arena, 0, 4096);
    enum ptx_status st = run(src, 1, 1, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (int i = 0; i < 8; i++) assert_int_equal(out32(8 + i), (uint32_t)i + 1);
    assert_int_equal(out32(0), 8);
    assert_int_equal(out32(1), 7);
    assert_int_equal(out32(2), 2);
    assert_int_equal(out32(3), 1);
}

static void test_bulk_copy(void **state)
{
    (void)state;
    static const char src[] = K0
        " .shared .align 16 .b8 buf[256];\n .shared .align 8 .b64 mb;\n .reg .b64 %s<2>;\n"
        STORE_TID
        " st.global.u32 [%o2+2048], %r0;\n"
        " setp.eq.u32 %p1, %r0, 0;\n"
        " @%p1 mbarrier.init.shared::cta.b64 [mb], 32;\n bar.sync 0;\n"
        " @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%o0+2048], 128, [mb];\n"
        " @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mb], 128;\n"
        " mbarrier.arrive.shared::cta.b64 %s0, [mb];\n"
        "W:\n mbarrier.try_wait.parity.shared::cta.b64 %p2, [mb], 0;\n @!%p2 bra W;\n"
        " shl.b32 %r1, %r0, 2;\n mov.u32 %r2, buf;\n add.u32 %r2, %r2, %r1;\n ld.shared.u32 %r3, [%r2];\n"
        " add.u32 %r3, %r3, 100;\n st.shared.u32 [%r2], %r3;\n bar.sync 0;\n"
        " @%p1 cp.async.bulk.global.shared::cta.bulk_group [%o0], [buf], 128;\n"
        " @%p1 cp.async.bulk.commit_group;\n @%p1 cp.async.bulk.wait_group.read 0;\n ret;\n}\n";
    char err[512];
    memset(arena, 0, 4096);
    enum ptx_status st = run(src, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (int i = 0; i < 32; i++) assert_int_equal(out32(i), (uint32_t)i + 100);
}

/* Clusters of 4 blocks: the cluster registers; each block writes into the
 * next one's shared memory through mapa.shared::cluster, and all add to
 * rank 0's counters (red.shared::cluster, and atom through a generic mapa
 * address); barrier.cluster orders it. Then the faults: a rank outside the
 * cluster, an offset outside the target's window, arriving twice, and a
 * cluster barrier that threads at a block barrier never reach. */
#define KC HDR ".entry k(.param .u64 out) .reqnctapercluster 4, 1, 1\n{\n" \
    " .shared .align 4 .b32 slot[32];\n .shared .align 4 .b32 cnt[2];\n" \
    " .reg .b32 %r<20>; .reg .pred %p<4>; .reg .b64 %o<6>;\n" \
    " ld.param.u64 %o0, [out];\n mov.u32 %r0, %tid.x;\n mov.u32 %r1, %cluster_ctarank;\n" \
    " mov.u32 %r2, %cluster_nctarank;\n mov.u32 %r7, %ctaid.x;\n"
static int clusters_off(void **state)
{
    (void)state;
    cluster_x = 0; /* even after a failure: the other tests launch without clusters */
    return 0;
}

static void test_clusters(void **state)
{
    (void)state;
    static const char src[] = KC
        " add.u32 %r3, %r1, 1;\n rem.u32 %r3, %r3, %r2;\n"
        " mov.u32 %r4, slot;\n shl.b32 %r5, %r0, 2;\n add.u32 %r4, %r4, %r5;\n"
        " mapa.shared::cluster.u32 %r6, %r4, %r3;\n mad.lo.u32 %r8, %r7, 100, %r0;\n"
        " barrier.cluster.arrive.relaxed.aligned;\n barrier.cluster.wait.aligned;\n"
        " st.shared::cluster.u32 [%r6], %r8;\n"
        " mov.u32 %r9, cnt;\n mapa.shared::cluster.u32 %r10, %r9, 0;\n red.shared::cluster.add.u32 [%r10], 1;\n"
        " cvta.shared.u64 %o3, cnt;\n mapa.u64 %o4, %o3, 0;\n atom.add.u32 %r11, [%o4+4], 2;\n"
        " fence.acq_rel.cluster;\n barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;\n"
        " ld.shared.u32 %r12, [%r4];\n mad.lo.u32 %r13, %r7, 32, %r0;\n mul.wide.u32 %o1, %r13, 4;\n"
        " add.s64 %o2, %o0, %o1;\n st.global.u32 [%o2], %r12;\n"
        " setp.ne.u32 %p1, %r0, 0;\n @%p1 bra DONE;\n"
        " ld.shared.u32 %r14, [cnt];\n ld.shared.u32 %r15, [cnt+4];\n"
        " mov.u32 %r16, %clusterid.x;\n mov.u32 %r17, %cluster_ctaid.x;\n mov.u32 %r18, %nclusterid.x;\n"
        " mapa.u64 %o5, %o3, 2;\n getctarank.u64 %r19, %o5;\n getctarank.shared::cluster.u32 %r11, %r6;\n"
        " mad.lo.u32 %r19, %r19, 16, %r11;\n"
        " mul.wide.u32 %o1, %r7, 32;\n add.s64 %o2, %o0, %o1;\n"
        " st.global.v4.u32 [%o2+2048], {%r14, %r15, %r16, %r17};\n st.global.v2.u32 [%o2+2064], {%r18, %r2};\n"
        " st.global.u32 [%o2+2072], %r19;\n"
        "DONE:\n ret;\n}\n";
    char err[512];
    struct ptx_module *m = ptx_parse(src, 0, err, sizeof err);
    if (!m) fail_msg("%s", err);
    unsigned dims[3];
    assert_int_equal(ptx_entry_cluster(m, ptx_entry_find(m, "k"), dims), 1);
    assert_int_equal(dims[0], 4);
    assert_int_equal(dims[1], 1);
    assert_int_equal(dims[2], 1);
    ptx_module_free(m);
    memset(arena, 0, 4096);
    cluster_x = 4;
    enum ptx_status st = run(src, 8, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (unsigned b = 0; b < 8; b++) {
        unsigned r = b % 4, prev = b - r + (r + 3) % 4;
        for (unsigned t = 0; t < 32; t++) assert_int_equal(out32((int)(b * 32 + t)), prev * 100 + t);
        const uint32_t *v = (const uint32_t *)(const void *)(arena + 2048 + 32 * b);
        assert_int_equal(v[0], r == 0 ? 128 : 0);   /* every thread of the cluster added 1 */
        assert_int_equal(v[1], r == 0 ? 256 : 0);   /* and 2 */
        assert_int_equal(v[2], b / 4);              /* %clusterid.x */
        assert_int_equal(v[3], r);                  /* %cluster_ctaid.x */
        assert_int_equal(v[4], 2);                  /* %nclusterid.x */
        assert_int_equal(v[5], 4);                  /* %cluster_nctarank */
        assert_int_equal(v[6], 2 * 16 + (r + 1) % 4); /* getctarank of mapa's addresses */
    }

    static const struct { const char *body; enum ptx_status st; const char *msg; } bad[] = {
        { " mapa.shared::cluster.u32 %r6, 0, 4;\n", PTX_E_ADDRESS, "rank 4 outside the cluster of 4 blocks" },
        { " mov.u32 %r4, 4096;\n mapa.shared::cluster.u32 %r6, %r4, 1;\n", PTX_E_ADDRESS,
          "not in the shared memory of a block" },
        { " mov.u32 %r4, 0x5000000;\n st.shared::cluster.u32 [%r4], 1;\n", PTX_E_ADDRESS, "shared::cluster write" },
        { " mapa.shared::cluster.u32 %r6, slot, 1;\n st.shared::cluster.u32 [%r6+4096], 1;\n", PTX_E_ADDRESS,
          "shared::cluster write" },
        { " mov.u64 %o1, 4096;\n mapa.u64 %o2, %o1, 1;\n", PTX_E_ADDRESS, "not in the shared memory" },
        { " mov.u64 %o1, 4096;\n getctarank.u64 %r3, %o1;\n", PTX_E_ADDRESS, "getctarank: address 0x1000" },
        { " barrier.cluster.arrive;\n barrier.cluster.arrive;\n", PTX_E_SYNC, "arrived before" },
        { " setp.lt.u32 %p1, %r0, 16;\n @%p1 bra A;\n bar.sync 0;\n A:\n barrier.cluster.arrive;\n"
          " barrier.cluster.wait;\n bar.sync 0;\n", PTX_E_DEADLOCK, "never arrive" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s ret;\n}\n", KC, bad[i].body);
        st = run(text, 8, 32, err, sizeof err);
        if (st != bad[i].st || !strstr(err, bad[i].msg)) fail_msg("case %zu: %d: %s", i, st, err);
    }
    /* every thread of the cluster arrives on rank 0's mbarrier (a remote
     * arrive, .shared::cluster); rank 0 waits for the phase */
    static const char mb[] = KC
        " setp.eq.u32 %p1, %r0, 0;\n setp.eq.u32 %p2, %r1, 0;\n and.pred %p3, %p1, %p2;\n mov.u32 %r4, slot;\n"
        " @%p3 mbarrier.init.shared.b64 [%r4], 128;\n barrier.cluster.arrive;\n barrier.cluster.wait;\n"
        " mapa.shared::cluster.u32 %r6, %r4, 0;\n mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];\n"
        " @!%p2 bra SKIP;\nW:\n mbarrier.try_wait.parity.shared.b64 %p0, [%r4], 0;\n @!%p0 bra W;\n"
        " mul.wide.u32 %o1, %r7, 4;\n add.s64 %o2, %o0, %o1;\n @%p1 st.global.u32 [%o2], 77;\n"
        "SKIP:\n barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}\n";
    memset(arena, 0, 4096);
    st = run(mb, 8, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (int b = 0; b < 8; b++) assert_int_equal(out32(b), b % 4 == 0 ? 77 : 0);
    /* isspacep and cvta with .shared::cluster: the next block's slot seen
     * as a generic address and back */
    static const char sp[] = KC
        " mov.u32 %r4, slot;\n add.u32 %r3, %r1, 1;\n rem.u32 %r3, %r3, %r2;\n"
        " mapa.shared::cluster.u32 %r6, %r4, %r3;\n cvta.shared::cluster.u64 %o1, %r6;\n"
        " isspacep.shared::cluster %p1, %o1;\n isspacep.shared::cta %p2, %o1;\n isspacep.global %p3, %o1;\n"
        " selp.u32 %r8, 1, 0, %p1;\n selp.u32 %r9, 2, 0, %p2;\n selp.u32 %r10, 4, 0, %p3;\n"
        " cvta.shared.u64 %o3, slot;\n isspacep.shared %p1, %o3;\n selp.u32 %r11, 8, 0, %p1;\n"
        " isspacep.global %p1, %o0;\n selp.u32 %r12, 16, 0, %p1;\n"
        " cvta.to.shared::cluster.u64 %o4, %o1;\n cvt.u32.u64 %r13, %o4;\n setp.eq.u32 %p1, %r13, %r6;\n"
        " selp.u32 %r14, 32, 0, %p1;\n"
        " add.u32 %r8, %r8, %r9;\n add.u32 %r8, %r8, %r10;\n add.u32 %r8, %r8, %r11;\n add.u32 %r8, %r8, %r12;\n"
        " add.u32 %r8, %r8, %r14;\n mad.lo.u32 %r15, %r7, 32, %r0;\n mul.wide.u32 %o1, %r15, 4;\n"
        " add.s64 %o2, %o0, %o1;\n st.global.u32 [%o2], %r8;\n"
        " barrier.cluster.arrive;\n barrier.cluster.wait;\n ret;\n}\n";
    memset(arena, 0, 4096);
    st = run(sp, 8, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    for (int i = 0; i < 256; i++) assert_int_equal(out32(i), 1 + 8 + 16 + 32);
    /* a grid that is not a whole number of clusters */
    st = run(src, 6, 32, err, sizeof err);
    assert_int_equal(st, PTX_E_TRAP);
    cluster_x = 0;
    /* without a cluster launch, a block is its own cluster: rank 0 of 1 */
    static const char one[] = KC " mapa.shared::cluster.u32 %r6, slot, 0;\n st.shared::cluster.u32 [%r6], 7;\n"
        " barrier.cluster.arrive;\n barrier.cluster.wait;\n ld.shared.u32 %r8, [slot];\n"
        " st.global.v2.u32 [%o0], {%r8, %r2};\n ret;\n}\n";
    st = run(one, 1, 32, err, sizeof err);
    if (st != PTX_OK) fail_msg("%d: %s", st, err);
    assert_int_equal(out32(0), 7);
    assert_int_equal(out32(1), 1);
}

static void test_driver(void **state)
{
    (void)state;
    CUcontext ctx;
    CUmodule m;
    CUfunction f, fb, fx;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    OK(cuModuleLoadData(&m, drv_ptx));
    OK(cuModuleGetFunction(&f, m, "axpb"));
    CUdeviceptr bias, x, y;
    size_t bsz;
    OK(cuModuleGetGlobal_v2(&bias, &bsz, m, "bias"));
    assert_int_equal(bsz, 4);
    unsigned n = 1000, hx[1000], hy[1000], b0;
    OK(cuMemcpyDtoH_v2(&b0, bias, 4));
    assert_int_equal(b0, 100); /* initialised from the PTX */
    for (unsigned i = 0; i < n; i++) hx[i] = i;
    OK(cuMemAlloc_v2(&x, sizeof hx));
    OK(cuMemAlloc_v2(&y, sizeof hy));
    OK(cuMemcpyHtoD_v2(x, hx, sizeof hx));
    void *args[] = { &n, &x, &y };
    OK(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(hy, y, sizeof hy));
    for (unsigned i = 0; i < n; i++) assert_int_equal(hy[i], 3 * i + 100);
    /* extra: one packed buffer; and cuLaunchKernelEx */
    unsigned b1 = 7;
    OK(cuMemcpyHtoD_v2(bias, &b1, 4));
    struct { unsigned n; unsigned pad; CUdeviceptr x, y; } pk = { n, 0, x, y };
    size_t psz = sizeof pk;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &pk, CU_LAUNCH_PARAM_BUFFER_SIZE, &psz, CU_LAUNCH_PARAM_END };
    OK(cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(hy, y, sizeof hy));
    for (unsigned i = 0; i < n; i++) assert_int_equal(hy[i], 3 * i + 7);
    b1 = 11;
    OK(cuMemcpyHtoD_v2(bias, &b1, 4));
    CUlaunchConfig cfg = { 1000, 1, 1, 1, 1, 1, 0, NULL, NULL, 0 };
    OK(cuLaunchKernelEx(&cfg, f, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(hy, y, sizeof hy));
    for (unsigned i = 0; i < n; i++) assert_int_equal(hy[i], 3 * i + 11);
    /* an unsupported instruction: refused at launch, nothing runs */
    OK(cuModuleGetFunction(&fx, m, "exotic"));
    assert_int_equal(cuLaunchKernel(fx, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
    /* a bad address: the launch fails at synchronisation, the error sticks */
    OK(cuModuleGetFunction(&fb, m, "bad"));
    CUdeviceptr wild = 64;
    void *bargs[] = { &wild };
    OK(cuLaunchKernel(fb, 1, 1, 1, 1, 1, 1, 0, NULL, bargs, NULL));
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuModuleUnload(m));
    OK(cuCtxDestroy(ctx));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_layout),
        cmocka_unit_test(test_param_layout),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_arith),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_shared_layout),
        cmocka_unit_test(test_barrier_loop),
        cmocka_unit_test(test_spinlock),
        cmocka_unit_test(test_flag_wait),
        cmocka_unit_test(test_divergent_sync),
        cmocka_unit_test(test_named_barrier),
        cmocka_unit_test(test_bar_arrive_red),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_runaway),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_warp_ops),
        cmocka_unit_test(test_async_atomics),
        cmocka_unit_test(test_bulk_copy),
        cmocka_unit_test(test_wide_access),
        cmocka_unit_test_teardown(test_clusters, clusters_off),
        cmocka_unit_test(test_printf_calls),
        cmocka_unit_test(test_dynamic_parallelism),
        cmocka_unit_test(test_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
