/* SPDX-License-Identifier: Apache-2.0 */
/* Linking the PTX of several translation units into one text (ptxlink.h
 * says the rules). Two passes: the first reads each unit's top-level
 * statements (header directives, declarations, definitions) and the names
 * they declare; the second writes the statements that go in, renaming the
 * file-local names that collide and renumbering source files. */
#include "ptxlink.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS  4096
#define MAX_TEXT   (256u << 20)      /* one unit's text */
#define MAX_OUT    (1u << 30)        /* the linked text */
#define MAX_FILENO 100000            /* .file numbers kept apart per unit */

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- tokens ------------------------------------------------------------ */

enum { T_END, T_SPACE, T_ID, T_DIR, T_NUM, T_STR, T_PUNCT };

struct tok {
    int kind;
    size_t a, b;                     /* [a, b) in the text */
};

static int follow(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

/* the token at *at (white space and comments are T_SPACE tokens) */
static struct tok lex(const char *s, size_t len, size_t *at)
{
    size_t i = *at;
    struct tok t = { T_END, i, i };
    if (i >= len)
        return t;
    unsigned char c = (unsigned char)s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v'))
            i++;
        t.kind = T_SPACE;
    } else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
        while (i < len && s[i] != '\n')
            i++;
        t.kind = T_SPACE;
    } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
        i += 2;
        while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'))
            i++;
        i = i + 1 < len ? i + 2 : len;
        t.kind = T_SPACE;
    } else if (c == '.' && i + 1 < len && follow((unsigned char)s[i + 1]) &&
               !(s[i + 1] >= '0' && s[i + 1] <= '9')) {
        i++;
        while (i < len && follow((unsigned char)s[i]))
            i++;
        t.kind = T_DIR;
    } else if (c >= '0' && c <= '9') {
        while (i < len && (follow((unsigned char)s[i]) || s[i] == '.'))
            i++;
        t.kind = T_NUM;
    } else if (follow(c) || c == '%') {
        i++;
        while (i < len && follow((unsigned char)s[i]))
            i++;
        t.kind = T_ID;
    } else if (c == '"') {
        i++;
        while (i < len && s[i] != '"' && s[i] != '\n')
            i += s[i] == '\\' && i + 1 < len ? 2 : 1;
        if (i < len && s[i] == '"')
            i++;
        t.kind = T_STR;
    } else {
        i++;
        t.kind = T_PUNCT;
    }
    t.b = i > len ? len : i;
    *at = t.b;
    return t;
}

/* the next token that is not space */
static struct tok lex_word(const char *s, size_t len, size_t *at)
{
    struct tok t;
    do
        t = lex(s, len, at);
    while (t.kind == T_SPACE);
    return t;
}

static int tis(const char *s, const struct tok *t, const char *w)
{
    size_t n = strlen(w);
    return t->b - t->a == n && memcmp(s + t->a, w, n) == 0;
}

static int tpunct(const char *s, const struct tok *t, char c)
{
    return t->kind == T_PUNCT && s[t->a] == c;
}

/* ---- the first pass: statements and names ------------------------------ */

enum { S_HEADER, S_FILE, S_SECTION, S_OTHER, S_FUNC, S_VAR };
enum { L_NONE, L_VISIBLE, L_EXTERN, L_WEAK };

struct name { size_t a, b; int sym; };

struct stmt {
    size_t a, b;                     /* the statement's text */
    size_t after_link;               /* where its text begins past the linkage words */
    size_t body;                     /* a function's '{' or a variable's '=', else b */
    int kind, link, defines;
    int name0, nnames;               /* in the unit's names */
};

struct unit {
    const char *s;
    size_t len;
    struct stmt *st;
    int nst, capst;
    struct name *nm;
    int nnm, capnm;
    int ver_major, ver_minor, arch;
    size_t target_a, target_b;       /* the .target line's rest */
    long maxfile, fileoff;
};

struct sym {
    const char *s;
    size_t n;
    int last_unit, multi;            /* named by several units */
    int strong;                      /* a unit with a strong definition, or -1 */
    int emitted;                     /* a definition is in the output */
    int declared;                    /* a declaration of it is in the output */
};

struct linker {
    struct unit *u;
    int nu;
    struct sym *sy;
    int nsy, capsy;
    int *hash;                       /* sym index + 1, open addressing */
    size_t hcap;
    char *out;
    size_t len, cap;
    int oom;
};

