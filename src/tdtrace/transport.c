/* SPDX-License-Identifier: Apache-2.0 */
/* The records' way in. tdtrace listens on an abstract unix socket (no file
 * to create, plant or leave behind); the shim in each traced process
 * connects once per process, tdtrace asks the kernel who connected
 * (SO_PEERCRED), refuses a process it does not trace, and hands over a new
 * ring (memfd, sealed against resizing) with the control area (sealed
 * read-only) and the shared area. So a record's process is the ring's
 * owner, known from the kernel, and a program that writes garbage into its
 * ring can only lose its own records.
 *
 * Draining is bounded (td_transport_drain's budget), so the loop goes back
 * to waitpid often whatever the record rate. A reserved record whose
 * writer is gone (the kernel says so: tgkill(pid, tid, 0) fails with
 * ESRCH) is skipped and counted; once a process has ended or exec'd, its
 * ring has no writer left and is read to the end (td_ring_read's final
 * mode), then its exit line is printed. What could not be read is said
 * per process at the end. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "clock.h"
#include "ring.h"
#include "transport.h"

struct xring {
    struct td_ring r;
    pid_t pid;
    int final;            /* its process ended or exec'd: no writer is left */
    int exit_pending, exit_status;
    struct xring *older;  /* the same process's previous ring, read first */
    uint64_t stall_since; /* ns: a reserved record has blocked the way since */
    int32_t stall_tid;
};

/* what went wrong, per process, for the report */
struct pstat {
    pid_t pid;
    unsigned long long invalid, thread_lost, lost, bytes, resyncs;
    char first_invalid[200];
};

#define MAX_RINGS_PER_PID 4

static const struct td_transport_ops *ops;
static uint64_t ring_size;
static uint32_t ring_flags;
static int lfd = -1, efd = -1, ctl_fd = -1, shared_fd = -1;
static struct td_shared *shared;
static struct xring **rings;
static size_t nrings, caprings, rr;
static struct pstat *pstats;
static size_t npstats, cappstats;
static unsigned long long dropped, refused;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct pstat *pstat(pid_t pid)
{
    for (size_t i = 0; i < npstats; i++)
        if (pstats[i].pid == pid)
            return &pstats[i];
    if (npstats == cappstats) {
        size_t cap = cappstats ? cappstats * 2 : 16;
        struct pstat *n = realloc(pstats, cap * sizeof(*n));
        if (!n)
            die("out of memory");
        pstats = n;
        cappstats = cap;
    }
    struct pstat *p = &pstats[npstats++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    return p;
}

void td_transport_invalid(pid_t pid, const char *why)
{
    struct pstat *p = pstat(pid);
    if (!p->invalid++)
        snprintf(p->first_invalid, sizeof(p->first_invalid), "%s", why);
}

static int sealed_memfd(const char *name, const void *data, size_t len, size_t size, int seal_write)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        die_errno("memfd_create");
    if (ftruncate(fd, (off_t)size) < 0)
        die_errno("ftruncate");
    for (size_t off = 0; off < len;) {
        ssize_t w = pwrite(fd, (const char *)data + off, len - off, (off_t)off);
        if (w <= 0)
            die_errno("cannot write tdtrace's control area");
        off += (size_t)w;
    }
    int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL | (seal_write ? F_SEAL_WRITE : 0);
    if (fcntl(fd, F_ADD_SEALS, seals) < 0)
        die_errno("cannot seal tdtrace's control area");
    return fd;
}

