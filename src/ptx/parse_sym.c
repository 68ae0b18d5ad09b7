/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's base, below its other files: errors, growing arrays,
 * the symbol table, the module's strings, types and state spaces, slots
 * and constants of the function being parsed, small expressions. */
#include "parse.h"

#include <stdarg.h>
#include <stdlib.h>

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

void ps_unsup(struct ps *p, int line, const char *fmt, ...)
{
    if (p->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (p->fn >= 0) {
        p->failed = 1;
        p->unsup = 1;
        p->unsup_line = line;
        vsnprintf(p->unsup_msg, sizeof p->unsup_msg, fmt, ap);
        int k = snprintf(p->err, p->errlen, "PTX line %d: ", line);
        if (k >= 0 && (size_t)k < p->errlen) snprintf(p->err + k, p->errlen - (size_t)k, "%s", p->unsup_msg);
    } else {
        p->failed = 1;
        int k = snprintf(p->err, p->errlen, "PTX line %d: ", line);
        if (k >= 0 && (size_t)k < p->errlen) vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
    }
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

/* ---- types and modifiers ----------------------------------------------- */
static const struct { const char *s; int t; } types[] = {
    { ".pred", T_PRED }, { ".b8", T_B8 }, { ".b16", T_B16 }, { ".b32", T_B32 }, { ".b64", T_B64 }, { ".b128", T_B128 },
    { ".u8", T_U8 }, { ".u16", T_U16 }, { ".u32", T_U32 }, { ".u64", T_U64 },
    { ".s8", T_S8 }, { ".s16", T_S16 }, { ".s32", T_S32 }, { ".s64", T_S64 },
    { ".f16", T_F16 }, { ".f16x2", T_F16X2 }, { ".bf16", T_BF16 }, { ".bf16x2", T_BF16X2 },
    { ".f32", T_F32 }, { ".f64", T_F64 }, { ".tf32", T_TF32 }, { ".e4m3", T_E4M3 }, { ".e5m2", T_E5M2 },
    { ".e4m3x2", T_E4M3X2 }, { ".e5m2x2", T_E5M2X2 },
    { ".s4", T_S4 }, { ".u4", T_U4 }, { ".b1", T_B1 },
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
    f->bad_reason = -1;
    f->bad_ins = -1;
    if (!(f->name = strndup(s, (size_t)n)))
        return -1;
    int saved = p->depth;
    p->depth = 0;
    sym_add(p, s, n, SY_FUNC, m->nfuncs, 0);
    p->depth = saved;
    f->builtin = ir_builtin_find(s, n);
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
