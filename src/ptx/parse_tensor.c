/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's tensor-map instructions (PTX ISA, "Data Movement and
 * Conversion Instructions: cp.async.bulk.tensor", "prefetch"): copies of
 * a box of a tensor between global memory, described by a tensor map, and
 * shared memory.
 *
 *   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{.L2::cache_hint}
 *       [dst], [tmap, {c0, ..}], [mbar]{, policy};
 *   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes.multicast::cluster{.L2::cache_hint}
 *       [dst], [tmap, {c0, ..}], [mbar], ctaMask{, policy};
 *   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
 *       [tmap, {c0, ..}], [src]{, policy};
 *   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redop{.tile}.bulk_group{.L2::cache_hint}
 *       [tmap, {c0, ..}], [src]{, policy};      redop: add min max inc dec and or xor
 *   prefetch.tensor.Nd.L2.global{.tile}{.L2::cache_hint} [tmap, {c0, ..}]{, policy};
 *
 * (.shared::cta is taken for .shared::cluster as the loads' destination:
 * PTX 8.6 allows it.) They become OP_CPTENSOR (ir.h; exec_tensor.c runs
 * it); a prefetch, a hint, becomes OP_NOP. What the engine does not run
 * (the im2col and gather modes, .cta_group) becomes OP_UNSUPPORTED,
 * refused at launch with its spelling and line. */
#include "parse.h"

/* cp{.reduce}.async.bulk.tensor or prefetch.tensor at cur? */
int is_tensor(struct ps *p)
{
    struct tok *t = cur(p);
    if (t->kind != TK_ID || !(is(t, "cp") || is(t, "prefetch"))) return 0;
    for (int k = 1; t[k].kind == TK_DIR; k++)
        if (is(&t[k], ".tensor")) return 1;
    return 0;
}

/* [reg{+off}] of an address register: its base slot and offset */
static int addr_opnd(struct ps *p, struct opnd *o, int *base, int *offslot)
{
    int64_t off;
    if (o->kind != O_ADDR) return -1;
    *base = addr_base(p, o, &off);
    *offslot = const_slot(p, K_IMM, off);
    return 0;
}

/* [tmap, {c0, ..}]: the map's address and the coordinates */
static int parse_ref(struct ps *p, struct opnd *h, struct opnd *c)
{
    int line = cur(p)->line;
    if (expect(p, '[')) return -1;
    if (cur(p)->kind != TK_ID || parse_reg_or_sym(p, h) || h->kind != O_REG) {
        ps_err(p, line, "cp.async.bulk.tensor: the tensor map must be an address register");
        return -1;
    }
    if (expect(p, ',') || parse_operand(p, c)) return -1;
    return expect(p, ']');
}

