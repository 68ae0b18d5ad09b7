/* SPDX-License-Identifier: Apache-2.0 */
/* Values in policies: sizes, durations, errno names, backends, profiles,
 * and the "did you mean" search. */
#include "policy_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 pol_u128;

/* ---- numbers with a unit ---------------------------------------------- */

/* digits[.digits] into mantissa and the count of fraction digits; returns
 * the end, or NULL when malformed or too long */
static const char *read_decimal(const char *s, unsigned long long *m, int *frac, int *big)
{
    const char *p = s;
    *m = 0;
    *frac = 0;
    *big = 0;
    if (!isdigit((unsigned char)*p))
        return NULL;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (*m > (~0ULL - d) / 10)
            *big = 1;
        else
            *m = *m * 10 + d;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        for (; isdigit((unsigned char)*p); p++) {
            unsigned d = (unsigned)(*p - '0');
            if (*frac >= 18 || *m > (~0ULL - d) / 10)
                *big = 1;
            else {
                *m = *m * 10 + d;
                (*frac)++;
            }
        }
    }
    return p;
}

static unsigned long long pow10u(int n)
{
    unsigned long long v = 1;
    while (n-- > 0)
        v *= 10;
    return v;
}

int td_policy_parse_size(const char *s, unsigned long long *out, const char **why)
{
    unsigned long long m;
    int frac, big, shift = 0;
    const char *p = read_decimal(s, &m, &frac, &big);
    if (!p) {
        *why = "invalid size";
        return -1;
    }
    switch (*p) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if (p[0] == 'i' && p[1] == 'B')
            p += 2;
        else if (p[0] == 'B')
            p++;
    } else if (*p == 'B') {
        p++;
    }
    if (*p) {
        *why = "invalid size";
        return -1;
    }
    if (big) {
        *why = "size out of range";
        return -1;
    }
    pol_u128 v = (pol_u128)m << shift;
    unsigned long long d = pow10u(frac);
    if (v % d) {
        *why = "size is not a whole number of bytes";
        return -1;
    }
    v /= d;
    if (v > (pol_u128)~0ULL) {
        *why = "size out of range";
        return -1;
    }
    *out = (unsigned long long)v;
    return 0;
}

int td_policy_parse_duration(const char *s, unsigned long long *ns, const char **why)
{
    unsigned long long m, unit;
    int frac, big;
    const char *p = read_decimal(s, &m, &frac, &big);
    if (!p) {
        *why = "invalid duration";
        return -1;
    }
    if (!*p || strcmp(p, "us") == 0)
        unit = 1000ULL;
    else if (strcmp(p, "ns") == 0)
        unit = 1ULL;
    else if (strcmp(p, "ms") == 0)
        unit = 1000000ULL;
    else if (strcmp(p, "s") == 0)
        unit = 1000000000ULL;
    else {
        *why = "invalid duration";
        return -1;
    }
    if (big) {
        *why = "duration out of range";
        return -1;
    }
    pol_u128 v = (pol_u128)m * unit;
    unsigned long long d = pow10u(frac);
    if (v % d) {
        *why = "duration is not a whole number of nanoseconds";
        return -1;
    }
    v /= d;
    if (v > (pol_u128)~0ULL) {
        *why = "duration out of range";
        return -1;
    }
    *ns = (unsigned long long)v;
    return 0;
}

int td_pol_write_size(unsigned long long v, char *buf, size_t n)
{
    static const struct { int shift; const char *unit; } units[] = {
        { 40, "TiB" }, { 30, "GiB" }, { 20, "MiB" }, { 10, "KiB" },
    };
    if (v)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if ((v & ((1ULL << units[i].shift) - 1)) == 0)
                return snprintf(buf, n, "%llu%s", v >> units[i].shift, units[i].unit);
    return snprintf(buf, n, "%llu", v);
}

int td_pol_write_duration(unsigned long long ns, char *buf, size_t n)
{
    if (ns % 1000000000ULL == 0)
        return snprintf(buf, n, "%llus", ns / 1000000000ULL);
    if (ns % 1000000ULL == 0)
        return snprintf(buf, n, "%llums", ns / 1000000ULL);
    if (ns % 1000ULL == 0)
        return snprintf(buf, n, "%lluus", ns / 1000ULL);
    return snprintf(buf, n, "%lluns", ns);
}

/* ---- names -------------------------------------------------------------- */

char *td_pol_name_list(const char *const *names, char *buf, size_t n, const char *sep)
{
    size_t at = 0;
    if (!n)
        return buf;
    buf[0] = 0;
    for (int i = 0; names[i] && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s",
                               !i ? "" : sep ? sep : names[i + 1] ? ", " : " or ", names[i]);
    return buf;
}

/* the backends, from policy.h's one list */
const char *const td_pol_backends[] = {
#define TD_BACKEND_NAME(id, name) #name,
    TD_BACKENDS(TD_BACKEND_NAME)
#undef TD_BACKEND_NAME
    NULL
};

const char *td_policy_backend_name(int backend)
{
    return backend >= 0 && backend < TD_BACKEND__COUNT ? td_pol_backends[backend]
                                                       : td_pol_backends[TD_BACKEND_AUTO];
}

int td_policy_backend_find(const char *name)
{
    for (int i = 0; name && td_pol_backends[i]; i++)
        if (strcmp(td_pol_backends[i], name) == 0)
            return i;
    return -1;
}

char *td_policy_backend_list(char *buf, size_t n, const char *sep)
{
    return td_pol_name_list(td_pol_backends, buf, n, sep);
}

/* the emulator's profiles, from its one table */
const char *const td_pol_profiles[] = {
#define PROFILE(id, name, gpu, mem) name,
#define ATTR(...)
#include "../emu/profiles.def"
#undef PROFILE
#undef ATTR
    NULL
};

