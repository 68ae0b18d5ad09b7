/* The driver API as data: one descriptor per entry point, generated from
 * src/api/cuda.api by tools/apigen.c (td_api_table.c). Shared by the shim
 * (what to record), the emulator (cuGetProcAddress) and tdtrace (how to
 * print). */
#ifndef TD_COMMON_API_H
#define TD_COMMON_API_H

#include <stddef.h>
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
