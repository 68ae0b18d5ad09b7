/* SPDX-License-Identifier: Apache-2.0 */
/* libtdruntime.so's dlopen search (search.c): a bare name searched as
 * ld.so would for the object that called dlopen, not for libtdruntime. */
#ifndef TD_RTLOAD_SEARCH_H
#define TD_RTLOAD_SEARCH_H

/* the next dlopen (libc's): NULL when there is none */
void *td_real_dlopen(const char *file, int mode);
/* dlopen(name, mode) as ld.so runs it for the object holding the code
 * address caller (the interposed dlopen's return address) */
void *td_dlopen_as(const char *name, int mode, const void *caller);

#endif
