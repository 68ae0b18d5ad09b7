/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's instructions: operands (registers, ranges, special
 * registers, immediates, addresses, vectors) and each instruction's
 * opcode, modifiers and operands into one ir_ins. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>

/* special registers; xyz: has .x/.y/.z components (numbered from v) */
static const struct { const char *s; int v, xyz; } sregs[] = {
    { "%tid", S_TID_X, 1 }, { "%ntid", S_NTID_X, 1 }, { "%ctaid", S_CTAID_X, 1 }, { "%nctaid", S_NCTAID_X, 1 },
    { "%laneid", S_LANEID, 0 }, { "%warpid", S_WARPID, 0 }, { "%nwarpid", S_NWARPID, 0 }, { "%smid", S_SMID, 0 },
    { "%nsmid", S_NSMID, 0 }, { "%gridid", S_GRIDID, 0 }, { "%lanemask_eq", S_LANEMASK_EQ, 0 },
    { "%lanemask_le", S_LANEMASK_LE, 0 }, { "%lanemask_lt", S_LANEMASK_LT, 0 }, { "%lanemask_ge", S_LANEMASK_GE, 0 },
    { "%lanemask_gt", S_LANEMASK_GT, 0 }, { "%dynamic_smem_size", S_DYN_SMEM, 0 }, { "%total_smem_size", S_TOTAL_SMEM, 0 },
    { "%aggr_smem_size", S_AGGR_SMEM, 0 },
    { "%clusterid", S_CLUSTERID_X, 1 }, { "%nclusterid", S_NCLUSTERID_X, 1 },
    { "%cluster_ctaid", S_CLUSTER_CTAID_X, 1 }, { "%cluster_nctaid", S_CLUSTER_NCTAID_X, 1 },
    { "%cluster_ctarank", S_CLUSTER_CTARANK, 0 }, { "%cluster_nctarank", S_CLUSTER_NCTARANK, 0 },
    { "%is_explicit_cluster", S_IS_EXPLICIT_CLUSTER, 0 },
    /* driver-defined and performance-monitor registers: 0 here */
    { "%reserved_smem_offset_begin", S_ZERO, 0 }, { "%reserved_smem_offset_end", S_ZERO, 0 },
    { "%reserved_smem_offset_cap", S_ZERO, 0 }, { "%reserved_smem_offset_0", S_ZERO, 0 },
    { "%reserved_smem_offset_1", S_ZERO, 0 }, { "%current_graph_exec", S_ZERO, 0 },
};

/* %envreg0..31 (S_ENVREG0 + n), %pm0..7, %pm0_64..%pm7_64 (S_ZERO);
 * -1 for anything else */
static int numbered_sreg(const struct tok *t)
{
    int k = 0;
    if (t->n > 7 && memcmp(t->s, "%envreg", 7) == 0) k = 7;
    else if (t->n > 3 && memcmp(t->s, "%pm", 3) == 0) k = 3;
    if (!k) return -1;
    long v = 0;
    int i = k;
    for (; i < t->n && isdigit((unsigned char)t->s[i]) && i - k < 3; i++) v = v * 10 + (t->s[i] - '0');
    if (i == k) return -1;
    if (k == 7) return i == t->n && v < 32 ? S_ENVREG0 + (int)v : -1;
    return v < 8 && (i == t->n || (t->n - i == 3 && memcmp(t->s + i, "_64", 3) == 0)) ? S_ZERO : -1;
}

/* the name WARP_SZ: the warp size, a constant */
static struct tok warp_sz = { TK_INT, 0, "32", 2, 32, 0 };

int parse_reg_or_sym(struct ps *p, struct opnd *o)
{
    struct tok *t = cur(p);
    o->line = t->line;
    if (is(t, "_")) { next(p); o->kind = O_SINK; return 0; }
    if (t->s[0] == '%') {
        for (size_t i = 0; i < sizeof sregs / sizeof *sregs; i++) {
            if (!is(t, sregs[i].s)) continue;
            next(p);
            int v = sregs[i].v;
            if (sregs[i].xyz) {
                struct tok *c = cur(p);
                if (is(c, ".x")) {} else if (is(c, ".y")) v += 1; else if (is(c, ".z")) v += 2;
                else { ps_err(p, c->line, "bad special register component"); return -1; }
                next(p);
            }
            o->kind = O_REG;
            o->slot = const_slot(p, K_SREG, v);
            o->rtype = T_U32;
            return 0;
        }
        int nsr = numbered_sreg(t);
        if (nsr >= 0) {
            next(p);
            o->kind = O_REG;
            o->slot = const_slot(p, K_SREG, nsr);
            o->rtype = T_U32;
            return 0;
        }
        static const struct { const char *s; int v; } dyn[] = {
            { "%clock", SR_CLOCK }, { "%clock64", SR_CLOCK64 }, { "%clock_hi", SR_CLOCK_HI },
            { "%globaltimer", SR_GLOBALTIMER }, { "%globaltimer_lo", SR_GLOBALTIMER_LO }, { "%globaltimer_hi", SR_GLOBALTIMER_HI },
        };
        for (size_t i = 0; i < sizeof dyn / sizeof *dyn; i++) {
            if (!is(t, dyn[i].s)) continue;
            o->kind = O_SYM; /* resolved by mov */
            o->symkind = -1;
            o->symval = dyn[i].v;
            next(p);
            return 0;
        }
    }
    struct sym *y = sym_find(p, t->s, t->n);
    next(p);
    if (!y || y->kind == SY_REGRANGE) { /* %r12: range %r, index 12 */
        int k = t->n;
        while (k > 0 && isdigit((unsigned char)t->s[k - 1])) k--;
        y = NULL;
        if (k < t->n && k > 0 && t->n - k < 9) {
            struct sym *r = sym_find(p, t->s, k);
            long idx = 0;
            for (int q = k; q < t->n; q++) idx = idx * 10 + (t->s[q] - '0');
            if (r && r->kind == SY_REGRANGE && idx < r->count && !(t->s[k] == '0' && t->n - k > 1)) {
                o->kind = O_REG; o->slot = (int)r->val + (int)idx; o->rtype = r->type;
                return 0;
            }
        }
        if (is(t, "WARP_SZ")) { o->kind = O_IMM; o->imm = &warp_sz; return 0; }
        o->kind = O_NAME; o->name = t;
        return 0;
    }
    switch (y->kind) {
    case SY_REG: o->kind = O_REG; o->slot = (int)y->val; o->rtype = y->type; break;
    case SY_FUNC: case SY_TARGETS: o->kind = O_NAME; o->name = t; break;
    default: o->kind = O_SYM; o->symkind = y->kind; o->symval = y->val; o->symsize = y->type; break;
    }
    return 0;
}

