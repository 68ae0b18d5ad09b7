/* SPDX-License-Identifier: Apache-2.0 */
/* Following the process tree with ptrace (tracer.c). */
#ifndef TD_TRACER_H
#define TD_TRACER_H

#include <sys/types.h>

#include "tdtrace.h"

#include <poll.h>
#include <stdint.h>

struct td_proc_state {
    pid_t tid;          /* 0: a free slot */
    pid_t tgid;         /* thread-group id: the process */
    int attached;
    uintptr_t env_area; /* where tdtrace put the environment back (execve) */
    size_t env_len;
};

/* callbacks into main.c */
struct td_tracer_ops {
    int (*drain)(void);                                 /* print some records; 1 if more wait */
    void (*proc_exit)(pid_t pid, int status);          /* a process (thread-group leader) ended */
    void (*proc_exec)(pid_t pid, const char *exe);     /* a process called execve successfully */
    void (*proc_fork)(pid_t parent, pid_t child);      /* a process made a new process (not a thread) */
    void (*thread_exit)(pid_t tid, pid_t tgid);        /* a thread is about to end (still there) */
    void (*interrupted)(pid_t tid); /* a thread stopped by PTRACE_INTERRUPT */
    int (*fds)(struct pollfd *pfd, int max);            /* what else to wait on */
    void (*ready)(const struct pollfd *pfd, int n);     /* ... and it is ready */
    int (*busy)(void);            /* records or exit lines still to come */
    int (*must_stop)(void);       /* kill every tracee (an output error) */
    void (*sync_write)(pid_t pid); /* pid writes to a descriptor the trace shares */
    int (*timeout)(void);         /* ms to wait at most while idle (-1: for an event) */
    void (*turn)(void);           /* every turn of the loop (tdtrace -p: time to detach?) */
};

/* in the child, before exec: the filter that stops execve for us, and
 * writes to the descriptors in sync_fds (bit per descriptor, below 32) */
int td_tracer_child_setup(unsigned sync_fds);
/* parent: take the stopped child under ptrace, then let it run */
void td_tracer_attach_first(pid_t pid);
/* run until every tracee is gone; returns the first process's wait status */
int td_tracer_loop(pid_t first, const struct td_tracer_ops *ops);
/* deliver a signal tdtrace received to every traced process (async-signal-safe) */
void td_tracer_forward(int sig);
/* 1 if pid is a process (thread-group leader) tdtrace traces */
int td_tracer_traced(pid_t pid);
/* tdtrace -p: a thread attach.c seized is the loop's from now on, or no
 * longer (detached) */
void td_tracer_adopt(pid_t tid, pid_t tgid);
void td_tracer_forget(pid_t tid);
/* 1 if tid is a thread tdtrace traces */
int td_tracer_has(pid_t tid);

#endif
