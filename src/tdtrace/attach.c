/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -p PID: attach to a running process and detach from it again
 * without a trace left behind (docs/attach.md).
 *
 * Attach: every thread is seized (PTRACE_SEIZE, no PTRACE_O_EXITKILL: the
 * process outlives tdtrace). One thread is interrupted and made to call
 * functions of the process (a remote call: its registers and extended
 * state saved, an aligned stack below its red zone, a return address of
 * 0 whose fault brings it back to tdtrace, then everything restored):
 * mmap for a scratch area and the patcher's islands, the C library's
 * dlopen for the shim, the shim's tdtrace_shim_attach. The other threads
 * run meanwhile (a thread that holds the loader's or malloc's lock must
 * be able to let go of it). Then every thread is stopped, none is left
 * inside bytes about to change (a thread there is single-stepped out),
 * the GOT slots of every object that imports driver entry points and the
 * driver's own entry points are pointed at the shim's wrappers, and the
 * threads go on.
 *
 * Detach: every thread stopped again and stepped out of the patched
 * bytes, every slot and entry restored (each write checks the bytes are
 * still the ones tdtrace wrote), the shim told to record nothing, the
 * threads let go. The shim and the trampolines stay mapped: a thread may
 * be inside them, and pointers the program obtained while attached lead
 * through them (the shim passes those calls on, recording nothing). */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../patch/elfsym.h"
#include "../patch/patch.h"
#include "attach.h"
#include "emuevent.h"
#include "tdtrace/attachreq.h"
#include "tracer.h"

#define SEIZE_OPTS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
                    PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
#define CALL_TIMEOUT_S 60
#define SCRATCH (256u << 10)
#define XSTATE_MAX 16384
#define TD_DLOPEN_SLOT "dlopen"
#define TD_DLOPEN_FN "tdtrace_shim_dlopen" /* src/shim/attach_x86_64.S */

struct thr {
    pid_t tid;
    int stopped;
    int sig; /* a signal to deliver when it goes on */
};

struct aproc {
    pid_t pid;
    struct thr *t;
    size_t nt, capt;
    struct td_procmem pm;
    struct td_patcher *pt;
    struct td_patch *p;
    size_t np;
    struct td_got_patch *g;
    size_t ng;
    uint64_t detach_fn; /* tdtrace_shim_detach in the process */
    uint64_t mmap_fn;
    pid_t caller;       /* the thread that makes the remote calls */
    struct { uint64_t at, size; } isl[16]; /* the islands mapped (a failed attach unmaps them) */
    size_t nisl;
    int gone;
};


/* ---- checks ------------------------------------------------------------ */

int td_attach_check_exe(const char *path, char *why, size_t len)
{
    unsigned char h[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, len, "cannot read its executable %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = pread(fd, h, sizeof(h), 0);
    if (n < 20 || memcmp(h, ELFMAG, SELFMAG) != 0) {
        close(fd);
        snprintf(why, len, "its executable %s is not an ELF file", path);
        return -1;
    }
    unsigned machine = (unsigned)(h[EI_DATA] == ELFDATA2MSB ? (h[18] << 8 | h[19]) : (h[19] << 8 | h[18]));
    if (machine != EM_X86_64 || h[EI_CLASS] != ELFCLASS64) {
        close(fd);
        static const struct { unsigned m; const char *name; } names[] = {
            { EM_386, "i386" }, { EM_AARCH64, "aarch64" }, { EM_ARM, "arm" }, { EM_PPC64, "ppc64" },
            { EM_RISCV, "riscv" }, { EM_S390, "s390" }, { EM_X86_64, "32-bit x86-64 (x32)" },
        };
        const char *name = "unknown";
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (names[i].m == machine)
                name = names[i].name;
        snprintf(why, len, "it is a %s program (ELF machine %u, class %u): tdtrace attaches to x86-64 "
                 "programs only", name, machine, (unsigned)h[EI_CLASS]);
        return -1;
    }
    struct td_elf *e;
    struct td_perr err;
    close(fd);
    if (td_elf_open(path, 0, &e, &err) != 0) {
        snprintf(why, len, "its executable cannot be read: %s", err.msg);
        return -1;
    }
    td_elf_close(e);
    /* a dynamic loader: PT_INTERP among the program headers */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    Elf64_Ehdr eh;
    int interp = 0;
    if (fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && eh.e_phentsize == sizeof(Elf64_Phdr) &&
        eh.e_phnum < 4096) {
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) != (ssize_t)sizeof(ph))
                break;
            interp |= ph.p_type == PT_INTERP;
        }
    }
    if (fd >= 0)
        close(fd);
    if (!interp) {
        snprintf(why, len, "it is statically linked: without a dynamic loader tdtrace cannot load "
                 "its driver shim into it");
        return -1;
    }
    return 0;
}

/* "TracerPid:" of /proc/PID/status, -1 if unreadable */
static long status_field(pid_t pid, const char *field)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *t = strstr(buf, field);
    return t ? atol(t + strlen(field)) : -1;
}

static void proc_name(pid_t pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;
    if (fd >= 0)
        close(fd);
    out[n > 0 ? n : 0] = '\0';
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = '\0';
}

