/* SPDX-License-Identifier: Apache-2.0 */
/* On a real GPU, the device's times (--timeline, -c, -C): NVIDIA's CUPTI
 * Activity API (libcupti.so.13), loaded once the driver is initialised and
 * only when tdtrace asked for device times. Its kernel, copy and memset
 * records become the same events the emulator reports (struct
 * td_emu_event, include/tdtrace/emuevent.h), handed to the listener the
 * shim gave: the timeline, -c's device column and the kernel table read
 * one kind of record whichever measured it.
 *
 * Correlation: around each traced call that queues work (the copy and
 * launch classes) the shim pushes the call's own correlation id as a
 * CUPTI external id (CUSTOM0); CUPTI's EXTERNAL_CORRELATION records map
 * its correlation ids to ours, which the work's records then carry.
 *
 * CUPTI may complete the buffer holding a call's external id after the
 * one holding its work: such work waits for its id, bounded.
 *
 * Everything CUPTI hands back is checked as if hostile: each record lies
 * in the buffer the shim gave, whole, aligned, of a kind it enabled, with
 * ids and times in range; a record that is not is dropped and counted
 * (said once, at exit). Nothing here blocks the program or ends it: any
 * failure turns CUPTI off with one warning naming the reason. */
#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cupti.h"
#include "emuevent.h"

/* the functions, by name: one pointer each */
#define TD_CUPTI_PTR(name, ret, params) ret (*name) params;
static struct { TD_CUPTI_FNS(TD_CUPTI_PTR) } cu;
#undef TD_CUPTI_PTR
#define TD_CUPTI_ROW(name, ret, params) { #name, (void **)&cu.name },
static const struct { const char *name; void **slot; } cu_fns[] = { TD_CUPTI_FNS(TD_CUPTI_ROW) };
#undef TD_CUPTI_ROW

/* where libcupti is looked for when TDTRACE_CUPTI does not say: the
 * loader's path first, then the toolkit's usual places */
static const char *const cu_paths[] = {
    "libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/lib/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
};

/* the kinds enabled, in order (the external ids' first: a launch's record
 * must find its mapping) */
static const uint32_t cu_kinds[] = { TD_CUPTI_KIND_EXTERNAL_CORRELATION, TD_CUPTI_KIND_CONCURRENT_KERNEL,
                                     TD_CUPTI_KIND_MEMCPY, TD_CUPTI_KIND_MEMSET };
static const char *const cu_kind_names[] = { "EXTERNAL_CORRELATION", "CONCURRENT_KERNEL", "MEMCPY", "MEMSET" };

int td_cupti_on;                         /* pushing ids, reading records */
__thread int td_shim_quiet;              /* in libcupti on this thread */
static td_emu_listener deliver;
static void (*warn)(const char *);
static int64_t clock_offset;             /* CLOCK_MONOTONIC - CUPTI's clock, ns */
static _Atomic uint64_t max_pushed;      /* the largest external id pushed */
static char path_used[512];
static pid_t owner;                      /* the process that started CUPTI */

/* records dropped, by reason (said at exit) */
enum { DROP_KIND, DROP_PLACE, DROP_SIZE, DROP_CORR, DROP_TIME, DROP_RANGE, DROP__COUNT };
static const char *const drop_names[DROP__COUNT] = { "of a kind not enabled", "outside the buffer or misaligned",
                                                     "cut short by the buffer's end", "naming an id never pushed",
                                                     "with times out of order", "on a device or stream out of range" };
static _Atomic uint64_t drops[DROP__COUNT];
static _Atomic uint64_t lost;            /* what CUPTI says it dropped (no buffer) */

/* CUPTI's correlation id -> ours: direct-mapped (a collision forgets the
 * older: its work has no arrow) */
#define MAP_SIZE 8192u
static struct { uint32_t cupti; uint64_t ours; } corr_map[MAP_SIZE];
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

/* the buffers handed to CUPTI: only these are freed */
#define BUF_SIZE (1u << 20)
#define MAX_BUFS 64
static uint8_t *bufs[MAX_BUFS];
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the result's name as CUPTI gives it (its string is read without trust,
 * printable characters only) and its number */
