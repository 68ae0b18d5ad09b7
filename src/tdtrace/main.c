/* tdtrace: launch a program and trace every CUDA driver call it makes.
 *
 * init: options, libraries, output, ring, environment; launch; then
 * td_tracer_loop() follows the process tree while drain() decodes the
 * records the shim writes; terminate: summary, exit with the program's
 * status. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "env.h"
#include "output.h"
#include "ring.h"
#include "stack.h"
#include "summary.h"
#include "tracer.h"
#include "xlat.h"

static struct td_opts opts;
static struct td_ring ring;
static char ring_path[256];
static uint64_t lost_bytes;
static pid_t first_pid;
static int backend_reported;
static char backend_seen[512];

static void find_libdir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        die_errno("readlink /proc/self/exe");
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s/../lib/tdtrace", exe);
    char real[PATH_MAX];
    if (!realpath(out, real))
        die("cannot find tdtrace's libraries in %s", out);
    snprintf(out, len, "%s", real);
    char shim[PATH_MAX + 32];
    snprintf(shim, sizeof(shim), "%s/libcuda.so.1", out);
    if (access(shim, R_OK) != 0)
        die("cannot find tdtrace's driver shim %s", shim);
}

/* the command's path, as execvp would find it; dies if there is none */
static char *resolve_command(const char *cmd)
{
    struct stat st;
    if (strchr(cmd, '/')) {
        if (stat(cmd, &st) < 0)
            die_errno("Can't stat '%s'", cmd);
        if (!S_ISREG(st.st_mode) || access(cmd, X_OK) != 0)
            die("'%s' is not an executable file", cmd);
        return strdup(cmd);
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? p : ".", cmd);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return strdup(buf);
        p += n;
        if (*p)
            p++;
    }
    die("Can't stat '%s': No such file or directory", cmd);
}

static int seen_pid(pid_t pid)
{
    return !(!opts.follow && pid != first_pid);
}

/* ---- records ---------------------------------------------------------- */

static void on_hello(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_TEXT);
    char text[512];
    snprintf(text, sizeof(text), "%.*s", it ? (int)it->len : 0, it ? (const char *)(it + 1) : "");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    td_summary_hello((int)rec->pid);
    if (opts.quiet || !seen_pid((pid_t)rec->pid))
        return;
    if (backend_reported && strcmp(backend_seen, text) == 0)
        return;
    snprintf(backend_seen, sizeof(backend_seen), "%s", text);
    char line[600];
    snprintf(line, sizeof(line), "tdtrace: backend %s", text);
    if (backend_reported)
        td_out_event((int)rec->pid, rec->t_enter, "backend", line);
    else
        td_out_event((int)rec->pid, rec->t_enter, "banner", line);
    backend_reported = 1;
}

static void on_call(const struct td_rec *rec, uint32_t len)
{
    if (!seen_pid((pid_t)rec->pid))
        return;
    int failed = rec->result != 0;
    if (opts.status && !(opts.status & (failed ? TD_STATUS_FAILED : TD_STATUS_SUCCESSFUL)))
        return;
    if (rec->fn >= TD_FN__COUNT || !(ring.hdr->trace_mask[rec->fn >> 3] & (1u << (rec->fn & 7))))
        return;
    td_out_note_pid((int)rec->pid);
    td_summary_call(rec, len);
    td_out_call(rec, len, NULL);
}

static void drain(void)
{
    static _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    int n;
    td_clock_sample();
    while ((n = td_ring_read(&ring, buf, 0, &lost_bytes)) != 0) {
        if (n < 0)
            continue;
        struct td_rec *rec = (struct td_rec *)buf;
        if ((uint32_t)n < sizeof(*rec))
            continue;
        rec->t_enter = td_clock_ns(rec->t_enter);
        rec->t_exit = td_clock_ns(rec->t_exit);
        switch (TD_REC_TYPE(rec->word)) {
        case TD_REC_HELLO:
            on_hello(rec, (uint32_t)n);
            break;
        case TD_REC_CALL:
            on_call(rec, (uint32_t)n);
            break;
        default:
            break;
        }
    }
}

