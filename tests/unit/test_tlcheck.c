/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace report's input check (strict JSON, the timeline contract's
 * fields and types) and its escaping for a <script> element; the page's
 * template holds its marker once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "tlcheck.h"

static int check(const char *s, char *why, size_t n)
{
    struct td_tl_stats st;
    return td_tl_check(s, strlen(s), &st, why, n);
}

static void test_accepts(void **state)
{
    (void)state;
    static const char *const good[] = {
        "{\"traceEvents\":[]}",
        " \r\n\t{ \"traceEvents\" : [ ] } \n",
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"tdtrace\"},\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"1 a\"}},"
        "{\"ph\":\"X\",\"cat\":\"driver\",\"name\":\"cuInit\",\"pid\":1,\"tid\":1,\"ts\":1.5,\"dur\":0,"
        "\"args\":{\"ret\":\"CUDA_SUCCESS\",\"corr\":3,\"py\":\"a.py:1\"}},"
        "{\"ph\":\"C\",\"name\":\"device memory\",\"pid\":1,\"ts\":-2e3,\"args\":{\"device 0\":0}},"
        "{\"ph\":\"i\",\"s\":\"p\",\"name\":\"leak\",\"pid\":1,\"ts\":2,\"args\":{}},"
        "{\"ph\":\"s\",\"id\":\"x\",\"name\":\"launch\",\"pid\":1,\"ts\":2},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"id\":4,\"name\":\"launch\",\"pid\":1,\"ts\":2}]}",
        /* escapes, UTF-8, a key spelled with an escape, other values */
        "{\"traceEvents\":[{\"p\\u0068\":\"i\",\"name\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude80"
        "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x9a\x80\",\"pid\":0,\"ts\":0,\"x\":[true,false,null,-0.5e+3,1E-2]}]}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char why[256];
        int r = check(good[i], why, sizeof why);
        if (r != 0)
            fail_msg("good[%zu] refused: %s", i, why);
    }
    struct td_tl_stats st;
    char why[256];
    assert_int_equal(td_tl_check(good[2], strlen(good[2]), &st, why, sizeof why), 0);
    assert_int_equal(st.events, 6);
}

static void test_refuses(void **state)
{
    (void)state;
    static const struct { const char *in, *why; } bad[] = {
        { "", "empty file" },
        { "   ", "empty file" },
        { "nul", "unexpected end of the file at byte 3" },
        { "[]", "not a timeline: a JSON array" },
        { "\"x\"", "not a timeline: a JSON string" },
        { "{}", "no \"traceEvents\" array" },
        { "{\"traceEvents\":[]", "unexpected end of the file at byte 17" },
        { "{\"traceEvents\":[{\"ph\":\"i\"", "(truncated?)" },
        { "{\"traceEvents\":[\"x\"]}", "traceEvents[0] is a string, must be an object" },
        { "{\"traceEvents\":[{}]}", "traceEvents[0]: no \"ph\"" },
        { "{\"traceEvents\":[{\"ph\":\"\",\"name\":\"a\",\"pid\":1}]}", "\"ph\" is empty" },
        { "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1}]}", "(ph \"M\"): no \"name\"" },
        { "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1}]}", "no \"dur\"" },
        { "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":-0.1}]}", "\"dur\" is negative" },
        { "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"tid\":\"1\"}]}",
          "\"tid\" is a string, must be a number" },
        { "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"id\":{}}]}",
          "\"id\" is an object, must be a number or a string" },
        { "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1e400,\"ts\":1}]}", "\"pid\" is out of range" },
        { "{\"traceEvents\":[{\"ph\":1}]}", "\"ph\" is a number, must be a string" },
        { "{\"traceEvents\":[],\"otherData\":1}", "\"otherData\" (byte 30) is a number, must be an object" },
        { "{\"traceEvents\":[],\"displayTimeUnit\":{}}", "must be a string" },
        { "{\"traceEvents\":[]}}", "unexpected '}' at byte 18, in what follows" },
        { "{\"traceEvents\":[],\"a\":01}", "unexpected '1' at byte 23" },
        { "{\"traceEvents\":[1.]}", "unexpected ']' at byte 18, in a number" },
        { "{\"traceEvents\":[-]}", "in a number" },
        { "{\"traceEvents\":[+1]}", "unexpected '+'" },
        { "{\"traceEvents\":[],\"a\":tru}", "in a literal" },
        { "{\"traceEvents\":[],\"a\":\"\\x\"}", "bad escape '\\x'" },
        { "{\"traceEvents\":[],\"a\":\"\\u12g4\"}", "bad \\u escape" },
        { "{\"traceEvents\":[],\"a\":\"\t\"}", "control byte 0x09" },
        { "{\"traceEvents\":[],\"a\":\"\xc0\xaf\"}", "not UTF-8: byte 0xc0" },       /* overlong */
        { "{\"traceEvents\":[],\"a\":\"\xe0\x80\xaf\"}", "not UTF-8: byte 0xe0" },   /* overlong */
        { "{\"traceEvents\":[],\"a\":\"\xed\xa0\x80\"}", "not UTF-8: byte 0xed" },   /* a surrogate */
        { "{\"traceEvents\":[],\"a\":\"\xf4\x90\x80\x80\"}", "not UTF-8: byte 0xf4" }, /* past U+10FFFF */
        { "{\"traceEvents\":[],\"a\":\"\xe2\x80\"}", "not UTF-8" },                   /* cut */
        { "{\"traceEvents\":[],\"a\":\"\x80\"}", "not UTF-8: byte 0x80" },
        { "{'traceEvents':[]}", "unexpected ''' at byte 1" },
        { "{\"traceEvents\" []}", "after a member's name" },
        { "\xef\xbb\xbf{\"traceEvents\":[]}", "unexpected byte 0xef at byte 0" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[256] = "";
        int r = check(bad[i].in, why, sizeof why);
        if (r != -1 || !strstr(why, bad[i].why))
            fail_msg("bad[%zu] %s: got %d '%s', expected '%s'", i, bad[i].in, r, why, bad[i].why);
    }
    /* a NUL inside the buffer is a byte like any other: refused */
    char why[256];
    static const char nul[] = "{\"traceEvents\":[]\0}";
    assert_int_equal(td_tl_check(nul, sizeof nul - 1, NULL, why, sizeof why), -1);
}

