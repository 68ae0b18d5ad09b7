/* SPDX-License-Identifier: Apache-2.0 */
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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "clock.h"
#include "demangle.h"
#include "env.h"
#include "frontlibs.h"
#include "gpuioctl.h"
#include "fold.h"
#include "ioctl.h"
#include "ledger.h"
#include "names.h"
#include "policy.h"
#include "needs.h"
#include "nest.h"
#include "output.h"
#include "printer.h"
#include "report.h"
#include "ring.h"
#include "stack.h"
#include "summary.h"
#include "timeline.h"
#include "tracer.h"
#include "transport.h"
#include "xlat.h"

/* records read per turn of the loop before process events are looked at
 * again (a few hundred microseconds of printing) */
#define DRAIN_BATCH 1024

static struct td_opts opts;
static uint8_t trace_mask[1024];   /* -e trace: what is shown (tdtrace's own copy) */
static uint8_t trace_named[1024];  /* ... and what of it the set names itself */
static uint8_t abbrev_mask[1024], verbose_mask[1024], raw_mask[1024]; /* -e abbrev=, verbose=, raw= */
static pid_t first_pid;
static int backend_reported;
static char backend_seen[512];
static struct td_policy *policy;
static char policy_path[4096];
/* tdtrace -p: Ctrl-C, SIGTERM, SIGHUP or --detach-after detach */
static volatile sig_atomic_t detach_requested;
static uint64_t detach_deadline;

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
    for (int i = 0; i < opts.nattach; i++)
        if (opts.attach[i] == pid)
            return 1;
    return !(!opts.follow && pid != first_pid);
}

/* ---- records ---------------------------------------------------------- */

/* the processes on the real driver (their device work is CUPTI's,
 * src/shim/cupti.c); the printer thread's */
#define MAX_DRIVER_PIDS 4096
static pid_t driver_pids[MAX_DRIVER_PIDS];
static int ndriver_pids;

static int on_driver(pid_t pid)
{
    for (int i = ndriver_pids; i-- > 0;)
        if (driver_pids[i] == pid)
            return 1;
    return 0;
}

static void on_hello(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn == TD_BK_DRIVER && ndriver_pids < MAX_DRIVER_PIDS && !on_driver((pid_t)rec->pid))
        driver_pids[ndriver_pids++] = (pid_t)rec->pid;
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_TEXT);
    char text[512];
    snprintf(text, sizeof(text), "%.*s", it ? (int)it->len : 0, it ? (const char *)(it + 1) : "");
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    td_summary_hello((int)rec->pid);
    td_tl_hello(rec, len);
    if (opts.quiet || !seen_pid((pid_t)rec->pid))
        return;
    char line0[600];
    if (opts.ff && opts.outfile) { /* -ff: each process's own file says its backend */
        snprintf(line0, sizeof(line0), "tdtrace: backend %s", text);
        td_out_event((int)rec->pid, rec->t_enter, "backend", line0);
        return;
    }
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

