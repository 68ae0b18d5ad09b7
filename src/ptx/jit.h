/* SPDX-License-Identifier: Apache-2.0 */
/* The compiling executor (docs/ptx-jit.md), shared by its files and
 * exec_launch.c and nothing else: jit_llvm.c loads libLLVM-16 at run time
 * (the functions of llvm.def), jit_subset.c says which instructions it
 * compiles and how, jit.c turns an entry of the checked form into LLVM IR
 * and native code, jit_run.c picks the engine of a launch and
 * runs a block's threads through the compiled code.
 *
 * The model. A kernel compiles to one function per thread: its 32-lane
 * warps are not vectors here, each thread runs alone from where it last
 * stopped until it exits or reaches a block barrier (bar.sync), then the
 * next thread of the block runs. When every thread that has not exited
 * waits at the same barrier, the round ends and each resumes after it.
 * Divergence needs nothing: a thread follows its own branches. The
 * warp-synchronous instructions (shfl.sync, vote.sync, match, redux, elect,
 * bar.warp.sync) and the matrix instructions (mma, wmma, ldmatrix,
 * stmatrix, movmatrix) are resume points too, completed by the
 * interpreter's own code (jit_warp.c), and so are volatile and strong
 * loads and stores of memory other threads reach: the thread stops before
 * one, and the lanes there run it together once its warp's lanes stopped,
 * so lanes of a warp see each other's accesses in lockstep order and a
 * thread spinning on a flag lets the others run; activemask and the calls
 * of the library builtins (printf, assert, malloc, free) too. bar.red
 * stops as bar.sync does; the runner writes its reduction (jit_bar_red).
 * What works on the lanes running together at every instruction
 * (non-.sync shfl/vote) is not compiled: such kernels run on the
 * interpreter. */
#ifndef TD_PTX_JIT_H
#define TD_PTX_JIT_H

#include "exec.h"

/* what the compiled code reads and writes besides registers; the offsets
 * of these fields are baked into the code (jit.c uses offsetof) */
struct jit_ctx {
    struct jit_gc { uint64_t lo, span; } *gc; /* by global or generic access of the
                                    code: the allocation it last found, [lo, lo + span) */
    unsigned char *shared;       /* the block's shared window, shsize bytes */
    uint64_t shsize;
    unsigned char *local;        /* this thread's .local window, lsize bytes */
    uint64_t lsize;
    const unsigned char *params; /* the kernel's parameter buffer */
    uint64_t pbytes;
    uint64_t icount;             /* thread-instructions run (added to by the code) */
    struct blk *b;
    struct warp *w;
    uint64_t *Rw;                /* w's registers of the entry (lane 0) */
    int lane;                    /* lane, tid and local: the thread the thread's function
                                    runs (jit_ctx_thread; the warp's function reads none) */
    unsigned tid;
    uint32_t ctaid[3];           /* the block's %ctaid (the code reads it here; the other
                                    special registers do not change from block to block:
                                    the register file has them from the worker's start) */
    int32_t lres[32];            /* by lane: where it resumes after the warp's function
                                    returned JIT_VEC_SPLIT (jit_vec_handed) */
    uint32_t xmask;              /* the lanes a per-lane handler runs for (jit_helpers.exec)
                                    when the warp's function calls it; 0: c->lane */
    const uint32_t *tids;        /* the warp's lanes' %tid.x, .y, .z, 32 of each (blk.jtid):
                                    the warp's function reads them here, packed */
};

/* the compiled thread: registers R (slot s of this lane at R[s * 32]),
 * resume 0 at the start or k + 1 after resume point k (a barrier, or a
 * warp rendezvous: barid JIT_WSTOP); returns 0 when the thread exited,
 * k + 1 when it waits at resume point k, -1 after a failure (reported with
 * ex_fail) */
typedef int32_t (*jit_fn)(uint64_t *R, struct jit_ctx *c, int32_t resume);

