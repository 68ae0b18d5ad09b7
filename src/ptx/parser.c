/* SPDX-License-Identifier: Apache-2.0 */
/* PTX text -> the internal form (ir.h). One pass over a token array; labels
 * and calls to functions defined later are fixed up at the end of each
 * function and of the module. An instruction the executor does not know
 * becomes OP_UNSUPPORTED with its name and line: the checker reports it
 * when a launch needs it, so one exotic kernel does not spoil a module. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parse_file(struct ps *p)
{
    int line = cur(p)->line;
    next(p);
    if (cur(p)->kind == TK_INT && p->t[p->i + 1].kind == TK_STR && cur(p)->iv < (1u << 30)) {
        struct tok *nm = &p->t[p->i + 1];
        int at = nm->n >= 2 ? add_string(p->m, nm->s + 1, nm->n - 2) : -1;
        struct ptx_module *m = p->m;
        if (at >= 0 && !ps_grow((void **)&m->files, m->nfiles, &m->capfiles, sizeof *m->files))
            m->files[m->nfiles++] = (struct ir_file){ (int)cur(p)->iv, at };
    }
    while (cur(p)->kind != TK_EOF && cur(p)->line == line) next(p);
}

static void put_elem(unsigned char *out, int t, struct tok *tk, int neg)
{
    unsigned sz = ir_type_size(t);
    uint64_t bits;
    if (tk->kind == TK_FLT) {
        double d;
        float f;
        if (tk->fbits == 32) { uint32_t u = (uint32_t)tk->iv; memcpy(&f, &u, 4); d = f; }
        else memcpy(&d, &tk->iv, 8);
        if (neg) d = -d;
        if (t == T_F32) { f = (float)d; uint32_t u; memcpy(&u, &f, 4); bits = u; }
        else if (t == T_F64) memcpy(&bits, &d, 8);
        else bits = (uint64_t)(int64_t)d;
    } else {
        bits = neg ? (uint64_t)-(int64_t)tk->iv : tk->iv;
        if (t == T_F32) { float f = ir_type_signed(t) ? (float)(int64_t)bits : (float)(int64_t)bits; uint32_t u; memcpy(&u, &f, 4); bits = u; }
        else if (t == T_F64) { double d = (double)(int64_t)bits; memcpy(&bits, &d, 8); }
    }
    memcpy(out, &bits, sz > 8 ? 8 : sz); /* little-endian host */
}

/* = value or = { ... } (nested braces flattened) into *buf of *size bytes
 * (grown for an unsized array, *size then the elements' bytes); addresses
 * of variables and functions are recorded for ptx_global_init */
static int parse_init(struct ps *p, int t, unsigned char **buf, uint64_t *size, int unsized, int gi)
{
    unsigned es = ir_type_size(t);
    uint64_t at = 0, cap = *size;
    int depth = 0;
    do {
        if (accept(p, '{')) { depth++; continue; }
        if (accept(p, '}')) { depth--; if (depth > 0) accept(p, ','); continue; }
        if (unsized && at + es > cap) {
            uint64_t nc = cap ? cap * 2 : 64;
            unsigned char *nb = nc <= (64u << 20) ? realloc(*buf, nc) : NULL;
            if (!nb) { ps_err(p, cur(p)->line, "initializer too big"); return -1; }
            memset(nb + cap, 0, nc - cap);
            *buf = nb;
            cap = nc;
        }
        int neg = 0;
        while (isp(cur(p), '-')) { neg = !neg; next(p); }
        struct tok *tk = cur(p);
        if (tk->kind == TK_INT || tk->kind == TK_FLT) {
            if (at + es <= cap) put_elem(*buf + at, t, tk, neg);
            at += es;
            next(p);
        } else if (tk->kind == TK_ID && !neg && (es == 8 || es == 4)) { /* name, generic(name), name+n */
            int generic = is(tk, "generic") && isp(&p->t[p->i + 1], '(');
            if (generic) { next(p); next(p); }
            struct tok *nm = cur(p);
            struct sym *y = nm->kind == TK_ID ? sym_find(p, nm->s, nm->n) : NULL;
            if (!y || (y->kind != SY_GLOBAL && y->kind != SY_FUNC)) {
                ps_err(p, nm->line, "unsupported initializer '%.*s'", nm->n > 40 ? 40 : nm->n, nm->s);
                return -1;
            }
            next(p);
            if (generic && expect(p, ')')) return -1;
            int64_t add = 0;
            if (isp(cur(p), '+')) { next(p); add = parse_intexpr(p); }
            struct ptx_module *m = p->m;
            if (ps_grow((void **)&m->relocs, m->nrelocs, &m->caprelocs, sizeof *m->relocs)) { ps_err(p, nm->line, "out of memory"); return -1; }
            m->relocs[m->nrelocs++] = (struct ir_reloc){ gi, es, at, y->kind == SY_FUNC ? K_FUNC : K_GLOBAL, (int)y->val, add };
            if (y->kind == SY_FUNC) m->funcs[y->val].addr_taken = 1;
            at += es;
        } else {
            ps_err(p, tk->line, "unsupported initializer '%.*s'", tk->n > 40 ? 40 : tk->n, tk->s);
            return -1;
        }
        if (depth > 0 && !isp(cur(p), '}') && expect(p, ',')) return -1;
    } while (depth > 0 && !p->failed && cur(p)->kind != TK_EOF);
    if (unsized) *size = at;
    return p->failed ? -1 : 0;
}

