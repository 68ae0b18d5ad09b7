/* SPDX-License-Identifier: Apache-2.0 */
/* The timeline file checked (strict JSON, the contract's shape) and
 * escaped for a <script> element; see tlcheck.h. The file is untrusted:
 * every read is bounded by its length, nesting by TD_TL_MAX_DEPTH. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlcheck.h"

enum jtype { J_OBJ, J_ARR, J_STR, J_NUM, J_BOOL, J_NULL };
static const char *const jname[] = { "object", "array", "string", "number", "boolean", "null" };

struct parser {
    const char *s;
    size_t len, i;
    int depth;
    char *why;
    size_t n;
    int eof;            /* the failure was the end of the text */
    size_t cut_at;      /* where a text cut short can be closed, with ... */
    const char *tail;   /* ... this: after the last whole event or member */
    size_t whole;       /* whole events before cut_at */
};

/* what a value was: its type; a number's value; a string's first bytes */
struct jval {
    enum jtype t;
    double num;
    char str[16];       /* decoded, NUL-terminated, when strok */
    int strok;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, p->n, fmt, ap);
    va_end(ap);
    return -1;
}

static int at_end(struct parser *p, const char *what)
{
    p->eof = 1;
    return fail(p, "unexpected end of the file at byte %zu, in %s (truncated?)", p->i, what);
}

