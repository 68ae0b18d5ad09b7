/* SPDX-License-Identifier: Apache-2.0 */
/* -c / -C: per-function figures in strace's layout (-U picks the columns,
 * -S the order), the kernels (like Nsight Systems' kernel summary: runs
 * and time on the emulated device, launches everywhere), and from the
 * memory ledger (ledger.c), per process and device, the memory held now
 * and at most and the allocations never freed. Sizes are human in text
 * (4 MiB) and exact in JSON. Everything prints through the print layer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "fold.h"
#include "ioctl.h"
#include "ledger.h"
#include "needs.h"
#include "output.h"
#include "pysummary.h"
#include "summary.h"

struct fnstat { unsigned long long calls, errors, probes, total_ns, min_ns, max_ns, device_ns; };

/* which shown call queued the emulated device's work (its correlation id,
 * TD_IT_CORR): a direct-mapped table of the latest ids. The work's event
 * may come before its call's record (it ran while the call returned):
 * its time waits in the slot (fn -1) for the call. A collision forgets
 * the older id: its work's time is not counted. */
#define CORR_SLOTS 65536
struct corrslot { int pid, fn; uint64_t corr; unsigned long long pending_ns; };
static struct corrslot *corrs;
static int device_seen;  /* some work's time was counted: the device column */

/* a kernel, by its mangled name */
struct kstat {
    char *name;
    unsigned long long launches, runs, total_ns, min_ns, max_ns;
};

static const struct td_opts *opts;
static struct fnstat fns[TD_FN__COUNT];
static struct kstat *ks;
static size_t nks, capks;
static struct { char mark[400]; unsigned long long n; } marks[256];
static int nmarks;
static const struct td_ioctl_ctx *ioctl_ctx;
static int shim_pids[4096], nshim;

void td_summary_init(const struct td_opts *o)
{
    opts = o;
}

void td_summary_hello(int pid)
{
    if (nshim < (int)(sizeof(shim_pids) / sizeof(shim_pids[0])))
        shim_pids[nshim++] = pid;
}

void td_summary_mark(const char *mark)
{
    for (int i = 0; i < nmarks; i++)
        if (strcmp(marks[i].mark, mark) == 0) {
            marks[i].n++;
            return;
        }
    if (nmarks < (int)(sizeof(marks) / sizeof(marks[0]))) {
        snprintf(marks[nmarks].mark, sizeof(marks[nmarks].mark), "%s", mark);
        marks[nmarks++].n = 1;
    }
}

void td_summary_ioctls(const struct td_ioctl_ctx *c)
{
    ioctl_ctx = c;
}

/* -e lib=: functions src/api/libs.api does not describe (LIB.call), each a
 * row of its own, by the name its records carry; past NLROWS names, in
 * LIB.call's own row */
#define NLROWS 4096
static struct { char name[TD_STR_MAX + 1]; struct fnstat s; } *lrows;
static int nlrows;

static struct fnstat *lib_row(const struct td_rec *rec, uint32_t len)
{
    struct td_libview v;
    if (rec->fn != TD_FN_LIB_call || !td_rec_lib(rec, len, &v) || !v.fn_len)
        return &fns[rec->fn];
    for (int i = 0; i < nlrows; i++)
        if (strlen(lrows[i].name) == v.fn_len && !memcmp(lrows[i].name, v.fn, v.fn_len))
            return &lrows[i].s;
    if (!lrows && !(lrows = calloc(NLROWS, sizeof(*lrows))))
        die("out of memory");
    if (nlrows == NLROWS)
        return &fns[rec->fn];
    snprintf(lrows[nlrows].name, sizeof(lrows[nlrows].name), "%.*s", (int)v.fn_len, v.fn);
    return &lrows[nlrows++].s;
}

/* a row of the table: a function id, or TD_FN__COUNT + a lrows index */
static const struct fnstat *stat_of(int i)
{
    return i < TD_FN__COUNT ? &fns[i] : &lrows[i - TD_FN__COUNT].s;
}

static const char *name_of(int i)
{
    return i < TD_FN__COUNT ? td_fns[i].name : lrows[i - TD_FN__COUNT].name;
}

