/* SPDX-License-Identifier: Apache-2.0 */
/* The one memory ledger: what every traced process holds, per device.
 *
 * Every call that allocates or frees (device memory, managed and pooled
 * memory, virtual-memory handles, arrays, graph memory, pinned host
 * memory) is fed in whatever the trace shows (main.c records those calls
 * always), and so is every call that makes a context or a context current,
 * so that an allocation is counted on the device of the thread that made
 * it. The summary's memory table and leak report, the check of
 * --memory-limit after the run and the alloc#N names of device pointers
 * all read this one account.
 *
 * Which calls allocate and free, and with which arguments, is data: the
 * policy's list of allocating and freeing entry points (src/policy) and
 * the parameters' kinds in the API table; how big an array is comes from
 * its descriptor, which the shim copies into the record. */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "policy.h"

/* ---- what a call does to memory ------------------------------------------- */

enum op { OP_NONE, OP_ALLOC, OP_FREE };
enum sizing { SZ_ARG, SZ_PITCH, SZ_ARRAY, SZ_NODE, SZ_NONE };

struct role {
    enum op op;
    enum td_mem_kind kind;
    int addressable;     /* the value is an address (alloc#N names it) */
    int ptr;             /* the out-parameter (alloc) or the argument (free); -1 */
    int size;            /* SZ_ARG: the byte count's parameter */
    enum sizing sizing;
    int struc;           /* SZ_ARRAY, SZ_NODE, VMM: the descriptor's parameter */
};

static struct role roles[TD_FN__COUNT];
static int inited_roles;

static int first_param(const struct td_fn_info *info, int role, int kind)
{
    for (int i = 0; i < info->nparams; i++)
        if (info->params[i].role == role && (kind < 0 || info->params[i].kind == kind))
            return i;
    return -1;
}

static int struct_param(const struct td_fn_info *info)
{
    for (int i = 0; i < info->nparams; i++)
        if (info->params[i].sid)
            return i;
    return -1;
}

static void init_roles(void)
{
    for (int fn = 0; fn < TD_FN__COUNT; fn++) {
        const struct td_fn_info *info = &td_fns[fn];
        struct role *r = &roles[fn];
        r->ptr = r->size = r->struc = -1;
        int kind = td_policy_is_alloc(fn);
        int host = !strcmp(info->base, "cuMemAllocHost") || !strcmp(info->base, "cuMemHostAlloc");
        if (kind != TD_ALLOC_NONE || host) {
            r->op = OP_ALLOC;
            r->kind = host ? TD_MEM_HOST : TD_MEM_DEVICE;
            r->ptr = first_param(info, TD_R_OUT, -1);
            r->addressable = kind == TD_ALLOC_PLAIN || kind == TD_ALLOC_PITCHED || kind == TD_ALLOC_MANAGED ||
                             kind == TD_ALLOC_ASYNC || kind == TD_ALLOC_POOL || host;
            r->size = first_param(info, TD_R_IN, TD_K_SIZE);
            r->sizing = kind == TD_ALLOC_PITCHED ? SZ_PITCH
                      : kind == TD_ALLOC_ARRAY ? SZ_ARRAY
                      : kind == TD_ALLOC_GRAPH_NODE ? SZ_NODE
                      : kind == TD_ALLOC_GRAPH_EXEC ? SZ_NONE : SZ_ARG;
            r->struc = struct_param(info);
            if (r->sizing == SZ_ARG && r->size < 0)
                r->sizing = SZ_NONE;
            if (r->sizing == SZ_NONE || r->ptr < 0)
                r->op = OP_NONE; /* nothing to count by (graph executions) */
        } else if (td_policy_is_free(fn) || !strcmp(info->base, "cuMemFreeHost")) {
            r->op = OP_FREE;
            r->ptr = info->nparams > 0 && info->params[0].role == TD_R_IN ? 0 : -1;
            if (r->ptr < 0 || !strncmp(info->base, "cuMemPoolTrim", 13) || !strcmp(info->base, "cuDeviceGraphMemTrim"))
                r->op = OP_NONE; /* trims give back what nothing allocated by name */
        }
    }
}

