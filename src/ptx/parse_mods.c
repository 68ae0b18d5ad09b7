/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's instruction modifiers: everything between an
 * instruction's name and its operands (types, spaces, rounding, compare,
 * atomic and shuffle operations, vector widths, .sat/.ftz/.cc ...) goes
 * into the instruction or into struct mods for parse_ins to read;
 * modifiers the engine does not know set mods.unknown. */
#include "parse.h"

static const struct { const char *s; int v; } cmps[] = {
    { ".eq", CMP_EQ }, { ".ne", CMP_NE }, { ".lt", CMP_LT }, { ".le", CMP_LE }, { ".gt", CMP_GT }, { ".ge", CMP_GE },
    { ".lo", CMP_LO }, { ".ls", CMP_LS }, { ".hi", CMP_HI }, { ".hs", CMP_HS }, { ".equ", CMP_EQU }, { ".neu", CMP_NEU },
    { ".ltu", CMP_LTU }, { ".leu", CMP_LEU }, { ".gtu", CMP_GTU }, { ".geu", CMP_GEU }, { ".num", CMP_NUM }, { ".nan", CMP_NAN },
};
static const struct { const char *s; int v; } atops[] = {
    { ".add", AT_ADD }, { ".min", AT_MIN }, { ".max", AT_MAX }, { ".inc", AT_INC }, { ".dec", AT_DEC },
    { ".cas", AT_CAS }, { ".exch", AT_EXCH }, { ".and", AT_AND }, { ".or", AT_OR }, { ".xor", AT_XOR },
};
static const struct { const char *s; int v; } rnds[] = {
    { ".rn", RND_RN }, { ".rz", RND_RZ }, { ".rm", RND_RM }, { ".rp", RND_RP }, { ".rni", RND_RNI },
    { ".rzi", RND_RZI }, { ".rmi", RND_RMI }, { ".rpi", RND_RPI }, { ".rna", RND_RNA },
};

/* modifiers that change nothing here (caching, ordering scopes, ...) */
static int ignorable(struct tok *k)
{
    static const char *const ign[] = {
        ".uni", ".sync", ".aligned", ".nc", ".volatile", ".relaxed", ".acquire", ".release", ".acq_rel",
        ".sc", ".sys", ".gpu", ".cta", ".cluster", ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".full",
        ".weak", ".mmio", ".noftz", ".L1", ".L2", ".level",
    };
    for (size_t i = 0; i < sizeof ign / sizeof *ign; i++)
        if (is(k, ign[i])) return 1;
    return k->n > 3 && (memcmp(k->s, ".L1::", 5) == 0 || memcmp(k->s, ".L2::", 5) == 0);
}

