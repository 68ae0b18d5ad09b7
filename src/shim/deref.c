/* SPDX-License-Identifier: Apache-2.0 */
/* What a call's pointer arguments point to, copied into its record: the
 * structures and arrays src/api/structs.api describes (and what their
 * pointer fields point to, a few levels down), and a launch's kernel name
 * and arguments.
 *
 * Everything is read with td_self_read, which stops at memory that is not
 * readable instead of faulting: a bad pointer costs the program nothing
 * but an address in the trace. A launch's kernel name and parameter list
 * come from the backend (cuFuncGetName, cuFuncGetParamInfo; the CUkernel
 * variants for a library's kernel passed as a CUfunction), asked once per
 * function and kept until a module or library is unloaded: the same on the
 * real driver and on the emulator, whatever calls the trace shows. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "shim.h"

#define MEM_MAX 2048     /* bytes of one structure or array kept */
#define ELEMS_MAX 256    /* elements of an array followed */
#define DEPTH 3          /* pointers followed from an argument */
#define KBYTES_MAX 1024  /* bytes of a launch's arguments kept */

static void copy_elems(struct td_rb *b, unsigned arg, unsigned sid, uint64_t addr, uint64_t count,
                       int depth);

/* the pointers inside one element of structure sid (len bytes at base) */
static void follow(struct td_rb *b, unsigned arg, unsigned sid, const unsigned char *base, size_t len,
                   int depth)
{
    const struct td_struct *st = &td_structs[sid];
    if (st->kind == TD_SK_UNION || st->kind == TD_SK_SELFTAG) {
        int m = st->kind == TD_SK_SELFTAG ? td_union_member(st, (long long)td_read_uint(base, len, 0, 4)) : -1;
        if (m >= 0 && st->fields[m].kind == TD_K_STRUCT)
            follow(b, arg, st->fields[m].sub, base, len, depth);
        return;
    }
    for (unsigned i = 0; i < st->nfields; i++) {
        const struct td_field *f = &st->fields[i];
        if (f->flags & TD_FF_FOLLOW) {
            uint64_t p = td_read_uint(base, len, f->offset, 8);
            uint64_t n = f->countf >= 0 ? td_field_uint(st, f->countf, base, len) : f->fcount;
            if (p && n && depth < DEPTH)
                copy_elems(b, arg, f->sub, p, n, depth + 1);
        } else if (f->kind == TD_K_STRUCT) {
            unsigned sub = f->sub;
            if (td_structs[sub].kind == TD_SK_UNION) { /* the member its tag chooses */
                int m = f->cond >= 0 ? td_union_member(&td_structs[sub], (long long)td_field_uint(st, f->cond, base, len)) : -1;
                const struct td_field *mf = m >= 0 ? &td_structs[sub].fields[m] : NULL;
                if (mf && mf->kind == TD_K_STRUCT && f->offset < len)
                    follow(b, arg, mf->sub, base + f->offset, len - f->offset, depth);
                continue;
            }
            for (unsigned k = 0; k < f->count; k++) {
                size_t at = f->offset + (size_t)k * f->size;
                if (at < len)
                    follow(b, arg, sub, base + at, len - at, depth);
            }
        }
    }
}

/* count elements of structure sid at addr: one TD_IT_MEM item, then what
 * their pointers point to */
static void copy_elems(struct td_rb *b, unsigned arg, unsigned sid, uint64_t addr, uint64_t count,
                       int depth)
{
    size_t size = td_structs[sid].size;
    if (!addr || !size || !count)
        return;
    uint32_t flags = 0;
    if (count > ELEMS_MAX) {
        count = ELEMS_MAX;
        flags = TD_ITF_TRUNCATED;
    }
    size_t n = (size_t)count * size;
    if (n > MEM_MAX) {
        n = MEM_MAX / size * size;
        flags = TD_ITF_TRUNCATED;
    }
    unsigned char *d = td_rb_item(b, arg, TD_IT_MEM, 8 + n, flags);
    if (!d)
        return; /* the record is full: the decoder prints the address */
    memcpy(d, &addr, 8);
    size_t got = td_self_read(d + 8, addr, n);
    if (got < n) {
        td_rb_shrink(b, 8 + got);
        b->last->flags |= TD_ITF_TRUNCATED;
    }
    for (size_t i = 0; (i + 1) * size <= got; i++)
        follow(b, arg, sid, d + 8 + i * size, size, depth);
}