void td_transport_init(const struct td_transport_ops *o, uint32_t flags, uint64_t rsize,
                       const uint8_t *mask, size_t masklen, const char *policy, size_t policy_len,
                       char *name, size_t namelen)
{
    ops = o;
    ring_size = rsize;
    ring_flags = flags;
    size_t clen = sizeof(struct td_ctl) + policy_len;
    struct td_ctl *ctl = calloc(1, clen);
    if (!ctl)
        die("out of memory");
    ctl->magic = TD_CTL_MAGIC;
    ctl->version = TD_RING_VERSION;
    ctl->flags = flags;
    ctl->ring_size = rsize;
    ctl->policy_len = (uint32_t)policy_len;
    memcpy(ctl->trace_mask, mask, masklen < sizeof(ctl->trace_mask) ? masklen : sizeof(ctl->trace_mask));
    if (policy_len)
        memcpy(ctl + 1, policy, policy_len);
    ctl_fd = sealed_memfd("tdtrace-control", ctl, clen, clen, 1);
    free(ctl);
    shared_fd = sealed_memfd("tdtrace-shared", NULL, 0, 4096, 0);
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, shared_fd, 0);
    if (shared == MAP_FAILED)
        die_errno("mmap");
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd < 0)
        die_errno("eventfd");

    /* an abstract socket with an unpredictable name */
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        die_errno("getrandom");
    int k = snprintf(name, namelen, "tdtrace-%d-", (int)getpid());
    for (size_t i = 0; i < sizeof(rnd) && k + 2 < (int)namelen; i++)
        k += snprintf(name + k, namelen - (size_t)k, "%02x", rnd[i]);
    lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (lfd < 0)
        die_errno("socket");
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(a.sun_path + 1, name, n);
    if (bind(lfd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
        listen(lfd, 256) < 0)
        die_errno("cannot listen for traced processes");
}

int td_transport_fds(struct pollfd *pfd, int max)
{
    int n = 0;
    if (n < max && lfd >= 0)
        pfd[n++] = (struct pollfd){ lfd, POLLIN, 0 };
    if (n < max && efd >= 0)
        pfd[n++] = (struct pollfd){ efd, POLLIN, 0 };
    return n;
}

static void add_ring(pid_t pid, const struct td_ring *r)
{
    struct xring *x = calloc(1, sizeof(*x));
    if (!x)
        die("out of memory");
    x->r = *r;
    x->pid = pid;
    /* a process connects again after an exec (or a raw fork's child with
     * its parent's pid cache): its earlier rings are read first */
    for (size_t i = nrings; i-- > 0;)
        if (rings[i]->pid == pid) {
            x->older = rings[i];
            break;
        }
    if (nrings == caprings) {
        size_t cap = caprings ? caprings * 2 : 64;
        struct xring **nr = realloc(rings, cap * sizeof(*nr));
        if (!nr)
            die("out of memory");
        rings = nr;
        caprings = cap;
    }
    rings[nrings++] = x;
}

/* one traced process asks for its ring */
static void serve(int c)
{
    struct ucred cr;
    socklen_t cl = sizeof(cr);
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 || cr.pid <= 0 || !ops->traced(cr.pid)) {
        refused++;
        return;
    }
    /* one ring per process image; a process that keeps asking is refused
     * (each ring is address space and a mapping in tdtrace) */
    int mine = 0;
    for (size_t i = 0; i < nrings; i++)
        mine += rings[i]->pid == cr.pid;
    if (mine >= MAX_RINGS_PER_PID) {
        refused++;
        return;
    }
    struct td_ring r;
    int fd = td_ring_create(&r, ring_size, ring_flags);
    if (fd < 0) {
        errno = -fd;
        warn_msg("warning: pid %d: cannot make its record ring: %s", (int)cr.pid, strerror(errno));
        return;
    }
    const int fds[4] = { fd, ctl_fd, shared_fd, efd };
    int w = td_fdpass_send(c, 0, fds, 4);
    close(fd);
    if (w == 0)
        add_ring(cr.pid, &r);
    else
        td_ring_unmap(&r);
}

void td_transport_ready(const struct pollfd *pfd, int n)
{
    for (int i = 0; i < n; i++) {
        if (!(pfd[i].revents & POLLIN))
            continue;
        if (pfd[i].fd == lfd) {
            int c;
            while ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
                serve(c);
                close(c);
            }
        } else if (pfd[i].fd == efd) {
            uint64_t v;
            if (read(efd, &v, sizeof(v)) < 0) {
                /* EAGAIN: someone else's wake-up was read already */
            }
        }
    }
}

/* a process that connects while tdtrace sleeps in poll is served there;
 * this serves those that wait while tdtrace is busy */
static void accept_pending(void)
{
    struct pollfd p = { lfd, POLLIN, POLLIN };
    td_transport_ready(&p, 1);
}

