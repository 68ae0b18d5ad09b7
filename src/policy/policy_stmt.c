/* SPDX-License-Identifier: Apache-2.0 */
/* The statements of a policy (man/tdtrace.policy.5), one function each,
 * and their values. Each statement checks its words, builds its rule
 * completely, checks it against the rules before it (conflicts), and only
 * then adds it, so a failed statement (or option) leaves the policy as it
 * was. At the end, each function's deny and inject rule is resolved. */
#include "policy_int.h"
#include "drvver.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ----------------------------------------------------------------- */

/* a decimal number in [0, max]; noun names it in messages */
static int parse_uint(struct pol_state *ps, const char *s, int col, unsigned long long max,
                      const char *noun, unsigned long long *out)
{
    unsigned long long v = 0;
    const char *art = strchr("aeiouAEIOU", noun[0]) ? "an" : "a";
    if (!isdigit((unsigned char)*s))
        return perr(ps, col, "expected %s %s, got '%s'", art, noun, s);
    for (const char *q = s; *q; q++) {
        if (!isdigit((unsigned char)*q))
            return perr(ps, col, "expected %s %s, got '%s'", art, noun, s);
        unsigned d = (unsigned)(*q - '0');
        if (v > (max - d) / 10 || v * 10 + d > max)
            return perr(ps, col, "%s '%s' out of range (0-%llu)", noun, s, max);
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int parse_ordinal(struct pol_state *ps, const char *s, int col, int *out)
{
    unsigned long long v;
    if (parse_uint(ps, s, col, TD_POLICY_MAX_DEVICES - 1, "device ordinal", &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_size(struct pol_state *ps, const char *s, int col, unsigned long long *out)
{
    const char *why;
    if (td_policy_parse_size(s, out, &why) == 0)
        return 0;
    if (strcmp(why, "invalid size") == 0)
        return perr(ps, col, "invalid size '%s' (bytes, or a number with K, M, G or T)", s);
    return perr(ps, col, "%s: '%s'", why, s);
}

static const char *xlat_get(const void *ctx, int i)
{
    return td_xlats[*(const int *)ctx].v[i].name;
}

/* the status types error= may name a value of, each once: CUresult (the
 * driver's), cudaError_t (the runtime's), then the libraries' (libs.api) */
static int status_types(int *xs, int max)
{
    int n = 0;
    xs[n++] = TD_X_CUresult;
    xs[n++] = TD_X_cudaError_t;
    for (int f = TD_FN__LIB_FIRST; f < TD_FN__COUNT; f++) {
        int x = td_pol_status_x(f), seen = x == TD_X_NONE;
        for (int i = 0; i < n && !seen; i++)
            seen = xs[i] == x;
        if (!seen && n < max)
            xs[n++] = x;
    }
    return n;
}

/* error=VALUE: a name of a status type (CUDA_ERROR_OUT_OF_MEMORY,
 * cudaErrorMemoryAllocation, CUBLAS_STATUS_NOT_SUPPORTED) or a number;
 * expect is the status type of the rule's first named function (CUresult
 * when it names only classes): the messages speak of it. Whether the value
 * fits each function is check_fit's. */
static int parse_result(struct pol_state *ps, const char *s, int col, int expect, struct pol_call *r)
{
    unsigned long long v;
    const char *tn = td_xlats[expect].name;
    r->has_error = 1;
    r->error_given = 1;
    r->error_x = TD_X_NONE;
    if (isdigit((unsigned char)*s)) {
        char what[80];
        snprintf(what, sizeof what, "%s number", tn);
        if (parse_uint(ps, s, col, INT_MAX, what, &v) < 0)
            return -1;
        if (v == 0) {
            const char *zero = td_xlat_name((enum td_xlat_id)expect, 0);
            return perr(ps, col, "%s is not an error", zero ? zero : "0");
        }
        r->error = (int)v;
        return 0;
    }
    int xs[64], nx = status_types(xs, 64);
    for (int i = 0; i < nx; i++)
        if (td_xlat_value((enum td_xlat_id)xs[i], s, &v) == 0) {
            if (v == 0)
                return perr(ps, col, "%s is not an error", s);
            r->error = (int)v;
            r->error_x = xs[i];
            return 0;
        }
    if (expect == TD_X_CUresult) {
        /* OUT_OF_MEMORY, ERROR_OUT_OF_MEMORY */
        static const char *const prefixes[] = { "CUDA_ERROR_", "CUDA_" };
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
            char buf[160];
            snprintf(buf, sizeof buf, "%s%s", prefixes[i], s);
            if (td_xlat_value(TD_X_CUresult, buf, &v) == 0 && v != 0) {
                const char *name = td_xlat_name(TD_X_CUresult, v);
                return td_pol_perr_dym(ps, col, name, "unknown CUresult '%s'", s);
            }
        }
    }
    struct pol_cands c = { xlat_get, &expect, td_xlats[expect].n };
    return td_pol_perr_dym(ps, col, td_pol_suggest(s, &c), "unknown %s '%s'", tn, s);
}

/* when=first[..last][+[step]] */
static int parse_when(struct pol_state *ps, const char *s, int col, struct pol_call *r)
{
    unsigned long long v[3] = { 0, 0, 1 };
    int have_last = 0, plus = 0;
    const char *q = s;
    for (int k = 0; k < 3; k++) {
        if (k == 1) {
            if (strncmp(q, "..", 2) != 0)
                continue;
            q += 2;
            have_last = 1;
        } else if (k == 2) {
            if (*q != '+')
                break;
            q++;
            plus = 1;
            if (!*q)
                break;
        }
        if (!isdigit((unsigned char)*q))
            return perr(ps, col, "invalid when= '%s' (first[..last][+step])", s);
        unsigned long long n = 0;
        for (; isdigit((unsigned char)*q); q++) {
            unsigned d = (unsigned)(*q - '0');
            if (n > (~0ULL - 1 - d) / 10)
                return perr(ps, col, "when=: number out of range in '%s'", s);
            n = n * 10 + d;
        }
        v[k] = n;
    }
    if (*q)
        return perr(ps, col, "invalid when= '%s' (first[..last][+step])", s);
    if (v[0] == 0)
        return perr(ps, col, "when=: calls are counted from 1, got '%s'", s);
    if (have_last && v[1] < v[0])
        return perr(ps, col, "when=: last call %llu is before first call %llu", v[1], v[0]);
    if (v[2] == 0)
        return perr(ps, col, "when=: step must be at least 1");
    r->first = v[0];
    r->last = have_last ? v[1] : plus ? POL_UNBOUNDED : v[0];
    r->step = v[2];
    r->has_when = 1;
    return 0;
}

/* word "key=value": which of keys (index), and the value; seen catches repeats */
static int parse_kv(struct pol_state *ps, const struct pol_tok *t, const char *const *keys,
                    const char *what, unsigned *seen, int *key, const char **val)
{
    char *eq = strchr(t->s, '=');
    if (!eq)
        return perr(ps, t->col, "expected KEY=VALUE for %s, got '%s'", what, t->s);
    *eq = 0;
    for (int i = 0; keys[i]; i++) {
        if (strcmp(keys[i], t->s) != 0)
            continue;
        if (*seen & (1u << i))
            return perr(ps, t->col, "'%s' given twice", keys[i]);
        if (!eq[1])
            return perr(ps, t->col, "missing value after '%s='", keys[i]);
        *seen |= 1u << i;
        *key = i;
        *val = eq + 1;
        return 0;
    }
    return td_pol_perr_dym(ps, t->col, td_pol_suggest_list(t->s, keys), "unknown %s option '%s'", what, t->s);
}

static int one_arg(struct pol_state *ps, const struct pol_tok *t, int n, const char *expects)
{
    if (n < 2)
        return perr(ps, t[0].col, "'%s' expects %s", t[0].s, expects);
    if (n > 2)
        return perr(ps, t[2].col, "unexpected '%s' after '%s %s'", t[2].s, t[0].s, t[1].s);
    return 0;
}

/* ---- statements --------------------------------------------------------------- */

static const char *const modes[] = { "audit", "enforce", NULL };

static int st_mode(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct td_policy *p = ps->p;
    if (one_arg(ps, t, n, "audit or enforce") < 0)
        return -1;
    int m = strcmp(t[1].s, "audit") == 0 ? 0 : strcmp(t[1].s, "enforce") == 0 ? 1 : -1;
    if (m < 0)
        return td_pol_perr_dym(ps, t[1].col, td_pol_suggest_list(t[1].s, modes),
                        "unknown mode '%s' (audit or enforce)", t[1].s);
    if (p->mode_set && !ps->cli)
        return td_pol_conflict(ps, t[0].col, "'mode'", &p->mode_loc);
    p->enforce = m;
    p->mode_set = 1;
    p->mode_loc = td_pol_here(ps);
    return 0;
}

static int st_backend(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct td_policy *p = ps->p;
    char list[64];
    td_policy_backend_list(list, sizeof list, NULL);
    if (one_arg(ps, t, n, list) < 0)
        return -1;
    int b = td_policy_backend_find(t[1].s);
    if (b < 0)
        return td_pol_perr_dym(ps, t[1].col, td_pol_suggest_list(t[1].s, td_pol_backends),
                        "unknown backend '%s' (%s)", t[1].s, list);
    if (p->backend_set && !ps->cli)
        return td_pol_conflict(ps, t[0].col, "'backend'", &p->backend_loc);
    p->backend = b;
    p->backend_set = 1;
    p->backend_loc = td_pol_here(ps);
    return 0;
}

static int st_emulate(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const keys[] = { "devices", "profile", "memory", "timeout", "max-instructions",
                                        "driver", "engine", NULL };
    struct td_policy *p = ps->p;
    int devices = p->emu_devices, profile = p->emu_profile;
    unsigned long long memory = p->emu_memory, v;
    unsigned long long timeout = p->emu_timeout_ns, maxins = p->emu_max_instructions;
    int driver = p->emu_driver, engine = p->emu_engine;
    unsigned seen = 0, given = p->emu_given;
    if (p->emu_set && !ps->cli)
        return td_pol_conflict(ps, t[0].col, "'emulate'", &p->emu_loc);
    for (int i = 1; i < n; i++) {
        int k;
        const char *val;
        if (parse_kv(ps, &t[i], keys, "emulate", &seen, &k, &val) < 0)
            return -1;
        int col = t[i].col + (int)(val - t[i].s);
        given |= 1u << k; /* TD_EMU_GIVEN_* in the order of keys */
        if (k == 0) {
            if (parse_uint(ps, val, col, TD_POLICY_MAX_DEVICES, "device count", &v) < 0)
                return -1;
            if (v == 0)
                return perr(ps, col, "devices= must be 1-%d", TD_POLICY_MAX_DEVICES);
            devices = (int)v;
        } else if (k == 1) {
            if ((profile = td_pol_profile_find(val)) < 0) {
                char list[128];
                td_pol_profile_list(list, sizeof list);
                return td_pol_perr_dym(ps, col, td_pol_suggest_list(val, td_pol_profiles),
                                "unknown profile '%s' (%s)", val, list);
            }
        } else if (k == 2) {
            if (parse_size(ps, val, col, &memory) < 0)
                return -1;
            if (memory == 0)
                return perr(ps, col, "memory= must be more than 0");
        } else if (k == 3) { /* a unit is required: a bare number is microseconds elsewhere */
            const char *why;
            size_t vl = strlen(val);
            if (!vl || !((val[vl - 1] >= 'a' && val[vl - 1] <= 'z')))
                return perr(ps, col, "timeout= needs a unit (30s, 500ms)");
            if (td_policy_parse_duration(val, &timeout, &why) < 0)
                return perr(ps, col, "timeout=%s: %s", val, why);
        } else if (k == 4) {
            if (parse_uint(ps, val, col, ~0ULL, "instruction count", &maxins) < 0)
                return -1;
        } else if (k == 5) {
            char why[160];
            if (td_drv_parse(val, &driver, why, sizeof why) < 0)
                return perr(ps, col, "%s", why);
        } else {
            for (engine = 0; td_pol_engines[engine] && strcmp(td_pol_engines[engine], val); engine++) {}
            if (!td_pol_engines[engine])
                return td_pol_perr_dym(ps, col, td_pol_suggest_list(val, td_pol_engines),
                                       "unknown engine '%s' (interp, jit or auto)", val);
        }
    }
    p->emu_set = 1;
    p->emu_given = given;
    p->emu_devices = devices;
    p->emu_profile = profile;
    p->emu_memory = memory;
    p->emu_timeout_ns = timeout;
    p->emu_max_instructions = maxins;
    p->emu_driver = driver;
    p->emu_engine = engine;
    p->emu_loc = td_pol_here(ps);
    if (ps->cli) { /* --emulate means backend emulate */
        p->backend = TD_BACKEND_EMULATE;
        p->backend_set = 1;
        p->backend_loc = td_pol_here(ps);
    }
    return 0;
}

/* require driver=VERSION: calls of entry points a driver of that release
 * lacks are marked (audit) or fail (enforce) */
static int st_require(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const keys[] = { "driver", NULL };
    struct td_policy *p = ps->p;
    if (n < 2)
        return perr(ps, t[0].col, "'require' expects driver=VERSION");
    if (p->require_driver && !ps->cli)
        return td_pol_conflict(ps, t[0].col, "'require'", &p->require_loc);
    unsigned seen = 0;
    int driver = 0;
    for (int i = 1; i < n; i++) {
        int k;
        const char *val;
        if (parse_kv(ps, &t[i], keys, "require", &seen, &k, &val) < 0)
            return -1;
        char why[160];
        if (td_drv_parse(val, &driver, why, sizeof why) < 0)
            return perr(ps, t[i].col + (int)(val - t[i].s), "%s", why);
    }
    p->require_driver = driver;
    p->require_loc = td_pol_here(ps);
    return 0;
}

static const struct td_device_rule *find_dev(const struct td_policy *p, enum td_dev_kind kind, int n, int m)
{
    for (int i = 0; i < p->ndevs; i++) {
        const struct td_device_rule *d = &p->devs[i];
        if (d->kind == kind && (n < 0 || d->n == n) && (m < 0 || d->m == m))
            return d;
    }
    return NULL;
}

static int add_dev(struct pol_state *ps, enum td_dev_kind kind, int n, int m)
{
    struct td_policy *p = ps->p;
    struct td_device_rule *a = td_pol_grow(p->devs, p->ndevs, sizeof *a);
    if (!a)
        return p->ndevs >= POL_MAX_RULES ? perr(ps, 0, "too many device rules") : td_pol_oom(ps);
    p->devs = a;
    a[p->ndevs].kind = kind;
    a[p->ndevs].n = n;
    a[p->ndevs].m = m;
    a[p->ndevs].file = ps->file;
    a[p->ndevs].line = ps->line;
    p->ndevs++;
    return 0;
}

static int dev_conflict(struct pol_state *ps, int col, const char *what, const struct td_device_rule *d)
{
    struct pol_loc l = { d->file, d->line };
    return td_pol_conflict(ps, col, what, &l);
}

/* device N hide | device N -> M (also N->M, N ->M, N-> M) */
static int st_device(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct pol_tok w[6];
    int nw = 0;
    /* split words at "->" */
    for (int i = 1; i < n; i++) {
        char *s = t[i].s;
        while (*s) {
            char *arrow = strstr(s, "->");
            if (nw >= 5)
                return perr(ps, t[i].col + (int)(s - t[i].s), "unexpected '%s'", s);
            if (arrow != s) {
                w[nw].s = s;
                w[nw++].col = t[i].col + (int)(s - t[i].s);
                if (!arrow)
                    break;
                *arrow = 0; /* ends the word before it */
                if (nw >= 5)
                    return perr(ps, t[i].col + (int)(arrow - t[i].s), "unexpected '->'");
            }
            w[nw].s = (char *)"->";
            w[nw++].col = t[i].col + (int)(arrow - t[i].s);
            s = arrow + 2;
        }
    }
    if (nw == 0)
        return perr(ps, t[0].col, "'device' expects N hide or N -> M");
    int dn, dm;
    if (parse_ordinal(ps, w[0].s, w[0].col, &dn) < 0)
        return -1;
    char what[64];
    if (nw == 1)
        return perr(ps, w[0].col, "expected 'hide' or '-> M' after 'device %d'", dn);
    if (strcmp(w[1].s, "hide") == 0) {
        if (nw > 2)
            return perr(ps, w[2].col, "unexpected '%s' after 'device %d hide'", w[2].s, dn);
        snprintf(what, sizeof what, "'device %d hide'", dn);
        const struct td_device_rule *d;
        if ((d = find_dev(ps->p, TD_DEV_HIDE, dn, -1)) || (d = find_dev(ps->p, TD_DEV_REMAP, dn, -1)) ||
            (d = find_dev(ps->p, TD_DEV_REMAP, -1, dn)))
            return dev_conflict(ps, t[0].col, what, d);
        return add_dev(ps, TD_DEV_HIDE, dn, -1);
    }
    if (strcmp(w[1].s, "->") != 0) {
        static const char *const words[] = { "hide", NULL };
        return td_pol_perr_dym(ps, w[1].col, td_pol_suggest_list(w[1].s, words),
                        "expected 'hide' or '-> M' after 'device %d', got '%s'", dn, w[1].s);
    }
    if (nw < 3)
        return perr(ps, w[1].col, "expected a device ordinal after '->'");
    if (parse_ordinal(ps, w[2].s, w[2].col, &dm) < 0)
        return -1;
    if (nw > 3)
        return perr(ps, w[3].col, "unexpected '%s' after 'device %d -> %d'", w[3].s, dn, dm);
    snprintf(what, sizeof what, "'device %d -> %d'", dn, dm);
    const struct td_device_rule *d;
    if ((d = find_dev(ps->p, TD_DEV_REMAP, dn, -1)) || (d = find_dev(ps->p, TD_DEV_HIDE, dn, -1)) ||
        (d = find_dev(ps->p, TD_DEV_HIDE, dm, -1)))
        return dev_conflict(ps, t[0].col, what, d);
    return add_dev(ps, TD_DEV_REMAP, dn, dm);
}

static int st_devices(struct pol_state *ps, struct pol_tok *t, int n)
{
    unsigned long long k;
    if (one_arg(ps, t, n, "a device count") < 0)
        return -1;
    if (parse_uint(ps, t[1].s, t[1].col, TD_POLICY_MAX_DEVICES, "device count", &k) < 0)
        return -1;
    const struct td_device_rule *d = find_dev(ps->p, TD_DEV_COUNT, -1, -1);
    if (d)
        return dev_conflict(ps, t[0].col, "'devices'", d);
    return add_dev(ps, TD_DEV_COUNT, (int)k, -1);
}

static int st_memlimit(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const keys[] = { "device", NULL };
    struct td_policy *p = ps->p;
    unsigned long long bytes;
    int device = -1;
    unsigned seen = 0;
    if (n < 2)
        return perr(ps, t[0].col, "'memory-limit' expects a size");
    if (parse_size(ps, t[1].s, t[1].col, &bytes) < 0)
        return -1;
    if (bytes == 0)
        return perr(ps, t[1].col, "memory limit must be more than 0");
    for (int i = 2; i < n; i++) {
        int k;
        const char *val;
        if (parse_kv(ps, &t[i], keys, "memory-limit", &seen, &k, &val) < 0)
            return -1;
        if (parse_ordinal(ps, val, t[i].col + (int)(val - t[i].s), &device) < 0)
            return -1;
    }
    for (int i = 0; i < p->nlimits; i++) {
        if (p->limits[i].device != device)
            continue;
        if (!ps->cli) {
            char what[64];
            if (device < 0)
                snprintf(what, sizeof what, "'memory-limit'");
            else
                snprintf(what, sizeof what, "'memory-limit' for device %d", device);
            return td_pol_conflict(ps, t[0].col, what, &p->limits[i].loc);
        }
        p->limits[i].bytes = bytes;
        p->limits[i].loc = td_pol_here(ps);
        return 0;
    }
    struct pol_limit *a = td_pol_grow(p->limits, p->nlimits, sizeof *a);
    if (!a)
        return p->nlimits >= POL_MAX_RULES ? perr(ps, 0, "too many memory-limit rules") : td_pol_oom(ps);
    p->limits = a;
    a[p->nlimits].device = device;
    a[p->nlimits].bytes = bytes;
    a[p->nlimits].loc = td_pol_here(ps);
    p->nlimits++;
    return 0;
}

static const char *fn_get(const void *ctx, int i)
{
    (void)ctx;
    return td_fns[i].name;
}

static const char *class_get(const void *ctx, int i)
{
    (void)ctx;
    return td_family_name(i);
}

static int fn_known(const char *name)
{
    if (td_api_find(name) >= 0)
        return 1;
    for (int f = 0; f < TD_FN__COUNT; f++)
        if (td_pol_variant_of(td_fns[f].name, name))
            return 1;
    return 0;
}

static int check_class(struct pol_state *ps, const char *name, int col, int *fam)
{
    if ((*fam = td_family_find(name)) >= 0)
        return 0;
    struct pol_cands c = { class_get, NULL, TD_FAM__COUNT };
    const char *s = td_pol_suggest(name, &c);
    char sugg[64];
    if (s)
        snprintf(sugg, sizeof sugg, "%%%s", s);
    return td_pol_perr_dym(ps, col, s ? sugg : NULL, "unknown class '%%%s'", name);
}

/* LIB.NAME: an undescribed library function (-e lib=) by its own name,
 * which no table has: a C identifier (or a C++ mangled name) */
static int check_libname(struct pol_state *ps, const char *name, int col)
{
    const char *n = name + 4;
    size_t len = strlen(n);
    if (len == 0 || len > POL_LIBNAME_MAX)
        return perr(ps, col, "'%s': LIB. needs a library function's name (1 to %d characters)", name,
                    POL_LIBNAME_MAX);
    for (size_t i = 0; i < len; i++)
        if (!(isalnum((unsigned char)n[i]) || n[i] == '_' || (i && (n[i] == '.' || n[i] == '$'))))
            return perr(ps, col + 4 + (int)i, "'%s': invalid character in a function name", name);
    if (td_api_find(n) >= 0)
        return perr(ps, col, "'%s' is a function of tdtrace's tables: name it as '%s'", name, n);
    return 0;
}

static int check_fn(struct pol_state *ps, const char *name, int col)
{
    if (fn_known(name))
        return 0;
    if (strncmp(name, "LIB.", 4) == 0)
        return check_libname(ps, name, col);
    struct pol_cands c = { fn_get, NULL, TD_FN__COUNT };
    return td_pol_perr_dym(ps, col, td_pol_suggest(name, &c), "unknown function '%s'", name);
}

/* NAME[,NAME...] with %class */
static int parse_targets(struct pol_state *ps, const struct pol_tok *t, struct pol_call *r)
{
    const char *s = t->s;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        int col = t->col + (int)(s - t->s);
        if (len == 0)
            return perr(ps, col, "empty name in '%s'", t->s);
        if (r->nitems >= 64)
            return perr(ps, col, "too many names in one rule (at most 64)");
        struct pol_item it = { strndup(s, len), -1, col };
        if (!it.text)
            return td_pol_oom(ps);
        int rc = it.text[0] == '%' ? check_class(ps, it.text + 1, col, &it.family)
                                   : check_fn(ps, it.text, col);
        if (rc == 0 && !fn_known(it.text) && strncmp(it.text, "LIB.", 4) == 0)
            it.family = POL_ITEM_LIBNAME;
        for (int i = 0; rc == 0 && i < r->nitems; i++)
            if (strcmp(r->items[i].text, it.text) == 0)
                rc = perr(ps, col, "'%s' listed twice", it.text);
        struct pol_item *a = rc == 0 ? realloc(r->items, sizeof *a * (size_t)(r->nitems + 1)) : NULL;
        if (rc == 0 && !a)
            rc = td_pol_oom(ps);
        if (rc < 0) {
            free(it.text);
            return -1;
        }
        r->items = a;
        r->items[r->nitems++] = it;
        if (!end)
            return 0;
        s = end + 1;
    }
}

/* the status type of the rule's first named function, for error='s
 * messages (CUresult when it names only classes) */
static int expect_x(const struct pol_call *r)
{
    for (int j = 0; j < r->nitems; j++)
        for (int f = 0; r->items[j].family < 0 && f < TD_FN__COUNT; f++)
            if (td_pol_item_has(&r->items[j], f)) {
                int x = td_pol_status_x(f);
                return x == TD_X_NONE ? TD_X_CUresult : x;
            }
    return TD_X_CUresult;
}

/* each target can take the rule's value: a named function's status type
 * must have error='s name (a number fits any), a class must hold a
 * function whose type has it; a deny without error= names no library
 * function (their status types have no 'not permitted') */
static int check_fit(struct pol_state *ps, const struct pol_call *r, int is_deny, const char *kw, int ecol)
{
    for (int j = 0; j < r->nitems; j++) {
        const struct pol_item *it = &r->items[j];
        if (it->family == POL_ITEM_LIBNAME) { /* a raw result: a number, or a delay */
            if (!r->error_given && is_deny)
                return perr(ps, it->col, "'%s %s' needs error= (a number: its result is a raw value)", kw, it->text);
            if (r->error_given && r->error_x != TD_X_NONE)
                return perr(ps, ecol, "%s is not a value of %s's result (a raw value: give a number)",
                            td_xlat_name((enum td_xlat_id)r->error_x, (unsigned long long)r->error), it->text);
            continue;
        }
        int any = 0, fits = 0, first = -1;
        for (int f = 0; f < TD_FN__COUNT && !fits; f++) {
            if (!td_pol_item_has(it, f))
                continue;
            any = 1;
            if (first < 0)
                first = f;
            fits = td_pol_rule_fits(r, is_deny, f);
        }
        if (!any || fits)
            continue;
        int sx = td_pol_status_x(first);
        const char *tn = sx == TD_X_NONE ? "raw value" : td_xlats[sx].name;
        if (!r->error_given && it->family >= 0)
            return perr(ps, it->col, "'%s %s' needs error= (its functions return their libraries' status types)",
                        kw, it->text);
        if (!r->error_given)
            return perr(ps, it->col, "'%s %s' needs error= (a %s, what %s returns)", kw, it->text, tn,
                        td_fns[first].name);
        const char *given = td_xlat_name((enum td_xlat_id)r->error_x, (unsigned long long)r->error);
        if (it->family >= 0)
            return perr(ps, ecol, "no function of %s returns a %s", it->text, td_xlats[r->error_x].name);
        if (sx == TD_X_NONE)
            return perr(ps, ecol, "%s is not a value of %s's result (a raw value: give a number)", given,
                        td_fns[first].name);
        return perr(ps, ecol, "%s is not a %s (what %s returns)", given, tn, td_fns[first].name);
    }
    return 0;
}

/* the rule is complete: check it against the earlier ones and add it */
static int add_call(struct pol_state *ps, const char *kind, struct pol_call **arr, int *n,
                    struct pol_call *r)
{
    int total = r->nitems;
    for (int i = 0; i < *n; i++)
        total += (*arr)[i].nitems;
    if (total > POL_MAX_RULES)
        return perr(ps, 0, "too many names in %s rules (at most %d)", kind, POL_MAX_RULES);
    for (int i = 0; i < *n; i++) {
        struct pol_call *o = &(*arr)[i];
        for (int j = 0; j < r->nitems; j++)
            for (int k = 0; k < o->nitems; k++) {
                if (strcmp(o->items[k].text, r->items[j].text) != 0)
                    continue;
                if (!ps->cli) {
                    char what[192];
                    snprintf(what, sizeof what, "'%s %s'", kind, r->items[j].text);
                    return td_pol_conflict(ps, r->items[j].col, what, &o->loc);
                }
            }
    }
    struct pol_call *a = td_pol_grow(*arr, *n, sizeof *a);
    if (!a)
        return *n >= POL_MAX_RULES ? perr(ps, 0, "too many %s rules", kind) : td_pol_oom(ps);
    *arr = a;
    if (ps->cli) { /* the option replaces what it names in earlier rules */
        for (int i = 0; i < *n; i++) {
            struct pol_call *o = &a[i];
            for (int k = 0; k < o->nitems;) {
                int dup = 0;
                for (int j = 0; j < r->nitems; j++)
                    dup |= strcmp(o->items[k].text, r->items[j].text) == 0;
                if (dup) {
                    free(o->items[k].text);
                    o->items[k] = o->items[--o->nitems];
                } else {
                    k++;
                }
            }
        }
        int w = 0;
        for (int i = 0; i < *n; i++) {
            if (a[i].nitems == 0)
                td_pol_free_call(&a[i]);
            else
                a[w++] = a[i];
        }
        *n = w;
    }
    a[*n] = *r;
    (*n)++;
    return 0;
}

static int st_deny(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const keys[] = { "error", NULL };
    struct pol_call r;
    memset(&r, 0, sizeof r);
    r.loc = td_pol_here(ps);
    r.has_error = 1;
    r.error = CUDA_ERROR_NOT_PERMITTED;
    unsigned seen = 0;
    int rc = 0, ecol = 0;
    if (n < 2)
        rc = perr(ps, t[0].col, "'deny' expects a function name or %%class");
    else
        rc = parse_targets(ps, &t[1], &r);
    for (int i = 2; rc == 0 && i < n; i++) {
        int k;
        const char *val;
        rc = parse_kv(ps, &t[i], keys, "deny", &seen, &k, &val);
        if (rc == 0) {
            ecol = t[i].col + (int)(val - t[i].s);
            rc = parse_result(ps, val, ecol, expect_x(&r), &r);
        }
    }
    if (rc == 0)
        rc = check_fit(ps, &r, 1, "deny", ecol);
    if (rc == 0 && (rc = add_call(ps, "deny", &ps->p->denies, &ps->p->ndenies, &r)) == 0)
        return 0;
    td_pol_free_call(&r);
    return -1;
}

static int st_inject(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const keys[] = { "error", "when", "delay", NULL };
    struct pol_call r;
    memset(&r, 0, sizeof r);
    r.loc = td_pol_here(ps);
    r.first = 1;
    r.last = POL_UNBOUNDED;
    r.step = 1;
    unsigned seen = 0;
    int rc = 0, ecol = 0;
    if (n < 2)
        rc = perr(ps, t[0].col, "'inject' expects a function name or %%class");
    else
        rc = parse_targets(ps, &t[1], &r);
    for (int i = 2; rc == 0 && i < n; i++) {
        int k;
        const char *val, *why;
        rc = parse_kv(ps, &t[i], keys, "inject", &seen, &k, &val);
        if (rc < 0)
            break; /* val is not set: no column from it */
        int col = t[i].col + (int)(val - t[i].s);
        if (k == 0) {
            ecol = col;
            rc = parse_result(ps, val, col, expect_x(&r), &r);
        } else if (k == 1) {
            rc = parse_when(ps, val, col, &r);
        } else if (td_policy_parse_duration(val, &r.delay_ns, &why) < 0) {
            rc = strcmp(why, "invalid duration") == 0
                     ? perr(ps, col, "invalid duration '%s' (a number with ns, us, ms or s)", val)
                     : perr(ps, col, "%s: '%s'", why, val);
        } else {
            r.has_delay = 1;
        }
    }
    if (rc == 0 && !r.has_error && !r.has_delay)
        rc = perr(ps, t[0].col, "'inject' needs error= or delay=");
    if (rc == 0)
        rc = check_fit(ps, &r, 0, "inject", ecol);
    if (rc == 0 && (rc = add_call(ps, "inject", &ps->p->injects, &ps->p->ninjects, &r)) == 0)
        return 0;
    td_pol_free_call(&r);
    return -1;
}

/* strace's -e trace= set: [!]item[,item...]; item: name, %class, /regex,
 * all, none; ?item does not need to exist */
static int st_trace(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct td_policy *p = ps->p;
    if (one_arg(ps, t, n, "a set of functions (strace -e trace= syntax)") < 0)
        return -1;
    char *s = t[1].s;
    if (*s == '!')
        s++;
    for (;;) {
        char *end = strchr(s, ',');
        if (end)
            *end = 0;
        int col = t[1].col + (int)(s - t[1].s);
        const char *item = s;
        int optional = *item == '?';
        if (optional)
            item++;
        if (!*item) {
            if (end)
                *end = ',';
            return perr(ps, col, "empty item in trace set");
        }
        int rc = 0, fam;
        if (*item == '/') {
            regex_t re;
            char buf[400];
            if (td_regex_compile(&re, item + 1, REG_EXTENDED | REG_NOSUB, buf, sizeof buf) < 0)
                rc = perr(ps, col, "%s", buf);
            else
                regfree(&re);
        } else if (*item == '%') {
            if (strcmp(item + 1, "all") != 0)
                rc = check_class(ps, item + 1, col, &fam);
        } else if (strcmp(item, "all") != 0 && strcmp(item, "none") != 0 && !optional) {
            rc = check_fn(ps, item, col);
        }
        if (end)
            *end = ',';
        if (rc < 0)
            return -1;
        if (!end)
            break;
        s = end + 1;
    }
    if (p->trace.s && !ps->cli)
        return td_pol_conflict(ps, t[0].col, "'trace'", &p->trace.loc);
    char *copy = strdup(t[1].s);
    if (!copy)
        return td_pol_oom(ps);
    free(p->trace.s);
    p->trace.s = copy;
    p->trace.loc = td_pol_here(ps);
    return 0;
}

static int st_gpudev(struct pol_state *ps, struct pol_tok *t, int n)
{
    struct td_policy *p = ps->p;
    if (one_arg(ps, t, n, "a device node glob such as /dev/nvidia*") < 0)
        return -1;
    if (t[1].s[0] != '/')
        return perr(ps, t[1].col, "'gpu-dev' expects an absolute path or glob, got '%s'", t[1].s);
    for (int i = 0; i < p->ngpudevs; i++)
        if (strcmp(p->gpudevs[i].s, t[1].s) == 0) {
            if (ps->cli)
                return 0;
            char what[300];
            snprintf(what, sizeof what, "'gpu-dev %s'", t[1].s);
            return td_pol_conflict(ps, t[0].col, what, &p->gpudevs[i].loc);
        }
    struct pol_str *a = td_pol_grow(p->gpudevs, p->ngpudevs, sizeof *a);
    if (!a)
        return p->ngpudevs >= POL_MAX_RULES ? perr(ps, 0, "too many gpu-dev rules") : td_pol_oom(ps);
    p->gpudevs = a;
    if (!(a[p->ngpudevs].s = strdup(t[1].s)))
        return td_pol_oom(ps);
    a[p->ngpudevs].loc = td_pol_here(ps);
    p->ngpudevs++;
    return 0;
}

static int ioctl_target(struct pol_state *ps, const struct pol_tok *t, struct td_ioctl_deny *d)
{
    const char *s = t->s;
    if (isdigit((unsigned char)*s)) {
        unsigned long long v = 0;
        int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        const char *q = hex ? s + 2 : s;
        if (!*q)
            return perr(ps, t->col, "invalid ioctl number '%s'", s);
        for (; *q; q++) {
            int dv = isdigit((unsigned char)*q) ? *q - '0'
                     : hex && isxdigit((unsigned char)*q) ? tolower((unsigned char)*q) - 'a' + 10 : -1;
            if (dv < 0)
                return perr(ps, t->col, "invalid ioctl number '%s'", s);
            v = v * (hex ? 16 : 10) + (unsigned)dv;
            if (v > 0xffffffffULL)
                return perr(ps, t->col, "ioctl number '%s' out of range (at most 0xffffffff)", s);
        }
        d->number = (unsigned long)v;
        return 0;
    }
    if (!(isupper((unsigned char)*s) || *s == '_'))
        return perr(ps, t->col, "invalid ioctl '%s' (a name like NV_ESC_RM_CONTROL, or a number)", s);
    for (const char *q = s; *q; q++)
        if (!(isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_'))
            return perr(ps, t->col, "invalid ioctl '%s' (a name like NV_ESC_RM_CONTROL, or a number)", s);
    if (!(d->name = strdup(s)))
        return td_pol_oom(ps);
    return 0;
}

static int parse_errno(struct pol_state *ps, const char *s, int col, int *out)
{
    if (isdigit((unsigned char)*s)) {
        unsigned long long v;
        if (parse_uint(ps, s, col, 4095, "errno", &v) < 0)
            return -1;
        if (v == 0)
            return perr(ps, col, "errno must be 1-4095");
        *out = (int)v;
        return 0;
    }
    if ((*out = td_pol_errno_find(s)) > 0)
        return 0;
    return td_pol_perr_dym(ps, col, td_pol_errno_suggest(s), "unknown errno '%s'", s);
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int st_ioctl(struct pol_state *ps, struct pol_tok *t, int n)
{
    static const char *const actions[] = { "deny", NULL };
    static const char *const keys[] = { "errno", "dev", NULL };
    struct td_policy *p = ps->p;
    struct td_ioctl_deny d;
    memset(&d, 0, sizeof d);
    d.err = EPERM;
    d.file = ps->file;
    d.line = ps->line;
    unsigned seen = 0;
    int rc = 0;
    if (n < 2)
        return perr(ps, t[0].col, "'ioctl' expects deny NAME|NUMBER");
    if (strcmp(t[1].s, "deny") != 0)
        return td_pol_perr_dym(ps, t[1].col, td_pol_suggest_list(t[1].s, actions),
                        "unknown ioctl action '%s' (deny)", t[1].s);
    if (n < 3)
        return perr(ps, t[1].col, "'ioctl deny' expects an ioctl name or number");
    if (ioctl_target(ps, &t[2], &d) < 0)
        return -1;
    for (int i = 3; rc == 0 && i < n; i++) {
        int k;
        const char *val;
        rc = parse_kv(ps, &t[i], keys, "ioctl deny", &seen, &k, &val);
        if (rc < 0)
            break; /* val is not set: no column from it */
        int col = t[i].col + (int)(val - t[i].s);
        if (k == 0) {
            rc = parse_errno(ps, val, col, &d.err);
        } else if (val[0] != '/') {
            rc = perr(ps, col, "dev= expects an absolute path or glob, got '%s'", val);
        } else {
            free((char *)d.dev);
            if (!(d.dev = strdup(val)))
                rc = td_pol_oom(ps);
        }
    }
    for (int i = 0; rc == 0 && i < p->nioctls; i++) {
        struct td_ioctl_deny *o = &p->ioctls[i];
        if (!same_str(o->name, d.name) || (!d.name && o->number != d.number) || !same_str(o->dev, d.dev))
            continue;
        if (ps->cli) { /* replace */
            free((char *)o->name);
            free((char *)o->dev);
            *o = d;
            return 0;
        }
        char what[128];
        snprintf(what, sizeof what, "'ioctl deny %s'", t[2].s);
        struct pol_loc l = { o->file, o->line };
        rc = td_pol_conflict(ps, t[0].col, what, &l);
    }
    struct td_ioctl_deny *a = rc == 0 ? td_pol_grow(p->ioctls, p->nioctls, sizeof *a) : NULL;
    if (rc == 0 && !a)
        rc = p->nioctls >= POL_MAX_RULES ? perr(ps, 0, "too many ioctl rules") : td_pol_oom(ps);
    if (rc < 0) {
        free((char *)d.name);
        free((char *)d.dev);
        return -1;
    }
    p->ioctls = a;
    a[p->nioctls++] = d;
    return 0;
}

static const struct {
    const char *kw;
    int (*fn)(struct pol_state *, struct pol_tok *, int);
} stmts[] = {
    { "mode", st_mode },       { "backend", st_backend }, { "emulate", st_emulate },
    { "device", st_device },   { "devices", st_devices }, { "memory-limit", st_memlimit },
    { "deny", st_deny },       { "inject", st_inject },   { "trace", st_trace },
    { "gpu-dev", st_gpudev },  { "ioctl", st_ioctl },     { "library", td_pol_st_library },
    { "require", st_require },
};
#define NSTMTS ((int)(sizeof stmts / sizeof stmts[0]))

static const char *kw_get(const void *ctx, int i)
{
    (void)ctx;
    return stmts[i].kw;
}

int td_pol_statement(struct pol_state *ps, struct pol_tok *t, int n)
{
    for (int i = 0; i < NSTMTS; i++)
        if (strcmp(stmts[i].kw, t[0].s) == 0)
            return stmts[i].fn(ps, t, n);
    struct pol_cands c = { kw_get, NULL, NSTMTS };
    return td_pol_perr_dym(ps, t[0].col, td_pol_suggest(t[0].s, &c), "unknown statement '%s'", t[0].s);
}

/* ---- resolution ------------------------------------------------------------------ */

/* for each function, the rule that applies: a rule naming it exactly,
 * else one naming it without its _vN/_ptds/_ptsz suffix, else one naming
 * its class; the later rule among equals. A rule whose value is not of the
 * function's status type (a class rule's error=CUDA_ERROR_X on a runtime
 * function) does not apply to it. */
static void resolve_kind(const struct pol_call *r, int n, int is_deny, short *rule_for)
{
    unsigned char level[TD_FN__COUNT];
    memset(level, 0, sizeof level);
    for (int f = 0; f < TD_FN__COUNT; f++)
        rule_for[f] = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < r[i].nitems; j++) {
            const struct pol_item *it = &r[i].items[j];
            for (int f = 0; f < TD_FN__COUNT; f++) {
                int lv = !td_pol_rule_fits(&r[i], is_deny, f) ? 0
                         : it->family >= 0 ? td_fn_in_class(f, it->family)
                         : strcmp(td_fns[f].name, it->text) == 0 ? 3
                         : td_pol_variant_of(td_fns[f].name, it->text) ? 2 : 0;
                if (lv && lv >= level[f]) {
                    level[f] = (unsigned char)lv;
                    rule_for[f] = (short)i;
                }
            }
        }
}

static int count_libnames(const struct pol_call *r, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < r[i].nitems; j++)
            k += r[i].items[j].family == POL_ITEM_LIBNAME;
    return k;
}

void td_pol_resolve(struct td_policy *p)
{
    p->nlibnames = count_libnames(p->denies, p->ndenies) + count_libnames(p->injects, p->ninjects);
    resolve_kind(p->denies, p->ndenies, 1, p->deny_for);
    resolve_kind(p->injects, p->ninjects, 0, p->inject_for);
}

/* checks that need the whole file */
int td_pol_finish(struct pol_state *ps)
{
    struct td_policy *p = ps->p;
    if (p->emu_set && !p->backend_set) {
        p->backend = TD_BACKEND_EMULATE;
    } else if (p->emu_set && p->backend == TD_BACKEND_DRIVER) {
        ps->eline = p->emu_loc.line;
        return perr(ps, 1, "'emulate' conflicts with 'backend driver' on line %d", p->backend_loc.line);
    }
    td_pol_resolve(p);
    return 0;
}

