/* SPDX-License-Identifier: Apache-2.0 */
/* --py: per Python line (the innermost frame's file, line and function),
 * the calls it made, their time and the device memory they allocated. A
 * hash table of lines, each key kept as "file\0func" with the line. */
#include <stdlib.h>
#include <string.h>

#include "pysummary.h"

struct pyline {
    char *key;           /* file, NUL, func, NUL */
    size_t keylen;
    int line;
    unsigned long long calls, ns, dev_bytes;
    unsigned top;        /* among the top by calls, time, memory */
    int next;            /* hash chain, -1 ends */
};

static struct pyline *lines;
static size_t nlines, caplines;
static int *buckets;     /* 1 << bbits of them, -1 empty */
static unsigned bbits;

static uint64_t hash(const char *k, size_t n, int line)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uint32_t)line;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
    return h;
}

static void rehash(void)
{
    unsigned bits = bbits ? bbits + 1 : 8;
    int *b = malloc(sizeof(int) << bits);
    if (!b)
        die("out of memory");
    memset(b, 0xff, sizeof(int) << bits);
    for (size_t i = 0; i < nlines; i++) {
        size_t slot = hash(lines[i].key, lines[i].keylen, lines[i].line) & ((1u << bits) - 1);
        lines[i].next = b[slot];
        b[slot] = (int)i;
    }
    free(buckets);
    buckets = b;
    bbits = bits;
}

static struct pyline *line_of(const char *key, size_t n, int line)
{
    if (buckets) {
        for (int i = buckets[hash(key, n, line) & ((1u << bbits) - 1)]; i >= 0; i = lines[i].next)
            if (lines[i].line == line && lines[i].keylen == n && !memcmp(lines[i].key, key, n))
                return &lines[i];
    }
    if (nlines == caplines) {
        size_t c = caplines ? caplines * 2 : 64;
        struct pyline *l = realloc(lines, c * sizeof(*l));
        if (!l)
            die("out of memory");
        lines = l;
        caplines = c;
    }
    struct pyline *l = &lines[nlines];
    memset(l, 0, sizeof(*l));
    l->key = malloc(n);
    if (!l->key)
        die("out of memory");
    memcpy(l->key, key, n);
    l->keylen = n;
    l->line = line;
    nlines++;
    if (nlines > (1u << bbits) / 2 || !buckets) {
        rehash();
    } else {
        size_t slot = hash(key, n, line) & ((1u << bbits) - 1);
        l->next = buckets[slot];
        buckets[slot] = (int)(nlines - 1);
    }
    return l;
}

void td_pysum_call(const struct td_rec *rec, uint32_t len, unsigned long long dev_bytes)
{
    struct td_pyview v;
    char why[160];
    if (td_rec_py(rec, len, &v, why, sizeof(why)) != 1)
        return;
    const char *file = v.str + v.fr[0].file, *func = v.str + v.fr[0].func;
    size_t fl = strlen(file), nl = strlen(func);
    char key[2 * 256];
    if (fl + nl + 2 > sizeof(key))
        return; /* the shim keeps at most TD_PY_STR_MAX bytes of each */
    memcpy(key, file, fl + 1);
    memcpy(key + fl + 1, func, nl + 1);
    struct pyline *l = line_of(key, fl + nl + 2, v.fr[0].line);
    l->calls++;
    l->ns += rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
    l->dev_bytes += dev_bytes;
}

