/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_SUMMARY_H
#define TD_SUMMARY_H

#include "tdtrace.h"

void td_summary_init(const struct td_opts *o);
/* a process loaded the shim */
void td_summary_hello(int pid);
/* a call the trace shows (-e trace, -e status): its line in the table */
void td_summary_call(const struct td_rec *rec, uint32_t len);
/* every launch, shown or not: the kernel table's launches */
void td_summary_launch(const struct td_rec *rec, uint32_t len);
/* the emulator says a kernel ran (TD_REC_EVENT, TD_EV_KERNEL) */
void td_summary_kernel_ran(const struct td_rec *rec, uint32_t len);
/* a kernel or other work ran on the emulated device (TD_EV_KERNEL,
 * TD_EV_DEVOP): its time, for the call that queued it */
void td_summary_device(const struct td_rec *rec, uint32_t len);
void td_summary_exit(int pid);
/* a policy rule acted on a call: "DENIED by FILE:LINE" */
void td_summary_mark(const char *mark);
/* take the GPU ioctl counters for the summary */
struct td_ioctl_ctx;
void td_summary_ioctls(const struct td_ioctl_ctx *c);
/* -c/-C tables and leaks to the trace; the summary object to --json */
void td_summary_print(void);
void td_summary_free(void);

#endif
