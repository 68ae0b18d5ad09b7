/* SPDX-License-Identifier: Apache-2.0 */
/* src/pyframes, the parts: reads that never fault, str to UTF-8, the three
 * line-table formats (tables built by hand from the formats' descriptions,
 * plus truncated and garbage ones), the layout table's own consistency,
 * and a process without Python: nothing is read in it. The reader inside
 * real interpreters: tests/pyframes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pyframes.h"
#include "pyint.h"

/* ---- a process without Python: first, before anything reads ------------ */

static void *state_in_thread(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)td_py_state();
}

static void test_no_python(void **s)
{
    (void)s;
    /* several threads look at once */
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, state_in_thread, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_int_equal((intptr_t)r, TD_PY_ABSENT);
    }
    assert_string_equal(td_py_describe(), "no Python");
    assert_int_equal(td_py_version(), 0);
    struct td_pyframe fr[4];
    char str[256];
    for (int i = 0; i < 100; i++) {
        struct td_pyread r = { .frames = fr, .max = 4, .str = str, .str_size = sizeof(str) };
        assert_int_equal(td_py_read(&r), 0);
        assert_int_equal(r.status, TD_PYS_ABSENT);
        assert_int_equal(r.more, 0);
        assert_int_equal(r.str_used, 0);
    }
    /* not one byte of the process was read */
    assert_int_equal(td_py_syscalls(), 0);
    assert_string_equal(td_py_status_name(TD_PYS_ABSENT), "no Python");
    assert_string_equal(td_py_status_name(99), "?");
    assert_string_equal(td_py_status_name(-1), "?");
}

/* ---- reads ---------------------------------------------------------------- */

static void test_readv(void **s)
{
    (void)s;
    td_py_read_setpid();
    long pg = sysconf(_SC_PAGESIZE);
    /* a readable page followed by one that is not */
    unsigned char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
    for (long i = 0; i < pg; i++)
        m[i] = (unsigned char)i;
    unsigned char a[64], b[64], c[64], d[64];
    struct td_pyseg seg[4] = {
        { (uintptr_t)m, a, 64, 7 },                        /* whole */
        { (uintptr_t)(m + pg - 16), b, 64, 7 },            /* runs into the hole */
        { (uintptr_t)(m + pg), c, 64, 7 },                 /* in the hole */
        { (uintptr_t)(m + 100), d, 64, 7 },                /* after it: still read */
    };
    assert_int_equal(td_py_readv(seg, 4), 0);
    assert_int_equal(seg[0].got, 64);
    assert_memory_equal(a, m, 64);
    assert_int_equal(seg[1].got, 16);
    assert_memory_equal(b, m + pg - 16, 16);
    assert_int_equal(seg[2].got, 0);
    assert_int_equal(seg[3].got, 64);
    assert_memory_equal(d, m + 100, 64);
    /* NULL, a kernel address, an address that wraps */
    struct td_pyseg bad[3] = {
        { 0, a, 8, 7 },
        { (uintptr_t)0xffffffffff600000ull, a, 8, 7 },
        { UINTPTR_MAX - 3, a, 8, 7 },
    };
    assert_int_equal(td_py_readv(bad, 3), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(bad[i].got, 0);
    /* more pieces than one system call takes */
    struct td_pyseg many[70];
    unsigned char dst[70][8];
    for (int i = 0; i < 70; i++)
        many[i] = (struct td_pyseg){ (uintptr_t)(i % 3 == 1 ? m + pg : m + i * 8), dst[i], 8, 0 };
    assert_int_equal(td_py_readv(many, 70), 0);
    for (int i = 0; i < 70; i++) {
        assert_int_equal(many[i].got, i % 3 == 1 ? 0 : 8);
        if (i % 3 != 1)
            assert_memory_equal(dst[i], m + i * 8, 8);
    }
    munmap(m, (size_t)pg * 2);
}

/* ---- str to UTF-8 --------------------------------------------------------- */

static void test_utf8(void **s)
{
    (void)s;
    char out[64];
    int cut;
    assert_int_equal(td_py_utf8(out, 63, "train.py", 8, 1, 1, &cut), 8);
    assert_string_equal(out, "train.py");
    assert_false(cut);
    /* latin-1 */
    const unsigned char l1[] = { 'g', 'r', 0xf6, 0xdf, 'e' };
    td_py_utf8(out, 63, l1, 5, 1, 0, &cut);
    assert_string_equal(out, "gr\xc3\xb6\xc3\x9f" "e");
    /* UCS-2 with a lone surrogate: an escaped byte, and one that is not */
    const uint16_t u2[] = { 0x95a2, 0xdcff, 0xd800, 'x' };
    td_py_utf8(out, 63, u2, 4, 2, 0, &cut);
    assert_string_equal(out, "\xe9\x96\xa2\xff?x");
    /* UCS-4: an astral character, NUL, and what is no code point */
    const uint32_t u4[] = { 0x1f600, 0, 0x110000, 'z' };
    td_py_utf8(out, 63, u4, 4, 4, 0, &cut);
    assert_string_equal(out, "\xf0\x9f\x98\x80??z");
    /* an "ASCII" string with a byte that is not */
    td_py_utf8(out, 63, "a\x80", 2, 1, 1, &cut);
    assert_string_equal(out, "a?");
    /* too long: the end is kept, never half a character */
    assert_int_equal(td_py_utf8(out, 4, "abcdefgh", 8, 1, 1, &cut), 4);
    assert_string_equal(out, "efgh");
    assert_true(cut);
    const uint16_t wide[] = { 'a', 0x95a2, 0x95a2 }; /* 1 + 3 + 3 bytes */
    assert_int_equal(td_py_utf8(out, 5, wide, 3, 2, 0, &cut), 3);
    assert_string_equal(out, "\xe9\x96\xa2");
    assert_true(cut);
    assert_int_equal(td_py_utf8(out, 0, "ab", 2, 1, 1, &cut), 0);
    assert_string_equal(out, "");
    assert_true(cut);
    /* a kind that is not one */
    assert_int_equal(td_py_utf8(out, 63, "ab", 2, 3, 0, &cut), 0);
    assert_true(cut);
}

/* ---- line tables ----------------------------------------------------------- */

/* the line at target, fed whole and in pieces of every size */
static int line(int fmt, const uint8_t *t, size_t n, int first, int target)
{
    struct td_pylt w;
    int whole = -100;
    td_pylt_init(&w, fmt, first, target);
    assert_true(td_pylt_feed(&w, t, n, n, &whole));
    for (size_t step = 1; step <= n; step++) {
        int piece = -100;
        td_pylt_init(&w, fmt, first, target);
        size_t guard = 0;
        for (;;) {
            size_t pos = w.pos, k = n - pos < step ? n - pos : step;
            if (td_pylt_feed(&w, t + pos, k, n, &piece))
                break;
            if (w.pos == pos) /* an entry longer than the piece: take more */
                k = n - pos;
            assert_true(++guard < 1000);
            if (w.pos == pos) {
                assert_true(td_pylt_feed(&w, t + pos, k, n, &piece));
                break;
            }
        }
        assert_int_equal(piece, whole);
    }
    return whole;
}

static void test_lnotab(void **s)
{
    (void)s;
    /* 3.9: (address increment, signed line increment) pairs. Line 10 from 0,
     * 11 from 6, 9 from 10 (a negative increment), 300 from 20 (+291 over
     * three pairs at one address), 301 from 300 (+280 over two pairs) */
    const uint8_t t[] = { 6, 1, 4, 0xfe, 10, 127, 0, 127, 0, 37, 255, 0, 25, 1 };
    int f = 10;
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, -1), 10);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 0), 10);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 5), 10);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 6), 11);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 10), 9);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 19), 9);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 20), 300);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 299), 300);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 300), 301);
    assert_int_equal(line(TD_PYL_LNOTAB, t, sizeof(t), f, 100000), 301);
    assert_int_equal(line(TD_PYL_LNOTAB, t, 0, f, 4), 10);
    /* an odd byte at the end is no pair */
    assert_int_equal(line(TD_PYL_LNOTAB, t, 3, f, 8), 11);
}

