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
    struct fix { int ins; const char *s; int n; int line; } *fixes;
    int ncfix, capcfix;
    struct cfix { int call; int caller; int nargs, nrets; int argoff[32], argsz[32], retoff[8], retsz[8]; int line; } *cfixes;
    /* interned strings: open addressing, offsets + 1 (0 empty) */
    int *itab;
    int ncap, nused;
    /* the last .loc */
    int loc_file, loc_line, loc_col;
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
    int64_t off;         /* O_ADDR offset */
    int nvec; int vslot[4]; struct opnd *vimm[4];
    struct tok *name;    /* O_NAME (label or function) */
    int line;
};


/* parser.c: the first error wins; p->failed is set */
void ps_err(struct ps *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- token helpers -------------------------------------------------- */
static inline struct tok *cur(struct ps *p) { return &p->t[p->i]; }
static inline int is(struct tok *t, const char *w) { return (int)strlen(w) == t->n && memcmp(t->s, w, (size_t)t->n) == 0; }
static inline int isp(struct tok *t, char c) { return t->kind == TK_P && t->s[0] == c; }
static inline int accept(struct ps *p, char c)
{
    if (isp(cur(p), c)) { p->i++; return 1; }
    return 0;
}
static inline int expect(struct ps *p, char c)
{
    if (accept(p, c)) return 0;
    ps_err(p, cur(p)->line, "expected '%c' near '%.*s'", c, cur(p)->n > 40 ? 40 : cur(p)->n, cur(p)->s);
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

/* lex.c: the tokens of text (len bytes) into p->t, ending with TK_EOF;
 * -1 when out of memory */
int ps_lex(struct ps *p, const char *s, size_t len);

/* parse_ins.c */
int parse_reg_or_sym(struct ps *p, struct opnd *o);
void opnd_free(struct opnd *o);
struct ir_ins *new_ins(struct ps *p, int line);
/* one instruction; its guard was consumed */
int parse_ins(struct ps *p, int guard, int gneg);
/* .reg .type name<N>, name, ... ; after the .reg */
int parse_reg(struct ps *p);

#endif
