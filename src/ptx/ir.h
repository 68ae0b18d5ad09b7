/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX engine's internal form, shared by the front end (parser.c,
 * check.c) and the executor (exec.c), and nothing else: a JIT could take
 * the same form.
 *
 * Every operand is a register slot. A slot holds 32 lanes of 64 bits.
 * Immediates, symbol addresses (constant for a launch: every .local and
 * call .param variable has a static offset; a function on a cycle of the
 * call graph saves its registers, .param and .local on the thread's stack
 * when it is entered, exec.c) and special registers are slots filled
 * before a warp runs; the instructions only ever name slots. Each function
 * has its own registers. */
#ifndef TD_PTX_IR_H
#define TD_PTX_IR_H

#include <stddef.h>
#include <stdint.h>

#include "ptx.h"

enum ir_type {
    T_NONE, T_PRED,
    T_B8, T_B16, T_B32, T_B64, T_B128,
    T_U8, T_U16, T_U32, T_U64,
    T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64,
    /* formats of matrix operands and conversions only */
    T_TF32, T_E4M3, T_E5M2, T_S4, T_U4, T_B1,
    T_E4M3X2, T_E5M2X2,      /* cvt: two fp8 values in 16 bits */
    T_COUNT
};

/* SP_CLUSTER: .shared::cluster (ld, st, atom, red, mapa): a shared address
 * of the cluster, see exec_cluster.c */
enum ir_space { SP_NONE, SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_FPARAM, SP_CLUSTER };

enum ir_op {
    OP_NOP, OP_UNSUPPORTED,
    OP_MOV, OP_SREG_DYN, OP_LD, OP_ST, OP_CVTA, OP_CVTA_TO, OP_CVT,
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_ABS, OP_NEG,
    OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR,
    OP_SETP, OP_SET, OP_SELP, OP_SLCT,
    OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_TANH,
    OP_BFE, OP_BFI, OP_BREV, OP_CLZ, OP_POPC, OP_PRMT, OP_SHF, OP_LOP3, OP_SAD,
    OP_MUL24, OP_MAD24, OP_COPYSIGN, OP_TESTP, OP_FNS,
    OP_ADDC, OP_SUBC, OP_MADC,        /* carry in (F_CC: carry out too) */
    OP_BMSK, OP_BFIND, OP_DP4A, OP_DP2A, OP_SZEXT,
    OP_ATOM, OP_RED, OP_CPASYNC, OP_MBAR, OP_ISSPACEP,
    OP_BRA, OP_BRX, OP_CALL, OP_RET, OP_EXIT, OP_TRAP, OP_BAR, OP_NANOSLEEP,
    OP_SHFL, OP_VOTE, OP_MATCH, OP_REDUX, OP_WARPSYNC, OP_ELECT, OP_ACTIVEMASK, OP_MEMBAR,
    OP_MMA,                           /* matrix instructions: ins.e indexes ptx_module.mmas */
    OP_VIDEO,                         /* video instructions: see VI_* */
    OP_CVTPACK,                       /* cvt.pack.sat: type the converted type */
    OP_GRIDDEP,                       /* griddepcontrol (parsed as a no-op) */
    OP_CREATEPOLICY,                  /* createpolicy: parsed as a mov of a policy value */
    OP_MAPA,                          /* mapa: space SP_CLUSTER or SP_GENERIC, d = a in rank b */
    OP_GETCTARANK,                    /* getctarank: space SP_CLUSTER or SP_GENERIC, d = the rank holding a */
    OP_CBAR,                          /* barrier.cluster: ins.sub CB_ARRIVE or CB_WAIT */
    OP_TEX, OP_TLD4, OP_TXQ, OP_SULD, OP_SUST, OP_SUQ, /* textures and surfaces: see TG_* */
    OP_CPTENSOR,                      /* cp.async.bulk.tensor: see TM_* */
    OP_COUNT
};

/* tex, tld4, suld, sust (exec_tex.c): ins.sub the geometry, ins.sub2 tld4's
 * component or suld/sust's out-of-range mode, ins.type the data type,
 * ins.type2 the coordinates' type, ins.vec the data registers (vr[]),
 * ins.a the handle; coordinates x, y, z in b, c, e and the layer in d2.
 * txq, suq: ins.sub the query, ins.d the result. */
enum { TG_1D, TG_2D, TG_3D, TG_A1D, TG_A2D, TG_CUBE, TG_ACUBE };
enum { SU_TRAP, SU_CLAMP, SU_ZERO };
enum { TQ_WIDTH, TQ_HEIGHT, TQ_DEPTH, TQ_NORM_COORDS, TQ_FILTER, TQ_ADDR0, TQ_ADDR1, TQ_ADDR2,
       TQ_ARRAY_SIZE, TQ_MIP_LEVELS, TQ_SAMPLES, TQ_LAYOUT };
