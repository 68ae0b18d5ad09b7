/* PTX text -> the internal form (ir.h). One pass over a token array; labels
 * and calls to functions defined later are fixed up at the end of each
 * function and of the module. An instruction the executor does not know
 * becomes OP_UNSUPPORTED with its name and line: the checker reports it
 * when a launch needs it, so one exotic kernel does not spoil a module. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ps_err(struct ps *p, int line, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    int k = snprintf(p->err, p->errlen, "PTX line %d: ", line);
    if (k < 0 || (size_t)k >= p->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
    va_end(ap);
}

int ps_grow(void **arr, int n, int *cap, size_t elt)
{
    if (n < *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 16;
    if (nc > (1 << 26))
        return -1;
    void *na = realloc(*arr, (size_t)nc * elt);
    if (!na)
        return -1;
    *arr = na;
    *cap = nc;
    return 0;
}

/* ---- symbols -------------------------------------------------------- */
static unsigned fnv(const char *s, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static unsigned hash(const char *s, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % SYM_BUCKETS;
}

struct sym *sym_find(struct ps *p, const char *s, int n)
{
    for (int i = p->buckets[hash(s, n)]; i >= 0; i = p->syms[i].next)
        if (p->syms[i].n == n && memcmp(p->syms[i].s, s, (size_t)n) == 0)
            return &p->syms[i];
    return NULL;
}

struct sym *sym_add(struct ps *p, const char *s, int n, int kind, int64_t val, int type)
{
    if (ps_grow((void **)&p->syms, p->nsyms, &p->capsyms, sizeof *p->syms)) {
        ps_err(p, cur(p)->line, "out of memory");
        return NULL;
    }
    unsigned h = hash(s, n);
    struct sym *y = &p->syms[p->nsyms];
    *y = (struct sym){ s, n, kind, val, type, p->depth, p->buckets[h], 0 };
    p->buckets[h] = p->nsyms++;
    return y;
}

/* drops the symbols of scopes deeper than depth (LIFO) */
void sym_pop(struct ps *p, int depth)
{
    while (p->nsyms > 0 && p->syms[p->nsyms - 1].depth > depth) {
        struct sym *y = &p->syms[p->nsyms - 1];
        p->buckets[hash(y->s, y->n)] = y->next;
        p->nsyms--;
    }
}

int add_string(struct ptx_module *m, const char *s, int n)
{
    size_t need = m->nstrings + (size_t)n + 1;
    if (need > m->capstrings) {
        size_t nc = m->capstrings ? m->capstrings * 2 : 1024;
        while (nc < need) nc *= 2;
        char *ns = realloc(m->strings, nc);
        if (!ns) return -1;
        m->strings = ns;
        m->capstrings = nc;
    }
    memcpy(m->strings + m->nstrings, s, (size_t)n);
    m->strings[m->nstrings + (size_t)n] = 0;
    int at = (int)m->nstrings;
    m->nstrings = need;
    return at;
}

int intern(struct ps *p, const char *s, int n)
{
    if (p->nused * 2 >= p->ncap) {
        int nc = p->ncap ? p->ncap * 2 : 1024;
        int *nt = calloc((size_t)nc, sizeof *nt);
        if (!nt) return -1;
        for (int i = 0; i < p->ncap; i++) {
            if (!p->itab[i]) continue;
            const char *q = p->m->strings + p->itab[i] - 1;
            unsigned h = fnv(q, (int)strlen(q));
            int k = (int)(h & (unsigned)(nc - 1));
            while (nt[k]) k = (k + 1) & (nc - 1);
            nt[k] = p->itab[i];
        }
        free(p->itab);
        p->itab = nt;
        p->ncap = nc;
    }
    unsigned h = fnv(s, n);
    int k = (int)(h & (unsigned)(p->ncap - 1));
    for (; p->itab[k]; k = (k + 1) & (p->ncap - 1)) {
        const char *q = p->m->strings + p->itab[k] - 1;
        if ((int)strlen(q) == n && memcmp(q, s, (size_t)n) == 0) return p->itab[k] - 1;
    }
    int at = add_string(p->m, s, n);
    if (at < 0) return -1;
    p->itab[k] = at + 1;
    p->nused++;
    return at;
}

const char *ir_file_name(const struct ptx_module *m, int num)
{
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].num == num) return m->strings + m->files[i].name;
    return NULL;
}

/* .file N "name" [, timestamp, size], at module scope */
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

