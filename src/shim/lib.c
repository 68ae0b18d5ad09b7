/* SPDX-License-Identifier: Apache-2.0 */
/* tdtrace -e lib=PATTERN: the exported functions of other libraries
 * (cuBLAS, NCCL, cuDNN, cuFFT, ...) traced by name, with the calls each
 * one makes nested beneath it.
 *
 * The libraries that match the patterns (TDTRACE_LIBS, libmatch.h) are
 * found among the loaded objects at start and again after each dlopen
 * (the preloaded src/rtload calls tdtrace_lib_rescan). Each function of a
 * library's .dynsym gets a jump at its entry to a generic trampoline stub
 * (libtramp_x86_64.S) through src/patch, as rt.c does for the runtime: the
 * stub saves the argument registers, asks lib_enter which function it is,
 * calls the original, and lets lib_leave record the call. The record's
 * function is the function's row of src/api/libs.api where it has one
 * (its arguments then come from the registers and the caller's stack in
 * order: every parameter there is of the integer class), else LIB.call
 * with the six integer argument registers; its TD_IT_LIB item names the
 * library, the function (LIB.call) and what a tdtrace host library says it
 * ran for the call (its exported tdtrace_host_note, docs/hostlib.md). A
 * library call nests as a runtime call does (nest.c). */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../patch/elfsym.h"
#include "../patch/patch.h"
#include "libmatch.h"
#include "shim.h"

#if defined(__x86_64__)
#define NSTUB 8192 /* as many stubs as libtramp_x86_64.S has */
#define NLIBS 64

struct libobj {
    char path[512];
    const char *base;                    /* its file name, in path */
    uint64_t bias;
    const char *(*note)(void);           /* a tdtrace host library's tdtrace_host_note, or NULL */
    uint64_t probe;                      /* a patched entry (0: none), and the bytes written there: */
    uint8_t probe_bytes[TD_PATCH_MAXLEN];/* gone from it, the library was unloaded and opened again */
    uint8_t probe_len, gone;
};
struct libfn {
    void *orig;        /* runs the original (the patch's trampoline) */
    const char *name;  /* strdup'd */
    uint16_t lib;      /* index in libs */
    uint16_t fn;       /* its libs.api id, or TD_FN_LIB_call */
    _Atomic unsigned long long ncalls; /* this process's calls (an undescribed one's policy when=) */
};
static struct libobj libs[NLIBS];
static int nlibs;
static struct libfn fns[NSTUB];
static _Atomic int nfns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the calls ---------------------------------------------------------- */

struct lframe {
    void *ret;
    uintptr_t sp;
    int k;
    struct td_call c;
    uint64_t a[TD_MAX_ARGS];
};
static __thread struct lframe *lstack;
static __thread int ldepth, lcap;

/* a denied or injected library call runs this instead of the function:
 * it returns the rule's value (the trampoline calls it with the caller's
 * arguments, which it ignores) */
static __thread uint32_t lib_verdict_ret;
static uint64_t lib_denied(void)
{
    return lib_verdict_ret;
}

static void *lib_enter(unsigned k, void *ret, const uint64_t *regs, uintptr_t sp)
{
    /* frames a longjmp skipped over lie below this caller's stack pointer */
    while (ldepth > 0 && lstack[ldepth - 1].sp < sp)
        ldepth--;
    if (ldepth == lcap) {
        int cap = lcap ? lcap * 2 : 16;
        struct lframe *s = realloc(lstack, (size_t)cap * sizeof(*s));
        if (!s)
            return NULL; /* cannot happen in practice; see tramp.c */
        lstack = s;
        lcap = cap;
    }
    struct libfn *lf = &fns[k];
    struct lframe *f = &lstack[ldepth++];
    f->ret = ret;
    f->sp = sp;
    f->k = (int)k;
    unsigned np = td_fns[lf->fn].nparams;
    for (unsigned i = 0; i < np && i < TD_MAX_ARGS; i++)
        f->a[i] = i < 6 ? regs[i] : ((const uint64_t *)sp)[i - 6];
    td_rt_enter(lf->fn, &f->c);
    f->c.lib_name = libs[lf->lib].base;
    f->c.lib_fn = lf->fn == TD_FN_LIB_call ? lf->name : NULL;
    f->c.lib_host = NULL;
    uint32_t r;
    if (!(lf->fn == TD_FN_LIB_call ? td_lib_policy(&f->c, lf->name, &lf->ncalls, &r) : td_rt_policy(&f->c, f->a, &r))) {
        lib_verdict_ret = r;
        return (void *)lib_denied;
    }
    return lf->orig;
}

