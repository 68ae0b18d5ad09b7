/* SPDX-License-Identifier: Apache-2.0 */
/* Streams: a FIFO of operations run in order by one worker thread per
 * stream (started at the first operation). The legacy default stream's
 * implicit synchronisation is made of dependencies added at submission:
 * an operation on the legacy stream waits for the work submitted before it
 * to every blocking stream of the context, and an operation on a blocking
 * stream waits for the legacy stream's earlier work. Submissions that take
 * part in this (all but non-blocking streams) are ordered by ctx->lock.
 *
 * Waiting is a short spin, then a condition variable: an idle stream
 * answers a host function or an event in a few microseconds.
 *
 * Also the context-wide wait (cuCtxSynchronize, and the first stage of a
 * context's teardown: all work finishes, then the streams go).
 *
 * A capturing stream runs nothing: the callers turn its work into graph
 * nodes (capture.c); what reaches it anyway is refused, as are the calls
 * that would wait for it, through the hooks capture.c sets. */
#include "emu.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPIN_NS 30000   /* how long a worker or a waiter spins before sleeping */

static atomic_ullong next_stream_id = 1;
static const struct emu_capture_hooks *hooks;

void emu_stream_capture_hooks(const struct emu_capture_hooks *h)
{
    hooks = h;
}

/* tdtrace's listener: the ops' correlation ids and times */
static const struct emu_tl_hooks *_Atomic tl_hooks;

void emu_stream_tl_hooks(const struct emu_tl_hooks *h)
{
    atomic_store_explicit(&tl_hooks, h, memory_order_release);
}

/* the submitting thread: which call queues op (when times are wanted) */
static void tl_submit(struct emu_op *op)
{
    const struct emu_tl_hooks *h = atomic_load_explicit(&tl_hooks, memory_order_acquire);
    if (h)
        op->corr = h->submit();
}

static int capturing(struct emu_stream *s)
{
    return hooks && atomic_load_explicit(&s->cap, memory_order_acquire) != NULL;
}
/* the stream whose worker this thread is (host functions run there) */
static __thread struct emu_stream *worker_of;

struct emu_ctx *emu_stream_worker_ctx(void)
{
    return worker_of ? worker_of->sctx : NULL;
}

uint64_t emu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void emu_stream_put(struct emu_stream *s)
{
    if (s)
        emu_obj_put(&s->o);
}

/* ---- operations ------------------------------------------------------ */

void *emu_op_new(size_t size, emu_op_fn run, emu_op_fn fini)
{
    struct emu_op *op = calloc(1, size);
    if (op) {
        op->run = run;
        op->fini = fini;
    }
    return op;
}

int emu_op_dep(struct emu_op *op, struct emu_stream *s, uint64_t seq)
{
    if (op->ndeps == op->capdeps) {
        int cap = op->capdeps ? op->capdeps * 2 : 4;
        struct emu_dep *d = realloc(op->deps, (size_t)cap * sizeof *d);
        if (!d)
            return -1;
        op->deps = d;
        op->capdeps = cap;
    }
    emu_obj_ref(&s->o);
    op->deps[op->ndeps].s = s;
    op->deps[op->ndeps].seq = seq;
    op->ndeps++;
    return 0;
}

/* the GPU runs nothing more in a context that has faulted; with a
 * listener that wants them, each op's times (a kernel says its own) */
static void run_op(struct emu_stream *s, struct emu_op *op)
{
    if (op->device_work && emu_ctx_sticky(s->sctx))
        return;
    const struct emu_tl_hooks *h = op->corr ? atomic_load_explicit(&tl_hooks, memory_order_acquire) : NULL;
    if (!h) {
        op->run(op);
        return;
    }
    uint64_t t0 = emu_now_ns();
    op->run(op);
    if (op->tl_kind > EMU_TL_KERNEL)
        h->ran(op, t0, emu_now_ns());
}

static void op_free(struct emu_op *op)
{
    for (int i = 0; i < op->ndeps; i++)
        emu_stream_put(op->deps[i].s);
    free(op->deps);
    if (op->fini)
        op->fini(op);
    free(op);
}

/* ---- waiting --------------------------------------------------------- */