static const char *result_name(TdCuptiResult r, char *b, size_t n)
{
    const char *s = NULL;
    char name[81] = "";
    if (cu.cuptiGetResultString && cu.cuptiGetResultString(r, &s) == TD_CUPTI_SUCCESS && s) {
        size_t k = td_self_read(name, (uint64_t)(uintptr_t)s, sizeof(name) - 1);
        name[k] = '\0';
        for (char *c = name; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
    }
    snprintf(b, n, "%s (%d)", *name ? name : "CUPTI error", r);
    return b;
}

static void say(const char *fmt, const char *a, const char *b)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), fmt, a, b);
    if (warn)
        warn(msg);
}

/* ---- buffers ------------------------------------------------------------ */

static void buf_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    pthread_mutex_lock(&buf_lock);
    for (int i = 0; i < MAX_BUFS; i++) {
        if (bufs[i])
            continue;
        uint8_t *b = aligned_alloc(8, BUF_SIZE);
        if (b) {
            bufs[i] = b;
            *buffer = b;
            *size = BUF_SIZE;
        }
        break;
    }
    pthread_mutex_unlock(&buf_lock);
}

/* 1 and forgotten if b is one of ours */
static int buf_release(const uint8_t *b)
{
    int ours = 0;
    pthread_mutex_lock(&buf_lock);
    for (int i = 0; i < MAX_BUFS && !ours; i++)
        if (b && bufs[i] == b) {
            bufs[i] = NULL;
            ours = 1;
        }
    pthread_mutex_unlock(&buf_lock);
    return ours;
}

/* ---- records ------------------------------------------------------------ */

static size_t kind_size(uint32_t kind)
{
    switch (kind) {
    case TD_CUPTI_KIND_CONCURRENT_KERNEL: return sizeof(struct td_cupti_kernel);
    case TD_CUPTI_KIND_MEMCPY: return sizeof(struct td_cupti_memcpy);
    case TD_CUPTI_KIND_MEMSET: return sizeof(struct td_cupti_memset);
    case TD_CUPTI_KIND_EXTERNAL_CORRELATION: return sizeof(struct td_cupti_extcorr);
    default: return 0;
    }
}

static void drop(int why)
{
    atomic_fetch_add_explicit(&drops[why], 1, memory_order_relaxed);
}

static uint64_t ours_of(uint32_t cupti_corr)
{
    uint64_t v = 0;
    pthread_mutex_lock(&map_lock);
    if (corr_map[cupti_corr % MAP_SIZE].cupti == cupti_corr)
        v = corr_map[cupti_corr % MAP_SIZE].ours;
    pthread_mutex_unlock(&map_lock);
    return v;
}

/* CUPTI's times on tdtrace's clock: 0 when they make no sense */
static int times(uint64_t start, uint64_t end, struct td_emu_event *ev)
{
    if (!start || end < start || end > INT64_MAX / 2) /* clock_offset is within +-INT64_MAX / 2 */
        return 0;
    int64_t s = (int64_t)start + clock_offset, e = (int64_t)end + clock_offset;
    if (s <= 0 || e < s)
        return 0;
    ev->t_start = (uint64_t)s;
    ev->t_end = (uint64_t)e;
    return 1;
}

static int place(uint32_t device, uint32_t stream, struct td_emu_event *ev)
{
    if (device >= TD_MAX_DEVICES || stream >= TD_MAX_STREAM)
        return 0;
    ev->device = (int)device;
    ev->stream = stream;
    return 1;
}

/* work whose CUPTI id had no mapping yet: CUPTI may complete the buffer
 * with the EXTERNAL_CORRELATION record after the work's. It waits (its
 * kernel's name copied) until a later buffer maps it, or until the end of
 * the flush after the one it came in (or exit, or a full queue): then it
 * goes on without an arrow (work of a call the trace does not show). */
