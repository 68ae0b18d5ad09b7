/* SPDX-License-Identifier: Apache-2.0 */
/* A stand-in for NVIDIA's libcupti.so.13 (TDTRACE_CUPTI=PATH), for the
 * tests of the shim's CUPTI reader (src/shim/cupti.c) on a machine without
 * a GPU. The "real driver" of those tests is the emulator loaded as one
 * (--backend=driver --driver=a copy of it): this library asks it, through
 * the listener the emulator exports (tdtrace_emu_listen, emuevent.h), for
 * the work it queues and runs, and turns that into CUPTI's activity
 * records (the layouts of include/tdtrace/cupti.h, checked against the
 * toolkit's cupti_activity.h by tests/e2e/cuptilayout.c): a correlation
 * id per API call that queues work, an EXTERNAL_CORRELATION record tying
 * it to the external id pushed around that call, and kernel, memcpy and
 * memset records with the emulator's times on a clock of its own
 * (CLOCK_MONOTONIC + 7 s). Records wait until cuptiActivityFlushAll, which
 * fills buffers from the registered callbacks: the work's, then the
 * external ids' in a later buffer (the shim must wait for those); a thread
 * of its own does the same every 2 ms, as CUPTI's worker does. Like the real one, it calls
 * the driver itself (cuDriverGetVersion, at registration and each flush).
 *
 * FAKE_CUPTI_MODE: "noperm": cuptiActivityEnable(CONCURRENT_KERNEL) says
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES; "hostile": each flush also hands
 * back malformed records (an unknown kind, an external id never pushed,
 * times out of order, a stream out of range, a kernel name that points
 * nowhere, a record cut short by the buffer's end, an iterator that
 * leaves the buffer), says it lost 3 records, and completes a buffer the
 * shim never gave. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti.h"
#include "emuevent.h"

#define EXPORT __attribute__((visibility("default")))
#define OFFSET 7000000000ull

#define DECL(name, ret, params) EXPORT ret name params;
TD_CUPTI_FNS(DECL)
#undef DECL

union rec {
    uint32_t kind;
    struct td_cupti_kernel k;
    struct td_cupti_memcpy c;
    struct td_cupti_memset s;
    struct td_cupti_extcorr x;
    unsigned char raw[sizeof(struct td_cupti_kernel)];
};

#define MAX_PENDING 65536
static union rec *pending;
static size_t npending;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static td_cupti_buf_requested requested;
static td_cupti_buf_completed completed;
static unsigned enabled; /* bit per kind, kinds < 32; EXTERNAL_CORRELATION: bit 31 */
static uint32_t next_corr;
static const char *mode = "";

/* per thread: the external ids pushed, the API call's correlation id */
static __thread uint64_t ext_stack[16];
static __thread int ext_depth;
static __thread uint32_t call_corr;

/* kernel names kept (the emulator's pointers are not) */
static char *names[256];
static int nnames;

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned bit(uint32_t kind)
{
    return kind == TD_CUPTI_KIND_EXTERNAL_CORRELATION ? 1u << 31 : kind < 31 ? 1u << kind : 0;
}

static void add(const union rec *r)
{
    if (!(enabled & bit(r->kind)))
        return;
    pthread_mutex_lock(&lock);
    if (!pending)
        pending = calloc(MAX_PENDING, sizeof(*pending));
    if (pending && npending < MAX_PENDING)
        pending[npending++] = *r;
    pthread_mutex_unlock(&lock);
}

static const char *keep(const char *name)
{
    if (!name)
        return NULL;
    pthread_mutex_lock(&lock);
    const char *k = NULL;
    for (int i = 0; i < nnames && !k; i++)
        if (!strcmp(names[i], name))
            k = names[i];
    if (!k && nnames < 256)
        k = names[nnames++] = strdup(name);
    pthread_mutex_unlock(&lock);
    return k;
}

