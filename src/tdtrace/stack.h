/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_STACK_H
#define TD_STACK_H

#include "tdtrace.h"

/* text: one " > module(func+off) [rel] file:line" line per frame, and
 * with py (--py) the Python frames each _PyEval_EvalFrameDefault runs
 * just above it (" > [/path/file.py:42 in func]"), those left over last;
 * JSON: array elements, native only (the caller opens and closes the array) */
void td_stack_print(struct tp *p, int pid, const struct td_item *it, const struct td_pyview *py);
/* drop what is cached for a process that is gone */
void td_stack_forget(int pid);

#endif
