/* The interposer (lib/tdtrace/libcuda.so.1): the runtime behind the
 * generated wrappers (shim_wrappers.c). Each wrapper packs its arguments
 * into u64s, asks td_enter whether to call the backend (the policy may
 * deny or inject), calls it, and hands the result to td_leave, which
 * writes one record into tdtrace's ring. */
#ifndef TD_SHIM_H
#define TD_SHIM_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "ring.h"

/* tdtrace's control area (read-only: flags, trace mask, policy) and the
 * area every traced process shares (the memory budget); NULL untraced */
extern const struct td_ctl *td_shim_ctl;
extern struct td_shared *td_shim_shared;

#define TD_EXPORT __attribute__((visibility("default")))
#define TD_PTR(x) ((uint64_t)(uintptr_t)(x))
#define TD_BLOB(x) td_blob8(&(x), sizeof(x))

struct td_call {
    uint64_t t0;
    int fn;
    int record;           /* tdtrace wants this call */
    uint8_t verdict, applied;
    uint32_t rule_line;
    const char *rule_file;
};

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

/* set when a policy is loaded: td_enter then consults it */
extern int td_shim_policy_active;
/* the functions tdtrace records (the ring's trace mask), or NULL untraced */
extern const uint8_t *td_shim_mask;

/* the policy's say on a call: 1 to call the backend, 0 if *r is decided */
int td_shim_policy(int fn, struct td_call *c, const uint64_t *a, CUresult *r);
/* after a call the policy watched: memory accounting, cuMemGetInfo */
void td_shim_policy_after(struct td_call *c, const uint64_t *a, CUresult r);
/* device rules: the program's ordinals are not the backend's */
extern int td_dev_mapped;
CUdevice td_dev_in(struct td_call *c, CUdevice visible);
CUdevice td_dev_out(CUdevice backend);
/* the policy in this process (shimpolicy.c) */
void td_shim_policy_init(void);
void td_shim_policy_fork_child(void);

static inline int td_enter(int fn, struct td_call *c, const uint64_t *a, CUresult *r)
{
    c->fn = fn;
    c->verdict = 0;
    c->applied = 0;
    c->rule_line = 0;
    c->rule_file = 0;
    c->record = td_shim_mask && (td_shim_mask[fn >> 3] >> (fn & 7) & 1);
    c->t0 = c->record ? td_now() : 0;
    if (__builtin_expect(td_shim_policy_active, 0))
        return td_shim_policy(fn, c, a, r);
    return 1;
}

/* the function the wrapper calls for fn: the backend's, or an override */
void *td_real(int fn);
/* result of a call the backend does not have */
CUresult td_missing(int fn);
/* record the call */
void td_leave(struct td_call *c, const uint64_t *a, CUresult r);

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
/* what fn's pointer arguments point to (structures, arrays, a launch's
 * kernel and arguments), into the record (deref.c); r: the call's result */
void td_deref(struct td_rb *b, unsigned fn, const uint64_t *a, CUresult r);
/* a module or library was unloaded: the kernels deref.c knows are stale */
void td_deref_forget(void);

/* every wrapper, by id (generated) */
extern void *const td_shim_fns[TD_FN__ENTRY_POINTS];

/* shim internals shared between its files */
void *td_backend_fn(int fn);
void td_set_backend_fn(int fn, void *p);
void *td_shim_override(int fn);
/* cuGetExportTable's override (exptab.c) */
void *td_exptab_override(void);
/* path of the real driver, as the loader would find it, skipping tdtrace's
 * own directories; 0 or -1 */
int td_find_driver(const char *own_dir, char *out, size_t outlen);

#endif
