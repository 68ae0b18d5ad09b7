/* The PTX engine's internal form, shared by the front end (parser.c,
 * check.c) and the executor (exec.c), and nothing else: a JIT could take
 * the same form.
 *
 * Every operand is a register slot. A slot holds 32 lanes of 64 bits.
 * Immediates, symbol addresses (constant for a launch: functions never
 * recurse, so every .local and call .param variable has a static offset)
 * and special registers are slots filled before a warp runs; the
 * instructions only ever name slots. Each function has its own registers. */
#ifndef TD_PTX_IR_H
#define TD_PTX_IR_H

#include <stdint.h>

#include "ptx.h"

enum ir_type {
    T_NONE, T_PRED,
    T_B8, T_B16, T_B32, T_B64, T_B128,
    T_U8, T_U16, T_U32, T_U64,
    T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64,
    T_COUNT
};

enum ir_space { SP_NONE, SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_FPARAM };

enum ir_op {
    OP_NOP, OP_UNSUPPORTED,
    OP_MOV, OP_SREG_DYN, OP_LD, OP_ST, OP_CVTA, OP_CVTA_TO, OP_CVT,
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_ABS, OP_NEG,
    OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR,
    OP_SETP, OP_SET, OP_SELP, OP_SLCT,
    OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_TANH,
    OP_BFE, OP_BFI, OP_BREV, OP_CLZ, OP_POPC, OP_PRMT, OP_SHF, OP_LOP3, OP_SAD,
    OP_MUL24, OP_MAD24, OP_COPYSIGN, OP_TESTP, OP_FNS,
    OP_ATOM, OP_RED,
    OP_BRA, OP_CALL, OP_RET, OP_EXIT, OP_TRAP, OP_BAR, OP_BAR_RED,
    OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_MEMBAR,
    OP_VPRINTF, OP_ASSERTFAIL, OP_SETCOND,
    OP_COUNT
};

/* ins.sub: rounding (cvt, float arithmetic) */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI, RND_RNA };
/* compare operators */
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
enum { SR_CLOCK, SR_CLOCK64, SR_GLOBALTIMER };

/* ins.flags */
#define F_SAT    0x01u
#define F_FTZ    0x02u
#define F_HI     0x04u
#define F_WIDE   0x08u
#define F_APPROX 0x10u
#define F_CC     0x20u  /* carry: unsupported, refused by the parser */
#define F_WRAP   0x40u  /* shf.wrap (else clamp); shf.r: F_HI set for right */
#define F_ANEG   0x80u  /* operand c of setp is negated */
#define F_RELU   0x100u

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

/* one argument copied by a call: caller's .param offset -> callee's */
struct ir_copy { uint32_t from, to, size; };
struct ir_call {
    int callee;              /* function index */
    int nargs, nrets;
    struct ir_copy *args, *rets;
};

/* a constant slot's source: filled before the warp runs */
enum { K_IMM, K_GLOBAL, K_SHARED, K_LOCAL, K_PARAM, K_FPARAM, K_SREG };
/* special registers (K_SREG) */
enum { S_TID_X, S_TID_Y, S_TID_Z, S_NTID_X, S_NTID_Y, S_NTID_Z, S_CTAID_X, S_CTAID_Y, S_CTAID_Z,
       S_NCTAID_X, S_NCTAID_Y, S_NCTAID_Z, S_LANEID, S_WARPID, S_NWARPID, S_SMID, S_NSMID,
       S_GRIDID, S_LANEMASK_EQ, S_LANEMASK_LE, S_LANEMASK_LT, S_LANEMASK_GE, S_LANEMASK_GT,
       S_DYN_SMEM, S_TOTAL_SMEM };
struct ir_const { int32_t slot; int kind; int64_t val; };  /* val: imm / global index / offset / sreg */

struct ir_param { unsigned offset, size, align; };

struct ir_func {
    char *name;
    int is_entry, is_extern, defined;
    int builtin;             /* OP_VPRINTF / OP_ASSERTFAIL / OP_SETCOND for those externs, else 0 */
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
    int bad_ins;             /* its index */
};

struct ptx_module {
    int nfuncs, capfuncs;
    struct ir_func *funcs;
    int nins, capins;
    struct ir_ins *ins;
    int nconst, capconst;
    struct ir_const *consts;
    int ncalls, capcalls;
    struct ir_call *calls;
    int nglobals, capglobals;
    struct ptx_global_info *globals;
    unsigned shared_bytes;   /* static .shared of the module (all functions) */
    char *strings; size_t nstrings, capstrings;
    int nfiles, capfiles;    /* .file: number -> name (offset in strings) */
    struct ir_file { int num; int name; } *files;
};

/* the name of .file number num, or NULL */
const char *ir_file_name(const struct ptx_module *m, int num);

/* type helpers */
static inline unsigned ir_type_size(int t)
{
    switch (t) {
    case T_PRED: return 1;
    case T_B8: case T_U8: case T_S8: return 1;
    case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: return 2;
    case T_B32: case T_U32: case T_S32: case T_F32: case T_F16X2: case T_BF16X2: return 4;
    case T_B64: case T_U64: case T_S64: case T_F64: return 8;
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
float ptx_bf16_to_f32(uint16_t h);
/* device printf: formats fmt with the packed argument buffer args (alen
 * bytes readable) into out; returns the length. rd reads device memory:
 * the readable bytes at addr (0 if none), for %s. */
typedef size_t (*ptx_read_fn)(void *ctx, uint64_t addr, const unsigned char **p);
size_t ptx_format(const char *fmt, size_t fmtlen, const unsigned char *args, size_t alen,
                  char *out, size_t outlen, ptx_read_fn rd, void *rdctx);

#endif
