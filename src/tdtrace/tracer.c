/* SPDX-License-Identifier: Apache-2.0 */
/* The process tree: ptrace follows forks, vforks, clones and execs; a
 * seccomp filter (SECCOMP_RET_TRACE on execve and execveat only, so every
 * other syscall runs at full speed) stops each exec at its entry, where the
 * injection environment is put back if the program dropped it. A tracee
 * that vanishes (ESRCH) is normal. PTRACE_O_EXITKILL: if tdtrace dies, so
 * does every tracee. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "tracer.h"

/* every traced thread, by tid: open addressing, grown as needed */
static struct td_proc_state *procs;
static size_t nslots, nlive;
static volatile sig_atomic_t pending_sig;

static size_t slot_of(pid_t tid)
{
    return ((size_t)(uint32_t)tid * 0x9E3779B1u) & (nslots - 1);
}

static struct td_proc_state *proc_find(pid_t tid)
{
    if (!nslots)
        return NULL;
    for (size_t i = slot_of(tid);; i = (i + 1) & (nslots - 1)) {
        if (procs[i].tid == tid)
            return &procs[i];
        if (procs[i].tid == 0)
            return NULL;
    }
}

static struct td_proc_state *proc_add(pid_t tid)
{
    struct td_proc_state *p = proc_find(tid);
    if (p)
        return p;
    if ((nlive + 1) * 2 > nslots) {
        size_t n = nslots ? nslots * 2 : 256;
        struct td_proc_state *old = procs;
        size_t oldn = nslots;
        procs = calloc(n, sizeof(*procs));
        if (!procs)
            die("out of memory");
        nslots = n;
        for (size_t i = 0; i < oldn; i++)
            if (old[i].tid > 0) {
                size_t j = slot_of(old[i].tid);
                while (procs[j].tid)
                    j = (j + 1) & (n - 1);
                procs[j] = old[i];
            }
        free(old);
    }
    size_t j = slot_of(tid);
    while (procs[j].tid > 0)
        j = (j + 1) & (nslots - 1);
    memset(&procs[j], 0, sizeof(procs[j]));
    procs[j].tid = tid;
    procs[j].tgid = tid;
    nlive++;
    return &procs[j];
}

/* backward-shift deletion keeps every probe chain whole */
static void proc_del(pid_t tid)
{
    struct td_proc_state *p = proc_find(tid);
    if (!p)
        return;
    size_t i = (size_t)(p - procs);
    procs[i].tid = 0;
    nlive--;
    for (size_t j = (i + 1) & (nslots - 1); procs[j].tid; j = (j + 1) & (nslots - 1)) {
        size_t k = slot_of(procs[j].tid);
        /* can the entry at j move to the hole at i? */
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            procs[i] = procs[j];
            procs[j].tid = 0;
            i = j;
        }
    }
}

int td_tracer_traced(pid_t pid)
{
    struct td_proc_state *p = proc_find(pid);
    return p && p->tgid == pid;
}

void td_tracer_adopt(pid_t tid, pid_t tgid)
{
    struct td_proc_state *p = proc_add(tid);
    p->attached = 1;
    p->tgid = tgid;
}

void td_tracer_forget(pid_t tid)
{
    proc_del(tid);
}

int td_tracer_has(pid_t tid)
{
    return proc_find(tid) != NULL;
}

/* the thread group of tid, or `gone` when tid has ended already */
static pid_t read_tgid(pid_t tid, pid_t gone)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gone;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return gone;
    buf[n] = '\0';
    char *t = strstr(buf, "\nTgid:");
    return t ? (pid_t)atoi(t + 6) : gone;
}

/* the seccomp stops' data: which rule stopped the thread */
enum { STOP_EXEC = 0, STOP_WRITE = 1 };

