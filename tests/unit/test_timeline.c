/* SPDX-License-Identifier: Apache-2.0 */
/* The timeline writer (src/tdtrace/timeline.c): records in, Chrome trace
 * event JSON out. The file must parse whatever the records hold (a
 * validator below, JSON's grammar), say each event as docs/timeline.md
 * does, and keep thread ids claimed by the program off the streams'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger.h"
#include "output.h"
#include "tdtrace.h"
#include "timeline.h"

struct builder { _Alignas(8) unsigned char buf[TD_RING_MAXREC]; uint32_t len; };

static struct td_rec *start(struct builder *b, unsigned type, unsigned fn, int nargs, const uint64_t *args)
{
    memset(b, 0, sizeof(*b));
    struct td_rec *r = (struct td_rec *)b->buf;
    r->fn = (uint16_t)fn;
    r->nargs = (uint8_t)nargs;
    r->pid = 4242;
    r->tid = 4243;
    r->t_enter = 5000001234ULL;
    r->t_exit = 5000009999ULL;
    b->len = sizeof(*r);
    if (nargs)
        memcpy(b->buf + b->len, args, (size_t)nargs * 8);
    b->len += (uint32_t)nargs * 8;
    r->word = TD_REC_WORD(0, TD_ST_COMMITTED, type, r->tid);
    return r;
}

static void item(struct builder *b, int arg, int kind, const void *data, size_t n)
{
    struct td_item *it = (struct td_item *)(b->buf + b->len);
    it->arg = (uint8_t)arg;
    it->kind = (uint8_t)kind;
    it->len = (uint16_t)n;
    memcpy(it + 1, data, n);
    b->len += (uint32_t)(sizeof(*it) + ((n + 7) & ~(size_t)7));
    ((struct td_rec *)b->buf)->nitems++;
}

static const struct td_rec *done(struct builder *b)
{
    struct td_rec *r = (struct td_rec *)b->buf;
    r->word = TD_REC_WORD(b->len, TD_ST_COMMITTED, TD_REC_TYPE(r->word), r->tid);
    char why[200];
    assert_int_equal(td_rec_check(r, b->len, r->pid, why, sizeof(why)), 0);
    return r;
}

/* ---- a JSON validator (RFC 8259's grammar) ---- */
static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *value(const char *p);

static const char *string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
        p++;
    }
    return p + 1;
}

static const char *number(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p > s ? p : NULL;
}