/* ---- process events ----------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void proc_new(pid_t pid, pid_t parent)
{
    (void)parent;
    if (seen_pid(pid))
        td_out_note_pid((int)pid);
}

static void proc_exit(pid_t pid, int status)
{
    if (!seen_pid(pid))
        return;
    char line[128];
    if (WIFEXITED(status))
        snprintf(line, sizeof(line), "+++ exited with %d +++", WEXITSTATUS(status));
    else
        snprintf(line, sizeof(line), "+++ killed by %s%s +++", sigabbrev_np(WTERMSIG(status))
                 ? "SIG" : "", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    if (WIFSIGNALED(status) && WCOREDUMP(status))
        snprintf(line + strlen(line) - 4, sizeof(line) - strlen(line) + 4, " (core dumped) +++");
    td_summary_exit((int)pid);
    td_stack_forget((int)pid);
    td_out_event((int)pid, now_ns(), "exit", line);
}

/* 1 if the file is an ELF executable without an interpreter */
static int is_static(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int st = 0;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t n;
    if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0) {
        st = 1;
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
                st = 0;
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return st;
}

static void proc_exec(pid_t pid, const char *exe)
{
    static char warned[8][PATH_MAX];
    static int nwarned;
    struct stat st;
    const char *why = NULL;
    if (stat(exe, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
        why = "is setuid or setgid";
    else if (is_static(exe))
        why = "is statically linked";
    if (!why || !seen_pid(pid))
        return;
    for (int i = 0; i < nwarned; i++)
        if (strcmp(warned[i], exe) == 0)
            return;
    if (nwarned < 8)
        snprintf(warned[nwarned++], PATH_MAX, "%s", exe);
    warn_msg("warning: %s %s: the driver shim cannot enter it, so its CUDA driver calls "
             "cannot be seen", exe, why);
}

/* ---- signals ------------------------------------------------------------ */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* a terminal's ^C reaches the whole process group already */
    if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
        td_tracer_forward(sig);
}

static void setup_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
}

/* ---- launch ------------------------------------------------------------- */

static pid_t launch(const char *path, char **argv)
{
    int n;
    extern char **environ;
    int nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = td_env_merge(environ, nenv);
    if (!envp)
        die("out of memory");
    (void)td_env_vars(&n);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die_errno("fork");
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int rc = td_tracer_child_setup();
        if (rc < 0) {
            fprintf(stderr, "tdtrace: cannot install the seccomp filter: %s\n", strerror(-rc));
            _exit(127);
        }
        raise(SIGSTOP);
        execve(path, argv, envp);
        fprintf(stderr, "tdtrace: exec '%s': %s\n", path, strerror(errno));
        _exit(127);
    }
    free(envp);
    td_tracer_attach_first(pid);
    return pid;
}

int main(int argc, char **argv)
{
    td_parse_options(&opts, argc, argv);
    char libdir[PATH_MAX];
    find_libdir(libdir, sizeof(libdir));
    char *path = resolve_command(opts.cmd[0]);
    td_out_open(&opts);

    uint32_t flags = (opts.bounded ? TD_RING_BOUNDED : 0) | (opts.stacks ? TD_RING_STACKS : 0) |
                     (td_clock_init() ? TD_RING_TSC : 0);
    int rc = td_ring_create(&ring, ring_path, sizeof(ring_path), opts.bufsize, flags);
    if (rc < 0) {
        errno = -rc;
        die_errno("cannot create the record buffer in /dev/shm");
    }
    char err[256];
    if (td_trace_set(opts.trace_expr ? opts.trace_expr : "all", ring.hdr->trace_mask,
                     sizeof(ring.hdr->trace_mask), err, sizeof(err)) < 0) {
        unlink(ring_path);
        die("-e trace: %s", err);
    }
    td_env_build(libdir, ring_path, &opts);
    td_summary_init(&opts);
    setup_signals();

    first_pid = launch(path, opts.cmd);
    td_out_note_pid((int)first_pid);
    static const struct td_tracer_ops ops = { drain, proc_exit, proc_exec, proc_new };
    int status = td_tracer_loop(first_pid, &ops);

    /* every writer is gone: whatever is still reserved is lost */
    static _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    while (td_ring_read(&ring, buf, 1, &lost_bytes) != 0)
        ;
    uint64_t dropped = __atomic_load_n(&ring.hdr->dropped, __ATOMIC_RELAXED);
    if (dropped)
        warn_msg("%llu records dropped: the buffer was full (--bounded) or tdtrace was gone",
                 (unsigned long long)dropped);
    if (lost_bytes)
        warn_msg("%llu bytes of records lost: a process died while writing one, or wrote "
                 "over the buffer", (unsigned long long)lost_bytes);
    td_summary_print();
    td_out_close();
    unlink(ring_path);
    free(path);

    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit rl = { 0, 0 };
        setrlimit(RLIMIT_CORE, &rl); /* the program dumped core already */
        signal(sig, SIG_DFL);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        raise(sig);
        return 128 + sig;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
