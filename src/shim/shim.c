/* SPDX-License-Identifier: Apache-2.0 */
/* The shim's records: each call the wrappers hand to td_leave, written
 * into this process's ring with what tdtrace needs to print it (strings,
 * out-values, the stack with -k); the hello record that says which
 * backend the process uses; and a new process's own ring after a fork. */
#include "shim.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emuevent.h"
#include "pyframes.h"
#include "ring.h"

static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread pid_t my_tid, my_tid_pid;

/* a new process: its own ring, its own per-process policy counters */
static void new_process(void)
{
    pthread_mutex_lock(&self_lock);
    if (atomic_load_explicit(&td_shim_self->pid, memory_order_acquire) == 0) {
        if (td_conn_connect(0) < 0)
            atomic_store_explicit(&td_shim_ring, NULL, memory_order_release);
        td_shim_policy_fork_child();
        atomic_store_explicit(&td_shim_self->pid, (pid_t)syscall(SYS_getpid), memory_order_release);
        td_shim_hello();
    }
    pthread_mutex_unlock(&self_lock);
}

void td_shim_atfork_child(void)
{
    pthread_mutex_init(&self_lock, NULL);
    __atomic_store_n(&td_cupti_on, 0, __ATOMIC_RELAXED); /* CUPTI is the parent's: a child's work is not measured */
    if (td_shim_self)
        new_process();
}

/* the ring of the process the caller runs in, or NULL (not traced) */
static inline struct td_ring *my_ring(void)
{
    if (!td_shim_self)
        return NULL;
    if (__builtin_expect(atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed) == 0, 0))
        new_process();
    return atomic_load_explicit(&td_shim_ring, memory_order_acquire);
}

/* ---- recording ------------------------------------------------------- */

/* -k: the caller's stack, without the shim's own frames */
static void rb_stack(struct td_rb *b)
{
    void *frames[TD_MAX_FRAMES + 8];
    int n = backtrace(frames, TD_MAX_FRAMES + 8);
    uint64_t out[TD_MAX_FRAMES];
    int k = 0;
    static Dl_info shim_info;
    static int have_self = -1;
    if (have_self < 0)
        have_self = dladdr((void *)&rb_stack, &shim_info) != 0;
    for (int i = 0; i < n && k < TD_MAX_FRAMES; i++) {
        Dl_info info;
        if (have_self && dladdr(frames[i], &info) && info.dli_fbase == shim_info.dli_fbase)
            continue;
        out[k++] = (uint64_t)(uintptr_t)frames[i];
    }
    void *d = td_rb_item(b, 0, TD_IT_STACK, (size_t)k * 8, 0);
    if (d)
        memcpy(d, out, (size_t)k * 8);
}

/* --py: the calling thread's innermost Python frames, when the process
 * runs CPython (elsewhere one check, and no item) */
static void rb_pyframes(struct td_rb *b)
{
    if (td_py_state() != TD_PY_READY)
        return;
    struct td_pyframe fr[TD_PY_FRAMES_MAX];
    char str[1536];
    /* leave -k's stack its room */
    size_t head = sizeof(struct td_item) + sizeof(struct td_pyitem) + sizeof(fr) +
                  (td_shim_stacks ? sizeof(struct td_item) + TD_MAX_FRAMES * 8 : 0);
    if (b->len + head + 64 > sizeof(b->buf))
        return;
    size_t room = sizeof(b->buf) - b->len - head;
    struct td_pyread r = { .frames = fr, .max = TD_PY_FRAMES_MAX, .str = str,
                           .str_size = room < sizeof(str) ? room : sizeof(str) };
    td_py_read(&r);
    if (!r.n)
        return; /* no Python frame on this call (a native thread, a thread between calls) */
    struct td_pyitem h = { (uint16_t)r.n, r.status, r.more, (uint32_t)r.str_used };
    unsigned char *d = td_rb_item(b, 0, TD_IT_PYFRAMES, sizeof(h) + r.n * sizeof(struct td_pyrecframe) + r.str_used, 0);
    if (!d)
        return;
    memcpy(d, &h, sizeof(h));
    d += sizeof(h);
    for (unsigned i = 0; i < r.n; i++, d += sizeof(struct td_pyrecframe)) {
        struct td_pyrecframe f = { fr[i].file, fr[i].func, fr[i].line, fr[i].group, fr[i].flags };
        memcpy(d, &f, sizeof(f));
    }
    memcpy(d, str, r.str_used);
}

