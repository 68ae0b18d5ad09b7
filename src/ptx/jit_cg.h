/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's code generator, shared by its three files: jit_ir.c (the
 * IR of the native instructions, loads and stores, per-lane calls), jit.c
 * (a thread's function, the round, the compile) and jit_vec.c (a warp's
 * function: the lanes as vectors). One generator for both widths: with
 * W = JIT_LANES the value types (i1 ... f64) are vectors of 32 and the
 * constants splats, so native() builds the same operations on the 32
 * lanes at once; the scalar types (s1 ... s64) and pointers serve the
 * context, addresses and counts whatever W is. */
#ifndef TD_PTX_JIT_CG_H
#define TD_PTX_JIT_CG_H

#include "jit.h"
#undef L /* exec.h's lane macro: the API table is named so here */

#include "jit_cache.h"

#include <stddef.h>
#include <string.h>

/* LLVM's predicate numbers (llvm-c/Core.h) */
enum { IEQ = 32, INE, IUGT, IUGE, IULT, IULE, ISGT, ISGE, ISLT, ISLE };
enum { FFALSE, FOEQ, FOGT, FOGE, FOLT, FOLE, FONE, FORD, FUNO, FUEQ, FUGT, FUGE, FULT, FULE, FUNE };
#define LLVM_VECTOR_KIND 13 /* LLVMVectorTypeKind */
#define LLVM_INTERNAL_LINKAGE 8 /* LLVMInternalLinkage */
#define SEQ_CST 7
/* LLVMAtomicRMWBinOp */
enum { RMW_XCHG, RMW_ADD, RMW_SUB, RMW_AND, RMW_NAND, RMW_OR, RMW_XOR, RMW_MAX, RMW_MIN, RMW_UMAX, RMW_UMIN, RMW_FADD };
#define POLL_EVERY 65536
#define JIT_LANES 32
#define JIT_VEC_MAX_ENTRIES 64 /* more entries: no warp function (compile time) */
#define JIT_WROUND_INLINE 1024 /* the most resume points times PTX instructions for which the
                                  warps' round inlines the warp's function (wround_inlines) */
#define JIT_REGION_MAX 512     /* longer regions (branch to join) hand over when they diverge */

struct cg {
    const struct llvm_api *api;
    const struct ptx_module *m;
    const struct ir_func *F;
    const ex_fn *h;
    const struct jit_helpers *hp;
    void *ctx, *mod, *b, *fn;
    int W;                       /* lanes a value holds: 1, or JIT_LANES (jit_vec.c) */
    void *i1, *i8, *i16, *i32, *i64, *i128, *f32, *f64; /* value types (vectors of W) */
    void *s1, *s8, *s32, *s64, *ptr; /* scalar types */
    void *R, *C;
    void **slot;                 /* by slot: its variable */
    int *kimm;                   /* by slot: 1 if an immediate constant */
    uint8_t *kconst;             /* by slot: 1 if a constant (the launch fills it) */
    int *ksreg;                  /* by slot: the special register it holds (S_*), or -1 */
    int sregs_filled;            /* some special register comes from the register file */
    uint64_t *live;              /* by instruction from F->start, and one past the end:
                                    the slots live on entry, nw words each */
    uint64_t *dirty;             /* as live: the slots whose variable may differ from the
                                    register file on entry (written since the thread
                                    started or resumed) */
    uint64_t *rl;                /* as live: the slots whose variable may be read before
                                    the next stop (what a start or resume there loads) */
    int nw;
    int64_t *kval;
    void **bb;                   /* by instruction from F->start, and one past the end: exit */
    void *ic, *pv;               /* the instruction count, an address */
    void *failbb;
    void *fty_mem, *fty_poll, *fty_exec, *fty_trap;
    int nbars, ngc, nwstops;
    int light;                   /* the light pipeline (jit_light): registers stay in memory */
    uint8_t *barid;
    uint8_t *fraw;               /* by instruction from F->start: a float result whose NaN
                                    need not be canonical (jit_float_raw), or NULL */
    int *barpc;
    void **resume;
    int *gidof;                  /* by instruction from F->start: its entry in jit_ctx.gc, or -1 */
    int *entryof;                /* by instruction from F->start: the warp's function may hand
                                    its lanes to the thread's before it: the entry's
                                    number (resume nbars + 1 + it), or -1 */
    int nentries;
    int *rjoin;                  /* by instruction from F->start: a guarded forward branch
                                    the warp's function runs with masks when it diverges
                                    (jit_vec_regions): its join; else -1 */
    int *relse;                  /* by such branch: its else part's first instruction, or
                                    -1 (if-then) */
    int *rin;                    /* by instruction: the innermost such branch whose region
                                    (branch, join) holds it, or -1 */
    void *vpred;                 /* W > 1: the lanes a guarded instruction writes (set
                                    keeps the others' values), or NULL */
    void **shi;                  /* W > 1, by slot: a register held as two 32-bit halves
                                    (jit_vec.c, halves()): the variable of its upper
                                    halves, slot[] that of its lower; NULL where slot[]
                                    holds all 64 bits. NULL: none */
    uint8_t *hiset;              /* by such slot: a write whose upper half was not known
                                    to be zero (set) */
    void **uni;                  /* W > 1, by slot: a uniform register (jit_vec.c,
                                    uniforms()), one value on every lane the warp's
                                    function runs: the variable of that value (i64);
                                    NULL for the others. NULL: none */
    void *ulane;                 /* W > 1: a lane the function runs, whose value in the
                                    register file a uniform register reads (i32) */
    int32_t *tcw;                /* W > 1, by slot: a thread constant's one writer
                                    (jit_vec.c, tconsts()), from F->start, which a resume
                                    runs again instead of loading it; -1 for the others.
                                    NULL: none */
    uint8_t *tck;                /* W > 1, by constant slot: TK_* (jit_vec.c), or NULL */
    void **aok, **ak;            /* W > 1, by slot: a lane-affine register's claim (jit_aff.c):
                                    ok (i1) and stride (i64) variables; NULL for the others.
                                    NULL: none */
};

