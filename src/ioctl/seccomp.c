/* SPDX-License-Identifier: Apache-2.0 */
/* The seccomp side: a filter that sends GPU-looking ioctls to tdtrace by
 * user notification, the listener's trip from the child to the parent,
 * and the notification loop (receive, read the target's memory, check the
 * notification is still valid, respond, then print).
 *
 * Kernel behaviour this relies on (seccomp_unotify(2)):
 *  - the filter is inherited across fork/clone and kept across execve;
 *  - a call answered with SECCOMP_USER_NOTIF_FLAG_CONTINUE runs in the
 *    target as if never stopped; its result is not reported back;
 *  - when the listener's last fd closes (tdtrace exits or dies), pending
 *    and future notifying calls fail with ENOSYS; nothing hangs;
 *  - a target that dies or is interrupted by a signal while waiting makes
 *    NOTIF_ID_VALID and NOTIF_SEND fail with ENOENT: skip the event. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "ioctl_int.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* ---- the filter program ---------------------------------------------- */

/* Built by td_ioctl_prepare (in the parent, before fork, so that the
 * child needs no allocation), or on first use in the child. */
static struct sock_filter *prog_insns;
static unsigned short prog_len;
static unsigned prog_flags = ~0u;

static int build_ctx(scmp_filter_ctx ctx, unsigned flags)
{
    int rc;
#if defined(__x86_64__)
    /* 32-bit and x32 ioctls from the same process must be stopped too */
    rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
    if (rc < 0 && rc != -EEXIST)
        return rc;
    rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
    if (rc < 0 && rc != -EEXIST)
        return rc;
#elif defined(__aarch64__)
    rc = seccomp_arch_add(ctx, SCMP_ARCH_ARM);
    if (rc < 0 && rc != -EEXIST)
        return rc;
#endif
    /* any other architecture: run untouched, never kill the program */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
    if (rc < 0)
        return rc;
    if (flags & TD_IOCTL_TRAP_ALL)
        return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 0);
    const struct td_ioctl_match *m;
    size_t n = td_ioctl_filter_table(&m);
    for (size_t i = 0; i < n; i++) {
        /* a 32-bit mask: the kernel reads the request as unsigned int, so
         * the upper half must not matter (libseccomp compares it masked) */
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, m[i].mask, m[i].value));
        if (rc < 0)
            return rc;
    }
    return 0;
}

int td_ioctl_prepare(unsigned flags)
{
    if (prog_insns && prog_flags == flags)
        return 0;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -ENOMEM;
    int rc = build_ctx(ctx, flags);
    int mfd = -1;
    if (rc == 0) {
        mfd = memfd_create("tdtrace-filter", MFD_CLOEXEC);
        rc = mfd < 0 ? -errno : seccomp_export_bpf(ctx, mfd);
    }
    seccomp_release(ctx);
    struct stat st;
    if (rc == 0 && fstat(mfd, &st) < 0)
        rc = -errno;
    if (rc == 0 && (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) ||
                    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS))
        rc = -E2BIG;
    struct sock_filter *insns = NULL;
    if (rc == 0 && !(insns = malloc((size_t)st.st_size)))
        rc = -ENOMEM;
    if (rc == 0 && pread(mfd, insns, (size_t)st.st_size, 0) != st.st_size)
        rc = -EIO;
    if (mfd >= 0)
        close(mfd);
    if (rc < 0) {
        free(insns);
        return rc;
    }
    free(prog_insns);
    prog_insns = insns;
    prog_len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
    prog_flags = flags;
    return 0;
}

static int have_cap_sys_admin(void)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof(d));
    if (syscall(SYS_capget, &h, d) < 0)
        return 0;
    return (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

/* load the program; returns the listener fd or -errno */
static int load_filter(void)
{
    if (!have_cap_sys_admin() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -errno;
    struct sock_fprog fp = { prog_len, prog_insns };
    /* WAIT_KILLABLE_RECV (Linux 5.19): once tdtrace has taken the
     * notification, a signal no longer aborts the call with EINTR.
     * SPEC_ALLOW: a tracer is not a sandbox; without it the kernel turns on
     * the speculative-store-bypass mitigation for the whole traced program,
     * which slows every instruction, not just syscalls. */
    static const unsigned long tries[] = {
        SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV | SECCOMP_FILTER_FLAG_SPEC_ALLOW,
        SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_SPEC_ALLOW,
        SECCOMP_FILTER_FLAG_NEW_LISTENER,
    };
    long fd = -1;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
        fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, tries[i], &fp);
        if (fd >= 0 || errno != EINVAL)
            break;
    }
    return fd < 0 ? -errno : (int)fd;
}

