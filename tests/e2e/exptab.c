/* SPDX-License-Identifier: Apache-2.0 */
/* Calls through cuGetExportTable's tables are traced: a known slot by name,
 * any other slot as EXPORT_TABLE.slot(TABLE, N, first arguments) with the
 * low 32 bits of its result. */
#include <stdint.h>

#include "tests.h"

int main(void)
{
    MUST(cuInit(0), CUDA_SUCCESS);
    line("cuInit(0) = CUDA_SUCCESS");
    const void *t = NULL;
    MUST(cuGetExportTable(&t, &tools_tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t);
    /* slot 1 of TOOLS_TLS: nobody is known to call it; the emulator answers
     * CUDA_ERROR_NOT_SUPPORTED */
    CUresult (*slot1)(long, long, long, long, long, long, long, long) =
        (CUresult (*)(long, long, long, long, long, long, long, long))((void *const *)t)[1];
    CUresult r = slot1(1, 2, 3, 4, 5, 6, 7, 8); /* two arguments on the stack */
    if (r != CUDA_ERROR_NOT_SUPPORTED)
        return 3;
    line("EXPORT_TABLE.slot(TOOLS_TLS, 1, 0x1, 0x2, 0x3, 0x4) = 801");
    /* slot 2: the thread's current context, traced by name */
    CUresult (*current)(CUcontext *) = (CUresult (*)(CUcontext *))((void *const *)t)[2];
    CUcontext c = (CUcontext)1, p = NULL;
    MUST(current(&c), CUDA_SUCCESS);
    if (c)
        return 5;
    line("TOOLS_TLS.get_current_ctx(&NULL) = CUDA_SUCCESS");
    MUST(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    line("cuDevicePrimaryCtxRetain(&ctx#1(dev 0), 0) = CUDA_SUCCESS");
    MUST(cuCtxSetCurrent(p), CUDA_SUCCESS);
    line("cuCtxSetCurrent(ctx#1(dev 0)) = CUDA_SUCCESS");
    MUST(current(&c), CUDA_SUCCESS);
    if (c != p)
        return 6;
    line("TOOLS_TLS.get_current_ctx(&ctx#1(dev 0)) = CUDA_SUCCESS");
    MUST(current(NULL), CUDA_ERROR_INVALID_VALUE);
    line("TOOLS_TLS.get_current_ctx(NULL) = CUDA_ERROR_INVALID_VALUE (1)");
    /* TOOLS_CONTEXT slot 4: the context's id, as cuCtxGetId; a slot of
     * unknown meaning answers NOT_SUPPORTED; TOOLS_MODULE is not served */
    static const CUuuid tools_context = { { 0x21, 0x31, (char)0x8c, 0x60, (char)0x97, 0x14, 0x32, 0x48,
                                            (char)0x8c, (char)0xa6, 0x41, (char)0xff, 0x73, 0x24, (char)0xc8,
                                            (char)0xf2 } };
    static const CUuuid tools_module = { { 0x6e, 0x16, 0x3f, (char)0xbe, (char)0xb9, 0x58, 0x44, 0x4d,
                                           (char)0x83, 0x5c, (char)0xe1, (char)0x82, (char)0xaf, (char)0xf1,
                                           (char)0x99, 0x1e } };
    const void *tc = NULL;
    MUST(cuGetExportTable(&tc, &tools_context), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_CONTEXT) = CUDA_SUCCESS", tc);
    if ((uintptr_t)((void *const *)tc)[0] < 52 * sizeof(void *))
        return 7;
    CUresult (*ctx_id)(CUcontext, unsigned long long *) =
        (CUresult (*)(CUcontext, unsigned long long *))((void *const *)tc)[4];
    unsigned long long id = 0, want = 0;
    MUST(ctx_id(p, &id), CUDA_SUCCESS);
    line("TOOLS_CONTEXT.get_id(ctx#1(dev 0), &%llu) = CUDA_SUCCESS", id);
    MUST(cuCtxGetId(p, &want), CUDA_SUCCESS);
    line("cuCtxGetId(ctx#1(dev 0), &%llu) = CUDA_SUCCESS", want);
    if (id != want || !id)
        return 8;
    CUresult (*slot51)(long, long, long, long) = (CUresult (*)(long, long, long, long))((void *const *)tc)[51];
    if (slot51(0x11, 0, 0x33, 0) != CUDA_ERROR_NOT_SUPPORTED)
        return 9;
    line("EXPORT_TABLE.slot(TOOLS_CONTEXT, 51, 0x11, NULL, 0x33, NULL) = 801");
    const void *tm = (const void *)1;
    MUST(cuGetExportTable(&tm, &tools_module), CUDA_ERROR_NOT_FOUND);
    line("cuGetExportTable(%p, TOOLS_MODULE) = CUDA_ERROR_NOT_FOUND (500)", (void *)&tm);
    if (tm)
        return 10;
    /* the same table twice is the same copy */
    const void *t2 = NULL;
    MUST(cuGetExportTable(&t2, &tools_tls), CUDA_SUCCESS);
    line("cuGetExportTable(&%p, TOOLS_TLS) = CUDA_SUCCESS", t2);
    if (t2 != t)
        return 4;
    exited(0);
    return 0;
}