const char *td_attach_eperm_text(int scope)
{
    return scope == 1 ? "kernel.yama.ptrace_scope is 1: a process may be traced only by its ancestors (or by a "
                        "process it named with prctl(PR_SET_PTRACER)); run tdtrace as root (CAP_SYS_PTRACE), "
                        "or set it to 0 with 'sysctl kernel.yama.ptrace_scope=0'"
         : scope == 2 ? "kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may attach; run "
                        "tdtrace as root"
         : scope == 3 ? "kernel.yama.ptrace_scope is 3: no process may attach until the next boot"
         : scope == 0 ? "kernel.yama.ptrace_scope is 0, so this is not Yama: a process of another user, a "
                        "set-user-ID or otherwise non-dumpable process, or a security module (SELinux, "
                        "AppArmor) refused it; run tdtrace as that user or as root"
                      : "a process of another user, a non-dumpable process, or a security module refused it";
}

/* EPERM from PTRACE_SEIZE (or /proc/PID/exe unreadable): say why, as far
 * as the kernel lets one know */
static void eperm_why(char *why, size_t len)
{
    char scope[16] = "";
    int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, scope, sizeof(scope) - 1) : -1;
    if (fd >= 0)
        close(fd);
    scope[n > 0 ? n : 0] = '\0';
    int s = n > 0 && scope[0] >= '0' && scope[0] <= '3' && (scope[1] == '\n' || !scope[1]) ? scope[0] - '0' : -1;
    snprintf(why, len, "no permission to trace it (ptrace: %s): %s", strerror(EPERM), td_attach_eperm_text(s));
}

int td_attach_check(pid_t pid, char *why, size_t len)
{
    char path[64];
    if (pid <= 0) {
        snprintf(why, len, "not a process id");
        return -1;
    }
    if (pid == getpid()) {
        snprintf(why, len, "it is tdtrace itself");
        return -1;
    }
    if (kill(pid, 0) < 0 && errno == ESRCH) {
        snprintf(why, len, "no such process");
        return -1;
    }
    long tgid = status_field(pid, "\nTgid:");
    if (tgid > 0 && tgid != pid) {
        snprintf(why, len, "it is a thread of process %ld: attach to the process", tgid);
        return -1;
    }
    long tracer = status_field(pid, "\nTracerPid:");
    if (tracer > 0) {
        char name[64];
        proc_name((pid_t)tracer, name, sizeof(name));
        snprintf(why, len, "it is already traced by process %ld (%s): a process has one tracer at a time",
                 tracer, name[0] ? name : "?");
        return -1;
    }
    snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
    char exe[PATH_MAX];
    ssize_t n = readlink(path, exe, sizeof(exe) - 1);
    if (n <= 0 && (errno == EACCES || errno == EPERM)) {
        eperm_why(why, len);
        return -1;
    }
    if (n <= 0) {
        snprintf(why, len, "cannot read /proc/%d/exe: %s", (int)pid, strerror(errno));
        return -1;
    }
    return td_attach_check_exe(path, why, len);
}

#if defined(__x86_64__) /* the remote call, the registers and the relocator are x86-64's */

static struct aproc **aps;
static size_t naps;
static void (*serve)(void);

/* ---- threads ------------------------------------------------------------ */

static struct thr *thr_add(struct aproc *ap, pid_t tid)
{
    for (size_t i = 0; i < ap->nt; i++)
        if (ap->t[i].tid == tid)
            return &ap->t[i];
    if (ap->nt == ap->capt) {
        size_t c = ap->capt ? ap->capt * 2 : 16;
        struct thr *t = realloc(ap->t, c * sizeof(*t));
        if (!t)
            die("out of memory");
        ap->t = t;
        ap->capt = c;
    }
    ap->t[ap->nt] = (struct thr){ tid, 0, 0 };
    return &ap->t[ap->nt++];
}

static void thr_del(struct aproc *ap, pid_t tid)
{
    for (size_t i = 0; i < ap->nt; i++)
        if (ap->t[i].tid == tid) {
            ap->t[i] = ap->t[--ap->nt];
            return;
        }
}

/* seize every thread of the process, until a listing finds no new one */
static int seize_all(struct aproc *ap, char *why, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)ap->pid);
    for (int added = 1; added;) {
        added = 0;
        DIR *d = opendir(path);
        if (!d) {
            snprintf(why, len, "cannot list its threads (%s): %s", path, strerror(errno));
            return -1;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
            pid_t tid = (pid_t)atoi(de->d_name);
            if (tid <= 0)
                continue;
            int known = 0;
            for (size_t i = 0; i < ap->nt; i++)
                known |= ap->t[i].tid == tid;
            if (known)
                continue;
            if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)SEIZE_OPTS) < 0) {
                if (errno == ESRCH)
                    continue; /* ended meanwhile */
                int en = errno;
                closedir(d);
                if (en == EPERM)
                    eperm_why(why, len);
                else
                    snprintf(why, len, "ptrace(PTRACE_SEIZE, thread %d): %s", (int)tid, strerror(en));
                return -1;
            }
            thr_add(ap, tid);
            added = 1;
        }
        closedir(d);
    }
    return 0;
}

static void note_fork(struct aproc *ap, pid_t child);

/* wait for tid's next stop and note it; 0 when it is stopped, -1 when it
 * is gone */
static int wait_stop(struct aproc *ap, struct thr *t)
{
    for (;;) {
        int st;
        pid_t w = waitpid(t->tid, &st, __WALL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
            if (t->tid == ap->pid)
                ap->gone = 1;
            return -1;
        }
        int ev = (unsigned)st >> 16;
        unsigned long msg = 0;
        if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK)
            ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
        t->stopped = 1;
        if (ev == PTRACE_EVENT_CLONE) {
            pid_t tid = t->tid;
            thr_add(ap, (pid_t)msg); /* may move t */
            (void)tid;
        } else if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
            note_fork(ap, (pid_t)msg);
        } else if (ev == 0 && WSTOPSIG(st) != SIGTRAP) {
            t->sig = WSTOPSIG(st); /* on its way to the thread: delivered when it goes on */
        }
        return 0;
    }
}

