/* SPDX-License-Identifier: Apache-2.0 */
/* The emulated GPU: internal interface shared by the src/emu family files.
 *
 * Layers. Each file calls only into files below it (tools/check-layers.py,
 * run by make check, verifies that no file calls back into its callers):
 *
 *   init.c                   cuInit: devices, primary contexts, pools;
 *                            the families join the context teardown
 *   graphexec.c graphdot.c   executable graphs: instantiate, launch,
 *                            update; DOT output of graphs
 *   graphnode.c              graph nodes whose parameters are checked
 *                            against modules and memory
 *   occupancy.c exporttable.c  entry points built on other entry points
 *   launchcoop.c             cuLaunchKernelEx, cooperative launches
 *   streamattr.c profiler.c
 *   module.c link.c          modules, libraries, functions, kernels; the
 *                            JIT linker
 *   launchattr.c             the attributes of a launch (cuLaunchKernelEx)
 *   launch.c copy.c event.c  kernels (src/ptx), copies, events; stream
 *   memop.c                  memory operations (also the graph's nodes)
 *   rdc.c                    relocatable device code: a linked binary's
 *                            units' PTX, linked
 *   fault.c arch.c jit.c     the report of a kernel's fault; which binary
 *                            of an image runs; JIT options and logs
 *   texture.c                texture and surface objects (src/ptx
 *                            resolves kernels' handles through it)
 *   array.c                  CUDA arrays and mipmapped arrays
 *   vmm.c                    virtual memory management: physical
 *                            allocations (memfds), reservations, mappings
 *   pool.c                   memory pools, stream-ordered allocation
 *   memory.c                 allocations, the address map, what pools hold
 *   capture.c                stream capture: work on a capturing stream
 *                            becomes graph nodes
 *   stream.c                 streams, their workers, cuCtxSynchronize
 *   graph.c graphmem.c       graphs, nodes; the memory of graph allocation
 *                            nodes (graph.h)
 *   uobj.c                   user objects and their destructor thread
 *   context.c                contexts, sticky errors, the teardown registry
 *   device.c obj.c driver.c  devices and cuInit's state; the handle
 *                            registry; version, error names, cuGetProcAddress
 *   config.c profiles.c fatbin.c   environment, device profiles, images;
 *   ptxlink.c                PTX texts linked into one
 *
 * The exported CUDA entry points are the emulator's public interface; every
 * entry point it does not implement gets a weak body (generated
 * emu_stubs.c) that returns emu_unsupported().
 *
 * Objects. Every handle the program sees (context, stream, event, module,
 * function, library, kernel, memory pool, link state, graph, graph node,
 * executable graph, user object, CUDA array, mipmapped array, texture and
 * surface object) points at a struct that starts
 * with struct emu_obj and is entered in one registry (obj.c). A handle is
 * looked up there before it is dereferenced, so a stale or made-up handle
 * is an error, never a crash. Lookups take a reference; the registry holds
 * one too, dropped when the object is destroyed.
 *
 * Memory. Every allocation (device, managed, page-locked host, registered
 * host range) is one struct emu_alloc in a sorted address map (memory.c);
 * pointers are validated there, with bounds, in O(log n). Mapped and
 * accessible virtual memory (vmm.c) is entered there as runs of mappings.
 *
 * Streams. One worker thread per stream runs its operations in order
 * (stream.c). The legacy default stream and the per-thread default streams
 * are streams too; the implicit synchronisation of the legacy stream is a
 * list of (stream, sequence number) dependencies added to an operation when
 * it is submitted.
 *
 * Locks, outermost first: an executable graph's launch lock; the capture
 * lock, then the graph lock (graph.h); ctx->lock, stream->lock,
 * event->lock; the registry lock and the memory-map lock are leaves. No
 * lock is held while a user callback runs. */
#ifndef TD_EMU_H
#define TD_EMU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "api.h"
#include "profiles.h"

#define TD_EXPORT __attribute__((visibility("default")))

/* CUDA_ERROR_NOT_SUPPORTED for an entry point the emulator lacks. */
CUresult emu_unsupported(int fn);

/* Every entry point's function in this library, by id (generated). */
extern void *const emu_fns[TD_FN__ENTRY_POINTS];

#define EMU_MAX_DEVICES    64
#define EMU_ALLOC_ALIGN    256     /* alignment of device allocations */
#define EMU_PITCH_ALIGN    512     /* cuMemAllocPitch row alignment */
#define EMU_MAX_CTX_STACK  64
#define EMU_NLIMITS        (CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED + 1) /* the CUlimit values */

/* ---- config.c: the environment ------------------------------------- */
struct emu_config {
    int ndevices;                       /* TDTRACE_EMU_DEVICES (default 1) */
    const struct emu_profile *profile;  /* TDTRACE_EMU_PROFILE (default h100) */
    unsigned long long memory;          /* TDTRACE_EMU_MEMORY; 0: profile's */
    unsigned timeout_ms;                /* TDTRACE_EMU_TIMEOUT; 0: no limit */
    unsigned long long max_instructions; /* TDTRACE_EMU_MAX_INSTRUCTIONS; 0: no limit */
    int threads;                        /* TDTRACE_EMU_THREADS: host threads of a launch; 0: all cores */
    int engine;                         /* TDTRACE_EMU_ENGINE: PTX_ENGINE_* (default interp) */
    int eager_loading;                  /* CUDA_MODULE_LOADING=EAGER (default LAZY) */
    int nvisible;                       /* CUDA_VISIBLE_DEVICES applied */
    int visible[EMU_MAX_DEVICES];       /* visible ordinal -> physical index */
};
/* "30" or "30s" (seconds, decimals allowed), "500ms": milliseconds, at
 * most 2^31 (24 days); "0" is no limit. 0 on success. */
int emu_parse_timeout(const char *s, unsigned *ms);
/* "123", "4K", "16MiB", "2GB", "1T" (binary multiples). 0 on success. */
int emu_parse_size(const char *s, unsigned long long *out);
/* CUDA_MODULE_LOADING: 1 for EAGER, 0 for LAZY (the default, also for
 * NULL or any other value). */
