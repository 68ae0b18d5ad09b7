/* SPDX-License-Identifier: Apache-2.0 */
/* The driver's private export tables (cuGetExportTable): what the CUDA
 * runtime 13 reaches outside cuGetProcAddress. Facts and slot meanings:
 * docs/cudart-private-interface.md §2-§4.
 *
 * A table is an array of pointers in static storage (its address enters the
 * integrity check, so it never moves). Slot 0 holds the table's size in
 * bytes, except in CONTEXT_LOCAL_STORAGE. A slot the runtime is not known
 * to call holds et_unsupported, which ignores its arguments and returns
 * CUDA_ERROR_NOT_SUPPORTED: a call through it is an error, never a crash.
 *
 * Context-local storage is a small list of (context, key) -> value entries
 * under a read-write lock; `get` runs before almost every runtime call and
 * takes only the read side. Entries of a context go, destructors called,
 * when the context is destroyed or its primary context is reset. */
#include "emu.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emuhost.h"
#include "exptab.h"

/* ---- slots nobody is known to call ----------------------------------- */
static CUresult et_unsupported(void)
{
    return CUDA_ERROR_NOT_SUPPORTED;
}
#define NS ((void *)et_unsupported)
#define SIZE(n) ((void *)(uintptr_t)((n) * sizeof(void *)))

/* ---- CUDART_INTERFACE ------------------------------------------------ */
/* slot 2: the device's primary context, not retained */
static CUresult CUDAAPI rt_get_primary_ctx(CUcontext *out, CUdevice dev)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    *out = (CUcontext)d->primary;
    return CUDA_SUCCESS;
}

static void *const cudart_interface[13] = {
    SIZE(13), NS, (void *)rt_get_primary_ctx, NS, NS, NS, NS, NS, NS, NS, NS, NS, NS,
};

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS ------------------------------------ */
/* zeroed buffers the driver owns; the runtime wants >= 523 and >= 14 bytes */
static _Alignas(64) unsigned char hooks_buf2[1024];
static _Alignas(64) unsigned char hooks_buf6[64];

static void CUDAAPI hooks_slot2(void **buf, size_t *n)
{
    if (buf)
        *buf = hooks_buf2;
    if (n)
        *n = sizeof hooks_buf2;
}

static void CUDAAPI hooks_slot6(void **buf, size_t *n)
{
    if (buf)
        *buf = hooks_buf6;
    if (n)
        *n = sizeof hooks_buf6;
}

static void *const tools_hooks[7] = {
    SIZE(7), NS, (void *)hooks_slot2, NS, NS, NS, (void *)hooks_slot6,
};

/* ---- TOOLS_TLS ------------------------------------------------------- */
/* slot 2: the calling thread's current context, as cuCtxGetCurrent (NULL
 * when there is none). cuBLAS, cuBLASLt and cuSOLVER call it at handle
 * creation and fail without it. */
static CUresult CUDAAPI tls_current_ctx(CUcontext *out)
{
    EMU_INIT_OR_RETURN();
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    return cuCtxGetCurrent(out);
}

static void *const tools_tls[4] = { SIZE(4), NS, (void *)tls_current_ctx, NS };

/* ---- TOOLS_CONTEXT --------------------------------------------------- */
/* Queries on a context for NVIDIA's tools and libraries (cuBLAS asks it at
 * its first GEMM, cuFFT when a plan is made). 95 slots, as recent drivers
 * have; only the one whose meaning is known is served, the rest answer
 * CUDA_ERROR_NOT_SUPPORTED (docs/cuda-runtime-interface.md). */
/* slot 4: the context's id, as cuCtxGetId */
static CUresult CUDAAPI tctx_get_id(CUcontext ctx, unsigned long long *id)
{
    EMU_INIT_OR_RETURN();
    if (!ctx || !id)
        return CUDA_ERROR_INVALID_VALUE;
    return cuCtxGetId(ctx, id);
}

#define NS5 NS, NS, NS, NS, NS
#define NS10 NS5, NS5
static void *const tools_context[95] = {
    SIZE(95), NS, NS, NS, (void *)tctx_get_id,
    NS10, NS10, NS10, NS10, NS10, NS10, NS10, NS10, NS10,
};

/* ---- CONTEXT_LOCAL_STORAGE ------------------------------------------- */
typedef void (*cls_dtor)(CUcontext ctx, void *key, void *value);
struct cls_entry {
    struct cls_entry *next;
    CUcontext ctx;
    void *key, *value;
    cls_dtor dtor;
};
static pthread_rwlock_t cls_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct cls_entry *cls_head;

