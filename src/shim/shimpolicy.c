/* SPDX-License-Identifier: Apache-2.0 */
/* The policy inside the traced process: deny, inject, the memory limit
 * and device rules (tdtrace.policy(5)). tdtrace hands the policy over as
 * normalised text whose rules keep their file:line; evaluation is
 * td_policy_eval, a pure function. What the rules do is recorded with the
 * call, so tdtrace marks it. The device-memory budget is shared by every
 * process under one tdtrace through the shared area (struct td_shared),
 * which every traced process can write: the limit is advisory, and
 * tdtrace's own accounting, from the records, is what it reports. Nothing here may
 * exit or abort the program: a policy that does not load leaves the shim
 * tracing only. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy.h"
#include "shim.h"

int td_dev_mapped;
int td_shim_policy_active;

static struct td_policy *pol;
static _Atomic unsigned long long ncalls[TD_FN__COUNT]; /* this process's, per function */

/* device allocations this process made, for frees: a small open table */
struct alloc { uint64_t ptr, bytes; int dev; int used; };
static struct alloc *allocs;
static size_t nslots, nused;
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

/* device map: visible ordinal -> backend ordinal */
static pthread_once_t map_once = PTHREAD_ONCE_INIT;
static int map[TD_POLICY_MAX_DEVICES], nvisible = -1, backend_count;
static int map_ready;

void td_shim_policy_init(void)
{
    if (!td_shim_ctl || !td_shim_ctl->policy_len)
        return;
    struct td_policy_error e;
    if (td_policy_parse((const char *)(td_shim_ctl + 1), td_shim_ctl->policy_len, "tdtrace", &pol, &e) < 0) {
        pol = NULL;
        return;
    }
    if (!td_policy_acts_on_calls(pol)) { /* nothing to do per call: stay out of the way */
        td_policy_free(pol);
        pol = NULL;
        return;
    }
    td_dev_mapped = td_policy_device_rule_count(pol) > 0;
    __atomic_store_n(&td_shim_policy_active, 1, __ATOMIC_RELAXED); /* tdtrace -p: threads run */
}

int td_shim_required_driver(void)
{
    return pol && td_policy_enforce(pol) ? td_policy_require_driver(pol, NULL, NULL) : 0;
}

void td_shim_policy_fork_child(void)
{
    /* strace's --inject counts per process */
    for (int i = 0; i < TD_FN__COUNT; i++)
        atomic_store_explicit(&ncalls[i], 0, memory_order_relaxed);
    pthread_mutex_init(&alloc_lock, NULL);
}

static _Atomic uint64_t *in_use(int dev)
{
    if (!td_shim_shared || dev < 0 || dev >= TD_MAX_DEVICES)
        return NULL;
    return (_Atomic uint64_t *)&td_shim_shared->mem_in_use[dev];
}

/* the backend ordinal of the calling thread's context, or -1 */
static int current_device(void)
{
    CUresult (*get)(CUdevice *) = (CUresult (*)(CUdevice *))td_backend_fn(TD_FN_cuCtxGetDevice);
    CUdevice d;
    return get && get(&d) == CUDA_SUCCESS ? (int)d : -1;
}

/* the bytes an allocation asks for: its row's size= (times rows=, before
 * the pitch's alignment), or 0 when the row names no size (arrays, graph
 * memory) */
static unsigned long long alloc_bytes(const struct td_effect *e, const uint64_t *a)
{
    if (e->size < 0)
        return 0;
    unsigned long long w = a[e->size], h = e->rows >= 0 ? a[e->rows] : 1;
    return h && w > ~0ULL / h ? ~0ULL : w * h;
}

/* what the call wrote through out-parameter i (4 or 8 bytes, as its row
 * declares) */
static uint64_t out_value(int fn, int i, const uint64_t *a)
{
    const void *p = (const void *)(uintptr_t)a[i];
    if (td_fns[fn].params[i].size == 4)
        return *(const uint32_t *)p;
    return *(const uint64_t *)p;
}

