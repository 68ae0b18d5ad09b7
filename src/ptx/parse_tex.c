/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's texture and surface instructions (PTX ISA, "Texture
 * Instructions" and "Surface Instructions"): tex and tld4 on texture
 * objects (a 64-bit handle in a register), txq, suld.b, sust.b and suq on
 * objects. The operand forms:
 *
 *   tex.geom.v4.dtype.ctype   d, [a, c];     c: {x}, {x, y}, {x, y, z, _},
 *                                            a1d {layer, x}, a2d {layer, x, y, _},
 *                                            acube {layer, x, y, z}
 *   tld4.comp.2d.v4.dtype.f32 d, [a, c];
 *   txq.query.b32             d, [a];
 *   suld.b.geom{.cop}{.vec}.dtype.mode  d, [a, c];  (x in bytes)
 *   sust.b.geom{.cop}{.vec}.ctype.mode  [a, c], d;
 *   suq.query.b32             d, [a];
 *
 * They become OP_TEX, OP_TLD4, OP_TXQ, OP_SULD, OP_SUST and OP_SUQ (the
 * encoding: ir.h). What the engine does not run (mipmap levels and
 * gradients, offsets, depth compare, references by name (.texref),
 * formatted surface stores .p, multisample geometries, the channel queries)
 * becomes OP_UNSUPPORTED, refused at launch with its line. */
#include "parse.h"

#include <stdlib.h>

static const char *const tnames[] = { "tex", "tld4", "txq", "suld", "sust", "suq" };
static const int tops[] = { OP_TEX, OP_TLD4, OP_TXQ, OP_SULD, OP_SUST, OP_SUQ };

int is_tex(struct ps *p)
{
    struct tok *t = cur(p);
    if (t->kind != TK_ID || t->n < 3 || t->n > 4) return 0;
    for (size_t i = 0; i < sizeof tnames / sizeof *tnames; i++)
        if (is(t, tnames[i])) return 1;
    return 0;
}

static int geom_of(struct tok *t)
{
    static const char *const g[] = { ".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube", ".acube" };
    for (int i = 0; i < 7; i++)
        if (is(t, g[i])) return i;
    return -1;
}

static int query_of(struct tok *t, int surface)
{
    static const struct { const char *s; int q, sur; } q[] = {
        { ".width", TQ_WIDTH, 2 }, { ".height", TQ_HEIGHT, 2 }, { ".depth", TQ_DEPTH, 2 },
        { ".normalized_coords", TQ_NORM_COORDS, 0 }, { ".filter_mode", TQ_FILTER, 0 },
        { ".addr_mode_0", TQ_ADDR0, 0 }, { ".addr_mode_1", TQ_ADDR1, 0 }, { ".addr_mode_2", TQ_ADDR2, 0 },
        { ".array_size", TQ_ARRAY_SIZE, 2 }, { ".num_mipmap_levels", TQ_MIP_LEVELS, 0 },
        { ".num_samples", TQ_SAMPLES, 0 }, { ".memory_layout", TQ_LAYOUT, 1 },
    };
    for (size_t i = 0; i < sizeof q / sizeof *q; i++)
        if (is(t, q[i].s) && (q[i].sur == 2 || q[i].sur == surface)) return q[i].q;
    return -1;
}

/* coordinate registers a geometry takes (layer first where it has one) */
static int ncoords(int g)
{
    switch (g) {
    case TG_1D: return 1;
    case TG_2D: case TG_A1D: return 2;
    default: return 4;
    }
}

/* [a] or [a, c]: the handle register and the coordinate operand (kind
 * O_NONE when absent) */
static int parse_ref(struct ps *p, struct opnd *h, struct opnd *c)
{
    memset(h, 0, sizeof *h);
    memset(c, 0, sizeof *c);
    int line = cur(p)->line;
    if (expect(p, '[')) return -1;
    if (cur(p)->kind != TK_ID || parse_reg_or_sym(p, h)) { ps_err(p, line, "bad texture or surface operand"); return -1; }
    if (accept(p, ',') && parse_operand(p, c)) return -1;
    return expect(p, ']');
}

