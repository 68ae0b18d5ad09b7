/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_ENV_H
#define TD_ENV_H

#include "tdtrace.h"

#define TD_ENV_MAX 32

struct td_env_var { const char *name; char *entry; /* "NAME=value" */ };

/* libdir first on the library path, then front (":"-separated, may be
 * empty: the directories of src/tdtrace/frontlibs.c), then the user's */
void td_env_build(const char *libdir, const char *front, const char *sock_name,
                  const struct td_opts *o);
void td_env_add(const char *name, const char *value);
/* 1 if envp (n entries) already carries every injection variable */
int td_env_complete(char *const *envp, int n);
/* envp without our variables, then ours; NULL-terminated, malloc'd array
 * (the strings are not copied) */
char **td_env_merge(char *const *envp, int n);

#endif
