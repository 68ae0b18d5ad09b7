/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding call records into text and JSON, and surviving bad records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "ledger.h"
#include "pystack.h"
#include "tdtrace.h"
#include "xlat.h"

struct builder { _Alignas(8) unsigned char buf[TD_RING_MAXREC]; uint32_t len; };

static struct td_rec *start(struct builder *b, const char *fn, int result, int nargs,
                            const uint64_t *args)
{
    memset(b, 0, sizeof(*b));
    struct td_rec *r = (struct td_rec *)b->buf;
    int id = td_api_find(fn);
    assert_true(id >= 0);
    r->fn = (uint16_t)id;
    r->nargs = (uint8_t)(nargs < 0 ? td_fns[id].nparams : nargs);
    r->result = result;
    b->len = sizeof(*r);
    memcpy(b->buf + b->len, args, (size_t)r->nargs * 8);
    b->len += (uint32_t)r->nargs * 8;
    return r;
}

static void item(struct builder *b, int arg, int kind, const void *data, size_t n, uint32_t flags)
{
    struct td_item *it = (struct td_item *)(b->buf + b->len);
    it->arg = (uint8_t)arg;
    it->kind = (uint8_t)kind;
    it->len = (uint16_t)n;
    it->flags = flags;
    memcpy(it + 1, data, n);
    b->len += (uint32_t)(sizeof(*it) + ((n + 7) & ~(size_t)7));
    ((struct td_rec *)b->buf)->nitems++;
}

static char *render(struct builder *b, enum tp_format fmt, int strsize, int verbose)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct tp p;
    tp_init(&p, fmt, f);
    p.strsize = strsize;
    if (fmt == TP_JSON)
        tp_raw(&p, "{");
    struct td_dec d = { 0, 0, 0, 1, fmt == TP_TEXT, verbose, 0 };
    td_print_call(&p, (const struct td_rec *)b->buf, b->len, &d);
    if (fmt == TP_JSON)
        tp_raw(&p, "}");
    tp_line_end(&p);
    tp_free(&p);
    fclose(f);
    text[strcspn(text, "\n")] = '\0';
    return text;
}

static void expect(struct builder *b, const char *want)
{
    char *got = render(b, TP_TEXT, 64, 0);
    if (strcmp(got, want) != 0)
        fail_msg("got  '%s'\nwant '%s'", got, want);
    free(got);
}

static void test_out_values(void **state)
{
    (void)state;
    struct builder b;
    uint64_t a[] = { 0x7ffd1000, 4096 };
    start(&b, "cuMemAlloc_v2", 0, -1, a);
    uint64_t dptr = 0x7f2a40000000ULL;
    item(&b, 0, TD_IT_OUT, &dptr, 8, 0);
    expect(&b, "cuMemAlloc_v2(&0x7f2a40000000, 4 KiB) = CUDA_SUCCESS");
    /* failed: no out-value, the pointer itself */
    start(&b, "cuMemAlloc_v2", 2, -1, a);
    expect(&b, "cuMemAlloc_v2(0x7ffd1000, 4 KiB) = CUDA_ERROR_OUT_OF_MEMORY (2)");
    char *v = render(&b, TP_TEXT, 64, 1);
    assert_non_null(strstr(v, "= CUDA_ERROR_OUT_OF_MEMORY (2) (The API call failed"));
    free(v);
}

