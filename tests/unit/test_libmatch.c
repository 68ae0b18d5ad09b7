/* SPDX-License-Identifier: Apache-2.0 */
/* Which loaded libraries -e lib= traces (src/common/libmatch.c): globs on
 * the file name (never the directory) or the soname, several patterns, the
 * libraries never traced whatever the pattern, and bad input (empty
 * patterns, no name). Also the soname read from a loaded object. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "libmatch.h"

static void test_globs(void **state)
{
    (void)state;
    assert_true(td_lib_match("libcublas*", "/usr/local/cuda/lib64/libcublas.so.13", NULL));
    assert_true(td_lib_match("libcublas*", "/usr/local/cuda/lib64/libcublasLt.so.13", NULL));
    assert_false(td_lib_match("libcublas*", "/opt/libcublas/libnccl.so.2", NULL)); /* not the directory */
    assert_true(td_lib_match("libnccl*:libcufft*", "/x/libcufft.so.12", NULL));
    assert_true(td_lib_match("libnccl*:libcufft*", "libnccl.so.2", NULL));
    assert_false(td_lib_match("libnccl*:libcufft*", "libcudnn.so.9", NULL));
    /* the soname: a file named otherwise */
    assert_true(td_lib_match("libnccl.so.2", "/x/libnccl.so.2.27.3", "libnccl.so.2"));
    assert_false(td_lib_match("libnccl.so.2", "/x/libnccl.so.2.27.3", NULL));
    /* an empty pattern between separators matches nothing */
    assert_false(td_lib_match("::", "libx.so", NULL));
    assert_true(td_lib_match("::libx*", "libx.so", NULL));
}

static void test_never(void **state)
{
    (void)state;
    /* what the shim runs on, whatever the pattern */
    assert_false(td_lib_match("*", "/lib/x86_64-linux-gnu/libc.so.6", NULL));
    assert_false(td_lib_match("*", "/lib64/ld-linux-x86-64.so.2", NULL));
    assert_false(td_lib_match("lib*", "/build/lib/tdtrace/libcuda.so.1", NULL));
    assert_false(td_lib_match("*", "/build/lib/tdtrace/libtdruntime.so", NULL));
    assert_false(td_lib_match("*", "libstdc++.so.6", NULL));
    assert_false(td_lib_match("*", "/x/renamed.so", "libc.so.6")); /* by its soname too */
    assert_true(td_lib_match("*", "/x/libfoo.so", NULL));
}

static void test_bad(void **state)
{
    (void)state;
    assert_false(td_lib_match(NULL, "libx.so", NULL));
    assert_false(td_lib_match("", "libx.so", NULL));
    assert_false(td_lib_match("*", NULL, NULL));
    assert_false(td_lib_match("*", "", NULL));
    char longpat[1000];
    memset(longpat, '*', sizeof(longpat) - 1);
    longpat[sizeof(longpat) - 1] = '\0';
    assert_false(td_lib_match(longpat, "libx.so", NULL)); /* past 511 bytes: skipped, not cut */
}

static int find_cmocka(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *base = strrchr(info->dlpi_name, '/');
    if (base && strncmp(base + 1, "libcmocka.so", 12) == 0) {
        const char *so = td_lib_soname(info);
        *(int *)arg = so && strncmp(so, "libcmocka.so.", 13) == 0 ? 1 : -1;
    }
    return 0;
}

static void test_soname(void **state)
{
    (void)state;
    int found = 0;
    dl_iterate_phdr(find_cmocka, &found);
    if (!found)
        skip(); /* cmocka linked statically */
    assert_int_equal(found, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_globs),
        cmocka_unit_test(test_never),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_soname),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
