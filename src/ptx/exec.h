/* The executor's internal interface, shared by its files and nothing else:
 * exec.c (launches, blocks, warps, control flow), exec_arith.c (arithmetic,
 * comparisons, conversions, bit operations), exec_mem.c (state spaces,
 * loads, stores, atomics) and exec_warp.c (warp-level instructions).
 *
 * Registers are laid out slot-major, 32 lanes per slot: the value of slot
 * s in lane l of a warp is R[s * 32 + l], R the base of the function the
 * instruction belongs to. */
#ifndef TD_PTX_EXEC_H
#define TD_PTX_EXEC_H

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ir.h"

#define MAXDEPTH 32
#define NCACHE 4
#define PC_NONE 0x7fffffff

struct plan {                    /* per launch */
    const struct ptx_module *m;
    const struct ptx_launch *l;
    int entry;
    int *slotbase;               /* by function: first slot in a warp's file, or -1 */
    unsigned *localbase, *fparambase;
    int nslots;
    unsigned lstride, fstride;   /* per-thread .local and call .param bytes */
    unsigned static_shared, shsize;
    unsigned nthreads, nwarps;
    uint64_t nblocks;
    atomic_ullong next_block;
    atomic_int stop;
    pthread_mutex_t lock;
    enum ptx_status status;
    char *err;
    size_t errlen;
};

struct warp {
    uint64_t *R0;                /* this warp's register file */
    uint32_t live, active, barred;
    int pc, merge_pc;
    int lpc[32];
    int depth[32];
    int rstack[32][MAXDEPTH];    /* return pc */
    int cstack[32][MAXDEPTH];    /* call index */
    int red_pending;             /* bar.red: result slot row to write, or -1 */
    uint64_t *red_d;
    uint32_t red_mask;
    int id;
};

struct blk {                     /* one host thread's block state */
    struct plan *P;
    unsigned char *shared, *local, *fparam;
    struct warp *warps;
    uint64_t *regs;
    uint64_t sink[32];
    uint64_t clo[NCACHE], chi[NCACHE];
    int cnext;
    unsigned ctaid[3];
    uint64_t icount;
    enum ptx_status st;
    int red_popc, red_and, red_or;
    const struct ir_ins *fault_ins;
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
};

/* exec.c: fails the launch (the first failure wins): the message, then
 * where (PTX line, source line, block and thread) when at says; at also
 * fills ptx_launch.fault */
void ex_failv(struct blk *b, const struct ex_site *at, enum ptx_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ex_fail(b, st, ...) ex_failv((b), NULL, (st), __VA_ARGS__)
/* the failure at instruction in, in lane of w */
#define ex_fail_at(b, w, lane, in, st, ...) \
    ex_failv((b), &(struct ex_site){ (w), (lane), (in), PTX_ACCESS_NONE, 0, 0, 0 }, (st), __VA_ARGS__)
const char *ex_space_name(int sp);

/* one instruction over the lanes m of warp w, R its function's registers:
 * 0, or -1 after ex_fail */
int ex_arith(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);
int ex_mem(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);
int ex_warp(struct blk *b, struct warp *w, const struct ir_ins *in, uint32_t m, uint64_t *R);

/* exec_mem.c: device memory readable at addr (for printf's %s and
 * arguments): the bytes readable from there, 0 if none */
size_t ex_read_dev(void *blk, uint64_t addr, const unsigned char **p);

#define LANES(m) for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1)
#define L (__builtin_ctz(mm_))

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
static inline float ftz32(float f) { return fabsf(f) < 1.17549435e-38f ? copysignf(0.0f, f) : f; }
/* .sat: clamp to [0, 1], NaN to 0 */
static inline float sat32(float q) { return q != q ? 0.0f : q < 0 ? 0.0f : q > 1 ? 1.0f : q; }

#endif
