/* SPDX-License-Identifier: Apache-2.0 */
/* lib/tdtrace/libtdruntime.so: what tdtrace --runtime preloads into every
 * traced process (LD_PRELOAD), so that the shim is there before the
 * program's first CUDA runtime call, not loaded by it (the runtime opens
 * the driver at its first call, too late to trace that call). A process
 * that has a CUDA runtime, shared (libcudart.so loaded with the program)
 * or static (its functions in the executable's symbol table), gets the
 * shim (libcuda.so.1, found as the runtime would find it: tdtrace's
 * directory is first in LD_LIBRARY_PATH), whose start patches the
 * runtime's functions (src/shim/rt.c). Any other process is left as it
 * is: it loads the shim when it opens the driver, as without --runtime.
 * Nothing is printed here: the shim reports what it could not do.
 *
 * With -e lib=PATTERN (TDTRACE_LIBS) a process that has a library to trace
 * gets the shim too, and dlopen is interposed: after a library is opened,
 * the shim loads (when a library to trace is now there) or patches the new
 * libraries (tdtrace_lib_rescan, src/shim/lib.c). */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include "../common/libmatch.h"
#include "../patch/elfsym.h"
#include "search.h"

/* symbols every CUDA runtime has (the second one: every program nvcc
 * built with a kernel calls it at start) */
static const char *const marks[] = { "cudaGetDeviceCount", "__cudaRegisterFatBinary" };

static int has_runtime(void)
{
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        if (dlsym(RTLD_DEFAULT, marks[i]))
            return 1;
    struct td_elf *e;
    struct td_perr err;
    if (td_elf_open("/proc/self/exe", 0, &e, &err) != 0)
        return 0;
    int found = 0;
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && !found; i++) {
        struct td_elf_sym s;
        found = td_elf_find_func(e, marks[i], &s, &err) == 0;
    }
    td_elf_close(e);
    return found;
}

static int match_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    return td_lib_match(arg, info->dlpi_name, info->dlpi_name && *info->dlpi_name ? td_lib_soname(info) : NULL);
}

/* -e lib=: a library to trace is loaded */
static int has_lib(void)
{
    const char *pat = getenv("TDTRACE_LIBS");
    return pat && *pat && dl_iterate_phdr(match_one, (void *)pat) != 0;
}

static void *shim;

__attribute__((constructor)) static void rtload(void)
{
    if (!getenv("TDTRACE_SOCK") || (!has_lib() && !(getenv("TDTRACE_RUNTIME") && has_runtime())))
        return;
    /* kept loaded for good: the runtime will open it again by this name */
    shim = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
}

/* -e lib=: libraries opened later are traced too. A bare name is searched
 * as for the caller (search.c): its DT_RUNPATH, $ORIGIN. */
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode);
__attribute__((visibility("default"))) __attribute__((noinline)) void *dlopen(const char *file, int mode)
{
    void *h = td_dlopen_as(file, mode, __builtin_return_address(0));
    if (!h || !getenv("TDTRACE_LIBS") || !getenv("TDTRACE_SOCK"))
        return h;
    if (!shim) /* loaded already (the program links libcuda.so.1, or the runtime opened it)? */
        shim = td_real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    if (!shim) {
        if (has_lib()) /* its start patches what matches */
            shim = td_real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        return h;
    }
    void (*rescan)(void) = (void (*)(void))dlsym(shim, "tdtrace_lib_rescan");
    if (rescan)
        rescan();
    return h;
}