int emu_stream_reached(struct emu_stream *s, uint64_t seq)
{
    return atomic_load_explicit(&s->done_seq, memory_order_acquire) >= seq;
}

void emu_stream_wait(struct emu_stream *s, uint64_t seq)
{
    if (emu_stream_reached(s, seq))
        return;
    uint64_t until = emu_now_ns() + SPIN_NS;
    for (int i = 0;; i++) {
        if (emu_stream_reached(s, seq))
            return;
        cpu_relax();
        if ((i & 63) == 63 && emu_now_ns() > until)
            break;
    }
    pthread_mutex_lock(&s->lock);
    s->nwaiters++;
    while (!emu_stream_reached(s, seq))
        pthread_cond_wait(&s->done_cv, &s->lock);
    s->nwaiters--;
    pthread_mutex_unlock(&s->lock);
}

void emu_stream_sync(struct emu_stream *s)
{
    emu_stream_wait(s, atomic_load_explicit(&s->pub_enq, memory_order_acquire));
}

/* ---- life cycle ------------------------------------------------------ */

static void stream_release(struct emu_obj *o)
{
    struct emu_stream *s = (struct emu_stream *)o;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->done_cv);
    emu_ctx_put(s->sctx);
    free(s);
}

/* A new stream in c's list (ctx->lock held by the caller). References:
 * the registry's, the list's and the caller's. */
static struct emu_stream *stream_new_locked(struct emu_ctx *c, int kind, unsigned flags, int prio)
{
    struct emu_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    emu_obj_init(&s->o, EMU_T_STREAM, c, stream_release);
    atomic_store(&s->o.refs, 3);
    emu_obj_ref(&c->o);
    s->sctx = c;
    s->kind = kind;
    s->flags = flags;
    s->priority = prio;
    s->id = atomic_fetch_add(&next_stream_id, 1);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->done_cv, NULL);
    s->cnext = c->streams;
    c->streams = s;
    emu_obj_register(&s->o);
    return s;
}

static void ctx_unlink(struct emu_stream *s)
{
    struct emu_ctx *c = s->sctx;
    pthread_mutex_lock(&c->lock);
    for (struct emu_stream **pp = &c->streams; *pp; pp = &(*pp)->cnext) {
        if (*pp == s) {
            *pp = s->cnext;
            break;
        }
    }
    if (c->legacy == s)
        c->legacy = NULL;
    pthread_mutex_unlock(&c->lock);
    emu_stream_put(s); /* the list's reference */
}

static void spin_for_work(struct emu_stream *s)
{
    uint64_t until = emu_now_ns() + SPIN_NS;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(&s->pub_enq, memory_order_acquire) !=
            atomic_load_explicit(&s->done_seq, memory_order_relaxed))
            return;
        cpu_relax();
        if ((i & 63) == 63 && emu_now_ns() > until)
            return;
    }
}

static void *worker_main(void *arg)
{
    struct emu_stream *s = arg;
    worker_of = s;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (!s->head) {
            if (s->exiting)
                break;
            pthread_mutex_unlock(&s->lock);
            spin_for_work(s);
            pthread_mutex_lock(&s->lock);
            while (!s->head && !s->exiting) {
                s->sleeping = 1;
                pthread_cond_wait(&s->work_cv, &s->lock);
                s->sleeping = 0;
            }
            continue;
        }
        struct emu_op *op = s->head;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        pthread_mutex_unlock(&s->lock);
        for (int i = 0; i < op->ndeps; i++)
            emu_stream_wait(op->deps[i].s, op->deps[i].seq);
        run_op(s, op);
        uint64_t seq = op->seq;
        op_free(op);
        pthread_mutex_lock(&s->lock);
        atomic_store_explicit(&s->done_seq, seq, memory_order_release);
        if (s->nwaiters)
            pthread_cond_broadcast(&s->done_cv);
    }
    s->worker = 0;
    pthread_mutex_unlock(&s->lock);
    ctx_unlink(s);
    emu_stream_put(s); /* the worker's reference */
    return NULL;
}

/* s is unregistered already; the caller hands over the registry's reference */
static void stream_kill(struct emu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->exiting = 1;
    int worker = s->worker;
    if (worker)
        pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    if (!worker)
        ctx_unlink(s);
    emu_stream_put(s);
}

