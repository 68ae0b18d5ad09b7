/* SPDX-License-Identifier: Apache-2.0 */
/* --py with -c/-C: the Python lines that made the calls the trace shows,
 * with their calls, time and the device memory they allocated. */
#ifndef TD_PYSUMMARY_H
#define TD_PYSUMMARY_H

#include "tdtrace.h"

/* a call the summary counts; dev_bytes: device memory it allocated */
void td_pysum_call(const struct td_rec *rec, uint32_t len, unsigned long long dev_bytes);
/* text: the table (the lines among the top TD_PYSUM_TOP by calls, by time
 * and by device memory), nothing when no call had Python frames;
 * sz: how a byte count is written */
#define TD_PYSUM_TOP 10
void td_pysum_table(struct tp *p, const char *(*sz)(unsigned long long, char *, size_t));
/* JSON: ,"python_lines":[...] (every line) */
void td_pysum_json(struct tp *p);
void td_pysum_free(void);

#endif