#define LL (g->api)
static inline void *vty(struct cg *g, void *t) { return g->W > 1 ? LL->LLVMVectorType(t, (unsigned)g->W) : t; }
/* a constant of value type ty: splat over the lanes when ty is a vector */
static inline void *ci(struct cg *g, void *ty, uint64_t v)
{
    if (g->W == 1 || LL->LLVMGetTypeKind(ty) != LLVM_VECTOR_KIND) return LL->LLVMConstInt(ty, v, 0);
    void *e = LL->LLVMConstInt(LL->LLVMGetElementType(ty), v, 0), *el[JIT_LANES];
    for (int i = 0; i < g->W; i++) el[i] = e;
    return LL->LLVMConstVector(el, (unsigned)g->W);
}
static inline void *c64(struct cg *g, uint64_t v) { return ci(g, g->i64, v); }
static inline void *k64(struct cg *g, uint64_t v) { return LL->LLVMConstInt(g->s64, v, 0); }
static inline void *k32(struct cg *g, uint64_t v) { return LL->LLVMConstInt(g->s32, v, 0); }
/* LLVM's enum attribute `name` (noalias, alwaysinline), or NULL where this
 * LLVM has none */
static inline void *enum_attr(struct cg *g, const char *name)
{
    unsigned kind = LL->LLVMGetEnumAttributeKindForName(name, strlen(name));
    return kind ? LL->LLVMCreateEnumAttribute(g->ctx, kind, 0) : NULL;
}
static inline void *ity(struct cg *g, unsigned bytes) { return bytes == 1 ? g->i8 : bytes == 2 ? g->i16 : bytes == 4 ? g->i32 : g->i64; }

/* a register held as two halves: its value, and v written to it (jit_ir.c) */
void *jit_get_halves(struct cg *g, int s);
void jit_set_halves(struct cg *g, int s, void *v);

/* a special register the same on every lane of a warp: the block's and
 * the grid's sizes, the block's %ctaid, the shared memory's sizes */
static inline int jit_sreg_warp_same(int r)
{
    return (r >= S_NTID_X && r <= S_NCTAID_Z) || r == S_DYN_SMEM || r == S_TOTAL_SMEM;
}

/* lane-affine registers (jit_aff.c), for the warp's function: a source's
 * claim and its lanes 0 and 16 */
struct jit_aff_src { void *ok, *k, *v[2]; };
/* the registers an address is computed from: their claims' variables, in
 * the entry block, clear. 0, or -1 out of memory (none has one) */
int jit_aff_init(struct cg *g);
void jit_aff_done(struct cg *g);
/* before and after a native instruction: its sources' claims (src[3]),
 * then its destination's */
void jit_aff_pre(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src);
void jit_aff_post(struct cg *g, const struct ir_ins *in, struct jit_aff_src *src);
/* slot s written otherwise: no claim */
void jit_aff_kill(struct cg *g, int s);
/* whether slot s may claim a stride; its claim (ok: i1, k: i64), 0 where
 * it never has one */
int jit_aff_has(const struct cg *g, int s);
int jit_aff_get(struct cg *g, int s, void **ok, void **k);