static int changes_context(const struct td_fn_info *info);

int td_ledger_wants(int fn)
{
    if (!inited_roles) {
        init_roles();
        inited_roles = 1;
    }
    return fn >= 0 && fn < TD_FN__COUNT && (roles[fn].op != OP_NONE || changes_context(&td_fns[fn]));
}

/* ---- processes ------------------------------------------------------------- */

struct thr { int tid; int n; uint64_t stack[8]; };   /* its contexts, current on top */

struct proc {
    struct td_ledger_proc pub;
    unsigned long long next_num;
    struct td_alloc *live;          /* addressable allocations, by address */
    size_t nlive, caplive;
    struct td_alloc *other;         /* handles: VMM, arrays, graph memory */
    size_t nother, capother;
    struct { uint64_t ctx; int dev; } *ctx;
    size_t nctx, capctx;
    struct thr *thr;
    size_t nthr, capthr;
};

static struct proc *procs;
static size_t nprocs, capprocs;
static struct td_ledger_proc *pubs;   /* td_ledger_procs' copy */
static unsigned long long all_cur[TD_MAX_DEVICES], all_peak[TD_MAX_DEVICES];

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 16;
    void *q = realloc(p, c * elem);
    if (!q)
        die("out of memory");
    *cap = c;
    return q;
}

static struct proc *proc_of(int pid)
{
    for (size_t i = 0; i < nprocs; i++)
        if (procs[i].pub.pid == pid)
            return &procs[i];
    procs = grow(procs, &capprocs, nprocs, sizeof(*procs));
    struct proc *p = &procs[nprocs++];
    memset(p, 0, sizeof(*p));
    p->pub.pid = pid;
    return p;
}

static struct proc *proc_find(int pid)
{
    for (size_t i = 0; i < nprocs; i++)
        if (procs[i].pub.pid == pid)
            return &procs[i];
    return NULL;
}

static struct thr *thr_of(struct proc *p, int tid)
{
    for (size_t i = 0; i < p->nthr; i++)
        if (p->thr[i].tid == tid)
            return &p->thr[i];
    p->thr = grow(p->thr, &p->capthr, p->nthr, sizeof(*p->thr));
    struct thr *t = &p->thr[p->nthr++];
    memset(t, 0, sizeof(*t));
    t->tid = tid;
    return t;
}

int td_ledger_ctx_device(int pid, uint64_t ctx)
{
    struct proc *p = proc_find(pid);
    for (size_t i = 0; p && i < p->nctx; i++)
        if (p->ctx[i].ctx == ctx)
            return p->ctx[i].dev;
    return -1;
}

int td_ledger_current_device(int pid, int tid)
{
    struct proc *p = proc_find(pid);
    if (!p)
        return 0;
    struct thr *t = thr_of(p, tid);
    int dev = t->n ? td_ledger_ctx_device(pid, t->stack[t->n - 1]) : -1;
    return dev >= 0 ? dev : 0; /* no context yet: the runtime's device 0 */
}

/* ---- contexts --------------------------------------------------------------- */

static int out_u64(const struct td_rec *rec, uint32_t len, int arg, uint64_t *v)
{
    const struct td_item *it = td_rec_item(rec, len, arg, TD_IT_OUT);
    if (!it || it->len == 0 || it->len > 8)
        return -1;
    *v = 0;
    memcpy(v, it + 1, it->len);
    return 0;
}

/* a call that makes a context for a device: its out CUcontext and its CUdevice */
static int makes_context(const struct td_fn_info *info, int *ctxp, int *devp)
{
    *ctxp = *devp = -1;
    for (int i = 0; i < info->nparams; i++) {
        const struct td_param *pr = &info->params[i];
        if (pr->role == TD_R_OUT && pr->hclass == TD_H_ctx)
            *ctxp = i;
        else if (pr->role == TD_R_IN && pr->kind == TD_K_INT && !strcmp(pr->name, "dev"))
            *devp = i;
    }
    return *ctxp >= 0 && *devp >= 0;
}