int parse_operand(struct ps *p, struct opnd *o)
{
    memset(o, 0, sizeof *o);
    struct tok *t = cur(p);
    o->line = t->line;
    if (accept(p, '!')) {
        o->neg = 1;
        t = cur(p);
    }
    if (isp(t, '[')) {
        next(p);
        o->kind = O_ADDR;
        o->slot = -1;
        if (cur(p)->kind == TK_ID) {
            struct opnd b;
            memset(&b, 0, sizeof b);
            if (parse_reg_or_sym(p, &b)) return -1;
            if (b.kind == O_REG) o->slot = b.slot;
            else if (b.kind == O_SYM && b.symkind > 0) { o->symkind = b.symkind; o->symval = b.symval; }
            else { ps_err(p, t->line, "bad address"); return -1; }
            if (isp(cur(p), '+') || isp(cur(p), '-')) {
                int neg = isp(cur(p), '-');
                next(p);
                int64_t v = parse_intexpr(p);
                o->off = neg ? -v : v;
            }
        } else {
            o->off = parse_intexpr(p);
            o->symkind = -2; /* absolute */
        }
        return expect(p, ']');
    }
    if (isp(t, '{')) {
        next(p);
        o->kind = O_VEC;
        while (!isp(cur(p), '}') && !p->failed) {
            if (o->nvec == 8) { ps_err(p, t->line, "vector too long"); return -1; }
            struct opnd *e = calloc(1, sizeof *e);
            if (!e) { ps_err(p, t->line, "out of memory"); return -1; }
            o->vimm[o->nvec] = e;
            o->nvec++;
            if (parse_operand(p, e)) return -1;
            if (!accept(p, ',')) break;
        }
        return expect(p, '}');
    }
    if (t->kind == TK_INT || t->kind == TK_FLT || isp(t, '-')) {
        int neg = 0;
        while (isp(cur(p), '-')) { neg = !neg; next(p); }
        t = cur(p);
        if (t->kind != TK_INT && t->kind != TK_FLT) { ps_err(p, t->line, "bad immediate"); return -1; }
        o->kind = O_IMM;
        o->imm = t;
        o->ineg = neg;
        next(p);
        return 0;
    }
    if (t->kind == TK_ID) {
        if (parse_reg_or_sym(p, o)) return -1;
        if (accept(p, '|')) { /* d|p */
            struct opnd q;
            memset(&q, 0, sizeof q);
            if (parse_reg_or_sym(p, &q)) return -1;
            o->slot2 = q.kind == O_REG ? q.slot : -1;
        } else
            o->slot2 = -1;
        if (o->kind == O_SYM && (isp(cur(p), '+') || isp(cur(p), '-'))) { /* sym+off */
            int neg = isp(cur(p), '-');
            next(p);
            int64_t v = parse_intexpr(p);
            o->off = neg ? -v : v;
        }
        return 0;
    }
    ps_err(p, t->line, "bad operand '%.*s'", t->n > 40 ? 40 : t->n, t->s);
    return -1;
}

void opnd_free(struct opnd *o)
{
    for (int i = 0; i < o->nvec; i++) {
        opnd_free(o->vimm[i]);
        free(o->vimm[i]);
    }
    o->nvec = 0;
}

/* immediate bits for a value of type t */
static int64_t imm_bits(struct tok *tk, int neg, int t)
{
    if (tk->kind == TK_FLT) {
        double d;
        if (tk->fbits == 32) { float f; uint32_t u = (uint32_t)tk->iv; memcpy(&f, &u, 4); d = f; }
        else memcpy(&d, &tk->iv, 8);
        if (neg) d = -d;
        if (t == T_F64) { int64_t b; memcpy(&b, &d, 8); return b; }
        if (t == T_F32 || t == T_NONE) {
            if (tk->fbits == 32 && !neg) return (int64_t)(uint32_t)tk->iv;
            float f = (float)d; uint32_t u; memcpy(&u, &f, 4); return u;
        }
        if (tk->fbits == 32) return (int64_t)(neg ? tk->iv ^ 0x80000000u : tk->iv);
        int64_t b; memcpy(&b, &d, 8); return b;
    }
    int64_t v = (int64_t)(neg ? (uint64_t)0 - tk->iv : tk->iv); /* -9223372036854775808 too */
    if (t == T_F32) { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); return u; }
    if (t == T_F64) { double d = (double)v; int64_t b; memcpy(&b, &d, 8); return b; }
    return v;
}

static int sym_const_kind(int symkind)
{
    switch (symkind) {
    case SY_GLOBAL: return K_GLOBAL;
    case SY_SHARED: return K_SHARED;
    case SY_LOCAL: return K_LOCAL;
    case SY_KPARAM: return K_PARAM;
    case SY_FPARAM: return K_FPARAM;
    default: return -1;
    }
}

/* a source operand as a slot (immediates and symbols become constants) */
int src(struct ps *p, struct opnd *o, int t)
{
    switch (o->kind) {
    case O_REG: return o->slot;
    case O_IMM: return const_slot(p, K_IMM, imm_bits(o->imm, o->ineg, t));
    case O_SYM: {
        int k = sym_const_kind(o->symkind);
        if (k < 0) break;
        if (k == K_GLOBAL && (o->off < 0 || o->off >= (1ll << 38))) break;
        if (k != K_GLOBAL && (o->off < -(1ll << 31) || o->off >= (1ll << 31))) break; /* a window's: 32 bits (ir_shared_const()) */
        int64_t key = k == K_GLOBAL ? (o->symval | (o->off << 24)) : o->symval + o->off;
        return const_slot(p, k, key);
    }
    case O_NAME: { /* a function's address */
        struct sym *y = sym_find(p, o->name->s, o->name->n);
        if (!y || y->kind != SY_FUNC) break;
        p->m->funcs[y->val].addr_taken = 1;
        return const_slot(p, K_FUNC, y->val);
    }
    default: break;
    }
    ps_err(p, o->line, "bad source operand");
    return 0;
}

