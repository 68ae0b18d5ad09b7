/* SPDX-License-Identifier: Apache-2.0 */
/* Events: a record is an operation on a stream that stamps the time
 * (CLOCK_MONOTONIC) when the stream reaches it. Each record has a
 * generation; the event is complete when its latest record has run.
 *
 * Recorded on a capturing stream, an event holds the stream's capture
 * dependencies instead (capture.c): a stream that waits for it joins the
 * capture; querying or synchronizing it is CUDA_ERROR_CAPTURED_EVENT
 * until it is recorded outside a capture again.
 *
 * An interprocess event (CU_EVENT_INTERPROCESS) also counts its records
 * in a page of shared memory (a memfd, struct emu_ipc_sync) that another
 * process maps through an IPC handle (ipc.c): every process's record
 * takes the next number there and raises the done mark when it runs, so
 * the event is complete, in every process, when the newest record of any
 * of them has run. A wait on a record another process made polls the
 * mark. */
#include "emu.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define SEQ_PENDING UINT64_MAX   /* recorded, the stream's number not known yet */

struct emu_event {
    struct emu_obj o;
    unsigned flags;
    pthread_mutex_t lock;
    uint64_t gen;                 /* records made */
    uint64_t done_gen;            /* the newest record that has run */
    struct emu_stream *s;         /* where the newest record is (referenced) */
    uint64_t seq;                 /* its number there */
    uint64_t t_ns;                /* when the newest record ran */
    struct emu_capsnap *snap;     /* last recorded in a capture: its dependencies */
    struct emu_ipc_sync *sh;      /* interprocess: the shared counts (else NULL) */
    int sh_fd;                    /* the memfd made here (-1: none, or imported) */
    uint64_t nonce;               /* its name's number */
    uint64_t last_sgen;           /* the shared number of this process's newest record */
};

static void event_release(struct emu_obj *o)
{
    struct emu_event *e = (struct emu_event *)o;
    if (e->sh)
        munmap(e->sh, EMU_IPC_SYNC_BYTES);
    if (e->sh_fd >= 0)
        close(e->sh_fd);
    emu_stream_put(e->s);
    emu_capsnap_put(e->snap);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

static void drop_one(struct emu_obj *o)
{
    emu_obj_put(o);
}

static void drop_ctx(struct emu_ctx *ctx)
{
    emu_obj_drop_ctx(ctx, EMU_T_EVENT, drop_one);
}

void emu_event_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_EVENTS, drop_ctx);
}

/* an interprocess event's shared page, in a memfd named after a random
 * number: 1, or 0 when there is none to be had */
static int shared_counts(struct emu_event *e)
{
    char name[64];
    if (getrandom(&e->nonce, sizeof e->nonce, 0) != (ssize_t)sizeof e->nonce)
        return 0;
    emu_ipc_name(name, sizeof name, EMU_IPC_EVENT, e->nonce);
    int fd = memfd_create(name, MFD_CLOEXEC);
    void *m = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, EMU_IPC_SYNC_BYTES) == 0)
        m = mmap(NULL, EMU_IPC_SYNC_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    e->sh = m;
    e->sh_fd = fd;
    return 1;
}

/* the shared done mark rises to g (records of several processes finish in
 * any order: the newest number counts) */
static void raise_done(struct emu_ipc_sync *sh, uint64_t g)
{
    uint64_t d = atomic_load(&sh->done);
    while (d < g && !atomic_compare_exchange_weak(&sh->done, &d, g))
        ;
}

