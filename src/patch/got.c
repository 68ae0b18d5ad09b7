/* SPDX-License-Identifier: Apache-2.0 */
/* GOT slots: one aligned 8-byte value each, replaced and put back. */
#include <string.h>

#include "internal.h"

int td_got_set(struct td_patcher *pt, uint64_t slot, uint64_t value, unsigned flags, struct td_got_patch *rec,
               struct td_perr *err)
{
    memset(rec, 0, sizeof *rec);
    if (slot & 7)
        return td_perr_set(err, TD_PE_INVAL, 0, "GOT slot 0x%llx is not 8-byte aligned", (unsigned long long)slot);
    uint64_t cur;
    int r = pt->mem.read(pt->mem.ctx, slot, &cur, sizeof cur);
    if (r)
        return td_perr_set(err, TD_PE_MEM, -r, "reading the GOT slot at 0x%llx: %s", (unsigned long long)slot,
                           strerror(-r));
    r = pt->mem.replace(pt->mem.ctx, slot, &cur, &value, sizeof value, flags);
    if (r)
        return td_perr_replace("setting", "the GOT slot", slot, r, err);
    *rec = (struct td_got_patch){ slot, cur, value, 1 };
    return 0;
}

int td_got_undo(struct td_patcher *pt, struct td_got_patch *rec, unsigned flags, struct td_perr *err)
{
    if (!rec->applied)
        return td_perr_set(err, TD_PE_INVAL, 0, "GOT slot 0x%llx: not set", (unsigned long long)rec->slot);
    int r = pt->mem.replace(pt->mem.ctx, rec->slot, &rec->value, &rec->orig, sizeof rec->orig, flags);
    if (r)
        return td_perr_replace("restoring", "the GOT slot", rec->slot, r, err);
    rec->applied = 0;
    return 0;
}
