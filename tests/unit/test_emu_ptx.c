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
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        struct ptx_module *m = ptx_parse(bad[i].src, 0, err, sizeof err);
        if (m) fail_msg("case %zu parsed", i);
        if (!strstr(err, bad[i].msg)) fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
    }
    /* unsupported instruction: parses, the checker names it and its line */
    static const char uns[] = HDR ".entry k() {\n .reg .b32 %r<4>;\n mov.u32 %r0, 1;\n"
                              " wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0}, [%r1];\n ret;\n}\n"
                              ".entry fine() { ret; }\n";
    char err[256];
    struct ptx_module *m = ptx_parse(uns, 0, err, sizeof err);
    assert_non_null(m);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "k"), err, sizeof err), -1);
    assert_non_null(strstr(err, "wmma.load"));
    assert_non_null(strstr(err, "line 7"));
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "fine"), err, sizeof err), 0);
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

/* runs entry k(.param .u64 out) of src with the given shape; a failure's
 * details land in fault */
static enum ptx_status run(const char *src, unsigned grid, unsigned block, char *err, size_t errlen)
{
    struct ptx_module *m = ptx_parse(src, 0, err, errlen);
    if (!m) fail_msg("parse: %s", err);
    uint64_t out = (uint64_t)(uintptr_t)arena, gaddr[16];
    for (int i = 0; i < ptx_global_count(m) && i < 16; i++) { /* globals: 256 bytes each from arena+32K */
        const struct ptx_global_info *g = ptx_global(m, i);
        gaddr[i] = (uint64_t)(uintptr_t)(arena + 32768 + 256 * i);
        memset(arena + 32768 + 256 * i, 0, 256);
        if (g->init) memcpy(arena + 32768 + 256 * i, g->init, g->size);
    }
    struct ptx_launch l = { .grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .dyn_shared = 256, .params = &out,
                            .param_bytes = 8, .gaddr = gaddr, .smcount = 4, .fault = &fault,
                            .host = { NULL, lookup, print } };
    enum ptx_status st = ptx_run(m, ptx_entry_find(m, "k"), &l, err, errlen);
    ptx_module_free(m);
    return st;
}

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
    assert_int_equal(run(HDR ".func f() { call f; ret; }\n.entry k(.param .u64 out) { call f; ret; }\n", 1, 1, err, sizeof err),
                     PTX_E_UNSUPPORTED);
    assert_non_null(strstr(err, "recursive"));
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
        "   call.uni (rv), vprintf, (a0, a1); ld.param.b32 %r2, [rv]; }\n ret;\n}\n";
    char err[256];
    nprinted = 0;
    assert_int_equal(run(src, 1, 2, err, sizeof err), PTX_OK);
    printed[nprinted] = 0;
    assert_string_equal(printed, "v=42 2.5 ok\nv=42 2.5 ok\n");
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
    CUlaunchConfig cfg = { 1000, 1, 1, 1, 1, 1, 0, NULL, NULL, 0 };
    OK(cuLaunchKernelEx(&cfg, f, args, NULL));
    OK(cuCtxSynchronize());
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
        cmocka_unit_test(test_barrier_loop),
        cmocka_unit_test(test_printf_calls),
        cmocka_unit_test(test_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
