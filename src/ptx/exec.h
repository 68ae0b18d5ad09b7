/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's internal interface, shared by its files and nothing else:
 * exec_launch.c (launches: the plan, blocks over host threads), exec.c
 * (the SIMT model: warps, groups, barriers, calls), exec_fault.c
 * (failures), exec_arith.c (arithmetic, comparisons, bit operations),
 * exec_cvt.c (conversions), exec_int.c (carry chains, integer extras,
 * video instructions), exec_mem.c (state spaces, loads, stores, atomics,
 * async copies, mbarriers), exec_warp.c (warp-level instructions) and
 * exec_mma.c (matrix instructions). Each family's *_select picks an
 * instruction's handler once per module.
 *
 * Registers are laid out slot-major, 32 lanes per slot: the value of slot
 * s in lane l of a warp is R[s * 32 + l], R the base of the function the
 * instruction belongs to.
 *
 * The SIMT model. Each lane has its own pc (lpc) and call stack. A warp
 * runs one group at a time: the lanes that are at the same pc, not exited
 * and not waiting; its pc is w->pc (lpc of the group's lanes is written back
 * when the group changes). The group with the lowest pc runs first, so
 * structured code reconverges where the compiler joins the paths; a group
 * that keeps taking backward branches while others of its warp could run
 * hands over to them now and then (independent thread scheduling: spin
 * locks within a warp complete). Warps of a block take turns: a warp runs
 * until it waits or has run its slice. Lanes wait (w->wait) at block
 * barriers (bar, barrier) or at warp-synchronous instructions until all
 * lanes they name have arrived; when no lane of a block can go on, the
 * launch fails with PTX_E_DEADLOCK naming the barrier. */
#ifndef TD_PTX_EXEC_H
#define TD_PTX_EXEC_H

#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ir.h"

#define NCACHE 4
#define PC_NONE 0x7fffffff
#define NBARS 16                 /* barriers per block */
#define SPIN_TURN 32             /* backward branches before another group's turn */
#define SLICE 65536              /* thread-instructions of a warp's turn */
#define COOP_MAX_BLOCKS 8192     /* blocks a cooperative launch keeps resident */
#define STACK_DEFAULT 16384      /* per-thread stack for reentrant calls */
#define DEPTH_REENTRANT 1024     /* call frames per thread when calls can recurse */

struct blk;
struct warp;
/* one instruction over the lanes m of warp w, R its function's registers:
 * 0, or -1 after ex_fail */
typedef int (*ex_fn)(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);

struct plan {                    /* per launch */
    const struct ptx_module *m;
    const struct ptx_launch *l;
    const ex_fn *h;              /* by instruction: its handler, NULL for control */
    const struct jit_kernel *jit; /* the compiled kernel that runs the blocks, or NULL */
    int entry;
    int *slotbase;               /* by function: first slot in a warp's file, or -1 */
    unsigned *localbase, *fparambase;
    int nslots;
    unsigned lstatic;            /* per-thread static .local bytes */
    unsigned lstride, fstride;   /* per-thread .local (static + stack) and call .param bytes */
    int maxdepth;                /* call frames per thread */
    unsigned scratch;            /* bytes of results a reentrant return keeps aside */
    int reentrant;               /* a reachable function can be active twice */
    unsigned static_shared, shsize;
    unsigned nthreads, nwarps;
    uint64_t nblocks;
    unsigned cdim[3], csize;     /* blocks per cluster: by dimension, in all (1: no clusters) */
    uint64_t nclusters;          /* blocks are numbered cluster by cluster: block k is rank
                                    k % csize of cluster k / csize */
    atomic_ullong next_block;    /* the next cluster to run (non-cooperative launches) */
    uint64_t grab;               /* how many clusters a host thread takes at a time */
    atomic_ullong ins;           /* thread-instructions of the launch so far */
    int jvec;                    /* the JIT runs warps as vectors (jit.warp, and not
                                    TDTRACE_EMU_JIT_VECTOR=0) */
    int jred;                    /* the JIT's kernel has bar.red (jit_bar_red) */
    int jonebar;                 /* the JIT's kernel's barriers all have one number: threads
                                    waiting at any of them cannot deadlock */
    atomic_int stop;
    double deadline;             /* CLOCK_MONOTONIC seconds, 0: none */
    pthread_mutex_t lock;
    enum ptx_status status;
    char *err;
    size_t errlen;
    struct ptx_devrt *dr;        /* devrt.c: the host launch's device runtime, made on first use */
    int dr_own;                  /* made by this (the host launch's) grid */
    struct ex_grid *gq;          /* devrt.c: this grid's parameter buffers and queued work */
};