int emu_parse_loading(const char *s);
/* "4" -> 4 in [0, EMU_MAX_DEVICES]. 0 on success. */
int emu_parse_count(const char *s, int *out);
/* CUDA_VISIBLE_DEVICES as the driver reads it: comma-separated indices or
 * GPU-<uuid> (a unique prefix will do); parsing stops at the first invalid
 * or repeated entry. uuids[i] is physical device i's UUID. Returns how many
 * devices are visible, their physical indices in out. */
int emu_parse_visible(const char *s, int ndev, const CUuuid *uuids, int *out);
/* The device UUID of physical device phys of profile p. */
void emu_make_uuid(const struct emu_profile *p, int phys, CUuuid *out);
/* Formats a UUID as the driver does for CUDA_VISIBLE_DEVICES / nvidia-smi:
 * "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (41 bytes with the NUL). */
void emu_format_uuid(const CUuuid *u, char out[41]);
/* Reads the environment into cfg. 0, or -1 with a message in err. */
int emu_config_load(struct emu_config *cfg, char *err, size_t errlen);
/* The driver release presented (cuDriverGetVersion, cuGetProcAddress):
 * TDTRACE_EMU_DRIVER (12.4 or 12040), else the release whose entry points
 * this library exports (lib/tdtrace/driver/V/emu), else the API table's
 * newest. Callable before cuInit; an invalid value fails cuInit. */
int emu_driver_version(void);

/* ---- obj.c: the handle registry ------------------------------------- */
enum emu_type {
    EMU_T_CTX = 1, EMU_T_STREAM, EMU_T_EVENT, EMU_T_MODULE, EMU_T_FUNC,
    EMU_T_LIBRARY, EMU_T_KERNEL, EMU_T_POOL, EMU_T_LINK,
    EMU_T_GRAPH, EMU_T_GNODE, EMU_T_GEXEC, EMU_T_UOBJ,
    EMU_T_ARRAY, EMU_T_MIPMAP, EMU_T_TEXOBJ, EMU_T_SURFOBJ,
};
struct emu_ctx;
struct emu_obj {
    struct emu_obj *hnext;       /* registry chain */
    int type;                    /* enum emu_type */
    int registered;              /* under the registry lock */
    atomic_int refs;
    struct emu_ctx *ctx;         /* owner, or NULL (libraries, kernels, pools) */
    void (*release)(struct emu_obj *o);  /* frees it at the last reference */
};
/* refs = 1 (the registry's, once registered) */
void emu_obj_init(struct emu_obj *o, int type, struct emu_ctx *ctx,
                  void (*release)(struct emu_obj *));
void emu_obj_register(struct emu_obj *o);
/* The live object for handle h of that type with a reference taken, or NULL. */
void *emu_obj_get(const void *h, int type);
void emu_obj_ref(struct emu_obj *o);
void emu_obj_put(struct emu_obj *o);
/* Removes o from the registry: 1 if this call did it (the caller then owns
 * the registry's reference), 0 if it was already gone. */
int emu_obj_unregister(struct emu_obj *o);
/* Unregisters every object of type owned by ctx, calls fn on each (with
 * the registry's reference, which fn must drop). */
void emu_obj_drop_ctx(struct emu_ctx *ctx, int type, void (*fn)(struct emu_obj *));

/* ---- device.c -------------------------------------------------------- */
struct emu_pool;
struct emu_device {
    int ordinal;                 /* as the program sees it */
    int phys;                    /* index before CUDA_VISIBLE_DEVICES */
    const struct emu_profile *prof;
    CUuuid uuid;
    unsigned long long total_mem;
    pthread_mutex_t mem_lock;    /* the counters below */
    unsigned long long used, peak;
    unsigned long long nallocs, total_allocs;
    struct emu_ctx *primary;     /* permanent */
    struct emu_pool *default_pool; /* permanent, made at init */
    struct emu_pool *cur_pool;   /* cuDeviceSetMemPool (under mem_lock) */
};
extern int emu_ndevices;
extern struct emu_device *emu_devices;
/* A launch's limits (cuInit, from the configuration): a kernel that runs
 * longer, or executes more thread-instructions, fails with
 * CUDA_ERROR_LAUNCH_TIMEOUT. 0: none. */
extern unsigned emu_launch_timeout_ms;
extern unsigned long long emu_launch_max_instructions;
extern int emu_launch_threads;          /* host threads a launch uses; 0: all cores */
extern int emu_launch_engine;           /* PTX_ENGINE_*: who runs kernels */
extern int emu_eager_loading;           /* CUDA_MODULE_LOADING=EAGER: libraries load into contexts at once */
/* CUDA_SUCCESS once cuInit has succeeded, else CUDA_ERROR_NOT_INITIALIZED. */
CUresult emu_check_init(void);
#define EMU_INIT_OR_RETURN() do { CUresult r_ = emu_check_init(); if (r_) return r_; } while (0)
/* Sets the devices up from cfg (cuInit), then, when all else is ready,
 * marks the driver initialised. */
CUresult emu_devices_init(const struct emu_config *cfg);
void emu_devices_ready(void);
/* The device for ordinal d, or NULL. */
struct emu_device *emu_device(CUdevice d);
/* The device's compute capability as 10 * major + minor. */
int emu_device_cc(const struct emu_device *dev);
/* A device attribute (the one source of every value reported). */
/* The device's compute capability as 10 * major + minor. */
int emu_device_cc(const struct emu_device *dev);
CUresult emu_device_attr(const struct emu_device *dev, int attr, int *value);
int emu_device_attr_or(const struct emu_device *dev, int attr, int dflt);

/* ---- context.c ------------------------------------------------------- */
struct emu_stream;
struct emu_ctx {
    struct emu_obj o;
    struct emu_device *dev;
    int primary;
    unsigned long long id;
    pthread_mutex_t lock;          /* everything below */
    int active;                    /* created: until destroyed; primary: retained */
    int retains;                   /* primary: retain count */
    unsigned flags;
    unsigned primary_flags;        /* primary: cuDevicePrimaryCtxSetFlags */
    struct emu_stream *streams;    /* every stream of the context */
    struct emu_stream *legacy;     /* the NULL stream, made on first use */
    size_t limits[EMU_NLIMITS];    /* by CUlimit */
    _Atomic size_t heap_used;      /* device heap bytes outstanding (kernels' malloc,
                                      cudaMalloc): at most CU_LIMIT_MALLOC_HEAP_SIZE */
    int cache_config;              /* cuCtxSetCacheConfig */
    atomic_int sticky;             /* a kernel's fault (CUresult), until teardown */
    _Atomic uint64_t peers;        /* devices whose memory its kernels reach (peer.c) */
    pthread_mutex_t out_lock;      /* device printf output, written at synchronisation */
    char *out;
    size_t out_len, out_cap;
    struct emu_ctx *anext;         /* every context (context.c's list) */
};
/* The primary context of dev, inactive (cuInit). */
CUresult emu_ctx_init_primary(struct emu_device *dev);
/* The calling thread's current context for a call that does work in it,
 * validated and referenced. CUDA_ERROR_NOT_INITIALIZED,
 * CUDA_ERROR_INVALID_CONTEXT (none, or an inactive primary),
 * CUDA_ERROR_CONTEXT_IS_DESTROYED, or the context's sticky error: after a
 * kernel's fault every later call that does work fails with it, as on the
 * real driver, until the context is destroyed or reset. */
