/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU ioctls tdtrace's seccomp listener sees (src/ioctl decodes them):
 * the filter's set-up from the policy, the listener's events, and the
 * result of an ioctl let through, read when its thread is stopped on the
 * way back from the system call; at the end, the processes that issued
 * GPU ioctls without the driver shim. */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include "gpuioctl.h"
#include "output.h"
#include "printer.h"

static struct td_ioctl_ctx *ioctls;
static int listener = -1;
static pid_t only_pid; /* --no-follow: the first process's only */

/* GPU ioctls let through whose result tdtrace will read when the thread
 * comes back from the system call (see result_hook) */
static struct td_ioctl_event *pending;
static int npending, cappending;

static void print_ioctl(const struct td_ioctl_event *ev)
{
    if (only_pid && ev->pid != only_pid)
        return;
    td_printer_sync(); /* the calls before it first; the printer is idle now */
    td_out_note_pid(ev->pid);
    td_out_ioctl(ev);
}

static void ioctl_emit(void *opaque, const struct td_ioctl_event *ev)
{
    (void)opaque;
    if (ev->result_pending) {
        if (npending == cappending) {
            int cap = cappending ? cappending * 2 : 16;
            struct td_ioctl_event *p = realloc(pending, (size_t)cap * sizeof(*p));
            if (!p) { /* no room: print it without its result */
                print_ioctl(ev);
                return;
            }
            pending = p;
            cappending = cap;
        }
        pending[npending++] = *ev;
        return;
    }
    print_ioctl(ev);
}

/* just before a GPU ioctl is let through: stop the thread when it returns
 * from the call (the notification cannot be cancelled by this: the filter
 * waits killably), so its result can be read */
static int result_hook(void *opaque, const struct td_ioctl_event *ev)
{
    (void)opaque;
    return ptrace(PTRACE_INTERRUPT, ev->tid, 0, 0) == 0;
}

static void take_pending(int i, long retval, int known)
{
    struct td_ioctl_event ev = pending[i];
    pending[i] = pending[--npending];
    if (known)
        td_ioctl_complete(ioctls, &ev, retval);
    else
        ev.result_pending = 0;
    print_ioctl(&ev);
}

void td_gpu_interrupted(pid_t tid)
{
    for (int i = 0; i < npending; i++) {
        if (pending[i].tid != tid)
            continue;
#if defined(__x86_64__)
        struct user_regs_struct regs;
        int ok = ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0;
        take_pending(i, ok ? (long)regs.rax : 0, ok);
#else
        take_pending(i, 0, 0);
#endif
        return;
    }
}

void td_gpu_process_gone(pid_t pid)
{
    for (int i = npending - 1; i >= 0; i--) /* its pending ioctls print without a result */
        if (pending[i].pid == pid)
            take_pending(i, 0, 0);
    if (ioctls)
        td_ioctl_forget(ioctls, (int)pid);
}

static void ioctl_warn(void *opaque, const char *msg)
{
    (void)opaque;
    warn_msg("%s", msg);
}

void td_gpu_handle(void)
{
    struct pollfd pfd = { listener, POLLIN, 0 };
    while (listener >= 0 && poll(&pfd, 1, 0) > 0) {
        if (pfd.revents & POLLIN) {
            if (td_ioctl_handle(ioctls, listener, ioctl_emit, NULL) < 0)
                break;
        } else if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
            break; /* no process holds the filter any more */
        }
        pfd.revents = 0;
    }
}

/* the kernel says it has seccomp user notification: no need to try it in
 * a child first (which costs a fork at every start) */
static int kernel_has_user_notif(void)
{
    char buf[256] = "";
    int fd = open("/proc/sys/kernel/seccomp/actions_avail", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    return strstr(buf, "user_notif") != NULL;
}

unsigned td_gpu_setup(const struct td_policy *policy, int quiet)
{
    const char *globs[64];
    int nglobs = 0;
    for (size_t i = 0; i < td_policy_gpu_dev_count(policy) && nglobs < 64; i++)
        globs[nglobs++] = td_policy_gpu_dev(policy, i);
    struct td_ioctl_rule *rules = NULL;
    int nrules = td_ioctl_rules_from_policy(policy, &rules);
    if (nrules < 0)
        die("out of memory");
    if (!kernel_has_user_notif() && !td_ioctl_supported()) {
        if (nrules)
            die("this kernel has no seccomp user notification: ioctl deny rules cannot be enforced");
        if (!quiet)
            warn_msg("warning: this kernel has no seccomp user notification: GPU ioctls are not traced");
        free(rules);
        return ~0u;
    }
    ioctls = td_ioctl_new(globs, nglobs, rules, nrules, td_policy_enforce(policy));
    free(rules);
    if (!ioctls)
        die("out of memory");
    td_ioctl_set_warn(ioctls, ioctl_warn, NULL);
#if defined(__x86_64__)
    if (td_ioctl_killable_supported())
        td_ioctl_set_result_hook(ioctls, result_hook, NULL);
#endif
    return nrules ? TD_IOCTL_TRAP_ALL : 0;
}

void td_gpu_listen(int fd, pid_t only)
{
    listener = fd;
    only_pid = only;
}

int td_gpu_fd(void)
{
    return listener;
}

void td_gpu_closed(void)
{
    close(listener);
    listener = -1;
}

struct td_ioctl_ctx *td_gpu_ctx(void)
{
    return ioctls;
}

void td_gpu_report(int quiet)
{
    if (!ioctls)
        return;
    const struct td_ioctl_pid_stat *ps;
    size_t n = td_ioctl_pid_stats(ioctls, &ps);
    unsigned long long calls = 0;
    for (size_t i = 0; i < n; i++)
        calls += ps[i].calls;
    if (!calls || quiet)
        return; /* no GPU ioctl at all: nothing to say */
    int pids[64];
    size_t nb = td_ioctl_bypass(ioctls, pids, 64);
    if (!nb) {
        warn_msg("every process that issued GPU ioctls loaded the driver shim");
        return;
    }
    for (size_t i = 0; i < nb && i < 64; i++)
        warn_msg("warning: process %d issued GPU ioctls without loading the driver shim "
                 "(a statically linked or privately loaded driver): its CUDA calls were not seen",
                 pids[i]);
}

void td_gpu_free(void)
{
    if (ioctls)
        td_ioctl_free(ioctls);
    ioctls = NULL;
}