/* a scalar as a vector of W lanes of type vt */
static inline void *splat(struct cg *g, void *x, void *vt)
{
    void *v = LL->LLVMBuildInsertElement(g->b, LL->LLVMConstNull(vt), x, k32(g, 0), "");
    return LL->LLVMBuildShuffleVector(g->b, v, LL->LLVMConstNull(vt), LL->LLVMConstNull(g->i32), "");
}

/* a mask's bits (i32) as lanes: each lane tests its bit of the mask
 * splat, where a bitcast to <32 x i1> costs a bit extraction and an
 * insertion per lane on a host without mask registers (AVX2) */
static inline void *lanes(struct cg *g, void *bits)
{
    void *el[JIT_LANES];
    for (int i = 0; i < JIT_LANES; i++) el[i] = k32(g, 1u << i);
    void *t = LL->LLVMBuildAnd(g->b, splat(g, bits, g->i32), LL->LLVMConstVector(el, JIT_LANES), "");
    return LL->LLVMBuildICmp(g->b, INE, t, LL->LLVMConstNull(g->i32), "");
}

/* a call of the intrinsic or function name (declared on first use) of
 * type ret (tys[n]) */
static inline void *call(struct cg *g, const char *name, void *ret, void **tys, void **args, unsigned n)
{
    void *fty = LL->LLVMFunctionType(ret, tys, n, 0);
    void *f = LL->LLVMGetNamedFunction(g->mod, name);
    if (!f) f = LL->LLVMAddFunction(g->mod, name, fty);
    return LL->LLVMBuildCall2(g->b, fty, f, args, n, "");
}

/* c (an i1) expected to be v: LLVM lays the other side out of the hot
 * path (where a check fails, a hand-over, a poll) */
static inline void *expect(struct cg *g, void *c, int v)
{
    void *b = LL->LLVMConstInt(g->s1, (unsigned long long)v, 0);
    return call(g, "llvm.expect.i1", g->s1, (void *[]){ g->s1, g->s1 }, (void *[]){ c, b }, 2);
}
static inline void *likely(struct cg *g, void *c) { return expect(g, c, 1); }

static inline void *get(struct cg *g, int s)
{
    if (s < 0) return c64(g, 0);
    if (g->uni && g->uni[s]) return splat(g, LL->LLVMBuildLoad2(g->b, g->s64, g->uni[s], ""), g->i64);
    if (g->shi && g->shi[s]) return jit_get_halves(g, s);
    if (g->light && g->kimm[s]) return c64(g, (uint64_t)g->kval[s]); /* no promotion makes it one */
    return LL->LLVMBuildLoad2(g->b, g->i64, g->slot[s], "");
}
static inline void set(struct cg *g, int s, void *v)
{
    if (s < 0) return;
    if (g->uni && g->uni[s]) { /* lane 0's: a uniform write computes the same value on
                                  every lane, run or not, from uniform values (splats),
                                  under a uniform guard */
        if (g->vpred) v = LL->LLVMBuildSelect(g->b, g->vpred, v, get(g, s), "");
        LL->LLVMBuildStore(g->b, LL->LLVMBuildExtractElement(g->b, v, k32(g, 0), ""), g->uni[s]);
        return;
    }
    if (g->shi && g->shi[s]) {
        jit_set_halves(g, s, v);
        return;
    }
    if (g->vpred) v = LL->LLVMBuildSelect(g->b, g->vpred, v, get(g, s), "");
    LL->LLVMBuildStore(g->b, v, g->slot[s]);
}
static inline void *trunc_(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildTrunc(g->b, v, ity(g, bytes), ""); }
static inline void *zext(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildZExt(g->b, v, g->i64, ""); }
static inline void *sext_(struct cg *g, void *v, unsigned bytes) { return bytes >= 8 ? v : LL->LLVMBuildSExt(g->b, v, g->i64, ""); }
static inline void *bit0(struct cg *g, int s) { return LL->LLVMBuildTrunc(g->b, get(g, s), g->i1, ""); }

/* whether slot s may differ from the register file at instruction k (from
 * F->start): only those are stored back */
static inline int is_dirty(const struct cg *g, int k, int s)
{
    return k < 0 || k > g->F->end - g->F->start || !g->dirty || (g->dirty[(size_t)k * g->nw + (size_t)s / 64] >> (s % 64) & 1);
}

/* a field of the context (struct jit_ctx), of scalar type ty */
static inline void *field_ptr(struct cg *g, size_t off)
{
    void *idx = k64(g, off);
    return LL->LLVMBuildGEP2(g->b, g->s8, g->C, &idx, 1, "");
}
static inline void *field(struct cg *g, size_t off, void *ty) { return LL->LLVMBuildLoad2(g->b, ty, field_ptr(g, off), ""); }

