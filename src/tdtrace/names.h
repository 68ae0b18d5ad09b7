/* SPDX-License-Identifier: Apache-2.0 */
/* Handles by name (strace's -y, names.c): each process's handles numbered
 * by class in the order they appear (stream#2, event#4), a function by its
 * kernel's name (fn add_one), a context with its device (ctx#1(dev 0)). */
#ifndef TD_NAMES_H
#define TD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "tdtrace.h"

/* learn from a call of pid (every call, shown or not): handles made,
 * destroyed, named */
void td_names_call(const struct td_rec *rec, uint32_t len);
/* ... once it is printed: a handle it destroyed is forgotten */
void td_names_after(const struct td_rec *rec, uint32_t len);
/* a process is gone, or exec'd */
void td_names_forget(int pid);
/* the name of handle v of class hclass (enum td_hclass) in pid, into buf;
 * NULL when it has none (a NULL handle, a class without names) */
const char *td_names_get(int pid, int hclass, uint64_t v, char *buf, size_t n);
/* the kernel a function handle names: its mangled name, or NULL */
const char *td_names_kernel(int pid, uint64_t fn);
void td_names_free(void);

#endif