static struct corrslot *corr_slot(int pid, uint64_t corr)
{
    if (!corrs && !(corrs = calloc(CORR_SLOTS, sizeof(*corrs))))
        die("out of memory");
    uint64_t h = (corr ^ ((uint64_t)(uint32_t)pid << 40)) * 0x9e3779b97f4a7c15ULL;
    struct corrslot *c = &corrs[(h >> 48) & (CORR_SLOTS - 1)];
    if (c->pid != pid || c->corr != corr) {
        c->pid = pid;
        c->corr = corr;
        c->fn = -1;
        c->pending_ns = 0;
    }
    return c;
}

static void corr_call(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_CORR);
    uint64_t corr;
    if (!it || it->len != sizeof(corr))
        return;
    memcpy(&corr, it + 1, sizeof(corr));
    struct corrslot *c = corr_slot((int)rec->pid, corr);
    c->fn = rec->fn;
    fns[rec->fn].device_ns += c->pending_ns;
    c->pending_ns = 0;
}

void td_summary_device(const struct td_rec *rec, uint32_t len)
{
    if (!opts->summary) /* the table is -c's and -C's only */
        return;
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_EVENT);
    uint64_t corr = 0;
    if (it && rec->fn == TD_EV_KERNEL && it->len == sizeof(struct td_ev_kernel)) {
        struct td_ev_kernel k;
        memcpy(&k, it + 1, sizeof(k));
        corr = k.corr;
    } else if (it && rec->fn == TD_EV_DEVOP && it->len == sizeof(struct td_ev_devop)) {
        struct td_ev_devop o;
        memcpy(&o, it + 1, sizeof(o));
        corr = o.corr;
    }
    if (!corr)
        return;
    unsigned long long d = rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
    struct corrslot *c = corr_slot((int)rec->pid, corr);
    device_seen = 1;
    if (c->fn >= 0 && c->fn < TD_FN__COUNT)
        fns[c->fn].device_ns += d;
    else
        c->pending_ns += d;
}

void td_summary_call(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT)
        return;
    if (opts->summary)
        corr_call(rec, len);
    struct fnstat *s = lib_row(rec, len);
    unsigned long long d = rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
    int probe = rec->result != 0 && td_is_probe(rec, len);
    if (opts->pyframes)
        td_pysum_call(rec, len, td_ledger_call_device_bytes());
    s->calls++;
    s->errors += rec->result != 0 && !probe && rec->fn != TD_FN_LIB_call; /* LIB.call: what it returned is no status */
    s->probes += probe;
    s->total_ns += d;
    if (d > s->max_ns)
        s->max_ns = d;
    if (s->calls == 1 || d < s->min_ns)
        s->min_ns = d;
}

static struct kstat *kernel(const char *name, size_t n)
{
    for (size_t i = 0; i < nks; i++)
        if (strlen(ks[i].name) == n && !memcmp(ks[i].name, name, n))
            return &ks[i];
    if (nks == capks) {
        size_t c = capks ? capks * 2 : 16;
        struct kstat *k = realloc(ks, c * sizeof(*k));
        if (!k)
            die("out of memory");
        ks = k;
        capks = c;
    }
    struct kstat *k = &ks[nks];
    memset(k, 0, sizeof(*k));
    k->name = malloc(n + 1);
    if (!k->name)
        die("out of memory");
    memcpy(k->name, name, n);
    k->name[n] = '\0';
    for (char *c = k->name; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    nks++;
    return k;
}

void td_summary_launch(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT || td_fns[rec->fn].kfunc < 0 || rec->result != 0)
        return;
    const struct td_item *it = td_rec_item(rec, len, td_fns[rec->fn].kfunc, TD_IT_STR);
    if (it)
        kernel((const char *)(it + 1), it->len)->launches++;
    else
        kernel("?", 1)->launches++;
}

/* the emulator's JIT: kernels compiled and loaded from its cache, their
 * time, the most compiled code a process held */
static struct { unsigned long long compiled, loaded, compile_us, load_us, code_max; } jit;

static const char *sz(unsigned long long v, char *b, size_t n);