/* the warp's function (jit_vec.c): the lanes mask of a warp, all at one
 * resume point (0, or k + 1 after resume point k), run together as
 * vectors, registers R (the warp's, lane 0: slot s of lane l at
 * R[s * 32 + l]); returns 0 when they all exited, k + 1 when they all wait
 * at barrier k, -1 after a failure, or nbars + 1 + j when they left the
 * vector form before entry j (a branch that diverges, an access outside
 * the windows it checks, a per-lane instruction, ...): each lane then runs
 * the thread's function with entries (jit_kernel.tail) from resume
 * nbars + 1 + j, with its registers in R as the warp left them; or
 * JIT_VEC_SPLIT when they left it inside a divergent branch's region run
 * with masks: then each lane from its own entry, c->lres[lane] (the lanes
 * of the region's path before the instruction, the others where their path
 * goes on: the else part, the join) */
#define JIT_VEC_SPLIT INT32_MAX
typedef int32_t (*jit_warp_fn)(uint64_t *R, struct jit_ctx *c, int32_t resume, uint32_t mask);

/* after the warp's function handed the lanes mask on (R its registers as
 * above): each uniform register's value on the lowest lane of mask to the
 * others (a barrier's stop stores it to that lane only: jit_vec.c's
 * spill_live), before the thread's function reads each lane's */
typedef void (*jit_ubc_fn)(uint64_t *R, uint32_t mask);

/* a thread of the block as the round function sees it (jit_block fills a
 * table of them once per block; the offsets are baked into the code) */
struct jit_thr {
    uint64_t *R;                 /* its registers: slot s at R[s * 32] */
    unsigned char *local;        /* its .local window */
    struct warp *w;
    uint64_t *Rw;                /* w's registers of the entry (lane 0) */
    int lane;
    unsigned tid;
};

/* one round of a block, compiled with the thread's code inlined: each
 * thread t < nth with !done[t] runs from resume[t] (c's per-thread fields
 * set from th[t] first); one that exits gets done[t] = 1 and leaves its
 * warp's live mask, one that waits at barrier k gets resume[t] = k + 1.
 * Returns how many wait at a barrier, or -1 as soon as a thread fails */
typedef int32_t (*jit_round_fn)(struct jit_ctx *c, const struct jit_thr *th, int32_t *resume, uint8_t *done,
                                uint32_t nth);

/* a warp of the block as the warps' round sees it (vec_block fills a
 * table of them once per block; the offsets are baked into the code) */
struct jit_wthr {
    uint64_t *Rw;                /* its registers (lane 0) */
    struct warp *w;
    const uint32_t *tids;        /* its lanes' %tid (jit_ctx.tids) */
};

/* a round of a block's warps through the warp's function (jit_vec.c,
 * jit_build_wround): from warp `from` on, each warp i < nw with lanes
 * lv[i] that have not exited, all at point at[i] >= 0, runs through it
 * (c's warp fields w, Rw and tids set from wt[i]: the warp's function
 * reads no thread field, lane, tid or local; *runs: how many ran); all
 * lanes exited: lv[i] = 0 and out of
 * the warp's live mask; at barrier k: at[i] = k + 1. Returns nw, or the
 * first warp the runner must take: one whose lanes stand at different
 * points (at[i] < 0, not run), or one whose call returned something else
 * (*rr: a failure, lanes handed on; JIT_VEC_CALL: at[i] is no resume point
 * of the round, which inlines the warp's function for each of them, and
 * the warp was not run) */
#define JIT_VEC_CALL INT32_MIN
typedef int32_t (*jit_wround_fn)(struct jit_ctx *c, const struct jit_wthr *wt, int32_t *at, uint32_t *lv,
                                 uint32_t from, uint32_t nw, int32_t *rr, uint32_t *runs);

/* the run-time helpers the code calls (jit_run.c), by address */
struct jit_helpers {
    /* the host pointer of an access the inline check did not pass, or
     * NULL after reporting the fault */
    unsigned char *(*mem)(struct jit_ctx *c, const struct ir_ins *in, uint64_t a, uint32_t n, int32_t gid);
    /* n more thread-instructions: 0 to go on, else stop (limits, failure) */
    int32_t (*poll)(struct jit_ctx *c, uint64_t n);
    /* instruction in by the interpreter's handler f for this lane (the
     * lanes c->xmask when it is not 0): 0 or -1 */
    int32_t (*exec)(struct jit_ctx *c, const struct ir_ins *in, ex_fn f);
    /* trap: fails the launch */
    void (*trap)(struct jit_ctx *c, const struct ir_ins *in);
};