int dst(struct ps *p, struct opnd *o)
{
    if (o->kind == O_SINK) return -1;
    if (o->kind != O_REG) { ps_err(p, o->line, "destination is not a register"); return -1; }
    if (o->slot >= p->m->funcs[p->fn].nslots) { ps_err(p, o->line, "bad destination"); return -1; }
    return o->slot;
}

/* the base slot of an address operand [reg+off], [var+off] or [imm]; *off
 * its offset */
int addr_base(struct ps *p, struct opnd *ad, int64_t *off)
{
    *off = ad->off;
    if (ad->slot >= 0) return ad->slot;
    if (ad->symkind == -2) return const_slot(p, K_IMM, 0);
    int k = sym_const_kind(ad->symkind);
    if (k < 0) { ps_err(p, ad->line, "bad address"); return 0; }
    return const_slot(p, k, ad->symval);
}

struct ir_ins *new_ins(struct ps *p, int line)
{
    struct ptx_module *m = p->m;
    if (ps_grow((void **)&m->ins, m->nins, &m->capins, sizeof *m->ins)) { ps_err(p, line, "out of memory"); return NULL; }
    struct ir_ins *in = &m->ins[m->nins++];
    memset(in, 0, sizeof *in);
    in->guard = in->d = in->d2 = in->a = in->b = in->c = in->e = -1;
    in->vr[0] = in->vr[1] = in->vr[2] = in->vr[3] = -1;
    in->line = line;
    in->fn = p->fn;
    in->name = -1;
    in->srcfile = p->loc_file;
    in->srcline = p->loc_line;
    in->srccol = p->loc_col;
    in->vec = 1;
    return in;
}

static const struct { const char *s; int op; } opnames[] = {
    { "mov", OP_MOV }, { "ld", OP_LD }, { "ldu", OP_LD }, { "st", OP_ST }, { "cvta", OP_CVTA }, { "cvt", OP_CVT },
    { "add", OP_ADD }, { "sub", OP_SUB }, { "mul", OP_MUL }, { "mad", OP_MAD }, { "fma", OP_FMA },
    { "div", OP_DIV }, { "rem", OP_REM }, { "abs", OP_ABS }, { "neg", OP_NEG }, { "min", OP_MIN }, { "max", OP_MAX },
    { "and", OP_AND }, { "or", OP_OR }, { "xor", OP_XOR }, { "not", OP_NOT }, { "cnot", OP_CNOT },
    { "shl", OP_SHL }, { "shr", OP_SHR }, { "setp", OP_SETP }, { "set", OP_SET }, { "selp", OP_SELP }, { "slct", OP_SLCT },
    { "rcp", OP_RCP }, { "sqrt", OP_SQRT }, { "rsqrt", OP_RSQRT }, { "ex2", OP_EX2 }, { "lg2", OP_LG2 },
    { "sin", OP_SIN }, { "cos", OP_COS }, { "tanh", OP_TANH },
    { "bfe", OP_BFE }, { "bfi", OP_BFI }, { "brev", OP_BREV }, { "clz", OP_CLZ }, { "popc", OP_POPC },
    { "prmt", OP_PRMT }, { "shf", OP_SHF }, { "lop3", OP_LOP3 }, { "sad", OP_SAD },
    { "mul24", OP_MUL24 }, { "mad24", OP_MAD24 }, { "copysign", OP_COPYSIGN }, { "testp", OP_TESTP },
    { "addc", OP_ADDC }, { "subc", OP_SUBC }, { "madc", OP_MADC }, { "bmsk", OP_BMSK }, { "bfind", OP_BFIND },
    { "dp4a", OP_DP4A }, { "dp2a", OP_DP2A }, { "szext", OP_SZEXT }, { "fns", OP_FNS },
    { "atom", OP_ATOM }, { "red", OP_RED }, { "bra", OP_BRA }, { "call", OP_CALL }, { "ret", OP_RET },
    { "exit", OP_EXIT }, { "trap", OP_TRAP }, { "bar", OP_BAR }, { "barrier", OP_BAR },
    { "shfl", OP_SHFL }, { "vote", OP_VOTE }, { "activemask", OP_ACTIVEMASK }, { "membar", OP_MEMBAR },
    { "match", OP_MATCH }, { "redux", OP_REDUX }, { "elect", OP_ELECT }, { "brx", OP_BRX },
    { "fence", OP_MEMBAR }, { "prefetch", OP_NOP }, { "prefetchu", OP_NOP }, { "pmevent", OP_NOP },
    { "nanosleep", OP_NOP }, { "brkpt", OP_TRAP }, { "discard", OP_NOP }, { "applypriority", OP_NOP },
    { "createpolicy", OP_CREATEPOLICY }, { "cp", OP_CPASYNC }, { "mbarrier", OP_MBAR },
    { "griddepcontrol", OP_GRIDDEP }, { "mapa", OP_MAPA }, { "getctarank", OP_GETCTARANK },
    { "isspacep", OP_ISSPACEP },
};


static void mark_unsupported(struct ps *p, struct ir_ins *in, const char *s, int n)
{
    (void)p; (void)s; (void)n;
    in->op = OP_UNSUPPORTED;
}

