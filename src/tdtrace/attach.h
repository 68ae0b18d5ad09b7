/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -p: attach to running processes and detach from them (attach.c). */
#ifndef TD_ATTACH_SUPERVISOR_H
#define TD_ATTACH_SUPERVISOR_H

#include <sys/types.h>

#include "tdtrace.h"

/* the wait status td_transport_exit gets for a process tdtrace detached
 * from (a "stopped" status: no exit is ever reported so) */
#define TD_STATUS_DETACHED 0x7f7f

struct td_attach_cfg {
    const char *libdir; /* tdtrace's libraries (the shim) */
    const char *sock;   /* the transport's socket name */
    int quiet;
    /* serve the socket while the process runs a call of tdtrace's (the
     * shim connects during one) */
    void (*serve)(void);
};

/* what makes attaching to pid impossible, refused with its reason before
 * anything is done to it: 0, or -1 with why (no process, not x86-64, no
 * dynamic loader, already traced) */
int td_attach_check(pid_t pid, char *why, size_t len);
/* why ptrace said EPERM, for a kernel.yama.ptrace_scope value (-1: no Yama) */
const char *td_attach_eperm_text(int scope);
/* the checks on an executable file alone: x86-64, dynamically linked */
int td_attach_check_exe(const char *path, char *why, size_t len);
/* seize every thread of pid, load the shim, route the driver calls
 * through it, let the process go on; its threads are then the tracer's.
 * 0, or -1 with why (what was done is undone). */
int td_attach(pid_t pid, const struct td_attach_cfg *cfg, char *why, size_t len);
/* the processes attached to (and their children made since) */
int td_attach_active(void);
/* put back every patched byte and slot, make the shim inert, let every
 * attached process go; detached(pid) for each */
void td_attach_detach_all(void (*detached)(pid_t pid));
/* process events while attached */
void td_attach_fork(pid_t parent, pid_t child);
void td_attach_forget(pid_t pid); /* it ended or exec'd: nothing to restore */

#endif