static int grow(void **p, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    if (n >= (1 << 26))
        return -1;
    int nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static size_t hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603ULL & SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * (size_t)1099511628211ULL;
    return h;
}

/* the symbol named s[0, n), made if need be; -1 out of memory */
static int sym_get(struct linker *L, const char *s, size_t n, int make)
{
    if (L->hcap == 0 || (size_t)L->nsy * 2 >= L->hcap) {
        if (!make && L->hcap)
            goto look;
        size_t nc = L->hcap ? L->hcap * 2 : 1024;
        int *nh = calloc(nc, sizeof *nh);
        if (!nh)
            return -1;
        for (int i = 0; i < L->nsy; i++) {
            size_t h = hash(L->sy[i].s, L->sy[i].n) & (nc - 1);
            while (nh[h])
                h = (h + 1) & (nc - 1);
            nh[h] = i + 1;
        }
        free(L->hash);
        L->hash = nh;
        L->hcap = nc;
    }
look:;
    size_t h = hash(s, n) & (L->hcap - 1);
    while (L->hash[h]) {
        struct sym *y = &L->sy[L->hash[h] - 1];
        if (y->n == n && memcmp(y->s, s, n) == 0)
            return L->hash[h] - 1;
        h = (h + 1) & (L->hcap - 1);
    }
    if (!make || grow((void **)&L->sy, L->nsy, &L->capsy, sizeof *L->sy))
        return -1;
    L->sy[L->nsy] = (struct sym){ s, n, -1, 0, -1, 0, 0 };
    L->hash[h] = L->nsy + 1;
    return L->nsy++;
}

static int add_name(struct linker *L, int k, struct stmt *st, const struct tok *t)
{
    struct unit *u = &L->u[k];
    if (grow((void **)&u->nm, u->nnm, &u->capnm, sizeof *u->nm))
        return -1;
    int y = sym_get(L, u->s + t->a, t->b - t->a, 1);
    if (y < 0)
        return -1;
    struct sym *sy = &L->sy[y];
    if (sy->last_unit != k) {
        if (sy->last_unit >= 0)
            sy->multi = 1;
        sy->last_unit = k;
    }
    if (st->defines && st->link == L_VISIBLE && sy->strong < 0)
        sy->strong = k;
    u->nm[u->nnm++] = (struct name){ t->a, t->b, y };
    st->nnames++;
    return 0;
}

/* "9.0" → 9, 0 */
static void version_of(const char *s, const struct tok *t, int *major, int *minor)
{
    long a = 0, b = 0;
    size_t i = t->a;
    while (i < t->b && s[i] >= '0' && s[i] <= '9' && a < 100000)
        a = a * 10 + (s[i++] - '0');
    if (i < t->b && s[i] == '.')
        i++;
    while (i < t->b && s[i] >= '0' && s[i] <= '9' && b < 100000)
        b = b * 10 + (s[i++] - '0');
    *major = (int)a;
    *minor = (int)b;
}

static size_t line_end(const char *s, size_t len, size_t at)
{
    const char *e = memchr(s + at, '\n', len - at);
    return e ? (size_t)(e - s) : len;
}

/* A function's or a variable's statement from t on (linkage words read):
 * its names, where its body or initialiser begins, where it ends. */
