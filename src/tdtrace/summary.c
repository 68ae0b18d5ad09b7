/* -c / -C: per-function figures in strace's layout, and per process:
 * device memory (current and peak, per device), pinned host memory, the
 * number of allocations, and the allocations never freed (leaks).
 *
 * What allocates and frees is data: the table below names, per entry
 * point, the argument holding the pointer and the size. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioctl.h"
#include "output.h"
#include "summary.h"

enum mem_op { M_ALLOC, M_FREE };
enum mem_kind { M_DEVICE, M_HOST };

struct mem_rule {
    const char *fn;
    enum mem_op op;
    enum mem_kind kind;
    int ptr_arg;      /* the out-pointer (alloc) or the pointer (free) */
    int size_arg;     /* -1: none */
    int height_arg;   /* pitched: size = *pitch (out) * height */
};

static const struct mem_rule rules[] = {
    { "cuMemAlloc_v2", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAlloc", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocManaged", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocAsync", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocAsync_ptsz", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocFromPoolAsync", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocFromPoolAsync_ptsz", M_ALLOC, M_DEVICE, 0, 1, -1 },
    { "cuMemAllocPitch_v2", M_ALLOC, M_DEVICE, 0, 1, 3 },
    { "cuMemFree_v2", M_FREE, M_DEVICE, 0, -1, -1 },
    { "cuMemFree", M_FREE, M_DEVICE, 0, -1, -1 },
    { "cuMemFreeAsync", M_FREE, M_DEVICE, 0, -1, -1 },
    { "cuMemFreeAsync_ptsz", M_FREE, M_DEVICE, 0, -1, -1 },
    { "cuMemAllocHost_v2", M_ALLOC, M_HOST, 0, 1, -1 },
    { "cuMemAllocHost", M_ALLOC, M_HOST, 0, 1, -1 },
    { "cuMemHostAlloc", M_ALLOC, M_HOST, 0, 1, -1 },
    { "cuMemFreeHost", M_FREE, M_HOST, 0, -1, -1 },
};

#define MAX_DEV TD_MAX_DEVICES

struct fnstat { unsigned long long calls, errors, total_ns, max_ns; };

struct alloc {
    int pid;
    int used;                /* 1 live, 2 tombstone */
    enum mem_kind kind;
    int dev;
    unsigned long long ptr, size, t;
    unsigned short fn;
};

struct proc {
    int pid;
    int shim;                /* loaded the shim */
    int exited;
    unsigned long long dev_cur[MAX_DEV], dev_peak[MAX_DEV];
    unsigned long long host_cur, host_peak, nallocs;
};

static const struct td_opts *opts;
static struct { char mark[400]; unsigned long long n; } marks[256];
static int nmarks;
static const struct td_ioctl_ctx *ioctl_ctx;

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
static struct fnstat fns[TD_FN__COUNT];
static int rule_of[TD_FN__COUNT]; /* index+1 into rules, 0 none */
static struct alloc *allocs;
static size_t nalloc_slots, nalloc_used;
static struct proc procs[4096];
/* every process together, per device: what the in-process limit counts */
static unsigned long long dev_all_cur[MAX_DEV], dev_all_peak[MAX_DEV];
static int nprocs;
/* context -> device, and each thread's current context */
static struct { int pid; unsigned long long ctx; int dev; } ctxdev[1024];
static int nctxdev;
static struct { int tid; unsigned long long ctx; } cur[4096];
static int ncur;

/* calls that make a context (out-pointer 0) for a device argument, and
 * calls that make a context current (argument 0) */
static const struct { const char *fn; int dev_arg; } ctx_rules[] = {
    { "cuDevicePrimaryCtxRetain", 1 }, { "cuCtxCreate", 2 }, { "cuCtxCreate_v2", 2 },
    { "cuCtxCreate_v3", 4 }, { "cuCtxCreate_v4", 3 },
    { "cuCtxSetCurrent", -1 }, { "cuCtxPushCurrent", -1 }, { "cuCtxPushCurrent_v2", -1 },
};
static signed char ctx_rule_of[TD_FN__COUNT]; /* index+1, 0 none */