/* the context ctx names: itself, or the current one for NULL */
static CUresult cls_ctx(CUcontext *ctx)
{
    EMU_INIT_OR_RETURN();
    if (*ctx)
        return CUDA_SUCCESS;
    CUresult r = cuCtxGetCurrent(ctx);
    if (r == CUDA_SUCCESS && !*ctx)
        r = CUDA_ERROR_INVALID_CONTEXT;
    return r;
}

/* under cls_lock */
static struct cls_entry **cls_find(CUcontext ctx, void *key)
{
    struct cls_entry **pp = &cls_head;
    while (*pp && ((*pp)->ctx != ctx || (*pp)->key != key))
        pp = &(*pp)->next;
    return pp;
}

/* slot 0: stores (or replaces) the value of key in ctx */
static CUresult CUDAAPI cls_put(CUcontext ctx, void *key, void *value, cls_dtor dtor)
{
    CUresult r = cls_ctx(&ctx);
    if (r)
        return r;
    struct emu_ctx *c = emu_obj_get(ctx, EMU_T_CTX);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    emu_ctx_put(c);
    struct cls_entry *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_rwlock_wrlock(&cls_lock);
    struct cls_entry *e = *cls_find(ctx, key);
    if (!e) {
        e = fresh;
        fresh = NULL;
        e->ctx = ctx;
        e->key = key;
        e->next = cls_head;
        cls_head = e;
    }
    e->value = value;
    e->dtor = dtor;
    pthread_rwlock_unlock(&cls_lock);
    free(fresh);
    return CUDA_SUCCESS;
}

/* slot 1: forgets key in ctx (no destructor: the owner is letting go) */
static CUresult CUDAAPI cls_delete(CUcontext ctx, void *key)
{
    CUresult r = cls_ctx(&ctx);
    if (r)
        return r;
    pthread_rwlock_wrlock(&cls_lock);
    struct cls_entry **pp = cls_find(ctx, key), *e = *pp;
    if (e)
        *pp = e->next;
    pthread_rwlock_unlock(&cls_lock);
    free(e);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* slot 2: the value of key in ctx; CUDA_ERROR_INVALID_HANDLE if none */
static CUresult CUDAAPI cls_get(void **value, CUcontext ctx, void *key)
{
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cls_ctx(&ctx);
    if (r)
        return r;
    pthread_rwlock_rdlock(&cls_lock);
    struct cls_entry *e = *cls_find(ctx, key);
    if (e)
        *value = e->value;
    pthread_rwlock_unlock(&cls_lock);
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static void cls_drop_ctx(struct emu_ctx *c)
{
    CUcontext ctx = (CUcontext)c;
    struct cls_entry *gone = NULL;
    pthread_rwlock_wrlock(&cls_lock);
    for (struct cls_entry **pp = &cls_head; *pp;) {
        struct cls_entry *e = *pp;
        if (e->ctx == ctx) {
            *pp = e->next;
            e->next = gone;
            gone = e;
        } else {
            pp = &e->next;
        }
    }
    pthread_rwlock_unlock(&cls_lock);
    /* no lock held: a destructor may call back into the driver */
    while (gone) {
        struct cls_entry *e = gone;
        gone = e->next;
        if (e->dtor)
            e->dtor(ctx, e->key, e->value);
        free(e);
    }
}

void emu_cls_init(void)
{
    emu_ctx_teardown_join(EMU_TEARDOWN_STORAGE, cls_drop_ctx);
}

static void *const context_local_storage[4] = {
    (void *)cls_put, (void *)cls_delete, (void *)cls_get, NS,
};

/* ---- CONTEXT_CHECKS -------------------------------------------------- */
/* slot 2: the context is the driver's own, nothing wrapped */
static CUresult CUDAAPI checks_ctx(CUcontext ctx, uint32_t *wrapped, void **unwrapped)
{
    EMU_INIT_OR_RETURN();
    if (ctx) {
        struct emu_ctx *c = emu_obj_get(ctx, EMU_T_CTX);
        if (!c)
            return CUDA_ERROR_INVALID_CONTEXT;
        emu_ctx_put(c);
    }
    if (wrapped)
        *wrapped = 0;
    if (unwrapped)
        *unwrapped = NULL;
    return CUDA_SUCCESS;
}

/* slot 3: called once at init, result ignored */
static uint32_t CUDAAPI checks_slot3(void)
{
    return 0;
}

static void *const context_checks[4] = {
    SIZE(4), NS, (void *)checks_ctx, (void *)checks_slot3,
};

/* ---- INTEGRITY_CHECK ------------------------------------------------- */
static CUresult CUDAAPI integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t out[2]);

static void *const integrity[3] = { SIZE(3), (void *)integrity_check, NS };

/* slot 1. Every value comes from the entry points that report it. */
static CUresult CUDAAPI integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t out[2])
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (version % 10 <= 1) { /* answers that need no device */
        td_integrity_answer(0, version, 0, 0, 0, 0, 0, 0, NULL, 0, out);
        return CUDA_SUCCESS;
    }
    int drv, ndev;
    CUresult r = cuDriverGetVersion(&drv);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&ndev);
    if (r)
        return r;
    if (ndev < 0 || ndev > EMU_MAX_DEVICES || ndev > TD_INTEGRITY_MAX_DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    struct td_integrity_dev devs[EMU_MAX_DEVICES];
    for (int i = 0; i < ndev && !r; i++) {
        CUuuid u;
        r = cuDeviceGetUuid(&u, i);
        memcpy(devs[i].uuid, u.bytes, 16);
        if (!r)
            r = cuDeviceGetAttribute(&devs[i].pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i);
        if (!r)
            r = cuDeviceGetAttribute(&devs[i].pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i);
        if (!r)
            r = cuDeviceGetAttribute(&devs[i].pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i);
    }
    if (r)
        return r;
    td_integrity_answer((uint32_t)drv, version, (uint32_t)getpid(), (uint32_t)pthread_self(),
                        (uint64_t)(uintptr_t)cudart_interface, (uint64_t)(uintptr_t)integrity,
                        (uint64_t)(uintptr_t)integrity[1], unix_seconds, devs, ndev, out);
    return CUDA_SUCCESS;
}

