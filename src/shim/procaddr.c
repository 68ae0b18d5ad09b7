/* SPDX-License-Identifier: Apache-2.0 */
/* cuGetProcAddress in the shim.
 *
 * The CUDA runtime reaches the driver through cuGetProcAddress pointers,
 * so the shim answers every lookup with its own wrapper for exactly the
 * name, ABI version and per-thread flag asked for, and makes that wrapper
 * call what the backend answered for the same lookup. A name the API table
 * does not know is passed through (and the lookup itself is traced). */
#include "shim.h"

#define PER_THREAD_FLAG 2 /* CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM */

typedef CUresult (*getproc_v1_t)(const char *, void **, int, cuuint64_t);
typedef CUresult (*getproc_v2_t)(const char *, void **, int, cuuint64_t,
                                 CUdriverProcAddressQueryResult *);

/* the backend found p for (symbol, version, flags): hand out our wrapper */
static void *wrap(const char *symbol, int version, cuuint64_t flags, void *p)
{
    int too_low;
    int id = td_proc_lookup(symbol, version, (flags & PER_THREAD_FLAG) != 0, &too_low);
    if (id < 0)
        return p;
    p = td_backend_original(p); /* tdtrace -p patched that entry to jump to the shim */
    if (!td_override(id))
        td_set_backend_fn(id, p);
    return td_shim_fns[id];
}

static CUresult shim_getproc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                CUdriverProcAddressQueryResult *status)
{
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
