/* PTX text -> the internal form (ir.h). One pass over a token array; labels
 * and calls to functions defined later are fixed up at the end of each
 * function and of the module. An instruction the executor does not know
 * becomes OP_UNSUPPORTED with its name and line: the checker reports it
 * when a launch needs it, so one exotic kernel does not spoil a module. */
#include "ir.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lexer --------------------------------------------------------- */
enum { TK_EOF, TK_ID, TK_DIR, TK_INT, TK_FLT, TK_STR, TK_P };
struct tok {
    int kind;
    int line;
    const char *s;
    int n;
    uint64_t iv;      /* TK_INT value; TK_FLT: bits */
    int fbits;        /* TK_FLT: 32 (0f), 64 (0d or decimal) */
};

struct ps {
    struct ptx_module *m;
    struct tok *t;
    int nt, capt, i;
    char *err;
    size_t errlen;
    int failed;
    /* symbols */
    struct sym *syms;
    int nsyms, capsyms;
    int *buckets;     /* SYM_BUCKETS heads */
    int depth;
    /* the function being parsed */
    int fn;
    int nlabels, caplabels;
    struct label { const char *s; int n; int at; } *labels;
    int nfix, capfix;
    struct fix { int ins; const char *s; int n; int line; } *fixes;
    int ncfix, capcfix;
    struct cfix { int call; int caller; int nargs, nrets; int argoff[32], argsz[32], retoff[8], retsz[8]; int line; } *cfixes;
};

#define SYM_BUCKETS 4096
enum { SY_REG = 1, SY_REGRANGE, SY_GLOBAL, SY_SHARED, SY_LOCAL, SY_KPARAM, SY_FPARAM, SY_FUNC, SY_CONST };
struct sym {
    const char *s;
    int n;
    int kind;
    int64_t val;      /* slot / global index / offset / function / const key */
    int type;         /* SY_REG: its type; params: size */
    int depth;
    int next;
    int count;        /* SY_REGRANGE: registers */
};