CUresult emu_ctx_current(struct emu_ctx **out);
/* The same for calls that only read the context's properties: they still
 * answer after a fault. */
CUresult emu_ctx_query(struct emu_ctx **out);
/* CUDA_SUCCESS when the calling thread has a usable current context, else
 * the error emu_ctx_current gives (work that uses nothing of it) */
CUresult emu_ctx_require(void);
/* h, or the current context when h is NULL (as emu_ctx_query); referenced. */
CUresult emu_ctx_resolve(CUcontext h, struct emu_ctx **out);
void emu_ctx_put(struct emu_ctx *c);
/* Whether a kernel of c reaches a's memory: its own device's, memory of
 * every device (managed, host), or a peer's with peer access (peer.c). */
struct emu_alloc;
int emu_peer_reaches(struct emu_ctx *c, const struct emu_alloc *a);
/* A kernel of c failed with err: the first error sticks. */
void emu_ctx_fail(struct emu_ctx *c, CUresult err);
/* c's sticky error, or CUDA_SUCCESS. */
CUresult emu_ctx_sticky(struct emu_ctx *c);
/* At synchronisation: writes c's buffered device output, returns its
 * sticky error. */
CUresult emu_ctx_error(struct emu_ctx *c);
/* Device printf output of a kernel of c, kept until synchronisation. */
void emu_ctx_output(struct emu_ctx *c, const char *text, size_t len);
/* Per-context teardown. Each family that owns objects of a context joins
 * at cuInit with the function that drops them; context destroy and
 * primary-context reset call them stage by stage. */
enum emu_teardown_stage {
    EMU_TEARDOWN_STORAGE,   /* context-local storage: destructors while the context works */
    EMU_TEARDOWN_STREAMS,   /* all work finishes, then the streams go */
    EMU_TEARDOWN_EVENTS,
    EMU_TEARDOWN_MODULES,
    EMU_TEARDOWN_LINKS,
    EMU_TEARDOWN_MEMORY,
    EMU_TEARDOWN__COUNT
};
void emu_ctx_teardown_join(enum emu_teardown_stage stage, void (*drop)(struct emu_ctx *c));

/* ---- memory.c -------------------------------------------------------- */
/* GLOBAL: a module's variable (device memory only the module frees) */
/* VMM: a mapped, accessible run of a cuMemAddressReserve range (vmm.c) */
enum emu_mem_kind { EMU_MEM_DEVICE = 1, EMU_MEM_MANAGED, EMU_MEM_HOST, EMU_MEM_REGISTERED, EMU_MEM_GLOBAL,
                    EMU_MEM_VMM, EMU_MEM_IPC /* another process's, cuIpcOpenMemHandle (ipc.c) */ };
struct emu_alloc {
    uintptr_t base;
    size_t size;
    size_t acct;                 /* bytes counted against the device */
    int kind;                    /* enum emu_mem_kind */
    unsigned flags;              /* host-alloc / register / attach flags */
    struct emu_ctx *ctx;         /* owner (referenced) */
    struct emu_device *dev;
    struct emu_pool *pool;       /* cuMemAllocFromPoolAsync/cuMemAllocAsync */
    unsigned long long id;       /* CU_POINTER_ATTRIBUTE_BUFFER_ID */
    void *mem;                   /* what to free (NULL: registered range) */
    size_t maplen;               /* mmap length, 0 for malloc */
    atomic_int refs;
    struct emu_alloc *dnext;     /* freed while kernels run: kept until they end */
    void (*gone)(void *cookie, int final); /* emu_mem_adopt's: out of the map (0), released (1) */
    void *gone_cookie;
};
/* Around each kernel's run: memory freed meanwhile stays mapped until no
 * kernel runs (a kernel's checked access never touches unmapped memory). */
void emu_mem_kernel_begin(void);
void emu_mem_kernel_end(void);
/* The allocation holding [p, p+len) (len 0: just p), referenced.
 * CUDA_ERROR_INVALID_VALUE if there is none. */
CUresult emu_mem_find(uintptr_t p, size_t len, struct emu_alloc **out);
/* Like emu_mem_find; NULL without error when p is not in any allocation. */
struct emu_alloc *emu_mem_lookup(uintptr_t p);
/* For a fault report: the allocation p is in; else the freed one it is in
 * (of the last 64 freed); else the live one nearest to it. */
struct emu_mem_near {
    int found;                   /* 0: no allocation at all */
    int freed;                   /* p lies in memory freed earlier */
    uintptr_t base;
    size_t size;
    int kind;                    /* enum emu_mem_kind */
    int device;                  /* its device's ordinal, -1: none */
    int pooled;                  /* from a stream-ordered pool */
};
void emu_mem_nearest(uintptr_t p, struct emu_mem_near *out);
void emu_alloc_put(struct emu_alloc *a);
/* Joins the context teardown (cuInit). */
void emu_memory_init(void);
/* flags bit for emu_mem_alloc: an address below 4 GiB (the v1 ABI's 32-bit
 * CUdeviceptr), else CUDA_ERROR_OUT_OF_MEMORY */
#define EMU_ALLOC_32BIT 0x80000000u
/* flags of an EMU_MEM_GLOBAL allocation: a __managed__ variable */
#define EMU_ALLOC_MANAGED_VAR 0x1u
/* Device allocation in ctx (accounted); used by modules for globals. */
CUresult emu_mem_alloc(struct emu_ctx *ctx, size_t size, int kind, unsigned flags,
                       struct emu_pool *pool, uintptr_t *out);
