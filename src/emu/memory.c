/* SPDX-License-Identifier: Apache-2.0 */
/* Memory: allocations in host memory, counted against the device; the
 * sorted address map that validates every pointer; pointer attributes;
 * managed-memory hints; what an allocation from a pool counts in it. */
#include "emu.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MMAP_MIN (1u << 20)   /* larger allocations are mmap'ed (zeroed, lazy) */
#ifdef MAP_32BIT
#define LOW32_MAP MAP_32BIT   /* x86-64: the first 2 GiB */
#else
#define LOW32_MAP 0           /* elsewhere: wherever it lands, checked */
#endif

/* the map: allocations sorted by base; never overlapping */
static pthread_rwlock_t map_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct emu_alloc **map;
static size_t map_n, map_cap;
static atomic_ullong next_buffer_id = 1;

/* index of the last entry with base <= p, or -1 (map_lock held) */
static long map_floor(uintptr_t p)
{
    size_t lo = 0, hi = map_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (map[mid]->base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

static struct emu_alloc *map_find_locked(uintptr_t p)
{
    long i = map_floor(p);
    if (i < 0)
        return NULL;
    struct emu_alloc *a = map[i];
    return p - a->base < a->size ? a : NULL;
}

/* Memory is not given back while any kernel runs. A kernel's access is
 * checked against the map just before it happens; a free that does not
 * wait for the kernel (stream-ordered memory, whose cuMemFree the driver
 * documents as not synchronising; cuMemFreeAsync on another stream) may
 * come in between: the kernel then faults on its next access, as on a
 * GPU, but the host's memory stays valid under it. */
static pthread_mutex_t defer_lock = PTHREAD_MUTEX_INITIALIZER;
static int kernels_running;
static struct emu_alloc *deferred;

static void release_mem(struct emu_alloc *a);

void emu_mem_kernel_begin(void)
{
    pthread_mutex_lock(&defer_lock);
    kernels_running++;
    pthread_mutex_unlock(&defer_lock);
}

void emu_mem_kernel_end(void)
{
    pthread_mutex_lock(&defer_lock);
    struct emu_alloc *list = NULL;
    if (--kernels_running == 0) {
        list = deferred;
        deferred = NULL;
    }
    pthread_mutex_unlock(&defer_lock);
    while (list) {
        struct emu_alloc *a = list;
        list = a->dnext;
        release_mem(a);
    }
}

static void alloc_free_mem(struct emu_alloc *a)
{
    pthread_mutex_lock(&defer_lock);
    if (kernels_running) {
        a->dnext = deferred;
        deferred = a;
        a = NULL;
    }
    pthread_mutex_unlock(&defer_lock);
    if (a)
        release_mem(a);
}

static void release_mem(struct emu_alloc *a)
{
    if (a->gone)
        a->gone(a->gone_cookie, 1);
    if (a->mem) {
        if (a->maplen)
            munmap(a->mem, a->maplen);
        else
            free(a->mem);
    }
    if (a->ctx)
        emu_ctx_put(a->ctx);
    if (a->pool)
        emu_obj_put(&a->pool->o);
    free(a);
}

void emu_alloc_put(struct emu_alloc *a)
{
    if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
        alloc_free_mem(a);
}

struct emu_alloc *emu_mem_lookup(uintptr_t p)
{
    pthread_rwlock_rdlock(&map_lock);
    struct emu_alloc *a = map_find_locked(p);
    if (a)
        atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
    pthread_rwlock_unlock(&map_lock);
    return a;
}

CUresult emu_mem_find(uintptr_t p, size_t len, struct emu_alloc **out)
{
    struct emu_alloc *a = emu_mem_lookup(p);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    if (len > a->size - (p - a->base)) {
        emu_alloc_put(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *out = a;
    return CUDA_SUCCESS;
}

static void account(struct emu_device *d, long long delta)
{
    pthread_mutex_lock(&d->mem_lock);
    d->used += (unsigned long long)delta;
    if (delta > 0) {
        d->nallocs++;
        d->total_allocs++;
        if (d->used > d->peak)
            d->peak = d->used;
    } else {
        d->nallocs--;
    }
    pthread_mutex_unlock(&d->mem_lock);
}

static int reserve(struct emu_device *d, size_t bytes)
{
    int ok;
    pthread_mutex_lock(&d->mem_lock);
    ok = bytes <= d->total_mem - d->used;
    if (ok) {
        d->used += bytes;
        d->nallocs++;
        d->total_allocs++;
        if (d->used > d->peak)
            d->peak = d->used;
    }
    pthread_mutex_unlock(&d->mem_lock);
    return ok;
}

/* The last allocations removed from the map, for fault reports ("in memory
 * freed earlier"); newest at freed[(freed_next - 1) % NFREED]. map_lock. */
#define NFREED 64
static struct { uintptr_t base; size_t size; int kind; } freed[NFREED];
static unsigned freed_next;

/* Removes the entry at index i (map_lock held for writing); the caller
 * un-accounts and drops it. */
static void map_remove_at(size_t i)
{
    unsigned f = freed_next++ % NFREED;
    freed[f].base = map[i]->base;
    freed[f].size = map[i]->size;
    freed[f].kind = map[i]->kind;
    memmove(&map[i], &map[i + 1], (map_n - i - 1) * sizeof *map);
    map_n--;
}

void emu_mem_nearest(uintptr_t p, struct emu_mem_near *out)
{
    memset(out, 0, sizeof *out);
    out->device = -1;
    pthread_rwlock_rdlock(&map_lock);
    long i = map_floor(p);
    struct emu_alloc *below = i >= 0 ? map[i] : NULL;
    struct emu_alloc *above = (size_t)(i + 1) < map_n ? map[i + 1] : NULL;
    struct emu_alloc *pick = NULL;
    if (below && p - below->base < below->size) {
        pick = below; /* inside */
    } else {
        /* freed memory the address lies in, newest first */
        for (unsigned k = 1; k <= NFREED && k <= freed_next && !out->found; k++) {
            unsigned f = (freed_next - k) % NFREED;
            if (p >= freed[f].base && p - freed[f].base < freed[f].size) {
                out->found = out->freed = 1;
                out->base = freed[f].base;
                out->size = freed[f].size;
                out->kind = freed[f].kind;
            }
        }
        if (!out->found) {
            uintptr_t past = below ? p - (below->base + below->size) : UINTPTR_MAX;
            uintptr_t before = above ? above->base - p : UINTPTR_MAX;
            pick = below && past <= before ? below : above;
        }
    }
    if (pick) {
        out->found = 1;
        out->base = pick->base;
        out->size = pick->size;
        out->kind = pick->kind;
        out->device = pick->dev ? pick->dev->ordinal : -1;
        out->pooled = pick->pool != NULL;
    }
    pthread_rwlock_unlock(&map_lock);
}

static void unaccount(struct emu_alloc *a)
{
    if (a->acct)
        account(a->dev, -(long long)a->acct);
    if (a->pool)
        emu_pool_account(a->pool, -(long long)a->acct);
}

/* Inserts a (kind REGISTERED may collide: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED).
 * A registered range overlapping fresh memory was freed by the program
 * without being unregistered: it goes. */
static CUresult map_insert(struct emu_alloc *a)
{
    struct emu_alloc *stale[8];
    int nstale = 0;
    CUresult r = CUDA_SUCCESS;
    pthread_rwlock_wrlock(&map_lock);
    for (;;) {
        long i = map_floor(a->base + a->size - 1);
        if (i < 0 || map[i]->base + map[i]->size <= a->base)
            break;
        struct emu_alloc *o = map[i];
        if (a->kind == EMU_MEM_REGISTERED || o->kind != EMU_MEM_REGISTERED || nstale == 8) {
            r = a->kind == EMU_MEM_REGISTERED ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                                               : CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        map_remove_at((size_t)i);
        stale[nstale++] = o;
    }
    if (r == CUDA_SUCCESS && map_n == map_cap) {
        size_t cap = map_cap ? map_cap * 2 : 256;
        struct emu_alloc **m = realloc(map, cap * sizeof *m);
        if (m) {
            map = m;
            map_cap = cap;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (r == CUDA_SUCCESS) {
        size_t at = (size_t)(map_floor(a->base) + 1);
        memmove(&map[at + 1], &map[at], (map_n - at) * sizeof *map);
        map[at] = a;
        map_n++;
    }
    pthread_rwlock_unlock(&map_lock);
    for (int k = 0; k < nstale; k++) {
        unaccount(stale[k]);
        emu_alloc_put(stale[k]);
    }
    return r;
}

/* an allocation on device d, of context ctx (referenced), or of none */
static CUresult alloc_on(struct emu_ctx *ctx, struct emu_device *d, size_t size, int kind, unsigned flags,
                         struct emu_pool *pool, uintptr_t *out)
{
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (size > ((size_t)-1) - 2 * MMAP_MIN)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t acct = 0;
    if (kind == EMU_MEM_DEVICE || kind == EMU_MEM_MANAGED || kind == EMU_MEM_GLOBAL) {
        acct = (size + EMU_ALLOC_ALIGN - 1) & ~(size_t)(EMU_ALLOC_ALIGN - 1);
        if (!reserve(d, acct))
            return CUDA_ERROR_OUT_OF_MEMORY;
    }
    struct emu_alloc *a = calloc(1, sizeof *a);
    void *mem = NULL;
    size_t maplen = 0;
    int low32 = !!(flags & EMU_ALLOC_32BIT);
    flags &= ~EMU_ALLOC_32BIT;
    if (a && (size >= MMAP_MIN || low32)) {
        maplen = (size + 4095) & ~(size_t)4095;
        mem = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (low32 ? LOW32_MAP : 0), -1, 0);
        if (mem == MAP_FAILED)
            mem = NULL;
        if (mem && low32 && (uintptr_t)mem + maplen > ((uintptr_t)1 << 32)) {
            munmap(mem, maplen); /* no room below 4 GiB */
            mem = NULL;
        }
    } else if (a && posix_memalign(&mem, EMU_ALLOC_ALIGN, size)) {
        mem = NULL;
    }
    if (!a || !mem) {
        free(a);
        if (acct) {
            pthread_mutex_lock(&d->mem_lock);
            d->used -= acct;
            d->nallocs--;
            d->total_allocs--;
            pthread_mutex_unlock(&d->mem_lock);
        }
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->base = (uintptr_t)mem;
    a->size = size;
    a->acct = acct;
    a->kind = kind;
    a->flags = flags;
    a->ctx = ctx;
    if (ctx)
        emu_obj_ref(&ctx->o);
    a->dev = d;
    a->pool = pool;
    if (pool)
        emu_obj_ref(&pool->o);
    a->id = atomic_fetch_add(&next_buffer_id, 1);
    a->mem = mem;
    a->maplen = maplen;
    atomic_init(&a->refs, 1);
    if (pool)
        emu_pool_account(pool, (long long)acct);
    CUresult r = map_insert(a);
    if (r) {
        unaccount(a);
        emu_alloc_put(a);
        return r;
    }
    *out = a->base;
    return CUDA_SUCCESS;
}

CUresult emu_mem_alloc(struct emu_ctx *ctx, size_t size, int kind, unsigned flags,
                       struct emu_pool *pool, uintptr_t *out)
{
    return alloc_on(ctx, ctx->dev, size, kind, flags, pool, out);
}

CUresult emu_mem_alloc_global(struct emu_device *d, size_t size, unsigned flags, uintptr_t *out)
{
    return alloc_on(NULL, d, size, EMU_MEM_GLOBAL, flags, NULL, out);
}

CUresult emu_mem_adopt(struct emu_ctx *c, uintptr_t base, size_t size, int kind,
                       void (*gone)(void *cookie, int final), void *cookie)
{
    return emu_mem_adopt_pool(c, base, size, kind, NULL, gone, cookie);
}

CUresult emu_mem_adopt_pool(struct emu_ctx *c, uintptr_t base, size_t size, int kind, struct emu_pool *pool,
                            void (*gone)(void *cookie, int final), void *cookie)
{
    size_t acct = (size + EMU_ALLOC_ALIGN - 1) & ~(size_t)(EMU_ALLOC_ALIGN - 1);
    struct emu_alloc *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!reserve(c->dev, acct)) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->base = base;
    a->size = size;
    a->acct = acct;
    a->kind = kind;
    a->ctx = c;
    emu_obj_ref(&c->o);
    a->dev = c->dev;
    a->id = atomic_fetch_add(&next_buffer_id, 1);
    a->gone = gone;
    a->gone_cookie = cookie;
    a->pool = pool;
    if (pool) {
        emu_obj_ref(&pool->o);
        emu_pool_account(pool, (long long)acct);
    }
    atomic_init(&a->refs, 1);
    CUresult r = map_insert(a);
    if (r) {
        a->gone = NULL; /* never entered */
        unaccount(a);
        emu_alloc_put(a);
    }
    return r;
}

CUresult emu_mem_release(uintptr_t base, unsigned kinds)
{
    pthread_rwlock_wrlock(&map_lock);
    long i = map_floor(base);
    struct emu_alloc *a = i >= 0 ? map[i] : NULL;
    if (!a || a->base != base || !(kinds & (1u << a->kind))) {
        pthread_rwlock_unlock(&map_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    map_remove_at((size_t)i);
    pthread_rwlock_unlock(&map_lock);
    if (a->gone)
        a->gone(a->gone_cookie, 0);
    unaccount(a);
    emu_alloc_put(a);
    return CUDA_SUCCESS;
}

int emu_mem_charge(struct emu_device *d, size_t bytes)
{
    return reserve(d, bytes) ? 0 : -1;
}

void emu_mem_uncharge(struct emu_device *d, size_t bytes)
{
    account(d, -(long long)bytes);
}

/* emu_mem_vmm_set's wait: the removed entries not yet released */
struct drain {
    pthread_mutex_t m;
    pthread_cond_t cv;
    size_t pending;
};

static void drained(void *cookie, int final)
{
    struct drain *d = cookie;
    if (!final)
        return;
    pthread_mutex_lock(&d->m);
    if (--d->pending == 0)
        pthread_cond_broadcast(&d->cv);
    pthread_mutex_unlock(&d->m);
}

CUresult emu_mem_vmm_set(uintptr_t lo, uintptr_t hi, const uintptr_t (*runs)[2], size_t n,
                         struct emu_device *dev, int wait)
{
    struct emu_alloc **fresh = calloc(n ? n : 1, sizeof *fresh);
    if (!fresh)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t k = 0; k < n; k++) {
        struct emu_alloc *a = fresh[k] = calloc(1, sizeof *a);
        if (!a) {
            while (k--)
                free(fresh[k]);
            free(fresh);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        a->base = runs[k][0];
        a->size = runs[k][1] - runs[k][0];
        a->kind = EMU_MEM_VMM;
        a->dev = dev;
        a->id = atomic_fetch_add(&next_buffer_id, 1);
        atomic_init(&a->refs, 1);
    }
    struct emu_alloc **gone = NULL;
    size_t ngone = 0;
    CUresult r = CUDA_SUCCESS;
    pthread_rwlock_wrlock(&map_lock);
    for (size_t i = 0; i < map_n; i++)
        ngone += map[i]->kind == EMU_MEM_VMM && map[i]->base >= lo && map[i]->base < hi;
    if (ngone && !(gone = malloc(ngone * sizeof *gone)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS && map_n - ngone + n > map_cap) {
        size_t cap = map_cap ? map_cap : 256;
        while (cap < map_n - ngone + n)
            cap *= 2;
        struct emu_alloc **m = realloc(map, cap * sizeof *m);
        if (m) {
            map = m;
            map_cap = cap;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    for (size_t k = 0; r == CUDA_SUCCESS && k < n; k++) { /* the runs lie in the reservation: nothing else there */
        long i = map_floor(fresh[k]->base + fresh[k]->size - 1);
        if (i >= 0 && map[i]->kind != EMU_MEM_VMM && map[i]->base + map[i]->size > fresh[k]->base)
            r = CUDA_ERROR_INVALID_VALUE;
    }
    if (r == CUDA_SUCCESS) {
        size_t j = 0;
        for (size_t i = 0; i < map_n;) {
            if (map[i]->kind == EMU_MEM_VMM && map[i]->base >= lo && map[i]->base < hi) {
                gone[j++] = map[i];
                map_remove_at(i);
            } else {
                i++;
            }
        }
        for (size_t k = 0; k < n; k++) {
            size_t at = (size_t)(map_floor(fresh[k]->base) + 1);
            memmove(&map[at + 1], &map[at], (map_n - at) * sizeof *map);
            map[at] = fresh[k];
            map_n++;
        }
    }
    pthread_rwlock_unlock(&map_lock);
    if (r) {
        for (size_t k = 0; k < n; k++)
            free(fresh[k]);
        free(fresh);
        free(gone);
        return r;
    }
    free(fresh);
    struct drain d = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, ngone };
    for (size_t j = 0; j < ngone; j++) {
        if (wait) {
            gone[j]->gone = drained;
            gone[j]->gone_cookie = &d;
        }
        emu_alloc_put(gone[j]);
    }
    free(gone);
    if (wait) {
        pthread_mutex_lock(&d.m);
        while (d.pending)
            pthread_cond_wait(&d.cv, &d.m);
        pthread_mutex_unlock(&d.m);
    }
    pthread_mutex_destroy(&d.m);
    pthread_cond_destroy(&d.cv);
    return CUDA_SUCCESS;
}

static void drop_ctx(struct emu_ctx *ctx)
{
    for (;;) {
        struct emu_alloc *batch[64];
        int n = 0;
        pthread_rwlock_wrlock(&map_lock);
        for (size_t i = 0; i < map_n && n < 64;) {
            if (map[i]->ctx == ctx) {
                batch[n++] = map[i];
                map_remove_at(i);
            } else {
                i++;
            }
        }
        pthread_rwlock_unlock(&map_lock);
        for (int k = 0; k < n; k++) {
            if (batch[k]->gone)
                batch[k]->gone(batch[k]->gone_cookie, 0);
            unaccount(batch[k]);
            emu_alloc_put(batch[k]);
        }
        if (n < 64)
            return;
    }
}

void emu_memory_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_MEMORY, drop_ctx);
}

int emu_mem_stats(int dev, struct emu_mem_stats *st)
{
    struct emu_device *d = emu_device(dev);
    if (!d || !st)
        return -1;
    pthread_mutex_lock(&d->mem_lock);
    st->current = d->used;
    st->peak = d->peak;
    st->count = d->nallocs;
    st->total = d->total_allocs;
    st->total_mem = d->total_mem;
    pthread_mutex_unlock(&d->mem_lock);
    return 0;
}

/* ---- allocation entry points ---------------------------------------- */

static CUresult alloc_in_current(size_t size, int kind, unsigned flags, uintptr_t *out)
{
    struct emu_ctx *c;
    CUresult r = emu_capture_unsafe();
    if (r)
        return r;
    r = emu_ctx_current(&c);
    if (r)
        return r;
    r = emu_mem_alloc(c, size, kind, flags, NULL, out);
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    EMU_INIT_OR_RETURN();
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    CUresult r = alloc_in_current(bytesize, EMU_MEM_DEVICE, 0, &p);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                              size_t Height, unsigned int ElementSizeBytes)
{
    EMU_INIT_OR_RETURN();
    if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
        return CUDA_ERROR_INVALID_VALUE;
    if (WidthInBytes > (size_t)0x7fffffff)
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (WidthInBytes + EMU_PITCH_ALIGN - 1) & ~(size_t)(EMU_PITCH_ALIGN - 1);
    if (Height > ((size_t)-1) / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t p;
    CUresult r = alloc_in_current(pitch * Height, EMU_MEM_DEVICE, 0, &p);
    if (r == CUDA_SUCCESS) {
        *dptr = (CUdeviceptr)p;
        *pPitch = pitch;
    }
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!dptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    CUresult r = alloc_in_current(bytesize, EMU_MEM_MANAGED, flags, &p);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

/* A free of memory that work in flight may use waits for that work, as
 * the driver's cuMemFree and cuMemFreeHost do: every stream of the
 * allocation's context (pool memory excepted: the driver documents that
 * cuMemFree does not synchronise for the stream-ordered allocator). */
static CUresult free_synced(uintptr_t p, unsigned kinds)
{
    CUresult r = emu_capture_unsafe();
    if (r)
        return r;
    struct emu_alloc *a = emu_mem_lookup(p);
    if (!a && emu_gmem_is(p)) { /* a graph's allocation, allocated once the work queued has run */
        struct emu_ctx *c;
        if ((r = emu_ctx_current(&c)))
            return r;
        emu_ctx_sync(c);
        emu_ctx_put(c);
        a = emu_mem_lookup(p);
    }
    if (!a || a->base != p || !(kinds & EMU_MEM_KIND(a->kind))) {
        emu_alloc_put(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!a->pool && a->ctx)
        emu_ctx_sync(a->ctx);
    emu_alloc_put(a);
    emu_gmem_note_free(p); /* a graph's allocation may be allocated again */
    return emu_mem_release(p, kinds);
}

TD_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (dptr == 0)
        return CUDA_SUCCESS;
    return free_synced((uintptr_t)dptr, EMU_MEM_KIND(EMU_MEM_DEVICE) | EMU_MEM_KIND(EMU_MEM_MANAGED));
}

TD_EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    EMU_INIT_OR_RETURN();
    if (!pp || (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                                     CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    CUresult r = alloc_in_current(bytesize, EMU_MEM_HOST, Flags, &p);
    if (r == CUDA_SUCCESS)
        *pp = (void *)p;
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return free_synced((uintptr_t)p, EMU_MEM_KIND(EMU_MEM_HOST));
}

TD_EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct emu_ctx *c;
    CUresult r = emu_capture_unsafe();
    if (r)
        return r;
    r = emu_ctx_current(&c);
    if (r)
        return r;
    if (!p || bytesize == 0 || (uintptr_t)p + bytesize < (uintptr_t)p ||
        (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                             CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (Flags & CU_MEMHOSTREGISTER_IOMEMORY) {
        emu_ctx_put(c);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    struct emu_alloc *a = calloc(1, sizeof *a);
    if (!a) {
        emu_ctx_put(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->base = (uintptr_t)p;
    a->size = bytesize;
    a->kind = EMU_MEM_REGISTERED;
    a->flags = Flags;
    a->ctx = c; /* keeps our reference */
    a->dev = c->dev;
    a->id = atomic_fetch_add(&next_buffer_id, 1);
    atomic_init(&a->refs, 1);
    r = map_insert(a);
    if (r)
        emu_alloc_put(a);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

TD_EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = emu_capture_unsafe()))
        return r;
    if (emu_mem_release((uintptr_t)p, EMU_MEM_KIND(EMU_MEM_REGISTERED)))
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    return CUDA_SUCCESS;
}

static CUresult host_lookup(void *p, struct emu_alloc **out)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)p);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    if (a->kind != EMU_MEM_HOST && a->kind != EMU_MEM_REGISTERED) {
        emu_alloc_put(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *out = a;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    EMU_INIT_OR_RETURN();
    if (!pdptr || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    CUresult r = host_lookup(p, &a);
    if (r)
        return r;
    emu_alloc_put(a);
    *pdptr = (CUdeviceptr)(uintptr_t)p; /* unified addressing: the same address */
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    EMU_INIT_OR_RETURN();
    if (!pFlags)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    CUresult r = host_lookup(p, &a);
    if (r)
        return r;
    *pFlags = a->flags | CU_MEMHOSTALLOC_DEVICEMAP; /* every host allocation is mapped */
    emu_alloc_put(a);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    if (!free_ || !total) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_device *d = c->dev;
    pthread_mutex_lock(&d->mem_lock);
    *free_ = (size_t)(d->total_mem - d->used);
    *total = (size_t)d->total_mem;
    pthread_mutex_unlock(&d->mem_lock);
    emu_ctx_put(c);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)dptr);
    if (!a)
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = (CUdeviceptr)a->base;
    if (psize)
        *psize = a->size;
    emu_alloc_put(a);
    return CUDA_SUCCESS;
}

/* ---- pointer attributes ---------------------------------------------- */

/* One attribute of p (a: its allocation or NULL). strict: error for what
 * does not apply (cuPointerGetAttribute); otherwise the default value. */
static CUresult pointer_attr(void *data, int attr, uintptr_t p, struct emu_alloc *a, int strict)
{
    int host = a && (a->kind == EMU_MEM_HOST || a->kind == EMU_MEM_REGISTERED);
    int devonly = a && (a->kind == EMU_MEM_DEVICE || a->kind == EMU_MEM_GLOBAL || a->kind == EMU_MEM_VMM ||
                        a->kind == EMU_MEM_IPC);
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = a ? (CUcontext)a->ctx : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = !a ? 0 : host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = a ? (CUdeviceptr)p : 0;
        break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (strict && devonly)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = a && !devonly ? (void *)p : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
        *(int *)data = 0;
        break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        *(unsigned long long *)data = a ? a->id : 0;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = a && a->kind == EMU_MEM_MANAGED;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = a ? a->dev->ordinal : -2;
        break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(int *)data = devonly && a->kind != EMU_MEM_VMM; /* VMM memory is shared by handles */
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(void **)data = a ? (void *)a->base : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        *(size_t *)data = a ? a->size : 0;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = a != NULL;
        break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = 0;
        break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(int *)data = !a ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE
                          : (a->flags & CU_MEMHOSTREGISTER_READ_ONLY) && a->kind == EMU_MEM_REGISTERED
                              ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ
                              : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = a && a->pool ? (CUmemoryPool)a->pool : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
        return strict ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    EMU_INIT_OR_RETURN();
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)ptr);
    /* as the driver: one attribute of memory it does not know is an error */
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = pointer_attr(data, (int)attribute, (uintptr_t)ptr, a, 1);
    emu_alloc_put(a);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                                  void **data, CUdeviceptr ptr)
{
    EMU_INIT_OR_RETURN();
    if (numAttributes == 0 || !attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numAttributes; i++)
        if (!data[i])
            return CUDA_ERROR_INVALID_VALUE;
    /* plain host memory gets the default (NULL / 0) values and success */
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)ptr);
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < numAttributes && r == CUDA_SUCCESS; i++)
        r = pointer_attr(data[i], (int)attributes[i], (uintptr_t)ptr, a, 0);
    emu_alloc_put(a);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
                                                 CUdeviceptr ptr)
{
    EMU_INIT_OR_RETURN();
    if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)ptr);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    emu_alloc_put(a);
    return CUDA_SUCCESS; /* every copy is synchronous with respect to memory here */
}

/* ---- hints for managed memory --------------------------------------- */

static CUresult managed_range(CUdeviceptr p, size_t count)
{
    if (count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    CUresult r = emu_mem_find((uintptr_t)p, count, &a);
    if (r)
        return r;
    r = a->kind == EMU_MEM_MANAGED ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    emu_alloc_put(a);
    return r;
}

static CUresult check_location(CUmemLocation loc)
{
    switch ((int)loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return emu_device(loc.id) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    case CU_MEM_LOCATION_TYPE_HOST: case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult prefetch(CUdeviceptr p, size_t count, CUmemLocation loc, unsigned flags,
                         CUstream h, int ptds)
{
    EMU_INIT_OR_RETURN();
    CUresult r = check_location(loc);
    if (r)
        return r;
    if (flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_stream *s;
    if ((r = emu_stream_resolve(h, ptds, &s)))
        return r;
    emu_stream_put(s);
    return managed_range(p, count); /* a hint: all memory is host memory already */
}

/* Attaching managed memory to a stream: checked as documented (managed
 * memory: an allocation of cuMemAllocManaged, whole, or a __managed__
 * variable; pageable memory only where the device reports
 * CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, which no profile does; flags
 * one of CUmemAttach_flags; never singly to the NULL stream). The
 * association changes nothing here: all memory is host memory that the
 * host and every stream reach at any time, as on a device with concurrent
 * managed access, so there is nothing to queue. */
static CUresult attach(CUstream h, CUdeviceptr p, size_t length, unsigned flags, int ptds)
{
    EMU_INIT_OR_RETURN();
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags == CU_MEM_ATTACH_SINGLE && (h == NULL || h == CU_STREAM_LEGACY) && !ptds)
        return CUDA_ERROR_INVALID_VALUE; /* the NULL stream is no one stream */
    struct emu_stream *s;
    CUresult r = emu_stream_resolve(h, ptds, &s);
    if (r)
        return r;
    emu_stream_put(s);
    struct emu_alloc *a = emu_mem_lookup((uintptr_t)p);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE; /* pageable memory: no profile has pageable memory access */
    int managed = a->kind == EMU_MEM_MANAGED || (a->kind == EMU_MEM_GLOBAL && (a->flags & EMU_ALLOC_MANAGED_VAR));
    int whole = length == 0 || ((uintptr_t)p == a->base && length == a->size);
    emu_alloc_put(a);
    return managed && whole ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

TD_EXPORT CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                                  unsigned int flags)
{
    return attach(hStream, dptr, length, flags, 0);
}

TD_EXPORT CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length,
                                                       unsigned int flags)
{
    return attach(hStream, dptr, length, flags, 1);
}

static CUmemLocation loc_of_device(CUdevice d)
{
    CUmemLocation l;
    l.type = d == CU_DEVICE_CPU ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
    l.id = d == CU_DEVICE_CPU ? 0 : d;
    return l;
}

TD_EXPORT CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
    return prefetch(devPtr, count, loc_of_device(dstDevice), 0, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream)
{
    return prefetch(devPtr, count, loc_of_device(dstDevice), 0, hStream, 1);
}

TD_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                                 unsigned int flags, CUstream hStream)
{
    return prefetch(devPtr, count, location, flags, hStream, 0);
}

TD_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                                      unsigned int flags, CUstream hStream)
{
    return prefetch(devPtr, count, location, flags, hStream, 1);
}

static CUresult advise(CUdeviceptr p, size_t count, int advice, CUmemLocation loc)
{
    EMU_INIT_OR_RETURN();
    if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    if (advice != CU_MEM_ADVISE_SET_READ_MOSTLY && advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY) {
        CUresult r = check_location(loc);
        if (r)
            return r;
    }
    return managed_range(p, count);
}

TD_EXPORT CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
    return advise(devPtr, count, (int)advice, loc_of_device(device));
}

TD_EXPORT CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                          CUmemLocation location)
{
    return advise(devPtr, count, (int)advice, location);
}

/* ---- pools' accounting (the pools themselves: pool.c) ----------------- */
void emu_pool_account(struct emu_pool *p, long long delta)
{
    pthread_mutex_lock(&p->lock);
    p->used += (unsigned long long)delta;
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->used > p->reserved_high)
        p->reserved_high = p->used;
    pthread_mutex_unlock(&p->lock);
}
