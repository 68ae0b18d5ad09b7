/* SPDX-License-Identifier: Apache-2.0 */
/* cuGetExportTable in the shim.
 *
 * The backend's table is handed out as a copy whose known slots are
 * wrappers (traced under the names of src/api/exptab.api) and whose other
 * slots are trampolines (tramp.c) to the backend's own. A copy is made once per table and kept for
 * the life of the process: the runtime expects stable addresses. Because
 * the runtime's integrity check hashes the addresses it sees (the copies'),
 * the INTEGRITY_CHECK slot is answered here, with what the backend reports
 * for the driver version and the devices (as the program sees them). */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exptab.h"
#include "shim.h"

#define MAX_SLOTS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void **copies[TD_EXPTAB__COUNT];   /* what the program holds */
static void **origs[TD_EXPTAB__COUNT];    /* the backend's table */

static void *orig_slot(int t, int slot)
{
    return origs[t][slot];
}

/* ---- the wrappers ------------------------------------------------------- */

static CUresult cudart_get_primary_ctx(CUcontext *ctx, CUdevice dev)
{
    uint64_t a[] = { TD_PTR(ctx), (uint64_t)dev };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_CUDART_INTERFACE_get_primary_ctx, &c, a, &r)) {
        if (td_dev_mapped)
            dev = td_dev_in(&c, dev);
        r = ((CUresult (*)(CUcontext *, CUdevice))orig_slot(TD_EXPTAB_CUDART_INTERFACE, 2))(ctx, dev);
    }
    td_leave(&c, a, r);
    return r;
}

static void hooks_buffer(int fn, int slot, void **buf, size_t *n)
{
    uint64_t a[] = { TD_PTR(buf), TD_PTR(n) };
    struct td_call c;
    CUresult r = CUDA_SUCCESS;
    if (td_enter(fn, &c, a, &r))
        ((void (*)(void **, size_t *))orig_slot(TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS, slot))(buf, n);
    td_leave(&c, a, CUDA_SUCCESS);
}

static void hooks_buffer2(void **buf, size_t *n)
{
    hooks_buffer(TD_FN_TOOLS_RUNTIME_CALLBACK_HOOKS_buffer2, 2, buf, n);
}

static void hooks_buffer6(void **buf, size_t *n)
{
    hooks_buffer(TD_FN_TOOLS_RUNTIME_CALLBACK_HOOKS_buffer6, 6, buf, n);
}

static CUresult tls_current_ctx(CUcontext *ctx)
{
    uint64_t a[] = { TD_PTR(ctx) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_TOOLS_TLS_get_current_ctx, &c, a, &r))
        r = ((CUresult (*)(CUcontext *))orig_slot(TD_EXPTAB_TOOLS_TLS, 2))(ctx);
    td_leave(&c, a, r);
    return r;
}

static CUresult tctx_get_id(CUcontext ctx, unsigned long long *id)
{
    uint64_t a[] = { TD_PTR(ctx), TD_PTR(id) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_TOOLS_CONTEXT_get_id, &c, a, &r))
        r = ((CUresult (*)(CUcontext, unsigned long long *))orig_slot(TD_EXPTAB_TOOLS_CONTEXT, 4))(ctx, id);
    td_leave(&c, a, r);
    return r;
}

typedef void (*cls_dtor)(CUcontext, void *, void *);

static CUresult cls_put(CUcontext ctx, void *key, void *value, cls_dtor dtor)
{
    uint64_t a[] = { TD_PTR(ctx), TD_PTR(key), TD_PTR(value), TD_PTR(dtor) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_CONTEXT_LOCAL_STORAGE_put, &c, a, &r))
        r = ((CUresult (*)(CUcontext, void *, void *, cls_dtor))orig_slot(
            TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 0))(ctx, key, value, dtor);
    td_leave(&c, a, r);
    return r;
}

static CUresult cls_delete(CUcontext ctx, void *key)
{
    uint64_t a[] = { TD_PTR(ctx), TD_PTR(key) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_CONTEXT_LOCAL_STORAGE_delete, &c, a, &r))
        r = ((CUresult (*)(CUcontext, void *))orig_slot(TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 1))(ctx, key);
    td_leave(&c, a, r);
    return r;
}