/* the warp's lanes' %tid along axis (0: x), 32 x i32 (jit_ctx.tids) */
static inline void *jit_tids(struct cg *g, int axis)
{
    void *idx = k64(g, (uint64_t)axis * 32);
    void *p = LL->LLVMBuildGEP2(g->b, g->s32, field(g, offsetof(struct jit_ctx, tids), g->ptr), &idx, 1, "");
    void *v = LL->LLVMBuildLoad2(g->b, g->i32, p, "");
    LL->LLVMSetAlignment(v, 4);
    return v;
}

/* a host address (a helper, an instruction, a handler): read at run time
 * from the object's own table (jit_cache.c), so the code holds none. Every
 * host address the code uses must come through here: the cache on disk
 * gives the object to other processes, whose addresses differ (an address
 * jitc_ref cannot name is emitted as a constant and the kernel not kept) */
static inline void *fnptr(struct cg *g, const void *p) { return jitc_ref(LL, g->ctx, g->mod, g->b, p); }
static inline void *newbb(struct cg *g) { return LL->LLVMAppendBasicBlockInContext(g->ctx, g->fn, ""); }

/* slot s in the register file, R[s * 32]: this lane's (W == 1), or the
 * warp's 32 lanes as one vector (W == JIT_LANES; loads and stores of it
 * give alignment 8) */
static inline void *rf(struct cg *g, int s)
{
    void *idx = k64(g, (uint64_t)s * 32);
    return LL->LLVMBuildGEP2(g->b, g->s64, g->R, &idx, 1, "");
}

/* jit_ir.c */
/* the types of g for W lanes (1 or JIT_LANES) */
void jit_cg_types(struct cg *g, int W);
/* the instruction count added to the context, and a return of v */
void jit_flush_ret(struct cg *g, int32_t v);
/* a native instruction (jit_subset.c's K_NATIVE); with W > 1 all but ld/st */
void jit_native(struct cg *g, const struct ir_ins *in);
/* the slots an instruction names (for the per-lane handler): how many, at
 * most JIT_NAMED_MAX (a matrix instruction: 4 fragments of up to 8
 * registers, stride, address) */
enum { JIT_NAMED_MAX = 34 };
int jit_named_slots(const struct ptx_module *m, const struct ir_ins *in, int *s);
/* the slots a native instruction may write (d, d2, vr; -1 where none):
 * JIT_WRITES of them into wr */
enum { JIT_WRITES = 6 };
void jit_writes(const struct ir_ins *in, int32_t *wr);
/* an instruction by the interpreter's handler f: for this lane (W == 1,
 * eff NULL), or for the lanes eff (an i32 mask) of the warp's function
 * (W == JIT_LANES) at once, through jit_ctx.xmask */
void jit_per_lane(struct cg *g, const struct ir_ins *in, ex_fn f, void *eff);
/* W > 1: a uniform register (uni) to the register file on the lanes mask (i32) */
void jit_store_lanes(struct cg *g, int s, void *mask);
/* the float results whose NaN's bits nothing sees (g->fraw): one reader,
 * float arithmetic that makes its own NaN canonical. 0, or -1 out of
 * memory (none) */
int jit_float_raw(struct cg *g);
/* W == 1: the named slots to the register file */
void jit_store_named(struct cg *g, const struct ir_ins *in);
/* atom or red `in` (jit_atom_native) at host pointer p (scalar), value v,
 * cas's new value c: the old value, zero-extended to 64 bits (scalars) */
void *jit_atom_rmw(struct cg *g, const struct ir_ins *in, void *p, void *v, void *c);
/* W == 1: atom or red `in` (jit_atom_native), by jit_atom_rmw where the
 * inline check passes, else by the interpreter's handler f */
void jit_atom(struct cg *g, const struct ir_ins *in, ex_fn f);
/* after the handler ran an access of n bytes at a (scalar) without a
 * fault: its allocation to jit_ctx.gc[gid], through the memory helper,
 * for the inline checks that come after (the helper's fault report, with
 * c's lane, cannot come: the handler passed the same test) */
void jit_gc_fill(struct cg *g, const struct ir_ins *in, void *a, unsigned n, int gid);

/* jit_vec.c: the warp's function (jit_vfn) named sym, from the thread's
 * analysis in g (liveness, resume points, entries, gidof) */
void jit_build_vec(struct cg *g, const char *sym);
/* then the warps' round over it (jit_wround_fn) named sym */
void jit_build_wround(struct cg *g, const char *sym);
/* the divergent branches the warp's function runs with masks (rjoin,
 * relse, rin): if-then and if-then-else shapes, nested ones too, whose
 * region has one entry and no barrier, rendezvous, exit, per-lane,
 * trap, .local or other branch; 0, or -1 out of memory */
int jit_vec_regions(struct cg *g);

#endif