void td_summary_kernel_ran(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *ev = td_rec_item(rec, len, 0, TD_IT_EVENT);
    if (ev && ev->len == sizeof(struct td_ev_kernel)) {
        struct td_ev_kernel e;
        memcpy(&e, ev + 1, sizeof(e));
        if (e.jit == 1) {
            jit.compiled++;
            jit.compile_us += e.jit_us;
        } else if (e.jit == 2) {
            jit.loaded++;
            jit.load_us += e.jit_us;
        }
        if (e.jit && e.jit_code_bytes > jit.code_max)
            jit.code_max = e.jit_code_bytes;
    }
    const struct td_item *it = td_rec_item(rec, len, 1, TD_IT_STR);
    struct kstat *k = it ? kernel((const char *)(it + 1), it->len) : kernel("?", 1);
    unsigned long long d = rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
    k->runs++;
    k->total_ns += d;
    if (d > k->max_ns)
        k->max_ns = d;
    if (k->runs == 1 || d < k->min_ns)
        k->min_ns = d;
}

void td_summary_exit(int pid)
{
    (void)pid;
}

/* ---- printing ---- */

static struct tp tp_;

static struct tp *out_line(void)
{
    if (!tp_.cap)
        tp_init(&tp_, TP_TEXT, NULL);
    tp_.f = td_out_summary_file();
    tp_.xmode = opts->xmode;
    return &tp_;
}

static void line(struct tp *p)
{
    tp_line_end(p);
}

static int cmp_fn(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    const struct fnstat *p = stat_of(a), *q = stat_of(b);
    const char *by = opts->sortby ? opts->sortby : "time";
    unsigned long long u = 0, v = 0;
    if (strcmp(by, "calls") == 0) {
        u = p->calls; v = q->calls;
    } else if (strcmp(by, "errors") == 0) {
        u = p->errors; v = q->errors;
    } else if (strcmp(by, "avg") == 0) {
        u = p->calls ? p->total_ns / p->calls : 0; v = q->calls ? q->total_ns / q->calls : 0;
    } else if (strcmp(by, "max") == 0) {
        u = p->max_ns; v = q->max_ns;
    } else if (strcmp(by, "name") == 0) {
        return strcmp(name_of(a), name_of(b));
    } else {
        u = p->total_ns; v = q->total_ns;
    }
    if (u != v)
        return u < v ? 1 : -1;
    return strcmp(name_of(a), name_of(b));
}

static const int default_columns[] = { TD_COL_PERCENT, TD_COL_SECONDS, TD_COL_AVG, TD_COL_MAX,
                                       TD_COL_CALLS, TD_COL_ERRORS, TD_COL_NAME };
/* ... when the emulated device's work was timed: beside the time in the calls */
static const int device_columns[] = { TD_COL_PERCENT, TD_COL_SECONDS, TD_COL_DEVICE, TD_COL_AVG, TD_COL_MAX,
                                      TD_COL_CALLS, TD_COL_ERRORS, TD_COL_NAME };

static void columns(const int **cols, int *n)
{
    if (opts->ncolumns) {
        *cols = opts->columns;
        *n = opts->ncolumns;
    } else if (device_seen) {
        *cols = device_columns;
        *n = (int)(sizeof(device_columns) / sizeof(device_columns[0]));
    } else {
        *cols = default_columns;
        *n = (int)(sizeof(default_columns) / sizeof(default_columns[0]));
    }
}

static void head(struct tp *p, const int *cols, int n, const char *what)
{
    static const char *const titles[] = { "% time", "seconds", "usecs/call", "min usecs", "max usecs",
                                          "calls", "errors", "device secs", NULL };
    static const int widths[] = { 6, 11, 11, 11, 11, 9, 9, 11, 0 };
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            int c = cols[i];
            if (i)
                tp_raw(p, " ");
            if (c == TD_COL_NAME)
                tp_rawf(p, "%s", pass ? "--------------------------------" : what);
            else if (pass)
                tp_rawf(p, "%.*s", widths[c], "-----------");
            else
                tp_rawf(p, "%*s", widths[c], titles[c]);
        }
        line(p);
    }
}

