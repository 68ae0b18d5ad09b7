/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel parameter layout (param.h): one declaration read with the
 * engine's lexer, laid out by the one rule the engine and the emulator's
 * image scanner share. */
#include "parse.h"

#include <stdlib.h>

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
int param_decl(struct tok *t, int a, int b, struct ptx_param_layout *out)
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
