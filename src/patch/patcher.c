/* SPDX-License-Identifier: Apache-2.0 */
/* td_patcher: function-entry patches in one address space, and the island
 * memory their trampolines live in (see patch.h).
 *
 * An island slot holds, for one function: a 14-byte absolute jump to the
 * replacement when the replacement is out of reach of a 5-byte jump from
 * the entry (padded to 16 bytes with int3), then the trampoline. Islands
 * are mapped in chunks near the code they serve and never unmapped: a
 * thread may still run a trampoline, or a replacement may still call it,
 * after the patch is undone. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "x86.h"

#define ISLAND_CHUNK (64 * 1024)
#define STUB_LEN 16
#define HEAD_LEN 64
#define BODY_CHUNK (64 * 1024)
#define NEAR ((1ULL << 31) - (1ULL << 24)) /* +-2 GiB less a margin */

struct td_patcher *td_patcher_new(const struct td_patch_mem *mem)
{
    struct td_patcher *pt = calloc(1, sizeof *pt);
    if (!pt)
        return NULL;
    pt->mem = *mem;
    pthread_mutex_init(&pt->lock, NULL);
    return pt;
}

void td_patcher_free(struct td_patcher *pt)
{
    if (!pt)
        return;
    pthread_mutex_destroy(&pt->lock);
    free(pt->isl);
    free(pt);
}

static uint64_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return (uint64_t)(ps > 0 ? ps : 4096);
}

/* a slot of size bytes starting in [lo, hi], 16-byte aligned */
static int island_alloc(struct td_patcher *pt, const char *name, uint64_t lo, uint64_t hi, size_t size,
                        uint64_t *addr, struct td_perr *err)
{
    for (size_t i = 0; i < pt->nisl; i++) {
        struct island *is = &pt->isl[i];
        uint64_t a = (is->base + is->used + 15) & ~15ULL;
        if (a >= lo && a <= hi && a + size <= is->base + is->size) {
            is->used = a + size - is->base;
            *addr = a;
            return 0;
        }
    }
    uint64_t ps = page_size();
    uint64_t l = (lo + ps - 1) & ~(ps - 1), h = hi & ~(ps - 1);
    if (l < lo || l > h)
        return td_perr_set(err, TD_PE_RANGE, 0, "%s: no page-aligned place for a trampoline within reach", name);
    size_t msize = (size_t)((size > ISLAND_CHUNK ? size + ps - 1 : ISLAND_CHUNK) & ~(ps - 1));
    if (pt->nisl == pt->cap) {
        size_t ncap = pt->cap ? pt->cap * 2 : 8;
        struct island *ni = realloc(pt->isl, ncap * sizeof *ni);
        if (!ni)
            return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
        pt->isl = ni;
        pt->cap = ncap;
    }
    uint64_t base;
    int rc = pt->mem.map(pt->mem.ctx, l, h, msize, &base);
    if (rc == -ENOMEM)
        return td_perr_set(err, TD_PE_RANGE, 0, "%s: no free memory for a trampoline within reach", name);
    if (rc)
        return td_perr_set(err, TD_PE_MEM, -rc, "%s: mapping trampoline memory: %s", name, strerror(-rc));
    if (base < l || base > h || (base & (ps - 1)))
        return td_perr_set(err, TD_PE_MEM, 0, "%s: trampoline memory mapped at 0x%llx, outside [0x%llx, 0x%llx]",
                           name, (unsigned long long)base, (unsigned long long)l, (unsigned long long)h);
    pt->isl[pt->nisl++] = (struct island){ base, msize, size };
    *addr = base;
    return 0;
}

/* give back the slot just allocated at addr (an error came after) */
static void island_unalloc(struct td_patcher *pt, uint64_t addr, size_t size)
{
    for (size_t i = 0; i < pt->nisl; i++)
        if (pt->isl[i].base + pt->isl[i].used == addr + size && addr >= pt->isl[i].base)
            pt->isl[i].used = addr - pt->isl[i].base;
}

