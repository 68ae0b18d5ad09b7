/* SPDX-License-Identifier: Apache-2.0 */
/* td_patch_mem_self: patching this process while its other threads may run.
 *
 * Live bytes (a function's entry, a GOT slot) change in an order that a
 * thread reaching them meanwhile survives:
 *  - bytes within one aligned 8-byte word: one compare-and-swap of the word;
 *  - longer ones: the first two bytes become `jmp .` (eb fe) by one
 *    compare-and-swap, then the other bytes are written, then the first two
 *    take their final value by another; a thread that reaches the entry in
 *    between spins on itself until the write ends.
 * Each step is followed by a core serialisation of every thread of the
 * process (membarrier SYNC_CORE, the user-space form of what the kernel
 * does around text_poke_bp) where the kernel has it. A thread already past
 * the first byte of the changed instructions is not protected: that is
 * the caller's to exclude (patch before other threads start, or stop them
 * and check with td_threads_inside). Pages are made writable for the
 * write, keeping their other rights (code keeps running), then get their
 * protection back. */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "patch.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- core serialisation ---- */

static pthread_once_t sync_once = PTHREAD_ONCE_INIT;
static int sync_ok;

static void sync_init(void)
{
    sync_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
}

static void sync_core(void)
{
    pthread_once(&sync_once, sync_init);
    if (sync_ok)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

int td_patch_self_sync_core(void)
{
    pthread_once(&sync_once, sync_init);
    return sync_ok;
}

/* ---- page protections ---- */

#define MAXPIECES 8
struct prot_save {
    uint64_t lo, hi; /* the pages */
    struct { uint64_t start, end; int prot; } piece[MAXPIECES];
    int n, gap;
};

static int prot_cb(const struct td_map *m, void *arg)
{
    struct prot_save *s = arg;
    if (m->end <= s->lo || m->start >= s->hi)
        return 0;
    uint64_t st = m->start < s->lo ? s->lo : m->start, en = m->end > s->hi ? s->hi : m->end;
    uint64_t expect = s->n ? s->piece[s->n - 1].end : s->lo;
    if (st != expect || s->n == MAXPIECES) {
        s->gap = 1;
        return 1;
    }
    s->piece[s->n].start = st;
    s->piece[s->n].end = en;
    s->piece[s->n].prot = m->prot;
    s->n++;
    return 0;
}

static uint64_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return (uint64_t)(ps > 0 ? ps : 4096);
}

/* the protections of the pages of [addr, addr + len): 0, or -EFAULT when
 * part of them is not mapped */
static int prot_find(uint64_t addr, size_t len, struct prot_save *s)
{
    uint64_t ps = page_size();
    memset(s, 0, sizeof *s);
    if (len == 0 || addr + len < addr)
        return -EFAULT;
    s->lo = addr & ~(ps - 1);
    s->hi = (addr + len + ps - 1) & ~(ps - 1);
    int rc = td_maps_foreach(0, prot_cb, s);
    if (rc < 0)
        return rc;
    if (s->gap || s->n == 0 || s->piece[s->n - 1].end != s->hi)
        return -EFAULT;
    return 0;
}

static int prot_set(const struct prot_save *s, int add)
{
    for (int i = 0; i < s->n; i++)
        if (mprotect((void *)(uintptr_t)s->piece[i].start, s->piece[i].end - s->piece[i].start,
                     s->piece[i].prot | add) != 0)
            return -errno;
    return 0;
}

/* make [addr, addr + len) writable; prot_set(s, 0) undoes it */
static int unprotect(uint64_t addr, size_t len, struct prot_save *s)
{
    int rc = prot_find(addr, len, s);
    if (rc == 0 && (rc = prot_set(s, PROT_WRITE)) != 0)
        prot_set(s, 0);
    return rc;
}

/* ---- the callbacks ---- */

/* Stores to code are inline assembly, unseen by the sanitizers:
 * ThreadSanitizer backs read-only memory with read-only shadow and would
 * fault on an instrumented store there. */
static uint64_t load64(const uint64_t *w)
{
    uint64_t v;
    __asm__ volatile("movq %1, %0" : "=r"(v) : "m"(*w));
    return v;
}

static int cas64(uint64_t *w, uint64_t old, uint64_t nw)
{
    uint64_t prev = old;
    __asm__ volatile("lock cmpxchgq %2, %1" : "+a"(prev), "+m"(*w) : "r"(nw) : "memory", "cc");
    return prev == old;
}