void emu_stream_destroy(struct emu_stream *s)
{
    if (emu_obj_unregister(&s->o))
        stream_kill(s);
}

static void drop_one(struct emu_obj *o)
{
    stream_kill((struct emu_stream *)o);
}

/* Waits for every stream's work (snapshot of the list, then wait). From a
 * host function (CUDA forbids driver calls there, but programs make them)
 * the stream running it is not waited for: what it ran before is done,
 * what comes after cannot start. */
void emu_ctx_sync(struct emu_ctx *c)
{
    struct emu_stream *snap[64];
    uint64_t seqs[64];
    for (;;) {
        int n = 0, more = 0;
        pthread_mutex_lock(&c->lock);
        for (struct emu_stream *s = c->streams; s; s = s->cnext) {
            uint64_t e = atomic_load(&s->pub_enq);
            if (s == worker_of || atomic_load(&s->done_seq) >= e)
                continue;
            if (n == 64) {
                more = 1;
                break;
            }
            emu_obj_ref(&s->o);
            snap[n] = s;
            seqs[n++] = e;
        }
        pthread_mutex_unlock(&c->lock);
        for (int i = 0; i < n; i++) {
            emu_stream_wait(snap[i], seqs[i]);
            emu_stream_put(snap[i]);
        }
        if (!more)
            return;
    }
}

/* the context's teardown: its work finishes, then its streams go (their
 * workers leave the context's list as they exit; the next use of the
 * legacy stream makes a new one at once) */
static void drop_ctx(struct emu_ctx *ctx)
{
    emu_ctx_sync(ctx);
    emu_obj_drop_ctx(ctx, EMU_T_STREAM, drop_one);
    pthread_mutex_lock(&ctx->lock);
    ctx->legacy = NULL;
    pthread_mutex_unlock(&ctx->lock);
}

void emu_stream_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_STREAMS, drop_ctx);
}

/* ---- submission ------------------------------------------------------ */

static int blocking(const struct emu_stream *s)
{
    return !(s->flags & CU_STREAM_NON_BLOCKING);
}

static int pending(struct emu_stream *s, uint64_t *seq)
{
    *seq = atomic_load_explicit(&s->pub_enq, memory_order_acquire);
    return !emu_stream_reached(s, *seq);
}

/* The legacy stream's implicit dependencies for an op on s (ctx->lock held) */
static int implicit_deps(struct emu_ctx *c, struct emu_stream *s, struct emu_op *op)
{
    uint64_t seq;
    if (s->kind == EMU_S_LEGACY) {
        for (struct emu_stream *b = c->streams; b; b = b->cnext)
            if (b != s && blocking(b) && pending(b, &seq) && emu_op_dep(op, b, seq))
                return -1;
    } else if (blocking(s) && c->legacy && c->legacy != s && pending(c->legacy, &seq)) {
        if (emu_op_dep(op, c->legacy, seq))
            return -1;
    }
    return 0;
}

static pthread_attr_t detached_attr;
static pthread_once_t attr_once = PTHREAD_ONCE_INIT;
static void attr_init(void)
{
    pthread_attr_init(&detached_attr);
    pthread_attr_setdetachstate(&detached_attr, PTHREAD_CREATE_DETACHED);
}

