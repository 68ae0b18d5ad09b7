/* SPDX-License-Identifier: Apache-2.0 */
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
enum td_status_filter { TD_STATUS_SUCCESSFUL = 1, TD_STATUS_FAILED = 2, TD_STATUS_NONE = 4 };

/* -U: the summary's columns (strace's names) */
enum td_column {
    TD_COL_PERCENT, TD_COL_SECONDS, TD_COL_AVG, TD_COL_MIN, TD_COL_MAX, TD_COL_CALLS,
    TD_COL_ERRORS, TD_COL_DEVICE, TD_COL_NAME, TD_COL__COUNT
};
#define TD_MAX_COLUMNS 16

struct td_opt_kv { const char *opt, *value; };

struct td_opts {
    const char *outfile;    /* -o */
    int ff;                 /* -ff: FILE.PID */
    int follow;             /* children (default), --no-follow */
    int show_time;          /* -T */
    int tstamp;             /* -t, -tt, -ttt: 1..3 */
    int rtstamp;            /* -r: time since the previous line */
    int strsize;            /* -s */
    int quiet;              /* -q */
    int verbose;            /* -v: everything in full (no folding, no abbreviation) */
    int xmode;              /* -X: enum tp_xmode */
    int names;              /* handle names and alloc#N (-y, the default; --decode-handles=none: 0) */
    int summary;            /* 0, 1 (-c only), 2 (-C trace and summary) */
    const char *sortby;     /* -S */
    int columns[TD_MAX_COLUMNS]; /* -U: enum td_column, ncolumns of them */
    int ncolumns;
    const char *json;       /* --json=FILE or - */
    const char *timeline;   /* --timeline=FILE */
    const char *report;     /* --report=FILE */
    int stacks;             /* -k */
    int pyframes;           /* --py */
    int runtime;            /* --runtime: the CUDA runtime's calls too, driver calls nested */
    const char *libs;       /* -e lib=: the patterns, joined by ':' (TDTRACE_LIBS), or NULL */
    const char *trace_expr; /* -e trace= (last one given) */
    const char *abbrev_expr, *verbose_expr, *raw_expr; /* -e abbrev=, verbose=, raw= */
    int status;             /* -e status= mask; 0 = all */
    const char *driver;     /* --driver */
    const char *policy;     /* --policy */
    const char *check_policy;
    int bounded;            /* --bounded */
    unsigned long long bufsize;
    struct td_opt_kv *popts;/* policy options from the command line, in order */
    int npopts;
    char **cmd;
    pid_t *attach;          /* -p: the processes to attach to */
    int nattach;
    unsigned long long detach_after_ns; /* --detach-after */
};

void td_parse_options(struct td_opts *o, int argc, char **argv);
void td_usage(FILE *f);
/* --emulate=profile=list (or help): print the profiles and exit (profiles.c) */
void td_profiles_list_if_asked(const struct td_opts *o);

/* ---- trace filter (filter.c) ---- */
/* parse a -e trace= set into a bitmap (a bit per function id); named, if
 * not NULL: the functions the set names itself (by name, class or regex;
 * "all" names every one; what only a negation selects is not named).
 * 0, or -1 with a message ("did you mean" for a misspelt name) */
/* -e lib=: td_trace_set on -e trace= takes names the API table lacks as
 * library functions' (LIB.call records, chosen by the name they carry) */
void td_trace_lib_names(int on);
/* a LIB.call record of this function is shown by -e trace= */
int td_trace_lib_shown(const char *name, size_t n);
int td_trace_set(const char *expr, uint8_t *mask, uint8_t *named, size_t masklen, char *err,
                 size_t errlen);
static inline int td_mask_has(const uint8_t *mask, int fn)
{
    return (mask[fn >> 3] >> (fn & 7)) & 1;
}

/* ---- decoding (decode.c) ---- */
/* how one call is decoded (the options, for this call and process) */
struct td_dec {
    int pid;        /* whose handles and allocations */
    int names;      /* handles by name, device pointers in their allocations */
    int raw;        /* -e raw=: every argument undecoded, in hex */
    int structs;    /* -e verbose=: structures and arrays decoded (else their address) */
    int abbrev;     /* -e abbrev=: structures abbreviated (fields their tag does not select left out) */
    int explain;    /* -v: a failed result's meaning */
    int before_attach; /* tdtrace -p, a successful call: a device address no allocation made
                        * since the attach holds was allocated before it */
};
/* print a call record's "name(args) = result"; rec is untrusted, len its size */
void td_print_call(struct tp *p, const struct td_rec *rec, uint32_t len, const struct td_dec *d);
/* the bytes at addr of a TD_IT_MEM item of rec, at least need of them (*avail:
 * how many), or NULL */
const unsigned char *td_rec_mem(const struct td_rec *rec, uint32_t len, uint64_t addr, size_t need,
                                size_t *avail);
/* is a record from process pid well formed (type, claimed pid, function
 * id, argument count, items inside the record)? 0, or -1 with why */
int td_rec_check(const struct td_rec *rec, uint32_t len, uint32_t pid, char *why, size_t n);
/* find the first item of a kind for an argument; NULL if none */
const struct td_item *td_rec_item(const struct td_rec *rec, uint32_t len, int arg, int kind);
/* where the items start: after the header and the arguments */
size_t td_rec_args_end(const struct td_rec *rec);
/* a launch's arguments item for argument arg, checked (header, table and
 * block inside it), *h its header; NULL if none or malformed */
/* the record's TD_IT_NEST item (a checked record: well formed): 1 and *n
 * filled, 0 when it has none */
int td_rec_nest(const struct td_rec *rec, uint32_t len, struct td_nest *n);
/* -e lib=: a library call's names (TD_IT_LIB, checked by td_rec_check):
 * 1 and *v filled (the strings are not NUL-terminated), or 0 */
struct td_libview {
    const char *lib, *fn, *host;
    unsigned lib_len, fn_len, host_len;
};
int td_rec_lib(const struct td_rec *rec, uint32_t len, struct td_libview *v);
const struct td_item *td_rec_kparams(const struct td_rec *rec, uint32_t len, int arg, struct td_kparams *h);
/* --py: a call's Python frames (TD_IT_PYFRAMES), innermost first; every
 * string a NUL-terminated one inside str */
struct td_pyview {
    unsigned n, more;
    struct td_pyrecframe fr[TD_PY_FRAMES_MAX];
    const char *str;
};
/* 1 and *v filled, 0 when the record has none, -1 when it is malformed
 * (why says how) */
int td_rec_py(const struct td_rec *rec, uint32_t len, struct td_pyview *v, char *why, size_t n);

#endif
