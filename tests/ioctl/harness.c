/* SPDX-License-Identifier: Apache-2.0 */
/* Live test harness for src/ioctl without the supervisor: fork, install
 * the filter in the child (td_ioctl_child_install), exec the test program;
 * the parent receives the listener and loops td_ioctl_handle, printing
 * each GPU ioctl through print.h on stdout.
 *
 *   harness [--glob G]... [--deny NAME|NUMBER[:ERRNO[:DEVGLOB]]]... [--audit]
 *           [--trap-all] [--slow-ms N] [--close-listener] [--stats FILE] -- PROG ARGS
 *
 * Exit: the program's status (128+sig when killed); 77 only when this
 * kernel has no seccomp user notification at all (the reason on stderr);
 * 2 when the filter fails to install on a kernel that has it (a bug). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioctl/ioctl.h"
#include "print.h"

static struct tp out;

static void emit(void *opaque, const struct td_ioctl_event *ev)
{
    (void)opaque;
    td_ioctl_print(&out, ev);
    tp_line_end(&out);
    fflush(stdout);
}

/* does this kernel offer SECCOMP_RET_USER_NOTIF at all? */
static int kernel_has_user_notif(void)
{
    char buf[256] = "";
    FILE *f = fopen("/proc/sys/kernel/seccomp/actions_avail", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    return strstr(buf, "user_notif") != NULL;
}

/* the filter could not be set up: a skip only if the kernel lacks it */
static int setup_failed(const char *what, int err)
{
    if (!kernel_has_user_notif()) {
        fprintf(stderr, "harness: this kernel has no seccomp user notification "
                "(user_notif is not in /proc/sys/kernel/seccomp/actions_avail)\n");
        return 77;
    }
    fprintf(stderr, "harness: %s: %s (the kernel has seccomp user notification)\n", what, strerror(err));
    return 2;
}

static int errno_by_name(const char *s)
{
    for (int e = 1; e < 200; e++) {
        const char *n = strerrorname_np(e);
        if (n && strcmp(n, s) == 0)
            return e;
    }
    return atoi(s);
}

int main(int argc, char **argv)
{
    const char *globs[16];
    int nglobs = 0;
    struct td_ioctl_rule rules[16];
    int nrules = 0, enforce = 1, trap_all = 0, slow_ms = 0, close_listener = 0;
    const char *stats = NULL;
    int i = 1;
    memset(rules, 0, sizeof(rules));
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "--glob") && i + 1 < argc && nglobs < 16) {
            globs[nglobs++] = argv[++i];
        } else if (!strcmp(argv[i], "--deny") && i + 1 < argc && nrules < 16) {
            char *spec = argv[++i];
            struct td_ioctl_rule *r = &rules[nrules++];
            char *e = strchr(spec, ':');
            if (e) {
                *e++ = '\0';
                char *d = strchr(e, ':');
                if (d) {
                    *d++ = '\0';
                    r->dev_glob = d;
                }
                r->err = *e ? errno_by_name(e) : 0;
            }
            if (spec[0] >= '0' && spec[0] <= '9') {
                r->number = strtoul(spec, NULL, 0);
                r->has_number = 1;
            } else {
                r->name = spec;
            }
        } else if (!strcmp(argv[i], "--audit")) {
            enforce = 0;
        } else if (!strcmp(argv[i], "--trap-all")) {
            trap_all = 1;
        } else if (!strcmp(argv[i], "--slow-ms") && i + 1 < argc) {
            slow_ms = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--close-listener")) {
            close_listener = 1;
        } else if (!strcmp(argv[i], "--stats") && i + 1 < argc) {
            stats = argv[++i];
        } else {
            fprintf(stderr, "harness: bad option %s\n", argv[i]);
            return 2;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "harness: no program\n");
        return 2;
    }
    char **prog = argv + i + 1;

    unsigned flags = trap_all ? TD_IOCTL_TRAP_ALL : 0;
    int prc = td_ioctl_prepare(flags);
    if (prc < 0)
        return setup_failed("cannot build the filter", -prc);
    if (!td_ioctl_supported())
        return setup_failed("the filter does not install", EPERM);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        perror("socketpair");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        close(sv[0]);
        int rc = td_ioctl_child_install_ex(sv[1], flags);
        close(sv[1]);
        if (rc < 0)
            _exit(126); /* the parent reports it */
        execv(prog[0], prog);
        _exit(127);
    }
    close(sv[1]);
    int listener = td_ioctl_parent_receive(sv[0]);
    close(sv[0]);
    if (listener < 0) {
        waitpid(pid, NULL, 0);
        return setup_failed("no listener", -listener);
    }
    struct td_ioctl_ctx *c = td_ioctl_new(globs, nglobs, rules, nrules, enforce);
    if (!c)
        return 2;
    tp_init(&out, TP_TEXT, stdout);

    if (close_listener) {
        close(listener);   /* as if tdtrace died: trapped calls must fail, not hang */
        listener = -1;
    }
    int status = 0, reaped = 0;
    while (listener >= 0) {
        struct pollfd pfd = { listener, POLLIN, 0 };
        int n = poll(&pfd, 1, 200);
        if (n > 0 && slow_ms) {
            struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        if (n != 0 && td_ioctl_handle(c, listener, emit, NULL) < 0)
            break;
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
            reaped = 1;
    }
    if (listener >= 0)
        close(listener);
    if (!reaped)
        waitpid(pid, &status, 0);

    if (stats) {
        FILE *f = fopen(stats, "w");
        if (f) {
            const struct td_ioctl_stat *s;
            size_t k = td_ioctl_stats(c, &s);
            for (size_t j = 0; j < k; j++)
                fprintf(f, "%s calls=%llu errors=%llu denied=%llu\n", s[j].name, s[j].calls, s[j].errors,
                        s[j].denied);
            int bp[8];
            size_t nb = td_ioctl_bypass(c, bp, 8);
            fprintf(f, "bypass=%zu%s\n", nb, nb && bp[0] == pid ? " (the program)" : "");
            fprintf(f, "vanished=%llu\n", td_ioctl_vanished(c));
            fclose(f);
        }
    }
    tp_free(&out);
    td_ioctl_free(c);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