static void rb_commit(struct td_ring *r, struct td_rb *b, unsigned type)
{
    struct td_rec *rec = td_ring_reserve(r, b->len, type, ((struct td_rec *)b->buf)->tid, td_shim_bounded);
    if (!rec)
        return;
    /* the word is the ring's: copy what follows it */
    memcpy((unsigned char *)rec + 8, b->buf + 8, b->len - 8);
    td_ring_commit(rec);
    /* tdtrace sleeps: wake it (rare: only when it had nothing to do) */
    if (atomic_load_explicit((_Atomic uint32_t *)&td_shim_shared->reader_waiting, memory_order_relaxed) &&
        atomic_exchange_explicit((_Atomic uint32_t *)&td_shim_shared->reader_waiting, 0, memory_order_relaxed))
        td_conn_wake();
}

static pid_t tid(void)
{
    pid_t p = atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    if (my_tid_pid != p) {
        my_tid = (pid_t)syscall(SYS_gettid);
        my_tid_pid = p;
    }
    return my_tid;
}

void td_shim_hello(void)
{
    struct td_ring *r = atomic_load_explicit(&td_shim_ring, memory_order_acquire);
    if (!r || !td_shim_self)
        return;
    struct td_rb b;
    memset(b.buf, 0, sizeof(struct td_rec));
    b.len = sizeof(struct td_rec);
    b.nitems = 0;
    b.last = NULL;
    struct td_rec *h = (struct td_rec *)b.buf;
    h->pid = (uint32_t)atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = (uint16_t)td_backend_kind();
    h->t_enter = h->t_exit = td_now();
    const char *text = td_backend_text();
    size_t n = strlen(text);
    void *d = td_rb_item(&b, 0, TD_IT_TEXT, n, 0);
    if (d)
        memcpy(d, text, n);
    h->nitems = b.nitems;
    rb_commit(r, &b, TD_REC_HELLO);
}

/* TD_RING_DEVICE: the correlation id of the call this thread is in, once
 * the call has queued work on an emulated stream (td_enter starts from 0,
 * td_leave records it); ids are per process, from 1. Work queued outside
 * any call (on a stream's worker) gets an id no call carries. */
__thread uint64_t td_shim_call_corr;
static _Atomic uint64_t next_corr;

static uint64_t submit_corr(void)
{
    if (!td_shim_device || !__atomic_load_n(&td_shim_mask, __ATOMIC_RELAXED)) /* inert (detached) */
        return 0;
    if (!td_shim_call_corr)
        td_shim_call_corr = atomic_fetch_add_explicit(&next_corr, 1, memory_order_relaxed) + 1;
    return td_shim_call_corr;
}

/* CUPTI (cupti.c): a traced driver call of the classes that queue work on
 * a stream (copies, memsets, launches) carries its correlation id to the
 * records of that work as CUPTI's external id */
void td_shim_cupti_enter(struct td_call *c)
{
    if (c->fn >= TD_FN__RT_FIRST ||
        !(td_fn_in_class(c->fn, TD_FAM_copy) || td_fn_in_class(c->fn, TD_FAM_launch) ||
          (td_fn_in_class(c->fn, TD_FAM_graph) && !strcmp(td_fns[c->fn].base, "cuGraphLaunch"))))
        return;
    uint64_t corr = submit_corr();
    if (!corr)
        return;
    td_cupti_push(corr);
    c->cupti = 1;
}