/* cp.async.bulk.tensor (exec_tensor.c): ins.sub TM_LOAD (global to shared,
 * complete_tx on an mbarrier) or TM_STORE (shared to global, bulk_group);
 * ins.sub2 the rank; a + d2 the shared address (base slot, the offset's
 * constant slot); b the tensor map's generic address; the coordinates in
 * vr[0..3] and c (the fifth); loads: the mbarrier at e + d, and with
 * .multicast::cluster the ctaMask's slot in imm (else -1); TM_REDUCE: the
 * operation (AT_*) in type2. */
enum { TM_LOAD, TM_STORE, TM_REDUCE };
/* bar: ins.sub2 */
enum { BK_SYNC, BK_ARRIVE, BK_RED };
/* barrier.cluster: ins.sub */
enum { CB_ARRIVE, CB_WAIT };
/* bar.red, redux: ins.sub */
enum { RED_POPC, RED_AND, RED_OR, RED_XOR, RED_ADD, RED_MIN, RED_MAX };
/* match */
enum { MA_ANY, MA_ALL };
/* cp.async: ins.sub (the copy: 0; its size in sub2) */
/* cp.async.bulk (sub): global to shared, shared to shared (a cluster of
 * one), shared to global; ins.e: the size, vr[0] + vr[1]: the mbarrier */
enum { CP_COPY, CP_COMMIT, CP_WAIT, CP_WAIT_ALL, CP_MBAR_ARRIVE, CP_BULK_G2S, CP_BULK_S2S, CP_BULK_S2G };
/* mbarrier: ins.sub, and flags in sub2 */
enum { MB_INIT, MB_INVAL, MB_ARRIVE, MB_ARRIVE_DROP, MB_EXPECT_TX, MB_COMPLETE_TX, MB_TEST_WAIT, MB_TRY_WAIT,
       MB_PENDING, MB_CPASYNC_ARRIVE };
#define MB_WITH_TX 1     /* arrive.expect_tx */
#define MB_NOCOMPLETE 2
#define MB_PARITY 4
#define MB_NOINC 8

/* ins.sub: rounding (cvt, float arithmetic) */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI, RND_RNA };
/* compare operators */
/* OP_VIDEO: ins.sub the operation, ins.sub2 the secondary one (scalar:
 * add, min, max; SIMD: add accumulates), ins.vec 1 (scalar), 2 or 4
 * elements; ins.imm: scalar selectors of d, a, b in bits 0-3, 4-7, 8-11
 * (1-4 .b0-.b3, 5 .h0, 6 .h1), vset's compare in 16-23, SIMD element
 * selectors of a and b (4 bits per element, element 0 lowest) in 24-39 and
 * 40-55, the SIMD mask in 56-59; bits 60-62: d, a, b signed */
enum { VI_ADD, VI_SUB, VI_ABSDIFF, VI_MIN, VI_MAX, VI_SHL, VI_SHR, VI_SET, VI_AVRG };
enum { VS_NONE, VS_ADD, VS_MIN, VS_MAX };
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
       CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };
/* setp/set boolean combination */
enum { BOOL_NONE, BOOL_AND, BOOL_OR, BOOL_XOR };
/* atomics */
enum { AT_ADD, AT_MIN, AT_MAX, AT_INC, AT_DEC, AT_CAS, AT_EXCH, AT_AND, AT_OR, AT_XOR };
/* shfl */
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
/* vote */
enum { VO_ALL, VO_ANY, VO_UNI, VO_BALLOT };
/* dynamic special registers */
enum { SR_CLOCK, SR_CLOCK64, SR_CLOCK_HI, SR_GLOBALTIMER, SR_GLOBALTIMER_LO, SR_GLOBALTIMER_HI };

/* ins.flags */
#define F_SAT    0x01u
#define F_FTZ    0x02u
#define F_HI     0x04u
#define F_WIDE   0x08u
#define F_APPROX 0x10u
#define F_CC     0x20u  /* .cc: writes the carry flag */
#define F_WRAP   0x40u  /* shf.wrap (else clamp); shf.r: F_HI set for right */
#define F_ANEG   0x80u  /* operand c of setp is negated */
#define F_RELU   0x100u
#define F_SYNC   0x200u /* warp-synchronous form with a member mask (operand e) */
#define F_NAN    0x400u /* .NaN */
#define F_ABS    0x800u /* .abs (redux), .xorsign.abs (min/max) */
#define F_XORSIGN 0x1000u
#define F_TRANS  0x2000u /* ldmatrix/stmatrix .trans */
#define F_SATFIN 0x4000u /* .satfinite */

