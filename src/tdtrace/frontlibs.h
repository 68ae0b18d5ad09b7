/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_FRONTLIBS_H
#define TD_FRONTLIBS_H

#include <stddef.h>

#include "policy.h"
#include "tdtrace.h"

/* The directories (":"-separated, possibly empty) that put tdtrace's
 * libraries in front of NVIDIA's, as the policy's library statements and
 * the backend decide, into path; what it chose, for the banner, into desc
 * ("tdtrace's cublas, cufft in front of NVIDIA's; NVIDIA's nvrtc", empty
 * when nothing is in front and nothing was chosen). Warns of a chosen
 * library that was not built; dies when a host library is asked for where
 * the GPU is not emulated. */
void td_frontlibs_setup(const struct td_policy *p, const struct td_opts *o, const char *libdir,
                        char *path, size_t n, char *desc, size_t dn);

#endif