void td_summary_init(const struct td_opts *o)
{
    opts = o;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        int id = td_api_find(rules[i].fn);
        if (id >= 0)
            rule_of[id] = (int)i + 1;
    }
    for (size_t i = 0; i < sizeof(ctx_rules) / sizeof(ctx_rules[0]); i++) {
        int id = td_api_find(ctx_rules[i].fn);
        if (id >= 0)
            ctx_rule_of[id] = (signed char)(i + 1);
    }
}

static struct proc *proc_of(int pid)
{
    for (int i = 0; i < nprocs; i++)
        if (procs[i].pid == pid)
            return &procs[i];
    if (nprocs == (int)(sizeof(procs) / sizeof(procs[0])))
        return NULL;
    struct proc *p = &procs[nprocs++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    return p;
}

void td_summary_hello(int pid)
{
    struct proc *p = proc_of(pid);
    if (p)
        p->shim = 1;
}

/* ---- allocations: open addressing on (pid, ptr) ---- */

static size_t slot_hash(int pid, unsigned long long ptr)
{
    unsigned long long h = ptr * 0x9E3779B97F4A7C15ULL ^ (unsigned long long)pid * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h >> 17);
}

static struct alloc *alloc_find(int pid, unsigned long long ptr, int create)
{
    if (create && (nalloc_used + 1) * 2 > nalloc_slots) {
        size_t n = nalloc_slots ? nalloc_slots * 2 : 1024;
        struct alloc *old = allocs;
        size_t oldn = nalloc_slots;
        allocs = calloc(n, sizeof(*allocs));
        if (!allocs) {
            allocs = old;
            return NULL;
        }
        nalloc_slots = n;
        nalloc_used = 0;
        for (size_t i = 0; i < oldn; i++)
            if (old[i].used == 1) {
                struct alloc *a = alloc_find(old[i].pid, old[i].ptr, 1);
                if (a)
                    *a = old[i];
            }
        free(old);
    }
    if (!nalloc_slots)
        return NULL;
    size_t i = slot_hash(pid, ptr) & (nalloc_slots - 1);
    struct alloc *tomb = NULL;
    for (size_t k = 0; k < nalloc_slots; k++, i = (i + 1) & (nalloc_slots - 1)) {
        struct alloc *a = &allocs[i];
        if (a->used == 0) {
            if (!create)
                return NULL;
            a = tomb ? tomb : a;
            memset(a, 0, sizeof(*a));
            a->used = 1;
            a->pid = pid;
            a->ptr = ptr;
            nalloc_used++;
            return a;
        }
        if (a->used == 2) {
            if (!tomb)
                tomb = a;
            continue;
        }
        if (a->pid == pid && a->ptr == ptr)
            return a;
    }
    return NULL;
}

static int current_device(int pid, int tid)
{
    unsigned long long ctx = 0;
    for (int i = 0; i < ncur; i++)
        if (cur[i].tid == tid)
            ctx = cur[i].ctx;
    for (int i = 0; i < nctxdev; i++)
        if (ctxdev[i].pid == pid && ctxdev[i].ctx == ctx)
            return ctxdev[i].dev;
    return 0;
}

static void set_current(int tid, unsigned long long ctx)
{
    for (int i = 0; i < ncur; i++)
        if (cur[i].tid == tid) {
            cur[i].ctx = ctx;
            return;
        }
    if (ncur < (int)(sizeof(cur) / sizeof(cur[0]))) {
        cur[ncur].tid = tid;
        cur[ncur].ctx = ctx;
        ncur++;
    }
}

static int out_u64(const struct td_rec *rec, uint32_t len, int arg, unsigned long long *v)
{
    const struct td_item *it = td_rec_item(rec, len, arg, TD_IT_OUT);
    if (!it || it->len == 0 || it->len > 8)
        return -1;
    *v = 0;
    memcpy(v, it + 1, it->len);
    return 0;
}


/* the device a successful context-making call names, or INT32_MIN */
static int ctx_device(const struct td_rec *rec, const uint64_t *a)
{
    int k = ctx_rule_of[rec->fn];
    if (!k || ctx_rules[k - 1].dev_arg < 0)
        return INT32_MIN;
    return (int)(int32_t)a[ctx_rules[k - 1].dev_arg];
}