/* .global/.const/.shared/.local variable declaration(s), after the space.
 * Module scope for global/const/shared; in a function for shared/local. */
static int parse_var(struct ps *p, int space, int is_extern, int in_func)
{
    unsigned align = 0;
    int t = T_NONE, vec = 1;
    for (;;) {
        struct tok *k = cur(p);
        if (k->kind != TK_DIR) break;
        if (is(k, ".align")) { next(p); align = (unsigned)parse_intexpr(p); continue; }
        if (is(k, ".v2")) { vec = 2; next(p); continue; }
        if (is(k, ".v4")) { vec = 4; next(p); continue; }
        /* .attribute(.managed) on a module's .global: a __managed__
         * variable, host memory like every other global here */
        if (is(k, ".attribute") && space == SP_GLOBAL && !in_func && isp(&p->t[p->i + 1], '(') &&
            is(&p->t[p->i + 2], ".managed") && isp(&p->t[p->i + 3], ')')) {
            p->i += 4;
            continue;
        }
        if (is(k, ".ptr") || is(k, ".attribute") || is(k, ".managed")) {
            ps_unsup(p, k->line, "unsupported variable attribute '%.*s'", k->n, k->s);
            return -1;
        }
        int tt = type_of(k);
        if (is(k, ".texref") || is(k, ".samplerref") || is(k, ".surfref")) tt = T_B64; /* opaque handles */
        if (tt == T_NONE) break;
        t = tt;
        next(p);
    }
    if (t == T_NONE) { ps_err(p, cur(p)->line, "variable without a type"); return -1; }
    unsigned es = ir_type_size(t) * (unsigned)vec;
    if (!align) align = es;
    for (;;) {
        struct tok *nm = cur(p);
        if (nm->kind != TK_ID) { ps_err(p, nm->line, "expected a variable name"); return -1; }
        next(p);
        int unsized;
        uint64_t n = parse_dims(p, &unsized);
        if (p->failed) return -1;
        uint64_t size = n * es;
        struct ptx_module *m = p->m;
        if (space == SP_GLOBAL || space == SP_CONST) {
            if (ps_grow((void **)&m->globals, m->nglobals, &m->capglobals, sizeof *m->globals)) { ps_err(p, nm->line, "out of memory"); return -1; }
            struct ptx_global_info *g = &m->globals[m->nglobals];
            memset(g, 0, sizeof *g);
            g->name = strndup(nm->s, (size_t)nm->n);
            g->is_const = space == SP_CONST;
            g->align = align;
            g->size = size;
            m->nglobals++;
            if (!g->name) { ps_err(p, nm->line, "out of memory"); return -1; }
            if (accept(p, '=')) {
                if (size > (64u << 20)) { ps_err(p, nm->line, "initializer too big"); return -1; }
                unsigned char *buf = calloc(1, size ? size : 1);
                if (!buf) { ps_err(p, nm->line, "out of memory"); return -1; }
                int r = parse_init(p, t, &buf, &size, unsized, m->nglobals - 1);
                g = &m->globals[m->nglobals - 1];
                g->init = buf;
                g->size = size;
                if (r) return -1;
            }
            (void)is_extern;
            sym_add(p, nm->s, nm->n, SY_GLOBAL, m->nglobals - 1, 0);
        } else if (space == SP_SHARED) {
            if (unsized) { /* extern dynamic shared: after all static shared */
                sym_add(p, nm->s, nm->n, SY_SHARED, ir_shared_const(-1, 0), 0);
            } else {
                if (size > (1u << 30)) { ps_err(p, nm->line, "shared variable too big"); return -1; }
                unsigned off = align_up(m->shared_bytes, align);
                if (off < m->shared_bytes || off > (1u << 30)) { ps_err(p, nm->line, "too much shared memory"); return -1; }
                if (ps_grow((void **)&m->svars, m->nsvars, &m->capsvars, sizeof *m->svars)) {
                    ps_err(p, nm->line, "out of memory");
                    return -1;
                }
                m->svars[m->nsvars++] = (struct ir_svar){ (unsigned)size, align ? align : 1 };
                m->shared_bytes = off + (unsigned)size;
                sym_add(p, nm->s, nm->n, SY_SHARED, ir_shared_const(m->nsvars - 1, 0), 0);
            }
            if (isp(cur(p), '=')) { ps_err(p, nm->line, "initialised shared variable"); return -1; }
        } else if (space == SP_LOCAL && in_func) {
            struct ir_func *f = &m->funcs[p->fn];
            if (size > (1u << 24)) { ps_err(p, nm->line, "local variable too big"); return -1; }
            unsigned off = align_up(f->local_bytes, align);
            f->local_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_LOCAL, off, 0);
            if (isp(cur(p), '=')) { ps_err(p, nm->line, "initialised local variable"); return -1; }
        } else if (space == SP_PARAM && in_func) { /* call parameter */
            struct ir_func *f = &m->funcs[p->fn];
            if (size > (1u << 20)) { ps_err(p, nm->line, "param too big"); return -1; }
            unsigned off = align_up(f->fparam_bytes, align < 8 ? 8 : align);
            f->fparam_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_FPARAM, off, (int)size);
        } else {
            ps_err(p, nm->line, "unsupported variable space");
            return -1;
        }
        if (!accept(p, ',')) break;
    }
    return expect(p, ';');
}