/* ---- types and modifiers ----------------------------------------------- */
static const struct { const char *s; int t; } types[] = {
    { ".pred", T_PRED }, { ".b8", T_B8 }, { ".b16", T_B16 }, { ".b32", T_B32 }, { ".b64", T_B64 }, { ".b128", T_B128 },
    { ".u8", T_U8 }, { ".u16", T_U16 }, { ".u32", T_U32 }, { ".u64", T_U64 },
    { ".s8", T_S8 }, { ".s16", T_S16 }, { ".s32", T_S32 }, { ".s64", T_S64 },
    { ".f16", T_F16 }, { ".f16x2", T_F16X2 }, { ".bf16", T_BF16 }, { ".bf16x2", T_BF16X2 },
    { ".f32", T_F32 }, { ".f64", T_F64 },
};
int type_of(struct tok *t)
{
    if (t->kind != TK_DIR) return T_NONE;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (is(t, types[i].s)) return types[i].t;
    return T_NONE;
}

int space_of(struct tok *t)
{
    if (t->kind != TK_DIR) return SP_NONE;
    /* .shared::cta and friends */
    int n = t->n;
    for (int i = 1; i + 1 < t->n; i++)
        if (t->s[i] == ':' && t->s[i + 1] == ':') { n = i; break; }
    struct tok u = *t;
    u.n = n;
    if (is(&u, ".global")) return SP_GLOBAL;
    if (is(&u, ".shared")) return SP_SHARED;
    if (is(&u, ".local")) return SP_LOCAL;
    if (is(&u, ".const")) return SP_CONST;
    if (is(&u, ".param")) return SP_PARAM;
    return SP_NONE;
}

/* ---- the module ---------------------------------------------------------- */
int func_get(struct ps *p, const char *s, int n)
{
    struct sym *y = sym_find(p, s, n);
    if (y && y->kind == SY_FUNC)
        return (int)y->val;
    struct ptx_module *m = p->m;
    if (ps_grow((void **)&m->funcs, m->nfuncs, &m->capfuncs, sizeof *m->funcs))
        return -1;
    struct ir_func *f = &m->funcs[m->nfuncs];
    memset(f, 0, sizeof *f);
    if (!(f->name = strndup(s, (size_t)n)))
        return -1;
    int saved = p->depth;
    p->depth = 0;
    sym_add(p, s, n, SY_FUNC, m->nfuncs, 0);
    p->depth = saved;
    if (n == 7 && memcmp(s, "vprintf", 7) == 0) f->builtin = OP_VPRINTF;
    if (n == 12 && memcmp(s, "__assertfail", 12) == 0) f->builtin = OP_ASSERTFAIL;
    if (n == 23 && memcmp(s, "cudaGraphSetConditional", 23) == 0) f->builtin = OP_SETCOND;
    return m->nfuncs++;
}

int new_slot(struct ps *p)
{
    return p->m->funcs[p->fn].nslots++;
}

/* a constant slot of the current function, deduplicated */
int const_slot(struct ps *p, int kind, int64_t val)
{
    struct ptx_module *m = p->m;
    struct ir_func *f = &m->funcs[p->fn];
    for (int i = f->cstart; i < m->nconst; i++)
        if (m->consts[i].kind == kind && m->consts[i].val == val)
            return m->consts[i].slot;
    if (ps_grow((void **)&m->consts, m->nconst, &m->capconst, sizeof *m->consts)) {
        ps_err(p, cur(p)->line, "out of memory");
        return 0;
    }
    int s = new_slot(p);
    m->consts[m->nconst++] = (struct ir_const){ s, kind, val };
    return s;
}

unsigned align_up(unsigned v, unsigned a) { return a ? (v + a - 1) / a * a : v; }

/* array dimensions: [N][M] or [] ; returns element count (0 for []) */
uint64_t parse_dims(struct ps *p, int *unsized)
{
    uint64_t n = 1;
    *unsized = 0;
    while (accept(p, '[')) {
        if (isp(cur(p), ']')) { *unsized = 1; next(p); n = 0; continue; }
        if (cur(p)->kind != TK_INT) { ps_err(p, cur(p)->line, "bad array size"); return 0; }
        uint64_t k = cur(p)->iv;
        next(p);
        if (expect(p, ']')) return 0;
        if (k > (1ull << 32) || (n && k && n > (1ull << 34) / k)) { ps_err(p, cur(p)->line, "array too big"); return 0; }
        n *= k;
    }
    return n;
}