static void copy_to_code(uint8_t *dst, const uint8_t *src, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static int self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
    ssize_t n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
    if (n == (ssize_t)len)
        return 0;
    if (n >= 0)
        return -EFAULT;
    if (errno != ENOSYS && errno != EPERM)
        return -errno;
    /* no process_vm_readv (seccomp?): check the mapping, then copy */
    struct prot_save s;
    int rc = prot_find(addr, len, &s);
    if (rc)
        return rc;
    for (int i = 0; i < s.n; i++)
        if (!(s.piece[i].prot & PROT_READ))
            return -EFAULT;
    memcpy(buf, (const void *)(uintptr_t)addr, len);
    return 0;
}

static int self_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    (void)ctx;
    struct prot_save s;
    pthread_mutex_lock(&lock);
    int rc = unprotect(addr, len, &s);
    if (rc == 0) {
        copy_to_code((uint8_t *)(uintptr_t)addr, buf, len);
        rc = prot_set(&s, 0);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* replace n bytes at p (within one aligned 8-byte word) from `from` to
 * `to` by one compare-and-swap of the word */
static int cas_bytes(uint8_t *p, const uint8_t *from, const uint8_t *to, size_t n)
{
    uint64_t *w = (uint64_t *)((uintptr_t)p & ~(uintptr_t)7);
    size_t at = (size_t)((uintptr_t)p & 7);
    uint64_t old = load64(w), want = old, nw;
    memcpy((uint8_t *)&want + at, from, n);
    if (want != old)
        return -ECANCELED;
    nw = old;
    memcpy((uint8_t *)&nw + at, to, n);
    return cas64(w, old, nw) ? 0 : -ECANCELED;
}

/* the final two bytes, whatever is there: leaving `jmp .` would hang
 * every thread that reaches it */
static void store2(uint8_t *p, const uint8_t *to)
{
    uint64_t *w = (uint64_t *)((uintptr_t)p & ~(uintptr_t)7);
    size_t at = (size_t)((uintptr_t)p & 7);
    for (;;) {
        uint64_t old = load64(w), nw = old;
        memcpy((uint8_t *)&nw + at, to, 2);
        if (cas64(w, old, nw))
            return;
    }
}

static int replace_live(uint8_t *p, const uint8_t *expect, const uint8_t *bytes, size_t len, unsigned flags)
{
    if (memcmp(p, expect, len) != 0)
        return -ECANCELED;
    if (flags & TD_PATCH_STOPPED) {
        copy_to_code(p, bytes, len);
        return 0;
    }
    size_t at = (size_t)((uintptr_t)p & 7);
    if (at + len <= 8) {
        int rc = cas_bytes(p, expect, bytes, len);
        sync_core();
        return rc;
    }
    if (at == 7)
        return -ENOTSUP; /* the two first bytes straddle two words */
    static const uint8_t self_jump[2] = { 0xeb, 0xfe };
    int rc = cas_bytes(p, expect, self_jump, 2);
    if (rc)
        return rc;
    sync_core();
    copy_to_code(p + 2, bytes + 2, len - 2);
    sync_core();
    store2(p, bytes);
    sync_core();
    return 0;
}

static int self_replace(void *ctx, uint64_t addr, const void *expect, const void *bytes, size_t len,
                        unsigned flags)
{
    (void)ctx;
    if (len == 0 || len > 16)
        return -EINVAL;
    struct prot_save s;
    pthread_mutex_lock(&lock);
    int rc = unprotect(addr, len, &s);
    if (rc == 0) {
        rc = replace_live((uint8_t *)(uintptr_t)addr, expect, bytes, len, flags);
        int rc2 = prot_set(&s, 0);
        if (rc == 0)
            rc = rc2;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int self_map(void *ctx, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    (void)ctx;
    for (int tries = 0; tries < 8; tries++) {
        uint64_t a;
        int rc = td_maps_find_gap(0, lo, hi, size, &a);
        if (rc)
            return rc;
        void *m = mmap((void *)(uintptr_t)a, size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
        if (m == MAP_FAILED) {
            if (errno == EEXIST)
                continue; /* another thread mapped there meanwhile */
            return -errno;
        }
        if ((uintptr_t)m != a) { /* a kernel older than MAP_FIXED_NOREPLACE took it as a hint */
            munmap(m, size);
            continue;
        }
        *addr = a;
        return 0;
    }
    return -ENOMEM;
}

const struct td_patch_mem td_patch_mem_self = { self_read, self_write, self_replace, self_map, NULL };
