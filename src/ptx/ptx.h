/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX engine: a front end (lexer, parser, checker) that turns PTX text
 * into a compact internal form once, and an executor that runs a kernel of
 * that form on the host, a warp's 32 lanes at a time (SIMT with an active
 * mask). This header is the engine's whole interface to the emulator; it
 * knows nothing of contexts or streams.
 *
 * Addresses. Global and constant memory, and generic addresses, are host
 * addresses. Shared addresses are offsets in the block's shared window,
 * local addresses offsets in the thread's local window, param addresses
 * offsets in the kernel's parameter buffer; cvta converts between them and
 * generic host addresses. Every access is checked (ptx_host.lookup), so a
 * stray pointer fails the launch instead of crashing the host program. */
#ifndef TD_PTX_H
#define TD_PTX_H

#include <stddef.h>
#include <stdint.h>

#include "param.h"

struct ptx_module;

/* A module-scope .global or .const variable. */
struct ptx_global_info {
    const char *name;
    int is_const;
    uint64_t size;
    unsigned align;
    const unsigned char *init;   /* initial bytes (size of them), or NULL: zeros */
};

/* Parses PTX text (len bytes, or up to a NUL). Never fails for unsupported
 * instructions: those are recorded and reported by ptx_entry_check. Returns
 * NULL with a message in err for malformed text or no memory. */
struct ptx_module *ptx_parse(const char *text, size_t len, char *err, size_t errlen);
void ptx_module_free(struct ptx_module *m);

int ptx_global_count(const struct ptx_module *m);
const struct ptx_global_info *ptx_global(const struct ptx_module *m, int i);
/* Global i's initial value (its size in bytes) into dst: the initialiser,
 * with the addresses of the variables (gaddr: by global index, as for
 * ptx_launch) and functions it names; zeros without one. */
void ptx_global_init(const struct ptx_module *m, int i, const uint64_t *gaddr, unsigned char *dst);
/* Index of entry `name`, or -1. */
int ptx_entry_find(const struct ptx_module *m, const char *name);
/* Parameter buffer size of the entry (bytes). */
unsigned ptx_entry_param_bytes(const struct ptx_module *m, int entry);
/* The entry's parameters: count, and for i < max their offsets and sizes
 * in the parameter buffer. */
int ptx_entry_params(const struct ptx_module *m, int entry, unsigned *off, unsigned *size, int max);
/* Static shared memory the entry uses (bytes). */
unsigned ptx_entry_shared_bytes(const struct ptx_module *m, int entry);
/* The entry's required cluster size (.reqnctapercluster; 0s: none) into
 * dims; 1 if it has one or .explicitcluster, else 0. */
int ptx_entry_cluster(const struct ptx_module *m, int entry, unsigned dims[3]);
/* 0 if the entry and every function it calls can run; else -1 with a
 * message naming the first unsupported instruction and its PTX line. */
int ptx_entry_check(const struct ptx_module *m, int entry, char *err, size_t errlen);

/* What the executor needs from its host. */
struct ptx_host {
    void *cookie;
    /* The allocation [lo, hi) holding addr, for the validity check of
     * global and generic accesses: 0, or -1 if addr is not device memory. */
    int (*lookup)(void *cookie, uint64_t addr, uint64_t *lo, uint64_t *hi);
    /* Device printf output (one formatted call). */
    void (*print)(void *cookie, const char *text, size_t len);
    /* Device malloc: size bytes of device memory (an address lookup
     * accepts), 0 when the heap is exhausted; free of such an address.
     * NULL: malloc returns 0. */
    uint64_t (*heap_alloc)(void *cookie, uint64_t size);
    void (*heap_free)(void *cookie, uint64_t addr);
    /* cudaGraphSetConditional(handle, value), a builtin of the CUDA
     * runtime's device library that sets a graph's conditional value: 0,
     * or -1 if the handle is not one of the graph's (the launch fails).
     * NULL: the kernel does not run from a graph (the call fails it). */
    int (*set_cond)(void *cookie, uint64_t handle, unsigned value);
    void *cond_cookie;
    /* The CUDA device runtime of dynamic parallelism (devrt.c); NULL where
     * the host has none (those calls return an error). dev_attr: attribute
     * attr (cudaDeviceAttr) of device dev into *value: 0, or a cudaError_t.
     * dev_limit: limit (cudaLimit) into *value: 0, or a cudaError_t.
     * error_text: a cudaError_t's name (name 1) or description, static, or
     * NULL. note: a line for the launch's report (a device-runtime call the
     * engine does not serve, named once per host launch). child_ran: a
     * child grid ran (t0, t1: CLOCK_MONOTONIC ns; status a ptx_status). */
    int (*dev_attr)(void *cookie, int attr, int dev, int *value);
    int (*dev_limit)(void *cookie, int limit, uint64_t *value);
    const char *(*error_text)(void *cookie, int code, int name);
    void (*note)(void *cookie, const char *text, size_t len);
    void (*child_ran)(void *cookie, const char *kernel, const unsigned grid[3], const unsigned block[3],
                      unsigned dyn_shared, unsigned depth, uint64_t t0, uint64_t t1, int status);
};