static void row(struct tp *p, const int *cols, int n, const struct fnstat *s, unsigned long long total,
                const char *name, int is_total)
{
    for (int i = 0; i < n; i++) {
        if (i)
            tp_raw(p, " ");
        switch ((enum td_column)cols[i]) {
        case TD_COL_PERCENT:
            tp_rawf(p, "%6.2f", total ? 100.0 * (double)s->total_ns / (double)total : is_total ? 100.0 : 0.0);
            break;
        case TD_COL_SECONDS:
            tp_rawf(p, "%11.6f", (double)s->total_ns / 1e9);
            break;
        case TD_COL_AVG:
            if (is_total)
                tp_rawf(p, "%11s", "");
            else
                tp_rawf(p, "%11llu", s->calls ? s->total_ns / s->calls / 1000 : 0);
            break;
        case TD_COL_MIN:
            tp_rawf(p, "%11llu", s->min_ns / 1000);
            break;
        case TD_COL_MAX:
            if (is_total)
                tp_rawf(p, "%11s", "");
            else
                tp_rawf(p, "%11llu", s->max_ns / 1000);
            break;
        case TD_COL_CALLS:
            tp_rawf(p, "%9llu", s->calls);
            break;
        case TD_COL_ERRORS:
            if (s->errors)
                tp_rawf(p, "%9llu", s->errors);
            else
                tp_rawf(p, "%9s", "");
            break;
        case TD_COL_DEVICE: /* the device's time for the work these calls queued */
            if (s->device_ns)
                tp_rawf(p, "%11.6f", (double)s->device_ns / 1e9);
            else
                tp_rawf(p, "%11s", "");
            break;
        case TD_COL_NAME:
        case TD_COL__COUNT:
        default:
            tp_raw(p, name);
            break;
        }
    }
    line(p);
}

static void table(void)
{
    static int order[TD_FN__COUNT + NLROWS];
    int n = 0;
    struct fnstat tot = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < TD_FN__COUNT + nlrows; i++) {
        const struct fnstat *f = stat_of(i);
        if (f->calls) {
            order[n++] = i;
            tot.total_ns += f->total_ns;
            tot.calls += f->calls;
            tot.errors += f->errors;
            tot.probes += f->probes;
            tot.device_ns += f->device_ns;
            if (tot.calls == f->calls || f->min_ns < tot.min_ns)
                tot.min_ns = f->min_ns;
        }
    }
    qsort(order, (size_t)n, sizeof(int), cmp_fn);
    const int *cols;
    int ncols;
    columns(&cols, &ncols);
    struct tp *p = out_line();
    head(p, cols, ncols, "function");
    for (int k = 0; k < n; k++)
        row(p, cols, ncols, stat_of(order[k]), tot.total_ns, name_of(order[k]), 0);
    for (int i = 0; i < ncols; i++) {
        if (i)
            tp_raw(p, " ");
        static const int widths[] = { 6, 11, 11, 11, 11, 9, 9, 11, 0 };
        if (cols[i] == TD_COL_NAME)
            tp_raw(p, "--------------------------------");
        else
            tp_rawf(p, "%.*s", widths[cols[i]], "-----------");
    }
    line(p);
    row(p, cols, ncols, &tot, tot.total_ns, "total", 1);
    if (tot.probes) {
        tp_rawf(p, "(%llu lookup%s that found nothing, counted apart from errors: see PROBES in tdtrace(1))",
                tot.probes, tot.probes == 1 ? "" : "s");
        line(p);
    }
}

/* the kernels: launches, and what the device took to run them (the emulator's or CUPTI's times) */
static int cmp_kernel(const void *x, const void *y)
{
    const struct kstat *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    if (a->launches != b->launches)
        return a->launches < b->launches ? 1 : -1;
    return strcmp(a->name, b->name);
}

