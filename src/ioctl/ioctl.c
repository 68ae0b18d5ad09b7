/* The GPU ioctl dispatcher: which family a request belongs to (by its type
 * byte or number, then the device), the generic structure printer, the
 * context (device globs, deny rules, counters) and the printed line. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioctl_int.h"
#include "print.h"
#include "../policy/policy.h"

/* ---- the filter table -------------------------------------------------- */

static const struct td_ioctl_match matches[] = {
#define TD_MATCH_TYPE(t, what) { 0xff00UL, (unsigned long)(t) << 8, what },
#include "filter.def"
#define UVM(name, number, s) { 0xffffffffUL, number, #name },
#include "uvm.def"
};

size_t td_ioctl_filter_table(const struct td_ioctl_match **out)
{
    *out = matches;
    return sizeof(matches) / sizeof(matches[0]);
}

int td_ioctl_filter_matches(unsigned long request)
{
    for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++)
        if ((request & matches[i].mask) == matches[i].value)
            return 1;
    return 0;
}

/* ---- families ----------------------------------------------------------- */

static int is_uvm_number(unsigned long request)
{
    const unsigned long *n;
    size_t k = td_uvm_numbers(&n);
    for (size_t i = 0; i < k; i++)
        if (n[i] == (request & 0xffffffffUL))
            return 1;
    return 0;
}

/* the NVIDIA frontend nodes: /dev/nvidiactl, /dev/nvidia0.. */
static int nv_frontend_path(const char *path)
{
    if (!path || strncmp(path, "/dev/nvidia", 11) != 0)
        return 0;
    const char *s = path + 11;
    if (strcmp(s, "ctl") == 0)
        return 1;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

const struct td_family *td_family_for(unsigned long request, const char *path)
{
    if (is_uvm_number(request))
        return &td_fam_uvm;
    switch (TD_IOC_TYPE(request)) {
    case 0x46:
        return &td_fam_nvidia;
    case 0x64:
        return &td_fam_drm;
    case 0x4b:
        return &td_fam_kfd;
    default:
        break;
    }
    /* the NVIDIA driver ignores the type byte: decode by nr on its nodes */
    if (nv_frontend_path(path))
        return &td_fam_nvidia;
    return NULL;
}

int td_ioctl_family_of(unsigned long request)
{
    const struct td_family *f = td_family_for(request, NULL);
    return f ? f->id : TD_IOF_NONE;
}

const char *td_ioctl_name(unsigned long request)
{
    const struct td_family *f = td_family_for(request, NULL);
    return f ? f->name(request) : NULL;
}

int td_ioctl_lookup_name(const char *name, unsigned long *request_or_nr)
{
    static const struct td_family *const fams[] = { &td_fam_nvidia, &td_fam_uvm, &td_fam_drm, &td_fam_kfd };
    if (!name)
        return -ENOENT;
    for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
        unsigned long v;
        if (fams[i]->lookup(name, &v) == 0) {
            if (request_or_nr)
                *request_or_nr = v;
            return fams[i]->id;
        }
    }
    return -ENOENT;
}

/* ---- NV_STATUS ---------------------------------------------------------- */

const char *td_nv_name_find(const struct td_nv_name *tab, size_t n, unsigned v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tab[mid].v == v)
            return tab[mid].name;
        if (tab[mid].v < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const struct td_nv_name nv_statuses[] = {
#define NV_STATUS(name, v) { v, #name },
#include "nvstatus.def"
#undef NV_STATUS
};

const char *td_nv_status_name(unsigned status)
{
    return td_nv_name_find(nv_statuses, sizeof(nv_statuses) / sizeof(nv_statuses[0]), status);
}

/* ---- the generic structure printer -------------------------------------- */

static size_t field_width(const struct td_field *f)
{
    switch ((enum td_fk)f->kind) {
    case TD_FK_U8:
    case TD_FK_BOOL8:
        return 1;
    case TD_FK_U16:
    case TD_FK_HEX16:
        return 2;
    case TD_FK_HANDLE:
    case TD_FK_HEX32:
    case TD_FK_U32:
    case TD_FK_S32:
    case TD_FK_FD:
    case TD_FK_NVSTATUS:
    case TD_FK_NVCLASS:
    case TD_FK_NVESC:
        return 4;
    case TD_FK_U64:
    case TD_FK_HEX64:
    case TD_FK_PTR:
        return 8;
    case TD_FK_UUID:
        return 16;
    case TD_FK_STR:
        return f->len;
    case TD_FK_MORE:
        return 0;
    }
    return 0;
}

static unsigned long long get(const unsigned char *b, size_t w)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (w) {
    case 1: memcpy(&u8, b, 1); return u8;
    case 2: memcpy(&u16, b, 2); return u16;
    case 4: memcpy(&u32, b, 4); return u32;
    case 8: memcpy(&u64, b, 8); return u64;
    default: return 0;
    }
}

