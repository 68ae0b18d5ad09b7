/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime's start-up, folded. A program built with nvcc makes a handful
 * of calls of its own; the CUDA runtime around it makes hundreds first: it
 * looks up every entry point (cuGetProcAddress, 440 calls for a CUDA 13
 * runtime), asks for its private export tables and calls through them
 * (every launch asks CONTEXT_LOCAL_STORAGE for its state), and reads every
 * device attribute for cudaGetDeviceProperties (111 calls in a row). By
 * default these fold into one line each, so the trace shows the program:
 *
 *   - lookups and export-table calls are counted per process and printed
 *     as one line per group: before the process's first call that is
 *     printed, and at its end for those made since;
 *   - a run of at least BURST calls of the same attribute query by one
 *     thread prints as one line; a shorter run prints call by call.
 *
 * -v, or naming the calls in -e trace=, prints them all; JSON has every
 * call whatever is folded. Which calls fold, and which failures are probes
 * (a lookup that answers "not there"), is the table below. */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

#define BURST 8              /* a run this long folds */
#define NAMES_MAX 4096       /* cuGetProcAddress names counted apart, per process */

enum group { G_NONE, G_LOOKUP, G_EXPTAB, G_BURST };

/* which calls fold, and what failure of theirs is only an answer */
static const struct {
    const char *base;        /* the function's name without _vN ("" for a family) */
    int family;              /* or every function of this family (-1) */
    enum group g;
    int probe[3];            /* results that mean "not there" (0: none) */
} rows[] = {
    { "cuGetProcAddress", -1, G_LOOKUP, { CUDA_ERROR_NOT_FOUND } },
    { "cuGetExportTable", -1, G_LOOKUP, { CUDA_ERROR_NOT_FOUND } },
    /* CONTEXT_LOCAL_STORAGE.get: no value under the key yet, or no context */
    { "CONTEXT_LOCAL_STORAGE.get", -1, G_EXPTAB, { CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_CONTEXT } },
    { "", TD_FAM_exptab, G_EXPTAB, { 0 } },
    { "cuDeviceGetAttribute", -1, G_BURST, { 0 } },
};

static unsigned char group_of[TD_FN__COUNT];
static signed char row_of[TD_FN__COUNT];  /* -1: none */

/* one process's folded calls not printed yet */
struct fcount { unsigned short fn; unsigned long long n, probes; };
struct held { struct td_rec *rec; uint32_t len; };
struct thread_run {
    int tid;
    unsigned short fn;               /* the query of the run */
    unsigned long long n;            /* calls in it */
    struct held h[BURST];            /* the first ones, until it is a burst */
    uint64_t t0;
    int dev;                         /* the device asked about, or -1 when several */
};
struct pstate {
    int pid;
    int shown;                       /* printed a call of its own */
    struct fcount *c;
    size_t nc, capc;
    char **names;                    /* cuGetProcAddress symbols seen (a hash set) */
    size_t nnames, capnames;
    uint64_t t_first;
    struct thread_run *runs;
    size_t nruns, capruns;
};

static struct pstate *ps;
static size_t nps, capps;
static void (*emit_fn)(const struct td_rec *rec, uint32_t len);
static void (*line_fn)(int pid, uint64_t t, const char *text);

void td_fold_sink(void (*emit)(const struct td_rec *rec, uint32_t len),
                  void (*line)(int pid, uint64_t t, const char *text))
{
    emit_fn = emit;
    line_fn = line;
}

void td_fold_init(const uint8_t *named, int all)
{
    for (int fn = 0; fn < TD_FN__COUNT; fn++) {
        row_of[fn] = -1;
        for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
            if (rows[r].base[0] ? !strcmp(rows[r].base, td_fns[fn].base) : td_fns[fn].family == rows[r].family) {
                row_of[fn] = (signed char)r;
                break;
            }
        group_of[fn] = row_of[fn] >= 0 && !all && !(named && td_mask_has(named, fn))
                           ? (unsigned char)rows[row_of[fn]].g : G_NONE;
    }
}

static int symbol_not_found(const struct td_rec *rec, uint32_t len)
{
    /* cuGetProcAddress_v2 answers CUDA_SUCCESS with CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND in its status too */
    const struct td_fn_info *info = &td_fns[rec->fn];
    for (int i = 0; i < info->nparams; i++)
        if (info->params[i].xlat == TD_X_CUdriverProcAddressQueryResult) {
            const struct td_item *it = td_rec_item(rec, len, i, TD_IT_OUT);
            uint32_t st = 0;
            if (it && it->len >= 4) {
                memcpy(&st, it + 1, 4);
                return st != 0;
            }
        }
    return 0;
}