/* An EMU_MEM_GLOBAL allocation of no context, accounted on device d: the
 * driver's own for as long as it is kept (a library's __managed__
 * variables, which every context shares); released by emu_mem_release. */
CUresult emu_mem_alloc_global(struct emu_device *d, size_t size, unsigned flags, uintptr_t *out);
/* Removes the allocation at base (exactly) of the given kinds (bitmask of
 * 1 << kind). CUDA_ERROR_INVALID_VALUE if none. */
/* kinds: a mask of EMU_MEM_* bits, EMU_MEM_KIND(k) each */
#define EMU_MEM_KIND(k) (1u << (k))
CUresult emu_mem_release(uintptr_t base, unsigned kinds);
/* (vmm.c) Whether [p, p + len) touches address space reserved by
 * cuMemAddressReserve: memory there is usable only where the address map
 * has it (mapped and accessible). */
int emu_vmm_reserved(uintptr_t p, size_t len);
/* Counts bytes against d as one allocation: 0, or -1 when they do not fit. */
int emu_mem_charge(struct emu_device *d, size_t bytes);
void emu_mem_uncharge(struct emu_device *d, size_t bytes);
/* Replaces the EMU_MEM_VMM entries inside [lo, hi) with runs[0..n) (each
 * [start, end), sorted, of device dev) in one step, so that no lookup sees
 * a gap where memory stays accessible. wait: returns only once no copy or
 * kernel can still touch a removed entry (their memory may then go). */
CUresult emu_mem_vmm_set(uintptr_t lo, uintptr_t hi, const uintptr_t (*runs)[2], size_t n,
                         struct emu_device *dev, int wait);
struct emu_mem_stats {
    unsigned long long current;   /* bytes allocated now */
    unsigned long long peak;      /* most bytes ever allocated at once */
    unsigned long long count;     /* live allocations */
    unsigned long long total;     /* allocations ever made */
    unsigned long long total_mem; /* the device's size */
};
/* Statistics of device dev (ordinal). 0, or -1 for an unknown device. */
int emu_mem_stats(int dev, struct emu_mem_stats *st);
/* memory pools */
struct emu_pool {
    struct emu_obj o;
    struct emu_device *dev;
    int is_default;
    pthread_mutex_t lock;
    unsigned long long threshold, used, used_high, reserved_high;
    int reuse[4];
    _Atomic uint64_t access;       /* other devices with read-write access (cuMemPoolSetAccess) */
    /* exportable (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) and imported
     * pools: the memfd holding every allocation of the pool, at offsets
     * handed out in order (under lock); its random name */
    int exportable, imported;
    int fd;
    uint64_t nonce;
    uint64_t next_off;
};
CUresult emu_pools_init(struct emu_device *dev);
void emu_pool_account(struct emu_pool *p, long long delta);

/* ---- stream.c -------------------------------------------------------- */
struct emu_op;
typedef void (*emu_op_fn)(struct emu_op *op);
struct emu_dep { struct emu_stream *s; uint64_t seq; };
struct emu_op {
    struct emu_op *next;
    uint64_t seq;
    emu_op_fn run;                  /* does the work (worker thread or inline) */
    emu_op_fn fini;                 /* releases what the op holds (or NULL); the op is freed after */
    int inline_ok;                  /* may run on the caller's thread when idle */
    int device_work;                /* the GPU's work (copy, memset, kernel): it does
                                       not run once the context has faulted */
    int ndeps, capdeps;
    struct emu_dep *deps;
    struct emu_stream *stream;      /* set on submit */
    /* tdtrace's timeline: the correlation id the listener gave when the op
     * was submitted (0: nobody wants its times), and what it was, which
     * the run function fills in (enum emu_tl; bytes, enum emu_tl_dir) */
    uint64_t corr;
    int tl_kind, tl_dir;
    uint64_t tl_bytes;
};
/* what an op is, for tdtrace's timeline (the values of enum td_emu_op) */
enum emu_tl { EMU_TL_NONE, EMU_TL_KERNEL, EMU_TL_MEMCPY, EMU_TL_MEMSET, EMU_TL_HOST, EMU_TL_EVENT, EMU_TL_MEMOP };
/* a copy's direction (the values of enum td_emu_dir) */
enum emu_tl_dir { EMU_TL_HTOD, EMU_TL_DTOH, EMU_TL_DTOD, EMU_TL_HTOH };
enum emu_stream_kind { EMU_S_USER, EMU_S_LEGACY, EMU_S_PTDS };
struct emu_stream {
    struct emu_obj o;
    struct emu_stream *cnext;       /* ctx->streams, under ctx->lock */
    struct emu_ctx *sctx;           /* referenced */
    int kind;                       /* enum emu_stream_kind */
    unsigned flags;
    int priority;
    unsigned long long id;
    pthread_mutex_t lock;           /* queue and worker state */
    pthread_cond_t work_cv, done_cv;
    struct emu_op *head, *tail;
    uint64_t enq_seq;               /* under lock */
    _Atomic uint64_t done_seq;      /* last op finished */
    _Atomic uint64_t pub_enq;       /* copy of enq_seq for lock-free peeks */
    int worker, sleeping, exiting, nwaiters;
    struct emu_stream_attrs {       /* cuStreamSetAttribute (streamattr.c), under lock */
        CUaccessPolicyWindow apw;
        CUsynchronizationPolicy sync_policy;  /* 0: never set (CU_SYNC_POLICY_AUTO) */
        int map_set;                /* domain_map given (else the device's default) */
        CUlaunchMemSyncDomainMap domain_map;
        CUlaunchMemSyncDomain domain;
        unsigned nvlink_centric;
    } attrs;
    struct emu_capture *_Atomic cap; /* the capture sequence it takes part in (capture.c's) */
};
/* Resolves a stream handle for the calling thread, for work on it. NULL
 * means the legacy stream, or this thread's default stream when ptds;
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD as named. Referenced. The
 * stream's context's sticky error fails it (emu_ctx_current). */
CUresult emu_stream_resolve(CUstream h, int ptds, struct emu_stream **out);
void emu_stream_put(struct emu_stream *s);
/* The context of the stream whose worker the calling thread is (a host
 * function or host node runs there), or NULL on any other thread. */