int td_tracer_child_setup(unsigned sync_fds)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -ENOMEM;
    int rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(STOP_EXEC), SCMP_SYS(execve), 0);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(STOP_EXEC), SCMP_SYS(execveat), 0);
    /* a write to a descriptor that shares the trace's destination: the
     * records before it are printed first */
    static const int sys[] = { SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(pwrite64), SCMP_SYS(pwritev),
                               SCMP_SYS(pwritev2) };
    for (int fd = 0; rc == 0 && fd < 32; fd++)
        for (size_t k = 0; rc == 0 && (sync_fds >> fd & 1) && k < sizeof(sys) / sizeof(sys[0]); k++)
            rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(STOP_WRITE), sys[k], 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd));
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}

#define PTRACE_OPTS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
                     PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL | \
                     PTRACE_O_TRACEEXIT)

void td_tracer_attach_first(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, WSTOPPED) < 0 || !WIFSTOPPED(st))
        die("the command did not start");
    if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)PTRACE_OPTS) < 0)
        die_errno("ptrace(PTRACE_SEIZE, %d)", (int)pid);
    struct td_proc_state *p = proc_add(pid);
    p->attached = 1;
    kill(pid, SIGCONT);
}

void td_tracer_forward(int sig)
{
    pending_sig = sig;
}

/* a signal to every traced process (each thread group once) */
static void signal_all(int sig)
{
    for (size_t i = 0; i < nslots; i++)
        if (procs[i].tid > 0 && procs[i].tid == procs[i].tgid)
            kill(procs[i].tid, sig);
}

/* ---- tracee memory ---------------------------------------------------- */