/* one message: an int status (0 or -errno) and, when 0, the listener */
static int send_status(int sock, int status, int fd)
{
    return td_fdpass_send(sock, status, &fd, fd >= 0 ? 1 : 0);
}

int td_ioctl_child_install_ex(int sock, unsigned flags)
{
    int rc = td_ioctl_prepare(flags);
    int fd = rc < 0 ? rc : load_filter();
    if (fd < 0) {
        send_status(sock, fd, -1);
        return fd;
    }
    rc = send_status(sock, 0, fd);
    /* the target must never hold its own listener: if it did, a dead
     * tdtrace would leave its GPU ioctls waiting forever */
    close(fd);
    return rc;
}

int td_ioctl_child_install(int sock)
{
    return td_ioctl_child_install_ex(sock, 0);
}

int td_ioctl_parent_receive(int sock)
{
    int32_t st = 0;
    int fd = -1;
    int n = td_fdpass_recv(sock, &st, &fd, 1);
    if (n < 0)
        return n;                    /* -ECONNRESET: the child died before sending */
    if (st < 0) {
        if (fd >= 0)
            close(fd);
        return st;
    }
    return n == 1 ? fd : -EPROTO;
}

int td_ioctl_killable_supported(void)
{
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sock_fprog fp = { 1, &allow };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            _exit(1);
        long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fp);
        _exit(fd >= 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int td_ioctl_supported(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return 0;
    if (td_ioctl_prepare(0) < 0) {
        close(sv[0]);
        close(sv[1]);
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return 0;
    }
    if (pid == 0) {
        close(sv[0]);
        _exit(td_ioctl_child_install(sv[1]) == 0 ? 0 : 1);
    }
    close(sv[1]);
    int fd = td_ioctl_parent_receive(sv[0]);
    close(sv[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* ---- the notification loop --------------------------------------------- */

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* bytes of [addr, addr+len) copied from the target; 0 when none */
static size_t read_mem(int tid, unsigned long long addr, void *buf, size_t len)
{
    if (!addr || !len)
        return 0;
    struct iovec l = { buf, len };
    struct iovec r = { (void *)(uintptr_t)addr, len };
    ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
    if (n >= 0)
        return (size_t)n;
    if (errno != EPERM && errno != ENOSYS)
        return 0;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = pread(fd, buf, len, (off_t)addr);
    close(fd);
    return n > 0 ? (size_t)n : 0;
}

size_t td_ioctl_int_read(int tid, unsigned long long addr, void *buf, size_t len)
{
    return read_mem(tid, addr, buf, len);
}

static int respond(int listener, struct seccomp_notif_resp *resp, size_t size, __u64 id, int err)
{
    memset(resp, 0, size);
    resp->id = id;
    if (err) {
        resp->error = -err;
        resp->val = 0;
    } else {
        resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
        return -errno;
    return 0;
}

static int ensure_bufs(struct td_ioctl_ctx *c, struct td_ioctl_bufs *b)
{
    td_ioctl_int_bufs(c, b);
    if (*b->req)
        return 0;
    struct seccomp_notif_sizes sz;
    memset(&sz, 0, sizeof(sz));
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0) {
        sz.seccomp_notif = sizeof(struct seccomp_notif);
        sz.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
    }
    size_t rq = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif : sizeof(struct seccomp_notif);
    size_t rs = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sz.seccomp_notif_resp
                                                                            : sizeof(struct seccomp_notif_resp);
    *b->req = calloc(1, rq);
    *b->resp = calloc(1, rs);
    if (!*b->req || !*b->resp) {
        free(*b->req);
        free(*b->resp);
        *b->req = *b->resp = NULL;
        return -ENOMEM;
    }
    *b->req_size = rq;
    *b->resp_size = rs;
    return 0;
}

void td_ioctl_complete(struct td_ioctl_ctx *c, struct td_ioctl_event *ev, long retval)
{
    unsigned long long answered = ev->t_exit_ns;
    ev->result_pending = 0;
    ev->result_known = 1;
    ev->t_exit_ns = now_ns();
    if (retval < 0 && retval > -4096) {
        ev->ret = -1;
        ev->err = (int)-retval;
    } else {
        ev->ret = retval;
        ev->err = 0;
    }
    /* the block now holds what the driver wrote back (a wrapped block
     * read after it at entry stays as it was) */
    size_t len = ev->arglen < ev->argwant ? ev->arglen : ev->argwant;
    if (ev->have_arg && ev->argp && len) {
        unsigned char now[sizeof(ev->arg)];
        if (td_ioctl_int_read(ev->tid, ev->argp, now, len) == len)
            memcpy(ev->arg, now, len);
    }
    td_ioctl_int_account_result(c, ev, ev->t_exit_ns > answered ? ev->t_exit_ns - answered : 0);
}

int td_ioctl_handle(struct td_ioctl_ctx *c, int listener,
                    void (*emit)(void *opaque, const struct td_ioctl_event *ev), void *opaque)
{
    struct pollfd pfd = { listener, POLLIN, 0 };
    int n = poll(&pfd, 1, 0);
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    if (n == 0)
        return 0;
    if (pfd.revents & POLLNVAL)
        return -1;
    if (!(pfd.revents & POLLIN))
        return (pfd.revents & (POLLHUP | POLLERR)) ? -1 : 0;

    struct td_ioctl_bufs b;
    if (ensure_bufs(c, &b) < 0)
        return 0;   /* out of memory: the call waits; try again */
    struct seccomp_notif *req = *b.req;
    struct seccomp_notif_resp *resp = *b.resp;
    memset(req, 0, *b.req_size);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
        /* ENOENT: the target went away between poll and here */
        if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
            return 0;
        return -1;
    }
    unsigned long long t0 = now_ns();
    int is32 = !(req->data.arch & __AUDIT_ARCH_64BIT);
    int tid = (int)req->pid;
    int fd = (int)(unsigned)req->data.args[0];
    unsigned long request = (unsigned long)(req->data.args[1] & 0xffffffffULL);
    unsigned long long argp = req->data.args[2];
    if (is32)
        argp &= 0xffffffffULL;

    char link[64], path[256];
    snprintf(link, sizeof(link), "/proc/%d/fd/%d", tid, fd);
    ssize_t pl = fd >= 0 ? readlink(link, path, sizeof(path) - 1) : -1;
    path[pl > 0 ? pl : 0] = '\0';

    if (!td_ioctl_int_wants(c, path)) {
        /* not a GPU node: let it run at once, print nothing */
        int rc = respond(listener, resp, *b.resp_size, req->id, 0);
        return rc == -ENOENT || rc == 0 ? 0 : (rc == -EBADF ? -1 : 0);
    }

    struct td_ioctl_event *ev = td_ioctl_int_event(c);
    memset(ev, 0, offsetof(struct td_ioctl_event, arg));
    memset((char *)ev + offsetof(struct td_ioctl_event, arglen), 0,
           sizeof(*ev) - offsetof(struct td_ioctl_event, arglen));
    ev->tid = tid;
    ev->fd = fd;
    memcpy(ev->path, path, sizeof(ev->path));
    ev->request = request;
    ev->argp = argp;
    ev->t_enter_ns = t0;
    const struct td_family *fam = td_family_for(request, path);
    ev->family = fam ? fam->id : TD_IOF_OTHER;
    size_t want = fam ? fam->argsize(request) : TD_IOC_SIZE(request);
    ev->argwant = want;
    if (want > sizeof(ev->arg))
        want = sizeof(ev->arg);
    if (argp && want) {
        ev->arglen = read_mem(tid, argp, ev->arg, want);
        ev->have_arg = ev->arglen > 0;
    }
    /* NV_ESC_IOCTL_XFER_CMD wraps another escape: fetch the wrapped block */
    unsigned long long iptr;
    size_t isize;
    if (fam && fam->id == TD_IOF_NVIDIA && TD_IOC_NR(request) == 0xd3 && ev->arglen == 16 &&
        td_nv_xfer_inner(ev->arg, ev->arglen, &iptr, &isize) == 0 && iptr && isize) {
        size_t room = sizeof(ev->arg) - 16;
        ev->arglen += read_mem(tid, iptr, ev->arg + 16, isize < room ? isize : room);
    }
    ev->pid = td_ioctl_int_tgid(c, tid);

    /* everything read from /proc and the target's memory is only
     * trustworthy if the notification is still live (the pid was not
     * reused by another process meanwhile) */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) < 0) {
        td_ioctl_int_vanished(c);
        td_ioctl_forget(c, tid);
        return 0;
    }

    const struct td_ioctl_rule *rule = td_ioctl_int_decide(c, ev);
    int err = 0;
    if (rule) {
        ev->rule = rule;
        if (td_ioctl_int_enforce(c)) {
            err = rule->err > 0 ? rule->err : EPERM;
            ev->denied = 1;
            ev->result_known = 1;
            ev->ret = -1;
            ev->err = err;
        } else {
            ev->would_deny = 1;
        }
    }
    if (!err)
        ev->result_pending = td_ioctl_int_result_hook(c, ev) == 1;
    int rc = respond(listener, resp, *b.resp_size, req->id, err);
    ev->t_exit_ns = now_ns();
    if (rc == -ENOENT) {   /* interrupted or died: the call did not happen as such */
        td_ioctl_int_vanished(c);
        return 0;
    }
    if (rc < 0)
        return rc == -EBADF ? -1 : 0;
    td_ioctl_int_account(c, ev);
    if (emit)
        emit(opaque, ev);
    return 0;
}