/* Dynamic parallelism: the deepest nesting of grids (a host launch's grid
 * is depth 0) */
#define PTX_DEVRT_MAX_DEPTH 24
struct ptx_devrt;

enum ptx_status {
    PTX_OK = 0,
    PTX_E_ASSERT,        /* __assertfail */
    PTX_E_TRAP,          /* trap, or a launch that cannot go on */
    PTX_E_ADDRESS,       /* access outside any allocation */
    PTX_E_MISALIGNED,    /* misaligned access */
    PTX_E_UNSUPPORTED,   /* the checker refused the kernel */
    PTX_E_NOMEM,
    PTX_E_STACK,         /* call stack too deep */
    PTX_E_DEADLOCK,      /* no thread can go on: a barrier or warp-synchronous
                            instruction that can never complete */
    PTX_E_SYNC,          /* a warp-synchronous instruction used outside its
                            rules (a lane not in its own member mask, a value
                            read from a lane that is not taking part) */
    PTX_E_TIMEOUT,       /* the launch's instruction budget or time limit ran out */
};

/* A .shared::cluster address: the block's own shared offset below
 * 2^PTX_CLUSTER_SHIFT; else 1 + the rank of the cluster's block it names
 * from that bit up, the offset in that block's window below (what mapa
 * gives; ptx_fault.addr of a fault in that space is such an address). */
#define PTX_CLUSTER_SHIFT 24

/* What a faulting instruction did with memory (ptx_fault.access). */
enum ptx_access { PTX_ACCESS_NONE, PTX_ACCESS_READ, PTX_ACCESS_WRITE, PTX_ACCESS_ATOMIC };

/* A failed launch in detail, for the emulator's report: filled when
 * ptx_launch.fault is set and ptx_run fails. Fields that do not apply are
 * 0 or "". The err string of ptx_run says the same in one line. */
struct ptx_fault {
    enum ptx_status status;
    char kernel[256];            /* the entry as the PTX names it (mangled) */
    char function[256];          /* the function holding the instruction */
    int has_thread;              /* block, thread, warp and lane are set */
    unsigned block[3], thread[3];
    int warp, lane;
    enum ptx_access access;      /* PTX_E_ADDRESS, PTX_E_MISALIGNED */
    char space[16];              /* "global", "shared", "local", "const", "param", "generic" */
    uint64_t addr;               /* generic/global: host address; shared/local/param:
                                    the offset in the thread's or block's window */
    unsigned size;               /* bytes accessed */
    int ptx_line;                /* the instruction's line in the PTX text */
    char opcode[64];             /* its spelling, as "st.global.u32" */
    char file[256];              /* from the PTX's .loc/.file line info, if any */
    int line, column;
    unsigned depth;              /* a child grid's (dynamic parallelism): its nesting
                                    depth, and the kernel that launched it; 0, "": the
                                    host's launch */
    char parent[256];
};

/* The engines (src/common/engines.def): who runs a kernel. */
enum ptx_engine {
#define ENGINE(id, name, what) PTX_ENGINE_##id,
#include "engines.def"
#undef ENGINE
    PTX_ENGINE_COUNT
};
/* an engine's name ("jit"), and the engine of a name (-1: none) */
const char *ptx_engine_name(int e);
int ptx_engine_find(const char *name);
/* Which engine ran a launch (ptx_launch.engine_report). */
struct ptx_engine_report {
    int engine;                  /* PTX_ENGINE_INTERP or PTX_ENGINE_JIT */
    int compiled;                /* the JIT took up the kernel in this launch (its
                                    first): compiled it, or refused it for why */
    double compile_ms;           /* how long that took */
    int from_cache;              /* the code came from the cache on disk (in compile_ms) */
    int light;                   /* a big kernel, compiled with the light pipeline:
                                    its PTX instructions (docs/ptx-jit.md), or 0 */
    unsigned long long code_bytes; /* the JIT's compiled code in the process, then */
    char note[400];              /* once per process: why the cache is not used, or "" */
    int vector;                  /* the JIT ran warps as vectors where it could */
    unsigned long long vec_runs; /* calls of the warp's vector function (docs/ptx-jit.md) */
    unsigned long long vec_lanes; /* lanes those handed on to the thread's function */
    unsigned long long lane_calls; /* calls of the interpreter's per-lane handlers from the
                                    compiled code (an instruction it does not compile, an
                                    atomic whose allocation it has not found yet) */
    int vec_round;               /* the warps ran through the JIT's compiled round over
                                    them (_wround), not one call from C per warp */
    int vec_inlined;             /* that round holds the warp's function inlined for each
                                    resume point, no call a warp (docs/ptx-jit.md) */
    char why[256];               /* the interpreter ran though the JIT was asked
                                    for: why (the first unsupported instruction,
                                    no LLVM, ...) */
};

