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
 * Nothing is printed here: the shim reports what it could not do. */
#include <dlfcn.h>
#include <stdlib.h>

#include "../patch/elfsym.h"

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

__attribute__((constructor)) static void rtload(void)
{
    if (!getenv("TDTRACE_SOCK") || !has_runtime())
        return;
    /* kept loaded for good: the runtime will open it again by this name */
    (void)dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
}