static int read_decl(struct linker *L, int k, struct stmt *st, struct tok t, size_t *at)
{
    struct unit *u = &L->u[k];
    const char *s = u->s;
    size_t len = u->len;
    int isfunc = tis(s, &t, ".func") || tis(s, &t, ".entry");
    st->kind = isfunc ? S_FUNC : S_VAR;
    st->defines = isfunc ? 0 : st->link != L_EXTERN;
    int depth = 0, want_name = 1, in_init = 0, got_name = 0;
    if (isfunc && tis(s, &t, ".func")) { /* a result list before the name */
        size_t save = *at;
        struct tok r = lex_word(s, len, at);
        if (tpunct(s, &r, '(')) {
            int d = 1;
            while (d > 0) {
                r = lex_word(s, len, at);
                if (r.kind == T_END)
                    break;
                d += tpunct(s, &r, '(') - tpunct(s, &r, ')');
            }
        } else {
            *at = save;
        }
    }
    for (;;) {
        size_t before = *at;
        struct tok x = lex_word(s, len, at);
        if (x.kind == T_END) {
            st->b = len;
            break;
        }
        if (tpunct(s, &x, '{') || tpunct(s, &x, '(') || tpunct(s, &x, '[')) {
            if (depth == 0 && tpunct(s, &x, '{') && isfunc) {
                st->body = before;
                st->defines = 1;
                if (st->link == L_VISIBLE) { /* now known to define */
                    for (int i = st->name0; i < st->name0 + st->nnames; i++)
                        if (L->sy[u->nm[i].sym].strong < 0)
                            L->sy[u->nm[i].sym].strong = k;
                }
            }
            depth++;
            continue;
        }
        if (tpunct(s, &x, '}') || tpunct(s, &x, ')') || tpunct(s, &x, ']')) {
            if (depth > 0)
                depth--;
            if (depth == 0 && tpunct(s, &x, '}') && isfunc && st->defines) {
                st->b = x.b;
                break;
            }
            continue;
        }
        if (depth > 0)
            continue;
        if (tpunct(s, &x, ';')) {
            st->b = x.b;
            break;
        }
        if (tpunct(s, &x, '=')) {
            if (!in_init && st->body == st->b)
                st->body = before;
            in_init = 1;
            continue;
        }
        if (tpunct(s, &x, ',')) {
            in_init = 0;
            want_name = !isfunc;
            continue;
        }
        if (x.kind == T_ID && want_name && !in_init && !(isfunc && got_name)) {
            if (add_name(L, k, st, &x))
                return -1;
            got_name = 1;
            want_name = 0;
        }
    }
    if (!isfunc && st->link == L_EXTERN)
        st->defines = 0;
    return 0;
}

static int scan_unit(struct linker *L, int k, char *err, size_t errlen)
{
    struct unit *u = &L->u[k];
    const char *s = u->s;
    size_t len = u->len, at = 0;
    u->maxfile = -1;
    for (;;) {
        struct tok t = lex_word(s, len, &at);
        if (t.kind == T_END)
            return 0;
        if (grow((void **)&u->st, u->nst, &u->capst, sizeof *u->st))
            return -1;
        struct stmt *st = &u->st[u->nst];
        memset(st, 0, sizeof *st);
        st->a = t.a;
        st->name0 = u->nnm;
        st->kind = S_OTHER;
        if (tis(s, &t, ".version") || tis(s, &t, ".target") || tis(s, &t, ".address_size") ||
            tis(s, &t, ".file")) {
            st->kind = tis(s, &t, ".file") ? S_FILE : S_HEADER;
            st->b = line_end(s, len, t.b);
            size_t p = t.b;
            struct tok v = lex_word(s, st->b, &p);
            if (tis(s, &t, ".version") && v.kind == T_NUM) {
                version_of(s, &v, &u->ver_major, &u->ver_minor);
            } else if (tis(s, &t, ".target") && v.kind == T_ID) {
                u->target_a = v.a;
                u->target_b = st->b;
                int a = 0;
                for (size_t i = v.a + 3; i < v.b && s[i] >= '0' && s[i] <= '9' && a < 100000; i++)
                    a = a * 10 + (s[i] - '0');
                u->arch = a;
            } else if (st->kind == S_FILE && v.kind == T_NUM) {
                long n = strtol(s + v.a, NULL, 10);
                if (n < 0 || n >= MAX_FILENO) {
                    errf(err, errlen, "translation unit %d: .file number out of range", k + 1);
                    return 1;
                }
                if (n > u->maxfile)
                    u->maxfile = n;
            }
            at = st->b;
            u->nst++;
            continue;
        }
        if (tis(s, &t, ".section")) { /* .section name { ... } */
            st->kind = S_SECTION;
            int d = 0;
            for (;;) {
                struct tok x = lex_word(s, len, &at);
                if (x.kind == T_END)
                    break;
                if (tpunct(s, &x, '{'))
                    d++;
                if (tpunct(s, &x, '}') && --d <= 0)
                    break;
            }
            st->b = at;
            u->nst++;
            continue;
        }
        st->link = L_NONE;
        for (;;) {
            if (tis(s, &t, ".visible"))
                st->link = st->link == L_NONE ? L_VISIBLE : st->link;
            else if (tis(s, &t, ".extern"))
                st->link = L_EXTERN;
            else if (tis(s, &t, ".weak") || tis(s, &t, ".common"))
                st->link = st->link == L_EXTERN ? L_EXTERN : L_WEAK;
            else
                break;
            t = lex_word(s, len, &at);
        }
        st->after_link = t.a;
        st->b = st->body = len;
        if (tis(s, &t, ".func") || tis(s, &t, ".entry") || tis(s, &t, ".global") || tis(s, &t, ".const") ||
            tis(s, &t, ".shared")) {
            int r = read_decl(L, k, st, t, &at);
            if (r)
                return r;
            if (st->body > st->b)
                st->body = st->b;
        } else { /* .pragma and what the engine will judge: to the ';' */
            for (struct tok x = t; x.kind != T_END && !tpunct(s, &x, ';'); x = lex_word(s, len, &at))
                ;
            st->b = at;
        }
        u->nst++;
    }
}