#define MAX_WAIT 1024
struct waiting {
    struct td_emu_event ev;
    uint32_t cupti;
    unsigned gen;
    char name[TD_STR_MAX + 1];
};
static struct waiting *waits;
static size_t nwaits;
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned flush_gen;

static void hand_on(struct td_emu_event *ev)
{
    deliver(ev);
}

/* with its id, or to wait for it */
static void work(struct td_emu_event *ev, uint32_t cupti)
{
    ev->corr = cupti ? ours_of(cupti) : 0;
    if (ev->corr || !cupti) {
        hand_on(ev);
        return;
    }
    pthread_mutex_lock(&wait_lock);
    if (!waits)
        waits = calloc(MAX_WAIT, sizeof(*waits));
    struct waiting *w = waits && nwaits < MAX_WAIT ? &waits[nwaits++] : NULL;
    if (w) {
        w->ev = *ev;
        w->cupti = cupti;
        w->gen = atomic_load_explicit(&flush_gen, memory_order_relaxed);
        w->name[0] = '\0';
        if (ev->kernel) { /* CUPTI's string may not outlive the buffer: a copy, read without trust */
            size_t n = td_self_read(w->name, (uint64_t)(uintptr_t)ev->kernel, TD_STR_MAX);
            w->name[n] = '\0';
            w->ev.kernel = n ? w->name : NULL;
        }
    }
    pthread_mutex_unlock(&wait_lock);
    if (!w)
        hand_on(ev);
}

/* the waiting work that has its id now (all: everything, with or without) */
static void retry(int all, unsigned before_gen)
{
    pthread_mutex_lock(&wait_lock);
    size_t k = 0;
    for (size_t i = 0; i < nwaits; i++) {
        struct waiting *w = &waits[i];
        w->ev.corr = ours_of(w->cupti);
        if (w->ev.corr || all || w->gen < before_gen) {
            if (w->ev.kernel)
                w->ev.kernel = w->name;
            hand_on(&w->ev); /* the listener copies what it keeps */
        } else {
            if (k != i)
                waits[k] = *w;
            if (waits[k].ev.kernel)
                waits[k].ev.kernel = waits[k].name;
            k++;
        }
    }
    nwaits = k;
    pthread_mutex_unlock(&wait_lock);
}

static int copy_dir(uint8_t kind)
{
    switch (kind) {
    case TD_CUPTI_MEMCPY_HTOD: case TD_CUPTI_MEMCPY_HTOA: return TD_EMU_HTOD;
    case TD_CUPTI_MEMCPY_DTOH: case TD_CUPTI_MEMCPY_ATOH: return TD_EMU_DTOH;
    case TD_CUPTI_MEMCPY_DTOD: case TD_CUPTI_MEMCPY_ATOA: case TD_CUPTI_MEMCPY_ATOD: case TD_CUPTI_MEMCPY_DTOA:
    case TD_CUPTI_MEMCPY_PTOP: return TD_EMU_DTOD;
    case TD_CUPTI_MEMCPY_HTOH: return TD_EMU_HTOH;
    default: return -1;
    }
}

/* one record whose kind and size were checked: pass 0 learns the ids,
 * pass 1 hands on the work */