int td_ledger_check(const struct td_rec *rec, uint32_t len, char *why, size_t n)
{
    (void)len;
    if (rec->result != 0 || rec->fn >= TD_FN__COUNT)
        return 0; /* a failed call changes nothing */
    int cp, dp;
    if (!makes_context(&td_fns[rec->fn], &cp, &dp))
        return 0;
    int dev = (int)(int32_t)((const uint64_t *)(rec + 1))[dp];
    if (dev < 0 || dev >= TD_MAX_DEVICES) {
        snprintf(why, n, "%s: device %d is not a device", td_fns[rec->fn].name, dev);
        return -1;
    }
    return 0;
}

/* calls that change which context is current */
static const char *const current_calls[] = { "cuCtxCreate", "cuCtxSetCurrent", "cuCtxPushCurrent",
                                             "cuCtxPopCurrent", "cuCtxDestroy", NULL };

static int changes_context(const struct td_fn_info *info)
{
    int cp, dp;
    if (makes_context(info, &cp, &dp))
        return 1;
    for (int i = 0; current_calls[i]; i++)
        if (!strcmp(info->base, current_calls[i]))
            return 1;
    return 0;
}

static void set_ctx_device(struct proc *p, uint64_t ctx, int dev)
{
    for (size_t i = 0; i < p->nctx; i++)
        if (p->ctx[i].ctx == ctx) {
            p->ctx[i].dev = dev;
            return;
        }
    p->ctx = grow(p->ctx, &p->capctx, p->nctx, sizeof(*p->ctx));
    p->ctx[p->nctx].ctx = ctx;
    p->ctx[p->nctx].dev = dev;
    p->nctx++;
}

static void track_context(struct proc *p, const struct td_rec *rec, uint32_t len, const uint64_t *a)
{
    const struct td_fn_info *info = &td_fns[rec->fn];
    struct thr *t = thr_of(p, (int)rec->tid);
    int cp, dp;
    uint64_t ctx;
    if (makes_context(info, &cp, &dp)) {
        if (out_u64(rec, len, cp, &ctx) == 0) {
            set_ctx_device(p, ctx, (int)(int32_t)a[dp]); /* checked by td_ledger_check */
            if (!strcmp(info->base, "cuCtxCreate") && t->n < 8) /* it becomes current */
                t->stack[t->n++] = ctx;
        }
        return;
    }
    if (!strcmp(info->base, "cuCtxSetCurrent")) {
        if (!a[0])
            t->n = t->n ? t->n - 1 : 0; /* NULL: the current one is no longer current */
        else if (t->n)
            t->stack[t->n - 1] = a[0];
        else
            t->stack[t->n++] = a[0];
    } else if (!strcmp(info->base, "cuCtxPushCurrent")) {
        if (t->n == 8)
            memmove(t->stack, t->stack + 1, 7 * sizeof(t->stack[0])), t->n--;
        t->stack[t->n++] = a[0];
    } else if (!strcmp(info->base, "cuCtxPopCurrent")) {
        if (t->n)
            t->n--;
    } else if (!strcmp(info->base, "cuCtxDestroy")) {
        for (size_t i = 0; i < p->nthr; i++)
            if (p->thr[i].n && p->thr[i].stack[p->thr[i].n - 1] == a[0])
                p->thr[i].n--;
    }
}

/* ---- allocations ----------------------------------------------------------- */

static size_t lower_bound(const struct td_alloc *v, size_t n, uint64_t ptr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].ptr < ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int td_ledger_nearest(int pid, uint64_t addr, unsigned long long *num, unsigned long long *base,
                      unsigned long long *size)
{
    struct proc *p = proc_find(pid);
    if (!p || !p->nlive || addr == UINT64_MAX)
        return -1;
    size_t i = lower_bound(p->live, p->nlive, addr + 1); /* the first above addr */
    if (i == 0)
        return -1;
    const struct td_alloc *a = &p->live[i - 1];
    *num = a->num;
    *base = a->ptr;
    *size = a->size;
    return 0;
}

