/* The driver API as data: one descriptor per entry point, generated from
 * src/api/cuda.api by tools/apigen.c (td_api_table.c). Shared by the shim
 * (what to record), the emulator (cuGetProcAddress) and tdtrace (how to
 * print). */
#ifndef TD_COMMON_API_H
#define TD_COMMON_API_H

#include <stdint.h>

#include "td_api.h"
#include "td_xlat.h"

/* how a parameter is printed */
enum td_kind {
    TD_K_INT,     /* signed decimal */
    TD_K_UINT,    /* unsigned decimal */
    TD_K_HEX,     /* 0x... (device pointers) */
    TD_K_PTR,     /* pointer: 0x... or NULL */
    TD_K_HANDLE,  /* opaque handle: 0x... or NULL */
    TD_K_STREAM,  /* CUstream: NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, 0x... */
    TD_K_FLOAT,   /* float carried as its bits */
    TD_K_ENUM,    /* a value of an xlat table */
    TD_K_FLAGS,   /* an OR of an xlat table's flags */
    TD_K_RESULT,  /* CUresult */
    TD_K_STR,     /* a C string */
    TD_K_UUID,    /* 16 bytes */
    TD_K_MEMLOC,  /* CUmemLocation {type, id} */
    TD_K_BLOB,    /* opaque bytes */
};

/* what the parameter is for */
enum td_role {
    TD_R_IN,      /* a value passed in */
    TD_R_OUT,     /* a pointer the call writes a value through */
    TD_R_STR,     /* an input string */
    TD_R_OUTSTR,  /* a char buffer the call fills */
    TD_R_OUTPSTR, /* a const char ** the call sets */
    TD_R_INP,     /* a pointer to an input value, shown as the value */
};

enum td_family {
#define TD_FAM_ENUM(x) TD_FAM_##x,
    TD_API_FAMILIES(TD_FAM_ENUM)
#undef TD_FAM_ENUM
    TD_FAM__COUNT
};

struct td_param {
    const char *name;
    unsigned char kind;   /* enum td_kind (of the pointee for TD_R_OUT) */
    unsigned char role;   /* enum td_role */
    unsigned char size;   /* bytes of the value (of the pointee for TD_R_OUT) */
    unsigned char xlat;   /* enum td_xlat_id */
};

enum td_ret { TD_RET_RESULT, TD_RET_VOID, TD_RET_U32 };

struct td_fn_info {
    const char *name;
    const char *base;     /* the name without _vN, _ptds, _ptsz */
    unsigned char family; /* enum td_family */
    unsigned char nparams;
    unsigned char ret;    /* enum td_ret: CUresult, or (export-table slots) void, u32 */
    const struct td_param *params;
};

/* one cuGetProcAddress answer: base name at an ABI version */
struct td_proc {
    const char *base;
    int version;
    unsigned short fn;
};

extern const struct td_fn_info td_fns[TD_FN__COUNT];
extern const unsigned short td_fn_by_name[TD_FN__COUNT];
extern const struct td_proc td_procs[];
extern const unsigned td_nprocs;

/* The id of an entry point by its exact name, or -1. */
int td_api_find(const char *name);
/* The family by name ("memory"), or -1. */
int td_family_find(const char *name);
const char *td_family_name(int family);

/* cuGetProcAddress's rule: the newest implementation of symbol whose ABI
 * version is at most version; per_thread then takes that symbol's
 * _ptds/_ptsz variant where it has one.
 * Returns the function id, or -1 (CUDA_ERROR_NOT_FOUND). *version_too_low
 * is set when the symbol exists only at newer versions. */
int td_proc_lookup(const char *symbol, int version, int per_thread, int *version_too_low);

#endif