int td_summary_check(const struct td_rec *rec, uint32_t len, char *why, size_t n)
{
    (void)len;
    if (rec->result != 0)
        return 0; /* a failed call changes nothing */
    int dev = ctx_device(rec, (const uint64_t *)(rec + 1));
    if (dev != INT32_MIN && (dev < 0 || dev >= MAX_DEV)) {
        snprintf(why, n, "%s: device %d is not a device", td_fns[rec->fn].name, dev);
        return -1;
    }
    return 0;
}

unsigned long long td_summary_device_peak(int dev)
{
    return dev >= 0 && dev < MAX_DEV ? dev_all_peak[dev] : 0;
}

static void track_context(const struct td_rec *rec, uint32_t len, const uint64_t *a)
{
    int k = ctx_rule_of[rec->fn];
    if (!k)
        return;
    const char *name = ctx_rules[k - 1].fn;
    int dev_arg = ctx_rules[k - 1].dev_arg;
    unsigned long long ctx;
    if (dev_arg >= 0 && out_u64(rec, len, 0, &ctx) == 0) {
        if (nctxdev < (int)(sizeof(ctxdev) / sizeof(ctxdev[0]))) {
            ctxdev[nctxdev].pid = (int)rec->pid;
            ctxdev[nctxdev].ctx = ctx;
            ctxdev[nctxdev].dev = ctx_device(rec, a); /* checked: 0 <= dev < MAX_DEV */
            nctxdev++;
        }
        if (strncmp(name, "cuCtxCreate", 11) == 0)
            set_current((int)rec->tid, ctx);
    } else if (dev_arg < 0) {
        set_current((int)rec->tid, a[0]);
    }
}

void td_summary_call(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT)
        return;
    struct fnstat *s = &fns[rec->fn];
    unsigned long long d = rec->t_exit >= rec->t_enter ? rec->t_exit - rec->t_enter : 0;
    s->calls++;
    s->errors += rec->result != 0;
    s->total_ns += d;
    if (d > s->max_ns)
        s->max_ns = d;
    if (rec->result != 0 || rec->nargs != td_fns[rec->fn].nparams ||
        sizeof(*rec) + (size_t)rec->nargs * 8 > len)
        return;
    const uint64_t *a = (const uint64_t *)(rec + 1);
    track_context(rec, len, a);
    int r = rule_of[rec->fn];
    if (!r)
        return;
    const struct mem_rule *m = &rules[r - 1];
    struct proc *p = proc_of((int)rec->pid);
    if (!p)
        return;
    if (m->op == M_ALLOC) {
        unsigned long long ptr, size = a[m->size_arg];
        if (out_u64(rec, len, m->ptr_arg, &ptr) < 0)
            return;
        if (m->height_arg >= 0) {
            unsigned long long pitch;
            if (out_u64(rec, len, 1, &pitch) == 0)
                size = pitch * a[m->height_arg];
        }
        int dev = m->kind == M_DEVICE ? current_device((int)rec->pid, (int)rec->tid) : -1;
        struct alloc *al = alloc_find((int)rec->pid, ptr, 1);
        if (!al)
            return;
        al->kind = m->kind;
        al->dev = dev;
        al->size = size;
        al->t = rec->t_enter;
        al->fn = rec->fn;
        p->nallocs++;
        if (m->kind == M_DEVICE) {
            p->dev_cur[dev] += size;
            if (p->dev_cur[dev] > p->dev_peak[dev])
                p->dev_peak[dev] = p->dev_cur[dev];
            dev_all_cur[dev] += size;
            if (dev_all_cur[dev] > dev_all_peak[dev])
                dev_all_peak[dev] = dev_all_cur[dev];
        } else {
            p->host_cur += size;
            if (p->host_cur > p->host_peak)
                p->host_peak = p->host_cur;
        }
    } else {
        struct alloc *al = alloc_find((int)rec->pid, a[m->ptr_arg], 0);
        if (!al)
            return;
        if (al->kind == M_DEVICE) {
            p->dev_cur[al->dev] -= al->size;
            dev_all_cur[al->dev] -= al->size;
        } else
            p->host_cur -= al->size;
        al->used = 2;
        nalloc_used--;
    }
}

/* ---- printing ---- */

static void emit(const char *text)
{
    td_out_event(0, 0, "banner", text);
}

static FILE *sum_out(void)
{
    return td_out()->main;
}

