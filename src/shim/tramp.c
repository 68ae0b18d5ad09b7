/* SPDX-License-Identifier: Apache-2.0 */
/* Trampolines for export-table slots whose signature tdtrace does not
 * know: each is traced as EXPORT_TABLE.slot with the table, the slot and
 * the first four integer arguments. The stubs are assembly
 * (tramp_x86_64.S); they reach td_tramp_enter and td_tramp_leave through
 * td_tramp_hooks, set here before the first stub is handed out, so the
 * assembly calls no C by name. */
#include <stdlib.h>

#include "shim.h"

#if defined(__x86_64__)
#define NTRAMP 512 /* as many stubs as tramp_x86_64.S has */
struct tramp { void *target; unsigned char uuid[16]; unsigned slot; };
static struct tramp tramps[NTRAMP];
static int ntramps;

struct tframe { void *ret; uintptr_t sp; struct td_call c; uint64_t a[6]; };
static __thread struct tframe *tstack;
static __thread int tdepth, tcap;

/* stub k was called by ret with these argument registers and the caller's
 * stack pointer after its return: note the call, give the function */
static void *tramp_enter(unsigned k, void *ret, const uint64_t *regs, uintptr_t sp)
{
    /* frames a longjmp skipped over lie below this caller's stack pointer */
    while (tdepth > 0 && tstack[tdepth - 1].sp < sp)
        tdepth--;
    if (tdepth == tcap) {
        int cap = tcap ? tcap * 2 : 16;
        struct tframe *s = realloc(tstack, (size_t)cap * sizeof(*s));
        if (!s)
            return NULL; /* cannot happen in practice; see tramp_leave */
        tstack = s;
        tcap = cap;
    }
    struct tframe *f = &tstack[tdepth++];
    f->ret = ret;
    f->sp = sp;
    f->a[0] = TD_PTR(tramps[k].uuid);
    f->a[1] = tramps[k].slot;
    for (int i = 0; i < 4; i++)
        f->a[2 + i] = regs[i];
    CUresult r;
    td_enter(TD_FN_EXPORT_TABLE_slot, &f->c, f->a, &r);
    return tramps[k].target;
}

/* the function returned rax: record the call, give the return address */
static void *tramp_leave(uint64_t rax, uintptr_t sp)
{
    while (tdepth > 1 && tstack[tdepth - 1].sp < sp)
        tdepth--;
    struct tframe *f = &tstack[--tdepth];
    td_leave(&f->c, f->a, (CUresult)(uint32_t)rax);
    return f->ret;
}

/* defined in tramp_x86_64.S */
extern const unsigned char td_tramp_stubs[];
extern struct {
    void *(*enter)(unsigned k, void *ret, const uint64_t *regs, uintptr_t sp);
    void *(*leave)(uint64_t rax, uintptr_t sp);
} td_tramp_hooks;

/* called with exptab.c's lock held */
void *td_tramp_for(const unsigned char uuid[16], unsigned slot, void *target)
{
    if (!target || ntramps == NTRAMP)
        return target;
    if (!td_tramp_hooks.enter) {
        td_tramp_hooks.enter = tramp_enter;
        td_tramp_hooks.leave = tramp_leave;
    }
    struct tramp *t = &tramps[ntramps];
    t->target = target;
    memcpy(t->uuid, uuid, 16);
    t->slot = slot;
    return (void *)(td_tramp_stubs + 16 * ntramps++);
}
#else
void *td_tramp_for(const unsigned char uuid[16], unsigned slot, void *target)
{
    (void)uuid;
    (void)slot;
    return target; /* no trampolines on this architecture: the slot is not traced */
}
#endif