static const char *value(const char *p)
{
    p = ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                if (!(p = string(ws(p))))
                    return NULL;
                p = ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if (!(p = value(p)))
                return NULL;
            p = ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return string(p);
    if (!strncmp(p, "null", 4) || !strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    return number(p);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void test_timeline(void **state)
{
    (void)state;
    char dir[] = "/tmp/td-tl-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof(path), "%s/t.json", dir);
    static struct td_opts o;
    memset(&o, 0, sizeof(o));
    o.strsize = 64;
    o.timeline = path;
    static char *cmd[] = { "./app", "a\"b", NULL };
    o.cmd = cmd;
    td_out_open(&o);
    td_tl_open(&o);
    assert_true(td_tl_active());
    struct builder b;

    start(&b, TD_REC_HELLO, TD_BK_EMULATE, 0, NULL);
    td_tl_hello(done(&b), b.len);

    /* a call that queued work (corr 7), from a thread id in the streams' range */
    uint64_t sy[] = { 0x1000 };
    struct td_rec *r = start(&b, TD_REC_CALL, (unsigned)td_api_find("cuStreamSynchronize"), 1, sy);
    r->tid = 1000000005;
    uint64_t corr = 7;
    item(&b, 0, TD_IT_CORR, &corr, 8);
    const struct td_rec *call = done(&b);
    td_tl_call(call, b.len, "DENIED by x.policy:3");

    /* its kernel, with a name that needs escaping, on device 1 stream 2 */
    struct td_ev_kernel k = { { 2, 1, 1 }, { 32, 1, 1 }, 128, 1, 2, 7, 0, 0, 0 };
    r = start(&b, TD_REC_EVENT, TD_EV_KERNEL, 0, NULL);
    r->t_enter = 5000020000ULL;
    r->t_exit = 5000030500ULL;
    item(&b, 0, TD_IT_EVENT, &k, sizeof(k));
    static const char name[] = "k\"\\\n\x01\x7f";
    item(&b, 1, TD_IT_STR, name, sizeof(name) - 1);
    td_tl_device(done(&b), b.len);

    /* a copy on the legacy stream */
    struct td_ev_devop op = { TD_DOP_MEMCPY, TD_DIR_DTOH, 0, 0, 0, 0, 4096 };
    start(&b, TD_REC_EVENT, TD_EV_DEVOP, 0, NULL);
    item(&b, 0, TD_IT_EVENT, &op, sizeof(op));
    td_tl_device(done(&b), b.len);

    td_tl_process(4242, 6000000000ULL, "fork", "4244");
    td_tl_process(4244, 6000000001ULL, "exec", "/bin/x\"y");
    td_tl_process(4244, 6000000002ULL, "exit", "+++ exited with 0 +++");
    td_tl_close();
    assert_false(td_tl_active());
    td_out_close();

    char *t = slurp(path);
    const char *end = value(t);
    if (!end || *ws(end))
        fail_msg("not JSON at offset %ld: %.80s", end ? (long)(end - t) : -1L, end ? end : t);
    /* the call: on the main track (its tid is a stream's), its text, corr, a flow from its middle */
    assert_non_null(strstr(t, "{\"ph\":\"X\",\"pid\":4242,\"tid\":4242,\"cat\":\"driver\",\"name\":\"cuStreamSynchronize\","
                              "\"ts\":5000001.234,\"dur\":8.765,\"args\":{\"ret\":\"CUDA_SUCCESS\",\"call\":"
                              "\"cuStreamSynchronize(0x1000) = CUDA_SUCCESS\",\"corr\":7}}"));
    assert_non_null(strstr(t, "{\"ph\":\"s\",\"pid\":4242,\"tid\":4242,\"cat\":\"flow\",\"name\":\"launch\",\"id\":7,"
                              "\"ts\":5000005.616}"));
    assert_non_null(strstr(t, "\"cat\":\"policy\",\"name\":\"DENIED by x.policy:3\""));
    /* the kernel on its stream's track, escaped, with the flow's end */
    assert_non_null(strstr(t, "{\"ph\":\"X\",\"pid\":4242,\"tid\":1001000002,\"cat\":\"kernel\","
                              "\"name\":\"k\\\"\\\\\\n\\u0001\\u007f\",\"ts\":5000020.000,\"dur\":10.500,"
                              "\"args\":{\"corr\":7,\"device\":1,\"stream\":2,\"grid\":[2,1,1],\"block\":[32,1,1],"
                              "\"shared\":128}}"));
    assert_non_null(strstr(t, "{\"ph\":\"f\",\"pid\":4242,\"tid\":1001000002,\"bp\":\"e\",\"cat\":\"flow\","
                              "\"name\":\"launch\",\"id\":7,\"ts\":5000020.000}"));
    assert_non_null(strstr(t, "\"args\":{\"name\":\"device 1 stream 2\"}"));
    assert_non_null(strstr(t, "\"cat\":\"memcpy\",\"name\":\"memcpy DtoH\""));
    assert_non_null(strstr(t, "\"args\":{\"device\":0,\"stream\":0,\"bytes\":4096,\"direction\":\"DtoH\"}"));
    assert_null(strstr(t, "\"name\":\"thread 1000000005\""));
    assert_non_null(strstr(t, "\"name\":\"fork\",\"ts\":6000000.000,\"args\":{\"child\":\"4244\"}"));
    assert_non_null(strstr(t, "\"args\":{\"name\":\"4244 x\\\"y\"}"));
    assert_non_null(strstr(t, "\"command\":\"./app a\\\"b\""));
    assert_non_null(strstr(t, "\"device_times\":\"emulator\"}}"));
    free(t);
    unlink(path);
    rmdir(dir);
}

/* otherData.device_times: who measured the device spans: a process on the
 * driver with spans (CUPTI's, src/shim/cupti.c), one without, the emulator */
static const char *device_times(int driver_spans, int driver_plain, int emulated)
{
    static char out[64];
    char dir[] = "/tmp/td-tl-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof(path), "%s/t.json", dir);
    static struct td_opts o;
    memset(&o, 0, sizeof(o));
    o.strsize = 64;
    o.timeline = path;
    static char *cmd[] = { "./app", NULL };
    o.cmd = cmd;
    td_out_open(&o);
    td_tl_open(&o);
    struct builder b;
    const int pids[3] = { driver_spans ? 100 : 0, driver_plain ? 101 : 0, emulated ? 102 : 0 };
    for (int i = 0; i < 3; i++) {
        if (!pids[i])
            continue;
        struct td_rec *r = start(&b, TD_REC_HELLO, i == 2 ? TD_BK_EMULATE : TD_BK_DRIVER, 0, NULL);
        r->pid = (uint32_t)pids[i];
        r->tid = (uint32_t)pids[i];
        td_tl_hello(done(&b), b.len);
        if (i == 1)
            continue;
        struct td_ev_devop op = { TD_DOP_MEMSET, 0, 0, 0, 3, 5, 64 };
        r = start(&b, TD_REC_EVENT, TD_EV_DEVOP, 0, NULL);
        r->pid = (uint32_t)pids[i];
        r->tid = (uint32_t)pids[i];
        item(&b, 0, TD_IT_EVENT, &op, sizeof(op));
        td_tl_device(done(&b), b.len);
    }
    td_tl_close();
    td_out_close();
    char *t = slurp(path);
    const char *end = value(t);
    if (!end || *ws(end))
        fail_msg("not JSON: %.80s", t);
    const char *d = strstr(t, "\"device_times\":\"");
    assert_non_null(d);
    d += strlen("\"device_times\":\"");
    snprintf(out, sizeof(out), "%.*s", (int)strcspn(d, "\""), d);
    free(t);
    unlink(path);
    rmdir(dir);
    return out;
}

static void test_device_times(void **state)
{
    (void)state;
    assert_string_equal(device_times(1, 0, 0), "cupti");
    assert_string_equal(device_times(0, 1, 0), "none");      /* the driver, no CUPTI */
    assert_string_equal(device_times(0, 0, 1), "emulator");
    assert_string_equal(device_times(1, 1, 1), "emulator+cupti");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_device_times),
    };
    return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
