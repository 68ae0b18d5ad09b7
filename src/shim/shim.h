/* SPDX-License-Identifier: Apache-2.0 */
/* The interposer (lib/tdtrace/libcuda.so.1): the runtime behind the
 * generated wrappers (shim_wrappers.c). Each wrapper packs its arguments
 * into u64s, asks td_enter whether to call the backend (the policy may
 * deny or inject), calls it, and hands the result to td_leave, which
 * writes one record into tdtrace's ring. */
#ifndef TD_SHIM_H
#define TD_SHIM_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "api.h"
#include "ring.h"

/* ---- conn.c: the connection to tdtrace ------------------------------- */
/* tdtrace's control area (read-only: flags, trace mask, policy) and the
 * area every traced process shares (the memory budget); NULL untraced */
extern const struct td_ctl *td_shim_ctl;
extern struct td_shared *td_shim_shared;
/* this process's ring (replaced in a child: each process has its own) */
extern struct td_ring *_Atomic td_shim_ring;
/* the process's pid, in a page the kernel clears in a child after any
 * fork (MADV_WIPEONFORK), even a raw fork(2) that runs no atfork handler:
 * 0 there means "a new process: get a ring of its own"; NULL untraced */
struct td_shim_self { _Atomic pid_t pid; };
extern struct td_shim_self *td_shim_self;
/* -k, --bounded, --py */
extern int td_shim_stacks, td_shim_bounded, td_shim_pyframes;
/* TD_RING_DEVICE: the emulator's work is correlated with the calls that queue it */
extern int td_shim_device;
/* ... the correlation id of the call this thread is in (shim.c) */
extern __thread uint64_t td_shim_call_corr;
/* connect to tdtrace, map the areas, note the flags (at start) */
void td_conn_start(void);
/* ask tdtrace for this process's ring (and, the first time, the control
 * and shared areas); 0 or -1 (then the process is not traced) */
int td_conn_connect(int first);
/* wake tdtrace, which sleeps waiting for records */
void td_conn_wake(void);
/* the socket to connect to, in place of TDTRACE_SOCK ("": none) */
void td_conn_set_sock(const char *name);


#define TD_EXPORT __attribute__((visibility("default")))
#define TD_PTR(x) ((uint64_t)(uintptr_t)(x))
#define TD_BLOB(x) td_blob8(&(x), sizeof(x))
/* a value passed by value that is recorded as its bytes (the runtime's dim3) */
#define TD_ADDR(x) ((uint64_t)(uintptr_t)&(x))

struct td_call {
    uint64_t t0;
    int fn;
    int record;           /* tdtrace wants this call */
    uint8_t verdict, applied;
    uint8_t nest;         /* tdtrace -p: 1 counted in td_shim_depth, 2 and a call inside another */
    uint32_t rule_line;
    const char *rule_file;
    /* a runtime call (rt.c): its nesting id (0: not recorded), the runtime
     * call it was made inside, how deep */
    uint32_t rt_id, rt_parent, rt_depth;
    uint8_t rt_pushed;
    /* a library call (lib.c, ids from TD_FN__LIB_FIRST): its library's
     * name, its own (LIB.call only, else NULL) and what a tdtrace host
     * library said it ran (NULL: nothing) */
    const char *lib_name, *lib_fn, *lib_host;
    uint8_t cupti;        /* cupti.c: an external correlation id was pushed */
    uint8_t quiet;        /* a call libcupti made while the shim was in it: passed on */
};

/* tdtrace -p (attach.c): the driver's entry points jump to the wrappers,
 * so the driver's calls to its own entry points come back into the shim.
 * Such a call, made inside another on the same thread, is passed on as it
 * is: not recorded, no policy (a launched program's shim never sees it). */
extern int td_shim_nest_guard;
extern __thread unsigned td_shim_depth;

static inline uint64_t td_f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline uint64_t td_blob8(const void *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n < sizeof(v) ? n : sizeof(v));
    return v;
}

/* TSC ticks where tdtrace said so (TD_RING_TSC: x86-64 with an invariant
 * TSC; it converts them), else CLOCK_MONOTONIC ns */
extern int td_use_tsc;

static inline uint64_t td_now(void)
{
#if defined(__x86_64__)
    if (td_use_tsc) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- cupti.c: a real GPU's times (NVIDIA's CUPTI Activity API) -------- */
#include "emuevent.h"
/* set once CUPTI records the device's work: the calls that queue work
 * push their correlation id (td_shim_cupti_enter, shim.c) */
extern int td_cupti_on;
/* set while the shim is in libcupti on this thread: the driver calls CUPTI
 * makes there are its own, not the program's (passed on, not recorded) */
