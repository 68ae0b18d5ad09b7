/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: the fault report. The allocation an address lies in or
 * nearest to (in, past its end, before its start, in freed memory), the
 * report's text for each kind of failure, demangled kernel names, the
 * one sink every report goes through, and the host-access table's fault
 * entry (a host library's work captured into a graph that finds its
 * memory gone). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"
#include "emuhost.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static CUcontext ctx;

static int setup(void **state)
{
    (void)state;
    return cuInit(0) || cuCtxCreate(&ctx, 0, 0) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return cuCtxDestroy_v2(ctx) ? -1 : 0;
}

/* the only allocation in the process: every address is nearest to it */
static void test_nearest(void **state)
{
    (void)state;
    CUdeviceptr a;
    size_t n = 1 << 20;
    OK(cuMemAlloc_v2(&a, n));
    struct emu_mem_near m;
    emu_mem_nearest(a + 0x10, &m);
    assert_true(m.found && !m.freed);
    assert_int_equal(m.base, a);
    assert_int_equal(m.size, n);
    assert_int_equal(m.kind, EMU_MEM_DEVICE);
    emu_mem_nearest(a + n + 16, &m);
    assert_true(m.found && !m.freed);
    assert_int_equal(m.base, a);
    emu_mem_nearest(a - 16, &m);
    assert_true(m.found && !m.freed);
    assert_int_equal(m.base, a);
    OK(cuMemFree_v2(a));
    emu_mem_nearest(a + 8, &m);
    assert_true(m.found && m.freed);
    assert_int_equal(m.base, a);
    assert_int_equal(m.size, n);
}

static void test_demangle(void **state)
{
    (void)state;
    char b[128];
    assert_string_equal(emu_demangle("_Z5scalePfi", b, sizeof b), "scale(float*, int)");
    assert_string_equal(emu_demangle("_Z10late_storePji", b, sizeof b), "late_store(unsigned int*, int)");
    assert_string_equal(emu_demangle("plain_c_kernel", b, sizeof b), "plain_c_kernel");
    assert_string_equal(emu_demangle("_Znot a name", b, sizeof b), "_Znot a name");
}

static struct emu_fault write_fault(uint64_t addr)
{
    struct emu_fault f = { 0 };
    f.status = EMU_FAULT_ADDRESS;
    f.result = CUDA_ERROR_ILLEGAL_ADDRESS;
    f.kernel = "_Z5scalePfi";
    f.function = "_Z5scalePfi";
    f.has_thread = 1;
    f.block[0] = 1;
    f.thread[0] = 37;
    f.access = EMU_ACCESS_WRITE;
    f.space = "global";
    f.addr = addr;
    f.size = 4;
    f.ptx_line = 42;
    f.opcode = "st.global.f32";
    f.file = "scale.cu";
    f.line = 17;
    f.column = 5;
    f.message = "illegal global address";
    return f;
}

static void test_format_past_end(void **state)
{
    (void)state;
    struct emu_fault f = write_fault(0x7f0000400010ULL);
    struct emu_mem_near n = { .found = 1, .base = 0x7f0000000000ULL, .size = 0x400000, .kind = EMU_MEM_DEVICE };
    char buf[1024];
    size_t len = emu_fault_format(&f, &n, buf, sizeof buf);
    assert_int_equal(len, strlen(buf));
    assert_string_equal(buf,
        "tdtrace-emu: invalid global write of 4 bytes in kernel scale(float*, int) (CUDA_ERROR_ILLEGAL_ADDRESS)\n"
        "    by thread (37,0,0) in block (1,0,0)\n"
        "    at PTX line 42: st.global.f32 (scale.cu:17:5)\n"
        "    address 0x7f0000400010 = 0x7f0000000000+0x400010: 16 bytes past the end of a 4194304-byte device allocation (cuMemAlloc)\n");
}

