/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX JIT's subset: which instructions it compiles and how (natively,
 * through the interpreter's per-lane handler, or not at all), and so
 * which kernels it takes; the reason it gives for the others names the
 * first instruction it refuses (docs/ptx-jit.md, "What compiles"). */
#include "jit.h"

#include <stdio.h>
#include <string.h>

/* how hard LLVM works on a kernel, by its size (docs/ptx-jit.md, "Compile
 * time"): up to JIT_O2_MAX_INS PTX instructions, default<O2> and the
 * default code generator; above, the light pipeline (no promotion of the
 * registers to SSA values, whose cost is the registers times the branches,
 * no inlining, the code generator at -O0), whose time grows with the size;
 * above JIT_MAX_INS, or with registers whose stack frame (8 bytes each)
 * would pass JIT_MAX_FRAME, the interpreter */
#define JIT_O2_MAX_INS 1200
#define JIT_MAX_INS 100000
#define JIT_MAX_FRAME (1u << 20)

static const char *ins_name(const struct ptx_module *m, const struct ir_ins *in)
{
    return in->name >= 0 && m->strings ? m->strings + in->name : "?";
}

/* a volatile or strong load or store of memory other threads reach
 * (global, shared, generic: not a thread's own .local window, not the
 * read-only spaces), whose order across a warp's lanes could show */
int jit_strong_access(const struct ptx_module *m, const struct ir_ins *in)
{
    static const char *const words[] = { ".volatile", ".relaxed", ".acquire", ".release", ".mmio" };
    if ((in->op != OP_LD && in->op != OP_ST) || in->space == SP_LOCAL || in->space == SP_PARAM || in->space == SP_CONST)
        return 0;
    const char *name = ins_name(m, in);
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(name, words[i])) return 1;
    return 0;
}

/* a load or store whose lanes the code moves itself: 1 to 4 values of 1 to 8
 * bytes (no predicate) */
static int ldst_native_shape(const struct ir_ins *in)
{
    unsigned n = ir_type_size(in->type);
    return in->vec >= 1 && in->vec <= 4 && n >= 1 && n <= 8 && in->type != T_PRED;
}

int jit_strong_inline(const struct ptx_module *m, const struct ir_ins *in)
{
    return in->space == SP_SHARED && jit_strong_access(m, in) && ldst_native_shape(in);
}

int jit_atom_native(const struct ir_ins *in)
{
    if ((in->op != OP_ATOM && in->op != OP_RED) || in->vec > 1 || in->a < 0 || in->b < 0 ||
        (in->space != SP_GLOBAL && in->space != SP_SHARED))
        return 0;
    unsigned n = ir_type_size(in->type);
    if (n != 4 && n != 8) return 0;
    if (ir_type_float(in->type)) return (in->type == T_F32 || in->type == T_F64) && in->sub == AT_ADD;
    switch (in->sub) {
    case AT_ADD: case AT_AND: case AT_OR: case AT_XOR: case AT_EXCH: case AT_MIN: case AT_MAX: return 1;
    case AT_CAS: return in->c >= 0;
    default: return 0; /* inc, dec: the handler's */
    }
}

int jit_lib_call(const struct ptx_module *m, const struct ir_ins *in)
{
    if (in->op != OP_CALL || in->imm < 0 || in->imm >= m->ncalls) return 0;
    int g = m->calls[in->imm].callee;
    return g >= 0 && g < m->nfuncs && m->funcs[g].builtin > B_NONE && m->funcs[g].builtin < B_COUNT &&
           ir_builtins[m->funcs[g].builtin].how == B_LIB;
}

int jit_imm_of(const struct ptx_module *m, const struct ir_func *F, int slot, int64_t *v)
{
    for (int k = F->cstart; k < F->cend; k++)
        if (m->consts[k].slot == slot) {
            if (m->consts[k].kind != K_IMM) return 0;
            *v = m->consts[k].val;
            return 1;
        }
    return 0;
}

static int plain_float(const struct ir_ins *in)
{
    return (in->type == T_F32 || in->type == T_F64) && !(in->flags & (F_SAT | F_FTZ | F_RELU | F_NAN | F_ABS | F_CC)) &&
           (in->sub == RND_NONE || in->sub == RND_RN);
}

static int int_type(int t) { unsigned n = ir_type_size(t); return !ir_type_float(t) && t != T_PRED && (n == 2 || n == 4 || n == 8); }