struct jit_kernel {
    int state;                   /* 0 not tried, 1 compiled, -1 refused or failed */
    jit_fn fn;
    jit_round_fn round;          /* the block's round loop over fn (NULL: jit_block's own) */
    jit_warp_fn warp;            /* the warp's function, lanes as vectors (NULL: none, or only
                                    inlined in wround) */
    jit_wround_fn wround;        /* the block's warps' round over warp (NULL: vec_block's own) */
    jit_ubc_fn ubc;              /* with warp: its hand-overs' uniform registers to every lane */
    jit_fn tail;                 /* fn, also resumed at the warp's function's entries */
    char why[256];               /* refused: the reason (first unsupported instruction) */
    double compile_ms;
    int nbars;                   /* resume points: barriers and warp rendezvous */
    int nwstops;                 /* of those, warp rendezvous (barid JIT_WSTOP) */
    uint8_t *barid;
    int *barpc;                  /* by barrier k: its instruction (module index) */
    int ngc;                     /* global and generic accesses (jit_ctx.gc) */
    int sregs_filled;            /* the code reads special registers of the block other
                                    than %ctaid (%smid, %clusterid): blocks start with
                                    the interpreter's block_begin, which fills them */              /* by barrier k (resume point): its barrier number */
    void *rt;                    /* LLVM's resource tracker of the code */
    int from_cache;              /* loaded from the cache on disk (jit_cache.c) */
};

/* the version of the code jit.c generates, part of the key of every entry
 * of the cache on disk: one more when the code changes */
#define JIT_CODE_VERSION 44 /* 5: stops store only what changed; 6: big kernels with the
                                 light pipeline; 7: the warp's vector function and the
                                 thread's with entries; 8: those for kernels with warp
                                 rendezvous too (shfl.sync, vote.sync, bar.warp.sync as
                                 vectors); 9: divergent if-then(-else) regions
                                 with masks in the warp's function; 10: the warp's
                                 loads and stores of consecutive addresses as masked
                                 loads and stores, of one address as scalar loads;
                                 11: per-lane handlers called by the warp's function
                                 for its lanes at once; 12: volatile and strong
                                 accesses (stops, and in the warp's function
                                 outside spin loops its lanes at once), bar.red,
                                 activemask, mbarrier, builtins' calls; 13: the
                                 warp's address tests on the address register (one
                                 test for its offsets), the warps' round (_wround),
                                 stores of what ran; 14: masks as lanes by a test
                                 of each lane's bit, a consecutive or one-address
                                 access's test by its halves' end lanes; 15:
                                 plain vector loads and stores where every lane
                                 runs a consecutive access; 16: 32-bit registers
                                 as 32-bit halves in the warp's function; 17: a
                                 load of a constant address tests lane 0; 18:
                                 regions' uniform copies; 19: the shapes' tests of
                                 a register of many loads before their paths; 20:
                                 uniform registers as one value; 21: no canonical
                                 NaN for a float result only float arithmetic reads;
                                 22: a consecutive access of every lane tests its
                                 halves' fixed end lanes; 23: no shapes' tests
                                 built for a constant address; 24: the register's
                                 window test on 32-bit lanes; 25: a uniform
                                 register's masked store takes its mask by lanes();
                                 26: failed checks, hand-overs and polls laid out
                                 of the hot path (llvm.expect); 27: thread
                                 constants computed again at a resume, %tid
                                 packed (jit_ctx.tids); 28: a store's registers
                                 not its writes for the 32-bit halves; 29:
                                 lane-affine registers' claims skip the
                                 shape tests (jit_aff.c); 30: a group of
                                 accesses of one register, one test (jit_vec.c);
                                 31: global groups, the groups' window from the
                                 register's lanes 0 and 16; 32: a barrier's stop
                                 stores a uniform register to one lane; 33: -O2
                                 with the target machine's costs; 34: the warps'
                                 round inlines the warp's function by point; 35:
                                 only up to 1,024 points times instructions; 36:
                                 the round sets no thread field, counts its
                                 calls in a register; 37: atom and red inline;
                                 38: a mask's accesses test the halves'
                                 whole ranges first; 39: an inline atomic's
                                 lanes through the frame; 40: its operands
                                 the same on every lane as scalars; 41: not 38 (the
                                 naive SGEMM lost 9%); 42: a global f32 atomic
                                 add flushes subnormals; 43: an inline atomic's
                                 lanes tested by window_all; 44: the warp's
                                 function runs volatile and strong accesses of
                                 .shared as weak ones */

