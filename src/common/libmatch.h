/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -e lib=PATTERN: which loaded libraries are traced. The patterns
 * reach a traced process in TDTRACE_LIBS, separated by ':'; each is a glob
 * (fnmatch) on a library's file name (without its directory) or on its
 * soname. The C library, the dynamic loader and tdtrace's own libraries are
 * never traced, whatever the pattern (the shim runs on them). */
#ifndef TD_LIBMATCH_H
#define TD_LIBMATCH_H

#include <link.h>

/* the loaded object's soname, or NULL (read from its dynamic section) */
const char *td_lib_soname(const struct dl_phdr_info *info);
/* 1 when the loaded object named path (soname may be NULL) is one to trace
 * by the patterns (TDTRACE_LIBS's value) */
int td_lib_match(const char *patterns, const char *path, const char *soname);

#endif