static void on_emu(const struct td_emu_event *ev)
{
    union rec r;
    memset(&r, 0, sizeof(r));
    if (ev->kind == TD_EMU_SUBMIT) {
        uint32_t c;
        if (ext_depth > 0) { /* the API call the pushed id stands for: one id */
            if (!call_corr) {
                call_corr = __atomic_add_fetch(&next_corr, 1, __ATOMIC_RELAXED);
                r.x.kind = TD_CUPTI_KIND_EXTERNAL_CORRELATION;
                r.x.externalKind = TD_CUPTI_EXTERNAL_CUSTOM0;
                r.x.externalId = ext_stack[ext_depth - 1];
                r.x.correlationId = call_corr;
                add(&r);
            }
            c = call_corr;
        } else {
            c = __atomic_add_fetch(&next_corr, 1, __ATOMIC_RELAXED);
        }
        if (ev->corr_out)
            *ev->corr_out = c;
        return;
    }
    if (ev->kind == TD_EMU_KERNEL) {
        r.k.kind = TD_CUPTI_KIND_CONCURRENT_KERNEL;
        r.k.start = ev->t_start + OFFSET;
        r.k.end = ev->t_end + OFFSET;
        r.k.completed = r.k.end;
        r.k.deviceId = (uint32_t)ev->device;
        r.k.streamId = (uint32_t)ev->stream;
        r.k.gridX = (int32_t)ev->grid[0], r.k.gridY = (int32_t)ev->grid[1], r.k.gridZ = (int32_t)ev->grid[2];
        r.k.blockX = (int32_t)ev->block[0], r.k.blockY = (int32_t)ev->block[1], r.k.blockZ = (int32_t)ev->block[2];
        r.k.dynamicSharedMemory = (int32_t)ev->shared;
        r.k.correlationId = (uint32_t)ev->corr;
        r.k.name = keep(ev->kernel);
        add(&r);
    } else if (ev->kind == TD_EMU_OP && ev->op == TD_EMU_OP_MEMCPY) {
        static const uint8_t kinds[] = { TD_CUPTI_MEMCPY_HTOD, TD_CUPTI_MEMCPY_DTOH, TD_CUPTI_MEMCPY_DTOD,
                                         TD_CUPTI_MEMCPY_HTOH };
        r.c.kind = TD_CUPTI_KIND_MEMCPY;
        r.c.copyKind = ev->dir >= 0 && ev->dir < 4 ? kinds[ev->dir] : 0;
        r.c.bytes = ev->op_bytes;
        r.c.start = ev->t_start + OFFSET;
        r.c.end = ev->t_end + OFFSET;
        r.c.deviceId = (uint32_t)ev->device;
        r.c.streamId = (uint32_t)ev->stream;
        r.c.correlationId = (uint32_t)ev->corr;
        add(&r);
    } else if (ev->kind == TD_EMU_OP && ev->op == TD_EMU_OP_MEMSET) {
        r.s.kind = TD_CUPTI_KIND_MEMSET;
        r.s.bytes = ev->op_bytes;
        r.s.start = ev->t_start + OFFSET;
        r.s.end = ev->t_end + OFFSET;
        r.s.deviceId = (uint32_t)ev->device;
        r.s.streamId = (uint32_t)ev->stream;
        r.s.correlationId = (uint32_t)ev->corr;
        add(&r);
    }
}

/* the "GPU": the driver the tests load is the emulator (the shim opened
 * it through /proc/self/fd: found by what it exports) */
static int find_listen(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    void *h = info->dlpi_name && *info->dlpi_name ? dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *f = h ? dlsym(h, TD_EMU_LISTEN) : NULL;
    if (f)
        memcpy(out, &f, sizeof(f));
    return f != NULL;
}

static void attach(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
        return;
    void *f = NULL;
    dl_iterate_phdr(find_listen, &f);
    void (*listen)(td_emu_listener) = (void (*)(td_emu_listener))f;
    if (listen)
        listen(on_emu);
    if (getenv("FAKE_CUPTI_DEBUG"))
        fprintf(stderr, "fakecupti: the emulator's listener %s\n", listen ? "set" : "not found");
}