int td_is_probe(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT || row_of[rec->fn] < 0)
        return 0;
    const int *pr = rows[row_of[rec->fn]].probe;
    for (int i = 0; i < 3 && pr[i]; i++)
        if (rec->result == pr[i])
            return 1;
    return rec->result == 0 && symbol_not_found(rec, len);
}

/* ---- per process ----------------------------------------------------------- */

static struct pstate *state(int pid, int create)
{
    for (size_t i = 0; i < nps; i++)
        if (ps[i].pid == pid)
            return &ps[i];
    if (!create)
        return NULL;
    if (nps == capps) {
        size_t c = capps ? capps * 2 : 16;
        struct pstate *n = realloc(ps, c * sizeof(*n));
        if (!n)
            die("out of memory");
        ps = n;
        capps = c;
    }
    memset(&ps[nps], 0, sizeof(ps[nps]));
    ps[nps].pid = pid;
    return &ps[nps++];
}

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* a cuGetProcAddress symbol: counted once per name */
static void note_name(struct pstate *p, const char *s, size_t n)
{
    if (p->nnames >= NAMES_MAX)
        return;
    if ((p->nnames + 1) * 2 > p->capnames) {
        size_t cap = p->capnames ? p->capnames * 2 : 256;
        char **t = calloc(cap, sizeof(*t));
        if (!t)
            return;
        for (size_t i = 0; i < p->capnames; i++)
            if (p->names[i]) {
                size_t j = hash_str(p->names[i], strlen(p->names[i])) & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = p->names[i];
            }
        free(p->names);
        p->names = t;
        p->capnames = cap;
    }
    size_t j = hash_str(s, n) & (p->capnames - 1);
    for (; p->names[j]; j = (j + 1) & (p->capnames - 1))
        if (strlen(p->names[j]) == n && !memcmp(p->names[j], s, n))
            return;
    char *c = malloc(n + 1);
    if (!c)
        return;
    memcpy(c, s, n);
    c[n] = '\0';
    p->names[j] = c;
    p->nnames++;
}

static void count(struct pstate *p, const struct td_rec *rec, uint32_t len)
{
    if (!p->nc && !p->nnames)
        p->t_first = rec->t_enter;
    size_t i = 0;
    while (i < p->nc && p->c[i].fn != rec->fn)
        i++;
    if (i == p->nc) {
        if (p->nc == p->capc) {
            size_t c = p->capc ? p->capc * 2 : 16;
            struct fcount *n = realloc(p->c, c * sizeof(*n));
            if (!n)
                die("out of memory");
            p->c = n;
            p->capc = c;
        }
        p->c[p->nc++] = (struct fcount){ rec->fn, 0, 0 };
    }
    p->c[i].n++;
    int probe = td_is_probe(rec, len);
    p->c[i].probes += probe;
    if (!strcmp(td_fns[rec->fn].base, "cuGetProcAddress")) {
        const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_STR);
        if (it)
            note_name(p, (const char *)(it + 1), it->len);
    }
}

/* the pending lines of a group: "cuGetProcAddress_v2 ×440 (346 names, 35 not found)" */
static void flush_group(struct pstate *p, enum group g)
{
    char line[1024];
    size_t k = 0;
    int any = 0;
    for (size_t i = 0; i < p->nc; i++) {
        const struct fcount *c = &p->c[i];
        if (!c->n || group_of[c->fn] != g)
            continue;
        const char *name = td_fns[c->fn].name;
        if (g == G_LOOKUP) {
            char nf[48] = "";
            if (c->probes)
                snprintf(nf, sizeof(nf), ", %llu not found", c->probes);
            if (!strcmp(td_fns[c->fn].base, "cuGetProcAddress"))
                k += (size_t)snprintf(line + k, k < sizeof(line) ? sizeof(line) - k : 0,
                                      "%s%s \xc3\x97%llu (%zu name%s%s)", any ? ", " : "", name, c->n,
                                      p->nnames, p->nnames == 1 ? "" : "s", nf);
            else
                k += (size_t)snprintf(line + k, k < sizeof(line) ? sizeof(line) - k : 0, "%s%s \xc3\x97%llu%s%s%s",
                                      any ? ", " : "", name, c->n, *nf ? " (" : "", *nf ? nf + 2 : "", *nf ? ")" : "");
        } else {
            k += (size_t)snprintf(line + k, k < sizeof(line) ? sizeof(line) - k : 0, "%s%s%s \xc3\x97%llu",
                                  any ? ", " : "export-table calls: ", "", name, c->n);
        }
        any = 1;
    }
    if (any && line_fn) {
        if (k >= sizeof(line))
            snprintf(line + sizeof(line) - 5, 5, "...");
        line_fn(p->pid, p->t_first, line);
    }
}