struct ir_ins {
    uint16_t op;
    uint8_t type, type2;     /* type2: cvt/set source type */
    uint8_t sub, sub2;       /* rounding/compare/atomic op/shfl mode; bool op */
    uint8_t space, vec;      /* memory space; vector width (1, 2, 4) */
    uint16_t flags;
    uint8_t gneg;            /* guard negated */
    uint8_t pad;
    int32_t guard;           /* predicate slot, or -1 */
    int32_t d, d2;           /* destinations (slots) or -1 */
    int32_t a, b, c, e;      /* sources (slots) or -1 */
    int32_t vr[4];           /* vector ld/st registers */
    int64_t imm;             /* address offset, branch target, call index, ... */
    int32_t line;            /* PTX line */
    int32_t name;            /* its spelling ("st.global.u32"): offset in the module's strings */
    int32_t fn;              /* the function holding it */
    int32_t srcfile;         /* .loc: file number (see ptx_module.files), 0 if none */
    int32_t srcline, srccol;
};

/* A matrix instruction (mma, wmma.*, ldmatrix, stmatrix, movmatrix): ins.e
 * indexes the module's list of these (ins.a and ins.imm: the address). */
enum { MX_MMA, MX_WMMA_LOAD, MX_WMMA_STORE, MX_WMMA_MMA, MX_LDMATRIX, MX_STMATRIX, MX_MOVMATRIX };
struct ir_mma {
    uint8_t kind;            /* MX_* */
    uint8_t m, n, k;         /* shape (ldmatrix, stmatrix, movmatrix: 8x8) */
    uint8_t frag;            /* wmma.load/store: 'a', 'b', 'c' or 'd'; atype its type */
    uint8_t atype, btype, ctype, dtype;
    uint8_t alayout, blayout; /* 1: column-major (.col), 0: .row */
    uint8_t satfinite, bitop; /* bitop: 1 xor, 2 and (.b1 popc) */
    uint8_t rnd, trans, num;  /* f64 rounding; ldmatrix .trans and .x1/.x2/.x4 */
    uint8_t nd, na, nb, nc;  /* register counts */
    int32_t d[8], a[8], b[8], c[8];   /* register slots (wmma.load/store/ldmatrix: d or c) */
    int32_t stride;          /* wmma: stride slot, or -1 */
};

/* one argument copied by a call: caller's .param offset -> callee's */
struct ir_copy { uint32_t from, to, size; };
struct ir_call {
    int callee;              /* function index; -1: indirect, the target in the
                                call's operand a, arguments matched by position
                                (their .to unused) */
    int nargs, nrets;
    struct ir_copy *args, *rets;
};

/* builtin functions (builtins.def): ids from 1, 0 being none */
enum { B_LIB, B_DEVRT, B_NOTSUP };
enum {
    B_NONE,
#define BUILTIN(id, name, amin, amax, nret, how) id,
#include "builtins.def"
#undef BUILTIN
    B_COUNT
};
struct ir_builtin { const char *name; int amin, amax, nrets, how; };
extern const struct ir_builtin ir_builtins[B_COUNT];
/* builtins.c: the builtin named s (n bytes), or B_NONE */
int ir_builtin_find(const char *s, int n);

/* an address in a variable's initialiser: written when its address is known */
struct ir_reloc {
    int global;              /* the variable initialised */
    unsigned size;           /* bytes of the element (4 or 8) */
    uint64_t off;            /* its offset in the variable */
    int kind;                /* K_GLOBAL (target: global index) or K_FUNC (function index) */
    int target;
    int64_t addend;
};

/* brx.idx: the labels of a .branchtargets list, as instruction indices */
struct ir_targets { int n; int *pc; };

/* Function addresses (mov of a function's name, initialisers): a range no
 * host pointer takes, so a call through one is checked. */
#define IR_FADDR_BASE 0xfff0000000000000ull
static inline uint64_t ir_faddr(int f) { return IR_FADDR_BASE + (uint64_t)f * 16; }
/* the function at address a, or -1 */
static inline int ir_fidx(uint64_t a, int nfuncs)
{
    if (a < IR_FADDR_BASE || (a - IR_FADDR_BASE) % 16 || (a - IR_FADDR_BASE) / 16 >= (uint64_t)nfuncs) return -1;
    return (int)((a - IR_FADDR_BASE) / 16);
}