CUresult emu_stream_submit(struct emu_stream *s, struct emu_op *op, uint64_t *seq_out)
{
    struct emu_ctx *c = s->sctx;
    int ordered = blocking(s);
    CUresult r = CUDA_SUCCESS;
    if (capturing(s)) { /* work that did not become a graph node */
        op_free(op);
        return hooks->refuse(s);
    }
    op->stream = s;
    tl_submit(op);
    if (ordered)
        pthread_mutex_lock(&c->lock);
    if (ordered && implicit_deps(c, s, op)) {
        pthread_mutex_unlock(&c->lock);
        op_free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&s->lock);
    if (s->exiting) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if (op->inline_ok && op->ndeps == 0 && !s->head &&
               emu_stream_reached(s, s->enq_seq)) {
        /* idle: the stream reaches this op now; run it here */
        op->seq = ++s->enq_seq;
        atomic_store_explicit(&s->pub_enq, op->seq, memory_order_release);
        run_op(s, op);
        atomic_store_explicit(&s->done_seq, op->seq, memory_order_release);
        if (s->nwaiters)
            pthread_cond_broadcast(&s->done_cv);
        if (seq_out)
            *seq_out = op->seq;
        pthread_mutex_unlock(&s->lock);
        if (ordered)
            pthread_mutex_unlock(&c->lock);
        op_free(op);
        return CUDA_SUCCESS;
    } else {
        if (!s->worker) {
            pthread_t t;
            pthread_once(&attr_once, attr_init);
            emu_obj_ref(&s->o);
            if (pthread_create(&t, &detached_attr, worker_main, s) == 0) {
                s->worker = 1;
            } else {
                atomic_fetch_sub(&s->o.refs, 1); /* the caller still holds one */
                r = CUDA_ERROR_OUT_OF_MEMORY;
            }
        }
        if (r == CUDA_SUCCESS) {
            op->seq = ++s->enq_seq;
            atomic_store_explicit(&s->pub_enq, op->seq, memory_order_release);
            if (seq_out)
                *seq_out = op->seq;
            if (s->tail)
                s->tail->next = op;
            else
                s->head = op;
            s->tail = op;
            if (s->sleeping)
                pthread_cond_signal(&s->work_cv);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (ordered)
        pthread_mutex_unlock(&c->lock);
    if (r)
        op_free(op);
    return r;
}

CUresult emu_stream_exec(struct emu_stream *s, struct emu_op *op)
{
    struct emu_ctx *c = s->sctx;
    int ordered = blocking(s);
    uint64_t seq;
    int fail = 0;
    if (ordered) {
        pthread_mutex_lock(&c->lock);
        fail = implicit_deps(c, s, op);
    }
    if (!fail && pending(s, &seq))
        fail = emu_op_dep(op, s, seq);
    if (ordered)
        pthread_mutex_unlock(&c->lock);
    if (fail) {
        op_free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < op->ndeps; i++)
        emu_stream_wait(op->deps[i].s, op->deps[i].seq);
    op->stream = s;
    tl_submit(op);
    run_op(s, op);
    op_free(op);
    return emu_ctx_error(s->sctx); /* a fault of the work waited for; printf output */
}

/* ---- resolving handles ----------------------------------------------- */

static struct emu_stream *legacy_of(struct emu_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    struct emu_stream *s = c->legacy;
    if (s) {
        emu_obj_ref(&s->o);
    } else if ((s = stream_new_locked(c, EMU_S_LEGACY, 0, 0))) {
        c->legacy = s;
        /* the registry's reference is the ctx's: dropped with the context */
    }
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* per-thread default streams: one per (thread, context) */
struct ptds_ent { struct emu_ctx *c; struct emu_stream *s; };
#define MAX_PTDS 16
static __thread struct ptds_ent ptds_tab[MAX_PTDS];
static pthread_key_t ptds_key;
static pthread_once_t ptds_once = PTHREAD_ONCE_INIT;

static void ptds_thread_exit(void *v)
{
    (void)v;
    for (int i = 0; i < MAX_PTDS; i++) {
        struct emu_stream *s = emu_obj_get(ptds_tab[i].s, EMU_T_STREAM);
        if (s) {
            emu_stream_destroy(s); /* its work still runs to the end */
            emu_stream_put(s);
        }
        ptds_tab[i].s = NULL;
        ptds_tab[i].c = NULL;
    }
}

static void ptds_key_init(void)
{
    pthread_key_create(&ptds_key, ptds_thread_exit);
}

static struct emu_stream *ptds_of(struct emu_ctx *c)
{
    int slot = -1;
    for (int i = 0; i < MAX_PTDS; i++) {
        if (ptds_tab[i].c != c)
            continue;
        struct emu_stream *s = emu_obj_get(ptds_tab[i].s, EMU_T_STREAM);
        if (s && s->sctx == c)
            return s;
        emu_stream_put(s);
        ptds_tab[i].c = NULL;
        ptds_tab[i].s = NULL;
        slot = i;
        break;
    }
    for (int i = 0; slot < 0 && i < MAX_PTDS; i++) {
        struct emu_stream *s = emu_obj_get(ptds_tab[i].s, EMU_T_STREAM);
        if (!s) {
            ptds_tab[i].c = NULL;
            ptds_tab[i].s = NULL;
            slot = i;
        }
        emu_stream_put(s);
    }
    if (slot < 0)
        return NULL;
    pthread_once(&ptds_once, ptds_key_init);
    pthread_setspecific(ptds_key, (void *)1);
    pthread_mutex_lock(&c->lock);
    struct emu_stream *s = stream_new_locked(c, EMU_S_PTDS, 0, 0);
    pthread_mutex_unlock(&c->lock);
    if (!s)
        return NULL;
    /* the registry's reference is this thread's: its exit destroys it */
    ptds_tab[slot].c = c;
    ptds_tab[slot].s = s;
    return s;
}

/* for work (usable): the context's sticky error fails it */
static CUresult stream_get(CUstream h, int ptds, int usable, struct emu_stream **out)
{
    EMU_INIT_OR_RETURN();
    if (!h)
        h = ptds ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    if (h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        struct emu_ctx *c;
        CUresult r = usable ? emu_ctx_current(&c) : emu_ctx_query(&c);
        if (r)
            return r;
        /* the legacy stream would wait for a capturing stream */
        if (usable && h == CU_STREAM_LEGACY && hooks && (r = hooks->legacy(c))) {
            emu_ctx_put(c);
            return r;
        }
        struct emu_stream *s = h == CU_STREAM_LEGACY ? legacy_of(c) : ptds_of(c);
        emu_ctx_put(c);
        if (!s)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *out = s;
        return CUDA_SUCCESS;
    }
    struct emu_stream *s = emu_obj_get(h, EMU_T_STREAM);
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = usable ? emu_ctx_sticky(s->sctx) : CUDA_SUCCESS;
    if (r) {
        emu_stream_put(s);
        return r;
    }
    *out = s;
    return CUDA_SUCCESS;
}

CUresult emu_stream_resolve(CUstream h, int ptds, struct emu_stream **out)
{
    return stream_get(h, ptds, 1, out);
}

/* ---- entry points ---------------------------------------------------- */

static CUresult stream_create(CUstream *ph, unsigned flags, int prio)
{
    EMU_INIT_OR_RETURN();
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    if (prio < -5)
        prio = -5;
    if (prio > 0)
        prio = 0;
    pthread_mutex_lock(&c->lock);
    struct emu_stream *s = stream_new_locked(c, EMU_S_USER, flags, prio);
    pthread_mutex_unlock(&c->lock);
    emu_ctx_put(c);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_stream_put(s); /* the caller's: the registry and the list keep it */
    *ph = (CUstream)s;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    return stream_create(phStream, Flags, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    return stream_create(phStream, flags, priority);
}

TD_EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    EMU_INIT_OR_RETURN();
    if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_INVALID_HANDLE;
    struct emu_stream *s = emu_obj_get(hStream, EMU_T_STREAM);
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_ERROR_INVALID_HANDLE;
    if (s->kind == EMU_S_USER && emu_obj_unregister(&s->o)) {
        if (capturing(s))
            hooks->leave(s);
        stream_kill(s);
        r = CUDA_SUCCESS;
    }
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
    return cuStreamDestroy_v2(hStream);
}

TD_EXPORT CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_resolve(ctx, &c);
    if (r)
        return r;
    if (hooks && (r = hooks->ctx_sync(c))) {
        emu_ctx_put(c);
        return r;
    }
    emu_ctx_sync(c);
    r = emu_ctx_error(c); /* a failed kernel's sticky error; device printf output */
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuCtxSynchronize(void)
{
    return cuCtxSynchronize_v2(NULL);
}

static CUresult stream_sync(CUstream h, int ptds)
{
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    if (capturing(s)) {
        r = hooks->refuse(s);
        emu_stream_put(s);
        return r;
    }
    emu_stream_sync(s);
    r = emu_ctx_error(s->sctx); /* a failed kernel's sticky error; device printf output */
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) { return stream_sync(hStream, 0); }
TD_EXPORT CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream) { return stream_sync(hStream, 1); }

static CUresult stream_query(CUstream h, int ptds)
{
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    uint64_t seq;
    /* done: a fault of its work is the answer */
    r = capturing(s) ? hooks->refuse(s) : pending(s, &seq) ? CUDA_ERROR_NOT_READY : emu_ctx_sticky(s->sctx);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream) { return stream_query(hStream, 0); }
TD_EXPORT CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream) { return stream_query(hStream, 1); }

static CUresult stream_flags(CUstream h, int ptds, unsigned *flags)
{
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = stream_get(h, ptds, 0, &s);
    if (r)
        return r;
    *flags = s->flags;
    emu_stream_put(s);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags) { return stream_flags(hStream, 0, flags); }
TD_EXPORT CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) { return stream_flags(hStream, 1, flags); }

