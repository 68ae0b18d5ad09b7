/* SPDX-License-Identifier: Apache-2.0 */
/* The PTX parser's internal interface, shared by its files and nothing
 * else: lex.c (text -> tokens), parser.c (the module: directives,
 * variables, parameters, functions, symbols) and parse_ins.c (operands and
 * instructions). */
#ifndef TD_PTX_PARSE_H
#define TD_PTX_PARSE_H

#include <stdio.h>
#include <string.h>

#include "ir.h"

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
    struct fix { int ins; const char *s; int n; int line; int list, pos; } *fixes; /* list >= 0: a .branchtargets entry */
    int ncfix, capcfix;
    struct cfix { int call; int caller; int nargs, nrets; int argoff[32], argsz[32], retoff[8], retsz[8]; int line; } *cfixes;
    /* interned strings: open addressing, offsets + 1 (0 empty) */
    int *itab;
    int ncap, nused;
    /* the last .loc */
    int loc_file, loc_line, loc_col;
    /* valid PTX the engine cannot take, in the function being parsed: the
     * function is marked and skipped, the rest of the module loads */
    int unsup, unsup_line;
    char unsup_msg[160];
};

#define SYM_BUCKETS 4096
enum { SY_REG = 1, SY_REGRANGE, SY_GLOBAL, SY_SHARED, SY_LOCAL, SY_KPARAM, SY_FPARAM, SY_FUNC, SY_CONST, SY_TARGETS };
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


/* instruction operands */
enum { O_NONE, O_REG, O_IMM, O_SYM, O_ADDR, O_VEC, O_NAME, O_SINK };
struct opnd {
    int kind;
    int neg;             /* !%p */
    int slot, slot2;     /* O_REG; slot2: the |%p pair */
    int rtype;           /* O_REG: register type */
    struct tok *imm;     /* O_IMM */
    int ineg;
    int symkind; int64_t symval; /* O_SYM / O_ADDR base symbol */
    int symsize;         /* O_SYM of a .param: its size */
    int64_t off;         /* O_ADDR offset */
    int nvec; int vslot[8]; struct opnd *vimm[8];
    struct tok *name;    /* O_NAME (label or function) */
    int line;
};


/* parser.c: the first error wins; p->failed is set */
void ps_err(struct ps *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* valid PTX the engine cannot take: inside a function, the function is
 * marked (its launch fails saying so) and the parse goes on after it;
 * elsewhere, an error. Fails the statement like ps_err. */
void ps_unsup(struct ps *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- token helpers -------------------------------------------------- */
static inline struct tok *cur(struct ps *p) { return &p->t[p->i]; }
static inline int is(struct tok *t, const char *w) { return (int)strlen(w) == t->n && memcmp(t->s, w, (size_t)t->n) == 0; }
static inline int isp(struct tok *t, char c) { return t->kind == TK_P && t->s[0] == c; }
static inline int accept(struct ps *p, char c)
{
    if (isp(cur(p), c)) { p->i++; return 1; }
    return 0;
}
/* a token for messages: 'its spelling', "the end of the text", or a
 * byte that is not text */
static inline const char *tok_desc(const struct tok *t, char *buf, size_t n)
{
    if (t->kind == TK_EOF) return "the end of the text (is it truncated?)";
    unsigned char c = t->n > 0 ? (unsigned char)t->s[0] : 0;
    if (c < 0x20 || c >= 0x7f) snprintf(buf, n, "byte 0x%02x (not text)", c);
    else snprintf(buf, n, "'%.*s'", t->n > 40 ? 40 : t->n, t->s);
    return buf;
}
static inline int expect(struct ps *p, char c)
{
    if (accept(p, c)) return 0;
    char d[64];
    ps_err(p, cur(p)->line, "expected '%c' near %s", c, tok_desc(cur(p), d, sizeof d));
    return -1;
}
static inline void next(struct ps *p) { if (cur(p)->kind != TK_EOF) p->i++; }

/* parser.c */
int ps_grow(void **arr, int n, int *cap, size_t elt);
struct sym *sym_find(struct ps *p, const char *s, int n);
struct sym *sym_add(struct ps *p, const char *s, int n, int kind, int64_t val, int type);
void sym_pop(struct ps *p, int depth);
int add_string(struct ptx_module *m, const char *s, int n);
/* add_string, once per distinct string: its offset, or -1 */
int intern(struct ps *p, const char *s, int n);
int type_of(struct tok *t);
int space_of(struct tok *t);
int func_get(struct ps *p, const char *s, int n);
int new_slot(struct ps *p);
int const_slot(struct ps *p, int kind, int64_t val);
unsigned align_up(unsigned v, unsigned a);
uint64_t parse_dims(struct ps *p, int *unsized);
int64_t parse_intexpr(struct ps *p);

/* param.c: the layout of the declaration in tokens [a, b): 0, or -1 */
int param_decl(struct tok *t, int a, int b, struct ptx_param_layout *out);

/* lex.c: the tokens of text (len bytes) into p->t, ending with TK_EOF;
 * -1 when out of memory */
int ps_lex(struct ps *p, const char *s, size_t len);

/* parse_ins.c */
int parse_reg_or_sym(struct ps *p, struct opnd *o);
int parse_operand(struct ps *p, struct opnd *o);
/* a source operand as a slot (immediates of type t and symbols become
 * constants); a destination's slot (-1 for the sink _) */
int src(struct ps *p, struct opnd *o, int t);
int dst(struct ps *p, struct opnd *o);
/* the base slot of an address operand; *off its offset */
int addr_base(struct ps *p, struct opnd *ad, int64_t *off);
void opnd_free(struct opnd *o);
struct ir_ins *new_ins(struct ps *p, int line);
/* one instruction; its guard was consumed */
int parse_ins(struct ps *p, int guard, int gneg);
/* .reg .type name<N>, name, ... ; after the .reg */
int parse_reg(struct ps *p);

/* parse_mma.c: is the instruction at the current token a matrix one
 * (mma, wmma, ldmatrix, stmatrix, movmatrix)? then parse_matrix reads it */
int is_matrix(struct ps *p);
/* parse_mods.c: an instruction's modifiers (after its name, before its
 * operands) into in and md; *op may change (cvt.pack) */
struct mods {
    int ntypes, tys[3];      /* the types, in order */
    int unknown;             /* a modifier the engine does not know (bad: the first) */
    struct tok *bad;
    int cvta_to, warp, bulk; /* cvta.to, bar.warp, cp.async.bulk */
    int hint;                /* .L2::cache_hint: a cache-policy operand comes last */
    int nspaces, spaces[2];  /* state spaces, in order */
};
void parse_mods(struct ps *p, struct ir_ins *in, int *op, struct mods *md);
/* parse_video.c: is the instruction at cur a video instruction? then
 * parse_video reads it */
int is_video(struct ps *p);
int parse_video(struct ps *p, int guard, int gneg);
int parse_matrix(struct ps *p, int guard, int gneg);
/* parse_tex.c: is the instruction at cur a texture or surface one (tex,
 * tld4, txq, suld, sust, suq)? then parse_tex reads it */
int is_tex(struct ps *p);
int parse_tex(struct ps *p, int guard, int gneg);
/* parse_tensor.c: is the instruction at cur a tensor-map one
 * (cp.async.bulk.tensor, prefetch.tensor)? then parse_tensor reads it */
int is_tensor(struct ps *p);
int parse_tensor(struct ps *p, int guard, int gneg);

#endif
