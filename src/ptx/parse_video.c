/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's video instructions (PTX ISA, "Video Instructions"):
 * scalar vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vset with .sat, a
 * secondary operation (.add/.min/.max) or a merge into a byte or half of
 * c (d.b0 ... d.h1), operand selectors a.b0 ... a.h1; SIMD vadd2/4,
 * vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4, vmax2/4, vset2/4 with their
 * element selectors (.b3210, .h10) and masks. They become OP_VIDEO (the
 * encoding: ir.h); vmad and anything malformed is OP_UNSUPPORTED. */
#include "parse.h"

static const struct { const char *s; int op, lanes; } vnames[] = {
    { "vadd", VI_ADD, 1 }, { "vsub", VI_SUB, 1 }, { "vabsdiff", VI_ABSDIFF, 1 }, { "vmin", VI_MIN, 1 },
    { "vmax", VI_MAX, 1 }, { "vshl", VI_SHL, 1 }, { "vshr", VI_SHR, 1 }, { "vset", VI_SET, 1 },
    { "vadd2", VI_ADD, 2 }, { "vsub2", VI_SUB, 2 }, { "vavrg2", VI_AVRG, 2 }, { "vabsdiff2", VI_ABSDIFF, 2 },
    { "vmin2", VI_MIN, 2 }, { "vmax2", VI_MAX, 2 }, { "vset2", VI_SET, 2 },
    { "vadd4", VI_ADD, 4 }, { "vsub4", VI_SUB, 4 }, { "vavrg4", VI_AVRG, 4 }, { "vabsdiff4", VI_ABSDIFF, 4 },
    { "vmin4", VI_MIN, 4 }, { "vmax4", VI_MAX, 4 }, { "vset4", VI_SET, 4 },
};

int is_video(struct ps *p)
{
    struct tok *t = cur(p);
    if (t->kind != TK_ID || t->n < 4 || t->s[0] != 'v') return 0;
    for (size_t i = 0; i < sizeof vnames / sizeof *vnames; i++)
        if (is(t, vnames[i].s)) return 1;
    return 0;
}

/* a scalar selector: 1-4 .b0-.b3, 5 .h0, 6 .h1; 0 if t is none */
static int scalar_sel(struct tok *t)
{
    static const char *const s[] = { ".b0", ".b1", ".b2", ".b3", ".h0", ".h1" };
    for (int i = 0; i < 6; i++)
        if (is(t, s[i])) return i + 1;
    return 0;
}

/* a SIMD element selector ".b3210" (lanes 4, digits 0-7) or ".h10" (lanes
 * 2, digits 0-3), the first digit for the highest element: packed 4 bits
 * per element, element 0 lowest; -1 if malformed */
static int64_t simd_sel(const struct tok *t, int lanes)
{
    if (t->n != 2 + lanes || t->s[1] != (lanes == 4 ? 'b' : 'h')) return -1;
    int64_t v = 0;
    for (int e = 0; e < lanes; e++) {
        int c = t->s[2 + lanes - 1 - e] - '0';
        if (c < 0 || c >= 2 * lanes) return -1;
        v |= (int64_t)c << (4 * e);
    }
    return v;
}

/* a SIMD mask ".b310" / ".h1": the element bits; -1 if malformed */
static int simd_mask(const struct tok *t, int lanes)
{
    if (t->n < 3 || t->n > 2 + lanes || t->s[1] != (lanes == 4 ? 'b' : 'h')) return -1;
    int m = 0, last = lanes;
    for (int i = 2; i < t->n; i++) {
        int c = t->s[i] - '0';
        if (c < 0 || c >= last || (m >> c) & 1) return -1; /* descending digits */
        m |= 1 << c;
        last = c;
    }
    return m;
}

