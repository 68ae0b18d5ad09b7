/* SPDX-License-Identifier: Apache-2.0 */
/* --runtime: records put in the order they are printed, a CUDA runtime
 * call before the driver calls it made (nest.c). On the printer thread. */
#ifndef TD_NEST_H
#define TD_NEST_H

#include "tdtrace.h"

/* emit: print a record at a depth (the calls enclosing it that are
 * shown); shown: whether a record will be printed (for the depth) */
void td_nest_init(void (*emit)(const struct td_rec *rec, uint32_t len, int depth),
                  int (*shown)(const struct td_rec *rec, uint32_t len));
/* a checked call record, in the order of its ring */
void td_nest_record(const struct td_rec *rec, uint32_t len);
/* what a process holds goes out (its exit, its exec) / everything (the end) */
void td_nest_flush_pid(int pid);
void td_nest_flush_all(void);
/* times a thread held too much and let it out unordered */
unsigned long long td_nest_overflows(void);

#endif