/* parses one instruction; the guard was consumed */
int parse_ins(struct ps *p, int guard, int gneg)
{
    struct tok *opt = cur(p);
    int line = opt->line;
    next(p);
    int op = -1;
    for (size_t i = 0; i < sizeof opnames / sizeof *opnames; i++)
        if (is(opt, opnames[i].s)) { op = opnames[i].op; break; }
    struct ir_ins *in = new_ins(p, line);
    if (!in) return -1;
    in->guard = guard;
    in->gneg = (uint8_t)gneg;
    /* the full spelling for messages */
    const char *nstart = opt->s;
    struct mods md;
    parse_mods(p, in, &op, &md);
    int types_n = md.ntypes, *tys = md.tys, unknown_mod = md.unknown, cvta_to = md.cvta_to, warp = md.warp;
    int nspaces = md.nspaces, *spaces = md.spaces, bulk = md.bulk;
    struct tok *bad = md.bad;
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen > 60 || nlen < 0) nlen = opt->n;
    in->name = intern(p, nstart, nlen);
    in->type = (uint8_t)tys[0];
    in->type2 = (uint8_t)tys[1];
    if (op < 0 || op == OP_UNSUPPORTED || unknown_mod) { /* operands not parsed: any syntax will do */
        while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF) next(p);
        if (expect(p, ';')) return -1;
        mark_unsupported(p, in, nstart, nlen);
        return 0;
    }
    /* operands */
    struct opnd ops[8];
    int nops = 0;
    struct opnd calllist[2][34];
    int ncl[2] = { 0, 0 }, ncall = 0;
    int callee_before = -1;
    while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF && !p->failed) {
        if (op == OP_CALL && isp(cur(p), '(')) {
            next(p);
            int which = ncall < 2 ? ncall : 1;
            if (callee_before < 0 && nops == 0) which = 0; /* (ret), func, (args) */
            else which = 1;
            while (!isp(cur(p), ')') && !p->failed) {
                if (ncl[which] == 34) { ps_err(p, line, "too many call arguments"); goto bad_ops; }
                if (parse_operand(p, &calllist[which][ncl[which]++])) goto bad_ops;
                if (!accept(p, ',')) break;
            }
            if (expect(p, ')')) goto bad_ops;
            if (which == 0) callee_before = 1;
            ncall++;
        } else {
            if (nops == 8) { ps_err(p, line, "too many operands"); goto bad_ops; }
            if (parse_operand(p, &ops[nops++])) goto bad_ops;
        }
        if (!accept(p, ',')) break;
    }
    if (p->failed || expect(p, ';')) {
    bad_ops:
        for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
        for (int w = 0; w < 2; w++)
            for (int i = 0; i < ncl[w]; i++) opnd_free(&calllist[w][i]);
        return -1;
    }
    if (md.hint && nops > 0 && ops[nops - 1].kind == O_REG && ops[nops - 1].rtype == T_B64 && op != OP_CPASYNC)
        opnd_free(&ops[--nops]); /* the cache policy: a hint only */
    if (op < 0 || op == OP_UNSUPPORTED || unknown_mod) {
        (void)bad;
        mark_unsupported(p, in, nstart, nlen);
        for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
        return 0;
    }
    in->op = (uint16_t)op;
    int t = in->type;
    int rc = 0;
