/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA images → PTX texts, kernel entries and global variables.
 *
 * Layout facts: docs cudart-private-interface §6. A fatbinary is a 16-byte
 * header {u32 magic, u16 version, u16 header size, u64 size of the rest}
 * followed by entries, each a header (64 bytes for ELF, 80 for PTX) and a
 * payload: word 0 kind | 0x0101 << 16, word 1 header size, words 2-3
 * payload size, word 4 compressed size, word 6 PTX ISA, word 7 sm,
 * words 10-11 flags, words 14-15 uncompressed size. */
#include "fatbin.h"
#include "fatbinfmt.h"

#include "../ptx/param.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>


/* sane limits for untrusted images */
#define MAX_IMAGE          (1ULL << 31)   /* a fatbinary, unknown length */
#define MAX_TEXT           (256u << 20)   /* one PTX text, decompressed */
#define MAX_HDR            4096u          /* a (fatbin or entry) header */
#define MAX_FB_ENTRIES     4096
#define MAX_PARAMS         8192
#define MAX_ITEMS          (1 << 20)      /* entries or globals */

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- the image being built ----------------------------------------- */

static int grow(void **arr, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    if (n >= MAX_ITEMS)
        return -1;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Capacities live apart from struct emu_image (whose layout is fixed):
 * arrays grow by doubling from the count, so the capacity is recomputable. */
static int cap_of(int n)
{
    int c = 0;
    while (c < n)
        c = c ? c * 2 : 8;
    return c;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

/* Takes ownership of text (NUL-terminated, len = strlen). */
static int add_ptx(struct emu_image *img, char *text, size_t len)
{
    int cap = cap_of(img->nptx), cap2 = cap;
    if (grow((void **)&img->ptx, img->nptx, &cap, sizeof *img->ptx) ||
        grow((void **)&img->ptx_len, img->nptx, &cap2, sizeof *img->ptx_len)) {
        free(text);
        return -1;
    }
    img->ptx[img->nptx] = text;
    img->ptx_len[img->nptx] = len;
    img->nptx++;
    return 0;
}

static struct emu_ptx_entry *add_entry(struct emu_image *img, const char *name, size_t n)
{
    int cap = cap_of(img->nentries);
    if (grow((void **)&img->entries, img->nentries, &cap, sizeof *img->entries))
        return NULL;
    struct emu_ptx_entry *e = &img->entries[img->nentries];
    memset(e, 0, sizeof *e);
    if (!(e->name = xstrndup(name, n)))
        return NULL;
    img->nentries++;
    return e;
}

static struct emu_ptx_param *add_param(struct emu_ptx_entry *e)
{
    int cap = cap_of(e->nparams);
    if (e->nparams >= MAX_PARAMS ||
        grow((void **)&e->params, e->nparams, &cap, sizeof *e->params))
        return NULL;
    struct emu_ptx_param *p = &e->params[e->nparams++];
    memset(p, 0, sizeof *p);
    return p;
}

static int add_global(struct emu_image *img, const char *name, size_t n, int is_const,
                      unsigned long long size, unsigned align)
{
    int cap = cap_of(img->nglobals);
    if (grow((void **)&img->globals, img->nglobals, &cap, sizeof *img->globals))
        return -1;
    struct emu_ptx_global *g = &img->globals[img->nglobals];
    if (!(g->name = xstrndup(name, n)))
        return -1;
    g->is_const = is_const;
    g->size = size;
    g->align = align ? align : 1;
    img->nglobals++;
    return 0;
}

void emu_image_free(struct emu_image *img)
{
    if (!img)
        return;
    for (int i = 0; i < img->nptx; i++)
        free(img->ptx[i]);
    free(img->ptx);
    free(img->ptx_len);
    for (int i = 0; i < img->nentries; i++) {
        free(img->entries[i].name);
        free(img->entries[i].params);
    }
    free(img->entries);
    for (int i = 0; i < img->nglobals; i++)
        free(img->globals[i].name);
    free(img->globals);
    free(img->sass_arch);
    memset(img, 0, sizeof *img);
    img->chosen = -1;
}

static int add_sass(struct emu_image *img, int arch)
{
    int cap = cap_of(img->nsass);
    if (grow((void **)&img->sass_arch, img->nsass, &cap, sizeof *img->sass_arch))
        return -1;
    img->sass_arch[img->nsass++] = arch;
    return 0;
}

/* ---- PTX ----------------------------------------------------------- */

enum tok_kind { T_END, T_WORD, T_NUM, T_STR, T_PUNCT };

struct tok {
    enum tok_kind kind;
    const char *s;
    size_t n;
};

struct lexer {
    const char *p, *end;
};

static int is_word_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
           c == '%' || c == '.';
}
static int is_word(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}
static int is_num(int c)
{
    return is_word(c) || c == '.';
}

/* Skip white space and comments. */
static void lex_skip(struct lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            lx->p += 2;
            while (lx->p < lx->end && !(*lx->p == '*' && lx->p + 1 < lx->end && lx->p[1] == '/'))
                lx->p++;
            lx->p = lx->p < lx->end ? lx->p + 2 : lx->end;
        } else {
            break;
        }
    }
}