static void test_linetable(void **s)
{
    (void)s;
    /* 3.10: (address delta, line delta) pairs, each a range; -128: no line.
     * [0,6) line 5+1, [6,10) no line, [10,14) 6+2 (the zero-length range before
     * it carries +1 of it), [14,16) 8-3 */
    const uint8_t t[] = { 6, 1, 4, 0x80, 0, 1, 4, 1, 2, 0xfd };
    int f = 5;
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, -2), 5);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 0), 6);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 4), 6);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 6), -1);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 10), 8);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 14), 5);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 15), 5);
    assert_int_equal(line(TD_PYL_LINETABLE, t, sizeof(t), f, 16), -1); /* past the end */
    assert_int_equal(line(TD_PYL_LINETABLE, t, 0, f, 0), -1);
}

/* a 3.11+ entry's first byte */
#define E(code, units) (uint8_t)(0x80 | (code) << 3 | ((units) - 1))

static void test_locations(void **s)
{
    (void)s;
    const uint8_t t[] = {
        E(13, 1), 0x02,                   /* [0,2): no columns, line +1 -> 21 */
        E(0, 2), 0x05,                    /* [2,6): short form, same line */
        E(11, 1), 3, 9,                   /* [6,8): one-line form, +1 -> 22 */
        E(14, 3), 0x07, 0x00, 0x01, 0x02, /* [8,14): long form, -3 -> 19 */
        E(15, 2),                         /* [14,18): no location */
        E(12, 8), 0, 1,                   /* [18,34): +2 -> 21 */
        E(13, 1), 0x40 | 0x10, 0x01,      /* [34,36): varint 16 + 64 = 80: +40 -> 61 */
        E(10, 1), 5, 6,                   /* [36,38): +0 -> 61 */
    };
    int f = 20;
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, -2), 20);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 0), 21);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 2), 21);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 5), 21);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 6), 22);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 8), 19);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 12), 19);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 14), -1);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 18), 21);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 33), 21);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 34), 61);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 36), 61);
    assert_int_equal(line(TD_PYL_LOCATIONS, t, sizeof(t), f, 38), -1); /* past the end */
    /* a varint cut by the table's end, one that never ends, a table that
     * does not start at an entry, one whose deltas overflow the line */
    const uint8_t cut[] = { E(13, 1), 0x40 };
    assert_int_equal(line(TD_PYL_LOCATIONS, cut, sizeof(cut), f, 0), -1);
    uint8_t endless[40] = { E(14, 1) };
    memset(endless + 1, 0x7f, sizeof(endless) - 1);
    assert_int_equal(line(TD_PYL_LOCATIONS, endless, sizeof(endless), f, 0), -1);
    const uint8_t nostart[] = { 0x05, E(13, 1), 0x02 };
    assert_int_equal(line(TD_PYL_LOCATIONS, nostart, sizeof(nostart), f, 0), -1);
    const uint8_t huge[] = { E(13, 1), 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x07 };
    int l = line(TD_PYL_LOCATIONS, huge, sizeof(huge), 0x7fff0000, 0);
    assert_true(l == -1 || l > 0);
}

