/* SPDX-License-Identifier: Apache-2.0 */
/* --runtime: a CUDA runtime call's line before the driver calls it made.
 *
 * The shim writes a record when a call returns, so the driver calls a
 * runtime call made arrive before it (each with a TD_IT_NEST item naming
 * its depth). Here, on the printer thread, they wait per thread until the
 * runtime call that encloses them arrives; it is then let out first and
 * they follow, each with the depth it is shown at: the number of its
 * enclosing calls that are shown (-e trace= may hide some).
 *
 * A thread's held records are kept in the order they will be printed
 * (pre-order: each runtime call before what it made). When a runtime call
 * of depth d arrives, the held records at its end deeper than d are its
 * own; at depth 0 the whole group goes out, else it is held in turn in
 * front of them. Everything here comes from the traced program: depths
 * are bounded by td_rec_check (TD_NEST_MAX) and used only to order and
 * indent, never as indexes; a thread may hold at most HOLD_MAX records and
 * all threads together HOLD_BYTES bytes: past that, or when the process
 * exits or execs, what is held goes out as it is (a parent that never
 * comes is not waited for). */
#include <stdlib.h>
#include <string.h>

#include "nest.h"

#define HOLD_MAX 4096
#define HOLD_BYTES (64u << 20)

struct held {
    struct td_rec *rec;
    uint32_t len;
    uint32_t depth; /* as the record claims it */
};

struct thr {
    int pid, tid;
    struct held *h;
    size_t n, cap;
};

static struct thr *thrs;
static size_t nthrs, capthrs;
static size_t held_bytes;
static unsigned long long overflows;
static void (*emit_fn)(const struct td_rec *rec, uint32_t len, int depth);
static int (*shown_fn)(const struct td_rec *rec, uint32_t len);

void td_nest_init(void (*emit)(const struct td_rec *rec, uint32_t len, int depth),
                  int (*shown)(const struct td_rec *rec, uint32_t len))
{
    emit_fn = emit;
    shown_fn = shown;
}

static struct thr *find(int pid, int tid, int create)
{
    for (size_t i = 0; i < nthrs; i++)
        if (thrs[i].pid == pid && thrs[i].tid == tid)
            return &thrs[i];
    if (!create)
        return NULL;
    if (nthrs == capthrs) {
        size_t c = capthrs ? capthrs * 2 : 16;
        struct thr *t = realloc(thrs, c * sizeof(*t));
        if (!t)
            die("out of memory");
        thrs = t;
        capthrs = c;
    }
    thrs[nthrs] = (struct thr){ pid, tid, NULL, 0, 0 };
    return &thrs[nthrs++];
}

/* emit h[0..n) (pre-order), each at the number of its shown enclosing
 * calls (base: those already out), and free them */
static void emit_run(struct held *h, size_t n, int base)
{
    struct { uint32_t depth; int shown; } st[TD_NEST_MAX + 2];
    int sp = 0, nshown = base;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = h[i].depth;
        while (sp > 0 && st[sp - 1].depth >= d)
            nshown -= st[--sp].shown;
        int sh = shown_fn ? shown_fn(h[i].rec, h[i].len) != 0 : 1;
        emit_fn(h[i].rec, h[i].len, nshown);
        if (sp < (int)(sizeof(st) / sizeof(st[0]))) {
            st[sp].depth = d;
            st[sp++].shown = sh;
            nshown += sh;
        }
        held_bytes -= h[i].len;
        free(h[i].rec);
    }
}

static void drop_thr(struct thr *t)
{
    free(t->h);
    *t = thrs[--nthrs];
}

static void flush_thr(struct thr *t)
{
    emit_run(t->h, t->n, 0);
    drop_thr(t);
}

static void hold(struct thr *t, const struct td_rec *rec, uint32_t len, uint32_t depth, size_t at)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 16;
        struct held *h = realloc(t->h, c * sizeof(*h));
        if (!h)
            die("out of memory");
        t->h = h;
        t->cap = c;
    }
    struct td_rec *copy = malloc(len);
    if (!copy)
        die("out of memory");
    memcpy(copy, rec, len);
    memmove(&t->h[at + 1], &t->h[at], (t->n - at) * sizeof(t->h[0]));
    t->h[at] = (struct held){ copy, len, depth };
    t->n++;
    held_bytes += len;
}

void td_nest_record(const struct td_rec *rec, uint32_t len)
{
    struct td_nest nv;
    if (!td_rec_nest(rec, len, &nv)) { /* not made inside a runtime call */
        emit_fn(rec, len, 0);
        return;
    }
    int rt = nv.id != 0;
    struct thr *t = find((int)rec->pid, (int)rec->tid, nv.depth > 0);
    if (!t) { /* an outermost runtime call that made no recorded call */
        emit_fn(rec, len, 0);
        return;
    }
    size_t at = t->n;
    if (rt) /* its own calls: the held ones at the end deeper than it */
        while (at > 0 && t->h[at - 1].depth > nv.depth)
            at--;
    if (rt && nv.depth == 0) { /* itself first, then its calls, one deeper if it is shown */
        int sh = shown_fn ? shown_fn(rec, len) != 0 : 1;
        emit_fn(rec, len, 0);
        emit_run(&t->h[at], t->n - at, sh);
        t->n = at;
        if (!t->n)
            drop_thr(t);
        return;
    }
    hold(t, rec, len, nv.depth, at);
    if (t->n > HOLD_MAX || held_bytes > HOLD_BYTES) {
        overflows++;
        flush_thr(t);
    }
}

void td_nest_flush_pid(int pid)
{
    for (size_t i = 0; i < nthrs;)
        if (thrs[i].pid == pid)
            flush_thr(&thrs[i]);
        else
            i++;
}

void td_nest_flush_all(void)
{
    while (nthrs)
        flush_thr(&thrs[0]);
    free(thrs);
    thrs = NULL;
    capthrs = 0;
}

unsigned long long td_nest_overflows(void)
{
    return overflows;
}