static struct tok lex_next(struct lexer *lx)
{
    struct tok t = { T_END, lx->end, 0 };
    lex_skip(lx);
    if (lx->p >= lx->end)
        return t;
    const char *s = lx->p;
    unsigned char c = (unsigned char)*s;
    if (is_word_start(c)) {
        lx->p++;
        while (lx->p < lx->end && is_word((unsigned char)*lx->p))
            lx->p++;
        t.kind = T_WORD;
    } else if (c >= '0' && c <= '9') {
        while (lx->p < lx->end && is_num((unsigned char)*lx->p))
            lx->p++;
        t.kind = T_NUM;
    } else if (c == '"') {
        lx->p++;
        while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
            if (*lx->p == '\\' && lx->p + 1 < lx->end)
                lx->p++;
            lx->p++;
        }
        if (lx->p < lx->end && *lx->p == '"')
            lx->p++;
        t.kind = T_STR;
    } else {
        lx->p++;
        t.kind = T_PUNCT;
    }
    t.s = s;
    t.n = (size_t)(lx->p - s);
    return t;
}

static int tok_is(const struct tok *t, const char *w)
{
    size_t n = strlen(w);
    return t->n == n && memcmp(t->s, w, n) == 0;
}

static int tok_punct(const struct tok *t, char c)
{
    return t->kind == T_PUNCT && t->n == 1 && t->s[0] == c;
}

/* A decimal/hex/octal integer token; 0 if it is none (or too large). */
static unsigned long long tok_uint(const struct tok *t)
{
    if (t->kind != T_NUM || t->n > 40)
        return 0;
    char buf[48];
    memcpy(buf, t->s, t->n);
    buf[t->n] = 0;
    char *endp;
    unsigned long long v = strtoull(buf, &endp, 0);
    if (*endp == 'U' || *endp == 'u')
        endp++;
    return *endp ? 0 : v;
}

/* The size of a PTX scalar type (.u32 → 4); 0 if t is none. */
static unsigned type_size(const struct tok *t)
{
    static const struct { const char *name; unsigned size; } types[] = {
        { ".b8", 1 },   { ".u8", 1 },   { ".s8", 1 },   { ".e4m3", 1 }, { ".e5m2", 1 },
        { ".b16", 2 },  { ".u16", 2 },  { ".s16", 2 },  { ".f16", 2 },  { ".bf16", 2 },
        { ".b32", 4 },  { ".u32", 4 },  { ".s32", 4 },  { ".f32", 4 },  { ".f16x2", 4 },
        { ".bf16x2", 4 }, { ".tf32", 4 },
        { ".b64", 8 },  { ".u64", 8 },  { ".s64", 8 },  { ".f64", 8 },
        { ".b128", 16 },
        { ".texref", 8 }, { ".samplerref", 8 }, { ".surfref", 8 },
    };
    if (t->kind != T_WORD)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (tok_is(t, types[i].name))
            return types[i].size;
    return 0;
}

static unsigned vec_count(const struct tok *t)
{
    if (tok_is(t, ".v2"))
        return 2;
    if (tok_is(t, ".v4"))
        return 4;
    if (tok_is(t, ".v8"))
        return 8;
    return 0;
}

static int is_pow2(unsigned long long v) { return v && !(v & (v - 1)); }

#define MAX_STMT 4096   /* tokens kept of one top-level statement; the rest
                           (absurdly long parameter lists) are dropped */

struct stmt {
    struct tok t[MAX_STMT];
    int n;
    int has_eq;         /* an initializer started */
    unsigned long long init_elems; /* leaf values in a brace initializer */
};

