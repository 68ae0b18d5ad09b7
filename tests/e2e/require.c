/* SPDX-License-Identifier: Apache-2.0 */
/* require driver=12.4 (argv[1] "enforce" or "audit", argv[2] the rule as
 * the trace names it): on the full driver, a call of CUDA 13's
 * cuCtxGetDevice_v2 fails with CUDA_ERROR_NOT_FOUND (enforce) or is
 * marked (audit); enforced, cuGetProcAddress answers as a 12.4 driver:
 * cuCtxGetDevice's CUDA 2.0 version for ABI 13000, nothing for
 * cuMemcpyBatchAsync (12.8). Then the needs report. */
#include <dlfcn.h>
#include <string.h>

#include "tests.h"

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int enforce = strcmp(argv[1], "enforce") == 0;
    const char *rule = argv[2];
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 99;
    CUresult (*get_v2)(CUdevice *, CUcontext) =
        (CUresult (*)(CUdevice *, CUcontext))dlsym(h, "cuCtxGetDevice_v2");
    if (!get_v2)
        return 99;
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    CUcontext ctx;
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRetain(&ctx#1(dev 0), 0) = CUDA_SUCCESS");
    MUST(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    line("cuCtxSetCurrent(ctx#1(dev 0)) = CUDA_SUCCESS");
    CUdevice dev = -1;
    if (enforce) {
        MUST(get_v2(&dev, NULL), CUDA_ERROR_NOT_FOUND);
        line("cuCtxGetDevice_v2(%p, NULL) = CUDA_ERROR_NOT_FOUND (500) (DENIED by %s)", (void *)&dev, rule);
    } else {
        MUST(get_v2(&dev, NULL), CUDA_SUCCESS);
        line("cuCtxGetDevice_v2(&0, NULL) = CUDA_SUCCESS (would be DENIED by %s)", rule);
    }
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    MUST(cuGetProcAddress_v2("cuCtxGetDevice", &p, 13000, 0, &st), CUDA_SUCCESS);
    if (p != dlsym(h, enforce ? "cuCtxGetDevice" : "cuCtxGetDevice_v2"))
        return 98;
    line("cuGetProcAddress_v2(\"cuCtxGetDevice\", &%p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, "
         "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", p);
    if (enforce) {
        MUST(cuGetProcAddress_v2("cuMemcpyBatchAsync", &p, 12080, 0, &st), CUDA_ERROR_NOT_FOUND);
        if (p || st != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
            return 97;
        line("cuGetProcAddress_v2(\"cuMemcpyBatchAsync\", %p, 12080, CU_GET_PROC_ADDRESS_DEFAULT, %p) = "
             "CUDA_ERROR_NOT_FOUND (500)", (void *)&p, (void *)&st);
    } else {
        MUST(cuGetProcAddress_v2("cuMemcpyBatchAsync", &p, 12080, 0, &st), CUDA_SUCCESS);
        line("cuGetProcAddress_v2(\"cuMemcpyBatchAsync\", &%p, 12080, CU_GET_PROC_ADDRESS_DEFAULT, "
             "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", p);
    }
    exited(0);
    line("this run needs driver >= 13.0; cuCtxGetDevice_v2 needs 13.0");
    line("it asked cuGetProcAddress for ABI versions up to 13000 (CUDA 13.0)");
    line("the policy requires driver 12.4 (%s): 1 call of entry points it lacks, %s", rule,
         enforce ? "failed" : "marked (audit)");
    return 0;
}
