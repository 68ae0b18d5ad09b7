/* SPDX-License-Identifier: Apache-2.0 */
/* Calls reached through cuGetProcAddress are traced under the name the
 * version and flags select, as the CUDA runtime reaches the driver. Run
 * with -e trace=all: every lookup in full, none folded. */
#include "tests.h"

int main(void)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    MUST(cuGetProcAddress_v2("cuInit", &p, 2000, 0, &st), CUDA_SUCCESS);
    line("cuGetProcAddress_v2(\"cuInit\", &%p, 2000, CU_GET_PROC_ADDRESS_DEFAULT, "
         "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", p);
    MUST(((CUresult (*)(unsigned))p)(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    MUST(cuGetProcAddress_v2("cuMemAlloc", &p, 3020, 0, &st), CUDA_SUCCESS);
    line("cuGetProcAddress_v2(\"cuMemAlloc\", &%p, 3020, CU_GET_PROC_ADDRESS_DEFAULT, "
         "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", p);
    CUcontext ctx;
    MUST(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRetain(&ctx#1(dev 0), 0) = CUDA_SUCCESS");
    MUST(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    line("cuCtxSetCurrent(ctx#1(dev 0)) = CUDA_SUCCESS");
    CUdeviceptr d;
    MUST(((CUresult (*)(CUdeviceptr *, size_t))p)(&d, 64), CUDA_SUCCESS);
    line("cuMemAlloc_v2(&%#llx (alloc#1), 64 B) = CUDA_SUCCESS", (unsigned long long)d);
    /* the per-thread-default-stream variant */
    MUST(cuGetProcAddress_v2("cuMemcpyHtoD", &p, 3020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                             &st), CUDA_SUCCESS);
    line("cuGetProcAddress_v2(\"cuMemcpyHtoD\", &%p, 3020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "
         "&CU_GET_PROC_ADDRESS_SUCCESS) = CUDA_SUCCESS", p);
    char buf[64] = { 1 };
    MUST(((CUresult (*)(CUdeviceptr, const void *, size_t))p)(d, buf, 64), CUDA_SUCCESS);
    line("cuMemcpyHtoD_v2_ptds(%#llx (alloc#1), %p, 64 B) = CUDA_SUCCESS", (unsigned long long)d, (void *)buf);
    /* a name that does not exist, and a version too old for a name */
    MUST(cuGetProcAddress_v2("cuNoSuchCall", &p, 13000, 0, &st), CUDA_ERROR_NOT_FOUND);
    line("cuGetProcAddress_v2(\"cuNoSuchCall\", %p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, %p) = "
         "CUDA_ERROR_NOT_FOUND (500)", (void *)&p, (void *)&st);
    exited(0);
    return 0;
}