void parse_mods(struct ps *p, struct ir_ins *in, int *op, struct mods *md)
{
    memset(md, 0, sizeof *md);
    while (cur(p)->kind == TK_DIR) {
        struct tok *k = cur(p);
        next(p);
        int t = type_of(k), sp = space_of(k);
        int done = 0;
        if (t != T_NONE) { if (md->ntypes < 3) md->tys[md->ntypes++] = t; continue; }
        if (sp != SP_NONE) {
            /* .shared::cluster: another block's shared memory (ld, st, atom, red, mapa) */
            if (is(k, ".shared::cluster") && (*op == OP_LD || *op == OP_ST || *op == OP_ATOM || *op == OP_RED ||
                                              *op == OP_MAPA || *op == OP_GETCTARANK || *op == OP_MBAR ||
                                              *op == OP_CVTA || *op == OP_ISSPACEP)) {
                if (md->nspaces < 2) md->spaces[md->nspaces++] = SP_CLUSTER;
                in->space = SP_CLUSTER;
                continue;
            }
            if (md->nspaces < 2) md->spaces[md->nspaces++] = sp;
            in->space = (uint8_t)sp;
            /* .shared::cluster: the block's own shared memory (clusters of one block) in cp.async.bulk */
            if (sp == SP_SHARED && k->n > 7 && !(k->n == 12 && memcmp(k->s, ".shared::cta", 12) == 0) &&
                !(*op == OP_CPASYNC && is(k, ".shared::cluster"))) {
                md->unknown = 1; md->bad = k;
            }
            continue;
        }
        if (is(k, ".v2")) { in->vec = 2; continue; }
        if (is(k, ".v4")) { in->vec = 4; continue; }
        if (is(k, ".v8") && (*op == OP_LD || *op == OP_ST)) { in->vec = 8; continue; }
        if (is(k, ".L2::cache_hint")) { md->hint = 1; continue; } /* a cache-policy operand follows the others */
        if (*op == OP_CVT && is(k, ".pack")) { *op = OP_CVTPACK; continue; }
        if (*op == OP_GRIDDEP && (is(k, ".wait") || is(k, ".launch_dependents"))) continue;
        if (*op == OP_CREATEPOLICY && (is(k, ".fractional") || is(k, ".range") || is(k, ".cvt"))) continue;
        if (is(k, ".to")) { md->cvta_to = 1; continue; }
        if (is(k, ".sat")) { in->flags |= F_SAT; continue; }
        if (is(k, ".ftz")) { in->flags |= F_FTZ; continue; }
        if (is(k, ".approx")) { in->flags |= F_APPROX; continue; }
        if (is(k, ".relu")) { in->flags |= F_RELU; continue; }
        if (is(k, ".satfinite") && *op == OP_CVT) { in->flags |= F_SATFIN; continue; }
        if (is(k, ".cc") && (*op == OP_ADD || *op == OP_SUB || *op == OP_MAD || *op == OP_ADDC || *op == OP_SUBC || *op == OP_MADC)) {
            in->flags |= F_CC;
            continue;
        }
        if ((*op == OP_MIN || *op == OP_MAX) && (is(k, ".NaN") || is(k, ".xorsign") || is(k, ".abs"))) {
            in->flags |= is(k, ".NaN") ? F_NAN : is(k, ".xorsign") ? F_XORSIGN : F_ABS;
            continue;
        }
        if (*op == OP_BFIND && is(k, ".shiftamt")) { in->sub = 1; continue; }
        if (*op == OP_PRMT) { /* prmt modes: sub 1-6 */
            static const char *const pm[] = { ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16" };
            for (size_t i = 0; i < sizeof pm / sizeof *pm && !done; i++)
                if (is(k, pm[i])) { in->sub = (uint8_t)(i + 1); done = 1; }
            if (done) continue;
        }
        if ((*op == OP_BMSK || *op == OP_SZEXT) && (is(k, ".clamp") || is(k, ".wrap"))) {
            if (is(k, ".wrap")) in->flags |= F_WRAP;
            continue;
        }
        if (is(k, ".sync") && (*op == OP_SHFL || *op == OP_VOTE || *op == OP_MATCH || *op == OP_REDUX || *op == OP_ELECT)) {
            in->flags |= F_SYNC;
            continue;
        }
        if (*op == OP_SETP || *op == OP_SET) {
            for (size_t i = 0; i < sizeof cmps / sizeof *cmps && !done; i++)
                if (is(k, cmps[i].s)) { in->sub = (uint8_t)cmps[i].v; done = 1; }
            if (!done && is(k, ".and")) { in->sub2 = BOOL_AND; done = 1; }
            if (!done && is(k, ".or")) { in->sub2 = BOOL_OR; done = 1; }
            if (!done && is(k, ".xor")) { in->sub2 = BOOL_XOR; done = 1; }
        } else if (*op == OP_SLCT && !done) {
            /* types only */
        } else if (*op == OP_ATOM || *op == OP_RED) {
            for (size_t i = 0; i < sizeof atops / sizeof *atops && !done; i++)
                if (is(k, atops[i].s)) { in->sub = (uint8_t)atops[i].v; done = 1; }
        } else if (*op == OP_SHFL) {
            if (is(k, ".up")) { in->sub = SH_UP; done = 1; }
            else if (is(k, ".down")) { in->sub = SH_DOWN; done = 1; }
            else if (is(k, ".bfly")) { in->sub = SH_BFLY; done = 1; }
            else if (is(k, ".idx")) { in->sub = SH_IDX; done = 1; }
        } else if (*op == OP_VOTE) {
            if (is(k, ".all")) { in->sub = VO_ALL; done = 1; }
            else if (is(k, ".any")) { in->sub = VO_ANY; done = 1; }
            else if (is(k, ".uni")) { in->sub = VO_UNI; done = 1; }
            else if (is(k, ".ballot")) { in->sub = VO_BALLOT; done = 1; }
        } else if (*op == OP_MUL || *op == OP_MAD || *op == OP_MUL24 || *op == OP_MAD24 || *op == OP_MADC || *op == OP_DP2A) {
            if (is(k, ".hi")) { in->flags |= F_HI; done = 1; }
            else if (is(k, ".lo")) done = 1;
            else if (is(k, ".wide")) { in->flags |= F_WIDE; done = 1; }
        } else if (*op == OP_SHF) {
            if (is(k, ".l")) done = 1;
            else if (is(k, ".r")) { in->flags |= F_HI; done = 1; }
            else if (is(k, ".wrap")) { in->flags |= F_WRAP; done = 1; }
            else if (is(k, ".clamp")) done = 1;
        } else if (*op == OP_BAR && is(k, ".cluster")) { /* barrier.cluster.arrive, .wait */
            *op = OP_CBAR;
            done = 1;
        } else if (*op == OP_CBAR) {
            if (is(k, ".arrive")) { in->sub = CB_ARRIVE; done = 1; }
            else if (is(k, ".wait")) { in->sub = CB_WAIT; done = 1; }
            else if (is(k, ".aligned") || is(k, ".relaxed") || is(k, ".release") || is(k, ".acquire")) done = 1;
        } else if (*op == OP_BAR) {
            if (is(k, ".sync") || is(k, ".aligned") || is(k, ".cta")) done = 1;
            else if (is(k, ".warp")) { md->warp = 1; done = 1; }
            else if (is(k, ".arrive")) { in->sub2 = BK_ARRIVE; done = 1; }
            else if (is(k, ".red")) { in->sub2 = BK_RED; done = 1; }
            else if (in->sub2 == BK_RED && (is(k, ".popc") || is(k, ".and") || is(k, ".or"))) {
                in->sub = is(k, ".popc") ? RED_POPC : is(k, ".and") ? RED_AND : RED_OR; done = 1;
            }
        } else if (*op == OP_CPASYNC) {
            if (is(k, ".async")) done = 1;
            else if (is(k, ".commit_group")) { in->sub = CP_COMMIT; done = 1; }
            else if (is(k, ".wait_group")) { in->sub = CP_WAIT; done = 1; }
            else if (is(k, ".wait_all")) { in->sub = CP_WAIT_ALL; done = 1; }
            else if (is(k, ".mbarrier")) { in->sub = CP_MBAR_ARRIVE; done = 1; }
            else if (is(k, ".arrive")) done = in->sub == CP_MBAR_ARRIVE;
            else if (is(k, ".noinc")) { in->sub2 |= MB_NOINC; done = 1; }
            else if (is(k, ".bulk")) { md->bulk = 1; done = 1; }
            else if (is(k, ".mbarrier::complete_tx::bytes") || is(k, ".bulk_group") || is(k, ".read") ||
                     is(k, ".L2::cache_hint") || is(k, ".L2::64B") || is(k, ".L2::128B") || is(k, ".L2::256B"))
                done = 1;
        } else if (*op == OP_MBAR) {
            static const struct { const char *s; int v; } mops[] = {
                { ".init", MB_INIT }, { ".inval", MB_INVAL }, { ".arrive", MB_ARRIVE }, { ".arrive_drop", MB_ARRIVE_DROP },
                { ".expect_tx", MB_EXPECT_TX }, { ".complete_tx", MB_COMPLETE_TX }, { ".test_wait", MB_TEST_WAIT },
                { ".try_wait", MB_TRY_WAIT }, { ".pending_count", MB_PENDING },
            };
            for (size_t i = 0; i < sizeof mops / sizeof *mops && !done; i++) {
                if (!is(k, mops[i].s)) continue;
                if (mops[i].v == MB_EXPECT_TX && (in->sub == MB_ARRIVE || in->sub == MB_ARRIVE_DROP)) in->sub2 |= MB_WITH_TX;
                else in->sub = (uint8_t)mops[i].v;
                done = 1;
            }
            if (!done && is(k, ".parity")) { in->sub2 |= MB_PARITY; done = 1; }
            if (!done && is(k, ".noComplete")) { in->sub2 |= MB_NOCOMPLETE; done = 1; }
        } else if (*op == OP_BRX) {
            if (is(k, ".idx")) done = 1;
        } else if (*op == OP_MATCH) {
            if (is(k, ".any")) { in->sub = MA_ANY; done = 1; }
            else if (is(k, ".all")) { in->sub = MA_ALL; done = 1; }
        } else if (*op == OP_REDUX) {
            static const struct { const char *s; int v; } rops[] = {
                { ".and", RED_AND }, { ".or", RED_OR }, { ".xor", RED_XOR }, { ".add", RED_ADD },
                { ".min", RED_MIN }, { ".max", RED_MAX },
            };
            for (size_t i = 0; i < sizeof rops / sizeof *rops && !done; i++)
                if (is(k, rops[i].s)) { in->sub = (uint8_t)rops[i].v; done = 1; }
            if (!done && is(k, ".abs")) { in->flags |= F_ABS; done = 1; }
            if (!done && is(k, ".NaN")) { in->flags |= F_NAN; done = 1; }
        } else if (*op == OP_TESTP) {
            static const char *const tp[] = { ".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal" };
            for (size_t i = 0; i < 6 && !done; i++)
                if (is(k, tp[i])) { in->sub = (uint8_t)i; done = 1; }
        } else if (*op == OP_MEMBAR) {
            done = 1;
        }
        if (done) continue;
        for (size_t i = 0; i < sizeof rnds / sizeof *rnds && !done; i++)
            if (is(k, rnds[i].s)) { in->sub = (uint8_t)rnds[i].v; done = 1; }
        if (done) continue;
        if (ignorable(k)) continue;
        if (*op == OP_LD && (is(k, ".lo") || is(k, ".hi"))) continue;
        md->unknown = 1;
        if (!md->bad) md->bad = k;
    }
}