/* ---- the second pass: the output --------------------------------------- */

static void put(struct linker *L, const char *s, size_t n)
{
    if (L->oom)
        return;
    if (L->len + n + 1 > L->cap) {
        size_t nc = L->cap ? L->cap : 65536;
        while (nc < L->len + n + 1)
            nc *= 2;
        char *q = nc <= MAX_OUT ? realloc(L->out, nc) : NULL;
        if (!q) {
            L->oom = 1;
            return;
        }
        L->out = q;
        L->cap = nc;
    }
    memcpy(L->out + L->len, s, n);
    L->len += n;
    L->out[L->len] = 0;
}

static void puts_(struct linker *L, const char *s) { put(L, s, strlen(s)); }

/* is symbol y file-local in unit k (and so renamed there when it collides)? */
static int local_in(const struct linker *L, int k, int y)
{
    const struct unit *u = &L->u[k];
    for (int i = 0; i < u->nst; i++) {
        const struct stmt *st = &u->st[i];
        if (st->link != L_NONE)
            continue;
        for (int j = st->name0; j < st->name0 + st->nnames; j++)
            if (u->nm[j].sym == y)
                return 1;
    }
    return 0;
}

/* Unit k's text [a, b), its colliding local names renamed (rename[y]: a
 * symbol local in k that another unit also names), .file and .loc
 * numbers shifted by the unit's offset. */
static void emit(struct linker *L, int k, const unsigned char *rename, size_t a, size_t b)
{
    const struct unit *u = &L->u[k];
    const char *s = u->s;
    size_t at = a;
    int shift_next = 0;
    for (;;) {
        struct tok t = lex(s, b, &at);
        if (t.kind == T_END)
            break;
        if (t.kind == T_ID && s[t.a] != '%') {
            int y = sym_get(L, s + t.a, t.b - t.a, 0);
            put(L, s + t.a, t.b - t.a);
            if (y >= 0 && rename[y]) {
                char suf[24];
                snprintf(suf, sizeof suf, "$tu%d", k);
                puts_(L, suf);
            }
        } else if (t.kind == T_NUM && shift_next && u->fileoff) {
            long n = strtol(s + t.a, NULL, 10);
            char num[32];
            snprintf(num, sizeof num, "%ld", n + u->fileoff);
            puts_(L, num);
        } else {
            put(L, s + t.a, t.b - t.a);
        }
        if (t.kind != T_SPACE)
            shift_next = t.kind == T_DIR && (tis(s, &t, ".file") || tis(s, &t, ".loc"));
    }
}

/* a weak definition for which a strong one comes later: its declaration */
static void emit_decl(struct linker *L, int k, const unsigned char *rename, const struct stmt *st)
{
    puts_(L, ".extern ");
    emit(L, k, rename, st->after_link, st->body);
    puts_(L, ";\n");
}