static int by_calls(const void *x, const void *y)
{
    const struct pyline *a = *(const struct pyline *const *)x, *b = *(const struct pyline *const *)y;
    return a->calls != b->calls ? (a->calls < b->calls ? 1 : -1) : 0;
}
static int by_time(const void *x, const void *y)
{
    const struct pyline *a = *(const struct pyline *const *)x, *b = *(const struct pyline *const *)y;
    return a->ns != b->ns ? (a->ns < b->ns ? 1 : -1) : by_calls(x, y);
}
static int by_memory(const void *x, const void *y)
{
    const struct pyline *a = *(const struct pyline *const *)x, *b = *(const struct pyline *const *)y;
    return a->dev_bytes != b->dev_bytes ? (a->dev_bytes < b->dev_bytes ? 1 : -1) : 0;
}
/* the table's order: time, then calls, then the line itself (stable output) */
static int by_table(const void *x, const void *y)
{
    int c = by_time(x, y);
    if (c)
        return c;
    const struct pyline *a = *(const struct pyline *const *)x, *b = *(const struct pyline *const *)y;
    c = strcmp(a->key, b->key);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

void td_pysum_table(struct tp *p, const char *(*sz)(unsigned long long, char *, size_t))
{
    if (!nlines)
        return;
    struct pyline **v = malloc(nlines * sizeof(*v));
    if (!v)
        die("out of memory");
    for (size_t i = 0; i < nlines; i++)
        (v[i] = &lines[i])->top = 0;
    int (*const orders[])(const void *, const void *) = { by_calls, by_time, by_memory };
    for (size_t o = 0; o < 3; o++) {
        qsort(v, nlines, sizeof(*v), orders[o]);
        for (size_t i = 0; i < nlines && i < TD_PYSUM_TOP; i++)
            if (o < 2 || v[i]->dev_bytes)
                v[i]->top = 1;
    }
    qsort(v, nlines, sizeof(*v), by_table);
    unsigned long long total = 0;
    for (size_t i = 0; i < nlines; i++)
        total += v[i]->ns;
    tp_line_end(p);
    tp_rawf(p, "%6s %11s %9s %15s %s", "% time", "seconds", "calls", "device memory", "Python line");
    tp_line_end(p);
    tp_raw(p, "------ ----------- --------- --------------- --------------------------------");
    tp_line_end(p);
    size_t shown = 0;
    for (size_t i = 0; i < nlines; i++) {
        const struct pyline *l = v[i];
        if (!l->top)
            continue;
        char b[64];
        tp_rawf(p, "%6.2f %11.6f %9llu %15s ", total ? 100.0 * (double)l->ns / (double)total : 0.0,
                (double)l->ns / 1e9, l->calls, l->dev_bytes ? sz(l->dev_bytes, b, sizeof(b)) : "-");
        tp_esc(p, l->key, strlen(l->key));
        if (l->line >= 0)
            tp_rawf(p, ":%d", l->line);
        tp_raw(p, " in ");
        const char *func = l->key + strlen(l->key) + 1;
        tp_esc(p, func, strlen(func));
        tp_line_end(p);
        shown++;
    }
    if (shown < nlines) {
        tp_rawf(p, "(%zu more lines, each below the top %d by calls, time and device memory)", nlines - shown,
                TD_PYSUM_TOP);
        tp_line_end(p);
    }
    free(v);
}

void td_pysum_json(struct tp *p)
{
    if (!nlines)
        return;
    tp_raw(p, ",\"python_lines\":");
    tp_array_begin(p);
    for (size_t i = 0; i < nlines; i++) {
        const struct pyline *l = &lines[i];
        const char *func = l->key + strlen(l->key) + 1;
        tp_elem(p);
        tp_struct_begin(p);
        tp_field(p, "file"); tp_str(p, l->key, strlen(l->key), 0);
        tp_field(p, "line"); tp_int(p, l->line);
        tp_field(p, "func"); tp_str(p, func, strlen(func), 0);
        tp_field(p, "calls"); tp_uint(p, l->calls);
        tp_field(p, "seconds"); tp_rawf(p, "%.9f", (double)l->ns / 1e9);
        tp_field(p, "device_bytes"); tp_uint(p, l->dev_bytes);
        tp_struct_end(p);
    }
    tp_array_end(p);
}

void td_pysum_free(void)
{
    for (size_t i = 0; i < nlines; i++)
        free(lines[i].key);
    free(lines);
    free(buckets);
    lines = NULL;
    buckets = NULL;
    nlines = caplines = 0;
    bbits = 0;
}