static void test_enums_flags_streams(void **state)
{
    (void)state;
    struct builder b;
    uint64_t a[] = { 0x1000, 16, 0 };
    start(&b, "cuDeviceGetAttribute", 0, -1, a);
    int v = 1024;
    item(&b, 0, TD_IT_OUT, &v, 4, 0);
    expect(&b, "cuDeviceGetAttribute(&1024, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) = CUDA_SUCCESS");
    uint64_t s[] = { 0x2000, 1 };
    start(&b, "cuStreamCreate", 0, -1, s);
    uint64_t h = 0x55aa00;
    item(&b, 0, TD_IT_OUT, &h, 8, 0);
    expect(&b, "cuStreamCreate(&0x55aa00, CU_STREAM_NON_BLOCKING) = CUDA_SUCCESS");
    uint64_t s0[] = { 0x2000, 0 };
    start(&b, "cuStreamCreate", 0, -1, s0);
    expect(&b, "cuStreamCreate(0x2000, CU_STREAM_DEFAULT) = CUDA_SUCCESS");
    uint64_t hf[] = { 0x3000, 0x10, 0x3 | 0x40 };
    start(&b, "cuMemHostAlloc", 0, -1, hf);
    expect(&b, "cuMemHostAlloc(0x3000, 16 B, CU_MEMHOSTALLOC_PORTABLE|CU_MEMHOSTALLOC_DEVICEMAP|0x40)"
               " = CUDA_SUCCESS");
    uint64_t sy[] = { 1 };
    start(&b, "cuStreamSynchronize", 0, -1, sy);
    expect(&b, "cuStreamSynchronize(CU_STREAM_LEGACY) = CUDA_SUCCESS");
    uint64_t sy0[] = { 0 };
    start(&b, "cuStreamSynchronize", 400, -1, sy0);
    expect(&b, "cuStreamSynchronize(NULL) = CUDA_ERROR_INVALID_HANDLE (400)");
    uint64_t neg[] = { 0x1000, 0xfffffffe };
    start(&b, "cuDeviceGet", 101, -1, neg);
    expect(&b, "cuDeviceGet(0x1000, -2) = CUDA_ERROR_INVALID_DEVICE (101)");
}

static void test_strings(void **state)
{
    (void)state;
    struct builder b;
    uint64_t a[] = { 0x1000, 0x2000, 13000, 2, 0x3000 };
    start(&b, "cuGetProcAddress_v2", 0, -1, a);
    item(&b, 0, TD_IT_STR, "cuMemcpyHtoD", 12, 0);
    uint64_t fnp = 0x7f0011223344ULL;
    item(&b, 1, TD_IT_OUT, &fnp, 8, 0);
    int st = 0;
    item(&b, 4, TD_IT_OUT, &st, 4, 0);
    expect(&b, "cuGetProcAddress_v2(\"cuMemcpyHtoD\", &0x7f0011223344, 13000, "
               "CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS");
    char *t = render(&b, TP_TEXT, 4, 0);
    assert_non_null(strstr(t, "(\"cuMe\"..., "));
    free(t);
    /* quotes and control characters are escaped */
    uint64_t n[] = { 0x1000, 256, 0 };
    start(&b, "cuDeviceGetName", 0, -1, n);
    item(&b, 0, TD_IT_STR, "a\"b\n\001", 5, 0);
    expect(&b, "cuDeviceGetName(\"a\\\"b\\n\\1\", 256, 0) = CUDA_SUCCESS");
    uint64_t e[] = { 2, 0x1000 };
    start(&b, "cuGetErrorName", 0, -1, e);
    item(&b, 1, TD_IT_STR, "CUDA_ERROR_OUT_OF_MEMORY", 24, 0);
    expect(&b, "cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &\"CUDA_ERROR_OUT_OF_MEMORY\") = CUDA_SUCCESS");
}

static void test_json(void **state)
{
    (void)state;
    struct builder b;
    uint64_t a[] = { 0x7ffd1000, 4096 };
    start(&b, "cuMemAlloc_v2", 0, -1, a);
    uint64_t dptr = 0x7f2a40000000ULL;
    item(&b, 0, TD_IT_OUT, &dptr, 8, 0);
    char *j = render(&b, TP_JSON, 64, 0);
    assert_string_equal(j, "{\"call\":\"cuMemAlloc_v2\",\"args\":{\"dptr\":\"0x7f2a40000000\","
                           "\"bytesize\":4096},\"ret\":0,\"retname\":\"CUDA_SUCCESS\"}");
    free(j);
}