static void one(const uint8_t *p, uint32_t kind, int pass)
{
    struct td_emu_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.size = sizeof(ev);
    if (kind == TD_CUPTI_KIND_EXTERNAL_CORRELATION) {
        if (pass)
            return;
        struct td_cupti_extcorr x;
        memcpy(&x, p, sizeof(x));
        if (x.externalKind != TD_CUPTI_EXTERNAL_CUSTOM0) /* another tool's */
            return;
        if (!x.externalId || x.externalId > atomic_load_explicit(&max_pushed, memory_order_relaxed)) {
            drop(DROP_CORR);
            return;
        }
        pthread_mutex_lock(&map_lock);
        corr_map[x.correlationId % MAP_SIZE].cupti = x.correlationId;
        corr_map[x.correlationId % MAP_SIZE].ours = x.externalId;
        pthread_mutex_unlock(&map_lock);
        return;
    }
    if (!pass)
        return;
    if (kind == TD_CUPTI_KIND_CONCURRENT_KERNEL) {
        struct td_cupti_kernel k;
        memcpy(&k, p, sizeof(k));
        if (!times(k.start, k.end, &ev)) {
            drop(DROP_TIME);
            return;
        }
        if (!place(k.deviceId, k.streamId, &ev) || k.gridX < 0 || k.gridY < 0 || k.gridZ < 0 ||
            k.blockX < 0 || k.blockY < 0 || k.blockZ < 0 || k.dynamicSharedMemory < 0) {
            drop(DROP_RANGE);
            return;
        }
        ev.kind = TD_EMU_KERNEL;
        ev.kernel = k.name; /* read with td_self_read by the listener: an address is not trusted */
        ev.grid[0] = (unsigned)k.gridX, ev.grid[1] = (unsigned)k.gridY, ev.grid[2] = (unsigned)k.gridZ;
        ev.block[0] = (unsigned)k.blockX, ev.block[1] = (unsigned)k.blockY, ev.block[2] = (unsigned)k.blockZ;
        ev.shared = (unsigned)k.dynamicSharedMemory;
    } else if (kind == TD_CUPTI_KIND_MEMCPY) {
        struct td_cupti_memcpy m;
        memcpy(&m, p, sizeof(m));
        int dir = copy_dir(m.copyKind);
        if (!times(m.start, m.end, &ev)) {
            drop(DROP_TIME);
            return;
        }
        if (dir < 0 || !place(m.deviceId, m.streamId, &ev)) {
            drop(DROP_RANGE);
            return;
        }
        ev.kind = TD_EMU_OP;
        ev.op = TD_EMU_OP_MEMCPY;
        ev.dir = dir;
        ev.op_bytes = m.bytes;
    } else {
        struct td_cupti_memset m;
        memcpy(&m, p, sizeof(m));
        if (!times(m.start, m.end, &ev)) {
            drop(DROP_TIME);
            return;
        }
        if (!place(m.deviceId, m.streamId, &ev)) {
            drop(DROP_RANGE);
            return;
        }
        ev.kind = TD_EMU_OP;
        ev.op = TD_EMU_OP_MEMSET;
        ev.op_bytes = m.bytes;
    }
    uint32_t cupti;
    memcpy(&cupti, p + (kind == TD_CUPTI_KIND_CONCURRENT_KERNEL ? offsetof(struct td_cupti_kernel, correlationId)
                        : kind == TD_CUPTI_KIND_MEMCPY      ? offsetof(struct td_cupti_memcpy, correlationId)
                                                            : offsetof(struct td_cupti_memset, correlationId)),
           sizeof(cupti));
    work(&ev, cupti);
}

/* the records of a buffer CUPTI filled, walked with its own iterator, each
 * checked before it is read */
static void walk(uint8_t *buffer, size_t valid, int pass)
{
    void *rec = NULL;
    const uint8_t *last = NULL;
    for (size_t n = 0; n <= valid / 8; n++) {
        if (cu.cuptiActivityGetNextRecord(buffer, valid, &rec) != TD_CUPTI_SUCCESS)
            return; /* MAX_LIMIT_REACHED: the end; anything else: stop there */
        /* addresses compared as numbers: rec may point anywhere */
        uintptr_t at = (uintptr_t)rec, lo = (uintptr_t)buffer;
        if (at < lo || at - lo >= valid || at % 8 || (last && at <= (uintptr_t)last) ||
            valid - (at - lo) < sizeof(uint32_t)) {
            if (pass)
                drop(DROP_PLACE);
            return; /* the iterator cannot be trusted further */
        }
        const uint8_t *p = buffer + (at - lo);
        last = p;
        uint32_t kind;
        memcpy(&kind, p, sizeof(kind));
        size_t need = kind_size(kind);
        if (!need) {
            if (pass)
                drop(DROP_KIND);
            continue;
        }
        if (valid - (at - lo) < need) {
            if (pass)
                drop(DROP_SIZE);
            continue;
        }
        one(p, kind, pass);
    }
}

