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

#define MAX_TRACEES 65536

static struct td_proc_state *procs;
static int nprocs;
static volatile sig_atomic_t pending_sig;

static struct td_proc_state *proc_get(pid_t tid, int create)
{
    for (int i = 0; i < nprocs; i++)
        if (procs[i].tid == tid && !procs[i].exited)
            return &procs[i];
    if (!create)
        return NULL;
    for (int i = 0; i < nprocs; i++)
        if (procs[i].exited) {
            memset(&procs[i], 0, sizeof(procs[i]));
            procs[i].tid = tid;
            procs[i].tgid = tid;
            return &procs[i];
        }
    if (nprocs == MAX_TRACEES)
        return NULL;
    if (!procs) {
        procs = calloc(MAX_TRACEES, sizeof(*procs));
        if (!procs)
            die("out of memory");
    }
    struct td_proc_state *p = &procs[nprocs++];
    memset(p, 0, sizeof(*p));
    p->tid = tid;
    p->tgid = tid;
    return p;
}

static pid_t read_tgid(pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tid;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return tid;
    buf[n] = '\0';
    char *t = strstr(buf, "\nTgid:");
    return t ? (pid_t)atoi(t + 6) : tid;
}

int td_tracer_child_setup(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return -ENOMEM;
    int rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), SCMP_SYS(execve), 0);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), SCMP_SYS(execveat), 0);
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
    struct td_proc_state *p = proc_get(pid, 1);
    p->attached = 1;
    kill(pid, SIGCONT);
}

void td_tracer_forward(int sig)
{
    pending_sig = sig;
}

/* ---- tracee memory ---------------------------------------------------- */

static ssize_t peek(pid_t pid, uintptr_t addr, void *buf, size_t len)
{
    struct iovec l = { buf, len }, r = { (void *)addr, len };
    return process_vm_readv(pid, &l, 1, &r, 1, 0);
}

static ssize_t poke(pid_t pid, uintptr_t addr, const void *buf, size_t len)
{
    struct iovec l = { (void *)buf, len }, r = { (void *)addr, len };
    return process_vm_writev(pid, &l, 1, &r, 1, 0);
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

/* ---- execve: put the injection back ----------------------------------- */

#if defined(__x86_64__)
static void fix_exec_env(pid_t pid)
{
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
        return;
    int is_at = regs.orig_rax == SYS_execveat;
    uintptr_t envp_addr = is_at ? regs.r10 : regs.rdx;
    enum { MAXENV = 8192 };
    char **env = calloc(MAXENV + 1, sizeof(char *));
    if (!env)
        return;
    int n = 0, ok = 1;
    while (envp_addr && n < MAXENV) {
        uint64_t ptr;
        if (peek(pid, envp_addr + (uintptr_t)n * 8, &ptr, 8) != 8) {
            ok = 0;
            break;
        }
        if (!ptr)
            break;
        env[n] = peek_str(pid, ptr, 1 << 20);
        if (!env[n]) {
            ok = 0;
            break;
        }
        n++;
    }
    if (ok && !td_env_complete(env, n)) {
        char **merged = td_env_merge(env, n);
        if (merged) {
            int m = 0;
            size_t strbytes = 0;
            while (merged[m])
                strbytes += strlen(merged[m++]) + 1;
            size_t arrbytes = ((size_t)m + 1) * 8;
            uintptr_t base = ((uintptr_t)regs.rsp - 65536 - strbytes - arrbytes) & ~(uintptr_t)15;
            uintptr_t arr = base, str = base + arrbytes;
            uint64_t *ptrs = calloc((size_t)m + 1, 8);
            int wrote = ptrs != NULL;
            for (int i = 0; wrote && i < m; i++) {
                size_t k = strlen(merged[i]) + 1;
                ptrs[i] = str;
                if (poke(pid, str, merged[i], k) != (ssize_t)k)
                    wrote = 0;
                str += k;
            }
            if (wrote && poke(pid, arr, ptrs, arrbytes) == (ssize_t)arrbytes) {
                if (is_at)
                    regs.r10 = arr;
                else
                    regs.rdx = arr;
                ptrace(PTRACE_SETREGS, pid, 0, &regs);
            }
            free(ptrs);
            free(merged);
        }
    }
    for (int i = 0; i < n; i++)
        free(env[i]);
    free(env);
}
#else
static void fix_exec_env(pid_t pid)
{
    static int warned;
    (void)pid;
    if (!warned++)
        warn_msg("restoring the injection across execve is not supported on this architecture");
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
    struct td_proc_state *p = proc_get(pid, 1);
    if (p && !p->attached) { /* a new tracee, before its parent's event */
        p->attached = 1;
        p->tgid = read_tgid(pid);
    }
    switch (event) {
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE: {
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
        pid_t child = (pid_t)msg;
        struct td_proc_state *c = proc_get(child, 1);
        if (c) {
            c->attached = 1;
            c->tgid = event == PTRACE_EVENT_CLONE ? read_tgid(child) : child;
            if (c->tgid == child && ops->proc_new)
                ops->proc_new(child, p ? p->tgid : pid);
        }
        resume(pid, 0);
        return;
    }
    case PTRACE_EVENT_EXEC: {
        unsigned long former = 0;
        ptrace(PTRACE_GETEVENTMSG, pid, 0, &former);
        if ((pid_t)former != pid) { /* a thread exec'd: it is the leader now */
            struct td_proc_state *old = proc_get((pid_t)former, 0);
            if (old)
                old->exited = 1;
        }
        if (p)
            p->tgid = pid;
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
        /* the address space is still there: print what the process wrote
         * while its stack frames can still be symbolised */
        ops->drain();
        resume(pid, 0);
        return;
    case PTRACE_EVENT_SECCOMP:
        fix_exec_env(pid);
        resume(pid, 0);
        return;
    case PTRACE_EVENT_STOP:
        if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
            /* group-stop: stay stopped until SIGCONT, as without tdtrace */
            siginfo_t si;
            if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0 && errno == EINVAL) {
                ptrace(PTRACE_LISTEN, pid, 0, 0);
                return;
            }
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
    for (;;) {
        if (pending_sig) {
            int s = pending_sig;
            pending_sig = 0;
            kill(first, s);
        }
        ops->drain();
        int status;
        pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break; /* ECHILD: nobody left */
        }
        if (pid == 0) {
            /* wait for a child event or a trapped ioctl; wake every
             * millisecond for what the shim wrote */
            int lfd = ops->listen ? ops->listen() : -1;
            struct pollfd pfd[2] = { { sfd, POLLIN, 0 }, { lfd, POLLIN, 0 } };
            if (poll(pfd, lfd >= 0 ? 2 : 1, 1) > 0 && (pfd[0].revents & POLLIN)) {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                    ;
            }
            if (lfd >= 0 && (pfd[1].revents & POLLIN))
                ops->listen();
            continue;
        }
        if (WIFSTOPPED(status)) {
            handle_stop(pid, status, ops);
            continue;
        }
        if (!WIFEXITED(status) && !WIFSIGNALED(status))
            continue;
        struct td_proc_state *p = proc_get(pid, 0);
        int leader = !p || p->tgid == pid;
        if (p)
            p->exited = 1;
        if (pid == first)
            first_status = status;
        if (leader) {
            ops->drain();
            ops->proc_exit(pid, status);
        }
    }
    if (ops->listen)
        ops->listen();
    ops->drain();
    close(sfd);
    return first_status;
}
