/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the structures of src/api/structs.api out of bytes that came from
 * a traced program: every read is checked against the bytes there are, so
 * a short or hostile copy reads as 0. Shared by the shim (which follows
 * the pointers inside structures) and tdtrace (which prints them). */
#include <string.h>

#include "api.h"

unsigned long long td_read_uint(const unsigned char *base, size_t len, size_t off, size_t size)
{
    if (size > 8 || off > len || size > len - off)
        return 0;
    unsigned long long v = 0;
    memcpy(&v, base + off, size); /* little-endian: the low bytes */
    return v;
}

unsigned long long td_field_uint(const struct td_struct *st, int i, const unsigned char *base, size_t len)
{
    if (i < 0 || i >= st->nfields)
        return 0;
    const struct td_field *f = &st->fields[i];
    return td_read_uint(base, len, f->offset, f->size);
}

static int case_is(const struct td_field *f, long long tag)
{
    for (unsigned c = 0; c < f->ncases; c++)
        if (f->cases[c] == tag || (uint32_t)f->cases[c] == (uint32_t)tag)
            return 1;
    return 0;
}

int td_union_member(const struct td_struct *u, long long tag)
{
    for (int i = 0; i < u->nfields; i++)
        if (!(u->fields[i].flags & TD_FF_HIDDEN) && case_is(&u->fields[i], tag))
            return i;
    return -1;
}

int td_field_shown(const struct td_struct *st, int i, const unsigned char *base, size_t len)
{
    const struct td_field *f = &st->fields[i];
    if (f->flags & TD_FF_HIDDEN)
        return 0;
    if (f->cond < 0 || !f->ncases || f->kind == TD_K_STRUCT)
        return 1; /* no if= (a union's by= names its tag, it does not hide it) */
    return case_is(f, (long long)td_field_uint(st, f->cond, base, len));
}