static struct thr *thr_find(struct aproc *ap, pid_t tid)
{
    for (size_t i = 0; i < ap->nt; i++)
        if (ap->t[i].tid == tid)
            return &ap->t[i];
    return NULL;
}

/* the threads of the process now: those made since the attach are the
 * tracer's already (PTRACE_O_TRACECLONE), so they are only noted */
static void refresh_threads(struct aproc *ap)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)ap->pid);
    DIR *d = opendir(path);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        pid_t tid = (pid_t)atoi(de->d_name);
        if (tid > 0 && td_tracer_has(tid))
            thr_add(ap, tid);
    }
    if (d)
        closedir(d);
}

/* stop every thread (threads made meanwhile too) */
static void stop_all(struct aproc *ap)
{
    refresh_threads(ap);
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < ap->nt; i++) {
            if (ap->t[i].stopped)
                continue;
            pid_t tid = ap->t[i].tid;
            if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0 && errno == ESRCH) {
                thr_del(ap, tid);
                again = 1;
                break;
            }
            struct thr *t = thr_find(ap, tid);
            if (wait_stop(ap, t) < 0)
                thr_del(ap, tid);
            again = 1;
            break;
        }
    }
}

static void resume_thr(struct thr *t)
{
    if (!t->stopped)
        return;
    ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)t->sig);
    t->stopped = 0;
    t->sig = 0;
}

static void resume_all(struct aproc *ap)
{
    for (size_t i = 0; i < ap->nt; i++)
        resume_thr(&ap->t[i]);
}

/* ---- remote calls ------------------------------------------------------- */

/* call fn(a0..a5) in the process on its caller thread (stopped), which
 * comes back stopped with its registers as before; 0 and *ret, or -1
 * with why */
static int rcall(struct aproc *ap, uint64_t fn, const uint64_t *a, int na, uint64_t *ret, char *why, size_t wlen)
{
    struct thr *t = thr_find(ap, ap->caller);
    if (!t || !t->stopped) {
        snprintf(why, wlen, "no stopped thread to call with");
        return -1;
    }
    pid_t tid = t->tid;
    struct user_regs_struct saved, r;
    static unsigned char xsave[XSTATE_MAX];
    struct iovec xv = { xsave, sizeof(xsave) };
    if (ptrace(PTRACE_GETREGS, tid, 0, &saved) < 0 || ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &xv) < 0) {
        snprintf(why, wlen, "reading the registers of thread %d: %s", (int)tid, strerror(errno));
        return -1;
    }
    size_t xlen = xv.iov_len;
    r = saved;
    uint64_t sp = (saved.rsp - 128 - 256) & ~(uint64_t)15; /* below the red zone, 16-aligned */
    sp -= 8;                                              /* the return address: as after a call */
    uint64_t zero = 0;
    struct iovec lv = { &zero, 8 }, rv = { (void *)(uintptr_t)sp, 8 };
    if (process_vm_writev(tid, &lv, 1, &rv, 1, 0) != 8 &&
        pwrite(ap->pm.fd, &zero, 8, (off_t)sp) != 8) {
        snprintf(why, wlen, "writing the stack of thread %d: %s", (int)tid, strerror(errno));
        return -1;
    }
    r.rsp = sp;
    r.rip = fn;
    r.rax = 0;
    r.orig_rax = (unsigned long long)-1; /* no system call to restart */
    unsigned long long *args[6] = { &r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9 };
    for (int i = 0; i < na && i < 6; i++)
        *args[i] = a[i];
    if (ptrace(PTRACE_SETREGS, tid, 0, &r) < 0 || ptrace(PTRACE_CONT, tid, 0, 0) < 0) {
        snprintf(why, wlen, "starting the call on thread %d: %s", (int)tid, strerror(errno));
        return -1;
    }
    t->stopped = 0;
    time_t deadline = time(NULL) + CALL_TIMEOUT_S;
    int rc = -1;
    for (;;) {
        int st;
        pid_t w = waitpid(tid, &st, __WALL | WNOHANG);
        if (w == 0) {
            if (serve)
                serve();
            if (time(NULL) > deadline) {
                snprintf(why, wlen, "the call did not return in %d s (a thread of the program may hold a "
                         "lock it needs); the process is left running it", CALL_TIMEOUT_S);
                return -1;
            }
            struct timespec ts = { 0, 200000 };
            nanosleep(&ts, NULL);
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
            snprintf(why, wlen, "thread %d ended during the call", (int)tid);
            thr_del(ap, tid);
            return -1;
        }
        int ev = (unsigned)st >> 16, sig = WSTOPSIG(st);
        if (ev == PTRACE_EVENT_CLONE) { /* the call started a thread: it stays stopped until we are done */
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
            thr_add(ap, (pid_t)msg);
            t = thr_find(ap, tid);
            ptrace(PTRACE_CONT, tid, 0, 0);
            continue;
        }
        if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
            note_fork(ap, (pid_t)msg);
            ptrace(PTRACE_CONT, tid, 0, 0);
            continue;
        }
        if (ev) {
            snprintf(why, wlen, "thread %d exec'd or ended during the call", (int)tid);
            t->stopped = 1;
            break;
        }
        struct user_regs_struct now;
        if (ptrace(PTRACE_GETREGS, tid, 0, &now) < 0) {
            snprintf(why, wlen, "reading the registers of thread %d: %s", (int)tid, strerror(errno));
            t->stopped = 1;
            return -1;
        }
        if (sig == SIGSEGV && now.rip == 0 && now.rsp == sp + 8) { /* returned to 0: done */
            *ret = now.rax;
            t->stopped = 1;
            rc = 0;
            break;
        }
        if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT) {
            snprintf(why, wlen, "the call faulted (%s at 0x%llx)", strsignal(sig), now.rip);
            t->stopped = 1;
            break;
        }
        if (sig != SIGTRAP && sig != SIGSTOP)
            t->sig = sig; /* delivered once the thread is back where it was */
        ptrace(PTRACE_CONT, tid, 0, 0);
    }
    t = thr_find(ap, tid);
    if (!t || ptrace(PTRACE_SETREGS, tid, 0, &saved) < 0)
        return -1;
    xv.iov_len = xlen;
    ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &xv);
    return rc;
}