int parse_tex(struct ps *p, int guard, int gneg)
{
    struct tok *opt = cur(p);
    int line = opt->line;
    const char *nstart = opt->s;
    int op = -1;
    for (size_t i = 0; i < sizeof tnames / sizeof *tnames; i++)
        if (is(opt, tnames[i])) op = tops[i];
    next(p);
    struct ir_ins *in = new_ins(p, line);
    if (!in) return -1;
    in->guard = guard;
    in->gneg = (uint8_t)gneg;
    int surface = op == OP_SULD || op == OP_SUST || op == OP_SUQ;
    int geom = -1, vec = 1, types[2], ntypes = 0, bad = 0, comp = -1, mode = -1, query = -1, isb = 0;
    while (cur(p)->kind == TK_DIR) {
        struct tok *t = cur(p);
        next(p);
        int ty = type_of(t), g = geom_of(t), q;
        if (ty != T_NONE) {
            if (ntypes < 2) types[ntypes++] = ty;
            else bad = 1;
        } else if (g >= 0 && geom < 0)
            geom = g;
        else if (is(t, ".v2") || is(t, ".v4"))
            vec = t->s[2] - '0';
        else if (op == OP_TLD4 && t->n == 2 && strchr("rgba", t->s[1]) && comp < 0)
            comp = (int)(strchr("rgba", t->s[1]) - "rgba");
        else if ((op == OP_SULD || op == OP_SUST) && is(t, ".b"))
            isb = 1;
        else if ((op == OP_SULD || op == OP_SUST) && (is(t, ".trap") || is(t, ".clamp") || is(t, ".zero")))
            mode = is(t, ".trap") ? SU_TRAP : is(t, ".clamp") ? SU_CLAMP : SU_ZERO;
        else if ((op == OP_SULD || op == OP_SUST) &&
                 (is(t, ".ca") || is(t, ".cg") || is(t, ".cs") || is(t, ".cv") || is(t, ".wb") || is(t, ".wt")))
            ; /* cache operators: no cache here */
        else if ((op == OP_TXQ || op == OP_SUQ) && (q = query_of(t, surface)) >= 0 && query < 0)
            query = q;
        else
            bad = 1;
    }
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen > 60 || nlen < 0) nlen = opt->n;
    in->name = intern(p, nstart, nlen);
    /* operands */
    struct opnd d, h, c;
    memset(&d, 0, sizeof d);
    memset(&h, 0, sizeof h);
    memset(&c, 0, sizeof c);
    int rc = 0;
    if (op == OP_SUST) {
        if (parse_ref(p, &h, &c) || expect(p, ',') || parse_operand(p, &d)) { rc = -1; goto out; }
    } else {
        if (parse_operand(p, &d) || expect(p, ',') || parse_ref(p, &h, &c)) { rc = -1; goto out; }
    }
    if (!isp(cur(p), ';')) { /* offsets, depth compare values: not run */
        bad = 1;
        while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF) next(p);
    }
    if (p->failed || expect(p, ';')) { rc = -1; goto out; }
    if (h.kind != O_REG) bad = 1; /* a .texref/.surfref by name: the legacy references */
    if (op == OP_TXQ || op == OP_SUQ) {
        if (query < 0 || ntypes != 1 || types[0] != T_B32 || geom >= 0 || c.kind != O_NONE || d.kind != O_REG) bad = 1;
        if (bad) { in->op = OP_UNSUPPORTED; goto out; }
        in->op = (uint16_t)op;
        in->sub = (uint8_t)query;
        in->type = T_B32;
        in->d = dst(p, &d);
        in->a = src(p, &h, T_U64);
        goto out;
    }
    if (geom < 0 || c.kind == O_NONE) bad = 1;
    int dt = ntypes > 0 ? types[0] : T_NONE, ct = ntypes > 1 ? types[1] : T_NONE;
    if (op == OP_TEX || op == OP_TLD4) {
        if (ntypes != 2 || vec != 4 || (dt != T_F32 && dt != T_S32 && dt != T_U32) || (ct != T_F32 && ct != T_S32))
            bad = 1;
        if (op == OP_TLD4 && (comp < 0 || geom != TG_2D || ct != T_F32)) bad = 1;
    } else {
        if (!isb || ntypes != 1 || mode < 0 || geom > TG_A2D) bad = 1;
        if (dt != T_B8 && dt != T_B16 && dt != T_B32 && dt != T_B64) bad = 1;
        if (vec * ir_type_size(dt) > 16) bad = 1;
        ct = T_S32;
    }
    /* the data registers */
    struct opnd *dv[4] = { &d, NULL, NULL, NULL };
    int nd = 1;
    if (d.kind == O_VEC) {
        nd = d.nvec;
        for (int i = 0; i < nd && i < 4; i++) dv[i] = d.vimm[i];
    }
    if (nd != vec) bad = 1;
    /* the coordinates */
    struct opnd *cv[4] = { &c, NULL, NULL, NULL };
    int nc = 1;
    if (c.kind == O_VEC) {
        nc = c.nvec;
        for (int i = 0; i < nc && i < 4; i++) cv[i] = c.vimm[i];
    }
    if (geom >= 0 && nc != ncoords(geom)) bad = 1;
    if (bad) { in->op = OP_UNSUPPORTED; goto out; }
    in->op = (uint16_t)op;
    in->sub = (uint8_t)geom;
    in->sub2 = (uint8_t)(op == OP_TLD4 ? comp : mode);
    in->type = (uint8_t)dt;
    in->type2 = (uint8_t)ct;
    in->vec = (uint8_t)vec;
    for (int i = 0; i < vec; i++) {
        if (op == OP_SUST) in->vr[i] = src(p, dv[i], dt);
        else in->vr[i] = dst(p, dv[i]);
    }
    in->a = src(p, &h, T_U64);
    /* x, y, z into b, c, e; the layer into d2 */
    int layered = geom == TG_A1D || geom == TG_A2D || geom == TG_ACUBE, k = 0;
    int *xyz[3] = { &in->b, &in->c, &in->e };
    if (layered) in->d2 = src(p, cv[k++], T_S32);
    int naxes = geom == TG_1D || geom == TG_A1D ? 1 : geom == TG_2D || geom == TG_A2D ? 2 : 3;
    for (int i = 0; i < naxes; i++) *xyz[i] = src(p, cv[k++], ct);
out:
    opnd_free(&d);
    opnd_free(&h);
    opnd_free(&c);
    return p->failed ? -1 : rc;
}
