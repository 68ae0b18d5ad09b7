/* SPDX-License-Identifier: Apache-2.0 */
/* The driver release a run presents (--emulate=driver=) and what the
 * traced program needed of a driver (needs.c). */
#ifndef TD_TDTRACE_NEEDS_H
#define TD_TDTRACE_NEEDS_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "tdtrace/record.h"

/* The release the policy's emulate driver= names (0: none): libdir
 * becomes that release's directory (lib/tdtrace/driver/V), whose shim and
 * emulator export only its entry points; dies when it is missing. */
void td_needs_init(const struct td_policy *p, int summary, int json, char *libdir, size_t n);
/* 1 when the report needs fn's calls recorded: every entry point's, when
 * there is a report (-c, -C, --json, a driver release chosen) */
int td_needs_wants(int fn);
/* an image the emulator loaded (a checked TD_EV_IMAGE record) */
void td_needs_image(const struct td_rec *rec, uint32_t len);
/* one checked call record (the printer thread) */
void td_needs_call(const struct td_rec *rec, uint32_t len);
struct tp;
/* the report as the summary record's "needs" field (--json) */
void td_needs_json(struct tp *p);
/* the report: text (with -c/-C, or when a driver release was chosen) and
 * a JSON record */
void td_needs_print(void);

#endif
