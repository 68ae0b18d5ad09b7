/* SPDX-License-Identifier: Apache-2.0 */
/* User objects (cuUserObjectCreate/Retain/Release): a count of references
 * the program, graphs and executable graphs hold, and when it reaches
 * zero the destructor, run on one thread of its own in the order the
 * objects died (never under a lock of the caller's, as the driver
 * promises). graph.c's cuGraphRetainUserObject and executable graphs hold
 * them through emu_uobj_hold/unhold. */
#include "graph.h"

#include <pthread.h>
#include <stdlib.h>


struct emu_uobj {
    struct emu_obj o;           /* EMU_T_UOBJ */
    pthread_mutex_t lock;
    unsigned long long count;   /* the references of the program, graphs, executables */
    void *ptr;
    CUhostFn destroy;
    struct emu_uobj *dnext;     /* on the destructor queue */
};

/* destructors run on one thread of their own, in the order they came */
static pthread_mutex_t dq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dq_cv = PTHREAD_COND_INITIALIZER;
static struct emu_uobj *dq_head, *dq_tail;
static int dq_thread;

static void *destructor_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&dq_lock);
    for (;;) {
        while (!dq_head)
            pthread_cond_wait(&dq_cv, &dq_lock);
        struct emu_uobj *u = dq_head;
        dq_head = u->dnext;
        if (!dq_head)
            dq_tail = NULL;
        pthread_mutex_unlock(&dq_lock);
        u->destroy(u->ptr);
        emu_obj_put(&u->o);
        pthread_mutex_lock(&dq_lock);
    }
    return NULL;
}

static void uobj_release_obj(struct emu_obj *o)
{
    struct emu_uobj *u = (struct emu_uobj *)o;
    pthread_mutex_destroy(&u->lock);
    free(u);
}

/* the count reached zero: the handle goes, the destructor is queued; the
 * handle's reference becomes the queue's (the destructor's run drops it),
 * so a holder's put cannot free the object while it waits there */
static void uobj_dead(struct emu_uobj *u)
{
    if (!emu_obj_unregister(&u->o))
        emu_obj_ref(&u->o);
    pthread_mutex_lock(&dq_lock);
    if (!dq_thread) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, destructor_main, NULL) == 0)
            dq_thread = 1;
        pthread_attr_destroy(&a);
    }
    if (dq_thread) {
        u->dnext = NULL;
        if (dq_tail)
            dq_tail->dnext = u;
        else
            dq_head = u;
        dq_tail = u;
        pthread_cond_signal(&dq_cv);
        u = NULL;
    }
    pthread_mutex_unlock(&dq_lock);
    if (u) { /* no thread to be had: here, with no lock held */
        u->destroy(u->ptr);
        emu_obj_put(&u->o);
    }
}

void emu_uobj_retain(struct emu_uobj *u, unsigned count)
{
    pthread_mutex_lock(&u->lock);
    u->count += count;
    pthread_mutex_unlock(&u->lock);
}

void emu_uobj_release(struct emu_uobj *u, unsigned count)
{
    pthread_mutex_lock(&u->lock);
    int dead = u->count > 0 && count >= u->count;
    u->count = dead ? 0 : u->count - count;
    pthread_mutex_unlock(&u->lock);
    if (dead)
        uobj_dead(u);
}

void emu_uobj_hold(struct emu_uobj *u, unsigned count)
{
    emu_obj_ref(&u->o);
    emu_uobj_retain(u, count);
}

void emu_uobj_unhold(struct emu_uobj *u, unsigned count)
{
    emu_uobj_release(u, count);
    emu_obj_put(&u->o);
}

TD_EXPORT CUresult CUDAAPI cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy,
                                              unsigned int initialRefcount, unsigned int flags)
{
    EMU_INIT_OR_RETURN();
    if (!object_out || !destroy || initialRefcount == 0 || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_uobj *u = calloc(1, sizeof *u);
    if (!u)
        return CUDA_ERROR_OUT_OF_MEMORY;
    emu_obj_init(&u->o, EMU_T_UOBJ, NULL, uobj_release_obj);
    pthread_mutex_init(&u->lock, NULL);
    u->count = initialRefcount;
    u->ptr = ptr;
    u->destroy = destroy;
    emu_obj_register(&u->o);
    *object_out = (CUuserObject)u;
    return CUDA_SUCCESS;
}

struct emu_uobj *emu_uobj_get(CUuserObject h)
{
    return emu_obj_get(h, EMU_T_UOBJ);
}

void emu_uobj_ref(struct emu_uobj *u)
{
    emu_obj_ref(&u->o);
}

void emu_uobj_put(struct emu_uobj *u)
{
    emu_obj_put(&u->o);
}

TD_EXPORT CUresult CUDAAPI cuUserObjectRetain(CUuserObject object, unsigned int count)
{
    EMU_INIT_OR_RETURN();
    struct emu_uobj *u = emu_uobj_get(object);
    if (!u || count == 0) {
        if (u)
            emu_obj_put(&u->o);
        return CUDA_ERROR_INVALID_VALUE;
    }
    emu_uobj_retain(u, count);
    emu_obj_put(&u->o);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuUserObjectRelease(CUuserObject object, unsigned int count)
{
    EMU_INIT_OR_RETURN();
    struct emu_uobj *u = emu_uobj_get(object);
    if (!u || count == 0) {
        if (u)
            emu_obj_put(&u->o);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* more than there are would free it under the graphs holding it */
    pthread_mutex_lock(&u->lock);
    int ok = count <= u->count;
    pthread_mutex_unlock(&u->lock);
    if (ok)
        emu_uobj_release(u, count);
    emu_obj_put(&u->o);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