struct emu_ctx *emu_stream_worker_ctx(void);
/* tdtrace's listener (fault.c sets these): submit() on the submitting
 * thread gives an op its correlation id (0: no times wanted); ran() says
 * that an op other than a kernel ran from t0 to t1 (emu_now_ns) */
struct emu_tl_hooks {
    uint64_t (*submit)(void);
    void (*ran)(const struct emu_op *op, uint64_t t0, uint64_t t1);
};
void emu_stream_tl_hooks(const struct emu_tl_hooks *h);
/* Allocates an op of size bytes (>= sizeof(struct emu_op)), zeroed. */
void *emu_op_new(size_t size, emu_op_fn run, emu_op_fn fini);
/* Adds a dependency: op starts only after s has finished op number seq. */
int emu_op_dep(struct emu_op *op, struct emu_stream *s, uint64_t seq);
/* Queues op on s after the implicit dependencies of the legacy stream.
 * The op is owned by the stream from here (also on error). */
CUresult emu_stream_submit(struct emu_stream *s, struct emu_op *op, uint64_t *seq_out);
/* Runs op on the calling thread once everything it would have waited for
 * on s is done (synchronous copies), then frees it. Returns, as every
 * synchronising call, the context's sticky error (the op did not run). */
CUresult emu_stream_exec(struct emu_stream *s, struct emu_op *op);
/* Waits until s has finished op number seq. */
void emu_stream_wait(struct emu_stream *s, uint64_t seq);
int emu_stream_reached(struct emu_stream *s, uint64_t seq);
/* Waits for all work submitted so far. */
void emu_stream_sync(struct emu_stream *s);
/* Destroys: unregisters, lets pending work finish, frees at the end. */
void emu_stream_destroy(struct emu_stream *s);
/* Waits until all work of every stream of c is done. */
void emu_ctx_sync(struct emu_ctx *c);
/* Joins the context teardown (cuInit). */
void emu_stream_init(void);
/* What stream.c asks of stream capture (capture.c, which is above it,
 * sets them at cuInit). */
struct emu_capture_hooks {
    /* capturing s was given work that cannot be captured, or a call that
     * conflicts with its capture (synchronize, query): the capture is
     * invalidated; the call's error */
    CUresult (*refuse)(struct emu_stream *s);
    /* the legacy stream of c is used: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT
     * (the capture invalidated) if a blocking stream of c is capturing */
    CUresult (*legacy)(struct emu_ctx *c);
    /* cuCtxSynchronize of c: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (the
     * captures invalidated) if a stream of c is capturing */
    CUresult (*ctx_sync)(struct emu_ctx *c);
    /* a host function on capturing stream s becomes a host node */
    CUresult (*host)(struct emu_stream *s, CUhostFn fn, void *user);
    /* capturing s is destroyed: it leaves its capture (which ends, with no
     * graph, if s began it) */
    void (*leave)(struct emu_stream *s);
};
void emu_stream_capture_hooks(const struct emu_capture_hooks *h);
/* Monotonic nanoseconds. */
uint64_t emu_now_ns(void);

/* ---- capture.c: stream capture ------------------------------------------ */
struct emu_capture;
struct emu_capsnap;               /* a captured event's dependency set */
/* Joins stream.c (cuInit). */
void emu_capture_init(void);
/* Whether s is capturing: its work becomes graph nodes (the functions
 * below) instead of running. Cheap when nothing captures. */
int emu_capturing(struct emu_stream *s);
/* Work on capturing s: a node after the stream's dependency set, which
 * becomes the new node. The parameters are the program's, checked. */
struct emu_kargs;
struct emu_cluster;
/* (cl: the launch's cluster attribute, kept as the node's; NULL: none) */
CUresult emu_capture_kernel(struct emu_stream *s, CUfunction f, const unsigned grid[3], const unsigned block[3],
                            unsigned shmem, struct emu_kargs *args /* taken */, const struct emu_cluster *cl);
CUresult emu_capture_memcpy(struct emu_stream *s, const CUDA_MEMCPY3D *p);
CUresult emu_capture_memset(struct emu_stream *s, CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem,
                            size_t width, size_t height);
/* stream memory operations (checked): a batch memory operation node */
CUresult emu_capture_memop(struct emu_stream *s, const CUstreamBatchMemOpParams *ops, unsigned n);
/* cuMemAllocAsync: an allocation node; its address in *out */
CUresult emu_capture_alloc(struct emu_stream *s, size_t size, CUdeviceptr *out);
/* cuMemFreeAsync: a free node (of a graph allocation) */
CUresult emu_capture_free(struct emu_stream *s, CUdeviceptr p);
/* an event record or wait node (CU_EVENT_RECORD_EXTERNAL, CU_EVENT_WAIT_EXTERNAL) */
CUresult emu_capture_event_node(struct emu_stream *s, int type, struct emu_obj *event);
/* cuEventRecord on capturing s: the stream's dependency set, for a later
 * cuStreamWaitEvent (referenced) */
CUresult emu_capture_record(struct emu_stream *s, struct emu_capsnap **out);
/* cuStreamWaitEvent of an event recorded in a capture: s joins that
 * capture (or merges the set into its own); the capture rules' errors.
 * snap NULL: capturing s waits for an event recorded outside any
 * capture (CUDA_ERROR_STREAM_CAPTURE_ISOLATION). */
CUresult emu_capture_wait(struct emu_stream *s, struct emu_capsnap *snap);
void emu_capsnap_ref(struct emu_capsnap *snap);
void emu_capsnap_put(struct emu_capsnap *snap);
/* Work on capturing s that has no graph node: the capture is
 * invalidated, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (or
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED if it was already). */
CUresult emu_capture_refuse(struct emu_stream *s);
/* A call the capture rules call unsafe (allocation, synchronous copies,
 * event queries): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and the captures
 * that forbid it invalidated, when the calling thread's capture mode and
 * the captures in progress forbid it (cuThreadExchangeStreamCaptureMode). */
CUresult emu_capture_unsafe(void);

/* ---- jit.c: JIT options ------------------------------------------------ */
struct emu_jit {
    char *err, *info;            /* the log buffers, or NULL */
    size_t err_size, info_size;  /* their sizes (the NUL included) */
    int err_size_at, info_size_at, wall_at; /* option slots written back, or -1 */
    int verbose;
    void **vals;                 /* the caller's values (NULL: no options) */
    uint64_t t0;
};
/* Reads n options; CUDA_ERROR_INVALID_VALUE for an unknown one or missing
 * arrays. The arrays must stay valid until emu_jit_done. */