#define NEED(n) do { if (nops != (n)) { ps_err(p, line, "%.*s: expected %d operands", nlen, nstart, (n)); rc = -1; goto out; } } while (0)
    switch (op) {
    case OP_NOP:
    case OP_MEMBAR:
        break;
    case OP_CREATEPOLICY:
        /* createpolicy{.fractional|.range|.cvt}.L2::...b64 policy, ...: an
         * opaque cache policy that only .L2::cache_hint operands take, and
         * this memory has no cache for it to steer: any value will do */
        if (nops < 2 || nops > 4 || ops[0].kind != O_REG || ir_type_size(ops[0].rtype) != 8) {
            ps_err(p, line, "createpolicy: expected a 64-bit destination and its operands");
            rc = -1;
            goto out;
        }
        in->op = OP_MOV;
        in->type = T_B64;
        in->d = dst(p, &ops[0]);
        in->a = const_slot(p, K_IMM, 0);
        break;
    case OP_GRIDDEP: /* the grids before this one have finished: launches on a stream run in order */
        NEED(0);
        in->op = OP_NOP;
        break;
    case OP_CVTPACK: /* cvt.pack.sat.ctype.s32{.b32} d, a, b{, c} */
        if (nops != 3 && nops != 4) { ps_err(p, line, "%.*s: expected 3 or 4 operands", nlen, nstart); rc = -1; goto out; }
        if (!(in->flags & F_SAT) || tys[1] != T_S32 || (nops == 4) != (types_n == 3) ||
            !(t == T_U16 || t == T_S16 || t == T_U8 || t == T_S8 || t == T_U4 || t == T_S4) ||
            ((t == T_U16 || t == T_S16) && nops == 4)) {
            mark_unsupported(p, in, nstart, nlen);
            goto out;
        }
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_S32);
        in->b = src(p, &ops[2], T_S32);
        if (nops == 4) in->c = src(p, &ops[3], T_B32);
        break;
    case OP_MOV:
        NEED(2);
        if (ops[1].kind == O_SYM && ops[1].symkind == -1) { /* %clock & co */
            in->op = OP_SREG_DYN;
            in->sub = (uint8_t)ops[1].symval;
            in->d = dst(p, &ops[0]);
            break;
        }
        if (ops[0].kind == O_VEC || ops[1].kind == O_VEC) { /* pack/unpack */
            if (ops[0].kind == O_VEC) { /* mov.b64 {a,b}, %rd: unpack */
                in->op = OP_MOV; in->sub2 = 1; in->vec = (uint8_t)ops[0].nvec;
                for (int i = 0; i < ops[0].nvec; i++) in->vr[i] = dst(p, ops[0].vimm[i]);
                in->a = src(p, &ops[1], t);
            } else {
                in->op = OP_MOV; in->sub2 = 2; in->vec = (uint8_t)ops[1].nvec;
                for (int i = 0; i < ops[1].nvec; i++) in->vr[i] = src(p, ops[1].vimm[i], T_NONE);
                in->d = dst(p, &ops[0]);
            }
            break;
        }
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        break;
    case OP_LD:
    case OP_ST: {
        NEED(2);
        struct opnd *ad = op == OP_LD ? &ops[1] : &ops[0];
        struct opnd *rv = op == OP_LD ? &ops[0] : &ops[1];
        if (ad->kind != O_ADDR) { ps_err(p, line, "expected an address"); rc = -1; goto out; }
        if (ad->slot >= 0) in->a = ad->slot;
        else if (ad->symkind == -2) in->a = const_slot(p, K_IMM, 0);
        else {
            int k = sym_const_kind(ad->symkind);
            in->a = const_slot(p, k, ad->symval);
            if (k == K_FPARAM && (in->space == SP_PARAM || in->space == SP_NONE)) in->space = SP_FPARAM;
            if (k == K_PARAM && in->space == SP_NONE) in->space = SP_PARAM;
        }
        in->imm = ad->off;
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        if (in->space == SP_PARAM && !p->m->funcs[p->fn].is_entry) in->space = SP_FPARAM;
        if (rv->kind == O_VEC) {
            if (rv->nvec != in->vec) { ps_err(p, line, "vector size mismatch"); rc = -1; goto out; }
            if (in->vec == 8) { /* .v8 of 32 bits: two .v4 accesses, 16 bytes apart */
                int ai = (int)(in - p->m->ins);
                if (ir_type_size(t) != 4) { mark_unsupported(p, in, nstart, nlen); goto out; }
                in->vec = 4;
                for (int i = 0; i < 4; i++) {
                    in->vr[i] = op == OP_LD ? dst(p, rv->vimm[i]) : src(p, rv->vimm[i], t);
                    if (op == OP_LD && in->vr[i] == in->a) { mark_unsupported(p, in, nstart, nlen); goto out; }
                }
                struct ir_ins *hi = new_ins(p, line);
                if (!hi) { rc = -1; goto out; }
                in = &p->m->ins[ai];
                *hi = *in;
                hi->imm += 16;
                for (int i = 0; i < 4; i++) hi->vr[i] = op == OP_LD ? dst(p, rv->vimm[4 + i]) : src(p, rv->vimm[4 + i], t);
                break;
            }
            for (int i = 0; i < rv->nvec; i++)
                in->vr[i] = op == OP_LD ? dst(p, rv->vimm[i]) : src(p, rv->vimm[i], t);
        } else {
            if (in->vec != 1) { ps_err(p, line, "vector size mismatch"); rc = -1; goto out; }
            in->vr[0] = op == OP_LD ? dst(p, rv) : src(p, rv, t);
        }
        if (ir_type_size(t) == 0 || t == T_B128) { mark_unsupported(p, in, nstart, nlen); goto out; }
        break;
    }
    case OP_CVTA:
        NEED(2);
        if (cvta_to) in->op = OP_CVTA_TO;
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        if (in->space == SP_PARAM && !p->m->funcs[p->fn].is_entry) in->space = SP_FPARAM;
        break;
    case OP_ISSPACEP: /* isspacep.space p, a: global, shared (::cta, ::cluster), local, param */
        NEED(2);
        if (in->space != SP_GLOBAL && in->space != SP_SHARED && in->space != SP_CLUSTER && in->space != SP_LOCAL &&
            in->space != SP_PARAM) {
            mark_unsupported(p, in, nstart, nlen); /* .const: constant variables are global memory here */
            goto out;
        }
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_U64);
        break;
    case OP_CVT:
        if (nops == 3 && (t == T_F16X2 || t == T_BF16X2 || t == T_E4M3X2 || t == T_E5M2X2)) { /* pack two f32: a high, b low */
            in->d = dst(p, &ops[0]);
            in->a = src(p, &ops[1], in->type2);
            in->b = src(p, &ops[2], in->type2);
            break;
        }
        NEED(2);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], in->type2);
        if (!in->type2) { ps_err(p, line, "cvt needs two types"); rc = -1; goto out; }
        break;
    case OP_SETP:
    case OP_SET:
        if (nops < 3 || nops > 4) { ps_err(p, line, "setp: bad operands"); rc = -1; goto out; }
        if (op == OP_SET) { in->type2 = (uint8_t)tys[1]; t = tys[1]; in->type = (uint8_t)tys[0]; }
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2 >= 0 ? ops[0].slot2 : -1;
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        if (nops == 4) {
            in->c = src(p, &ops[3], T_PRED);
            if (ops[3].neg) in->flags |= F_ANEG;
            if (!in->sub2) { ps_err(p, line, "setp: predicate without boolean op"); rc = -1; goto out; }
        }
        if (op == OP_SET && !in->type2) { ps_err(p, line, "set needs two types"); rc = -1; goto out; }
        break;
    case OP_SELP:
        NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        in->c = src(p, &ops[3], T_PRED);
        if (ops[3].neg) in->flags |= F_ANEG;
        break;
    case OP_SLCT:
        NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        in->c = src(p, &ops[3], tys[1]);
        break;
    case OP_NOT: case OP_CNOT: case OP_ABS: case OP_NEG: case OP_RCP: case OP_SQRT: case OP_RSQRT:
    case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH: case OP_BREV: case OP_CLZ:
    case OP_POPC: case OP_TESTP: case OP_BFIND:
        NEED(2);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], (op == OP_CLZ || op == OP_POPC || op == OP_BREV || op == OP_NOT || op == OP_CNOT) ? T_NONE : t);
        if (ops[1].neg && t == T_PRED && op == OP_NOT) { ps_err(p, line, "bad operand"); rc = -1; goto out; }
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
    case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR: case OP_MUL24: case OP_COPYSIGN:
    case OP_ADDC: case OP_SUBC: case OP_BMSK: case OP_SZEXT:
        NEED(3);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], (op == OP_SHL || op == OP_SHR || op == OP_SZEXT) ? T_U32 : t);
        break;
    case OP_DP4A: case OP_DP2A: /* dp4a.atype.btype d, a, b, c */
        NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_U32);
        in->b = src(p, &ops[2], T_U32);
        in->c = src(p, &ops[3], T_U32);
        break;
    case OP_FNS: /* fns.b32 d, mask, base, offset */
        NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_U32);
        in->b = src(p, &ops[2], T_U32);
        in->c = src(p, &ops[3], T_S32);
        break;
    case OP_MAD: case OP_FMA: case OP_BFE: case OP_PRMT: case OP_SAD: case OP_MAD24: case OP_MADC:
        NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], op == OP_BFE ? t : op == OP_PRMT ? T_B32 : t);
        in->b = src(p, &ops[2], op == OP_BFE ? T_U32 : t);
        in->c = src(p, &ops[3], op == OP_BFE ? T_U32 : (op == OP_MAD && (in->flags & F_WIDE)) ? T_NONE : t);
        if (op == OP_PRMT && (tys[1] != 0 || types_n > 1)) { mark_unsupported(p, in, nstart, nlen); goto out; }
        break;
    case OP_BFI: case OP_SHF:
        if (op == OP_BFI) NEED(5); else NEED(4);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        in->c = src(p, &ops[3], T_U32);
        if (op == OP_BFI) in->e = src(p, &ops[4], T_U32);
        break;
    case OP_LOP3:
        NEED(5);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        in->c = src(p, &ops[3], t);
        if (ops[4].kind != O_IMM) { mark_unsupported(p, in, nstart, nlen); goto out; }
        in->imm = imm_bits(ops[4].imm, 0, T_U32) & 0xff;
        break;
    case OP_ATOM:
    case OP_RED: {
        int base = op == OP_ATOM ? 1 : 0;
        int need = base + 2 + (in->sub == AT_CAS);
        if (nops == need + 1 && ops[need].kind == O_REG) nops = need; /* the cache policy of .L2::cache_hint */
        NEED(need);
        if (ops[0].kind == O_VEC || ops[base + 1].kind == O_VEC) { mark_unsupported(p, in, nstart, nlen); goto out; }
        if (op == OP_ATOM) in->d = dst(p, &ops[0]);
        struct opnd *ad = &ops[base];
        if (ad->kind != O_ADDR) { ps_err(p, line, "expected an address"); rc = -1; goto out; }
        if (ad->slot >= 0) in->a = ad->slot;
        else if (ad->symkind == -2) in->a = const_slot(p, K_IMM, 0);
        else {
            int k = sym_const_kind(ad->symkind);
            in->a = const_slot(p, k, ad->symval);
        }
        in->imm = ad->off;
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        in->b = src(p, &ops[base + 1], t);
        if (in->sub == AT_CAS) in->c = src(p, &ops[base + 2], t);
        { /* the forms the PTX ISA has: 32 and 64 bits; cas.b16; add of f16, bf16 and their pairs */
            unsigned n = ir_type_size(t);
            int half = t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
            int ok = in->vec == 1 && in->space != SP_LOCAL && in->space != SP_PARAM && in->space != SP_CONST;
            if (half) ok = ok && in->sub == AT_ADD;
            else if (n == 2) ok = ok && in->sub == AT_CAS;
            else if (ir_type_float(t)) ok = ok && (in->sub == AT_ADD || in->sub == AT_EXCH) && (n == 4 || n == 8);
            else ok = ok && (n == 4 || n == 8);
            if (!ok) { mark_unsupported(p, in, nstart, nlen); goto out; }
        }
        break;
    }
    case OP_BRA:
        NEED(1);
        if (ops[0].kind != O_NAME) { ps_err(p, line, "bra: expected a label"); rc = -1; goto out; }
        if (ps_grow((void **)&p->fixes, p->nfix, &p->capfix, sizeof *p->fixes)) { ps_err(p, line, "out of memory"); rc = -1; goto out; }
        p->fixes[p->nfix++] = (struct fix){ (int)(in - p->m->ins), ops[0].name->s, ops[0].name->n, line, -1, 0 };
        break;
    case OP_CALL: {
        /* call (rets), f, (args) | call f, (args) | call (rets), f | call f;
         * through a pointer: call (rets), %r, (args), prototype */
        int fi;
        if (nops >= 1 && ops[0].kind == O_REG) { /* indirect: the prototype (or .calltargets) is not needed */
            if (nops > 2 || (nops == 2 && ops[1].kind != O_NAME)) { ps_err(p, line, "call: bad operands"); rc = -1; goto out; }
            fi = -1;
            in->a = ops[0].slot;
        } else {
            if (nops != 1 || ops[0].kind != O_NAME) { ps_err(p, line, "call: expected a function"); rc = -1; goto out; }
            fi = func_get(p, ops[0].name->s, ops[0].name->n);
            if (fi < 0) { ps_err(p, line, "out of memory"); rc = -1; goto out; }
        }
        struct opnd *rets = calllist[0], *args = calllist[1];
        int nrets = ncl[0], nargs = ncl[1];
        if (callee_before < 0) { /* no return list: the only list is the args */
            args = calllist[0]; nargs = ncl[0]; rets = NULL; nrets = 0;
            if (ncl[1]) { args = calllist[1]; nargs = ncl[1]; }
        }
        if (nargs > 32 || nrets > 8) { ps_unsup(p, line, "call with more than 32 arguments or 8 results"); rc = -1; goto out; }
        struct ptx_module *m = p->m;
        if (ps_grow((void **)&m->calls, m->ncalls, &m->capcalls, sizeof *m->calls) ||
            ps_grow((void **)&p->cfixes, p->ncfix, &p->capcfix, sizeof *p->cfixes)) { ps_err(p, line, "out of memory"); rc = -1; goto out; }
        struct ir_call *c = &m->calls[m->ncalls];
        memset(c, 0, sizeof *c);
        c->callee = fi;
        struct cfix *cf = &p->cfixes[p->ncfix++];
        memset(cf, 0, sizeof *cf);
        cf->call = m->ncalls;
        cf->caller = p->fn;
        cf->nargs = nargs;
        cf->nrets = nrets;
        cf->line = line;
        for (int i = 0; i < nargs; i++) {
            if (args[i].kind != O_SYM || args[i].symkind != SY_FPARAM) { mark_unsupported(p, in, nstart, nlen); m->ncalls++; goto out; }
            cf->argoff[i] = (int)args[i].symval;
            cf->argsz[i] = args[i].symsize;
        }
        for (int i = 0; i < nrets; i++) {
            if (rets[i].kind != O_SYM || rets[i].symkind != SY_FPARAM) { mark_unsupported(p, in, nstart, nlen); m->ncalls++; goto out; }
            cf->retoff[i] = (int)rets[i].symval;
            cf->retsz[i] = rets[i].symsize;
        }
        in->imm = m->ncalls++;
        break;
    }
    case OP_CPASYNC: {
        int64_t off;
        if (in->sub == CP_COMMIT || in->sub == CP_WAIT_ALL) { NEED(0); in->op = OP_NOP; break; } /* copies are done at once */
        if (in->sub == CP_WAIT) { NEED(1); in->op = OP_NOP; break; }
        if (bulk) { /* cp.async.bulk: the copy at once; its mbarrier's complete_tx too */
            /* [dst], [src], size, [mbar] (to shared) or [dst], [src], size (to global, bulk_group) */
            int to_global = nspaces == 2 && spaces[0] == SP_GLOBAL && spaces[1] == SP_SHARED;
            int to_shared = nspaces == 2 && spaces[0] == SP_SHARED && (spaces[1] == SP_GLOBAL || spaces[1] == SP_SHARED);
            int want = to_global ? 3 : 4, hint = nops == want + 1 && ops[want].kind == O_REG;
            if (!(to_global || to_shared) || (nops != want && !hint)) { mark_unsupported(p, in, nstart, nlen); goto out; }
            if (ops[0].kind != O_ADDR || ops[1].kind != O_ADDR || (want == 4 && ops[3].kind != O_ADDR) ||
                (ops[2].kind != O_REG && ops[2].kind != O_IMM)) {
                ps_err(p, line, "cp.async.bulk: bad operands");
                rc = -1;
                goto out;
            }
            in->sub = to_global ? CP_BULK_S2G : spaces[1] == SP_GLOBAL ? CP_BULK_G2S : CP_BULK_S2S;
            in->a = addr_base(p, &ops[0], &off);
            in->imm = off;
            in->b = addr_base(p, &ops[1], &off);
            in->c = const_slot(p, K_IMM, off);
            in->e = src(p, &ops[2], T_U32);
            if (want == 4) {
                in->vr[0] = addr_base(p, &ops[3], &off);
                in->vr[1] = const_slot(p, K_IMM, off);
            }
            in->space = SP_SHARED;
            break;
        }
        if (in->sub == CP_MBAR_ARRIVE) { /* cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar] */
            NEED(1);
            if (ops[0].kind != O_ADDR) { ps_err(p, line, "expected an address"); rc = -1; goto out; }
            in->op = OP_MBAR;
            in->sub = MB_CPASYNC_ARRIVE;
            in->a = addr_base(p, &ops[0], &off);
            in->imm = off;
            if (in->space == SP_NONE) in->space = SP_GENERIC;
            break;
        }
        /* cp.async.ca.shared.global [dst], [src], size{, src-size | ignore-src}{, cache-policy} */
        if (nops < 3 || nops > 5 || ops[0].kind != O_ADDR || ops[1].kind != O_ADDR || ops[2].kind != O_IMM) {
            ps_err(p, line, "cp.async: bad operands");
            rc = -1;
            goto out;
        }
        if (nspaces != 2 || spaces[0] != SP_SHARED || spaces[1] != SP_GLOBAL) { mark_unsupported(p, in, nstart, nlen); goto out; }
        uint64_t size = ops[2].imm->iv;
        if (ops[2].imm->kind != TK_INT || (size != 4 && size != 8 && size != 16)) { ps_err(p, line, "cp.async: size is 4, 8 or 16"); rc = -1; goto out; }
        in->sub2 = (uint8_t)size;
        in->a = addr_base(p, &ops[0], &off);
        in->imm = off;
        in->b = addr_base(p, &ops[1], &off);
        in->c = const_slot(p, K_IMM, off);
        in->space = SP_SHARED;
        if (nops >= 4 && !(nops == 4 && ops[3].kind == O_REG && ops[3].rtype == T_B64)) { /* src-size or ignore-src */
            if (ops[3].kind == O_REG && ops[3].rtype == T_PRED) in->flags |= F_HI;
            in->e = src(p, &ops[3], T_U32);
            if (ops[3].neg) in->flags |= F_ANEG;
        }
        break;
    }
    case OP_MBAR: {
        int64_t off;
        int sub = in->sub;
        int res = sub == MB_ARRIVE || sub == MB_ARRIVE_DROP || sub == MB_TEST_WAIT || sub == MB_TRY_WAIT;
        if (sub == MB_PENDING) { /* mbarrier.pending_count.b64 count, state */
            NEED(2);
            in->d = dst(p, &ops[0]);
            in->b = src(p, &ops[1], T_B64);
            break;
        }
        struct opnd *ad = &ops[res ? 1 : 0];
        if (nops < (res ? 2 : 1) || ad->kind != O_ADDR) { ps_err(p, line, "mbarrier: bad operands"); rc = -1; goto out; }
        int vals = nops - (res ? 2 : 1);     /* value operands after the address */
        if (sub == MB_TRY_WAIT && vals == 2) vals = 1; /* and the suspend time hint */
        if (vals > 1 || ((sub == MB_INIT || sub == MB_EXPECT_TX || sub == MB_COMPLETE_TX || sub == MB_TEST_WAIT ||
                          sub == MB_TRY_WAIT) && vals != 1) ||
            (sub == MB_INVAL && vals) || ((in->sub2 & (MB_WITH_TX | MB_NOCOMPLETE)) && vals != 1)) {
            ps_err(p, line, "mbarrier: bad operands");
            rc = -1;
            goto out;
        }
        if (res) in->d = ops[0].kind == O_SINK ? -1 : dst(p, &ops[0]); /* _: the state is not kept */
        in->a = addr_base(p, ad, &off);
        in->imm = off;
        if (vals) in->b = src(p, &ops[(res ? 2 : 1)], T_U64);
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        /* .shared::cluster: arrivals and transaction counts on another block's mbarrier */
        int remote_ok = sub == MB_ARRIVE || sub == MB_ARRIVE_DROP || sub == MB_EXPECT_TX || sub == MB_COMPLETE_TX;
        if (in->space != SP_SHARED && in->space != SP_GENERIC && !(in->space == SP_CLUSTER && remote_ok)) {
            mark_unsupported(p, in, nstart, nlen);
            goto out;
        }
        break;
    }
    case OP_BRX: { /* brx.idx index, targets */
        NEED(2);
        struct sym *y = ops[1].kind == O_NAME ? sym_find(p, ops[1].name->s, ops[1].name->n) : NULL;
        if (!y || y->kind != SY_TARGETS) { ps_err(p, line, "brx.idx: expected a .branchtargets list"); rc = -1; goto out; }
        in->a = src(p, &ops[0], T_U32);
        in->imm = y->val;
        break;
    }
    case OP_RET: case OP_EXIT: case OP_TRAP:
        break;
    case OP_CBAR: /* barrier.cluster.arrive, barrier.cluster.wait: no operands */
        NEED(0);
        break;
    case OP_MAPA: /* mapa{.shared::cluster}.u32/.u64 d, a, rank */
    case OP_GETCTARANK: /* getctarank{.shared::cluster}.u32/.u64 d, a */
        NEED(op == OP_MAPA ? 3 : 2);
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        if ((in->space != SP_CLUSTER && in->space != SP_GENERIC) || (t != T_U32 && t != T_U64 && t != T_B32 && t != T_B64)) {
            mark_unsupported(p, in, nstart, nlen);
            goto out;
        }
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        if (op == OP_MAPA) in->b = src(p, &ops[2], T_U32);
        break;
    case OP_BAR:
        if (warp) { /* bar.warp.sync membermask */
            NEED(1);
            in->op = OP_WARPSYNC;
            in->flags |= F_SYNC;
            in->e = src(p, &ops[0], T_U32);
            break;
        }
        if (in->sub2 == BK_RED) { /* bar.red.popc.u32 d, a{, b}, {!}c */
            if (nops < 3 || nops > 4) { ps_err(p, line, "bar.red: bad operands"); rc = -1; goto out; }
            in->d = dst(p, &ops[0]);
            in->a = src(p, &ops[1], T_U32);
            if (nops == 4) in->b = src(p, &ops[2], T_U32);
            in->c = src(p, &ops[nops - 1], T_PRED);
            if (ops[nops - 1].neg) in->flags |= F_ANEG;
            break;
        }
        /* bar.sync a{, b}; bar.arrive a, b */
        if (nops < 1 || nops > 2 || (in->sub2 == BK_ARRIVE && nops != 2)) { ps_err(p, line, "bar: bad operands"); rc = -1; goto out; }
        in->a = src(p, &ops[0], T_U32);
        if (nops == 2) in->b = src(p, &ops[1], T_U32);
        break;
    case OP_SHFL: /* shfl.sync.mode.b32 d[|p], a, b, c, membermask; the old form without the mask */
        NEED(in->flags & F_SYNC ? 5 : 4);
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2;
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], T_U32);
        in->c = src(p, &ops[3], T_U32);
        if (in->flags & F_SYNC) in->e = src(p, &ops[4], T_U32);
        break;
    case OP_VOTE: /* vote.sync.mode d, {!}a, membermask; the old form without the mask */
        NEED(in->flags & F_SYNC ? 3 : 2);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_PRED);
        if (ops[1].neg) in->flags |= F_ANEG;
        if (in->flags & F_SYNC) in->e = src(p, &ops[2], T_U32);
        break;
    case OP_MATCH: /* match.any.sync.b32 d, a, membermask; match.all: d[|p] */
    case OP_REDUX: /* redux.sync.op.type d, a, membermask */
        NEED(3);
        if (!(in->flags & F_SYNC) || (op == OP_REDUX && t != T_U32 && t != T_S32 && t != T_B32 && t != T_F32)) {
            mark_unsupported(p, in, nstart, nlen);
            goto out;
        }
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2;
        in->a = src(p, &ops[1], t);
        in->e = src(p, &ops[2], T_U32);
        break;
    case OP_ELECT: /* elect.sync d|p, membermask */
        NEED(2);
        if (!(in->flags & F_SYNC)) { mark_unsupported(p, in, nstart, nlen); goto out; }
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2;
        in->e = src(p, &ops[1], T_U32);
        break;
    case OP_ACTIVEMASK:
        NEED(1);
        in->d = dst(p, &ops[0]);
        break;
    default:
        mark_unsupported(p, in, nstart, nlen);
        break;
    }
