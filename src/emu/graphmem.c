/* SPDX-License-Identifier: Apache-2.0 */
/* The memory of graph allocation nodes. Each allocation node reserves its
 * address range when it is made (an untouched, lazily backed mapping):
 * the address stays the same for every launch, as the driver's does. The
 * range is usable (in the address map) from the node's run until it is
 * freed. Memory that has run counts in the device's graph memory
 * footprint (CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) until cuDeviceGraphMemTrim
 * gives back the pages of allocations not in use, or the node and every
 * executable graph made with it are gone.
 *
 * Unlike the driver, allocations of different graphs never share physical
 * memory: the footprint is the sum of the allocations that have run since
 * the last trim, not the most that were in use at once. Memory counts
 * from the launch that will allocate it (the driver reserves it then). */
#include "graph.h"

#include <stdlib.h>
#include <sys/mman.h>

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER; /* the list and the counters */
static struct gmem *all;
static atomic_int nall;          /* how many: lookups skip the lock when there are none */
static unsigned long long used[EMU_MAX_DEVICES], used_high[EMU_MAX_DEVICES];

static void footprint(struct emu_device *d, long long delta)
{
    int i = d->ordinal;
    if (i < 0 || i >= EMU_MAX_DEVICES)
        return;
    used[i] += (unsigned long long)delta;
    if (used[i] > used_high[i])
        used_high[i] = used[i];
}

CUresult emu_gmem_new(struct emu_device *dev, size_t size, struct gmem **out)
{
    if (size == 0 || size > ((size_t)1 << 46))
        return CUDA_ERROR_INVALID_VALUE;
    struct gmem *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->maplen = (size + 4095) & ~(size_t)4095;
    void *p = mmap(NULL, m->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    atomic_init(&m->refs, 1);
    m->dev = dev;
    m->va = (uintptr_t)p;
    m->size = size;
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_lock(&list_lock);
    m->next = all;
    all = m;
    atomic_fetch_add(&nall, 1);
    pthread_mutex_unlock(&list_lock);
    *out = m;
    return CUDA_SUCCESS;
}

void emu_gmem_ref(struct gmem *m)
{
    atomic_fetch_add(&m->refs, 1);
}

void emu_gmem_put(struct gmem *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    pthread_mutex_lock(&list_lock);
    for (struct gmem **pp = &all; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            atomic_fetch_sub(&nall, 1);
            break;
        }
    if (m->backed)
        footprint(m->dev, -(long long)m->size);
    pthread_mutex_unlock(&list_lock);
    munmap((void *)m->va, m->maplen);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

struct gmem *emu_gmem_find(uintptr_t p)
{
    pthread_mutex_lock(&list_lock);
    struct gmem *m = all;
    while (m && m->va != p)
        m = m->next;
    if (m)
        emu_gmem_ref(m);
    pthread_mutex_unlock(&list_lock);
    return m;
}

struct gmem *emu_gmem_covering(uintptr_t p, size_t len)
{
    if (!atomic_load_explicit(&nall, memory_order_acquire))
        return NULL;
    pthread_mutex_lock(&list_lock);
    struct gmem *m = all;
    while (m && !(p >= m->va && p - m->va < m->size && len <= m->size - (p - m->va)))
        m = m->next;
    if (m)
        emu_gmem_ref(m);
    pthread_mutex_unlock(&list_lock);
    return m;
}

int emu_gmem_is(uintptr_t p)
{
    if (!atomic_load_explicit(&nall, memory_order_acquire))
        return 0;
    struct gmem *m = emu_gmem_find(p);
    emu_gmem_put(m);
    return m != NULL;
}

int emu_gmem_alloced(struct gmem *m)
{
    pthread_mutex_lock(&list_lock);
    pthread_mutex_lock(&m->lock);
    int was = m->live;
    if (!was) {
        m->live = 1;
        emu_gmem_ref(m); /* the live allocation's */
        if (!m->backed) {
            m->backed = 1;
            footprint(m->dev, (long long)m->size);
        }
    }
    pthread_mutex_unlock(&m->lock);
    pthread_mutex_unlock(&list_lock);
    return was ? -1 : 0;
}

void emu_gmem_freed(struct gmem *m)
{
    pthread_mutex_lock(&m->lock);
    m->live = 0;
    pthread_mutex_unlock(&m->lock);
}

void emu_gmem_launched(struct gmem *m)
{
    pthread_mutex_lock(&list_lock);
    pthread_mutex_lock(&m->lock);
    m->inflight++;
    if (!m->backed) {
        m->backed = 1;
        footprint(m->dev, (long long)m->size);
    }
    pthread_mutex_unlock(&m->lock);
    pthread_mutex_unlock(&list_lock);
}

void emu_gmem_landed(struct gmem *m)
{
    pthread_mutex_lock(&m->lock);
    m->inflight--;
    pthread_mutex_unlock(&m->lock);
}

int emu_gmem_is_live(struct gmem *m)
{
    pthread_mutex_lock(&m->lock);
    int l = m->live;
    pthread_mutex_unlock(&m->lock);
    return l;
}

int emu_gmem_pending(struct gmem *m)
{
    pthread_mutex_lock(&m->lock);
    int p = m->pending;
    pthread_mutex_unlock(&m->lock);
    return p;
}

void emu_gmem_set_pending(struct gmem *m, int allocated)
{
    pthread_mutex_lock(&m->lock);
    m->pending = allocated;
    pthread_mutex_unlock(&m->lock);
}

void emu_gmem_note_free(uintptr_t p)
{
    struct gmem *m = emu_gmem_find(p);
    if (m) {
        emu_gmem_set_pending(m, 0);
        emu_gmem_put(m);
    }
}

/* ---- entry points -------------------------------------------------------- */

TD_EXPORT CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&list_lock);
    for (struct gmem *m = all; m; m = m->next) {
        if (m->dev != d)
            continue;
        pthread_mutex_lock(&m->lock);
        if (m->backed && !m->live && !m->inflight && !m->pending) {
            /* the pages go back to the system; the address stays reserved */
            madvise((void *)m->va, m->maplen, MADV_DONTNEED);
            m->backed = 0;
            footprint(d, -(long long)m->size);
        }
        pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_unlock(&list_lock);
    return CUDA_SUCCESS;
}

/* The allocator's memory is the memory in use: the two pairs of
 * attributes read the same counters. */
TD_EXPORT CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&list_lock);
    switch ((int)attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
        *(cuuint64_t *)value = used[d->ordinal];
        break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
        *(cuuint64_t *)value = used_high[d->ordinal];
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
        break;
    }
    pthread_mutex_unlock(&list_lock);
    return r;
}

/* Only the high watermarks can be set, and only to 0: back to the
 * current value. */
TD_EXPORT CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    EMU_INIT_OR_RETURN();
    struct emu_device *d = emu_device(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value || (attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) ||
        *(cuuint64_t *)value != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&list_lock);
    used_high[d->ordinal] = used[d->ordinal];
    pthread_mutex_unlock(&list_lock);
    return CUDA_SUCCESS;
}