void td_transport_sleeping(int on)
{
    atomic_store((_Atomic uint32_t *)&shared->reader_waiting, on ? 1u : 0u);
}

static void release(size_t i)
{
    struct xring *x = rings[i];
    dropped += atomic_load_explicit((_Atomic uint64_t *)&x->r.hdr->dropped, memory_order_relaxed);
    for (size_t k = 0; k < nrings; k++)
        if (rings[k]->older == x)
            rings[k]->older = NULL;
    int pending = x->exit_pending, status = x->exit_status;
    pid_t pid = x->pid;
    td_ring_unmap(&x->r);
    free(x);
    rings[i] = rings[--nrings];
    if (pending)
        ops->exit(pid, status);
}

/* read ring i: at most *budget records; 1 if it was released */
static int drain_one(size_t i, int *budget)
{
    static _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    struct xring *x = rings[i];
    struct td_ring_loss loss = { 0, 0, 0 };
    int rc = 0;
    while (*budget > 0) {
        int n = td_ring_read(&x->r, buf, x->final, &loss);
        if (n > 0) {
            (*budget)--;
            ops->record(x->pid, (struct td_rec *)buf, (uint32_t)n);
            continue;
        }
        if (n < 0) {
            (*budget)--;
            continue;
        }
        if (x->final) {
            rc = 1; /* read to the end */
            break;
        }
        if (x->r.stall_tid == 0 || x->r.stall_tid != x->stall_tid) {
            x->stall_tid = x->r.stall_tid;
            x->stall_since = x->stall_tid ? now_ns() : 0;
            break;
        }
        /* the same reserved record for more than a millisecond: is its
         * writer still there? (a thread id from the record: at worst the
         * process skips one of its own records) */
        if (now_ns() - x->stall_since < 1000000 ||
            syscall(SYS_tgkill, x->pid, x->stall_tid, 0) == 0 || errno != ESRCH)
            break;
        struct td_ring_loss skipped = { 0, 0, 0 };
        td_ring_skip(&x->r, &skipped);
        pstat(x->pid)->thread_lost += skipped.records;
        x->stall_tid = 0;
        x->stall_since = 0;
    }
    if (loss.records || loss.bytes || loss.resyncs) {
        struct pstat *p = pstat(x->pid);
        p->lost += loss.records;
        p->bytes += loss.bytes;
        p->resyncs += loss.resyncs;
    }
    if (rc)
        release(i);
    return rc;
}

int td_transport_drain(int budget)
{
    static unsigned turn;
    td_clock_sample();
    if (turn++ % 16 == 0) /* while busy; an idle loop serves them from poll */
        accept_pending();
    int more = 0;
    /* rings in the order processes connected, each a share of the budget
     * (a flood in one does not starve the others); the next turn starts
     * where this one ran out */
    size_t n = nrings;
    for (size_t k = 0; k < n && nrings; k++) {
        size_t i = (rr + k) % nrings;
        if (rings[i]->older) { /* the same process's earlier ring first */
            more = 1;
            continue;
        }
        int share = n > 1 && budget / (int)n > 64 ? budget / (int)n : n > 1 ? 64 : budget;
        if (share > budget)
            share = budget;
        int left = share;
        if (drain_one(i, &left))
            more = 1; /* a ring moved into slot i: look again next time */
        budget -= share - left;
        if (left == 0)
            more = 1;
        if (budget <= 0) {
            rr = i + 1;
            break;
        }
    }
    return more;
}

static void drain_pid(pid_t pid, int budget)
{
    for (size_t i = 0; i < nrings && budget > 0; i++)
        if (rings[i]->pid == pid && !rings[i]->older && drain_one(i, &budget))
            i = (size_t)-1; /* released: start over */
}

void td_transport_drain_pid(pid_t pid)
{
    drain_pid(pid, 1 << 30);
}