extern __thread int td_shim_quiet;
/* load and start CUPTI (once; after cuInit, with TD_RING_DEVICE and the
 * real driver): its records go to `to` as the emulator's events would;
 * why it could not start, or what it dropped, to `warning` */
void td_cupti_start(td_emu_listener to, void (*warning)(const char *));
/* around a call that queues work: its correlation id as CUPTI's external id */
void td_cupti_push(uint64_t corr);
void td_cupti_pop(void);
/* hand on the records of the buffers CUPTI has filled (at a synchronisation) */
void td_cupti_flush(void);
/* shim.c: a traced call that may queue work gets its correlation id pushed */
void td_shim_cupti_enter(struct td_call *c);

/* ---- shimpolicy.c: the policy in this process ------------------------ */
/* set when a policy is loaded: td_enter then consults it */
extern int td_shim_policy_active;
/* the functions tdtrace records (the ring's trace mask), or NULL untraced */
extern const uint8_t *td_shim_mask;

/* the policy's say on a call: 1 to call the backend, 0 if *r is decided */
int td_shim_policy(int fn, struct td_call *c, const uint64_t *a, CUresult *r);
/* the same for a call of an undescribed library function (LIB.call) by its
 * name; count: its calls in this process (the rules' when=) */
int td_shim_policy_lib(const char *name, _Atomic unsigned long long *count, struct td_call *c, CUresult *r);
/* after a call the policy watched: memory accounting, cuMemGetInfo */
void td_shim_policy_after(struct td_call *c, const uint64_t *a, CUresult r);
/* device rules: the program's ordinals are not the backend's */
extern int td_dev_mapped;
CUdevice td_dev_in(struct td_call *c, CUdevice visible);
CUdevice td_dev_out(CUdevice backend);
/* the policy in this process (shimpolicy.c) */
void td_shim_policy_init(void);
void td_shim_policy_fork_child(void);
/* require driver=VERSION in enforce mode: that release (cuGetProcAddress
 * answers as its driver would, procaddr.c); else 0 */
int td_shim_required_driver(void);

static inline int td_enter(int fn, struct td_call *c, const uint64_t *a, CUresult *r)
{
    c->fn = fn;
    c->verdict = 0;
    c->applied = 0;
    c->rule_line = 0;
    c->rule_file = 0;
    c->nest = 0;
    c->quiet = 0;
    if (__builtin_expect(td_shim_quiet, 0)) { /* libcupti's own call: nothing of the program's touched */
        c->quiet = 1;
        c->record = 0;
        c->t0 = 0;
        c->cupti = 0;
        return 1;
    }
    if (__builtin_expect(__atomic_load_n(&td_shim_nest_guard, __ATOMIC_RELAXED), 0)) {
        c->nest = td_shim_depth++ ? 2 : 1;
        if (c->nest == 2) {
            c->record = 0;
            c->t0 = 0;
            return 1;
        }
    }
    td_shim_call_corr = 0; /* work queued before this call is not its */
    /* relaxed loads: tdtrace -p changes them while the program runs */
    const uint8_t *mask = __atomic_load_n(&td_shim_mask, __ATOMIC_RELAXED);
    c->record = mask && (mask[fn >> 3] >> (fn & 7) & 1);
    c->t0 = c->record ? td_now() : 0;
    c->cupti = 0;
    if (__builtin_expect(__atomic_load_n(&td_cupti_on, __ATOMIC_RELAXED), 0) && c->record)
        td_shim_cupti_enter(c);
    if (__builtin_expect(__atomic_load_n(&td_shim_policy_active, __ATOMIC_RELAXED), 0))
        return td_shim_policy(fn, c, a, r);
    return 1;
}

/* ---- backend.c: the backend registry --------------------------------- */
/* choose and load the backend (once; at start, or at the first call) */
void td_backend_load(void);
/* tdtrace -p: the backend is the library at path the process has loaded
 * already (kind: TD_BK_*); 0, or -1 when it is not loaded or another
 * backend was chosen before */
int td_backend_adopt(const char *path, int kind);
/* tdtrace -p: the driver entry points patched to jump to the shim, and
 * the trampolines that run the original functions: n pairs (entry,
 * trampoline) sorted by entry, malloc'd, kept for good (a thread may be
 * reading an earlier table) */
