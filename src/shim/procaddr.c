/* SPDX-License-Identifier: Apache-2.0 */
/* cuGetProcAddress in the shim.
 *
 * The CUDA runtime reaches the driver through cuGetProcAddress pointers,
 * so the shim answers every lookup with its own wrapper for exactly the
 * name, ABI version and per-thread flag asked for, and makes that wrapper
 * call what the backend answered for the same lookup: the entry point a
 * driver of the backend's release gives for it (an older driver gives an
 * older version of an entry point, with that version's signature). A name
 * the API table does not know is passed through (and the lookup itself is
 * traced). */
#include "shim.h"

#include <stdatomic.h>

#include "drvver.h"

#define PER_THREAD_FLAG 2 /* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */

typedef CUresult (*getproc_v1_t)(const char *, void **, int, cuuint64_t);
typedef CUresult (*getproc_v2_t)(const char *, void **, int, cuuint64_t,
                                 CUdriverProcAddressQueryResult *);

/* the backend's release, as its cuDriverGetVersion says (asked once) */
static int backend_release(void)
{
    static atomic_int release;
    int v = atomic_load_explicit(&release, memory_order_relaxed);
    if (v)
        return v;
    CUresult (*get)(int *) = (CUresult (*)(int *))td_backend_fn(TD_FN_cuDriverGetVersion);
    if (!get || get(&v) != CUDA_SUCCESS || v <= 0)
        v = TD_API_NEWEST;
    atomic_store_explicit(&release, v, memory_order_relaxed);
    return v;
}

/* the release lookups are answered as: the backend's, or an older one a
 * policy requires (require driver=, enforced) */
static int release(void)
{
    int r = backend_release(), req = td_shim_required_driver();
    return req && req < r ? req : r;
}

/* the backend found p for (symbol, version, flags): hand out our wrapper */
static void *wrap(const char *symbol, int version, cuuint64_t flags, void *p)
{
    int status;
    int id = td_drv_lookup(symbol, version, (flags & PER_THREAD_FLAG) != 0, release(), &status);
    if (id < 0)
        return p;
    p = td_backend_original(p); /* tdtrace -p patched that entry to jump to the shim */
    if (!td_override(id))
        td_set_backend_fn(id, p);
    return td_shim_fns[id];
}

/* A policy's older release: what its driver lacks is not looked up (0),
 * and a version it does not know is asked as its own (*version). 1: ask
 * the backend. */
static int required_lookup(const char *symbol, int *version, cuuint64_t flags, void **pfn,
                           CUdriverProcAddressQueryResult *status, CUresult *r)
{
    int req = td_shim_required_driver(), why, too_low;
    if (!req || (td_proc_lookup(symbol, TD_API_NEWEST, 0, &too_low) < 0 && !too_low))
        return 1; /* none, or a name the table does not know */
    if (td_drv_lookup(symbol, *version, (flags & PER_THREAD_FLAG) != 0, req, &why) >= 0) {
        if (*version > req)
            *version = req;
        return 1;
    }
    if (pfn)
        *pfn = NULL;
    if (status)
        *status = why == 2 ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    *r = CUDA_ERROR_NOT_FOUND;
    return 0;
}

static CUresult shim_getproc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                CUdriverProcAddressQueryResult *status)
{
    CUresult req_r;
    if (!required_lookup(symbol, &version, flags, pfn, status, &req_r))
        return req_r;
    getproc_v2_t v2 = (getproc_v2_t)td_backend_fn(TD_FN_cuGetProcAddress_v2);
    getproc_v1_t v1 = (getproc_v1_t)td_backend_fn(TD_FN_cuGetProcAddress);
    void *p = NULL;
    CUresult r;
    if (v2) {
        r = v2(symbol, &p, version, flags, status);
    } else if (v1) {
        r = v1(symbol, &p, version, flags);
        if (status)
            *status = r == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS
                                        : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    } else {
        return td_missing(TD_FN_cuGetProcAddress_v2);
    }
    if (pfn)
        *pfn = r == CUDA_SUCCESS && p ? wrap(symbol, version, flags, p) : p;
    return r;
}

static CUresult shim_getproc_v1(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    getproc_v1_t v1 = (getproc_v1_t)td_backend_fn(TD_FN_cuGetProcAddress);
    if (!v1)
        return shim_getproc_v2(symbol, pfn, version, flags, NULL);
    CUresult req_r;
    if (!required_lookup(symbol, &version, flags, pfn, NULL, &req_r))
        return req_r;
    void *p = NULL;
    CUresult r = v1(symbol, &p, version, flags);
    if (pfn)
        *pfn = r == CUDA_SUCCESS && p ? wrap(symbol, version, flags, p) : p;
    return r;
}

void td_procaddr_register(void)
{
    td_set_override(TD_FN_cuGetProcAddress, (void *)shim_getproc_v1);
    td_set_override(TD_FN_cuGetProcAddress_v2, (void *)shim_getproc_v2);
}