#undef NEED
out:
    for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < ncl[w]; i++) opnd_free(&calllist[w][i]);
    return p->failed ? -1 : rc;
}

/* .reg .type name<N>, name, ... ; */
int parse_reg(struct ps *p)
{
    int t = T_NONE;
    while (cur(p)->kind == TK_DIR) {
        int tt = type_of(cur(p));
        if (is(cur(p), ".v2") || is(cur(p), ".v4")) { ps_unsup(p, cur(p)->line, "vector registers are not supported"); return -1; }
        if (tt != T_NONE) t = tt;
        next(p);
    }
    if (t == T_NONE) { ps_err(p, cur(p)->line, ".reg without a type"); return -1; }
    for (;;) {
        struct tok *nm = cur(p);
        if (nm->kind != TK_ID) { ps_err(p, nm->line, "expected a register name"); return -1; }
        next(p);
        if (accept(p, '<')) {
            if (cur(p)->kind != TK_INT || cur(p)->iv > 1000000) { ps_err(p, nm->line, "bad register count"); return -1; }
            int n = (int)cur(p)->iv;
            next(p);
            if (expect(p, '>')) return -1;
            /* %r<6>: %r0 .. %r5, one range symbol looked up by prefix */
            struct ir_func *f = &p->m->funcs[p->fn];
            if (!sym_add(p, nm->s, nm->n, SY_REGRANGE, f->nslots, t)) return -1;
            p->syms[p->nsyms - 1].count = n;
            f->nslots += n;
        } else {
            if (!sym_add(p, nm->s, nm->n, SY_REG, 0, t)) return -1;
            p->syms[p->nsyms - 1].val = new_slot(p);
        }
        if (!accept(p, ',')) break;
    }
    return expect(p, ';');
}