/* a call frame of one lane */
struct frame {
    int32_t ret_pc;              /* the call's pc + 1 */
    int32_t call;                /* the ir_call */
    int32_t callee;              /* the function called */
    uint32_t sp;                 /* reentrant callee: the lane's stack before its save */
};

struct warp {
    uint64_t *R0;                /* this warp's register file */
    uint32_t live;               /* lanes not exited */
    uint32_t active;             /* the running group, all at pc */
    uint32_t wait;               /* lanes waiting (barrier or warp rendezvous) */
    uint32_t barw;               /* those at a block barrier */
    uint32_t cc;                 /* carry flag, a bit per lane */
    int pc, merge_pc;            /* merge_pc: the next pc where runnable lanes wait */
    int spin;                    /* backward branches of the group while others could run */
    int id;
    int counted;                 /* arrival at a barrier counted: its id, else -1 */
    int lpc[32];
    uint32_t wsmask[32];         /* warp rendezvous: the member mask each lane named */
    uint8_t lbar[32];            /* block barrier: its id, for each waiting lane */
    int depth[32];
};

struct cbar {                    /* a block barrier */
    uint32_t warps;              /* warps whose arrival counted */
    uint32_t waiting;            /* of those, the ones waiting for completion */
    uint32_t threads;            /* threads counted (a warp counts 32) */
    uint32_t expect;             /* thread count given, 0: all */
    int popc, rand, ror;         /* bar.red */
    int line;                    /* an instruction of it, for messages */
};

struct blk {                     /* one host thread's block state */
    struct plan *P;
    unsigned char *shared, *local, *fparam;
    struct warp *warps;
    uint64_t *regs;
    struct frame *frames;        /* nthreads * maxdepth */
    uint32_t *sp;                /* per thread: stack top in its .local window */
    unsigned char *scratch;      /* P->scratch bytes */
    uint64_t sink[32];
    uint64_t clo[NCACHE], chi[NCACHE];
    int cnext;
    unsigned ctaid[3];
    struct blk *cbase;           /* the blocks of this one's cluster, by rank (csize of them) */
    unsigned crank;              /* this block's rank in its cluster */
    uint32_t *cphase;            /* per thread: 1 + the phase of barrier.cluster it arrived
                                    at, 0: not arrived (exec_cluster.c) */
    unsigned cb_arrived, cb_phase; /* rank 0 of a cluster: barrier.cluster's count and phase */
    uint64_t cwait;              /* thread-instructions spent at barrier.cluster.wait, waiting */
    uint64_t icount, icount_seen;
    int yield;                   /* the running warp should give way (nanosleep, try_wait) */
    enum ptx_status st;
    struct cbar bars[NBARS];
    uint32_t alive;              /* warps with live lanes */
    uint32_t *lasterr;           /* per thread: the device runtime's last error (devrt.c) */
    void *jthr;                  /* jit_run.c: the JIT's table of the threads (struct
                                    jit_thr), made at the launch's first block */
    void *jgc;                   /* jit_run.c: the allocation each global access of the
                                    code last found (struct jit_gc), for the launch */
    uint32_t *jtid;              /* jit_run.c: by warp, its lanes' %tid.x, .y and .z (32
                                    each), made at the launch's first block */
    uint64_t jvruns, jvlanes;    /* jit_run.c, jit_warp.c: calls of the warp's function;
                                    lanes it handed to the thread's (ptx_engine_report) */
    uint64_t jlcalls;            /* jit_run.c: calls of the interpreter's per-lane handlers
                                    from the compiled code (ptx_engine_report) */
    /* exec_tex.c: texture and surface objects resolved in this launch (a
     * launch's memory stays mapped until it ends), by handle */
    struct ex_texc { uint64_t h; int kind; struct ptx_tex t; } texc[4]; /* kind: 0 empty, 1 + surface */
};

