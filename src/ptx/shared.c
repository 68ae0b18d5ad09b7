/* SPDX-License-Identifier: Apache-2.0 */
/* The static shared memory of each entry, as ptxas counts it for
 * CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: the module-scope (and function-scope)
 * .shared variables that the entry and every function it may call use,
 * each at its alignment, in declaration order. A call through a pointer
 * may reach every function whose address is taken. The executor keeps the
 * module's own layout (every variable at its module offset): what it
 * reserves per block is its business; what the driver reports, and what
 * occupancy and the dynamic shared memory limit count, is this. */
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

/* the variable holding module offset off, or -1 */
static int svar_of(const struct ptx_module *m, int64_t off)
{
    int lo = 0, hi = m->nsvars - 1, found = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if ((int64_t)m->svars[mid].off <= off) { found = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    return found;
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
        if (!E->is_entry || !E->defined) continue;
        w.mark = e;
        w.n = 0;
        visit(m, -1, e, &w);
        for (int k = 0; k < w.n; k++) { /* the queue grows as it is read */
            const struct ir_func *F = &m->funcs[w.queue[k]];
            for (int c = F->cstart; c < F->cend && c < m->nconst; c++) {
                const struct ir_const *C = &m->consts[c];
                int v = C->kind == K_SHARED && C->val >= 0 ? svar_of(m, C->val) : -1;
                if (v >= 0) used[v] = e;
            }
            ir_callees(m, w.queue[k], 1, visit, &w);
        }
        unsigned at = 0;
        for (int v = 0; v < m->nsvars; v++)
            if (used[v] == e) at = round_up(at, m->svars[v].align) + m->svars[v].size;
        E->shared_bytes = at;
    }
    free(buf);
    return 0;
}