static CUresult cls_get(void **value, CUcontext ctx, void *key)
{
    uint64_t a[] = { TD_PTR(value), TD_PTR(ctx), TD_PTR(key) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_CONTEXT_LOCAL_STORAGE_get, &c, a, &r))
        r = ((CUresult (*)(void **, CUcontext, void *))orig_slot(TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 2))(
            value, ctx, key);
    td_leave(&c, a, r);
    return r;
}

static CUresult checks_check(CUcontext ctx, uint32_t *wrapped, void **unwrapped)
{
    uint64_t a[] = { TD_PTR(ctx), TD_PTR(wrapped), TD_PTR(unwrapped) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_CONTEXT_CHECKS_check, &c, a, &r))
        r = ((CUresult (*)(CUcontext, uint32_t *, void **))orig_slot(TD_EXPTAB_CONTEXT_CHECKS, 2))(
            ctx, wrapped, unwrapped);
    td_leave(&c, a, r);
    return r;
}

static uint32_t checks_slot3(void)
{
    uint64_t a[] = { 0 };
    struct td_call c;
    CUresult r = CUDA_SUCCESS;
    uint32_t v = 0;
    if (td_enter(TD_FN_CONTEXT_CHECKS_slot3, &c, a, &r))
        v = ((uint32_t (*)(void))orig_slot(TD_EXPTAB_CONTEXT_CHECKS, 3))();
    td_leave(&c, a, (CUresult)v);
    return v;
}

/* the devices as the program sees them, for the integrity answer */
static int program_devices(struct td_integrity_dev *devs, int max)
{
    CUresult (*count)(int *) = (CUresult (*)(int *))td_backend_fn(TD_FN_cuDeviceGetCount);
    CUresult (*uuid)(CUuuid *, CUdevice) = (CUresult (*)(CUuuid *, CUdevice))td_backend_fn(TD_FN_cuDeviceGetUuid_v2);
    CUresult (*attr)(int *, CUdevice_attribute, CUdevice) =
        (CUresult (*)(int *, CUdevice_attribute, CUdevice))td_backend_fn(TD_FN_cuDeviceGetAttribute);
    if (!uuid)
        uuid = (CUresult (*)(CUuuid *, CUdevice))td_backend_fn(TD_FN_cuDeviceGetUuid);
    int n = 0;
    if (!count || !uuid || !attr || count(&n) != CUDA_SUCCESS)
        return 0;
    /* the backend device behind each ordinal the program sees */
    CUdevice behind[64];
    int k = 0;
    struct td_call c = { 0 };
    for (int v = 0; k < max && k < 64 && (td_dev_mapped || v < n); v++) {
        CUdevice b = td_dev_mapped ? td_dev_in(&c, v) : v;
        if (b < 0 || b >= n)
            break;
        behind[k++] = b;
    }
    for (int i = 0; i < k; i++) {
        CUuuid u;
        uuid(&u, behind[i]);
        memcpy(devs[i].uuid, u.bytes, 16);
        attr(&devs[i].pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, behind[i]);
        attr(&devs[i].pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, behind[i]);
        attr(&devs[i].pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, behind[i]);
    }
    return k;
}

static CUresult integrity_check(uint32_t version, uint64_t seconds, uint64_t out[2]);

static CUresult integrity_check(uint32_t version, uint64_t seconds, uint64_t out[2])
{
    uint64_t a[] = { version, seconds, TD_PTR(out) };
    struct td_call c;
    CUresult r;
    if (td_enter(TD_FN_INTEGRITY_CHECK_check, &c, a, &r)) {
        CUresult (*ver)(int *) = (CUresult (*)(int *))td_backend_fn(TD_FN_cuDriverGetVersion);
        int dv = 0;
        r = !out ? CUDA_ERROR_INVALID_VALUE : !ver ? CUDA_ERROR_NOT_INITIALIZED : ver(&dv);
        if (r == CUDA_SUCCESS) {
            struct td_integrity_dev devs[64];
            int n = program_devices(devs, 64);
            td_integrity_answer((uint32_t)dv, version, (uint32_t)getpid(), (uint32_t)pthread_self(),
                                TD_PTR(copies[TD_EXPTAB_CUDART_INTERFACE]),
                                TD_PTR(copies[TD_EXPTAB_INTEGRITY_CHECK]), TD_PTR(integrity_check),
                                seconds, devs, n, out);
        }
    }
    td_leave(&c, a, r);
    return r;
}