/* Where a failure happened: the thread (w and lane), the instruction, and
 * for memory faults the access. */
struct ex_site {
    const struct warp *w;        /* NULL: no one thread */
    int lane;
    const struct ir_ins *in;     /* NULL: no one instruction */
    enum ptx_access access;
    int space;                   /* SP_* */
    uint64_t addr;
    unsigned size;
    int plain;                   /* the message as given, without where */
};

/* exec_fault.c: fails the launch (the first failure wins): the message, then
 * where (PTX line, source line, block and thread) when at says; at also
 * fills ptx_launch.fault */
void ex_failv(struct blk *b, const struct ex_site *at, enum ptx_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ex_fail(b, st, ...) ex_failv((b), NULL, (st), __VA_ARGS__)
/* the failure at instruction in, in lane of w */
#define ex_fail_at(b, w, lane, in, st, ...) \
    ex_failv((b), &(struct ex_site){ (w), (lane), (in), PTX_ACCESS_NONE, 0, 0, 0, 0 }, (st), __VA_ARGS__)
const char *ex_space_name(int sp);
/* the thread index (x, y, z) of lane of w */
void ex_thread_of(const struct plan *P, const struct warp *w, int lane, unsigned t[3]);
/* the spelling of an instruction */
const char *ex_name(const struct blk *b, const struct ir_ins *in);

/* exec.c: the SIMT model */
enum { W_YIELD, W_ERR };
/* runs the warp's runnable lanes until they wait, exit or their slice ends */
int ex_warp_run(struct blk *b, struct warp *w);
/* the runnable group with the lowest pc becomes the running one */
void ex_reschedule(struct warp *w);
/* budget, time limit, another block's failure: 0 to go on */
int ex_check_limits(struct blk *b, struct warp *w, const struct ir_ins *in);
/* no lane of the block can go on: fails the launch saying where each waits */
void ex_deadlock(struct blk *b);
double ex_now(void);             /* CLOCK_MONOTONIC seconds */

/* Each family: the handler of an instruction (a specialised one where it
 * pays), and the general one. */
ex_fn ex_int_select(const struct ir_ins *in);     /* first: it takes add.cc from arith */
ex_fn ex_arith_select(const struct ir_ins *in);
ex_fn ex_mem_select(const struct ir_ins *in);
ex_fn ex_warp_select(const struct ir_ins *in);
ex_fn ex_mma_select(const struct ptx_module *m, const struct ir_ins *in);
/* exec_tex.c, reached through ex_mem_select: textures and surfaces */
ex_fn ex_tex_select(const struct ir_ins *in);
/* exec_cluster.c: mapa and barrier.cluster */
ex_fn ex_cluster_select(const struct ir_ins *in);

/* Distributed shared memory. A .shared::cluster address is a block's own
 * shared address (below 2^24: no block has that much), or rank + 1 in the
 * bits from 24 up and the offset in that block's window below (what mapa
 * gives; PTX_CLUSTER_SHIFT, ptx.h). Generic addresses of other blocks' shared memory are the host
 * addresses of their windows, as the block's own are. The host pointer of
 * an access of n bytes, or NULL outside the cluster or the window. */
#define CLUSTER_SHIFT PTX_CLUSTER_SHIFT
static inline unsigned char *ex_cluster_ptr(const struct blk *b, uint64_t a, unsigned n)
{
    const struct plan *P = b->P;
    uint64_t hi = a >> CLUSTER_SHIFT, off = a & ((1ull << CLUSTER_SHIFT) - 1);
    const struct blk *t = hi == 0 ? b : hi <= P->csize && b->cbase ? &b->cbase[hi - 1] : NULL;
    return t && off + n <= P->shsize ? t->shared + off : NULL;
}
/* the block of b's cluster whose shared window holds generic [a, a+n), or NULL */
static inline const struct blk *ex_cluster_gen(const struct blk *b, uint64_t a, unsigned n)
{
    const struct plan *P = b->P;
    for (unsigned r = 0; b->cbase && r < P->csize; r++) {
        uintptr_t sh = (uintptr_t)b->cbase[r].shared;
        if (a >= sh && a + n <= sh + P->shsize && a + n >= a) return &b->cbase[r];
    }
    return NULL;
}

/* exec_warp.c: the warp-synchronous instruction of lanes P of w, each at
 * its own instruction w->lpc[l] (all of one kind and member mask M):
 * reads their sources, writes their results. 0, or -1 after ex_fail. */
int ex_warp_sync(struct blk *b, struct warp *w, uint32_t P, uint32_t M);
/* the same for lanes m of w all at in, whose member mask is m (the JIT's
 * warp's function, jit_vec.c): an ex_fn */
int ex_warp_group(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);
/* exec.c: a direct call of a library builtin (vprintf, __assertfail, malloc,
 * free, cudaGraphSetConditional: ir_builtins' B_LIB) by lanes m, in lane
 * order, its arguments and results in their .param space, as a call by the
 * interpreter's group (the JIT's, jit_warp.c and jit_vec.c): an ex_fn */
int ex_call_lib(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);
/* exec.c, the warp rendezvous (also the JIT's, jit_warp.c): the checks of
 * lanes m arriving at warp-synchronous in (a lane outside its own member
 * mask, bar.warp.sync naming exited lanes): 0, or -1 after failing; then
 * every rendezvous of w whose lanes (wait & ~barw, at lpc, with wsmask) have
 * all come completes (their lpc moves past it, their wait bit clears):
 * 0, or -1 after failing */
int ex_wsync_arrive(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, const uint64_t *R);
int ex_wsync_settle(struct blk *b, struct warp *w);
/* the registers of lane l's function at instruction in */
static inline uint64_t *ex_regs(const struct blk *b, const struct warp *w, const struct ir_ins *in)
{
    return w->R0 + (size_t)b->P->slotbase[in->fn] * 32;
}

/* exec_mem.c: device memory readable at addr (for printf's %s and
 * arguments): the bytes readable from there, 0 if none */
size_t ex_read_dev(void *blk, uint64_t addr, const unsigned char **p);
/* the host pointer of an access of n bytes by lane tid, or NULL */
unsigned char *ex_addr(struct blk *b, int space, uint64_t a, unsigned n, unsigned tid);
/* complete_tx of n bytes by lane l on the mbarrier at shared address ma:
 * 0, or -1 with the launch failed (a bad address, the tx-count out of range) */
int ex_mbar_tx(struct blk *b, struct warp *w, int l, const struct ir_ins *in, uint64_t ma, uint32_t n);
/* the same on the mbarrier at q (ma its address, for the fault when q is NULL) */
int ex_mbar_tx_at(struct blk *b, struct warp *w, int l, const struct ir_ins *in, uint64_t *q, uint64_t ma, uint32_t n);
/* exec_tensor.c: cp.async.bulk.tensor */
ex_fn ex_tensor_select(const struct ir_ins *in);
/* a memory fault of lane l */
void ex_mem_fault(struct blk *b, const struct warp *w, int lane, const struct ir_ins *in, uint64_t a,
                  unsigned n, int misaligned);

#define LANES(m) for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1)
#define L (__builtin_ctz(mm_))

/* thread t's %tid on axis 0 (x), 1 (y) or 2 (z) in a block of dimensions block */
static inline unsigned ex_tid_axis(const unsigned block[3], unsigned t, int axis)
{
    return axis == 0 ? t % block[0] : axis == 1 ? t / block[0] % block[1] : t / (block[0] * block[1]);
}

static inline unsigned popc32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* ---- values ----------------------------------------------------------- */
static inline float F32(uint64_t v) { float f; uint32_t u = (uint32_t)v; memcpy(&f, &u, 4); return f; }
static inline double F64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t UF32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t UF64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline uint64_t NF32(float f) { return f != f ? 0x7fffffffu : UF32(f); }    /* canonical NaN */
static inline uint64_t NF64(double d) { return d != d ? 0x7fffffffffffffffull : UF64(d); }

static inline uint64_t mask_of(unsigned size) { return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1; }
static inline int64_t sext(uint64_t v, unsigned size)
{
    switch (size) {
    case 1: return (int8_t)v;
    case 2: return (int16_t)v;
    case 4: return (int32_t)v;
    default: return (int64_t)v;
    }
}

/* the value an integer atom/red of n bytes (signed if sg) leaves for old
 * value o and operand v: add min max inc dec and or xor exch, as the PTX ISA
 * defines them (the one home of these rules: atom/red, cp.reduce) */
static inline uint64_t ex_atom_int(int op, int sg, unsigned n, uint64_t o, uint64_t v)
{
    uint64_t m = mask_of(n);
    o &= m, v &= m;
    int64_t so = sext(o, n), sv = sext(v, n);
    switch (op) {
    case AT_ADD: return (o + v) & m;
    case AT_MIN: return (sg ? sv < so : v < o) ? v : o;
    case AT_MAX: return (sg ? sv > so : v > o) ? v : o;
    case AT_INC: return o >= v ? 0 : o + 1;
    case AT_DEC: return (o == 0 || o > v) ? v : o - 1;
    case AT_AND: return o & v;
    case AT_OR: return o | v;
    case AT_XOR: return o ^ v;
    default: return v; /* AT_EXCH */
    }
}
static inline float ftz32(float f) { return fabsf(f) < 1.17549435e-38f ? copysignf(0.0f, f) : f; }
/* .sat: clamp to [0, 1], NaN to 0 */
static inline float sat32(float q) { return q != q ? 0.0f : q < 0 ? 0.0f : q > 1 ? 1.0f : q; }

/* membar/fence: a full fence. TSan cannot see fences (GCC refuses them
 * under -fsanitize=thread): there, a sequentially consistent
 * read-modify-write of one shared word, which it models */
static inline void ex_fence(void)
{
#if defined(__SANITIZE_THREAD__)
    static _Atomic unsigned fence_word;
    atomic_fetch_add_explicit(&fence_word, 0, memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* rounding modes as fenv's; directed ones */
static inline int fe_mode(int rnd)
{
    switch (rnd) {
    case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
    case RND_RM: case RND_RMI: return FE_DOWNWARD;
    case RND_RP: case RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}
static inline int directed(int rnd) { return rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP; }
/* half-width float type to float and back */
static inline float h2f(uint64_t v, int t) { return t == T_BF16 || t == T_BF16X2 ? ptx_bf16_to_f32((uint16_t)v) : ptx_f16_to_f32((uint16_t)v); }
static inline uint64_t f2h(float f, int t, int rnd) { return t == T_BF16 || t == T_BF16X2 ? ptx_f32_to_bf16(f, rnd) : ptx_f32_to_f16(f, rnd); }

/* devrt.c: the device runtime (dynamic parallelism). A call of builtin id
 * (B_DEVRT or B_NOTSUP) by lane l of w, its call .param at fp: 0, or -1
 * after ex_fail. */
int ex_devrt_call(struct blk *b, struct warp *w, int l, const struct ir_ins *in, const struct ir_call *c, int id,
                  unsigned char *fp);
/* work a grid queued: a child grid, or a device-side copy or set */
enum { EW_NONE, EW_LAUNCH, EW_COPY, EW_SET };
struct ex_work {
    int kind, tail;              /* tail: in cudaStreamTailLaunch */
    int entry;                   /* EW_LAUNCH: the kernel, its configuration and parameters (malloc'd) */
    unsigned grid[3], block[3], shmem;
    unsigned char *params;
    unsigned pbytes;
    uint64_t dst, src, n;        /* EW_COPY, EW_SET (val): n bytes in each of height rows, */
    uint64_t dpitch, spitch, height; /* the rows dpitch and spitch bytes apart */
    int val;
};
/* the bytes from the first to the end of the last row of height rows of n
 * bytes, pitch apart (pitch >= n): 0 when it does not fit in 64 bits */
static inline uint64_t ex_span2d(uint64_t n, uint64_t pitch, uint64_t height)
{
    if (!height || !n) return 0;
    if (pitch && height - 1 > (UINT64_MAX - n) / pitch) return 0;
    return pitch * (height - 1) + n;
}
/* once the grid's blocks are done: its next work in order into wk (the
 * caller frees wk->params), 1; 0 when there is none */
int ex_devrt_next(struct plan *P, struct ex_work *wk);
/* the grid's end: frees what is left (and the host launch's state) */
void ex_devrt_end(struct plan *P);

/* exec_cvt.c: cvt of one lane (b: the second source of two-source forms) */
uint64_t ex_cvt(const struct ir_ins *in, uint64_t a, uint64_t b);

#endif