int64_t parse_intexpr(struct ps *p)
{
    int neg = 0;
    while (isp(cur(p), '-') || isp(cur(p), '+')) { if (isp(cur(p), '-')) neg = !neg; next(p); }
    if (cur(p)->kind != TK_INT) { ps_err(p, cur(p)->line, "expected a number near '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s); return 0; }
    int64_t v = (int64_t)cur(p)->iv;
    next(p);
    return neg ? -v : v;
}

/* writes one initializer element of type t at out */
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

/* = value or = { ... } (nested braces flattened) */
static int parse_init(struct ps *p, int t, unsigned char *buf, uint64_t size)
{
    unsigned es = ir_type_size(t);
    uint64_t at = 0;
    int depth = 0;
    do {
        if (accept(p, '{')) { depth++; continue; }
        if (accept(p, '}')) { depth--; if (depth > 0) accept(p, ','); continue; }
        int neg = 0;
        while (isp(cur(p), '-')) { neg = !neg; next(p); }
        struct tok *tk = cur(p);
        if (tk->kind == TK_INT || tk->kind == TK_FLT) {
            if (at + es <= size) put_elem(buf + at, t, tk, neg);
            at += es;
            next(p);
        } else {
            ps_err(p, tk->line, "unsupported initializer '%.*s'", tk->n > 40 ? 40 : tk->n, tk->s);
            return -1;
        }
        if (depth > 0 && !isp(cur(p), '}') && expect(p, ',')) return -1;
    } while (depth > 0 && !p->failed && cur(p)->kind != TK_EOF);
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
        if (is(k, ".ptr") || is(k, ".attribute") || is(k, ".managed")) {
            ps_err(p, k->line, "unsupported variable attribute '%.*s'", k->n, k->s);
            return -1;
        }
        int tt = type_of(k);
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
                if (unsized || size > (64u << 20)) { ps_err(p, nm->line, "initializer too big"); return -1; }
                unsigned char *buf = calloc(1, size ? size : 1);
                if (!buf) { ps_err(p, nm->line, "out of memory"); return -1; }
                g->init = buf;
                if (parse_init(p, t, buf, size)) return -1;
            }
            (void)is_extern;
            sym_add(p, nm->s, nm->n, SY_GLOBAL, m->nglobals - 1, 0);
        } else if (space == SP_SHARED) {
            if (unsized) { /* extern dynamic shared: after all static shared */
                sym_add(p, nm->s, nm->n, SY_SHARED, -1, 0);
            } else {
                if (size > (1u << 30)) { ps_err(p, nm->line, "shared variable too big"); return -1; }
                unsigned off = align_up(m->shared_bytes, align);
                m->shared_bytes = off + (unsigned)size;
                sym_add(p, nm->s, nm->n, SY_SHARED, off, 0);
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
/* the size of a parameter's element type (.u32 -> 4), 0 if t is none */
static unsigned param_type_size(struct tok *t)
{
    static const struct { const char *s; unsigned n; } extra[] = {
        { ".e4m3", 1 }, { ".e5m2", 1 }, { ".tf32", 4 }, { ".texref", 8 }, { ".samplerref", 8 }, { ".surfref", 8 },
    };
    int tt = type_of(t);
    if (tt != T_NONE && tt != T_PRED) return ir_type_size(tt);
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        if (is(t, extra[i].s)) return extra[i].n;
    return 0;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* the tokens [a, b) of one declaration */
static int param_decl(struct tok *t, int a, int b, struct ptx_param_layout *out)
{
    uint64_t elem = 0, vec = 1, count = 1, align = 0;
    int after_ptr = 0, have_dims = 0;
    struct tok *name = NULL;
    memset(out, 0, sizeof *out);
    if (a >= b || (!is(&t[a], ".param") && !is(&t[a], ".reg"))) return -1;
    for (int i = a + 1; i < b; i++) {
        unsigned sz;
        if (is(&t[i], ".ptr")) after_ptr = 1;
        else if (is(&t[i], ".align")) {
            if (i + 1 >= b || t[i + 1].kind != TK_INT || !is_pow2(t[i + 1].iv) || t[i + 1].iv > 4096) return -1;
            if (!after_ptr) align = t[i + 1].iv; /* after .ptr: the pointee's */
            i++;
        } else if ((sz = param_type_size(&t[i])) != 0) {
            if (name) return -1;
            elem = sz;
        } else if (is(&t[i], ".v2") || is(&t[i], ".v4") || is(&t[i], ".v8")) {
            vec = (uint64_t)(t[i].s[2] - '0');
        } else if (t[i].kind == TK_DIR) {
            if (name) return -1;   /* a state space, .volatile: nothing to the layout */
        } else if (t[i].kind == TK_ID) {
            if (name || !elem) return -1;
            name = &t[i];
        } else if (isp(&t[i], '[') && name) {
            if (i + 2 >= b || t[i + 1].kind != TK_INT || !isp(&t[i + 2], ']') || !t[i + 1].iv || t[i + 1].iv > 65536)
                return -1;
            count *= t[i + 1].iv;
            if (count > 65536) return -1;
            have_dims = 1;
            i += 2;
        } else
            return -1;
    }
    (void)have_dims;
    if (!name || !elem) return -1;
    uint64_t size = elem * vec * count;
    if (size > 65536) return -1;
    out->size = (unsigned)size;
    out->align = (unsigned)(align ? align : elem * vec);
    out->name = name->s;
    out->namelen = (size_t)name->n;
    return 0;
}

int ptx_param_decl(const char *text, size_t len, struct ptx_param_layout *out)
{
    struct ps p;
    memset(&p, 0, sizeof p);
    if (!text || !out || ps_lex(&p, text, strnlen(text, len))) { free(p.t); return -1; }
    int r = param_decl(p.t, 0, p.nt - 1, out);
    free(p.t);
    return r;
}

unsigned ptx_param_place(unsigned *end, const struct ptx_param_layout *p)
{
    unsigned off = align_up(*end, p->align);
    *end = off + p->size;
    return off;
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
        if (is(&p->t[a], ".reg")) { ps_err(p, p->t[a].line, "unsupported .reg parameter"); return -1; }
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

/* ---- instructions ----------------------------------------------------------- */
/* ---- functions ----------------------------------------------------------- */
static int resolve_labels(struct ps *p)
{
    for (int i = 0; i < p->nfix; i++) {
        struct fix *x = &p->fixes[i];
        int at = -1;
        for (int j = 0; j < p->nlabels; j++)
            if (p->labels[j].n == x->n && memcmp(p->labels[j].s, x->s, (size_t)x->n) == 0) { at = p->labels[j].at; break; }
        if (at < 0) { ps_err(p, x->line, "unknown label '%.*s'", x->n > 60 ? 60 : x->n, x->s); return -1; }
        p->m->ins[x->ins].imm = at;
    }
    p->nfix = 0;
    p->nlabels = 0;
    return 0;
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
            if (is(t, ".reg")) { next(p); if (parse_reg(p)) return -1; continue; }
            if (sp == SP_LOCAL || sp == SP_SHARED || sp == SP_PARAM) {
                next(p);
                if (parse_var(p, sp, 0, 1)) return -1;
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
            ps_err(p, t->line, "unsupported directive '%.*s' in a function", t->n > 40 ? 40 : t->n, t->s);
            return -1;
        }
        if (t->kind == TK_ID && isp(&p->t[p->i + 1], ':')) { /* label */
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
        if (parse_ins(p, guard, gneg)) return -1;
        f = &m->funcs[p->fn];
    }
    if (p->failed) return -1;
    f = &m->funcs[p->fn];
    /* a function that runs off its end returns */
    struct ir_ins *in = new_ins(p, cur(p)->line);
    if (!in) return -1;
    in->op = f->is_entry ? OP_EXIT : OP_RET;
    f->end = m->nins;
    f->cend = m->nconst;
    f->defined = 1;
    return resolve_labels(p);
}

/* skips perf directives up to the body or ';' */
static void skip_directives(struct ps *p)
{
    while (cur(p)->kind != TK_EOF && !isp(cur(p), '{') && !isp(cur(p), ';')) {
        if (cur(p)->kind == TK_DIR && (is(cur(p), ".noreturn") || is(cur(p), ".maxntid") || is(cur(p), ".reqntid") ||
                                       is(cur(p), ".minnctapersm") || is(cur(p), ".maxnctapersm") || is(cur(p), ".maxnreg") ||
                                       is(cur(p), ".explicitcluster") || is(cur(p), ".reqnctapercluster") ||
                                       is(cur(p), ".maxclusterrank") || is(cur(p), ".pragma"))) {
            next(p);
            continue;
        }
        if (cur(p)->kind == TK_INT || isp(cur(p), ',') || cur(p)->kind == TK_STR) { next(p); continue; }
        ps_err(p, cur(p)->line, "unexpected '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s);
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
    int after = p->i;
    if (has_ret) {
        p->i = retstart;
        if (parse_params(p, 0, 1)) return -1;
        p->i = after;
    }
    if (isp(cur(p), '(') && parse_params(p, entry, 0)) return -1;
    skip_directives(p);
    if (p->failed) return -1;
    f = &p->m->funcs[fi];
    if (accept(p, ';')) { /* a declaration */
        sym_pop(p, 0);
        p->depth = depth0;
        return 0;
    }
    if (isp(cur(p), '{')) {
        int r = parse_body(p);
        sym_pop(p, 0);
        p->depth = depth0;
        return r;
    }
    ps_err(p, cur(p)->line, "expected a function body");
    return -1;
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
    while (!p->failed && cur(p)->kind != TK_EOF) {
        struct tok *t = cur(p);
        if (t->kind != TK_DIR) {
            ps_err(p, t->line, "unexpected '%.*s'", t->n > 40 ? 40 : t->n, t->s);
            return -1;
        }
        if (is(t, ".version") || is(t, ".address_size")) {
            next(p);
            next(p);
            continue;
        }
        if (is(t, ".target")) {
            next(p);
            while (cur(p)->kind == TK_ID) { next(p); if (!accept(p, ',')) break; }
            continue;
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
        struct ir_func *g = &m->funcs[c->callee];
        if (g->builtin) {
            if ((g->builtin == OP_VPRINTF && (cf->nargs != 2)) || (g->builtin == OP_ASSERTFAIL && cf->nargs < 4) ||
                (g->builtin == OP_SETCOND && (cf->nargs != 2 || cf->nrets != 0))) {
                ps_err(p, cf->line, "bad call of %s", g->name);
                return -1;
            }
        } else if (cf->nargs != g->nparams || cf->nrets > g->nrets) {
            ps_err(p, cf->line, "call of %s: %d arguments for %d parameters", g->name, cf->nargs, g->nparams);
            return -1;
        }
        c->nargs = cf->nargs;
        c->nrets = cf->nrets;
        c->args = calloc((size_t)cf->nargs + 1, sizeof *c->args);
        c->rets = calloc((size_t)cf->nrets + 1, sizeof *c->rets);
        if (!c->args || !c->rets) { ps_err(p, cf->line, "out of memory"); return -1; }
        for (int k = 0; k < cf->nargs; k++) {
            unsigned size = g->builtin ? 8 : g->params[k].size;
            if ((g->builtin == OP_ASSERTFAIL && k == 2) || (g->builtin == OP_SETCOND && k == 1)) size = 4;
            c->args[k] = (struct ir_copy){ (uint32_t)cf->argoff[k], g->builtin ? (uint32_t)(k * 8) : g->params[k].offset, size };
        }
        for (int k = 0; k < cf->nrets; k++)
            c->rets[k] = (struct ir_copy){ g->builtin ? 0 : g->rets[k].offset, (uint32_t)cf->retoff[k], g->builtin ? 4 : g->rets[k].size };
    }
    return 0;
}

void ptx_module_free(struct ptx_module *m)
{
    if (!m) return;
    for (int i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].params);
        free(m->funcs[i].rets);
    }
    for (int i = 0; i < m->ncalls; i++) {
        free(m->calls[i].args);
        free(m->calls[i].rets);
    }
    for (int i = 0; i < m->nglobals; i++) {
        free((void *)m->globals[i].name);
        free((void *)m->globals[i].init);
    }
    free(m->funcs);
    free(m->ins);
    free(m->consts);
    free(m->calls);
    free(m->globals);
    free(m->strings);
    free(m->files);
    free(m);
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
    int rc = ps_lex(&p, text, len);
    if (rc) snprintf(err, errlen, "out of memory");
    if (!rc) rc = parse_module(&p);
    if (!rc) rc = resolve_calls(&p);
    if (!rc) {
        for (int i = 0; i < p.m->nfuncs; i++) {
            struct ir_func *f = &p.m->funcs[i];
            f->bad_ins = -1;
            for (int k = f->defined ? f->start : 0; f->defined && k < f->end; k++)
                if (p.m->ins[k].op == OP_UNSUPPORTED) { f->bad_ins = k; f->bad_line = p.m->ins[k].line; break; }
        }
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

/* ---- queries ------------------------------------------------------------------ */
int ptx_global_count(const struct ptx_module *m) { return m->nglobals; }
const struct ptx_global_info *ptx_global(const struct ptx_module *m, int i)
{
    return i >= 0 && i < m->nglobals ? &m->globals[i] : NULL;
}
int ptx_entry_find(const struct ptx_module *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].defined && strcmp(m->funcs[i].name, name) == 0)
            return i;
    return -1;
}
unsigned ptx_entry_param_bytes(const struct ptx_module *m, int entry) { return m->funcs[entry].param_bytes; }
unsigned ptx_entry_shared_bytes(const struct ptx_module *m, int entry) { (void)entry; return m->shared_bytes; }
int ptx_entry_params(const struct ptx_module *m, int entry, unsigned *off, unsigned *size, int max)
{
    const struct ir_func *f = &m->funcs[entry];
    for (int i = 0; i < f->nparams && i < max; i++) {
        off[i] = f->params[i].offset;
        size[i] = f->params[i].size;
    }
    return f->nparams;
}