/* a synchronisation: what CUPTI has of the work is handed on */
static int syncs(int fn)
{
    if (fn >= TD_FN__RT_FIRST || !(td_fn_in_class(fn, TD_FAM_context) || td_fn_in_class(fn, TD_FAM_stream) ||
                                   td_fn_in_class(fn, TD_FAM_event)))
        return 0;
    const char *b = td_fns[fn].base;
    return !strcmp(b, "cuCtxSynchronize") || !strcmp(b, "cuStreamSynchronize") || !strcmp(b, "cuEventSynchronize");
}

/* what the emulator says of where work ran (it checks nothing: tdtrace does) */
static void ev_place(const struct td_emu_event *ev, uint32_t *device, uint64_t *stream, uint64_t *corr)
{
    *device = (uint32_t)ev->device;
    *stream = ev->stream;
    *corr = ev->corr;
}

/* what the emulator reports (a fault, a diagnostic, a kernel or other work
 * that ran): a TD_REC_EVENT record, on the thread that reports; work being
 * queued: the call's correlation id */
static void on_emu_event(const struct td_emu_event *ev)
{
    if (!ev || ev->size < sizeof(*ev))
        return;
    if (ev->kind == TD_EMU_SUBMIT) {
        if (ev->corr_out)
            *ev->corr_out = submit_corr();
        return;
    }
    if (ev->kind == TD_EMU_OP && !td_shim_device)
        return;
    struct td_ring *ring_ = my_ring();
    if (!ring_)
        return;
    struct td_rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = ev->kind == TD_EMU_KERNEL ? TD_EV_KERNEL : ev->kind == TD_EMU_IMAGE ? TD_EV_IMAGE
          : ev->kind == TD_EMU_OP ? TD_EV_DEVOP : TD_EV_REPORT;
    h->result = ev->result;
    h->t_enter = ev->t_start;
    h->t_exit = ev->t_end;
    b.len = sizeof(*h);
    b.nitems = 0;
    b.last = NULL;
    if (ev->kind == TD_EMU_IMAGE) {
        struct td_ev_image im = { (uint32_t)ev->image_cc, (uint32_t)ev->image_isa };
        void *d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(im), 0);
        if (d)
            memcpy(d, &im, sizeof(im));
    } else if (ev->kind == TD_EMU_KERNEL) {
        struct td_ev_kernel k;
        memset(&k, 0, sizeof(k));
        for (int i = 0; i < 3; i++) {
            k.grid[i] = ev->grid[i];
            k.block[i] = ev->block[i];
        }
        k.shared = ev->shared;
        ev_place(ev, &k.device, &k.stream, &k.corr);
        if (ev->size >= offsetof(struct td_emu_event, jit_code_bytes) + sizeof ev->jit_code_bytes && ev->jit > 0 &&
            ev->jit <= 2) {
            k.jit = (uint32_t)ev->jit;
            k.jit_us = ev->jit_ms > 0 && ev->jit_ms < 4e6 ? (uint32_t)(ev->jit_ms * 1e3) : 0;
            k.jit_code_bytes = ev->jit_code_bytes;
        }
        void *d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(k), 0);
        if (d)
            memcpy(d, &k, sizeof(k));
    } else if (ev->kind == TD_EMU_OP) {
        struct td_ev_devop o;
        memset(&o, 0, sizeof(o));
        o.kind = (uint32_t)ev->op;
        o.dir = (uint32_t)ev->dir;
        o.bytes = ev->op_bytes;
        ev_place(ev, &o.device, &o.stream, &o.corr);
        void *d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(o), 0);
        if (d)
            memcpy(d, &o, sizeof(o));
    } else {
        size_t n = ev->text ? (ev->len < 3000 ? ev->len : 3000) : 0;
        void *d = td_rb_item(&b, 0, TD_IT_TEXT, n, n < ev->len ? TD_ITF_TRUNCATED : 0);
        if (d && n)
            memcpy(d, ev->text, n);
        if (ev->fault) {
            struct td_ev_fault f;
            memset(&f, 0, sizeof(f));
            f.has_thread = (uint32_t)ev->has_thread;
            for (int i = 0; i < 3; i++) {
                f.block[i] = ev->fblock[i];
                f.thread[i] = ev->thread[i];
            }
            f.access = (uint32_t)ev->access;
            f.size = ev->bytes;
            f.line = ev->line;
            f.addr = ev->addr;
            if (ev->space)
                memcpy(f.space, ev->space, strnlen(ev->space, sizeof(f.space)));
            if ((d = td_rb_item(&b, 0, TD_IT_EVENT, sizeof(f), 0)) != NULL)
                memcpy(d, &f, sizeof(f));
        }
    }
    if (ev->kernel)
        td_rb_str(&b, 1, ev->kernel);
    if (ev->kind == TD_EMU_REPORT && ev->fault && ev->file)
        td_rb_str(&b, 2, ev->file);
    h->nitems = b.nitems;
    rb_commit(ring_, &b, TD_REC_EVENT);
}

