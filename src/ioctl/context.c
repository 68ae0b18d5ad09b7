/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU ioctl context: device globs, deny rules resolved against the
 * families, per-call and per-process counters, and the hooks the
 * notification loop (seccomp.c) calls. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioctl_int.h"
#include "../policy/policy.h"

#define TID_CACHE 1024

struct resolved_rule {
    const struct td_ioctl_rule *r;
    int family;                   /* 0: by number */
    unsigned long v;
    int valid;
};

struct td_ioctl_ctx {
    char **globs;
    int nglobs;
    struct td_ioctl_rule *rules;
    struct resolved_rule *rr;
    int nrules;
    int any_dev_glob;
    int enforce;
    void (*warn)(void *, const char *);
    void *warn_opaque;
    int (*result_hook)(void *, const struct td_ioctl_event *);
    void *result_opaque;
    unsigned warned;              /* a bit per family */
    struct td_ioctl_stat *stats;
    size_t nstats, capstats;
    struct td_ioctl_pid_stat *pids;
    size_t npids, cappids;
    struct { int tid, tgid; } tids[TID_CACHE];
    unsigned long long vanished;
    /* seccomp.c's buffers */
    void *req, *resp;
    size_t req_size, resp_size;
    struct td_ioctl_event ev;
};

static void default_warn(void *opaque, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "tdtrace: warning: %s\n", msg);
}

static void warnf(struct td_ioctl_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct td_ioctl_ctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    c->warn(c->warn_opaque, msg);
}

unsigned td_ioctl_parse_driver_version(const char *text)
{
    if (!text || *text < '0' || *text > '9')
        return 0;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    return (*end == '.' && v > 0 && v < 100000) ? (unsigned)v : 0;
}

/* the version of the loaded NVIDIA kernel module, or 0 */
static unsigned loaded_driver_version(void)
{
    static const char *const files[] = { "/sys/module/nvidia_uvm/version", "/sys/module/nvidia/version" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        FILE *f = fopen(files[i], "re");
        if (!f)
            continue;
        char buf[64];
        unsigned v = fgets(buf, sizeof(buf), f) ? td_ioctl_parse_driver_version(buf) : 0;
        fclose(f);
        if (v)
            return v;
    }
    return 0;
}

struct td_ioctl_ctx *td_ioctl_new(const char *const *gpu_globs, int nglobs,
                                  const struct td_ioctl_rule *rules, int nrules, int enforce)
{
    struct td_ioctl_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->warn = default_warn;
    c->enforce = enforce;
    td_ioctl_set_driver_version(loaded_driver_version());
    if (nglobs < 0)
        nglobs = 0;
    if (nrules < 0)
        nrules = 0;
    c->globs = calloc((size_t)nglobs + 1, sizeof(char *));
    c->rules = calloc((size_t)nrules + 1, sizeof(*c->rules));
    c->rr = calloc((size_t)nrules + 1, sizeof(*c->rr));
    if (!c->globs || !c->rules || !c->rr)
        goto fail;
    for (int i = 0; i < nglobs; i++) {
        if (!gpu_globs[i])
            continue;
        if (!(c->globs[c->nglobs] = strdup(gpu_globs[i])))
            goto fail;
        c->nglobs++;
    }
    for (int i = 0; i < nrules; i++) {
        c->rules[i] = rules[i];
        struct resolved_rule *r = &c->rr[i];
        r->r = &c->rules[i];
        if (rules[i].dev_glob)
            c->any_dev_glob = 1;
        if (rules[i].has_number || !rules[i].name) {
            r->family = 0;
            r->v = rules[i].number & 0xffffffffUL;
            r->valid = 1;
        } else {
            int fam = td_ioctl_lookup_name(rules[i].name, &r->v);
            r->family = fam > 0 ? fam : 0;
            r->valid = fam > 0;
            if (!r->valid) {
                char where[300];
                if (rules[i].file)
                    snprintf(where, sizeof(where), "%s:%d", rules[i].file, rules[i].line);
                else
                    snprintf(where, sizeof(where), "--ioctl-deny");
                fprintf(stderr, "tdtrace: warning: %s: unknown ioctl name '%s': the rule matches nothing\n",
                        where, rules[i].name);
            }
        }
    }
    c->nrules = nrules;
    return c;
fail:
    td_ioctl_free(c);
    return NULL;
}

