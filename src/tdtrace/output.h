#ifndef TD_OUTPUT_H
#define TD_OUTPUT_H

#include "tdtrace.h"

struct td_output {
    const struct td_opts *opts;
    enum tp_format fmt;
    FILE *main;              /* the trace (stderr, -o FILE) */
    FILE *json;              /* --json */
    struct { int pid; FILE *f; } ff[1024]; /* -ff */
    int nff;
    int pids[64];            /* processes seen: [pid N] once there are two */
    int npids, many;
    int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
};

struct td_output *td_out(void);
void td_out_open(const struct td_opts *o);
void td_out_close(void);
void td_out_flush(void);
FILE *td_out_file(int pid);
void td_out_note_pid(int pid);
/* one call line (and its JSON object); mark: what the policy did, or NULL */
void td_out_call(const struct td_rec *rec, uint32_t len, const char *mark);
struct td_ioctl_event;
/* one GPU ioctl line (and its JSON object) */
void td_out_ioctl(const struct td_ioctl_event *ev);
/* a line that is not a call: event "banner" (no prefix), "exit", "signal", ... */
void td_out_event(int pid, uint64_t mono_ns, const char *event, const char *text);

#endif