void td_shim_warning(const char *text)
{
    struct td_ring *ring_ = my_ring();
    if (!ring_ || !text)
        return;
    struct td_rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = TD_EV_WARNING;
    h->t_enter = h->t_exit = td_now();
    struct timespec ts; /* an event's times are CLOCK_MONOTONIC whatever TD_RING_TSC says */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    h->t_enter = h->t_exit = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    b.len = sizeof(*h);
    b.nitems = 0;
    b.last = NULL;
    size_t n = strnlen(text, 3000);
    void *d = td_rb_item(&b, 0, TD_IT_TEXT, n, 0);
    if (d)
        memcpy(d, text, n);
    h->nitems = b.nitems;
    rb_commit(ring_, &b, TD_REC_EVENT);
}

void td_shim_listen_emu(void)
{
    if (td_backend_kind() != TD_BK_EMULATE || !td_shim_ctl)
        return;
    void (*listen)(td_emu_listener) = (void (*)(td_emu_listener))td_backend_sym(TD_EMU_LISTEN);
    if (listen)
        listen(on_emu_event);
}

/* -e lib=: the library call's names (record.h, TD_IT_LIB) */
static size_t lib_str_len(const char *s)
{
    return s ? strnlen(s, TD_STR_MAX) : 0;
}

static void rb_lib(struct td_rb *b, const struct td_call *c)
{
    struct td_libcall h = { (uint16_t)lib_str_len(c->lib_name), (uint16_t)lib_str_len(c->lib_fn),
                            (uint16_t)lib_str_len(c->lib_host), 0 };
    unsigned char *d = td_rb_item(b, 0, TD_IT_LIB, sizeof(h) + (size_t)h.lib_len + h.fn_len + h.host_len, 0);
    if (!d)
        return;
    memcpy(d, &h, sizeof(h));
    d += sizeof(h);
    const char *s[3] = { c->lib_name, c->lib_fn, c->lib_host };
    const size_t n[3] = { h.lib_len, h.fn_len, h.host_len };
    for (int i = 0; i < 3; i++) {
        for (size_t k = 0; k < n[i]; k++) /* printable ASCII only (what tdtrace checks) */
            d[k] = (unsigned char)s[i][k] >= 0x20 && (unsigned char)s[i][k] < 0x7f ? (unsigned char)s[i][k] : '?';
        d += n[i];
    }
}

int td_shim_nest_guard;
__thread unsigned td_shim_depth;

