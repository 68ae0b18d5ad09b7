/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace --runtime: which CUDA runtime calls each thread is inside. Each
 * thread keeps the ids of the recorded runtime calls in progress (a
 * stack, TD_NEST_MAX deep; deeper calls are counted, not stacked); every
 * record made meanwhile carries a TD_IT_NEST item (shim.c asks
 * td_rt_nest). Also the table of what runs each patched runtime
 * function's original (rt.c fills it, the generated wrappers call it). */
#include "shim.h"

void *td_rt_real[TD_FN__LIB_FIRST - TD_FN__RT_FIRST];

struct rt_tls {
    uint32_t next;                  /* the last id given */
    uint32_t depth;                 /* runtime calls in progress (recorded ones) */
    uint32_t stack[TD_NEST_MAX];    /* their ids, outermost first */
};
static __thread struct rt_tls tls;

void td_rt_enter(int fn, struct td_call *c)
{
    const uint8_t *mask = __atomic_load_n(&td_shim_mask, __ATOMIC_RELAXED);
    c->fn = fn;
    c->verdict = 0;
    c->applied = 0;
    c->rule_line = 0;
    c->rule_file = 0;
    c->nest = 0;
    c->cupti = 0; /* runtime and library calls queue nothing themselves */
    c->quiet = 0;
    c->record = mask && (mask[fn >> 3] >> (fn & 7) & 1);
    c->rt_id = 0;
    c->rt_parent = tls.depth ? tls.stack[tls.depth < TD_NEST_MAX ? tls.depth - 1 : TD_NEST_MAX - 1] : 0;
    c->rt_depth = tls.depth;
    c->rt_pushed = 0;
    if (c->record) {
        if (++tls.next == 0)
            tls.next = 1;
        c->rt_id = tls.next;
        if (tls.depth < TD_NEST_MAX) {
            tls.stack[tls.depth] = c->rt_id;
            c->rt_pushed = 1;
        }
        tls.depth++;
    }
    c->t0 = c->record ? td_now() : 0;
}

void td_rt_pop(const struct td_call *c)
{
    if (c->rt_id)
        tls.depth--;
}

/* the verdict of a call that is not recorded (-e trace=) is not kept: a
 * record of it could not nest */
static int rt_verdict(struct td_call *c, int go, CUresult v, uint32_t *r)
{
    if (!c->rt_id)
        c->verdict = 0;
    if (!go)
        *r = (uint32_t)v;
    return go;
}

int td_rt_policy(struct td_call *c, const uint64_t *a, uint32_t *r)
{
    if (!__atomic_load_n(&td_shim_policy_active, __ATOMIC_RELAXED))
        return 1;
    CUresult v = CUDA_SUCCESS;
    int go = td_shim_policy(c->fn, c, a, &v);
    return rt_verdict(c, go, v, r);
}

int td_lib_policy(struct td_call *c, const char *name, _Atomic unsigned long long *count, uint32_t *r)
{
    if (!__atomic_load_n(&td_shim_policy_active, __ATOMIC_RELAXED))
        return 1;
    CUresult v = CUDA_SUCCESS;
    int go = td_shim_policy_lib(name, count, c, &v);
    return rt_verdict(c, go, v, r);
}

int td_rt_nest(const struct td_call *c, struct td_nest *n)
{
    if (c->fn >= TD_FN__RT_FIRST) {
        if (!c->rt_id)
            return 0;
        n->id = c->rt_id;
        n->parent = c->rt_parent;
        n->depth = c->rt_depth < TD_NEST_MAX ? c->rt_depth : TD_NEST_MAX;
    } else {
        if (!tls.depth)
            return 0;
        uint32_t d = tls.depth < TD_NEST_MAX ? tls.depth : TD_NEST_MAX;
        n->id = 0;
        n->parent = tls.stack[d - 1];
        n->depth = d;
    }
    n->pad = 0;
    return 1;
}