void td_backend_set_originals(const uint64_t *pairs, size_t n);
/* the trampoline of p, a patched entry point, or p itself */
void *td_backend_original(void *p);
int td_backend_kind(void);          /* TD_BK_* */
const char *td_backend_text(void);  /* "driver PATH", "emulate PATH", "none (why)" */
/* a symbol of the backend library, or NULL */
void *td_backend_sym(const char *name);
/* the backend's function for fn, or NULL */
void *td_backend_fn(int fn);
void td_set_backend_fn(int fn, void *p);
/* the shim's own implementation of an entry point, or NULL */
void td_set_override(int fn, void *p);
void *td_override(int fn);
/* the function the wrapper calls for fn: the override, or the backend's */
void *td_real(int fn);
/* result of a call the backend does not have */
CUresult td_missing(int fn);

/* ---- shim.c: the records ---------------------------------------------- */
/* record the call */
void td_leave(struct td_call *c, const uint64_t *a, CUresult r);
/* with the emulator as the backend and tdtrace listening: its reports and
 * kernels become records (TD_REC_EVENT) */
void td_shim_listen_emu(void);
/* ---- recbuf.c: a record being built ---------------------------------- */
/* a record being built */
struct td_rb {
    _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    uint32_t len;
    uint8_t nitems;
    struct td_item *last;
};
/* add an item of len bytes; its data, or NULL when the record is full */
void *td_rb_item(struct td_rb *b, unsigned arg, unsigned kind, size_t len, uint32_t flags);
/* the last item holds only len bytes */
void td_rb_shrink(struct td_rb *b, size_t len);
/* copy from this process's memory without trusting the address: the
 * bytes copied (0: none readable) */
size_t td_self_read(void *dst, uint64_t addr, size_t len);
/* a string item from this process's memory (at most TD_STR_MAX bytes) */
void td_rb_str(struct td_rb *b, unsigned arg, const char *s);

/* ---- deref.c: what pointer arguments point to ------------------------- */
/* structures, arrays, a launch's kernel and arguments, into the record;
 * r: the call's result */
void td_deref(struct td_rb *b, unsigned fn, const uint64_t *a, CUresult r);
/* a module or library was unloaded: the kernels deref.c knows are stale */
void td_deref_forget(void);
/* the hello record: this process and its backend */
void td_shim_hello(void);
/* after a fork, in the child: a ring of its own */
void td_shim_atfork_child(void);

/* ---- rt.c: the CUDA runtime's calls (tdtrace --runtime) ---------------- */
/* the wrappers of the runtime's functions, by id - TD_FN__RT_FIRST
 * (generated: shim_rt_wrappers.c), and what runs each original (its
 * trampoline; NULL while not patched) */
extern void *const td_rt_wrappers[TD_FN__LIB_FIRST - TD_FN__RT_FIRST];
extern void *td_rt_real[TD_FN__LIB_FIRST - TD_FN__RT_FIRST];
/* nest.c: a runtime wrapper's start and the end of its call (then
 * td_leave records it): the nesting of the calls made inside */
void td_rt_enter(int fn, struct td_call *c);
void td_rt_pop(const struct td_call *c);
/* the policy's say on a runtime or library call after td_rt_enter: 1 to
 * run the original, or 0 with *r the value the call returns (deny,
 * inject; the rule's value is of the function's own status type) */
int td_rt_policy(struct td_call *c, const uint64_t *a, uint32_t *r);
/* the same for an undescribed library function's call, by its name */
int td_lib_policy(struct td_call *c, const char *name, _Atomic unsigned long long *count, uint32_t *r);
/* the nest item of the call being recorded: 1 and *n filled, or 0 */
int td_rt_nest(const struct td_call *c, struct td_nest *n);
/* rt.c, with TD_RING_RUNTIME: find the runtime and patch its functions' entries
 * (once); the warnings to report (lines), or NULL */
const char *td_rt_start(void);
/* the threads of this process, or -1 */
int td_nthreads(void);

/* ---- lib.c: other libraries' calls (tdtrace -e lib=PATTERN) ------------ */
/* patch the exported functions of the loaded libraries that match
 * TDTRACE_LIBS (at start; again after each dlopen: tdtrace_lib_rescan);
 * the warnings to report (lines), or NULL */
const char *td_lib_start(void);
/* a warning of the shim's for tdtrace to print (a TD_EV_WARNING record) */
void td_shim_warning(const char *text);

/* ---- the shim's own entry points --------------------------------------- */
/* every wrapper, by id (generated: shim_wrappers.c) */
extern void *const td_shim_fns[TD_FN__ENTRY_POINTS];
/* cuGetProcAddress (procaddr.c) and cuGetExportTable (exptab.c) */
void td_procaddr_register(void);
void td_exptab_register(void);
/* a traced stand-in for slot `slot` of the table uuid whose function is
 * target, or target itself (tramp.c) */
void *td_tramp_for(const unsigned char uuid[16], unsigned slot, void *target);

#endif