struct ptx_launch {
    unsigned grid[3], block[3];
    unsigned dyn_shared;                /* dynamic shared bytes */
    const void *params;                 /* the parameter buffer */
    unsigned param_bytes;
    const uint64_t *gaddr;              /* by global index: its address */
    int nthreads;                       /* host threads to use (0: all cores) */
    unsigned smcount;                   /* %nsmid */
    uint64_t max_instructions;          /* thread-instructions the launch may run
                                           before it fails with PTX_E_TIMEOUT
                                           (checked every few thousand); 0: no limit */
    unsigned timeout_ms;                /* wall-clock limit (PTX_E_TIMEOUT); 0: none */
    unsigned stack_bytes;               /* per-thread stack for recursive calls
                                           (saved registers, .param, .local);
                                           0: 16 KiB */
    struct ptx_fault *fault;            /* if set, receives a failure's details */
    struct ptx_host host;
    int cooperative;                    /* every block resident at once (a
                                           cooperative launch: blocks wait for
                                           each other in grid-wide barriers) */
    unsigned cluster[3];                /* blocks per cluster in each dimension
                                           (0 or 1: one); each divides grid. The
                                           blocks of a cluster are resident at
                                           once, on one host thread, and reach
                                           each other's shared memory */
    int explicit_cluster;               /* %is_explicit_cluster: the launch or
                                           the kernel gave a cluster size */
    int engine;                         /* PTX_ENGINE_*: 0 the interpreter */
    struct ptx_engine_report *engine_report; /* if set, receives which engine ran */
    uint32_t envreg[32];                /* %envreg0..31, what the driver puts
                                           there: 1 and 2 hold the high and low
                                           halves of a cooperative launch's
                                           grid barrier word's address */
    int device, ndevices;               /* cudaGetDevice, cudaGetDeviceCount in kernels */
    unsigned pending_limit;             /* device-side launches the grids of a host
                                           launch may have pending (cudaLimitDev-
                                           RuntimePendingLaunchCount); 0: 2048 */
    /* the engine's, for child grids: 0 and NULL from the host */
    unsigned depth;                     /* nesting depth */
    struct ptx_devrt *devrt;            /* the host launch's device-runtime state */
};

/* A texture or surface object as tex, tld4, txq, suld, sust and suq see
 * it (the emulator resolves a kernel's handle into one, exec_tex.c). */
enum { PTX_FMT_U8, PTX_FMT_U16, PTX_FMT_U32, PTX_FMT_S8, PTX_FMT_S16, PTX_FMT_S32, PTX_FMT_F16, PTX_FMT_F32 };
enum { PTX_ADDR_WRAP, PTX_ADDR_CLAMP, PTX_ADDR_MIRROR, PTX_ADDR_BORDER };
struct ptx_tex {
    unsigned char *base;         /* element (0, 0, 0) of layer 0: device memory */
    uint64_t span;               /* bytes from base that the object covers */
    uint64_t width, height, depth; /* elements; 1 where the resource has no such dimension */
    uint64_t layers;             /* layered: layers (a cubemap's faces count, 6 per cube); else 1 */
    uint64_t pitch, slice;       /* bytes from a row to the next; from a 2-D slice (depth or layer) to the next */
    int fmt, nch;                /* PTX_FMT_*, channels (1, 2, 4) */
    int dims;                    /* 1, 2 or 3 */
    int layered, cubemap, linear_res; /* linear_res: a linear resource (tex.1d with integer coordinates) */
    int read_norm;               /* 8- and 16-bit integers read as floats in [0, 1] or [-1, 1] */
    int norm_coords, filter_linear, srgb;
    int addr[3];                 /* PTX_ADDR_* by dimension */
    float border[4];
    unsigned levels;             /* mipmap levels (1: none) */
};
/* The emulator's resolver: the texture (surface 0) or surface (1) object
 * a kernel names by handle, into out: 0, or -1 when there is none (the
 * instruction fails the launch). Set once, before any kernel uses one. */
typedef int (*ptx_tex_lookup_fn)(uint64_t handle, int surface, struct ptx_tex *out);
void ptx_set_tex_lookup(ptx_tex_lookup_fn fn);

/* Runs the kernel to completion. err receives a message on failure. */
enum ptx_status ptx_run(const struct ptx_module *m, int entry, const struct ptx_launch *l,
                        char *err, size_t errlen);

/* Thread-instructions executed by this process so far (all launches). */
uint64_t ptx_instructions(void);

#endif