int td_ledger_find(int pid, uint64_t addr, unsigned long long *num, unsigned long long *base,
                   unsigned long long *size)
{
    if (td_ledger_nearest(pid, addr, num, base, size) < 0 || addr - *base >= (*size ? *size : 1))
        return -1;
    return 0;
}

static unsigned format_bytes(unsigned f)
{
    switch (f) {
    case 0x01: case 0x08: return 1;                  /* UNSIGNED_INT8, SIGNED_INT8 */
    case 0x02: case 0x09: case 0x10: return 2;       /* INT16, HALF */
    case 0x03: case 0x0a: case 0x20: return 4;       /* INT32, FLOAT */
    default: return 4;                               /* packed and block formats: an estimate */
    }
}

/* an array's bytes from its descriptor (CUDA_ARRAY_DESCRIPTOR or _3D) */
static uint64_t array_bytes(const struct td_rec *rec, uint32_t len, unsigned sid, uint64_t addr)
{
    const struct td_struct *st = &td_structs[sid];
    const unsigned char *b = td_rec_mem(rec, len, addr, st->size, NULL);
    if (!b)
        return 0;
    uint64_t w = 1, h = 1, d = 1, ch = 1, fmt = 0;
    for (int i = 0; i < st->nfields; i++) {
        const char *n = st->fields[i].name;
        uint64_t v = td_field_uint(st, i, b, st->size);
        if (!n)
            continue;
        if (!strcmp(n, "Width")) w = v;
        else if (!strcmp(n, "Height")) h = v ? v : 1;
        else if (!strcmp(n, "Depth")) d = v ? v : 1;
        else if (!strcmp(n, "NumChannels")) ch = v;
        else if (!strcmp(n, "Format")) fmt = v;
    }
    return w * h * d * ch * format_bytes((unsigned)fmt);
}

/* a field of a structure argument by name (a dotted path through nested structures) */
static int struct_field(const struct td_rec *rec, uint32_t len, unsigned sid, uint64_t addr,
                        const char *path, uint64_t *v)
{
    const struct td_struct *st = &td_structs[sid];
    const unsigned char *b = td_rec_mem(rec, len, addr, st->size, NULL);
    size_t blen = st->size;
    while (b) {
        size_t k = strcspn(path, ".");
        int found = -1;
        for (int i = 0; i < st->nfields; i++)
            if (st->fields[i].name && strlen(st->fields[i].name) == k && !strncmp(st->fields[i].name, path, k))
                found = i;
        if (found < 0)
            return -1;
        const struct td_field *f = &st->fields[found];
        if (!path[k]) {
            if (f->kind == TD_K_MEMLOC) /* {type, id}: the id */
                *v = td_read_uint(b, blen, f->offset + 4u, 4);
            else
                *v = td_field_uint(st, found, b, blen);
            return 0;
        }
        if (f->kind == TD_K_MEMLOC && !strcmp(path + k + 1, "id")) {
            *v = (uint64_t)(int64_t)(int32_t)td_read_uint(b, blen, f->offset + 4u, 4);
            return 0;
        }
        if (f->kind != TD_K_STRUCT || f->offset > blen)
            return -1;
        b += f->offset;
        blen = f->size;
        st = &td_structs[f->sub];
        path += k + 1;
    }
    return -1;
}

static void account(struct proc *p, const struct td_alloc *a, int sign)
{
    if (a->kind == TD_MEM_HOST) {
        p->pub.host_cur += sign > 0 ? a->size : (a->size <= p->pub.host_cur ? -a->size : -p->pub.host_cur);
        if (p->pub.host_cur > p->pub.host_peak)
            p->pub.host_peak = p->pub.host_cur;
        return;
    }
    int d = a->dev;
    if (d < 0 || d >= TD_MAX_DEVICES)
        return;
    if (sign > 0) {
        p->pub.dev_cur[d] += a->size;
        all_cur[d] += a->size;
    } else {
        p->pub.dev_cur[d] -= a->size <= p->pub.dev_cur[d] ? a->size : p->pub.dev_cur[d];
        all_cur[d] -= a->size <= all_cur[d] ? a->size : all_cur[d];
    }
    if (p->pub.dev_cur[d] > p->pub.dev_peak[d])
        p->pub.dev_peak[d] = p->pub.dev_cur[d];
    if (all_cur[d] > all_peak[d])
        all_peak[d] = all_cur[d];
}

