/* SPDX-License-Identifier: Apache-2.0 */
/* A program that loads the driver only later (tests/attach/run.sh): it
 * writes "waiting" to READY, waits for the file GO, then loads
 * the driver with dlopen, by the name or path LIB (libcuda.so.1 if not
 * given), takes cuMemAlloc_v2 and cuMemFree_v2
 * through cuGetProcAddress_v2, allocates and frees 100 times, prints
 * "result OK 100" and exits 3. */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "td_api.h"

__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return 2;
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs("waiting\n", f) < 0 || fclose(f))
        return 2;
    while (access(argv[2], F_OK) != 0)
        usleep(2000);
    void *h = dlopen(argc == 4 ? argv[3] : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 2;
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    CUresult (*get)(CUdevice *, int) = (CUresult (*)(CUdevice *, int))dlsym(h, "cuDeviceGet");
    CUresult (*create)(CUcontext *, unsigned, CUdevice) =
        (CUresult (*)(CUcontext *, unsigned, CUdevice))dlsym(h, "cuCtxCreate_v2");
    CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        (CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))dlsym(
            h, "cuGetProcAddress_v2");
    CUdevice dev;
    CUcontext ctx;
    CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
    CUresult (*release)(CUdeviceptr) = NULL;
    CUdriverProcAddressQueryResult q;
    if (!init || !get || !create || !gpa || init(0) || get(&dev, 0) || create(&ctx, 0, dev) ||
        gpa("cuMemAlloc", (void **)&alloc, 12000, 0, &q) || gpa("cuMemFree", (void **)&release, 12000, 0, &q))
        return 2;
    int ok = 0;
    for (int i = 0; i < 100; i++) {
        CUdeviceptr d;
        ok += alloc(&d, 4096) == CUDA_SUCCESS && release(d) == CUDA_SUCCESS;
    }
    printf("result %s %d\n", ok == 100 ? "OK" : "BAD", ok);
    return ok == 100 ? 3 : 1;
}