/* ---- launches ---------------------------------------------------------- */

struct kinfo {
    uint64_t fn;
    unsigned gen;
    uint16_t n, flags;
    uint16_t off[TD_KPARAMS_MAX], size[TD_KPARAMS_MAX];
    uint32_t bytes;          /* end of the last parameter */
    uint16_t namelen;
    char name[TD_STR_MAX];
};

#define KSLOTS 64
static struct { pthread_mutex_t lock; struct kinfo k; } kcache[KSLOTS] = {
#define L { PTHREAD_MUTEX_INITIALIZER, { 0, 0, 0, 0, { 0 }, { 0 }, 0, 0, { 0 } } }
#define L8 L, L, L, L, L, L, L, L
    L8, L8, L8, L8, L8, L8, L8, L8
#undef L8
#undef L
};
static _Atomic unsigned kgen = 1;

void td_deref_forget(void)
{
    atomic_fetch_add_explicit(&kgen, 1, memory_order_relaxed);
}

typedef CUresult (*getname_t)(const char **, void *);
typedef CUresult (*paraminfo_t)(void *, size_t, size_t *, size_t *);

/* ask the backend about function h (a CUfunction, or a CUkernel) */
static void kernel_query(uint64_t h, struct kinfo *k)
{
    void *fh = (void *)(uintptr_t)h;
    const char *name = NULL;
    getname_t gn = (getname_t)td_backend_fn(TD_FN_cuFuncGetName);
    getname_t kn = (getname_t)td_backend_fn(TD_FN_cuKernelGetName);
    if (!(gn && gn(&name, fh) == CUDA_SUCCESS && name) && !(kn && kn(&name, fh) == CUDA_SUCCESS && name))
        name = NULL;
    k->namelen = 0;
    if (name) {
        size_t n = td_self_read(k->name, (uint64_t)(uintptr_t)name, sizeof(k->name));
        k->namelen = (uint16_t)strnlen(k->name, n);
    }
    paraminfo_t fi = (paraminfo_t)td_backend_fn(TD_FN_cuFuncGetParamInfo);
    paraminfo_t ki = (paraminfo_t)td_backend_fn(TD_FN_cuKernelGetParamInfo);
    paraminfo_t use = NULL;
    size_t off, size;
    if (fi && fi(fh, 0, &off, &size) != CUDA_ERROR_INVALID_HANDLE)
        use = fi;
    else if (ki)
        use = ki;
    k->n = 0;
    k->flags = 0;
    k->bytes = 0;
    for (size_t i = 0; use && i <= TD_KPARAMS_MAX; i++) {
        if (use(fh, i, &off, &size) != CUDA_SUCCESS)
            break;
        if (i == TD_KPARAMS_MAX || off > 0xffff || size > 0xffff) {
            k->flags |= TD_KPF_MORE;
            break;
        }
        k->off[k->n] = (uint16_t)off;
        k->size[k->n] = (uint16_t)size;
        k->n++;
        if (off + size > k->bytes)
            k->bytes = (uint32_t)(off + size);
    }
}

static void kernel_info(uint64_t h, struct kinfo *out)
{
    unsigned slot = (unsigned)((h >> 4) * 0x9E3779B97F4A7C15ULL >> 58);
    unsigned gen = atomic_load_explicit(&kgen, memory_order_relaxed);
    pthread_mutex_lock(&kcache[slot].lock);
    struct kinfo *k = &kcache[slot].k;
    if (k->fn != h || k->gen != gen) {
        kernel_query(h, k);
        k->fn = h;
        k->gen = gen;
    }
    *out = *k;
    pthread_mutex_unlock(&kcache[slot].lock);
}

/* read n bytes at p: the program's own argument memory the call read
 * already when it succeeded, so a plain copy; otherwise carefully */
static size_t arg_read(void *dst, uint64_t p, size_t n, int trusted)
{
    if (!p)
        return 0;
    if (trusted) {
        memcpy(dst, (const void *)(uintptr_t)p, n);
        return n;
    }
    return td_self_read(dst, p, n);
}