static void print_field(struct tp *p, const struct td_field *f, const unsigned char *b)
{
    size_t w = field_width(f);
    unsigned long long v = w <= 8 ? get(b + f->off, w) : 0;
    const char *name;
    switch ((enum td_fk)f->kind) {
    case TD_FK_HANDLE:
    case TD_FK_HEX32:
    case TD_FK_HEX16:
    case TD_FK_HEX64:
        tp_hex(p, v);
        break;
    case TD_FK_U32:
    case TD_FK_U16:
    case TD_FK_U8:
    case TD_FK_BOOL8:
    case TD_FK_U64:
        tp_uint(p, v);
        break;
    case TD_FK_S32:
    case TD_FK_FD:
        tp_int(p, (int32_t)(uint32_t)v);
        break;
    case TD_FK_PTR:
        tp_ptr(p, v);
        break;
    case TD_FK_UUID: {
        const unsigned char *u = b + f->off;
        char s[48];
        snprintf(s, sizeof(s), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                 u[14], u[15]);
        tp_sym(p, s);
        break;
    }
    case TD_FK_STR: {
        const char *s = (const char *)b + f->off;
        size_t n = strnlen(s, f->len);
        tp_str(p, s, n, n == f->len);
        break;
    }
    case TD_FK_NVSTATUS:
        if ((name = td_nv_status_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_NVCLASS:
        if ((name = td_nv_class_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_NVESC:
        if ((name = td_nv_esc_name((unsigned)v)))
            tp_sym(p, name);
        else
            tp_hex(p, v);
        break;
    case TD_FK_MORE:
        break;
    }
}

void td_print_struct(struct tp *p, const struct td_struct *s, const unsigned char *b, size_t len,
                     const struct td_pctx *pc)
{
    /* every field must lie in the block, or the block prints raw */
    for (int i = 0; i < s->nf; i++)
        if ((size_t)s->f[i].off + field_width(&s->f[i]) > len) {
            tp_sym(p, "?");
            return;
        }
    tp_struct_begin(p);
    for (int i = 0; i < s->nf; i++) {
        const struct td_field *f = &s->f[i];
        if (f->kind == TD_FK_MORE) {
            tp_more(p);
            continue;
        }
        if (f->dir == TD_DIR_OUT && !pc->show_out)
            continue;
        tp_field(p, f->name);
        print_field(p, f, b);
    }
    tp_struct_end(p);
}

void td_print_raw_block(struct tp *p, const struct td_ioctl_event *ev)
{
    if (ev->argp && ev->have_arg && ev->arglen > 0 && p->verbose) {
        tp_bytes(p, ev->arg, ev->arglen);
        return;
    }
    if (ev->argp && ev->argwant && (!ev->have_arg || ev->arglen < ev->argwant))
        tp_unavailable(p, ev->argp);
    else
        tp_ptr(p, ev->argp);
}

void td_ioctl_raw_name(unsigned long request, char *buf, size_t n)
{
    static const char *const dirs[] = { "_IOC_NONE", "_IOC_WRITE", "_IOC_READ", "_IOC_READ|_IOC_WRITE" };
    snprintf(buf, n, "_IOC(%s, %#x, %#x, %#x)", dirs[TD_IOC_DIR(request)], TD_IOC_TYPE(request),
             TD_IOC_NR(request), TD_IOC_SIZE(request));
}

/* ---- the context ---------------------------------------------------------- */

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

struct td_ioctl_ctx *td_ioctl_new(const char *const *gpu_globs, int nglobs,
                                  const struct td_ioctl_rule *rules, int nrules, int enforce)
{
    struct td_ioctl_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->warn = default_warn;
    c->enforce = enforce;
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

/* the name a call is counted and printed under */
static const char *event_name(const struct td_ioctl_event *ev, char *raw, size_t n)
{
    const struct td_family *f = td_family_for(ev->request, ev->path);
    const char *name = f ? f->name(ev->request) : NULL;
    if (name)
        return name;
    if (f == &td_fam_uvm || (ev->request & ~0xffffUL) == 0x30000000UL)
        snprintf(raw, n, "%#lx", ev->request);
    else
        td_ioctl_raw_name(ev->request, raw, n);
    return raw;
}

void td_ioctl_int_account(struct td_ioctl_ctx *c, const struct td_ioctl_event *ev)
{
    char raw[96];
    const char *name = event_name(ev, raw, sizeof(raw));
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
    struct td_ioctl_stat *s = stat_entry(c, event_name(ev, raw, sizeof(raw)));
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

/* ---- the printed call ----------------------------------------------------- */

/* FD<PATH> in text; "fd":N,"path":"..." in JSON */
static void print_fd(struct tp *p, int fd, const char *path)
{
    tp_int(p, fd);
    if (!path[0])
        return;
    if (p->fmt == TP_JSON) {
        tp_arg(p, "path");
        tp_str(p, path, strlen(path), 0);
        return;
    }
    char clean[sizeof(((struct td_ioctl_event *)0)->path)];
    size_t i = 0;
    for (; path[i] && i + 1 < sizeof(clean); i++)
        clean[i] = (path[i] < 0x20 || path[i] == 0x7f) ? '?' : path[i];
    clean[i] = '\0';
    tp_raw(p, "<");
    tp_raw(p, clean);
    tp_raw(p, ">");
}

static void rule_origin(const struct td_ioctl_rule *r, char *buf, size_t n)
{
    if (r->file && r->line > 0)
        snprintf(buf, n, "%s:%d", r->file, r->line);
    else if (r->file) /* a command-line option */
        snprintf(buf, n, "%s", r->file);
    else if (r->name)
        snprintf(buf, n, "--ioctl-deny=%s", r->name);
    else
        snprintf(buf, n, "--ioctl-deny=%#lx", r->number);
}

static const char *errname(int e, char *buf, size_t n)
{
    const char *s = e > 0 ? strerrorname_np(e) : NULL;
    if (s)
        return s;
    snprintf(buf, n, "E%d", e);
    return buf;
}

void td_ioctl_print(struct tp *p, const struct td_ioctl_event *ev)
{
    char raw[96], ebuf[16];
    struct td_pctx pc = { ev->result_known && !ev->denied && ev->ret >= 0 };
    const struct td_family *f = td_family_for(ev->request, ev->path);

    tp_call_begin(p, "ioctl");
    tp_arg(p, "fd");
    print_fd(p, ev->fd, ev->path);
    tp_arg(p, "request");
    tp_sym(p, event_name(ev, raw, sizeof(raw)));
    tp_arg(p, "arg");
    if (f)
        f->print_arg(p, ev, &pc);
    else
        td_print_raw_block(p, ev);

    if (ev->denied) {
        tp_call_end(p, -(long long)ev->err, errname(ev->err, ebuf, sizeof(ebuf)));
    } else if (ev->result_known) {
        if (ev->ret < 0)
            tp_call_end(p, -(long long)ev->err, errname(ev->err, ebuf, sizeof(ebuf)));
        else
            tp_call_end(p, ev->ret, NULL);
    } else {
        tp_call_end(p, 0, "?");
    }
    if (ev->rule && (ev->denied || ev->would_deny)) {
        char where[300];
        rule_origin(ev->rule, where, sizeof(where));
        if (p->fmt == TP_JSON) {
            tp_raw(p, ev->denied ? ",\"denied\":" : ",\"would_deny\":");
            tp_str(p, where, strlen(where), 0);
        } else {
            tp_raw(p, ev->denied ? " (DENIED by " : " (would be DENIED by ");
            tp_raw(p, where);
            tp_raw(p, ")");
        }
    }
}
