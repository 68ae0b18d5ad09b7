/* SPDX-License-Identifier: Apache-2.0 */
/* The handle registry: every live handle, hashed by its address. A handle
 * is dereferenced only after it is found here. */
#include "emu.h"

#include <stdlib.h>

#define NBUCKETS 4096

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_obj *buckets[NBUCKETS];

static unsigned bucket_of(const void *h)
{
    uintptr_t x = (uintptr_t)h;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ULL;
    return (unsigned)(x >> 40) % NBUCKETS;
}

void emu_obj_init(struct emu_obj *o, int type, struct emu_ctx *ctx,
                  void (*release)(struct emu_obj *))
{
    o->hnext = NULL;
    o->type = type;
    o->registered = 0;
    atomic_init(&o->refs, 1);
    o->ctx = ctx;
    o->release = release;
}

void emu_obj_register(struct emu_obj *o)
{
    unsigned b = bucket_of(o);
    pthread_mutex_lock(&reg_lock);
    o->hnext = buckets[b];
    buckets[b] = o;
    o->registered = 1;
    pthread_mutex_unlock(&reg_lock);
}

void *emu_obj_get(const void *h, int type)
{
    if (!h)
        return NULL;
    unsigned b = bucket_of(h);
    struct emu_obj *found = NULL;
    pthread_mutex_lock(&reg_lock);
    for (struct emu_obj *o = buckets[b]; o; o = o->hnext) {
        if ((const void *)o == h) {
            if (o->type == type) {
                atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
                found = o;
            }
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return found;
}

void emu_obj_ref(struct emu_obj *o)
{
    atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}

void emu_obj_put(struct emu_obj *o)
{
    if (!o)
        return;
    if (atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1 && o->release)
        o->release(o);
}

static int unlink_locked(struct emu_obj *o)
{
    if (!o->registered)
        return 0;
    struct emu_obj **pp = &buckets[bucket_of(o)];
    while (*pp && *pp != o)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = o->hnext;
    o->hnext = NULL;
    o->registered = 0;
    return 1;
}

int emu_obj_unregister(struct emu_obj *o)
{
    pthread_mutex_lock(&reg_lock);
    int r = unlink_locked(o);
    pthread_mutex_unlock(&reg_lock);
    return r;
}

void emu_obj_drop_ctx(struct emu_ctx *ctx, int type, void (*fn)(struct emu_obj *))
{
    struct emu_obj *list = NULL;
    pthread_mutex_lock(&reg_lock);
    for (unsigned b = 0; b < NBUCKETS; b++) {
        struct emu_obj **pp = &buckets[b];
        while (*pp) {
            struct emu_obj *o = *pp;
            if (o->ctx == ctx && o->type == type) {
                *pp = o->hnext;
                o->registered = 0;
                o->hnext = list;
                list = o;
            } else {
                pp = &o->hnext;
            }
        }
    }
    pthread_mutex_unlock(&reg_lock);
    while (list) {
        struct emu_obj *o = list;
        list = o->hnext;
        o->hnext = NULL;
        fn(o);
    }
}