/* what a policy rule did to the call, "DENIED by tdtrace.policy:12", or NULL */
static const char *policy_mark(const struct td_rec *rec, uint32_t len, char *buf, size_t n)
{
    static const char *const what[] = {
        [TD_VD_DENY] = "DENIED", [TD_VD_INJECT] = "INJECTED", [TD_VD_LIMIT] = "LIMITED",
        [TD_VD_DELAY] = "DELAYED", [TD_VD_REMAP] = "REMAPPED",
    };
    if (rec->verdict == TD_VD_NONE || rec->verdict >= sizeof(what) / sizeof(what[0]))
        return NULL;
    const struct td_item *it = td_rec_item(rec, len, 0xff, TD_IT_TEXT);
    char file[300];
    snprintf(file, sizeof(file), "%.*s", it ? (int)it->len : 0, it ? (const char *)(it + 1) : "");
    for (char *c = file; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    if (rec->rule_line)
        snprintf(buf, n, "%s%s by %s:%u", rec->applied ? "" : "would be ", what[rec->verdict],
                 *file ? file : "?", rec->rule_line);
    else /* a command-line option */
        snprintf(buf, n, "%s%s by %s", rec->applied ? "" : "would be ", what[rec->verdict],
                 *file ? file : "?");
    return buf;
}

/* a call fold.c held back and now lets out (text only: its JSON went out in order) */
static void emit_held(const struct td_rec *rec, uint32_t len)
{
    char mark[400];
    td_out_call(rec, len, policy_mark(rec, len, mark, sizeof(mark)), TD_OUT_TEXT);
}

static void fold_line(int pid, uint64_t t, const char *text)
{
    td_out_note_pid(pid);
    td_out_text(pid, t, text);
}

/* -e trace= and -e status= show it */
static int call_shown(const struct td_rec *rec, uint32_t len)
{
    int failed = rec->result != 0 && !td_is_probe(rec, len) && rec->fn != TD_FN_LIB_call;
    struct td_libview lv;
    if (rec->fn == TD_FN_LIB_call && td_rec_lib(rec, len, &lv) && !td_trace_lib_shown(lv.fn, lv.fn_len))
        return 0;
    return td_mask_has(trace_mask, rec->fn) &&
           (!opts.status || (opts.status & (failed ? TD_STATUS_FAILED : TD_STATUS_SUCCESSFUL)));
}

static void show_call(const struct td_rec *rec, uint32_t len, const char *m)
{
    int shown = call_shown(rec, len);
    if (!shown) {
        if (m) { /* what a policy did is said, whatever is traced */
            char line[600];
            snprintf(line, sizeof(line), "--- %s %s ---", td_fns[rec->fn].name, m);
            td_out_note_pid((int)rec->pid);
            td_out_event((int)rec->pid, rec->t_enter, "policy", line);
        }
        return;
    }
    td_out_note_pid((int)rec->pid);
    td_summary_call(rec, len);
    if (opts.summary == 1) /* -c: nothing printed, nothing to fold */
        return;
    if (td_fold_call(rec, len) == TD_FOLD_TAKEN)
        td_out_call(rec, len, m, TD_OUT_JSON | TD_OUT_FOLDED);
    else
        td_out_call(rec, len, m, TD_OUT_TEXT | TD_OUT_JSON);
}

static void on_call(const struct td_rec *rec, uint32_t len)
{
    if (!seen_pid((pid_t)rec->pid))
        return;
    /* what the ledger, the names and the kernel table learn, whatever is shown */
    td_ledger_call(rec, len);
    td_names_call(rec, len);
    td_summary_launch(rec, len);
    td_needs_call(rec, len);
    char mark[400];
    const char *m = policy_mark(rec, len, mark, sizeof(mark));
    if (m)
        td_summary_mark(m);
    show_call(rec, len, m);
    if (td_mask_has(trace_mask, rec->fn))
        td_tl_call(rec, len, m);
    td_ledger_after(rec, len); /* frees and destroys, once the call named what it freed */
    td_tl_memory(rec);
    td_names_after(rec, len);
}

/* --runtime: nest.c lets a call out at the depth it is shown at */
static void nest_emit(const struct td_rec *rec, uint32_t len, int depth)
{
    td_out_depth(depth);
    on_call(rec, len);
    td_out_depth(0);
}

/* the shim's warnings (--runtime): one line each */
static void on_warning(const struct td_rec *rec, uint32_t len)
{
    const struct td_item *it = td_rec_item(rec, len, 0, TD_IT_TEXT);
    char text[3001];
    snprintf(text, sizeof(text), "%.*s", it ? (int)it->len : 0, it ? (const char *)(it + 1) : "");
    for (char *c = text; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\n') || (unsigned char)*c == 0x7f)
            *c = '?';
    td_out_note_pid((int)rec->pid);
    for (char *line = text, *nl; *line; line = nl) {
        nl = line + strcspn(line, "\n");
        int more = *nl == '\n';
        *nl = '\0';
        nl += more;
        if (!*line)
            continue;
        char msg[3100];
        snprintf(msg, sizeof(msg), "tdtrace: warning: %s", line);
        td_out_event((int)rec->pid, rec->t_enter, "warning", msg);
    }
}

/* what the emulator says: a kernel's fault, a diagnostic, a kernel that ran */
static void on_event(const struct td_rec *rec, uint32_t len)
{
    if (!seen_pid((pid_t)rec->pid))
        return;
    if (rec->fn == TD_EV_WARNING) {
        on_warning(rec, len);
        return;
    }
    if (rec->fn == TD_EV_IMAGE) { /* for the needs report only */
        td_needs_image(rec, len);
        return;
    }
    if (rec->fn == TD_EV_DEVOP) { /* the timeline and the summary's device times */
        td_summary_device(rec, len);
        td_tl_device(rec, len);
        return;
    }
    td_out_note_pid((int)rec->pid);
    if (rec->fn == TD_EV_KERNEL) {
        td_summary_kernel_ran(rec, len);
        td_summary_device(rec, len);
        td_out_kernel(rec, len, on_driver((pid_t)rec->pid));
        td_tl_device(rec, len);
        return;
    }
    td_fold_flush((int)rec->pid);
    td_out_report(rec, len);
    td_tl_report(rec, len);
}

/* a record from pid's ring (main thread): checked before anything uses
 * it, then printed on the printer thread */
static void on_record(pid_t pid, struct td_rec *rec, uint32_t len)
{
    char why[200];
    if (td_rec_check(rec, len, (uint32_t)pid, why, sizeof(why)) < 0 ||
        (TD_REC_TYPE(rec->word) == TD_REC_CALL && td_ledger_check(rec, len, why, sizeof(why)) < 0)) {
        td_transport_invalid(pid, why);
        return;
    }
    if (TD_REC_TYPE(rec->word) != TD_REC_EVENT) { /* an event's times are CLOCK_MONOTONIC already */
        rec->t_enter = td_clock_ns(rec->t_enter);
        rec->t_exit = td_clock_ns(rec->t_exit);
    }
    if (TD_REC_TYPE(rec->word) == TD_REC_HELLO && td_gpu_ctx())
        td_ioctl_mark_shim(td_gpu_ctx(), (int)pid);
    td_printer_record(pid, rec, len);
}

static void print_exit(pid_t pid, int status);

static uint64_t now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print_fork(pid_t parent, pid_t child)
{
    if (!seen_pid(parent))
        return;
    td_fold_flush((int)parent);
    char line[64];
    snprintf(line, sizeof(line), "forked %d", (int)child);
    td_out_note_pid((int)parent);
    if (seen_pid(child))
        td_out_note_pid((int)child);
    uint64_t t = now_mono();
    td_out_event((int)parent, t, "fork", line);
    if (seen_pid(child)) {
        snprintf(line, sizeof(line), "%d", (int)child);
        td_tl_process((int)parent, t, "fork", line);
    }
}

static void print_exec(pid_t pid, const char *path)
{
    td_nest_flush_pid((int)pid);
    td_names_forget((int)pid);
    td_ledger_forget((int)pid);
    td_fold_flush((int)pid);
    if (!seen_pid(pid))
        return;
    char line[4200];
    snprintf(line, sizeof(line), "exec'd %s", path);
    td_out_note_pid((int)pid);
    uint64_t t = now_mono();
    td_out_event((int)pid, t, "exec", line);
    td_tl_process((int)pid, t, "exec", path);
}

/* the printer thread: every record and process event, in order */
static void print_event(const struct td_pev *ev, const void *data)
{
    switch (ev->kind) {
    case TD_PEV_EXIT:
        print_exit((pid_t)ev->pid, ev->status);
        return;
    case TD_PEV_FORK:
        print_fork((pid_t)ev->pid, (pid_t)ev->status);
        return;
    case TD_PEV_EXEC:
        print_exec((pid_t)ev->pid, ev->len ? (const char *)data : "?");
        return;
    case TD_PEV_SYNC: /* calls held back are out before what comes next (a write, an ioctl) */
        td_fold_release();
        return;
    default:
        break;
    }
    const struct td_rec *rec = data;
    if (TD_REC_TYPE(rec->word) == TD_REC_HELLO)
        on_hello(rec, ev->len);
    else if (TD_REC_TYPE(rec->word) == TD_REC_EVENT)
        on_event(rec, ev->len);
    else if (opts.runtime || opts.libs)
        td_nest_record(rec, ev->len);
    else
        on_call(rec, ev->len);
}

static int drain(void)
{
    if (td_printer_behind())
        return 1; /* the printer has much to do: let it (writers wait, as for a full ring) */
    int more = td_transport_drain(DRAIN_BATCH);
    if (!more) /* about to wait: hand the printer what there is */
        td_printer_flush();
    return more;
}

static int loop_fds(struct pollfd *pfd, int max)
{
    int n = td_transport_fds(pfd, max);
    if (td_gpu_fd() >= 0 && n < max)
        pfd[n++] = (struct pollfd){ td_gpu_fd(), POLLIN, 0 };
    td_transport_sleeping(1);
    return n;
}

static void loop_ready(const struct pollfd *pfd, int n)
{
    td_transport_sleeping(0);
    td_transport_ready(pfd, n);
    for (int i = 0; i < n; i++)
        if (pfd[i].fd == td_gpu_fd() && pfd[i].revents) {
            if (!(pfd[i].revents & POLLIN)) { /* no process holds the filter any more */
                td_gpu_closed();
                break;
            }
            td_gpu_handle();
        }
}

/* the program writes where the trace goes (a terminal, a pipe, a file they
 * share): every call made before the write is printed first */
static void sync_write(pid_t pid)
{
    (void)pid;
    td_transport_drain_written(0);
    td_printer_sync();
    td_out_flush();
}

/* the loop may sleep until an event, unless a ring must be looked at */
static int loop_timeout(void)
{
    int t = td_transport_timeout();
    if (detach_deadline && td_attach_active()) {
        uint64_t now = now_mono();
        int left = now >= detach_deadline ? 0 : (int)((detach_deadline - now) / 1000000u + 1);
        if (t < 0 || left < t)
            t = left;
    }
    return t;
}

/* tdtrace -p: the shim connects while tdtrace waits for a call in the process */
static void attach_serve(void)
{
    struct pollfd pfd[8];
    int n = td_transport_fds(pfd, 8);
    if (poll(pfd, (nfds_t)n, 0) > 0)
        td_transport_ready(pfd, n);
}

static void detached(pid_t pid)
{
    td_transport_exit(pid, TD_STATUS_DETACHED);
}

static void loop_turn(void)
{
    if (!td_attach_active())
        return;
    if (detach_requested || (detach_deadline && now_mono() >= detach_deadline))
        td_attach_detach_all(detached);
}

/* the program's descriptors 1 and 2 that share the trace's destination
 * (the same file, pipe or terminal): bit per descriptor */
static unsigned shared_fds(void)
{
    struct stat t, j, f;
    FILE *main_f = td_out()->main, *json = td_out()->json;
    int have_t = main_f && fstat(fileno(main_f), &t) == 0;
    int have_j = json && fstat(fileno(json), &j) == 0;
    unsigned m = 0;
    for (int fd = 1; fd <= 2; fd++) {
        if (fstat(fd, &f) != 0)
            continue;
        if ((have_t && f.st_dev == t.st_dev && f.st_ino == t.st_ino) ||
            (have_j && f.st_dev == j.st_dev && f.st_ino == j.st_ino))
            m |= 1u << fd;
    }
    return m;
}

/* ---- process events ----------------------------------------------------- */

/* every record of the process is out: its exit line */
static void print_exit(pid_t pid, int status)
{
    td_nest_flush_pid((int)pid);
    if (!seen_pid(pid)) {
        td_out_forget((int)pid);
        return;
    }
    char line[128];
    if (status == TD_STATUS_DETACHED)
        snprintf(line, sizeof(line), "+++ detached +++");
    else if (WIFEXITED(status))
        snprintf(line, sizeof(line), "+++ exited with %d +++", WEXITSTATUS(status));
    else
        snprintf(line, sizeof(line), "+++ killed by %s%s +++", sigabbrev_np(WTERMSIG(status))
                 ? "SIG" : "", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    if (status != TD_STATUS_DETACHED && WIFSIGNALED(status) && WCOREDUMP(status))
        snprintf(line + strlen(line) - 4, sizeof(line) - strlen(line) + 4, " (core dumped) +++");
    td_fold_forget((int)pid);
    td_summary_exit((int)pid);
    td_stack_forget((int)pid);
    td_names_forget((int)pid);
    td_out_note_pid((int)pid);
    uint64_t t = now_mono();
    td_out_event((int)pid, t, "exit", line);
    td_tl_process((int)pid, t, "exit", line);
    td_out_forget((int)pid);
}

static void proc_fork(pid_t parent, pid_t child)
{
    td_attach_fork(parent, child); /* tdtrace -p: its copy of the patches is restored at detach */
    td_transport_drain_written(parent); /* what it did before the fork comes first */
    td_printer_fork(parent, child);
}

static void proc_exit(pid_t pid, int status)
{
    td_gpu_process_gone(pid);
    td_attach_forget(pid);
    td_transport_exit(pid, status);
}

/* -k: a thread is about to end; its process's stacks can be read only now */
static void thread_exit(pid_t tid, pid_t tgid)
{
    (void)tid;
    if (opts.stacks) {
        td_transport_drain_pid(tgid);
        td_printer_sync();
    }
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
    static int first_done;
    td_transport_exec(pid);
    td_attach_forget(pid); /* tdtrace -p: a new image, nothing patched in it */
    if (pid != first_pid || first_done) { /* not tdtrace's own start of the command */
        td_transport_drain_pid(pid);      /* the old image's records first */
        td_printer_exec(pid, exe);
    }
    if (pid == first_pid)
        first_done = 1;
    struct stat st;
    char why[160];
    why[0] = '\0';
    if (stat(exe, &st) == 0 && (st.st_mode & S_ISUID) && st.st_uid != getuid())
        snprintf(why, sizeof(why), "is set-user-ID: it runs without that privilege, as uid %d "
                 "(tdtrace's seccomp filter sets no_new_privs, under which execve ignores "
                 "set-user-ID and set-group-ID bits and file capabilities)", (int)getuid());
    else if (stat(exe, &st) == 0 && (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
             st.st_gid != getgid())
        snprintf(why, sizeof(why), "is set-group-ID: it runs without that privilege, as gid %d "
                 "(tdtrace's seccomp filter sets no_new_privs, under which execve ignores "
                 "set-user-ID and set-group-ID bits and file capabilities)", (int)getgid());
    else if (is_static(exe))
        snprintf(why, sizeof(why), "is statically linked: the driver shim cannot enter it, so its "
                 "CUDA driver calls cannot be seen");
    if (!why[0] || !seen_pid(pid))
        return;
    for (int i = 0; i < nwarned; i++)
        if (strcmp(warned[i], exe) == 0)
            return;
    if (nwarned < 8)
        snprintf(warned[nwarned++], PATH_MAX, "%s", exe);
    warn_msg("warning: %s %s", exe, why);
}

/* ---- signals ------------------------------------------------------------ */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (opts.nattach) {
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
            detach_requested = 1;
        return;
    }
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

static pid_t launch(const char *path, char **argv, unsigned ioctl_flags, unsigned sync_fds)
{
    int sv[2] = { -1, -1 }, listener = -1;
    if (ioctl_flags != ~0u) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            die_errno("socketpair");
        int rc = td_ioctl_prepare(ioctl_flags);
        if (rc < 0) {
            errno = -rc;
            die_errno("cannot build the GPU ioctl filter");
        }
    }
    extern char **environ;
    int nenv = 0;
    while (environ[nenv])
        nenv++;
    char **envp = td_env_merge(environ, nenv);
    if (!envp)
        die("out of memory");
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
        if (sv[1] >= 0) {
            close(sv[0]);
            int rc = td_ioctl_child_install_ex(sv[1], ioctl_flags);
            close(sv[1]);
            if (rc < 0)
                _exit(127); /* the parent reports it */
        }
        int rc = td_tracer_child_setup(sync_fds);
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
    if (sv[0] >= 0) {
        close(sv[1]);
        listener = td_ioctl_parent_receive(sv[0]);
        close(sv[0]);
        if (listener < 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            errno = -listener;
            die_errno("cannot install the GPU ioctl filter");
        }
    }
    td_gpu_listen(listener, opts.follow ? 0 : pid);
    td_tracer_attach_first(pid);
    return pid;
}

static void die_policy(const struct td_policy_error *e)
{
    char buf[1024];
    td_policy_format_error(e, buf, sizeof(buf));
    die("%s", buf);
}

static void check_policy(const char *file)
{
    struct td_policy_error e;
    struct td_policy *p;
    if (td_policy_load(file, &p, &e) < 0)
        die_policy(&e);
    for (int i = 0; i < opts.npopts; i++)
        if (td_policy_apply_option(p, opts.popts[i].opt, opts.popts[i].value, &e) < 0)
            die_policy(&e);
    td_policy_write(p, stdout);
    td_policy_free(p);
    exit(0);
}

static void load_policy(void)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    const char *env = getenv("TDTRACE_POLICY");
    if (td_policy_locate(opts.policy, env, cwd, policy_path, sizeof(policy_path)) < 0) {
        char why[4400];
        if (errno == EPERM && policy_path[0] && td_policy_untrusted(policy_path, why, sizeof(why)))
            die("refusing the policy %s: %s; to use it anyway, name it: --policy=%s "
                "(or TDTRACE_POLICY=%s); --policy=none uses none", policy_path, why, policy_path,
                policy_path);
        die_errno("cannot read the policy '%s'", opts.policy ? opts.policy : env);
    }
    struct td_policy_error e;
    if (policy_path[0]) {
        if (td_policy_load(policy_path, &policy, &e) < 0)
            die_policy(&e);
    } else if (!(policy = td_policy_defaults())) {
        die("out of memory");
    }
    for (int i = 0; i < opts.npopts; i++)
        if (td_policy_apply_option(policy, opts.popts[i].opt, opts.popts[i].value, &e) < 0)
            die_policy(&e);
}

/* what the traced processes need to know of the policy */
static void policy_env(void)
{
    td_env_add("TDTRACE_BACKEND", td_policy_backend_name(td_policy_backend(policy)));
    struct td_emulate_cfg ec;
    td_policy_emulate(policy, &ec);
    /* what an emulate statement named; the rest stays as the user's
     * environment has it */
    char v[32];
    if (ec.given & TD_EMU_GIVEN_DEVICES) {
        snprintf(v, sizeof(v), "%d", ec.devices);
        td_env_add("TDTRACE_EMU_DEVICES", v);
    }
    if (ec.given & TD_EMU_GIVEN_PROFILE)
        td_env_add("TDTRACE_EMU_PROFILE", ec.profile);
    if (ec.given & TD_EMU_GIVEN_MEMORY) {
        snprintf(v, sizeof(v), "%llu", ec.memory);
        td_env_add("TDTRACE_EMU_MEMORY", v);
    }
    if (ec.given & TD_EMU_GIVEN_TIMEOUT) { /* whole milliseconds, at least 1 */
        unsigned long long ms = ec.timeout_ns / 1000000ULL;
        snprintf(v, sizeof(v), "%llums", ms ? ms : ec.timeout_ns ? 1 : 0);
        td_env_add("TDTRACE_EMU_TIMEOUT", v);
    }
    if (ec.given & TD_EMU_GIVEN_DRIVER) {
        snprintf(v, sizeof(v), "%d", ec.driver);
        td_env_add("TDTRACE_EMU_DRIVER", v);
    }
    if (ec.given & TD_EMU_GIVEN_ENGINE)
        td_env_add("TDTRACE_EMU_ENGINE", ec.engine);
    if (ec.given & TD_EMU_GIVEN_MAX_INSTRUCTIONS) {
        snprintf(v, sizeof(v), "%llu", ec.max_instructions);
        td_env_add("TDTRACE_EMU_MAX_INSTRUCTIONS", v);
    }
}

/* the shim evaluates the rules in the process: it gets the policy as
 * normalised text that keeps each rule's file:line (in the sealed
 * control area); malloc'd */
static char *policy_text(size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f || td_policy_write_ex(policy, f, TD_POLICY_WRITE_ORIGINS) < 0 || fclose(f) != 0)
        die("out of memory");
    return text;
}

/* what the shim records: what is shown, and whatever the trace shows, what
 * the memory ledger (allocations, frees, contexts) and the kernel table
 * (launches) need */
static void record_mask(uint8_t *mask, size_t n)
{
    memcpy(mask, trace_mask, n);
    for (int fn = 0; fn < TD_FN__COUNT; fn++)
        if (td_ledger_wants(fn) || td_fns[fn].kfunc >= 0 || td_needs_wants(fn))
            mask[fn >> 3] |= (uint8_t)(1u << (fn & 7));
}

/* tdtrace's own accounting against the in-process limit (which the
 * program can get around: it runs in the program) */
/* --report without --timeline: the timeline goes to a private folder,
 * removed at the end (and when tdtrace dies) */
static char report_dir[PATH_MAX], report_tl[PATH_MAX + 32];

static void report_cleanup(void)
{
    if (!report_dir[0])
        return;
    unlink(report_tl);
    rmdir(report_dir);
    report_dir[0] = '\0';
}

static void report_prepare(struct td_opts *o)
{
    struct stat st;
    if (!o->report)
        return;
    if (strcmp(o->report, "-") != 0 && lstat(o->report, &st) == 0)
        die("cannot create the report '%s': the file exists (tdtrace writes a new file only)", o->report);
    if (o->timeline)
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(report_dir, sizeof report_dir, "%s/tdtrace-report-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(report_dir)) {
        report_dir[0] = '\0';
        die_errno("--report: cannot make a private folder for the timeline");
    }
    snprintf(report_tl, sizeof report_tl, "%s/timeline.json", report_dir);
    atexit(report_cleanup);
    o->timeline = report_tl;
}

static void memory_limit_report(void)
{
    for (int d = 0; d < TD_MAX_DEVICES; d++) {
        const char *file;
        int line;
        unsigned long long limit = td_policy_memory_limit(policy, d, &file, &line);
        unsigned long long peak = td_ledger_device_peak(d);
        if (!limit || peak <= limit)
            continue;
        char where[300];
        if (line)
            snprintf(where, sizeof(where), "the memory-limit of %s:%d", file ? file : "?", line);
        else
            snprintf(where, sizeof(where), "%s", file ? file : "--memory-limit");
        warn_msg("warning: device %d: the traced processes held %llu bytes, over %s %llu: the limit "
                 "is enforced inside the program, which got past it", d, peak, where, limit);
    }
}

/* libs: which of NVIDIA's libraries tdtrace put its own in front of */
static void banner(const char *libs)
{
    if (opts.quiet)
        return;
    char line[4800];
    snprintf(line, sizeof(line), "tdtrace: policy %s (mode %s, backend %s%s%s)",
             policy_path[0] ? policy_path : "built-in defaults",
             td_policy_enforce(policy) ? "enforce" : "audit",
             td_policy_backend_name(td_policy_backend(policy)), *libs ? "; " : "", libs);
    td_out_event(0, 0, "banner", line);
}

int main(int argc, char **argv)
{
    /* tdtrace report: a timeline made into a page (a program named report
     * is traced with tdtrace -- report) */
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return td_report_main(argc - 1, argv + 1);
    td_parse_options(&opts, argc, argv);
    if (opts.check_policy)
        check_policy(opts.check_policy);
    load_policy();
    const char *rname, *rfile;
    int rline;
    if (!opts.runtime && td_policy_names_in(policy, TD_FN__RT_FIRST, TD_FN__LIB_FIRST, &rname, &rfile, &rline))
        warn_msg("warning: %s%s%.0d: the rule on %s acts only with --runtime (without it the runtime's calls are "
                 "not caught)", rfile ? rfile : "?", rline ? ":" : "", rline, rname);
    if (!opts.libs && td_policy_names_in(policy, TD_FN__LIB_FIRST, TD_FN__COUNT, &rname, &rfile, &rline))
        warn_msg("warning: %s%s%.0d: the rule on %s acts only with -e lib= naming its library", rfile ? rfile : "?",
                 rline ? ":" : "", rline, rname);
    /* every option checked before anything is printed or started */
    char err[256];
    if (!opts.trace_expr)
        opts.trace_expr = td_policy_trace(policy);
    td_trace_lib_names(opts.libs != NULL);
    if (td_trace_set(opts.trace_expr ? opts.trace_expr : "all", trace_mask, trace_named,
                     sizeof(trace_mask), err, sizeof(err)) < 0)
        die("-e trace: %s", err);
    td_trace_lib_names(0);
    static const struct { const char *q, *dflt; uint8_t *mask; } sets[] = {
        { "abbrev", "all", abbrev_mask }, { "verbose", "all", verbose_mask }, { "raw", "none", raw_mask },
    };
    const char *exprs[] = { opts.abbrev_expr, opts.verbose_expr, opts.raw_expr };
    for (int i = 0; i < 3; i++)
        if (td_trace_set(exprs[i] ? exprs[i] : sets[i].dflt, sets[i].mask, NULL, sizeof(abbrev_mask),
                         err, sizeof(err)) < 0)
            die("-e %s: %s", sets[i].q, err);
    if (opts.verbose) /* -v: nothing abbreviated */
        memset(abbrev_mask, 0, sizeof(abbrev_mask));
    char libdir[PATH_MAX];
    find_libdir(libdir, sizeof(libdir));
    char *path = opts.nattach ? NULL : resolve_command(opts.cmd[0]);
    if (opts.nattach && opts.libs)
        die("cannot attach with -e lib=: libraries are traced only in programs tdtrace starts (docs/library-tracing.md)");
    for (int i = 0; i < opts.nattach; i++) { /* every refusal before anything is done */
        char why[600];
        if (td_attach_check(opts.attach[i], why, sizeof(why)) < 0)
            die("cannot attach to process %d: %s", (int)opts.attach[i], why);
    }
    if (opts.nattach && td_policy_device_rule_count(policy) > 0)
        die("cannot attach with device rules (hide, remap): the program has seen its devices already");
    char front[4 * PATH_MAX], front_desc[600];
    td_frontlibs_setup(policy, &opts, libdir, front, sizeof front, front_desc, sizeof front_desc);
    /* after the front libraries, which live in libdir itself: an older
     * driver release's shim and emulator are in libdir/driver/V */
    td_needs_init(policy, opts.summary, opts.json != NULL, libdir, sizeof(libdir));
    td_out_open(&opts);
    report_prepare(&opts);
    td_tl_open(&opts);
    banner(opts.nattach ? "" : front_desc); /* -p: nothing is put in front of a running program's libraries */

    uint32_t flags = (opts.bounded ? TD_RING_BOUNDED : 0) | (opts.stacks ? TD_RING_STACKS : 0) |
                     (opts.pyframes ? TD_RING_PYFRAMES : 0) | (opts.runtime ? TD_RING_RUNTIME : 0) |
                     (td_clock_init() ? TD_RING_TSC : 0) | (opts.timeline || opts.summary ? TD_RING_DEVICE : 0);
    uint8_t rmask[sizeof(trace_mask)];
    record_mask(rmask, sizeof(rmask));
    for (int fn = TD_FN__RT_FIRST; fn < TD_FN__LIB_FIRST && !opts.runtime; fn++) /* nothing patches them */
        rmask[fn >> 3] &= (uint8_t)~(1u << (fn & 7));
    for (int fn = TD_FN__LIB_FIRST; fn < TD_FN__COUNT && !opts.libs; fn++)
        rmask[fn >> 3] &= (uint8_t)~(1u << (fn & 7));
    size_t plen;
    char *ptext = policy_text(&plen);
    static const struct td_transport_ops tops = { on_record, td_printer_exit, td_tracer_traced };
    char sock[108];
    td_transport_init(&tops, flags, opts.bufsize, rmask, sizeof(rmask), ptext, plen, sock, sizeof(sock));
    free(ptext);
    td_env_build(libdir, front, sock, &opts);
    policy_env();
    /* tdtrace -p: no seccomp filter can be put into a running process */
    unsigned ioctl_flags = opts.nattach ? ~0u : td_gpu_setup(policy, opts.quiet);
    td_summary_init(&opts);
    td_fold_init(opts.trace_expr ? trace_named : NULL, opts.verbose);
    td_fold_sink(emit_held, fold_line);
    td_out_decode_sets(abbrev_mask, verbose_mask, raw_mask);
    setup_signals();

    td_nest_init(nest_emit, call_shown);
    td_printer_start(print_event);
    if (opts.nattach) {
        struct td_attach_cfg cfg = { libdir, sock, opts.quiet, attach_serve };
        first_pid = opts.attach[0];
        for (int i = 0; i < opts.nattach; i++) /* before the printer thread sees their records */
            td_out_note_pid((int)opts.attach[i]);
        for (int i = 0; i < opts.nattach; i++) {
            char why[600];
            if (td_attach(opts.attach[i], &cfg, why, sizeof(why)) < 0) {
                td_attach_detach_all(detached);
                die("cannot attach to process %d: %s", (int)opts.attach[i], why);
            }
        }
        if (opts.detach_after_ns)
            detach_deadline = now_mono() + opts.detach_after_ns;
    } else {
        first_pid = launch(path, opts.cmd, ioctl_flags, opts.summary == 1 ? 0 : shared_fds());
        td_out_note_pid((int)first_pid);
    }
    static const struct td_tracer_ops ops = { drain, proc_exit, proc_exec, proc_fork, thread_exit,
                                              td_gpu_interrupted, loop_fds, loop_ready, td_transport_busy,
                                              td_out_failed, sync_write, loop_timeout, loop_turn };
    int status = td_tracer_loop(first_pid, &ops);

    td_gpu_handle();
    td_transport_finish(); /* every ring read to the end, every exit line out */
    td_printer_sync();     /* what fold.c holds back too */
    td_printer_stop();
    td_nest_flush_all();
    td_fold_flush_all();
    td_tl_close();
    if (opts.report)
        td_report_write(opts.timeline, opts.report);
    report_cleanup();
    td_transport_report(opts.quiet);
    td_transport_free();
    memory_limit_report();
    if (td_gpu_ctx())
        td_summary_ioctls(td_gpu_ctx());
    td_summary_print();
    td_needs_print();
    td_gpu_report(opts.quiet);
    td_out_close();
    td_gpu_free();
    td_summary_free();
    td_fold_free();
    td_names_free();
    td_ledger_free();
    td_policy_free(policy);
    free(path);
    if (td_out_failed())
        return 1;
    if (opts.nattach) /* as strace -p: the processes are not tdtrace's children */
        return 0;

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