static void leak_report(struct proc *p)
{
    unsigned long long n = 0, bytes = 0;
    for (size_t i = 0; i < nalloc_slots; i++)
        if (allocs[i].used == 1 && allocs[i].pid == p->pid) {
            n++;
            bytes += allocs[i].size;
        }
    if (!n)
        return;
    char line[512];
    snprintf(line, sizeof(line), "leaks in pid %d: %llu allocation%s never freed, %llu bytes",
             p->pid, n, n == 1 ? "" : "s", bytes);
    emit(line);
    for (size_t i = 0; i < nalloc_slots; i++) {
        struct alloc *a = &allocs[i];
        if (a->used != 1 || a->pid != p->pid)
            continue;
        if (a->kind == M_DEVICE)
            snprintf(line, sizeof(line), "  %#llx  %llu bytes on device %d, from %s", a->ptr,
                     a->size, a->dev, td_fns[a->fn].name);
        else
            snprintf(line, sizeof(line), "  %#llx  %llu bytes of pinned host memory, from %s",
                     a->ptr, a->size, td_fns[a->fn].name);
        emit(line);
    }
}

void td_summary_exit(int pid)
{
    struct proc *p = proc_of(pid);
    if (p)
        p->exited = 1;
}

static int cmp_fn(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    const struct fnstat *p = &fns[a], *q = &fns[b];
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
        return strcmp(td_fns[a].name, td_fns[b].name);
    } else {
        u = p->total_ns; v = q->total_ns;
    }
    if (u != v)
        return u < v ? 1 : -1;
    return strcmp(td_fns[a].name, td_fns[b].name);
}