static void test_format_before_inside_freed(void **state)
{
    (void)state;
    char buf[1024];
    struct emu_fault f = write_fault(0x555500001000ULL - 8);
    f.access = EMU_ACCESS_READ;
    f.file = NULL;
    f.function = "_Z6helperi"; /* a device function the kernel called */
    struct emu_mem_near n = { .found = 1, .base = 0x555500001000ULL, .size = 64, .kind = EMU_MEM_MANAGED };
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_string_equal(buf,
        "tdtrace-emu: invalid global read of 4 bytes in kernel scale(float*, int) (CUDA_ERROR_ILLEGAL_ADDRESS)\n"
        "    by thread (37,0,0) in block (1,0,0)\n"
        "    at PTX line 42: st.global.f32 in helper(int)\n"
        "    address 0x555500000ff8 = 0x555500001000-0x8: 8 bytes before the start of a 64-byte managed allocation (cuMemAllocManaged)\n");
    f = write_fault(0x555500002004ULL);
    f.status = EMU_FAULT_MISALIGNED;
    f.result = CUDA_ERROR_MISALIGNED_ADDRESS;
    f.access = EMU_ACCESS_ATOMIC;
    f.ptx_line = 0;
    n = (struct emu_mem_near){ .found = 1, .base = 0x555500002000ULL, .size = 64, .kind = EMU_MEM_GLOBAL };
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_string_equal(buf,
        "tdtrace-emu: misaligned global atomic of 4 bytes in kernel scale(float*, int) (CUDA_ERROR_MISALIGNED_ADDRESS)\n"
        "    by thread (37,0,0) in block (1,0,0)\n"
        "    address 0x555500002004 = 0x555500002000+0x4, inside a 64-byte module variable\n"
        "    illegal global address\n");
    f = write_fault(0x555500003010ULL);
    n = (struct emu_mem_near){ .found = 1, .freed = 1, .base = 0x555500003000ULL, .size = 256, .kind = EMU_MEM_DEVICE };
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_non_null(strstr(buf, "    address 0x555500003010 = 0x555500003000+0x10, in a freed 256-byte device allocation (cuMemAlloc)\n"));
}

/* inside another device's memory: the report says what made it unreachable */
static void test_format_peer(void **state)
{
    (void)state;
    char buf[1024];
    struct emu_fault f = write_fault(0x7f0000000010ULL);
    f.device = 0;
    struct emu_mem_near n = { .found = 1, .base = 0x7f0000000000ULL, .size = 4096, .kind = EMU_MEM_DEVICE,
                              .device = 1 };
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_non_null(strstr(buf, "    address 0x7f0000000010 = 0x7f0000000000+0x10, inside a 4096-byte device allocation "
                                "(cuMemAlloc) of device 1, and device 0 has no peer access to it (cuCtxEnablePeerAccess)\n"));
    n.pooled = 1;
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_non_null(strstr(buf, "of a pool of device 1 whose access list (cuMemPoolSetAccess) does not name device 0\n"));
    /* managed memory is every device's: nothing about peers */
    n.pooled = 0;
    n.kind = EMU_MEM_MANAGED;
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_null(strstr(buf, "peer"));
    /* its own device's memory, or past the end of a peer's: nothing either */
    n.kind = EMU_MEM_DEVICE;
    n.device = 0;
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_null(strstr(buf, "peer"));
    f.addr = 0x7f0000001010ULL;
    n.device = 1;
    emu_fault_format(&f, &n, buf, sizeof buf);
    assert_null(strstr(buf, "peer"));
}

static void test_format_null_and_windows(void **state)
{
    (void)state;
    char buf[1024];
    struct emu_fault f = write_fault(0x10);
    struct emu_mem_near none = { 0 };
    emu_fault_format(&f, &none, buf, sizeof buf);
    assert_non_null(strstr(buf, "    address 0x10: a null pointer plus 16\n"));
    /* whatever allocation is nearest, the page at 0 is a null pointer's */
    struct emu_mem_near low = { .found = 1, .base = 0x5555000, .size = 64, .kind = EMU_MEM_DEVICE };
    emu_fault_format(&f, &low, buf, sizeof buf);
    assert_non_null(strstr(buf, "    address 0x10: a null pointer plus 16\n"));
    assert_null(strstr(buf, "allocation"));
    f = write_fault(0x7fffffff0000ULL);
    emu_fault_format(&f, &none, buf, sizeof buf);
    assert_non_null(strstr(buf, "    address 0x7fffffff0000: not in or near any allocation\n"));
    f = write_fault(0xc000);
    f.space = "shared";
    emu_fault_format(&f, NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, "invalid shared write of 4 bytes"));
    assert_non_null(strstr(buf, "    offset 0xc000 in the block's shared window\n"));
    /* distributed shared memory: the block by rank, the offset in its window */
    f = write_fault(0x3001000);
    f.space = "shared::cluster";
    emu_fault_format(&f, NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, "invalid shared::cluster write of 4 bytes"));
    assert_non_null(strstr(buf, "    address 0x3001000 of the cluster's shared memory: a block of the cluster by rank, "
                                "offset 0x1000\n    (rank 2; the cluster's blocks are numbered from 0)\n"));
    assert_null(strstr(buf, "allocation"));
}