static void buf_completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    size_t dropped = 0;
    if (cu.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == TD_CUPTI_SUCCESS && dropped)
        atomic_fetch_add_explicit(&lost, dropped, memory_order_relaxed);
    if (!buffer || !buf_release(buffer)) /* not a buffer of ours: never read, never freed */
        return;
    if (valid > size || size > BUF_SIZE)
        valid = 0;
    if (valid && __atomic_load_n(&td_cupti_on, __ATOMIC_RELAXED)) {
        walk(buffer, valid, 0);
        retry(0, 0);
        walk(buffer, valid, 1);
    }
    free(buffer);
}

/* ---- the program's side ------------------------------------------------- */

void td_cupti_push(uint64_t corr)
{
    uint64_t m = atomic_load_explicit(&max_pushed, memory_order_relaxed);
    while (corr > m && !atomic_compare_exchange_weak_explicit(&max_pushed, &m, corr, memory_order_relaxed,
                                                              memory_order_relaxed))
        ;
    td_shim_quiet++;
    cu.cuptiActivityPushExternalCorrelationId(TD_CUPTI_EXTERNAL_CUSTOM0, corr);
    td_shim_quiet--;
}

void td_cupti_pop(void)
{
    uint64_t last = 0;
    td_shim_quiet++;
    cu.cuptiActivityPopExternalCorrelationId(TD_CUPTI_EXTERNAL_CUSTOM0, &last);
    td_shim_quiet--;
}

/* at most one flush at a synchronisation every FLUSH_GAP ns: CUPTI's flush
 * is not free, and full buffers come back on their own */
#define FLUSH_GAP 50000000ull

void td_cupti_flush(void)
{
    static _Atomic uint64_t last;
    if (!__atomic_load_n(&td_cupti_on, __ATOMIC_RELAXED))
        return;
    uint64_t now = mono_ns(), was = atomic_load_explicit(&last, memory_order_relaxed);
    if ((was && now - was < FLUSH_GAP) ||
        !atomic_compare_exchange_strong_explicit(&last, &was, now, memory_order_relaxed, memory_order_relaxed))
        return;
    unsigned g = atomic_fetch_add_explicit(&flush_gen, 1, memory_order_relaxed);
    td_shim_quiet++;
    cu.cuptiActivityFlushAll(0);
    td_shim_quiet--;
    retry(0, g); /* what came before this flush and is still not mapped never will be */
}

static void at_exit(void)
{
    if (!__atomic_load_n(&td_cupti_on, __ATOMIC_RELAXED))
        return;
    if (getpid() != owner) /* a forked child's copy of the handler */
        return;
    td_shim_quiet++;
    cu.cuptiActivityFlushAll(TD_CUPTI_FLUSH_FORCED);
    td_shim_quiet--;
    retry(1, 0);
    char msg[1024];
    size_t n = 0;
    uint64_t total = 0;
    for (int i = 0; i < DROP__COUNT; i++) {
        uint64_t d = atomic_load_explicit(&drops[i], memory_order_relaxed);
        if (d && n < sizeof(msg))
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s%llu %s", total ? ", " : "",
                                  (unsigned long long)d, drop_names[i]);
        total += d;
    }
    char line[1200];
    if (total) {
        snprintf(line, sizeof(line), "CUPTI (%.400s): %llu activity records dropped: %s", path_used,
                 (unsigned long long)total, msg);
        if (warn)
            warn(line);
    }
    uint64_t l = atomic_load_explicit(&lost, memory_order_relaxed);
    if (l) {
        snprintf(line, sizeof(line), "CUPTI (%.400s): %llu activity records lost (CUPTI had no buffer for them): "
                 "the device's times are incomplete", path_used, (unsigned long long)l);
        if (warn)
            warn(line);
    }
    __atomic_store_n(&td_cupti_on, 0, __ATOMIC_RELAXED);
}