static void *lib_leave(uint64_t rax, uintptr_t sp)
{
    while (ldepth > 1 && lstack[ldepth - 1].sp < sp)
        ldepth--;
    struct lframe *f = &lstack[--ldepth];
    const struct libfn *lf = &fns[f->k];
    if (libs[lf->lib].note)
        f->c.lib_host = libs[lf->lib].note();
    td_rt_pop(&f->c);
    td_leave(&f->c, f->a, (CUresult)(uint32_t)rax);
    return f->ret;
}

extern const unsigned char td_libtramp_stubs[];
extern struct {
    void *(*enter)(unsigned k, void *ret, const uint64_t *regs, uintptr_t sp);
    void *(*leave)(uint64_t rax, uintptr_t sp);
} td_libtramp_hooks;

/* ---- finding and patching the libraries --------------------------------- */

static char warned[4096];
static size_t nwarned;

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(warned + nwarned, sizeof(warned) - nwarned, fmt, ap);
    va_end(ap);
    if (n > 0 && nwarned + (size_t)n < sizeof(warned) - 1) {
        nwarned += (size_t)n;
        warned[nwarned++] = '\n';
        warned[nwarned] = '\0';
    }
}

struct found {
    struct { char path[512]; uint64_t bias; } o[NLIBS];
    int n;
    const char *patterns;
};

/* patched already: loaded at the same place, and the jump still there (a
 * library closed and opened again has its original bytes back) */
static int seen(const char *path, uint64_t bias)
{
    for (int i = 0; i < nlibs; i++) {
        struct libobj *l = &libs[i];
        if (l->gone || l->bias != bias || strcmp(l->path, path) != 0)
            continue;
        uint8_t now[TD_PATCH_MAXLEN];
        if (l->probe && (td_self_read(now, l->probe, l->probe_len) != l->probe_len ||
                         memcmp(now, l->probe_bytes, l->probe_len) != 0)) {
            l->gone = 1; /* its stubs stay: a call in flight returns through them */
            continue;
        }
        return 1;
    }
    return 0;
}

static int each_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct found *f = arg;
    const char *name = info->dlpi_name;
    if (!name || !*name || f->n == NLIBS || seen(name, info->dlpi_addr))
        return 0;
    if (!td_lib_match(f->patterns, name, td_lib_soname(info)))
        return 0;
    snprintf(f->o[f->n].path, sizeof(f->o[f->n].path), "%s", name);
    f->o[f->n].bias = info->dlpi_addr;
    f->n++;
    return 0;
}

struct patchctx {
    struct td_patcher *pt;
    unsigned flags;
    int lib, first, patched, failed;
    char first_fail[300];
};

static int already(int first, uint64_t orig_addr_hint, const char *name)
{
    (void)orig_addr_hint;
    for (int i = first; i < nfns; i++)
        if (strcmp(fns[i].name, name) == 0)
            return 1;
    return 0;
}

static uint64_t patched_at[NSTUB]; /* each stub's function entry (aliases share one) */