/* One parameter from tokens [a, b), laid out by the PTX engine's rule. */
static int parse_param(const struct tok *t, int a, int b, struct emu_ptx_entry *e, unsigned *offset)
{
    struct ptx_param_layout pl;
    if (a >= b || ptx_param_decl(t[a].s, (size_t)(t[b - 1].s + t[b - 1].n - t[a].s), &pl))
        return 0; /* not a parameter we understand: skip it */
    struct emu_ptx_param *p = add_param(e);
    if (!p)
        return -1;
    size_t n = pl.namelen < sizeof p->name - 1 ? pl.namelen : sizeof p->name - 1;
    memcpy(p->name, pl.name, n);
    p->name[n] = 0;
    p->size = pl.size;
    p->align = pl.align;
    p->offset = ptx_param_place(offset, &pl);
    return 0;
}

/* `[.visible|.weak] .entry name ( params ) ...` */
static int parse_entry(const struct stmt *st, int at, struct emu_image *img)
{
    const struct tok *t = st->t;
    for (int i = 0; i < at; i++)
        if (tok_is(&t[i], ".extern"))
            return 0; /* a declaration: no kernel here */
    if (at + 1 >= st->n || t[at + 1].kind != T_WORD || t[at + 1].s[0] == '.')
        return 0;
    struct emu_ptx_entry *e = add_entry(img, t[at + 1].s, t[at + 1].n);
    if (!e)
        return -1;
    int i = at + 2;
    if (i >= st->n || !tok_punct(&t[i], '('))
        return 0; /* no parameters */
    unsigned offset = 0;
    int start = ++i, depth = 0;
    for (; i < st->n; i++) {
        if (tok_punct(&t[i], '(') || tok_punct(&t[i], '['))
            depth++;
        else if (tok_punct(&t[i], ']'))
            depth--;
        else if (tok_punct(&t[i], ')') && depth > 0)
            depth--;
        if ((tok_punct(&t[i], ',') && depth == 0) || (tok_punct(&t[i], ')') && depth == 0)) {
            if (parse_param(t, start, i, e, &offset))
                return -1;
            start = i + 1;
            if (tok_punct(&t[i], ')'))
                break;
        }
    }
    e->param_bytes = offset;
    return 0;
}

/* `[.visible] (.global|.const) [.align N] [.vN] .type name[N]... [= init], ...;` */
static int parse_vars(const struct stmt *st, int at, struct emu_image *img)
{
    const struct tok *t = st->t;
    for (int i = 0; i < at; i++)
        if (tok_is(&t[i], ".extern"))
            return 0; /* defined elsewhere */
    int is_const = tok_is(&t[at], ".const"), is_managed = 0;
    for (int k = at + 1; k < st->n; k++)
        if (tok_is(&t[k], ".managed"))
            is_managed = 1;
    unsigned long long elem = 0, vec = 1, align = 0;
    int i = at + 1;
    for (; i < st->n; i++) {
        unsigned sz, v;
        if (tok_is(&t[i], ".align") && i + 1 < st->n)
            align = tok_uint(&t[++i]);
        else if ((sz = type_size(&t[i])) != 0)
            elem = sz;
        else if ((v = vec_count(&t[i])) != 0)
            vec = v;
        else if (t[i].kind == T_WORD && t[i].s[0] != '.')
            break;
    }
    if (!elem)
        return 0;
    if (!align || !is_pow2(align) || align > 4096)
        align = elem * vec;
    while (i < st->n && t[i].kind == T_WORD && t[i].s[0] != '.') {
        const struct tok *name = &t[i++];
        unsigned long long count = 1;
        int unsized = 0;
        while (i < st->n && tok_punct(&t[i], '[')) {
            unsigned long long d = 0;
            if (i + 1 < st->n && t[i + 1].kind == T_NUM)
                d = tok_uint(&t[++i]);
            else
                unsized = 1;
            if (d)
                count = count <= (1ULL << 40) / d ? count * d : (1ULL << 40);
            while (i < st->n && !tok_punct(&t[i], ']'))
                i++;
            i++;
        }
        if (unsized && st->has_eq && st->init_elems)
            count *= st->init_elems;
        else if (unsized)
            count = 0;
        if (add_global(img, name->s, name->n, is_const, elem * vec * count, (unsigned)align))
            return -1;
        img->globals[img->nglobals - 1].is_managed = is_managed;
        /* the next declarator: after ',' (initializer values are not kept) */
        while (i < st->n && !tok_punct(&t[i], ','))
            i++;
        i++;
    }
    return 0;
}

