/* SPDX-License-Identifier: Apache-2.0 */
/* The live handles of a library: an open-addressing hash set of (pointer,
 * kind) under one lock. Handles are few; lookups are a hash and a compare. */
#include "hostlib.h"

#include <pthread.h>
#include <stdlib.h>

struct slot { const void *h; int kind; };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *tab;
static size_t cap, used, dead;   /* used: live entries; dead: tombstones */
#define TOMB ((const void *)1)

static size_t hash(const void *h)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* index of h, or of the slot where it would go (lock held, cap > 0) */
static size_t find(const void *h, int *found)
{
    size_t i = hash(h) & (cap - 1), spot = (size_t)-1;
    for (;; i = (i + 1) & (cap - 1)) {
        if (!tab[i].h) {
            *found = 0;
            return spot != (size_t)-1 ? spot : i;
        }
        if (tab[i].h == TOMB) {
            if (spot == (size_t)-1)
                spot = i;
        } else if (tab[i].h == h) {
            *found = 1;
            return i;
        }
    }
}

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 64;
    struct slot *n = calloc(ncap, sizeof *n), *old = tab;
    if (!n)
        return -1;
    size_t ocap = cap;
    tab = n;
    cap = ncap;
    dead = 0;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].h && old[i].h != TOMB) {
            int f;
            tab[find(old[i].h, &f)] = old[i];
        }
    }
    free(old);
    return 0;
}

int hl_handle_add(const void *h, int kind)
{
    int r = 0, f;
    pthread_mutex_lock(&lock);
    if ((used + dead + 1) * 2 > cap && grow())
        r = -1;
    if (r == 0) {
        size_t i = find(h, &f);
        if (!f) {
            if (tab[i].h == TOMB)
                dead--;
            used++;
        }
        tab[i].h = h;
        tab[i].kind = kind;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

int hl_handle_live(const void *h, int kind)
{
    int f = 0;
    if (!h || h == TOMB)
        return 0;
    pthread_mutex_lock(&lock);
    if (cap) {
        size_t i = find(h, &f);
        f = f && tab[i].kind == kind;
    }
    pthread_mutex_unlock(&lock);
    return f;
}

int hl_handle_remove(const void *h, int kind)
{
    int f = 0;
    if (!h || h == TOMB)
        return 0;
    pthread_mutex_lock(&lock);
    if (cap) {
        size_t i = find(h, &f);
        f = f && tab[i].kind == kind;
        if (f) {
            tab[i].h = TOMB;
            used--;
            dead++;
        }
    }
    pthread_mutex_unlock(&lock);
    return f;
}

void *hl_handle_new(size_t size, int kind)
{
    void *h = calloc(1, size);
    if (h && hl_handle_add(h, kind)) {
        free(h);
        h = NULL;
    }
    return h;
}

int hl_handle_free(void *h, int kind)
{
    if (!hl_handle_remove(h, kind))
        return 0;
    free(h);
    return 1;
}