TD_EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    EMU_INIT_OR_RETURN();
    if (!phEvent || (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                                          CU_EVENT_INTERPROCESS)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct emu_event *e = calloc(1, sizeof *e);
    if (!e) {
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    e->sh_fd = -1;
    if ((Flags & CU_EVENT_INTERPROCESS) && !shared_counts(e)) {
        free(e);
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    emu_obj_init(&e->o, EMU_T_EVENT, c, event_release);
    e->flags = Flags;
    pthread_mutex_init(&e->lock, NULL);
    emu_obj_register(&e->o);
    emu_ctx_put(c);
    *phEvent = (CUevent)e;
    return CUDA_SUCCESS;
}

CUresult emu_event_ipc_export(CUevent h, int *fd, uint64_t *nonce)
{
    struct emu_event *e = emu_obj_get(h, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = e->sh && e->sh_fd >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) {
        *fd = e->sh_fd;
        *nonce = e->nonce;
    }
    emu_obj_put(&e->o);
    return r;
}

CUresult emu_event_ipc_import(struct emu_ctx *c, struct emu_ipc_sync *sh, CUevent *out)
{
    struct emu_event *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_obj_init(&e->o, EMU_T_EVENT, c, event_release);
    e->flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    e->sh = sh;
    e->sh_fd = -1;
    pthread_mutex_init(&e->lock, NULL);
    emu_obj_register(&e->o);
    *out = (CUevent)e;
    return CUDA_SUCCESS;
}

CUresult emu_event_flags(CUevent h, struct emu_ctx **ctx, unsigned *flags)
{
    struct emu_event *e = emu_obj_get(h, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    *flags = e->flags;
    *ctx = e->o.ctx;
    emu_obj_put(&e->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    EMU_INIT_OR_RETURN();
    struct emu_event *e = emu_obj_get(hEvent, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    int mine = emu_obj_unregister(&e->o);
    emu_obj_put(&e->o);
    if (mine)
        emu_obj_put(&e->o); /* a pending record keeps its own reference */
    return mine ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

TD_EXPORT CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
    return cuEventDestroy_v2(hEvent);
}

struct record_op {
    struct emu_op op;
    struct emu_event *e;
    uint64_t gen;
    uint64_t sgen; /* interprocess: its shared number */
};

static void run_record(struct emu_op *op)
{
    struct record_op *r = (struct record_op *)op;
    struct emu_event *e = r->e;
    uint64_t now = emu_now_ns();
    op->tl_kind = EMU_TL_EVENT;
    pthread_mutex_lock(&e->lock);
    if (r->gen > e->done_gen) {
        e->done_gen = r->gen;
        if (r->gen == e->gen)
            e->t_ns = now;
    }
    pthread_mutex_unlock(&e->lock);
    if (e->sh)
        raise_done(e->sh, r->sgen);
}

static void fini_record(struct emu_op *op)
{
    emu_obj_put(&((struct record_op *)op)->e->o);
}

/* the event's captured state goes (a record outside a capture), or is
 * replaced by snap */
static void set_snap(struct emu_event *e, struct emu_capsnap *snap)
{
    pthread_mutex_lock(&e->lock);
    struct emu_capsnap *old = e->snap;
    e->snap = snap;
    pthread_mutex_unlock(&e->lock);
    emu_capsnap_put(old);
}

static struct emu_capsnap *get_snap(struct emu_event *e)
{
    pthread_mutex_lock(&e->lock);
    struct emu_capsnap *snap = e->snap;
    pthread_mutex_unlock(&e->lock);
    return snap;
}

/* records e on s (referenced by the caller) */
static CUresult record_on(struct emu_event *e, struct emu_stream *s)
{
    if (s->sctx != e->o.ctx) /* event and stream of different contexts */
        return CUDA_ERROR_INVALID_HANDLE;
    set_snap(e, NULL);
    struct record_op *op = emu_op_new(sizeof *op, run_record, fini_record);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->op.inline_ok = 1;
    emu_obj_ref(&e->o);
    op->e = e; /* the op's reference */
    emu_obj_ref(&s->o);
    pthread_mutex_lock(&e->lock);
    uint64_t gen = op->gen = ++e->gen;
    if (e->sh)
        op->sgen = e->last_sgen = atomic_fetch_add(&e->sh->gen, 1) + 1;
    struct emu_stream *old = e->s;
    e->s = s;
    e->seq = SEQ_PENDING;
    pthread_mutex_unlock(&e->lock);
    emu_stream_put(old);
    uint64_t seq = 0, op_sgen = op->sgen;
    CUresult r = emu_stream_submit(s, &op->op, &seq);
    pthread_mutex_lock(&e->lock);
    if (e->gen == gen) {
        if (r) { /* never recorded after all */
            if (e->sh) /* others may have counted on: it is done */
                raise_done(e->sh, op_sgen);
            e->gen--;
            e->seq = 0;
            old = e->s;
            e->s = NULL;
        } else {
            e->seq = seq;
            old = NULL;
        }
    } else {
        old = NULL;
    }
    pthread_mutex_unlock(&e->lock);
    emu_stream_put(old);
    return r;
}

CUresult emu_event_record_on(struct emu_obj *o, struct emu_stream *s)
{
    return record_on((struct emu_event *)o, s);
}

static CUresult record(CUevent h, CUstream hs, unsigned flags, int ptds)
{
    EMU_INIT_OR_RETURN();
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_event *e = emu_obj_get(h, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(hs, ptds, &s);
    if (r) {
        emu_obj_put(&e->o);
        return r;
    }
    if (s->sctx != e->o.ctx) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if (emu_capturing(s) && (flags & CU_EVENT_RECORD_EXTERNAL)) {
        r = emu_capture_event_node(s, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &e->o);
    } else if (emu_capturing(s)) {
        struct emu_capsnap *snap;
        r = emu_capture_record(s, &snap);
        if (r == CUDA_SUCCESS)
            set_snap(e, snap);
    } else {
        r = record_on(e, s);
    }
    emu_stream_put(s);
    emu_obj_put(&e->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) { return record(hEvent, hStream, 0, 0); }
TD_EXPORT CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return record(hEvent, hStream, 0, 1); }
TD_EXPORT CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return record(hEvent, hStream, flags, 0);
}
TD_EXPORT CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    return record(hEvent, hStream, flags, 1);
}

/* whether the newest record has run (lock held); *foreign: the shared
 * number of another process's newest record that has not, else 0 */
static int complete(struct emu_event *e, uint64_t *foreign)
{
    *foreign = 0;
    if (!e->sh)
        return e->done_gen >= e->gen;
    uint64_t g = atomic_load(&e->sh->gen), d = atomic_load(&e->sh->done);
    if (d >= g)
        return 1;
    if (g != e->last_sgen)
        *foreign = g;
    return 0;
}

/* 1 when complete (or never recorded); else the place to wait in *s, *seq
 * (referenced; *s NULL when the record is being submitted right now, or
 * when it is another process's: *foreign its shared number). */
static int event_state(struct emu_event *e, struct emu_stream **s, uint64_t *seq, uint64_t *foreign)
{
    pthread_mutex_lock(&e->lock);
    int done = complete(e, foreign);
    *s = NULL;
    if (!done && !*foreign && e->seq != SEQ_PENDING && e->s) {
        *s = e->s;
        emu_obj_ref(&(*s)->o);
        *seq = e->seq;
    }
    pthread_mutex_unlock(&e->lock);
    return done;
}

TD_EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    EMU_INIT_OR_RETURN();
    struct emu_event *e = emu_obj_get(hEvent, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = get_snap(e) ? CUDA_ERROR_CAPTURED_EVENT : emu_capture_unsafe();
    if (r) {
        emu_obj_put(&e->o);
        return r;
    }
    uint64_t foreign;
    pthread_mutex_lock(&e->lock);
    int done = complete(e, &foreign);
    pthread_mutex_unlock(&e->lock);
    /* done: a fault of the work before it is the answer */
    r = !done ? CUDA_ERROR_NOT_READY : e->o.ctx ? emu_ctx_sticky(e->o.ctx) : CUDA_SUCCESS;
    emu_obj_put(&e->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    EMU_INIT_OR_RETURN();
    struct emu_event *e = emu_obj_get(hEvent, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = get_snap(e) ? CUDA_ERROR_CAPTURED_EVENT : emu_capture_unsafe();
    if (r) {
        emu_obj_put(&e->o);
        return r;
    }
    struct emu_stream *s;
    uint64_t seq, foreign;
    while (!event_state(e, &s, &seq, &foreign)) {
        if (s) {
            emu_stream_wait(s, seq);
            emu_stream_put(s);
        } else if (foreign) { /* another process's work: it may take long */
            nanosleep(&(struct timespec){ 0, 20000 }, NULL);
        } else {
            sched_yield();
        }
    }
    r = e->o.ctx ? emu_ctx_error(e->o.ctx) : CUDA_SUCCESS; /* sticky error, printf output */
    emu_obj_put(&e->o);
    return r;
}

static CUresult elapsed(float *ms, CUevent h0, CUevent h1)
{
    EMU_INIT_OR_RETURN();
    if (!ms)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_event *e0 = emu_obj_get(h0, EMU_T_EVENT);
    struct emu_event *e1 = emu_obj_get(h1, EMU_T_EVENT);
    CUresult r = CUDA_SUCCESS;
    uint64_t t0 = 0, t1 = 0;
    if (!e0 || !e1) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if ((e0->flags | e1->flags) & CU_EVENT_DISABLE_TIMING) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if (get_snap(e0) || get_snap(e1)) {
        r = CUDA_ERROR_CAPTURED_EVENT;
    } else {
        struct emu_event *ev[2] = { e0, e1 };
        uint64_t *t[2] = { &t0, &t1 };
        for (int i = 0; i < 2; i++) {
            pthread_mutex_lock(&ev[i]->lock);
            if (ev[i]->gen == 0)
                r = CUDA_ERROR_INVALID_HANDLE;
            else if (ev[i]->done_gen < ev[i]->gen && r == CUDA_SUCCESS)
                r = CUDA_ERROR_NOT_READY;
            *t[i] = ev[i]->t_ns;
            pthread_mutex_unlock(&ev[i]->lock);
        }
    }
    if (r == CUDA_SUCCESS) {
        /* microsecond resolution */
        long long us = (long long)(t1 / 1000) - (long long)(t0 / 1000);
        *ms = (float)((double)us / 1000.0);
    }
    if (e0)
        emu_obj_put(&e0->o);
    if (e1)
        emu_obj_put(&e1->o);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

TD_EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

/* ---- waiting on an event from a stream -------------------------------- */

static void run_nop(struct emu_op *op)
{
    (void)op;
}

/* a stream's wait for another process's record of an interprocess event */
struct poll_op {
    struct emu_op op;
    struct emu_event *e; /* referenced */
    uint64_t target;
};

static void run_poll(struct emu_op *op)
{
    struct poll_op *p = (struct poll_op *)op;
    while (atomic_load(&p->e->sh->done) < p->target)
        nanosleep(&(struct timespec){ 0, 20000 }, NULL);
}

static void fini_poll(struct emu_op *op)
{
    emu_obj_put(&((struct poll_op *)op)->e->o);
}

/* s (referenced by the caller) waits for e's latest record */
static CUresult wait_on(struct emu_stream *s, struct emu_event *e)
{
    struct emu_stream *es;
    uint64_t seq, foreign;
    int done;
    while (!(done = event_state(e, &es, &seq, &foreign)) && !es && !foreign)
        sched_yield(); /* a record being submitted by another thread */
    if (foreign) {
        struct poll_op *p = emu_op_new(sizeof *p, run_poll, fini_poll);
        if (!p)
            return CUDA_ERROR_OUT_OF_MEMORY;
        emu_obj_ref(&e->o);
        p->e = e;
        p->target = foreign;
        return emu_stream_submit(s, &p->op, NULL);
    }
    if (done || es == s) { /* complete, or earlier in the same FIFO */
        emu_stream_put(es);
        return CUDA_SUCCESS;
    }
    struct emu_op *op = emu_op_new(sizeof *op, run_nop, NULL);
    if (!op || emu_op_dep(op, es, seq)) {
        free(op);
        emu_stream_put(es);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    emu_stream_put(es);
    op->inline_ok = 1;
    return emu_stream_submit(s, op, NULL);
}

CUresult emu_event_wait_on(struct emu_stream *s, struct emu_obj *o)
{
    return wait_on(s, (struct emu_event *)o);
}

static CUresult wait_event(CUstream hs, CUevent h, unsigned flags, int ptds)
{
    EMU_INIT_OR_RETURN();
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_event *e = emu_obj_get(h, EMU_T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(hs, ptds, &s);
    if (r) {
        emu_obj_put(&e->o);
        return r;
    }
    /* the event's captured dependencies, referenced */
    pthread_mutex_lock(&e->lock);
    struct emu_capsnap *snap = e->snap;
    if (snap)
        emu_capsnap_ref(snap);
    pthread_mutex_unlock(&e->lock);
    if (emu_capturing(s) && (flags & CU_EVENT_WAIT_EXTERNAL))
        r = emu_capture_event_node(s, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &e->o);
    else if (snap || emu_capturing(s)) /* joins a capture; or an error of the capture rules */
        r = emu_capture_wait(s, snap);
    else
        r = wait_on(s, e);
    emu_capsnap_put(snap);
    emu_obj_put(&e->o);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return wait_event(hStream, hEvent, Flags, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return wait_event(hStream, hEvent, Flags, 1);
}