/* a text cut short once its events began: where it closes, and with what */
static void test_cut_short(void **state)
{
    (void)state;
    static const struct { const char *in; size_t events; const char *closed; } cut[] = {
        { "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1},{\"ph\":\"i\",\"na", 1,
          "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1}]}" },
        { "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1},\n", 1,
          "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1}]}" },
        { "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"x\",\"pid\":1,\"args\":{\"name\":\"ab",
          0, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}" },
        { "{\"traceEvents\":[],\"otherData\":{\"tool\":\"td", 0, "{\"traceEvents\":[]}" },
        { "{\"traceEvents\":[],\"a\":1,\"otherData\":{", 0, "{\"traceEvents\":[],\"a\":1}" },
    };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        char why[256], buf[512];
        struct td_tl_stats st;
        size_t len = strlen(cut[i].in);
        assert_int_equal(td_tl_check(cut[i].in, len, &st, why, sizeof why), -1);
        assert_non_null(strstr(why, "(truncated?)"));
        if (!st.cut_at)
            fail_msg("cut[%zu]: cannot be closed", i);
        snprintf(buf, sizeof buf, "%.*s%s", (int)st.cut_at, cut[i].in, st.cut_tail);
        assert_string_equal(buf, cut[i].closed);
        assert_int_equal(st.events, cut[i].events);
        assert_int_equal(td_tl_check(buf, strlen(buf), &st, why, sizeof why), 0);
    }
    /* before the events, or not the end of the text: nothing to close */
    static const char *const no[] = {
        "{\"displayTimeUnit\":\"n",
        "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1},{x",
        "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":\"1\"},",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        char why[256];
        struct td_tl_stats st;
        assert_int_equal(td_tl_check(no[i], strlen(no[i]), &st, why, sizeof why), -1);
        assert_int_equal(st.cut_at, 0);
    }
}

static void test_depth(void **state)
{
    (void)state;
    char why[256], *s = malloc(4096);
    assert_non_null(s);
    for (int depth = TD_TL_MAX_DEPTH - 3; depth <= TD_TL_MAX_DEPTH; depth++) {
        /* {"traceEvents":[{ ... "args":{"a": [[[...]]] }}]}: the top object,
         * the array, the event, args = 4 levels, then depth - 4 arrays */
        int n = sprintf(s, "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"args\":{\"a\":");
        int k = depth - 4 + 1;
        for (int i = 0; i < k; i++)
            s[n++] = '[';
        for (int i = 0; i < k; i++)
            s[n++] = ']';
        strcpy(s + n, "}}]}");
        int r = td_tl_check(s, strlen(s), NULL, why, sizeof why);
        if (depth + 1 <= TD_TL_MAX_DEPTH)
            assert_int_equal(r, 0);
        else
            assert_int_equal(r, -1);
    }
    int n = sprintf(s, "{\"traceEvents\":[],\"a\":");
    for (int i = 0; i < 1000; i++)
        s[n++] = '[';
    s[n] = '\0';
    assert_int_equal(td_tl_check(s, strlen(s), NULL, why, sizeof why), -1);
    assert_non_null(strstr(why, "nested deeper than 64 levels"));
    free(s);
}

static void test_escape(void **state)
{
    (void)state;
    static const char in[] = "{\"a\":\"</script><!-- & \xe2\x80\xa8\xe2\x80\xa9 \xe2\x82\xac x\"}";
    char out[256];
    size_t used, n = td_script_escape(in, sizeof in - 1, &used, out, sizeof out);
    out[n] = '\0';
    assert_int_equal(used, sizeof in - 1);
    assert_string_equal(out, "{\"a\":\"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029 \xe2\x82\xac x\"}");
    /* piece by piece into a small buffer: the same text, never a half escape */
    char acc[256];
    size_t total = 0;
    for (size_t i = 0; i < sizeof in - 1;) {
        char small[7];
        size_t u, m = td_script_escape(in + i, sizeof in - 1 - i, &u, small, sizeof small);
        assert_true(u > 0);
        memcpy(acc + total, small, m);
        total += m;
        i += u;
    }
    acc[total] = '\0';
    assert_string_equal(acc, out);
}

static void test_template(void **state)
{
    (void)state;
    const char *t = (const char *)td_report_html, *m = TD_REPORT_MARKER;
    const char *at = memmem(t, td_report_html_len, m, strlen(m));
    assert_non_null(at);
    assert_null(memmem(at + 1, td_report_html_len - (size_t)(at + 1 - t), m, strlen(m)));
    /* the marker sits inside the data's own <script> element */
    const char *open = "<script type=\"application/json\" id=\"td-data\">";
    assert_true(at - t >= (ptrdiff_t)strlen(open));
    assert_memory_equal(at - strlen(open), open, strlen(open));
    assert_memory_equal(at + strlen(m), "</script>", 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_cut_short),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_template),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