static ssize_t peek(pid_t pid, uintptr_t addr, void *buf, size_t len)
{
    struct iovec l = { buf, len }, r = { (void *)addr, len };
    return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

/* a NUL-terminated string of at most max bytes; malloc'd, or NULL */
static char *peek_str(pid_t pid, uintptr_t addr, size_t max)
{
    size_t cap = 256, len = 0;
    char *s = malloc(cap);
    while (s) {
        size_t chunk = 4096 - (addr & 4095);
        if (len + chunk + 1 > cap) {
            cap = (len + chunk + 1) * 2;
            char *t = realloc(s, cap);
            if (!t)
                break;
            s = t;
        }
        ssize_t n = peek(pid, addr, s + len, chunk);
        if (n <= 0)
            break;
        char *z = memchr(s + len, 0, (size_t)n);
        if (z)
            return s;
        len += (size_t)n;
        addr += (uintptr_t)n;
        if (len > max)
            break;
    }
    free(s);
    return NULL;
}

/* ---- execve: put the injection back ----------------------------------- *
 *
 * At the execve's entry (its seccomp stop) the new environment is read;
 * if tdtrace's variables are missing, the merged environment must be
 * written somewhere the program does not use: tdtrace makes the thread
 * run mmap(2) in place of the execve (a fresh anonymous area, so nothing
 * of the program's memory is touched: a vfork or CLONE_VM child shares
 * its parent's stack, and a thread's stack may be small), writes the
 * array and strings there, points envp at it and rewinds the thread to
 * its syscall instruction, so the execve runs again, now with the
 * complete environment. The area is kept per thread and reused when the
 * execve fails and is tried again (execvp's PATH search). */

static void inject_warn(pid_t pid, const char *why)
{
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(link, exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    warn_msg("warning: pid %d (%s): cannot put tdtrace's environment back at execve (%s): "
             "the new program's CUDA calls will not be seen", (int)pid, n > 0 ? exe : "?", why);
}

#if defined(__x86_64__)
/* run one system call in a thread stopped at a system call's entry; the
 * registers are left as the call returned them. 0, or -1 when the thread
 * did not come back to us (it died: the caller gives up) */
static int remote_syscall(pid_t tid, struct user_regs_struct *regs, long nr, const long *a, long *ret)
{
    struct user_regs_struct r = *regs;
    r.orig_rax = (unsigned long long)nr;
    r.rdi = (unsigned long long)a[0];
    r.rsi = (unsigned long long)a[1];
    r.rdx = (unsigned long long)a[2];
    r.r10 = (unsigned long long)a[3];
    r.r8 = (unsigned long long)a[4];
    r.r9 = (unsigned long long)a[5];
    if (ptrace(PTRACE_SETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_SYSCALL, tid, 0, 0) < 0)
        return -1;
    int st;
    for (;;) {
        pid_t w = waitpid(tid, &st, __WALL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w != tid || !WIFSTOPPED(st))
            return -1;
        if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0)
            break; /* the syscall-exit stop */
        return -1;
    }
    if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
        return -1;
    *ret = (long)r.rax;
    *regs = r;
    return 0;
}

/* 1: the thread was sent back to its execve with a new environment (do
 * not resume it again); 0: nothing to do or gave up (resume it) */
static int fix_exec_env(struct td_proc_state *p, pid_t pid)
{
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
        return 0;
    int is_at = regs.orig_rax == SYS_execveat;
    if (!is_at && regs.orig_rax != SYS_execve)
        return 0;
    uintptr_t envp_addr = is_at ? regs.r10 : regs.rdx;
    enum { MAXENV = 65536 };
    char **env = calloc(MAXENV + 1, sizeof(char *));
    if (!env)
        return 0;
    int n = 0, ok = 1, rewound = 0;
    /* the pointers, a page's worth per read */
    uint64_t *ptrs_in = calloc(MAXENV + 1, 8);
    int np = 0;
    while (ptrs_in && envp_addr && np < MAXENV) {
        uintptr_t at = envp_addr + (uintptr_t)np * 8;
        size_t chunk = (4096 - (at & 4095)) / 8;
        if (chunk > (size_t)(MAXENV - np))
            chunk = (size_t)(MAXENV - np);
        ssize_t got = peek(pid, at, ptrs_in + np, chunk * 8);
        if (got < 8) {
            ok = 0;
            break;
        }
        int end = 0, base = np;
        for (size_t k = 0; k < (size_t)got / 8 && !end; k++)
            if (ptrs_in[base + (int)k] == 0)
                end = 1;
            else
                np++;
        if (end)
            break;
    }
    /* the strings: usually side by side (on the caller's stack), so one
     * read of the range they span; one read each where that fails */
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int k = 0; k < np; k++) {
        lo = ptrs_in[k] < lo ? ptrs_in[k] : lo;
        hi = ptrs_in[k] > hi ? ptrs_in[k] : hi;
    }
    char *span = NULL;
    ssize_t spanlen = 0;
    if (ok && np && hi - lo < (8u << 20)) {
        size_t want = hi - lo + 4096 - ((hi + 4096) & 4095);
        span = malloc(want + 1);
        spanlen = span ? peek(pid, lo, span, want) : -1;
    }
    for (int k = 0; ok && ptrs_in && k < np; k++) {
        size_t at = ptrs_in[k] - lo;
        char *z = span && spanlen > 0 && at < (size_t)spanlen ? memchr(span + at, 0, (size_t)spanlen - at) : NULL;
        env[n] = z ? strdup(span + at) : peek_str(pid, ptrs_in[k], 1 << 20);
        if (!env[n]) {
            ok = 0;
            break;
        }
        n++;
    }
    free(span);
    if (!ptrs_in)
        ok = 0;
    free(ptrs_in);
    /* an environment tdtrace cannot read: the execve fails with EFAULT by itself */
    if (!ok || td_env_complete(env, n))
        goto out;
    char **merged = td_env_merge(env, n);
    if (!merged)
        goto out;
    int m = 0;
    size_t strbytes = 0;
    while (merged[m])
        strbytes += strlen(merged[m++]) + 1;
    size_t arrbytes = ((size_t)m + 1) * 8;
    size_t need = (arrbytes + strbytes + 4095) & ~(size_t)4095;
    unsigned char *blob = malloc(arrbytes + strbytes);
    const char *why = NULL;
    if (!blob) {
        why = "out of memory";
        goto done;
    }
    struct user_regs_struct saved = regs;
    uintptr_t base = p->env_area;
    if (!base || p->env_len < need) {
        long a[6] = { 0, (long)need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 };
        long ret;
        if (remote_syscall(pid, &regs, SYS_mmap, a, &ret) < 0) {
            free(blob);
            free(merged);
            for (int i = 0; i < n; i++)
                free(env[i]);
            free(env);
            return 1; /* it died on the way: nothing to resume */
        }
        if (ret < 0 && ret > -4096) {
            why = strerror((int)-ret);
        } else {
            base = (uintptr_t)ret;
            p->env_area = base;
            p->env_len = need;
        }
        rewound = 1; /* the execve was replaced: it must be run again */
    }
    if (!why) {
        uint64_t *ptrs = (uint64_t *)blob;
        size_t off = arrbytes;
        for (int i = 0; i < m; i++) {
            size_t k = strlen(merged[i]) + 1;
            ptrs[i] = base + off;
            memcpy(blob + off, merged[i], k);
            off += k;
        }
        ptrs[m] = 0;
        struct iovec l = { blob, off }, r = { (void *)base, off };
        if (process_vm_writev(pid, &l, 1, &r, 1, 0) != (ssize_t)off)
            why = strerror(errno);
        else if (is_at)
            saved.r10 = base;
        else
            saved.rdx = base;
    }
    if (rewound) { /* back to the syscall instruction, to run the execve again */
        saved.rip -= 2;
        saved.rax = saved.orig_rax;
    }
    if (rewound || !why)
        if (ptrace(PTRACE_SETREGS, pid, 0, &saved) < 0)
            why = strerror(errno);
    free(blob);
done:
    if (why)
        inject_warn(pid, why);
    free(merged);
out:
    for (int i = 0; i < n; i++)
        free(env[i]);
    free(env);
    if (rewound)
        ptrace(PTRACE_CONT, pid, 0, 0);
    return rewound;
}
#else
static int fix_exec_env(struct td_proc_state *p, pid_t pid)
{
    static int warned;
    (void)p;
    (void)pid;
    if (!warned++)
        warn_msg("restoring the injection across execve is not supported on this architecture");
    return 0;
}
#endif