int parse_video(struct ps *p, int guard, int gneg)
{
    struct tok *opt = cur(p);
    int line = opt->line;
    const char *nstart = opt->s;
    next(p);
    struct ir_ins *in = new_ins(p, line);
    if (!in) return -1;
    in->guard = guard;
    in->gneg = (uint8_t)gneg;
    int vop = 0, lanes = 1;
    for (size_t i = 0; i < sizeof vnames / sizeof *vnames; i++)
        if (is(opt, vnames[i].s)) { vop = vnames[i].op; lanes = vnames[i].lanes; }
    int types[3], ntypes = 0, bad = 0, cmp = -1, mode = -1, op2 = VS_NONE;
    static const char *const cmps[] = { ".eq", ".ne", ".lt", ".le", ".gt", ".ge" };
    static const int cmpv[] = { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };
    while (cur(p)->kind == TK_DIR) {
        struct tok *t = cur(p);
        next(p);
        int ty = type_of(t);
        if (ty != T_NONE) {
            if (ntypes < 3 && (ty == T_U32 || ty == T_S32)) types[ntypes++] = ty;
            else bad = 1;
            continue;
        }
        if (is(t, ".sat")) { in->flags |= F_SAT; continue; }
        if (is(t, ".clamp") || is(t, ".wrap")) { mode = is(t, ".wrap"); continue; }
        if (is(t, ".add")) { op2 = VS_ADD; continue; }
        if (is(t, ".min")) { op2 = VS_MIN; continue; }
        if (is(t, ".max")) { op2 = VS_MAX; continue; }
        int c = -1;
        for (int i = 0; i < 6; i++)
            if (is(t, cmps[i])) c = cmpv[i];
        if (c >= 0 && vop == VI_SET) { cmp = c; continue; }
        bad = 1;
    }
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen > 60 || nlen < 0) nlen = opt->n;
    in->name = intern(p, nstart, nlen);
    /* operands, each with an optional selector */
    struct opnd ops[4];
    struct tok *sel[4] = { NULL, NULL, NULL, NULL };
    int nops = 0, rc = 0;
    while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF && !p->failed) {
        if (nops == 4) { ps_err(p, line, "%.*s: too many operands", nlen, nstart); rc = -1; goto out; }
        if (parse_operand(p, &ops[nops++])) { rc = -1; goto out; }
        if (cur(p)->kind == TK_DIR) { sel[nops - 1] = cur(p); next(p); }
        if (!accept(p, ',')) break;
    }
    if (p->failed || expect(p, ';')) { rc = -1; goto out; }
    if (nops < 3) { ps_err(p, line, "%.*s: expected d, a, b and c", nlen, nstart); rc = -1; goto out; }
    for (int i = 0; i < nops; i++)
        if (ops[i].kind != O_REG && ops[i].kind != O_IMM) { ps_err(p, line, "%.*s: bad operand", nlen, nstart); rc = -1; goto out; }
    if (ops[0].kind != O_REG) { ps_err(p, line, "%.*s: the destination is a register", nlen, nstart); rc = -1; goto out; }
    /* the types: vset has no destination type (its results are unsigned) */
    int dt, at, bt;
    if (vop == VI_SET) {
        if (ntypes != 2 || cmp < 0) bad = 1;
        dt = T_U32, at = ntypes > 0 ? types[0] : T_U32, bt = ntypes > 1 ? types[1] : T_U32;
    } else {
        if (ntypes != 3) bad = 1;
        dt = ntypes > 0 ? types[0] : T_U32, at = ntypes > 1 ? types[1] : T_U32, bt = ntypes > 2 ? types[2] : T_U32;
    }
    if (vop == VI_SHL || vop == VI_SHR) {
        if (bt != T_U32 || mode < 0) bad = 1;
        if (mode == 1) in->flags |= F_WRAP;
    } else if (mode >= 0)
        bad = 1;
    uint64_t imm = (uint64_t)(dt == T_S32) << 60 | (uint64_t)(at == T_S32) << 61 | (uint64_t)(bt == T_S32) << 62;
    if (lanes == 1) {
        int ds = sel[0] ? scalar_sel(sel[0]) : 0, as = sel[1] ? scalar_sel(sel[1]) : 0, bs = sel[2] ? scalar_sel(sel[2]) : 0;
        if ((sel[0] && !ds) || (sel[1] && !as) || (sel[2] && !bs) || sel[3]) bad = 1;
        if (ds && (nops != 4 || op2 != VS_NONE)) bad = 1;       /* a merge takes c and no secondary op */
        if (!ds && (nops == 4) != (op2 != VS_NONE)) bad = 1;   /* c exactly with a secondary op */
        if (vop == VI_SET && (in->flags & F_SAT)) bad = 1;
        imm |= (uint64_t)ds | (uint64_t)as << 4 | (uint64_t)bs << 8;
    } else {
        /* d{.mask}, a{.asel}, b{.bsel}, c: defaults .b3210/.h10, a .b3210/.h10, b .b7654/.h32 */
        int64_t as = sel[1] ? simd_sel(sel[1], lanes) : lanes == 4 ? 0x3210 : 0x10;
        int64_t bs = sel[2] ? simd_sel(sel[2], lanes) : lanes == 4 ? 0x7654 : 0x32;
        int mk = sel[0] ? simd_mask(sel[0], lanes) : (1 << lanes) - 1;
        if (as < 0 || bs < 0 || mk < 0 || sel[3] || nops != 4) bad = 1;
        if (op2 == VS_MIN || op2 == VS_MAX || (op2 == VS_ADD && (in->flags & F_SAT))) bad = 1;
        if (vop == VI_SET && (in->flags & F_SAT)) bad = 1;
        imm |= (uint64_t)(as < 0 ? 0 : as) << 24 | (uint64_t)(bs < 0 ? 0 : bs) << 40 | (uint64_t)(mk < 0 ? 0 : mk) << 56;
    }
    if (cmp >= 0) imm |= (uint64_t)cmp << 16;
    if (bad) { in->op = OP_UNSUPPORTED; goto out; }
    in->op = OP_VIDEO;
    in->sub = (uint8_t)vop;
    in->sub2 = (uint8_t)op2;
    in->vec = (uint8_t)lanes;
    in->type = T_U32;
    in->imm = (int64_t)imm;
    in->d = dst(p, &ops[0]);
    in->a = src(p, &ops[1], T_U32);
    in->b = src(p, &ops[2], T_U32);
    if (nops == 4) in->c = src(p, &ops[3], T_U32);
out:
    for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
    return p->failed ? -1 : rc;
}