/* (.param .type name, ...) of an entry or function; kernel: offsets in the
 * parameter buffer, function: offsets in its .param area */
static int parse_params(struct ps *p, int entry, int ret)
{
    struct ir_func *f = &p->m->funcs[p->fn];
    int line = cur(p)->line;
    if (expect(p, '(')) return -1;
    while (!isp(cur(p), ')') && !p->failed && cur(p)->kind != TK_EOF) {
        int a = p->i, depth = 0;
        while (cur(p)->kind != TK_EOF && !(depth == 0 && (isp(cur(p), ',') || isp(cur(p), ')')))) {
            if (isp(cur(p), '[')) depth++;
            if (isp(cur(p), ']')) depth--;
            next(p);
        }
        struct ptx_param_layout pl;
        if (param_decl(p->t, a, p->i, &pl)) { ps_err(p, p->t[a].line, "bad parameter"); return -1; }
        if (is(&p->t[a], ".reg")) { ps_unsup(p, p->t[a].line, "unsupported .reg parameter"); return -1; }
        f = &p->m->funcs[p->fn];
        struct ir_param **arr = ret ? &f->rets : &f->params;
        int *cnt = ret ? &f->nrets : &f->nparams;
        struct ir_param *np = realloc(*arr, (size_t)(*cnt + 1) * sizeof **arr);
        if (!np) { ps_err(p, line, "out of memory"); return -1; }
        *arr = np;
        unsigned off;
        if (entry) {
            off = ptx_param_place(&f->param_bytes, &pl);
            sym_add(p, pl.name, (int)pl.namelen, SY_KPARAM, off, (int)pl.size);
        } else { /* the engine's own layout: 8-byte slots at least */
            struct ptx_param_layout q = pl;
            if (q.align < 8) q.align = 8;
            off = ptx_param_place(&f->fparam_bytes, &q);
            sym_add(p, pl.name, (int)pl.namelen, SY_FPARAM, off, (int)pl.size);
        }
        np[*cnt] = (struct ir_param){ off, pl.size, pl.align };
        (*cnt)++;
        if (!accept(p, ',')) break;
    }
    return expect(p, ')');
}

