/* Following the process tree with ptrace (tracer.c). */
#ifndef TD_TRACER_H
#define TD_TRACER_H

#include <sys/types.h>

#include "tdtrace.h"

struct td_proc_state {
    pid_t tid;
    pid_t tgid;         /* thread-group id: the process */
    int attached;
    int exited;
};

/* callbacks into main.c */
struct td_tracer_ops {
    void (*drain)(void);                                /* print what the ring holds */
    void (*proc_exit)(pid_t pid, int status);          /* a process (thread-group leader) ended */
    void (*proc_exec)(pid_t pid, const char *exe);     /* a process called execve successfully */
    void (*proc_new)(pid_t pid, pid_t parent);         /* a new process (not thread) */
    int (*listen)(void);  /* handle pending GPU ioctls; the fd to wait on, or -1 */
    void (*interrupted)(pid_t tid); /* a thread stopped by PTRACE_INTERRUPT */
};

/* in the child, before exec: the filter that stops execve for us */
int td_tracer_child_setup(void);
/* parent: take the stopped child under ptrace, then let it run */
void td_tracer_attach_first(pid_t pid);
/* run until every tracee is gone; returns the first process's wait status */
int td_tracer_loop(pid_t first, const struct td_tracer_ops *ops);
/* deliver a signal tdtrace received to the traced program */
void td_tracer_forward(int sig);

#endif
