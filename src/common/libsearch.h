/* SPDX-License-Identifier: Apache-2.0 */
/* Finding NVIDIA's libraries behind tdtrace's own (libsearch.c). */
#ifndef TD_LIBSEARCH_H
#define TD_LIBSEARCH_H

#include <stddef.h>

/* The path of the library called soname (e.g. "libcuda.so.1") as the
 * dynamic loader would find it: $TDTRACE_ORIG_LD_LIBRARY_PATH (what the
 * user had before tdtrace changed it) or $LD_LIBRARY_PATH, the loader cache,
 * then the default directories; skipping any file under own_dir (NULL or
 * "" for none). 0, or -1 if there is none. */
int td_find_library(const char *soname, const char *own_dir, char *out, size_t outlen);

#endif
