/* SPDX-License-Identifier: Apache-2.0 */
/* Emulator: PTX texts linked as nvlink links relocatable device code
 * (src/emu/ptxlink.c). Calls and variables across units resolve; two
 * strong definitions are an error; weak definitions go in once; colliding
 * file-local names are renamed per unit; .file/.loc numbers of later units
 * are shifted; bad input is an error with a message, never a crash. Each
 * linked text must parse as one module (src/ptx). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ptxlink.h"
#include "../ptx/ptx.h"

#define HEAD(v, t) ".version " v "\n.target " t "\n.address_size 64\n"

static const char unit_a[] = HEAD("8.0", "sm_80")
    ".file 1 \"a.cu\"\n"
    ".extern .func (.param .b32 r) f(.param .b32 x);\n"
    ".extern .global .align 4 .u32 g;\n"
    ".global .align 1 .b8 $str[3] = {97, 10, 0};\n"
    ".func (.param .b32 r) helper(.param .b32 x)\n{\n .reg .b32 %r<2>;\n ld.param.u32 %r1, [x];\n"
    " st.param.b32 [r], %r1;\n ret;\n}\n"
    ".weak .func (.param .b32 r) w(.param .b32 x)\n{\n .reg .b32 %r<2>;\n ld.param.u32 %r1, [x];\n"
    " st.param.b32 [r], %r1;\n ret;\n}\n"
    ".visible .entry ka(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .reg .b32 %r<4>;\n"
    " .loc 1 7 3\n ld.param.u64 %rd1, [p];\n ld.global.u32 %r1, [g];\n mov.u64 %rd2, $str;\n"
    " { .param .b32 a0; .param .b32 r0; st.param.b32 [a0], %r1;\n"
    " call (r0), f, (a0); ld.param.b32 %r2, [r0]; }\n"
    " st.global.u32 [%rd1], %r2;\n ret;\n}\n";

static const char unit_b[] = HEAD("8.4", "sm_90")
    "// comment\n.file 1 \"b.cu\"\n"
    ".visible .global .align 4 .u32 g = 5;\n"
    ".global .align 1 .b8 $str[3] = {98, 10, 0};\n"
    ".func (.param .b32 r) helper(.param .b32 x)\n{\n .reg .b32 %r<2>;\n ld.param.u32 %r1, [x];\n"
    " st.param.b32 [r], %r1;\n ret;\n}\n"
    ".weak .func (.param .b32 r) w(.param .b32 x)\n{\n .reg .b32 %r<2>;\n ld.param.u32 %r1, [x];\n"
    " st.param.b32 [r], %r1;\n ret;\n}\n"
    ".visible .func (.param .b32 r) f(.param .b32 x)\n{\n .reg .b32 %r<2>;\n .loc 1 3 1\n"
    " ld.param.u32 %r1, [x];\n st.param.b32 [r], %r1;\n ret;\n}\n"
    ".visible .entry kb(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n mov.u64 %rd2, $str;\n ret;\n}\n";

static char *link2(const char *a, const char *b, char *err, size_t errlen)
{
    const char *t[2] = { a, b };
    size_t l[2] = { strlen(a), strlen(b) };
    size_t n = 0;
    char *out = emu_ptx_link(t, l, 2, &n, err, errlen);
    if (out)
        assert_int_equal(n, strlen(out));
    return out;
}

static void links_two_units(void **state)
{
    (void)state;
    char err[256];
    char *out = link2(unit_a, unit_b, err, sizeof err);
    assert_non_null(out);
    /* the highest version, the target of the highest architecture */
    assert_non_null(strstr(out, ".version 8.4\n.target sm_90\n"));
    /* the statics of both units kept apart */
    assert_non_null(strstr(out, "$str$tu0[3]"));
    assert_non_null(strstr(out, "$str$tu1[3]"));
    assert_non_null(strstr(out, "helper$tu0("));
    assert_non_null(strstr(out, "helper$tu1("));
    assert_non_null(strstr(out, "mov.u64 %rd2, $str$tu0;"));
    /* one weak definition; the second unit's file numbers shifted */
    char *w1 = strstr(out, ".weak .func (.param .b32 r) w(");
    assert_non_null(w1);
    assert_null(strstr(w1 + 1, ".weak .func (.param .b32 r) w("));
    assert_non_null(strstr(out, ".file 3 \"b.cu\"")); /* past the first unit's 0..1 */
    assert_non_null(strstr(out, ".loc 3 3 1"));
    assert_non_null(strstr(out, ".loc 1 7 3"));
    struct ptx_module *m = ptx_parse(out, 0, err, sizeof err);
    if (!m)
        fail_msg("linked PTX does not parse: %s\n%s", err, out);
    assert_true(ptx_entry_find(m, "ka") >= 0);
    assert_true(ptx_entry_find(m, "kb") >= 0);
    assert_int_equal(ptx_entry_check(m, ptx_entry_find(m, "ka"), err, sizeof err), 0);
    ptx_module_free(m);
    free(out);

    /* the other order: the definitions come first, the declarations go */
    out = link2(unit_b, unit_a, err, sizeof err);
    assert_non_null(out);
    assert_null(strstr(out, ".extern .global .align 4 .u32 g;"));
    m = ptx_parse(out, 0, err, sizeof err);
    if (!m)
        fail_msg("linked PTX does not parse: %s\n%s", err, out);
    ptx_module_free(m);
    free(out);
}