static void launch(struct td_rb *b, const struct td_fn_info *info, const uint64_t *a, CUresult r)
{
    uint64_t h = a[info->kfunc];
    if (!h)
        return;
    struct kinfo k;
    kernel_info(h, &k);
    if (k.namelen) {
        void *d = td_rb_item(b, (unsigned)info->kfunc, TD_IT_STR, k.namelen, 0);
        if (d)
            memcpy(d, k.name, k.namelen);
    }
    uint64_t params = a[info->kparams];
    /* the argument buffer of CU_LAUNCH_PARAM_BUFFER_POINTER (extra), if no kernelParams */
    uint64_t extra = info->kparams + 1 < info->nparams && !strcmp(info->params[info->kparams + 1].name, "extra")
                         ? a[info->kparams + 1] : 0;
    if (!k.n || (!params && !extra))
        return;
    size_t table = ((size_t)k.n * 4 + 7) & ~(size_t)7;
    uint32_t bytes = k.bytes > KBYTES_MAX ? KBYTES_MAX : k.bytes;
    unsigned char *d = td_rb_item(b, (unsigned)info->kparams, TD_IT_KPARAMS,
                                  sizeof(struct td_kparams) + table + bytes, 0);
    if (!d)
        return;
    struct td_kparams hdr = { k.n, k.flags, bytes };
    memcpy(d, &hdr, sizeof(hdr));
    for (unsigned i = 0; i < k.n; i++) {
        memcpy(d + sizeof(hdr) + i * 4, &k.off[i], 2);
        memcpy(d + sizeof(hdr) + i * 4 + 2, &k.size[i], 2);
    }
    unsigned char *block = d + sizeof(hdr) + table;
    int trusted = r == CUDA_SUCCESS, cut = bytes < k.bytes;
    if (params) {
        uint64_t ptrs[TD_KPARAMS_MAX];
        size_t got = arg_read(ptrs, params, (size_t)k.n * 8, trusted);
        for (unsigned i = 0; i < k.n; i++) {
            size_t o = k.off[i], n = k.size[i];
            if (o >= bytes || (i + 1) * 8 > got) {
                cut = 1;
                continue;
            }
            if (o + n > bytes) {
                n = bytes - o;
                cut = 1;
            }
            if (arg_read(block + o, ptrs[i], n, trusted) < n)
                cut = 1;
        }
    } else { /* {CU_LAUNCH_PARAM_BUFFER_POINTER, p, CU_LAUNCH_PARAM_BUFFER_SIZE, &n, END} */
        uint64_t e[16], buf = 0, sizep = 0, size = 0;
        size_t got = arg_read(e, extra, sizeof(e), 0);
        for (size_t i = 0; i + 1 < got / 8 && e[i] != 0; i += 2) {
            if (e[i] == 1)
                buf = e[i + 1];
            else if (e[i] == 2)
                sizep = e[i + 1];
        }
        if (sizep && arg_read(&size, sizep, 8, 0) == 8 && buf) {
            size_t n = size < bytes ? size : bytes;
            if (arg_read(block, buf, n, 0) < bytes)
                cut = 1;
        } else {
            cut = 1;
        }
    }
    if (cut)
        b->last->flags |= TD_ITF_TRUNCATED;
}

void td_deref(struct td_rb *b, unsigned fn, const uint64_t *a, CUresult r)
{
    const struct td_fn_info *info = &td_fns[fn];
    if (info->kparams >= 0)
        launch(b, info, a, r);
    for (unsigned i = 0; i < info->nparams; i++) {
        const struct td_param *p = &info->params[i];
        if (!p->sid || !a[i] || (p->role == TD_R_OUT && r != CUDA_SUCCESS))
            continue;
        long long n = p->countp >= 0 ? (long long)a[p->countp] + p->adj : p->count;
        if (p->countp >= 0 && info->params[p->countp].size == 4)
            n = (long long)(uint32_t)a[p->countp] + p->adj;
        if (n > 0)
            copy_elems(b, i, p->sid, a[i], (uint64_t)n, 0);
    }
}
