/* SPDX-License-Identifier: Apache-2.0 */
/* IPC memory handles: device memory one process exports
 * (cuIpcGetMemHandle) and another maps (cuIpcOpenMemHandle), as NCCL,
 * PyTorch's multiprocessing and MPI libraries do.
 *
 * Each process emulates its own devices in its own memory, so the memory
 * must become shared: on its first export a cuMemAlloc allocation moves
 * into a memfd (its context's work finished first, the contents copied,
 * the memfd mapped over the same addresses: its pointer does not change),
 * which stays open in the exporter. The handle names the exporter's pid,
 * that descriptor and a random nonce that is also the memfd's name; the
 * importer opens /proc/PID/fd/N (allowed to a process that may read the
 * exporter's /proc, as for any process of the same user), checks that it
 * is that memfd, and maps it. Only allocations the emulator mmaps (1 MiB
 * and more) can move; smaller ones are CUDA_ERROR_NOT_SUPPORTED, said on
 * the report. Imported memory is counted against the importer's device
 * too (each process's emulated device counts what it maps).
 *
 * Event handles name an interprocess event's shared page of record counts
 * (event.c) the same way; the importer maps it under an event of its own. */
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define IPC_MAGIC "tdIPCm1"
#define IPC_EVENT_MAGIC "tdIPCe1"
#define IPC_MAX_SIZE ((uint64_t)1 << 46)

/* what a CUipcMemHandle holds (64 bytes) */
struct ipc_wire {
    char magic[8];
    int32_t pid;
    int32_t fd;
    uint64_t nonce;
    uint64_t size;   /* the allocation's size */
    uint64_t maplen; /* the memfd's size */
    int32_t device;  /* the exporter's device */
    uint32_t zero;
};
_Static_assert(sizeof(struct ipc_wire) <= sizeof(CUipcMemHandle), "the handle holds the wire form");