static CUresult stream_prio(CUstream h, int ptds, int *prio)
{
    if (!prio)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = stream_get(h, ptds, 0, &s);
    if (r)
        return r;
    *prio = s->priority;
    emu_stream_put(s);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority) { return stream_prio(hStream, 0, priority); }
TD_EXPORT CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { return stream_prio(hStream, 1, priority); }

static CUresult stream_ctx(CUstream h, int ptds, CUcontext *pctx, CUgreenCtx *pgreen, int v2)
{
    if (!pctx || (v2 && !pgreen))
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = stream_get(h, ptds, 0, &s);
    if (r)
        return r;
    *pctx = (CUcontext)s->sctx;
    if (pgreen)
        *pgreen = NULL;
    emu_stream_put(s);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx) { return stream_ctx(hStream, 0, pctx, NULL, 0); }
TD_EXPORT CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) { return stream_ctx(hStream, 1, pctx, NULL, 0); }
TD_EXPORT CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    return stream_ctx(hStream, 0, pCtx, pGreenCtx, 1);
}
TD_EXPORT CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    return stream_ctx(hStream, 1, pCtx, pGreenCtx, 1);
}

static CUresult stream_id(CUstream h, int ptds, unsigned long long *id)
{
    if (!id)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = stream_get(h, ptds, 0, &s);
    if (r)
        return r;
    *id = s->id;
    emu_stream_put(s);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId) { return stream_id(hStream, 0, streamId); }
