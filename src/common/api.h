/* SPDX-License-Identifier: Apache-2.0 */
/* The driver API as data: one descriptor per entry point, generated from
 * src/api/cuda.api by tools/apigen.c (td_api_table.c). Shared by the shim
 * (what to record), the emulator (cuGetProcAddress) and tdtrace (how to
 * print). */
#ifndef TD_COMMON_API_H
#define TD_COMMON_API_H

#include <stddef.h>
#include <stdint.h>

#include "td_api.h"
#include "td_structs.h"
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
    TD_K_DPTR,    /* CUdeviceptr: 0x..., and the allocation it lies in */
    TD_K_SIZE,    /* a byte count: 4 MiB */
    TD_K_STRUCT,  /* a structure or union (structure fields only) */
    TD_K_DIM3,    /* the runtime's dim3, passed by value: recorded as its 12 bytes (TD_R_INP) */
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

/* a parameter's flags */
#define TD_PF_KPARAMS 0x1 /* void **kernelParams: the launch's arguments */

struct td_param {
    const char *name;
    unsigned char kind;   /* enum td_kind (of the pointee for TD_R_OUT) */
    unsigned char role;   /* enum td_role */
    unsigned char size;   /* bytes of the value (of the pointee for TD_R_OUT) */
    unsigned char xlat;   /* enum td_xlat_id */
    unsigned char hclass; /* enum td_hclass: a handle's class */
    unsigned char flags;  /* TD_PF_* */
    unsigned short sid;   /* enum td_struct_id: what it points to (TD_S_NONE) */
    unsigned short count; /* ... that many of them (sid set, countp < 0) */
    signed char countp;   /* ... as many as this parameter says, plus adj */
    signed char adj;
    signed char tagp;     /* a union's tag: this parameter (-1) */
    signed char valuesp;  /* an option array: its values are this parameter's (-1) */
    unsigned char opttable; /* ... and print by td_opttables[opttable] */
};

/* ---- structures (src/api/structs.api) ---- */

#define TD_FF_HIDDEN 0x1  /* not printed (reserved words) */
#define TD_FF_FOLLOW 0x2  /* a pointer to elements of sub, which the shim copies */

struct td_field {
    const char *name;        /* NULL: an anonymous union (its members are the parent's) */
    unsigned short offset;   /* from the start of the structure */
    unsigned short size;     /* one element */
    unsigned short count;    /* elements: [count] (1: no array) */
    unsigned char kind;      /* enum td_kind; TD_K_STRUCT: sub */
    unsigned char xlat;      /* enum td_xlat_id */
    unsigned char hclass;    /* enum td_hclass */
    unsigned char flags;     /* TD_FF_* */
    unsigned short sub;      /* a nested structure or union, or (TD_FF_FOLLOW) the element */
    signed char cond;        /* if=: the sibling whose value shows it; by=: the union's tag (-1) */
    signed char countf;      /* TD_FF_FOLLOW: the sibling holding the count (-1: fcount) */
    unsigned short fcount;
    unsigned short ncases;   /* if= or union member: the values that select it */
    const long long *cases;
};

enum td_struct_kind {
    TD_SK_STRUCT,
    TD_SK_UNION,     /* its member chosen by the tag the parent names */
    TD_SK_SELFTAG,   /* ... by the int at its own start */
    TD_SK_SCALAR,    /* one value: an element of an array of scalars */
};

struct td_struct {
    const char *name;
    unsigned short size;
    unsigned short nfields;
    unsigned char kind;      /* enum td_struct_kind */
    unsigned char selftag;
    const struct td_field *fields;
};

/* how an option's value prints (an option array: JIT, library options) */
struct td_optvalue { long long option; unsigned char kind, xlat; };
struct td_opttable { unsigned char xlat; unsigned short n; const struct td_optvalue *v; };

extern const struct td_struct td_structs[TD_S__COUNT];

/* structs.c: size bytes at off of len bytes at base, as an unsigned
 * number (0 when they are not all there) */