/* the emulator's PTX engines, from their one table */
const char *const td_pol_engines[] = {
#define ENGINE(id, name, what) name,
#include "engines.def"
#undef ENGINE
    NULL
};

void td_pol_profile_list(char *buf, size_t n)
{
    td_pol_name_list(td_pol_profiles, buf, n, NULL);
}

int td_pol_profile_find(const char *name)
{
    for (int i = 0; td_pol_profiles[i]; i++)
        if (strcmp(td_pol_profiles[i], name) == 0)
            return i;
    return -1;
}

/* the C library's errno names, from its <errno.h> (tools/gen-errnos.sh):
 * each number's own name first, then the aliases */
static const struct { const char *name; int value; } errnos[] = {
#define TD_ERRNO(x) { #x, x },
#include "td_errnos.def"
#undef TD_ERRNO
};
#define NERRNOS ((int)(sizeof errnos / sizeof errnos[0]))

int td_pol_errno_find(const char *name)
{
    for (int i = 0; i < NERRNOS; i++)
        if (strcmp(errnos[i].name, name) == 0)
            return errnos[i].value;
    return -1;
}

/* the first name with the value (EAGAIN before EWOULDBLOCK) */
const char *td_pol_errno_name(int e)
{
    for (int i = 0; i < NERRNOS; i++)
        if (errnos[i].value == e)
            return errnos[i].name;
    return NULL;
}

static const char *errno_get(const void *ctx, int i)
{
    (void)ctx;
    return errnos[i].name;
}

const char *td_pol_errno_suggest(const char *word)
{
    struct pol_cands c = { errno_get, NULL, NERRNOS };
    return td_pol_suggest(word, &c);
}

/* ---- did you mean --------------------------------------------------------- */

#define SUGGEST_MAX 96

/* optimal-string-alignment distance, case-insensitive, stops past limit;
 * three rolling rows keep the stack small (the shim parses too) */
static int distance(const char *a, const char *b, int limit)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > SUGGEST_MAX || lb > SUGGEST_MAX)
        return limit + 1;
    if (la - lb > limit || lb - la > limit)
        return limit + 1;
    int rows[3][SUGGEST_MAX + 1];
    int *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        int rowmin = i;
        for (int j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (prev[j - 1] + (ca != cb) < v)
                v = prev[j - 1] + (ca != cb);
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
            if (v < rowmin)
                rowmin = v;
        }
        if (rowmin > limit)
            return limit + 1;
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *td_pol_suggest(const char *word, const struct pol_cands *c)
{
    size_t len = strlen(word);
    int limit = len <= 5 ? 1 : len <= 10 ? 2 : 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (int i = 0; i < c->n; i++) {
        const char *cand = c->get(c->ctx, i);
        if (!cand)
            continue;
        int dd = distance(word, cand, bestd - 1 < limit ? bestd - 1 : limit);
        if (dd < bestd) {
            bestd = dd;
            best = cand;
            if (dd == 0)
                break;
        }
    }
    return best;
}

static const char *list_get(const void *ctx, int i)
{
    return ((const char *const *)ctx)[i];
}

const char *td_pol_suggest_list(const char *word, const char *const *list)
{
    int n = 0;
    while (list[n])
        n++;
    struct pol_cands c = { list_get, list, n };
    return td_pol_suggest(word, &c);
}

int td_pol_item_has(const struct pol_item *it, int fn)
{
    if (it->family == POL_ITEM_LIBNAME)
        return 0; /* no function of the tables */
    return it->family >= 0 ? td_fn_in_class(fn, it->family)
                           : strcmp(td_fns[fn].name, it->text) == 0 || td_pol_variant_of(td_fns[fn].name, it->text);
}

int td_pol_named_status_x(const struct pol_call *r)
{
    int x = TD_X_NONE;
    for (int j = 0; j < r->nitems; j++) {
        if (r->items[j].family != -1)
            return TD_X_NONE;
        for (int f = 0; f < TD_FN__COUNT; f++)
            if (td_pol_item_has(&r->items[j], f)) {
                int fx = td_pol_status_x(f);
                if (fx == TD_X_NONE || (x != TD_X_NONE && fx != x))
                    return TD_X_NONE;
                x = fx;
            }
    }
    return x;
}

int td_pol_status_x(int fn)
{
    if (fn < 0 || fn >= TD_FN__COUNT)
        return TD_X_NONE;
    if (fn < TD_FN__RT_FIRST)
        return TD_X_CUresult;
    if (td_fns[fn].ret == TD_RET_CUDART)
        return TD_X_cudaError_t;
    return td_fns[fn].ret == TD_RET_XLAT ? td_fns[fn].ret_xlat : TD_X_NONE;
}

int td_pol_rule_fits(const struct pol_call *r, int is_deny, int fn)
{
    int x = td_pol_status_x(fn);
    if (r->error_given)
        return r->error_x == TD_X_NONE || r->error_x == x;
    if (is_deny)
        return x == TD_X_CUresult || x == TD_X_cudaError_t;
    return 1; /* an inject with delay= alone */
}

int td_pol_variant_of(const char *fn, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(fn, name, n) != 0)
        return 0;
    const char *s = fn + n;
    while (*s) {
        if (strncmp(s, "_ptds", 5) == 0 || strncmp(s, "_ptsz", 5) == 0) {
            s += 5;
        } else if (s[0] == '_' && s[1] == 'v' && isdigit((unsigned char)s[2])) {
            s += 2;
            while (isdigit((unsigned char)*s))
                s++;
        } else {
            return 0;
        }
    }
    return 1;
}
