/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime's start-up folded (fold.c): its lookups (cuGetProcAddress*,
 * cuGetExportTable), its private export-table calls and its bursts of
 * attribute queries print as one summarising line each instead of one
 * line per call; probes (lookups that answer "not there") are told apart
 * from failures. */
#ifndef TD_FOLD_H
#define TD_FOLD_H

#include "tdtrace.h"

/* named: functions the -e trace set names itself (never folded); all: -v */
void td_fold_init(const uint8_t *named, int all);
/* an expected failure: a lookup that found nothing (not a failure for
 * -e status=failed, -Z or the summary's errors) */
int td_is_probe(const struct td_rec *rec, uint32_t len);

/* what to do with a call the trace shows */
enum td_fold_verdict { TD_FOLD_PRINT, TD_FOLD_TAKEN };
/* TD_FOLD_TAKEN: the call is folded or held (fold.c prints what it must
 * later through emit); TD_FOLD_PRINT: print it now (what was pending of
 * its process or thread went out first, through emit and line) */
enum td_fold_verdict td_fold_call(const struct td_rec *rec, uint32_t len);
/* pid's pending lines and held calls, now (its exit, a write the program
 * makes to the trace's terminal, the end) */
void td_fold_flush(int pid);
void td_fold_flush_all(void);
/* every call held back, out now (their lines, or a burst's) */
void td_fold_release(void);
void td_fold_forget(int pid);
/* where fold.c prints: a held call, and a summarising line */
void td_fold_sink(void (*emit)(const struct td_rec *rec, uint32_t len),
                  void (*line)(int pid, uint64_t t, const char *text));
void td_fold_free(void);

#endif
