/* SPDX-License-Identifier: Apache-2.0 */
/* Handles by name (strace's -y): a process's handles are numbered per class
 * in the order tdtrace first sees them (stream#1, stream#2), so a trace
 * reads like the program: which stream, which event. A function is named
 * by its kernel (fn add_one), from the name the program asked for it by
 * or the name the shim records at a launch; a context carries its device
 * (ctx#1(dev 0)). A destroyed handle is forgotten, so an address the
 * driver hands out again gets a new number; unloading a module forgets its
 * functions.
 *
 * Everything comes from records, which are untrusted: a hostile process
 * can only confuse its own names. Tables are per process and bounded. */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "ledger.h"
#include "names.h"

#define MAX_ENTRIES (1u << 20)   /* per process: past it, handles print as addresses */

struct ent {
    uint64_t v;                  /* 0: free */
    uint64_t parent;             /* a function's module or library */
    unsigned num;
    unsigned char hclass;
    unsigned char dead;          /* a tombstone */
    char *name;                  /* a function's kernel, mangled */
};

struct pnames {
    int pid;
    struct ent *t;
    size_t cap, used;
    unsigned next[TD_H__COUNT];
};

static struct pnames *pn;
static size_t npn, cappn;

static struct pnames *of(int pid, int create)
{
    for (size_t i = 0; i < npn; i++)
        if (pn[i].pid == pid)
            return &pn[i];
    if (!create)
        return NULL;
    if (npn == cappn) {
        size_t c = cappn ? cappn * 2 : 16;
        struct pnames *n = realloc(pn, c * sizeof(*n));
        if (!n)
            die("out of memory");
        pn = n;
        cappn = c;
    }
    memset(&pn[npn], 0, sizeof(pn[npn]));
    pn[npn].pid = pid;
    return &pn[npn++];
}

static size_t slot(uint64_t v, size_t cap)
{
    return (size_t)((v >> 3) * 0x9E3779B97F4A7C15ULL) & (cap - 1);
}

static struct ent *find(struct pnames *p, uint64_t v)
{
    if (!p->cap)
        return NULL;
    for (size_t i = slot(v, p->cap);; i = (i + 1) & (p->cap - 1)) {
        if (!p->t[i].v)
            return NULL;
        if (p->t[i].v == v && !p->t[i].dead)
            return &p->t[i];
    }
}

static void rehash(struct pnames *p, size_t cap)
{
    struct ent *t = calloc(cap, sizeof(*t));
    if (!t)
        die("out of memory");
    size_t used = 0;
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->t[i].v || p->t[i].dead) {
            free(p->t[i].dead ? p->t[i].name : NULL);
            continue;
        }
        size_t j = slot(p->t[i].v, cap);
        while (t[j].v)
            j = (j + 1) & (cap - 1);
        t[j] = p->t[i];
        used++;
    }
    free(p->t);
    p->t = t;
    p->cap = cap;
    p->used = used;
}

/* v's entry as a handle of class hc: numbered now if it is new */
static struct ent *get(struct pnames *p, uint64_t v, int hc)
{
    struct ent *e = find(p, v);
    if (e && e->hclass == hc)
        return e;
    if (e) { /* the address is another class's now: that one is gone */
        e->dead = 1;
        free(e->name);
        e->name = NULL;
    }
    if (p->used >= MAX_ENTRIES)
        return NULL;
    if ((p->used + 1) * 2 > p->cap)
        rehash(p, p->cap ? p->cap * 2 : 256);
    size_t i = slot(v, p->cap);
    while (p->t[i].v && !p->t[i].dead)
        i = (i + 1) & (p->cap - 1);
    if (p->t[i].dead)
        free(p->t[i].name);
    else
        p->used++;
    e = &p->t[i];
    memset(e, 0, sizeof(*e));
    e->v = v;
    e->hclass = (unsigned char)hc;
    e->num = ++p->next[hc];
    return e;
}

static void forget(struct pnames *p, uint64_t v)
{
    struct ent *e = find(p, v);
    if (!e)
        return;
    e->dead = 1;
    free(e->name);
    e->name = NULL;
    /* a module's or library's functions and kernels go with it */
    if (e->hclass == TD_H_mod || e->hclass == TD_H_lib)
        for (size_t i = 0; i < p->cap; i++)
            if (p->t[i].v && !p->t[i].dead && p->t[i].parent == v) {
                p->t[i].dead = 1;
                free(p->t[i].name);
                p->t[i].name = NULL;
            }
}

static void set_name(struct ent *e, const char *s, size_t n)
{
    if (!e || !n || (e->name && strlen(e->name) == n && !memcmp(e->name, s, n)))
        return;
    char *c = malloc(n + 1);
    if (!c)
        return;
    memcpy(c, s, n);
    c[n] = '\0';
    for (char *q = c; *q; q++)
        if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
            *q = '?';
    free(e->name);
    e->name = c;
}

/* functions whose first argument is a handle they destroy (cuStreamDestroy,
 * cuModuleUnload, ...): by the API's naming */
