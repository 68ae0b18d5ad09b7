/* tdtrace, the supervisor: shared declarations of its files. */
#ifndef TD_TDTRACE_H
#define TD_TDTRACE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "api.h"
#include "print.h"
#include "tdtrace/record.h"

/* ---- errors (supervisor set-up dies; see util.c) ---- */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_errno(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warn_msg(const char *fmt, ...);
extern const char *td_progname;

/* ---- options ---- */
enum td_status_filter { TD_STATUS_SUCCESSFUL = 1, TD_STATUS_FAILED = 2 };

struct td_opt_kv { const char *opt, *value; };

struct td_opts {
    const char *outfile;    /* -o */
    int ff;                 /* -ff: FILE.PID */
    int follow;             /* children (default), --no-follow */
    int show_time;          /* -T */
    int tstamp;             /* -t, -tt, -ttt: 1..3 */
    int strsize;            /* -s */
    int quiet;              /* -q */
    int verbose;            /* -v */
    int summary;            /* 0, 1 (-c only), 2 (-C trace and summary) */
    const char *sortby;     /* -S */
    const char *json;       /* --json=FILE or - */
    int stacks;             /* -k */
    const char *trace_expr; /* -e trace= (last one given) */
    int status;             /* -e status= mask; 0 = all */
    const char *driver;     /* --driver */
    const char *policy;     /* --policy */
    const char *check_policy;
    int bounded;            /* --bounded */
    unsigned long long bufsize;
    struct td_opt_kv *popts;/* policy options from the command line, in order */
    int npopts;
    char **cmd;
};

void td_parse_options(struct td_opts *o, int argc, char **argv);
void td_usage(FILE *f);

/* ---- trace filter (filter.c) ---- */
/* parse a -e trace= set into a bitmap; 0 or -1 with a message */
int td_trace_set(const char *expr, uint8_t *mask, size_t masklen, char *err, size_t errlen);

/* ---- decoding (decode.c) ---- */
/* print a call record's "name(args) = result"; rec is untrusted, len its size */
void td_print_call(struct tp *p, const struct td_rec *rec, uint32_t len, int verbose);
/* is a record from process pid well formed (type, claimed pid, function
 * id, argument count, items inside the record)? 0, or -1 with why */
int td_rec_check(const struct td_rec *rec, uint32_t len, uint32_t pid, char *why, size_t n);
/* find the first item of a kind for an argument; NULL if none */
const struct td_item *td_rec_item(const struct td_rec *rec, uint32_t len, int arg, int kind);

#endif
