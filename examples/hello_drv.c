/* SPDX-License-Identifier: Apache-2.0 */
/* A small CUDA driver-API program, the kind tdtrace's demo traces: it
 * queries the devices, allocates device and pinned memory, copies both
 * ways on a stream, times the copies with events, runs a host callback,
 * sets memory, and checks every result. It uses no toolkit header: build
 * it with tdtrace's own declarations (make demo does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "td_api.h"

#define CK(call)                                                                  \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char *n_ = NULL;                                                \
            cuGetErrorName(r_, &n_);                                              \
            fprintf(stderr, "hello_drv: %s failed: %s\n", #call, n_ ? n_ : "?");  \
            return 1;                                                             \
        }                                                                         \
    } while (0)

static void CUDAAPI done(void *arg)
{
    *(int *)arg = 1;
}

int main(void)
{
    CK(cuInit(0));
    int n = 0;
    CK(cuDeviceGetCount(&n));
    for (int i = 0; i < n; i++) {
        CUdevice d;
        char name[256];
        size_t mem;
        int major, minor, sms;
        CK(cuDeviceGet(&d, i));
        CK(cuDeviceGetName(name, sizeof(name), d));
        CK(cuDeviceTotalMem_v2(&mem, d));
        CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
        CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
        CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
        printf("device %d: %s, compute %d.%d, %d SMs, %zu MiB\n", i, name, major, minor, sms,
               mem >> 20);
    }
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CK(cuCtxSetCurrent(ctx));

    enum { N = 1 << 20 };
    unsigned *host;
    CK(cuMemAllocHost_v2((void **)&host, N * sizeof(unsigned)));
    for (unsigned i = 0; i < N; i++)
        host[i] = i * 2654435761u;
    CUdeviceptr a, b;
    CK(cuMemAlloc_v2(&a, N * sizeof(unsigned)));
    CK(cuMemAlloc_v2(&b, N * sizeof(unsigned)));

    CUstream s;
    CUevent t0, t1;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuEventCreate(&t0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&t1, CU_EVENT_DEFAULT));
    int called = 0;
    CK(cuEventRecord(t0, s));
    CK(cuMemcpyHtoDAsync_v2(a, host, N * sizeof(unsigned), s));
    CK(cuMemcpyDtoDAsync_v2(b, a, N * sizeof(unsigned), s));
    CK(cuMemsetD32Async(a, 0xdeadbeef, N, s));
    CK(cuLaunchHostFunc(s, done, &called));
    CK(cuEventRecord(t1, s));
    CK(cuStreamSynchronize(s));
    float ms = 0;
    CK(cuEventElapsedTime_v2(&ms, t0, t1));

    unsigned *check = malloc(N * sizeof(unsigned));
    if (!check)
        return 1;
    CK(cuMemcpyDtoH_v2(check, b, N * sizeof(unsigned)));
    int ok = called && memcmp(check, host, N * sizeof(unsigned)) == 0;
    CK(cuMemcpyDtoH_v2(check, a, sizeof(unsigned)));
    ok = ok && check[0] == 0xdeadbeef;
    size_t free_b, total_b;
    CK(cuMemGetInfo_v2(&free_b, &total_b));
    printf("copied %zu MiB through the device in %.3f ms; %zu of %zu MiB free\n",
           (size_t)N * sizeof(unsigned) >> 20, ms, free_b >> 20, total_b >> 20);

    CK(cuEventDestroy_v2(t0));
    CK(cuEventDestroy_v2(t1));
    CK(cuStreamDestroy_v2(s));
    CK(cuMemFree_v2(a));
    /* b is left allocated on purpose: tdtrace -C reports it as a leak */
    CK(cuMemFreeHost(host));
    free(check);
    CK(cuDevicePrimaryCtxRelease_v2(0));
    printf("%s\n", ok ? "Result = PASS" : "Result = FAIL");
    return ok ? 0 : 1;
}