unsigned long long td_read_uint(const unsigned char *base, size_t len, size_t off, size_t size);
/* field i of st in the len bytes at base */
unsigned long long td_field_uint(const struct td_struct *st, int i, const unsigned char *base, size_t len);
/* the member of union u its tag selects, or -1 */
int td_union_member(const struct td_struct *u, long long tag);
/* is field i of st printed (abbreviated output), its if= looked up in base? */
int td_field_shown(const struct td_struct *st, int i, const unsigned char *base, size_t len);
extern const struct td_opttable td_opttables[TD_OPTTABLES];
extern const char *const td_hclass_names[TD_H__COUNT];

enum td_ret { TD_RET_RESULT, TD_RET_VOID, TD_RET_U32, TD_RET_CUDART /* cudaError_t (runtime rows) */,
              TD_RET_XLAT /* an enum of src/xlat: ret_xlat (libs.api rows: cublasStatus_t, ...) */ };

struct td_fn_info {
    const char *name;
    const char *base;     /* the name without _vN, _ptds, _ptsz */
    unsigned char family; /* enum td_family */
    unsigned char nparams;
    unsigned char ret;    /* enum td_ret: CUresult, or (export-table slots) void, u32 */
    unsigned char deref;  /* a parameter points to structures or arrays (sid), or is kernelParams */
    signed char kfunc;    /* a launch: the CUfunction parameter (-1) */
    signed char kparams;  /* ... and its void **kernelParams (-1) */
    const struct td_param *params;
    unsigned short ret_xlat; /* TD_RET_XLAT: the enum (TD_X_*), else TD_X_NONE */
};

/* one cuGetProcAddress answer: base name at an ABI version */
struct td_proc {
    const char *base;
    int version;
    unsigned short fn;
};

extern const struct td_fn_info td_fns[TD_FN__COUNT];
extern const unsigned short td_fn_by_name[TD_FN__COUNT];
/* the driver release that added each entry point: the oldest ABI version
 * of its row's @versions (0: none); src/common/drvver.h uses it */
extern const unsigned short td_fn_since[TD_FN__COUNT];
extern const struct td_proc td_procs[];
extern const unsigned td_nprocs;

/* ---- classes and effects: the class column and the effect clause of
 * src/api/cuda.api, generated into td_api_roles.c ---------------------- */

/* The classes (-e trace=%NAME, deny %NAME) fn is in: bit 1u << TD_FAM_x
 * for each. A function may be in several (cuMemsetD8: copy and memory);
 * td_fns[fn].family is the first of them, its own family. */
extern const uint32_t td_fn_classes[TD_FN__COUNT];
static inline int td_fn_in_class(int fn, int family)
{
    return fn >= 0 && fn < TD_FN__COUNT && family >= 0 && family < TD_FAM__COUNT &&
           (td_fn_classes[fn] >> family & 1u);
}

/* What a call does to memory or to the current context (OP=KIND). */
enum td_effect_op {
    TD_EFF_NONE,
    TD_EFF_ALLOC,  /* makes an allocation of the kind */
    TD_EFF_FREE,   /* gives back the allocation named by ptr */
    TD_EFF_TRIM,   /* gives memory back without naming an allocation */
    TD_EFF_MAP,    /* maps handle's memory at ptr (virtual memory management) */
    TD_EFF_UNMAP,  /* unmaps ptr */
    TD_EFF_CTX,    /* a context operation: kind is an enum td_ctx_op */
};
/* Kinds of memory, alloc=KIND (in cuda.api, lower case). The kinds up to
 * TD_ALLOC_GRAPH_EXEC are device memory the process allocates: what a
 * memory limit counts. */
