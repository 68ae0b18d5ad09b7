/* SPDX-License-Identifier: Apache-2.0 */
/* The policy file: what tdtrace may change about the calls it traces.
 *
 * Parse, then act: td_policy_parse/load turn text into an immutable
 * struct td_policy (command-line options are applied on top with
 * td_policy_apply_option before the program starts); td_policy_eval is a
 * pure function of the policy and one call, safe from any thread.
 * Nothing here exits, aborts or keeps global state: the module is linked
 * into the injected shim too. The grammar is in man/tdtrace.policy.5. */
#ifndef TD_POLICY_H
#define TD_POLICY_H

#include <stddef.h>
#include <regex.h>
#include <stdio.h>

#include "tdtrace/record.h"

struct td_policy;                         /* opaque, immutable after parse */

struct td_policy_error {
    char file[256];                       /* the file, or "--OPTION" for a command-line option */
    int line, col;                        /* 1-based; 0 when there is no position */
    char msg[512];
};

/* Parse text (len bytes, need not be NUL-terminated) named file (NULL:
 * "<policy>"). 0, or -1 with err filled and *out NULL. */
int td_policy_parse(const char *text, size_t len, const char *file,
                    struct td_policy **out, struct td_policy_error *err);
/* Read and parse a file (at most TD_POLICY_MAX_SIZE bytes). */
#define TD_POLICY_MAX_SIZE (1 << 20)
int td_policy_load(const char *path, struct td_policy **out, struct td_policy_error *err);
/* The built-in defaults: mode audit, backend auto, no rules. NULL only
 * when out of memory. */
struct td_policy *td_policy_defaults(void);
/* Apply one command-line option, named without "--", with its value
 * (NULL when given without '='). Options: inject, deny, memory-limit,
 * backend, emulate, policy-mode, gpu-dev, ioctl-deny, require. A rule replaces the
 * file's rule for the same target. 0, or -1 with err naming the option. */
int td_policy_apply_option(struct td_policy *p, const char *opt, const char *value,
                           struct td_policy_error *err);
/* Find the policy file: cli_path (--policy=), else env_value
 * ($TDTRACE_POLICY), else the nearest tdtrace.policy in cwd or a parent;
 * "none" in cli_path or env_value means the defaults. Writes the path, or
 * "" for the defaults. 0, or -1 with errno set when the file given by
 * cli_path or env_value is unreadable or the path does not fit, or (EPERM)
 * when the file found is not to be trusted (see td_policy_untrusted). */
int td_policy_locate(const char *cli_path, const char *env_value, const char *cwd,
                     char *path, size_t pathlen);
/* A tdtrace.policy found by the search is used only if the user or root
 * owns it and every directory above it, and none of them is writable by
 * others (a sticky directory such as /tmp excepted), as git refuses a
 * repository owned by someone else: otherwise td_policy_locate fails with
 * EPERM and writes the file's path. This says why: 1 (untrusted) with a
 * sentence in why, or 0. A file named with --policy= or $TDTRACE_POLICY
 * is the user's explicit choice and is not checked. */
int td_policy_untrusted(const char *path, char *why, size_t n);
void td_policy_free(struct td_policy *p);

/* Every regular expression a user gives tdtrace is compiled here: one
 * longer than TD_REGEX_MAX_LEN, nesting groups deeper than
 * TD_REGEX_MAX_DEPTH or expanding (counted repetitions) to more than
 * TD_REGEX_MAX_STATES is refused with a message, never handed to
 * regcomp. 0, or -1 with err. */
#define TD_REGEX_MAX_LEN 1024
#define TD_REGEX_MAX_DEPTH 32
#define TD_REGEX_MAX_STATES 20000
int td_regex_check(const char *re, char *err, size_t n);
int td_regex_compile(regex_t *out, const char *re, int cflags, char *err, size_t n);

/* The normalised text, one statement per line, as --check-policy prints
 * it; parsing it gives the same policy (and the same text). 0 or -1. */
int td_policy_write(const struct td_policy *p, FILE *f);
/* With TD_POLICY_WRITE_ORIGINS, each statement is preceded by a
 * "#@ FILE:LINE" line naming where the rule came from; the parser takes
 * such lines as the origin of the next statement, so a policy handed to
 * the shim as text still marks calls with the user's file:line. */
#define TD_POLICY_WRITE_ORIGINS 1
int td_policy_write_ex(const struct td_policy *p, FILE *f, int flags);
/* "FILE:LINE:COL: msg", "FILE: msg" (no position); returns snprintf's. */
int td_policy_format_error(const struct td_policy_error *e, char *buf, size_t n);

/* ---- queries used by the supervisor and the shim at start ---------- */
/* The backends, the one list of their names: where calls go (the real
 * driver, the emulated GPU, or the driver when it finds a device). */