/* ---- functions ----------------------------------------------------------- */
static int label_at(struct ps *p, const char *s, int n)
{
    for (int j = 0; j < p->nlabels; j++)
        if (p->labels[j].n == n && memcmp(p->labels[j].s, s, (size_t)n) == 0) return p->labels[j].at;
    return -1;
}

static int resolve_labels(struct ps *p)
{
    for (int i = 0; i < p->nfix; i++) {
        struct fix *x = &p->fixes[i];
        int at = label_at(p, x->s, x->n);
        if (at < 0) { ps_err(p, x->line, "unknown label '%.*s'", x->n > 60 ? 60 : x->n, x->s); return -1; }
        if (x->list >= 0) p->m->targets[x->list].pc[x->pos] = at;
        else p->m->ins[x->ins].imm = at;
    }
    p->nfix = 0;
    p->nlabels = 0;
    return 0;
}

/* "name: .branchtargets L1, L2, ...;" (the name is read): a list brx.idx
 * can name */
static int parse_branchtargets(struct ps *p, struct tok *name)
{
    struct ptx_module *m = p->m;
    int line = cur(p)->line;
    next(p);
    if (ps_grow((void **)&m->targets, m->ntargets, &m->captargets, sizeof *m->targets)) { ps_err(p, line, "out of memory"); return -1; }
    struct ir_targets *t = &m->targets[m->ntargets];
    memset(t, 0, sizeof *t);
    int idx = m->ntargets++;
    int cap = 0;
    for (;;) {
        if (cur(p)->kind != TK_ID) { ps_err(p, cur(p)->line, "expected a label"); return -1; }
        if (ps_grow((void **)&t->pc, t->n, &cap, sizeof *t->pc) ||
            ps_grow((void **)&p->fixes, p->nfix, &p->capfix, sizeof *p->fixes)) { ps_err(p, line, "out of memory"); return -1; }
        p->fixes[p->nfix++] = (struct fix){ -1, cur(p)->s, cur(p)->n, line, idx, t->n };
        t->pc[t->n++] = 0;
        next(p);
        if (!accept(p, ',')) break;
    }
    if (sym_add(p, name->s, name->n, SY_TARGETS, idx, 0) == NULL) return -1;
    return expect(p, ';');
}

/* skips the rest of the function being parsed (we are depth - base braces
 * deep in it) */
static void skip_rest(struct ps *p, int base)
{
    int need = p->depth - base;
    while (need > 0 && cur(p)->kind != TK_EOF) {
        if (isp(cur(p), '{')) need++;
        if (isp(cur(p), '}')) need--;
        next(p);
    }
    sym_pop(p, base);
    p->depth = base;
}

/* the function being parsed cannot run: why, where */
static void mark_bad(struct ps *p)
{
    struct ir_func *f = &p->m->funcs[p->fn];
    if (f->bad_reason < 0) {
        f->bad_reason = add_string(p->m, p->unsup_msg, (int)strlen(p->unsup_msg));
        f->bad_line = p->unsup_line;
    }
    p->unsup = 0;
    p->failed = 0;
    p->err[0] = 0;
}

