/* SPDX-License-Identifier: Apache-2.0 */
#include "ring.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define A(p) ((_Atomic uint64_t *)(p))

int td_ring_create(struct td_ring *r, uint64_t size, uint32_t flags)
{
    memset(r, 0, sizeof(*r));
    if (size < 65536 || (size & (size - 1)) || size > (1ULL << 40))
        return -EINVAL;
    int fd = memfd_create("tdtrace-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    size_t maplen = TD_RING_HDR + size;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)maplen) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
        (m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        int e = errno;
        close(fd);
        return -e;
    }
    r->hdr = m;
    r->data = (unsigned char *)m + TD_RING_HDR;
    r->size = size;
    r->mask = size - 1;
    r->maplen = maplen;
    r->hdr->version = TD_RING_VERSION;
    r->hdr->flags = flags;
    r->hdr->size = size;
    r->hdr->consumer_pid = (int32_t)getpid();
    atomic_store_explicit((_Atomic uint64_t *)&r->hdr->magic, TD_RING_MAGIC, memory_order_release);
    return fd;
}

int td_ring_map(struct td_ring *r, int fd)
{
    memset(r, 0, sizeof(*r));
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if ((size_t)st.st_size < TD_RING_HDR + 65536)
        return -EINVAL;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return -errno;
    struct td_ring_hdr *h = m;
    uint64_t size = h->size;
    if (h->magic != TD_RING_MAGIC || h->version != TD_RING_VERSION || size < 65536 ||
        (size & (size - 1)) || TD_RING_HDR + size != (uint64_t)st.st_size) {
        munmap(m, (size_t)st.st_size);
        return -EINVAL;
    }
    r->hdr = h;
    r->data = (unsigned char *)m + TD_RING_HDR;
    r->size = size;
    r->mask = size - 1;
    r->maplen = (size_t)st.st_size;
    return 0;
}

void td_ring_unmap(struct td_ring *r)
{
    if (r->hdr)
        munmap(r->hdr, r->maplen);
    memset(r, 0, sizeof(*r));
}

static int consumer_gone(struct td_ring *r)
{
    pid_t pid = r->hdr->consumer_pid;
    int gone = pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
    if (gone)
        __atomic_store_n(&r->consumer_gone, 1, __ATOMIC_RELAXED);
    return gone;
}

/* ThreadSanitizer sees only this process: the space a writer reserves was
 * freed by the reader (tdtrace, another process) after an earlier writer
 * committed it there, and that chain (commit, read, tail, reserve) is
 * invisible to it. Say it directly, per 64-byte line of the record (records
 * of different lengths overlap in lines, not at their starts): a commit
 * releases the lines it wrote, a reservation acquires the lines it will
 * write. Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static void tsan_lines(void *p, uint32_t len, int release)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + len;
    for (; a < end; a += 64) {
        if (release)
            __tsan_release((void *)a);
        else
            __tsan_acquire((void *)a);
    }
}
#define TSAN_ACQUIRE(p, len) tsan_lines((p), (len), 0)
#define TSAN_RELEASE(p, len) tsan_lines((p), (len), 1)
#else
#define TSAN_ACQUIRE(p, len) ((void)(p), (void)(len))
#define TSAN_RELEASE(p, len) ((void)(p), (void)(len))
#endif

/* each writer thread remembers the last tail it saw, and reads the shared
 * one (a cache line the reader keeps writing) only when that looks full */
static __thread uint64_t seen_tail;

struct td_rec *td_ring_reserve(struct td_ring *r, uint32_t len, unsigned type, int32_t tid,
                               int bounded)
{
    if (!r->hdr || len < sizeof(struct td_rec) || len > TD_RING_MAXREC || (len & 7))
        return NULL;
    unsigned spins = 0;
    uint64_t h, off, pad;
    if (__builtin_expect(__atomic_load_n(&r->consumer_gone, __ATOMIC_RELAXED), 0)) { /* tdtrace was killed (tdtrace -p: the process goes on) */
        atomic_fetch_add_explicit(A(&r->hdr->dropped), 1, memory_order_relaxed);
        return NULL;
    }
    for (;;) {
        h = atomic_load_explicit(A(&r->hdr->head), memory_order_relaxed);
        if (h & 7) { /* someone scribbled on head: records stay 8-aligned */
            atomic_compare_exchange_weak_explicit(A(&r->hdr->head), &h, (h + 7) & ~(uint64_t)7,
                                                  memory_order_acq_rel, memory_order_relaxed);
            continue;
        }
        off = h & r->mask;
        pad = off + len > r->size ? r->size - off : 0;
        uint64_t t = seen_tail;
        if (h + pad + len - t > r->size || t > h) {
            t = atomic_load_explicit(A(&r->hdr->tail), memory_order_acquire);
            seen_tail = t;
        }
        if (h + pad + len - t > r->size) {
            /* full */
            if (bounded || (++spins % 4096 == 0 && consumer_gone(r))) {
                atomic_fetch_add_explicit(A(&r->hdr->dropped), 1, memory_order_relaxed);
                return NULL;
            }
            if (spins < 64) {
                sched_yield();
            } else {
                struct timespec ts = { 0, 20000 };
                nanosleep(&ts, NULL);
            }
            continue;
        }
        if (atomic_compare_exchange_weak_explicit(A(&r->hdr->head), &h, h + pad + len,
                                                  memory_order_acq_rel, memory_order_relaxed))
            break;
    }
    if (pad) {
        struct td_rec *p = (struct td_rec *)(r->data + off);
        atomic_store_explicit(A(&p->word), TD_REC_WORD(pad, TD_ST_COMMITTED, TD_REC_PAD, tid),
                              memory_order_release);
        off = 0;
    }
    struct td_rec *rec = (struct td_rec *)(r->data + off);
    TSAN_ACQUIRE(rec, len);
    atomic_store_explicit(A(&rec->word), TD_REC_WORD(len, TD_ST_RESERVED, type, tid),
                          memory_order_relaxed);
    return rec;
}

void td_ring_commit(struct td_rec *rec)
{
    uint64_t w = atomic_load_explicit(A(&rec->word), memory_order_relaxed);
    w = (w & ~((uint64_t)0xff << 16)) | ((uint64_t)TD_ST_COMMITTED << 16);
    TSAN_RELEASE(rec, TD_REC_LEN(w));
    atomic_store_explicit(A(&rec->word), w, memory_order_release);
}

#define PUBLISH_EVERY 64

void td_ring_publish(struct td_ring *r)
{
    if (r->unpublished) {
        atomic_store_explicit(A(&r->hdr->tail), r->rtail, memory_order_release);
        r->unpublished = 0;
    }
}

/* skip n bytes at the read position: zero them, then advance */
static void consume(struct td_ring *r, uint64_t t, uint64_t n)
{
    uint64_t off = t & r->mask;
    if (off + n <= r->size) {
        memset(r->data + off, 0, n);
    } else {
        memset(r->data + off, 0, r->size - off);
        memset(r->data, 0, n - (r->size - off));
    }
    r->rtail = t + n;
    if (++r->unpublished >= PUBLISH_EVERY)
        td_ring_publish(r);
}

/* the ring's head, if it can be believed */
static int head_ok(const struct td_ring *r, uint64_t t, uint64_t h)
{
    return h >= t && h - t <= r->size && !(h & 7);
}

int td_ring_read(struct td_ring *r, void *buf, int final, struct td_ring_loss *loss)
{
    r->stall_tid = 0;
    {
        uint64_t t = r->rtail;
        uint64_t h = atomic_load_explicit(A(&r->hdr->head), memory_order_acquire);
        if (h == t) {
            td_ring_publish(r);
            return 0;
        }
        if (!head_ok(r, t, h)) {
            /* the process scribbled on its header: nothing in the ring can
             * be trusted; start over where head says (aligned) */
            h = (h + 7) & ~(uint64_t)7;
            loss->resyncs++;
            memset(r->data, 0, r->size);
            r->rtail = h;
            r->unpublished = 0;
            atomic_store_explicit(A(&r->hdr->tail), h, memory_order_release);
            atomic_store_explicit(A(&r->hdr->head), h, memory_order_release);
            return -1;
        }
        uint64_t off = t & r->mask;
        uint64_t w = atomic_load_explicit(A(r->data + off), memory_order_acquire);
        uint32_t len = TD_REC_LEN(w);
        unsigned state = TD_REC_STATE(w);
        if (state == TD_ST_FREE && w == 0) {
            if (!final) { /* a writer between its reservation and its first store */
                td_ring_publish(r);
                return 0;
            }
            /* its writer died before storing the word, so before writing
             * anything: the hole is zeros up to the next record */
            uint64_t p = t;
            while (p < h && atomic_load_explicit(A(r->data + (p & r->mask)), memory_order_acquire) == 0)
                p += 8;
            loss->records++;
            loss->bytes += p - t;
            consume(r, t, p - t);
            return -1;
        }
        if (len < sizeof(struct td_rec) || (len & 7) || off + len > r->size || len > h - t ||
            len > TD_RING_MAXREC || state > TD_ST_COMMITTED || state == TD_ST_FREE) {
            if (TD_REC_TYPE(w) == TD_REC_PAD && state == TD_ST_COMMITTED && len >= 8 && !(len & 7) &&
                off + len == r->size && len <= h - t) {
                consume(r, t, len);
                return -1;
            }
            /* no way to find the next record: the rest is lost */
            loss->bytes += h - t;
            consume(r, t, h - t);
            td_ring_publish(r);
            return -1;
        }
        if (state == TD_ST_RESERVED) {
            if (!final) {
                r->stall_tid = TD_REC_TID(w);
                td_ring_publish(r);
                return 0;
            }
            loss->records++;
            consume(r, t, len);
            return -1;
        }
        if (TD_REC_TYPE(w) == TD_REC_PAD) {
            consume(r, t, len);
            return -1;
        }
        memcpy(buf, r->data + off, len);
        consume(r, t, len);
        return (int)len;
    }
}

void td_ring_skip(struct td_ring *r, struct td_ring_loss *loss)
{
    uint64_t t = r->rtail;
    uint64_t h = atomic_load_explicit(A(&r->hdr->head), memory_order_acquire);
    if (!head_ok(r, t, h) || h == t)
        return;
    uint64_t w = atomic_load_explicit(A(r->data + (t & r->mask)), memory_order_acquire);
    uint32_t len = TD_REC_LEN(w);
    if (TD_REC_STATE(w) != TD_ST_RESERVED || len < 8 || (len & 7) || (t & r->mask) + len > r->size ||
        len > h - t)
        return;
    loss->records++;
    consume(r, t, len);
    td_ring_publish(r);
}
