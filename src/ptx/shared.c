/* SPDX-License-Identifier: Apache-2.0 */
/* The static shared memory of each entry, as ptxas lays it out: the
 * module-scope (and function-scope) .shared variables that the entry and
 * every function it may call use, each at its alignment, in declaration
 * order, from offset 0 of the block's window; the dynamic shared memory
 * after them. A call through a pointer may reach every function whose
 * address is taken. Its size is CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, what
 * occupancy and the dynamic shared memory limit count, and what the
 * executor reserves and zeroes per block; a .shared constant's value is
 * its variable's offset in this layout (ir_shared_value()). */
#include "ir.h"

#include <stdlib.h>

static unsigned round_up(unsigned v, unsigned a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

struct walk {
    int *stamp, *queue, n, mark;
};

static void visit(const struct ptx_module *m, int f, int g, void *arg)
{
    struct walk *w = arg;
    (void)m, (void)f;
    if (g >= 0 && w->stamp[g] != w->mark) {
        w->stamp[g] = w->mark;
        w->queue[w->n++] = g;
    }
}

int ir_shared_sizes(struct ptx_module *m)
{
    if (!m->nsvars) return 0;
    int n = m->nfuncs;
    int *buf = malloc(((size_t)n * 2 + (size_t)m->nsvars + 1) * sizeof *buf);
    if (!buf) return -1;
    struct walk w = { buf, buf + n, 0, 0 };
    int *used = buf + 2 * n;
    for (int i = 0; i < n; i++) w.stamp[i] = -1;
    for (int v = 0; v < m->nsvars; v++) used[v] = -1;
    for (int e = 0; e < n; e++) {
        struct ir_func *E = &m->funcs[e];
        E->shuse = m->nshuse;
        if (!E->is_entry || !E->defined) continue;
        w.mark = e;
        w.n = 0;
        visit(m, -1, e, &w);
        for (int k = 0; k < w.n; k++) { /* the queue grows as it is read */
            const struct ir_func *F = &m->funcs[w.queue[k]];
            for (int c = F->cstart; c < F->cend && c < m->nconst; c++) {
                const struct ir_const *C = &m->consts[c];
                int v = C->kind == K_SHARED ? ir_shared_const_var(C->val) : -1;
                if (v >= 0 && v < m->nsvars) used[v] = e;
            }
            ir_callees(m, w.queue[k], 1, visit, &w);
        }
        int nu = 0;
        for (int v = 0; v < m->nsvars; v++) nu += used[v] == e;
        struct ir_shuse *u = nu ? realloc(m->shuse, ((size_t)m->nshuse + (size_t)nu) * sizeof *u) : NULL;
        if (nu && !u) { free(buf); return -1; }
        if (nu) m->shuse = u;
        unsigned at = 0;
        for (int v = 0; v < m->nsvars; v++) {
            if (used[v] != e) continue;
            at = round_up(at, m->svars[v].align);
            m->shuse[m->nshuse++] = (struct ir_shuse){ v, at };
            E->nshuse++;
            at += m->svars[v].size; /* at most 2^30 in all: the parser's limit */
        }
        E->shared_bytes = at;
    }
    free(buf);
    return 0;
}

uint64_t ir_shared_value(const struct ptx_module *m, int entry, int64_t val)
{
    if (entry < 0 || entry >= m->nfuncs) return UINT64_MAX;
    const struct ir_func *E = &m->funcs[entry];
    int v = ir_shared_const_var(val);
    int64_t add = val - ir_shared_const(v, 0);
    if (v < 0) return (uint64_t)((int64_t)ir_shared_dynbase(E) + add);
    int lo = 0, hi = E->nshuse - 1;
    while (lo <= hi) { /* its variables, in declaration order */
        int mid = lo + (hi - lo) / 2;
        const struct ir_shuse *u = &m->shuse[E->shuse + mid];
        if (u->var == v) return (uint64_t)((int64_t)u->off + add);
        if (u->var < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return UINT64_MAX;
}
