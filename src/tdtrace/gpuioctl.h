/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU ioctls in the supervisor (gpuioctl.c). */
#ifndef TD_GPUIOCTL_H
#define TD_GPUIOCTL_H

#include <sys/types.h>

#include "ioctl.h"
#include "policy.h"
#include "tdtrace.h"

/* the filter for the policy's GPU device nodes and ioctl rules: the flags
 * for td_ioctl_prepare and the child's install, or ~0u when this kernel
 * cannot notify (then GPU ioctls are not traced) */
unsigned td_gpu_setup(const struct td_policy *policy, int quiet);
/* the listener the child installed; only: print only this process's
 * ioctls (0: every process's) */
void td_gpu_listen(int fd, pid_t only);
int td_gpu_fd(void);                  /* the listener, or -1 */
void td_gpu_closed(void);             /* no process holds the filter any more */
void td_gpu_handle(void);             /* every notification waiting */
void td_gpu_interrupted(pid_t tid);   /* tid stopped back from an ioctl: its result */
void td_gpu_process_gone(pid_t pid);
struct td_ioctl_ctx *td_gpu_ctx(void); /* NULL when GPU ioctls are not traced */
/* the processes that issued GPU ioctls without the driver shim */
void td_gpu_report(int quiet);
void td_gpu_free(void);

#endif