void td_ioctl_free(struct td_ioctl_ctx *c)
{
    if (!c)
        return;
    if (c->globs)
        for (int i = 0; i < c->nglobs; i++)
            free(c->globs[i]);
    free(c->globs);
    free(c->rules);
    free(c->rr);
    for (size_t i = 0; i < c->nstats; i++)
        free((char *)c->stats[i].name);
    free(c->stats);
    free(c->pids);
    free(c->req);
    free(c->resp);
    free(c);
}

void td_ioctl_set_result_hook(struct td_ioctl_ctx *c,
                              int (*hook)(void *opaque, const struct td_ioctl_event *ev), void *opaque)
{
    c->result_hook = hook;
    c->result_opaque = opaque;
}

int td_ioctl_int_result_hook(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev)
{
    return c->result_hook ? c->result_hook(c->result_opaque, ev) : 0;
}

void td_ioctl_set_warn(struct td_ioctl_ctx *c, void (*warn)(void *opaque, const char *msg), void *opaque)
{
    c->warn = warn ? warn : default_warn;
    c->warn_opaque = opaque;
}

int td_ioctl_rules_from_policy(const struct td_policy *p, struct td_ioctl_rule **out)
{
    size_t n = td_policy_ioctl_deny_count(p);
    struct td_ioctl_rule *r = calloc(n + 1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct td_ioctl_deny *d = td_policy_ioctl_deny(p, i);
        r[i].name = d->name;
        r[i].number = d->number;
        r[i].has_number = d->name == NULL;
        r[i].err = d->err;
        r[i].dev_glob = d->dev;
        r[i].file = d->file;
        r[i].line = d->line;
    }
    *out = r;
    return (int)n;
}

static const char *const builtin_gpu[] = { "/dev/nvidia*", "/dev/dri/*", "/dev/kfd" };

int td_ioctl_is_gpu_path(const struct td_ioctl_ctx *c, const char *path)
{
    if (!path || !*path)
        return 0;
    for (size_t i = 0; i < sizeof(builtin_gpu) / sizeof(builtin_gpu[0]); i++)
        if (fnmatch(builtin_gpu[i], path, 0) == 0)
            return 1;
    if (c)
        for (int i = 0; i < c->nglobs; i++)
            if (fnmatch(c->globs[i], path, 0) == 0)
                return 1;
    return 0;
}

/* ---- internal hooks for seccomp.c ------------------------------------- */


/* is this fd's call ours: a GPU node, or a node some rule names */
int td_ioctl_int_wants(const struct td_ioctl_ctx *c, const char *path)
{
    if (td_ioctl_is_gpu_path(c, path))
        return 1;
    if (c->any_dev_glob && path && *path)
        for (int i = 0; i < c->nrules; i++)
            if (c->rules[i].dev_glob && fnmatch(c->rules[i].dev_glob, path, 0) == 0)
                return 1;
    return 0;
}

struct td_ioctl_event *td_ioctl_int_event(struct td_ioctl_ctx *c)
{
    return &c->ev;
}

void td_ioctl_int_bufs(struct td_ioctl_ctx *c, struct td_ioctl_bufs *b)
{
    b->req = &c->req;
    b->resp = &c->resp;
    b->req_size = &c->req_size;
    b->resp_size = &c->resp_size;
}

const struct td_ioctl_rule *td_ioctl_int_decide(struct td_ioctl_ctx *c, struct td_ioctl_event *ev)
{
    int gpu = td_ioctl_is_gpu_path(c, ev->path);
    for (int i = 0; i < c->nrules; i++) {
        const struct resolved_rule *r = &c->rr[i];
        if (!r->valid)
            continue;
        if (r->r->dev_glob ? fnmatch(r->r->dev_glob, ev->path, 0) != 0 : !gpu)
            continue;
        if (r->family == 0) {
            if ((ev->request & 0xffffffffUL) != r->v)
                continue;
        } else {
            const struct td_family *f = td_family_for(ev->request, ev->path);
            if (!f || f->id != r->family || !f->rule_match(r->v, ev))
                continue;
        }
        return r->r;
    }
    return NULL;
}

int td_ioctl_int_tgid(struct td_ioctl_ctx *c, int tid)
{
    unsigned h = (unsigned)tid % TID_CACHE;
    if (c->tids[h].tid == tid && tid)
        return c->tids[h].tgid;
    char path[64], line[128];
    snprintf(path, sizeof(path), "/proc/%d/status", tid);
    FILE *f = fopen(path, "re");
    int tgid = tid;
    if (f) {
        while (fgets(line, sizeof(line), f))
            if (strncmp(line, "Tgid:", 5) == 0) {
                tgid = atoi(line + 5);
                break;
            }
        fclose(f);
    }
    c->tids[h].tid = tid;
    c->tids[h].tgid = tgid;
    return tgid;
}

