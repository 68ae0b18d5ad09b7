/* SPDX-License-Identifier: Apache-2.0 */
/* The print layer: text (strace-like) and JSON lines from one set of
 * helpers. A line is built in a buffer and written with one fwrite, so
 * lines from several sources never interleave. */
#include "print.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tp_init(struct tp *p, enum tp_format fmt, FILE *f)
{
    memset(p, 0, sizeof(*p));
    p->fmt = fmt;
    p->f = f;
    p->strsize = 32;
}

void tp_free(struct tp *p)
{
    free(p->buf);
    p->buf = NULL;
    p->len = p->cap = 0;
}

static void put(struct tp *p, const char *s, size_t n)
{
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < p->len + n + 1)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return; /* out of memory: the line is cut, nothing crashes */
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
}

static void puts_(struct tp *p, const char *s)
{
    put(p, s, strlen(s));
}

void tp_raw(struct tp *p, const char *s)
{
    puts_(p, s);
}

void tp_rawf(struct tp *p, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        put(p, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void tp_line_end(struct tp *p)
{
    put(p, "\n", 1);
    /* one writer per stream at a time (tdtrace's printer thread): the
     * stream's own lock is not needed */
    if (p->f && p->buf)
        fwrite_unlocked(p->buf, 1, p->len, p->f);
    p->len = 0;
    p->depth = 0;
}

/* separator before the next item at the current depth */
static void sep(struct tp *p)
{
    if (p->first[p->depth])
        p->first[p->depth] = 0;
    else
        puts_(p, p->fmt == TP_JSON ? "," : ", ");
}

static void push(struct tp *p)
{
    if (p->depth + 1 < (int)(sizeof(p->first) / sizeof(p->first[0])))
        p->depth++;
    p->first[p->depth] = 1;
}

static void pop(struct tp *p)
{
    if (p->depth > 0)
        p->depth--;
}

/* JSON string body, escaped; also used for text strings (C escapes) */
static void put_escaped(struct tp *p, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char e[8];
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
            put(p, e, 2);
        } else if (c == '\n') {
            put(p, "\\n", 2);
        } else if (c == '\t') {
            put(p, "\\t", 2);
        } else if (c < 0x20 || c >= 0x7f) {
            if (p->fmt == TP_JSON)
                snprintf(e, sizeof(e), "\\u%04x", c);
            else
                snprintf(e, sizeof(e), "\\%o", c);
            puts_(p, e);
        } else {
            put(p, (const char *)&c, 1);
        }
    }
}

static void key(struct tp *p, const char *name)
{
    put(p, "\"", 1);
    put_escaped(p, name, strlen(name));
    put(p, "\":", 2);
}

void tp_call_begin(struct tp *p, const char *name)
{
    if (p->fmt == TP_JSON) {
        key(p, "call");
        put(p, "\"", 1);
        put_escaped(p, name, strlen(name));
        puts_(p, "\",\"args\":{");
    } else {
        puts_(p, name);
        put(p, "(", 1);
    }
    push(p);
}

void tp_arg(struct tp *p, const char *name)
{
    sep(p);
    if (p->fmt == TP_JSON)
        key(p, name);
}


void tp_call_end(struct tp *p, long long retval, const char *retname)
{
    pop(p);
    if (p->fmt == TP_JSON) {
        puts_(p, "},\"ret\":");
        tp_int(p, retval);
        if (retname) {
            puts_(p, ",\"retname\":\"");
            puts_(p, retname);
            put(p, "\"", 1);
        }
    } else {
        puts_(p, ") = ");
        if (retname) {
            puts_(p, retname);
            if (retval != 0) {
                puts_(p, " (");
                tp_int(p, retval);
                put(p, ")", 1);
            }
        } else {
            tp_int(p, retval);
        }
    }
}

void tp_call_end_void(struct tp *p)
{
    pop(p);
    puts_(p, p->fmt == TP_JSON ? "},\"ret\":null" : ")");
}

/* numbers are the bulk of a trace: format them without printf */
static void put_udec(struct tp *p, unsigned long long v)
{
    char b[24];
    int i = sizeof(b);
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(p, b + i, sizeof(b) - (size_t)i);
}