/* a record is untrusted: nothing in it may crash the decoder */
static void test_corrupt(void **state)
{
    (void)state;
    struct builder b;
    uint64_t a[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    start(&b, "cuMemAlloc_v2", 0, 5, a); /* wrong argument count */
    char *t = render(&b, TP_TEXT, 64, 0);
    assert_non_null(strstr(t, "<corrupt>"));
    free(t);
    start(&b, "cuMemAlloc_v2", 0, -1, a);
    ((struct td_rec *)b.buf)->fn = 0xffff; /* no such function */
    t = render(&b, TP_TEXT, 64, 0);
    assert_non_null(strstr(t, "?("));
    free(t);
    /* items whose lengths run past the record */
    start(&b, "cuGetErrorName", 0, -1, a);
    item(&b, 1, TD_IT_STR, "xxxxxxxx", 8, 0);
    struct td_item *it = (struct td_item *)(b.buf + sizeof(struct td_rec) + 16);
    it->len = 60000;
    t = render(&b, TP_TEXT, 64, 0);
    free(t);
    ((struct td_rec *)b.buf)->nitems = 250;
    it->len = 8;
    t = render(&b, TP_TEXT, 64, 0);
    free(t);
    /* random records of every length */
    srand(42);
    for (int round = 0; round < 20000; round++) {
        struct builder r;
        for (size_t i = 0; i < sizeof(r.buf); i++)
            r.buf[i] = (unsigned char)rand();
        struct td_rec *rec = (struct td_rec *)r.buf;
        rec->fn = (uint16_t)(rand() % (TD_FN__COUNT + 5));
        if (round % 2 && rec->fn < TD_FN__COUNT)
            rec->nargs = td_fns[rec->fn].nparams;
        rec->nitems = (uint8_t)(rand() % 6);
        r.len = (uint32_t)(rand() % (int)sizeof(r.buf));
        if (r.len < sizeof(struct td_rec))
            r.len = sizeof(struct td_rec);
        t = render(&r, round % 3 ? TP_TEXT : TP_JSON, rand() % 80, round % 5 == 0);
        free(t);
    }
}

/* td_rec_check: what tdtrace refuses before using a record, and why */
static void expect_bad(struct builder *b, uint32_t pid, const char *why)
{
    char got[200];
    ((struct td_rec *)b->buf)->word = TD_REC_WORD(b->len, TD_ST_COMMITTED, TD_REC_CALL, 1);
    assert_int_equal(td_rec_check((const struct td_rec *)b->buf, b->len, pid, got, sizeof(got)), -1);
    if (strcmp(got, why) != 0)
        fail_msg("got '%s', want '%s'", got, why);
}

static void test_check(void **state)
{
    (void)state;
    struct builder b;
    char why[200];
    uint64_t a[] = { 0x7ffd1000, 4096 }, dptr = 0x7f2a40000000ULL;
    struct td_rec *r = start(&b, "cuMemAlloc_v2", 0, -1, a);
    item(&b, 0, TD_IT_OUT, &dptr, 8, 0);
    r->pid = 42;
    r->word = TD_REC_WORD(b.len, TD_ST_COMMITTED, TD_REC_CALL, 1);
    assert_int_equal(td_rec_check(r, b.len, 42, why, sizeof(why)), 0);
    expect_bad(&b, 43, "the record claims pid 42");
    r->fn = TD_FN__COUNT;
    char want[64];
    snprintf(want, sizeof(want), "function id %d is not a function", TD_FN__COUNT);
    expect_bad(&b, 42, want);
    r->fn = (uint16_t)td_api_find("cuMemAlloc_v2");
    r->nargs = 3;
    expect_bad(&b, 42, "cuMemAlloc_v2 with 3 arguments, not 2");
    r->nargs = 2;
    r->verdict = 9;
    expect_bad(&b, 42, "cuMemAlloc_v2 with policy verdict 9");
    r->verdict = 0;
    struct td_item *it = (struct td_item *)(b.buf + sizeof(*r) + 16);
    it->len = 600;
    expect_bad(&b, 42, "item 0 runs past the record's end");
    it->len = 8;
    it->arg = 2; /* past the arguments */
    expect_bad(&b, 42, "item 0: kind 1 for argument 2");
    it->arg = 0;
    b.len += 8; /* a tail after the last item */
    expect_bad(&b, 42, "8 bytes after the last item");
    b.len -= 8;
    r->word = TD_REC_WORD(b.len, TD_ST_COMMITTED, 9, 1);
    assert_int_equal(td_rec_check(r, b.len, 42, why, sizeof(why)), -1);
    assert_string_equal(why, "record type 9");
    assert_int_equal(td_rec_check(r, 16, 42, why, sizeof(why)), -1);
    assert_string_equal(why, "a record of 16 bytes");

    /* well formed, but a device no table holds: the ledger refuses it */
    uint64_t c[] = { 0x1000, 0, (uint64_t)(int64_t)-0x20000000 }, ctx = 0x5a5a000;
    r = start(&b, "cuCtxCreate_v2", 0, -1, c);
    item(&b, 0, TD_IT_OUT, &ctx, 8, 0);
    assert_int_equal(td_ledger_check(r, b.len, why, sizeof(why)), -1);
    assert_string_equal(why, "cuCtxCreate_v2: device -536870912 is not a device");
    c[2] = TD_MAX_DEVICES;
    r = start(&b, "cuCtxCreate_v2", 0, -1, c);
    assert_int_equal(td_ledger_check(r, b.len, why, sizeof(why)), -1);
    c[2] = TD_MAX_DEVICES - 1;
    r = start(&b, "cuCtxCreate_v2", 0, -1, c);
    assert_int_equal(td_ledger_check(r, b.len, why, sizeof(why)), 0);
    c[2] = (uint64_t)-1; /* a failed call changes nothing: accepted */
    r = start(&b, "cuCtxCreate_v2", 101, -1, c);
    assert_int_equal(td_ledger_check(r, b.len, why, sizeof(why)), 0);
}

/* --py: a frames item, checked whole (td_rec_py) and printed */
static struct td_rec *py_record(struct builder *b, struct td_pyitem h, const struct td_pyrecframe *fr,
                                const char *str, size_t nstr)
{
    uint64_t a[] = { 0x7ffd1000 };
    struct td_rec *r = start(b, "cuDeviceGetCount", 0, -1, a);
    unsigned char body[512];
    memcpy(body, &h, sizeof(h));
    memcpy(body + sizeof(h), fr, h.n * sizeof(*fr));
    memcpy(body + sizeof(h) + h.n * sizeof(*fr), str, nstr);
    item(b, 0, TD_IT_PYFRAMES, body, sizeof(h) + h.n * sizeof(*fr) + nstr, 0);
    r->pid = 42;
    r->word = TD_REC_WORD(b->len, TD_ST_COMMITTED, TD_REC_CALL, 1);
    return r;
}

static void test_pyframes_item(void **state)
{
    (void)state;
    struct builder b;
    char why[200];
    static const char str[] = "/srv/a\"b.py\0Model.step\0main.py\0<module>"; /* 0, 12, 23, 31: 40 bytes */
    struct td_pyrecframe fr[2] = { { 0, 12, 42, 0, 0x4 }, { 23, 31, -1, 1, 0x4 } };
    struct td_rec *r = py_record(&b, (struct td_pyitem){ 2, 0, 1, 40 }, fr, str, 40);
    assert_int_equal(td_rec_check(r, b.len, 42, why, sizeof(why)), 0);
    struct td_pyview v;
    assert_int_equal(td_rec_py(r, b.len, &v, why, sizeof(why)), 1);
    assert_int_equal(v.n, 2);
    assert_int_equal(v.more, 1);
    assert_string_equal(v.str + v.fr[1].func, "<module>");
    /* text: the innermost, the file's last component, escaped; -k's line; JSON */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct tp p;
    tp_init(&p, TP_TEXT, f);
    td_py_brief(&p, &v);
    tp_line_end(&p);
    td_py_frame(&p, &v, 1);
    tp_free(&p);
    tp_init(&p, TP_JSON, f);
    td_py_json(&p, &v);
    tp_line_end(&p);
    tp_free(&p);
    fclose(f);
    assert_string_equal(text, " [a\\\"b.py:42 in Model.step]\n > [main.py in <module>]\n"
                              "[{\"file\":\"/srv/a\\\"b.py\",\"line\":42,\"func\":\"Model.step\",\"group\":0},"
                              "{\"file\":\"main.py\",\"line\":-1,\"func\":\"<module>\",\"group\":1}]\n");
    free(text);
    /* each way an item can lie */
    struct td_pyrecframe bad = { 40, 12, 42, 0, 0 };
    py_record(&b, (struct td_pyitem){ 1, 0, 0, 40 }, &bad, str, 40);
    expect_bad(&b, 42, "Python frame 0: a string outside the item or without its end");
    py_record(&b, (struct td_pyitem){ 1, 0, 0, 39 }, &fr[1], str, 39); /* "<module>" loses its NUL */
    expect_bad(&b, 42, "Python frame 0: a string outside the item or without its end");
    py_record(&b, (struct td_pyitem){ 0, 0, 0, 40 }, fr, str, 40);
    expect_bad(&b, 42, "Python frames item with 0 frames, status 0, more 0");
    py_record(&b, (struct td_pyitem){ 1, 9, 0, 40 }, fr, str, 40);
    expect_bad(&b, 42, "Python frames item with 1 frames, status 9, more 0");
    py_record(&b, (struct td_pyitem){ 1, 0, 0, 0xffffffffu }, fr, str, 40);
    expect_bad(&b, 42, "Python frames item of 64 bytes for 1 frames and 4294967295 bytes of strings");
    struct td_pyrecframe back[2] = { fr[1], fr[0] };
    py_record(&b, (struct td_pyitem){ 2, 0, 0, 40 }, back, str, 40);
    expect_bad(&b, 42, "Python frame 1: line 42, flags 0x4, group 0");
    struct td_pyrecframe neg = { 0, 12, -2, 0, 0 };
    py_record(&b, (struct td_pyitem){ 1, 0, 0, 40 }, &neg, str, 40);
    expect_bad(&b, 42, "Python frame 0: line -2, flags 0, group 0");
    r = py_record(&b, (struct td_pyitem){ 1, 0, 0, 40 }, fr, str, 40);
    ((struct td_item *)(b.buf + sizeof(*r) + 8))->arg = 1;
    expect_bad(&b, 42, "item 0: kind 8 for argument 1");
}

static int td_trace_set_(const char *e, uint8_t *m, size_t n, char *err, size_t errlen)
{
    return td_trace_set(e, m, NULL, n, err, errlen);
}

static void test_trace_set(void **state)
{
    (void)state;
    uint8_t m[1024];
    char err[256];
#define ON(name) ((m[td_api_find(name) >> 3] >> (td_api_find(name) & 7)) & 1)
    assert_int_equal(td_trace_set_("cuMemAlloc", m, sizeof(m), err, sizeof(err)), 0);
    assert_true(ON("cuMemAlloc") && ON("cuMemAlloc_v2"));
    assert_false(ON("cuMemFree_v2"));
    assert_int_equal(td_trace_set_("%memory,cuInit", m, sizeof(m), err, sizeof(err)), 0);
    assert_true(ON("cuMemFree_v2") && ON("cuInit") && ON("cuMemGetInfo_v2"));
    assert_false(ON("cuMemcpyHtoD_v2") || ON("cuStreamCreate"));
    assert_int_equal(td_trace_set_("!%copy", m, sizeof(m), err, sizeof(err)), 0);
    assert_true(ON("cuInit"));
    assert_false(ON("cuMemcpyHtoD_v2") || ON("cuMemsetD8_v2"));
    assert_int_equal(td_trace_set_("/^cuEvent(Record|Query)", m, sizeof(m), err, sizeof(err)), 0);
    assert_true(ON("cuEventRecord") && ON("cuEventRecord_ptsz") && ON("cuEventQuery"));
    assert_false(ON("cuEventCreate"));
    assert_int_equal(td_trace_set_("none", m, sizeof(m), err, sizeof(err)), 0);
    assert_false(ON("cuInit"));
    assert_int_equal(td_trace_set_("cuNope", m, sizeof(m), err, sizeof(err)), -1);
    assert_string_equal(err, "invalid function name 'cuNope'");
    assert_int_equal(td_trace_set_("cuMemAloc", m, sizeof(m), err, sizeof(err)), -1);
    assert_string_equal(err, "invalid function name 'cuMemAloc'; did you mean 'cuMemAlloc'?");
    uint8_t named[1024];
    assert_int_equal(td_trace_set("!cuInit", m, named, sizeof(m), err, sizeof(err)), 0);
    assert_false(td_mask_has(named, td_api_find("cuMemAlloc_v2"))); /* a negation names nothing */
    assert_int_equal(td_trace_set("%memory", m, named, sizeof(m), err, sizeof(err)), 0);
    assert_true(td_mask_has(named, td_api_find("cuMemAlloc_v2")));
    assert_int_equal(td_trace_set_("%nope", m, sizeof(m), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "invalid class '%nope'"));
    assert_int_equal(td_trace_set_("/(", m, sizeof(m), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "invalid regular expression"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_values),
        cmocka_unit_test(test_enums_flags_streams),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_pyframes_item),
        cmocka_unit_test(test_trace_set),
    };
    return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