/* the patcher's islands: mmap(MAP_FIXED_NOREPLACE) in the process */
static int map_island(void *arg, uint64_t lo, uint64_t hi, size_t size, uint64_t *addr)
{
    struct aproc *ap = arg;
    uint64_t at;
    int r = td_maps_find_gap(ap->pid, lo, hi, size, &at);
    if (r)
        return r;
    uint64_t a[6] = { at, size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                      (uint64_t)-1, 0 };
    uint64_t ret;
    char why[256];
    if (rcall(ap, ap->mmap_fn, a, 6, &ret, why, sizeof(why)) < 0)
        return -EIO;
    if (ret != at)
        return -ENOMEM;
    if (ap->nisl < sizeof(ap->isl) / sizeof(ap->isl[0])) {
        ap->isl[ap->nisl].at = at;
        ap->isl[ap->nisl++].size = size;
    }
    *addr = at;
    return 0;
}

/* ---- the process's objects ---------------------------------------------- */

struct obj {
    char path[PATH_MAX];
    uint64_t start, offset; /* its first mapping */
    int exec;
};

struct objs {
    struct obj *o;
    size_t n, cap;
};

static int collect(const struct td_map *m, void *arg)
{
    struct objs *os = arg;
    if (m->path[0] != '/')
        return 0;
    for (size_t i = 0; i < os->n; i++)
        if (strcmp(os->o[i].path, m->path) == 0) {
            os->o[i].exec |= (m->prot & PROT_EXEC) != 0;
            return 0;
        }
    if (os->n == os->cap) {
        size_t c = os->cap ? os->cap * 2 : 64;
        struct obj *o = realloc(os->o, c * sizeof(*o));
        if (!o)
            return -ENOMEM;
        os->o = o;
        os->cap = c;
    }
    struct obj *o = &os->o[os->n++];
    snprintf(o->path, sizeof(o->path), "%s", m->path);
    o->start = m->start;
    o->offset = m->offset;
    o->exec = (m->prot & PROT_EXEC) != 0;
    return 0;
}