TD_EXPORT CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId) { return stream_id(hStream, 1, streamId); }

static CUresult stream_dev(CUstream h, int ptds, CUdevice *dev)
{
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    CUresult r = stream_get(h, ptds, 0, &s);
    if (r)
        return r;
    *dev = s->sctx->dev->ordinal;
    emu_stream_put(s);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device) { return stream_dev(hStream, 0, device); }
TD_EXPORT CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) { return stream_dev(hStream, 1, device); }

/* ---- host functions -------------------------------------------------- */

struct host_op {
    struct emu_op op;
    CUhostFn fn;
    CUstreamCallback cb;
    CUstream handle;
    void *user;
};

/* once the context has faulted, a host function is not called (as
 * cuLaunchHostFunc documents) and a stream callback is told the error */
static void run_host(struct emu_op *op)
{
    struct host_op *h = (struct host_op *)op;
    CUresult err = emu_ctx_sticky(op->stream->sctx);
    op->tl_kind = EMU_TL_HOST;
    if (h->fn) {
        if (!err)
            h->fn(h->user);
    } else {
        h->cb(h->handle, err, h->user);
    }
}

static CUresult host_submit(CUstream h, int ptds, CUhostFn fn, CUstreamCallback cb, void *user)
{
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    if (capturing(s)) { /* a host node; stream callbacks cannot be captured */
        r = fn ? hooks->host(s, fn, user) : hooks->refuse(s);
        emu_stream_put(s);
        return r;
    }
    struct host_op *op = emu_op_new(sizeof *op, run_host, NULL);
    if (!op) {
        emu_stream_put(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->fn = fn;
    op->cb = cb;
    op->handle = h;
    op->user = user;
    r = emu_stream_submit(s, &op->op, NULL);
    emu_stream_put(s);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    EMU_INIT_OR_RETURN();
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    return host_submit(hStream, 0, fn, NULL, userData);
}

TD_EXPORT CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    EMU_INIT_OR_RETURN();
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    return host_submit(hStream, 1, fn, NULL, userData);
}

TD_EXPORT CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                                               void *userData, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!callback || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return host_submit(hStream, 0, NULL, callback, userData);
}

TD_EXPORT CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback,
                                                    void *userData, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!callback || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return host_submit(hStream, 1, NULL, callback, userData);
}