void td_transport_drain_written(pid_t pid)
{
    /* what is in pid's rings now (every ring's with pid 0), not what its
     * other threads go on writing */
    for (size_t i = 0; i < nrings; i++) {
        struct xring *x = rings[i];
        if ((pid && x->pid != pid) || x->older)
            continue;
        uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&x->r.hdr->head, memory_order_acquire);
        int budget = 1 << 20;
        while (x->r.rtail < head && budget > 0 && rings[i] == x) {
            int before = budget;
            if (drain_one(i, &budget) || budget == before)
                break; /* released, or nothing ready (a writer mid-record) */
        }
    }
}

void td_transport_exec(pid_t pid)
{
    for (size_t i = 0; i < nrings; i++)
        if (rings[i]->pid == pid)
            rings[i]->final = 1;
}

void td_transport_exit(pid_t pid, int status)
{
    /* the exit line goes with the newest ring: the one no other waits for */
    struct xring *newest = NULL;
    for (size_t i = 0; i < nrings; i++) {
        if (rings[i]->pid != pid)
            continue;
        rings[i]->final = 1;
        int waited_for = 0;
        for (size_t k = 0; k < nrings; k++)
            if (rings[k]->older == rings[i])
                waited_for = 1;
        if (!waited_for)
            newest = rings[i];
    }
    if (!newest) {
        ops->exit(pid, status);
        return;
    }
    newest->exit_pending = 1;
    newest->exit_status = status;
    /* what it wrote comes before anything another process did after its
     * end (a parent's waitpid): read it now, as far as a turn allows */
    drain_pid(pid, 4096);
}

int td_transport_busy(void)
{
    return nrings > 0;
}

int td_transport_timeout(void)
{
    int stalled = 0;
    for (size_t i = 0; i < nrings; i++) {
        struct xring *x = rings[i];
        uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&x->r.hdr->head, memory_order_acquire);
        if (head != x->r.rtail && !x->stall_tid)
            return 0;  /* written since the last drain (its wake-up may have been missed) */
        stalled |= x->stall_tid != 0;
    }
    return stalled ? 2 : -1; /* a writer mid-record: is it still there? */
}

void td_transport_report(int quiet)
{
    (void)quiet;
    for (size_t i = 0; i < npstats; i++) {
        const struct pstat *p = &pstats[i];
        if (p->invalid)
            warn_msg("pid %d: %llu invalid record%s ignored (first: %s)", (int)p->pid, p->invalid,
                     p->invalid == 1 ? "" : "s", p->first_invalid);
        if (p->thread_lost)
            warn_msg("pid %d: %llu record%s lost: a thread ended while writing %s", (int)p->pid,
                     p->thread_lost, p->thread_lost == 1 ? "" : "s", p->thread_lost == 1 ? "it" : "them");
        if (p->lost)
            warn_msg("pid %d: %llu record%s lost: the process ended or exec'd while writing %s",
                     (int)p->pid, p->lost, p->lost == 1 ? "" : "s", p->lost == 1 ? "it" : "them");
        if (p->bytes)
            warn_msg("pid %d: its record ring was written over: %llu bytes skipped", (int)p->pid, p->bytes);
        if (p->resyncs)
            warn_msg("pid %d: its record ring's head was written over: read from there %llu time%s",
                     (int)p->pid, p->resyncs, p->resyncs == 1 ? "" : "s");
    }
    if (dropped)
        warn_msg("%llu records dropped: the buffer was full (--bounded) or tdtrace was gone", dropped);
    if (refused)
        warn_msg("%llu connection%s refused: not from a process tdtrace traces, or from one "
                 "that already had %d rings", refused, refused == 1 ? "" : "s", MAX_RINGS_PER_PID);
}

void td_transport_finish(void)
{
    while (nrings) {
        struct xring *x = rings[nrings - 1];
        while (x->older) /* the same process's rings, oldest first */
            x = x->older;
        x->final = 1;
        for (size_t i = 0; i < nrings; i++)
            if (rings[i] == x) {
                int budget = 1 << 30;
                if (!drain_one(i, &budget))
                    release(i); /* cannot happen: a final ring reads to its end */
                break;
            }
    }
}

void td_transport_free(void)
{
    td_transport_finish();
    free(rings);
    rings = NULL;
    free(pstats);
    pstats = NULL;
    npstats = cappstats = 0;
    if (lfd >= 0)
        close(lfd);
    lfd = -1;
}