#define TD_BACKENDS(X) X(AUTO, auto) X(DRIVER, driver) X(EMULATE, emulate)
enum td_backend {
#define TD_BACKEND_ENUM(id, name) TD_BACKEND_##id,
    TD_BACKENDS(TD_BACKEND_ENUM)
#undef TD_BACKEND_ENUM
    TD_BACKEND__COUNT
};
const char *td_policy_backend_name(int backend);   /* "auto" for a bad value */
int td_policy_backend_find(const char *name);      /* TD_BACKEND_*, or -1 */
/* every name, joined with sep ("auto|driver|emulate"), or with sep NULL
 * as a sentence ("auto, driver or emulate"); returns buf */
char *td_policy_backend_list(char *buf, size_t n, const char *sep);
int td_policy_backend(const struct td_policy *p);  /* TD_BACKEND_* */
int td_policy_enforce(const struct td_policy *p);  /* 1 enforce, 0 audit */
/* 1 when some rule acts on driver calls (deny, inject, memory-limit,
 * device rules): only then must the shim consult the policy per call */
int td_policy_acts_on_calls(const struct td_policy *p);
/* The first deny or inject rule that names (by name, not by class) a
 * function with a td_fn id in [first, last): 1 with the name as written
 * and where the rule is (file "--deny" and line 0 for an option), else 0.
 * tdtrace warns when the level is not traced (--runtime, -e lib=): no one
 * patches those functions then, so such a rule cannot act. */
int td_policy_names_in(const struct td_policy *p, int first, int last, const char **name, const char **file,
                       int *line);

#define TD_EMU_GIVEN_DEVICES 1
#define TD_EMU_GIVEN_PROFILE 2
#define TD_EMU_GIVEN_MEMORY 4
#define TD_EMU_GIVEN_TIMEOUT 8
#define TD_EMU_GIVEN_MAX_INSTRUCTIONS 16
#define TD_EMU_GIVEN_DRIVER 32
#define TD_EMU_GIVEN_ENGINE 64
struct td_emulate_cfg {
    unsigned given;              /* TD_EMU_GIVEN_*: the settings a statement named */
    int devices;                 /* 1 when not given */
    const char *profile;         /* a profile of src/emu/profiles.def; "h100" when not given */
    unsigned long long memory;   /* bytes per device; 0: the profile's own */
    unsigned long long timeout_ns; /* a launch's time limit; 0: none */
    unsigned long long max_instructions; /* a launch's instruction limit; 0: none */
    int driver;                  /* the driver release presented (12040); 0: the newest */
    const char *engine;          /* who runs kernels (src/common/engines.def); "interp" when not given */
    const char *file; int line;  /* the emulate statement; NULL, 0 if none */
};
void td_policy_emulate(const struct td_policy *p, struct td_emulate_cfg *out);

/* NVIDIA's libraries tdtrace can put its own in front of (the `library`
 * statement; the one list: src/common/frontlibs.def), and the choices */
enum td_frontlib {
#define FRONTLIB(name, soname, dir) TD_FRONTLIB_##name,
#include "frontlibs.def"
#undef FRONTLIB
    TD_FRONTLIB__COUNT
};
enum td_library_choice { TD_LIBRARY_AUTO, TD_LIBRARY_HOST, TD_LIBRARY_NVIDIA, TD_LIBRARY__COUNT };
const char *td_policy_frontlib_name(int lib);        /* "cublas"; "?" for a bad value */
const char *td_policy_frontlib_soname(int lib);      /* "libcublas.so.13" */
const char *td_policy_library_choice_name(int choice); /* "auto", "host", "nvidia" */
/* TD_LIBRARY_*: what a statement or --library= chose for lib (auto when
 * none did), and where (file NULL when nowhere) */
int td_policy_library(const struct td_policy *p, int lib, const char **file, int *line);

/* require driver=VERSION: the release (12040), or 0 when there is none;
 * file/line (may be NULL) name the statement. A call of an entry point
 * that release lacks gets TD_ACT_DENY with CUDA_ERROR_NOT_FOUND. */
int td_policy_require_driver(const struct td_policy *p, const char **file, int *line);

/* Device rules, in the order given. In hide and count, N counts the
 * backend's devices; in remap, n is the ordinal the program asks for and
 * m a backend ordinal. */
#define TD_POLICY_MAX_DEVICES 64
enum td_dev_kind { TD_DEV_HIDE, TD_DEV_REMAP, TD_DEV_COUNT };
struct td_device_rule {
    enum td_dev_kind kind;
    int n;                       /* HIDE: backend ordinal; REMAP: program's ordinal; COUNT: K */
    int m;                       /* REMAP: backend ordinal; else -1 */
    const char *file; int line;
};
size_t td_policy_device_rule_count(const struct td_policy *p);
const struct td_device_rule *td_policy_device_rule(const struct td_policy *p, size_t i);
/* The devices the program sees when the backend has backend_count: map[v]
 * is the backend ordinal behind visible ordinal v, or -1 for a slot that
 * exists only because a remap names a higher ordinal and has no device
 * (report CUDA_ERROR_INVALID_DEVICE). Returns the visible count (may be
 * more than maxmap; only maxmap entries are written). Hidden devices are
 * left out and the rest renumbered, as under CUDA_VISIBLE_DEVICES; then
 * "devices K" keeps the first K; then each remap sets its slot. */