/* ---- the loop ----------------------------------------------------------- */

static void resume(pid_t pid, int sig)
{
    if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig) < 0 && errno != ESRCH)
        warn_msg("ptrace(PTRACE_CONT, %d): %s", (int)pid, strerror(errno));
}

static void handle_stop(pid_t pid, int status, const struct td_tracer_ops *ops)
{
    int sig = WSTOPSIG(status);
    int event = (unsigned)status >> 16;
    struct td_proc_state *p = proc_add(pid);
    if (!p->attached) { /* a new tracee, before its parent's event */
        p->attached = 1;
        p->tgid = read_tgid(pid, pid);
    }
    switch (event) {
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE: {
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
        pid_t child = (pid_t)msg;
        pid_t parent = p->tgid;
        /* a clone's child may have run and ended, and been reaped, already
         * (its own first stop came before this event): it was a thread of
         * the parent, the way threads are made, and is gone (a clone that
         * made a process and ended that fast is not reported either) */
        pid_t tgid = event == PTRACE_EVENT_CLONE ? read_tgid(child, 0) : child;
        if (!tgid) {
            proc_del(child);
            resume(pid, 0);
            return;
        }
        struct td_proc_state *c = proc_add(child); /* may move the table: p is stale */
        c->attached = 1;
        c->tgid = tgid;
        if (c->tgid == child && ops->proc_fork)
            ops->proc_fork(parent, child);
        resume(pid, 0);
        return;
    }
    case PTRACE_EVENT_EXEC: {
        unsigned long former = 0;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
        if ((pid_t)former != pid) /* a thread exec'd: it is the leader now */
            proc_del((pid_t)former);
        p = proc_add(pid);
        p->tgid = pid;
        p->attached = 1;
        p->env_area = 0; /* the old image's memory is gone */
        p->env_len = 0;
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
        ssize_t n = readlink(link, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        if (ops->proc_exec)
            ops->proc_exec(pid, exe);
        resume(pid, 0);
        return;
    }
    case PTRACE_EVENT_EXIT:
        if (ops->thread_exit)
            ops->thread_exit(pid, p->tgid);
        resume(pid, 0);
        return;
    case PTRACE_EVENT_SECCOMP: {
        unsigned long data = STOP_EXEC;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &data);
        if (data == STOP_WRITE) { /* the program writes where the trace goes: the trace first */
            if (ops->sync_write)
                ops->sync_write(p->tgid);
            resume(pid, 0);
            return;
        }
        if (!fix_exec_env(p, pid))
            resume(pid, 0);
        return;
    }
    case PTRACE_EVENT_STOP:
        /* with PTRACE_SEIZE a stop signal here is a group-stop: stay
         * stopped (PTRACE_LISTEN) until SIGCONT, as without tdtrace */
        if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
            if (ptrace(PTRACE_LISTEN, pid, 0, 0) < 0 && errno != ESRCH)
                resume(pid, 0);
            return;
        }
        if (sig == SIGTRAP && ops->interrupted)
            ops->interrupted(pid);
        resume(pid, 0);
        return;
    default:
        break;
    }
    /* a signal on its way to the tracee: deliver it */
    resume(pid, sig == SIGTRAP ? 0 : sig);
}

