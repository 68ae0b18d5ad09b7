/* SPDX-License-Identifier: Apache-2.0 */
#ifndef TD_OUTPUT_H
#define TD_OUTPUT_H

#include "tdtrace.h"

struct td_output {
    const struct td_opts *opts;
    enum tp_format fmt;
    FILE *main;              /* the trace (stderr, -o FILE) */
    FILE *json;              /* --json */
    int pids[64];            /* processes seen: [pid N] once there are two */
    int npids, many;
    int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
};

struct td_output *td_out(void);
void td_out_open(const struct td_opts *o);
void td_out_close(void);
void td_out_flush(void);
FILE *td_out_file(int pid);
/* -ff: the process's file is complete (its exit line is written) */
void td_out_forget(int pid);
/* a write failed (reported once): the run must end */
int td_out_failed(void);
void td_out_note_pid(int pid);
/* the -e abbrev=, verbose=, raw= sets (bit per function id) */
void td_out_decode_sets(const uint8_t *abbrev, const uint8_t *verbose, const uint8_t *raw);
/* one call line and its JSON object (what: TD_OUT_*); mark: what the
 * policy did, or NULL */
/* the JSON records' format (the header record's "version"); its schema is
 * share/tdtrace-trace.schema.json: a change that is not an addition of
 * optional fields raises it */
#define TD_JSON_VERSION 1

#define TD_OUT_TEXT   0x1
#define TD_OUT_JSON   0x2
#define TD_OUT_FOLDED 0x4   /* JSON: the text folded it (fold.c) */
void td_out_call(const struct td_rec *rec, uint32_t len, const char *mark, unsigned what);
/* the call as the trace's text prints it (no prefix, no time), into p (a
 * TP_TEXT sink the caller owns) */
void td_out_call_text(struct tp *p, const struct td_rec *rec, uint32_t len);
/* another output file (the timeline) could not be written: said once, and
 * td_out_failed() turns true */
void td_out_write_failed(const char *name, int err);
/* --runtime: the calls td_out_call prints next are shown this deep (the
 * runtime calls enclosing them that are shown): indented in the text */
void td_out_depth(int depth);
/* a line of text only (what fold.c says for the calls it folded) */
void td_out_text(int pid, uint64_t mono_ns, const char *text);
/* the emulator's events: a kernel that ran (JSON: the timeline; cupti: the
 * process is on the real driver and CUPTI measured it), a report */
void td_out_kernel(const struct td_rec *rec, uint32_t len, int cupti);
void td_out_report(const struct td_rec *rec, uint32_t len);
/* where the summary's tables go: the trace, or standard error with -ff */
FILE *td_out_summary_file(void);
struct td_ioctl_event;
/* one GPU ioctl line (and its JSON object) */
void td_out_ioctl(const struct td_ioctl_event *ev);
/* a line that is not a call: event "banner" (no prefix), "exit", "signal", ... */
void td_out_event(int pid, uint64_t mono_ns, const char *event, const char *text);

#endif
