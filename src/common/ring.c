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

int td_ring_create(struct td_ring *r, char *path, size_t pathlen, uint64_t size, uint32_t flags)
{
    memset(r, 0, sizeof(*r));
    if (size < 65536 || (size & (size - 1)))
        return -EINVAL;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(path, pathlen, "/dev/shm/tdtrace-%d-%lx", (int)getpid(),
                 (unsigned long)(ts.tv_nsec ^ (unsigned long)tries * 2654435761u));
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -errno;
    }
    if (fd < 0)
        return -EEXIST;
    size_t maplen = TD_RING_HDR + size;
    if (ftruncate(fd, (off_t)maplen) < 0) {
        int e = errno;
        close(fd);
        unlink(path);
        return -e;
    }
    void *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        int e = errno;
        unlink(path);
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
    return 0;
}

int td_ring_attach(struct td_ring *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || (size_t)st.st_size < TD_RING_HDR + 65536) {
        close(fd);
        return -EINVAL;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
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

void td_ring_detach(struct td_ring *r)
{
    if (r->hdr)
        munmap(r->hdr, r->maplen);
    memset(r, 0, sizeof(*r));
}

static int consumer_gone(struct td_ring *r)
{
    pid_t pid = r->hdr->consumer_pid;
    return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

/* each writer thread remembers the last tail it saw, and reads the shared
 * one (a cache line the reader keeps writing) only when that looks full */
static __thread uint64_t seen_tail;

struct td_rec *td_ring_reserve(struct td_ring *r, uint32_t len, unsigned type)
{
    if (!r->hdr || len < sizeof(struct td_rec) || len > TD_RING_MAXREC || (len & 7))
        return NULL;
    unsigned spins = 0;
    uint64_t h, off, pad;
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
            if ((r->hdr->flags & TD_RING_BOUNDED) || (++spins % 4096 == 0 && consumer_gone(r))) {
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
        atomic_store_explicit(A(&p->word), TD_REC_WORD(pad, TD_ST_COMMITTED, TD_REC_PAD),
                              memory_order_release);
        off = 0;
    }
    struct td_rec *rec = (struct td_rec *)(r->data + off);
    atomic_store_explicit(A(&rec->word), TD_REC_WORD(len, TD_ST_RESERVED, type), memory_order_relaxed);
    return rec;
}

void td_ring_commit(struct td_ring *r, struct td_rec *rec, uint32_t len, unsigned type)
{
    (void)r;
    atomic_store_explicit(A(&rec->word), TD_REC_WORD(len, TD_ST_COMMITTED, type), memory_order_release);
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

int td_ring_read(struct td_ring *r, void *buf, int final, uint64_t *lost_bytes)
{
    if (!r->unpublished)
        r->rtail = atomic_load_explicit(A(&r->hdr->tail), memory_order_relaxed);
    for (;;) {
        uint64_t t = r->rtail;
        uint64_t h = atomic_load_explicit(A(&r->hdr->head), memory_order_acquire);
        if (h == t) {
            td_ring_publish(r);
            return 0;
        }
        if (h < t || h - t > r->size || (t & 7)) {
            /* a writer scribbled on the header: give up on what is there */
            if (h < t || h - t > r->size)
                h = t; /* cannot trust head either */
            *lost_bytes += h - t;
            r->rtail = h;
            r->unpublished = 0;
            atomic_store_explicit(A(&r->hdr->tail), h, memory_order_release);
            atomic_store_explicit(A(&r->hdr->head), h, memory_order_release);
            memset(r->data, 0, r->size);
            return -1;
        }
        uint64_t off = t & r->mask;
        uint64_t w = atomic_load_explicit(A(r->data + off), memory_order_acquire);
        uint32_t len = TD_REC_LEN(w);
        unsigned state = TD_REC_STATE(w);
        int bad_len = len < 8 || (len & 7) || off + len > r->size || len > h - t;
        if (state == TD_ST_FREE || (state == TD_ST_RESERVED && !final)) {
            if (final) { /* the writer never got to store the word: the rest is lost */
                *lost_bytes += h - t;
                consume(r, t, h - t);
            }
            td_ring_publish(r);
            return 0;
        }
        if (bad_len || state > TD_ST_COMMITTED) {
            *lost_bytes += h - t;
            consume(r, t, h - t);
            td_ring_publish(r);
            return -1;
        }
        if (state == TD_ST_RESERVED) { /* final: its writer died mid-record */
            *lost_bytes += len;
            consume(r, t, len);
            continue;
        }
        if (TD_REC_TYPE(w) == TD_REC_PAD) {
            consume(r, t, len);
            continue;
        }
        if (len > TD_RING_MAXREC) {
            *lost_bytes += len;
            consume(r, t, len);
            td_ring_publish(r);
            return -1;
        }
        memcpy(buf, r->data + off, len);
        consume(r, t, len);
        return (int)len;
    }
}