static int scan_body(struct td_patcher *pt, const char *name, const struct td_x86_plan *plan, uint64_t size,
                     struct td_perr *err)
{
    uint64_t off = plan->entry + plan->covered, end;
    if (__builtin_add_overflow(plan->entry, size, &end))
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: size %llu wraps around", name, (unsigned long long)size);
    uint8_t *buf = malloc(BODY_CHUNK);
    if (!buf)
        return td_perr_set(err, TD_PE_NOMEM, ENOMEM, "out of memory");
    int rc = 0;
    while (off < end) {
        size_t n = end - off > BODY_CHUNK ? BODY_CHUNK : (size_t)(end - off), used = 0;
        int r = pt->mem.read(pt->mem.ctx, off, buf, n);
        if (r) {
            rc = td_perr_set(err, TD_PE_MEM, -r, "%s: reading its body at +%llu: %s", name,
                             (unsigned long long)(off - plan->entry), strerror(-r));
            break;
        }
        if ((rc = td_x86_scan(name, plan, buf, n, off, off + n == end, &used, err)) != 0)
            break;
        off += used;
    }
    free(buf);
    return rc;
}

static int in_reach(uint64_t from, uint64_t to)
{
    int64_t d = (int64_t)(to - from);
    return d >= INT32_MIN && d <= INT32_MAX;
}

/* the slot-start window: tramp (= start + stub) in [p->lo, p->hi], and a
 * stub reachable by a 5-byte jump from the entry */
static int window(const struct td_x86_plan *plan, unsigned stub, uint64_t *lo, uint64_t *hi)
{
    __int128 l = (__int128)plan->lo - stub, h = (__int128)plan->hi - stub;
    if (stub) {
        __int128 el = (__int128)plan->entry + TD_X86_JMP_REL32 + INT32_MIN,
                 eh = (__int128)plan->entry + TD_X86_JMP_REL32 + INT32_MAX;
        if (el > l)
            l = el;
        if (eh < h)
            h = eh;
    }
    if (l < 0)
        l = 0;
    if (h > (__int128)UINT64_MAX - TD_X86_TRAMP_MAX - STUB_LEN)
        h = (__int128)UINT64_MAX - TD_X86_TRAMP_MAX - STUB_LEN;
    if (l > h)
        return -1;
    *lo = (uint64_t)l;
    *hi = (uint64_t)h;
    return 0;
}

