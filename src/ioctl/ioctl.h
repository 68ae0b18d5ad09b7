/* SPDX-License-Identifier: Apache-2.0 */
/* GPU ioctls: a seccomp user-notification filter that stops only ioctls
 * whose request looks like a GPU driver's, and decoders that print them by
 * name (NVIDIA frontend escapes and UVM, DRM, AMD KFD).
 *
 * Phases (the order matters):
 *   child, after fork, before exec:  td_ioctl_child_install(sock)
 *       installs the filter (inherited by every descendant) and sends the
 *       listener fd to the parent over a unix socket (SCM_RIGHTS), then
 *       closes its own copy: the target never holds the listener.
 *   parent:  fd = td_ioctl_parent_receive(sock);
 *            c = td_ioctl_new(globs, n, rules, nrules, enforce);
 *            loop: poll(fd, POLLIN) ... td_ioctl_handle(c, fd, emit, opaque)
 *            until it returns -1 (every process holding the filter is gone).
 *
 * Results: a call that is let through is answered with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE, so the kernel runs it in the target and
 * the listener never learns its result by itself. A ptrace supervisor can
 * (td_ioctl_set_result_hook, td_ioctl_complete); otherwise such an event
 * has result_known = 0 and prints "= ?" with the input fields only. A
 * denied call's result is the errno tdtrace answered. See
 * docs/HOWTO-add-an-ioctl.md.
 *
 * If tdtrace dies, the kernel closes the listener and every pending and
 * later trapped ioctl fails with ENOSYS in the target; other syscalls are
 * unaffected.
 *
 * The context is not thread-safe: one thread calls td_ioctl_handle. */
#ifndef TD_IOCTL_H
#define TD_IOCTL_H

#include <stddef.h>

struct tp;
struct td_policy;

/* One deny rule (from the policy file or --ioctl-deny=...). */
#ifndef TD_IOCTL_RULE_DEFINED
#define TD_IOCTL_RULE_DEFINED
struct td_ioctl_rule {
    const char *name;        /* e.g. "NV_ESC_RM_CONTROL", "UVM_FREE"; NULL when by number */
    unsigned long number;    /* the full 32-bit request, when has_number */
    int has_number;
    int err;                 /* errno to fail with; 0 means EPERM */
    const char *dev_glob;    /* fnmatch glob on the device path; NULL: every GPU node */
    const char *file;        /* where the rule came from; NULL: the command line */
    int line;
};
#endif

/* ---- set-up ----------------------------------------------------------- */

/* Child side, after fork and before exec: install the filter and send the
 * listener to the parent through sock; 0 or -errno. The filter needs
 * PR_SET_NO_NEW_PRIVS, which this sets unless the caller has CAP_SYS_ADMIN
 * (then setuid programs keep working under the trace). */
int td_ioctl_child_install(int sock);

/* Filter variants for td_ioctl_child_install_ex. */
enum {
    /* stop every ioctl, not only GPU-looking requests: the NVIDIA driver
     * ignores the type byte, so a program can reach it with any type;
     * with this flag deny rules hold for those too. Costs one round trip
     * per non-GPU ioctl (terminal ioctls and the like). */
    TD_IOCTL_TRAP_ALL = 1 << 0,
};
int td_ioctl_child_install_ex(int sock, unsigned flags);

/* Build the filter program now (call in the parent before fork: then the
 * child allocates nothing between fork and exec). 0 or -errno. */
int td_ioctl_prepare(unsigned flags);

/* Parent side: receive the listener fd (close-on-exec); fd or -errno. */
int td_ioctl_parent_receive(int sock);

/* Whether this kernel offers seccomp user notification: 1 yes, 0 no
 * (probed in a short-lived child, so the caller stays unfiltered). */
int td_ioctl_supported(void);

/* ---- the context ------------------------------------------------------ */

struct td_ioctl_ctx;

