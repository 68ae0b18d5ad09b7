/* SPDX-License-Identifier: Apache-2.0 */
/* The policy module's insides, shared by its files only. */
#ifndef TD_POLICY_INT_H
#define TD_POLICY_INT_H

#include "api.h"
#include "policy.h"
#include "xlat.h"

#define POL_MAX_RULES 4096        /* of each kind */
#define POL_MAX_WORDS 32          /* per statement */
#define POL_UNBOUNDED (~0ULL)     /* when= without a last call */

struct pol_loc { const char *file; int line; };

/* one target of a deny or inject: a function name, "%class", or
 * "LIB.NAME" (an undescribed library function, by its own name) */
#define POL_ITEM_LIBNAME (-2)     /* family of a LIB.NAME item */
#define POL_LIBNAME_MAX 255       /* the longest NAME */
struct pol_item {
    char *text;
    int family;                   /* the class, -1 for a name, POL_ITEM_LIBNAME */
    int col;                      /* where it was written (for messages) */
};

/* deny and inject rules */
struct pol_call {
    struct pol_item *items;
    int nitems;
    int has_error, error;         /* the value returned (deny: CUDA_ERROR_NOT_PERMITTED unless given) */
    int error_given;              /* error= was written */
    int error_x;                  /* the status type (TD_X_*) error= named a value of; TD_X_NONE: a number */
    unsigned long long first, last, step;  /* inject's when= */
    int has_when;
    int has_delay;
    unsigned long long delay_ns;
    struct pol_loc loc;
};

struct pol_limit {
    int device;                   /* backend ordinal, -1 for every device */
    unsigned long long bytes;
    struct pol_loc loc;
};

struct pol_str { char *s; struct pol_loc loc; };

struct td_policy {
    char **files;                 /* interned names rules point into */
    int nfiles;

    int enforce, mode_set;
    struct pol_loc mode_loc;
    int backend, backend_set;
    struct pol_loc backend_loc;
    int emu_set, emu_devices, emu_profile;
    unsigned emu_given;          /* TD_EMU_GIVEN_*: the keys a statement named */
    unsigned long long emu_memory;
    unsigned long long emu_timeout_ns, emu_max_instructions;
    int emu_driver;              /* driver=: a release (12040); 0: the newest */
    int emu_engine;              /* engine=: an index of src/common/engines.def; 0: interp */
    int require_driver;          /* require driver=: a release; 0: none */
    struct pol_loc require_loc;
    struct pol_loc emu_loc;

    struct td_device_rule *devs;
    int ndevs;
    struct pol_limit *limits;
    int nlimits;
    struct pol_call *denies;
    int ndenies;
    struct pol_call *injects;
    int ninjects;
    struct pol_str trace;         /* s NULL when none */
    struct pol_str *gpudevs;
    int ngpudevs;
    struct td_ioctl_deny *ioctls;
    int nioctls;
    signed char lib_choice[TD_FRONTLIB__COUNT]; /* TD_LIBRARY_*; loc.file NULL: not chosen */
    struct pol_loc lib_loc[TD_FRONTLIB__COUNT];

    /* resolved at the end of each change: the rule that applies to each
     * function, -1 for none */
    short deny_for[TD_FN__COUNT];
    short inject_for[TD_FN__COUNT];
    int nlibnames;                /* LIB.NAME items in the rules */
};

/* ---- building a policy: policy_state.c, policy_stmt.c ------------------ */

/* a word of a statement, and its column (1-based; 0 for an option) */
struct pol_tok { char *s; int col; };

/* what the lexer or an option hands the statements */
struct pol_state {
    struct td_policy *p;
    struct td_policy_error *err;
    const char *efile;            /* errors: the file, or "--OPTION" */
    int eline;                    /* errors: the line, 0 for an option */
    const char *file;             /* rules: where they came from */
    int line;
    int cli;                      /* an option: replaces, never conflicts */
};