TdCuptiResult cuptiGetVersion(uint32_t *version)
{
    *version = 130001;
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiGetResultString(TdCuptiResult result, const char **str)
{
    *str = result == TD_CUPTI_SUCCESS ? "CUPTI_SUCCESS"
           : result == TD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"
           : result == TD_CUPTI_ERROR_MAX_LIMIT_REACHED ? "CUPTI_ERROR_MAX_LIMIT_REACHED"
                                                        : "CUPTI_ERROR_UNKNOWN";
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
    *timestamp = mono() + OFFSET;
    return TD_CUPTI_SUCCESS;
}

/* the driver, as a real libcupti calls it (through libcuda.so.1, which in a
 * traced process is tdtrace's shim): such calls are CUPTI's, and the trace
 * must not show them as the program's */
static void call_driver(void)
{
    int (*version)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
    int v;
    if (version)
        version(&v);
}

static void start_worker(void);

TdCuptiResult cuptiActivityRegisterCallbacks(td_cupti_buf_requested req, td_cupti_buf_completed comp)
{
    call_driver();
    requested = req;
    completed = comp;
    const char *m = getenv("FAKE_CUPTI_MODE");
    mode = m ? m : "";
    attach();
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_worker);
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiActivityEnable(uint32_t kind)
{
    if (!strcmp(mode, "noperm") && kind == TD_CUPTI_KIND_CONCURRENT_KERNEL)
        return TD_CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    enabled |= bit(kind);
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiActivityDisable(uint32_t kind)
{
    enabled &= ~bit(kind);
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiActivityPushExternalCorrelationId(uint32_t kind, uint64_t id)
{
    if (kind != TD_CUPTI_EXTERNAL_CUSTOM0 || ext_depth == 16)
        return 1; /* CUPTI_ERROR_INVALID_PARAMETER */
    ext_stack[ext_depth++] = id;
    call_corr = 0;
    return TD_CUPTI_SUCCESS;
}

TdCuptiResult cuptiActivityPopExternalCorrelationId(uint32_t kind, uint64_t *last)
{
    if (kind != TD_CUPTI_EXTERNAL_CUSTOM0 || !ext_depth)
        return 1;
    *last = ext_stack[--ext_depth];
    call_corr = 0;
    return TD_CUPTI_SUCCESS;
}

/* hostile: CUPTI says once it lost records (it had no buffer) */
static size_t lost_once;

TdCuptiResult cuptiActivityGetNumDroppedRecords(void *context, uint32_t stream, size_t *dropped)
{
    (void)context;
    (void)stream;
    *dropped = __atomic_exchange_n(&lost_once, 0, __ATOMIC_RELAXED);
    return TD_CUPTI_SUCCESS;
}

/* the buffer being completed: where its records start */
static const uint8_t *walk_buf;
static size_t walk_off[8192], walk_n;
static int walk_escape; /* hostile: after the last record, a pointer before the buffer */

TdCuptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record)
{
    (void)valid;
    if (buffer != walk_buf)
        return 1;
    size_t i = 0;
    if (*record) {
        while (i < walk_n && buffer + walk_off[i] != *record)
            i++;
        i++;
    }
    if (i < walk_n) {
        *record = buffer + walk_off[i];
        return TD_CUPTI_SUCCESS;
    }
    if (walk_escape && i == walk_n) {
        *record = buffer - 64;
        return TD_CUPTI_SUCCESS;
    }
    return TD_CUPTI_ERROR_MAX_LIMIT_REACHED;
}

static size_t put(uint8_t *b, size_t at, const void *r, size_t n)
{
    memcpy(b + at, r, n);
    walk_off[walk_n++] = at;
    return at + ((n + 7) & ~(size_t)7);
}

static size_t size_of(uint32_t kind)
{
    return kind == TD_CUPTI_KIND_CONCURRENT_KERNEL ? sizeof(struct td_cupti_kernel)
           : kind == TD_CUPTI_KIND_MEMCPY ? sizeof(struct td_cupti_memcpy)
           : kind == TD_CUPTI_KIND_MEMSET ? sizeof(struct td_cupti_memset)
                                          : sizeof(struct td_cupti_extcorr);
}

static void hostile(uint8_t *b, size_t size, size_t *at)
{
    union rec r;
    memset(&r, 0, sizeof(r));
    r.kind = 9999; /* a kind never enabled */
    *at = put(b, *at, &r, 16);
    r.x.kind = TD_CUPTI_KIND_EXTERNAL_CORRELATION; /* an id the shim never pushed */
    r.x.externalKind = TD_CUPTI_EXTERNAL_CUSTOM0;
    r.x.externalId = 1ull << 40;
    r.x.correlationId = 0x7fffffff;
    *at = put(b, *at, &r, sizeof(r.x));
    memset(&r, 0, sizeof(r));
    r.k.kind = TD_CUPTI_KIND_CONCURRENT_KERNEL; /* it ended before it started */
    r.k.start = mono() + OFFSET;
    r.k.end = r.k.start - 1000;
    r.k.name = "backwards";
    *at = put(b, *at, &r, sizeof(r.k));
    r.k.end = r.k.start + 1000; /* on a stream past any track */
    r.k.streamId = 5000000;
    *at = put(b, *at, &r, sizeof(r.k));
    r.k.streamId = 99; /* its name points nowhere: delivered, unnamed */
    r.k.name = (const char *)(uintptr_t)16;
    r.k.correlationId = 0x7fffffff;
    *at = put(b, *at, &r, sizeof(r.k));
    if (*at + 64 <= size) { /* cut short: only 64 of its bytes are valid */
        r.k.name = "cut";
        memcpy(b + *at, &r, 64);
        walk_off[walk_n++] = *at;
        *at += 64;
    }
    walk_escape = 1;
}

static void flush(void)
{
    if (!requested || !completed)
        return;
    pthread_mutex_lock(&lock);
    size_t n = npending, from = 0;
    union rec *recs = pending;
    pending = NULL;
    npending = 0;
    pthread_mutex_unlock(&lock);
    static int hostile_done; /* once a run: each reason counted once */
    int bad = !strcmp(mode, "hostile") && n && !hostile_done;
    hostile_done |= bad;
    /* the work's records first, the external ids after, in a buffer of their
     * own: a real CUPTI may complete them in either order */
    union rec *sorted = n ? malloc(n * sizeof(*sorted)) : NULL;
    size_t m = 0;
    for (int pass = 0; sorted && pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((recs[i].kind == TD_CUPTI_KIND_EXTERNAL_CORRELATION) == pass)
                sorted[m++] = recs[i];
    if (sorted) {
        free(recs);
        recs = sorted;
    }
    do {
        uint8_t *b = NULL;
        size_t size = 0, max = 0;
        requested(&b, &size, &max);
        if (!b)
            break;
        size_t at = 0;
        walk_buf = b;
        walk_n = 0;
        walk_escape = 0;
        while (from < n && walk_n < 8000 && at + sizeof(union rec) + 2048 <= size) {
            at = put(b, at, &recs[from], size_of(recs[from].kind));
            from++;
            if (from < n && recs[from].kind == TD_CUPTI_KIND_EXTERNAL_CORRELATION &&
                recs[from - 1].kind != TD_CUPTI_KIND_EXTERNAL_CORRELATION)
                break; /* the external ids: the next buffer */
        }
        if (bad && from == n) {
            hostile(b, size, &at);
            lost_once = 3;
        }
        completed(NULL, 0, b, size, at);
        walk_buf = NULL;
    } while (from < n);
    free(recs);
    if (bad) { /* a buffer the shim never handed out: neither read nor freed */
        static uint8_t mine[256];
        completed(NULL, 0, mine, sizeof(mine), sizeof(mine));
    }
}

static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;

TdCuptiResult cuptiActivityFlushAll(uint32_t flag)
{
    (void)flag;
    pthread_mutex_lock(&one);
    call_driver();
    flush();
    pthread_mutex_unlock(&one);
    return TD_CUPTI_SUCCESS;
}

/* like CUPTI's own worker: buffers completed on a thread of the library's,
 * every 2 ms, while the program runs */
static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&one);
        flush();
        pthread_mutex_unlock(&one);
    }
    return NULL;
}

static void start_worker(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) == 0)
        pthread_detach(t);
}