static void sleep_ns(unsigned long long ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* what verdict v does to the call: 1 to run it, 0 with *r decided */
static int apply(const struct td_verdict *v, struct td_call *c, CUresult *r)
{
    if (v->action == TD_ACT_PASS)
        return 1;
    c->verdict = (uint8_t)v->action; /* an action is the record's verdict kind */
    c->applied = (uint8_t)v->applied;
    c->rule_line = (uint32_t)v->line;
    c->rule_file = v->file;
    if (!v->applied)
        return 1;
    if (v->delay_ns)
        sleep_ns(v->delay_ns);
    if (v->action == TD_ACT_DELAY)
        return 1;
    *r = (CUresult)v->result;
    return 0;
}

int td_shim_policy_lib(const char *name, _Atomic unsigned long long *count, struct td_call *c, CUresult *r)
{
    if (!pol)
        return 1;
    unsigned long long nth = atomic_fetch_add_explicit(count, 1, memory_order_relaxed) + 1;
    unsigned long long all = atomic_fetch_add_explicit(&ncalls[TD_FN_LIB_call], 1, memory_order_relaxed) + 1;
    struct td_verdict v;
    td_policy_eval_lib(pol, name, nth, all, &v);
    return apply(&v, c, r);
}

int td_shim_policy(int fn, struct td_call *c, const uint64_t *a, CUresult *r)
{
    if (!pol)
        return 1;
    struct td_call_ctx cx = { fn, 0, -1, 0, 0 };
    cx.nth = atomic_fetch_add_explicit(&ncalls[fn], 1, memory_order_relaxed) + 1;
    if (td_policy_is_alloc(fn)) {
        cx.alloc_bytes = alloc_bytes(&td_fn_effects[fn], a);
        cx.device = current_device();
        _Atomic uint64_t *u = in_use(cx.device);
        cx.in_use = u ? atomic_load_explicit(u, memory_order_relaxed) : 0;
    }
    struct td_verdict v;
    td_policy_eval(pol, &cx, &v);
    return apply(&v, c, r);
}

/* ---- memory accounting ------------------------------------------------- */

static struct alloc *slot(uint64_t ptr, int create)
{
    if (create && (nused + 1) * 2 > nslots) {
        size_t n = nslots ? nslots * 2 : 256;
        struct alloc *t = calloc(n, sizeof(*t));
        if (!t)
            return NULL;
        for (size_t i = 0; i < nslots; i++)
            if (allocs[i].used == 1) {
                size_t j = (size_t)(allocs[i].ptr >> 8) * 0x9E3779B97F4A7C15ULL & (n - 1);
                while (t[j].used)
                    j = (j + 1) & (n - 1);
                t[j] = allocs[i];
            }
        free(allocs);
        allocs = t;
        nslots = n;
    }
    if (!nslots)
        return NULL;
    size_t j = (size_t)(ptr >> 8) * 0x9E3779B97F4A7C15ULL & (nslots - 1);
    struct alloc *tomb = NULL;
    for (size_t k = 0; k < nslots; k++, j = (j + 1) & (nslots - 1)) {
        if (allocs[j].used == 0) {
            if (!create)
                return NULL;
            struct alloc *s = tomb ? tomb : &allocs[j];
            s->used = 1;
            s->ptr = ptr;
            nused++;
            return s;
        }
        if (allocs[j].used == 2) {
            if (!tomb)
                tomb = &allocs[j];
        } else if (allocs[j].ptr == ptr) {
            return &allocs[j];
        }
    }
    return NULL;
}

static void account_alloc(uint64_t ptr, unsigned long long bytes, int dev)
{
    _Atomic uint64_t *u = in_use(dev);
    if (!u || !ptr)
        return;
    pthread_mutex_lock(&alloc_lock);
    struct alloc *s = slot(ptr, 1);
    if (s) {
        s->bytes = bytes;
        s->dev = dev;
        atomic_fetch_add_explicit(u, bytes, memory_order_relaxed);
    }
    pthread_mutex_unlock(&alloc_lock);
}

static void account_free(uint64_t ptr)
{
    pthread_mutex_lock(&alloc_lock);
    struct alloc *s = slot(ptr, 0);
    if (s) {
        _Atomic uint64_t *u = in_use(s->dev);
        if (u)
            atomic_fetch_sub_explicit(u, s->bytes, memory_order_relaxed);
        s->used = 2;
        nused--;
    }
    pthread_mutex_unlock(&alloc_lock);
}

void td_shim_policy_after(struct td_call *c, const uint64_t *a, CUresult r)
{
    if (!pol || r != CUDA_SUCCESS)
        return;
    int fn = c->fn;
    const struct td_effect *e = &td_fn_effects[fn];
    if (td_policy_is_alloc(fn) && e->ptr >= 0 && e->size >= 0) {
        /* the pointer (or VMM handle) made, and what it holds */
        if (a[e->ptr]) {
            unsigned long long bytes = alloc_bytes(e, a);
            if (e->pitch >= 0 && e->rows >= 0 && a[e->pitch]) /* the real footprint: pitch * rows */
                bytes = out_value(fn, e->pitch, a) * a[e->rows];
            account_alloc(out_value(fn, e->ptr, a), bytes, current_device());
        }
    } else if (td_policy_is_free(fn) && e->ptr >= 0) {
        account_free(a[e->ptr]);
    }
    if (fn == TD_FN_cuMemGetInfo_v2 || fn == TD_FN_cuMemGetInfo) {
        const char *file;
        int line, dev = current_device();
        unsigned long long limit = td_policy_memory_limit(pol, dev, &file, &line);
        if (!limit || !a[0] || !a[1])
            return;
        _Atomic uint64_t *u = in_use(dev);
        unsigned long long used = u ? atomic_load_explicit(u, memory_order_relaxed) : 0;
        unsigned long long room = used < limit ? limit - used : 0;
        c->verdict = TD_VD_LIMIT;
        c->applied = (uint8_t)td_policy_enforce(pol);
        c->rule_line = (uint32_t)line;
        c->rule_file = file;
        if (!c->applied)
            return;
        if (fn == TD_FN_cuMemGetInfo_v2) {
            size_t *fr = (size_t *)(uintptr_t)a[0], *tot = (size_t *)(uintptr_t)a[1];
            if (*tot > limit)
                *tot = limit;
            if (*fr > room)
                *fr = room;
        } else {
            unsigned *fr = (unsigned *)(uintptr_t)a[0], *tot = (unsigned *)(uintptr_t)a[1];
            if (*tot > limit)
                *tot = (unsigned)(limit > 0xffffffffu ? 0xffffffffu : limit);
            if (*fr > room)
                *fr = (unsigned)(room > 0xffffffffu ? 0xffffffffu : room);
        }
    } else if (fn == TD_FN_cuDeviceGetCount && td_dev_mapped && a[0]) {
        int *count = (int *)(uintptr_t)a[0];
        backend_count = *count;
        map_ready = 0;
        nvisible = td_policy_device_map(pol, backend_count, map, TD_POLICY_MAX_DEVICES);
        if (nvisible > TD_POLICY_MAX_DEVICES)
            nvisible = TD_POLICY_MAX_DEVICES;
        map_ready = 1;
        *count = nvisible;
    }
}

/* ---- device ordinals -------------------------------------------------- */

static void build_map(void)
{
    CUresult (*count)(int *) = (CUresult (*)(int *))td_backend_fn(TD_FN_cuDeviceGetCount);
    int n = 0;
    if (!count || count(&n) != CUDA_SUCCESS)
        return;
    backend_count = n;
    nvisible = td_policy_device_map(pol, n, map, TD_POLICY_MAX_DEVICES);
    if (nvisible > TD_POLICY_MAX_DEVICES)
        nvisible = TD_POLICY_MAX_DEVICES;
    map_ready = 1;
}

static int ensure_map(void)
{
    if (!map_ready) {
        pthread_once(&map_once, build_map);
        if (!map_ready)
            build_map(); /* before cuInit the backend had no count: try again */
    }
    return map_ready;
}

CUdevice td_dev_in(struct td_call *c, CUdevice visible)
{
    if (!ensure_map() || visible < 0)
        return visible;
    if (visible >= nvisible || map[visible] < 0)
        return (CUdevice)backend_count + 4096; /* no such device: the backend says so */
    if (map[visible] != visible && !c->verdict) {
        c->verdict = TD_VD_REMAP;
        c->applied = 1;
        for (size_t i = 0; i < td_policy_device_rule_count(pol); i++) {
            const struct td_device_rule *dr = td_policy_device_rule(pol, i);
            c->rule_line = (uint32_t)dr->line;
            c->rule_file = dr->file;
            if (dr->kind == TD_DEV_REMAP && dr->n == visible)
                break;
        }
    }
    return (CUdevice)map[visible];
}

CUdevice td_dev_out(CUdevice backend)
{
    if (!ensure_map())
        return backend;
    for (int v = 0; v < nvisible; v++)
        if (map[v] == backend)
            return (CUdevice)v;
    return backend;
}