int parse_tensor(struct ps *p, int guard, int gneg)
{
    struct tok *opt = cur(p);
    int line = opt->line, prefetch = is(opt, "prefetch"), reduce = 0, redop = -1, multicast = 0;
    static const struct { const char *s; int v; } redops[] = {
        { ".add", AT_ADD }, { ".min", AT_MIN }, { ".max", AT_MAX }, { ".inc", AT_INC },
        { ".dec", AT_DEC }, { ".and", AT_AND }, { ".or", AT_OR }, { ".xor", AT_XOR },
    };
    const char *nstart = opt->s;
    next(p);
    struct ir_ins *in = new_ins(p, line);
    if (!in) return -1;
    in->guard = guard;
    in->gneg = (uint8_t)gneg;
    int rank = 0, bad = 0, spaces[2], nsp = 0, hint = 0, mbar = 0, group = 0;
    while (cur(p)->kind == TK_DIR) {
        struct tok *t = cur(p);
        next(p);
        int sp = space_of(t);
        if (t->n == 3 && t->s[1] >= '1' && t->s[1] <= '5' && t->s[2] == 'd' && !rank)
            rank = t->s[1] - '0';
        else if (sp == SP_GLOBAL || is(t, ".shared::cluster") || is(t, ".shared::cta")) {
            if (nsp < 2) spaces[nsp++] = sp == SP_GLOBAL ? SP_GLOBAL : SP_SHARED;
            else bad = 1;
        } else if (is(t, ".mbarrier::complete_tx::bytes"))
            mbar = 1;
        else if (is(t, ".bulk_group"))
            group = 1;
        else if (is(t, ".L2::cache_hint"))
            hint = 1;
        else if (is(t, ".reduce") && !prefetch)
            reduce = 1;
        else if (is(t, ".multicast::cluster"))
            multicast = 1;
        else if (reduce && redop < 0 && t->n <= 4 && t->n >= 3) {
            for (size_t i = 0; i < sizeof redops / sizeof *redops; i++)
                if (is(t, redops[i].s)) redop = redops[i].v;
            if (redop < 0) bad = 1;
        } else if (!(is(t, ".async") || is(t, ".bulk") || is(t, ".tensor") || is(t, ".tile") || is(t, ".L2")))
            bad = 1; /* .im2col, .tile::gather4, .cta_group::N, ... */
    }
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen < 0) nlen = opt->n;
    if (nlen > 60) nlen = 60; /* the spellings are long: the first 60 characters */
    in->name = intern(p, nstart, nlen);
    int load = !prefetch && nsp == 2 && spaces[0] == SP_SHARED && spaces[1] == SP_GLOBAL && mbar && !group;
    int store = !prefetch && nsp == 2 && spaces[0] == SP_GLOBAL && spaces[1] == SP_SHARED && group && !mbar;
    int pref = prefetch && nsp == 1 && spaces[0] == SP_GLOBAL && !mbar && !group;
    if (!rank || !(load || store || pref) || (reduce && (!store || redop < 0)) || (multicast && !load)) bad = 1;
    struct opnd o[4], h, c;
    memset(o, 0, sizeof o);
    memset(&h, 0, sizeof h);
    memset(&c, 0, sizeof c);
    int rc = 0, n = 0;
    /* operands: the map operand's place depends on the direction */
    if (store || pref) {
        if (parse_ref(p, &h, &c)) { rc = -1; goto out; }
    } else if (parse_operand(p, &o[n++]) || expect(p, ',') || parse_ref(p, &h, &c)) {
        rc = -1;
        goto out;
    }
    while (accept(p, ',')) {
        if (n == 4) { bad = 1; while (!isp(cur(p), ';') && cur(p)->kind != TK_EOF) next(p); break; }
        if (parse_operand(p, &o[n++])) { rc = -1; goto out; }
    }
    if (p->failed || expect(p, ';')) { rc = -1; goto out; }
    /* load: dst, mbar{, ctaMask}{, policy}; store: src{, policy}; prefetch: {policy} */
    int want = (load ? 2 + multicast : store ? 1 : 0) + hint;
    if (n != want || (hint && o[n - 1].kind != O_REG && o[n - 1].kind != O_IMM)) bad = 1;
    int nc = c.kind == O_VEC ? c.nvec : 1;
    if (nc != rank) bad = 1;
    if (bad) { in->op = OP_UNSUPPORTED; goto out; }
    if (pref) { in->op = OP_NOP; goto out; } /* a hint: nothing to do here */
    in->op = OP_CPTENSOR;
    in->sub = (uint8_t)(load ? TM_LOAD : reduce ? TM_REDUCE : TM_STORE);
    in->type2 = (uint8_t)(reduce ? redop : 0);
    in->imm = multicast ? src(p, &o[2], T_B16) : -1;
    in->sub2 = (uint8_t)rank;
    in->space = SP_SHARED;
    if (addr_opnd(p, &o[0], &in->a, &in->d2) ||
        (load && addr_opnd(p, &o[1], &in->e, &in->d))) {
        ps_err(p, line, "cp.async.bulk.tensor: expected a shared-memory address");
        rc = -1;
        goto out;
    }
    in->b = src(p, &h, T_U64);
    for (int i = 0; i < rank; i++) {
        struct opnd *ci = c.kind == O_VEC ? c.vimm[i] : &c;
        int s = src(p, ci, T_S32);
        if (i < 4) in->vr[i] = s;
        else in->c = s;
    }
out:
    for (int i = 0; i < 4; i++) opnd_free(&o[i]);
    opnd_free(&h);
    opnd_free(&c);
    return p->failed ? -1 : rc;
}