CUresult emu_jit_options(unsigned n, const CUjit_option *opts, void *const *vals, struct emu_jit *j);
/* Writes the logs (err: the failure's reason or ""; info: written only if
 * CU_JIT_LOG_VERBOSE asked for it), the bytes written and the wall time
 * into the caller's buffers and slots. */
void emu_jit_done(struct emu_jit *j, const char *err, const char *info);

/* ---- arch.c: which binary of an image the device runs ---------------- */
struct emu_image;
/* An architecture: 10 * major + minor (90); variant 'a' (that one only),
 * 'f' (its family) or 0. */
struct emu_arch { int arch; char variant; };
/* The first .target of PTX text: 0, or -1 if it has none. */
int emu_ptx_target(const char *text, size_t len, struct emu_arch *out);
/* Whether PTX for a can be compiled for a device of compute capability cc. */
int emu_arch_runs_on(struct emu_arch a, int cc);
/* Picks the PTX text of img the device of compute capability cc runs
 * (img->chosen) and reads its kernels and variables. CUDA_SUCCESS (also
 * for an image with no kernels at all, chosen -1),
 * CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_PTX (PTX text for a
 * newer device), CUDA_ERROR_OUT_OF_MEMORY; err says why. */
CUresult emu_image_choose(struct emu_image *img, int cc, char *err, size_t errlen);
/* What a chosen image needs: the least compute capability of a device that
 * loads it (the lowest PTX .target, or the lowest machine code's sm_XY;
 * 0: any), and the PTX ISA version (.version, 10 * major + minor) of the
 * PTX chosen (0: none). */
void emu_image_needs(const struct emu_image *img, int *least_cc, int *ptx_isa);

/* ---- fault.c: the report of a failed kernel ---------------------------- */
enum emu_fault_status {
    EMU_FAULT_ADDRESS = 1, EMU_FAULT_MISALIGNED, EMU_FAULT_ASSERT, EMU_FAULT_TRAP, EMU_FAULT_STACK,
    EMU_FAULT_DEADLOCK, EMU_FAULT_SYNC, EMU_FAULT_TIMEOUT, EMU_FAULT_UNSUPPORTED, EMU_FAULT_NOMEM,
    EMU_FAULT_OTHER,
};
enum emu_access { EMU_ACCESS_NONE, EMU_ACCESS_READ, EMU_ACCESS_WRITE, EMU_ACCESS_ATOMIC };
/* What failed, as far as it is known; strings may be NULL or "", numbers 0. */
struct emu_fault {
    int status;                  /* enum emu_fault_status */
    CUresult result;             /* what the context's synchronising calls return */
    const char *kernel;          /* the entry, as the PTX names it (mangled) */
    const char *function;        /* the function holding the instruction */
    int has_thread;
    unsigned block[3], thread[3];
    int access;                  /* enum emu_access */
    const char *space;           /* "global", "shared", "local", "const", "param", "generic" */
    uint64_t addr;               /* host address; shared/local/param: window offset */
    unsigned size;               /* bytes accessed */
    int ptx_line;
    const char *opcode;          /* "st.global.u32" */
    const char *file;            /* from .loc line info */
    int line, column;
    const char *message;         /* the engine's one-line account */
    int device;                  /* the kernel's device's ordinal, -1: not known */
    unsigned depth;              /* a child grid's nesting depth (dynamic parallelism), 0: none */
    const char *parent;          /* then the kernel that launched it */
};
/* The report's text (lines ending in '\n'); its length. near: the
 * allocation the address lies in or near (emu_mem_nearest), or NULL. */
size_t emu_fault_format(const struct emu_fault *f, const struct emu_mem_near *near, char *buf, size_t len);
/* Formats f, with the allocation nearest to its address, into the sink. */
void emu_fault_report(const struct emu_fault *f);
/* The report of a host library's operation (what: "cublasSgemm") that
 * found bytes at addr no longer allocated when it ran (a graph replayed
 * after a cuMemFree), laid out as a kernel's invalid global access, with
 * the allocation nearest; device: -1 when not known. why not NULL: what
 * else the operation found wrong (a bad index), no address then. */
void emu_fault_report_host(const char *what, const char *why, uint64_t addr, size_t bytes, int device);
/* The sink of reports: fn(cookie, text, len) for each report; NULL (the
 * default) writes to the program's stderr. */
typedef void (*emu_report_fn)(void *cookie, const char *text, size_t len);
void emu_report_set_sink(emu_report_fn fn, void *cookie);
void emu_report(const char *text, size_t len);
/* the same, formatted (at most 511 bytes) */
void emu_reportf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A kernel ran (on a stream's worker), from t0 to t1 (emu_now_ns): told to
 * tdtrace's listener, if there is one. child: a grid a kernel launched
 * (dynamic parallelism), on op's stream, which no call queued (no
 * correlation) */
struct ptx_engine_report;
void emu_report_kernel(const char *kernel, const unsigned grid[3], const unsigned block[3], unsigned shared,
                       uint64_t t0, uint64_t t1, int result, const struct emu_op *op, int child,
                       const struct ptx_engine_report *er);

/* An image was loaded: the least compute capability that loads it and the
 * ISA of the PTX chosen (emu_image_needs), told to tdtrace's listener */
void emu_report_image(int least_cc, int ptx_isa);
/* a listener wants kernels' times */
int emu_listening(void);
/* A C++ name demangled into buf, or name itself (not mangled, or no
 * demangler in the process). */
const char *emu_demangle(const char *name, char *buf, size_t len);

/* ---- exporttable.c: the runtime's private tables ---------------------- */
/* Joins the context teardown (cuInit): a context's local storage goes, each
 * entry's destructor called. The integrity check itself is
 * src/common/exptab.c (shared with the shim). */
void emu_cls_init(void);

/* ---- event.c, module.c, link.c: join the context teardown (cuInit) --- */
void emu_event_init(void);
/* An event's creation flags and context (not referenced: for a check). */
CUresult emu_event_flags(CUevent h, struct emu_ctx **ctx, unsigned *flags);
/* Interprocess events (event.c) and their IPC handles (ipc.c): the counts
 * of records every process shares, in a memfd page. */
