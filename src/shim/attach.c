/* SPDX-License-Identifier: Apache-2.0 */
/* The shim in a process tdtrace attached to (tdtrace -p): it was loaded by
 * a dlopen tdtrace made the process run, after the program started, so its
 * constructor found no TDTRACE_SOCK and did nothing (init.c). tdtrace then
 * calls tdtrace_shim_attach inside the process: the backend is the driver
 * the program already has loaded (the same instance: its contexts and
 * memory), the connection is the socket tdtrace names, and the driver
 * entry points tdtrace patched to jump to the shim's wrappers are called
 * through their trampolines. tdtrace_shim_detach makes the shim inert: it
 * stays loaded (a thread may be inside a wrapper) and records nothing. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

#include "shim.h"
#include "tdtrace/attachreq.h"

static int attached; /* now */
static int once;     /* ever: what is registered once per process */
static char self_path[PATH_MAX]; /* this shim's file, as the loader knows it */

/* tdtrace points the GOT slots for dlopen at tdtrace_shim_dlopen
 * (attach_x86_64.S), which asks this which file to open: while attached,
 * a driver named by path (libcuda.so.1 or libcuda.so in any directory)
 * is this shim, as LD_AUDIT makes it for a launched program (src/audit);
 * by name the loader finds the shim already, by its soname. */
const char *td_attach_dlopen_file(const char *file);
const char *td_attach_dlopen_file(const char *file)
{
    if (!file || !__atomic_load_n(&attached, __ATOMIC_ACQUIRE) || !self_path[0])
        return file;
    const char *base = strrchr(file, '/');
    if (!base || (strcmp(base + 1, "libcuda.so.1") != 0 && strcmp(base + 1, "libcuda.so") != 0))
        return file;
    return self_path;
}

static int fail(struct td_attach_req *req, const char *msg)
{
    snprintf(req->msg, sizeof(req->msg), "%s", msg);
    return -1;
}

TD_EXPORT int tdtrace_shim_attach(struct td_attach_req *req);
TD_EXPORT int tdtrace_shim_attach(struct td_attach_req *req)
{
    if (req->magic != TD_ATTACH_MAGIC || req->version != TD_ATTACH_VERSION)
        return fail(req, "the shim and tdtrace are from different builds");
    if (req->nfns != TD_FN__ENTRY_POINTS)
        return fail(req, "the shim and tdtrace know different entry points (different builds)");
    if (attached) {
        struct td_ring *r = atomic_load(&td_shim_ring);
        pid_t by = r && r->hdr ? r->hdr->consumer_pid : 0;
        if (by > 0 && kill(by, 0) < 0 && errno == ESRCH) {
            snprintf(req->msg, sizeof(req->msg), "the tdtrace that attached before (pid %d) was killed while "
                     "attached: the driver's entry points still lead into the shim, which passes every call "
                     "on unrecorded; tdtrace attaches again only to a process it has left cleanly", (int)by);
            return -1;
        }
        return fail(req, "another tdtrace is attached to this process");
    }
    if (td_shim_ctl && !once)
        return fail(req, "the shim started with the program (it carries tdtrace's environment "
                         "from an earlier run)");
    req->sock[sizeof(req->sock) - 1] = '\0';
    req->driver[sizeof(req->driver) - 1] = '\0';
    if (req->npairs > TD_ATTACH_MAXPAIRS)
        return fail(req, "too many patched entry points");
    for (uint32_t i = 1; i < req->npairs; i++)
        if (req->pairs[i].entry <= req->pairs[i - 1].entry)
            return fail(req, "the patched entry points are not sorted");
    if (req->npairs) {
        uint64_t *tab = malloc(req->npairs * 2 * sizeof(*tab));
        if (!tab)
            return fail(req, "out of memory");
        for (uint32_t i = 0; i < req->npairs; i++) {
            tab[2 * i] = req->pairs[i].entry;
            tab[2 * i + 1] = req->pairs[i].original;
        }
        td_backend_set_originals(tab, req->npairs);
        req->kept = 1;
    }
    if (!req->driver[0]) /* none loaded yet: chosen as at a launched program's start */
        td_backend_load();
    else if (td_backend_adopt(req->driver, (int)req->kind) < 0)
        return fail(req, "the driver the program loaded does not open with RTLD_NOLOAD");
    /* the backend's functions that tdtrace patches: their trampolines */
    for (int i = 0; i < TD_FN__ENTRY_POINTS; i++) {
        void *f = td_backend_fn(i);
        if (f)
            td_set_backend_fn(i, td_backend_original(f));
    }
    /* before any patched entry leads here (tdtrace patches after this call) */
    __atomic_store_n(&td_shim_nest_guard, 1, __ATOMIC_RELAXED);
    td_conn_set_sock(req->sock);
    td_conn_start();
    if (!td_shim_ctl)
        return fail(req, "the shim could not connect to tdtrace");
    td_shim_policy_init();
    if (!once) {
        td_shim_listen_emu();
        td_procaddr_register();
        td_exptab_register();
        pthread_atfork(NULL, NULL, td_shim_atfork_child);
        once = 1;
    }
    Dl_info self;
    if (!self_path[0] && dladdr((void *)tdtrace_shim_attach, &self) && self.dli_fname &&
        self.dli_fname[0] == '/')
        snprintf(self_path, sizeof(self_path), "%s", self.dli_fname);
    __atomic_store_n(&attached, 1, __ATOMIC_RELEASE);
    td_shim_hello();
    return 0;
}

TD_EXPORT void tdtrace_shim_detach(void);
TD_EXPORT void tdtrace_shim_detach(void)
{
    /* no new connection (a child forked from now on), no record, no
     * policy; the areas stay mapped: a thread may still hold them */
    td_conn_set_sock("");
    __atomic_store_n(&td_shim_policy_active, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&td_shim_mask, NULL, __ATOMIC_RELAXED);
    atomic_store_explicit(&td_shim_ring, NULL, memory_order_release);
    __atomic_store_n(&attached, 0, __ATOMIC_RELEASE);
}