static void test_format_other_failures(void **state)
{
    (void)state;
    char buf[1024];
    struct emu_fault f = { 0 };
    f.status = EMU_FAULT_TRAP;
    f.result = CUDA_ERROR_LAUNCH_FAILED;
    f.kernel = "k";
    f.message = "trap at PTX line 9 (block (0,0,0))";
    emu_fault_format(&f, NULL, buf, sizeof buf);
    assert_string_equal(buf, "tdtrace-emu: trap in kernel k (CUDA_ERROR_LAUNCH_FAILED)\n"
                             "    trap at PTX line 9 (block (0,0,0))\n");
    /* an assert is CUDA's own line */
    f.status = EMU_FAULT_ASSERT;
    f.result = CUDA_ERROR_ASSERT;
    f.message = "k.cu:3: void k(): block: [0,0,0], thread: [1,0,0] Assertion `x` failed.";
    emu_fault_format(&f, NULL, buf, sizeof buf);
    assert_string_equal(buf, "k.cu:3: void k(): block: [0,0,0], thread: [1,0,0] Assertion `x` failed.\n");
    /* truncated, never overrun */
    char small[16];
    f.status = EMU_FAULT_TRAP;
    size_t len = emu_fault_format(&f, NULL, small, sizeof small);
    assert_true(len < sizeof small);
    assert_int_equal(strlen(small), len);
}

/* every report goes through the sink */
static char captured[4096];
static size_t ncaptured;
static void capture(void *cookie, const char *text, size_t len)
{
    (void)cookie;
    if (ncaptured + len < sizeof captured) {
        memcpy(captured + ncaptured, text, len);
        ncaptured += len;
        captured[ncaptured] = 0;
    }
}

static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry bad(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 1;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";

static void test_sink(void **state)
{
    (void)state;
    CUmodule m;
    CUfunction fn;
    OK(cuModuleLoadData(&m, ptx));
    OK(cuModuleGetFunction(&fn, m, "bad"));
    ncaptured = 0;
    emu_report_set_sink(capture, NULL);
    CUdeviceptr p = 16;
    void *args[] = { &p };
    OK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    emu_report_set_sink(NULL, NULL);
    assert_non_null(strstr(captured, "in kernel bad (CUDA_ERROR_ILLEGAL_ADDRESS)\n"));
    /* the context is broken: a new one for the next tests */
    OK(cuCtxDestroy_v2(ctx));
    OK(cuCtxCreate(&ctx, 0, 0));
}

/* the host-access table's fault entry, from a host function on a stream */
struct fault_call {
    const struct td_emuhost *t;
    const char *what, *why;
    CUdeviceptr p;
    size_t len;
    CUresult r;
};

static void CUDAAPI call_fault(void *arg)
{
    struct fault_call *c = arg;
    c->r = c->t->fault(c->what, c->why, c->p, c->len);
}

static void test_host_fault(void **state)
{
    (void)state;
    const void *tab = NULL;
    CUuuid id = { TD_EMUHOST_UUID };
    OK(cuGetExportTable(&tab, &id));
    const struct td_emuhost *t = tab;
    assert_true(t->size >= offsetof(struct td_emuhost, fault) + sizeof t->fault);
    CUdeviceptr a;
    OK(cuMemAlloc_v2(&a, 1024));
    OK(cuMemFree_v2(a));
    /* not on a stream's worker: refused, nothing reported, nothing faulted */
    ncaptured = 0;
    captured[0] = 0;
    emu_report_set_sink(capture, NULL);
    assert_int_equal(t->fault("cuBLAS", NULL, a, 1024), CUDA_ERROR_INVALID_CONTEXT);
    assert_int_equal(ncaptured, 0);
    OK(cuCtxSynchronize());
    /* on the worker: the report, the context's sticky error */
    struct fault_call c = { t, "cuBLAS [OpenBLAS level 1]", NULL, a, 1024, CUDA_ERROR_UNKNOWN };
    OK(cuLaunchHostFunc(NULL, call_fault, &c));
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_int_equal(c.r, CUDA_SUCCESS);
    assert_non_null(strstr(captured, "tdtrace-emu: invalid global access of 1024 bytes in host library call "
                                     "cuBLAS [OpenBLAS level 1] (CUDA_ERROR_ILLEGAL_ADDRESS)\n"));
    assert_non_null(strstr(captured, ", in a freed 1024-byte device allocation (cuMemAlloc)\n"));
    OK(cuCtxDestroy_v2(ctx));
    OK(cuCtxCreate(&ctx, 0, 0));
    /* with a reason: one line, no address */
    ncaptured = 0;
    captured[0] = 0;
    struct fault_call w = { t, "cuSPARSE", "an index out of range", 0, 0, CUDA_ERROR_UNKNOWN };
    OK(cuLaunchHostFunc(NULL, call_fault, &w));
    assert_int_equal(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    emu_report_set_sink(NULL, NULL);
    assert_int_equal(w.r, CUDA_SUCCESS);
    assert_string_equal(captured, "tdtrace-emu: host library call cuSPARSE: an index out of range "
                                  "(CUDA_ERROR_ILLEGAL_ADDRESS)\n");
    OK(cuCtxDestroy_v2(ctx));
    OK(cuCtxCreate(&ctx, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_format_past_end),
        cmocka_unit_test(test_format_before_inside_freed),
        cmocka_unit_test(test_format_peer),
        cmocka_unit_test(test_format_null_and_windows),
        cmocka_unit_test(test_format_other_failures),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_host_fault),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
