/* The checker: can an entry run? Every function it reaches must be defined
 * (or be a builtin: vprintf, __assertfail, cudaGraphSetConditional), hold no unsupported
 * instruction, and not recurse (registers and .local are static per
 * function). */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DFS; state: 0 new, 1 on the path, 2 done */
static int visit(const struct ptx_module *m, int f, char *state, char *err, size_t errlen)
{
    const struct ir_func *fn = &m->funcs[f];
    if (state[f] == 2) return 0;
    if (state[f] == 1) {
        snprintf(err, errlen, "unsupported: recursive call of %s (PTX line %d)", fn->name, fn->line);
        return -1;
    }
    if (fn->builtin) { state[f] = 2; return 0; }
    if (!fn->defined) {
        snprintf(err, errlen, "unsupported: call of %s, which the PTX does not define", fn->name);
        return -1;
    }
    if (fn->bad_ins >= 0) {
        const struct ir_ins *in = &m->ins[fn->bad_ins];
        snprintf(err, errlen, "unsupported instruction '%s' at PTX line %d (in %s)",
                 in->name >= 0 && m->strings ? m->strings + in->name : "?", in->line, fn->name);
        return -1;
    }
    state[f] = 1;
    for (int k = fn->start; k < fn->end; k++) {
        const struct ir_ins *in = &m->ins[k];
        if (in->op == OP_CALL && visit(m, m->calls[in->imm].callee, state, err, errlen))
            return -1;
    }
    state[f] = 2;
    return 0;
}

int ptx_entry_check(const struct ptx_module *m, int entry, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    if (!m || entry < 0 || entry >= m->nfuncs || !m->funcs[entry].is_entry) {
        snprintf(err, errlen, "no such kernel");
        return -1;
    }
    char *state = calloc((size_t)m->nfuncs + 1, 1);
    if (!state) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int r = visit(m, entry, state, err, errlen);
    free(state);
    return r;
}