/* fill the error (with "; did you mean 'sugg'?" when sugg); returns -1 */
__attribute__((format(printf, 4, 5)))
int td_pol_perr_dym(struct pol_state *ps, int col, const char *sugg, const char *fmt, ...);
#define perr(ps, col, ...) td_pol_perr_dym(ps, col, NULL, __VA_ARGS__)
int td_pol_oom(struct pol_state *ps);
/* "WHAT conflicts with line N" (or FILE:N when the other rule came from elsewhere) */
int td_pol_conflict(struct pol_state *ps, int col, const char *what, const struct pol_loc *l);
/* the policy's copy of a file name, or NULL */
const char *td_pol_intern(struct td_policy *p, const char *name);
struct pol_loc td_pol_here(const struct pol_state *ps);
/* arr (n elements) grown by one zeroed element, or NULL (also past POL_MAX_RULES) */
void *td_pol_grow(void *arr, int n, size_t size);
void td_pol_free_call(struct pol_call *r);

/* one statement, t[0] its keyword; 0 or -1 */
int td_pol_statement(struct pol_state *ps, struct pol_tok *t, int n);
/* each function's deny and inject rule */
void td_pol_resolve(struct td_policy *p);
/* the checks that need the whole file, then td_pol_resolve; 0 or -1 */
int td_pol_finish(struct pol_state *ps);

/* policy_lib.c: the library statement, and its lines in the normalised text */
int td_pol_st_library(struct pol_state *ps, struct pol_tok *t, int n);
void td_pol_write_libraries(const struct td_policy *p, FILE *f,
                            void (*origin)(FILE *, int, const char *, int), int flags);

/* policy_util.c */
extern const char *const td_pol_backends[];   /* NULL-terminated, by TD_BACKEND_* */
extern const char *const td_pol_profiles[];
/* the PTX engines' names (src/common/engines.def), NULL-terminated */
extern const char *const td_pol_engines[];
int td_pol_profile_find(const char *name);
/* the profiles as a sentence ("A, B or C") into buf */
void td_pol_profile_list(char *buf, size_t n);
/* the names of a NULL-terminated list joined with sep, or with sep NULL as
 * "a, b or c"; returns buf */
char *td_pol_name_list(const char *const *names, char *buf, size_t n, const char *sep);
int td_pol_errno_find(const char *name);
const char *td_pol_errno_name(int e);
const char *td_pol_errno_suggest(const char *word);
/* the candidate nearest to word (case-insensitive edit distance), or NULL */
struct pol_cands {
    const char *(*get)(const void *ctx, int i);
    const void *ctx;
    int n;
};
const char *td_pol_suggest(const char *word, const struct pol_cands *c);
const char *td_pol_suggest_list(const char *word, const char *const *list);
/* fn's name is name with only _vN/_ptds/_ptsz suffixes added: 1 */
int td_pol_variant_of(const char *fn, const char *name);
/* fn is one of the functions item names (its name, a variant, its class) */
int td_pol_item_has(const struct pol_item *it, int fn);
/* the status type of the functions the rule names, when it names only
 * functions (no class) and they all return one type; else TD_X_NONE */
int td_pol_named_status_x(const struct pol_call *r);
/* the type fn's result is (TD_X_*): CUresult for the driver's entry points,
 * cudaError_t for the runtime's, a library's status enum (cublasStatus_t)
 * for a described library function, TD_X_NONE for an undescribed one */
int td_pol_status_x(int fn);
/* rule r acts on fn: its error= is a value of fn's status type (or a
 * number); without error=, a deny acts on the driver's and the runtime's
 * functions (CUDA_ERROR_NOT_PERMITTED and cudaErrorNotPermitted are both
 * 800), not on a library's, whose status types have no such value */
int td_pol_rule_fits(const struct pol_call *r, int is_deny, int fn);
int td_pol_write_size(unsigned long long v, char *buf, size_t n);
int td_pol_write_duration(unsigned long long ns, char *buf, size_t n);

#endif