/* give up: CUPTI stays off; the program goes on */
static void give_up(const char *why, const char *detail)
{
    say("CUPTI: %s%s: this process's device times are not measured (the timeline has its calls only)", why, detail);
}

static void start(void);

void td_cupti_start(td_emu_listener to, void (*warning)(const char *))
{
    static _Atomic int started;
    if (atomic_exchange(&started, 1))
        return;
    deliver = to;
    warn = warning;
    td_shim_quiet++;
    start();
    td_shim_quiet--;
}

static void start(void)
{
    const char *env = getenv("TDTRACE_CUPTI");
    if (env && !strcmp(env, "off"))
        return;
    void *h = NULL;
    char err[600] = "";
    if (env && *env) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        snprintf(path_used, sizeof(path_used), "%s", env);
        if (!h)
            snprintf(err, sizeof(err), ": %.500s", dlerror());
    } else {
        for (size_t i = 0; i < sizeof(cu_paths) / sizeof(*cu_paths) && !h; i++) {
            h = dlopen(cu_paths[i], RTLD_NOW | RTLD_LOCAL);
            snprintf(path_used, sizeof(path_used), "%s", cu_paths[i]);
        }
        if (!h)
            snprintf(path_used, sizeof(path_used), "libcupti.so.13");
    }
    if (!h) {
        char what[700];
        snprintf(what, sizeof(what), "cannot load %.400s", path_used);
        give_up(what, *err ? err : " (not found; TDTRACE_CUPTI=PATH names it)");
        return;
    }
    for (size_t i = 0; i < sizeof(cu_fns) / sizeof(*cu_fns); i++) {
        *cu_fns[i].slot = dlsym(h, cu_fns[i].name);
        if (!*cu_fns[i].slot) {
            char what[700];
            snprintf(what, sizeof(what), "%.400s has no %s", path_used, cu_fns[i].name);
            give_up(what, "");
            return;
        }
    }
    char rn[128], what[700];
    uint32_t version = 0;
    TdCuptiResult r = cu.cuptiGetVersion(&version);
    if (r != TD_CUPTI_SUCCESS || version < TD_CUPTI_API_MIN || version >= TD_CUPTI_API_END) {
        snprintf(what, sizeof(what), "%.400s is CUPTI API version %u, tdtrace reads version 13's records (%u)",
                 path_used, version, TD_CUPTI_API_MIN);
        give_up(what, "");
        return;
    }
    /* the clocks: CUPTI's timestamp between two of ours */
    uint64_t ts = 0, m0 = mono_ns();
    r = cu.cuptiGetTimestamp(&ts);
    uint64_t m1 = mono_ns();
    if (r != TD_CUPTI_SUCCESS || !ts || ts > INT64_MAX / 2) {
        give_up("cuptiGetTimestamp: ", r != TD_CUPTI_SUCCESS ? result_name(r, rn, sizeof(rn)) : "no time");
        return;
    }
    clock_offset = (int64_t)(m0 + (m1 - m0) / 2) - (int64_t)ts;
    r = cu.cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
    if (r != TD_CUPTI_SUCCESS) {
        give_up("cuptiActivityRegisterCallbacks: ", result_name(r, rn, sizeof(rn)));
        return;
    }
    for (size_t i = 0; i < sizeof(cu_kinds) / sizeof(*cu_kinds); i++) {
        r = cu.cuptiActivityEnable(cu_kinds[i]);
        if (r == TD_CUPTI_SUCCESS)
            continue;
        for (size_t k = 0; k < i; k++)
            cu.cuptiActivityDisable(cu_kinds[k]);
        snprintf(what, sizeof(what), "cuptiActivityEnable(%s): %s%s", cu_kind_names[i],
                 result_name(r, rn, sizeof(rn)),
                 r == TD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                     ? " (the driver lets only administrators profile: NVreg_RestrictProfilingToAdminUsers=0)"
                     : "");
        give_up(what, "");
        return;
    }
    owner = getpid();
    __atomic_store_n(&td_cupti_on, 1, __ATOMIC_RELEASE);
    atexit(at_exit);
}