/* garbage tables of every format: an answer (any line: garbage deltas make
 * any), pieces agree, no read past the end (ASan sees the table in a buffer
 * of its exact size) */
static void test_garbage_tables(void **s)
{
    (void)s;
    srand(7);
    for (int fmt = TD_PYL_LNOTAB; fmt <= TD_PYL_LOCATIONS; fmt++) {
        for (int i = 0; i < 2000; i++) {
            size_t n = (size_t)(rand() % 48);
            uint8_t *t = malloc(n ? n : 1);
            for (size_t k = 0; k < n; k++)
                t[k] = (uint8_t)rand();
            line(fmt, t, n, rand() % 1000 - 5, rand() % 700 - 3);
            free(t);
        }
    }
    /* an unknown format */
    struct td_pylt w;
    int ln = 5;
    td_pylt_init(&w, 99, 1, 0);
    assert_true(td_pylt_feed(&w, (const uint8_t *)"", 0, 0, &ln));
    assert_int_equal(ln, -1);
}

/* ---- the layout table ------------------------------------------------------- */

static void test_layouts(void **s)
{
    (void)s;
    assert_null(td_pylayout_for(8));
    assert_null(td_pylayout_for(14));
    for (unsigned minor = 9; minor <= 13; minor++) {
        const struct td_pylayout *L = td_pylayout_for(minor);
        assert_non_null(L);
        assert_int_equal(L->minor, minor);
        /* every field read lies in what is read of its object */
        unsigned tsmax = L->ts_cframe ? L->ts_cframe : L->ts_frame;
        if (L->ts_chunk)
            tsmax = L->ts_top > tsmax ? L->ts_top : tsmax;
        tsmax = L->ts_thread_id > tsmax ? L->ts_thread_id : tsmax;
        assert_true((L->ts_thread_id != 0) == (minor <= 11));
        assert_true(tsmax + 8 <= L->ts_read && L->ts_read <= 320);
        unsigned fr[] = { L->fr_back + 8u, L->fr_code + 8u, L->fr_instr + (L->frames == TD_PYFR_OBJECT ? 4u : 8u),
                          L->fr_owner + 1u, L->fr_entry + 1u, TD_PYOB_TYPE + 8u };
        for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++)
            assert_true(fr[i] <= L->fr_read);
        assert_true(L->fr_read <= 112);
        unsigned co[] = { L->co_firstlineno + 4u, L->co_filename + 8u, L->co_name + 8u, L->co_lines + 8u,
                          L->co_firsttraceable + 4u, TD_PYVAR_SIZE + 8u };
        for (size_t i = 0; i < sizeof(co) / sizeof(co[0]); i++)
            assert_true(co[i] <= L->co_read);
        assert_true(L->co_read <= 200);
        assert_true(L->str_ascii_data >= TD_PYSTR_STATE + 4 && L->str_compact_data > L->str_ascii_data);
        assert_true(L->frames == (minor < 11 ? TD_PYFR_OBJECT : TD_PYFR_INTERP));
        assert_true(L->lines == (minor == 9 ? TD_PYL_LNOTAB : minor == 10 ? TD_PYL_LINETABLE : TD_PYL_LOCATIONS));
        for (unsigned i = 0; i < L->ndebug; i++)
            assert_true(L->debug[i].at + 8u <= 584);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_python), /* first: nothing read yet */
        cmocka_unit_test(test_readv),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_lnotab),
        cmocka_unit_test(test_linetable),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_garbage_tables),
        cmocka_unit_test(test_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