static void put_hex(struct tp *p, unsigned long long v)
{
    char b[24];
    int i = sizeof(b);
    do {
        b[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    if (b[sizeof(b) - 1] != '0' || i != (int)sizeof(b) - 1) {
        b[--i] = 'x';
        b[--i] = '0';
    }
    put(p, b + i, sizeof(b) - (size_t)i);
}

void tp_int(struct tp *p, long long v)
{
    if (v < 0) {
        put(p, "-", 1);
        put_udec(p, 0ULL - (unsigned long long)v);
    } else {
        put_udec(p, (unsigned long long)v);
    }
}

void tp_uint(struct tp *p, unsigned long long v)
{
    put_udec(p, v);
}

void tp_hex(struct tp *p, unsigned long long v)
{
    if (p->fmt == TP_JSON)
        put(p, "\"", 1);
    put_hex(p, v);
    if (p->fmt == TP_JSON)
        put(p, "\"", 1);
}

void tp_ptr(struct tp *p, unsigned long long v)
{
    if (v == 0)
        puts_(p, p->fmt == TP_JSON ? "null" : "NULL");
    else
        tp_hex(p, v);
}

void tp_sym(struct tp *p, const char *name)
{
    if (p->fmt == TP_JSON) {
        put(p, "\"", 1);
        put_escaped(p, name, strlen(name));
        put(p, "\"", 1);
    } else {
        puts_(p, name);
    }
}

void tp_sym_or_num(struct tp *p, const char *name, unsigned long long v)
{
    if (p->fmt == TP_JSON) {
        if (name) {
            tp_sym(p, name);
        } else {
            put(p, "\"", 1);
            put_udec(p, v);
            put(p, "\"", 1);
        }
        return;
    }
    if (!name || p->xmode == TP_X_RAW) {
        put_udec(p, v);
        return;
    }
    if (p->xmode == TP_X_VERBOSE) {
        put_udec(p, v);
        puts_(p, " /* ");
        puts_(p, name);
        puts_(p, " */");
        return;
    }
    puts_(p, name);
}

/* A|B|0x10 */
static void flag_names(struct tp *p, const char *const *names, int n, unsigned long long rest)
{
    for (int i = 0; i < n; i++) {
        if (i)
            put(p, "|", 1);
        puts_(p, names[i]);
    }
    if (rest || !n) {
        if (n)
            put(p, "|", 1);
        put_hex(p, rest);
    }
}

void tp_flags(struct tp *p, const char *const *names, int n, unsigned long long rest,
              unsigned long long v)
{
    if (p->fmt == TP_JSON) {
        put(p, "\"", 1);
        flag_names(p, names, n, rest);
        put(p, "\"", 1);
    } else if (p->xmode == TP_X_ABBREV) {
        flag_names(p, names, n, rest);
    } else {
        put_hex(p, v);
        if (p->xmode == TP_X_VERBOSE && n) {
            puts_(p, " /* ");
            flag_names(p, names, n, rest);
            puts_(p, " */");
        }
    }
}

const char *tp_size_text(unsigned long long v, char *buf, size_t n)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    int u = 0;
    while (u < 6 && v >= (1ULL << (10 * (u + 1))) && (v & ((1ULL << (10 * (u + 1))) - 1)) == 0)
        u++;
    if (u > 0 || v < 1024) { /* exact */
        snprintf(buf, n, "%llu %s", v >> (10 * u), unit[u]);
        return buf;
    }
    int k = 0; /* the largest unit not above v, to one decimal */
    while (k < 6 && v >= (1ULL << (10 * (k + 1))))
        k++;
    snprintf(buf, n, "%llu B (%.1f %s)", v, (double)v / (double)(1ULL << (10 * k)), unit[k]);
    return buf;
}

void tp_size(struct tp *p, unsigned long long v)
{
    if (p->fmt == TP_JSON || p->xmode == TP_X_RAW) {
        put_udec(p, v);
        return;
    }
    char b[64];
    puts_(p, tp_size_text(v, b, sizeof(b)));
}

void tp_str(struct tp *p, const char *s, size_t len, int truncated)
{
    put(p, "\"", 1);
    put_escaped(p, s, len);
    put(p, "\"", 1);
    if (truncated)
        puts_(p, p->fmt == TP_JSON ? "" : "...");
}

void tp_esc(struct tp *p, const char *s, size_t len)
{
    put_escaped(p, s, len);
}

void tp_double(struct tp *p, double v)
{
    tp_rawf(p, "%.6g", v);
}

void tp_bytes(struct tp *p, const unsigned char *b, size_t n)
{
    put(p, "\"", 1);
    for (size_t i = 0; i < n; i++)
        tp_rawf(p, "%02x", b[i]);
    put(p, "\"", 1);
}

void tp_unavailable(struct tp *p, unsigned long long addr)
{
    tp_ptr(p, addr);
}

void tp_out_begin(struct tp *p)
{
    if (p->fmt == TP_TEXT)
        put(p, "&", 1);
}

void tp_out_end(struct tp *p)
{
    (void)p;
}

void tp_struct_begin(struct tp *p)
{
    put(p, "{", 1);
    push(p);
}

void tp_field(struct tp *p, const char *name)
{
    sep(p);
    if (p->fmt == TP_JSON) {
        key(p, name);
    } else {
        puts_(p, name);
        put(p, "=", 1);
    }
}

void tp_struct_end(struct tp *p)
{
    pop(p);
    put(p, "}", 1);
}

void tp_array_begin(struct tp *p)
{
    put(p, "[", 1);
    push(p);
}

void tp_elem(struct tp *p)
{
    sep(p);
}

void tp_array_end(struct tp *p)
{
    pop(p);
    put(p, "]", 1);
}

void tp_more(struct tp *p)
{
    sep(p);
    puts_(p, p->fmt == TP_JSON ? "\"...\"" : "...");
}

struct tp_mark tp_mark(const struct tp *p)
{
    struct tp_mark m = { p->len, p->depth, p->first[p->depth] };
    return m;
}

void tp_rewind(struct tp *p, const struct tp_mark *m)
{
    if (m->len > p->len)
        return;
    p->len = m->len;
    if (p->buf)
        p->buf[p->len] = '\0';
    p->depth = m->depth;
    p->first[p->depth] = m->first;
}
