/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX lexer: text -> tokens (identifiers, directives, numbers with
 * PTX's float forms 0f/0d, strings, punctuation), each with its line. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>

static int idstart(int c) { return isalpha(c) || c == '_' || c == '$' || c == '%'; }
static int idchar(int c) { return isalnum(c) || c == '_' || c == '$'; }

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int ps_lex(struct ps *p, const char *s, size_t len)
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
        if (ps_grow((void **)&p->t, p->nt, &p->capt, sizeof *p->t))
            return -1;
        struct tok *t = &p->t[p->nt++];
        memset(t, 0, sizeof *t);
        t->line = line;
        t->s = s;
        /* ".1d", ".2d", ".3d": texture and surface geometries, not numbers */
        int geom = c == '.' && s + 3 <= e && s[1] >= '1' && s[1] <= '3' && s[2] == 'd' &&
                   (s + 3 == e || !idchar((unsigned char)s[3]));
        if (geom) {
            t->kind = TK_DIR;
            s += 3;
        } else if (c == '.' && s + 1 < e && (idstart((unsigned char)s[1]))) {
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
    if (ps_grow((void **)&p->t, p->nt, &p->capt, sizeof *p->t))
        return -1;
    struct tok *t = &p->t[p->nt++];
    memset(t, 0, sizeof *t);
    t->kind = TK_EOF;
    t->line = line;
    t->s = e;
    return 0;
}