static void skip_ws(struct parser *p)
{
    while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int bad_char(struct parser *p, const char *what)
{
    unsigned char c = (unsigned char)p->s[p->i];
    if (c > 0x20 && c < 0x7f)
        return fail(p, "not JSON: unexpected '%c' at byte %zu, in %s", c, p->i, what);
    return fail(p, "not JSON: unexpected byte 0x%02x at byte %zu, in %s", c, p->i, what);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* one UTF-8 character of more than one byte at p->i: its length, or 0 if
 * it is not well formed (overlong, a surrogate, past U+10FFFF, cut) */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f; /* no UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return n;
}

/* a string at p->i (the opening quote); v: its first bytes decoded */
static int parse_string(struct parser *p, struct jval *v)
{
    size_t start = p->i++, k = 0;
    v->t = J_STR;
    v->strok = 1;
    for (;;) {
        if (p->i >= p->len) {
            p->eof = 1;
            return fail(p, "unexpected end of the file at byte %zu, in the string from byte %zu (truncated?)",
                        p->i, start);
        }
        unsigned char c = (unsigned char)p->s[p->i];
        unsigned out = c;
        if (c == '"') {
            p->i++;
            break;
        }
        if (c < 0x20)
            return fail(p, "not JSON: control byte 0x%02x at byte %zu, inside a string", c, p->i);
        if (c == '\\') {
            if (p->i + 1 >= p->len)
                return at_end(p, "a string's escape");
            char e = p->s[p->i + 1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *m = e ? strchr(from, e) : NULL;
            if (m) {
                out = (unsigned char)to[m - from];
                p->i += 2;
            } else if (e == 'u') {
                if (p->i + 6 > p->len)
                    return at_end(p, "a string's \\u escape");
                unsigned u = 0;
                for (int d = 2; d < 6; d++) {
                    int h = hexval(p->s[p->i + (size_t)d]);
                    if (h < 0)
                        return fail(p, "not JSON: bad \\u escape at byte %zu", p->i);
                    u = u << 4 | (unsigned)h;
                }
                out = u;
                p->i += 6;
            } else {
                return fail(p, "not JSON: bad escape '\\%c' at byte %zu", e > 0x20 && e < 0x7f ? e : '?', p->i);
            }
        } else if (c >= 0x80) {
            size_t l = utf8_len((const unsigned char *)p->s + p->i, p->len - p->i);
            if (!l)
                return fail(p, "not UTF-8: byte 0x%02x at byte %zu, inside a string", c, p->i);
            p->i += l;
            out = 0x100; /* not kept */
        } else {
            p->i++;
        }
        if (out >= 0x80 || out == 0 || k + 1 >= sizeof(v->str))
            v->strok = 0;
        else if (v->strok)
            v->str[k++] = (char)out;
    }
    v->str[v->strok ? k : 0] = '\0';
    return 0;
}

static int digits(struct parser *p)
{
    size_t s = p->i;
    while (p->i < p->len && p->s[p->i] >= '0' && p->s[p->i] <= '9')
        p->i++;
    if (p->i == s)
        return p->i >= p->len ? at_end(p, "a number") : bad_char(p, "a number");
    return 0;
}

static int parse_number(struct parser *p, struct jval *v)
{
    size_t start = p->i;
    if (p->s[p->i] == '-')
        p->i++;
    if (p->i < p->len && p->s[p->i] == '0')
        p->i++;
    else if (digits(p) < 0)
        return -1;
    if (p->i < p->len && p->s[p->i] == '.') {
        p->i++;
        if (digits(p) < 0)
            return -1;
    }
    if (p->i < p->len && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->len && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            p->i++;
        if (digits(p) < 0)
            return -1;
    }
    size_t l = p->i - start;
    char small[64], *b = l < sizeof(small) ? small : malloc(l + 1);
    if (!b)
        return fail(p, "out of memory");
    memcpy(b, p->s + start, l);
    b[l] = '\0';
    v->t = J_NUM;
    v->num = strtod(b, NULL);
    if (b != small)
        free(b);
    return 0;
}

static int parse_value(struct parser *p, struct jval *v);

static int expect(struct parser *p, char c, const char *what)
{
    skip_ws(p);
    if (p->i >= p->len)
        return at_end(p, what);
    if (p->s[p->i] != c)
        return bad_char(p, what);
    p->i++;
    return 0;
}

/* after a member or element: 1 at the closing bracket, 0 at a comma */
static int next_or_close(struct parser *p, char close, const char *what)
{
    skip_ws(p);
    if (p->i >= p->len)
        return at_end(p, what);
    if (p->s[p->i] == close) {
        p->i++;
        return 1;
    }
    if (p->s[p->i] == ',') {
        p->i++;
        return 0;
    }
    return bad_char(p, what);
}

/* an object or array at p->i; member(key, arg) is called for each member
 * with p->i at its value (NULL: any values); element likewise */
typedef int (*member_fn)(struct parser *p, const struct jval *key, void *arg);
typedef int (*element_fn)(struct parser *p, size_t index, void *arg);

static int generic_member(struct parser *p, const struct jval *key, void *arg)
{
    (void)key;
    (void)arg;
    struct jval v;
    return parse_value(p, &v);
}

static int generic_element(struct parser *p, size_t index, void *arg)
{
    (void)index;
    (void)arg;
    struct jval v;
    return parse_value(p, &v);
}

static int parse_object(struct parser *p, member_fn member, void *arg)
{
    if (++p->depth > TD_TL_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels at byte %zu", TD_TL_MAX_DEPTH, p->i);
    p->i++; /* { */
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == '}') {
        p->i++;
        p->depth--;
        return 0;
    }
    for (;;) {
        skip_ws(p);
        if (p->i >= p->len)
            return at_end(p, "an object");
        if (p->s[p->i] != '"')
            return bad_char(p, "an object (a member's name)");
        struct jval key;
        if (parse_string(p, &key) < 0 || expect(p, ':', "an object (after a member's name)") < 0)
            return -1;
        skip_ws(p);
        if ((member ? member : generic_member)(p, &key, arg) < 0)
            return -1;
        int r = next_or_close(p, '}', "an object");
        if (r < 0)
            return -1;
        if (r)
            break;
    }
    p->depth--;
    return 0;
}

static int parse_array(struct parser *p, element_fn element, void *arg)
{
    if (++p->depth > TD_TL_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels at byte %zu", TD_TL_MAX_DEPTH, p->i);
    p->i++; /* [ */
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == ']') {
        p->i++;
        p->depth--;
        return 0;
    }
    for (size_t k = 0;; k++) {
        skip_ws(p);
        if ((element ? element : generic_element)(p, k, arg) < 0)
            return -1;
        int r = next_or_close(p, ']', "an array");
        if (r < 0)
            return -1;
        if (r)
            break;
    }
    p->depth--;
    return 0;
}

static int literal(struct parser *p, const char *word, struct jval *v, enum jtype t)
{
    size_t l = strlen(word);
    for (size_t k = 0; k < l; k++, p->i++) {
        if (p->i >= p->len)
            return at_end(p, "a literal");
        if (p->s[p->i] != word[k])
            return bad_char(p, "a literal");
    }
    v->t = t;
    return 0;
}

/* any value at p->i (whitespace skipped before) */
static int parse_value(struct parser *p, struct jval *v)
{
    memset(v, 0, sizeof(*v));
    skip_ws(p);
    if (p->i >= p->len)
        return at_end(p, "a value");
    switch (p->s[p->i]) {
    case '{':
        v->t = J_OBJ;
        return parse_object(p, NULL, NULL);
    case '[':
        v->t = J_ARR;
        return parse_array(p, NULL, NULL);
    case '"':
        return parse_string(p, v);
    case 't':
        return literal(p, "true", v, J_BOOL);
    case 'f':
        return literal(p, "false", v, J_BOOL);
    case 'n':
        return literal(p, "null", v, J_NULL);
    default:
        if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
            return parse_number(p, v);
        return bad_char(p, "a value");
    }
}

/* ---- the contract's shape ---------------------------------------------- */

/* an event's fields the report reads, with the types it needs */
enum { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ARGS, F_ID, F_S, F_BP, F_COUNT };
static const struct { const char *name; unsigned types; } fields[F_COUNT] = {
    [F_PH] = { "ph", 1u << J_STR },       [F_NAME] = { "name", 1u << J_STR },
    [F_CAT] = { "cat", 1u << J_STR },     [F_PID] = { "pid", 1u << J_NUM },
    [F_TID] = { "tid", 1u << J_NUM },     [F_TS] = { "ts", 1u << J_NUM },
    [F_DUR] = { "dur", 1u << J_NUM },     [F_ARGS] = { "args", 1u << J_OBJ },
    [F_ID] = { "id", 1u << J_NUM | 1u << J_STR },
    [F_S] = { "s", 1u << J_STR },         [F_BP] = { "bp", 1u << J_STR },
};

struct event {
    size_t index;
    unsigned seen;
    struct jval v[F_COUNT];
};

static int event_member(struct parser *p, const struct jval *key, void *arg)
{
    struct event *e = arg;
    struct jval v;
    if (parse_value(p, &v) < 0)
        return -1;
    for (int f = 0; key->strok && f < F_COUNT; f++) {
        if (strcmp(key->str, fields[f].name) != 0)
            continue;
        if (!(fields[f].types >> v.t & 1))
            return fail(p, "traceEvents[%zu]: \"%s\" is a%s %s, must be %s", e->index, fields[f].name,
                        v.t == J_OBJ || v.t == J_ARR ? "n" : "", jname[v.t],
                        f == F_ID ? "a number or a string" : fields[f].types == 1u << J_OBJ ? "an object"
                        : fields[f].types == 1u << J_STR ? "a string" : "a number");
        e->seen |= 1u << f;
        e->v[f] = v;
    }
    return 0;
}

static int event_element(struct parser *p, size_t index, void *arg)
{
    struct td_tl_stats *st = arg;
    st->events = index + 1;
    if (p->i < p->len && p->s[p->i] != '{') {
        struct jval v;
        if (parse_value(p, &v) < 0)
            return -1;
        return fail(p, "traceEvents[%zu] is a%s %s, must be an object", index,
                    v.t == J_ARR ? "n" : "", jname[v.t]);
    }
    if (p->i >= p->len)
        return at_end(p, "traceEvents");
    struct event e = { .index = index };
    if (parse_object(p, event_member, &e) < 0)
        return -1;
    p->cut_at = p->i;
    p->tail = "]}";
    p->whole = index + 1;
    if (!(e.seen & 1u << F_PH))
        return fail(p, "traceEvents[%zu]: no \"ph\" (the event's type)", index);
    const char *ph = e.v[F_PH].strok ? e.v[F_PH].str : "?";
    if (!*ph)
        return fail(p, "traceEvents[%zu]: \"ph\" is empty", index);
    static const int need[] = { F_NAME, F_PID };
    for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
        if (!(e.seen & 1u << need[k]))
            return fail(p, "traceEvents[%zu] (ph \"%s\"): no \"%s\"", index, ph, fields[need[k]].name);
    if (strcmp(ph, "M") != 0 && !(e.seen & 1u << F_TS))
        return fail(p, "traceEvents[%zu] (ph \"%s\"): no \"ts\"", index, ph);
    if (strcmp(ph, "X") == 0 && !(e.seen & 1u << F_DUR))
        return fail(p, "traceEvents[%zu] (ph \"X\"): no \"dur\"", index);
    static const int nums[] = { F_PID, F_TID, F_TS, F_DUR };
    for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
        if (e.seen & 1u << nums[k] && !isfinite(e.v[nums[k]].num))
            return fail(p, "traceEvents[%zu] (ph \"%s\"): \"%s\" is out of range", index, ph, fields[nums[k]].name);
    if (e.seen & 1u << F_DUR && e.v[F_DUR].num < 0)
        return fail(p, "traceEvents[%zu] (ph \"%s\"): \"dur\" is negative", index, ph);
    return 0;
}

struct top {
    struct td_tl_stats st;
    int has_events;
};

static int top_member(struct parser *p, const struct jval *key, void *arg)
{
    struct top *t = arg;
    struct jval v;
    size_t at = p->i;
    if (key->strok && strcmp(key->str, "traceEvents") == 0) {
        if (p->i < p->len && p->s[p->i] == '[') {
            t->has_events = 1;
            p->cut_at = p->i + 1;
            p->tail = "]}";
            p->whole = 0;
            if (parse_array(p, event_element, &t->st) < 0)
                return -1;
            p->cut_at = p->i;
            p->tail = "}";
            return 0;
        }
        if (parse_value(p, &v) < 0)
            return -1;
        return fail(p, "\"traceEvents\" (byte %zu) is a%s %s, must be an array", at,
                    v.t == J_OBJ ? "n" : "", jname[v.t]);
    }
    if (parse_value(p, &v) < 0)
        return -1;
    if (key->strok && strcmp(key->str, "otherData") == 0 && v.t != J_OBJ)
        return fail(p, "\"otherData\" (byte %zu) is a%s %s, must be an object", at, v.t == J_ARR ? "n" : "",
                    jname[v.t]);
    if (key->strok && strcmp(key->str, "displayTimeUnit") == 0 && v.t != J_STR)
        return fail(p, "\"displayTimeUnit\" (byte %zu) is a%s %s, must be a string", at,
                    v.t == J_OBJ || v.t == J_ARR ? "n" : "", jname[v.t]);
    if (t->has_events) { /* a member after the events: the text closes after it too */
        p->cut_at = p->i;
        p->tail = "}";
    }
    return 0;
}

int td_tl_check(const char *buf, size_t len, struct td_tl_stats *st, char *why, size_t n)
{
    struct parser p = { .s = buf, .len = len, .why = why, .n = n };
    struct top top = { { 0 }, 0 };
    snprintf(why, n, "?");
    if (st)
        memset(st, 0, sizeof(*st));
    skip_ws(&p);
    if (p.i >= p.len)
        return fail(&p, "empty file: no JSON in it");
    if (p.s[p.i] == '{') {
        if (parse_object(&p, top_member, &top) < 0) {
            if (st && p.eof && p.tail) { /* cut short after its events began */
                st->cut_at = p.cut_at;
                st->cut_tail = p.tail;
                st->events = p.whole;
            }
            return -1;
        }
    } else {
        struct jval v;
        if (parse_value(&p, &v) < 0)
            return -1;
        return fail(&p, "not a timeline: a JSON %s, not an object with \"traceEvents\"", jname[v.t]);
    }
    skip_ws(&p);
    if (p.i < p.len)
        return bad_char(&p, "what follows the JSON object");
    if (!top.has_events)
        return fail(&p, "not a timeline: no \"traceEvents\" array");
    if (st)
        *st = top.st;
    return 0;
}

size_t td_script_escape(const char *in, size_t inlen, size_t *used, char *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < inlen) {
        unsigned char c = (unsigned char)in[i];
        const char *esc = NULL;
        size_t l = 1;
        if (c == '<')
            esc = "\\u003c";
        else if (c == '>')
            esc = "\\u003e";
        else if (c == '&')
            esc = "\\u0026";
        else if (c == 0xe2 && i + 2 < inlen && (unsigned char)in[i + 1] == 0x80 &&
                 ((unsigned char)in[i + 2] == 0xa8 || (unsigned char)in[i + 2] == 0xa9)) {
            esc = (unsigned char)in[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            l = 3;
        }
        if (esc) {
            if (o + 6 > cap)
                break;
            memcpy(out + o, esc, 6);
            o += 6;
        } else {
            if (o + 1 > cap)
                break;
            out[o++] = (char)c;
        }
        i += l;
    }
    *used = i;
    return o;
}