static void strong_twice_is_an_error(void **state)
{
    (void)state;
    char err[256] = "";
    assert_null(link2(unit_b, unit_b, err, sizeof err));
    assert_non_null(strstr(err, "multiple definitions of g"));
}

static void weak_before_strong_becomes_a_declaration(void **state)
{
    (void)state;
    static const char weak[] = HEAD("8.0", "sm_80")
        ".weak .func (.param .b32 r) f(.param .b32 x)\n{\n .reg .b32 %r<2>;\n ld.param.u32 %r1, [x];\n"
        " st.param.b32 [r], %r1;\n ret;\n}\n";
    char err[256];
    char *out = link2(weak, unit_b, err, sizeof err);
    assert_non_null(out);
    assert_non_null(strstr(out, ".extern .func (.param .b32 r) f(.param .b32 x);"));
    struct ptx_module *m = ptx_parse(out, 0, err, sizeof err);
    if (!m)
        fail_msg("linked PTX does not parse: %s\n%s", err, out);
    ptx_module_free(m);
    free(out);
}

static void bad_input(void **state)
{
    (void)state;
    char err[256];
    size_t n;
    const char *t[2] = { unit_a, NULL };
    size_t l[2] = { strlen(unit_a), 10 };
    assert_null(emu_ptx_link(t, l, 0, &n, err, sizeof err));
    assert_null(emu_ptx_link(NULL, l, 1, &n, err, sizeof err));
    assert_null(emu_ptx_link(t, l, 2, &n, err, sizeof err));
    assert_non_null(strstr(err, "translation unit 2: no PTX text"));
    assert_null(link2(unit_a, ".version 8.0\n.visible .entry k() { ret; }\n", err, sizeof err));
    assert_non_null(strstr(err, "translation unit 2: PTX without a .target"));
    assert_null(link2(unit_a, HEAD("8.0", "sm_80") ".file 99999999999 \"x\"\n", err, sizeof err));
    assert_non_null(strstr(err, ".file number out of range"));
    /* truncated and unbalanced text: linked (the parser judges it), no overrun */
    static const char *junk[] = { HEAD("8.0", "sm_80") ".visible .entry k(", HEAD("8.0", "sm_80") "}}}{{{;",
                                  HEAD("8.0", "sm_80") ".func (", HEAD("8.0", "sm_80") "\"unterminated",
                                  HEAD("8.0", "sm_80") "/* open comment", HEAD("8.0", "sm_80") ".weak .global" };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        char *out = link2(unit_a, junk[i], err, sizeof err);
        free(out);
    }
    /* lengths shorter than the text are honoured */
    t[1] = unit_b;
    l[1] = 14; /* the .version line only: no .target */
    assert_null(emu_ptx_link(t, l, 2, &n, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(links_two_units),
        cmocka_unit_test(strong_twice_is_an_error),
        cmocka_unit_test(weak_before_strong_becomes_a_declaration),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