static int emit_unit(struct linker *L, int k, unsigned char *rename, char *err, size_t errlen)
{
    struct unit *u = &L->u[k];
    memset(rename, 0, (size_t)L->nsy);
    for (int i = 0; i < u->nnm; i++) {
        int y = u->nm[i].sym;
        if (L->sy[y].multi && !rename[y] && local_in(L, k, y))
            rename[y] = 1;
    }
    for (int i = 0; i < u->nst; i++) {
        const struct stmt *st = &u->st[i];
        const struct sym *first = st->nnames ? &L->sy[u->nm[st->name0].sym] : NULL;
        switch (st->kind) {
        case S_HEADER:
        case S_SECTION:
            continue;
        case S_FILE:
        case S_OTHER:
            emit(L, k, rename, st->a, st->b);
            puts_(L, "\n");
            continue;
        default:
            break;
        }
        if (!first || st->link == L_NONE) {
            emit(L, k, rename, st->a, st->b);
            puts_(L, "\n");
            continue;
        }
        if (!st->defines) { /* a declaration: only before its definition */
            if (!first->emitted) {
                emit(L, k, rename, st->a, st->b);
                puts_(L, "\n");
            }
            continue;
        }
        if (st->link == L_VISIBLE) {
            for (int j = st->name0; j < st->name0 + st->nnames; j++)
                if (L->sy[u->nm[j].sym].emitted) {
                    const struct sym *y = &L->sy[u->nm[j].sym];
                    errf(err, errlen, "multiple definitions of %.*s (translation unit %d, and one before)",
                         (int)(y->n > 200 ? 200 : y->n), y->s, k + 1);
                    return 1;
                }
        } else if (first->emitted) { /* weak, defined already */
            continue;
        } else if (first->strong >= 0 && first->strong != k) { /* weak, a strong one comes */
            if (st->kind == S_VAR && st->nnames > 1) {
                errf(err, errlen, "translation unit %d: a weak variable statement with several names", k + 1);
                return 1;
            }
            emit_decl(L, k, rename, st);
            continue;
        }
        for (int j = st->name0; j < st->name0 + st->nnames; j++)
            L->sy[u->nm[j].sym].emitted = 1;
        emit(L, k, rename, st->a, st->b);
        puts_(L, "\n");
    }
    return 0;
}

char *emu_ptx_link(const char *const *texts, const size_t *lens, int n, size_t *outlen, char *err,
                   size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!texts || !lens || n <= 0 || n > MAX_UNITS) {
        errf(err, errlen, "%d translation units to link", n);
        return NULL;
    }
    struct linker L = { 0 };
    L.u = calloc((size_t)n, sizeof *L.u);
    unsigned char *rename = NULL;
    int r = L.u ? 0 : -1;
    L.nu = n;
    long fileoff = 0;
    int best = 0;
    for (int k = 0; k < n && !r; k++) {
        struct unit *u = &L.u[k];
        u->s = texts[k];
        u->len = texts[k] ? strnlen(texts[k], lens[k]) : 0;
        if (!u->len || u->len > MAX_TEXT) {
            errf(err, errlen, "translation unit %d: %s", k + 1, u->len ? "text too long" : "no PTX text");
            r = 1;
            break;
        }
        r = scan_unit(&L, k, err, errlen);
        if (r)
            break;
        if (!u->target_b) {
            errf(err, errlen, "translation unit %d: PTX without a .target", k + 1);
            r = 1;
            break;
        }
        u->fileoff = fileoff;
        fileoff += u->maxfile + 1;
        if (u->arch > L.u[best].arch)
            best = k;
    }
    if (!r) {
        int vmaj = 0, vmin = 0;
        for (int k = 0; k < n; k++)
            if (L.u[k].ver_major > vmaj || (L.u[k].ver_major == vmaj && L.u[k].ver_minor > vmin)) {
                vmaj = L.u[k].ver_major;
                vmin = L.u[k].ver_minor;
            }
        char head[64];
        snprintf(head, sizeof head, ".version %d.%d\n.target ", vmaj, vmin);
        puts_(&L, head);
        put(&L, L.u[best].s + L.u[best].target_a, L.u[best].target_b - L.u[best].target_a);
        puts_(&L, "\n.address_size 64\n");
        rename = malloc((size_t)L.nsy + 1);
        r = rename ? 0 : -1;
    }
    for (int k = 0; k < n && !r; k++) {
        char c[64];
        snprintf(c, sizeof c, "\n// translation unit %d\n", k + 1);
        puts_(&L, c);
        r = emit_unit(&L, k, rename, err, errlen);
    }
    if (!r && L.oom)
        r = -1;
    if (r < 0)
        errf(err, errlen, "out of memory");
    for (int k = 0; L.u && k < n; k++) {
        free(L.u[k].st);
        free(L.u[k].nm);
    }
    free(L.u);
    free(L.sy);
    free(L.hash);
    free(rename);
    if (r) {
        free(L.out);
        return NULL;
    }
    if (outlen)
        *outlen = L.len;
    return L.out;
}
