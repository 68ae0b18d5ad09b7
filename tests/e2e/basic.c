/* SPDX-License-Identifier: Apache-2.0 */
/* The calls a device query makes, with out-values, enums and errors. */
#include <string.h>

#include "tests.h"

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    int ver = 0;
    MUST(cuDriverGetVersion(&ver), CUDA_SUCCESS);
    line("cuDriverGetVersion(&%d) = CUDA_SUCCESS", ver);
    int n = 0;
    MUST(cuDeviceGetCount(&n), CUDA_SUCCESS);
    line("cuDeviceGetCount(&%d) = CUDA_SUCCESS", n);
    CUdevice dev = -1;
    MUST(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    line("cuDeviceGet(&%d, 0) = CUDA_SUCCESS", dev);
    char name[256];
    MUST(cuDeviceGetName(name, sizeof(name), dev), CUDA_SUCCESS);
    line("cuDeviceGetName(\"%s\", 256, 0) = CUDA_SUCCESS", name);
    int sms = 0;
    MUST(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), CUDA_SUCCESS);
    line("cuDeviceGetAttribute(&%d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0) = CUDA_SUCCESS", sms);
    CUdevice bad;
    MUST(cuDeviceGet(&bad, 99), CUDA_ERROR_INVALID_DEVICE);
    line("cuDeviceGet(%p, 99) = CUDA_ERROR_INVALID_DEVICE (101)", (void *)&bad);
    CUcontext ctx = NULL;
    MUST(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    /* handles by name, the context with its device */
    line("cuDevicePrimaryCtxRetain(&ctx#1(dev 0), 0) = CUDA_SUCCESS");
    MUST(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    line("cuCtxSetCurrent(ctx#1(dev 0)) = CUDA_SUCCESS");
    /* device pointers in their allocation; sizes in bytes, KiB, MiB... */
    CUdeviceptr d = 0;
    MUST(cuMemAlloc_v2(&d, 4096), CUDA_SUCCESS);
    line("cuMemAlloc_v2(&%#llx (alloc#1), 4 KiB) = CUDA_SUCCESS", (unsigned long long)d);
    char host[4096];
    memset(host, 7, sizeof(host));
    MUST(cuMemcpyHtoD_v2(d + 0x100, host, 1000), CUDA_SUCCESS);
    line("cuMemcpyHtoD_v2(%#llx (alloc#1+0x100), %p, 1000 B) = CUDA_SUCCESS", (unsigned long long)d + 0x100,
         (void *)host);
    CUdeviceptr huge;
    MUST(cuMemAlloc_v2(&huge, 1ULL << 50), CUDA_ERROR_OUT_OF_MEMORY);
    line("cuMemAlloc_v2(%p, 1 PiB) = CUDA_ERROR_OUT_OF_MEMORY (2)", (void *)&huge);
    MUST(cuMemFree_v2(d), CUDA_SUCCESS);
    line("cuMemFree_v2(%#llx (alloc#1)) = CUDA_SUCCESS", (unsigned long long)d);
    const char *s = NULL;
    MUST(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    line("cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &\"%s\") = CUDA_SUCCESS", s);
    MUST(cuDevicePrimaryCtxRelease_v2(dev), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRelease_v2(0) = CUDA_SUCCESS");
    exited(0);
    return 0;
}