/* an export (in the exporter) or an import (in the importer) */
struct ipc_ent {
    struct ipc_ent *next;
    int imported;
    int fd;         /* export: the memfd */
    pid_t pid;      /* import: the exporter */
    uint64_t nonce;
    uintptr_t base;
    size_t size, maplen;
    int device;
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ipc_ent *ents;

static void unlink_ent(struct ipc_ent *e)
{
    for (struct ipc_ent **p = &ents; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

/* memory.c: the allocation left the map (0), its memory is released (1) */
static void export_gone(void *cookie, int final)
{
    struct ipc_ent *e = cookie;
    if (!final)
        return;
    pthread_mutex_lock(&lock);
    unlink_ent(e);
    pthread_mutex_unlock(&lock);
    close(e->fd);
    free(e);
}

static void import_gone(void *cookie, int final)
{
    struct ipc_ent *e = cookie;
    if (!final)
        return;
    munmap((void *)e->base, e->maplen);
    free(e);
}

/* copies the allocation into a new memfd and maps that over it: the
 * export's entry, listed (lock held; the caller waited for the context's
 * work before taking it) */
static CUresult make_shared(struct emu_alloc *a, struct ipc_ent **out)
{
    struct ipc_ent *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (getrandom(&e->nonce, sizeof e->nonce, 0) != (ssize_t)sizeof e->nonce) {
        free(e);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    char name[64];
    emu_ipc_name(name, sizeof name, EMU_IPC_MEMORY, e->nonce);
    e->fd = memfd_create(name, MFD_CLOEXEC);
    if (e->fd < 0 || ftruncate(e->fd, (off_t)a->maplen) != 0) {
        if (e->fd >= 0)
            close(e->fd);
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* pages that hold only zeros stay holes in the memfd */
    static const unsigned char zero[4096];
    const unsigned char *src = a->mem;
    for (size_t off = 0; off < a->maplen; off += 4096) {
        if (memcmp(src + off, zero, 4096) == 0)
            continue;
        if (pwrite(e->fd, src + off, 4096, (off_t)off) != 4096) {
            close(e->fd);
            free(e);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (mmap(a->mem, a->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, e->fd, 0) == MAP_FAILED) {
        close(e->fd);
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    e->base = a->base;
    e->size = a->size;
    e->maplen = a->maplen;
    e->device = a->dev->ordinal;
    a->gone_cookie = e;
    a->gone = export_gone;
    e->next = ents;
    ents = e;
    *out = e;
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_alloc *a;
    if (emu_mem_find((uintptr_t)dptr, 0, &a) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    /* cuMemAlloc memory only: not managed, host, pool or graph memory */
    if (a->kind != EMU_MEM_DEVICE || a->pool || (a->gone && a->gone != export_gone)) {
        emu_alloc_put(a);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!a->maplen) {
        emu_reportf("tdtrace-emu: cuIpcGetMemHandle: a %zu-byte allocation: only allocations of 1 MiB and more are "
               "in memory another process can map (CUDA_ERROR_NOT_SUPPORTED)\n", a->size);
        emu_alloc_put(a);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* the work queued so far finishes before the copy; waited for without
     * the lock, which a stream's free of an exported allocation takes */
    if (a->gone != export_gone)
        emu_ctx_sync(a->ctx);
    pthread_mutex_lock(&lock);
    struct ipc_ent *e = a->gone == export_gone ? a->gone_cookie : NULL;
    if (!e)
        r = make_shared(a, &e);
    struct ipc_wire w = { .magic = IPC_MAGIC };
    if (r == CUDA_SUCCESS) {
        w.pid = (int32_t)getpid();
        w.fd = e->fd;
        w.nonce = e->nonce;
        w.size = e->size;
        w.maplen = e->maplen;
        w.device = e->device;
    }
    pthread_mutex_unlock(&lock);
    emu_alloc_put(a);
    if (r == CUDA_SUCCESS) {
        memset(pHandle, 0, sizeof *pHandle);
        memcpy(pHandle->reserved, &w, sizeof w);
    }
    return r;
}

/* whether the descriptor at path (a /proc/.../fd/N link) is the memfd
 * of that kind named after nonce */
static int is_export(const char *path, int what, uint64_t nonce)
{
    char link[128], want[96], name[64];
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    emu_ipc_name(name, sizeof name, what, nonce);
    snprintf(want, sizeof want, "/memfd:%s (deleted)", name);
    return strcmp(link, want) == 0;
}

/* the exporter's memfd, checked to be the one the handle names before it
 * is opened (nothing else of the other process is opened) and after */
static int open_exported(const struct ipc_wire *w, int what, CUresult *why)
{
    const char *fn = what == EMU_IPC_EVENT ? "cuIpcOpenEventHandle" : "cuIpcOpenMemHandle";
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
    int named = is_export(path, what, w->nonce);
    int fd = named ? open(path, O_RDWR | O_CLOEXEC | O_NOCTTY) : -1;
    if (named && fd < 0) {
        int err = errno;
        emu_reportf("tdtrace-emu: %s: the exporting process %d's export cannot be opened (%s): it has ended, freed "
               "it, or is not this user's (CUDA_ERROR_INVALID_HANDLE)\n", fn, (int)w->pid, strerror(err));
        *why = CUDA_ERROR_INVALID_HANDLE;
        return -1;
    }
    struct stat st;
    if (fd >= 0)
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (fd < 0 || !is_export(path, what, w->nonce) || fstat(fd, &st) != 0 || (uint64_t)st.st_size != w->maplen) {
        emu_reportf("tdtrace-emu: %s: process %d's descriptor %d is not what the handle names (freed since, the "
               "process has ended, or it is not this user's: CUDA_ERROR_INVALID_HANDLE)\n", fn, (int)w->pid,
               (int)w->fd);
        if (fd >= 0)
            close(fd);
        *why = CUDA_ERROR_INVALID_HANDLE;
        return -1;
    }
    return fd;
}

/* the export the handle names, mapped (its maplen bytes); MAP_FAILED with *why */
static void *map_exported(const struct ipc_wire *w, int what, CUresult *why)
{
    int fd = open_exported(w, what, why);
    if (fd < 0)
        return MAP_FAILED;
    void *m = mmap(NULL, w->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        *why = CUDA_ERROR_OUT_OF_MEMORY;
    return m;
}

TD_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct ipc_wire w;
    memcpy(&w, handle.reserved, sizeof w);
    if (!pdptr || (Flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
        memcmp(w.magic, IPC_MAGIC, sizeof w.magic) != 0 || w.pid <= 0 || w.fd < 0 || w.zero ||
        w.size == 0 || w.size > w.maplen || w.maplen > IPC_MAX_SIZE || w.maplen % 4096) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (w.pid == getpid()) { /* as the driver: not in the process that exported it */
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    pthread_mutex_lock(&lock);
    for (struct ipc_ent *e = ents; e && r == CUDA_SUCCESS; e = e->next)
        if (e->imported && e->pid == w.pid && e->nonce == w.nonce)
            r = CUDA_ERROR_ALREADY_MAPPED; /* once per process */
    struct ipc_ent *e = NULL;
    void *m = r == CUDA_SUCCESS ? map_exported(&w, EMU_IPC_MEMORY, &r) : MAP_FAILED;
    if (r == CUDA_SUCCESS && !(e = calloc(1, sizeof *e)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        *e = (struct ipc_ent){ .imported = 1, .fd = -1, .pid = w.pid, .nonce = w.nonce, .base = (uintptr_t)m,
                               .size = w.size, .maplen = w.maplen, .device = w.device };
        r = emu_mem_adopt(c, e->base, e->size, EMU_MEM_IPC, import_gone, e);
        if (r == CUDA_SUCCESS) {
            e->next = ents;
            ents = e;
            *pdptr = (CUdeviceptr)e->base;
            m = MAP_FAILED; /* the map holds it */
            e = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    if (m != MAP_FAILED)
        munmap(m, w.maplen);
    free(e);
    emu_ctx_put(c);
    return r;
}

TD_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    return cuIpcOpenMemHandle_v2(pdptr, handle, Flags);
}

TD_EXPORT CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    pthread_mutex_lock(&lock);
    struct ipc_ent *e = ents;
    while (e && !(e->imported && e->base == (uintptr_t)dptr))
        e = e->next;
    if (e)
        unlink_ent(e);
    pthread_mutex_unlock(&lock);
    if (!e)
        return CUDA_ERROR_INVALID_VALUE;
    /* kernels still running keep it mapped (memory.c's deferred release) */
    return emu_mem_release(e->base, 1u << EMU_MEM_IPC);
}

TD_EXPORT CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    CUresult r = emu_ctx_require();
    if (r)
        return r;
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    struct ipc_wire w = { .magic = IPC_EVENT_MAGIC };
    int fd;
    r = emu_event_ipc_export(event, &fd, &w.nonce);
    if (r)
        return r;
    w.pid = (int32_t)getpid();
    w.fd = fd;
    w.size = w.maplen = EMU_IPC_SYNC_BYTES;
    w.device = -1;
    _Static_assert(sizeof(struct ipc_wire) <= sizeof(pHandle->reserved), "the handle holds the wire form");
    memset(pHandle, 0, sizeof *pHandle);
    memcpy(pHandle->reserved, &w, sizeof w);
    return CUDA_SUCCESS;
}

TD_EXPORT CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    struct emu_ctx *c;
    CUresult r = emu_ctx_current(&c);
    if (r)
        return r;
    struct ipc_wire w;
    memcpy(&w, handle.reserved, sizeof w);
    if (!phEvent || memcmp(w.magic, IPC_EVENT_MAGIC, sizeof w.magic) != 0 || w.pid <= 0 || w.fd < 0 ||
        w.zero || w.size != EMU_IPC_SYNC_BYTES || w.maplen != EMU_IPC_SYNC_BYTES) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (w.pid == getpid()) {
        emu_ctx_put(c);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    void *m = map_exported(&w, EMU_IPC_EVENT, &r);
    if (r == CUDA_SUCCESS && (r = emu_event_ipc_import(c, m, phEvent)) != CUDA_SUCCESS)
        munmap(m, EMU_IPC_SYNC_BYTES);
    emu_ctx_put(c);
    return r;
}
