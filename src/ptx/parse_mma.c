/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's matrix instructions: mma, wmma.load/store/mma,
 * ldmatrix, stmatrix, movmatrix. Their shape, types, layouts and register
 * lists go to an ir_mma (ins.imm); the forms the executor computes are
 * checked here (PTX ISA, "Warp Level Matrix Multiply-Accumulate
 * Instructions"), anything else becomes OP_UNSUPPORTED with its spelling. */
#include "parse.h"

#include <stdlib.h>

int is_matrix(struct ps *p)
{
    struct tok *t = cur(p);
    return t->kind == TK_ID && (is(t, "mma") || is(t, "wmma") || is(t, "ldmatrix") || is(t, "stmatrix") || is(t, "movmatrix"));
}

/* ".m16n8k16" -> 16, 8, 16; ".m8n8" -> 8, 8, 0 */
static int shape_of(struct tok *t, int *m, int *n, int *k)
{
    char buf[24];
    if (t->n < 4 || t->n >= (int)sizeof buf || t->s[1] != 'm') return 0;
    memcpy(buf, t->s, (size_t)t->n);
    buf[t->n] = 0;
    *k = 0;
    int used = 0;
    if (sscanf(buf, ".m%dn%dk%d%n", m, n, k, &used) == 3 && used == t->n) return 1;
    *k = 0;
    return sscanf(buf, ".m%dn%d%n", m, n, &used) == 2 && used == t->n;
}

/* one register list operand into slots: the number of registers */
static int regs(struct ps *p, struct opnd *o, int32_t *out, int def, int t)
{
    if (o->kind != O_VEC) {
        out[0] = def ? dst(p, o) : src(p, o, t);
        return 1;
    }
    for (int i = 0; i < o->nvec; i++) out[i] = def ? dst(p, o->vimm[i]) : src(p, o->vimm[i], t);
    return o->nvec;
}

static int is_float8(int t) { return t == T_E4M3 || t == T_E5M2; }
static int is_int8(int t) { return t == T_S8 || t == T_U8; }
static int is_int4(int t) { return t == T_S4 || t == T_U4; }

/* elements of type t in one register */
static int per_reg(int t)
{
    switch (t) {
    case T_F16: case T_BF16: return 2;
    case T_S8: case T_U8: case T_E4M3: case T_E5M2: return 4;
    case T_S4: case T_U4: return 8;
    case T_B1: return 32;
    default: return 1;
    }
}

/* registers of a wmma fragment (PTX ISA, "Matrix Fragments for WMMA"): f16
 * multiplicands hold each element twice */
static int wmma_regs(int which, int m, int n, int k, int t)
{
    int rows = which == 'a' ? m : which == 'b' ? k : m, cols = which == 'a' ? k : n;
    if (t == T_F16 && (which == 'a' || which == 'b')) return 8;
    return (rows * cols / 32 + per_reg(t) - 1) / per_reg(t);
}

/* is mma of this shape and these types one the executor computes (the
 * PTX ISA's mma forms for sm_70 to sm_90, dense)? */
static int mma_ok(const struct ir_mma *x)
{
    int s = x->m * 10000 + x->n * 100 + x->k;
    int at = x->atype, bt = x->btype, ct = x->ctype, dt = x->dtype;
    int f16acc = (ct == T_F16 || ct == T_F32) && (dt == T_F16 || dt == T_F32);
    if (at == T_F64) return bt == T_F64 && ct == T_F64 && dt == T_F64 && (s == 80804 || s == 160804 || s == 160808 || s == 160816);
    if (at == T_F16 && bt == T_F16)
        return f16acc && (s == 80804 ? !(ct == T_F32 && dt == T_F16) : (s == 160808 || s == 160816) && ct == dt);
    if (at == T_BF16 && bt == T_BF16) return (s == 160808 || s == 160816) && ct == T_F32 && dt == T_F32;
    if (at == T_TF32 && bt == T_TF32) return (s == 160804 || s == 160808) && ct == T_F32 && dt == T_F32;
    if (is_float8(at) && is_float8(bt)) return (s == 160816 || s == 160832) && f16acc && ct == dt;
    if (ct != T_S32 || dt != T_S32) return 0;
    if (is_int8(at) && is_int8(bt)) return s == 80816 || s == 160816 || s == 160832;
    if (is_int4(at) && is_int4(bt)) return s == 80832 || s == 160832 || s == 160864;
    if (at == T_B1 && bt == T_B1) return x->bitop && (s == 80928 || s == 160928 || s == 161056);
    return 0;
}

int parse_matrix(struct ps *p, int guard, int gneg)
{
    struct tok *opt = cur(p);
    int line = opt->line;
    const char *nstart = opt->s;
    next(p);
    struct ir_ins *in = new_ins(p, line);
    if (!in) return -1;
    in->guard = guard;
    in->gneg = (uint8_t)gneg;
    struct ir_mma x;
    memset(&x, 0, sizeof x);
    x.stride = -1;
    x.kind = is(opt, "mma") ? MX_MMA : is(opt, "ldmatrix") ? MX_LDMATRIX : is(opt, "stmatrix") ? MX_STMATRIX
           : is(opt, "movmatrix") ? MX_MOVMATRIX : MX_WMMA_MMA;
    int types[4], ntypes = 0, nlayouts = 0, bad = 0, m = 0, n = 0, k = 0, shape = 0, popc = 0, sp = SP_NONE;
    int wmma_what = 0;   /* wmma: 'l', 's', 'm' */
    while (cur(p)->kind == TK_DIR) {
        struct tok *t = cur(p);
        next(p);
        int ty = type_of(t), s = space_of(t);
        if (is(t, ".sync") || is(t, ".aligned")) continue;
        if (ty != T_NONE) { if (ntypes < 4) types[ntypes++] = ty; else bad = 1; continue; }
        if (s != SP_NONE) {
            sp = s;
            if (s == SP_SHARED && t->n > 7 && !(t->n == 12 && memcmp(t->s, ".shared::cta", 12) == 0)) bad = 1;
            continue;
        }
        if (!shape && shape_of(t, &m, &n, &k)) { shape = 1; continue; }
        if (is(t, ".row") || is(t, ".col")) {
            if (nlayouts == 0) x.alayout = is(t, ".col");
            else x.blayout = is(t, ".col");
            nlayouts++;
            continue;
        }
        if (x.kind == MX_WMMA_MMA && !wmma_what) {
            if (is(t, ".load")) { wmma_what = 'l'; x.kind = MX_WMMA_LOAD; continue; }
            if (is(t, ".store")) { wmma_what = 's'; x.kind = MX_WMMA_STORE; continue; }
            if (is(t, ".mma")) { wmma_what = 'm'; continue; }
        }
        if ((x.kind == MX_WMMA_LOAD || x.kind == MX_WMMA_STORE) && t->n == 2 && !x.k &&
            (t->s[1] == 'a' || t->s[1] == 'b' || t->s[1] == 'c' || t->s[1] == 'd')) {
            x.k = (uint8_t)t->s[1]; /* which matrix, until the shape is known */
            continue;
        }
        if (is(t, ".satfinite")) { x.satfinite = 1; continue; }
        if (is(t, ".xor")) { x.bitop = 1; continue; }
        if (is(t, ".and")) { x.bitop = 2; continue; }
        if (is(t, ".popc")) { popc = 1; continue; }
        if (is(t, ".trans")) { x.trans = 1; continue; }
        if (is(t, ".x1") || is(t, ".x2") || is(t, ".x4")) { x.num = (uint8_t)(t->s[2] - '0'); continue; }
        if (is(t, ".rn") || is(t, ".rz") || is(t, ".rm") || is(t, ".rp")) {
            x.rnd = is(t, ".rn") ? RND_RN : is(t, ".rz") ? RND_RZ : is(t, ".rm") ? RND_RM : RND_RP;
            continue;
        }
        bad = 1; /* .kind::, .block_scale, .sp, shapes and formats of later targets */
    }
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen > 60 || nlen < 0) nlen = opt->n;
    in->name = intern(p, nstart, nlen);
    /* operands */
    struct opnd ops[6];
    int nops = 0, rc = 0;
    while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF && !p->failed) {
        if (nops == 6) { ps_err(p, line, "too many operands"); rc = -1; goto out; }
        if (parse_operand(p, &ops[nops++])) { rc = -1; goto out; }
        if (!accept(p, ',')) break;
    }
    if (p->failed || expect(p, ';')) { rc = -1; goto out; }
    if (x.kind == MX_WMMA_MMA && wmma_what != 'm') x.kind = MX_MMA; /* plain "mma" */
    if (!bad && shape) {
        x.m = (uint8_t)m;
        x.n = (uint8_t)n;
        if (x.kind != MX_WMMA_LOAD && x.kind != MX_WMMA_STORE) x.k = (uint8_t)k;
    }
    in->op = OP_MMA;
    switch (x.kind) {
    case MX_MMA:
    case MX_WMMA_MMA: {
        /* d, a, b, c; types .dtype.atype.btype.ctype (.dtype.ctype for f16) */
        if (ntypes == 2) { x.dtype = (uint8_t)types[0]; x.ctype = (uint8_t)types[1]; x.atype = x.btype = T_F16; }
        else if (ntypes == 4) {
            x.dtype = (uint8_t)types[0]; x.atype = (uint8_t)types[1]; x.btype = (uint8_t)types[2]; x.ctype = (uint8_t)types[3];
        } else bad = 1;
        if (x.atype == T_F64 && !x.rnd) x.rnd = RND_RN;
        if (x.bitop && !popc) bad = 1;
        if (nops != 4 || ops[1].kind == O_ADDR) { ps_err(p, line, "%.*s: expected d, a, b, c", nlen, nstart); rc = -1; goto out; }
        x.nd = (uint8_t)regs(p, &ops[0], x.d, 1, 0);
        x.na = (uint8_t)regs(p, &ops[1], x.a, 0, T_B32);
        x.nb = (uint8_t)regs(p, &ops[2], x.b, 0, T_B32);
        x.nc = (uint8_t)regs(p, &ops[3], x.c, 0, x.ctype);
        if (bad || !shape) break;
        if (x.kind == MX_MMA) {
            if (!mma_ok(&x)) { bad = 1; break; }
            if (!(x.m == 8 && x.k == 4 && x.atype == T_F16) && (x.alayout != 0 || x.blayout != 1)) bad = 1; /* .row.col */
            /* the registers each fragment takes */
            int quad = x.m == 8 && x.k == 4 && x.atype == T_F16; /* four 8x8x4 products */
            int ea = quad ? 4 : x.m * x.k / 32, eb = quad ? 4 : x.k * x.n / 32, ec = quad ? 8 : x.m * x.n / 32;
            int wa = (ea + per_reg(x.atype) - 1) / per_reg(x.atype), wb = (eb + per_reg(x.btype) - 1) / per_reg(x.btype);
            int wc = (ec + per_reg(x.ctype) - 1) / per_reg(x.ctype), wd = (ec + per_reg(x.dtype) - 1) / per_reg(x.dtype);
            if (x.na != wa || x.nb != wb || x.nc != wc || x.nd != wd) {
                ps_err(p, line, "%.*s: the fragments take %d, %d, %d and %d registers", nlen, nstart, wd, wa, wb, wc);
                rc = -1;
                goto out;
            }
        } else { /* wmma.mma: the shapes and types wmma has */
            int s = x.m * 10000 + x.n * 100 + x.k;
            int f = s == 161616 || s == 320816 || s == 83216;
            if (x.atype == T_F16) bad = !(f && (x.ctype == T_F16 || x.ctype == T_F32) && (x.dtype == T_F16 || x.dtype == T_F32));
            else if (x.atype == T_BF16) bad = !(f && x.ctype == T_F32 && x.dtype == T_F32);
            else if (is_int8(x.atype)) bad = !(f && x.ctype == T_S32 && x.dtype == T_S32);
            else if (x.atype == T_TF32) bad = !(s == 161608 && x.ctype == T_F32 && x.dtype == T_F32);
            else if (x.atype == T_F64) bad = !(s == 80804 && x.ctype == T_F64 && x.dtype == T_F64);
            else if (is_int4(x.atype)) bad = !(s == 80832 && x.ctype == T_S32);
            else if (x.atype == T_B1) bad = !(s == 80928 && x.ctype == T_S32 && x.bitop);
            else bad = 1;
            if (x.btype != x.atype && !(is_int8(x.atype) && is_int8(x.btype)) && !(is_int4(x.atype) && is_int4(x.btype))) bad = 1;
            if (!bad && (x.na != wmma_regs('a', m, n, k, x.atype) || x.nb != wmma_regs('b', m, n, k, x.btype) ||
                         x.nc != wmma_regs('c', m, n, k, x.ctype) || x.nd != wmma_regs('c', m, n, k, x.dtype))) {
                ps_err(p, line, "%.*s: the fragments take %d, %d, %d and %d registers", nlen, nstart, wmma_regs('c', m, n, k, x.dtype),
                       wmma_regs('a', m, n, k, x.atype), wmma_regs('b', m, n, k, x.btype), wmma_regs('c', m, n, k, x.ctype));
                rc = -1;
                goto out;
            }
        }
        break;
    }
    case MX_WMMA_LOAD:
    case MX_WMMA_STORE: { /* wmma.load.a r, [p]{, stride}; wmma.store.d [p], r{, stride} */
        int ld = x.kind == MX_WMMA_LOAD;
        int which = shape ? x.k : 0;
        x.k = (uint8_t)k;
        x.atype = ntypes == 1 ? (uint8_t)types[0] : 0;
        x.frag = (uint8_t)which;
        if (ntypes != 1 || !which || (ld && which == 'd') || (!ld && which != 'd') || nlayouts != 1) bad = 1;
        struct opnd *rl = &ops[ld ? 0 : 1], *ad = &ops[ld ? 1 : 0];
        if (nops < 2 || nops > 3 || ad->kind != O_ADDR) { ps_err(p, line, "%.*s: bad operands", nlen, nstart); rc = -1; goto out; }
        x.nd = (uint8_t)regs(p, rl, x.d, ld, x.atype);
        if (!bad && shape) {
            int want = wmma_regs(which, m, n, k, x.atype);
            if (x.nd != want) { ps_err(p, line, "%.*s: the fragment takes %d registers", nlen, nstart, want); rc = -1; goto out; }
        }
        int64_t off;
        in->a = addr_base(p, ad, &off);
        in->imm = off;
        if (nops == 3) x.stride = src(p, &ops[2], T_U32);
        in->space = (uint8_t)(sp == SP_NONE ? SP_GENERIC : sp);
        if (sp != SP_NONE && sp != SP_GLOBAL && sp != SP_SHARED) bad = 1;
        break;
    }
    case MX_LDMATRIX:
    case MX_STMATRIX: { /* ldmatrix r, [p]; stmatrix [p], r: 8x8 matrices of 16-bit elements */
        int ld = x.kind == MX_LDMATRIX;
        if (!(m == 8 && n == 8 && k == 0) || ntypes != 1 || types[0] != T_B16 || !x.num) bad = 1;
        struct opnd *rl = &ops[ld ? 0 : 1], *ad = &ops[ld ? 1 : 0];
        if (nops != 2 || ad->kind != O_ADDR) { ps_err(p, line, "%.*s: bad operands", nlen, nstart); rc = -1; goto out; }
        x.nd = (uint8_t)regs(p, rl, x.d, ld, T_B32);
        if (!bad && x.nd != x.num) { ps_err(p, line, "%.*s: %d registers for .x%d", nlen, nstart, x.nd, x.num); rc = -1; goto out; }
        int64_t off;
        in->a = addr_base(p, ad, &off);
        in->imm = off;
        in->space = (uint8_t)(sp == SP_NONE ? SP_GENERIC : sp);
        if (sp != SP_NONE && sp != SP_SHARED) bad = 1;
        break;
    }
    case MX_MOVMATRIX: /* movmatrix.sync.aligned.m8n8.trans.b16 d, a */
        if (!(m == 8 && n == 8 && k == 0) || ntypes != 1 || types[0] != T_B16 || !x.trans) bad = 1;
        if (nops != 2) { ps_err(p, line, "%.*s: bad operands", nlen, nstart); rc = -1; goto out; }
        x.nd = 1;
        x.d[0] = dst(p, &ops[0]);
        x.na = 1;
        x.a[0] = src(p, &ops[1], T_B32);
        break;
    default:
        bad = 1;
        break;
    }
    if (bad || !shape) {
        in->op = OP_UNSUPPORTED;
        goto out;
    }
    struct ptx_module *mod = p->m;
    if (ps_grow((void **)&mod->mmas, mod->nmmas, &mod->capmmas, sizeof *mod->mmas)) { ps_err(p, line, "out of memory"); rc = -1; goto out; }
    in->e = mod->nmmas; /* imm: the address offset */
    mod->mmas[mod->nmmas++] = x;
out:
    for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
    return p->failed ? -1 : rc;
}