static int patch_one(const struct td_elf_sym *s, void *arg)
{
    struct patchctx *x = arg;
    if (!s->dynamic || s->type != STT_FUNC || (s->bind != STB_GLOBAL && s->bind != STB_WEAK) || !s->addr ||
        strncmp(s->name, "tdtrace_", 8) == 0 || already(x->first, 0, s->name))
        return 0;
    int k = nfns;
    for (int i = x->first; i < k; i++)
        if (patched_at[i] == s->addr)
            return 0; /* an alias of a function patched already: traced under that name */
    if (k == NSTUB) {
        x->failed++;
        if (!x->first_fail[0])
            snprintf(x->first_fail, sizeof(x->first_fail), "%s: more than %d functions traced", s->name, NSTUB);
        return 0;
    }
    int id = td_api_find(s->name);
    if (id < TD_FN__LIB_FIRST)
        id = TD_FN_LIB_call;
    char *name = strdup(s->name);
    if (!name)
        return 1;
    struct td_patch p;
    struct td_perr err;
    if (td_patch_prepare(x->pt, name, s->addr, s->size, (uint64_t)(uintptr_t)(td_libtramp_stubs + 16 * k), 0, &p,
                         &err) != 0) {
        x->failed++;
        if (!x->first_fail[0])
            snprintf(x->first_fail, sizeof(x->first_fail), "%s: %s", name, err.msg);
        free(name);
        return 0;
    }
    fns[k] = (struct libfn){ (void *)(uintptr_t)p.original, name, (uint16_t)x->lib, (uint16_t)id, 0 };
    patched_at[k] = s->addr;
    /* the stub is ready before the entry jumps to it */
    __atomic_store_n(&nfns, k + 1, __ATOMIC_RELEASE);
    if (td_patch_apply(x->pt, &p, x->flags, &err) != 0) {
        x->failed++;
        if (!x->first_fail[0])
            snprintf(x->first_fail, sizeof(x->first_fail), "%s: %s", name, err.msg);
        patched_at[k] = 0; /* the stub stays, unused */
        return 0;
    }
    x->patched++;
    struct libobj *l = &libs[x->lib];
    if (!l->probe && p.len <= sizeof(l->probe_bytes)) {
        l->probe = p.addr;
        l->probe_len = p.len;
        memcpy(l->probe_bytes, p.bytes, p.len);
    }
    return 0;
}

static void patch_lib(struct td_patcher *pt, unsigned flags, const char *path, uint64_t bias)
{
    if (nlibs == NLIBS)
        return;
    struct td_elf *e;
    struct td_perr err;
    if (td_elf_open(path, bias, &e, &err) != 0) {
        warn("%s: not traced: %s", path, err.msg);
        return;
    }
    int li = nlibs++;
    struct libobj *l = &libs[li];
    snprintf(l->path, sizeof(l->path), "%s", path);
    const char *b = strrchr(l->path, '/');
    l->base = b ? b + 1 : l->path;
    l->bias = bias;
    l->probe = 0;
    l->gone = 0;
    struct td_elf_sym s;
    l->note = td_elf_find_func(e, "tdtrace_host_note", &s, &err) == 0 && s.dynamic
                  ? (const char *(*)(void))(uintptr_t)s.addr
                  : NULL;
    struct patchctx x = { pt, flags, li, nfns, 0, 0, "" };
    td_elf_foreach_func(e, patch_one, &x);
    td_elf_close(e);
    if (x.failed)
        warn("%s: %d of its functions not traced (%s)", l->base, x.failed, x.first_fail);
}

static const char *rescan(void)
{
    const char *patterns = getenv("TDTRACE_LIBS");
    if (!td_shim_ctl || !patterns || !*patterns)
        return NULL;
    pthread_mutex_lock(&lock);
    nwarned = 0;
    warned[0] = '\0';
    static struct found f;
    f.n = 0;
    f.patterns = patterns;
    dl_iterate_phdr(each_obj, &f);
    if (f.n) {
        td_libtramp_hooks.enter = lib_enter;
        td_libtramp_hooks.leave = lib_leave;
        struct td_patcher *pt = td_patcher_new(&td_patch_mem_self);
        if (pt) {
            unsigned flags = td_nthreads() == 1 ? TD_PATCH_STOPPED : 0;
            for (int i = 0; i < f.n; i++)
                patch_lib(pt, flags, f.o[i].path, f.o[i].bias);
            td_patcher_free(pt);
        }
    }
    pthread_mutex_unlock(&lock);
    return nwarned ? warned : NULL;
}

const char *td_lib_start(void)
{
    return rescan();
}

/* the preloaded src/rtload calls it after each dlopen */
TD_EXPORT void tdtrace_lib_rescan(void);
TD_EXPORT void tdtrace_lib_rescan(void)
{
    const char *w = rescan();
    if (w) /* rescan's buffer: copied before the lock is taken again */
        td_shim_warning(w);
}
#else
const char *td_lib_start(void)
{
    return getenv("TDTRACE_LIBS") ? "-e lib=: not traced on this architecture (x86-64 only)" : NULL;
}
#endif
