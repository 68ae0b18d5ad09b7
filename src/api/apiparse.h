/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing of the declarative API table (src/api/cuda.api), the type table
 * (src/api/types.def) and the constant tables (src/xlat/NAME.in). Used by the
 * build-time generator (tools/apigen.c) and its tests. Pure functions:
 * they read text and fill structures, and return 0 or -1 with a message. */
#ifndef TD_APIPARSE_H
#define TD_APIPARSE_H

#include <stddef.h>

#define AP_MAX_PARAMS 20
#define AP_MAX_VERSIONS 8
#define AP_NAME 64
#define AP_TYPE 64

enum ap_role { AP_IN = 0, AP_OUT, AP_STR, AP_OUTSTR, AP_OUTPSTR, AP_INP };

struct ap_param {
    char type[AP_TYPE];   /* C type as written, e.g. "const char *" */
    char name[AP_NAME];
    char xlat[AP_NAME];   /* "=NAME" annotation, or "" */
    enum ap_role role;
};

enum ap_ret { AP_RET_RESULT = 0, AP_RET_VOID, AP_RET_U32, AP_RET_CUDART /* cudaError_t: cudart.api */,
              AP_RET_XLAT /* "-> ENUM": an enum of src/xlat (ret_xlat; libs.api) */ };

#define AP_ROW_CLASSES 8
#define AP_CLASS 16

/* The effect clause after the parameters: OP=KIND then KEY=PARAM words
 * (see the head of src/api/cuda.api). The ops and keys are listed once,
 * in apiparse.c; each key is also the name of a field of struct
 * td_effect (src/common/api.h), which the compiler checks. */
#define AP_EFF_ARGS 9
extern const char *const ap_effect_ops[];              /* NULL-terminated */
extern const char *const ap_effect_keys[AP_EFF_ARGS];
struct ap_effect {
    char op[16];          /* one of ap_effect_ops, or "" for none */
    char kind[AP_CLASS * 2];
    int arg[AP_EFF_ARGS]; /* per ap_effect_keys: a parameter index, or -1 */
};

struct ap_fn {
    char family[AP_CLASS]; /* the first class: the function's own family */
    int nclasses;
    char classes[AP_ROW_CLASSES][AP_CLASS]; /* "memory,copy": every class it is in */
    char name[AP_NAME];   /* cuX, or TABLE.slot for an export-table slot */
    enum ap_ret ret;      /* "-> void" / "-> u32" / "-> ENUM" after the parameters */
    char ret_xlat[AP_NAME]; /* AP_RET_XLAT: the enum's name */
    int nversions;
    int versions[AP_MAX_VERSIONS];
    int nparams;
    struct ap_param params[AP_MAX_PARAMS];
    struct ap_effect effect;
};

/* The "%classes NAME..." line of cuda.api that lists the trace classes
 * (families), in the order they are shown. Returns the number of names
 * (at most max), 0 when the line is not a %classes line, -1 on error. */
int ap_parse_classes(const char *line, char names[][AP_CLASS], int max, char *err, size_t errlen);

/* Parse one row of cuda.api. Returns 1 for a row, 0 for a blank, comment
 * or %directive line, -1 on error (message in err). */
int ap_parse_fn(const char *line, struct ap_fn *fn, char *err, size_t errlen);

/* The pointee type of "T *" ("const T *" keeps no const), or "" if the type
 * is not a pointer. */
void ap_pointee(const char *type, char *out, size_t outlen);

/* The base name cuGetProcAddress knows a symbol by: the name without its
 * _vN and _ptds/_ptsz suffixes. *per_thread is set for _ptds/_ptsz. */
void ap_base_name(const char *name, char *out, size_t outlen, int *per_thread);

struct ap_xlat_row { char name[AP_NAME * 2]; unsigned long long value; char text[200]; };
/* Parse one row of an xlat file: 1 row, 0 blank/comment, 2 the "#flags"
 * marker, -1 error. */
int ap_parse_xlat(const char *line, struct ap_xlat_row *row, char *err, size_t errlen);

struct ap_type { char type[AP_TYPE]; char kind[16]; int size; };
/* Parse one row of types.def: 1 row, 0 blank/comment, -1 error. */
int ap_parse_type(const char *line, struct ap_type *t, char *err, size_t errlen);

/* One line of structs.api (see its header). */
enum ap_sline_kind { AP_SL_NONE = 0, AP_SL_STRUCT, AP_SL_UNION, AP_SL_FIELD, AP_SL_END, AP_SL_PARAM,
                     AP_SL_OPTVALUES };
#define AP_MAX_CASES 8
#define AP_MAX_ALIASES 4
#define AP_MAX_OPTS 24
struct ap_sline {
    enum ap_sline_kind kind;
    char name[AP_NAME];          /* struct/union/field name; PARAM: the function ("*": any) */
    /* STRUCT, UNION */
    int naliases;
    char aliases[AP_MAX_ALIASES][AP_NAME];
    int size;                    /* UNION: its size (0: its largest member's) */
    int selftag;                 /* UNION: chosen by the int at its start */
    /* FIELD */
    char type[AP_TYPE];
    int count;                   /* [N]; 1 */
    int bytes, hidden;
    char xlat[AP_NAME];          /* =XLAT */
    char cond[AP_NAME];          /* if=F: the sibling; by=F */
    int by;                      /* cond names a union's tag (by=), not an if= */
    int ncases;
    char cases[AP_MAX_CASES][AP_NAME * 2]; /* if=F:V|V, case=V|V */
    char follow[AP_NAME];        /* ->C: a sibling, parameter or number */
    int follow_adj;              /* ->C-1: -1 */
    /* PARAM: name is the function, param the parameter */
    char param[AP_NAME];
    char values[AP_NAME];        /* values=P */
    /* OPTVALUES: name is the table; opts[i] = "OPTION=KIND" */
    int nopts;
    char opts[AP_MAX_OPTS][AP_NAME * 2];
};
/* Parse one line of structs.api. Returns 1 for a line with something on
 * it, 0 blank or comment, -1 on error (message in err). */
int ap_parse_sline(const char *line, struct ap_sline *sl, char *err, size_t errlen);

#endif