int td_policy_device_map(const struct td_policy *p, int backend_count, int *map, int maxmap);

/* The memory limit for a backend device (-1: the limit for all devices),
 * in bytes, or 0 for none; file/line (may be NULL) name the rule.
 * cuMemGetInfo should report min(limit, real) as total. */
unsigned long long td_policy_memory_limit(const struct td_policy *p, int device,
                                          const char **file, int *line);

/* The default trace filter (strace -e trace= syntax), or NULL. */
const char *td_policy_trace(const struct td_policy *p);

/* Extra device-node globs to treat as GPUs. */
size_t td_policy_gpu_dev_count(const struct td_policy *p);
const char *td_policy_gpu_dev(const struct td_policy *p, size_t i);

/* ioctl deny rules; the ioctl module resolves names. */
struct td_ioctl_deny {
    const char *name;            /* e.g. "NV_ESC_RM_CONTROL", or NULL when given by number */
    unsigned long number;        /* when name is NULL */
    int err;                     /* errno value to fail with (EPERM by default) */
    const char *dev;             /* device-node glob, or NULL for every GPU node */
    const char *file; int line;
};
size_t td_policy_ioctl_deny_count(const struct td_policy *p);
const struct td_ioctl_deny *td_policy_ioctl_deny(const struct td_policy *p, size_t i);

/* ---- data about entry points ------------------------------------------ */
/* The kind of device allocation fn (a td_fn id) makes (enum td_alloc_kind
 * of api.h), or TD_ALLOC_NONE:
 * the effect alloc=KIND of its row in src/api/cuda.api when KIND is device
 * memory (td_alloc_is_device); what a memory limit counts. */
int td_policy_is_alloc(int fn);
/* 1 when fn gives device memory back: free= or trim= of device memory
 * (frees, VMM release, array destroy, graph exec destroy, pool and
 * graph-memory trims). */
int td_policy_is_free(int fn);

/* ---- evaluation: a pure function, no I/O, no global state ------------ */
struct td_call_ctx {
    int fn;                      /* td_fn id */
    unsigned long long nth;      /* 1-based count of calls of fn in this process, including this one */
    int device;                  /* backend ordinal, -1 if none */
    unsigned long long alloc_bytes; /* bytes this call would allocate, 0 if none */
    unsigned long long in_use;   /* device bytes in use now under this tdtrace, on that device */
};
/* an action is the verdict kind the shim records with the call */
enum td_action { TD_ACT_PASS = TD_VD_NONE, TD_ACT_DENY = TD_VD_DENY, TD_ACT_INJECT = TD_VD_INJECT,
                 TD_ACT_LIMIT = TD_VD_LIMIT /* over memory limit */,
                 TD_ACT_DELAY = TD_VD_DELAY /* inject delay only */ };
struct td_verdict {
    enum td_action action;
    int result;                  /* CUresult to return (DENY, INJECT, LIMIT) */
    unsigned long long delay_ns; /* sleep before the call (INJECT, DELAY) */
    int applied;                 /* 0 in audit mode: only "would have" */
    const char *file; int line;  /* the rule; NULL, 0 for PASS */
};
/* Precedence: deny, then an inject with an error, then the memory limit,
 * then a delay-only inject. INJECT with delay_ns: sleep, then return
 * result without forwarding. DELAY: sleep, then forward. LIMIT: return
 * CUDA_ERROR_OUT_OF_MEMORY. When applied is 0 (audit), forward the call
 * unchanged and only mark it. */
void td_policy_eval(const struct td_policy *p, const struct td_call_ctx *c, struct td_verdict *v);

/* A call of an undescribed library function (-e lib=; the table's
 * LIB.call) by its own name: its nth call, the nth_all-th of all of them.
 * A deny of LIB.call or %library (td_policy_eval of LIB.call) comes
 * first; then a rule that names it (LIB.name: deny, then inject, whose
 * when= counts its own calls); without one, the rules on LIB.call and
 * %library. */
void td_policy_eval_lib(const struct td_policy *p, const char *name, unsigned long long nth,
                        unsigned long long nth_all, struct td_verdict *v);

/* ---- value parsers, shared with the command line --------------------- */
/* "64MiB", "8G", "1.5G", "4096": bytes. 0 or -1 with why set. */
int td_policy_parse_size(const char *s, unsigned long long *out, const char **why);
/* "10ms", "1s", "500us", "20ns", "250" (microseconds, as strace). */
int td_policy_parse_duration(const char *s, unsigned long long *ns, const char **why);

#endif