/* ---- the directory --------------------------------------------------- */
/* the tables by the shared registry's UUIDs (src/common/exptab.c) */
static const void *const export_tables[TD_EXPTAB__COUNT] = {
    [TD_EXPTAB_CUDART_INTERFACE] = cudart_interface,
    [TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS] = tools_hooks,
    [TD_EXPTAB_TOOLS_TLS] = tools_tls,
    [TD_EXPTAB_CONTEXT_LOCAL_STORAGE] = context_local_storage,
    [TD_EXPTAB_CONTEXT_CHECKS] = context_checks,
    [TD_EXPTAB_INTEGRITY_CHECK] = integrity,
    [TD_EXPTAB_TOOLS_CONTEXT] = tools_context,
    /* TOOLS_MODULE: none (its slots' meanings are not known) */
};

/* ---- tdtrace's own host-access table (include/tdtrace/emuhost.h) ---- */
static CUresult host_hold(CUdeviceptr p, size_t len, void **token)
{
    struct emu_alloc *a;
    if (!token)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = emu_mem_find((uintptr_t)p, len, &a);
    *token = r ? NULL : a;
    return r;
}

static void host_release(void *token)
{
    emu_alloc_put(token);
}

static CUresult host_device_memory(CUdevice dev, unsigned long long *total, unsigned long long *used)
{
    struct emu_device *d = emu_device(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!total || !used)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&d->mem_lock);
    *total = d->total_mem;
    *used = d->used;
    pthread_mutex_unlock(&d->mem_lock);
    return CUDA_SUCCESS;
}

static CUresult host_fault(const char *what, const char *why, CUdeviceptr p, size_t len)
{
    struct emu_ctx *c = emu_stream_worker_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    emu_fault_report_host(what, why, (uint64_t)p, len, c->dev ? c->dev->ordinal : -1);
    emu_ctx_fail(c, CUDA_ERROR_ILLEGAL_ADDRESS);
    return CUDA_SUCCESS;
}

static const struct td_emuhost emuhost = { sizeof emuhost, host_hold, host_release, host_device_memory, host_fault };
static const unsigned char emuhost_uuid[16] = TD_EMUHOST_UUID;

TD_EXPORT CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    if (memcmp(pExportTableId->bytes, emuhost_uuid, 16) == 0) {
        *ppExportTable = &emuhost;
        return CUDA_SUCCESS;
    }
    int t = td_exptab_find((const unsigned char *)pExportTableId->bytes);
    *ppExportTable = t >= 0 ? export_tables[t] : NULL;
    return *ppExportTable ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
