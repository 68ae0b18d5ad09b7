#include "api.h"

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

/* td_procs is sorted by (base, per_thread, version) */
static int proc_cmp(const char *base, int per_thread, const struct td_proc *p)
{
    int c = strcmp(base, p->base);
    return c ? c : per_thread - p->per_thread;
}

/* index of the newest row with (base, per_thread) and version <= version */
static int proc_find(const char *base, int per_thread, int version, int *exists)
{
    unsigned lo = 0, hi = td_nprocs;
    while (lo < hi) { /* first row >= (base, per_thread) */
        unsigned mid = (lo + hi) / 2;
        if (proc_cmp(base, per_thread, &td_procs[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int best = -1;
    for (unsigned i = lo; i < td_nprocs && proc_cmp(base, per_thread, &td_procs[i]) == 0; i++) {
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
    if (per_thread) {
        int i = proc_find(symbol, 1, version, &exists);
        if (i >= 0)
            return td_procs[i].fn;
    }
    int i = proc_find(symbol, 0, version, &exists);
    if (i >= 0)
        return td_procs[i].fn;
    *version_too_low = exists;
    return -1;
}