static unsigned long long call_device_bytes; /* the device memory the last call allocated */

unsigned long long td_ledger_call_device_bytes(void)
{
    return call_device_bytes;
}

static void add(struct proc *p, struct td_alloc *a, int addressable)
{
    if (a->kind == TD_MEM_DEVICE)
        call_device_bytes += a->size;
    a->num = ++p->next_num;
    p->pub.nallocs++;
    if (addressable) {
        size_t i = lower_bound(p->live, p->nlive, a->ptr);
        if (i < p->nlive && p->live[i].ptr == a->ptr) { /* the same address again: the old one is gone */
            account(p, &p->live[i], -1);
            p->live[i] = *a;
        } else {
            p->live = grow(p->live, &p->caplive, p->nlive, sizeof(*p->live));
            memmove(p->live + i + 1, p->live + i, (p->nlive - i) * sizeof(*p->live));
            p->live[i] = *a;
            p->nlive++;
        }
    } else {
        p->other = grow(p->other, &p->capother, p->nother, sizeof(*p->other));
        p->other[p->nother++] = *a;
    }
    account(p, a, +1);
}

static void drop(struct proc *p, uint64_t ptr)
{
    size_t i = lower_bound(p->live, p->nlive, ptr);
    if (i < p->nlive && p->live[i].ptr == ptr) {
        account(p, &p->live[i], -1);
        memmove(p->live + i, p->live + i + 1, (p->nlive - i - 1) * sizeof(*p->live));
        p->nlive--;
        return;
    }
    for (size_t k = 0; k < p->nother; k++)
        if (p->other[k].ptr == ptr) {
            account(p, &p->other[k], -1);
            p->other[k] = p->other[--p->nother];
            return;
        }
}

void td_ledger_call(const struct td_rec *rec, uint32_t len)
{
    call_device_bytes = 0;
    if (!inited_roles) {
        init_roles();
        inited_roles = 1;
    }
    if (rec->fn >= TD_FN__COUNT || rec->result != 0 || rec->nargs != td_fns[rec->fn].nparams ||
        sizeof(*rec) + (size_t)rec->nargs * 8 > len)
        return;
    const uint64_t *a = (const uint64_t *)(rec + 1);
    struct proc *p = proc_of((int)rec->pid);
    track_context(p, rec, len, a);
    const struct role *r = &roles[rec->fn];
    if (r->op != OP_ALLOC)
        return; /* a free: td_ledger_after */
    struct td_alloc al;
    memset(&al, 0, sizeof(al));
    al.pid = (int)rec->pid;
    al.kind = r->kind;
    al.fn = rec->fn;
    al.t = rec->t_enter;
    al.dev = r->kind == TD_MEM_DEVICE ? td_ledger_current_device(al.pid, (int)rec->tid) : -1;
    uint64_t v;
    switch (r->sizing) {
    case SZ_ARG:
        al.size = a[r->size];
        if (r->struc >= 0 && struct_field(rec, len, td_fns[rec->fn].params[r->struc].sid, a[r->struc],
                                          "location.id", &v) == 0) /* cuMemCreate: its location */
            al.dev = (int)(int32_t)v;
        break;
    case SZ_PITCH: { /* *pPitch * Height */
        uint64_t pitch;
        int pp = first_param(&td_fns[rec->fn], TD_R_OUT, TD_K_UINT);
        for (int i = 0; i < td_fns[rec->fn].nparams; i++)
            if (!strcmp(td_fns[rec->fn].params[i].name, "Height") && pp >= 0 && out_u64(rec, len, pp, &pitch) == 0)
                al.size = pitch * a[i];
        break;
    }
    case SZ_ARRAY:
        if (r->struc >= 0)
            al.size = array_bytes(rec, len, td_fns[rec->fn].params[r->struc].sid, a[r->struc]);
        break;
    case SZ_NODE: /* CUDA_MEM_ALLOC_NODE_PARAMS, or CUgraphNodeParams of type MEM_ALLOC */
        if (r->struc < 0)
            return;
        unsigned sid = td_fns[rec->fn].params[r->struc].sid;
        const char *pre = !strcmp(td_structs[sid].name, "CUgraphNodeParams") ? "alloc." : "";
        if (*pre && (struct_field(rec, len, sid, a[r->struc], "type", &v) < 0 || v != 10 /* CU_GRAPH_NODE_TYPE_MEM_ALLOC */))
            return;
        char path[64];
        snprintf(path, sizeof(path), "%sbytesize", pre);
        if (struct_field(rec, len, sid, a[r->struc], path, &v) < 0)
            return;
        al.size = v;
        snprintf(path, sizeof(path), "%spoolProps.location.id", pre);
        if (struct_field(rec, len, sid, a[r->struc], path, &v) == 0)
            al.dev = (int)(int32_t)v;
        snprintf(path, sizeof(path), "%sdptr", pre);
        if (struct_field(rec, len, sid, a[r->struc], path, &v) < 0)
            return;
        al.ptr = v;
        add(p, &al, 0);
        return;
    case SZ_NONE:
    default:
        return;
    }
    if (out_u64(rec, len, r->ptr, &v) < 0)
        return;
    al.ptr = v;
    add(p, &al, r->addressable);
}

