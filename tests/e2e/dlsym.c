/* SPDX-License-Identifier: Apache-2.0 */
/* A program that loads the driver itself: dlopen by name, or by absolute
 * path (argv[1], a copy of a driver outside tdtrace's directories, as
 * Triton and JAX do): both land on the shim and are traced. */
#include <dlfcn.h>

#include "tests.h"

int main(int argc, char **argv)
{
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
        return 99;
    }
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    CUresult (*ver)(int *) = (CUresult (*)(int *))dlsym(h, "cuDriverGetVersion");
    if (!init || !ver)
        return 99;
    MUST(init(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    int v;
    MUST(ver(&v), CUDA_SUCCESS);
    line("cuDriverGetVersion(&%d) = CUDA_SUCCESS", v);
    exited(0);
    return 0;
}