static void flush_counts(struct pstate *p)
{
    flush_group(p, G_LOOKUP);
    flush_group(p, G_EXPTAB);
    p->nc = 0;
    for (size_t i = 0; i < p->capnames; i++)
        free(p->names[i]);
    free(p->names);
    p->names = NULL;
    p->nnames = p->capnames = 0;
}

/* a thread's run of one query ends: its calls, or its line */
static void end_run(struct pstate *p, struct thread_run *r)
{
    if (!r->n)
        return;
    if (r->n >= BURST) {
        char line[256], dev[32] = "";
        if (r->dev >= 0)
            snprintf(dev, sizeof(dev), " of device %d", r->dev);
        snprintf(line, sizeof(line), "%s \xc3\x97%llu (a burst of queries%s)", td_fns[r->fn].name, r->n, dev);
        if (line_fn)
            line_fn(p->pid, r->t0, line);
    } else {
        for (unsigned long long i = 0; i < r->n; i++)
            if (emit_fn)
                emit_fn(r->h[i].rec, r->h[i].len);
    }
    for (unsigned long long i = 0; i < r->n && i < BURST; i++)
        free(r->h[i].rec);
    r->n = 0;
}

static struct thread_run *run_of(struct pstate *p, int tid)
{
    for (size_t i = 0; i < p->nruns; i++)
        if (p->runs[i].tid == tid)
            return &p->runs[i];
    if (p->nruns == p->capruns) {
        size_t c = p->capruns ? p->capruns * 2 : 8;
        struct thread_run *n = realloc(p->runs, c * sizeof(*n));
        if (!n)
            die("out of memory");
        p->runs = n;
        p->capruns = c;
    }
    struct thread_run *r = &p->runs[p->nruns++];
    memset(r, 0, sizeof(*r));
    r->tid = tid;
    return r;
}

enum td_fold_verdict td_fold_call(const struct td_rec *rec, uint32_t len)
{
    enum group g = rec->fn < TD_FN__COUNT ? (enum group)group_of[rec->fn] : G_NONE;
    struct pstate *p = state((int)rec->pid, 1);
    struct thread_run *r = run_of(p, (int)rec->tid);
    if (g == G_BURST) {
        if (r->n && r->fn != rec->fn)
            end_run(p, r);
        int dev = rec->nargs > 2 ? (int)(int32_t)((const uint64_t *)(rec + 1))[2] : -1;
        if (!r->n) {
            r->fn = rec->fn;
            r->t0 = rec->t_enter;
            r->dev = dev;
        } else if (r->dev != dev) {
            r->dev = -1;
        }
        if (r->n < BURST) {
            struct td_rec *c = malloc(len);
            if (!c)
                die("out of memory");
            memcpy(c, rec, len);
            r->h[r->n] = (struct held){ c, len };
        }
        r->n++;
        return TD_FOLD_TAKEN;
    }
    end_run(p, r);
    if (g == G_LOOKUP || g == G_EXPTAB) {
        count(p, rec, len);
        return TD_FOLD_TAKEN;
    }
    if (!p->shown) { /* the start-up, before the program's first call */
        p->shown = 1;
        flush_counts(p);
    }
    return TD_FOLD_PRINT;
}

void td_fold_flush(int pid)
{
    struct pstate *p = state(pid, 0);
    if (!p)
        return;
    for (size_t i = 0; i < p->nruns; i++)
        end_run(p, &p->runs[i]);
    flush_counts(p);
}

void td_fold_release(void)
{
    for (size_t i = 0; i < nps; i++)
        for (size_t k = 0; k < ps[i].nruns; k++)
            end_run(&ps[i], &ps[i].runs[k]);
}

void td_fold_flush_all(void)
{
    for (size_t i = 0; i < nps; i++)
        td_fold_flush(ps[i].pid);
}

void td_fold_forget(int pid)
{
    struct pstate *p = state(pid, 0);
    if (!p)
        return;
    td_fold_flush(pid);
    free(p->c);
    free(p->runs);
    *p = ps[--nps];
}

void td_fold_free(void)
{
    while (nps)
        td_fold_forget(ps[nps - 1].pid);
    free(ps);
    ps = NULL;
    capps = 0;
}
