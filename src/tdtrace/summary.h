#ifndef TD_SUMMARY_H
#define TD_SUMMARY_H

#include "tdtrace.h"

void td_summary_init(const struct td_opts *o);
/* a process loaded the shim */
void td_summary_hello(int pid);
/* can the summary take this (well-formed) call record? 0, or -1 with why
 * (a successful call that names a device no device table can hold) */
int td_summary_check(const struct td_rec *rec, uint32_t len, char *why, size_t n);
void td_summary_call(const struct td_rec *rec, uint32_t len);
/* the most device memory every process together held on dev */
unsigned long long td_summary_device_peak(int dev);
void td_summary_exit(int pid);
/* a policy rule acted on a call: "DENIED by FILE:LINE" */
void td_summary_mark(const char *mark);
/* take the GPU ioctl counters for the summary */
struct td_ioctl_ctx;
void td_summary_ioctls(const struct td_ioctl_ctx *c);
/* -c/-C tables and leaks to the trace; the summary object to --json */
void td_summary_print(void);

#endif