int td_tracer_loop(pid_t first, const struct td_tracer_ops *ops)
{
    int first_status = 0;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0)
        die_errno("signalfd");
    int killed = 0;
    for (;;) {
        if (ops->turn)
            ops->turn();
        if (pending_sig) {
            int s = pending_sig;
            pending_sig = 0;
            signal_all(s);
        }
        if (!killed && ops->must_stop && ops->must_stop()) {
            killed = 1;
            signal_all(SIGKILL);
        }
        /* process events first: every one that is waiting, then a
         * bounded share of the records */
        int status, events = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
            events++;
            if (WIFSTOPPED(status)) {
                handle_stop(pid, status, ops);
                continue;
            }
            if (!WIFEXITED(status) && !WIFSIGNALED(status))
                continue;
            struct td_proc_state *p = proc_find(pid);
            int leader = !p || p->tgid == pid;
            proc_del(pid);
            if (pid == first)
                first_status = status;
            if (leader)
                ops->proc_exit(pid, status);
        }
        if (pid < 0 && errno == ECHILD && !ops->busy())
            break; /* nobody left, and every record is out */
        int more = ops->drain();
        if (events || more)
            continue;
        /* wait for a child event, a trapped ioctl or records */
        struct pollfd pfd[8];
        int n = 0;
        pfd[n++] = (struct pollfd){ sfd, POLLIN, 0 };
        n += ops->fds ? ops->fds(pfd + n, 7) : 0;
        /* no timer while idle: every event wakes the poll (SIGCHLD, a writer's
         * eventfd, a connection, a trapped ioctl); ops->timeout says when a
         * ring must be looked at again anyway */
        int timeout = ops->timeout ? ops->timeout() : 50;
        if (pid < 0 && (timeout < 0 || timeout > 10))
            timeout = 10; /* nobody left to signal: the last rings are being read */
        if (poll(pfd, (nfds_t)n, timeout) > 0) {
            if (pfd[0].revents & POLLIN) {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                    ;
            }
            if (ops->ready)
                ops->ready(pfd + 1, n - 1);
        }
    }
    close(sfd);
    return first_status;
}