int jit_classify(const struct ptx_module *m, const struct ir_func *F, const struct ir_ins *in, ex_fn h,
                    char *why, size_t n)
{
    const char *nm = ins_name(m, in);
    int t = in->type;
    unsigned fl = in->flags;
    switch (in->op) {
    case OP_NOP: case OP_BRA: case OP_EXIT: case OP_RET: case OP_MEMBAR: case OP_TRAP:
        return K_CONTROL;
    case OP_BAR: {
        /* bar.sync, and bar.red (the runner writes the reduction over the
         * threads waiting, jit_bar_red) */
        int64_t id;
        int red = in->sub2 == BK_RED && in->d >= 0 && in->c >= 0;
        if ((in->sub2 != BK_SYNC && !red) || in->b >= 0 || (in->d >= 0 && !red) || !jit_imm_of(m, F, in->a, &id) ||
            id < 0 || id >= NBARS) {
            snprintf(why, n, "'%s' (only bar.sync and bar.red with a constant barrier and no thread count)", nm);
            return 0;
        }
        return K_CONTROL;
    }
    case OP_LD: case OP_ST:
        /* a volatile or strong access: the lanes' order, and another
         * thread's turn between two of them (a spin on a flag), show. The
         * thread stops before it and jit_warp.c runs it with the
         * interpreter's handler for the lanes there, as the interpreter
         * runs its group */
        if (jit_strong_access(m, in)) {
            if (h && (in->space == SP_GLOBAL || in->space == SP_SHARED || in->space == SP_GENERIC)) return K_WSYNC;
            snprintf(why, n, "'%s' (a volatile or strong access outside the global, shared and generic spaces)", nm);
            return 0;
        }
        if (ldst_native_shape(in) &&
            (in->space == SP_GLOBAL || in->space == SP_SHARED || in->space == SP_LOCAL || in->space == SP_PARAM ||
             in->space == SP_GENERIC))
            return K_NATIVE;
        break;
    case OP_MOV:
        if (in->sub2 == 0 && in->d >= 0 && in->a >= 0 && (t == T_PRED || ir_type_size(t) <= 8)) return K_NATIVE;
        break;
    case OP_ADD: case OP_SUB: case OP_AND: case OP_OR: case OP_XOR:
        if (t == T_PRED && in->op != OP_ADD && in->op != OP_SUB) return K_NATIVE;
        if (int_type(t) && !(fl & (F_SAT | F_CC))) return K_NATIVE;
        if ((in->op == OP_ADD || in->op == OP_SUB) && plain_float(in)) return K_NATIVE;
        break;
    case OP_MUL:
        if (int_type(t) && !(fl & (F_SAT | F_CC)) && !((fl & F_WIDE) && (fl & F_HI))) return K_NATIVE;
        if (plain_float(in)) return K_NATIVE;
        break;
    case OP_MAD:
        if (int_type(t) && !(fl & (F_SAT | F_CC)) && !((fl & F_WIDE) && (fl & F_HI))) return K_NATIVE;
        if (plain_float(in)) return K_NATIVE;
        break;
    case OP_FMA: case OP_DIV: case OP_SQRT: case OP_RCP: case OP_RSQRT:
        if (plain_float(in) && !((in->op == OP_DIV || in->op == OP_RCP || in->op == OP_SQRT || in->op == OP_RSQRT) &&
                                 t == T_F64 && (fl & F_APPROX)))
            return K_NATIVE;
        if ((in->op == OP_DIV) && int_type(t) && !fl) return K_NATIVE;
        break;
    case OP_REM:
        if (int_type(t) && !fl) return K_NATIVE;
        break;
    case OP_MIN: case OP_MAX:
        if (int_type(t) && !fl) return K_NATIVE;
        if (plain_float(in)) return K_NATIVE;
        break;
    case OP_SHL: case OP_SHR:
        if (int_type(t)) return K_NATIVE;
        break;
    case OP_NOT:
        if (t == T_PRED || int_type(t)) return K_NATIVE;
        break;
    case OP_CNOT:
        if (int_type(t)) return K_NATIVE;
        break;
    case OP_NEG: case OP_ABS:
        if (int_type(t) && !fl) return K_NATIVE;
        if ((t == T_F32 || t == T_F64) && !(fl & F_FTZ)) return K_NATIVE;
        break;
    case OP_SETP:
        if (in->d >= 0 && (int_type(t) || ((t == T_F32 || t == T_F64) && !(fl & F_FTZ)))) return K_NATIVE;
        break;
    case OP_SELP:
        if (in->d >= 0) return K_NATIVE;
        break;
    case OP_CVT: {
        int st = in->type2;
        if (in->b >= 0 || in->d < 0 || (fl & (F_SAT | F_FTZ | F_RELU | F_SATFIN))) break;
        if (int_type(t) || ir_type_size(t) == 1) {
            if ((int_type(st) || (ir_type_size(st) == 1 && !ir_type_float(st) && st != T_PRED)) && !ir_type_float(t))
                return K_NATIVE;
            break;
        }
        if (t == T_F64 && st == T_F32 && in->sub == RND_NONE) return K_NATIVE;
        if (t == T_F32 && st == T_F64 && (in->sub == RND_NONE || in->sub == RND_RN)) return K_NATIVE;
        if ((t == T_F32 || t == T_F64) && int_type(st) && (in->sub == RND_NONE || in->sub == RND_RN)) return K_NATIVE;
        break;
    }
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_WARPSYNC: case OP_ELECT:
        /* a rendezvous of the lanes its member mask names: the thread stops
         * there and the interpreter's code completes it (jit_warp.c) */
        if ((fl & F_SYNC) && !h && in->e >= 0) return K_WSYNC;
        snprintf(why, n, "'%s' (without .sync it works on the lanes running together, which the JIT does not model)", nm);
        return 0;
    case OP_MMA:
        /* mma, wmma, ldmatrix, stmatrix, movmatrix: the whole warp at once;
         * the thread stops there and the interpreter's handler runs it for
         * the lanes that came (jit_warp.c) */
        if (h) return K_WSYNC;
        break;
    case OP_MBAR:
        /* mbarrier: the lanes there by the interpreter's handler at once
         * (a try_wait that fails ends the warp's turn, jit_warp.c) */
        if (h) return K_WSYNC;
        break;
    case OP_CALL:
        /* of a library builtin: a stop, the lanes there call it at once in
         * lane order, as the interpreter's group does (ex_call_lib) */
        if (jit_lib_call(m, in)) return K_WSYNC;
        break;
    case OP_ACTIVEMASK:
        /* the lanes running together: in the warp's function its lanes; a
         * thread stops there, and the lanes stopped at it together get
         * their mask (jit_warp.c) */
        if (h && in->d >= 0) return K_WSYNC;
        break;
    case OP_CVTA: case OP_CVTA_TO:
        if (in->space == SP_GLOBAL && in->d >= 0) return K_NATIVE;
        break;
    default:
        break;
    }
    /* the interpreter's per-lane handler, where one lane at a time is its
     * meaning: cp.async and cp.async.bulk too, whose copy the interpreter
     * makes at issue, lane by lane (commit_group and wait_group are no-ops
     * after the parser) */
    switch (in->op) {
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_WARPSYNC: case OP_ELECT:
    case OP_ACTIVEMASK: case OP_CPTENSOR: case OP_MBAR: case OP_CBAR: case OP_MAPA:
    case OP_GETCTARANK: case OP_NANOSLEEP:
        break;
    case OP_LD: case OP_ST:
        if (h) return K_LANE;
        break;
    default:
        if (h) return K_LANE;
        break;
    }
    snprintf(why, n, "'%s'", nm);
    return 0;
}