void td_leave(struct td_call *c, const uint64_t *a, CUresult r)
{
    if (__builtin_expect(c->quiet, 0))
        return;
    if (__builtin_expect(c->nest != 0, 0)) {
        td_shim_depth--;
        if (c->nest == 2)
            return;
    }
    uint64_t corr = td_shim_call_corr; /* work this call queued (TD_RING_DEVICE) */
    if (__builtin_expect(corr != 0, 0))
        td_shim_call_corr = 0;
    if (__builtin_expect(c->cupti, 0)) {
        td_cupti_pop();
        if (r != CUDA_SUCCESS) /* it queued nothing */
            corr = 0;
    }
    if (__builtin_expect(c->fn == TD_FN_cuInit, 0) && r == CUDA_SUCCESS && td_shim_device && td_shim_ctl &&
        td_backend_kind() == TD_BK_DRIVER && !__atomic_load_n(&td_shim_nest_guard, __ATOMIC_RELAXED))
        td_cupti_start(on_emu_event, td_shim_warning); /* once; not with -p (nothing would stop it at detach) */
    if (__builtin_expect(__atomic_load_n(&td_cupti_on, __ATOMIC_RELAXED), 0) && syncs(c->fn))
        td_cupti_flush();
    if (__atomic_load_n(&td_shim_policy_active, __ATOMIC_RELAXED) && c->fn < TD_FN__RT_FIRST)
        td_shim_policy_after(c, a, r);
    if (__builtin_expect(c->fn == TD_FN_cuModuleUnload || c->fn == TD_FN_cuLibraryUnload, 0))
        td_deref_forget(); /* its functions' handles may come back as others */
    if (!c->record && !c->verdict)
        return;
    uint64_t t1 = td_now();
    struct td_ring *ring_ = my_ring();
    if (!ring_)
        return;
    unsigned fn = (unsigned)c->fn;
    const struct td_fn_info *info = &td_fns[fn];
    struct td_rb b;
    struct td_rec *h = (struct td_rec *)b.buf;
    memset(h, 0, sizeof(*h));
    h->pid = (uint32_t)atomic_load_explicit(&td_shim_self->pid, memory_order_relaxed);
    h->tid = (uint32_t)tid();
    h->fn = (uint16_t)fn;
    h->nargs = info->nparams;
    h->result = (int32_t)r;
    h->t_enter = c->t0;
    h->t_exit = t1;
    h->verdict = c->verdict;
    h->applied = c->applied;
    h->rule_line = c->rule_line;
    b.len = sizeof(*h);
    b.nitems = 0;
    b.last = NULL;
    memcpy(b.buf + b.len, a, (size_t)info->nparams * 8);
    b.len += (uint32_t)info->nparams * 8;
    if (corr) {
        void *d = td_rb_item(&b, 0, TD_IT_CORR, sizeof(corr), 0);
        if (d)
            memcpy(d, &corr, sizeof(corr));
    }
    for (unsigned i = 0; i < info->nparams; i++) {
        const struct td_param *p = &info->params[i];
        const void *ptr = (const void *)(uintptr_t)a[i];
        switch ((enum td_role)p->role) {
        case TD_R_IN:
            break;
        case TD_R_STR:
            if (ptr)
                td_rb_str(&b, i, ptr);
            break;
        case TD_R_INP:
            if (ptr) {
                void *d = td_rb_item(&b, i, TD_IT_OUT, p->size, 0);
                if (d)
                    memcpy(d, ptr, p->size);
            }
            break;
        case TD_R_OUT:
            if (ptr && r == CUDA_SUCCESS) {
                void *d = td_rb_item(&b, i, TD_IT_OUT, p->size, 0);
                if (d)
                    memcpy(d, ptr, p->size);
            }
            break;
        case TD_R_OUTSTR:
            if (ptr && r == CUDA_SUCCESS)
                td_rb_str(&b, i, ptr);
            break;
        case TD_R_OUTPSTR:
            if (ptr && r == CUDA_SUCCESS) {
                const char *s = *(const char *const *)ptr;
                if (s)
                    td_rb_str(&b, i, s);
            }
            break;
        }
    }
    if (info->deref)
        td_deref(&b, fn, a, r);
    if (c->verdict && c->rule_file) {
        size_t n = strnlen(c->rule_file, 256);
        void *d = td_rb_item(&b, 0xff, TD_IT_TEXT, n, 0);
        if (d)
            memcpy(d, c->rule_file, n);
    }
    struct td_nest nest;
    if (td_rt_nest(c, &nest)) {
        void *d = td_rb_item(&b, 0, TD_IT_NEST, sizeof(nest), 0);
        if (d)
            memcpy(d, &nest, sizeof(nest));
    }
    if (fn >= TD_FN__LIB_FIRST)
        rb_lib(&b, c);
    if (td_shim_pyframes)
        rb_pyframes(&b);
    if (td_shim_stacks)
        rb_stack(&b);
    h->nitems = b.nitems;
    rb_commit(ring_, &b, TD_REC_CALL);
}