/* jit_llvm.c: the loaded library (NULL with why when it cannot be) */
struct llvm_api {
#define LLVM_FN(ret, name, params) ret (*name) params;
#include "llvm.def"
#undef LLVM_FN
    void *jit;                   /* the one LLJIT of the process */
    void *jd;                    /* its main JITDylib */
};
const struct llvm_api *jit_llvm(const char **why);
/* the library loaded: its file name (for reports), or NULL */
const char *jit_llvm_name(void);
/* a freshly named symbol for a compiled kernel */
void jit_llvm_symbol(char *buf, size_t n);
/* serialises the use of LLVM (one compile at a time) */
void jit_llvm_lock(void);
void jit_llvm_unlock(void);

/* jit_subset.c: how an instruction compiles (K_*), or 0 with the reason
 * in why; can entry compile (0, or -1 with the first reason in why); the
 * value of an immediate constant slot (1), or 0 */
enum { K_NATIVE = 1, K_LANE, K_CONTROL, K_WSYNC };
/* barid of a resume point that is a warp rendezvous (K_WSYNC), not a barrier */
#define JIT_WSTOP 255
int jit_classify(const struct ptx_module *m, const struct ir_func *F, const struct ir_ins *in, ex_fn h, char *why,
                 size_t n);
int jit_supported(const struct ptx_module *m, int entry, const ex_fn *h, char *why, size_t n);
/* 1: in is a volatile or strong ld/st of memory other threads reach (a
 * rendezvous, K_WSYNC, that jit_warp.c completes with the lanes there) */
int jit_strong_access(const struct ptx_module *m, const struct ir_ins *in);
/* 1: in is such an access that the warp's function runs as it runs a weak
 * one, where no spin needs another warp's turn: of .shared, which only the
 * block's threads reach, and they run on one host thread, one warp at a
 * time, so nothing can come between the warp's lanes' accesses (the
 * thread's function still stops before it) */
int jit_strong_inline(const struct ptx_module *m, const struct ir_ins *in);
/* whether the code runs atom or red `in` (a K_LANE) itself where its
 * lanes' addresses pass the inline check (jit_ir.c, jit_vec.c), the
 * interpreter's handler doing the rest: 4- and 8-byte integer add, and,
 * or, xor, exch, cas, min, max, and f32 and f64 add, on .global and
 * .shared, one value a lane */
int jit_atom_native(const struct ir_ins *in);
/* 1: in is a direct call of a library builtin (ex_call_lib): a rendezvous too */
int jit_lib_call(const struct ptx_module *m, const struct ir_ins *in);
/* of the rendezvous (K_WSYNC), those whose lanes at one pc run them at once
 * by the interpreter's code (jit_warp.c's pc_groups; the warp's function
 * for its lanes): volatile and strong accesses, activemask, the calls of
 * library builtins, mbarrier; the first and the last may wait for another
 * warp (in a spin loop the warp's function stops before them) */
static inline int jit_pc_group(const struct ir_ins *in)
{
    return in->op == OP_LD || in->op == OP_ST || in->op == OP_ACTIVEMASK || in->op == OP_CALL || in->op == OP_MBAR;
}
static inline int jit_may_wait(const struct ir_ins *in)
{
    return in->op == OP_LD || in->op == OP_ST || in->op == OP_MBAR;
}
/* the interpreter's code such an instruction runs by: its handler h, but for
 * a builtin's call (the interpreter's switch runs calls) */
static inline ex_fn jit_group_fn(const struct ir_ins *in, ex_fn h)
{
    return in->op == OP_CALL ? ex_call_lib : h;
}
/* 1: F is compiled with the light pipeline (a big kernel), 0: with default<O2> */
int jit_light(const struct ir_func *F);
int jit_imm_of(const struct ptx_module *m, const struct ir_func *F, int slot, int64_t *v);
/* compiles entry into k (state 1), or fails with k->why (state -1) */
void jit_compile(const struct ptx_module *m, int entry, const ex_fn *h, const struct jit_helpers *hp,
                 struct jit_kernel *k);