/* gpu_globs: extra device-node globs (--gpu-dev, policy gpu-dev) on top of
 * /dev/nvidia..., /dev/dri/..., /dev/kfd. rules: deny rules (copied: the
 * strings must outlive the context). enforce: 1 answer matching calls with
 * the rule's errno; 0 audit only (the call runs, the event says
 * would_deny). NULL when out of memory. */
struct td_ioctl_ctx *td_ioctl_new(const char *const *gpu_globs, int nglobs,
                                  const struct td_ioctl_rule *rules, int nrules, int enforce);
void td_ioctl_free(struct td_ioctl_ctx *c);

/* Some NVIDIA parameter blocks changed layout between driver versions
 * without a change of request number (UVM's carry no size). td_ioctl_new
 * reads the loaded kernel module's version (/sys/module/nvidia_uvm/version,
 * else nvidia's); this overrides it (0: unknown, decode with the layouts
 * of current drivers). */
void td_ioctl_set_driver_version(unsigned major);
/* The major number of a version text such as "590.44.01\n"; 0 if none. */
unsigned td_ioctl_parse_driver_version(const char *text);

/* Build rules from a parsed policy (its ioctl deny statements); *out is
 * malloc'd (free it), the strings point into the policy. Count or -errno. */
int td_ioctl_rules_from_policy(const struct td_policy *p, struct td_ioctl_rule **out);

struct td_ioctl_event;
struct td_ioctl_ctx;
/* Results of calls that are let through. hook(opaque, ev) is called just
 * before such a call is answered with CONTINUE; returning 1 means the
 * caller (a ptrace supervisor) will learn the result itself: the event
 * then has result_pending set, and the caller completes it with
 * td_ioctl_complete once the thread is back from the system call. */
void td_ioctl_set_result_hook(struct td_ioctl_ctx *c,
                              int (*hook)(void *opaque, const struct td_ioctl_event *ev), void *opaque);
/* Fill in a pending event's result (the system call's return value, as a
 * register holds it) and re-read its parameter block from the thread, so
 * the fields the driver wrote (status) can be printed. */
void td_ioctl_complete(struct td_ioctl_ctx *c, struct td_ioctl_event *ev, long retval);
/* Whether this kernel keeps a taken notification from being cancelled by
 * a ptrace interrupt (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, Linux 5.19):
 * only then can a supervisor learn results this way. */
int td_ioctl_killable_supported(void);

/* Where warnings go (an unknown driver or number: one warning per family);
 * default: "tdtrace: warning: ..." on stderr. */
void td_ioctl_set_warn(struct td_ioctl_ctx *c, void (*warn)(void *opaque, const char *msg), void *opaque);

/* ---- the notification loop ------------------------------------------- */

enum td_ioctl_family {
    TD_IOF_NONE, TD_IOF_NVIDIA, TD_IOF_UVM, TD_IOF_DRM, TD_IOF_KFD, TD_IOF_OTHER
};

struct td_ioctl_event {
    int pid, tid, fd;            /* pid: the thread group; tid: the calling thread */
    char path[256];              /* the fd's target, from /proc/TID/fd/FD */
    unsigned long request;       /* the 32-bit request (the kernel ignores the upper half) */
    unsigned char arg[512];      /* the parameter block as read at entry (see arglen) */
    size_t arglen;               /* bytes read (may be short: a bad pointer or a page edge) */
    int have_arg;                /* arg holds what the target passed */
    long ret;                    /* when result_known: the return value (-1 on error) */
    int err;                     /* when result_known and ret == -1: the errno */
    int denied;                  /* answered with err by rule */
    const struct td_ioctl_rule *rule;  /* the matching rule (denied or would_deny) */
    unsigned long long t_enter_ns, t_exit_ns;  /* CLOCK_MONOTONIC: trapped, answered */
    /* added */
    unsigned long long argp;     /* the parameter block's address in the target */
    size_t argwant;              /* bytes the request says the block has */
    int result_known;            /* ret/err are meaningful (denied, or filled in by a tracer) */
    int would_deny;              /* audit mode: a rule matched, the call ran */
    int family;                  /* enum td_ioctl_family */
    int result_pending;          /* the supervisor will fill in the result */
};