static int destroys(const struct td_fn_info *info)
{
    size_t n = strlen(info->base);
    return info->nparams > 0 && info->params[0].role == TD_R_IN && info->params[0].hclass &&
           ((n > 7 && !strcmp(info->base + n - 7, "Destroy")) || (n > 6 && !strcmp(info->base + n - 6, "Unload")) ||
            !strcmp(info->base, "cuGraphDestroyNode"));
}

void td_names_call(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT || rec->nargs != td_fns[rec->fn].nparams ||
        sizeof(*rec) + (size_t)rec->nargs * 8 > len)
        return;
    const struct td_fn_info *info = &td_fns[rec->fn];
    const uint64_t *a = (const uint64_t *)(rec + 1);
    struct pnames *p = of((int)rec->pid, 1);
    /* a launch names its function */
    if (info->kfunc >= 0 && a[info->kfunc]) {
        const struct td_item *it = td_rec_item(rec, len, info->kfunc, TD_IT_STR);
        if (it)
            set_name(get(p, a[info->kfunc], TD_H_fn), (const char *)(it + 1), it->len);
    }
    if (rec->result != 0 || destroys(info))
        return; /* a destroyed handle is forgotten once its call is printed */
    /* handles made (or handed back): numbered; a function or kernel asked for by name */
    const struct td_item *str = NULL;
    uint64_t parent = 0, source = 0;
    for (int i = 0; i < info->nparams; i++) {
        const struct td_param *pr = &info->params[i];
        if (pr->role == TD_R_STR && !str)
            str = td_rec_item(rec, len, i, TD_IT_STR);
        if (pr->role == TD_R_IN && (pr->hclass == TD_H_mod || pr->hclass == TD_H_lib))
            parent = a[i];
        if (pr->role == TD_R_IN && pr->hclass == TD_H_kernel)
            source = a[i];
    }
    for (int i = 0; i < info->nparams; i++) {
        const struct td_param *pr = &info->params[i];
        if (pr->role != TD_R_OUT || !pr->hclass)
            continue;
        const struct td_item *it = td_rec_item(rec, len, i, TD_IT_OUT);
        uint64_t v = 0;
        if (!it || it->len != 8)
            continue;
        memcpy(&v, it + 1, 8);
        if (!v)
            continue;
        struct ent *e = get(p, v, pr->hclass);
        if (!e || (pr->hclass != TD_H_fn && pr->hclass != TD_H_kernel))
            continue;
        if (parent)
            e->parent = parent;
        if (str)
            set_name(e, (const char *)(str + 1), str->len);
        else if (source) { /* cuKernelGetFunction: the kernel's name */
            struct ent *k = find(p, source);
            if (k && k->name)
                set_name(e, k->name, strlen(k->name));
        }
    }
}

void td_names_after(const struct td_rec *rec, uint32_t len)
{
    if (rec->fn >= TD_FN__COUNT || rec->result != 0 || rec->nargs != td_fns[rec->fn].nparams ||
        sizeof(*rec) + (size_t)rec->nargs * 8 > len || !destroys(&td_fns[rec->fn]))
        return;
    struct pnames *p = of((int)rec->pid, 0);
    if (p)
        forget(p, ((const uint64_t *)(rec + 1))[0]);
}

const char *td_names_kernel(int pid, uint64_t fn)
{
    struct pnames *p = of(pid, 0);
    struct ent *e = p ? find(p, fn) : NULL;
    return e ? e->name : NULL;
}

const char *td_names_get(int pid, int hclass, uint64_t v, char *buf, size_t n)
{
    if (!v || hclass <= TD_H_NONE || hclass >= TD_H__COUNT)
        return NULL;
    struct ent *e = get(of(pid, 1), v, hclass);
    if (!e)
        return NULL;
    if (e->name) {
        char dem[1024], types[1][64];
        const char *d = td_demangle(e->name, dem, sizeof(dem));
        size_t s0 = 0, s1 = strlen(d);
        if (d != e->name && td_demangled_params(d, types, 0, &s0, &s1) < 0) {
            s0 = 0;
            s1 = strlen(d);
        }
        snprintf(buf, n, "%s %.*s", td_hclass_names[hclass], (int)(s1 - s0), d + s0);
        return buf;
    }
    if (hclass == TD_H_ctx) {
        int dev = td_ledger_ctx_device(pid, v);
        if (dev >= 0) {
            snprintf(buf, n, "ctx#%u(dev %d)", e->num, dev);
            return buf;
        }
    }
    snprintf(buf, n, "%s#%u", td_hclass_names[hclass], e->num);
    return buf;
}

void td_names_forget(int pid)
{
    struct pnames *p = of(pid, 0);
    if (!p)
        return;
    for (size_t i = 0; i < p->cap; i++)
        free(p->t[i].name);
    free(p->t);
    *p = pn[--npn];
}

void td_names_free(void)
{
    while (npn)
        td_names_forget(pn[npn - 1].pid);
    free(pn);
    pn = NULL;
    cappn = 0;
}
