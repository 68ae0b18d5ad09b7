/* SPDX-License-Identifier: Apache-2.0 */
/* Driver releases (src/common/drvver.c): versions as a user writes them,
 * what a release has, and cuGetProcAddress as an older driver answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "drvver.h"

static void test_parse(void **state)
{
    (void)state;
    static const struct { const char *s; int ok, v; } cases[] = {
        { "12.4", 1, 12040 },  { "11.8", 1, 11080 },  { "13.0", 1, 13000 }, { "11.0", 1, 11000 },
        { "12040", 1, 12040 }, { "12.9", 1, 12090 },  { "12.10", 0, 0 },    { "abc", 0, 0 },
        { "99.9", 0, 0 },      { "13.1", 0, 0 },      { "10.2", 0, 0 },     { "", 0, 0 },
        { "12", 0, 0 },        { "12.", 0, 0 },       { ".4", 0, 0 },       { "12.4.1", 0, 0 },
        { "-12.4", 0, 0 },     { " 12.4", 0, 0 },     { "12.4 ", 0, 0 },    { "0x3000", 0, 0 },
        { "999999999999", 0, 0 }, { "9999", 0, 0 },   { "123.4", 0, 0 },    { "13010", 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int v = -1;
        char why[160] = "";
        int rc = td_drv_parse(cases[i].s, &v, why, sizeof why);
        if ((rc == 0) != cases[i].ok || (rc == 0 && v != cases[i].v))
            fail_msg("'%s': rc %d v %d (%s)", cases[i].s, rc, v, why);
        if (rc < 0 && (!why[0] || v != -1))
            fail_msg("'%s': no reason, or the value changed", cases[i].s);
    }
    int v;
    char why[160];
    assert_int_equal(td_drv_parse(NULL, &v, why, sizeof why), -1);
    assert_int_equal(td_drv_parse("99.9", &v, why, sizeof why), -1);
    assert_string_equal(why, "'99.9': newer than the newest driver the API table describes (13.0)");
    char buf[16];
    assert_string_equal(td_drv_format(12040, buf, sizeof buf), "12.4");
    assert_string_equal(td_drv_format(13000, buf, sizeof buf), "13.0");
}

/* each entry point's release is its row's oldest ABI version */
static void test_since(void **state)
{
    (void)state;
    assert_int_equal(TD_API_NEWEST, 13000);
    assert_int_equal(td_drv_since(TD_FN_cuCtxGetDevice), 2000);
    assert_int_equal(td_drv_since(TD_FN_cuCtxGetDevice_v2), 13000);
    assert_int_equal(td_drv_since(TD_FN_cuMemcpyBatchAsync), 12080);
    assert_int_equal(td_drv_since(TD_FN_cuGreenCtxCreate), 12040); /* was "@-" */
    assert_int_equal(td_drv_since(TD_FN_cuCoredumpGetAttribute), 12010);
    assert_int_equal(td_drv_since(-1), 0);
    assert_int_equal(td_drv_since(TD_FN__COUNT), 0);
    assert_true(td_drv_has(TD_FN_cuCtxGetDevice, 11000));
    assert_false(td_drv_has(TD_FN_cuCtxGetDevice_v2, 12090));
    assert_true(td_drv_has(TD_FN_cuCtxGetDevice_v2, 13000));
    /* every entry point of the table has a release */
    for (int fn = 0; fn < TD_FN__ENTRY_POINTS; fn++)
        if (td_drv_since(fn) < 2000 || td_drv_since(fn) > TD_API_NEWEST)
            fail_msg("%s: release %d", td_fns[fn].name, td_drv_since(fn));
}

static void test_export_set(void **state)
{
    (void)state;
    assert_int_equal(td_drv_export_set(12040), 12040);
    assert_int_equal(td_drv_export_set(12070), 12060); /* nothing new in 12.7 */
    assert_int_equal(td_drv_export_set(11080), 11070);
    assert_int_equal(td_drv_export_set(13000), 13000);
    assert_int_equal(td_drv_export_set(11000), 11000);
}

static void test_ptx_isa(void **state)
{
    (void)state;
    assert_int_equal(td_drv_for_ptx_isa(90), 13000);
    assert_int_equal(td_drv_for_ptx_isa(88), 12090);
    assert_int_equal(td_drv_for_ptx_isa(87), 12080);
    assert_int_equal(td_drv_for_ptx_isa(85), 12050);
    assert_int_equal(td_drv_for_ptx_isa(84), 12040);
    assert_int_equal(td_drv_for_ptx_isa(80), 12000);
    assert_int_equal(td_drv_for_ptx_isa(78), 11080);
    assert_int_equal(td_drv_for_ptx_isa(70), 11000);
    assert_int_equal(td_drv_for_ptx_isa(65), 0);
    assert_int_equal(td_drv_for_ptx_isa(0), 0);
    assert_int_equal(td_drv_for_ptx_isa(-5), 0);
    assert_int_equal(td_drv_for_ptx_isa(99), 13000);
}

static const char *look(const char *sym, int ver, int pt, int drv)
{
    int st;
    int fn = td_drv_lookup(sym, ver, pt, drv, &st);
    if (fn >= 0)
        return st == 0 ? td_fns[fn].name : "<bad status>";
    return st == 1 ? "<not found>" : st == 2 ? "<too low>" : "<bad status>";
}

static void test_lookup(void **state)
{
    (void)state;
    static const struct { const char *sym; int ver, pt, drv; const char *want; } rows[] = {
        { "cuCtxGetDevice", 13000, 0, 13000, "cuCtxGetDevice_v2" },
        { "cuCtxGetDevice", 13000, 0, 12040, "cuCtxGetDevice" },
        { "cuCtxGetDevice", 12040, 0, 13000, "cuCtxGetDevice" },
        { "cuCtxGetDevice", 2000, 0, 12040, "cuCtxGetDevice" },
        { "cuCtxCreate", 13000, 0, 12040, "cuCtxCreate_v3" },
        { "cuCtxCreate", 13000, 0, 12050, "cuCtxCreate_v4" },
        { "cuMemcpyBatchAsync", 12080, 0, 12040, "<not found>" },
        { "cuMemcpyBatchAsync", 12080, 0, 12080, "cuMemcpyBatchAsync" },
        { "cuMemcpyBatchAsync", 13000, 0, 12080, "cuMemcpyBatchAsync" },
        { "cuMemcpyBatchAsync", 13000, 0, 13000, "cuMemcpyBatchAsync_v2" },
        { "cuGreenCtxCreate", 11000, 0, 12040, "<too low>" },
        { "cuGreenCtxCreate", 11000, 0, 12030, "<not found>" },
        { "cuNoSuchCall", 13000, 0, 13000, "<not found>" },
        { "", 13000, 0, 13000, "<not found>" },
        { "cuMemcpyHtoD", 13000, 1, 12040, "cuMemcpyHtoD_v2_ptds" },
        { "cuMemAlloc", -5, 0, 12040, "<too low>" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *got = look(rows[i].sym, rows[i].ver, rows[i].pt, rows[i].drv);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("%s@%d%s under %d: %s, want %s", rows[i].sym, rows[i].ver, rows[i].pt ? " ptds" : "",
                     rows[i].drv, got, rows[i].want);
    }
    int st = 7;
    assert_int_equal(td_drv_lookup(NULL, 13000, 0, 13000, &st), -1);
    assert_int_equal(st, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_since),
        cmocka_unit_test(test_export_set),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_ptx_isa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
