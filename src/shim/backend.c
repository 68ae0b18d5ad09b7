/* SPDX-License-Identifier: Apache-2.0 */
/* The shim's backend registry: which library calls go to (the real driver
 * or the emulator, as TDTRACE_BACKEND asks), every entry point's function
 * in it, and the shim's own overrides of a few entry points (registered by
 * procaddr.c and exptab.c when the shim starts). The generated wrappers
 * call what td_real says. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libsearch.h"
#include "policy.h"
#include "shim.h"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static _Atomic(void *) backend_fns[TD_FN__COUNT];
static _Atomic(void *) overrides[TD_FN__ENTRY_POINTS];
static void *backend_handle;
static int backend_kind = TD_BK_NONE;
static char backend_text[PATH_MAX + 128];
static const char *adopt_path; /* tdtrace -p: the driver the process has loaded */
static int adopt_kind;

static const char *own_dir(char *buf, size_t len)
{
    const char *d = getenv("TDTRACE_LIBDIR");
    if (d && *d) {
        snprintf(buf, len, "%s", d);
        return buf;
    }
    Dl_info info;
    if (dladdr((void *)&td_real, &info) && info.dli_fname) {
        snprintf(buf, len, "%s", info.dli_fname);
        char *slash = strrchr(buf, '/');
        if (slash) {
            *slash = '\0';
            return buf;
        }
    }
    buf[0] = '\0';
    return buf;
}

/* Load a backend library. The real driver is opened through /proc/self/fd
 * so that tdtrace's loader-audit library, which sends every other load of
 * libcuda.so.1 to this shim, lets this one through. */
static void *load_backend(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char via[64];
    snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
    void *h = dlopen(via, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    return h;
}

static int driver_has_devices(void *h)
{
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    CUresult (*count)(int *) = (CUresult (*)(int *))dlsym(h, "cuDeviceGetCount");
    int n = 0;
    return init && count && init(0) == CUDA_SUCCESS && count(&n) == CUDA_SUCCESS && n > 0;
}

static void choose_backend(void)
{
    char dir[PATH_MAX], path[PATH_MAX];
    if (adopt_path) { /* the very instance the program uses: its contexts, its memory */
        backend_handle = dlopen(adopt_path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        backend_kind = backend_handle ? adopt_kind : TD_BK_NONE;
        if (backend_handle)
            snprintf(backend_text, sizeof(backend_text), "%s %s (attached)",
                     adopt_kind == TD_BK_EMULATE ? "emulate" : "driver", adopt_path);
        else
            snprintf(backend_text, sizeof(backend_text), "none (%s is not loaded)", adopt_path);
        return;
    }
    own_dir(dir, sizeof(dir));
    int want = td_policy_backend_find(getenv("TDTRACE_BACKEND")); /* unset, unknown: auto */
    const char *why = "";
    if (want != TD_BACKEND_EMULATE) {
        const char *given = getenv("TDTRACE_DRIVER");
        int found = given && *given ? (snprintf(path, sizeof(path), "%s", given), 0)
                                    : td_find_library("libcuda.so.1", dir, path, sizeof(path));
        void *h = found == 0 ? load_backend(path) : NULL;
        if (h && (want == TD_BACKEND_DRIVER || driver_has_devices(h))) {
            backend_handle = h;
            backend_kind = TD_BK_DRIVER;
            snprintf(backend_text, sizeof(backend_text), "driver %s", path);
            return;
        }
        why = found != 0 ? "no NVIDIA driver found" : !h ? "the NVIDIA driver did not load"
                                                        : "the NVIDIA driver sees no device";
        if (want == TD_BACKEND_DRIVER) {
            snprintf(backend_text, sizeof(backend_text), "none (%s)", why);
            return;
        }
        /* a driver that loaded but has no device stays loaded: unloading
         * a library that started threads is not safe */
    }
    const char *emu = getenv("TDTRACE_EMULATOR");
    if (emu && *emu)
        snprintf(path, sizeof(path), "%s", emu);
    else
        snprintf(path, sizeof(path), "%s/emu/libcuda.so.1", dir);
    backend_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (backend_handle) {
        backend_kind = TD_BK_EMULATE;
        snprintf(backend_text, sizeof(backend_text), "emulate %s%s%s%s", path, *why ? " (" : "",
                 why, *why ? ")" : "");
    } else {
        snprintf(backend_text, sizeof(backend_text), "none (emulator %s did not load: %s)", path,
                 dlerror());
    }
}

static void backend_load(void)
{
    choose_backend();
    for (int i = 0; i < TD_FN__ENTRY_POINTS; i++)
        atomic_store_explicit(&backend_fns[i],
                              backend_handle ? dlsym(backend_handle, td_fns[i].name) : NULL,
                              memory_order_relaxed);
}

void *td_backend_sym(const char *name)
{
    td_backend_load();
    return backend_handle ? dlsym(backend_handle, name) : NULL;
}

void td_backend_load(void)
{
    pthread_once(&load_once, backend_load);
}

int td_backend_adopt(const char *path, int kind)
{
    static char p[PATH_MAX];
    if (!adopt_path) {
        snprintf(p, sizeof(p), "%s", path);
        adopt_kind = kind;
        adopt_path = p;
    }
    td_backend_load();
    return backend_handle && strcmp(adopt_path, path) == 0 ? 0 : -1;
}

/* tdtrace -p: (entry, trampoline) pairs, sorted by entry */
struct originals {
    size_t n;
    const uint64_t *pairs;
};
static struct originals *_Atomic originals;

void td_backend_set_originals(const uint64_t *pairs, size_t n)
{
    struct originals *o = malloc(sizeof(*o));
    if (!o)
        return;
    o->n = n;
    o->pairs = pairs;
    atomic_store_explicit(&originals, o, memory_order_release);
}

void *td_backend_original(void *p)
{
    const struct originals *o = atomic_load_explicit(&originals, memory_order_acquire);
    uint64_t a = (uint64_t)(uintptr_t)p;
    size_t lo = 0, hi = o ? o->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->pairs[2 * mid] == a)
            return (void *)(uintptr_t)o->pairs[2 * mid + 1];
        if (o->pairs[2 * mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return p;
}

int td_backend_kind(void)
{
    return backend_kind;
}

const char *td_backend_text(void)
{
    return backend_text;
}

void *td_backend_fn(int fn)
{
    td_backend_load();
    return atomic_load_explicit(&backend_fns[fn], memory_order_relaxed);
}

void td_set_backend_fn(int fn, void *p)
{
    atomic_store_explicit(&backend_fns[fn], p, memory_order_relaxed);
}

void td_set_override(int fn, void *p)
{
    atomic_store_explicit(&overrides[fn], p, memory_order_relaxed);
}

void *td_override(int fn)
{
    return fn >= 0 && fn < TD_FN__ENTRY_POINTS ? atomic_load_explicit(&overrides[fn], memory_order_relaxed)
                                               : NULL;
}

void *td_real(int fn)
{
    void *o = td_override(fn);
    return o ? o : td_backend_fn(fn);
}

CUresult td_missing(int fn)
{
    (void)fn;
    return backend_handle ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NOT_INITIALIZED;
}