static void table(void)
{
    int order[TD_FN__COUNT], n = 0;
    unsigned long long total = 0, calls = 0, errors = 0;
    for (int i = 0; i < TD_FN__COUNT; i++)
        if (fns[i].calls) {
            order[n++] = i;
            total += fns[i].total_ns;
            calls += fns[i].calls;
            errors += fns[i].errors;
        }
    qsort(order, (size_t)n, sizeof(int), cmp_fn);
    FILE *f = sum_out();
    fprintf(f, "%6s %11s %11s %11s %9s %9s %s\n", "% time", "seconds", "usecs/call", "max usecs",
            "calls", "errors", "function");
    fprintf(f, "------ ----------- ----------- ----------- --------- --------- --------------------------------\n");
    for (int k = 0; k < n; k++) {
        const struct fnstat *s = &fns[order[k]];
        double pct = total ? 100.0 * (double)s->total_ns / (double)total : 0.0;
        fprintf(f, "%6.2f %11.6f %11llu %11llu %9llu ", pct, (double)s->total_ns / 1e9,
                s->total_ns / s->calls / 1000, s->max_ns / 1000, s->calls);
        if (s->errors)
            fprintf(f, "%9llu ", s->errors);
        else
            fprintf(f, "%9s ", "");
        fprintf(f, "%s\n", td_fns[order[k]].name);
    }
    fprintf(f, "------ ----------- ----------- ----------- --------- --------- --------------------------------\n");
    fprintf(f, "%6.2f %11.6f %11s %11s %9llu ", 100.0, (double)total / 1e9, "", "", calls);
    if (errors)
        fprintf(f, "%9llu ", errors);
    else
        fprintf(f, "%9s ", "");
    fprintf(f, "total\n");
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
    for (int i = 0; i < TD_FN__COUNT; i++) {
        if (!fns[i].calls)
            continue;
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "function"); tp_sym(&p, td_fns[i].name);
        tp_field(&p, "calls"); tp_uint(&p, fns[i].calls);
        tp_field(&p, "errors"); tp_uint(&p, fns[i].errors);
        tp_field(&p, "seconds"); tp_rawf(&p, "%.9f", (double)fns[i].total_ns / 1e9);
        tp_field(&p, "max_seconds"); tp_rawf(&p, "%.9f", (double)fns[i].max_ns / 1e9);
        tp_struct_end(&p);
    }
    tp_array_end(&p);
    tp_raw(&p, ",\"processes\":");
    tp_array_begin(&p);
    for (int i = 0; i < nprocs; i++) {
        struct proc *pr = &procs[i];
        tp_elem(&p);
        tp_struct_begin(&p);
        tp_field(&p, "pid"); tp_int(&p, pr->pid);
        tp_field(&p, "shim"); tp_raw(&p, pr->shim ? "true" : "false");
        tp_field(&p, "allocations"); tp_uint(&p, pr->nallocs);
        tp_field(&p, "pinned_host_peak"); tp_uint(&p, pr->host_peak);
        tp_field(&p, "devices");
        tp_array_begin(&p);
        for (int d = 0; d < MAX_DEV; d++) {
            if (!pr->dev_peak[d])
                continue;
            tp_elem(&p);
            tp_struct_begin(&p);
            tp_field(&p, "device"); tp_int(&p, d);
            tp_field(&p, "current"); tp_uint(&p, pr->dev_cur[d]);
            tp_field(&p, "peak"); tp_uint(&p, pr->dev_peak[d]);
            tp_struct_end(&p);
        }
        tp_array_end(&p);
        tp_field(&p, "leaks");
        tp_array_begin(&p);
        for (size_t k = 0; k < nalloc_slots; k++) {
            struct alloc *a = &allocs[k];
            if (a->used != 1 || a->pid != pr->pid)
                continue;
            tp_elem(&p);
            tp_struct_begin(&p);
            tp_field(&p, "ptr"); tp_hex(&p, a->ptr);
            tp_field(&p, "bytes"); tp_uint(&p, a->size);
            tp_field(&p, "kind"); tp_sym(&p, a->kind == M_DEVICE ? "device" : "host");
            tp_field(&p, "device"); tp_int(&p, a->dev);
            tp_field(&p, "function"); tp_sym(&p, td_fns[a->fn].name);
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
    tp_raw(&p, "}");
    tp_line_end(&p);
    tp_free(&p);
}

static void ioctl_table(FILE *f)
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
    fprintf(f, "\n%6s %11s %11s %9s %9s %s\n", "% time", "seconds", "usecs/call", "calls", "errors",
            "GPU ioctl");
    fprintf(f, "------ ----------- ----------- --------- --------- --------------------------------\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%6.2f %11.6f %11llu %9llu ", total ? 100.0 * (double)st[i].time_ns / (double)total : 0.0,
                (double)st[i].time_ns / 1e9, st[i].calls ? st[i].time_ns / st[i].calls / 1000 : 0,
                st[i].calls);
        if (st[i].errors)
            fprintf(f, "%9llu ", st[i].errors);
        else
            fprintf(f, "%9s ", "");
        fprintf(f, "%s\n", st[i].name);
    }
    fprintf(f, "------ ----------- ----------- --------- --------- --------------------------------\n");
    fprintf(f, "%6.2f %11.6f %11s %9llu ", 100.0, (double)total / 1e9, "", calls);
    if (errors)
        fprintf(f, "%9llu ", errors);
    else
        fprintf(f, "%9s ", "");
    fprintf(f, "total\n");
}

void td_summary_print(void)
{
    json_summary();
    if (!opts->summary)
        return;
    table();
    FILE *f = sum_out();
    ioctl_table(f);
    if (nmarks) {
        fprintf(f, "\n%9s  %s\n", "calls", "policy");
        for (int i = 0; i < nmarks; i++)
            fprintf(f, "%9llu  %s\n", marks[i].n, marks[i].mark);
    }
    int any = 0;
    for (int i = 0; i < nprocs; i++) {
        struct proc *p = &procs[i];
        if (!p->nallocs)
            continue;
        if (!any++)
            fprintf(f, "\n%7s %6s %15s %15s %15s %11s\n", "pid", "device", "current bytes",
                    "peak bytes", "pinned peak", "allocations");
        int printed = 0;
        for (int d = 0; d < MAX_DEV; d++) {
            if (!p->dev_peak[d])
                continue;
            fprintf(f, "%7d %6d %15llu %15llu %15llu %11llu\n", p->pid, d, p->dev_cur[d],
                    p->dev_peak[d], printed ? 0ULL : p->host_peak, printed ? 0ULL : p->nallocs);
            printed = 1;
        }
        if (!printed)
            fprintf(f, "%7d %6s %15s %15s %15llu %11llu\n", p->pid, "-", "-", "-", p->host_peak,
                    p->nallocs);
    }
    for (int i = 0; i < nprocs; i++) {
        if (i == 0)
            fflush(f);
        leak_report(&procs[i]);
    }
}
