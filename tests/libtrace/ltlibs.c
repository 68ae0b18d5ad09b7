/* SPDX-License-Identifier: Apache-2.0 */
/* Two small libraries for tests/libtrace/run.sh, built from this one file:
 * -DLT_INNER gives libltinner.so (lt_inner asks the driver its version),
 * else libltouter.so (lt_outer calls lt_inner), -DLT_MAIN the program
 * that calls lt_outer, -DLT_DLOPEN one linked with the driver that opens
 * libltouter.so with dlopen, calls it, closes it, and again. Traced with -e lib=liblt*, none of them described
 * in src/api/libs.api: lt_outer's line, lt_inner's nested beneath it and
 * cuDriverGetVersion beneath that. */
#include <stdio.h>

#if defined(LT_INNER)
#include "cuda.h"
#include "td_api.h"
__attribute__((visibility("default"))) int lt_inner(int x);
int lt_inner(int x)
{
    int v = 0;
    return cuDriverGetVersion(&v) == CUDA_SUCCESS ? x + 2 : -1;
}
#elif defined(LT_MAIN)
int lt_outer(int x);
int main(void)
{
    int r = lt_outer(5);
    printf("lt_outer(5) = %d\n", r);
    return r == 7 ? 0 : 1;
}
#elif defined(LT_DLOPEN)
/* linked with the driver (the shim is there from the start), then
 * libltouter.so opened with dlopen: its functions are traced from then on */
#include <dlfcn.h>
#include "cuda.h"
#include "td_api.h"
int main(int argc, char **argv)
{
    if (argc < 2 || cuInit(0) != CUDA_SUCCESS)
        return 2;
    /* twice: opened, called, closed (unloaded), opened again, called */
    for (int round = 0; round < 2; round++) {
        void *h = dlopen(argv[1], RTLD_NOW);
        int (*outer)(int) = h ? (int (*)(int))dlsym(h, "lt_outer") : NULL;
        if (!outer) {
            printf("dlopen: %s\n", dlerror());
            return 1;
        }
        int r = outer(40 + round);
        printf("lt_outer(%d) = %d\n", 40 + round, r);
        if (r != 42 + round)
            return 1;
        dlclose(h);
    }
    return 0;
}
#else
int lt_inner(int x);
__attribute__((visibility("default"))) int lt_outer(int x);
int lt_outer(int x)
{
    return lt_inner(x);
}
#endif