/* the code of k is no longer used */
void jit_release(struct jit_kernel *k);

/* jit_run.c: the kernel of this launch (NULL: the interpreter runs it),
 * and the launch's engine report filled */
const struct jit_kernel *jit_plan(struct plan *P);
/* the context of block b's threads (the launch's allocation cache kept on
 * b); -1: out of memory, the launch failed */
int jit_ctx_init(struct jit_ctx *c, struct blk *b);
/* runs block lin of the grid on b with P->jit; begin: the interpreter's
 * start of a block, for kernels whose special registers the code does not
 * compute itself */
void jit_block(struct blk *b, uint64_t lin, void (*begin)(struct blk *b, uint64_t lin));
/* a block's start when the code computes its special registers */
void jit_begin_lite(struct blk *b, uint64_t lin);
/* no thread of the block can go on (resume[t]: where thread t waits, done[t]:
 * it exited; lanes at warp rendezvous keep the member mask in wsmask): the
 * interpreter's account of it */
void jit_deadlock(struct blk *b, const int32_t *resume, const uint8_t *done);
/* the lanes of warp i of a block of nth threads */
static inline uint32_t jit_lanes(unsigned nth, unsigned i)
{
    return nth - i * 32 >= 32 ? 0xffffffffu : (1u << (nth - i * 32)) - 1;
}

/* the lanes of m (not 0) that all stand at one resume point (resume, by
 * lane): it (>= 0), or -1 */
static inline int32_t jit_one_point(const int32_t *resume, uint32_t m)
{
    int32_t r = resume[__builtin_ctz(m)];
    if (m == 0xffffffffu) { /* a whole warp: a loop of no branch, which the compiler makes vector code */
        int32_t d = 0;
        for (int l = 0; l < 32; l++) d |= resume[l] ^ r;
        return d ? -1 : r;
    }
    for (m &= m - 1; m; m &= m - 1)
        if (resume[__builtin_ctz(m)] != r) return -1;
    return r;
}

/* c's thread: thread t of block b (its lane and .local window) */
/* warp w's lanes' %tid.x, .y and .z, 32 of each (blk.jtid, made by
 * jit_ctx_init), or NULL before it */
static inline uint32_t *jit_warp_tids(const struct blk *b, unsigned w)
{
    return b->jtid ? b->jtid + (size_t)w * 3 * 32 : NULL;
}

static inline void jit_ctx_thread(struct jit_ctx *c, const struct blk *b, unsigned t)
{
    c->lane = (int)(t % 32);
    c->tid = t;
    c->local = b->local + (size_t)t * b->P->lstride;
    c->tids = jit_warp_tids(b, t / 32);
}

/* after the warp's function returned r (> 0) for the lanes m: where each
 * lane stands (res, by lane) */
static inline void jit_vec_handed(const struct jit_ctx *c, int32_t r, uint32_t m, int32_t *res)
{
    if (m == 0xffffffffu && r != JIT_VEC_SPLIT) { /* a whole warp at one point: vector stores */
        for (int l = 0; l < 32; l++) res[l] = r;
        return;
    }
    for (; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        res[l] = r == JIT_VEC_SPLIT ? c->lres[l] : r;
    }
}

/* jit_run.c: the threads that wait at bar.red get its reduction (all the
 * block's threads that have not exited wait at one barrier: waiting, their
 * lanes by warp; resume, by thread) */
void jit_bar_red(struct blk *b, const int32_t *resume, const uint32_t *waiting, size_t base);

/* jit_warp.c: instead of jit_block for kernels with warp rendezvous (shfl.sync,
 * vote.sync, match, redux, elect, bar.warp.sync, matrix instructions,
 * volatile and strong accesses; k->nwstops > 0): each thread runs to its next barrier or rendezvous; a
 * rendezvous completes, by the interpreter's own code (ex_wsync_settle,
 * ex_warp_sync, the matrix handlers), when every lane it requires has come */
void jit_warp_block(struct blk *b, uint64_t lin, void (*begin)(struct blk *b, uint64_t lin));

#endif