struct emu_ipc_sync {
    _Atomic uint64_t gen;  /* records made, by every process */
    _Atomic uint64_t done; /* the newest of them that has run */
};
#define EMU_IPC_SYNC_BYTES 4096
enum { EMU_IPC_MEMORY, EMU_IPC_EVENT, EMU_IPC_POOL };
/* The name of an exported memfd, which an importer checks: a random
 * number names each export. */
static inline void emu_ipc_name(char *b, size_t len, int what, uint64_t nonce)
{
    snprintf(b, len, "tdtrace-ipc%s-%016llx", what == EMU_IPC_EVENT ? "e" : what == EMU_IPC_POOL ? "p" : "",
             (unsigned long long)nonce);
}
/* An interprocess event's memfd and number, for its handle
 * (CUDA_ERROR_INVALID_VALUE: not interprocess, or imported). */
CUresult emu_event_ipc_export(CUevent h, int *fd, uint64_t *nonce);
/* A new event of c on another process's shared counts (mapped; the event
 * unmaps them when it goes). */
CUresult emu_event_ipc_import(struct emu_ctx *c, struct emu_ipc_sync *sh, CUevent *out);
void emu_module_init(void);
void emu_link_init(void);

/* ---- launchattr.c: the attributes of a launch -------------------------- */
/* The value of attribute id checked as the driver checks it, for the
 * attributes a stream shares with a launch (else CUDA_ERROR_INVALID_VALUE). */
CUresult emu_attr_value_check(const struct emu_device *d, int id, const CUlaunchAttributeValue *v);
/* A launch's cluster as the caller asks for it: the dimensions of
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (given: the attribute was there),
 * and whether the function allows non-portable sizes. */
#define EMU_CLUSTER_MAX_PORTABLE 8
#define EMU_CLUSTER_MAX_NONPORTABLE 16
struct emu_cluster {
    int given;
    unsigned dim[3];
    int non_portable;
};
/* The cluster a launch of kernel `name` runs with, into dims: cl's, else
 * the kernel's required one (req, .reqnctapercluster; zeros: none), else
 * one block; checked as the driver checks it (a size the device launches,
 * at most 8 blocks, 16 where non-portable sizes are allowed, dividing the
 * grid, equal to the required one where both are given):
 * CUDA_ERROR_INVALID_CLUSTER_SIZE with a report saying why. cl may be NULL. */
CUresult emu_cluster_resolve(const struct emu_device *d, const char *name, const struct emu_cluster *cl,
                             const unsigned req[3], const unsigned grid[3], unsigned dims[3]);
#define EMU_LAUNCH_EVENTS 2
struct emu_launch_attrs {
    int cooperative;                    /* CU_LAUNCH_ATTRIBUTE_COOPERATIVE */
    struct emu_cluster cluster;         /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (non_portable unset) */
    int nevents;
    CUevent events[EMU_LAUNCH_EVENTS];  /* recorded after the kernel */
};
/* Checks cfg's attributes for a launch in c, with what is done after it. */
CUresult emu_launch_attrs(const CUlaunchConfig *cfg, struct emu_ctx *c, struct emu_launch_attrs *out);
/* After the launch was queued on hs: the events it records. */
CUresult emu_launch_attrs_after(const struct emu_launch_attrs *a, CUstream hs, int ptds);

/* ---- launch.c: kernels on the PTX engine (src/ptx) ------------------- */
struct emu_image;
struct emu_ptxmod;                /* a parsed PTX text, shared by reference */
struct emu_ptxglob;               /* a module's PTX globals: addresses */
/* Parses the PTX text the image runs (img->chosen; none: a module with
 * nothing to run). CUDA_ERROR_INVALID_PTX, with the reason and line in err,
 * if the engine cannot read it. */
CUresult emu_ptx_load(const struct emu_image *img, struct emu_ptxmod **out, char *err, size_t errlen);
/* The required cluster size of kernel `name` (zeros: none) into dims; 1
 * if it has one or must be launched with one (.explicitcluster). */
int emu_ptx_cluster(const struct emu_ptxmod *px, const char *name, unsigned dims[3]);
/* The static shared memory of kernel `name` (bytes; 0 if unknown). */
unsigned emu_ptx_static_shared(const struct emu_ptxmod *px, const char *name);
void emu_ptx_ref(struct emu_ptxmod *px);
void emu_ptx_put(struct emu_ptxmod *px);
/* Addresses of the PTX globals for a module of ctx c: the image's globals
 * (img_globals, by image index) by name, initialised from the PTX, except
 * those whose image index has shared[k] set (a library's __managed__
 * variables, initialised once: emu_ptx_init_shared; shared may be NULL). */
CUresult emu_ptx_bind(struct emu_ptxmod *px, const struct emu_image *img, const uintptr_t *img_globals,
                      const unsigned char *shared, struct emu_ctx *c, struct emu_ptxglob **out);
/* Initialises from the PTX the image's globals at addr[k] (by image index;
 * 0: not these). An initialiser that holds the address of another global
 * gets that global's address in addr, or 0. */
void emu_ptx_init_shared(struct emu_ptxmod *px, const struct emu_image *img, const uintptr_t *addr);
void emu_ptx_unbind(struct emu_ptxglob *g);
/* The launch of kernel `name` in context c as an operation not queued yet
 * (validated launch). holder: the module, kept alive until the kernel ran. */
CUresult emu_launch_op(struct emu_ctx *c, struct emu_ptxmod *px, struct emu_obj *holder,
                       struct emu_ptxglob *pg, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void **params, void **extra,
                       const struct emu_cluster *cl, struct emu_op **out);
/* A kernel of an executable graph: its cudaGraphSetConditional calls go to set(cookie, ...) */
void emu_launch_cond(struct emu_op *op, int (*set)(void *cookie, uint64_t handle, unsigned value), void *cookie);
/* Queues kernel `name` on s (validated launch). holder: the module, kept
 * alive until the kernel ran. coop: a cooperative launch (every block
 * resident at once, a grid barrier word in %envreg1:%envreg2; the caller
 * checked that the grid fits). */
CUresult emu_launch_submit(struct emu_stream *s, struct emu_ptxmod *px, struct emu_obj *holder,
                           struct emu_ptxglob *pg, const char *name, const unsigned grid[3],
                           const unsigned block[3], unsigned shmem, void **params, void **extra, int coop,
                           const struct emu_cluster *cl);