static void kernel_table(void)
{
    if (!nks)
        return;
    qsort(ks, nks, sizeof(*ks), cmp_kernel);
    unsigned long long total = 0, runs = 0;
    for (size_t i = 0; i < nks; i++) {
        total += ks[i].total_ns;
        runs += ks[i].runs;
    }
    struct tp *p = out_line();
    line(p);
    tp_rawf(p, "%6s %11s %11s %11s %11s %9s %9s %s", "% time", "seconds", "usecs/run", "min usecs", "max usecs",
            "launches", "runs", "kernel");
    line(p);
    tp_raw(p, "------ ----------- ----------- ----------- ----------- --------- --------- --------------------------------");
    line(p);
    for (size_t i = 0; i < nks; i++) {
        const struct kstat *k = &ks[i];
        char dem[1024];
        const char *name = td_demangle(k->name, dem, sizeof(dem));
        if (k->runs)
            tp_rawf(p, "%6.2f %11.6f %11llu %11llu %11llu %9llu %9llu %s",
                    total ? 100.0 * (double)k->total_ns / (double)total : 0.0, (double)k->total_ns / 1e9,
                    k->total_ns / k->runs / 1000, k->min_ns / 1000, k->max_ns / 1000, k->launches, k->runs, name);
        else
            tp_rawf(p, "%6s %11s %11s %11s %11s %9llu %9s %s", "-", "-", "-", "-", "-", k->launches, "-", name);
        line(p);
    }
    if (!runs) {
        tp_raw(p, "(no run was timed: times come from the emulated device, or from CUPTI on a real GPU)");
        line(p);
    }
    if (jit.compiled || jit.loaded) {
        char b[32];
        tp_rawf(p, "emulator's JIT: %llu kernel%s compiled in %.1f ms, %llu loaded from the cache in %.1f ms; "
                "compiled code held: at most %s", jit.compiled, jit.compiled == 1 ? "" : "s",
                (double)jit.compile_us / 1e3, jit.loaded, (double)jit.load_us / 1e3,
                sz(jit.code_max, b, sizeof(b)));
        line(p);
    }
}

static void ioctl_table(void)
{
    const struct td_ioctl_stat *st;
    size_t n = ioctl_ctx ? td_ioctl_stats(ioctl_ctx, &st) : 0;
    if (!n)
        return;
    unsigned long long total = 0, calls = 0, errors = 0;
    for (size_t i = 0; i < n; i++) {
        total += st[i].time_ns;
        calls += st[i].calls;
        errors += st[i].errors;
    }
    struct tp *p = out_line();
    line(p);
    tp_rawf(p, "%6s %11s %11s %9s %9s %s", "% time", "seconds", "usecs/call", "calls", "errors", "GPU ioctl");
    line(p);
    tp_raw(p, "------ ----------- ----------- --------- --------- --------------------------------");
    line(p);
    for (size_t i = 0; i < n; i++) {
        tp_rawf(p, "%6.2f %11.6f %11llu %9llu ", total ? 100.0 * (double)st[i].time_ns / (double)total : 0.0,
                (double)st[i].time_ns / 1e9, st[i].calls ? st[i].time_ns / st[i].calls / 1000 : 0, st[i].calls);
        if (st[i].errors)
            tp_rawf(p, "%9llu ", st[i].errors);
        else
            tp_rawf(p, "%9s ", "");
        tp_raw(p, st[i].name);
        line(p);
    }
    tp_raw(p, "------ ----------- ----------- --------- --------- --------------------------------");
    line(p);
    tp_rawf(p, "%6.2f %11.6f %11s %9llu ", 100.0, (double)total / 1e9, "", calls);
    if (errors)
        tp_rawf(p, "%9llu ", errors);
    else
        tp_rawf(p, "%9s ", "");
    tp_raw(p, "total");
    line(p);
}

static const char *sz(unsigned long long v, char *b, size_t n)
{
    return opts->xmode == TP_X_RAW ? (snprintf(b, n, "%llu", v), b) : tp_size_text(v, b, n);
}

static void memory_table(void)
{
    int np;
    const struct td_ledger_proc *pr = td_ledger_procs(&np);
    struct tp *p = out_line();
    int any = 0;
    for (int i = 0; i < np; i++) {
        if (!pr[i].nallocs)
            continue;
        if (!any++) {
            line(p);
            tp_rawf(p, "%7s %6s %15s %15s %15s %11s", "pid", "device", "current", "peak", "pinned peak", "allocations");
            line(p);
        }
        char a[64], b[64], c[64];
        int printed = 0;
        for (int d = 0; d < TD_MAX_DEVICES; d++) {
            if (!pr[i].dev_peak[d])
                continue;
            tp_rawf(p, "%7d %6d %15s %15s %15s %11llu", pr[i].pid, d, sz(pr[i].dev_cur[d], a, sizeof(a)),
                    sz(pr[i].dev_peak[d], b, sizeof(b)), printed ? "" : sz(pr[i].host_peak, c, sizeof(c)),
                    printed ? 0ULL : pr[i].nallocs);
            line(p);
            printed = 1;
        }
        if (!printed) {
            tp_rawf(p, "%7d %6s %15s %15s %15s %11llu", pr[i].pid, "-", "-", "-", sz(pr[i].host_peak, c, sizeof(c)),
                    pr[i].nallocs);
            line(p);
        }
    }
}

