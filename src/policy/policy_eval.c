/* SPDX-License-Identifier: Apache-2.0 */
/* Evaluation of one call against a policy, and the queries the supervisor
 * and the shim make at start. Everything here only reads the policy. */
#include "policy_int.h"
#include "drvver.h"

#include <string.h>

/* ---- which entry points allocate or free device memory: their rows say ---- */

int td_policy_is_alloc(int fn)
{
    if (fn < 0 || fn >= TD_FN__COUNT)
        return TD_ALLOC_NONE;
    const struct td_effect *e = &td_fn_effects[fn];
    return e->op == TD_EFF_ALLOC && td_alloc_is_device(e->kind) ? e->kind : TD_ALLOC_NONE;
}

int td_policy_is_free(int fn)
{
    if (fn < 0 || fn >= TD_FN__COUNT)
        return 0;
    const struct td_effect *e = &td_fn_effects[fn];
    return (e->op == TD_EFF_FREE || e->op == TD_EFF_TRIM) && td_alloc_is_device(e->kind);
}

/* ---- evaluation ------------------------------------------------------------------- */

static const struct pol_limit *limit_for(const struct td_policy *p, int device)
{
    const struct pol_limit *all = NULL;
    for (int i = 0; i < p->nlimits; i++) {
        if (device >= 0 && p->limits[i].device == device)
            return &p->limits[i];
        if (p->limits[i].device < 0)
            all = &p->limits[i];
    }
    return all;
}

static int when_matches(const struct pol_call *r, unsigned long long nth)
{
    return nth >= r->first && nth <= r->last && (nth - r->first) % r->step == 0;
}

void td_policy_eval(const struct td_policy *p, const struct td_call_ctx *c, struct td_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->action = TD_ACT_PASS;
    if (!p || !c || c->fn < 0 || c->fn >= TD_FN__COUNT)
        return;

    const struct pol_call *delay = NULL;
    int d = p->deny_for[c->fn];
    if (d >= 0) {
        const struct pol_call *r = &p->denies[d];
        v->action = TD_ACT_DENY;
        v->result = r->error;
        v->file = r->loc.file;
        v->line = r->loc.line;
        goto done;
    }
    if (p->require_driver && !td_drv_has(c->fn, p->require_driver)) {
        /* what cuGetProcAddress answers for a symbol the driver lacks */
        v->action = TD_ACT_DENY;
        v->result = CUDA_ERROR_NOT_FOUND;
        v->file = p->require_loc.file;
        v->line = p->require_loc.line;
        goto done;
    }
    int i = p->inject_for[c->fn];
    if (i >= 0 && when_matches(&p->injects[i], c->nth)) {
        const struct pol_call *r = &p->injects[i];
        if (r->has_error) {
            v->action = TD_ACT_INJECT;
            v->result = r->error;
            v->delay_ns = r->has_delay ? r->delay_ns : 0;
            v->file = r->loc.file;
            v->line = r->loc.line;
            goto done;
        }
        delay = r;
    }
    if (c->alloc_bytes && td_policy_is_alloc(c->fn)) {
        const struct pol_limit *l = limit_for(p, c->device);
        if (l && (c->in_use > l->bytes || c->alloc_bytes > l->bytes - c->in_use)) {
            v->action = TD_ACT_LIMIT;
            v->result = CUDA_ERROR_OUT_OF_MEMORY;
            v->file = l->loc.file;
            v->line = l->loc.line;
            goto done;
        }
    }
    if (delay) {
        v->action = TD_ACT_DELAY;
        v->delay_ns = delay->delay_ns;
        v->file = delay->loc.file;
        v->line = delay->loc.line;
    }
done:
    v->applied = v->action != TD_ACT_PASS && p->enforce;
}

/* the rule among r[0..n) that names LIB.name, the later one; -1 if none */
static int libname_rule(const struct pol_call *r, int n, const char *name)
{
    int found = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < r[i].nitems; j++)
            if (r[i].items[j].family == POL_ITEM_LIBNAME && strcmp(r[i].items[j].text + 4, name) == 0)
                found = i;
    return found;
}

void td_policy_eval_lib(const struct td_policy *p, const char *name, unsigned long long nth,
                        unsigned long long nth_all, struct td_verdict *v)
{
    struct td_call_ctx c = { TD_FN_LIB_call, nth_all, -1, 0, 0 };
    td_policy_eval(p, &c, v);
    if (!p || !p->nlibnames || !name || v->action == TD_ACT_DENY)
        return;
    const struct pol_call *r = NULL;
    int d = libname_rule(p->denies, p->ndenies, name), i = libname_rule(p->injects, p->ninjects, name);
    memset(v, 0, sizeof *v);
    v->action = TD_ACT_PASS;
    if (d >= 0) {
        r = &p->denies[d];
        v->action = TD_ACT_DENY;
        v->result = r->error;
    } else if (i >= 0) {
        r = &p->injects[i];
        if (!when_matches(r, nth))
            return; /* its own rule, which does not select this call */
        v->action = r->has_error ? TD_ACT_INJECT : TD_ACT_DELAY;
        v->result = r->has_error ? r->error : 0;
        v->delay_ns = r->has_delay ? r->delay_ns : 0;
    } else {
        struct td_call_ctx again = { TD_FN_LIB_call, nth_all, -1, 0, 0 };
        td_policy_eval(p, &again, v); /* no rule of its own: the class's */
        return;
    }
    v->file = r->loc.file;
    v->line = r->loc.line;
    v->applied = p->enforce;
}