static int stmt_process(struct stmt *st, struct emu_image *img)
{
    int rc = 0;
    for (int i = 0; i < st->n; i++) {
        const struct tok *t = &st->t[i];
        if (t->kind != T_WORD)
            break;
        if (tok_is(t, ".visible") || tok_is(t, ".weak") || tok_is(t, ".extern") ||
            tok_is(t, ".common"))
            continue;
        if (tok_is(t, ".entry"))
            rc = parse_entry(st, i, img);
        else if (tok_is(t, ".global") || tok_is(t, ".const"))
            rc = parse_vars(st, i, img);
        break;
    }
    st->n = 0;
    st->has_eq = 0;
    st->init_elems = 0;
    return rc;
}

/* Skip a balanced { ... } whose '{' was just read; count leaf values. */
static void skip_braces(struct lexer *lx, unsigned long long *elems)
{
    int depth = 1;
    while (depth > 0) {
        struct tok t = lex_next(lx);
        if (t.kind == T_END)
            return;
        if (tok_punct(&t, '{'))
            depth++;
        else if (tok_punct(&t, '}'))
            depth--;
        else if (elems && (t.kind == T_NUM || t.kind == T_WORD))
            (*elems)++;
    }
}

/* Directives that take no ';': consume their arguments. */
static void skip_line_directive(struct lexer *lx, const struct tok *d)
{
    if (tok_is(d, ".version") || tok_is(d, ".address_size")) {
        (void)lex_next(lx);
    } else if (tok_is(d, ".target")) {
        for (;;) {
            (void)lex_next(lx);
            struct lexer save = *lx;
            struct tok c = lex_next(lx);
            if (!tok_punct(&c, ',')) {
                *lx = save;
                break;
            }
        }
    } else if (tok_is(d, ".file")) {
        (void)lex_next(lx);   /* number */
        (void)lex_next(lx);   /* "name" */
        for (int k = 0; k < 2; k++) {
            struct lexer save = *lx;
            struct tok c = lex_next(lx);
            if (!tok_punct(&c, ',')) {
                *lx = save;
                break;
            }
            (void)lex_next(lx);
        }
    }
}

static int ptx_parse(const char *text, size_t len, struct emu_image *img)
{
    struct lexer lx = { text, text + len };
    struct stmt *st = calloc(1, sizeof *st);
    int rc = 0;
    if (!st)
        return -1;
    for (;;) {
        struct tok t = lex_next(&lx);
        if (t.kind == T_END)
            break;
        if (st->n == 0 && t.kind == T_WORD &&
            (tok_is(&t, ".version") || tok_is(&t, ".target") || tok_is(&t, ".address_size") ||
             tok_is(&t, ".file"))) {
            skip_line_directive(&lx, &t);
            continue;
        }
        if (tok_punct(&t, ';')) {
            if ((rc = stmt_process(st, img)))
                break;
            continue;
        }
        if (tok_punct(&t, '{')) {
            if (st->has_eq) {
                skip_braces(&lx, &st->init_elems);
                continue;
            }
            /* a body: the statement before it is complete */
            if ((rc = stmt_process(st, img)))
                break;
            skip_braces(&lx, NULL);
            continue;
        }
        if (tok_punct(&t, '='))
            st->has_eq = 1;
        if (st->n < MAX_STMT)
            st->t[st->n++] = t;
    }
    free(st);
    return rc;
}

int emu_ptx_parse(const char *text, size_t len, struct emu_image *img)
{
    return ptx_parse(text, strnlen(text, len), img);
}

/* Does text begin, after white space and comments, with a PTX directive?
 * PTX starts with `.version`; leading comments are allowed. */
