/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's failures: the first one of a launch wins; its message
 * says where (PTX line, source line, block and thread), and ptx_fault
 * gets the same in fields. Below every other file of the executor. */
#include "exec.h"

#include <stdarg.h>
#include <stdio.h>

const char *ex_space_name(int sp)
{
    switch (sp) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_CLUSTER: return "shared::cluster";
    case SP_LOCAL: return "local";
    case SP_CONST: return "const";
    case SP_PARAM: case SP_FPARAM: return "param";
    default: return "generic";
    }
}

const char *ex_name(const struct blk *b, const struct ir_ins *in)
{
    return in->name >= 0 ? b->P->m->strings + in->name : "?";
}

void ex_thread_of(const struct plan *P, const struct warp *w, int lane, unsigned t[3])
{
    const struct ptx_launch *Lp = P->l;
    unsigned tid = (unsigned)(w->id * 32 + lane);
    t[0] = tid % Lp->block[0];
    t[1] = tid / Lp->block[0] % Lp->block[1];
    t[2] = tid / (Lp->block[0] * Lp->block[1]);
}

static void fill_fault(struct blk *b, const struct ex_site *at, enum ptx_status st)
{
    struct plan *P = b->P;
    struct ptx_fault *f = P->l->fault;
    const struct ptx_module *M = P->m;
    memset(f, 0, sizeof *f);
    f->status = st;
    f->warp = f->lane = -1;
    snprintf(f->kernel, sizeof f->kernel, "%s", M->funcs[P->entry].name);
    if (!at) return;
    if (at->w) {
        f->has_thread = 1;
        memcpy(f->block, b->ctaid, sizeof f->block);
        ex_thread_of(P, at->w, at->lane, f->thread);
        f->warp = at->w->id;
        f->lane = at->lane;
    }
    f->access = at->access;
    if (at->access != PTX_ACCESS_NONE) {
        snprintf(f->space, sizeof f->space, "%s", ex_space_name(at->space));
        f->addr = at->addr;
        f->size = at->size;
    }
    const struct ir_ins *in = at->in;
    if (!in) return;
    f->ptx_line = in->line;
    snprintf(f->function, sizeof f->function, "%s", M->funcs[in->fn].name);
    snprintf(f->opcode, sizeof f->opcode, "%s", ex_name(b, in));
    const char *file = in->srcfile ? ir_file_name(M, in->srcfile) : NULL;
    if (file) {
        snprintf(f->file, sizeof f->file, "%s", file);
        f->line = in->srcline;
        f->column = in->srccol;
    }
}

/* appends to the message at *n */
static void errcat(struct plan *P, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errcat(struct plan *P, size_t *n, const char *fmt, ...)
{
    if (*n >= P->errlen) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(P->err + *n, P->errlen - *n, fmt, ap);
    va_end(ap);
    if (k > 0) *n = *n + (size_t)k < P->errlen ? *n + (size_t)k : P->errlen - 1;
}

void ex_failv(struct blk *b, const struct ex_site *at, enum ptx_status st, const char *fmt, ...)
{
    struct plan *P = b->P;
    if (b->st == PTX_OK) b->st = st;
    pthread_mutex_lock(&P->lock);
    if (P->status == PTX_OK) {
        P->status = st;
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(P->err, P->errlen, fmt, ap);
        va_end(ap);
        size_t n = k < 0 ? 0 : (size_t)k < P->errlen ? (size_t)k : P->errlen - 1;
        const struct ir_ins *in = at ? at->in : NULL;
        if (in && !at->plain) {
            errcat(P, &n, " at PTX line %d", in->line);
            const char *file = in->srcfile ? ir_file_name(P->m, in->srcfile) : NULL;
            if (file) errcat(P, &n, " (%s:%d)", file, in->srcline);
        }
        if (at && at->w && !at->plain) {
            unsigned t[3];
            ex_thread_of(P, at->w, at->lane, t);
            errcat(P, &n, " in block (%u,%u,%u), thread (%u,%u,%u)", b->ctaid[0], b->ctaid[1], b->ctaid[2], t[0], t[1], t[2]);
        }
        if (P->l->fault) fill_fault(b, at, st);
    }
    pthread_mutex_unlock(&P->lock);
    atomic_store(&P->stop, 1);
}