/* an object of the process, opened at its load bias; NULL if not ELF */
static struct td_elf *obj_open(pid_t pid, const struct obj *o)
{
    char path[PATH_MAX + 64];
    struct td_elf *e;
    struct td_perr err;
    /* through the process's root, so a process in another mount namespace
     * is read right */
    snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, o->path);
    if (td_elf_open(path, 0, &e, &err) != 0 && td_elf_open(o->path, 0, &e, &err) != 0)
        return NULL;
    uint64_t bias;
    if (td_elf_bias_for_mapping(e, o->start, o->offset, &bias, &err) != 0) {
        td_elf_close(e);
        return NULL;
    }
    td_elf_set_bias(e, bias);
    return e;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static uint64_t find_fn(const struct td_elf *e, const char *name)
{
    struct td_elf_sym s;
    struct td_perr err;
    return td_elf_find_func(e, name, &s, &err) == 0 ? s.addr : 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* the GOT slots tdtrace points at the shim: driver entry points, and
 * dlopen (a driver the program loads later by path must be the shim) */
static int is_cu(const char *name, void *arg)
{
    (void)arg;
    int fn = name[0] == 'c' && name[1] == 'u' ? td_api_find(name) : -1;
    return (fn >= 0 && fn < TD_FN__ENTRY_POINTS) || strcmp(name, TD_DLOPEN_SLOT) == 0;
}

/* ---- attach ------------------------------------------------------------- */

static int cmp_patch(const void *a, const void *b)
{
    const struct td_patch *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void free_ap(struct aproc *ap)
{
    td_procmem_close(&ap->pm);
    if (ap->pt)
        td_patcher_free(ap->pt);
    free(ap->t);
    free(ap->p);
    free(ap->g);
    free(ap);
}

static void detach_one(struct aproc *ap, int quiet);

/* Put every stopped thread out of the bytes the patches in state
 * `applied` (0: about to be applied, 1: about to be undone) change: such a
 * thread is single-stepped until it is past them. A thread stopped in a
 * system call whose restart would go back into them cannot be stepped out
 * (it is inside the kernel): skip[i] is set for that patch i, and for one a
 * thread is still inside after 64 steps. */
static void step_out(struct aproc *ap, int applied, uint8_t *skip)
{
    for (size_t i = 0; i < ap->nt; i++) {
        for (int steps = 0;; steps++) {
            struct user_regs_struct r;
            if (ptrace(PTRACE_GETREGS, ap->t[i].tid, 0, &r) < 0)
                break;
            struct td_thread_ip ip = { ap->t[i].tid, r.rip, (long long)r.orig_rax >= 0 };
            long hit = -1;
            int restart = 0;
            for (size_t k = 0; k < ap->np && hit < 0; k++) {
                if (ap->p[k].applied != applied || skip[k])
                    continue;
                struct td_range rg = td_patch_busy_range(&ap->p[k]);
                if (td_threads_inside(&rg, 1, &ip, 1, NULL, &restart) >= 0)
                    hit = (long)k;
            }
            if (hit < 0)
                break;
            if (restart || steps == 64) {
                skip[hit] = 1;
                continue;
            }
            int st;
            if (ptrace(PTRACE_SINGLESTEP, ap->t[i].tid, 0, 0) < 0 || waitpid(ap->t[i].tid, &st, __WALL) < 0 ||
                !WIFSTOPPED(st))
                break;
            if (WSTOPSIG(st) != SIGTRAP && !ap->t[i].sig)
                ap->t[i].sig = WSTOPSIG(st); /* a signal came: delivered when it goes on */
        }
    }
}

int td_attach(pid_t pid, const struct td_attach_cfg *cfg, char *why, size_t wlen)
{
    if (td_attach_check(pid, why, wlen) < 0)
        return -1;
    serve = cfg->serve;
    struct aproc *ap = calloc(1, sizeof(*ap));
    struct aproc **na = realloc(aps, (naps + 1) * sizeof(*aps));
    if (!ap || !na)
        die("out of memory");
    aps = na;
    ap->pid = pid;
    ap->pm.fd = -1;
    aps[naps++] = ap;
    uint64_t scratch_left = 0, unmap_fn = 0; /* what a failed attach unmaps */
    int seized = seize_all(ap, why, wlen);
    for (size_t i = 0; i < ap->nt; i++)
        td_tracer_adopt(ap->t[i].tid, pid);
    if (seized < 0)
        goto fail;
    struct td_perr perr;
    if (td_procmem_open(&ap->pm, pid, map_island, ap, &perr) != 0) {
        snprintf(why, wlen, "%s", perr.msg);
        goto fail;
    }
    /* the caller thread: the leader, stopped; the others run on */
    ap->caller = pid;
    struct thr *ct = thr_find(ap, pid);
    if (!ct || ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || wait_stop(ap, thr_find(ap, pid)) < 0) {
        snprintf(why, wlen, "its main thread did not stop");
        goto fail;
    }
    /* the C library, the driver, every object */
    struct objs os = { 0 };
    if (td_maps_foreach(pid, collect, &os) < 0) {
        snprintf(why, wlen, "cannot read /proc/%d/maps", (int)pid);
        free(os.o);
        goto fail;
    }
    struct td_elf *libc = NULL, *drv = NULL;
    const struct obj *drv_obj = NULL;
    int drv_emu = 0;
    char shim_path[PATH_MAX + 32];
    snprintf(shim_path, sizeof(shim_path), "%s/libcuda.so.1", cfg->libdir);
    /* objects that look like a driver (they export cuInit and
     * cuGetProcAddress_v2): which one the loader loaded is asked below */
    enum { MAXCAND = 8 };
    size_t cand[MAXCAND], ncand = 0;
    for (size_t i = 0; i < os.n; i++) {
        const char *b = base(os.o[i].path);
        if (!os.o[i].exec) /* a file the program mapped as data is no library */
            continue;
        if (!libc && strncmp(b, "libc.so.6", 9) == 0)
            libc = obj_open(pid, &os.o[i]);
        if (ncand < MAXCAND && !same_file(os.o[i].path, shim_path)) {
            struct td_elf *e = obj_open(pid, &os.o[i]);
            struct td_elf_sym s;
            if (e && td_elf_find_func(e, "cuInit", &s, &perr) == 0 && s.dynamic &&
                td_elf_find_func(e, "cuGetProcAddress_v2", &s, &perr) == 0 && s.dynamic)
                cand[ncand++] = i;
            if (e)
                td_elf_close(e);
        }
    }
    if (!libc) {
        snprintf(why, wlen, "no GNU C library (libc.so.6) is mapped in it: tdtrace loads its shim "
                 "with glibc's dlopen");
        goto fail_objs;
    }
    uint64_t libc_dlopen = find_fn(libc, "dlopen"); /* glibc >= 2.34: in libc.so.6 */
    uint64_t dlopen_fn = libc_dlopen;
    if (!dlopen_fn)
        dlopen_fn = find_fn(libc, "__libc_dlopen_mode");
    uint64_t dlerror_fn = find_fn(libc, "dlerror");
    uint64_t dlclose_fn = find_fn(libc, "dlclose");
    if (!dlclose_fn)
        dlclose_fn = find_fn(libc, "__libc_dlclose");
    ap->mmap_fn = find_fn(libc, "mmap");
    uint64_t munmap_fn = find_fn(libc, "munmap");
    if (!dlopen_fn || !ap->mmap_fn || !munmap_fn) {
        snprintf(why, wlen, "its C library exports no dlopen, mmap or munmap");
        goto fail_objs;
    }
    /* scratch memory for the strings and the request */
    uint64_t a[6] = { 0, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0 };
    uint64_t scratch, ret;
    char cwhy[256];
    if (rcall(ap, ap->mmap_fn, a, 6, &scratch, cwhy, sizeof(cwhy)) < 0 || scratch == (uint64_t)-1) {
        snprintf(why, wlen, "mmap in the process: %s", scratch == (uint64_t)-1 ? "failed" : cwhy);
        goto fail_objs;
    }
    scratch_left = scratch;
    unmap_fn = munmap_fn;
    /* the driver: the first candidate the loader has loaded (a file the
     * program mapped itself, or a copy that merely looks like a driver, is
     * not) */
    for (size_t k = 0; k < ncand && !drv && dlclose_fn; k++) {
        struct td_patch_mem mem = td_procmem_ops(&ap->pm);
        const struct obj *o = &os.o[cand[k]];
        uint64_t at = scratch + SCRATCH - PATH_MAX, h = 0;
        uint64_t da[2] = { at, RTLD_NOW | RTLD_NOLOAD };
        if (mem.write(mem.ctx, at, o->path, strlen(o->path) + 1) != 0 ||
            rcall(ap, dlopen_fn, da, 2, &h, cwhy, sizeof(cwhy)) < 0 || !h)
            continue;
        uint64_t ca[1] = { h };
        rcall(ap, dlclose_fn, ca, 1, &ret, cwhy, sizeof(cwhy)); /* NOLOAD took a reference */
        struct td_elf_sym s;
        if ((drv = obj_open(pid, o))) {
            drv_obj = o;
            drv_emu = td_elf_find_func(drv, TD_EMU_LISTEN, &s, &perr) == 0;
        }
    }
    /* the shim, loaded by the process's own dlopen */
    {
        struct td_patch_mem mem = td_procmem_ops(&ap->pm);
        if (mem.write(mem.ctx, scratch, shim_path, strlen(shim_path) + 1) != 0) {
            snprintf(why, wlen, "writing into the process: %s", strerror(errno));
            goto fail_objs;
        }
        uint64_t da[2] = { scratch, RTLD_NOW | RTLD_LOCAL };
        if (rcall(ap, dlopen_fn, da, 2, &ret, cwhy, sizeof(cwhy)) < 0) {
            snprintf(why, wlen, "dlopen(%s) in the process: %s", shim_path, cwhy);
            goto fail_objs;
        }
        if (!ret) {
            char msg[300] = "?";
            uint64_t e = 0;
            if (dlerror_fn && rcall(ap, dlerror_fn, a, 0, &e, cwhy, sizeof(cwhy)) == 0 && e &&
                mem.read(mem.ctx, e, msg, sizeof(msg) - 1) == 0)
                msg[sizeof(msg) - 1] = '\0';
            snprintf(why, wlen, "dlopen(%s) in the process failed: %s", shim_path, msg);
            goto fail_objs;
        }
    }
    /* the shim's wrappers, where the loader put them */
    struct objs os2 = { 0 };
    td_maps_foreach(pid, collect, &os2);
    struct td_elf *shim = NULL;
    for (size_t i = 0; i < os2.n && !shim; i++)
        if (same_file(os2.o[i].path, shim_path))
            shim = obj_open(pid, &os2.o[i]);
    free(os2.o);
    uint64_t attach_fn = shim ? find_fn(shim, TD_ATTACH_FN) : 0;
    ap->detach_fn = shim ? find_fn(shim, TD_DETACH_FN) : 0;
    if (!attach_fn || !ap->detach_fn) {
        snprintf(why, wlen, "the shim %s is loaded but its attach entry points are not found", shim_path);
        goto fail_shim;
    }
    struct td_patch_mem mem = td_procmem_ops(&ap->pm);
    ap->pt = td_patcher_new(&mem);
    if (!ap->pt)
        die("out of memory");
    /* the driver's entry points, each once (aliases share one) */
    size_t refused = 0;
    char first_refusal[300] = "";
    if (drv) {
        ap->p = calloc(TD_FN__ENTRY_POINTS, sizeof(*ap->p));
        if (!ap->p)
            die("out of memory");
        for (int fn = 0; fn < TD_FN__ENTRY_POINTS; fn++) {
            struct td_elf_sym s;
            if (td_elf_find_func(drv, td_fns[fn].name, &s, &perr) != 0 || !s.dynamic || s.type != STT_FUNC)
                continue;
            int dup = 0;
            for (size_t k = 0; k < ap->np && !dup; k++)
                dup = ap->p[k].addr == s.addr;
            uint64_t wrapper = find_fn(shim, td_fns[fn].name);
            if (dup || !wrapper)
                continue;
            if (td_patch_prepare(ap->pt, td_fns[fn].name, s.addr, s.size, wrapper, 0, &ap->p[ap->np], &perr) != 0) {
                if (!refused++)
                    snprintf(first_refusal, sizeof(first_refusal), "%s", perr.msg);
                continue;
            }
            ap->np++;
        }
        qsort(ap->p, ap->np, sizeof(*ap->p), cmp_patch);
    }
    /* the request: the socket, the driver, the trampolines */
    {
        size_t rlen = sizeof(struct td_attach_req) + ap->np * sizeof(struct td_attach_pair);
        struct td_attach_req *req = calloc(1, rlen);
        if (!req || rlen > SCRATCH - 4096)
            die("out of memory");
        req->magic = TD_ATTACH_MAGIC;
        req->version = TD_ATTACH_VERSION;
        req->nfns = TD_FN__ENTRY_POINTS;
        req->kind = drv_emu ? TD_BK_EMULATE : TD_BK_DRIVER;
        snprintf(req->sock, sizeof(req->sock), "%s", cfg->sock);
        if (drv_obj)
            snprintf(req->driver, sizeof(req->driver), "%s", drv_obj->path);
        req->npairs = (uint32_t)ap->np;
        for (size_t i = 0; i < ap->np; i++)
            req->pairs[i] = (struct td_attach_pair){ ap->p[i].addr, ap->p[i].original };
        uint64_t at = scratch + 4096;
        int wr = mem.write(mem.ctx, at, req, rlen);
        uint64_t aa[1] = { at };
        int rc = wr == 0 ? rcall(ap, attach_fn, aa, 1, &ret, cwhy, sizeof(cwhy)) : -1;
        if (rc == 0 && (int)ret != 0) {
            mem.read(mem.ctx, at + offsetof(struct td_attach_req, msg), req->msg, sizeof(req->msg));
            mem.read(mem.ctx, at + offsetof(struct td_attach_req, kept), &req->kept, sizeof(req->kept));
        }
        if (rc < 0 || req->kept) /* it may hold the trampolines: the islands stay */
            ap->nisl = 0;
        req->msg[sizeof(req->msg) - 1] = '\0';
        if (rc < 0 || (int)ret != 0) {
            snprintf(why, wlen, "the shim's attach: %s", rc < 0 ? cwhy : req->msg);
            free(req);
            goto fail_shim;
        }
        free(req);
    }
    uint64_t ua[2] = { scratch, SCRATCH };
    rcall(ap, munmap_fn, ua, 2, &ret, cwhy, sizeof(cwhy));
    scratch_left = 0;
    /* every thread stopped, none inside the bytes about to change */
    stop_all(ap);
    for (size_t i = 0; i < ap->nt; i++) /* threads the calls started too */
        td_tracer_adopt(ap->t[i].tid, pid);
    uint8_t *skip = calloc(ap->np ? ap->np : 1, 1);
    if (!skip)
        die("out of memory");
    step_out(ap, 0, skip);
    size_t failed = 0;
    for (size_t i = 0; i < ap->np; i++) {
        if (skip[i]) {
            if (!failed++)
                snprintf(first_refusal, sizeof(first_refusal), "%s: a thread is stopped inside its first "
                         "instructions", ap->p[i].name);
            continue;
        }
        if (td_patch_apply(ap->pt, &ap->p[i], TD_PATCH_STOPPED, &perr) != 0 && !failed++)
            snprintf(first_refusal, sizeof(first_refusal), "%s", perr.msg);
    }
    free(skip);
    /* the GOT slots of every object that imports driver entry points */
    size_t nslots = 0;
    for (size_t i = 0; i < os.n; i++) {
        if (!os.o[i].exec || &os.o[i] == drv_obj || same_file(os.o[i].path, shim_path))
            continue;
        struct td_elf *e = obj_open(pid, &os.o[i]);
        if (!e)
            continue;
        struct td_elf_slot *sl = NULL;
        size_t n = 0;
        if (td_elf_got_slots(e, is_cu, NULL, &sl, &n, &perr) == 0) {
            for (size_t k = 0; k < n; k++) {
                if (sl[k].defined)
                    continue;
                int dl = strcmp(sl[k].name, TD_DLOPEN_SLOT) == 0;
                uint64_t wrapper = find_fn(shim, dl ? TD_DLOPEN_FN : sl[k].name), cur = 0;
                uint64_t dfn = dl ? libc_dlopen : drv ? find_fn(drv, sl[k].name) : 0;
                if (!wrapper || mem.read(mem.ctx, sl[k].addr, &cur, 8) != 0)
                    continue;
                /* bound to the driver, or not bound yet: anything else is
                 * the program's own choice */
                if (cur != dfn && !td_elf_in_plt(e, cur) && cur != 0)
                    continue;
                struct td_got_patch *ng = realloc(ap->g, (ap->ng + 1) * sizeof(*ng));
                if (!ng)
                    die("out of memory");
                ap->g = ng;
                if (td_got_set(ap->pt, sl[k].addr, wrapper, TD_PATCH_STOPPED, &ap->g[ap->ng], &perr) == 0)
                    ap->ng++, nslots++;
            }
        }
        free(sl);
        td_elf_close(e);
    }
    resume_all(ap);
    if (!cfg->quiet) {
        char name[64];
        proc_name(pid, name, sizeof(name));
        warn_msg("Process %d (%s) attached: %zu thread%s, driver %s, %zu entry point%s and %zu GOT slot%s "
                 "patched", (int)pid, name, ap->nt, ap->nt == 1 ? "" : "s",
                 drv_obj ? drv_obj->path : "not loaded yet", ap->np - failed, ap->np - failed == 1 ? "" : "s",
                 nslots, nslots == 1 ? "" : "s");
        if (refused || failed)
            warn_msg("warning: process %d: %zu driver entry point%s not patched (calls through pointers "
                     "obtained before the attach miss them): %s", (int)pid, refused + failed,
                     refused + failed == 1 ? "" : "s", first_refusal);
    }
    td_elf_close(shim);
    td_elf_close(libc);
    if (drv)
        td_elf_close(drv);
    free(os.o);
    return 0;
fail_shim:
    if (shim)
        td_elf_close(shim);
fail_objs:
    if (libc)
        td_elf_close(libc);
    if (drv)
        td_elf_close(drv);
    free(os.o);
fail:
    stop_all(ap);
    if (scratch_left) { /* nothing was patched: no trampoline can be running */
        uint64_t ua2[2] = { scratch_left, SCRATCH }, r2;
        char w2[256];
        rcall(ap, unmap_fn, ua2, 2, &r2, w2, sizeof(w2));
        for (size_t i = 0; i < ap->nisl; i++) {
            uint64_t ia[2] = { ap->isl[i].at, ap->isl[i].size };
            rcall(ap, unmap_fn, ia, 2, &r2, w2, sizeof(w2));
        }
    }
    detach_one(ap, 1);
    for (size_t i = 0; i < naps; i++)
        if (aps[i] == ap)
            aps[i] = aps[--naps];
    free_ap(ap);
    return -1;
}

/* ---- detach ------------------------------------------------------------- */

static void note_fork(struct aproc *ap, pid_t child)
{
    /* the child has the parent's patched bytes: it is restored at detach too */
    struct aproc *c = calloc(1, sizeof(*c));
    struct aproc **na = realloc(aps, (naps + 1) * sizeof(*aps));
    if (!c || !na)
        die("out of memory");
    aps = na;
    c->pid = child;
    c->pm.fd = -1;
    c->detach_fn = ap->detach_fn;
    c->mmap_fn = ap->mmap_fn;
    struct td_perr err;
    if (td_procmem_open(&c->pm, child, NULL, NULL, &err) == 0) {
        struct td_patch_mem mem = td_procmem_ops(&c->pm);
        c->pt = td_patcher_new(&mem);
    }
    if (ap->np && (c->p = malloc(ap->np * sizeof(*c->p))))
        memcpy(c->p, ap->p, ap->np * sizeof(*c->p)), c->np = ap->np;
    if (ap->ng && (c->g = malloc(ap->ng * sizeof(*c->g))))
        memcpy(c->g, ap->g, ap->ng * sizeof(*c->g)), c->ng = ap->ng;
    thr_add(c, child);
    aps[naps++] = c;
}

void td_attach_fork(pid_t parent, pid_t child)
{
    for (size_t i = 0; i < naps; i++)
        if (aps[i]->pid == parent) {
            for (size_t k = 0; k < naps; k++)
                if (aps[k]->pid == child)
                    return; /* seen at attach already */
            note_fork(aps[i], child);
            return;
        }
}

void td_attach_forget(pid_t pid)
{
    for (size_t i = 0; i < naps; i++)
        if (aps[i]->pid == pid) {
            free_ap(aps[i]);
            aps[i] = aps[--naps];
            return;
        }
}

int td_attach_active(void)
{
    return naps > 0;
}

/* every thread is stopped: restore, make the shim inert, let go */
static void detach_one(struct aproc *ap, int quiet)
{
    struct td_perr err;
    /* undoing puts back the bytes a thread stopped here would have run,
     * so only a thread inside the jump itself matters (none can be) */
    uint8_t *skip = calloc(ap->np ? ap->np : 1, 1);
    if (skip)
        step_out(ap, 1, skip);
    free(skip);
    size_t bad = 0;
    char first[300] = "";
    for (size_t i = ap->ng; i-- > 0;)
        if (ap->g[i].applied && ap->pt && td_got_undo(ap->pt, &ap->g[i], TD_PATCH_STOPPED, &err) != 0 && !bad++)
            snprintf(first, sizeof(first), "%s", err.msg);
    for (size_t i = ap->np; i-- > 0;)
        if (ap->p[i].applied && ap->pt && td_patch_undo(ap->pt, &ap->p[i], TD_PATCH_STOPPED, &err) != 0 &&
            !bad++)
            snprintf(first, sizeof(first), "%s", err.msg);
    if (ap->detach_fn) {
        ap->caller = 0;
        for (size_t i = 0; i < ap->nt && !ap->caller; i++)
            if (ap->t[i].stopped)
                ap->caller = ap->t[i].tid;
        uint64_t ret;
        char why[256];
        if (rcall(ap, ap->detach_fn, NULL, 0, &ret, why, sizeof(why)) < 0)
            warn_msg("warning: process %d: the shim could not be told to stop recording: %s", (int)ap->pid, why);
    }
    if (bad)
        warn_msg("warning: process %d: %zu patched place%s could not be restored: %s", (int)ap->pid, bad,
                 bad == 1 ? "" : "s", first);
    for (size_t i = 0; i < ap->nt; i++) {
        ptrace(PTRACE_DETACH, ap->t[i].tid, 0, (void *)(long)ap->t[i].sig);
        td_tracer_forget(ap->t[i].tid);
    }
    if (!quiet)
        warn_msg("Process %d detached", (int)ap->pid);
}

void td_attach_detach_all(void (*detached)(pid_t pid))
{
    while (naps) {
        struct aproc *ap = aps[naps - 1];
        stop_all(ap);
        pid_t pid = ap->pid;
        int gone = ap->gone || ap->nt == 0;
        if (!gone)
            detach_one(ap, 0);
        naps--;
        free_ap(ap);
        if (!gone)
            detached(pid);
    }
}

#else /* another architecture: see docs/attach.md, "Not done" */

int td_attach(pid_t pid, const struct td_attach_cfg *cfg, char *why, size_t wlen)
{
    (void)cfg;
    if (td_attach_check(pid, why, wlen) < 0)
        return -1;
    snprintf(why, wlen, "tdtrace attaches on x86-64 only (this tdtrace was built for another architecture)");
    return -1;
}

int td_attach_active(void)
{
    return 0;
}

void td_attach_detach_all(void (*detached)(pid_t pid))
{
    (void)detached;
}

void td_attach_fork(pid_t parent, pid_t child)
{
    (void)parent;
    (void)child;
}

void td_attach_forget(pid_t pid)
{
    (void)pid;
}

#endif
