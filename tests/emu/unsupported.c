/* SPDX-License-Identifier: Apache-2.0 */
/* Linked with -lcuda: an entry point the emulator lacks says
 * CUDA_ERROR_NOT_SUPPORTED, and so does cuGetProcAddress's pointer to it. */
#include "common.h"

int main(void)
{
    CHECK(cuInit(0));
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, 0, 0));
    /* graphics interoperability is not emulated */
    EXPECT(cuGraphicsUnregisterResource(NULL) == CUDA_ERROR_NOT_SUPPORTED);
    CUresult (*fn)(CUgraphicsResource) = NULL;
    CUdriverProcAddressQueryResult st;
    CHECK(cuGetProcAddress_v2("cuGraphicsUnregisterResource", (void **)&fn, 13000, 0, &st));
    EXPECT(fn && fn(NULL) == CUDA_ERROR_NOT_SUPPORTED);
    CHECK(cuCtxDestroy_v2(ctx));
    if (!e2e_failed)
        printf("unsupported: ok\n");
    return e2e_failed;
}