static int looks_like_ptx(const char *text, size_t len)
{
    struct lexer lx = { text, text + len };
    const char *start = text;
    while (start < text + len && (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r'))
        start++;
    struct tok t = lex_next(&lx);
    if (t.kind == T_WORD && tok_is(&t, ".version"))
        return 1;
    /* only comments (or nothing) before the end: PTX of nothing */
    return t.kind == T_END && start + 1 < text + len && start[0] == '/' &&
           (start[1] == '/' || start[1] == '*');
}

/* ---- cubin (ELF) ---------------------------------------------------- */

#define EI_NIDENT 16
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define STT_OBJECT 1
#define STT_FUNC 2
#define EIATTR_KPARAM_INFO 0x17
#define EIFMT_SVAL 4

struct elf {
    const unsigned char *d;
    size_t len;
    uint64_t shoff;
    unsigned shnum, shstrndx;
};

struct shdr {
    uint32_t name, type;
    uint64_t off, size, align;
    uint32_t link;
};

static int elf_shdr(const struct elf *e, unsigned i, struct shdr *s)
{
    if (i >= e->shnum)
        return -1;
    const unsigned char *p = e->d + e->shoff + (uint64_t)i * 64;
    s->name = rd32(p);
    s->type = rd32(p + 4);
    s->off = rd64(p + 24);
    s->size = rd64(p + 32);
    s->link = rd32(p + 40);
    s->align = rd64(p + 48);
    if (s->type != 8 /* SHT_NOBITS */ && (s->off > e->len || s->size > e->len - s->off))
        return -1;
    return 0;
}

/* The NUL-terminated string at off in string section s, or NULL. */
static const char *elf_str(const struct elf *e, const struct shdr *s, uint64_t off)
{
    if (s->type != SHT_STRTAB || off >= s->size)
        return NULL;
    const char *p = (const char *)e->d + s->off + off;
    return memchr(p, 0, s->size - off) ? p : NULL;
}

static const char *elf_secname(const struct elf *e, unsigned i)
{
    struct shdr s, str;
    if (elf_shdr(e, i, &s) || elf_shdr(e, e->shstrndx, &str))
        return NULL;
    return elf_str(e, &str, s.name);
}

/* The index of the section called prefix+name, or -1. */
static int elf_find_sec(const struct elf *e, const char *prefix, const char *name)
{
    size_t pl = strlen(prefix);
    for (unsigned i = 1; i < e->shnum; i++) {
        const char *n = elf_secname(e, i);
        if (n && strncmp(n, prefix, pl) == 0 && strcmp(n + pl, name) == 0)
            return (int)i;
    }
    return -1;
}

/* Parameters from .nv.info.<name>'s EIATTR_KPARAM_INFO records. */
static int cubin_params(const struct elf *e, int sec, struct emu_ptx_entry *ent)
{
    struct shdr s;
    if (elf_shdr(e, (unsigned)sec, &s))
        return 0;
    const unsigned char *p = e->d + s.off, *end = p + s.size;
    struct { unsigned ord, off, size; } kp[256];
    int n = 0;
    while (end - p >= 4) {
        unsigned fmt = p[0], attr = p[1];
        if (fmt != EIFMT_SVAL) {
            p += 4;
            continue;
        }
        unsigned sz = rd16(p + 2);
        if ((size_t)(end - p - 4) < sz)
            break;
        if (attr == EIATTR_KPARAM_INFO && sz >= 12 && n < 256) {
            kp[n].ord = rd16(p + 8);
            kp[n].off = rd16(p + 10);
            kp[n].size = rd32(p + 12) >> 18;
            n++;
        }
        p += 4 + sz;
    }
    /* records come last parameter first; put them in ordinal order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && kp[j - 1].ord > kp[j].ord; j--) {
            __typeof__(kp[0]) tmp = kp[j];
            kp[j] = kp[j - 1];
            kp[j - 1] = tmp;
        }
    for (int i = 0; i < n; i++) {
        struct emu_ptx_param *pp = add_param(ent);
        if (!pp)
            return -1;
        snprintf(pp->name, sizeof pp->name, "%s_param_%u", ent->name, kp[i].ord);
        pp->size = kp[i].size;
        pp->offset = kp[i].off;
        unsigned al = 1;
        while (al < 8 && al * 2 <= kp[i].size && kp[i].off % (al * 2) == 0)
            al *= 2;
        pp->align = al;
        if (kp[i].off + kp[i].size > ent->param_bytes)
            ent->param_bytes = kp[i].off + kp[i].size;
    }
    return 0;
}

/* Kernels (unless img already has entries, e.g. from PTX) and variables
 * from a cubin's symbol table. Returns 0, -1 out of memory, 1 not a usable
 * ELF (err says why). */
static int cubin_parse(const unsigned char *d, size_t len, struct emu_image *img, char *err,
                       size_t errlen)
{
    if (len < 64 || memcmp(d, "\x7f" "ELF", 4) != 0) {
        errf(err, errlen, "cubin: not an ELF file");
        return 1;
    }
    if (d[4] != 2 || d[5] != 1) {
        errf(err, errlen, "cubin: not a 64-bit little-endian ELF file");
        return 1;
    }
    struct elf e = { d, len, rd64(d + 0x28), rd16(d + 0x3c), rd16(d + 0x3e) };
    if (rd16(d + 0x3a) != 64 || e.shnum == 0 || e.shoff > len ||
        (uint64_t)e.shnum * 64 > len - e.shoff || e.shstrndx >= e.shnum) {
        errf(err, errlen, "cubin: bad section header table");
        return 1;
    }
    struct shdr sym = { 0 }, str;
    int symi = -1;
    for (unsigned i = 1; i < e.shnum; i++) {
        struct shdr s;
        if (elf_shdr(&e, i, &s)) {
            errf(err, errlen, "cubin: section %u lies outside the image", i);
            return 1;
        }
        if (s.type == SHT_SYMTAB && symi < 0) {
            sym = s;
            symi = (int)i;
        }
    }
    if (symi < 0)
        return 0; /* no symbols: nothing to find */
    if (elf_shdr(&e, sym.link, &str) || str.type != SHT_STRTAB) {
        errf(err, errlen, "cubin: bad symbol string table");
        return 1;
    }
    int have_info = 0;
    for (unsigned i = 1; i < e.shnum; i++) {
        const char *n = elf_secname(&e, i);
        if (n && strncmp(n, ".nv.info.", 9) == 0)
            have_info = 1;
    }
    int take_entries = img->nentries == 0;
    for (uint64_t off = 0; off + 24 <= sym.size; off += 24) {
        const unsigned char *s = d + sym.off + off;
        unsigned type = s[4] & 0xf, bind = s[4] >> 4, shndx = rd16(s + 6);
        const char *name = elf_str(&e, &str, rd32(s));
        if (!name || !*name || shndx == 0 || shndx >= e.shnum)
            continue;
        const char *secn = elf_secname(&e, shndx);
        if (type == STT_FUNC && take_entries) {
            int info = elf_find_sec(&e, ".nv.info.", name);
            int kernel = have_info ? info >= 0
                                   : (bind == 1 && secn && strncmp(secn, ".text.", 6) == 0 &&
                                      strcmp(secn + 6, name) == 0);
            if (!kernel)
                continue;
            struct emu_ptx_entry *ent = add_entry(img, name, strlen(name));
            if (!ent || (info >= 0 && cubin_params(&e, info, ent)))
                return -1;
        } else if (type == STT_OBJECT && secn &&
                   (strncmp(secn, ".nv.global", 10) == 0 || strcmp(secn, ".nv.constant3") == 0)) {
            struct shdr ss;
            unsigned al = 1;
            if (!elf_shdr(&e, shndx, &ss) && is_pow2(ss.align) && ss.align <= 4096)
                al = (unsigned)ss.align;
            uint64_t val = rd64(s + 8);
            while (al > 1 && val % al)
                al /= 2;
            if (add_global(img, name, strlen(name), secn[4] == 'c', rd64(s + 16), al))
                return -1;
        }
    }
    return 0;
}

/* ---- fatbinary ------------------------------------------------------- */

/* The payload of one entry, decompressed if need be: *out is malloc'd
 * and NUL-terminated. Returns 0, -1 out of memory, 1 malformed. */
static int fb_payload(const unsigned char *h, const unsigned char *pl, uint64_t psz,
                      unsigned char **out, size_t *outlen, char *err, size_t errlen)
{
    uint64_t flags = rd64(h + 40);
    uint64_t csize = rd32(h + 16);
    uint64_t usize = rd64(h + 56);
    *out = NULL;
    if (flags & TD_FATBIN_FLAG_ZSTD) {
        size_t fsz = ZSTD_findFrameCompressedSize(pl, psz);
        if (ZSTD_isError(fsz)) {
            errf(err, errlen, "fatbin: bad zstd frame: %s", ZSTD_getErrorName(fsz));
            return 1;
        }
        unsigned long long fcs = ZSTD_getFrameContentSize(pl, fsz);
        if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR &&
            (usize == 0 || fcs < usize))
            usize = fcs;
        if (usize == 0 || usize > MAX_TEXT) {
            errf(err, errlen, "fatbin: bad uncompressed size %llu", (unsigned long long)usize);
            return 1;
        }
        unsigned char *buf = malloc(usize + 1);
        if (!buf)
            return -1;
        size_t r = ZSTD_decompress(buf, usize, pl, fsz);
        if (ZSTD_isError(r)) {
            free(buf);
            errf(err, errlen, "fatbin: zstd: %s", ZSTD_getErrorName(r));
            return 1;
        }
        buf[r] = 0;
        *out = buf;
        *outlen = r;
        return 0;
    }
    if (flags & TD_FATBIN_FLAG_LZ4) {
        if (usize == 0 || usize > MAX_TEXT || psz > INT32_MAX) {
            errf(err, errlen, "fatbin: bad uncompressed size %llu", (unsigned long long)usize);
            return 1;
        }
        unsigned char *buf = malloc(usize + 1);
        if (!buf)
            return -1;
        /* the block is followed by padding: its exact size is word 4 when
         * given; else try the payload less its trailing zero bytes */
        uint64_t tries[18];
        int nt = 0;
        if (csize && csize <= psz)
            tries[nt++] = csize;
        tries[nt++] = psz;
        for (uint64_t z = psz; z > 0 && pl[z - 1] == 0 && nt < 18; z--)
            tries[nt++] = z - 1;
        int r = -1;
        for (int i = 0; i < nt && r < 0; i++)
            r = LZ4_decompress_safe((const char *)pl, (char *)buf, (int)tries[i], (int)usize);
        if (r < 0) {
            free(buf);
            errf(err, errlen, "fatbin: bad LZ4 block");
            return 1;
        }
        buf[r] = 0;
        *out = buf;
        *outlen = (size_t)r;
        return 0;
    }
    unsigned char *buf = malloc(psz + 1);
    if (!buf)
        return -1;
    memcpy(buf, pl, psz);
    buf[psz] = 0;
    *out = buf;
    *outlen = psz;
    return 0;
}

static CUresult fb_load(const unsigned char *d, size_t len, struct emu_image *img, char *err,
                        size_t errlen)
{
    if (len && len < 16) {
        errf(err, errlen, "fatbin: %zu bytes: shorter than its header", len);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    unsigned hs = rd16(d + 6);
    uint64_t size = rd64(d + 8);
    if (hs < 16 || hs > MAX_HDR) {
        errf(err, errlen, "fatbin: bad header size %u", hs);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (size > MAX_IMAGE || (len && (hs > len || size > len - hs))) {
        errf(err, errlen, "fatbin: payload size %llu exceeds the image (%zu bytes)",
             (unsigned long long)size, len);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    uint64_t end = hs + size, off = hs;
    const unsigned char *first_elf = NULL;
    uint64_t first_elf_len = 0;
    unsigned char *first_elf_buf = NULL;
    int n = 0;
    CUresult rc = CUDA_SUCCESS;

    while (off < end) {
        if (end - off < 64) {
            errf(err, errlen, "fatbin: truncated entry header at offset %llu", (unsigned long long)off);
            rc = CUDA_ERROR_INVALID_IMAGE;
            break;
        }
        const unsigned char *h = d + off;
        unsigned kind = rd16(h);
        uint32_t ehs = rd32(h + 4);
        uint64_t psz = rd64(h + 8);
        if (ehs < 64 || ehs > MAX_HDR || ehs > end - off || psz > end - off - ehs) {
            errf(err, errlen, "fatbin: entry %d at offset %llu: bad sizes (header %u, payload %llu)",
                 n, (unsigned long long)off, ehs, (unsigned long long)psz);
            rc = CUDA_ERROR_INVALID_IMAGE;
            break;
        }
        if (++n > MAX_FB_ENTRIES) {
            errf(err, errlen, "fatbin: more than %d entries", MAX_FB_ENTRIES);
            rc = CUDA_ERROR_INVALID_IMAGE;
            break;
        }
        const unsigned char *pl = h + ehs;
        if (kind == TD_FATBIN_KIND_PTX && psz) {
            unsigned char *txt;
            size_t tl;
            int r = fb_payload(h, pl, psz, &txt, &tl, err, errlen);
            if (r) {
                rc = r < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_IMAGE;
                break;
            }
            tl = strnlen((char *)txt, tl);
            if (add_ptx(img, (char *)txt, tl)) {
                rc = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
        } else if (kind == TD_FATBIN_KIND_ELF && psz) {
            img->has_sass = 1;
            if (add_sass(img, (int)rd32(h + 28))) {
                rc = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
            if (!first_elf) {
                uint64_t flags = rd64(h + 40);
                if (flags & (TD_FATBIN_FLAG_ZSTD | TD_FATBIN_FLAG_LZ4)) {
                    size_t bl;
                    int r = fb_payload(h, pl, psz, &first_elf_buf, &bl, err, errlen);
                    if (r < 0) {
                        rc = CUDA_ERROR_OUT_OF_MEMORY;
                        break;
                    }
                    first_elf = first_elf_buf;
                    first_elf_len = r ? 0 : bl;
                } else {
                    first_elf = pl;
                    first_elf_len = psz;
                }
            }
        }
        off += ehs + psz;
    }
    if (rc == CUDA_SUCCESS && img->nptx == 0 && first_elf && first_elf_len) {
        /* machine code only: its kernels can be named though not run; a
         * cubin we cannot read leaves the image without entries */
        char ebuf[8];
        if (cubin_parse(first_elf, first_elf_len, img, ebuf, sizeof ebuf) < 0)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    free(first_elf_buf);
    return rc;
}

/* ---- entry point ---------------------------------------------------- */

CUresult emu_image_load(const void *image, size_t len, struct emu_image *out, char *err,
                        size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    memset(out, 0, sizeof *out);
    out->chosen = -1;
    if (!image) {
        errf(err, errlen, "no image");
        return CUDA_ERROR_INVALID_VALUE;
    }
    const unsigned char *d = image;
    CUresult rc;

    if (len && len < 4) {
        /* too short for a magic: only PTX could be this small, and it is not */
        errf(err, errlen, "image of %zu bytes", len);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    /* length unknown: a NUL within 4 bytes ends text; no magic holds one */
    uint32_t magic = 0;
    if (len || strnlen((const char *)d, 4) == 4)
        magic = rd32(d);
    if (magic == TD_FATBIN_WRAPPER) {
        if (len && len < 8 + 2 * sizeof(void *)) {
            errf(err, errlen, "fatbin wrapper: truncated");
            return CUDA_ERROR_INVALID_IMAGE;
        }
        uint32_t version = rd32(d + 4);
        const void *fb;
        memcpy(&fb, d + 8, sizeof fb);
        if (version < 1 || version > 2 || !fb) {
            errf(err, errlen, "fatbin wrapper: version %u, fatbin %p", version, fb);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        if (rd32(fb) != TD_FATBIN_MAGIC) {
            errf(err, errlen, "fatbin wrapper: does not point at a fatbinary");
            return CUDA_ERROR_INVALID_IMAGE;
        }
        rc = fb_load(fb, 0, out, err, errlen);
    } else if (magic == TD_FATBIN_MAGIC) {
        rc = fb_load(d, len, out, err, errlen);
    } else if (magic == 0x464C457Fu) { /* "\x7fELF" */
        if (!len) {
            /* an ELF's extent: the section header table ends it (cubins
             * put it last); read the 64-byte header first */
            uint64_t shoff = rd64(d + 0x28), shnum = rd16(d + 0x3c);
            uint64_t n = shoff + shnum * 64;
            len = n > MAX_IMAGE ? 0 : (size_t)n;
            if (len < 64) {
                errf(err, errlen, "cubin: bad section header table");
                return CUDA_ERROR_INVALID_IMAGE;
            }
        }
        out->has_sass = 1;
        int r = cubin_parse(d, len, out, err, errlen);
        rc = r < 0 ? CUDA_ERROR_OUT_OF_MEMORY : r ? CUDA_ERROR_INVALID_IMAGE : CUDA_SUCCESS;
    } else {
        size_t tl = len ? strnlen((const char *)d, len) : strlen((const char *)d);
        if (!looks_like_ptx((const char *)d, tl)) {
            errf(err, errlen, "not a CUDA image: no fatbinary, cubin or PTX (magic 0x%08x)", magic);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        char *txt = xstrndup((const char *)d, tl);
        out->is_text = 1;
        rc = !txt || add_ptx(out, txt, tl) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    }
    if (rc != CUDA_SUCCESS) {
        if (rc == CUDA_ERROR_OUT_OF_MEMORY && err && errlen && !err[0])
            errf(err, errlen, "out of memory");
        emu_image_free(out);
    }
    return rc;
}
