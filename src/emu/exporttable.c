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

#include "md2.h"

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

/* ---- TOOLS_TLS: must exist ------------------------------------------- */
static void *const tools_tls[4] = { SIZE(4), NS, NS, NS };

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

void emu_cls_drop_ctx(struct emu_ctx *c)
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

static const unsigned char integrity_key[16] = {
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
    0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
};

static unsigned char *put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

size_t emu_integrity_message(uint32_t driver_version, uint32_t version, uint32_t pid,
                             uint32_t thread, uint64_t t_cudart, uint64_t t_integrity,
                             uint64_t fn, uint64_t unix_seconds, int ndev,
                             const CUuuid *uuids, const int (*pci)[3], unsigned char *out)
{
    unsigned char *p = out;
    p = put_le(p, driver_version, 4);
    p = put_le(p, version, 4);
    p = put_le(p, pid, 4);
    p = put_le(p, thread, 4);
    p = put_le(p, t_cudart, 8);
    p = put_le(p, t_integrity, 8);
    p = put_le(p, fn, 8);
    p = put_le(p, unix_seconds, 8);
    for (int i = 0; i < ndev; i++) {
        memcpy(p, uuids[i].bytes, 16);
        p += 16;
        for (int j = 0; j < 3; j++)
            p = put_le(p, (uint32_t)pci[i][j], 4);
    }
    return (size_t)(p - out);
}

void emu_integrity_digest(const void *msg, size_t len, uint64_t out[2])
{
    unsigned char d[TD_MD2_DIGEST];
    td_hmac_md2(integrity_key, sizeof integrity_key, msg, len, d);
    out[0] = out[1] = 0;
    for (int i = 0; i < 8; i++) {
        out[0] |= (uint64_t)d[i] << (8 * i);
        out[1] |= (uint64_t)d[8 + i] << (8 * i);
    }
}

/* slot 1. Every value comes from the entry points that report it. */
static CUresult CUDAAPI integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t out[2])
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (version % 10 == 0) {
        out[0] = 0x3341181C03CB675CULL;
        out[1] = 0x8ED383AA1F4CD1E8ULL;
        return CUDA_SUCCESS;
    }
    if (version % 10 == 1) {
        out[0] = 0x1841181C03CB675CULL;
        out[1] = 0x8ED383AA1F4CD1E8ULL;
        return CUDA_SUCCESS;
    }
    int drv, ndev;
    CUresult r = cuDriverGetVersion(&drv);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetCount(&ndev);
    if (r)
        return r;
    if (ndev < 0 || ndev > EMU_MAX_DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    static const int pci_attr[3] = {
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
    };
    CUuuid uuids[EMU_MAX_DEVICES];
    int pci[EMU_MAX_DEVICES][3];
    for (int i = 0; i < ndev && !r; i++) {
        r = cuDeviceGetUuid(&uuids[i], i);
        for (int j = 0; j < 3 && !r; j++)
            r = cuDeviceGetAttribute(&pci[i][j], (CUdevice_attribute)pci_attr[j], i);
    }
    if (r)
        return r;
    unsigned char msg[48 + 28 * EMU_MAX_DEVICES];
    size_t len = emu_integrity_message((uint32_t)drv, version, (uint32_t)getpid(),
                                       (uint32_t)pthread_self(), (uint64_t)(uintptr_t)cudart_interface,
                                       (uint64_t)(uintptr_t)integrity, (uint64_t)(uintptr_t)integrity[1],
                                       unix_seconds, ndev, uuids, (const int (*)[3])pci, msg);
    emu_integrity_digest(msg, len, out);
    return CUDA_SUCCESS;
}

/* ---- the directory --------------------------------------------------- */
/* identities as the runtime's 16 bytes read in order, dashes for reading */
static const struct {
    const char *id;
    const void *table;
} export_tables[] = {
    { "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9", cudart_interface },
    { "a094798c-2e74-2e74-93f2-0800200c0a66", tools_hooks },
    { "42d85a81-23f6-cb47-8298-f6e78a3aecdc", tools_tls },
    { "c693336e-1121-df11-a8c3-68f355d89593", context_local_storage },
    { "263e8860-7cd2-6143-92f6-bbd5006dfa7e", context_checks },
    { "d4082055-bde6-704b-8d34-ba123c66e1f2", integrity },
};

static int uuid_is(const CUuuid *u, const char *text)
{
    static const char hexd[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        if (*text == '-')
            text++;
        unsigned char b = (unsigned char)u->bytes[i];
        if (text[0] != hexd[b >> 4] || text[1] != hexd[b & 15])
            return 0;
        text += 2;
    }
    return 1;
}

TD_EXPORT CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof export_tables / sizeof export_tables[0]; i++) {
        if (uuid_is(pExportTableId, export_tables[i].id)) {
            *ppExportTable = export_tables[i].table;
            return CUDA_SUCCESS;
        }
    }
    *ppExportTable = NULL;
    return CUDA_ERROR_NOT_FOUND;
}
