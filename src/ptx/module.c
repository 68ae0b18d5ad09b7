/* SPDX-License-Identifier: Apache-2.0 */
/* A parsed module: freeing it, and the queries of ptx.h (entries,
 * parameters, globals and their initial values, source file names). */
#include "ir.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

const char *ir_file_name(const struct ptx_module *m, int num)
{
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].num == num) return m->strings + m->files[i].name;
    return NULL;
}

/* .file N "name" [, timestamp, size], at module scope */
void ptx_module_free(struct ptx_module *m)
{
    if (!m) return;
    for (int i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].params);
        free(m->funcs[i].rets);
    }
    for (int i = 0; i < m->ncalls; i++) {
        free(m->calls[i].args);
        free(m->calls[i].rets);
    }
    for (int i = 0; i < m->nglobals; i++) {
        free((void *)m->globals[i].name);
        free((void *)m->globals[i].init);
    }
    free(m->funcs);
    free(m->ins);
    free(m->consts);
    free(m->calls);
    free(m->globals);
    free(m->strings);
    free(m->files);
    free(m->svars);
    free(m->shuse);
    free(atomic_load(&m->xcache));
    struct ir_owned *jc = atomic_load(&m->jcache);
    if (jc) jc->free(jc);
    if (m->targets)
        for (int i = 0; i < m->ntargets; i++) free(m->targets[i].pc);
    free(m->targets);
    free(m->relocs);
    free(m->mmas);
    free(m);
}

/* ---- queries ------------------------------------------------------------------ */
void ptx_global_init(const struct ptx_module *m, int i, const uint64_t *gaddr, unsigned char *dst)
{
    const struct ptx_global_info *g = ptx_global(m, i);
    if (!g) return;
    if (!g->init) {
        memset(dst, 0, (size_t)g->size);
        return;
    }
    memcpy(dst, g->init, (size_t)g->size);
    for (int k = 0; k < m->nrelocs; k++) {
        const struct ir_reloc *r = &m->relocs[k];
        if (r->global != i || r->off + r->size > g->size) continue;
        uint64_t v = r->kind == K_FUNC ? ir_faddr(r->target) : gaddr ? gaddr[r->target] + (uint64_t)r->addend : 0;
        memcpy(dst + r->off, &v, r->size); /* little-endian host */
    }
}

int ptx_global_count(const struct ptx_module *m) { return m->nglobals; }
const struct ptx_global_info *ptx_global(const struct ptx_module *m, int i)
{
    return i >= 0 && i < m->nglobals ? &m->globals[i] : NULL;
}
int ptx_entry_find(const struct ptx_module *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].defined && strcmp(m->funcs[i].name, name) == 0)
            return i;
    return -1;
}
unsigned ptx_entry_param_bytes(const struct ptx_module *m, int entry) { return m->funcs[entry].param_bytes; }
unsigned ptx_entry_shared_bytes(const struct ptx_module *m, int entry)
{
    return entry >= 0 && entry < m->nfuncs ? m->funcs[entry].shared_bytes : 0;
}
int ptx_entry_cluster(const struct ptx_module *m, int entry, unsigned dims[3])
{
    const struct ir_func *f = entry >= 0 && entry < m->nfuncs ? &m->funcs[entry] : NULL;
    for (int k = 0; k < 3; k++) dims[k] = f ? f->cluster[k] : 0;
    return f && (f->explicit_cluster || f->cluster[0]);
}
int ptx_entry_params(const struct ptx_module *m, int entry, unsigned *off, unsigned *size, int max)
{
    const struct ir_func *f = &m->funcs[entry];
    for (int i = 0; i < f->nparams && i < max; i++) {
        off[i] = f->params[i].offset;
        size[i] = f->params[i].size;
    }
    return f->nparams;
}