static void leak_report(int pid)
{
    size_t n;
    const struct td_alloc *a = td_ledger_live(pid, &n);
    if (!n)
        return;
    unsigned long long bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += a[i].size;
    struct tp *p = out_line();
    char b[64];
    tp_rawf(p, "leaks in pid %d: %zu allocation%s never freed, %s", pid, n, n == 1 ? "" : "s", sz(bytes, b, sizeof(b)));
    line(p);
    for (size_t i = 0; i < n; i++) {
        if (a[i].kind == TD_MEM_DEVICE)
            tp_rawf(p, "  alloc#%llu  %#llx  %s on device %d, from %s", a[i].num, (unsigned long long)a[i].ptr,
                    sz(a[i].size, b, sizeof(b)), a[i].dev, td_fns[a[i].fn].name);
        else
            tp_rawf(p, "  alloc#%llu  %#llx  %s of pinned host memory, from %s", a[i].num,
                    (unsigned long long)a[i].ptr, sz(a[i].size, b, sizeof(b)), td_fns[a[i].fn].name);
        line(p);
    }
}

static void json_summary(void)
{
    FILE *f = td_out()->json;
    if (!f)
        return;
    struct tp p;
    tp_init(&p, TP_JSON, f);
    tp_raw(&p, "{\"type\":\"summary\",\"functions\":");
    tp_array_begin(&p);
    for (int i = 0; i < TD_FN__COUNT + nlrows; i++) {
        const struct fnstat *st = stat_of(i);
        if (!st->calls)
            continue;
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "function"); tp_str(&p, name_of(i), strlen(name_of(i)), 0);
        tp_field(&p, "calls"); tp_uint(&p, st->calls);
        tp_field(&p, "errors"); tp_uint(&p, st->errors);
        tp_field(&p, "probes"); tp_uint(&p, st->probes);
        tp_field(&p, "seconds"); tp_rawf(&p, "%.9f", (double)st->total_ns / 1e9);
        tp_field(&p, "min_seconds"); tp_rawf(&p, "%.9f", (double)st->min_ns / 1e9);
        tp_field(&p, "max_seconds"); tp_rawf(&p, "%.9f", (double)st->max_ns / 1e9);
        if (st->device_ns) {
            tp_field(&p, "device_seconds"); tp_rawf(&p, "%.9f", (double)st->device_ns / 1e9);
        }
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    tp_raw(&p, ",\"kernels\":");
    tp_array_begin(&p);
    for (size_t i = 0; i < nks; i++) {
        char dem[1024];
        const char *name = td_demangle(ks[i].name, dem, sizeof(dem));
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "kernel"); tp_str(&p, name, strlen(name), 0);
        tp_field(&p, "mangled"); tp_str(&p, ks[i].name, strlen(ks[i].name), 0);
        tp_field(&p, "launches"); tp_uint(&p, ks[i].launches);
        tp_field(&p, "runs"); tp_uint(&p, ks[i].runs);
        tp_field(&p, "seconds"); tp_rawf(&p, "%.9f", (double)ks[i].total_ns / 1e9);
        tp_field(&p, "min_seconds"); tp_rawf(&p, "%.9f", (double)ks[i].min_ns / 1e9);
        tp_field(&p, "max_seconds"); tp_rawf(&p, "%.9f", (double)ks[i].max_ns / 1e9);
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    if (jit.compiled || jit.loaded)
        tp_rawf(&p, ",\"jit\":{\"compiled\":%llu,\"compile_seconds\":%.6f,\"loaded\":%llu,\"load_seconds\":%.6f,"
                "\"code_bytes_max\":%llu}", jit.compiled, (double)jit.compile_us / 1e6, jit.loaded,
                (double)jit.load_us / 1e6, jit.code_max);
    tp_raw(&p, ",\"processes\":");
    tp_array_begin(&p);
    int np;
    const struct td_ledger_proc *pr = td_ledger_procs(&np);
    for (int i = 0; i < np; i++) {
        tp_elem(&p);
        tp_struct_begin(&p);
        int shim = 0;
        for (int k = 0; k < nshim; k++)
            shim |= shim_pids[k] == pr[i].pid;
        tp_field(&p, "pid"); tp_int(&p, pr[i].pid);
        tp_field(&p, "shim"); tp_raw(&p, shim ? "true" : "false");
        tp_field(&p, "allocations"); tp_uint(&p, pr[i].nallocs);
        tp_field(&p, "pinned_host_peak"); tp_uint(&p, pr[i].host_peak);
        tp_field(&p, "devices");
        tp_array_begin(&p);
        for (int d = 0; d < TD_MAX_DEVICES; d++) {
            if (!pr[i].dev_peak[d])
                continue;
            tp_elem(&p);
            tp_struct_begin(&p);
            tp_field(&p, "device"); tp_int(&p, d);
            tp_field(&p, "current"); tp_uint(&p, pr[i].dev_cur[d]);
            tp_field(&p, "peak"); tp_uint(&p, pr[i].dev_peak[d]);
            tp_struct_end(&p);
        }
        tp_array_end(&p);
        tp_field(&p, "leaks");
        tp_array_begin(&p);
        size_t n;
        const struct td_alloc *a = td_ledger_live(pr[i].pid, &n);
        for (size_t k = 0; k < n; k++) {
            tp_elem(&p);
            tp_struct_begin(&p);
            tp_field(&p, "alloc"); tp_uint(&p, a[k].num);
            tp_field(&p, "ptr"); tp_hex(&p, a[k].ptr);
            tp_field(&p, "bytes"); tp_uint(&p, a[k].size);
            tp_field(&p, "kind"); tp_sym(&p, a[k].kind == TD_MEM_DEVICE ? "device" : "host");
            tp_field(&p, "device"); tp_int(&p, a[k].dev);
            tp_field(&p, "function"); tp_sym(&p, td_fns[a[k].fn].name);
            tp_struct_end(&p);
        }
        tp_array_end(&p);
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    tp_raw(&p, ",\"ioctls\":");
    tp_array_begin(&p);
    const struct td_ioctl_stat *st;
    size_t nio = ioctl_ctx ? td_ioctl_stats(ioctl_ctx, &st) : 0;
    for (size_t i = 0; i < nio; i++) {
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "ioctl"); tp_str(&p, st[i].name, strlen(st[i].name), 0);
        tp_field(&p, "calls"); tp_uint(&p, st[i].calls);
        tp_field(&p, "errors"); tp_uint(&p, st[i].errors);
        tp_field(&p, "denied"); tp_uint(&p, st[i].denied);
        tp_field(&p, "seconds"); tp_rawf(&p, "%.9f", (double)st[i].time_ns / 1e9);
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    tp_raw(&p, ",\"policy\":");
    tp_array_begin(&p);
    for (int i = 0; i < nmarks; i++) {
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "mark"); tp_str(&p, marks[i].mark, strlen(marks[i].mark), 0);
        tp_field(&p, "calls"); tp_uint(&p, marks[i].n);
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    td_pysum_json(&p);
    td_needs_json(&p);
    tp_raw(&p, "}");
    tp_line_end(&p);
    tp_free(&p);
}

void td_summary_print(void)
{
    json_summary();
    if (!opts->summary)
        return;
    table();
    kernel_table();
    ioctl_table();
    struct tp *p = out_line();
    if (nmarks) {
        line(p);
        tp_rawf(p, "%9s  %s", "calls", "policy");
        line(p);
        for (int i = 0; i < nmarks; i++) {
            tp_rawf(p, "%9llu  %s", marks[i].n, marks[i].mark);
            line(p);
        }
    }
    td_pysum_table(p, sz);
    memory_table();
    int np;
    const struct td_ledger_proc *pr = td_ledger_procs(&np);
    int *pids = np ? malloc((size_t)np * sizeof(int)) : NULL;
    for (int i = 0; i < np && pids; i++)
        pids[i] = pr[i].pid;
    for (int i = 0; i < np && pids; i++)
        leak_report(pids[i]);
    free(pids);
    if (p->f)
        fflush(p->f);
}

void td_summary_free(void)
{
    for (size_t i = 0; i < nks; i++)
        free(ks[i].name);
    free(ks);
    ks = NULL;
    nks = capks = 0;
    free(corrs);
    corrs = NULL;
    td_pysum_free();
    tp_free(&tp_);
}