/* ---- module.c: kernels of graphs ------------------------------------- */
/* A launch's arguments copied into one block laid out as the kernel's
 * parameter buffer (graph kernel nodes keep them so). */
struct emu_kargs {
    int n;                        /* parameters */
    size_t bytes;                 /* the buffer's size */
    unsigned char *buf;
    unsigned *off;                /* off[i]: parameter i's offset in buf */
    void **ptrs;                  /* ptrs[i] = buf + off[i] */
};
/* Checks the arguments of a launch of f (a CUfunction, or a CUkernel as
 * the runtime passes it) as cuLaunchKernel does, and copies them. */
CUresult emu_kargs_pack(CUfunction f, void **params, void **extra, struct emu_kargs *out);
/* A kernel node's launch of f in context c (f's own for a CUfunction):
 * dimensions, shared memory and arguments checked, the arguments copied. */
CUresult emu_kernel_node_args(CUfunction f, struct emu_ctx *c, const unsigned grid[3], const unsigned block[3],
                              unsigned shmem, void **params, void **extra, struct emu_kargs *out);
/* graph.c */
CUresult emu_kargs_copy(const struct emu_kargs *src, struct emu_kargs *dst);
void emu_kargs_free(struct emu_kargs *a);
/* The launch of f in context c (for a CUfunction: its module's) as an
 * operation not queued yet, checked as cuLaunchKernel checks it. */
/* cuLaunchKernel's work for f on stream hs (ptds: the per-thread default
 * stream), cooperative with coop (launchcoop.c checks the grid first). */
/* cl: the launch's cluster attribute (NULL: none). */
CUresult emu_launch_fn(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shmem,
                       CUstream hs, void **params, void **extra, int ptds, int coop, const struct emu_cluster *cl);
/* (graph kernel nodes; cl: the node's cluster attribute, NULL: none) */
CUresult emu_kernel_op(CUfunction f, struct emu_ctx *c, const unsigned grid[3], const unsigned block[3],
                       unsigned shmem, void **params, const struct emu_cluster *cl, struct emu_op **out);

/* ---- copy.c, event.c, memory.c: graph nodes' work --------------------- */
/* A 3-D copy between host, device and unified memory and CUDA arrays,
 * checked, as an operation not queued yet (NULL: nothing to copy). */
CUresult emu_copy3d_op(const CUDA_MEMCPY3D *p, struct emu_op **out);
/* Checks a 3-D copy's description without making it. */
CUresult emu_copy3d_check(const CUDA_MEMCPY3D *p);
/* A memset of width elements of elem bytes by height rows of pitch
 * bytes, checked, as an operation not queued yet. */
CUresult emu_memset_op(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t width,
                       size_t height, struct emu_op **out);
/* Records event e (an EMU_T_EVENT object) on s, as cuEventRecord. */
CUresult emu_event_record_on(struct emu_obj *e, struct emu_stream *s);
/* Makes s wait for event e's latest record, as cuStreamWaitEvent. */
CUresult emu_event_wait_on(struct emu_stream *s, struct emu_obj *e);
/* Enters [base, base + size), memory the caller owns, as a device
 * allocation of c: kernels and copies may use it until cuMemFree,
 * cuMemFreeAsync or emu_mem_release takes it out of the map, which calls
 * gone(cookie, 0); gone(cookie, 1) follows once no operation holds it
 * (the memory must stay until then). */
/* The same as an allocation of pool (referenced and counted in it; NULL:
 * none). */
CUresult emu_mem_adopt_pool(struct emu_ctx *c, uintptr_t base, size_t size, int kind, struct emu_pool *pool,
                            void (*gone)(void *cookie, int final), void *cookie);
CUresult emu_mem_adopt(struct emu_ctx *c, uintptr_t base, size_t size, int kind,
                       void (*gone)(void *cookie, int final), void *cookie);
/* (memop.c) Stream memory operations, the one home of their rules: n
 * operations checked as the driver checks them (v2: the _v2 entry points'
 * rules, which allow the barrier; graph: memory a graph allocation node
 * provides counts, and is checked again when the operation runs); and one
 * stream operation that runs them in order (ctx referenced by it). */
CUresult emu_memop_check(struct emu_device *d, const CUstreamBatchMemOpParams *ops, unsigned n, int v2, int graph);
CUresult emu_memop_make(struct emu_ctx *ctx, const CUstreamBatchMemOpParams *ops, unsigned n, int v2, int graph,
                        struct emu_op **out);
/* (graphmem.c) A free of p was queued or done: if p is a graph
 * allocation, a later launch of its graph may allocate it again. */
void emu_gmem_note_free(uintptr_t p);
/* (graphmem.c) The graph allocation whose reserved range holds
 * [p, p + len), referenced, or NULL: work may name it before its
 * allocation node has run (it runs in stream order before the work). */
struct gmem;
struct gmem *emu_gmem_covering(uintptr_t p, size_t len);
/* (graphmem.c) Whether p is the address of a graph allocation. */
int emu_gmem_is(uintptr_t p);
void emu_gmem_put(struct gmem *m);
/* ---- array.c: CUDA arrays and mipmapped arrays ------------------------ */
struct emu_array_info {
    uintptr_t mem;               /* the array's device allocation (x fastest, rows, slices) */
    size_t bytes, esz;           /* its size; bytes of an element */
    size_t width, height, depth; /* elements, rows, 2-D slices (layers, faces); 1 where absent */
    size_t layers;               /* layered or cubemap: slices; else 1 */
    size_t pitch, slice;         /* bytes of a row, of a slice */
    int fmt, dims, layered, cubemap;  /* CUarray_format; 1, 2, 3 */
    unsigned nch, flags;
    CUDA_ARRAY3D_DESCRIPTOR desc;     /* as created */
};
/* bytes of one channel of a CUarray_format, 0 for one the emulator lacks */
unsigned emu_format_bytes(int fmt);
/* a snapshot of array h, or CUDA_ERROR_INVALID_HANDLE */
CUresult emu_array_info(CUarray h, struct emu_array_info *out);
/* level of mipmapped array h (and its level count), or
 * CUDA_ERROR_INVALID_HANDLE / CUDA_ERROR_INVALID_VALUE */
CUresult emu_mipmap_level(CUmipmappedArray h, unsigned level, CUarray *out, unsigned *nlevels);

#endif
