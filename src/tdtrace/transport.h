/* SPDX-License-Identifier: Apache-2.0 */
/* The records' way in (transport.c): tdtrace's socket, one ring per
 * traced process, draining in bounded batches. */
#ifndef TD_TRANSPORT_H
#define TD_TRANSPORT_H

#include <poll.h>
#include <sys/types.h>

#include "tdtrace.h"

struct td_transport_ops {
    /* a record from pid's ring (pid: the ring's owner, a kernel fact) */
    void (*record)(pid_t pid, struct td_rec *rec, uint32_t len);
    /* pid's exit line, once every record it wrote is out */
    void (*exit)(pid_t pid, int status);
    /* is pid a process tdtrace traces? */
    int (*traced)(pid_t pid);
};

/* set up: the control area (flags, record mask, policy text), the shared
 * area, the socket; the socket's name for TDTRACE_SOCK */
void td_transport_init(const struct td_transport_ops *ops, uint32_t flags, uint64_t ring_size,
                       const uint8_t *mask, size_t masklen, const char *policy, size_t policy_len,
                       char *name, size_t namelen);
/* descriptors to wait on; handle them when poll says so */
int td_transport_fds(struct pollfd *pfd, int max);
void td_transport_ready(const struct pollfd *pfd, int n);
/* print at most `budget` records; 1 if more are waiting */
int td_transport_drain(int budget);
/* every record of pid's rings now (-k: while its stack can be read) */
void td_transport_drain_pid(pid_t pid);
/* the records pid's rings hold now (its other threads may go on writing);
 * pid 0: every process's */
void td_transport_drain_written(pid_t pid);
/* pid exec'd: its rings have no writer left */
void td_transport_exec(pid_t pid);
/* pid ended: its rings are drained to the end, then ops->exit runs */
void td_transport_exit(pid_t pid, int status);
/* a record of pid's failed validation: counted, reported at the end */
void td_transport_invalid(pid_t pid, const char *why);
/* records or exit lines still to come */
int td_transport_busy(void);
/* how long tdtrace may sleep (ms; -1 until an event), once it is asleep
 * to writers (td_transport_sleeping): 0 when a ring holds records */
int td_transport_timeout(void);
/* before the program starts: tdtrace is about to sleep */
void td_transport_sleeping(int on);
/* the end: what was lost, per process; dropped records */
void td_transport_report(int quiet);
/* the end: every ring read to its end (no writer is left), exit lines out */
void td_transport_finish(void);
void td_transport_free(void);

#endif