/* ---- queries ----------------------------------------------------------------------- */

int td_policy_backend(const struct td_policy *p)
{
    return p ? p->backend : TD_BACKEND_AUTO;
}

int td_policy_enforce(const struct td_policy *p)
{
    return p ? p->enforce : 0;
}

int td_policy_acts_on_calls(const struct td_policy *p)
{
    return p && (p->ndenies || p->ninjects || p->nlimits || p->ndevs || p->require_driver);
}

static int names_in(const struct pol_call *r, int n, int first, int last, const char **name, const char **file,
                    int *line)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < r[i].nitems; j++)
            for (int f = first; r[i].items[j].family < 0 && f < last; f++)
                if (td_pol_item_has(&r[i].items[j], f) ||
                    (r[i].items[j].family == POL_ITEM_LIBNAME && f == TD_FN_LIB_call)) {
                    *name = r[i].items[j].text;
                    *file = r[i].loc.file;
                    *line = r[i].loc.line;
                    return 1;
                }
    return 0;
}

int td_policy_names_in(const struct td_policy *p, int first, int last, const char **name, const char **file,
                       int *line)
{
    if (!p || first < 0 || last > TD_FN__COUNT)
        return 0;
    return names_in(p->denies, p->ndenies, first, last, name, file, line) ||
           names_in(p->injects, p->ninjects, first, last, name, file, line);
}

void td_policy_emulate(const struct td_policy *p, struct td_emulate_cfg *out)
{
    memset(out, 0, sizeof *out);
    out->given = p ? p->emu_given : 0;
    out->devices = p ? p->emu_devices : 1;
    out->profile = td_pol_profiles[p ? p->emu_profile : 0];
    out->memory = p ? p->emu_memory : 0;
    out->timeout_ns = p ? p->emu_timeout_ns : 0;
    out->max_instructions = p ? p->emu_max_instructions : 0;
    out->driver = p ? p->emu_driver : 0;
    out->engine = td_pol_engines[p ? p->emu_engine : 0];
    if (p && p->emu_set) {
        out->file = p->emu_loc.file;
        out->line = p->emu_loc.line;
    }
}

int td_policy_require_driver(const struct td_policy *p, const char **file, int *line)
{
    if (file)
        *file = p && p->require_driver ? p->require_loc.file : NULL;
    if (line)
        *line = p && p->require_driver ? p->require_loc.line : 0;
    return p ? p->require_driver : 0;
}

size_t td_policy_device_rule_count(const struct td_policy *p)
{
    return p ? (size_t)p->ndevs : 0;
}

const struct td_device_rule *td_policy_device_rule(const struct td_policy *p, size_t i)
{
    return p && i < (size_t)p->ndevs ? &p->devs[i] : NULL;
}

int td_policy_device_map(const struct td_policy *p, int backend_count, int *map, int maxmap)
{
    int vis[TD_POLICY_MAX_DEVICES];
    int n = 0;
    if (backend_count > TD_POLICY_MAX_DEVICES)
        backend_count = TD_POLICY_MAX_DEVICES;
    for (int b = 0; b < backend_count; b++) {
        int hidden = 0;
        for (int i = 0; p && i < p->ndevs; i++)
            hidden |= p->devs[i].kind == TD_DEV_HIDE && p->devs[i].n == b;
        if (!hidden)
            vis[n++] = b;
    }
    for (int i = 0; p && i < p->ndevs; i++)
        if (p->devs[i].kind == TD_DEV_COUNT && p->devs[i].n < n)
            n = p->devs[i].n;
    for (int i = n; i < TD_POLICY_MAX_DEVICES; i++)
        vis[i] = -1;
    for (int i = 0; p && i < p->ndevs; i++) {
        const struct td_device_rule *d = &p->devs[i];
        if (d->kind != TD_DEV_REMAP)
            continue;
        vis[d->n] = d->m < backend_count ? d->m : -1;
        if (d->n >= n)
            n = d->n + 1;
    }
    for (int i = 0; map && i < n && i < maxmap; i++)
        map[i] = vis[i];
    return n;
}

unsigned long long td_policy_memory_limit(const struct td_policy *p, int device,
                                          const char **file, int *line)
{
    const struct pol_limit *l = p ? limit_for(p, device) : NULL;
    if (file)
        *file = l ? l->loc.file : NULL;
    if (line)
        *line = l ? l->loc.line : 0;
    return l ? l->bytes : 0;
}

const char *td_policy_trace(const struct td_policy *p)
{
    return p ? p->trace.s : NULL;
}

size_t td_policy_gpu_dev_count(const struct td_policy *p)
{
    return p ? (size_t)p->ngpudevs : 0;
}

const char *td_policy_gpu_dev(const struct td_policy *p, size_t i)
{
    return p && i < (size_t)p->ngpudevs ? p->gpudevs[i].s : NULL;
}

size_t td_policy_ioctl_deny_count(const struct td_policy *p)
{
    return p ? (size_t)p->nioctls : 0;
}

const struct td_ioctl_deny *td_policy_ioctl_deny(const struct td_policy *p, size_t i)
{
    return p && i < (size_t)p->nioctls ? &p->ioctls[i] : NULL;
}