void td_ledger_after(const struct td_rec *rec, uint32_t len)
{
    if (!inited_roles || rec->fn >= TD_FN__COUNT || rec->result != 0 || roles[rec->fn].op != OP_FREE ||
        rec->nargs != td_fns[rec->fn].nparams || sizeof(*rec) + (size_t)rec->nargs * 8 > len)
        return;
    struct proc *p = proc_find((int)rec->pid);
    if (p)
        drop(p, ((const uint64_t *)(rec + 1))[roles[rec->fn].ptr]);
}

/* ---- reading it ---------------------------------------------------------------- */

const struct td_ledger_proc *td_ledger_procs(int *n)
{
    free(pubs);
    pubs = nprocs ? malloc(nprocs * sizeof(*pubs)) : NULL;
    if (nprocs && !pubs)
        die("out of memory");
    for (size_t i = 0; i < nprocs; i++)
        pubs[i] = procs[i].pub;
    *n = (int)nprocs;
    return pubs;
}

static struct td_alloc *live_copy;

const struct td_alloc *td_ledger_live(int pid, size_t *n)
{
    struct proc *p = proc_find(pid);
    free(live_copy);
    live_copy = NULL;
    *n = 0;
    if (!p || !(p->nlive + p->nother))
        return NULL;
    live_copy = malloc((p->nlive + p->nother) * sizeof(*live_copy));
    if (!live_copy)
        die("out of memory");
    if (p->nlive)
        memcpy(live_copy, p->live, p->nlive * sizeof(*live_copy));
    if (p->nother)
        memcpy(live_copy + p->nlive, p->other, p->nother * sizeof(*live_copy));
    *n = p->nlive + p->nother;
    return live_copy;
}

unsigned long long td_ledger_device_peak(int dev)
{
    return dev >= 0 && dev < TD_MAX_DEVICES ? all_peak[dev] : 0;
}

void td_ledger_forget(int pid)
{
    struct proc *p = proc_find(pid);
    if (!p)
        return;
    /* a new image: its addresses are new; what the old one held stays a leak */
    for (size_t i = 0; i < p->nlive; i++) {
        p->other = grow(p->other, &p->capother, p->nother, sizeof(*p->other));
        p->other[p->nother++] = p->live[i];
    }
    p->nlive = 0;
    p->nctx = 0;
    p->nthr = 0;
}

void td_ledger_free(void)
{
    for (size_t i = 0; i < nprocs; i++) {
        free(procs[i].live);
        free(procs[i].other);
        free(procs[i].ctx);
        free(procs[i].thr);
    }
    free(procs);
    procs = NULL;
    nprocs = capprocs = 0;
    free(pubs);
    pubs = NULL;
    free(live_copy);
    live_copy = NULL;
}