enum td_alloc_kind {
    TD_ALLOC_NONE,
    TD_ALLOC_PLAIN,      /* cuMemAlloc */
    TD_ALLOC_PITCHED,    /* cuMemAllocPitch: footprint *pitch x rows */
    TD_ALLOC_MANAGED,    /* cuMemAllocManaged */
    TD_ALLOC_ASYNC,      /* stream-ordered, from the device's current pool */
    TD_ALLOC_POOL,       /* stream-ordered, from a given pool */
    TD_ALLOC_VMM,        /* cuMemCreate: physical memory, a handle (mapped with cuMemMap) */
    TD_ALLOC_ARRAY,      /* CUDA arrays: the size is in the descriptor (desc) */
    TD_ALLOC_GRAPH_NODE, /* graph memory nodes: allocated and freed when the graph runs;
                          * cuGraphAddNode* only when desc's type is a memory node */
    TD_ALLOC_GRAPH_EXEC, /* cuGraphInstantiate*: the graph's allocation nodes */
    TD_ALLOC_HOST,       /* page-locked host memory the driver allocates */
    TD_ALLOC_REGISTERED, /* host memory the program page-locks (ptr is an input) */
    TD_ALLOC_IPC,        /* another process's memory opened here */
    TD_ALLOC_MULTICAST,  /* a multicast object (its memory is bound from cuMemCreate's) */
    TD_ALLOC_RESERVE,    /* a range of virtual addresses, no memory */
};
static inline int td_alloc_is_device(int kind)
{
    return kind >= TD_ALLOC_PLAIN && kind <= TD_ALLOC_GRAPH_EXEC;
}
/* ctx=KIND */
enum td_ctx_op {
    TD_CTX_CREATE,  /* a new context for device, made current (pushed) */
    TD_CTX_RETAIN,  /* device's primary context, not made current */
    TD_CTX_SET,     /* ptr becomes the thread's current context */
    TD_CTX_PUSH,    /* ptr is pushed on the thread's stack of contexts */
    TD_CTX_POP,     /* the current context is popped (into *ptr) */
    TD_CTX_DESTROY, /* ptr is destroyed, with every allocation in it */
    TD_CTX_RELEASE, /* device's primary context is released */
    TD_CTX_RESET,   /* device's primary context is destroyed, with its allocations */
};
/* Which parameter (an index into td_fns[fn].params, or -1) says what:
 *   ptr     the address or handle made (alloc, an out-parameter: read it
 *           after the call; an input for TD_ALLOC_REGISTERED), freed,
 *           mapped or unmapped; for ctx, the context (out for create,
 *           retain and pop)
 *   size    the bytes asked for (pitched: the width of a row)
 *   rows    pitched: the number of rows
 *   pitch   pitched: where the call writes the pitch it chose
 *   device  the device ordinal (else the calling thread's current context's)
 *   stream  the stream a stream-ordered call is ordered on
 *   pool    the memory pool
 *   handle  map: the physical allocation mapped
 *   desc    a structure that holds the size, the device or the node type:
 *           CUDA_ARRAY_DESCRIPTOR, CUDA_ARRAY3D_DESCRIPTOR,
 *           CUDA_MEM_ALLOC_NODE_PARAMS, CUgraphNodeParams,
 *           CUmemAllocationProp, CUmulticastObjectProp */
struct td_effect {
    unsigned char op;    /* enum td_effect_op */
    unsigned char kind;  /* enum td_alloc_kind, or enum td_ctx_op for TD_EFF_CTX */
    signed char ptr, size, rows, pitch, device, stream, pool, handle, desc;
};
extern const struct td_effect td_fn_effects[TD_FN__COUNT];

/* The id of an entry point by its exact name, or -1. */
int td_api_find(const char *name);
/* The family by name ("memory"), or -1. */
int td_family_find(const char *name);
const char *td_family_name(int family);
/* "%device %context ... %other": every class, in order, for messages and
 * --help. Returns buf. */
char *td_family_list(char *buf, size_t n);

/* cuGetProcAddress's rule: the newest implementation of symbol whose ABI
 * version is at most version; per_thread then takes that symbol's
 * _ptds/_ptsz variant where it has one.
 * Returns the function id, or -1 (CUDA_ERROR_NOT_FOUND). *version_too_low
 * is set when the symbol exists only at newer versions. */
int td_proc_lookup(const char *symbol, int version, int per_thread, int *version_too_low);

#endif
