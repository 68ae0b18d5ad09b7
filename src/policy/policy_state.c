/* SPDX-License-Identifier: Apache-2.0 */
/* The policy's lifetime (defaults, free) and what the lexer, the
 * statements and the command-line options share while they build one:
 * error messages with their position, conflicts, interned file names. */
#include "policy_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ----------------------------------------------------------------- */

int td_pol_perr_dym(struct pol_state *ps, int col, const char *sugg, const char *fmt, ...)
{
    struct td_policy_error *e = ps->err;
    if (!e)
        return -1;
    snprintf(e->file, sizeof e->file, "%s", ps->efile);
    e->line = ps->eline;
    e->col = ps->eline ? col : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (sugg && n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, "; did you mean '%s'?", sugg);
    return -1;
}

int td_pol_oom(struct pol_state *ps)
{
    return perr(ps, 0, "out of memory");
}

/* "conflicts with line N" (or FILE:N when the other rule came from elsewhere) */
int td_pol_conflict(struct pol_state *ps, int col, const char *what, const struct pol_loc *l)
{
    if (l->line == 0)
        return perr(ps, col, "%s conflicts with %s", what, l->file);
    if (strcmp(l->file, ps->efile) != 0 || ps->eline == 0)
        return perr(ps, col, "%s conflicts with %s:%d", what, l->file, l->line);
    return perr(ps, col, "%s conflicts with line %d", what, l->line);
}

const char *td_pol_intern(struct td_policy *p, const char *name)
{
    for (int i = 0; i < p->nfiles; i++)
        if (strcmp(p->files[i], name) == 0)
            return p->files[i];
    char **nf = realloc(p->files, sizeof *nf * (size_t)(p->nfiles + 1));
    if (!nf)
        return NULL;
    p->files = nf;
    if (!(nf[p->nfiles] = strdup(name)))
        return NULL;
    return nf[p->nfiles++];
}

struct pol_loc td_pol_here(const struct pol_state *ps)
{
    struct pol_loc l = { ps->file, ps->line };
    return l;
}

/* grow *arr (n elements) by one zeroed element */
void *td_pol_grow(void *arr, int n, size_t size)
{
    if (n >= POL_MAX_RULES)
        return NULL;
    char *a = realloc(arr, size * (size_t)(n + 1));
    if (a)
        memset(a + size * (size_t)n, 0, size);
    return a;
}

struct td_policy *td_policy_defaults(void)
{
    struct td_policy *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->backend = TD_BACKEND_AUTO;
    p->emu_devices = 1;
    p->trace.s = NULL;
    for (int f = 0; f < TD_FN__COUNT; f++)
        p->deny_for[f] = p->inject_for[f] = -1;
    return p;
}

void td_policy_free(struct td_policy *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->ndenies; i++)
        td_pol_free_call(&p->denies[i]);
    for (int i = 0; i < p->ninjects; i++)
        td_pol_free_call(&p->injects[i]);
    for (int i = 0; i < p->ngpudevs; i++)
        free(p->gpudevs[i].s);
    for (int i = 0; i < p->nioctls; i++) {
        free((char *)p->ioctls[i].name);
        free((char *)p->ioctls[i].dev);
    }
    for (int i = 0; i < p->nfiles; i++)
        free(p->files[i]);
    free(p->denies);
    free(p->injects);
    free(p->gpudevs);
    free(p->ioctls);
    free(p->devs);
    free(p->limits);
    free(p->trace.s);
    free(p->files);
    free(p);
}

void td_pol_free_call(struct pol_call *r)
{
    for (int i = 0; i < r->nitems; i++)
        free(r->items[i].text);
    free(r->items);
    r->items = NULL;
    r->nitems = 0;
}