/* body: { statements } ; the opening brace is current */
static int parse_body(struct ps *p)
{
    struct ptx_module *m = p->m;
    struct ir_func *f = &m->funcs[p->fn];
    f->start = m->nins;
    f->cstart = m->nconst;
    p->loc_file = p->loc_line = p->loc_col = 0;
    int base = p->depth;
    if (expect(p, '{')) return -1;
    p->depth++;
    while (!p->failed) {
        struct tok *t = cur(p);
        if (t->kind == TK_EOF) { ps_err(p, t->line, "unterminated function body"); return -1; }
        if (isp(t, '{')) { next(p); p->depth++; continue; }
        if (isp(t, '}')) {
            next(p);
            sym_pop(p, p->depth - 1);
            p->depth--;
            if (p->depth == base) break;
            continue;
        }
        if (t->kind == TK_DIR) {
            int sp = space_of(t);
            if (is(t, ".reg")) { next(p); parse_reg(p); continue; }
            if (sp == SP_LOCAL || sp == SP_SHARED || sp == SP_PARAM) {
                next(p);
                parse_var(p, sp, 0, 1);
                continue;
            }
            if (is(t, ".loc") && p->t[p->i + 1].kind == TK_INT && p->t[p->i + 2].kind == TK_INT) {
                p->loc_file = (int)(p->t[p->i + 1].iv & 0x3fffffff);
                p->loc_line = (int)(p->t[p->i + 2].iv & 0x3fffffff);
                p->loc_col = p->t[p->i + 3].kind == TK_INT ? (int)(p->t[p->i + 3].iv & 0x3fffffff) : 0;
            }
            if (is(t, ".loc") || is(t, ".pragma") || is(t, ".file")) {
                int line = t->line;
                while (cur(p)->kind != TK_EOF && cur(p)->line == line && !isp(cur(p), ';')) next(p);
                accept(p, ';');
                continue;
            }
            ps_unsup(p, t->line, "unsupported directive '%.*s' in a function", t->n > 40 ? 40 : t->n, t->s);
            break;
        }
        if (t->kind == TK_ID && isp(&p->t[p->i + 1], ':')) { /* label, or a name for a list */
            struct tok *d = &p->t[p->i + 2];
            if (is(d, ".branchtargets")) { p->i += 2; parse_branchtargets(p, t); continue; }
            if (is(d, ".callprototype") || is(d, ".calltargets")) { /* calls match arguments by position */
                while (cur(p)->kind != TK_EOF && !isp(cur(p), ';')) next(p);
                accept(p, ';');
                continue;
            }
            if (ps_grow((void **)&p->labels, p->nlabels, &p->caplabels, sizeof *p->labels)) { ps_err(p, t->line, "out of memory"); return -1; }
            p->labels[p->nlabels++] = (struct label){ t->s, t->n, m->nins };
            p->i += 2;
            continue;
        }
        int guard = -1, gneg = 0;
        if (accept(p, '@')) {
            if (accept(p, '!')) gneg = 1;
            struct opnd g;
            memset(&g, 0, sizeof g);
            if (cur(p)->kind != TK_ID || parse_reg_or_sym(p, &g) || g.kind != O_REG) { ps_err(p, t->line, "bad guard"); return -1; }
            guard = g.slot;
        }
        if (cur(p)->kind != TK_ID) { ps_err(p, cur(p)->line, "expected an instruction near '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s); return -1; }
        if (is_matrix(p)) parse_matrix(p, guard, gneg);
        else if (is_video(p)) parse_video(p, guard, gneg);
        else if (is_tex(p)) parse_tex(p, guard, gneg);
        else if (is_tensor(p)) parse_tensor(p, guard, gneg);
        else parse_ins(p, guard, gneg);
        f = &m->funcs[p->fn];
    }
    f = &m->funcs[p->fn];
    if (p->failed && !p->unsup) return -1;
    int bad = p->unsup;
    if (bad) { /* the rest of the function is not read */
        mark_bad(p);
        skip_rest(p, base);
        p->nfix = p->nlabels = 0;
    }
    /* a function that runs off its end returns */
    struct ir_ins *in = new_ins(p, cur(p)->line);
    if (!in) return -1;
    in->op = f->is_entry ? OP_EXIT : OP_RET;
    f->end = m->nins;
    f->cend = m->nconst;
    f->defined = 1;
    return bad ? 0 : resolve_labels(p);
}

/* skips perf directives up to the body or ';'; function fi keeps its
 * cluster directives (.reqnctapercluster x, y, z; .explicitcluster) */
static void skip_directives(struct ps *p, int fi)
{
    while (cur(p)->kind != TK_EOF && !isp(cur(p), '{') && !isp(cur(p), ';')) {
        if (cur(p)->kind == TK_DIR && is(cur(p), ".explicitcluster")) {
            p->m->funcs[fi].explicit_cluster = 1;
            next(p);
            continue;
        }
        if (cur(p)->kind == TK_DIR && is(cur(p), ".reqnctapercluster")) {
            struct ir_func *f = &p->m->funcs[fi];
            next(p);
            f->cluster[0] = f->cluster[1] = f->cluster[2] = 1;
            for (int k = 0; k < 3 && cur(p)->kind == TK_INT; k++) {
                f->cluster[k] = cur(p)->iv > 1024 ? 1025 : (unsigned)cur(p)->iv; /* too large: refused at launch */
                next(p);
                if (!accept(p, ',')) break;
            }
            continue;
        }
        if (cur(p)->kind == TK_DIR && (is(cur(p), ".noreturn") || is(cur(p), ".maxntid") || is(cur(p), ".reqntid") ||
                                       is(cur(p), ".minnctapersm") || is(cur(p), ".maxnctapersm") || is(cur(p), ".maxnreg") ||
                                       is(cur(p), ".explicitcluster") || is(cur(p), ".reqnctapercluster") ||
                                       is(cur(p), ".maxclusterrank") || is(cur(p), ".pragma"))) {
            next(p);
            continue;
        }
        if (cur(p)->kind == TK_INT || isp(cur(p), ',') || cur(p)->kind == TK_STR) { next(p); continue; }
        char d[64];
        ps_err(p, cur(p)->line, "unexpected %s", tok_desc(cur(p), d, sizeof d));
        return;
    }
}

static int parse_function(struct ps *p, int entry, int is_extern)
{
    struct tok *t = cur(p);
    int line = t->line;
    int has_ret = 0;
    int depth0 = p->depth;
    p->depth = 1; /* parameters live in the function's scope */
    int retstart = -1;
    if (!entry && isp(t, '(')) { has_ret = 1; retstart = p->i; }
    if (has_ret) { /* skip to after the ')' and read the name; params parsed after */
        int d = 0;
        do {
            if (isp(cur(p), '(')) d++;
            if (isp(cur(p), ')')) d--;
            next(p);
        } while (d > 0 && cur(p)->kind != TK_EOF);
    }
    struct tok *nm = cur(p);
    if (nm->kind != TK_ID) { ps_err(p, nm->line, "expected a function name"); return -1; }
    next(p);
    p->depth = 0;
    int fi = func_get(p, nm->s, nm->n);
    p->depth = 1;
    if (fi < 0) { ps_err(p, line, "out of memory"); return -1; }
    struct ir_func *f = &p->m->funcs[fi];
    int redecl = f->nparams || f->nrets || f->defined || f->param_bytes || f->fparam_bytes;
    if (redecl) { /* a prototype seen before: parse again from scratch */
        free(f->params); free(f->rets);
        f->params = f->rets = NULL;
        f->nparams = f->nrets = 0;
        f->param_bytes = f->fparam_bytes = 0;
        if (f->defined) { ps_err(p, nm->line, "function '%.*s' defined twice", nm->n > 60 ? 60 : nm->n, nm->s); return -1; }
    }
    f->is_entry = entry;
    f->is_extern = is_extern;
    f->line = line;
    p->fn = fi;
    int after = p->i, r = 0;
    if (has_ret) {
        p->i = retstart;
        parse_params(p, 0, 1);
        p->i = after;
    }
    if (!p->failed && isp(cur(p), '(')) parse_params(p, entry, 0);
    if (p->unsup) { /* a signature the engine cannot take: the function cannot run */
        mark_bad(p);
        while (cur(p)->kind != TK_EOF && !isp(cur(p), '{') && !isp(cur(p), ';')) next(p);
        f = &p->m->funcs[fi];
        if (isp(cur(p), '{')) {
            next(p);
            p->depth = 2;
            skip_rest(p, 1);
            f->defined = 1;
            f->start = f->end = p->m->nins;
        } else
            accept(p, ';');
        goto done;
    }
    skip_directives(p, fi);
    if (p->failed) return -1;
    f = &p->m->funcs[fi];
    if (accept(p, ';')) /* a declaration */
        goto done;
    if (isp(cur(p), '{')) {
        r = parse_body(p);
        goto done;
    }
    ps_err(p, cur(p)->line, "expected a function body");
    return -1;
done:
    sym_pop(p, 0);
    p->depth = depth0;
    p->fn = -1;
    return r;
}

/* skips .section .debug_xxx { ... } */
static void skip_section(struct ps *p)
{
    while (cur(p)->kind != TK_EOF && !isp(cur(p), '{')) next(p);
    int d = 0;
    do {
        if (isp(cur(p), '{')) d++;
        if (isp(cur(p), '}')) d--;
        next(p);
    } while (d > 0 && cur(p)->kind != TK_EOF);
}

static int parse_module(struct ps *p)
{
    /* PTX begins with .version, and .target comes before any code or data */
    struct tok *t0 = cur(p);
    if (t0->kind == TK_EOF) { ps_err(p, t0->line, "no PTX: the text is empty"); return -1; }
    if (!is(t0, ".version")) {
        char d[64];
        ps_err(p, t0->line, "not PTX: it begins with %s, not .version", tok_desc(t0, d, sizeof d));
        return -1;
    }
    int target = 0;
    while (!p->failed && cur(p)->kind != TK_EOF) {
        struct tok *t = cur(p);
        if (t->kind != TK_DIR) {
            char d[64];
            ps_err(p, t->line, "unexpected %s", tok_desc(t, d, sizeof d));
            return -1;
        }
        if (is(t, ".version") || is(t, ".address_size")) {
            next(p);
            if (cur(p)->kind != TK_INT && cur(p)->kind != TK_FLT) { ps_err(p, t->line, "%.*s without a number", t->n, t->s); return -1; }
            next(p);
            continue;
        }
        if (is(t, ".target")) {
            next(p);
            if (cur(p)->kind != TK_ID) { ps_err(p, t->line, ".target without a target"); return -1; }
            while (cur(p)->kind == TK_ID) { next(p); if (!accept(p, ',')) break; }
            target = 1;
            continue;
        }
        if (!target && !is(t, ".file") && !is(t, ".pragma")) {
            ps_err(p, t->line, "%.*s before the .target directive", t->n > 40 ? 40 : t->n, t->s);
            return -1;
        }
        if (is(t, ".file")) {
            parse_file(p);
            continue;
        }
        if (is(t, ".section")) { skip_section(p); continue; }
        if (is(t, ".pragma")) {
            while (cur(p)->kind != TK_EOF && !isp(cur(p), ';')) next(p);
            accept(p, ';');
            continue;
        }
        int is_extern = 0;
        while (is(cur(p), ".visible") || is(cur(p), ".extern") || is(cur(p), ".weak") || is(cur(p), ".common")) {
            if (is(cur(p), ".extern")) is_extern = 1;
            next(p);
        }
        t = cur(p);
        if (is(t, ".entry")) { next(p); if (parse_function(p, 1, is_extern)) return -1; continue; }
        if (is(t, ".func")) { next(p); if (parse_function(p, 0, is_extern)) return -1; continue; }
        int sp = space_of(t);
        if (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_SHARED) {
            next(p);
            if (parse_var(p, sp, is_extern, 0)) return -1;
            continue;
        }
        ps_err(p, t->line, "unsupported directive '%.*s'", t->n > 40 ? 40 : t->n, t->s);
        return -1;
    }
    return p->failed ? -1 : 0;
}

/* call argument copies, once every function's parameters are known */
static int resolve_calls(struct ps *p)
{
    struct ptx_module *m = p->m;
    for (int i = 0; i < p->ncfix; i++) {
        struct cfix *cf = &p->cfixes[i];
        struct ir_call *c = &m->calls[cf->call];
        struct ir_func *g = c->callee >= 0 ? &m->funcs[c->callee] : NULL;
        c->nargs = cf->nargs;
        c->nrets = cf->nrets;
        c->args = calloc((size_t)cf->nargs + 1, sizeof *c->args);
        c->rets = calloc((size_t)cf->nrets + 1, sizeof *c->rets);
        if (!c->args || !c->rets) { ps_err(p, cf->line, "out of memory"); return -1; }
        if (!g || g->builtin) { /* by position, sizes as the call site declares them */
            const struct ir_builtin *bi = g ? &ir_builtins[g->builtin] : NULL;
            if (bi && (cf->nargs < bi->amin || cf->nargs > bi->amax || cf->nrets > bi->nrets)) {
                ps_err(p, cf->line, "call of %s with %d arguments and %d results", g->name, cf->nargs, cf->nrets);
                return -1;
            }
            for (int k = 0; k < cf->nargs; k++)
                c->args[k] = (struct ir_copy){ (uint32_t)cf->argoff[k], 0, (uint32_t)cf->argsz[k] };
            for (int k = 0; k < cf->nrets; k++)
                c->rets[k] = (struct ir_copy){ 0, (uint32_t)cf->retoff[k], (uint32_t)cf->retsz[k] };
            continue;
        }
        if (cf->nargs != g->nparams || cf->nrets > g->nrets) {
            if (g->bad_reason >= 0) continue; /* its signature was not read: calls of it cannot run anyway */
            ps_err(p, cf->line, "call of %s: %d arguments for %d parameters", g->name, cf->nargs, g->nparams);
            return -1;
        }
        for (int k = 0; k < cf->nargs; k++)
            c->args[k] = (struct ir_copy){ (uint32_t)cf->argoff[k], g->params[k].offset, g->params[k].size };
        for (int k = 0; k < cf->nrets; k++)
            c->rets[k] = (struct ir_copy){ g->rets[k].offset, (uint32_t)cf->retoff[k], g->rets[k].size };
    }
    return 0;
}

struct ptx_module *ptx_parse(const char *text, size_t len, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    err[0] = 0;
    if (!text) { snprintf(err, errlen, "no PTX"); return NULL; }
    len = strnlen(text, len ? len : (size_t)-1 >> 1);
    struct ps p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.errlen = errlen;
    p.m = calloc(1, sizeof *p.m);
    p.buckets = malloc(SYM_BUCKETS * sizeof *p.buckets);
    if (!p.m || !p.buckets) {
        snprintf(err, errlen, "out of memory");
        free(p.buckets);
        free(p.m);
        return NULL;
    }
    for (int i = 0; i < SYM_BUCKETS; i++) p.buckets[i] = -1;
    p.fn = -1;
    int rc = ps_lex(&p, text, len);
    if (rc) snprintf(err, errlen, "out of memory");
    if (!rc) rc = parse_module(&p);
    if (!rc) rc = resolve_calls(&p);
    if (!rc) {
        for (int i = 0; i < p.m->nfuncs; i++) {
            struct ir_func *f = &p.m->funcs[i];
            f->bad_ins = -1;
            if (f->bad_reason >= 0) continue;
            for (int k = f->defined ? f->start : 0; f->defined && k < f->end; k++)
                if (p.m->ins[k].op == OP_UNSUPPORTED) { f->bad_ins = k; f->bad_line = p.m->ins[k].line; break; }
        }
        if (ir_finish(p.m) || ir_shared_sizes(p.m)) { snprintf(err, errlen, "out of memory"); rc = -1; }
    }
    free(p.t);
    free(p.syms);
    free(p.buckets);
    free(p.labels);
    free(p.fixes);
    free(p.cfixes);
    free(p.itab);
    if (rc) {
        if (!err[0]) snprintf(err, errlen, "malformed PTX");
        ptx_module_free(p.m);
        return NULL;
    }
    return p.m;
}