/* the wrapped slots of each table */
static const struct { int table, slot; void *fn; } wrapped[] = {
    { TD_EXPTAB_CUDART_INTERFACE, 2, (void *)cudart_get_primary_ctx },
    { TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS, 2, (void *)hooks_buffer2 },
    { TD_EXPTAB_TOOLS_RUNTIME_CALLBACK_HOOKS, 6, (void *)hooks_buffer6 },
    { TD_EXPTAB_TOOLS_TLS, 2, (void *)tls_current_ctx },
    { TD_EXPTAB_TOOLS_CONTEXT, 4, (void *)tctx_get_id },
    { TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 0, (void *)cls_put },
    { TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 1, (void *)cls_delete },
    { TD_EXPTAB_CONTEXT_LOCAL_STORAGE, 2, (void *)cls_get },
    { TD_EXPTAB_CONTEXT_CHECKS, 2, (void *)checks_check },
    { TD_EXPTAB_CONTEXT_CHECKS, 3, (void *)checks_slot3 },
    { TD_EXPTAB_INTEGRITY_CHECK, 1, (void *)integrity_check },
};

/* ---- cuGetExportTable ---------------------------------------------------- */

static const void *wrap_table(int t, const void *table)
{
    pthread_mutex_lock(&lock);
    if (copies[t] && origs[t] == table) {
        pthread_mutex_unlock(&lock);
        return copies[t];
    }
    const struct td_exptab_info *info = &td_exptabs[t];
    void **orig = (void **)table;
    size_t n = (size_t)info->nslots;
    if (info->sized) {
        size_t bytes = (size_t)(uintptr_t)orig[0];
        if (bytes % sizeof(void *) == 0 && bytes / sizeof(void *) >= n &&
            bytes / sizeof(void *) <= MAX_SLOTS)
            n = bytes / sizeof(void *);
    }
    void **copy = calloc(n, sizeof(void *));
    if (!copy) { /* no copy: the program gets the backend's table, untraced */
        pthread_mutex_unlock(&lock);
        return table;
    }
    memcpy(copy, orig, n * sizeof(void *));
    for (size_t s = info->sized ? 1 : 0; s < n; s++)
        copy[s] = td_tramp_for(info->uuid, (unsigned)s, orig[s]);
    for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
        if (wrapped[i].table == t && (size_t)wrapped[i].slot < n && orig[wrapped[i].slot] &&
            !(info->sized && wrapped[i].slot == 0))
            copy[wrapped[i].slot] = wrapped[i].fn;
    if (t == TD_EXPTAB_INTEGRITY_CHECK && n > 1)
        copy[1] = (void *)integrity_check; /* answered here: see the top */
    origs[t] = orig;
    copies[t] = copy; /* kept for the life of the process */
    pthread_mutex_unlock(&lock);
    return copy;
}

static CUresult shim_get_export_table(const void **table, const CUuuid *id)
{
    CUresult (*get)(const void **, const CUuuid *) =
        (CUresult (*)(const void **, const CUuuid *))td_backend_fn(TD_FN_cuGetExportTable);
    if (!get)
        return td_missing(TD_FN_cuGetExportTable);
    CUresult r = get(table, id);
    if (r != CUDA_SUCCESS || !table || !*table || !id)
        return r;
    int t = td_exptab_find((const unsigned char *)id->bytes);
    if (t >= 0)
        *table = wrap_table(t, *table);
    return r;
}

void td_exptab_register(void)
{
    td_set_override(TD_FN_cuGetExportTable, (void *)shim_get_export_table);
}
