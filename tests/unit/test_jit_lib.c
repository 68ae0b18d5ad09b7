/* SPDX-License-Identifier: Apache-2.0 */
/* What the layer's two libraries share (src/jitwrap/jit.c): NVIDIA's
 * library opened on first use (a missing one, a missing function), and
 * the choice between a fatbinary and the machine code as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "emu.h"
#include "fatbin.h"
#include "fatwrite.h"
#include "jit.h"

static const char *const math_names[] = { "cos", "no_such_function_here" };
static _Atomic(void *) math_fns[2];

static void test_real_library(void **state)
{
    (void)state;
    struct td_jit_lib m = { "libm.so.6", math_names, math_fns, 2, 0, NULL, "" };
    double (*c)(double) = (double (*)(double))td_jit_real(&m, 0);
    assert_non_null(c);
    assert_true(c(0.0) == 1.0);
    assert_ptr_equal(td_jit_real(&m, 0), (void *)c);   /* kept */
    assert_null(td_jit_real(&m, 1));                    /* not in it: a message */
    assert_null(td_jit_real(&m, 1));                    /* looked for once */
    assert_null(td_jit_real(&m, 2));                    /* no such id */
    assert_null(td_jit_real(&m, -1));
    assert_non_null(m.handle);
}

static const char *const none_names[] = { "nvrtcVersion" };
static _Atomic(void *) none_fns[1];

static void test_missing_library(void **state)
{
    (void)state;
    struct td_jit_lib m = { "libtdtrace-not-anywhere.so.13", none_names, none_fns, 1, 0, NULL, "" };
    assert_null(td_jit_real(&m, 0));
    assert_null(td_jit_real(&m, 0));    /* looked for once */
    assert_true(m.tried);
    assert_null(m.handle);
}

/* as the emulator loads it for a device of compute capability 9.0 */
static CUresult load(const void *p, size_t n, struct emu_image *img, char *err, size_t len)
{
    CUresult r = emu_image_load(p, n, img, err, len);
    if (r == CUDA_SUCCESS && (r = emu_image_choose(img, 90, err, len)) != CUDA_SUCCESS)
        emu_image_free(img);
    return r;
}

static const char ptx[] = ".version 9.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k()\n{\n\tret;\n}\n";

static void cubin(unsigned char *d, size_t n, unsigned sm, unsigned type)
{
    memset(d, 0, n);
    memcpy(d, "\x7f" "ELF", 4);
    d[4] = 2;
    d[5] = 1;
    d[16] = (unsigned char)type;
    d[18] = 190;
    uint32_t flags = 0x6000004u | sm << 8;
    memcpy(d + 48, &flags, 4);
}

static void test_substitute(void **state)
{
    (void)state;
    unsigned char elf[200], *out = (unsigned char *)1;
    size_t len = 1;
    cubin(elf, sizeof elf, 90, 2);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, ptx, strlen(ptx), NULL, &out, &len), 0);
    assert_non_null(out);
    struct emu_image img;
    char err[128];
    assert_int_equal(load(out, len, &img, err, sizeof err), CUDA_SUCCESS);
    assert_int_equal(img.nptx, 1);
    assert_int_equal(img.has_sass, 1);
    assert_int_equal(img.nentries, 1);
    assert_string_equal(img.entries[0].name, "k");
    emu_image_free(&img);
    free(out);

    /* sm_100 and later: the PTX alone */
    cubin(elf, sizeof elf, 100, 2);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, ptx, strlen(ptx), NULL, &out, &len), 0);
    assert_non_null(out);
    assert_int_equal(load(out, len, &img, err, sizeof err), CUDA_SUCCESS);
    assert_int_equal(img.nptx, 1);
    assert_int_equal(img.has_sass, 0);
    emu_image_free(&img);
    free(out);

    /* the machine code as it is: no PTX, relocatable, not an ELF file,
     * PTX without its header */
    cubin(elf, sizeof elf, 90, 2);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, NULL, 0, "no PTX", &out, &len), 0);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, NULL, 0, NULL, &out, &len), 0);
    assert_null(out);
    cubin(elf, sizeof elf, 90, 1);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, ptx, strlen(ptx), NULL, &out, &len), 0);
    assert_null(out);
    assert_int_equal(td_jit_substitute("t", ptx, sizeof ptx, ptx, strlen(ptx), NULL, &out, &len), 0);
    assert_null(out);
    cubin(elf, sizeof elf, 90, 2);
    assert_int_equal(td_jit_substitute("t", elf, sizeof elf, "garbage", 7, NULL, &out, &len), 0);
    assert_null(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_library),
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_substitute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
