/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: modules the way the driver loads them, on the h100 profile
 * (compute capability 9.0). Invalid or truncated PTX fails at load with
 * CUDA_ERROR_INVALID_PTX and the reason and line in the JIT error log,
 * capped at the size given, the bytes written put back; PTX for a newer
 * device is refused as a real device refuses it; of a fatbinary's images
 * the best PTX at or below 9.0 runs; an image with nothing for 9.0 is
 * CUDA_ERROR_NO_BINARY_FOR_GPU, saying why. Bad JIT options are
 * CUDA_ERROR_INVALID_VALUE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"
#include "emu_fatbin_build.h"

#define OK(x) assert_int_equal((x), CUDA_SUCCESS)

static const char good[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 70;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";
/* the same kernel for sm_90: it stores 90 */
static const char good90[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 90;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";
static const char newer[] =
    ".version 8.7\n.target sm_120\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n    ret;\n}\n";
static const char arch_specific[] =
    ".version 8.7\n.target sm_100a\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n    ret;\n}\n";

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

/* loads with an error log of n bytes; returns the result, the log in log */
static CUresult load_logged(const void *img, char *log, size_t n, size_t *written, CUmodule *m)
{
    CUjit_option o[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *v[2] = { log, (void *)(uintptr_t)n };
    memset(log, 'x', n);
    CUresult r = cuModuleLoadDataEx(m, img, 2, o, v);
    *written = (size_t)(uintptr_t)v[1];
    return r;
}

static void test_truncated_ptx(void **state)
{
    (void)state;
    /* cut inside the kernel: the parser sees the text end mid-body */
    char cut[sizeof good];
    size_t at = (size_t)(strstr(good, "st.global") - good) + 12;
    memcpy(cut, good, at);
    cut[at] = 0;
    char log[512];
    size_t n;
    CUmodule m;
    assert_int_equal(load_logged(cut, log, sizeof log, &n, &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "PTX line"));
    assert_int_equal(n, strlen(log));
    /* plain cuModuleLoadData too */
    assert_int_equal(cuModuleLoadData(&m, cut), CUDA_ERROR_INVALID_PTX);
}

static void test_garbage_ptx(void **state)
{
    (void)state;
    static const char junk[] = ".version 7.0\n.target sm_70\n.address_size 64\n!!! not ptx\n";
    char log[512];
    size_t n;
    CUmodule m;
    assert_int_equal(load_logged(junk, log, sizeof log, &n, &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "PTX line 4"));
}

/* the log is capped at the size given, NUL included */
static void test_log_capped(void **state)
{
    (void)state;
    static const char junk[] = ".version 7.0\n.target sm_70\n.address_size 64\n!!! not ptx\n";
    char log[16];
    size_t n;
    CUmodule m;
    assert_int_equal(load_logged(junk, log, sizeof log, &n, &m), CUDA_ERROR_INVALID_PTX);
    assert_int_equal(n, 15);
    assert_int_equal(log[15], 0);
    assert_int_equal(strlen(log), 15);
}

static void test_success_logs(void **state)
{
    (void)state;
    char err[64], info[256];
    float ms = -1;
    CUjit_option o[6] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                          CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE, CU_JIT_WALL_TIME };
    void *v[6] = { err, (void *)(uintptr_t)sizeof err, info, (void *)(uintptr_t)sizeof info, (void *)1, NULL };
    memset(err, 'x', sizeof err);
    CUmodule m;
    OK(cuModuleLoadDataEx(&m, good, 6, o, v));
    assert_string_equal(err, "");
    assert_int_equal((uintptr_t)v[1], 0);
    assert_non_null(strstr(info, "compute_70"));
    assert_int_equal((uintptr_t)v[3], strlen(info));
    memcpy(&ms, &v[5], sizeof ms);
    assert_true(ms >= 0 && ms < 60000);
    OK(cuModuleUnload(m));
}

static void test_bad_options(void **state)
{
    (void)state;
    CUmodule m;
    CUjit_option o[1] = { (CUjit_option)9999 };
    void *v[1] = { NULL };
    assert_int_equal(cuModuleLoadDataEx(&m, good, 1, o, v), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleLoadDataEx(&m, good, 1, NULL, v), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(cuModuleLoadDataEx(&m, good, 1, o, NULL), CUDA_ERROR_INVALID_VALUE);
    CUlibrary l;
    assert_int_equal(cuLibraryLoadData(&l, good, o, v, 1, NULL, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    CUlibraryOption lo[1] = { (CUlibraryOption)77 };
    assert_int_equal(cuLibraryLoadData(&l, good, NULL, NULL, 0, lo, v, 1), CUDA_ERROR_INVALID_VALUE);
    CUlinkState ls;
    assert_int_equal(cuLinkCreate_v2(1, o, v, &ls), CUDA_ERROR_INVALID_VALUE);
}

/* PTX text for a newer device: the JIT refuses it, as for a real one */
static void test_newer_ptx_text(void **state)
{
    (void)state;
    char log[512];
    size_t n;
    CUmodule m;
    assert_int_equal(load_logged(newer, log, sizeof log, &n, &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "sm_120"));
    assert_non_null(strstr(log, "compute capability 9.0"));
    /* sm_100a runs on 10.0 only */
    assert_int_equal(load_logged(arch_specific, log, sizeof log, &n, &m), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "sm_100a"));
}

static unsigned run_k(CUmodule m)
{
    CUfunction f;
    CUdeviceptr p;
    unsigned out = 0;
    OK(cuModuleGetFunction(&f, m, "k"));
    OK(cuMemAlloc_v2(&p, 4));
    void *args[] = { &p };
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    OK(cuMemcpyDtoH_v2(&out, p, 4));
    OK(cuMemFree_v2(p));
    return out;
}

/* of a fatbinary's images, the best PTX at or below 9.0 runs: sm_90 over
 * sm_70, and never the sm_120 one */
static void test_fatbin_choice(void **state)
{
    (void)state;
    struct buf b = { 0 };
    fb_begin(&b);
    fb_entry_sm(&b, 2, "\x7f" "ELF not runnable", 17, C_NONE, 90);
    fb_entry_sm(&b, 1, good, sizeof good, C_NONE, 70);
    fb_entry_sm(&b, 1, newer, sizeof newer, C_ZSTD, 120);
    fb_entry_sm(&b, 1, good90, sizeof good90, C_NONE, 90);
    fb_end(&b);
    CUmodule m;
    OK(cuModuleLoadData(&m, b.p));
    assert_int_equal(run_k(m), 90);
    OK(cuModuleUnload(m));
    /* a library chooses the same */
    CUlibrary l;
    CUkernel k;
    OK(cuLibraryLoadData(&l, b.p, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "k"));
    OK(cuLibraryUnload(l));
    free(b.p);
}

/* nothing for 9.0: refused at load, with the reason in the log */
static void test_fatbin_nothing_fits(void **state)
{
    (void)state;
    struct buf b = { 0 };
    fb_begin(&b);
    fb_entry_sm(&b, 1, newer, sizeof newer, C_NONE, 120);
    fb_end(&b);
    char log[512];
    size_t n;
    CUmodule m;
    assert_int_equal(load_logged(b.p, log, sizeof log, &n, &m), CUDA_ERROR_NO_BINARY_FOR_GPU);
    assert_non_null(strstr(log, "compute capability 9.0"));
    assert_non_null(strstr(log, "PTX for compute_120"));
    /* a library: with eager loading refused at once; with lazy loading (the
     * default) at its first use in a context */
    CUlibrary l;
    emu_eager_loading = 1;
    assert_int_equal(cuLibraryLoadData(&l, b.p, NULL, NULL, 0, NULL, NULL, 0), CUDA_ERROR_NO_BINARY_FOR_GPU);
    emu_eager_loading = 0;
    OK(cuLibraryLoadData(&l, b.p, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel k;
    OK(cuLibraryGetKernel(&k, l, "k"));
    CUfunction f;
    assert_int_equal(cuKernelGetFunction(&f, k), CUDA_ERROR_NO_BINARY_FOR_GPU);
    CUmodule lm;
    assert_int_equal(cuLibraryGetModule(&lm, l), CUDA_ERROR_NO_BINARY_FOR_GPU);
    int a;
    assert_int_equal(cuKernelGetAttribute(&a, CU_FUNC_ATTRIBUTE_NUM_REGS, k, 0), CUDA_ERROR_NO_BINARY_FOR_GPU);
    CUdeviceptr p = 0;
    void *args[] = { &p };
    assert_int_equal(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_NO_BINARY_FOR_GPU);
    OK(cuCtxSynchronize()); /* not sticky: nothing ran */
    OK(cuLibraryUnload(l));
    free(b.p);
}

/* machine code for the device (sm_90 on 9.0) without PTX it can compile:
 * the driver loads it, so does the emulator; its kernels fail at launch.
 * Machine code of another major version (sm_80, sm_100) is refused. */
static void test_fatbin_machine_code_for_device(void **state)
{
    (void)state;
    struct buf b = { 0 };
    fb_begin(&b);
    fb_entry_sm(&b, 1, newer, sizeof newer, C_NONE, 120);
    fb_entry_sm(&b, 2, "\x7f" "ELF not runnable", 17, C_NONE, 90);
    fb_end(&b);
    CUmodule m;
    OK(cuModuleLoadData(&m, b.p));
    CUfunction f;
    OK(cuModuleGetFunction(&f, m, "k"));
    CUdeviceptr p = 0;
    void *args[] = { &p };
    assert_int_equal(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_NO_BINARY_FOR_GPU);
    OK(cuModuleUnload(m));
    CUlibrary l;
    CUkernel k;
    OK(cuLibraryLoadData(&l, b.p, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, l, "k"));
    assert_int_equal(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_NO_BINARY_FOR_GPU);
    OK(cuCtxSynchronize()); /* nothing ran, nothing sticks */
    OK(cuLibraryUnload(l));
    free(b.p);
    static const unsigned others[] = { 80, 100 };
    for (int i = 0; i < 2; i++) {
        struct buf o = { 0 };
        fb_begin(&o);
        fb_entry_sm(&o, 1, newer, sizeof newer, C_NONE, 120);
        fb_entry_sm(&o, 2, "\x7f" "ELF not runnable", 17, C_NONE, others[i]);
        fb_end(&o);
        assert_int_equal(cuModuleLoadData(&m, o.p), CUDA_ERROR_NO_BINARY_FOR_GPU);
        free(o.p);
    }
}

/* the linker: a bad input fails cuLinkAddData with the reason in the log
 * buffer given to cuLinkCreate (whose arrays the driver keeps) */
static void test_link_logs(void **state)
{
    (void)state;
    char log[512];
    CUjit_option o[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *v[2] = { log, (void *)(uintptr_t)sizeof log };
    CUlinkState ls;
    OK(cuLinkCreate_v2(2, o, v, &ls));
    OK(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, (void *)good, sizeof good, "good.ptx", 0, NULL, NULL));
    static const char junk[] = ".version 7.0\n.target sm_70\n.address_size 64\n!!! not ptx\n";
    assert_int_equal(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, (void *)junk, sizeof junk, "junk.ptx", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(log, "junk.ptx"));
    assert_non_null(strstr(log, "PTX line 4"));
    assert_int_equal((uintptr_t)v[1], strlen(log));
    assert_int_equal(cuLinkAddData_v2(ls, CU_JIT_INPUT_PTX, (void *)newer, sizeof newer, "new.ptx", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_PTX);
    OK(cuLinkDestroy(ls));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_ptx),
        cmocka_unit_test(test_garbage_ptx),
        cmocka_unit_test(test_log_capped),
        cmocka_unit_test(test_success_logs),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_newer_ptx_text),
        cmocka_unit_test(test_fatbin_choice),
        cmocka_unit_test(test_fatbin_nothing_fits),
        cmocka_unit_test(test_fatbin_machine_code_for_device),
        cmocka_unit_test(test_link_logs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