int jit_light(const struct ir_func *F)
{
    return F->end - F->start > JIT_O2_MAX_INS;
}

int jit_supported(const struct ptx_module *m, int entry, const ex_fn *h, char *why, size_t n)
{
    const struct ir_func *F = &m->funcs[entry];
    char what[200];
    if (F->end - F->start > JIT_MAX_INS) {
        snprintf(why, n, "the JIT takes kernels of up to %d PTX instructions; this one has %d", JIT_MAX_INS,
                 F->end - F->start);
        return -1;
    }
    if (jit_light(F) && (size_t)F->nslots * 8 > JIT_MAX_FRAME) {
        snprintf(why, n, "the JIT takes big kernels with up to %u registers; this one has %d", JIT_MAX_FRAME / 8,
                 F->nslots);
        return -1;
    }
    for (int k = F->start; k < F->end; k++) {
        const struct ir_ins *in = &m->ins[k];
        if (in->op == OP_CALL && !jit_lib_call(m, in)) {
            snprintf(why, n,
                     "unsupported by the JIT: instruction '%s' at PTX line %d (calls are not compiled, but of vprintf, "
                     "__assertfail, malloc, free and cudaGraphSetConditional)",
                     ins_name(m, in), in->line);
            return -1;
        }
        if (!jit_classify(m, F, in, h[k], what, sizeof what)) {
            snprintf(why, n, "unsupported by the JIT: instruction %s at PTX line %d", what, in->line);
            return -1;
        }
    }
    for (int k = F->cstart; k < F->cend; k++)
        if (m->consts[k].kind == K_FUNC) {
            snprintf(why, n, "unsupported by the JIT: function addresses");
            return -1;
        }
    return 0;
}
