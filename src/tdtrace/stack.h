#ifndef TD_STACK_H
#define TD_STACK_H

#include "tdtrace.h"

/* text: one " > module(func+off) [rel] file:line" line per frame;
 * JSON: array elements (the caller opens and closes the array) */
void td_stack_print(struct tp *p, int pid, const struct td_item *it);
/* drop what is cached for a process that is gone */
void td_stack_forget(int pid);

#endif
