/* SPDX-License-Identifier: Apache-2.0 */
/* The checker: can a function run? It must be defined (or be a builtin:
 * builtins.def), hold no unsupported instruction,
 * and so must every function it calls directly; a call through a pointer
 * checks its target when it happens. Also finds the functions on cycles of
 * the call graph (recursion, direct or through pointers): their calls save
 * and restore their frames (exec.c). */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ir_callees(const struct ptx_module *m, int f, int ind,
                void (*fn)(const struct ptx_module *, int, int, void *), void *arg)
{
    const struct ir_func *F = &m->funcs[f];
    if (!F->defined) return;
    for (int k = F->start; k < F->end; k++) {
        const struct ir_ins *in = &m->ins[k];
        if (in->op != OP_CALL) continue;
        int g = m->calls[in->imm].callee;
        if (g >= 0) fn(m, f, g, arg);
        else if (ind)
            for (int h = 0; h < m->nfuncs; h++)
                if (m->funcs[h].addr_taken && !m->funcs[h].is_entry) fn(m, f, h, arg); /* a kernel's address launches it */
    }
}

/* ---- problems ------------------------------------------------------------- */
/* problem: 0 none; f's own (bad instruction, undefined); else 1 + the callee
 * whose problem it inherits. Computed by a fixed point over direct calls. */
static void inherit(const struct ptx_module *m, int f, int g, void *arg)
{
    int *prob = arg;
    (void)m;
    if (!prob[f] && prob[g]) prob[f] = g + 2;
}

static int own_problem(const struct ir_func *F)
{
    if (F->builtin) return 0;
    return !F->defined || F->bad_ins >= 0 || F->bad_reason >= 0;
}

/* ---- cycles (Tarjan) ----------------------------------------------------------- */
struct scc {
    int *index, *low, *stack, *on;
    int n, top, next;
    struct ptx_module *m;
};

static void strong(struct scc *s, int f);
static void edge(const struct ptx_module *m, int f, int g, void *arg)
{
    struct scc *s = arg;
    (void)m;
    if (f == g) s->m->funcs[f].reentrant = 1;
    if (s->index[g] < 0) {
        strong(s, g);
        if (s->low[g] < s->low[f]) s->low[f] = s->low[g];
    } else if (s->on[g] && s->index[g] < s->low[f])
        s->low[f] = s->index[g];
}

static void strong(struct scc *s, int f)
{
    s->index[f] = s->low[f] = s->next++;
    s->stack[s->top++] = f;
    s->on[f] = 1;
    ir_callees(s->m, f, 1, edge, s);
    if (s->low[f] != s->index[f]) return;
    int count = 0, g;
    int base = s->top;
    do { g = s->stack[--base]; count++; } while (g != f);
    do {
        g = s->stack[--s->top];
        s->on[g] = 0;
        if (count > 1) s->m->funcs[g].reentrant = 1;
    } while (g != f);
}

int ir_finish(struct ptx_module *m)
{
    int n = m->nfuncs;
    int *buf = calloc((size_t)n * 5 + 1, sizeof *buf);
    if (!buf) return -1;
    struct scc s = { buf, buf + n, buf + 2 * n, buf + 3 * n, n, 0, 0, m };
    for (int i = 0; i < n; i++) s.index[i] = -1;
    /* recursion is deep only for long call chains: the depth here is the
     * number of functions, bounded by the module's size */
    for (int i = 0; i < n; i++)
        if (s.index[i] < 0) strong(&s, i);
    int *prob = buf + 4 * n;
    for (int i = 0; i < n; i++) prob[i] = own_problem(&m->funcs[i]);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            int before = prob[i];
            if (!before) ir_callees(m, i, 0, inherit, prob);
            if (prob[i] != before) changed = 1;
        }
    }
    for (int i = 0; i < n; i++) m->funcs[i].problem = prob[i];
    free(buf);
    return 0;
}

int ir_func_check(const struct ptx_module *m, int f, char *err, size_t errlen)
{
    const struct ir_func *F = &m->funcs[f];
    int hops = 0;
    while (F->problem > 1 && hops++ < m->nfuncs) F = &m->funcs[F->problem - 2];
    if (!F->problem) return 0;
    if (!F->defined) {
        snprintf(err, errlen, "unsupported: call of %s, which the PTX does not define", F->name);
        return -1;
    }
    if (F->bad_reason >= 0) {
        snprintf(err, errlen, "%s cannot run: %s (PTX line %d)", F->name, m->strings + F->bad_reason, F->bad_line);
        return -1;
    }
    const struct ir_ins *in = &m->ins[F->bad_ins];
    snprintf(err, errlen, "unsupported instruction '%s' at PTX line %d (in %s)",
             in->name >= 0 && m->strings ? m->strings + in->name : "?", in->line, F->name);
    return -1;
}

int ptx_entry_check(const struct ptx_module *m, int entry, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    if (!m || entry < 0 || entry >= m->nfuncs || !m->funcs[entry].is_entry) {
        snprintf(err, errlen, "no such kernel");
        return -1;
    }
    return ir_func_check(m, entry, err, errlen);
}
