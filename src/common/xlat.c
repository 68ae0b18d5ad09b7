/* SPDX-License-Identifier: Apache-2.0 */
#include "xlat.h"

#include <string.h>

static const struct td_xval *xlat_lookup(enum td_xlat_id x, unsigned long long value)
{
    if ((unsigned)x >= TD_X__COUNT)
        return NULL;
    const struct td_xlat *t = &td_xlats[x];
    int lo = 0, hi = t->n;
    while (lo < hi) { /* first entry >= value: the first name of a value */
        int mid = (lo + hi) / 2;
        if (t->v[mid].value < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->v[lo].value == value ? &t->v[lo] : NULL;
}

const char *td_xlat_name(enum td_xlat_id x, unsigned long long value)
{
    const struct td_xval *v = xlat_lookup(x, value);
    return v ? v->name : NULL;
}

const char *td_xlat_text(enum td_xlat_id x, unsigned long long value)
{
    const struct td_xval *v = xlat_lookup(x, value);
    return v && v->text[0] ? v->text : NULL;
}

int td_xlat_value(enum td_xlat_id x, const char *name, unsigned long long *value)
{
    if ((unsigned)x >= TD_X__COUNT)
        return -1;
    const struct td_xlat *t = &td_xlats[x];
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0) {
            *value = t->v[i].value;
            return 0;
        }
    return -1;
}

enum td_xlat_id td_xlat_find(const char *name)
{
    for (int i = 1; i < TD_X__COUNT; i++)
        if (strcmp(td_xlats[i].name, name) == 0)
            return (enum td_xlat_id)i;
    return TD_X_NONE;
}

const char *td_result_name(unsigned value)
{
    return td_xlat_name(TD_X_CUresult, value);
}