void td_ioctl_forget(struct td_ioctl_ctx *c, int tid)
{
    unsigned h = (unsigned)tid % TID_CACHE;
    if (c->tids[h].tid == tid)
        c->tids[h].tid = 0;
}

int td_ioctl_int_enforce(const struct td_ioctl_ctx *c)
{
    return c->enforce;
}

void td_ioctl_int_vanished(struct td_ioctl_ctx *c)
{
    c->vanished++;
}

unsigned long long td_ioctl_vanished(const struct td_ioctl_ctx *c)
{
    return c->vanished;
}

static struct td_ioctl_pid_stat *pid_entry(struct td_ioctl_ctx *c, int pid)
{
    for (size_t i = 0; i < c->npids; i++)
        if (c->pids[i].pid == pid)
            return &c->pids[i];
    if (c->npids == c->cappids) {
        size_t cap = c->cappids ? c->cappids * 2 : 16;
        struct td_ioctl_pid_stat *n = realloc(c->pids, cap * sizeof(*n));
        if (!n)
            return NULL;
        c->pids = n;
        c->cappids = cap;
    }
    struct td_ioctl_pid_stat *e = &c->pids[c->npids++];
    memset(e, 0, sizeof(*e));
    e->pid = pid;
    return e;
}

static struct td_ioctl_stat *stat_entry(struct td_ioctl_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->nstats; i++)
        if (strcmp(c->stats[i].name, name) == 0)
            return &c->stats[i];
    if (c->nstats == c->capstats) {
        size_t cap = c->capstats ? c->capstats * 2 : 32;
        struct td_ioctl_stat *n = realloc(c->stats, cap * sizeof(*n));
        if (!n)
            return NULL;
        c->stats = n;
        c->capstats = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return NULL;
    struct td_ioctl_stat *e = &c->stats[c->nstats++];
    memset(e, 0, sizeof(*e));
    e->name = copy;
    return e;
}

void td_ioctl_int_account(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev)
{
    char raw[96];
    const char *name = td_ioctl_event_name(ev, raw, sizeof(raw));
    struct td_ioctl_stat *s = stat_entry(c, name);
    int failed = ev->denied || (ev->result_known && ev->ret < 0);
    if (s) {
        s->calls++;
        s->errors += failed;
        s->denied += ev->denied != 0;
        if (ev->t_exit_ns >= ev->t_enter_ns)
            s->time_ns += ev->t_exit_ns - ev->t_enter_ns;
    }
    struct td_ioctl_pid_stat *p = pid_entry(c, ev->pid);
    if (p) {
        p->calls++;
        p->denied += ev->denied != 0;
    }
    /* an unknown driver: one warning per family, then raw output */
    const struct td_family *f = td_family_for(ev->request, ev->path);
    unsigned bit = 1u << (f ? f->id : TD_IOF_OTHER);
    if (!(c->warned & bit) && (!f || f->unexpected(ev))) {
        c->warned |= bit;
        warnf(c, "%s ioctl %s (size %u) on %s is not in tdtrace's tables (a newer driver?): "
                 "such calls print raw",
              f ? f->label : "unknown", name, TD_IOC_SIZE(ev->request), ev->path);
    }
}

void td_ioctl_int_account_result(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev,
                                 unsigned long long extra_ns)
{
    char raw[96];
    struct td_ioctl_stat *s = stat_entry(c, td_ioctl_event_name(ev, raw, sizeof(raw)));
    if (s) {
        s->errors += ev->ret < 0;
        s->time_ns += extra_ns;
    }
}

size_t td_ioctl_stats(const struct td_ioctl_ctx *c, const struct td_ioctl_stat **out)
{
    *out = c->stats;
    return c->nstats;
}

size_t td_ioctl_pid_stats(const struct td_ioctl_ctx *c, const struct td_ioctl_pid_stat **out)
{
    *out = c->pids;
    return c->npids;
}

void td_ioctl_mark_shim(struct td_ioctl_ctx *c, int pid)
{
    struct td_ioctl_pid_stat *p = pid_entry(c, pid);
    if (p)
        p->shim = 1;
}

size_t td_ioctl_bypass(const struct td_ioctl_ctx *c, int *pids, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < c->npids; i++)
        if (c->pids[i].calls && !c->pids[i].shim) {
            if (n < max)
                pids[n] = c->pids[i].pid;
            n++;
        }
    return n;
}
