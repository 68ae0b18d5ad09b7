/* SPDX-License-Identifier: Apache-2.0 */
/* --timeline=FILE: the run as Chrome trace event JSON (Perfetto,
 * chrome://tracing). The format is docs/timeline.md. Every function runs on
 * the printer thread, in record order, after the record was checked
 * (td_rec_check); what a record says is still the target's word, so every
 * string is escaped and every index bounded here again. */
#ifndef TD_TIMELINE_H
#define TD_TIMELINE_H

#include "tdtrace.h"

/* creates FILE (a new one: never an existing file or a link), or dies */
void td_tl_open(const struct td_opts *o);
int td_tl_active(void);
/* a process loaded the shim: its backend says whether device times come */
void td_tl_hello(const struct td_rec *rec, uint32_t len);
/* a call (mark: what the policy did to it, or NULL) */
void td_tl_call(const struct td_rec *rec, uint32_t len, const char *mark);
/* after the ledger took the call in: pid's device memory, when it changed */
void td_tl_memory(const struct td_rec *rec);
/* the emulated device's work: a kernel (TD_EV_KERNEL), other work (TD_EV_DEVOP) */
void td_tl_device(const struct td_rec *rec, uint32_t len);
/* the emulator's report (a fault, a diagnostic) */
void td_tl_report(const struct td_rec *rec, uint32_t len);
/* process events: "fork" (detail: the child), "exec" (the path), "exit"
 * (the exit line), at mono_ns; exit also says the memory still held */
void td_tl_process(int pid, uint64_t mono_ns, const char *what, const char *detail);
/* the end: closes the JSON and the file */
void td_tl_close(void);

#endif