static void perr(struct ps *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void perr(struct ps *p, int line, const char *fmt, ...)
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

static int grow(void **arr, int n, int *cap, size_t elt)
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

static int idstart(int c) { return isalpha(c) || c == '_' || c == '$' || c == '%'; }
static int idchar(int c) { return isalnum(c) || c == '_' || c == '$'; }

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int lex(struct ps *p, const char *s, size_t len)
{
    const char *e = s + len;
    int line = 1;
    while (s < e) {
        int c = (unsigned char)*s;
        if (c == '\n') { line++; s++; continue; }
        if (isspace(c)) { s++; continue; }
        if (c == '/' && s + 1 < e && s[1] == '/') {
            while (s < e && *s != '\n') s++;
            continue;
        }
        if (c == '/' && s + 1 < e && s[1] == '*') {
            s += 2;
            while (s + 1 < e && !(s[0] == '*' && s[1] == '/')) { if (*s == '\n') line++; s++; }
            s = s + 1 < e ? s + 2 : e;
            continue;
        }
        if (grow((void **)&p->t, p->nt, &p->capt, sizeof *p->t))
            return -1;
        struct tok *t = &p->t[p->nt++];
        memset(t, 0, sizeof *t);
        t->line = line;
        t->s = s;
        if (c == '.' && s + 1 < e && (idstart((unsigned char)s[1]))) {
            t->kind = TK_DIR;
            s++;
            while (s < e && (idchar((unsigned char)*s) || (*s == ':' && s + 1 < e && s[1] == ':'))) s += *s == ':' ? 2 : 1;
        } else if (idstart(c)) {
            t->kind = TK_ID;
            s++;
            while (s < e && idchar((unsigned char)*s)) s++;
        } else if (isdigit(c) || (c == '.' && s + 1 < e && isdigit((unsigned char)s[1]))) {
            if (c == '0' && s + 1 < e && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
                int nd = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
                uint64_t v = 0;
                int k = 0;
                s += 2;
                while (s < e && k < nd && hexval((unsigned char)*s) >= 0) { v = v << 4 | (uint64_t)hexval((unsigned char)*s); s++; k++; }
                t->kind = TK_FLT; t->iv = v; t->fbits = nd == 8 ? 32 : 64;
            } else if (c == '0' && s + 1 < e && (s[1] == 'x' || s[1] == 'X')) {
                uint64_t v = 0;
                s += 2;
                while (s < e && hexval((unsigned char)*s) >= 0) { v = v << 4 | (uint64_t)hexval((unsigned char)*s); s++; }
                if (s < e && (*s == 'U' || *s == 'u')) s++;
                t->kind = TK_INT; t->iv = v;
            } else {
                const char *q = s;
                int isf = 0;
                while (q < e && isdigit((unsigned char)*q)) q++;
                if (q < e && (*q == '.' || *q == 'e' || *q == 'E')) isf = 1;
                char buf[64];
                if (isf) {
                    q = s;
                    while (q < e && (isdigit((unsigned char)*q) || *q == '.' || *q == 'e' || *q == 'E' ||
                                     ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E'))) && q - s < 63) q++;
                    size_t n = (size_t)(q - s);
                    memcpy(buf, s, n); buf[n] = 0;
                    double d = strtod(buf, NULL);
                    memcpy(&t->iv, &d, 8);
                    t->kind = TK_FLT; t->fbits = 64;
                    s = q;
                } else {
                    uint64_t v = 0;
                    int octal = *s == '0' && q - s > 1;
                    for (const char *r = s; r < q; r++) v = octal ? v * 8 + (uint64_t)(*r - '0') : v * 10 + (uint64_t)(*r - '0');
                    s = q;
                    if (s < e && (*s == 'U' || *s == 'u')) s++;
                    t->kind = TK_INT; t->iv = v;
                }
            }
        } else if (c == '"') {
            t->kind = TK_STR;
            s++;
            while (s < e && *s != '"' && *s != '\n') { if (*s == '\\' && s + 1 < e) s++; s++; }
            if (s < e && *s == '"') s++;
        } else {
            t->kind = TK_P;
            s++;
        }
        t->n = (int)(s - t->s);
    }
    if (grow((void **)&p->t, p->nt, &p->capt, sizeof *p->t))
        return -1;
    struct tok *t = &p->t[p->nt++];
    memset(t, 0, sizeof *t);
    t->kind = TK_EOF;
    t->line = line;
    t->s = e;
    return 0;
}

/* ---- token helpers -------------------------------------------------- */
static struct tok *cur(struct ps *p) { return &p->t[p->i]; }
static int is(struct tok *t, const char *w) { return (int)strlen(w) == t->n && memcmp(t->s, w, (size_t)t->n) == 0; }
static int isp(struct tok *t, char c) { return t->kind == TK_P && t->s[0] == c; }
static int accept(struct ps *p, char c)
{
    if (isp(cur(p), c)) { p->i++; return 1; }
    return 0;
}
static int expect(struct ps *p, char c)
{
    if (accept(p, c)) return 0;
    perr(p, cur(p)->line, "expected '%c' near '%.*s'", c, cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s);
    return -1;
}
static void next(struct ps *p) { if (cur(p)->kind != TK_EOF) p->i++; }

/* ---- symbols -------------------------------------------------------- */
static unsigned hash(const char *s, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % SYM_BUCKETS;
}

static struct sym *sym_find(struct ps *p, const char *s, int n)
{
    for (int i = p->buckets[hash(s, n)]; i >= 0; i = p->syms[i].next)
        if (p->syms[i].n == n && memcmp(p->syms[i].s, s, (size_t)n) == 0)
            return &p->syms[i];
    return NULL;
}

static struct sym *sym_add(struct ps *p, const char *s, int n, int kind, int64_t val, int type)
{
    if (grow((void **)&p->syms, p->nsyms, &p->capsyms, sizeof *p->syms)) {
        perr(p, cur(p)->line, "out of memory");
        return NULL;
    }
    unsigned h = hash(s, n);
    struct sym *y = &p->syms[p->nsyms];
    *y = (struct sym){ s, n, kind, val, type, p->depth, p->buckets[h], 0 };
    p->buckets[h] = p->nsyms++;
    return y;
}

/* drops the symbols of scopes deeper than depth (LIFO) */
static void sym_pop(struct ps *p, int depth)
{
    while (p->nsyms > 0 && p->syms[p->nsyms - 1].depth > depth) {
        struct sym *y = &p->syms[p->nsyms - 1];
        p->buckets[hash(y->s, y->n)] = y->next;
        p->nsyms--;
    }
}

static int add_string(struct ptx_module *m, const char *s, int n)
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

/* ---- types and modifiers ----------------------------------------------- */
static const struct { const char *s; int t; } types[] = {
    { ".pred", T_PRED }, { ".b8", T_B8 }, { ".b16", T_B16 }, { ".b32", T_B32 }, { ".b64", T_B64 }, { ".b128", T_B128 },
    { ".u8", T_U8 }, { ".u16", T_U16 }, { ".u32", T_U32 }, { ".u64", T_U64 },
    { ".s8", T_S8 }, { ".s16", T_S16 }, { ".s32", T_S32 }, { ".s64", T_S64 },
    { ".f16", T_F16 }, { ".f16x2", T_F16X2 }, { ".bf16", T_BF16 }, { ".bf16x2", T_BF16X2 },
    { ".f32", T_F32 }, { ".f64", T_F64 },
};
static int type_of(struct tok *t)
{
    if (t->kind != TK_DIR) return T_NONE;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (is(t, types[i].s)) return types[i].t;
    return T_NONE;
}

static int space_of(struct tok *t)
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
static int func_get(struct ps *p, const char *s, int n)
{
    struct sym *y = sym_find(p, s, n);
    if (y && y->kind == SY_FUNC)
        return (int)y->val;
    struct ptx_module *m = p->m;
    if (grow((void **)&m->funcs, m->nfuncs, &m->capfuncs, sizeof *m->funcs))
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
    return m->nfuncs++;
}

static int new_slot(struct ps *p)
{
    return p->m->funcs[p->fn].nslots++;
}

/* a constant slot of the current function, deduplicated */
static int const_slot(struct ps *p, int kind, int64_t val)
{
    struct ptx_module *m = p->m;
    struct ir_func *f = &m->funcs[p->fn];
    for (int i = f->cstart; i < m->nconst; i++)
        if (m->consts[i].kind == kind && m->consts[i].val == val)
            return m->consts[i].slot;
    if (grow((void **)&m->consts, m->nconst, &m->capconst, sizeof *m->consts)) {
        perr(p, cur(p)->line, "out of memory");
        return 0;
    }
    int s = new_slot(p);
    m->consts[m->nconst++] = (struct ir_const){ s, kind, val };
    return s;
}

static unsigned align_up(unsigned v, unsigned a) { return a ? (v + a - 1) / a * a : v; }

/* array dimensions: [N][M] or [] ; returns element count (0 for []) */
static uint64_t parse_dims(struct ps *p, int *unsized)
{
    uint64_t n = 1;
    *unsized = 0;
    while (accept(p, '[')) {
        if (isp(cur(p), ']')) { *unsized = 1; next(p); n = 0; continue; }
        if (cur(p)->kind != TK_INT) { perr(p, cur(p)->line, "bad array size"); return 0; }
        uint64_t k = cur(p)->iv;
        next(p);
        if (expect(p, ']')) return 0;
        if (k > (1ull << 32) || (n && k && n > (1ull << 34) / k)) { perr(p, cur(p)->line, "array too big"); return 0; }
        n *= k;
    }
    return n;
}

static int64_t parse_intexpr(struct ps *p)
{
    int neg = 0;
    while (isp(cur(p), '-') || isp(cur(p), '+')) { if (isp(cur(p), '-')) neg = !neg; next(p); }
    if (cur(p)->kind != TK_INT) { perr(p, cur(p)->line, "expected a number near '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s); return 0; }
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
            perr(p, tk->line, "unsupported initializer '%.*s'", tk->n > 40 ? 40 : tk->n, tk->s);
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
            perr(p, k->line, "unsupported variable attribute '%.*s'", k->n, k->s);
            return -1;
        }
        int tt = type_of(k);
        if (tt == T_NONE) break;
        t = tt;
        next(p);
    }
    if (t == T_NONE) { perr(p, cur(p)->line, "variable without a type"); return -1; }
    unsigned es = ir_type_size(t) * (unsigned)vec;
    if (!align) align = es;
    for (;;) {
        struct tok *nm = cur(p);
        if (nm->kind != TK_ID) { perr(p, nm->line, "expected a variable name"); return -1; }
        next(p);
        int unsized;
        uint64_t n = parse_dims(p, &unsized);
        if (p->failed) return -1;
        uint64_t size = n * es;
        struct ptx_module *m = p->m;
        if (space == SP_GLOBAL || space == SP_CONST) {
            if (grow((void **)&m->globals, m->nglobals, &m->capglobals, sizeof *m->globals)) { perr(p, nm->line, "out of memory"); return -1; }
            struct ptx_global_info *g = &m->globals[m->nglobals];
            memset(g, 0, sizeof *g);
            g->name = strndup(nm->s, (size_t)nm->n);
            g->is_const = space == SP_CONST;
            g->align = align;
            g->size = size;
            m->nglobals++;
            if (!g->name) { perr(p, nm->line, "out of memory"); return -1; }
            if (accept(p, '=')) {
                if (unsized || size > (64u << 20)) { perr(p, nm->line, "initializer too big"); return -1; }
                unsigned char *buf = calloc(1, size ? size : 1);
                if (!buf) { perr(p, nm->line, "out of memory"); return -1; }
                g->init = buf;
                if (parse_init(p, t, buf, size)) return -1;
            }
            (void)is_extern;
            sym_add(p, nm->s, nm->n, SY_GLOBAL, m->nglobals - 1, 0);
        } else if (space == SP_SHARED) {
            if (unsized) { /* extern dynamic shared: after all static shared */
                sym_add(p, nm->s, nm->n, SY_SHARED, -1, 0);
            } else {
                if (size > (1u << 30)) { perr(p, nm->line, "shared variable too big"); return -1; }
                unsigned off = align_up(m->shared_bytes, align);
                m->shared_bytes = off + (unsigned)size;
                sym_add(p, nm->s, nm->n, SY_SHARED, off, 0);
            }
            if (isp(cur(p), '=')) { perr(p, nm->line, "initialised shared variable"); return -1; }
        } else if (space == SP_LOCAL && in_func) {
            struct ir_func *f = &m->funcs[p->fn];
            if (size > (1u << 24)) { perr(p, nm->line, "local variable too big"); return -1; }
            unsigned off = align_up(f->local_bytes, align);
            f->local_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_LOCAL, off, 0);
            if (isp(cur(p), '=')) { perr(p, nm->line, "initialised local variable"); return -1; }
        } else if (space == SP_PARAM && in_func) { /* call parameter */
            struct ir_func *f = &m->funcs[p->fn];
            if (size > (1u << 20)) { perr(p, nm->line, "param too big"); return -1; }
            unsigned off = align_up(f->fparam_bytes, align < 8 ? 8 : align);
            f->fparam_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_FPARAM, off, (int)size);
        } else {
            perr(p, nm->line, "unsupported variable space");
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
    if (expect(p, '(')) return -1;
    while (!isp(cur(p), ')') && !p->failed && cur(p)->kind != TK_EOF) {
        if (!is(cur(p), ".param") && !is(cur(p), ".reg")) { perr(p, cur(p)->line, "expected .param"); return -1; }
        int isreg = is(cur(p), ".reg");
        next(p);
        unsigned align = 0;
        int t = T_NONE;
        while (cur(p)->kind == TK_DIR) {
            if (is(cur(p), ".align")) { next(p); align = (unsigned)parse_intexpr(p); continue; }
            int tt = type_of(cur(p));
            if (tt != T_NONE) t = tt;
            next(p); /* .ptr, .global, ... */
        }
        if (t == T_NONE || cur(p)->kind != TK_ID) { perr(p, cur(p)->line, "bad parameter"); return -1; }
        struct tok *nm = cur(p);
        next(p);
        int unsized;
        uint64_t n = parse_dims(p, &unsized);
        unsigned es = ir_type_size(t);
        uint64_t size = n * es;
        if (!align) align = es;
        if (size > 65536) { perr(p, nm->line, "parameter too big"); return -1; }
        f = &p->m->funcs[p->fn];
        if (isreg) { perr(p, nm->line, "unsupported .reg parameter"); return -1; }
        struct ir_param **arr = ret ? &f->rets : &f->params;
        int *cnt = ret ? &f->nrets : &f->nparams;
        struct ir_param *np = realloc(*arr, (size_t)(*cnt + 1) * sizeof **arr);
        if (!np) { perr(p, nm->line, "out of memory"); return -1; }
        *arr = np;
        unsigned off;
        if (entry) {
            off = align_up(f->param_bytes, align);
            f->param_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_KPARAM, off, (int)size);
        } else {
            off = align_up(f->fparam_bytes, align < 8 ? 8 : align);
            f->fparam_bytes = off + (unsigned)size;
            sym_add(p, nm->s, nm->n, SY_FPARAM, off, (int)size);
        }
        np[*cnt] = (struct ir_param){ off, (unsigned)size, align };
        (*cnt)++;
        if (!accept(p, ',')) break;
    }
    return expect(p, ')');
}

/* ---- instructions ----------------------------------------------------------- */
enum { O_NONE, O_REG, O_IMM, O_SYM, O_ADDR, O_VEC, O_NAME, O_SINK };
struct opnd {
    int kind;
    int neg;             /* !%p */
    int slot, slot2;     /* O_REG; slot2: the |%p pair */
    int rtype;           /* O_REG: register type */
    struct tok *imm;     /* O_IMM */
    int ineg;
    int symkind; int64_t symval; /* O_SYM / O_ADDR base symbol */
    int64_t off;         /* O_ADDR offset */
    int nvec; int vslot[4]; struct opnd *vimm[4];
    struct tok *name;    /* O_NAME (label or function) */
    int line;
};

static const struct { const char *s; int v; } sregs[] = {
    { "%tid", S_TID_X }, { "%ntid", S_NTID_X }, { "%ctaid", S_CTAID_X }, { "%nctaid", S_NCTAID_X },
    { "%laneid", S_LANEID }, { "%warpid", S_WARPID }, { "%nwarpid", S_NWARPID }, { "%smid", S_SMID },
    { "%nsmid", S_NSMID }, { "%gridid", S_GRIDID }, { "%lanemask_eq", S_LANEMASK_EQ },
    { "%lanemask_le", S_LANEMASK_LE }, { "%lanemask_lt", S_LANEMASK_LT }, { "%lanemask_ge", S_LANEMASK_GE },
    { "%lanemask_gt", S_LANEMASK_GT }, { "%dynamic_smem_size", S_DYN_SMEM }, { "%total_smem_size", S_TOTAL_SMEM },
};

static int parse_reg_or_sym(struct ps *p, struct opnd *o)
{
    struct tok *t = cur(p);
    o->line = t->line;
    if (is(t, "_")) { next(p); o->kind = O_SINK; return 0; }
    if (t->s[0] == '%') {
        for (size_t i = 0; i < sizeof sregs / sizeof *sregs; i++) {
            if (!is(t, sregs[i].s)) continue;
            next(p);
            int v = sregs[i].v;
            if (v == S_TID_X || v == S_NTID_X || v == S_CTAID_X || v == S_NCTAID_X) {
                struct tok *c = cur(p);
                if (is(c, ".x")) {} else if (is(c, ".y")) v += 1; else if (is(c, ".z")) v += 2;
                else { perr(p, c->line, "bad special register component"); return -1; }
                next(p);
            }
            o->kind = O_REG;
            o->slot = const_slot(p, K_SREG, v);
            o->rtype = T_U32;
            return 0;
        }
        if (is(t, "%clock") || is(t, "%clock64") || is(t, "%globaltimer")) {
            o->kind = O_SYM; /* resolved by mov */
            o->symkind = -1;
            o->symval = is(t, "%clock") ? SR_CLOCK : is(t, "%clock64") ? SR_CLOCK64 : SR_GLOBALTIMER;
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
        o->kind = O_NAME; o->name = t;
        return 0;
    }
    switch (y->kind) {
    case SY_REG: o->kind = O_REG; o->slot = (int)y->val; o->rtype = y->type; break;
    case SY_FUNC: o->kind = O_NAME; o->name = t; break;
    default: o->kind = O_SYM; o->symkind = y->kind; o->symval = y->val; break;
    }
    return 0;
}

static int parse_operand(struct ps *p, struct opnd *o)
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
            else { perr(p, t->line, "bad address"); return -1; }
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
            if (o->nvec == 4) { perr(p, t->line, "vector too long"); return -1; }
            struct opnd *e = calloc(1, sizeof *e);
            if (!e) { perr(p, t->line, "out of memory"); return -1; }
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
        if (t->kind != TK_INT && t->kind != TK_FLT) { perr(p, t->line, "bad immediate"); return -1; }
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
    perr(p, t->line, "bad operand '%.*s'", t->n > 40 ? 40 : t->n, t->s);
    return -1;
}

static void opnd_free(struct opnd *o)
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
    int64_t v = neg ? -(int64_t)tk->iv : (int64_t)tk->iv;
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
static int src(struct ps *p, struct opnd *o, int t)
{
    switch (o->kind) {
    case O_REG: return o->slot;
    case O_IMM: return const_slot(p, K_IMM, imm_bits(o->imm, o->ineg, t));
    case O_SYM: {
        int k = sym_const_kind(o->symkind);
        if (k < 0) break;
        if (k == K_SHARED && o->symval < 0) /* dynamic shared: encoded as -1 - off */
            return const_slot(p, K_SHARED, -1 - o->off);
        int64_t key = k == K_GLOBAL ? (o->symval | (o->off << 24)) : o->symval + o->off;
        if (k == K_GLOBAL && (o->off < 0 || o->off >= (1ll << 38))) break;
        return const_slot(p, k, key);
    }
    default: break;
    }
    perr(p, o->line, "bad source operand");
    return 0;
}

static int dst(struct ps *p, struct opnd *o)
{
    if (o->kind == O_SINK) return -1;
    if (o->kind != O_REG) { perr(p, o->line, "destination is not a register"); return -1; }
    if (o->slot >= p->m->funcs[p->fn].nslots) { perr(p, o->line, "bad destination"); return -1; }
    return o->slot;
}

static struct ir_ins *new_ins(struct ps *p, int line)
{
    struct ptx_module *m = p->m;
    if (grow((void **)&m->ins, m->nins, &m->capins, sizeof *m->ins)) { perr(p, line, "out of memory"); return NULL; }
    struct ir_ins *in = &m->ins[m->nins++];
    memset(in, 0, sizeof *in);
    in->guard = in->d = in->d2 = in->a = in->b = in->c = in->e = -1;
    in->vr[0] = in->vr[1] = in->vr[2] = in->vr[3] = -1;
    in->line = line;
    in->fn = p->fn;
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
    { "atom", OP_ATOM }, { "red", OP_RED }, { "bra", OP_BRA }, { "call", OP_CALL }, { "ret", OP_RET },
    { "exit", OP_EXIT }, { "trap", OP_TRAP }, { "bar", OP_BAR }, { "barrier", OP_BAR },
    { "shfl", OP_SHFL }, { "vote", OP_VOTE }, { "activemask", OP_ACTIVEMASK }, { "membar", OP_MEMBAR },
    { "fence", OP_MEMBAR }, { "prefetch", OP_NOP }, { "prefetchu", OP_NOP }, { "pmevent", OP_NOP },
    { "nanosleep", OP_NOP }, { "brkpt", OP_TRAP }, { "discard", OP_NOP }, { "applypriority", OP_NOP },
    { "createpolicy", OP_UNSUPPORTED },
};

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

static void mark_unsupported(struct ps *p, struct ir_ins *in, const char *s, int n)
{
    in->op = OP_UNSUPPORTED;
    int at = add_string(p->m, s, n);
    in->name = at < 0 ? -1 : at;
}

/* parses one instruction; the guard was consumed */
static int parse_ins(struct ps *p, int guard, int gneg)
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
    int types_n = 0, tys[3] = { 0, 0, 0 };
    int unknown_mod = 0;
    struct tok *bad = NULL;
    int cvta_to = 0;
    int barspec = 0;
    while (cur(p)->kind == TK_DIR) {
        struct tok *k = cur(p);
        next(p);
        int t = type_of(k), sp = space_of(k);
        int done = 0;
        if (t != T_NONE) { if (types_n < 3) tys[types_n++] = t; continue; }
        if (sp != SP_NONE) {
            in->space = (uint8_t)sp;
            if (sp == SP_SHARED && k->n > 7 && !(k->n == 12 && memcmp(k->s, ".shared::cta", 12) == 0)) {
                unknown_mod = 1; bad = k;
            }
            continue;
        }
        if (is(k, ".v2")) { in->vec = 2; continue; }
        if (is(k, ".v4")) { in->vec = 4; continue; }
        if (is(k, ".to")) { cvta_to = 1; continue; }
        if (is(k, ".sat")) { in->flags |= F_SAT; continue; }
        if (is(k, ".ftz")) { in->flags |= F_FTZ; continue; }
        if (is(k, ".approx")) { in->flags |= F_APPROX; continue; }
        if (is(k, ".relu")) { in->flags |= F_RELU; continue; }
        if (is(k, ".cc")) { in->flags |= F_CC; unknown_mod = 1; bad = k; continue; }
        if (op == OP_SETP || op == OP_SET) {
            for (size_t i = 0; i < sizeof cmps / sizeof *cmps && !done; i++)
                if (is(k, cmps[i].s)) { in->sub = (uint8_t)cmps[i].v; done = 1; }
            if (!done && is(k, ".and")) { in->sub2 = BOOL_AND; done = 1; }
            if (!done && is(k, ".or")) { in->sub2 = BOOL_OR; done = 1; }
            if (!done && is(k, ".xor")) { in->sub2 = BOOL_XOR; done = 1; }
        } else if (op == OP_SLCT && !done) {
            /* types only */
        } else if (op == OP_ATOM || op == OP_RED) {
            for (size_t i = 0; i < sizeof atops / sizeof *atops && !done; i++)
                if (is(k, atops[i].s)) { in->sub = (uint8_t)atops[i].v; done = 1; }
        } else if (op == OP_SHFL) {
            if (is(k, ".up")) { in->sub = SH_UP; done = 1; }
            else if (is(k, ".down")) { in->sub = SH_DOWN; done = 1; }
            else if (is(k, ".bfly")) { in->sub = SH_BFLY; done = 1; }
            else if (is(k, ".idx")) { in->sub = SH_IDX; done = 1; }
        } else if (op == OP_VOTE) {
            if (is(k, ".all")) { in->sub = VO_ALL; done = 1; }
            else if (is(k, ".any")) { in->sub = VO_ANY; done = 1; }
            else if (is(k, ".uni")) { in->sub = VO_UNI; done = 1; }
            else if (is(k, ".ballot")) { in->sub = VO_BALLOT; done = 1; }
        } else if (op == OP_MUL || op == OP_MAD || op == OP_MUL24 || op == OP_MAD24) {
            if (is(k, ".hi")) { in->flags |= F_HI; done = 1; }
            else if (is(k, ".lo")) done = 1;
            else if (is(k, ".wide")) { in->flags |= F_WIDE; done = 1; }
        } else if (op == OP_SHF) {
            if (is(k, ".l")) done = 1;
            else if (is(k, ".r")) { in->flags |= F_HI; done = 1; }
            else if (is(k, ".wrap")) { in->flags |= F_WRAP; done = 1; }
            else if (is(k, ".clamp")) done = 1;
        } else if (op == OP_BAR) {
            if (is(k, ".sync") || is(k, ".aligned") || is(k, ".cta")) done = 1;
            else if (is(k, ".red")) { barspec = 1; done = 1; }
            else if (barspec && (is(k, ".popc") || is(k, ".and") || is(k, ".or"))) {
                in->sub = is(k, ".popc") ? 0 : is(k, ".and") ? 1 : 2; done = 1;
            } else if (is(k, ".arrive")) { unknown_mod = 1; bad = k; done = 1; }
        } else if (op == OP_TESTP) {
            static const char *const tp[] = { ".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal" };
            for (size_t i = 0; i < 6 && !done; i++)
                if (is(k, tp[i])) { in->sub = (uint8_t)i; done = 1; }
        } else if (op == OP_MEMBAR) {
            done = 1;
        }
        if (done) continue;
        for (size_t i = 0; i < sizeof rnds / sizeof *rnds && !done; i++)
            if (is(k, rnds[i].s)) { in->sub = (uint8_t)rnds[i].v; done = 1; }
        if (done) continue;
        if (ignorable(k)) continue;
        if (op == OP_LD && (is(k, ".lo") || is(k, ".hi"))) continue;
        unknown_mod = 1;
        if (!bad) bad = k;
    }
    int nlen = (int)(cur(p)[-1].s + cur(p)[-1].n - nstart);
    if (nlen > 60 || nlen < 0) nlen = opt->n;
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
                if (ncl[which] == 34) { perr(p, line, "too many call arguments"); goto bad_ops; }
                if (parse_operand(p, &calllist[which][ncl[which]++])) goto bad_ops;
                if (!accept(p, ',')) break;
            }
            if (expect(p, ')')) goto bad_ops;
            if (which == 0) callee_before = 1;
            ncall++;
        } else {
            if (nops == 8) { perr(p, line, "too many operands"); goto bad_ops; }
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
    if (op < 0 || op == OP_UNSUPPORTED || unknown_mod) {
        (void)bad;
        mark_unsupported(p, in, nstart, nlen);
        for (int i = 0; i < nops; i++) opnd_free(&ops[i]);
        return 0;
    }
    in->op = (uint16_t)op;
    int t = in->type;
    int rc = 0;
#define NEED(n) do { if (nops != (n)) { perr(p, line, "%.*s: expected %d operands", nlen, nstart, (n)); rc = -1; goto out; } } while (0)
    switch (op) {
    case OP_NOP:
    case OP_MEMBAR:
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
        if (ops[1].kind == O_NAME) { /* function address */
            perr(p, line, "function addresses are not supported");
            rc = -1;
            goto out;
        }
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        break;
    case OP_LD:
    case OP_ST: {
        NEED(2);
        struct opnd *ad = op == OP_LD ? &ops[1] : &ops[0];
        struct opnd *rv = op == OP_LD ? &ops[0] : &ops[1];
        if (ad->kind != O_ADDR) { perr(p, line, "expected an address"); rc = -1; goto out; }
        if (ad->slot >= 0) in->a = ad->slot;
        else if (ad->symkind == -2) in->a = const_slot(p, K_IMM, 0);
        else {
            int k = sym_const_kind(ad->symkind);
            if (k == K_SHARED && ad->symval < 0)
                in->a = const_slot(p, K_SHARED, -1);
            else
                in->a = const_slot(p, k, k == K_GLOBAL ? ad->symval : ad->symval);
            if (k == K_FPARAM && (in->space == SP_PARAM || in->space == SP_NONE)) in->space = SP_FPARAM;
            if (k == K_PARAM && in->space == SP_NONE) in->space = SP_PARAM;
        }
        in->imm = ad->off;
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        if (in->space == SP_PARAM && !p->m->funcs[p->fn].is_entry) in->space = SP_FPARAM;
        if (rv->kind == O_VEC) {
            if (rv->nvec != in->vec) { perr(p, line, "vector size mismatch"); rc = -1; goto out; }
            for (int i = 0; i < rv->nvec; i++)
                in->vr[i] = op == OP_LD ? dst(p, rv->vimm[i]) : src(p, rv->vimm[i], t);
        } else {
            if (in->vec != 1) { perr(p, line, "vector size mismatch"); rc = -1; goto out; }
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
    case OP_CVT:
        if (nops == 3 && (t == T_F16X2 || t == T_BF16X2)) { /* pack two f32: a high, b low */
            in->d = dst(p, &ops[0]);
            in->a = src(p, &ops[1], in->type2);
            in->b = src(p, &ops[2], in->type2);
            break;
        }
        NEED(2);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], in->type2);
        if (!in->type2) { perr(p, line, "cvt needs two types"); rc = -1; goto out; }
        break;
    case OP_SETP:
    case OP_SET:
        if (nops < 3 || nops > 4) { perr(p, line, "setp: bad operands"); rc = -1; goto out; }
        if (op == OP_SET) { in->type2 = (uint8_t)tys[1]; t = tys[1]; in->type = (uint8_t)tys[0]; }
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2 >= 0 ? ops[0].slot2 : -1;
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], t);
        if (nops == 4) {
            in->c = src(p, &ops[3], T_PRED);
            if (ops[3].neg) in->flags |= F_ANEG;
            if (!in->sub2) { perr(p, line, "setp: predicate without boolean op"); rc = -1; goto out; }
        }
        if (op == OP_SET && !in->type2) { perr(p, line, "set needs two types"); rc = -1; goto out; }
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
    case OP_POPC: case OP_TESTP:
        NEED(2);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], (op == OP_CLZ || op == OP_POPC || op == OP_BREV || op == OP_NOT || op == OP_CNOT) ? T_NONE : t);
        if (ops[1].neg && t == T_PRED && op == OP_NOT) { perr(p, line, "bad operand"); rc = -1; goto out; }
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
    case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR: case OP_MUL24: case OP_COPYSIGN:
        NEED(3);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], (op == OP_SHL || op == OP_SHR) ? T_U32 : t);
        break;
    case OP_MAD: case OP_FMA: case OP_BFE: case OP_PRMT: case OP_SAD: case OP_MAD24:
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
        NEED(need);
        if (op == OP_ATOM) in->d = dst(p, &ops[0]);
        struct opnd *ad = &ops[base];
        if (ad->kind != O_ADDR) { perr(p, line, "expected an address"); rc = -1; goto out; }
        if (ad->slot >= 0) in->a = ad->slot;
        else if (ad->symkind == -2) in->a = const_slot(p, K_IMM, 0);
        else {
            int k = sym_const_kind(ad->symkind);
            in->a = const_slot(p, k, (k == K_SHARED && ad->symval < 0) ? -1 : ad->symval);
        }
        in->imm = ad->off;
        if (in->space == SP_NONE) in->space = SP_GENERIC;
        in->b = src(p, &ops[base + 1], t);
        if (in->sub == AT_CAS) in->c = src(p, &ops[base + 2], t);
        if (in->space == SP_LOCAL || in->space == SP_PARAM || in->space == SP_CONST || in->vec != 1 ||
            (ir_type_size(t) != 4 && ir_type_size(t) != 8) || (ir_type_float(t) && in->sub != AT_ADD && in->sub != AT_EXCH) ||
            t == T_F16X2 || t == T_BF16X2) {
            mark_unsupported(p, in, nstart, nlen);
            goto out;
        }
        break;
    }
    case OP_BRA:
        NEED(1);
        if (ops[0].kind != O_NAME) { perr(p, line, "bra: expected a label"); rc = -1; goto out; }
        if (grow((void **)&p->fixes, p->nfix, &p->capfix, sizeof *p->fixes)) { perr(p, line, "out of memory"); rc = -1; goto out; }
        p->fixes[p->nfix++] = (struct fix){ (int)(in - p->m->ins), ops[0].name->s, ops[0].name->n, line };
        break;
    case OP_CALL: {
        /* call (rets), f, (args) | call f, (args) | call (rets), f | call f */
        if (nops < 1 || ops[0].kind != O_NAME) { perr(p, line, "call: expected a function"); rc = -1; goto out; }
        if (nops > 1) { mark_unsupported(p, in, nstart, nlen); goto out; } /* indirect call with prototype */
        int fi = func_get(p, ops[0].name->s, ops[0].name->n);
        if (fi < 0) { perr(p, line, "out of memory"); rc = -1; goto out; }
        struct opnd *rets = calllist[0], *args = calllist[1];
        int nrets = ncl[0], nargs = ncl[1];
        if (callee_before < 0) { /* no return list: the only list is the args */
            args = calllist[0]; nargs = ncl[0]; rets = NULL; nrets = 0;
            if (ncl[1]) { args = calllist[1]; nargs = ncl[1]; }
        }
        if (nargs > 32 || nrets > 8) { perr(p, line, "call: too many arguments"); rc = -1; goto out; }
        struct ptx_module *m = p->m;
        if (grow((void **)&m->calls, m->ncalls, &m->capcalls, sizeof *m->calls) ||
            grow((void **)&p->cfixes, p->ncfix, &p->capcfix, sizeof *p->cfixes)) { perr(p, line, "out of memory"); rc = -1; goto out; }
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
            struct sym *y = NULL;
            (void)y;
            cf->argoff[i] = (int)args[i].symval;
        }
        for (int i = 0; i < nrets; i++) {
            if (rets[i].kind != O_SYM || rets[i].symkind != SY_FPARAM) { mark_unsupported(p, in, nstart, nlen); m->ncalls++; goto out; }
            cf->retoff[i] = (int)rets[i].symval;
        }
        in->imm = m->ncalls++;
        break;
    }
    case OP_RET: case OP_EXIT: case OP_TRAP:
        break;
    case OP_BAR:
        if (barspec) { /* bar.red.popc.u32 d, a, {b,} p */
            in->op = OP_BAR_RED;
            if (nops < 3) { perr(p, line, "bar.red: bad operands"); rc = -1; goto out; }
            in->d = dst(p, &ops[0]);
            in->c = src(p, &ops[nops - 1], T_PRED);
            if (ops[nops - 1].neg) in->flags |= F_ANEG;
            break;
        }
        if (nops < 1 || nops > 2) { perr(p, line, "bar: bad operands"); rc = -1; goto out; }
        break;
    case OP_SHFL:
        NEED(5);
        in->d = dst(p, &ops[0]);
        in->d2 = ops[0].slot2;
        in->a = src(p, &ops[1], t);
        in->b = src(p, &ops[2], T_U32);
        in->c = src(p, &ops[3], T_U32);
        in->e = src(p, &ops[4], T_U32);
        break;
    case OP_VOTE:
        NEED(3);
        in->d = dst(p, &ops[0]);
        in->a = src(p, &ops[1], T_PRED);
        if (ops[1].neg) in->flags |= F_ANEG;
        in->e = src(p, &ops[2], T_U32);
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
static int parse_reg(struct ps *p)
{
    int t = T_NONE;
    while (cur(p)->kind == TK_DIR) {
        int tt = type_of(cur(p));
        if (is(cur(p), ".v2") || is(cur(p), ".v4")) { perr(p, cur(p)->line, "vector registers are not supported"); return -1; }
        if (tt != T_NONE) t = tt;
        next(p);
    }
    if (t == T_NONE) { perr(p, cur(p)->line, ".reg without a type"); return -1; }
    for (;;) {
        struct tok *nm = cur(p);
        if (nm->kind != TK_ID) { perr(p, nm->line, "expected a register name"); return -1; }
        next(p);
        if (accept(p, '<')) {
            if (cur(p)->kind != TK_INT || cur(p)->iv > 1000000) { perr(p, nm->line, "bad register count"); return -1; }
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

/* ---- functions ----------------------------------------------------------- */
static int resolve_labels(struct ps *p)
{
    for (int i = 0; i < p->nfix; i++) {
        struct fix *x = &p->fixes[i];
        int at = -1;
        for (int j = 0; j < p->nlabels; j++)
            if (p->labels[j].n == x->n && memcmp(p->labels[j].s, x->s, (size_t)x->n) == 0) { at = p->labels[j].at; break; }
        if (at < 0) { perr(p, x->line, "unknown label '%.*s'", x->n > 60 ? 60 : x->n, x->s); return -1; }
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
    int base = p->depth;
    if (expect(p, '{')) return -1;
    p->depth++;
    while (!p->failed) {
        struct tok *t = cur(p);
        if (t->kind == TK_EOF) { perr(p, t->line, "unterminated function body"); return -1; }
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
            if (is(t, ".loc") || is(t, ".pragma") || is(t, ".file")) {
                int line = t->line;
                while (cur(p)->kind != TK_EOF && cur(p)->line == line && !isp(cur(p), ';')) next(p);
                accept(p, ';');
                continue;
            }
            perr(p, t->line, "unsupported directive '%.*s' in a function", t->n > 40 ? 40 : t->n, t->s);
            return -1;
        }
        if (t->kind == TK_ID && isp(&p->t[p->i + 1], ':')) { /* label */
            if (grow((void **)&p->labels, p->nlabels, &p->caplabels, sizeof *p->labels)) { perr(p, t->line, "out of memory"); return -1; }
            p->labels[p->nlabels++] = (struct label){ t->s, t->n, m->nins };
            p->i += 2;
            continue;
        }
        int guard = -1, gneg = 0;
        if (accept(p, '@')) {
            if (accept(p, '!')) gneg = 1;
            struct opnd g;
            memset(&g, 0, sizeof g);
            if (cur(p)->kind != TK_ID || parse_reg_or_sym(p, &g) || g.kind != O_REG) { perr(p, t->line, "bad guard"); return -1; }
            guard = g.slot;
        }
        if (cur(p)->kind != TK_ID) { perr(p, cur(p)->line, "expected an instruction near '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s); return -1; }
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
        perr(p, cur(p)->line, "unexpected '%.*s'", cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s);
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
    if (nm->kind != TK_ID) { perr(p, nm->line, "expected a function name"); return -1; }
    next(p);
    p->depth = 0;
    int fi = func_get(p, nm->s, nm->n);
    p->depth = 1;
    if (fi < 0) { perr(p, line, "out of memory"); return -1; }
    struct ir_func *f = &p->m->funcs[fi];
    int redecl = f->nparams || f->nrets || f->defined || f->param_bytes || f->fparam_bytes;
    if (redecl) { /* a prototype seen before: parse again from scratch */
        free(f->params); free(f->rets);
        f->params = f->rets = NULL;
        f->nparams = f->nrets = 0;
        f->param_bytes = f->fparam_bytes = 0;
        if (f->defined) { perr(p, nm->line, "function '%.*s' defined twice", nm->n > 60 ? 60 : nm->n, nm->s); return -1; }
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
    perr(p, cur(p)->line, "expected a function body");
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
            perr(p, t->line, "unexpected '%.*s'", t->n > 40 ? 40 : t->n, t->s);
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
            int line = t->line;
            while (cur(p)->kind != TK_EOF && cur(p)->line == line) next(p);
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
        perr(p, t->line, "unsupported directive '%.*s'", t->n > 40 ? 40 : t->n, t->s);
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
            if ((g->builtin == OP_VPRINTF && (cf->nargs != 2)) || (g->builtin == OP_ASSERTFAIL && cf->nargs < 4)) {
                perr(p, cf->line, "bad call of %s", g->name);
                return -1;
            }
        } else if (cf->nargs != g->nparams || cf->nrets > g->nrets) {
            perr(p, cf->line, "call of %s: %d arguments for %d parameters", g->name, cf->nargs, g->nparams);
            return -1;
        }
        c->nargs = cf->nargs;
        c->nrets = cf->nrets;
        c->args = calloc((size_t)cf->nargs + 1, sizeof *c->args);
        c->rets = calloc((size_t)cf->nrets + 1, sizeof *c->rets);
        if (!c->args || !c->rets) { perr(p, cf->line, "out of memory"); return -1; }
        for (int k = 0; k < cf->nargs; k++) {
            unsigned size = g->builtin ? 8 : g->params[k].size;
            if (g->builtin == OP_ASSERTFAIL && k == 2) size = 4;
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
    int rc = lex(&p, text, len);
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
