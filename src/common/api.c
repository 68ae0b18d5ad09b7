/* SPDX-License-Identifier: Apache-2.0 */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, td_fns[*(const unsigned short *)elem].name);
}

int td_api_find(const char *name)
{
    const unsigned short *p = bsearch(name, td_fn_by_name, TD_FN__COUNT,
                                      sizeof(td_fn_by_name[0]), cmp_name);
    return p ? *p : -1;
}

const char *const td_hclass_names[TD_H__COUNT] = { "", TD_HCLASS_NAMES };

static const char *const family_names[TD_FAM__COUNT] = {
#define TD_FAM_STR(x) #x,
    TD_API_FAMILIES(TD_FAM_STR)
#undef TD_FAM_STR
};

int td_family_find(const char *name)
{
    for (int i = 0; i < TD_FAM__COUNT; i++)
        if (strcmp(family_names[i], name) == 0)
            return i;
    return -1;
}

const char *td_family_name(int family)
{
    return family >= 0 && family < TD_FAM__COUNT ? family_names[family] : "?";
}

char *td_family_list(char *buf, size_t n)
{
    size_t at = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < TD_FAM__COUNT && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%%%s", i ? " " : "", family_names[i]);
    return buf;
}

/* index of the newest row of base with version <= version; td_procs is
 * sorted by (base, version) */
static int proc_find(const char *base, int version, int *exists)
{
    unsigned lo = 0, hi = td_nprocs;
    while (lo < hi) { /* first row >= base */
        unsigned mid = (lo + hi) / 2;
        if (strcmp(base, td_procs[mid].base) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int best = -1;
    for (unsigned i = lo; i < td_nprocs && strcmp(base, td_procs[i].base) == 0; i++) {
        *exists = 1;
        if (td_procs[i].version <= version)
            best = (int)i;
    }
    return best;
}

int td_proc_lookup(const char *symbol, int version, int per_thread, int *version_too_low)
{
    int exists = 0;
    *version_too_low = 0;
    if (!symbol || !*symbol)
        return -1;
    int i = proc_find(symbol, version, &exists);
    if (i < 0) {
        *version_too_low = exists;
        return -1;
    }
    int fn = td_procs[i].fn;
    if (per_thread) {
        /* the per-thread-default-stream variant of the symbol that version
         * selects, where it has one */
        static const char *const sfx[] = { "_ptds", "_ptsz" };
        for (int k = 0; k < 2; k++) {
            char name[128];
            snprintf(name, sizeof(name), "%s%s", td_fns[fn].name, sfx[k]);
            int pt = td_api_find(name);
            if (pt >= 0)
                return pt;
        }
    }
    return fn;
}