/* Handle one pending notification on the listener: decode, decide,
 * respond; calls emit() for each GPU ioctl to print (after answering, so
 * the target is not held while printing). Returns 0, or -1 if the listener
 * is gone (no process holds the filter any more). Never blocks: returns 0
 * at once when nothing is pending. */
int td_ioctl_handle(struct td_ioctl_ctx *c, int listener,
                    void (*emit)(void *opaque, const struct td_ioctl_event *ev), void *opaque);

/* The call itself, through print.h: ioctl(FD<PATH>, NAME, {...}) = RESULT
 * and, for a rule, a note naming it. The caller writes the line prefix
 * before and any suffix (-T) and tp_line_end after. */
void td_ioctl_print(struct tp *p, const struct td_ioctl_event *ev);

/* ---- counters for the summary and the bypass report ------------------ */

struct td_ioctl_stat {
    const char *name;            /* the decoded name, or "_IOC(...)" raw */
    unsigned long long calls;
    unsigned long long errors;   /* calls whose known result was an error (denied included) */
    unsigned long long denied;
    unsigned long long time_ns;  /* time the target spent stopped by tdtrace (trap to answer) */
};
/* Per-name counters, in first-seen order; valid until the next handle. */
size_t td_ioctl_stats(const struct td_ioctl_ctx *c, const struct td_ioctl_stat **out);

struct td_ioctl_pid_stat {
    int pid;                     /* thread group id */
    unsigned long long calls, denied;
    int shim;                    /* the supervisor said this process loaded the shim */
};
size_t td_ioctl_pid_stats(const struct td_ioctl_ctx *c, const struct td_ioctl_pid_stat **out);
/* The supervisor tells which processes loaded the driver shim. */
void td_ioctl_mark_shim(struct td_ioctl_ctx *c, int pid);
/* Processes that issued GPU ioctls without ever loading the shim: writes
 * up to max pids, returns how many there are. */
size_t td_ioctl_bypass(const struct td_ioctl_ctx *c, int *pids, size_t max);
/* A thread or process is gone (forget the tid->pid cache entry). */
void td_ioctl_forget(struct td_ioctl_ctx *c, int tid);

/* Notifications that vanished before they could be answered (the target
 * died or was interrupted): counted, not printed. */
unsigned long long td_ioctl_vanished(const struct td_ioctl_ctx *c);

/* ---- decoders (pure) -------------------------------------------------- */

/* The name of a request, or NULL if unknown. NVIDIA frontend escapes are
 * recognised by type 'F' and number whatever the size. */
const char *td_ioctl_name(unsigned long request);
/* A name to its number: for NV_ESC_* the nr (the driver ignores type and
 * size), for the others the full request. Returns the family
 * (enum td_ioctl_family, > 0) or -ENOENT. */
int td_ioctl_lookup_name(const char *name, unsigned long *request_or_nr);
/* The family a request belongs to by its number alone (TD_IOF_NONE if it
 * is not a GPU-looking request). */
int td_ioctl_family_of(unsigned long request);
/* NV_STATUS name, or NULL. */
const char *td_nv_status_name(unsigned status);
/* Whether path is a GPU node: the built-in patterns or a user glob. */
int td_ioctl_is_gpu_path(const struct td_ioctl_ctx *c, const char *path);

/* The filter's table, for tests and documentation. */
struct td_ioctl_match {
    unsigned long mask, value;   /* (request & mask) == value, on the low 32 bits */
    const char *what;
};
size_t td_ioctl_filter_table(const struct td_ioctl_match **out);
/* Whether the filter table stops this request. */
int td_ioctl_filter_matches(unsigned long request);

#endif
