/* SPDX-License-Identifier: Apache-2.0 */
/* The printer thread. The main thread (the tracer loop) copies each
 * checked record out of its ring into a chunk of memory and hands full
 * chunks to this thread, which decodes and prints them in order; exit
 * lines travel the same way, so they follow their process's records.
 * The queue is bounded (TD_PRINTER_MAX, 128 MiB): past it, the reader pauses
 * and lossless writers wait, as they would for a full ring. Anything the
 * main thread prints itself (GPU ioctl lines) comes after td_printer_sync,
 * when this thread is idle. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "printer.h"

#define CHUNK (64u << 10)   /* under malloc's mmap threshold */
#define TD_PRINTER_MAX (128u << 20)

struct chunk {
    struct chunk *next;
    size_t used;
    _Alignas(8) unsigned char data[CHUNK];
};

static pthread_t thread;
static int running;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static struct chunk *head, *tail;   /* handed over, not yet printed (lock) */
static size_t queued;               /* bytes handed over and not printed (lock) */
static unsigned long long handed, printed; /* chunks (lock) */
static int stopping;                /* (lock) */
static struct chunk *cur;           /* being filled: the main thread's alone */
static struct chunk *spare;         /* printed chunks kept for reuse (lock) */
static int nspare;                  /* (lock) */
static void (*handler)(const struct td_pev *ev, const void *data);

static void *main_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!head && !stopping)
            pthread_cond_wait(&work, &lock);
        struct chunk *c = head;
        if (!c)
            break; /* stopping, nothing left */
        head = c->next;
        if (!head)
            tail = NULL;
        pthread_mutex_unlock(&lock);
        for (size_t off = 0; off < c->used;) {
            const struct td_pev *ev = (const struct td_pev *)(c->data + off);
            handler(ev, ev + 1);
            off += sizeof(*ev) + ((ev->len + 7u) & ~7u);
        }
        pthread_mutex_lock(&lock);
        queued -= c->used;
        printed++;
        if (nspare < 64) { /* reuse, rather than give back to the system and fault in again */
            c->next = spare;
            spare = c;
            nspare++;
        } else {
            free(c);
        }
        pthread_cond_broadcast(&done);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

void td_printer_start(void (*handle)(const struct td_pev *ev, const void *data))
{
    handler = handle;
    if (pthread_create(&thread, NULL, main_loop, NULL) != 0)
        die("cannot start the printer thread");
    running = 1;
}

static void hand_over(void)
{
    if (!cur || !cur->used)
        return;
    pthread_mutex_lock(&lock);
    if (tail)
        tail->next = cur;
    else
        head = cur;
    tail = cur;
    queued += cur->used;
    handed++;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    cur = NULL;
}

static void put(uint32_t kind, pid_t pid, int status, const void *data, uint32_t len)
{
    size_t need = sizeof(struct td_pev) + ((len + 7u) & ~7u);
    if (cur && cur->used + need > CHUNK)
        hand_over();
    if (!cur) {
        pthread_mutex_lock(&lock);
        if ((cur = spare) != NULL) {
            spare = cur->next;
            nspare--;
        }
        pthread_mutex_unlock(&lock);
        if (!cur && !(cur = malloc(sizeof(*cur))))
            die("out of memory");
        cur->next = NULL;
        cur->used = 0;
    }
    struct td_pev *ev = (struct td_pev *)(cur->data + cur->used);
    ev->kind = kind;
    ev->len = len;
    ev->pid = (int32_t)pid;
    ev->status = status;
    if (len)
        memcpy(ev + 1, data, len);
    cur->used += need;
}

void td_printer_flush(void)
{
    hand_over();
}

void td_printer_record(pid_t pid, const struct td_rec *rec, uint32_t len)
{
    put(TD_PEV_RECORD, pid, 0, rec, len);
}

void td_printer_fork(pid_t parent, pid_t child)
{
    put(TD_PEV_FORK, parent, (int)child, NULL, 0);
}

void td_printer_exec(pid_t pid, const char *path)
{
    put(TD_PEV_EXEC, pid, 0, path, (uint32_t)strlen(path) + 1);
}

void td_printer_exit(pid_t pid, int status)
{
    put(TD_PEV_EXIT, pid, status, NULL, 0);
    hand_over(); /* an exit line is worth printing now */
}

int td_printer_behind(void)
{
    hand_over();
    pthread_mutex_lock(&lock);
    int behind = queued > TD_PRINTER_MAX;
    if (behind) { /* give it a moment, without holding the loop long */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&done, &lock, &ts);
        behind = queued > TD_PRINTER_MAX;
    }
    pthread_mutex_unlock(&lock);
    return behind;
}

void td_printer_sync(void)
{
    if (running)
        put(TD_PEV_SYNC, 0, 0, NULL, 0); /* what the printer holds back goes out too */
    hand_over();
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    while (printed != handed)
        pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
}

void td_printer_stop(void)
{
    if (!running)
        return;
    hand_over();
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    running = 0;
    while (spare) {
        struct chunk *c = spare;
        spare = c->next;
        free(c);
    }
    nspare = 0;
}