/* a constant slot's source: filled before the warp runs */
enum { K_IMM, K_GLOBAL, K_SHARED, K_LOCAL, K_PARAM, K_FPARAM, K_SREG, K_FUNC };
/* special registers (K_SREG) */
enum { S_TID_X, S_TID_Y, S_TID_Z, S_NTID_X, S_NTID_Y, S_NTID_Z, S_CTAID_X, S_CTAID_Y, S_CTAID_Z,
       S_NCTAID_X, S_NCTAID_Y, S_NCTAID_Z, S_LANEID, S_WARPID, S_NWARPID, S_SMID, S_NSMID,
       S_GRIDID, S_LANEMASK_EQ, S_LANEMASK_LE, S_LANEMASK_LT, S_LANEMASK_GE, S_LANEMASK_GT,
       S_DYN_SMEM, S_TOTAL_SMEM,
       S_CLUSTERID_X, S_CLUSTERID_Y, S_CLUSTERID_Z, S_NCLUSTERID_X, S_NCLUSTERID_Y, S_NCLUSTERID_Z,
       S_CLUSTER_CTAID_X, S_CLUSTER_CTAID_Y, S_CLUSTER_CTAID_Z,
       S_CLUSTER_NCTAID_X, S_CLUSTER_NCTAID_Y, S_CLUSTER_NCTAID_Z,
       S_CLUSTER_CTARANK, S_CLUSTER_NCTARANK, S_IS_EXPLICIT_CLUSTER,
       S_ZERO,          /* %pm0..7, %reserved_smem_offset_*, %current_graph_exec */
       S_AGGR_SMEM,
       S_ENVREG0 };     /* %envreg0..31: S_ENVREG0 + n, the launch's envreg[n] */
struct ir_const { int32_t slot; int kind; int64_t val; };  /* val: imm / global index / offset / sreg;
                                                               K_SHARED: ir_shared_const() */

struct ir_param { unsigned offset, size, align; };

struct ir_func {
    char *name;
    int is_entry, is_extern, defined;
    int builtin;             /* B_* (builtins.def) for those externs, else 0 */
    int addr_taken;          /* its address is used: indirect calls may reach it */
    int reentrant;           /* on a cycle of the call graph: may be active
                                twice in a thread, so calls save its frame */
    int start, end;          /* instructions [start, end) */
    int nparams; struct ir_param *params;   /* formal params: kernel param buffer
                                               offsets (entry) or .param offsets */
    int nrets; struct ir_param *rets;
    unsigned param_bytes;    /* entry: parameter buffer size */
    int line;
    int nslots;              /* registers then constants, numbered from 0 */
    int cstart, cend;        /* its constants: module consts [cstart, cend) */
    unsigned local_bytes;    /* per-thread .local (offsets from 0) */
    unsigned fparam_bytes;   /* per-thread call .param area (offsets from 0) */
    int bad_line;            /* first unsupported instruction's line, or 0 */
    int bad_ins;             /* its index, or -1 */
    int bad_reason;          /* else: what the parser could not take (offset in
                                strings), or -1 */
    int problem;             /* check.c: 0 runs; 1 its own problem; 2 + g:
                                function g it calls has one */
    unsigned shared_bytes;   /* entry, shared.c: the static .shared it uses */
    int shuse, nshuse;       /* entry, shared.c: m->shuse[shuse..+nshuse), its variables
                                at their offsets in its own window */
    unsigned cluster[3];     /* entry: .reqnctapercluster (0: none) */
    int explicit_cluster;    /* entry: .explicitcluster */
};

/* what a module holds for another part, which frees it (a pointer set at
 * run time: module.c does not know that part) */
struct ir_owned { void (*free)(void *self); };

struct ptx_module {
    int nfuncs, capfuncs;
    struct ir_func *funcs;
    int nins, capins;
    struct ir_ins *ins;
    int nconst, capconst;
    struct ir_const *consts;
    int ncalls, capcalls;
    struct ir_call *calls;
    int ntargets, captargets;
    struct ir_targets *targets;
    int nrelocs, caprelocs;
    struct ir_reloc *relocs;
    int nmmas, capmmas;
    struct ir_mma *mmas;
    int nglobals, capglobals;
    struct ptx_global_info *globals;
    unsigned shared_bytes;   /* the module's static .shared variables laid end to end
                                (the parser's limit; each entry has its own layout) */
    int nsvars, capsvars;    /* the static .shared variables, in declaration order */
    struct ir_svar { unsigned size, align; } *svars;
    int nshuse;              /* shared.c: each entry's variables and their offsets */
    struct ir_shuse { int var; unsigned off; } *shuse;
    char *strings; size_t nstrings, capstrings;
    int nfiles, capfiles;    /* .file: number -> name (offset in strings) */
    struct ir_file { int num; int name; } *files;
    _Atomic(void *) xcache;  /* the executor's, made at the first launch; freed with the module */
    _Atomic(void *) jcache;  /* the JIT's compiled kernels (jit_run.c): a struct that
                                starts with a struct ir_owned, freed with the module */
};