int td_patch_prepare(struct td_patcher *pt, const char *name, uint64_t addr, uint64_t size,
                     uint64_t replacement, unsigned flags, struct td_patch *p, struct td_perr *err)
{
    if (!name)
        name = "?";
    if (!pt || !p || !addr || !replacement)
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: no patcher, record, address or replacement", name);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->addr = addr;
    p->replacement = replacement;

    uint8_t head[HEAD_LEN];
    size_t avail = size && size < HEAD_LEN ? (size_t)size : HEAD_LEN;
    int r = pt->mem.read(pt->mem.ctx, addr, head, avail);
    if (r && !size) { /* near the end of its mapping? read up to the page end */
        uint64_t ps = page_size(), left = ps - (addr & (ps - 1));
        avail = left < HEAD_LEN ? (size_t)left : HEAD_LEN;
        r = pt->mem.read(pt->mem.ctx, addr, head, avail);
    }
    if (r)
        return td_perr_set(err, TD_PE_MEM, -r, "%s: reading its entry at 0x%llx: %s", name,
                           (unsigned long long)addr, strerror(-r));

    unsigned need = flags & TD_PATCH_ABS ? TD_X86_JMP_ABS : TD_X86_JMP_REL32;
    for (;;) {
        struct td_x86_plan plan;
        int rc = td_x86_plan(name, head, avail, addr, size, need, &plan, err);
        if (rc == 0 && size && !(flags & TD_PATCH_NO_BODY_CHECK))
            rc = scan_body(pt, name, &plan, size, err);
        if (rc) {
            if (need == TD_X86_JMP_ABS && !(flags & TD_PATCH_ABS) && err) {
                size_t l = strlen(err->msg);
                snprintf(err->msg + l, sizeof err->msg - l, " (tried because no trampoline memory is within "
                                                            "+-2 GiB of it for a 5-byte jump)");
            }
            return rc;
        }
        int direct = need == TD_X86_JMP_REL32 && in_reach(addr + TD_X86_JMP_REL32, replacement);
        unsigned stub = need == TD_X86_JMP_REL32 && !direct ? STUB_LEN : 0;
        size_t total = stub + plan.tramp_len;
        uint64_t lo, hi, start = 0;
        pthread_mutex_lock(&pt->lock);
        if (window(&plan, stub, &lo, &hi) != 0) {
            rc = td_perr_set(err, TD_PE_RANGE, 0, "%s: no address reaches both its entry and its operands", name);
        } else {
            /* near the entry when it need not be (one island serves a
             * whole object), else anywhere the window allows */
            uint64_t nlo = addr > NEAR ? addr - NEAR : 0, nhi = addr + NEAR;
            nlo = nlo > lo ? nlo : lo;
            nhi = nhi < hi ? nhi : hi;
            rc = nlo <= nhi ? island_alloc(pt, name, nlo, nhi, total, &start, err) : TD_PE_RANGE;
            if (rc == TD_PE_RANGE && (nlo != lo || nhi != hi))
                rc = island_alloc(pt, name, lo, hi, total, &start, err);
        }
        if (rc == TD_PE_RANGE && need == TD_X86_JMP_REL32) {
            pthread_mutex_unlock(&pt->lock);
            need = TD_X86_JMP_ABS; /* the 14-byte jump needs no island near the entry */
            continue;
        }
        if (rc == 0) {
            uint8_t code[STUB_LEN + TD_X86_TRAMP_MAX];
            if (stub) {
                td_x86_put_jmp_abs(code, replacement);
                memset(code + TD_X86_JMP_ABS, 0xcc, STUB_LEN - TD_X86_JMP_ABS);
            }
            rc = td_x86_emit(name, &plan, head, start + stub, code + stub, err);
            if (rc == 0 && (r = pt->mem.write(pt->mem.ctx, start, code, total)) != 0)
                rc = td_perr_set(err, TD_PE_MEM, -r, "%s: writing its trampoline at 0x%llx: %s", name,
                                 (unsigned long long)start, strerror(-r));
            if (rc)
                island_unalloc(pt, start, total);
        }
        pthread_mutex_unlock(&pt->lock);
        if (rc)
            return rc;
        if (need == TD_X86_JMP_REL32)
            td_x86_put_jmp_rel32(p->bytes, addr, direct ? replacement : start);
        else
            td_x86_put_jmp_abs(p->bytes, replacement);
        memcpy(p->orig, head, need);
        p->len = (uint8_t)need;
        p->covered = (uint8_t)plan.covered;
        p->original = start + stub;
        p->island = start;
        p->island_len = (uint32_t)total;
        p->body_checked = size && !(flags & TD_PATCH_NO_BODY_CHECK);
        return 0;
    }
}

int td_patch_apply(struct td_patcher *pt, struct td_patch *p, unsigned flags, struct td_perr *err)
{
    if (!p->len || p->len > TD_PATCH_MAXLEN)
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: not prepared", p->name);
    if (p->applied)
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: already applied", p->name);
    int r = pt->mem.replace(pt->mem.ctx, p->addr, p->orig, p->bytes, p->len, flags);
    if (r)
        return td_perr_replace("patching", p->name, p->addr, r, err);
    p->applied = 1;
    return 0;
}

int td_patch_undo(struct td_patcher *pt, struct td_patch *p, unsigned flags, struct td_perr *err)
{
    if (!p->applied || !p->len || p->len > TD_PATCH_MAXLEN)
        return td_perr_set(err, TD_PE_INVAL, 0, "%s: not applied", p->name);
    int r = pt->mem.replace(pt->mem.ctx, p->addr, p->bytes, p->orig, p->len, flags);
    if (r)
        return td_perr_replace("restoring", p->name, p->addr, r, err);
    p->applied = 0;
    return 0;
}
