/* SPDX-License-Identifier: Apache-2.0 */
/* Finding NVIDIA's libraries behind tdtrace's own (src/common/libsearch.c):
 * the search order, tdtrace's own directory skipped (symbolic links into it
 * too), what is not a regular file, and a library that is nowhere. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "libsearch.h"

#define SONAME "libtdtrace-test-nowhere.so.7"

static char root[64];

static void path_of(char *buf, size_t len, const char *dir, const char *file)
{
    snprintf(buf, len, "%s/%s%s%s", root, dir, file ? "/" : "", file ? file : "");
}

static void touch(const char *dir)
{
    char p[256];
    path_of(p, sizeof p, dir, SONAME);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/td_libsearch_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    static const char *const dirs[] = { "a", "b", "own", "dir", "dir/" SONAME };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[256];
        path_of(p, sizeof p, dirs[i], NULL);
        if (mkdir(p, 0700))
            return -1;
    }
    touch("b");
    touch("own");
    char target[256], link[256];
    path_of(target, sizeof target, "own", SONAME);
    path_of(link, sizeof link, "a", SONAME);
    return symlink(target, link);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd) ? -1 : 0;
}

static void set_path(const char *var, const char *spec)
{
    /* spec: directory names under root, ':'-separated; "" stays empty */
    char buf[1024] = "";
    size_t n = 0;
    for (const char *p = spec; *p;) {
        size_t k = strcspn(p, ":");
        if (k)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s/%.*s", root, (int)k, p);
        p += k;
        if (*p) {
            buf[n++] = ':';
            buf[n] = 0;
            p++;
        }
    }
    setenv(var, buf, 1);
}

static void test_order_and_own_dir(void **state)
{
    (void)state;
    char out[512], want[256], own[256];
    unsetenv("TDTRACE_ORIG_LD_LIBRARY_PATH");
    path_of(own, sizeof own, "own", NULL);
    path_of(want, sizeof want, "b", SONAME);
    /* a/ holds a link into own/, dir/ a directory of that name: skipped */
    set_path("LD_LIBRARY_PATH", "::dir:a:own:b");
    assert_int_equal(td_find_library(SONAME, own, out, sizeof out), 0);
    assert_string_equal(out, want);
    /* with no directory of its own the link is as good as any */
    assert_int_equal(td_find_library(SONAME, NULL, out, sizeof out), 0);
    path_of(want, sizeof want, "a", SONAME);
    assert_string_equal(out, want);
    /* what the user had before tdtrace changed LD_LIBRARY_PATH comes first */
    set_path("TDTRACE_ORIG_LD_LIBRARY_PATH", "b");
    assert_int_equal(td_find_library(SONAME, NULL, out, sizeof out), 0);
    path_of(want, sizeof want, "b", SONAME);
    assert_string_equal(out, want);
    unsetenv("TDTRACE_ORIG_LD_LIBRARY_PATH");
}

static void test_nowhere(void **state)
{
    (void)state;
    char out[512], own[256];
    unsetenv("TDTRACE_ORIG_LD_LIBRARY_PATH");
    path_of(own, sizeof own, "own", NULL);
    set_path("LD_LIBRARY_PATH", "dir:a:own");
    assert_int_equal(td_find_library(SONAME, own, out, sizeof out), -1);
    unsetenv("LD_LIBRARY_PATH");
    assert_int_equal(td_find_library(SONAME, own, out, sizeof out), -1);
    /* a directory too long for a path is passed over */
    char *lp = malloc(8192);
    memset(lp, 'x', 8191);
    lp[0] = '/';
    lp[8191] = 0;
    setenv("LD_LIBRARY_PATH", lp, 1);
    assert_int_equal(td_find_library(SONAME, own, out, sizeof out), -1);
    free(lp);
    unsetenv("LD_LIBRARY_PATH");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_own_dir),
        cmocka_unit_test(test_nowhere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