/* the name of .file number num, or NULL */
const char *ir_file_name(const struct ptx_module *m, int num);

/* check.c: after parsing, the reentrant functions and each function's
 * problem (0, or -1 when out of memory); then whether function f can run
 * (0), or -1 with the reason in err */
int ir_finish(struct ptx_module *m);
int ir_func_check(const struct ptx_module *m, int f, char *err, size_t errlen);
/* the direct callees of f, or with ind also the address-taken functions
 * its indirect calls may reach: fn(m, f, g, arg) for each */
void ir_callees(const struct ptx_module *m, int f, int ind,
                void (*fn)(const struct ptx_module *, int, int, void *), void *arg);
/* shared.c: each entry's static shared memory, as ptxas lays it out: the
 * module's .shared variables the entry and the functions it may call use,
 * from offset 0 (ir_func.shared_bytes, .shuse; 0, or -1 when out of memory) */
int ir_shared_sizes(struct ptx_module *m);
/* a K_SHARED constant: ((v + 1) << 32) + add for variable v of m->svars,
 * or v = -1 for the dynamic shared memory, with add in [-2^31, 2^31) */
static inline int64_t ir_shared_const(int v, int64_t add) { return ((int64_t)(v + 1) << 32) + add; }
static inline int ir_shared_const_var(int64_t val) { return (int)((val + (1ll << 31)) >> 32) - 1; }
/* where entry's dynamic shared memory starts in its window: after its
 * static variables, 16-aligned */
static inline unsigned ir_shared_dynbase(const struct ir_func *E) { return (E->shared_bytes + 15) & ~15u; }
/* constant val's offset in entry's window: its variable's offset there plus
 * the addend (UINT64_MAX, outside every window, for a variable the entry
 * does not use, which its walk of the calls found none of) */
uint64_t ir_shared_value(const struct ptx_module *m, int entry, int64_t val);

/* type helpers */
static inline unsigned ir_type_size(int t)
{
    switch (t) {
    case T_PRED: return 1;
    case T_B8: case T_U8: case T_S8: return 1;
    case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 2;
    case T_B32: case T_U32: case T_S32: case T_F32: case T_F16X2: case T_BF16X2: return 4;
    case T_B64: case T_U64: case T_S64: case T_F64: return 8;
    case T_TF32: return 4;
    case T_E4M3: case T_E5M2: return 1;
    case T_E4M3X2: case T_E5M2X2: return 2;
    case T_B128: return 16;
    default: return 0;
    }
}
static inline int ir_type_signed(int t) { return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64; }
static inline int ir_type_float(int t) { return t >= T_F16 && t <= T_F64; }

/* builtins.c */
uint16_t ptx_f32_to_f16(float f, int rnd);
float ptx_f16_to_f32(uint16_t h);
uint16_t ptx_f32_to_bf16(float f, int rnd);
/* a non-NaN x rounded once, by rnd, to a float of ebits exponent and mbits
 * fraction bits (f16: 5, 10; bf16: 8, 7): its bits */
uint16_t ptx_round_small(double x, int rnd, int ebits, int mbits);
/* an integer magnitude as a double rounded to odd, so that rounding it
 * again to 24 bits or fewer rounds the integer once */
double ptx_int_to_double_odd(uint64_t mag);
float ptx_bf16_to_f32(uint16_t h);
/* fp8: e4m3 (bias 7, no infinity, NaN S.1111.111) or e5m2 (bias 15,
 * IEEE-like): the value of v, and x rounded to nearest even with
 * .satfinite (beyond the largest finite: the largest finite; NaN: 0x7f) */
double ptx_fp8_value(unsigned v, int e5m2);
unsigned ptx_fp8_round(double x, int e5m2);
/* device printf: formats fmt with the packed argument buffer args (alen
 * bytes readable) into out; returns the length, and in *nargs the number
 * of arguments read (CUDA's printf returns that). rd reads device memory:
 * the readable bytes at addr (0 if none), for %s. */
typedef size_t (*ptx_read_fn)(void *ctx, uint64_t addr, const unsigned char **p);
size_t ptx_format(const char *fmt, size_t fmtlen, const unsigned char *args, size_t alen,
                  char *out, size_t outlen, ptx_read_fn rd, void *rdctx, int *nargs);

#endif
